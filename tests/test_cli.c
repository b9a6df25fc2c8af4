/*
 * The built CLI's option handling (cli/opts.c) and its error paths:
 * every command names a bad argument, `CMD --help` lists that command's
 * options and exits 0, sizes take k/m suffixes.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

Suite *tb_suite_cli(void);

/* relative to the source tree, where the commands run (CI clones elsewhere) */
#define V7 "../shared/samples/sched4k.v7.dat"

/* Run the CLI; assert the status and that stderr holds `err` (or is empty). */
static void expect(const char *args, int status, const char *err)
{
	tb_test_run r;
	tb_test_cli(args, &r);
	if (r.status != status || (err && !strstr(r.err, err)))
		ck_abort_msg("tracebound %s: status %d, stderr '%s' (wanted %d, '%s')", args,
			     r.status, r.err, status, err ? err : "");
	tb_test_run_free(&r);
}

START_TEST(unknown_options_are_named)
{
	static const char *const cmds[] = { "report", "raw", "stats", "check", "formats" };
	size_t i;
	char args[128], want[128];
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		snprintf(args, sizeof(args), "%s --bogus x", cmds[i]);
		snprintf(want, sizeof(want), "tracebound %s: unknown option '--bogus'\n", cmds[i]);
		expect(args, 2, want);
		snprintf(args, sizeof(args), "%s --bogus=1 x", cmds[i]);
		expect(args, 2, want);
	}
	expect("report --cpu", 2, "tracebound report: option '--cpu' needs a value\n");
	expect("report --raw=1 x", 2, "option '--raw' takes no value");
	/* report takes several files (merged, as trace-cmd -i a -i b): each must open */
	expect("report a b", 2, "tracebound: a: No such file or directory\n");
	expect("report -i a b", 2, "tracebound: a: No such file or directory\n");
	expect("stats a b", 2, "tracebound stats: a second input file 'b'\n");
	expect("report", 2, "usage: tracebound report ");
	expect("check", 2, "usage: tracebound check ");
}
END_TEST

/* report options that would be ignored in silence are usage errors naming both. */
START_TEST(conflicting_report_options_are_named)
{
	expect("report --raw --json x", 2,
	       "tracebound report: --raw and --json do not go together (--json always has the "
	       "fields; --json --text adds the print fmt text)\n");
	expect("report -R --json x", 2, "--raw and --json do not go together");
	expect("report --text x", 2, "tracebound report: --text goes with --json");
	expect("report --json -t x", 2, "tracebound report: -t and --json do not go together");
	expect("report -l --json x", 2, "tracebound report: -l and --json do not go together");
	expect("report --json --ts-diff x", 2, "--ts-diff and --json do not go together");
	expect("report -F sched_switch -v x", 2, "tracebound report: -v with no -F after it");
	/* the pairs that go together still run (the failure is the missing file) */
	expect("report --json --text /nonexistent.dat", 2, "/nonexistent.dat");
	expect("report --raw -l -t --ts-diff /nonexistent.dat", 2, "/nonexistent.dat");
	expect("report -v -F sched_switch /nonexistent.dat", 2, "/nonexistent.dat");
}
END_TEST

START_TEST(help_lists_each_option)
{
	tb_test_run r;
	tb_test_cli("report --help", &r);
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(r.err, "");
	ck_assert_ptr_nonnull(strstr(r.out, "usage: tracebound report [OPTIONS] FILE.dat...\n"));
	ck_assert_ptr_nonnull(strstr(r.out, "\n  --raw, -R "));
	ck_assert_ptr_nonnull(strstr(r.out, "\n  --cpu LIST "));
	ck_assert_ptr_nonnull(strstr(r.out, "\n  --events LIST "));
	ck_assert_ptr_nonnull(strstr(r.out, "\n  --ts-diff "));
	tb_test_run_free(&r);
	tb_test_cli("raw --help", &r);
	ck_assert_int_eq(r.status, 0);
	ck_assert_ptr_nonnull(strstr(r.out, "\n  --subbuf-size SIZE "));
	ck_assert_ptr_nonnull(strstr(r.out, "\n  --header-page FILE "));
	ck_assert_ptr_nonnull(strstr(r.out, "header_page"));
	tb_test_run_free(&r);
	tb_test_cli("check --help", &r);
	ck_assert_int_eq(r.status, 0);
	ck_assert_ptr_nonnull(strstr(r.out, "\n  --addr-size 4|8 "));
	tb_test_run_free(&r);
	expect("stats --help", 0, NULL);
	expect("formats --help", 0, NULL);
}
END_TEST

START_TEST(option_values_both_spellings)
{
	tb_test_run a, b;
	if (!tb_test_exists(V7))
		return;
	tb_test_cli("report --raw --cpu 1 --events sched_switch " V7, &a);
	tb_test_cli("report --raw --cpu=1 --events=sched_switch -i " V7, &b);
	ck_assert_int_eq(a.status, 0);
	ck_assert_int_eq(b.status, 0);
	ck_assert_uint_gt(tb_test_count_lines(a.out), 10);
	ck_assert_uint_eq(a.out_len, b.out_len);
	ck_assert(!memcmp(a.out, b.out, a.out_len));
	ck_assert_ptr_null(strstr(a.out, "[000]"));
	tb_test_run_free(&a);
	tb_test_run_free(&b);
}
END_TEST

START_TEST(sizes_take_suffixes)
{
	expect("raw --subbuf-size 16 x", 2,
	       "option '--subbuf-size': 16 bytes: the size is in bytes (k and m suffixes), a power of two from 4096");
	expect("raw --subbuf-size 16q x", 2, "'16q' is not a size");
	expect("raw --subbuf-size 2m x", 2, "2097152 bytes");
	/* 16k is accepted: the failure is then the missing file, not the size */
	expect("raw --subbuf-size 16k /nonexistent/cpu0.raw", 2, "/nonexistent/cpu0.raw");
	expect("raw --subbuf-size=4k /nonexistent/cpu0.raw", 2, "/nonexistent/cpu0.raw");
}
END_TEST

