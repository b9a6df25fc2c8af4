/*
 * tracebound pmclog [--json] [--addr-size 4|8] [--stop-at-closelog] FILE|-
 *
 * Prints a FreeBSD hwpmc log one record per line, named as `pmcstat -R`
 * names them, or as JSON lines.  The input is fed to the decoder as a
 * stream (a pipe works; nothing is loaded whole), which is the fd mode of
 * libpmc's pmclog_open(fd) kept out of the library: a regular file is
 * mapped and fed in 1 MiB pieces of the mapping (no copy), anything else
 * is read in 256 KiB pieces.  With --jobs N (a mapped file), the records
 * are formatted on N threads and written in order (pmclog_jobs below).
 */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "cli.h"
#include "opts.h"

#define READ_CHUNK (256u * 1024u)
#define MAP_PIECE (1024u * 1024u) /* a mapped file is fed in pieces of this */

/*
 * The text sink: records are formatted by hand (no printf: it was 80% of
 * the time) into one large buffer.  The one-thread loop's sink goes out
 * with one fwrite when it is nearly full and whenever the input runs dry
 * (so a pipe fed slowly still shows each record as it comes); a --jobs
 * batch's sink grows instead, and the main thread writes it in order.
 * Every primitive first asks for room for its longest text (SINK_ROOM
 * covers any fixed part of a line); strings, which may be long, ask byte
 * by byte.  A failed write (or growth) is kept: the loop stops and the
 * command exits 2.
 */
#define SINK_CAP (1024u * 1024u)
#define SINK_ROOM 256u
/* The most any primitive asks for at once (cc_slots: a block of 256
 * slots, 32 bytes each, and 64): every sink starts with at least this, so
 * one that was just written out, or failed to grow, still has the room. */
#define SINK_MAX_ASK (32u * 256u + 64u)

typedef struct sink {
	char *buf;
	size_t len, cap;
	int grow;   /* 1: make room by growing (a --jobs batch), else by writing */
	int failed; /* errno of the failed write, or -1 when errno said nothing */
} sink;

static void sink_flush(sink *s)
{
	if (s->len && !s->failed) {
		errno = 0;
		if (fwrite(s->buf, 1, s->len, stdout) != s->len || fflush(stdout) != 0)
			s->failed = errno ? errno : -1;
	}
	s->len = 0;
}

/* Room for n <= SINK_MAX_ASK more bytes behind s->len: written out, or
 * grown (a failed growth keeps the buffer and starts it again: the output
 * is lost, and said). */
static void sink_spill(sink *s, size_t n)
{
	size_t cap = s->cap * 2;
	char *b;
	if (!s->grow) {
		sink_flush(s);
		return;
	}
	while (cap - s->len < n)
		cap *= 2;
	b = realloc(s->buf, cap);
	if (!b) {
		s->failed = ENOMEM;
		s->len = 0;
		return;
	}
	s->buf = b;
	s->cap = cap;
}

/* A cursor with at least n bytes (n <= SINK_ROOM) of room behind it. */
static inline char *sink_room(sink *s, size_t n)
{
	if (s->cap - s->len < n)
		sink_spill(s, n);
	return s->buf + s->len;
}

static inline void sink_done(sink *s, char *p)
{
	s->len = (size_t)(p - s->buf);
}

/* The cursor p again, after making room when fewer than n bytes are left. */
static inline char *sink_more(sink *s, char *p, size_t n)
{
	if (s->cap - (size_t)(p - s->buf) >= n)
		return p;
	sink_done(s, p);
	sink_spill(s, n);
	return s->buf + s->len;
}

static inline char *put(char *p, const char *str, size_t n)
{
	memcpy(p, str, n);
	return p + n;
}

#define PUT_LIT(p, lit) put((p), (lit), sizeof(lit) - 1)

/* Store w with its least significant byte first (at p[0]). */
static inline void store_le64(char *p, uint64_t w)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(p, &w, 8);
#else
	for (int b = 0; b < 8; b++)
		p[b] = (char)(w >> (8 * b));
#endif
}

#if !(defined(__SSE2__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__)
/* The 8 hex digits of x as 8 bytes, the first digit in the low byte
 * (the portable path of put_hex). */
static inline uint64_t hex8(uint32_t x)
{
	uint64_t v = x;
	/* Spread the 8 nibbles into 8 bytes (nibble i into byte 7 - i, the
	 * most significant digit first), then make each a digit. */
	v = ((v & 0x0000ffffu) << 32) | (v >> 16);
	v = ((v & 0x000000ff000000ffull) << 16) | ((v >> 8) & 0x000000ff000000ffull);
	v = ((v & 0x000f000f000f000full) << 8) | ((v >> 4) & 0x000f000f000f000full);
	return v + 0x3030303030303030ull +
	       (((v + 0x0606060606060606ull) >> 4) & 0x0101010101010101ull) * 39u;
}
#endif

/* "0x" and v in lower-case hex without leading zeros ("0x0" for 0), as
 * printf's 0x%x; needs 18 bytes of room (it writes 18, keeps its own).
 * v is shifted so that its first digit comes first: no copy, no loop. */
static inline char *put_hex(char *p, uint64_t v)
{
	unsigned z = (unsigned)__builtin_clzll(v | 1) / 4; /* leading zero digits */
	uint64_t t = v << (4 * z);
	p[0] = '0';
	p[1] = 'x';
#if defined(__SSE2__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	{
		/* All 16 digits at once: bytes most significant first, each
		 * split into its two nibbles, each nibble made a digit. */
		const __m128i low4 = _mm_set1_epi8(0x0f);
		__m128i x = _mm_cvtsi64_si128((long long)__builtin_bswap64(t));
		__m128i nib = _mm_unpacklo_epi8(_mm_and_si128(_mm_srli_epi16(x, 4), low4),
						_mm_and_si128(x, low4));
		__m128i letter = _mm_and_si128(_mm_cmpgt_epi8(nib, _mm_set1_epi8(9)),
					       _mm_set1_epi8('a' - '0' - 10));
		_mm_storeu_si128((__m128i *)(void *)(p + 2),
				 _mm_add_epi8(nib, _mm_add_epi8(letter, _mm_set1_epi8('0'))));
	}
#else
	store_le64(p + 2, hex8((uint32_t)(t >> 32)));
	store_le64(p + 10, hex8((uint32_t)t));
