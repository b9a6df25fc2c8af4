/*
 * Run trace-cmd's -R field listing (render.h, TB_RENDER_FIELD_LIST): for
 * each event field " name=value", with the conversion the compiler bound
 * to it (printfmt_parse.c, compile_fields) or raw.
 *
 * Numbers print the way C's printf prints them (libtraceevent formats
 * with it), not the kernel's way.  Every record read goes through the
 * reader or lib/field.c; a field outside the record prints
 * TB_RENDER_M_OOR and sets TB_RENDER_N_OOR.
 */
#include <string.h>

#include "printfmt.h"
#include "render_out.h"
#include "tracebound/tracedat.h"

#define FM_MAX_WIDTH 1000 /* a width taken from a field, capped */
#define FM_MAX_STR 255u   /* %s of a non-array field: bytes copied */

typedef struct fctx {
	const tb_render_prog *p;
	const tb_render_env *env;
	const tb_reader *rec;
	tb_out *o;
	unsigned notes;
} fctx;

static void put_oor(fctx *c)
{
	c->notes |= TB_RENDER_N_OOR;
	tb_out_puts(c->o, TB_RENDER_M_OOR);
}

/*
 * An integer conversion as C's printf does it (libtraceevent formats with
 * it): "%#x" of 0 is "0", "%.0d" of 0 is empty, a precision turns the
 * '0' flag off, '#' octal starts with a 0.  The text is assembled in b
 * and stored with one put when it fits (it always does but for widths
 * or precisions near the limit).
 */
/* v as the length modifier reads it: the magnitude, *sign '-' or 0 (no
 * '+': libtraceevent has no such flag). */
/* The bytes a length modifier reads. */
static unsigned lenmod_bytes(unsigned lenmod)
{
	return lenmod == TB_L_HH ? 1u : lenmod == TB_L_H ? 2u
	     : (lenmod == TB_L_L || lenmod == TB_L_LL) ? 8u : 4u;
}

static inline uint64_t c_int_mag(uint64_t v, char conv, unsigned lenmod, char *sign)
{
	unsigned w = lenmod_bytes(lenmod);
	*sign = 0;
	if (conv == 'd' || conv == 'i') {
		uint64_t sv = tb_ty_norm(v, w);
		if ((int64_t)sv < 0) {
			*sign = '-';
			return 0 - sv;
		}
		return sv;
	}
	return tb_ty_norm(v, w | TB_TY_UNSIGNED);
}

static void put_c_int(tb_out *o, uint64_t v, char conv, unsigned lenmod, int flags,
		      int width, int prec)
{
	unsigned base = conv == 'o' ? 8u : (conv == 'x' || conv == 'X') ? 16u : 10u;
	char b[96], sign = 0;
	int pos = (int)sizeof(b), nd, zeros, total, pad, pfx;
	uint64_t mag = c_int_mag(v, conv, lenmod, &sign);
	if (prec < 0 && !(flags & TB_NF_SPECIAL) && base != 8 &&
	    width <= (int)(base == 16 ? tb_hex_len(mag) : tb_dec_len(mag) + (sign != 0))) {
		/* the usual field: no padding, written in place */
		if (base == 16)
			tb_out_xdig(o, mag, conv == 'X', 0);
		else
			tb_out_dec(o, mag, sign);
		return;
	}
	if (prec < 0 && base != 8 &&
	    tb_out_int_fast(o, mag, base == 16, conv == 'X', sign,
			    base == 16 && (flags & TB_NF_SPECIAL) && mag, width,
			    (flags & TB_NF_ZEROPAD) && !(flags & TB_NF_LEFT),
			    (flags & TB_NF_LEFT) != 0))
		return; /* the usual field, in place */
	/* digits, least significant first (constant divisors: fast) */
	if (prec == 0 && mag == 0)
		;
	else if (base == 16)
		pos -= (int)tb_hex_digits(b + pos, mag, conv == 'X');
	else if (base == 8)
		do {
			b[--pos] = (char)('0' + (mag & 7));
			mag >>= 3;
		} while (mag);
	else
		pos -= (int)tb_dec_digits(b + pos, mag);
	nd = (int)sizeof(b) - pos;
	zeros = prec > nd ? prec - nd : 0;
	if (base == 8 && (flags & TB_NF_SPECIAL) && zeros == 0 && (nd == 0 || b[pos] != '0'))
		zeros = 1;
	pfx = base == 16 && (flags & TB_NF_SPECIAL) && nd && !(nd == 1 && b[pos] == '0');
	total = (sign != 0) + 2 * pfx + zeros + nd;
	if ((flags & TB_NF_ZEROPAD) && !(flags & TB_NF_LEFT) && prec < 0 && width > total) {
		zeros += width - total;
		total = width;
	}
	pad = width > total ? width - total : 0;
	if (!(flags & TB_NF_LEFT))
		tb_out_fill(o, ' ', (size_t)pad);
	if (zeros + 3 <= pos) {
		memset(b + pos - zeros, '0', (size_t)zeros);
		pos -= zeros;
		if (pfx) {
			b[--pos] = conv == 'X' ? 'X' : 'x';
			b[--pos] = '0';
		}
		if (sign)
			b[--pos] = sign;
		tb_out_put(o, b + pos, sizeof(b) - (size_t)pos);
	} else {
		if (sign)
			tb_out_putc(o, sign);
		if (pfx)
			tb_out_put(o, conv == 'X' ? "0X" : "0x", 2);
		tb_out_fill(o, '0', (size_t)zeros);
		tb_out_put(o, b + pos, (size_t)nd);
	}
	if (flags & TB_NF_LEFT)
		tb_out_fill(o, ' ', (size_t)pad);
}

