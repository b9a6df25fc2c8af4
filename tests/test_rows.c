/*
 * Table rows (include/tracebound/rows.h, docs/tables.md): a format's
 * columns (names, types, nulls, lists) and an event's values, on a raw
 * dump built from the ring-buffer spec: one record whole, one too short
 * for its later fields, one too short for common_pid.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "tracebound/tracebound.h"

#include "pagewriter.h"
#include "testutil.h"

Suite *tb_suite_rows(void);

/* Fields named like session columns (a reserved name, a kprobe's, a
 * plain one) and one of every kind. */
static const char fmt_text[] =
	"name: rows\nID: 9\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:int __ts;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned long __probe_ip;\toffset:12;\tsize:8;\tsigned:0;\n"
	"\tfield:char comm[4];\toffset:20;\tsize:4;\tsigned:0;\n"
	"\tfield:short deltas[2];\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:struct three blob;\toffset:28;\tsize:3;\tsigned:0;\n"
	"\tfield:__data_loc int[] vals;\toffset:32;\tsize:4;\tsigned:1;\n"
	"\tfield:void *where;\toffset:36;\tsize:8;\tsigned:1;\n\n"
	"print fmt: \"x\"\n";

enum { F_TS = 4, F_PROBE, F_COMM, F_DELTAS, F_BLOB, F_VALS, F_WHERE, NFIELDS };

static uint8_t page[4096];

static tb_session *open_dump(void)
{
	tbt_pw w;
	/* common_pid 42, __ts -5, __probe_ip 0xff00000000000000, comm "cat",
	 * deltas -3 4, blob 9 8 7, vals at 44 (8 bytes: -1, 5), where 0 */
	static const uint8_t p[52] = {
		9, 0, 0, 0, 42, 0, 0, 0, 0xfb, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 0xff,
		'c', 'a', 't', 0, 0xfd, 0xff, 4, 0, 9, 8, 7, 0, 44, 0, 8, 0, 0, 0, 0, 0,
		0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 5, 0, 0, 0
	};
	/* pid 43, __ts 7, nothing after it */
	static const uint8_t shortrec[12] = { 9, 0, 0, 0, 43, 0, 0, 0, 7, 0, 0, 0 };
	/* common_type only: no common_pid */
	static const uint8_t tiny[4] = { 9, 0, 0, 0 };
	tbt_pw_init(&w, page, sizeof(page), 0, 8, 1000);
	(void)tbt_pw_data(&w, 0, p, sizeof(p), 0);
	(void)tbt_pw_data(&w, 5, shortrec, sizeof(shortrec), 0);
	(void)tbt_pw_data(&w, 5, tiny, sizeof(tiny), 0);
	tbt_pw_finish(&w, 0, 0, 0);
	return tb_test_raw_session(page, sizeof(page), 2, fmt_text);
}

