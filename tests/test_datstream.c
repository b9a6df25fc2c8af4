/* The merged event stream of a trace.dat buffer: order, drop reports
 * (both modes), bad pages skipped with their offset, compressed data. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datwriter.h"
#include "pagewriter.h"
#include "testutil.h"
#include "tracebound/tracedat.h"
#include "zstd_dl.h"

Suite *tb_suite_datstream(void);

typedef struct opened {
	tb_dat d;
	tb_dat_storage st;
	tb_error err;
	tb_kbuf_layout layout;
	tb_dat_cursor cur[8];
	uint8_t *chunks;
	tb_dat_stream s;
} opened;

static void *grow(void *p, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap && p)
		return p;
	free(p);
	*cap = need;
	return calloc(need ? need : 1, elem);
}

static tb_status open_dat(opened *o, const uint8_t *p, size_t n, const tb_dat_decompressor *dc)
{
	tb_status s;
	int i;
	memset(o, 0, sizeof(*o));
	for (i = 0; i < 5; i++) {
		s = tb_dat_open(&o->d, p, n, &o->st, dc, &o->err);
		if (s != TB_ERR_NO_SPACE)
			break;
		o->st.events = grow(o->st.events, &o->st.events_cap, o->d.need.events, sizeof(tb_dat_event_text));
		o->st.buffers = grow(o->st.buffers, &o->st.buffers_cap, o->d.need.buffers, sizeof(tb_dat_buffer));
		o->st.cpus = grow(o->st.cpus, &o->st.cpus_cap, o->d.need.cpus, sizeof(tb_dat_cpu));
		o->st.cpustats = grow(o->st.cpustats, &o->st.cpustats_cap, o->d.need.cpustats, sizeof(tb_dat_text));
		o->st.scratch = grow(o->st.scratch, &o->st.scratch_cap, o->d.need.scratch, 1);
	}
	if (s)
		return s;
	return tb_kbuf_layout_from_header_page(o->d.header_page.ptr, o->d.header_page.len,
					       o->d.big_endian, &o->layout, &o->err);
}

static tb_status start(opened *o, unsigned flags)
{
	const tb_dat_buffer *b = tb_dat_find_buffer(&o->d, "");
	size_t per_cpu;
	tb_status s;
	ck_assert_ptr_nonnull(b);
	ck_assert_uint_le(b->ncpus, 8);
	s = tb_dat_chunk_max(&o->d, b, &per_cpu, &o->err);
	if (s)
		return s;
	free(o->chunks);
	o->chunks = per_cpu ? malloc(per_cpu * b->ncpus) : NULL;
	return tb_dat_stream_init(&o->s, &o->d, b, &o->layout, o->cur, 8, o->chunks, per_cpu,
				  flags, &o->err);
}

static void close_dat(opened *o)
{
	free(o->st.events);
	free(o->st.buffers);
	free(o->st.cpus);
	free(o->st.cpustats);
	free(o->st.scratch);
	free(o->chunks);
}

/* Two streams' events are the same record (page_off aside: a compressed
 * page's is its chunk's). */
static void same_record(const tb_dat_event *a, const tb_dat_event *b)
{
	ck_assert_uint_eq(a->ts, b->ts);
	ck_assert_uint_eq(a->cpu, b->cpu);
	ck_assert_uint_eq(a->len, b->len);
	ck_assert_int_eq(a->missed, b->missed);
	ck_assert_uint_eq(a->page_index, b->page_index);
	ck_assert(!memcmp(a->data, b->data, a->len));
}

/* ---- the real sample ---- */

