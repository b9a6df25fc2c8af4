/* The error model and the bounds-checked reader every module uses. */
#include <check.h>
#include <string.h>

#include "internal.h"
#include "testutil.h"

START_TEST(strerror_names_every_status)
{
	int s;
	for (s = 0; s < (int)TB_STATUS_END_; s++) {
		const char *m = tb_strerror((tb_status)s);
		ck_assert_ptr_nonnull(m);
		if (s > (int)TB_NOT_FOUND && s < (int)TB_ERR_FIRST)
			ck_assert_str_eq(m, "unknown status");
		else
			ck_assert_str_ne(m, "unknown status");
	}
	ck_assert_str_eq(tb_strerror(TB_ERR_TRUNCATED), "truncated input");
	ck_assert_str_eq(tb_strerror((tb_status)999), "unknown status");
	ck_assert_str_eq(tb_version(), TB_VERSION_STRING);
}
END_TEST

START_TEST(status_classes)
{
	ck_assert(!tb_is_error(TB_OK));
	ck_assert(!tb_is_error(TB_END));
	ck_assert(!tb_is_error(TB_NEED_MORE));
	ck_assert(!tb_is_error(TB_NOT_FOUND));
	ck_assert(tb_is_error(TB_ERR_TRUNCATED));
	ck_assert(tb_is_error(TB_ERR_ARG));
	ck_assert(tb_is_malformed(TB_ERR_CYCLE));
	ck_assert(!tb_is_malformed(TB_ERR_LIMIT));
	ck_assert(!tb_is_malformed(TB_ERR_NO_SPACE));
}
END_TEST

START_TEST(fail_records_offset)
{
	tb_error e;
	ck_assert_int_eq(tb_fail(&e, TB_ERR_LENGTH, 42, "bad"), TB_ERR_LENGTH);
	ck_assert_int_eq(e.status, TB_ERR_LENGTH);
	ck_assert_uint_eq(e.offset, 42);
	ck_assert_str_eq(e.what, "bad");
	ck_assert_int_eq(tb_fail(NULL, TB_ERR_VALUE, 1, "x"), TB_ERR_VALUE);
}
END_TEST

/* tb_heap_sort on entries larger than its 64-byte swap step: sorted by
 * key, each entry's whole payload moved with it. */
typedef struct big_entry {
	uint32_t key;
	uint8_t payload[96];
} big_entry;

static int big_less(const void *a, const void *b)
{
	return ((const big_entry *)a)->key < ((const big_entry *)b)->key;
}

START_TEST(heap_sort_big_entries)
{
	static big_entry v[37];
	size_t i, j;
	for (i = 0; i < 37; i++) {
		v[i].key = (uint32_t)((i * 17u) % 37u);
		memset(v[i].payload, (int)v[i].key, sizeof(v[i].payload));
	}
	tb_heap_sort(v, 37, sizeof(v[0]), big_less);
	for (i = 0; i < 37; i++) {
		ck_assert_uint_eq(v[i].key, i);
		for (j = 0; j < sizeof(v[i].payload); j++)
			ck_assert_uint_eq(v[i].payload[j], i);
	}
}
END_TEST

START_TEST(reader_loads_both_orders)
{
	static const uint8_t b[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9 };
	tb_reader le, be;
	uint16_t v16;
	uint32_t v32;
	uint64_t v64;
	tb_rd_init(&le, b, sizeof(b), 0);
	tb_rd_init(&be, b, sizeof(b), 1);
	ck_assert(tb_rd_u16_at(&le, 1, &v16));
	ck_assert_uint_eq(v16, 0x0302);
	ck_assert(tb_rd_u16_at(&be, 1, &v16));
	ck_assert_uint_eq(v16, 0x0203);
	ck_assert(tb_rd_u32_at(&le, 5, &v32)); /* unaligned */
	ck_assert_uint_eq(v32, 0x09080706);
	ck_assert(tb_rd_u32_at(&be, 5, &v32));
	ck_assert_uint_eq(v32, 0x06070809);
	ck_assert(tb_rd_u64_at(&le, 1, &v64));
	ck_assert_uint_eq(v64, 0x0908070605040302ULL);
	ck_assert(tb_rd_u64_at(&be, 0, &v64));
	ck_assert_uint_eq(v64, 0x0102030405060708ULL);
	ck_assert(!tb_rd_u64_at(&le, 2, &v64));
	ck_assert(!tb_rd_uN_at(&le, 0, 3, &v64));
	ck_assert(tb_rd_uN_at(&be, 7, 2, &v64));
	ck_assert_uint_eq(v64, 0x0809);
}
END_TEST

