/*
 * A session's events as Parquet tables (include/tracebound/pq_session.h):
 * which table an event goes to, its row (rows.h), the tables' memory and
 * their outputs.  The bytes are lib/parquet.c's.
 */
#include <string.h>

#include "internal.h"
#include "tracebound/pq_session.h"

/* __comm is the fourth column of every table (rows.h). */
enum { C_COMM = 3 };

typedef struct pqs_table {
	tb_pq_session_table pub;
	tb_pq_session *w;
	char name[TB_PQ_SESSION_MAX_NAME];
	void *out;                 /* the caller's output, NULL: closed */
	int opened;                /* it was opened (reopen appends) */
	tb_rows_column *rcols;
	tb_pq_column *cols;
	tb_pq_value *vals;
	size_t ncols;
	tb_pq_writer pw;
	uint8_t *footer;
	size_t footer_cap;
} pqs_table;

/* Format tables by (format, buffer): open addressing, grown at half full. */
typedef struct pqs_slot {
	const tb_format *f;
	uint32_t buffer;
	pqs_table *t;
} pqs_slot;

struct tb_pq_session {
	const tb_session *s;
	tb_mem mem;
	tb_pq_session_config cfg;
	tb_pq_session_io io;
	tb_status failed;          /* sticky */
	tb_error failed_err;
	pqs_table *all;            /* the events table (EVENTS) */
	pqs_table **tables;        /* format tables, in order of creation */
	size_t ntables, tables_cap;
	pqs_slot *index;
	size_t index_cap;
	pqs_table *last;           /* the table of the previous event */
	size_t nopen;
	uint8_t *scratch, *cscratch, *dict;
	size_t scratch_cap, cscratch_cap, dict_cap;
	size_t var_min;            /* first buffer of a byte or list column */
	size_t mem_used;           /* bytes of the format tables' column buffers */
	tb_field_value *fv;        /* one record's decoded fields (FORMATS) */
	tb_pq_kv kv[2];            /* the events table's key/values */
	tb_pq_session_counts counts;
};

static void *mem_get(tb_pq_session *w, size_t n)
{
	return n ? w->mem.alloc(w->mem.ctx, n) : NULL;
}

static void mem_put(const tb_mem *m, void *p, size_t n)
{
	if (p && m->free)
		m->free(m->ctx, p, n);
}

/* Make the first error sticky; every later call returns it. */
static tb_status fail(tb_pq_session *w, tb_error *err, tb_status st, const tb_error *e,
		      const char *what)
{
	if (!w->failed) {
		w->failed = st;
		w->failed_err.status = st;
		w->failed_err.offset = e ? e->offset : 0;
		w->failed_err.what = e ? e->what : what;
	}
	if (err)
		*err = w->failed_err;
	return w->failed;
}

static tb_status no_mem(tb_pq_session *w, tb_error *err)
{
	return fail(w, err, TB_ERR_NO_SPACE, NULL, "out of memory");
}

/* ---- the outputs ---- */

static tb_status out_write(void *ctx, const void *p, size_t n)
{
	pqs_table *t = ctx;
	tb_pq_session *w = t->w;
	if (!t->out) {
		tb_status st = w->io.open(w->io.ctx, t->name, t->opened, &t->out);
		if (st != TB_OK || !t->out)
			return st != TB_OK ? st : TB_ERR_ARG;
		t->opened = 1;
		w->nopen++;
	}
	return w->io.write(w->io.ctx, t->out, p, n);
}

static tb_status out_close(pqs_table *t)
{
	tb_status st = TB_OK;
	if (t->out) {
		st = t->w->io.close(t->w->io.ctx, t->out);
		t->out = NULL;
		t->w->nopen--;
	}
	return st;
}

/* ---- tables ---- */

/* A name from system and event names (from the capture: anything outside
 * [A-Za-z0-9_.+-] becomes '_', and so does a leading '.'). */
