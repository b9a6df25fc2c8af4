/* trace.dat container: real samples, the test writer's files, every
 * malformed case of spec 3.5 / 4.3, truncation and the decompressor
 * contract. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datwriter.h"
#include "testutil.h"
#include "tracebound/tracedat.h"
#include "zstd_dl.h"

Suite *tb_suite_tracedat(void);

#define V6 "../shared/samples/sched4k.v6.dat"
#define V7 "../shared/samples/sched4k.v7.dat"
#define V7Z "../shared/samples/sched4k.v7zstd.dat"

/* Storage grown on demand, freed by dat_close. */
typedef struct opened {
	tb_dat d;
	tb_dat_storage st;
	tb_error err;
	int retries;
} opened;

static void dat_close(opened *o)
{
	free(o->st.events);
	free(o->st.buffers);
	free(o->st.cpus);
	free(o->st.cpustats);
	free(o->st.scratch);
	memset(o, 0, sizeof(*o));
}

static void *grow(void *p, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return p;
	free(p);
	*cap = need;
	return calloc(need ? need : 1, elem);
}

/* Open with the NO_SPACE protocol: grow to d.need and retry. */
static tb_status dat_open(opened *o, const uint8_t *p, size_t n,
			  const tb_dat_decompressor *dc)
{
	tb_status s;
	memset(o, 0, sizeof(*o));
	for (;;) {
		s = tb_dat_open(&o->d, p, n, &o->st, dc, &o->err);
		if (s != TB_ERR_NO_SPACE || o->retries > 4)
			return s;
		o->retries++;
		o->st.events = grow(o->st.events, &o->st.events_cap,
				    o->d.need.events, sizeof(tb_dat_event_text));
		o->st.buffers = grow(o->st.buffers, &o->st.buffers_cap,
				     o->d.need.buffers, sizeof(tb_dat_buffer));
		o->st.cpus = grow(o->st.cpus, &o->st.cpus_cap, o->d.need.cpus,
				  sizeof(tb_dat_cpu));
		o->st.cpustats = grow(o->st.cpustats, &o->st.cpustats_cap,
				      o->d.need.cpustats, sizeof(tb_dat_text));
		o->st.scratch = grow(o->st.scratch, &o->st.scratch_cap,
				     o->d.need.scratch, 1);
	}
}

static int text_is(const tb_dat_text *t, const char *s)
{
	return t->len == strlen(s) && memcmp(t->ptr, s, t->len) == 0;
}

static uint8_t *load_sample(const char *rel, size_t *n)
{
	const char *path = tb_test_path(rel);
	if (!tb_test_exists(path)) {
		printf("tracedat: %s missing, real-sample test skipped\n", rel);
		return NULL;
	}
	return tb_test_read_file(path, n);
}

/* ---- the real samples ---- */

static void check_sample_common(const tb_dat *d)
{
	const tb_dat_buffer *top = tb_dat_find_buffer(d, "");
	ck_assert_int_eq(d->big_endian, 0);
	ck_assert_uint_eq(d->long_size, 8);
	ck_assert_uint_eq(d->page_size, 4096);
	ck_assert_uint_eq(d->header_page.len, 205);
	ck_assert_uint_eq(d->header_event.len, 205);
	ck_assert_uint_eq(d->nftrace, 18);
	ck_assert_uint_eq(d->nsystems, 101);
	ck_assert_uint_eq(d->kallsyms.len, 5414586);
	ck_assert_uint_eq(d->printk.len, 4316);
	ck_assert_uint_eq(d->cmdlines.len, 839);
	ck_assert(text_is(&d->uname, "Linux vm 6.18.44-fc-v769 x86_64"));
	ck_assert(text_is(&d->tc_version, "3.1.6 not-a-git-repo"));
	ck_assert_uint_eq(d->ncpustats, 2);
	ck_assert(!memcmp(d->cpustats[1].ptr, "CPU: 1\n", 7));
	ck_assert_int_eq(d->has_trace_id, 1);
	ck_assert_uint_eq(d->trace_id, 0xD848CBCC0F220130ull);
	ck_assert_uint_eq(d->cpu_count, 2);
	ck_assert(!memcmp(d->trace_clock.ptr, "[local] global", 14));
	ck_assert(!memcmp(d->header_page.ptr, "\tfield: u64 timestamp;", 22));
	ck_assert(!memcmp(d->events[0].format.ptr, "name: wakeup\n", 13));
	ck_assert(text_is(&d->events[0].system, "ftrace"));
	ck_assert(!memcmp(d->kallsyms.ptr, "ffffffff81000000 T srso_alias", 29));
	ck_assert(!memcmp(d->cmdlines.ptr, "2847 bash\n", 10));
	ck_assert_ptr_nonnull(top);
	ck_assert_uint_eq(d->nbuffers, 1);
	ck_assert_uint_eq(top->ncpus, 2);
	ck_assert_uint_eq(top->cpus[0].cpu, 0);
	ck_assert_uint_eq(top->cpus[1].cpu, 1);
	ck_assert_uint_eq(top->page_size, 4096);
}

START_TEST(sample_v6)
{
	size_t n;
	uint8_t *p = load_sample(V6, &n);
	opened o;
	const tb_dat_buffer *top;
	if (!p)
		return;
	ck_assert_int_eq(dat_open(&o, p, n, NULL), TB_OK);
	ck_assert_uint_eq(o.d.version, 6);
	check_sample_common(&o.d);
	top = tb_dat_find_buffer(&o.d, "");
	ck_assert_uint_eq(top->cpus[0].offset, 7446528);
	ck_assert_uint_eq(top->cpus[0].size, 1449984);
	ck_assert_uint_eq(top->cpus[1].offset, 8896512);
	ck_assert_uint_eq(top->cpus[1].size, 892928);
	ck_assert(text_is(&o.d.v6_clock, "[local]"));
	ck_assert_int_eq(top->compressed, 0);
	/* the options walk sees what open saw */
	dat_close(&o);
	free(p);
}
END_TEST

START_TEST(sample_v7)
{
	size_t n;
	uint8_t *p = load_sample(V7, &n);
	opened o;
	const tb_dat_buffer *top;
	if (!p)
		return;
	ck_assert_int_eq(dat_open(&o, p, n, NULL), TB_OK);
	ck_assert_uint_eq(o.d.version, 7);
	check_sample_common(&o.d);
	ck_assert(text_is(&o.d.compression, "none"));
	ck_assert_uint_eq(o.d.first_options, 7444934);
	ck_assert_uint_eq(o.d.nsections, 10);
	ck_assert_uint_eq(o.d.noption_sections, 2);
	ck_assert_str_eq(tb_dat_section_name(&o.d, 66), "options");
	ck_assert_str_eq(tb_dat_section_name(&o.d, 74), "buffer flyrecord ");
	ck_assert_ptr_null(tb_dat_section_name(&o.d, 5000));
	top = tb_dat_find_buffer(&o.d, "");
	ck_assert(text_is(&top->clock, "local"));
	ck_assert_uint_eq(top->section_offset, 7445515);
	ck_assert_uint_eq(top->cpus[0].offset, 7446528);
	ck_assert_uint_eq(top->cpus[1].size, 892928);
	/* nothing needed decompressing */
	ck_assert_uint_eq(o.d.need.scratch, 0);
	ck_assert_uint_eq(o.retries, 1);
	dat_close(&o);
	free(p);
}
END_TEST

/* The zstd file decompresses to exactly the texts of the plain one, and
 * its per-CPU chunks to exactly the plain per-CPU bytes. */
START_TEST(sample_v7zstd_matches_v7)
{
	size_t n, n7, i, c;
	uint8_t *p = load_sample(V7Z, &n), *p7 = load_sample(V7, &n7);
	opened o, o7;
	tb_dat_decompressor dc = { tb_test_zstd, NULL };
	const tb_dat_buffer *top, *top7;
	uint8_t *page;
	size_t got;
	if (!p || !p7) {
		free(p);
		free(p7);
		return;
	}
	if (!tb_test_have_zstd()) {
		printf("tracedat: libzstd.so.1 not loadable, zstd test skipped\n");
		free(p);
		free(p7);
		return;
	}
	ck_assert_int_eq(dat_open(&o7, p7, n7, NULL), TB_OK);
	ck_assert_int_eq(dat_open(&o, p, n, &dc), TB_OK);
	check_sample_common(&o.d);
	ck_assert(text_is(&o.d.compression, "zstd"));
	ck_assert(text_is(&o.d.compression_version, "1.5.4"));
	ck_assert_uint_eq(o.d.nsections, 11);
	ck_assert_str_eq(tb_dat_section_name(&o.d, 66), "options");
	ck_assert(!memcmp(o.d.kallsyms.ptr, o7.d.kallsyms.ptr, o7.d.kallsyms.len));
	ck_assert(!memcmp(o.d.printk.ptr, o7.d.printk.ptr, o7.d.printk.len));
	ck_assert(!memcmp(o.d.cmdlines.ptr, o7.d.cmdlines.ptr, o7.d.cmdlines.len));
	ck_assert_uint_eq(o.d.nevents, o7.d.nevents);
	for (i = 0; i < o.d.nevents; i++) {
		ck_assert_uint_eq(o.d.events[i].format.len,
				  o7.d.events[i].format.len);
		ck_assert(!memcmp(o.d.events[i].format.ptr,
				  o7.d.events[i].format.ptr,
				  o7.d.events[i].format.len));
	}
	top = tb_dat_find_buffer(&o.d, "");
	top7 = tb_dat_find_buffer(&o7.d, "");
	ck_assert_int_eq(top->compressed, 1);
	ck_assert_uint_eq(top->cpus[0].offset, 1142784);
	ck_assert_uint_eq(top->cpus[0].size, 142690);
	page = malloc(1 << 20);
	for (c = 0; c < 2; c++) {
		tb_dat_chunk_iter it;
		tb_dat_chunk ch;
		tb_status s;
		uint64_t pos = top7->cpus[c].offset;
		size_t chunks = 0;
		ck_assert_int_eq(tb_dat_chunks_begin(&it, &o.d, top, &top->cpus[c],
						     &o.err), TB_OK);
		while ((s = tb_dat_chunk_next(&it, &ch, &o.err)) == TB_OK) {
			ck_assert_int_eq(tb_dat_chunk_inflate(&o.d, top, &ch, page,
							      1 << 20, &got, &o.err),
					 TB_OK);
			ck_assert_uint_eq(got, ch.usize);
			ck_assert(!memcmp(page, p7 + pos, ch.usize));
			pos += ch.usize;
			chunks++;
		}
		ck_assert_int_eq(s, TB_END);
		ck_assert_uint_eq(pos, top7->cpus[c].offset + top7->cpus[c].size);
		ck_assert_uint_eq(chunks, c == 0 ? 36 : 22);
	}
	free(page);
	dat_close(&o);
	dat_close(&o7);
	free(p);
	free(p7);
}
END_TEST

START_TEST(zstd_file_without_decompressor)
{
	size_t n;
	uint8_t *p = load_sample(V7Z, &n);
	opened o;
	if (!p)
		return;
	ck_assert_int_eq(dat_open(&o, p, n, NULL), TB_ERR_UNSUPPORTED);
	ck_assert_uint_eq(o.err.offset, 1410324); /* the strings, read first */
	dat_close(&o);
	free(p);
}
END_TEST

/* ---- writer files ---- */

static uint8_t wbuf[1 << 16];

