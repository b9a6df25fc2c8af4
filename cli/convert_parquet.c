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
 * The library writes the files (lib/parquet.c); this file maps formats
 * to columns, owns the memory and the files, and checks every write.
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

/* Column buffers.  A table starts small (a fixed-width column holds 512
 * rows of 8 bytes; a byte or list column four of the capture's largest
 * pages, so no record is too large for it) and doubles its buffers each
 * time a row group goes out, up to the caps.  The per-event tables'
 * buffers together stay within BUF_BUDGET: busy tables get large row
 * groups, quiet ones stay small, and memory is bounded whatever the
 * capture.  The events table, one table, always grows to its caps: so
 * no table's growth depends on the other side of the --jobs split. */
#define INT_START ((size_t)4 << 10)
#define INT_CAP ((size_t)128 << 10)
#define VAR_CAP ((size_t)512 << 10)
#define VAR_MIN ((size_t)16 << 10)
#define BUF_BUDGET ((size_t)48 << 20)
/* Files kept open at once (more tables than this reopen to append). */
#ifndef MAX_OPEN
#define MAX_OPEN 200
#endif

/* A comm is kept up to COMM_MAX bytes.  The kernel's are at most 16; a
 * saved cmdline can be any length (hand-made or damaged), and one longer
 * than the column's buffer would stop the conversion.  Cut ones are
 * counted (metadata.json: comms_cut). */
#define COMM_MAX ((size_t)4096)

/* The columns are the library's (include/tracebound/rows.h): __comm is
 * the fourth, and the events table's last one __text. */
enum { C_COMM = 3 };

typedef struct pq_out pq_out;

/*
 * --jobs 2 and more: two threads.  The main one walks the session (its
 * stderr, the page counts) and hands each event, its record copied, to
 * the other through a bounded queue of chunks; that one writes the
 * per-event tables (R_FORMATS).  The events table's rows (R_EVENTS) are
 * made from the queued chunks, in chunk order, by whichever thread has
 * nothing else to do: the worker when it waits for a chunk, the main
 * thread when it waits for a free one.  So that work goes to the thread
 * with time for it, wherever the capture puts the load.
 * With --text the rows are rendered, which needs the session the main
 * thread walks: they stay on the main thread, and only events with a
 * format are queued.  Every table is written by one thread at a time, in
 * row order, with the state one thread would have, so every file is the
 * one-thread file byte for byte.
 */
enum { R_EVENTS = 1, R_FORMATS = 2 };

/* Chunks in flight, and their size: room for a record as long as the
 * largest page.  (Chunks of 16 KiB to 1 MiB, up to 128 in flight, were
 * no faster: the threads waited for each other more often.) */
#define Q_CHUNKS 8
#define Q_CHUNK ((size_t)2 << 20)

/* An event as the queue holds it, then the record's bytes.  The comm is
 * not copied: it is a string of the session's tables (or a static one),
 * valid until the capture closes, after both threads are done.  Its
 * length is cut to COMM_MAX + 1 (above COMM_MAX: a comm that was cut). */
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

typedef struct pq_table {
	pq_out *o;
	const tb_format *fmt;     /* NULL: the events table */
	char *path;
	FILE *f;
	int opened;               /* the file exists (reopen appends) */
	tb_rows_column *rcols;    /* the library's columns (names, types) */
	tb_pq_column *cols;
	tb_pq_value *vals;
	size_t ncols;
	tb_pq_writer w;
	uint8_t *footer;
	size_t footer_cap;
	uint64_t rows, too_large;
	uint32_t buffer;          /* the session's buffer index */
} pq_table;

/* Format tables by (format, buffer): open addressing, grown at half full. */
typedef struct pq_slot {
	const tb_format *f;
	uint32_t buffer;
	pq_table *t;
} pq_slot;

struct pq_out {
	unsigned roles;           /* R_EVENTS | R_FORMATS */
	int queue;                /* R_EVENTS: events with a format go to the queue */
	pq_shared *sh;
	int malformed;            /* a page did not read (R_EVENTS) */
	const char *dir;          /* where the tables go: the staging directory */
	int text;                 /* --text: rendered text in the events table */
	int failed;               /* an output error was reported: exit 2 */
	pq_table **tables;        /* format tables, in order of creation */
	size_t ntables;
	pq_slot *index;
	size_t index_cap;
	pq_table *last;           /* the table of the previous event */
	pq_table all;
	size_t nopen;
	uint8_t *scratch, *cscratch, *dict;
	size_t scratch_cap, cscratch_cap, dict_cap;
	size_t var_min;           /* first buffer of a byte or list column */
	size_t mem;               /* bytes of all column buffers now */
#ifdef TB_HAVE_ZSTD
	ZSTD_CCtx *zc;
#endif
	tb_field_value *fv;       /* one record's decoded fields */
	tb_pq_kv kv[2];           /* the events table's key/values */
	uint64_t no_format, events, bad_pages, bad_records, comms_cut;
	tb_cli_capture *c;
	const tb_session_info *info;
	tb_cli_line line;         /* --text: one rendering */
	const tb_session_raw_cpu *raw; /* raw dumps: their CPUs */
	size_t nraw;
};

