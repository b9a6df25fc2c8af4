/*
 * The memory budget of a session (session.h: tb_session_open_budget,
 * tb_session_need): the hostile shapes of issue 37, built small with the
 * spec writer, are refused with TB_ERR_BUDGET before their memory is
 * asked for or their bytes decompressed; sound captures read exactly as
 * without a budget, within what tb_session_need says; and many STRINGS
 * sections are counted in one retry round.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracebound/tracebound.h"

#include "datwriter.h"
#include "testutil.h"
#include "zstd_dl.h"

/* A trace.dat on a pipe cannot stream: it is read whole, and that read is
 * held to --max-memory (the sample followed by 20 MB, under a 4 MiB
 * budget: exit 3 after reading at most the budget); within it, read. */
START_TEST(pipe_read_held_to_the_budget)
{
	static const char *cmds[] = { "report", "check", "stats" };
	char cmd[1024];
	size_t i;
	const char *s = tb_test_path("tests/data/sched4k.v7zstd.dat");
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		tb_test_run r;
		snprintf(cmd, sizeof(cmd),
			 "(cat %s; head -c 20000000 /dev/zero) | $CLI %s --max-memory 4m - >/dev/null",
			 s, cmds[i]);
		tb_test_sh(cmd, &r);
		ck_assert_msg(r.status == 3, "%s: exit %d (%s)", cmds[i], r.status, r.err);
		ck_assert_msg(strstr(r.err, "over the budget of 4194304") != NULL, "%s: %s", cmds[i],
			      r.err);
		tb_test_run_free(&r);
	}
	snprintf(cmd, sizeof(cmd), "$CLI report --max-memory 64m - <%s | wc -l", s);
	{
		tb_test_run r;
		tb_test_sh(cmd, &r);
		ck_assert_int_eq(r.status, 0);
		ck_assert_str_eq(r.out, "63846\n");
		tb_test_run_free(&r);
	}
}
END_TEST

Suite *tb_suite_budget(void);

/* ---- a heap that counts what it holds ---- */

typedef struct counted {
	size_t held, peak, calls;
} counted;

static void *c_alloc(void *ctx, size_t n)
{
	counted *c = ctx;
	void *p = malloc(n ? n : 1);
	if (p) {
		c->held += n;
		c->calls++;
		if (c->held > c->peak)
			c->peak = c->held;
	}
	return p;
}

static void c_free(void *ctx, void *p, size_t n)
{
	counted *c = ctx;
	if (p)
		c->held -= n;
	free(p);
}

/* The "copy" decompressor, counting the bytes it was asked to make. */
static size_t dc_bytes;

static tb_status counting_dc(void *ctx, const char *algo, const void *src, size_t src_len,
			     void *dst, size_t dst_cap, size_t *produced)
{
	dc_bytes += dst_cap;
	return dw_copy_decompress(ctx, algo, src, src_len, dst, dst_cap, produced);
}

typedef struct opened {
	counted c;
	tb_mem mem;
	tb_session *s;
	tb_session_need need;
	tb_error err;
	tb_status st;
} opened;

static tb_status open_with(opened *o, const uint8_t *p, size_t n, uint64_t budget,
			   tb_dat_decompress_fn dc)
{
	tb_session_source src;
	memset(o, 0, sizeof(*o));
	o->mem.alloc = c_alloc;
	o->mem.free = c_free;
	o->mem.ctx = &o->c;
	memset(&src, 0, sizeof(src));
	src.dat = p;
	src.dat_len = n;
	src.decompress.fn = dc;
	dc_bytes = 0;
	o->st = tb_session_open_budget(&o->s, &src, NULL, &o->mem, budget, &o->need, &o->err);
	return o->st;
}

static void close_opened(opened *o)
{
	tb_session_close(o->s);
	ck_assert_uint_eq(o->c.held, 0);
	o->s = NULL;
}

/* A refusal: the status, the part, how much it asked, nothing held after. */
static void expect_refused(opened *o, const char *part, uint64_t at_least)
{
	ck_assert_int_eq(o->st, TB_ERR_BUDGET);
	ck_assert_ptr_null(o->s);
	ck_assert_ptr_nonnull(o->need.refused);
	ck_assert_str_eq(o->err.what, o->need.refused);
	ck_assert_msg(strstr(o->need.refused, part) != NULL, "refused: %s", o->need.refused);
	ck_assert_uint_ge(o->need.asked, at_least);
	ck_assert_uint_gt(o->need.total, o->need.budget);
	ck_assert_uint_le(o->c.peak, o->need.budget);
	ck_assert_uint_eq(o->c.held, 0);
}

static uint8_t *wbuf;
static size_t wcap = (size_t)8 << 20;

static void setup(void)
{
	wbuf = malloc(wcap);
	ck_assert_ptr_nonnull(wbuf);
}

static void teardown(void)
{
	free(wbuf);
	wbuf = NULL;
}