#endif
	return p + 2 + (16 - z);
}

/* The 8 decimal digits of x < 10^8 (leading zeros kept) as 8 bytes, the
 * first digit in the low byte: split into two 4-digit lanes, each into
 * two 2-digit lanes, each into two digits, by multiplying by reciprocals
 * (n / 100 == n * 10486 >> 20 for n < 10^4, n / 10 == n * 103 >> 10 for
 * n < 100), every lane at once. */
static inline uint64_t dec8(uint32_t x)
{
	uint64_t v = (uint64_t)(x / 10000u) | (uint64_t)(x % 10000u) << 32;
	uint64_t hund = (v * 10486u >> 20) & 0x0000007f0000007full;
	uint64_t pairs = (v - 100u * hund) << 16 | hund;
	uint64_t tens = (pairs * 103u >> 10) & 0x000f000f000f000full;
	return ((pairs - 10u * tens) << 8 | tens) + 0x3030303030303030ull;
}

static const char digit_pairs[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";


/* The digits of x < 10^8 without leading zeros ("0" for 0): 8 bytes are
 * written, the count is returned.  The leading zeros are counted in the
 * digits themselves: the lowest byte that is not '0' (the last digit
 * always counts, so 0 prints as "0"). */
static inline unsigned dec_lead(char *p, uint32_t x)
{
	uint64_t w = dec8(x);
	unsigned sh = (unsigned)__builtin_ctzll((w ^ 0x3030303030303030ull) | 1ull << 56) & 56u;
	store_le64(p, w >> sh);
	return 8u - sh / 8u;
}

#if defined(__SSE2__)
/* The 16 digits of hi * 10^8 + lo (hi, lo < 10^8) as 16 bytes: the two
 * halves in the 64-bit lanes, each split into 4-digit quarters
 * (x / 10^4 == x * 0xd1b71759 >> 45 for x < 10^8), the four into 16-bit
 * lanes, then as dec8 does (n / 100 == mulhi(n, 5243) >> 3 for n < 10^4,
 * n / 10 == mulhi(n, 6554) for n < 100), every lane at once. */
static inline __m128i dig16(uint32_t hi, uint32_t lo)
{
	__m128i x = _mm_set_epi64x((long long)lo, (long long)hi);
	__m128i q = _mm_srli_epi64(_mm_mul_epu32(x, _mm_set1_epi32((int)0xd1b71759u)), 45);
	__m128i r = _mm_sub_epi32(x, _mm_mul_epu32(q, _mm_set1_epi32(10000)));
	__m128i quarters = _mm_or_si128(q, _mm_slli_epi64(r, 16));
	__m128i n4 = _mm_shuffle_epi32(quarters, _MM_SHUFFLE(3, 1, 2, 0));
	__m128i h = _mm_srli_epi16(_mm_mulhi_epu16(n4, _mm_set1_epi16(5243)), 3);
	__m128i l = _mm_sub_epi16(n4, _mm_mullo_epi16(h, _mm_set1_epi16(100)));
	__m128i n2 = _mm_unpacklo_epi16(h, l);
	__m128i tens = _mm_mulhi_epu16(n2, _mm_set1_epi16(6554));
	__m128i ones = _mm_sub_epi16(n2, _mm_mullo_epi16(tens, _mm_set1_epi16(10)));
	return _mm_add_epi8(_mm_or_si128(tens, _mm_slli_epi16(ones, 8)), _mm_set1_epi8('0'));
}
#endif

/* Exactly 16 digits of v < 10^16 into p[0..16). */
static inline void dec16(char *p, uint64_t v)
{
#if defined(__SSE2__)
	_mm_storeu_si128((__m128i *)(void *)p,
			 dig16((uint32_t)(v / 100000000u), (uint32_t)(v % 100000000u)));
#else
	store_le64(p, dec8((uint32_t)(v / 100000000u)));
	store_le64(p + 8, dec8((uint32_t)(v % 100000000u)));
#endif
}

/* 8 digits (first in the low byte) stored without their leading zeros
 * (the last digit always counts, so 0 prints as "0"): 8 bytes are
 * written, the count is returned. */
static inline unsigned lead8(char *p, uint64_t w)
{
	unsigned sh = (unsigned)__builtin_ctzll((w ^ 0x3030303030303030ull) | 1ull << 56) & 56u;
	store_le64(p, w >> sh);
	return 8u - sh / 8u;
}

/* The digits of x < 10^8 without leading zeros, as dec_lead, with the
 * vector unit when there is one (no scalar division). */
static inline unsigned dec_lead_fast(char *p, uint32_t x)
{
#if defined(__SSE2__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	__m128i d = dig16(0, x);
	return lead8(p, (uint64_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(d, d)));
#else
	return dec_lead(p, x);
#endif
}

/* v in decimal, as printf's %llu: at most 20 digits; needs 24 bytes of
 * room (it writes whole 8-byte groups, keeps its own). */
static inline __attribute__((always_inline)) char *put_u64(char *p, uint64_t v)
{
	if (v < 100000000u)
		return p + dec_lead_fast(p, (uint32_t)v);
	if (v < 10000000000000000ull) {
		p += dec_lead(p, (uint32_t)(v / 100000000u));
		store_le64(p, dec8((uint32_t)(v % 100000000u)));
		return p + 8;
	}
	if (v >= 18440000000000000000ull) {
		/* 20 digits from 1844...: every amd64 kernel address (from
		 * 0xffffffff80000000); the rest is under 10^16 */
		memcpy(p, "1844", 4);
		dec16(p + 4, v - 18440000000000000000ull);
		return p + 20;
	}
	{
		/* 17..20 digits: the lead is 1..1843, one or two digit pairs */
		uint32_t lead = (uint32_t)(v / 10000000000000000ull);
		if (lead >= 100u) {
			memcpy(p, digit_pairs + 2 * (lead / 100u), 2);
			p += lead >= 1000u ? 2 : 1;
			if (lead < 1000u)
				p[-1] = (char)('0' + lead / 100u);
			lead %= 100u;
			memcpy(p, digit_pairs + 2 * lead, 2);
			p += 2;
		} else if (lead >= 10u) {
			memcpy(p, digit_pairs + 2 * lead, 2);
			p += 2;
		} else {
			*p++ = (char)('0' + lead);
		}
	}
	dec16(p, v % 10000000000000000ull);
	return p + 16;
}

static inline char *put_i64(char *p, int64_t v)
{
	if (v < 0) {
		*p++ = '-';
		return put_u64(p, (uint64_t)0 - (uint64_t)v);
	}
	return put_u64(p, (uint64_t)v);
}

/* A record name padded to 9 columns, as printf's %-9s. */
static inline char *entry(char *p, const char *name)
{
	size_t n = strlen(name);
	memcpy(p, name, n);
	p += n;
	while (n++ < 9)
		*p++ = ' ';
	return p;
}

static const char hexdig[] = "0123456789abcdef";

/* A string from the log inside double quotes, unprintable bytes escaped
 * ("\x%02x"); returns the cursor, with SINK_ROOM of room again. */
static char *text_str(sink *s, char *p, tb_pmclog_str str)
{
	size_t i;
	*p++ = '"';
	for (i = 0; i < str.len; i++) {
		unsigned char c = (unsigned char)str.ptr[i];
		p = sink_more(s, p, 8);
		if (c == '"' || c == '\\') {
			*p++ = '\\';
			*p++ = (char)c;
		} else if (c < 0x20 || c > 0x7e) {
			p = PUT_LIT(p, "\\x");
			*p++ = hexdig[c >> 4];
			*p++ = hexdig[c & 15];
		} else {
			*p++ = (char)c;
		}
	}
	*p++ = '"';
	return sink_more(s, p, SINK_ROOM);
}

/* The same as a JSON string literal (what tb_cli_json_str writes). */
static char *json_str(sink *s, char *p, tb_pmclog_str str)
{
	size_t i;
	*p++ = '"';
	for (i = 0; i < str.len; i++) {
		unsigned char c = (unsigned char)str.ptr[i];
		p = sink_more(s, p, 8);
		switch (c) {
		case '"': p = PUT_LIT(p, "\\\""); break;
		case '\\': p = PUT_LIT(p, "\\\\"); break;
		case '\n': p = PUT_LIT(p, "\\n"); break;
		case '\r': p = PUT_LIT(p, "\\r"); break;
		case '\t': p = PUT_LIT(p, "\\t"); break;
		default:
			if (c < 0x20 || c >= 0x7f) {
				p = PUT_LIT(p, "\\u00");
				*p++ = hexdig[c >> 4];
				*p++ = hexdig[c & 15];
			} else {
				*p++ = (char)c;
			}
		}
	}
	*p++ = '"';
	return sink_more(s, p, SINK_ROOM);
}

static const char *part_name(uint8_t type)
{
	switch (type) {
	case TB_PMCLOG_PART_IBS_FETCH: return "ibs-fetch";
	case TB_PMCLOG_PART_IBS_OP: return "ibs-op";
	case TB_PMCLOG_PART_CALLCHAIN: return "kcallchain";
	default: return "part";
	}
}

#if defined(__SSE2__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* Every v >= KADDR_BASE (every amd64 kernel address, from
 * 0xffffffff80000000) is "1844674407" and 10 more digits, and those are
 * v - KADDR_BASE < 2^64 - KADDR_BASE = 3709551616: a 32-bit number. */
