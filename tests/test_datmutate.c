/*
 * Deterministic mutants of trace.dat files through the library: bit
 * flips, boundary values written into length/offset/count fields, and
 * truncation.  Run under `make sanitize` this is the "no crash, no hang,
 * no sanitizer report" evidence; here it also checks that every result
 * is OK or an error whose offset lies inside the input.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datwriter.h"
#include "mutate.h"
#include "testutil.h"
#include "tracebound/tracedat.h"
#include "zstd_dl.h"

Suite *tb_suite_datmutate(void);

static uint64_t rng_state;

static uint64_t rnd(void)
{
	return tb_mut_rand(&rng_state);
}

typedef struct mstore {
	tb_dat_event_text ev[4096];
	tb_dat_buffer bufs[16];
	tb_dat_cpu cpus[256];
	tb_dat_text stats[64];
	uint8_t *scratch;
	size_t scratch_cap;
	uint8_t page[1 << 16];
} mstore;

typedef struct tally {
	unsigned ok, malformed, other;
} tally;

/* Open and walk everything the library hands out. */
static void exercise(mstore *m, const uint8_t *p, size_t n, tally *t,
		     const tb_dat_decompressor *dcp)
{
	tb_dat d;
	tb_error e;
	tb_dat_storage st = { m->ev, 4096, m->bufs, 16, m->cpus, 256,
			      m->stats, 64, m->scratch, m->scratch_cap };
	tb_dat_decompressor dc = { dw_copy_decompress, NULL };
	tb_status s = tb_dat_open(&d, p, n, &st, dcp ? dcp : &dc, &e);
	size_t i, j;
	if (s != TB_OK) {
		ck_assert(tb_is_error(s));
		ck_assert_ptr_nonnull(e.what);
		if (tb_is_malformed(s)) {
			ck_assert_uint_le(e.offset, n);
			t->malformed++;
		} else {
			t->other++;
		}
		return;
	}
	t->ok++;
	for (i = 0; i < d.nbuffers; i++) {
		const tb_dat_buffer *b = &d.buffers[i];
		for (j = 0; j < b->ncpus; j++) {
			tb_dat_chunk_iter it;
			tb_dat_chunk ch;
			size_t got;
			ck_assert_uint_le(b->cpus[j].offset, n);
			ck_assert_uint_le(b->cpus[j].size, n - b->cpus[j].offset);
			if (!b->compressed ||
			    tb_dat_chunks_begin(&it, &d, b, &b->cpus[j], &e) != TB_OK)
				continue;
			while (tb_dat_chunk_next(&it, &ch, &e) == TB_OK)
				if (tb_dat_chunk_inflate(&d, b, &ch, m->page,
							 sizeof(m->page), &got, &e) == TB_OK)
					ck_assert_uint_eq(got, ch.usize);
		}
	}
	{
		static tb_ksym ks[64];
		static tb_printk_fmt pf[64];
		static tb_cmdline cm[64];
		tb_kallsyms kt = { ks, 0, 64, NULL };
		tb_printk_fmts pt = { pf, 0, 64 };
		tb_cmdlines ct = { cm, 0, 64 };
		if (d.kallsyms.len < 4096)
			(void)!tb_kallsyms_parse(&kt, d.kallsyms.ptr, d.kallsyms.len, &e);
		if (d.printk.len < 4096)
			(void)!tb_printk_parse(&pt, d.printk.ptr, d.printk.len, &e);
		(void)!tb_cmdlines_parse(&ct, d.cmdlines.ptr, d.cmdlines.len, &e);
	}
}

static void mutate(uint8_t *p, size_t n, const size_t *hot, size_t nhot)
{
	tb_mutate(p, n, hot, nhot, &rng_state);
}

static mstore *new_store(size_t scratch)
{
	mstore *m = calloc(1, sizeof(*m));
	m->scratch = malloc(scratch);
	m->scratch_cap = scratch;
	return m;
}

static void free_store(mstore *m)
{
	free(m->scratch);
	free(m);
}

/* Small writer files: every mutant is an exact-size heap copy. */
START_TEST(mutants_of_small_files)
{
	static uint8_t base[1 << 16];
	static const struct { unsigned v; int z; const char *inst; } kinds[] = {
		{ 6, 0, NULL }, { 6, 0, "a" }, { 7, 0, NULL }, { 7, 1, NULL },
		{ 7, 0, "a" }, { 7, 1, "a" }
	};
	mstore *m = new_store(1 << 20);
	tally t = { 0, 0, 0 };
	size_t k, i;
	rng_state = 0x9e3779b97f4a7c15ull;
	for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		dw_spec s;
		dw_layout lay;
		size_t n;
		size_t hot[16];
		dw_default(&s, kinds[k].v);
		s.compress = kinds[k].z;
		s.instance = kinds[k].inst;
		n = dw_write(&s, base, sizeof(base), &lay);
		ck_assert_uint_gt(n, 0);
		hot[0] = lay.endian;
		hot[1] = lay.page_size;
		hot[2] = lay.header_page_size;
		hot[3] = lay.uname_opt;
		hot[4] = lay.cpustat_opt;
		hot[5] = lay.cpucount_opt;
		hot[6] = lay.done_opt;
		hot[7] = lay.buffer_opt;
		hot[8] = lay.buffer_cpu0;
		hot[9] = lay.v6_fly;
		hot[10] = lay.options_first;
		hot[11] = lay.strings_sect;
		hot[12] = lay.header_sect;
		hot[13] = lay.cpu_off[0];
		hot[14] = lay.cpu_off[1];
		hot[15] = lay.systems_count;
		for (i = 0; i < 1000; i++) {
			size_t len = n, muts = 1 + (size_t)(rnd() % 3), j;
			uint8_t *c;
			if (rnd() % 8 == 0)
				len = (size_t)(rnd() % n);
			c = tb_test_dup(base, len);
			for (j = 0; j < muts; j++)
				mutate(c, len, hot, 16);
			exercise(m, c, len, &t, NULL);
			free(c);
		}
	}
	printf("datmutate: small files: %u mutants opened, %u malformed, %u other\n",
	       t.ok, t.malformed, t.other);
	ck_assert_uint_gt(t.ok, 100);
	ck_assert_uint_gt(t.malformed, 1000);
	free_store(m);
}
END_TEST