START_TEST(sample_stream)
{
	const char *path = tb_test_path("../shared/samples/sched4k.v7.dat");
	size_t n;
	uint8_t *p;
	opened *o;
	tb_dat_event ev;
	tb_status s;
	uint64_t count = 0, per_cpu[2] = { 0, 0 }, last = 0, drops = 0;
	if (!tb_test_exists(path)) {
		printf("datstream: sample missing, test skipped\n");
		return;
	}
	p = tb_test_read_file(path, &n);
	o = calloc(1, sizeof(*o));
	ck_assert_int_eq(open_dat(o, p, n, NULL), TB_OK);
	ck_assert_int_eq(start(o, 0), TB_OK);
	while ((s = tb_dat_stream_next(&o->s, &ev, &o->err)) == TB_OK) {
		ck_assert_uint_ge(ev.ts, last);
		last = ev.ts;
		ck_assert_uint_lt(ev.cpu, 2);
		per_cpu[ev.cpu]++;
		count++;
		if (ev.missed) {
			ck_assert_int_eq(ev.missed, 2746);
			ck_assert_uint_eq(ev.cpu, 0);
			drops++;
		}
		ck_assert(ev.data >= p && ev.data + ev.len <= p + n);
	}
	ck_assert_int_eq(s, TB_END);
	/* the cpustat "read events" of each CPU */
	ck_assert_uint_eq(per_cpu[0], 39537);
	ck_assert_uint_eq(per_cpu[1], 24307);
	ck_assert_uint_eq(count, 63844);
	ck_assert_uint_eq(o->s.events, 63844);
	ck_assert_uint_eq(o->s.dropped_known, 2746);
	ck_assert_uint_eq(drops, 1);
	ck_assert_uint_eq(o->s.pages, 572);
	ck_assert_int_eq(tb_dat_stream_next(&o->s, &ev, &o->err), TB_END);
	close_dat(o);
	free(o);
	free(p);
}
END_TEST

/* The zstd file yields the same events, in the same order. */
START_TEST(sample_zstd_stream_equals_plain)
{
	const char *pz = "../shared/samples/sched4k.v7zstd.dat", *pp = "../shared/samples/sched4k.v7.dat";
	size_t nz, np;
	uint8_t *z, *p;
	opened *oz, *op;
	tb_dat_decompressor dc = { tb_test_zstd, NULL };
	tb_dat_event a, b;
	tb_status sa, sb;
	uint64_t k = 0;
	if (!tb_test_exists(tb_test_path(pz)) || !tb_test_exists(tb_test_path(pp)) ||
	    !tb_test_have_zstd()) {
		printf("datstream: zstd sample or libzstd missing, test skipped\n");
		return;
	}
	z = tb_test_read_file(tb_test_path(pz), &nz);
	p = tb_test_read_file(tb_test_path(pp), &np);
	oz = calloc(1, sizeof(*oz));
	op = calloc(1, sizeof(*op));
	ck_assert_int_eq(open_dat(oz, z, nz, &dc), TB_OK);
	ck_assert_int_eq(open_dat(op, p, np, NULL), TB_OK);
	ck_assert_int_eq(start(oz, TB_DAT_STREAM_TC_DROPS), TB_OK);
	ck_assert_int_eq(start(op, TB_DAT_STREAM_TC_DROPS), TB_OK);
	for (;;) {
		sa = tb_dat_stream_next(&oz->s, &a, &oz->err);
		sb = tb_dat_stream_next(&op->s, &b, &op->err);
		ck_assert_int_eq(sa, sb);
		if (sa != TB_OK)
			break;
		same_record(&a, &b);
		k++;
	}
	ck_assert_int_eq(sa, TB_END);
	ck_assert_uint_eq(k, 63844);
	close_dat(oz);
	close_dat(op);
	free(oz);
	free(op);
	free(z);
	free(p);
}
END_TEST

/* ---- crafted pages ---- */

static uint8_t pages[2][3][4096];
static uint8_t filebuf[1 << 16];

static size_t event(tbt_pw *w, uint32_t delta, uint16_t id)
{
	uint8_t payload[8] = { 0 };
	payload[0] = (uint8_t)id;
	payload[1] = (uint8_t)(id >> 8);
	return tbt_pw_data(w, delta, payload, sizeof(payload), 0);
}

