/* Salvage mode of the trace.dat reader (TB_DAT_OPEN_SALVAGE): every cut
 * of the real v6, v7 and v7-zstd samples yields exactly the events of the
 * whole file whose pages (compressed: chunks) lie wholly before the cut,
 * in order, and reports the loss with its location; metadata damaged
 * with the data intact still gives every event. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datwriter.h"
#include "pagewriter.h"
#include "testutil.h"
#include "tracebound/tracedat.h"
#include "zstd_dl.h"

#define MAX_DAMAGE 64

typedef struct sv {
	tb_dat d;
	tb_dat_storage st;
	tb_dat_damage damage[MAX_DAMAGE];
	tb_error err;
	tb_kbuf_layout layout;
	tb_dat_cursor cur[8];
	uint8_t *chunks;
	size_t chunks_cap;
	tb_dat_stream s;
} sv;

/* One event of the whole file, as the plain (not salvage) open gives it. */
typedef struct full_ev {
	uint64_t ts;
	uint32_t cpu, len;
	uint64_t unit_end;   /* file offset where its page (chunk) ends */
	uint64_t unit_off;   /* and where it starts (compressed: the header) */
	uint32_t in_unit;    /* compressed: its page's index in the chunk */
	size_t payload;      /* offset in the payload blob */
} full_ev;

typedef struct full {
	full_ev *v;
	size_t n;
	uint8_t *blob;
	size_t blob_len;
	uint64_t data_start, data_end; /* the top buffer's data */
	uint64_t pages;
	uint32_t page_size;
	const tb_dat_decompressor *dc;
	char algo[16];       /* the file's compression */
} full;

static void *grow(void *p, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap && p)
		return p;
	free(p);
	*cap = need;
	return calloc(need ? need : 1, elem);
}

static const tb_dat_decompressor zstd_dc = { tb_test_zstd, NULL };
static const tb_dat_decompressor copy_dc = { dw_copy_decompress, NULL };

/* Open (growing storage as asked), salvage or not; the layout from the
 * header_page when there is one. */
static tb_status sv_open(sv *o, const uint8_t *p, size_t n, const tb_dat_decompressor *dc,
			 int salvage)
{
	tb_dat_open_opts opt = { salvage ? TB_DAT_OPEN_SALVAGE : 0u, o->damage, MAX_DAMAGE };
	tb_status s = TB_ERR_NO_SPACE;
	int i;
	for (i = 0; i < 5; i++) {
		s = tb_dat_open_ex(&o->d, p, n, &o->st, dc, &opt, &o->err);
		if (s != TB_ERR_NO_SPACE)
			break;
		o->st.events = grow(o->st.events, &o->st.events_cap, o->d.need.events,
				    sizeof(tb_dat_event_text));
		o->st.buffers = grow(o->st.buffers, &o->st.buffers_cap, o->d.need.buffers,
				     sizeof(tb_dat_buffer));
		o->st.cpus = grow(o->st.cpus, &o->st.cpus_cap, o->d.need.cpus, sizeof(tb_dat_cpu));
		o->st.cpustats = grow(o->st.cpustats, &o->st.cpustats_cap, o->d.need.cpustats,
				      sizeof(tb_dat_text));
		o->st.scratch = grow(o->st.scratch, &o->st.scratch_cap, o->d.need.scratch, 1);
	}
	return s;
}

static void sv_free(sv *o)
{
	free(o->st.events);
	free(o->st.buffers);
	free(o->st.cpus);
	free(o->st.cpustats);
	free(o->st.scratch);
	free(o->chunks);
}

/* Start the top buffer's stream; 0 when there is no top buffer. */
static int sv_start(sv *o, const tb_kbuf_layout *layout)
{
	const tb_dat_buffer *b = tb_dat_find_buffer(&o->d, "");
	size_t per_cpu;
	if (!b)
		return 0;
	ck_assert_uint_le(b->ncpus, 8);
	ck_assert_int_eq(tb_dat_chunk_max(&o->d, b, &per_cpu, &o->err), TB_OK);
	if (per_cpu * b->ncpus > o->chunks_cap || !o->chunks) {
		free(o->chunks);
		o->chunks_cap = per_cpu * b->ncpus;
		o->chunks = malloc(o->chunks_cap ? o->chunks_cap : 1);
	}
	ck_assert_int_eq(tb_dat_stream_init(&o->s, &o->d, b, layout, o->cur, 8, o->chunks,
					    per_cpu, 0, &o->err),
			 TB_OK);
	return 1;
}

static const char *sample(const char *name)
{
	static char path[4096];
	static const char *const dirs[] = { "../shared/samples/", "../../shared/samples/",
					    "tests/data/" };
	size_t i;
	for (i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s%s%s", tb_test_path(""), dirs[i], name);
		if (tb_test_exists(path))
			return path;
	}
	return NULL;
}

/* The whole file's events (plain open), and where the top buffer's data
 * lies. */
static void load_full(full *f, const uint8_t *p, size_t n, const tb_dat_decompressor *dc,
		      tb_kbuf_layout *layout)
{
	sv *o = calloc(1, sizeof(*o));
	tb_dat_event ev;
	tb_status s;
	size_t cap = 0, bcap = 0, i;
	const tb_dat_buffer *b;
	memset(f, 0, sizeof(*f));
	ck_assert_int_eq(sv_open(o, p, n, dc, 0), TB_OK);
	ck_assert_int_eq(tb_kbuf_layout_from_header_page(o->d.header_page.ptr,
							 o->d.header_page.len,
							 o->d.big_endian, layout, &o->err),
			 TB_OK);
	b = tb_dat_find_buffer(&o->d, "");
	ck_assert_ptr_nonnull(b);
	f->data_start = UINT64_MAX;
	for (i = 0; i < b->ncpus; i++) {
		uint64_t end = b->cpus[i].offset + b->cpus[i].size + (b->compressed ? 4 : 0);
		if (b->cpus[i].offset < f->data_start)
			f->data_start = b->cpus[i].offset;
		if (end > f->data_end)
			f->data_end = end;
	}
	ck_assert(sv_start(o, layout));
	while ((s = tb_dat_stream_next(&o->s, &ev, &o->err)) == TB_OK) {
		full_ev *e;
		if (f->n == cap) {
			cap = cap ? 2 * cap : 65536;
			f->v = realloc(f->v, cap * sizeof(*f->v));
		}
		if (f->blob_len + ev.len > bcap) {
			bcap = bcap ? 2 * bcap : (1u << 22);
			f->blob = realloc(f->blob, bcap);
		}
		e = &f->v[f->n++];
		e->ts = ev.ts;
		e->cpu = ev.cpu;
		e->len = ev.len;
		if (b->compressed) {
			uint32_t cs = (uint32_t)p[ev.page_off] | (uint32_t)p[ev.page_off + 1] << 8 |
				      (uint32_t)p[ev.page_off + 2] << 16 |
				      (uint32_t)p[ev.page_off + 3] << 24;
			e->unit_end = ev.page_off + 8 + cs;
			e->in_unit = o->cur[ev.cpu].page_in_chunk / b->page_size;
		} else {
			e->unit_end = ev.page_off + b->page_size;
		}
		e->unit_off = ev.page_off;
		e->payload = f->blob_len;
		memcpy(f->blob + f->blob_len, ev.data, ev.len);
		f->blob_len += ev.len;
	}
	ck_assert_int_eq(s, TB_END);
	f->pages = o->s.pages;
	f->page_size = b->page_size;
	f->dc = dc;
	snprintf(f->algo, sizeof(f->algo), "%.*s", (int)o->d.compression.len,
		 o->d.compression.ptr);
	sv_free(o);
	free(o);
}

