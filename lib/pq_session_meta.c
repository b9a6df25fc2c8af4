/*
 * metadata.parquet: one row about a capture (include/tracebound/pq_session.h,
 * docs/parquet.md), and the (buffer, CPU) list it and metadata.json share.
 */
#include <string.h>

#include "internal.h"
#include "tracebound/pq_session.h"
#include "tracebound/text.h"

int tb_pq_session_foreach_cpu(const tb_session *s, const tb_session_raw_cpu *raw, size_t nraw,
			      tb_pq_session_cpu_fn fn, void *ctx)
{
	const tb_session_info *in = tb_session_get_info(s);
	const tb_dat *d = tb_session_dat(s);
	size_t i, k, n;
	for (i = 0; i < in->nbuffers; i++) {
		const tb_session_buffer_info *b = tb_session_buffer(s, i);
		const tb_dat_buffer *db = NULL;
		for (k = 0; d && k < d->nbuffers; k++)
			if (d->buffers[k].name.ptr == b->name.ptr)
				db = &d->buffers[k];
		/* a perf.data (no trace.dat, no dumps): its CPUs by number */
		n = db ? db->ncpus : d ? 0 : nraw ? nraw : b->ncpus;
		for (k = 0; k < n; k++) {
			tb_session_cpu_stats cs;
			uint32_t cpu = db ? db->cpus[k].cpu : nraw ? raw[k].cpu : (uint32_t)k;
			if (tb_session_cpu_stats_get(s, i, cpu, &cs) != TB_OK)
				continue;
			if (fn(ctx, i, cpu, &cs))
				return 1;
		}
	}
	return 0;
}

/* What the capture came in: "trace.dat vN", "perf.data" or "raw". */
static void container_name(tb_text *t, const tb_session_info *in)
{
	if (in->is_dat) {
		tb_text_puts(t, "trace.dat v");
		tb_text_u64(t, in->dat_version, 0, 0);
	} else {
		tb_text_puts(t, in->is_perf ? "perf.data" : "raw");
	}
}

static void mem_put(const tb_mem *m, void *p, size_t n)
{
	if (p && m->free)
		m->free(m->ctx, p, n);
}

#define META_COLS 32

typedef struct meta_table {
	tb_pq_column cols[META_COLS];
	tb_pq_value vals[META_COLS];
	size_t n;
	/* per (buffer, CPU), little-endian: buffer, cpu (4 bytes), then 8-byte counts */
	uint8_t *lists[7];
	size_t nlist, list_cap;
	uint64_t dropped, drops_unknown;
	char *dmg, *bufs;          /* damage and buffer names as JSON texts */
	size_t dmg_len, bufs_len;
	const tb_mem *mem;
} meta_table;

static void meta_col(meta_table *t, const char *name, uint8_t kind, uint8_t bits, uint8_t flags)
{
	tb_pq_column *c = &t->cols[t->n];
	c->name = name;
	c->name_len = strlen(name);
	c->kind = kind;
	c->bits = bits;
	c->flags = flags;
	memset(&t->vals[t->n], 0, sizeof(t->vals[t->n]));
	t->n++;
}

static void meta_int(meta_table *t, const char *name, uint8_t bits, int sig, uint64_t v)
{
	meta_col(t, name, TB_PQ_INT, bits, sig ? TB_PQ_SIGNED : 0);
	t->vals[t->n - 1].i = v;
}

/* A STRING, null when p is NULL (unknown). */
static void meta_text(meta_table *t, const char *name, const char *p, size_t len)
{
	meta_col(t, name, TB_PQ_BYTES, 0, TB_PQ_TEXT | TB_PQ_NULLABLE);
	t->vals[t->n - 1].is_null = !p;
	t->vals[t->n - 1].p = p ? p : "";
	t->vals[t->n - 1].n = p ? len : 0;
}

static void meta_list(meta_table *t, const char *name, uint8_t bits, const uint8_t *p)
{
	meta_col(t, name, TB_PQ_LIST, bits, 0);
	t->vals[t->n - 1].p = p;
	t->vals[t->n - 1].n = t->nlist;
	t->vals[t->n - 1].elem_size = bits / 8u;
}