/* CPU 0: [p0: ts 1000, events +0 +10] [p1: missed 42 stored, EXTEND then
 * event; ts 5000] [p2: commit too large].  CPU 1: [p0: ts 1010: events at
 * 1010 (tie with CPU 0's second) and 1020] [p1: missed 7 stored, event at
 * index 0, ts 6000]. */
static size_t crafted(dw_layout *lay, int compress)
{
	tbt_pw w;
	dw_spec s;
	size_t n;
	memset(pages, 0, sizeof(pages));
	tbt_pw_init(&w, pages[0][0], 4096, 0, 8, 1000);
	event(&w, 0, 1);
	event(&w, 10, 2);
	tbt_pw_finish(&w, 0, 0, 0);
	tbt_pw_init(&w, pages[0][1], 4096, 0, 8, 5000);
	tbt_pw_extend(&w, 0);
	event(&w, 0, 3);
	tbt_pw_finish(&w, 1, 1, 42);
	tbt_pw_init(&w, pages[0][2], 4096, 0, 8, 9000);
	event(&w, 0, 4);
	tbt_pw_commit(&w, 5000); /* more than a 4 KiB page holds */
	tbt_pw_init(&w, pages[1][0], 4096, 0, 8, 1010);
	event(&w, 0, 5);
	event(&w, 10, 6);
	tbt_pw_finish(&w, 0, 0, 0);
	tbt_pw_init(&w, pages[1][1], 4096, 0, 8, 6000);
	event(&w, 0, 7);
	tbt_pw_finish(&w, 1, 1, 7);
	dw_default(&s, 7);
	s.compress = compress;
	s.cpu_data[0] = pages[0][0];
	s.cpu_size[0] = 3 * 4096;
	s.cpu_data[1] = pages[1][0];
	s.cpu_size[1] = 2 * 4096;
	n = dw_write(&s, filebuf, sizeof(filebuf), lay);
	ck_assert_uint_gt(n, 0);
	return n;
}

static const tb_dat_decompressor copy_dc = { dw_copy_decompress, NULL };

static void crafted_case(int compress)
{
	dw_layout lay;
	size_t n = crafted(&lay, compress);
	opened *o = calloc(1, sizeof(*o));
	tb_dat_event ev;
	unsigned mode;
	for (mode = 0; mode < 2; mode++) {
		/* the tie at 1010: the lower CPU first */
		static const uint16_t want_id[] = { 1, 2, 5, 6, 3, 7 };
		static const uint64_t want_ts[] = { 1000, 1010, 1010, 1020, 5000, 6000 };
		size_t i = 0;
		tb_status s;
		int errors = 0;
		ck_assert_int_eq(open_dat(o, filebuf, n, &copy_dc), TB_OK);
		ck_assert_int_eq(start(o, mode ? TB_DAT_STREAM_TC_DROPS : 0), TB_OK);
		while ((s = tb_dat_stream_next(&o->s, &ev, &o->err)) != TB_END) {
			if (s != TB_OK) {
				/* the bad page of CPU 0, reported once, then skipped */
				errors++;
				ck_assert(tb_is_error(s));
				ck_assert_uint_eq(o->s.error_cpu, 0);
				ck_assert_uint_eq(o->s.error_page, 2);
				if (!compress)
					ck_assert_uint_eq(o->err.offset, lay.cpu_off[0] + 2 * 4096 + 8);
				continue;
			}
			ck_assert_uint_lt(i, 6);
			ck_assert_uint_eq(ev.data[0], want_id[i]);
			ck_assert_uint_eq(ev.ts, want_ts[i]);
			if (want_id[i] == 3)
				/* behind a leading extend: trace-cmd loses the count */
				ck_assert_int_eq(ev.missed, mode ? 0 : 42);
			else if (want_id[i] == 7)
				ck_assert_int_eq(ev.missed, 7);
			else
				ck_assert_int_eq(ev.missed, 0);
			i++;
		}
		ck_assert_uint_eq(i, 6);
		ck_assert_int_eq(errors, 1);
		ck_assert_uint_eq(o->s.dropped_known, 49);
		close_dat(o);
	}
	free(o);
}

