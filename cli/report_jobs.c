/*
 * report's walk of one capture (see report_jobs.h): its hooks for the
 * parts engine (host/parts.c), on N threads or on one (tb_parts_walk:
 * the same produce hook straight to the same consume).  A worker formats
 * its part as the one-thread walk does; the main thread writes the bytes
 * to stdout and the messages to stderr, in order.
 *
 * The first --ts-diff line of a part depends on the line before it, which
 * only the main thread knows: the worker defers that event and the main
 * thread renders it again, through a cursor of its own, with the line
 * state the previous parts left.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_jobs.h"

typedef struct report_ctx {
	const tb_report_job *job;
	tb_session *wp;          /* the main thread's cursor for deferred lines */
	tb_cli_line wline;
	int werr;                /* errno of a failed write(2) of a block */
	int stopped;             /* the one-thread walk's produce stopped */
	uint64_t nevents;        /* the one-thread walk's, for the progress count */
} report_ctx;

/* Room in the sink for many lines: taken with tb_parts_reserve, given back
 * with what the lines used (tb_parts_commit, one put) when it runs short
 * and before anything else goes to the sink.  Two calls a block of lines
 * instead of two a line. */
typedef struct line_room {
	char *to;
	size_t room, used;
} line_room;

static int room_commit(tb_parts_sink *k, line_room *lr)
{
	int r = lr->to ? tb_parts_commit(k, lr->used) : 0;
	lr->to = NULL;
	lr->room = lr->used = 0;
	return r;
}

/* The event's line (and JSON's newline) straight into the sink's room, as
 * report's one-thread loop renders into its output buffer: no copy.  Kept
 * when `put`, else only rendered (the line state moves on).  0, or -1:
 * stop. */
static int render_into(const tb_report_job *job, tb_session *p, const tb_session_event *ev,
		       tb_parts_sink *k, line_room *lr, int put)
{
	size_t want = 1024;
	for (int tries = 0; tries < 2; tries++) {
		tb_render_result r;
		tb_status st;
		char *to;
		if (lr->room - lr->used < want) {
			if (room_commit(k, lr) || !(lr->to = tb_parts_reserve(k, want, &lr->room)))
				return -1;
		}
		to = lr->to + lr->used;
		/* the NUL's byte takes JSON's newline: r.len < room */
		st = tb_session_text(p, ev, job->how, to, lr->room - lr->used, &r);
		if (st == TB_OK || (st == TB_ERR_NO_SPACE && r.needed == 0)) {
			if (job->json)
				to[r.len++] = '\n';
			if (put)
				lr->used += r.len;
			/* a long line's room may be a chunk of its own (over
			 * the 64 KiB stage): committed at once, the lines after
			 * it go back to the stage */
			return want > 1024 ? room_commit(k, lr) : 0;
		}
		/* it did not fit what was left: a fresh reserve of its size */
		want = r.needed + 2;
	}
	return -1;
}

/* Whether a part's first line waits for the parts before: --ts-diff's
 * "(+N)" needs the line before it. */
static int defers_first(const tb_report_job *job)
{
	return !job->json && (job->how & TB_TEXT_TSDIFF);
}

/* The events of p (a part, or the whole capture) into k: 0, or -1 (stop:
 * cancelled, out of memory, or a write error). */
