/*
 * A session's Parquet tables (include/tracebound/pq_session.h): the
 * events table, a table per format, metadata.parquet and metadata.json
 * of the bundled capture, read back with the test reader; two writers
 * splitting the roles write the one writer's bytes; every error: the
 * arguments, an output that does not open, write or close, memory
 * refused (at open and at a table's start), all sticky and all memory
 * given back.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracebound/tracebound.h"
#include "tracebound/pq_session.h"

#include "parquet_read.h"
#include "testutil.h"
#include "zstd_dl.h"

Suite *tb_suite_pq_session(void);

/* ---- outputs in memory ---- */

#define MAX_OUT 256

typedef struct mem_out {
	char name[TB_PQ_SESSION_MAX_NAME];
	uint8_t *p;
	size_t len, cap;
	int open, opens, appends;
} mem_out;

typedef struct sink {
	mem_out o[MAX_OUT];
	size_t n, nopen, max_open_seen;
	size_t fail_after;   /* write: fail once this many bytes went out in all (0: never) */
	size_t written;
	int fail_open, fail_close;
} sink;

static mem_out *find(sink *k, const char *name)
{
	size_t i;
	for (i = 0; i < k->n; i++)
		if (!strcmp(k->o[i].name, name))
			return &k->o[i];
	return NULL;
}

static tb_status s_open(void *ctx, const char *name, int append, void **out)
{
	sink *k = ctx;
	mem_out *o = find(k, name);
	if (k->fail_open)
		return TB_ERR_ARG;
	ck_assert_int_eq(append, o != NULL); /* appends only to what was written */
	if (!o) {
		ck_assert_uint_lt(k->n, MAX_OUT);
		o = &k->o[k->n++];
		ck_assert_uint_lt(strlen(name), sizeof(o->name));
		strcpy(o->name, name);
	}
	ck_assert(!o->open);
	o->open = 1;
	o->opens++;
	o->appends += append;
	if (++k->nopen > k->max_open_seen)
		k->max_open_seen = k->nopen;
	*out = o;
	return TB_OK;
}

static tb_status s_write(void *ctx, void *out, const void *p, size_t n)
{
	sink *k = ctx;
	mem_out *o = out;
	ck_assert(o->open);
	if (k->fail_after && k->written + n >= k->fail_after)
		return TB_ERR_NO_SPACE;
	if (o->len + n > o->cap) {
		o->cap = 2 * (o->len + n);
		o->p = realloc(o->p, o->cap);
		ck_assert_ptr_nonnull(o->p);
	}
	memcpy(o->p + o->len, p, n);
	o->len += n;
	k->written += n;
	return TB_OK;
}

static tb_status s_close(void *ctx, void *out)
{
	sink *k = ctx;
	mem_out *o = out;
	ck_assert(o->open);
	o->open = 0;
	k->nopen--;
	return k->fail_close ? TB_ERR_NO_SPACE : TB_OK;
}

static void sink_free(sink *k)
{
	size_t i;
	for (i = 0; i < k->n; i++)
		free(k->o[i].p);
	free(k);
}

static tb_pq_session_io sink_io(sink *k)
{
	tb_pq_session_io io;
	memset(&io, 0, sizeof(io));
	io.open = s_open;
	io.write = s_write;
	io.close = s_close;
	io.ctx = k;
	return io;
}

/* ---- a heap that counts, with a limit ---- */

typedef struct counted {
	size_t held, limit, peak;
} counted;

static void *c_alloc(void *ctx, size_t n)
{
	counted *c = ctx;
	size_t *p;
	if (c->limit && c->held + n > c->limit)
		return NULL;
	p = malloc(n + 16);
	if (!p)
		return NULL;
	p[0] = n;
	c->held += n;
	if (c->held > c->peak)
		c->peak = c->held;
	return (uint8_t *)p + 16;
}

static void c_free(void *ctx, void *p, size_t n)
{
	counted *c = ctx;
	size_t *h = (size_t *)(void *)((uint8_t *)p - 16);
	ck_assert_uint_eq(h[0], n); /* given back with the size asked for */
	c->held -= n;
	free(h);
}

/* ---- the bundled capture ---- */