static size_t build(unsigned version, int compress, const char *instance,
		    dw_layout *lay)
{
	dw_spec s;
	size_t n;
	dw_default(&s, version);
	s.compress = compress;
	s.instance = instance;
	n = dw_write(&s, wbuf, sizeof(wbuf), lay);
	ck_assert_uint_gt(n, 0);
	return n;
}

static const tb_dat_decompressor copy_dc = { dw_copy_decompress, NULL };

static void put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static void check_writer_file(const tb_dat *d, const dw_layout *lay)
{
	const tb_dat_buffer *top = tb_dat_find_buffer(d, "");
	ck_assert_uint_eq(d->nevents, 2);
	ck_assert_uint_eq(d->nftrace, 1);
	ck_assert(text_is(&d->events[1].system, "sched"));
	ck_assert(!memcmp(d->events[1].format.ptr, "name: sched_wakeup\n", 19));
	ck_assert(text_is(&d->uname, "Linux test"));
	ck_assert(text_is(&d->tc_version, "3.1.6"));
	ck_assert(text_is(&d->cmdlines, "1 init\n42 bash\n"));
	ck_assert_uint_eq(d->ncpustats, 2);
	ck_assert(text_is(&d->cpustats[1], "CPU: 1\nentries: 0\n"));
	ck_assert_ptr_nonnull(top);
	ck_assert_ptr_eq(top, &d->buffers[0]);
	ck_assert_uint_eq(top->ncpus, 2);
	ck_assert_uint_eq(top->cpus[1].offset, lay->cpu_off[1]);
}

START_TEST(writer_v6)
{
	dw_layout lay;
	size_t n = build(6, 0, NULL, &lay);
	opened o;
	ck_assert_int_eq(dat_open(&o, wbuf, n, NULL), TB_OK);
	check_writer_file(&o.d, &lay);
	ck_assert_uint_eq(o.d.buffers[0].cpus[0].size, 4096);
	ck_assert(text_is(&o.d.v6_clock, "[local]"));
	dat_close(&o);
}
END_TEST

START_TEST(writer_v7)
{
	dw_layout lay;
	size_t n = build(7, 0, NULL, &lay);
	opened o;
	ck_assert_int_eq(dat_open(&o, wbuf, n, NULL), TB_OK);
	check_writer_file(&o.d, &lay);
	ck_assert_uint_eq(o.d.nsections, 10);
	ck_assert_str_eq(tb_dat_section_name(&o.d, 0), "headers");
	dat_close(&o);
}
END_TEST

START_TEST(writer_v7_compressed)
{
	dw_layout lay;
	size_t n = build(7, 1, NULL, &lay);
	opened o;
	tb_dat_chunk_iter it;
	tb_dat_chunk ch;
	uint8_t page[4096];
	size_t got;
	ck_assert_int_eq(dat_open(&o, wbuf, n, &copy_dc), TB_OK);
	check_writer_file(&o.d, &lay);
	ck_assert_int_eq(o.d.buffers[0].compressed, 1);
	ck_assert_int_eq(tb_dat_chunks_begin(&it, &o.d, &o.d.buffers[0],
					     &o.d.buffers[0].cpus[1], &o.err),
			 TB_OK);
	ck_assert_int_eq(tb_dat_chunk_next(&it, &ch, &o.err), TB_OK);
	ck_assert_uint_eq(ch.usize, 4096);
	ck_assert_int_eq(tb_dat_chunk_inflate(&o.d, &o.d.buffers[0], &ch, page,
					      sizeof(page), &got, &o.err), TB_OK);
	ck_assert_uint_eq(got, 4096);
	ck_assert_uint_eq(page[0], 2); /* CPU 1's page timestamp */
	ck_assert_int_eq(tb_dat_chunk_inflate(&o.d, &o.d.buffers[0], &ch, page,
					      100, &got, &o.err), TB_ERR_NO_SPACE);
	ck_assert_uint_eq(got, 0);
	ck_assert_int_eq(tb_dat_chunk_next(&it, &ch, &o.err), TB_END);
	dat_close(&o);
}
END_TEST

START_TEST(writer_instances)
{
	unsigned v;
	for (v = 6; v <= 7; v++) {
		dw_layout lay;
		size_t n = build(v, 0, "inst1", &lay);
		opened o;
		const tb_dat_buffer *b;
		ck_assert_int_eq(dat_open(&o, wbuf, n, NULL), TB_OK);
		ck_assert_uint_eq(o.d.nbuffers, 2);
		ck_assert(text_is(&o.d.buffers[0].name, ""));
		b = tb_dat_find_buffer(&o.d, "inst1");
		ck_assert_ptr_nonnull(b);
		ck_assert_uint_eq(b->ncpus, 2);
		ck_assert_uint_eq(b->cpus[0].size, 4096);
		ck_assert_ptr_null(tb_dat_find_buffer(&o.d, "nope"));
		dat_close(&o);
	}
}
END_TEST

/* v6: a CPUCOUNT option says how many CPUs the flyrecord table lists, as
 * trace-cmd reads it (the header's count is overridden). */
START_TEST(v6_cpucount_option_sets_table_size)
{
	dw_layout lay;
	size_t n = build(6, 0, NULL, &lay);
	opened o;
	put_le32(wbuf + lay.cpucount_opt + 6, 1);
	ck_assert_int_eq(dat_open(&o, wbuf, n, NULL), TB_OK);
	ck_assert_uint_eq(o.d.cpu_count, 1);
	ck_assert_uint_eq(o.d.buffers[0].ncpus, 1);
	ck_assert_uint_eq(o.d.buffers[0].cpus[0].offset, lay.cpu_off[0]);
	dat_close(&o);
}
END_TEST

/* Big-endian files: every number of the container read in its order. */
START_TEST(writer_big_endian)
{
	unsigned v, z;
	for (v = 6; v <= 7; v++)
		for (z = 0; z <= (v == 7 ? 1u : 0u); z++) {
			dw_spec s;
			dw_layout lay;
			size_t n;
			opened o;
			dw_default(&s, v);
			s.big_endian = 1;
			s.compress = (int)z;
			s.instance = "be";
			n = dw_write(&s, wbuf, sizeof(wbuf), &lay);
			ck_assert_uint_gt(n, 0);
			ck_assert_int_eq(dat_open(&o, wbuf, n, &copy_dc), TB_OK);
			ck_assert_int_eq(o.d.big_endian, 1);
			check_writer_file(&o.d, &lay);
			ck_assert_uint_eq(o.d.trace_id, 0xD848CBCC0F220130ull);
			ck_assert_uint_eq(o.d.cpu_count, 2);
			ck_assert_uint_eq(o.d.nbuffers, 2);
			dat_close(&o);
		}
}
END_TEST

/* With no storage at all: NO_SPACE and the counts needed. */
START_TEST(no_space_protocol)
{
	dw_layout lay;
	size_t n = build(7, 1, "inst1", &lay);
	tb_dat d;
	tb_error e;
	tb_dat_storage st;
	opened o;
	memset(&st, 0, sizeof(st));
	ck_assert_int_eq(tb_dat_open(&d, wbuf, n, &st, &copy_dc, &e),
			 TB_ERR_NO_SPACE);
	ck_assert_uint_gt(d.need.scratch, 0);
	ck_assert_int_eq(tb_dat_open(&d, wbuf, n, NULL, &copy_dc, &e),
			 TB_ERR_NO_SPACE);
	ck_assert_int_eq(dat_open(&o, wbuf, n, &copy_dc), TB_OK);
	ck_assert_uint_eq(o.d.need.events, 2);
	ck_assert_uint_eq(o.d.need.buffers, 2);
	ck_assert_uint_eq(o.d.need.cpus, 4);
	ck_assert_uint_eq(o.d.need.cpustats, 2);
	ck_assert_uint_le(o.retries, 3);
	dat_close(&o);
	ck_assert_int_eq(tb_dat_open(NULL, wbuf, n, NULL, NULL, &e), TB_ERR_ARG);
}
END_TEST

/* Every prefix of every writer file fails as malformed input, never OK. */
START_TEST(every_prefix_fails)
{
	unsigned v, z;
	for (v = 6; v <= 7; v++)
		for (z = 0; z <= (v == 7 ? 1u : 0u); z++) {
			dw_layout lay;
			size_t n = build(v, (int)z, "i", &lay), cut;
			for (cut = 0; cut < n; cut++) {
				uint8_t *p = tb_test_dup(wbuf, cut);
				opened o;
				tb_status s = dat_open(&o, p, cut, &copy_dc);
				if (!tb_is_malformed(s))
					ck_abort_msg("v%u z%u prefix %zu: %s", v, z,
						     cut, tb_strerror(s));
				ck_assert_uint_le(o.err.offset, cut);
				dat_close(&o);
				free(p);
			}
		}
}
END_TEST

/* ---- the malformed cases of spec 3.5 and 4.3 ---- */

