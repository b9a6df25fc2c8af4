/*
 * host/: the parts engine (see parts.h).
 *
 * The library splits the capture into parts by time (tb_session_plan) and
 * gives each worker thread a cursor of its own (tb_session_part_open, then
 * tb_session_part_seek from part to part, so what the cursor compiles is
 * compiled once).  A worker runs the command's produce hook over its part
 * into 4 MiB chunks queued on the part; stderr messages and (report's
 * --ts-diff) the part's first event are queued in their place too.  The
 * main thread takes the parts in order and hands their chunks to the
 * consume hook, so what it sees is what the one-thread loop makes, in the
 * same order.  The plan runs on a thread of its own, so the main thread
 * writes part 0 while the later bounds are found.
 *
 *  - a part is live when the main thread has consumed everything before
 *    it and waits on it with nothing queued: with direct_ok hooks, the
 *    worker then writes the rest of it itself, from its staging buffer,
 *    until the part ends (the main thread takes it back should anything
 *    be queued first).  Only the parts ahead of the live one are copied
 *    to chunks;
 *  - a worker holds at most CHUNKS_PER_WORKER chunks not yet consumed (it
 *    waits for the main thread past that): memory is bounded per worker;
 *  - defer_first: the first event of a part may depend on the state the
 *    parts before left (report's --ts-diff line): the worker queues that
 *    event (its record copied) and the main thread's defer hook handles
 *    it with the state the previous parts left;
 *  - before consuming part j+1 the main thread checks that it starts
 *    exactly where part j stopped on every CPU (tb_session_part_marks).
 *    When it does not (a capture whose clock went back), the threads stop
 *    and the main thread walks the whole capture again on one cursor,
 *    through the same hooks, skipping the bytes and messages consumed
 *    already.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "files.h"
#include "parts.h"

#define CHUNK_SIZE ((size_t)4 << 20)
/* A worker a part ahead holds that part's whole text until the parts
 * before are written: 4 MiB of capture is about 12 MiB of -R lines and
 * 29 MiB of JSON. */
#define CHUNKS_PER_WORKER 16
/* Capture bytes per part, about, when the engine plans.  Each worker a
 * part ahead holds that much less text (fresh memory, zeroed by the
 * kernel, the first time), and the last part, alone on one thread,
 * takes half as long.  Against 8 MiB parts, on the 377 MiB bench
 * capture: report --jobs 2 --raw 1.16 s against 1.30 s (mean of 6
 * alternated pairs, 5 won), CPU time 2.27 s against 2.54 s, peak RSS 45
 * against 54 MiB (JSON: 60 against 80).  With the plan's aimed probes
 * (session.c) the doubled plan costs less than the old one did. */
#define PART_INPUT ((size_t)4 << 20)
/* A fixed plan's part (tb_parts_count): where it cuts shows in the output
 * (perfetto's), so it stays what it was. */
#define FIXED_PART_INPUT ((size_t)8 << 20)
#define MAX_PARTS 1024  /* plan costs parts x CPUs x a few dozen header reads */
#define MAX_JOBS 64
/* Lines are built in a small buffer that stays in the core's cache and
 * copied to the chunk in blocks: formatted straight into 4 MiB chunks,
 * every line's stores missed the cache and pushed the worker's input and
 * tables out of it; report --jobs 2 --raw used 1.81 s of CPU against
 * 1.60 s with this, and --jobs 1 uses 1.47 s. */
#define STAGE_SIZE ((size_t)64 << 10)
/* A put this big (a Perfetto bundle) is copied once, to the chunk, not
 * to the stage and then to the chunk: convert --to perfetto --jobs 2
 * spent 3% of its CPU time in that first copy. */
#define BIG_PUT (STAGE_SIZE / 8)

enum { EL_DATA, EL_MSG, EL_DEFER };

typedef struct elem {
	struct elem *next;
	int kind, owner;
	size_t len, cap;
	tb_session_event ev;     /* EL_DEFER: its data copied into buf */
	char *buf;               /* a data chunk's: tb_host_big_alloc */
} elem;

typedef struct part_out {
	elem *head, *tail;
	int started, done, bad, abort, has_ls;
	int live;                /* direct hooks: the main thread waits on this
				    part with nothing queued or in hand; the
				    worker may write itself */
	int write_failed;        /* the worker's own consume failed, */
	int write_errno;         /* with this errno (the caller says it) */
	uint64_t direct_bytes, direct_msgs; /* what the worker wrote itself */
	tb_session_line_state ls;
	tb_session_mark *start, *stop;
	/* the -R listing's memory when the part started and stopped
	 * (tb_session_listing_memory; malloc'd, NULL when empty) */
	uint64_t *mem_start, *mem_stop;
	size_t nmem_start, nmem_stop;
} part_out;

