/* Tables from a trace.dat's texts: saved cmdlines, kallsyms, printk
 * formats.  Malformed lines fail with the byte offset of the line. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "tracebound/tracedat.h"

Suite *tb_suite_dattables(void);

static int span_is(const char *p, size_t n, const char *s)
{
	return n == strlen(s) && memcmp(p, s, n) == 0;
}

START_TEST(cmdlines_basic)
{
	static const char text[] = "2847 bash\n18 migration/0\n1573 memfd:sealed-91\n"
				   "5 kworker/u8:0 with space\n";
	tb_cmdline v[4];
	tb_cmdlines t = { v, 0, 4 };
	tb_error e;
	const tb_cmdline *c;
	ck_assert_uint_eq(tb_cmdlines_count(text, strlen(text)), 4);
	ck_assert_int_eq(tb_cmdlines_parse(&t, text, strlen(text), &e), TB_OK);
	ck_assert_uint_eq(t.n, 4);
	ck_assert_int_eq(t.v[0].pid, 5); /* sorted */
	c = tb_cmdlines_find(&t, 18);
	ck_assert_ptr_nonnull(c);
	ck_assert(span_is(c->comm, c->comm_len, "migration/0"));
	c = tb_cmdlines_find(&t, 5);
	ck_assert(span_is(c->comm, c->comm_len, "kworker/u8:0 with space"));
	ck_assert_ptr_null(tb_cmdlines_find(&t, 19));
	ck_assert_ptr_null(tb_cmdlines_find(&t, 99999));
	t.cap = 3;
	ck_assert_int_eq(tb_cmdlines_parse(&t, text, strlen(text), &e),
			 TB_ERR_NO_SPACE);
	ck_assert_uint_eq(e.offset, 46); /* "5 kworker..." starts at byte 46 */
	ck_assert_uint_eq(t.n, 3);        /* the lines before it are kept */
}
END_TEST

START_TEST(cmdlines_malformed)
{
	static const char *const bad[] = { "1 a\nbash\n", "1 a\nx1 bash\n",
					   "1 a\n12 \n", "1 a\n99999999999 x\n" };
	tb_cmdline v[4];
	size_t i;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		tb_cmdlines t = { v, 0, 4 };
		tb_error e;
		ck_assert_int_eq(tb_cmdlines_parse(&t, bad[i], strlen(bad[i]), &e),
				 TB_ERR_SYNTAX);
		ck_assert_uint_eq(e.offset, 4); /* after "1 a\n" */
		ck_assert_uint_eq(t.n, 1);
	}
}
END_TEST

START_TEST(kallsyms_basic)
{
	static const char text[] =
		"ffffffff81442220 t tick_nohz_handler\n"
		"ffffffff81000000 T _stext\n"
		"0000000000000000 A fixed_percpu_data\n"
		"ffffffff8142cab0 t hrtimer_wakeup\n"
		"ffffffffc0201000 t ftrace_trampoline\t[__builtin__ftrace]\n"
		"ffffffff81001000 a abs_low\n"
		"ffffffff81002000 t $x\n";
	tb_ksym v[8];
	tb_kallsyms t = { v, 0, 8, NULL };
	tb_error e;
	const tb_ksym *k;
	/* issue 15, item 7: every line is kept and counted; absolute and
	 * mapping symbols come after the others and are never looked up */
	ck_assert_uint_eq(tb_kallsyms_count(text, strlen(text)), 7);
	ck_assert_int_eq(tb_kallsyms_parse(&t, text, strlen(text), &e), TB_OK);
	ck_assert_uint_eq(t.n, 7);
	ck_assert_uint_eq(t.v[0].addr, 0xffffffff81000000ull);
	ck_assert_uint_eq(t.v[3].addr, 0xffffffffc0201000ull);
	ck_assert_int_eq(t.v[4].type, 'A');
	ck_assert(span_is(tb_ksym_name(&t, &t.v[4]), t.v[4].name_len, "fixed_percpu_data"));
	ck_assert(span_is(tb_ksym_name(&t, &t.v[5]), t.v[5].name_len, "abs_low"));
	ck_assert(span_is(tb_ksym_name(&t, &t.v[6]), t.v[6].name_len, "$x"));
	k = tb_kallsyms_find(&t, 0xffffffff81002010ull); /* past abs_low and $x */
	ck_assert(span_is(tb_ksym_name(&t, k), k->name_len, "_stext"));
	k = tb_kallsyms_find(&t, 0xffffffff8142cab0ull + 0x10);
	ck_assert_ptr_nonnull(k);
	ck_assert(span_is(tb_ksym_name(&t, k), k->name_len, "hrtimer_wakeup"));
	ck_assert_int_eq(k->type, 't');
	ck_assert_ptr_null(tb_ksym_module(&t, k));
	k = tb_kallsyms_find(&t, 0xffffffffc0201005ull);
	ck_assert(span_is(tb_ksym_name(&t, k), k->name_len, "ftrace_trampoline"));
	ck_assert(span_is(tb_ksym_module(&t, k), k->module_len, "__builtin__ftrace"));
	ck_assert_ptr_null(tb_kallsyms_find(&t, 0x1000));
}
END_TEST