START_TEST(check_addr_size_for_legacy_32bit)
{
	tb_test_run r;
	tb_test_cli("check --addr-size 4 tests/data/pmclog/legacy-i386.pmclog "
		    "tests/data/pmclog/legacy-be32.pmclog", &r);
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(r.out,
			 "tests/data/pmclog/legacy-i386.pmclog: pmclog: 21 records, 1 drop "
			 "notifications, 1 of unknown type, 0 anomalies: ok\n"
			 "tests/data/pmclog/legacy-be32.pmclog: pmclog: 21 records, 1 drop "
			 "notifications, 1 of unknown type, 0 anomalies: ok\n");
	tb_test_run_free(&r);
	/* without it the guess is 8 and the stream is malformed */
	tb_test_cli("check tests/data/pmclog/legacy-i386.pmclog", &r);
	ck_assert_int_eq(r.status, 1);
	ck_assert_ptr_nonnull(strstr(r.out, "MALFORMED"));
	tb_test_run_free(&r);
	expect("check --addr-size 7 x", 2, "option '--addr-size': '7' is not 4 or 8");
}
END_TEST

START_TEST(converters_have_help_and_named_errors)
{
	tb_test_run r;
	tb_test_cli("convert --to perfetto --help", &r);
	ck_assert_int_eq(r.status, 0);
	ck_assert_ptr_nonnull(strstr(r.out, "\n  --lossless "));
	ck_assert_ptr_nonnull(strstr(r.out, "\n  --subbuf-size SIZE "));
	tb_test_run_free(&r);
	tb_test_cli("convert --to=parquet --help", &r);
	ck_assert_int_eq(r.status, 0);
	ck_assert_ptr_nonnull(strstr(r.out, "\n  --text "));
	tb_test_run_free(&r);
	expect("convert --help", 0, NULL);
	expect("convert --to xml a b", 2, "tracebound convert: unknown format 'xml'\n");
	expect("convert --to perfetto --bogus a b", 2,
	       "tracebound convert --to perfetto: unknown option '--bogus'\n");
	expect("convert --to perfetto a b c", 2, "a second input file 'c'");
	expect("convert --to perfetto --subbuf-size 16 --events x a b", 2, "16 bytes");
	/* one rule with raw and the library: a power of two (the kernel's sizes) */
	expect("convert --to perfetto --subbuf-size 12k --events x a b", 2,
	       "12288 bytes: the size is in bytes (k and m suffixes), a power of two from 4096");
	expect("convert --to parquet --events", 2, "option '--events' needs a value");
	expect("pmclog --bogus x", 2, "tracebound pmclog: unknown option '--bogus'\n");
	expect("pmclog a b", 2, "tracebound pmclog: a second input file 'b'\n");
	expect("pmclog --addr-size 5 x", 2, "'5' is not 4 or 8");
	expect("pmclog --jobs 0 x", 2, "tracebound pmclog: --jobs '0': a number of threads from 1 to");
	expect("pmclog --help", 0, NULL);
}
END_TEST

/* Nothing fails silently: stdout on /dev/full is a message and exit 2. */
START_TEST(full_stdout_is_exit_2)
{
	static const char *const cmds[] = {
		"report " V7, "report --raw " V7, "report --json " V7, "stats " V7, "check " V7,
		"report --uname " V7, "report --version " V7, "report --stat " V7,
		"report --cpus " V7, "report --first-event --last-event " V7,
		"report --from 193.0 --to 193.1 " V7, "report -i " V7 " --ts-offset 5 -i " V7,
		/* on threads: large blocks go out with write(2), past stdio */
		"report --jobs 2 " V7, "report --jobs 2 --json " V7, "report --jobs 3 --raw " V7,
		"raw tests/data/raw-sched4k/cpu0.raw",
		"raw --json --events tests/data/render/events tests/data/render/cpu0.raw",
		"formats tests/data/render/events", "pmclog tests/data/pmclog/amd64.pmclog",
		"pmclog --json tests/data/pmclog/amd64.pmclog",
		"convert --to perfetto - " V7,
	};
	size_t i;
	char cmd[512];
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		tb_test_run r;
		if (strstr(cmds[i], V7) && !tb_test_exists(V7))
			continue;
		snprintf(cmd, sizeof(cmd), "$CLI %s >/dev/full", cmds[i]);
		tb_test_sh(cmd, &r);
		if (r.status != 2 || !strstr(r.err, "No space left on device"))
			ck_abort_msg("%s: status %d, stderr '%s'", cmds[i], r.status, r.err);
		tb_test_run_free(&r);
	}
}
END_TEST

/* raw takes the sub-buffer size from the header_page (given, else beside
 * the dumps: source.h), then --subbuf-size, then subbuf_kb beside the
 * dump (raw --help); one that says another size is named on stderr with
 * the one used.  hp 0: the header_page is not beside the dumps. */
static void raw_in_copy_hp(const char *kb, const char *args, int hp, tb_test_run *r)
{
	char cmd[1024];
	snprintf(cmd, sizeof(cmd),
		 "T=$(mktemp -d) && cp tests/data/raw-sched4k/* $T/ && %s%s%s%s"
		 "cd $T && $CLI raw %s cpu0.raw cpu1.raw >out; rc=$?; "
		 "$CLI raw --header-page %s cpu0.raw cpu1.raw 2>/dev/null | cmp -s - out "
		 "&& echo same; rm -rf $T; exit $rc",
		 hp ? "" : "mv $T/header_page $T/hp.txt && ",
		 kb ? "echo " : "", kb ? kb : "", kb ? " >$T/subbuf_kb && " : "", args,
		 hp ? "header_page" : "hp.txt");
	tb_test_sh(cmd, r);
}