/* "%llx", "0x%llx", "%llu", "%lld" */
static void put_hex_bare(tb_out *o, uint64_t v)
{
	put_c_int(o, v, 'x', TB_L_LL, 0, 0, -1);
}

static void put_hex(tb_out *o, uint64_t v)
{
	tb_out_xdig(o, v, 0, 1);
}

/* A field's integer (1, 2, 4 or 8 bytes; any other size reads as 0, as
 * libtraceevent has it); 0 when it lies outside the record. */
static int field_num(const fctx *c, const tb_field *f, uint64_t *v)
{
	*v = 0;
	if (f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8)
		return 1;
	return tb_rd_uN_at(c->rec, f->offset, f->size, v);
}

/* C's isprint() || isspace() in the C locale. */
static int printable(uint8_t b)
{
	return (b >= 0x20 && b <= 0x7e) || (b >= 9 && b <= 13);
}

/* The bytes of an array field as libtraceevent locates them: a dynamic
 * one through its loc word (lib/field.c), a fixed one at offset/size.
 * An empty dynamic one still points where its offset says (*d, or NULL
 * past the record): libtraceevent prints the text found there. */
static int array_bytes(const fctx *c, const tb_field *f, unsigned fl,
		       const uint8_t **d, size_t *n)
{
	if ((fl & TB_TF_DYNAMIC) && f->kind == TB_FIELD_DYNAMIC) {
		tb_error e;
		uint64_t o, l;
		if (tb_field_bytes(f, c->rec->data, c->rec->len, c->rec->big_endian,
				   d, n, &e) != TB_OK)
			return 0;
		if (*n || (f->flags & TB_FIELD_LEGACY) || !tb_field_loc(f, c->rec, &o, &l))
			return 1;
		if (o < c->rec->len)
			(void)tb_rd_ptr_at(c->rec, (size_t)o, 0, d);
		return 1;
	}
	*n = f->size;
	return tb_rd_ptr_at(c->rec, f->offset, f->size, d);
}

/* Text from d up to a NUL, which libtraceevent seeks past the field's
 * end; we seek to the record's end at most. */
static void put_cstr_in_record(fctx *c, const uint8_t *d)
{
	const uint8_t *s, *z;
	size_t off, n;
	if (!d)
		return; /* an empty dynamic field */
	off = (size_t)(d - c->rec->data);
	n = c->rec->len - off;
	if (!tb_rd_ptr_at(c->rec, off, n, &s) || !n)
		return;
	z = (const uint8_t *)memchr(s, 0, n);
	tb_out_put(c->o, (const char *)s, z ? (size_t)(z - s) : n);
}

/* A field printed raw.  Returns 1 when it was a char array (text so far)
 * printed as ARRAY[], which libtraceevent then never prints as text
 * again. */
