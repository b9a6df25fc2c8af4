/*
 * trace-cmd's -R field listing, the renderer's TB_RENDER_FIELD_LIST mode
 * (lib/printfmt_parse.c compile_fields, lib/printfmt_fields.c), and the
 * kallsyms lookup rules it names symbols by (tb_kallsyms_find_as):
 *  - against libtraceevent itself on all 2,323 real formats of
 *    tests/data/formats-6.18.tar.gz: whether the print fmt is understood,
 *    and " name=value" for every field of records of four kinds, equal to
 *    tep_record_print_fields byte for byte;
 *  - each conversion kind and each raw kind, each one also against
 *    libtraceevent's output for the same event and record;
 *  - the errors: fields and dynamic data outside the record, hostile
 *    print fmts, truncation at every capacity (needed independent of it);
 *  - libtraceevent's symbol lookup without reordering the table, against
 *    a model of it (reverse aliases, then its bsearch) on random tables.
 * `tracebound report --raw` (the session's TB_TEXT_FIELDS lines) on the
 * three samples is compared with trace-cmd's output and the goldens by
 * tests/test_report.c.
 */
#include <check.h>
#include <event-parse.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracebound/format.h"
#include "tracebound/render.h"
#include "tracebound/tracedat.h"
#include "tarball.h"
#include "testutil.h"

Suite *tb_suite_render_fields(void);

#define MAX_FIELDS 512

static tb_render_prog prog; /* 54 KB: not on the stack */

/* ---- one event by hand ---- */

#define COMMON                                                                         \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"           \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"           \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"   \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

/* "name: t / ID: 7 / the common fields / fields / print fmt: pf". */
static const char *event_text(const char *fields, const char *pf)
{
	static char buf[8192];
	snprintf(buf, sizeof(buf), "name: t\nID: 7\nformat:\n" COMMON "%s\nprint fmt: %s\n",
		 fields, pf);
	return buf;
}

typedef struct symtab {
	tb_ksym v[8];
	tb_kallsyms ks;
	char text[256];
} symtab;

/* kallsyms: fn_a at 0x1000 (alias fn_a2 after it in the text), fn_b at
 * 0x1100 (size of fn_a: 0x100), fn_c at 0x2000. */
static const tb_render_env *sym_env(void)
{
	static symtab st;
	static tb_render_env env;
	static const char text[] = "1000 t fn_a\n1000 T fn_a2\n1100 t fn_b\n2000 t fn_c\n";
	memset(&st, 0, sizeof(st));
	memcpy(st.text, text, sizeof(text));
	st.ks.v = st.v;
	st.ks.cap = 8;
	ck_assert_int_eq(tb_kallsyms_parse(&st.ks, st.text, strlen(st.text), NULL), TB_OK);
	memset(&env, 0, sizeof(env));
	env.ksyms = &st.ks;
	env.ksym_how = TB_KSYM_TEP;
	return &env;
}

static int test_printk(void *ctx, uint64_t addr, const char **s, size_t *n)
{
	(void)ctx;
	if (addr != 0xffffffff81000000ull)
		return 0;
	*s = "a printk string";
	*n = strlen(*s);
	return 1;
}

/* libtraceevent's -R fields of one record into a fresh s (the caller
 * destroys it). */
static void tep_print_rec(struct trace_seq *s, struct tep_event *ev, const void *rec, size_t len)
{
	struct tep_record r;
	memset(&r, 0, sizeof(r));
	r.data = (void *)(uintptr_t)rec;
	r.size = (int)len;
	trace_seq_init(s);
	tep_record_print_fields(s, &r, ev);
	trace_seq_terminate(s);
}

/* libtraceevent's -R fields for the same event and record. */
static char *tep_fields(const char *text, const void *rec, size_t len, int with_syms)
{
	struct tep_handle *tep = tep_alloc();
	struct tep_event *ev = NULL;
	struct trace_seq s;
	char *out;
	tep_set_long_size(tep, 8);
	tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
	if (with_syms) {
		/* registered in text order, as trace-cmd reads kallsyms */
		tep_register_function(tep, "fn_a", 0x1000, NULL);
		tep_register_function(tep, "fn_a2", 0x1000, NULL);
		tep_register_function(tep, "fn_b", 0x1100, NULL);
		tep_register_function(tep, "fn_c", 0x2000, NULL);
		tep_register_print_string(tep, "a printk string", 0xffffffff81000000ull);
	}
	(void)tep_parse_format(tep, &ev, text, strlen(text), "sys");
	ck_assert_ptr_nonnull(ev);
	tep_print_rec(&s, ev, rec, len);
	out = strdup(s.buffer);
	trace_seq_destroy(&s);
	tep_free(tep);
	return out;
}

static tb_format fmt;
static tb_field fields[64];

static void compile_text(const char *text, tb_status want)
{
	tb_format_error fe;
	tb_error err;
	ck_assert_int_eq(tb_format_parse(text, strlen(text), fields, 64, 8, &fmt, &fe), TB_OK);
	ck_assert_int_eq(tb_render_compile(&prog, &fmt, 8, 0, TB_RENDER_FIELD_LIST, &err), want);
	ck_assert_int_eq(prog.status, want);
}

/* Our listing of rec (want: the expected text, checked against
 * libtraceevent's too when tep is set). */
static void check_fields(const char *fields_text, const char *pf, const void *rec, size_t len,
			 const char *want, int tep, tb_status compiled)
{
	const char *text = event_text(fields_text, pf);
	char out[1024];
	tb_render_result res;
	tb_status st;
	compile_text(text, compiled);
	st = tb_render(&prog, sym_env(), rec, len, out, sizeof(out), &res);
	if (st != TB_OK || strcmp(out, want) != 0)
		ck_abort_msg("print fmt %s:\n  want '%s'\n  ours '%s'", pf, want, out);
	ck_assert_uint_eq(res.len, strlen(want));
	if (tep) {
		tb_render_env env = *sym_env();
		char *t = tep_fields(text, rec, len, 1);
		env.printk = test_printk;
		st = tb_render(&prog, &env, rec, len, out, sizeof(out), &res);
		ck_assert_int_eq(st, TB_OK);
		if (strcmp(t, out) != 0)
			ck_abort_msg("print fmt %s:\n  tep  '%s'\n  ours '%s'", pf, t, out);
		free(t);
	}
}

/* A record: common fields, then the given bytes from offset 8. */
static size_t rec_of(uint8_t *rec, size_t cap, const void *body, size_t n)
{
	memset(rec, 0, cap);
	rec[0] = 7;
	memcpy(rec + 8, body, n);
	return 8 + n;
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)v);
	put32(p + 4, (uint32_t)(v >> 32));
}