#define KADDR_BASE 18446744070000000000ull

/* ",1844674407", the two digits hi < 100 and the 8 digits low8 (first in
 * the low byte): one kernel address of a JSON list, 21 bytes. */
static inline char *put_kaddr(char *p, uint32_t hi, uint64_t low8)
{
	memcpy(p, ",1844674", 8);
	memcpy(p + 8, "407", 3);
	memcpy(p + 11, digit_pairs + 2 * hi, 2);
	store_le64(p + 13, low8);
	return p + 21;
}
#endif

/* How cc_slots writes each slot. */
enum { SLOT_LINES, SLOT_SAME_LINE, SLOT_JSON };

/* CALLCHAIN slots [first, end), read in blocks: as "\n...       0x%x"
 * lines, as " 0x%x" on the current line, or as JSON ",%llu" (no comma
 * before slot 0).  A slot past npc reads as 0, as tb_pmclog_cc_slot. */
static char *cc_slots(sink *s, char *p, const tb_pmclog_event *ev, uint32_t first,
		      uint32_t end, int how)
{
	uint64_t pcs[256];
	while (first < end) {
		uint32_t want = end - first < 256 ? end - first : 256, k = 0;
		uint32_t n = tb_pmclog_cc_copy(ev, first, pcs, want);
		for (; n < want; n++)
			pcs[n] = 0;
		/* room for the whole block at once: at most 32 bytes a slot
		 * (",%llu" writes 1 + 24, "\n...      0x%x" 10 + 1 + 18) */
		p = sink_more(s, p, 32u * n + 64u); /* <= SINK_MAX_ASK */
		if (how == SLOT_JSON) {
			if (first == 0 && n) /* no comma before slot 0 */
				p = put_u64(p, pcs[k++]);
#if defined(__SSE2__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
			/* user-space PCs (under 10^8) two at a time, one vector each pair */
			for (; k + 1 < n; k += 2) {
				if (pcs[k] < 100000000u && pcs[k + 1] < 100000000u) {
					__m128i d = dig16((uint32_t)pcs[k], (uint32_t)pcs[k + 1]);
					*p++ = ',';
					p += lead8(p, (uint64_t)_mm_cvtsi128_si64(d));
					*p++ = ',';
					p += lead8(p, (uint64_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(d, d)));
				} else if (pcs[k] >= KADDR_BASE && pcs[k + 1] >= KADDR_BASE) {
					uint32_t a = (uint32_t)(pcs[k] - KADDR_BASE);
					uint32_t b = (uint32_t)(pcs[k + 1] - KADDR_BASE);
					__m128i d = dig16(a % 100000000u, b % 100000000u);
					p = put_kaddr(p, a / 100000000u, (uint64_t)_mm_cvtsi128_si64(d));
					p = put_kaddr(p, b / 100000000u,
						      (uint64_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(d, d)));
				} else {
					*p++ = ',';
					p = put_u64(p, pcs[k]);
					*p++ = ',';
					p = put_u64(p, pcs[k + 1]);
				}
			}
#endif
			for (; k < n; k++) {
				*p++ = ',';
				p = put_u64(p, pcs[k]);
			}
		} else if (how == SLOT_LINES) {
			for (; k < n; k++) {
				p = PUT_LIT(p, "\n...       ");
				p = put_hex(p, pcs[k]);
			}
		} else {
			for (; k < n; k++) {
				*p++ = ' ';
				p = put_hex(p, pcs[k]);
			}
		}
		first += n;
	}
	return p;
}

