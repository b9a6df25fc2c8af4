/*
 * tb_session_set_json_file: the library's JSON writer puts "file" first in
 * every event object (report --json over several captures), escaped by
 * tb_json_str; unset, the object is as before.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracebound/tracebound.h"
#include "testutil.h"

Suite *tb_suite_jsonfile(void);

static void *heap_alloc(void *ctx, size_t n)
{
	(void)ctx;
	return malloc(n);
}

static void heap_free(void *ctx, void *p, size_t n)
{
	(void)ctx;
	(void)n;
	free(p);
}

static const tb_mem heap = { heap_alloc, heap_free, NULL };

START_TEST(json_file_first)
{
	const char *path = tb_test_path("../shared/samples/sched4k.v7.dat");
	tb_session_source src;
	tb_session_options opt = { 0, 0 };
	tb_session *s = NULL;
	tb_session_event ev;
	tb_error err;
	char plain[4096], named[4096];
	size_t len;
	uint8_t *p;
	if (!tb_test_exists(path)) {
		printf("jsonfile: %s missing, test skipped\n", path);
		return;
	}
	p = tb_test_read_file(path, &len);
	memset(&src, 0, sizeof(src));
	src.dat = p;
	src.dat_len = len;
	ck_assert_int_eq(tb_session_open(&s, &src, &opt, &heap, &err), TB_OK);
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

Suite *tb_suite_jsonfile(void)
{
	Suite *s = suite_create("jsonfile");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, json_file_first);
	suite_add_tcase(s, tc);
	return s;
}