static void raw_in_copy(const char *kb, const char *args, tb_test_run *r)
{
	raw_in_copy_hp(kb, args, 1, r);
}

/* raw --subbuf-size 4096 with subbuf_kb saying kb KiB, the header_page
 * beside the dumps or not: a warning naming what came first, the same
 * records. */
static void raw_warns(const char *kb, int hp, const char *first)
{
	char want[256];
	tb_test_run r;
	raw_in_copy_hp(kb, "--subbuf-size 4096", hp, &r);
	snprintf(want, sizeof(want), "tracebound: warning: subbuf_kb says %d bytes (%s KiB); "
		 "ignored: %s", atoi(kb) * 1024, kb, first);
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(r.err, want);
	ck_assert_str_eq(r.out, "same\n");
	tb_test_run_free(&r);
}

START_TEST(raw_says_which_subbuf_size_disagrees)
{
	tb_test_run r;
	/* all agree (4096): nothing said */
	raw_in_copy(NULL, "--header-page header_page --subbuf-size 4k", &r);
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(r.err, "");
	ck_assert_str_eq(r.out, "same\n");
	tb_test_run_free(&r);
	raw_in_copy(NULL, "--header-page header_page --subbuf-size 8k", &r);
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(r.err, "tracebound: warning: --subbuf-size 8192 ignored: the header_page "
				"(header_page) says 4096 bytes, and it comes first\n");
	ck_assert_str_eq(r.out, "same\n");
	tb_test_run_free(&r);
	raw_in_copy("8", "--header-page header_page", &r);
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(r.err, "tracebound: warning: subbuf_kb says 8192 bytes (8 KiB); ignored: "
				"the header_page (header_page) says 4096 bytes, and it comes first\n");
	ck_assert_str_eq(r.out, "same\n");
	tb_test_run_free(&r);
	/* the header_page beside the dumps comes first too */
	raw_warns("8", 1, "the header_page (header_page) says 4096 bytes, and it comes first\n");
	raw_warns("8", 0, "--subbuf-size 4096 comes first\n");
	raw_in_copy_hp("x", "--subbuf-size 4096", 0, &r);
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(r.err, "tracebound: warning: subbuf_kb is not a sub-buffer size in KiB; "
				"ignored: --subbuf-size 4096 comes first\n");
	tb_test_run_free(&r);
	/* used alone, a subbuf_kb that is not a size stops raw; one of 4 agrees in silence */
	raw_in_copy_hp("x", "", 0, &r);
	ck_assert_int_eq(r.status, 2);
	ck_assert_str_eq(r.err, "tracebound: subbuf_kb: not a sub-buffer size in KiB\n");
	tb_test_run_free(&r);
	raw_in_copy("4", "--header-page header_page", &r);
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(r.err, "");
	tb_test_run_free(&r);
}
END_TEST

/* A mapped input cut short while report reads it (an upload still being
 * written): the lost pages raise SIGBUS, or a read of CPU data comes up
 * short; either way the CLI says so once and exits 1 (the read once named
 * every page left, 80 KB of stderr, when the cut landed before report read
 * its CPU data: 1 run in 30 with both CPUs busy).  report on one thread blocks on the pipe
 * long before it reaches the end of the data, so the cut lands mid-read
 * (--jobs workers may format the whole sample ahead into their queues). */
START_TEST(input_cut_while_read_is_said)
{
	tb_test_run r;
	if (!tb_test_exists(V7))
		return;
	tb_test_sh("d=$(mktemp -d) && cp " V7 " $d/f.dat && "
		   "{ \"$CLI\" report --jobs 1 $d/f.dat 2>$d/err; echo $? >$d/rc; } | "
		   "{ head -c 1 >/dev/null; truncate -s 4096 $d/f.dat; cat >/dev/null; }; "
		   "cat $d/rc $d/err; rm -r $d", &r);
	ck_assert_str_eq(r.out, "1\ntracebound: an input file shrank while it was being read: stopped\n");
	tb_test_run_free(&r);
}
END_TEST

/* An input is mapped when it is a regular file and read to its end when
 * it is a pipe (host/files.c, tb_input_load): both give the same report.
 * A directory is refused by name. */
START_TEST(inputs_mapped_or_piped_alike)
{
	const char *v6 = tb_test_path("../shared/samples/sched4k.v6.dat");
	char cmd[2048];
	tb_test_run r;
	/* a folder is a raw-dump capture (source.h); / holds no dumps */
	expect("report /", 2, "tracebound: /: no trace.dat and no cpuN / cpuN.raw dumps\n");
	expect("pmclog /", 2, "tracebound: /: Is a directory\n");
	if (!tb_test_exists(v6))
		return;
	snprintf(cmd, sizeof(cmd), "cat '%s' | $CLI report --jobs 1 - | md5sum; "
		 "$CLI report --jobs 1 '%s' | md5sum; $CLI report --jobs 1 '%s' | wc -l", v6, v6, v6);
	tb_test_sh(cmd, &r);
	ck_assert_int_eq(r.status, 0);
	{
		/* three lines: the same digest twice, and a report of many lines */
		const char *a = r.out, *b = strchr(a, '\n'), *c;
		ck_assert_ptr_nonnull(b);
		ck_assert_int_eq(strncmp(a, b + 1, (size_t)(b - a)), 0);
		c = strchr(b + 1, '\n');
		ck_assert_ptr_nonnull(c);
		ck_assert_int_gt(atol(c + 1), 1000);
	}
	tb_test_run_free(&r);
}
END_TEST

