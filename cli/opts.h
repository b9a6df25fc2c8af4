/*
 * The option parser every command shares.
 *
 * A command describes its options in a table; tb_opts_next walks argv
 * and accepts "--opt value" and "--opt=value", "--" ending the options.
 * Errors name the argument ("tracebound report: unknown option
 * '--bogus'", "... option '--cpu' needs a value") and `CMD --help`
 * lists the options one line each on stdout.
 */
#ifndef TB_CLI_OPTS_H
#define TB_CLI_OPTS_H

#include <stddef.h>
#include <stdint.h>

typedef struct tb_opt {
	int id;            /* > 0, returned by tb_opts_next */
	const char *name;  /* "--cpu", "-t" */
	const char *alias; /* another spelling ("-R"), or NULL */
	const char *arg;   /* the value's name ("LIST"), NULL for a flag */
	const char *help;  /* one line */
} tb_opt;

typedef struct tb_opts {
	const char *cmd;      /* "report" */
	const char *synopsis; /* "[OPTIONS] FILE.dat" */
	const tb_opt *opts;   /* terminated by an entry with id 0 */
	int argc;
	char **argv;
	int i;                /* next argument; start at 1 */
	int no_more;          /* after "--" */
} tb_opts;

/* What tb_opts_next returns besides an option's id. */
enum {
	TB_OPTS_END = 0,       /* argv is done */
	TB_OPTS_POSITIONAL = -1, /* *val is an operand */
	TB_OPTS_HELP = -2,     /* --help was printed: exit 0 */
	TB_OPTS_ERROR = -3     /* the message was printed: exit 2 */
};

void tb_opts_init(tb_opts *p, const char *cmd, const char *synopsis,
		  const tb_opt *opts, int argc, char **argv);

/* The next option (its id, *val its value or NULL) or one of TB_OPTS_*. */
int tb_opts_next(tb_opts *p, const char **val);

/* Print "tracebound CMD: " + the message + usage hint; returns 2. */
int tb_opts_fail(const tb_opts *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The usage line on stderr; returns 2 (a missing operand). */
int tb_opts_usage(const tb_opts *p);

/* Print the usage and the option list to stdout. */
void tb_opts_help(const tb_opts *p);

/* "16k", "1m", "2g", "4096": a size in bytes with k/m/g suffixes (1024-based).
 * 0 on success; else prints a message naming opt and returns -1. */
int tb_opts_size(const tb_opts *p, const char *opt, const char *val, uint64_t *out);

/* --jobs: the default (the machine's online cores, 1 to TB_MAX_JOBS), and
 * a value "N" from 1 to TB_MAX_JOBS (else a message naming the option and
 * -1). */
#define TB_MAX_JOBS 64
int tb_opts_default_jobs(void);
int tb_opts_jobs(const tb_opts *p, const char *val, int *jobs);

/* The threads for an input of len bytes: jobs when --jobs was given, else
 * one under 16 MiB.  A split parses every event format first (2,300 on a
 * recent kernel, 10-15 ms) and starts threads; on the 9.5 MiB sample that
 * outweighed the second core (report: 31-35 ms on one thread, 34-43 ms on
 * two; convert --to perfetto: 36-43 against 46-54); at 15 MiB report's
 * two were even, at 26 MiB two threads won 1.5x. */
int tb_opts_jobs_for(int jobs, int given, uint64_t len);

/* A decimal number in [lo, hi]; else a message and -1. */
int tb_opts_uint(const tb_opts *p, const char *opt, const char *val,
		 uint64_t lo, uint64_t hi, uint64_t *out);

#endif
