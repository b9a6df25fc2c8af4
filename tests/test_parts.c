/*
 * Parts of a capture (session.h: tb_session_prepare, _plan, _part_*):
 * the parts' events, one part after the other, are the session's own
 * events, item for item -- cpu, ts, page, offset, drops, damage marks and
 * the rendered report line with --ts-diff -- for every split into 1..8
 * parts of the real samples, a damaged one, and spec-built pages whose
 * timestamps are equal across CPUs at the split time.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracebound/tracebound.h"

#include "datwriter.h"
#include "pagewriter.h"
#include "plan_oracle.h"
#include "testutil.h"
#include "zstd_dl.h"

Suite *tb_suite_parts(void);

static size_t live;

static void *heap_alloc(void *ctx, size_t n)
{
	void *p = malloc(n);
	(void)ctx;
	if (p)
		live++;
	return p;
}

static void heap_free(void *ctx, void *p, size_t n)
{
	(void)ctx;
	(void)n;
	if (p)
		live--;
	free(p);
}

static const tb_mem heap = { heap_alloc, heap_free, NULL };

#define LINE_HOW (TB_TEXT_PRINT | TB_TEXT_LINE | TB_TEXT_TSDIFF)

/* A caller's read function (tb_session_source.read) over the bytes in
 * memory: counts its calls and fails every read that touches the bytes
 * [fail_at, fail_end). */
typedef struct test_reader {
	const uint8_t *data;
	size_t len;
	uint64_t fail_at, fail_end;
	size_t calls, bytes;
} test_reader;

static int test_read(void *ctx, uint64_t offset, void *buf, size_t len)
{
	test_reader *r = ctx;
	r->calls++;
	if (offset > r->len || len > r->len - offset)
		return -1;
	if (offset < r->fail_end && offset + len > r->fail_at)
		return -1;
	memcpy(buf, r->data + offset, len);
	r->bytes += len;
	return 0;
}

/* When set, open_bytes sessions read their CPU data through it. */
static test_reader *open_reader;

static tb_session *open_bytes(const uint8_t *data, size_t len, unsigned flags)
{
	tb_session_source src;
	tb_session_options opt = { flags, TB_RENDER_KNOWN_ENUMS | TB_RENDER_KERNEL_STYLE };
	tb_session *s = NULL;
	tb_error err;
	memset(&src, 0, sizeof(src));
	src.dat = data;
	src.dat_len = len;
	src.decompress.fn = tb_test_zstd;
	if (open_reader) {
		open_reader->data = data;
		open_reader->len = len;
		src.read = test_read;
		src.read_ctx = open_reader;
	}
	ck_assert_int_eq(tb_session_open(&s, &src, &opt, &heap, &err), TB_OK);
	return s;
}

/* One item of the stream as a number: everything an event says, and its
 * report line rendered with --ts-diff (so the line state is compared too). */
static uint64_t item_hash(tb_session *s, const tb_session_event *ev)
{
	static char line[1 << 16];
	uint64_t v[10], h = 1469598103934665603ull;
	const uint8_t *p = (const uint8_t *)v;
	tb_render_result r;
	size_t i;
	v[0] = ev->kind;
	v[1] = ev->cpu;
	v[2] = ev->buffer;
	v[3] = ev->ts;
	v[4] = (uint64_t)ev->missed;
	v[5] = ev->page_index;
	v[6] = ev->offset;
	v[7] = ((uint64_t)ev->len << 32) | ev->id;
	v[8] = (uint64_t)ev->damage.status;
	v[9] = ev->damage.offset;
	for (i = 0; i < sizeof(v); i++)
		h = (h ^ p[i]) * 1099511628211ull;
	for (i = 0; ev->kind == TB_SEV_EVENT && i < ev->len; i++)
		h = (h ^ ev->data[i]) * 1099511628211ull;
	(void)tb_session_text(s, ev, LINE_HOW, line, sizeof(line), &r);
	for (i = 0; i < r.len; i++)
		h = (h ^ (uint8_t)line[i]) * 1099511628211ull;
	return h;
}

/* Every item of s (errors count as items too: their offset). */
static size_t walk(tb_session *s, uint64_t *out, size_t cap)
{
	tb_session_event ev;
	tb_error err;
	tb_status st;
	size_t n = 0;
	while ((st = tb_session_next(s, &ev, &err)) != TB_END) {
		ck_assert_uint_lt(n, cap);
		out[n++] = st == TB_OK ? item_hash(s, &ev) : (0xe0000000ull ^ err.offset);
	}
	return n;
}

/*
 * Split s into k parts (plan), walk them in order carrying the line state
 * from one to the next as a program would, and compare with ref[0..nref).
 * reuse: one part cursor moved with tb_session_part_seek, else one per part.
 * Returns the number of parts.
 */
static size_t check_split(tb_session *s, size_t k, int reuse, const uint64_t *ref, size_t nref,
			  uint64_t *got, size_t cap)
{
	uint64_t bounds[16];
	size_t nb = 99, j, n = 0, i;
	tb_session *part = NULL;
	tb_session_line_state ls = { 0, 0 };
	tb_session_mark stop[64], start[64];
	size_t nstop = 0;
	tb_error err;
	ck_assert_int_eq(tb_session_plan(s, k, bounds, &nb, &err), TB_OK);
	ck_assert_uint_le(nb, k ? k - 1 : 0);
	for (j = 1; j < nb; j++)
		ck_assert_uint_lt(bounds[j - 1], bounds[j]);
	for (j = 0; j <= nb; j++) {
		const uint64_t *from = j ? &bounds[j - 1] : NULL, *to = j < nb ? &bounds[j] : NULL;
		size_t m;
		if (part && reuse) {
			ck_assert_int_eq(tb_session_part_seek(part, from, to, &err), TB_OK);
		} else {
			tb_session_close(part);
			ck_assert_int_eq(tb_session_part_open(&part, s, &heap, from, to, &err), TB_OK);
		}
		if (j) {
			/* this part starts where the last one stopped */
			size_t ns = tb_session_part_marks(part, TB_SESSION_MARK_START, start, 64);
			ck_assert_uint_eq(ns, nstop);
			ck_assert(!memcmp(start, stop, ns * sizeof(start[0])));
		}
		tb_session_line_state_set(part, &ls);
		m = walk(part, got + n, cap - n);
		for (i = 0; i < m; i++) {
			ck_assert_uint_lt(n + i, nref);
			if (got[n + i] != ref[n + i])
				ck_abort_msg("k=%zu part %zu: item %zu differs", k, j, n + i);
		}
		n += m;
		tb_session_line_state_get(part, &ls);
		nstop = tb_session_part_marks(part, TB_SESSION_MARK_STOP, stop, 64);
		ck_assert_uint_le(nstop, 64);
	}
	tb_session_close(part);
	ck_assert_uint_eq(n, nref);
	return nb + 1;
}

