/* Event format schemas: the grammar, classification, validation and the set. */
#include <check.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "tracebound/format.h"
#include "formattext.h"
#include "tarball.h"
#include "testutil.h"

#define TB_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

Suite *tb_suite_format(void);

#define NFMT 2323
#define FIELDS_CAP 32768

/* The real formats of one Linux 6.18 machine, parsed into one set. */
typedef struct real_set {
	tb_tarball tar;
	tb_format events[NFMT + 8];
	tb_field *fields;
	uint32_t *index;
	tb_format_set set;
	char systems[NFMT][64];
	size_t nformats;
} real_set;

static real_set *load_real_set(void)
{
	real_set *rs = calloc(1, sizeof(*rs));
	size_t i, ilen = tb_format_index_len(NFMT + 8);
	ck_assert_ptr_nonnull(rs);
	ck_assert_int_eq(tb_tarball_load(tb_test_path("tests/data/formats-6.18.tar.gz"),
					 &rs->tar), 0);
	rs->fields = calloc(FIELDS_CAP, sizeof(tb_field));
	rs->index = calloc(ilen, sizeof(uint32_t));
	ck_assert_int_eq(tb_format_set_init(&rs->set, rs->events, NFMT + 8, rs->fields,
					    FIELDS_CAP, rs->index, ilen, 8),
			 TB_OK);
	for (i = 0; i < rs->tar.count; i++) {
		char ev[128];
		tb_format_error fe;
		tb_status st;
		const tb_tar_entry *e = &rs->tar.entries[i];
		char *sys = rs->systems[rs->nformats < NFMT ? rs->nformats : 0];
		if (!tb_tar_is_format(e, sys, 64, ev, sizeof(ev)))
			continue;
		st = tb_format_set_add(&rs->set, e->data, e->len, sys, strlen(sys), NULL, &fe);
		if (st != TB_OK)
			ck_abort_msg("%s: line %u col %u: %s (%s)", e->path, fe.line,
				     fe.column, fe.error.what, tb_strerror(st));
		rs->nformats++;
	}
	return rs;
}

static void free_real_set(real_set *rs)
{
	tb_tarball_free(&rs->tar);
	free(rs->fields);
	free(rs->index);
	free(rs);
}

static void assert_field(const tb_format *f, const char *name, uint32_t off,
			 uint32_t size, int sig, unsigned kind)
{
	const tb_field *fl = tb_format_field(f, name);
	ck_assert_msg(fl != NULL, "no field %s", name);
	ck_assert_uint_eq(fl->offset, off);
	ck_assert_uint_eq(fl->size, size);
	ck_assert_int_eq(!!(fl->flags & TB_FIELD_SIGNED), sig);
	ck_assert_str_eq(tb_field_kind_name(fl->kind), tb_field_kind_name(kind));
}

START_TEST(all_real_formats_parse)
{
	real_set *rs = load_real_set();
	const tb_format *f;
	const tb_field *fl;
	ck_assert_uint_eq(rs->nformats, NFMT);
	ck_assert_uint_eq(rs->set.count, NFMT);
	/* grep -c field: over the tree, less header_page's 4 lines */
	ck_assert_uint_eq(rs->set.fields_used, 21094);
	ck_assert_uint_eq(rs->set.type_offset, 0);
	ck_assert_uint_eq(rs->set.type_size, 2);

	f = tb_format_set_find(&rs->set, "sched", "sched_switch");
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_eq(tb_format_set_by_id(&rs->set, 372), f);
	ck_assert_uint_eq(f->id, 372);
	ck_assert_uint_eq(f->nfields, 11);
	ck_assert_uint_eq(f->ncommon, 4);
	ck_assert_uint_eq(f->min_size, 64);
	ck_assert_int_eq(f->type_field, 0);
	assert_field(f, "common_type", 0, 2, 0, TB_FIELD_INT);
	assert_field(f, "common_pid", 4, 4, 1, TB_FIELD_INT);
	assert_field(f, "prev_comm", 8, 16, 0, TB_FIELD_STRING);
	assert_field(f, "prev_pid", 24, 4, 1, TB_FIELD_INT);
	assert_field(f, "prev_state", 32, 8, 1, TB_FIELD_LONG);
	assert_field(f, "next_pid", 56, 4, 1, TB_FIELD_INT);
	fl = tb_format_field(f, "prev_comm");
	ck_assert_uint_eq(fl->count, 16);
	ck_assert_uint_eq(fl->elem_size, 1);
	ck_assert(fl->flags & TB_FIELD_TEXT);
	ck_assert(!(fl->flags & TB_FIELD_COMMON));
	ck_assert(tb_format_field(f, "common_flags")->flags & TB_FIELD_COMMON);
	/* the print fmt line is 831 bytes with "print fmt: " and its newline */
	ck_assert_uint_eq(f->print_fmt_len, 819);
	ck_assert(strncmp(f->print_fmt, "\"prev_comm=%s prev_pid=%d", 24) == 0);
	ck_assert(memcmp(f->print_fmt + f->print_fmt_len - 14, "REC->next_prio", 14) == 0);
	ck_assert_uint_eq(f->print_fmt_offset + f->print_fmt_len + 1, f->text_len);

	f = tb_format_set_find(&rs->set, "sched", "sched_process_exec");
	ck_assert_ptr_nonnull(f);
	assert_field(f, "filename", 8, 4, 0, TB_FIELD_DYNAMIC);
	fl = tb_format_field(f, "filename");
	ck_assert_uint_eq(fl->elem_size, 1);
	ck_assert_uint_eq(fl->flags & (TB_FIELD_TEXT | TB_FIELD_REL | TB_FIELD_LEGACY),
			  TB_FIELD_TEXT);
	ck_assert_uint_eq(fl->type_len, strlen("__data_loc char[]"));
	ck_assert(memcmp(fl->type, "__data_loc char[]", fl->type_len) == 0);
	assert_field(f, "old_pid", 16, 4, 1, TB_FIELD_INT);

	f = tb_format_set_find(&rs->set, "syscalls", "sys_enter_openat");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(f->id, 782);
	assert_field(f, "__syscall_nr", 8, 4, 1, TB_FIELD_INT);
	assert_field(f, "dfd", 16, 8, 0, TB_FIELD_INT); /* `int` of size 8: size wins */
	assert_field(f, "filename", 24, 8, 0, TB_FIELD_POINTER);
	assert_field(f, "mode", 40, 8, 0, TB_FIELD_INT);
	ck_assert_uint_eq(f->min_size, 48);

	f = tb_format_set_find(&rs->set, "ftrace", "print");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(f->id, 5);
	assert_field(f, "ip", 8, 8, 0, TB_FIELD_LONG);
	assert_field(f, "buf", 16, 0, 0, TB_FIELD_REST);
	ck_assert(tb_format_field(f, "buf")->flags & TB_FIELD_TEXT);

	f = tb_format_set_find(&rs->set, "ftrace", "branch");
	assert_field(f, "func", 12, 31, 0, TB_FIELD_STRING);
	ck_assert_uint_eq(tb_format_field(f, "func")->count, 31);
	assert_field(f, "file", 43, 21, 0, TB_FIELD_STRING);

	f = tb_format_set_find(&rs->set, NULL, "sock_exceed_buf_limit");
	assert_field(f, "sysctl_mem", 40, 24, 1, TB_FIELD_ARRAY);
	fl = tb_format_field(f, "sysctl_mem");
	ck_assert_uint_eq(fl->elem_size, 8);
	ck_assert_uint_eq(fl->count, 3);

	f = tb_format_set_find(&rs->set, "dma", "dma_unmap_sg");
	fl = tb_format_field(f, "addrs");
	ck_assert_ptr_nonnull(fl);
	ck_assert_uint_eq(fl->kind, TB_FIELD_DYNAMIC);
	ck_assert_uint_eq(fl->elem_size, 8);
	ck_assert(!(fl->flags & TB_FIELD_TEXT));

	f = tb_format_set_find(&rs->set, "ftrace", "function");
	fl = tb_format_field(f, "args");
	ck_assert_uint_eq(fl->kind, TB_FIELD_REST);
	ck_assert_uint_eq(fl->elem_size, 8);

	ck_assert_ptr_null(tb_format_set_find(&rs->set, "sched", "nosuch"));
	ck_assert_ptr_null(tb_format_set_find(&rs->set, "irq", "sched_switch"));
	ck_assert_ptr_null(tb_format_set_by_id(&rs->set, 65535));
	free_real_set(rs);
}
END_TEST


static int tep_is_signed(const struct tep_format_field *tf)
{
	return (tf->flags & TEP_FIELD_IS_SIGNED) != 0;
}

