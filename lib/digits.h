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
 * without a library call. */
static inline void tb_copy_short(char *d, const char *s, size_t n)
{
	if (n > 16)
		memcpy(d, s, n);
	else
		tb_copy16(d, s, n);
}

#endif /* TB_LIB_DIGITS_H */
