/*
 * Shared by format_fuzzer and field_fuzzer: read every field of a record
 * every way the API allows and check what comes back lies inside the
 * record, and that a record tb_format_check_record accepts reads cleanly.
 *
 * The promise of format.h checked: every accessor (tb_field_bytes, _int,
 * _count, _str, _elem and tb_format_decode) agrees with the harness's own
 * reading of the record's bytes, written from the header's words alone
 * (byte order, sign extension, __data_loc / __rel_loc / the 2-byte loc,
 * rest-of-record, absent dynamic data): same status, same span, same
 * value, and an error at the field's offset.
 */
#ifndef TB_FUZZ_FORMAT_CHECK_H
#define TB_FUZZ_FORMAT_CHECK_H

#include "fuzz.h"
#include "tracebound/format.h"

/* ---- the harness's own reading of the bytes (from format.h) ---- */

static uint64_t own_load(const uint8_t *p, uint32_t size, int be, int sgn)
{
	uint64_t v = 0;
	uint32_t i;
	for (i = 0; i < size; i++)
		v |= (uint64_t)p[be ? i : size - 1 - i] << (8 * (size - 1 - i));
	if (sgn && size < 8 && (v >> (8 * size - 1)) & 1)
		v |= ~(uint64_t)0 << (8 * size);
	return v;
}

static int own_pow2(uint32_t n)
{
	return n == 1 || n == 2 || n == 4 || n == 8;
}

static int own_scalar(const tb_field *f)
{
	return f->kind == TB_FIELD_INT || f->kind == TB_FIELD_LONG ||
	       f->kind == TB_FIELD_POINTER;
}

/* Where the field's bytes are, as format.h describes them: TB_OK with
 * [*o, *o + *l) inside the record (*l == 0: none), or the error. */
static tb_status own_span(const tb_field *f, const uint8_t *rec, size_t len,
			  int be, size_t *o, size_t *l)
{
	*o = f->offset;
	*l = 0;
	switch (f->kind) {
	case TB_FIELD_REST:
		if (*o > len)
			return TB_ERR_TRUNCATED;
		*l = len - *o;
		return TB_OK;
	case TB_FIELD_DYNAMIC:
		if (f->flags & TB_FIELD_LEGACY) {
			/* 2-byte offset; the data runs to the record end */
			if ((uint64_t)f->offset + 2 > len)
				return TB_ERR_TRUNCATED;
			*o = (size_t)own_load(rec + f->offset, 2, be, 0);
			if (*o > len)
				return TB_ERR_RANGE;
			*l = len - *o;
			return TB_OK;
		} else {
			uint64_t loc;
			if ((uint64_t)f->offset + 4 > len)
				return TB_ERR_TRUNCATED;
			loc = own_load(rec + f->offset, 4, be, 0);
			*o = (size_t)(loc & 0xffff);
			*l = (size_t)(loc >> 16);
			if (*l == 0)
				return TB_OK; /* absent */
			if (f->flags & TB_FIELD_REL)
				*o += (size_t)f->offset + f->size;
			if (*o > len || *l > len - *o)
				return TB_ERR_RANGE;
			return TB_OK;
		}
	default:
		*l = f->size;
		if (*o > len || *l > len - *o)
			return TB_ERR_TRUNCATED;
		return TB_OK;
	}
}

