/*
 * perf.data harness: whole files and pipe streams.
 *
 * Input: byte 0 chooses the split pattern of the stream, byte 1 its
 * parameter; the rest is read as a perf.data file and as a pipe stream.
 *
 * The promises of perfdata.h checked:
 * - file mode: every section, feature, record, field span and trailing
 *   data lies inside the input, every record inside the data section and
 *   each one where the previous ended; an error's offset lies inside the
 *   input; need does not depend on the storage given (an open with none
 *   reports TB_ERR_NO_SPACE and the same need as a successful one), and
 *   TB_OK never comes with more attrs or ids than stored;
 * - the tracing data of a file opens (or fails) inside its own bytes;
 * - pipe mode: the stream decodes to the same records and the same end
 *   whether given whole or in pieces (each an exact-size heap copy), its
 *   records follow each other without gaps, and a call that gives no
 *   record consumes input or ends;
 * - both, with COMPRESSED payloads "decompressed" by copying (a few bytes
 *   a call, as byte 0 says): the records inside lie in the window, at the
 *   offset of a COMPRESSED record already read, the same however split.
 * - the session over it (file or stream, with and without the copying
 *   decompressor, from memory or read through a read function whose every
 *   request lies inside the file): within a 4 MiB budget, every event's record offset
 *   inside the input and its RAW bytes inside the input or the session's
 *   memory, every line and JSON object rendered, the walk ending.
 */
#include <string.h>

#include "fuzz.h"
#include "tracebound/perfdata.h"
#include "tracebound/session_perf.h"
#include "tracebound/tracedat.h"
#include "../tests/heapmem.h"
#include "../tests/perfwriter.h"

#define MAX_ATTRS 64
#define WINDOW TB_PERF_WINDOW_MIN
#define MAX_IDS 1024
#define MAX_RECS 8192

typedef struct storage {
	tb_perf_attr attrs[MAX_ATTRS];
	tb_perf_id ids[MAX_IDS];
	uint8_t tracing[1 << 16];
	tb_perf_storage st;
} storage;

static void check_span(const void *p, size_t n, const tb_perf_record *r)
{
	if (n)
		TB_FUZZ_CHECK(tb_fuzz_inside(p, n, r->data.ptr, r->data.len));
}

static void check_u64s(const tb_perf_u64s *a, const tb_perf_record *r)
{
	TB_FUZZ_CHECK(a->n <= r->data.len / 8);
	check_span(a->ptr, (size_t)a->n * 8u, r);
	TB_FUZZ_CHECK(tb_perf_u64_at(a, a->n) == 0);
}

/* What every record must keep, wherever it came from. */
static void check_record(const tb_perf_record *r)
{
	const tb_perf_sample *s = &r->s;
	TB_FUZZ_CHECK(r->data.len == r->size && r->size >= 8);
	if (r->has_sample) {
		check_u64s(&s->read, r);
		check_u64s(&s->callchain, r);
		check_u64s(&s->branches, r);
		check_u64s(&s->branch_counters, r);
		check_u64s(&s->regs_user, r);
		check_u64s(&s->regs_intr, r);
		check_span(s->raw.ptr, s->raw.len, r);
		check_span(s->stack_user.ptr, s->stack_user.len, r);
		check_span(s->aux.ptr, s->aux.len, r);
		TB_FUZZ_CHECK(s->branches.n == (s->present & TB_PERF_SAMPLE_BRANCH_STACK
							? s->branch_nr * 3 : 0));
	}
	switch (r->type) {
	case TB_PERF_RECORD_COMM:
		check_span(r->u.comm.comm.ptr, r->u.comm.comm.len + 1, r); /* and its NUL */
		break;
	case TB_PERF_RECORD_MMAP:
	case TB_PERF_RECORD_MMAP2:
		check_span(r->u.mmap.filename.ptr, r->u.mmap.filename.len + 1, r);
		check_span(r->u.mmap.build_id.ptr, r->u.mmap.build_id.len, r);
		break;
	case TB_PERF_RECORD_HEADER_FEATURE:
		check_span(r->u.feature.data.ptr, r->u.feature.data.len, r);
		break;
	default:
		break;
	}
}