/*
 * Standard input is read only as far as the format needs.  The writer
 * offers 64 MiB (16384 blocks of 4 KiB) after what it starts with, and
 * ignores SIGPIPE so that dd says how many blocks went out before the
 * pipe closed: a command that refuses the input from its first bytes (a
 * bad magic: report, stats, check), or stops at a damaged sub-buffer (raw),
 * leaves all but a pipe's worth unread.  They read it all before.
 */
static long blocks_taken(const char *cmd, const char *first, int status, const char *err)
{
	char sh[2048];
	const char *w;
	tb_test_run r;
	long n;
	snprintf(sh, sizeof(sh),
		 "T=$(mktemp -d) && cp tests/data/raw-sched4k/cpu0.raw $T/ && "
		 "printf '\377\377\377\377' | dd of=$T/cpu0.raw bs=1 seek=12296 conv=notrunc "
		 "2>/dev/null && (trap '' PIPE; %s; dd if=/dev/zero bs=4096 count=16384 2>$T/dd) | "
		 "$CLI %s -; rc=$?; echo \"written $(sed -n 's/+.* records out$//p' $T/dd)\" >&2; "
		 "rm -rf $T; exit $rc", first, cmd);
	tb_test_sh(sh, &r);
	w = strstr(r.err, "written ");
	if (r.status != status || !strstr(r.err, err) || !w)
		ck_abort_msg("%s after %s: status %d, stderr '%s'", cmd, first, r.status, r.err);
	n = atol(w + 8);
	tb_test_run_free(&r);
	return n;
}

START_TEST(pipes_are_read_only_as_far_as_needed)
{
	static const char *const dat[] = { "report", "stats", "convert --to perfetto /dev/null" };
	size_t i;
	/* a pipe holds 16 blocks: the rest is left unread */
	for (i = 0; i < sizeof(dat) / sizeof(dat[0]); i++)
		ck_assert_int_lt(blocks_taken(dat[i], "printf NOT-A-TRACE.DAT", 1,
					      "-: not a trace.dat (magic) at offset 0 (bad magic "
					      "number)\n"), 64);
	ck_assert_int_lt(blocks_taken("check", "printf NOT-A-TRACE.DAT", 1, ""), 64);
	/* raw stops at sub-buffer 3, whose commit lies */
	ck_assert_int_lt(blocks_taken("raw", "cat $T/cpu0.raw", 1,
				      "tracebound: -: sub-buffer 3, offset 8 (file offset 12296): "),
			 64);
}
END_TEST

/*
 * Zero-filled bytes read as raw sub-buffers are empty pages (time 0,
 * commit 0).  A dump of nothing else is not sound (it passed as "ok"); a
 * dump with events and an empty tail is.
 */
START_TEST(zeros_are_not_a_raw_dump)
{
	tb_test_run r;
	tb_test_sh("head -c 16777216 /dev/zero | $CLI check -", &r);
	ck_assert_int_eq(r.status, 1);
	ck_assert_str_eq(r.out, "-: every sub-buffer is empty (commit 0, as in zero-filled bytes): "
				"not a trace_pipe_raw dump, which holds only pages with events\n"
				"-: raw sub-buffers (4096-byte): 4096 sub-buffers, 0 events, "
				"0 dropped, 1 anomalies: MALFORMED\n");
	tb_test_run_free(&r);
	tb_test_sh("{ cat tests/data/raw-sched4k/cpu0.raw; head -c 8192 /dev/zero; } | $CLI check -",
		   &r);
	ck_assert_int_eq(r.status, 0);
	ck_assert_ptr_nonnull(strstr(r.out, "-: raw sub-buffers (4096-byte): 147 sub-buffers, "
					    "15353 events, "));
	ck_assert_ptr_nonnull(strstr(r.out, " 0 anomalies: ok\n"));
	tb_test_run_free(&r);
}
END_TEST

/*
 * What streams from a pipe (raw and check of raw dumps, pmclog and check
 * of pmclog logs) prints what it prints from the file, whatever sizes the
 * writer hands the pipe: dd writes blocks of 1 byte to 64 KiB.  The raw
 * dump is also damaged (sub-buffer 3's commit), so the error lines and
 * their offsets are compared too.
 */
static void piped_as_file(const char *dir, const char *file, const char *cmd, const char *sizes)
{
	char sh[2048];
	tb_test_run r;
	snprintf(sh, sizeof(sh),
		 "T=$(mktemp -d) && cp %s/* $T/ && cd $T && "
		 "printf '\377\377\377\377' | dd of=cpu0.raw bs=1 seek=12296 conv=notrunc 2>/dev/null "
		 "&& { $CLI %s %s 2>&1; echo \"status $?\"; } >file; n=0; for bs in %s; do "
		 "{ dd if=%s bs=$bs 2>/dev/null | $CLI %s - 2>&1; echo \"status $?\"; } | "
		 "sed 's|^-:|%s:|; s|^tracebound: [(stdin)-]*:|tracebound: %s:|' >pipe; "
		 "cmp -s file pipe && n=$((n+1)); done; echo \"$n same, $(wc -l <file) lines\"; "
		 "cd / && rm -rf $T",
		 dir, cmd, file, sizes, file, cmd, file, file);
	tb_test_sh(sh, &r);
	ck_assert_int_eq(r.status, 0);
	{
		int same = atoi(r.out), words = 0;
		const char *p;
		for (p = sizes; *p; p++)
			words += *p != ' ' && (p == sizes || p[-1] == ' ');
		if (same != words || atol(strstr(r.out, ", ") + 2) < 2)
			ck_abort_msg("%s %s: %s", cmd, file, r.out);
	}
	tb_test_run_free(&r);
}

