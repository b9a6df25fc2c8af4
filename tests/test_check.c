/*
 * The library's check (check.h): the anomalies of damaged copies of the
 * v7 sample, each where the damage was put, with and without
 * TB_SESSION_SKIP_DAMAGED; a sound capture has none.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracebound/tracebound.h"
#include "testutil.h"

Suite *tb_suite_check(void);

static tb_session *open_mem(uint8_t *data, size_t len, unsigned flags)
{
	tb_session_source src;
	tb_session_options opt = { flags, 0 };
	tb_session *s = NULL;
	tb_error err;
	memset(&src, 0, sizeof(src));
	src.dat = data;
	src.dat_len = len;
	ck_assert_int_eq(tb_session_open(&s, &src, &opt, &tb_test_heap, &err), TB_OK);
	return s;
}

static uint8_t *load(size_t *len)
{
	const char *path = tb_test_path("../shared/samples/sched4k.v7.dat");
	if (!tb_test_exists(path)) {
		printf("check: %s missing, test skipped\n", path);
		return NULL;
	}
	return tb_test_read_file(path, len);
}

/* Every anomaly of one walk; returns how many, the first kept in *first. */
static uint64_t walk(tb_session *s, tb_check *c, tb_check_anomaly *first)
{
	tb_check_anomaly a;
	uint64_t n = 0;
	tb_check_init(c, s);
	while (tb_check_next(c, &a) == TB_OK)
		if (n++ == 0)
			*first = a;
	ck_assert_int_eq(tb_check_next(c, &a), TB_END); /* and stays at the end */
	ck_assert_uint_eq(c->anomalies, n);
	return n;
}

/* As `tracebound check` says of the sample: 63,844 events, no anomaly. */
START_TEST(check_sound_sample_has_no_anomaly)
{
	size_t len;
	uint8_t *p = load(&len);
	tb_session *s;
	tb_check c;
	tb_check_anomaly a;
	if (!p)
		return;
	s = open_mem(p, len, 0);
	ck_assert_uint_eq(walk(s, &c, &a), 0);
	ck_assert_uint_eq(c.events, 63844);
	tb_session_close(s);
	free(p);
}
END_TEST

/* A page whose commit says 0xffffffff: one PAGE anomaly, CPU 0, page 2,
 * its offset inside that page; the same opened with SKIP_DAMAGED. */
START_TEST(check_damaged_page)
{
	size_t len, page;
	uint8_t *p = load(&len);
	tb_session *s;
	tb_check c;
	tb_check_anomaly a;
	unsigned flags;
	if (!p)
		return;
	s = open_mem(p, len, 0);
	page = (size_t)tb_session_dat(s)->buffers[0].cpus[0].offset + 2 * 4096;
	tb_session_close(s);
	memset(p + page + 8, 0xff, 4);
	for (flags = 0; flags <= TB_SESSION_SKIP_DAMAGED; flags += TB_SESSION_SKIP_DAMAGED) {
		s = open_mem(p, len, flags);
		ck_assert_uint_eq(walk(s, &c, &a), 1);
		ck_assert_int_eq(a.part, TB_CHECK_PAGE);
		ck_assert_str_eq(a.where, "page");
		ck_assert(tb_is_malformed(a.error.status));
		ck_assert_ptr_nonnull(a.error.what);
		ck_assert_uint_eq(a.cpu, 0);
		ck_assert_uint_eq(a.page, 2);
		ck_assert_uint_ge(a.offset, page);
		ck_assert_uint_lt(a.offset, page + 4096);
		ck_assert_uint_eq(a.offset, a.error.offset);
		ck_assert_uint_eq(c.bad_pages, 1);
		ck_assert_uint_lt(c.events, 63844);
		ck_assert_uint_gt(c.events, 63844 - 200); /* one page of events lost */
		tb_session_close(s);
	}
	free(p);
}
END_TEST

/* A record whose common_type names no format: one EVENT anomaly at the
 * record's file offset, with that id. */
