/*
 * tracebound convert --to parquet [--text] DATASET FILE.dat...
 * tracebound convert --to parquet [--text] --events DIR [--header-page FILE]
 *                                  DATASET cpuN.raw...
 *
 * Every event of each capture as typed Parquet tables (docs/parquet.md),
 * added to the dataset DATASET as the partition DATASET/trace_id=ID
 * (dataset.h: staged, then one rename): SYSTEM-EVENT.parquet per event
 * format that has events, events.parquet over all events,
 * metadata.parquet (one row) and metadata.json.
 * The library writes the tables (pq_session.h); this file gives it the
 * files and the compressor, runs it on one or two threads, and checks
 * every write.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef TB_HAVE_ZSTD
#include <zstd.h>
#endif

#include "capture.h"
#include "dataset.h"
#include "files.h"
#include "opts.h"
#include "tracebound/pq_session.h"

typedef struct pq_out pq_out;

/*
 * --jobs 2 and more: two threads, two library writers.  The main one
 * walks the session (its stderr, the page counts) and hands each event,
 * its record copied, to the other through a bounded queue of chunks; that
 * one writes the per-event tables (TB_PQ_SESSION_FORMATS).  The events
 * table's rows (a writer of its own) are made from the queued chunks, in
 * chunk order, by whichever thread has nothing else to do: the worker
 * when it waits for a chunk, the main thread when it waits for a free
 * one.  So that work goes to the thread with time for it, wherever the
 * capture puts the load.
 * With --text the rows are rendered, which needs the session the main
 * thread walks: they stay on the main thread, and only events with a
 * format are queued.  Every table is written by one writer, in row
 * order, so every file is the one-thread file byte for byte.
 */

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

typedef struct pq_shared {
	_Alignas(CACHE_LINE) atomic_int stop; /* an output error on either side: both stop */
	atomic_int said;          /* the first error was printed */
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
} pq_shared;

/* One library writer and what it writes with. */
struct pq_out {
	tb_pq_session *w;         /* NULL: none (the walk of a shared split) */
	int queue;                /* events go to the queue (the walking side) */
	pq_shared *sh;
	const char *dir;          /* where the tables go: the staging directory */
	int failed;               /* an output error was reported: exit 2 */
#ifdef TB_HAVE_ZSTD
	ZSTD_CCtx *zc;
#endif
};

static void out_error(pq_out *o, const char *path, const char *what, int err)
{
	if (!o->failed && !atomic_exchange(&o->sh->said, 1))
		fprintf(stderr, "tracebound: %s: %s%s%s\n", path, what, err ? ": " : "",
			err ? strerror(err) : "");
	o->failed = 1;
	atomic_store(&o->sh->stop, 1);
}

/* ---- the writer's outputs: files under dir ---- */

static void *heap_alloc(void *ctx, size_t n)
{
	(void)ctx;
	return malloc(n);
}

static void heap_free(void *ctx, void *p, size_t n)
{
	(void)ctx;
	(void)n;
	free(p);
}