typedef struct shared {
	const tb_parts_hooks *h;
	tb_session *s;
	pthread_mutex_t mu;
	pthread_cond_t cv_writer, cv_space, cv_plan;
	part_out *parts;
	size_t maxparts;         /* room in parts */
	size_t nparts, next_part, nmarks;
	uint64_t *bounds;        /* the plan's split times, filled as found */
	size_t nknown;           /* bounds found so far: part j can start once
				    its end bounds[j] is, or the plan is done */
	int planned;             /* the plan is done and split the capture:
				    nparts is final (never set when it could
				    not split: then cancel is) */
	int cancel;
	int outstanding[MAX_JOBS];
	elem *free_chunks;       /* written chunks, for any worker: a chunk is
				    fresh memory the first time (a page fault
				    and a zeroed page each), so the fewer
				    distinct ones the better */
} shared;

/* Where a part's output goes: the part's queue, or straight to the hooks
 * (skipping what an earlier attempt consumed already). */
struct tb_parts_sink {
	shared *sh;              /* NULL: straight to the hooks */
	const tb_parts_hooks *h;
	int w;
	part_out *po;
	elem *cur;
	int defer_first, deferred;
	uint64_t skip_bytes, skip_msgs;
	uint8_t *room;           /* straight: where tb_parts_reserve builds */
	size_t room_cap;
	uint8_t *stage;          /* queued: puts gathered here, then copied
				    to the chunk a STAGE_SIZE at a time */
	size_t stage_len, stage_cap;
	int in_chunk;            /* the reserve was in the chunk (too big
				    for the stage) */
	int direct;              /* the part is live: written by this worker */
	int failed;              /* a write of this worker's failed: stop */
	int failed_errno;
	const uint64_t *bounds;  /* the one-cursor walk: the plan's split times */
	size_t nbounds;
};

/* A data chunk of the standard size: a big block (cli.h), written once,
 * then reused (the free list).  As small pages, 4 MiB chunks cost 9,000
 * faults and 0.1 s of CPU on a 386 MiB report (about 12 us a page on this
 * KVM guest).  Other elements (messages, deferred events, a line longer
 * than a chunk) come from malloc and are freed once written. */
static int is_chunk(int kind, size_t cap)
{
	return kind == EL_DATA && cap == CHUNK_SIZE;
}

static void free_elem(elem *e)
{
	if (is_chunk(e->kind, e->cap))
		tb_host_big_free(e->buf, e->cap);
	else
		free(e->buf);
	free(e);
}

static void give_back(shared *sh, elem *e)
{
	pthread_mutex_lock(&sh->mu);
	sh->outstanding[e->owner]--;
	if (is_chunk(e->kind, e->cap)) {
		e->next = sh->free_chunks;
		sh->free_chunks = e;
		e = NULL;
	}
	pthread_cond_broadcast(&sh->cv_space);
	pthread_mutex_unlock(&sh->mu);
	if (e)
		free_elem(e);
}

/* A new element of the worker's budget (waits for room); NULL when the
 * run is cancelled or memory ran out. */
static elem *new_elem(tb_parts_sink *k, int kind, size_t cap)
{
	shared *sh = k->sh;
	elem *e = NULL;
	pthread_mutex_lock(&sh->mu);
	while (sh->outstanding[k->w] >= CHUNKS_PER_WORKER && !sh->cancel)
		pthread_cond_wait(&sh->cv_space, &sh->mu);
	if (sh->cancel) {
		pthread_mutex_unlock(&sh->mu);
		return NULL;
	}
	sh->outstanding[k->w]++;
	if (is_chunk(kind, cap) && sh->free_chunks) {
		e = sh->free_chunks;
		sh->free_chunks = e->next;
	}
	pthread_mutex_unlock(&sh->mu);
	if (!e) {
		e = malloc(sizeof(*e));
		if (e)
			e->buf = is_chunk(kind, cap) ? tb_host_big_alloc(cap) : malloc(cap ? cap : 1);
		if (e && !e->buf) {
			free(e);
			e = NULL;
		}
		if (!e) {
			pthread_mutex_lock(&sh->mu);
			sh->outstanding[k->w]--;
			pthread_mutex_unlock(&sh->mu);
			return NULL;
		}
		e->cap = cap;
	}
	e->next = NULL;
	e->kind = kind;
	e->owner = k->w;
	e->len = 0;
	return e;
}

