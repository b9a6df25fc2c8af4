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
#include "tracebound/text.h"

/* The rare paths out of the per-line loop, kept out of it. */
#if defined(__GNUC__)
#define RARE __attribute__((noinline, cold))
#else
#define RARE
#endif

typedef struct report_ctx {
	const tb_report_job *job;
	tb_report_merge merge;   /* several files */
	uint64_t tsdiff_prev;    /* several files: --ts-diff's line before */
	tb_session *wp;          /* the main thread's cursor for deferred lines */
	tb_cli_line wline;
	int werr;                /* errno of a failed write(2) of a block */
	int stopped;             /* the one-thread walk's produce stopped */
	uint64_t nevents;        /* the one-thread walk's, for the progress count */
} report_ctx;

/* Room in the sink for many lines: taken with tb_parts_reserve, given back
 * with what the lines used (tb_parts_commit, one put) when it runs short
 * and before anything else goes to the sink.  Two calls a block of lines
 * instead of two a line.  The lines are appended to one text sink over
 * the room (tb_session_text_to): t.len is what they used. */
typedef struct line_room {
	tb_text t;
} line_room;

/* The room a line is rendered into without a reserve of its own size. */
#define LINE_ROOM 1024

static int room_commit(tb_parts_sink *k, line_room *lr)
{
	int r = lr->t.buf ? tb_parts_commit(k, lr->t.len) : 0;
	tb_text_init(&lr->t, NULL, 0);
	return r;
}

/* What is left committed, a fresh room of at least `want` bytes taken. */
static int room_take(tb_parts_sink *k, line_room *lr, size_t want)
{
	size_t room;
	char *to;
	if (room_commit(k, lr) || !(to = tb_parts_reserve(k, want, &room)))
		return -1;
	tb_text_init(&lr->t, to, room);
	return 0;
}

/* The line that did not fit the room left (or that the session refused
 * once: rendered again, as before, and refused again): the lines before it
 * committed, the line rendered alone into a reserve of its size (needed:
 * its bytes, JSON's newline included).  A long line's reserve may be a
 * chunk of its own (over the 64 KiB stage): committed at once, the lines
 * after it go back to the stage. */
static RARE int render_alone(const tb_report_job *job, tb_session *p,
			     const tb_session_event *ev, tb_parts_sink *k, line_room *lr,
			     int put, size_t needed)
{
	size_t want = needed + 2;
	tb_status st;
	if (room_take(k, lr, want))
		return -1;
	st = tb_session_text_to(p, ev, job->how, &lr->t);
	/* nothing at all (mem refused what was all of the text): an empty
	 * line, as tb_session_text's needed 0 */
	if (st == TB_ERR_NO_SPACE && lr->t.need == 0)
		st = TB_OK;
	if (job->json)
		tb_text_putc(&lr->t, '\n');
	if (st != TB_OK || tb_text_truncated(&lr->t))
		return -1;
	if (!put)
		tb_text_reset(&lr->t);
	return want > LINE_ROOM ? room_commit(k, lr) : 0;
}

/* The event's line (and JSON's newline) appended to the sink's room, as
 * report's one-thread loop renders into its output buffer: no copy.  Kept
 * when `put`, else only rendered (the line state moves on).  0, or -1:
 * stop. */