typedef struct capture {
	uint8_t *data;
	size_t len;
	tb_session *s;
} capture;

static int open_capture(capture *c)
{
	tb_session_source src;
	tb_error e;
	memset(c, 0, sizeof(*c));
	c->data = tb_test_read_file(tb_test_path("tests/data/sched4k.v7zstd.dat"), &c->len);
	if (!c->data || !tb_test_have_zstd()) {
		printf("pq_session: sched4k.v7zstd.dat or zstd missing, test skipped\n");
		free(c->data);
		return 0;
	}
	memset(&src, 0, sizeof(src));
	src.dat = c->data;
	src.dat_len = c->len;
	src.decompress.fn = tb_test_zstd;
	ck_assert_int_eq(tb_session_open(&c->s, &src, NULL, &tb_test_heap, &e), TB_OK);
	return 1;
}

static void close_capture(capture *c)
{
	tb_session_close(c->s);
	free(c->data);
}

/* Walk c through w (and w2 when given), then finish: events walked. */
static uint64_t walk(capture *c, tb_pq_session *w, tb_pq_session *w2, uint64_t *switches,
		     uint64_t *first_ts)
{
	tb_session_event ev;
	tb_error e;
	uint64_t n = 0;
	while (tb_session_next(c->s, &ev, &e) == TB_OK) {
		if (!n && first_ts)
			*first_ts = ev.ts;
		n++;
		if (switches && ev.format && ev.format->name_len == 12 &&
		    !memcmp(ev.format->name, "sched_switch", 12))
			(*switches)++;
		ck_assert_int_eq(tb_pq_session_event(w, &ev, "t", 1, &e), TB_OK);
		if (w2)
			ck_assert_int_eq(tb_pq_session_event(w2, &ev, NULL, 0, &e), TB_OK);
	}
	ck_assert_int_eq(tb_pq_session_finish(w, &e), TB_OK);
	if (w2)
		ck_assert_int_eq(tb_pq_session_finish(w2, &e), TB_OK);
	return n;
}

static const char *kv_of(const pqr_file *f, const char *key)
{
	size_t i;
	for (i = 0; i < f->nkv; i++)
		if (!strcmp(f->kv[i].key, key))
			return f->kv[i].value;
	return NULL;
}