static void free_full(full *f)
{
	free(f->v);
	free(f->blob);
}

/* The whole pages the decompressor alone gets from the part of the chunk
 * at `off` before the cut (0 when its header is cut). */
static uint64_t pages_in_cut_chunk(const full *f, const uint8_t *p, uint64_t off, size_t cut)
{
	uint32_t usize;
	size_t got = 0;
	uint8_t *u;
	tb_status s;
	if (cut < off + 8)
		return 0;
	usize = (uint32_t)p[off + 4] | (uint32_t)p[off + 5] << 8 | (uint32_t)p[off + 6] << 16 |
		(uint32_t)p[off + 7] << 24;
	u = malloc(usize ? usize : 1);
	s = f->dc->fn(NULL, f->algo, p + off + 8, cut - off - 8, u, usize, &got);
	free(u);
	if (s != TB_OK && s != TB_ERR_TRUNCATED)
		return 0;
	return got / f->page_size;
}

/* Whether the whole file's event e is in what a cut keeps: its page (chunk)
 * ends by the cut, or it lies in a whole page decoded from the chunk the
 * cut falls in (*cut_chunk, *cut_pages: that chunk, found once). */
static int kept(const full *f, const uint8_t *p, const full_ev *e, size_t cut,
		uint64_t *cut_chunk, uint64_t *cut_pages)
{
	if (e->unit_end <= cut)
		return 1;
	if (!f->dc || e->unit_off >= cut)
		return 0;
	if (*cut_chunk != e->unit_off) {
		*cut_chunk = e->unit_off;
		*cut_pages = pages_in_cut_chunk(f, p, e->unit_off, cut);
	}
	return e->in_unit < *cut_pages;
}

/* The salvage open of the first `cut` bytes gives exactly the whole
 * file's events it keeps (kept()); returns how many.  A compressed CPU
 * cut inside a chunk reports its lost pages once, at the chunk. */
static size_t check_cut(sv *o, const full *f, const uint8_t *p, size_t cut,
			const tb_dat_decompressor *dc, const tb_kbuf_layout *layout)
{
	tb_dat_event ev;
	tb_status s;
	size_t i = 0, got = 0, tails = 0, lost = 0;
	uint64_t cut_chunk = UINT64_MAX, cut_pages = 0;
	ck_assert_msg(sv_open(o, p, cut, dc, 1) == TB_OK, "cut %zu: %s at %llu", cut,
		      o->err.what, (unsigned long long)o->err.offset);
	ck_assert_msg(o->d.damage_total > 0, "cut %zu: no damage reported", cut);
	for (i = 0; i < o->d.ndamage; i++)
		if (o->d.damage[i].error.offset > cut)
			ck_abort_msg("cut %zu: damage %zu at %llu, past the end", cut, i,
				     (unsigned long long)o->d.damage[i].error.offset);
	if (!sv_start(o, layout))
		return 0;
	for (i = 0; i < o->s.b->ncpus; i++) {
		/* a cut chunk that does not decode whole loses pages */
		const tb_dat_cpu *c = &o->s.b->cpus[i];
		uint64_t at = c->offset + 4 + c->size;
		if (c->tail && pages_in_cut_chunk(f, p, at, cut) * f->page_size <
				       ((uint32_t)p[at + 4] | (uint32_t)p[at + 5] << 8 |
					(uint32_t)p[at + 6] << 16 | (uint32_t)p[at + 7] << 24))
			tails++;
	}
	i = 0;
	/* (Check's assertions write to a pipe each: the hot loop tests with
	 * if and fails with ck_abort_msg) */
	while ((s = tb_dat_stream_next(&o->s, &ev, &o->err)) != TB_END) {
		const full_ev *e;
		if (s == TB_ERR_TRUNCATED && o->s.b->compressed &&
		    o->s.b->cpus[o->s.error_cpu].tail &&
		    o->err.offset + o->s.b->cpus[o->s.error_cpu].tail == cut) {
			lost++; /* the pages of the chunk the cut falls in */
			continue;
		}
		if (s != TB_OK)
			ck_abort_msg("cut %zu: stream error %s at %llu", cut, o->err.what,
				     (unsigned long long)o->err.offset);
		while (i < f->n && !kept(f, p, &f->v[i], cut, &cut_chunk, &cut_pages))
			i++;
		if (i >= f->n)
			ck_abort_msg("cut %zu: event %zu is not in the whole file", cut, got);
		e = &f->v[i++];
		if (ev.ts != e->ts || ev.cpu != e->cpu || ev.len != e->len ||
		    memcmp(ev.data, f->blob + e->payload, ev.len))
			ck_abort_msg("cut %zu: event %zu differs (ts %llu cpu %u, want ts %llu cpu %u)",
				     cut, got, (unsigned long long)ev.ts, ev.cpu,
				     (unsigned long long)e->ts, e->cpu);
		got++;
	}
	while (i < f->n && !kept(f, p, &f->v[i], cut, &cut_chunk, &cut_pages))
		i++;
	if (i != f->n)
		ck_abort_msg("cut %zu: %zu events missing after event %zu", cut, f->n - i, got);
	if (lost != tails)
		ck_abort_msg("cut %zu: %zu cut chunks reported, %zu cut", cut, lost, tails);
	return got;
}

/* The CPU data damage of a cut in the data area: the bytes it lacks add
 * up to what the cut took from the data; for plain pages, so do the
 * pages, and the entry of the CPU the cut falls in starts at the last
 * whole page. */
static void check_cpu_loss(const sv *o, const full *f, size_t cut, int compressed,
			   uint64_t pages_kept)
{
	uint64_t missing = 0, units = 0, buffer_missing = 0;
	size_t i, ncpu = 0;
	for (i = 0; i < o->d.ndamage; i++) {
		const tb_dat_damage *g = &o->d.damage[i];
		if (g->part == TB_DAT_PART_BUFFER)
			buffer_missing += g->missing;
		if (g->part != TB_DAT_PART_CPU_DATA)
			continue;
		ncpu++;
		missing += g->missing;
		units += g->units;
		ck_assert_int_eq(g->error.status, TB_ERR_TRUNCATED);
		ck_assert_uint_eq(g->error.offset + g->length, cut);
	}
	if (ncpu == 0 && pages_kept == 0) {
		/* a v7 buffer rebuilt from a section holding no whole page:
		 * no CPU is known, the buffer's entry says what is lost */
		ck_assert_uint_eq(buffer_missing, f->data_end - cut);
		return;
	}
	ck_assert_msg(ncpu > 0, "cut %zu: no CPU data damage", cut);
	ck_assert_uint_eq(missing, f->data_end - cut);
	if (!compressed)
		ck_assert_uint_eq(units, f->pages - pages_kept);
}