static int put_raw(fctx *c, const tb_field *f, unsigned fl)
{
	uint64_t v;
	if (fl & TB_TF_ARRAY) {
		const uint8_t *d = NULL;
		size_t n = 0, i;
		int text = (fl & TB_TF_STRING) != 0;
		if (!array_bytes(c, f, fl, &d, &n)) {
			put_oor(c);
			return 0;
		}
		/* text: every byte before the first NUL printable (none: text) */
		for (i = 0; text && i < n && d[i]; i++)
			text = printable(d[i]);
		if (text) {
			put_cstr_in_record(c, d);
			return 0;
		}
		tb_out_puts(c->o, "ARRAY[");
		for (i = 0; i < n; i++) {
			if (i)
				tb_out_puts(c->o, ", ");
			tb_pf_put_byte_hex(c->o, d[i]);
		}
		tb_out_putc(c->o, ']');
		return (fl & TB_TF_STRING) != 0;
	}
	if (!field_num(c, f, &v)) {
		put_oor(c);
		return 0;
	}
	if ((fl & TB_TF_POINTER) || ((fl & TB_TF_LONG) && (!(fl & TB_TF_SIGNED) || f->size == 4)))
		put_hex(c->o, v); /* a 4-byte value read as 4 bytes: no mask needed */
	else if (!(fl & TB_TF_SIGNED))
		put_c_int(c->o, v, 'u', TB_L_LL, 0, 0, -1);
	else /* "%d" of the size; a short as "%2d" */
		put_c_int(c->o, v, 'd', f->size == 1 ? TB_L_HH : f->size == 2 ? TB_L_H
				 : f->size == 4 ? TB_L_NONE : TB_L_LL,
			  0, f->size == 2 ? 2 : 0, -1);
	return 0;
}

static void put_symbol(fctx *c, char k, uint64_t v)
{
	const char *name, *mod;
	size_t nlen, mlen;
	uint64_t start, size;
	int r = tb_pf_sym(c->env, v, &name, &nlen, &start, &size, &mod, &mlen);
	if (r < 0)
		c->notes |= TB_RENDER_N_NOLOOKUP;
	if (r <= 0) {
		put_hex(c->o, v);
		return;
	}
	tb_out_put(c->o, name, nlen);
	if (k == 'S' || k == 'F') {
		tb_out_puts(c->o, "+0x");
		put_hex_bare(c->o, v - start);
	}
}

/* The bytes of a field of exactly n bytes (an address): NULL, with the
 * text libtraceevent prints, when it has another size. */
static const uint8_t *addr_bytes(fctx *c, const tb_field *f, uint32_t n, const char *invalid)
{
	const uint8_t *b;
	if (f->size != n) {
		tb_out_puts(c->o, invalid);
		return NULL;
	}
	if (!tb_rd_ptr_at(c->rec, f->offset, n, &b)) {
		put_oor(c);
		return NULL;
	}
	return b;
}

static void put_ptr(fctx *c, const tb_render_dir_ *d, const tb_field *f, uint64_t v)
{
	char k = d->pext[0];
	const uint8_t *b;
	if (k == 's' || k == 'S' || k == 'f' || k == 'F') {
		put_symbol(c, k, v);
	} else if (k == 'M' || k == 'm') {
		if (!(b = addr_bytes(c, f, 6, "INVALIDMAC")))
			return;
		for (int i = 0; i < 6; i++) {
			if (i && k == 'M')
				tb_out_putc(c->o, ':');
			tb_pf_put_byte_hex(c->o, b[i]);
		}
	} else if ((k == 'I' || k == 'i') && d->pext[1] == '4') {
		if ((b = addr_bytes(c, f, 4, "INVALIDIPv4")) != NULL)
			tb_pf_put_ip4(c->o, b, k == 'i');
	} else if ((k == 'I' || k == 'i') && d->pext[1] == '6') {
		if (!(b = addr_bytes(c, f, 16, "INVALIDIPv6")))
			return;
		if (k == 'I' && d->pext[2] == 'c')
			tb_pf_put_ip6_compressed(c->o, b);
		else
			tb_pf_put_ip6_full(c->o, b, k == 'I');
	} else if (k == 'I' || k == 'i') {
		/* %pIS (a sockaddr) and the rest: nothing */
	} else if (k == 'U') {
		if ((b = addr_bytes(c, f, 16, "INVALIDUUID")) != NULL)
			tb_pf_put_uuid(c->o, b, d->pext[1]);
	} else if (k == 'h') {
		/* libtraceevent's words: %ph wants a dynamic array */
		tb_out_puts(c->o, "ARG TYPE NOT FIELD BUT 2");
	} else if (v == 0) {
		tb_out_puts(c->o, "(nil)");
	} else {
		put_hex(c->o, v);
	}
}

/* "%s" of a field that is no array: a long is a printk string's address;
 * anything else its own bytes as a C string. */
