/*
 * A bounded text sink and the kernel's number formatting, for the
 * renderer.  Writes past the capacity are counted, not stored, so the
 * caller learns how much room the whole text needs; the text is always
 * NUL-terminated by tb_out_finish().
 *
 * Internal header: not installed, not part of the API.
 */
#ifndef TB_LIB_RENDER_OUT_H
#define TB_LIB_RENDER_OUT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "digits.h"

/*
 * The text is the same whatever the capacity: what is stored is a prefix
 * of it, `need` and `last` describe the whole of it.  Nothing is written
 * past buf[cap) (with cap 0, nothing at all).
 */
typedef struct tb_out {
	char *buf;    /* NULL when there is no room at all (cap 0) */
	size_t cap;   /* usable bytes: the capacity minus the NUL */
	size_t len;   /* bytes stored */
	size_t need;  /* bytes the text takes in full (>= len) */
	size_t limit; /* the text ends here: later bytes are dropped, uncounted */
	char last;    /* the text's last byte (stored or not); 0 when empty */
} tb_out;

static inline void tb_out_init(tb_out *o, char *buf, size_t cap)
{
	o->buf = (buf && cap) ? buf : NULL;
	o->cap = o->buf ? cap - 1 : 0;
	o->len = 0;
	o->need = 0;
	o->limit = SIZE_MAX;
	o->last = 0;
}

static inline void tb_out_finish(tb_out *o)
{
	if (o->buf)
		o->buf[o->len] = '\0';
}

static inline void tb_out_putc(tb_out *o, char c)
{
	if (o->need >= o->limit)
		return;
	if (o->len == o->need && o->len < o->cap)
		o->buf[o->len++] = c;
	o->need++;
	o->last = c;
}

static inline void tb_out_put(tb_out *o, const char *s, size_t n)
{
	if (n > o->limit - o->need)
		n = o->limit - o->need;
	if (!n)
		return;
	if (o->len == o->need) {
		size_t room = o->cap - o->len, k = n < room ? n : room;
		if (k)
			tb_copy_short(o->buf + o->len, s, k);
		o->len += k;
	}
	o->need += n;
	o->last = s[n - 1];
}

static inline void tb_out_puts(tb_out *o, const char *s)
{
	tb_out_put(o, s, strlen(s));
}

static inline void tb_out_fill(tb_out *o, char c, size_t n)
{
	while (n--)
		tb_out_putc(o, c);
}

/* Room for n (> 0) bytes straight in the buffer: where they go, or NULL
 * when they would not all be stored (the text was cut, no room, or the
 * limit); then tb_out_took(o, n) once they are written. */
static inline char *tb_out_room(tb_out *o, size_t n)
{
	if (o->len != o->need || n > o->cap - o->len || n > o->limit - o->need)
		return NULL;
	return o->buf + o->len;
}

static inline void tb_out_took(tb_out *o, size_t n)
{
	o->len += n;
	o->need += n;
	o->last = o->buf[o->len - 1];
}

/* v in decimal after an optional sign character ("%llu", "-%llu"),
 * written in place: the digits never pass through a copy. */
static inline void tb_out_dec(tb_out *o, uint64_t v, char sign)
{
	size_t n = tb_dec_len(v) + (sign != 0);
	char *p = tb_out_room(o, n);
	if (p) {
		p[0] = sign; /* overwritten by the first digit when no sign */
		(void)tb_dec_digits(p + n, v);
		tb_out_took(o, n);
	} else {
		/* (cut short: a byte at a time, as tb_out_put would store them;
		 * its inline copy here made gcc's -Warray-bounds guess at k) */
		char tmp[24];
		size_t i = sizeof(tmp) - tb_dec_digits(tmp + sizeof(tmp), v);
		if (sign)
			tb_out_putc(o, sign);
		for (; i < sizeof(tmp); i++)
			tb_out_putc(o, tmp[i]);
	}
}

/* v in hex, after "0x" when pfx ("%llx", "0x%llx"), in place. */
static inline void tb_out_xdig(tb_out *o, uint64_t v, int upper, int pfx)
{
	size_t n = tb_hex_len(v) + (pfx ? 2u : 0u);
	char *p = tb_out_room(o, n);
	if (p) {
		if (pfx) {
			p[0] = '0';
			p[1] = upper ? 'X' : 'x';
		}
		(void)tb_hex_digits(p + n, v, upper);
		tb_out_took(o, n);
	} else {
		char tmp[16];
		size_t k = tb_hex_digits(tmp + sizeof(tmp), v, upper);
		if (pfx)
			tb_out_put(o, upper ? "0X" : "0x", 2);
		for (; k; k--) /* no room: the rare path, a byte at a time */
			tb_out_putc(o, tmp[sizeof(tmp) - k]);
	}
}

/* The writing half of tb_out_int_fast, at q with room for the number
 * and 16 bytes after it: returns the end, *last the last byte. */
