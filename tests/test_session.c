/*
 * The library session: one capture, every event merged by time with its
 * name, comm, fields and text.  Values come from the real samples (the
 * same events `tracebound report` and trace-cmd print) and from
 * spec-built files (tests/support/datwriter.c).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracebound/tracebound.h"

#include "datwriter.h"
#include "pagewriter.h"
#include "tarball.h"
#include "testutil.h"
#include "zstd_dl.h"

Suite *tb_suite_session(void);

static void *heap_alloc(void *ctx, size_t n)
{
	size_t *live = ctx;
	void *p = malloc(n);
	if (p && live)
		(*live)++;
	return p;
}

static void heap_free(void *ctx, void *p, size_t n)
{
	size_t *live = ctx;
	(void)n;
	if (p && live)
		(*live)--;
	free(p);
}

static size_t live_blocks;
static const tb_mem heap = { heap_alloc, heap_free, &live_blocks };

typedef struct sample {
	uint8_t *data;
	size_t len;
} sample;

static int load_sample(const char *name, sample *s)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s", tb_test_path(name));
	if (!tb_test_exists(path)) {
		printf("session: %s missing, test skipped\n", name);
		return 0;
	}
	s->data = tb_test_read_file(path, &s->len);
	ck_assert_ptr_nonnull(s->data);
	return 1;
}

static tb_session *open_dat(const sample *smp, unsigned flags, tb_status *out_st)
{
	tb_session_source src;
	tb_session_options opt = { flags, TB_RENDER_KNOWN_ENUMS | TB_RENDER_KERNEL_STYLE };
	tb_session *s = NULL;
	tb_error err;
	memset(&src, 0, sizeof(src));
	src.dat = smp->data;
	src.dat_len = smp->len;
	src.decompress.fn = tb_test_zstd;
	*out_st = tb_session_open(&s, &src, &opt, &heap, &err);
	return s;
}

/* FNV-1a over every event's cpu, ts, id and payload: one number per capture. */
static uint64_t walk_hash(tb_session *s, uint64_t *count)
{
	uint64_t h = 1469598103934665603ull;
	tb_session_event ev;
	tb_error err;
	tb_status st;
	*count = 0;
	while ((st = tb_session_next(s, &ev, &err)) == TB_OK) {
		uint64_t v[3] = { ev.cpu, ev.ts, ev.id };
		const uint8_t *p = (const uint8_t *)v;
		size_t i;
		for (i = 0; i < sizeof(v); i++)
			h = (h ^ p[i]) * 1099511628211ull;
		for (i = 0; i < ev.len; i++)
			h = (h ^ ev.data[i]) * 1099511628211ull;
		(*count)++;
	}
	ck_assert_int_eq(st, TB_END);
	return h;
}

START_TEST(session_first_events_of_the_v7_sample)
{
	sample smp;
	tb_session *s;
	tb_session_event ev;
	tb_field_value v;
	const tb_field *f;
	tb_error err;
	tb_status st;
	const tb_session_info *info;
	char text[512];
	tb_render_result r;
	if (!load_sample("../shared/samples/sched4k.v7.dat", &smp))
		return;
	s = open_dat(&smp, TB_SESSION_TC_DROPS, &st);
	ck_assert_int_eq(st, TB_OK);
	info = tb_session_get_info(s);
	ck_assert_int_eq(info->is_dat, 1);
	ck_assert_uint_eq(info->dat_version, 7);
	ck_assert_uint_eq(info->ncpus, 2);
	ck_assert_uint_eq(info->nbuffers, 1);
	ck_assert_uint_eq(info->nformats, 2323);
	ck_assert_uint_eq(info->long_size, 8);
	ck_assert_int_eq(tb_session_buffer(s, 0)->ns_clock, 1);
	ck_assert_uint_eq(tb_session_ndamage(s), 0);
	/* the first line of `trace-cmd report`:
	 *  memfd:sealed-91-1573  [001]   192.833676: sys_enter_newfstat:   fd: 0x00000005, ... */
	ck_assert_int_eq(tb_session_next(s, &ev, &err), TB_OK);
	ck_assert_uint_eq(ev.kind, TB_SEV_EVENT);
	ck_assert_uint_eq(ev.cpu, 1);
	ck_assert_uint_eq(ev.ts, 192833676481ull);
	ck_assert_int_eq(ev.pid, 1573);
	ck_assert_uint_eq(ev.id, 852);
	ck_assert_int_eq(ev.comm_known, 1);
	ck_assert(ev.comm_len == 15 && !memcmp(ev.comm, "memfd:sealed-91", 15));
	ck_assert(ev.name.len == 18 && !memcmp(ev.name.ptr, "sys_enter_newfstat", 18));
	ck_assert(ev.system.len == 8 && !memcmp(ev.system.ptr, "syscalls", 8));
	ck_assert_int_eq(tb_session_field(s, &ev, "fd", &v, &f, &err), TB_OK);
	ck_assert_uint_eq(v.num, 5);
	ck_assert_int_eq(tb_session_field(s, &ev, "statbuf", &v, &f, &err), TB_OK);
	ck_assert_uint_eq(v.num, 0x7fff89a3be00ull);
	ck_assert_int_eq(tb_session_field(s, &ev, "common_pid", &v, &f, &err), TB_OK);
	ck_assert_uint_eq(v.num, 1573);
	ck_assert_int_eq(tb_session_field(s, &ev, "nosuch", &v, &f, &err), TB_NOT_FOUND);
	/* the print fmt text, the kernel's rendering of a syscall */
	ck_assert_int_eq(tb_session_text(s, &ev, TB_TEXT_PRINT, text, sizeof(text), &r), TB_OK);
	ck_assert_str_eq(text, "sys_newfstat(fd: 5, statbuf: 0x7fff89a3be00)");
	/* the whole report line, as `tracebound report` prints it */
	ck_assert_int_eq(tb_session_text(s, &ev, TB_TEXT_PRINT | TB_TEXT_LINE, text, sizeof(text),
					 &r), TB_OK);
	ck_assert_str_eq(text, " memfd:sealed-91-1573  [001]   192.833676: sys_enter_newfstat:   "
			       "sys_newfstat(fd: 5, statbuf: 0x7fff89a3be00)\n");
	ck_assert_int_eq(tb_session_text(s, &ev, TB_TEXT_PRINT | TB_TEXT_LINE | TB_TEXT_NSECS,
					 text, sizeof(text), &r), TB_OK);
	ck_assert(strstr(text, "[001]   192.833676481: sys_enter_newfstat:") != NULL);
	/* -l: flag letters and depths; -R -l (trace-cmd): the flags byte in hex */
	ck_assert_int_eq(tb_session_text(s, &ev, TB_TEXT_PRINT | TB_TEXT_LINE | TB_TEXT_LATENCY,
					 text, sizeof(text), &r), TB_OK);
	ck_assert(strstr(text, "memfd:se-1573    1.....   192.833676: sys_enter_newfstat:") == text);
	ck_assert_int_eq(tb_session_text(s, &ev, TB_TEXT_FIELDS | TB_TEXT_LINE | TB_TEXT_LATENCY,
					 text, sizeof(text), &r), TB_OK);
	ck_assert_str_eq(text, "memfd:se-1573    1-0x0   192.833676: sys_enter_newfstat:    "
			       "__syscall_nr=5 fd=0x00000005 statbuf=0x7fff89a3be00\n");
	ck_assert_int_eq(tb_session_text(s, &ev, TB_TEXT_JSON, text, sizeof(text), &r), TB_OK);
	ck_assert_str_eq(text, "{\"cpu\":1,\"ts\":192833676481,\"pid\":1573,\"comm\":\"memfd:sealed-91\","
			       "\"system\":\"syscalls\",\"name\":\"sys_enter_newfstat\",\"id\":852,"
			       "\"subbuf\":0,\"offset\":16,\"size\":32,\"fields\":{\"common_type\":852,"
			       "\"common_flags\":0,\"common_preempt_count\":0,\"common_pid\":1573,"
			       "\"__syscall_nr\":5,\"fd\":5,\"statbuf\":140735502597632}}");
	ck_assert_int_eq(tb_session_text(s, &ev, TB_TEXT_JSON | TB_TEXT_WITH_PRINT, text,
					 sizeof(text), &r), TB_OK);
	ck_assert(strstr(text, ",\"text\":\"sys_newfstat(fd: 5, statbuf: 0x7fff89a3be00)\"}") != NULL);
	tb_session_close(s);
	ck_assert_uint_eq(live_blocks, 0);
	free(smp.data);
}
END_TEST

