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

/*
 * The options every command may list, parsed by the table: an entry with
 * one of these ids (its name, spelling and help are the command's) is
 * checked and stored in tb_opts.v by tb_opts_next, which goes on to the
 * next argument; a bad value is the message and TB_OPTS_ERROR.  Own
 * options have ids 1 to TB_OPT_COMMON - 1.
 */
enum {
	TB_OPT_COMMON = 64,
	TB_OPT_JSON = TB_OPT_COMMON, /* flag: v.json */
	TB_OPT_JOBS,        /* N from 1 to TB_MAX_JOBS: v.jobs, v.jobs_given */
	TB_OPT_MAX_MEMORY,  /* SIZE: the budget (budget.h) */
	TB_OPT_EVENTS,      /* DIR or LIST: v.events */
	TB_OPT_HEADER_PAGE, /* FILE: v.header_page */
	TB_OPT_SUBBUF_SIZE, /* SIZE, a power of two from 4096 to 1m: v.subbuf_size */
	TB_OPT_ADDR_SIZE,   /* 4|8 (pmclog): v.addr_size */
	TB_OPT_COMMON_END
};

typedef struct tb_opts_values {
	int json;
	int jobs;             /* tb_opts_default_jobs() unless given */
	int jobs_given;
	const char *events;
	const char *header_page;
	uint32_t subbuf_size; /* 0: not given */
	unsigned addr_size;   /* 0: not given */
} tb_opts_values;

typedef struct tb_opts {
	const char *cmd;      /* "report" */
	const char *synopsis; /* "[OPTIONS] FILE.dat" */
	const tb_opt *opts;   /* terminated by an entry with id 0 */
	const char *epilog;   /* printed after the option list (NULL: none) */
	int argc;
	char **argv;
	int i;                /* next argument; start at 1 */
	int no_more;          /* after "--" */
	tb_opts_values v;     /* the common options' values */
	/* tb_opts_parse: each own option's last value ("" for a flag; NULL:
	 * not given), and the operands in argv[1..npos] */
	const char *own[TB_OPT_COMMON];
	int npos;
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

/* The next own option (its id, *val its value or NULL) or one of
 * TB_OPTS_*; the common options on the way are stored in p->v. */
int tb_opts_next(tb_opts *p, const char **val);

/*
 * All of argv by the table, for a command whose options need no code of
 * their own: common ones into p->v, own ones into p->own[id], operands
 * into p->argv[1..p->npos]: one only when `one` names it (a second is
 * refused as "a second ONE 'ARG'"), and none is the usage line.  -1 to
 * go on, else the exit status (0 after --help, 2 after a message).
 */
int tb_opts_parse(tb_opts *p, const char *one);

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

#endif