TB_ALWAYS_INLINE char *tb_num_at(char *q, uint64_t mag, int hex, int upper, char sign,
				 int pfx, int width, int zero, int left, char *last)
{
	size_t nd = hex ? tb_hex_len(mag) : tb_dec_len(mag);
	size_t len = nd + (sign != 0) + (pfx ? 2u : 0u), pad = 0;
	if (width > 0 && (size_t)width > len)
		pad = (size_t)width - len;
	if (!left && !zero) {
		memset(q, ' ', 16);
		q += pad;
	}
	if (sign)
		*q++ = sign;
	if (pfx) {
		q[0] = '0';
		q[1] = upper ? 'X' : 'x';
		q += 2;
	}
	if (zero && !left) {
		memset(q, '0', 16);
		q += pad;
	}
	q += nd;
	if (hex)
		(void)tb_hex_digits(q, mag, upper);
	else
		(void)tb_dec_digits(q, mag);
	if (hex)
		*last = (upper ? "0123456789ABCDEF" : "0123456789abcdef")[mag & 15u];
	else
		*last = (char)('0' + (int)(mag % 10u));
	if (left) {
		memset(q, ' ', 16);
		q += pad;
		if (pad)
			*last = ' ';
	}
	return q;
}

/* The most bytes tb_num_at writes, scratch included (width <= 16). */
#define TB_NUM_AT_ROOM 40u

/*
 * An integer in base 10 or 16 in place, when it fits whole: spaces (not
 * zero, not left), the sign (0: none), "0x"/"0X" (pfx), zeros (zero),
 * the digits of mag, spaces (left); width counts all of it (the order
 * of both the kernel's number() and C's printf).  Returns 0, having
 * stored nothing, when the width passes 16 or there is no room for the
 * number and 16 bytes of scratch after it (pads are written 16 bytes at
 * a time; what passes the number is written over next, or never
 * counted): the caller's general path prints it then.
 */
static inline int tb_out_int_fast(tb_out *o, uint64_t mag, int hex, int upper, char sign,
				  int pfx, int width, int zero, int left)
{
	char *q, *e, last;
	if (width > 16 || o->len != o->need || TB_NUM_AT_ROOM > o->cap - o->len ||
	    TB_NUM_AT_ROOM > o->limit - o->need)
		return 0;
	q = o->buf + o->len;
	e = tb_num_at(q, mag, hex, upper, sign, pfx, width, zero, left, &last);
	o->len += (size_t)(e - q);
	o->need = o->len;
	o->last = last;
	return 1;
}

/* A mark: where a piece of text began (to pad or cut it afterwards). */
typedef struct tb_out_mark {
	size_t len, need;
} tb_out_mark;

static inline tb_out_mark tb_out_mark_here(const tb_out *o)
{
	tb_out_mark m = { o->len, o->need };
	return m;
}

/* Let the text written from here on take at most max bytes (a %.Ns
 * precision): returns the limit to give back to tb_out_unlimit.  The
 * bytes past it are never counted, so `last` stays exact. */
static inline size_t tb_out_limit(tb_out *o, size_t max)
{
	size_t old = o->limit;
	if (max < o->limit - o->need)
		o->limit = o->need + max;
	return old;
}

static inline void tb_out_unlimit(tb_out *o, size_t old)
{
	o->limit = old;
}

/* Pad the text written since m to width: spaces after it (left-justified)
 * or before it (the stored bytes shift right, those past cap drop). */
static inline void tb_out_pad(tb_out *o, tb_out_mark m, size_t width, int left)
{
	size_t n = o->need - m.need, pad, keep;
	if (n >= width)
		return;
	pad = width - n;
	if (pad > o->limit - o->need)
		pad = o->limit - o->need;
	if (!pad)
		return;
	if (!n)
		o->last = ' ';
	if (left) {
		tb_out_fill(o, ' ', pad);
		return;
	}
	if (m.len == m.need && o->buf) {
		/* nothing was dropped before the mark: shift what is stored */
		size_t stored = o->len - m.len, room = o->cap - m.len;
		if (pad >= room) {
			memset(o->buf + m.len, ' ', room);
			o->len = o->cap;
		} else {
			keep = stored < room - pad ? stored : room - pad;
			memmove(o->buf + m.len + pad, o->buf + m.len, keep);
			memset(o->buf + m.len, ' ', pad);
			o->len = m.len + pad + keep;
		}
	}
	o->need += pad;
}

/* ---- numbers, the way the kernel's vsnprintf prints them ---- */

enum {
	TB_NF_LEFT = 1,     /* '-' */
	TB_NF_PLUS = 2,     /* '+' */
	TB_NF_SPACE = 4,    /* ' ' */
	TB_NF_SPECIAL = 8,  /* '#' */
	TB_NF_ZEROPAD = 16, /* '0' */
	TB_NF_SIGN = 32,    /* a signed conversion */
	TB_NF_UPPER = 64    /* 'X' */
};