static void put_le(uint8_t *p, uint64_t v, unsigned n)
{
	unsigned i;
	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* Open a patched copy (exact size) and expect status at offset. */
static void expect_fail(const uint8_t *p, size_t n, tb_status want,
			uint64_t off, const tb_dat_decompressor *dc)
{
	uint8_t *c = tb_test_dup(p, n);
	opened o;
	tb_status s = dat_open(&o, c, n, dc);
	if (s != want || o.err.offset != off)
		ck_abort_msg("want %s @%llu, got %s @%llu (%s)",
			     tb_strerror(want), (unsigned long long)off,
			     tb_strerror(s), (unsigned long long)o.err.offset,
			     o.err.what);
	dat_close(&o);
	free(c);
}

START_TEST(bad_initial_header)
{
	dw_layout lay;
	size_t n = build(6, 0, NULL, &lay);
	uint8_t save;
	save = wbuf[0];
	wbuf[0] = 0x18;
	expect_fail(wbuf, n, TB_ERR_MAGIC, 0, NULL);
	wbuf[0] = save;
	wbuf[5] = 'X';
	expect_fail(wbuf, n, TB_ERR_MAGIC, 3, NULL);
	wbuf[5] = 'a';
	wbuf[10] = '8';
	expect_fail(wbuf, n, TB_ERR_VERSION, 10, NULL);
	wbuf[10] = '6';
	expect_fail(wbuf, 11, TB_ERR_TRUNCATED, 10, NULL); /* version no NUL */
	expect_fail(wbuf, 5, TB_ERR_TRUNCATED, 0, NULL);
	/* 4.3: endian byte 2 */
	wbuf[lay.endian] = 2;
	expect_fail(wbuf, n, TB_ERR_VALUE, lay.endian, NULL);
	wbuf[lay.endian] = 0;
	wbuf[lay.long_size] = 3;
	expect_fail(wbuf, n, TB_ERR_VALUE, lay.long_size, NULL);
	wbuf[lay.long_size] = 8;
	/* 4.3: page size 0; also not a power of two, and over 1 MiB */
	put_le(wbuf + lay.page_size, 0, 4);
	expect_fail(wbuf, n, TB_ERR_VALUE, lay.page_size, NULL);
	put_le(wbuf + lay.page_size, 4095, 4);
	expect_fail(wbuf, n, TB_ERR_VALUE, lay.page_size, NULL);
	put_le(wbuf + lay.page_size, 2u << 20, 4);
	expect_fail(wbuf, n, TB_ERR_VALUE, lay.page_size, NULL);
	put_le(wbuf + lay.page_size, 4096, 4);
}
END_TEST

START_TEST(bad_lengths_and_counts)
{
	dw_layout lay;
	size_t n = build(6, 0, NULL, &lay);
	/* 4.3: a header_page size of 2^64-1 */
	put_le(wbuf + lay.header_page_size, UINT64_MAX, 8);
	expect_fail(wbuf, n, TB_ERR_LENGTH, lay.header_page_size, NULL);
	n = build(6, 0, NULL, &lay);
	/* 4.3: a system count of 2^32-1 with a truncated file */
	put_le(wbuf + lay.systems_count, UINT32_MAX, 4);
	expect_fail(wbuf, lay.systems_count + 40, TB_ERR_LENGTH,
		    lay.systems_count, NULL);
	/* an option whose size runs past the end of the file */
	n = build(6, 0, NULL, &lay);
	put_le(wbuf + lay.uname_opt + 2, 0x7fffffff, 4);
	expect_fail(wbuf, n, TB_ERR_LENGTH, lay.uname_opt + 2, NULL);
}
END_TEST

START_TEST(bad_options)
{
	unsigned v;
	for (v = 6; v <= 7; v++) {
		dw_layout lay;
		size_t n = build(v, 0, NULL, &lay);
		/* 4.3: UNAME without a NUL */
		wbuf[lay.uname_opt + 6 + 10] = 'X';
		expect_fail(wbuf, n, TB_ERR_TRUNCATED, lay.uname_opt + 6, NULL);
		n = build(v, 0, NULL, &lay);
		/* 4.3: CPUSTAT of size 0 */
		put_le(wbuf + lay.cpustat_opt + 2, 0, 4);
		expect_fail(wbuf, n, TB_ERR_LENGTH, lay.cpustat_opt + 6, NULL);
		n = build(v, 0, NULL, &lay);
		/* 4.3: CPUCOUNT of size 1 */
		put_le(wbuf + lay.cpucount_opt + 2, 1, 4);
		expect_fail(wbuf, n, TB_ERR_LENGTH, lay.cpucount_opt + 2, NULL);
		n = build(v, 0, NULL, &lay);
		/* a CPU count over the limit */
		put_le(wbuf + lay.cpucount_opt + 6, 100000, 4);
		expect_fail(wbuf, n, TB_ERR_LIMIT, lay.cpucount_opt + 6, NULL);
	}
}
END_TEST

START_TEST(bad_v7_chain)
{
	dw_layout lay;
	size_t n = build(7, 0, NULL, &lay);
	/* 4.3: DONE pointing back to its own options section */
	put_le(wbuf + lay.done_opt + 6, lay.options_first, 8);
	expect_fail(wbuf, n, TB_ERR_CYCLE, lay.options_first, NULL);
	/* the next options section outside the file */
	put_le(wbuf + lay.done_opt + 6, n + 100, 8);
	expect_fail(wbuf, n, TB_ERR_RANGE, lay.done_opt + 6, NULL);
	/* pointing at a section that is not an options section */
	put_le(wbuf + lay.done_opt + 6, lay.header_sect, 8);
	expect_fail(wbuf, n, TB_ERR_VALUE, lay.header_sect, NULL);
	n = build(7, 0, NULL, &lay);
	/* the first options offset outside the file */
	put_le(wbuf + 10 + 2 + 6 + 5 + 1, n, 8);
	expect_fail(wbuf, n, TB_ERR_RANGE, 10 + 2 + 6 + 5 + 1, NULL);
	n = build(7, 0, NULL, &lay);
	/* a section description outside the strings */
	put_le(wbuf + lay.header_sect + 4, 100000, 4);
	expect_fail(wbuf, n, TB_ERR_RANGE, lay.header_sect + 4, NULL);
	n = build(7, 0, NULL, &lay);
	/* a section size past the end of the file */
	put_le(wbuf + lay.header_sect + 8, n, 8);
	expect_fail(wbuf, n, TB_ERR_LENGTH, lay.header_sect + 8, NULL);
	n = build(7, 0, NULL, &lay);
	/* an unknown section id / unknown flags */
	put_le(wbuf + lay.header_sect, 99, 2);
	expect_fail(wbuf, n, TB_ERR_VALUE, lay.header_sect, NULL);
	put_le(wbuf + lay.header_sect, TB_DAT_OPT_HEADER_INFO, 2);
	put_le(wbuf + lay.header_sect + 2, 6, 2);
	expect_fail(wbuf, n, TB_ERR_VALUE, lay.header_sect + 2, NULL);
}
END_TEST

START_TEST(bad_v7_buffer)
{
	dw_layout lay;
	size_t n = build(7, 0, NULL, &lay), c0;
	c0 = lay.buffer_cpu0;
	/* 4.3: CPU id 0xFFFFFFFF */
	put_le(wbuf + c0, UINT32_MAX, 4);
	expect_fail(wbuf, n, TB_ERR_RANGE, c0, NULL);
	/* the same CPU twice */
	put_le(wbuf + c0, 1, 4);
	expect_fail(wbuf, n, TB_ERR_DUPLICATE, c0 + 20, NULL);
	put_le(wbuf + c0, 0, 4);
	/* 4.3: offset 2^64-4096 with size 8192 (the sum wraps) */
	put_le(wbuf + c0 + 4, UINT64_MAX - 4095, 8);
	put_le(wbuf + c0 + 12, 8192, 8);
	expect_fail(wbuf, n, TB_ERR_RANGE, c0 + 4, NULL);
	n = build(7, 0, NULL, &lay);
	/* misaligned CPU data */
	put_le(wbuf + c0 + 4, lay.cpu_off[0] + 16, 8);
	put_le(wbuf + c0 + 12, 2048, 8);
	expect_fail(wbuf, n, TB_ERR_VALUE, c0 + 4, NULL);
	n = build(7, 0, NULL, &lay);
	/* 4.3: BUFFER name without a NUL inside the option */
	put_le(wbuf + lay.buffer_opt + 2, 9, 4);
	wbuf[lay.buffer_opt + 6 + 8] = 'x';
	expect_fail(wbuf, n, TB_ERR_TRUNCATED, lay.buffer_opt + 6 + 8, NULL);
	n = build(7, 0, NULL, &lay);
	/* a per-buffer page size that is not a power of two */
	put_le(wbuf + c0 - 8, 3000, 4);
	expect_fail(wbuf, n, TB_ERR_VALUE, c0 - 8, NULL);
	n = build(7, 0, NULL, &lay);
	/* a CPU count larger than the option */
	put_le(wbuf + c0 - 4, 1000, 4);
	expect_fail(wbuf, n, TB_ERR_LENGTH, c0 - 4, NULL);
}
END_TEST

START_TEST(bad_v6_flyrecord)
{
	dw_layout lay;
	size_t n = build(6, 0, NULL, &lay);
	put_le(wbuf + lay.v6_fly, UINT64_MAX - 4095, 8);
	put_le(wbuf + lay.v6_fly + 8, 8192, 8);
	expect_fail(wbuf, n, TB_ERR_RANGE, lay.v6_fly, NULL);
	n = build(6, 0, NULL, &lay);
	/* CPU data that is not whole pages */
	put_le(wbuf + lay.v6_fly + 8, 100, 8);
	expect_fail(wbuf, n, TB_ERR_LENGTH, lay.v6_fly, NULL);
	n = build(6, 0, NULL, &lay);
	memcpy(wbuf + lay.v6_fly - 10, "flyrecorX", 9);
	expect_fail(wbuf, n, TB_ERR_MAGIC, lay.v6_fly - 10, NULL);
	n = build(6, 0, "inst", &lay);
	/* an instance BUFFER offset that leads nowhere useful */
	put_le(wbuf + lay.buffer_opt + 6, 12, 8);
	expect_fail(wbuf, n, TB_ERR_MAGIC, 12, NULL);
	put_le(wbuf + lay.buffer_opt + 6, n + 1, 8);
	expect_fail(wbuf, n, TB_ERR_RANGE, lay.buffer_opt, NULL);
}
END_TEST

/* The decompressor contract: declared sizes are checked against what the
 * decompressor really produced, and huge declarations are refused. */
START_TEST(decompressor_contract)
{
	dw_layout lay;
	size_t n = build(7, 1, NULL, &lay);
	long lie;
	tb_dat_decompressor liar = { dw_copy_decompress, &lie };
	lie = 1;
	expect_fail(wbuf, n, TB_ERR_LENGTH, lay.header_sect, &liar);
	lie = -1;
	expect_fail(wbuf, n, TB_ERR_LENGTH, lay.header_sect, &liar);
	lie = 0;
	expect_fail(wbuf, n, TB_ERR_UNSUPPORTED, lay.header_sect, NULL);
	/* 4.3: a compressed block declaring 0xFFFFFFFF bytes */
	put_le(wbuf + lay.header_sect + 20, UINT32_MAX, 4);
	expect_fail(wbuf, n, TB_ERR_LIMIT, lay.header_sect + 20, &copy_dc);
	n = build(7, 1, NULL, &lay);
	/* the compressed size disagreeing with the section size */
	put_le(wbuf + lay.header_sect + 16, 3, 4);
	expect_fail(wbuf, n, TB_ERR_LENGTH, lay.header_sect + 16, &copy_dc);
	n = build(7, 1, NULL, &lay);
	/* a chunk declaring more than its page multiple / lying */
	{
		opened o;
		tb_dat_chunk_iter it;
		tb_dat_chunk ch;
		uint8_t page[8192];
		size_t got;
		uint8_t *c;
		size_t cpu0 = lay.cpu_off[0];
		put_le(wbuf + cpu0 + 8, 4000, 4); /* usize */
		c = tb_test_dup(wbuf, n);
		ck_assert_int_eq(dat_open(&o, c, n, &copy_dc), TB_OK);
		ck_assert_int_eq(tb_dat_chunks_begin(&it, &o.d, &o.d.buffers[0],
						     &o.d.buffers[0].cpus[0],
						     &o.err), TB_OK);
		ck_assert_int_eq(tb_dat_chunk_next(&it, &ch, &o.err), TB_OK);
		ck_assert_int_eq(tb_dat_chunk_inflate(&o.d, &o.d.buffers[0], &ch,
						      page, sizeof(page), &got, &o.err),
				 TB_ERR_LENGTH);
		ck_assert_uint_eq(o.err.offset, cpu0 + 4 + 4);
		dat_close(&o);
		free(c);
		put_le(wbuf + cpu0 + 8, 4096, 4);
		/* a chunk count larger than the data holds */
		put_le(wbuf + cpu0, 1000, 4);
		c = tb_test_dup(wbuf, n);
		ck_assert_int_eq(dat_open(&o, c, n, &copy_dc), TB_OK);
		ck_assert_int_eq(tb_dat_chunks_begin(&it, &o.d, &o.d.buffers[0],
						     &o.d.buffers[0].cpus[0],
						     &o.err), TB_ERR_LENGTH);
		dat_close(&o);
		free(c);
		put_le(wbuf + cpu0, 1, 4);
		/* a chunk whose compressed size runs past the CPU data */
		put_le(wbuf + cpu0 + 4, 5000, 4);
		c = tb_test_dup(wbuf, n);
		ck_assert_int_eq(dat_open(&o, c, n, &copy_dc), TB_OK);
		ck_assert_int_eq(tb_dat_chunks_begin(&it, &o.d, &o.d.buffers[0],
						     &o.d.buffers[0].cpus[0],
						     &o.err), TB_OK);
		ck_assert_int_eq(tb_dat_chunk_next(&it, &ch, &o.err),
				 TB_ERR_LENGTH);
		dat_close(&o);
		free(c);
	}
}
END_TEST

/* ---- options walk ---- */

static int count_opt(void *ctx, unsigned id, const uint8_t *payload,
		     uint32_t size, uint64_t offset)
{
	unsigned *counts = ctx;
	(void)payload;
	(void)size;
	(void)offset;
	if (id < TB_DAT_OPT_COUNT_)
		counts[id]++;
	return 0;
}

START_TEST(option_walk)
{
	unsigned v;
	ck_assert_str_eq(tb_dat_option_name(5), "UNAME");
	ck_assert_str_eq(tb_dat_option_name(99), "unknown");
	for (v = 6; v <= 7; v++) {
		dw_layout lay;
		size_t n = build(v, 0, NULL, &lay);
		opened o;
		unsigned counts[TB_DAT_OPT_COUNT_] = { 0 };
		ck_assert_int_eq(dat_open(&o, wbuf, n, NULL), TB_OK);
		ck_assert_int_eq(tb_dat_foreach_option(&o.d, count_opt, counts,
						       &o.err), TB_OK);
		ck_assert_uint_eq(counts[TB_DAT_OPT_UNAME], 1);
		ck_assert_uint_eq(counts[TB_DAT_OPT_CPUSTAT], 2);
		ck_assert_uint_eq(counts[TB_DAT_OPT_BUFFER], v == 7 ? 1 : 0);
		ck_assert_uint_eq(counts[TB_DAT_OPT_KALLSYMS], v == 7 ? 1 : 0);
		dat_close(&o);
	}
}
END_TEST

/* ---- every record kind of spec 3.2 / 3.3, and each of its errors ---- */

/* Write s into wbuf (checked). */
static size_t build_spec(const dw_spec *s, dw_layout *lay)
{
	size_t n = dw_write(s, wbuf, sizeof(wbuf), lay);
	ck_assert_uint_gt(n, 0);
	return n;
}

/* A v6 or v7 default file carrying one extra option {id, payload}. */
static size_t build_opt(unsigned version, int be, unsigned id,
			const dw_bytes *payload, dw_layout *lay)
{
	dw_spec s;
	dw_default(&s, version);
	s.big_endian = be;
	s.opts[0].id = id;
	s.opts[0].payload = payload->p;
	s.opts[0].size = payload->len;
	s.nopts = 1;
	return build_spec(&s, lay);
}

/* TIME_SHIFT (spec 3.3, id 12): u64 peer trace id, u32 flags, u32 CPU
 * count; per CPU u32 n, n times, n offsets, n scalings (u64 each); then
 * optionally n fraction-bit values per CPU. */
static void ts_head(dw_bytes *b, uint8_t *mem, size_t cap, int be, uint32_t ncpus)
{
	dw_bytes_init(b, mem, cap, be);
	dw_put(b, 0x1122334455667788ull, 8);
	dw_put(b, 1, 4); /* flags */
	dw_put(b, ncpus, 4);
}

/* One CPU's samples: n, then times, offsets and scalings. */
static void ts_cpu(dw_bytes *b, unsigned n, const uint64_t *times,
		   const uint64_t *offs)
{
	unsigned i;
	dw_put(b, n, 4);
	for (i = 0; i < n; i++)
		dw_put(b, times[i], 8);
	for (i = 0; i < n; i++)
		dw_put(b, offs[i], 8);
	for (i = 0; i < n; i++)
		dw_put(b, 1, 8);
}

static void time_shift_payload(dw_bytes *b, uint8_t *mem, size_t cap, int be,
			       int fraction_bits)
{
	static const uint64_t times[] = { 1000, 2000, 3000 };
	static const uint64_t offs[] = { (uint64_t)-250, 40, 7 };
	unsigned i;
	ts_head(b, mem, cap, be, 2);
	ts_cpu(b, 2, times, offs);
	ts_cpu(b, 1, times + 2, offs + 2);
	if (fraction_bits)
		for (i = 0; i < 3; i++)
			dw_put(b, 32, 8);
}

START_TEST(time_shift_option)
{
	unsigned v;
	int be, frac;
	for (v = 6; v <= 7; v++)
		for (be = 0; be <= 1; be++)
			for (frac = 0; frac <= 1; frac++) {
				uint8_t mem[256];
				dw_bytes b;
				dw_layout lay;
				size_t n;
				opened o;
				time_shift_payload(&b, mem, sizeof(mem), be, frac);
				ck_assert_uint_eq(b.len, frac ? 120 : 96);
				n = build_opt(v, be, TB_DAT_OPT_TIME_SHIFT, &b, &lay);
				ck_assert_int_eq(dat_open(&o, wbuf, n, NULL), TB_OK);
				/* the whole payload, where the writer put it */
				ck_assert_uint_eq(o.d.time_shift.offset, lay.opt[0] + 6);
				ck_assert_uint_eq(o.d.time_shift.len, b.len);
				ck_assert(!memcmp(o.d.time_shift.ptr, mem, b.len));
				ck_assert_uint_eq(o.d.nunknown_options, 0);
				dat_close(&o);
			}
}
END_TEST

/* A file with the option {id, b}: fails with want at payload + rel. */
static void opt_fails(unsigned v, unsigned id, const dw_bytes *b, tb_status want,
		      size_t rel)
{
	dw_layout lay;
	size_t n = build_opt(v, 0, id, b, &lay);
	expect_fail(wbuf, n, want, lay.opt[0] + 6 + rel, NULL);
}

START_TEST(time_shift_errors)
{
	static const uint64_t one[] = { 5 }, six[] = { 6 };
	unsigned v;
	for (v = 6; v <= 7; v++) {
		uint8_t mem[256];
		dw_bytes b;
		const unsigned ts = TB_DAT_OPT_TIME_SHIFT;
		/* the peer trace id cut short */
		dw_bytes_init(&b, mem, sizeof(mem), 0);
		dw_put(&b, 1, 4);
		opt_fails(v, ts, &b, TB_ERR_TRUNCATED, 0);
		/* the flags cut short */
		dw_bytes_init(&b, mem, sizeof(mem), 0);
		dw_put(&b, 1, 8);
		dw_put(&b, 0, 2);
		opt_fails(v, ts, &b, TB_ERR_TRUNCATED, 8);
		/* 100 CPUs in 8 bytes: each needs at least a u32 count */
		ts_head(&b, mem, sizeof(mem), 0, 100);
		dw_put(&b, 0, 8);
		opt_fails(v, ts, &b, TB_ERR_LENGTH, 12);
		/* CPU 0 claims 1000 samples of 24 bytes */
		ts_head(&b, mem, sizeof(mem), 0, 2);
		dw_put(&b, 1000, 4);
		dw_put(&b, 0, 4);
		opt_fails(v, ts, &b, TB_ERR_LENGTH, 16);
		/* CPU 0's sample leaves two bytes: CPU 1's count is cut */
		ts_head(&b, mem, sizeof(mem), 0, 2);
		ts_cpu(&b, 1, one, six);
		dw_put(&b, 0, 2);
		opt_fails(v, ts, &b, TB_ERR_TRUNCATED, 16 + 28);
		/* a tail that is not one u64 per sample */
		ts_head(&b, mem, sizeof(mem), 0, 1);
		ts_cpu(&b, 1, one, six);
		dw_put(&b, 32, 5);
		opt_fails(v, ts, &b, TB_ERR_LENGTH, 16 + 28);
	}
}
END_TEST

/* GUEST (id 13): name NUL, u64 trace id, u32 CPU count, then per CPU
 * {u32 cpu, u32 host pid}. */
static void guest_payload(dw_bytes *b, uint8_t *mem, size_t cap, int be,
			  const char *name, uint32_t ncpus, unsigned entries)
{
	unsigned i;
	dw_bytes_init(b, mem, cap, be);
	dw_put_str(b, name);
	dw_put(b, 0xAABBCCDDEEFF0011ull, 8);
	dw_put(b, ncpus, 4);
	for (i = 0; i < entries; i++) {
		dw_put(b, i, 4);
		dw_put(b, 4000 + i, 4);
	}
}

START_TEST(guest_option)
{
	unsigned v;
	int be;
	for (v = 6; v <= 7; v++)
		for (be = 0; be <= 1; be++) {
			uint8_t mem[128];
			dw_bytes b;
			dw_layout lay;
			size_t n;
			opened o;
			guest_payload(&b, mem, sizeof(mem), be, "guest1", 2, 2);
			ck_assert_uint_eq(b.len, 7 + 8 + 4 + 16);
			n = build_opt(v, be, TB_DAT_OPT_GUEST, &b, &lay);
			ck_assert_int_eq(dat_open(&o, wbuf, n, NULL), TB_OK);
			ck_assert_uint_eq(o.d.guest.offset, lay.opt[0] + 6);
			ck_assert_uint_eq(o.d.guest.len, 35);
			ck_assert(!memcmp(o.d.guest.ptr, "guest1", 7));
			ck_assert(!memcmp(o.d.guest.ptr, mem, b.len));
			dat_close(&o);
		}
}
END_TEST

START_TEST(guest_errors)
{
	unsigned v;
	for (v = 6; v <= 7; v++) {
		uint8_t mem[128];
		dw_bytes b;
		const unsigned g = TB_DAT_OPT_GUEST;
		/* a name without its NUL */
		dw_bytes_init(&b, mem, sizeof(mem), 0);
		dw_put_raw(&b, "guest", 5);
		opt_fails(v, g, &b, TB_ERR_TRUNCATED, 0);
		/* the trace id cut short */
		dw_bytes_init(&b, mem, sizeof(mem), 0);
		dw_put_str(&b, "g");
		dw_put(&b, 7, 4);
		opt_fails(v, g, &b, TB_ERR_TRUNCATED, 2);
		/* the CPU count cut short */
		dw_bytes_init(&b, mem, sizeof(mem), 0);
		dw_put_str(&b, "g");
		dw_put(&b, 7, 8);
		dw_put(&b, 1, 2);
		opt_fails(v, g, &b, TB_ERR_TRUNCATED, 10);
		/* three CPUs, two entries */
		guest_payload(&b, mem, sizeof(mem), 0, "g", 3, 2);
		opt_fails(v, g, &b, TB_ERR_LENGTH, 10);
		/* one CPU, two entries */
		guest_payload(&b, mem, sizeof(mem), 0, "g", 1, 2);
		opt_fails(v, g, &b, TB_ERR_LENGTH, 14 + 8);
	}
}
END_TEST

/* DATE (microseconds, base auto) and OFFSET (ns) are signed numbers in
 * text; the texts are handed out without their NUL. */
START_TEST(date_and_offset_options)
{
	static const struct { unsigned id; const char *text; int ok; } cases[] = {
		{ TB_DAT_OPT_DATE, "0x5f3e1a2b", 1 },
		{ TB_DAT_OPT_DATE, "+17", 1 },
		{ TB_DAT_OPT_OFFSET, "-1500", 1 },
		{ TB_DAT_OPT_OFFSET, "-", 0 },
		{ TB_DAT_OPT_DATE, "12ab", 0 },
	};
	unsigned v;
	size_t i;
	for (v = 6; v <= 7; v++)
		for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			uint8_t mem[32];
			dw_bytes b;
			dw_layout lay;
			size_t n;
			opened o;
			dw_bytes_init(&b, mem, sizeof(mem), 0);
			dw_put_str(&b, cases[i].text);
			n = build_opt(v, 0, cases[i].id, &b, &lay);
			if (!cases[i].ok) {
				expect_fail(wbuf, n, TB_ERR_SYNTAX, lay.opt[0] + 6, NULL);
				continue;
			}
			ck_assert_int_eq(dat_open(&o, wbuf, n, NULL), TB_OK);
			if (cases[i].id == TB_DAT_OPT_DATE) {
				ck_assert(text_is(&o.d.date, cases[i].text));
				ck_assert_uint_eq(o.d.date.offset, lay.opt[0] + 6);
			} else {
				ck_assert(text_is(&o.d.ts_offset, cases[i].text));
			}
			dat_close(&o);
		}
}
END_TEST

