/*
 * A perf.data as the session's source (session_perf.h): the decoder of
 * perfdata.c walked in perf's order, with the task names perf shows.
 *
 * perf orders a capture by FINISHED_ROUND: at each one it gives, sorted by
 * time (ties in file order), every queued record up to the latest time of
 * the round before, and the rest at the end.  Here the queue holds one
 * small entry per record (the record stays in the caller's bytes), so
 * memory follows the largest two rounds and the number of tasks named,
 * never the file.  COMM and FORK records are queued too: applied in
 * time order, a sample gets the name in force at its time.
 */
#include <string.h>

#include "tracebound/session_perf.h"

#include "digits.h"
#include "internal.h"
#include "session_perf.h"

#define SP_COMM_MAX 16u          /* a task name kept (the kernel's TASK_COMM_LEN) */
#define SP_MAX_CPUS 4096u        /* CPUs counted in the stats */
#define SP_QUEUE_MIN 1024u       /* first queue entries */
#define SP_STORAGE_ROUNDS 24u    /* attr / id / tracing storage rounds */
#define SP_SCAN 64u              /* samples of a file read in one scan */
#define SP_RING_MIN ((size_t)64 << 10) /* first read-through buffer */

/* Where a queued record is: its offset in the input, in the spill
 * buffer, or, of a file read through, in the file (in the ring). */
enum { SP_AT_INPUT, SP_AT_SPILL, SP_AT_RING };
#define SP_LOC(off, at) ((uint64_t)(off) << 2 | (at))

/* What the walk shows of a sample, read from its record when it is
 * given (spans as offsets in the record: a record is at most 64 KiB). */
typedef struct sp_smp {
	uint64_t period, ip;
	uint32_t pid, tid, cpu;
	uint16_t raw_at, raw_len;    /* raw_at 0: no RAW */
	uint16_t chain_at, chain_n;
	uint8_t has_tid, has_cpu;
} sp_smp;

/* One queued record, all the queue keeps of it.  The record stays in the
 * input (file or whole stream), or, out of COMPRESSED records, is copied
 * to the spill buffer after the offset of the COMPRESSED record.  A
 * sample is read again where it lies when it is given: its bytes are read
 * then anyway, and a queue of 32 bytes a record, written and read in
 * order, costs the caches far less than a copy of its fields would. */
typedef struct sp_key {
	uint64_t ts, seq;            /* the order: time, then arrival */
	uint64_t loc;                /* offset << 2 | where (SP_AT_...) */
	uint32_t attr;               /* a sample's attr index (else UINT32_MAX) */
	uint16_t size, type;         /* the record's header */
} sp_key;

/* Where an attr's SAMPLE keeps what the walk shows (made at its first
 * sample): a sample_type of fields of fixed size, then CALLCHAIN and RAW
 * (every tracepoint capture's) is read at these offsets; any other goes
 * through tb_perf_parse_sample. */
typedef struct sp_layout {
	uint64_t type;               /* the attr's sample_type */
	uint8_t made, fast;
	uint8_t fixed;               /* bytes of the fixed fields */
	uint8_t ip, tid, time, cpu, period; /* offsets in the record, 0: absent */
} sp_layout;

/* A task's name: a string of the pool, which only grows (an event's comm
 * stays valid until the session closes, as a trace.dat's cmdlines do). */
typedef struct sp_comm {
	uint32_t tid;
	uint8_t used, len, known;    /* known 0: ":tid", no COMM seen */
	const char *comm;
} sp_comm;

#define SP_POOL_CHUNK 4096u
typedef struct sp_chunk {
	struct sp_chunk *next;
	size_t used;
	char b[SP_POOL_CHUNK];       /* each string: its length byte, its bytes */
} sp_chunk;

typedef struct sp_name {
	tb_span sys, name;
} sp_name;

struct tb_sperf {
	tb_sperf_mem m;
	const uint8_t *data;
	size_t len;
	int pipe;
	tb_perf file;                /* file mode (tb_session_perf's) */
	tb_perf walkf;               /* its copy the walk reads, SAMPLEs unparsed */
	tb_perf_iter it;
	tb_perf_stream *ps;          /* pipe mode (its 64 KiB buffer) */
	tb_perf_storage st;
	const tb_perf *f;
	tb_perf_feature desc;        /* EVENT_DESC (pipe: its record) */
	int has_desc;
	sp_name *names;              /* per attr (st.attrs_cap) */
	sp_layout *lay;              /* per attr (st.attrs_cap) */
	size_t width;                /* longest name */

	sp_key *k;                   /* the queue (qcap keys): [ready..nready)
					out in order; while a round is read,
					[kbeg..nq) (what was given stays before
					kbeg until the sort drops it) */
	sp_key *ktmp;                /* as large: the merges' other half */
	size_t kbeg;
	uint32_t *run;               /* where each sorted run of k after the
					first starts: [0..nruns) */
	size_t nq, qcap, ready, nready, nruns;
	uint64_t next_flush, max_ts;
	int eof;
	int started;                 /* walk_start ran */
	tb_perf_sample_ref_ scan[SP_SCAN]; /* a file's samples read straight: */
	size_t iscan, nscan;         /* [iscan..nscan) still to queue */

	/* A file's data section read through the caller's read function
	 * into a buffer used again and again (tb_sperf_read_through), not
	 * touched in the mapping: the queued records' bytes stay in it. */
	tb_dat_read_fn rd;
	void *rd_ctx;
	int ring_on;                 /* this walk reads through it */
	uint8_t *ring;
	size_t ring_cap;
	uint64_t ring_base, ring_end; /* the file bytes [base, end) at ring[0] */
	uint64_t rpos, rlim;         /* the next record, the section's end */
	tb_status rsticky;           /* what ended the walk (TB_OK: none) */
	uint64_t seq;                /* records queued so far */

	tb_session_perf_inflater z;  /* COMPRESSED records (fn NULL: refused) */
	uint8_t *window;
	size_t window_cap;
	uint8_t *spill;              /* decompressed records queued */
	size_t spill_cap, spill_used;
	uint8_t *spill2;             /* spill_compact's other buffer */
	size_t spill2_cap;

	sp_comm *comms;              /* open addressing by tid */
	size_t ncomm, comm_cap;
	int comm_full;               /* out of memory once: names no longer kept */
	sp_chunk *pool, *pool_tail;  /* the names' strings */
	sp_chunk *rp;                /* a walk again: the pool read back in order */
	size_t rp_off;
	int replay;

	tb_session_cpu_stats *cst;
	uint32_t ncpus;
	int64_t missed;
};

/* ---- memory ---- */

static void queue_free(tb_sperf *p);

static void *get(tb_sperf *p, size_t n)
{
	return p->m.get(p->m.ctx, n);
}

static void put(tb_sperf *p, void *q, size_t n)
{
	if (q)
		p->m.put(p->m.ctx, q, n);
}

static tb_status no_memory(tb_error *err, uint64_t off, const char *what)
{
	return tb_fail(err, TB_ERR_NO_SPACE, off, what);
}

/* ---- the storage rounds ---- */

static void storage_free(tb_sperf *p)
{
	put(p, p->st.tracing, p->st.tracing_cap);
	put(p, p->st.ids, p->st.ids_cap * sizeof(tb_perf_id));
	put(p, p->st.attrs, p->st.attrs_cap * sizeof(tb_perf_attr));
	memset(&p->st, 0, sizeof(p->st));
}

