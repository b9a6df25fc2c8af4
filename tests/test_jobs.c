/*
 * report --jobs N: stdout, stderr and the exit status are those of
 * --jobs 1, byte for byte, for N = 2..4, with every kind of line
 * (print fmt, -R, JSON with and without text), the selections (--cpu,
 * --events, -F), --ts-diff (the line state crosses every part boundary),
 * a capture with damaged pages (messages in their place) and one whose
 * clock goes back (the parts do not tile: the one-cursor fallback).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tracebound/tracebound.h"

#include "datwriter.h"
#include "pagewriter.h"
#include "testutil.h"

Suite *tb_suite_jobs(void);

#define V7 "../shared/samples/sched4k.v7.dat"
#define V6 "../shared/samples/sched4k.v6.dat"
#define ZSTD "tests/data/sched4k.v7zstd.dat"

/* --jobs 2..4 against --jobs 1; returns --jobs 1's stdout length. */
static size_t same_as_one_thread(const char *opts, const char *file, int want_status)
{
	tb_test_run one, n;
	char args[512];
	int j;
	size_t len;
	snprintf(args, sizeof(args), "report --jobs 1 %s %s", opts, file);
	tb_test_cli(args, &one);
	ck_assert_int_eq(one.status, want_status);
	for (j = 2; j <= 4; j++) {
		snprintf(args, sizeof(args), "report --jobs %d %s %s", j, opts, file);
		tb_test_cli(args, &n);
		if (n.status != one.status || n.out_len != one.out_len ||
		    memcmp(n.out, one.out, one.out_len) || strcmp(n.err, one.err))
			ck_abort_msg("report --jobs %d %s %s: status %d, %zu bytes out, err '%.200s' "
				     "(--jobs 1: %d, %zu bytes, '%.200s')", j, opts, file, n.status,
				     n.out_len, n.err, one.status, one.out_len, one.err);
		tb_test_run_free(&n);
	}
	len = one.out_len;
	tb_test_run_free(&one);
	return len;
}

START_TEST(jobs_output_is_the_one_thread_output)
{
	static const char *const v7_opts[] = {
		"", "--raw", "--json", "--json --text", "--ts-diff", "-R --ts-diff --cpu 1",
		"-F 'sched_switch: prev_pid == 0' --ts-diff", "-l -t --ts-diff",
		"--events sched,irq --ts-diff -R", "--cpu 0 --json",
	};
	static const char *const v6_opts[] = { "", "--raw --ts-diff", "--json" };
	size_t i;
	if (!tb_test_exists(tb_test_path(V7)) || !tb_test_exists(tb_test_path(V6))) {
		printf("jobs: samples missing, test skipped\n");
		return;
	}
	for (i = 0; i < sizeof(v7_opts) / sizeof(v7_opts[0]); i++)
		ck_assert_uint_gt(same_as_one_thread(v7_opts[i], V7, 0), 10000);
	for (i = 0; i < sizeof(v6_opts) / sizeof(v6_opts[0]); i++)
		ck_assert_uint_gt(same_as_one_thread(v6_opts[i], V6, 0), 100000);
	/* compressed CPU data is not split: one thread, the same output */
	ck_assert_uint_gt(same_as_one_thread("--ts-diff", ZSTD, 0), 100000);
	/* a capture made on this machine (see test_parts.c) */
	{
		const char *fresh = getenv("TB_FRESH_DAT");
		if (fresh && *fresh) {
			char q[1024];
			snprintf(q, sizeof(q), "'%s'", fresh);
			same_as_one_thread("", q, 0);
			same_as_one_thread("-R --ts-diff", q, 0);
			same_as_one_thread("--json --text", q, 0);
		}
	}
}
END_TEST

/* A window (--from/--to) and --ts-offset: the parts keep them, and the
 * output is the one-thread output; an offset that wraps the times past
 * 2^64 is not split (one part), the same output too. */