/* v6 predates the section options: BUFFER_TEXT, BTF_FILE and MODULES_FILE
 * there are unknown options, skipped as trace-cmd skips them. */
START_TEST(v6_section_options_are_unknown)
{
	uint8_t mem[8];
	dw_spec s;
	dw_layout lay;
	size_t n;
	opened o;
	dw_bytes b;
	dw_bytes_init(&b, mem, sizeof(mem), 0);
	dw_put(&b, 64, 8);
	dw_default(&s, 6);
	s.opts[0].id = TB_DAT_OPT_BUFFER_TEXT;
	s.opts[1].id = TB_DAT_OPT_BTF_FILE;
	s.opts[2].id = TB_DAT_OPT_MODULES_FILE;
	s.opts[0].payload = s.opts[1].payload = s.opts[2].payload = mem;
	s.opts[0].size = s.opts[1].size = s.opts[2].size = b.len;
	s.nopts = 3;
	n = build_spec(&s, &lay);
	ck_assert_int_eq(dat_open(&o, wbuf, n, NULL), TB_OK);
	ck_assert_uint_eq(o.d.nunknown_options, 3);
	ck_assert_uint_eq(o.d.btf.len, 0);
	ck_assert_uint_eq(o.d.modules.len, 0);
	ck_assert_uint_eq(o.d.nbuffers, 1);
	ck_assert_int_eq(o.d.buffers[0].latency, 0);
	dat_close(&o);
}
END_TEST