START_TEST(crafted_order_drops_and_bad_page)
{
	crafted_case(0);
}
END_TEST

START_TEST(crafted_compressed)
{
	crafted_case(1);
}
END_TEST

START_TEST(stream_arguments)
{
	dw_layout lay;
	size_t n = crafted(&lay, 0);
	opened *o = calloc(1, sizeof(*o));
	tb_dat_event ev;
	tb_kbuf_layout big;
	ck_assert_int_eq(open_dat(o, filebuf, n, NULL), TB_OK);
	ck_assert_int_eq(tb_dat_stream_init(&o->s, &o->d, &o->d.buffers[0], &o->layout, o->cur,
					    1, NULL, 0, 0, &o->err),
			 TB_ERR_ARG);
	ck_assert_int_eq(tb_kbuf_layout_init(&big, 0, 8, 8192, 0), TB_OK);
	ck_assert_int_eq(tb_dat_stream_init(&o->s, &o->d, &o->d.buffers[0], &big, o->cur, 8,
					    NULL, 0, 0, &o->err),
			 TB_ERR_VALUE);
	ck_assert_int_eq(tb_dat_stream_next(NULL, &ev, &o->err), TB_ERR_ARG);
	close_dat(o);
	free(o);
}
END_TEST

static int mem_read(void *ctx, uint64_t offset, void *buf, size_t len)
{
	const opened *o = ctx;
	if (offset > o->d.len || len > o->d.len - offset)
		return -1;
	memcpy(buf, o->d.file + offset, len);
	return 0;
}

/*
 * With a read function (tracedat.h, tb_dat_read_fn) an uncompressed
 * buffer needs a read buffer per CPU: 32 KiB in whole pages, 16 KiB past
 * 32 CPUs, never less than a page; without one, none.  The stream through
 * it is the stream from memory, with its records in the read buffers.
 */
START_TEST(read_buffers)
{
	dw_layout lay;
	size_t n = crafted(&lay, 0), per_cpu = 1, count = 0, i;
	opened *o = calloc(1, sizeof(*o)), *ref = calloc(1, sizeof(*ref));
	tb_dat_buffer b;
	tb_dat_event ev, rev;
	tb_status st;
	static const struct {
		uint32_t page, ncpus;
		size_t want;
	} sizes[] = { { 4096, 2, 32768 }, { 4096, 32, 32768 }, { 4096, 33, 16384 },
		      { 12288, 2, 24576 }, { 1u << 20, 2, 1u << 20 }, { 1u << 20, 64, 1u << 20 },
		      { 8192, 33, 16384 }, { 65536, 33, 65536 } };
	ck_assert_int_eq(open_dat(o, filebuf, n, NULL), TB_OK);
	ck_assert_int_eq(tb_dat_chunk_max(&o->d, &o->d.buffers[0], &per_cpu, &o->err), TB_OK);
	ck_assert_uint_eq(per_cpu, 0);
	o->d.read = mem_read;
	o->d.read_ctx = o;
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		b = o->d.buffers[0];
		b.page_size = sizes[i].page;
		b.ncpus = sizes[i].ncpus;
		ck_assert_int_eq(tb_dat_chunk_max(&o->d, &b, &per_cpu, &o->err), TB_OK);
		ck_assert_uint_eq(per_cpu, sizes[i].want);
	}
	/* a read buffer is needed, and of a page at least */
	ck_assert_int_eq(tb_dat_stream_init(&o->s, &o->d, &o->d.buffers[0], &o->layout, o->cur,
					    8, NULL, 0, 0, &o->err), TB_ERR_ARG);
	o->chunks = malloc(8 * 4096);
	ck_assert_int_eq(tb_dat_stream_init(&o->s, &o->d, &o->d.buffers[0], &o->layout, o->cur,
					    8, o->chunks, 4095, 0, &o->err), TB_ERR_ARG);
	free(o->chunks);
	o->chunks = NULL;
	ck_assert_int_eq(open_dat(ref, filebuf, n, NULL), TB_OK);
	ck_assert_int_eq(start(ref, 0), TB_OK);
	ck_assert_int_eq(start(o, 0), TB_OK);
	while ((st = tb_dat_stream_next(&ref->s, &rev, &ref->err)) != TB_END) {
		ck_assert_int_eq(tb_dat_stream_next(&o->s, &ev, &o->err), st);
		if (st != TB_OK) {
			ck_assert_uint_eq(o->err.offset, ref->err.offset);
			continue;
		}
		same_record(&ev, &rev);
		ck_assert_uint_eq(ev.page_off, rev.page_off);
		ck_assert_uint_eq(ev.offset, rev.offset);
		/* the record lies in a read buffer, not in the file */
		ck_assert(ev.data < filebuf || ev.data >= filebuf + n);
		count++;
	}
	ck_assert_int_eq(tb_dat_stream_next(&o->s, &ev, &o->err), TB_END);
	ck_assert_uint_eq(count, 6); /* the crafted file's events */
	close_dat(o);
	close_dat(ref);
	free(o);
	free(ref);
}
END_TEST

