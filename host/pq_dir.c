/*
 * host/: a session's Parquet tables as files of a directory (pq_dir.h).
 *
 * --jobs 2 and more: two threads, two library writers.  The walking one
 * (the caller's thread: its stderr, the page counts) hands each event,
 * its record copied, to the other through a bounded queue of chunks; that
 * one writes the per-event tables (TB_PQ_SESSION_FORMATS).  The events
 * table's rows (a writer of its own) are made from the queued chunks, in
 * chunk order, by whichever thread has nothing else to do: the worker
 * when it waits for a chunk, the walking thread when it waits for a free
 * one.  So that work goes to the thread with time for it, wherever the
 * capture puts the load.
 * With text the rows are rendered, which needs the session the caller
 * walks: they stay on the walking thread, and only events with a format
 * are queued.  Every table is written by one writer, in row order, so
 * every file is the one-thread file byte for byte.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#ifdef TB_HAVE_ZSTD
#include <zstd.h>
#endif

#include "files.h"
#include "pq_dir.h"

/* The writers' own memory is the plain heap (tb_host_heap), bounded by
 * the sizes pq_session.h documents, outside --max-memory. */
typedef struct pq_out pq_out;
typedef struct tb_host_pq pq_shared;

/* Chunks in flight, and their size: room for a record as long as the
 * largest page.  (Chunks of 16 KiB to 1 MiB, up to 128 in flight, were
 * no faster: the threads waited for each other more often.) */
#define Q_CHUNKS 8
#define Q_CHUNK ((size_t)2 << 20)

/* An event as the queue holds it, then the record's bytes.  The comm is
 * not copied: it is a string of the session's tables (or a static one),
 * valid until the capture closes, after both threads are done.  Its
 * length is cut to TB_PQ_SESSION_COMM_MAX + 1 (above it: a cut comm). */
typedef struct q_rec {
	uint64_t ts;
	const tb_format *format;  /* NULL: an event without one (events table only) */
	const char *comm;
	uint64_t page_index;
	uint32_t cpu, buffer, len, comm_len, id, offset;
	int32_t pid;
	uint8_t has_id, has_pid, comm_known;
} q_rec;

/* Both threads read `stop` for every event, and the giver writes its fill
 * for every event: each sits on a cache line of its own, away from what
 * the other thread writes.  When they shared lines with the queue's
 * bookkeeping and the stack around it, the lines went back and forth
 * between the cores for every event, and --jobs 2 spent a quarter more
 * CPU than one thread on the same work. */
#define CACHE_LINE 64

/* Both threads read `stop` for every event, and the giver writes its fill
 * for every event: each sits on a cache line of its own, away from what
 * the other thread writes.  When they shared lines with the queue's
 * bookkeeping and the stack around it, the lines went back and forth
 * between the cores for every event, and --jobs 2 spent a quarter more
 * CPU than one thread on the same work. */
#define CACHE_LINE 64

/* One library writer and what it writes with. */
struct pq_out {
	tb_pq_session *w;         /* NULL: none (the walk of a shared split) */
	int queue;                /* events go to the queue (the walking side) */
	pq_shared *sh;
	const char *dir;          /* where the tables go */
	int failed;               /* an output error was reported */
#ifdef TB_HAVE_ZSTD
	ZSTD_CCtx *zc;
#endif
};

struct tb_host_pq {
	_Alignas(CACHE_LINE) atomic_int stop; /* an output error on either side: both stop */
	atomic_int said;          /* the first error was handed to cfg.error */
	/* the queue (used with two threads), under mu: touched once a chunk */
	_Alignas(CACHE_LINE) pthread_mutex_t mu;
	pthread_cond_t cv;
	uint8_t *chunk[Q_CHUNKS];
	size_t used[Q_CHUNKS];    /* a given chunk's bytes */
	uint64_t head, tail;      /* chunks taken, chunks given */
	int done, quit;           /* no more chunks; the taker stopped */
	/* share: the events table's rows, in evo, come from the chunks (both
	 * set before the worker starts).  Under mu: ev_done chunks have their
	 * rows, chunk ev_done's up to byte ev_at, and ev_busy says a thread
	 * makes the next ones. */
	int share, ev_busy;
	uint64_t ev_done;
	size_t ev_at;
	pq_out *evo;
	/* the giver's alone: bytes in its chunk (tail % Q_CHUNKS) so far */
	_Alignas(CACHE_LINE) size_t fill;
	/* the walking side's writer (or queue) */
	pq_out o;
	/* the taker's state writes every event: lines of its own */
	_Alignas(CACHE_LINE) pq_out taker;
	_Alignas(CACHE_LINE) pq_out rows;
	pq_out *fo, *eo;          /* the writers of the format and events tables */
	tb_host_pq_config cfg;
	const tb_session *s;
	pthread_t th;
	int two;                  /* the taker runs (not joined yet) */
	int nchunks;
};