static uint8_t *read_sample(const char *name, size_t *n)
{
	const char *path = sample(name);
	if (!path)
		return NULL;
	return tb_test_read_file(path, n);
}

/* Every page-granular cut of the data area (and a few byte offsets into
 * each page), then cuts sampled through the metadata. */
static void every_prefix(const char *name, const tb_dat_decompressor *dc)
{
	size_t n, cut, k = 0;
	uint8_t *p = read_sample(name, &n);
	full f;
	tb_kbuf_layout layout;
	sv *o;
	if (!p) {
		printf("salvage: %s missing, test skipped\n", name);
		return;
	}
	load_full(&f, p, n, dc, &layout);
	o = calloc(1, sizeof(*o));
	for (cut = (size_t)f.data_start; cut < f.data_end; cut += 4096) {
		size_t off = (k++ % 7) * 599; /* and inside pages, now and then */
		size_t got = check_cut(o, &f, p, cut, dc, &layout);
		check_cpu_loss(o, &f, cut, 0, o->s.pages);
		/* v6: a CPU or two; v7: and the options chain and the rebuilt
		 * buffer (lost strings are no section's fault) */
		ck_assert_uint_le(o->d.damage_total, 4);
		ck_assert_uint_eq(got, o->s.events);
		if (off && cut + off < f.data_end) {
			(void)check_cut(o, &f, p, cut + off, dc, &layout);
			check_cpu_loss(o, &f, cut + off, 0, o->s.pages);
		}
	}
	/* cuts after the data (v7: the last options section, the strings)
	 * lose no event */
	for (cut = (size_t)f.data_end; cut < n; cut += 5)
		ck_assert_uint_eq(check_cut(o, &f, p, cut, dc, &layout), f.n);
	/* the whole file opens in salvage mode with no damage */
	ck_assert_int_eq(sv_open(o, p, n, dc, 1), TB_OK);
	ck_assert_uint_eq(o->d.damage_total, 0);
	sv_free(o);
	free(o);
	free_full(&f);
	free(p);
}

START_TEST(every_page_cut_v6)
{
	every_prefix("sched4k.v6.dat", NULL);
}
END_TEST

START_TEST(every_page_cut_v7)
{
	every_prefix("sched4k.v7.dat", NULL);
}
END_TEST

/* ---- compressed: every chunk boundary, and cuts inside chunks ---- */

START_TEST(every_chunk_cut_v7zstd)
{
	size_t n, c, k = 0, nch = 0;
	uint8_t *p;
	full f;
	tb_kbuf_layout layout;
	sv *o;
	uint64_t chunk_off[256], chunk_end[256];
	const tb_dat_buffer *b;
	if (!tb_test_have_zstd() || !(p = read_sample("sched4k.v7zstd.dat", &n))) {
		printf("salvage: zstd sample or libzstd missing, test skipped\n");
		return;
	}
	load_full(&f, p, n, &zstd_dc, &layout);
	o = calloc(1, sizeof(*o));
	/* the chunks of the whole file */
	ck_assert_int_eq(sv_open(o, p, n, &zstd_dc, 0), TB_OK);
	b = tb_dat_find_buffer(&o->d, "");
	ck_assert_int_eq(b->compressed, 1);
	for (c = 0; c < b->ncpus; c++) {
		tb_dat_chunk_iter it;
		tb_dat_chunk ch;
		tb_status s;
		ck_assert_int_eq(tb_dat_chunks_begin(&it, &o->d, b, &b->cpus[c], &o->err), TB_OK);
		while ((s = tb_dat_chunk_next(&it, &ch, &o->err)) == TB_OK) {
			ck_assert_uint_lt(nch, 256);
			chunk_off[nch] = ch.offset;
			chunk_end[nch++] = ch.offset + 8 + ch.csize;
		}
		ck_assert_int_eq(s, TB_END);
	}
	ck_assert_uint_eq(nch, 36 + 22);
	for (c = 0; c < nch; c++) {
		/* just before the chunk's end, at it, inside its header */
		size_t cuts[3];
		unsigned j;
		cuts[0] = (size_t)chunk_end[c] - 1;
		cuts[1] = (size_t)chunk_end[c];
		cuts[2] = (size_t)chunk_off[c] + 1 + (k++ % 7);
		for (j = 0; j < 3; j++) {
			(void)check_cut(o, &f, p, cuts[j], &zstd_dc, &layout);
			check_cpu_loss(o, &f, cuts[j], 1, 0);
			ck_assert_int_eq(o->d.buffers[0].inferred, 1);
		}
	}
	for (c = (size_t)f.data_end; c < n; c += 5)
		ck_assert_uint_eq(check_cut(o, &f, p, c, &zstd_dc, &layout), f.n);
	ck_assert_int_eq(sv_open(o, p, n, &zstd_dc, 1), TB_OK);
	ck_assert_uint_eq(o->d.damage_total, 0);
	sv_free(o);
	free(o);
	free_full(&f);
	free(p);
}
END_TEST

/* ---- cuts through the metadata: sampled byte offsets ---- */

/* Cuts before the data: the open succeeds once the initial header is
 * whole, gives no event, and reports damage; a cut inside a line table
 * keeps its whole lines and says how much of it is missing. */
static void metadata_cuts(const char *name, const tb_dat_decompressor *dc, size_t header_len)
{
	size_t n, i, ncut = 0;
	uint8_t *p = read_sample(name, &n);
	full f;
	tb_kbuf_layout layout;
	sv *o;
	size_t cuts[160];
	uint64_t ks_off, ks_end;
	if (!p) {
		printf("salvage: %s missing, test skipped\n", name);
		return;
	}
	if (dc && !tb_test_have_zstd()) {
		free(p);
		return;
	}
	load_full(&f, p, n, dc, &layout);
	o = calloc(1, sizeof(*o));
	ck_assert_int_eq(sv_open(o, p, n, dc, 0), TB_OK);
	ks_off = o->d.kallsyms.offset;
	ks_end = ks_off + o->d.kallsyms.len;
	/* around the texts' starts, then evenly through the rest */
	{
		const tb_dat_text *t[5] = { &o->d.header_page, &o->d.header_event, &o->d.kallsyms,
					    &o->d.printk, &o->d.cmdlines };
		int compressed = o->d.compression.len && !dc ? 0 : dc != NULL;
		for (i = 0; i < 5 && !compressed; i++) {
			cuts[ncut++] = (size_t)t[i]->offset - 1;
			cuts[ncut++] = (size_t)t[i]->offset;
			cuts[ncut++] = (size_t)t[i]->offset + 1;
		}
	}
	for (i = 0; i < 12; i++)
		cuts[ncut++] = i * 3;
	for (i = 0; i < 100; i++)
		cuts[ncut++] = header_len + (size_t)((f.data_start - header_len) * i / 100) + i % 13;
	cuts[ncut++] = (size_t)f.data_start - 1;
	for (i = 0; i < ncut; i++) {
		size_t cut = cuts[i], j;
		tb_status s;
		if (cut >= f.data_start)
			continue;
		s = sv_open(o, p, cut, dc, 1);
		if (cut < header_len) {
			ck_assert_msg(tb_is_error(s), "cut %zu inside the initial header opened", cut);
			continue;
		}
		ck_assert_msg(s == TB_OK, "cut %zu: %s at %llu", cut, o->err.what,
			      (unsigned long long)o->err.offset);
		ck_assert_msg(o->d.damage_total > 0, "cut %zu: no damage", cut);
		for (j = 0; j < o->d.ndamage; j++)
			ck_assert_uint_le(o->d.damage[j].error.offset + o->d.damage[j].length, cut);
		ck_assert_uint_eq(check_cut(o, &f, p, cut, dc, &layout), 0);
		if (!dc && cut > ks_off + 16 && cut < ks_end) {
			/* the kallsyms kept are whole lines of the real text */
			const tb_dat_damage *g = NULL;
			ck_assert_uint_gt(o->d.kallsyms.len, 0);
			ck_assert_uint_eq(o->d.kallsyms.offset, ks_off);
			ck_assert_int_eq(o->d.kallsyms.ptr[o->d.kallsyms.len - 1], '\n');
			ck_assert_uint_le(cut - (ks_off + o->d.kallsyms.len), 256);
			for (j = 0; j < o->d.ndamage; j++)
				if (o->d.damage[j].part == TB_DAT_PART_KALLSYMS)
					g = &o->d.damage[j];
			ck_assert_ptr_nonnull(g);
			ck_assert_uint_eq(g->error.offset, ks_off + o->d.kallsyms.len);
			ck_assert_uint_eq(g->error.offset + g->length, cut);
			ck_assert_uint_eq(g->missing, ks_end - cut);
		}
	}
	sv_free(o);
	free(o);
	free_full(&f);
	free(p);
}