#define F_INT(n, off) "\tfield:int " n ";\toffset:" #off ";\tsize:4;\tsigned:1;\n"
#define F_UINT(n, off) "\tfield:unsigned int " n ";\toffset:" #off ";\tsize:4;\tsigned:0;\n"
#define F_LONG(n, off) "\tfield:long " n ";\toffset:" #off ";\tsize:8;\tsigned:1;\n"
#define F_ULONG(n, off) "\tfield:unsigned long " n ";\toffset:" #off ";\tsize:8;\tsigned:0;\n"

/* ---- integer conversions ---- */

START_TEST(integer_conversions_print_as_printf)
{
	uint8_t rec[64], body[16];
	size_t n;
	static const struct {
		const char *pf;
		int32_t a;
		const char *want;
	} cases[] = {
		{ "\"%d\", REC->a", -5, " a=-5" },
		{ "\"%u\", REC->a", -5, " a=4294967291" },
		{ "\"%x\", REC->a", 0x1f, " a=1f" },
		{ "\"%X\", REC->a", 0xbeef, " a=BEEF" },
		{ "\"%o\", REC->a", 8, " a=10" },
		{ "\"%05d\", REC->a", -42, " a=-0042" },
		{ "\"%-5d|\", REC->a", 42, " a=42   " },
		/* '+' is no flag to libtraceevent: the conversion ends there
		 * and takes no argument (a prints raw) */
		{ "\"%+d\", REC->a", 42, " a=42" },
		{ "\"%+x\", REC->a", 42, " a=42" },
		{ "\"%jx\", REC->a", 42, " a=42" },
		{ "\"% x\", REC->a", 42, " a=42" },
		{ "\"%#x\", REC->a", 0, " a=0" },
		{ "\"%#x\", REC->a", 255, " a=0xff" },
		{ "\"%#o\", REC->a", 8, " a=010" },
		{ "\"%#o\", REC->a", 0, " a=0" },
		{ "\"%.3d\", REC->a", 7, " a=007" },
		{ "\"%.0d\", REC->a", 0, " a=" },
		{ "\"%08.3d\", REC->a", 42, " a=     042" },
		{ "\"%hd\", REC->a", 0x1ffff, " a=-1" },
		{ "\"%hhu\", REC->a", 0x1ff, " a=255" },
		{ "\"%hx\", REC->a", -1, " a=ffff" },
		/* libtraceevent prints no field with %c: raw */
		{ "\"%c\", REC->a", 'Q', " a=81" },
		{ "\"0x%3c|\", (u8)REC->a", 0x151, " a=337" },
		/* a literal "0x" right before the conversion prints too */
		{ "\"v=0x%x\", REC->a", 0xab, " a=0xab" },
		{ "\"v=0x%08x\", REC->a", 0xab, " a=0x000000ab" },
		/* casts and parentheses around the field; a cast to a small
		 * type libtraceevent knows masks the value */
		{ "\"%d\", (int)(REC->a)", 9, " a=9" },
		{ "\"%u\", (u8)REC->a", 0x1ff, " a=255" },
		{ "\"%u\", (unsigned short)((REC)->a)", 0x12345, " a=9029" },
		{ "\"%u\", (pid_t)REC->a", -1, " a=4294967295" },
		/* an expression is no field: raw */
		{ "\"%x\", REC->a + 1", 16, " a=16" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		put32(body, (uint32_t)cases[i].a);
		n = rec_of(rec, sizeof(rec), body, 4);
		check_fields(F_INT("a", 8), cases[i].pf, rec, n, cases[i].want, 1, TB_OK);
	}
	/* our limits, where libtraceevent hands glibc whatever the format
	 * says: a width over 1000 prints the field raw (glibc would pad to
	 * it), and so does a spec printf cannot read (glibc prints the
	 * spec itself: "%5-d") */
	put32(body, (uint32_t)-1);
	n = rec_of(rec, sizeof(rec), body, 4);
	check_fields(F_INT("a", 8), "\"%9999d\", REC->a", rec, n, " a=-1", 0, TB_OK);
	check_fields(F_INT("a", 8), "\"%.1001x\", REC->a", rec, n, " a=-1", 0, TB_OK);
	check_fields(F_INT("a", 8), "\"%5-d\", REC->a", rec, n, " a=-1", 0, TB_OK);
	/* a spec of up to 28 bytes is read; a longer one fails
	 * libtraceevent's parse: every field raw */
	check_fields(F_INT("a", 8), "\"%0000000000000000000000000010x\", REC->a", rec, n,
		     " a=00ffffffff", 1, TB_OK);
	check_fields(F_INT("a", 8), "\"%00000000000000000000000000010x\", REC->a", rec, n,
		     " a=-1", 1, TB_ERR_LIMIT);
	/* the long modifiers take the field's whole value */
	put64(body, 0xfffffffffffffffeull);
	n = rec_of(rec, sizeof(rec), body, 8);
	check_fields(F_LONG("a", 8), "\"%ld\", REC->a", rec, n, " a=-2", 1, TB_OK);
	check_fields(F_LONG("a", 8), "\"%llx\", REC->a", rec, n, " a=fffffffffffffffe", 1, TB_OK);
	check_fields(F_LONG("a", 8), "\"%d\", REC->a", rec, n, " a=-2", 1, TB_OK);
	check_fields(F_LONG("a", 8), "\"%zu\", REC->a", rec, n, " a=18446744073709551614", 1,
		     TB_OK);
}
END_TEST

/* A '*' width (or precision) comes from the field its argument names. */
START_TEST(star_width_comes_from_a_field)
{
	uint8_t rec[64], body[16];
	size_t n;
	put32(body, 6);
	put32(body + 4, 42);
	n = rec_of(rec, sizeof(rec), body, 8);
	/* libtraceevent passes no value for a '*' (it prints stack garbage),
	 * so these are not compared with it; w's argument is taken by the
	 * '*', so w itself prints raw */
	check_fields(F_INT("w", 8) F_INT("a", 12), "\"%*d\", REC->w, REC->a", rec, n,
		     " w=6 a=    42", 0, TB_OK);
	check_fields(F_INT("w", 8) F_INT("a", 12), "\"%-*d|\", REC->w, REC->a", rec, n,
		     " w=6 a=42    ", 0, TB_OK);
	check_fields(F_INT("w", 8) F_INT("a", 12), "\"%.*d\", REC->w, REC->a", rec, n,
		     " w=6 a=000042", 0, TB_OK);
	/* a negative width left-justifies */
	put32(body, (uint32_t)-4);
	n = rec_of(rec, sizeof(rec), body, 8);
	check_fields(F_INT("w", 8) F_INT("a", 12), "\"%*d|\", REC->w, REC->a", rec, n,
		     " w=-4 a=42  ", 0, TB_OK);
	/* a width that is no field: 0 */
	check_fields(F_INT("w", 8) F_INT("a", 12), "\"%*d\", 3 + 1, REC->a", rec, n,
		     " w=-4 a=42", 0, TB_OK);
}
END_TEST

/* ---- pointers, symbols, strings ---- */

START_TEST(pointers_and_symbols)
{
	uint8_t rec[64], body[16];
	size_t n;
	static const struct {
		const char *pf;
		uint64_t v;
		const char *want;
	} cases[] = {
		{ "\"%p\", REC->p", 0, " p=(nil)" },
		{ "\"%p\", REC->p", 0xffff8881, " p=0xffff8881" },
		{ "\"%pK\", REC->p", 0x10, " p=0x10" },
		/* at an alias address: the one libtraceevent's search meets;
		 * inside a symbol: the first alias in the text */
		{ "\"%ps\", REC->p", 0x1000, " p=fn_a" },
		{ "\"%pS\", REC->p", 0x1010, " p=fn_a+0x10" },
		{ "\"%pf\", REC->p", 0x1100, " p=fn_b" },
		{ "\"%pF\", REC->p", 0x1101, " p=fn_b+0x1" },
		/* past the last symbol libtraceevent finds nothing */
		{ "\"%ps\", REC->p", 0x2001, " p=0x2001" },
		{ "\"%pS\", REC->p", 0x10, " p=0x10" },
		/* an address of the wrong size */
		{ "\"%pI4\", REC->p", 0x10, " p=INVALIDIPv4" },
		{ "\"%pI6c\", REC->p", 0x10, " p=INVALIDIPv6" },
		{ "\"%pUb\", REC->p", 0x10, " p=INVALIDUUID" },
		{ "\"%pMR\", REC->p", 0x10, " p=INVALIDMAC" },
		/* a sockaddr, or no version: nothing */
		{ "\"%pISpc\", REC->p", 0x10, " p=" },
		{ "\"%pI\", REC->p", 0x10, " p=" },
		/* libtraceevent's own words for a hex dump of a field */
		{ "\"0x%phC\", REC->p", 0x10, " p=0xARG TYPE NOT FIELD BUT 2" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		put64(body, cases[i].v);
		n = rec_of(rec, sizeof(rec), body, 8);
		check_fields("\tfield:u64 p;\toffset:8;\tsize:8;\tsigned:0;\n", cases[i].pf, rec, n,
			     cases[i].want, 1, TB_OK);
	}
	/* %pM: a 6-byte field */
	memcpy(body, "\x00\x11\x22\xaa\xbb\xcc\x00\x00", 8);
	n = rec_of(rec, sizeof(rec), body, 8);
	check_fields("\tfield:mac_t m;\toffset:8;\tsize:6;\tsigned:0;\n", "\"%pM\", REC->m", rec,
		     n, " m=00:11:22:aa:bb:cc", 1, TB_OK);
	check_fields("\tfield:mac_t m;\toffset:8;\tsize:6;\tsigned:0;\n", "\"%pm\", REC->m", rec,
		     n, " m=001122aabbcc", 1, TB_OK);
	check_fields("\tfield:u64 m;\toffset:8;\tsize:8;\tsigned:0;\n", "\"%pM\", REC->m", rec, n,
		     " m=INVALIDMAC", 1, TB_OK);
	/* %pI4 / %pi4 of a 4-byte field: its bytes in record order */
	memcpy(body, "\x7f\x00\x00\x01", 4);
	n = rec_of(rec, sizeof(rec), body, 4);
	check_fields("\tfield:__be32 a;\toffset:8;\tsize:4;\tsigned:0;\n", "\"%pI4\", REC->a", rec,
		     n, " a=127.0.0.1", 1, TB_OK);
	check_fields("\tfield:__be32 a;\toffset:8;\tsize:4;\tsigned:0;\n", "\"%pi4\", REC->a", rec,
		     n, " a=127.000.000.001", 1, TB_OK);
	/* 16-byte addresses and UUIDs */
	memcpy(body, "\x20\x01\x0d\xb8\0\0\0\0\0\0\0\0\0\0\0\x01", 16);
	n = rec_of(rec, sizeof(rec), body, 16);
	{
		static const struct {
			const char *pf, *want;
		} a16[] = {
			{ "\"%pI6\", REC->a", " a=2001:0db8:0000:0000:0000:0000:0000:0001" },
			{ "\"%pi6\", REC->a", " a=20010db8000000000000000000000001" },
			{ "\"%pI6c\", REC->a", " a=2001:db8::1" },
			{ "\"%pU\", REC->a", " a=20010db8-0000-0000-0000-000000000001" },
			{ "\"%pUl\", REC->a", " a=b80d0120-0000-0000-0000-000000000001" },
			{ "\"%pUL\", REC->a", " a=B80D0120-0000-0000-0000-000000000001" },
			{ "\"%pUB\", REC->a", " a=20010DB8-0000-0000-0000-000000000001" },
			{ "\"%pI4\", REC->a", " a=INVALIDIPv4" },
		};
		for (size_t i = 0; i < sizeof(a16) / sizeof(a16[0]); i++)
			check_fields("\tfield:struct in6_addr a;\toffset:8;\tsize:16;\tsigned:0;\n",
				     a16[i].pf, rec, n, a16[i].want, 1, TB_OK);
		/* outside the record */
		check_fields("\tfield:struct in6_addr a;\toffset:8;\tsize:16;\tsigned:0;\n",
			     "\"%pI6\", REC->a", rec, 12, " a=" TB_RENDER_M_OOR, 0, TB_OK);
	}
	/* how much of the extension is taken decides whether the search
	 * goes on after it (a literal follows) or stops (it was last) */
	put32(body, 0x0100007f);
	put32(body + 4, 255);
	n = rec_of(rec, sizeof(rec), body, 8);
	{
		static const struct {
			const char *pf, *want;
		} ext[] = {
			{ "\"b=0x%x %pI4\", REC->b, REC->a", " a=127.0.0.1 b=255" },
			{ "\"b=0x%x %pI4x\", REC->b, REC->a", " a=127.0.0.1 b=0xff" },
			{ "\"b=0x%x %pISpc\", REC->b, REC->a", " a= b=255" },
			{ "\"b=0x%x %pUbx\", REC->b, REC->a", " a=INVALIDUUID b=0xff" },
			{ "\"b=0x%x %phC\", REC->b, REC->a", " a=ARG TYPE NOT FIELD BUT 2 b=255" },
			{ "\"b=0x%x %pMR\", REC->b, REC->a", " a=INVALIDMAC b=255" },
			{ "\"b=0x%x %pSR\", REC->b, REC->a", " a=0x100007f b=0xff" },
			{ "\"b=0x%x %pB\", REC->b, REC->a", " a=0x100007f b=0xff" },
			{ "\"b=0x%x %c\", REC->b, REC->a", " a=16777343 b=0xff" },
		};
		for (size_t i = 0; i < sizeof(ext) / sizeof(ext[0]); i++)
			check_fields("\tfield:u32 a;\toffset:8;\tsize:4;\tsigned:0;\n"
				     "\tfield:int b;\toffset:12;\tsize:4;\tsigned:1;\n",
				     ext[i].pf, rec, n, ext[i].want, 1, TB_OK);
	}
}
END_TEST

START_TEST(strings_and_printk)
{
	uint8_t rec[64], body[32];
	size_t n;
	/* %s of a long: the printk string at that address, else bare hex */
	put64(body, 0xffffffff81000000ull);
	n = rec_of(rec, sizeof(rec), body, 8);
	{
		const char *text = event_text(F_ULONG("s", 8), "\"%s\", REC->s");
		tb_render_env env = *sym_env();
		char out[256];
		tb_render_result res;
		compile_text(text, TB_OK);
		env.printk = test_printk;
		ck_assert_int_eq(tb_render(&prog, &env, rec, n, out, sizeof(out), &res), TB_OK);
		ck_assert_str_eq(out, " s=a printk string");
		ck_assert_int_eq(tb_render(&prog, NULL, rec, n, out, sizeof(out), &res), TB_OK);
		ck_assert_str_eq(out, " s=ffffffff81000000");
		ck_assert(res.notes & TB_RENDER_N_NOLOOKUP);
	}
	/* %s of a field of another size: its bytes, precision and width */
	memcpy(body, "abcdef\0\0", 8);
	n = rec_of(rec, sizeof(rec), body, 8);
	check_fields("\tfield:u32 s;\toffset:8;\tsize:4;\tsigned:0;\n", "\"%s\", REC->s", rec, n,
		     " s=abcd", 1, TB_OK);
	check_fields("\tfield:u32 s;\toffset:8;\tsize:4;\tsigned:0;\n", "\"%.2s|\", REC->s", rec, n,
		     " s=ab", 1, TB_OK);
	check_fields("\tfield:u32 s;\toffset:8;\tsize:4;\tsigned:0;\n", "\"%6s|\", REC->s", rec, n,
		     " s=  abcd", 1, TB_OK);
}
END_TEST

/* ---- raw kinds ---- */

START_TEST(raw_fields_print_by_type)
{
	uint8_t rec[96], body[64];
	size_t n;
	const char *f =
		"\tfield:char comm[8];\toffset:8;\tsize:8;\tsigned:0;\n"
		"\tfield:u8 data[4];\toffset:16;\tsize:4;\tsigned:0;\n"
		"\tfield:short s;\toffset:20;\tsize:2;\tsigned:1;\n"
		"\tfield:s8 c;\toffset:22;\tsize:1;\tsigned:1;\n"
		"\tfield:unsigned long l;\toffset:24;\tsize:8;\tsigned:0;\n"
		"\tfield:void * p;\toffset:32;\tsize:8;\tsigned:0;\n"
		"\tfield:u64 u;\toffset:40;\tsize:8;\tsigned:0;\n"
		"\tfield:int i;\toffset:48;\tsize:4;\tsigned:1;\n"
		"\tfield:__data_loc char[] name;\toffset:52;\tsize:4;\tsigned:0;\n"
		"\tfield:long sl;\toffset:56;\tsize:4;\tsigned:1;\n";
	memset(body, 0, sizeof(body));
	memcpy(body, "kworker", 8);
	memcpy(body + 8, "\x01\x02\xfe\xff", 4);
	body[12] = 5;               /* s = 5: "%2d" */
	body[14] = 0xff;            /* c = -1 */
	put64(body + 16, 0xabc);    /* l */
	put64(body + 24, 0x1234);   /* p */
	put64(body + 32, 77);       /* u */
	put32(body + 40, (uint32_t)-3);
	put32(body + 44, 4u << 16 | 60); /* name: 4 bytes at 60 */
	put32(body + 48, 0xfffffff0u);   /* a 4-byte long: hex of 32 bits */
	memcpy(body + 52, "abc", 4);
	n = rec_of(rec, sizeof(rec), body, 56);
	check_fields(f, "\"\"", rec, n,
		     " comm=kworker data=ARRAY[01, 02, fe, ff] s= 5 c=-1 l=0xabc p=0x1234"
		     " u=77 i=-3 name=abc sl=0xfffffff0", 1, TB_OK);
	/* a char array that is not text prints as bytes */
	rec[9] = 0x01;
	check_fields(f, "\"\"", rec, n,
		     " comm=ARRAY[6b, 01, 6f, 72, 6b, 65, 72, 00] data=ARRAY[01, 02, fe, ff]"
		     " s= 5 c=-1 l=0xabc p=0x1234 u=77 i=-3 name=abc sl=0xfffffff0", 1, TB_OK);
	/* array and string fields print raw even when a conversion names
	 * them */
	rec[9] = 'w';
	check_fields(f, "\"%s %s\", REC->comm, __get_str(name)", rec, n,
		     " comm=kworker data=ARRAY[01, 02, fe, ff] s= 5 c=-1 l=0xabc p=0x1234"
		     " u=77 i=-3 name=abc sl=0xfffffff0", 1, TB_OK);
}
END_TEST

/* libtraceevent forgets that a char array is text once it printed it as
 * ARRAY[]: tb_render_stateful remembers it in the program, tb_render
 * renders each record alone.  Checked against one libtraceevent handle
 * printing the records in turn.  An empty dynamic array prints the text
 * its offset points to. */
START_TEST(stateful_listing_remembers_array_fields)
{
	static const char *const bodies[] = {
		"\x00\x00\x00\x00" "ab\0\0", "\x7f\x00\x00\x01" "ab\0\0",
		"\x00\x00\x00\x00" "ab\0\0", "abc\0" "\xe9\0\0\0", "abc\0" "cd\0\0",
	};
	static const char *const want[] = {
		" a= s=ab d=xy", " a=ARRAY[7f, 00, 00, 01] s=ab d=xy",
		" a=ARRAY[00, 00, 00, 00] s=ab d=xy", " a=ARRAY[61, 62, 63, 00] s=ARRAY[e9, 00, 00, 00] d=xy",
		" a=ARRAY[61, 62, 63, 00] s=ARRAY[63, 64, 00, 00] d=xy",
	};
	const char *f = "\tfield:__u8 a[4];\toffset:8;\tsize:4;\tsigned:0;\n"
			"\tfield:char s[4];\toffset:12;\tsize:4;\tsigned:0;\n"
			"\tfield:__data_loc char[] d;\toffset:16;\tsize:4;\tsigned:0;\n";
	const char *text = event_text(f, "\"a=%pI4\", REC->a");
	struct tep_handle *tep = tep_alloc();
	struct tep_event *ev = NULL;
	uint8_t rec[64], body[24];
	char out[256];
	tb_render_result res;
	size_t i, n;
	tep_set_long_size(tep, 8);
	tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
	(void)tep_parse_format(tep, &ev, text, strlen(text), "sys");
	ck_assert_ptr_nonnull(ev);
	compile_text(text, TB_OK);
	for (i = 0; i < sizeof(bodies) / sizeof(bodies[0]); i++) {
		struct trace_seq sq;
		memset(body, 0, sizeof(body));
		memcpy(body, bodies[i], 8);
		put32(body + 8, 0u << 16 | 20); /* d: empty, at "xy" */
		memcpy(body + 12, "xy", 3);
		n = rec_of(rec, sizeof(rec), body, 16);
		/* each record alone: the first's text, whatever came before */
		ck_assert_int_eq(tb_render(&prog, NULL, rec, n, out, sizeof(out), &res), TB_OK);
		if (i == 2)
			ck_assert_str_eq(out, " a= s=ab d=xy");
		ck_assert_int_eq(tb_render_stateful(&prog, NULL, rec, n, out, sizeof(out), &res),
				 TB_OK);
		ck_assert_str_eq(out, want[i]);
		tep_print_rec(&sq, ev, rec, n);
		ck_assert_str_eq(sq.buffer, want[i]);
		trace_seq_destroy(&sq);
	}
	tep_free(tep);
}
END_TEST

/* ---- which conversion prints which field ---- */

START_TEST(search_follows_libtraceevent)
{
	uint8_t rec[64], body[16];
	size_t n;
	put32(body, 10);
	put64(body + 4, 255);
	n = rec_of(rec, sizeof(rec), body, 12);
	/* a is found after b's conversion; that was the format's last item,
	 * so nothing more is searched: b prints raw (hex, an unsigned long) */
	check_fields(F_INT("a", 8) F_ULONG("b", 12), "\"b=%lu a=%x\", REC->b, REC->a", rec, n,
		     " a=a b=0xff", 1, TB_OK);
	/* with a literal after it the search goes on, wrapping round */
	check_fields(F_INT("a", 8) F_ULONG("b", 12), "\"b=%lu a=%x!\", REC->b, REC->a", rec, n,
		     " a=a b=255", 1, TB_OK);
	/* the same field twice: the first conversion after the cursor */
	check_fields(F_INT("a", 8) F_ULONG("b", 12), "\"%x %d %lu.\", REC->a, REC->a, REC->b", rec,
		     n, " a=a b=255", 1, TB_OK);
	/* a "0x" literal before the wrap-around point */
	check_fields(F_INT("a", 8) F_ULONG("b", 12), "\"%lu a=%x 0x\", REC->b, REC->a", rec, n,
		     " a=a b=0x255", 1, TB_OK);
	/* an unknown conversion takes no argument: the next one takes it */
	check_fields(F_INT("a", 8) F_ULONG("b", 12), "\"%+d %lx\", REC->b, REC->a", rec, n,
		     " a=10 b=ff", 1, TB_OK);
	/* a field no conversion names prints raw */
	check_fields(F_INT("a", 8) F_ULONG("b", 12), "\"%x.\", REC->a", rec, n, " a=a b=0xff", 1,
		     TB_OK);
}
END_TEST

/* What libtraceevent cannot parse prints every field raw, and the
 * program says why. */
START_TEST(print_fmts_libtraceevent_refuses_print_raw)
{
	uint8_t rec[64], body[8];
	size_t n;
	static const struct {
		const char *pf;
		tb_status st;
	} cases[] = {
		{ "\"%x\", foo(REC->a)", TB_ERR_UNSUPPORTED },
		{ "\"%x\", __get_dynamic_array_len(a)", TB_ERR_UNSUPPORTED },
		{ "\"%x\", ({ int x = REC->a; x; })", TB_ERR_UNSUPPORTED },
		{ "\"%x\", __print_symbolic(REC->a, { })", TB_ERR_UNSUPPORTED },
		{ "\"%x\", sizeof(struct foo)", TB_ERR_UNSUPPORTED },
		{ "\"%x\tx\", REC->a", TB_ERR_UNSUPPORTED },
		{ "\"%x %x\", REC->a", TB_ERR_SYNTAX },
		{ "\"%*d %d\", REC->a", TB_ERR_SYNTAX },
		{ "\"%lllx\", REC->a", TB_ERR_SYNTAX },
		{ "\"a=%x\n", TB_ERR_SYNTAX },
		{ "\"a=%x\" REC->a", TB_ERR_SYNTAX },
		{ "REC->a", TB_ERR_SYNTAX },
	};
	put32(body, 0x10);
	n = rec_of(rec, sizeof(rec), body, 4);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check_fields(F_INT("a", 8), cases[i].pf, rec, n, " a=16", 1, cases[i].st);
	/* what only libtraceevent does not understand in an argument is
	 * no field, not an error */
	check_fields(F_INT("a", 8) F_INT("b", 12), "\"%x %x\", REC->nosuch.x, REC->b", rec, n + 4,
		     " a=16 b=0", 1, TB_OK);
	/* more arguments than libtraceevent's table holds */
	{
		char pf[1024];
		size_t k = (size_t)snprintf(pf, sizeof(pf), "\"%%x\"");
		for (int i = 0; i < 65; i++)
			k += (size_t)snprintf(pf + k, sizeof(pf) - k, ", REC->a");
		check_fields(F_INT("a", 8), pf, rec, n, " a=16", 0, TB_ERR_LIMIT);
	}
}
END_TEST

/* ---- errors in records ---- */

START_TEST(fields_outside_the_record_are_marked)
{
	uint8_t rec[64], body[16];
	char out[256];
	tb_render_result res;
	size_t n;
	const char *f = F_INT("a", 8)
		"\tfield:__data_loc char[] name;\toffset:12;\tsize:4;\tsigned:0;\n"
		"\tfield:char comm[4];\toffset:16;\tsize:4;\tsigned:0;\n";
	put32(body, 5);
	put32(body + 4, 40u << 16 | 16); /* 40 bytes at 16: past the end */
	memcpy(body + 8, "ab\0\0", 4);
	n = rec_of(rec, sizeof(rec), body, 12);
	compile_text(event_text(f, "\"%d\", REC->a"), TB_OK);
	ck_assert_int_eq(tb_render(&prog, NULL, rec, n, out, sizeof(out), &res), TB_OK);
	ck_assert_str_eq(out, " a=5 name=" TB_RENDER_M_OOR " comm=ab");
	ck_assert(res.notes & TB_RENDER_N_OOR);
	/* cut inside comm, then inside a: every field past the end marked */
	ck_assert_int_eq(tb_render(&prog, NULL, rec, 18, out, sizeof(out), &res), TB_OK);
	ck_assert_str_eq(out, " a=5 name=" TB_RENDER_M_OOR " comm=" TB_RENDER_M_OOR);
	ck_assert_int_eq(tb_render(&prog, NULL, rec, 10, out, sizeof(out), &res), TB_OK);
	ck_assert_str_eq(out, " a=" TB_RENDER_M_OOR " name=" TB_RENDER_M_OOR
			      " comm=" TB_RENDER_M_OOR);
	/* an empty record, even without a pointer */
	ck_assert_int_eq(tb_render(&prog, NULL, NULL, 0, out, sizeof(out), &res), TB_OK);
	ck_assert_str_eq(out, " a=" TB_RENDER_M_OOR " name=" TB_RENDER_M_OOR
			      " comm=" TB_RENDER_M_OOR);
	/* a text at the record's end stops there, NUL or not */
	put32(body + 4, 4u << 16 | 16);
	memcpy(body + 8, "wxyz", 4);
	n = rec_of(rec, sizeof(rec), body, 12);
	ck_assert_int_eq(tb_render(&prog, NULL, rec, n, out, sizeof(out), &res), TB_OK);
	ck_assert_str_eq(out, " a=5 name=wxyz comm=wxyz");
}
END_TEST

/* Every capacity: the text is a prefix, NUL-terminated, needed is the
 * same, and TB_ERR_NO_SPACE exactly when it did not fit. */
START_TEST(truncation_at_every_capacity)
{
	uint8_t rec[64], body[16];
	char full[256], out[256];
	tb_render_result res, r0;
	size_t n;
	put32(body, 0xab);
	put64(body + 4, 0x1010);
	n = rec_of(rec, sizeof(rec), body, 12);
	compile_text(event_text(F_INT("a", 8) "\tfield:u64 p;\toffset:12;\tsize:8;\tsigned:0;\n",
				"\"a=0x%08x %pS %5d\", REC->a, REC->p, REC->a"),
		     TB_OK);
	ck_assert_int_eq(tb_render(&prog, sym_env(), rec, n, full, sizeof(full), &r0), TB_OK);
	ck_assert_str_eq(full, " a=0x000000ab p=fn_a+0x10");
	for (size_t cap = 0; cap <= r0.needed + 1; cap++) {
		tb_status st;
		memset(out, 0x5a, sizeof(out));
		st = tb_render(&prog, sym_env(), rec, n, cap ? out : NULL, cap, &res);
		ck_assert_uint_eq(res.needed, r0.needed);
		ck_assert_int_eq(st, cap > r0.needed ? TB_OK : TB_ERR_NO_SPACE);
		ck_assert_uint_eq(res.len, cap ? (cap - 1 < r0.needed ? cap - 1 : r0.needed) : 0);
		if (cap) {
			ck_assert(!memcmp(out, full, res.len));
			ck_assert_int_eq(out[res.len], 0);
		}
		ck_assert_int_eq((unsigned char)out[cap], 0x5a);
		ck_assert_int_eq(!!(res.notes & TB_RENDER_N_TRUNCATED), cap <= r0.needed);
	}
}
END_TEST

/* ---- against libtraceevent on every real format ---- */

static int is_format(const tb_tar_entry *e)
{
	size_t n = strlen(e->path);
	return n > 7 && !strcmp(e->path + n - 7, "/format");
}

START_TEST(understood_print_fmts_agree_with_libtraceevent)
{
	tb_tarball tar;
	static tb_field tf[MAX_FIELDS];
	size_t i, checked = 0, failed = 0;
	struct tep_handle *tep = tep_alloc();
	ck_assert_int_eq(tb_tarball_load(tb_test_path("tests/data/formats-6.18.tar.gz"), &tar), 0);
	tep_set_long_size(tep, 8);
	for (i = 0; i < tar.count; i++) {
		const tb_tar_entry *e = &tar.entries[i];
		struct tep_event *ev = NULL;
		tb_format f;
		tb_format_error fe;
		tb_error err;
		int tfail, ofail;
		if (!is_format(e))
			continue;
		tfail = tep_parse_format(tep, &ev, e->data, e->len, "sys") != 0 || !ev ||
			(ev->flags & TEP_EVENT_FL_FAILED);
		ck_assert_int_eq(tb_format_parse(e->data, e->len, tf, MAX_FIELDS, 8, &f, &fe), TB_OK);
		ofail = tb_render_compile(&prog, &f, 8, 0, TB_RENDER_FIELD_LIST, &err) != TB_OK;
		if (tfail != ofail)
			ck_abort_msg("%s: libtraceevent %s, ours %s (%s)", e->path,
				     tfail ? "fails" : "parses", ofail ? "fails" : "parses",
				     ofail ? err.what : "");
		checked++;
		failed += (size_t)tfail;
	}
	printf("render_fields: %zu formats, %zu not understood by either\n", checked, failed);
	ck_assert_uint_eq(checked, 2323);
	ck_assert_uint_gt(failed, 10);
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

/* A record for format f: common_type = id, every dynamic field pointing
 * at a short printable string after the static fields, the rest zeros
 * (variant 0), 0xff (1), random (2) or letters (3). */
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
			for (k = 0; k < len - 1; k++)
				rec[pos++] = (uint8_t)('a' + rnd8() % 26);
			rec[pos++] = 0;
			if (fl->flags & TB_FIELD_REL)
				off -= fl->offset + 4;
			put32(rec + fl->offset, (uint32_t)(len << 16 | off));
		}
	}
	while (pos % 4)
		rec[pos++] = 0;
	return pos;
}