static int produce(report_ctx *rc, tb_session *p, tb_parts_sink *k, int *bad)
{
	const tb_report_job *job = rc->job;
	line_room lr = { NULL, 0, 0 };
	tb_session_event ev;
	tb_error e;
	tb_status st;
	int may_defer = defers_first(job);
	for (;;) {
		st = tb_session_next(p, &ev, &e);
		if (st == TB_END)
			return room_commit(k, &lr);
		if (st != TB_OK) {
			if (room_commit(k, &lr) || tb_cli_parts_page_error(k, job->c, p, &e, bad))
				return -1;
			continue;
		}
		if (ev.kind == TB_SEV_DAMAGED) {
			if (room_commit(k, &lr) ||
			    tb_cli_parts_page_error(k, job->c, p, &ev.damage, bad) ||
			    render_into(job, p, &ev, k, &lr, 1))
				return -1;
			continue;
		}
		if (job->progress && (++rc->nevents & 0xfffff) == 0)
			fprintf(stderr, "\r%llu events", (unsigned long long)rc->nevents);
		if (job->select && !job->select(job->select_ctx, p, &ev))
			continue;
		if (may_defer && ev.format && tb_parts_want_defer(k)) {
			/* rendered (its line state counts), then handed over */
			if (render_into(job, p, &ev, k, &lr, 0) || room_commit(k, &lr) ||
			    tb_parts_defer(k, &ev))
				return -1;
			continue;
		}
		if (render_into(job, p, &ev, k, &lr, 1))
			return -1;
	}
}

static int report_produce(void *ctx, void *ws, tb_session *p, tb_parts_sink *k, int *bad)
{
	report_ctx *rc = ctx;
	(void)ws; /* no state of its own: it renders into the sink */
	if (produce(rc, p, k, bad) == 0)
		return 0;
	if (p == rc->job->c->s)
		rc->stopped = 1; /* the one-thread walk: no other thread */
	return -1;
}

/* One thread at a time (the main thread, or the live part's worker). */
static int report_consume(void *ctx, const uint8_t *p, size_t n)
{
	report_ctx *rc = ctx;
	if (tb_cli_stdout_block(p, n) == 0)
		return 0;
	if (!ferror(stdout) && !rc->werr)
		rc->werr = errno ? errno : EIO; /* write(2)'s: stdio never saw it */
	return -1;
}

static void report_message(void *ctx, const char *msg)
{
	(void)ctx;
	fflush(stdout);
	fputs(msg, stderr);
}

static int report_defer(void *ctx, const tb_session_event *ev, const tb_session_line_state *ls,
			uint64_t *bytes)
{
	report_ctx *rc = ctx;
	tb_error err;
	if (!rc->wp && tb_session_part_open(&rc->wp, rc->job->c->s, &tb_cli_heap, NULL, NULL,
					    &err) != TB_OK)
		rc->wp = NULL;
	if (rc->wp)
		tb_session_line_state_set(rc->wp, ls);
	if (!rc->wp || tb_cli_render_in(rc->wp, ev, rc->job->how, &rc->wline) != 0) {
		if (!tb_cli_budget_over())
			fprintf(stderr, "tracebound: out of memory\n");
		return -2;
	}
	*bytes += rc->wline.len;
	return fwrite(rc->wline.p, 1, rc->wline.len, stdout) == rc->wline.len ? 0 : -1;
}

int tb_report_jobs(const tb_report_job *job)
{
	report_ctx rc;
	tb_parts_hooks h;
	int r;
	memset(&rc, 0, sizeof(rc));
	rc.job = job;
	memset(&h, 0, sizeof(h));
	h.ctx = &rc;
	h.produce = report_produce;
	h.consume = report_consume;
	h.message = report_message;
	h.defer = report_defer;
	h.defer_first = defers_first(job);
	h.direct_ok = 1;
	h.mem = &tb_cli_heap;
	h.input_len = job->c->f.len;
	r = job->jobs > 1 ? tb_parts_run(job->c->s, job->jobs, &h) : -1;
	if (r < 0)
		r = tb_parts_walk(job->c->s, &h);
	tb_session_close(rc.wp);
	free(rc.wline.p);
	if (job->progress && rc.nevents > 0xfffff)
		fprintf(stderr, "\r\n");
	if (rc.werr && !ferror(stdout)) {
		/* main()'s check of stdout cannot see a failed write(2) */
		fprintf(stderr, "tracebound: error writing the output: %s\n", strerror(rc.werr));
		return 2;
	}
	if (rc.stopped && !rc.werr && !ferror(stdout)) {
		if (!tb_cli_budget_over())
			fprintf(stderr, "tracebound: out of memory\n");
		return 2;
	}
	return r;
}