static size_t write_spec(const dw_spec *s, dw_layout *lay)
{
	size_t n = dw_write(s, wbuf, wcap, lay);
	ck_assert_uint_gt(n, 0);
	return n;
}

static void put32(uint8_t *p, uint32_t v)
{
	dw_store(p, v, 4, 0);
}

/* ---- STRINGS sections: one retry round ---- */

/* tb_dat storage for what a call said it needs (one spare entry each). */
static void storage_alloc(tb_dat_storage *st, const tb_dat_needs *need, size_t scratch)
{
	st->events = calloc(need->events + 1, sizeof(tb_dat_event_text));
	st->events_cap = need->events + 1;
	st->buffers = calloc(need->buffers + 1, sizeof(tb_dat_buffer));
	st->buffers_cap = need->buffers + 1;
	st->cpus = calloc(need->cpus + 1, sizeof(tb_dat_cpu));
	st->cpus_cap = need->cpus + 1;
	st->cpustats = calloc(need->cpustats + 1, sizeof(tb_dat_text));
	st->cpustats_cap = need->cpustats + 1;
	st->scratch = malloc(scratch ? scratch : 1);
	st->scratch_cap = scratch;
}

static void storage_free(tb_dat_storage *st)
{
	free(st->events);
	free(st->buffers);
	free(st->cpus);
	free(st->cpustats);
	free(st->scratch);
	memset(st, 0, sizeof(*st));
}


/* 40 STRINGS sections of 16 bytes past the writer's: the first call with
 * no storage already counts them all, so one retry with that much opens
 * the file (it took a round per section, and six failed the session). */
START_TEST(many_strings_sections_one_round)
{
	dw_spec spec;
	dw_layout lay;
	tb_dat d;
	tb_dat_storage st;
	tb_error e;
	size_t n, k, base_strings;
	int compress = _i;
	opened o;
	const tb_dat_decompressor dc = { dw_copy_decompress, NULL };
	dw_default(&spec, 7);
	spec.compress = compress;
	n = write_spec(&spec, &lay);
	ck_assert_int_eq(open_with(&o, wbuf, n, 0, dw_copy_decompress), TB_OK);
	base_strings = tb_session_dat(o.s)->strings.len;
	close_opened(&o);
	for (k = 0; k < 40; k++) {
		char body[16];
		snprintf(body, sizeof(body), "section%07zu", k);
		n = dw_append_sect(wbuf, n, wcap, 0, TB_DAT_OPT_STRINGS, (unsigned)compress,
				   UINT32_MAX, body, 16);
		ck_assert_uint_gt(n, 0);
	}
	memset(&st, 0, sizeof(st));
	ck_assert_int_eq(tb_dat_open(&d, wbuf, n, &st, &dc, &e), TB_ERR_NO_SPACE);
	ck_assert_uint_ge(d.need.scratch, 40 * 16);
	/* the retry with what the first call said */
	{
		tb_dat_needs need = d.need;
		size_t scratch = need.scratch + (compress ? 4096 : 0);
		storage_alloc(&st, &need, scratch);
		if (!compress) {
			/* uncompressed sections: every one was counted */
			ck_assert_uint_eq(need.scratch, base_strings + 40 * 16);
			ck_assert_int_eq(tb_dat_open(&d, wbuf, n, &st, &dc, &e), TB_OK);
			ck_assert_uint_eq(d.strings.len, base_strings + 40 * 16);
		}
		storage_free(&st);
	}
	/* the session opens it, and names the last section's string */
	ck_assert_int_eq(open_with(&o, wbuf, n, 0, dw_copy_decompress), TB_OK);
	ck_assert_uint_eq(tb_session_dat(o.s)->strings.len, base_strings + 40 * 16);
	ck_assert_str_eq(tb_dat_section_name(tb_session_dat(o.s),
					     (uint32_t)(base_strings + 39 * 16)),
			 "section0000039");
	ck_assert_uint_ge(o.need.sections, compress ? base_strings + 40 * 16 : 40 * 16);
	close_opened(&o);
}
END_TEST

/* Calls of tb_dat_open, each with the storage the one before said it
 * needs, until one opens the file (at most 8, as the session). */
static unsigned dat_rounds(const uint8_t *p, size_t n, tb_dat *d)
{
	const tb_dat_decompressor dc = { dw_copy_decompress, NULL };
	tb_dat_storage st;
	tb_error e;
	unsigned rounds = 0;
	tb_status r;
	memset(&st, 0, sizeof(st));
	do {
		tb_dat_needs need;
		r = tb_dat_open(d, p, n, &st, &dc, &e);
		rounds++;
		need = d->need;
		storage_free(&st);
		if (r != TB_ERR_NO_SPACE)
			break;
		storage_alloc(&st, &need, need.scratch + 1);
	} while (rounds < 8);
	ck_assert_int_eq(r, TB_OK);
	return rounds;
}

/* 40 compressed options sections chained past the writer's two: the
 * first call counts every section the file declares, so the session's
 * rounds (8) do not run out; it took a round per options section, and a
 * file of more than about 5 failed with "caller storage too small". */