/* BTF_FILE (id 23): a section named by its option; its body is the blob
 * (spec 3.3), in the file or decompressed into scratch. */
START_TEST(btf_section)
{
	static const uint8_t blob[] = { 0x9f, 0xeb, 0x01, 0x00, 0x18, 0x00, 0x00,
					0x00, 'b',  't',  'f',  0x00 };
	int z;
	for (z = 0; z <= 1; z++) {
		dw_spec s;
		dw_layout lay;
		size_t n;
		opened o;
		unsigned counts[TB_DAT_OPT_COUNT_] = { 0 };
		dw_default(&s, 7);
		s.compress = z;
		s.btf = blob;
		s.btf_len = sizeof(blob);
		n = build_spec(&s, &lay);
		ck_assert_int_eq(dat_open(&o, wbuf, n, &copy_dc), TB_OK);
		check_writer_file(&o.d, &lay);
		ck_assert_uint_eq(o.d.btf.len, sizeof(blob));
		ck_assert(!memcmp(o.d.btf.ptr, blob, sizeof(blob)));
		/* in the file: the body; decompressed: its section header */
		ck_assert_uint_eq(o.d.btf.offset, z ? lay.btf_sect : lay.btf_sect + 16);
		ck_assert_uint_eq(o.d.nsections, 11);
		ck_assert_int_eq(tb_dat_foreach_option(&o.d, count_opt, counts, &o.err),
				 TB_OK);
		ck_assert_uint_eq(counts[TB_DAT_OPT_BTF_FILE], 1);
		dat_close(&o);
	}
}
END_TEST

/* MODULES_FILE (id 25, trace-cmd 3.4): a section named by its option,
 * holding /proc/modules (spec 3.3); kept as d->modules, in the file or
 * decompressed into scratch.  Named twice, the file is refused. */
START_TEST(modules_section)
{
	static const char mods[] =
		"nf_tables 376832 0 - Live 0x0000000000000000\n"
		"kvm_intel 487424 0 - Live 0x0000000000000000\n";
	int z;
	ck_assert_str_eq(tb_dat_option_name(TB_DAT_OPT_MODULES_FILE), "MODULES_FILE");
	for (z = 0; z <= 1; z++) {
		dw_spec s;
		dw_layout lay;
		size_t n;
		opened o;
		unsigned counts[TB_DAT_OPT_COUNT_] = { 0 };
		uint8_t mem[8];
		dw_bytes b;
		dw_default(&s, 7);
		s.compress = z;
		s.modules = (const uint8_t *)mods;
		s.modules_len = sizeof(mods) - 1;
		n = build_spec(&s, &lay);
		ck_assert_int_eq(dat_open(&o, wbuf, n, &copy_dc), TB_OK);
		check_writer_file(&o.d, &lay);
		ck_assert_uint_eq(o.d.modules.len, sizeof(mods) - 1);
		ck_assert(!memcmp(o.d.modules.ptr, mods, sizeof(mods) - 1));
		ck_assert_uint_eq(o.d.modules.offset,
				  z ? lay.modules_sect : lay.modules_sect + 16);
		ck_assert_uint_eq(o.d.btf.len, 0);
		ck_assert_uint_eq(o.d.nunknown_options, 0);
		ck_assert_uint_eq(o.d.nsections, 11);
		ck_assert_int_eq(tb_dat_foreach_option(&o.d, count_opt, counts, &o.err),
				 TB_OK);
		ck_assert_uint_eq(counts[TB_DAT_OPT_MODULES_FILE], 1);
		dat_close(&o);
		/* a second MODULES_FILE option naming the same section */
		dw_bytes_init(&b, mem, sizeof(mem), 0);
		dw_put(&b, lay.modules_sect, 8);
		s.opts[0].id = TB_DAT_OPT_MODULES_FILE;
		s.opts[0].payload = mem;
		s.opts[0].size = b.len;
		s.nopts = 1;
		n = build_spec(&s, &lay);
		ck_assert_int_eq(dat_open(&o, wbuf, n, &copy_dc), TB_ERR_DUPLICATE);
		dat_close(&o);
	}
}
END_TEST

static const char latency_text[] =
	"# tracer: irqsoff\n#\n# irqsoff latency trace v1.1.5 on 6.18.44\n"
	"  <idle>-0       0d.h1    0us : irq_enter <-do_IRQ\n";

/* A latency (text) top buffer: v6 "latency" data (the rest of the file),
 * v7 a BUFFER_TEXT option + section.  It has no events to stream. */
START_TEST(latency_buffers)
{
	static const struct { unsigned v; int z; } kinds[] = { { 6, 0 }, { 7, 0 }, { 7, 1 } };
	size_t k;
	for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		dw_spec s;
		dw_layout lay;
		size_t n;
		opened o;
		const tb_dat_buffer *top;
		tb_kbuf_layout kl;
		tb_dat_stream ds;
		tb_dat_cursor cur[1];
		dw_default(&s, kinds[k].v);
		s.compress = kinds[k].z;
		s.latency = latency_text;
		n = build_spec(&s, &lay);
		ck_assert_int_eq(dat_open(&o, wbuf, n, &copy_dc), TB_OK);
		ck_assert_uint_eq(o.d.nbuffers, 1);
		top = tb_dat_find_buffer(&o.d, "");
		ck_assert_ptr_nonnull(top);
		ck_assert_int_eq(top->latency, 1);
		ck_assert_uint_eq(top->ncpus, 0);
		ck_assert(text_is(&top->text, latency_text));
		if (kinds[k].v == 6) {
			/* the tag is where the buffer starts */
			ck_assert_uint_eq(top->section_offset, lay.latency_text - 10);
			ck_assert_uint_eq(top->text.offset, lay.latency_text);
			ck_assert_uint_eq(o.d.v6_clock.len, 0);
		} else {
			ck_assert_uint_eq(top->section_offset, lay.buffer_sect);
			ck_assert(text_is(&top->clock, "local"));
			ck_assert_int_eq(top->compressed, kinds[k].z);
			ck_assert_uint_eq(top->text.offset,
					  kinds[k].z ? lay.buffer_sect : lay.latency_text);
		}
		ck_assert_int_eq(tb_kbuf_layout_init(&kl, 0, 8, 4096, 0), TB_OK);
		ck_assert_int_eq(tb_dat_stream_init(&ds, &o.d, top, &kl, cur, 1, NULL,
						    0, 0, &o.err),
				 TB_ERR_UNSUPPORTED);
		ck_assert_uint_eq(o.err.offset, top->section_offset);
		dat_close(&o);
	}
}
END_TEST

/* A v7 file (with a latency top buffer or not) with one extra option
 * whose payload starts with a u64 section offset, patched to lead to the
 * top buffer's section. */
static size_t build_buffer_opt(const char *latency, unsigned id, const dw_bytes *b,
			       dw_layout *lay)
{
	dw_spec s;
	size_t n;
	dw_default(&s, 7);
	s.latency = latency;
	s.opts[0].id = id;
	s.opts[0].payload = b->p;
	s.opts[0].size = b->len;
	s.nopts = 1;
	n = build_spec(&s, lay);
	dw_store(wbuf + lay->opt[0] + 6, lay->buffer_sect, 8, 0);
	return n;
}

START_TEST(buffer_text_errors)
{
	uint8_t mem[64];
	dw_bytes b;
	dw_layout lay;
	size_t n;
	opened o;
	const tb_dat_buffer *lat;
	/* a BUFFER_TEXT payload with a byte after the clock */
	dw_bytes_init(&b, mem, sizeof(mem), 0);
	dw_put(&b, 0, 8); /* the section offset */
	dw_put_str(&b, "lat");
	dw_put_str(&b, "local");
	dw_put(&b, 0, 1);
	n = build_buffer_opt(latency_text, TB_DAT_OPT_BUFFER_TEXT, &b, &lay);
	expect_fail(wbuf, n, TB_ERR_LENGTH, lay.opt[0] + 6 + 8 + 4 + 6, NULL);
	/* well formed, it adds a second text buffer over the same section */
	b.len--;
	n = build_buffer_opt(latency_text, TB_DAT_OPT_BUFFER_TEXT, &b, &lay);
	ck_assert_int_eq(dat_open(&o, wbuf, n, NULL), TB_OK);
	ck_assert_uint_eq(o.d.nbuffers, 2);
	lat = tb_dat_find_buffer(&o.d, "lat");
	ck_assert_ptr_nonnull(lat);
	ck_assert_int_eq(lat->latency, 1);
	ck_assert(text_is(&lat->clock, "local"));
	ck_assert(text_is(&lat->text, latency_text));
	dat_close(&o);
	/* its section marked compressed in an uncompressed file */
	put_le(wbuf + lay.buffer_sect + 2, 1, 2);
	expect_fail(wbuf, n, TB_ERR_VALUE, lay.buffer_sect, NULL);
	/* a BUFFER_TEXT option leading to a flyrecord BUFFER section */
	n = build_buffer_opt(NULL, TB_DAT_OPT_BUFFER_TEXT, &b, &lay);
	expect_fail(wbuf, n, TB_ERR_VALUE, lay.buffer_sect, NULL);
}
END_TEST

/* v6 without an options list; without a TRACECLOCK option the clock text
 * after the flyrecord table is not read; a bad clock size there falls
 * back to none, as trace-cmd falls back to [local]. */
