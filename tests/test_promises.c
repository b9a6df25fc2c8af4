/*
 * Promises of the headers broken once and found by fuzzing the public API
 * from the headers alone (issue 38): each test fails without its fix.  The
 * NULL + 0 ones (json_str_null_empty, pb_count_only_empty_writes,
 * parsers_with_null_storage) fail under clang's UBSan (make sanitize-ub):
 * gcc's does not check pointer overflow.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "datwriter.h"
#include "pagewriter.h"
#include "testutil.h"
#include "tracebound/tracebound.h"

Suite *tb_suite_promises(void);

static uint8_t file[1 << 16];
static uint8_t pages[2][4096];

/* A v7 file: CPU 0 holds three sched_wakeup (id 300) events, CPU 1 one
 * function (id 1) event, later. */
static size_t events_file(dw_layout *lay)
{
	tbt_pw w;
	dw_spec s;
	uint8_t wakeup[8] = { 0x2c, 0x01 }, function[8] = { 1, 0 };
	size_t n;
	memset(pages, 0, sizeof(pages));
	tbt_pw_init(&w, pages[0], 4096, 0, 8, 1000);
	tbt_pw_data(&w, 0, wakeup, sizeof(wakeup), 0);
	tbt_pw_data(&w, 5, wakeup, sizeof(wakeup), 0);
	tbt_pw_data(&w, 5, wakeup, sizeof(wakeup), 0);
	tbt_pw_finish(&w, 0, 0, 0);
	tbt_pw_init(&w, pages[1], 4096, 0, 8, 2000);
	tbt_pw_data(&w, 0, function, sizeof(function), 0);
	tbt_pw_finish(&w, 0, 0, 0);
	dw_default(&s, 7);
	s.cpu_data[0] = pages[0];
	s.cpu_data[1] = pages[1];
	n = dw_write(&s, file, sizeof(file), lay);
	ck_assert_uint_gt(n, 0);
	return n;
}

static tb_session_source dat_source(size_t n)
{
	tb_session_source src;
	memset(&src, 0, sizeof(src));
	src.dat = file;
	src.dat_len = n;
	src.decompress.fn = dw_copy_decompress;
	return src;
}

/* Walk everything: events described (TB_OK), events refused their format
 * (TB_ERR_NO_SPACE, none else); every event comes out as one or the other. */
static void walk(tb_session *s, size_t *ok, size_t *refused)
{
	tb_session_event ev;
	tb_error e;
	tb_status st;
	*ok = *refused = 0;
	while ((st = tb_session_next(s, &ev, &e)) != TB_END) {
		if (st == TB_OK) {
			ck_assert_ptr_nonnull(ev.format); /* every id here has one */
			(*ok)++;
			continue;
		}
		ck_assert_int_eq(st, TB_ERR_NO_SPACE);
		ck_assert_ptr_null(ev.format);
		ck_assert_uint_eq(ev.name.len, 0);
		(*refused)++;
	}
}

/* Item 1, in an arena: one byte below the peak a walk refuses visibly
 * (it gave TB_OK with format-less events and a line in the damage list),
 * and tb_arena.want is the peak; with want bytes the walk is whole. */
START_TEST(session_refused_format_in_an_arena)
{
	static uint8_t mem[1 << 20] __attribute__((aligned(16)));
	size_t n = events_file(NULL), ok, refused, peak;
	tb_session_source src = dat_source(n);
	tb_session *s;
	tb_arena a;
	tb_mem m;
	tb_error e;
	tb_arena_init(&a, mem, sizeof(mem));
	m = tb_arena_mem(&a);
	ck_assert_int_eq(tb_session_open(&s, &src, NULL, &m, &e), TB_OK);
	walk(s, &ok, &refused);
	ck_assert_uint_eq(ok, 4);
	ck_assert_uint_eq(refused, 0);
	peak = a.peak;
	tb_session_close(s);

	tb_arena_init(&a, mem, peak - 1);
	m = tb_arena_mem(&a);
	ck_assert_int_eq(tb_session_open(&s, &src, NULL, &m, &e), TB_OK);
	walk(s, &ok, &refused);
	ck_assert_uint_eq(ok + refused, 4);
	ck_assert_uint_gt(refused, 0);
	ck_assert_uint_eq(a.want, peak);
	ck_assert_uint_eq(tb_session_ndamage(s), 0); /* said by the walk, not hidden there */
	tb_session_close(s);

	tb_arena_init(&a, mem, peak);
	m = tb_arena_mem(&a);
	ck_assert_int_eq(tb_session_open(&s, &src, NULL, &m, &e), TB_OK);
	walk(s, &ok, &refused);
	ck_assert_uint_eq(ok, 4);
	tb_session_close(s);
}
END_TEST