/* One libtraceevent field against ours. */
static void compare_field(const char *where, const struct tep_format_field *tf,
			  const tb_field *f)
{
	int tep_dyn = (tf->flags & TEP_FIELD_IS_DYNAMIC) != 0;
	int tep_arr = (tf->flags & TEP_FIELD_IS_ARRAY) != 0;
	ck_assert_msg(strlen(tf->name) == f->name_len &&
			      memcmp(tf->name, f->name, f->name_len) == 0,
		      "%s: name %s", where, tf->name);
	ck_assert_msg((uint32_t)tf->offset == f->offset, "%s %s: offset", where, tf->name);
	ck_assert_msg((uint32_t)tf->size == f->size, "%s %s: size", where, tf->name);
	ck_assert_msg(tep_is_signed(tf) == !!(f->flags & TB_FIELD_SIGNED),
		      "%s %s: signed", where, tf->name);
	ck_assert_msg(tep_dyn == (f->kind == TB_FIELD_DYNAMIC), "%s %s: dynamic",
		      where, tf->name);
	ck_assert_msg(!!(tf->flags & TEP_FIELD_IS_RELATIVE) == !!(f->flags & TB_FIELD_REL),
		      "%s %s: relative", where, tf->name);
	if (!tep_dyn)
		ck_assert_msg(tep_arr == (f->kind == TB_FIELD_ARRAY ||
					  f->kind == TB_FIELD_STRING ||
					  f->kind == TB_FIELD_REST),
			      "%s %s: array", where, tf->name);
	ck_assert_msg(!!(tf->flags & TEP_FIELD_IS_POINTER) == (f->kind == TB_FIELD_POINTER),
		      "%s %s: pointer", where, tf->name);
	/* our strings are char arrays; libtraceevent also counts u8/s8 ones */
	if (f->flags & TB_FIELD_TEXT)
		ck_assert_msg(tf->flags & TEP_FIELD_IS_STRING, "%s %s: string", where,
			      tf->name);
	if (tep_arr && !tep_dyn && tf->arraylen && f->kind != TB_FIELD_REST) {
		ck_assert_msg(tf->arraylen == f->count, "%s %s: count", where, tf->name);
		ck_assert_msg(tf->elementsize == f->elem_size, "%s %s: element", where,
			      tf->name);
	}
}

START_TEST(real_formats_agree_with_libtraceevent)
{
	real_set *rs = load_real_set();
	struct tep_handle *tep = tep_alloc();
	size_t i, compared = 0, fields = 0;
	ck_assert_ptr_nonnull(tep);
	tep_set_loglevel(TEP_LOG_NONE);
	tep_set_long_size(tep, 8);
	for (i = 0; i < rs->set.count; i++) {
		const tb_format *f = &rs->set.events[i];
		char sys[64], where[192];
		struct tep_event *ev;
		struct tep_format_field *tf;
		uint32_t k = 0;
		snprintf(sys, sizeof(sys), "%.*s", (int)f->system_len, f->system);
		snprintf(where, sizeof(where), "%s/%.*s", sys, (int)f->name_len, f->name);
		if (tep_parse_event(tep, f->text, f->text_len, sys) != 0)
			continue;
		ev = tep_find_event(tep, (int)f->id);
		ck_assert_ptr_nonnull(ev);
		ck_assert_msg(strlen(ev->name) == f->name_len &&
				      memcmp(ev->name, f->name, f->name_len) == 0,
			      "%s: event name", where);
		ck_assert_int_eq(ev->format.nr_common, (int)f->ncommon);
		ck_assert_int_eq(ev->format.nr_fields, (int)(f->nfields - f->ncommon));
		for (tf = ev->format.common_fields; tf; tf = tf->next, k++)
			compare_field(where, tf, &f->fields[k]);
		for (tf = ev->format.fields; tf; tf = tf->next, k++)
			compare_field(where, tf, &f->fields[k]);
		ck_assert_uint_eq(k, f->nfields);
		compared++;
		fields += k;
	}
	/* libtraceevent 1.7 parses every one of them too */
	ck_assert_uint_eq(compared, NFMT);
	ck_assert_uint_eq(fields, 21094);
	tep_free(tep);
	free_real_set(rs);
}
END_TEST

/* ---- hand-made formats ---- */


static tb_field g_fields[TB_FORMAT_MAX_FIELDS + 8];

/* Parse a C string (copied to an exact-size buffer) with long size 8. */
static tb_status parse_str(const char *text, tb_format *f, tb_format_error *e,
			   char **keep)
{
	size_t n = strlen(text);
	char *copy = (char *)tb_test_dup(text, n);
	tb_status st = tb_format_parse(copy, n, g_fields, TB_ARRAY_LEN(g_fields), 8, f, e);
	*keep = copy;
	return st;
}

static const tb_field *must_field(const tb_format *f, const char *name)
{
	const tb_field *fl = tb_format_field(f, name);
	ck_assert_msg(fl != NULL, "no field %s", name);
	return fl;
}

START_TEST(old_kernel_spellings)
{
	static const char text[] =
		"name: old\nID: 77\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\n"
		"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\n"
		"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\n"
		"\tfield:int common_lock_depth;\toffset:8;\tsize:4;\n"
		"\n"
		"\tfield special:unsigned long caller[FTRACE_STACK_ENTRIES];\toffset:12;\tsize:64;\n"
		"\tfield:char comm[TASK_COMM_LEN];\toffset:76;\tsize:16;\n"
		"\tfield:char func[30+1];\toffset:92;\tsize:31;\n"
		"\tfield:__u8 saddr[sizeof(struct sockaddr_in6)];\toffset:123;\tsize:28;\n"
		"\tfield:__data_loc name;\toffset:152;\tsize:2;\n"
		"\tfield:short s;\toffset:154;\tsize:2;\n"
		"\tfield:unsigned u;\toffset:156;\tsize:4;\n"
		"\tfield:char buf;\toffset:160;\tsize:0;\n"
		"\n"
		"print fmt: \"%s\", REC->comm\n";
	tb_format f;
	tb_format_error e;
	char *keep;
	const tb_field *fl;
	ck_assert_int_eq(parse_str(text, &f, &e, &keep), TB_OK);
	ck_assert_uint_eq(f.id, 77);
	ck_assert_uint_eq(f.nfields, 13);
	ck_assert_uint_eq(f.ncommon, 5);
	ck_assert(must_field(&f, "common_pid")->flags & TB_FIELD_SIGNED); /* from `int` */
	ck_assert(!(must_field(&f, "common_type")->flags & TB_FIELD_SIGNED));
	fl = must_field(&f, "caller"); /* macro length, element from the type */
	ck_assert_uint_eq(fl->kind, TB_FIELD_ARRAY);
	ck_assert_uint_eq(fl->elem_size, 8);
	ck_assert_uint_eq(fl->count, 8);
	fl = must_field(&f, "comm");
	ck_assert_uint_eq(fl->kind, TB_FIELD_STRING);
	ck_assert_uint_eq(fl->count, 16);
	fl = must_field(&f, "func");
	ck_assert_uint_eq(fl->kind, TB_FIELD_STRING);
	ck_assert_uint_eq(fl->count, 31);
	ck_assert_uint_eq(fl->elem_size, 1);
	fl = must_field(&f, "saddr");
	ck_assert_uint_eq(fl->kind, TB_FIELD_ARRAY);
	ck_assert_uint_eq(fl->count, 28);
	ck_assert_uint_eq(fl->elem_size, 1);
	fl = must_field(&f, "name");
	ck_assert_uint_eq(fl->kind, TB_FIELD_DYNAMIC);
	ck_assert_uint_eq(fl->flags & (TB_FIELD_LEGACY | TB_FIELD_TEXT),
			  TB_FIELD_LEGACY | TB_FIELD_TEXT);
	ck_assert(must_field(&f, "s")->flags & TB_FIELD_SIGNED);
	ck_assert(!(must_field(&f, "u")->flags & TB_FIELD_SIGNED));
	fl = must_field(&f, "buf");
	ck_assert_uint_eq(fl->kind, TB_FIELD_REST);
	ck_assert(fl->flags & TB_FIELD_TEXT);
	ck_assert_uint_eq(f.min_size, 160);
	free(keep);
}
END_TEST

START_TEST(tricky_field_lines)
{
	static const char text[] = HEAD("tricky", "9")
		"\tfield:const char __attribute__((btf_type_tag(\"user\"))) * filename;\toffset:8;\tsize:8;\tsigned:0;\n"
		"\tfield:bool on;\toffset:16;\tsize:1;\tsigned:0;\n"
		"\tfield:__rel_loc char[] rel;\toffset:20;\tsize:4;\tsigned:0;\n"
		"\tfield:__data_loc cpumask_t *[] cpumask;\toffset:24;\tsize:4;\tsigned:0;\n"
		"\tfield:__data_loc unsigned long[] mask;\toffset:28;\tsize:4;\tsigned:0;\n"
		"\tfield:u32 buf2[4];\toffset:32;\tsize:16;\tsigned:0;\n"
		"\tfield:struct foo opaque;\toffset:48;\tsize:12;\tsigned:0;\n"
		"\tfield:unsigned char raw[6];\toffset:60;\tsize:6;\tsigned:0;\n"
		"\tfield:signed char sc;\toffset:66;\tsize:1;\tsigned:1;\n"
		"\tfield:u64 x;\toffset:72;\tsize:8;\tsigned:0;\n"
		"\tfield:__data_loc u32[] vals;\toffset:80;\tsize:4;\tsigned:0;\n"
		"\tfield:unsigned long caller[8];\toffset:88;\tsize:64;\tsigned:0;\n"
		"\tfield:char empty[];\toffset:152;\tsize:0;\tsigned:0;\n"
		TAIL;
	tb_format f;
	tb_format_error e;
	char *keep;
	const tb_field *fl;
	ck_assert_int_eq(parse_str(text, &f, &e, &keep), TB_OK);
	fl = must_field(&f, "filename");
	ck_assert_uint_eq(fl->kind, TB_FIELD_POINTER);
	ck_assert_uint_eq(fl->type_len,
			  strlen("const char __attribute__((btf_type_tag(\"user\"))) *"));
	ck_assert_uint_eq(must_field(&f, "on")->kind, TB_FIELD_INT);
	fl = must_field(&f, "rel");
	ck_assert_uint_eq(fl->kind, TB_FIELD_DYNAMIC);
	ck_assert_uint_eq(fl->flags & (TB_FIELD_REL | TB_FIELD_TEXT), TB_FIELD_REL | TB_FIELD_TEXT);
	fl = must_field(&f, "cpumask");
	ck_assert_uint_eq(fl->elem_size, 1);
	ck_assert(!(fl->flags & TB_FIELD_TEXT));
	ck_assert_uint_eq(must_field(&f, "mask")->elem_size, 8);
	fl = must_field(&f, "buf2");
	ck_assert_uint_eq(fl->kind, TB_FIELD_ARRAY);
	ck_assert_uint_eq(fl->elem_size, 4);
	ck_assert_uint_eq(fl->count, 4);
	ck_assert_uint_eq(must_field(&f, "opaque")->kind, TB_FIELD_OPAQUE);
	ck_assert_uint_eq(must_field(&f, "raw")->kind, TB_FIELD_STRING);
	ck_assert(must_field(&f, "sc")->flags & TB_FIELD_SIGNED);
	ck_assert_uint_eq(must_field(&f, "empty")->kind, TB_FIELD_REST);
	fl = must_field(&f, "vals");
	ck_assert_uint_eq(fl->kind, TB_FIELD_DYNAMIC);
	ck_assert_uint_eq(fl->elem_size, 4);
	ck_assert(!(fl->flags & TB_FIELD_TEXT));
	fl = must_field(&f, "caller");
	ck_assert_uint_eq(fl->kind, TB_FIELD_ARRAY);
	ck_assert_uint_eq(fl->elem_size, 8);
	ck_assert_uint_eq(fl->count, 8);
	ck_assert_uint_eq(f.ndynamic, 4);
	free(keep);

	/* a 32-bit kernel's long sizes dynamic long arrays */
	{
		size_t n = strlen(text);
		ck_assert_int_eq(tb_format_parse(text, n, g_fields, TB_ARRAY_LEN(g_fields),
						 4, &f, &e),
				 TB_OK);
		ck_assert_uint_eq(must_field(&f, "mask")->elem_size, 4);
		ck_assert_int_eq(tb_format_parse(text, n, g_fields, TB_ARRAY_LEN(g_fields),
						 3, &f, &e),
				 TB_ERR_ARG);
	}
}
END_TEST

