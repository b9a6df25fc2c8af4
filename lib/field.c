/*
 * Reading fields out of a record.  Every read is checked against the
 * record's real length through the reader: a field, element or dynamic
 * range outside the record is an error for that field, never a read.
 */
#include "internal.h"
#include "tracebound/format.h"
#include "fieldloc.h"

/* A scalar's value; size is 1, 2, 4 or 8 (classification guarantees it). */
static inline uint64_t load_scalar(const uint8_t *p, uint32_t size, int be,
				   unsigned flags)
{
	uint64_t v;
	switch (size) {
	case 1: v = p[0]; break;
	case 2: v = tb_load16(p, be); break;
	case 4: v = tb_load32(p, be); break;
	default: v = tb_load64(p, be); break;
	}
	return tb_extend(v, size, (int)(flags & TB_FIELD_SIGNED));
}

static int is_scalar(const tb_field *f)
{
	return f->kind == TB_FIELD_INT || f->kind == TB_FIELD_LONG ||
	       f->kind == TB_FIELD_POINTER;
}

/*
 * Where a field's bytes lie in the record: *p (NULL when *n is 0) and *n.
 * For DYNAMIC the loc word is decoded; a zero length is "absent".
 */
static tb_status field_span(const tb_field *f, const tb_reader *r,
			    const uint8_t **p, size_t *n, tb_error *err)
{
	uint64_t lo, ll;
	size_t o, l;
	tb_status bad = TB_ERR_RANGE;
	const char *what = "dynamic field data lies outside the record";

	*p = NULL;
	*n = 0;
	switch (f->kind) {
	case TB_FIELD_REST:
		o = f->offset;
		l = o <= r->len ? r->len - o : 1;
		bad = TB_ERR_TRUNCATED;
		what = "rest-of-record field starts past the record end";
		break;
	case TB_FIELD_DYNAMIC:
		if (!tb_field_loc(f, r, &lo, &ll))
			return tb_fail(err, TB_ERR_TRUNCATED, f->offset,
				       "dynamic field runs past the record end");
		if (ll == 0 && !(f->flags & TB_FIELD_LEGACY))
			return TB_OK; /* absent, whatever the offset says */
		/* both below 2^32 (offset < 2^16 + a u32 field offset + 4,
		 * length < 2^16 or the record's); a legacy offset past the
		 * record fails the range check below */
		o = (size_t)lo;
		l = lo > r->len ? 1 : (size_t)ll;
		break;
	default:
		o = f->offset;
		l = f->size;
		bad = TB_ERR_TRUNCATED;
		what = "field runs past the record end";
		break;
	}
	/* an empty range at the end is present but has no bytes (and no
	 * pointer: the record itself may be NULL with length 0) */
	if (l == 0 && o == r->len)
		return TB_OK;
	if (!tb_rd_ptr_at(r, o, l, p))
		return tb_fail(err, bad, f->offset, what);
	*n = l;
	return TB_OK;
}

static int pow2_size(uint32_t n)
{
	return n == 1 || n == 2 || n == 4 || n == 8;
}

/*
 * The number at element i of a field: a scalar (array 0, i 0) or an
 * element of an array-like field (array 1), each read checked.
 */
static tb_status read_number(const tb_field *f, const void *rec, size_t len,
			     int be, int array, size_t i, uint64_t *out,
			     tb_error *err)
{
	tb_reader r;
	const uint8_t *p;
	size_t n;
	uint32_t size;
	tb_status st;
	if (!f || !out || (!rec && len))
		return tb_fail(err, TB_ERR_ARG, 0, "NULL argument");
	if (array != !(is_scalar(f) || f->kind == TB_FIELD_OPAQUE))
		return tb_fail(err, TB_ERR_ARG, f->offset,
			       array ? "not an array field (use tb_field_int)"
				     : "not an integer field (use tb_field_elem)");
	size = array ? f->elem_size : f->size;
	if (!pow2_size(size))
		return tb_fail(err, TB_ERR_UNSUPPORTED, f->offset,
			       array ? "element size is not 1, 2, 4 or 8"
				     : "integer field size is not 1, 2, 4 or 8");
	tb_rd_init(&r, rec, len, be);
	if ((st = field_span(f, &r, &p, &n, err)) != TB_OK)
		return st;
	if (i >= n / size)
		return tb_fail(err, TB_ERR_RANGE, f->offset,
			       "element index past the field's end");
	*out = load_scalar(p + i * size, size, be, f->flags);
	return TB_OK;
}

TB_API tb_status tb_field_int(const tb_field *f, const void *rec, size_t len,
			      int big_endian, uint64_t *out, tb_error *err)
{
	/* (a sound record's scalar straight; anything else read_number's
	 * checks and error) */
	if (f && out && rec && tb_field_scalar_in(f, rec, len, big_endian, out))
		return TB_OK;
	return read_number(f, rec, len, big_endian, 0, 0, out, err);
}