START_TEST(metadata_cuts_v6)
{
	metadata_cuts("sched4k.v6.dat", NULL, 18);
}
END_TEST

START_TEST(metadata_cuts_v7)
{
	metadata_cuts("sched4k.v7.dat", NULL, 32);
}
END_TEST

START_TEST(metadata_cuts_v7zstd)
{
	metadata_cuts("sched4k.v7zstd.dat", &zstd_dc, 37);
}
END_TEST

Suite *tb_suite_salvage(void);

/* ---- metadata damaged, data intact: every event still comes out ---- */

typedef struct dmg_case {
	const char *file;
	int zstd;
	uint64_t at;            /* where to write */
	uint8_t bytes[8];
	size_t n;
	unsigned part;          /* the damage expected */
	uint64_t where;         /* at this file offset (UINT64_MAX: any) */
} dmg_case;

/* Patch a copy of the sample, open it in salvage mode: the damage is
 * reported where it is, and the stream equals the whole file's. */
static sv *damaged(const dmg_case *dc_, const full *f, const uint8_t *p, size_t n,
		   const tb_kbuf_layout *layout)
{
	uint8_t *q = tb_test_dup(p, n);
	sv *o = calloc(1, sizeof(*o));
	size_t i, hits = 0;
	const tb_dat_decompressor *dc = dc_->zstd ? &zstd_dc : NULL;
	memcpy(q + dc_->at, dc_->bytes, dc_->n);
	ck_assert_int_eq(sv_open(o, q, n, dc, 1), TB_OK);
	for (i = 0; i < o->d.ndamage; i++)
		if (o->d.damage[i].part == dc_->part &&
		    (dc_->where == UINT64_MAX || o->d.damage[i].error.offset == dc_->where))
			hits++;
	ck_assert_msg(hits == 1, "%s: patch at %llu: %zu damage entries of part %s", dc_->file,
		      (unsigned long long)dc_->at, hits, tb_dat_part_name(dc_->part));
	/* all the events (the cut "at the end" filters none) */
	ck_assert_uint_eq(check_cut(o, f, q, n, dc, layout), f->n);
	free(q); /* (o's spans point into q: the callers read only counts) */
	return o;
}

static uint8_t ff[8] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x0f };

START_TEST(damaged_metadata_v6)
{
	size_t n;
	uint8_t *p = read_sample("sched4k.v6.dat", &n);
	full f;
	tb_kbuf_layout layout;
	sv *w, *o;
	dmg_case c;
	if (!p) {
		printf("salvage: v6 sample missing, test skipped\n");
		return;
	}
	load_full(&f, p, n, NULL, &layout);
	w = calloc(1, sizeof(*w));
	ck_assert_int_eq(sv_open(w, p, n, NULL, 0), TB_OK);
	memset(&c, 0, sizeof(c));
	c.file = "v6";
	/* kallsyms' size lies: skipped to the options, kallsyms, printk and
	 * cmdlines are lost, the rest (and every event) kept */
	c.at = w->d.kallsyms.offset - 4;
	memcpy(c.bytes, ff, 4);
	c.n = 4;
	c.part = TB_DAT_PART_KALLSYMS;
	c.where = c.at;
	o = damaged(&c, &f, p, n, &layout);
	ck_assert_uint_eq(o->d.kallsyms.len, 0);
	ck_assert_uint_eq(o->d.cmdlines.len, 0);
	ck_assert_uint_eq(o->d.nevents, w->d.nevents);
	ck_assert_uint_eq(o->d.uname.len, w->d.uname.len);
	ck_assert_uint_eq(o->d.cpu_count, 2);
	ck_assert_uint_eq(o->d.damage_total, 1);
	ck_assert_uint_eq(o->d.damage[0].length, w->d.cmdlines.offset + w->d.cmdlines.len - c.at);
	sv_free(o);
	free(o);
	/* a format's size lies: the formats before it are kept */
	c.at = w->d.events[w->d.nftrace + 3].format.offset - 8;
	memcpy(c.bytes, ff, 8);
	c.n = 8;
	c.part = TB_DAT_PART_EVENT_FORMATS;
	c.where = c.at;
	o = damaged(&c, &f, p, n, &layout);
	ck_assert_uint_eq(o->d.nevents, w->d.nftrace + 3);
	sv_free(o);
	free(o);
	/* no header_page tag: the headers are lost (the layout must come
	 * from elsewhere), the events are not */
	c.at = 18;
	memcpy(c.bytes, "XX", 2);
	c.n = 2;
	c.part = TB_DAT_PART_HEADERS;
	c.where = 18;
	o = damaged(&c, &f, p, n, &layout);
	ck_assert_uint_eq(o->d.header_page.len, 0);
	sv_free(o);
	free(o);
	/* an option that does not parse (TRACEID turned into an 8-byte
	 * CPUCOUNT) is skipped, the next ones are read */
	c.at = 7444976;
	ck_assert_uint_eq(p[c.at], TB_DAT_OPT_TRACEID);
	c.bytes[0] = TB_DAT_OPT_CPUCOUNT;
	c.n = 1;
	c.part = TB_DAT_PART_OPTIONS;
	c.where = c.at + 2;
	o = damaged(&c, &f, p, n, &layout);
	ck_assert_int_eq(o->d.has_trace_id, 0);
	ck_assert_uint_eq(o->d.ncpustats, 2);
	ck_assert_uint_eq(o->d.cpu_count, 2);
	sv_free(o);
	free(o);
	sv_free(w);
	free(w);
	free_full(&f);
	free(p);
}
END_TEST