static void push(tb_parts_sink *k, elem *e)
{
	shared *sh = k->sh;
	pthread_mutex_lock(&sh->mu);
	if (k->po->tail)
		k->po->tail->next = e;
	else
		k->po->head = e;
	k->po->tail = e;
	pthread_cond_signal(&sh->cv_writer);
	pthread_mutex_unlock(&sh->mu);
}

static int flush_stage(tb_parts_sink *k);

static void flush_cur(tb_parts_sink *k)
{
	(void)flush_stage(k); /* fails when cancelled, or live on a write error */
	if (k->cur && k->cur->len) {
		push(k, k->cur);
		k->cur = NULL;
	}
}

/* Straight to the hooks, past what was consumed already. */
static int consume_direct(tb_parts_sink *k, const void *p, size_t n)
{
	if (k->skip_bytes >= n) {
		k->skip_bytes -= n;
		return 0;
	}
	p = (const uint8_t *)p + k->skip_bytes;
	n -= (size_t)k->skip_bytes;
	k->skip_bytes = 0;
	return k->h->consume(k->h->ctx, p, n);
}

void *tb_parts_reserve(tb_parts_sink *k, size_t n, size_t *room)
{
	if (!k->sh) {
		if (k->room_cap < n) {
			size_t cap = n > ((size_t)1 << 16) ? n : (size_t)1 << 16;
			uint8_t *nb = realloc(k->room, cap);
			if (!nb)
				return NULL;
			k->room = nb;
			k->room_cap = cap;
		}
		*room = k->room_cap;
		return k->room;
	}
	k->in_chunk = 0;
	if (k->failed)
		return NULL;
	if (k->stage_cap - k->stage_len >= n) {
		*room = k->stage_cap - k->stage_len;
		return k->stage + k->stage_len;
	}
	if (flush_stage(k))
		return NULL;
	if (n <= k->stage_cap) {
		*room = k->stage_cap;
		return k->stage;
	}
	if (!k->cur || k->cur->cap - k->cur->len < n) {
		flush_cur(k);
		if (k->failed)
			return NULL;
		if (!k->cur && !(k->cur = new_elem(k, EL_DATA, n > CHUNK_SIZE ? n : CHUNK_SIZE)))
			return NULL;
	}
	k->in_chunk = 1;
	*room = k->cur->cap - k->cur->len;
	return k->cur->buf + k->cur->len;
}

#if defined(__SSE2__)
#include <emmintrin.h>
/* Streaming stores: the chunk is not read before it is written, and
 * does not push the worker's working set out of the cache. */
static void copy_out(char *to, const uint8_t *from, size_t n)
{
	while (n && ((uintptr_t)to & 15)) {
		*to++ = (char)*from++;
		n--;
	}
	for (; n >= 64; n -= 64, to += 64, from += 64) {
		__m128i a = _mm_loadu_si128((const __m128i *)(const void *)from);
		__m128i b = _mm_loadu_si128((const __m128i *)(const void *)(from + 16));
		__m128i c = _mm_loadu_si128((const __m128i *)(const void *)(from + 32));
		__m128i d = _mm_loadu_si128((const __m128i *)(const void *)(from + 48));
		_mm_stream_si128((__m128i *)(void *)to, a);
		_mm_stream_si128((__m128i *)(void *)(to + 16), b);
		_mm_stream_si128((__m128i *)(void *)(to + 32), c);
		_mm_stream_si128((__m128i *)(void *)(to + 48), d);
	}
	_mm_sfence();
	memcpy(to, from, n);
}
#else
#define copy_out memcpy
#endif

/* A worker writing its live part itself: through the consume hook, as
 * the main thread would; counted for the one-cursor walk's skip. */
static int write_direct(tb_parts_sink *k, const void *p, size_t n)
{
	if (!n)
		return 0;
	if (k->failed)
		return -1;
	if (k->h->consume(k->h->ctx, p, n) != 0) {
		k->failed = 1;
		k->failed_errno = errno; /* errno is the thread's own */
		return -1;
	}
	k->po->direct_bytes += n;
	return 0;
}

/* Whether the worker writes its part itself from now on: the hooks allow
 * it, the part is live (the main thread has consumed everything before
 * it and waits with nothing queued), and a deferred first event, if any,
 * was handed over. */
static int check_live(tb_parts_sink *k)
{
	if (k->direct)
		return 1;
	if (!k->h->direct_ok || (k->defer_first && !k->deferred))
		return 0;
	pthread_mutex_lock(&k->sh->mu);
	k->direct = k->po->live && !k->po->head;
	pthread_mutex_unlock(&k->sh->mu);
	return k->direct;
}

