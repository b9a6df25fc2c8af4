/*
 * Run a compiled print fmt over one record (render.h).
 *
 * Every read from the record goes through the bounds-checked reader;
 * dynamic fields are clamped to the record; the recursion over the
 * expression tree is bounded by the node depth the compiler checked.
 */
#include <string.h>

#include "printfmt.h"
#include "render_out.h"

/* ------------------------------------------------------- the evaluator */

typedef struct ev {
	const tb_render_prog *p;
	const tb_render_env *env;
	tb_reader rec;
	tb_out *o;
	unsigned lsz;        /* long size (8 when unknown) */
	unsigned notes;
	const char *bad;     /* marker for the value being evaluated */
} ev;

/* e: an evaluator of prog over the record, into o (env NULL: none). */
TB_ALWAYS_INLINE void ev_start(ev *e, const tb_render_prog *prog, const tb_render_env *env,
			       tb_out *o, const void *record, size_t record_len)
{
	memset(e, 0, sizeof(*e));
	e->p = prog;
	e->env = env;
	e->o = o;
	e->lsz = prog->ev.long_size == 4 ? 4 : 8;
	tb_rd_init(&e->rec, record, record_len, prog->ev.big_endian);
}

typedef struct val {
	uint64_t v;
	unsigned ty;
} val;

/* Bytes of a field, an element or a dynamic array, inside the record. */
typedef struct ref {
	const uint8_t *p;
	size_t len;
	unsigned elem;      /* element size (1 for text) */
	int sgn;            /* signed elements */
	int ok;
} ref;

static void mark_bad(ev *e, unsigned note, const char *marker)
{
	e->notes |= note;
	if (!e->bad)
		e->bad = marker;
}

static const tb_field *fld(const ev *e, uint64_t idx)
{
	return &e->p->ev.fields[idx];
}

/* The bytes [off, off+len) of the record, clamped to it. */
static ref span(ev *e, uint64_t off, uint64_t len, unsigned elem, int sgn)
{
	ref r;
	memset(&r, 0, sizeof(r));
	r.elem = elem ? elem : 1;
	r.sgn = sgn;
	if (off > e->rec.len) {
		mark_bad(e, TB_RENDER_N_OOR, TB_RENDER_M_OOR);
		return r;
	}
	if (len > e->rec.len - off) {
		mark_bad(e, TB_RENDER_N_OOR, TB_RENDER_M_OOR);
		len = e->rec.len - off;
	}
	/* an empty record may have no data pointer at all */
	r.p = e->rec.data ? e->rec.data + off : (const uint8_t *)"";
	r.len = (size_t)len;
	r.ok = 1;
	return r;
}

/* Where a field's data lies: for dynamic kinds, what its loc word says. */
static ref field_ref(ev *e, const tb_field *f)
{
	uint64_t o, l;
	unsigned elem = f->elem_size ? f->elem_size : 1;
	switch (tb_pf_kind(f)) {
	case TB_RF_DATA_LOC:
	case TB_RF_REL_LOC:
	case TB_RF_DATA_LOC16:
		/* (a legacy offset past the record: span marks it) */
		if (!tb_field_loc(f, &e->rec, &o, &l))
			return span(e, UINT64_MAX, 0, elem, tb_pf_signed(f));
		return span(e, o, l, elem, tb_pf_signed(f));
	case TB_RF_REST:
		if (f->offset > e->rec.len)
			return span(e, UINT64_MAX, 0, elem, tb_pf_signed(f));
		return span(e, f->offset, e->rec.len - f->offset, elem, tb_pf_signed(f));
	default:
		return span(e, f->offset, f->size,
			    tb_pf_kind(f) == TB_RF_ARRAY ? elem : f->size, tb_pf_signed(f));
	}
}

static uint64_t load_elem(const ev *e, const uint8_t *p, unsigned size, int sgn)
{
	uint64_t v = tb_load_n(p, size, e->rec.big_endian);
	return tb_ty_norm(v, size | (sgn ? 0u : TB_TY_UNSIGNED));
}

static val ev_int(ev *e, unsigned n);
static ref ev_ref(ev *e, unsigned n);

static val mkval(uint64_t v, unsigned ty)
{
	val r = { tb_ty_norm(v, ty), ty };
	return r;
}

static uint32_t dyn_len(ev *e, const tb_field *f)
{
	uint64_t o, l;
	if (tb_pf_kind(f) == TB_RF_DATA_LOC || tb_pf_kind(f) == TB_RF_REL_LOC) {
		if (tb_field_loc(f, &e->rec, &o, &l))
			return (uint32_t)l;
		mark_bad(e, TB_RENDER_N_OOR, TB_RENDER_M_OOR);
		return 0;
	}
	return (uint32_t)field_ref(e, f).len;
}

static val ev_index(ev *e, const tb_render_node_ *nd)
{
	ref r = ev_ref(e, nd->a);
	val i = ev_int(e, nd->b);
	unsigned el = r.elem;
	if (!r.ok || (el != 1 && el != 2 && el != 4 && el != 8)) {
		mark_bad(e, TB_RENDER_N_OOR, TB_RENDER_M_OOR);
		return mkval(0, TB_TY_ULONG);
	}
	/* i < len / el: no multiplication that could wrap */
	if (i.v >= r.len / el) {
		mark_bad(e, TB_RENDER_N_OOR, TB_RENDER_M_OOR);
		return mkval(0, TB_TY_ULONG);
	}
	return mkval(load_elem(e, r.p + i.v * el, el, r.sgn),
		     tb_ty_promote(el | (r.sgn ? 0u : TB_TY_UNSIGNED)));
}

/* A field's value as an operand. */
TB_ALWAYS_INLINE val field_int(ev *e, const tb_render_node_ *nd)
{
	const tb_field *f = fld(e, nd->v);
	uint64_t v;
	if (tb_pf_kind(f) != TB_RF_SCALAR)
		return mkval(0, TB_TY_ULONG); /* an address */
	if (f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8)
		return mkval(0, TB_TY_ULONG);
	if (!tb_rd_uN_at(&e->rec, f->offset, f->size, &v)) {
		mark_bad(e, TB_RENDER_N_OOR, TB_RENDER_M_OOR);
		return mkval(0, nd->ty);
	}
	return mkval(tb_ty_norm(v, nd->ty), tb_ty_promote(nd->ty));
}

/* ev_int with its leaves (numbers, fields: most operands) evaluated in
 * place: a call of the recursive ev_int costs more than a leaf. */
TB_ALWAYS_INLINE val int_of(ev *e, unsigned n)
{
	const tb_render_node_ *nd = &e->p->nodes[n];
	if (nd->op == TB_N_NUM)
		return mkval(nd->v, nd->ty);
	if (nd->op == TB_N_FIELD)
		return field_int(e, nd);
	return ev_int(e, n);
}

static val ev_int(ev *e, unsigned n)
{
	const tb_render_node_ *nd = &e->p->nodes[n];
	val a, b;
	switch (nd->op) {
	case TB_N_NUM:
		return mkval(nd->v, nd->ty);
	case TB_N_FIELD:
		return field_int(e, nd);
	case TB_N_INDEX:
		return ev_index(e, nd);
	case TB_N_UNARY:
		a = int_of(e, nd->a);
		a.v = tb_ty_norm(a.v, nd->ty);
		if (nd->v == '-')
			return mkval(0 - a.v, nd->ty);
		if (nd->v == '~')
			return mkval(~a.v, nd->ty);
		return mkval(a.v == 0, TB_TY_INT);
	case TB_N_BIN: {
		uint64_t r;
		unsigned ty;
		a = int_of(e, nd->a);
		if (nd->v == TB_OP_LAND && !a.v)
			return mkval(0, TB_TY_INT);
		if (nd->v == TB_OP_LOR && a.v)
			return mkval(1, TB_TY_INT);
		b = int_of(e, nd->b);
		if (nd->v == TB_OP_BAND) {
			/* a flags mask, the commonest: tb_pf_binop's & without
			 * its call (both sides in the common type, so is the &) */
			ty = tb_ty_arith(a.ty, b.ty);
			return mkval(tb_ty_norm(a.v, ty) & tb_ty_norm(b.v, ty), ty);
		}
		if (!tb_pf_binop((unsigned)nd->v, a.v, a.ty, b.v, b.ty, &r, &ty)) {
			mark_bad(e, TB_RENDER_N_DIV0, TB_RENDER_M_DIV0);
			return mkval(0, nd->ty);
		}
		return mkval(r, ty);
	}
	case TB_N_TERN:
		a = int_of(e, nd->a);
		b = int_of(e, a.v ? nd->b : nd->c);
		return mkval(b.v, b.ty);
	case TB_N_CAST:
		a = int_of(e, nd->a);
		if (nd->v & TB_CAST_BOOL)
			return mkval(a.v != 0, TB_TY_INT);
		/* cut to the cast's own width, then promoted: (u8)-7 is 249 */
		return mkval(tb_ty_norm(a.v, nd->ty), tb_ty_promote(nd->ty));
	case TB_N_CALL:
		if ((nd->v & 0xff) == TB_H_GET_DYN_LEN)
			return mkval(dyn_len(e, fld(e, nd->v >> 8)), TB_TY_UINT);
		return mkval(0, TB_TY_ULONG);
	default: /* strings, addresses, REC: no reproducible number */
		return mkval(0, TB_TY_ULONG);
	}
}

