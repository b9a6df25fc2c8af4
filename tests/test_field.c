/* Field reads: every read bounded by the record; values from real and spec vectors. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>
#include <traceevent/kbuffer.h>

#include "tracebound/format.h"
#include "tracebound/kbuf.h"
#include "formattext.h"
#include "tarball.h"
#include "testutil.h"

Suite *tb_suite_field(void);

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))


static tb_field g_fields[64];

static tb_format parse_or_die(const char *text)
{
	tb_format f;
	tb_format_error e;
	tb_status st = tb_format_parse(text, strlen(text), g_fields, ARRAY_LEN(g_fields), 8,
				       &f, &e);
	ck_assert_msg(st == TB_OK, "line %u col %u: %s", e.line, e.column, e.error.what);
	return f;
}

static const tb_field *fld(const tb_format *f, const char *name)
{
	const tb_field *fl = tb_format_field(f, name);
	ck_assert_msg(fl != NULL, "no field %s", name);
	return fl;
}

/* A record in an exact-size heap buffer, so ASan sees any over-read. */
static uint8_t *rec_dup(const void *p, size_t n)
{
	return tb_test_dup(p, n);
}

static void assert_str(const tb_field *f, const uint8_t *rec, size_t len, int be,
		       const char *want)
{
	const char *s;
	size_t n;
	tb_error e;
	ck_assert_int_eq(tb_field_str(f, rec, len, be, &s, &n, &e), TB_OK);
	ck_assert_uint_eq(n, strlen(want));
	ck_assert(n == 0 || memcmp(s, want, n) == 0);
}

static uint64_t get_int(const tb_field *f, const uint8_t *rec, size_t len, int be)
{
	uint64_t v = 0;
	tb_error e;
	ck_assert_int_eq(tb_field_int(f, rec, len, be, &v, &e), TB_OK);
	return v;
}

/* ---- libtraceevent utest vectors (spec 5.1) ---- */

START_TEST(utest_dynamic_string)
{
	static const char text[] =
		"name: irq_handler_entry\nID: 1\nformat:\n" COMMON4 "\n"
		"\tfield:int irq;\toffset:8;\tsize:4;\tsigned:1;\n"
		"\tfield:__data_loc char[] name;\toffset:12;\tsize:4;\tsigned:1;\n"
		"\nprint fmt: \"irq=%d handler=%s\", REC->irq, __get_str(name)\n";
	static const uint8_t le[24] = { 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
					0x10, 0, 6, 0, 'h', 'e', 'l', 'l', 'o', 0, 0, 0 };
	static const uint8_t be[24] = { 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
					0, 6, 0, 0x10, 'h', 'e', 'l', 'l', 'o', 0, 0, 0 };
	tb_format f = parse_or_die(text);
	uint8_t *r = rec_dup(le, sizeof(le)), *rb = rec_dup(be, sizeof(be));
	const uint8_t *p;
	size_t n;
	tb_error e;
	ck_assert_int_eq(tb_format_check_record(&f, r, 24, 0, &e), TB_OK);
	assert_str(fld(&f, "name"), r, 24, 0, "hello");
	ck_assert_int_eq(tb_field_bytes(fld(&f, "name"), r, 24, 0, &p, &n, &e), TB_OK);
	ck_assert_uint_eq(n, 6); /* the NUL is part of the data */
	ck_assert_ptr_eq(p, r + 16);
	ck_assert_uint_eq(get_int(fld(&f, "irq"), r, 24, 0), 0);
	ck_assert_uint_eq(get_int(fld(&f, "common_type"), r, 24, 0), 1);
	assert_str(fld(&f, "name"), rb, 24, 1, "hello");
	ck_assert_uint_eq(get_int(fld(&f, "common_type"), rb, 24, 1), 1);
	free(r);
	free(rb);
}
END_TEST

START_TEST(utest_old_dynamic_string)
{
	static const char text[] =
		"name: irq_handler_entry\nID: 2\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\n"
		"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\n"
		"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\n\n"
		"\tfield:int irq;\toffset:8;\tsize:4;\n"
		"\tfield:__data_loc name;\toffset:12;\tsize:2;\n"
		"\nprint fmt: \"irq=%d handler=%s\", REC->irq, __get_str(name)\n";
	static const uint8_t le[25] = { 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10, 0,
					0, 0, 'h', 'e', 'l', 'l', 'o', 0, 0, 0, 0 };
	tb_format f = parse_or_die(text);
	uint8_t *r = rec_dup(le, sizeof(le));
	const uint8_t *p;
	size_t n;
	tb_error e;
	ck_assert(fld(&f, "irq")->flags & TB_FIELD_SIGNED); /* from `int`, no signed: */
	ck_assert_int_eq(tb_format_check_record(&f, r, 25, 0, &e), TB_OK);
	assert_str(fld(&f, "name"), r, 25, 0, "hello");
	/* the legacy form holds no length: its data is the rest of the record */
	ck_assert_int_eq(tb_field_bytes(fld(&f, "name"), r, 25, 0, &p, &n, &e), TB_OK);
	ck_assert_uint_eq(n, 9);
	free(r);
}
END_TEST

static const char cpumask_fmt[] =
	"name: ipi_send_cpumask\nID: 3\nformat:\n" COMMON4 "\n"
	"\tfield:__data_loc cpumask_t *[] cpumask;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\nprint fmt: \"cpumask=%s\", __get_cpumask(cpumask)\n";

START_TEST(utest_cpumask_raw_bytes)
{
	static const uint8_t masks[][8] = {
		{ 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff },
		{ 0, 0, 0, 0, 0, 0, 0, 0 },
		{ 0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55 },
		{ 0x01, 0x80, 0, 0, 0, 0, 0, 0 },
		{ 0x01, 0, 0x80, 0, 0, 0, 0, 0 },
		{ 0x01, 0, 0, 0, 0, 0, 0, 0x80 },
	};
	tb_format f = parse_or_die(cpumask_fmt);
	const tb_field *cm = fld(&f, "cpumask");
	size_t m, i, cnt;
	for (m = 0; m < ARRAY_LEN(masks); m++) {
		int be;
		for (be = 0; be < 2; be++) {
			uint8_t b[24] = { 0 };
			uint8_t *r;
			const uint8_t *p;
			size_t n;
			uint64_t v;
			tb_error e;
			if (be) {
				b[1] = 3;
				b[9] = 8;  /* 00 08 00 10: length 8, offset 16 */
				b[11] = 0x10;
				for (i = 0; i < 8; i++) /* reversed within the word */
					b[16 + i] = masks[m][7 - i];
			} else {
				b[0] = 3;
				b[8] = 0x10;
				b[10] = 8;
				memcpy(b + 16, masks[m], 8);
			}
			r = rec_dup(b, sizeof(b));
			ck_assert_int_eq(tb_format_check_record(&f, r, 24, be, &e), TB_OK);
			ck_assert_int_eq(tb_field_bytes(cm, r, 24, be, &p, &n, &e), TB_OK);
			ck_assert_uint_eq(n, 8);
			ck_assert_ptr_eq(p, r + 16);
			ck_assert_int_eq(tb_field_count(cm, r, 24, be, &cnt, &e), TB_OK);
			ck_assert_uint_eq(cnt, 8);
			for (i = 0; i < 8; i++) {
				ck_assert_int_eq(tb_field_elem(cm, r, 24, be, i, &v, &e), TB_OK);
				ck_assert_uint_eq(v, be ? masks[m][7 - i] : masks[m][i]);
			}
			ck_assert_int_eq(tb_field_elem(cm, r, 24, be, 8, &v, &e), TB_ERR_RANGE);
			free(r);
		}
	}
}
END_TEST