/* An allocator that refuses exactly one request, the k-th (from 0). */
typedef struct refuse_one {
	size_t calls, refuse_at;
} refuse_one;

static void *refuse_alloc(void *ctx, size_t n)
{
	refuse_one *r = ctx;
	return r->calls++ == r->refuse_at ? NULL : malloc(n);
}

static void refuse_free(void *ctx, void *p, size_t n)
{
	(void)ctx;
	(void)n;
	free(p);
}

/* Item 1, what follows a refusal: the event comes out as TB_ERR_NO_SPACE
 * with its record, the error says where (the format's text in the file,
 * the CPU), and since the refusal is not kept the next event of the id
 * asks again and is described.  tb_session_prepare says NO_SPACE too. */
START_TEST(session_refused_format_is_asked_again)
{
	size_t n = events_file(NULL), ok = 0;
	tb_session_source src = dat_source(n);
	refuse_one r = { 0, (size_t)-1 };
	tb_mem m = { refuse_alloc, refuse_free, &r };
	tb_session *s;
	tb_session_event ev;
	tb_error e;
	const tb_dat *d;
	const tb_session_error_info *ei;
	size_t i;
	tb_status st;
	ck_assert_int_eq(tb_session_open(&s, &src, NULL, &m, &e), TB_OK);
	r.refuse_at = r.calls; /* the first format's fields */
	ck_assert_int_eq(tb_session_next(s, &ev, &e), TB_ERR_NO_SPACE);
	ck_assert_ptr_null(ev.format);
	ck_assert_uint_eq(ev.cpu, 0);
	ck_assert_uint_eq(ev.len, 8);
	ck_assert_uint_eq(ev.data[0], 0x2c);
	d = tb_session_dat(s);
	for (i = 0; i < d->nevents; i++)
		if (d->events[i].format.len > 20 && !memcmp(d->events[i].format.ptr, "name: sched_wakeup", 18))
			break;
	ck_assert_uint_lt(i, d->nevents);
	ck_assert_uint_eq(e.offset, d->events[i].format.offset);
	ei = tb_session_error(s);
	ck_assert(ei->valid);
	ck_assert_int_eq(ei->error.status, TB_ERR_NO_SPACE);
	ck_assert_uint_eq(ei->cpu, 0);
	/* asked again: this time granted */
	while ((st = tb_session_next(s, &ev, &e)) == TB_OK) {
		ck_assert_ptr_nonnull(ev.format);
		ok++;
	}
	ck_assert_int_eq(st, TB_END);
	ck_assert_uint_eq(ok, 3);
	tb_session_close(s);

	/* tb_session_prepare: refused, then granted */
	r.calls = 0;
	r.refuse_at = (size_t)-1;
	ck_assert_int_eq(tb_session_open(&s, &src, NULL, &m, &e), TB_OK);
	r.refuse_at = r.calls;
	ck_assert_int_eq(tb_session_prepare(s, &e), TB_ERR_NO_SPACE);
	ck_assert_int_eq(tb_session_part_open(&(tb_session *){ NULL }, s, &m, NULL, NULL, &e),
			 TB_ERR_ARG);
	ck_assert_int_eq(tb_session_prepare(s, &e), TB_OK);
	tb_session_close(s);
}
END_TEST

/* Item 2: a kallsyms, cmdlines or printk line, or an event format, that
 * does not parse.  Plain, the damage is at the faulty byte in the file;
 * in a compressed v7 section (no byte of the file is the text's) it is at
 * the section, and text_offset says where in the text (it was the
 * section's offset plus the text's: past the end of the file). */
