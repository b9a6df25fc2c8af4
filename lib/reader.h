/*
 * The one bounds-checked reader every decoder uses.
 *
 * A tb_reader is a cursor over (pointer, length).  Every read checks
 * `n <= len - pos` (never `pos + n <= len`, which can wrap) before it
 * touches a byte, and loads multi-byte values byte by byte in the
 * input's byte order, so unaligned or hostile input is never undefined
 * behaviour.  A failed read leaves the cursor where it was.
 *
 * Internal header: not installed, not part of the API.
 */
#ifndef TB_LIB_READER_H
#define TB_LIB_READER_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "digits.h"

typedef struct tb_reader {
	const uint8_t *data;
	size_t len;
	size_t pos;
	int big_endian;
} tb_reader;

static inline void tb_rd_init(tb_reader *r, const void *data, size_t len,
			      int big_endian)
{
	r->data = (const uint8_t *)data;
	r->len = data ? len : 0;
	r->pos = 0;
	r->big_endian = big_endian;
}

static inline size_t tb_rd_left(const tb_reader *r)
{
	return r->len - r->pos;
}

/* Are n more bytes present at the cursor? */
static inline int tb_rd_has(const tb_reader *r, size_t n)
{
	return n <= r->len - r->pos;
}

/* Are n bytes present at absolute offset off? */
static inline int tb_rd_has_at(const tb_reader *r, size_t off, size_t n)
{
	return off <= r->len && n <= r->len - off;
}

/* ---- raw loads; only ever called on a range already checked ---- */

static inline uint16_t tb_load16(const uint8_t *p, int be)
{
	return be ? (uint16_t)((unsigned)p[0] << 8 | p[1])
		  : (uint16_t)((unsigned)p[1] << 8 | p[0]);
}

static inline uint32_t tb_load32(const uint8_t *p, int be)
{
	if (be)
		return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
		       (uint32_t)p[2] << 8 | (uint32_t)p[3];
	return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[1] << 8 | (uint32_t)p[0];
}

static inline uint64_t tb_load64(const uint8_t *p, int be)
{
	uint64_t a = tb_load32(p, be), b = tb_load32(p + 4, be);
	return be ? (a << 32 | b) : (b << 32 | a);
}

/* Load an unsigned value of 1, 2, 4 or 8 bytes; other sizes give 0. */
TB_ALWAYS_INLINE uint64_t tb_load_n(const uint8_t *p, size_t n, int be)
{
	switch (n) {
	case 1: return p[0];
	case 2: return tb_load16(p, be);
	case 4: return tb_load32(p, be);
	case 8: return tb_load64(p, be);
	default: return 0;
	}
}

/* A size-byte value (size 1..8, the bits above it 0) sign-extended when
 * is_signed, branch-free: with m the sign bit, (v ^ m) - m.  (The mask
 * keeps the shift defined for any size a caller-built format might hold.) */
static inline uint64_t tb_extend(uint64_t v, uint32_t size, int is_signed)
{
	uint64_t m = (uint64_t)(is_signed != 0) << ((8 * size - 1) & 63u);
	return (v ^ m) - m;
}

/* ---- checked random access at an absolute offset ---- */

static inline int tb_rd_ptr_at(const tb_reader *r, size_t off, size_t n,
			       const uint8_t **out)
{
	if (!tb_rd_has_at(r, off, n))
		return 0;
	/* An empty reader may hold NULL: NULL + 0 is still undefined in C. */
	*out = r->data ? r->data + off : r->data;
	return 1;
}

static inline int tb_rd_u8_at(const tb_reader *r, size_t off, uint8_t *out)
{
	if (!tb_rd_has_at(r, off, 1))
		return 0;
	*out = r->data[off];
	return 1;
}

static inline int tb_rd_u16_at(const tb_reader *r, size_t off, uint16_t *out)
{
	if (!tb_rd_has_at(r, off, 2))
		return 0;
	*out = tb_load16(r->data + off, r->big_endian);
	return 1;
}