static int storage_grow(tb_sperf *p, const tb_perf_needs *need)
{
	/* a stream asks for one more attr at a time: doubled, its rounds
	 * stay few */
	tb_perf_needs n = *need;
	if (n.attrs > p->st.attrs_cap && n.attrs < 2 * p->st.attrs_cap)
		n.attrs = 2 * p->st.attrs_cap;
	if (n.ids > p->st.ids_cap && n.ids < 2 * p->st.ids_cap)
		n.ids = 2 * p->st.ids_cap;
	if (n.attrs < p->st.attrs_cap)
		n.attrs = p->st.attrs_cap;
	if (n.ids < p->st.ids_cap)
		n.ids = p->st.ids_cap;
	if (n.tracing < p->st.tracing_cap)
		n.tracing = p->st.tracing_cap;
	storage_free(p);
	if (n.attrs > SIZE_MAX / sizeof(tb_perf_attr) || n.ids > SIZE_MAX / sizeof(tb_perf_id))
		return -1;
	p->st.attrs = n.attrs ? get(p, n.attrs * sizeof(tb_perf_attr)) : NULL;
	p->st.ids = n.ids ? get(p, n.ids * sizeof(tb_perf_id)) : NULL;
	p->st.tracing = n.tracing ? get(p, n.tracing) : NULL;
	p->st.attrs_cap = p->st.attrs ? n.attrs : 0;
	p->st.ids_cap = p->st.ids ? n.ids : 0;
	p->st.tracing_cap = p->st.tracing ? n.tracing : 0;
	return p->st.attrs_cap == n.attrs && p->st.ids_cap == n.ids &&
			       p->st.tracing_cap == n.tracing
		       ? 0
		       : -1;
}

/* A pipe stream read up to FINISHED_INIT (or its first sample): its attrs,
 * tracing data and EVENT_DESC, in storage grown until they fit. */
static tb_status pipe_open(tb_sperf *p, tb_error *err)
{
	unsigned round;
	p->ps = get(p, sizeof(*p->ps));
	if (!p->ps)
		return no_memory(err, 0, "no memory for the pipe stream decoder");
	for (round = 0; round < SP_STORAGE_ROUNDS; round++) {
		tb_perf_record r;
		tb_status st = tb_perf_stream_open_buffer(p->ps, &p->st, p->data, p->len);
		p->has_desc = 0;
		while (st == TB_OK) {
			st = tb_perf_stream_next(p->ps, &r, err);
			if (st != TB_OK)
				break;
			if (r.type == TB_PERF_RECORD_HEADER_FEATURE &&
			    r.u.feature.id == TB_PERF_FEAT_EVENT_DESC) {
				p->desc = r.u.feature;
				p->has_desc = 1;
			}
			if (p->ps->init_done || r.type == TB_PERF_RECORD_SAMPLE)
				break;
		}
		if (st == TB_ERR_NO_SPACE) {
			if (storage_grow(p, &p->ps->f.need) != 0)
				return no_memory(err, 0, "no memory for the pipe's attrs and tracing data");
			continue;
		}
		/* a stream cut or damaged before its first sample still opens:
		 * the walk says so in its place */
		p->f = &p->ps->f;
		return TB_OK;
	}
	return tb_fail(err, TB_ERR_LIMIT, 0, "pipe attrs still growing after the storage rounds");
}

static tb_status file_open(tb_sperf *p, tb_error *err)
{
	unsigned round;
	for (round = 0; round < SP_STORAGE_ROUNDS; round++) {
		tb_status st = tb_perf_open(&p->file, p->data, p->len, &p->st, err);
		if (st == TB_ERR_NO_SPACE) {
			if (storage_grow(p, &p->file.need) != 0)
				return no_memory(err, 0, "no memory for the perf.data attrs");
			continue;
		}
		if (st != TB_OK)
			return st;
		p->f = &p->file;
		if (tb_perf_has_feature(p->f, TB_PERF_FEAT_EVENT_DESC)) {
			tb_error e;
			p->has_desc = tb_perf_feature_get(p->f, TB_PERF_FEAT_EVENT_DESC, &p->desc,
							  &e) == TB_OK;
		}
		return TB_OK;
	}
	return tb_fail(err, TB_ERR_LIMIT, 0, "perf.data attrs still growing after the rounds");
}

/* Is it a pipe stream (header size 16)? */
static int is_pipe(const uint8_t *d, size_t len)
{
	int be;
	if (!tb_perf_probe(d, len) || len < 16)
		return 0;
	be = d[0] != 'P'; /* the byte-swapped magic: a big-endian capture */
	return tb_load64(d + 8, be) == TB_PERF_PIPE_HEADER_SIZE;
}

static tb_status walk_start(tb_sperf *p, tb_error *err)
{
	tb_status st = TB_OK;
	/* read_sample reads the samples: the walk's tb_perf gives them
	 * unparsed (a file's is a copy: one walked through tb_session_perf
	 * parses them) */
	if (p->pipe) {
		st = tb_perf_stream_open_buffer(p->ps, &p->st, p->data, p->len);
		tb_perf_samples_unparsed_(&p->ps->f);
	} else {
		p->walkf = p->file;
		tb_perf_samples_unparsed_(&p->walkf);
		st = tb_perf_records_begin(&p->it, &p->walkf, err);
	}
	p->nq = p->ready = p->nready = p->nruns = p->kbeg = 0;
	p->next_flush = p->max_ts = 0;
	p->iscan = p->nscan = 0;
	/* read through: a file without COMPRESSED records (their stream
	 * is drained from the mapping) */
	p->ring_on = p->rd && !p->pipe && !tb_perf_has_feature(p->f, TB_PERF_FEAT_COMPRESSED);
	p->ring_base = p->ring_end = p->rpos = p->f->data.offset;
	p->rlim = p->f->data.offset + p->f->data.size;
	p->rsticky = TB_OK;
	p->eof = 0;
	p->started = 1;
	p->seq = 0;
	p->spill_used = 0;
	if (st == TB_OK && p->z.fn) {
		tb_perf_decompressor dc;
		dc.fn = p->z.fn;
		dc.ctx = p->z.ctx;
		dc.window = p->window;
		dc.window_cap = p->window_cap;
		if (p->z.reset)
			p->z.reset(p->z.ctx);
		st = p->pipe ? tb_perf_stream_decompress(p->ps, &dc)
			     : tb_perf_records_decompress(&p->it, &dc);
	}
	p->missed = 0;
	p->ncomm = 0;
	p->comm_full = 0;
	p->rp = p->pool;
	p->rp_off = 0;
	p->replay = 1;
	if (p->comms)
		memset(p->comms, 0, p->comm_cap * sizeof(sp_comm));
	if (p->cst)
		memset(p->cst, 0, p->ncpus * sizeof(*p->cst));
	return st == TB_OK ? TB_OK : tb_fail(err, st, 0, "the perf stream does not restart");
}

tb_status tb_sperf_open(tb_sperf **out, const void *data, size_t len, const tb_sperf_mem *m,
			const uint8_t **tracing, size_t *tracing_len, tb_error *err)
{
	tb_sperf *p;
	tb_status st;
	uint32_t n;
	*out = NULL;
	*tracing = NULL;
	*tracing_len = 0;
	p = m->get(m->ctx, sizeof(*p));
	if (!p)
		return no_memory(err, 0, "no memory for the perf.data reader");
	memset(p, 0, sizeof(*p));
	p->m = *m;
	p->data = data;
	p->len = len;
	p->pipe = is_pipe(data, len);
	st = p->pipe ? pipe_open(p, err) : file_open(p, err);
	if (st == TB_OK) {
		size_t na = p->st.attrs_cap ? p->st.attrs_cap : 1;
		p->names = get(p, na * sizeof(sp_name));
		p->lay = get(p, na * sizeof(sp_layout));
		if (!p->names || !p->lay) {
			st = no_memory(err, 0, "no memory for the event names");
		} else {
			memset(p->names, 0, na * sizeof(sp_name));
			memset(p->lay, 0, na * sizeof(sp_layout));
		}
	}
	if (st == TB_OK) {
		n = p->f->has_nrcpus && p->f->nr_cpus_avail ? p->f->nr_cpus_avail : 256u;
		p->ncpus = n < SP_MAX_CPUS ? n : SP_MAX_CPUS;
		p->cst = get(p, p->ncpus * sizeof(*p->cst));
		if (!p->cst)
			st = no_memory(err, 0, "no memory for the CPU counts");
	}
	if (st != TB_OK) {
		tb_sperf_close(p);
		return st;
	}
	/* (a stream's attrs and tracing data stay as read until the walk
	 * starts it again: the names are made from them first) */
	*tracing = p->f->tracing_data.ptr;
	*tracing_len = p->f->tracing_data.len;
	*out = p;
	return TB_OK;
}