START_TEST(session_text_damage_offsets_in_the_file)
{
	static const char ks[] = "ffffffff81000000 T _stext\nffffffff8100 bogus\n";
	static const char cmd[] = "1 init\nbash\n";
	static const char pk[] = "0xffffffff8281a8ff : \"thaw\"\n0x12 \"no colon\"\n";
	static const char fmt[] = "name: sched_wakeup\nID: 300\nformat:\n\tfield:"
				  "unsigned short common_type;\toffset:0;\tsize:2;"
				  "\tsigned:0;\n\tfield:int x;\toffset:two;\tsize:4;\tsigned:1;\n"
				  "\nprint fmt: \"\"\n";
	for (int z = 0; z < 2; z++) {
		dw_spec sp;
		size_t n, i, seen = 0;
		tb_session_source src;
		tb_session *s;
		tb_error e;
		const tb_dat *d;
		dw_default(&sp, 7);
		sp.compress = z;
		sp.kallsyms = ks;
		sp.cmdlines = cmd;
		sp.printk = pk;
		sp.event_format = fmt;
		n = dw_write(&sp, file, sizeof(file), NULL);
		ck_assert_uint_gt(n, 0);
		src = dat_source(n);
		{
			tb_arena a;
			tb_mem m;
			static uint8_t mem[1 << 20];
			tb_arena_init(&a, mem, sizeof(mem));
			m = tb_arena_mem(&a);
			ck_assert_int_eq(tb_session_open(&s, &src, NULL, &m, &e), TB_OK);
			d = tb_session_dat(s);
			ck_assert_int_eq(tb_session_prepare(s, &e), TB_OK);
			for (i = 0; i < tb_session_ndamage(s); i++) {
				const tb_session_damage *dm = tb_session_damage_at(s, i);
				const tb_dat_text *t;
				uint64_t want_text;
				if (!strcmp(dm->where, "kallsyms")) {
					t = &d->kallsyms;
					want_text = 26;
				} else if (!strcmp(dm->where, "saved cmdlines")) {
					t = &d->cmdlines;
					want_text = 7;
				} else if (!strcmp(dm->where, "printk formats")) {
					t = &d->printk;
					want_text = 28;
				} else {
					const tb_dat_event_text *et = &d->events[dm->index];
					ck_assert_str_eq(dm->where, "event format");
					t = &et->format;
					want_text = (uint64_t)(strstr(fmt, "two") - fmt);
				}
				seen++;
				ck_assert_uint_lt(dm->error.offset, n);
				ck_assert_uint_eq(dm->text_offset, want_text);
				if (z) {
					ck_assert_uint_eq(dm->error.offset, t->offset);
				} else {
					ck_assert_uint_eq(dm->error.offset, t->offset + want_text);
					ck_assert_int_eq(file[dm->error.offset], t->ptr[want_text]);
				}
			}
			ck_assert_uint_eq(seen, 4);
			tb_session_close(s);
		}
	}
}
END_TEST

/* Item 3: text.h allows (NULL, 0): an empty string. */
START_TEST(json_str_null_empty)
{
	char buf[8];
	tb_text t;
	tb_text_init(&t, buf, sizeof(buf));
	tb_json_str(&t, NULL, 0);
	tb_text_put(&t, NULL, 0);
	tb_text_finish(&t);
	ck_assert_str_eq(buf, "\"\"");
	ck_assert_uint_eq(t.need, 2);
	/* and counting only, into no memory */
	tb_text_init(&t, NULL, 0);
	tb_json_str(&t, NULL, 0);
	tb_json_str(&t, "", 0);
	tb_text_put(&t, NULL, 0);
	tb_text_fill(&t, ' ', 0);
	tb_text_finish(&t);
	ck_assert_uint_eq(t.need, 4);
	ck_assert_uint_eq(t.len, 0);
}
END_TEST

/* Item 4: a writer that only counts (buffer NULL) takes 0-byte writes. */
START_TEST(pb_count_only_empty_writes)
{
	tb_pb pb;
	tb_pb_init(&pb, NULL, 0);
	tb_pb_raw(&pb, NULL, 0);
	tb_pb_raw(&pb, "x", 0);
	ck_assert_int_eq(tb_pb_status(&pb), TB_OK);
	ck_assert_uint_eq(pb.len, 0);
	tb_pb_bytes(&pb, 1, NULL, 0);
	ck_assert_uint_eq(pb.len, 2);
	ck_assert_int_eq(tb_pb_status(&pb), TB_ERR_NO_SPACE);
	tb_pb_raw(&pb, NULL, 0);
	ck_assert_uint_eq(pb.need, 2);
}
END_TEST

/* Item 7: every table and set parser with NULL storage and capacity 0:
 * a text with nothing to store parses, one with something says NO_SPACE;
 * lookups in the empty tables find nothing. */
