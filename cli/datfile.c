/* Opening a trace.dat for the CLI commands (see datfile.h). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef TB_HAVE_ZSTD
#include <zstd.h>
#endif
#ifdef TB_HAVE_ZLIB
#include <zlib.h>
#endif

#include "datfile.h"
#include "capture.h"

/* 1 for a file we cannot accept (malformed, over a limit, needing a
 * decompressor this build lacks); 2 when memory ran out. */
static int exit_class(tb_status s)
{
	return s == TB_ERR_NO_SPACE || s == TB_ERR_ARG ? 2 : 1;
}

static void *regrow(void *p, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap && p)
		return p;
	free(p);
	*cap = need;
	return calloc(need ? need : 1, elem);
}

static size_t count_fields(const char *s, size_t n)
{
	size_t c = 0, i;
	for (i = 0; i + 6 <= n; i++)
		if (s[i] == 'f' && !memcmp(s + i, "field", 5) &&
		    (s[i + 5] == ':' || s[i + 5] == ' '))
			c++;
	return c;
}

static int fail_stage(tb_datfile *df, const char *stage, tb_status s,
		      uint64_t off, const char *what)
{
	df->stage = stage;
	df->err.status = s;
	df->err.offset = off;
	df->err.what = what;
	return exit_class(s);
}

/* The "ID: n" of a format text (the second line), or -1. */
static int64_t text_id(const char *s, size_t n)
{
	size_t i = 0;
	while (i < n) {
		size_t end = i;
		while (end < n && s[end] != '\n')
			end++;
		if (end - i > 4 && !memcmp(s + i, "ID: ", 4)) {
			uint64_t v = 0;
			size_t k;
			for (k = i + 4; k < end && s[k] >= '0' && s[k] <= '9' && v < 0x100000000ull; k++)
				v = v * 10 + (uint64_t)(s[k] - '0');
			return k == end && k > i + 4 && v <= UINT32_MAX ? (int64_t)v : -1;
		}
		i = end + 1;
	}
	return -1;
}

static int id_cmp(const void *a, const void *b)
{
	const struct tb_datfile_id *x = a, *y = b;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->event < y->event ? -1 : x->event > y->event;
}

static void add_format(tb_datfile *df, size_t i)
{
	const tb_dat_event_text *e = &df->d.events[i];
	tb_format_error fe;
	tb_status s;
	if (df->tried[i])
		return;
	df->tried[i] = 1;
	s = tb_format_set_add(&df->set, e->format.ptr, e->format.len, e->system.ptr,
			      e->system.len, NULL, &fe);
	if (s) {
		df->format_errors++;
		if (df->warn)
			fprintf(df->warn, "tracebound: %s: event format %zu (%.*s) at file offset %llu, "
				"line %u: %s (%s); its events are not decoded\n",
				df->path, i, (int)(e->system.len < 64 ? e->system.len : 64),
				e->system.ptr, (unsigned long long)e->format.offset, fe.line,
				fe.error.what, tb_strerror(s));
	}
}