static void split_every_k(const uint8_t *data, size_t len, unsigned flags, size_t min_parts)
{
	size_t cap = 200000, nref, k;
	uint64_t *ref = malloc(cap * sizeof(uint64_t)), *got = malloc(cap * sizeof(uint64_t));
	tb_session *r, *s;
	tb_error err;
	ck_assert(ref && got);
	r = open_bytes(data, len, flags);
	nref = walk(r, ref, cap);
	ck_assert_uint_gt(nref, 1000);
	tb_session_close(r);
	s = open_bytes(data, len, flags);
	ck_assert_int_eq(tb_session_prepare(s, &err), TB_OK);
	for (k = 1; k <= 8; k++) {
		size_t parts = check_split(s, k, (int)(k & 1), ref, nref, got, cap);
		/* the samples hold hundreds of pages: every k is reached */
		ck_assert_uint_ge(parts, k < min_parts ? k : min_parts);
	}
	tb_session_close(s);
	ck_assert_uint_eq(live, 0);
	free(ref);
	free(got);
}

static uint8_t *load(const char *name, size_t *len)
{
	const char *path = tb_test_path(name);
	if (!tb_test_exists(path)) {
		printf("parts: %s missing, test skipped\n", name);
		return NULL;
	}
	return tb_test_read_file(path, len);
}

START_TEST(parts_of_the_samples_are_the_whole_stream)
{
	static const char *names[] = { "../shared/samples/sched4k.v7.dat",
				       "../shared/samples/sched4k.v6.dat" };
	size_t i, len;
	for (i = 0; i < 2; i++) {
		uint8_t *d = load(names[i], &len);
		if (!d)
			continue;
		split_every_k(d, len, TB_SESSION_TC_DROPS | TB_SESSION_SKIP_DAMAGED, 8);
		if (i == 0)
			split_every_k(d, len, 0, 8); /* drops as the library reports them */
		free(d);
	}
}
END_TEST

/*
 * CPU data read through the caller (tb_session_source.read, what the CLI
 * does with pread) instead of from the bytes in memory: the same stream
 * item for item, the same plan, and every split of it the same too; the
 * reads are whole buffers of 16 pages, not one per page.
 */
START_TEST(parts_read_through_the_caller)
{
	static const char *names[] = { "../shared/samples/sched4k.v7.dat",
				       "../shared/samples/sched4k.v6.dat" };
	size_t i, len, k;
	for (i = 0; i < 2; i++) {
		uint8_t *d = load(names[i], &len);
		test_reader rd;
		tb_session *a, *b;
		tb_error err;
		if (!d)
			continue;
		memset(&rd, 0, sizeof(rd));
		a = open_bytes(d, len, 0);
		open_reader = &rd;
		b = open_bytes(d, len, 0);
		open_reader = NULL;
		ck_assert_int_eq(tb_session_prepare(a, &err), TB_OK);
		ck_assert_int_eq(tb_session_prepare(b, &err), TB_OK);
		for (k = 2; k <= 8; k++) {
			uint64_t ba[8], bb[8];
			size_t na = 0, nb = 0;
			size_t before = rd.calls;
			ck_assert_int_eq(tb_session_plan(a, k, ba, &na, &err), TB_OK);
			ck_assert_int_eq(tb_session_plan(b, k, bb, &nb, &err), TB_OK);
			ck_assert_uint_eq(na, k - 1);
			ck_assert_uint_eq(nb, na);
			ck_assert(!memcmp(ba, bb, na * sizeof(ba[0])));
			ck_assert_uint_gt(rd.calls, before); /* the plan read page headers */
		}
		tb_session_close(a);
		tb_session_close(b);
		ck_assert_uint_eq(live, 0);
		rd.calls = rd.bytes = 0;
		open_reader = &rd;
		split_every_k(d, len, TB_SESSION_TC_DROPS | TB_SESSION_SKIP_DAMAGED, 8);
		open_reader = NULL;
		/* the whole walk alone (the first walk of split_every_k) read the
		 * CPU data in 32 KiB buffers: 9.3 MiB in a few hundred reads */
		ck_assert_uint_gt(rd.bytes, len / 2);
		ck_assert_uint_lt(rd.calls, rd.bytes / 4096);
		free(d);
	}
}
END_TEST

/* tb_session_plan_each's hook: keeps the bounds, stops after stop_after. */
typedef struct each_log {
	uint64_t b[16];
	size_t n, stop_after;
} each_log;

static int log_bound(void *ctx, size_t i, uint64_t bound)
{
	each_log *l = ctx;
	ck_assert_uint_eq(i, l->n);
	ck_assert_uint_lt(l->n, 16);
	l->b[l->n++] = bound;
	return l->n >= l->stop_after;
}

/* The plan bound by bound (what report --jobs starts its threads on): the
 * same bounds as tb_session_plan, in order, and a hook that stops it has
 * *nbounds count what it was given. */