START_TEST(damaged_metadata_v7)
{
	size_t n;
	uint8_t *p = read_sample("sched4k.v7.dat", &n);
	full f;
	tb_kbuf_layout layout;
	sv *o;
	dmg_case c;
	if (!p) {
		printf("salvage: v7 sample missing, test skipped\n");
		return;
	}
	load_full(&f, p, n, NULL, &layout);
	memset(&c, 0, sizeof(c));
	c.file = "v7";
	/* the kallsyms section's id is wrong: that section is lost (and the
	 * walk over the sections stops there: a second entry) */
	c.at = 2025129;
	ck_assert_uint_eq(p[c.at], TB_DAT_OPT_KALLSYMS);
	c.bytes[0] = 99;
	c.n = 1;
	c.part = TB_DAT_PART_KALLSYMS;
	c.where = c.at;
	o = damaged(&c, &f, p, n, &layout);
	ck_assert_uint_eq(o->d.kallsyms.len, 0);
	ck_assert_uint_gt(o->d.printk.len, 0);
	ck_assert_uint_gt(o->d.cmdlines.len, 0);
	ck_assert_int_eq(o->d.buffers[0].inferred, 0);
	sv_free(o);
	free(o);
	/* the event formats section's size lies: its formats are all read,
	 * the bytes after them reported */
	c.at = 12437 + 8;
	memcpy(c.bytes, ff, 8);
	c.n = 8;
	c.part = TB_DAT_PART_EVENT_FORMATS;
	c.where = UINT64_MAX;
	o = damaged(&c, &f, p, n, &layout);
	ck_assert_uint_gt(o->d.nevents, 2000);
	sv_free(o);
	free(o);
	/* the first options section's DONE points outside the file: the
	 * BUFFER option is out of reach, the buffer is rebuilt from its
	 * section (the CPUs told apart by their page timestamps) */
	c.at = 7445501 + 6;
	memcpy(c.bytes, ff, 8);
	c.n = 8;
	c.part = TB_DAT_PART_OPTIONS;
	c.where = c.at;
	o = damaged(&c, &f, p, n, &layout);
	ck_assert_int_eq(o->d.buffers[0].inferred, 1);
	ck_assert_uint_eq(o->d.buffers[0].ncpus, 2);
	ck_assert_uint_eq(o->d.buffers[0].cpus[1].offset, 8896512);
	sv_free(o);
	free(o);
	free_full(&f);
	free(p);
}
END_TEST

START_TEST(damaged_metadata_v7zstd)
{
	size_t n;
	uint8_t *p;
	full f;
	tb_kbuf_layout layout;
	sv *o;
	dmg_case c;
	if (!tb_test_have_zstd() || !(p = read_sample("sched4k.v7zstd.dat", &n))) {
		printf("salvage: zstd sample or libzstd missing, test skipped\n");
		return;
	}
	load_full(&f, p, n, &zstd_dc, &layout);
	memset(&c, 0, sizeof(c));
	c.file = "v7zstd";
	c.zstd = 1;
	/* compressed kallsyms that do not decompress */
	c.at = 124466 + 16 + 8; /* the zstd frame magic */
	memcpy(c.bytes, ff, 8);
	c.n = 8;
	c.part = TB_DAT_PART_KALLSYMS;
	c.where = 124466;
	o = damaged(&c, &f, p, n, &layout);
	ck_assert_uint_eq(o->d.kallsyms.len, 0);
	ck_assert_uint_gt(o->d.printk.len, 0);
	sv_free(o);
	free(o);
	/* the chain broken after the first options section: the metadata
	 * sections are found by the walk, the buffer rebuilt from the chunk
	 * framing */
	c.at = 1139554 + 6;
	c.part = TB_DAT_PART_OPTIONS;
	c.where = c.at;
	o = damaged(&c, &f, p, n, &layout);
	ck_assert_int_eq(o->d.buffers[0].inferred, 1);
	ck_assert_uint_eq(o->d.buffers[0].ncpus, 2);
	ck_assert_uint_eq(o->d.buffers[0].cpus[1].offset, 1286144);
	ck_assert_uint_eq(o->d.buffers[0].cpus[1].chunks, 22);
	ck_assert_uint_gt(o->d.kallsyms.len, 0);
	sv_free(o);
	free(o);
	free_full(&f);
	free(p);
}
END_TEST

/* ---- crafted: a v7 file whose BUFFER option precedes its data ---- */

/* Every byte cut through the data of the test writer's file (the CPU
 * table survives: the ranges are clipped, not inferred): the events of
 * the whole pages (compressed: chunks) before the cut, each cut CPU's
 * loss in pages / chunks and bytes. */
static uint8_t cpages[2][3][4096];
static uint8_t cfile[1 << 16];

/* 2 CPUs of 3 pages, two events each (payload: CPU * 10 + page). */
static void crafted_spec(dw_spec *sp, unsigned version, int compress)
{
	tbt_pw w;
	size_t c, pg;
	for (c = 0; c < 2; c++)
		for (pg = 0; pg < 3; pg++) {
			uint8_t payload[8] = { (uint8_t)(c * 10 + pg), 0 };
			tbt_pw_init(&w, cpages[c][pg], 4096, 0, 8, 1000 * (pg + 1) + c);
			tbt_pw_data(&w, 0, payload, sizeof(payload), 0);
			payload[1] = 1;
			tbt_pw_data(&w, 5, payload, sizeof(payload), 0);
			tbt_pw_finish(&w, 0, 0, 0);
		}
	dw_default(sp, version);
	sp->compress = compress;
	sp->cpu_data[0] = cpages[0][0];
	sp->cpu_size[0] = 3 * 4096;
	sp->cpu_data[1] = cpages[1][0];
	sp->cpu_size[1] = 3 * 4096;
}