typedef struct bad_case {
	const char *text;
	tb_status status;
	const char *what;
	uint32_t line;
} bad_case;

static const bad_case bad_cases[] = {
	{ "", TB_ERR_TRUNCATED, "empty format text", 0 },
	{ "nam: x\n", TB_ERR_SYNTAX, "expected 'name:'", 1 },
	{ "name: \n", TB_ERR_SYNTAX, "missing event name", 1 },
	{ "name: a b\n", TB_ERR_SYNTAX, "bad byte in event name", 1 },
	{ "name: x\nid: 1\n", TB_ERR_SYNTAX, "expected 'ID:'", 2 },
	{ "name: x\nID: 1a\n", TB_ERR_SYNTAX, "ID is not a decimal number", 2 },
	{ "name: x\nID: 4294967296\n", TB_ERR_VALUE, "ID does not fit 32 bits", 2 },
	/* the end of a text after its final newline is on the next line */
	{ "name: x\nID: 1\n", TB_ERR_TRUNCATED, "format text ends in its header", 3 },
	{ "name: x\nID: 1\nformat: x\n", TB_ERR_SYNTAX, "expected 'format:'", 3 },
	{ HEAD("x", "1"), TB_ERR_TRUNCATED, "format text ends before 'print fmt:'", 9 },
	{ HEAD("x", "1") "garbage\n" TAIL, TB_ERR_SYNTAX,
	  "expected a field line, a blank line or 'print fmt:'", 9 },
	{ HEAD("x", "1") "\tfield:int a\toffset:8;\tsize:4;\n" TAIL, TB_ERR_SYNTAX,
	  "missing ';' after the field declaration", 9 },
	{ HEAD("x", "1") "\tfield:int a;\tsize:4;\n" TAIL, TB_ERR_SYNTAX,
	  "field line lacks offset:", 9 },
	{ HEAD("x", "1") "\tfield:int a;\toffset:8;\n" TAIL, TB_ERR_SYNTAX,
	  "field line lacks size:", 9 },
	{ HEAD("x", "1") "\tfield:int a;\toffset:8;\tsize:4\n" TAIL, TB_ERR_SYNTAX,
	  "missing ';' after a value", 9 },
	{ HEAD("x", "1") "\tfield:int a;\toffset:8;\tsize:\n" TAIL, TB_ERR_SYNTAX,
	  "expected a decimal number", 9 },
	{ HEAD("x", "1") "\tfield:int a;\toffset 8;\tsize:4;\n" TAIL, TB_ERR_SYNTAX,
	  "expected ':' after a key", 9 },
	{ HEAD("x", "1") "\tfield:int a;\toffset:8;\tsize:4;\talign:4;\n" TAIL, TB_ERR_SYNTAX,
	  "unknown key (expected offset:, size: or signed:)", 9 },
	{ HEAD("x", "1") "\tfield:int a;\t;\n" TAIL, TB_ERR_SYNTAX,
	  "expected offset:, size: or signed:", 9 },
	{ HEAD("x", "1") "\tfield:int a;\toffset:99999999999;\tsize:4;\n" TAIL,
	  TB_ERR_VALUE, "number does not fit 32 bits", 9 },
	{ HEAD("x", "1") "\tfield:int a;\toffset:65533;\tsize:4;\n" TAIL, TB_ERR_RANGE,
	  "field ends past 64 KiB", 9 },
	{ HEAD("x", "1") "\tfield:int a;\toffset:8;\toffset:8;\tsize:4;\n" TAIL,
	  TB_ERR_DUPLICATE, "offset: given twice", 9 },
	{ HEAD("x", "1") "\tfield:int a;\toffset:8;\tsize:4;\tsize:4;\n" TAIL,
	  TB_ERR_DUPLICATE, "size: given twice", 9 },
	{ HEAD("x", "1") "\tfield:int a;\toffset:8;\tsize:4;\tsigned:1;\tsigned:1;\n" TAIL,
	  TB_ERR_DUPLICATE, "signed: given twice", 9 },
	{ HEAD("x", "1") "\tfield:int a;\toffset:8;\tsize:4;\tsigned:2;\n" TAIL,
	  TB_ERR_VALUE, "signed: must be 0 or 1", 9 },
	{ HEAD("x", "1") "\tfield:int a;\toffset:8;\tsize:4;\n\tfield:int a;\toffset:12;\tsize:4;\n" TAIL,
	  TB_ERR_DUPLICATE, "duplicate field name", 10 },
	{ HEAD("x", "1") "\tfield:int a;\toffset:8;\tsize:4;\n\tfield:int b;\toffset:4;\tsize:4;\n" TAIL,
	  TB_ERR_RANGE, "field overlaps the common header", 10 },
	{ HEAD("x", "1") "\tfield:int a;\toffset:4;\tsize:4;\n" TAIL, TB_ERR_RANGE,
	  "field overlaps the common header", 0 },
	{ HEAD("x", "1") "\tfield:int \xc3\xa9;\toffset:8;\tsize:4;\n" TAIL, TB_ERR_SYNTAX,
	  "non-ASCII byte in format text", 9 },
	{ HEAD("x", "1") "\tfield:int a\x01;\toffset:8;\tsize:4;\n" TAIL, TB_ERR_SYNTAX,
	  "control character in format text", 9 },
	{ HEAD("x", "1") "\tfield;int a;\toffset:8;\tsize:4;\n" TAIL, TB_ERR_SYNTAX,
	  "expected ':' after 'field'", 9 },
	{ HEAD("x", "1") "\tfield special int a;\toffset:8;\tsize:4;\n" TAIL, TB_ERR_SYNTAX,
	  "expected ':' after 'field'", 9 },
	{ HEAD("x", "1") "\tfield extra:int a;\toffset:8;\tsize:4;\n" TAIL, TB_ERR_SYNTAX,
	  "expected ':' after 'field'", 9 },
	{ HEAD("x", "1") "\tfield:;\toffset:8;\tsize:4;\n" TAIL, TB_ERR_SYNTAX,
	  "empty field declaration", 9 },
	{ HEAD("x", "1") "\tfield:a;\toffset:8;\tsize:4;\n" TAIL, TB_ERR_SYNTAX,
	  "missing field type", 9 },
	{ HEAD("x", "1") "\tfield:int ;\toffset:8;\tsize:4;\n" TAIL, TB_ERR_SYNTAX,
	  "missing field type", 9 },
	{ HEAD("x", "1") "\tfield:int *;\toffset:8;\tsize:4;\n" TAIL, TB_ERR_SYNTAX,
	  "missing field name", 9 },
	{ HEAD("x", "1") "\tfield:int 9a;\toffset:8;\tsize:4;\n" TAIL, TB_ERR_SYNTAX,
	  "field name starts with a digit", 9 },
	{ HEAD("x", "1") "\tfield:int a4];\toffset:8;\tsize:4;\n" TAIL, TB_ERR_SYNTAX,
	  "']' without '['", 9 },
	{ HEAD("x", "1") "\tfield:int a[3];\toffset:8;\tsize:8;\n" TAIL, TB_ERR_VALUE,
	  "array size is not a multiple of its length", 9 },
	{ HEAD("x", "1") "\tfield:int a[0];\toffset:8;\tsize:8;\n" TAIL, TB_ERR_VALUE,
	  "array size is not a multiple of its length", 9 },
	{ HEAD("x", "1") "\tfield:int a[2];\toffset:8;\tsize:0;\n" TAIL, TB_ERR_VALUE,
	  "array with a length but size 0", 9 },
	{ HEAD("x", "1") "\tfield:int a[99999999999999999999];\toffset:8;\tsize:8;\n" TAIL,
	  TB_ERR_VALUE, "array length too large", 9 },
	{ HEAD("x", "1") "\tfield:__data_loc char[] a;\toffset:8;\tsize:8;\n" TAIL,
	  TB_ERR_VALUE, "a __data_loc / __rel_loc field must have size 4", 9 },
	{ HEAD("x", "1") "\tfield:__rel_loc char[] a;\toffset:8;\tsize:2;\n" TAIL,
	  TB_ERR_VALUE, "a __data_loc / __rel_loc field must have size 4", 9 },
	{ HEAD("x", "1") "\tfield:__data_loc char a[4];\toffset:8;\tsize:4;\n" TAIL,
	  TB_ERR_SYNTAX, "dynamic field with a [length] after its name", 9 },
	{ "name: x\nID: 70000\nformat:\n" COMMON4 "\n" TAIL, TB_ERR_VALUE,
	  "ID does not fit common_type", 0 },
	{ "name: x\nID: 1\nformat:\n\tfield:char common_type[2];\toffset:0;\tsize:2;\n\n" TAIL,
	  TB_ERR_VALUE, "common_type is not an integer", 0 },
	{ HEAD("x", "1") TAIL "\0\n", TB_OK, NULL, 0 }, /* (C string: NUL not seen) */
};