static int load_formats(tb_datfile *df)
{
	const tb_dat *d = &df->d;
	size_t i, nfields = 0, idx;
	tb_status s;
	/* room for the most fields a format can hold, without a pass over
	 * the texts: untouched calloc'd pages cost nothing (lazily used) */
	if (d->nevents <= ((size_t)1 << 26) / TB_FORMAT_MAX_FIELDS)
		nfields = d->nevents * TB_FORMAT_MAX_FIELDS;
	else
		for (i = 0; i < d->nevents; i++)
			nfields += count_fields(d->events[i].format.ptr, d->events[i].format.len);
	idx = tb_format_index_len(d->nevents ? d->nevents : 1);
	/* large zeroed blocks: pages never used cost no memory */
	df->fmt_store = calloc(d->nevents ? d->nevents : 1, sizeof(tb_format));
	df->field_store = calloc(nfields + 1, sizeof(tb_field));
	df->index_store = calloc(idx, sizeof(uint32_t));
	df->tried = calloc(d->nevents + 1, 1);
	df->ids = calloc(d->nevents + 1, sizeof(*df->ids));
	if (!df->fmt_store || !df->field_store || !df->index_store || !df->tried || !df->ids)
		return fail_stage(df, "formats", TB_ERR_NO_SPACE, 0, "out of memory");
	s = tb_format_set_init(&df->set, df->fmt_store, d->nevents ? d->nevents : 1,
			       df->field_store, nfields + 1, df->index_store, idx,
			       d->long_size);
	if (s)
		return fail_stage(df, "formats", s, 0, "cannot set up the format set");
	for (i = 0; i < d->nevents; i++) {
		int64_t id = text_id(d->events[i].format.ptr, d->events[i].format.len);
		if (id >= 0) {
			df->ids[df->nids].id = (uint32_t)id;
			df->ids[df->nids].event = (uint32_t)i;
			df->nids++;
		}
		if (!df->lazy || id < 0)
			add_format(df, i); /* a text without an ID fails here */
	}
	qsort(df->ids, df->nids, sizeof(*df->ids), id_cmp);
	return 0;
}