void tb_sperf_close(tb_sperf *p)
{
	size_t na;
	if (!p)
		return;
	na = p->st.attrs_cap ? p->st.attrs_cap : 1;
	put(p, p->spill, p->spill_cap);
	put(p, p->spill2, p->spill2_cap);
	put(p, p->ring, p->ring_cap);
	put(p, p->window, p->window_cap);
	put(p, p->comms, p->comm_cap * sizeof(sp_comm));
	while (p->pool) {
		sp_chunk *c = p->pool;
		p->pool = c->next;
		put(p, c, sizeof(*c));
	}
	queue_free(p);
	put(p, p->cst, p->ncpus * sizeof(*p->cst));
	if (p->names)
		put(p, p->names, na * sizeof(sp_name));
	if (p->lay)
		put(p, p->lay, na * sizeof(sp_layout));
	storage_free(p);
	put(p, p->ps, sizeof(*p->ps));
	p->m.put(p->m.ctx, p, sizeof(*p));
}

const tb_perf *tb_sperf_perf(const tb_sperf *p)
{
	return p ? p->f : NULL;
}

tb_status tb_sperf_decompress(tb_sperf *p, const tb_session_perf_inflater *z, tb_error *err)
{
	size_t cap = (size_t)2 * TB_PERF_WINDOW_MIN;
	if (!z || !z->fn)
		return tb_fail(err, TB_ERR_ARG, 0, "no decompress function");
	if (!p->window && !(p->window = get(p, cap)))
		return no_memory(err, 0, "no memory for the decompression window");
	p->window_cap = cap;
	p->z = *z;
	return walk_start(p, err);
}

void tb_sperf_read_through(tb_sperf *p, tb_dat_read_fn rd, void *ctx)
{
	p->rd = rd;
	p->rd_ctx = ctx;
	p->started = 0; /* the next walk starts with it */
}

tb_status tb_sperf_rewind(tb_sperf *p)
{
	tb_error e;
	return walk_start(p, &e);
}

/* ---- names ---- */

static void span_of(tb_span *s, const char *lit)
{
	s->ptr = lit;
	s->len = strlen(lit);
}

/* perf's names of the generic events (perf_event.h's order). */
static const char *generic_name(uint32_t type, uint64_t config)
{
	static const char *const hw[] = { "cycles", "instructions", "cache-references",
					   "cache-misses", "branches", "branch-misses",
					   "bus-cycles", "stalled-cycles-frontend",
					   "stalled-cycles-backend", "ref-cycles" };
	static const char *const sw[] = { "cpu-clock", "task-clock", "page-faults",
					   "context-switches", "cpu-migrations", "minor-faults",
					   "major-faults", "alignment-faults", "emulation-faults",
					   "dummy", "bpf-output", "cgroup-switches" };
	if (type == 0 && config < TB_ARRAY_LEN(hw))
		return hw[config];
	if (type == 1 && config < TB_ARRAY_LEN(sw))
		return sw[config];
	return "unknown";
}

void tb_sperf_name(tb_sperf *p, int (*fmt)(void *ctx, uint64_t id, tb_span *sys, tb_span *name),
		   void *ctx)
{
	const tb_perf *f = p->f;
	size_t i;
	if (p->has_desc) {
		tb_perf_desc_iter di;
		tb_perf_event_desc d;
		tb_error e;
		uint32_t k = 0;
		if (tb_perf_event_desc_begin(&di, f, &p->desc, &e) == TB_OK) {
			while (tb_perf_event_desc_next(&di, &d, &e) == TB_OK) {
				const tb_perf_attr *a = NULL;
				size_t at = k++;
				/* by its first id; without ids, in attr order */
				if (d.ids.n && tb_perf_find_attr(f, tb_perf_u64_at(&d.ids, 0), &a) == TB_OK)
					at = (size_t)(a - f->attrs);
				if (at < f->nattrs && !p->names[at].name.len) {
					p->names[at].name.ptr = (const char *)d.name.ptr;
					p->names[at].name.len = d.name.len;
				}
			}
		}
	}
	p->width = 0;
	for (i = 0; i < f->nattrs; i++) {
		sp_name *n = &p->names[i];
		size_t w;
		if (!n->name.len && !(f->attrs[i].type == 2 && fmt &&
				      fmt(ctx, f->attrs[i].config, &n->sys, &n->name)))
			span_of(&n->name, generic_name(f->attrs[i].type, f->attrs[i].config));
		w = n->sys.len ? n->sys.len + 1 + n->name.len : n->name.len;
		if (w > p->width)
			p->width = w;
	}
}

/* ---- task names ---- */

static size_t comm_slot(const tb_sperf *p, uint32_t tid)
{
	size_t mask = p->comm_cap - 1, i = ((size_t)tid * 2654435761u) & mask;
	while (p->comms[i].used && p->comms[i].tid != tid)
		i = (i + 1) & mask;
	return i;
}

static int comm_grow(tb_sperf *p)
{
	size_t cap = p->comm_cap ? p->comm_cap * 2 : 256, i, old = p->comm_cap;
	sp_comm *o = p->comms, *n;
	if (cap > SIZE_MAX / sizeof(sp_comm) || !(n = get(p, cap * sizeof(sp_comm))))
		return -1;
	memset(n, 0, cap * sizeof(sp_comm));
	p->comms = n;
	p->comm_cap = cap;
	for (i = 0; i < old; i++)
		if (o[i].used)
			p->comms[comm_slot(p, o[i].tid)] = o[i];
	put(p, o, old * sizeof(sp_comm));
	return 0;
}

static const sp_comm *comm_find(const tb_sperf *p, uint32_t tid)
{
	size_t i;
	if (!p->comm_cap)
		return NULL;
	i = comm_slot(p, tid);
	return p->comms[i].used ? &p->comms[i] : NULL;
}

/* s[0..n) in the pool.  A walk made again makes the same strings in the
 * same order: they are found there again, not added. */
static const char *pool_str(tb_sperf *p, const char *s, uint8_t n)
{
	char *r;
	if (p->replay) {
		while (p->rp && p->rp_off >= p->rp->used) {
			p->rp = p->rp->next;
			p->rp_off = 0;
		}
		if (p->rp && (uint8_t)p->rp->b[p->rp_off] == n &&
		    !memcmp(p->rp->b + p->rp_off + 1, s, n)) {
			r = p->rp->b + p->rp_off + 1;
			p->rp_off += 1u + n;
			return r;
		}
		p->replay = 0;
	}
	if (!p->pool_tail || SP_POOL_CHUNK - p->pool_tail->used < 1u + n) {
		sp_chunk *c = get(p, sizeof(*c));
		if (!c)
			return NULL;
		c->next = NULL;
		c->used = 0;
		if (p->pool_tail)
			p->pool_tail->next = c;
		else
			p->pool = c;
		p->pool_tail = c;
	}
	r = p->pool_tail->b + p->pool_tail->used;
	r[0] = (char)n;
	memcpy(r + 1, s, n);
	p->pool_tail->used += 1u + n;
	return r + 1;
}

/* tid is called comm[0..n) from now on (n cut to SP_COMM_MAX); known 0:
 * perf's ":tid" for a task no record named.  The entry, or NULL. */
static const sp_comm *comm_set(tb_sperf *p, uint32_t tid, const char *comm, size_t n,
			       int known)
{
	sp_comm *c;
	uint8_t len = (uint8_t)(n < SP_COMM_MAX ? n : SP_COMM_MAX);
	const char *str;
	if (p->comm_full)
		return NULL;
	if ((p->ncomm + 1) * 2 > p->comm_cap && comm_grow(p) != 0) {
		p->comm_full = 1; /* over the budget: tasks named later show as ":tid" */
		return NULL;
	}
	c = &p->comms[comm_slot(p, tid)];
	if (c->used && c->len == len && !memcmp(c->comm, comm, len)) {
		c->known = (uint8_t)known;
		return c;
	}
	if (!(str = pool_str(p, comm, len))) {
		p->comm_full = 1;
		return NULL;
	}
	if (!c->used)
		p->ncomm++;
	c->used = 1;
	c->tid = tid;
	c->len = len;
	c->known = (uint8_t)known;
	c->comm = str;
	return c;
}

/* ---- the queue ---- */

static int key_less(const sp_key *x, const sp_key *y)
{
	return x->ts < y->ts || (x->ts == y->ts && x->seq < y->seq);
}

static void queue_free(tb_sperf *p)
{
	put(p, p->k, p->qcap * sizeof(sp_key));
	put(p, p->ktmp, p->qcap * sizeof(sp_key));
	put(p, p->run, p->qcap * sizeof(uint32_t));
}

