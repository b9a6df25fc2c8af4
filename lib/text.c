/* The text sink's numbers and JSON strings (see include/tracebound/text.h). */
#include <string.h>

#include "tracebound/text.h"
#include "digits.h"
#include "internal.h"

/* digits[0..n) with an optional '-', padded to width (the general path:
 * put_dec writes the usual case straight into the buffer). */
static void put_digits(tb_text *t, const char *digits, size_t n, int neg, unsigned width,
		       unsigned flags)
{
	size_t len = n + (neg ? 1u : 0u);
	size_t pad = width > len ? width - len : 0;
	if (!(flags & (TB_TEXT_LEFT | TB_TEXT_ZERO)))
		tb_text_fill(t, ' ', pad);
	if (neg)
		tb_text_putc(t, '-');
	if ((flags & TB_TEXT_ZERO) && !(flags & TB_TEXT_LEFT))
		tb_text_fill(t, '0', pad);
	tb_text_put(t, digits, n);
	if (flags & TB_TEXT_LEFT)
		tb_text_fill(t, ' ', pad);
}

/* The library's one table of decimal digits: every number it prints in
 * decimal (the text sink, the renderer, the -R listing, report lines)
 * goes through the three routines below. */
static const char digit_pairs[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899";

size_t tb_dec_digits(char *end, uint64_t v)
{
	char *p = end;
	uint32_t w;
	while (v > UINT32_MAX) {
		unsigned r = (unsigned)(v % 100u);
		v /= 100u;
		p -= 2;
		memcpy(p, digit_pairs + 2 * (size_t)r, 2);
	}
	w = (uint32_t)v;
	while (w >= 100u) {
		unsigned r = w % 100u;
		w /= 100u;
		p -= 2;
		memcpy(p, digit_pairs + 2 * (size_t)r, 2);
	}
	if (w >= 10u) {
		p -= 2;
		memcpy(p, digit_pairs + 2 * (size_t)w, 2);
	} else {
		*--p = (char)('0' + w);
	}
	return (size_t)(end - p);
}

/* The last two digits of v as a word, the first digit in the low byte. */
static uint64_t pair_word(uint32_t v)
{
	unsigned char d[2];
	memcpy(d, digit_pairs + 2 * (size_t)(v % 100u), 2);
	return (uint64_t)d[0] | (uint64_t)d[1] << 8;
}

void tb_time12(uint32_t sec, uint32_t frac, uint64_t *lo, uint32_t *hi)
{
	uint32_t r = sec % 10000u;
	unsigned blanks = 5 - tb_dec_len(sec);
	uint64_t w = (uint64_t)('0' + sec / 10000u) | pair_word(r / 100u) << 8 |
		     pair_word(r % 100u) << 24 | (uint64_t)'.' << 40 |
		     pair_word(frac / 10000u) << 48;
	if (blanks) {
		uint64_t m = ((uint64_t)1 << (8 * blanks)) - 1;
		w = (w & ~m) | (UINT64_C(0x2020202020202020) & m);
	}
	*lo = w;
	*hi = (uint32_t)(pair_word(frac / 100u % 100u) | pair_word(frac % 100u) << 16);
}

void tb_dec_fixed(char *p, uint32_t v, unsigned n)
{
	while (n >= 2) {
		n -= 2;
		memcpy(p + n, digit_pairs + 2 * (size_t)(v % 100u), 2);
		v /= 100u;
	}
	if (n)
		p[0] = (char)('0' + v % 10u);
}

size_t tb_hex_digits(char *end, uint64_t v, int upper)
{
	static const char hex_pairs[513] =
		"000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
		"202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"
		"404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f"
		"606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f"
		"808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f"
		"a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf"
		"c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf"
		"e0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";
	char *p = end;
	if (upper) {
		do {
			*--p = "0123456789ABCDEF"[v & 15u];
			v >>= 4;
		} while (v);
		return (size_t)(end - p);
	}
	/* two digits a step */
	while (v >= 16u) {
		p -= 2;
		memcpy(p, hex_pairs + 2 * (size_t)(v & 0xffu), 2);
		v >>= 8;
	}
	if (v || p == end)
		*--p = "0123456789abcdef"[v];
	return (size_t)(end - p);
}

static void put_dec(tb_text *t, uint64_t mag, int neg, unsigned width, unsigned flags)
{
	char tmp[24];
	size_t n = tb_dec_len(mag), len = n + (neg ? 1u : 0u), pad, i;
	pad = width > len ? width - len : 0;
	if (t->len == t->need && pad + len <= t->cap - t->len) {
		/* the usual case: straight into the buffer (pads are short),
		 * the digits written in place */
		char *p = t->buf + t->len;
		if (!(flags & (TB_TEXT_LEFT | TB_TEXT_ZERO)))
			for (i = 0; i < pad; i++)
				*p++ = ' ';
		if (neg)
			*p++ = '-';
		if ((flags & TB_TEXT_ZERO) && !(flags & TB_TEXT_LEFT))
			for (i = 0; i < pad; i++)
				*p++ = '0';
		p += n;
		(void)tb_dec_digits(p, mag);
		if (flags & TB_TEXT_LEFT)
			for (i = 0; i < pad; i++)
				*p++ = ' ';
		t->len = (size_t)(p - t->buf);
		t->need = t->len;
		t->last = (unsigned char)p[-1];
		return;
	}
	n = tb_dec_digits(tmp + sizeof(tmp), mag);
	put_digits(t, tmp + sizeof(tmp) - n, n, neg, width, flags);
}

/* A number with no width (JSON's, the reports' counts) straight into the
 * room: tb_dec_fast's 8-byte stores need 24 bytes past the sign.  1 when
 * written. */
TB_ALWAYS_INLINE int put_bare(tb_text *t, uint64_t mag, int neg)
{
	char *p;
	size_t n;
	if (t->len != t->need || t->cap - t->len < 25)
		return 0;
	p = t->buf + t->len;
	*p = '-';
	p += neg;
	n = tb_dec_fast(p, mag);
	t->len = (size_t)(p + n - t->buf);
	t->need = t->len;
	t->last = (unsigned char)p[n - 1];
	return 1;
}

void tb_text_u64(tb_text *t, uint64_t v, unsigned width, unsigned flags)
{
	if (!width && put_bare(t, v, 0))
		return;
	put_dec(t, v, 0, width, flags);
}

void tb_text_i64(tb_text *t, int64_t v, unsigned width, unsigned flags)
{
	uint64_t mag = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
	if (!width && put_bare(t, mag, v < 0))
		return;
	put_dec(t, mag, v < 0, width, flags);
}

void tb_text_hex(tb_text *t, uint64_t v, unsigned width, unsigned flags)
{
	char tmp[16];
	size_t n = tb_hex_digits(tmp + sizeof(tmp), v, (flags & TB_TEXT_UPPER) != 0);
	put_digits(t, tmp + sizeof(tmp) - n, n, 0, width, flags);
}

/* Length of the valid UTF-8 sequence at s[0..n) (0: not valid). */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	unsigned char c = s[0];
	size_t k, i;
	uint32_t cp;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		k = 2, cp = c & 0x1fu;
	else if (c >= 0xe0 && c <= 0xef)
		k = 3, cp = c & 0x0fu;
	else if (c >= 0xf0 && c <= 0xf4)
		k = 4, cp = c & 0x07u;
	else
		return 0;
	if (n < k)
		return 0;
	for (i = 1; i < k; i++) {
		if ((s[i] & 0xc0u) != 0x80u)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3fu);
	}
	/* overlong forms, surrogates, past U+10FFFF */
	if ((k == 3 && cp < 0x800) || (k == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return k;
}

/* Whether none of the 8 bytes of w needs escaping (all 0x20..0x7f, no
 * '"', no '\\'): zero-byte tests on the word, exact as a yes or no. */
static int plain8(uint64_t w)
{
	const uint64_t ones = 0x0101010101010101u, high = 0x8080808080808080u;
	uint64_t q = w ^ (ones * '"'), b = w ^ (ones * '\\');
	uint64_t bad = ((w - ones * 0x20u) & ~w) | w | ((q - ones) & ~q) | ((b - ones) & ~b);
	return !(bad & high);
}

static int plain(unsigned char c)
{
	return c >= 0x20 && c < 0x80 && c != '"' && c != '\\';
}

/* How many bytes from the start of s[0..n) go out as they are: a word at
 * a time (the last word the string's last 8 bytes; a short string's
 * bytes in one word), else byte by byte from the word that has one to
 * escape. */
static size_t plain_run(const unsigned char *s, size_t n)
{
	size_t i = 0;
	uint64_t w;
	if (n >= 8) {
		for (; n - i > 8; i += 8) {
			memcpy(&w, s + i, 8);
			if (!plain8(w))
				break;
		}
		memcpy(&w, s + n - 8, 8);
		if (n - i <= 8 && plain8(w))
			return n;
	} else if (n >= 4) {
		/* "comm", "prio": two words of 4 that overlap */
		uint32_t a, b;
		memcpy(&a, s, 4);
		memcpy(&b, s + n - 4, 4);
		if (plain8(a | (uint64_t)b << 32))
			return n;
	}
	while (i < n && plain(s[i]))
		i++;
	return i;
}

/* The string from s[i] on (s[0..i) plain): escapes and UTF-8 checked. */
static TB_NOINLINE void json_escaped(tb_text *t, const unsigned char *s, size_t n, size_t i)
{
	static const char hex[] = "0123456789abcdef";
	size_t run = i;
	tb_text_putc(t, '"');
	while (i < n) {
		unsigned char c = s[i];
		size_t k;
		if (plain(c)) {
			i++;
			run++;
			continue;
		}
		if (c >= 0x80 && (k = utf8_len(s + i, n - i)) != 0) {
			i += k;
			run += k;
			continue;
		}
		tb_text_put(t, (const char *)s + i - run, run);
		run = 0;
		tb_text_putc(t, '\\');
		switch (c) {
		case '"': tb_text_putc(t, '"'); break;
		case '\\': tb_text_putc(t, '\\'); break;
		case '\n': tb_text_putc(t, 'n'); break;
		case '\t': tb_text_putc(t, 't'); break;
		case '\r': tb_text_putc(t, 'r'); break;
		default: {
			char u[5] = { 'u', '0', '0', hex[c >> 4], hex[c & 15u] };
			tb_text_put(t, u, 5);
		}
		}
		i++;
	}
	if (run) /* (s may be NULL when n is 0: no NULL + 0) */
		tb_text_put(t, (const char *)s + i - run, run);
	tb_text_putc(t, '"');
}

void tb_json_str(tb_text *t, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = plain_run(s, n);
	if (i == n && t->len == t->need && t->cap - t->len >= n + 2) {
		/* nothing to escape, and it fits: the usual name or comm */
		char *p = t->buf + t->len;
		p[0] = '"';
		tb_copy_short(p + 1, (const char *)s, n);
		p[n + 1] = '"';
		t->len += n + 2;
		t->need = t->len;
		t->last = '"';
		return;
	}
	json_escaped(t, s, n, i);
}