START_TEST(parts_plan_each_bound_as_found)
{
	size_t len, k;
	uint8_t *d = load("../shared/samples/sched4k.v7.dat", &len);
	tb_session *s;
	tb_error err;
	if (!d)
		return;
	s = open_bytes(d, len, 0);
	ck_assert_int_eq(tb_session_prepare(s, &err), TB_OK);
	for (k = 2; k <= 9; k++) {
		uint64_t b[16];
		size_t nb = 0, ne = 99;
		each_log l;
		memset(&l, 0, sizeof(l));
		l.stop_after = 99;
		ck_assert_int_eq(tb_session_plan(s, k, b, &nb, &err), TB_OK);
		ck_assert_uint_eq(nb, k - 1);
		ck_assert_int_eq(tb_session_plan_each(s, k, log_bound, &l, &ne, &err), TB_OK);
		ck_assert_uint_eq(ne, nb);
		ck_assert_uint_eq(l.n, nb);
		ck_assert(!memcmp(l.b, b, nb * sizeof(b[0])));
		memset(&l, 0, sizeof(l));
		l.stop_after = 2;
		ck_assert_int_eq(tb_session_plan_each(s, k, log_bound, &l, &ne, &err), TB_OK);
		ck_assert_uint_eq(ne, 1); /* the second stopped it: not counted */
		ck_assert(!memcmp(l.b, b, ne * sizeof(b[0])));
	}
	ck_assert_int_eq(tb_session_plan_each(s, 4, NULL, NULL, &k, &err), TB_ERR_ARG);
	tb_session_close(s);
	ck_assert_uint_eq(live, 0);
	free(d);
}
END_TEST

/*
 * A read that fails loses the page it was for, said as a page error at
 * the page's file offset, and nothing else: the pages before it in the
 * same buffer are read one by one, the pages after it as usual.
 */
START_TEST(parts_a_failed_read_loses_its_page_only)
{
	size_t len, n = 0, nref = 0, on_page = 0, errors = 0, cap = 200000;
	uint8_t *d = load("../shared/samples/sched4k.v7.dat", &len);
	uint64_t *ref, *page_of, bad_page = 0;
	test_reader rd;
	tb_session *s;
	tb_session_event ev;
	tb_error err;
	tb_status st;
	if (!d)
		return;
	ref = malloc(cap * sizeof(*ref));
	page_of = malloc(cap * sizeof(*page_of));
	ck_assert(ref && page_of);
	s = open_bytes(d, len, 0);
	while ((st = tb_session_next(s, &ev, &err)) != TB_END) {
		ck_assert_int_eq(st, TB_OK);
		ck_assert_uint_lt(nref, cap);
		page_of[nref] = ev.page_offset;
		ref[nref++] = item_hash(s, &ev);
	}
	tb_session_close(s);
	ck_assert_uint_gt(nref, 5000);
	bad_page = page_of[5000]; /* a page well inside the data */
	memset(&rd, 0, sizeof(rd));
	rd.fail_at = bad_page;
	rd.fail_end = bad_page + 4096;
	open_reader = &rd;
	s = open_bytes(d, len, 0);
	open_reader = NULL;
	while ((st = tb_session_next(s, &ev, &err)) != TB_END) {
		if (st != TB_OK) {
			ck_assert_int_eq(st, TB_ERR_TRUNCATED);
			ck_assert_uint_eq(err.offset, bad_page);
			ck_assert_str_eq(err.what, "CPU data that could not be read");
			errors++;
			continue;
		}
		size_t lost = on_page;
		while (n < nref && page_of[n] == bad_page) {
			n++;
			on_page++;
		}
		ck_assert_uint_lt(n, nref);
		ck_assert_uint_ne(ev.page_offset, bad_page);
		ck_assert_uint_eq(ev.page_offset, page_of[n]);
		/* the line after the gap has another --ts-diff: its previous
		 * event was lost; every other item is the same */
		if (lost == on_page)
			ck_assert(item_hash(s, &ev) == ref[n]);
		else
			(void)item_hash(s, &ev); /* the line state moves on */
		n++;
	}
	while (n < nref && page_of[n] == bad_page) {
		n++;
		on_page++;
	}
	tb_session_close(s);
	ck_assert_uint_eq(errors, 1);
	ck_assert_uint_gt(on_page, 0);
	ck_assert_uint_eq(n, nref);
	ck_assert_uint_eq(live, 0);
	free(ref);
	free(page_of);
	free(d);
}
END_TEST

/*
 * A part inherits the session's window and added offset: split every way,
 * a windowed walk (with an offset, and none) is the one walk of the same
 * window and offset.  An offset that wraps the first events' times past
 * 2^64 leaves no increasing split times: the plan gives one part.
 */
START_TEST(parts_keep_the_window_and_offset)
{
	static const struct {
		int64_t offset;
		uint64_t from, to;
		int one_part;
	} cases[] = {
		{ 0, 193000000000ull, 193200000000ull, 0 },
		{ 1000000000, 194100000000ull, UINT64_MAX, 0 },
		{ -192000000000ll, 900000000ull, 1100000000ull, 0 },
		{ -193000000000ll, 0, 300000000ull, 1 },
		{ 0, 193379737000ull, 193379737999ull, 0 },
	};
	size_t cap = 100000, len, i, k, nref, full = 63845;
	uint64_t *ref = malloc(cap * sizeof(uint64_t)), *got = malloc(cap * sizeof(uint64_t));
	uint8_t *d = load("../shared/samples/sched4k.v7.dat", &len);
	tb_error err;
	ck_assert(ref && got);
	for (i = 0; d && i < sizeof(cases) / sizeof(cases[0]); i++) {
		tb_session *r = open_bytes(d, len, TB_SESSION_TC_DROPS), *s;
		tb_session_add_ts_offset(r, cases[i].offset);
		ck_assert_int_eq(tb_session_set_window(r, cases[i].from, cases[i].to), TB_OK);
		nref = walk(r, ref, cap);
		tb_session_close(r);
		ck_assert_uint_gt(nref, 0);
		ck_assert_uint_lt(nref, full);
		s = open_bytes(d, len, TB_SESSION_TC_DROPS);
		tb_session_add_ts_offset(s, cases[i].offset);
		ck_assert_int_eq(tb_session_set_window(s, cases[i].from, cases[i].to), TB_OK);
		ck_assert_int_eq(tb_session_prepare(s, &err), TB_OK);
		for (k = 2; k <= 8; k++)
			ck_assert_uint_eq(check_split(s, k, (int)(k & 1), ref, nref, got, cap),
					  cases[i].one_part ? 1 : k);
		tb_session_close(s);
	}
	ck_assert_uint_eq(live, 0);
	free(ref);
	free(got);
	free(d);
}
END_TEST