/* The cursor's -R listing memory, malloc'd: NULL when empty (*n 0) or
 * out of memory (*n > 0: then nothing can be checked against it). */
static uint64_t *listing_memory(const tb_session *p, size_t *n)
{
	uint64_t *m;
	*n = tb_session_listing_memory(p, NULL, 0);
	if (!*n)
		return NULL;
	m = malloc(*n * sizeof(*m));
	if (m)
		(void)tb_session_listing_memory(p, m, *n);
	return m;
}

/* The staged puts to the chunk, whole: a put is never split.  Live, the
 * chunk's (a put too big for the stage, or what was there when the part
 * went live) and the stage's go to the consume hook, and the chunk back
 * to the pool. */
static int flush_stage(tb_parts_sink *k)
{
	if (!k->stage_len && !(k->cur && k->cur->len && k->direct))
		return 0;
	if (check_live(k)) {
		size_t n = k->stage_len;
		int r = 0;
		k->stage_len = 0;
		if (k->cur) {
			r = write_direct(k, k->cur->buf, k->cur->len);
			give_back(k->sh, k->cur);
			k->cur = NULL;
		}
		return r ? r : write_direct(k, k->stage, n);
	}
	if (k->cur && k->cur->cap - k->cur->len < k->stage_len) {
		push(k, k->cur);
		k->cur = NULL;
	}
	if (!k->cur && !(k->cur = new_elem(k, EL_DATA, CHUNK_SIZE)))
		return -1;
	copy_out(k->cur->buf + k->cur->len, k->stage, k->stage_len);
	k->cur->len += k->stage_len;
	k->stage_len = 0;
	return 0;
}

int tb_parts_commit(tb_parts_sink *k, size_t used)
{
	if (!k->sh)
		return consume_direct(k, k->room, used);
	if (k->in_chunk)
		k->cur->len += used;
	else
		k->stage_len += used;
	k->in_chunk = 0;
	return 0;
}

int tb_parts_put(tb_parts_sink *k, const void *p, size_t n)
{
	if (!k->sh)
		return consume_direct(k, p, n);
	return tb_parts_put2(k, NULL, 0, p, n) ? -1 : 0;
}

int tb_parts_put2(tb_parts_sink *k, const void *a, size_t an, const void *b, size_t bn)
{
	size_t room, n = an + bn;
	uint8_t *to;
	if (k->sh && n >= BIG_PUT && !k->failed && !flush_stage(k) && !k->direct) {
		/* queued: straight to the chunk, not through the stage */
		if (!k->cur || k->cur->cap - k->cur->len < n) {
			flush_cur(k);
			if (!(k->cur = new_elem(k, EL_DATA, n > CHUNK_SIZE ? n : CHUNK_SIZE)))
				return -1;
		}
		if (an)
			memcpy(k->cur->buf + k->cur->len, a, an);
		if (bn)
			copy_out(k->cur->buf + k->cur->len + an, b, bn);
		k->cur->len += n;
		return 0;
	}
	if (!(to = tb_parts_reserve(k, n, &room)))
		return -1;
	if (an)
		memcpy(to, a, an);
	if (bn)
		memcpy(to + an, b, bn);
	return tb_parts_commit(k, n) ? -2 : 0;
}

/* A message (NUL-ended) or a deferred event (ev: its record), copied to
 * an element of its own and queued in its place: 0 or -1. */
static int queue_copy(tb_parts_sink *k, int kind, const void *p, size_t n,
		      const tb_session_event *ev)
{
	elem *e;
	flush_cur(k);
	if (!(e = new_elem(k, kind, n + 1)))
		return -1;
	if (n)
		memcpy(e->buf, p, n);
	e->buf[n] = '\0';
	e->len = n;
	if (ev) {
		e->ev = *ev;
		e->ev.data = (const uint8_t *)e->buf;
	}
	push(k, e);
	return 0;
}

int tb_parts_msg(tb_parts_sink *k, const char *msg)
{
	size_t n = strlen(msg);
	if (!k->sh) {
		if (k->skip_msgs) {
			k->skip_msgs--;
			return 0;
		}
		k->h->message(k->h->ctx, msg);
		return 0;
	}
	flush_cur(k);
	if (k->failed)
		return -1;
	if (k->direct) {
		k->h->message(k->h->ctx, msg);
		k->po->direct_msgs++;
		return 0;
	}
	return queue_copy(k, EL_MSG, msg, n, NULL);
}