static void out_error(pq_out *o, const char *path, const char *what, int err)
{
	if (!o->failed && !atomic_exchange(&o->sh->said, 1))
		o->sh->cfg.error(o->sh->cfg.ctx, path, what, err);
	o->failed = 1;
	atomic_store(&o->sh->stop, 1);
}

/* ---- the outputs: files under dir ---- */


typedef struct pq_file {
	FILE *f;
	char path[];
} pq_file;

static tb_status file_open(void *ctx, const char *name, int append, void **out)
{
	pq_out *o = ctx;
	pq_file *pf = malloc(sizeof(*pf) + strlen(o->dir) + strlen(name) + 2);
	char *slash;
	struct stat sb;
	if (!pf) {
		out_error(o, o->dir, "out of memory", 0);
		return TB_ERR_NO_SPACE;
	}
	sprintf(pf->path, "%s/%s", o->dir, name);
	/* buffer-NAME/: made with its first table */
	if ((slash = strrchr(pf->path + strlen(o->dir) + 1, '/')) != NULL && !append) {
		*slash = 0;
		if (mkdir(pf->path, 0777) && !(errno == EEXIST && stat(pf->path, &sb) == 0 &&
					       S_ISDIR(sb.st_mode))) {
			out_error(o, pf->path, "cannot create", errno);
			free(pf);
			return TB_ERR_ARG;
		}
		*slash = '/';
	}
	if (!(pf->f = fopen(pf->path, append ? "ab" : "wb"))) {
		out_error(o, pf->path, "cannot open", errno);
		free(pf);
		return TB_ERR_ARG;
	}
	*out = pf;
	return TB_OK;
}

static tb_status file_write(void *ctx, void *out, const void *p, size_t n)
{
	pq_file *pf = out;
	if (fwrite(p, 1, n, pf->f) != n) {
		out_error(ctx, pf->path, "write failed", errno);
		return TB_ERR_NO_SPACE;
	}
	return TB_OK;
}

static tb_status file_close(void *ctx, void *out)
{
	pq_file *pf = out;
	tb_status st = TB_OK;
	if (fclose(pf->f) != 0) {
		out_error(ctx, pf->path, "write failed", errno);
		st = TB_ERR_NO_SPACE;
	}
	free(pf);
	return st;
}

#ifdef TB_HAVE_ZSTD
static tb_status zstd_compress(void *ctx, const void *src, size_t n, void *dst, size_t cap,
			       size_t *out)
{
	size_t r = ZSTD_compressCCtx(ctx, dst, cap, src, n, 1);
	if (ZSTD_isError(r))
		return TB_ERR_NO_SPACE; /* stored uncompressed */
	*out = r;
	return TB_OK;
}

static size_t zstd_bound(void *ctx, size_t n)
{
	(void)ctx;
	return ZSTD_compressBound(n);
}
#endif

/* The outputs of o, for a writer or the metadata. */
static tb_pq_session_io out_io(pq_out *o)
{
	tb_pq_session_io io;
	memset(&io, 0, sizeof(io));
	io.open = file_open;
	io.write = file_write;
	io.close = file_close;
	io.ctx = o;
#ifdef TB_HAVE_ZSTD
	if (o->zc) {
		io.compress = zstd_compress;
		io.compress_bound = zstd_bound;
		io.compress_ctx = o->zc;
		io.codec = TB_PQ_ZSTD;
	}
#endif
	return io;
}

/* A library error: said once (an output's own error was said by its callback). */
static int lib_error(pq_out *o, const tb_error *e)
{
	out_error(o, o->dir, e->what, 0);
	return -1;
}

/* o with a writer of the given roles (flags 0: none). */
static int out_init(pq_out *o, pq_shared *sh, unsigned flags)
{
	tb_pq_session_config cfg;
	tb_pq_session_io io;
	tb_error e;
	memset(o, 0, sizeof(*o));
	o->sh = sh;
	o->dir = sh->cfg.dir;
	if (!flags)
		return 0;
#ifdef TB_HAVE_ZSTD
	if (!(o->zc = ZSTD_createCCtx())) {
		out_error(o, o->dir, "out of memory", 0);
		return -1;
	}
#endif
	memset(&cfg, 0, sizeof(cfg));
	cfg.flags = flags;
	cfg.source = sh->cfg.source;
	cfg.source_len = strlen(sh->cfg.source);
	io = out_io(o);
	if (tb_pq_session_open(&o->w, sh->s, &tb_host_heap, &cfg, &io, &e) != TB_OK)
		return lib_error(o, &e);
	return 0;
}