START_TEST(v6_options_and_clock)
{
	dw_spec s;
	dw_layout lay;
	size_t n;
	opened o;
	unsigned counts[TB_DAT_OPT_COUNT_] = { 0 };
	dw_default(&s, 6);
	s.no_options = 1;
	n = build_spec(&s, &lay);
	ck_assert_int_eq(dat_open(&o, wbuf, n, NULL), TB_OK);
	ck_assert_uint_eq(o.d.noptions, 0);
	ck_assert_uint_eq(o.d.cpu_count, 2);
	ck_assert_uint_eq(o.d.buffers[0].ncpus, 2);
	ck_assert_uint_eq(o.d.buffers[0].cpus[1].offset, lay.cpu_off[1]);
	ck_assert_uint_eq(o.d.v6_clock.len, 0);
	ck_assert_int_eq(tb_dat_foreach_option(&o.d, count_opt, counts, &o.err), TB_OK);
	ck_assert_uint_eq(counts[TB_DAT_OPT_UNAME], 0);
	dat_close(&o);
	/* the TRACECLOCK option renamed to an unknown id */
	n = build(6, 0, NULL, &lay);
	put_le(wbuf + lay.clock_opt, 99, 2);
	ck_assert_int_eq(dat_open(&o, wbuf, n, NULL), TB_OK);
	ck_assert_uint_eq(o.d.nunknown_options, 1);
	ck_assert_uint_eq(o.d.trace_clock.len, 0);
	ck_assert_uint_eq(o.d.v6_clock.len, 0);
	dat_close(&o);
	/* a clock size past the end: no clock, no error left behind */
	n = build(6, 0, NULL, &lay);
	put_le(wbuf + lay.v6_clock, n, 8);
	ck_assert_int_eq(dat_open(&o, wbuf, n, NULL), TB_OK);
	ck_assert_uint_eq(o.d.v6_clock.len, 0);
	ck_assert_int_eq(o.err.status, TB_OK);
	dat_close(&o);
	/* the data tag after the options cut short */
	n = build(6, 0, NULL, &lay);
	expect_fail(wbuf, lay.done_opt + 2 + 5, TB_ERR_TRUNCATED, lay.done_opt + 2, NULL);
	/* a header CPU count over the limit */
	put_le(wbuf + lay.v6_cpus, TB_DAT_MAX_CPUS + 1, 4);
	expect_fail(wbuf, n, TB_ERR_LIMIT, lay.v6_cpus, NULL);
}
END_TEST

/* Buffer names are unique: two v6 BUFFER options with one name, or an
 * instance called "" next to the top buffer. */
START_TEST(v6_duplicate_buffers)
{
	uint8_t mem[16];
	dw_bytes b;
	dw_spec s;
	dw_layout lay;
	size_t n;
	dw_bytes_init(&b, mem, sizeof(mem), 0);
	dw_put(&b, 0, 8); /* patched: the top flyrecord tag */
	dw_put_str(&b, "dup");
	dw_default(&s, 6);
	s.opts[0].id = s.opts[1].id = TB_DAT_OPT_BUFFER;
	s.opts[0].payload = s.opts[1].payload = mem;
	s.opts[0].size = s.opts[1].size = b.len;
	s.nopts = 2;
	n = build_spec(&s, &lay);
	put_le(wbuf + lay.opt[0] + 6, lay.v6_fly - 10, 8);
	put_le(wbuf + lay.opt[1] + 6, lay.v6_fly - 10, 8);
	expect_fail(wbuf, n, TB_ERR_DUPLICATE, lay.opt[1], NULL);
	/* one of them is fine: an instance sharing the top CPU ranges */
	{
		opened o;
		const tb_dat_buffer *d;
		s.nopts = 1;
		n = build_spec(&s, &lay);
		put_le(wbuf + lay.opt[0] + 6, lay.v6_fly - 10, 8);
		ck_assert_int_eq(dat_open(&o, wbuf, n, NULL), TB_OK);
		ck_assert_uint_eq(o.d.nbuffers, 2);
		ck_assert_ptr_eq(tb_dat_find_buffer(&o.d, ""), &o.d.buffers[0]);
		d = tb_dat_find_buffer(&o.d, "dup");
		ck_assert_ptr_nonnull(d);
		ck_assert_uint_eq(d->cpus[1].offset, lay.cpu_off[1]);
		dat_close(&o);
	}
	/* an instance named "" */
	dw_bytes_init(&b, mem, sizeof(mem), 0);
	dw_put(&b, 0, 8);
	dw_put_str(&b, "");
	s.opts[0].size = b.len;
	n = build_spec(&s, &lay);
	put_le(wbuf + lay.opt[0] + 6, lay.v6_fly - 10, 8);
	expect_fail(wbuf, n, TB_ERR_DUPLICATE, lay.v6_fly - 10, NULL);
	/* the same next to a latency top buffer; the instance's flyrecord
	 * table (two empty CPUs) lies in an unknown option's payload */
	{
		static const uint8_t fly[10 + 32] = "flyrecord";
		s.latency = latency_text;
		s.opts[1].id = 99;
		s.opts[1].payload = fly;
		s.opts[1].size = sizeof(fly);
		s.nopts = 2;
		n = build_spec(&s, &lay);
		put_le(wbuf + lay.opt[0] + 6, lay.opt[1] + 6, 8);
		expect_fail(wbuf, n, TB_ERR_DUPLICATE, lay.latency_text - 10, NULL);
		/* named "x" it is a second, empty buffer */
		memcpy(mem + 8, "x", 2);
		s.opts[0].size = 10;
		n = build_spec(&s, &lay);
		put_le(wbuf + lay.opt[0] + 6, lay.opt[1] + 6, 8);
		{
			opened o;
			ck_assert_int_eq(dat_open(&o, wbuf, n, NULL), TB_OK);
			ck_assert_uint_eq(o.d.nbuffers, 2);
			ck_assert_int_eq(o.d.buffers[0].latency, 1);
			ck_assert(text_is(&o.d.buffers[1].name, "x"));
			ck_assert_uint_eq(o.d.buffers[1].ncpus, 2);
			ck_assert_uint_eq(o.d.buffers[1].cpus[1].size, 0);
			dat_close(&o);
		}
	}
}
END_TEST

/* A v7 BUFFER option listing more CPUs than TB_DAT_MAX_CPUS. */
START_TEST(v7_buffer_too_many_cpus)
{
	size_t psize = 8 + 4 + 6 + 4 + 4 + (TB_DAT_MAX_CPUS + 1) * 20, cap = 1u << 19, n;
	uint8_t *payload = calloc(1, psize), *file = malloc(cap);
	dw_bytes b;
	dw_spec s;
	dw_layout lay;
	dw_bytes_init(&b, payload, psize, 0);
	dw_put(&b, 0, 8); /* patched: the top BUFFER section */
	dw_put_str(&b, "big");
	dw_put_str(&b, "local");
	dw_put(&b, 4096, 4);
	dw_put(&b, TB_DAT_MAX_CPUS + 1, 4);
	dw_default(&s, 7);
	s.opts[0].id = TB_DAT_OPT_BUFFER;
	s.opts[0].payload = payload;
	s.opts[0].size = psize;
	s.nopts = 1;
	n = dw_write(&s, file, cap, &lay);
	ck_assert_uint_gt(n, 0);
	put_le(file + lay.opt[0] + 6, lay.buffer_sect, 8);
	expect_fail(file, n, TB_ERR_LIMIT, lay.opt[0] + 6 + 8 + 4 + 6 + 4, NULL);
	free(payload);
	free(file);
}
END_TEST

/* The v7 options chain: at most TB_DAT_MAX_OPTION_SECTIONS sections. */
static size_t chain_of(size_t extra, size_t *last)
{
	dw_layout lay;
	size_t n = build(7, 0, NULL, &lay), i;
	put_le(wbuf + lay.done_opt2 + 6, n, 8);
	for (i = 0; i < extra; i++) {
		uint8_t body[14];
		put_le(body, TB_DAT_OPT_DONE, 2);
		put_le(body + 2, 8, 4);
		put_le(body + 6, i + 1 < extra ? n + 30 : 0, 8);
		*last = n;
		n = dw_append_sect(wbuf, n, sizeof(wbuf), 0, TB_DAT_OPT_DONE, 0,
				   UINT32_MAX, body, sizeof(body));
		ck_assert_uint_gt(n, 0);
	}
	return n;
}

START_TEST(v7_options_chain_limit)
{
	size_t last = 0, n = chain_of(TB_DAT_MAX_OPTION_SECTIONS - 2, &last);
	opened o;
	unsigned counts[TB_DAT_OPT_COUNT_] = { 0 };
	ck_assert_int_eq(dat_open(&o, wbuf, n, NULL), TB_OK);
	ck_assert_uint_eq(o.d.noption_sections, TB_DAT_MAX_OPTION_SECTIONS);
	ck_assert_int_eq(tb_dat_foreach_option(&o.d, count_opt, counts, &o.err), TB_OK);
	ck_assert_uint_eq(counts[TB_DAT_OPT_BUFFER], 1);
	dat_close(&o);
	n = chain_of(TB_DAT_MAX_OPTION_SECTIONS - 1, &last);
	expect_fail(wbuf, n, TB_ERR_LIMIT, last, NULL);
}
END_TEST

/* At most TB_DAT_MAX_SECTIONS sections are walked. */
START_TEST(v7_section_count_limit)
{
	dw_layout lay;
	size_t base = build(7, 0, NULL, &lay), k;
	size_t extra = TB_DAT_MAX_SECTIONS - 10, cap = base + (extra + 1) * 16, n;
	uint8_t *file = malloc(cap);
	opened o;
	memcpy(file, wbuf, base);
	n = base;
	for (k = 0; k < extra + 1; k++)
		n = dw_append_sect(file, n, cap, 0, TB_DAT_OPT_BTF_FILE, 0, UINT32_MAX,
				   NULL, 0);
	ck_assert_uint_eq(n, cap);
	/* 10 of the writer's and the empty ones: exactly the limit */
	ck_assert_int_eq(dat_open(&o, file, cap - 16, NULL), TB_OK);
	ck_assert_uint_eq(o.d.nsections, TB_DAT_MAX_SECTIONS);
	ck_assert_uint_eq(o.d.btf.len, 0); /* no option names them */
	dat_close(&o);
	expect_fail(file, cap, TB_ERR_LIMIT, cap - 16, NULL);
	free(file);
}
END_TEST

/* Several STRINGS sections are one string table, in file order. */
START_TEST(v7_several_strings_sections)
{
	dw_layout lay;
	size_t n = build(7, 0, NULL, &lay), first;
	opened o;
	ck_assert_int_eq(dat_open(&o, wbuf, n, NULL), TB_OK);
	first = o.d.strings.len;
	dat_close(&o);
	n = dw_append_sect(wbuf, n, sizeof(wbuf), 0, TB_DAT_OPT_STRINGS, 0, UINT32_MAX,
			   "extra", 6);
	n = dw_append_sect(wbuf, n, sizeof(wbuf), 0, TB_DAT_OPT_STRINGS, 0, UINT32_MAX,
			   NULL, 0);
	n = dw_append_sect(wbuf, n, sizeof(wbuf), 0, TB_DAT_OPT_STRINGS, 0, UINT32_MAX,
			   "abc", 3);
	ck_assert_uint_gt(n, 0);
	ck_assert_int_eq(dat_open(&o, wbuf, n, NULL), TB_OK);
	ck_assert_uint_eq(o.d.strings.len, first + 9);
	ck_assert_uint_eq(o.d.need.scratch, first + 9);
	ck_assert_str_eq(tb_dat_section_name(&o.d, 0), "headers");
	ck_assert_str_eq(tb_dat_section_name(&o.d, (uint32_t)first), "extra");
	/* "abc" ends the table without a NUL */
	ck_assert_ptr_null(tb_dat_section_name(&o.d, (uint32_t)first + 6));
	dat_close(&o);
}
END_TEST

