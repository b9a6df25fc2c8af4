/*
 * convert --to perfetto --jobs N: the trace, stderr and the exit status
 * are those of --jobs 1, byte for byte, for N = 2, 3, 7: on the real
 * samples (plain, --lossless, --generic, -v), a compressed capture (not
 * split: one thread), a copy with damaged pages (the messages and losses
 * in their place) and a capture whose clock goes back (the parts do not
 * tile: the one-cursor walk through the same hooks); raw dumps (not split:
 * one thread).  A write error is
 * exit 2 with its message on several threads too.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tracebound/tracebound.h"

#include "datwriter.h"
#include "testutil.h"

Suite *tb_suite_pfjobs(void);

#define V7 "../shared/samples/sched4k.v7.dat"
#define V6 "../shared/samples/sched4k.v6.dat"
#define ZSTD "tests/data/sched4k.v7zstd.dat"

/* The part size of the cut plan (TRACEBOUND_PART_SIZE; NULL: 8 MiB, so
 * the samples are one part) for the runs that follow. */
static void part_size(const char *bytes)
{
	if (bytes)
		ck_assert_int_eq(setenv("TRACEBOUND_PART_SIZE", bytes, 1), 0);
	else
		ck_assert_int_eq(unsetenv("TRACEBOUND_PART_SIZE"), 0);
}

/* --jobs 2, 3, 7 against --jobs 1 (the trace on stdout); returns the
 * --jobs 1 trace's length.  *err_out (when not NULL) gets its stderr. */
static size_t same_as_one_thread(const char *opts, const char *file, int want_status,
				 char **err_out)
{
	static const int jobs[] = { 2, 3, 7 };
	tb_test_run one, n;
	char args[512];
	size_t j, len;
	snprintf(args, sizeof(args), "convert --to perfetto --jobs 1 %s - %s", opts, file);
	tb_test_cli(args, &one);
	ck_assert_msg(one.status == want_status, "%s: status %d, err '%.300s'", args, one.status,
		      one.err);
	for (j = 0; j < sizeof(jobs) / sizeof(jobs[0]); j++) {
		snprintf(args, sizeof(args), "convert --to perfetto --jobs %d %s - %s", jobs[j],
			 opts, file);
		tb_test_cli(args, &n);
		if (n.status != one.status || n.out_len != one.out_len ||
		    memcmp(n.out, one.out, one.out_len) || strcmp(n.err, one.err))
			ck_abort_msg("%s: status %d, %zu bytes out, err '%.300s' (--jobs 1: %d, %zu "
				     "bytes, '%.300s')", args, n.status, n.out_len, n.err, one.status,
				     one.out_len, one.err);
		tb_test_run_free(&n);
	}
	len = one.out_len;
	if (err_out)
		*err_out = strdup(one.err);
	tb_test_run_free(&one);
	return len;
}

START_TEST(pfjobs_output_is_the_one_thread_output)
{
	char *err = NULL;
	if (!tb_test_exists(tb_test_path(V7)) || !tb_test_exists(tb_test_path(V6))) {
		printf("pfjobs: samples missing, test skipped\n");
		return;
	}
	/* the sizes check.sh's decoded trace has (test_protobuf's cli_convert) */
	ck_assert_uint_eq(same_as_one_thread("", V7, 0, NULL), 4471543);
	ck_assert_uint_gt(same_as_one_thread("--lossless", V7, 0, NULL), 4000000);
	ck_assert_uint_gt(same_as_one_thread("--generic", V7, 0, NULL), 4000000);
	ck_assert_uint_gt(same_as_one_thread("-v", V6, 0, &err), 4000000);
	ck_assert_ptr_nonnull(strstr(err, "63844 events (7289 typed, 56555 generic, 0 unknown), "
				     "71 threads, 277 packets, 4471543 bytes"));
	ck_assert_ptr_nonnull(strstr(err, "32 field values have no place"));
	free(err);
	/* cut every 64 KiB of capture (149 parts): the bundles open at each cut
	 * are written there, on any number of threads */
	part_size("65536");
	ck_assert_uint_eq(same_as_one_thread("-v", V7, 0, &err), 4473749);
	ck_assert_ptr_nonnull(strstr(err, "63844 events (7289 typed, 56555 generic, 0 unknown), "
				     "71 threads, 362 packets, 4473749 bytes"));
	free(err);
	same_as_one_thread("--lossless", V6, 0, NULL);
	part_size(NULL);
	/* a capture cut short (an upload that stopped): the events before the
	 * cut, status 1 as report gives (it was 0: the damage said when the
	 * capture opened did not count) */
	{
		tb_test_run r;
		char tmp[] = "/tmp/tb-pfjobs-XXXXXX", cut[64], args[600];
		ck_assert_ptr_nonnull(mkdtemp(tmp));
		snprintf(cut, sizeof(cut), "%s/cut.dat", tmp);
		snprintf(args, sizeof(args), "head -c 8000000 %s > %s", tb_test_path(V6), cut);
		tb_test_sh(args, &r);
		ck_assert_int_eq(r.status, 0);
		tb_test_run_free(&r);
		ck_assert_uint_eq(same_as_one_thread("", cut, 1, &err), 1093121);
		ck_assert_ptr_nonnull(strstr(err, "CPU 1: data cut short at file offset 8000000: "
					     "218 pages lost"));
		free(err);
		snprintf(args, sizeof(args), "report %s > /dev/null", cut);
		tb_test_cli(args, &r);
		ck_assert_int_eq(r.status, 1);
		tb_test_run_free(&r);
		(void)remove(cut);
		(void)rmdir(tmp);
	}
	/* compressed CPU data is not split: one thread, the same trace */
	ck_assert_uint_eq(same_as_one_thread("-v --lossless", ZSTD, 0, &err), 4473435);
	ck_assert_ptr_nonnull(strstr(err, "63844 events (7257 typed, 56587 generic"));
	free(err);
}
END_TEST