/* The feature sections of an opened file, each read as what it is. */
static void walk_features(const tb_perf *f, const uint8_t *in, size_t len)
{
	unsigned id;
	for (id = 0; id < TB_PERF_FEAT_BITS; id++) {
		tb_perf_feature ft;
		tb_perf_str_iter si;
		tb_perf_desc_iter di;
		tb_perf_event_desc ed;
		tb_perf_bytes s;
		tb_error e;
		tb_status st = tb_perf_feature_get(f, id, &ft, &e);
		size_t guard = 0;
		if (st == TB_NOT_FOUND)
			continue;
		TB_FUZZ_CHECK(st == TB_OK); /* the open checked the table */
		TB_FUZZ_CHECK(ft.data.len == 0 || tb_fuzz_inside(ft.data.ptr, ft.data.len, in, len));
		if (tb_perf_feature_string(f, &ft, &s, &e) == TB_OK)
			TB_FUZZ_CHECK(s.len == 0 || tb_fuzz_inside(s.ptr, s.len, ft.data.ptr, ft.data.len));
		else
			TB_FUZZ_CHECK(e.offset <= len);
		if (tb_perf_strings_begin(&si, f, &ft, &e) == TB_OK) {
			while ((st = tb_perf_strings_next(&si, &s, &e)) == TB_OK) {
				TB_FUZZ_CHECK(s.len == 0 ||
					      tb_fuzz_inside(s.ptr, s.len, ft.data.ptr, ft.data.len));
				TB_FUZZ_CHECK(++guard <= ft.data.len / 4);
			}
			TB_FUZZ_CHECK(st == TB_END || e.offset <= len);
		}
		guard = 0;
		if (tb_perf_event_desc_begin(&di, f, &ft, &e) == TB_OK) {
			while ((st = tb_perf_event_desc_next(&di, &ed, &e)) == TB_OK) {
				TB_FUZZ_CHECK(ed.name.len == 0 ||
					      tb_fuzz_inside(ed.name.ptr, ed.name.len, ft.data.ptr,
							     ft.data.len));
				TB_FUZZ_CHECK(ed.ids.n == 0 ||
					      tb_fuzz_inside(ed.ids.ptr, (size_t)ed.ids.n * 8,
							     ft.data.ptr, ft.data.len));
				TB_FUZZ_CHECK(++guard <= ft.data.len / 72);
			}
			TB_FUZZ_CHECK(st == TB_END || e.offset <= len);
		}
	}
	if (f->tracing_data.len) {
		static tb_dat_event_text ev[64];
		tb_dat_storage ds;
		tb_dat_open_opts o = { TB_DAT_OPEN_PERF_TRACING, NULL, 0 };
		tb_dat d;
		tb_error e;
		memset(&ds, 0, sizeof(ds));
		ds.events = ev;
		ds.events_cap = 64;
		if (tb_dat_open_ex(&d, f->tracing_data.ptr, f->tracing_data.len, &ds, NULL, &o, &e) ==
		    TB_OK)
			TB_FUZZ_CHECK(d.nevents <= 64 && d.nbuffers == 0);
		else
			TB_FUZZ_CHECK(e.offset <= f->tracing_data.len);
	}
}

/* The walk again, COMPRESSED records drained: every record inside the
 * data section or the window, every error inside the input. */
