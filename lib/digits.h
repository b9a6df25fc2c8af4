/*
 * Number digits from one table (lib/text.c), for every text the library
 * makes: the text sink, the print fmt renderer, the -R listing and the
 * report line's columns.  Internal header: not installed, not the API.
 */
#ifndef TB_LIB_DIGITS_H
#define TB_LIB_DIGITS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* For the few helpers of the per-event paths whose call costs more than
 * their body (the compiler may decline to inline a plain static inline). */
#if defined(__GNUC__)
#define TB_ALWAYS_INLINE static inline __attribute__((always_inline))
#else
#define TB_ALWAYS_INLINE static inline
#endif

/* v's decimal digits written so that they end at end (20 at most):
 * returns how many. */
size_t tb_dec_digits(char *end, uint64_t v);

/* The low n decimal digits of v at p[0..n), leading zeros kept ("%0*u"). */
void tb_dec_fixed(char *p, uint32_t v, unsigned n);

/* "%5u.%06u" of sec (< 100000) and frac (< 1000000), the report line's
 * time: its 12 bytes as two words, bytes 0..7 in lo and 8..11 in hi, low
 * byte first, to be stored with tb_put_le64 / tb_put_le32 (no byte is
 * stored and read back: a read of bytes just written one or two at a time
 * waits for them). */
void tb_time12(uint32_t sec, uint32_t frac, uint64_t *lo, uint32_t *hi);

/* v's hex digits ending at end (16 at most): returns how many. */
size_t tb_hex_digits(char *end, uint64_t v, int upper);

/* How many decimal / hex digits v has (1 for 0). */
static inline unsigned tb_dec_len(uint64_t v)
{
	static const uint64_t pow10[20] = {
		1u, 10u, 100u, 1000u, 10000u, 100000u, 1000000u, 10000000u, 100000000u,
		1000000000u, 10000000000u, 100000000000u, 1000000000000u, 10000000000000u,
		100000000000000u, 1000000000000000u, 10000000000000000u,
		100000000000000000u, 1000000000000000000u, 10000000000000000000u
	};
	/* log10 from the bit length (1233/4096 ~ log10(2)), then one step */
	unsigned n;
	if (!v)
		return 1;
	n = ((64u - (unsigned)__builtin_clzll(v)) * 1233u) >> 12;
	return n + (v >= pow10[n]);
}

static inline unsigned tb_hex_len(uint64_t v)
{
	return v ? (64u - (unsigned)__builtin_clzll(v) + 3u) / 4u : 1u;
}

/* v at p, low byte first: one store. */
static inline void tb_put_le64(char *p, uint64_t v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap64(v);
#endif
	memcpy(p, &v, 8);
}

static inline void tb_put_le32(char *p, uint32_t v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap32(v);
#endif
	memcpy(p, &v, 4);
}

/* n bytes (n <= 16) from s to d, no overlap, without a library call:
 * two overlapping loads and stores, every access inside [s, s+n) and
 * [d, d+n). */
static inline void tb_copy16(char *d, const char *s, size_t n)
{
	if (n >= 8) {
		uint64_t a, b;
		memcpy(&a, s, 8);
		memcpy(&b, s + n - 8, 8);
		memcpy(d, &a, 8);
		memcpy(d + n - 8, &b, 8);
	} else if (n >= 4) {
		uint32_t a, b;
		memcpy(&a, s, 4);
		memcpy(&b, s + n - 4, 4);
		memcpy(d, &a, 4);
		memcpy(d + n - 4, &b, 4);
	} else if (n) {
		d[0] = s[0];
		d[n / 2] = s[n / 2];
		d[n - 1] = s[n - 1];
	}
}

/* n bytes from s to d (no overlap): the short copies text is made of
 * without a library call (up to 32: event names such as
 * "sched_stat_runtime" pass 16). */
static inline void tb_copy_short(char *d, const char *s, size_t n)
{
	if (n > 32) {
		memcpy(d, s, n);
	} else if (n > 16) {
		tb_copy16(d, s, 16);
		tb_copy16(d + n - 16, s + n - 16, 16);
	} else {
		tb_copy16(d, s, n);
	}
}


/*
 * Digits without a loop, for the per-record paths that print numbers by
 * the million (pmclog callchains): each writes whole 8- or 16-byte groups
 * and keeps only its digits, so the room must hold what it writes.
 */

