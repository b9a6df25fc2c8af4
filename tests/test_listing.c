/*
 * Listings (include/tracebound/listing.h) on the bundled raw dump
 * (tests/data/raw-sched4k, 4 KiB sub-buffers, little-endian, 8-byte long)
 * and its kernel's formats (tests/data/render/events): the lines
 * `tracebound raw` and `tracebound formats` print, byte for byte.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracebound/tracebound.h"

#include "testutil.h"

Suite *tb_suite_listing(void);

static char out[8192];
static tb_text t;

static const char *text_of(void)
{
	tb_text_finish(&t);
	return out;
}

/* A format of the bundled events directory, its system named. */
typedef struct fmt_box {
	tb_format f;
	tb_field fields[64];
	uint8_t *text;
} fmt_box;

static void load_format(fmt_box *b, const char *system, const char *name)
{
	char rel[128];
	size_t n;
	tb_format_error fe;
	snprintf(rel, sizeof(rel), "tests/data/render/events/%s/%s/format", system, name);
	b->text = tb_test_read_file(tb_test_path(rel), &n);
	ck_assert_ptr_nonnull(b->text);
	ck_assert_int_eq(tb_format_parse((const char *)b->text, n, b->fields, 64, 8, &b->f, &fe),
			 TB_OK);
	b->f.system = system;
	b->f.system_len = strlen(system);
}

/* The first record of cpuN.raw whose common_type is id (0: the first
 * event; all: the first record that is not an event).  The dumps stay
 * loaded: records point into them. */
static uint8_t *dumps[2];
static size_t dump_lens[2];

static int find_record(uint16_t id, tb_kbuf_record *r, uint64_t *subbuf, int all)
{
	tb_kbuf_layout l;
	size_t off, dump_len;
	uint8_t *dump;
	ck_assert_int_eq(tb_kbuf_layout_init(&l, 0, 8, 4096, 0), TB_OK);
	if (!dumps[all])
		dumps[all] = tb_test_read_file(tb_test_path(all ? "tests/data/raw-sched4k/cpu1.raw"
								: "tests/data/raw-sched4k/cpu0.raw"),
					       &dump_lens[all]);
	dump = dumps[all];
	dump_len = dump_lens[all];
	ck_assert_ptr_nonnull(dump);
	for (off = 0; off + 4096 <= dump_len; off += 4096) {
		tb_kbuf kb;
		tb_error e;
		if (tb_kbuf_open(&kb, &l, dump + off, 4096, &e) != TB_OK)
			continue;
		while ((all ? tb_kbuf_next(&kb, r) : tb_kbuf_next_event(&kb, r)) == TB_OK) {
			int data = r->kind == TB_KBUF_DATA;
			if ((all && !data) || (!all && (!id || (data && r->payload_len >= 2 &&
						  (r->payload[0] | r->payload[1] << 8) == id)))) {
				*subbuf = off / 4096;
				return 1;
			}
		}
	}
	return 0;
}

START_TEST(listing_kbuf_records)
{
	tb_kbuf_record r;
	uint64_t sb;
	static const uint8_t one = 7;
	ck_assert(find_record(0, &r, &sb, 0));
	tb_text_init(&t, out, sizeof(out));
	tb_list_kbuf_record(&t, 0, sb, &r, 0, 0);
	ck_assert_str_eq(text_of(), "cpu=0 subbuf=0 offset=16 ts=209134944557 size=24 id=839\n");
	/* the same record read as big-endian says the other id; JSON lists
	 * events the session's way, so a data record is the same line */
	tb_text_reset(&t);
	tb_list_kbuf_record(&t, 3, 9, &r, 1, TB_LIST_JSON);
	ck_assert_str_eq(text_of(), "cpu=3 subbuf=9 offset=16 ts=209134944557 size=24 id=18179\n");
	/* too short for an id */
	r.payload = &one;
	r.payload_len = 1;
	tb_text_reset(&t);
	tb_list_kbuf_record(&t, 0, 0, &r, 0, 0);
	ck_assert_str_eq(text_of(), "cpu=0 subbuf=0 offset=16 ts=209134944557 size=1 id=-\n");
	/* the dumps' one record that is not an event (on CPU 1) */
	ck_assert(find_record(0, &r, &sb, 1));
	tb_text_reset(&t);
	tb_list_kbuf_record(&t, 1, sb, &r, 0, 0);
	tb_list_kbuf_record(&t, 1, sb, &r, 0, TB_LIST_JSON);
	ck_assert_str_eq(text_of(),
			 "cpu=1 subbuf=368 offset=3584 ts=210624632602 size=8 kind=time_extend\n"
			 "{\"cpu\":1,\"ts\":210624632602,\"kind\":\"time_extend\",\"subbuf\":368,"
			 "\"offset\":3584,\"size\":8}\n");
}
END_TEST