/* Line and column (1-based) name the byte the offset names. */
static void position_agrees(const char *text, size_t n, const tb_format_error *e)
{
	uint32_t line = 1, col = 1;
	for (size_t i = 0; i < e->error.offset && i < n; i++) {
		col++;
		if (text[i] == '\n') {
			line++;
			col = 1;
		}
	}
	ck_assert_uint_eq(e->line, line);
	ck_assert_uint_eq(e->column, col + (e->error.offset > n ? e->error.offset - n : 0));
}

START_TEST(each_grammar_error)
{
	const bad_case *c = &bad_cases[_i];
	tb_format f;
	tb_format_error e;
	char *keep;
	tb_status st = parse_str(c->text, &f, &e, &keep);
	ck_assert_msg(st == c->status, "case %d: %s", _i, e.error.what);
	if (c->what) {
		ck_assert_str_eq(e.error.what, c->what);
		ck_assert_int_eq(e.error.status, c->status);
		ck_assert_uint_le(e.error.offset, strlen(c->text));
		if (c->line)
			ck_assert_uint_eq(e.line, c->line);
		position_agrees(c->text, strlen(c->text), &e);
	}
	free(keep);
}
END_TEST

/* Issue 15, item 6: an empty text, and errors at the end of a text, are
 * at 1-based lines (an empty text was line 0; the end of a text after its
 * final newline was given the last line's number). */
START_TEST(error_position_at_the_end)
{
	static const char *const texts[] = { "", "name: x\n", "name: x\nID: 1\n", "\n" };
	tb_field fl[4];
	tb_format f;
	tb_header_page hp;
	tb_format_error e;
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		size_t n = strlen(texts[i]);
		char *t = (char *)tb_test_dup(texts[i], n);
		ck_assert(tb_is_error(tb_format_parse(n ? t : "", n, fl, 4, 8, &f, &e)));
		ck_assert_uint_ge(e.line, 1);
		ck_assert_uint_ge(e.column, 1);
		position_agrees(t, n, &e);
		ck_assert(tb_is_error(tb_format_parse_header_page(n ? t : "", n, &hp, &e)));
		ck_assert_uint_ge(e.line, 1);
		position_agrees(t, n, &e);
		free(t);
	}
	ck_assert_int_eq(tb_format_parse("", 0, fl, 4, 8, &f, &e), TB_ERR_TRUNCATED);
	ck_assert_uint_eq(e.line, 1);
	ck_assert_uint_eq(e.column, 1);
	ck_assert_int_eq(tb_format_parse_header_page("", 0, &hp, &e), TB_ERR_SYNTAX);
	ck_assert_uint_eq(e.line, 1);
	ck_assert_uint_eq(e.column, 1);
}
END_TEST

START_TEST(error_position)
{
	/* line 9, the value of size: at byte column 30 (the TABs count 1) */
	static const char text[] = HEAD("x", "1") "\tfield:int a;\toffset:8;\tsize:x;\n" TAIL;
	const char *at = strstr(text, "size:x") + 5;
	tb_format f;
	tb_format_error e;
	char *keep;
	ck_assert_int_eq(parse_str(text, &f, &e, &keep), TB_ERR_SYNTAX);
	ck_assert_uint_eq(e.error.offset, (uint64_t)(at - text));
	ck_assert_uint_eq(e.line, 9);
	ck_assert_uint_eq(e.column, 30);
	free(keep);
}
END_TEST

START_TEST(nul_bytes_are_errors)
{
	static const char text[] = HEAD("x", "1") "\tfield:int a;\toffset:8;\tsize:4;\n" TAIL;
	size_t n = sizeof(text) - 1, i, errors = 0;
	tb_format f;
	tb_format_error e;
	/* a NUL anywhere before print fmt's text ends is never accepted silently */
	for (i = 0; i + 2 < n; i++) {
		char *copy = (char *)tb_test_dup(text, n);
		tb_status st;
		copy[i] = '\0';
		st = tb_format_parse(copy, n, g_fields, TB_ARRAY_LEN(g_fields), 8, &f, &e);
		if (st != TB_OK)
			errors++;
		else
			ck_assert_msg(0, "NUL at %zu accepted", i);
		free(copy);
	}
	ck_assert_uint_eq(errors, n - 2);
}
END_TEST

START_TEST(limits_and_space)
{
	char *text = malloc(64 * 1024), *p;
	size_t i;
	tb_format f;
	tb_format_error e;
	tb_field few[5];
	p = text + sprintf(text, HEAD("many", "3"));
	for (i = 0; i < TB_FORMAT_MAX_FIELDS - 3; i++)
		p += sprintf(p, "\tfield:u8 f%zu;\toffset:%zu;\tsize:1;\tsigned:0;\n", i, 8 + i);
	strcpy(p, TAIL);
	ck_assert_int_eq(tb_format_parse(text, strlen(text), g_fields, TB_ARRAY_LEN(g_fields),
					 8, &f, &e),
			 TB_ERR_LIMIT);
	ck_assert_str_eq(e.error.what, "too many fields in one event");
	/* one fewer fits exactly */
	p = strstr(text, "\tfield:u8 f252;");
	strcpy(p, TAIL);
	ck_assert_int_eq(tb_format_parse(text, strlen(text), g_fields, TB_ARRAY_LEN(g_fields),
					 8, &f, &e),
			 TB_OK);
	ck_assert_uint_eq(f.nfields, TB_FORMAT_MAX_FIELDS);
	/* caller storage too small */
	ck_assert_int_eq(tb_format_parse(text, strlen(text), few, 5, 8, &f, &e),
			 TB_ERR_NO_SPACE);
	ck_assert_uint_eq(e.line, 10); /* the sixth field line */

	/* name and type lengths */
	p = text + sprintf(text, HEAD("x", "1") "\tfield:int ");
	memset(p, 'n', TB_FORMAT_MAX_NAME);
	strcpy(p + TB_FORMAT_MAX_NAME, ";\toffset:8;\tsize:4;\n" TAIL);
	ck_assert_int_eq(tb_format_parse(text, strlen(text), g_fields, 300, 8, &f, &e),
			 TB_ERR_LIMIT);
	ck_assert_str_eq(e.error.what, "field name too long");
	p = text + sprintf(text, HEAD("x", "1") "\tfield:");
	memset(p, 't', TB_FORMAT_MAX_TYPE);
	strcpy(p + TB_FORMAT_MAX_TYPE, " a;\toffset:8;\tsize:4;\n" TAIL);
	ck_assert_int_eq(tb_format_parse(text, strlen(text), g_fields, 300, 8, &f, &e),
			 TB_ERR_LIMIT);
	ck_assert_str_eq(e.error.what, "field type too long");
	p = text + sprintf(text, "name: ");
	memset(p, 'e', TB_FORMAT_MAX_NAME);
	strcpy(p + TB_FORMAT_MAX_NAME, "\nID: 1\nformat:\n" TAIL);
	ck_assert_int_eq(tb_format_parse(text, strlen(text), g_fields, 300, 8, &f, &e),
			 TB_ERR_LIMIT);
	ck_assert_str_eq(e.error.what, "event name too long");
	ck_assert_int_eq(tb_format_parse(NULL, 1, g_fields, 300, 8, &f, &e), TB_ERR_ARG);
	ck_assert_int_eq(tb_format_parse(text, 1, g_fields, 300, 8, NULL, &e), TB_ERR_ARG);
	free(text);
}
END_TEST

/* Every prefix of a real format: a clean error, or a correct (prefix) result. */
static void every_prefix(const char *text, size_t n)
{
	static tb_field full_fields[TB_FORMAT_MAX_FIELDS];
	tb_format full, f;
	tb_format_error e;
	size_t k, ok = 0;
	ck_assert_int_eq(tb_format_parse(text, n, full_fields, TB_FORMAT_MAX_FIELDS, 8,
					 &full, &e),
			 TB_OK);
	for (k = 0; k <= n; k++) {
		char *copy = (char *)tb_test_dup(text, k);
		tb_status st = tb_format_parse(copy, k, g_fields, TB_ARRAY_LEN(g_fields), 8,
					       &f, &e);
		if (st == TB_OK) {
			uint32_t i;
			ok++;
			/* only a cut inside print fmt can still parse */
			ck_assert_uint_ge(k, full.print_fmt_offset - 1);
			ck_assert_uint_eq(f.nfields, full.nfields);
			for (i = 0; i < f.nfields; i++) {
				ck_assert_uint_eq(f.fields[i].offset, full.fields[i].offset);
				ck_assert_uint_eq(f.fields[i].size, full.fields[i].size);
				ck_assert_uint_eq(f.fields[i].kind, full.fields[i].kind);
			}
			ck_assert_uint_le(f.print_fmt_len, full.print_fmt_len);
		} else {
			ck_assert(tb_is_error(st));
			ck_assert_uint_le(e.error.offset, k);
			ck_assert_ptr_nonnull(e.error.what);
		}
		free(copy);
	}
	ck_assert_uint_ge(ok, full.print_fmt_len);
}