START_TEST(stream_init_refuses)
{
	dw_layout lay;
	size_t n = crafted(&lay, 1);
	opened *o = calloc(1, sizeof(*o));
	const tb_dat_buffer *b;
	tb_dat_event ev;
	static uint8_t mem[2 * 3 * 4096];
	ck_assert_int_eq(open_dat(o, filebuf, n, &copy_dc), TB_OK);
	b = &o->d.buffers[0];
	ck_assert_int_eq(tb_dat_stream_init(NULL, &o->d, b, &o->layout, o->cur, 8, mem, 3 * 4096,
					    0, &o->err), TB_ERR_ARG);
	ck_assert_int_eq(tb_dat_stream_init(&o->s, NULL, b, &o->layout, o->cur, 8, mem, 3 * 4096,
					    0, &o->err), TB_ERR_ARG);
	ck_assert_int_eq(tb_dat_stream_init(&o->s, &o->d, NULL, &o->layout, o->cur, 8, mem,
					    3 * 4096, 0, &o->err), TB_ERR_ARG);
	ck_assert_int_eq(tb_dat_stream_init(&o->s, &o->d, b, NULL, o->cur, 8, mem, 3 * 4096, 0,
					    &o->err), TB_ERR_ARG);
	ck_assert_int_eq(tb_dat_stream_init(&o->s, &o->d, b, &o->layout, NULL, 8, mem, 3 * 4096,
					    0, &o->err), TB_ERR_ARG);
	/* compressed CPU data needs chunk memory */
	ck_assert_int_eq(tb_dat_stream_init(&o->s, &o->d, b, &o->layout, o->cur, 8, NULL,
					    3 * 4096, 0, &o->err), TB_ERR_ARG);
	ck_assert_int_eq(tb_dat_stream_init(&o->s, &o->d, b, &o->layout, o->cur, 8, mem, 3 * 4096,
					    0, &o->err), TB_OK);
	ck_assert_int_eq(tb_dat_stream_next(&o->s, NULL, &o->err), TB_ERR_ARG);
	ck_assert_int_eq(tb_dat_stream_next(&o->s, &ev, &o->err), TB_OK);
	close_dat(o);
	free(o);
	o = calloc(1, sizeof(*o));
	/* a compressed buffer listing no CPUs needs no chunk memory */
	{
		static const char opt[8 + 6 + 6 + 4 + 4] = "";
		dw_spec sp;
		dw_layout l2;
		size_t n2;
		const tb_dat_buffer *e;
		static uint8_t big[1 << 16];
		dw_default(&sp, 7);
		sp.compress = 1;
		sp.opts[0].id = TB_DAT_OPT_BUFFER;
		sp.opts[0].payload = (const uint8_t *)opt;
		sp.opts[0].size = sizeof(opt);
		sp.nopts = 1;
		n2 = dw_write(&sp, big, sizeof(big), &l2);
		ck_assert_uint_gt(n2, 0);
		/* {section, "empty", "local", page size, 0 CPUs} */
		dw_store(big + l2.opt[0] + 6, l2.buffer_sect, 8, 0);
		memcpy(big + l2.opt[0] + 6 + 8, "empty\0local", 12);
		dw_store(big + l2.opt[0] + 6 + 20, 4096, 4, 0);
		ck_assert_int_eq(open_dat(o, big, n2, &copy_dc), TB_OK);
		e = tb_dat_find_buffer(&o->d, "empty");
		ck_assert_ptr_nonnull(e);
		ck_assert_int_eq(e->compressed, 1);
		ck_assert_uint_eq(e->ncpus, 0);
		ck_assert_int_eq(tb_dat_stream_init(&o->s, &o->d, e, &o->layout, NULL, 0,
						    NULL, 0, 0, &o->err), TB_OK);
		ck_assert_int_eq(tb_dat_stream_next(&o->s, &ev, &o->err), TB_END);
		close_dat(o);
	}
	/* a chunk count the CPU data cannot hold stops the start */
	dw_store(filebuf + lay.cpu_off[1], 100000, 4, 0);
	ck_assert_int_eq(open_dat(o, filebuf, n, &copy_dc), TB_OK);
	ck_assert_int_eq(tb_dat_stream_init(&o->s, &o->d, &o->d.buffers[0], &o->layout,
					    o->cur, 8, mem, 3 * 4096, 0, &o->err),
			 TB_ERR_LENGTH);
	ck_assert_uint_eq(o->err.offset, lay.cpu_off[1]);
	close_dat(o);
	free(o);
}
END_TEST