START_TEST(fields_equal_libtraceevent_on_every_real_format)
{
	/* libtraceevent, once it printed a char array as ARRAY[], prints that
	 * field so for good (render.h); the printable kinds go first so
	 * every record is compared as printed alone */
	static const int order[4] = { 3, 0, 2, 1 };
	tb_tarball tar;
	static tb_format fmts[4096];
	static tb_field fl[4096 * 32];
	static uint32_t index[16384];
	static uint8_t rec[8192];
	tb_format_set set;
	struct tep_handle *tep = tep_alloc();
	size_t i, compared = 0, events = 0, with_conv = 0;
	char *buf = malloc(1 << 16);
	ck_assert_int_eq(tb_tarball_load(tb_test_path("tests/data/formats-6.18.tar.gz"), &tar), 0);
	tep_set_long_size(tep, 8);
	tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
	ck_assert_int_eq(tb_format_set_init(&set, fmts, 4096, fl, 4096 * 32, index, 16384, 8),
			 TB_OK);
	for (i = 0; i < tar.count; i++) {
		const tb_tar_entry *e = &tar.entries[i];
		struct tep_event *ev = NULL;
		if (!is_format(e))
			continue;
		(void)tep_parse_format(tep, &ev, e->data, e->len, "sys");
		ck_assert_int_eq(tb_format_set_add(&set, e->data, e->len, "sys", 3, NULL, NULL), TB_OK);
	}
	for (i = 0; i < set.count; i++) {
		const tb_format *f = &set.events[i];
		struct tep_event *tev = tep_find_event(tep, (int)f->id);
		tb_error err;
		if (!tev)
			continue;
		events++;
		(void)tb_render_compile(&prog, f, 8, 0, TB_RENDER_FIELD_LIST, &err);
		with_conv += prog.n_dirs > 0;
		for (int v = 0; v < 4; v++) {
			struct trace_seq s;
			tb_render_result res;
			size_t len = make_record(f, rec, sizeof(rec), order[v]);
			if (!len)
				break;
			tep_print_rec(&s, tev, rec, len);
			ck_assert_int_eq(tb_render(&prog, NULL, rec, len, buf, 1 << 16, &res), TB_OK);
			if (res.len != s.len || memcmp(buf, s.buffer, res.len) != 0)
				ck_abort_msg("%.*s (variant %d):\n  tep:  %s\n  ours: %s",
					     (int)f->name_len, f->name, order[v], s.buffer, buf);
			trace_seq_destroy(&s);
			compared++;
		}
	}
	printf("render_fields: %zu records of %zu events (%zu with conversions) equal "
	       "libtraceevent's -R fields\n", compared, events, with_conv);
	ck_assert_uint_gt(compared, 8000);
	ck_assert_uint_gt(with_conv, 1500);
	free(buf);
	tep_free(tep);
	tb_tarball_free(&tar);
}
END_TEST