static ref no_ref(void)
{
	ref r;
	memset(&r, 0, sizeof(r));
	r.elem = 1;
	return r;
}

static ref ev_ref(ev *e, unsigned n)
{
	const tb_render_node_ *nd = &e->p->nodes[n];
	switch (nd->op) {
	case TB_N_FIELD:
		if (tb_pf_kind(fld(e, nd->v)) == TB_RF_SCALAR)
			return no_ref(); /* a kernel pointer */
		return field_ref(e, fld(e, nd->v));
	case TB_N_ADDR: {
		const tb_render_node_ *in = &e->p->nodes[nd->a];
		if (in->op == TB_N_FIELD)
			return field_ref(e, fld(e, in->v));
		if (in->op == TB_N_INDEX) {
			ref r = ev_ref(e, in->a);
			val i = ev_int(e, in->b);
			if (!r.ok || i.v > r.len / r.elem)
				return no_ref();
			r.p += i.v * r.elem;
			r.len -= (size_t)i.v * r.elem;
			return r;
		}
		return no_ref();
	}
	case TB_N_CALL:
		switch (nd->v & 0xff) {
		case TB_H_GET_STR:
		case TB_H_GET_DYN:
		case TB_H_GET_BITMASK:
		case TB_H_GET_CPUMASK:
		case TB_H_GET_SOCKADDR:
			return field_ref(e, fld(e, nd->v >> 8));
		default:
			return no_ref();
		}
	case TB_N_STR: {
		ref r = no_ref();
		r.p = (const uint8_t *)e->p->text + (nd->v >> 32);
		r.len = (size_t)(nd->v & 0xffffffffu);
		r.ok = 1;
		return r;
	}
	case TB_N_TERN:
		return ev_ref(e, ev_int(e, nd->a).v ? nd->b : nd->c);
	case TB_N_CAST: {
		ref r = ev_ref(e, nd->a);
		unsigned el = (unsigned)(nd->v >> 8) & 0xff;
		if ((nd->v & TB_CAST_PTR) && el) { /* ((u32 *)x)[i] */
			r.elem = el;
			r.sgn = (int)(nd->v >> 16) & 1;
		}
		return r;
	}
	default:
		return no_ref();
	}
}

/* ------------------------------------------------------- text helpers */

static size_t text_len(const ref *r)
{
	const uint8_t *z = r->len ? (const uint8_t *)memchr(r->p, 0, r->len) : NULL;
	return z ? (size_t)(z - r->p) : r->len;
}

static void put_ref_text(ev *e, const ref *r)
{
	if (r->ok)
		tb_out_put(e->o, (const char *)r->p, text_len(r));
}

/* The text of a string literal node (delimiters, flag names). */
static void put_literal(ev *e, unsigned n)
{
	const tb_render_node_ *nd = &e->p->nodes[n];
	if (nd->op == TB_N_STR)
		tb_out_put(e->o, e->p->text + (nd->v >> 32),
			   (size_t)(nd->v & 0xffffffffu));
}

/* A table value built from an enum name the kernel left unresolved: its
 * real value is not in the capture, so as a flag it matches nothing (as
 * 0 it would match every value and print every name). */
static int unresolved(const ev *e, unsigned n)
{
	const tb_render_node_ *nd = &e->p->nodes[n];
	return nd->op == TB_N_NUM && (nd->ty & TB_TY_UNKNOWN);
}

static uint64_t ulong_of(const ev *e, uint64_t v, int u64)
{
	return (u64 || e->lsz == 8) ? v : (v & 0xffffffffu);
}

static void print_flags(ev *e, const tb_render_node_ *nd, int u64)
{
	unsigned valn = nd->a, delim = e->p->nodes[valn].next, pr;
	uint64_t flags = ulong_of(e, int_of(e, valn).v, u64);
	int first = 1, unres = 0;
	for (pr = e->p->nodes[delim].next; pr && flags; pr = e->p->nodes[pr].next) {
		const tb_render_node_ *pn = &e->p->nodes[pr];
		uint64_t mask;
		if (pn->op != TB_N_PAIR)
			continue;
		if (unresolved(e, pn->a)) {
			unres = 1;
			continue;
		}
		mask = ulong_of(e, int_of(e, pn->a).v, u64);
		if ((flags & mask) != mask)
			continue;
		flags &= ~mask;
		if (!first)
			put_literal(e, delim);
		first = 0;
		put_literal(e, pn->b);
	}
	if (flags) {
		if (!first)
			put_literal(e, delim);
		tb_out_hex(e->o, flags);
		if (unres)
			e->notes |= TB_RENDER_N_UNRESOLVED;
	}
}

static void print_symbolic(ev *e, const tb_render_node_ *nd, int u64)
{
	uint64_t v = ulong_of(e, int_of(e, nd->a).v, u64);
	size_t before = e->o->need;
	int unres = 0;
	for (unsigned pr = e->p->nodes[nd->a].next; pr; pr = e->p->nodes[pr].next) {
		const tb_render_node_ *pn = &e->p->nodes[pr];
		/* an unresolved name counts as 0 here, as trace-cmd has it */
		if (pn->op != TB_N_PAIR)
			continue;
		unres |= unresolved(e, pn->a);
		/* perf's libtraceevent matches no value with such a name */
		if ((e->p->options & TB_RENDER_PERF_STYLE) && unresolved(e, pn->a))
			continue;
		if (ulong_of(e, int_of(e, pn->a).v, u64) == v) {
			put_literal(e, pn->b);
			break;
		}
	}
	if (e->o->need == before)
		tb_out_hex(e->o, v);
	if (unres) /* a name matched as 0, or the value may be one of them */
		e->notes |= TB_RENDER_N_UNRESOLVED;
}

static void print_hex(ev *e, ref r, int64_t n, int concat)
{
	if (!r.ok)
		return;
	if (n < 0)
		n = 0;
	if ((uint64_t)n > r.len) {
		mark_bad(e, TB_RENDER_N_OOR, NULL);
		n = (int64_t)r.len;
	}
	for (int64_t i = 0; i < n; i++) {
		if (!concat && i)
			tb_out_putc(e->o, ' ');
		tb_pf_put_byte_hex(e->o, r.p[i]);
	}
}

static void print_array(ev *e, ref r, uint64_t count, uint64_t el)
{
	uint64_t i;
	tb_out_putc(e->o, '{');
	if (r.ok) {
		int bad = el != 1 && el != 2 && el != 4 && el != 8;
		/* every element read lies inside the array */
		uint64_t fit = bad ? (r.len ? 1 : 0) : r.len / el;
		if (count > fit) {
			mark_bad(e, TB_RENDER_N_OOR, NULL);
			count = fit;
		}
		for (i = 0; i < count; i++) {
			if (i)
				tb_out_putc(e->o, ',');
			if (bad) {
				tb_out_puts(e->o, "BAD SIZE:");
				tb_out_u64(e->o, el);
				tb_out_puts(e->o, " ");
				tb_out_hex(e->o, r.p[0]);
			} else {
				tb_out_hex(e->o, load_elem(e, r.p + i * el, (unsigned)el, 0));
			}
		}
	}
	tb_out_putc(e->o, '}');
}

/* Bit b of a bitmap made of longs in the traced byte order. */
static int bit_at(const ev *e, const ref *r, size_t b)
{
	size_t ls = e->lsz, word = b / (ls * 8), bit = b % (ls * 8), byte;
	byte = e->rec.big_endian ? ls - 1 - bit / 8 : bit / 8;
	byte += word * ls;
	if (byte >= r->len)
		return 0;
	return (r->p[byte] >> (bit % 8)) & 1;
}

/* The kernel's "%*pb": 32-bit chunks in hex, most significant first. */
static void print_bitmask(ev *e, const ref *r)
{
	size_t nbits = r->len * 8, chunk, i;
	int first = 1;
	if (!r->ok || !nbits)
		return;
	chunk = nbits % 32 ? nbits % 32 : 32;
	for (i = ((nbits + 31) / 32) * 32 - 32;; i -= 32) {
		uint32_t v = 0;
		for (size_t k = chunk; k-- > 0;)
			v = v << 1 | (uint32_t)bit_at(e, r, i + k);
		if (!first)
			tb_out_putc(e->o, ',');
		first = 0;
		tb_out_hexw(e->o, v, (int)((chunk + 3) / 4));
		chunk = 32;
		if (i == 0)
			break;
	}
}

/* A CPU list like "0-3,8" (the kernel's "%*pbl", libtraceevent's cpumask). */
static void print_cpulist(ev *e, const ref *r)
{
	size_t nbits = r->ok ? r->len * 8 : 0, b = 0;
	int first = 1;
	while (b < nbits) {
		size_t end;
		if (!bit_at(e, r, b)) {
			b++;
			continue;
		}
		end = b;
		while (end + 1 < nbits && bit_at(e, r, end + 1))
			end++;
		if (!first)
			tb_out_putc(e->o, ',');
		first = 0;
		tb_out_u64(e->o, b);
		if (end > b) {
			tb_out_putc(e->o, '-');
			tb_out_u64(e->o, end);
		}
		b = end + 1;
	}
}