START_TEST(kallsyms_malformed)
{
	static const char *const bad[] = {
		"ffffffff81000000 T a\nffffffff81000000\n",
		"ffffffff81000000 T a\nzzzz T x\n",
		"ffffffff81000000 T a\nffffffff81000000 Tx y\n",
		"ffffffff81000000 T a\n1ffffffff81000000 T y\n",
		"ffffffff81000000 T a\nffffffff81000000 T \n",
		"ffffffff81000000 T a\nffffffff81000000 T \t[m]\n",
		/* sixteen characters then a space, not all hex digits */
		"ffffffff81000000 T a\nffffffff8100000g T y\n",
		"ffffffff81000000 T a\nffffffff 1000000 T y\n",
	};
	tb_ksym v[4];
	size_t i;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		tb_kallsyms t = { v, 0, 4, NULL };
		tb_error e;
		ck_assert_int_eq(tb_kallsyms_parse(&t, bad[i], strlen(bad[i]), &e),
				 TB_ERR_SYNTAX);
		ck_assert_uint_eq(e.offset, 21); /* after the first line */
		ck_assert_uint_eq(t.n, 1);        /* which is kept */
	}
}
END_TEST

/* Room and length limits: a full table, a name or module name longer than
 * the 16-bit lengths hold, a text over the 32-bit name offsets. */
START_TEST(kallsyms_limits)
{
	static const char two[] = "ffffffff81000000 T a\nffffffff81000001 T b\n";
	const size_t big = TB_KSYM_NAME_MAX + 1;
	char *line = (char *)malloc(big + 64);
	tb_ksym v[2];
	tb_kallsyms t = { v, 0, 1, NULL };
	tb_error e;
	size_t n;
	ck_assert_int_eq(tb_kallsyms_parse(&t, two, strlen(two), &e), TB_ERR_NO_SPACE);
	ck_assert_uint_eq(e.offset, 21);
	ck_assert_uint_eq(t.n, 1);

	/* a name of exactly TB_KSYM_NAME_MAX bytes fits, one more does not */
	n = (size_t)sprintf(line, "ffffffff81000000 T ");
	memset(line + n, 'x', big);
	t.cap = 2;
	ck_assert_int_eq(tb_kallsyms_parse(&t, line, n + big - 1, &e), TB_OK);
	ck_assert_uint_eq(t.v[0].name_len, TB_KSYM_NAME_MAX);
	ck_assert_int_eq(tb_kallsyms_parse(&t, line, n + big, &e), TB_ERR_LIMIT);
	ck_assert_uint_eq(e.offset, 0);
	ck_assert_uint_eq(t.n, 0);

	/* the same for a module name (brackets are not counted) */
	n = (size_t)sprintf(line, "ffffffff81000000 T f\t[");
	memset(line + n, 'm', big);
	line[n + big - 1] = ']';
	ck_assert_int_eq(tb_kallsyms_parse(&t, line, n + big, &e), TB_OK);
	ck_assert_uint_eq(t.v[0].module_len, TB_KSYM_NAME_MAX);
	line[n + big - 1] = 'm';
	line[n + big] = ']';
	ck_assert_int_eq(tb_kallsyms_parse(&t, line, n + big + 1, &e), TB_ERR_LIMIT);
	ck_assert_uint_eq(t.n, 0);
#if SIZE_MAX > UINT32_MAX
	/* refused before a byte is read: names are 32-bit offsets */
	ck_assert_int_eq(tb_kallsyms_parse(&t, two, (size_t)UINT32_MAX + 1, &e),
			 TB_ERR_LIMIT);
#endif
	free(line);
}
END_TEST

