/*
 * The CLI's trace-cmd -R field printer (cli/rawfields.c, compiled in here)
 * against libtraceevent itself, on all 2,323 real formats of
 * tests/data/formats-6.18.tar.gz:
 *  - whether a print fmt fails to parse (then every field prints raw)
 *    agrees with tep_parse_format for every format;
 *  - for records of pseudo-random bytes (dynamic fields pointing at short
 *    strings inside the record), " name=value" for every field equals
 *    tep_record_print_fields byte for byte.
 */
#include <check.h>
#include <event-parse.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../cli/rawfields.c"
#include "tarball.h"
#include "testutil.h"

Suite *tb_suite_rawfields(void);

#define MAX_FIELDS 512

static int is_format(const tb_tar_entry *e)
{
	size_t n = strlen(e->path);
	return n > 7 && !strcmp(e->path + n - 7, "/format");
}

START_TEST(print_fmt_failures_agree_with_libtraceevent)
{
	tb_tarball tar;
	static tb_field fields[MAX_FIELDS];
	size_t i, checked = 0, failed = 0;
	struct tep_handle *tep = tep_alloc();
	ck_assert_int_eq(tb_tarball_load(tb_test_path("tests/data/formats-6.18.tar.gz"), &tar), 0);
	tep_set_long_size(tep, 8);
	for (i = 0; i < tar.count; i++) {
		const tb_tar_entry *e = &tar.entries[i];
		struct tep_event *ev = NULL;
		tb_format f;
		tb_format_error fe;
		rf_event re;
		int tfail, ofail;
		if (!is_format(e))
			continue;
		tfail = tep_parse_format(tep, &ev, e->data, e->len, "sys") != 0 || !ev ||
			(ev->flags & TEP_EVENT_FL_FAILED);
		ck_assert_int_eq(tb_format_parse(e->data, e->len, fields, MAX_FIELDS, 8, &f, &fe),
				 TB_OK);
		memset(&re, 0, sizeof(re));
		ofail = parse_print_fmt(&f, &re) != 0;
		if (tfail != ofail)
			ck_abort_msg("%s: libtraceevent %s, ours %s", e->path,
				     tfail ? "fails" : "parses", ofail ? "fails" : "parses");
		for (size_t k = 0; k < re.n; k++)
			free(re.items[k].text);
		free(re.items);
		checked++;
		failed += (size_t)tfail;
	}
	printf("rawfields: %zu formats, %zu fail in both\n", checked, failed);
	ck_assert_uint_eq(checked, 2323);
	tep_free(tep);
	tb_tarball_free(&tar);
}
END_TEST

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint8_t rnd8(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint8_t)(rng >> 24);
}

/* A record for format f: random bytes, common_type = id, every dynamic
 * field pointing at a short printable string after the static fields. */
static size_t make_record(const tb_format *f, uint8_t *rec, size_t cap, int variant)
{
	size_t end = 8, i, pos;
	for (i = 0; i < f->nfields; i++)
		if (f->fields[i].offset + f->fields[i].size > end)
			end = f->fields[i].offset + f->fields[i].size;
	if (end + 16 * f->nfields + 16 > cap)
		return 0;
	/* zeros after the record: libtraceevent prints a rest-of-record
	 * string up to a NUL, past the record end (we stop at the end) */
	memset(rec, 0, cap);
	for (i = 0; i < end; i++)
		rec[i] = variant == 0 ? 0 : variant == 1 ? 0xff : rnd8();
	/* small values half of the time: plausible numbers, printable text */
	if (variant == 3)
		for (i = 0; i < end; i++)
			rec[i] = (uint8_t)('a' + rnd8() % 26);
	rec[0] = (uint8_t)f->id;
	rec[1] = (uint8_t)(f->id >> 8);
	pos = end;
	for (i = 0; i < f->nfields; i++) {
		const tb_field *fl = &f->fields[i];
		if (fl->kind == TB_FIELD_DYNAMIC && fl->size == 4) {
			size_t len = 6, k, off = pos;
			uint32_t loc;
			for (k = 0; k < len - 1; k++)
				rec[pos++] = (uint8_t)('a' + rnd8() % 26);
			rec[pos++] = 0;
			if (fl->flags & TB_FIELD_REL)
				off -= fl->offset + 4;
			loc = (uint32_t)(len << 16 | off);
			rec[fl->offset] = (uint8_t)loc;
			rec[fl->offset + 1] = (uint8_t)(loc >> 8);
			rec[fl->offset + 2] = (uint8_t)(loc >> 16);
			rec[fl->offset + 3] = (uint8_t)(loc >> 24);
		}
	}
	while (pos % 4)
		rec[pos++] = 0;
	return pos;
}