static int printk_lookup(ev *e, uint64_t addr, const char **s, size_t *n);

/* Emit the text of node n, as "%s" would print it. */
static void ev_text(ev *e, unsigned n)
{
	const tb_render_node_ *nd = &e->p->nodes[n];
	ref r;
	switch (nd->op) {
	case TB_N_STR:
		put_literal(e, n);
		return;
	case TB_N_TERN:
		ev_text(e, int_of(e, nd->a).v ? nd->b : nd->c);
		return;
	case TB_N_CAST:
		if (e->p->nodes[nd->a].op != TB_N_NUM) {
			ev_text(e, nd->a);
			return;
		}
		break;
	case TB_N_FIELD:
		if (tb_pf_kind(fld(e, nd->v)) == TB_RF_SCALAR)
			break;
		r = field_ref(e, fld(e, nd->v));
		put_ref_text(e, &r);
		return;
	case TB_N_CALL:
		switch (nd->v & 0xff) {
		case TB_H_GET_STR:
			/* to its NUL, as %s reads it in the kernel and in
			 * trace-cmd, past a length that has none (but never
			 * past the record) */
			r = ev_ref(e, n);
			if (r.ok && r.len)
				r.len = e->rec.len - (size_t)(r.p - e->rec.data);
			put_ref_text(e, &r);
			return;
		case TB_H_GET_DYN:
		case TB_H_GET_SOCKADDR:
			r = ev_ref(e, n);
			put_ref_text(e, &r);
			return;
		case TB_H_GET_BITMASK:
			r = ev_ref(e, n);
			print_bitmask(e, &r);
			return;
		case TB_H_GET_CPUMASK:
			r = ev_ref(e, n);
			if (e->p->options & TB_RENDER_CPUMASK_LIST)
				print_cpulist(e, &r);
			else
				print_bitmask(e, &r);
			return;
		case TB_H_PRINT_FLAGS:
		case TB_H_PRINT_FLAGS_U64:
			print_flags(e, nd, (nd->v & 0xff) == TB_H_PRINT_FLAGS_U64);
			return;
		case TB_H_PRINT_SYMBOLIC:
		case TB_H_PRINT_SYMBOLIC_U64:
			print_symbolic(e, nd, (nd->v & 0xff) == TB_H_PRINT_SYMBOLIC_U64);
			return;
		case TB_H_PRINT_HEX:
		case TB_H_PRINT_HEX_STR:
			print_hex(e, ev_ref(e, nd->a),
				  (int32_t)ev_int(e, e->p->nodes[nd->a].next).v,
				  (nd->v & 0xff) == TB_H_PRINT_HEX_STR);
			return;
		case TB_H_PRINT_ARRAY: {
			unsigned cn = e->p->nodes[nd->a].next;
			unsigned en = e->p->nodes[cn].next;
			print_array(e, ev_ref(e, nd->a), ev_int(e, cn).v,
				    ev_int(e, en).v);
			return;
		}
		case TB_H_PRINT_DYN_ARRAY: {
			uint64_t el = ev_int(e, nd->a).v;
			r = field_ref(e, fld(e, nd->v >> 8));
			print_array(e, r, el ? r.len / el : 0, el);
			return;
		}
		default:
			break;
		}
		break;
	default:
		break;
	}
	/* a number where text is expected: a kernel pointer to a string,
	 * found in printk_formats when it is a tracepoint_string */
	{
		uint64_t a = ev_int(e, n).v;
		const char *s;
		size_t len;
		if (printk_lookup(e, a, &s, &len))
			tb_out_put(e->o, s, len);
		else
			tb_out_hex(e->o, a);
	}
}

/* ------------------------------------------------- printf conversions */

typedef struct spec {
	int flags, width, prec;
	unsigned lenmod;
	char conv;
	const char *pext;
} spec;

static unsigned lenmod_width(const ev *e, unsigned lenmod)
{
	return tb_pf_lenmod_width(lenmod, e->lsz);
}

static void put_int_conv(ev *e, const spec *sp, uint64_t v)
{
	unsigned w = lenmod_width(e, sp->lenmod), base = 10;
	int flags = sp->flags;
	if (sp->conv == 'c') {
		int width = sp->width;
		if (!(flags & TB_NF_LEFT))
			while (--width > 0)
				tb_out_putc(e->o, ' ');
		tb_out_putc(e->o, (char)(uint8_t)v);
		while (--width > 0)
			tb_out_putc(e->o, ' ');
		return;
	}
	if (sp->conv == 'd' || sp->conv == 'i') {
		v = tb_ty_norm(v, w);
		flags |= TB_NF_SIGN;
	} else {
		v = tb_ty_norm(v, w | TB_TY_UNSIGNED);
		base = sp->conv == 'o' ? 8 : sp->conv == 'u' ? 10 : 16;
		if (sp->conv == 'X')
			flags |= TB_NF_UPPER;
	}
	if (sp->width <= 0 && sp->prec < 0 && base != 8 &&
	    !(flags & (TB_NF_PLUS | TB_NF_SPACE | TB_NF_SPECIAL | TB_NF_UPPER))) {
		/* "%d", "%u", "%x" with no width, precision or flag (the
		 * commonest): what tb_out_number prints, its flags constant */
		int neg = (flags & TB_NF_SIGN) && (int64_t)v < 0;
		if (base == 10 ? tb_out_int_fast(e->o, neg ? 0 - v : v, 0, 0, (char)(neg ? '-' : 0), 0, 0, 0, 0)
			       : tb_out_int_fast(e->o, v, 1, 0, 0, 0, 0, 0, 0))
			return;
	}
	tb_out_number(e->o, v, base, flags, sp->width, sp->prec);
}

/* The kernel prints a pointer it will not reveal as a hash; the hash is
 * not in the capture, so print the value the way "%px" would. */
static void put_pointer(ev *e, const spec *sp, uint64_t v)
{
	int flags = sp->flags, width = sp->width;
	if (e->p->options & TB_RENDER_PERF_STYLE) {
		/* C's "%p" (perf's libtraceevent hands it to printf) */
		v = ulong_of(e, v, 0);
		if (v) {
			tb_out_number(e->o, v, 16, flags | TB_NF_SPECIAL, width, sp->prec);
			return;
		}
		if (!(flags & TB_NF_LEFT))
			for (; width > 5; width--)
				tb_out_putc(e->o, ' ');
		tb_out_puts(e->o, "(nil)");
		for (; width > 5; width--)
			tb_out_putc(e->o, ' ');
		return;
	}
	if (width == -1) {
		width = (int)(2 * e->lsz);
		flags |= TB_NF_ZEROPAD;
	}
	tb_out_number(e->o, ulong_of(e, v, 0), 16, flags, width, sp->prec);
}

static void put_symbol(ev *e, const spec *sp, uint64_t addr)
{
	const char *name, *mod = NULL;
	size_t nlen, mlen = 0;
	uint64_t start, size;
	int offset = sp->pext[0] == 'S' || sp->pext[0] == 'F' || sp->pext[0] == 'B';
	int found;
	addr = ulong_of(e, addr, 0);
	found = tb_pf_sym(e->env, addr, &name, &nlen, &start, &size, &mod, &mlen);
	if (found < 0) {
		e->notes |= TB_RENDER_N_NOLOOKUP;
	} else if (found) {
		tb_out_put(e->o, name, nlen);
		if (offset) {
			tb_out_putc(e->o, '+');
			tb_out_hex(e->o, addr - start);
			/* the kernel's "fn+0x10/0x2a0", when the size is known */
			if (size && (e->p->options & TB_RENDER_KERNEL_STYLE)) {
				tb_out_putc(e->o, '/');
				tb_out_hex(e->o, size);
			}
		}
		if (mod && mlen) {
			tb_out_puts(e->o, " [");
			tb_out_put(e->o, mod, mlen);
			tb_out_putc(e->o, ']');
		}
		return;
	}
	tb_out_hex(e->o, addr); /* what the kernel prints for no symbol */
}

/* Does the NUL-terminated s hold c (c != 0)? */
static int has(const char *s, char c)
{
	for (; *s; s++)
		if (*s == c)
			return 1;
	return 0;
}