int tb_parts_want_defer(const tb_parts_sink *k)
{
	return k->defer_first && !k->deferred;
}

int tb_parts_defer(tb_parts_sink *k, const tb_session_event *ev)
{
	k->deferred = 1;
	return queue_copy(k, EL_DEFER, ev->data, ev->len, ev);
}

typedef struct worker_arg {
	shared *sh;
	int w;
	pthread_t th;
} worker_arg;

static void *worker(void *arg)
{
	worker_arg *wa = arg;
	shared *sh = wa->sh;
	const tb_parts_hooks *h = sh->h;
	tb_session *p = NULL;
	void *ws = h->worker_new ? h->worker_new(h->ctx) : NULL;
	int no_ws = h->worker_new && !ws;
	uint8_t *stage = malloc(STAGE_SIZE); /* without it, straight to the chunks */
	for (;;) {
		size_t j;
		const uint64_t *from, *to;
		part_out *po;
		tb_parts_sink k;
		tb_error e;
		tb_status st;
		int bad = 0, rc;
		pthread_mutex_lock(&sh->mu);
		while (!sh->cancel && !sh->planned && sh->next_part >= sh->nknown)
			pthread_cond_wait(&sh->cv_plan, &sh->mu);
		if (sh->cancel || (sh->planned && sh->next_part >= sh->nparts)) {
			pthread_mutex_unlock(&sh->mu);
			break;
		}
		j = sh->next_part++;
		from = j ? &sh->bounds[j - 1] : NULL;
		to = j < sh->nknown ? &sh->bounds[j] : NULL; /* NULL: the last part */
		pthread_mutex_unlock(&sh->mu);
		po = &sh->parts[j];
		memset(&k, 0, sizeof(k));
		k.sh = sh;
		k.h = h;
		k.w = wa->w;
		k.po = po;
		k.defer_first = h->defer_first;
		k.stage = stage;
		k.stage_cap = stage ? STAGE_SIZE : 0;
		st = no_ws ? TB_ERR_NO_SPACE
		     : p ? tb_session_part_seek(p, from, to, &e)
			 : tb_session_part_open(&p, sh->s, h->mem, from, to, &e);
		if (st == TB_OK) {
			(void)tb_session_part_marks(p, TB_SESSION_MARK_START, po->start, sh->nmarks);
			po->mem_start = listing_memory(p, &po->nmem_start);
			pthread_mutex_lock(&sh->mu);
			po->started = 1;
			pthread_cond_signal(&sh->cv_writer);
			pthread_mutex_unlock(&sh->mu);
			rc = h->produce(h->ctx, ws, p, &k, &bad);
		} else {
			(void)tb_parts_msg(&k, "tracebound: out of memory\n");
			bad = 2;
			rc = -1;
		}
		flush_cur(&k);
		if (k.cur) {
			/* reserved, never committed (a deferred last line): back to
			 * the worker's budget */
			give_back(sh, k.cur);
			k.cur = NULL;
		}
		if (p && st == TB_OK)
			po->mem_stop = listing_memory(p, &po->nmem_stop);
		pthread_mutex_lock(&sh->mu);
		if (p && st == TB_OK) {
			tb_session_line_state_get(p, &po->ls);
			(void)tb_session_part_marks(p, TB_SESSION_MARK_STOP, po->stop, sh->nmarks);
		}
		po->has_ls = k.deferred;
		po->write_failed = k.failed;
		po->write_errno = k.failed_errno;
		po->bad = bad;
		po->abort = rc < 0;
		po->started = 1;
		po->done = 1;
		pthread_cond_signal(&sh->cv_writer);
		pthread_mutex_unlock(&sh->mu);
		if (rc < 0)
			break;
	}
	tb_session_close(p);
	free(stage);
	if (ws && h->worker_free)
		h->worker_free(h->ctx, ws);
	return NULL;
}

/* Consume the parts in order.  Returns bad; *redo set when a part did not
 * start where the one before stopped (then *bytes / *msgs were consumed). */
/* Does the sorted key list a hold every key of the sorted list b? */
static int holds_all(const uint64_t *a, size_t na, const uint64_t *b, size_t nb)
{
	size_t i = 0;
	for (size_t j = 0; j < nb; j++) {
		while (i < na && a[i] < b[j])
			i++;
		if (i == na || a[i] != b[j])
			return 0;
	}
	return 1;
}