START_TEST(fields_equal_libtraceevent_output)
{
	tb_tarball tar;
	static tb_format fmts[4096];
	static tb_field fields[4096 * 32];
	static uint32_t index[16384];
	static uint8_t rec[8192];
	tb_format_set set;
	struct tep_handle *tep = tep_alloc();
	rf_syms syms;
	rf_ctx *ctx;
	size_t i, compared = 0, events = 0;
	char *buf = malloc(1 << 16);
	ck_assert_int_eq(tb_tarball_load(tb_test_path("tests/data/formats-6.18.tar.gz"), &tar), 0);
	tep_set_long_size(tep, 8);
	tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
	ck_assert_int_eq(tb_format_set_init(&set, fmts, 4096, fields, 4096 * 32, index, 16384, 8),
			 TB_OK);
	for (i = 0; i < tar.count; i++) {
		const tb_tar_entry *e = &tar.entries[i];
		struct tep_event *ev = NULL;
		if (!is_format(e))
			continue;
		(void)tep_parse_format(tep, &ev, e->data, e->len, "sys");
		ck_assert_int_eq(tb_format_set_add(&set, e->data, e->len, "sys", 3, NULL, NULL), TB_OK);
	}
	memset(&syms, 0, sizeof(syms));
	syms.long_size = 8;
	ctx = rf_new(&set, &syms);
	for (i = 0; i < set.count; i++) {
		const tb_format *f = &set.events[i];
		struct tep_event *tev = tep_find_event(tep, (int)f->id);
		int variant;
		if (!tev)
			continue;
		events++;
		for (variant = 0; variant < 4; variant++) {
			struct trace_seq s;
			struct tep_record r;
			rf_out o;
			size_t len = make_record(f, rec, sizeof(rec), variant);
			if (!len)
				break;
			memset(&r, 0, sizeof(r));
			r.data = rec;
			r.size = (int)len;
			trace_seq_init(&s);
			tep_record_print_fields(&s, &r, tev);
			trace_seq_terminate(&s);
			o.p = buf;
			o.len = 0;
			o.cap = 1 << 16;
			o.truncated = 0;
			rf_fields(ctx, &o, f, rec, len);
			if (o.len != s.len || memcmp(o.p, s.buffer, o.len) != 0)
				ck_abort_msg("%.*s (variant %d):\n  tep:  %s\n  ours: %.*s",
					     (int)f->name_len, f->name, variant, s.buffer,
					     (int)o.len, o.p);
			trace_seq_destroy(&s);
			compared++;
		}
	}
	printf("rawfields: %zu records of %zu events equal libtraceevent's -R fields\n",
	       compared, events);
	ck_assert_uint_gt(compared, 8000);
	rf_free(ctx);
	free(buf);
	tep_free(tep);
	tb_tarball_free(&tar);
}
END_TEST

/* Hostile print fmts stay bounded: a huge width is not honoured (the
 * field prints raw), a format with more conversions than arguments fails
 * like libtraceevent's (raw), and no print fmt at all prints raw. */
START_TEST(hostile_print_fmts_stay_bounded)
{
	static const char *const texts[] = {
		"name: w\nID: 7\nformat:\n\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\n\tfield:int a;\toffset:4;\tsize:4;\tsigned:1;\n\nprint fmt: \"%999999999d\", REC->a\n",
		"name: w\nID: 7\nformat:\n\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\n\tfield:int a;\toffset:4;\tsize:4;\tsigned:1;\n\nprint fmt: \"%*d %d\", REC->a\n",
		"name: w\nID: 7\nformat:\n\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\n\tfield:int a;\toffset:4;\tsize:4;\tsigned:1;\n\nprint fmt: \"a=%d\n",
	};
	static const char *const want[] = { " a=-1", " a=-1", " a=-1" };
	size_t i;
	for (i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		static tb_format fmts[1];
		static tb_field fields[8];
		static uint32_t index[4];
		tb_format_set set;
		rf_syms syms;
		rf_ctx *ctx;
		char buf[256];
		rf_out o = { buf, 0, sizeof(buf), 0 };
		uint8_t rec[8] = { 7, 0, 0, 0, 0xff, 0xff, 0xff, 0xff };
		ck_assert_int_eq(tb_format_set_init(&set, fmts, 1, fields, 8, index, 4, 8), TB_OK);
		ck_assert_int_eq(tb_format_set_add(&set, texts[i], strlen(texts[i]), NULL, 0, NULL, NULL),
				 TB_OK);
		memset(&syms, 0, sizeof(syms));
		syms.long_size = 8;
		ctx = rf_new(&set, &syms);
		rf_fields(ctx, &o, &set.events[0], rec, sizeof(rec));
		ck_assert_uint_eq(o.len, strlen(want[i]));
		ck_assert(!memcmp(buf, want[i], o.len));
		rf_free(ctx);
	}
}
END_TEST

Suite *tb_suite_rawfields(void)
{
	Suite *s = suite_create("rawfields");
	TCase *t = tcase_create("libtraceevent");
	tcase_set_timeout(t, 120);
	tcase_add_test(t, print_fmt_failures_agree_with_libtraceevent);
	tcase_add_test(t, fields_equal_libtraceevent_output);
	tcase_add_test(t, hostile_print_fmts_stay_bounded);
	suite_add_tcase(s, t);
	return s;
}
