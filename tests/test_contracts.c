/* Promises of tracedat.h broken once and found by fuzzing the public API
 * (issue 15, items 3-5): each test fails without its fix. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "datwriter.h"
#include "pagewriter.h"
#include "testutil.h"
#include "tracebound/tracedat.h"

Suite *tb_suite_contracts(void);

static uint8_t file[1 << 16];
static uint8_t pages[2][3][4096];

/* Item 3: a v6 file declaring 0 CPUs opens with storage whose cpus is
 * NULL with capacity 0 (allowed by tb_dat_storage): no NULL + 0 (UBSan
 * flagged it), TB_OK, the top buffer with no CPU ranges. */
START_TEST(v6_zero_cpus_null_storage)
{
	dw_spec s;
	dw_layout lay;
	size_t n;
	tb_dat d;
	tb_error e;
	tb_dat_event_text ev[4];
	tb_dat_buffer bufs[2];
	tb_dat_storage st;
	dw_default(&s, 6);
	s.ncpus = 0;
	n = dw_write(&s, file, sizeof(file), &lay);
	ck_assert_uint_gt(n, 0);
	memset(&st, 0, sizeof(st));
	st.events = ev;
	st.events_cap = 4;
	st.buffers = bufs;
	st.buffers_cap = 2;
	ck_assert_int_eq(tb_dat_open(&d, file, n, &st, NULL, &e), TB_OK);
	ck_assert_uint_eq(d.cpu_count, 0);
	ck_assert_uint_eq(d.need.cpus, 0);
	ck_assert_uint_eq(d.nbuffers, 1);
	ck_assert_uint_eq(d.buffers[0].ncpus, 0);
	ck_assert_ptr_null(d.buffers[0].cpus);
}
END_TEST

typedef struct opened {
	tb_dat d;
	tb_dat_event_text ev[8];
	tb_dat_buffer bufs[4];
	tb_dat_cpu cpus[8];
	tb_dat_text cpustats[8];
	uint8_t scratch[1 << 15];
	tb_kbuf_layout layout;
	tb_dat_cursor cur[2];
	uint8_t chunks[2 * 3 * 4096];
	tb_dat_stream s;
} opened;

static const tb_dat_decompressor copy_dc = { dw_copy_decompress, NULL };

static void open_stream(opened *o, size_t n)
{
	tb_dat_storage st = { o->ev, 8, o->bufs, 4, o->cpus, 8, o->cpustats, 8,
			      o->scratch, sizeof(o->scratch) };
	tb_error e;
	size_t per_cpu;
	ck_assert_int_eq(tb_dat_open(&o->d, file, n, &st, &copy_dc, &e), TB_OK);
	ck_assert_int_eq(tb_kbuf_layout_from_header_page(o->d.header_page.ptr,
							 o->d.header_page.len, 0,
							 &o->layout, &e), TB_OK);
	ck_assert_int_eq(tb_dat_chunk_max(&o->d, &o->d.buffers[0], &per_cpu, &e), TB_OK);
	ck_assert_uint_le(per_cpu, 3 * 4096);
	ck_assert_int_eq(tb_dat_stream_init(&o->s, &o->d, &o->d.buffers[0], &o->layout,
					    o->cur, 2, o->chunks, per_cpu ? per_cpu : 1, 0, &e),
			 TB_OK);
}

/* CPU 0: three pages, two events each, the third page's commit too
 * large; CPU 1: one page of two events. */
static size_t write_file(dw_layout *lay, int compress)
{
	tbt_pw w;
	dw_spec s;
	uint8_t payload[8] = { 1, 0 };
	size_t n;
	memset(pages, 0, sizeof(pages));
	for (int p = 0; p < 3; p++) {
		tbt_pw_init(&w, pages[0][p], 4096, 0, 8, 1000u * (unsigned)(p + 1));
		tbt_pw_data(&w, 0, payload, sizeof(payload), 0);
		tbt_pw_data(&w, 5, payload, sizeof(payload), 0);
		if (p == 2)
			tbt_pw_commit(&w, 5000);
		else
			tbt_pw_finish(&w, 0, 0, 0);
	}
	tbt_pw_init(&w, pages[1][0], 4096, 0, 8, 1500);
	tbt_pw_data(&w, 0, payload, sizeof(payload), 0);
	tbt_pw_data(&w, 5, payload, sizeof(payload), 0);
	tbt_pw_finish(&w, 0, 0, 0);
	dw_default(&s, 7);
	s.compress = compress;
	s.cpu_data[0] = pages[0][0];
	s.cpu_size[0] = 3 * 4096;
	s.cpu_data[1] = pages[1][0];
	s.cpu_size[1] = 4096;
	n = dw_write(&s, file, sizeof(file), lay);
	ck_assert_uint_gt(n, 0);
	return n;
}