START_TEST(jobs_window_and_offset)
{
	static const char *const opts[] = {
		"--from 193.0 --to 193.2", "-R --ts-diff --from 193.1", "--json --to 192.95",
		"--from 193.379737 --to 193.379737", "--cpu 1 --from 193.2 --to 193.3",
	};
	size_t i, full;
	if (!tb_test_exists(tb_test_path(V7)))
		return;
	full = same_as_one_thread("", V7, 0);
	for (i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
		size_t n = same_as_one_thread(opts[i], V7, 0);
		ck_assert_msg(n > 100 && n < full, "%s: %zu bytes of %zu", opts[i], n, full);
	}
	ck_assert_uint_eq(same_as_one_thread("", V7 " --ts-offset 1000000000", 0), full);
	ck_assert_uint_lt(same_as_one_thread("--from 194.0 --to 194.2", V7 " --ts-offset 1000000000", 0),
			  full);
	same_as_one_thread("-R", V7 " --ts-offset -193000000000", 0);
}
END_TEST

START_TEST(jobs_damaged_pages_said_in_place)
{
	size_t len;
	uint8_t *d;
	char path[] = "/tmp/tb-jobs-damaged.XXXXXX";
	int fd;
	if (!tb_test_exists(tb_test_path(V7)))
		return;
	d = tb_test_read_file(tb_test_path(V7), &len);
	ck_assert_ptr_nonnull(d);
	/* the commit word of every 37th page of CPU 1: far past the page */
	ck_assert_uint_gt(tb_test_damage_cpu1_pages(d, len), 4);
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	tb_test_write_file(path, d, len);
	same_as_one_thread("", path, 1);
	same_as_one_thread("--json", path, 1);
	same_as_one_thread("-R --ts-diff --cpu 1", path, 1);
	unlink(path);
	free(d);
}
END_TEST

/*
 * Two CPUs of spec-built pages where CPU 0's clock goes back (its third
 * page starts before its second ended): the parts cannot tile there, and
 * the output must still be the one-thread output.
 */
START_TEST(jobs_clock_going_back)
{
	static uint8_t file[1 << 20];
	char path[] = "/tmp/tb-jobs-back.XXXXXX";
	size_t len = dw_clock_back_file(file, sizeof(file));
	int fd = mkstemp(path);
	ck_assert_uint_gt(len, 0);
	ck_assert_int_ge(fd, 0);
	tb_test_write_file(path, file, len);
	ck_assert_uint_gt(same_as_one_thread("", path, 0), 240 * 40);
	same_as_one_thread("--ts-diff -R", path, 0);
	same_as_one_thread("--json", path, 0);
	unlink(path);
}
END_TEST

/* Lines longer than a worker's staging buffer (64 KiB) go straight to a
 * chunk of their own, between short lines staged before and after, and
 * lines longer than a chunk (4 MiB) to a chunk of their size, also when
 * the worker writes its live part itself. */
START_TEST(jobs_lines_longer_than_the_stage)
{
	static uint8_t file[2 << 20];
	char path[] = "/tmp/tb-jobs-long.XXXXXX";
	size_t len = dw_long_lines_file(file, sizeof(file), 2);
	int fd = mkstemp(path);
	ck_assert_uint_gt(len, 0);
	ck_assert_int_ge(fd, 0);
	tb_test_write_file(path, file, len);
	/* 24 events, 8 of them two strings of 60,000 letters */
	ck_assert_uint_gt(same_as_one_thread("", path, 0), 8 * 120000);
	ck_assert_uint_gt(same_as_one_thread("-R", path, 0), 8 * 120000);
	ck_assert_uint_gt(same_as_one_thread("--json --text", path, 0), 8 * 240000);
	/* eighty: lines of 4.8 MB */
	len = dw_long_lines_file(file, sizeof(file), 80);
	ck_assert_uint_gt(len, 0);
	tb_test_write_file(path, file, len);
	ck_assert_uint_gt(same_as_one_thread("", path, 0), 8 * 4800000);
	unlink(path);
}
END_TEST