static void print_text(sink *s, const tb_pmclog_event *ev)
{
	char *p = sink_room(s, SINK_ROOM);
	uint32_t k;
	switch (ev->type) {
	case TB_PMCLOG_CLOSELOG: p = entry(p, "closelog"); *p++ = ' '; break;
	case TB_PMCLOG_DROPNOTIFY: p = entry(p, "drop"); *p++ = ' '; break;
	case TB_PMCLOG_INITIALIZE:
		p = entry(p, "initlog");
		*p++ = ' ';
		p = put_hex(p, ev->u.i.version);
		*p++ = ' ';
		p = put_hex(p, ev->u.i.arch);
		if (!ev->legacy) { /* legacy INITIALIZE has no cpuid */
			*p++ = ' ';
			p = text_str(s, p, ev->u.i.cpuid);
		}
		break;
	case TB_PMCLOG_PMCALLOCATE:
		p = entry(p, "allocate");
		*p++ = ' ';
		p = put_hex(p, ev->u.a.pmcid);
		*p++ = ' ';
		p = put_hex(p, ev->u.a.event);
		*p++ = ' ';
		p = put_hex(p, ev->u.a.flags);
		break;
	case TB_PMCLOG_PMCALLOCATEDYN:
		p = entry(p, "allocatedyn");
		*p++ = ' ';
		p = put_hex(p, ev->u.ad.pmcid);
		*p++ = ' ';
		p = text_str(s, p, ev->u.ad.evname);
		*p++ = ' ';
		p = put_hex(p, ev->u.ad.flags);
		break;
	case TB_PMCLOG_PMCATTACH:
		p = entry(p, "attach");
		*p++ = ' ';
		p = put_hex(p, ev->u.t.pmcid);
		*p++ = ' ';
		p = put_i64(p, ev->u.t.pid);
		*p++ = ' ';
		p = text_str(s, p, ev->u.t.pathname);
		break;
	case TB_PMCLOG_PMCDETACH:
		p = entry(p, "detach");
		*p++ = ' ';
		p = put_hex(p, ev->u.d.pmcid);
		*p++ = ' ';
		p = put_i64(p, ev->u.d.pid);
		break;
	case TB_PMCLOG_PROCCSW:
		p = entry(p, "cswval");
		*p++ = ' ';
		p = put_hex(p, ev->u.c.pmcid);
		*p++ = ' ';
		p = put_i64(p, ev->u.c.pid);
		*p++ = ' ';
		p = put_u64(p, ev->u.c.value);
		break;
	case TB_PMCLOG_PROCEXEC:
		p = entry(p, "exec");
		*p++ = ' ';
		p = put_hex(p, ev->u.x.pmcid);
		*p++ = ' ';
		p = put_i64(p, ev->u.x.pid);
		*p++ = ' ';
		if (ev->u.x.has_dyn) {
			p = put_hex(p, ev->u.x.baseaddr);
			*p++ = ' ';
			p = put_hex(p, ev->u.x.dynaddr);
		} else {
			p = put_hex(p, ev->u.x.entryaddr);
		}
		*p++ = ' ';
		p = text_str(s, p, ev->u.x.pathname);
		break;
	case TB_PMCLOG_PROCEXIT:
		p = entry(p, "exitval");
		*p++ = ' ';
		p = put_hex(p, ev->u.e.pmcid);
		*p++ = ' ';
		p = put_i64(p, ev->u.e.pid);
		*p++ = ' ';
		p = put_u64(p, ev->u.e.value);
		break;
	case TB_PMCLOG_PROCFORK:
		p = entry(p, "fork");
		*p++ = ' ';
		p = put_i64(p, ev->u.f.oldpid);
		*p++ = ' ';
		p = put_i64(p, ev->u.f.newpid);
		break;
	case TB_PMCLOG_SYSEXIT:
		p = entry(p, "exit");
		*p++ = ' ';
		p = put_i64(p, ev->u.se.pid);
		break;
	case TB_PMCLOG_USERDATA:
		p = entry(p, "userdata");
		*p++ = ' ';
		p = put_hex(p, ev->u.u.userdata);
		break;
	case TB_PMCLOG_MAP_IN:
		p = entry(p, "map-in");
		*p++ = ' ';
		p = put_i64(p, ev->u.mi.pid);
		*p++ = ' ';
		p = put_hex(p, ev->u.mi.start);
		*p++ = ' ';
		p = text_str(s, p, ev->u.mi.pathname);
		break;
	case TB_PMCLOG_MAP_OUT:
		p = entry(p, "map-out");
		*p++ = ' ';
		p = put_i64(p, ev->u.mo.pid);
		*p++ = ' ';
		p = put_hex(p, ev->u.mo.start);
		*p++ = ' ';
		p = put_hex(p, ev->u.mo.end);
		break;
	case TB_PMCLOG_PCSAMPLE:
		p = entry(p, "sample");
		*p++ = ' ';
		p = put_hex(p, ev->u.s.pmcid);
		*p++ = ' ';
		p = put_i64(p, ev->u.s.pid);
		*p++ = ' ';
		p = put_hex(p, ev->u.s.pc);
		*p++ = ' ';
		*p++ = ev->u.s.usermode ? 'u' : 's';
		break;
	case TB_PMCLOG_THR_CREATE:
		p = entry(p, "thr-create");
		*p++ = ' ';
		p = put_i64(p, ev->u.tc.tid);
		*p++ = ' ';
		p = put_i64(p, ev->u.tc.pid);
		*p++ = ' ';
		p = put_hex(p, ev->u.tc.flags);
		*p++ = ' ';
		p = text_str(s, p, ev->u.tc.tdname);
		break;
	case TB_PMCLOG_THR_EXIT:
		p = entry(p, "thr-exit");
		*p++ = ' ';
		p = put_i64(p, ev->u.te.tid);
		break;
	case TB_PMCLOG_PROC_CREATE:
		p = entry(p, "create");
		*p++ = ' ';
		p = put_i64(p, ev->u.pc.pid);
		*p++ = ' ';
		p = put_hex(p, ev->u.pc.flags);
		*p++ = ' ';
		p = text_str(s, p, ev->u.pc.pcomm);
		break;
	case TB_PMCLOG_CALLCHAIN:
		p = entry(p, "callchain");
		*p++ = ' ';
		p = put_i64(p, ev->u.cc.pid);
		*p++ = ' ';
		p = put_hex(p, ev->u.cc.pmcid);
		*p++ = ' ';
		p = put_u64(p, ev->u.cc.cpuflags >> 16);
		*p++ = ' ';
		p = put_u64(p, (uint32_t)(ev->u.cc.npc - ev->u.cc.pc_first));
		*p++ = ' ';
		*p++ = ev->u.cc.cpuflags & TB_PMCLOG_CC_USERSPACE ? 'u' : 's';
		for (k = 0; k < ev->u.cc.nparts; k++) {
			const tb_pmclog_part *pt = &ev->u.cc.parts[k];
			if (pt->type == TB_PMCLOG_PART_CALLCHAIN)
				continue; /* its slots are printed as PCs */
			*p++ = '\n';
			p = entry(p, part_name(pt->type));
			p = cc_slots(s, p, ev, pt->first, pt->first + pt->nslots,
				     SLOT_SAME_LINE);
			p = sink_more(s, p, SINK_ROOM);
		}
		p = cc_slots(s, p, ev, ev->u.cc.pc_first, ev->u.cc.npc, SLOT_LINES);
		break;
	default:
		p = entry(p, "unknown");
		p = PUT_LIT(p, " type=");
		p = put_u64(p, ev->raw_type);
		p = PUT_LIT(p, " len=");
		p = put_u64(p, ev->len);
		break;
	}
	*p++ = '\n';
	sink_done(s, p);
}
/* JSON members: ,"key":value (no comma before the first of an object). */
static inline __attribute__((always_inline)) char *json_key(char *p, const char *key, int *first)
{
	size_t n = strlen(key);
	if (!*first)
		*p++ = ',';
	*first = 0;
	*p++ = '"';
	memcpy(p, key, n);
	p += n;
	*p++ = '"';
	*p++ = ':';
	return p;
}