/* Where a queued record's bytes are. */
static const uint8_t *key_rec(const tb_sperf *p, const sp_key *k)
{
	uint64_t off = k->loc >> 2;
	switch (k->loc & 3) {
	case SP_AT_SPILL:
		return p->spill + off;
	case SP_AT_RING: /* (ring_need keeps every queued record's bytes) */
		return p->ring + (off - p->ring_base);
	default:
		return p->data + off;
	}
}

/* A queued record's offset: its own, or its COMPRESSED record's. */
static uint64_t key_offset(const tb_sperf *p, const sp_key *k)
{
	uint64_t off = k->loc >> 2;
	if ((k->loc & 3) == SP_AT_SPILL)
		memcpy(&off, p->spill + off - 8, 8);
	return off;
}

/* A decompressed record copied to the spill buffer (doubled as needed),
 * after the offset of its COMPRESSED record. */
static int spill_put(tb_sperf *p, uint64_t *loc, const uint8_t *rec, size_t n, uint64_t off)
{
	n += 8;
	if (n > p->spill_cap - p->spill_used) {
		size_t cap = p->spill_cap ? p->spill_cap : (size_t)4 * TB_PERF_WINDOW_MIN;
		uint8_t *b;
		while (cap - p->spill_used < n)
			if ((cap *= 2) > SIZE_MAX / 4)
				return -1;
		if (!(b = get(p, cap)))
			return -1;
		if (p->spill_used)
			memcpy(b, p->spill, p->spill_used);
		put(p, p->spill, p->spill_cap);
		p->spill = b;
		p->spill_cap = cap;
	}
	memcpy(p->spill + p->spill_used, &off, 8);
	memcpy(p->spill + p->spill_used + 8, rec, n - 8);
	*loc = SP_LOC(p->spill_used + 8, SP_AT_SPILL);
	p->spill_used += n;
	return 0;
}

/* The spill buffer holds only the queued records' bytes again: copied
 * to the other buffer (as large) in the queue's order, which is not the
 * spill's, and the two swapped.  -1: no memory for the other one. */
static int spill_compact(tb_sperf *p)
{
	size_t i, w = 0;
	uint8_t *b;
	if (p->spill2_cap != p->spill_cap) {
		put(p, p->spill2, p->spill2_cap);
		p->spill2_cap = 0;
		if (!(p->spill2 = get(p, p->spill_cap)))
			return -1;
		p->spill2_cap = p->spill_cap;
	}
	for (i = p->kbeg; i < p->nq; i++) {
		sp_key *k = &p->k[i];
		if ((k->loc & 3) != SP_AT_SPILL)
			continue;
		memcpy(p->spill2 + w, p->spill + (k->loc >> 2) - 8, 8u + k->size);
		k->loc = SP_LOC(w + 8, SP_AT_SPILL);
		w += 8u + k->size;
	}
	b = p->spill;
	p->spill = p->spill2;
	p->spill2 = b;
	p->spill_used = w;
	return 0;
}

/* The sample's fields the walk shows (a record's size is 16 bits: so are
 * the offsets of its spans in rec). */
static void keep_sample(sp_smp *e, const tb_perf_sample *s, const uint8_t *rec)
{
	e->period = s->period;
	e->ip = s->ip;
	e->pid = s->pid;
	e->tid = s->tid;
	e->cpu = s->cpu;
	e->has_tid = (s->present & TB_PERF_SAMPLE_TID) != 0;
	e->has_cpu = (s->present & TB_PERF_SAMPLE_CPU) != 0;
	e->raw_at = e->raw_len = e->chain_at = e->chain_n = 0;
	if (s->raw.len) {
		e->raw_at = (uint16_t)(s->raw.ptr - rec);
		e->raw_len = (uint16_t)s->raw.len;
	}
	if (s->callchain.n) {
		e->chain_at = (uint16_t)(s->callchain.ptr - rec);
		e->chain_n = (uint16_t)s->callchain.n;
	}
}

/* Twice the keys.  What was given (before kbeg) goes first: the queue
 * grows only when what waits fills it. */
static int queue_grow(tb_sperf *p)
{
	size_t cap = p->qcap ? p->qcap * 2 : SP_QUEUE_MIN, i;
	uint32_t *run;
	sp_key *k, *kt;
	if (p->kbeg) {
		memmove(p->k, p->k + p->kbeg, (p->nq - p->kbeg) * sizeof(sp_key));
		for (i = 0; i < p->nruns; i++)
			p->run[i] -= (uint32_t)p->kbeg;
		p->nq -= p->kbeg;
		p->kbeg = 0;
		return 0;
	}
	if (cap > UINT32_MAX || cap > SIZE_MAX / sizeof(sp_key))
		return -1;
	k = get(p, cap * sizeof(sp_key));
	kt = get(p, cap * sizeof(sp_key));
	run = get(p, cap * sizeof(uint32_t));
	if (!k || !kt || !run) {
		put(p, k, cap * sizeof(sp_key));
		put(p, kt, cap * sizeof(sp_key));
		put(p, run, cap * sizeof(uint32_t));
		return -1;
	}
	if (p->qcap) {
		memcpy(k, p->k, p->nq * sizeof(sp_key));
		memcpy(run, p->run, p->nruns * sizeof(uint32_t));
	}
	queue_free(p);
	p->k = k;
	p->ktmp = kt;
	p->run = run;
	p->qcap = cap;
	return 0;
}

/* A record of time ts at the queue's end (loc: where it is).  -1: no
 * memory for it. */
static int queue_add(tb_sperf *p, uint64_t ts, uint64_t loc, uint32_t attr, uint16_t size,
		     uint16_t type)
{
	sp_key *k;
	if (p->nq == p->qcap && queue_grow(p) != 0)
		return -1;
	k = &p->k[p->nq];
	/* a new run where it goes back in time (its arrival is the latest) */
	if (p->nq > p->kbeg && ts < k[-1].ts)
		p->run[p->nruns++] = (uint32_t)p->nq;
	p->nq++;
	k->ts = ts;
	k->seq = p->seq++;
	k->loc = loc;
	k->attr = attr;
	k->size = size;
	k->type = type;
	if (ts > p->max_ts)
		p->max_ts = ts;
	return 0;
}

static int queue_push(tb_sperf *p, const tb_perf_record *r, uint64_t ts)
{
	uint64_t loc;
	if (!r->decompressed) /* (a record not decompressed lies in the input) */
		loc = p->ring_on ? SP_LOC(r->offset, SP_AT_RING)
				 : SP_LOC(r->data.ptr - p->data, SP_AT_INPUT);
	else if (spill_put(p, &loc, r->data.ptr, r->size, r->offset) != 0)
		return -1;
	return queue_add(p, ts, loc, r->attr ? (uint32_t)(r->attr - p->f->attrs) : UINT32_MAX,
			 r->size, (uint16_t)r->type);
}

/* The queue sorted by (time, arrival).  A round is each CPU's records in
 * time order, one CPU after the other, after what the last round left
 * (sorted): its few runs, noted as they came, are merged in pairs in a
 * few linear passes, where a comparison sort would spend n log n. */
static void queue_sort(tb_sperf *p)
{
	while (p->nruns) {
		size_t i, w = 0, nr = 0;
		sp_key *t;
		/* run i is [start i, start i+1): start 0 is 0, the last ends at nq */
		for (i = 0; i <= p->nruns; i += 2) {
			size_t a = i ? p->run[i - 1] : p->kbeg, m = i < p->nruns ? p->run[i] : p->nq;
			size_t e = i + 1 < p->nruns ? p->run[i + 1] : p->nq, b = m;
			if (i) /* (read before: the pairs after i read from i + 1 on) */
				p->run[nr++] = (uint32_t)w;
			while (a < m && b < e)
				p->ktmp[w++] = key_less(&p->k[b], &p->k[a]) ? p->k[b++] : p->k[a++];
			while (a < m)
				p->ktmp[w++] = p->k[a++];
			while (b < e)
				p->ktmp[w++] = p->k[b++];
		}
		p->nruns = nr;
		p->nq = w;
		p->kbeg = 0;
		t = p->k;
		p->k = p->ktmp;
		p->ktmp = t;
	}
}