static void file_inflate(const tb_perf *f, const uint8_t *in, size_t len, size_t chunk)
{
	static uint8_t window[WINDOW];
	tb_perf_decompressor dc = { pw_copy_decompress, &chunk, window, WINDOW };
	tb_perf_iter it;
	tb_perf_record r;
	tb_error e;
	tb_status st;
	size_t n = 0;
	uint64_t end = f->data.offset + f->data.size;
	TB_FUZZ_CHECK(tb_perf_records_begin(&it, f, &e) == TB_OK);
	TB_FUZZ_CHECK(tb_perf_records_decompress(&it, &dc) == TB_OK);
	while ((st = tb_perf_record_next(&it, &r, &e)) != TB_END) {
		TB_FUZZ_CHECK(++n <= 2 * len + 16);
		if (st != TB_OK) {
			TB_FUZZ_CHECK(tb_is_error(st));
			TB_FUZZ_CHECK(e.offset >= f->data.offset && e.offset <= end);
			if (it.sticky != TB_OK)
				break;
			continue;
		}
		TB_FUZZ_CHECK(r.offset >= f->data.offset && r.offset < end);
		if (r.decompressed)
			TB_FUZZ_CHECK(tb_fuzz_inside(r.data.ptr, r.data.len, window, WINDOW));
		else
			TB_FUZZ_CHECK(tb_fuzz_inside(r.data.ptr, r.data.len, in + f->data.offset,
						     (size_t)f->data.size));
		TB_FUZZ_CHECK(r.type != TB_PERF_RECORD_COMPRESSED &&
			      r.type != TB_PERF_RECORD_COMPRESSED2);
		check_record(&r);
	}
}

static void file_mode(const uint8_t *in, size_t len, storage *s, size_t chunk)
{
	tb_perf f, g;
	tb_perf_iter it;
	tb_perf_record r;
	tb_error e;
	tb_status st = tb_perf_open(&f, in, len, &s->st, &e);
	uint64_t next, end;
	size_t n = 0;
	if (st != TB_OK) {
		TB_FUZZ_CHECK(tb_is_error(st));
		TB_FUZZ_CHECK(e.offset <= len);
		return;
	}
	TB_FUZZ_CHECK(f.nattrs == f.need.attrs && f.nattrs <= MAX_ATTRS);
	TB_FUZZ_CHECK(f.nids == f.need.ids && f.nids <= MAX_IDS);
	TB_FUZZ_CHECK(f.data.offset <= len && f.data.size <= len - f.data.offset);
	/* need is the same without storage */
	if (f.need.attrs || f.need.ids) {
		TB_FUZZ_CHECK(tb_perf_open(&g, in, len, NULL, &e) == TB_ERR_NO_SPACE);
		TB_FUZZ_CHECK(g.need.attrs == f.need.attrs && g.need.ids == f.need.ids);
	}
	walk_features(&f, in, len);
	TB_FUZZ_CHECK(tb_perf_records_begin(&it, &f, &e) == TB_OK);
	next = f.data.offset;
	end = f.data.offset + f.data.size;
	for (;;) {
		st = tb_perf_record_next(&it, &r, &e);
		if (st == TB_END)
			break;
		TB_FUZZ_CHECK(++n <= len); /* progress: each call moves on */
		if (st != TB_OK) {
			TB_FUZZ_CHECK(tb_is_error(st));
			TB_FUZZ_CHECK(e.offset >= f.data.offset && e.offset <= end);
			if (it.sticky != TB_OK)
				break;
			TB_FUZZ_CHECK(it.pos > next);
			next = it.pos;
			continue;
		}
		TB_FUZZ_CHECK(r.offset == next);
		TB_FUZZ_CHECK(tb_fuzz_inside(r.data.ptr, r.data.len, in + f.data.offset,
					     (size_t)f.data.size));
		TB_FUZZ_CHECK(r.extra.len == 0 ||
			      tb_fuzz_inside(r.extra.ptr, r.extra.len, in + f.data.offset,
					     (size_t)f.data.size));
		check_record(&r);
		next = r.offset + r.size + r.extra.len;
		TB_FUZZ_CHECK(next <= end);
	}
	file_inflate(&f, in, len, chunk);
}

/* A record of the stream, as compared between two decodes. */
typedef struct seen {
	uint64_t offset, extra_len;
	uint32_t type;
	uint16_t size;
	tb_status st;
} seen;

typedef struct outcome {
	seen *v;
	size_t n;
	tb_status end;
	tb_error err;
} outcome;