/* Every accessor of one field against the harness's own reading. */
static void tb_fuzz_own_reading(const tb_field *f, const uint8_t *rec, size_t len,
				int be, const tb_field_value *val)
{
	size_t o, l, n, cnt;
	const uint8_t *p;
	const char *s;
	uint64_t v;
	tb_error e;
	tb_status own = own_span(f, rec, len, be, &o, &l), st;

	st = tb_field_bytes(f, rec, len, be, &p, &n, &e);
	TB_FUZZ_CHECK(st == own);
	TB_FUZZ_CHECK(val->status == own);
	if (own != TB_OK)
		TB_FUZZ_CHECK(e.offset == f->offset);
	if (own == TB_OK) {
		TB_FUZZ_CHECK(n == l && val->len == l);
		if (l)
			TB_FUZZ_CHECK(p == rec + o && val->data == rec + o);
	}

	st = tb_field_int(f, rec, len, be, &v, &e);
	if (!own_scalar(f) && f->kind != TB_FIELD_OPAQUE)
		TB_FUZZ_CHECK(st == TB_ERR_ARG);
	else if (!own_pow2(f->size))
		TB_FUZZ_CHECK(st == TB_ERR_UNSUPPORTED);
	else if (own != TB_OK)
		TB_FUZZ_CHECK(st == own);
	else {
		TB_FUZZ_CHECK(st == TB_OK);
		TB_FUZZ_CHECK(v == own_load(rec + o, f->size, be, f->flags & TB_FIELD_SIGNED));
		if (own_scalar(f))
			TB_FUZZ_CHECK(val->num == v);
	}

	st = tb_field_count(f, rec, len, be, &cnt, &e);
	if (own != TB_OK)
		TB_FUZZ_CHECK(st == own);
	else if (own_scalar(f))
		TB_FUZZ_CHECK(st == TB_OK && cnt == 1);
	else if (l % f->elem_size)
		TB_FUZZ_CHECK(st == TB_ERR_LENGTH);
	else
		TB_FUZZ_CHECK(st == TB_OK && cnt == l / f->elem_size);
	if ((f->kind == TB_FIELD_ARRAY || f->kind == TB_FIELD_STRING) && own == TB_OK)
		TB_FUZZ_CHECK(f->count * f->elem_size == l);

	st = tb_field_str(f, rec, len, be, &s, &n, &e);
	if (own_scalar(f))
		TB_FUZZ_CHECK(st == TB_ERR_ARG);
	else if (own != TB_OK)
		TB_FUZZ_CHECK(st == own);
	else {
		const uint8_t *nul = l ? (const uint8_t *)memchr(rec + o, 0, l) : NULL;
		TB_FUZZ_CHECK(st == TB_OK);
		TB_FUZZ_CHECK(n == (nul ? (size_t)(nul - (rec + o)) : l));
		if (n)
			TB_FUZZ_CHECK((const uint8_t *)s == rec + o);
	}

	if (own_scalar(f) || f->kind == TB_FIELD_OPAQUE) {
		TB_FUZZ_CHECK(tb_field_elem(f, rec, len, be, 0, &v, &e) == TB_ERR_ARG);
	} else if (!own_pow2(f->elem_size)) {
		TB_FUZZ_CHECK(tb_field_elem(f, rec, len, be, 0, &v, &e) == TB_ERR_UNSUPPORTED);
	} else if (own != TB_OK) {
		TB_FUZZ_CHECK(tb_field_elem(f, rec, len, be, 0, &v, &e) == own);
	} else {
		size_t k, ne = l / f->elem_size, step = ne > 64 ? ne / 16 : 1;
		for (k = 0; k < ne; k += step) {
			TB_FUZZ_CHECK(tb_field_elem(f, rec, len, be, k, &v, &e) == TB_OK);
			TB_FUZZ_CHECK(v == own_load(rec + o + k * f->elem_size, f->elem_size, be,
						    f->flags & TB_FIELD_SIGNED));
		}
		TB_FUZZ_CHECK(tb_field_elem(f, rec, len, be, ne, &v, &e) == TB_ERR_RANGE);
	}
}

/* The numeric reader gives what tb_field_int (and the harness's own
 * reading) gives for each of its fields, and reads nothing from a record
 * short of the static fields. */