/* A capture made on this machine (TB_FRESH_DAT=FILE.dat, uncompressed:
 * `trace-cmd extract --compression none`), split every way too. */
START_TEST(parts_of_a_fresh_capture)
{
	const char *path = getenv("TB_FRESH_DAT");
	size_t len;
	uint8_t *d;
	if (!path || !*path) {
		printf("parts: TB_FRESH_DAT not set, fresh capture not split\n");
		return;
	}
	d = tb_test_read_file(path, &len);
	ck_assert_ptr_nonnull(d);
	split_every_k(d, len, TB_SESSION_TC_DROPS | TB_SESSION_SKIP_DAMAGED, 2);
	printf("parts: fresh capture %s split 1..8 ways, equal to one walk\n", path);
	free(d);
}
END_TEST

/* A damaged page in the middle of CPU 0: its mark comes out once, in its
 * place, whatever the split, and the items around it too. */
START_TEST(parts_keep_damage_marks_in_place)
{
	size_t len, pg;
	uint8_t *d = load("../shared/samples/sched4k.v7.dat", &len);
	tb_session *s;
	if (!d)
		return;
	s = open_bytes(d, len, 0);
	for (pg = 5; pg < 200; pg += 60) {
		size_t at = (size_t)tb_session_dat(s)->buffers[0].cpus[0].offset + pg * 4096;
		memset(d + at + 8, 0xff, 4); /* commit far past the page */
	}
	tb_session_close(s);
	split_every_k(d, len, TB_SESSION_TC_DROPS | TB_SESSION_SKIP_DAMAGED, 8);
	split_every_k(d, len, TB_SESSION_TC_DROPS, 8); /* as errors from tb_session_next */
	free(d);
}
END_TEST

/*
 * Spec-built pages, two CPUs, timestamps equal across CPUs and across
 * page headers at the split times:
 *   CPU 0 page 0 (ts 1000): 1000 1010      page 1 (ts 1010): 1010 1010
 *         page 2 (ts 1020): 1020 1030, 3 events dropped before it
 *   CPU 1 page 0 (ts 1010): 1010 1010 1020 page 1 (ts 1030): 1030
 * The merge (ties: the lower CPU) gives 1000, 1010 x3 of CPU 0, 1010 x2 of
 * CPU 1, 1020 (0, with the drop), 1020 (1), 1030 (0), 1030 (1).
 */
static uint8_t cpages[2][3][4096];

static void put(tbt_pw *w, uint32_t delta, uint8_t tag)
{
	uint8_t payload[8] = { 0 };
	payload[0] = 1; /* common_type of the writer's event format */
	payload[4] = tag;
	(void)tbt_pw_data(w, delta, payload, sizeof(payload), 0);
}

static size_t equal_times_file(uint8_t *out, size_t cap)
{
	tbt_pw w;
	dw_spec spec;
	memset(cpages, 0, sizeof(cpages));
	tbt_pw_init(&w, cpages[0][0], 4096, 0, 8, 1000);
	put(&w, 0, 1);
	put(&w, 10, 2);
	tbt_pw_finish(&w, 0, 0, 0);
	tbt_pw_init(&w, cpages[0][1], 4096, 0, 8, 1010);
	put(&w, 0, 3);
	put(&w, 0, 4);
	tbt_pw_finish(&w, 0, 0, 0);
	tbt_pw_init(&w, cpages[0][2], 4096, 0, 8, 1020);
	put(&w, 0, 5);
	put(&w, 10, 6);
	tbt_pw_finish(&w, 1, 1, 3);
	tbt_pw_init(&w, cpages[1][0], 4096, 0, 8, 1010);
	put(&w, 0, 7);
	put(&w, 0, 8);
	put(&w, 10, 9);
	tbt_pw_finish(&w, 0, 0, 0);
	tbt_pw_init(&w, cpages[1][1], 4096, 0, 8, 1030);
	put(&w, 0, 10);
	tbt_pw_finish(&w, 0, 0, 0);
	dw_default(&spec, 7);
	spec.cpu_data[0] = cpages[0][0];
	spec.cpu_size[0] = 3 * 4096;
	spec.cpu_data[1] = cpages[1][0];
	spec.cpu_size[1] = 2 * 4096;
	return dw_write(&spec, out, cap, NULL);
}

/* The plan by its definition (plan_oracle.h), which applies to s. */
static size_t plan_by_definition(tb_session *s, size_t k, uint64_t *out)
{
	const tb_dat *d = tb_session_dat(s);
	size_t cap = d->len / 8, nb = 0;
	uint64_t *ts = malloc(cap * sizeof(*ts));
	ck_assert_ptr_nonnull(ts);
	ck_assert(tbt_plan_defined(s, k, ts, cap, out, &nb));
	free(ts);
	return nb;
}

/* The plan is what plan_by_definition says, for every k in 2..kmax and
 * a few large ones; returns the page headers it read per bound at k = 47,
 * in hundredths. */