/* Every sample (v6, v7, v7 with zstd) gives the same events, counts and drops. */
START_TEST(session_same_events_in_every_container_version)
{
	static const char *names[] = { "../shared/samples/sched4k.v6.dat",
				       "../shared/samples/sched4k.v7.dat",
				       "tests/data/sched4k.v7zstd.dat" };
	uint64_t h0 = 0, n;
	size_t i;
	for (i = 0; i < 3; i++) {
		sample smp;
		tb_session *s;
		tb_status st;
		tb_session_cpu_stats c0, c1;
		uint64_t h;
		if (!load_sample(names[i], &smp))
			continue;
		s = open_dat(&smp, 0, &st);
		ck_assert_int_eq(st, TB_OK);
		h = walk_hash(s, &n);
		ck_assert_uint_eq(n, 63844);
		if (!h0)
			h0 = h;
		ck_assert_uint_eq(h, h0);
		ck_assert_int_eq(tb_session_cpu_stats_get(s, 0, 0, &c0), TB_OK);
		ck_assert_int_eq(tb_session_cpu_stats_get(s, 0, 1, &c1), TB_OK);
		/* `tracebound stats`: cpu 0 39537 events, cpu 1 24307; 572 pages, 2746 dropped */
		ck_assert_uint_eq(c0.events, 39537);
		ck_assert_uint_eq(c1.events, 24307);
		ck_assert_uint_eq(c0.pages + c1.pages, 572);
		ck_assert_uint_eq(c0.dropped + c1.dropped, 2746);
		/* rewind: the same walk again */
		ck_assert_int_eq(tb_session_rewind(s, NULL), TB_OK);
		ck_assert_uint_eq(walk_hash(s, &n), h0);
		ck_assert_uint_eq(n, 63844);
		tb_session_close(s);
		free(smp.data);
	}
	ck_assert_uint_eq(live_blocks, 0);
}
END_TEST

/* A fixed arena: the peak of one open is enough, less fails cleanly. */
START_TEST(session_in_a_fixed_arena)
{
	sample smp;
	tb_session_source src;
	tb_session *s;
	tb_arena a;
	tb_mem m;
	tb_error err;
	uint64_t n, h;
	size_t peak, cap = (size_t)64 << 20;
	uint8_t *mem = malloc(cap);
	ck_assert_ptr_nonnull(mem);
	if (!load_sample("../shared/samples/sched4k.v7.dat", &smp)) {
		free(mem);
		return;
	}
	memset(&src, 0, sizeof(src));
	src.dat = smp.data;
	src.dat_len = smp.len;
	tb_arena_init(&a, mem, cap);
	m = tb_arena_mem(&a);
	ck_assert_int_eq(tb_session_open(&s, &src, NULL, &m, &err), TB_OK);
	h = walk_hash(s, &n);
	ck_assert_uint_eq(n, 63844);
	peak = a.peak;
	ck_assert_uint_gt(peak, 0);
	tb_session_close(s);
	/* exactly the peak: the same walk */
	tb_arena_init(&a, mem, peak);
	m = tb_arena_mem(&a);
	ck_assert_int_eq(tb_session_open(&s, &src, NULL, &m, &err), TB_OK);
	ck_assert_uint_eq(walk_hash(s, &n), h);
	ck_assert_uint_eq(tb_session_ndamage(s), 0);
	tb_session_close(s);
	/* far too little: NO_SPACE, and the arena says what it wanted */
	tb_arena_init(&a, mem, 4096);
	m = tb_arena_mem(&a);
	ck_assert_int_eq(tb_session_open(&s, &src, NULL, &m, &err), TB_ERR_NO_SPACE);
	ck_assert_ptr_null(s);
	ck_assert_uint_gt(a.want, 4096);
	free(mem);
	free(smp.data);
}
END_TEST

/* Raw per-CPU dumps with the format texts of the same kernel. */
START_TEST(session_raw_dumps_with_formats)
{
	tb_tarball tb;
	sample c0, c1, hp;
	tb_session_source src;
	tb_session_raw_cpu raw[2];
	tb_session_format_text *ft;
	tb_session *s;
	tb_session_event ev;
	tb_error err;
	tb_status st;
	size_t i, nf = 0, named = 0, n = 0;
	uint64_t last = 0;
	char sys[128], name[128];
	if (!load_sample("tests/data/raw-sched4k/cpu0.raw", &c0) ||
	    !load_sample("tests/data/raw-sched4k/cpu1.raw", &c1) ||
	    !load_sample("tests/data/raw-sched4k/header_page", &hp))
		return;
	ck_assert_int_eq(tb_tarball_load(tb_test_path("tests/data/formats-6.18.tar.gz"), &tb), 0);
	ft = calloc(tb.count, sizeof(*ft));
	ck_assert_ptr_nonnull(ft);
	for (i = 0; i < tb.count; i++) {
		char *sp;
		if (!tb_tar_is_format(&tb.entries[i], sys, sizeof(sys), name, sizeof(name)))
			continue;
		/* the system name lives in the entry's path (kept by the tarball) */
		sp = strstr(tb.entries[i].path, sys);
		ft[nf].system.ptr = sp;
		ft[nf].system.len = strlen(sys);
		ft[nf].text.ptr = tb.entries[i].data;
		ft[nf].text.len = tb.entries[i].len;
		nf++;
	}
	ck_assert_uint_eq(nf, 2323);
	memset(&src, 0, sizeof(src));
	raw[0].cpu = 0;
	raw[0].data = c0.data;
	raw[0].len = c0.len;
	raw[1].cpu = 1;
	raw[1].data = c1.data;
	raw[1].len = c1.len;
	src.raw = raw;
	src.nraw = 2;
	src.header_page.ptr = (const char *)hp.data;
	src.header_page.len = hp.len;
	src.formats = ft;
	src.nformats = nf;
	ck_assert_int_eq(tb_session_open(&s, &src, NULL, &heap, &err), TB_OK);
	ck_assert_uint_eq(tb_session_get_info(s)->is_dat, 0);
	ck_assert_uint_eq(tb_session_get_info(s)->ncpus, 2);
	while ((st = tb_session_next(s, &ev, &err)) == TB_OK) {
		ck_assert_uint_ge(ev.ts, last); /* merged by time */
		last = ev.ts;
		named += ev.format != NULL;
		n++;
	}
	ck_assert_int_eq(st, TB_END);
	/* `tracebound check` on the dumps: 15353 events in cpu0.raw; both CPUs: */
	{
		tb_session_cpu_stats cs;
		ck_assert_int_eq(tb_session_cpu_stats_get(s, 0, 0, &cs), TB_OK);
		ck_assert_uint_eq(cs.events, 15353);
		ck_assert_uint_eq(cs.pages, 145);
	}
	ck_assert_uint_eq(named, n); /* every id has its format */
	ck_assert_uint_gt(n, 15353);
	{
		/* the dumps' sched_switch events, then only them through
		 * tb_session_keep_ids, counted the same, CPU stats whole */
		const tb_format *sw = tb_session_find_format(s, "sched", "sched_switch");
		uint64_t keep[1024], nsw = 0, k = 0;
		tb_session_cpu_stats cs;
		ck_assert_ptr_nonnull(sw);
		ck_assert_uint_lt(sw->id, 64 * 1024);
		ck_assert_int_eq(tb_session_rewind(s, &err), TB_OK);
		while ((st = tb_session_next(s, &ev, &err)) == TB_OK)
			nsw += ev.format == sw;
		ck_assert_uint_gt(nsw, 0);
		memset(keep, 0, sizeof(keep));
		keep[sw->id / 64] = 1ull << (sw->id % 64);
		tb_session_keep_ids(s, keep, 1024);
		ck_assert_int_eq(tb_session_rewind(s, &err), TB_OK);
		while ((st = tb_session_next(s, &ev, &err)) == TB_OK) {
			ck_assert_ptr_eq(ev.format, sw);
			k++;
		}
		ck_assert_int_eq(st, TB_END);
		ck_assert_uint_eq(k, nsw);
		ck_assert_int_eq(tb_session_cpu_stats_get(s, 0, 0, &cs), TB_OK);
		ck_assert_uint_eq(cs.events, 15353);
	}
	tb_session_close(s);
	tb_tarball_free(&tb);
	free(ft);
	free(c0.data);
	free(c1.data);
	free(hp.data);
}
END_TEST

/* A damaged page: without SKIP_DAMAGED next() says where, then goes on;
 * with it the page is an event of its own in the stream. */
