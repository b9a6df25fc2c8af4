/* Event format schemas: the grammar, classification, validation and the set. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "tracebound/format.h"
#include "tarball.h"
#include "testutil.h"

Suite *tb_suite_format(void);

#define NFMT 2323
#define FIELDS_CAP 32768

/* The real formats of one Linux 6.18 machine, parsed into one set. */
typedef struct real_set {
	tb_tarball tar;
	tb_format events[NFMT + 8];
	tb_field *fields;
	uint32_t *index;
	tb_format_set set;
	char systems[NFMT][64];
	size_t nformats;
} real_set;

static real_set *load_real_set(void)
{
	real_set *rs = calloc(1, sizeof(*rs));
	size_t i, ilen = tb_format_index_len(NFMT + 8);
	ck_assert_ptr_nonnull(rs);
	ck_assert_int_eq(tb_tarball_load(tb_test_path("tests/data/formats-6.18.tar.gz"),
					 &rs->tar), 0);
	rs->fields = calloc(FIELDS_CAP, sizeof(tb_field));
	rs->index = calloc(ilen, sizeof(uint32_t));
	ck_assert_int_eq(tb_format_set_init(&rs->set, rs->events, NFMT + 8, rs->fields,
					    FIELDS_CAP, rs->index, ilen, 8),
			 TB_OK);
	for (i = 0; i < rs->tar.count; i++) {
		char ev[128];
		tb_format_error fe;
		tb_status st;
		const tb_tar_entry *e = &rs->tar.entries[i];
		char *sys = rs->systems[rs->nformats < NFMT ? rs->nformats : 0];
		if (!tb_tar_is_format(e, sys, 64, ev, sizeof(ev)))
			continue;
		st = tb_format_set_add(&rs->set, e->data, e->len, sys, strlen(sys), NULL, &fe);
		if (st != TB_OK)
			ck_abort_msg("%s: line %u col %u: %s (%s)", e->path, fe.line,
				     fe.column, fe.error.what, tb_strerror(st));
		rs->nformats++;
	}
	return rs;
}

static void free_real_set(real_set *rs)
{
	tb_tarball_free(&rs->tar);
	free(rs->fields);
	free(rs->index);
	free(rs);
}

static void assert_field(const tb_format *f, const char *name, uint32_t off,
			 uint32_t size, int sig, unsigned kind)
{
	const tb_field *fl = tb_format_field(f, name);
	ck_assert_msg(fl != NULL, "no field %s", name);
	ck_assert_uint_eq(fl->offset, off);
	ck_assert_uint_eq(fl->size, size);
	ck_assert_int_eq(!!(fl->flags & TB_FIELD_SIGNED), sig);
	ck_assert_str_eq(tb_field_kind_name(fl->kind), tb_field_kind_name(kind));
}

START_TEST(all_real_formats_parse)
{
	real_set *rs = load_real_set();
	const tb_format *f;
	const tb_field *fl;
	ck_assert_uint_eq(rs->nformats, NFMT);
	ck_assert_uint_eq(rs->set.count, NFMT);
	/* grep -c field: over the tree, less header_page's 4 lines */
	ck_assert_uint_eq(rs->set.fields_used, 21094);
	ck_assert_uint_eq(rs->set.type_offset, 0);
	ck_assert_uint_eq(rs->set.type_size, 2);

	f = tb_format_set_find(&rs->set, "sched", "sched_switch");
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_eq(tb_format_set_by_id(&rs->set, 372), f);
	ck_assert_uint_eq(f->id, 372);
	ck_assert_uint_eq(f->nfields, 11);
	ck_assert_uint_eq(f->ncommon, 4);
	ck_assert_uint_eq(f->min_size, 64);
	ck_assert_int_eq(f->type_field, 0);
	assert_field(f, "common_type", 0, 2, 0, TB_FIELD_INT);
	assert_field(f, "common_pid", 4, 4, 1, TB_FIELD_INT);
	assert_field(f, "prev_comm", 8, 16, 0, TB_FIELD_STRING);
	assert_field(f, "prev_pid", 24, 4, 1, TB_FIELD_INT);
	assert_field(f, "prev_state", 32, 8, 1, TB_FIELD_LONG);
	assert_field(f, "next_pid", 56, 4, 1, TB_FIELD_INT);
	fl = tb_format_field(f, "prev_comm");
	ck_assert_uint_eq(fl->count, 16);
	ck_assert_uint_eq(fl->elem_size, 1);
	ck_assert(fl->flags & TB_FIELD_TEXT);
	ck_assert(!(fl->flags & TB_FIELD_COMMON));
	ck_assert(tb_format_field(f, "common_flags")->flags & TB_FIELD_COMMON);
	/* the print fmt line is 831 bytes with "print fmt: " and its newline */
	ck_assert_uint_eq(f->print_fmt_len, 819);
	ck_assert(strncmp(f->print_fmt, "\"prev_comm=%s prev_pid=%d", 24) == 0);
	ck_assert(memcmp(f->print_fmt + f->print_fmt_len - 14, "REC->next_prio", 14) == 0);
	ck_assert_uint_eq(f->print_fmt_offset + f->print_fmt_len + 1, f->text_len);
	free_real_set(rs);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("format");
	TCase *tc = tcase_create("real");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, all_real_formats_parse);
	suite_add_tcase(s, tc);
	return s;
}

Suite *tb_suite_format(void)
{
	return suite();
}