/* %pI4 %pi4 %pI6 %pi6 %pI6c %pIS[pcfs]: addresses from the record. */
static void put_ip(ev *e, const spec *sp, const ref *r)
{
	const char *x = sp->pext + 1; /* after I/i */
	int lower_i = sp->pext[0] == 'i';
	if (x[0] == '4' && r->len >= 4) {
		tb_pf_put_ip4(e->o, r->p, lower_i);
	} else if (x[0] == '6' && r->len >= 16) {
		if (!lower_i && x[1] == 'c')
			tb_pf_put_ip6_compressed(e->o, r->p);
		else
			tb_pf_put_ip6_full(e->o, r->p, !lower_i);
	} else if (x[0] == 'S' && r->len >= 2) {
		unsigned fam = tb_load16(r->p, e->rec.big_endian);
		int port = has(x, 'p'), c = has(x, 'c');
		uint8_t buf16[16];
		if (fam == 2 && r->len >= 8) {
			tb_pf_put_ip4(e->o, r->p + 4, lower_i);
			if (port) {
				tb_out_putc(e->o, ':');
				tb_out_u64(e->o, tb_load16(r->p + 2, 1));
			}
		} else if (fam == 10 && r->len >= 28) {
			int br = port || has(x, 'f') || has(x, 's');
			memcpy(buf16, r->p + 8, 16);
			if (br)
				tb_out_putc(e->o, '[');
			if (c && !lower_i)
				tb_pf_put_ip6_compressed(e->o, buf16);
			else
				tb_pf_put_ip6_full(e->o, buf16, !lower_i);
			if (br)
				tb_out_putc(e->o, ']');
			if (port) {
				tb_out_putc(e->o, ':');
				tb_out_u64(e->o, tb_load16(r->p + 2, 1));
			}
			if (has(x, 'f')) {
				tb_out_putc(e->o, '/');
				tb_out_u64(e->o, tb_load32(r->p + 4, 1) & 0x0fffffffu);
			}
			if (has(x, 's')) {
				tb_out_putc(e->o, '%');
				tb_out_u64(e->o, tb_load32(r->p + 24, e->rec.big_endian));
			}
		} else {
			tb_out_puts(e->o, "(einval)");
		}
	} else {
		mark_bad(e, TB_RENDER_N_OOR, NULL);
		tb_out_puts(e->o, "(efault)");
	}
}

static void put_mac(ev *e, const spec *sp, const ref *r)
{
	const char *sep = sp->pext[0] == 'm' ? "" : has(sp->pext, 'F') ? "-" : ":";
	int rev = has(sp->pext, 'R');
	if (r->len < 6) {
		mark_bad(e, TB_RENDER_N_OOR, NULL);
		tb_out_puts(e->o, "(efault)");
		return;
	}
	for (int i = 0; i < 6; i++) {
		if (i && *sep)
			tb_out_putc(e->o, *sep);
		tb_pf_put_byte_hex(e->o, r->p[rev ? 5 - i : i]);
	}
}

static void put_uuid(ev *e, const spec *sp, const ref *r)
{
	if (r->len < 16) {
		mark_bad(e, TB_RENDER_N_OOR, NULL);
		tb_out_puts(e->o, "(efault)");
		return;
	}
	tb_pf_put_uuid(e->o, r->p, sp->pext[1]);
}

static void put_hexdump(ev *e, const spec *sp, const ref *r)
{
	const char *sep = sp->pext[1] == 'C' ? ":" : sp->pext[1] == 'D' ? "-"
			: sp->pext[1] == 'N' ? "" : " ";
	size_t n = sp->width < 0 ? 1 : (size_t)sp->width;
	if (n > 64)
		n = 64; /* the kernel's cap */
	if (n > r->len) {
		mark_bad(e, TB_RENDER_N_OOR, NULL);
		n = r->len;
	}
	for (size_t i = 0; i < n; i++) {
		if (i && *sep)
			tb_out_putc(e->o, *sep);
		tb_pf_put_byte_hex(e->o, r->p[i]);
	}
}

/* A %p conversion whose argument is node n (or, for bprint, value v). */
static void put_p(ev *e, const spec *sp, unsigned n, uint64_t v, const ref *pre)
{
	char k = sp->pext[0];
	ref r;
	if (k == 'S' || k == 's' || k == 'F' || k == 'f' || k == 'B') {
		put_symbol(e, sp, n ? ev_int(e, n).v : v);
		return;
	}
	if (k == 'I' || k == 'i' || k == 'M' || k == 'm' || k == 'U' || k == 'h') {
		if (pre)
			r = *pre;
		else if (n)
			r = ev_ref(e, n);
		else
			r = no_ref();
		if (!r.ok) { /* a kernel pointer: its target is not captured */
			put_pointer(e, sp, n ? ev_int(e, n).v : v);
			return;
		}
		if (k == 'I' || k == 'i')
			put_ip(e, sp, &r);
		else if (k == 'M' || k == 'm')
			put_mac(e, sp, &r);
		else if (k == 'U')
			put_uuid(e, sp, &r);
		else
			put_hexdump(e, sp, &r);
		return;
	}
	put_pointer(e, sp, n ? ev_int(e, n).v : v);
}

static int clamp_width(ev *e, int64_t w)
{
	if (w > TB_RENDER_MAX_WIDTH || w < -TB_RENDER_MAX_WIDTH) {
		e->notes |= TB_RENDER_N_CLAMPED;
		return w < 0 ? -TB_RENDER_MAX_WIDTH : TB_RENDER_MAX_WIDTH;
	}
	return (int)w;
}

/* Width and precision from '*' arguments, as the kernel takes them. */
static void star_args(ev *e, spec *sp, int64_t w, int have_w, int64_t pr,
		      int have_p)
{
	if (have_w) {
		int x = clamp_width(e, (int32_t)w);
		if (x < 0) {
			sp->flags |= TB_NF_LEFT;
			x = -x;
		}
		sp->width = x;
	}
	if (have_p) {
		int x = clamp_width(e, (int32_t)pr);
		sp->prec = x < 0 ? 0 : x;
	}
}

static void spec_of(spec *sp, const tb_render_dir_ *d)
{
	sp->flags = d->flags;
	sp->width = d->width;
	sp->prec = d->prec;
	sp->lenmod = d->lenmod;
	sp->conv = (char)d->conv;
	sp->pext = d->pext;
}

static void put_marker(ev *e)
{
	tb_out_puts(e->o, e->bad);
}

static void run_dir(ev *e, const tb_render_dir_ *d)
{
	spec sp;
	tb_out_mark m;
	if (d->kind == TB_D_LIT) {
		tb_out_put(e->o, e->p->text + d->text_off, d->text_len);
		return;
	}
	spec_of(&sp, d);
	e->bad = NULL;
	star_args(e, &sp, d->warg ? (int64_t)ev_int(e, d->warg).v : 0, d->warg != 0,
		  d->parg ? (int64_t)ev_int(e, d->parg).v : 0, d->parg != 0);
	if (sp.flags & TB_NF_LEFT)
		sp.flags &= ~TB_NF_ZEROPAD;
	if (sp.conv == 's') {
		size_t lim = e->o->limit;
		m = tb_out_mark_here(e->o);
		if (sp.prec >= 0)
			lim = tb_out_limit(e->o, (size_t)sp.prec);
		ev_text(e, d->arg);
		tb_out_unlimit(e->o, lim);
		if (sp.width > 0)
			tb_out_pad(e->o, m, (size_t)sp.width, sp.flags & TB_NF_LEFT);
		return;
	}
	if (sp.conv == 'p') {
		put_p(e, &sp, d->arg, 0, NULL);
		return;
	}
	{
		val v = ev_int(e, d->arg);
		if (e->p->nodes[d->arg].ty & TB_TY_UNKNOWN)
			e->notes |= TB_RENDER_N_UNRESOLVED;
		if (e->bad)
			put_marker(e);
		else
			put_int_conv(e, &sp, v.v);
	}
}

/* ---------------------------------------------------- the fallback */

static void put_field_value(ev *e, const tb_field *f)
{
	uint64_t v;
	if (tb_pf_kind(f) != TB_RF_SCALAR) {
		ref r = field_ref(e, f);
		if (tb_pf_text(f)) {
			put_ref_text(e, &r);
			return;
		}
		tb_out_puts(e->o, "ARRAY[");
		for (size_t i = 0; r.ok && i < r.len; i++) {
			if (i)
				tb_out_puts(e->o, ", ");
			tb_pf_put_byte_hex(e->o, r.p[i]);
		}
		tb_out_putc(e->o, ']');
		return;
	}
	if (!tb_rd_uN_at(&e->rec, f->offset, f->size, &v)) {
		mark_bad(e, TB_RENDER_N_OOR, NULL);
		tb_out_puts(e->o, TB_RENDER_M_OOR);
		return;
	}
	if (tb_pf_signed(f) && !(tb_pf_long(f) && f->size == 4)) {
		tb_out_number(e->o, tb_ty_norm(v, f->size), 10, TB_NF_SIGN, -1, -1);
	} else if (tb_pf_long(f)) {
		tb_out_hex(e->o, f->size == 4 ? (v & 0xffffffffu) : v);
	} else {
		tb_out_u64(e->o, v);
	}
}

static void run_fallback(ev *e)
{
	const tb_render_event_ *evd = &e->p->ev;
	e->notes |= TB_RENDER_N_FALLBACK;
	tb_out_puts(e->o, TB_RENDER_FAILED);
	for (size_t i = 0; i < evd->n_fields; i++) {
		const tb_field *f = &evd->fields[i];
		if (tb_pf_common(f))
			continue;
		tb_out_putc(e->o, ' ');
		tb_out_put(e->o, f->name, f->name_len);
		tb_out_putc(e->o, '=');
		put_field_value(e, f);
	}
}

/* ------------------------------------------- the kernel's own printers */

static const tb_field *field_named(const ev *e, const char *name)
{
	const tb_render_event_ *evd = &e->p->ev;
	for (size_t i = 0; i < evd->n_fields; i++)
		if (tb_span_eq(evd->fields[i].name, evd->fields[i].name_len, name))
			return &evd->fields[i];
	return NULL;
}