static void stream(const uint8_t *in, size_t len, int split, uint8_t mode, uint8_t param,
		   size_t *chunk, storage *s, tb_perf_stream *p, outcome *out)
{
	static uint8_t window[WINDOW];
	tb_perf_decompressor dc = { pw_copy_decompress, chunk, window, WINDOW };
	tb_fuzz_split sp;
	size_t iters = 0;
	uint64_t next = 16;
	out->n = 0;
	tb_fuzz_split_init(&sp, mode, param);
	if (split)
		tb_perf_stream_init(p, &s->st);
	else
		TB_FUZZ_CHECK(tb_perf_stream_open_buffer(p, &s->st, in, len) == TB_OK);
	if (chunk)
		TB_FUZZ_CHECK(tb_perf_stream_decompress(p, &dc) == TB_OK);
	for (;;) {
		tb_perf_record r;
		tb_error e = { TB_OK, 0, "" };
		tb_status st = tb_perf_stream_next(p, &r, &e);
		TB_FUZZ_CHECK(++iters <= 4 * len + 64);
		if (st == TB_NEED_MORE) {
			size_t n;
			TB_FUZZ_CHECK(split);
			n = tb_fuzz_next_piece(&sp, in, len);
			if (n == 0)
				tb_perf_stream_close(p);
			else
				TB_FUZZ_CHECK(tb_perf_stream_feed(p, sp.piece, n) == TB_OK);
			continue;
		}
		if (st == TB_OK || (tb_is_error(st) && p->sticky == TB_OK)) {
			seen *v;
			TB_FUZZ_CHECK(out->n < MAX_RECS + 1);
			if (out->n == MAX_RECS)
				break;
			v = &out->v[out->n++];
			v->st = st;
			if (st == TB_OK && r.decompressed) {
				/* at the COMPRESSED record that completed it */
				TB_FUZZ_CHECK(r.offset >= 16 && r.offset < p->offset);
				TB_FUZZ_CHECK(tb_fuzz_inside(r.data.ptr, r.data.len, window, WINDOW));
				check_record(&r);
				v->offset = r.stream_offset;
				v->type = r.type;
				v->size = r.size;
				v->extra_len = 0;
			} else if (st == TB_OK) {
				TB_FUZZ_CHECK(chunk || r.offset == next);
				TB_FUZZ_CHECK(r.offset >= next);
				check_record(&r);
				TB_FUZZ_CHECK(r.extra.len == 0 || r.extra.len == r.extra_len);
				v->offset = r.offset;
				v->type = r.type;
				v->size = r.size;
				v->extra_len = r.extra_len;
				next = r.offset + r.size + r.extra_len;
			} else {
				TB_FUZZ_CHECK(e.offset <= len);
				v->offset = e.offset;
				v->type = 0;
				v->size = 0;
				v->extra_len = 0;
				next = p->offset; /* the faulty record was stepped over */
			}
			continue;
		}
		out->end = st;
		out->err = e;
		TB_FUZZ_CHECK(st == TB_END || tb_is_error(st));
		if (st != TB_END)
			TB_FUZZ_CHECK(e.offset <= len);
		if (st == TB_END)
			TB_FUZZ_CHECK(chunk || next == len);
		break;
	}
	if (!split) { /* fed whole: feature strings kept point into the input */
		const tb_perf_bytes *str[] = { &p->f.hostname, &p->f.osrelease, &p->f.version,
					       &p->f.arch, &p->f.cpudesc, &p->f.cpuid };
		size_t k;
		for (k = 0; k < sizeof(str) / sizeof(str[0]); k++)
			TB_FUZZ_CHECK(str[k]->len == 0 ||
				      tb_fuzz_inside(str[k]->ptr, str[k]->len, in, len));
	}
	free(sp.piece);
}

/* The copying "decompressor" for the session (no state to reset). */
static size_t session_chunk;
static tb_status session_copy(void *ctx, const uint8_t *src, size_t src_len, size_t *consumed,
			      uint8_t *dst, size_t dst_cap, size_t *produced)
{
	size_t n = src_len < dst_cap ? src_len : dst_cap;
	(void)ctx;
	if (n > session_chunk)
		n = session_chunk;
	if (n)
		memcpy(dst, src, n);
	*consumed = *produced = n;
	return TB_OK;
}

/* The session's read function over the input: what it asks lies inside
 * the file (the data section's bytes: a promise, not only no crash). */
typedef struct in_file {
	const uint8_t *b;
	size_t len;
} in_file;