static void crafted_cuts(int compress)
{
	dw_spec sp;
	dw_layout lay;
	size_t n, cut, c;
	sv *o = calloc(1, sizeof(*o));
	tb_kbuf_layout layout;
	crafted_spec(&sp, 7, compress);
	n = dw_write(&sp, cfile, sizeof(cfile), &lay);
	ck_assert_uint_gt(n, 0);
	ck_assert_int_eq(sv_open(o, cfile, n, compress ? &copy_dc : NULL, 0), TB_OK);
	ck_assert_int_eq(tb_kbuf_layout_from_header_page(o->d.header_page.ptr,
							 o->d.header_page.len, 0, &layout,
							 &o->err),
			 TB_OK);
	for (cut = lay.cpu_off[0]; cut < n; cut++) {
		uint8_t *q = tb_test_dup(cfile, cut); /* exact size: ASan sees over-reads */
		tb_dat_event ev;
		tb_status s;
		size_t kept[2], want = 0, got = 0, d, ncut = 0, tails = 0, lost = 0;
		for (c = 0; c < 2; c++) {
			/* compressed: one chunk of all three pages, of which
			 * "copy" gives the whole pages present */
			size_t start = lay.cpu_off[c] + (compress ? 12 : 0);
			size_t have = cut > start ? cut - start : 0;
			kept[c] = have / 4096 > 3 ? 3 : have / 4096;
			want += 2 * kept[c];
			tails += compress && cut >= start && have < 3 * 4096;
		}
		ck_assert_int_eq(sv_open(o, q, cut, compress ? &copy_dc : NULL, 1), TB_OK);
		ck_assert_int_eq(o->d.buffers[0].inferred, 0);
		ck_assert(sv_start(o, &layout));
		while ((s = tb_dat_stream_next(&o->s, &ev, &o->err)) != TB_END) {
			if (s == TB_ERR_TRUNCATED && compress) {
				/* the cut chunk's pages past its whole ones */
				c = o->s.error_cpu;
				ck_assert_uint_eq(o->err.offset, lay.cpu_off[c] + 4);
				ck_assert_uint_eq(o->s.error_page, kept[c]);
				lost++;
				continue;
			}
			ck_assert_int_eq(s, TB_OK);
			c = ev.cpu;
			/* the pages come in order: ids c*10+page, two per page */
			ck_assert_uint_lt(ev.data[0] % 10, kept[c]);
			ck_assert_uint_eq(ev.data[0] / 10, c);
			got++;
		}
		ck_assert_uint_eq(got, want);
		ck_assert_uint_eq(lost, tails);
		for (d = 0; d < o->d.ndamage; d++) {
			const tb_dat_damage *g = &o->d.damage[d];
			const tb_dat_cpu *cpu;
			if (g->part != TB_DAT_PART_CPU_DATA)
				continue;
			ncut++;
			cpu = &o->d.buffers[0].cpus[g->cpu];
			ck_assert_int_eq(cpu->cut, 1);
			ck_assert_uint_eq(cpu->declared, (compress ? 3 * 4096 + 8 : 3 * 4096));
			if (compress) /* the chunk count lost too: unknown, 0 */
				ck_assert_uint_eq(g->units, cut >= lay.cpu_off[g->cpu] + 4 ? 1u : 0u);
			else
				ck_assert_uint_eq(g->units, 3 - kept[g->cpu]);
			ck_assert_uint_eq(g->error.offset + g->length, cut);
			ck_assert_uint_eq(g->missing, lay.cpu_off[g->cpu] + cpu->declared +
							      (compress ? 4 : 0) -
							      (cut > lay.cpu_off[g->cpu] ? cut : lay.cpu_off[g->cpu]));
		}
		/* CPU 1 is cut as long as its data is; CPU 0 until it is whole */
		ck_assert_uint_eq(ncut, (cut < lay.cpu_off[1] + 3 * 4096 + (compress ? 12 : 0) ? 1u : 0u) +
					  (cut < lay.cpu_off[0] + 3 * 4096 + (compress ? 12 : 0) ? 1u : 0u));
		free(q);
		if (cut > lay.cpu_off[0] + 64 && cut < n - 64 && (cut % 4096) > 64 &&
		    (cut % 4096) < 4096 - 64)
			cut += 61; /* every byte near the page edges, a sample between */
	}
	sv_free(o);
	free(o);
}

START_TEST(crafted_cuts_plain)
{
	crafted_cuts(0);
}
END_TEST

START_TEST(crafted_cuts_compressed)
{
	crafted_cuts(1);
}
END_TEST

/* ---- crafted damage: each kind skipped, the rest kept ---- */

/* Open the patched crafted file in salvage mode: the events of each CPU,
 * and the one damage entry of `part` expected. */
static sv *crafted_damaged(size_t n, unsigned part, uint64_t where, unsigned events[2])
{
	sv *o = calloc(1, sizeof(*o));
	tb_kbuf_layout layout;
	tb_dat_event ev;
	tb_status s;
	size_t i, hits = 0;
	uint8_t *q = tb_test_dup(cfile, n);
	ck_assert_int_eq(sv_open(o, q, n, &copy_dc, 1), TB_OK);
	for (i = 0; i < o->d.ndamage; i++)
		if (o->d.damage[i].part == part &&
		    (where == UINT64_MAX || o->d.damage[i].error.offset == where))
			hits++;
	ck_assert_msg(hits == 1, "%zu damage entries of %s at %llu (of %zu)", hits,
		      tb_dat_part_name(part), (unsigned long long)where, o->d.damage_total);
	events[0] = events[1] = 0;
	ck_assert_int_eq(tb_kbuf_layout_init(&layout, 0, 8, 4096, 0), TB_OK);
	if (sv_start(o, &layout))
		while ((s = tb_dat_stream_next(&o->s, &ev, &o->err)) != TB_END) {
			ck_assert_int_eq(s, TB_OK);
			ck_assert_uint_lt(ev.cpu, 2);
			events[ev.cpu]++;
		}
	free(q);
	return o;
}

START_TEST(crafted_damage_v6)
{
	dw_spec sp;
	dw_layout lay;
	size_t n;
	unsigned ev[2];
	sv *o;
	crafted_spec(&sp, 6, 0);
	/* an option whose size runs past the end: resync to flyrecord */
	n = dw_write(&sp, cfile, sizeof(cfile), &lay);
	dw_store(cfile + lay.uname_opt + 2, 0x7fffffff, 4, 0);
	o = crafted_damaged(n, TB_DAT_PART_OPTIONS, lay.uname_opt + 2, ev);
	ck_assert_uint_eq(ev[0] + ev[1], 12);
	ck_assert_uint_eq(o->d.uname.len, 0);
	sv_free(o);
	free(o);
	/* a CPU count over the limit: the CPUCOUNT option says 2 */
	n = dw_write(&sp, cfile, sizeof(cfile), &lay);
	dw_store(cfile + lay.v6_cpus, 0xffffffff, 4, 0);
	o = crafted_damaged(n, TB_DAT_PART_BUFFER, lay.v6_cpus, ev);
	ck_assert_uint_eq(ev[0] + ev[1], 12);
	sv_free(o);
	free(o);
	/* one CPU's offset misaligned: that CPU is lost, the other kept */
	n = dw_write(&sp, cfile, sizeof(cfile), &lay);
	dw_store(cfile + lay.v6_fly + 16, lay.cpu_off[1] + 1, 8, 0);
	o = crafted_damaged(n, TB_DAT_PART_BUFFER, lay.v6_fly + 16, ev);
	ck_assert_uint_eq(ev[0], 6);
	ck_assert_uint_eq(ev[1], 0);
	sv_free(o);
	free(o);
	/* no flyrecord tag: no data */
	n = dw_write(&sp, cfile, sizeof(cfile), &lay);
	memcpy(cfile + lay.v6_fly - 10, "flyrekord", 9);
	o = crafted_damaged(n, TB_DAT_PART_BUFFER, lay.v6_fly - 10, ev);
	ck_assert_uint_eq(o->d.nbuffers, 0);
	sv_free(o);
	free(o);
	/* no options at all, a lying printk size: resync to the flyrecord
	 * tag with the CPU count before it */
	sp.no_options = 1;
	n = dw_write(&sp, cfile, sizeof(cfile), &lay);
	{
		sv *w = calloc(1, sizeof(*w));
		uint64_t at;
		ck_assert_int_eq(sv_open(w, cfile, n, NULL, 0), TB_OK);
		at = w->d.printk.offset - 4;
		sv_free(w);
		free(w);
		dw_store(cfile + at, 0x7fffffff, 4, 0);
		o = crafted_damaged(n, TB_DAT_PART_PRINTK, at, ev);
	}
	ck_assert_uint_eq(ev[0] + ev[1], 12);
	ck_assert_uint_eq(o->d.cmdlines.len, 0);
	ck_assert_uint_gt(o->d.kallsyms.len, 0);
	sv_free(o);
	free(o);
}
END_TEST