START_TEST(reader_never_wraps)
{
	static const uint8_t b[16];
	tb_reader r;
	const uint8_t *p;
	uint32_t v;
	size_t n0;
	tb_rd_init(&r, b, sizeof(b), 0);
	ck_assert(!tb_rd_has_at(&r, SIZE_MAX, 2));
	ck_assert(!tb_rd_has_at(&r, 8, SIZE_MAX - 4));
	ck_assert(!tb_rd_ptr_at(&r, 17, 0, &p));
	ck_assert(tb_rd_ptr_at(&r, 16, 0, &p));
	ck_assert(!tb_rd_u32_at(&r, 13, &v));
	ck_assert(tb_rd_u32_at(&r, 12, &v));
	ck_assert(tb_rd_skip(&r, 12));
	ck_assert(!tb_rd_skip(&r, SIZE_MAX));
	ck_assert_uint_eq(r.pos, 12);
	ck_assert(tb_rd_u32(&r, &v));
	ck_assert(!tb_rd_u8(&r, (uint8_t *)&v));
	ck_assert_uint_eq(r.pos, 16);
	ck_assert(!tb_rd_seek(&r, 17));
	tb_rd_init(&r, NULL, 100, 0);
	ck_assert_uint_eq(tb_rd_left(&r), 0);
	/* An empty reader over NULL yields NULL, never NULL + 0. */
	p = b;
	ck_assert(tb_rd_ptr_at(&r, 0, 0, &p));
	ck_assert_ptr_null(p);
	ck_assert(!tb_rd_line(&r, (const char **)&p, &n0));
	ck_assert(!tb_rd_cstr(&r, (const char **)&p, &n0));
}
END_TEST

START_TEST(reader_strings_and_lines)
{
	static const char t[] = "ab\0cd";
	static const char l[] = "one\n\ntwo";
	tb_reader r;
	const char *s;
	size_t n;
	tb_rd_init(&r, t, 5, 0);
	ck_assert(tb_rd_cstr(&r, &s, &n));
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(r.pos, 3);
	ck_assert(!tb_rd_cstr(&r, &s, &n)); /* "cd" has no NUL */
	ck_assert_uint_eq(r.pos, 3);
	tb_rd_init(&r, l, strlen(l), 0);
	ck_assert(tb_rd_line(&r, &s, &n) && tb_span_eq(s, n, "one"));
	ck_assert(tb_rd_line(&r, &s, &n) && n == 0);
	ck_assert(tb_rd_line(&r, &s, &n) && tb_span_eq(s, n, "two"));
	ck_assert(!tb_rd_line(&r, &s, &n));
}
END_TEST

START_TEST(parse_numbers)
{
	uint64_t v;
	ck_assert(tb_parse_u64("4080", 4, &v) && v == 4080);
	ck_assert(tb_parse_u64("0x1F", 4, &v) && v == 31);
	ck_assert(tb_parse_u64("18446744073709551615", 20, &v) && v == UINT64_MAX);
	ck_assert(!tb_parse_u64("18446744073709551616", 20, &v));
	ck_assert(!tb_parse_u64("0x", 2, &v));
	ck_assert(!tb_parse_u64("", 0, &v));
	ck_assert(!tb_parse_u64("12a", 3, &v));
	ck_assert(tb_parse_hex64("ffffffff81000000", 16, &v) && v == 0xffffffff81000000ULL);
	ck_assert(!tb_parse_hex64("1ffffffff81000000", 17, &v));
	ck_assert(!tb_parse_hex64("g", 1, &v));
	ck_assert(tb_parse_hex64("0123456789aBcDeF", 16, &v) && v == 0x0123456789abcdefULL);
	ck_assert(tb_parse_hex64("FEDCBA9876543210", 16, &v) && v == 0xfedcba9876543210ULL);
}
END_TEST

/* Sixteen digits are read eight at a time: every byte value at every
 * place must do what the digit-by-digit rule does. */
START_TEST(parse_hex64_every_byte_everywhere)
{
	char s[17];
	unsigned pos, c;
	for (pos = 0; pos < 16; pos++)
		for (c = 0; c < 256; c++) {
			uint64_t v = 7, want = 0;
			int ok = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
				 (c >= 'A' && c <= 'F');
			unsigned i;
			memcpy(s, "f0e1d2c3b4a59687", 17);
			s[pos] = (char)c;
			for (i = 0; ok && i < 16; i++) {
				unsigned ch = (unsigned char)s[i];
				want = want << 4 | (ch <= '9' ? ch - '0' : (ch | 0x20) - 'a' + 10);
			}
			ck_assert_int_eq(tb_parse_hex64(s, 16, &v), ok);
			if (ok)
				ck_assert_uint_eq(v, want);
			else
				ck_assert_uint_eq(v, 7); /* untouched */
		}
}
END_TEST

Suite *tb_suite_core(void);
Suite *tb_suite_core(void)
{
	Suite *s = suite_create("core");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, heap_sort_big_entries);
	tcase_add_test(tc, strerror_names_every_status);
	tcase_add_test(tc, status_classes);
	tcase_add_test(tc, fail_records_offset);
	tcase_add_test(tc, reader_loads_both_orders);
	tcase_add_test(tc, reader_never_wraps);
	tcase_add_test(tc, reader_strings_and_lines);
	tcase_add_test(tc, parse_numbers);
	tcase_add_test(tc, parse_hex64_every_byte_everywhere);
	suite_add_tcase(s, tc);
	return s;
}
