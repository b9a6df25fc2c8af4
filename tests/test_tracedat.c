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
							      1 << 20, &o.err),
					 TB_OK);
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
	ck_assert_int_eq(dat_open(&o, wbuf, n, &copy_dc), TB_OK);
	check_writer_file(&o.d, &lay);
	ck_assert_int_eq(o.d.buffers[0].compressed, 1);
	ck_assert_int_eq(tb_dat_chunks_begin(&it, &o.d, &o.d.buffers[0],
					     &o.d.buffers[0].cpus[1], &o.err),
			 TB_OK);
	ck_assert_int_eq(tb_dat_chunk_next(&it, &ch, &o.err), TB_OK);
	ck_assert_uint_eq(ch.usize, 4096);
	ck_assert_int_eq(tb_dat_chunk_inflate(&o.d, &o.d.buffers[0], &ch, page,
					      sizeof(page), &o.err), TB_OK);
	ck_assert_uint_eq(page[0], 2); /* CPU 1's page timestamp */
	ck_assert_int_eq(tb_dat_chunk_inflate(&o.d, &o.d.buffers[0], &ch, page,
					      100, &o.err), TB_ERR_NO_SPACE);
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
						      page, sizeof(page), &o.err),
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
	tcase_add_test(t, write_seeds);
	suite_add_tcase(s, t);
	return s;
}