/* ---- the i915_flip record (spec 5.3) ---- */

START_TEST(i915_flip_record)
{
	static const char text[] = HEAD("i915_flip", "1513")
		"\tfield:int pipe;\toffset:8;\tsize:4;\tsigned:1;\n"
		"\tfield:u32 frame;\toffset:12;\tsize:4;\tsigned:0;\n"
		"\tfield:u32 scanline;\toffset:16;\tsize:4;\tsigned:0;\n"
		"\tfield:int src[4];\toffset:20;\tsize:16;\tsigned:1;\n"
		"\tfield:int dst[4];\toffset:36;\tsize:16;\tsigned:1;\n"
		"\tfield:__data_loc char[] name;\toffset:52;\tsize:4;\tsigned:0;\n" TAIL;
	static const uint8_t bytes[68] = {
		0xe9, 0x05, 0x01, 0x00, 0x19, 0x70, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x06, 0x00, 0x00, 0x00, 0x39, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80, 0x07, 0x00, 0x00, 0x38, 0x04,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80, 0x07, 0x00, 0x00,
		0x38, 0x04, 0x00, 0x00, 0x38, 0x00, 0x09, 0x00, 0x70, 0x6c, 0x61, 0x6e,
		0x65, 0x20, 0x31, 0x41, 0x00, 0xb9, 0x33, 0x01,
	};
	static const uint64_t src[4] = { 0, 0, 1920u << 16, 1080u << 16 };
	static const uint64_t dst[4] = { 0, 0, 1920, 1080 };
	tb_format f = parse_or_die(text);
	uint8_t *r = rec_dup(bytes, sizeof(bytes));
	tb_field_value vals[16];
	tb_error e;
	size_t i;
	uint64_t v;
	ck_assert_int_eq(tb_format_check_record(&f, r, 68, 0, &e), TB_OK);
	ck_assert_int_eq(tb_format_decode(&f, r, 68, 0, vals, ARRAY_LEN(vals), &e), TB_OK);
	ck_assert_uint_eq(vals[0].num, 1513);
	ck_assert_uint_eq(vals[1].num, 1);
	ck_assert_uint_eq(vals[3].num, 28697);
	ck_assert_uint_eq(vals[4].num, 0);
	ck_assert_uint_eq(vals[5].num, 6);
	ck_assert_uint_eq(vals[6].num, 825);
	ck_assert_uint_eq(vals[7].len, 16);
	ck_assert_ptr_eq(vals[7].data, r + 20);
	ck_assert_uint_eq(vals[9].len, 9);
	ck_assert(memcmp(vals[9].data, "plane 1A", 9) == 0);
	for (i = 0; i < 4; i++) {
		ck_assert_int_eq(tb_field_elem(fld(&f, "src"), r, 68, 0, i, &v, &e), TB_OK);
		ck_assert_uint_eq(v, src[i]);
		ck_assert_int_eq(tb_field_elem(fld(&f, "dst"), r, 68, 0, i, &v, &e), TB_OK);
		ck_assert_uint_eq(v, dst[i]);
	}
	assert_str(fld(&f, "name"), r, 68, 0, "plane 1A");
	ck_assert_int_eq(tb_field_elem(fld(&f, "src"), r, 68, 0, 4, &v, &e), TB_ERR_RANGE);
	ck_assert_int_eq(tb_field_int(fld(&f, "src"), r, 68, 0, &v, &e), TB_ERR_ARG);
	/* every shorter record: static fields end at 56, the name at 65 */
	for (i = 0; i < 68; i++) {
		tb_status st = tb_format_check_record(&f, r, i, 0, &e);
		ck_assert_int_eq(st, i < 56 ? TB_ERR_TRUNCATED : i < 65 ? TB_ERR_RANGE : TB_OK);
	}
	free(r);
}
END_TEST

/* ---- spec 4.1: R8 R9 R10 R11 R16 ---- */

START_TEST(r8_data_loc_string_without_nul)
{
	static const char text[] = HEAD("r8", "1")
		"\tfield:__data_loc char[] name;\toffset:8;\tsize:4;\tsigned:0;\n" TAIL;
	uint8_t b[16] = { 1, 0, 0, 0, 0, 0, 0, 0, 12, 0, 4, 0, 'a', 'b', 'c', 'd' };
	tb_format f = parse_or_die(text);
	uint8_t *r = rec_dup(b, sizeof(b));
	tb_error e;
	ck_assert_int_eq(tb_format_check_record(&f, r, 16, 0, &e), TB_OK);
	assert_str(fld(&f, "name"), r, 16, 0, "abcd"); /* stops at the data's end */
	free(r);
	/* length 8 would run past the record */
	b[10] = 8;
	r = rec_dup(b, sizeof(b));
	ck_assert_int_eq(tb_format_check_record(&f, r, 16, 0, &e), TB_ERR_RANGE);
	ck_assert_uint_eq(e.offset, 8);
	{
		const char *s;
		size_t n;
		ck_assert_int_eq(tb_field_str(fld(&f, "name"), r, 16, 0, &s, &n, &e),
				 TB_ERR_RANGE);
	}
	free(r);
}
END_TEST