/* Every table of the bundled capture, read back. */
START_TEST(bundled_capture_every_table)
{
	capture c;
	sink *k = calloc(1, sizeof(*k));
	counted heap = { 0, 0, 0 };
	tb_mem mem = { c_alloc, c_free, &heap };
	tb_pq_session_config cfg = { TB_PQ_SESSION_EVENTS | TB_PQ_SESSION_FORMATS, "in.dat", 6, 0 };
	tb_pq_session_io io = sink_io(k);
	tb_pq_session *w;
	tb_error e;
	uint64_t n, switches = 0, first_ts = 0, sum = 0;
	const tb_pq_session_counts *cn;
	const tb_pq_session_table *sw = NULL;
	mem_out *o;
	pqr_file f;
	pqr_entry *ent;
	size_t i, ne;
	tb_pq_session_meta meta;
	if (!open_capture(&c)) {
		free(k);
		return;
	}
	ck_assert_int_eq(tb_pq_session_open(&w, c.s, &mem, &cfg, &io, &e), TB_OK);
	n = walk(&c, w, NULL, &switches, &first_ts);
	ck_assert_uint_eq(n, 63844);
	cn = tb_pq_session_get_counts(w);
	ck_assert_uint_eq(cn->events, 63844);
	ck_assert_uint_eq(cn->comms_cut, 0);
	ck_assert_uint_eq(tb_pq_session_events_table(w)->rows, 63844);
	ck_assert_uint_gt(tb_pq_session_ntables(w), 10);
	for (i = 0; i < tb_pq_session_ntables(w); i++) {
		const tb_pq_session_table *t = tb_pq_session_table_at(w, i);
		ck_assert_ptr_nonnull(t->format);
		sum += t->rows;
		if (!strcmp(t->name, "sched-sched_switch.parquet"))
			sw = t;
	}
	ck_assert_ptr_null(tb_pq_session_table_at(w, i));
	ck_assert_uint_eq(sum, n - cn->no_format);
	ck_assert_ptr_nonnull(sw);
	ck_assert_uint_eq(sw->rows, switches);
	ck_assert_uint_eq(switches, 968);
	ck_assert_uint_eq(k->nopen, 0); /* every output closed */

	/* events.parquet: every event, the key columns, the first time */
	ck_assert_ptr_nonnull(o = find(k, "events.parquet"));
	ck_assert_msg(pqr_open(&f, o->p, o->len) == 0, "%s", f.error);
	ck_assert_int_eq(f.num_rows, 63844);
	ck_assert_str_eq(f.schema[f.leaves[0]].name, "__ts");
	ck_assert_str_eq(kv_of(&f, "tracebound.source"), "in.dat");
	ck_assert_str_eq(kv_of(&f, "tracebound.table"), "events");
	ck_assert_int_eq(pqr_leaf(&f, 0, &ent, &ne, NULL, NULL), 0);
	ck_assert_uint_eq(ne, 63844);
	ck_assert_uint_eq((uint64_t)ent[0].i, first_ts);
	free(ent);
	pqr_close(&f);
	/* the sched_switch table: its rows, its fields after the 7 session columns */
	ck_assert_ptr_nonnull(o = find(k, "sched-sched_switch.parquet"));
	ck_assert_msg(pqr_open(&f, o->p, o->len) == 0, "%s", f.error);
	ck_assert_int_eq(f.num_rows, (int64_t)switches);
	ck_assert_str_eq(f.schema[f.leaves[7]].name, "common_type");
	ck_assert_uint_eq(f.nleaves, sw->ncols);
	pqr_close(&f);

	/* the metadata */
	memset(&meta, 0, sizeof(meta));
	meta.source = "/abs/in.dat";
	meta.trace_id = "e7c00a411ebe55f87989ea0080cd6da5";
	meta.events = meta.formats = w;
	meta.bad_pages = 3;
	ck_assert_int_eq(tb_pq_session_metadata(c.s, &meta, &mem, &io, &e), TB_OK);
	ck_assert_ptr_nonnull(o = find(k, "metadata.parquet"));
	ck_assert_msg(pqr_open(&f, o->p, o->len) == 0, "%s", f.error);
	ck_assert_int_eq(f.num_rows, 1);
	ck_assert_str_eq(kv_of(&f, "tracebound.trace_id"), meta.trace_id);
	ck_assert_str_eq(f.schema[f.leaves[10]].name, "events");
	ck_assert_int_eq(pqr_leaf(&f, 10, &ent, &ne, NULL, NULL), 0);
	ck_assert_uint_eq(ne, 1);
	ck_assert_int_eq(ent[0].i, 63844);
	free(ent);
	ck_assert_str_eq(f.schema[f.leaves[12]].name, "malformed_pages");
	ck_assert_int_eq(pqr_leaf(&f, 12, &ent, &ne, NULL, NULL), 0);
	ck_assert_int_eq(ent[0].i, 3);
	free(ent);
	pqr_close(&f);
	ck_assert_ptr_nonnull(o = find(k, "metadata.json"));
	o->p = realloc(o->p, o->len + 1);
	o->p[o->len] = 0;
	ck_assert_ptr_nonnull(strstr((char *)o->p, "\"trace_id\":\"e7c00a411ebe55f87989ea0080cd6da5\""
						  ",\"source\":\"/abs/in.dat\",\"container\":"
						  "\"trace.dat v7\",\"compression\":\"zstd\""));
	ck_assert_ptr_nonnull(strstr((char *)o->p, ",\"events\":63844,"));
	ck_assert_ptr_nonnull(strstr((char *)o->p, ",\"malformed_pages\":3,"));
	ck_assert_ptr_nonnull(strstr((char *)o->p, "{\"file\":\"events.parquet\",\"rows\":63844}"));
	ck_assert_ptr_nonnull(strstr((char *)o->p, "{\"file\":\"sched-sched_switch.parquet\""));
	ck_assert_int_eq(o->p[o->len - 1], '\n');
	tb_pq_session_close(w);
	ck_assert_uint_eq(heap.held, 0);
	close_capture(&c);
	sink_free(k);
}
END_TEST