START_TEST(listing_missed)
{
	tb_text_init(&t, out, sizeof(out));
	tb_list_kbuf_missed(&t, 1, 22, -1, 0);
	tb_list_kbuf_missed(&t, 1, 22, 17, 0);
	tb_list_kbuf_missed(&t, 1, 22, -1, TB_LIST_JSON);
	tb_list_kbuf_missed(&t, 1, 22, 17, TB_LIST_JSON);
	ck_assert_str_eq(text_of(), "cpu=1 subbuf=22 missed=unknown\ncpu=1 subbuf=22 missed=17\n"
				    "{\"cpu\":1,\"missed\":-1,\"subbuf\":22}\n"
				    "{\"cpu\":1,\"missed\":17,\"subbuf\":22}\n");
}
END_TEST

START_TEST(listing_events)
{
	fmt_box fw, ss;
	tb_kbuf_record r;
	tb_field_value fv[64];
	tb_error e;
	uint64_t sb;
	uint8_t rec[64];
	load_format(&fw, "syscalls", "sys_exit_write");
	load_format(&ss, "sched", "sched_switch");
	ck_assert(find_record(839, &r, &sb, 0));
	tb_text_init(&t, out, sizeof(out));
	ck_assert_int_eq(tb_list_event(&t, &fw.f, 0, r.ts, r.payload, r.payload_len, 0, fv, 64,
				       &e), TB_OK);
	ck_assert_str_eq(text_of(), "cpu=0 ts=209134944557 pid=12319 syscalls:sys_exit_write: "
				    "__syscall_nr=1 ret=2\n");
	ck_assert(find_record(372, &r, &sb, 0));
	ck_assert_uint_ge(r.payload_len, 64);
	tb_text_reset(&t);
	ck_assert_int_eq(tb_list_event(&t, &ss.f, 0, r.ts, r.payload, r.payload_len, 0, fv, 64,
				       NULL), TB_OK);
	ck_assert_str_eq(text_of(), "cpu=0 ts=209135259000 pid=12319 sched:sched_switch: "
				    "prev_comm=bash prev_pid=12319 prev_prio=120 prev_state=1 "
				    "next_comm=bash next_pid=12321 next_prio=120\n");
	/* text from the record: a space, a control byte and '\' escaped */
	memcpy(rec, r.payload, 64);
	memcpy(rec + 8, "a b\x01\\", 6);
	tb_text_reset(&t);
	(void)tb_list_event(&t, &ss.f, 0, r.ts, rec, 64, 0, fv, 64, NULL);
	ck_assert_ptr_nonnull(strstr(text_of(), " prev_comm=a\\x20b\\x01\\x5c prev_pid="));
	/* every prefix: the line is whole, a field past the end says why */
	{
		size_t n;
		for (n = 0; n < 64; n++) {
			tb_status st;
			tb_text_reset(&t);
			st = tb_list_event(&t, &ss.f, 0, 5, rec, n, 0, fv, 64, &e);
			ck_assert_int_ne(st, TB_OK);
			ck_assert_int_eq(st, e.status);
			ck_assert_int_eq(tb_text_last(&t), '\n');
			ck_assert_ptr_nonnull(strstr(text_of(), " next_prio=<"));
			ck_assert(n < 8 || strstr(out, "pid=12319 ") != NULL);
		}
	}
	/* room for 10 bytes: 10 stored, the whole line's length known */
	{
		char small[11];
		tb_text st;
		tb_text_init(&st, small, sizeof(small));
		(void)tb_list_event(&st, &fw.f, 0, 1, rec, 24, 0, fv, 64, NULL);
		tb_text_init(&t, out, sizeof(out));
		(void)tb_list_event(&t, &fw.f, 0, 1, rec, 24, 0, fv, 64, NULL);
		ck_assert(tb_text_truncated(&st));
		ck_assert_uint_eq(st.len, 10);
		ck_assert_uint_eq(st.need, t.len);
		ck_assert(!memcmp(small, out, 10));
	}
	free(fw.text);
	free(ss.text);
}
END_TEST