START_TEST(r9_rel_loc_past_record)
{
	static const char text[] = HEAD("r9", "1")
		"\tfield:__rel_loc char[] name;\toffset:8;\tsize:4;\tsigned:0;\n" TAIL;
	uint8_t b[16] = { 1, 0, 0, 0, 0, 0, 0, 0, 12, 0, 4, 0, 'a', 'b', 'c', 'd' };
	tb_format f = parse_or_die(text);
	uint8_t *r = rec_dup(b, sizeof(b));
	const uint8_t *p;
	size_t n;
	tb_error e;
	/* 8 + 4 + 12 = 24: past the 16-byte record */
	ck_assert_int_eq(tb_format_check_record(&f, r, 16, 0, &e), TB_ERR_RANGE);
	ck_assert_int_eq(tb_field_bytes(fld(&f, "name"), r, 16, 0, &p, &n, &e), TB_ERR_RANGE);
	free(r);
	/* rel 0 is the byte right after the field */
	b[8] = 0;
	r = rec_dup(b, sizeof(b));
	assert_str(fld(&f, "name"), r, 16, 0, "abcd");
	ck_assert_int_eq(tb_field_bytes(fld(&f, "name"), r, 16, 0, &p, &n, &e), TB_OK);
	ck_assert_ptr_eq(p, r + 12);
	free(r);
}
END_TEST

/* __rel_loc counts from the end of the 4-byte loc word (the kernel adds
 * sizeof the u32), whatever size a hand-built tb_field declares: the
 * field reader and the print path must find the same bytes.  (lib/field.c
 * once added f->size, the print path 4: this field of size 8 told them
 * apart.) */
START_TEST(rel_loc_base_is_the_loc_word_end)
{
	/* loc word at 8: rel 0, len 4; bytes 12..15 "abcd", 16..19 "wxyz" */
	uint8_t b[20] = { 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 0,
			  'a', 'b', 'c', 'd', 'w', 'x', 'y', 'z' };
	tb_field f;
	const uint8_t *p;
	size_t n;
	tb_error e;
	memset(&f, 0, sizeof(f));
	f.name = "name";
	f.name_len = 4;
	f.type = "__rel_loc char[]";
	f.type_len = 16;
	f.kind = TB_FIELD_DYNAMIC;
	f.flags = TB_FIELD_REL | TB_FIELD_TEXT;
	f.offset = 8;
	f.size = 8;
	f.elem_size = 1;
	ck_assert_int_eq(tb_field_bytes(&f, b, sizeof(b), 0, &p, &n, &e), TB_OK);
	ck_assert_uint_eq(n, 4);
	ck_assert_ptr_eq(p, b + 12);
	ck_assert(!memcmp(p, "abcd", 4));
	/* rel 4 reaches "wxyz"; rel 5 runs one byte past the record */
	b[8] = 4;
	ck_assert_int_eq(tb_field_bytes(&f, b, sizeof(b), 0, &p, &n, &e), TB_OK);
	ck_assert(!memcmp(p, "wxyz", 4));
	b[8] = 5;
	ck_assert_int_eq(tb_field_bytes(&f, b, sizeof(b), 0, &p, &n, &e), TB_ERR_RANGE);
}
END_TEST

START_TEST(r10_static_array_past_record)
{
	static const char text[] = HEAD("r10", "1")
		"\tfield:char s[8];\toffset:8;\tsize:8;\tsigned:0;\n" TAIL;
	uint8_t b[10] = { 1, 0, 0, 0, 0, 0, 0, 0, 'h', 'i' };
	tb_format f = parse_or_die(text);
	uint8_t *r = rec_dup(b, sizeof(b));
	const char *s;
	size_t n;
	uint64_t v;
	tb_field_value vals[5];
	tb_error e;
	ck_assert_int_eq(tb_format_check_record(&f, r, 10, 0, &e), TB_ERR_TRUNCATED);
	ck_assert_int_eq(tb_field_str(fld(&f, "s"), r, 10, 0, &s, &n, &e), TB_ERR_TRUNCATED);
	ck_assert_int_eq(tb_field_elem(fld(&f, "s"), r, 10, 0, 0, &v, &e), TB_ERR_TRUNCATED);
	ck_assert_int_eq(tb_format_decode(&f, r, 10, 0, vals, 5, &e), TB_ERR_TRUNCATED);
	ck_assert_int_eq(vals[3].status, TB_OK); /* the common fields still read */
	ck_assert_uint_eq(vals[0].num, 1);
	ck_assert_int_eq(vals[4].status, TB_ERR_TRUNCATED);
	ck_assert_ptr_null(vals[4].data);
	free(r);
}
END_TEST

START_TEST(r11_field_far_past_record)
{
	static const char text[] = HEAD("r11", "1")
		"\tfield:u64 x;\toffset:4096;\tsize:8;\tsigned:0;\n" TAIL;
	uint8_t b[8] = { 1 };
	tb_format f = parse_or_die(text);
	uint8_t *r = rec_dup(b, sizeof(b));
	uint64_t v = 77;
	tb_error e;
	ck_assert_int_eq(tb_field_int(fld(&f, "x"), r, 8, 0, &v, &e), TB_ERR_TRUNCATED);
	ck_assert_uint_eq(e.offset, 4096);
	ck_assert_uint_eq(v, 77);
	ck_assert_int_eq(tb_format_check_record(&f, r, 8, 0, &e), TB_ERR_TRUNCATED);
	free(r);
}
END_TEST

START_TEST(r16_legacy_loc_past_record)
{
	static const char text[] = HEAD("r16", "1")
		"\tfield:__data_loc name;\toffset:8;\tsize:2;\n" TAIL;
	uint8_t b[12] = { 1, 0, 0, 0, 0, 0, 0, 0, 240, 0, 'x', 'y' };
	tb_format f = parse_or_die(text);
	uint8_t *r = rec_dup(b, sizeof(b));
	const char *s;
	size_t n;
	tb_error e;
	ck_assert_int_eq(tb_format_check_record(&f, r, 12, 0, &e), TB_ERR_RANGE);
	ck_assert_int_eq(tb_field_str(fld(&f, "name"), r, 12, 0, &s, &n, &e), TB_ERR_RANGE);
	free(r);
	b[8] = 10; /* "xy" without a NUL: stops at the record end */
	r = rec_dup(b, sizeof(b));
	assert_str(fld(&f, "name"), r, 12, 0, "xy");
	b[8] = 12; /* right at the end: empty */
	free(r);
	r = rec_dup(b, sizeof(b));
	assert_str(fld(&f, "name"), r, 12, 0, "");
	free(r);
}
END_TEST

/* ---- integers, signs, sizes, byte orders ---- */