/* The 16 hex digits of t, most significant first, to p[0..16). */
static inline void tb_hex16(char *p, uint64_t t)
{
#if defined(__SSE2__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	/* bytes most significant first, each split into its two nibbles,
	 * each nibble made a digit, all at once */
	const __m128i low4 = _mm_set1_epi8(0x0f);
	__m128i x = _mm_cvtsi64_si128((long long)__builtin_bswap64(t));
	__m128i nib = _mm_unpacklo_epi8(_mm_and_si128(_mm_srli_epi16(x, 4), low4),
					_mm_and_si128(x, low4));
	__m128i letter = _mm_and_si128(_mm_cmpgt_epi8(nib, _mm_set1_epi8(9)),
				       _mm_set1_epi8('a' - '0' - 10));
	_mm_storeu_si128((__m128i *)(void *)p, _mm_add_epi8(nib, _mm_add_epi8(letter, _mm_set1_epi8('0'))));
#else
	int i;
	for (i = 0; i < 2; i++) {
		/* 8 nibbles spread into 8 bytes, most significant first, each
		 * made a digit ('a' is 39 past '9' + 1) */
		uint64_t v = (uint32_t)(t >> (32 - 32 * i));
		v = ((v & 0x0000ffffu) << 32) | (v >> 16);
		v = ((v & 0x000000ff000000ffull) << 16) | ((v >> 8) & 0x000000ff000000ffull);
		v = ((v & 0x000f000f000f000full) << 8) | ((v >> 4) & 0x000f000f000f000full);
		tb_put_le64(p + 8 * i, v + 0x3030303030303030ull +
					       (((v + 0x0606060606060606ull) >> 4) &
						0x0101010101010101ull) * 39u);
	}
#endif
}

/* v in lower-case hex without leading zeros ("0" for 0) at p: writes 16
 * bytes, returns how many are digits.  v is shifted so that its first
 * digit comes first. */
TB_ALWAYS_INLINE size_t tb_hex_fast(char *p, uint64_t v)
{
	unsigned z = (unsigned)__builtin_clzll(v | 1) / 4; /* leading zero digits */
	tb_hex16(p, v << (4 * z));
	return 16 - z;
}

/* The 8 decimal digits of x < 10^8 (leading zeros kept) as a word, the
 * first digit in the low byte: two 4-digit lanes, each split into two
 * 2-digit lanes, each into two digits, by multiplying by reciprocals
 * (n / 100 == n * 10486 >> 20 for n < 10^4, n / 10 == n * 103 >> 10 for
 * n < 100), every lane at once. */
static inline uint64_t tb_dec8(uint32_t x)
{
	uint64_t v = (uint64_t)(x / 10000u) | (uint64_t)(x % 10000u) << 32;
	uint64_t hund = (v * 10486u >> 20) & 0x0000007f0000007full;
	uint64_t pairs = (v - 100u * hund) << 16 | hund;
	uint64_t tens = (pairs * 103u >> 10) & 0x000f000f000f000full;
	return ((pairs - 10u * tens) << 8 | tens) + 0x3030303030303030ull;
}

/* The n digits of v (n == tb_dec_len(v)) at p[0..n): for v < 10^8 as
 * one 8-byte store (the room must hold 8; bytes past n are scratch). */
static inline void tb_dec_n(char *p, uint64_t v, unsigned n)
{
	if (v < 100000000u)
		tb_put_le64(p, tb_dec8((uint32_t)v) >> (64u - 8u * n));
	else
		(void)tb_dec_digits(p + n, v);
}

/* " [ccc] ": a report line's CPU column (cpu < 1000), 7 bytes at p;
 * returns their end. */
static inline char *tb_put_cpu_col(char *p, uint32_t cpu)
{
	p[0] = ' ';
	p[1] = '[';
	p[2] = (char)('0' + cpu / 100u);
	p[3] = (char)('0' + cpu / 10u % 10u);
	p[4] = (char)('0' + cpu % 10u);
	p[5] = ']';
	p[6] = ' ';
	return p + 7;
}

/* The 8 digits of w (tb_dec8) stored without their leading zeros (the
 * last always counts: 0 is "0"): writes 8 bytes, returns the count. */