static uint64_t scalar(ev *e, const tb_field *f)
{
	uint64_t v = 0;
	if (!f || !tb_rd_uN_at(&e->rec, f->offset, f->size, &v))
		mark_bad(e, TB_RENDER_N_OOR, NULL);
	return v;
}

/*
 * The kernel's syscall printers, their fields resolved when compiled
 * (p->fops, which take the room of the nodes the print fmt compiled into:
 * this mode never runs them): for sys_enter_X every scalar argument but
 * __syscall_nr, in order; for sys_exit_X the "ret" field, or none.
 */
void tb_pf_plan_syscall(tb_render_prog *p, int enter)
{
	const tb_render_event_ *evd = &p->ev;
	p->n_nodes = 0;
	p->n_fops = 0;
	for (size_t i = 0; i < evd->n_fields && p->n_fops < TB_FORMAT_MAX_FIELDS; i++) {
		const tb_field *f = &evd->fields[i];
		tb_render_fop_ *op = &p->fops[p->n_fops];
		if (enter ? tb_pf_common(f) || tb_span_eq(f->name, f->name_len, "__syscall_nr") ||
			    tb_pf_kind(f) != TB_RF_SCALAR
			  : !tb_span_eq(f->name, f->name_len, "ret"))
			continue;
		tb_pf_fop_start(op, f, i);
		op->size = (uint8_t)(f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8
				     ? f->size : 0);
		p->n_fops++;
		if (!enter)
			break;
	}
}

/* The value of a syscall printer's field: the record's bytes as an
 * unsigned long; 0, marked, when they are not there. */
static uint64_t sys_value(ev *e, const tb_render_fop_ *op)
{
	uint64_t v = 0;
	if (op->size && op->offset <= e->rec.len && e->rec.len - op->offset >= op->size)
		v = tb_load_n(e->rec.data + op->offset, op->size, e->rec.big_endian);
	else
		mark_bad(e, TB_RENDER_N_OOR, NULL);
	return ulong_of(e, v, 0);
}

/* sys_enter_X: "sys_X(arg: 0x.., ...)"; sys_exit_X: "sys_X -> 0x..". */
static void run_syscall(ev *e, int enter)
{
	const tb_render_prog *p = e->p;
	const tb_render_event_ *evd = &p->ev;
	size_t skip = enter ? strlen("sys_enter_") : strlen("sys_exit_");
	size_t nl = evd->name_len - skip;
	tb_out *o = e->o;
	char *q = tb_out_room(o, nl + 8);
	if (q) {
		q[0] = 's';
		q[1] = 'y';
		q[2] = 's';
		q[3] = '_';
		tb_copy_short(q + 4, evd->name + skip, nl);
		q += 4 + nl;
		if (enter) {
			q[0] = '(';
		} else {
			q[0] = ' ';
			q[1] = '-';
			q[2] = '>';
			q[3] = ' ';
		}
		tb_out_took(o, nl + (enter ? 5 : 8));
	} else {
		tb_out_put(o, "sys_", 4);
		tb_out_put(o, evd->name + skip, nl);
		tb_out_puts(o, enter ? "(" : " -> ");
	}
	if (!enter) {
		uint64_t v = p->n_fops ? sys_value(e, &p->fops[0]) : ulong_of(e, scalar(e, NULL), 0);
		/* "0x.." in place, its flags constant */
		if (!tb_out_int_fast(o, v, 1, 0, 0, 1, 0, 0, 0))
			tb_out_hex(o, v);
		return;
	}
	for (uint32_t k = 0; k < p->n_fops; k++) {
		const tb_render_fop_ *op = &p->fops[k];
		uint64_t v = sys_value(e, op);
		size_t n = op->name_len;
		char last;
		/* "[, ]name: " and the value in place: one room check */
		if ((q = tb_out_room(o, n + 4 + TB_NUM_AT_ROOM)) != NULL) {
			char *s = q;
			if (k) {
				q[0] = ',';
				q[1] = ' ';
				q += 2;
			}
			tb_copy_short(q, op->name, n);
			q[n] = ':';
			q[n + 1] = ' ';
			q += n + 2;
			if (v < 10) /* since 6.18 small values print in decimal */
				q = tb_num_at(q, v, 0, 0, 0, 0, 0, 0, 0, &last);
			else
				q = tb_num_at(q, v, 1, 0, 0, 1, 0, 0, 0, &last);
			o->len += (size_t)(q - s);
			o->need = o->len;
			o->last = last;
			continue;
		}
		if (k)
			tb_out_put(o, ", ", 2);
		tb_out_put(o, op->name, n);
		tb_out_put(o, ": ", 2);
		if (v < 10)
			tb_out_u64(o, v);
		else
			tb_out_hex(o, v);
	}
	tb_out_putc(o, ')');
}

static int printk_lookup(ev *e, uint64_t addr, const char **s, size_t *n)
{
	if (e->env && e->env->printk &&
	    e->env->printk(e->env->printk_ctx, addr, s, n))
		return 1;
	e->notes |= TB_RENDER_N_NOLOOKUP;
	return 0;
}

static void put_ip_prefix(ev *e)
{
	spec sp;
	memset(&sp, 0, sizeof(sp));
	sp.pext = "s";
	put_symbol(e, &sp, scalar(e, field_named(e, "ip")));
	tb_out_puts(e->o, ": ");
}

static void run_bputs(ev *e)
{
	const char *s;
	size_t n;
	uint64_t a = scalar(e, field_named(e, "str"));
	put_ip_prefix(e);
	if (printk_lookup(e, a, &s, &n))
		tb_out_put(e->o, s, n);
	else
		tb_out_hex(e->o, a);
}

/* Take one binary argument of `size` bytes from the bprint buffer, the
 * way the kernel's vbin_printf() stored it (aligned to its size, or to
 * 4 for 8-byte values). */
static uint64_t bin_arg(ev *e, ref *b, size_t *pos, unsigned size, int sgn)
{
	size_t align = size > 4 ? 4 : size;
	uint64_t v;
	*pos = (*pos + align - 1) / align * align;
	if (*pos > b->len || size > b->len - *pos) {
		mark_bad(e, TB_RENDER_N_OOR, TB_RENDER_M_OOR);
		*pos = b->len;
		return 0;
	}
	v = load_elem(e, b->p + *pos, size, sgn);
	*pos += size;
	return v;
}

static void run_bprint(ev *e)
{
	const tb_field *bf = field_named(e, "buf");
	const char *f;
	size_t n, pos = 0;
	uint32_t i = 0, lit = 0, len;
	ref b;
	uint64_t fa = scalar(e, field_named(e, "fmt"));
	put_ip_prefix(e);
	if (!bf || !printk_lookup(e, fa, &f, &n)) {
		tb_out_hex(e->o, fa);
		return;
	}
	b = field_ref(e, bf);
	len = n > TB_RENDER_MAX_FMT ? TB_RENDER_MAX_FMT : (uint32_t)n;
	while (i < len) {
		tb_render_dir_ d;
		spec sp;
		int64_t w = 0, pr = 0;
		uint64_t v;
		if (f[i] != '%') {
			i++;
			continue;
		}
		tb_out_put(e->o, f + lit, i - lit);
		i++;
		if (i < len && f[i] == '%') {
			tb_out_putc(e->o, '%');
			lit = ++i;
			continue;
		}
		memset(&d, 0, sizeof(d));
		if (tb_pf_decode_spec(f, len, &i, &d) != 1) {
			lit = i;
			break;
		}
		lit = i;
		spec_of(&sp, &d);
		e->bad = NULL;
		if (d.width == -2)
			w = (int32_t)bin_arg(e, &b, &pos, 4, 1);
		if (d.prec == -2)
			pr = (int32_t)bin_arg(e, &b, &pos, 4, 1);
		star_args(e, &sp, w, d.width == -2, pr, d.prec == -2);
		if (sp.flags & TB_NF_LEFT)
			sp.flags &= ~TB_NF_ZEROPAD;
		if (d.conv == 's' || (d.conv == 'p' && d.pext[0] &&
				      !has("SsxKe", d.pext[0]))) {
			/* strings, and pointers printed at trace time, were
			 * stored as NUL-terminated text */
			tb_out_mark m = tb_out_mark_here(e->o);
			size_t lim = e->o->limit;
			ref s = no_ref();
			if (pos < b.len) {
				s.p = b.p + pos;
				s.len = b.len - pos;
				s.ok = 1;
			}
			if (d.conv == 's' && sp.prec >= 0)
				lim = tb_out_limit(e->o, (size_t)sp.prec);
			put_ref_text(e, &s);
			tb_out_unlimit(e->o, lim);
			pos += s.ok ? text_len(&s) + 1 : 0;
			if (d.conv == 's' && sp.width > 0)
				tb_out_pad(e->o, m, (size_t)sp.width, sp.flags & TB_NF_LEFT);
			continue;
		}
		if (d.conv == 'p') {
			v = bin_arg(e, &b, &pos, e->lsz, 0);
			put_p(e, &sp, 0, v, NULL);
			continue;
		}
		v = bin_arg(e, &b, &pos, d.conv == 'c' ? 1 : lenmod_width(e, d.lenmod),
			    d.conv == 'd' || d.conv == 'i');
		if (e->bad)
			put_marker(e);
		else
			put_int_conv(e, &sp, v);
	}
	tb_out_put(e->o, f + lit, len - lit);
}