static void put_le(uint8_t *p, uint64_t v, unsigned n)
{
	unsigned i;
	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static int count_cpu(void *ctx, size_t buffer, uint32_t cpu, const tb_session_cpu_stats *cs)
{
	(void)buffer;
	(void)cpu;
	(void)cs;
	((meta_table *)ctx)->list_cap++;
	return 0;
}

static int meta_cpu(void *ctx, size_t buffer, uint32_t cpu, const tb_session_cpu_stats *cs)
{
	meta_table *t = ctx;
	const uint64_t v[7] = { buffer, cpu, cs->events, cs->pages, cs->dropped,
				cs->drops_unknown, cs->damaged_pages };
	size_t i;
	if (t->nlist == t->list_cap)
		return 1; /* (the same list twice: cannot happen) */
	for (i = 0; i < 7; i++)
		put_le(t->lists[i] + t->nlist * (i < 2 ? 4 : 8), v[i], i < 2 ? 4 : 8);
	t->nlist++;
	t->dropped += cs->dropped;
	t->drops_unknown += cs->drops_unknown;
	return 0;
}

/* The bracketed name of a trace_clock text ("[local] global": local). */
static tb_span clock_name(tb_span clock)
{
	const char *p = clock.ptr ? memchr(clock.ptr, '[', clock.len) : NULL;
	const char *q = p ? memchr(p, ']', clock.len - (size_t)(p - clock.ptr)) : NULL;
	tb_span r = clock;
	if (p && q) {
		r.ptr = p + 1;
		r.len = (size_t)(q - p - 1);
	}
	return r;
}

/* What the JSON texts are made of. */
typedef struct meta_src {
	const tb_session *s;
	const tb_pq_session_meta *m;
	tb_pq_session_counts n;   /* both writers' */
	size_t formats_rejected;
} meta_src;

/* Damage and buffer names as JSON texts (the writer has no nested types). */
static void damage_json(tb_text *t, const meta_src *ms)
{
	size_t i, nd = tb_session_ndamage(ms->s);
	tb_text_putc(t, '[');
	for (i = 0; i < nd; i++) {
		const tb_session_damage *dm = tb_session_damage_at(ms->s, i);
		tb_text_puts(t, i ? ",{\"where\":" : "{\"where\":");
		tb_json_str(t, dm->where, strlen(dm->where));
		tb_text_puts(t, ",\"what\":");
		tb_json_str(t, dm->error.what, strlen(dm->error.what));
		tb_text_puts(t, ",\"offset\":");
		tb_text_u64(t, dm->error.offset, 0, 0);
		tb_text_puts(t, ",\"index\":");
		tb_text_u64(t, dm->index, 0, 0);
		tb_text_putc(t, '}');
	}
	tb_text_putc(t, ']');
}

static void buffers_json(tb_text *t, const meta_src *ms)
{
	const tb_session_info *in = tb_session_get_info(ms->s);
	size_t i;
	tb_text_putc(t, '[');
	for (i = 0; i < in->nbuffers; i++) {
		const tb_session_buffer_info *b = tb_session_buffer(ms->s, i);
		if (i)
			tb_text_putc(t, ',');
		tb_json_str(t, b->name.ptr ? b->name.ptr : "", b->name.len);
	}
	tb_text_putc(t, ']');
}

/* ,"key":"value" (no comma first when first) */
static void json_kv(tb_text *t, const char *key, const char *v, size_t n, int first)
{
	tb_text_puts(t, first ? "\"" : ",\"");
	tb_text_puts(t, key);
	tb_text_puts(t, "\":");
	tb_json_str(t, v ? v : "", v ? n : 0);
}

/* ,"key":N */
static void json_num(tb_text *t, const char *key, uint64_t v)
{
	tb_text_puts(t, ",\"");
	tb_text_puts(t, key);
	tb_text_puts(t, "\":");
	tb_text_u64(t, v, 0, 0);
}

/* metadata.json's CPUs of one buffer (tb_pq_session_foreach_cpu) */
typedef struct json_cpus {
	tb_text *t;
	size_t buffer;
	int first;
} json_cpus;

static int json_cpu(void *ctx, size_t buffer, uint32_t cpu, const tb_session_cpu_stats *cs)
{
	json_cpus *j = ctx;
	if (buffer != j->buffer)
		return 0;
	tb_text_puts(j->t, j->first ? "{\"cpu\":" : ",{\"cpu\":");
	tb_text_u64(j->t, cpu, 0, 0);
	json_num(j->t, "events", cs->events);
	json_num(j->t, "pages", cs->pages);
	json_num(j->t, "dropped", cs->dropped);
	json_num(j->t, "drops_unknown", cs->drops_unknown);
	json_num(j->t, "malformed_pages", cs->damaged_pages);
	tb_text_putc(j->t, '}');
	j->first = 0;
	return 0;
}

/* One format table of metadata.json's list. */
static void table_json(tb_text *t, const tb_pq_session_table *tb)
{
	size_t k;
	int first = 1;
	tb_text_putc(t, ',');
	tb_text_putc(t, '{');
	json_kv(t, "file", tb->name, strlen(tb->name), 1);
	json_num(t, "buffer", tb->buffer);
	json_kv(t, "system", tb->format->system, tb->format->system_len, 0);
	json_kv(t, "name", tb->format->name, tb->format->name_len, 0);
	json_num(t, "id", tb->format->id);
	json_num(t, "rows", tb->rows);
	json_num(t, "values_too_large", tb->too_large);
	tb_text_puts(t, ",\"binary_columns\":[");
	for (k = 0; k < tb->ncols; k++)
		if ((tb->cols[k].flags & TB_PQ_TEXT) && tb->cols[k].non_utf8) {
			if (!first)
				tb_text_putc(t, ',');
			tb_json_str(t, tb->cols[k].name, tb->cols[k].name_len);
			first = 0;
		}
	tb_text_puts(t, "]}");
}

/* metadata.json (docs/parquet.md), one line. */
static void meta_json(tb_text *t, const meta_src *ms)
{
	const tb_session_info *in = tb_session_get_info(ms->s);
	const tb_pq_session_meta *m = ms->m;
	const tb_pq_session_table *ev = tb_pq_session_events_table(m->events);
	size_t i, nf = tb_pq_session_ntables(m->formats);
	tb_text_puts(t, "{\"tracebound_version\":\"");
	tb_text_puts(t, tb_version());
	tb_text_putc(t, '"');
	json_kv(t, "trace_id", m->trace_id, strlen(m->trace_id), 0);
	json_kv(t, "source", m->source, strlen(m->source), 0);
	tb_text_puts(t, ",\"container\":\"");
	container_name(t, in);
	tb_text_putc(t, '"');
	json_kv(t, "compression", in->compression.len ? in->compression.ptr : "none",
		in->compression.len ? in->compression.len : 4, 0);
	json_kv(t, "uname", in->uname.ptr, in->uname.len, 0);
	json_kv(t, "clock", in->clock.ptr, in->clock.len, 0); /* the session's tb_clock_parse */
	json_kv(t, "trace_clock", in->clock.ptr, in->clock.len, 0);
	tb_text_puts(t, ",\"ts_offset\":");
	tb_text_i64(t, in->ts_offset, 0, 0);
	tb_text_puts(t, in->big_endian ? ",\"big_endian\":true" : ",\"big_endian\":false");
	json_num(t, "long_size", in->long_size);
	json_num(t, "events", ms->n.events);
	json_num(t, "events_without_format", ms->n.no_format);
	json_num(t, "malformed_pages", m->bad_pages);
	json_num(t, "records_with_unreadable_fields", ms->n.bad_records);
	json_num(t, "comms_cut", ms->n.comms_cut);
	json_num(t, "formats_rejected", ms->formats_rejected);
	tb_text_puts(t, ",\"damage\":");
	damage_json(t, ms);
	tb_text_puts(t, ",\"buffers\":[");
	for (i = 0; i < in->nbuffers; i++) {
		const tb_session_buffer_info *b = tb_session_buffer(ms->s, i);
		json_cpus j = { t, i, 1 };
		tb_text_puts(t, i ? ",{" : "{");
		json_kv(t, "name", b->name.ptr, b->name.len, 1);
		json_kv(t, "clock", b->clock.ptr, b->clock.len, 0);
		json_num(t, "page_size", b->page_size);
		tb_text_puts(t, ",\"cpus\":[");
		(void)tb_pq_session_foreach_cpu(ms->s, m->raw, m->nraw, json_cpu, &j);
		tb_text_puts(t, "]}");
	}
	tb_text_puts(t, "],\"tables\":[{\"file\":\"events.parquet\"");
	json_num(t, "rows", ev ? ev->rows : 0);
	tb_text_putc(t, '}');
	for (i = 0; i < nf; i++)
		table_json(t, tb_pq_session_table_at(m->formats, i));
	tb_text_puts(t, "]}\n");
}

/* A JSON text made by fn, in memory of its own size (need + 1 bytes):
 * NULL (memory). */
static char *json_text(const tb_mem *mem, void (*fn)(tb_text *, const meta_src *),
		       const meta_src *ms, size_t *len)
{
	tb_text t;
	char *p;
	tb_text_init(&t, NULL, 0);
	fn(&t, ms);
	*len = t.need;
	if (!(p = mem->alloc(mem->ctx, t.need + 1)))
		return NULL;
	tb_text_init(&t, p, t.need + 1);
	fn(&t, ms);
	return p;
}

typedef struct meta_out {
	const tb_pq_session_io *io;
	void *out;
} meta_out;

static tb_status meta_write(void *ctx, const void *p, size_t n)
{
	meta_out *o = ctx;
	return o->io->write(o->io->ctx, o->out, p, n);
}

/* t's one row to the output, through a Parquet writer of its own. */
static tb_status meta_file(meta_table *t, const tb_pq_kv *kv, size_t nkv,
			   const tb_pq_session_io *io, tb_error *err)
{
	const tb_mem *mem = t->mem;
	size_t i, max = 0, fcap = 16384, scap = 0;
	uint8_t *scratch = NULL, *footer = NULL;
	tb_pq_writer w;
	tb_pq_config cfg;
	tb_error e = { TB_ERR_NO_SPACE, 0, "out of memory" };
	tb_status st = TB_ERR_NO_SPACE, cst;
	meta_out o = { io, NULL };
	for (i = 0; i < t->n; i++) {
		const tb_pq_value *v = &t->vals[i];
		size_t cap = 4096 + 16 * (t->cols[i].kind == TB_PQ_INT ? 1 : v->n);
		if (!(t->cols[i].buf = mem->alloc(mem->ctx, cap)))
			goto out;
		t->cols[i].cap = cap;
		max = cap > max ? cap : max;
	}
	scap = tb_pq_scratch_size(max);
	if (!(scratch = mem->alloc(mem->ctx, scap)) || !(footer = mem->alloc(mem->ctx, fcap)))
		goto out;
	if ((st = io->open(io->ctx, "metadata.parquet", 0, &o.out)) != TB_OK || !o.out) {
		e.status = st = st != TB_OK ? st : TB_ERR_ARG;
		e.what = "cannot open";
		o.out = NULL;
		goto out;
	}
	memset(&cfg, 0, sizeof(cfg));
	cfg.write = meta_write;
	cfg.write_ctx = &o;
	cfg.scratch = scratch;
	cfg.scratch_cap = scap;
	cfg.footer = footer;
	cfg.footer_cap = fcap;
	if ((st = tb_pq_writer_init(&w, t->cols, t->n, &cfg, &e)) != TB_OK ||
	    (st = tb_pq_writer_set_kv(&w, kv, nkv, &e)) != TB_OK)
		goto out;
	for (i = 0; i < 2; i++) {
		/* a footer this large: damage lists are long; grow it once */
		st = i ? tb_pq_finish(&w, &e) : tb_pq_write_row(&w, t->vals, &e);
		if (st == TB_ERR_NO_SPACE && !w.sticky) {
			size_t cap = 2 * w.footer_need;
			uint8_t *nb = mem->alloc(mem->ctx, cap);
			if (!nb)
				goto out;
			if ((st = tb_pq_writer_set_footer(&w, nb, cap, &e)) != TB_OK) {
				mem_put(mem, nb, cap);
				goto out;
			}
			mem_put(mem, footer, fcap);
			footer = nb;
			fcap = cap;
			i--;
			continue;
		}
		if (st != TB_OK)
			goto out;
	}
out:
	if (o.out && (cst = io->close(io->ctx, o.out)) != TB_OK && st == TB_OK) {
		st = cst;
		e.status = cst;
		e.what = "close failed";
	}
	for (i = 0; i < t->n; i++)
		mem_put(mem, t->cols[i].buf, t->cols[i].cap);
	mem_put(mem, scratch, scap);
	mem_put(mem, footer, fcap);
	if (st != TB_OK)
		return tb_fail(err, st, e.offset, e.what);
	tb_error_clear(err);
	return TB_OK;
}

/* A whole output of n bytes at p. */
static tb_status put_output(const tb_pq_session_io *io, const char *name, const char *p,
			    size_t n, tb_error *err)
{
	void *out = NULL;
	tb_status st = io->open(io->ctx, name, 0, &out), cst;
	if (st != TB_OK || !out)
		return tb_fail(err, st != TB_OK ? st : TB_ERR_ARG, 0, "cannot open");
	st = io->write(io->ctx, out, p, n);
	cst = io->close(io->ctx, out);
	if (st != TB_OK || cst != TB_OK)
		return tb_fail(err, st != TB_OK ? st : cst, 0, "write failed");
	tb_error_clear(err);
	return TB_OK;
}

tb_status tb_pq_session_metadata(const tb_session *s, const tb_pq_session_meta *m,
				 const tb_mem *mem, const tb_pq_session_io *io, tb_error *err)
{
	const tb_session_info *in;
	meta_table *t; /* 3 KiB of columns and values: not on the stack */
	char container[32];
	size_t i, nd, json_len = 0;
	char *json = NULL;
	tb_span clock;
	meta_src ms;
	const tb_pq_session_counts *ec, *fc;
	tb_pq_kv kv[2] = { { "tracebound.table", 16, "metadata", 8 },
			   { "tracebound.trace_id", 19, NULL, 0 } };
	const char *ver = tb_version();
	tb_status st = TB_ERR_NO_SPACE;
	if (!s || !m || !m->source || !m->trace_id || !mem || !mem->alloc || !io || !io->open ||
	    !io->write || !io->close || (m->nraw && !m->raw))
		return tb_fail(err, TB_ERR_ARG, 0, "a session, the metadata, memory and io");
	in = tb_session_get_info(s);
	clock = clock_name(in->clock);
	nd = tb_session_ndamage(s);
	kv[1].value = m->trace_id;
	kv[1].value_len = strlen(m->trace_id);
	if (!(t = mem->alloc(mem->ctx, sizeof(*t))))
		return tb_fail(err, TB_ERR_NO_SPACE, 0, "out of memory");
	memset(t, 0, sizeof(*t));
	t->mem = mem;
	(void)tb_pq_session_foreach_cpu(s, m->raw, m->nraw, count_cpu, t);
	for (i = 0; i < 7; i++)
		if (!(t->lists[i] = mem->alloc(mem->ctx, (t->list_cap ? t->list_cap : 1) * 8)))
			goto out;
	(void)tb_pq_session_foreach_cpu(s, m->raw, m->nraw, meta_cpu, t);
	memset(&ms, 0, sizeof(ms));
	ms.s = s;
	ms.m = m;
	ec = m->events ? tb_pq_session_get_counts(m->events) : NULL;
	fc = m->formats ? tb_pq_session_get_counts(m->formats) : NULL;
	if (ec) {
		ms.n.events = ec->events;
		ms.n.no_format = ec->no_format;
		ms.n.comms_cut = ec->comms_cut;
	}
	ms.n.bad_records = fc ? fc->bad_records : 0;
	for (i = 0; i < nd; i++) {
		const char *w = tb_session_damage_at(s, i)->where;
		ms.formats_rejected += strlen(w) == 12 && !memcmp(w, "event format", 12);
	}
	if (!(t->dmg = json_text(mem, damage_json, &ms, &t->dmg_len)) ||
	    !(t->bufs = json_text(mem, buffers_json, &ms, &t->bufs_len)) ||
	    !(json = json_text(mem, meta_json, &ms, &json_len)))
		goto out;
	{
		tb_text ct;
		tb_text_init(&ct, container, sizeof(container));
		container_name(&ct, in);
		tb_text_finish(&ct);
	}
	meta_text(t, "source", m->source, strlen(m->source));
	meta_text(t, "tracebound_version", ver, strlen(ver));
	meta_text(t, "container", container, strlen(container));
	meta_text(t, "compression", in->compression.len ? in->compression.ptr : "none",
		  in->compression.len ? in->compression.len : 4);
	meta_text(t, "uname", in->uname.len ? in->uname.ptr : NULL, in->uname.len);
	meta_text(t, "clock", clock.len ? clock.ptr : NULL, clock.len);
	meta_text(t, "trace_clock", in->clock.len ? in->clock.ptr : NULL, in->clock.len);
	meta_int(t, "ts_offset", 64, 1, (uint64_t)in->ts_offset);
	meta_int(t, "big_endian", 8, 0, in->big_endian ? 1 : 0);
	meta_int(t, "long_size", 32, 0, in->long_size);
	meta_int(t, "events", 64, 0, ms.n.events);
	meta_int(t, "events_without_format", 64, 0, ms.n.no_format);
	meta_int(t, "malformed_pages", 64, 0, m->bad_pages);
	meta_int(t, "records_with_unreadable_fields", 64, 0, ms.n.bad_records);
	meta_int(t, "comms_cut", 64, 0, ms.n.comms_cut);
	meta_int(t, "formats_rejected", 64, 0, ms.formats_rejected);
	meta_int(t, "dropped", 64, 0, t->dropped);
	meta_int(t, "drops_unknown", 64, 0, t->drops_unknown);
	meta_int(t, "damages", 64, 0, nd);
	meta_text(t, "damage", t->dmg, t->dmg_len);
	meta_text(t, "buffers", t->bufs, t->bufs_len);
	meta_list(t, "cpu_buffer", 32, t->lists[0]);
	meta_list(t, "cpu", 32, t->lists[1]);
	meta_list(t, "cpu_events", 64, t->lists[2]);
	meta_list(t, "cpu_pages", 64, t->lists[3]);
	meta_list(t, "cpu_dropped", 64, t->lists[4]);
	meta_list(t, "cpu_drops_unknown", 64, t->lists[5]);
	meta_list(t, "cpu_malformed_pages", 64, t->lists[6]);
	st = meta_file(t, kv, 2, io, err);
	if (st == TB_OK)
		st = put_output(io, "metadata.json", json, json_len, err);
out:
	for (i = 0; i < 7; i++)
		mem_put(mem, t->lists[i], (t->list_cap ? t->list_cap : 1) * 8);
	mem_put(mem, t->dmg, t->dmg_len + 1);
	mem_put(mem, t->bufs, t->bufs_len + 1);
	mem_put(mem, json, json_len + 1);
	if (st == TB_ERR_NO_SPACE && (!t->dmg || !t->bufs || !json || !t->lists[6]))
		st = tb_fail(err, st, 0, "out of memory");
	mem_put(mem, t, sizeof(*t));
	return st;
}
