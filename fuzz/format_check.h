/*
 * Shared by format_fuzzer and field_fuzzer: read every field of a record
 * every way the API allows and check what comes back lies inside the
 * record, and that a record tb_format_check_record accepts reads cleanly.
 */
#ifndef TB_FUZZ_FORMAT_CHECK_H
#define TB_FUZZ_FORMAT_CHECK_H

#include "fuzz.h"
#include "tracebound/format.h"

/* The numeric reader gives what tb_field_int gives for each of its
 * fields, and reads nothing from a record short of the static fields. */
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
		TB_FUZZ_CHECK(tb_field_int(&f->fields[ops[k].index], rec, len, be, &v, &e) == TB_OK);
		TB_FUZZ_CHECK(v == out[k]);
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