START_TEST(many_compressed_options_sections)
{
	dw_spec spec;
	dw_layout lay;
	tb_dat d;
	tb_session_event ev;
	tb_error e;
	size_t n, k, next;
	uint64_t want = 0, events = 0;
	opened o;
	static uint8_t pages[2][4096];
	dw_default(&spec, 7);
	spec.compress = 1;
	spec.compress_options = 1;
	for (k = 0; k < 2; k++) {
		/* one sched_wakeup (id 300) per CPU: commit 8, type_len 1 */
		memset(pages[k], 0, sizeof(pages[k]));
		dw_store(pages[k], 1000 + k, 8, 0);
		dw_store(pages[k] + 8, 8, 8, 0);
		dw_store(pages[k] + 16, 1, 4, 0);
		dw_store(pages[k] + 20, 300, 2, 0);
		spec.cpu_data[k] = pages[k];
	}
	n = write_spec(&spec, &lay);
	ck_assert_int_eq(open_with(&o, wbuf, n, 0, dw_copy_decompress), TB_OK);
	while (tb_session_next(o.s, &ev, &e) == TB_OK)
		want++;
	ck_assert_uint_eq(want, 2);
	close_opened(&o);
	/* each: a DONE option naming the next (the last: 0); "copy"
	 * compression keeps the body as written, so its offsets are known */
	dw_store(wbuf + lay.done_opt2 + 6, n, 8, 0);
	for (k = 0; k < 40; k++) {
		uint8_t body[14];
		dw_bytes b;
		next = k + 1 < 40 ? n + 16 + 8 + sizeof(body) : 0;
		dw_bytes_init(&b, body, sizeof(body), 0);
		dw_put(&b, TB_DAT_OPT_DONE, 2);
		dw_put(&b, 8, 4);
		dw_put(&b, next, 8);
		n = dw_append_sect(wbuf, n, wcap, 0, TB_DAT_OPT_DONE, 1, UINT32_MAX, body,
				   sizeof(body));
		ck_assert_uint_gt(n, 0);
	}
	ck_assert_uint_le(dat_rounds(wbuf, n, &d), 3);
	ck_assert_uint_eq(d.noption_sections, 42);
	/* the session opens it and reads every event */
	ck_assert_int_eq(open_with(&o, wbuf, n, 0, dw_copy_decompress), TB_OK);
	ck_assert_uint_eq(tb_session_dat(o.s)->noption_sections, 42);
	while (tb_session_next(o.s, &ev, &e) == TB_OK)
		events++;
	ck_assert_uint_eq(events, want);
	close_opened(&o);
}
END_TEST

/* The file: the bundled capture with 5 (and 50) STRINGS sections
 * of 16 bytes added reads every event the capture has. */
START_TEST(sample_with_extra_strings_sections)
{
	static const unsigned extra[] = { 5, 50 };
	size_t len, i, k;
	uint8_t *data = tb_test_read_file(tb_test_path("tests/data/sched4k.v7zstd.dat"), &len);
	uint64_t want = 0;
	if (!data || !tb_test_have_zstd()) {
		printf("budget: sched4k.v7zstd.dat or zstd missing, test skipped\n");
		free(data);
		return;
	}
	for (i = 0; i <= 2; i++) {
		size_t cap = len + 50 * 32, n = len;
		uint8_t *f = malloc(cap);
		opened o;
		tb_session_event ev;
		tb_error e;
		uint64_t events = 0;
		memcpy(f, data, len);
		for (k = 0; i && k < extra[i - 1]; k++)
			n = dw_append_sect(f, n, cap, 0, TB_DAT_OPT_STRINGS, 0, UINT32_MAX,
					   "0123456789abcde", 16);
		ck_assert_int_eq(open_with(&o, f, n, 0, tb_test_zstd), TB_OK);
		while (tb_session_next(o.s, &ev, &e) == TB_OK)
			events++;
		if (!i)
			want = events;
		ck_assert_uint_eq(events, want);
		ck_assert_uint_gt(events, 1000);
		close_opened(&o);
		free(f);
	}
	free(data);
}
END_TEST

/* ---- hostile shapes, refused before they cost ---- */

/* A compressed CPU chunk that declares 64 MiB: refused under a 1 MiB
 * budget before its buffer is asked for or a byte is decompressed. */
START_TEST(chunk_bomb_refused)
{
	dw_spec spec;
	dw_layout lay;
	size_t n;
	opened o;
	dw_default(&spec, 7);
	spec.compress = 1;
	n = write_spec(&spec, &lay);
	put32(wbuf + lay.cpu_off[0] + 8, 64u << 20); /* CPU 0's chunk: usize */
	open_with(&o, wbuf, n, 1u << 20, counting_dc);
	expect_refused(&o, "chunk", 64u << 20);
	ck_assert_uint_lt(dc_bytes, 1u << 20); /* only the small sections */
	/* with room for it, it opens (and fails where the walk inflates it) */
	ck_assert_int_eq(open_with(&o, wbuf, n, 80u << 20, counting_dc), TB_OK);
	ck_assert_uint_ge(o.need.streams, 64u << 20);
	ck_assert_uint_ge(o.need.decompressed, (64u << 20) + 4096);
	close_opened(&o);
}
END_TEST