START_TEST(listing_field_values)
{
	fmt_box ss;
	tb_field_value fv[64];
	tb_error e;
	tb_field elem;
	/* prev_comm "bash", then an array read as numbers */
	static const uint8_t rec[64] = { 116, 1, 0, 0, 0x1f, 0x30, 0, 0, 'b', 'a', 's', 'h' };
	load_format(&ss, "sched", "sched_switch");
	ck_assert_int_eq(tb_format_decode(&ss.f, rec, sizeof(rec), 0, fv, 64, &e), TB_OK);
	tb_text_init(&t, out, sizeof(out));
	tb_list_field(&t, &ss.fields[4], &fv[4], rec, sizeof(rec), 0, TB_LIST_JSON);
	tb_text_putc(&t, ' ');
	tb_list_field(&t, &ss.fields[3], &fv[3], rec, sizeof(rec), 0, TB_LIST_JSON);
	ck_assert_str_eq(text_of(), "\"bash\" 12319");
	/* the same bytes as elements: an opaque field's are unsigned bytes */
	ss.fields[4].flags &= (uint8_t)~TB_FIELD_TEXT;
	ss.fields[4].flags |= TB_FIELD_SIGNED;
	ss.fields[4].kind = TB_FIELD_OPAQUE;
	ck_assert_uint_eq(tb_list_elems(&ss.fields[4], &fv[4], &elem), 16);
	ck_assert(!(elem.flags & TB_FIELD_SIGNED) && elem.elem_size == 1);
	tb_text_reset(&t);
	fv[4].len = 5;
	tb_list_field(&t, &ss.fields[4], &fv[4], rec, sizeof(rec), 0, 0);
	tb_list_field(&t, &ss.fields[4], &fv[4], rec, sizeof(rec), 0, TB_LIST_JSON);
	/* a value that did not read */
	fv[6].status = TB_ERR_TRUNCATED;
	tb_list_field(&t, &ss.fields[6], &fv[6], rec, sizeof(rec), 0, TB_LIST_JSON);
	tb_list_field(&t, &ss.fields[6], &fv[6], rec, sizeof(rec), 0, 0);
	ck_assert_uint_eq(tb_list_elems(&ss.fields[6], &fv[6], &elem), 0);
	ck_assert_str_eq(text_of(), "{98,97,115,104,0}[98,97,115,104,0]null<truncated input>");
	free(ss.text);
}
END_TEST

START_TEST(listing_bytes)
{
	tb_text_init(&t, out, sizeof(out));
	tb_list_bytes(&t, "a b\x7f\\\xff", 6, 0);
	tb_text_putc(&t, '|');
	tb_list_bytes(&t, "a b\x7f\\\xff", 6, TB_LIST_SPACE);
	tb_list_bytes(&t, NULL, 0, 0);
	ck_assert_str_eq(text_of(), "a\\x20b\\x7f\\x5c\\xff|a b\\x7f\\x5c\\xff");
}
END_TEST

START_TEST(listing_formats)
{
	fmt_box fw;
	load_format(&fw, "syscalls", "sys_exit_write");
	tb_text_init(&t, out, sizeof(out));
	tb_list_format(&t, &fw.f, 0);
	ck_assert_str_eq(text_of(),
			 "syscalls:sys_exit_write id=839 fields=6\n"
			 "\tunsigned short common_type; offset=0 size=2 signed=0 kind=int\n"
			 "\tunsigned char common_flags; offset=2 size=1 signed=0 kind=int\n"
			 "\tunsigned char common_preempt_count; offset=3 size=1 signed=0 kind=int\n"
			 "\tint common_pid; offset=4 size=4 signed=1 kind=int\n"
			 "\tint __syscall_nr; offset=8 size=4 signed=1 kind=int\n"
			 "\tlong ret; offset=16 size=8 signed=1 kind=long\n");
	tb_text_reset(&t);
	tb_list_format(&t, &fw.f, TB_LIST_JSON);
	ck_assert_str_eq(text_of(),
			 "{\"system\":\"syscalls\",\"name\":\"sys_exit_write\",\"id\":839,\"fields\":["
			 "{\"name\":\"common_type\",\"type\":\"unsigned short\",\"offset\":0,\"size\":2,"
			 "\"signed\":0,\"kind\":\"int\"},{\"name\":\"common_flags\",\"type\":"
			 "\"unsigned char\",\"offset\":2,\"size\":1,\"signed\":0,\"kind\":\"int\"},"
			 "{\"name\":\"common_preempt_count\",\"type\":\"unsigned char\",\"offset\":3,"
			 "\"size\":1,\"signed\":0,\"kind\":\"int\"},{\"name\":\"common_pid\",\"type\":"
			 "\"int\",\"offset\":4,\"size\":4,\"signed\":1,\"kind\":\"int\"},{\"name\":"
			 "\"__syscall_nr\",\"type\":\"int\",\"offset\":8,\"size\":4,\"signed\":1,"
			 "\"kind\":\"int\"},{\"name\":\"ret\",\"type\":\"long\",\"offset\":16,\"size\":8,"
			 "\"signed\":1,\"kind\":\"long\"}]}\n");
	free(fw.text);
	{
		/* array types as the kernel prints them */
		fmt_box ss;
		load_format(&ss, "sched", "sched_switch");
		tb_text_reset(&t);
		tb_list_format(&t, &ss.f, 0);
		ck_assert_ptr_nonnull(strstr(text_of(), "\tchar[16] prev_comm; offset=8 size=16 "
							"signed=0 kind=string\n"));
		free(ss.text);
	}
}
END_TEST

Suite *tb_suite_listing(void)
{
	Suite *s = suite_create("listing");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, listing_kbuf_records);
	tcase_add_test(tc, listing_missed);
	tcase_add_test(tc, listing_events);
	tcase_add_test(tc, listing_field_values);
	tcase_add_test(tc, listing_bytes);
	tcase_add_test(tc, listing_formats);
	suite_add_tcase(s, tc);
	return s;
}