START_TEST(session_damaged_page_is_reported_in_place)
{
	sample smp;
	tb_session *s;
	tb_session_event ev;
	tb_error err;
	tb_status st;
	const tb_dat *d;
	uint64_t n = 0, errors = 0, damaged = 0;
	size_t page;
	if (!load_sample("../shared/samples/sched4k.v7.dat", &smp))
		return;
	s = open_dat(&smp, 0, &st);
	ck_assert_int_eq(st, TB_OK);
	d = tb_session_dat(s);
	/* the commit word of CPU 0's third page: far past the page */
	page = (size_t)d->buffers[0].cpus[0].offset + 2 * 4096;
	tb_session_close(s);
	memset(smp.data + page + 8, 0xff, 4);
	s = open_dat(&smp, 0, &st);
	ck_assert_int_eq(st, TB_OK);
	while ((st = tb_session_next(s, &ev, &err)) != TB_END) {
		if (st != TB_OK) {
			errors++;
			ck_assert(tb_is_malformed(st));
			ck_assert_uint_ge(err.offset, page);
			ck_assert_uint_lt(err.offset, page + 4096);
			ck_assert_uint_eq(tb_session_error(s)->cpu, 0);
			ck_assert_uint_eq(tb_session_error(s)->page, 2);
			continue;
		}
		n++;
	}
	ck_assert_uint_eq(errors, 1);
	ck_assert_uint_lt(n, 63844);
	tb_session_close(s);
	s = open_dat(&smp, TB_SESSION_SKIP_DAMAGED, &st);
	ck_assert_int_eq(st, TB_OK);
	{
		uint64_t n2 = 0;
		char line[256], want[256];
		while ((st = tb_session_next(s, &ev, &err)) == TB_OK) {
			if (ev.kind == TB_SEV_DAMAGED) {
				damaged++;
				ck_assert_uint_eq(ev.cpu, 0);
				ck_assert_uint_eq(ev.page_index, 2);
				ck_assert_int_eq(tb_session_text(s, &ev, TB_TEXT_PRINT | TB_TEXT_LINE,
								 line, sizeof(line), NULL), TB_OK);
				ck_assert(strstr(line, "CPU:0 [PAGE 2 DAMAGED: ") == line);
				/* in JSON: the page, the byte offset and the named error */
				ck_assert_int_eq(tb_session_text(s, &ev, TB_TEXT_JSON, line,
								 sizeof(line), NULL), TB_OK);
				snprintf(want, sizeof(want), "\"damaged\":{\"page\":2,\"offset\":%llu,"
					 "\"status\":\"%s\",\"what\":\"%s\"}}",
					 (unsigned long long)ev.damage.offset,
					 tb_strerror(ev.damage.status), ev.damage.what);
				ck_assert_msg(strstr(line, want) != NULL, "%s", line);
				ck_assert_uint_ge(ev.damage.offset, page);
				ck_assert_uint_lt(ev.damage.offset, page + 4096);
				continue;
			}
			n2++;
		}
		ck_assert_int_eq(st, TB_END);
		ck_assert_uint_eq(n2, n);
	}
	ck_assert_uint_eq(damaged, 1);
	tb_session_close(s);
	free(smp.data);
}
END_TEST

/* What one walk saw: the kept events' count and a hash of their report
 * lines (names, comms and fields all described), and CPU 0's stats. */
typedef struct kept_walk {
	uint64_t n, h, damaged;
	tb_session_cpu_stats cpu0;
} kept_walk;

static kept_walk walk_kept(tb_session *s, const uint32_t *ids, size_t nids, uint64_t from,
			   uint64_t to)
{
	kept_walk w;
	tb_session_event ev;
	tb_error err;
	tb_status st;
	char line[1024];
	memset(&w, 0, sizeof(w));
	w.h = 1469598103934665603ull;
	while ((st = tb_session_next(s, &ev, &err)) == TB_OK) {
		size_t i, k;
		int want = nids == 0;
		if (ev.kind == TB_SEV_DAMAGED) {
			w.damaged++;
			continue;
		}
		for (k = 0; k < nids; k++)
			want |= ev.has_id && ev.id == ids[k];
		if (!want || ev.ts < from || ev.ts > to)
			continue;
		ck_assert_int_eq(tb_session_text(s, &ev, TB_TEXT_PRINT | TB_TEXT_LINE, line,
						 sizeof(line), NULL), TB_OK);
		for (i = 0; line[i]; i++)
			w.h = (w.h ^ (uint8_t)line[i]) * 1099511628211ull;
		w.n++;
	}
	ck_assert_int_eq(st, TB_END);
	ck_assert_int_eq(tb_session_cpu_stats_get(s, 0, 0, &w.cpu0), TB_OK);
	return w;
}

/* tb_session_keep_ids: only the ids kept come out, described as in a
 * whole walk (the same report lines), every event still counted; damage
 * and the window still apply; parts keep the set.  tb_session_keep_cpus
 * the same by CPU. */
START_TEST(session_keep_ids)
{
	sample smp;
	tb_session *s, *p;
	tb_status st;
	tb_error err;
	const tb_format *sw, *wk;
	uint32_t ids[2];
	uint64_t keep[1024], mid;
	kept_walk all, want, got;
	size_t page;
	if (!load_sample("../shared/samples/sched4k.v7.dat", &smp))
		return;
	s = open_dat(&smp, TB_SESSION_SKIP_DAMAGED, &st);
	ck_assert_int_eq(st, TB_OK);
	sw = tb_session_find_format(s, "sched", "sched_switch");
	wk = tb_session_find_format(s, "sched", "sched_wakeup");
	ck_assert_ptr_nonnull(sw);
	ck_assert_ptr_nonnull(wk);
	ids[0] = sw->id;
	ids[1] = wk->id;
	ck_assert_uint_lt(ids[0], 64 * 1024);
	ck_assert_uint_lt(ids[1], 64 * 1024);
	all = walk_kept(s, NULL, 0, 0, UINT64_MAX);
	ck_assert_uint_eq(all.n, 63844);
	ck_assert_int_eq(tb_session_rewind(s, &err), TB_OK);
	want = walk_kept(s, ids, 2, 0, UINT64_MAX);
	ck_assert_uint_gt(want.n, 0);
	ck_assert_uint_lt(want.n, all.n);
	/* kept: the same lines, the same stats */
	memset(keep, 0, sizeof(keep));
	keep[ids[0] / 64] |= 1ull << (ids[0] % 64);
	keep[ids[1] / 64] |= 1ull << (ids[1] % 64);
	ck_assert_int_eq(tb_session_rewind(s, &err), TB_OK);
	tb_session_keep_ids(s, keep, 1024);
	got = walk_kept(s, NULL, 0, 0, UINT64_MAX);
	ck_assert_uint_eq(got.n, want.n);
	ck_assert_uint_eq(got.h, want.h);
	ck_assert_uint_eq(got.cpu0.events, all.cpu0.events);
	ck_assert_uint_eq(got.cpu0.first_ts, all.cpu0.first_ts);
	ck_assert_uint_eq(got.cpu0.last_ts, all.cpu0.last_ts);
	/* with a window: both apply */
	mid = all.cpu0.first_ts + (all.cpu0.last_ts - all.cpu0.first_ts) / 2;
	ck_assert_int_eq(tb_session_rewind(s, &err), TB_OK);
	tb_session_keep_ids(s, NULL, 0);
	want = walk_kept(s, ids, 2, mid, UINT64_MAX);
	ck_assert_uint_gt(want.n, 0);
	ck_assert_int_eq(tb_session_rewind(s, &err), TB_OK);
	ck_assert_int_eq(tb_session_set_window(s, mid, UINT64_MAX), TB_OK);
	tb_session_keep_ids(s, keep, 1024);
	got = walk_kept(s, NULL, 0, 0, UINT64_MAX);
	ck_assert_uint_eq(got.n, want.n);
	ck_assert_uint_eq(got.h, want.h);
	ck_assert_uint_eq(got.cpu0.events, all.cpu0.events);
	/* a part keeps the set (and the window) */
	ck_assert_int_eq(tb_session_prepare(s, &err), TB_OK);
	ck_assert_int_eq(tb_session_part_open(&p, s, &heap, NULL, NULL, &err), TB_OK);
	got = walk_kept(p, NULL, 0, 0, UINT64_MAX);
	ck_assert_uint_eq(got.n, want.n);
	ck_assert_uint_eq(got.h, want.h);
	tb_session_close(p);
	ck_assert_int_eq(tb_session_set_window(s, 0, UINT64_MAX), TB_OK);
	/* ids from 64 * words up are not kept; NULL or 0 words: all again */
	{
		/* words up to the higher id's: only a lower id's word is read */
		uint32_t lo = ids[0] < ids[1] ? ids[0] : ids[1], hi = ids[0] ^ ids[1] ^ lo;
		ck_assert_int_eq(tb_session_rewind(s, &err), TB_OK);
		want = walk_kept(s, &lo, 1, 0, UINT64_MAX);
		ck_assert_int_eq(tb_session_rewind(s, &err), TB_OK);
		tb_session_keep_ids(s, keep, hi / 64);
		got = walk_kept(s, NULL, 0, 0, UINT64_MAX);
		ck_assert_uint_eq(got.n, lo / 64 < hi / 64 ? want.n : 0);
		ck_assert_uint_eq(got.cpu0.events, all.cpu0.events);
	}
	ck_assert_int_eq(tb_session_rewind(s, &err), TB_OK);
	tb_session_keep_ids(s, keep, 0);
	ck_assert_uint_eq(walk_kept(s, NULL, 0, 0, UINT64_MAX).n, all.n);
	ck_assert_int_eq(tb_session_rewind(s, &err), TB_OK);
	tb_session_keep_ids(s, NULL, 1024);
	ck_assert_uint_eq(walk_kept(s, NULL, 0, 0, UINT64_MAX).n, all.n);
	tb_session_keep_ids(NULL, keep, 1024); /* no effect, no crash */
	{
		/* tb_session_keep_cpus: CPU 1's events only, CPU 0 still read */
		uint64_t cpus[1] = { 2 }, n1 = 0, k = 0;
		tb_session_event ev;
		tb_session_cpu_stats cs;
		ck_assert_int_eq(tb_session_rewind(s, &err), TB_OK);
		while ((st = tb_session_next(s, &ev, &err)) == TB_OK)
			n1 += ev.cpu == 1;
		ck_assert_uint_gt(n1, 0);
		ck_assert_uint_lt(n1, all.n);
		ck_assert_int_eq(tb_session_rewind(s, &err), TB_OK);
		tb_session_keep_cpus(s, cpus, 1);
		while ((st = tb_session_next(s, &ev, &err)) == TB_OK) {
			ck_assert_uint_eq(ev.cpu, 1);
			ck_assert_ptr_nonnull(ev.format);
			k++;
		}
		ck_assert_int_eq(st, TB_END);
		ck_assert_uint_eq(k, n1);
		ck_assert_int_eq(tb_session_cpu_stats_get(s, 0, 0, &cs), TB_OK);
		ck_assert_uint_eq(cs.events, all.cpu0.events);
		/* with the ids: both */
		ck_assert_int_eq(tb_session_rewind(s, &err), TB_OK);
		tb_session_keep_ids(s, keep, 1024);
		k = 0;
		while ((st = tb_session_next(s, &ev, &err)) == TB_OK) {
			ck_assert(ev.cpu == 1 && (ev.id == ids[0] || ev.id == ids[1]));
			k++;
		}
		ck_assert_uint_gt(k, 0);
		ck_assert_uint_lt(k, n1);
		tb_session_keep_ids(s, NULL, 0);
		tb_session_keep_cpus(s, cpus, 0);
		ck_assert_int_eq(tb_session_rewind(s, &err), TB_OK);
		ck_assert_uint_eq(walk_kept(s, NULL, 0, 0, UINT64_MAX).n, all.n);
		tb_session_keep_cpus(NULL, cpus, 1);
	}
	tb_session_close(s);
	/* a damaged page still comes out, in its place */
	s = open_dat(&smp, 0, &st);
	ck_assert_int_eq(st, TB_OK);
	page = (size_t)tb_session_dat(s)->buffers[0].cpus[0].offset + 2 * 4096;
	tb_session_close(s);
	memset(smp.data + page + 8, 0xff, 4);
	s = open_dat(&smp, TB_SESSION_SKIP_DAMAGED, &st);
	ck_assert_int_eq(st, TB_OK);
	want = walk_kept(s, ids, 2, 0, UINT64_MAX);
	ck_assert_uint_eq(want.damaged, 1);
	ck_assert_int_eq(tb_session_rewind(s, &err), TB_OK);
	tb_session_keep_ids(s, keep, 1024);
	got = walk_kept(s, NULL, 0, 0, UINT64_MAX);
	ck_assert_uint_eq(got.damaged, 1);
	ck_assert_uint_eq(got.n, want.n);
	ck_assert_uint_eq(got.h, want.h);
	{
		/* CPU 0's damaged page even with only CPU 1 kept */
		uint64_t cpus[1] = { 2 };
		ck_assert_int_eq(tb_session_rewind(s, &err), TB_OK);
		tb_session_keep_cpus(s, cpus, 1);
		ck_assert_uint_eq(walk_kept(s, NULL, 0, 0, UINT64_MAX).damaged, 1);
	}
	tb_session_close(s);
	free(smp.data);
}
END_TEST