static inline __attribute__((always_inline)) char *json_u(char *p, const char *key, uint64_t v, int *first)
{
	return put_u64(json_key(p, key, first), v);
}

static inline __attribute__((always_inline)) char *json_i(char *p, const char *key, int64_t v, int *first)
{
	return put_i64(json_key(p, key, first), v);
}

static inline __attribute__((always_inline)) char *json_s(sink *s, char *p, const char *key, tb_pmclog_str v,
			   int *first)
{
	return json_str(s, json_key(p, key, first), v);
}

/* Keys are short literals: every case below writes < SINK_ROOM bytes
 * between the points that ask for room again (strings and PC lists). */
static char *json_fields(sink *s, char *p, const tb_pmclog_event *ev)
{
	int f = 1;
	uint32_t i;
	switch (ev->type) {
	case TB_PMCLOG_INITIALIZE:
		p = json_u(p, "version", ev->u.i.version, &f);
		p = json_u(p, "arch", ev->u.i.arch, &f);
		if (!ev->legacy) {
			p = json_u(p, "tsc_freq", ev->u.i.tsc_freq, &f);
			p = PUT_LIT(p, ",\"ts\":{\"tv_sec\":");
			p = put_i64(p, ev->u.i.ts_sec);
			p = PUT_LIT(p, ",\"tv_nsec\":");
			p = put_i64(p, ev->u.i.ts_nsec);
			*p++ = '}';
			p = json_s(s, p, "cpuid", ev->u.i.cpuid, &f);
		}
		break;
	case TB_PMCLOG_PMCALLOCATE:
		p = json_u(p, "pmcid", ev->u.a.pmcid, &f);
		p = json_u(p, "event", ev->u.a.event, &f);
		p = json_u(p, "flags", ev->u.a.flags, &f);
		if (!ev->legacy)
			p = json_u(p, "rate", ev->u.a.rate, &f);
		break;
	case TB_PMCLOG_PMCALLOCATEDYN:
		p = json_u(p, "pmcid", ev->u.ad.pmcid, &f);
		p = json_u(p, "event", ev->u.ad.event, &f);
		p = json_u(p, "flags", ev->u.ad.flags, &f);
		if (ev->u.ad.name_at_40)
			p = json_u(p, "rate", ev->u.ad.rate, &f);
		p = json_s(s, p, "evname", ev->u.ad.evname, &f);
		break;
	case TB_PMCLOG_PMCATTACH:
		p = json_u(p, "pmcid", ev->u.t.pmcid, &f);
		p = json_i(p, "pid", ev->u.t.pid, &f);
		p = json_s(s, p, "pathname", ev->u.t.pathname, &f);
		break;
	case TB_PMCLOG_PMCDETACH:
		p = json_u(p, "pmcid", ev->u.d.pmcid, &f);
		p = json_i(p, "pid", ev->u.d.pid, &f);
		break;
	case TB_PMCLOG_PROCCSW:
		p = json_u(p, "pmcid", ev->u.c.pmcid, &f);
		p = json_i(p, "pid", ev->u.c.pid, &f);
		if (!ev->legacy)
			p = json_i(p, "tid", ev->u.c.tid, &f);
		p = json_u(p, "value", ev->u.c.value, &f);
		break;
	case TB_PMCLOG_PROCEXEC:
		p = json_i(p, "pid", ev->u.x.pid, &f);
		p = json_u(p, "pmcid", ev->u.x.pmcid, &f);
		if (ev->u.x.has_dyn) {
			p = json_u(p, "baseaddr", ev->u.x.baseaddr, &f);
			p = json_u(p, "dynaddr", ev->u.x.dynaddr, &f);
		} else {
			p = json_u(p, "entryaddr", ev->u.x.entryaddr, &f);
		}
		p = json_s(s, p, "pathname", ev->u.x.pathname, &f);
		break;
	case TB_PMCLOG_PROCEXIT:
		p = json_u(p, "pmcid", ev->u.e.pmcid, &f);
		p = json_i(p, "pid", ev->u.e.pid, &f);
		p = json_u(p, "value", ev->u.e.value, &f);
		break;
	case TB_PMCLOG_PROCFORK:
		p = json_i(p, "oldpid", ev->u.f.oldpid, &f);
		p = json_i(p, "newpid", ev->u.f.newpid, &f);
		break;
	case TB_PMCLOG_SYSEXIT:
		p = json_i(p, "pid", ev->u.se.pid, &f);
		break;
	case TB_PMCLOG_USERDATA:
		p = json_u(p, "userdata", ev->u.u.userdata, &f);
		break;
	case TB_PMCLOG_MAP_IN:
		p = json_i(p, "pid", ev->u.mi.pid, &f);
		p = json_u(p, "start", ev->u.mi.start, &f);
		p = json_s(s, p, "pathname", ev->u.mi.pathname, &f);
		break;
	case TB_PMCLOG_MAP_OUT:
		p = json_i(p, "pid", ev->u.mo.pid, &f);
		p = json_u(p, "start", ev->u.mo.start, &f);
		p = json_u(p, "end", ev->u.mo.end, &f);
		break;
	case TB_PMCLOG_PCSAMPLE:
		p = json_i(p, "pid", ev->u.s.pid, &f);
		p = json_u(p, "pc", ev->u.s.pc, &f);
		p = json_u(p, "pmcid", ev->u.s.pmcid, &f);
		p = json_u(p, "usermode", ev->u.s.usermode, &f);
		break;
	case TB_PMCLOG_THR_CREATE:
		p = json_i(p, "tid", ev->u.tc.tid, &f);
		p = json_i(p, "pid", ev->u.tc.pid, &f);
		p = json_u(p, "flags", ev->u.tc.flags, &f);
		p = json_s(s, p, "tdname", ev->u.tc.tdname, &f);
		break;
	case TB_PMCLOG_THR_EXIT:
		p = json_i(p, "tid", ev->u.te.tid, &f);
		break;
	case TB_PMCLOG_PROC_CREATE:
		p = json_i(p, "pid", ev->u.pc.pid, &f);
		p = json_u(p, "flags", ev->u.pc.flags, &f);
		p = json_s(s, p, "pcomm", ev->u.pc.pcomm, &f);
		break;
	case TB_PMCLOG_CALLCHAIN:
		p = json_i(p, "pid", ev->u.cc.pid, &f);
		if (!ev->legacy)
			p = json_i(p, "tid", ev->u.cc.tid, &f);
		p = json_u(p, "pmcid", ev->u.cc.pmcid, &f);
		p = json_u(p, "cpuflags", ev->u.cc.cpuflags, &f);
		p = json_u(p, "npc", ev->u.cc.npc, &f);
		p = PUT_LIT(p, ",\"pc\":[");
		p = cc_slots(s, p, ev, 0, ev->u.cc.npc, SLOT_JSON);
		*p++ = ']';
		if (ev->u.cc.cpuflags & TB_PMCLOG_CC_MULTIPART) {
			p = sink_more(s, p, SINK_ROOM);
			p = json_u(p, "pc_first", ev->u.cc.pc_first, &f);
			p = PUT_LIT(p, ",\"parts\":[");
			for (i = 0; i < ev->u.cc.nparts; i++) {
				if (i)
					*p++ = ',';
				p = PUT_LIT(p, "{\"type\":");
				p = put_u64(p, ev->u.cc.parts[i].type);
				p = PUT_LIT(p, ",\"first\":");
				p = put_u64(p, ev->u.cc.parts[i].first);
				p = PUT_LIT(p, ",\"nslots\":");
				p = put_u64(p, ev->u.cc.parts[i].nslots);
				*p++ = '}';
				p = sink_more(s, p, SINK_ROOM);
			}
			*p++ = ']';
		}
		break;
	case TB_PMCLOG_UNKNOWN:
		p = json_u(p, "raw_type", ev->raw_type, &f);
		p = json_u(p, "len", ev->len, &f);
		break;
	default: /* closelog, dropnotify: no fields */
		break;
	}
	return p;
}