START_TEST(parsers_with_null_storage)
{
	static const char *const blank[] = { "", "\n", "\n\n\n" };
	static const char fmt_fields[] = "name: e\nID: 7\nformat:\n\tfield:unsigned short "
					 "common_type;\toffset:0;\tsize:2;\tsigned:0;\n\n"
					 "print fmt: \"\"\n";
	static const char fmt_none[] = "name: e\nID: 7\nformat:\n\nprint fmt: \"\"\n";
	size_t i;
	tb_error e;
	for (i = 0; i < 4; i++) {
		const char *txt = i < 3 ? blank[i] : NULL;
		size_t len = txt ? strlen(txt) : 0;
		tb_kallsyms ks = { NULL, 0, 0, NULL };
		tb_cmdlines cl = { NULL, 0, 0 };
		tb_printk_fmts pk = { NULL, 0, 0 };
		ck_assert_int_eq(tb_kallsyms_parse(&ks, txt, len, &e), TB_OK);
		ck_assert_int_eq(tb_cmdlines_parse(&cl, txt, len, &e), TB_OK);
		ck_assert_int_eq(tb_printk_parse(&pk, txt, len, &e), TB_OK);
		ck_assert_uint_eq(ks.n + cl.n + pk.n, 0);
		ck_assert_ptr_null(tb_kallsyms_find(&ks, 0x1000));
		ck_assert_ptr_null(tb_kallsyms_find_as(&ks, 0x1000, TB_KSYM_TEP));
		ck_assert_ptr_null(tb_cmdlines_find(&cl, 1));
		ck_assert_ptr_null(tb_printk_find(&pk, 1));
		ck_assert_uint_eq(tb_kallsyms_count(txt, len), 0);
	}
	{
		tb_kallsyms ks = { NULL, 0, 0, NULL };
		tb_cmdlines cl = { NULL, 0, 0 };
		tb_printk_fmts pk = { NULL, 0, 0 };
		ck_assert_int_eq(tb_kallsyms_parse(&ks, "1 T a\n", 6, &e), TB_ERR_NO_SPACE);
		ck_assert_int_eq(tb_cmdlines_parse(&cl, "1 a\n", 4, &e), TB_ERR_NO_SPACE);
		ck_assert_int_eq(tb_printk_parse(&pk, "0x1 : \"a\"\n", 10, &e), TB_ERR_NO_SPACE);
	}
	/* formats: fields into no storage */
	{
		tb_format f;
		tb_format_error fe;
		tb_field_reader rd;
		ck_assert_int_eq(tb_format_parse(fmt_fields, strlen(fmt_fields), NULL, 0, 8, &f, &fe),
				 TB_ERR_NO_SPACE);
		ck_assert_int_eq(tb_format_parse(fmt_none, strlen(fmt_none), NULL, 0, 8, &f, &fe),
				 TB_OK);
		ck_assert_uint_eq(f.nfields, 0);
		ck_assert_ptr_null(tb_format_field(&f, "common_type"));
		ck_assert_int_eq(tb_field_reader_init(&rd, &f, 0, NULL, 0, &e), TB_OK);
		ck_assert_uint_eq(rd.nops, 0);
	}
	/* a format set over no storage */
	{
		tb_format_set set;
		const tb_format *out = NULL;
		tb_format_error fe;
		tb_status st = tb_format_set_init(&set, NULL, 0, NULL, 0, NULL, 0, 8);
		if (st == TB_OK) {
			ck_assert_int_eq(tb_format_set_add(&set, fmt_none, strlen(fmt_none), NULL, 0,
							   &out, &fe),
					 TB_ERR_NO_SPACE);
			ck_assert_ptr_null(tb_format_set_by_id(&set, 7));
			ck_assert_ptr_null(tb_format_set_find(&set, NULL, "e"));
			ck_assert_int_ne(tb_format_set_lookup(&set, "\7\0\0\0", 4, 0, &out, &e), TB_OK);
		} else {
			ck_assert_int_eq(st, TB_ERR_ARG);
		}
	}
	/* records of a page into no array; a container into no storage */
	{
		size_t n = events_file(NULL);
		tb_kbuf_layout l;
		tb_kbuf kb;
		tb_status st = TB_OK;
		tb_dat d;
		tb_dat_storage none;
		ck_assert_int_eq(tb_kbuf_layout_init(&l, 0, 8, 4096, 0), TB_OK);
		ck_assert_int_eq(tb_kbuf_open(&kb, &l, pages[0], sizeof(pages[0]), &e), TB_OK);
		ck_assert_uint_eq(tb_kbuf_next_events(&kb, NULL, 0, &st), 0);
		memset(&none, 0, sizeof(none));
		ck_assert_int_eq(tb_dat_open(&d, file, n, &none, NULL, &e), TB_ERR_NO_SPACE);
		ck_assert_uint_gt(d.need.events, 0);
	}
	/* CPU lists into a mask of no words (a NULL mask is TB_ERR_ARG) */
	{
		uint64_t mask = 7;
		ck_assert_int_eq(tb_cpu_list_parse("1", 1, 4, NULL, 0, &e), TB_ERR_ARG);
		ck_assert_int_eq(tb_cpu_list_parse("1", 1, 4, &mask, 0, &e), TB_ERR_NO_SPACE);
		ck_assert_uint_eq(mask, 7);
	}
}
END_TEST

Suite *tb_suite_promises(void)
{
	Suite *s = suite_create("promises");
	TCase *t = tcase_create("core");
	tcase_add_test(t, session_refused_format_in_an_arena);
	tcase_add_test(t, session_refused_format_is_asked_again);
	tcase_add_test(t, session_text_damage_offsets_in_the_file);
	tcase_add_test(t, json_str_null_empty);
	tcase_add_test(t, pb_count_only_empty_writes);
	tcase_add_test(t, parsers_with_null_storage);
	suite_add_tcase(s, t);
	return s;
}