/* CPU 0 as 57 chunks of 64 bytes, each declaring 1 MiB: 1 MiB of chunk
 * memory, but 57 MiB decompressed in one walk.  Under a 2 MiB budget
 * (32 MiB decompressed at most) the open refuses it before a chunk is
 * inflated; under 4 MiB (64 MiB) it opens. */
START_TEST(decompressed_total_refused)
{
	static uint8_t page[4096];
	dw_spec spec;
	dw_layout lay;
	size_t n, k, at;
	opened o;
	const uint64_t declared = (uint64_t)57 << 20;
	dw_default(&spec, 7);
	spec.compress = 1;
	memset(page, 0, sizeof(page));
	spec.cpu_data[0] = page;
	n = write_spec(&spec, &lay);
	/* the CPU's bytes after the count: 4096 + 8 = 57 x (8 + 64) */
	at = lay.cpu_off[0];
	put32(wbuf + at, 57);
	for (k = 0, at += 4; k < 57; k++, at += 72) {
		put32(wbuf + at, 64);
		put32(wbuf + at + 4, 1u << 20);
	}
	open_with(&o, wbuf, n, 2u << 20, counting_dc);
	expect_refused(&o, "decompression budget", declared / TB_SESSION_INFLATE_PER_BUDGET);
	ck_assert_uint_ge(o.need.decompressed, declared);
	ck_assert_uint_lt(o.need.streams, 2u << 20); /* memory alone would fit */
	ck_assert_uint_lt(dc_bytes, 64u << 10);      /* only the small sections */
	ck_assert_int_eq(open_with(&o, wbuf, n, 4u << 20, counting_dc), TB_OK);
	ck_assert_uint_ge(o.need.decompressed, declared);
	ck_assert_uint_le(o.need.decompressed, (uint64_t)TB_SESSION_INFLATE_PER_BUDGET << 22);
	close_opened(&o);
}
END_TEST

static char *repeat_lines(const char *line, size_t count)
{
	size_t l = strlen(line), i;
	char *t = malloc(l * count + 1);
	for (i = 0; i < count; i++)
		memcpy(t + i * l, line, l);
	t[l * count] = 0;
	return t;
}

/* kallsyms and saved cmdlines of 4- and 6-byte lines: about 24 bytes of
 * table per line, refused under the budget before the table is taken. */
START_TEST(symbol_table_bombs_refused)
{
	dw_spec spec;
	dw_layout lay;
	size_t n, lines = 200000;
	opened o;
	char *ks = repeat_lines("0 T a\n", lines), *cmd = repeat_lines("1 a\n", lines);
	dw_default(&spec, 7);
	spec.kallsyms = ks;
	n = write_spec(&spec, &lay);
	open_with(&o, wbuf, n, 3u << 20, dw_copy_decompress);
	expect_refused(&o, "symbol tables", lines * sizeof(tb_ksym));
	ck_assert_int_eq(open_with(&o, wbuf, n, 0, dw_copy_decompress), TB_OK);
	ck_assert_uint_ge(o.need.tables, lines * sizeof(tb_ksym));
	close_opened(&o);
	dw_default(&spec, 7);
	spec.cmdlines = cmd;
	n = write_spec(&spec, &lay);
	open_with(&o, wbuf, n, 3u << 20, dw_copy_decompress);
	expect_refused(&o, "symbol tables", lines * sizeof(tb_cmdline));
	free(ks);
	free(cmd);
}
END_TEST

/* Four compressed STRINGS sections declaring 256 MiB each: their sum is
 * refused under a 16 MiB budget, nothing of them decompressed. */
START_TEST(compressed_strings_bomb_refused)
{
	dw_spec spec;
	dw_layout lay;
	size_t n, k, at;
	opened o;
	dw_default(&spec, 7);
	spec.compress = 1;
	n = write_spec(&spec, &lay);
	for (k = 0; k < 4; k++) {
		at = n;
		n = dw_append_sect(wbuf, n, wcap, 0, TB_DAT_OPT_STRINGS, 1, UINT32_MAX, "zz", 2);
		put32(wbuf + at + 20, 256u << 20); /* the declared usize */
	}
	open_with(&o, wbuf, n, 16u << 20, counting_dc);
	expect_refused(&o, "decompressed sections", (uint64_t)1 << 30);
	ck_assert_uint_ge(o.need.sections, (uint64_t)1 << 30);
	ck_assert_uint_eq(dc_bytes, 0); /* refused before any section was inflated */
}
END_TEST

/* Chunk memory follows what CPUs hold: three empty CPUs beside one of 16
 * pages cost no chunk memory; four CPUs over the same range each hold
 * its chunk, and the budget refuses them where one fits. */