START_TEST(every_prefix_of_real_formats)
{
	static const char *const names[] = { "sched/sched_switch/format",
					      "syscalls/sys_enter_openat/format",
					      "ftrace/print/format",
					      "ext4/ext4_fsmap_high_key/format",
					      "sched/sched_process_exec/format" };
	tb_tarball tar;
	size_t i, k, done = 0;
	ck_assert_int_eq(tb_tarball_load(tb_test_path("tests/data/formats-6.18.tar.gz"), &tar), 0);
	for (i = 0; i < tar.count; i++)
		for (k = 0; k < TB_ARRAY_LEN(names); k++)
			if (strcmp(tar.entries[i].path + 7, names[k]) == 0) {
				every_prefix(tar.entries[i].data, tar.entries[i].len);
				done++;
			}
	ck_assert_uint_eq(done, TB_ARRAY_LEN(names));
	tb_tarball_free(&tar);
}
END_TEST

/* Every prefix of every one of the 2,323 real formats (as views into the
 * whole archive buffer; the five above also run on exact-size copies). */
START_TEST(every_prefix_of_all_real_formats)
{
	tb_tarball tar;
	size_t i, k, ok = 0, errors = 0, files = 0;
	tb_format f;
	tb_format_error e;
	ck_assert_int_eq(tb_tarball_load(tb_test_path("tests/data/formats-6.18.tar.gz"), &tar), 0);
	for (i = 0; i < tar.count; i++) {
		const tb_tar_entry *t = &tar.entries[i];
		size_t fmt_at = 0;
		const char *pf;
		char sys[64], ev[128];
		if (!tb_tar_is_format(t, sys, sizeof(sys), ev, sizeof(ev)))
			continue;
		files++;
		pf = strstr(t->data, "\nprint fmt: ");
		ck_assert_ptr_nonnull(pf);
		fmt_at = (size_t)(pf - t->data) + 1;
		for (k = 0; k <= t->len; k++) {
			tb_status st = tb_format_parse(t->data, k, g_fields, TB_ARRAY_LEN(g_fields),
						       8, &f, &e);
			if (st == TB_OK) {
				/* only once "print fmt:" is whole */
				ck_assert_uint_ge(k, fmt_at + 10);
				ok++;
			} else {
				ck_assert_uint_le(e.error.offset, k);
				errors++;
			}
		}
	}
	ck_assert_uint_eq(files, 2323);
	ck_assert_uint_gt(ok, 0);
	ck_assert_uint_gt(errors, 0);
	tb_tarball_free(&tar);
}
END_TEST

START_TEST(odd_spellings_and_arguments)
{
	static const char text[] =
		"name: odd\nID: 5  \nformat:\n" COMMON4 "\n"
		"\tfield:__data_locx int a;\toffset:8;\tsize:4;\tsigned:1;\n"
		"\tfield:struct foo arr[N];\toffset:12;\tsize:12;\tsigned:0;\n"
		"\tfield:int six[N];\toffset:24;\tsize:6;\tsigned:1;\n"
		"\tfield:const char __attribute__ ((btf_type_tag(\"user\"))) * p;\toffset:32;\tsize:8;\tsigned:0;\n"
		"\tfield:int __attribute__ x;\toffset:40;\tsize:4;\tsigned:1;\n"
		"\tfield:unsigned long long long long long long long long long long w;\toffset:48;\tsize:8;\tsigned:0;\n"
		"\tfield:char three[2];\toffset:56;\tsize:6;\tsigned:0;\n"
		"\tfield:__data_loc unsigned long[] bits;\toffset:64;\tsize:4;\tsigned:0;\n"
		"\tfield:__data_loc leg;\toffset:68;\tsize:2;\n"
		TAIL;
	tb_format f;
	tb_format_error e;
	const tb_field *fl;
	uint8_t rec[72] = { 5 };
	uint64_t v;
	size_t n;
	const char *s;
	tb_error er;
	ck_assert_int_eq(tb_format_parse(text, strlen(text), g_fields, TB_ARRAY_LEN(g_fields), 0,
					 &f, &e),
			 TB_OK);
	ck_assert_uint_eq(f.id, 5);
	ck_assert_uint_eq(must_field(&f, "a")->kind, TB_FIELD_INT);
	fl = must_field(&f, "arr");
	ck_assert_uint_eq(fl->kind, TB_FIELD_ARRAY);
	ck_assert_uint_eq(fl->elem_size, 1);
	ck_assert_uint_eq(fl->count, 12);
	fl = must_field(&f, "six");
	ck_assert_uint_eq(fl->elem_size, 1); /* 6 bytes are no whole number of ints */
	ck_assert_uint_eq(must_field(&f, "p")->kind, TB_FIELD_POINTER);
	ck_assert_uint_eq(must_field(&f, "x")->kind, TB_FIELD_INT);
	ck_assert_uint_eq(must_field(&f, "w")->kind, TB_FIELD_INT);
	fl = must_field(&f, "three");
	ck_assert_uint_eq(fl->kind, TB_FIELD_ARRAY);
	ck_assert_uint_eq(fl->elem_size, 3);
	ck_assert(!(fl->flags & TB_FIELD_TEXT));
	ck_assert_int_eq(tb_field_elem(fl, rec, sizeof(rec), 0, 0, &v, &er), TB_ERR_UNSUPPORTED);
	ck_assert_uint_eq(must_field(&f, "bits")->elem_size, 8); /* long size 0 means 8 */
	/* the legacy loc word cut in half */
	ck_assert_int_eq(tb_field_str(must_field(&f, "leg"), rec, 69, 0, &s, &n, &er),
			 TB_ERR_TRUNCATED);

	ck_assert_ptr_null(tb_format_field_n(NULL, "a", 1));
	ck_assert_ptr_null(tb_format_field(&f, NULL));
	ck_assert_ptr_null(tb_format_field(&f, "nosuch"));
	ck_assert_str_eq(tb_field_kind_name(TB_FIELD_OPAQUE), "opaque");
	ck_assert_str_eq(tb_field_kind_name(99), "unknown");
	ck_assert_int_eq(tb_format_parse_header_page(NULL, 1, NULL, &e), TB_ERR_ARG);
	ck_assert_int_eq(tb_field_count(fl, rec, sizeof(rec), 0, NULL, &er), TB_ERR_ARG);
	ck_assert_int_eq(tb_field_elem(fl, NULL, 3, 0, 0, &v, &er), TB_ERR_ARG);
	ck_assert_int_eq(tb_field_str(fl, rec, sizeof(rec), 0, NULL, &n, &er), TB_ERR_ARG);
	ck_assert_ptr_null(tb_format_set_by_id(NULL, 5));
	ck_assert_ptr_null(tb_format_set_find(NULL, NULL, "odd"));
	{
		const tb_format *got;
		ck_assert_int_eq(tb_format_set_lookup(NULL, rec, 8, 0, &got, &er), TB_ERR_ARG);
	}
}
END_TEST

/* ---- the set ---- */

typedef struct small_set {
	tb_format events[8];
	tb_field fields[64];
	uint32_t index[32];
	tb_format_set set;
} small_set;

static tb_status add_str(small_set *ss, const char *text, const char *sys,
			 tb_format_error *e)
{
	return tb_format_set_add(&ss->set, text, strlen(text), sys, sys ? strlen(sys) : 0,
				 NULL, e);
}

