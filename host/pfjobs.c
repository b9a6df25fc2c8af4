/* A session's capture as a Perfetto trace on N threads (see pfjobs.h). */
#include <stdlib.h>
#include <string.h>

#include "parts.h"
#include "pfjobs.h"

/* 1 when ts passes one or more split times from *next on (a cut before it). */
static int past_cut(const uint64_t *t, size_t nt, size_t *next, uint64_t ts)
{
	size_t from = *next;
	while (*next < nt && ts >= t[*next])
		(*next)++;
	return *next != from;
}

enum { PF_REC_BYTES = 1, PF_REC_STATS, PF_REC_FAIL };

/* A record in the engine's queues (one put, never split between chunks):
 * a pf_rec, then `len` bytes: trace bytes, a tb_pf_stats (what the
 * worker's writer added since its last), or a pf_fail. */
typedef struct pf_rec {
	uint32_t kind, len;
} pf_rec;

typedef struct pf_fail {
	tb_status st;
	const char *what;        /* static */
} pf_fail;

typedef struct pf_run {
	const tb_pfjobs *j;
	tb_pf_stats stats;       /* what the workers' writers added */
	tb_status st;            /* the first error (an event, or the output) */
	tb_error e;
} pf_run;

typedef struct pf_worker {
	tb_pf_writer w;          /* writes to k, through queue_bytes */
	tb_pf_stats told;        /* w.stats when last queued */
	tb_parts_sink *k;        /* the part being made */
	int oom;                 /* the queue had no memory (else it stopped) */
} pf_worker;

/* The worker writer's output: its bytes queued, one record a call.  Its
 * error is not TB_ERR_NO_SPACE, which the writer also returns for a
 * scratch too small. */
static tb_status queue_bytes(void *ctx, const void *p, size_t n)
{
	pf_worker *ws = ctx;
	pf_rec r;
	int rc = -1;
	r.kind = PF_REC_BYTES;
	r.len = (uint32_t)n;
	if (n > UINT32_MAX - sizeof(r) || (rc = tb_parts_put2(ws->k, &r, sizeof(r), p, n)) == -1)
		ws->oom = 1; /* or cancelled: then nothing is said */
	return rc ? TB_ERR_ARG : TB_OK;
}

static int queue_rec(tb_parts_sink *k, unsigned kind, const void *p, size_t n)
{
	uint8_t buf[sizeof(pf_rec) + sizeof(tb_pf_stats) + sizeof(pf_fail)];
	pf_rec r;
	r.kind = kind;
	r.len = (uint32_t)n;
	memcpy(buf, &r, sizeof(r));
	memcpy(buf + sizeof(r), p, n);
	return tb_parts_put(k, buf, sizeof(r) + n);
}

/* A cut: every bundle written, then what the writer added since the
 * last (nothing when nothing: an empty part queues nothing).  0 or -1. */
static int cut(pf_worker *ws)
{
	tb_pf_stats d;
	tb_error e;
	if (tb_pf_flush(&ws->w, &e) != TB_OK)
		return -1;
	if (!memcmp(&ws->w.stats, &ws->told, sizeof(d)))
		return 0;
	d = ws->w.stats;
	tb_pf_stats_sub(&d, &ws->told);
	ws->told = ws->w.stats;
	return queue_rec(ws->k, PF_REC_STATS, &d, sizeof(d));
}

static void pf_worker_free(void *ctx, void *p)
{
	pf_worker *ws = p;
	(void)ctx;
	if (ws)
		tb_pf_release(&ws->w);
	free(ws);
}

/* A writer as the main one, its bundles and scratch its own (cfg.mem). */
static void *pf_worker_new(void *ctx)
{
	const pf_run *run = ctx;
	const tb_pf_writer *main_w = run->j->w;
	pf_worker *ws = calloc(1, sizeof(*ws));
	tb_pf_config cfg = main_w->cfg;
	tb_error e;
	if (!ws)
		return NULL;
	cfg.write = queue_bytes;
	cfg.ctx = ws;
	cfg.bundles = cfg.scratch = NULL;
	cfg.scratch_size = TB_PF_DEFAULT_SCRATCH;
	if (tb_pf_init(&ws->w, &cfg, &e) != TB_OK) {
		free(ws);
		return NULL;
	}
	if (main_w->have_clock_ts)
		tb_pf_set_clock(&ws->w, main_w->clock_ts);
	return ws;
}