static const char ints_fmt[] = HEAD("ints", "7")
	"\tfield:s8 a;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield:u8 b;\toffset:9;\tsize:1;\tsigned:0;\n"
	"\tfield:s16 c;\toffset:10;\tsize:2;\tsigned:1;\n"
	"\tfield:s32 d;\toffset:12;\tsize:4;\tsigned:1;\n"
	"\tfield:u32 e;\toffset:16;\tsize:4;\tsigned:0;\n"
	"\tfield:s64 g;\toffset:20;\tsize:8;\tsigned:1;\n"
	"\tfield:u64 h;\toffset:28;\tsize:8;\tsigned:0;\n"
	"\tfield:char odd[3];\toffset:36;\tsize:3;\tsigned:0;\n"
	"\tfield:struct x three;\toffset:39;\tsize:3;\tsigned:0;\n"
	"\tfield:s16 arr[2];\toffset:42;\tsize:4;\tsigned:1;\n" TAIL;

START_TEST(integers_both_orders)
{
	static const uint8_t le[46] = {
		7, 0, 0, 0, 0xfe, 0xff, 0xff, 0xff, /* pid -2 */
		0xff, 0xff, 0x00, 0x80, 0xfd, 0xff, 0xff, 0xff, 0xfd, 0xff, 0xff, 0xff,
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x88,
		'a', 'b', 'c', 1, 2, 3, 0xff, 0xff, 0x02, 0x00 };
	static const uint8_t be[46] = {
		0, 7, 0, 0, 0xff, 0xff, 0xff, 0xfe,
		0xff, 0xff, 0x80, 0x00, 0xff, 0xff, 0xff, 0xfd, 0xff, 0xff, 0xff, 0xfd,
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0x88, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01,
		'a', 'b', 'c', 1, 2, 3, 0xff, 0xff, 0x00, 0x02 };
	tb_format f = parse_or_die(ints_fmt);
	int order;
	for (order = 0; order < 2; order++) {
		uint8_t *r = rec_dup(order ? be : le, 46);
		uint64_t v;
		tb_error e;
		ck_assert_uint_eq(get_int(fld(&f, "common_type"), r, 46, order), 7);
		ck_assert_int_eq((int64_t)get_int(fld(&f, "common_pid"), r, 46, order), -2);
		ck_assert_int_eq((int64_t)get_int(fld(&f, "a"), r, 46, order), -1);
		ck_assert_uint_eq(get_int(fld(&f, "b"), r, 46, order), 255);
		ck_assert_int_eq((int64_t)get_int(fld(&f, "c"), r, 46, order), -32768);
		ck_assert_int_eq((int64_t)get_int(fld(&f, "d"), r, 46, order), -3);
		ck_assert_uint_eq(get_int(fld(&f, "e"), r, 46, order), 0xfffffffdu);
		ck_assert_int_eq((int64_t)get_int(fld(&f, "g"), r, 46, order), -1);
		ck_assert_uint_eq(get_int(fld(&f, "h"), r, 46, order), 0x8807060504030201ull);
		assert_str(fld(&f, "odd"), r, 46, order, "abc");
		ck_assert_uint_eq(fld(&f, "three")->kind, TB_FIELD_OPAQUE);
		ck_assert_int_eq(tb_field_int(fld(&f, "three"), r, 46, order, &v, &e),
				 TB_ERR_UNSUPPORTED);
		ck_assert_str_eq(e.what, "integer field size is not 1, 2, 4 or 8");
		ck_assert_int_eq(tb_field_elem(fld(&f, "three"), r, 46, order, 0, &v, &e),
				 TB_ERR_ARG);
		ck_assert_int_eq(tb_field_elem(fld(&f, "arr"), r, 46, order, 0, &v, &e), TB_OK);
		ck_assert_int_eq((int64_t)v, -1);
		ck_assert_int_eq(tb_field_elem(fld(&f, "arr"), r, 46, order, 1, &v, &e), TB_OK);
		ck_assert_uint_eq(v, 2);
		ck_assert_int_eq(tb_field_int(fld(&f, "h"), r, 35, order, &v, &e),
				 TB_ERR_TRUNCATED);
		free(r);
	}
}
END_TEST

/* The numeric reader on the same vectors: every INT/LONG/POINTER field in
 * format order, the values tb_field_int gives, both byte orders, and the
 * record cut at every length. */
START_TEST(reader_integers_both_orders)
{
	static const uint8_t le[46] = {
		7, 0, 0, 0, 0xfe, 0xff, 0xff, 0xff,
		0xff, 0xff, 0x00, 0x80, 0xfd, 0xff, 0xff, 0xff, 0xfd, 0xff, 0xff, 0xff,
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x88,
		'a', 'b', 'c', 1, 2, 3, 0xff, 0xff, 0x02, 0x00 };
	static const uint8_t be[46] = {
		0, 7, 0, 0, 0xff, 0xff, 0xff, 0xfe,
		0xff, 0xff, 0x80, 0x00, 0xff, 0xff, 0xff, 0xfd, 0xff, 0xff, 0xff, 0xfd,
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0x88, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01,
		'a', 'b', 'c', 1, 2, 3, 0xff, 0xff, 0x00, 0x02 };
	/* common_type, flags, preempt_count, pid, a, b, c, d, e, g, h */
	static const uint64_t want[11] = {
		7, 0, 0, (uint64_t)-2, (uint64_t)-1, 255, (uint64_t)-32768, (uint64_t)-3,
		0xfffffffdu, (uint64_t)-1, 0x8807060504030201ull };
	tb_format f = parse_or_die(ints_fmt);
	tb_field_op ops[16];
	int order;
	ck_assert_uint_eq(f.min_size, 46);
	for (order = 0; order < 2; order++) {
		uint8_t *r = rec_dup(order ? be : le, 46);
		tb_field_reader rd;
		uint64_t out[16];
		size_t n, len, k;
		tb_error e;
		ck_assert_int_eq(tb_field_reader_init(&rd, &f, order, ops, 16, &e), TB_OK);
		ck_assert_uint_eq(rd.nops, 11);
		memset(out, 0xaa, sizeof(out));
		ck_assert_int_eq(tb_field_reader_read(&rd, r, 46, out, 16, &n, &e), TB_OK);
		ck_assert_uint_eq(n, 11);
		for (k = 0; k < 11; k++) {
			ck_assert_msg(out[k] == want[k], "order %d op %zu: %llx", order, k,
				      (unsigned long long)out[k]);
			ck_assert_uint_eq(out[k], get_int(&f.fields[ops[k].index], r, 46, order));
		}
		ck_assert_uint_eq(out[11], 0xaaaaaaaaaaaaaaaaull); /* nothing past nops */
		/* the fields skipped: odd[3], three (size 3), arr[2] */
		ck_assert_uint_eq(ops[10].index, 10);
		/* a short out array: only its room is written */
		memset(out, 0xaa, sizeof(out));
		ck_assert_int_eq(tb_field_reader_read(&rd, r, 46, out, 3, &n, &e), TB_OK);
		ck_assert_uint_eq(n, 3);
		ck_assert_uint_eq(out[2], 0);
		ck_assert_uint_eq(out[3], 0xaaaaaaaaaaaaaaaaull);
		/* every shorter record: truncated, nothing written */
		for (len = 0; len < 46; len++) {
			uint8_t *cut = rec_dup(r, len);
			memset(out, 0xaa, sizeof(out));
			ck_assert_int_eq(tb_field_reader_read(&rd, len ? cut : NULL, len, out, 16,
							      &n, &e),
					 TB_ERR_TRUNCATED);
			ck_assert_uint_eq(n, 0);
			ck_assert_uint_eq(e.offset, len);
			ck_assert_uint_eq(out[0], 0xaaaaaaaaaaaaaaaaull);
			free(cut);
		}
		free(r);
	}
}
END_TEST

