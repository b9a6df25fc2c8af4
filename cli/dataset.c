/* A Parquet dataset of uploads: staging, publishing, the metadata table
 * (dataset.h, docs/parquet.md). */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "dataset.h"
#include "tracebound/parquet.h"
#include "tracebound/tracedat.h"

static char *part_dir(const char *root, const char *id)
{
	char *p = malloc(strlen(root) + TB_TRACE_ID_LEN + 16);
	if (p)
		sprintf(p, "%s/trace_id=%s", root, id);
	return p;
}

char *tb_ds_abspath(const char *path)
{
	return realpath(path, NULL);
}

int tb_ds_present(const char *root, const char *id)
{
	struct stat sb;
	char *p = part_dir(root, id);
	int r = p && stat(p, &sb) == 0;
	free(p);
	return r;
}

int tb_ds_stage_begin(tb_ds_stage *st, const char *root, const char *id)
{
	memset(st, 0, sizeof(*st));
	memcpy(st->id, id, TB_TRACE_ID_LEN + 1);
	st->root = strdup(root);
	st->final = part_dir(root, id);
	st->dir = malloc(strlen(root) + TB_TRACE_ID_LEN + 32);
	if (!st->root || !st->final || !st->dir) {
		fprintf(stderr, "tracebound: out of memory\n");
		tb_ds_stage_end(st);
		return -1;
	}
	sprintf(st->dir, "%s/.tb-stage-%s-XXXXXX", root, id);
	if (!mkdtemp(st->dir)) {
		fprintf(stderr, "tracebound: %s: cannot create: %s\n", st->dir, strerror(errno));
		free(st->dir);
		st->dir = NULL;
		tb_ds_stage_end(st);
		return -1;
	}
	/* mkdtemp makes it 0700: the partition gets the mode a mkdir would */
	{
		mode_t um = umask(0);
		umask(um);
		(void)chmod(st->dir, 0777 & ~um);
	}
	return 0;
}

static int rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)ftw;
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