/* ------------------------------------------------------ the shortcuts */

/*
 * A print fmt's plain conversions, planned once when it is compiled so
 * that an event runs no expression node for them: an integer field
 * (under at most one cast) printed by %d %i %u %x %X with no '+' or ' ',
 * a width to 16 and no precision, and a char array field or __get_str
 * printed by a bare %s.  Each prints what run_dir prints for it, read
 * straight from the record; a record it cannot serve whole (a field
 * outside it, no room left in the text) takes the general path, which
 * then marks or cuts it.
 */
enum { TB_PLAN_INT = 1, TB_PLAN_CHARS, TB_PLAN_STR, TB_PLAN_LIT16, TB_PLAN_SEL };
/* A planned integer's size (1, 2, 4, 8) in bits 8..11 of plan; above it,
 * what its conversion asks (told once here, not per record): a bare
 * decimal (no hex, no width) and a signed one. */
enum { TB_PLAN_SIZE = 0x0f00u, TB_PLAN_BARE = 0x1000u, TB_PLAN_SIGNED = 0x2000u,
       TB_PLAN_SEXT = 0x4000u /* the load extends the field's sign (its first step) */ };

static int is_plain_int_conv(unsigned c)
{
	return c == 'd' || c == 'i' || c == 'u' || c == 'x' || c == 'X';
}

/*
 * The normalisations of a planned integer (types, in order), packed a
 * byte each without those that change nothing: no width to cut to, or
 * the value already in that form after the one before (the same type;
 * or wider, after an unsigned one or signed after signed).  Most fields
 * keep one, or none.
 */
static uint32_t norm_steps(const unsigned *ty, unsigned n)
{
	uint32_t out = 0;
	unsigned sh = 0, prev = 0;
	for (unsigned i = 0; i < n; i++) {
		unsigned t = ty[i] & (0x0fu | TB_TY_UNSIGNED), w = TB_TY_W(t);
		if (w == 0 || w >= 8)
			continue;
		if (prev && (w == TB_TY_W(prev) ? (t ^ prev) == 0
				 : w > TB_TY_W(prev) && ((prev & TB_TY_UNSIGNED) || !(t & TB_TY_UNSIGNED))))
			continue;
		out |= (uint32_t)t << sh;
		sh += 8;
		prev = t;
	}
	return out;
}

static void plan_int(const tb_render_prog *p, tb_render_dir_ *d)
{
	const tb_render_node_ *nd = &p->nodes[d->arg];
	unsigned cast = 0, w;
	const tb_field *f;
	if (!is_plain_int_conv(d->conv) || d->width > 16 ||
	    (d->flags & (TB_NF_PLUS | TB_NF_SPACE)) || (nd->ty & TB_TY_UNKNOWN))
		return;
	if (nd->op == TB_N_CAST) {
		if (nd->v & TB_CAST_BOOL)
			return;
		cast = nd->ty; /* its own width (its promotion changes nothing after it) */
		nd = &p->nodes[nd->a];
	}
	if (nd->op != TB_N_FIELD || nd->v >= p->ev.n_fields || (nd->ty & TB_TY_UNKNOWN))
		return;
	f = &p->ev.fields[nd->v];
	if (tb_pf_kind(f) != TB_RF_SCALAR || (f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8))
		return;
	/* ev_int's normalisations, then put_int_conv's (type 0 keeps a value) */
	w = tb_pf_lenmod_width(d->lenmod, p->ev.long_size == 4 ? 4 : 8);
	if (d->conv != 'd' && d->conv != 'i')
		w |= TB_TY_UNSIGNED;
	d->text_off = f->offset;
	{
		unsigned ty[4], sext = 0;
		uint32_t steps;
		ty[0] = nd->ty;
		ty[1] = tb_ty_promote(nd->ty);
		ty[2] = cast;
		ty[3] = w;
		steps = norm_steps(ty, 4);
		/* a first step to the field's own width is the load's: it
		 * zero-extends already, and extends the sign as one xor */
		if (TB_TY_W(steps & 0xffu) == f->size) {
			sext = steps & TB_TY_UNSIGNED ? 0u : TB_PLAN_SEXT;
			steps >>= 8;
		}
		d->text_len = steps;
		d->plan = (uint16_t)(TB_PLAN_INT | f->size << 8 | sext |
				     (d->conv == 'd' || d->conv == 'i' ? TB_PLAN_SIGNED : 0u) |
				     (d->conv != 'x' && d->conv != 'X' && d->width <= 0 ? TB_PLAN_BARE : 0u));
	}
}

static void plan_text(const tb_render_prog *p, tb_render_dir_ *d)
{
	const tb_render_node_ *nd = &p->nodes[d->arg];
	const tb_field *f;
	unsigned at = nd->op == TB_N_FIELD ? (unsigned)nd->v
		    : nd->op == TB_N_CALL && (nd->v & 0xff) == TB_H_GET_STR ? (unsigned)(nd->v >> 8)
		    : UINT32_MAX;
	if (d->width > 0 || at >= p->ev.n_fields)
		return;
	f = &p->ev.fields[at];
	if (nd->op == TB_N_FIELD && tb_pf_kind(f) == TB_RF_ARRAY && f->size) {
		d->text_off = f->offset;
		d->text_len = f->size;
		d->plan = TB_PLAN_CHARS;
	} else if (nd->op == TB_N_CALL && (tb_pf_kind(f) == TB_RF_DATA_LOC || tb_pf_kind(f) == TB_RF_REL_LOC)) {
		d->text_off = f->offset;
		d->text_len = tb_pf_kind(f) == TB_RF_REL_LOC;
		d->plan = TB_PLAN_STR;
	}
}

/*
 * A %s whose text is a function of a few bits of one scalar field
 * (sched_switch's prev_state: `prev_state & 0xff ? __print_flags(...) :
 * "R"`, then `prev_state & 0x100 ? "+" : ""`): each text it can print is
 * rendered once, when compiled, into a table after the literals in
 * prog->text, and a record picks its entry by those bits: no node runs.
 * The expression reads the field only as `field & constant` (its other
 * bits drop out), through ?:, operators and __print_flags/_symbolic
 * (no lookups: no env); an entry that notes anything (a division by 0,
 * an unresolved name) keeps the directive unplanned.
 */
enum {
	TB_SEL_BITS = 8,     /* at most 2^8 entries a table */
	TB_SEL_NODES = 128,  /* the most nodes a planned expression has */
	TB_SEL_REC = 256,    /* the field lies in the first 256 bytes */
	TB_SEL_SLOT = 16     /* an entry: up to 15 bytes, copied 16 whole */
};

typedef struct sel_scan {
	const tb_render_prog *p;
	uint32_t field;  /* the field read (UINT32_MAX: none yet) */
	uint64_t mask;   /* its bits read */
	unsigned nodes;  /* nodes seen */
} sel_scan;

/* Node n is one (not 0) and the scan may take it: the count of nodes
 * seen bounds the scan, and so the depth of its recursion. */
static int sel_visit(sel_scan *sc, unsigned n)
{
	return n && ++sc->nodes <= TB_SEL_NODES;
}

/* `field & m` as field_int and ev_int's & compute it: the field's raw
 * bits & m, when the field is a scalar of up to 8 bytes (another one
 * reads as 0, and so does tb_load_n) and m, doubled, survives each
 * width the value is cut to (m lies below the sign bit). */
static int sel_masked(sel_scan *sc, const tb_render_node_ *fn, const tb_render_node_ *mn)
{
	const tb_field *f;
	unsigned ty;
	uint64_t m, m2, bad;
	if (fn->op != TB_N_FIELD || mn->op != TB_N_NUM)
		return 0;
	f = &sc->p->ev.fields[fn->v];
	ty = tb_ty_arith(tb_ty_promote(fn->ty), mn->ty);
	m = tb_ty_norm(tb_ty_norm(mn->v, mn->ty), ty);
	m2 = m << 1;
	/* every reason at once (bitwise: one branch) */
	bad = (uint64_t)(tb_pf_kind(f) != TB_RF_SCALAR) | (uint64_t)(f->size > 8u) |
	      (uint64_t)((sc->field != UINT32_MAX) & (sc->field != fn->v)) | (m >> 62) |
	      (m2 ^ tb_ty_norm(m2, TB_TY_W(fn->ty) | TB_TY_UNSIGNED)) |
	      (m2 ^ tb_ty_norm(m2, TB_TY_W(ty) | TB_TY_UNSIGNED)) |
	      (m2 ^ tb_ty_norm(m2, (f->size & 0x0fu) | TB_TY_UNSIGNED));
	if (bad)
		return 0;
	sc->field = (uint32_t)fn->v;
	sc->mask |= m;
	return 1;
}