/* The common fields are read without their ops only in the layout every
 * kernel writes (u16, u8, u8, s32 at 0, 2, 3, 4); any other common
 * layout, and big-endian records, go through the ops, with the values
 * tb_field_int gives. */
START_TEST(reader_common_header_layouts)
{
	static const char *const texts[3] = {
		HEAD("std", "7") "\tfield:u8 a;\toffset:8;\tsize:1;\tsigned:0;\n" TAIL,
		/* an unsigned common_pid */
		"name: upid\nID: 7\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
		"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
		"\tfield:unsigned int common_pid;\toffset:4;\tsize:4;\tsigned:0;\n\n"
		"\tfield:u8 a;\toffset:8;\tsize:1;\tsigned:0;\n" TAIL,
		/* flags and preempt_count in the other order, pid signed */
		"name: swap\nID: 7\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
		"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
		"\tfield:u8 a;\toffset:8;\tsize:1;\tsigned:0;\n" TAIL,
	};
	/* type 0x0107, flags 0x81, preempt 0x02, pid 0xfffffffe, a 0x90 */
	static const uint8_t le[12] = { 7, 1, 0x81, 2, 0xfe, 0xff, 0xff, 0xff, 0x90, 0, 0, 0 };
	static const uint8_t be[12] = { 1, 7, 0x81, 2, 0xff, 0xff, 0xff, 0xfe, 0x90, 0, 0, 0 };
	static const uint64_t want[3][5] = {
		{ 0x107, 0x81, 2, (uint64_t)-2, 0x90 },
		{ 0x107, 0x81, 2, 0xfffffffeu, 0x90 },
		{ 0x107, 2, 0x81, (uint64_t)-2, 0x90 },
	};
	size_t t, k;
	int order;
	for (t = 0; t < 3; t++) {
		tb_format f = parse_or_die(texts[t]);
		for (order = 0; order < 2; order++) {
			uint8_t *r = rec_dup(order ? be : le, 12);
			tb_field_op ops[8];
			tb_field_reader rd;
			uint64_t out[8];
			size_t n;
			tb_error e;
			ck_assert_int_eq(tb_field_reader_init(&rd, &f, order, ops, 8, &e), TB_OK);
			ck_assert_uint_eq(rd.nops, 5);
			ck_assert_int_eq(tb_field_reader_read(&rd, r, 12, out, 8, &n, &e), TB_OK);
			ck_assert_uint_eq(n, 5);
			for (k = 0; k < 5; k++) {
				ck_assert_uint_eq(out[k], get_int(&f.fields[ops[k].index], r, 12,
								  order));
				ck_assert_msg(order || out[k] == want[t][k], "%s op %zu: %llx",
					      texts[t] + 6, k, (unsigned long long)out[k]);
			}
			/* the record one byte short of its static fields */
			ck_assert_int_eq(tb_field_reader_read(&rd, r, 8, out, 8, &n, &e),
					 TB_ERR_TRUNCATED);
			free(r);
		}
	}
}
END_TEST

/* A format of fewer than 8 static bytes (no 8-byte load may be used);
 * the storage check, NULL arguments and a caller-built format whose field
 * lies past its static size are errors. */
START_TEST(reader_narrow_and_errors)
{
	static const char tiny[] = "name: tiny\nID: 9\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:s8 a;\toffset:2;\tsize:1;\tsigned:1;\n"
		"\tfield:char s[2];\toffset:3;\tsize:2;\tsigned:0;\n" TAIL;
	static const uint8_t le[5] = { 9, 0, 0x80, 'h', 'i' };
	static const uint8_t be[5] = { 0, 9, 0x80, 'h', 'i' };
	tb_format f = parse_or_die(tiny), bad;
	tb_field_op ops[4];
	tb_field_reader rd;
	tb_field fields[2];
	uint64_t out[4];
	size_t n;
	tb_error e;
	int order;
	ck_assert_uint_eq(f.min_size, 5);
	for (order = 0; order < 2; order++) {
		uint8_t *r = rec_dup(order ? be : le, 5);
		ck_assert_int_eq(tb_field_reader_init(&rd, &f, order, ops, 4, &e), TB_OK);
		ck_assert_uint_eq(rd.nops, 2);
		ck_assert_int_eq(tb_field_reader_read(&rd, r, 5, out, 4, &n, &e), TB_OK);
		ck_assert_uint_eq(n, 2);
		ck_assert_uint_eq(out[0], 9);
		ck_assert_int_eq((int64_t)out[1], -128);
		ck_assert_int_eq(tb_field_reader_read(&rd, r, 4, out, 4, &n, &e),
				 TB_ERR_TRUNCATED);
		free(r);
	}
	/* storage for one op, two needed: the count needed comes back */
	ck_assert_int_eq(tb_field_reader_init(&rd, &f, 0, ops, 1, &e), TB_ERR_NO_SPACE);
	ck_assert_uint_eq(rd.nops, 2);
	ck_assert_int_eq(tb_field_reader_init(NULL, &f, 0, ops, 4, &e), TB_ERR_ARG);
	ck_assert_int_eq(tb_field_reader_init(&rd, NULL, 0, ops, 4, &e), TB_ERR_ARG);
	ck_assert_int_eq(tb_field_reader_init(&rd, &f, 0, NULL, 4, &e), TB_ERR_ARG);
	ck_assert_int_eq(tb_field_reader_init(&rd, &f, 0, ops, 4, &e), TB_OK);
	ck_assert_int_eq(tb_field_reader_read(NULL, le, 5, out, 4, &n, &e), TB_ERR_ARG);
	ck_assert_int_eq(tb_field_reader_read(&rd, NULL, 5, out, 4, &n, &e), TB_ERR_ARG);
	ck_assert_int_eq(tb_field_reader_read(&rd, le, 5, NULL, 4, &n, &e), TB_ERR_ARG);
	ck_assert_int_eq(tb_field_reader_read(&rd, le, 5, NULL, 0, NULL, &e), TB_OK);
	/* a caller-built format claiming 2 static bytes with a field at 4..8 */
	memset(fields, 0, sizeof(fields));
	fields[0].offset = 4;
	fields[0].size = fields[0].elem_size = 4;
	fields[0].count = 1;
	fields[0].kind = TB_FIELD_INT;
	memset(&bad, 0, sizeof(bad));
	bad.fields = fields;
	bad.nfields = 1;
	bad.min_size = 2;
	ck_assert_int_eq(tb_field_reader_init(&rd, &bad, 0, ops, 4, &e), TB_ERR_VALUE);
	ck_assert_uint_eq(e.offset, 4);
}
END_TEST