/* *g (n keys, sorted) with the keys of b added; 0, or -1 out of memory. */
static int merge_keys(uint64_t **g, size_t *n, const uint64_t *b, size_t nb)
{
	uint64_t *m;
	size_t i = 0, j = 0, k = 0;
	if (!nb)
		return 0;
	if (!(m = malloc((*n + nb) * sizeof(*m))))
		return -1;
	while (i < *n || j < nb) {
		if (j == nb || (i < *n && (*g)[i] < b[j]))
			m[k++] = (*g)[i++];
		else if (i == *n || b[j] < (*g)[i])
			m[k++] = b[j++];
		else {
			m[k++] = b[j++];
			i++;
		}
	}
	free(*g);
	*g = m;
	*n = k;
	return 0;
}

static int consume_parts(shared *sh, int *redo, uint64_t *bytes, uint64_t *msgs)
{
	const tb_parts_hooks *h = sh->h;
	tb_session_line_state carried = { 0, 0 };
	int bad = 0, failed = 0;
	size_t j, nmem = 0;
	uint64_t *mem = NULL; /* the listing memory the parts before end with */
	for (j = 0; j < sh->maxparts && !failed; j++) {
		part_out *po = &sh->parts[j];
		int started;
		/* the plan may still be going on: part j exists once a worker
		 * started it; there is none past nparts once planned */
		pthread_mutex_lock(&sh->mu);
		while (!po->started && !sh->cancel && !(sh->planned && j >= sh->nparts))
			pthread_cond_wait(&sh->cv_writer, &sh->mu);
		started = po->started;
		pthread_mutex_unlock(&sh->mu);
		if (!started)
			break;
		/* part j starts where j-1 stopped, and its -R listing
		 * remembers every char array printed as ARRAY[] before (its
		 * worker saw only its own earlier parts; a deferred first
		 * line is rendered again by a cursor that never does) */
		if (j && !po->abort &&
		    (memcmp(sh->parts[j - 1].stop, po->start, sh->nmarks * sizeof(*po->start)) ||
		     (nmem && (h->defer_first || !po->mem_start ||
			       !holds_all(po->mem_start, po->nmem_start, mem, nmem))))) {
			*redo = 1;
			break;
		}
		for (;;) {
			elem *e;
			pthread_mutex_lock(&sh->mu);
			while (!po->head && !po->done) {
				/* nothing queued, nothing in hand: the worker
				 * may write the rest itself */
				po->live = h->direct_ok;
				pthread_cond_wait(&sh->cv_writer, &sh->mu);
			}
			e = po->head;
			if (e) {
				/* queued before the worker saw it live: this
				 * thread writes it, and the worker queues on */
				po->live = 0;
				po->head = e->next;
				if (!po->head)
					po->tail = NULL;
			}
			pthread_mutex_unlock(&sh->mu);
			if (!e)
				break;
			if (e->kind == EL_DATA) {
				if (h->consume(h->ctx, (const uint8_t *)e->buf, e->len) != 0)
					failed = 1;
				*bytes += e->len;
			} else if (e->kind == EL_MSG) {
				h->message(h->ctx, e->buf);
				(*msgs)++;
			} else {
				int r = h->defer(h->ctx, &e->ev, &carried, bytes);
				if (r == -2)
					bad = 2;
				if (r)
					failed = 1;
			}
			give_back(sh, e);
			if (failed)
				break;
		}
		if (failed)
			break;
		*bytes += po->direct_bytes;
		*msgs += po->direct_msgs;
		if (po->write_failed) {
			errno = po->write_errno;
			failed = 1;
			break;
		}
		if (po->bad > bad)
			bad = po->bad;
		if (po->has_ls)
			carried = po->ls;
		if (po->nmem_stop && (!po->mem_stop ||
				      merge_keys(&mem, &nmem, po->mem_stop, po->nmem_stop))) {
			*redo = 1; /* out of memory: the one walk decides */
			break;
		}
		if (po->abort) {
			/* stopped short: out of memory (said by the worker when it could) */
			if (po->bad < 2)
				h->message(h->ctx, "tracebound: out of memory\n");
			bad = 2;
			break;
		}
	}
	free(mem);
	return bad;
}

static void drop_queue(part_out *po)
{
	while (po->head) {
		elem *e = po->head;
		po->head = e->next;
		free_elem(e);
	}
}

/* tb_session_plan_each's hook: one more part can start. */
static int publish_bound(void *ctx, size_t i, uint64_t bound)
{
	shared *sh = ctx;
	int stop;
	pthread_mutex_lock(&sh->mu);
	sh->bounds[i] = bound;
	sh->nknown = i + 1;
	stop = sh->cancel;
	pthread_cond_broadcast(&sh->cv_plan);
	pthread_mutex_unlock(&sh->mu);
	return stop;
}