/* -R: a char array printed as ARRAY[] stays so for the rest of the file
 * (libtraceevent's memory).  Its first record prints a as ARRAY[], every
 * later one would be text: a part whose worker did not see that record
 * must not print text, so report walks on one cursor then. */
START_TEST(jobs_listing_memory_crosses_parts)
{
	static const char fmt[] =
		"name: mem\nID: 300\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
		"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
		"\tfield:__u8 a[4];\toffset:8;\tsize:4;\tsigned:0;\n"
		"\tfield:char s[8];\toffset:12;\tsize:8;\tsigned:0;\n\n"
		"print fmt: \"a=%pI4\", REC->a\n";
	static uint8_t pages[64][4096], file[1 << 20];
	uint8_t rec[20] = { 44, 1, 0, 0, 42, 0, 0, 0, 127, 0, 0, 1, 'a', 'b', 0 };
	char path[] = "/tmp/tb-jobs-mem.XXXXXX", args[256];
	tb_test_run one;
	dw_spec s;
	size_t len, p, i;
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	for (p = 0; p < 64; p++) {
		tbt_pw w;
		tbt_pw_init(&w, pages[p], sizeof(pages[p]), 0, 8, 1000000 + p * 1000000);
		for (i = 0; i < 150; i++) {
			tbt_pw_data(&w, 1000, rec, sizeof(rec), 0);
			rec[8] = 'A'; /* 65.0.0.1: text */
		}
		tbt_pw_finish(&w, 0, 0, 0);
	}
	dw_default(&s, 7);
	s.event_format = fmt;
	s.system = "test";
	s.ftrace_format = NULL;
	s.ncpus = 1;
	s.cpu_data[0] = &pages[0][0];
	s.cpu_size[0] = sizeof(pages);
	len = dw_write(&s, file, sizeof(file), NULL);
	ck_assert_uint_gt(len, 0);
	tb_test_write_file(path, file, len);
	ck_assert_uint_gt(same_as_one_thread("-R", path, 0), 64 * 150 * 60);
	snprintf(args, sizeof(args), "report --jobs 1 -R %s | tail -1", path);
	tb_test_cli(args, &one);
	ck_assert(strstr(one.out, " mem: ") && strstr(one.out, " a=ARRAY[41, 00, 00, 01] s=ab\n"));
	tb_test_run_free(&one);
	same_as_one_thread("-R --ts-diff", path, 0);
	unlink(path);
}
END_TEST

START_TEST(jobs_option_checked)
{
	tb_test_run r;
	static const char *const bad[] = { "0", "65", "x", "2x", "" };
	size_t i;
	char args[128];
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(args, sizeof(args), "report --jobs '%s' %s", bad[i], V7);
		tb_test_cli(args, &r);
		ck_assert_int_eq(r.status, 2);
		ck_assert_ptr_nonnull(strstr(r.err, "a number of threads from 1 to 64"));
		tb_test_run_free(&r);
	}
	tb_test_cli("report --help", &r);
	ck_assert_ptr_nonnull(strstr(r.out, "\n  --jobs, -j N "));
	tb_test_run_free(&r);
}
END_TEST

Suite *tb_suite_jobs(void)
{
	Suite *s = suite_create("jobs");
	TCase *tc = tcase_create("jobs");
	tcase_add_test(tc, jobs_output_is_the_one_thread_output);
	tcase_add_test(tc, jobs_window_and_offset);
	tcase_add_test(tc, jobs_damaged_pages_said_in_place);
	tcase_add_test(tc, jobs_clock_going_back);
	tcase_add_test(tc, jobs_lines_longer_than_the_stage);
	tcase_add_test(tc, jobs_listing_memory_crosses_parts);
	tcase_add_test(tc, jobs_option_checked);
	suite_add_tcase(s, tc);
	return s;
}