static void print_json(sink *s, const tb_pmclog_event *ev)
{
	const char *type = tb_pmclog_type_name(ev->type);
	char *p = sink_room(s, SINK_ROOM);
	p = PUT_LIT(p, "{\"offset\":");
	p = put_u64(p, ev->offset);
	p = PUT_LIT(p, ",\"type\":\"");
	p = put(p, type, strlen(type)); /* a short static name */
	p = PUT_LIT(p, "\",");
	if (ev->legacy) {
		p = PUT_LIT(p, "\"ts\":{\"tv_sec\":");
		p = put_u64(p, ev->ts_sec);
		p = PUT_LIT(p, ",\"tv_nsec\":");
		p = put_u64(p, ev->ts_nsec);
		*p++ = '}';
	} else {
		p = PUT_LIT(p, "\"tsc\":");
		p = put_u64(p, ev->tsc);
	}
	p = PUT_LIT(p, ",\"fields\":{");
	p = json_fields(s, p, ev);
	p = sink_more(s, p, 4);
	p = PUT_LIT(p, "}}\n");
	sink_done(s, p);
}


static void print_record(sink *s, const tb_pmclog_event *ev, int json)
{
	if (json)
		print_json(s, ev);
	else
		print_text(s, ev);
}

/*
 * The one-thread loop: decode p, fed from the mapping in MAP_PIECE pieces
 * or read from fd, and print each record into out, which goes out
 * whenever the input runs dry.  Returns the status that ended it: TB_END
 * or an error (in *err), TB_NEED_MORE when a read failed (said here), or
 * TB_OK when a write failed (in out->failed).
 */
static tb_status pmclog_loop(tb_pmclog *p, int json, int fd, const char *name,
			     const uint8_t *map, size_t map_len, uint8_t *buf, tb_error *err,
			     uint64_t *nrecords, sink *out)
{
	tb_pmclog_event ev;
	size_t map_pos = 0;
	while (!out->failed) {
		tb_status st = tb_pmclog_next(p, &ev, err);
		if (st == TB_OK) {
			++*nrecords;
			print_record(out, &ev, json);
			continue;
		}
		/* Whatever comes next may wait or end: what is decoded goes out. */
		sink_flush(out);
		if (out->failed)
			break;
		if (st == TB_NEED_MORE && map) {
			size_t k = map_len - map_pos < MAP_PIECE ? map_len - map_pos : MAP_PIECE;
			if (k == 0)
				tb_pmclog_close(p);
			else if (tb_pmclog_feed(p, map + map_pos, k) != TB_OK)
				abort(); /* next() said the last feed was used up */
			map_pos += k;
			continue;
		}
		if (st == TB_NEED_MORE) {
			ssize_t n = read(fd, buf, READ_CHUNK);
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0) {
				fprintf(stderr, "tracebound: %s: %s\n", name, strerror(errno));
				return TB_NEED_MORE;
			}
			if (n == 0)
				tb_pmclog_close(p);
			else if (tb_pmclog_feed(p, buf, (size_t)n) != TB_OK)
				abort(); /* next() said the last feed was used up */
			continue;
		}
		return st;
	}
	return TB_OK;
}