/* The ftrace print event: a rest-of-record string (Perfetto's vectors, spec 5.2). */
START_TEST(rest_of_record_strings)
{
	static const char text[] = HEAD("print", "5")
		"\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n"
		"\tfield:char buf[];\toffset:16;\tsize:0;\tsigned:0;\n" TAIL;
	uint8_t b[32] = { 5, 0, 1, 0, 0x28, 0x70, 0, 0, 0xac, 0x5d, 0x16, 0x61, 0x86, 0xff, 0xff, 0xff };
	tb_format f = parse_or_die(text);
	const tb_field *buf = fld(&f, "buf");
	uint8_t *r;
	size_t cnt;
	tb_error e;
	memcpy(b + 16, "Hello, world!\n\0\xff", 16);
	r = rec_dup(b, 32);
	ck_assert_uint_eq(get_int(fld(&f, "ip"), r, 32, 0), 0xffffff8661165dacull);
	ck_assert_uint_eq(get_int(fld(&f, "common_pid"), r, 32, 0), 28712);
	assert_str(buf, r, 32, 0, "Hello, world!\n");
	ck_assert_int_eq(tb_field_count(buf, r, 32, 0, &cnt, &e), TB_OK);
	ck_assert_uint_eq(cnt, 16);
	free(r);
	memcpy(b + 16, "Hello, world!aaa", 16); /* no NUL: up to the record end */
	r = rec_dup(b, 32);
	assert_str(buf, r, 32, 0, "Hello, world!aaa");
	free(r);
	memset(b + 16, 0, 16);
	r = rec_dup(b, 32);
	assert_str(buf, r, 32, 0, "");
	assert_str(buf, r, 16, 0, ""); /* an empty rest is present, not an error */
	ck_assert_int_eq(tb_field_count(buf, r, 15, 0, &cnt, &e), TB_ERR_TRUNCATED);
	free(r);
}
END_TEST

START_TEST(dynamic_absent_and_partial)
{
	static const char text[] = HEAD("dyn", "6")
		"\tfield:__data_loc u32[] vals;\toffset:8;\tsize:4;\tsigned:0;\n"
		"\tfield:__data_loc char[] s;\toffset:12;\tsize:4;\tsigned:0;\n" TAIL;
	/* vals: offset 16, length 6 (not a whole number of u32); s: length 0 */
	uint8_t b[24] = { 6, 0, 0, 0, 0, 0, 0, 0, 16, 0, 6, 0, 0xff, 0xff, 0, 0,
			  1, 0, 0, 0, 2, 0, 0, 0 };
	tb_format f = parse_or_die(text);
	uint8_t *r = rec_dup(b, sizeof(b));
	const uint8_t *p;
	const char *s;
	size_t n, cnt;
	uint64_t v;
	tb_error e;
	/* zero length = absent, whatever the offset says */
	ck_assert_int_eq(tb_format_check_record(&f, r, 24, 0, &e), TB_OK);
	ck_assert_int_eq(tb_field_bytes(fld(&f, "s"), r, 24, 0, &p, &n, &e), TB_OK);
	ck_assert_uint_eq(n, 0);
	ck_assert_ptr_null(p);
	ck_assert_int_eq(tb_field_str(fld(&f, "s"), r, 24, 0, &s, &n, &e), TB_OK);
	ck_assert_uint_eq(n, 0);
	ck_assert_int_eq(tb_field_count(fld(&f, "vals"), r, 24, 0, &cnt, &e), TB_ERR_LENGTH);
	ck_assert_int_eq(tb_field_elem(fld(&f, "vals"), r, 24, 0, 0, &v, &e), TB_OK);
	ck_assert_uint_eq(v, 1);
	ck_assert_int_eq(tb_field_elem(fld(&f, "vals"), r, 24, 0, 1, &v, &e), TB_ERR_RANGE);
	ck_assert_int_eq(tb_field_int(fld(&f, "vals"), r, 24, 0, &v, &e), TB_ERR_ARG);
	ck_assert_int_eq(tb_field_str(fld(&f, "common_pid"), r, 24, 0, &s, &n, &e), TB_ERR_ARG);
	ck_assert_int_eq(tb_field_count(fld(&f, "common_pid"), r, 24, 0, &cnt, &e), TB_OK);
	ck_assert_uint_eq(cnt, 1);
	/* the loc word itself cut off */
	ck_assert_int_eq(tb_field_bytes(fld(&f, "s"), r, 14, 0, &p, &n, &e), TB_ERR_TRUNCATED);
	ck_assert_int_eq(tb_field_int(NULL, r, 24, 0, &v, &e), TB_ERR_ARG);
	ck_assert_int_eq(tb_field_bytes(fld(&f, "s"), NULL, 24, 0, &p, &n, &e), TB_ERR_ARG);
	ck_assert_int_eq(tb_format_check_record(NULL, r, 24, 0, &e), TB_ERR_ARG);
	ck_assert_int_eq(tb_format_decode(&f, NULL, 3, 0, NULL, 0, &e), TB_ERR_ARG);
	free(r);
}
END_TEST

/* ---- every field of every real record, against libtraceevent ---- */

#define NFMT 2323   /* formats in the 6.18 sample */
#define NFMT_MAX 4096

typedef struct real_ctx {
	tb_tarball tar;
	tb_format events[NFMT_MAX];
	tb_field *fields;
	uint32_t index[16384];
	char systems[NFMT_MAX][64];
	tb_format_set set;
	struct tep_handle *tep;
} real_ctx;