static void put_str(fctx *c, const tb_field *f, unsigned fl, uint64_t v, int flags,
		    int width, int prec)
{
	const uint8_t *d;
	const uint8_t *z;
	size_t n;
	tb_out_mark mk;
	if (!(fl & TB_TF_ARRAY) && f->size == c->p->ev.long_size) {
		const char *s;
		size_t sn;
		if (c->env && c->env->printk &&
		    c->env->printk(c->env->printk_ctx, v, &s, &sn)) {
			tb_out_put(c->o, s, sn);
		} else {
			if (!c->env || !c->env->printk)
				c->notes |= TB_RENDER_N_NOLOOKUP;
			put_hex_bare(c->o, v);
		}
		return;
	}
	n = f->size;
	if (!n)
		n = f->offset <= c->rec->len ? c->rec->len - f->offset : 0;
	if (!tb_rd_ptr_at(c->rec, f->offset, n, &d)) {
		put_oor(c);
		return;
	}
	if (n > FM_MAX_STR)
		n = FM_MAX_STR;
	z = n ? (const uint8_t *)memchr(d, 0, n) : NULL;
	if (z)
		n = (size_t)(z - d);
	if (prec >= 0 && (size_t)prec < n)
		n = (size_t)prec;
	mk = tb_out_mark_here(c->o);
	tb_out_put(c->o, (const char *)d, n);
	if (width > 0)
		tb_out_pad(c->o, mk, (size_t)width, flags & TB_NF_LEFT);
}

static void put_conv(fctx *c, const tb_render_dir_ *d, const tb_field *f, unsigned fl)
{
	uint64_t v;
	int flags = d->flags, width = d->width, prec = d->prec;
	if (!field_num(c, f, &v)) {
		put_oor(c);
		return;
	}
	v &= d->parg == 1 ? 0xffu : d->parg == 2 ? 0xffffu
	   : d->parg == 4 ? 0xffffffffu : UINT64_MAX;
	if (d->conv == 'p') {
		put_ptr(c, d, f, v);
		return;
	}
	if (d->kind == TB_D_WIDE) {
		(void)put_raw(c, f, fl); /* a scalar: the print fmt binds no array */
		return;
	}
	if (width == -2 || prec == -2) {
		uint64_t wv = 0;
		int32_t w;
		if (d->warg && !field_num(c, &c->p->ev.fields[d->warg - 1], &wv))
			c->notes |= TB_RENDER_N_OOR;
		w = (int32_t)(uint32_t)wv;
		if (w > FM_MAX_WIDTH || w < -FM_MAX_WIDTH) {
			c->notes |= TB_RENDER_N_CLAMPED;
			w = w < 0 ? -FM_MAX_WIDTH : FM_MAX_WIDTH;
		}
		if (width == -2) {
			width = w;
			if (width < 0) {
				flags |= TB_NF_LEFT;
				width = -width;
			}
		} else {
			prec = w < 0 ? -1 : w;
		}
	}
	if (d->conv == 's')
		put_str(c, f, fl, v, flags, width, prec);
	else
		put_c_int(c->o, v, (char)d->conv, d->lenmod, flags, width, prec);
}

/*
 * Each field resolved once, when the program is compiled (fops): where it
 * lies, its " name=", and for the usual field (a scalar of 1, 2, 4 or 8
 * bytes printed raw as an integer, or through a plain integer conversion:
 * d i u x X, width up to 16, no precision, no width from a field) the
 * number's whole shape.  Running it is then a load and one write in
 * place, exactly what put_raw / put_conv print for such a field.
 */
enum {
	FOP_HEX = 1, FOP_UPPER = 2,
	FOP_PFX = 4,     /* "0x" before the digits */
	FOP_PFX_NZ = 8,  /* "0x" before the digits unless they are 0 (%#x) */
	FOP_LIT = 16,    /* the literal "0x" the format has before it */
	FOP_ZERO = 32, FOP_LEFT = 64
};

/* The commonest shapes (op->kind), each written by tb_num_at with its
 * flags constant: "%d" and "%u", "0x%lx" (a raw long or pointer), "%lx"
 * after a literal 0x, and "%08lx" (syscall arguments). */
enum { FK_ANY, FK_DEC, FK_HEX_PFX, FK_HEX, FK_HEX_ZERO };

static uint8_t fop_kind(const tb_render_fop_ *op)
{
	unsigned sh = op->shape & ~(unsigned)FOP_LIT;
	if (!(sh & (FOP_HEX | FOP_ZERO | FOP_LEFT)) && !op->width)
		return FK_DEC;
	if (sh == (FOP_HEX | FOP_PFX) && !op->width)
		return FK_HEX_PFX;
	if (sh == FOP_HEX && !op->width)
		return FK_HEX;
	if (sh == (FOP_HEX | FOP_ZERO) && op->width)
		return FK_HEX_ZERO;
	return FK_ANY;
}