TB_API tb_status tb_field_bytes(const tb_field *f, const void *rec, size_t len,
				int big_endian, const uint8_t **data, size_t *n,
				tb_error *err)
{
	tb_reader r;
	if (!f || !data || !n || (!rec && len))
		return tb_fail(err, TB_ERR_ARG, 0, "NULL argument");
	tb_rd_init(&r, rec, len, big_endian);
	return field_span(f, &r, data, n, err);
}

TB_API tb_status tb_field_count(const tb_field *f, const void *rec, size_t len,
				int big_endian, size_t *count, tb_error *err)
{
	const uint8_t *p;
	size_t n;
	tb_status st;
	if (!count)
		return tb_fail(err, TB_ERR_ARG, 0, "NULL argument");
	if ((st = tb_field_bytes(f, rec, len, big_endian, &p, &n, err)) != TB_OK)
		return st;
	if (is_scalar(f)) {
		*count = 1;
		return TB_OK;
	}
	if (n % f->elem_size != 0) /* elem_size >= 1 for every kind */
		return tb_fail(err, TB_ERR_LENGTH, f->offset,
			       "field length is not a whole number of elements");
	*count = n / f->elem_size;
	return TB_OK;
}

TB_API tb_status tb_field_elem(const tb_field *f, const void *rec, size_t len,
			       int big_endian, size_t i, uint64_t *out,
			       tb_error *err)
{
	return read_number(f, rec, len, big_endian, 1, i, out, err);
}

TB_API tb_status tb_field_str(const tb_field *f, const void *rec, size_t len,
			      int big_endian, const char **s, size_t *n,
			      tb_error *err)
{
	const uint8_t *p, *nul;
	size_t cnt;
	tb_status st;
	if (!s || !n)
		return tb_fail(err, TB_ERR_ARG, 0, "NULL argument");
	if (f && is_scalar(f))
		return tb_fail(err, TB_ERR_ARG, f->offset, "an integer field is not text");
	if ((st = tb_field_bytes(f, rec, len, big_endian, &p, &cnt, err)) != TB_OK)
		return st;
	nul = cnt ? (const uint8_t *)memchr(p, 0, cnt) : NULL;
	*s = (const char *)p;
	*n = nul ? (size_t)(nul - p) : cnt;
	return TB_OK;
}

TB_API tb_status tb_format_check_record(const tb_format *fmt, const void *rec,
					size_t len, int big_endian, tb_error *err)
{
	tb_reader r;
	uint32_t i;
	const uint8_t *p;
	size_t n;
	tb_status st;
	if (!fmt || (!rec && len))
		return tb_fail(err, TB_ERR_ARG, 0, "NULL argument");
	if (len < fmt->min_size)
		return tb_fail(err, TB_ERR_TRUNCATED, len,
			       "record shorter than its format's fields");
	if (fmt->ndynamic == 0)
		return TB_OK;
	tb_rd_init(&r, rec, len, big_endian);
	for (i = 0; i < fmt->nfields; i++)
		if (fmt->fields[i].kind == TB_FIELD_DYNAMIC &&
		    (st = field_span(&fmt->fields[i], &r, &p, &n, err)) != TB_OK)
			return st;
	return TB_OK;
}

/* One field of a record whose static part is known to be present.
 * Inlined with a constant byte order into the two loops below. */
static inline tb_status decode_one(const tb_field *f, const tb_reader *r,
				   const uint8_t *stat, int be, tb_field_value *v,
				   tb_error *err)
{
	switch (f->kind) {
	case TB_FIELD_INT:
	case TB_FIELD_LONG:
	case TB_FIELD_POINTER:
		v->data = stat + f->offset;
		v->len = f->size;
		v->num = load_scalar(v->data, f->size, be, f->flags);
		return TB_OK;
	case TB_FIELD_ARRAY:
	case TB_FIELD_STRING:
	case TB_FIELD_OPAQUE:
		v->data = stat + f->offset;
		v->len = f->size;
		v->num = 0;
		return TB_OK;
	default:
		v->num = 0;
		return field_span(f, r, &v->data, &v->len, err);
	}
}

/* Every field of a record holding every static field. */
static inline tb_status decode_fast(const tb_format *fmt, const tb_reader *r,
				    const uint8_t *stat, int be, tb_field_value *vals,
				    size_t n, tb_error *err)
{
	tb_status first = TB_OK;
	size_t i;
	for (i = 0; i < n; i++) {
		tb_error e;
		tb_field_value *v = &vals[i];
		v->status = decode_one(&fmt->fields[i], r, stat, be, v, &e);
		if (v->status != TB_OK && first == TB_OK) {
			first = v->status;
			if (err)
				*err = e;
		}
	}
	return first;
}