/* Formats from a tarball or a directory, in our set and in libtraceevent. */
static real_ctx *load_real(const char *events_dir, size_t *nformats)
{
	real_ctx *c = calloc(1, sizeof(*c));
	size_t i, n = 0;
	ck_assert_ptr_nonnull(c);
	c->fields = calloc(65536, sizeof(tb_field));
	if (events_dir)
		ck_assert_int_eq(tb_tarball_from_dir(events_dir, &c->tar), 0);
	else
		ck_assert_int_eq(tb_tarball_load(tb_test_path("tests/data/formats-6.18.tar.gz"),
						 &c->tar), 0);
	ck_assert_int_eq(tb_format_set_init(&c->set, c->events, NFMT_MAX, c->fields, 65536,
					    c->index, ARRAY_LEN(c->index), 8),
			 TB_OK);
	c->tep = tep_alloc();
	tep_set_loglevel(TEP_LOG_NONE);
	tep_set_long_size(c->tep, 8);
	tep_set_file_bigendian(c->tep, TEP_LITTLE_ENDIAN);
	for (i = 0; i < c->tar.count && n < NFMT_MAX; i++) {
		char ev[128];
		const tb_tar_entry *e = &c->tar.entries[i];
		if (!tb_tar_is_format(e, c->systems[n], 64, ev, sizeof(ev)))
			continue;
		ck_assert_int_eq(tb_format_set_add(&c->set, e->data, e->len, c->systems[n],
						   strlen(c->systems[n]), NULL, NULL),
				 TB_OK);
		ck_assert_int_eq(tep_parse_event(c->tep, e->data, e->len, c->systems[n]), 0);
		n++;
	}
	*nformats = n;
	return c;
}

static void free_real(real_ctx *c)
{
	tep_free(c->tep);
	tb_tarball_free(&c->tar);
	free(c->fields);
	free(c);
}

typedef struct diff_stats {
	size_t records, ints, arrays, strings, dynamics;
} diff_stats;

static void compare_record(real_ctx *c, const uint8_t *data, size_t size,
			   diff_stats *st)
{
	const tb_format *f;
	struct tep_event *ev;
	struct tep_record trec;
	tb_error e;
	uint32_t i;
	uint8_t *r = rec_dup(data, size);

	ck_assert_int_eq(tb_format_set_lookup(&c->set, r, size, 0, &f, &e), TB_OK);
	ck_assert_int_eq(tb_format_check_record(f, r, size, 0, &e), TB_OK);
	memset(&trec, 0, sizeof(trec));
	trec.data = r;
	trec.size = (int)size;
	ev = tep_find_event(c->tep, tep_data_type(c->tep, &trec));
	ck_assert_ptr_nonnull(ev);
	ck_assert_uint_eq((uint32_t)ev->id, f->id);
	for (i = 0; i < f->nfields; i++) {
		const tb_field *fl = &f->fields[i];
		char name[160];
		struct tep_format_field *tf;
		snprintf(name, sizeof(name), "%.*s", (int)fl->name_len, fl->name);
		tf = tep_find_any_field(ev, name);
		ck_assert_ptr_nonnull(tf);
		if (fl->kind == TB_FIELD_INT || fl->kind == TB_FIELD_LONG ||
		    fl->kind == TB_FIELD_POINTER) {
			unsigned long long tv;
			uint64_t v;
			ck_assert_int_eq(tep_read_number_field(tf, r, &tv), 0);
			if ((tf->flags & TEP_FIELD_IS_SIGNED) && tf->size < 8 &&
			    (tv >> (8 * tf->size - 1)) & 1)
				tv |= ~0ull << (8 * tf->size);
			ck_assert_int_eq(tb_field_int(fl, r, size, 0, &v, &e), TB_OK);
			ck_assert_msg(v == tv, "%s: %llu != %llu", name,
				      (unsigned long long)v, tv);
			st->ints++;
		} else {
			struct trace_seq seq;
			int len = 0;
			const uint8_t *p;
			size_t n;
			void *raw;
			trace_seq_init(&seq);
			raw = tep_get_field_raw(&seq, ev, name, &trec, &len, 0);
			trace_seq_destroy(&seq);
			ck_assert_int_eq(tb_field_bytes(fl, r, size, 0, &p, &n, &e), TB_OK);
			if (fl->kind == TB_FIELD_DYNAMIC && n == 0) {
				ck_assert_int_eq(len, 0);
			} else if (fl->kind != TB_FIELD_REST) {
				ck_assert_ptr_nonnull(raw);
				ck_assert_int_eq(len, (int)n);
				ck_assert_ptr_eq(raw, p);
			}
			if (fl->kind == TB_FIELD_DYNAMIC)
				st->dynamics++;
			else if (fl->kind == TB_FIELD_STRING)
				st->strings++;
			else
				st->arrays++;
		}
	}
	st->records++;
	free(r);
}

/*
 * Walk a trace_pipe_raw dump with tb_kbuf (ours) and kbuffer (theirs) in
 * lockstep: the same records at the same place and time, then every field
 * of each through both libraries.
 */
static void walk_cpu_file(real_ctx *c, const char *path, size_t subbuf, diff_stats *st)
{
	size_t len;
	uint8_t *buf = tb_test_read_file(path, &len);
	struct kbuffer *kb = kbuffer_alloc(KBUFFER_LSIZE_8, KBUFFER_ENDIAN_LITTLE);
	tb_kbuf_layout layout;
	tb_kbuf_stream s;
	tb_kbuf tk;
	tb_error e;
	ck_assert_ptr_nonnull(buf);
	ck_assert_uint_eq(len % subbuf, 0);
	ck_assert_int_eq(tb_kbuf_layout_init(&layout, 0, 8, (uint32_t)subbuf, 0), TB_OK);
	tb_kbuf_stream_init(&s, &layout, buf, len);
	while (tb_kbuf_stream_next(&s, &tk, &e) == TB_OK) {
		unsigned long long ts;
		tb_kbuf_record r;
		void *data;
		ck_assert_int_eq(kbuffer_load_subbuffer(kb, buf + s.subbuf_offset), 0);
		for (data = kbuffer_read_event(kb, &ts); data;
		     data = kbuffer_next_event(kb, &ts)) {
			ck_assert_int_eq(tb_kbuf_next_event(&tk, &r), TB_OK);
			ck_assert_ptr_eq(r.payload, data);
			ck_assert_uint_eq(r.payload_len, (uint32_t)kbuffer_event_size(kb));
			ck_assert_uint_eq(r.ts, ts);
			compare_record(c, r.payload, r.payload_len, st);
		}
		ck_assert_int_eq(tb_kbuf_next_event(&tk, &r), TB_END);
	}
	ck_assert_uint_eq(s.next, len);
	kbuffer_free(kb);
	free(buf);
}