/* The roles on two writers write the one writer's bytes, file for file;
 * so do outputs closed after each row group (max_open 1); __text is the
 * events table's last column. */
START_TEST(split_roles_and_reopened_outputs_same_bytes)
{
	static const tb_pq_session_config cfgs[3] = {
		{ TB_PQ_SESSION_EVENTS | TB_PQ_SESSION_FORMATS, "x", 1, 0 },
		{ TB_PQ_SESSION_EVENTS, "x", 1, 0 },
		{ TB_PQ_SESSION_FORMATS, "x", 1, 1 },
	};
	capture c;
	sink *one = calloc(1, sizeof(*one)), *two = calloc(1, sizeof(*two));
	tb_pq_session_io io1 = sink_io(one), io2 = sink_io(two);
	tb_pq_session *w, *we, *wf;
	tb_error e;
	size_t i, appends = 0;
	if (!open_capture(&c)) {
		free(one);
		free(two);
		return;
	}
	ck_assert_int_eq(tb_pq_session_open(&w, c.s, &tb_test_heap, &cfgs[0], &io1, &e), TB_OK);
	(void)walk(&c, w, NULL, NULL, NULL);
	tb_session_close(c.s);
	free(c.data);
	ck_assert(open_capture(&c));
	ck_assert_int_eq(tb_pq_session_open(&we, c.s, &tb_test_heap, &cfgs[1], &io2, &e), TB_OK);
	ck_assert_int_eq(tb_pq_session_open(&wf, c.s, &tb_test_heap, &cfgs[2], &io2, &e), TB_OK);
	ck_assert_ptr_null(tb_pq_session_events_table(wf));
	ck_assert_uint_eq(tb_pq_session_ntables(we), 0);
	(void)walk(&c, we, wf, NULL, NULL);
	ck_assert_uint_eq(one->n, two->n);
	for (i = 0; i < one->n; i++) {
		mem_out *b = find(two, one->o[i].name);
		ck_assert_ptr_nonnull(b);
		ck_assert_uint_eq(b->len, one->o[i].len);
		ck_assert_msg(!memcmp(b->p, one->o[i].p, b->len), "%s", b->name);
		appends += (size_t)b->appends;
	}
	ck_assert_uint_gt(appends, 0);       /* some outputs were reopened */
	ck_assert_uint_le(two->max_open_seen, 3); /* events.parquet + 1 + the new one */
	ck_assert_uint_eq(tb_pq_session_get_counts(wf)->bad_records,
			  tb_pq_session_get_counts(w)->bad_records);
	ck_assert_uint_eq(tb_pq_session_get_counts(we)->events,
			  tb_pq_session_get_counts(w)->events);
	tb_pq_session_close(w);
	tb_pq_session_close(we);
	tb_pq_session_close(wf);
	close_capture(&c);
	sink_free(one);
	sink_free(two);
}
END_TEST

START_TEST(text_column_last)
{
	capture c;
	sink *k = calloc(1, sizeof(*k));
	tb_pq_session_config cfg = { TB_PQ_SESSION_EVENTS | TB_PQ_SESSION_TEXT, NULL, 0, 0 };
	tb_pq_session_io io = sink_io(k);
	tb_pq_session *w;
	tb_error e;
	pqr_file f;
	pqr_entry *ent;
	size_t ne;
	if (!open_capture(&c)) {
		free(k);
		return;
	}
	ck_assert_int_eq(tb_pq_session_open(&w, c.s, &tb_test_heap, &cfg, &io, &e), TB_OK);
	(void)walk(&c, w, NULL, NULL, NULL);
	ck_assert_uint_eq(k->n, 1); /* events.parquet only */
	ck_assert_msg(pqr_open(&f, k->o[0].p, k->o[0].len) == 0, "%s", f.error);
	ck_assert_str_eq(f.schema[f.leaves[f.nleaves - 1]].name, "__text");
	ck_assert_str_eq(kv_of(&f, "tracebound.source"), "");
	ck_assert_int_eq(pqr_leaf(&f, f.nleaves - 1, &ent, &ne, NULL, NULL), 0);
	ck_assert_uint_eq(ne, 63844);
	ck_assert_uint_eq(ent[ne - 1].n, 1);
	ck_assert_int_eq(ent[ne - 1].p[0], 't');
	free(ent);
	pqr_close(&f);
	tb_pq_session_close(w);
	close_capture(&c);
	sink_free(k);
}
END_TEST