START_TEST(crafted_damage_v7)
{
	dw_spec sp;
	dw_layout lay;
	size_t n;
	unsigned ev[2];
	sv *o;
	crafted_spec(&sp, 7, 0);
	/* an option that does not parse is skipped */
	n = dw_write(&sp, cfile, sizeof(cfile), &lay);
	/* (TRACEID, after UNAME and VERSION, made an 8-byte CPUCOUNT) */
	ck_assert_uint_eq(cfile[lay.uname_opt + 17 + 12], TB_DAT_OPT_TRACEID);
	cfile[lay.uname_opt + 17 + 12] = TB_DAT_OPT_CPUCOUNT;
	o = crafted_damaged(n, TB_DAT_PART_OPTIONS, lay.uname_opt + 17 + 12 + 2, ev);
	ck_assert_uint_eq(ev[0] + ev[1], 12);
	ck_assert_int_eq(o->d.has_trace_id, 0);
	ck_assert_uint_eq(o->d.cpu_count, 2);
	sv_free(o);
	free(o);
	/* a CPU range misaligned in the BUFFER option: that CPU is lost */
	n = dw_write(&sp, cfile, sizeof(cfile), &lay);
	dw_store(cfile + lay.buffer_cpu0 + 4, lay.cpu_off[0] + 8, 8, 0);
	o = crafted_damaged(n, TB_DAT_PART_BUFFER, lay.buffer_cpu0 + 4, ev);
	ck_assert_uint_eq(ev[0], 0);
	ck_assert_uint_eq(ev[1], 6);
	sv_free(o);
	free(o);
	/* the strings section cut: reported, everything else kept */
	n = dw_write(&sp, cfile, sizeof(cfile), &lay);
	o = crafted_damaged(n - 3, TB_DAT_PART_SECTIONS, lay.strings_sect + 8, ev);
	ck_assert_uint_eq(ev[0] + ev[1], 12);
	sv_free(o);
	free(o);
	/* the header's options offset outside the file: the sections are
	 * found by walking them, and the BUFFER section rebuilt */
	n = dw_write(&sp, cfile, sizeof(cfile), &lay);
	{
		size_t field = 10 + 2 + 2 + 4 + 5 + 1; /* magic, "7", endian, long, page, "none", "" */
		dw_store(cfile + field, n + 100, 8, 0);
		o = crafted_damaged(n, TB_DAT_PART_OPTIONS, field, ev);
	}
	ck_assert_int_eq(o->d.buffers[0].inferred, 1);
	ck_assert_uint_eq(ev[0] + ev[1], 12);
	ck_assert_uint_eq(o->d.nevents, 2);
	sv_free(o);
	free(o);
}
END_TEST

/* ---- a damaged page and a cut together ---- */

/* A page with an impossible commit in CPU 0, and the file cut inside
 * CPU 1: the bad page is reported once, in place, and every other page
 * before the cut gives its events. */
START_TEST(bad_page_then_cut_v6)
{
	size_t n, cut, i = 0, got = 0, errors = 0;
	uint8_t *p = read_sample("sched4k.v6.dat", &n), *q;
	full f;
	tb_kbuf_layout layout;
	sv *o;
	tb_dat_event ev;
	tb_status s;
	uint64_t bad;
	if (!p) {
		printf("salvage: v6 sample missing, test skipped\n");
		return;
	}
	load_full(&f, p, n, NULL, &layout);
	bad = f.data_start + 100 * 4096;  /* CPU 0's page 100 */
	cut = (size_t)f.data_end - 50 * 4096 - 123;
	q = tb_test_dup(p, cut);
	memset(q + bad + 8, 0x7f, 7); /* commit far past the page */
	o = calloc(1, sizeof(*o));
	ck_assert_int_eq(sv_open(o, q, cut, NULL, 1), TB_OK);
	ck_assert(sv_start(o, &layout));
	while ((s = tb_dat_stream_next(&o->s, &ev, &o->err)) != TB_END) {
		const full_ev *e;
		if (s != TB_OK) {
			errors++;
			ck_assert_uint_eq(o->s.error_cpu, 0);
			ck_assert_uint_eq(o->s.error_page, 100);
			ck_assert_uint_eq(o->err.offset, bad + 8);
			continue;
		}
		while (i < f.n && (f.v[i].unit_end > cut || f.v[i].unit_end == bad + 4096))
			i++;
		ck_assert_uint_lt(i, f.n);
		e = &f.v[i++];
		if (ev.ts != e->ts || ev.cpu != e->cpu || memcmp(ev.data, f.blob + e->payload, ev.len))
			ck_abort_msg("event %zu differs", got);
		got++;
	}
	while (i < f.n && (f.v[i].unit_end > cut || f.v[i].unit_end == bad + 4096))
		i++;
	ck_assert_uint_eq(i, f.n);
	ck_assert_uint_eq(errors, 1);
	ck_assert_uint_gt(got, 50000);
	sv_free(o);
	free(o);
	free(q);
	free_full(&f);
	free(p);
}
END_TEST

/* ---- 64 KiB pages, a chunk of ten cut: its whole pages come back ---- */

#define BIG_PAGE (64u << 10)
#define BIG_CHUNK 10u /* pages per chunk, as trace-cmd writes them */

static uint8_t big_pages[2][14][BIG_PAGE];
static uint8_t big_file[4u << 20];

/* Two CPUs (14 and 4 pages of 64 KiB) of records of 24 to 151 bytes,
 * words from a small vocabulary (real traces compress about 5:1), in
 * chunks of ten pages compressed with `squeeze` (algo "zstd" / "zlib"). */
static size_t big_page_file(const char *algo,
			    size_t (*squeeze)(const void *, size_t, void *, size_t))
{
	static const char hp[] = "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
				 "\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
				 "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
				 "\tfield: char data;\toffset:16;\tsize:65520;\tsigned:0;\n";
	static const char *const words[8] = { "sched ", "wakeup ", "kworker/0:1 ", "bash ",
					      "irq=19 ", "prio=120 ", "R+ ", "ts " };
	uint32_t seed = 12345;
	size_t c, pg;
	dw_spec sp;
	for (c = 0; c < 2; c++)
		for (pg = 0; pg < (c ? 4u : 14u); pg++) {
			tbt_pw w;
			tbt_pw_init(&w, big_pages[c][pg], BIG_PAGE, 0, 8,
				    1000000000ull * (pg + 1) + 1000 * c);
			for (;;) {
				uint8_t pl[152] = { 44, 1 }; /* common_type 300 */
				size_t len, k = 8;
				seed = seed * 1103515245u + 12345u;
				len = 24 + (seed >> 16) % 128;
				if (w.pos + 8 + len + 8 > BIG_PAGE)
					break;
				pl[4] = (uint8_t)c;
				pl[5] = (uint8_t)pg;
				while (k < len) {
					const char *wd;
					seed = seed * 1103515245u + 12345u;
					wd = words[(seed >> 16) % 8];
					while (*wd && k < len)
						pl[k++] = (uint8_t)*wd++;
				}
				(void)tbt_pw_data(&w, 100 + (seed >> 20) % 64, pl, len, 0);
			}
			tbt_pw_finish(&w, 0, 0, 0);
		}
	dw_default(&sp, 7);
	sp.page_size = BIG_PAGE;
	sp.header_page = hp;
	sp.compress = 1;
	sp.algo = algo;
	sp.squeeze = squeeze;
	sp.chunk_pages = BIG_CHUNK;
	for (c = 0; c < 2; c++) {
		sp.cpu_data[c] = big_pages[c][0];
		sp.cpu_size[c] = (c ? 4u : 14u) * BIG_PAGE;
	}
	return dw_write(&sp, big_file, sizeof(big_file), NULL);
}