START_TEST(empty_and_overlapping_cpus)
{
	static uint8_t pages[16 * 4096];
	dw_spec spec;
	dw_layout lay;
	size_t n, k, caps[4], total, one;
	opened o;
	tb_error e;
	const tb_dat *d;
	uint64_t need1;
	dw_default(&spec, 7);
	spec.compress = 1;
	memset(pages, 0, sizeof(pages));
	for (k = 0; k < 16; k++)
		pages[k * 4096] = (uint8_t)(k + 1); /* timestamps, commit 0 */
	spec.ncpus = 4;
	spec.cpu_data[0] = pages;
	spec.cpu_size[0] = sizeof(pages);
	for (k = 1; k < 4; k++) {
		spec.cpu_data[k] = pages;
		spec.cpu_size[k] = 0;
	}
	n = write_spec(&spec, &lay);
	ck_assert_int_eq(open_with(&o, wbuf, n, 0, dw_copy_decompress), TB_OK);
	d = tb_session_dat(o.s);
	ck_assert_int_eq(tb_dat_chunk_caps(d, &d->buffers[0], caps, &total, &e), TB_OK);
	ck_assert_uint_eq(caps[0], sizeof(pages));
	for (k = 1; k < 4; k++) /* (one empty chunk each) */
		ck_assert_uint_le(caps[k], 16);
	ck_assert_uint_le(total, sizeof(pages) + 48);
	/* it was the largest chunk times 4 */
	ck_assert_uint_lt(o.need.streams, 2 * sizeof(pages));
	one = o.need.streams;
	need1 = o.need.total;
	close_opened(&o);
	/* the other three CPUs over CPU 0's chunk */
	for (k = 1; k < 4; k++) {
		memcpy(wbuf + lay.buffer_cpu0 + 20 * k + 4, wbuf + lay.buffer_cpu0 + 4, 16);
	}
	ck_assert_int_eq(open_with(&o, wbuf, n, 0, dw_copy_decompress), TB_OK);
	ck_assert_uint_ge(o.need.streams, one - 48 + 3 * sizeof(pages));
	ck_assert_uint_ge(o.need.total, need1 - 48 + 3 * sizeof(pages));
	close_opened(&o);
	open_with(&o, wbuf, n, need1 + sizeof(pages), dw_copy_decompress);
	expect_refused(&o, "chunk", 4 * sizeof(pages));
}
END_TEST

/* ---- sound captures ---- */

static uint64_t walk_all(opened *o, int render, tb_status *last)
{
	tb_session_event ev;
	tb_error e;
	tb_status st;
	uint64_t h = 1469598103934665603ull;
	char line[4096];
	*last = TB_END;
	while ((st = tb_session_next(o->s, &ev, &e)) != TB_END) {
		if (st != TB_OK) {
			*last = st;
			continue;
		}
		h = (h ^ ev.ts) * 1099511628211ull;
		h = (h ^ ev.id) * 1099511628211ull;
		if (render && ev.format) {
			tb_status r1 = tb_session_text(o->s, &ev, TB_TEXT_PRINT | TB_TEXT_LINE, line,
						       sizeof(line), NULL);
			tb_status r2 = tb_session_text(o->s, &ev, TB_TEXT_FIELDS, line,
						       sizeof(line), NULL);
			if (r1 == TB_ERR_BUDGET || r2 == TB_ERR_BUDGET) {
				*last = TB_ERR_BUDGET;
				return h;
			}
		}
	}
	return h;
}

/* The bundled capture under the CLI's default budget reads exactly as
 * without one; tb_session_need's total after a walk is a budget it reads
 * and renders within, and one byte less is refused somewhere, never
 * exceeded. */
START_TEST(sound_capture_within_its_need)
{
	size_t len;
	uint8_t *data = tb_test_read_file(tb_test_path("tests/data/sched4k.v7zstd.dat"), &len);
	opened o;
	uint64_t h0, h1, total, budget;
	tb_status last;
	if (!data || !tb_test_have_zstd()) {
		printf("budget: sched4k.v7zstd.dat or zstd missing, test skipped\n");
		free(data);
		return;
	}
	ck_assert_int_eq(open_with(&o, data, len, 0, tb_test_zstd), TB_OK);
	h0 = walk_all(&o, 1, &last);
	ck_assert_int_eq(last, TB_END);
	tb_session_need_get(o.s, &o.need);
	total = o.need.total;
	ck_assert_uint_eq(o.need.peak, o.c.peak);
	ck_assert_uint_eq(o.need.held, o.c.held);
	ck_assert_uint_gt(o.need.decompressed, len);
	close_opened(&o);
	budget = 16 * (uint64_t)len > (64u << 20) ? 16 * (uint64_t)len : (64u << 20);
	ck_assert_uint_le(total, budget);
	ck_assert_int_eq(open_with(&o, data, len, budget, tb_test_zstd), TB_OK);
	h1 = walk_all(&o, 1, &last);
	ck_assert_int_eq(last, TB_END);
	ck_assert_uint_eq(h1, h0);
	close_opened(&o);
	/* exactly its need */
	ck_assert_int_eq(open_with(&o, data, len, total, tb_test_zstd), TB_OK);
	h1 = walk_all(&o, 1, &last);
	ck_assert_int_eq(last, TB_END);
	ck_assert_uint_eq(h1, h0);
	ck_assert_uint_le(o.c.peak, total);
	close_opened(&o);
	/* a byte less: refused (at the open or at a program), never exceeded */
	if (open_with(&o, data, len, total - 1, tb_test_zstd) == TB_OK) {
		(void)walk_all(&o, 1, &last);
		ck_assert_int_eq(last, TB_ERR_BUDGET);
		ck_assert_uint_le(o.c.peak, total - 1);
		close_opened(&o);
	} else {
		ck_assert_int_eq(o.st, TB_ERR_BUDGET);
	}
	free(data);
}
END_TEST