/* Drain a stream: events per CPU and every error (status, CPU, offset). */
typedef struct drained {
	unsigned events[2], errors[2];
	tb_status err_status[2][4];
	uint64_t err_off[2][4];
} drained;

static void drain(opened *o, drained *r)
{
	tb_dat_event ev;
	tb_status s;
	unsigned guard = 0;
	uint32_t c;
	memset(r, 0, sizeof(*r));
	while ((s = tb_dat_stream_next(&o->s, &ev, &o->err)) != TB_END) {
		ck_assert_uint_lt(++guard, 100);
		if (s == TB_OK) {
			r->events[ev.cpu]++;
			continue;
		}
		c = o->s.error_cpu;
		ck_assert_uint_lt(c, 2);
		ck_assert_uint_lt(r->errors[c], 4);
		r->err_status[c][r->errors[c]] = s;
		r->err_off[c][r->errors[c]] = o->err.offset;
		r->errors[c]++;
	}
}

/* Open the crafted compressed file (as patched) and drain its stream. */
static void drain_crafted(size_t n, drained *r)
{
	static uint8_t mem[2 * 3 * 4096];
	opened *o = calloc(1, sizeof(*o));
	ck_assert_int_eq(open_dat(o, filebuf, n, &copy_dc), TB_OK);
	ck_assert_int_eq(tb_dat_stream_init(&o->s, &o->d, &o->d.buffers[0], &o->layout,
					    o->cur, 8, mem, 3 * 4096, 0, &o->err),
			 TB_OK);
	drain(o, r);
	close_dat(o);
	free(o);
}

/* Compressed CPU data whose chunk framing breaks: the CPU stops with one
 * error at the broken header; the other CPU's events all come through. */
START_TEST(broken_chunk_framing_stops_the_cpu)
{
	dw_layout lay;
	size_t n = crafted(&lay, 1);
	drained r;
	/* CPU 0 says two chunks; the second header lies past its data */
	dw_store(filebuf + lay.cpu_off[0], 2, 4, 0);
	drain_crafted(n, &r);
	ck_assert_uint_eq(r.events[1], 3);
	ck_assert_uint_eq(r.events[0], 3); /* its one chunk still streams */
	/* the bad third page, then the missing second chunk */
	ck_assert_uint_eq(r.errors[0], 2);
	ck_assert_uint_eq(r.errors[1], 0);
	ck_assert_int_eq(r.err_status[0][1], TB_ERR_TRUNCATED);
	ck_assert_uint_eq(r.err_off[0][1], lay.cpu_off[0] + 4 + 8 + 3 * 4096);
}
END_TEST