/*
 * --jobs N, for a mapped log: the main thread decodes (the mapping is fed
 * whole, so every event points into it, and it outlives the run) into
 * batches of events; N - 1 workers, and the main thread whenever it would
 * wait, format the oldest batch not taken into the batch's own growing
 * sink; the main thread writes the batches in order.  The bytes are the
 * one-thread loop's; memory is PJ_SLOTS batches, each bounded by its
 * PJ_BYTES of records.
 */
#define PJ_EVENTS 1024u         /* events in a batch at most */
#define PJ_BYTES (256u * 1024u) /* a batch ends after this much input */
#define PJ_SLOTS 8u             /* batches between decoding and writing */

enum { PJ_FREE, PJ_FILLED, PJ_BUSY, PJ_DONE };

typedef struct pj_batch {
	tb_pmclog_event ev[PJ_EVENTS];
	uint32_t n;
	int state; /* PJ_*, under mu */
	sink out;  /* grows; written by the main thread */
} pj_batch;

typedef struct pj_shared {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pj_batch *b;          /* PJ_SLOTS; batch k sits in b[k % PJ_SLOTS] */
	uint64_t filled;      /* batches handed over */
	uint64_t written;     /* batches written */
	int json;
	int stop;             /* 1: no more batches; 2: give up (write error) */
} pj_shared;

static void pj_format(const pj_shared *sh, pj_batch *b)
{
	uint32_t i;
	for (i = 0; i < b->n && !b->out.failed; i++)
		print_record(&b->out, &b->ev[i], sh->json);
}

/* The oldest batch no thread has taken yet, or NULL (mu held). */
static pj_batch *pj_oldest_filled(pj_shared *sh)
{
	uint64_t k;
	for (k = sh->written; k < sh->filled; k++)
		if (sh->b[k % PJ_SLOTS].state == PJ_FILLED)
			return &sh->b[k % PJ_SLOTS];
	return NULL;
}

/* Take the oldest batch and format it (mu held; released meanwhile). */
static int pj_take(pj_shared *sh)
{
	pj_batch *b = pj_oldest_filled(sh);
	if (!b)
		return 0;
	b->state = PJ_BUSY;
	pthread_mutex_unlock(&sh->mu);
	pj_format(sh, b);
	pthread_mutex_lock(&sh->mu);
	b->state = PJ_DONE;
	pthread_cond_broadcast(&sh->cv);
	return 1;
}

static void *pj_worker(void *arg)
{
	pj_shared *sh = arg;
	pthread_mutex_lock(&sh->mu);
	while (sh->stop != 2) {
		if (!pj_take(sh)) {
			if (sh->stop)
				break;
			pthread_cond_wait(&sh->cv, &sh->mu);
		}
	}
	pthread_mutex_unlock(&sh->mu);
	return NULL;
}

/* Write the next batch if it is formatted (mu held; released for the
 * write).  1: one was written; a failure is kept in *failed. */
static int pj_write_next(pj_shared *sh, sink *failed)
{
	pj_batch *b = &sh->b[sh->written % PJ_SLOTS];
	if (sh->written == sh->filled || b->state != PJ_DONE)
		return 0;
	pthread_mutex_unlock(&sh->mu);
	if (b->out.failed) { /* its growth failed: the batch is lost */
		failed->failed = b->out.failed;
		b->out.failed = 0;
	} else {
		sink_flush(&b->out);
		if (b->out.failed)
			failed->failed = b->out.failed;
	}
	pthread_mutex_lock(&sh->mu);
	b->state = PJ_FREE;
	sh->written++;
	return 1;
}

/* One step towards batch `written` moving on (mu held): write it, or
 * format the oldest batch, or wait for another thread. */
static void pj_step(pj_shared *sh, sink *out)
{
	if (!pj_write_next(sh, out) && !pj_take(sh))
		pthread_cond_wait(&sh->cv, &sh->mu);
}

/*
 * Decode the whole log in p (opened on the mapping) as the one-thread
 * loop does, on `jobs` threads.  Returns the status that ended the
 * decoding (TB_END or an error, in *err), the records in *nrecords; a
 * write error or a lack of memory in out->failed.
 */