/* The v7 sample read whole, or NULL (said: the test is skipped). */
static uint8_t *v7_sample(size_t *len)
{
	uint8_t *data = tb_test_read_file(tb_test_path("../shared/samples/sched4k.v7.dat"), len);
	if (!data)
		printf("budget: sched4k.v7.dat missing, test skipped\n");
	return data;
}

/* tb_session_need_jobs on the sample (uncompressed: parts split it): the
 * need of one job is the session's; each job adds the same bytes; k parts
 * over the whole capture, each rendering every event both ways (every
 * program of every format used), hold exactly that much more. */
START_TEST(need_of_jobs_bounds_the_parts)
{
	size_t len, k;
	uint8_t *data = v7_sample(&len);
	opened o;
	tb_session_need n1, n2, n3, plain;
	tb_session *part[3];
	tb_error e;
	tb_status last;
	uint64_t per, before;
	if (!data)
		return;
	ck_assert_int_eq(open_with(&o, data, len, 0, NULL), TB_OK);
	(void)walk_all(&o, 0, &last); /* the formats used */
	ck_assert_int_eq(last, TB_END);
	ck_assert_int_eq(tb_session_prepare(o.s, &e), TB_OK);
	tb_session_need_get(o.s, &plain);
	tb_session_need_jobs(o.s, 0, &n1);
	ck_assert_uint_eq(n1.total, plain.total);
	tb_session_need_jobs(o.s, 1, &n1);
	ck_assert_uint_eq(n1.total, plain.total);
	tb_session_need_jobs(o.s, 2, &n2);
	tb_session_need_jobs(o.s, 3, &n3);
	per = (n2.total - n1.total) / 2;
	ck_assert_uint_eq(n2.total - n1.total, 2 * per);
	ck_assert_uint_eq(n3.total - n1.total, 3 * per);
	/* at least a part and both programs of a format */
	ck_assert_uint_gt(per, 2 * sizeof(tb_render_prog));
	before = o.c.held;
	for (k = 0; k < 3; k++)
		ck_assert_int_eq(tb_session_part_open(&part[k], o.s, &o.mem, NULL, NULL, &e), TB_OK);
	for (k = 0; k < 3; k++) {
		tb_session *keep = o.s;
		o.s = part[k];
		(void)walk_all(&o, 1, &last);
		ck_assert_int_eq(last, TB_END);
		o.s = keep;
	}
	ck_assert_uint_eq(o.c.held - before, 3 * per);
	ck_assert_uint_le(o.c.peak, n3.total);
	for (k = 0; k < 3; k++)
		tb_session_close(part[k]);
	close_opened(&o);
	free(data);
}
END_TEST

/* tb_session_jobs_within on the sample: the most jobs whose need fits the
 * room (4, 3, one less than two's: 1), all 4 when even one cursor does not
 * fit (the open's refusal stands) or when every format on every part fits
 * without a walk; one job asked is one. */
START_TEST(jobs_within_the_room)
{
	size_t len;
	uint8_t *data = v7_sample(&len);
	opened o;
	tb_session_need plain, n2, n3, n4;
	tb_status last;
	uint64_t h;
	if (!data)
		return;
	ck_assert_int_eq(open_with(&o, data, len, 0, NULL), TB_OK);
	ck_assert_uint_eq(tb_session_jobs_within(o.s, 4, UINT64_MAX / 2), 4);
	ck_assert_uint_eq(tb_session_jobs_within(o.s, 1, 0), 1);
	h = walk_all(&o, 0, &last); /* the formats used */
	ck_assert_int_eq(last, TB_END);
	tb_session_need_get(o.s, &plain);
	tb_session_need_jobs(o.s, 2, &n2);
	tb_session_need_jobs(o.s, 3, &n3);
	tb_session_need_jobs(o.s, 4, &n4);
	ck_assert_uint_lt(n3.total, n4.total);
	ck_assert_uint_eq(tb_session_jobs_within(o.s, 4, n4.total), 4);
	ck_assert_uint_eq(tb_session_jobs_within(o.s, 4, n4.total - 1), 3);
	ck_assert_uint_eq(tb_session_jobs_within(o.s, 4, n3.total), 3);
	ck_assert_uint_eq(tb_session_jobs_within(o.s, 4, n2.total - 1), 1);
	ck_assert_uint_eq(tb_session_jobs_within(o.s, 4, plain.total - 1), 4);
	/* rewound after its walk: every event is there again */
	ck_assert_uint_eq(walk_all(&o, 0, &last), h);
	ck_assert_int_eq(last, TB_END);
	close_opened(&o);
	free(data);
}
END_TEST