static size_t count_of(const char *s, const char *what)
{
	size_t n = 0;
	while ((s = strstr(s, what)) != NULL) {
		n++;
		s++;
	}
	return n;
}

START_TEST(pfjobs_damaged_pages_said_in_place)
{
	size_t len, npages;
	uint8_t *d;
	char path[] = "/tmp/tb-pfjobs-damaged.XXXXXX", *err = NULL;
	int fd;
	if (!tb_test_exists(tb_test_path(V7)))
		return;
	d = tb_test_read_file(tb_test_path(V7), &len);
	ck_assert_ptr_nonnull(d);
	/* the commit word of every 37th page of CPU 1: far past the page */
	npages = tb_test_damage_cpu1_pages(d, len);
	ck_assert_uint_gt(npages, 4);
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	tb_test_write_file(path, d, len);
	same_as_one_thread("-v", path, 1, &err);
	ck_assert_uint_eq(count_of(err, "the page is skipped, its CPU's next bundle says "
				   "lost_events\n"), npages);
	free(err);
	same_as_one_thread("--lossless", path, 1, NULL);
	part_size("65536"); /* damaged pages inside parts and at their ends */
	same_as_one_thread("-v", path, 1, NULL);
	part_size(NULL);
	unlink(path);
	free(d);
}
END_TEST

/* Fuzzed captures cut every 4 KiB.  One (two buffers, damaged first pages):
 * a bundle saying a loss goes out before the first event, and carries the
 * first event's time on every thread count (it once carried 0 on one
 * thread only: 10 bytes apart). */
START_TEST(pfjobs_fuzzed_captures_cut_small)
{
	char *err = NULL;
	part_size("4096");
	ck_assert_uint_eq(same_as_one_thread("-v", "corpus/tracedat/"
					     "0318e09d7086b37fa097d6d016b08105404ef672", 1, &err),
			  90883);
	ck_assert_ptr_nonnull(strstr(err, "136 events (0 typed, 1 generic, 135 unknown), "
				     "20 threads, 18 packets, 90883 bytes, 7 bundles after a loss"));
	/* a worker stopped inside an event (these parts do not tile) grew its
	 * scratch for ever when the queue refused its bytes: a hang, 1 run in
	 * 4 under ASan with --jobs 3 */
	same_as_one_thread("-v", "corpus/tracedat/03f39b1f6abbcf7138a9edf50474db4964d136fb", 1,
			   NULL);
	part_size(NULL);
	free(err);
}
END_TEST

/* CPU 0's clock goes back: the parts cannot tile there. */
START_TEST(pfjobs_clock_going_back)
{
	static uint8_t file[1 << 20];
	char path[] = "/tmp/tb-pfjobs-back.XXXXXX", *err = NULL;
	size_t len = dw_clock_back_file(file, sizeof(file));
	int fd = mkstemp(path);
	ck_assert_uint_gt(len, 0);
	ck_assert_int_ge(fd, 0);
	close(fd);
	tb_test_write_file(path, file, len);
	ck_assert_uint_gt(same_as_one_thread("-v", path, 0, &err), 240 * 10);
	ck_assert_ptr_nonnull(strstr(err, "tracebound: 240 events (0 typed, 240 generic"));
	free(err);
	same_as_one_thread("--generic", path, 0, NULL);
	/* parts of 4 KiB: the walk that follows the parts that tiled cuts
	 * at the plan's times, as --jobs 1 does */
	part_size("4096");
	ck_assert_uint_gt(same_as_one_thread("-v", path, 0, NULL), 240 * 10);
	part_size(NULL);
	unlink(path);
}
END_TEST