static tb_status pmclog_jobs(tb_pmclog *p, int json, int jobs, tb_error *err,
			     uint64_t *nrecords, sink *out)
{
	pj_shared sh;
	pthread_t th[TB_MAX_JOBS];
	int nth = 0, k;
	uint64_t seq = 0;
	tb_status st = TB_OK;
	memset(&sh, 0, sizeof(sh));
	sh.json = json;
	sh.b = calloc(PJ_SLOTS, sizeof(*sh.b));
	if (!sh.b) {
		out->failed = ENOMEM;
		return TB_END;
	}
	for (k = 0; k < (int)PJ_SLOTS; k++) {
		sh.b[k].out.grow = 1;
		sh.b[k].out.cap = SINK_MAX_ASK;
		sh.b[k].out.buf = malloc(SINK_MAX_ASK);
		if (!sh.b[k].out.buf)
			out->failed = ENOMEM;
	}
	pthread_mutex_init(&sh.mu, NULL);
	pthread_cond_init(&sh.cv, NULL);
	while (!out->failed && nth < jobs - 1 && pthread_create(&th[nth], NULL, pj_worker, &sh) == 0)
		nth++;
	pthread_mutex_lock(&sh.mu);
	while (st == TB_OK && !out->failed) {
		pj_batch *b = &sh.b[seq % PJ_SLOTS];
		/* b is free once batch seq - PJ_SLOTS is written: until then,
		 * write, or format, or wait */
		while (sh.written + PJ_SLOTS <= seq && !out->failed)
			pj_step(&sh, out);
		if (out->failed)
			break;
		pthread_mutex_unlock(&sh.mu);
		b->n = 0;
		while (b->n < PJ_EVENTS) {
			const tb_pmclog_event *ev = &b->ev[b->n];
			st = tb_pmclog_next(p, &b->ev[b->n], err);
			if (st != TB_OK)
				break;
			b->n++;
			if (ev->offset + ev->len - b->ev[0].offset >= PJ_BYTES)
				break;
		}
		*nrecords += b->n;
		pthread_mutex_lock(&sh.mu);
		if (b->n) {
			b->state = PJ_FILLED;
			sh.filled = ++seq;
			pthread_cond_broadcast(&sh.cv);
		}
		while (pj_write_next(&sh, out))
			;
	}
	/* the rest: formatted by whoever is free, written in order */
	sh.stop = out->failed ? 2 : 1;
	pthread_cond_broadcast(&sh.cv);
	while (!out->failed && sh.written < sh.filled)
		pj_step(&sh, out);
	sh.stop = 2;
	pthread_cond_broadcast(&sh.cv);
	pthread_mutex_unlock(&sh.mu);
	for (k = 0; k < nth; k++)
		pthread_join(th[k], NULL);
	for (k = 0; k < (int)PJ_SLOTS; k++)
		free(sh.b[k].out.buf);
	free(sh.b);
	pthread_cond_destroy(&sh.cv);
	pthread_mutex_destroy(&sh.mu);
	return st;
}

static const tb_opt pmclog_options[] = {
	{ 1, "--json", NULL, NULL, "one JSON object per record" },
	{ 2, "--stop-at-closelog", NULL, NULL, "stop at the first CLOSELOG record" },
	{ 3, "--addr-size", NULL, "4|8", "address width (default: guessed from INITIALIZE)" },
	{ 4, "--jobs", "-j", "N", "format on N threads, output unchanged (default: the machine's cores; 1: one thread; a file, not a pipe)" },
	{ 0, NULL, NULL, NULL, NULL },
};

int tb_cmd_pmclog(int argc, char **argv)
{
	tb_pmclog_options opt;
	tb_pmclog *p;
	tb_error err;
	tb_status st;
	sink out;
	const char *path = NULL, *name;
	uint8_t *buf;
	const uint8_t *map = NULL;
	size_t map_len = 0;
	struct stat stt;
	int json = 0, fd, i, rc = TB_EXIT_OK, jobs = tb_opts_default_jobs();
	uint64_t nrecords = 0;
	tb_opts po;
	const char *v;
	memset(&opt, 0, sizeof(opt));
	memset(&out, 0, sizeof(out));
	tb_opts_init(&po, "pmclog", "[OPTIONS] FILE|-", pmclog_options, argc, argv);
	while ((i = tb_opts_next(&po, &v)) != TB_OPTS_END) {
		switch (i) {
		case TB_OPTS_HELP: return TB_EXIT_OK;
		case TB_OPTS_ERROR: return TB_EXIT_USAGE;
		case 1: json = 1; break;
		case 2: opt.flags |= TB_PMCLOG_STOP_AT_CLOSELOG; break;
		case 3:
			if (strcmp(v, "4") && strcmp(v, "8"))
				return tb_opts_fail(&po, "option '--addr-size': '%s' is not 4 or 8", v);
			opt.addr_size = (unsigned)(v[0] - '0');
			break;
		case 4:
			if (tb_opts_jobs(&po, v, &jobs))
				return TB_EXIT_USAGE;
			break;
		default:
			if (path)
				return tb_opts_fail(&po, "a second input file '%s'", v);
			path = v;
			break;
		}
	}
	if (!path)
		return tb_opts_usage(&po);
	name = strcmp(path, "-") ? path : "(stdin)";
	fd = strcmp(path, "-") ? open(path, O_RDONLY) : 0;
	if (fd < 0) {
		fprintf(stderr, "tracebound: %s: %s\n", path, strerror(errno));
		return TB_EXIT_USAGE;
	}
	if (fstat(fd, &stt) == 0 && S_ISREG(stt.st_mode) && stt.st_size > 0) {
		void *m = mmap(NULL, (size_t)stt.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (m != MAP_FAILED) {
			map = m;
			map_len = (size_t)stt.st_size;
			(void)madvise(m, map_len, MADV_SEQUENTIAL);
		}
	}
	p = malloc(sizeof(*p));
	buf = malloc(READ_CHUNK);
	out.buf = malloc(SINK_CAP);
	out.cap = SINK_CAP;
	if (!p || !buf || !out.buf) {
		fprintf(stderr, "tracebound: out of memory\n");
		rc = TB_EXIT_USAGE;
		goto out;
	}
	if (jobs > 1 && map) {
		/* fed whole: every event points into the mapping */
		if (tb_pmclog_open_buffer(p, &opt, map, map_len) != TB_OK)
			abort(); /* a fresh decoder takes any buffer */
		st = pmclog_jobs(p, json, jobs, &err, &nrecords, &out);
	} else {
		tb_pmclog_init(p, &opt);
		st = pmclog_loop(p, json, fd, name, map, map_len, buf, &err, &nrecords, &out);
	}
	if (st == TB_END && nrecords == 0 && !out.failed) {
		fprintf(stderr, "tracebound: %s: empty input (no pmclog records)\n", name);
		rc = TB_EXIT_MALFORMED;
	} else if (st == TB_NEED_MORE) {
		rc = TB_EXIT_USAGE; /* a read failed, said by pmclog_loop */
	} else if (st != TB_END && !out.failed) {
		fprintf(stderr, "tracebound: %s: offset %" PRIu64 ": %s: %s\n",
			name, err.offset, tb_strerror(err.status), err.what);
		rc = TB_EXIT_MALFORMED;
	}
	sink_flush(&out);
	if (out.failed) {
		fprintf(stderr, "tracebound: write error: %s\n",
			out.failed > 0 ? strerror(out.failed) : "short write");
		rc = TB_EXIT_USAGE;
	}
out:
	if (map)
		munmap((void *)(uintptr_t)map, map_len);
	free(out.buf);
	free(buf);
	free(p);
	if (fd > 0)
		close(fd);
	return rc;
}