/* ---- kallsyms: libtraceevent's lookup without reordering ---- */

/* The model: libtraceevent's table (aliases newest first) and its
 * bsearch, on a copy. */
static const tb_ksym *model_find(tb_ksym *rev, size_t n, const tb_ksym *orig, uint64_t addr)
{
	size_t l = 0, u = n;
	while (l < u) {
		size_t idx = (l + u) / 2;
		uint64_t next = idx + 1 < n ? rev[idx + 1].addr : 0;
		if (addr == rev[idx].addr || (addr > rev[idx].addr && addr < next)) {
			/* the same entry in the unreordered table */
			for (size_t k = 0; k < n; k++)
				if (orig[k].name == rev[idx].name)
					return &orig[k];
			return NULL;
		}
		if (addr < rev[idx].addr)
			u = idx;
		else
			l = idx + 1;
	}
	return NULL;
}

START_TEST(kallsyms_tep_lookup_matches_its_model)
{
	static char text[64 * 32];
	static tb_ksym v[64], rev[64], before[64];
	size_t checked = 0;
	for (int round = 0; round < 200; round++) {
		tb_kallsyms ks = { v, 0, 64, NULL };
		size_t n = 1 + rnd8() % 40, len = 0, i;
		uint64_t a = 0x1000;
		size_t m = 0;
		for (i = 0; i < n; i++) {
			/* runs of aliases: the address stays half of the time;
			 * absolute and '$' symbols are never found */
			int other = rnd8() % 8 == 0;
			if (i && rnd8() % 2)
				a += 1 + rnd8() % 32;
			len += (size_t)snprintf(text + len, sizeof(text) - len,
						other ? (i & 1 ? "%llx A s%zu\n" : "%llx t $x%zu\n")
						      : "%llx t s%zu\n",
						(unsigned long long)(other ? a + 5 : a), i);
			m += !other;
		}
		ck_assert_int_eq(tb_kallsyms_parse(&ks, text, len, NULL), TB_OK);
		ck_assert_uint_eq(ks.n, n);
		n = m; /* the lookable entries come first */
		memcpy(before, v, sizeof(v));
		/* the model's order: each run of equal addresses reversed */
		memcpy(rev, v, n * sizeof(*v));
		for (i = 0; i < n;) {
			size_t j = i;
			while (j + 1 < n && rev[j + 1].addr == rev[i].addr)
				j++;
			for (size_t x = i, y = j; x < y; x++, y--) {
				tb_ksym t = rev[x];
				rev[x] = rev[y];
				rev[y] = t;
			}
			i = j + 1;
		}
		for (uint64_t q = 0xff0; q <= a + 2; q++) {
			ck_assert_ptr_eq(tb_kallsyms_find_as(&ks, q, TB_KSYM_TEP),
					 model_find(rev, n, v, q));
			checked++;
		}
		/* the caller's table is left as it was */
		ck_assert(!memcmp(before, v, sizeof(v)));
	}
	printf("render_fields: %zu lookups equal libtraceevent's model\n", checked);
}
END_TEST

