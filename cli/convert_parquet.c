/*
 * tracebound convert --to parquet [--text] OUTDIR FILE...
 *
 * Every event of each capture as typed Parquet tables (docs/parquet.md):
 * OUTDIR/STEM/SYSTEM-EVENT.parquet per event format that has events,
 * OUTDIR/STEM/events.parquet over all events, OUTDIR/STEM/metadata.json.
 * The library writes the files (lib/parquet.c); this file maps formats
 * to columns, owns the memory and the files, and checks every write.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef TB_HAVE_ZSTD
#include <zstd.h>
#endif

#include "datfile.h"

/* Column buffer sizes: a fixed-width column holds 16 K rows of 8 bytes
 * per row group; a byte or list column at least VAR_CAP, and room for
 * four of the capture's largest pages (no record is larger than a page,
 * so no value becomes a null for its size). */
#define INT_CAP ((size_t)128 << 10)
#define VAR_CAP ((size_t)128 << 10)
/* Files kept open at once (more tables than this reopen to append). */
#define MAX_OPEN 200

enum { C_TS, C_CPU, C_PID, C_COMM, C_NFIXED };
/* events table: ts cpu pid comm system name id buffer [text] */
enum { E_SYSTEM = C_NFIXED, E_NAME, E_ID, E_BUFFER, E_TEXT, E_NCOLS };

typedef struct pq_out pq_out;

typedef struct pq_table {
	pq_out *o;
	const tb_format *fmt;     /* NULL: the events table */
	char *path;
	FILE *f;
	int opened;               /* the file exists (reopen appends) */
	tb_pq_column *cols;
	tb_pq_value *vals;
	char **names;             /* column names we made (renamed fields) */
	size_t ncols;
	int32_t *field;           /* column -> format field index, -1: fixed */
	tb_pq_writer w;
	uint8_t *footer;
	size_t footer_cap;
	uint64_t rows, too_large;
	size_t renamed;
	int32_t pid_field;        /* index of common_pid in the format, or -1 */
} pq_table;

typedef struct cpu_count {
	uint32_t buffer, cpu;
	uint64_t events, dropped, drops_unknown, damaged;
} cpu_count;

struct pq_out {
	const char *dir;          /* OUTDIR/STEM */
	int text;                 /* --text: rendered text in the events table */
	int failed;               /* an output error was reported: exit 2 */
	pq_table **by_format;     /* by buffer, then index in the format set */
	size_t nformats, nbuffers;
	pq_table all;
	size_t nopen;
	uint8_t *scratch, *cscratch;
	size_t scratch_cap, cscratch_cap;
	size_t var_cap;           /* buffer of a byte or list column */
#ifdef TB_HAVE_ZSTD
	ZSTD_CCtx *zc;
#endif
	tb_field_value *fv;       /* one record's decoded fields */
	cpu_count *cpus;
	size_t ncpus;
	cpu_count *last_cpu;      /* the slot of the previous event */
	uint64_t no_format, events, bad_pages, bad_records;
	const tb_datfile *df;
	const char *buffer_name;
	size_t buffer_len;
	uint32_t buffer;
};