/* Sorted, and the entries up to `limit` ready. */
static void queue_flush(tb_sperf *p, uint64_t limit)
{
	size_t n = 0;
	queue_sort(p);
	if (p->kbeg) { /* one run: what was given goes, the rest moves up */
		memmove(p->k, p->k + p->kbeg, (p->nq - p->kbeg) * sizeof(sp_key));
		p->nq -= p->kbeg;
		p->kbeg = 0;
	}
	while (n < p->nq && p->k[n].ts <= limit)
		n++;
	p->ready = 0;
	p->nready = n;
}

static int queued_type(uint32_t t)
{
	return t == TB_PERF_RECORD_SAMPLE || t == TB_PERF_RECORD_COMM ||
	       t == TB_PERF_RECORD_FORK || t == TB_PERF_RECORD_LOST ||
	       t == TB_PERF_RECORD_LOST_SAMPLES;
}

/* The fields of fixed size a SAMPLE starts with, in their order. */
static const uint64_t fixed_bits[] = {
	TB_PERF_SAMPLE_IDENTIFIER, TB_PERF_SAMPLE_IP, TB_PERF_SAMPLE_TID, TB_PERF_SAMPLE_TIME,
	TB_PERF_SAMPLE_ADDR, TB_PERF_SAMPLE_ID, TB_PERF_SAMPLE_STREAM_ID, TB_PERF_SAMPLE_CPU,
	TB_PERF_SAMPLE_PERIOD
};

static void layout_make(sp_layout *l, uint64_t t)
{
	uint64_t fixed = 0;
	size_t i;
	uint8_t at = 8; /* after the record's header */
	memset(l, 0, sizeof(*l));
	for (i = 0; i < TB_ARRAY_LEN(fixed_bits); i++) {
		uint64_t b = fixed_bits[i];
		fixed |= b;
		if (!(t & b))
			continue;
		if (b == TB_PERF_SAMPLE_IP)
			l->ip = at;
		else if (b == TB_PERF_SAMPLE_TID)
			l->tid = at;
		else if (b == TB_PERF_SAMPLE_TIME)
			l->time = at;
		else if (b == TB_PERF_SAMPLE_CPU)
			l->cpu = at;
		else if (b == TB_PERF_SAMPLE_PERIOD)
			l->period = at;
		at = (uint8_t)(at + 8);
	}
	l->type = t;
	l->made = 1;
	l->fixed = (uint8_t)(at - 8);
	l->fast = !(t & ~(fixed | TB_PERF_SAMPLE_CALLCHAIN | TB_PERF_SAMPLE_RAW));
}

/* A count of csize bytes at *pos, then that many items of `unit` bytes
 * (CALLCHAIN's ips, RAW's bytes): where they start and how many (left 0
 * for none), *pos after them; 0 when they do not fit in len.  (A record
 * is at most 64 KiB: so are both.) */
TB_ALWAYS_INLINE int counted(const uint8_t *d, size_t len, size_t *pos, size_t csize,
			     size_t unit, int be, uint16_t *at, uint16_t *n)
{
	uint64_t c;
	if (len - *pos < csize)
		return 0;
	c = tb_load_n(d + *pos, csize, be);
	*pos += csize;
	if (c > (len - *pos) / unit)
		return 0;
	if (c) {
		*at = (uint16_t)*pos;
		*n = (uint16_t)c;
	}
	*pos += (size_t)c * unit;
	return 1;
}

/* A SAMPLE's fields by its attr's layout l (d: its len bytes): 0 when
 * the layout is not the fast one or the record does not hold them
 * (tb_perf_parse_sample then reads it, or says where it is cut: the checks
 * are its own).  *ts left as it is without TIME.  Inline: when queued,
 * only the checks and the time are kept of it. */
TB_ALWAYS_INLINE int fast_sample(const sp_layout *l, int be, const uint8_t *d, size_t len,
				 sp_smp *sm, uint64_t *ts)
{
	size_t pos = 8u + l->fixed;
	if (!l->fast || len < pos)
		return 0;
	sm->ip = l->ip ? tb_load64(d + l->ip, be) : 0;
	sm->has_tid = l->tid != 0;
	sm->pid = l->tid ? tb_load32(d + l->tid, be) : 0;
	sm->tid = l->tid ? tb_load32(d + l->tid + 4, be) : 0;
	if (l->time)
		*ts = tb_load64(d + l->time, be);
	sm->has_cpu = l->cpu != 0;
	sm->cpu = l->cpu ? tb_load32(d + l->cpu, be) : 0;
	sm->period = l->period ? tb_load64(d + l->period, be) : 0;
	sm->chain_at = sm->chain_n = sm->raw_at = sm->raw_len = 0;
	if ((l->type & TB_PERF_SAMPLE_CALLCHAIN) &&
	    !counted(d, len, &pos, 8, 8, be, &sm->chain_at, &sm->chain_n))
		return 0;
	return !(l->type & TB_PERF_SAMPLE_RAW) ||
	       counted(d, len, &pos, 4, 1, be, &sm->raw_at, &sm->raw_len);
}

/* A sample the layout cannot read: the general parser's checks and
 * time (out of line: its sample struct would cost every call a large
 * frame). */
static TB_NOINLINE tb_status parse_time(tb_sperf *p, uint32_t attr, const uint8_t *d,
					size_t len, uint64_t offset, uint64_t *ts, tb_error *err)
{
	tb_perf_sample s;
	tb_status st = tb_perf_parse_sample(p->f, &p->f->attrs[attr], d, len, offset, &s, err);
	if (st == TB_OK && (s.present & TB_PERF_SAMPLE_TIME))
		*ts = s.time;
	return st;
}

/* A SAMPLE (attr's, d: its len bytes, at offset), read to know it whole
 * before it is queued (a fault is its own, in file order), and its time
 * (*ts left as it is without TIME). */
TB_ALWAYS_INLINE tb_status check_sample(tb_sperf *p, uint32_t attr, const uint8_t *d, size_t len,
				   uint64_t offset, uint64_t *ts, tb_error *err)
{
	sp_layout *l = &p->lay[attr];
	sp_smp sm;
	if (!l->made) /* (an attr's index keeps its attr: a walk again reads the same) */
		layout_make(l, p->f->attrs[attr].sample_type);
	if (fast_sample(l, p->f->big_endian, d, len, &sm, ts))
		return TB_OK;
	return parse_time(p, attr, d, len, offset, ts, err);
}

/* A queued sample's fields, read again from its bytes, with the same
 * checks: the bytes read whole when it was queued are the caller's, and
 * one that changed them since gets a sample without its fields, never a
 * read out of the record. */
static void given_sample(tb_sperf *p, const sp_key *k, const uint8_t *rec, sp_smp *sm)
{
	uint64_t ts;
	tb_perf_sample s;
	if (fast_sample(&p->lay[k->attr], p->f->big_endian, rec, k->size, sm, &ts))
		return;
	if (tb_perf_parse_sample(p->f, &p->f->attrs[k->attr], rec, k->size, 0, &s, NULL) != TB_OK)
		memset(&s, 0, sizeof(s));
	keep_sample(sm, &s, rec);
}

/* Where a scanned sample's bytes are (in the ring, or the input). */
static const uint8_t *scanned_rec(const tb_sperf *p, const tb_perf_sample_ref_ *r)
{
	return p->ring_on ? p->ring + (r->offset - p->ring_base) : p->data + r->offset;
}

/* A sample the scan read, checked whole as the walk's are, queued. */
static tb_status queue_scanned(tb_sperf *p, const tb_perf_sample_ref_ *r, tb_error *err)
{
	uint64_t ts = p->max_ts; /* without a time, among the latest */
	tb_status st = check_sample(p, r->attr, scanned_rec(p, r), r->size, r->offset, &ts, err);
	if (st != TB_OK)
		return st;
	if (queue_add(p, ts, SP_LOC(r->offset, p->ring_on ? SP_AT_RING : SP_AT_INPUT), r->attr,
		      r->size, TB_PERF_RECORD_SAMPLE) != 0)
		return tb_fail(err, TB_ERR_NO_SPACE, r->offset, "no memory for the records of one round");
	return TB_OK;
}

/* ---- a file read through ---- */