/* Node n, run by ev_int, reads only masked bits of the one field. */
static int sel_int(sel_scan *sc, unsigned n)
{
	const tb_render_node_ *nd = &sc->p->nodes[n];
	if (!sel_visit(sc, n))
		return 0;
	switch (nd->op) {
	case TB_N_NUM:
		return 1;
	case TB_N_BIN:
		if (nd->v == TB_OP_BAND && (sel_masked(sc, &sc->p->nodes[nd->a], &sc->p->nodes[nd->b]) ||
					    sel_masked(sc, &sc->p->nodes[nd->b], &sc->p->nodes[nd->a])))
			return 1;
		return sel_int(sc, nd->a) && sel_int(sc, nd->b);
	case TB_N_TERN:
		return sel_int(sc, nd->a) && sel_int(sc, nd->b) && sel_int(sc, nd->c);
	case TB_N_UNARY:
	case TB_N_CAST:
		return sel_int(sc, nd->a);
	default:
		return 0;
	}
}

/* The { value, name } list from pr on: its values as sel_int (what is
 * not a pair print_flags and print_symbolic pass over). */
static int sel_pairs(sel_scan *sc, unsigned pr)
{
	for (; pr; pr = sc->p->nodes[pr].next)
		if (!sel_visit(sc, pr) ||
		    (sc->p->nodes[pr].op == TB_N_PAIR && !sel_int(sc, sc->p->nodes[pr].a)))
			return 0;
	return 1;
}

/* Node n, run by ev_text, reads only masked bits of the one field. */
static int sel_text(sel_scan *sc, unsigned n)
{
	const tb_render_node_ *nd = &sc->p->nodes[n];
	unsigned h = (unsigned)nd->v & 0xffu;
	if (!sel_visit(sc, n))
		return 0;
	if (nd->op == TB_N_STR)
		return 1;
	if (nd->op == TB_N_TERN)
		return sel_int(sc, nd->a) && sel_text(sc, nd->b) && sel_text(sc, nd->c);
	if (nd->op != TB_N_CALL || !sel_int(sc, nd->a))
		return 0;
	if (h == TB_H_PRINT_SYMBOLIC || h == TB_H_PRINT_SYMBOLIC_U64)
		return sel_pairs(sc, sc->p->nodes[nd->a].next);
	/* __print_flags: the delimiter (the compiler requires one), then
	 * the pairs */
	return (h == TB_H_PRINT_FLAGS || h == TB_H_PRINT_FLAGS_U64) &&
	       sel_pairs(sc, sc->p->nodes[sc->p->nodes[nd->a].next].next);
}

/* The text of node arg for a record whose field f holds raw (and nothing
 * else), into slot (TB_SEL_SLOT bytes): its length, or SIZE_MAX when it
 * does not fit or noted anything. */
static size_t sel_entry(const tb_render_prog *p, unsigned arg, const tb_field *f, uint64_t raw,
			char *slot)
{
	uint8_t rec[TB_SEL_REC];
	tb_out o;
	ev e;
	memset(rec, 0, sizeof(rec));
	for (unsigned i = 0; i < f->size; i++)
		rec[f->offset + (p->ev.big_endian ? f->size - 1 - i : i)] = (uint8_t)(raw >> (8 * i));
	memset(slot, 0, TB_SEL_SLOT);
	tb_out_init(&o, slot, TB_SEL_SLOT);
	ev_start(&e, p, NULL, &o, rec, f->offset + f->size);
	ev_text(&e, arg);
	return e.notes || o.len < o.need ? SIZE_MAX : o.len;
}

/* Plan d as a table at prog->text + *used (moved past it), when it is
 * such a %s and the table fits. */
static void plan_sel(tb_render_prog *p, tb_render_dir_ *d, uint32_t *used)
{
	sel_scan sc = { p, UINT32_MAX, 0, 0 };
	const tb_field *f;
	unsigned shift = 0, k = 0;
	uint32_t n, lens = *used, texts;
	if (d->width > 0 || !sel_text(&sc, d->arg) || sc.field == UINT32_MAX)
		return;
	f = &p->ev.fields[sc.field];
	if (f->offset > TB_SEL_REC - f->size)
		return;
	while (sc.mask && !((sc.mask >> shift) & 1))
		shift++;
	while (k <= TB_SEL_BITS && (sc.mask >> shift >> k))
		k++;
	n = 1u << k;
	texts = lens + n; /* a length byte each, then the slots */
	if (k > TB_SEL_BITS || (TB_RENDER_MAX_TEXT - lens) / (TB_SEL_SLOT + 1) < n)
		return;
	for (uint32_t i = 0; i < n; i++) {
		size_t len = sel_entry(p, d->arg, f, (uint64_t)i << shift, p->text + texts + (size_t)i * TB_SEL_SLOT);
		if (len == SIZE_MAX)
			return;
		p->text[lens + i] = (char)len;
	}
	*used = texts + n * TB_SEL_SLOT;
	d->text_off = f->offset | shift << 16;
	d->text_len = lens | texts << 16;
	d->plan = (uint16_t)(TB_PLAN_SEL | f->size << 8 | k << 12);
}

void tb_pf_plan_dirs(tb_render_prog *p)
{
	uint32_t used = p->text_len; /* the tables go after the literals */
	for (uint32_t k = 0; k < p->n_dirs; k++) {
		tb_render_dir_ *d = &p->dirs[k];
		d->plan = 0;
		/* a short literal: 16 bytes copied whole (what passes it is
		 * written over next), so they must lie in the text table */
		if (d->kind == TB_D_LIT && d->text_len && d->text_len <= 16 &&
		    d->text_off <= TB_RENDER_MAX_TEXT - 16)
			d->plan = TB_PLAN_LIT16;
		if (d->kind != TB_D_CONV || !d->arg || d->warg || d->parg || d->prec >= 0)
			continue;
		if (d->conv == 's') {
			plan_text(p, d);
			if (!d->plan)
				plan_sel(p, d, &used);
		} else {
			plan_int(p, d);
		}
	}
}

/* How many of the n bytes at p come before the first NUL (n: none). */
static size_t text_before_nul(const uint8_t *p, size_t n)
{
	const uint8_t *z = n ? (const uint8_t *)memchr(p, 0, n) : NULL;
	return z ? (size_t)(z - p) : n;
}

/* Text at p to its first NUL within n bytes (nothing when there are none). */
static void put_chars(ev *e, const uint8_t *p, size_t n)
{
	if (!p || !n)
		return;
	tb_out_put(e->o, (const char *)p, text_before_nul(p, n));
}

/* A planned integer's value (its loads and normalisations): 0 when the
 * record does not hold it. */
TB_ALWAYS_INLINE int plan_int_value(const tb_reader *r, const tb_render_dir_ *d, uint64_t *out)
{
	unsigned size = (d->plan & TB_PLAN_SIZE) >> 8, tys = d->text_len;
	uint32_t off = d->text_off;
	uint64_t v, m;
	if (size > r->len || off > r->len - size)
		return 0;
	v = tb_load_n(r->data + off, size, r->big_endian);
	m = (uint64_t)((d->plan & TB_PLAN_SEXT) != 0) << (8u * size - 1u); /* (0: no sign) */
	v = (v ^ m) - m;
	for (; tys; tys >>= 8)
		v = tb_ty_norm(v, tys & 0xffu);
	*out = v;
	return 1;
}

/* A planned text's bytes (a char array to its NUL; a __get_str to its
 * NUL up to the record's end, as ev_text reads it): 0 when the record
 * does not hold it. */
TB_ALWAYS_INLINE int plan_text_span(const tb_reader *r, const tb_render_dir_ *d,
				    const uint8_t **p, size_t *n)
{
	uint32_t off = d->text_off;
	uint64_t at, len;
	uint32_t w;
	if ((d->plan & 0xff) == TB_PLAN_CHARS) {
		if (d->text_len > r->len || off > r->len - d->text_len)
			return 0;
		*p = r->data + off;
		*n = d->text_len;
		return 1;
	}
	if (4 > r->len || off > r->len - 4)
		return 0;
	w = (uint32_t)tb_load_n(r->data + off, 4, r->big_endian);
	at = (w & 0xffffu) + (d->text_len ? (uint64_t)off + 4 : 0);
	len = w >> 16;
	if (at > r->len || len > r->len - at)
		return 0;
	*p = r->data + at;
	*n = len ? r->len - (size_t)at : 0;
	return 1;
}

/* Run d's shortcut: 0 when the general path must print it. */
static int run_plan(ev *e, const tb_render_dir_ *d)
{
	const tb_reader *r = &e->rec;
	switch (d->plan & 0xff) {
	case TB_PLAN_LIT16: {
		char *at = tb_out_room(e->o, 16);
		if (!at)
			return 0;
		memcpy(at, e->p->text + d->text_off, 16);
		tb_out_took(e->o, d->text_len);
		return 1;
	}
	case TB_PLAN_INT: {
		unsigned flags = d->flags;
		int hex = d->conv == 'x' || d->conv == 'X', neg;
		uint64_t v;
		if (!plan_int_value(r, d, &v))
			return 0;
		neg = (d->plan & TB_PLAN_SIGNED) && (int64_t)v < 0;
		return tb_out_int_fast(e->o, neg ? 0 - v : v, hex, d->conv == 'X', (char)(neg ? '-' : 0),
				       hex && (flags & TB_NF_SPECIAL), d->width,
				       (flags & (TB_NF_ZEROPAD | TB_NF_LEFT)) == TB_NF_ZEROPAD,
				       (flags & TB_NF_LEFT) != 0);
	}
	case TB_PLAN_CHARS:
	case TB_PLAN_STR: {
		const uint8_t *p;
		size_t n;
		if (!plan_text_span(r, d, &p, &n))
			return 0;
		put_chars(e, p, n);
		return 1;
	}
	default:
		return 0;
	}
}