static const char *ksname(const tb_kallsyms *ks, const tb_ksym *k)
{
	static char b[64];
	if (!k)
		return "(none)";
	snprintf(b, sizeof(b), "%.*s", (int)k->name_len, tb_ksym_name(ks, k));
	return b;
}

START_TEST(kallsyms_alias_rules_and_sizes)
{
	static char text[] = "1000 t a1\n1000 t a2\n1000 t a3\n1100 t b\n2000 t c\n"
			     "1050 A abs\n3000 t $d\n";
	tb_ksym v[8];
	tb_kallsyms ks = { v, 0, 8, NULL };
	ck_assert_int_eq(tb_kallsyms_parse(&ks, text, strlen(text), NULL), TB_OK);
	ck_assert_str_eq(ksname(&ks, tb_kallsyms_find_as(&ks, 0x1000, TB_KSYM_LAST)), "a3");
	ck_assert_ptr_eq(tb_kallsyms_find_as(&ks, 0x1000, TB_KSYM_LAST), tb_kallsyms_find(&ks, 0x1000));
	ck_assert_str_eq(ksname(&ks, tb_kallsyms_find_as(&ks, 0x1000, TB_KSYM_FIRST)), "a1");
	ck_assert_str_eq(ksname(&ks, tb_kallsyms_find_as(&ks, 0x1050, TB_KSYM_LAST)), "a3");
	ck_assert_str_eq(ksname(&ks, tb_kallsyms_find_as(&ks, 0x1050, TB_KSYM_FIRST)), "a1");
	/* libtraceevent's: inside a symbol the first alias; at the address
	 * its search over [a3 a2 a1 b c] meets index 2 first: a1 */
	ck_assert_str_eq(ksname(&ks, tb_kallsyms_find_as(&ks, 0x1050, TB_KSYM_TEP)), "a1");
	ck_assert_str_eq(ksname(&ks, tb_kallsyms_find_as(&ks, 0x1000, TB_KSYM_TEP)), "a1");
	ck_assert_str_eq(ksname(&ks, tb_kallsyms_find_as(&ks, 0x1fff, TB_KSYM_TEP)), "b");
	/* past the last symbol: found by the others, not by libtraceevent */
	ck_assert_str_eq(ksname(&ks, tb_kallsyms_find_as(&ks, 0x2005, TB_KSYM_LAST)), "c");
	ck_assert_str_eq(ksname(&ks, tb_kallsyms_find_as(&ks, 0x2000, TB_KSYM_TEP)), "c");
	ck_assert_ptr_null(tb_kallsyms_find_as(&ks, 0x2005, TB_KSYM_TEP));
	for (unsigned how = 0; how < 3; how++) {
		ck_assert_ptr_null(tb_kallsyms_find_as(&ks, 0xfff, how));
		ck_assert_ptr_null(tb_kallsyms_find_as(NULL, 0x1000, how));
	}
	ck_assert_uint_eq(tb_kallsyms_size(&ks, &v[0]), 0x100);
	ck_assert_uint_eq(tb_kallsyms_size(&ks, &v[2]), 0x100);
	ck_assert_uint_eq(tb_kallsyms_size(&ks, &v[3]), 0xf00);
	ck_assert_uint_eq(tb_kallsyms_size(&ks, &v[4]), 0);
	ck_assert_uint_eq(tb_kallsyms_size(&ks, NULL), 0);
	/* an absolute symbol after them: no size, never found */
	ck_assert_uint_eq(ks.n, 7);
	ck_assert_uint_eq(tb_kallsyms_size(&ks, &v[5]), 0);
	ck_assert_str_eq(ksname(&ks, tb_kallsyms_find_as(&ks, 0x3005, TB_KSYM_FIRST)), "c");
}
END_TEST