START_TEST(set_storage_and_lookups)
{
	static small_set ss;
	static const char a[] = HEAD("a", "10") "\tfield:int x;\toffset:8;\tsize:4;\tsigned:1;\n" TAIL;
	static const char b[] = HEAD("b", "11") TAIL;
	static const char a_other_id[] = HEAD("a", "12") TAIL;
	static const char b_dup_id[] = HEAD("z", "11") TAIL;
	static const char wide_type[] =
		"name: w\nID: 13\nformat:\n\tfield:unsigned int common_type;\toffset:0;\tsize:4;\n\n" TAIL;
	tb_format_error e;
	const tb_format *f;
	uint8_t rec[12] = { 10, 0, 0, 0, 1, 0, 0, 0, 0xfe, 0xff, 0xff, 0xff };
	tb_error er;
	uint64_t v;

	ck_assert_int_eq(tb_format_set_init(&ss.set, ss.events, 8, ss.fields, 64, ss.index,
					    24, 8),
			 TB_ERR_ARG); /* not a power of two */
	ck_assert_int_eq(tb_format_set_init(&ss.set, ss.events, 8, ss.fields, 64, ss.index,
					    32, 5),
			 TB_ERR_ARG);
	ck_assert_uint_eq(tb_format_index_len(8), 32);
	ck_assert_uint_eq(tb_format_index_len(0), 4);
	/* an index of 16 slots: two halves of 8, each at most half full: 4 events */
	ck_assert_int_eq(tb_format_set_init(&ss.set, ss.events, 8, ss.fields, 64, ss.index,
					    16, 0),
			 TB_OK);
	ck_assert_ptr_null(tb_format_set_by_id(&ss.set, 10));
	ck_assert_int_eq(add_str(&ss, a, "sys1", &e), TB_OK);
	ck_assert_int_eq(add_str(&ss, b, "sys1", &e), TB_OK);
	ck_assert_int_eq(add_str(&ss, a_other_id, "sys2", &e), TB_OK); /* same name, other system */
	ck_assert_int_eq(add_str(&ss, a_other_id, "sys3", &e), TB_ERR_DUPLICATE);
	ck_assert_str_eq(e.error.what, "event id already in the set");
	ck_assert_int_eq(add_str(&ss, b_dup_id, "sys1", &e), TB_ERR_DUPLICATE);
	ck_assert_int_eq(add_str(&ss, HEAD("a", "20") TAIL, "sys1", &e), TB_ERR_DUPLICATE);
	ck_assert_str_eq(e.error.what, "event system:name already in the set");
	ck_assert_int_eq(add_str(&ss, wide_type, NULL, &e), TB_ERR_VALUE);
	ck_assert_str_eq(e.error.what, "common_type layout differs from the set's");
	ck_assert_int_eq(add_str(&ss, "name: broken\n", "sys1", &e), TB_ERR_TRUNCATED);
	ck_assert_uint_eq(ss.set.count, 3);
	ck_assert_uint_eq(ss.set.fields_used, 5 + 4 + 4);

	f = tb_format_set_by_id(&ss.set, 10);
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_eq(tb_format_set_find(&ss.set, "sys1", "a"), f);
	ck_assert_ptr_eq(tb_format_set_find(&ss.set, NULL, "a"), f); /* first added */
	ck_assert_ptr_eq(tb_format_set_find(&ss.set, "sys2", "a"),
			 tb_format_set_by_id(&ss.set, 12));
	ck_assert_ptr_null(tb_format_set_find(&ss.set, "sys3", "a"));
	ck_assert_ptr_null(tb_format_set_find(&ss.set, NULL, NULL));
	ck_assert_uint_eq(f->system_len, 4);
	ck_assert_ptr_null(tb_format_set_by_id(&ss.set, 14));

	/* record -> format -> field, no names on the way */
	ck_assert_int_eq(tb_format_set_lookup(&ss.set, rec, sizeof(rec), 0, &f, &er), TB_OK);
	ck_assert_uint_eq(f->id, 10);
	ck_assert_int_eq(tb_field_int(&f->fields[4], rec, sizeof(rec), 0, &v, &er), TB_OK);
	ck_assert_int_eq((int64_t)v, -2);
	rec[0] = 99;
	ck_assert_int_eq(tb_format_set_lookup(&ss.set, rec, sizeof(rec), 0, &f, &er),
			 TB_NOT_FOUND);
	ck_assert_ptr_null(f);
	ck_assert_int_eq(tb_format_set_lookup(&ss.set, rec, 1, 0, &f, &er), TB_ERR_TRUNCATED);
	rec[0] = 0;
	rec[1] = 11; /* big-endian 11 */
	ck_assert_int_eq(tb_format_set_lookup(&ss.set, rec, 2, 1, &f, &er), TB_OK);
	ck_assert_uint_eq(f->id, 11);

	/* full storage: the set is unchanged */
	ck_assert_int_eq(add_str(&ss, HEAD("c", "14") TAIL, "s", &e), TB_OK);
	ck_assert_int_eq(add_str(&ss, HEAD("d", "15") TAIL, "s", &e), TB_ERR_NO_SPACE);
	ck_assert_str_eq(e.error.what, "id index full");
	ck_assert_uint_eq(ss.set.count, 4);
}
END_TEST

START_TEST(set_full_storage)
{
	static small_set ss;
	tb_format_error e;
	ck_assert_int_eq(tb_format_set_init(&ss.set, ss.events, 1, ss.fields, 6, ss.index, 32, 8),
			 TB_OK);
	ck_assert_int_eq(add_str(&ss, HEAD("a", "1") "\tfield:int x;\toffset:8;\tsize:4;\n"
				      "\tfield:int y;\toffset:12;\tsize:4;\n"
				      "\tfield:int z;\toffset:16;\tsize:4;\n" TAIL, "s", &e),
			 TB_ERR_NO_SPACE);
	ck_assert_str_eq(e.error.what, "field storage full");
	ck_assert_uint_eq(ss.set.fields_used, 0);
	ck_assert_int_eq(add_str(&ss, HEAD("a", "1") TAIL, "s", &e), TB_OK);
	ck_assert_int_eq(add_str(&ss, HEAD("b", "2") TAIL, "s", &e), TB_ERR_NO_SPACE);
	ck_assert_str_eq(e.error.what, "event storage full");
	ck_assert_int_eq(tb_format_set_add(&ss.set, "x", 1, NULL, 3, NULL, &e), TB_ERR_ARG);
	{
		char longsys[TB_FORMAT_MAX_NAME + 1];
		memset(longsys, 's', sizeof(longsys));
		ck_assert_int_eq(tb_format_set_add(&ss.set, "x", 1, longsys, sizeof(longsys),
						   NULL, &e),
				 TB_ERR_LIMIT);
		ck_assert_str_eq(e.error.what, "system name too long");
	}
}
END_TEST

START_TEST(set_event_limit)
{
	size_t cap = TB_FORMAT_MAX_EVENTS + 1, ilen = tb_format_index_len(cap) * 2, i;
	tb_format *events = calloc(cap, sizeof(*events));
	tb_field *fields = calloc(cap, sizeof(*fields));
	uint32_t *index = calloc(ilen, sizeof(*index));
	char *texts = malloc(cap * 64);
	tb_format_set set;
	tb_format_error e;
	ck_assert_int_eq(tb_format_set_init(&set, events, cap, fields, cap, index, ilen, 8), TB_OK);
	for (i = 0; i < cap; i++) {
		char *t = texts + i * 64;
		int n = snprintf(t, 64, "name: e%zu\nID: %zu\nformat:\n\nprint fmt: \"\"\n", i, i);
		tb_status st = tb_format_set_add(&set, t, (size_t)n, "s", 1, NULL, &e);
		if (i < TB_FORMAT_MAX_EVENTS)
			ck_assert_int_eq(st, TB_OK);
		else
			ck_assert_int_eq(st, TB_ERR_LIMIT);
	}
	ck_assert_str_eq(e.error.what, "too many events in the set");
	ck_assert_ptr_eq(tb_format_set_by_id(&set, 65535), &events[65535]);
	ck_assert_ptr_eq(tb_format_set_find(&set, "s", "e4242"), &events[4242]);
	free(events);
	free(fields);
	free(index);
	free(texts);
}
END_TEST

START_TEST(set_arguments)
{
	static small_set ss;
	static const char wide[] =
		"name: w\nID: 1\nformat:\n\tfield:u64 common_type;\toffset:0;\tsize:8;\n\n" TAIL;
	static const char shifted[] =
		"name: s\nID: 2\nformat:\n\tfield:u64 common_type;\toffset:8;\tsize:8;\n\n" TAIL;
	tb_format_set zero;
	const tb_format *got;
	tb_error er;
	uint8_t rec[8] = { 1, 0, 0, 0, 1, 0, 0, 0 }; /* id 2^32 + 1 */
	memset(&zero, 0, sizeof(zero));
	ck_assert_int_eq(tb_format_set_init(NULL, ss.events, 8, ss.fields, 64, ss.index, 16, 8),
			 TB_ERR_ARG);
	ck_assert_int_eq(tb_format_set_init(&ss.set, NULL, 8, ss.fields, 64, ss.index, 16, 8),
			 TB_ERR_ARG);
	ck_assert_int_eq(tb_format_set_init(&ss.set, ss.events, 8, NULL, 64, ss.index, 16, 8),
			 TB_ERR_ARG);
	ck_assert_int_eq(tb_format_set_init(&ss.set, ss.events, 8, ss.fields, 64, NULL, 16, 8),
			 TB_ERR_ARG);
	ck_assert_int_eq(tb_format_set_init(&ss.set, ss.events, 8, ss.fields, 64, ss.index, 2, 8),
			 TB_ERR_ARG);
	/* a set never initialised finds nothing and takes nothing */
	ck_assert_ptr_null(tb_format_set_by_id(&zero, 1));
	ck_assert_ptr_null(tb_format_set_find(&zero, NULL, "w"));
	ck_assert_int_eq(tb_format_set_add(&zero, wide, strlen(wide), NULL, 0, NULL, NULL),
			 TB_ERR_ARG);
	ck_assert_int_eq(tb_format_set_add(NULL, wide, strlen(wide), NULL, 0, NULL, NULL),
			 TB_ERR_ARG);
	ck_assert_int_eq(tb_format_set_lookup(&zero, rec, 8, 0, &got, &er), TB_NOT_FOUND);
	ck_assert_int_eq(tb_format_set_lookup(&zero, rec, 8, 0, NULL, &er), TB_ERR_ARG);
	ck_assert_int_eq(tb_format_set_lookup(&zero, NULL, 8, 0, &got, &er), TB_ERR_ARG);

	/* a 32-bit kernel's set; an 8-byte common_type with an id past 32 bits */
	ck_assert_int_eq(tb_format_set_init(&ss.set, ss.events, 8, ss.fields, 64, ss.index, 16, 4),
			 TB_OK);
	ck_assert_int_eq(tb_format_set_add(&ss.set, wide, strlen(wide), NULL, 0, &got, NULL), TB_OK);
	ck_assert_ptr_null(got->system);
	ck_assert_ptr_eq(tb_format_set_find(&ss.set, NULL, "w"), got);
	ck_assert_int_eq(tb_format_set_add(&ss.set, wide, strlen(wide), NULL, 0, NULL, NULL),
			 TB_ERR_DUPLICATE);
	ck_assert_int_eq(tb_format_set_add(&ss.set, shifted, strlen(shifted), NULL, 0, NULL, NULL),
			 TB_ERR_VALUE); /* same size, other offset */
	ck_assert_int_eq(tb_format_set_lookup(&ss.set, rec, 8, 0, &got, &er), TB_NOT_FOUND);
	rec[4] = 0;
	ck_assert_int_eq(tb_format_set_lookup(&ss.set, rec, 8, 0, &got, &er), TB_OK);
	ck_assert_uint_eq(got->id, 1);
}
END_TEST