/* How many of the 16 bytes at t come before the first NUL (16: none);
 * they are stored at q (a task's comm, char[16]: one load, one compare,
 * one store where memchr and a copy cost a call each). */
static inline size_t nul16(char *q, const uint8_t *t)
{
#if defined(__SSE2__)
	__m128i x = _mm_loadu_si128((const __m128i *)(const void *)t);
	unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_setzero_si128()));
	_mm_storeu_si128((__m128i *)(void *)q, x);
	return m ? (size_t)__builtin_ctz(m) : 16u;
#else
	memcpy(q, t, 16);
	return text_before_nul(t, 16);
#endif
}

/* The bytes of the 8-byte word x (first byte lowest) that are 0: the
 * lowest set bit is at the first of them (the bits above it may be
 * wrong). */
static inline uint64_t zero_bytes(uint64_t x)
{
	return (x - 0x0101010101010101ull) & ~x & 0x8080808080808080ull;
}

/*
 * The n bytes at t up to their first NUL, stored at q, which has room
 * for 16 bytes or n, the more (a char array, or a __get_str running to
 * the record's end): how many.  From 8 bytes on without a call: 16
 * bytes at once, or two 8-byte words that overlap.
 */
static size_t put_nul_text(char *q, const uint8_t *t, size_t n)
{
	uint64_t a, b, z;
	size_t k;
	if (n >= 16) {
		k = nul16(q, t);
		if (k < 16 || n == 16)
			return k;
		k = text_before_nul(t + 16, n - 16);
		tb_copy_short(q + 16, (const char *)t + 16, k);
		return 16 + k;
	}
	if (n < 8) {
		k = text_before_nul(t, n);
		tb_copy_short(q, (const char *)t, k);
		return k;
	}
	a = tb_load64(t, 0);
	b = tb_load64(t + n - 8, 0);
	memcpy(q, t, 8);
	memcpy(q + n - 8, t + n - 8, 8);
	if ((z = zero_bytes(a)) != 0)
		return (size_t)__builtin_ctzll(z) / 8;
	/* (a has no NUL: b's first lies past a's bytes) */
	z = zero_bytes(b);
	return z ? n - 8 + (size_t)__builtin_ctzll(z) / 8 : n;
}

/* The most bytes a planned directive writes, scratch included, besides
 * its text from the record. */
#define TB_PLAN_ROOM 48u

/*
 * The planned directives from k on, straight into the buffer while its
 * room surely holds them all (TB_PLAN_ROOM and the record's length each):
 * one check for the run instead of one per piece, the same bytes as
 * run_plan.  Returns the first directive not run (unplanned, or its
 * record too short: the general path prints it).
 */
TB_ALWAYS_INLINE uint32_t run_planned(ev *e, uint32_t k)
{
	const tb_render_prog *p = e->p;
	/* the record, the program's tables and its count in locals: every
	 * byte stored through q may alias what a pointer reaches, and would
	 * have them all read again after it */
	const tb_reader rec = e->rec, *r = &rec;
	const tb_render_dir_ *dirs = p->dirs;
	const char *text = p->text;
	const uint32_t n_dirs = p->n_dirs;
	tb_out *o = e->o;
	uint64_t bound = (uint64_t)(n_dirs - k) * (TB_PLAN_ROOM + (uint64_t)rec.len);
	char *q, *start, last;
	/* (no limit here: only a %.Ns sets one, for its own text; no
	 * buffer at all: no room, and no pointer to start from) */
	if (!o->buf || o->len != o->need || bound > o->cap - o->len)
		return k;
	start = q = o->buf + o->len;
	for (; k < n_dirs; k++) {
		const tb_render_dir_ *d = &dirs[k];
		unsigned plan = d->plan & 0xff;
		if (plan == TB_PLAN_LIT16) {
			uint32_t n = d->text_len;
			memcpy(q, text + d->text_off, 16);
			q += n;
		} else if (plan == TB_PLAN_INT) {
			unsigned flags = d->flags, pl = d->plan, conv = d->conv;
			int neg, width = d->width;
			uint64_t v;
			if (!plan_int_value(r, d, &v))
				break;
			neg = (pl & TB_PLAN_SIGNED) && (int64_t)v < 0;
			v = neg ? 0 - v : v;
			if (pl & TB_PLAN_BARE) {
				/* the commonest: a bare decimal */
				*q = '-';
				q += neg;
				q += tb_dec_fast(q, v);
			} else {
				int hex = conv == 'x' || conv == 'X';
				q = tb_num_at(q, v, hex, conv == 'X', (char)(neg ? '-' : 0),
					      hex && (flags & TB_NF_SPECIAL), width,
					      (flags & (TB_NF_ZEROPAD | TB_NF_LEFT)) == TB_NF_ZEROPAD,
					      (flags & TB_NF_LEFT) != 0, &last);
			}
		} else if (plan == TB_PLAN_CHARS || plan == TB_PLAN_STR) {
			const uint8_t *t;
			size_t n;
			if (!plan_text_span(r, d, &t, &n))
				break;
			q += put_nul_text(q, t, n);
		} else if (plan == TB_PLAN_SEL) {
			/* a table's entry, picked by the field's bits (plan_sel) */
			unsigned size = (d->plan & TB_PLAN_SIZE) >> 8;
			uint32_t off = d->text_off & 0xffffu, tl = d->text_len, i;
			if (size > rec.len || off > rec.len - size)
				break;
			i = (uint32_t)(tb_load_n(rec.data + off, size, rec.big_endian) >> (d->text_off >> 16)) &
			    ((1u << (d->plan >> 12)) - 1u);
			i += tl & 0xffffu; /* its length byte; its slot follows them */
			memcpy(q, text + (tl >> 16) + (size_t)(i - (tl & 0xffffu)) * TB_SEL_SLOT, TB_SEL_SLOT);
			q += (uint8_t)text[i];
		} else {
			break;
		}
	}
	if (q != start) {
		/* the run's last byte, read once here instead of kept by
		 * every piece (all of the run lies in [start, q)) */
		o->len += (size_t)(q - start);
		o->need = o->len;
		o->last = q[-1];
	}
	return k;
}

/* ------------------------------------------------------------ entry */

/* tb_render and tb_render_stateful (keep: NULL, or prog itself). */
static tb_status render(const tb_render_prog *prog, tb_render_prog *keep,
			const tb_render_env *env, const void *record, size_t record_len,
			char *out, size_t cap, tb_render_result *res)
{
	tb_out o;
	ev e;
	tb_out_init(&o, out, cap);
	if (res)
		memset(res, 0, sizeof(*res));
	if (!prog || (!record && record_len)) {
		tb_out_finish(&o);
		return TB_ERR_ARG;
	}
	ev_start(&e, prog, env, &o, record, record_len);
	switch (prog->mode) {
	case TB_M_PRINTFMT:
		/* (run_planned inlined at its one call: every event comes here) */
		for (uint32_t k = 0; (k = run_planned(&e, k)) < prog->n_dirs; k++)
			if (!prog->dirs[k].plan || !run_plan(&e, &prog->dirs[k]))
				run_dir(&e, &prog->dirs[k]);
		break;
	case TB_M_SYS_ENTER:
	case TB_M_SYS_EXIT:
		run_syscall(&e, prog->mode == TB_M_SYS_ENTER);
		break;
	case TB_M_BPUTS:
		run_bputs(&e);
		break;
	case TB_M_BPRINT:
		run_bprint(&e);
		break;
	case TB_M_FIELDS:
		tb_pf_run_fields(prog, keep, env, &e.rec, &o, &e.notes);
		break;
	default:
		run_fallback(&e);
		break;
	}
	/* one line per event: drop the newline a print buffer ends with
	 * (whether or not it was stored: `needed` is the same for any cap) */
	if (o.need && o.last == '\n') {
		o.need--;
		if (o.len > o.need)
			o.len = o.need;
	}
	tb_out_finish(&o);
	if (o.len < o.need)
		e.notes |= TB_RENDER_N_TRUNCATED;
	if (res) {
		res->len = o.len;
		res->needed = o.need;
		res->notes = e.notes;
	}
	return o.len < o.need ? TB_ERR_NO_SPACE : TB_OK;
}

tb_status tb_render(const tb_render_prog *prog, const tb_render_env *env,
		    const void *record, size_t record_len, char *out, size_t cap,
		    tb_render_result *res)
{
	return render(prog, NULL, env, record, record_len, out, cap, res);
}

tb_status tb_render_stateful(tb_render_prog *prog, const tb_render_env *env,
			     const void *record, size_t record_len, char *out, size_t cap,
			     tb_render_result *res)
{
	return render(prog, prog, env, record, record_len, out, cap, res);
}