static int in_read(void *ctx, uint64_t off, void *buf, size_t len)
{
	in_file *f = ctx;
	TB_FUZZ_CHECK(off <= f->len && len <= f->len - off && len > 0);
	memcpy(buf, f->b + off, len);
	return 0;
}

static void session_walk(const uint8_t *data, size_t size, int inflate, int read_through)
{
	in_file f = { data, size };
	static char line[1 << 16];
	tb_session_options opt = { TB_SESSION_SKIP_DAMAGED, 0 };
	tb_session_source src;
	tb_session *s;
	tb_session_event ev;
	tb_error e;
	tb_status st;
	size_t n = 0;
	memset(&src, 0, sizeof(src));
	src.perf = data;
	src.perf_len = size;
	if (read_through) {
		src.read = in_read;
		src.read_ctx = &f;
	}
	if (tb_session_open_budget(&s, &src, &opt, &tb_heap_mem, 4u << 20, NULL, &e) != TB_OK)
		return;
	if (inflate) {
		tb_session_perf_inflater z = { session_copy, NULL, NULL };
		if (tb_session_perf_decompress(s, &z, &e) != TB_OK) {
			tb_session_close(s);
			return;
		}
	}
	while ((st = tb_session_next(s, &ev, &e)) != TB_END) {
		TB_FUZZ_CHECK(++n <= size); /* a record is at least 8 bytes */
		if (st != TB_OK)
			continue;
		if (ev.kind == TB_SEV_EVENT)
			TB_FUZZ_CHECK(ev.page_offset < size);
		(void)tb_session_text(s, &ev, TB_TEXT_PRINT | TB_TEXT_LINE, line, sizeof(line),
				      NULL);
		(void)tb_session_text(s, &ev, TB_TEXT_JSON | TB_TEXT_WITH_PRINT, line,
				      sizeof(line), NULL);
	}
	tb_session_close(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static storage s;
	static tb_perf_stream p;
	static seen a[MAX_RECS], b[MAX_RECS];
	outcome whole = { a, 0, TB_OK, { TB_OK, 0, "" } };
	outcome cut = { b, 0, TB_OK, { TB_OK, 0, "" } };
	uint8_t mode, param;
	size_t i, chunk;
	int pass;
	if (size < 2)
		return 0;
	mode = data[0];
	param = data[1];
	chunk = (size_t)(mode >> 2) * 97u + 1u; /* decompressor output a call */
	data += 2;
	size -= 2;
	memset(&s.st, 0, sizeof(s.st));
	s.st.attrs = s.attrs;
	s.st.attrs_cap = MAX_ATTRS;
	s.st.ids = s.ids;
	s.st.ids_cap = MAX_IDS;
	s.st.tracing = s.tracing;
	s.st.tracing_cap = sizeof(s.tracing);
	{
		/* an exact-size copy: ASan sees a read past the end */
		uint8_t *copy = malloc(size ? size : 1);
		TB_FUZZ_CHECK(copy != NULL);
		memcpy(copy, data, size);
		file_mode(copy, size, &s, chunk);
		session_chunk = chunk;
		session_walk(copy, size, mode & 1, (mode & 2) != 0);
		free(copy);
	}
	for (pass = 0; pass < 2; pass++) {
		/* without, then with a decompressor */
		size_t *ck = pass ? &chunk : NULL;
		stream(data, size, 0, 0, 0, ck, &s, &p, &whole);
		stream(data, size, 1, mode, param, ck, &s, &p, &cut);
		TB_FUZZ_CHECK(whole.n == cut.n);
		for (i = 0; i < whole.n; i++)
			TB_FUZZ_CHECK(a[i].offset == b[i].offset && a[i].type == b[i].type &&
				      a[i].size == b[i].size && a[i].st == b[i].st &&
				      a[i].extra_len == b[i].extra_len);
		if (whole.n < MAX_RECS) {
			TB_FUZZ_CHECK(whole.end == cut.end);
			TB_FUZZ_CHECK(whole.end == TB_END || whole.err.offset == cut.err.offset);
		}
	}
	return 0;
}