TB_API tb_status tb_format_decode(const tb_format *fmt, const void *rec,
				  size_t len, int big_endian, tb_field_value *vals,
				  size_t nvals, tb_error *err)
{
	tb_reader r;
	tb_status first = TB_OK;
	const uint8_t *stat;
	size_t i, n = nvals;
	if (!fmt || (!vals && nvals) || (!rec && len))
		return tb_fail(err, TB_ERR_ARG, 0, "NULL argument");
	if (n > fmt->nfields)
		n = fmt->nfields;
	tb_rd_init(&r, rec, len, big_endian);
	/* The hot path: every static field lies inside the record, so only
	 * dynamic and rest-of-record fields need their own checks. */
	if (fmt->min_size > 0 && tb_rd_ptr_at(&r, 0, fmt->min_size, &stat))
		return big_endian ? decode_fast(fmt, &r, stat, 1, vals, n, err)
				  : decode_fast(fmt, &r, stat, 0, vals, n, err);
	/* A record too short for its static fields: each field on its own. */
	for (i = 0; i < n; i++) {
		const tb_field *f = &fmt->fields[i];
		tb_field_value *v = &vals[i];
		tb_error e;
		v->num = 0;
		v->status = field_span(f, &r, &v->data, &v->len, &e);
		if (v->status == TB_OK && is_scalar(f) && v->data)
			v->num = load_scalar(v->data, f->size, big_endian, f->flags);
		else if (v->status != TB_OK && first == TB_OK) {
			first = v->status;
			if (err)
				*err = e;
		}
	}
	return first;
}

/* ------------------------------------------------------------------ */
/* Numeric fields resolved once per format.                           */

/* ops[0].shape: SHAPE_COMMON when ops[0..3] are the common fields every
 * kernel since 2.6.32 puts first (u16 common_type, u8 common_flags, u8
 * common_preempt_count, s32 common_pid: one little-endian word at 0),
 * read with constant shifts: they are more than half the numeric fields
 * of a mix's records, and the ops' variable shifts cost 13 instructions
 * a field. */
#define SHAPE_COMMON 1u

static int common_header(const tb_format *fmt, const tb_field_op *ops, uint32_t n)
{
	static const uint8_t off[4] = {0, 2, 3, 4}, size[4] = {2, 1, 1, 4}, sign[4] = {0, 0, 0, 1};
	uint32_t k;
	if (n < 4 || fmt->min_size < 8)
		return 0;
	for (k = 0; k < 4; k++) {
		const tb_field *f = &fmt->fields[ops[k].index];
		if (f->offset != off[k] || f->size != size[k] ||
		    ((f->flags & TB_FIELD_SIGNED) != 0) != sign[k])
			return 0;
	}
	return 1;
}

TB_API tb_status tb_field_reader_init(tb_field_reader *r, const tb_format *fmt,
				      int big_endian, tb_field_op *ops, size_t ops_cap,
				      tb_error *err)
{
	uint32_t i, n = 0, base;
	if (!r || !fmt || (!ops && ops_cap) || (!fmt->fields && fmt->nfields))
		return tb_fail(err, TB_ERR_ARG, 0, "NULL argument");
	r->fmt = fmt;
	r->ops = ops;
	r->nops = 0;
	r->min_size = fmt->min_size;
	r->big_endian = big_endian != 0;
	for (i = 0; i < fmt->nfields; i++) {
		const tb_field *f = &fmt->fields[i];
		if (is_scalar(f) && pow2_size(f->size))
			n++;
	}
	if (n > ops_cap) {
		r->nops = n;
		return tb_fail(err, TB_ERR_NO_SPACE, 0, "field reader storage too small");
	}
	n = 0;
	for (i = 0; i < fmt->nfields && i < TB_FORMAT_MAX_FIELDS; i++) {
		const tb_field *f = &fmt->fields[i];
		tb_field_op *op;
		if (!is_scalar(f) || !pow2_size(f->size))
			continue;
		/* A format's static fields end within min_size (the parser
		 * checks it); a caller-built one that says otherwise is refused
		 * rather than read outside the range a record is checked for. */
		if ((uint64_t)f->offset + f->size > fmt->min_size)
			return tb_fail(err, TB_ERR_VALUE, f->offset,
				       "field ends past the format's static size");
		op = &ops[n++];
		/* 8 bytes from base hold the field and end within min_size;
		 * under 8 static bytes each field is read at its own size. */
		base = fmt->min_size < 8 ? f->offset
		       : f->offset < fmt->min_size - 8 ? f->offset : fmt->min_size - 8;
		op->offset = base;
		op->index = (uint16_t)i; /* < TB_FORMAT_MAX_FIELDS */
		op->size = (uint8_t)f->size;
		op->is_signed = (f->flags & TB_FIELD_SIGNED) != 0;
		op->lshift = (uint8_t)(8 * (big_endian ? f->offset - base
						       : base + 8 - f->offset - f->size));
		op->rshift = (uint8_t)(64 - 8 * f->size);
		op->shape = op->reserved_ = 0;
	}
	r->nops = n;
	if (ops && !big_endian && common_header(fmt, ops, n)) /* (n >= 4: ops is set) */
		ops[0].shape = SHAPE_COMMON;
	return TB_OK;
}