static inline int tb_rd_u32_at(const tb_reader *r, size_t off, uint32_t *out)
{
	if (!tb_rd_has_at(r, off, 4))
		return 0;
	*out = tb_load32(r->data + off, r->big_endian);
	return 1;
}

static inline int tb_rd_u64_at(const tb_reader *r, size_t off, uint64_t *out)
{
	if (!tb_rd_has_at(r, off, 8))
		return 0;
	*out = tb_load64(r->data + off, r->big_endian);
	return 1;
}

/* n must be 1, 2, 4 or 8; any other size fails. */
static inline int tb_rd_uN_at(const tb_reader *r, size_t off, size_t n,
			      uint64_t *out)
{
	if ((n != 1 && n != 2 && n != 4 && n != 8) || !tb_rd_has_at(r, off, n))
		return 0;
	*out = tb_load_n(r->data + off, n, r->big_endian);
	return 1;
}

/* A reader over [off, off+n) of r, with the same byte order. */
static inline int tb_rd_sub(const tb_reader *r, size_t off, size_t n,
			    tb_reader *sub)
{
	if (!tb_rd_has_at(r, off, n))
		return 0;
	tb_rd_init(sub, r->data ? r->data + off : r->data, n, r->big_endian);
	return 1;
}

/* ---- checked sequential reads at the cursor ---- */

static inline int tb_rd_seek(tb_reader *r, size_t pos)
{
	if (pos > r->len)
		return 0;
	r->pos = pos;
	return 1;
}

static inline int tb_rd_skip(tb_reader *r, size_t n)
{
	if (!tb_rd_has(r, n))
		return 0;
	r->pos += n;
	return 1;
}

static inline int tb_rd_bytes(tb_reader *r, size_t n, const uint8_t **out)
{
	if (!tb_rd_ptr_at(r, r->pos, n, out))
		return 0;
	r->pos += n;
	return 1;
}

static inline int tb_rd_u8(tb_reader *r, uint8_t *out)
{
	if (!tb_rd_u8_at(r, r->pos, out))
		return 0;
	r->pos += 1;
	return 1;
}

static inline int tb_rd_u16(tb_reader *r, uint16_t *out)
{
	if (!tb_rd_u16_at(r, r->pos, out))
		return 0;
	r->pos += 2;
	return 1;
}

static inline int tb_rd_u32(tb_reader *r, uint32_t *out)
{
	if (!tb_rd_u32_at(r, r->pos, out))
		return 0;
	r->pos += 4;
	return 1;
}

static inline int tb_rd_u64(tb_reader *r, uint64_t *out)
{
	if (!tb_rd_u64_at(r, r->pos, out))
		return 0;
	r->pos += 8;
	return 1;
}

static inline int tb_rd_uN(tb_reader *r, size_t n, uint64_t *out)
{
	if (!tb_rd_uN_at(r, r->pos, n, out))
		return 0;
	r->pos += n;
	return 1;
}

/*
 * A NUL-terminated string at the cursor: *out points at it, *n is its
 * length without the NUL, and the cursor moves past the NUL.  Fails
 * (cursor unchanged) when no NUL lies in the bytes left.
 */
static inline int tb_rd_cstr(tb_reader *r, const char **out, size_t *n)
{
	const uint8_t *start, *nul;
	if (r->pos >= r->len)
		return 0;
	start = r->data + r->pos;
	nul = (const uint8_t *)memchr(start, 0, r->len - r->pos);
	if (!nul)
		return 0;
	*out = (const char *)start;
	*n = (size_t)(nul - start);
	r->pos += *n + 1;
	return 1;
}

/*
 * The next text line at the cursor, without its '\n' (a final line
 * without one counts).  Returns 0 only at the end of the bytes.
 */