START_TEST(printk_basic)
{
	static const char text[] = "0xffffffff8281a8ff : \"thaw_processes\"\n"
				   "0xffffffff82522908 : \"mas_rebalance\"\n"
				   "0xffffffff8281b739 : \"rcu: %s\\n\"";
	tb_printk_fmt v[3];
	tb_printk_fmts t = { v, 0, 3 };
	tb_error e;
	const tb_printk_fmt *f;
	ck_assert_uint_eq(tb_printk_count(text, strlen(text)), 3);
	ck_assert_int_eq(tb_printk_parse(&t, text, strlen(text), &e), TB_OK);
	f = tb_printk_find(&t, 0xffffffff8281b739ull);
	ck_assert_ptr_nonnull(f);
	ck_assert(span_is(f->fmt, f->fmt_len, "rcu: %s\\n"));
	ck_assert(span_is(t.v[0].fmt, t.v[0].fmt_len, "mas_rebalance"));
	ck_assert_ptr_null(tb_printk_find(&t, 0xffffffff8281b738ull));
}
END_TEST

/* R15: libtraceevent over-reads on a last line without ':'. */
START_TEST(printk_last_line_without_colon)
{
	static const char text[] = "0xffffffff81000000 : \"a\"\nffffffff81000000";
	tb_printk_fmt v[3];
	tb_printk_fmts t = { v, 0, 3 };
	tb_error e;
	/* exact-size copy so ASan sees any over-read */
	char *p = (char *)tb_test_dup(text, strlen(text));
	ck_assert_int_eq(tb_printk_parse(&t, p, strlen(text), &e), TB_ERR_SYNTAX);
	ck_assert_uint_eq(e.offset, 25);
	ck_assert_int_eq(tb_printk_parse(&t, p, 1, &e), TB_ERR_SYNTAX);
	ck_assert_uint_eq(e.offset, 0);
	ck_assert_int_eq(tb_printk_parse(&t, "x : \"y\"", 7, &e), TB_ERR_SYNTAX);
	ck_assert_int_eq(tb_printk_parse(&t, " : \"y\"", 6, &e), TB_ERR_SYNTAX);
	free(p);
}
END_TEST

/* Blank lines, CRLF endings and unquoted formats; a full table. */
START_TEST(printk_layouts_and_room)
{
	static const char text[] = "0x20 : \"a\"\r\n\n  0X10\t: b c\n";
	tb_printk_fmt v[2];
	tb_printk_fmts t = { v, 0, 2 };
	tb_error e;
	ck_assert_uint_eq(tb_printk_count(text, strlen(text)), 2);
	ck_assert_int_eq(tb_printk_parse(&t, text, strlen(text), &e), TB_OK);
	ck_assert_uint_eq(t.n, 2);
	ck_assert_uint_eq(t.v[0].addr, 0x10);
	ck_assert(span_is(t.v[0].fmt, t.v[0].fmt_len, "b c"));
	ck_assert(span_is(t.v[1].fmt, t.v[1].fmt_len, "a"));
	t.cap = 1;
	ck_assert_int_eq(tb_printk_parse(&t, text, strlen(text), &e), TB_ERR_NO_SPACE);
	ck_assert_uint_eq(e.offset, 13);
	ck_assert_uint_eq(t.n, 1);
}
END_TEST