/* ---- errors ---- */

static size_t no_bound(void *ctx, size_t n)
{
	(void)ctx;
	return n;
}

START_TEST(bad_arguments)
{
	capture c;
	sink *k = calloc(1, sizeof(*k));
	tb_pq_session_config cfg = { TB_PQ_SESSION_EVENTS, NULL, 0, 0 };
	tb_pq_session_io io = sink_io(k);
	tb_pq_session_meta meta;
	tb_pq_session *w = (tb_pq_session *)&cfg;
	tb_error e;
	tb_session_event ev;
	if (!open_capture(&c)) {
		free(k);
		return;
	}
	ck_assert_int_eq(tb_pq_session_open(NULL, c.s, &tb_test_heap, &cfg, &io, &e), TB_ERR_ARG);
	ck_assert_int_eq(tb_pq_session_open(&w, NULL, &tb_test_heap, &cfg, &io, &e), TB_ERR_ARG);
	ck_assert_ptr_null(w);
	cfg.flags = TB_PQ_SESSION_TEXT; /* no role */
	ck_assert_int_eq(tb_pq_session_open(&w, c.s, &tb_test_heap, &cfg, &io, &e), TB_ERR_ARG);
	cfg.flags = TB_PQ_SESSION_EVENTS;
	io.close = NULL;
	ck_assert_int_eq(tb_pq_session_open(&w, c.s, &tb_test_heap, &cfg, &io, &e), TB_ERR_ARG);
	io = sink_io(k);
	io.compress = (tb_pq_compress_fn)NULL;
	io.compress_bound = no_bound; /* a bound alone is fine */
	ck_assert_int_eq(tb_pq_session_open(&w, c.s, &tb_test_heap, &cfg, &io, &e), TB_OK);
	tb_pq_session_close(w);
	ck_assert_int_eq(tb_pq_session_event(NULL, &ev, NULL, 0, &e), TB_ERR_ARG);
	ck_assert_int_eq(tb_pq_session_finish(NULL, &e), TB_ERR_ARG);
	tb_pq_session_close(NULL);
	ck_assert_uint_eq(tb_pq_session_ntables(NULL), 0);
	memset(&meta, 0, sizeof(meta));
	meta.source = "x";
	ck_assert_int_eq(tb_pq_session_metadata(c.s, &meta, &tb_test_heap, &io, &e), TB_ERR_ARG);
	close_capture(&c);
	sink_free(k);
}
END_TEST

/* An output that fails: at open (the events table's magic), at a write
 * within the walk, at close (finish).  Each sticky; memory all back. */
START_TEST(failing_outputs)
{
	static const struct {
		int fail_open, fail_close;
		size_t fail_after;
	} cases[] = { { 1, 0, 0 }, { 0, 0, 200000 }, { 0, 1, 0 } };
	size_t i;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		capture c;
		sink *k = calloc(1, sizeof(*k));
		counted heap = { 0, 0, 0 };
		tb_mem mem = { c_alloc, c_free, &heap };
		tb_pq_session_config cfg = { TB_PQ_SESSION_EVENTS | TB_PQ_SESSION_FORMATS, "x", 1, 0 };
		tb_pq_session_io io = sink_io(k);
		tb_pq_session *w;
		tb_session_event ev;
		tb_error e;
		tb_status st = TB_OK;
		if (!open_capture(&c)) {
			free(k);
			return;
		}
		k->fail_open = cases[i].fail_open;
		k->fail_close = cases[i].fail_close;
		k->fail_after = cases[i].fail_after;
		st = tb_pq_session_open(&w, c.s, &mem, &cfg, &io, &e);
		if (cases[i].fail_open) {
			ck_assert_int_eq(st, TB_ERR_ARG);
			ck_assert_ptr_nonnull(w); /* closed by the caller */
		} else {
			ck_assert_int_eq(st, TB_OK);
			while (st == TB_OK && tb_session_next(c.s, &ev, &e) == TB_OK)
				st = tb_pq_session_event(w, &ev, NULL, 0, &e);
			if (cases[i].fail_after) {
				ck_assert_int_eq(st, TB_ERR_NO_SPACE);
				ck_assert_uint_lt(k->written, cases[i].fail_after);
			} else {
				ck_assert_int_eq(st, TB_OK);
				st = tb_pq_session_finish(w, &e);
				ck_assert_int_eq(st, TB_ERR_NO_SPACE);
				ck_assert_str_eq(e.what, "close failed");
			}
		}
		/* sticky */
		ck_assert_int_eq(tb_pq_session_finish(w, &e), st);
		ck_assert_int_eq(e.status, st);
		tb_pq_session_close(w);
		ck_assert_uint_eq(heap.held, 0);
		ck_assert_uint_eq(k->nopen, 0);
		close_capture(&c);
		sink_free(k);
	}
}
END_TEST