static void out_free(pq_out *o)
{
	tb_pq_session_close(o->w);
	o->w = NULL;
#ifdef TB_HAVE_ZSTD
	ZSTD_freeCCtx(o->zc);
	o->zc = NULL;
#endif
}

/* One event into o's writer: 0, or -1 (said). */
static int out_event(pq_out *o, const tb_session_event *ev, const char *text, size_t len)
{
	tb_error e;
	if (tb_pq_session_event(o->w, ev, text, len, &e) != TB_OK)
		return lib_error(o, &e);
	return 0;
}

static int out_finish(pq_out *o)
{
	tb_error e;
	if (o->w && !o->failed && tb_pq_session_finish(o->w, &e) != TB_OK)
		return lib_error(o, &e);
	return o->failed ? -1 : 0;
}

/* ---- the queue between the two threads ---- */

/* The oldest chunk still in use: by the taker, or (share) by the events
 * table's rows. */
static uint64_t q_oldest(const pq_shared *sh)
{
	return sh->share && sh->ev_done < sh->head ? sh->ev_done : sh->head;
}

/* The queued event at p into ev; returns the record's size in the chunk. */
static size_t q_event(const uint8_t *p, tb_session_event *ev)
{
	q_rec r;
	memcpy(&r, p, sizeof(r));
	ev->ts = r.ts;
	ev->format = r.format;
	ev->cpu = r.cpu;
	ev->buffer = r.buffer;
	ev->len = r.len;
	ev->comm_len = r.comm_len;
	ev->id = r.id;
	ev->pid = r.pid;
	ev->has_id = r.has_id;
	ev->has_pid = r.has_pid;
	ev->comm_known = r.comm_known;
	ev->page_index = r.page_index;
	ev->offset = r.offset;
	ev->comm = r.comm;
	ev->data = p + sizeof(r);
	return (sizeof(r) + (size_t)r.len + 7) & ~(size_t)7;
}

/*
 * Under mu (share): make the events table's next rows, those of up to
 * EV_SLICE bytes of queued records, when no other thread is making them,
 * mu released meanwhile.  1 when it did (or skipped them: an output
 * error stopped both), 0 when there were none to make.  (Slices, not
 * whole chunks: a thread that wants the rows, or waits for a chunk they
 * hold, waits for less.)
 */
#define EV_SLICE ((size_t)256 << 10)
static int q_events_rows(pq_shared *sh)
{
	pq_out *eo = sh->evo;
	tb_session_event ev;
	const uint8_t *chunk;
	size_t at = sh->ev_at, used, end;
	if (!sh->share || sh->ev_busy || sh->ev_done == sh->tail)
		return 0;
	sh->ev_busy = 1;
	chunk = sh->chunk[sh->ev_done % Q_CHUNKS];
	used = sh->used[sh->ev_done % Q_CHUNKS];
	end = used - at > EV_SLICE ? at + EV_SLICE : used;
	pthread_mutex_unlock(&sh->mu);
	memset(&ev, 0, sizeof(ev)); /* what the queue does not carry stays 0 */
	ev.kind = TB_SEV_EVENT;
	while (at < end && !eo->failed && !atomic_load(&sh->stop)) {
		at += q_event(chunk + at, &ev);
		(void)out_event(eo, &ev, NULL, 0);
	}
	pthread_mutex_lock(&sh->mu);
	if (at >= used || eo->failed || atomic_load(&sh->stop)) {
		sh->ev_done++;
		at = 0;
	}
	sh->ev_at = at;
	sh->ev_busy = 0;
	if (eo->failed)
		sh->quit = 1;
	pthread_cond_broadcast(&sh->cv);
	return 1;
}

/* Give the filled chunk (the giver's chunk tail % Q_CHUNKS) and wait for a
 * free one, making events rows meanwhile: 0, or -1 when the other side
 * stopped. */
static int q_give(pq_shared *sh)
{
	int rc;
	pthread_mutex_lock(&sh->mu);
	sh->used[sh->tail % Q_CHUNKS] = sh->fill;
	sh->tail++;
	pthread_cond_broadcast(&sh->cv);
	while (sh->tail - q_oldest(sh) >= Q_CHUNKS && !sh->quit)
		if (!q_events_rows(sh))
			pthread_cond_wait(&sh->cv, &sh->mu);
	rc = sh->quit ? -1 : 0;
	pthread_mutex_unlock(&sh->mu);
	sh->fill = 0;
	return rc;
}

