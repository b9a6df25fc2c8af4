/* tracebound: decode untrusted trace captures safely. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "budget.h"
#include "cli.h"

static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *help;
} commands[] = {
	{ "raw", tb_cmd_raw, "raw [--header-page FILE] [--subbuf-size N] [--events DIR] [--all-records] [--json] RAWFILE..." },
	{ "formats", tb_cmd_formats, "formats [--json] DIR" },
	{ "report", tb_cmd_report, "report [--raw] [--json] [--cpu LIST] [--events LIST] [--from T] [--to T] FILE.dat..." },
	{ "check", tb_cmd_check, "check FILE..." },
	{ "stats", tb_cmd_stats, "stats FILE.dat" },
	{ "convert", tb_cmd_convert, "convert --to parquet [--text] [--events DIR [--header-page FILE]] DATASET FILE.dat...|cpuN.raw...\n"
					 "  tracebound convert --to perfetto [--lossless] [--generic] [--events DIR] OUT FILE.dat|RAWFILE..." },
	{ "pmclog", tb_cmd_pmclog, "pmclog [--json] [--addr-size 4|8] [--stop-at-closelog] FILE|-" },
};

static void usage(FILE *out)
{
	size_t i;
	fprintf(out, "usage: tracebound COMMAND [OPTIONS] ...\n\ncommands:\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  tracebound %s\n", commands[i].help);
	fprintf(out, "  tracebound --version\n");
}

/* Every command's output is checked here once: a write that failed
 * (a full disk, a closed pipe) is a message and exit 2, never a silent 0. */
static int finish_output(int rc)
{
	int failed = ferror(stdout), why = failed ? errno : 0;
	if (fflush(stdout) != 0 && !why)
		why = errno;
	failed |= why != 0;
	if (fclose(stdout) != 0) {
		if (!why)
			why = errno;
		failed = 1;
	}
	if (failed) {
		fprintf(stderr, "tracebound: error writing the output: %s\n",
			why ? strerror(why) : "write failed");
		return TB_EXIT_USAGE;
	}
	return rc;
}

int main(int argc, char **argv)
{
	size_t i;
	if (argc < 2) {
		usage(stderr);
		return TB_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return TB_EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("tracebound %s\n", tb_version());
		return TB_EXIT_OK;
	}
	tb_cli_catch_shrinking_inputs();
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (!strcmp(argv[1], commands[i].name)) {
			int rc = commands[i].run(argc - 1, argv + 1);
			/* memory refused for the budget anywhere (a --jobs part, a
			 * format's program) is the command's outcome: exit 3 */
			if (tb_cli_budget_over() && rc != TB_EXIT_BUDGET)
				rc = tb_cli_budget_fail();
			return finish_output(rc);
		}
	}
	fprintf(stderr, "tracebound: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return TB_EXIT_USAGE;
}
