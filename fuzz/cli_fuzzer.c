/*
 * The CLI's own input paths (cli/ and host/: the parts engine of report
 * --jobs, the Parquet and Perfetto converters with their queues and
 * tables, stats, check, the decompressors) on any bytes taken as a
 * capture file.  The library is fuzzed on its own; this is what cli/ and
 * host/ add on top of it, held to the same gate.
 *
 * The input's last byte picks one command (the rest is the file):
 *   report, report --raw, report --json --text, report --jobs 2,
 *   report --raw --jobs 3, stats, check, convert --to perfetto (--jobs 1
 *   and 2, to /dev/null; cut every 4 KiB of capture, so small inputs
 *   have parts too), convert --to parquet (--jobs 1 and 2, into a
 *   directory that is removed after each run).
 * Promise checked besides the sanitizers': the exit status is 0 (sound) or
 * 1 (malformed input).  2 is a usage, output or memory error, and none of
 * those can come from the bytes of an input this small: an input that
 * makes a command fail its output (a value too large for a column, say)
 * is a bug to fix.
 *
 * The commands print as they would: stdout goes to /dev/null, and the
 * stdio stream stderr too (the FILE only: fd 2 stays for the sanitizers'
 * reports).  Files live in a directory of /dev/shm (else TMPDIR, /tmp)
 * made once per process and removed when it exits.
 */
#define _XOPEN_SOURCE 700 /* nftw */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "cli.h"

static char dir[256], in_path[300], out_dir[300];
static FILE *real_stderr, *null_stderr;

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw);

static void remove_dir(void)
{
	(void)nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

static int setup(void)
{
	const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : getenv("TMPDIR");
	snprintf(dir, sizeof(dir), "%s/tb-cli-fuzz-XXXXXX", base ? base : "/tmp");
	if (!mkdtemp(dir))
		return -1;
	snprintf(in_path, sizeof(in_path), "%s/in.dat", dir);
	snprintf(out_dir, sizeof(out_dir), "%s/out", dir);
	atexit(remove_dir); /* libFuzzer and the replay driver both exit() */
	/* Perfetto's plan cuts every 8 MiB of capture: at that size no input
	 * here would reach its parts and their queue.  Every 4 KiB does. */
	if (setenv("TRACEBOUND_PART_SIZE", "4096", 1) != 0)
		return -1;
	if (!freopen("/dev/null", "w", stdout) || !(null_stderr = fopen("/dev/null", "w")))
		return -1;
	real_stderr = stderr;
	return 0;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int run(int argc, const char *const *args)
{
	char *argv[12];
	int i;
	for (i = 0; i < argc && i < 11; i++)
		argv[i] = (char *)(uintptr_t)args[i];
	argv[i] = NULL;
	stderr = null_stderr; /* the FILE the commands print to; fd 2 is untouched */
	if (!strcmp(args[0], "report"))
		i = tb_cmd_report(argc, argv);
	else if (!strcmp(args[0], "stats"))
		i = tb_cmd_stats(argc, argv);
	else if (!strcmp(args[0], "check"))
		i = tb_cmd_check(argc, argv);
	else
		i = tb_cmd_convert(argc, argv);
	stderr = real_stderr;
	return i;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;
	int fd, rc;
	size_t done = 0;
	unsigned pick;
	if (!ready) {
		if (setup() != 0)
			abort();
		ready = 1;
	}
	if (size < 2)
		return 0;
	pick = data[size - 1] % 11u;
	size--;
	fd = open(in_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	TB_FUZZ_CHECK(fd >= 0);
	while (done < size) {
		ssize_t n = write(fd, data + done, size - done);
		TB_FUZZ_CHECK(n > 0 || errno == EINTR);
		if (n > 0)
			done += (size_t)n;
	}
	close(fd);
	{
		const char *rep[] = { "report", in_path };
		const char *raw[] = { "report", "--raw", in_path };
		const char *json[] = { "report", "--json", "--text", in_path };
		const char *rj2[] = { "report", "--jobs", "2", in_path };
		const char *rrj3[] = { "report", "--raw", "--jobs", "3", in_path };
		const char *stats[] = { "stats", in_path };
		const char *check[] = { "check", in_path };
		const char *pf1[] = { "convert", "--to", "perfetto", "--jobs", "1", "/dev/null", in_path };
		const char *pf2[] = { "convert", "--to", "perfetto", "--jobs", "2", "/dev/null", in_path };
		const char *pq1[] = { "convert", "--to", "parquet", "--jobs", "1", out_dir, in_path };
		const char *pq2[] = { "convert", "--to", "parquet", "--jobs", "2", "--text", out_dir,
				      in_path };
		switch (pick) {
		case 0: rc = run(2, rep); break;
		case 1: rc = run(3, raw); break;
		case 2: rc = run(4, json); break;
		case 3: rc = run(4, rj2); break;
		case 4: rc = run(5, rrj3); break;
		case 5: rc = run(2, stats); break;
		case 6: rc = run(2, check); break;
		case 7: rc = run(7, pf1); break;
		case 8: rc = run(7, pf2); break;
		case 9: rc = run(7, pq1); break;
		default: rc = run(8, pq2); break;
		}
	}
	fflush(stdout);
	if (pick >= 9)
		(void)nftw(out_dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
	/* over the budget (exit 3) is an outcome of its own: a small input may
	 * declare more than max(64 MiB, 16 x its size) */
	TB_FUZZ_CHECK(rc == TB_EXIT_OK || rc == TB_EXIT_MALFORMED || rc == TB_EXIT_BUDGET);
	return 0;
}
