/*
 * report --jobs N (see report_jobs.h): report's hooks for the parts
 * engine (parts.c).  A worker formats its part exactly as report's
 * one-thread loop does; the main thread writes the bytes to stdout and the
 * messages to stderr, in order.
 *
 * The first --ts-diff line of a part depends on the line before it, which
 * only the main thread knows: the worker defers that event and the main
 * thread renders it again, through a cursor of its own, with the line
 * state the previous parts left.
 */
#include <stdlib.h>
#include <string.h>

#include "parts.h"
#include "report_jobs.h"

typedef struct report_ctx {
	const tb_report_job *job;
	tb_session *wp;          /* the main thread's cursor for deferred lines */
	tb_cli_line wline;
} report_ctx;

static void *report_worker_new(void *ctx)
{
	tb_cli_line *line = malloc(sizeof(*line));
	(void)ctx;
	if (!line)
		return NULL;
	line->len = 0;
	line->cap = 1 << 16;
	if (!(line->p = malloc(line->cap))) {
		free(line);
		return NULL;
	}
	return line;
}

static void report_worker_free(void *ctx, void *ws)
{
	tb_cli_line *line = ws;
	(void)ctx;
	free(line->p);
	free(line);
}

/* report's one-thread loop over one part: 0, or -1 (stop: out of memory
 * said, cancelled, or a write error). */
static int report_produce(void *ctx, void *ws, tb_session *p, tb_parts_sink *k, int *bad)
{
	const tb_report_job *job = ((report_ctx *)ctx)->job;
	tb_cli_line *line = ws;
	tb_session_event ev;
	tb_error e;
	tb_status st;
	char msg[1024];
	for (;;) {
		st = tb_session_next(p, &ev, &e);
		if (st == TB_END)
			return 0;
		if (st != TB_OK) {
			(void)tb_cli_format_page_error(msg, sizeof(msg), job->c->path, p, &e);
			if (tb_parts_msg(k, msg))
				return -1;
			if (*bad < 1)
				*bad = 1;
			continue;
		}
		if (ev.kind == TB_SEV_DAMAGED) {
			(void)tb_cli_format_page_error(msg, sizeof(msg), job->c->path, p, &ev.damage);
			if (tb_parts_msg(k, msg))
				return -1;
			if (*bad < 1)
				*bad = 1;
			if (tb_cli_render_in(p, &ev, job->how, line) == 0) {
				if (job->json)
					line->p[line->len++] = '\n';
				if (tb_parts_put(k, line->p, line->len))
					return -1;
			}
			continue;
		}
		if (!job->select(job->select_ctx, p, &ev))
			continue;
		if (tb_cli_render_in(p, &ev, job->how, line) != 0) {
			(void)tb_parts_msg(k, "tracebound: out of memory\n");
			*bad = 2;
			return -1;
		}
		if (job->json)
			line->p[line->len++] = '\n'; /* cap >= needed + 2 */
		if (ev.format && tb_parts_want_defer(k)) {
			if (tb_parts_defer(k, &ev))
				return -1;
			continue;
		}
		if (tb_parts_put(k, line->p, line->len))
			return -1;
	}
}

static int report_consume(void *ctx, const uint8_t *p, size_t n)
{
	(void)ctx;
	return fwrite(p, 1, n, stdout) == n ? 0 : -1;
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
	h.worker_new = report_worker_new;
	h.worker_free = report_worker_free;
	h.produce = report_produce;
	h.consume = report_consume;
	h.message = report_message;
	h.defer = report_defer;
	h.defer_first = !job->json && (job->how & TB_TEXT_TSDIFF);
	r = tb_parts_run(job->c, job->jobs, &h);
	tb_session_close(rc.wp);
	free(rc.wline.p);
	return r;
}