static size_t check_plan_definition(const uint8_t *data, size_t len, size_t kmax)
{
	static const size_t big[] = { 47, 100, 190, 1024 };
	test_reader rd;
	tb_session *s;
	tb_error err;
	uint64_t *want = malloc(1024 * sizeof(*want)), *got = malloc(1024 * sizeof(*got));
	size_t k, nw, ng, per = 0, i;
	ck_assert(want && got);
	memset(&rd, 0, sizeof(rd));
	open_reader = &rd;
	s = open_bytes(data, len, 0);
	open_reader = NULL;
	ck_assert_int_eq(tb_session_prepare(s, &err), TB_OK);
	for (i = 0, k = 2; k <= kmax + sizeof(big) / sizeof(big[0]); k++) {
		size_t kk = k <= kmax ? k : big[i++], before = rd.calls;
		nw = plan_by_definition(s, kk, want);
		ck_assert_int_eq(tb_session_plan(s, kk, got, &ng, &err), TB_OK);
		if (ng != nw || memcmp(want, got, nw * sizeof(*want)))
			ck_abort_msg("k=%zu: %zu bounds, %zu by the definition", kk, ng, nw);
		if (kk == 47 && ng)
			per = (rd.calls - before) * 100 / ng;
	}
	tb_session_close(s);
	free(want);
	free(got);
	return per;
}

/* 4 CPUs whose events come in bursts: 1 to 3 pages with one time, gaps
 * of 1 ns to 50 ms, one CPU idle for its second half, one with no pages. */
static uint8_t burst_pages[3][320][4096];

static size_t bursty_file(uint8_t *out, size_t cap)
{
	static const size_t np[3] = { 320, 200, 160 };
	uint64_t x = 88172645463325252ull;
	dw_spec spec;
	size_t c, p;
	dw_default(&spec, 7);
	spec.ncpus = 4;
	for (c = 0; c < 3; c++) {
		uint64_t t = 1000 + c;
		for (p = 0; p < np[c]; p++) {
			tbt_pw w;
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			if (x % 3)  /* else the page before's time again */
				t += x % 5 == 0 ? 50000000 : x % 5 == 1 ? 1 : (x >> 8) % 200000;
			if (c == 2 && p == np[c] / 2)
				t += 4000000000ull; /* idle, then on again */
			tbt_pw_init(&w, burst_pages[c][p], 4096, 0, 8, t);
			put(&w, 0, (uint8_t)p);
			tbt_pw_finish(&w, 0, 0, 0);
		}
		spec.cpu_data[c] = burst_pages[c][0];
		spec.cpu_size[c] = np[c] * 4096;
	}
	spec.cpu_data[3] = NULL;
	spec.cpu_size[3] = 0;
	return dw_write(&spec, out, cap, NULL);
}

/*
 * The plan is its definition (plan_by_definition) on the real samples and
 * on bursty pages, and it aims its probes: on the samples it reads under
 * 50 page headers a bound where halving the time range read 83.
 */
START_TEST(parts_plan_is_the_share_of_page_times)
{
	static const char *names[] = { "../shared/samples/sched4k.v7.dat",
				       "../shared/samples/sched4k.v6.dat" };
	static uint8_t file[(3 * 320 + 64) * 4096];
	size_t i, len, per;
	for (i = 0; i < 2; i++) {
		uint8_t *d = load(names[i], &len);
		if (!d)
			continue;
		per = check_plan_definition(d, len, 64);
		ck_assert_uint_gt(per, 0);
		ck_assert_uint_lt(per, 5000);
		free(d);
	}
	len = bursty_file(file, sizeof(file));
	ck_assert_uint_gt(len, 0);
	(void)check_plan_definition(file, len, 120);
	ck_assert_uint_eq(live, 0);
}
END_TEST

/* The tags of part [from, to) (NULL: open), in order. */
static size_t part_tags(tb_session *s, const uint64_t *from, const uint64_t *to, uint8_t *tags,
			int64_t *missed)
{
	tb_session *p;
	tb_session_event ev;
	tb_error err;
	tb_status st;
	size_t n = 0;
	ck_assert_int_eq(tb_session_part_open(&p, s, &heap, from, to, &err), TB_OK);
	while ((st = tb_session_next(p, &ev, &err)) == TB_OK) {
		ck_assert_uint_ge(ev.len, 8);
		missed[n] = ev.missed;
		tags[n++] = ev.data[4];
	}
	ck_assert_int_eq(st, TB_END);
	tb_session_close(p);
	return n;
}

START_TEST(parts_never_split_equal_timestamps)
{
	static uint8_t file[1 << 20];
	static const uint8_t order[10] = { 1, 2, 3, 4, 7, 8, 5, 9, 6, 10 };
	uint8_t tags[32], all[32];
	int64_t missed[32], allm[32];
	size_t len = equal_times_file(file, sizeof(file)), n, m, i;
	uint64_t t;
	unsigned flags;
	tb_error err;
	ck_assert_uint_gt(len, 0);
	for (flags = 0; flags <= TB_SESSION_TC_DROPS; flags += TB_SESSION_TC_DROPS) {
		tb_session *s = open_bytes(file, len, flags);
		ck_assert_int_eq(tb_session_prepare(s, &err), TB_OK);
		n = part_tags(s, NULL, NULL, all, allm);
		ck_assert_uint_eq(n, 10);
		ck_assert(!memcmp(all, order, 10));
		ck_assert_int_eq(allm[6], 3); /* the drop travels with tag 5 */
		/* every split time from before the first to after the last */
		for (t = 990; t <= 1040; t++) {
			uint64_t tt = t + (uint64_t)tb_session_get_info(s)->ts_offset;
			n = part_tags(s, NULL, &tt, tags, missed);
			m = part_tags(s, &tt, NULL, tags + n, missed + n);
			ck_assert_uint_eq(n + m, 10);
			ck_assert(!memcmp(tags, order, 10));
			ck_assert(!memcmp(missed, allm, sizeof(allm[0]) * 10));
			/* the earlier part is exactly the events before t */
			for (i = 0; i < n; i++)
				ck_assert(order[i] == 1 ? t > 1000
					  : order[i] <= 4 || order[i] == 7 || order[i] == 8 ? t > 1010
					  : order[i] == 5 || order[i] == 9 ? t > 1020 : t > 1030);
		}
		tb_session_close(s);
	}
	ck_assert_uint_eq(live, 0);
}
END_TEST

