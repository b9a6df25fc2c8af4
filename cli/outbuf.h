/*
 * A bounded text output buffer: append bytes and numbers into caller
 * memory; what does not fit is dropped and `truncated` says so.  No
 * printf, no allocation, no locale.  The CLI builds report lines in it;
 * the library's own text sink is lib/render_out.h.
 */
#ifndef TB_CLI_OUTBUF_H
#define TB_CLI_OUTBUF_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct tb_outbuf {
	char *p;
	size_t len, cap;
	int truncated;
} tb_outbuf;

#define TB_OB_ZERO 0x1 /* pad with '0' (after the sign) instead of spaces */
#define TB_OB_LEFT 0x2 /* pad on the right */
#define TB_OB_UPPER 0x4 /* hex digits in upper case */

static inline void tb_ob_init(tb_outbuf *o, char *p, size_t cap)
{
	o->p = p;
	o->len = 0;
	o->cap = p ? cap : 0;
	o->truncated = 0;
}

static inline void tb_ob_put(tb_outbuf *o, const void *s, size_t n)
{
	if (n > o->cap - o->len) {
		n = o->cap - o->len;
		o->truncated = 1;
	}
	if (n)
		memcpy(o->p + o->len, s, n);
	o->len += n;
}

static inline void tb_ob_puts(tb_outbuf *o, const char *s)
{
	tb_ob_put(o, s, strlen(s));
}

static inline void tb_ob_fill(tb_outbuf *o, char c, size_t n)
{
	if (n > o->cap - o->len) {
		n = o->cap - o->len;
		o->truncated = 1;
	}
	memset(o->p + o->len, c, n);
	o->len += n;
}

/* A magnitude in base 8, 10 or 16, with an optional '-' and padding to
 * `width` as printf's %d/%u/%x/%o would with the '0' and '-' flags. */
static inline void tb_ob_num(tb_outbuf *o, uint64_t mag, int neg, unsigned base,
			     size_t width, unsigned flags)
{
	char tmp[64];
	const char *digits = (flags & TB_OB_UPPER) ? "0123456789ABCDEF"
						   : "0123456789abcdef";
	size_t n = 0, len;
	if (base < 2 || base > 16)
		base = 10;
	do {
		tmp[sizeof(tmp) - 1 - n++] = digits[mag % base];
		mag /= base;
	} while (mag);
	len = n + (neg ? 1u : 0u);
	if (width > len && !(flags & (TB_OB_LEFT | TB_OB_ZERO)))
		tb_ob_fill(o, ' ', width - len);
	if (neg)
		tb_ob_put(o, "-", 1);
	if (width > len && (flags & TB_OB_ZERO) && !(flags & TB_OB_LEFT))
		tb_ob_fill(o, '0', width - len);
	tb_ob_put(o, tmp + sizeof(tmp) - n, n);
	if (width > len && (flags & TB_OB_LEFT))
		tb_ob_fill(o, ' ', width - len);
}

static inline void tb_ob_uint(tb_outbuf *o, uint64_t v, unsigned base, size_t width,
			      unsigned flags)
{
	tb_ob_num(o, v, 0, base, width, flags);
}

static inline void tb_ob_int(tb_outbuf *o, int64_t v, size_t width, unsigned flags)
{
	tb_ob_num(o, v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v, v < 0, 10, width,
		  flags);
}

#endif /* TB_CLI_OUTBUF_H */