static inline size_t tb_lead8(char *p, uint64_t w)
{
	unsigned sh = (unsigned)__builtin_ctzll((w ^ 0x3030303030303030ull) | 1ull << 56) & 56u;
	tb_put_le64(p, w >> sh);
	return 8u - sh / 8u;
}

/* The 16 digits of hi * 10^8 + lo (hi, lo < 10^8) to p[0..16). */
static inline void tb_dec16(char *p, uint32_t hi, uint32_t lo)
{
#if defined(__SSE2__)
	/* the halves in the 64-bit lanes, each split into 4-digit quarters
	 * (x / 10^4 == x * 0xd1b71759 >> 45 for x < 10^8), the four in
	 * 16-bit lanes, then as tb_dec8 (n / 100 == mulhi(n, 5243) >> 3 for
	 * n < 10^4, n / 10 == mulhi(n, 6554) for n < 100), all at once */
	__m128i x = _mm_set_epi64x((long long)lo, (long long)hi);
	__m128i q = _mm_srli_epi64(_mm_mul_epu32(x, _mm_set1_epi32((int)0xd1b71759u)), 45);
	__m128i r = _mm_sub_epi32(x, _mm_mul_epu32(q, _mm_set1_epi32(10000)));
	__m128i n4 = _mm_shuffle_epi32(_mm_or_si128(q, _mm_slli_epi64(r, 16)), _MM_SHUFFLE(3, 1, 2, 0));
	__m128i h = _mm_srli_epi16(_mm_mulhi_epu16(n4, _mm_set1_epi16(5243)), 3);
	__m128i l = _mm_sub_epi16(n4, _mm_mullo_epi16(h, _mm_set1_epi16(100)));
	__m128i n2 = _mm_unpacklo_epi16(h, l);
	__m128i tens = _mm_mulhi_epu16(n2, _mm_set1_epi16(6554));
	__m128i ones = _mm_sub_epi16(n2, _mm_mullo_epi16(tens, _mm_set1_epi16(10)));
	_mm_storeu_si128((__m128i *)(void *)p,
			 _mm_add_epi8(_mm_or_si128(tens, _mm_slli_epi16(ones, 8)), _mm_set1_epi8('0')));
#else
	tb_put_le64(p, tb_dec8(hi));
	tb_put_le64(p + 8, tb_dec8(lo));
#endif
}

/* v in decimal, as %llu, at p: writes 24 bytes at most, returns how many
 * are digits. */
TB_ALWAYS_INLINE size_t tb_dec_fast(char *p, uint64_t v)
{
	size_t n;
	if (v < 1000u) {
		/* priorities, CPUs, small pids: the hundreds and tens by
		 * reciprocals (n / 100 == n * 41 >> 12 for n < 1000, n / 10 ==
		 * n * 103 >> 10 for n < 100), the three digits as one word with
		 * the leading zeros shifted out, half of tb_dec8's work */
		uint32_t x = (uint32_t)v, h = x * 41u >> 12, r = x - 100u * h, t = r * 103u >> 10;
		uint32_t w = (h | t << 8 | (r - 10u * t) << 16) + 0x303030u;
		n = 1u + (x >= 10u) + (x >= 100u);
		tb_put_le32(p, w >> (8u * (3u - (unsigned)n)));
		return n;
	}
	if (v < 100000000u)
		return tb_lead8(p, tb_dec8((uint32_t)v));
	if (v < 10000000000000000ull) {
		n = tb_lead8(p, tb_dec8((uint32_t)(v / 100000000u)));
		tb_put_le64(p + n, tb_dec8((uint32_t)(v % 100000000u)));
		return n + 8;
	}
	if (v >= 18440000000000000000ull) {
		/* 20 digits from 1844...: every amd64 kernel address */
		memcpy(p, "1844", 4);
		v -= 18440000000000000000ull;
		n = 4;
	} else {
		/* the lead (1..1843), then 16 digits */
		n = tb_dec_digits(p + tb_dec_len(v / 10000000000000000ull),
				  v / 10000000000000000ull);
		v %= 10000000000000000ull;
	}
	tb_dec16(p + n, (uint32_t)(v / 100000000u), (uint32_t)(v % 100000000u));
	return n + 16;
}

#endif /* TB_LIB_DIGITS_H */