/* A page said in its place: 0 or -1. */
static int say_page(const tb_pfjobs *j, tb_parts_sink *k, const tb_session *p,
		    const tb_session_event *ev, const tb_error *e, int *bad)
{
	char msg[1024];
	j->say_page(j->ctx, msg, sizeof(msg), p, ev, e);
	if (*bad < 1)
		*bad = 1;
	return tb_parts_msg(k, msg);
}

/* The one-thread loop's walk over one part (or, when the parts did not
 * tile, the whole capture, cut at the plan's times): 0 or -1. */
static int pf_produce(void *ctx, void *p_ws, tb_session *p, tb_parts_sink *k, int *bad)
{
	const pf_run *run = ctx;
	pf_worker *ws = p_ws;
	size_t ncuts, next = 0;
	const uint64_t *cuts = tb_parts_bounds(k, &ncuts);
	ws->k = k;
	for (;;) {
		tb_session_event ev;
		tb_error e;
		tb_status st = tb_session_next(p, &ev, &e);
		if (st == TB_END)
			break;
		if (st != TB_OK) { /* a page the session could not skip in place */
			if (say_page(run->j, k, p, NULL, &e, bad))
				return -1;
			continue;
		}
		if (past_cut(cuts, ncuts, &next, ev.ts) && cut(ws))
			goto stopped;
		if (ev.kind == TB_SEV_DAMAGED && say_page(run->j, k, p, &ev, NULL, bad))
			return -1;
		if ((st = tb_pf_session_event(&ws->w, &ev, &e)) != TB_OK) {
			pf_fail f;
			if (ws->w.status != TB_OK)
				goto stopped;
			/* the one-thread loop stops here: the main thread says why */
			f.st = st;
			f.what = e.what;
			(void)queue_rec(k, PF_REC_FAIL, &f, sizeof(f));
			return -1;
		}
	}
	if (cut(ws))
		goto stopped;
	return 0;
stopped:
	if (ws->oom) {
		(void)tb_parts_msg(k, "tracebound: out of memory\n");
		*bad = 2;
	}
	return -1;
}

/* The first error, for the caller to say: -1. */
static int run_fail(pf_run *run, tb_status st, const char *what)
{
	run->st = st;
	run->e.status = st;
	run->e.offset = 0;
	run->e.what = what;
	return -1;
}

/* The main thread: the records in order.  0, or -1 (run->st says). */
static int pf_consume(void *ctx, const uint8_t *p, size_t n)
{
	pf_run *run = ctx;
	const tb_pf_config *out = &run->j->w->cfg;
	while (n) {
		pf_rec r;
		pf_fail f;
		tb_pf_stats d;
		if (n < sizeof(r))
			goto cut_short;
		memcpy(&r, p, sizeof(r));
		p += sizeof(r);
		n -= sizeof(r);
		if (r.len > n)
			goto cut_short;
		if (r.kind == PF_REC_BYTES) {
			if (out->write(out->ctx, p, r.len) != TB_OK)
				return run_fail(run, TB_ERR_ARG, "perfetto writer: output failed");
		} else if (r.kind == PF_REC_STATS && r.len == sizeof(d)) {
			memcpy(&d, p, sizeof(d));
			tb_pf_stats_add(&run->stats, &d);
		} else if (r.kind == PF_REC_FAIL && r.len == sizeof(f)) {
			memcpy(&f, p, sizeof(f));
			return run_fail(run, f.st, f.what);
		} else {
			goto cut_short;
		}
		p += r.len;
		n -= r.len;
	}
	return 0;
cut_short:
	return run_fail(run, TB_ERR_ARG, "internal error: a queued record cut short");
}

static void pf_message(void *ctx, const char *msg)
{
	const pf_run *run = ctx;
	run->j->message(run->j->ctx, msg);
}

int tb_pfjobs_run(tb_session *s, const tb_pfjobs *j, tb_error *err)
{
	pf_run run;
	tb_parts_hooks h;
	int r = -1;
	memset(&run, 0, sizeof(run));
	run.j = j;
	memset(&h, 0, sizeof(h));
	h.ctx = &run;
	h.mem = j->mem;
	h.input_len = j->input_len;
	h.worker_new = pf_worker_new;
	h.worker_free = pf_worker_free;
	h.produce = pf_produce;
	h.consume = pf_consume;
	h.message = pf_message;
	h.parts = j->split ? tb_parts_count(j->input_len) : 0;
	if (j->split && j->jobs > 1)
		r = tb_parts_run(s, j->jobs, &h);
	if (r < 0)
		r = tb_parts_walk(s, &h);
	tb_pf_stats_add(&j->w->stats, &run.stats); /* the trace's */
	if (run.st != TB_OK) {
		*err = run.e;
		return -1;
	}
	return r;
}