START_TEST(streams_from_a_pipe_as_from_the_file)
{
	static const char *const logs[] = { "amd64.pmclog", "legacy-be32.pmclog",
					    "sampling-amd64.pmclog" };
	size_t i;
	const char *raw = "tests/data/raw-sched4k";
	piped_as_file(raw, "cpu0.raw", "raw", "7 4097 65536");
	piped_as_file(raw, "cpu0.raw", "raw --json --all-records", "4096");
	piped_as_file(raw, "cpu0.raw", "check", "4095 65536");
	piped_as_file(raw, "cpu1.raw", "check", "4097");
	for (i = 0; i < sizeof(logs) / sizeof(logs[0]); i++) {
		piped_as_file("tests/data/pmclog", logs[i], "pmclog", "1 3 64 65536");
		piped_as_file("tests/data/pmclog", logs[i], "pmclog --json", "5");
		piped_as_file("tests/data/pmclog", logs[i], "check", "1 3 4097");
	}
}
END_TEST

/* stats over a raw-dump folder: its layout and the sample's counts (it
 * once took every capture without a trace.dat for a perf.data). */
START_TEST(stats_of_a_raw_folder)
{
	tb_test_run r;
	tb_test_cli("stats tests/data/raw-sched4k", &r);
	ck_assert_int_eq(r.status, 0);
	ck_assert_ptr_nonnull(strstr(r.out, "format: raw sub-buffers (2 dumps)\nbyte order: "
					    "little-endian\nlong size: 8\n"));
	ck_assert_ptr_nonnull(strstr(r.out, "events: 53737\npages: 515\ndropped: 145271\n"));
	ck_assert_ptr_nonnull(strstr(r.out, "  cpu 1: 38384 events, 210.161320139 .. "
					    "210.625707435, 145271 dropped\n"));
	tb_test_run_free(&r);
}
END_TEST

/* stats of perf.data captures: a pipe stream, zstd records, lost samples. */
START_TEST(stats_of_perf_captures)
{
	tb_test_run r;
	tb_test_cli("stats tests/data/perf/pipe.data", &r);
	ck_assert_int_eq(r.status, 0);
	/* the header's strings come as HEADER_FEATURE records in a pipe */
	ck_assert_ptr_nonnull(strstr(r.out, "format: perf.data (pipe stream)\ncompression: none\n"
					    "hostname: vm\nosrelease: 6.18.44-fc-v1272\n"
					    "perf version: 6.1.187\n"));
	ck_assert_ptr_nonnull(strstr(r.out, "attrs: 27\n"));
	ck_assert_ptr_nonnull(strstr(r.out, "events: 765\npages: 0\ndropped: 0\n"));
	tb_test_run_free(&r);
	tb_test_cli("stats tests/data/perf/schedz.data", &r);
	ck_assert_int_eq(r.status, 0);
	ck_assert_ptr_nonnull(strstr(r.out, "format: perf.data\ncompression: zstd\nhostname: vm\n"
					    "osrelease: 6.18.44-fc-v1272\nperf version: 6.1.187\n"));
	ck_assert_ptr_nonnull(strstr(r.out, "events: 122\n"));
	tb_test_run_free(&r);
	tb_test_cli("stats tests/data/perf/lost.data", &r);
	ck_assert_int_eq(r.status, 0);
	ck_assert_ptr_nonnull(strstr(r.out, "events: 842\npages: 0\ndropped: 4\n"));
	tb_test_run_free(&r);
}
END_TEST

/* A folder's events/ with 300 systems is read once, not once per system
 * (host/capture.c keeps two listings; it was 603 reads, quadratic: 5,000
 * systems took 93 s).  Counted by strace, which every machine here has. */
START_TEST(events_folder_listed_once)
{
	tb_test_run r;
	tb_test_sh("T=$(mktemp -d) && cp tests/data/raw-sched4k/* $T/ && mkdir $T/events && "
		   "(cd $T/events && for i in $(seq 1 300); do mkdir s$i; done) && "
		   "strace -f -e trace=openat $CLI stats $T 2>&1 >/dev/null | "
		   "grep -c \"$T/events\\\", O_RDONLY\"; rm -rf $T", &r);
	ck_assert_str_eq(r.out, "1\n");
	tb_test_run_free(&r);
}
END_TEST