static void out_error(pq_out *o, const char *path, const char *what, int err)
{
	if (!o->failed && !atomic_exchange(&o->sh->said, 1))
		fprintf(stderr, "tracebound: %s: %s%s%s\n", path, what, err ? ": " : "",
			err ? strerror(err) : "");
	o->failed = 1;
	atomic_store(&o->sh->stop, 1);
}

/* ---- files ---- */

static tb_status file_write(void *ctx, const void *p, size_t n)
{
	pq_table *t = ctx;
	if (!t->f) {
		t->f = fopen(t->path, t->opened ? "ab" : "wb");
		if (!t->f) {
			out_error(t->o, t->path, "cannot open", errno);
			return TB_ERR_ARG;
		}
		t->opened = 1;
		t->o->nopen++;
	}
	if (fwrite(p, 1, n, t->f) != n) {
		out_error(t->o, t->path, "write failed", errno);
		return TB_ERR_NO_SPACE;
	}
	return TB_OK;
}

static int file_close(pq_table *t)
{
	int rc = 0;
	if (t->f) {
		if (fclose(t->f) != 0) {
			out_error(t->o, t->path, "write failed", errno);
			rc = -1;
		}
		t->f = NULL;
		t->o->nopen--;
	}
	return rc;
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
#endif

/* ---- tables ---- */

/* File names from system and event names (from the capture: anything
 * outside [A-Za-z0-9_.+-] becomes '_', and so does a leading '.'). */
static void put_name(char *dst, size_t *at, const char *s, size_t n)
{
	size_t i;
	for (i = 0; i < n && i < 128; i++) {
		char c = s[i];
		int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			 (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '+' ||
			 (c == '.' && i);
		dst[(*at)++] = ok ? c : '_';
	}
}

static int table_start(pq_out *o, pq_table *t, const tb_format *fmt, const char *file,
		       const tb_pq_kv *kv, size_t nkv)
{
	unsigned rflags = o->text ? TB_ROWS_WITH_TEXT : 0;
	size_t i, n = tb_rows_columns(fmt, rflags, NULL, 0);
	tb_pq_config cfg;
	tb_error e;
	t->o = o;
	t->fmt = fmt;
	t->path = malloc(strlen(o->dir) + strlen(file) + 2);
	t->cols = calloc(n, sizeof(*t->cols));
	t->vals = calloc(n, sizeof(*t->vals));
	t->rcols = calloc(n, sizeof(*t->rcols));
	t->footer_cap = 4096;
	t->footer = malloc(t->footer_cap);
	if (!t->path || !t->cols || !t->vals || !t->rcols || !t->footer) {
		out_error(o, file, "out of memory", 0);
		return -1;
	}
	sprintf(t->path, "%s/%s", o->dir, file);
	t->ncols = n;
	(void)tb_rows_columns(fmt, rflags, t->rcols, n);
	for (i = 0; i < n; i++)
		tb_rows_pq_column(&t->rcols[i], &t->cols[i]);
	for (i = 0; i < n; i++) {
		tb_pq_column *c = &t->cols[i];
		c->cap = c->kind == TB_PQ_INT ? INT_START : o->var_min;
		c->buf = malloc(c->cap);
		if (fmt)
			o->mem += c->cap;
		if (!c->buf) {
			out_error(o, file, "out of memory", 0);
			return -1;
		}
	}
	memset(&cfg, 0, sizeof(cfg));
	cfg.write = file_write;
	cfg.write_ctx = t;
	cfg.scratch = o->scratch;
	cfg.scratch_cap = o->scratch_cap;
	cfg.dict = o->dict;
	cfg.dict_cap = o->dict_cap;
	cfg.footer = t->footer;
	cfg.footer_cap = t->footer_cap;
#ifdef TB_HAVE_ZSTD
	if (o->zc) {
		cfg.compress = zstd_compress;
		cfg.compress_ctx = o->zc;
		cfg.codec = TB_PQ_ZSTD;
		cfg.cscratch = o->cscratch;
		cfg.cscratch_cap = o->cscratch_cap;
	}
#endif
	if (tb_pq_writer_init(&t->w, t->cols, n, &cfg, &e) != TB_OK ||
	    tb_pq_writer_set_kv(&t->w, kv, nkv, &e) != TB_OK) {
		if (!o->failed)
			out_error(o, t->path, e.what, 0);
		return -1;
	}
	return 0;
}

/* A row group went out: double the table's buffers (what the row after
 * it left in them moves along) while under the caps and the budget. */
static void table_grow(pq_out *o, pq_table *t)
{
	size_t i, more = 0;
	tb_error e;
	for (i = 0; i < t->ncols; i++) {
		size_t max = t->cols[i].kind == TB_PQ_INT ? INT_CAP : VAR_CAP;
		if (t->cols[i].cap < max)
			more += t->cols[i].cap;
	}
	if (!more || (t->fmt && more > BUF_BUDGET - (o->mem < BUF_BUDGET ? o->mem : BUF_BUDGET)))
		return;
	for (i = 0; i < t->ncols; i++) {
		tb_pq_column *c = &t->cols[i];
		size_t max = c->kind == TB_PQ_INT ? INT_CAP : VAR_CAP, cap = 2 * c->cap;
		uint8_t *nb, *old = c->buf;
		if (c->cap >= max)
			continue;
		if (!(nb = malloc(cap)))
			return; /* the buffers stay as they are: that works too */
		if (tb_pq_column_resize(&t->w, i, nb, cap, &e) != TB_OK) {
			free(nb);
			return;
		}
		free(old);
		if (t->fmt)
			o->mem += cap / 2;
	}
}

/* One write_row, growing the footer when asked; a value too large for
 * its column buffer becomes a null (counted). */
static int table_row(pq_out *o, pq_table *t)
{
	uint64_t groups = t->w.groups;
	tb_error e;
	tb_status st;
	for (;;) {
		st = tb_pq_write_row(&t->w, t->vals, &e);
		if (st == TB_ERR_NO_SPACE && !t->w.sticky) {
			size_t cap = t->w.footer_need * 2;
			uint8_t *nb = malloc(cap);
			if (!nb) {
				out_error(o, t->path, "out of memory", 0);
				return -1;
			}
			if (tb_pq_writer_set_footer(&t->w, nb, cap, &e) != TB_OK) {
				free(nb);
				out_error(o, t->path, e.what, 0);
				return -1;
			}
			free(t->footer);
			t->footer = nb;
			t->footer_cap = cap;
			continue;
		}
		if (st == TB_ERR_LIMIT && e.offset < t->ncols &&
		    (t->cols[e.offset].flags & TB_PQ_NULLABLE) && !t->vals[e.offset].is_null) {
			t->vals[e.offset].is_null = 1;
			t->too_large++;
			continue;
		}
		break;
	}
	if (st != TB_OK) {
		if (!o->failed)
			out_error(o, t->path, e.what, 0);
		return -1;
	}
	t->rows++;
	if (t->w.groups != groups)
		table_grow(o, t);
	/* many tables: close the file after a row group went out, and
	 * append when the next one does */
	if (t->w.groups != groups && o->nopen > MAX_OPEN && file_close(t))
		return -1;
	return 0;
}

static int table_finish(pq_out *o, pq_table *t)
{
	tb_error e;
	tb_status st;
	for (;;) {
		st = tb_pq_finish(&t->w, &e);
		if (st == TB_ERR_NO_SPACE && !t->w.sticky) {
			size_t cap = t->w.footer_need * 2;
			uint8_t *nb = malloc(cap);
			if (!nb || tb_pq_writer_set_footer(&t->w, nb, cap, &e) != TB_OK) {
				free(nb);
				out_error(o, t->path, "out of memory", 0);
				return -1;
			}
			free(t->footer);
			t->footer = nb;
			t->footer_cap = cap;
			continue;
		}
		break;
	}
	if (st != TB_OK) {
		if (!o->failed)
			out_error(o, t->path, e.what, 0);
		file_close(t);
		return -1;
	}
	if (!t->f && !t->opened) /* cannot happen: the magic was written */
		return -1;
	return file_close(t);
}

static void table_free(pq_table *t)
{
	size_t i;
	if (t->f) {
		fclose(t->f);
		t->o->nopen--;
	}
	for (i = 0; i < t->ncols; i++)
		free(t->cols[i].buf);
	free(t->cols);
	free(t->vals);
	free(t->rcols);
	free(t->footer);
	free(t->path);
	memset(t, 0, sizeof(*t));
}

/* ---- events ---- */

/* A comm longer than COMM_MAX is cut there (counted by events_row). */
static void comm_cut(tb_pq_value *v)
{
	if (!v->is_null && v->n > COMM_MAX)
		v->n = COMM_MAX;
}

static int mkdir_p(const char *dir);

static size_t slot_of(const pq_out *o, const tb_format *f, uint32_t buffer)
{
	uintptr_t h = ((uintptr_t)f >> 4) * 31u + buffer;
	size_t i = (size_t)(h * 0x9e3779b97f4a7c15ull >> 20) & (o->index_cap - 1);
	while (o->index[i].f && (o->index[i].f != f || o->index[i].buffer != buffer))
		i = (i + 1) & (o->index_cap - 1);
	return i;
}

static int index_add(pq_out *o, pq_table *t)
{
	size_t i;
	if (2 * (o->ntables + 1) > o->index_cap) {
		size_t cap = o->index_cap ? o->index_cap * 2 : 256, old = o->index_cap;
		pq_slot *prev = o->index;
		o->index = calloc(cap, sizeof(*o->index));
		if (!o->index) {
			o->index = prev;
			return -1;
		}
		o->index_cap = cap;
		for (i = 0; i < old; i++)
			if (prev[i].f)
				o->index[slot_of(o, prev[i].f, prev[i].buffer)] = prev[i];
		free(prev);
	}
	if (o->ntables % 64 == 0) {
		pq_table **n = realloc(o->tables, (o->ntables + 64) * sizeof(*n));
		if (!n)
			return -1;
		o->tables = n;
	}
	o->tables[o->ntables++] = t;
	i = slot_of(o, t->fmt, t->buffer);
	o->index[i].f = t->fmt;
	o->index[i].buffer = t->buffer;
	o->index[i].t = t;
	return 0;
}

/* The table of format f in buffer b: SYSTEM-EVENT.parquet, under
 * buffer-NAME/ for an instance's buffer; created on first use. */
static pq_table *format_table(pq_out *o, const tb_format *f, uint32_t b)
{
	const tb_session_buffer_info *bi;
	size_t at = 0, k;
	char file[600];
	pq_table *t;
	if (o->last && o->last->fmt == f && o->last->buffer == b)
		return o->last;
	if (o->index_cap) {
		pq_slot *sl = &o->index[slot_of(o, f, b)];
		if (sl->f)
			return o->last = sl->t;
	}
	bi = tb_session_buffer(o->c->s, b);
	t = calloc(1, sizeof(*t));
	if (!t || (t->fmt = f, t->buffer = b, index_add(o, t))) {
		free(t);
		out_error(o, o->dir, "out of memory", 0);
		return NULL;
	}
	if (bi && bi->name.len) {
		char *sub;
		memcpy(file, "buffer-", 7);
		at = 7;
		put_name(file, &at, bi->name.ptr, bi->name.len);
		file[at] = 0;
		sub = malloc(strlen(o->dir) + at + 2);
		if (!sub) {
			out_error(o, o->dir, "out of memory", 0);
			return NULL;
		}
		sprintf(sub, "%s/%s", o->dir, file);
		if (mkdir_p(sub)) {
			out_error(o, sub, "cannot create", errno);
			free(sub);
			return NULL;
		}
		free(sub);
		file[at++] = '/';
	}
	put_name(file, &at, f->system ? f->system : "", f->system ? f->system_len : 0);
	file[at++] = '-';
	put_name(file, &at, f->name, f->name_len);
	file[at] = 0;
	/* two formats that map to one name: the later one adds its id */
	for (k = 0; k + 1 < o->ntables; k++) {
		const pq_table *u = o->tables[k];
		size_t dl = strlen(o->dir);
		if (u->path && !strncmp(u->path + dl + 1, file, at) && u->path[dl + 1 + at] == '.') {
			at += (size_t)snprintf(file + at, sizeof(file) - at, ".%u", f->id);
			break;
		}
	}
	snprintf(file + at, sizeof(file) - at, ".parquet");
	if (table_start(o, t, f, file, NULL, 0))
		return NULL;
	/* many tables: the file is reopened when its first row group goes out */
	if (o->nopen > MAX_OPEN && file_close(t))
		return NULL;
	return o->last = t;
}

/* The events table's row (R_EVENTS): 0, or -1 when it could not go out. */
static int events_row(pq_out *o, const tb_session_event *ev)
{
	pq_table *all = &o->all;
	o->events++;
	if (!ev->format)
		o->no_format++;
	if (ev->comm_len > COMM_MAX)
		o->comms_cut++;
	(void)tb_rows_values(o->c->s, ev, all->rcols, all->ncols, NULL, 0, all->vals);
	comm_cut(&all->vals[C_COMM]);
	if (o->text) {
		tb_pq_value *v = &all->vals[all->ncols - 1];
		if (tb_cli_render(o->c, ev, TB_TEXT_PRINT, &o->line) != 0) {
			out_error(o, o->dir, "out of memory", 0);
			return -1;
		}
		v->is_null = 0;
		v->p = o->line.p;
		v->n = o->line.len;
	}
	return table_row(o, all);
}

/* The event's row in its format's table t (R_FORMATS): a field that does
 * not read is a null, and the record is counted. */
static void format_row(pq_out *o, const tb_session_event *ev, pq_table *t)
{
	if (tb_rows_values(o->c->s, ev, t->rcols, t->ncols, o->fv, TB_FORMAT_MAX_FIELDS,
			   t->vals) != TB_OK)
		o->bad_records++;
	comm_cut(&t->vals[C_COMM]);
	table_row(o, t);
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

static int events_row(pq_out *o, const tb_session_event *ev);

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
		events_row(eo, &ev);
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

static void out_error(pq_out *o, const char *path, const char *what, int err);

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
	r.comm_len = (uint32_t)(ev->comm_len <= COMM_MAX ? ev->comm_len : COMM_MAX + 1);
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

static void format_event(pq_out *o, const tb_session_event *ev);

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
				format_event(o, &ev);
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

/* The event's row in its format's table (R_FORMATS). */
static void format_event(pq_out *o, const tb_session_event *ev)
{
	pq_table *t = format_table(o, ev->format, ev->buffer);
	if (t)
		format_row(o, ev, t);
}

static void on_event(pq_out *o, const tb_session_event *ev)
{
	pq_table *t = NULL;
	if (o->failed)
		return;
	if (o->queue && (ev->format || o->sh->share) && q_put(o, ev)) {
		o->failed = 1; /* said by q_put or by the other side */
		return;
	}
	if ((o->roles & R_FORMATS) && ev->format &&
	    !(t = format_table(o, ev->format, ev->buffer)))
		return;
	if ((o->roles & R_EVENTS) && events_row(o, ev))
		return;
	if (t)
		format_row(o, ev, t);
}

/* metadata.json's CPUs of one buffer (tb_ds_foreach_cpu) */
typedef struct json_cpus {
	FILE *m;
	size_t buffer;
	int first;
} json_cpus;

static int json_cpu(void *ctx, size_t buffer, uint32_t cpu, const tb_session_cpu_stats *cs)
{
	json_cpus *j = ctx;
	if (buffer != j->buffer)
		return 0;
	fprintf(j->m, "%s{\"cpu\":%u,\"events\":%llu,\"pages\":%llu,\"dropped\":%llu,"
		      "\"drops_unknown\":%llu,\"malformed_pages\":%llu}",
		j->first ? "" : ",", cpu, (unsigned long long)cs->events,
		(unsigned long long)cs->pages, (unsigned long long)cs->dropped,
		(unsigned long long)cs->drops_unknown, (unsigned long long)cs->damaged_pages);
	j->first = 0;
	return 0;
}

/* ---- metadata.json ---- */

static void json_kv(FILE *m, const char *key, const char *s, size_t n, int comma)
{
	fprintf(m, "%s\"%s\":", comma ? "," : "", key);
	tb_cli_json_str(m, s ? s : "", s ? n : 0);
}

/* o: the walk's side; eo: the events table's; fo: the per-event tables'
 * (with one thread, all three are the same). */
static int write_metadata(pq_out *o, const pq_out *eo, const pq_out *fo, const char *src,
			  const char *id)
{
	/* src: the source as the metadata says it; id: the trace id.
	 * metadata.parquet, then metadata.json */
	const tb_session_info *in = o->info;
	char *path = malloc(strlen(o->dir) + 16);
	FILE *m;
	size_t i, k, nd = tb_session_ndamage(o->c->s), nformat_damage = 0;
	tb_ds_counts n;
	if (!path) {
		out_error(o, o->dir, "out of memory", 0);
		return -1;
	}
	for (i = 0; i < nd; i++)
		nformat_damage += !strcmp(tb_session_damage_at(o->c->s, i)->where, "event format");
	n.events = eo->events;
	n.no_format = eo->no_format;
	n.bad_pages = o->bad_pages;
	n.bad_records = fo->bad_records;
	n.comms_cut = eo->comms_cut;
	n.formats_rejected = nformat_damage;
	if (tb_ds_write_meta(o->dir, src, id, o->c->s, o->raw, o->nraw, &n)) {
		o->failed = 1; /* (said) */
		free(path);
		return -1;
	}
	sprintf(path, "%s/metadata.json", o->dir);
	m = fopen(path, "w");
	if (!m) {
		out_error(o, path, "cannot open", errno);
		free(path);
		return -1;
	}
	fprintf(m, "{\"tracebound_version\":\"%s\"", tb_version());
	json_kv(m, "trace_id", id, strlen(id), 1);
	json_kv(m, "source", src, strlen(src), 1);
	if (in->is_dat)
		fprintf(m, ",\"container\":\"trace.dat v%u\"", in->dat_version);
	else
		fprintf(m, ",\"container\":\"raw\"");
	json_kv(m, "compression", in->compression.len ? in->compression.ptr : "none",
		in->compression.len ? in->compression.len : 4, 1);
	json_kv(m, "uname", in->uname.ptr, in->uname.len, 1);
	json_kv(m, "clock", in->clock.ptr, in->clock.len, 1); /* the session's tb_clock_parse */
	json_kv(m, "trace_clock", in->clock.ptr, in->clock.len, 1);
	fprintf(m, ",\"ts_offset\":%lld,\"big_endian\":%s,\"long_size\":%u",
		(long long)in->ts_offset, in->big_endian ? "true" : "false", in->long_size);
	fprintf(m, ",\"events\":%llu,\"events_without_format\":%llu,\"malformed_pages\":%llu",
		(unsigned long long)eo->events, (unsigned long long)eo->no_format,
		(unsigned long long)o->bad_pages);
	fprintf(m, ",\"records_with_unreadable_fields\":%llu,\"comms_cut\":%llu",
		(unsigned long long)fo->bad_records, (unsigned long long)eo->comms_cut);
	fprintf(m, ",\"formats_rejected\":%zu,\"damage\":[", nformat_damage);
	for (i = 0; i < nd; i++) {
		const tb_session_damage *dm = tb_session_damage_at(o->c->s, i);
		fprintf(m, "%s{", i ? "," : "");
		json_kv(m, "where", dm->where, strlen(dm->where), 0);
		json_kv(m, "what", dm->error.what, strlen(dm->error.what), 1);
		fprintf(m, ",\"offset\":%llu,\"index\":%zu}", (unsigned long long)dm->error.offset,
			dm->index);
	}
	fprintf(m, "],\"buffers\":[");
	for (i = 0; i < in->nbuffers; i++) {
		const tb_session_buffer_info *b = tb_session_buffer(o->c->s, i);
		json_cpus j = { m, i, 1 };
		fprintf(m, "%s{", i ? "," : "");
		json_kv(m, "name", b->name.ptr, b->name.len, 0);
		json_kv(m, "clock", b->clock.ptr, b->clock.len, 1);
		fprintf(m, ",\"page_size\":%u,\"cpus\":[", b->page_size);
		(void)tb_ds_foreach_cpu(o->c->s, o->raw, o->nraw, json_cpu, &j);
		fprintf(m, "]}");
	}
	fprintf(m, "],\"tables\":[{\"file\":\"events.parquet\",\"rows\":%llu}",
		(unsigned long long)eo->all.rows);
	for (i = 0; i < fo->ntables; i++) {
		const pq_table *t = fo->tables[i];
		int fb = 1;
		const char *file;
		if (!t->path)
			continue;
		file = t->path + strlen(o->dir) + 1;
		fprintf(m, ",{");
		json_kv(m, "file", file, strlen(file), 0);
		fprintf(m, ",\"buffer\":%u", t->buffer);
		json_kv(m, "system", t->fmt->system, t->fmt->system_len, 1);
		json_kv(m, "name", t->fmt->name, t->fmt->name_len, 1);
		fprintf(m, ",\"id\":%u,\"rows\":%llu,\"values_too_large\":%llu,\"binary_columns\":[",
			t->fmt->id, (unsigned long long)t->rows, (unsigned long long)t->too_large);
		for (k = 0; k < t->ncols; k++)
			if ((t->cols[k].flags & TB_PQ_TEXT) && t->cols[k].non_utf8) {
				fprintf(m, "%s", fb ? "" : ",");
				tb_cli_json_str(m, t->cols[k].name, t->cols[k].name_len);
				fb = 0;
			}
		fprintf(m, "]}");
	}
	fprintf(m, "]}\n");
	if (ferror(m) | fclose(m)) {
		out_error(o, path, "write failed", errno);
		free(path);
		return -1;
	}
	free(path);
	return 0;
}

/* ---- one capture ---- */

static int mkdir_one(const char *dir)
{
	struct stat sb;
	if (mkdir(dir, 0777) == 0 || (errno == EEXIST && stat(dir, &sb) == 0 && S_ISDIR(sb.st_mode)))
		return 0;
	return -1;
}

/* mkdir -p: each parent, then the directory. */
static int mkdir_p(const char *dir)
{
	char *p = strdup(dir), *s;
	int rc;
	if (!p)
		return -1;
	for (s = p + 1; *s; s++)
		if (*s == '/') {
			*s = 0;
			if (mkdir_one(p)) {
				free(p);
				return -1;
			}
			*s = '/';
		}
	rc = mkdir_one(p);
	free(p);
	return rc;
}

/* Scratch memory of one writing thread. */
typedef struct pq_mem {
	uint8_t *scratch, *cscratch, *dict;
	size_t scap, ccap, dcap;
	void *zc;
} pq_mem;

static int mem_alloc(pq_mem *m)
{
	/* the largest column buffer: four of the largest pages (grown
	 * buffers stay below 2 * VAR_CAP, less than that) */
	m->scap = tb_pq_scratch_size(4 * (size_t)TB_DAT_PAGE_MAX);
	m->scratch = malloc(m->scap);
	m->dcap = tb_pq_dict_size(4 * (size_t)TB_DAT_PAGE_MAX);
	m->dict = malloc(m->dcap);
	m->ccap = 0;
	m->cscratch = NULL;
	m->zc = NULL;
#ifdef TB_HAVE_ZSTD
	m->ccap = ZSTD_compressBound(m->scap);
	m->cscratch = malloc(m->ccap);
	m->zc = ZSTD_createCCtx();
	if (!m->cscratch || !m->zc)
		return -1;
#endif
	return m->scratch && m->dict ? 0 : -1;
}

static void mem_free(pq_mem *m)
{
	free(m->scratch);
	free(m->dict);
	free(m->cscratch);
#ifdef TB_HAVE_ZSTD
	ZSTD_freeCCtx(m->zc);
#endif
	memset(m, 0, sizeof(*m));
}

static void out_init(pq_out *o, unsigned roles, pq_shared *sh, tb_cli_capture *c,
		     const char *dir, int text, const pq_mem *m,
		     const tb_session_raw_cpu *raw, size_t nraw)
{
	size_t b;
	memset(o, 0, sizeof(*o));
	o->roles = roles;
	o->sh = sh;
	o->dir = dir;
	o->text = text;
	o->scratch = m->scratch;
	o->scratch_cap = m->scap;
	o->cscratch = m->cscratch;
	o->cscratch_cap = m->ccap;
	o->dict = m->dict;
	o->dict_cap = m->dcap;
	o->var_min = VAR_MIN;
#ifdef TB_HAVE_ZSTD
	o->zc = m->zc;
#endif
	o->c = c;
	o->raw = raw;
	o->nraw = nraw;
	o->info = tb_session_get_info(c->s);
	for (b = 0; b < o->info->nbuffers; b++) {
		const tb_session_buffer_info *bi = tb_session_buffer(c->s, b);
		if (bi && 4 * (size_t)bi->page_size > o->var_min)
			o->var_min = 4 * (size_t)bi->page_size;
	}
	if (o->var_min > 4 * (size_t)TB_DAT_PAGE_MAX)
		o->var_min = 4 * (size_t)TB_DAT_PAGE_MAX;
}

static void out_free(pq_out *o)
{
	size_t i;
	if (o->all.cols)
		table_free(&o->all);
	for (i = 0; i < o->ntables; i++) {
		table_free(o->tables[i]);
		free(o->tables[i]);
	}
	free(o->tables);
	free(o->index);
	free(o->fv);
	free(o->line.p);
}

/* The events table of the capture at path, in o. */
static int events_start(pq_out *o, const char *path)
{
	tb_pq_kv *kv = o->kv; /* borrowed by the writer until it finishes */
	kv[0].key = "tracebound.source";
	kv[0].key_len = 17;
	kv[0].value = path;
	kv[0].value_len = strlen(path);
	kv[1].key = "tracebound.table";
	kv[1].key_len = 16;
	kv[1].value = "events";
	kv[1].value_len = 6;
	return table_start(o, &o->all, NULL, "events.parquet", kv, 2);
}

/* Walk the capture (the main thread) into o's tables, or the queue, and
 * say what the walk met on stderr, as it meets it; then finish o's
 * tables. */
static void out_walk(pq_out *o, const char *path)
{
	tb_session_event ev;
	tb_error e;
	tb_status st;
	uint64_t seen = 0;
	int progress = isatty(2);
	size_t i;
	if (o->failed || ((o->roles & R_EVENTS) && events_start(o, path)))
		return;
	while (!o->failed && !atomic_load(&o->sh->stop) &&
	       (st = tb_session_next(o->c->s, &ev, &e)) != TB_END) {
		if (st != TB_OK) {
			o->bad_pages++;
			o->malformed = 1;
			tb_cli_print_page_error(o->c, &e);
			continue;
		}
		if (progress && (seen & 0xfffff) == 0 && seen)
			fprintf(stderr, "\r%s: %llu events", path, (unsigned long long)seen);
		seen++;
		on_event(o, &ev);
	}
	if (progress && seen > 0xfffff)
		fprintf(stderr, "\r\n");
	/* tables or formats that did not parse: said on stderr, malformed */
	tb_cli_print_damage(o->c, stderr);
	if (tb_session_ndamage(o->c->s))
		o->malformed = 1;
	if ((o->roles & R_EVENTS) && !o->failed)
		table_finish(o, &o->all);
	for (i = 0; i < o->ntables && !o->failed; i++)
		table_finish(o, o->tables[i]);
}

static void *formats_thread(void *arg)
{
	pq_out *o = arg;
	size_t i;
	q_take_all(o);
	for (i = 0; i < o->ntables && !o->failed; i++)
		table_finish(o, o->tables[i]);
	return NULL;
}

/* Convert the opened capture c into dir (c is closed here): on two
 * threads when jobs > 1.  src, id: for the metadata. */
static int convert_capture(tb_cli_capture *cp, const char *dir, const char *path, int text,
			   const pq_mem *m, int jobs, const tb_session_raw_cpu *raw, size_t nraw,
			   const char *src, const char *id)
{
	tb_cli_capture c = *cp;
	pq_shared sh;
	/* the taker's state writes every event: lines of its own (pq_shared) */
	struct { _Alignas(CACHE_LINE) pq_out o; } taker, rows;
	pq_out o, *o2 = &taker.o, *eo = &o;
	pq_mem m2;
	pthread_t th;
	int two = 0, failed, malformed, k, nchunks = 0;
	memset(&sh, 0, sizeof(sh));
	atomic_init(&sh.stop, 0);
	atomic_init(&sh.said, 0);
	memset(&m2, 0, sizeof(m2));
	memset(o2, 0, sizeof(*o2));
	out_init(&o, R_EVENTS | R_FORMATS, &sh, &c, dir, text, m, raw, nraw);
	o.fv = calloc(TB_FORMAT_MAX_FIELDS, sizeof(*o.fv));
	if (!o.fv || mkdir_p(dir)) {
		out_error(&o, dir, o.fv ? "cannot create" : "out of memory", o.fv ? errno : 0);
		goto done;
	}
	if (jobs > 1 && mem_alloc(&m2) == 0) {
		for (nchunks = 0; nchunks < Q_CHUNKS; nchunks++)
			if (!(sh.chunk[nchunks] = malloc(Q_CHUNK)))
				break;
	}
	if (nchunks == Q_CHUNKS) {
		pthread_mutex_init(&sh.mu, NULL);
		pthread_cond_init(&sh.cv, NULL);
		out_init(o2, R_FORMATS, &sh, &c, dir, text, &m2, raw, nraw);
		o2->fv = o.fv;
		o.roles = R_EVENTS;
		o.queue = 1;
		if (!text) {
			/* the events table's rows from the queue (pq_shared) */
			eo = &rows.o;
			out_init(eo, R_EVENTS, &sh, &c, dir, text, m, raw, nraw);
			if (events_start(eo, path) == 0) {
				o.roles = 0;
				sh.share = 1;
				sh.evo = eo;
			}
		}
		two = !eo->failed && pthread_create(&th, NULL, formats_thread, o2) == 0;
		if (!two) {
			/* one thread after all */
			o2->fv = NULL;
			o.roles = R_EVENTS | R_FORMATS;
			o.queue = 0;
			sh.share = 0;
			if (eo != &o) {
				o.failed = eo->failed; /* (said) */
				out_free(eo);
				eo = &o;
			}
		} else {
			o.fv = NULL;
		}
	}
	out_walk(&o, path);
	if (two) {
		q_finish(&sh);
		if (eo != &o && !eo->failed && !o.failed && !atomic_load(&sh.stop))
			table_finish(eo, &eo->all);
		pthread_join(th, NULL);
		pthread_cond_destroy(&sh.cv);
		pthread_mutex_destroy(&sh.mu);
	} else if (nchunks == Q_CHUNKS) {
		pthread_cond_destroy(&sh.cv);
		pthread_mutex_destroy(&sh.mu);
	}
	if (!o.failed && !(two && o2->failed) && !eo->failed)
		write_metadata(&o, eo, two ? o2 : &o, src, id);
done:
	failed = o.failed || (two && o2->failed) || eo->failed;
	malformed = o.malformed;
	out_free(&o);
	if (two)
		out_free(o2);
	if (eo != &o)
		out_free(eo);
	for (k = 0; k < nchunks; k++)
		free(sh.chunk[k]);
	mem_free(&m2);
	tb_cli_capture_close(&c);
	memset(cp, 0, sizeof(*cp));
	if (failed)
		return TB_EXIT_USAGE;
	return malformed ? TB_EXIT_MALFORMED : TB_EXIT_OK;
}


/* The opened capture c (closed here) as the upload id of the dataset
 * root: staged, converted, published (dataset.h).  An upload already
 * there is left as it is. */
static int convert_upload(tb_cli_capture *c, const char *root, const char *path,
			  const char *id, int text, const pq_mem *m, int jobs,
			  const tb_session_raw_cpu *raw, size_t nraw)
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
		rc = convert_capture(c, st.dir, path, text, m, jobs, raw, nraw, src ? src : name, id);
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

static int convert_dat(const char *root, const char *path, int text, const pq_mem *m, int jobs)
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
	return convert_upload(&c, root, path, id, text, m, jobs, c.raw, c.nraw);
}

/* ---- raw dumps: the library's source rule (source.h) ---- */

static int convert_raw(const char *dir, const char *events, const char *hp_path,
		       char **files, int nfiles, int text, const pq_mem *m, int jobs)
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
	return convert_upload(&c, dir, files[0], id, text, m, jobs, c.raw, c.nraw);
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
	pq_mem m;
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
	if (mkdir_p(outdir)) {
		fprintf(stderr, "tracebound: %s: cannot create: %s\n", outdir, strerror(errno));
		return TB_EXIT_USAGE;
	}
	if (mem_alloc(&m)) {
		fprintf(stderr, "tracebound: out of memory\n");
		mem_free(&m);
		return TB_EXIT_USAGE;
	}
	if (events) {
		/* the dumps are one upload */
		rc = convert_raw(outdir, events, hp, argv + i, nfiles, text, &m, jobs);
	} else {
		for (k = 0; k < nfiles; k++) {
			int r = convert_dat(outdir, argv[i + k], text, &m, jobs);
			if (r > rc)
				rc = r;
		}
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "tracebound: stdout: write failed: %s\n", strerror(errno));
		rc = TB_EXIT_USAGE;
	}
	mem_free(&m);
	return rc;
}