/* A trace.dat cut short: every event of a page that lies wholly before
 * the cut comes out, in order on its CPU, and the loss is listed. */
typedef struct ev_key {
	uint64_t ts, page_off, h;
	uint32_t cpu;
} ev_key;

static size_t collect(tb_session *s, ev_key *out, size_t cap)
{
	tb_session_event ev;
	tb_error err;
	tb_status st;
	size_t n = 0;
	while ((st = tb_session_next(s, &ev, &err)) == TB_OK) {
		uint64_t h = 1469598103934665603ull;
		uint32_t i;
		if (ev.kind != TB_SEV_EVENT)
			continue;
		for (i = 0; i < ev.len; i++)
			h = (h ^ ev.data[i]) * 1099511628211ull;
		ck_assert_uint_lt(n, cap);
		out[n].ts = ev.ts;
		out[n].page_off = ev.page_offset;
		out[n].cpu = ev.cpu;
		out[n].h = h;
		n++;
	}
	ck_assert_int_eq(st, TB_END);
	return n;
}

START_TEST(session_salvages_a_cut_capture)
{
	static const char *names[] = { "../shared/samples/sched4k.v6.dat",
				       "../shared/samples/sched4k.v7.dat" };
	size_t f;
	for (f = 0; f < 2; f++) {
		sample smp;
		tb_session *s;
		tb_status st;
		ev_key *full, *part;
		size_t nfull, k, i;
		uint64_t data_start = UINT64_MAX, data_end = 0;
		const tb_dat *d;
		if (!load_sample(names[f], &smp))
			continue;
		full = malloc(70000 * sizeof(*full));
		part = malloc(70000 * sizeof(*part));
		ck_assert(full && part);
		s = open_dat(&smp, TB_SESSION_SKIP_DAMAGED, &st);
		ck_assert_int_eq(st, TB_OK);
		d = tb_session_dat(s);
		for (i = 0; i < d->buffers[0].ncpus; i++) {
			const tb_dat_cpu *c = &d->buffers[0].cpus[i];
			if (c->offset < data_start)
				data_start = c->offset;
			if (c->offset + c->size > data_end)
				data_end = c->offset + c->size;
		}
		nfull = collect(s, full, 70000);
		ck_assert_uint_eq(nfull, 63844);
		tb_session_close(s);
		for (k = 1; k <= 7; k++) {
			/* cuts spread over the data, inside a page */
			size_t cut = (size_t)(data_start + (data_end - data_start) * k / 8 + 1000);
			sample c = { smp.data, cut };
			size_t npart, want = 0, j[2] = { 0, 0 }, w;
			s = open_dat(&c, TB_SESSION_SKIP_DAMAGED, &st);
			ck_assert_int_eq(st, TB_OK);
			ck_assert_uint_gt(tb_session_ndamage(s), 0);
			npart = collect(s, part, 70000);
			for (i = 0; i < nfull; i++)
				want += full[i].page_off + 4096 <= cut;
			ck_assert_uint_eq(npart, want);
			/* each CPU's events: the full file's, in order */
			for (i = 0; i < npart; i++) {
				uint32_t cpu = part[i].cpu;
				ck_assert_uint_lt(cpu, 2);
				for (w = j[cpu]; w < nfull && full[w].cpu != cpu; w++)
					;
				ck_assert_uint_lt(w, nfull);
				ck_assert_uint_eq(part[i].ts, full[w].ts);
				ck_assert_uint_eq(part[i].h, full[w].h);
				j[cpu] = w + 1;
			}
			tb_session_close(s);
		}
		free(full);
		free(part);
		free(smp.data);
	}
}
END_TEST

/* Rendering into a small buffer: a prefix of the whole text, the same
 * `needed`, nothing past cap. */
START_TEST(session_text_truncation_keeps_needed)
{
	sample smp;
	tb_session *s;
	tb_session_event ev;
	tb_error err;
	tb_status st;
	char full[512], small[600];
	tb_render_result r, r2;
	size_t cap;
	if (!load_sample("../shared/samples/sched4k.v7.dat", &smp))
		return;
	s = open_dat(&smp, 0, &st);
	ck_assert_int_eq(tb_session_next(s, &ev, &err), TB_OK);
	ck_assert_int_eq(tb_session_text(s, &ev, TB_TEXT_JSON, full, sizeof(full), &r), TB_OK);
	for (cap = 0; cap <= r.needed + 1; cap++) {
		memset(small, '#', sizeof(small));
		st = tb_session_text(s, &ev, TB_TEXT_JSON, small, cap, &r2);
		ck_assert_uint_eq(r2.needed, r.needed);
		ck_assert_int_eq(st, cap > r.needed ? TB_OK : TB_ERR_NO_SPACE);
		ck_assert_uint_eq(small[cap], '#');
		if (cap) {
			ck_assert_uint_eq(r2.len, cap - 1 < r.needed ? cap - 1 : r.needed);
			ck_assert(!memcmp(small, full, r2.len));
			ck_assert_uint_eq(small[r2.len], 0);
		}
	}
	tb_session_close(s);
	free(smp.data);
}
END_TEST

/* Spec-built pages: CPU 0 events at 1000, 1020, 1040; CPU 1 at 1010, 1030. */
static uint8_t pages[2][4096];

