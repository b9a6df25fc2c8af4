/* The CLI's memory budget (see budget.h). */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "budget.h"

/* One budget for the process: every session and thread draws on it.  The
 * library holds each session to what was left when it opened
 * (tb_session_open_budget); this counter holds all of them together, the
 * --jobs parts included. */
static struct {
	uint64_t explicit_max;     /* --max-memory (0: the default) */
	uint64_t inputs;           /* bytes of input so far */
	_Atomic uint64_t held;
	_Atomic int over;          /* something was refused */
	uint64_t need;             /* what was needed, as far as known */
	const char *path;          /* the capture it was refused for */
} budget;

uint64_t tb_cli_budget_limit(void)
{
	uint64_t d = budget.inputs > UINT64_MAX / TB_CLI_BUDGET_PER_BYTE
			     ? UINT64_MAX
			     : budget.inputs * TB_CLI_BUDGET_PER_BYTE;
	if (budget.explicit_max)
		return budget.explicit_max;
	return d > TB_CLI_BUDGET_MIN ? d : TB_CLI_BUDGET_MIN;
}

size_t tb_cli_budget_read_limit(void)
{
	if (!budget.explicit_max)
		return TB_CLI_NO_LIMIT; /* the default grows with the input read */
	return budget.explicit_max > SIZE_MAX ? SIZE_MAX : (size_t)budget.explicit_max;
}

uint64_t tb_cli_budget_held(void)
{
	return atomic_load(&budget.held);
}

int tb_cli_budget_option(const tb_opts *p, const char *val)
{
	uint64_t v;
	if (tb_opts_size(p, "--max-memory", val, &v) != 0)
		return -1;
	if (v == 0) {
		tb_opts_fail(p, "option '--max-memory': a budget of 0 bytes reads nothing");
		return -1;
	}
	budget.explicit_max = v;
	return 0;
}

void tb_cli_budget_add_input(uint64_t len)
{
	budget.inputs = len > UINT64_MAX - budget.inputs ? UINT64_MAX : budget.inputs + len;
}

void tb_cli_budget_restart(void)
{
	budget.inputs = 0;
	atomic_store(&budget.over, 0);
	budget.need = 0;
	budget.path = NULL;
}

void tb_cli_budget_note(uint64_t need, const char *path)
{
	if (atomic_exchange(&budget.over, 1) == 0) {
		budget.need = need;
		budget.path = path;
	}
}

/* The sessions' memory: large blocks (a kallsyms table is 3 MiB) as huge
 * pages, the rest from malloc; counted, and refused past the budget. */
static void *heap_alloc(void *ctx, size_t n)
{
	uint64_t limit = tb_cli_budget_limit(), was = atomic_fetch_add(&budget.held, n);
	void *p;
	(void)ctx;
	if (n > limit || was > limit - n) {
		atomic_fetch_sub(&budget.held, n);
		tb_cli_budget_note(was + n, NULL);
		return NULL;
	}
	p = n >= TB_HOST_BIG_BLOCK ? tb_host_big_alloc(n) : malloc(n ? n : 1);
	if (!p)
		atomic_fetch_sub(&budget.held, n);
	return p;
}

static void heap_free(void *ctx, void *p, size_t n)
{
	(void)ctx;
	if (!p)
		return;
	atomic_fetch_sub(&budget.held, n);
	if (n >= TB_HOST_BIG_BLOCK)
		tb_host_big_free(p, n);
	else
		free(p);
}

const tb_mem tb_cli_heap = { heap_alloc, heap_free, NULL };

tb_status tb_cli_session_open(tb_session **s, const tb_session_source *src,
			      const tb_session_options *opt, const char *path,
			      tb_session_need *need, tb_error *err)
{
	tb_session_need own;
	uint64_t limit = tb_cli_budget_limit(), held = tb_cli_budget_held();
	tb_status st;
	if (!need)
		need = &own;
	/* (a budget already spent leaves one byte: the open is refused) */
	st = tb_session_open_budget(s, src, opt, &tb_cli_heap, held < limit ? limit - held : 1,
				    need, err);
	if (st == TB_ERR_BUDGET || (st == TB_ERR_NO_SPACE && tb_cli_budget_over()))
		tb_cli_budget_note(held + need->total, path);
	if (budget.path == NULL && tb_cli_budget_over())
		budget.path = path;
	return st == TB_ERR_NO_SPACE && tb_cli_budget_over() ? TB_ERR_BUDGET : st;
}

void tb_cli_budget_note_session(const tb_session *s, const char *path)
{
	tb_session_need n;
	if (!s)
		return;
	tb_session_need_get(s, &n);
	if (n.refused)
		tb_cli_budget_note(tb_cli_budget_held() - n.held + n.total, path);
	if (budget.path == NULL && tb_cli_budget_over())
		budget.path = path;
}

int tb_cli_budget_jobs(tb_session *s, const char *path, int jobs)
{
	tb_session_need own, nj;
	tb_error e;
	uint64_t limit = tb_cli_budget_limit(), others;
	int j;
	if (jobs < 2 || tb_session_prepare(s, &e) != TB_OK)
		return jobs;
	tb_session_need_get(s, &own);
	/* what this session may take: the budget less the other sessions' */
	others = tb_cli_budget_held() > own.held ? tb_cli_budget_held() - own.held : 0;
	if (others >= limit)
		return jobs;
	j = (int)tb_session_jobs_within(s, (size_t)jobs, limit - others);
	if (j < jobs) {
		tb_session_need_jobs(s, (size_t)jobs, &nj);
		fprintf(stderr,
			"tracebound: %s: --jobs %d needs %llu bytes, over the budget of %llu "
			"(--max-memory): on %d thread%s\n",
			path, jobs, (unsigned long long)nj.total, (unsigned long long)limit, j,
			j == 1 ? "" : "s");
	}
	return j;
}

uint64_t tb_cli_budget_need(void)
{
	return budget.need;
}

int tb_cli_budget_over(void)
{
	return atomic_load(&budget.over);
}

int tb_cli_budget_message(char *buf, size_t cap)
{
	uint64_t limit = tb_cli_budget_limit();
	if (budget.need > limit)
		return snprintf(buf, cap,
				"sound as far as read, but needs %llu bytes, over the budget of "
				"%llu (--max-memory)",
				(unsigned long long)budget.need, (unsigned long long)limit);
	return snprintf(buf, cap,
			"sound as far as read, but needs more than the budget of %llu bytes "
			"(--max-memory)",
			(unsigned long long)limit);
}

int tb_cli_budget_fail(void)
{
	char msg[256];
	(void)tb_cli_budget_message(msg, sizeof(msg));
	fprintf(stderr, "tracebound: %s%s%s\n", budget.path ? budget.path : "",
		budget.path ? ": " : "", msg);
	return TB_EXIT_BUDGET;
}