static inline int tb_rd_line(tb_reader *r, const char **out, size_t *n)
{
	const uint8_t *start, *nl;
	size_t left = r->len - r->pos;
	if (left == 0)
		return 0;
	start = r->data + r->pos;
	nl = (const uint8_t *)memchr(start, '\n', left);
	*out = (const char *)start;
	if (nl) {
		*n = (size_t)(nl - start);
		r->pos += *n + 1;
	} else {
		*n = left;
		r->pos = r->len;
	}
	return 1;
}

/* ---- small text helpers over (pointer, length) spans ---- */

/* Does span [s, s+n) equal the C string lit? */
static inline int tb_span_eq(const char *s, size_t n, const char *lit)
{
	size_t m = strlen(lit);
	return n == m && memcmp(s, lit, n) == 0;
}

/* Does span [s, s+n) start with the C string lit? */
static inline int tb_span_starts(const char *s, size_t n, const char *lit)
{
	size_t m = strlen(lit);
	return n >= m && memcmp(s, lit, m) == 0;
}

/*
 * Parse an unsigned number from the whole span: decimal, or hex with a
 * 0x prefix.  Fails on an empty span, a stray character or overflow.
 */
static inline int tb_parse_u64(const char *s, size_t n, uint64_t *out)
{
	uint64_t v = 0;
	size_t i = 0;
	unsigned base = 10;
	if (n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		i = 2;
	}
	if (i == n)
		return 0;
	for (; i < n; i++) {
		unsigned c = (unsigned char)s[i], d;
		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (base == 16 && c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (base == 16 && c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			return 0;
		if (v > (UINT64_MAX - d) / base)
			return 0;
		v = v * base + d;
	}
	*out = v;
	return 1;
}

/* 0x80 in each byte of w that lies in [lo, hi], for bytes under 0x80 and
 * 0x30 <= lo <= hi < 0x80 (no sum carries into the next byte). */
static inline uint64_t tb_bytes_in(uint64_t w, unsigned lo, unsigned hi)
{
	const uint64_t ones = 0x0101010101010101ull;
	return (w + ones * (0x80u - lo)) & ~(w + ones * (0x7fu - hi)) & ones * 0x80u;
}

/* Eight hex digits at p (p[0] the most significant), eight at a time:
 * 0 when one is not a hex digit.  A kallsyms line starts with sixteen,
 * and digit by digit they were 13% of a small capture's report. */
static inline int tb_hex8(const char *p, uint32_t *out)
{
	const uint64_t ones = 0x0101010101010101ull;
	uint64_t w = tb_load64((const uint8_t *)p, 0), d;
	if ((w & ones * 0x80u) ||
	    (tb_bytes_in(w, '0', '9') | tb_bytes_in(w, 'A', 'F') | tb_bytes_in(w, 'a', 'f')) !=
		    ones * 0x80u)
		return 0;
	/* '0'-'9' are 0x3N, 'A'-'F' 0x4N and 'a'-'f' 0x6N: the low nibble,
	 * plus 9 where bit 6 is set */
	d = (w & ones * 0x0fu) + 9u * ((w >> 6) & ones);
	/* byte i is digit i: pairs, then quads, then the eight, first digit highest */
	d = ((d << 4) | (d >> 8)) & 0x00ff00ff00ff00ffull;
	d = ((d << 8) | (d >> 16)) & 0x0000ffff0000ffffull;
	*out = (uint32_t)((d << 16) | (d >> 32));
	return 1;
}

/* Parse a hex number without prefix from the whole span. */
static inline int tb_parse_hex64(const char *s, size_t n, uint64_t *out)
{
	uint64_t v = 0;
	size_t i;
	if (n == 16) {
		uint32_t hi, lo;
		if (!tb_hex8(s, &hi) || !tb_hex8(s + 8, &lo))
			return 0;
		*out = (uint64_t)hi << 32 | lo;
		return 1;
	}
	if (n == 0 || n > 16)
		return 0;
	for (i = 0; i < n; i++) {
		unsigned c = (unsigned char)s[i], d;
		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			return 0;
		v = v << 4 | d;
	}
	*out = v;
	return 1;
}

#endif /* TB_LIB_READER_H */