static int cb_sym(void *ctx, uint64_t addr, const char **name, size_t *nlen, uint64_t *start,
		  const char **mod, size_t *mlen)
{
	(void)ctx;
	(void)addr;
	*name = "cb_fn";
	*nlen = 5;
	*start = 0x1000;
	*mod = NULL;
	*mlen = 0;
	return 1;
}

/* The kernel prints %pS as fn+0x10/0x100 (the size up to the next
 * symbol); trace-cmd as fn+0x10.  Sizes come from a kallsyms table. */
START_TEST(kernel_style_pS_prints_the_symbol_size)
{
	uint8_t rec[64], body[8];
	char out[256];
	tb_render_result res;
	tb_format_error fe;
	tb_error err;
	tb_render_env env = *sym_env();
	const char *text = event_text("\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n",
				      "\"%pS %ps %pB\", (void *)REC->ip, (void *)REC->ip, (void *)REC->ip");
	size_t n;
	put64(body, 0x1010);
	n = rec_of(rec, sizeof(rec), body, 8);
	ck_assert_int_eq(tb_format_parse(text, strlen(text), fields, 64, 8, &fmt, &fe), TB_OK);
	env.ksym_how = TB_KSYM_LAST;
	ck_assert_int_eq(tb_render_compile(&prog, &fmt, 8, 0, TB_RENDER_KERNEL_STYLE, &err), TB_OK);
	ck_assert_int_eq(tb_render(&prog, &env, rec, n, out, sizeof(out), &res), TB_OK);
	ck_assert_str_eq(out, "fn_a2+0x10/0x100 fn_a2 fn_a2+0x10/0x100");
	env.ksym_how = TB_KSYM_FIRST;
	ck_assert_int_eq(tb_render(&prog, &env, rec, n, out, sizeof(out), &res), TB_OK);
	ck_assert_str_eq(out, "fn_a+0x10/0x100 fn_a fn_a+0x10/0x100");
	/* the last symbol has no size: no /size */
	put64(body, 0x2004);
	n = rec_of(rec, sizeof(rec), body, 8);
	ck_assert_int_eq(tb_render(&prog, &env, rec, n, out, sizeof(out), &res), TB_OK);
	ck_assert_str_eq(out, "fn_c+0x4 fn_c fn_c+0x4");
	/* trace-cmd's style, and a callback (which knows no size) */
	put64(body, 0x1010);
	n = rec_of(rec, sizeof(rec), body, 8);
	ck_assert_int_eq(tb_render_compile(&prog, &fmt, 8, 0, 0, &err), TB_OK);
	ck_assert_int_eq(tb_render(&prog, &env, rec, n, out, sizeof(out), &res), TB_OK);
	ck_assert_str_eq(out, "fn_a+0x10 fn_a fn_a+0x10");
	ck_assert_int_eq(tb_render_compile(&prog, &fmt, 8, 0, TB_RENDER_KERNEL_STYLE, &err), TB_OK);
	env.sym = cb_sym;
	ck_assert_int_eq(tb_render(&prog, &env, rec, n, out, sizeof(out), &res), TB_OK);
	ck_assert_str_eq(out, "cb_fn+0x10 cb_fn cb_fn+0x10");
	/* no lookup at all */
	ck_assert_int_eq(tb_render(&prog, NULL, rec, n, out, sizeof(out), &res), TB_OK);
	ck_assert(res.notes & TB_RENDER_N_NOLOOKUP);
}
END_TEST