START_TEST(check_event_without_format)
{
	size_t len, at;
	uint8_t *p = load(&len);
	tb_session *s;
	tb_session_event ev;
	tb_error e;
	tb_check c;
	tb_check_anomaly a;
	uint64_t rec;
	if (!p)
		return;
	s = open_mem(p, len, 0);
	/* the 100th event: its payload lies in the file (v7, not compressed) */
	for (at = 0; at < 100; at++)
		ck_assert_int_eq(tb_session_next(s, &ev, &e), TB_OK);
	ck_assert(ev.data > p && ev.data < p + len);
	at = (size_t)(ev.data - p);
	rec = ev.page_offset + ev.offset;
	tb_session_close(s);
	p[at] = 0xfe; /* common_type 0xfffe, little-endian */
	p[at + 1] = 0xff;
	s = open_mem(p, len, 0);
	ck_assert_uint_eq(walk(s, &c, &a), 1);
	ck_assert_int_eq(a.part, TB_CHECK_EVENT);
	ck_assert_str_eq(a.where, "event");
	ck_assert_int_eq(a.error.status, TB_NOT_FOUND);
	ck_assert_str_eq(a.error.what, "event id has no format");
	ck_assert_uint_eq(a.offset, rec);
	ck_assert_uint_eq(a.page_offset + a.record, rec);
	ck_assert_int_eq(a.has_id, 1);
	ck_assert_uint_eq(a.id, 0xfffe);
	ck_assert_ptr_null(a.format);
	ck_assert_uint_eq(c.unknown, 1);
	ck_assert_uint_eq(c.events, 63844); /* the record is still counted */
	tb_session_close(s);
	free(p);
}
END_TEST

/* No session: nothing to walk. */
START_TEST(check_without_session)
{
	tb_check c;
	tb_check_anomaly a;
	tb_check_init(&c, NULL);
	ck_assert_int_eq(tb_check_next(&c, &a), TB_END);
	ck_assert_uint_eq(c.anomalies, 0);
}
END_TEST

/* tb_session_set_json_file: the library's JSON writer puts "file" first
 * in every event object (report --json over several captures), escaped by
 * tb_json_str; unset, the object is as before. */
START_TEST(json_file_first)
{
	tb_session *s;
	tb_session_event ev;
	tb_error err;
	char plain[4096], named[4096];
	size_t len;
	uint8_t *p = load(&len);
	if (!p)
		return;
	s = open_mem(p, len, 0);
	ck_assert_int_eq(tb_session_next(s, &ev, &err), TB_OK);
	ck_assert_int_eq(tb_session_text(s, &ev, TB_TEXT_JSON, plain, sizeof(plain), NULL), TB_OK);
	ck_assert(strncmp(plain, "{\"cpu\":1,", 9) == 0);
	tb_session_set_json_file(s, "a\"b\\c.dat", 9);
	ck_assert_int_eq(tb_session_text(s, &ev, TB_TEXT_JSON, named, sizeof(named), NULL), TB_OK);
	ck_assert_str_eq(named + strlen("{\"file\":\"a\\\"b\\\\c.dat\","), plain + 1);
	ck_assert(strncmp(named, "{\"file\":\"a\\\"b\\\\c.dat\",\"cpu\":1,", 30) == 0);
	tb_session_set_json_file(s, NULL, 5); /* off again */
	ck_assert_int_eq(tb_session_text(s, &ev, TB_TEXT_JSON, named, sizeof(named), NULL), TB_OK);
	ck_assert_str_eq(named, plain);
	tb_session_close(s);
	free(p);
}
END_TEST

Suite *tb_suite_check(void)
{
	Suite *s = suite_create("check");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, check_sound_sample_has_no_anomaly);
	tcase_add_test(tc, check_damaged_page);
	tcase_add_test(tc, check_event_without_format);
	tcase_add_test(tc, check_without_session);
	tcase_add_test(tc, json_file_first);
	suite_add_tcase(s, tc);
	return s;
}