/* Record every option's offset (the hot spots of the real files). */
typedef struct hotset {
	size_t v[512];
	size_t n;
} hotset;

static int note_option(void *ctx, unsigned id, const uint8_t *payload,
		       uint32_t size, uint64_t offset)
{
	hotset *h = ctx;
	(void)id;
	(void)payload;
	(void)size;
	if (h->n < 512)
		h->v[h->n++] = (size_t)offset;
	return 0;
}

static void real_mutants(const char *rel, unsigned count, int zstd_file)
{
	const char *path = tb_test_path(rel);
	size_t n, i;
	uint8_t *p;
	mstore *m;
	tally t = { 0, 0, 0 };
	hotset h;
	tb_dat d;
	tb_error e;
	tb_dat_decompressor zdc = { tb_test_zstd, NULL };
	if (zstd_file && !tb_test_have_zstd()) {
		printf("datmutate: libzstd.so.1 not loadable, test skipped\n");
		return;
	}
	if (!tb_test_exists(path)) {
		printf("datmutate: %s missing, test skipped\n", rel);
		return;
	}
	p = tb_test_read_file(path, &n);
	m = new_store(16 << 20);
	memset(&h, 0, sizeof(h));
	{
		tb_dat_storage st = { m->ev, 4096, m->bufs, 16, m->cpus, 256,
				      m->stats, 64, m->scratch, m->scratch_cap };
		tb_status s = tb_dat_open(&d, p, n, &st, zstd_file ? &zdc : NULL, &e);
		ck_assert_int_eq(s, TB_OK);
		if (s == TB_OK) {
			ck_assert_int_eq(tb_dat_foreach_option(&d, note_option, &h, &e),
					 TB_OK);
			for (i = 0; i < d.nbuffers && h.n < 500; i++)
				h.v[h.n++] = (size_t)d.buffers[i].section_offset;
		}
		/* the header and the first sections */
		for (i = 0; i < 64 && h.n < 512; i++)
			h.v[h.n++] = i * 8;
	}
	rng_state = 0x2545f4914f6cdd1dull ^ n;
	for (i = 0; i < count; i++) {
		/* mutate in place and restore: a 10 MB copy per mutant is
		 * too slow; the library is told the (possibly shorter) length */
		uint8_t saved[64];
		size_t pos[8], k, muts = 1 + (size_t)(rnd() % 2), len = n;
		for (k = 0; k < muts; k++) {
			pos[k] = h.v[rnd() % h.n] + (size_t)(rnd() % 24);
			if (pos[k] + 8 > n)
				pos[k] = n - 8;
			memcpy(saved + 8 * k, p + pos[k], 8);
			mutate(p + pos[k], 8, NULL, 0);
		}
		if (rnd() % 10 == 0)
			len = (size_t)(rnd() % n);
		exercise(m, p, len, &t, zstd_file ? &zdc : NULL);
		for (k = muts; k-- > 0;)
			memcpy(p + pos[k], saved + 8 * k, 8);
	}
	printf("datmutate: %s: %u mutants opened, %u malformed, %u other\n", rel,
	       t.ok, t.malformed, t.other);
	ck_assert_uint_gt(t.malformed + t.other, count / 10);
	free_store(m);
	free(p);
}

START_TEST(mutants_of_real_v6)
{
	real_mutants("../shared/samples/sched4k.v6.dat", 1500, 0);
}
END_TEST

START_TEST(mutants_of_real_v7)
{
	real_mutants("../shared/samples/sched4k.v7.dat", 1500, 0);
}
END_TEST

START_TEST(mutants_of_real_v7zstd)
{
	/* zstd through the test's dlopen'ed decompressor */
	real_mutants("../shared/samples/sched4k.v7zstd.dat", 800, 1);
}
END_TEST

Suite *tb_suite_datmutate(void)
{
	Suite *s = suite_create("datmutate");
	TCase *t = tcase_create("mutants");
	tcase_set_timeout(t, 300);
	tcase_add_test(t, mutants_of_small_files);
	tcase_add_test(t, mutants_of_real_v6);
	tcase_add_test(t, mutants_of_real_v7);
	tcase_add_test(t, mutants_of_real_v7zstd);
	suite_add_tcase(s, t);
	return s;
}