/* Capture bytes per part of a fixed plan: FIXED_PART_INPUT, or for tests
 * TRACEBOUND_PART_SIZE (bytes, 4096 to 2^40) to split small captures. */
static size_t part_input(void)
{
	const char *v = getenv("TRACEBOUND_PART_SIZE");
	char *end;
	unsigned long long n;
	if (!v || !*v)
		return FIXED_PART_INPUT;
	errno = 0;
	n = strtoull(v, &end, 10);
	if (errno || *end || n < 4096 || n > (1ull << 40))
		return FIXED_PART_INPUT;
	return (size_t)n;
}

size_t tb_parts_count(uint64_t input_len)
{
	uint64_t k = input_len / part_input();
	return k < 1 ? 1 : k > MAX_PARTS ? MAX_PARTS : (size_t)k;
}

const uint64_t *tb_parts_bounds(const tb_parts_sink *k, size_t *n)
{
	*n = k->nbounds;
	return k->bounds;
}

typedef struct bound_list {
	uint64_t *t;
	size_t n;
} bound_list;

static int keep_bound(void *ctx, size_t i, uint64_t bound)
{
	bound_list *b = ctx;
	b->t[i] = bound;
	b->n = i + 1;
	return 0;
}

/* The whole plan of k parts into bounds (room for k): how many times.  As
 * the planner thread, the times given before an error are kept. */
static size_t plan_all(const tb_session *s, size_t k, uint64_t *bounds)
{
	bound_list b;
	size_t nb = 0;
	tb_error e;
	b.t = bounds;
	b.n = 0;
	if (tb_session_plan_each(s, k, keep_bound, &b, &nb, &e) != TB_OK)
		nb = b.n;
	return nb;
}

/* The plan, on a thread of its own when it can be: the main thread
 * writes the first parts while the later bounds are worked out.  (When it
 * waited for the plan, the workers filled their whole budgets meanwhile:
 * 32 chunks, 128 MiB of fresh memory to be zeroed, against 12 now.) */
static void *plan(void *arg)
{
	shared *sh = arg;
	size_t nb = 0;
	tb_error e;
	if (tb_session_plan_each(sh->s, sh->maxparts, publish_bound, sh, &nb, &e) != TB_OK)
		nb = sh->nknown; /* the bounds given stay good: the last part runs to the end */
	pthread_mutex_lock(&sh->mu);
	if (nb == 0) {
		sh->cancel = 1; /* one part: the caller's one-thread loop does it */
	} else {
		sh->planned = 1;
		sh->nparts = nb + 1;
	}
	pthread_cond_broadcast(&sh->cv_plan);
	pthread_cond_broadcast(&sh->cv_writer);
	pthread_mutex_unlock(&sh->mu);
	return NULL;
}

/* The cursor p straight to the hooks, past the bytes and messages
 * consumed already, cut at bounds: the highest *bad. */
static int walk(tb_session *p, const tb_parts_hooks *h, uint64_t skip_bytes, uint64_t skip_msgs,
		const uint64_t *bounds, size_t nbounds)
{
	tb_parts_sink out;
	void *ws = h->worker_new ? h->worker_new(h->ctx) : NULL;
	int bad = 0;
	if (h->worker_new && !ws) {
		h->message(h->ctx, "tracebound: out of memory\n");
		return 2;
	}
	memset(&out, 0, sizeof(out));
	out.h = h;
	out.skip_bytes = skip_bytes;
	out.skip_msgs = skip_msgs;
	out.bounds = bounds;
	out.nbounds = nbounds;
	(void)h->produce(h->ctx, ws, p, &out, &bad);
	free(out.room);
	if (ws && h->worker_free)
		h->worker_free(h->ctx, ws);
	return bad;
}

int tb_parts_walk(tb_session *s, const tb_parts_hooks *h)
{
	size_t k = h->parts < MAX_PARTS ? h->parts : MAX_PARTS, nb = 0;
	uint64_t *bounds = k >= 2 ? malloc(k * sizeof(*bounds)) : NULL;
	int bad;
	if (bounds)
		nb = plan_all(s, k, bounds);
	bad = walk(s, h, 0, 0, bounds, nb);
	free(bounds);
	return bad;
}