static void put_event(tbt_pw *w, uint32_t delta)
{
	uint8_t payload[8] = { 0 };
	(void)tbt_pw_data(w, delta, payload, sizeof(payload), 0);
}

static size_t crafted_file(uint8_t *out, size_t cap, unsigned version, const char *instance)
{
	tbt_pw w;
	dw_spec spec;
	memset(pages, 0, sizeof(pages));
	tbt_pw_init(&w, pages[0], 4096, 0, 8, 1000);
	put_event(&w, 0);
	put_event(&w, 20);
	put_event(&w, 20);
	tbt_pw_finish(&w, 0, 0, 0);
	tbt_pw_init(&w, pages[1], 4096, 0, 8, 1010);
	put_event(&w, 0);
	put_event(&w, 20);
	tbt_pw_finish(&w, 0, 0, 0);
	dw_default(&spec, version);
	spec.instance = instance;
	spec.cpu_data[0] = pages[0];
	spec.cpu_size[0] = 4096;
	spec.cpu_data[1] = pages[1];
	spec.cpu_size[1] = 4096;
	return dw_write(&spec, out, cap, NULL);
}

/* A page size the container takes (32 bytes to 1 MiB) but no sub-buffer
 * can have (under 4096), with no header_page to say otherwise: a value
 * of the file, TB_ERR_VALUE (it was TB_ERR_ARG, which the CLI rightly
 * reads as its own mistake: exit 2 for a damaged upload; found by
 * fuzz/cli_fuzzer.c). */
START_TEST(session_small_page_size_is_the_files_fault)
{
	static uint8_t file[1 << 16];
	dw_spec spec;
	sample smp;
	tb_session_source src;
	tb_session *s = NULL;
	tb_error err;
	dw_default(&spec, 7);
	spec.page_size = 2048;
	spec.header_page = "";
	spec.ncpus = 0;
	smp.len = dw_write(&spec, file, sizeof(file), NULL);
	ck_assert_uint_gt(smp.len, 0);
	memset(&src, 0, sizeof(src));
	src.dat = file;
	src.dat_len = smp.len;
	ck_assert_int_eq(tb_session_open(&s, &src, NULL, &heap, &err), TB_ERR_VALUE);
	ck_assert_str_eq(err.what, "no header_page and a page size no sub-buffer can have");
	ck_assert_ptr_null(s);
}
END_TEST

/* Two buffers (the top one and an instance) merged by time. */
START_TEST(session_merges_instances)
{
	static uint8_t file[1 << 20];
	size_t len;
	sample smp;
	tb_session *s;
	tb_session_event ev;
	tb_error err;
	tb_status st;
	uint64_t last = 0, per[2] = { 0, 0 };
	char line[512];
	len = crafted_file(file, sizeof(file), 7, "inst");
	ck_assert_uint_gt(len, 0);
	smp.data = file;
	smp.len = len;
	s = open_dat(&smp, 0, &st);
	ck_assert_int_eq(st, TB_OK);
	ck_assert_uint_eq(tb_session_get_info(s)->nbuffers, 2);
	ck_assert(tb_session_buffer(s, 1)->name.len == 4);
	while ((st = tb_session_next(s, &ev, &err)) == TB_OK) {
		ck_assert_uint_ge(ev.ts, last);
		last = ev.ts;
		ck_assert_uint_lt(ev.buffer, 2);
		per[ev.buffer]++;
		ck_assert_int_eq(tb_session_text(s, &ev, TB_TEXT_PRINT | TB_TEXT_LINE, line,
						 sizeof(line), NULL), TB_OK);
		/* trace-cmd starts every line with the instance column */
		ck_assert(ev.buffer ? !strncmp(line, "inst: ", 6) : !strncmp(line, "      ", 6));
	}
	ck_assert_int_eq(st, TB_END);
	ck_assert_uint_eq(per[0], 5);
	ck_assert_uint_eq(per[1], 5); /* the writer puts the same data in both */
	tb_session_close(s);
}
END_TEST

START_TEST(session_arguments)
{
	tb_session_source src;
	tb_session *s = (tb_session *)1;
	tb_error err;
	tb_mem none = { NULL, NULL, NULL };
	memset(&src, 0, sizeof(src));
	ck_assert_int_eq(tb_session_open(NULL, &src, NULL, &heap, &err), TB_ERR_ARG);
	ck_assert_int_eq(tb_session_open(&s, NULL, NULL, &heap, &err), TB_ERR_ARG);
	ck_assert_int_eq(tb_session_open(&s, &src, NULL, &none, &err), TB_ERR_ARG);
	src.nraw = 1;
	ck_assert_int_eq(tb_session_open(&s, &src, NULL, &heap, &err), TB_ERR_ARG);
	ck_assert_ptr_null(s);
	/* an empty raw source opens and has no events */
	src.nraw = 0;
	ck_assert_int_eq(tb_session_open(&s, &src, NULL, &heap, &err), TB_OK);
	{
		tb_session_event ev;
		ck_assert_int_eq(tb_session_next(s, &ev, &err), TB_END);
	}
	tb_session_close(s);
	tb_session_close(NULL);
	ck_assert_int_eq(tb_session_next(NULL, NULL, &err), TB_ERR_ARG);
	/* a file that is not a trace.dat: the container's error, nothing leaked */
	{
		static const uint8_t junk[64] = { 0x17, 0x08, 0x44 };
		src.dat = junk;
		src.dat_len = sizeof(junk);
		ck_assert(tb_is_malformed(tb_session_open(&s, &src, NULL, &heap, &err)));
		ck_assert_uint_eq(live_blocks, 0);
	}
}
END_TEST

/* A spec-built raw dump whose one event has every kind of non-scalar field:
 * a fixed array of longs, a signed short array, opaque bytes (a 3-byte
 * struct) and a __data_loc int array. */
static const char arr_format[] =
	"name: arrs\nID: 7\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:unsigned long args[3];\toffset:8;\tsize:24;\tsigned:0;\n"
	"\tfield:short deltas[2];\toffset:32;\tsize:4;\tsigned:1;\n"
	"\tfield:struct three blob;\toffset:36;\tsize:3;\tsigned:0;\n"
	"\tfield:__data_loc int[] vals;\toffset:40;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"a=%lu d=%d\", REC->args[0], REC->deltas[0]\n";

static uint8_t arr_page[4096];
static tb_session_format_text arr_ft;
static tb_session_raw_cpu arr_raw;

/* The one event, with these common_flags and preempt count (little-endian
 * bytes, as the page), typed by the format text ftext. */
static tb_session *open_dump(const char *ftext, uint8_t flags, uint8_t preempt)
{
	tb_session_source src;
	tb_session *s = NULL;
	tb_error err;
	tbt_pw w;
	uint8_t p[52];
	memset(p, 0, sizeof(p));
	p[0] = 7;
	p[2] = flags;
	p[3] = preempt;
	p[4] = 42;                            /* common_pid */
	p[8] = 1;                             /* args: 1, 2, 2^64-1 */
	p[16] = 2;
	memset(p + 24, 0xff, 8);
	p[32] = 0xfd;                         /* deltas: -3, 4 */
	p[33] = 0xff;
	p[34] = 4;
	p[36] = 9;                            /* blob: 9 8 7 */
	p[37] = 8;
	p[38] = 7;
	p[40] = 44;                           /* vals: at 44, 8 bytes: -1, 5 */
	p[42] = 8;
	memset(p + 44, 0xff, 4);
	p[48] = 5;
	tbt_pw_init(&w, arr_page, sizeof(arr_page), 0, 8, 1000);
	(void)tbt_pw_data(&w, 0, p, sizeof(p), 0);
	tbt_pw_finish(&w, 0, 0, 0);
	arr_ft.system.ptr = "test";
	arr_ft.system.len = 4;
	arr_ft.text.ptr = ftext;
	arr_ft.text.len = strlen(ftext);
	arr_raw.cpu = 3;
	arr_raw.data = arr_page;
	arr_raw.len = sizeof(arr_page);
	memset(&src, 0, sizeof(src));
	src.raw = &arr_raw;
	src.nraw = 1;
	src.formats = &arr_ft;
	src.nformats = 1;
	ck_assert_int_eq(tb_session_open(&s, &src, NULL, &heap, &err), TB_OK);
	return s;
}

static tb_session *open_arr_dump(uint8_t flags, uint8_t preempt)
{
	return open_dump(arr_format, flags, preempt);
}

typedef struct lat_case {
	uint8_t flags, preempt;
	const char *column;
} lat_case;