START_TEST(rows_columns_of_a_format)
{
	static const char *const session[] = { "__ts", "__cpu", "__pid", "__comm", "__buffer",
					       "__subbuf", "__offset" };
	tb_session *s = open_dump();
	tb_session_event ev;
	tb_error err;
	tb_rows_column c[TB_ROWS_MAX_COLUMNS];
	size_t n, i, base = 7;
	ck_assert_int_eq(tb_session_next(s, &ev, &err), TB_OK);
	ck_assert_ptr_nonnull(ev.format);
	n = tb_rows_columns(ev.format, 0, c, TB_ROWS_MAX_COLUMNS);
	ck_assert_uint_eq(n, base + NFIELDS);
	ck_assert_uint_eq(tb_rows_columns(ev.format, 0, NULL, 0), n);
	for (i = 0; i < base; i++) {
		ck_assert_str_eq(c[i].name, session[i]);
		ck_assert(tb_rows_reserved(c[i].name, c[i].name_len));
	}
	/* types of the session columns: unsigned stays unsigned */
	ck_assert(c[0].kind == TB_ROWS_INT && c[0].bits == 64 && !c[0].is_signed && !c[0].nullable);
	ck_assert(c[2].kind == TB_ROWS_INT && c[2].bits == 32 && c[2].is_signed && c[2].nullable);
	ck_assert(c[3].kind == TB_ROWS_TEXT && c[3].nullable);
	ck_assert(c[4].kind == TB_ROWS_TEXT && !c[4].nullable);
	ck_assert(c[5].bits == 64 && c[6].bits == 32 && !c[6].is_signed);
	/* a reserved field name is field:NAME; the others keep theirs */
	ck_assert_str_eq(c[base + F_TS].name, "field:__ts");
	ck_assert_uint_eq(c[base + F_TS].name_len, 10);
	ck_assert_str_eq(c[base + F_PROBE].name, "__probe_ip");
	ck_assert_str_eq(c[base + F_COMM].name, "comm");
	ck_assert(!tb_rows_reserved("__probe_ip", 10) && !tb_rows_reserved("comm", 4));
	ck_assert(tb_rows_reserved("__trace_id", 10) && !tb_rows_reserved("__ts", 3));
	/* kinds */
	ck_assert(c[base + F_TS].kind == TB_ROWS_INT && c[base + F_TS].is_signed &&
		  c[base + F_TS].bits == 32 && c[base + F_TS].nullable);
	ck_assert(c[base + F_PROBE].kind == TB_ROWS_INT && !c[base + F_PROBE].is_signed);
	ck_assert(c[base + F_WHERE].kind == TB_ROWS_INT && !c[base + F_WHERE].is_signed);
	ck_assert_int_eq(c[base + F_COMM].kind, TB_ROWS_TEXT);
	ck_assert(c[base + F_DELTAS].kind == TB_ROWS_LIST && c[base + F_DELTAS].bits == 16 &&
		  c[base + F_DELTAS].is_signed && c[base + F_DELTAS].count == 2);
	ck_assert(c[base + F_VALS].kind == TB_ROWS_LIST && c[base + F_VALS].count == 0);
	ck_assert_int_eq(c[base + F_BLOB].kind, TB_ROWS_BYTES);
	/* the events table: 10 columns, 11 with the rendering */
	ck_assert_uint_eq(tb_rows_columns(NULL, 0, c, TB_ROWS_MAX_COLUMNS), 10);
	ck_assert_str_eq(c[7].name, "__system");
	ck_assert_str_eq(c[9].name, "__id");
	ck_assert_uint_eq(tb_rows_columns(NULL, TB_ROWS_WITH_TEXT, c, 3), 11);
	ck_assert_str_eq(c[2].name, "__pid"); /* only cap written */
	tb_session_close(s);
}
END_TEST