Suite *tb_suite_render_fields(void)
{
	Suite *s = suite_create("render_fields");
	TCase *t = tcase_create("mode");
	TCase *d = tcase_create("libtraceevent");
	tcase_add_test(t, integer_conversions_print_as_printf);
	tcase_add_test(t, star_width_comes_from_a_field);
	tcase_add_test(t, pointers_and_symbols);
	tcase_add_test(t, strings_and_printk);
	tcase_add_test(t, raw_fields_print_by_type);
	tcase_add_test(t, stateful_listing_remembers_array_fields);
	tcase_add_test(t, search_follows_libtraceevent);
	tcase_add_test(t, print_fmts_libtraceevent_refuses_print_raw);
	tcase_add_test(t, fields_outside_the_record_are_marked);
	tcase_add_test(t, truncation_at_every_capacity);
	tcase_add_test(t, kallsyms_tep_lookup_matches_its_model);
	tcase_add_test(t, kallsyms_alias_rules_and_sizes);
	tcase_add_test(t, kernel_style_pS_prints_the_symbol_size);
	suite_add_tcase(s, t);
	tcase_set_timeout(d, 120);
	tcase_add_test(d, understood_print_fmts_agree_with_libtraceevent);
	tcase_add_test(d, fields_equal_libtraceevent_on_every_real_format);
	suite_add_tcase(s, d);
	return s;
}