int tb_parts_run(tb_session *s, int jobs, const tb_parts_hooks *h)
{
	const tb_session_info *info = tb_session_get_info(s);
	shared sh;
	worker_arg wa[MAX_JOBS];
	uint64_t *bounds = NULL, bytes = 0, msgs = 0;
	tb_session_mark *marks = NULL;
	size_t k, i, nw;
	pthread_t plan_th;
	int bad = -1, redo = 0, planner = 0;
	tb_error e;
	if (jobs > MAX_JOBS)
		jobs = MAX_JOBS;
	if (jobs < 2 || tb_session_prepare(s, &e) != TB_OK)
		return -1;
	if (h->parts) {
		k = h->parts < MAX_PARTS ? h->parts : MAX_PARTS;
	} else {
		uint64_t want = h->input_len / PART_INPUT;
		if (want < (uint64_t)jobs * 4)
			want = (uint64_t)jobs * 4;
		k = want > MAX_PARTS ? MAX_PARTS : (size_t)want;
	}
	memset(&sh, 0, sizeof(sh));
	sh.h = h;
	sh.s = s;
	sh.maxparts = k;
	sh.nparts = k; /* room for: the plan says how many there are */
	for (i = 0; i < info->nbuffers; i++)
		sh.nmarks += tb_session_buffer(s, i)->ncpus;
	bounds = malloc(k * sizeof(*bounds));
	sh.parts = calloc(k, sizeof(*sh.parts));
	marks = calloc(k * 2 * (sh.nmarks ? sh.nmarks : 1), sizeof(*marks));
	if (!bounds || !sh.parts || !marks) {
		free(sh.parts);
		free(marks);
		free(bounds);
		return -1;
	}
	sh.bounds = bounds;
	for (i = 0; i < k; i++) {
		sh.parts[i].start = marks + 2 * i * sh.nmarks;
		sh.parts[i].stop = marks + (2 * i + 1) * sh.nmarks;
	}
	pthread_mutex_init(&sh.mu, NULL);
	pthread_cond_init(&sh.cv_writer, NULL);
	pthread_cond_init(&sh.cv_space, NULL);
	pthread_cond_init(&sh.cv_plan, NULL);
	/* the workers start now and take each part as soon as its end is
	 * known, while the plan works out the rest (a few hundred page-header
	 * reads a part, 30-40 ms of a 386 MiB capture that the threads no
	 * longer wait for) */
	nw = (size_t)jobs < k ? (size_t)jobs : k;
	for (i = 0; i < nw; i++) {
		wa[i].sh = &sh;
		wa[i].w = (int)i;
		if (pthread_create(&wa[i].th, NULL, worker, &wa[i]) != 0)
			break;
	}
	nw = i;
	if (nw) {
		planner = pthread_create(&plan_th, NULL, plan, &sh) == 0;
		if (!planner)
			(void)plan(&sh);
		bad = consume_parts(&sh, &redo, &bytes, &msgs);
	}
	pthread_mutex_lock(&sh.mu);
	sh.cancel = 1;
	pthread_cond_broadcast(&sh.cv_space);
	pthread_cond_broadcast(&sh.cv_plan);
	pthread_mutex_unlock(&sh.mu);
	for (i = 0; i < nw; i++)
		pthread_join(wa[i].th, NULL);
	if (planner)
		pthread_join(plan_th, NULL);
	if (!nw || !sh.planned)
		bad = -1; /* nothing was consumed: the caller's loop does it all */
	for (i = 0; i < sh.nparts; i++) {
		drop_queue(&sh.parts[i]);
		free(sh.parts[i].mem_start);
		free(sh.parts[i].mem_stop);
	}
	while (sh.free_chunks) {
		elem *f = sh.free_chunks;
		sh.free_chunks = f->next;
		free_elem(f);
	}
	pthread_cond_destroy(&sh.cv_plan);
	pthread_cond_destroy(&sh.cv_space);
	pthread_cond_destroy(&sh.cv_writer);
	pthread_mutex_destroy(&sh.mu);
	free(sh.parts);
	free(marks);
	/* no worker: the one-cursor walk here, or with a fixed plan the
	 * caller's loop (which cuts at the plan's times itself) */
	if (redo || (!nw && bad < 0 && !h->parts)) {
		/* one cursor over the whole capture, past what was consumed; a
		 * fixed plan's times again (the planner may have been stopped
		 * early when the parts did not tile) */
		tb_session *p;
		size_t nb = h->parts ? plan_all(s, k, bounds) : 0;
		if (tb_session_part_open(&p, s, h->mem, NULL, NULL, &e) != TB_OK) {
			h->message(h->ctx, "tracebound: out of memory\n");
			bad = 2;
		} else {
			bad = walk(p, h, bytes, msgs, bounds, nb);
			tb_session_close(p);
		}
	}
	free(bounds);
	return bad;
}
