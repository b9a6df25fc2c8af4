/*
 * The merge by time (tracebound/merge.h) and the merges built on it: the
 * API against a sort of every item; a trace.dat buffer of hundreds of
 * CPUs (tb_dat_stream_next) and a session of hundreds of raw CPU dumps
 * against a plain reference scan (the scan the tree replaced, written
 * here page by page) and against a sort: ties, empty CPUs, CPUs that end
 * at different times, damaged pages in the middle.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datwriter.h"
#include "heapmem.h"
#include "pagewriter.h"
#include "tracebound/merge.h"
#include "tracebound/session.h"
#include "tracebound/tracedat.h"

Suite *tb_suite_merge(void);

static uint64_t rng_state;

static uint32_t rnd(uint32_t n)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return n ? (uint32_t)(rng_state % n) : 0;
}

/* ---- the API against a sort ---- */

typedef struct item {
	uint64_t ts;
	uint32_t rank, src, seq;
} item;

static int item_cmp(const void *a, const void *b)
{
	const item *x = a, *y = b;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* A source's slot inside a larger record, as the library's callers keep it. */
typedef struct source {
	char other[40];
	tb_merge_slot slot;
	size_t next, n;
	item *items;
} source;

/* n sources of up to `most` items each (times in [0, spread): many equal),
 * merged through the protocol with refills that fail now and then (the
 * same source must be asked again) and restarts; compared to a sort. */
static void api_case(size_t n, uint32_t most, uint64_t spread, int ranks)
{
	source *s = calloc(n ? n : 1, sizeof(*s));
	item *all, *got;
	size_t total = 0, i, k, out = 0;
	tb_merge m;
	ck_assert_ptr_nonnull(s);
	for (i = 0; i < n; i++) {
		s[i].n = rnd(4) == 0 ? 0 : rnd(most + 1); /* some empty */
		s[i].items = calloc(s[i].n ? s[i].n : 1, sizeof(item));
		ck_assert_ptr_nonnull(s[i].items);
		for (k = 0; k < s[i].n; k++) {
			s[i].items[k].ts = rnd((uint32_t)spread);
			s[i].items[k].rank = ranks ? rnd(3) : 0;
			s[i].items[k].src = (uint32_t)i;
		}
		/* each source in order, as a CPU's events are */
		qsort(s[i].items, s[i].n, sizeof(item), item_cmp);
		for (k = 0; k < s[i].n; k++)
			s[i].items[k].seq = (uint32_t)k;
		total += s[i].n;
	}
	all = calloc(total ? total : 1, sizeof(item));
	got = calloc(total ? total : 1, sizeof(item));
	ck_assert(all && got);
	for (i = 0, k = 0; i < n; i++) {
		memcpy(all + k, s[i].items, s[i].n * sizeof(item));
		k += s[i].n;
	}
	qsort(all, total, sizeof(item), item_cmp);

	ck_assert_int_eq(tb_merge_init(&m, n ? &s[0].slot : NULL, sizeof(source), n), TB_OK);
	for (;;) {
		size_t w, top;
		while ((w = tb_merge_want(&m)) != SIZE_MAX) {
			ck_assert_uint_lt(w, n);
			if (rnd(16) == 0)
				continue; /* a refill failed: asked again */
			ck_assert_uint_eq(tb_merge_top(&m), SIZE_MAX); /* not yet */
			if (s[w].next < s[w].n)
				tb_merge_put(&m, w, s[w].items[s[w].next].ts,
					     s[w].items[s[w].next].rank);
			else
				tb_merge_end(&m, w);
		}
		top = tb_merge_top(&m);
		if (top == SIZE_MAX)
			break;
		ck_assert_uint_lt(top, n);
		ck_assert_uint_lt(s[top].next, s[top].n);
		ck_assert_uint_lt(out, total);
		got[out++] = s[top].items[s[top].next++];
		tb_merge_take(&m);
		if (rnd(64) == 0)
			tb_merge_restart(&m); /* every source asked again, in order */
	}
	ck_assert_uint_eq(out, total);
	for (i = 0; i < total; i++) {
		ck_assert_uint_eq(got[i].ts, all[i].ts);
		ck_assert_uint_eq(got[i].rank, all[i].rank);
		ck_assert_uint_eq(got[i].src, all[i].src);
		ck_assert_uint_eq(got[i].seq, all[i].seq);
	}
	for (i = 0; i < n; i++)
		free(s[i].items);
	free(s);
	free(all);
	free(got);
}

START_TEST(api_matches_a_sort)
{
	static const size_t ns[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 16, 17, 31, 100, 300, 1000 };
	size_t i, round;
	rng_state = 0x9E3779B97F4A7C15ull;
	for (round = 0; round < 6; round++)
		for (i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
			/* few distinct times: ties across sources on most items */
			api_case(ns[i], 20, round % 2 ? 8 : 1000000, round >= 3);
		}
}
END_TEST

START_TEST(api_first_pass_in_index_order)
{
	source s[6];
	tb_merge m;
	size_t i;
	memset(s, 0, sizeof(s));
	ck_assert_int_eq(tb_merge_init(&m, &s[0].slot, sizeof(source), 6), TB_OK);
	for (i = 0; i < 6; i++) {
		ck_assert_uint_eq(tb_merge_want(&m), i);
		tb_merge_put(&m, i + 1, 5, 0); /* not the one asked: ignored */
		ck_assert_uint_eq(tb_merge_want(&m), i);
		/* all at time 7: the lowest index wins; source 3 ranks first */
		tb_merge_put(&m, i, 7, i == 3 ? 0 : 1);
	}
	ck_assert_uint_eq(tb_merge_want(&m), SIZE_MAX);
	ck_assert_uint_eq(tb_merge_top(&m), 3);
	tb_merge_take(&m);
	ck_assert_uint_eq(tb_merge_want(&m), 3);
	ck_assert_uint_eq(tb_merge_top(&m), SIZE_MAX);
	tb_merge_end(&m, 3);
	ck_assert_uint_eq(tb_merge_top(&m), 0);
	/* a time of UINT64_MAX is still an item, before an ended source */
	tb_merge_take(&m);
	tb_merge_put(&m, 0, UINT64_MAX, 0);
	ck_assert_uint_eq(tb_merge_top(&m), 1);
	for (i = 1; i < 6; i++) {
		if (i == 3)
			continue;
		ck_assert_uint_eq(tb_merge_top(&m), i);
		tb_merge_take(&m);
		tb_merge_end(&m, i);
	}
	ck_assert_uint_eq(tb_merge_top(&m), 0);
	tb_merge_take(&m);
	tb_merge_end(&m, 0);
	ck_assert_uint_eq(tb_merge_top(&m), SIZE_MAX);
	ck_assert_uint_eq(tb_merge_want(&m), SIZE_MAX);
}
END_TEST

/* n sources of `per` items, source i's at times step * i + j (j < per),
 * merged through the API in order; returns the matches played and nodes
 * read (m.plays) per pick, times 100. */
static uint64_t neighbours(size_t n, size_t per, uint64_t step)
{
	source *s = calloc(n, sizeof(*s));
	tb_merge m;
	size_t i, out = 0, w, top;
	uint64_t last_ts = 0, last_src = 0;
	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(tb_merge_init(&m, &s[0].slot, sizeof(source), n), TB_OK);
	ck_assert_uint_eq(m.plays, 0);
	for (;;) {
		while ((w = tb_merge_want(&m)) != SIZE_MAX) {
			if (s[w].next < per)
				tb_merge_put(&m, w, step * w + s[w].next, 0);
			else
				tb_merge_end(&m, w);
		}
		if ((top = tb_merge_top(&m)) == SIZE_MAX)
			break;
		/* in time order, ties by source */
		ck_assert(step * top + s[top].next > last_ts ||
			  (step * top + s[top].next == last_ts && top > last_src) || !out);
		last_ts = step * top + s[top].next;
		last_src = top;
		s[top].next++;
		out++;
		tb_merge_take(&m);
	}
	ck_assert_uint_eq(out, n * per);
	for (i = 0; i < n; i++)
		ck_assert_uint_eq(s[i].next, per);
	free(s);
	return m.plays * 100 / out;
}

/* 4096 sources of 64 items, source i's at times 32i .. 32i+63: at any
 * time two of them interleave (with ties), as the sparse CPUs of a large
 * machine do.  The front places most picks with no match played: under
 * one match or read a pick (0.58; a climb to the root plays 12, the early
 * stop the front replaced played 1.98).  With no neighbours (every source
 * has one item, then the next: all interleave) a pick is one climb, the
 * front's reads being tried ever more rarely as they miss. */
START_TEST(api_neighbours_play_few_matches)
{
	uint64_t sparse = neighbours(4096, 64, 32), all = neighbours(4096, 8, 0);
	ck_assert_uint_gt(sparse, 0);
	ck_assert_uint_lt(sparse, 100);
	ck_assert_uint_ge(all, 1200);
	ck_assert_uint_lt(all, 1400);
}
END_TEST

START_TEST(api_arguments)
{
	source s[2];
	tb_merge m;
	ck_assert_int_eq(tb_merge_init(NULL, &s[0].slot, sizeof(source), 2), TB_ERR_ARG);
	ck_assert_int_eq(tb_merge_init(&m, NULL, sizeof(source), 2), TB_ERR_ARG);
	ck_assert_int_eq(tb_merge_init(&m, &s[0].slot, sizeof(tb_merge_slot) - 8, 2), TB_ERR_ARG);
	ck_assert_int_eq(tb_merge_init(&m, &s[0].slot, sizeof(source) + 4, 2), TB_ERR_ARG);
	ck_assert_int_eq(tb_merge_init(&m, (char *)&s[0].slot + 4, sizeof(source), 2),
			 TB_ERR_ARG);
#if SIZE_MAX > UINT32_MAX
	ck_assert_int_eq(tb_merge_init(&m, &s[0].slot, sizeof(source), (size_t)UINT32_MAX + 1),
			 TB_ERR_ARG);
#endif
	/* a refused init merges nothing */
	ck_assert_uint_eq(tb_merge_want(&m), SIZE_MAX);
	ck_assert_uint_eq(tb_merge_top(&m), SIZE_MAX);
	ck_assert_int_eq(tb_merge_init(&m, NULL, 0, 0), TB_OK);
	ck_assert_uint_eq(tb_merge_want(&m), SIZE_MAX);
	ck_assert_uint_eq(tb_merge_top(&m), SIZE_MAX);
	/* the rank UINT32_MAX is refused (the source stays wanted) */
	ck_assert_int_eq(tb_merge_init(&m, &s[0].slot, sizeof(source), 1), TB_OK);
	tb_merge_put(&m, 0, 1, UINT32_MAX);
	ck_assert_uint_eq(tb_merge_want(&m), 0);
	tb_merge_put(&m, 0, 1, UINT32_MAX - 1);
	ck_assert_uint_eq(tb_merge_top(&m), 0);
	ck_assert_uint_eq(tb_merge_want(NULL), SIZE_MAX);
	ck_assert_uint_eq(tb_merge_top(NULL), SIZE_MAX);
	tb_merge_put(NULL, 0, 0, 0);
	tb_merge_end(NULL, 0);
	tb_merge_take(NULL);
	tb_merge_restart(NULL);
}
END_TEST

/* ---- hundreds of CPUs: the stream and the session against references ---- */

#define MC_PAGE 4096u
#define MC_PAGES 4u   /* at most, a CPU */
#define MC_EVENTS 12u /* at most, a page */

typedef struct mc_page {
	int damaged;
	uint32_t n;
	uint64_t ts[MC_EVENTS];
} mc_page;

typedef struct mc_cpu {
	uint32_t npages;
	mc_page pages[MC_PAGES];
} mc_cpu;

/* An event (kind 0: cpu, page, k, ts) or a damaged page (kind 1: cpu, page). */
typedef struct mc_out {
	int kind;
	uint32_t cpu, page, k;
	uint64_t ts;
} mc_out;

/* The capture: random CPUs, some empty, some pages damaged or empty, the
 * times of each CPU in order and crowded (equal times across CPUs). */
static void mc_make(mc_cpu *cpus, size_t n, uint32_t spread)
{
	size_t c;
	uint32_t p, k;
	for (c = 0; c < n; c++) {
		uint64_t t = rnd(spread);
		mc_cpu *m = &cpus[c];
		memset(m, 0, sizeof(*m));
		m->npages = rnd(8) == 0 ? 0 : 1 + rnd(MC_PAGES); /* ends at different times */
		for (p = 0; p < m->npages; p++) {
			mc_page *pg = &m->pages[p];
			pg->damaged = rnd(8) == 0;
			pg->n = rnd(10) == 0 ? 0 : 1 + rnd(MC_EVENTS);
			for (k = 0; k < pg->n; k++) {
				t += rnd(3);
				pg->ts[k] = t;
			}
			t += rnd(spread);
		}
	}
}

/* The bytes of CPU c: its pages, each event's payload naming it. */
static size_t mc_bytes(const mc_cpu *m, uint32_t c, uint8_t *out)
{
	uint32_t p, k;
	for (p = 0; p < m->npages; p++) {
		const mc_page *pg = &m->pages[p];
		tbt_pw w;
		tbt_pw_init(&w, out + (size_t)p * MC_PAGE, MC_PAGE, 0, 8, pg->n ? pg->ts[0] : 1);
		for (k = 0; k < pg->n; k++) {
			uint8_t payload[8];
			payload[0] = (uint8_t)c;
			payload[1] = (uint8_t)(c >> 8);
			payload[2] = (uint8_t)p;
			payload[3] = (uint8_t)k;
			memset(payload + 4, 0, 4);
			tbt_pw_data(&w, (uint32_t)(pg->ts[k] - (k ? pg->ts[k - 1] : pg->ts[0])), payload,
				    sizeof(payload), 0);
		}
		if (pg->damaged)
			tbt_pw_commit(&w, 5000); /* more than the page holds */
		else
			tbt_pw_finish(&w, 0, 0, 0);
		ck_assert(!w.overflow);
	}
	return (size_t)m->npages * MC_PAGE;
}

/* The reference: the plain scan, page by page.  Every call fills every
 * CPU in index order (a damaged page met on the way is the call's
 * answer), then gives the least time, the lower index on ties. */
static size_t mc_reference(const mc_cpu *cpus, size_t n, mc_out *out)
{
	uint32_t *pi = calloc(n ? n : 1, sizeof(uint32_t));
	uint32_t *ri = calloc(n ? n : 1, sizeof(uint32_t));
	const mc_page **cur = calloc(n ? n : 1, sizeof(*cur));
	size_t nout = 0, i;
	ck_assert(pi && ri && cur);
	for (;;) {
		size_t best = SIZE_MAX;
		int failed = 0;
		for (i = 0; i < n && !failed; i++) {
			while (!cur[i] || ri[i] >= cur[i]->n) {
				const mc_page *pg;
				if (pi[i] >= cpus[i].npages) {
					cur[i] = NULL;
					break;
				}
				pg = &cpus[i].pages[pi[i]++];
				cur[i] = NULL;
				if (pg->damaged) {
					mc_out o = { 1, (uint32_t)i, pi[i] - 1, 0, 0 };
					out[nout++] = o;
					failed = 1;
					break;
				}
				cur[i] = pg;
				ri[i] = 0;
			}
			if (!failed && cur[i] &&
			    (best == SIZE_MAX || cur[i]->ts[ri[i]] < cur[best]->ts[ri[best]]))
				best = i;
		}
		if (failed)
			continue;
		if (best == SIZE_MAX)
			break;
		{
			mc_out o = { 0, (uint32_t)best, pi[best] - 1, ri[best], cur[best]->ts[ri[best]] };
			out[nout++] = o;
		}
		ri[best]++;
	}
	free(pi);
	free(ri);
	free(cur);
	return nout;
}

static int mc_event_cmp(const void *a, const void *b)
{
	const mc_out *x = a, *y = b;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	if (x->page != y->page)
		return x->page < y->page ? -1 : 1;
	return x->k < y->k ? -1 : x->k > y->k;
}

/* The reference's events are every event sorted (time, CPU, place). */
static void mc_check_sorted(const mc_cpu *cpus, size_t n, const mc_out *ref, size_t nref)
{
	mc_out *all = calloc(n * MC_PAGES * MC_EVENTS + 1, sizeof(mc_out));
	size_t c, total = 0, i, j = 0;
	uint32_t p, k;
	ck_assert_ptr_nonnull(all);
	for (c = 0; c < n; c++)
		for (p = 0; p < cpus[c].npages; p++)
			for (k = 0; !cpus[c].pages[p].damaged && k < cpus[c].pages[p].n; k++) {
				mc_out o = { 0, (uint32_t)c, p, k, cpus[c].pages[p].ts[k] };
				all[total++] = o;
			}
	qsort(all, total, sizeof(mc_out), mc_event_cmp);
	for (i = 0; i < nref; i++) {
		if (ref[i].kind)
			continue;
		ck_assert_uint_lt(j, total);
		ck_assert_int_eq(mc_event_cmp(&ref[i], &all[j]), 0);
		j++;
	}
	ck_assert_uint_eq(j, total);
	free(all);
}

static void mc_same(const mc_out *got, const mc_out *want, size_t i)
{
	if (got->kind != want->kind || got->cpu != want->cpu || got->page != want->page ||
	    got->k != want->k || got->ts != want->ts)
		ck_abort_msg("item %zu: got kind %d cpu %u page %u k %u ts %llu, want kind %d cpu %u "
			     "page %u k %u ts %llu", i, got->kind, got->cpu, got->page, got->k,
			     (unsigned long long)got->ts, want->kind, want->cpu, want->page, want->k,
			     (unsigned long long)want->ts);
}

static void mc_event_of(mc_out *o, uint32_t slot, const uint8_t *data, uint64_t ts)
{
	o->kind = 0;
	o->cpu = (uint32_t)data[0] | (uint32_t)data[1] << 8;
	ck_assert_uint_eq(o->cpu, slot);
	o->page = data[2];
	o->k = data[3];
	o->ts = ts;
}

static void grow_storage(tb_dat_storage *st, const tb_dat *d)
{
	free(st->events);
	free(st->buffers);
	free(st->cpus);
	free(st->cpustats);
	free(st->scratch);
	memset(st, 0, sizeof(*st));
	st->events = calloc(d->need.events + 1, sizeof(tb_dat_event_text));
	st->events_cap = d->need.events;
	st->buffers = calloc(d->need.buffers + 1, sizeof(tb_dat_buffer));
	st->buffers_cap = d->need.buffers;
	st->cpus = calloc(d->need.cpus + 1, sizeof(tb_dat_cpu));
	st->cpus_cap = d->need.cpus;
	st->cpustats = calloc(d->need.cpustats + 1, sizeof(tb_dat_text));
	st->cpustats_cap = d->need.cpustats;
	st->scratch = calloc(d->need.scratch + 1, 1);
	st->scratch_cap = d->need.scratch;
}

static const tb_dat_decompressor copy_dc = { dw_copy_decompress, NULL };

/* tb_dat_stream_next over a v6 (or compressed v7) file of n CPUs. */
static void stream_case(size_t n, unsigned version, int compress, uint32_t spread)
{
	mc_cpu *cpus = calloc(n, sizeof(*cpus));
	uint8_t *data = calloc(n * MC_PAGES, MC_PAGE), *file, *chunks = NULL;
	const uint8_t **datav = calloc(n, sizeof(*datav));
	size_t *sizev = calloc(n, sizeof(*sizev)), cap = n * MC_PAGES * MC_PAGE * 2 + (1u << 20);
	size_t len, nref, ngot = 0, c, per_cpu = 0, nevents = 0;
	mc_out *ref = calloc(n * MC_PAGES * (MC_EVENTS + 1) + 1, sizeof(mc_out));
	mc_out *got = calloc(n * MC_PAGES * (MC_EVENTS + 1) + 1, sizeof(mc_out));
	tb_dat_cursor *cur = calloc(n, sizeof(*cur));
	dw_spec spec;
	tb_dat d;
	tb_dat_storage st;
	tb_kbuf_layout layout;
	const tb_dat_buffer *b;
	tb_dat_stream s;
	tb_dat_event ev;
	tb_error err;
	tb_status rc;
	int i;
	ck_assert(cpus && data && datav && sizev && ref && got && cur);
	mc_make(cpus, n, spread);
	for (c = 0; c < n; c++) {
		/* a compressed CPU of no bytes is one chunk of no page, which is
		 * damage of its own: an empty page instead */
		if (compress && !cpus[c].npages)
			cpus[c].npages = 1;
		datav[c] = data + c * MC_PAGES * MC_PAGE;
		sizev[c] = mc_bytes(&cpus[c], (uint32_t)c, data + c * MC_PAGES * MC_PAGE);
	}
	nref = mc_reference(cpus, n, ref);
	mc_check_sorted(cpus, n, ref, nref);

	dw_default(&spec, version);
	spec.compress = compress;
	spec.ncpus = (unsigned)n;
	spec.cpu_datav = datav;
	spec.cpu_sizev = sizev;
	file = malloc(cap);
	ck_assert_ptr_nonnull(file);
	len = dw_write(&spec, file, cap, NULL);
	ck_assert_uint_gt(len, 0);
	memset(&st, 0, sizeof(st));
	for (i = 0; i < 5; i++) {
		rc = tb_dat_open(&d, file, len, &st, compress ? &copy_dc : NULL, &err);
		if (rc != TB_ERR_NO_SPACE)
			break;
		grow_storage(&st, &d);
	}
	ck_assert_msg(rc == TB_OK, "open: %s", err.what);
	ck_assert_int_eq(tb_kbuf_layout_from_header_page(d.header_page.ptr, d.header_page.len,
							 d.big_endian, &layout, &err), TB_OK);
	b = tb_dat_find_buffer(&d, "");
	ck_assert_ptr_nonnull(b);
	ck_assert_uint_eq(b->ncpus, n);
	ck_assert_int_eq(tb_dat_chunk_max(&d, b, &per_cpu, &err), TB_OK);
	if (per_cpu) {
		chunks = malloc(per_cpu * n);
		ck_assert_ptr_nonnull(chunks);
	}
	ck_assert_int_eq(tb_dat_stream_init(&s, &d, b, &layout, cur, n, chunks, per_cpu, 0, &err),
			 TB_OK);
	while ((rc = tb_dat_stream_next(&s, &ev, &err)) != TB_END) {
		ck_assert_uint_lt(ngot, nref);
		if (rc == TB_OK) {
			mc_event_of(&got[ngot], ev.cpu, ev.data, ev.ts);
		} else {
			got[ngot].kind = 1;
			got[ngot].cpu = s.error_cpu;
			got[ngot].page = (uint32_t)s.error_page;
			got[ngot].k = 0;
			got[ngot].ts = 0;
		}
		mc_same(&got[ngot], &ref[ngot], ngot);
		/* the first pass decodes one record of each CPU: the merge
		 * needs only their heads (not the 12 of each first page) */
		if (ngot == 0)
			ck_assert_uint_le(s.decoded, n);
		nevents += got[ngot].kind == 0;
		ngot++;
	}
	ck_assert_uint_eq(ngot, nref);
	ck_assert_uint_eq(s.decoded, nevents); /* each once, in the end */
	free(cpus);
	free(data);
	free(datav);
	free(sizev);
	free(ref);
	free(got);
	free(cur);
	free(file);
	free(chunks);
	grow_storage(&st, &d);
	free(st.events);
	free(st.buffers);
	free(st.cpus);
	free(st.cpustats);
	free(st.scratch);
}

START_TEST(stream_of_hundreds_of_cpus)
{
	rng_state = 0x0123456789ABCDEFull;
	stream_case(300, 6, 0, 50);   /* crowded: ties on most events */
	stream_case(300, 6, 0, 5000); /* spread out */
	stream_case(257, 7, 0, 50);
	stream_case(200, 7, 1, 50);   /* compressed ("copy") chunks */
	stream_case(3, 6, 0, 20);     /* the scan's few CPUs */
	stream_case(5, 6, 0, 20);
	stream_case(1, 6, 0, 20);
}
END_TEST


/* A session of n raw CPU dumps (CPU ids in another order than their
 * index: ties go by index), damaged pages given in place. */
static void raw_case(size_t n, uint32_t spread)
{
	const tb_mem heap = tb_heap_mem;
	mc_cpu *cpus = calloc(n, sizeof(*cpus));
	uint8_t *data = calloc(n * MC_PAGES, MC_PAGE);
	tb_session_raw_cpu *raw = calloc(n, sizeof(*raw));
	mc_out *ref = calloc(n * MC_PAGES * (MC_EVENTS + 1) + 1, sizeof(mc_out));
	size_t nref, ngot = 0, c;
	tb_session_source src;
	tb_session_options opt = { TB_SESSION_SKIP_DAMAGED, 0 };
	tb_session *s;
	tb_session_event ev;
	tb_error err;
	tb_status rc;
	ck_assert(cpus && data && raw && ref);
	mc_make(cpus, n, spread);
	for (c = 0; c < n; c++) {
		raw[c].cpu = (uint32_t)(n - 1 - c);
		raw[c].data = data + c * MC_PAGES * MC_PAGE;
		raw[c].len = mc_bytes(&cpus[c], (uint32_t)c, data + c * MC_PAGES * MC_PAGE);
	}
	nref = mc_reference(cpus, n, ref);
	memset(&src, 0, sizeof(src));
	src.raw = raw;
	src.nraw = n;
	ck_assert_int_eq(tb_session_open(&s, &src, &opt, &heap, &err), TB_OK);
	while ((rc = tb_session_next(s, &ev, &err)) == TB_OK) {
		mc_out o;
		ck_assert_uint_lt(ngot, nref);
		if (ev.kind == TB_SEV_DAMAGED) {
			o.kind = 1;
			o.cpu = (uint32_t)(n - 1 - ev.cpu);
			o.page = (uint32_t)ev.page_index;
			o.k = 0;
			o.ts = 0;
		} else {
			mc_event_of(&o, (uint32_t)(n - 1 - ev.cpu), ev.data, ev.ts);
		}
		mc_same(&o, &ref[ngot], ngot);
		ngot++;
	}
	ck_assert_int_eq(rc, TB_END);
	ck_assert_uint_eq(ngot, nref);
	/* again after a rewind: the same */
	ck_assert_int_eq(tb_session_rewind(s, &err), TB_OK);
	for (ngot = 0; (rc = tb_session_next(s, &ev, &err)) == TB_OK; ngot++)
		ck_assert_uint_eq(ev.kind == TB_SEV_DAMAGED, (unsigned)ref[ngot].kind);
	ck_assert_uint_eq(ngot, nref);
	tb_session_close(s);
	free(cpus);
	free(data);
	free(raw);
	free(ref);
}

START_TEST(session_of_hundreds_of_raw_cpus)
{
	rng_state = 0xFEDCBA9876543210ull;
	raw_case(300, 50);
	raw_case(300, 5000);
	raw_case(4, 20);
	raw_case(2, 20);
}
END_TEST

Suite *tb_suite_merge(void)
{
	Suite *s = suite_create("merge");
	TCase *t = tcase_create("merge");
	tcase_set_timeout(t, 120);
	tcase_add_test(t, api_matches_a_sort);
	tcase_add_test(t, api_first_pass_in_index_order);
	tcase_add_test(t, api_arguments);
	tcase_add_test(t, api_neighbours_play_few_matches);
	tcase_add_test(t, stream_of_hundreds_of_cpus);
	tcase_add_test(t, session_of_hundreds_of_raw_cpus);
	suite_add_tcase(s, t);
	return s;
}