/* A number's text is assembled here and flushed when full: one
 * tb_out_put for any ordinary field, and no limit on a wide one. */
typedef struct tb_out_numbuf {
	tb_out *o;
	int n;
	char b[64];
} tb_out_numbuf;

static inline void tb_nb_putc(tb_out_numbuf *nb, char c)
{
	if (nb->n == (int)sizeof(nb->b)) {
		tb_out_put(nb->o, nb->b, sizeof(nb->b));
		nb->n = 0;
	}
	nb->b[nb->n++] = c;
}

static inline void tb_nb_run(tb_out_numbuf *nb, char c, int count)
{
	for (; count > 0; count--)
		tb_nb_putc(nb, c);
}

/*
 * Print num (a signed value when TB_NF_SIGN, already sign-extended) in
 * base 8, 10 or 16 with width and precision (-1: none), following the
 * kernel's number(): "%#x" of 0 is "0x0", precision does not cancel the
 * zero padding, and a precision of 0 still prints a 0.
 */
static inline void tb_out_number(tb_out *o, uint64_t num, unsigned base,
				 int flags, int width, int prec)
{
	char tmp[24];
	char *end = tmp + sizeof(tmp);
	int i, need_pfx, is_zero = num == 0;
	char sign = 0;
	tb_out_numbuf nb;
	if (flags & TB_NF_LEFT)
		flags &= ~TB_NF_ZEROPAD;
	if (base != 8) {
		/* the usual number, in place */
		uint64_t mag = num;
		char sg = 0;
		if (flags & TB_NF_SIGN) {
			if ((int64_t)num < 0) {
				sg = '-';
				mag = 0 - num;
			} else if (flags & TB_NF_PLUS) {
				sg = '+';
			} else if (flags & TB_NF_SPACE) {
				sg = ' ';
			}
		}
		if (prec <= (int)(base == 16 ? tb_hex_len(mag) : tb_dec_len(mag)) &&
		    tb_out_int_fast(o, mag, base == 16, (flags & TB_NF_UPPER) != 0, sg,
				    base == 16 && (flags & TB_NF_SPECIAL), width,
				    (flags & TB_NF_ZEROPAD) != 0, (flags & TB_NF_LEFT) != 0))
			return;
	}
	need_pfx = (flags & TB_NF_SPECIAL) && base != 10;
	if (flags & TB_NF_SIGN) {
		if ((int64_t)num < 0) {
			sign = '-';
			num = 0 - num;
			width--;
		} else if (flags & TB_NF_PLUS) {
			sign = '+';
			width--;
		} else if (flags & TB_NF_SPACE) {
			sign = ' ';
			width--;
		}
	}
	if (need_pfx) {
		width--;
		if (base == 16)
			width--;
	}
	/* the digits, most significant first, ending at end */
	if (base == 16) {
		i = (int)tb_hex_digits(end, num, (flags & TB_NF_UPPER) != 0);
	} else if (base == 8) {
		i = 0;
		do {
			end[-++i] = (char)('0' + (num & 7));
			num >>= 3;
		} while (num);
	} else {
		i = (int)tb_dec_digits(end, num);
	}
	if (i > prec)
		prec = i;
	width -= prec;
	nb.o = o;
	nb.n = 0;
	/* padding, sign, prefix, zeros, digits, padding */
	if (!(flags & (TB_NF_ZEROPAD | TB_NF_LEFT))) {
		tb_nb_run(&nb, ' ', width);
		width = 0;
	}
	if (sign)
		tb_nb_putc(&nb, sign);
	if (need_pfx) {
		if (base == 16 || !is_zero)
			tb_nb_putc(&nb, '0');
		if (base == 16)
			tb_nb_putc(&nb, (flags & TB_NF_UPPER) ? 'X' : 'x');
	}
	if (!(flags & TB_NF_LEFT)) {
		tb_nb_run(&nb, (flags & TB_NF_ZEROPAD) ? '0' : ' ', width);
		width = 0;
	}
	tb_nb_run(&nb, '0', prec - i);
	for (; i > 0; i--)
		tb_nb_putc(&nb, end[-i]);
	tb_nb_run(&nb, ' ', width);
	tb_out_put(o, nb.b, (size_t)nb.n);
}

/* Shorthands: "%llu", "0x%llx", "%0*x". */
static inline void tb_out_u64(tb_out *o, uint64_t v)
{
	tb_out_number(o, v, 10, 0, -1, -1);
}

static inline void tb_out_hex(tb_out *o, uint64_t v)
{
	tb_out_number(o, v, 16, TB_NF_SPECIAL, -1, -1);
}

static inline void tb_out_hexw(tb_out *o, uint64_t v, int width)
{
	tb_out_number(o, v, 16, TB_NF_ZEROPAD, width, -1);
}

#endif /* TB_LIB_RENDER_OUT_H */