/* Queue the event: 0, or -1 (the other side stopped, or the record is
 * longer than a page, which the walk never gives). */
static int q_put(pq_out *o, const tb_session_event *ev)
{
	pq_shared *sh = o->sh;
	size_t k = sh->tail % Q_CHUNKS;
	size_t n = (sizeof(q_rec) + (size_t)ev->len + 7) & ~(size_t)7;
	q_rec r;
	uint8_t *p;
	if (n > Q_CHUNK) {
		out_error(o, o->dir, "record longer than a page", 0);
		return -1;
	}
	if (Q_CHUNK - sh->fill < n) {
		if (q_give(sh))
			return -1;
		k = sh->tail % Q_CHUNKS;
	}
	p = sh->chunk[k] + sh->fill;
	r.ts = ev->ts;
	r.format = ev->format;
	r.comm = ev->comm;
	r.cpu = ev->cpu;
	r.buffer = ev->buffer;
	r.len = ev->len;
	r.comm_len = (uint32_t)(ev->comm_len <= TB_PQ_SESSION_COMM_MAX ? ev->comm_len
								   : TB_PQ_SESSION_COMM_MAX + 1);
	r.id = ev->id;
	r.pid = ev->pid;
	r.has_id = (uint8_t)ev->has_id;
	r.has_pid = (uint8_t)ev->has_pid;
	r.comm_known = (uint8_t)ev->comm_known;
	r.page_index = ev->page_index;
	r.offset = ev->offset;
	memcpy(p, &r, sizeof(r));
	memcpy(p + sizeof(r), ev->data, ev->len);
	sh->fill += n;
	return 0;
}

/* The last chunk given; with share, the events rows still to make are
 * made here too, until none is left. */
static void q_finish(pq_shared *sh)
{
	pthread_mutex_lock(&sh->mu);
	sh->used[sh->tail % Q_CHUNKS] = sh->fill;
	sh->tail++;
	sh->done = 1;
	pthread_cond_broadcast(&sh->cv);
	while (sh->share && !sh->quit && (sh->ev_done < sh->tail || sh->ev_busy))
		if (!q_events_rows(sh))
			pthread_cond_wait(&sh->cv, &sh->mu);
	pthread_mutex_unlock(&sh->mu);
}

/* The taker: every queued event with a format into the per-event tables;
 * with share, events rows while no chunk waits. */
static void q_take_all(pq_out *o)
{
	pq_shared *sh = o->sh;
	tb_session_event ev;
	memset(&ev, 0, sizeof(ev)); /* what the queue does not carry stays 0 */
	ev.kind = TB_SEV_EVENT;
	for (;;) {
		size_t at = 0, used;
		const uint8_t *chunk;
		pthread_mutex_lock(&sh->mu);
		while (sh->head == sh->tail && !sh->quit) {
			if (q_events_rows(sh))
				continue;
			if (sh->done && !sh->ev_busy)
				break;
			pthread_cond_wait(&sh->cv, &sh->mu);
		}
		if (sh->head == sh->tail || sh->quit) {
			pthread_mutex_unlock(&sh->mu);
			break;
		}
		chunk = sh->chunk[sh->head % Q_CHUNKS];
		used = sh->used[sh->head % Q_CHUNKS];
		pthread_mutex_unlock(&sh->mu);
		while (at < used && !o->failed && !atomic_load(&sh->stop)) {
			at += q_event(chunk + at, &ev);
			if (ev.format)
				(void)out_event(o, &ev, NULL, 0);
		}
		pthread_mutex_lock(&sh->mu);
		sh->head++;
		if (o->failed)
			sh->quit = 1;
		pthread_cond_broadcast(&sh->cv);
		pthread_mutex_unlock(&sh->mu);
		if (o->failed)
			break;
	}
	pthread_mutex_lock(&sh->mu);
	sh->quit = 1;
	pthread_cond_broadcast(&sh->cv);
	pthread_mutex_unlock(&sh->mu);
}

/* ---- the writer ---- */

static void *formats_thread(void *arg)
{
	pq_out *o = arg;
	q_take_all(o);
	(void)out_finish(o);
	return NULL;
}