/* The fast shape of field f printed raw or through d (NULL: raw); 0 when
 * it has none and takes the general path. */
static int fop_shape(tb_render_fop_ *op, const tb_field *f, const tb_render_dir_ *d)
{
	unsigned fl = op->tf, n = f->size;
	if ((fl & TB_TF_ARRAY) || (n != 1 && n != 2 && n != 4 && n != 8))
		return 0;
	op->keep = 8;
	if (!d) {
		if ((fl & TB_TF_POINTER) ||
		    ((fl & TB_TF_LONG) && (!(fl & TB_TF_SIGNED) || n == 4))) {
			op->shape |= FOP_HEX | FOP_PFX;
		} else if (fl & TB_TF_SIGNED) {
			op->sext = (uint8_t)n; /* "%d" of the size; a short as "%2d" */
			op->width = n == 2 ? 2 : 0;
		}
	} else {
		unsigned w = lenmod_bytes(d->lenmod), pm = d->parg ? d->parg : 8u;
		if (d->kind == TB_D_WIDE || d->width > 16 || d->width == -2 || d->prec != -1 ||
		    (d->conv != 'd' && d->conv != 'i' && d->conv != 'u' && d->conv != 'x' &&
		     d->conv != 'X'))
			return 0;
		if (d->conv == 'd' || d->conv == 'i') {
			op->keep = (uint8_t)pm; /* the cast's mask, then the length's sign */
			op->sext = (uint8_t)w;
		} else {
			op->keep = (uint8_t)(pm < w ? pm : w);
		}
		if (d->conv == 'x' || d->conv == 'X')
			op->shape |= FOP_HEX | (d->conv == 'X' ? FOP_UPPER : 0) |
				     ((d->flags & TB_NF_SPECIAL) ? FOP_PFX_NZ : 0);
		if (d->flags & TB_NF_LEFT)
			op->shape |= FOP_LEFT;
		else if (d->flags & TB_NF_ZEROPAD)
			op->shape |= FOP_ZERO;
		op->width = (uint8_t)(d->width > 0 ? d->width : 0);
	}
	op->size = (uint8_t)n;
	op->kind = fop_kind(op);
	return 1;
}

void tb_pf_plan_fields(tb_render_prog *p)
{
	p->n_fops = 0;
	for (size_t i = 0; i < p->ev.n_fields && i < TB_FORMAT_MAX_FIELDS; i++) {
		const tb_field *f = &p->ev.fields[i];
		const char *e = p->text + TB_FM_ENTRY * i;
		unsigned m = (uint8_t)e[1] | (unsigned)(uint8_t)e[2] << 8;
		tb_render_fop_ *op = &p->fops[p->n_fops];
		tb_render_dir_ d;
		if (tb_pf_common(f))
			continue;
		tb_pf_fop_start(op, f, i);
		op->conv = (uint16_t)m;
		op->tf = (uint8_t)e[0];
		if (m & TB_FM_0X)
			op->shape = FOP_LIT;
		if (m & ~TB_FM_0X)
			tb_pf_fm_get(p, (m & ~TB_FM_0X) - 1, &d);
		if (!fop_shape(op, f, (m & ~TB_FM_0X) ? &d : NULL))
			op->shape = 0; /* kind stays FK_ANY (the memset) */
		p->n_fops++;
	}
}

/* The usual field at q, where room bytes may be written (at least its
 * name, " =0x" and TB_NUM_AT_ROOM): returns the end, *last its last byte;
 * NULL, having written nothing, for any other field.  The record is
 * passed by value: the stores through q could alias a struct. */