/* A file without the text hands out (NULL, 0): an empty table (fuzz
 * regression: the line walk did pointer arithmetic on NULL). */
START_TEST(tables_empty_text)
{
	tb_ksym kv[1];
	tb_printk_fmt pv[1];
	tb_cmdline cv[1];
	tb_kallsyms kt = { kv, 5, 1, NULL };
	tb_printk_fmts pt = { pv, 5, 1 };
	tb_cmdlines ct = { cv, 5, 1 };
	ck_assert_int_eq(tb_kallsyms_parse(&kt, NULL, 0, NULL), TB_OK);
	ck_assert_int_eq(tb_printk_parse(&pt, NULL, 0, NULL), TB_OK);
	ck_assert_int_eq(tb_cmdlines_parse(&ct, NULL, 0, NULL), TB_OK);
	ck_assert_uint_eq(kt.n + pt.n + ct.n, 0);
	ck_assert_uint_eq(tb_kallsyms_count(NULL, 0), 0);
	ck_assert_int_eq(tb_kallsyms_parse(&kt, NULL, 3, NULL), TB_ERR_ARG);
	ck_assert_int_eq(tb_kallsyms_parse(NULL, "1 T x\n", 6, NULL), TB_ERR_ARG);
	ck_assert_int_eq(tb_printk_parse(NULL, "0x1 : \"a\"", 10, NULL), TB_ERR_ARG);
	ck_assert_int_eq(tb_cmdlines_parse(NULL, "1 a", 3, NULL), TB_ERR_ARG);
	ck_assert_ptr_null(tb_kallsyms_find(NULL, 1));
	ck_assert_ptr_null(tb_printk_find(NULL, 1));
	ck_assert_ptr_null(tb_cmdlines_find(NULL, 1));
}
END_TEST

/* Every prefix of each table text parses or fails cleanly. */
START_TEST(tables_every_prefix)
{
	static const char ks[] = "ffffffff81000000 T _stext\nffffffff81000100 t f\t[m]\n";
	static const char pk[] = "0x10 : \"a\"\n0x20 : \"b\"\n";
	static const char cm[] = "1 init\n42 bash\n";
	tb_ksym kv[4];
	tb_printk_fmt pv[4];
	tb_cmdline cv[4];
	size_t n;
	for (n = 0; n <= sizeof(ks) - 1; n++) {
		char *p = (char *)tb_test_dup(ks, n);
		tb_kallsyms t = { kv, 0, 4, NULL };
		tb_status s = tb_kallsyms_parse(&t, p, n, NULL);
		ck_assert(s == TB_OK || s == TB_ERR_SYNTAX);
		free(p);
	}
	for (n = 0; n <= sizeof(pk) - 1; n++) {
		char *p = (char *)tb_test_dup(pk, n);
		tb_printk_fmts t = { pv, 0, 4 };
		tb_status s = tb_printk_parse(&t, p, n, NULL);
		ck_assert(s == TB_OK || s == TB_ERR_SYNTAX);
		free(p);
	}
	for (n = 0; n <= sizeof(cm) - 1; n++) {
		char *p = (char *)tb_test_dup(cm, n);
		tb_cmdlines t = { cv, 0, 4 };
		tb_status s = tb_cmdlines_parse(&t, p, n, NULL);
		ck_assert(s == TB_OK || s == TB_ERR_SYNTAX);
		free(p);
	}
}
END_TEST