static void out_error(pq_out *o, const char *path, const char *what, int err)
{
	if (!o->failed)
		fprintf(stderr, "tracebound: %s: %s%s%s\n", path, what, err ? ": " : "",
			err ? strerror(err) : "");
	o->failed = 1;
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

static int col_named(const pq_table *t, size_t upto, const char *name, size_t len)
{
	size_t i;
	for (i = 0; i < upto; i++)
		if (t->cols[i].name_len == len && !memcmp(t->cols[i].name, name, len))
			return 1;
	return 0;
}

static void set_col(tb_pq_column *c, const char *name, uint8_t kind, uint8_t bits,
		    uint8_t flags)
{
	memset(c, 0, sizeof(*c));
	c->name = name;
	c->name_len = strlen(name);
	c->kind = kind;
	c->bits = bits;
	c->flags = flags;
}

/* The column a format field becomes (see docs/parquet.md). */
static void field_col(tb_pq_column *c, const tb_field *f)
{
	uint8_t sig = (f->flags & TB_FIELD_SIGNED) ? TB_PQ_SIGNED : 0;
	unsigned es = f->elem_size;
	memset(c, 0, sizeof(*c));
	c->flags = TB_PQ_NULLABLE;
	switch (f->kind) {
	case TB_FIELD_INT:
	case TB_FIELD_LONG:
	case TB_FIELD_POINTER:
		c->kind = TB_PQ_INT;
		c->bits = (uint8_t)(f->size * 8);
		c->flags |= f->kind == TB_FIELD_POINTER ? 0 : sig;
		return;
	case TB_FIELD_STRING:
		c->kind = TB_PQ_BYTES;
		c->flags |= TB_PQ_TEXT;
		return;
	case TB_FIELD_ARRAY:
	case TB_FIELD_DYNAMIC:
	case TB_FIELD_REST:
		if (f->flags & TB_FIELD_TEXT) {
			c->kind = TB_PQ_BYTES;
			c->flags |= TB_PQ_TEXT;
		} else if (es == 1 || es == 2 || es == 4 || es == 8) {
			c->kind = TB_PQ_LIST;
			c->bits = (uint8_t)(es * 8);
			c->flags |= sig;
		} else {
			c->kind = TB_PQ_BYTES;
		}
		return;
	default: /* OPAQUE: the bytes */
		c->kind = TB_PQ_BYTES;
		return;
	}
}

static int table_start(pq_out *o, pq_table *t, const tb_format *fmt, const char *file,
		       const tb_pq_kv *kv, size_t nkv)
{
	size_t i, n = fmt ? C_NFIXED + fmt->nfields : (size_t)(o->text ? E_NCOLS : E_TEXT);
	tb_pq_config cfg;
	tb_error e;
	t->o = o;
	t->fmt = fmt;
	t->path = malloc(strlen(o->dir) + strlen(file) + 2);
	t->cols = calloc(n, sizeof(*t->cols));
	t->vals = calloc(n, sizeof(*t->vals));
	t->names = calloc(n, sizeof(*t->names));
	t->field = calloc(n, sizeof(*t->field));
	t->footer_cap = 4096;
	t->footer = malloc(t->footer_cap);
	if (!t->path || !t->cols || !t->vals || !t->names || !t->field || !t->footer) {
		out_error(o, file, "out of memory", 0);
		return -1;
	}
	sprintf(t->path, "%s/%s", o->dir, file);
	t->ncols = n;
	set_col(&t->cols[C_TS], "ts", TB_PQ_INT, 64, TB_PQ_SIGNED);
	set_col(&t->cols[C_CPU], "cpu", TB_PQ_INT, 32, 0);
	set_col(&t->cols[C_PID], "pid", TB_PQ_INT, 32, TB_PQ_SIGNED | TB_PQ_NULLABLE);
	set_col(&t->cols[C_COMM], "comm", TB_PQ_BYTES, 0, TB_PQ_TEXT);
	for (i = 0; i < C_NFIXED; i++)
		t->field[i] = -1;
	t->pid_field = -1;
	for (i = 0; fmt && i < fmt->ncommon && i < fmt->nfields; i++)
		if (fmt->fields[i].name_len == 10 && !memcmp(fmt->fields[i].name, "common_pid", 10))
			t->pid_field = (int32_t)i;
	if (!fmt) {
		set_col(&t->cols[E_SYSTEM], "system", TB_PQ_BYTES, 0, TB_PQ_TEXT | TB_PQ_NULLABLE);
		set_col(&t->cols[E_NAME], "name", TB_PQ_BYTES, 0, TB_PQ_TEXT | TB_PQ_NULLABLE);
		set_col(&t->cols[E_ID], "id", TB_PQ_INT, 32, TB_PQ_NULLABLE);
		set_col(&t->cols[E_BUFFER], "buffer", TB_PQ_BYTES, 0, TB_PQ_TEXT);
		if (o->text)
			set_col(&t->cols[E_TEXT], "text", TB_PQ_BYTES, 0,
				TB_PQ_TEXT | TB_PQ_NULLABLE);
		for (i = C_NFIXED; i < n; i++)
			t->field[i] = -1;
	} else {
		for (i = 0; i < fmt->nfields; i++) {
			const tb_field *f = &fmt->fields[i];
			tb_pq_column *c = &t->cols[C_NFIXED + i];
			size_t len = f->name_len, k = 2;
			field_col(c, f);
			t->field[C_NFIXED + i] = (int32_t)i;
			/* a name already taken (ts, cpu, pid, comm, or an earlier
			 * field after renaming) gets _2, _3, ... */
			t->names[C_NFIXED + i] = malloc(len + 24);
			if (!t->names[C_NFIXED + i]) {
				out_error(o, file, "out of memory", 0);
				return -1;
			}
			memcpy(t->names[C_NFIXED + i], f->name, len);
			t->names[C_NFIXED + i][len] = 0;
			while (col_named(t, C_NFIXED + i, t->names[C_NFIXED + i],
					 strlen(t->names[C_NFIXED + i]))) {
				snprintf(t->names[C_NFIXED + i] + len, 24, "_%zu", k++);
				t->renamed += k == 3;
			}
			c->name = t->names[C_NFIXED + i];
			c->name_len = strlen(c->name);
			if (!c->name_len) {
				/* cannot happen for a parsed format: names are non-empty */
				c->name = "_";
				c->name_len = 1;
			}
		}
	}
	for (i = 0; i < n; i++) {
		tb_pq_column *c = &t->cols[i];
		c->cap = c->kind == TB_PQ_INT ? INT_CAP : o->var_cap;
		c->buf = malloc(c->cap);
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
	for (i = 0; i < t->ncols; i++) {
		free(t->cols[i].buf);
		free(t->names[i]);
	}
	free(t->cols);
	free(t->vals);
	free(t->names);
	free(t->field);
	free(t->footer);
	free(t->path);
	memset(t, 0, sizeof(*t));
}

/* ---- events ---- */

static size_t cut_nul(const uint8_t *p, size_t n)
{
	const uint8_t *z = p ? memchr(p, 0, n) : NULL;
	return z ? (size_t)(z - p) : n;
}

static void text_value(tb_pq_value *v, const void *p, size_t n)
{
	memset(v, 0, sizeof(*v));
	v->p = p;
	v->n = n;
}

static cpu_count *cpu_slot(pq_out *o, uint32_t cpu)
{
	size_t i;
	cpu_count *n;
	if (o->last_cpu && o->last_cpu->cpu == cpu && o->last_cpu->buffer == o->buffer)
		return o->last_cpu;
	for (i = 0; i < o->ncpus; i++)
		if (o->cpus[i].buffer == o->buffer && o->cpus[i].cpu == cpu)
			return o->last_cpu = &o->cpus[i];
	n = realloc(o->cpus, (o->ncpus + 1) * sizeof(*n));
	if (!n)
		return NULL;
	o->cpus = n;
	memset(&n[o->ncpus], 0, sizeof(*n));
	n[o->ncpus].buffer = o->buffer;
	n[o->ncpus].cpu = cpu;
	return o->last_cpu = &n[o->ncpus++];
}

static int mkdir_p(const char *dir);

/* The table of format f in the current buffer: SYSTEM-EVENT.parquet,
 * under buffer-NAME/ for an instance's buffer; created on first use. */
static pq_table *format_table(pq_out *o, const tb_format *f)
{
	size_t idx = (size_t)(f - o->df->set.events), at = 0, k, slot;
	char file[600];
	pq_table *t;
	if (idx >= o->nformats)
		return NULL;
	slot = o->buffer * o->nformats + idx;
	if (o->by_format[slot])
		return o->by_format[slot];
	t = calloc(1, sizeof(*t));
	if (!t) {
		out_error(o, o->dir, "out of memory", 0);
		return NULL;
	}
	o->by_format[slot] = t;
	if (o->buffer_len) {
		char *sub;
		memcpy(file, "buffer-", 7);
		at = 7;
		put_name(file, &at, o->buffer_name, o->buffer_len);
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
	for (k = 0; k < o->nformats * o->nbuffers; k++) {
		const pq_table *u = o->by_format[k];
		size_t dl = strlen(o->dir);
		if (u && u != t && u->path && !strncmp(u->path + dl + 1, file, at) &&
		    u->path[dl + 1 + at] == '.') {
			at += (size_t)snprintf(file + at, sizeof(file) - at, ".%u", f->id);
			break;
		}
	}
	snprintf(file + at, sizeof(file) - at, ".parquet");
	if (table_start(o, t, f, file, NULL, 0))
		return NULL;
	return t;
}

static void on_event(pq_out *o, const tb_dat_event *ev, const tb_format *f)
{
	const tb_datfile *df = o->df;
	pq_table *t = f ? format_table(o, f) : NULL;
	pq_table *all = &o->all;
	int32_t pid = 0;
	int have_pid = 0;
	size_t comm_len = 0, i;
	const char *comm;
	cpu_count *cc = cpu_slot(o, ev->cpu);
	tb_error e;
	if (o->failed || (f && !t))
		return;
	o->events++;
	if (cc) {
		cc->events++;
		if (ev->missed > 0)
			cc->dropped += (uint64_t)ev->missed;
		else if (ev->missed < 0)
			cc->drops_unknown++;
	}
	if (f && t) {
		/* a field that does not read is a null; the others still count */
		if (tb_format_decode(f, ev->data, ev->len, df->d.big_endian, o->fv,
				     f->nfields, &e) != TB_OK)
			o->bad_records++;
		if (t->pid_field >= 0 && o->fv[t->pid_field].status == TB_OK) {
			pid = (int32_t)(uint32_t)o->fv[t->pid_field].num;
			have_pid = 1;
		}
	} else {
		o->no_format++;
	}
	comm = have_pid ? tb_datfile_comm(df, pid, &comm_len) : "<...>";
	if (!have_pid)
		comm_len = 5;
	memset(all->vals, 0, all->ncols * sizeof(*all->vals));
	all->vals[C_TS].i = ev->ts;
	all->vals[C_CPU].i = ev->cpu;
	all->vals[C_PID].i = (uint64_t)(int64_t)pid;
	all->vals[C_PID].is_null = !have_pid;
	text_value(&all->vals[C_COMM], comm, comm_len);
	if (t) {
		text_value(&all->vals[E_SYSTEM], f->system, f->system ? f->system_len : 0);
		all->vals[E_SYSTEM].is_null = !f->system;
		text_value(&all->vals[E_NAME], f->name, f->name_len);
		all->vals[E_ID].i = f->id;
	} else {
		all->vals[E_SYSTEM].is_null = 1;
		all->vals[E_NAME].is_null = 1;
		all->vals[E_ID].is_null = 1;
	}
	text_value(&all->vals[E_BUFFER], o->buffer_name, o->buffer_len);
	if (o->text)
		all->vals[E_TEXT].is_null = 1;
	if (table_row(o, all) || !t)
		return;
	memcpy(t->vals, all->vals, C_NFIXED * sizeof(*t->vals));
	for (i = C_NFIXED; i < t->ncols; i++) {
		const tb_field_value *fv = &o->fv[t->field[i]];
		const tb_pq_column *c = &t->cols[i];
		const tb_field *fd = &f->fields[t->field[i]];
		tb_pq_value *v = &t->vals[i];
		memset(v, 0, sizeof(*v));
		if (fv->status != TB_OK) {
			v->is_null = 1;
			continue;
		}
		switch (c->kind) {
		case TB_PQ_INT:
			v->i = fv->num;
			break;
		case TB_PQ_BYTES:
			v->p = fv->data;
			v->n = (c->flags & TB_PQ_TEXT) ? cut_nul(fv->data, fv->len) : fv->len;
			break;
		default:
			if (fv->len % fd->elem_size) {
				v->is_null = 1;
				break;
			}
			v->p = fv->data;
			v->n = fv->len / fd->elem_size;
			v->elem_size = fd->elem_size;
			v->big_endian = df->d.big_endian;
			break;
		}
	}
	table_row(o, t);
}

/* ---- metadata.json ---- */

static void json_kv(FILE *m, const char *key, const char *s, size_t n, int comma)
{
	fprintf(m, "%s\"%s\":", comma ? "," : "", key);
	tb_cli_json_str(m, s ? s : "", s ? n : 0);
}

static int write_metadata(pq_out *o, const char *src)
{
	const tb_datfile *df = o->df;
	char *path = malloc(strlen(o->dir) + 16);
	FILE *m;
	size_t i;
	int first = 1;
	if (!path)
		return -1;
	sprintf(path, "%s/metadata.json", o->dir);
	m = fopen(path, "w");
	if (!m) {
		out_error(o, path, "cannot open", errno);
		free(path);
		return -1;
	}
	fprintf(m, "{\"tracebound_version\":\"%s\"", tb_version());
	json_kv(m, "source", src, strlen(src), 1);
	fprintf(m, ",\"container\":\"trace.dat v%u\"", df->d.version);
	json_kv(m, "compression", df->d.compression.len ? df->d.compression.ptr : "none",
		df->d.compression.len ? df->d.compression.len : 4, 1);
	json_kv(m, "uname", df->d.uname.ptr, df->d.uname.len, 1);
	json_kv(m, "trace_clock", df->d.trace_clock.len ? df->d.trace_clock.ptr : df->d.v6_clock.ptr,
		df->d.trace_clock.len ? df->d.trace_clock.len : df->d.v6_clock.len, 1);
	fprintf(m, ",\"events\":%llu,\"events_without_format\":%llu,\"malformed_pages\":%llu",
		(unsigned long long)o->events, (unsigned long long)o->no_format,
		(unsigned long long)o->bad_pages);
	fprintf(m, ",\"records_with_unreadable_fields\":%llu",
		(unsigned long long)o->bad_records);
	fprintf(m, ",\"formats_rejected\":%zu", df->format_errors);
	fprintf(m, ",\"buffers\":[");
	for (i = 0; i < df->d.nbuffers; i++) {
		const tb_dat_buffer *b = &df->d.buffers[i];
		size_t k;
		int fc = 1;
		fprintf(m, "%s{", i ? "," : "");
		json_kv(m, "name", b->name.ptr, b->name.len, 0);
		json_kv(m, "clock", b->clock.ptr, b->clock.len, 1);
		fprintf(m, ",\"latency\":%s,\"cpus\":[", b->latency ? "true" : "false");
		for (k = 0; k < o->ncpus; k++) {
			const cpu_count *c = &o->cpus[k];
			if (c->buffer != i)
				continue;
			fprintf(m, "%s{\"cpu\":%u,\"events\":%llu,\"dropped\":%llu,"
				   "\"drops_unknown\":%llu,\"malformed_pages\":%llu}",
				fc ? "" : ",", c->cpu, (unsigned long long)c->events,
				(unsigned long long)c->dropped, (unsigned long long)c->drops_unknown,
				(unsigned long long)c->damaged);
			fc = 0;
		}
		fprintf(m, "]}");
	}
	fprintf(m, "],\"tables\":[{\"file\":\"events.parquet\",\"rows\":%llu}",
		(unsigned long long)o->all.rows);
	for (i = 0; i < o->nformats * o->nbuffers; i++) {
		const pq_table *t = o->by_format[i];
		size_t k;
		int fb = 1;
		const char *file;
		if (!t || !t->path)
			continue;
		file = t->path + strlen(o->dir) + 1;
		fprintf(m, ",{");
		json_kv(m, "file", file, strlen(file), 0);
		fprintf(m, ",\"buffer\":%zu", i / o->nformats);
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
		(void)first;
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

/* OUTDIR/STEM: the file's base name without ".dat" (".N" when taken
 * by an earlier FILE of this command). */
static char *stem_dir(const char *outdir, const char *path, int nth, char **used, int nused)
{
	const char *base = strrchr(path, '/');
	size_t n, k;
	char *d;
	int j, taken;
	base = base ? base + 1 : path;
	n = strlen(base);
	if (n > 4 && !strcmp(base + n - 4, ".dat"))
		n -= 4;
	if (!n || (n == 1 && base[0] == '.') || (n == 2 && !strncmp(base, "..", 2))) {
		base = "trace";
		n = 5;
	}
	d = malloc(strlen(outdir) + n + 32);
	if (!d)
		return NULL;
	for (k = 1;; k++) {
		int len = sprintf(d, "%s/%.*s", outdir, (int)n, base);
		if (k > 1)
			sprintf(d + len, ".%zu", k);
		taken = 0;
		for (j = 0; j < nused; j++)
			if (used[j] && !strcmp(used[j], d))
				taken = 1;
		if (!taken)
			break;
	}
	(void)nth;
	return d;
}

static int convert_one(const char *dir, const char *path, int text, uint8_t *scratch,
		       size_t scap, uint8_t *cscratch, size_t ccap, void *zc)
{
	tb_datfile df;
	pq_out o;
	size_t b, i;
	int rc = 0, malformed = 0, progress = isatty(2);
	memset(&o, 0, sizeof(o));
	(void)zc;
	o.dir = dir;
	o.text = text;
	o.var_cap = VAR_CAP;
	o.scratch = scratch;
	o.scratch_cap = scap;
	o.cscratch = cscratch;
	o.cscratch_cap = ccap;
#ifdef TB_HAVE_ZSTD
	o.zc = zc;
#endif
	rc = tb_datfile_open(&df, path, stderr, 1);
	if (rc) {
		tb_datfile_perror(&df);
		tb_datfile_close(&df);
		return rc == 1 ? TB_EXIT_MALFORMED : TB_EXIT_USAGE;
	}
	o.df = &df;
	for (b = 0; b < df.d.nbuffers; b++)
		if (4 * (size_t)df.d.buffers[b].page_size > o.var_cap)
			o.var_cap = 4 * (size_t)df.d.buffers[b].page_size;
	if (4 * (size_t)df.d.page_size > o.var_cap)
		o.var_cap = 4 * (size_t)df.d.page_size;
	o.nformats = df.set.events_cap;
	o.nbuffers = df.d.nbuffers ? df.d.nbuffers : 1;
	o.by_format = calloc(o.nformats * o.nbuffers + 1, sizeof(*o.by_format));
	o.fv = calloc(TB_FORMAT_MAX_FIELDS, sizeof(*o.fv));
	if (!o.by_format || !o.fv || mkdir_p(dir)) {
		out_error(&o, dir, o.by_format && o.fv ? "cannot create" : "out of memory",
			  o.by_format && o.fv ? errno : 0);
		goto done;
	}
	{
		tb_pq_kv kv[2] = { { "tracebound.source", 17, path, strlen(path) },
				   { "tracebound.table", 16, "events", 6 } };
		if (table_start(&o, &o.all, NULL, "events.parquet", kv, 2))
			goto done;
	}
	for (b = 0; b < df.d.nbuffers && !o.failed; b++) {
		const tb_dat_buffer *buf = &df.d.buffers[b];
		tb_datbuf db;
		tb_status st;
		tb_error e;
		if (buf->latency)
			continue;
		o.buffer = (uint32_t)b;
		o.buffer_name = buf->name.ptr;
		o.buffer_len = buf->name.len;
		rc = tb_datbuf_open(&df, buf, 0, &db, &st, &e);
		if (rc == 2) {
			out_error(&o, path, "out of memory", 0);
			break;
		}
		if (rc == 1) {
			fprintf(stderr, "tracebound: %s: buffer %zu: %s at file offset %llu (%s)\n",
				path, b, e.what, (unsigned long long)e.offset, tb_strerror(st));
			malformed = 1;
			continue;
		}
		while (!o.failed) {
			tb_dat_event ev;
			const tb_format *f;
			st = tb_dat_stream_next(&db.s, &ev, &e);
			if (st == TB_END)
				break;
			if (st) {
				cpu_count *cc;
				o.bad_pages++;
				malformed = 1;
				o.buffer = (uint32_t)b;
				if (db.s.error_cpu < TB_DAT_MAX_CPUS &&
				    (cc = cpu_slot(&o, db.s.error_cpu)) != NULL)
					cc->damaged++;
				fprintf(stderr,
					"tracebound: %s: CPU %u page %llu: %s at file offset %llu (%s)\n",
					path, db.s.error_cpu, (unsigned long long)db.s.error_page,
					e.what, (unsigned long long)e.offset, tb_strerror(st));
				continue;
			}
			if (progress && (o.events & 0xfffff) == 0 && o.events)
				fprintf(stderr, "\r%s: %llu events", path,
					(unsigned long long)o.events);
			f = tb_datfile_lookup(&df, ev.data, ev.len);
			on_event(&o, &ev, f);
		}
		tb_datbuf_close(&db);
	}
	if (progress && o.events > 0xfffff)
		fprintf(stderr, "\r\n");
	/* formats or tables that did not parse (said on stderr): malformed */
	if (df.format_errors || df.table_errors)
		malformed = 1;
	if (!o.failed)
		table_finish(&o, &o.all);
	for (i = 0; i < o.nformats * o.nbuffers && !o.failed; i++)
		if (o.by_format[i])
			table_finish(&o, o.by_format[i]);
	if (!o.failed)
		write_metadata(&o, path);
done:
	if (o.all.cols)
		table_free(&o.all);
	for (i = 0; o.by_format && i < o.nformats * o.nbuffers; i++)
		if (o.by_format[i]) {
			table_free(o.by_format[i]);
			free(o.by_format[i]);
		}
	free(o.by_format);
	free(o.fv);
	free(o.cpus);
	tb_datfile_close(&df);
	if (o.failed)
		return TB_EXIT_USAGE;
	return malformed ? TB_EXIT_MALFORMED : TB_EXIT_OK;
}

int tb_convert_parquet(int argc, char **argv)
{
	int i = 1, text = 0, rc = TB_EXIT_OK, nfiles, k;
	const char *outdir;
	uint8_t *scratch, *cscratch = NULL;
	size_t scap = tb_pq_scratch_size(4 * (size_t)TB_DAT_PAGE_MAX), ccap = 0;
	char **dirs;
	void *zc = NULL;
	for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
		if (!strcmp(argv[i], "--text")) {
			text = 1;
		} else if (!strcmp(argv[i], "--")) {
			i++;
			break;
		} else {
			fprintf(stderr, "tracebound: convert: unknown option '%s'\n", argv[i]);
			i = argc;
			break;
		}
	}
	if (argc - i < 2) {
		fprintf(stderr, "usage: tracebound convert --to parquet [--text] OUTDIR FILE.dat...\n");
		return TB_EXIT_USAGE;
	}
	outdir = argv[i++];
	nfiles = argc - i;
	if (mkdir_p(outdir)) {
		fprintf(stderr, "tracebound: %s: cannot create: %s\n", outdir, strerror(errno));
		return TB_EXIT_USAGE;
	}
	scratch = malloc(scap);
	dirs = calloc((size_t)nfiles + 1, sizeof(*dirs));
#ifdef TB_HAVE_ZSTD
	ccap = ZSTD_compressBound(scap);
	cscratch = malloc(ccap);
	zc = ZSTD_createCCtx();
#endif
	if (!scratch || !dirs || (ccap && (!cscratch || !zc))) {
		fprintf(stderr, "tracebound: out of memory\n");
		rc = TB_EXIT_USAGE;
		goto out;
	}
	for (k = 0; k < nfiles; k++) {
		int r;
		dirs[k] = stem_dir(outdir, argv[i + k], k, dirs, k);
		if (!dirs[k]) {
			fprintf(stderr, "tracebound: out of memory\n");
			rc = TB_EXIT_USAGE;
			break;
		}
		r = convert_one(dirs[k], argv[i + k], text, scratch, scap, cscratch, ccap, zc);
		if (r > rc)
			rc = r;
	}
out:
	for (k = 0; dirs && k < nfiles; k++)
		free(dirs[k]);
	free(dirs);
	free(scratch);
	free(cscratch);
#ifdef TB_HAVE_ZSTD
	ZSTD_freeCCtx(zc);
#endif
	return rc;
}