static char *fop_fast(const tb_render_fop_ *op, const uint8_t *data, size_t len, int be,
		      char *q, size_t room, char *last)
{
	size_t nl = op->name_len;
	unsigned sh = op->shape;
	uint64_t v;
	char sign = 0;
	if (!op->size || op->offset > len || len - op->offset < op->size ||
	    nl + 4 + TB_NUM_AT_ROOM > room)
		return NULL;
	v = tb_load_n(data + op->offset, op->size, be);
	if (op->keep < 8)
		v &= (UINT64_C(1) << (8u * op->keep)) - 1;
	if (op->sext) {
		if (op->sext < 8)
			v &= (UINT64_C(1) << (8u * op->sext)) - 1;
		v = tb_extend(v, op->sext, 1);
		if (v >> 63) {
			sign = '-';
			v = 0 - v;
		}
	}
	q[0] = ' ';
	tb_copy_short(q + 1, op->name, nl);
	q += nl + 1;
	*q++ = '=';
	if (sh & FOP_LIT) {
		q[0] = '0';
		q[1] = 'x';
		q += 2;
	}
	switch (op->kind) {
	case FK_DEC:
		return tb_num_at(q, v, 0, 0, sign, 0, 0, 0, 0, last);
	case FK_HEX_PFX:
		return tb_num_at(q, v, 1, 0, 0, 1, 0, 0, 0, last);
	case FK_HEX:
		return tb_num_at(q, v, 1, 0, 0, 0, 0, 0, 0, last);
	case FK_HEX_ZERO:
		return tb_num_at(q, v, 1, 0, 0, 0, op->width, 1, 0, last);
	default:
		return tb_num_at(q, v, (sh & FOP_HEX) != 0, (sh & FOP_UPPER) != 0, sign,
				 (sh & FOP_PFX) || ((sh & FOP_PFX_NZ) && v), op->width,
				 (sh & FOP_ZERO) != 0, (sh & FOP_LEFT) != 0, last);
	}
}

int tb_pf_forgot_text(const tb_render_prog *p, uint32_t k)
{
	if (p->mode != TB_M_FIELDS || k >= p->n_fops)
		return 0;
	return ((uint8_t)p->text[(size_t)TB_FM_ENTRY * p->fops[k].field] & TB_TF_STRING) &&
	       !(p->fops[k].tf & TB_TF_STRING);
}

void tb_pf_run_fields(const tb_render_prog *p, tb_render_prog *keep,
		      const tb_render_env *env, const tb_reader *rec, tb_out *o,
		      unsigned *notes)
{
	fctx c;
	tb_render_dir_ d;
	c.p = p;
	c.env = env;
	c.rec = rec;
	c.o = o;
	c.notes = 0;
	for (uint32_t k = 0, nops = p->n_fops; k < nops; k++) {
		const tb_render_fop_ *op = &p->fops[k];
		const tb_field *f = &p->ev.fields[op->field];
		unsigned m = op->conv;
		if (o->len < o->cap && o->len == o->need) {
			/* the run of usual fields, with the sink in locals (a
			 * full sink, or one with no buffer at all (cap 0), has
			 * every field counted below) */
			char *q = o->buf + o->len, *e, last = 0;
			size_t room = o->cap - o->len, lim = o->limit - o->need;
			if (lim < room)
				room = lim;
			while ((e = fop_fast(op, rec->data, rec->len, rec->big_endian, q, room,
					     &last)) != NULL) {
				room -= (size_t)(e - q);
				q = e;
				if (++k == nops)
					break;
				op = &p->fops[k];
			}
			if (q != o->buf + o->len) {
				o->len = (size_t)(q - o->buf);
				o->need = o->len;
				o->last = last;
			}
			if (k == nops)
				break;
			f = &p->ev.fields[op->field];
			m = op->conv;
		}
		if (o->len == o->need && (size_t)f->name_len + 2 <= o->cap - o->len &&
		    (size_t)f->name_len + 2 <= o->limit - o->need) {
			/* " name=" straight into the sink */
			char *q = o->buf + o->len;
			size_t n = (size_t)f->name_len + 2;
			q[0] = ' ';
			tb_copy_short(q + 1, f->name, f->name_len);
			q[n - 1] = '=';
			o->len += n;
			o->need += n;
			o->last = '=';
		} else {
			tb_out_putc(o, ' ');
			tb_out_put(o, f->name, f->name_len);
			tb_out_putc(o, '=');
		}
		if (!(m & ~TB_FM_0X)) {
			/* tb_render: the flags as compiled, whatever a
			 * tb_render_stateful before remembered */
			unsigned tf = keep ? op->tf : (uint8_t)p->text[(size_t)TB_FM_ENTRY * op->field];
			if (put_raw(&c, f, tf) && keep)
				keep->fops[k].tf &= (uint8_t)~TB_TF_STRING;
			continue;
		}
		if (m & TB_FM_0X)
			tb_out_put(o, "0x", 2);
		tb_pf_fm_get(p, (m & ~TB_FM_0X) - 1, &d);
		put_conv(&c, &d, f, op->tf);
	}
	*notes |= c.notes;
}