/* A budget smaller than the session itself, and the status's name. */
START_TEST(tiny_budget_and_name)
{
	dw_spec spec;
	dw_layout lay;
	size_t n;
	opened o;
	dw_default(&spec, 7);
	n = write_spec(&spec, &lay);
	open_with(&o, wbuf, n, 100, dw_copy_decompress);
	expect_refused(&o, "session", 101);
	ck_assert_uint_eq(o.c.calls, 0);
	ck_assert_str_eq(tb_strerror(TB_ERR_BUDGET), "over the memory budget");
	ck_assert(!tb_is_malformed(TB_ERR_BUDGET));
	ck_assert(tb_is_error(TB_ERR_BUDGET));
}
END_TEST


/* ---- the CLI: exit 3 with the message, everywhere ---- */

static void expect_cli(const char *args, int status, const char *in_err, const char *in_out)
{
	tb_test_run r;
	tb_test_cli(args, &r);
	ck_assert_msg(r.status == status, "%s: exit %d, want %d (%s)", args, r.status, status,
		      r.err);
	if (in_err)
		ck_assert_msg(strstr(r.err, in_err) != NULL, "%s: stderr %s", args, r.err);
	if (in_out)
		ck_assert_msg(strstr(r.out, in_out) != NULL, "%s: stdout %s", args, r.out);
	tb_test_run_free(&r);
}

/* The kallsyms bomb and the chunk bomb under a small --max-memory: every
 * command that decodes says so and exits 3; check --json too; a malformed
 * file stays 1 and the sound file passes. */
START_TEST(cli_over_budget_exits_3)
{
	static const char *cmds[] = { "report", "report --raw", "report --json", "stats", "check",
				      "convert --to perfetto", "convert --to parquet" };
	static const char *outs[] = { "", "", "", "", "", "/out.pftrace", "/pq" };
	char dir[] = "/tmp/tb-budget-XXXXXX", path[2][256], args[2048];
	dw_spec spec;
	dw_layout lay;
	size_t n, i, k;
	char *ks = repeat_lines("0 T a\n", 200000);
	ck_assert_ptr_nonnull(mkdtemp(dir));
	dw_default(&spec, 7);
	spec.kallsyms = ks;
	n = write_spec(&spec, &lay);
	snprintf(path[0], sizeof(path[0]), "%s/kallsyms.dat", dir);
	tb_test_write_file(path[0], wbuf, n);
	free(ks);
	snprintf(path[1], sizeof(path[1]), "%s", tb_test_path("tests/data/sched4k.v7zstd.dat"));
	for (k = 0; k < 2; k++) {
		for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
			snprintf(args, sizeof(args), "%s --max-memory %s %s%s %s", cmds[i],
				 k ? "2m" : "3m", outs[i][0] ? dir : "", outs[i], path[k]);
			expect_cli(args, 3, i == 4 ? NULL : "sound as far as read, but needs ",
				   i == 4 ? "over the budget of " : NULL);
		}
		snprintf(args, sizeof(args), "check --json --max-memory 1m %s", path[k]);
		expect_cli(args, 3, NULL, "\"schema_version\":1,");
		expect_cli(args, 3, NULL, "\"verdict\":\"over_budget\",\"exit\":3,");
	}
	/* within the default budget both are read */
	snprintf(args, sizeof(args), "check %s", path[0]);
	expect_cli(args, 0, NULL, "decoding needs ");
	snprintf(args, sizeof(args), "stats %s", path[1]);
	expect_cli(args, 0, NULL, NULL);
	/* usage stays 2 */
	expect_cli("report --max-memory 0 x", 2, "reads nothing", NULL);
	expect_cli("report --max-memory 12q x", 2, "is not a size", NULL);
	snprintf(args, sizeof(args), "rm -rf %s", dir);
	ck_assert_int_eq(system(args), 0);
}
END_TEST

/* The figure after `key` in text (0: not there). */
static unsigned long long figure_after(const char *text, const char *key)
{
	const char *at = strstr(text, key);
	return at ? strtoull(at + strlen(key), NULL, 10) : 0;
}

/* check --jobs N says what N threads need; report --jobs N over that
 * budget (one thread within it) runs on fewer threads, said on stderr,
 * with --jobs 1's output and exit 0 (it was exit 3); at exactly that
 * budget it runs on N, saying nothing. */