START_TEST(v7_compressed_strings_sections)
{
	dw_layout lay;
	size_t n = build(7, 1, NULL, &lay), base = n, first;
	opened o;
	ck_assert_int_eq(dat_open(&o, wbuf, n, &copy_dc), TB_OK);
	first = o.d.strings.len;
	dat_close(&o);
	n = dw_append_sect(wbuf, n, sizeof(wbuf), 0, TB_DAT_OPT_STRINGS, 1, UINT32_MAX,
			   "one", 4);
	n = dw_append_sect(wbuf, n, sizeof(wbuf), 0, TB_DAT_OPT_STRINGS, 1, UINT32_MAX,
			   "two", 4);
	ck_assert_int_eq(dat_open(&o, wbuf, n, &copy_dc), TB_OK);
	ck_assert_str_eq(tb_dat_section_name(&o.d, (uint32_t)first), "one");
	ck_assert_str_eq(tb_dat_section_name(&o.d, (uint32_t)first + 4), "two");
	dat_close(&o);
	/* a compressed body too short for its u32 sizes */
	n = dw_append_sect(wbuf, base, sizeof(wbuf), 0, TB_DAT_OPT_STRINGS, 0,
			   UINT32_MAX, "ab", 2);
	put_le(wbuf + base + 2, 1, 2);
	expect_fail(wbuf, n, TB_ERR_TRUNCATED, base + 16, &copy_dc);
	n = dw_append_sect(wbuf, base, sizeof(wbuf), 0, TB_DAT_OPT_STRINGS, 0,
			   UINT32_MAX, "abcdef", 6);
	put_le(wbuf + base + 2, 1, 2);
	expect_fail(wbuf, n, TB_ERR_TRUNCATED, base + 20, &copy_dc);
}
END_TEST

/* A compression name longer than any algorithm's is refused before the
 * decompressor sees it. */
START_TEST(v7_unknown_compression_name)
{
	dw_spec s;
	dw_layout lay;
	size_t n;
	dw_default(&s, 7);
	s.compress = 1;
	s.algo = "a-compression-name-longer-than-any-real-one";
	n = build_spec(&s, &lay);
	expect_fail(wbuf, n, TB_ERR_UNSUPPORTED, lay.header_sect, &copy_dc);
}
END_TEST

/* Compressed options sections: read from scratch at open; the re-walk
 * for callers does not decompress and says so. */
START_TEST(v7_compressed_options)
{
	dw_spec s;
	dw_layout lay;
	size_t n;
	opened o;
	unsigned counts[TB_DAT_OPT_COUNT_] = { 0 };
	dw_default(&s, 7);
	s.compress = 1;
	s.compress_options = 1;
	s.instance = "i";
	n = build_spec(&s, &lay);
	/* from no storage at all, as the NO_SPACE protocol starts */
	ck_assert_int_eq(dat_open(&o, wbuf, n, &copy_dc), TB_OK);
	ck_assert_int_ge(o.retries, 1);
	check_writer_file(&o.d, &lay);
	ck_assert_uint_eq(o.d.noption_sections, 2);
	ck_assert_uint_eq(o.d.nbuffers, 2);
	/* a decompressed text is placed at its section */
	ck_assert_uint_eq(o.d.uname.offset, lay.options_first);
	ck_assert_int_eq(tb_dat_foreach_option(&o.d, count_opt, counts, &o.err),
			 TB_ERR_UNSUPPORTED);
	ck_assert_uint_eq(o.err.offset, lay.options_first);
	dat_close(&o);
}
END_TEST

/* count_opt, stopping the walk after the first option */
static int stop_at_first(void *ctx, unsigned id, const uint8_t *payload,
			 uint32_t size, uint64_t offset)
{
	count_opt(ctx, id, payload, size, offset);
	return 1;
}

/* The options walk re-reads the file: a callback can stop it, and bytes
 * changed since open are reported, not trusted. */
START_TEST(option_walk_stops_and_rechecks)
{
	unsigned v;
	for (v = 6; v <= 7; v++) {
		dw_layout lay;
		size_t n = build(v, 0, NULL, &lay);
		opened o;
		unsigned first[TB_DAT_OPT_COUNT_] = { 0 }, counts[TB_DAT_OPT_COUNT_] = { 0 };
		ck_assert_int_eq(dat_open(&o, wbuf, n, NULL), TB_OK);
		ck_assert_int_eq(tb_dat_foreach_option(&o.d, stop_at_first, first,
						       &o.err), TB_OK);
		ck_assert_uint_eq(first[TB_DAT_OPT_TRACECLOCK], 1);
		ck_assert_uint_eq(first[TB_DAT_OPT_UNAME], 0);
		ck_assert_int_eq(tb_dat_foreach_option(NULL, count_opt, counts, &o.err),
				 TB_ERR_ARG);
		ck_assert_int_eq(tb_dat_foreach_option(&o.d, NULL, counts, &o.err),
				 TB_ERR_ARG);
		{
			tb_dat never;
			memset(&never, 0, sizeof(never));
			ck_assert_int_eq(tb_dat_foreach_option(&never, count_opt, counts,
							       &o.err), TB_ERR_ARG);
		}
		/* UNAME's size now runs past the end */
		put_le(wbuf + lay.uname_opt + 2, 0x7fffffff, 4);
		ck_assert_int_eq(tb_dat_foreach_option(&o.d, count_opt, counts, &o.err),
				 TB_ERR_TRUNCATED);
		ck_assert_uint_eq(o.err.offset, lay.uname_opt + 6);
		put_le(wbuf + lay.uname_opt + 2, 11, 4);
		if (v == 6) {
			/* the options tag is gone: nothing to walk */
			memcpy(wbuf + lay.v6_cpus + 4, "optionX  ", 10);
			memset(first, 0, sizeof(first));
			ck_assert_int_eq(tb_dat_foreach_option(&o.d, stop_at_first,
							       first, &o.err), TB_OK);
			ck_assert_uint_eq(first[TB_DAT_OPT_TRACECLOCK], 0);
		} else {
			/* the last DONE turned into an UNAME: the walk runs off
			 * the end of its section */
			put_le(wbuf + lay.done_opt2, TB_DAT_OPT_UNAME, 2);
			ck_assert_int_eq(tb_dat_foreach_option(&o.d, count_opt, counts,
							       &o.err), TB_ERR_TRUNCATED);
			ck_assert_uint_eq(o.err.offset, lay.done_opt2 + 14);
			/* a DONE of size 4 */
			put_le(wbuf + lay.done_opt2, TB_DAT_OPT_DONE, 2);
			put_le(wbuf + lay.done_opt2 + 2, 4, 4);
			ck_assert_int_eq(tb_dat_foreach_option(&o.d, count_opt, counts,
							       &o.err), TB_ERR_TRUNCATED);
			ck_assert_uint_eq(o.err.offset, lay.done_opt2 + 6);
			put_le(wbuf + lay.done_opt2 + 2, 8, 4);
			/* the first section now ends just after UNAME's id */
			put_le(wbuf + lay.options_first + 8,
			       lay.uname_opt + 2 - lay.options_first - 16, 8);
			ck_assert_int_eq(tb_dat_foreach_option(&o.d, count_opt, counts,
							       &o.err), TB_ERR_TRUNCATED);
			ck_assert_uint_eq(o.err.offset, lay.uname_opt + 2);
			/* the section's size past the end, then compressed */
			put_le(wbuf + lay.options_first + 8, n, 8);
			ck_assert_int_eq(tb_dat_foreach_option(&o.d, count_opt, counts,
							       &o.err), TB_ERR_TRUNCATED);
			ck_assert_uint_eq(o.err.offset, lay.options_first);
			build(v, 0, NULL, &lay);
			put_le(wbuf + lay.options_first + 2, 1, 2);
			ck_assert_int_eq(tb_dat_foreach_option(&o.d, count_opt, counts,
							       &o.err), TB_ERR_UNSUPPORTED);
			ck_assert_uint_eq(o.err.offset, lay.options_first);
		}
		dat_close(&o);
	}
}
END_TEST

/* Entry points refuse missing pointers and hand-made ranges that leave
 * the file. */
START_TEST(entry_point_arguments)
{
	dw_layout lay;
	size_t n = build(7, 1, NULL, &lay);
	opened o;
	tb_dat d;
	tb_error e;
	tb_dat_chunk_iter it;
	tb_dat_chunk ch;
	tb_dat_buffer fb;
	tb_dat_cpu fc;
	const tb_dat_buffer *top;
	uint8_t page[4096];
	size_t got;
	size_t max;
	ck_assert_int_eq(tb_dat_probe(NULL, 100), 0);
	ck_assert_int_eq(tb_dat_probe(wbuf, 9), 0);
	ck_assert_int_eq(tb_dat_probe(wbuf, n), 1);
	ck_assert_int_eq(tb_dat_open(&d, NULL, 10, NULL, NULL, &e), TB_ERR_ARG);
	ck_assert_int_eq(tb_dat_open(&d, NULL, 0, NULL, NULL, &e), TB_ERR_TRUNCATED);
	ck_assert_uint_eq(e.offset, 0);
	ck_assert_int_eq(dat_open(&o, wbuf, n, &copy_dc), TB_OK);
	top = &o.d.buffers[0];
	ck_assert_ptr_null(tb_dat_find_buffer(NULL, ""));
	ck_assert_ptr_null(tb_dat_find_buffer(&o.d, NULL));
	ck_assert_ptr_null(tb_dat_section_name(NULL, 0));
	ck_assert_int_eq(tb_dat_chunks_begin(NULL, &o.d, top, &top->cpus[0], &e), TB_ERR_ARG);
	ck_assert_int_eq(tb_dat_chunks_begin(&it, NULL, top, &top->cpus[0], &e), TB_ERR_ARG);
	ck_assert_int_eq(tb_dat_chunks_begin(&it, &o.d, NULL, &top->cpus[0], &e), TB_ERR_ARG);
	ck_assert_int_eq(tb_dat_chunks_begin(&it, &o.d, top, NULL, &e), TB_ERR_ARG);
	fb = *top;
	fb.compressed = 0;
	ck_assert_int_eq(tb_dat_chunks_begin(&it, &o.d, &fb, &top->cpus[0], &e), TB_ERR_ARG);
	ck_assert_int_eq(tb_dat_chunk_next(NULL, &ch, &e), TB_ERR_ARG);
	ck_assert_int_eq(tb_dat_chunk_next(&it, NULL, &e), TB_ERR_ARG);
	memset(&it, 0, sizeof(it));
	ck_assert_int_eq(tb_dat_chunk_next(&it, &ch, &e), TB_ERR_ARG);
	ck_assert_int_eq(tb_dat_chunk_max(NULL, top, &max, &e), TB_ERR_ARG);
	ck_assert_int_eq(tb_dat_chunk_max(&o.d, NULL, &max, &e), TB_ERR_ARG);
	ck_assert_int_eq(tb_dat_chunk_max(&o.d, top, NULL, &e), TB_ERR_ARG);
	ck_assert_int_eq(tb_dat_chunk_max(&o.d, top, &max, &e), TB_OK);
	ck_assert_uint_eq(max, 4096);
	/* a hand-made CPU range whose count lies past the end of the file
	 * (zeroed first: cut set by chance took the salvage path, which
	 * clang's UBSan build showed) */
	memset(&fc, 0, sizeof(fc));
	fc.cpu = 0;
	fc.offset = n - 2;
	fc.size = 100;
	ck_assert_int_eq(tb_dat_chunks_begin(&it, &o.d, top, &fc, &e), TB_ERR_TRUNCATED);
	ck_assert_uint_eq(e.offset, n - 2);
	/* one running past the end is cut at the end */
	fc.offset = lay.cpu_off[1];
	fc.size = n;
	ck_assert_int_eq(tb_dat_chunks_begin(&it, &o.d, top, &fc, &e), TB_OK);
	ck_assert_uint_eq(it.end, n);
	ck_assert_int_eq(tb_dat_chunk_next(&it, &ch, &e), TB_OK);
	ck_assert_uint_eq(ch.offset, lay.cpu_off[1] + 4);
	ck_assert_int_eq(tb_dat_chunk_inflate(NULL, top, &ch, page, sizeof(page), &got, &e), TB_ERR_ARG);
	ck_assert_int_eq(tb_dat_chunk_inflate(&o.d, NULL, &ch, page, sizeof(page), &got, &e), TB_ERR_ARG);
	ck_assert_int_eq(tb_dat_chunk_inflate(&o.d, top, NULL, page, sizeof(page), &got, &e), TB_ERR_ARG);
	ck_assert_int_eq(tb_dat_chunk_inflate(&o.d, top, &ch, NULL, sizeof(page), &got, &e), TB_ERR_ARG);
	ck_assert_int_eq(tb_dat_chunk_inflate(&o.d, top, &ch, page, sizeof(page), NULL, &e), TB_ERR_ARG);
	/* a buffer without a page size cannot check the chunk */
	fb = *top;
	fb.page_size = 0;
	ck_assert_int_eq(tb_dat_chunk_inflate(&o.d, &fb, &ch, page, sizeof(page), &got, &e),
			 TB_ERR_LENGTH);
	ck_assert_uint_eq(e.offset, ch.offset + 4);
	/* an empty chunk needs no memory */
	ch.usize = ch.csize = 0;
	ck_assert_int_eq(tb_dat_chunk_inflate(&o.d, top, &ch, NULL, 0, &got, &e), TB_OK);
	ck_assert_uint_eq(got, 0);
	dat_close(&o);
}
END_TEST