static inline int render_into(const tb_report_job *job, tb_session *p, const tb_session_event *ev,
			      tb_parts_sink *k, line_room *lr, int put)
{
	tb_text *t = &lr->t;
	size_t mark;
	tb_status st;
	if (t->cap - t->len < LINE_ROOM && room_take(k, lr, LINE_ROOM))
		return -1;
	mark = t->len;
	st = tb_session_text_to(p, ev, job->how, t);
	if (job->json)
		tb_text_putc(t, '\n');
	if (st != TB_OK || tb_text_truncated(t)) {
		size_t needed = t->need - mark;
		t->len = t->need = mark;
		return render_alone(job, p, ev, k, lr, put, needed);
	}
	if (!put)
		t->len = t->need = mark;
	return 0;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

int tb_report_prefix(char *buf, size_t cap, const tb_cli_capture *c, uint32_t buffer,
		     size_t width)
{
	const tb_session_buffer_info *bi = tb_session_buffer(c->s, buffer);
	char label[256];
	size_t n;
	if (bi && bi->name.len)
		snprintf(label, sizeof(label), "%.*s", (int)bi->name.len, bi->name.ptr);
	else
		snprintf(label, sizeof(label), "%s", base_name(c->path));
	n = strlen(buffer == UINT32_MAX ? base_name(c->path) : label);
	return snprintf(buf, cap, "%*s%s: ", (int)(width > n ? width - n : 0), "",
			buffer == UINT32_MAX ? base_name(c->path) : label);
}

/* Of several files: the line after its file's (or instance's) name, its
 * --ts-diff from the line before in any file. */
static RARE int put_merged_line(report_ctx *rc, const tb_cli_capture *c, tb_session *p,
				const tb_session_event *ev, tb_parts_sink *k, line_room *lr)
{
	const tb_report_job *job = rc->job;
	char pre[600];
	int r;
	if (!job->json && (room_commit(k, lr) ||
			   tb_parts_put(k, pre, (size_t)tb_report_prefix(pre, sizeof(pre), c,
									ev->buffer, job->width))))
		return -1;
	if (job->how & TB_TEXT_TSDIFF)
		tb_session_set_tsdiff_prev(p, rc->tsdiff_prev);
	r = render_into(job, p, ev, k, lr, 1);
	rc->tsdiff_prev = tb_session_tsdiff_prev(p);
	return r;
}

/* An event's line. */
static inline int put_line(report_ctx *rc, const tb_cli_capture *c, tb_session *p,
			   const tb_session_event *ev, tb_parts_sink *k, line_room *lr)
{
	const tb_report_job *job = rc->job;
	if (job->ncaps < 2)
		return render_into(job, p, ev, k, lr, 1);
	return put_merged_line(rc, c, p, ev, k, lr);
}

/* Whether a part's first line waits for the parts before: --ts-diff's
 * "(+N)" needs the line before it. */
static int defers_first(const tb_report_job *job)
{
	return !job->json && (job->how & TB_TEXT_TSDIFF);
}

/* The events of p (a part, or the whole capture; several files: their
 * merge) into k: 0, or -1 (stop: cancelled, out of memory, or a write
 * error). */
static int produce(report_ctx *rc, tb_session *p, tb_parts_sink *k, int *bad)
{
	const tb_report_job *job = rc->job;
	const tb_cli_capture *c = job->c;
	line_room lr;
	size_t which;
	tb_session_event ev;
	tb_error e;
	tb_status st;
	int may_defer = defers_first(job);
	tb_text_init(&lr.t, NULL, 0);
	for (;;) {
		if (job->ncaps < 2) {
			st = tb_session_next(p, &ev, &e);
		} else {
			st = tb_report_merge_next(&rc->merge, &which, &ev, &e);
			c = &job->c[which];
			p = c->s;
		}
		if (st == TB_END)
			return room_commit(k, &lr);
		if (st != TB_OK) {
			if (room_commit(k, &lr) || tb_cli_parts_page_error(k, c, p, &e, bad))
				return -1;
			continue;
		}
		if (ev.kind == TB_SEV_DAMAGED) {
			if (room_commit(k, &lr) ||
			    tb_cli_parts_page_error(k, c, p, &ev.damage, bad) ||
			    put_line(rc, c, p, &ev, k, &lr))
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
		if (put_line(rc, c, p, &ev, k, &lr))
			return -1;
	}
}

static int report_produce(void *ctx, void *ws, tb_session *p, tb_parts_sink *k, int *bad)
{
	report_ctx *rc = ctx;
	(void)ws; /* no state of its own: it renders into the sink */
	if (produce(rc, p, k, bad) == 0)
		return 0;
	if (p == rc->job->c->s || rc->job->ncaps > 1)
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
	static tb_session *sessions[TB_REPORT_MAX_FILES];
	static tb_report_head heads[TB_REPORT_MAX_FILES];
	report_ctx rc;
	tb_parts_hooks h;
	size_t i;
	int r;
	memset(&rc, 0, sizeof(rc));
	rc.job = job;
	for (i = 0; i < job->ncaps && i < TB_REPORT_MAX_FILES; i++)
		sessions[i] = job->c[i].s;
	if (job->ncaps > 1 && tb_report_merge_init(&rc.merge, sessions, heads, i) != TB_OK)
		return 2;
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
	r = job->jobs > 1 && job->ncaps < 2 ? tb_parts_run(job->c->s, job->jobs, &h) : -1;
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