START_TEST(session_array_fields_and_latency_columns)
{
	/* common_flags (irqs-off 0x01, no-irq-support 0x02, need-resched 0x04,
	 * hardirq 0x08, softirq 0x10, preempt-resched 0x20, NMI 0x40) and the
	 * preempt count (low nibble: preempt depth, high: migrate-disable) as
	 * the kernel's latency format prints them */
	static const lat_case lat[] = {
		{ 0x00, 0x00, "....." }, { 0x01, 0x01, "d..1." }, { 0x02, 0x00, "X...." },
		{ 0x04, 0x00, ".n..." }, { 0x20, 0x00, ".p..." }, { 0x24, 0x00, ".N..." },
		{ 0x08, 0x00, "..h.." }, { 0x18, 0x00, "..H.." }, { 0x10, 0x02, "..s2." },
		{ 0x40, 0x00, "..z.." }, { 0x48, 0x00, "..Z.." }, { 0x0d, 0x21, "dnh12" },
		{ 0x00, 0xfa, "...af" },
	};
	char text[512], want[64];
	tb_session_event ev;
	tb_error err;
	tb_span sys, ftext;
	uint32_t id = 0;
	size_t i;
	for (i = 0; i < sizeof(lat) / sizeof(lat[0]); i++) {
		tb_session *s = open_arr_dump(lat[i].flags, lat[i].preempt);
		ck_assert_int_eq(tb_session_next(s, &ev, &err), TB_OK);
		ck_assert_int_eq(tb_session_text(s, &ev, TB_TEXT_PRINT | TB_TEXT_LINE |
						 TB_TEXT_LATENCY, text, sizeof(text), NULL), TB_OK);
		/* comm (8 wide)-pid (5, left) cpu (3) then the column */
		snprintf(want, sizeof(want), "   <...>-42      3%s ", lat[i].column);
		ck_assert_msg(!strncmp(text, want, strlen(want)), "flags %#x pc %#x: %s",
			      lat[i].flags, lat[i].preempt, text);
		ck_assert(strstr(text, " arrs: ") && strstr(text, "a=1 d=-3\n"));
		/* -R -l: the flags byte in hex instead, no depths */
		ck_assert_int_eq(tb_session_text(s, &ev, TB_TEXT_FIELDS | TB_TEXT_LINE |
						 TB_TEXT_LATENCY, text, sizeof(text), NULL), TB_OK);
		snprintf(want, sizeof(want), "   <...>-42      3-0x%x ", lat[i].flags);
		ck_assert_msg(!strncmp(text, want, strlen(want)), "-R flags %#x pc %#x: %s",
			      lat[i].flags, lat[i].preempt, text);
		tb_session_close(s);
	}
	{
		tb_session *s = open_arr_dump(0, 0);
		ck_assert_int_eq(tb_session_next(s, &ev, &err), TB_OK);
		ck_assert_int_eq(tb_session_text(s, &ev, TB_TEXT_JSON, text, sizeof(text), NULL),
				 TB_OK);
		ck_assert_msg(strstr(text, "\"args\":[1,2,18446744073709551615],\"deltas\":[-3,4],"
					   "\"blob\":[9,8,7],\"vals\":[-1,5]}") != NULL, "%s", text);
		/* the formats by name, by id and by index */
		ck_assert_ptr_eq(tb_session_find_format(s, "test", "arrs"), ev.format);
		ck_assert_ptr_eq(tb_session_find_format(s, NULL, "arrs"), ev.format);
		ck_assert_ptr_null(tb_session_find_format(s, "sched", "arrs"));
		ck_assert_ptr_null(tb_session_find_format(s, NULL, "nosuch"));
		ck_assert_ptr_null(tb_session_find_format(NULL, NULL, "arrs"));
		ck_assert_ptr_eq(tb_session_format(s, 7), ev.format);
		ck_assert_ptr_null(tb_session_format(s, 8));
		ck_assert_int_eq(tb_session_format_at(s, 0, &sys, &ftext, &id), 1);
		ck_assert(sys.len == 4 && !memcmp(sys.ptr, "test", 4));
		ck_assert_uint_eq(ftext.len, sizeof(arr_format) - 1);
		ck_assert_uint_eq(id, 7);
		ck_assert_int_eq(tb_session_format_at(s, 1, &sys, &ftext, &id), 0);
		ck_assert_int_eq(tb_session_next(s, &ev, &err), TB_END);
		tb_session_close(s);
	}
	ck_assert_uint_eq(live_blocks, 0);
}
END_TEST

/* An allocator that refuses every request from the k-th on. */
typedef struct failing_mem {
	size_t calls, fail_from, refused, live;
} failing_mem;

static void *failing_alloc(void *ctx, size_t n)
{
	failing_mem *m = ctx;
	void *p;
	if (m->calls++ >= m->fail_from) {
		m->refused++;
		return NULL;
	}
	p = malloc(n);
	m->live += p != NULL;
	return p;
}

static void failing_free(void *ctx, void *p, size_t n)
{
	failing_mem *m = ctx;
	(void)n;
	if (p)
		m->live--;
	free(p);
}

/* Open, then walk up to `limit` events rendering each as a line and as
 * JSON: a hash of all that came out, or 0 when the open failed. */
static uint64_t walk_with(const tb_session_source *src, failing_mem *m, size_t limit,
			  tb_status *open_st)
{
	tb_mem mem = { failing_alloc, failing_free, m };
	tb_session *s = NULL;
	tb_session_event ev;
	tb_error err;
	tb_status st;
	uint64_t h = 1469598103934665603ull;
	size_t n = 0;
	char text[4096];
	*open_st = tb_session_open(&s, src, NULL, &mem, &err);
	if (*open_st != TB_OK) {
		ck_assert_ptr_null(s);
		return 0;
	}
	while (n++ < limit && (st = tb_session_next(s, &ev, &err)) != TB_END) {
		static const unsigned how[] = { TB_TEXT_PRINT | TB_TEXT_LINE, TB_TEXT_JSON,
						TB_TEXT_FIELDS | TB_TEXT_LINE };
		size_t i, j;
		if (st != TB_OK)
			continue;
		for (i = 0; i < 3; i++) {
			st = tb_session_text(s, &ev, how[i], text, sizeof(text), NULL);
			ck_assert_msg(st == TB_OK || st == TB_ERR_NO_SPACE, "text: %d", st);
			if (st != TB_OK)
				continue;
			for (j = 0; text[j]; j++)
				h = (h ^ (uint8_t)text[j]) * 1099511628211ull;
		}
	}
	tb_session_close(s);
	return h;
}

/* Every allocation the session makes may fail: the open fails with
 * NO_SPACE, or a text says NO_SPACE; nothing leaks, nothing crashes; and
 * once every request is granted the output is the unlimited run's. */
static void every_allocation_failure(const tb_session_source *src, size_t limit)
{
	failing_mem m;
	tb_status st;
	uint64_t whole, h;
	size_t k;
	memset(&m, 0, sizeof(m));
	m.fail_from = (size_t)-1;
	whole = walk_with(src, &m, limit, &st);
	ck_assert_int_eq(st, TB_OK);
	ck_assert_uint_eq(m.live, 0);
	ck_assert_uint_gt(m.calls, 3);
	for (k = 0;; k++) {
		memset(&m, 0, sizeof(m));
		m.fail_from = k;
		h = walk_with(src, &m, limit, &st);
		ck_assert_uint_eq(m.live, 0);
		if (st != TB_OK)
			ck_assert_msg(st == TB_ERR_NO_SPACE, "fail from %zu: open %d", k, st);
		if (!m.refused) {
			ck_assert_int_eq(st, TB_OK);
			ck_assert_uint_eq(h, whole);
			break;
		}
	}
	ck_assert_uint_gt(k, 3);
}

START_TEST(session_every_allocation_can_fail)
{
	tb_session_source src;
	sample smp;
	memset(&src, 0, sizeof(src));
	/* raw dumps with a format */
	{
		tb_session *s = open_arr_dump(0x0d, 0x21);
		tb_session_close(s);
		src.raw = &arr_raw;
		src.nraw = 1;
		src.formats = &arr_ft;
		src.nformats = 1;
		every_allocation_failure(&src, (size_t)-1);
	}
	/* the v7 sample: tables, formats, buffers, the first 3000 events */
	if (!load_sample("../shared/samples/sched4k.v7.dat", &smp))
		return;
	memset(&src, 0, sizeof(src));
	src.dat = smp.data;
	src.dat_len = smp.len;
	every_allocation_failure(&src, 3000);
	free(smp.data);
}
END_TEST

/* Every prefix of a small spec-built file: open fails cleanly or walks. */
START_TEST(session_every_prefix_of_a_small_file)
{
	static uint8_t file[1 << 16];
	size_t len, cut, whole = 0;
	len = crafted_file(file, sizeof(file), 6, NULL);
	ck_assert_uint_gt(len, 0);
	for (cut = 0; cut <= len; cut++) {
		sample smp = { file, cut };
		tb_session *s;
		tb_status st;
		uint64_t n;
		s = open_dat(&smp, TB_SESSION_SKIP_DAMAGED, &st);
		if (st == TB_OK) {
			(void)walk_hash(s, &n);
			ck_assert_uint_le(n, 5);
			whole += n == 5;
			tb_session_close(s);
		} else {
			ck_assert(tb_is_error(st));
			ck_assert_ptr_null(s);
		}
	}
	ck_assert_uint_ge(whole, 1); /* the whole file at least */
	ck_assert_uint_eq(live_blocks, 0);
}
END_TEST