/* Items 4 and 5: the same events plain and compressed, each at the same
 * offset in its page (compressed, it was counted from the chunk start);
 * the bad page's error lies inside the file: compressed, at the header of
 * the chunk holding it (it was the chunk offset plus the offset inside
 * the decompressed chunk). */
START_TEST(compressed_offsets_in_page_and_in_file)
{
	uint32_t off[2][8];
	uint64_t err_off[2] = { 0, 0 };
	size_t count[2] = { 0, 0 }, n = 0;
	dw_layout lay[2];
	for (int z = 0; z < 2; z++) {
		opened *o = calloc(1, sizeof(*o));
		tb_dat_event ev;
		tb_error e;
		tb_status st;
		int errors = 0;
		ck_assert_ptr_nonnull(o);
		n = write_file(&lay[z], z);
		open_stream(o, n);
		ck_assert_int_eq(o->d.buffers[0].compressed, z);
		while ((st = tb_dat_stream_next(&o->s, &ev, &e)) != TB_END) {
			if (st != TB_OK) {
				ck_assert_int_eq(st, TB_ERR_LENGTH);
				ck_assert_uint_eq(o->s.error_cpu, 0);
				ck_assert_uint_eq(o->s.error_page, 2);
				ck_assert_uint_lt(e.offset, n);
				err_off[z] = e.offset;
				errors++;
				continue;
			}
			ck_assert_uint_lt(count[z], 8);
			ck_assert_uint_lt(ev.offset, 4096);
			off[z][count[z]++] = ev.offset;
		}
		ck_assert_int_eq(errors, 1);
		free(o);
	}
	ck_assert_uint_eq(count[0], 6);
	ck_assert_uint_eq(count[1], 6);
	for (size_t i = 0; i < 6; i++)
		ck_assert_uint_eq(off[1][i], off[0][i]);
	ck_assert_uint_eq(off[0][0], 16); /* first record after the 16-byte header */
	/* plain: the commit word of the third page; compressed: its chunk */
	ck_assert_uint_eq(err_off[0], lay[0].cpu_off[0] + 2 * 4096 + 8);
	ck_assert_uint_eq(err_off[1], lay[1].cpu_off[0] + 4);
}
END_TEST

/* Found by the tracedat harness's exact-storage check: a file whose BUFFER
 * option repeats a buffer name and then has bytes left over.  With room
 * for the buffers the name is checked first (TB_ERR_DUPLICATE); without,
 * the name could not be compared and the later fault came out instead
 * (TB_ERR_LENGTH), so growing storage changed the answer.  Now storage
 * that ran short gives TB_ERR_NO_SPACE, and grown to need, the same
 * error as large storage. */
START_TEST(error_same_whatever_the_storage)
{
	size_t n, round;
	uint8_t *p = tb_test_read_file(tb_test_path("corpus/tracedat/regress-error-depends-on-storage"),
				       &n);
	static tb_dat d;
	tb_dat_storage st;
	tb_error e, big_e;
	tb_status s = TB_ERR_NO_SPACE;
	tb_dat_event_text ev[64];
	tb_dat_buffer bufs[16];
	tb_dat_cpu cpus[64];
	tb_dat_text stats[16];
	static uint8_t scratch[1 << 16];
	tb_dat_storage big = { ev, 64, bufs, 16, cpus, 64, stats, 16, scratch, sizeof(scratch) };
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(tb_dat_open(&d, p, n, &big, NULL, &big_e), TB_ERR_DUPLICATE);
	memset(&st, 0, sizeof(st));
	for (round = 0; round < 4; round++) {
		s = tb_dat_open(&d, p, n, &st, NULL, &e);
		if (s != TB_ERR_NO_SPACE)
			break;
		ck_assert_uint_le(d.need.buffers, 16);
		ck_assert_uint_le(d.need.cpus, 64);
		ck_assert_uint_le(d.need.cpustats, 16);
		ck_assert_uint_le(d.need.events, 64);
		st.events = d.need.events ? ev : NULL;
		st.events_cap = d.need.events;
		st.buffers = d.need.buffers ? bufs : NULL;
		st.buffers_cap = d.need.buffers;
		st.cpus = d.need.cpus ? cpus : NULL;
		st.cpus_cap = d.need.cpus;
		st.cpustats = d.need.cpustats ? stats : NULL;
		st.cpustats_cap = d.need.cpustats;
	}
	ck_assert_uint_eq(round, 1); /* once with none, once grown */
	ck_assert_int_eq(s, TB_ERR_DUPLICATE);
	ck_assert_uint_eq(e.offset, big_e.offset);
	ck_assert_str_eq(e.what, big_e.what);
	free(p);
}
END_TEST

Suite *tb_suite_contracts(void)
{
	Suite *s = suite_create("contracts");
	TCase *t = tcase_create("core");
	tcase_add_test(t, v6_zero_cpus_null_storage);
	tcase_add_test(t, compressed_offsets_in_page_and_in_file);
	tcase_add_test(t, error_same_whatever_the_storage);
	suite_add_tcase(s, t);
	return s;
}