/*
 * Cuts through CPU 0's first chunk (ten 64 KiB pages): every cut keeps
 * exactly the whole pages a decoder alone gets from the bytes present
 * (`ref`: a shell command that decodes the file $F the way the codec's own
 * tool does and prints the byte count), the events in them as the whole
 * file has them, and the lost pages reported at the chunk.  The CLI
 * (its own decompressor) counts the same events.
 */
static void cut_big_chunk(const char *algo,
			  size_t (*squeeze)(const void *, size_t, void *, size_t),
			  const tb_dat_decompressor *dc, const char *ref)
{
	static const unsigned pct[] = { 10, 30, 50, 70, 90, 100 };
	char tmp[] = "/tmp/tb-salvage-XXXXXX", cmd[1024], path[600];
	size_t n = big_page_file(algo, squeeze), i;
	uint64_t prev = 0, total = 0;
	tb_dat_chunk_iter it;
	tb_dat_chunk ch;
	tb_kbuf_layout layout;
	full f;
	sv *o = calloc(1, sizeof(*o));
	ck_assert_uint_gt(n, 0);
	ck_assert_ptr_nonnull(mkdtemp(tmp));
	load_full(&f, big_file, n, dc, &layout);
	ck_assert_int_eq(sv_open(o, big_file, n, dc, 0), TB_OK);
	ck_assert_int_eq(tb_dat_chunks_begin(&it, &o->d, &o->d.buffers[0], &o->d.buffers[0].cpus[0],
					     &o->err),
			 TB_OK);
	ck_assert_int_eq(tb_dat_chunk_next(&it, &ch, &o->err), TB_OK);
	ck_assert_uint_eq(ch.usize, BIG_CHUNK * BIG_PAGE);
	for (i = 0; i < sizeof(pct) / sizeof(pct[0]); i++) {
		/* the last: one byte short of the whole chunk */
		size_t cut = (size_t)ch.offset + 8 + (pct[i] < 100 ? ch.csize * pct[i] / 100
								   : ch.csize - 1u);
		size_t got = check_cut(o, &f, big_file, cut, dc, &layout);
		uint64_t pages = o->s.pages, ref_bytes;
		tb_test_run r;
		/* what the codec's tool makes of the cut frame */
		snprintf(path, sizeof(path), "%s/frame", tmp);
		tb_test_write_file(path, ch.data, cut - (size_t)ch.offset - 8);
		snprintf(cmd, sizeof(cmd), "F=%s; %s", path, ref);
		tb_test_sh(cmd, &r);
		ck_assert_msg(sscanf(r.out, "%llu", (unsigned long long *)&ref_bytes) == 1,
			      "%s: %s", cmd, r.err);
		tb_test_run_free(&r);
		printf("salvage: %s, 64 KiB pages, cut at %u%% of CPU 0's first chunk "
		       "(%zu of %u bytes): %llu of %u pages, %zu events kept; the codec's tool "
		       "decodes %llu bytes\n",
		       algo, pct[i], cut - (size_t)ch.offset - 8, ch.csize,
		       (unsigned long long)pages, BIG_CHUNK, got, (unsigned long long)ref_bytes);
		ck_assert_uint_eq(pages, ref_bytes / BIG_PAGE);
		ck_assert_uint_ge(pages, prev);
		ck_assert_uint_le(pages, BIG_CHUNK);
		prev = pages;
		total += pages;
		/* the CLI's own decompressor: the same events */
		snprintf(path, sizeof(path), "%s/cut.dat", tmp);
		tb_test_write_file(path, big_file, cut);
		snprintf(cmd, sizeof(cmd), "check %s", path);
		tb_test_cli(cmd, &r);
		snprintf(cmd, sizeof(cmd), ": %zu events,", got);
		ck_assert_msg(strstr(r.out, cmd) != NULL, "%s / %s", r.out, r.err);
		ck_assert_msg(strstr(r.out, "data cut short") != NULL, "%s", r.out);
		tb_test_run_free(&r);
	}
	/* most of a chunk there: most of its pages back */
	ck_assert_uint_ge(prev, BIG_CHUNK / 2);
	ck_assert_uint_gt(total, 0);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmp);
	{
		tb_test_run r;
		tb_test_sh(cmd, &r);
		tb_test_run_free(&r);
	}
	sv_free(o);
	free(o);
	free_full(&f);
}

START_TEST(cut_64k_chunk_zstd)
{
	if (!tb_test_have_zstd() || system("command -v zstd > /dev/null") != 0) {
		printf("salvage: libzstd or the zstd tool missing, test skipped\n");
		return;
	}
	cut_big_chunk("zstd", tb_test_zstd_compress, &zstd_dc, "zstd -dc \"$F\" 2>/dev/null | wc -c");
}
END_TEST

START_TEST(cut_64k_chunk_zlib)
{
	static const tb_dat_decompressor zlib_dc = { tb_test_zlib, NULL };
	if (!tb_test_have_zlib() || system("command -v python3 > /dev/null") != 0) {
		printf("salvage: zlib or python3 missing, test skipped\n");
		return;
	}
	cut_big_chunk("zlib", tb_test_zlib_compress, &zlib_dc,
		      "python3 -c 'import sys, zlib; "
		      "print(len(zlib.decompressobj().decompress(open(sys.argv[1], \"rb\").read())))' "
		      "\"$F\"");
}
END_TEST

Suite *tb_suite_salvage(void)
{
	Suite *s = suite_create("salvage");
	TCase *t = tcase_create("cuts");
	tcase_add_test(t, every_page_cut_v6);
	tcase_add_test(t, every_page_cut_v7);
	tcase_add_test(t, every_chunk_cut_v7zstd);
	tcase_add_test(t, metadata_cuts_v6);
	tcase_add_test(t, metadata_cuts_v7);
	tcase_add_test(t, metadata_cuts_v7zstd);
	tcase_add_test(t, damaged_metadata_v6);
	tcase_add_test(t, damaged_metadata_v7);
	tcase_add_test(t, damaged_metadata_v7zstd);
	tcase_add_test(t, crafted_cuts_plain);
	tcase_add_test(t, crafted_cuts_compressed);
	tcase_add_test(t, cut_64k_chunk_zstd);
	tcase_add_test(t, cut_64k_chunk_zlib);
	tcase_add_test(t, crafted_damage_v6);
	tcase_add_test(t, crafted_damage_v7);
	tcase_add_test(t, bad_page_then_cut_v6);
	suite_add_tcase(s, t);
	return s;
}