/* One field: its 8-byte window shifted up past the field's end, down to
 * its start, the sign extended as extend() does but from the stored
 * shift (computing it from the size per field cost 6% of a walk).  No
 * branch on the field's size or sign: a record's fields change size and
 * sign from one to the next, and as a jump per size the reads were a
 * third of a walk's time on Zen 5 (mispredicted). */
static inline uint64_t op_read(const tb_field_op *op, const uint8_t *stat, int be)
{
	uint64_t v = (tb_load64(stat + op->offset, be) << op->lshift) >> op->rshift;
	/* the sign bit's place, shifted by the same count as v (one shift
	 * count for both: without BMI2 each count is a move to %cl) */
	uint64_t m = ((uint64_t)op->is_signed << 63) >> op->rshift;
	return (v ^ m) - m;
}

static inline void read_ops(const tb_field_op *ops, const uint8_t *stat, int be,
			    uint64_t *out, size_t n)
{
	size_t k;
	for (k = 0; k < n; k++)
		out[k] = op_read(&ops[k], stat, be);
}

/* Under 8 static bytes no window fits: each field at its own size. */
static void read_ops_narrow(const tb_field_op *ops, const uint8_t *stat, int be,
			    uint64_t *out, size_t n)
{
	size_t k;
	for (k = 0; k < n; k++)
		out[k] = load_scalar(stat + ops[k].offset, ops[k].size, be,
				     ops[k].is_signed ? TB_FIELD_SIGNED : 0u);
}

/* tb_field_reader_read past its fast path: the argument checks and
 * errors, narrow formats, big-endian records, a short `out`. */
static TB_NOINLINE tb_status reader_read_any(const tb_field_reader *r, const void *rec,
					     size_t len, uint64_t *out, size_t nout,
					     size_t *n, tb_error *err)
{
	tb_reader rd;
	const uint8_t *stat;
	size_t cnt;
	if (n)
		*n = 0;
	if (!r || (!out && nout) || (!rec && len) || (!r->ops && r->nops))
		return tb_fail(err, TB_ERR_ARG, 0, "NULL argument");
	cnt = nout < r->nops ? nout : r->nops;
	/* Every op lies inside min_size (tb_field_reader_init saw to it):
	 * one check for the whole record. */
	tb_rd_init(&rd, rec, len, r->big_endian);
	if (!tb_rd_ptr_at(&rd, 0, r->min_size, &stat) || (cnt && !stat))
		return tb_fail(err, TB_ERR_TRUNCATED, len,
			       "record shorter than its format's fields");
	if (r->min_size < 8)
		read_ops_narrow(r->ops, stat, r->big_endian, out, cnt);
	else if (r->big_endian)
		read_ops(r->ops, stat, 1, out, cnt);
	else
		read_ops(r->ops, stat, 0, out, cnt);
	if (n)
		*n = cnt;
	return TB_OK;
}

TB_API tb_status tb_field_reader_read(const tb_field_reader *r, const void *rec,
				      size_t len, uint64_t *out, size_t nout, size_t *n,
				      tb_error *err)
{
	/* The usual call first: a little-endian record holding the format's
	 * static bytes (8 or more), room for every value.  That one length
	 * check covers every field (tb_field_reader_init kept each op's
	 * 8-byte window inside min_size). */
	if (r && rec && out && r->ops && !r->big_endian && r->min_size >= 8 &&
	    len >= r->min_size && nout >= r->nops) {
		const uint8_t *p = rec;
		if (r->nops >= 4 && r->ops[0].shape == SHAPE_COMMON) {
			uint64_t w = tb_load64(p, 0);
			out[0] = w & 0xffff;
			out[1] = (w >> 16) & 0xff;
			out[2] = (w >> 24) & 0xff;
			out[3] = ((w >> 32) ^ 0x80000000u) - 0x80000000u;
			read_ops(r->ops + 4, p, 0, out + 4, r->nops - 4);
		} else {
			read_ops(r->ops, p, 0, out, r->nops);
		}
		if (n)
			*n = r->nops;
		return TB_OK;
	}
	return reader_read_any(r, rec, len, out, nout, n, err);
}