/* The examples: a user's whole program in 30 lines or fewer, built against
 * the installed headers only; report_lines prints what `tracebound report`
 * prints, print_events every event with its fields. */
START_TEST(session_examples_build_and_run)
{
	const char *dir = getenv("TB_EXAMPLES");
	static const char *short_ones[] = { "examples/print_events.c", "examples/report_lines.c" };
	char cmd[8192];
	tb_test_run r, want;
	size_t i;
	char smp[4096];
	for (i = 0; i < 2; i++) {
		size_t len;
		uint8_t *src = tb_test_read_file(tb_test_path(short_ones[i]), &len);
		char *text;
		ck_assert_ptr_nonnull(src);
		/* the file's bytes are not a string: count its lines in a copy
		 * that ends in NUL (ASan saw the count read past the end) */
		text = calloc(len + 1, 1);
		ck_assert_ptr_nonnull(text);
		memcpy(text, src, len);
		ck_assert_uint_le(tb_test_count_lines(text), 30);
		free(text);
		free(src);
	}
	snprintf(smp, sizeof(smp), "%s", tb_test_path("../shared/samples/sched4k.v7.dat"));
	if (!dir || !tb_test_exists(smp)) {
		printf("session: examples not built (TB_EXAMPLES) or sample missing, run skipped\n");
		return;
	}
	snprintf(cmd, sizeof(cmd), "'%s/report_lines' '%s' | sha256sum", dir, smp);
	tb_test_sh(cmd, &r);
	snprintf(cmd, sizeof(cmd), "'%s' report '%s' | sha256sum", getenv("TB_CLI"), smp);
	tb_test_sh(cmd, &want);
	ck_assert_int_eq(r.status, 0);
	ck_assert_uint_ge(r.out_len, 64);
	ck_assert(!memcmp(r.out, want.out, 64));
	/* and not the hash of nothing */
	ck_assert(memcmp(r.out, "e3b0c44298fc1c149afbf4c8996fb924", 32) != 0);
	tb_test_run_free(&r);
	tb_test_run_free(&want);
	snprintf(cmd, sizeof(cmd), "'%s/print_events' '%s' | head -1", dir, smp);
	tb_test_sh(cmd, &r);
	ck_assert_str_eq(r.out, "192833676481 1 memfd:sealed-91 sys_enter_newfstat {\"cpu\":1,"
				"\"ts\":192833676481,\"pid\":1573,\"comm\":\"memfd:sealed-91\","
				"\"system\":\"syscalls\",\"name\":\"sys_enter_newfstat\",\"id\":852,"
				"\"subbuf\":0,\"offset\":16,\"size\":32,\"fields\":{\"common_type\":852,"
				"\"common_flags\":0,\"common_preempt_count\":0,\"common_pid\":1573,"
				"\"__syscall_nr\":5,\"fd\":5,\"statbuf\":140735502597632}}\n");
	tb_test_run_free(&r);
	/* an upload cut at 8 MB: report prints what exists, says what was lost, exits 1 */
	snprintf(cmd, sizeof(cmd), "head -c 8000000 '%s' > /tmp/tb-session-cut.dat && "
		 "'%s' report /tmp/tb-session-cut.dat 2>&1 >/dev/null; echo rc=$?; "
		 "'%s' report /tmp/tb-session-cut.dat 2>/dev/null | wc -l", smp, getenv("TB_CLI"),
		 getenv("TB_CLI"));
	tb_test_sh(cmd, &r);
	ck_assert(strstr(r.out, ": CPU 0: data cut short at file offset ") != NULL);
	ck_assert(strstr(r.out, "pages lost (") != NULL);
	ck_assert(strstr(r.out, "rc=1\n") != NULL);
	ck_assert(strstr(r.out, "\n15239\n") != NULL); /* cpus=2, a drop report, 15,237 events */
	tb_test_run_free(&r);
	snprintf(cmd, sizeof(cmd), "'%s/raw_dumps' 2>&1; echo rc=$?", dir);
	tb_test_sh(cmd, &r);
	ck_assert(strstr(r.out, "usage: raw_dumps") && strstr(r.out, "rc=2"));
	tb_test_run_free(&r);
}
END_TEST

START_TEST(json_strings_are_always_valid)
{
	char buf[128];
	tb_text t;
	tb_text_init(&t, buf, sizeof(buf));
	tb_json_str(&t, "a\"b\\c\n\t\x01\x7f", 9);
	tb_text_finish(&t);
	ck_assert_str_eq(buf, "\"a\\\"b\\\\c\\n\\t\\u0001\x7f\"");
	tb_text_reset(&t);
	/* valid UTF-8 kept; a lone continuation byte, an overlong form and a
	 * surrogate become \u00XX per byte */
	tb_json_str(&t, "\xc3\xa9|\x80|\xc0\xaf|\xed\xa0\x80", 11);
	tb_text_finish(&t);
	ck_assert_str_eq(buf, "\"\xc3\xa9|\\u0080|\\u00c0\\u00af|\\u00ed\\u00a0\\u0080\"");
	/* too small: counted, nothing past cap */
	tb_text_init(&t, buf, 4);
	tb_json_str(&t, "abcdef", 6);
	tb_text_finish(&t);
	ck_assert_uint_eq(t.need, 8);
	ck_assert_str_eq(buf, "\"ab");
	tb_text_init(&t, buf, 0);
	buf[0] = 'X';
	tb_text_u64(&t, 12345, 8, TB_TEXT_ZERO);
	tb_text_finish(&t);
	ck_assert_uint_eq(t.need, 8);
	ck_assert_uint_eq(buf[0], 'X');
	tb_text_init(&t, buf, sizeof(buf));
	tb_text_i64(&t, -42, 6, TB_TEXT_LEFT);
	tb_text_putc(&t, '|');
	tb_text_i64(&t, -42, 6, TB_TEXT_ZERO);
	tb_text_putc(&t, '|');
	tb_text_u64(&t, UINT64_MAX, 0, 0);
	tb_text_putc(&t, '|');
	tb_text_hex(&t, 0xbeef, 6, TB_TEXT_ZERO | TB_TEXT_UPPER);
	tb_text_finish(&t);
	ck_assert_str_eq(buf, "-42   |-00042|18446744073709551615|00BEEF");
}
END_TEST

/*
 * tb_session_text_to appends ev's text (how) after what t holds: the
 * bytes tb_session_text gives, at every room a prefix of them, the whole
 * length counted (t.need), TB_ERR_NO_SPACE until it fits, nothing written
 * past the room.
 */
static void text_to_every_room(tb_session *s, const tb_session_event *ev, unsigned how)
{
	static char full[8192], buf[8192];
	tb_render_result r;
	size_t cap;
	ck_assert_int_eq(tb_session_text(s, ev, how, full, sizeof(full), &r), TB_OK);
	ck_assert_uint_lt(r.needed + 8, sizeof(buf));
	for (cap = 0; cap <= r.needed + 1; cap++) {
		size_t stored = cap < r.needed ? cap : r.needed;
		tb_text t;
		memset(buf, '#', r.needed + 8);
		tb_text_init(&t, buf, 2 + cap + 1); /* "ab", cap bytes, the NUL's */
		tb_text_put(&t, "ab", 2);
		ck_assert_int_eq(tb_session_text_to(s, ev, how, &t),
				 cap >= r.needed ? TB_OK : TB_ERR_NO_SPACE);
		ck_assert_uint_eq(t.need, 2 + r.needed);
		ck_assert_uint_eq(t.len, 2 + stored);
		ck_assert(!memcmp(buf, "ab", 2) && !memcmp(buf + 2, full, t.len - 2));
		ck_assert_uint_eq(buf[2 + cap + 1], '#');
	}
}

START_TEST(session_text_to_appends_the_same_text)
{
	static const unsigned hows[] = {
		TB_TEXT_PRINT | TB_TEXT_LINE, TB_TEXT_FIELDS | TB_TEXT_LINE, TB_TEXT_JSON,
		TB_TEXT_PRINT, TB_TEXT_FIELDS,
	};
	sample smp;
	tb_session *s;
	tb_session_event ev, first;
	tb_error err;
	tb_status st;
	static uint8_t first_data[4096];
	char at_first[1024], later[1024];
	size_t i, k, other = 0;
	if (!load_sample("../shared/samples/sched4k.v7.dat", &smp))
		return;
	s = open_dat(&smp, 0, &st);
	ck_assert_int_eq(st, TB_OK);
	for (i = 0; i < 24; i++) {
		ck_assert_int_eq(tb_session_next(s, &ev, &err), TB_OK);
		for (k = 0; k < sizeof(hows) / sizeof(hows[0]); k++)
			text_to_every_room(s, &ev, hows[k]);
		if (!i) {
			/* kept (its record copied) for a text after the walk moved on */
			first = ev;
			ck_assert_uint_le(ev.len, sizeof(first_data));
			memcpy(first_data, ev.data, ev.len);
			first.data = first_data;
			ck_assert_int_eq(tb_session_text(s, &ev, TB_TEXT_PRINT, at_first,
							 sizeof(at_first), NULL), TB_OK);
		} else if (ev.format != first.format) {
			/* the walk's entry is another format's: the program looked up */
			other++;
			ck_assert_int_eq(tb_session_text(s, &first, TB_TEXT_PRINT, later,
							 sizeof(later), NULL), TB_OK);
			ck_assert_str_eq(later, at_first);
		}
	}
	ck_assert_uint_gt(other, 0);
	tb_session_close(s);
	free(smp.data);
}
END_TEST