static void put_name(char *dst, size_t *at, const char *s, size_t n)
{
	size_t i;
	for (i = 0; i < n && i < 128; i++) {
		char c = s[i];
		int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			 (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '+' ||
			 (c == '.' && i);
		if (!ok)
			c = '_';
		dst[(*at)++] = c;
	}
}

static void table_free(tb_pq_session *w, pqs_table *t)
{
	size_t i;
	if (t->out)
		(void)out_close(t);
	for (i = 0; t->cols && i < t->ncols; i++)
		mem_put(&w->mem, t->cols[i].buf, t->cols[i].cap);
	mem_put(&w->mem, t->cols, t->ncols * sizeof(*t->cols));
	mem_put(&w->mem, t->vals, t->ncols * sizeof(*t->vals));
	mem_put(&w->mem, t->rcols, t->ncols * sizeof(*t->rcols));
	mem_put(&w->mem, t->footer, t->footer_cap);
	mem_put(&w->mem, t, sizeof(*t));
}

/* A table of format fmt (NULL: the events table) named t->name: its
 * columns, buffers and Parquet writer (the magic goes out). */
static tb_status table_start(tb_pq_session *w, pqs_table *t, const tb_format *fmt,
			     const tb_pq_kv *kv, size_t nkv, tb_error *err)
{
	unsigned rflags = (w->cfg.flags & TB_PQ_SESSION_TEXT) ? TB_ROWS_WITH_TEXT : 0;
	size_t i, n = tb_rows_columns(fmt, rflags, NULL, 0);
	tb_pq_config cfg;
	tb_error e;
	t->w = w;
	t->pub.format = fmt;
	t->pub.name = t->name;
	t->cols = mem_get(w, n * sizeof(*t->cols));
	t->vals = mem_get(w, n * sizeof(*t->vals));
	t->rcols = mem_get(w, n * sizeof(*t->rcols));
	t->footer_cap = 4096;
	t->footer = mem_get(w, t->footer_cap);
	if (!t->cols || !t->vals || !t->rcols || !t->footer) {
		/* the table is freed by its owner: sizes as asked */
		t->ncols = n;
		if (t->cols)
			memset(t->cols, 0, n * sizeof(*t->cols));
		return no_mem(w, err);
	}
	memset(t->cols, 0, n * sizeof(*t->cols));
	memset(t->vals, 0, n * sizeof(*t->vals));
	t->ncols = n;
	t->pub.cols = t->cols;
	t->pub.ncols = n;
	(void)tb_rows_columns(fmt, rflags, t->rcols, n);
	for (i = 0; i < n; i++)
		tb_rows_pq_column(&t->rcols[i], &t->cols[i]);
	for (i = 0; i < n; i++) {
		tb_pq_column *c = &t->cols[i];
		size_t cap = c->kind == TB_PQ_INT ? TB_PQ_SESSION_INT_START : w->var_min;
		if (!(c->buf = mem_get(w, cap)))
			return no_mem(w, err);
		c->cap = cap;
		if (fmt)
			w->mem_used += cap;
	}
	memset(&cfg, 0, sizeof(cfg));
	cfg.write = out_write;
	cfg.write_ctx = t;
	cfg.scratch = w->scratch;
	cfg.scratch_cap = w->scratch_cap;
	cfg.dict = w->dict;
	cfg.dict_cap = w->dict_cap;
	cfg.footer = t->footer;
	cfg.footer_cap = t->footer_cap;
	if (w->io.compress) {
		cfg.compress = w->io.compress;
		cfg.compress_ctx = w->io.compress_ctx;
		cfg.codec = w->io.codec;
		cfg.cscratch = w->cscratch;
		cfg.cscratch_cap = w->cscratch_cap;
	}
	if (tb_pq_writer_init(&t->pw, t->cols, n, &cfg, &e) != TB_OK ||
	    tb_pq_writer_set_kv(&t->pw, kv, nkv, &e) != TB_OK)
		return fail(w, err, e.status, &e, NULL);
	return TB_OK;
}

/* A row group went out: double the table's buffers (what the row after
 * it left in them moves along) while under the caps and the budget.  A
 * buffer the tb_mem refuses: the buffers stay as they are (that works too). */
static void table_grow(tb_pq_session *w, pqs_table *t)
{
	size_t i, more = 0, budget = TB_PQ_SESSION_BUDGET;
	tb_error e;
	for (i = 0; i < t->ncols; i++) {
		size_t max = t->cols[i].kind == TB_PQ_INT ? TB_PQ_SESSION_INT_CAP
							  : TB_PQ_SESSION_VAR_CAP;
		if (t->cols[i].cap < max)
			more += t->cols[i].cap;
	}
	if (!more || (t->pub.format && more > budget - (w->mem_used < budget ? w->mem_used : budget)))
		return;
	for (i = 0; i < t->ncols; i++) {
		tb_pq_column *c = &t->cols[i];
		size_t max = c->kind == TB_PQ_INT ? TB_PQ_SESSION_INT_CAP : TB_PQ_SESSION_VAR_CAP;
		size_t cap = 2 * c->cap, old_cap = c->cap;
		uint8_t *nb, *old = c->buf;
		if (c->cap >= max)
			continue;
		if (!(nb = mem_get(w, cap)))
			return;
		if (tb_pq_column_resize(&t->pw, i, nb, cap, &e) != TB_OK) {
			mem_put(&w->mem, nb, cap);
			return;
		}
		mem_put(&w->mem, old, old_cap);
		if (t->pub.format)
			w->mem_used += old_cap;
	}
}

/* The footer ran out of room: move it to one of twice what it needs. */
static tb_status footer_grow(tb_pq_session *w, pqs_table *t, tb_error *err)
{
	size_t cap = t->pw.footer_need * 2;
	uint8_t *nb = cap / 2 == t->pw.footer_need ? mem_get(w, cap) : NULL;
	tb_error e;
	if (!nb)
		return no_mem(w, err);
	if (tb_pq_writer_set_footer(&t->pw, nb, cap, &e) != TB_OK) {
		mem_put(&w->mem, nb, cap);
		return fail(w, err, e.status, &e, NULL);
	}
	mem_put(&w->mem, t->footer, t->footer_cap);
	t->footer = nb;
	t->footer_cap = cap;
	return TB_OK;
}

/* One write_row, growing the footer when asked; a value too large for
 * its column buffer becomes a null (counted). */
static tb_status table_row(tb_pq_session *w, pqs_table *t, tb_error *err)
{
	uint64_t groups = t->pw.groups;
	tb_error e;
	tb_status st;
	for (;;) {
		st = tb_pq_write_row(&t->pw, t->vals, &e);
		if (st == TB_ERR_NO_SPACE && !t->pw.sticky) {
			if (footer_grow(w, t, err) != TB_OK)
				return w->failed;
			continue;
		}
		if (st == TB_ERR_LIMIT && e.offset < t->ncols &&
		    (t->cols[e.offset].flags & TB_PQ_NULLABLE) && !t->vals[e.offset].is_null) {
			t->vals[e.offset].is_null = 1;
			t->pub.too_large++;
			continue;
		}
		break;
	}
	if (st != TB_OK)
		return fail(w, err, st, &e, NULL);
	t->pub.rows++;
	if (t->pw.groups == groups)
		return TB_OK;
	table_grow(w, t);
	/* many tables: close the output after a row group went out, and
	 * append when the next one does */
	if (w->nopen > w->cfg.max_open && (st = out_close(t)) != TB_OK)
		return fail(w, err, st, NULL, "close failed");
	return TB_OK;
}

static tb_status table_finish(tb_pq_session *w, pqs_table *t, tb_error *err)
{
	tb_error e;
	tb_status st;
	for (;;) {
		st = tb_pq_finish(&t->pw, &e);
		if (st == TB_ERR_NO_SPACE && !t->pw.sticky) {
			if (footer_grow(w, t, err) != TB_OK)
				return w->failed;
			continue;
		}
		break;
	}
	if (st != TB_OK)
		return fail(w, err, st, &e, NULL);
	if ((st = out_close(t)) != TB_OK)
		return fail(w, err, st, NULL, "close failed");
	return TB_OK;
}

/* ---- format tables ---- */

static size_t slot_of(const tb_pq_session *w, const tb_format *f, uint32_t buffer)
{
	uintptr_t h = ((uintptr_t)f >> 4) * 31u + buffer;
	size_t i = (size_t)((uint64_t)h * 0x9e3779b97f4a7c15ull >> 20) & (w->index_cap - 1);
	while (w->index[i].f && (w->index[i].f != f || w->index[i].buffer != buffer))
		i = (i + 1) & (w->index_cap - 1);
	return i;
}

/* t into the list and the index (grown as needed): 0, or -1 (memory). */
static int index_add(tb_pq_session *w, pqs_table *t)
{
	size_t i;
	if (2 * (w->ntables + 1) > w->index_cap) {
		size_t cap = w->index_cap ? w->index_cap * 2 : 256, old = w->index_cap;
		pqs_slot *prev = w->index, *nx = mem_get(w, cap * sizeof(*nx));
		if (!nx)
			return -1;
		memset(nx, 0, cap * sizeof(*nx));
		w->index = nx;
		w->index_cap = cap;
		for (i = 0; i < old; i++)
			if (prev[i].f)
				w->index[slot_of(w, prev[i].f, prev[i].buffer)] = prev[i];
		mem_put(&w->mem, prev, old * sizeof(*prev));
	}
	if (w->ntables == w->tables_cap) {
		size_t cap = w->tables_cap + 64;
		pqs_table **nl = mem_get(w, cap * sizeof(pqs_table *));
		if (!nl)
			return -1;
		if (w->ntables)
			memcpy(nl, w->tables, w->ntables * sizeof(pqs_table *));
		mem_put(&w->mem, w->tables, w->tables_cap * sizeof(pqs_table *));
		w->tables = nl;
		w->tables_cap = cap;
	}
	w->tables[w->ntables++] = t;
	i = slot_of(w, t->pub.format, t->pub.buffer);
	w->index[i].f = t->pub.format;
	w->index[i].buffer = t->pub.buffer;
	w->index[i].t = t;
	return 0;
}

/* t->name: SYSTEM-EVENT.parquet, under buffer-NAME/ for an instance's
 * buffer; a name an earlier table has gets the format's id. */
static void table_name(tb_pq_session *w, pqs_table *t, const tb_format *f, uint32_t b)
{
	const tb_session_buffer_info *bi = tb_session_buffer(w->s, b);
	char *file = t->name;
	size_t at = 0, k;
	if (bi && bi->name.len) {
		memcpy(file, "buffer-", 8); /* (its NUL is written over) */
		at = 7;
		put_name(file, &at, bi->name.ptr, bi->name.len);
		file[at++] = '/';
	}
	put_name(file, &at, f->system ? f->system : "", f->system ? f->system_len : 0);
	file[at++] = '-';
	put_name(file, &at, f->name, f->name_len);
	for (k = 0; k + 1 < w->ntables; k++) {
		const char *u = w->tables[k]->name;
		if (strlen(u) > at && !memcmp(u, file, at) && u[at] == '.') {
			/* ".%u": the id in decimal */
			char d[12];
			size_t nd = 0;
			uint32_t id = f->id;
			do
				d[nd++] = (char)('0' + id % 10u);
			while ((id /= 10u) != 0);
			file[at++] = '.';
			while (nd)
				file[at++] = d[--nd];
			break;
		}
	}
	/* at <= 7 + 128 + 1 + 128 + 1 + 128 + 11: room for the suffix */
	memcpy(file + at, ".parquet", 9);
}

/* The table of format f in buffer b, created on first use. */
static pqs_table *format_table(tb_pq_session *w, const tb_format *f, uint32_t b,
			       tb_error *err)
{
	pqs_table *t;
	if (w->last && w->last->pub.format == f && w->last->pub.buffer == b)
		return w->last;
	if (w->index_cap) {
		pqs_slot *sl = &w->index[slot_of(w, f, b)];
		if (sl->f)
			return w->last = sl->t;
	}
	t = mem_get(w, sizeof(*t));
	if (t) {
		memset(t, 0, sizeof(*t));
		t->pub.format = f;
		t->pub.buffer = b;
	}
	if (!t || index_add(w, t)) {
		mem_put(&w->mem, t, sizeof(*t));
		(void)no_mem(w, err);
		return NULL;
	}
	table_name(w, t, f, b);
	if (table_start(w, t, f, NULL, 0, err) != TB_OK)
		return NULL;
	/* many tables: the output is reopened when its first row group goes out */
	if (w->nopen > w->cfg.max_open) {
		tb_status st = out_close(t);
		if (st != TB_OK) {
			(void)fail(w, err, st, NULL, "close failed");
			return NULL;
		}
	}
	return w->last = t;
}

/* ---- the writer ---- */

/* A comm longer than TB_PQ_SESSION_COMM_MAX is cut there. */
static void comm_cut(tb_pq_value *v)
{
	if (!v->is_null && v->n > TB_PQ_SESSION_COMM_MAX)
		v->n = TB_PQ_SESSION_COMM_MAX;
}

tb_status tb_pq_session_open(tb_pq_session **out, const tb_session *s, const tb_mem *mem,
			     const tb_pq_session_config *cfg, const tb_pq_session_io *io,
			     tb_error *err)
{
	tb_pq_session *w;
	const tb_session_info *in;
	size_t b, big = 4 * (size_t)TB_DAT_PAGE_MAX;
	tb_status st;
	if (!out)
		return tb_fail(err, TB_ERR_ARG, 0, "no writer pointer");
	*out = NULL;
	if (!s || !mem || !mem->alloc || !cfg || !io || !io->open || !io->write || !io->close ||
	    (io->compress && !io->compress_bound) ||
	    !(cfg->flags & (TB_PQ_SESSION_EVENTS | TB_PQ_SESSION_FORMATS)))
		return tb_fail(err, TB_ERR_ARG, 0, "a session, memory, io callbacks and a role");
	w = mem->alloc(mem->ctx, sizeof(*w));
	if (!w)
		return tb_fail(err, TB_ERR_NO_SPACE, 0, "out of memory");
	memset(w, 0, sizeof(*w));
	*out = w;
	w->s = s;
	w->mem = *mem;
	w->cfg = *cfg;
	w->io = *io;
	if (!w->cfg.max_open)
		w->cfg.max_open = TB_PQ_SESSION_MAX_OPEN;
	in = tb_session_get_info(s);
	w->var_min = TB_PQ_SESSION_VAR_MIN;
	for (b = 0; b < in->nbuffers; b++) {
		const tb_session_buffer_info *bi = tb_session_buffer(s, b);
		if (bi && 4 * (size_t)bi->page_size > w->var_min)
			w->var_min = 4 * (size_t)bi->page_size;
	}
	if (w->var_min > big)
		w->var_min = big;
	/* the largest column buffer: four of the largest pages (grown
	 * buffers stay below 2 * VAR_CAP, less than that) */
	w->scratch_cap = tb_pq_scratch_size(big);
	w->dict_cap = tb_pq_dict_size(big);
	w->scratch = mem_get(w, w->scratch_cap);
	w->dict = mem_get(w, w->dict_cap);
	if (io->compress) {
		w->cscratch_cap = io->compress_bound(io->compress_ctx, w->scratch_cap);
		w->cscratch = mem_get(w, w->cscratch_cap);
		if (!w->cscratch)
			return no_mem(w, err);
	}
	if (!w->scratch || !w->dict)
		return no_mem(w, err);
	if (cfg->flags & TB_PQ_SESSION_FORMATS) {
		w->fv = mem_get(w, TB_FORMAT_MAX_FIELDS * sizeof(*w->fv));
		if (!w->fv)
			return no_mem(w, err);
	}
	if (!(cfg->flags & TB_PQ_SESSION_EVENTS)) {
		tb_error_clear(err);
		return TB_OK;
	}
	w->all = mem_get(w, sizeof(*w->all));
	if (!w->all)
		return no_mem(w, err);
	memset(w->all, 0, sizeof(*w->all));
	memcpy(w->all->name, "events.parquet", 15);
	w->kv[0].key = "tracebound.source";
	w->kv[0].key_len = 17;
	w->kv[0].value = cfg->source ? cfg->source : "";
	w->kv[0].value_len = cfg->source ? cfg->source_len : 0;
	w->kv[1].key = "tracebound.table";
	w->kv[1].key_len = 16;
	w->kv[1].value = "events";
	w->kv[1].value_len = 6;
	st = table_start(w, w->all, NULL, w->kv, 2, err);
	if (st == TB_OK)
		tb_error_clear(err);
	return st;
}

/* The event's row in the events table. */
static tb_status events_row(tb_pq_session *w, const tb_session_event *ev, const char *text,
			    size_t text_len, tb_error *err)
{
	pqs_table *all = w->all;
	w->counts.events++;
	if (!ev->format)
		w->counts.no_format++;
	if (ev->comm_len > TB_PQ_SESSION_COMM_MAX)
		w->counts.comms_cut++;
	(void)tb_rows_values(w->s, ev, all->rcols, all->ncols, NULL, 0, all->vals);
	comm_cut(&all->vals[C_COMM]);
	if (w->cfg.flags & TB_PQ_SESSION_TEXT) {
		tb_pq_value *v = &all->vals[all->ncols - 1];
		v->is_null = 0;
		v->p = text ? text : "";
		v->n = text ? text_len : 0;
	}
	return table_row(w, all, err);
}

tb_status tb_pq_session_event(tb_pq_session *w, const tb_session_event *ev, const char *text,
			      size_t text_len, tb_error *err)
{
	pqs_table *t = NULL;
	tb_status st;
	if (!w || !ev)
		return tb_fail(err, TB_ERR_ARG, 0, "no writer or event");
	if (w->failed)
		return fail(w, err, w->failed, NULL, NULL);
	if (ev->kind != TB_SEV_EVENT)
		return TB_OK;
	if ((w->cfg.flags & TB_PQ_SESSION_FORMATS) && ev->format &&
	    !(t = format_table(w, ev->format, ev->buffer, err)))
		return w->failed;
	if ((w->cfg.flags & TB_PQ_SESSION_EVENTS) &&
	    (st = events_row(w, ev, text, text_len, err)) != TB_OK)
		return st;
	if (t) {
		/* a field that does not read is a null, and the record counted */
		if (tb_rows_values(w->s, ev, t->rcols, t->ncols, w->fv, TB_FORMAT_MAX_FIELDS,
				   t->vals) != TB_OK)
			w->counts.bad_records++;
		comm_cut(&t->vals[C_COMM]);
		if ((st = table_row(w, t, err)) != TB_OK)
			return st;
	}
	tb_error_clear(err);
	return TB_OK;
}

tb_status tb_pq_session_finish(tb_pq_session *w, tb_error *err)
{
	size_t i;
	if (!w)
		return tb_fail(err, TB_ERR_ARG, 0, "no writer");
	if (w->failed)
		return fail(w, err, w->failed, NULL, NULL);
	if (w->all && table_finish(w, w->all, err) != TB_OK)
		return w->failed;
	for (i = 0; i < w->ntables; i++)
		if (table_finish(w, w->tables[i], err) != TB_OK)
			return w->failed;
	tb_error_clear(err);
	return TB_OK;
}

void tb_pq_session_close(tb_pq_session *w)
{
	tb_mem m;
	size_t i;
	if (!w)
		return;
	m = w->mem;
	if (w->all)
		table_free(w, w->all);
	for (i = 0; i < w->ntables; i++)
		table_free(w, w->tables[i]);
	mem_put(&m, w->tables, w->tables_cap * sizeof(pqs_table *));
	mem_put(&m, w->index, w->index_cap * sizeof(*w->index));
	mem_put(&m, w->fv, TB_FORMAT_MAX_FIELDS * sizeof(*w->fv));
	mem_put(&m, w->cscratch, w->cscratch_cap);
	mem_put(&m, w->dict, w->dict_cap);
	mem_put(&m, w->scratch, w->scratch_cap);
	mem_put(&m, w, sizeof(*w));
}

const tb_pq_session_counts *tb_pq_session_get_counts(const tb_pq_session *w)
{
	return &w->counts;
}

size_t tb_pq_session_ntables(const tb_pq_session *w)
{
	return w ? w->ntables : 0;
}

const tb_pq_session_table *tb_pq_session_table_at(const tb_pq_session *w, size_t i)
{
	return w && i < w->ntables ? &w->tables[i]->pub : NULL;
}

const tb_pq_session_table *tb_pq_session_events_table(const tb_pq_session *w)
{
	return w && w->all ? &w->all->pub : NULL;
}