/* Has the walk met a fault that ends it? */
static int walk_ended(const tb_sperf *p)
{
	return p->pipe ? p->ps->sticky != TB_OK : p->ring_on ? p->rsticky != TB_OK : p->it.sticky != TB_OK;
}

/* The file's bytes [rpos, rpos + n) in the ring (n <= rlim - rpos): 0,
 * or -1 without memory for them, -2 when the read function fails.  What
 * the queued records hold stays; the bytes before them go, and the ring
 * grows only when they fill it. */
static int ring_need(tb_sperf *p, size_t n)
{
	uint64_t keep = p->rpos;
	size_t i, live, want, len;
	if (p->rpos + n <= p->ring_end)
		return 0;
	for (i = p->kbeg; i < p->nq; i++) /* (all in the ring: no spill, and
					       no ring_need once the mapping reads) */
		if ((p->k[i].loc >> 2) < keep)
			keep = p->k[i].loc >> 2;
	if (keep >= p->ring_end) { /* nothing it holds stays (AUXTRACE's data may lie between) */
		live = 0;
		p->ring_end = keep;
	} else {
		live = (size_t)(p->ring_end - keep);
		if (keep > p->ring_base)
			memmove(p->ring, p->ring + (keep - p->ring_base), live);
	}
	p->ring_base = keep;
	want = (size_t)(p->rpos + n - keep);
	/* grown when what stays takes half of it: each read fills at least
	 * half (the ring ends near twice the bytes of a round) */
	if (want > p->ring_cap || live > p->ring_cap / 2) {
		size_t cap = p->ring_cap ? p->ring_cap * 2 : SP_RING_MIN;
		uint8_t *b;
		if (want > SIZE_MAX / 4) /* (a round's bytes: less than the file) */
			return -1;
		while (cap < want)
			cap *= 2;
		if (!(b = get(p, cap)))
			return -1;
		if (live)
			memcpy(b, p->ring, live);
		put(p, p->ring, p->ring_cap);
		p->ring = b;
		p->ring_cap = cap;
	}
	/* as much as the ring holds, in one read */
	len = p->ring_cap - live;
	if (len > p->rlim - p->ring_end)
		len = (size_t)(p->rlim - p->ring_end);
	if (p->rd(p->rd_ctx, p->ring_end, p->ring + live, len) != 0) {
		/* (a file cut since: what this record needs may still be there) */
		len = (size_t)(p->rpos + n - p->ring_end);
		if (p->rd(p->rd_ctx, p->ring_end, p->ring + live, len) != 0)
			return -2;
	}
	p->ring_end += len;
	return 0;
}

static tb_status ring_stop(tb_sperf *p, tb_status st, uint64_t off, const char *what,
			   tb_error *err)
{
	p->rsticky = st;
	return tb_fail(err, st, off, what);
}

/* ring_need's failure rc, where the walk is. */
static tb_status ring_lost(tb_sperf *p, int rc, tb_error *err)
{
	return rc == -1 ? ring_stop(p, TB_ERR_NO_SPACE, p->rpos,
				    "no memory for the records of one round", err)
			: ring_stop(p, TB_ERR_TRUNCATED, p->rpos,
				    "perf.data records that could not be read", err);
}

/* The next record of the data section through the ring: as
 * tb_perf_record_next gives it from the mapping. */
static tb_status ring_record(tb_sperf *p, tb_perf_record *r, tb_error *err)
{
	const uint8_t *d;
	uint64_t room = p->rlim - p->rpos;
	uint16_t size;
	int sticky, rc;
	tb_status st;
	/* (after a fault that ends the walk, read_round calls no more) */
	if (!room)
		return TB_END;
	if ((rc = ring_need(p, room < 8 ? (size_t)room : 8)) != 0)
		return ring_lost(p, rc, err);
	d = p->ring + (p->rpos - p->ring_base);
	if ((st = tb_perf_buffer_header_(&p->walkf, d, (size_t)(p->ring_end - p->rpos), p->rpos,
					 room, &size, err)) != TB_OK) {
		p->rsticky = st;
		return st;
	}
	if (tb_load32(d, p->f->big_endian) == TB_PERF_RECORD_COMPRESSED ||
	    tb_load32(d, p->f->big_endian) == TB_PERF_RECORD_COMPRESSED2) {
		/* (a file whose header did not say so) its zstd stream is
		 * drained from the mapping, from here on: the ring keeps what
		 * it holds */
		p->ring_on = 0;
		p->it.pos = p->rpos;
		return tb_perf_record_next(&p->it, r, err);
	}
	if ((rc = ring_need(p, size)) != 0)
		return ring_lost(p, rc, err);
	d = p->ring + (p->rpos - p->ring_base);
	st = tb_perf_buffer_record_(&p->walkf, d, size, p->rpos, room - size, r, &sticky, err);
	if (sticky) {
		p->rsticky = st;
		return st;
	}
	p->rpos += size;
	if (st == TB_OK && r->extra_len) { /* AUXTRACE's data follows it: not read */
		p->rpos += r->extra_len;
		r->extra.ptr = NULL;
		r->extra.len = 0;
	}
	return st;
}

/* The next samples of a file read straight, in place or in the ring (a
 * ring's bytes stay until ring_need: the scanned ones are queued first). */
static size_t scan(tb_sperf *p)
{
	size_t n, used;
	if (!p->ring_on)
		return tb_perf_scan_samples_(&p->it, p->scan, SP_SCAN);
	if (p->rpos >= p->ring_end)
		return 0;
	n = tb_perf_scan_buffer_(&p->walkf, p->ring + (p->rpos - p->ring_base),
				 (size_t)(p->ring_end - p->rpos), p->rpos, p->scan, SP_SCAN, &used);
	p->rpos += used;
	return n;
}

/* Read the next round into the queue (after what the last one left). */
static tb_status read_round(tb_sperf *p, tb_error *err)
{
	tb_perf_record r;
	if (p->ready) { /* what was given goes at the next sort */
		p->kbeg = p->ready;
		p->ready = p->nready = 0;
	}
	if (p->spill_used && spill_compact(p) != 0)
		return tb_fail(err, TB_ERR_NO_SPACE, 0, "no memory for the decompressed records");
	for (;;) {
		tb_status st;
		uint64_t ts;
		if (p->iscan < p->nscan) {
			if ((st = queue_scanned(p, &p->scan[p->iscan++], err)) != TB_OK)
				return st; /* that record only */
			continue;
		}
		if (!p->pipe && (p->nscan = scan(p))) {
			p->iscan = 0;
			continue;
		}
		st = p->pipe	  ? tb_perf_stream_next(p->ps, &r, err)
		     : p->ring_on ? ring_record(p, &r, err)
				  : tb_perf_record_next(&p->it, &r, err);
		if (st == TB_END || (st != TB_OK && walk_ended(p))) {
			p->eof = 1;
			queue_flush(p, UINT64_MAX);
			return st == TB_END ? TB_OK : st;
		}
		if (st != TB_OK)
			return st; /* that record only: the next call reads on */
		if (r.type == TB_PERF_RECORD_FINISHED_ROUND) {
			uint64_t limit = p->next_flush;
			p->next_flush = p->max_ts;
			queue_flush(p, limit);
			if (p->nready)
				return TB_OK;
			continue;
		}
		if (!queued_type(r.type))
			continue;
		if (r.type == TB_PERF_RECORD_SAMPLE && !r.attr)
			return tb_fail(err, TB_ERR_VALUE, r.offset, "a sample whose id no attr lists");
		/* without a time, a record keeps its place among the latest */
		ts = r.has_sample && (r.s.present & TB_PERF_SAMPLE_TIME) ? r.s.time : p->max_ts;
		if (r.type == TB_PERF_RECORD_SAMPLE &&
		    (st = check_sample(p, (uint32_t)(r.attr - p->f->attrs), r.data.ptr, r.data.len,
				       r.offset, &ts, err)) != TB_OK)
			return st; /* that record only */
		if (queue_push(p, &r, ts) != 0)
			return tb_fail(err, TB_ERR_NO_SPACE, r.offset,
				       "no memory for the records of one round");
	}
}

/* ---- the walk ---- */