/* The real sample's tables (texts taken straight from the file). */
START_TEST(tables_from_sample)
{
	const char *path = tb_test_path("../shared/samples/sched4k.v7.dat");
	size_t n, cnt;
	uint8_t *p;
	const char *ks, *pk, *cm;
	tb_kallsyms kt;
	tb_printk_fmts pt;
	tb_cmdlines ct;
	const tb_ksym *k;
	const tb_cmdline *c;
	tb_error e;
	if (!tb_test_exists(path)) {
		printf("dattables: sample missing, test skipped\n");
		return;
	}
	p = tb_test_read_file(path, &n);
	ck_assert_ptr_nonnull(p);
	/* offsets of the texts in this file (checked by test_tracedat) */
	ks = (const char *)p + 2025129 + 16 + 4;
	pk = (const char *)p + 7439735 + 16 + 4;
	cm = (const char *)p + 7444071 + 16 + 8;
	cnt = tb_kallsyms_count(ks, 5414586);
	ck_assert_uint_eq(cnt, 122160);
	kt.v = calloc(cnt, sizeof(*kt.v));
	kt.cap = cnt;
	ck_assert_int_eq(tb_kallsyms_parse(&kt, ks, 5414586, &e), TB_OK);
	k = tb_kallsyms_find(&kt, 0xffffffff81442220ull);
	ck_assert(span_is(tb_ksym_name(&kt, k), k->name_len, "tick_nohz_handler"));
	k = tb_kallsyms_find(&kt, 0xffffffff8142cab0ull);
	ck_assert(span_is(tb_ksym_name(&kt, k), k->name_len, "hrtimer_wakeup"));
	ck_assert_uint_eq(kt.n, 122160); /* every line kept */
	/* sorted by address: the symbols looked up, then the absolute ones */
	for (cnt = 1; cnt < kt.n; cnt++)
		if (kt.v[cnt].type != 'A' && kt.v[cnt].type != 'a')
			ck_assert_uint_le(kt.v[cnt - 1].addr, kt.v[cnt].addr);
		else if (kt.v[cnt - 1].type == 'A' || kt.v[cnt - 1].type == 'a')
			ck_assert_uint_le(kt.v[cnt - 1].addr, kt.v[cnt].addr);
	pt.cap = tb_printk_count(pk, 4316);
	ck_assert_uint_eq(pt.cap, 128);
	pt.v = calloc(pt.cap, sizeof(*pt.v));
	ck_assert_int_eq(tb_printk_parse(&pt, pk, 4316, &e), TB_OK);
	ck_assert_ptr_nonnull(tb_printk_find(&pt, 0xffffffff82522908ull));
	ct.cap = tb_cmdlines_count(cm, 839);
	ck_assert_uint_eq(ct.cap, 71);
	ct.v = calloc(ct.cap, sizeof(*ct.v));
	ck_assert_int_eq(tb_cmdlines_parse(&ct, cm, 839, &e), TB_OK);
	c = tb_cmdlines_find(&ct, 1573);
	ck_assert(span_is(c->comm, c->comm_len, "memfd:sealed-91"));
	free(kt.v);
	free(pt.v);
	free(ct.v);
	free(p);
}
END_TEST

Suite *tb_suite_dattables(void)
{
	Suite *s = suite_create("dattables");
	TCase *t = tcase_create("tables");
	tcase_set_timeout(t, 60);
	tcase_add_test(t, cmdlines_basic);
	tcase_add_test(t, cmdlines_malformed);
	tcase_add_test(t, kallsyms_basic);
	tcase_add_test(t, kallsyms_malformed);
	tcase_add_test(t, kallsyms_limits);
	tcase_add_test(t, printk_basic);
	tcase_add_test(t, printk_last_line_without_colon);
	tcase_add_test(t, printk_layouts_and_room);
	tcase_add_test(t, tables_every_prefix);
	tcase_add_test(t, tables_empty_text);
	tcase_add_test(t, tables_from_sample);
	suite_add_tcase(s, t);
	return s;
}