START_TEST(real_records_agree_with_libtraceevent)
{
	size_t n;
	real_ctx *c = load_real(NULL, &n);
	diff_stats st = { 0 };
	ck_assert_uint_eq(n, NFMT);
	walk_cpu_file(c, tb_test_path("tests/data/raw-sched4k/cpu0.raw"), 4096, &st);
	walk_cpu_file(c, tb_test_path("tests/data/raw-sched4k/cpu1.raw"), 4096, &st);
	/* the walker's differential counts 53,737 events in these pages */
	ck_assert_uint_eq(st.records, 53737);
	ck_assert_uint_eq(st.ints, 385830);
	ck_assert_uint_eq(st.strings, 9954);
	ck_assert_uint_eq(st.dynamics, 2781);
	ck_assert_uint_eq(st.arrays, 0);
	free_real(c);
}
END_TEST

/*
 * The numeric reader on every real record: one reader per format, built
 * when the format is first met, must give for every numeric field exactly
 * what tb_field_int gives (and libtraceevent agrees with that above).
 */
START_TEST(real_records_reader_matches_field_int)
{
	static const char *const files[2] = { "tests/data/raw-sched4k/cpu0.raw",
					      "tests/data/raw-sched4k/cpu1.raw" };
	size_t n, fi, records = 0, ints = 0, used = 0;
	real_ctx *c = load_real(NULL, &n);
	tb_field_reader *readers = calloc(NFMT_MAX, sizeof(*readers));
	tb_field_op *ops = calloc(65536, sizeof(*ops));
	tb_kbuf_layout layout;
	ck_assert_ptr_nonnull(readers);
	ck_assert_ptr_nonnull(ops);
	ck_assert_int_eq(tb_kbuf_layout_init(&layout, 0, 8, 4096, 0), TB_OK);
	for (fi = 0; fi < 2; fi++) {
		size_t len;
		uint8_t *buf = tb_test_read_file(tb_test_path(files[fi]), &len);
		tb_kbuf_stream s;
		tb_kbuf kb;
		tb_error e;
		ck_assert_ptr_nonnull(buf);
		tb_kbuf_stream_init(&s, &layout, buf, len);
		while (tb_kbuf_stream_next(&s, &kb, &e) == TB_OK) {
			tb_kbuf_record rec;
			while (tb_kbuf_next_event(&kb, &rec) == TB_OK) {
				uint8_t *r = rec_dup(rec.payload, rec.payload_len);
				const tb_format *f;
				tb_field_reader *rd;
				uint64_t out[TB_FORMAT_MAX_FIELDS];
				size_t k, got, numeric = 0;
				uint32_t j;
				ck_assert_int_eq(tb_format_set_lookup(&c->set, r, rec.payload_len, 0,
								      &f, &e), TB_OK);
				rd = &readers[f - c->set.events];
				if (!rd->fmt) {
					ck_assert_int_eq(tb_field_reader_init(rd, f, 0, ops + used,
									      65536 - used, &e),
							 TB_OK);
					used += rd->nops;
				}
				ck_assert_int_eq(tb_field_reader_read(rd, r, rec.payload_len, out,
								      TB_FORMAT_MAX_FIELDS, &got, &e),
						 TB_OK);
				ck_assert_uint_eq(got, rd->nops);
				for (k = 0; k < got; k++) {
					const tb_field *fl = &f->fields[rd->ops[k].index];
					ck_assert_uint_eq(out[k],
							  get_int(fl, r, rec.payload_len, 0));
				}
				for (j = 0; j < f->nfields; j++)
					numeric += f->fields[j].kind <= TB_FIELD_POINTER;
				ck_assert_uint_eq(got, numeric);
				ints += got;
				records++;
				free(r);
			}
		}
		free(buf);
	}
	/* the same counts as the differential test above */
	ck_assert_uint_eq(records, 53737);
	ck_assert_uint_eq(ints, 385830);
	free(ops);
	free(readers);
	free_real(c);
}
END_TEST

/*
 * A fresh capture (tests/capture-fresh.sh OUTDIR), when TB_FRESH_DIR names
 * one: every field of every record against libtraceevent, with the
 * formats the capture copied.  Skipped (passes) without it.
 */
START_TEST(fresh_capture_agrees_with_libtraceevent)
{
	const char *dir = getenv("TB_FRESH_DIR");
	char path[1024];
	size_t n, cpu, kb = 4, len;
	diff_stats st = { 0 };
	real_ctx *c;
	char *text;
	if (!dir || !*dir)
		return;
	snprintf(path, sizeof(path), "%s/subbuf_kb", dir);
	if ((text = (char *)tb_test_read_file(path, &len)) != NULL) {
		kb = (size_t)strtoul(text, NULL, 10);
		free(text);
	}
	snprintf(path, sizeof(path), "%s/events", dir);
	c = load_real(path, &n);
	ck_assert_uint_gt(n, 0);
	for (cpu = 0; cpu < 1024; cpu++) {
		snprintf(path, sizeof(path), "%s/cpu%zu.raw", dir, cpu);
		if (!tb_test_exists(path))
			break;
		walk_cpu_file(c, path, kb * 1024, &st);
	}
	fprintf(stderr, "fresh capture %s: %zu formats, %zu records, %zu integer fields, "
			"%zu strings, %zu arrays, %zu dynamic fields: all equal\n",
		dir, n, st.records, st.ints, st.strings, st.arrays, st.dynamics);
	ck_assert_uint_gt(st.records, 0);
	free_real(c);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("field");
	TCase *tc = tcase_create("vectors");
	tcase_add_test(tc, utest_dynamic_string);
	tcase_add_test(tc, utest_old_dynamic_string);
	tcase_add_test(tc, utest_cpumask_raw_bytes);
	tcase_add_test(tc, i915_flip_record);
	tcase_add_test(tc, r8_data_loc_string_without_nul);
	tcase_add_test(tc, r9_rel_loc_past_record);
	tcase_add_test(tc, rel_loc_base_is_the_loc_word_end);
	tcase_add_test(tc, r10_static_array_past_record);
	tcase_add_test(tc, r11_field_far_past_record);
	tcase_add_test(tc, r16_legacy_loc_past_record);
	tcase_add_test(tc, integers_both_orders);
	tcase_add_test(tc, rest_of_record_strings);
	tcase_add_test(tc, dynamic_absent_and_partial);
	tcase_add_test(tc, reader_integers_both_orders);
	tcase_add_test(tc, reader_narrow_and_errors);
	tcase_add_test(tc, reader_common_header_layouts);
	suite_add_tcase(s, tc);
	tc = tcase_create("real");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, real_records_agree_with_libtraceevent);
	tcase_add_test(tc, real_records_reader_matches_field_int);
	tcase_add_test(tc, fresh_capture_agrees_with_libtraceevent);
	suite_add_tcase(s, tc);
	return s;
}

Suite *tb_suite_field(void)
{
	return suite();
}