/*
 * CPU 0's clock goes back (its third page starts before its second
 * ended): wherever the parts' marks say they tile, their items are the
 * session's; and some split says they do not (report --jobs then walks
 * the capture on one cursor).
 */
START_TEST(parts_that_do_not_tile_say_so)
{
	static uint8_t file[1 << 20];
	uint64_t ref[512], got[512], bounds[16];
	size_t len = dw_clock_back_file(file, sizeof(file)), nref, k, untiled = 0;
	tb_session *r, *s;
	tb_error err;
	ck_assert_uint_gt(len, 0);
	r = open_bytes(file, len, 0);
	nref = walk(r, ref, 512);
	ck_assert_uint_eq(nref, 240);
	tb_session_close(r);
	s = open_bytes(file, len, 0);
	ck_assert_int_eq(tb_session_prepare(s, &err), TB_OK);
	for (k = 2; k <= 8; k++) {
		size_t nb, j, n = 0, tiled = 1;
		tb_session_line_state ls = { 0, 0 };
		tb_session_mark stop[4], start[4];
		tb_session *p = NULL;
		ck_assert_int_eq(tb_session_plan(s, k, bounds, &nb, &err), TB_OK);
		ck_assert_uint_gt(nb, 0);
		for (j = 0; j <= nb; j++) {
			ck_assert_int_eq(tb_session_part_open(&p, s, &heap, j ? &bounds[j - 1] : NULL,
							      j < nb ? &bounds[j] : NULL, &err), TB_OK);
			ck_assert_uint_eq(tb_session_part_marks(p, TB_SESSION_MARK_START, start, 4), 2);
			if (j && memcmp(start, stop, sizeof(start[0]) * 2))
				tiled = 0;
			tb_session_line_state_set(p, &ls); /* as a program carries it */
			n += walk(p, got + n, 512 - n);
			tb_session_line_state_get(p, &ls);
			(void)tb_session_part_marks(p, TB_SESSION_MARK_STOP, stop, 4);
			tb_session_close(p);
		}
		if (tiled) {
			ck_assert_uint_eq(n, nref);
			ck_assert(!memcmp(got, ref, n * sizeof(got[0])));
		} else {
			untiled++;
		}
	}
	ck_assert_uint_gt(untiled, 0);
	tb_session_close(s);
	ck_assert_uint_eq(live, 0);
}
END_TEST

/* A capture of two CPUs whose pages start at the given times (20 events each). */
static uint8_t tpages[2][8][4096];

static size_t times_file(uint8_t *out, size_t cap, const uint64_t *t0, size_t n0,
			 const uint64_t *t1, size_t n1)
{
	dw_spec spec;
	size_t c, p, e;
	for (c = 0; c < 2; c++)
		for (p = 0; p < (c ? n1 : n0); p++) {
			tbt_pw w;
			tbt_pw_init(&w, tpages[c][p], 4096, 0, 8, c ? t1[p] : t0[p]);
			for (e = 0; e < 20; e++) {
				uint8_t payload[8] = { 1, 0, 0, 0, (uint8_t)e };
				(void)tbt_pw_data(&w, e ? 1 : 0, payload, sizeof(payload), 0);
			}
			tbt_pw_finish(&w, 0, 0, 0);
		}
	dw_default(&spec, 7);
	spec.cpu_data[0] = tpages[0][0];
	spec.cpu_size[0] = n0 * 4096;
	spec.cpu_data[1] = tpages[1][0];
	spec.cpu_size[1] = n1 * 4096;
	return dw_write(&spec, out, cap, NULL);
}