/* Apply a queued record that is not a sample (r: its k->size bytes). */
static void apply(tb_sperf *p, const sp_key *k, const uint8_t *r)
{
	int be = p->f->big_endian;
	switch (k->type) {
	case TB_PERF_RECORD_COMM:
		if (k->size >= 17) {
			size_t n = 0, max = k->size - 16u;
			while (n < max && r[16 + n])
				n++;
			(void)comm_set(p, tb_load32(r + 12, be), (const char *)r + 16, n, 1);
		}
		break;
	case TB_PERF_RECORD_FORK:
		if (k->size >= 24) {
			/* the child is named as its parent until it sets its own */
			const sp_comm *c = comm_find(p, tb_load32(r + 20, be));
			if (c && c->known)
				(void)comm_set(p, tb_load32(r + 16, be), c->comm, c->len, 1);
		}
		break;
	case TB_PERF_RECORD_LOST:
		if (k->size >= 24)
			p->missed += (int64_t)(tb_load64(r + 16, be) & INT64_MAX);
		break;
	case TB_PERF_RECORD_LOST_SAMPLES:
		if (k->size >= 16)
			p->missed += (int64_t)(tb_load64(r + 8, be) & INT64_MAX);
		break;
	default:
		break;
	}
	if (p->missed < 0)
		p->missed = INT64_MAX;
}

/* perf's ":tid", kept as the task's name until one comes (out of line:
 * its buffer would cost the walk's every call a stack guard). */
static TB_NOINLINE const sp_comm *tid_comm(tb_sperf *p, int32_t tid)
{
	char b[24];
	tb_text t;
	tb_text_init(&t, b, sizeof(b));
	tb_text_putc(&t, ':');
	tb_text_i64(&t, tid, 0, 0);
	return tid >= 0 ? comm_set(p, (uint32_t)tid, b, t.len, 0) : NULL;
}

static void sample_comm(tb_sperf *p, tb_sperf_item *it)
{
	const sp_comm *c = it->ps.tid >= 0 ? comm_find(p, (uint32_t)it->ps.tid) : NULL;
	it->comm_known = 1;
	if (!c && it->ps.tid == 0) { /* perf's name of the idle tasks */
		it->comm = "swapper";
		it->comm_len = 7;
		return;
	}
	if (!c)
		c = tid_comm(p, it->ps.tid);
	if (!c) { /* no tid, or no memory left for names */
		it->comm = ":-1";
		it->comm_len = 3;
		it->comm_known = 0;
		return;
	}
	it->comm = c->comm;
	it->comm_len = c->len;
	it->comm_known = c->known;
}

tb_status tb_sperf_next(tb_sperf *p, tb_sperf_item *it, tb_error *err)
{
	if (!p->started) {
		tb_status st = walk_start(p, err);
		if (st != TB_OK)
			return st;
	}
	for (;;) {
		const sp_key *k;
		const uint8_t *rec;
		sp_smp sm;
		tb_status st;
		if (p->ready == p->nready) {
			if (p->eof)
				return TB_END;
			if ((st = read_round(p, err)) != TB_OK)
				return st;
			continue;
		}
		k = &p->k[p->ready++];
		rec = key_rec(p, k);
		if (k->type != TB_PERF_RECORD_SAMPLE) {
			apply(p, k, rec);
			continue;
		}
		given_sample(p, k, rec, &sm);
		/* every field set here or by sample_comm: no memset */
		it->cpu = sm.has_cpu ? sm.cpu : 0;
		it->ts = k->ts;
		it->raw = sm.raw_len ? rec + sm.raw_at : NULL;
		it->raw_len = sm.raw_len;
		it->missed = p->missed;
		p->missed = 0;
		it->ps.pid = sm.has_tid ? (int32_t)sm.pid : -1;
		it->ps.tid = sm.has_tid ? (int32_t)sm.tid : -1;
		it->ps.period = sm.period;
		it->ps.ip = sm.ip;
		it->ps.attr = k->attr;
		it->ps.system = p->names[k->attr].sys;
		it->ps.name = p->names[k->attr].name;
		it->ps.callchain.ptr = sm.chain_n ? rec + sm.chain_at : NULL;
		it->ps.callchain.n = sm.chain_n;
		it->ps.callchain.big_endian = p->f->big_endian;
		it->ps.offset = key_offset(p, k);
		sample_comm(p, it);
		return TB_OK;
	}
}

uint32_t tb_sperf_ncpus(const tb_sperf *p)
{
	return p->ncpus;
}

tb_session_cpu_stats *tb_sperf_stats(tb_sperf *p, uint32_t cpu)
{
	return cpu < p->ncpus ? &p->cst[cpu] : NULL;
}

/* ---- text ---- */

/* perf's "%12s" of "sec.usec" (microseconds cut, not rounded). */
static void put_time(tb_text *t, uint64_t ts)
{
	char b[32];
	tb_text x;
	tb_text_init(&x, b, sizeof(b));
	tb_text_u64(&x, ts / 1000000000u, 0, 0);
	tb_text_putc(&x, '.');
	tb_text_u64(&x, ts % 1000000000u / 1000u, 6, TB_TEXT_ZERO);
	if (x.len < 12)
		tb_text_fill(t, ' ', 12 - x.len);
	tb_text_put(t, b, x.len);
}

static int shows_chain(const tb_sperf_item *it)
{
	return it->ps.callchain.n > 0;
}

/* The head of a tracepoint's line without a callchain (every line of a
 * sched capture) straight into the sink when it surely fits: what the
 * general path below prints, byte for byte, without its number calls.
 * 0 when it does not apply. */
/* w (4 or 8) bytes at p as a number. */
static uint64_t load_word(const char *p, size_t w)
{
	uint64_t x = 0;
	uint32_t y;
	if (w == 8) {
		memcpy(&x, p, 8);
		return x;
	}
	memcpy(&y, p, 4);
	return y;
}

/* n (<= 16) bytes at a and b the same: two overlapping loads each. */
static int same16(const char *a, const char *b, size_t n)
{
	size_t w = n >= 8 ? 8 : 4;
	if (n >= 4)
		return load_word(a, w) == load_word(b, w) &&
		       load_word(a + n - w, w) == load_word(b + n - w, w);
	for (size_t i = 0; i < n; i++)
		if (a[i] != b[i])
			return 0;
	return 1;
}

/* Does k hold the head of this task on this CPU? */
static int head_is(const struct tb_sperf_head_task *k, const char *comm, size_t comm_len,
		   int32_t tid, uint32_t cpu)
{
	return k->len && k->tid == tid && k->cpu == cpu && k->comm_len == comm_len &&
	       same16(k->comm, comm, comm_len);
}

/* A kept head's 48 bytes, in 16-byte moves (a 48-byte memcpy became a
 * `rep movsl` with gcc -O2: a fifth of the head's time on AMD). */
static void copy48(char *d, const char *s)
{
	tb_copy16(d, s, 16);
	tb_copy16(d + 16, s + 16, 16);
	tb_copy16(d + 32, s + 32, 16);
}

/* "comm tid [cpu] " at q (the room holds 48 and more): returns its end.
 * Kept in hc for the next lines of the same task on its CPU (compared by
 * its bytes: a comm's storage may be another's later), in the way of the
 * two the CPU used less lately. */
static char *head_task(tb_sperf_head *hc, const char *comm, size_t comm_len, int32_t tid,
		       uint32_t cpu, char *q)
{
	struct tb_sperf_head_task *k = hc->task[cpu % 4];
	uint8_t *older = &hc->older[cpu % 4];
	char *b = q;
	size_t n;
	for (unsigned i = 0; i < 2; i++)
		if (head_is(&k[i], comm, comm_len, tid, cpu)) {
			*older = (uint8_t)(i ^ 1u);
			copy48(q, k[i].text);
			return q + k[i].len;
		}
	k += *older;
	*older ^= 1u;
	memset(q, ' ', 16); /* then the comm over its end */
	q += 16 - comm_len;
	tb_copy16(q, comm, comm_len);
	q += comm_len;
	*q++ = ' ';
	n = tb_dec_len((uint32_t)tid);
	/* the pads: constant stores, written over after their end */
	memset(q, ' ', 8);
	if (n < 5)
		q += 5 - n;
	tb_dec_n(q, (uint32_t)tid, (unsigned)n);
	q += n;
	q = tb_put_cpu_col(q, cpu);
	/* at most 16 + 1 + 10 + 7 = 34 bytes */
	copy48(k->text, b);
	tb_copy16(k->comm, comm, comm_len);
	k->len = (uint8_t)(q - b);
	k->tid = tid;
	k->cpu = cpu;
	k->comm_len = (uint8_t)comm_len;
	return q;
}