/* Compressed CPU data: the range's size may exclude the 4-byte chunk
 * count (as trace-cmd writes it) or include it; a chunk header cut by
 * the end of the range is an error at that header. */
START_TEST(chunk_framing)
{
	dw_layout lay;
	size_t n = build(7, 1, NULL, &lay), c0 = lay.buffer_cpu0, end;
	opened o;
	tb_dat_chunk_iter it;
	tb_dat_chunk ch;
	put_le(wbuf + c0 + 12, 4 + 8 + 4096, 8);
	ck_assert_int_eq(dat_open(&o, wbuf, n, &copy_dc), TB_OK);
	ck_assert_uint_eq(o.d.buffers[0].cpus[0].size, 4 + 8 + 4096);
	ck_assert_int_eq(tb_dat_chunks_begin(&it, &o.d, &o.d.buffers[0],
					     &o.d.buffers[0].cpus[0], &o.err), TB_OK);
	ck_assert_int_eq(tb_dat_chunk_next(&it, &ch, &o.err), TB_OK);
	ck_assert_int_eq(tb_dat_chunk_next(&it, &ch, &o.err), TB_END);
	dat_close(&o);
	/* two chunks declared; the first leaves 5 bytes of the range */
	n = build(7, 1, NULL, &lay);
	end = lay.cpu_off[0] + 4 + 8 + 4096;
	put_le(wbuf + lay.cpu_off[0], 2, 4);
	put_le(wbuf + lay.cpu_off[0] + 4, 4096 - 5, 4);
	ck_assert_int_eq(dat_open(&o, wbuf, n, &copy_dc), TB_OK);
	ck_assert_int_eq(tb_dat_chunks_begin(&it, &o.d, &o.d.buffers[0],
					     &o.d.buffers[0].cpus[0], &o.err), TB_OK);
	ck_assert_int_eq(tb_dat_chunk_next(&it, &ch, &o.err), TB_OK);
	ck_assert_uint_eq(ch.csize, 4091);
	ck_assert_int_eq(tb_dat_chunk_next(&it, &ch, &o.err), TB_ERR_TRUNCATED);
	ck_assert_uint_eq(o.err.offset, end - 5);
	dat_close(&o);
}
END_TEST

/* Partial storage: what fits is used, the rest is counted in need. */
START_TEST(partial_storage)
{
	dw_layout lay;
	size_t n = build(7, 1, "inst1", &lay);
	opened full;
	tb_dat d;
	tb_error e;
	tb_dat_storage st;
	ck_assert_int_eq(dat_open(&full, wbuf, n, &copy_dc), TB_OK);
	st = full.st;
	/* room for three of the four CPU ranges */
	st.cpus_cap = 3;
	ck_assert_int_eq(tb_dat_open(&d, wbuf, n, &st, &copy_dc, &e), TB_ERR_NO_SPACE);
	ck_assert_uint_eq(d.need.cpus, 4);
	/* scratch for only part of the decompressed sections */
	st = full.st;
	st.scratch_cap = 16;
	ck_assert_int_eq(tb_dat_open(&d, wbuf, n, &st, &copy_dc, &e), TB_ERR_NO_SPACE);
	ck_assert_uint_gt(d.need.scratch, 16);
	ck_assert_int_eq(tb_dat_open(&d, wbuf, n, &full.st, &copy_dc, &e), TB_OK);
	dat_close(&full);
}
END_TEST

/* Small fuzz seeds from the real sample: its header_page, one real ftrace
 * and one real event format, a few kallsyms/printk lines, its cmdlines
 * and the first two sub-buffers of each CPU.  Runs only when
 * TB_WRITE_SEEDS names a directory (ci/make-dat-seeds.sh). */
static const char *nth_lines(const tb_dat_text *t, size_t lines, char *out,
			     size_t cap)
{
	size_t i, n = 0;
	for (i = 0; i < t->len && n + 1 < cap; i++) {
		out[n++] = t->ptr[i];
		if (t->ptr[i] == '\n' && --lines == 0)
			break;
	}
	out[n] = 0;
	return out;
}

START_TEST(write_seeds)
{
	const char *dir = getenv("TB_WRITE_SEEDS");
	static char hp[512], ft[4096], ev[4096], ks[1024], pk[512], cm[1024];
	static uint8_t out[1 << 16];
	size_t n, i;
	uint8_t *p;
	opened o;
	dw_spec s;
	const tb_dat_buffer *top;
	static const struct { const char *name; unsigned v; int z; const char *inst; int be; } kinds[] = {
		{ "real-v6.dat", 6, 0, NULL, 0 },
		{ "real-v7.dat", 7, 0, NULL, 0 },
		{ "real-v7copy.dat", 7, 1, NULL, 0 },
		{ "real-v7inst.dat", 7, 0, "inst", 0 },
		{ "real-v6inst.dat", 6, 0, "inst", 0 },
		{ "real-v7be.dat", 7, 1, NULL, 1 },
	};
	if (!dir)
		return;
	p = load_sample(V7, &n);
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(dat_open(&o, p, n, NULL), TB_OK);
	dw_default(&s, 7);
	snprintf(hp, sizeof(hp), "%.*s", (int)o.d.header_page.len, o.d.header_page.ptr);
	s.header_page = hp;
	snprintf(ft, sizeof(ft), "%.*s", (int)o.d.events[0].format.len, o.d.events[0].format.ptr);
	s.ftrace_format = ft;
	for (i = o.d.nftrace; i < o.d.nevents; i++)
		if (!memcmp(o.d.events[i].format.ptr, "name: sched_switch\n", 19))
			break;
	ck_assert_uint_lt(i, o.d.nevents);
	snprintf(ev, sizeof(ev), "%.*s", (int)o.d.events[i].format.len, o.d.events[i].format.ptr);
	s.event_format = ev;
	s.kallsyms = nth_lines(&o.d.kallsyms, 8, ks, sizeof(ks));
	s.printk = nth_lines(&o.d.printk, 4, pk, sizeof(pk));
	s.cmdlines = nth_lines(&o.d.cmdlines, 20, cm, sizeof(cm));
	top = tb_dat_find_buffer(&o.d, "");
	for (i = 0; i < 2; i++) {
		s.cpu_data[i] = p + top->cpus[i].offset;
		s.cpu_size[i] = 2 * 4096;
	}
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		char path[4096];
		FILE *f;
		size_t len;
		s.version = kinds[i].v;
		s.compress = kinds[i].z;
		s.instance = kinds[i].inst;
		s.big_endian = kinds[i].be;
		len = dw_write(&s, out, sizeof(out), NULL);
		ck_assert_uint_gt(len, 0);
		snprintf(path, sizeof(path), "%s/%s", dir, kinds[i].name);
		f = fopen(path, "wb");
		ck_assert_ptr_nonnull(f);
		ck_assert_uint_eq(fwrite(out, 1, len, f), len);
		fclose(f);
	}
	dat_close(&o);
	free(p);
}
END_TEST

Suite *tb_suite_tracedat(void)
{
	Suite *s = suite_create("tracedat");
	TCase *t = tcase_create("container");
	tcase_set_timeout(t, 120);
	tcase_add_test(t, sample_v6);
	tcase_add_test(t, sample_v7);
	tcase_add_test(t, sample_v7zstd_matches_v7);
	tcase_add_test(t, zstd_file_without_decompressor);
	tcase_add_test(t, writer_v6);
	tcase_add_test(t, writer_v7);
	tcase_add_test(t, writer_v7_compressed);
	tcase_add_test(t, writer_instances);
	tcase_add_test(t, writer_big_endian);
	tcase_add_test(t, v6_cpucount_option_sets_table_size);
	tcase_add_test(t, no_space_protocol);
	tcase_add_test(t, every_prefix_fails);
	tcase_add_test(t, bad_initial_header);
	tcase_add_test(t, bad_lengths_and_counts);
	tcase_add_test(t, bad_options);
	tcase_add_test(t, bad_v7_chain);
	tcase_add_test(t, bad_v7_buffer);
	tcase_add_test(t, bad_v6_flyrecord);
	tcase_add_test(t, decompressor_contract);
	tcase_add_test(t, option_walk);
	tcase_add_test(t, time_shift_option);
	tcase_add_test(t, time_shift_errors);
	tcase_add_test(t, guest_option);
	tcase_add_test(t, guest_errors);
	tcase_add_test(t, date_and_offset_options);
	tcase_add_test(t, v6_section_options_are_unknown);
	tcase_add_test(t, btf_section);
	tcase_add_test(t, modules_section);
	tcase_add_test(t, latency_buffers);
	tcase_add_test(t, buffer_text_errors);
	tcase_add_test(t, v6_options_and_clock);
	tcase_add_test(t, v6_duplicate_buffers);
	tcase_add_test(t, v7_buffer_too_many_cpus);
	tcase_add_test(t, v7_options_chain_limit);
	tcase_add_test(t, v7_section_count_limit);
	tcase_add_test(t, v7_several_strings_sections);
	tcase_add_test(t, v7_compressed_strings_sections);
	tcase_add_test(t, v7_unknown_compression_name);
	tcase_add_test(t, v7_compressed_options);
	tcase_add_test(t, option_walk_stops_and_rechecks);
	tcase_add_test(t, entry_point_arguments);
	tcase_add_test(t, chunk_framing);
	tcase_add_test(t, partial_storage);
	tcase_add_test(t, write_seeds);
	suite_add_tcase(s, t);
	return s;
}