/* A chunk of zero bytes holds an empty page: reported, then skipped. */
START_TEST(empty_chunk_is_a_bad_page)
{
	dw_layout lay;
	size_t n = crafted(&lay, 1);
	drained r;
	/* CPU 1: one chunk of 0 compressed / 0 uncompressed bytes */
	dw_store(filebuf + lay.cpu_off[1] + 4, 0, 4, 0);
	dw_store(filebuf + lay.cpu_off[1] + 8, 0, 4, 0);
	drain_crafted(n, &r);
	ck_assert_uint_eq(r.events[0], 3);
	ck_assert_uint_eq(r.events[1], 0);
	ck_assert_uint_eq(r.errors[0], 1); /* its bad third page */
	/* the empty page at its chunk, then the bytes left after the chunk */
	ck_assert_uint_eq(r.errors[1], 2);
	ck_assert_int_eq(r.err_status[1][0], TB_ERR_TRUNCATED);
	ck_assert_uint_eq(r.err_off[1][0], lay.cpu_off[1] + 4);
	ck_assert_int_eq(r.err_status[1][1], TB_ERR_LENGTH);
	ck_assert_uint_eq(r.err_off[1][1], lay.cpu_off[1] + 4 + 8);
}
END_TEST

/* Drop counts come from the input: three pages each claiming INT64_MAX
 * dropped events saturate the known total instead of wrapping. */
START_TEST(dropped_total_saturates)
{
	tbt_pw w;
	dw_spec sp;
	dw_layout lay;
	size_t n, i;
	opened *o = calloc(1, sizeof(*o));
	tb_dat_event ev;
	memset(pages, 0, sizeof(pages));
	for (i = 0; i < 3; i++) {
		tbt_pw_init(&w, pages[0][i], 4096, 0, 8, 1000 * (i + 1));
		event(&w, 0, (uint16_t)(10 + i));
		tbt_pw_finish(&w, 1, 1, (uint64_t)INT64_MAX);
	}
	dw_default(&sp, 7);
	sp.ncpus = 1;
	sp.cpu_data[0] = pages[0][0];
	sp.cpu_size[0] = 3 * 4096;
	n = dw_write(&sp, filebuf, sizeof(filebuf), &lay);
	ck_assert_uint_gt(n, 0);
	ck_assert_int_eq(open_dat(o, filebuf, n, NULL), TB_OK);
	ck_assert_int_eq(start(o, 0), TB_OK);
	for (i = 0; i < 3; i++) {
		ck_assert_int_eq(tb_dat_stream_next(&o->s, &ev, &o->err), TB_OK);
		ck_assert_uint_eq(ev.data[0], 10 + i);
		ck_assert_int_eq(ev.missed, INT64_MAX);
		ck_assert_uint_eq(o->s.dropped_known,
				  i < 2 ? (i + 1) * (uint64_t)INT64_MAX : UINT64_MAX);
	}
	ck_assert_int_eq(tb_dat_stream_next(&o->s, &ev, &o->err), TB_END);
	close_dat(o);
	free(o);
}
END_TEST

Suite *tb_suite_datstream(void)
{
	Suite *s = suite_create("datstream");
	TCase *t = tcase_create("stream");
	tcase_set_timeout(t, 120);
	tcase_add_test(t, sample_stream);
	tcase_add_test(t, sample_zstd_stream_equals_plain);
	tcase_add_test(t, crafted_order_drops_and_bad_page);
	tcase_add_test(t, crafted_compressed);
	tcase_add_test(t, stream_arguments);
	tcase_add_test(t, stream_init_refuses);
	tcase_add_test(t, read_buffers);
	tcase_add_test(t, broken_chunk_framing_stops_the_cpu);
	tcase_add_test(t, empty_chunk_is_a_bad_page);
	tcase_add_test(t, dropped_total_saturates);
	suite_add_tcase(s, t);
	return s;
}