/* perf.data's lines (perf script's columns, then the payload) the same. */
START_TEST(session_text_to_perf_lines)
{
	tb_session_source src;
	tb_session *s;
	tb_session_event ev;
	tb_error err;
	size_t n, i;
	uint8_t *b = tb_test_load("tests/data/perf", "sched.data", &n);
	memset(&src, 0, sizeof(src));
	src.perf = b;
	src.perf_len = n;
	ck_assert_int_eq(tb_session_open(&s, &src, NULL, &heap, &err), TB_OK);
	for (i = 0; i < 16; i++) {
		ck_assert_int_eq(tb_session_next(s, &ev, &err), TB_OK);
		text_to_every_room(s, &ev, TB_TEXT_PRINT | TB_TEXT_LINE);
		text_to_every_room(s, &ev, TB_TEXT_JSON);
	}
	tb_session_close(s);
	free(b);
	ck_assert_uint_eq(live_blocks, 0);
}
END_TEST

START_TEST(session_text_to_refuses_what_it_cannot_render)
{
	tb_session *s = open_arr_dump(0, 0);
	tb_session_event ev;
	tb_render_result r;
	tb_error err;
	char buf[64];
	tb_text t;
	ck_assert_int_eq(tb_session_next(s, &ev, &err), TB_OK);
	tb_text_init(&t, buf, sizeof(buf));
	ck_assert_int_eq(tb_session_text_to(NULL, &ev, TB_TEXT_PRINT, &t), TB_ERR_ARG);
	ck_assert_int_eq(tb_session_text_to(s, NULL, TB_TEXT_PRINT, &t), TB_ERR_ARG);
	ck_assert_int_eq(tb_session_text_to(s, &ev, TB_TEXT_PRINT, NULL), TB_ERR_ARG);
	ck_assert_int_eq(tb_session_text_to(s, &ev, 3, &t), TB_ERR_ARG);
	ck_assert_uint_eq(t.need, 0);
	/* no such kind: nothing rendered, needed 0 */
	ck_assert_int_eq(tb_session_text(s, &ev, 3 | TB_TEXT_LINE, buf, sizeof(buf), &r),
			 TB_ERR_ARG);
	ck_assert_uint_eq(r.needed, 0);
	ck_assert_int_eq(tb_session_text_to(s, &ev, TB_TEXT_PRINT, &t), TB_OK);
	tb_text_finish(&t);
	ck_assert_str_eq(buf, "a=1 d=-3");
	tb_session_close(s);
	ck_assert_uint_eq(live_blocks, 0);
}
END_TEST

/* A record typed by a format the caller looked up, rendered before the
 * session walked anything (no walked entry: the program found by id). */
START_TEST(session_text_of_a_record_before_any_walk)
{
	tb_session *walked = open_arr_dump(0, 0), *s = open_arr_dump(0, 0);
	tb_session_event ev;
	tb_error err;
	char buf[64];
	ck_assert_int_eq(tb_session_next(walked, &ev, &err), TB_OK);
	ev.format = tb_session_format(s, 7);
	ck_assert_ptr_nonnull(ev.format);
	ck_assert_int_eq(tb_session_text(s, &ev, TB_TEXT_PRINT, buf, sizeof(buf), NULL), TB_OK);
	ck_assert_str_eq(buf, "a=1 d=-3");
	tb_session_close(s);
	tb_session_close(walked);
	ck_assert_uint_eq(live_blocks, 0);
}
END_TEST

/* An empty print fmt: the payload adds nothing, the line still ends
 * (trace-cmd's newline after "name:" and its pad). */
START_TEST(session_empty_payload)
{
	static char ftext[sizeof(arr_format) + 16];
	const char *cut = strstr(arr_format, "print fmt:");
	tb_session *s;
	tb_session_event ev;
	tb_render_result r;
	tb_error err;
	char buf[128];
	tb_text t;
	snprintf(ftext, sizeof(ftext), "%.*sprint fmt: \"\"\n", (int)(cut - arr_format), arr_format);
	s = open_dump(ftext, 0, 0);
	ck_assert_int_eq(tb_session_next(s, &ev, &err), TB_OK);
	ck_assert_int_eq(tb_session_text(s, &ev, TB_TEXT_PRINT, buf, sizeof(buf), &r), TB_OK);
	ck_assert_uint_eq(r.needed, 0);
	ck_assert_int_eq(tb_session_text(s, &ev, TB_TEXT_PRINT | TB_TEXT_LINE, buf, sizeof(buf),
					 &r), TB_OK);
	ck_assert_str_eq(buf, "           <...>-42    [003]     0.000001: arrs:                 \n");
	/* appended after a line of its own: the same line */
	tb_text_init(&t, buf, sizeof(buf));
	tb_text_put(&t, "x\n", 2);
	ck_assert_int_eq(tb_session_text_to(s, &ev, TB_TEXT_PRINT | TB_TEXT_LINE, &t), TB_OK);
	tb_text_finish(&t);
	ck_assert_str_eq(buf, "x\n           <...>-42    [003]     0.000001: arrs:                 \n");
	tb_session_close(s);
	ck_assert_uint_eq(live_blocks, 0);
}
END_TEST


/* JSON's number of a field past the record's end: null, as tb_field_int
 * refuses it; the others read (a 3-byte int is bytes, as for any size no
 * load has). */
START_TEST(session_json_fields_past_the_record)
{
	static const char ftext[] =
		"name: late\nID: 7\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
		"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
		"\tfield:short delta;\toffset:32;\tsize:2;\tsigned:1;\n"
		"\tfield:int odd;\toffset:36;\tsize:3;\tsigned:0;\n"
		"\tfield:long late;\toffset:60;\tsize:8;\tsigned:0;\n\n"
		"print fmt: \"x\"\n";
	tb_session *s = open_dump(ftext, 0, 0);
	tb_session_event ev;
	tb_error err;
	char text[512];
	ck_assert_int_eq(tb_session_next(s, &ev, &err), TB_OK);
	ck_assert_int_eq(tb_session_text(s, &ev, TB_TEXT_JSON, text, sizeof(text), NULL), TB_OK);
	ck_assert_msg(strstr(text, "\"fields\":{\"common_type\":7,\"common_flags\":0,"
				   "\"common_preempt_count\":0,\"common_pid\":42,\"delta\":-3,"
				   "\"odd\":[9,8,7],\"late\":null}") != NULL, "%s", text);
	tb_session_close(s);
	ck_assert_uint_eq(live_blocks, 0);
}
END_TEST

Suite *tb_suite_session(void)
{
	Suite *s = suite_create("session");
	TCase *tc = tcase_create("session");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, session_first_events_of_the_v7_sample);
	tcase_add_test(tc, session_same_events_in_every_container_version);
	tcase_add_test(tc, session_in_a_fixed_arena);
	tcase_add_test(tc, session_raw_dumps_with_formats);
	tcase_add_test(tc, session_damaged_page_is_reported_in_place);
	tcase_add_test(tc, session_salvages_a_cut_capture);
	tcase_add_test(tc, session_text_truncation_keeps_needed);
	tcase_add_test(tc, session_merges_instances);
	tcase_add_test(tc, session_small_page_size_is_the_files_fault);
	tcase_add_test(tc, session_arguments);
	tcase_add_test(tc, session_every_prefix_of_a_small_file);
	tcase_add_test(tc, session_array_fields_and_latency_columns);
	tcase_add_test(tc, session_every_allocation_can_fail);
	tcase_add_test(tc, json_strings_are_always_valid);
	tcase_add_test(tc, session_examples_build_and_run);
	tcase_add_test(tc, session_keep_ids);
	tcase_add_test(tc, session_text_to_appends_the_same_text);
	tcase_add_test(tc, session_text_to_perf_lines);
	tcase_add_test(tc, session_text_to_refuses_what_it_cannot_render);
	tcase_add_test(tc, session_text_of_a_record_before_any_walk);
	tcase_add_test(tc, session_empty_payload);
	tcase_add_test(tc, session_json_fields_past_the_record);
	suite_add_tcase(s, tc);
	return s;
}