/* "sec." right-aligned so that "sec.usec" takes 12 columns, at q (the
 * room holds 16 and more): returns its end.  Kept in hc for the next
 * line of the same second. */
static char *head_seconds(tb_sperf_head *hc, uint64_t sec, char *q)
{
	char *b = q;
	size_t n;
	if (hc->sec_len && hc->sec == sec) {
		memcpy(q, hc->sec_text, 16);
		return q + hc->sec_len;
	}
	n = tb_dec_len(sec) + 7; /* "sec.usec" in 12 columns */
	memset(q, ' ', 16);
	if (n < 12)
		q += 12 - n;
	tb_dec_n(q, sec, (unsigned)n - 7);
	q += n - 7;
	*q++ = '.';
	memcpy(hc->sec_text, b, 16); /* at most 11 digits: 12 bytes */
	hc->sec_len = (uint8_t)(q - b);
	hc->sec = sec;
	return q;
}

static int fast_head(const tb_sperf *p, const tb_sperf_item *it, const char *comm,
		     size_t comm_len, size_t w, tb_sperf_head *hc, tb_text *t)
{
	/* comm 16, " ", tid 10, " [cpu] " 7, time 27, ": " 2, ": " 2 */
	const size_t fixed = 16 + 1 + 10 + 7 + 27 + 2 + 2;
	size_t pad = w < p->width ? p->width - w : 0;
	uint64_t sec = it->ts / 1000000000u;
	uint32_t us = (uint32_t)(it->ts % 1000000000u / 1000u);
	char *b, *q;
	if (!it->raw || shows_chain(it) || comm_len > 16 || it->ps.tid < 0 || it->cpu > 999 ||
	    t->len != t->need || t->cap - t->len < fixed + 32 + pad + w)
		return 0;
	b = t->buf + t->len;
	q = head_task(hc, comm, comm_len, it->ps.tid, it->cpu, b);
	q = head_seconds(hc, sec, q);
	tb_put_le64(q, tb_dec8(us) >> 16); /* its low 6 digits */
	q += 6;
	*q++ = ':';
	*q++ = ' ';
	if (pad <= 32)
		memset(q, ' ', 32);
	else
		memset(q, ' ', pad);
	q += pad;
	if (it->ps.system.len) {
		tb_copy_short(q, it->ps.system.ptr, it->ps.system.len);
		q += it->ps.system.len;
		*q++ = ':';
	}
	tb_copy_short(q, it->ps.name.ptr, it->ps.name.len);
	q += it->ps.name.len;
	*q++ = ':';
	*q++ = ' ';
	t->len += (size_t)(q - b);
	t->need = t->len;
	t->last = ' ';
	return 1;
}

void tb_sperf_line_head(const tb_sperf *p, const tb_sperf_item *it, const char *comm,
			size_t comm_len, tb_sperf_head *hc, tb_text *t)
{
	int chain = shows_chain(it);
	size_t w = it->ps.system.len ? it->ps.system.len + 1 + it->ps.name.len : it->ps.name.len;
	if (fast_head(p, it, comm, comm_len, w, hc, t))
		return;
	if (!chain && comm_len < 16)
		tb_text_fill(t, ' ', 16 - comm_len);
	tb_text_put(t, comm, comm_len);
	tb_text_putc(t, ' ');
	tb_text_i64(t, it->ps.tid, 5, 0);
	tb_text_put(t, " [", 2);
	tb_text_u64(t, it->cpu, 3, TB_TEXT_ZERO);
	tb_text_put(t, "] ", 2);
	put_time(t, it->ts);
	tb_text_put(t, ": ", 2);
	if (!it->raw) { /* cycles...: the period before the name, as perf */
		tb_text_u64(t, it->ps.period, 10, 0);
		tb_text_putc(t, ' ');
	}
	if (w < p->width) /* perf pads the name with a callchain too */
		tb_text_fill(t, ' ', p->width - w);
	if (it->ps.system.len) {
		tb_text_put(t, it->ps.system.ptr, it->ps.system.len);
		tb_text_putc(t, ':');
	}
	tb_text_put(t, it->ps.name.ptr, it->ps.name.len);
	tb_text_put(t, ": ", 2);
	if (!it->raw) {
		tb_text_hex(t, it->ps.ip, 16, 0);
		tb_text_puts(t, " [unknown] ([unknown])");
	}
}

/* Does k hold ip as perf's kernel map has it?  A symbol ends at the next
 * one, but the last of the kernel before a module's symbols (and the last
 * of all) ends at the page after the one it starts in: past it perf
 * finds no symbol (a trampoline), where the table would name the last
 * symbol with an offset of a gigabyte. */
static int perf_sym_holds(const tb_kallsyms *ks, const tb_ksym *k, uint64_t ip)
{
	uint64_t size = tb_kallsyms_size(ks, k), end;
	const tb_ksym *next = size ? tb_kallsyms_find(ks, k->addr + size) : NULL;
	if (next && (next->module_len != 0) == (k->module_len != 0))
		return 1;
	if (k->addr > UINT64_MAX - 8192u)
		return 1;
	end = (k->addr + 4096u + 4095u) & ~UINT64_C(4095);
	return ip < end;
}

void tb_sperf_line_tail(const tb_sperf *p, const tb_sperf_item *it, const tb_kallsyms *ks,
			tb_text *t)
{
	uint64_t i;
	(void)p;
	if (!shows_chain(it))
		return;
	for (i = 0; i < it->ps.callchain.n; i++) {
		uint64_t ip = tb_perf_u64_at(&it->ps.callchain, i);
		const tb_ksym *k;
		if (ip >= TB_PERF_CONTEXT_MAX)
			continue;
		tb_text_putc(t, '\t');
		tb_text_hex(t, ip, 16, 0);
		k = ks && ks->n ? tb_kallsyms_find(ks, ip) : NULL;
		if (k && perf_sym_holds(ks, k, ip)) {
			tb_text_putc(t, ' ');
			tb_text_put(t, tb_ksym_name(ks, k), k->name_len);
			tb_text_put(t, "+0x", 3);
			tb_text_hex(t, ip - k->addr, 0, 0);
			tb_text_puts(t, " ([kernel.kallsyms])\n");
		} else {
			tb_text_puts(t, " [unknown] ([unknown])\n");
		}
	}
	tb_text_putc(t, '\n');
}

void tb_sperf_json(const tb_sperf_item *it, tb_text *t)
{
	uint64_t i;
	int first = 1;
	tb_text_puts(t, ",\"tid\":");
	tb_text_i64(t, it->ps.tid, 0, 0);
	tb_text_puts(t, ",\"tgid\":");
	tb_text_i64(t, it->ps.pid, 0, 0);
	tb_text_puts(t, ",\"period\":");
	tb_text_u64(t, it->ps.period, 0, 0);
	if (!it->raw) {
		tb_text_puts(t, ",\"event\":");
		if (it->ps.system.len) {
			tb_text_putc(t, '"');
			tb_text_put(t, it->ps.system.ptr, it->ps.system.len);
			tb_text_putc(t, ':');
			tb_text_put(t, it->ps.name.ptr, it->ps.name.len);
			tb_text_putc(t, '"');
		} else {
			tb_json_str(t, it->ps.name.ptr, it->ps.name.len);
		}
		tb_text_puts(t, ",\"ip\":");
		tb_text_u64(t, it->ps.ip, 0, 0);
	}
	if (!it->ps.callchain.n)
		return;
	tb_text_puts(t, ",\"callchain\":[");
	for (i = 0; i < it->ps.callchain.n; i++) {
		uint64_t ip = tb_perf_u64_at(&it->ps.callchain, i);
		if (ip >= TB_PERF_CONTEXT_MAX)
			continue;
		if (!first)
			tb_text_putc(t, ',');
		first = 0;
		tb_text_u64(t, ip, 0, 0);
	}
	tb_text_putc(t, ']');
}