/* The tree at dir, removed (depth first, symlinks not followed). */
static void rm_tree(const char *dir)
{
	(void)nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

int tb_ds_stage_publish(tb_ds_stage *st)
{
	if (rename(st->dir, st->final) == 0) {
		free(st->dir);
		st->dir = NULL;
		return 0;
	}
	if (errno == EEXIST || errno == ENOTEMPTY)
		return 1; /* another convert of the same upload was first */
	fprintf(stderr, "tracebound: %s: cannot rename to %s: %s\n", st->dir, st->final,
		strerror(errno));
	return -1;
}

void tb_ds_stage_end(tb_ds_stage *st)
{
	if (st->dir)
		rm_tree(st->dir);
	free(st->dir);
	free(st->final);
	free(st->root);
	memset(st, 0, sizeof(*st));
}

int tb_ds_foreach_cpu(const tb_session *s, const tb_session_raw_cpu *raw, size_t nraw,
		      tb_ds_cpu_fn fn, void *ctx)
{
	const tb_session_info *in = tb_session_get_info(s);
	const tb_dat *d = tb_session_dat(s);
	size_t i, k;
	for (i = 0; i < in->nbuffers; i++) {
		const tb_session_buffer_info *b = tb_session_buffer(s, i);
		const tb_dat_buffer *db = NULL;
		for (k = 0; d && k < d->nbuffers; k++)
			if (d->buffers[k].name.ptr == b->name.ptr)
				db = &d->buffers[k];
		for (k = 0; k < (db ? db->ncpus : d ? 0 : nraw); k++) {
			tb_session_cpu_stats cs;
			uint32_t cpu = db ? db->cpus[k].cpu : raw[k].cpu;
			if (tb_session_cpu_stats_get(s, i, cpu, &cs) != TB_OK)
				continue;
			if (fn(ctx, i, cpu, &cs))
				return 1;
		}
	}
	return 0;
}

/* ---- the metadata table: one row ---- */

#define META_COLS 32

typedef struct meta_table {
	tb_pq_column cols[META_COLS];
	tb_pq_value vals[META_COLS];
	size_t n;
	int oom;
	/* per (buffer, CPU), little-endian: buffer, cpu (4 bytes), then 8-byte counts */
	uint8_t *lists[7];
	size_t nlist, list_cap;
	uint64_t dropped, drops_unknown;
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

static int meta_cpu(void *ctx, size_t buffer, uint32_t cpu, const tb_session_cpu_stats *cs)
{
	meta_table *t = ctx;
	const uint64_t v[7] = { buffer, cpu, cs->events, cs->pages, cs->dropped,
				cs->drops_unknown, cs->damaged_pages };
	size_t i;
	if (t->nlist == t->list_cap) {
		size_t cap = t->list_cap ? 2 * t->list_cap : 64;
		for (i = 0; i < 7; i++) {
			uint8_t *nb = realloc(t->lists[i], cap * 8);
			if (!nb) {
				t->oom = 1;
				return 1;
			}
			t->lists[i] = nb;
		}
		t->list_cap = cap;
	}
	for (i = 0; i < 7; i++)
		put_le(t->lists[i] + t->nlist * (i < 2 ? 4 : 8), v[i], i < 2 ? 4 : 8);
	t->nlist++;
	t->dropped += cs->dropped;
	t->drops_unknown += cs->drops_unknown;
	return 0;
}

static tb_status meta_write(void *ctx, const void *p, size_t n)
{
	return fwrite(p, 1, n, ctx) == n ? TB_OK : TB_ERR_NO_SPACE;
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

/* Damage and buffer names as JSON texts (the writer has no nested types). */
static char *damage_json(const tb_session *s, size_t *len)
{
	char *buf = NULL;
	size_t i, nd = tb_session_ndamage(s);
	FILE *m = open_memstream(&buf, len);
	if (!m)
		return NULL;
	fputc('[', m);
	for (i = 0; i < nd; i++) {
		const tb_session_damage *dm = tb_session_damage_at(s, i);
		fprintf(m, "%s{\"where\":", i ? "," : "");
		tb_cli_json_str(m, dm->where, strlen(dm->where));
		fprintf(m, ",\"what\":");
		tb_cli_json_str(m, dm->error.what, strlen(dm->error.what));
		fprintf(m, ",\"offset\":%llu,\"index\":%zu}", (unsigned long long)dm->error.offset,
			dm->index);
	}
	fputc(']', m);
	if (ferror(m) | fclose(m)) {
		free(buf);
		return NULL;
	}
	return buf;
}

static char *buffers_json(const tb_session *s, size_t *len)
{
	const tb_session_info *in = tb_session_get_info(s);
	char *buf = NULL;
	size_t i;
	FILE *m = open_memstream(&buf, len);
	if (!m)
		return NULL;
	fputc('[', m);
	for (i = 0; i < in->nbuffers; i++) {
		const tb_session_buffer_info *b = tb_session_buffer(s, i);
		if (i)
			fputc(',', m);
		tb_cli_json_str(m, b->name.ptr ? b->name.ptr : "", b->name.len);
	}
	fputc(']', m);
	if (ferror(m) | fclose(m)) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* Write t's one row to path: 0, or -1 said. */
static int meta_file(meta_table *t, const char *path, const tb_pq_kv *kv, size_t nkv)
{
	size_t i, cap, max = 0, fcap = 16384;
	uint8_t *scratch = NULL, *footer = NULL;
	tb_pq_writer w;
	tb_pq_config cfg;
	tb_error e = { TB_OK, 0, "out of memory" };
	tb_status st = TB_ERR_NO_SPACE;
	FILE *f = NULL;
	int rc = -1;
	for (i = 0; i < t->n; i++) {
		const tb_pq_value *v = &t->vals[i];
		cap = 4096 + 16 * (t->cols[i].kind == TB_PQ_INT ? 1 : v->n);
		if (!(t->cols[i].buf = malloc(cap)))
			goto out;
		t->cols[i].cap = cap;
		max = cap > max ? cap : max;
	}
	memset(&cfg, 0, sizeof(cfg));
	cfg.scratch_cap = tb_pq_scratch_size(max);
	if (!(scratch = malloc(cfg.scratch_cap)) || !(f = fopen(path, "wb"))) {
		e.what = scratch ? strerror(errno) : "out of memory";
		goto out;
	}
	cfg.write = meta_write;
	cfg.write_ctx = f;
	cfg.scratch = scratch;
	for (;;) {
		uint8_t *nb = realloc(footer, fcap);
		if (!nb)
			goto out;
		footer = nb;
		cfg.footer = footer;
		cfg.footer_cap = fcap;
		if (fseek(f, 0, SEEK_SET) != 0 || tb_pq_writer_init(&w, t->cols, t->n, &cfg, &e) ||
		    tb_pq_writer_set_kv(&w, kv, nkv, &e) || tb_pq_write_row(&w, t->vals, &e))
			goto out;
		st = tb_pq_finish(&w, &e);
		if (st != TB_ERR_NO_SPACE || w.sticky)
			break;
		fcap = 2 * w.footer_need; /* (a footer this large: damage lists are long) */
	}
	rc = st == TB_OK ? 0 : -1;
out:
	if (f && (ferror(f) | fclose(f)))
		rc = -1, e.what = "write failed";
	if (rc)
		fprintf(stderr, "tracebound: %s: %s\n", path, e.what);
	for (i = 0; i < t->n; i++)
		free(t->cols[i].buf);
	free(scratch);
	free(footer);
	return rc;
}

int tb_ds_write_meta(const char *dir, const char *source, const char *id, const tb_session *s,
		     const tb_session_raw_cpu *raw, size_t nraw, const tb_ds_counts *n)
{
	const tb_session_info *in = tb_session_get_info(s);
	meta_table *t = calloc(1, sizeof(*t));
	char *path = malloc(strlen(dir) + 24), *dmg = NULL, *bufs = NULL;
	char container[32];
	size_t dlen = 0, blen = 0, i;
	tb_span clock = clock_name(in->clock);
	tb_pq_kv kv[2] = { { "tracebound.table", 16, "metadata", 8 },
			   { "tracebound.trace_id", 19, id, strlen(id) } };
	const char *ver = tb_version();
	int rc = -1;
	if (!t || !path || tb_ds_foreach_cpu(s, raw, nraw, meta_cpu, t) || !(dmg = damage_json(s, &dlen)) ||
	    !(bufs = buffers_json(s, &blen))) {
		fprintf(stderr, "tracebound: %s: out of memory\n", dir);
		goto out;
	}
	sprintf(path, "%s/metadata.parquet", dir);
	if (in->is_dat)
		snprintf(container, sizeof(container), "trace.dat v%u", in->dat_version);
	else
		snprintf(container, sizeof(container), "raw");
	meta_text(t, "source", source, strlen(source));
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
	meta_int(t, "events", 64, 0, n->events);
	meta_int(t, "events_without_format", 64, 0, n->no_format);
	meta_int(t, "malformed_pages", 64, 0, n->bad_pages);
	meta_int(t, "records_with_unreadable_fields", 64, 0, n->bad_records);
	meta_int(t, "comms_cut", 64, 0, n->comms_cut);
	meta_int(t, "formats_rejected", 64, 0, n->formats_rejected);
	meta_int(t, "dropped", 64, 0, t->dropped);
	meta_int(t, "drops_unknown", 64, 0, t->drops_unknown);
	meta_int(t, "damages", 64, 0, tb_session_ndamage(s));
	meta_text(t, "damage", dmg, dlen);
	meta_text(t, "buffers", bufs, blen);
	meta_list(t, "cpu_buffer", 32, t->lists[0]);
	meta_list(t, "cpu", 32, t->lists[1]);
	meta_list(t, "cpu_events", 64, t->lists[2]);
	meta_list(t, "cpu_pages", 64, t->lists[3]);
	meta_list(t, "cpu_dropped", 64, t->lists[4]);
	meta_list(t, "cpu_drops_unknown", 64, t->lists[5]);
	meta_list(t, "cpu_malformed_pages", 64, t->lists[6]);
	rc = meta_file(t, path, kv, 2);
out:
	if (t)
		for (i = 0; i < 7; i++)
			free(t->lists[i]);
	free(t);
	free(path);
	free(dmg);
	free(bufs);
	return rc;
}