START_TEST(parts_limits_and_errors)
{
	static uint8_t file[1 << 20], arena_mem[1 << 20];
	static const uint64_t one[1] = { 5000 }, four[4] = { 1000, 2000, 3000, 4000 };
	uint64_t bounds[8], before, after, a[256], b[256];
	size_t len, nb = 9, n1, n2, cut;
	tb_session *s, *p;
	tb_error err;
	tb_arena ar;
	tb_mem am;
	tb_session_line_state ls = { 0, 0 };
	/* one page on each CPU at the same time: nothing to split */
	len = times_file(file, sizeof(file), one, 1, one, 1);
	s = open_bytes(file, len, 0);
	ck_assert_int_eq(tb_session_plan(s, 4, bounds, &nb, &err), TB_OK);
	ck_assert_uint_eq(nb, 0);
	tb_session_close(s);
	/* CPU 1 has no data: its parts are empty, CPU 0's split */
	len = times_file(file, sizeof(file), four, 4, one, 0);
	s = open_bytes(file, len, 0);
	ck_assert_int_eq(tb_session_prepare(s, &err), TB_OK);
	ck_assert_int_eq(tb_session_prepare(s, &err), TB_OK); /* twice is fine */
	ck_assert_int_eq(tb_session_plan(s, 4, bounds, &nb, &err), TB_OK);
	ck_assert_uint_eq(nb, 3);
	ck_assert_uint_eq(bounds[0], 1001 + (uint64_t)tb_session_get_info(s)->ts_offset);
	/* a part past the end, and one before the start */
	before = 10;
	after = 1u << 30;
	ck_assert_int_eq(tb_session_part_open(&p, s, &heap, &after, NULL, &err), TB_OK);
	ck_assert_uint_eq(walk(p, a, 256), 0);
	ck_assert_uint_eq(tb_session_part_marks(p, TB_SESSION_MARK_START, NULL, 0), 2);
	ck_assert_int_eq(tb_session_part_seek(p, NULL, &before, &err), TB_OK);
	ck_assert_uint_eq(walk(p, a, 256), 0);
	/* rewinding a part walks it again */
	ck_assert_int_eq(tb_session_part_seek(p, &bounds[0], &bounds[2], &err), TB_OK);
	n1 = walk(p, a, 256);
	ck_assert_uint_eq(n1, 40);
	ck_assert_int_eq(tb_session_rewind(p, &err), TB_OK);
	tb_session_line_state_set(p, &ls);
	n2 = walk(p, b, 256);
	ck_assert_uint_eq(n2, n1);
	ck_assert(!memcmp(a, b, n1 * sizeof(a[0])));
	tb_session_close(p);
	/* memory: every size short of what a part needs fails cleanly */
	for (cut = 0; cut < 40000; cut += 997) {
		tb_arena_init(&ar, arena_mem, cut);
		am = tb_arena_mem(&ar);
		p = NULL;
		if (tb_session_part_open(&p, s, &am, &bounds[0], NULL, &err) == TB_OK) {
			ck_assert_uint_ge(cut, ar.peak);
			tb_session_close(p);
			break;
		}
		ck_assert_int_eq(err.status, TB_ERR_NO_SPACE);
		ck_assert_ptr_null(p);
	}
	ck_assert_uint_lt(cut, 40000);
	/* arguments */
	ck_assert_int_eq(tb_session_prepare(NULL, &err), TB_ERR_ARG);
	ck_assert_int_eq(tb_session_plan(NULL, 2, bounds, &nb, &err), TB_ERR_ARG);
	ck_assert_int_eq(tb_session_plan(s, 2, bounds, NULL, &err), TB_ERR_ARG);
	ck_assert_int_eq(tb_session_part_open(NULL, s, &heap, NULL, NULL, &err), TB_ERR_ARG);
	ck_assert_int_eq(tb_session_part_open(&p, NULL, &heap, NULL, NULL, &err), TB_ERR_ARG);
	ck_assert_int_eq(tb_session_part_open(&p, s, NULL, NULL, NULL, &err), TB_ERR_ARG);
	ck_assert_int_eq(tb_session_part_seek(NULL, NULL, NULL, &err), TB_ERR_ARG);
	ck_assert_uint_eq(tb_session_part_marks(NULL, TB_SESSION_MARK_STOP, NULL, 0), 0);
	tb_session_line_state_get(NULL, &ls);
	tb_session_line_state_set(NULL, &ls);
	tb_session_line_state_get(s, NULL);
	tb_session_line_state_set(s, NULL);
	{
		/* the stream seeks themselves */
		const tb_dat *d = tb_session_dat(s);
		tb_dat_stream st;
		tb_dat_cursor cur[2];
		tb_kbuf_layout lay;
		uint64_t np, ts;
		uint64_t skipped = 7;
		ck_assert_int_eq(tb_kbuf_layout_init(&lay, 0, 8, 4096, 0), TB_OK);
		ck_assert_int_eq(tb_dat_stream_init(&st, d, &d->buffers[0], &lay, cur, 2, NULL, 0, 0,
						    &err), TB_OK);
		ck_assert_int_eq(tb_dat_stream_pages(&st, 0, &np), TB_OK);
		ck_assert_uint_eq(np, 4);
		ck_assert_int_eq(tb_dat_stream_pages(&st, 2, &np), TB_ERR_ARG);
		ck_assert_int_eq(tb_dat_stream_pages(NULL, 0, &np), TB_ERR_ARG);
		ck_assert_int_eq(tb_dat_stream_page_ts(&st, 0, 3, &ts), TB_OK);
		ck_assert_uint_eq(ts, 4000);
		ck_assert_int_eq(tb_dat_stream_page_ts(&st, 0, 4, &ts), TB_NOT_FOUND);
		ck_assert_int_eq(tb_dat_stream_page_ts(&st, 0, 0, NULL), TB_ERR_ARG);
		ck_assert_int_eq(tb_dat_stream_page_ts(&st, 1, 0, &ts), TB_NOT_FOUND);
		ck_assert_int_eq(tb_dat_stream_seek(&st, 0, 9, &err), TB_OK); /* past the end: done */
		ck_assert_int_eq(tb_dat_stream_skip_before(&st, 0, 0, &skipped), TB_OK);
		ck_assert_uint_eq(skipped, 0);
		ck_assert_int_eq(tb_dat_stream_seek(&st, 0, 2, &err), TB_OK);
		ck_assert_int_eq(tb_dat_stream_skip_before(&st, 0, 3005, &skipped), TB_OK);
		ck_assert_uint_eq(skipped, 5);
		ck_assert_uint_eq(st.cur[0].recs[st.cur[0].irec].ts, 3005);
		ck_assert_int_eq(tb_dat_stream_seek(&st, 5, 0, &err), TB_ERR_ARG);
		ck_assert_int_eq(tb_dat_stream_skip_before(&st, 5, 0, NULL), TB_ERR_ARG);
	}
	tb_session_close(s);
	ck_assert_uint_eq(live, 0);
}
END_TEST