/* An empty input is said as "empty input" by every command, and exits 1. */
START_TEST(empty_inputs_are_said)
{
	tb_test_run r;
	expect("raw /dev/null", 1, "tracebound: /dev/null: empty input (no ring-buffer sub-buffers)\n");
	expect("pmclog /dev/null", 1, "tracebound: /dev/null: empty input (no pmclog records)\n");
	tb_test_sh("$CLI pmclog - </dev/null", &r);
	ck_assert_int_eq(r.status, 1);
	ck_assert_str_eq(r.err, "tracebound: (stdin): empty input (no pmclog records)\n");
	tb_test_run_free(&r);
	tb_test_cli("check /dev/null", &r);
	ck_assert_int_eq(r.status, 1);
	ck_assert_str_eq(r.out, "/dev/null: empty input (not a trace.dat, a pmclog stream or raw "
				"sub-buffers)\n");
	tb_test_run_free(&r);
	tb_test_cli("check --addr-size 4 /dev/null", &r);
	ck_assert_int_eq(r.status, 1);
	ck_assert_ptr_nonnull(strstr(r.out, "/dev/null: empty input"));
	tb_test_run_free(&r);
	expect("report /dev/null", 1, "tracebound: /dev/null: empty input (no trace.dat header)\n");
	expect("stats /dev/null", 1, "tracebound: /dev/null: empty input (no trace.dat header)\n");
	expect("pmclog --addr-size 4 /dev/null", 1, "empty input (no pmclog records)");
	{
		/* the same words and status from every command that reads a
		 * trace.dat (convert --to perfetto said "shorter than the magic
		 * at offset 0"), and formats of a file is status 1 too (it was
		 * 2, as for a path that cannot be read) */
		static const char *const cmds[] = {
			"report", "report --raw", "report --jobs 2", "stats",
			"convert --to perfetto /dev/null", "convert --to perfetto --jobs 2 /dev/null",
			"convert --to parquet $T/pq", "convert --to parquet --jobs 2 $T/pq",
		};
		char tmp[] = "/tmp/tb-cli-empty-XXXXXX", args[600], want[600];
		size_t i;
		ck_assert_ptr_nonnull(mkdtemp(tmp));
		for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
			snprintf(args, sizeof(args), "T=%s; : > $T/e.dat; $CLI %s $T/e.dat", tmp,
				 cmds[i]);
			tb_test_sh(args, &r);
			snprintf(want, sizeof(want),
				 "tracebound: %s/e.dat: empty input (no trace.dat header)\n", tmp);
			ck_assert_msg(r.status == 1 && !strcmp(r.err, want), "%s: %d '%s'", cmds[i],
				      r.status, r.err);
			tb_test_run_free(&r);
		}
		snprintf(args, sizeof(args), "T=%s; $CLI formats $T/e.dat; echo x > $T/x; "
			 "$CLI formats $T/x; echo rc=$?; $CLI formats $T/nosuch; echo rc=$?; rm -rf $T", tmp);
		tb_test_sh(args, &r);
		ck_assert_int_eq(r.status, 0);
		ck_assert_str_eq(r.out, "rc=1\nrc=2\n");
		ck_assert_ptr_nonnull(strstr(r.err, "/e.dat: empty input (no <system>/<event>/format "
						    "files)\n"));
		ck_assert_ptr_nonnull(strstr(r.err, "/x: not a directory of <system>/<event>/format "
						    "files\n"));
		tb_test_run_free(&r);
	}
	expect("formats /dev/null", 1, "tracebound: /dev/null: empty input (no <system>/<event>/format files)\n");
}
END_TEST

/* A capture cut short in its CPU data (an upload that stopped): every
 * command that reads its events says the cut and exits 1.  stats and
 * convert --to perfetto exited 0 here: they counted damaged pages only,
 * not the damage said when the capture opened. */
START_TEST(cut_capture_is_status_1_everywhere)
{
	static const char *const cmds[] = {
		"report", "report --raw", "report --json", "stats", "check",
		"convert --to perfetto /dev/null", "convert --to parquet $T/out",
	};
	char tmp[] = "/tmp/tb-cli-cut-XXXXXX", args[700];
	tb_test_run r;
	size_t i;
	if (!tb_test_exists(tb_test_path("../shared/samples/sched4k.v6.dat")))
		return;
	ck_assert_ptr_nonnull(mkdtemp(tmp));
	snprintf(args, sizeof(args), "head -c 8000000 %s > %s/cut.dat",
		 tb_test_path("../shared/samples/sched4k.v6.dat"), tmp);
	tb_test_sh(args, &r);
	ck_assert_int_eq(r.status, 0);
	tb_test_run_free(&r);
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		snprintf(args, sizeof(args), "T=%s; $CLI %s $T/cut.dat > /dev/null", tmp, cmds[i]);
		tb_test_sh(args, &r);
		ck_assert_msg(r.status == 1, "%s: status %d", cmds[i], r.status);
		ck_assert_msg(strstr(r.err, "CPU 1: data cut short at file offset 8000000") ||
			      !strcmp(cmds[i], "check"), "%s: %s", cmds[i], r.err);
		tb_test_run_free(&r);
	}
	snprintf(args, sizeof(args), "rm -rf %s", tmp);
	tb_test_sh(args, &r);
	tb_test_run_free(&r);
}
END_TEST

/* Damaged pages of one of several raw dumps are said with that dump's
 * name (they were said as the first file's: "cpu0.raw: ... CPU 1"), by
 * every command that reads several dumps, with and without --jobs. */
START_TEST(raw_dump_errors_name_their_file)
{
	static const char *const cmds[] = {
		"convert --to perfetto --events $E /dev/null",
		"convert --to perfetto --jobs 2 --events $E /dev/null",
		"convert --to parquet --events $E $T/pq",
		"convert --to parquet --jobs 2 --events $E $T/pq",
		"raw", "check",
	};
	char tmp[] = "/tmp/tb-cli-dumps-XXXXXX", args[900], path[600];
	size_t n, i, pg;
	uint8_t *d = tb_test_read_file(tb_test_path("tests/data/raw-sched4k/cpu1.raw"), &n);
	tb_test_run r;
	ck_assert_ptr_nonnull(d);
	ck_assert_ptr_nonnull(mkdtemp(tmp));
	/* CPU 1's sub-buffers 5 and 9: a commit far past the page */
	for (pg = 5; pg <= 9; pg += 4)
		for (i = 0; i < 8; i++)
			d[pg * 4096 + 8 + i] = i < 3 ? 0xff : 0;
	snprintf(path, sizeof(path), "%s/cpu1.raw", tmp);
	tb_test_write_file(path, d, n);
	free(d);
	snprintf(args, sizeof(args), "cp %s %s/", tb_test_path("tests/data/raw-sched4k/cpu0.raw"),
		 tmp);
	tb_test_sh(args, &r);
	ck_assert_int_eq(r.status, 0);
	tb_test_run_free(&r);
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		char want[700];
		/* (check says it on stdout, the others on stderr) */
		snprintf(args, sizeof(args), "T=%s; E=%s; rm -rf $T/pq; $CLI %s $T/cpu0.raw $T/cpu1.raw "
			 "%s", tmp, tb_test_path("tests/data/render/events"), cmds[i],
			 strcmp(cmds[i], "check") ? "2>&1 >/dev/null" : "2>&1");
		tb_test_sh(args, &r);
		ck_assert_msg(r.status == 1, "%s: status %d", cmds[i], r.status);
		/* the pages at file offsets 20480 and 36864 of cpu1.raw, named
		 * so (raw stops a dump at its first fault) */
		snprintf(want, sizeof(want), "%s/cpu1.raw: ", tmp);
		ck_assert_msg(strstr(r.out, want) && strstr(r.out, "20488") &&
			      (strstr(r.out, "36872") || !strcmp(cmds[i], "raw")),
			      "%s: %s", cmds[i], r.out);
		snprintf(want, sizeof(want), "%s/cpu0.raw: %s", tmp,
			 i < 2 ? "CPU 1" : i < 4 ? "buffer" : "sub-buffer");
		ck_assert_msg(!strstr(r.out, want), "%s: %s", cmds[i], r.out);
		if (i == 0) {
			snprintf(want, sizeof(want), "tracebound: %s/cpu1.raw: CPU 1, file offset 20488: "
						     "commit exceeds the sub-buffer data capacity", tmp);
			ck_assert_msg(strstr(r.out, want) != NULL, "%s", r.out);
		}
		if (i == 2) {
			snprintf(want, sizeof(want), "tracebound: %s/cpu1.raw: buffer \"\" CPU 1, "
						     "sub-buffer 9, file offset 36872: ", tmp);
			ck_assert_msg(strstr(r.out, want) != NULL, "%s", r.out);
		}
		tb_test_run_free(&r);
	}
	snprintf(args, sizeof(args), "rm -rf %s", tmp);
	tb_test_sh(args, &r);
	tb_test_run_free(&r);
}
END_TEST