/* Records longer than a worker's staging buffer go straight to a chunk:
 * generic events with two strings of 60,000 letters, many to a chunk;
 * then with eighty, each longer than a chunk (4 MiB), to one of its size. */
START_TEST(pfjobs_records_longer_than_the_stage)
{
	static uint8_t file[2 << 20];
	static const unsigned nstrings[] = { 2, 80 };
	char path[] = "/tmp/tb-pfjobs-long.XXXXXX", *err = NULL;
	int fd = mkstemp(path);
	size_t i;
	ck_assert_int_ge(fd, 0);
	close(fd);
	part_size("4096");
	for (i = 0; i < 2; i++) {
		size_t len = dw_long_lines_file(file, sizeof(file), nstrings[i]);
		ck_assert_uint_gt(len, 0);
		tb_test_write_file(path, file, len);
		ck_assert_uint_gt(same_as_one_thread("-v --generic", path, 0, &err),
				  8 * 60000 * nstrings[i]);
		ck_assert_ptr_nonnull(strstr(err, "24 events (0 typed, 24 generic"));
		free(err);
	}
	part_size(NULL);
	unlink(path);
}
END_TEST

/* Raw dumps are not split: --jobs runs the one-thread loop, same trace. */
START_TEST(pfjobs_raw_dumps_one_thread)
{
	tb_test_run r;
	tb_test_sh("T=$(mktemp -d) && tar xzf tests/data/formats-6.18.tar.gz -C $T && "
		   "R=tests/data/raw-sched4k && "
		   "$CLI convert --to perfetto --jobs 1 --events $T/events $T/one $R/cpu0.raw "
		   "$R/cpu1.raw 2>$T/e1 && "
		   "$CLI convert --to perfetto --jobs 3 --events $T/events $T/three $R/cpu0.raw "
		   "$R/cpu1.raw 2>$T/e3 && cmp $T/one $T/three && cmp $T/e1 $T/e3 && "
		   "wc -c < $T/one; rc=$?; rm -rf $T; exit $rc", &r);
	ck_assert_msg(r.status == 0, "status %d: %s", r.status, r.err);
	ck_assert_uint_eq(strtoul(r.out, NULL, 10), 3919055);
	tb_test_run_free(&r);
}
END_TEST

/* Every write checked on several threads too; the option itself. */
START_TEST(pfjobs_write_error_and_option)
{
	tb_test_run r;
	static const char *const bad[] = { "0", "65", "x", "" };
	const char *in = tb_test_exists(tb_test_path(V7)) ? V7 : ZSTD;
	char args[256];
	size_t i;
	snprintf(args, sizeof(args), "convert --to perfetto --jobs 2 /dev/full %s", in);
	tb_test_cli(args, &r);
	ck_assert_int_eq(r.status, 2);
	ck_assert_ptr_nonnull(strstr(r.err, "tracebound: /dev/full: No space left on device\n"));
	tb_test_run_free(&r);
	snprintf(args, sizeof(args), "convert --to perfetto -j 3 - %s > /dev/full", in);
	tb_test_cli(args, &r);
	ck_assert_int_eq(r.status, 2);
	ck_assert_ptr_nonnull(strstr(r.err, "No space left on device"));
	tb_test_run_free(&r);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(args, sizeof(args), "convert --to perfetto --jobs '%s' /dev/null %s", bad[i],
			 in);
		tb_test_cli(args, &r);
		ck_assert_int_eq(r.status, 2);
		ck_assert_ptr_nonnull(strstr(r.err, "a number of threads from 1 to 64"));
		tb_test_run_free(&r);
	}
	tb_test_cli("convert --to perfetto --help", &r);
	ck_assert_ptr_nonnull(strstr(r.out, "\n  --jobs, -j N "));
	tb_test_run_free(&r);
}
END_TEST

Suite *tb_suite_pfjobs(void)
{
	Suite *s = suite_create("pfjobs");
	TCase *tc = tcase_create("pfjobs");
	tcase_add_test(tc, pfjobs_output_is_the_one_thread_output);
	tcase_add_test(tc, pfjobs_damaged_pages_said_in_place);
	tcase_add_test(tc, pfjobs_clock_going_back);
	tcase_add_test(tc, pfjobs_fuzzed_captures_cut_small);
	tcase_add_test(tc, pfjobs_records_longer_than_the_stage);
	tcase_add_test(tc, pfjobs_raw_dumps_one_thread);
	tcase_add_test(tc, pfjobs_write_error_and_option);
	suite_add_tcase(s, tc);
	return s;
}