START_TEST(cli_jobs_need_and_fallback)
{
	const char *v7 = tb_test_path("../shared/samples/sched4k.v7.dat");
	tb_test_run r, one;
	char args[1024], want[512];
	unsigned long long n1, n2, n4;
	if (!tb_test_exists(v7)) {
		printf("budget: sched4k.v7.dat missing, test skipped\n");
		return;
	}
	snprintf(args, sizeof(args), "check --jobs 2 %s", v7);
	tb_test_cli(args, &r);
	ck_assert_int_eq(r.status, 0);
	n1 = figure_after(r.out, ": decoding needs ");
	n2 = figure_after(r.out, ": decoding on 2 jobs needs ");
	tb_test_run_free(&r);
	snprintf(args, sizeof(args), "check --json --jobs 4 %s", v7);
	tb_test_cli(args, &r);
	ck_assert_int_eq(r.status, 0);
	n4 = figure_after(r.out, "\"jobs\":4,\"need_jobs\":");
	ck_assert_uint_eq(figure_after(r.out, "\"need\":"), n1);
	tb_test_run_free(&r);
	/* (each part: both programs of every format the sample uses) */
	ck_assert_uint_gt(n1, 1u << 20);
	ck_assert_uint_gt(n2, n1 + (16u << 20));
	ck_assert_uint_eq(n4 - n1, 2 * (n2 - n1));
	snprintf(args, sizeof(args), "check --jobs 4 --max-memory %llu %s", n4 - 1, v7);
	snprintf(want, sizeof(want), ": decoding on 4 jobs needs %llu bytes of memory, over the "
		 "budget of %llu\n", n4, n4 - 1);
	expect_cli(args, 0, NULL, want);

	snprintf(args, sizeof(args), "report --jobs 1 %s", v7);
	tb_test_cli(args, &one);
	ck_assert_int_eq(one.status, 0);
	ck_assert_uint_gt(one.out_len, 1000000);
	/* a MiB over one thread's need: 4 threads (and 2) are over it */
	snprintf(args, sizeof(args), "report --jobs 4 --max-memory %llu %s", n1 + (1u << 20), v7);
	tb_test_cli(args, &r);
	snprintf(want, sizeof(want), ": --jobs 4 needs %llu bytes, over the budget of %llu "
		 "(--max-memory): on 1 thread\n", n4, n1 + (1u << 20));
	ck_assert_msg(r.status == 0 && strstr(r.err, want), "%s: exit %d, %s", args, r.status,
		      r.err);
	ck_assert(r.out_len == one.out_len && !memcmp(r.out, one.out, one.out_len));
	tb_test_run_free(&r);
	/* between 2 and 4 threads' needs: 2 */
	snprintf(args, sizeof(args), "report --jobs 4 --max-memory %llu %s", n2, v7);
	tb_test_cli(args, &r);
	ck_assert_msg(r.status == 0 && strstr(r.err, "(--max-memory): on 2 threads\n"),
		      "%s: exit %d, %s", args, r.status, r.err);
	ck_assert(r.out_len == one.out_len && !memcmp(r.out, one.out, one.out_len));
	tb_test_run_free(&r);
	/* exactly 4 threads' need: 4, nothing said */
	snprintf(args, sizeof(args), "report --jobs 4 --max-memory %llu %s", n4, v7);
	tb_test_cli(args, &r);
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(r.err, one.err);
	ck_assert(r.out_len == one.out_len && !memcmp(r.out, one.out, one.out_len));
	tb_test_run_free(&r);
	/* under one thread's need: refused as before */
	snprintf(args, sizeof(args), "report --jobs 4 --max-memory %llu %s", n1 / 2, v7);
	expect_cli(args, 3, "sound as far as read, but needs ", NULL);
	tb_test_run_free(&one);
}
END_TEST

Suite *tb_suite_budget(void)
{
	Suite *s = suite_create("budget");
	TCase *tc = tcase_create("budget");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_loop_test(tc, many_strings_sections_one_round, 0, 2);
	tcase_add_test(tc, sample_with_extra_strings_sections);
	tcase_add_test(tc, many_compressed_options_sections);
	tcase_add_test(tc, chunk_bomb_refused);
	tcase_add_test(tc, decompressed_total_refused);
	tcase_add_test(tc, symbol_table_bombs_refused);
	tcase_add_test(tc, compressed_strings_bomb_refused);
	tcase_add_test(tc, empty_and_overlapping_cpus);
	tcase_add_test(tc, sound_capture_within_its_need);
	tcase_add_test(tc, need_of_jobs_bounds_the_parts);
	tcase_add_test(tc, jobs_within_the_room);
	tcase_add_test(tc, cli_jobs_need_and_fallback);
	tcase_add_test(tc, tiny_budget_and_name);
	tcase_add_test(tc, cli_over_budget_exits_3);
	tcase_add_test(tc, pipe_read_held_to_the_budget);
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);
	return s;
}