/* ---- header_page ---- */

START_TEST(header_page_real_and_variants)
{
	size_t n;
	char *text = (char *)tb_test_read_file(tb_test_path("tests/data/raw-sched4k/header_page"), &n);
	tb_header_page hp;
	tb_format_error e;
	static const char h32[] =
		"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
		"\tfield: local_t commit;\toffset:8;\tsize:4;\tsigned:1;\n"
		"\tfield: char data;\toffset:12;\tsize:4084;\tsigned:1;\n";
	static const char old_no_signed[] =
		"\tfield: u64 timestamp;\toffset:0;\tsize:8;\n"
		"\tfield: local_t commit;\toffset:8;\tsize:8;\n"
		"\tfield: int overwrite;\toffset:8;\tsize:1;\n"
		"\tfield: char data;\toffset:16;\tsize:4080;\n";
	ck_assert_ptr_nonnull(text);
	ck_assert_int_eq(tb_format_parse_header_page(text, n, &hp, &e), TB_OK);
	ck_assert_uint_eq(hp.timestamp_offset, 0);
	ck_assert_uint_eq(hp.timestamp_size, 8);
	ck_assert_uint_eq(hp.commit_offset, 8);
	ck_assert_uint_eq(hp.commit_size, 8);
	ck_assert_int_eq(hp.has_overwrite, 1);
	ck_assert_uint_eq(hp.overwrite_offset, 8);
	ck_assert_uint_eq(hp.overwrite_size, 1);
	ck_assert_uint_eq(hp.data_offset, 16);
	ck_assert_uint_eq(hp.data_size, 4080);
	free(text);
	ck_assert_int_eq(tb_format_parse_header_page(h32, strlen(h32), &hp, &e), TB_OK);
	ck_assert_uint_eq(hp.commit_size, 4);
	ck_assert_uint_eq(hp.data_offset, 12);
	ck_assert_int_eq(hp.has_overwrite, 0);
	ck_assert_int_eq(tb_format_parse_header_page(old_no_signed, strlen(old_no_signed), &hp, &e),
			 TB_OK);
	ck_assert_uint_eq(hp.data_size, 4080);
}
END_TEST

static const bad_case bad_headers[] = {
	{ "", TB_ERR_SYNTAX, "header_page lacks timestamp, commit or data", 0 },
	{ "\tfield: u64 timestamp;\toffset:0;\tsize:8;\n", TB_ERR_SYNTAX,
	  "header_page lacks timestamp, commit or data", 0 },
	{ "\tfield: u32 timestamp;\toffset:0;\tsize:4;\n", TB_ERR_VALUE,
	  "header_page timestamp must have size 8", 1 },
	{ "\tfield: u64 timestamp;\toffset:0;\tsize:8;\n\tfield: local_t commit;\toffset:8;\tsize:2;\n",
	  TB_ERR_VALUE, "header_page commit must have size 4 or 8", 2 },
	{ "\tfield: char data;\toffset:16;\tsize:0;\n", TB_ERR_VALUE,
	  "header_page data has size 0", 1 },
	/* unknown fields are skipped; the required ones still lack (at the
	 * end of the text: after its final newline, line 2) */
	{ "\tfield: int other;\toffset:16;\tsize:0;\n", TB_ERR_SYNTAX,
	  "header_page lacks timestamp, commit or data", 2 },
	{ "\tfield: u64 timestamp;\toffset:0;\tsize:8;\n\tfield: u64 timestamp;\toffset:0;\tsize:8;\n",
	  TB_ERR_DUPLICATE, "header_page field given twice", 2 },
	{ "\tfield: u64 timestamp;\toffset:0;\tsize:8;\n\tfield: local_t commit;\toffset:4;\tsize:8;\n"
	  "\tfield: char data;\toffset:16;\tsize:4080;\n",
	  TB_ERR_VALUE, "header_page timestamp and commit overlap", 1 },
	{ "\tfield: u64 timestamp;\toffset:0;\tsize:8;\n\tfield: local_t commit;\toffset:8;\tsize:8;\n"
	  "\tfield: char data;\toffset:12;\tsize:4080;\n",
	  TB_ERR_VALUE, "header_page data starts inside the header", 3 },
	{ "\tfield: u64 timestamp;\toffset:0;\tsize:8;\n\tfield: local_t commit;\toffset:8;\tsize:8;\n"
	  "\tfield: char data;\toffset:16;\tsize:4294967280;\n",
	  TB_ERR_VALUE, "header_page data ends past 128 MiB", 3 },
	{ "\tfield: u64 timestamp\n", TB_ERR_SYNTAX, "missing ';' after the field declaration", 1 },
	{ "timestamp\n", TB_ERR_SYNTAX, "expected 'field'", 1 },
	{ "\tfield: u64 timestamp;\toffset:0;\tbogus:1;\n", TB_ERR_SYNTAX,
	  "unknown key (expected offset:, size: or signed:)", 1 },
};

START_TEST(header_page_errors)
{
	const bad_case *c = &bad_headers[_i];
	size_t n = strlen(c->text);
	char *copy = (char *)tb_test_dup(c->text, n);
	tb_header_page hp;
	tb_format_error e;
	ck_assert_int_eq(tb_format_parse_header_page(copy, n, &hp, &e), c->status);
	ck_assert_str_eq(e.error.what, c->what);
	if (c->line)
		ck_assert_uint_eq(e.line, c->line);
	position_agrees(copy, n, &e);
	free(copy);
}
END_TEST

START_TEST(header_page_every_prefix)
{
	size_t n, k;
	char *text = (char *)tb_test_read_file(tb_test_path("tests/data/raw-sched4k/header_page"), &n);
	tb_header_page hp;
	tb_format_error e;
	ck_assert_ptr_nonnull(text);
	for (k = 0; k <= n; k++) {
		char *copy = (char *)tb_test_dup(text, k);
		tb_status st = tb_format_parse_header_page(copy, k, &hp, &e);
		if (st == TB_OK) /* only once data's line is whole */
			ck_assert_uint_eq(hp.data_size, 4080);
		else
			ck_assert_uint_le(e.error.offset, k);
		free(copy);
	}
	free(text);
}
END_TEST

/* ---- the live tracefs, when this machine has one ---- */

START_TEST(live_tracefs_formats_parse)
{
	tb_tarball live;
	size_t i, parsed = 0;
	if (tb_tarball_from_dir("/sys/kernel/tracing/events", &live) != 0)
		return; /* no tracefs here: nothing to compare */
	for (i = 0; i < live.count; i++) {
		const tb_tar_entry *t = &live.entries[i];
		char *copy = (char *)tb_test_dup(t->data, t->len);
		tb_format fmt;
		tb_format_error e;
		tb_status st = tb_format_parse(copy, t->len, g_fields, TB_ARRAY_LEN(g_fields), 8,
					       &fmt, &e);
		ck_assert_msg(st == TB_OK, "%s: line %u col %u: %s", t->path, e.line, e.column,
			      e.error.what);
		free(copy);
		parsed++;
	}
	tb_tarball_free(&live);
	ck_assert_uint_gt(parsed, 0);
}
END_TEST

/* ---- tracebound raw --events ---- */