/* The writers' own memory: the heap, bounded by pq_session.h. */
static const tb_mem pq_heap = { heap_alloc, heap_free, NULL };

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
static int out_init(pq_out *o, pq_shared *sh, const tb_cli_capture *c, const char *dir,
		    unsigned flags, const char *src)
{
	tb_pq_session_config cfg;
	tb_pq_session_io io;
	tb_error e;
	memset(o, 0, sizeof(*o));
	o->sh = sh;
	o->dir = dir;
	if (!flags)
		return 0;
#ifdef TB_HAVE_ZSTD
	if (!(o->zc = ZSTD_createCCtx())) {
		out_error(o, dir, "out of memory", 0);
		return -1;
	}
#endif
	memset(&cfg, 0, sizeof(cfg));
	cfg.flags = flags;
	cfg.source = src;
	cfg.source_len = strlen(src);
	io = out_io(o);
	if (tb_pq_session_open(&o->w, c->s, &pq_heap, &cfg, &io, &e) != TB_OK)
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

/* ---- one capture ---- */

/* The walking thread's own: the capture and --text's rendering. */
typedef struct pq_walk {
	tb_cli_capture *c;
	int text;
	tb_cli_line line;
	uint64_t bad_pages;
	int malformed;            /* a page did not read, or damage */
} pq_walk;

static void on_event(pq_out *o, pq_walk *wk, const tb_session_event *ev)
{
	if (o->queue && (ev->format || o->sh->share) && q_put(o, ev)) {
		o->failed = 1; /* said by q_put or by the other side */
		return;
	}
	if (!o->w)
		return;
	if (wk->text && tb_cli_render(wk->c, ev, TB_TEXT_PRINT, &wk->line) != 0) {
		out_error(o, o->dir, "out of memory", 0);
		return;
	}
	(void)out_event(o, ev, wk->line.p, wk->text ? wk->line.len : 0);
}

/* Walk the capture (the main thread) into o's writer, or the queue, and
 * say what the walk met on stderr, as it meets it; then finish o's
 * tables. */
static void out_walk(pq_out *o, pq_walk *wk, const char *path)
{
	tb_session_event ev;
	tb_error e;
	tb_status st;
	uint64_t seen = 0;
	int progress = isatty(2);
	while (!o->failed && !atomic_load(&o->sh->stop) &&
	       (st = tb_session_next(wk->c->s, &ev, &e)) != TB_END) {
		if (st != TB_OK) {
			wk->bad_pages++;
			wk->malformed = 1;
			tb_cli_print_page_error(wk->c, &e);
			continue;
		}
		if (progress && (seen & 0xfffff) == 0 && seen)
			fprintf(stderr, "\r%s: %llu events", path, (unsigned long long)seen);
		seen++;
		on_event(o, wk, &ev);
	}
	if (progress && seen > 0xfffff)
		fprintf(stderr, "\r\n");
	/* tables or formats that did not parse: said on stderr, malformed */
	tb_cli_print_damage(wk->c, stderr);
	if (tb_session_ndamage(wk->c->s))
		wk->malformed = 1;
	(void)out_finish(o);
}

static void *formats_thread(void *arg)
{
	pq_out *o = arg;
	q_take_all(o);
	(void)out_finish(o);
	return NULL;
}

/* The two-thread split of o (pq_shared): 1 when the worker runs. */
static int split(pq_out *o, pq_out *fo, pq_out *eo, pq_walk *wk, pthread_t *th,
		 const char *path)
{
	pq_shared *sh = o->sh;
	pthread_mutex_init(&sh->mu, NULL);
	pthread_cond_init(&sh->cv, NULL);
	if (out_init(fo, sh, wk->c, o->dir, TB_PQ_SESSION_FORMATS, path))
		return 0;
	if (!wk->text) {
		/* the events table's rows from the queue */
		if (out_init(eo, sh, wk->c, o->dir, TB_PQ_SESSION_EVENTS, path))
			return 0;
		sh->share = 1;
		sh->evo = eo;
	} else if (out_init(o, sh, wk->c, o->dir, TB_PQ_SESSION_EVENTS | TB_PQ_SESSION_TEXT,
			    path)) {
		return 0;
	}
	o->queue = 1;
	return pthread_create(th, NULL, formats_thread, fo) == 0;
}

/* Convert the opened capture c into dir (c is closed here): on two
 * threads when jobs > 1.  src, id: for the metadata. */
static int convert_capture(tb_cli_capture *cp, const char *dir, const char *path, int text,
			   int jobs, const char *src, const char *id)
{
	tb_cli_capture c = *cp;
	pq_shared sh;
	/* the taker's state writes every event: lines of its own (pq_shared) */
	struct { _Alignas(CACHE_LINE) pq_out o; } taker, rows;
	pq_out o, *fo = &o, *eo = &o;
	pq_walk wk;
	pthread_t th;
	int two = 0, failed, k, nchunks = 0;
	memset(&sh, 0, sizeof(sh));
	atomic_init(&sh.stop, 0);
	atomic_init(&sh.said, 0);
	memset(&wk, 0, sizeof(wk));
	wk.c = &c;
	wk.text = text;
	(void)out_init(&o, &sh, &c, dir, 0, path);
	(void)out_init(&taker.o, &sh, &c, dir, 0, path);
	(void)out_init(&rows.o, &sh, &c, dir, 0, path);
	while (jobs > 1 && nchunks < Q_CHUNKS && (sh.chunk[nchunks] = malloc(Q_CHUNK)))
		nchunks++;
	if (nchunks == Q_CHUNKS) {
		two = split(&o, &taker.o, &rows.o, &wk, &th, path);
		if (taker.o.failed || rows.o.failed || o.failed)
			goto done;
		if (!two) {
			/* one thread after all */
			out_free(&taker.o);
			out_free(&rows.o);
			out_free(&o);
			o.queue = 0;
			sh.share = 0;
		} else {
			fo = &taker.o;
			eo = sh.share ? &rows.o : &o;
		}
	}
	if (!two && out_init(&o, &sh, &c, dir,
			     TB_PQ_SESSION_EVENTS | TB_PQ_SESSION_FORMATS |
				     (text ? TB_PQ_SESSION_TEXT : 0u),
			     path))
		goto done;
	out_walk(&o, &wk, path);
	if (two) {
		q_finish(&sh);
		if (eo != &o && !eo->failed && !o.failed && !atomic_load(&sh.stop))
			(void)out_finish(eo);
		pthread_join(th, NULL);
	}
	if (!o.failed && !taker.o.failed && !rows.o.failed) {
		tb_pq_session_io io = out_io(&o);
		tb_pq_session_meta meta = { src, id, c.raw, c.nraw, wk.bad_pages, eo->w, fo->w };
		tb_error e;
		if (tb_pq_session_metadata(c.s, &meta, &pq_heap, &io, &e) != TB_OK)
			(void)lib_error(&o, &e);
	}
done:
	if (nchunks == Q_CHUNKS) {
		pthread_cond_destroy(&sh.cv);
		pthread_mutex_destroy(&sh.mu);
	}
	failed = o.failed || taker.o.failed || rows.o.failed;
	out_free(&o);
	out_free(&taker.o);
	out_free(&rows.o);
	for (k = 0; k < nchunks; k++)
		free(sh.chunk[k]);
	free(wk.line.p);
	tb_cli_capture_close(&c);
	memset(cp, 0, sizeof(*cp));
	if (failed)
		return TB_EXIT_USAGE;
	return wk.malformed ? TB_EXIT_MALFORMED : TB_EXIT_OK;
}

/* The opened capture c (closed here) as the upload id of the dataset
 * root: staged, converted, published (dataset.h).  An upload already
 * there is left as it is. */
static int convert_upload(tb_cli_capture *c, const char *root, const char *path,
			  const char *id, int text, int jobs)
{
	tb_ds_stage st;
	const char *name = strcmp(path, "-") ? path : "(stdin)";
	char *src = strcmp(path, "-") ? tb_ds_abspath(path) : NULL;
	int rc, present = tb_ds_present(root, id);
	if (present) {
		rc = TB_EXIT_OK;
		tb_cli_capture_close(c);
	} else if (tb_ds_stage_begin(&st, root, id)) {
		rc = TB_EXIT_USAGE;
		tb_cli_capture_close(c);
	} else {
		rc = convert_capture(c, st.dir, path, text, jobs, src ? src : name, id);
		/* a malformed capture's tables are whole: what could be read */
		if (rc == TB_EXIT_OK || rc == TB_EXIT_MALFORMED) {
			present = tb_ds_stage_publish(&st);
			if (present < 0)
				rc = TB_EXIT_USAGE;
		}
		tb_ds_stage_end(&st);
	}
	/* the same bytes again (here, or by a convert running beside this
	 * one): the partition stays as it is */
	if (present > 0)
		fprintf(stderr, "tracebound: %s: already in %s as trace_id=%s\n", name, root, id);
	if (rc == TB_EXIT_OK || rc == TB_EXIT_MALFORMED)
		printf("trace_id=%s\t%s\n", id, name);
	free(src);
	return rc;
}

/* The upload's trace id (dataset.h): a file's bytes as stored (trace.dat,
 * perf.data), or a folder's parts as the library's source found them. */
static void capture_trace_id(const tb_cli_capture *c, char id[TB_TRACE_ID_LEN + 1])
{
	if (c->host)
		tb_trace_id_source(&c->host->source.src, id);
	else
		tb_trace_id_dat(c->f.data, c->f.len, id);
}

static int convert_dat(const char *root, const char *path, int text, int jobs)
{
	tb_session_options so = { 0, 0 };
	tb_cli_capture c;
	char id[TB_TRACE_ID_LEN + 1];
	int rc;
	/* damage outside the events is listed after the walk, when the
	 * formats met on the way have been parsed too */
	if ((rc = tb_cli_capture_open(&c, path, &so, NULL)) != 0)
		return rc;
	capture_trace_id(&c, id);
	return convert_upload(&c, root, path, id, text, jobs);
}

/* ---- raw dumps: the library's source rule (source.h) ---- */

static int convert_raw(const char *dir, const char *events, const char *hp_path,
		       char **files, int nfiles, int text, int jobs)
{
	tb_session_options so = { 0, 0 };
	tb_source_desc d;
	tb_cli_capture c;
	char id[TB_TRACE_ID_LEN + 1];
	int rc;
	memset(&d, 0, sizeof(d));
	d.dumps = (const char *const *)files;
	d.ndumps = (size_t)nfiles;
	d.events = events;
	d.header_page = hp_path;
	if ((rc = tb_cli_capture_open_source(&c, &d, &so, NULL)) != 0) {
		tb_cli_capture_close(&c);
		return rc;
	}
	capture_trace_id(&c, id);
	return convert_upload(&c, dir, files[0], id, text, jobs);
}

static const tb_opt parquet_options[] = {
	{ 1, "--text", NULL, NULL, "add the rendered text column" },
	{ 2, "--events", NULL, "DIR", "event formats for raw cpuN.raw inputs" },
	{ 3, "--header-page", NULL, "FILE", "the sub-buffer layout of raw inputs" },
	{ 4, "--jobs", "-j", "N", "write on 2 threads when N > 1, files unchanged (default: the machine's cores)" },
	TB_CLI_MAX_MEMORY_OPT,
	{ 0, NULL, NULL, NULL, NULL },
};

int tb_convert_parquet(int argc, char **argv)
{
	int i = 1, text = 0, rc = TB_EXIT_OK, nfiles, k, id, npos = 0, jobs = tb_opts_default_jobs();
	tb_opts po;
	const char *v;
	const char *outdir, *events = NULL, *hp = NULL;
	tb_opts_init(&po, "convert --to parquet",
		     "[--text] DATASET FILE.dat...\n"
		     "       tracebound convert --to parquet [--text] --events DIR "
		     "[--header-page FILE] DATASET cpuN.raw...",
		     parquet_options, argc, argv);
	while ((id = tb_opts_next(&po, &v)) != TB_OPTS_END) {
		switch (id) {
		case TB_OPTS_HELP: return TB_EXIT_OK;
		case TB_OPTS_ERROR: return TB_EXIT_USAGE;
		case TB_OPT_MAX_MEMORY:
			if (tb_cli_budget_option(&po, v) != 0)
				return TB_EXIT_USAGE;
			break;
		case 1: text = 1; break;
		case 2: events = v; break;
		case 3: hp = v; break;
		case 4:
			if (tb_opts_jobs(&po, v, &jobs))
				return TB_EXIT_USAGE;
			break;
		default: argv[++npos] = (char *)(uintptr_t)v; break;
		}
	}
	argc = npos + 1;
	if (argc - i < 2)
		return tb_opts_usage(&po);
	outdir = argv[i++];
	nfiles = argc - i;
	if (tb_ds_mkdir_p(outdir)) {
		fprintf(stderr, "tracebound: %s: cannot create: %s\n", outdir, strerror(errno));
		return TB_EXIT_USAGE;
	}
	if (events) {
		/* the dumps are one upload */
		rc = convert_raw(outdir, events, hp, argv + i, nfiles, text, jobs);
	} else {
		for (k = 0; k < nfiles; k++) {
			int r = convert_dat(outdir, argv[i + k], text, jobs);
			if (r > rc)
				rc = r;
		}
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "tracebound: stdout: write failed: %s\n", strerror(errno));
		rc = TB_EXIT_USAGE;
	}
	return rc;
}