START_TEST(parts_arguments)
{
	size_t len, nb = 7;
	uint8_t *d = load("tests/data/sched4k.v7zstd.dat", &len);
	tb_session *s, *p = NULL, *q;
	uint64_t bounds[4], t = 1;
	tb_error err;
	tb_session_line_state ls = { 5, 1 }, back;
	if (!d)
		return;
	s = open_bytes(d, len, 0);
	ck_assert_int_eq(tb_session_part_open(&p, s, &heap, NULL, NULL, &err), TB_ERR_ARG);
	ck_assert_int_eq(tb_session_prepare(s, &err), TB_OK);
	/* compressed CPU data: no split, and only parts from the start */
	ck_assert_int_eq(tb_session_plan(s, 4, bounds, &nb, &err), TB_OK);
	ck_assert_uint_eq(nb, 0);
	ck_assert_int_eq(tb_session_part_open(&p, s, &heap, &t, NULL, &err), TB_ERR_UNSUPPORTED);
	ck_assert_int_eq(tb_session_part_open(&p, s, &heap, NULL, NULL, &err), TB_OK);
	ck_assert_int_eq(tb_session_part_open(&q, p, &heap, NULL, NULL, &err), TB_ERR_ARG);
	ck_assert_int_eq(tb_session_prepare(p, &err), TB_ERR_ARG);
	ck_assert_int_eq(tb_session_part_seek(s, NULL, NULL, &err), TB_ERR_ARG);
	ck_assert_int_eq(tb_session_part_seek(p, &t, NULL, &err), TB_ERR_UNSUPPORTED);
	ck_assert_int_eq(tb_session_part_seek(p, NULL, NULL, &err), TB_OK);
	{
		const tb_dat *dat = tb_session_dat(s);
		tb_dat_stream st;
		tb_dat_cursor cur[8];
		tb_kbuf_layout lay;
		uint64_t np = 5;
		static uint8_t chunks[8][1 << 20];
		size_t per = 0;
		ck_assert_int_eq(tb_kbuf_layout_init(&lay, 0, 8, 4096, 0), TB_OK);
		ck_assert_int_le(dat->buffers[0].ncpus, 8);
		ck_assert_int_eq(tb_dat_chunk_max(dat, &dat->buffers[0], &per, &err), TB_OK);
		ck_assert_uint_le(per, sizeof(chunks[0]));
		ck_assert_int_eq(tb_dat_stream_init(&st, dat, &dat->buffers[0], &lay, cur, 8,
						    chunks[0], per, 0, &err), TB_OK);
		ck_assert_int_eq(tb_dat_stream_pages(&st, 0, &np), TB_ERR_UNSUPPORTED);
		ck_assert_uint_eq(np, 0);
		ck_assert_int_eq(tb_dat_stream_seek(&st, 0, 1, &err), TB_ERR_UNSUPPORTED);
	}
	tb_session_line_state_set(p, &ls);
	tb_session_line_state_get(p, &back);
	ck_assert_uint_eq(back.prev_shown, 5);
	ck_assert_int_eq(back.have_prev, 1);
	ck_assert_uint_eq(tb_session_part_marks(s, TB_SESSION_MARK_START, NULL, 0), 0);
	ck_assert_uint_eq(tb_session_part_marks(p, TB_SESSION_MARK_START, NULL, 0),
			  tb_session_buffer(s, 0)->ncpus);
	{
		/* the whole compressed capture as one part: the session's events */
		size_t cap = 200000, n1, n2;
		uint64_t *a = malloc(cap * 8), *b = malloc(cap * 8);
		tb_session *r = open_bytes(d, len, 0);
		tb_session_line_state none = { 0, 0 };
		tb_session_line_state_set(p, &none);
		n1 = walk(r, a, cap);
		n2 = walk(p, b, cap);
		ck_assert_uint_eq(n1, n2);
		ck_assert(!memcmp(a, b, n1 * 8));
		tb_session_close(r);
		free(a);
		free(b);
	}
	ck_assert_int_eq(tb_session_plan(s, 4, NULL, &nb, &err), TB_ERR_ARG);
	ck_assert_int_eq(tb_session_plan(s, 1, NULL, &nb, &err), TB_OK);
	ck_assert_uint_eq(nb, 0);
	tb_session_close(p);
	tb_session_close(s);
	ck_assert_uint_eq(live, 0);
	free(d);
	{
		/* raw dumps: no parts */
		static uint8_t page[4096];
		tbt_pw w;
		tb_session_source src;
		tb_session_raw_cpu rc;
		tbt_pw_init(&w, page, 4096, 0, 8, 1000);
		put(&w, 0, 1);
		tbt_pw_finish(&w, 0, 0, 0);
		memset(&src, 0, sizeof(src));
		rc.cpu = 0;
		rc.data = page;
		rc.len = sizeof(page);
		src.raw = &rc;
		src.nraw = 1;
		ck_assert_int_eq(tb_session_open(&s, &src, NULL, &heap, &err), TB_OK);
		ck_assert_int_eq(tb_session_prepare(s, &err), TB_OK);
		ck_assert_int_eq(tb_session_plan(s, 4, bounds, &nb, &err), TB_OK);
		ck_assert_uint_eq(nb, 0);
		ck_assert_int_eq(tb_session_part_open(&p, s, &heap, NULL, NULL, &err),
				 TB_ERR_UNSUPPORTED);
		tb_session_close(s);
		ck_assert_uint_eq(live, 0);
	}
}
END_TEST

Suite *tb_suite_parts(void)
{
	Suite *s = suite_create("parts");
	TCase *tc = tcase_create("parts");
	tcase_add_test(tc, parts_of_the_samples_are_the_whole_stream);
	tcase_add_test(tc, parts_read_through_the_caller);
	tcase_add_test(tc, parts_plan_each_bound_as_found);
	tcase_add_test(tc, parts_plan_is_the_share_of_page_times);
	tcase_add_test(tc, parts_a_failed_read_loses_its_page_only);
	tcase_add_test(tc, parts_of_a_fresh_capture);
	tcase_add_test(tc, parts_keep_damage_marks_in_place);
	tcase_add_test(tc, parts_keep_the_window_and_offset);
	tcase_add_test(tc, parts_never_split_equal_timestamps);
	tcase_add_test(tc, parts_that_do_not_tile_say_so);
	tcase_add_test(tc, parts_limits_and_errors);
	tcase_add_test(tc, parts_arguments);
	suite_add_tcase(s, tc);
	return s;
}