static void tb_fuzz_reader_agrees(const tb_format *f, const uint8_t *rec, size_t len,
				  int be)
{
	tb_field_op ops[TB_FORMAT_MAX_FIELDS];
	uint64_t out[TB_FORMAT_MAX_FIELDS], v;
	tb_field_reader rd;
	tb_error e;
	size_t n, k;
	TB_FUZZ_CHECK(tb_field_reader_init(&rd, f, be, ops, TB_FORMAT_MAX_FIELDS, &e) == TB_OK);
	if (tb_field_reader_read(&rd, rec, len, out, TB_FORMAT_MAX_FIELDS, &n, &e) != TB_OK) {
		TB_FUZZ_CHECK(len < f->min_size && n == 0);
		return;
	}
	TB_FUZZ_CHECK(len >= f->min_size && n == rd.nops);
	for (k = 0; k < n; k++) {
		const tb_field *fl = &f->fields[ops[k].index];
		TB_FUZZ_CHECK(own_scalar(fl) && own_pow2(fl->size));
		TB_FUZZ_CHECK(tb_field_int(fl, rec, len, be, &v, &e) == TB_OK);
		TB_FUZZ_CHECK(v == out[k]);
		TB_FUZZ_CHECK(v == own_load(rec + fl->offset, fl->size, be,
					    fl->flags & TB_FIELD_SIGNED));
	}
}

static void tb_fuzz_read_fields(const tb_format *f, const uint8_t *rec, size_t len,
				int be)
{
	tb_field_value vals[TB_FORMAT_MAX_FIELDS];
	tb_error e;
	uint32_t i;
	int checked = tb_format_check_record(f, rec, len, be, &e) == TB_OK;
	tb_status dst = tb_format_decode(f, rec, len, be, vals, TB_FORMAT_MAX_FIELDS, &e);

	if (checked)
		TB_FUZZ_CHECK(dst == TB_OK);
	for (i = 0; i < f->nfields; i++) {
		const tb_field *fl = &f->fields[i];
		const uint8_t *p;
		const char *s;
		size_t n, cnt;
		uint64_t v;
		tb_status st;

		TB_FUZZ_CHECK(vals[i].status == TB_OK || tb_is_error(vals[i].status));
		tb_fuzz_own_reading(fl, rec, len, be, &vals[i]);
		if (vals[i].data)
			TB_FUZZ_CHECK(tb_fuzz_inside(vals[i].data, vals[i].len, rec, len));
		if (fl->kind != TB_FIELD_REST && fl->kind != TB_FIELD_DYNAMIC)
			TB_FUZZ_CHECK((uint64_t)fl->offset + fl->size <= TB_FORMAT_MAX_RECORD);

		st = tb_field_bytes(fl, rec, len, be, &p, &n, &e);
		TB_FUZZ_CHECK(st == vals[i].status);
		if (checked)
			TB_FUZZ_CHECK(st == TB_OK);
		if (st == TB_OK && n)
			TB_FUZZ_CHECK(tb_fuzz_inside(p, n, rec, len));

		st = tb_field_int(fl, rec, len, be, &v, &e);
		if (st == TB_OK)
			TB_FUZZ_CHECK(v == vals[i].num);
		else
			TB_FUZZ_CHECK(tb_is_error(st) && e.what != NULL);

		if (tb_field_str(fl, rec, len, be, &s, &n, &e) == TB_OK && n)
			TB_FUZZ_CHECK(tb_fuzz_inside(s, n, rec, len));

		if (tb_field_count(fl, rec, len, be, &cnt, &e) == TB_OK && cnt) {
			st = tb_field_elem(fl, rec, len, be, cnt - 1, &v, &e);
			if (checked && fl->kind >= TB_FIELD_ARRAY &&
			    fl->kind <= TB_FIELD_REST &&
			    (fl->elem_size == 1 || fl->elem_size == 2 ||
			     fl->elem_size == 4 || fl->elem_size == 8))
				TB_FUZZ_CHECK(st == TB_OK);
			/* an unsigned element never carries bits beyond its size */
			if (tb_field_elem(fl, rec, len, be, 0, &v, &e) == TB_OK &&
			    !(fl->flags & TB_FIELD_SIGNED) && fl->elem_size < 8)
				TB_FUZZ_CHECK(v >> (8 * fl->elem_size) == 0);
			TB_FUZZ_CHECK(tb_field_elem(fl, rec, len, be, cnt, &v, &e) != TB_OK);
		}
	}
	tb_fuzz_reader_agrees(f, rec, len, be);
}

#endif