/* The two-thread split of w: 1 when the worker runs. */
static int split(tb_host_pq *w)
{
	if (out_init(&w->taker, w, TB_PQ_SESSION_FORMATS))
		return 0;
	if (!w->cfg.text) {
		/* the events table's rows from the queue */
		if (out_init(&w->rows, w, TB_PQ_SESSION_EVENTS))
			return 0;
		w->share = 1;
		w->evo = &w->rows;
	} else if (out_init(&w->o, w, TB_PQ_SESSION_EVENTS | TB_PQ_SESSION_TEXT)) {
		return 0;
	}
	w->o.queue = 1;
	return pthread_create(&w->th, NULL, formats_thread, &w->taker) == 0;
}

static int any_failed(const tb_host_pq *w)
{
	return w->o.failed || w->taker.failed || w->rows.failed;
}

int tb_host_pq_open(tb_host_pq **out, const tb_session *s, const tb_host_pq_config *cfg)
{
	tb_host_pq *w;
	void *p;
	*out = NULL;
	if (posix_memalign(&p, CACHE_LINE, sizeof(*w))) {
		cfg->error(cfg->ctx, cfg->dir, "out of memory", 0);
		return -1;
	}
	*out = w = p;
	memset(w, 0, sizeof(*w));
	atomic_init(&w->stop, 0);
	atomic_init(&w->said, 0);
	w->cfg = *cfg;
	w->s = s;
	(void)out_init(&w->o, w, 0);
	(void)out_init(&w->taker, w, 0);
	(void)out_init(&w->rows, w, 0);
	w->fo = w->eo = &w->o;
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->cv, NULL);
	while (cfg->jobs > 1 && w->nchunks < Q_CHUNKS && (w->chunk[w->nchunks] = malloc(Q_CHUNK)))
		w->nchunks++;
	if (w->nchunks == Q_CHUNKS) {
		/* (a writer that failed to open stopped the split before the
		 * thread: once it runs, its state is its own) */
		if (!(w->two = split(w)) && any_failed(w))
			return -1;
		if (!w->two) {
			/* one thread after all */
			out_free(&w->taker);
			out_free(&w->rows);
			out_free(&w->o);
			w->o.queue = 0;
			w->share = 0;
		} else {
			w->fo = &w->taker;
			w->eo = w->share ? &w->rows : &w->o;
		}
	}
	if (!w->two && out_init(&w->o, w,
				TB_PQ_SESSION_EVENTS | TB_PQ_SESSION_FORMATS |
					(cfg->text ? TB_PQ_SESSION_TEXT : 0u)))
		return -1;
	return 0;
}

int tb_host_pq_event(tb_host_pq *w, const tb_session_event *ev)
{
	pq_out *o = &w->o;
	const char *text = NULL;
	size_t len = 0;
	if (o->queue && (ev->format || w->share) && q_put(o, ev)) {
		o->failed = 1; /* said by q_put or by the other side */
		return -1;
	}
	if (!o->w)
		return 0;
	if (w->cfg.text && w->cfg.render(w->cfg.ctx, ev, &text, &len)) {
		out_error(o, o->dir, "out of memory", 0);
		return -1;
	}
	return out_event(o, ev, text, len);
}

int tb_host_pq_failed(const tb_host_pq *w)
{
	return w->o.failed || atomic_load(&w->stop);
}

/* The taker told to stop and joined. */
static void join(tb_host_pq *w, int finish)
{
	if (!w->two)
		return;
	if (finish) {
		q_finish(w);
		if (w->eo != &w->o && !w->eo->failed && !w->o.failed && !atomic_load(&w->stop))
			(void)out_finish(w->eo);
	} else {
		pthread_mutex_lock(&w->mu);
		w->quit = 1;
		pthread_cond_broadcast(&w->cv);
		pthread_mutex_unlock(&w->mu);
	}
	pthread_join(w->th, NULL);
	w->two = 0;
}

int tb_host_pq_finish(tb_host_pq *w, const tb_pq_session_meta *meta)
{
	(void)out_finish(&w->o);
	join(w, 1);
	if (!any_failed(w)) {
		tb_pq_session_io io = out_io(&w->o);
		tb_pq_session_meta m = *meta;
		tb_error e;
		m.events = w->eo->w;
		m.formats = w->fo->w;
		if (tb_pq_session_metadata(w->s, &m, &tb_host_heap, &io, &e) != TB_OK)
			(void)lib_error(&w->o, &e);
	}
	return any_failed(w) ? -1 : 0;
}

void tb_host_pq_close(tb_host_pq *w)
{
	int k;
	if (!w)
		return;
	join(w, 0);
	pthread_cond_destroy(&w->cv);
	pthread_mutex_destroy(&w->mu);
	out_free(&w->o);
	out_free(&w->taker);
	out_free(&w->rows);
	for (k = 0; k < w->nchunks; k++)
		free(w->chunk[k]);
	free(w);
}