/* report --raw -t / --ts-diff / -l equal trace-cmd report -N -R with them on
 * the three samples, byte for byte (run when trace-cmd is installed). */
START_TEST(line_options_match_trace_cmd)
{
	static const char *const samples[] = { "sched4k.v6.dat", "sched4k.v7.dat",
					       "sched4k.v7zstd.dat" };
	static const char *const opts[] = { "-t", "--ts-diff", "-l", "-l -t" };
	size_t i, k;
	char cmd[1024];
	tb_test_run r;
	tb_test_sh("command -v trace-cmd", &r);
	k = (size_t)r.status;
	tb_test_run_free(&r);
	if (k != 0)
		return;
	for (i = 0; i < 3; i++)
		for (k = 0; k < sizeof(opts) / sizeof(opts[0]); k++) {
			char f[256];
			snprintf(f, sizeof(f), "%s", tb_test_path("../shared/samples/"));
			snprintf(f + strlen(f), sizeof(f) - strlen(f), "%s", samples[i]);
			if (!tb_test_exists(f))
				continue;
			snprintf(cmd, sizeof(cmd),
				 "T=$(mktemp -d) && trace-cmd report -N -R %s -i %s >$T/a 2>/dev/null; "
				 "$CLI report --raw %s %s >$T/b 2>/dev/null; "
				 "cmp $T/a $T/b && wc -l <$T/b; rc=$?; rm -rf $T; exit $rc",
				 opts[k], f, opts[k], f);
			tb_test_sh(cmd, &r);
			if (r.status != 0 || atol(r.out) < 1000)
				ck_abort_msg("%s %s: %s%s", samples[i], opts[k], r.out, r.err);
			tb_test_run_free(&r);
		}
}
END_TEST

/* -R -l prints the CPU then "-0x" and common_flags in hex where -l prints
 * the flag letters and depths (trace-cmd report -R -l on sched4k.v7.dat). */
START_TEST(raw_latency_column_is_the_flags_in_hex)
{
	tb_test_run r;
	if (!tb_test_exists(V7))
		return;
	tb_test_sh("$CLI report --raw -l " V7 " | sed -n '2p;497p'", &r);
	ck_assert_str_eq(r.out,
			 "memfd:se-1573    1-0x0   192.833676: sys_enter_newfstat:    "
			 "__syscall_nr=5 fd=0x00000005 statbuf=0x7fff89a3be00\n"
			 "  <idle>-0       1-0x35   192.837110: sched_wakeup:          "
			 "comm=ls pid=11852 prio=120 target_cpu=001\n");
	tb_test_run_free(&r);
	tb_test_sh("$CLI report -l " V7 " | sed -n 497p", &r);
	ck_assert_str_eq(r.out, "  <idle>-0       1dNs5.   192.837110: sched_wakeup:         "
				"comm=ls pid=11852 prio=120 target_cpu=001\n");
	tb_test_run_free(&r);
}
END_TEST

/* stats: the uname and trace clock of the file, drops per CPU (trace-cmd
 * report --stat: CPU 0 overrun 2746, CPU 1 none), events most frequent
 * first and equal counts by name; the whole output is golden. */
START_TEST(stats_sorted_with_uname_clock_and_cpu_drops)
{
	tb_test_run r;
	if (!tb_test_exists(V7))
		return;
	tb_test_sh("$CLI stats " V7 " | sed 1d | cmp - tests/golden/sched4k.v7.dat.stats", &r);
	if (r.status != 0)
		ck_abort_msg("stats differs from tests/golden/sched4k.v7.dat.stats: %s%s", r.out,
			     r.err);
	tb_test_run_free(&r);
	tb_test_cli("stats " V7, &r);
	ck_assert_int_eq(r.status, 0);
	ck_assert_ptr_nonnull(strstr(r.out, "\nuname: Linux vm 6.18.44-fc-v769 x86_64\n"));
	ck_assert_ptr_nonnull(strstr(r.out, "\ntrace clock: local\n"));
	ck_assert_ptr_nonnull(strstr(r.out, "\n  cpu 0: 39537 events, 192.942945684 .. "
					    "193.379737076, 2746 dropped\n"));
	ck_assert_ptr_nonnull(strstr(r.out, "\n  cpu 1: 24307 events, 192.833676481 .. "
					    "193.372119783, 0 dropped\n"));
	ck_assert_ptr_nonnull(strstr(r.out, "\nper event:\n"
					    "        8639  syscalls:sys_exit_read\n"
					    "        8638  syscalls:sys_enter_read\n"));
	ck_assert_ptr_nonnull(strstr(r.out, "\n          98  syscalls:sys_enter_brk\n"
					    "          98  syscalls:sys_enter_fcntl\n"
					    "          98  syscalls:sys_exit_brk\n"));
	tb_test_run_free(&r);
}
END_TEST

