/*
 * tracebound: the one bounded text sink, and JSON strings written into it.
 *
 * A tb_text appends into caller memory buf[0..cap).  What does not fit is
 * counted, not stored: `need` always says how long the whole text is, so
 * a caller learns the room it takes in one pass.  tb_text_finish() ends
 * the stored text with a NUL (when cap > 0); nothing is ever written past
 * buf[cap - 1].  No allocation, no locale, no printf.
 *
 * Every renderer of the library (print fmt text, -R listings, JSON
 * events, report lines) writes through this sink; so does the CLI.
 */
#ifndef TRACEBOUND_TEXT_H
#define TRACEBOUND_TEXT_H

#include <string.h>

#include "tracebound/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tb_text {
	char *buf;
	size_t cap;   /* bytes usable for text: the capacity minus the NUL */
	size_t len;   /* bytes stored */
	size_t need;  /* bytes the whole text takes (>= len) */
	int last;     /* the text's last byte, -1 none or unknown */
} tb_text;

/* Number flags. */
#define TB_TEXT_ZERO  0x1u /* pad with '0' after the sign instead of spaces */
#define TB_TEXT_LEFT  0x2u /* pad on the right */
#define TB_TEXT_UPPER 0x4u /* upper-case hex digits */

static inline void tb_text_init(tb_text *t, char *buf, size_t cap)
{
	t->buf = (buf && cap) ? buf : NULL; /* cap 0: nothing may be written */
	t->cap = t->buf ? cap - 1 : 0;
	t->len = 0;
	t->need = 0;
	t->last = -1;
}

/* Start again over the same memory. */
static inline void tb_text_reset(tb_text *t)
{
	t->len = t->need = 0;
	t->last = -1;
}

static inline void tb_text_finish(tb_text *t)
{
	if (t->buf)
		t->buf[t->len] = '\0'; /* len <= cap: the NUL's byte is reserved */
}

static inline int tb_text_truncated(const tb_text *t)
{
	return t->len < t->need;
}

static inline void tb_text_putc(tb_text *t, char c)
{
	if (t->len == t->need && t->len < t->cap)
		t->buf[t->len++] = c;
	t->need++;
	t->last = (unsigned char)c;
}

/* s may be NULL when n is 0 (as for tb_text_fill, n 0 appends nothing). */
static inline void tb_text_put(tb_text *t, const char *s, size_t n)
{
	if (!n)
		return;
	if (t->len == t->need) {
		size_t room = t->cap - t->len, k = n < room ? n : room;
		if (k)
			memcpy(t->buf + t->len, s, k);
		t->len += k;
	}
	t->need += n;
	t->last = (unsigned char)s[n - 1];
}

static inline void tb_text_puts(tb_text *t, const char *s)
{
	tb_text_put(t, s, strlen(s));
}

static inline void tb_text_fill(tb_text *t, char c, size_t n)
{
	if (!n)
		return;
	if (t->len == t->need) {
		size_t room = t->cap - t->len, k = n < room ? n : room;
		if (k)
			memset(t->buf + t->len, c, k);
		t->len += k;
	}
	t->need += n;
	t->last = (unsigned char)c;
}

/* The free tail, for a writer that fills memory itself (such as
 * tb_render): *room bytes there, its NUL included.  NULL (room 0) once
 * the text was cut. */
static inline char *tb_text_tail(tb_text *t, size_t *room)
{
	if (!t->buf || t->len != t->need) {
		*room = 0;
		return NULL;
	}
	*room = t->cap - t->len + 1;
	return t->buf + t->len;
}

/* After writing into the tail: `stored` bytes landed there, the piece
 * takes `needed` in full. */
static inline void tb_text_advance(tb_text *t, size_t stored, size_t needed)
{
	int landed = t->buf && t->len == t->need && stored <= t->cap - t->len;
	if (landed)
		t->len += stored;
	t->need += needed;
	if (needed)
		t->last = landed && stored == needed ? (unsigned char)t->buf[t->len - 1] : -1;
}

/* The last byte of the text, -1 when none or not known. */
static inline int tb_text_last(const tb_text *t)
{
	return t->last;
}

/* Decimal (or hex with base 16) numbers, padded to `width` like printf's
 * %*llu / %-*lld / %0*llx. */
TB_API void tb_text_u64(tb_text *t, uint64_t v, unsigned width, unsigned flags);
TB_API void tb_text_i64(tb_text *t, int64_t v, unsigned width, unsigned flags);
TB_API void tb_text_hex(tb_text *t, uint64_t v, unsigned width, unsigned flags);

/*
 * s[0..n) as a JSON string literal, quotes included.  '"', '\\' and
 * control bytes are escaped; valid UTF-8 is kept; a byte that is not part
 * of valid UTF-8 is written as \u00XX (its Latin-1 reading), so every
 * output is valid JSON and no byte is lost.  s may be NULL when n is 0
 * (an empty string, "").
 */
TB_API void tb_json_str(tb_text *t, const char *s, size_t n);

#ifdef __cplusplus
}
#endif

#endif /* TRACEBOUND_TEXT_H */