/* Memory refused: at open (the scratch), at a table's start; without a
 * limit, the peak within the documented bounds. */
START_TEST(memory_refused)
{
	static const size_t limits[] = { 1u << 20, 12u << 20, 0 };
	size_t i;
	for (i = 0; i < sizeof(limits) / sizeof(limits[0]); i++) {
		capture c;
		sink *k = calloc(1, sizeof(*k));
		counted heap = { 0, limits[i], 0 };
		tb_mem mem = { c_alloc, c_free, &heap };
		tb_pq_session_config cfg = { TB_PQ_SESSION_EVENTS | TB_PQ_SESSION_FORMATS, "x", 1, 0 };
		tb_pq_session_io io = sink_io(k);
		tb_pq_session *w;
		tb_session_event ev;
		tb_error e;
		tb_status st;
		uint64_t n = 0;
		if (!open_capture(&c)) {
			free(k);
			return;
		}
		st = tb_pq_session_open(&w, c.s, &mem, &cfg, &io, &e);
		while (st == TB_OK && tb_session_next(c.s, &ev, &e) == TB_OK) {
			st = tb_pq_session_event(w, &ev, NULL, 0, &e);
			n += st == TB_OK;
		}
		if (st == TB_OK)
			st = tb_pq_session_finish(w, &e);
		if (i == 0) {
			ck_assert_int_eq(st, TB_ERR_NO_SPACE);
			ck_assert_uint_eq(n, 0);
			ck_assert_str_eq(e.what, "out of memory");
		} else if (i == 2) {
			/* no limit: 167 tables, within the per-writer scratch (10.3 MB
			 * measured), the format tables' budget and the events table's caps */
			ck_assert_int_eq(st, TB_OK);
			ck_assert_uint_eq(n, 63844);
			ck_assert_uint_eq(tb_pq_session_ntables(w), 167);
			ck_assert_uint_lt(heap.peak, ((size_t)11 << 20) + TB_PQ_SESSION_BUDGET);
		} else {
			/* a table's start refused, after some went well */
			ck_assert_uint_gt(n, 0);
			ck_assert_uint_gt(tb_pq_session_ntables(w), 0);
			ck_assert_int_eq(st, TB_ERR_NO_SPACE);
			ck_assert_str_eq(e.what, "out of memory");
			ck_assert_int_eq(tb_pq_session_event(w, &ev, NULL, 0, &e), TB_ERR_NO_SPACE);
		}
		ck_assert(!limits[i] || heap.held <= limits[i]);
		tb_pq_session_close(w);
		ck_assert_uint_eq(heap.held, 0);
		close_capture(&c);
		sink_free(k);
	}
}
END_TEST

Suite *tb_suite_pq_session(void)
{
	Suite *s = suite_create("pq_session");
	TCase *t = tcase_create("writer");
	tcase_set_timeout(t, 120);
	tcase_add_test(t, bundled_capture_every_table);
	tcase_add_test(t, split_roles_and_reopened_outputs_same_bytes);
	tcase_add_test(t, text_column_last);
	tcase_add_test(t, bad_arguments);
	tcase_add_test(t, failing_outputs);
	tcase_add_test(t, memory_refused);
	suite_add_tcase(s, t);
	return s;
}