/* Selections as trace-cmd makes them, and said when they match nothing. */
START_TEST(selections_match_trace_cmd_or_say_why_not)
{
	static const char *const errs[][2] = {
		/* every one named by its command, as the option parser's are */
		{ "--events nosuch", "tracebound report: no event matches 'nosuch'" },
		{ "--events 'a:b:c'", "tracebound report: --events 'a:b:c': " },
		{ "--cpu 99", "tracebound report: --cpu '99': " },
		{ "--cpu 1-0", "tracebound report: --cpu '1-0': " },
		{ "--cpu x", "tracebound report: --cpu 'x': " },
		{ "-F 'nosuch: x == 1'",
		  "tracebound report: -F 'nosuch: x == 1': no event of the capture matches it" },
		{ "-F 'sched_switch: prev_pid =='", "tracebound report: -F 'sched_switch: prev_pid ==': " },
		{ "-v -v", "tracebound report: -v given twice" },
	};
	static const char *const filters[] = {
		"-F 'sched_switch: prev_pid == 0 || next_comm =~ \"^kworker\"'",
		"-F 'sched/sched_wak.*'",
		"-F sched_switch -v -F 'sched_switch: prev_pid == 0'",
	};
	char f[512], cmd[2048];
	tb_test_run r;
	size_t i;
	snprintf(f, sizeof(f), "%s", tb_test_path("../shared/samples/sched4k.v7.dat"));
	if (!tb_test_exists(f))
		return;
	for (i = 0; i < sizeof(errs) / sizeof(errs[0]); i++) {
		snprintf(cmd, sizeof(cmd), "$CLI report %s '%s'", errs[i][0], f);
		tb_test_sh(cmd, &r);
		ck_assert_int_eq(r.status, 2);
		if (!strstr(r.err, errs[i][1]))
			ck_abort_msg("%s: %s", errs[i][0], r.err);
		ck_assert_uint_eq(r.out_len, 0);
		tb_test_run_free(&r);
	}
	/* a system name selects the system; system:* and globs too */
	snprintf(cmd, sizeof(cmd), "for e in sched 'sched:*' 'sched_*'; do $CLI report --events \"$e\" '%s' | wc -l; done", f);
	tb_test_sh(cmd, &r);
	ck_assert_str_eq(r.out, "3673\n3673\n3673\n");
	tb_test_run_free(&r);
	tb_test_sh("command -v trace-cmd", &r);
	i = (size_t)r.status;
	tb_test_run_free(&r);
	if (i != 0)
		return;
	for (i = 0; i < sizeof(filters) / sizeof(filters[0]); i++) {
		snprintf(cmd, sizeof(cmd),
			 "T=$(mktemp -d) && trace-cmd report -N -R %s -i '%s' >$T/a 2>/dev/null; "
			 "$CLI report --raw %s '%s' >$T/b; cmp $T/a $T/b && wc -l <$T/b; rc=$?; "
			 "rm -rf $T; exit $rc", filters[i], f, filters[i], f);
		tb_test_sh(cmd, &r);
		if (r.status != 0 || atol(r.out) < 200)
			ck_abort_msg("%s: %s%s", filters[i], r.out, r.err);
		tb_test_run_free(&r);
	}
}
END_TEST

Suite *tb_suite_cli(void)
{
	Suite *s = suite_create("cli");
	TCase *t = tcase_create("cli");
	tcase_set_timeout(t, 60);
	tcase_add_test(t, unknown_options_are_named);
	tcase_add_test(t, input_cut_while_read_is_said);
	tcase_add_test(t, help_lists_each_option);
	tcase_add_test(t, conflicting_report_options_are_named);
	tcase_add_test(t, option_values_both_spellings);
	tcase_add_test(t, sizes_take_suffixes);
	tcase_add_test(t, check_addr_size_for_legacy_32bit);
	tcase_add_test(t, converters_have_help_and_named_errors);
	tcase_add_test(t, full_stdout_is_exit_2);
	tcase_add_test(t, stats_of_a_raw_folder);
	tcase_add_test(t, stats_of_perf_captures);
	tcase_add_test(t, events_folder_listed_once);
	tcase_add_test(t, empty_inputs_are_said);
	tcase_add_test(t, inputs_mapped_or_piped_alike);
	tcase_add_test(t, pipes_are_read_only_as_far_as_needed);
	tcase_add_test(t, zeros_are_not_a_raw_dump);
	tcase_add_test(t, streams_from_a_pipe_as_from_the_file);
	tcase_add_test(t, cut_capture_is_status_1_everywhere);
	tcase_add_test(t, raw_dump_errors_name_their_file);
	tcase_add_test(t, raw_says_which_subbuf_size_disagrees);
	tcase_add_test(t, line_options_match_trace_cmd);
	tcase_add_test(t, stats_sorted_with_uname_clock_and_cpu_drops);
	tcase_add_test(t, raw_latency_column_is_the_flags_in_hex);
	tcase_add_test(t, selections_match_trace_cmd_or_say_why_not);
	suite_add_tcase(s, t);
	return s;
}
