/*
 * The sub-buffer walker: spec vectors (Perfetto pages, K1-K6), every
 * malformed class, every-prefix truncation of real pages, both byte
 * orders and long sizes via the page writer, random round trips,
 * header_page texts, read_buffer, read-at-offset, and a differential
 * test against libtraceevent's kbuffer over the real capture.
 */
#include <check.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/kbuffer.h>

#include "tracebound/kbuf.h"
#include "pagewriter.h"
#include "testutil.h"

#define PAGE 4096

/* The real capture: 145 + 370 sub-buffers of 4 KiB, 53,737 events. */
#define SAMPLE_EVENTS_CPU0 15353
#define SAMPLE_EVENTS_CPU1 38384

static tb_kbuf_layout lay(int be, unsigned long_size)
{
	tb_kbuf_layout l;
	ck_assert_int_eq(tb_kbuf_layout_init(&l, be, long_size, PAGE, 0), TB_OK);
	return l;
}

static uint64_t rd_le64(const uint8_t *p)
{
	uint64_t v = 0;
	int i;
	for (i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* Walk every record; returns the final status, counts events. */
static tb_status walk_all(tb_kbuf *kb, size_t *events, size_t *records)
{
	tb_kbuf_record r;
	tb_status st;
	size_t ev = 0, n = 0;
	while ((st = tb_kbuf_next(kb, &r)) == TB_OK) {
		n++;
		ev += r.kind == TB_KBUF_DATA;
		ck_assert_uint_le(n, PAGE / 4);
	}
	if (events)
		*events = ev;
	if (records)
		*records = n;
	return st;
}

/* ---- Perfetto page vectors (spec 5.2) ---- */

START_TEST(perfetto_page_header)
{
	static const uint8_t hdr[16] = { 0x3e, 0xf3, 0xdb, 0x77, 0x67, 0xa2, 0x01, 0x00,
					 0xf0, 0x0f, 0x00, 0x80, 0xff, 0xff, 0xff, 0xff };
	uint8_t *page = calloc(1, PAGE);
	tb_kbuf_layout l64 = lay(0, 8), l32 = lay(0, 4);
	tb_kbuf kb;
	tb_error e;
	tb_kbuf_record r;
	memcpy(page, hdr, sizeof(hdr));
	ck_assert_int_eq(tb_kbuf_open(&kb, &l64, page, PAGE, &e), TB_OK);
	ck_assert_uint_eq(tb_kbuf_page_ts(&kb), 0x0001A26777DBF33Eull);
	ck_assert_uint_eq(tb_kbuf_commit(&kb), 4080);
	ck_assert_int_eq(tb_kbuf_missed(&kb), -1);
	ck_assert_uint_eq(kb.layout.header_size, 16);
	/* The rest of the page is zeros: a zero data length (ABI_ZERO_DATA_LENGTH). */
	ck_assert_int_eq(tb_kbuf_next(&kb, &r), TB_ERR_LENGTH);
	ck_assert_uint_eq(tb_kbuf_error(&kb).offset, 20);
	ck_assert_str_eq(tb_kbuf_error(&kb).what, "zero data length");
	/* Sticky. */
	ck_assert_int_eq(tb_kbuf_next(&kb, &r), TB_ERR_LENGTH);
	ck_assert_int_eq(tb_kbuf_open(&kb, &l32, page, PAGE, &e), TB_OK);
	ck_assert_uint_eq(kb.layout.header_size, 12);
	ck_assert_uint_eq(tb_kbuf_commit(&kb), 4080);
	ck_assert_int_eq(tb_kbuf_missed(&kb), -1);
	free(page);
}
END_TEST

/* The 16-byte ftrace print header + a string, as Perfetto's pages hold. */
static size_t print_payload(uint8_t *p, int pid, const char *s, size_t slen)
{
	memset(p, 0, 16 + slen);
	p[0] = 5;                  /* common_type: print */
	p[3] = 1;                  /* preempt count */
	p[4] = (uint8_t)pid;
	p[5] = (uint8_t)(pid >> 8);
	p[8] = 0xac; p[9] = 0x5d; p[10] = 0x16; p[11] = 0x61;
	p[12] = 0x86; p[13] = 0xff; p[14] = 0xff; p[15] = 0xff;
	memcpy(p + 16, s, slen);
	return 16 + slen;
}

START_TEST(perfetto_single_print)
{
	uint8_t *page = malloc(PAGE), pl[64];
	tb_kbuf_layout l = lay(0, 8);
	tb_kbuf kb;
	tb_kbuf_record r;
	tbt_pw w;
	size_t n;
	tbt_pw_init(&w, page, PAGE, 0, 8, 0x000228C6336A12BAull);
	tbt_pw_u32(&w, 0x67ECF0DE);    /* TIME_EXTEND, delta 54486918 */
	tbt_pw_u32(&w, 0x218D);
	n = print_payload(pl, 28712, "Hello, world!\n\0\xff", 16);
	tbt_pw_data(&w, 0, pl, n, 0);
	tbt_pw_finish(&w, 0, 0, 0);
	ck_assert_uint_eq(rd_le64(page + 8), 44);
	ck_assert_uint_eq(page[16 + 8], 8); /* type_len 8 word 0x00000008 */
	ck_assert_int_eq(tb_kbuf_open(&kb, &l, page, PAGE, NULL), TB_OK);
	ck_assert_int_eq(tb_kbuf_next(&kb, &r), TB_OK);
	ck_assert_int_eq(r.kind, TB_KBUF_TIME_EXTEND);
	ck_assert_uint_eq(r.time_delta, 54486918);
	ck_assert_int_eq(tb_kbuf_next(&kb, &r), TB_OK);
	ck_assert_int_eq(r.kind, TB_KBUF_DATA);
	ck_assert_uint_eq(r.ts, 608934535199296ull);
	ck_assert_uint_eq(r.payload_len, 32);
	ck_assert_uint_eq(r.offset, 24);
	ck_assert_uint_eq(r.index, 8);
	ck_assert_uint_eq(r.size, 36);
	ck_assert_int_eq(r.payload[4] | r.payload[5] << 8, 28712);
	ck_assert_mem_eq(r.payload + 16, "Hello, world!\n", 14);
	ck_assert_int_eq(tb_kbuf_next(&kb, &r), TB_END);
	ck_assert_int_eq(tb_kbuf_next(&kb, &r), TB_END);
	free(page);
}
END_TEST

START_TEST(perfetto_three_prints)
{
	static const char msg[3][32] = { "Hello, world!\n", "Good afternoon, world!\n",
					    "Goodbye, world!\n" };
	static const uint64_t want[3] = { 615436216806307ull, 615486377231669ull,
					  615495632679049ull };
	uint8_t *page = malloc(PAGE), pl[64];
	tb_kbuf_layout l = lay(0, 8);
	tb_kbuf kb;
	tb_kbuf_record r;
	tbt_pw w;
	static const size_t slen[3] = { 16, 28, 17 }; /* type_len 8, 11, 9 */
	int i;
	tbt_pw_init(&w, page, PAGE, 0, 8, 615436216806307ull);
	tbt_pw_extend(&w, 0);
	tbt_pw_data(&w, 0, pl, print_payload(pl, 30693, msg[0], slen[0]), 0);
	tbt_pw_extend(&w, ((uint64_t)373 << 27) + 97212818);
	tbt_pw_data(&w, 0, pl, print_payload(pl, 30693, msg[1], slen[1]), 0);
	tbt_pw_extend(&w, ((uint64_t)68 << 27) + 128641876);
	tbt_pw_data(&w, 0, pl, print_payload(pl, 30693, msg[2], slen[2]), 0);
	tbt_pw_finish(&w, 0, 0, 0);
	ck_assert_uint_eq(rd_le64(page + 8), 148);
	ck_assert_int_eq(tb_kbuf_open(&kb, &l, page, PAGE, NULL), TB_OK);
	for (i = 0; i < 3; i++) {
		ck_assert_int_eq(tb_kbuf_next_event(&kb, &r), TB_OK);
		ck_assert_uint_eq(r.ts, want[i]);
		ck_assert_uint_eq(r.type_len, i == 0 ? 8 : i == 1 ? 11 : 9);
		ck_assert_str_eq((const char *)r.payload + 16, msg[i]);
	}
	ck_assert_int_eq(tb_kbuf_next_event(&kb, &r), TB_END);
	free(page);
}
END_TEST

START_TEST(perfetto_really_long_event)
{
	uint8_t *page = malloc(PAGE), pl[1024];
	char s[951];
	tb_kbuf_layout l = lay(0, 8);
	tb_kbuf kb;
	tb_kbuf_record r;
	tbt_pw w;
	size_t i;
	for (i = 0; i < sizeof(s) - 1; i++)
		s[i] = "qwertyuiop"[i % 10];
	memcpy(s + sizeof(s) - 5, "ppp\n", 5);
	tbt_pw_init(&w, page, PAGE, 0, 8, 1000);
	tbt_pw_data(&w, 0, pl, print_payload(pl, 1, s, 940), 0); /* 956 bytes */
	tbt_pw_data(&w, 3, pl, print_payload(pl, 1, "\n", 2), 0);
	tbt_pw_finish(&w, 0, 0, 0);
	ck_assert_uint_eq(page[16] & 31, 0);
	ck_assert_uint_eq(page[20] | page[21] << 8, 0x3C0);
	ck_assert_int_eq(tb_kbuf_open(&kb, &l, page, PAGE, NULL), TB_OK);
	ck_assert_int_eq(tb_kbuf_next_event(&kb, &r), TB_OK);
	ck_assert_uint_eq(r.payload_len, 956);
	ck_assert_uint_eq(r.size, 964);
	ck_assert_mem_eq(r.payload + 16, "qwerty", 6);
	ck_assert_int_eq(tb_kbuf_next_event(&kb, &r), TB_OK);
	ck_assert_uint_eq(r.ts, 1003);
	ck_assert_mem_eq(r.payload + 16, "\n", 2);
	ck_assert_int_eq(tb_kbuf_next_event(&kb, &r), TB_END);
	free(page);
}
END_TEST

/* ---- K1-K6 (spec 4.1) ---- */

/* A 64-bit LE page with one small event then whatever the test adds. */
static void k_page(tbt_pw *w, uint8_t *page, size_t size)
{
	static const uint8_t ev[8] = { 1, 0, 0, 0, 9, 0, 0, 0 };
	tbt_pw_init(w, page, size, 0, 8, 100);
	tbt_pw_data(w, 1, ev, sizeof(ev), 0);
}

/* An LE event header word. */
#define W(type_len, delta) ((uint32_t)(delta) << 5 | (type_len))

/* Walk and expect exactly `events` events, then error `st` at `off`. */
static void expect_fault(const uint8_t *page, size_t len, size_t events,
			 tb_status st, uint64_t off)
{
	tb_kbuf_layout l = lay(0, 8);
	tb_kbuf kb;
	size_t ev = 0;
	if (tb_kbuf_open(&kb, &l, page, len, NULL) == TB_OK)
		ck_assert_int_eq(walk_all(&kb, &ev, NULL), st);
	else
		ck_assert_int_eq(kb.status, st);
	ck_assert_uint_eq(ev, events);
	ck_assert_uint_eq(tb_kbuf_error(&kb).offset, off);
	ck_assert_int_eq(tb_kbuf_error(&kb).status, st);
}

/* [one good record when lead] w0 w1 [a good record]; commit as given
 * (0: all written); expect error st at off after `lead` events. */
static void k_words(int lead, uint32_t w0, uint32_t w1, uint32_t commit,
		    tb_status st, uint64_t off)
{
	uint8_t *page = malloc(PAGE);
	tbt_pw w;
	if (lead)
		k_page(&w, page, PAGE);
	else
		tbt_pw_init(&w, page, PAGE, 0, 8, 1);
	tbt_pw_u32(&w, w0);
	tbt_pw_u32(&w, w1);
	tbt_pw_data(&w, 0, "abcd", 4, 0);
	if (commit)
		tbt_pw_commit(&w, commit);
	else
		tbt_pw_finish(&w, 0, 0, 0);
	expect_fault(page, PAGE, (size_t)lead, st, off);
	free(page);
}

START_TEST(k1_length_fffffffc_is_an_error_not_a_loop)
{
	k_words(0, W(0, 0), 0xFFFFFFFCu, 64, TB_ERR_RANGE, 16);
}
END_TEST

START_TEST(k2_negative_length_does_not_walk_backwards)
{
	k_words(1, W(0, 0), 0xFFFFFFF4u, 0, TB_ERR_RANGE, 28);
}
END_TEST

START_TEST(k3_commit_past_small_buffer)
{
	uint8_t *buf = calloc(1, 32), *d;
	tbt_pw w;
	tbt_pw_init(&w, buf, 32, 0, 8, 1);
	tbt_pw_commit(&w, 4000);
	d = tb_test_dup(buf, 32);
	expect_fault(d, 32, 0, TB_ERR_TRUNCATED, 8);
	free(d);
	free(buf);
}
END_TEST

START_TEST(k4_stored_count_outside_buffer)
{
	uint8_t buf[24];
	tb_kbuf_layout l = lay(0, 8);
	tb_kbuf kb;
	uint8_t *d;
	tbt_pw w;
	tbt_pw_init(&w, buf, 24, 0, 8, 1);
	tbt_pw_commit(&w, 100u | 1u << 30 | 1u << 31);
	d = tb_test_dup(buf, 24);
	expect_fault(d, 24, 0, TB_ERR_TRUNCATED, 8);
	free(d);
	/* Commit inside, count not: the count is unknown, nothing is read. */
	tbt_pw_data(&w, 0, "abcd", 4, 0);
	tbt_pw_finish(&w, 1, 1, 42);
	d = tb_test_dup(buf, 24);
	ck_assert_int_eq(tb_kbuf_open(&kb, &l, d, 24, NULL), TB_OK);
	ck_assert_int_eq(tb_kbuf_missed(&kb), -1);
	free(d);
}
END_TEST

START_TEST(k5_padding_length_zero)
{
	k_words(1, W(29, 1), 0, 0, TB_ERR_LENGTH, 32);
}
END_TEST

START_TEST(k6_missed_count_with_leading_extend)
{
	uint8_t *page = malloc(PAGE);
	tb_kbuf_layout l = lay(0, 8);
	tb_kbuf kb;
	tb_kbuf_record r;
	struct kbuffer *k;
	int variant;
	for (variant = 0; variant < 2; variant++) {
		tbt_pw w;
		tbt_pw_init(&w, page, PAGE, 0, 8, 5000);
		if (variant)
			tbt_pw_extend(&w, 0);
		tbt_pw_data(&w, 0, "abcdefgh", 8, 0);
		tbt_pw_finish(&w, 1, 1, 42);
		ck_assert_int_eq(tb_kbuf_open(&kb, &l, page, PAGE, NULL), TB_OK);
		ck_assert_int_eq(tb_kbuf_missed(&kb), 42);
		ck_assert_int_eq(tb_kbuf_next_event(&kb, &r), TB_OK);
		ck_assert_uint_eq(r.ts, 5000);
		/* libtraceevent forgets the count behind the extend. */
		k = kbuffer_alloc(KBUFFER_LSIZE_8, KBUFFER_ENDIAN_LITTLE);
		kbuffer_load_subbuffer(k, page);
		ck_assert_int_eq(kbuffer_missed_events(k), variant ? 0 : 42);
		kbuffer_free(k);
	}
	free(page);
}
END_TEST

/* ---- Perfetto's error classes (spec 4.5) and other malformed pages ---- */

START_TEST(malformed_classes)
{
	/* After one good 12-byte record at 16: these words, this commit
	 * (0: exactly the words written), this error at this offset. */
	static const struct {
		const char *what;
		uint32_t words[6];
		unsigned nwords;
		uint32_t commit;
		tb_status st;
		uint64_t off;
	} cases[] = {
		{ "short event header", { 0 }, 0, 12 + 2, TB_ERR_TRUNCATED, 28 },
		{ "short data length word", { W(0, 0) }, 1, 16, TB_ERR_TRUNCATED, 28 },
		{ "data length 1..3", { W(0, 0), 3 }, 2, 0, TB_ERR_LENGTH, 32 },
		{ "short form past commit", { W(4, 0), 1, 2, 3, 4 }, 5, 12 + 12, TB_ERR_RANGE, 28 },
		{ "long form past commit", { W(0, 0), 20, 1, 2, 3, 4 }, 6, 12 + 20, TB_ERR_RANGE, 28 },
		{ "short padding length word", { W(29, 1) }, 1, 16, TB_ERR_TRUNCATED, 28 },
		{ "padding length below 4", { W(29, 1), 3 }, 2, 0, TB_ERR_LENGTH, 32 },
		{ "padding past commit", { W(29, 1), 60 }, 2, 12 + 60, TB_ERR_RANGE, 28 },
		{ "short time extend", { W(30, 5) }, 1, 16, TB_ERR_TRUNCATED, 28 },
		{ "short time stamp", { W(31, 5) }, 1, 16, TB_ERR_TRUNCATED, 28 },
	};
	uint8_t *page = malloc(PAGE);
	tbt_pw w;
	size_t i, j;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		k_page(&w, page, PAGE);
		for (j = 0; j < cases[i].nwords; j++)
			tbt_pw_u32(&w, cases[i].words[j]);
		if (cases[i].commit)
			tbt_pw_commit(&w, cases[i].commit);
		else
			tbt_pw_finish(&w, 0, 0, 0);
		expect_fault(page, PAGE, 1, cases[i].st, cases[i].off);
	}

	/* Commit beyond the data capacity, and past the bytes present. */
	k_page(&w, page, PAGE);
	tbt_pw_commit(&w, 4081);
	expect_fault(page, PAGE, 0, TB_ERR_LENGTH, 8);
	k_page(&w, page, PAGE);
	tbt_pw_commit(&w, 2000);
	expect_fault(page, 1000, 0, TB_ERR_TRUNCATED, 8);

	/* A header shorter than 16 bytes. */
	expect_fault(page, 15, 0, TB_ERR_TRUNCATED, 0);
	expect_fault(page, 0, 0, TB_ERR_TRUNCATED, 0);
	free(page);
}
END_TEST

START_TEST(null_padding_ends_data)
{
	uint8_t *page = malloc(PAGE);
	tb_kbuf_layout l = lay(0, 8);
	tb_kbuf kb;
	tb_kbuf_record r;
	tbt_pw w;
	k_page(&w, page, PAGE);
	tbt_pw_null_padding(&w);
	tbt_pw_u32(&w, 0);
	tbt_pw_data(&w, 0, "hidden!!", 8, 0);
	tbt_pw_finish(&w, 0, 0, 0);
	ck_assert_int_eq(tb_kbuf_open(&kb, &l, page, PAGE, NULL), TB_OK);
	ck_assert_int_eq(tb_kbuf_next(&kb, &r), TB_OK);
	ck_assert_int_eq(tb_kbuf_next(&kb, &r), TB_OK);
	ck_assert_int_eq(r.kind, TB_KBUF_PADDING);
	ck_assert_uint_eq(r.flags, TB_KBUF_REC_NULL_PAD);
	ck_assert_uint_eq(r.offset, 28);
	ck_assert_uint_eq(r.size, 20);
	ck_assert_int_eq(tb_kbuf_next(&kb, &r), TB_END);
	/* A lone null padding header of 4 bytes at the end of commit. */
	k_page(&w, page, PAGE);
	tbt_pw_null_padding(&w);
	tbt_pw_finish(&w, 0, 0, 0);
	ck_assert_int_eq(tb_kbuf_open(&kb, &l, page, PAGE, NULL), TB_OK);
	ck_assert_int_eq(walk_all(&kb, NULL, NULL), TB_END);
	free(page);
}
END_TEST

START_TEST(padding_delta_both_ways)
{
	uint8_t *page = malloc(PAGE);
	tb_kbuf_layout l;
	tb_kbuf kb;
	tb_kbuf_record r;
	tbt_pw w;
	unsigned flags;
	tbt_pw_init(&w, page, PAGE, 0, 8, 1000);
	tbt_pw_padding(&w, 50, 24);
	tbt_pw_data(&w, 7, "abcd", 4, 0);
	tbt_pw_finish(&w, 0, 0, 0);
	for (flags = 0; flags <= TB_KBUF_PAD_DELTA_IGNORE; flags += TB_KBUF_PAD_DELTA_IGNORE) {
		ck_assert_int_eq(tb_kbuf_layout_init(&l, 0, 8, PAGE, flags), TB_OK);
		ck_assert_int_eq(tb_kbuf_open(&kb, &l, page, PAGE, NULL), TB_OK);
		ck_assert_int_eq(tb_kbuf_next_event(&kb, &r), TB_OK);
		ck_assert_uint_eq(r.offset, 40);
		ck_assert_uint_eq(r.ts, flags ? 1007 : 1057);
	}
	free(page);
}
END_TEST

/* The time after an absolute stamp `stamp` on a page stamped `page_ts`;
 * the event after it gets the same time. */
static uint64_t time_after_stamp(uint64_t page_ts, uint64_t stamp)
{
	uint8_t *page = malloc(PAGE);
	tb_kbuf_layout l = lay(0, 8);
	tb_kbuf kb;
	tb_kbuf_record r;
	tbt_pw w;
	uint64_t ts;
	tbt_pw_init(&w, page, PAGE, 0, 8, page_ts);
	tbt_pw_stamp(&w, stamp);
	tbt_pw_data(&w, 0, "abcd", 4, 0);
	tbt_pw_finish(&w, 0, 0, 0);
	ck_assert_int_eq(tb_kbuf_open(&kb, &l, page, PAGE, NULL), TB_OK);
	ck_assert_int_eq(tb_kbuf_next(&kb, &r), TB_OK);
	ck_assert_int_eq(r.kind, TB_KBUF_TIME_STAMP);
	ts = r.ts;
	ck_assert_int_eq(tb_kbuf_next_event(&kb, &r), TB_OK);
	ck_assert_uint_eq(r.ts, ts);
	free(page);
	return ts;
}

START_TEST(absolute_stamp_top_bits_and_wrap)
{
	const uint64_t top = 0x0800000000000000ull; /* bit 59 */
	/* Plain: a 59-bit value replaces the running time. */
	ck_assert_uint_eq(time_after_stamp(1000, 0x123456789abcull), 0x123456789abcull);
	/* Top bits come from the running time. */
	ck_assert_uint_eq(time_after_stamp(top | 1000, 2000), top | 2000);
	/* Going below the running time wraps by 2^59, as the kernel does. */
	ck_assert_uint_eq(time_after_stamp(top | 5000, 10), (top | 10) + (1ull << 59));
	/* Without top bits there is no wrap: the stamp may go back. */
	ck_assert_uint_eq(time_after_stamp(5000, 10), 10);
}
END_TEST

START_TEST(upper_commit_bits_ignored)
{
	uint8_t *page = malloc(PAGE);
	tb_kbuf_layout l = lay(0, 8);
	tb_kbuf kb;
	size_t ev;
	tbt_pw w;
	k_page(&w, page, PAGE);
	tbt_pw_commit(&w, 0xffffffff00000000ull | 12);
	ck_assert_int_eq(tb_kbuf_open(&kb, &l, page, PAGE, NULL), TB_OK);
	ck_assert_int_eq(tb_kbuf_missed(&kb), 0);
	ck_assert_uint_eq(tb_kbuf_commit(&kb), 12);
	ck_assert_int_eq(walk_all(&kb, &ev, NULL), TB_END);
	ck_assert_uint_eq(ev, 1);
	/* Bits 27..29 are masked off too. */
	tbt_pw_commit(&w, 0x38000000ull | 12);
	ck_assert_int_eq(tb_kbuf_open(&kb, &l, page, PAGE, NULL), TB_OK);
	ck_assert_uint_eq(tb_kbuf_commit(&kb), 12);
	free(page);
}
END_TEST

/* ---- byte orders, long sizes, random round trips ---- */

START_TEST(both_orders_both_longs)
{
	static const uint8_t pl[] = "event payload 123";
	int be;
	unsigned ls;
	for (be = 0; be < 2; be++)
		for (ls = 4; ls <= 8; ls += 4) {
			uint8_t *page = malloc(PAGE);
			tb_kbuf_layout l = lay(be, ls);
			tb_kbuf kb;
			tb_kbuf_record r;
			tbt_pw w;
			tbt_pw_init(&w, page, PAGE, be, ls, 77);
			tbt_pw_extend(&w, 1ull << 40);
			tbt_pw_data(&w, 3, pl, sizeof(pl), 0);
			tbt_pw_padding(&w, 2, 16);
			tbt_pw_data(&w, 5, pl, sizeof(pl), 1);
			tbt_pw_finish(&w, 1, 1, 7);
			ck_assert_int_eq(tb_kbuf_open(&kb, &l, page, PAGE, NULL), TB_OK);
			ck_assert_uint_eq(tb_kbuf_page_ts(&kb), 77);
			ck_assert_int_eq(tb_kbuf_missed(&kb), 7);
			ck_assert_int_eq(tb_kbuf_next_event(&kb, &r), TB_OK);
			ck_assert_uint_eq(r.ts, 77 + (1ull << 40) + 3);
			ck_assert_uint_eq(r.offset, 8 + ls + 8);
			ck_assert_uint_eq(r.payload_len, 20);
			ck_assert_mem_eq(r.payload, pl, sizeof(pl));
			ck_assert_int_eq(tb_kbuf_next_event(&kb, &r), TB_OK);
			ck_assert_uint_eq(r.type_len, 0);
			ck_assert_uint_eq(r.ts, 77 + (1ull << 40) + 10);
			ck_assert_mem_eq(r.payload, pl, sizeof(pl));
			ck_assert_int_eq(tb_kbuf_next_event(&kb, &r), TB_END);
			free(page);
		}
}
END_TEST

static uint64_t rng_state;
static uint32_t rnd(void)
{
	rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(rng_state >> 33);
}

typedef struct exp_rec {
	uint8_t kind;
	uint64_t ts;
	uint32_t off, len;
} exp_rec;

/* Random records into pages of every configuration; walk them back. */
START_TEST(random_round_trip)
{
	enum { PAGES = 300, MAXR = 600 };
	uint8_t *page = malloc(PAGE), pl[300];
	exp_rec *want = malloc(sizeof(exp_rec) * MAXR);
	size_t total = 0, p;
	rng_state = 0x5eed;
	for (p = 0; p < PAGES; p++) {
		int be = (int)(p & 1);
		unsigned ls = (p & 2) ? 4 : 8, flags = (p & 4) ? TB_KBUF_PAD_DELTA_IGNORE : 0;
		uint64_t ts = ((uint64_t)rnd() << 20) | rnd();
		tb_kbuf_layout l;
		tb_kbuf kb;
		tb_kbuf_record r;
		tbt_pw w;
		size_t n = 0, i;
		ck_assert_int_eq(tb_kbuf_layout_init(&l, be, ls, PAGE, flags), TB_OK);
		tbt_pw_init(&w, page, PAGE, be, ls, ts);
		for (;;) {
			uint32_t k = rnd() % 10, d = rnd() & ((1u << 27) - 1);
			size_t before = w.pos;
			exp_rec e = { TB_KBUF_DATA, 0, (uint32_t)w.pos, 0 };
			if (k < 6) {
				size_t len = 1 + rnd() % (k == 5 ? 280 : 100), j;
				for (j = 0; j < len; j++)
					pl[j] = (uint8_t)rnd();
				tbt_pw_data(&w, d, pl, len, k == 5);
				e.len = (uint32_t)((len + 3) & ~(size_t)3);
				ts += d;
			} else if (k == 6) {
				tbt_pw_padding(&w, d | 1, 8 + 4 * (rnd() % 20));
				e.kind = TB_KBUF_PADDING;
				if (!flags)
					ts += d | 1;
			} else if (k == 7 || k == 8) {
				uint64_t x = ((uint64_t)rnd() << 27 | d) & ((1ull << 50) - 1);
				tbt_pw_extend(&w, x);
				e.kind = TB_KBUF_TIME_EXTEND;
				ts += x;
			} else {
				ts = ((uint64_t)rnd() << 24) | d;
				tbt_pw_stamp(&w, ts);
				e.kind = TB_KBUF_TIME_STAMP;
			}
			if (w.overflow) {
				w.pos = before;
				break;
			}
			e.ts = ts;
			want[n++] = e;
			ck_assert_uint_lt(n, MAXR);
		}
		tbt_pw_finish(&w, 0, 0, 0);
		ck_assert_int_eq(tb_kbuf_open(&kb, &l, page, PAGE, NULL), TB_OK);
		for (i = 0; i < n; i++) {
			ck_assert_int_eq(tb_kbuf_next(&kb, &r), TB_OK);
			ck_assert_int_eq(r.kind, want[i].kind);
			ck_assert_uint_eq(r.offset, want[i].off);
			ck_assert_uint_eq(r.ts, want[i].ts);
			if (r.kind == TB_KBUF_DATA)
				ck_assert_uint_eq(r.payload_len, want[i].len);
		}
		ck_assert_int_eq(tb_kbuf_next(&kb, &r), TB_END);
		total += n;
	}
	ck_assert_uint_gt(total, 5000);
	free(want);
	free(page);
}
END_TEST

/* ---- header_page texts ---- */

static const char hp64[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n";

static const char hp32[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield: char data;\toffset:12;\tsize:4084;\tsigned:1;\n";

START_TEST(header_page_texts)
{
	tb_kbuf_layout l;
	tb_error e;
	size_t len;
	char *real = (char *)tb_test_read_file(tb_test_path("tests/data/raw-sched4k/header_page"), &len);
	ck_assert_ptr_nonnull(real);
	ck_assert_int_eq(tb_kbuf_layout_from_header_page(real, len, 0, &l, &e), TB_OK);
	ck_assert_uint_eq(l.long_size, 8);
	ck_assert_uint_eq(l.header_size, 16);
	ck_assert_uint_eq(l.subbuf_size, 4096);
	ck_assert_uint_eq(l.data_capacity, 4080);
	free(real);
	ck_assert_int_eq(tb_kbuf_layout_from_header_page(hp64, strlen(hp64), 1, &l, &e), TB_OK);
	ck_assert_uint_eq(l.big_endian, 1);
	ck_assert_int_eq(tb_kbuf_layout_from_header_page(hp32, strlen(hp32), 0, &l, &e), TB_OK);
	ck_assert_uint_eq(l.long_size, 4);
	ck_assert_uint_eq(l.header_size, 12);
	ck_assert_uint_eq(l.data_capacity, 4084);
	/* A 32-bit kernel with 64-bit aligned data: a 4-byte commit, data at 16. */
	{
		static const char t[] = "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
					"\tfield: local_t commit;\toffset:8;\tsize:4;\tsigned:1;\n"
					"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:1;\n";
		ck_assert_int_eq(tb_kbuf_layout_from_header_page(t, strlen(t), 0, &l, &e), TB_OK);
		ck_assert_uint_eq(l.long_size, 4);
		ck_assert_uint_eq(l.header_size, 16);
	}
	/* A 64 KiB sub-buffer kernel, without signed: and without a final newline. */
	{
		static const char t[] = "field: u64 timestamp; offset:0; size:8;\n"
					"field: local_t commit; offset:8; size:8;\n"
					"field: char data; offset:16; size:65520;";
		ck_assert_int_eq(tb_kbuf_layout_from_header_page(t, strlen(t), 0, &l, &e), TB_OK);
		ck_assert_uint_eq(l.subbuf_size, 65536);
	}
}
END_TEST

static void hp_bad(const char *text, tb_status st, uint64_t off)
{
	tb_kbuf_layout l;
	tb_error e;
	ck_assert_int_eq(tb_kbuf_layout_from_header_page(text, strlen(text), 0, &l, &e), st);
	ck_assert_int_eq(e.status, st);
	ck_assert_uint_eq(e.offset, off);
}

START_TEST(header_page_errors)
{
	char t[512];
	hp_bad("", TB_ERR_UNSUPPORTED, 0);
	/* Commit missing. */
	hp_bad("\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	       "\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n", TB_ERR_SYNTAX, 102);
	/* Commit size 2. */
	strcpy(t, hp64);
	memcpy(strstr(t, "size:8;\tsigned:1"), "size:2", 6);
	hp_bad(t, TB_ERR_VALUE, 51);
	/* Timestamp not at 0. */
	strcpy(t, hp64);
	memcpy(strstr(t, "offset:0"), "offset:4", 8);
	hp_bad(t, TB_ERR_VALUE, 0);
	/* Data size not making a power-of-two sub-buffer. */
	strcpy(t, hp64);
	memcpy(strstr(t, "4080"), "4000", 4);
	hp_bad(t, TB_ERR_VALUE, (uint64_t)(strstr(t, "\tfield: char data") - t));
	/* Data offset 12 after an 8-byte commit. */
	strcpy(t, hp64);
	memcpy(strstr(t, "offset:16"), "offset:12", 9);
	hp_bad(t, TB_ERR_VALUE, (uint64_t)(strstr(t, "\tfield: char data") - t));
	/* Garbage lines, bad numbers, duplicates. */
	hp_bad("hello\n", TB_ERR_SYNTAX, 0);
	/* (the format grammar parses these lines: errors name the offending byte) */
	hp_bad("\tfield: u64 timestamp;\toffset:x;\tsize:8;\n", TB_ERR_SYNTAX, 30);
	hp_bad("\tfield: u64 timestamp;\toffset:0;\tsize:8;\n\tfield:u64 timestamp;\toffset:0;\tsize:8;\n",
	       TB_ERR_DUPLICATE, 41);
	hp_bad("\tfield: u64 timestamp;\toffset:0\n", TB_ERR_SYNTAX, 31);
	hp_bad("\tfield: timestamp;\toffset:0;\tsize:8;\n", TB_ERR_SYNTAX, 8);
	hp_bad("\tfield: u64 timestamp;\toffset:0;\tbogus:1;\n", TB_ERR_SYNTAX, 33);
	hp_bad("\tfield: u64 timestamp;\tsize:8;\n", TB_ERR_SYNTAX, 30);
	/* A timestamp after the commit word (no overlap, still not the kernel's). */
	hp_bad("\tfield: u64 timestamp;\toffset:16;\tsize:8;\tsigned:0;\n"
	       "\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	       "\tfield: char data;\toffset:24;\tsize:4072;\tsigned:0;\n", TB_ERR_VALUE, 0);
	/* A 2 MiB sub-buffer: over TB_KBUF_SUBBUF_MAX, named at the data line. */
	strcpy(t, hp64);
	memcpy(strstr(t, "size:4080;"), "size:2097136;", 13);
	strcpy(strstr(t, "size:2097136;") + 13, "\tsigned:0;\n");
	hp_bad(t, TB_ERR_VALUE, (uint64_t)(strstr(t, "\tfield: char data") - t));
}
END_TEST

/* Every entry point refuses missing pointers without touching them:
 * TB_ERR_ARG, or a neutral value from the getters. */
START_TEST(null_arguments)
{
	static const char hp[] = "field: u64 timestamp; offset:0; size:8;\n";
	uint8_t page[4096] = { 0 }, out[4096];
	tb_kbuf_layout l;
	tb_kbuf kb;
	tb_kbuf_record rec;
	tb_kbuf_stream s;
	tb_status st = TB_OK;
	tb_error e;
	size_t n = 7;
	ck_assert_int_eq(tb_kbuf_layout_init(&l, 0, 8, 4096, 0), TB_OK);
	ck_assert_int_eq(tb_kbuf_layout_from_header_page(hp, sizeof(hp) - 1, 0, NULL, &e),
			 TB_ERR_ARG);
	ck_assert_int_eq(e.status, TB_ERR_ARG);
	ck_assert_int_eq(tb_kbuf_layout_from_header_page(NULL, 5, 0, &l, &e), TB_ERR_ARG);
	ck_assert_int_eq(tb_kbuf_open(&kb, NULL, page, sizeof(page), &e), TB_ERR_ARG);
	ck_assert_int_eq(tb_kbuf_open(&kb, &l, NULL, 16, &e), TB_ERR_ARG);

	ck_assert_int_eq(tb_kbuf_next(NULL, &rec), TB_ERR_ARG);
	ck_assert_int_eq(tb_kbuf_next_event(NULL, &rec), TB_ERR_ARG);
	ck_assert_uint_eq(tb_kbuf_next_events(NULL, &rec, 1, &st), 0);
	ck_assert_int_eq(st, TB_ERR_ARG);
	ck_assert_int_eq(tb_kbuf_read_at_offset(NULL, 0, &rec), TB_ERR_ARG);
	ck_assert_uint_eq(tb_kbuf_missed(NULL), 0);
	ck_assert_uint_eq(tb_kbuf_page_ts(NULL), 0);
	ck_assert_uint_eq(tb_kbuf_commit(NULL), 0);
	ck_assert_int_eq(tb_kbuf_error(NULL).status, TB_OK);
	tb_kbuf_rewind(NULL);
	ck_assert_int_eq(tb_kbuf_read_buffer(NULL, out, sizeof(out), &n), TB_ERR_ARG);
	ck_assert_uint_eq(n, 0);
	tb_kbuf_stream_init(NULL, &l, page, sizeof(page));
	ck_assert_int_eq(tb_kbuf_stream_next(NULL, &kb, &e), TB_ERR_ARG);

	/* an open cursor with the record (or the output) missing */
	ck_assert_int_eq(tb_kbuf_open(&kb, &l, page, sizeof(page), &e), TB_OK);
	ck_assert_int_eq(tb_kbuf_next(&kb, NULL), TB_ERR_ARG);
	ck_assert_int_eq(tb_kbuf_next_event(&kb, NULL), TB_ERR_ARG);
	ck_assert_int_eq(tb_kbuf_read_at_offset(&kb, 0, NULL), TB_ERR_ARG);
	ck_assert_uint_eq(tb_kbuf_next_events(&kb, NULL, 1, NULL), 0);
	ck_assert_uint_eq(tb_kbuf_next_events(&kb, NULL, 0, &st), 0);
	ck_assert_int_eq(st, TB_OK); /* asked for nothing: nothing wrong */
	ck_assert_int_eq(tb_kbuf_read_buffer(&kb, NULL, 16, NULL), TB_ERR_ARG);
	ck_assert_int_eq(tb_kbuf_stream_next(&s, NULL, &e), TB_ERR_ARG);
	/* a stream with no layout or no data has nothing to give */
	tb_kbuf_stream_init(&s, NULL, NULL, 99);
	ck_assert_int_eq(tb_kbuf_stream_next(&s, &kb, &e), TB_END);
}
END_TEST

START_TEST(layout_arguments)
{
	tb_kbuf_layout l;
	ck_assert_int_eq(tb_kbuf_layout_init(&l, 0, 8, 4096, 0), TB_OK);
	ck_assert_int_eq(tb_kbuf_layout_init(&l, 0, 8, 1u << 20, 0), TB_OK);
	ck_assert_int_eq(tb_kbuf_layout_init(&l, 0, 8, 2048, 0), TB_ERR_ARG);
	ck_assert_int_eq(tb_kbuf_layout_init(&l, 0, 8, (1u << 20) * 2, 0), TB_ERR_ARG);
	ck_assert_int_eq(tb_kbuf_layout_init(&l, 0, 8, 12288, 0), TB_ERR_ARG);
	ck_assert_int_eq(tb_kbuf_layout_init(&l, 0, 2, 4096, 0), TB_ERR_ARG);
	ck_assert_int_eq(tb_kbuf_layout_init(&l, 0, 8, 4096, 0x80), TB_ERR_ARG);
	ck_assert_int_eq(tb_kbuf_layout_init_ex(&l, 0, 4, 16, 4096, 0), TB_OK);
	ck_assert_uint_eq(l.data_capacity, 4080);
	ck_assert_int_eq(tb_kbuf_layout_init_ex(&l, 0, 8, 12, 4096, 0), TB_ERR_ARG);
	ck_assert_int_eq(tb_kbuf_layout_init(NULL, 0, 8, 4096, 0), TB_ERR_ARG);
	l.data_capacity = 9999;
	{
		tb_kbuf kb;
		tb_error e;
		uint8_t b[16] = { 0 };
		ck_assert_int_eq(tb_kbuf_open(&kb, &l, b, 16, &e), TB_ERR_ARG);
		ck_assert_int_eq(e.status, TB_ERR_ARG);
		ck_assert_int_eq(tb_kbuf_open(NULL, &l, b, 16, &e), TB_ERR_ARG);
	}
	ck_assert_str_eq(tb_kbuf_kind_name(TB_KBUF_TIME_EXTEND), "time_extend");
	ck_assert_str_eq(tb_kbuf_kind_name(9), "unknown");
}
END_TEST

/* ---- real pages ---- */

typedef struct sample {
	uint8_t *data;
	size_t len;
} sample;

static sample load_sample(const char *name)
{
	sample s;
	char rel[128];
	snprintf(rel, sizeof(rel), "tests/data/raw-sched4k/%s", name);
	s.data = tb_test_read_file(tb_test_path(rel), &s.len);
	ck_assert_ptr_nonnull(s.data);
	ck_assert_uint_eq(s.len % PAGE, 0);
	return s;
}

/* Every prefix of several real pages: error or clean end, nothing outside. */
START_TEST(every_prefix_of_real_pages)
{
	static const size_t which[] = { 0, 1, 200, 369 };
	sample s = load_sample("cpu1.raw");
	tb_kbuf_layout l = lay(0, 8);
	size_t i;
	for (i = 0; i < sizeof(which) / sizeof(which[0]); i++) {
		const uint8_t *full = s.data + which[i] * PAGE;
		tb_kbuf kb;
		size_t full_events = 0, plen;
		ck_assert_int_eq(tb_kbuf_open(&kb, &l, full, PAGE, NULL), TB_OK);
		ck_assert_int_eq(walk_all(&kb, &full_events, NULL), TB_END);
		ck_assert_uint_gt(full_events, 10);
		for (plen = 0; plen <= PAGE; plen++) {
			uint8_t *pre = tb_test_dup(full, plen);
			tb_kbuf_record r;
			tb_status st;
			size_t n = 0, ev = 0;
			uint32_t last = 0;
			if (tb_kbuf_open(&kb, &l, pre, plen, NULL) == TB_OK) {
				while ((st = tb_kbuf_next(&kb, &r)) == TB_OK) {
					ck_assert_uint_ge(r.offset, 16);
					ck_assert_uint_gt(r.offset + 1, last);
					last = r.offset + 1;
					ck_assert_uint_le(r.offset + r.size, plen);
					if (r.kind == TB_KBUF_DATA) {
						ck_assert(r.payload >= pre && r.payload + r.payload_len <= pre + plen);
						ev++;
					}
					ck_assert_uint_le(++n, plen / 4);
				}
				ck_assert_int_eq(st, TB_END);
				ck_assert_uint_eq(ev, full_events);
				/* Page 0 stores its missed count right after commit:
				 * read only when all 8 bytes are in the prefix. */
				if (which[i] == 0)
					ck_assert_int_eq(tb_kbuf_missed(&kb),
							 plen >= 16 + 0xfc4 + 8 ? 145271 : -1);
			} else {
				ck_assert(plen < 16 || plen < 16 + (kb.raw_commit & 0x7ffffff));
				ck_assert_int_eq(tb_kbuf_next(&kb, &r), TB_ERR_TRUNCATED);
			}
			free(pre);
		}
	}
	free(s.data);
}
END_TEST

/* The whole capture, compared with libtraceevent's kbuffer event by event. */
static size_t diff_dump(const uint8_t *data, size_t len, const tb_kbuf_layout *l)
{
	struct kbuffer *k = kbuffer_alloc(l->long_size == 8 ? KBUFFER_LSIZE_8 : KBUFFER_LSIZE_4,
					  l->big_endian ? KBUFFER_ENDIAN_BIG : KBUFFER_ENDIAN_LITTLE);
	tb_kbuf_stream s;
	tb_kbuf kb;
	size_t events = 0;
	ck_assert_ptr_nonnull(k);
	tb_kbuf_stream_init(&s, l, data, len);
	for (;;) {
		tb_status st = tb_kbuf_stream_next(&s, &kb, NULL);
		if (st == TB_END)
			break;
		ck_assert_int_eq(st, TB_OK);
		unsigned long long kts;
		tb_kbuf_record r;
		void *kev;
		ck_assert_int_eq(kbuffer_load_subbuffer(k, (void *)(uintptr_t)(data + s.subbuf_offset)), 0);
		ck_assert_int_eq(kbuffer_missed_events(k), tb_kbuf_missed(&kb));
		kev = kbuffer_read_event(k, &kts);
		while (tb_kbuf_next_event(&kb, &r) == TB_OK) {
			ck_assert_ptr_nonnull(kev);
			ck_assert_ptr_eq(kev, r.payload);
			ck_assert_uint_eq(kts, r.ts);
			ck_assert_int_eq(kbuffer_event_size(k), (int)r.payload_len);
			ck_assert_int_eq(kbuffer_curr_size(k), (int)r.size);
			ck_assert_int_eq(kbuffer_curr_offset(k), (int)r.offset);
			ck_assert_int_eq(kbuffer_curr_index(k), (int)r.index);
			events++;
			kev = kbuffer_next_event(k, &kts);
		}
		ck_assert_ptr_null(kev);
		ck_assert_int_eq(kb.status, TB_END);
	}
	ck_assert_uint_eq(s.backwards, 0);
	kbuffer_free(k);
	return events;
}

START_TEST(differential_against_kbuffer)
{
	sample c0 = load_sample("cpu0.raw"), c1 = load_sample("cpu1.raw");
	tb_kbuf_layout l = lay(0, 8);
	size_t e0 = diff_dump(c0.data, c0.len, &l), e1 = diff_dump(c1.data, c1.len, &l);
	ck_assert_uint_eq(e0, SAMPLE_EVENTS_CPU0);
	ck_assert_uint_eq(e1, SAMPLE_EVENTS_CPU1);
	ck_assert_uint_eq(e0 + e1, 53737);
	free(c0.data);
	free(c1.data);
}
END_TEST

/* Every cpuN.raw of a capture directory, against kbuffer; returns events. */
static size_t diff_capture_dir(const char *dir)
{
	char path[512];
	char *hp;
	size_t len, events = 0;
	tb_kbuf_layout l;
	tb_error e;
	int cpu;
	snprintf(path, sizeof(path), "%s/header_page", dir);
	hp = (char *)tb_test_read_file(path, &len);
	if (!hp)
		return 0;
	ck_assert_int_eq(tb_kbuf_layout_from_header_page(hp, len, 0, &l, &e), TB_OK);
	free(hp);
	for (cpu = 0; cpu < 1024; cpu++) {
		uint8_t *d;
		snprintf(path, sizeof(path), "%s/cpu%d.raw", dir, cpu);
		if (!tb_test_exists(path))
			continue;
		d = tb_test_read_file(path, &len);
		ck_assert_ptr_nonnull(d);
		events += diff_dump(d, len, &l);
		free(d);
	}
	return events;
}

/*
 * A fresh capture: when we are root and tracefs is there, take one with
 * 8 KiB sub-buffers in a private instance (ci/capture-raw.sh), and also
 * compare any capture the script left in build/capture-raw.
 */
START_TEST(differential_fresh_capture)
{
	char dir[] = "/tmp/tb-kbuf-capture-XXXXXX", cap[64], cmd[512];
	int st;
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(cap, sizeof(cap), "%s/cap", dir);
	snprintf(cmd, sizeof(cmd), "sh '%s/ci/capture-raw.sh' '%s' 8 >/dev/null 2>&1",
		 getenv("TB_SRCDIR"), cap);
	st = system(cmd);
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
		size_t n = diff_capture_dir(cap);
		fprintf(stderr, "kbuf: fresh capture: %zu events equal to kbuffer\n", n);
		ck_assert_uint_gt(n, 0);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
	diff_capture_dir(tb_test_path("build/capture-raw"));
}
END_TEST



START_TEST(missed_count_of_real_page)
{
	sample s = load_sample("cpu1.raw");
	tb_kbuf_layout l = lay(0, 8);
	tb_kbuf kb;
	ck_assert_int_eq(tb_kbuf_open(&kb, &l, s.data, PAGE, NULL), TB_OK);
	ck_assert_uint_eq(kb.raw_commit, 0xffffffffc0000fc4ull);
	ck_assert_uint_eq(tb_kbuf_commit(&kb), 0xfc4);
	ck_assert_int_eq(tb_kbuf_missed(&kb), 145271);
	free(s.data);
}
END_TEST

START_TEST(read_at_offset_matches_kbuffer)
{
	sample s = load_sample("cpu0.raw");
	tb_kbuf_layout l = lay(0, 8);
	struct kbuffer *k = kbuffer_alloc(KBUFFER_LSIZE_8, KBUFFER_ENDIAN_LITTLE);
	uint8_t *page = malloc(PAGE);
	tb_kbuf kb;
	tb_kbuf_record r;
	tbt_pw w;
	int off, pass;
	for (pass = 0; pass < 2; pass++) {
		const uint8_t *p = s.data + 3 * PAGE;
		if (pass) {
			/* A page with extends and padding between events. */
			tbt_pw_init(&w, page, PAGE, 0, 8, 10);
			tbt_pw_extend(&w, 0);
			tbt_pw_data(&w, 1, "aaaa", 4, 0);
			tbt_pw_padding(&w, 2, 12);
			tbt_pw_extend(&w, 1ull << 30);
			tbt_pw_data(&w, 3, "bbbbbbbbbbbbbbbbbbbbbbbb", 24, 0);
			tbt_pw_data(&w, 3, "cccc", 4, 1);
			tbt_pw_finish(&w, 0, 0, 0);
			p = page;
		}
		ck_assert_int_eq(tb_kbuf_open(&kb, &l, p, PAGE, NULL), TB_OK);
		kbuffer_load_subbuffer(k, (void *)(uintptr_t)p);
		for (off = 0; off <= PAGE; off++) {
			unsigned long long kts = 0;
			void *kev = kbuffer_read_at_offset(k, off, &kts);
			tb_status st = tb_kbuf_read_at_offset(&kb, (uint32_t)off, &r);
			if (!kev) {
				ck_assert_int_eq(st, TB_END);
				continue;
			}
			ck_assert_int_eq(st, TB_OK);
			ck_assert_ptr_eq(kev, r.payload);
			ck_assert_uint_eq(kts, r.ts);
			ck_assert_int_eq(kbuffer_curr_offset(k), (int)r.offset);
		}
	}
	/* adf9215: an offset inside the header gives the first event. */
	ck_assert_int_eq(tb_kbuf_read_at_offset(&kb, 3, &r), TB_OK);
	ck_assert_uint_eq(r.offset, 24);
	kbuffer_free(k);
	free(page);
	free(s.data);
}
END_TEST

/* Rebuilt pages hold the same events with the same timestamps. */
START_TEST(read_buffer_reserialises)
{
	sample s = load_sample("cpu1.raw");
	tb_kbuf_layout l = lay(0, 8);
	uint8_t *out = malloc(PAGE), *page = malloc(PAGE);
	size_t skip, dl;
	tb_kbuf kb, rb;
	tb_kbuf_record r, r2;
	tbt_pw w;
	for (skip = 0; skip < 40; skip += 7) {
		size_t sizes[] = { PAGE, 512, 0 }, si, i;
		for (si = 0; si < 3; si++) {
			size_t n_out = 0;
			ck_assert_int_eq(tb_kbuf_open(&kb, &l, s.data + 5 * PAGE, PAGE, NULL), TB_OK);
			for (i = 0; i < skip; i++)
				ck_assert_int_eq(tb_kbuf_next_event(&kb, &r), TB_OK);
			if (si == 2) { /* exactly one event fits */
				rb = kb;
				ck_assert_int_eq(tb_kbuf_next_event(&rb, &r), TB_OK);
				sizes[2] = 16 + r.size;
				ck_assert_int_eq(tb_kbuf_read_buffer(&kb, out, sizes[2] - 1, &dl), TB_ERR_NO_SPACE);
			}
			ck_assert_int_eq(tb_kbuf_read_buffer(&kb, out, sizes[si], &dl), TB_OK);
			ck_assert_uint_le(dl + 16, sizes[si]);
			ck_assert_uint_eq(rd_le64(out + 8), dl);
			ck_assert_int_eq(tb_kbuf_open(&rb, &l, out, sizes[si], NULL), TB_OK);
			while (tb_kbuf_next_event(&rb, &r2) == TB_OK) {
				ck_assert_int_eq(tb_kbuf_next_event(&kb, &r), TB_OK);
				ck_assert_uint_eq(r.ts, r2.ts);
				ck_assert_uint_eq(r.payload_len, r2.payload_len);
				ck_assert_mem_eq(r.payload, r2.payload, r.payload_len);
				n_out++;
			}
			ck_assert_int_eq(rb.status, TB_END);
			ck_assert_uint_ge(n_out, 1);
			if (si == 2)
				ck_assert_uint_eq(n_out, 1);
			if (si == 0) /* the whole rest fits in a full page */
				ck_assert_int_eq(tb_kbuf_next_event(&kb, &r), TB_END);
		}
	}
	/* Too small for one record; no event left. */
	ck_assert_int_eq(tb_kbuf_open(&kb, &l, s.data + 5 * PAGE, PAGE, NULL), TB_OK);
	ck_assert_int_eq(tb_kbuf_read_buffer(&kb, out, 17, &dl), TB_ERR_NO_SPACE);
	ck_assert_int_eq(tb_kbuf_read_buffer(&kb, out, 8, &dl), TB_ERR_NO_SPACE);
	while (tb_kbuf_next_event(&kb, &r) == TB_OK)
		;
	ck_assert_int_eq(tb_kbuf_read_buffer(&kb, out, PAGE, &dl), TB_END);
	ck_assert_uint_eq(dl, 0);
	/* Extends, stamps and big-endian 4-byte pages keep their times too;
	 * a trailing extend with no event after it is left out. */
	tbt_pw_init(&w, page, PAGE, 1, 4, 1000);
	tbt_pw_data(&w, 5, "first...", 8, 0);
	tbt_pw_extend(&w, 1ull << 35);
	tbt_pw_data(&w, 7, "second..", 8, 0);
	tbt_pw_stamp(&w, 99999999999ull);
	tbt_pw_data(&w, 1, "third...", 8, 1);
	tbt_pw_extend(&w, 5);
	tbt_pw_finish(&w, 0, 0, 0);
	{
		tb_kbuf_layout lb = lay(1, 4);
		uint64_t want[2];
		ck_assert_int_eq(tb_kbuf_open(&kb, &lb, page, PAGE, NULL), TB_OK);
		ck_assert_int_eq(tb_kbuf_next_event(&kb, &r), TB_OK);
		ck_assert_int_eq(tb_kbuf_read_buffer(&kb, out, PAGE, &dl), TB_OK);
		ck_assert_uint_eq(dl, 12 + 8 + 16); /* second, stamp, third; not the extend */
		ck_assert_int_eq(tb_kbuf_next_event(&kb, &r), TB_OK);
		want[0] = r.ts;
		ck_assert_int_eq(tb_kbuf_next_event(&kb, &r), TB_OK);
		want[1] = r.ts;
		ck_assert_uint_eq(want[0], 1000 + 5 + (1ull << 35) + 7);
		ck_assert_uint_eq(want[1], 99999999999ull + 1);
		ck_assert_int_eq(tb_kbuf_open(&rb, &lb, out, PAGE, NULL), TB_OK);
		ck_assert_int_eq(tb_kbuf_next_event(&rb, &r2), TB_OK);
		ck_assert_uint_eq(r2.ts, want[0]);
		ck_assert_mem_eq(r2.payload, "second..", 8);
		ck_assert_int_eq(tb_kbuf_next_event(&rb, &r2), TB_OK);
		ck_assert_uint_eq(r2.ts, want[1]);
		ck_assert_int_eq(tb_kbuf_next_event(&rb, &r2), TB_END);
	}
	free(page);
	free(out);
	free(s.data);
}
END_TEST

START_TEST(batch_matches_single_steps)
{
	sample s = load_sample("cpu0.raw");
	tb_kbuf_layout l = lay(0, 8);
	tb_kbuf_record batch[16], one;
	size_t pg, total = 0;
	for (pg = 0; pg < s.len / PAGE; pg++) {
		tb_kbuf a, b;
		tb_status st = TB_OK;
		ck_assert_int_eq(tb_kbuf_open(&a, &l, s.data + pg * PAGE, PAGE, NULL), TB_OK);
		ck_assert_int_eq(tb_kbuf_open(&b, &l, s.data + pg * PAGE, PAGE, NULL), TB_OK);
		while (st == TB_OK) {
			size_t n = tb_kbuf_next_events(&a, batch, 16, &st), i;
			for (i = 0; i < n; i++) {
				ck_assert_int_eq(tb_kbuf_next_event(&b, &one), TB_OK);
				ck_assert_uint_eq(one.ts, batch[i].ts);
				ck_assert_ptr_eq(one.payload, batch[i].payload);
			}
			total += n;
		}
		ck_assert_int_eq(st, TB_END);
		ck_assert_int_eq(tb_kbuf_next_event(&b, &one), TB_END);
	}
	ck_assert_uint_eq(total, SAMPLE_EVENTS_CPU0);
	free(s.data);
}
END_TEST

START_TEST(stream_time_continuity_and_tail)
{
	uint8_t *dump = malloc(3 * PAGE);
	tb_kbuf_layout l = lay(0, 8);
	tb_kbuf_stream s;
	tb_kbuf kb;
	tb_error e;
	tbt_pw w;
	size_t ev;
	tbt_pw_init(&w, dump, PAGE, 0, 8, 5000);
	tbt_pw_data(&w, 100, "abcd", 4, 0);
	tbt_pw_finish(&w, 0, 0, 0);
	tbt_pw_init(&w, dump + PAGE, PAGE, 0, 8, 4000); /* goes back */
	tbt_pw_data(&w, 0, "abcd", 4, 0);
	tbt_pw_finish(&w, 0, 0, 0);
	tbt_pw_init(&w, dump + 2 * PAGE, PAGE, 0, 8, 9000);
	tbt_pw_data(&w, 0, "abcd", 4, 0);
	tbt_pw_commit(&w, 900); /* past the 100-byte tail piece */
	tb_kbuf_stream_init(&s, &l, dump, 2 * PAGE + 100);
	ck_assert_int_eq(tb_kbuf_stream_next(&s, &kb, &e), TB_OK);
	ck_assert_int_eq(walk_all(&kb, &ev, NULL), TB_END);
	ck_assert_int_eq(s.ts_went_back, 0);
	ck_assert_int_eq(tb_kbuf_stream_next(&s, &kb, &e), TB_OK);
	ck_assert_int_eq(s.ts_went_back, 1);
	ck_assert_uint_eq(s.subbuf_index, 1);
	ck_assert_int_eq(tb_kbuf_stream_next(&s, &kb, &e), TB_ERR_TRUNCATED);
	ck_assert_uint_eq(e.offset, 2 * PAGE + 8);
	ck_assert_uint_eq(s.subbuf_index, 2);
	ck_assert_int_eq(tb_kbuf_stream_next(&s, &kb, &e), TB_END);
	ck_assert_uint_eq(s.backwards, 1);
	free(dump);
}
END_TEST

/* ---- the CLI: tracebound raw ---- */

START_TEST(cli_raw_text_and_json)
{
	tb_test_run r;
	tb_test_cli("raw tests/data/raw-sched4k/cpu0.raw tests/data/raw-sched4k/cpu1.raw", &r);
	ck_assert_int_eq(r.status, 0);
	ck_assert_uint_eq(tb_test_count_lines(r.out), 53737 + 1); /* events + one missed report */
	ck_assert(strncmp(r.out, "cpu=0 subbuf=0 offset=16 ts=209134944557 size=24 id=839\n", 56) == 0);
	ck_assert_ptr_nonnull(strstr(r.out, "\ncpu=1 subbuf=0 missed=145271\ncpu=1 subbuf=0 offset=16 "));
	ck_assert_uint_eq(r.err_len, 0);
	tb_test_run_free(&r);

	tb_test_cli("raw --json --header-page tests/data/raw-sched4k/header_page tests/data/raw-sched4k/cpu1.raw", &r);
	ck_assert_int_eq(r.status, 0);
	{
		/* no formats: unnamed, pid unknown; the drop goes with the next event */
		static const char want[] = "{\"cpu\":1,\"ts\":210161320139,\"pid\":null,\"comm\":null,"
			"\"system\":null,\"name\":null,\"id\":375,\"missed\":145271,\"subbuf\":0,"
			"\"offset\":16,\"size\":36}\n";
		ck_assert_mem_eq(r.out, want, sizeof(want) - 1);
	}
	ck_assert_uint_eq(tb_test_count_lines(r.out), SAMPLE_EVENTS_CPU1);
	tb_test_run_free(&r);

	tb_test_cli("raw --all-records --subbuf-size 4096 tests/data/raw-sched4k/cpu1.raw", &r);
	ck_assert_int_eq(r.status, 0);
	ck_assert_uint_eq(tb_test_count_lines(r.out), SAMPLE_EVENTS_CPU1 + 1 + 1); /* + one time extend */
	ck_assert_ptr_nonnull(strstr(r.out, " size=8 kind=time_extend\n"));
	tb_test_run_free(&r);
}
END_TEST

START_TEST(cli_raw_faults_and_usage)
{
	sample s = load_sample("cpu0.raw");
	char path[] = "/tmp/tb-kbuf-bad-XXXXXX", args[256];
	int fd = mkstemp(path);
	tb_test_run r;
	size_t first_page_events;
	tb_kbuf_layout l = lay(0, 8);
	tb_kbuf kb;
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(tb_kbuf_open(&kb, &l, s.data, PAGE, NULL), TB_OK);
	ck_assert_int_eq(walk_all(&kb, &first_page_events, NULL), TB_END);
	/* Page 0 whole, page 1 cut after 1000 bytes: commit runs past the end. */
	ck_assert_int_eq((int)write(fd, s.data, PAGE + 1000), PAGE + 1000);
	close(fd);
	snprintf(args, sizeof(args), "raw '%s'", path);
	tb_test_cli(args, &r);
	ck_assert_int_eq(r.status, 1);
	ck_assert_uint_eq(tb_test_count_lines(r.out), first_page_events);
	ck_assert_uint_eq(tb_test_count_lines(r.err), 1);
	ck_assert_ptr_nonnull(strstr(r.err, "sub-buffer 1, offset 8 (file offset 4104): commit runs past the bytes present"));
	tb_test_run_free(&r);
	/* A record fault inside a page: the events before it are printed. */
	fd = open(path, O_WRONLY | O_TRUNC);
	s.data[16] = 0;        /* the first record becomes long form... */
	s.data[16 + 7] = 0x7f; /* ...with a length far past commit */
	ck_assert_int_eq((int)write(fd, s.data, PAGE), PAGE);
	close(fd);
	tb_test_cli(args, &r);
	ck_assert_int_eq(r.status, 1);
	ck_assert_uint_eq(tb_test_count_lines(r.out), 0);
	ck_assert_ptr_nonnull(strstr(r.err, "sub-buffer 0, offset 16 (file offset 16): data record ends past commit"));
	tb_test_run_free(&r);
	unlink(path);
	tb_test_cli("raw", &r);
	ck_assert_int_eq(r.status, 2);
	tb_test_run_free(&r);
	tb_test_cli("raw --bogus tests/data/raw-sched4k/cpu0.raw", &r);
	ck_assert_int_eq(r.status, 2);
	tb_test_run_free(&r);
	tb_test_cli("raw /nonexistent/cpu0.raw", &r);
	ck_assert_int_eq(r.status, 2);
	tb_test_run_free(&r);
	tb_test_cli("raw --subbuf-size 5000 tests/data/raw-sched4k/cpu0.raw", &r);
	ck_assert_int_eq(r.status, 2);
	tb_test_run_free(&r);
	tb_test_cli("raw --header-page tests/data/raw-sched4k/cpu0.raw tests/data/raw-sched4k/cpu0.raw", &r);
	ck_assert_int_eq(r.status, 1);
	tb_test_run_free(&r);
	free(s.data);
}
END_TEST

/* What a walk of a stream shows, folded into one number (FNV-1a): every
 * result with its offsets, index and time flag, every record. */
static void fold(uint64_t *h, uint64_t v)
{
	int i;
	for (i = 0; i < 8; i++, v >>= 8)
		*h = (*h ^ (v & 0xff)) * 0x100000001b3ull;
}

/* The stream walked to TB_END; the dump given in pieces of `piece` bytes
 * (0: whole).  Returns the fold; *pages counts the sub-buffers opened. */
static uint64_t walk_pieces(const tb_kbuf_layout *l, const uint8_t *d, size_t len, size_t piece,
			    size_t *pages)
{
	tb_kbuf_stream s;
	tb_kbuf kb;
	tb_kbuf_record r;
	tb_error e;
	tb_status st;
	uint64_t h = 0xcbf29ce484222325ull;
	size_t at = piece && piece < len ? piece : len;
	*pages = 0;
	tb_kbuf_stream_init(&s, l, d, at);
	for (;;) {
		st = tb_kbuf_stream_next(&s, &kb, &e);
		if (st == TB_END && at < len) {
			size_t n = len - at < piece ? len - at : piece;
			tb_kbuf_stream_feed(&s, d + at, n);
			at += n;
			continue;
		}
		fold(&h, (uint64_t)st);
		if (st == TB_END)
			break;
		++*pages;
		fold(&h, s.subbuf_index);
		fold(&h, s.subbuf_offset);
		fold(&h, (uint64_t)s.ts_went_back);
		if (st != TB_OK) {
			fold(&h, e.offset);
			continue;
		}
		while ((st = tb_kbuf_next(&kb, &r)) == TB_OK) {
			fold(&h, r.ts);
			fold(&h, (uint64_t)(r.payload ? r.payload - d : 0));
			fold(&h, r.size);
		}
		fold(&h, (uint64_t)st);
		fold(&h, tb_kbuf_error(&kb).offset);
	}
	fold(&h, s.backwards);
	fold(&h, s.last_ts);
	return h;
}

/* A dump fed in pieces of whole sub-buffers (as `raw -` and `check -` read
 * a pipe) walks exactly as the whole dump: 40 real pages, then one that
 * goes back in time, one whose commit lies, and a 100-byte tail, in every
 * piece size from one sub-buffer to all of them. */
START_TEST(stream_fed_in_pieces_walks_as_whole)
{
	sample s = load_sample("cpu0.raw");
	tb_kbuf_layout l = lay(0, 8);
	const size_t real = 40, len = (real + 2) * PAGE + 100;
	uint8_t *dump = calloc(1, len);
	size_t k, pages, whole_pages;
	uint64_t whole;
	tbt_pw w;
	ck_assert_ptr_nonnull(dump);
	memcpy(dump, s.data, real * PAGE);
	tbt_pw_init(&w, dump + real * PAGE, PAGE, 0, 8, 1000); /* before the sample's time */
	tbt_pw_data(&w, 0, "abcd", 4, 0);
	tbt_pw_finish(&w, 0, 0, 0);
	tbt_pw_init(&w, dump + (real + 1) * PAGE, PAGE, 0, 8, 9000);
	tbt_pw_commit(&w, PAGE); /* past the data capacity */
	memcpy(dump + (real + 2) * PAGE, s.data, 100);
	whole = walk_pieces(&l, dump, len, 0, &whole_pages);
	ck_assert_uint_eq(whole_pages, real + 3);
	for (k = 1; k <= real + 3; k++) {
		ck_assert_uint_eq(walk_pieces(&l, dump, len, k * PAGE, &pages), whole);
		ck_assert_uint_eq(pages, whole_pages);
	}
	/* a piece that is not whole sub-buffers cuts one short: not the same walk */
	ck_assert_uint_ne(walk_pieces(&l, dump, len, PAGE + 8, &pages), whole);
	free(dump);
	free(s.data);
}
END_TEST

Suite *tb_suite_kbuf(void);
Suite *tb_suite_kbuf(void)
{
	Suite *s = suite_create("kbuf");
	TCase *t = tcase_create("walker");
	tcase_set_timeout(t, 120);
	tcase_add_test(t, perfetto_page_header);
	tcase_add_test(t, perfetto_single_print);
	tcase_add_test(t, perfetto_three_prints);
	tcase_add_test(t, perfetto_really_long_event);
	tcase_add_test(t, k1_length_fffffffc_is_an_error_not_a_loop);
	tcase_add_test(t, k2_negative_length_does_not_walk_backwards);
	tcase_add_test(t, k3_commit_past_small_buffer);
	tcase_add_test(t, k4_stored_count_outside_buffer);
	tcase_add_test(t, k5_padding_length_zero);
	tcase_add_test(t, k6_missed_count_with_leading_extend);
	tcase_add_test(t, malformed_classes);
	tcase_add_test(t, null_padding_ends_data);
	tcase_add_test(t, padding_delta_both_ways);
	tcase_add_test(t, absolute_stamp_top_bits_and_wrap);
	tcase_add_test(t, upper_commit_bits_ignored);
	tcase_add_test(t, both_orders_both_longs);
	tcase_add_test(t, random_round_trip);
	tcase_add_test(t, header_page_texts);
	tcase_add_test(t, header_page_errors);
	tcase_add_test(t, null_arguments);
	tcase_add_test(t, layout_arguments);
	tcase_add_test(t, every_prefix_of_real_pages);
	tcase_add_test(t, differential_against_kbuffer);
	tcase_add_test(t, differential_fresh_capture);
	tcase_add_test(t, missed_count_of_real_page);
	tcase_add_test(t, read_at_offset_matches_kbuffer);
	tcase_add_test(t, read_buffer_reserialises);
	tcase_add_test(t, batch_matches_single_steps);
	tcase_add_test(t, stream_time_continuity_and_tail);
	tcase_add_test(t, stream_fed_in_pieces_walks_as_whole);
	tcase_add_test(t, cli_raw_text_and_json);
	tcase_add_test(t, cli_raw_faults_and_usage);
	suite_add_tcase(s, t);
	return s;
}