static void put_file(const char *dir, const char *rel, const char *text)
{
	char path[1024], cmd[1200];
	FILE *f;
	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", path);
	ck_assert_int_eq(system(cmd), 0);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

static void rm_tree(const char *dir)
{
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

static const char raw_files[] =
	"tests/data/raw-sched4k/cpu0.raw tests/data/raw-sched4k/cpu1.raw";

START_TEST(cli_raw_events_real)
{
	char tmp[] = "/tmp/tb-format-cli-XXXXXX", args[1024];
	tb_test_run r;
	ck_assert_ptr_nonnull(mkdtemp(tmp));
	snprintf(args, sizeof(args), "-c \"tar xzf '%s' -C '%s'\"",
		 tb_test_path("tests/data/formats-6.18.tar.gz"), tmp);
	{
		char cmd[1200];
		snprintf(cmd, sizeof(cmd), "sh %s", args);
		ck_assert_int_eq(system(cmd), 0);
	}
	snprintf(args, sizeof(args), "raw --json --events %s/events %s", tmp, raw_files);
	tb_test_cli(args, &r);
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(r.err, "");
	/* 53,737 events (the drop report goes with the next event: "missed") */
	ck_assert_uint_eq(tb_test_count_lines(r.out), 53737);
	ck_assert_ptr_nonnull(strstr(r.out, "\"missed\":145271,"));
	ck_assert_ptr_nonnull(strstr(r.out,
		"{\"cpu\":0,\"ts\":209135259000,\"pid\":12319,\"comm\":null,\"system\":\"sched\","
		"\"name\":\"sched_switch\",\"id\":372,\"subbuf\":0,\"offset\":2744,\"size\":64,"
		"\"fields\":{\"common_type\":372,\"common_flags\":1,"
		"\"common_preempt_count\":2,\"common_pid\":12319,\"prev_comm\":\"bash\","
		"\"prev_pid\":12319,\"prev_prio\":120,\"prev_state\":1,\"next_comm\":\"bash\","
		"\"next_pid\":12321,\"next_prio\":120}}\n"));
	ck_assert_ptr_nonnull(strstr(r.out, "\"name\":\"sched_process_exec\",\"id\":365,"));
	ck_assert_ptr_nonnull(strstr(r.out, "\"fields\":{\"common_type\":365,\"common_flags\":0,\"common_preempt_count\":0,"
		"\"common_pid\":12322,\"filename\":\"/usr/bin/ls\",\"pid\":12322,\"old_pid\":12322}}"));
	{ /* every event had a format (a plain scan: strstr in a loop is
	   * quadratic under ASan, which measures the haystack each call) */
		static const char needle[] = ",\"system\":";
		size_t named = 0, i, k = sizeof(needle) - 1;
		for (i = 0; r.out[i]; i++)
			if (r.out[i] == ',' && strncmp(r.out + i, needle, k) == 0)
				named++;
		ck_assert_uint_eq(named, 53737);
	}
	tb_test_run_free(&r);

	snprintf(args, sizeof(args), "raw --events %s/events %s", tmp, raw_files);
	tb_test_cli(args, &r);
	ck_assert_int_eq(r.status, 0);
	ck_assert_ptr_nonnull(strstr(r.out,
		"cpu=0 ts=209135259000 pid=12319 sched:sched_switch: prev_comm=bash prev_pid=12319 "
		"prev_prio=120 prev_state=1 next_comm=bash next_pid=12321 next_prio=120\n"));
	ck_assert_ptr_nonnull(strstr(r.out,
		"cpu=0 ts=209134944557 pid=12319 syscalls:sys_exit_write: __syscall_nr=1 ret=2\n"));
	tb_test_run_free(&r);

	/* tracebound formats: one line per event, fields in format order */
	snprintf(args, sizeof(args), "formats --json %s/events", tmp);
	tb_test_cli(args, &r);
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(r.err, "");
	ck_assert_uint_eq(tb_test_count_lines(r.out), 2323);
	ck_assert_ptr_nonnull(strstr(r.out,
		"{\"system\":\"sched\",\"name\":\"sched_process_exec\",\"id\":365,\"fields\":["
		"{\"name\":\"common_type\",\"type\":\"unsigned short\",\"offset\":0,\"size\":2,"
		"\"signed\":0,\"kind\":\"int\"},"
		"{\"name\":\"common_flags\",\"type\":\"unsigned char\",\"offset\":2,\"size\":1,"
		"\"signed\":0,\"kind\":\"int\"},"
		"{\"name\":\"common_preempt_count\",\"type\":\"unsigned char\",\"offset\":3,"
		"\"size\":1,\"signed\":0,\"kind\":\"int\"},"
		"{\"name\":\"common_pid\",\"type\":\"int\",\"offset\":4,\"size\":4,"
		"\"signed\":1,\"kind\":\"int\"},"
		"{\"name\":\"filename\",\"type\":\"__data_loc char[]\",\"offset\":8,\"size\":4,"
		"\"signed\":0,\"kind\":\"dynamic\"},"
		"{\"name\":\"pid\",\"type\":\"pid_t\",\"offset\":12,\"size\":4,"
		"\"signed\":1,\"kind\":\"int\"},"
		"{\"name\":\"old_pid\",\"type\":\"pid_t\",\"offset\":16,\"size\":4,"
		"\"signed\":1,\"kind\":\"int\"}]}\n"));
	ck_assert_ptr_nonnull(strstr(r.out, "{\"name\":\"prev_comm\",\"type\":\"char[16]\","
					    "\"offset\":8,\"size\":16,\"signed\":0,\"kind\":\"string\"}"));
	tb_test_run_free(&r);
	snprintf(args, sizeof(args), "formats %s/events", tmp);
	tb_test_cli(args, &r);
	ck_assert_int_eq(r.status, 0);
	ck_assert_uint_eq(tb_test_count_lines(r.out), 2323 + 21094);
	ck_assert_ptr_nonnull(strstr(r.out, "ftrace:print id=5 fields=6\n"));
	ck_assert_ptr_nonnull(strstr(r.out, "\tchar[] buf; offset=16 size=0 signed=0 kind=rest\n"));
	tb_test_run_free(&r);
	rm_tree(tmp);
}
END_TEST

START_TEST(cli_raw_events_bad_format_and_record)
{
	char tmp[] = "/tmp/tb-format-cli-XXXXXX", args[1024];
	tb_test_run r;
	ck_assert_ptr_nonnull(mkdtemp(tmp));
	/* sched_switch claims a field past its records' end; sys_exit_write is broken */
	put_file(tmp, "ev/sched/sched_switch/format",
		 HEAD("sched_switch", "372")
		 "\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
		 "\tfield:u64 beyond;\toffset:200;\tsize:8;\tsigned:0;\n" TAIL);
	put_file(tmp, "ev/syscalls/sys_exit_write/format",
		 HEAD("sys_exit_write", "839") "\tfield:int ret;\toffset:16;\tsize:8\n" TAIL);
	put_file(tmp, "ev/syscalls/sys_exit_dup2/format",
		 HEAD("sys_exit_dup2", "917")
		 "\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n"
		 "\tfield:long ret;\toffset:16;\tsize:8;\tsigned:1;\n" TAIL);
	snprintf(args, sizeof(args),
		 "raw --json --header-page tests/data/raw-sched4k/header_page --events %s/ev %s",
		 tmp, raw_files);
	tb_test_cli(args, &r);
	ck_assert_int_eq(r.status, 1);
	ck_assert_ptr_nonnull(strstr(r.err, "ev/syscalls/sys_exit_write/format: line 9, column 34: "
					    "missing ';' after a value (syntax error)"));
	ck_assert_ptr_nonnull(strstr(r.err, "1 event format(s) could not be used"));
	ck_assert_ptr_nonnull(strstr(r.err, "2606 record(s) did not fit their event format"));
	ck_assert_ptr_nonnull(strstr(r.out, "\"name\":\"sched_switch\",\"id\":372,"));
	ck_assert_ptr_nonnull(strstr(r.out, "\"fields\":{"
					    "\"common_type\":372,\"common_flags\":1,"
					    "\"common_preempt_count\":2,\"common_pid\":12319,"
					    "\"prev_comm\":\"bash\",\"beyond\":null}}"));
	ck_assert_ptr_nonnull(strstr(r.out, "\"name\":\"sys_exit_dup2\",\"id\":917,"));
	/* events without a usable format are still printed, unnamed */
	ck_assert_ptr_nonnull(strstr(r.out, "{\"cpu\":0,\"ts\":209134944557,\"pid\":12319,"
					    "\"comm\":null,\"system\":null,\"name\":null,\"id\":839,"));
	ck_assert_uint_eq(tb_test_count_lines(r.out), 53737);
	tb_test_run_free(&r);

	/* the listing goes on past the broken format, and says so */
	snprintf(args, sizeof(args), "formats %s/ev", tmp);
	tb_test_cli(args, &r);
	ck_assert_int_eq(r.status, 1);
	ck_assert_ptr_nonnull(strstr(r.err, "sys_exit_write/format: line 9, column 34"));
	ck_assert_ptr_nonnull(strstr(r.out, "sched:sched_switch id=372 fields=6\n"));
	ck_assert_ptr_nonnull(strstr(r.out, "syscalls:sys_exit_dup2 id=917 fields=6\n"));
	tb_test_run_free(&r);
	tb_test_cli("formats", &r);
	ck_assert_int_eq(r.status, 2);
	tb_test_run_free(&r);

	snprintf(args, sizeof(args), "raw --events %s/nonexistent %s", tmp, raw_files);
	tb_test_cli(args, &r);
	ck_assert_int_eq(r.status, 2);
	ck_assert_ptr_nonnull(strstr(r.err, "nonexistent: not an events directory (No such file"));
	tb_test_run_free(&r);
	rm_tree(tmp);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("format");
	TCase *tc = tcase_create("real");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, all_real_formats_parse);
	tcase_add_test(tc, real_formats_agree_with_libtraceevent);
	suite_add_tcase(s, tc);
	tc = tcase_create("grammar");
	tcase_set_timeout(tc, 240); /* ~2M prefix parses: 16 s under ASan, alone */
	tcase_add_test(tc, old_kernel_spellings);
	tcase_add_test(tc, tricky_field_lines);
	tcase_add_loop_test(tc, each_grammar_error, 0, (int)TB_ARRAY_LEN(bad_cases));
	tcase_add_test(tc, error_position);
	tcase_add_test(tc, error_position_at_the_end);
	tcase_add_test(tc, nul_bytes_are_errors);
	tcase_add_test(tc, limits_and_space);
	tcase_add_test(tc, every_prefix_of_real_formats);
	tcase_add_test(tc, every_prefix_of_all_real_formats);
	tcase_add_test(tc, odd_spellings_and_arguments);
	suite_add_tcase(s, tc);
	tc = tcase_create("set");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, set_storage_and_lookups);
	tcase_add_test(tc, set_full_storage);
	tcase_add_test(tc, set_event_limit);
	tcase_add_test(tc, set_arguments);
	suite_add_tcase(s, tc);
	tc = tcase_create("header_page");
	tcase_add_test(tc, header_page_real_and_variants);
	tcase_add_loop_test(tc, header_page_errors, 0, (int)TB_ARRAY_LEN(bad_headers));
	tcase_add_test(tc, header_page_every_prefix);
	suite_add_tcase(s, tc);
	tc = tcase_create("cli");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, live_tracefs_formats_parse);
	tcase_add_test(tc, cli_raw_events_real);
	tcase_add_test(tc, cli_raw_events_bad_format_and_record);
	suite_add_tcase(s, tc);
	return s;
}

Suite *tb_suite_format(void)
{
	return suite();
}