START_TEST(rows_values_and_nulls)
{
	tb_session *s = open_dump();
	tb_session_event ev;
	tb_error err;
	tb_rows_column c[TB_ROWS_MAX_COLUMNS];
	tb_field_value fv[TB_FORMAT_MAX_FIELDS];
	tb_pq_value v[TB_ROWS_MAX_COLUMNS];
	tb_pq_column pc;
	size_t n, base = 7, k;
	const uint8_t *b;
	ck_assert_int_eq(tb_session_next(s, &ev, &err), TB_OK);
	n = tb_rows_columns(ev.format, 0, c, TB_ROWS_MAX_COLUMNS);
	ck_assert_int_eq(tb_rows_values(s, &ev, c, n, fv, TB_FORMAT_MAX_FIELDS, v), TB_OK);
	ck_assert_uint_eq(v[0].i, 1000);
	ck_assert_uint_eq(v[1].i, 2);
	ck_assert(!v[2].is_null && v[2].i == 42);
	ck_assert(v[3].is_null);                      /* a raw dump has no cmdlines */
	ck_assert(!v[4].is_null && v[4].n == 0);      /* the top buffer: '' */
	ck_assert_uint_eq(v[5].i, 0);
	ck_assert_uint_eq(v[6].i, ev.offset);
	ck_assert_int_eq((int64_t)v[base + F_TS].i, -5);
	ck_assert_uint_eq(v[base + F_PROBE].i, 0xff00000000000000ull);
	ck_assert(v[base + F_COMM].n == 3 && !memcmp(v[base + F_COMM].p, "cat", 3));
	ck_assert(v[base + F_DELTAS].n == 2 && v[base + F_DELTAS].elem_size == 2);
	b = v[base + F_DELTAS].p;
	ck_assert(b[0] == 0xfd && b[1] == 0xff && b[2] == 4);
	ck_assert(v[base + F_VALS].n == 2 && v[base + F_VALS].elem_size == 4);
	ck_assert(v[base + F_BLOB].n == 3 && ((const uint8_t *)v[base + F_BLOB].p)[2] == 7);
	/* the Parquet column of each */
	tb_rows_pq_column(&c[0], &pc);
	ck_assert(pc.kind == TB_PQ_INT && pc.bits == 64 && pc.flags == 0);
	tb_rows_pq_column(&c[3], &pc);
	ck_assert(pc.kind == TB_PQ_BYTES &&
		  pc.flags == (TB_PQ_NULLABLE | TB_PQ_TEXT | TB_PQ_DICT));
	ck_assert_str_eq(pc.name, "__comm");
	tb_rows_pq_column(&c[base + F_DELTAS], &pc);
	ck_assert(pc.kind == TB_PQ_LIST && pc.bits == 16 &&
		  pc.flags == (TB_PQ_NULLABLE | TB_PQ_SIGNED));
	tb_rows_pq_column(&c[base + F_BLOB], &pc);
	ck_assert(pc.kind == TB_PQ_BYTES && pc.flags == TB_PQ_NULLABLE);

	/* too short for everything after __ts: those are null, and said */
	ck_assert_int_eq(tb_session_next(s, &ev, &err), TB_OK);
	ck_assert_int_ne(tb_rows_values(s, &ev, c, n, fv, TB_FORMAT_MAX_FIELDS, v), TB_OK);
	ck_assert(!v[2].is_null && v[2].i == 43);
	ck_assert(!v[base + F_TS].is_null && v[base + F_TS].i == 7);
	for (k = F_PROBE; k < NFIELDS; k++)
		ck_assert_msg(v[base + k].is_null, "field %zu", k);
	ck_assert_uint_eq(v[0].i, 1005);

	/* too short for common_pid: __pid and __comm null, common_type read */
	ck_assert_int_eq(tb_session_next(s, &ev, &err), TB_OK);
	ck_assert(!ev.has_pid);
	(void)tb_rows_values(s, &ev, c, n, fv, TB_FORMAT_MAX_FIELDS, v);
	ck_assert(v[2].is_null && v[3].is_null);
	ck_assert(!v[base].is_null && v[base].i == 9);
	ck_assert(v[base + 3].is_null);               /* common_pid */
	/* fewer field slots than fields: the rest are null, and said */
	ck_assert_int_eq(tb_rows_values(s, &ev, c, n, fv, 2, v), TB_ERR_LIMIT);
	ck_assert(!v[base + 1].is_null && v[base + 2].is_null);
	/* the events table of the same event */
	n = tb_rows_columns(NULL, TB_ROWS_WITH_TEXT, c, TB_ROWS_MAX_COLUMNS);
	ck_assert_int_eq(tb_rows_values(s, &ev, c, n, NULL, 0, v), TB_OK);
	ck_assert(v[7].n == 4 && !memcmp(v[7].p, "test", 4));
	ck_assert(v[8].n == 4 && !memcmp(v[8].p, "rows", 4));
	ck_assert(!v[9].is_null && v[9].i == 9);
	ck_assert(v[10].is_null);                     /* __text: the caller's */
	ck_assert_int_eq(tb_session_next(s, &ev, &err), TB_END);
	ev.kind = TB_SEV_DAMAGED;
	ck_assert_int_eq(tb_rows_values(s, &ev, c, n, NULL, 0, v), TB_ERR_ARG);
	ck_assert_int_eq(tb_rows_values(s, NULL, c, n, NULL, 0, v), TB_ERR_ARG);
	tb_session_close(s);
}
END_TEST

Suite *tb_suite_rows(void)
{
	Suite *s = suite_create("rows");
	TCase *tc = tcase_create("rows");
	tcase_add_test(tc, rows_columns_of_a_format);
	tcase_add_test(tc, rows_values_and_nulls);
	suite_add_tcase(s, tc);
	return s;
}