const tb_format *tb_datfile_lookup(tb_datfile *df, const uint8_t *rec, size_t len)
{
	const tb_format *f;
	tb_error e;
	uint32_t id;
	size_t lo = 0, hi;
	tb_status s = tb_format_set_lookup(&df->set, rec, len, df->d.big_endian, &f, &e);
	if (s == TB_OK)
		return f;
	if (s != TB_NOT_FOUND || !df->lazy || len < 2)
		return NULL;
	/* common_type: where the set says, or the usual u16 at 0 before any */
	if (df->set.count && df->set.type_size == 2 && df->set.type_offset <= len - 2)
		id = tb_load16(rec + df->set.type_offset, df->d.big_endian);
	else if (!df->set.count)
		id = tb_load16(rec, df->d.big_endian);
	else
		return NULL;
	hi = df->nids;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (df->ids[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo >= df->nids || df->ids[lo].id != id || df->tried[df->ids[lo].event])
		return NULL;
	add_format(df, df->ids[lo].event);
	return tb_format_set_lookup(&df->set, rec, len, df->d.big_endian, &f, &e) == TB_OK ? f
											   : NULL;
}

/* A table text the library rejected: say where, as a line number (what a
 * person looks for in the text) and the library's byte offset in it. */
static void table_warning(tb_datfile *df, FILE *warn, const char *table,
			  const tb_dat_text *text, const tb_error *e)
{
	unsigned long long line = 1;
	size_t i;
	df->table_errors++;
	if (!warn)
		return;
	for (i = 0; i < e->offset && i < text->len; i++)
		line += text->ptr[i] == '\n';
	fprintf(warn, "tracebound: %s: %s line %llu (byte %llu of the text): %s\n",
		df->path, table, line, (unsigned long long)e->offset, e->what);
}

static void load_tables(tb_datfile *df, FILE *warn)
{
	const tb_dat *d = &df->d;
	tb_error e;
	df->cmd.cap = tb_cmdlines_count(d->cmdlines.ptr, d->cmdlines.len);
	df->cmd.v = calloc(df->cmd.cap + 1, sizeof(tb_cmdline));
	/* an entry takes at least "1 T x\n" (6 bytes): room for every line
	 * without a counting pass (untouched calloc'd pages cost nothing) */
	df->ks.cap = d->kallsyms.len / 6 + 1;
	df->ks.v = calloc(df->ks.cap + 1, sizeof(tb_ksym));
	df->pk.cap = tb_printk_count(d->printk.ptr, d->printk.len);
	df->pk.v = calloc(df->pk.cap + 1, sizeof(tb_printk_fmt));
	if (!df->cmd.v || !df->ks.v || !df->pk.v) {
		df->cmd.cap = df->ks.cap = df->pk.cap = 0;
		df->table_errors++;
		return;
	}
	if (tb_cmdlines_parse(&df->cmd, d->cmdlines.ptr, d->cmdlines.len, &e))
		table_warning(df, warn, "saved cmdlines", &d->cmdlines, &e);
	if (tb_kallsyms_parse(&df->ks, d->kallsyms.ptr, d->kallsyms.len, &e))
		table_warning(df, warn, "kallsyms", &d->kallsyms, &e);
	if (tb_printk_parse(&df->pk, d->printk.ptr, d->printk.len, &e))
		table_warning(df, warn, "printk formats", &d->printk, &e);
}

int tb_datfile_open_mem(tb_datfile *df, const char *name, const uint8_t *p,
			size_t n, FILE *warn, int lazy)
{
	tb_dat_decompressor dc = { tb_cli_decompress, NULL };
	tb_status s;
	int round;
	tb_error e;
	df->path = name;
	df->lazy = lazy;
	df->warn = warn;
	for (round = 0;; round++) {
		s = tb_dat_open(&df->d, p, n, &df->st, &dc, &df->err);
		if (s != TB_ERR_NO_SPACE || round > 4)
			break;
		df->st.events = regrow(df->st.events, &df->st.events_cap,
				       df->d.need.events, sizeof(tb_dat_event_text));
		df->st.buffers = regrow(df->st.buffers, &df->st.buffers_cap,
					df->d.need.buffers, sizeof(tb_dat_buffer));
		df->st.cpus = regrow(df->st.cpus, &df->st.cpus_cap, df->d.need.cpus,
				     sizeof(tb_dat_cpu));
		df->st.cpustats = regrow(df->st.cpustats, &df->st.cpustats_cap,
					 df->d.need.cpustats, sizeof(tb_dat_text));
		df->st.scratch = regrow(df->st.scratch, &df->st.scratch_cap,
					df->d.need.scratch, 1);
		if (!df->st.events || !df->st.buffers || !df->st.cpus ||
		    !df->st.cpustats || !df->st.scratch)
			return fail_stage(df, "container", TB_ERR_NO_SPACE, 0,
					  "out of memory");
	}
	if (s) {
		df->stage = "container";
		if (s == TB_ERR_UNSUPPORTED && df->d.compression.len) {
			static char msg[96];
			snprintf(msg, sizeof(msg),
				 "the file is %.*s-compressed and this tracebound was built without %.*s",
				 (int)(df->d.compression.len < 16 ? df->d.compression.len : 16),
				 df->d.compression.ptr,
				 (int)(df->d.compression.len < 16 ? df->d.compression.len : 16),
				 df->d.compression.ptr);
			df->err.what = msg;
		}
		return exit_class(s);
	}
	if ((s = tb_kbuf_layout_from_header_page(df->d.header_page.ptr,
						 df->d.header_page.len,
						 df->d.big_endian, &df->layout,
						 &e)) == TB_OK)
		df->have_layout = 1;
	else
		return fail_stage(df, "header_page", s,
				  df->d.header_page.offset +
					  (df->d.header_page.ptr &&
							   e.offset <= df->d.header_page.len
						   ? e.offset : 0),
				  e.what);
	if (load_formats(df))
		return 2;
	load_tables(df, warn);
	return 0;
}

int tb_datfile_open(tb_datfile *df, const char *path, FILE *warn, int lazy)
{
	memset(df, 0, sizeof(*df));
	df->path = path;
	if (tb_cli_load(path, &df->f) != 0) {
		df->stage = "load";
		return -1;
	}
	return tb_datfile_open_mem(df, path, df->f.data, df->f.len, warn, lazy);
}

void tb_datfile_close(tb_datfile *df)
{
	free(df->st.events);
	free(df->st.buffers);
	free(df->st.cpus);
	free(df->st.cpustats);
	free(df->st.scratch);
	free(df->fmt_store);
	free(df->field_store);
	free(df->index_store);
	free(df->tried);
	free(df->ids);
	free(df->cmd.v);
	free(df->ks.v);
	free(df->pk.v);
	if (df->f.data)
		tb_cli_unload(&df->f);
	memset(df, 0, sizeof(*df));
}

const char *tb_datfile_comm(const tb_datfile *df, int32_t pid, size_t *len)
{
	const tb_cmdline *c;
	if (pid == 0) {
		*len = 6;
		return "<idle>";
	}
	c = tb_cmdlines_find(&df->cmd, pid);
	if (!c) {
		*len = 5;
		return "<...>";
	}
	*len = c->comm_len;
	return c->comm;
}

void tb_datfile_perror(const tb_datfile *df)
{
	if (df->stage && !strcmp(df->stage, "load"))
		return; /* tb_cli_load said why */
	fprintf(stderr, "tracebound: %s: %s: %s at offset %llu (%s)\n", df->path,
		df->stage ? df->stage : "?", df->err.what ? df->err.what : "error",
		(unsigned long long)df->err.offset, tb_strerror(df->err.status));
}

int tb_datbuf_open(tb_datfile *df, const tb_dat_buffer *b, unsigned flags,
		   tb_datbuf *db, tb_status *st, tb_error *e)
{
	size_t per_cpu = 0;
	memset(db, 0, sizeof(*db));
	db->b = b;
	db->layout = df->layout;
	if (b->page_size != df->layout.subbuf_size &&
	    tb_kbuf_layout_init_ex(&db->layout, df->layout.big_endian, df->layout.long_size,
				   df->layout.header_size, b->page_size,
				   df->layout.flags) != TB_OK) {
		*st = TB_ERR_VALUE;
		e->status = *st;
		e->offset = b->section_offset;
		e->what = "buffer page size unusable for the sub-buffer walker";
		return 1;
	}
	if ((*st = tb_dat_chunk_max(&df->d, b, &per_cpu, e)) != TB_OK)
		return 1;
	if (per_cpu && b->ncpus > SIZE_MAX / per_cpu)
		return 2;
	db->cur = calloc(b->ncpus ? b->ncpus : 1, sizeof(*db->cur));
	db->chunks = per_cpu ? malloc(per_cpu * b->ncpus) : NULL;
	if (!db->cur || (per_cpu && !db->chunks)) {
		tb_datbuf_close(db);
		return 2;
	}
	*st = tb_dat_stream_init(&db->s, &df->d, b, &db->layout, db->cur, b->ncpus,
				 db->chunks, per_cpu, flags, e);
	return *st ? 1 : 0;
}

void tb_datbuf_close(tb_datbuf *db)
{
	free(db->cur);
	free(db->chunks);
	memset(db, 0, sizeof(*db));
}

int tb_datfile_walk(tb_datfile *df, const tb_dat_buffer *b, unsigned flags,
		    const tb_datwalk_ops *ops, tb_dat_stream *out_stats)
{
	tb_datbuf db;
	tb_error e;
	tb_status st;
	int progress = isatty(2), rc;
	rc = tb_datbuf_open(df, b, flags, &db, &st, &e);
	if (rc == 2) {
		fprintf(stderr, "tracebound: %s: out of memory\n", df->path);
		return 2;
	}
	if (rc == 1) {
		ops->on_error(ops->ctx, UINT32_MAX, 0, st, &e);
	} else {
		for (;;) {
			tb_dat_event ev;
			const tb_format *f;
			st = tb_dat_stream_next(&db.s, &ev, &e);
			if (st == TB_END)
				break;
			if (st) {
				ops->on_error(ops->ctx, db.s.error_cpu, db.s.error_page, st, &e);
				continue;
			}
			if (progress && (db.s.events & 0xfffff) == 0)
				fprintf(stderr, "\r%s: %llu events", df->path,
					(unsigned long long)db.s.events);
			f = tb_datfile_lookup(df, ev.data, ev.len);
			ops->on_event(ops->ctx, &ev, f);
		}
	}
	if (progress && db.s.events > 0xfffff)
		fprintf(stderr, "\r\n");
	if (out_stats)
		*out_stats = db.s;
	tb_datbuf_close(&db);
	return 0;
}
