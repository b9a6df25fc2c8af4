/*
 * The CLI's memory budget (issue 37): what the library asks of tb_mem, all
 * sessions and --jobs threads together, at most max(64 MiB, 16 x the
 * input's size) unless --max-memory says otherwise.  A capture over it is
 * its own outcome: "sound as far as read, but needs N bytes, over the
 * budget of M", exit 3 (TB_EXIT_BUDGET).
 */
#ifndef TB_CLI_BUDGET_H
#define TB_CLI_BUDGET_H

#include "cli.h"
#include "opts.h"

#define TB_CLI_BUDGET_MIN ((uint64_t)64 << 20)
#define TB_CLI_BUDGET_PER_BYTE 16u

/* The tb_mem every session of the CLI is given: the heap, counted and held
 * to the budget (thread-safe). */
extern const tb_mem tb_cli_heap;

/* --max-memory SIZE: the option every decoding command lists (a common
 * one of opts.h), and its value (0 on success; else a message and -1). */
#define TB_CLI_MAX_MEMORY_HELP "decoding memory at most SIZE bytes (k/m/g; default: 64m or 16 x the input, the larger)"
int tb_cli_budget_option(const tb_opts *p, const char *val);
#define TB_CLI_MAX_MEMORY_OPT \
	{ TB_OPT_MAX_MEMORY, "--max-memory", NULL, "SIZE", TB_CLI_MAX_MEMORY_HELP }

/* A new input of len bytes counts toward the default budget (report and
 * convert add every file; check starts each file afresh). */
void tb_cli_budget_add_input(uint64_t len);
void tb_cli_budget_restart(void);
/* The budget now, and what is held of it. */
uint64_t tb_cli_budget_limit(void);
uint64_t tb_cli_budget_held(void);
/* At most how many bytes of an input that cannot stream (a trace.dat on
 * a pipe) are read into memory: --max-memory, else no limit (the default
 * budget grows with the input). */
size_t tb_cli_budget_read_limit(void);

/*
 * tb_session_open_budget with what is left of the budget.  A refusal
 * (TB_ERR_BUDGET) is remembered with path: tb_cli_budget_over() then says
 * so.  need may be NULL.
 */
tb_status tb_cli_session_open(tb_session **s, const tb_session_source *src,
			      const tb_session_options *opt, const char *path,
			      tb_session_need *need, tb_error *err);
/* A session that refused memory while it was walked (its formats'
 * programs): remembered as above.  NULL is fine. */
void tb_cli_budget_note_session(const tb_session *s, const char *path);
/* --jobs N on the opened capture s (path, for the message): N, or fewer
 * (said on stderr) when N parts at once would take the process past its
 * budget while fewer fit, one included (tb_session_need_jobs).  What the
 * parts render is learnt by a walk of s (then rewound), done only when
 * every format rendered on every part would not fit. */
int tb_cli_budget_jobs(tb_session *s, const char *path, int jobs);

/* A need past the budget found otherwise (check's prediction). */
void tb_cli_budget_note(uint64_t need, const char *path);
/* What was needed, as far as known (0: nothing refused). */
uint64_t tb_cli_budget_need(void);

/* 1 when something was refused for the budget since the last restart. */
int tb_cli_budget_over(void);
/* "sound as far as read, but needs N bytes, over the budget of M" into
 * buf (snprintf's result). */
int tb_cli_budget_message(char *buf, size_t cap);
/* The message on stderr with the path ("tracebound: PATH: ..."); returns
 * TB_EXIT_BUDGET. */
int tb_cli_budget_fail(void);

#endif
