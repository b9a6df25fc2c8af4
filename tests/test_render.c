/* The print fmt renderer: expressions, conversions, helpers, hostile
 * formats and records (spec 4.1 R1-R16, 4.2), libtraceevent's utest
 * vectors (spec 5.1) and the kernel's own printers. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracebound/format.h"
#include "tracebound/render.h"
#include "tarball.h"
#include "testutil.h"

Suite *tb_suite_render(void);

/* ---- building events (as format texts) and records by hand ---- */

/* A field as its format line says it: "field:TYPE NAME[ARR]". */
typedef struct tb_render_field {
	const char *type, *name, *arr;
	uint32_t off, size;
	int sgn;
} tb_render_field;

#define COMMON_FIELDS                                                        \
	{ "unsigned short", "common_type", "", 0, 2, 0 },                     \
	{ "unsigned char", "common_flags", "", 2, 1, 0 },                     \
	{ "unsigned char", "common_preempt_count", "", 3, 1, 0 },             \
	{ "int", "common_pid", "", 4, 4, 1 }

/* A scalar of 1, 2, 4 or 8 bytes. */
static tb_render_field fs(const char *name, uint32_t off, uint32_t size, int sgn)
{
	static const char *const st[] = { "s8", "short", "int", "s64" };
	static const char *const ut[] = { "u8", "unsigned short", "unsigned int", "u64" };
	unsigned i = size == 1 ? 0 : size == 2 ? 1 : size == 4 ? 2 : 3;
	tb_render_field f = { sgn ? st[i] : ut[i], name, "", off, size, sgn };
	return f;
}

/* A scalar of the given C type. */
static tb_render_field ft(const char *type, const char *name, uint32_t off,
			  uint32_t size, int sgn)
{
	tb_render_field f = { type, name, "", off, size, sgn };
	return f;
}

/* A fixed array: text (char) or elements of elem bytes. */
static tb_render_field fa(const char *name, uint32_t off, uint32_t size,
			  uint32_t elem, int str)
{
	static char arrs[64][16];
	static unsigned k;
	char *arr = arrs[k++ % 64];
	tb_render_field f = { str ? "char" : elem == 1 ? "u8" : elem == 2 ? "u16"
			      : elem == 4 ? "u32" : "unsigned long", name, arr, off, size, 0 };
	snprintf(arr, 16, "[%u]", size / (elem ? elem : 1));
	return f;
}

enum { DL = 1, RL, DL16, REST };

/* A dynamic (__data_loc, __rel_loc, old 2-byte __data_loc) or
 * rest-of-record field. */
static tb_render_field fd(const char *name, uint32_t off, int kind,
			  uint32_t elem, int str)
{
	const char *t = str ? "char[]" : elem == 2 ? "u16[]" : elem == 4 ? "u32[]"
		      : elem == 8 ? "unsigned long[]" : "u8[]";
	tb_render_field f = { NULL, name, "", off, 4, 0 };
	static char types[64][40];
	static unsigned k;
	char *type = types[k++ % 64];
	if (kind == DL16) {
		f.type = "__data_loc";
		f.size = 2;
	} else if (kind == REST) {
		f.type = str ? "char" : "u32";
		f.arr = "[]";
		f.size = 0;
	} else {
		snprintf(type, 40, "%s %s", kind == RL ? "__rel_loc" : "__data_loc", t);
		f.type = type;
	}
	return f;
}

static tb_render_prog *prog_buf(void)
{
	static tb_render_prog *p;
	if (!p)
		p = malloc(sizeof(*p));
	ck_assert_ptr_nonnull(p);
	return p;
}

/* The format text of an event (name, fields, print fmt) in a fresh
 * exact-size heap block; *len its length. */
static char *format_text(const char *name, const tb_render_field *f, size_t nf,
			 const char *print_fmt, size_t pf_len, size_t *len)
{
	size_t cap = pf_len + 256 + 128 * (nf + 4), n;
	char *t = malloc(cap), *out;
	static const tb_render_field common[] = { COMMON_FIELDS };
	ck_assert_ptr_nonnull(t);
	n = (size_t)snprintf(t, cap, "name: %s\nID: 1\nformat:\n", name ? name : "ev");
	if (!nf) {
		f = common;
		nf = 4;
	}
	for (size_t i = 0; i < nf; i++) {
		if (i == 4)
			t[n++] = '\n';
		if (!strcmp(f[i].type, "__data_loc") && f[i].size == 2)
			n += (size_t)snprintf(t + n, cap - n, "\tfield:__data_loc %s;\toffset:%u;\tsize:2;\n",
					      f[i].name, f[i].off);
		else
			n += (size_t)snprintf(t + n, cap - n,
					      "\tfield:%s %s%s;\toffset:%u;\tsize:%u;\tsigned:%d;\n",
					      f[i].type, f[i].name, f[i].arr, f[i].off, f[i].size,
					      f[i].sgn);
	}
	n += (size_t)snprintf(t + n, cap - n, "\nprint fmt: ");
	memcpy(t + n, print_fmt, pf_len);
	n += pf_len;
	out = (char *)tb_test_dup(t, n);
	free(t);
	*len = n;
	return out;
}

static char *fmt_text;
static tb_field fmt_fields[64];
static tb_format fmt_parsed;
static int big_endian;

static tb_status compile_n(const char *fmt, size_t fmt_len, const tb_render_field *f,
			   size_t nf, unsigned lsz, unsigned options, const char *sys,
			   const char *name)
{
	size_t len;
	tb_format_error ferr;
	tb_error err;
	free(fmt_text);
	fmt_text = format_text(name, f, nf, fmt, fmt_len, &len);
	ck_assert_msg(tb_format_parse(fmt_text, len, fmt_fields, 64, lsz, &fmt_parsed, &ferr) == TB_OK,
		      "format: %s at %u:%u", ferr.error.what, ferr.line, ferr.column);
	fmt_parsed.system = sys;
	fmt_parsed.system_len = sys ? strlen(sys) : 0;
	return tb_render_compile(prog_buf(), &fmt_parsed, lsz, big_endian, options, &err);
}

static tb_status compile_ex(const char *fmt, const tb_render_field *f, size_t nf,
			    unsigned lsz, unsigned options, const char *sys,
			    const char *name)
{
	return compile_n(fmt, strlen(fmt), f, nf, lsz, options, sys, name);
}

static char outbuf[8192];
static tb_render_result last;

static const char *run_env(const tb_render_env *env, const void *rec, size_t n)
{
	tb_status st = tb_render(prog_buf(), env, rec, n, outbuf, sizeof(outbuf), &last);
	ck_assert_int_eq(st, TB_OK);
	ck_assert_uint_eq(strlen(outbuf), last.len);
	return outbuf;
}

/* Compile fmt over fields f (long 8) and render rec. */
static const char *R(const char *fmt, const tb_render_field *f, size_t nf,
		     const void *rec, size_t n)
{
	compile_ex(fmt, f, nf, 8, TB_RENDER_KNOWN_ENUMS, "test", "ev");
	return run_env(NULL, rec, n);
}

static void put16(uint8_t *r, size_t off, uint32_t v)
{
	r[off] = (uint8_t)v;
	r[off + 1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *r, size_t off, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		r[off + (size_t)i] = (uint8_t)(v >> (8 * i));
}

static void put64(uint8_t *r, size_t off, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		r[off + (size_t)i] = (uint8_t)(v >> (8 * i));
}

/* ---- sched_switch, spec 2.7 ---- */

static const char sched_switch_fmt[] =
	"\"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> next_comm=%s next_pid=%d next_prio=%d\", "
	"REC->prev_comm, REC->prev_pid, REC->prev_prio, (REC->prev_state & ((((0x00000000 | 0x00000001 | "
	"0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) - 1)) ? "
	"__print_flags(REC->prev_state & ((((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 "
	"| 0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) - 1), \"|\", { 0x00000001, \"S\" }, { 0x00000002, "
	"\"D\" }, { 0x00000004, \"T\" }, { 0x00000008, \"t\" }, { 0x00000010, \"X\" }, { 0x00000020, \"Z\" }, "
	"{ 0x00000040, \"P\" }, { 0x00000080, \"I\" }) : \"R\", REC->prev_state & (((0x00000000 | 0x00000001 | "
	"0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) ? \"+\" : \"\", "
	"REC->next_comm, REC->next_pid, REC->next_prio";

static tb_render_field sched_fields[11];

static size_t sched_setup(uint8_t rec[64], uint64_t state)
{
	tb_render_field c[] = { COMMON_FIELDS };
	memcpy(sched_fields, c, sizeof(c));
	sched_fields[4] = fa("prev_comm", 8, 16, 1, 1);
	sched_fields[5] = fs("prev_pid", 24, 4, 1);
	sched_fields[6] = fs("prev_prio", 28, 4, 1);
	sched_fields[7] = fs("prev_state", 32, 8, 1);
	sched_fields[8] = fa("next_comm", 40, 16, 1, 1);
	sched_fields[9] = fs("next_pid", 56, 4, 1);
	sched_fields[10] = fs("next_prio", 60, 4, 1);
	memset(rec, 0, 64);
	put16(rec, 0, 372);
	memcpy(rec + 8, "bash", 4);
	put32(rec, 24, 1234);
	put32(rec, 28, 120);
	put64(rec, 32, state);
	memcpy(rec + 40, "swapper/0", 9);
	put32(rec, 56, 0);
	put32(rec, 60, 120);
	ck_assert_int_eq(compile_ex(sched_switch_fmt, sched_fields, 11, 8, 0,
				    "sched", "sched_switch"), TB_OK);
	return 64;
}

START_TEST(sched_switch_states)
{
	static const struct {
		uint64_t state;
		const char *text;
	} v[] = { { 0, "R" }, { 1, "S" }, { 3, "S|D" }, { 0x80, "I" },
		  { 0x100, "R+" }, { 0x101, "S+" }, { 0x200, "R" } };
	uint8_t rec[64];
	char want[256];
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		size_t n = sched_setup(rec, v[i].state);
		snprintf(want, sizeof(want),
			 "prev_comm=bash prev_pid=1234 prev_prio=120 prev_state=%s ==> "
			 "next_comm=swapper/0 next_pid=0 next_prio=120", v[i].text);
		ck_assert_str_eq(run_env(NULL, rec, n), want);
	}
}
END_TEST

/* Every output capacity: a NUL-terminated prefix, the same `needed`. */
START_TEST(truncation_every_capacity)
{
	uint8_t rec[64];
	size_t n = sched_setup(rec, 0x101);
	char full[256], small[256];
	tb_render_result res, r2;
	ck_assert_int_eq(tb_render(prog_buf(), NULL, rec, n, full, sizeof(full), &res), TB_OK);
	for (size_t cap = 0; cap <= res.len + 1; cap++) {
		memset(small, 'Z', sizeof(small));
		tb_status st = tb_render(prog_buf(), NULL, rec, n, cap ? small : NULL,
					 cap, &r2);
		ck_assert_uint_eq(r2.needed, res.len);
		if (cap == 0)
			continue;
		ck_assert_int_eq(st, cap > res.len ? TB_OK : TB_ERR_NO_SPACE);
		ck_assert_uint_eq(r2.len, cap - 1 < res.len ? cap - 1 : res.len);
		ck_assert_int_eq(small[r2.len], '\0');
		ck_assert(memcmp(small, full, r2.len) == 0);
		ck_assert_int_eq(small[cap], 'Z'); /* nothing past the capacity */
		if (st != TB_OK)
			ck_assert(r2.notes & TB_RENDER_N_TRUNCATED);
	}
}
END_TEST

/*
 * Issue 15 (1, 2): every capacity, 0 included, into an exact-size heap
 * block with a canary byte after it: nothing past cap is touched, the
 * stored text is a prefix of the full one, and `needed` and the status
 * are the same whatever the buffer, also for a text ending in the newline
 * the renderer drops (stored or not) and a %.Ns precision cutting text.
 */
START_TEST(contract_every_capacity_same_text)
{
	static const struct {
		const char *fmt, *want;
	} v[] = {
		{ "\"x=%d\\n\", REC->x", "x=5" },          /* the issue's example */
		{ "\"%s\", REC->s", "ab\ncd" },             /* newline inside */
		{ "\"%.3s\", REC->s", "ab" },                /* cut on the newline */
		{ "\"%.4s\\n\", REC->s", "ab\nc" },
		{ "\"%-8.2s|%5.1s\\n\", REC->s, REC->s", "ab      |    a" },
		{ "\"[%.0s]%d\\n\\n\", REC->s, REC->x", "[]5\n" },
	};
	tb_render_field f[] = { COMMON_FIELDS, fs("x", 8, 4, 1), fa("s", 12, 8, 1, 1) };
	uint8_t rec[20];
	memset(rec, 0, sizeof(rec));
	put16(rec, 0, 1);
	put32(rec, 8, 5);
	memcpy(rec + 12, "ab\ncd", 5);
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		size_t want = strlen(v[i].want);
		ck_assert_int_eq(compile_ex(v[i].fmt, f, 6, 8, 0, "test", "ev"), TB_OK);
		for (size_t cap = 0; cap <= want + 2; cap++) {
			char *out = malloc(cap + 1);
			tb_render_result r;
			tb_status st;
			ck_assert_ptr_nonnull(out);
			memset(out, 'Z', cap + 1);
			st = tb_render(prog_buf(), NULL, rec, sizeof(rec), out, cap, &r);
			ck_assert_msg(r.needed == want, "%s cap %zu: needed %zu, want %zu",
				      v[i].fmt, cap, r.needed, want);
			ck_assert_int_eq(st, cap > want ? TB_OK : TB_ERR_NO_SPACE);
			ck_assert_uint_eq(r.len, cap == 0 ? 0 : cap - 1 < want ? cap - 1 : want);
			ck_assert_int_eq(out[cap], 'Z'); /* the canary */
			if (cap) {
				ck_assert_int_eq(out[r.len], '\0');
				ck_assert(memcmp(out, v[i].want, r.len) == 0);
			}
			free(out);
		}
	}
}
END_TEST

/* Every record prefix of a real event renders (markers, never a fault). */
START_TEST(truncation_every_record_prefix)
{
	uint8_t rec[64];
	size_t n = sched_setup(rec, 1);
	for (size_t k = 0; k <= n; k++) {
		uint8_t *cut = tb_test_dup(rec, k);
		tb_render_result res;
		ck_assert_int_eq(tb_render(prog_buf(), NULL, k ? cut : NULL, k, outbuf,
					   sizeof(outbuf), &res), TB_OK);
		if (k < n)
			ck_assert(res.notes & TB_RENDER_N_OOR);
		else
			ck_assert(!(res.notes & TB_RENDER_N_OOR));
		free(cut);
	}
}
END_TEST

/* ---- expressions ---- */

static tb_render_field xf[8];
static uint8_t xrec[48];

static void expr_setup(void)
{
	tb_render_field c[] = { COMMON_FIELDS };
	memcpy(xf, c, sizeof(c));
	xf[4] = fs("a", 8, 4, 1);              /* int a = -7 */
	xf[5] = fs("b", 12, 4, 0);             /* unsigned b = 3 */
	xf[6] = fs("c", 16, 1, 1);             /* s8 c = -1 */
	xf[7] = fa("arr", 24, 16, 4, 0);       /* u32 arr[4] = 10,20,30,40 */
	memset(xrec, 0, sizeof(xrec));
	put32(xrec, 8, (uint32_t)-7);
	put32(xrec, 12, 3);
	xrec[16] = 0xff;
	put64(xrec, 17, 0); /* padding */
	put32(xrec, 24, 10);
	put32(xrec, 28, 20);
	put32(xrec, 32, 30);
	put32(xrec, 36, 40);
}

static void expr_is(const char *fmt, const char *want)
{
	const char *got = R(fmt, xf, 8, xrec, 40);
	ck_assert_msg(tb_render_ok(prog_buf()), "%s: did not compile: %s", fmt,
		      prog_buf()->error.what);
	ck_assert_msg(strcmp(got, want) == 0, "%s: got '%s' want '%s'", fmt, got, want);
}

START_TEST(expression_operators)
{
	static const struct {
		const char *fmt, *want;
	} v[] = {
		{ "\"%d\", REC->a", "-7" },
		{ "\"%d\", (REC)->a", "-7" },
		{ "\"%u\", REC->b", "3" },
		{ "\"%d\", REC->c", "-1" },
		{ "\"%d\", REC->a + REC->b", "-4" },
		{ "\"%d\", REC->a - REC->b", "-10" },
		{ "\"%d\", REC->a * REC->b", "-21" },
		{ "\"%d\", REC->a / 2", "-3" },          /* truncates towards 0 */
		{ "\"%d\", REC->a % 3", "-1" },
		{ "\"%u\", REC->a / REC->b", "1431655763" }, /* unsigned division */
		{ "\"%d\", REC->b << 4", "48" },
		{ "\"%d\", REC->a >> 1", "-4" },         /* arithmetic shift */
		{ "\"%u\", REC->b >> 1", "1" },
		{ "\"%d\", REC->a < REC->b", "0" },      /* -7 converted to unsigned */
		{ "\"%d\", REC->a < 0", "1" },
		{ "\"%d\", REC->a > -8", "1" },
		{ "\"%d\", REC->a <= -7", "1" },
		{ "\"%d\", REC->a >= -6", "0" },
		{ "\"%d\", REC->b == 3", "1" },
		{ "\"%d\", REC->b != 3", "0" },
		{ "\"%d\", REC->b & 2", "2" },
		{ "\"%u\", REC->a & REC->b", "1" },     /* -7 converted to unsigned */
		{ "\"%d\", REC->a & -4", "-8" },
		{ "\"%llu\", REC->a & 0xffffffffffULL", "1099511627769" }, /* -7 widened */
		{ "\"%d\", REC->b | 4", "7" },
		{ "\"%d\", REC->b ^ 3", "0" },           /* R14 */
		{ "\"%d\", REC->a ^ 3", "-6" },
		{ "\"%d\", REC->b && REC->a", "1" },
		{ "\"%d\", REC->b && 0", "0" },
		{ "\"%d\", 0 || REC->b", "1" },
		{ "\"%d\", !REC->b", "0" },
		{ "\"%d\", ~REC->b", "-4" },
		{ "\"%d\", -REC->b", "-3" },
		{ "\"%d\", +REC->b", "3" },
		{ "\"%d\", 1 + 2 * 3", "7" },
		{ "\"%d\", (1 + 2) * 3", "9" },
		{ "\"%d\", 1 << 2 + 1", "8" },
		{ "\"%d\", 6 & 3 == 3", "0" },           /* == binds tighter */
		{ "\"%d\", 1 | 2 ^ 3 & 1", "3" },
		{ "\"%s\", REC->b > 2 ? REC->a < 0 ? \"neg\" : \"pos\" : \"small\"", "neg" },
		{ "\"%d\", REC->b ? REC->b == 3 ? 33 : 30 : 0", "33" },
		{ "\"%d\", REC->arr[2]", "30" },
		{ "\"%d\", REC->arr[REC->b]", "40" },
		{ "\"%c%c\", 'x', '\\n' + 55", "xA" },
		{ "\"%lld\", (long long)(int)REC->b - 4", "-1" },
		{ "\"%d\", (signed char)0xff", "-1" },   /* sign extension */
		{ "\"%d\", (unsigned char)-1", "255" },
		{ "\"%d\", (short)0x18000", "-32768" },
		{ "\"%lld\", (s64)(int)0xffffffff", "-1" },
		{ "\"%llu\", (u64)(unsigned int)-1", "4294967295" },
		{ "\"%llu\", (u64)REC->a", "18446744073709551609" },
		{ "\"%llu\", (u64)REC->b", "3" },
		{ "\"%d\", (bool)5", "1" },
		/* a cast cuts a field to its own width before promotion */
		{ "\"%d\", (unsigned char)REC->a", "249" },
		{ "\"%d\", (unsigned short)REC->a", "65529" },
		{ "\"%x\", (unsigned char)REC->a & 0xfffULL", "f9" },
		{ "\"%d\", (signed char)(REC->b + 253)", "0" },
		{ "\"%d\", (signed char)REC->b - 4", "-1" },
		{ "\"%lx\", (unsigned long)(void *)REC->b", "3" },
		{ "\"%llx\", (((u64)(REC)->b << 32) | (REC)->b)", "300000003" },
		{ "\"%d\", __builtin_expect(!!(REC->b), 1)", "1" },
		{ "\"%lu %lu %lu\", sizeof(int), sizeof(long), sizeof(REC->arr)", "4 8 16" },
		{ "\"%d\", HI_SOFTIRQ + RCU_SOFTIRQ", "9" },
		{ "\"%d\", NO_SUCH_ENUM_NAME", "0" },
		{ "\"%llu\", 1ULL << (64 - 1)", "9223372036854775808" },
		{ "\"%lld\", 1ULL << (64 - 1)", "-9223372036854775808" },
		{ "\"%llu\", __print_ns_to_secs(5500000000ULL)", "5" },
		{ "\"%llu\", __print_ns_without_secs(5500000000ULL)", "500000000" },
		{ "\"a\" \"b\" \"%d\", 1", "ab1" },
		{ "\"%s\", \"x\" \"y\"", "xy" },
		{ "\"tab\\there \\\"q\\\" 100%%\"", "tab\there \"q\" 100%" },
	};
	expr_setup();
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		expr_is(v[i].fmt, v[i].want);
}
END_TEST

/* ---- printf conversions, as the kernel's vsnprintf prints them ---- */

START_TEST(printf_conversions)
{
	static const struct {
		const char *fmt, *want;
	} v[] = {
		{ "\"[%5d][%-5d][%05d][%+d][% d]\", 42, 42, 42, 42, 42", "[   42][42   ][00042][+42][ 42]" },
		{ "\"[%x][%X][%#x][%#X][%#o][%o]\", 255, 255, 255, 255, 8, 8", "[ff][FF][0xff][0XFF][010][10]" },
		{ "\"[%#x][%#o][%.0d]\", 0, 0, 0", "[0x0][0][0]" },      /* kernel quirks */
		{ "\"[%08.3d][%.5x]\", 7, 0xab", "[00000007][000ab]" },  /* precision keeps 0-pad */
		{ "\"[%#08x]\", 0xab", "[0x0000ab]" },
		{ "\"[%hhd][%hhu][%hd][%hu]\", 0x1ff, 0x1ff, 0x18000, 0x18000", "[-1][255][-32768][32768]" },
		{ "\"[%d][%u][%ld][%lu]\", -1, -1, -1, -1", "[-1][4294967295][-1][18446744073709551615]" },
		{ "\"[%lld][%llx][%Lu][%zu][%zd]\", -2LL, -2LL, 5, 6, -6", "[-2][fffffffffffffffe][5][6][-6]" },
		{ "\"[%i]\", -9", "[-9]" },
		{ "\"[%c][%3c][%-3c]\", 65, 66, 67", "[A][  B][C  ]" },
		{ "\"[%s][%5s][%-5s][%.2s][%5.1s]\", \"abc\", \"abc\", \"abc\", \"abc\", \"abc\"", "[abc][  abc][abc  ][ab][    a]" },
		{ "\"[%*d][%-*d][%*d]\", 4, 1, 4, 2, -4, 3", "[   1][2   ][3   ]" },
		{ "\"[%.*s][%.*s]\", 2, \"abcd\", -1, \"abcd\"", "[ab][]" },  /* kernel: negative precision is 0 */
		{ "\"[%p][%p]\", 0, 0xffff888012345678", "[0000000000000000][ffff888012345678]" },
		{ "\"[%px]\", 0x10", "[0000000000000010]" },
		{ "\"%dno\", 1", "1no" },
		{ "\"[%%][%d%%]\", 5", "[%][5%]" },
	};
	expr_setup();
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		expr_is(v[i].fmt, v[i].want);
}
END_TEST

static int test_sym(void *ctx, uint64_t addr, const char **name, size_t *nlen,
		    uint64_t *start, const char **mod, size_t *mlen)
{
	(void)ctx;
	if (addr >= 0xffffffff81000000ull && addr < 0xffffffff81000100ull) {
		*name = "do_work";
		*nlen = 7;
		*start = 0xffffffff81000000ull;
		*mod = NULL;
		*mlen = 0;
		return 1;
	}
	if (addr >= 0xffffffffc0000000ull && addr < 0xffffffffc0000100ull) {
		*name = "mod_fn";
		*nlen = 6;
		*start = 0xffffffffc0000000ull;
		*mod = "ext4";
		*mlen = 4;
		return 1;
	}
	return 0;
}

static int test_printk(void *ctx, uint64_t addr, const char **s, size_t *n)
{
	(void)ctx;
	if (addr == 0xffffffff82000000ull) {
		*s = "val=%d str=%s hex=%llx ch=%c w=%*d\n";
		*n = strlen(*s);
		return 1;
	}
	if (addr == 0xffffffff82000100ull) {
		*s = "constant string\n";
		*n = strlen(*s);
		return 1;
	}
	return 0;
}

static const tb_render_env test_env = { test_sym, NULL, test_printk, NULL, NULL, 0 };

START_TEST(pointer_extensions)
{
	uint8_t rec[96];
	tb_render_field f[] = { COMMON_FIELDS, fs("ip", 8, 8, 0),
		fa("v4", 16, 4, 1, 0), fa("v6", 20, 16, 1, 0), fa("mac", 36, 6, 1, 0),
		fa("uuid", 42, 16, 1, 0), fa("sa", 58, 28, 1, 0) };
	static const uint8_t v6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 };
	static const uint8_t uuid[16] = { 0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0,
					  0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef };
	memset(rec, 0, sizeof(rec));
	put64(rec, 8, 0xffffffff81000010ull);
	memcpy(rec + 16, "\xc0\xa8\x01\x02", 4);
	memcpy(rec + 20, v6, 16);
	memcpy(rec + 36, "\x00\x1b\x21\xaa\xbb\xcc", 6);
	memcpy(rec + 42, uuid, 16);
	put16(rec, 58, 2); /* AF_INET, port 8080, 10.0.0.1 */
	rec[60] = 0x1f;
	rec[61] = 0x90;
	memcpy(rec + 62, "\x0a\x00\x00\x01", 4);
	compile_ex("\"%pS|%ps|%pI4|%pi4|%pI6|%pI6c|%pM|%pMR|%pm|%pU|%pUl|%4ph|%4phC|%pISpc\", "
		   "REC->ip, REC->ip, REC->v4, REC->v4, REC->v6, REC->v6, REC->mac, REC->mac, "
		   "REC->mac, REC->uuid, REC->uuid, REC->v4, &REC->v4, REC->sa",
		   f, 10, 8, 0, "net", "x");
	ck_assert(tb_render_ok(prog_buf()));
	ck_assert_str_eq(run_env(&test_env, rec, 86),
			 "do_work+0x10|do_work|192.168.1.2|192.168.001.002|"
			 "2001:0db8:0000:0000:0000:0000:0000:0001|2001:db8::1|"
			 "00:1b:21:aa:bb:cc|cc:bb:aa:21:1b:00|001b21aabbcc|"
			 "12345678-9abc-def0-0123-456789abcdef|78563412-bc9a-f0de-0123-456789abcdef|"
			 "c0 a8 01 02|c0:a8:01:02|10.0.0.1:8080");
	/* IPv6 sockaddr with a port, a module symbol, no symbol at all */
	memset(rec + 58, 0, 28);
	put16(rec, 58, 10);
	rec[60] = 0x01;
	rec[61] = 0xbb;
	memcpy(rec + 66, v6, 16);
	put64(rec, 8, 0xffffffffc0000004ull);
	rec[62] = 0x10; /* flowinfo 0x10000005: the mask keeps 5 */
	rec[65] = 0x05;
	put32(rec, 82, 3);
	compile_ex("\"%pISpc %pS %ps %pS|%pISc|%pIS|%pISpfs\", REC->sa, REC->ip, REC->ip, 0, REC->sa, REC->sa, REC->sa",
		   f, 10, 8, 0, "net", "x");
	ck_assert_str_eq(run_env(&test_env, rec, 86),
			 "[2001:db8::1]:443 mod_fn+0x4 [ext4] mod_fn [ext4] 0x0|2001:db8::1|"
			 "2001:0db8:0000:0000:0000:0000:0000:0001|[2001:0db8:0000:0000:0000:0000:0000:0001]:443/5%3");
	/* v4-mapped IPv6, a family that is neither */
	memset(rec + 66, 0, 16);
	rec[76] = 0xff;
	rec[77] = 0xff;
	memcpy(rec + 78, "\x01\x02\x03\x04", 4);
	compile_ex("\"%pI6c\", &REC->sa[8]", f, 10, 8, 0, "net", "x");
	ck_assert_str_eq(run_env(&test_env, rec, 86), "::ffff:1.2.3.4");
	put16(rec, 58, 1);
	compile_ex("\"%pISpc\", REC->sa", f, 10, 8, 0, "net", "x");
	ck_assert_str_eq(run_env(&test_env, rec, 86), "(einval)");
	/* no kallsyms: the address, and the note */
	compile_ex("\"%pS\", REC->ip", f, 10, 8, 0, "net", "x");
	ck_assert_str_eq(run_env(NULL, rec, 86), "0xffffffffc0000004");
	ck_assert(last.notes & TB_RENDER_N_NOLOOKUP);
	/* a UUID from 4 bytes: the kernel's "(efault)", and the note */
	compile_ex("\"%pU\", REC->v4", f, 10, 8, 0, "net", "x");
	ck_assert_str_eq(run_env(&test_env, rec, 86), "(efault)");
	ck_assert(last.notes & TB_RENDER_N_OOR);
	/* hex dumps: the field's bytes at most (noted), 64 at most */
	compile_ex("\"%8phN\", REC->v4", f, 10, 8, 0, "net", "x");
	ck_assert_str_eq(run_env(&test_env, rec, 86), "c0a80102");
	ck_assert(last.notes & TB_RENDER_N_OOR);
	{
		uint8_t big[8 + 80];
		tb_render_field fb[] = { COMMON_FIELDS, fa("b", 8, 80, 1, 0) };
		memset(big, 0xab, sizeof(big));
		compile_ex("\"%100phN\", REC->b", fb, 5, 8, 0, "net", "x");
		ck_assert_uint_eq(strlen(run_env(&test_env, big, sizeof(big))), 2 * 64);
		ck_assert(!(last.notes & TB_RENDER_N_OOR));
	}
}
END_TEST

/* ---- helpers ---- */

START_TEST(helpers_dynamic)
{
	uint8_t rec[80];
	tb_render_field f[] = { COMMON_FIELDS, fd("name", 8, DL, 1, 1),
		fd("rname", 12, RL, 1, 1), fd("vals", 16, DL, 4, 0),
		fd("mask", 20, DL, 8, 0), fs("n", 24, 4, 0) };
	memset(rec, 0, sizeof(rec));
	put32(rec, 8, 6u << 16 | 32);       /* name "hello" @32 */
	memcpy(rec + 32, "hello", 6);
	put32(rec, 12, 4u << 16 | 22);      /* rel: 12+4+22 = 38 */
	memcpy(rec + 38, "abc", 4);
	put32(rec, 16, 12u << 16 | 44);     /* vals: 3 u32 @44 */
	put32(rec, 44, 1);
	put32(rec, 48, 0x20);
	put32(rec, 52, 0xdeadbeef);
	put32(rec, 20, 16u << 16 | 56);     /* mask: 2 longs @56 */
	put64(rec, 56, 0x8000000000000003ull);
	put64(rec, 64, 0x1);
	put32(rec, 24, 3);
	compile_ex("\"%s|%s|%u|%d|%s|%s|%s|%s|%s\", __get_str(name), __get_rel_str(rname), "
		   "__get_dynamic_array_len(vals), ((u32 *)__get_dynamic_array(vals))[1], "
		   "__print_array(__get_dynamic_array(vals), __get_dynamic_array_len(vals) / 4, 4), "
		   "__print_dynamic_array(vals, 4), __get_bitmask(mask), __get_cpumask(mask), "
		   "__print_hex(__get_dynamic_array(vals), REC->n)", f, 9, 8, 0, "t", "x");
	ck_assert(tb_render_ok(prog_buf()));
	ck_assert_str_eq(run_env(NULL, rec, 72),
			 "hello|abc|12|32|{0x1,0x20,0xdeadbeef}|{0x1,0x20,0xdeadbeef}|"
			 "00000000,00000001,80000000,00000003|00000000,00000001,80000000,00000003|01 00 00");
	compile_ex("\"%s %s %d\", __get_cpumask(mask), __print_hex_str(__get_dynamic_array(name), 5), "
		   "__get_str(name)[1]", f, 9, 8, TB_RENDER_CPUMASK_LIST, "t", "x");
	ck_assert_str_eq(run_env(NULL, rec, 72), "0-1,63-64 68656c6c6f 101");
	/* a pointer cast sets the element size for indexing */
	compile_ex("\"%x %x %d\", ((u8 *)__get_dynamic_array(vals))[4], ((unsigned short *)__get_dynamic_array(vals))[4], "
		   "((signed char *)__get_dynamic_array(vals))[8]", f, 9, 8, 0, "t", "x");
	ck_assert_str_eq(run_env(NULL, rec, 72), "20 beef -17");
	/* a zero-length dynamic string prints nothing (not the next field) */
	put32(rec, 8, 0u << 16 | 38);
	compile_ex("\"[%s]\", __get_str(name)", f, 9, 8, 0, "t", "x");
	ck_assert_str_eq(run_env(NULL, rec, 72), "[]");
}
END_TEST

START_TEST(helpers_flags_symbolic)
{
	uint8_t rec[24];
	tb_render_field f[] = { COMMON_FIELDS, fs("fl", 8, 8, 0), fs("s", 16, 4, 1) };
	const char *flags = "\"%s\", __print_flags(REC->fl, \"|\", { 1, \"A\" }, { 2, \"B\" }, "
			    "{ 6, \"BC\" }, { 8, \"D\" })";
	const char *sym = "\"%s\", __print_symbolic(REC->s, { 0, \"zero\" }, { 1, \"one\" }, "
			  "{ -1, \"minus\" }, { 2, \"\" })";
	static const struct {
		uint64_t fl;
		int32_t s;
		const char *f, *sy;
	} v[] = {
		{ 0, 0, "", "zero" },
		{ 1, 1, "A", "one" },
		{ 3, -1, "A|B", "minus" },
		{ 6, 5, "B|0x4", "0x5" },          /* B clears bit 2 before "BC" */
		{ 0x31, 2, "A|0x30", "0x2" },      /* an empty name prints the number */
		{ 0xf, 7, "A|B|D|0x4", "0x7" },
	};
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		memset(rec, 0, sizeof(rec));
		put64(rec, 8, v[i].fl);
		put32(rec, 16, (uint32_t)v[i].s);
		ck_assert_str_eq(R(flags, f, 6, rec, 20), v[i].f);
		ck_assert_str_eq(R(sym, f, 6, rec, 20), v[i].sy);
	}
	/* -1 as a symbol value: the value is an unsigned long, -1 matches */
	put32(rec, 16, (uint32_t)-1);
	ck_assert_str_eq(R("\"%s\", __print_symbolic(REC->s, { -1, \"m\" })", f, 6, rec, 20), "m");
	/* a ternary choosing between a helper and a literal, with width */
	put64(rec, 8, 2);
	ck_assert_str_eq(R("\"[%4s][%-4s]\", REC->fl ? __print_flags(REC->fl, \"\", { 2, \"x\" }) : \"-\", "
			   "REC->fl > 5 ? \"y\" : __print_symbolic(REC->fl, { 2, \"z\" })",
			   f, 6, rec, 20), "[   x][z   ]");
	/* the empty table of kvm_inj_exception */
	ck_assert_str_eq(R("\"%s\", __print_symbolic(REC->fl, { })", f, 6, rec, 20), "0x2");
}
END_TEST

/* Unresolved enum names: 0 as trace-cmd has it, or the kernel's value. */
START_TEST(unresolved_enums)
{
	uint8_t rec[16];
	tb_render_field f[] = { COMMON_FIELDS, fs("mode", 8, 4, 0) };
	const char *fmt = "\"mode=%s\", __print_symbolic(REC->mode, { HRTIMER_MODE_ABS, \"ABS\" }, "
			  "{ HRTIMER_MODE_REL, \"REL\" }, { HRTIMER_MODE_ABS_PINNED, \"ABS|PINNED\" })";
	memset(rec, 0, sizeof(rec));
	put32(rec, 8, 1);
	compile_ex(fmt, f, 5, 8, 0, "timer", "hrtimer_start");
	ck_assert_str_eq(run_env(NULL, rec, 12), "mode=0x1");
	compile_ex(fmt, f, 5, 8, TB_RENDER_KNOWN_ENUMS, "timer", "hrtimer_start");
	ck_assert_str_eq(run_env(NULL, rec, 12), "mode=REL");
	/* value 0: the first unresolved name, as trace-cmd prints it */
	put32(rec, 8, 0);
	compile_ex(fmt, f, 5, 8, 0, "timer", "hrtimer_start");
	ck_assert_str_eq(run_env(NULL, rec, 12), "mode=ABS");
	/* as flags, unresolved names match nothing: the value in hex, and
	 * nothing for 0 (the kernel prints no name for 0) */
	fmt = "\"%s\", __print_flags(REC->mode, \"|\", { I_DIRTY_SYNC, \"I_DIRTY_SYNC\" }, "
	      "{ I_NEW | 2, \"NEW2\" }, { 1, \"ONE\" })";
	compile_ex(fmt, f, 5, 8, 0, "writeback", "x");
	ck_assert_str_eq(run_env(NULL, rec, 12), "");
	ck_assert(!(last.notes & TB_RENDER_N_UNRESOLVED));
	put32(rec, 8, 0x13);
	ck_assert_str_eq(run_env(NULL, rec, 12), "ONE|0x12");
	ck_assert(last.notes & TB_RENDER_N_UNRESOLVED);
	put32(rec, 8, 1);
	ck_assert_str_eq(run_env(NULL, rec, 12), "ONE");
	ck_assert(!(last.notes & TB_RENDER_N_UNRESOLVED));
	/* arithmetic on a kernel variable (writeback's age=) */
	compile_ex("\"age=%lu mode=%u\", (jiffies - REC->mode) * 1000 / 250, REC->mode", f, 5, 8, 0,
		   "writeback", "x");
	ck_assert_str_eq(run_env(NULL, rec, 12), "age=17179865 mode=1");
	ck_assert(last.notes & TB_RENDER_N_UNRESOLVED);
	compile_ex("\"mode=%u\", REC->mode + 1", f, 5, 8, 0, "writeback", "x");
	ck_assert_str_eq(run_env(NULL, rec, 12), "mode=2");
	ck_assert(!(last.notes & TB_RENDER_N_UNRESOLVED));
}
END_TEST

/* TB_RENDER_PERF_STYLE: the text perf script printed for the same
 * records of a capture of this machine (kmem, timer, block, syscalls). */
START_TEST(perf_style)
{
	uint8_t rec[48];
	tb_render_field f[] = { COMMON_FIELDS, fs("call_site", 8, 8, 0), fs("ptr", 16, 8, 0),
		fs("pfn", 24, 8, 0), fs("mode", 32, 4, 0), fs("ioprio", 36, 2, 0) };
	const char *sym = "\"mode=%s %s\", __print_symbolic(REC->mode, { HRTIMER_MODE_ABS, \"ABS\" }, "
			  "{ HRTIMER_MODE_REL, \"REL\" }), __print_symbolic((((REC->ioprio) >> 13) & (8 - 1)), "
			  "{ IOPRIO_CLASS_NONE, \"none\" }, { IOPRIO_CLASS_BE, \"be\" }, { 7, \"seven\" })";
	memset(rec, 0, sizeof(rec));
	put64(rec, 8, 0xffffffff81000010ull);
	put64(rec, 24, 0x10cf74);
	/* kmem:kfree of NULL, kmem:mm_page_alloc (vmemmap_base unresolved) */
	compile_ex("\"call_site=%pS ptr=%p\", (void *)REC->call_site, REC->ptr", f, 9, 8,
		   TB_RENDER_PERF_STYLE, "kmem", "kfree");
	ck_assert_str_eq(run_env(&test_env, rec, 40), "call_site=do_work+0x10 ptr=(nil)");
	put64(rec, 16, 0xffff888100e20000ull);
	ck_assert_str_eq(run_env(&test_env, rec, 40), "call_site=do_work+0x10 ptr=0xffff888100e20000");
	compile_ex("\"page=%p pfn=0x%lx\", REC->pfn != -1UL ? (((struct page *)vmemmap_base) + (REC->pfn)) "
		   ": ((void *)0), REC->pfn", f, 9, 8, TB_RENDER_PERF_STYLE, "kmem", "mm_page_alloc");
	ck_assert_str_eq(run_env(NULL, rec, 40), "page=0x10cf74 pfn=0x10cf74");
	/* the kernel's own form of the same */
	compile_ex("\"page=%p\", REC->pfn", f, 9, 8, 0, "kmem", "mm_page_alloc");
	ck_assert_str_eq(run_env(NULL, rec, 40), "page=000000000010cf74");
	/* widths and a 4-byte long, as printf's %p */
	compile_ex("\"[%12p][%-7p][%p]\", REC->pfn, REC->mode, REC->ptr", f, 9, 4,
		   TB_RENDER_PERF_STYLE, "kmem", "x");
	ck_assert_str_eq(run_env(NULL, rec, 40), "[    0x10cf74][(nil)  ][0xe20000]");
	/* hrtimer_start's mode 0 (ABS) and block's ioprio class 2 (BE): no
	 * unresolved name matches, a resolved one still does */
	put16(rec, 36, 2u << 13);
	compile_ex(sym, f, 9, 8, TB_RENDER_PERF_STYLE, "timer", "hrtimer_start");
	ck_assert_str_eq(run_env(NULL, rec, 40), "mode=0x0 0x2");
	put32(rec, 32, 1);
	put16(rec, 36, 7u << 13);
	ck_assert_str_eq(run_env(NULL, rec, 40), "mode=0x1 seven");
	ck_assert(last.notes & TB_RENDER_N_UNRESOLVED);
	/* a syscall through its print fmt, not the kernel's printer */
	compile_ex("\"fd: 0x%08lx, buf: 0x%08lx\", ((unsigned long)(REC->mode)), ((unsigned long)(REC->ptr))",
		   f, 9, 8, TB_RENDER_PERF_STYLE, "syscalls", "sys_enter_write");
	ck_assert_str_eq(run_env(NULL, rec, 40), "fd: 0x00000001, buf: 0xffff888100e20000");
}
END_TEST

/* ---- spec 5.1: libtraceevent's utest vectors ---- */

START_TEST(utest_dynamic_strings)
{
	static const uint8_t dyn[24] = { 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
					 0x10, 0, 6, 0, 'h', 'e', 'l', 'l', 'o', 0, 0, 0 };
	static const uint8_t old[25] = { 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
					 0x10, 0, 0, 0, 'h', 'e', 'l', 'l', 'o', 0, 0, 0, 0 };
	tb_render_field f[] = { COMMON_FIELDS, fs("irq", 8, 4, 1),
		fd("name", 12, DL, 1, 1) };
	const char *fmt = "\"irq=%d handler=%s\", REC->irq, __get_str(name)";
	ck_assert_str_eq(R(fmt, f, 6, dyn, sizeof(dyn)), "irq=0 handler=hello");
	f[5] = fd("name", 12, DL16, 1, 1);
	ck_assert_str_eq(R(fmt, f, 6, old, sizeof(old)), "irq=0 handler=hello");
}
END_TEST

/* The planned conversions (integers bare, signed, hex, padded; char
 * arrays and __get_str, empty or cut by a NUL; short literals) written
 * in one run when the room holds them all, piece by piece when it does
 * not: the same text at every capacity, and the general path's for a
 * record too short for them. */
START_TEST(planned_runs_every_capacity)
{
	static const uint8_t rec[40] = { 1, 0, 0, 0, 0, 0, 0, 0,
		0xfb, 0xff, 0xff, 0xff,                 /* a = -5 */
		0x2a, 0, 0, 0,                          /* b = 42 */
		'a', 'b', 0, 'c', 'd', 'e', 'f', 'g',   /* c: "ab" */
		0x20, 0, 6, 0,                          /* s: "hello" at 32 */
		0, 0, 0, 0, 'h', 'e', 'l', 'l', 'o', 0, 0, 0 };
	static const char want[] = "a=-5 b=42 x=2a X=0X0000002A l=42   |r=   -5 c=ab s=hello e=";
	tb_render_field f[] = { COMMON_FIELDS, fs("a", 8, 4, 1), fs("b", 12, 4, 0),
		fa("c", 16, 8, 1, 1), fd("s", 24, DL, 1, 1), fd("e", 28, DL, 1, 1) };
	const char *fmt = "\"a=%d b=%u x=%x X=%#010X l=%-5d|r=%5d c=%s s=%s e=%s\", REC->a, "
			  "REC->b, REC->b, REC->b, REC->b, REC->a, REC->c, __get_str(s), "
			  "__get_str(e)";
	char out[128];
	uint8_t e[40];
	tb_render_result r;
	memcpy(e, rec, sizeof(e)); /* e: no length, no text */
	ck_assert_int_eq(compile_ex(fmt, f, 9, 8, 0, "test", "ev"), TB_OK);
	for (size_t cap = 1; cap <= sizeof(want) + 200; cap++) {
		size_t n = cap - 1 < strlen(want) ? cap - 1 : strlen(want);
		memset(out, 'Z', sizeof(out));
		(void)tb_render(prog_buf(), NULL, e, sizeof(e), out, cap < sizeof(out) ? cap : sizeof(out), &r);
		ck_assert_uint_eq(r.needed, strlen(want));
		ck_assert_uint_eq(r.len, cap < sizeof(out) ? n : strlen(want));
		ck_assert(memcmp(out, want, r.len) == 0);
	}
	/* char[16]: a comm with its NUL, and one filling all 16 */
	{
		tb_render_field g[] = { COMMON_FIELDS, fa("p", 8, 16, 1, 1), fa("n", 24, 16, 1, 1) };
		uint8_t c[40];
		memset(c, 0, sizeof(c));
		memcpy(c + 8, "migration/0", 11);
		memcpy(c + 24, "0123456789abcdef", 16);
		ck_assert_int_eq(compile_ex("\"p=%s n=%s.\", REC->p, REC->n", g, 6, 8, 0, "test", "ev"),
				 TB_OK);
		ck_assert_str_eq(run_env(NULL, c, sizeof(c)), "p=migration/0 n=0123456789abcdef.");
		ck_assert_int_eq(compile_ex(fmt, f, 9, 8, 0, "test", "ev"), TB_OK);
	}
	/* the record cut inside s's text: s up to the record's end */
	ck_assert_str_eq(run_env(NULL, e, 35),
			 "a=-5 b=42 x=2a X=0X0000002A l=42   |r=   -5 c=ab s=hel e=");
}
END_TEST

/* "((REC->x & 1) + (REC->x & 1))"... of n masks, as a balanced tree (its
 * depth far below the compiler's limit): 2n - 1 nodes. */
static size_t sum_of_masks(char *out, size_t cap, unsigned n)
{
	size_t k;
	if (n == 1)
		return (size_t)snprintf(out, cap, "(REC->x & 1)");
	k = (size_t)snprintf(out, cap, "(");
	k += sum_of_masks(out + k, cap - k, n / 2);
	k += (size_t)snprintf(out + k, cap - k, " + ");
	k += sum_of_masks(out + k, cap - k, n - n / 2);
	return k + (size_t)snprintf(out + k, cap - k, ")");
}

/* The text of rec through the general path: an output exactly as long
 * as the text, which holds no planned run's room (48 bytes a directive
 * and the record's length), so every directive is evaluated. */
static const char *run_general(const void *rec, size_t n, size_t len)
{
	static char gen[8192];
	tb_render_result r;
	ck_assert_int_eq(tb_render(prog_buf(), NULL, rec, n, gen, len + 1, &r), TB_OK);
	ck_assert_uint_eq(r.len, len);
	return gen;
}

/* How many of the program's %s conversions are planned. */
static unsigned planned_s(void)
{
	const tb_render_prog *p = prog_buf();
	unsigned k = 0;
	for (uint32_t i = 0; i < p->n_dirs; i++)
		k += p->dirs[i].conv == 's' && p->dirs[i].plan;
	return k;
}

/*
 * A %s that is a function of a few bits of one field, tabled when
 * compiled (sched_switch's prev_state): the same text as the evaluated
 * expression for every value of those bits and others, in both byte
 * orders and for a record too short for the field; and the shapes that
 * stay unplanned (a bare field, a mask too wide or on the sign bit, two
 * fields, a division by zero in an entry, an entry longer than 15 bytes,
 * a width, a field past 256 bytes, too many nodes, no room left for a
 * table) still print by the general path.
 */
START_TEST(planned_tables_match_expression)
{
	static const struct {
		const char *fmt;
		unsigned planned; /* %s conversions planned */
	} v[] = {
		{ sched_switch_fmt, 4 }, /* and the two comms */
		{ "\"%s\", REC->x & 3 ? \"a\" : \"b\"", 1 },
		{ "\"%s\", 3 & REC->x ? \"a\" : \"b\"", 1 },
		{ "\"%s|%s\", __print_symbolic(REC->b & 3, { 0, \"zero\" }, { 1, \"one\" }, { 2, \"two\" }), "
		  "__print_symbolic(REC->b & 3, { 0, \"zero\" }, { 7, \"seven\" })", 2 },
		{ "\"%s\", __print_flags(REC->x & 0xf0, \"|\", { 0x10, \"A\" }, { 0x20, \"B\" })", 1 },
		{ "\"%s\", !(REC->x & 4) ? \"a\" : (unsigned char)(REC->x & 8) + 1 > 1 ? \"b\" : \"c\"", 1 },
		{ "\"%s\", REC->y & 0x40000000 ? \"a\" : \"b\"", 1 },
		{ "\"%s\", \"abc\"", 0 },
		{ "\"%s\", REC->x ? \"a\" : \"b\"", 0 },
		{ "\"%s\", REC->x & 0x1ff ? \"a\" : \"b\"", 0 },
		{ "\"%s\", REC->y & 0x80000000 ? \"a\" : \"b\"", 0 },
		{ "\"%s\", REC->c & 1 ? \"a\" : \"b\"", 0 },
		{ "\"%s\", (REC->x & 1) && (REC->y & 2) ? \"a\" : \"b\"", 0 },
		{ "\"%s\", (REC->x & 7) / (REC->x & 3) ? \"a\" : \"b\"", 0 },
		{ "\"%s\", __print_flags(REC->x & 3, \"|\", { 1, \"AAAAAAAA\" }, { 2, \"BBBBBBBB\" })", 0 },
		{ "\"%5s\", REC->x & 1 ? \"a\" : \"b\"", 0 },
		{ "\"%s\", REC->x & 1 ? REC->c : \"b\"", 0 },
		{ "\"%s\", REC->z & 1 ? \"a\" : \"b\"", 0 },
		{ "\"%s\", __print_dynamic_array(arr, 4)", 0 },
		{ "\"%s%s%s\", __print_flags(REC->x & 0xff, \"\", { 1, \"S\" }), __print_flags(REC->x & 0xff, "
		  "\"\", { 2, \"D\" }), __print_flags(REC->x & 0xff, \"\", { 4, \"T\" })", 2 },
		{ "\"%s\", ((REC->x & 1) ? (REC->x & 2) : (REC->x & 4)) ? \"a\" : \"b\"", 1 },
		{ "\"%s\", (REC->x & 1 ? REC->x : 3) ? \"a\" : \"b\"", 0 },
		{ "\"%s\", (REC->x & 1 ? 3 : REC->x) ? \"a\" : \"b\"", 0 },
		{ "\"%s\", REC->x & 1 ? \"a\" : REC->c", 0 },
		{ "\"%s\", __print_flags(REC->x, \"|\", { 1, \"A\" })", 0 },
		{ "\"%s\", __print_flags(REC->x & 3, \"|\", { REC->y, \"A\" })", 0 },
		{ "\"%s|%s\", __print_symbolic_u64(REC->x & 3, { 1, \"one\" }), "
		  "__print_flags_u64(REC->x & 3, \"|\", { 1, \"A\" }, { 2, \"B\" })", 2 },
		{ "\"%s\", __print_symbolic(REC->x & 3, 5, { 1, \"one\" })", 1 },
		{ "\"%s\", REC->x & 0 ? \"a\" : \"b\"", 1 },
	};
	static const uint64_t vals[] = { 0, 1, 2, 3, 4, 7, 8, 0x10, 0x30, 0x80, 0xff, 0x100, 0x101,
		0x1ff, 0x200, 0x40000000, 0x80000000, 0xfffffffffffffeffull, UINT64_MAX };
	tb_render_field f[] = { COMMON_FIELDS, fs("x", 8, 8, 0), fs("y", 16, 4, 1), fa("c", 20, 8, 1, 1),
		fs("b", 28, 1, 0), fd("arr", 32, DL, 4, 0), fs("z", 300, 4, 0) };
	uint8_t rec[304];
	char many[4096], more[5][4096];
	size_t m = (size_t)snprintf(many, sizeof(many), "\"%%s\", __print_flags(REC->x & 0xff, \"|\"");
	size_t nv = sizeof(v) / sizeof(v[0]);
	for (unsigned i = 0; i < 70; i++) /* 140 nodes to scan */
		m += (size_t)snprintf(many + m, sizeof(many) - m, ", { %u, \"F\" }", i + 1);
	snprintf(many + m, sizeof(many) - m, ")");
	/* the node limit met in each part of the scan: a flags list, a
	 * symbolic list, a ?:'s condition and its texts (sums of 65, 64 and
	 * 63 masks; the last, 128 nodes, is planned) */
	for (unsigned k = 0; k < 5; k++) {
		const char *lead = k == 1 ? "\"%s\", __print_symbolic(REC->x & 0xff" : "\"%s\", ";
		m = (size_t)snprintf(more[k], sizeof(more[k]), "%s", lead);
		if (k == 0) {
			snprintf(more[k], sizeof(more[k]), "%s", many);
			continue;
		}
		if (k == 1) {
			for (unsigned i = 0; i < 70; i++)
				m += (size_t)snprintf(more[k] + m, sizeof(more[k]) - m, ", { %u, \"F\" }", i + 1);
			snprintf(more[k] + m, sizeof(more[k]) - m, ")");
			continue;
		}
		m += sum_of_masks(more[k] + m, sizeof(more[k]) - m, 67 - k);
		snprintf(more[k] + m, sizeof(more[k]) - m, " ? \"a\" : \"b\"");
	}
	for (int be = 0; be < 2; be++) {
		big_endian = be;
		for (size_t i = 0; i < nv + 5; i++) {
			const char *fmt = i < nv ? v[i].fmt : more[i - nv];
			unsigned want_planned = i < nv ? v[i].planned : i == nv + 4;
			int sched = i == 0;
			if (sched)
				sched_setup(rec, 0);
			else
				ck_assert_int_eq(compile_ex(fmt, f, 10, 8, 0, "test", "ev"), TB_OK);
			ck_assert_msg(planned_s() == want_planned, "%s: %u planned", fmt, planned_s());
			for (size_t j = 0; j < sizeof(vals) / sizeof(vals[0]); j++) {
				uint64_t x = vals[j];
				const char *want;
				memset(rec, 0, sizeof(rec));
				for (int b = 0; b < 8; b++) {
					size_t at = sched ? 32 : 8;
					rec[at + (size_t)(be ? 7 - b : b)] = (uint8_t)(x >> (8 * b));
				}
				for (int b = 0; b < 4; b++) /* y: x's low half */
					rec[16 + (size_t)(be ? 3 - b : b)] = (uint8_t)(x >> (8 * b));
				rec[28] = (uint8_t)x;
				memcpy(rec + 20, "ab", 2);
				/* whole, and cut inside the field (x, or prev_state) */
				for (size_t n = sizeof(rec); n; n = n == sizeof(rec) ? (sched ? 36 : 12) : 0) {
					char got[512];
					tb_render_result r;
					ck_assert_int_eq(tb_render(prog_buf(), NULL, rec, n, got, sizeof(got), &r), TB_OK);
					want = run_general(rec, n, r.len);
					ck_assert_msg(!strcmp(got, want), "%s at %llx (%zu bytes): %s, not %s", fmt,
						      (unsigned long long)x, n, got, want);
				}
			}
		}
	}
	big_endian = 0;
	/* the kernel's own states, as perf prints them */
	sched_setup(rec, 0x82);
	ck_assert_str_eq(run_env(NULL, rec, 64), "prev_comm=bash prev_pid=1234 prev_prio=120 prev_state=D|I "
			 "==> next_comm=swapper/0 next_pid=0 next_prio=120");
}
END_TEST

/* A planned __get_str runs to its NUL or the record's end: at every
 * length of what follows it (under 8 bytes, 8 to 15, 16, past 16) and
 * every place of its NUL (none too), the general path's text; and a
 * char[12] array likewise. */
START_TEST(planned_text_every_length)
{
	tb_render_field f[] = { COMMON_FIELDS, fd("s", 8, DL, 1, 1), fa("c", 12, 12, 1, 1) };
	uint8_t rec[64];
	for (int arr = 0; arr < 2; arr++) {
		ck_assert_int_eq(compile_ex(arr ? "\"c=%s.\", REC->c" : "\"s=%s.\", __get_str(s)",
					    f, 6, 8, 0, "test", "ev"), TB_OK);
		ck_assert_uint_eq(planned_s(), 1);
		for (size_t len = 24; len <= sizeof(rec); len++) {
			for (size_t nul = 0; nul <= len - 24 + 1; nul++) {
				char got[512]; /* room for the planned run */
				tb_render_result r;
				for (size_t i = 0; i < sizeof(rec); i++)
					rec[i] = (uint8_t)('a' + i % 26);
				put32(rec, 8, 24u | (uint32_t)(len - 24) << 16); /* s: [24, len) */
				if (24 + nul < len)
					rec[24 + nul] = 0;
				if (12 + nul < 24)
					rec[12 + nul] = 0;
				ck_assert_int_eq(tb_render(prog_buf(), NULL, rec, len, got, sizeof(got), &r), TB_OK);
				ck_assert_str_eq(got, run_general(rec, len, r.len));
				ck_assert_uint_eq(r.len, 3 + (arr ? (nul < 12 ? nul : 12) : len == 24 ? 0 : nul < len - 24 ? nul : len - 24));
			}
		}
	}
}
END_TEST

/* The planned integers' normalisations (field type, promotion, cast,
 * length modifier: the steps that change nothing are dropped when
 * planned), against C's own conversions of the same values. */
START_TEST(planned_integer_conversions)
{
	static const struct {
		const char *fmt;
		int field; /* 0: s8 -5, 1: u32 0xfffffffb, 2: s16 -300, 3: u8 251 */
	} v[] = {
		{ "%d", 0 }, { "%u", 0 }, { "%hhu", 0 }, { "%hd", 0 }, { "%x", 0 }, { "%lu", 0 },
		{ "%u", 1 }, { "%d", 1 }, { "%ld", 1 }, { "%hd", 1 }, { "%hhx", 1 }, { "%lx", 1 },
		{ "%d", 2 }, { "%u", 2 }, { "%hhd", 2 }, { "%hu", 2 }, { "%lu", 2 },
		{ "%d", 3 }, { "%hhd", 3 }, { "%u", 3 }, { "%ld", 3 },
	};
	const signed char s8 = -5;
	const uint32_t u32 = 0xfffffffbu;
	const short s16 = -300;
	const unsigned char u8 = 251;
	tb_render_field f[] = { COMMON_FIELDS, fs("a", 8, 1, 1), fs("b", 12, 4, 0), fs("c", 16, 2, 1),
		fs("d", 18, 1, 0) };
	static const char *const name[] = { "a", "b", "c", "d" };
	uint8_t rec[24];
	memset(rec, 0, sizeof(rec));
	rec[8] = (uint8_t)s8;
	put32(rec, 12, u32);
	put16(rec, 16, (uint16_t)s16);
	rec[18] = u8;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		char fmt[64], want[64], spec[16];
		const char *c = v[i].fmt;
		long long sv = v[i].field == 0 ? s8 : v[i].field == 1 ? (long long)u32
			     : v[i].field == 2 ? s16 : u8;
		/* C: the promoted value converted as the length modifier says */
		long long pv = v[i].field == 1 ? (long long)u32 : (long long)(int)sv;
		if (!strcmp(c, "%hhu") || !strcmp(c, "%hhx"))
			snprintf(want, sizeof(want), c[3] == 'u' ? "%u" : "%x", (unsigned)(unsigned char)pv);
		else if (!strcmp(c, "%hhd"))
			snprintf(want, sizeof(want), "%d", (int)(signed char)pv);
		else if (!strcmp(c, "%hd"))
			snprintf(want, sizeof(want), "%d", (int)(short)pv);
		else if (!strcmp(c, "%hu"))
			snprintf(want, sizeof(want), "%u", (unsigned)(unsigned short)pv);
		else if (c[1] == 'l')
			snprintf(want, sizeof(want), c[2] == 'd' ? "%lld" : c[2] == 'u' ? "%llu" : "%llx",
				 v[i].field == 1 ? (long long)u32 : (long long)(int)sv);
		else if (c[1] == 'd')
			snprintf(want, sizeof(want), "%d", (int)pv);
		else
			snprintf(want, sizeof(want), c[1] == 'u' ? "%u" : "%x", (unsigned)pv);
		snprintf(spec, sizeof(spec), "%s", c);
		snprintf(fmt, sizeof(fmt), "\"%s\", REC->%s", spec, name[v[i].field]);
		ck_assert_msg(!strcmp(R(fmt, f, 8, rec, sizeof(rec)), want), "%s of %s: %s, want %s",
			      c, name[v[i].field], outbuf, want);
	}
}
END_TEST

START_TEST(utest_cpumask)
{
	static const struct {
		uint8_t m[8];
		const char *list, *hex;
	} v[] = {
		{ { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff }, "0-63", "ffffffff,ffffffff" },
		{ { 0 }, "", "00000000,00000000" },
		{ { 0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55 },
		  "0,2,4,6,8,10,12,14,16,18,20,22,24,26,28,30,32,34,36,38,40,42,44,46,48,50,52,54,56,58,60,62",
		  "55555555,55555555" },
		{ { 0x01, 0x80 }, "0,15", "00000000,00008001" },
		{ { 0x01, 0x00, 0x80 }, "0,23", "00000000,00800001" },
		{ { 0x01, 0, 0, 0, 0, 0, 0, 0x80 }, "0,63", "80000000,00000001" },
	};
	tb_render_field f[] = { COMMON_FIELDS, fd("cpumask", 8, DL, 8, 0) };
	const char *fmt = "\"cpumask=%s\", __get_cpumask(cpumask)";
	uint8_t rec[24];
	char want[160];
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		memset(rec, 0, sizeof(rec));
		rec[0] = 3;
		rec[8] = 0x10;
		rec[10] = 0x08;
		memcpy(rec + 16, v[i].m, 8);
		compile_ex(fmt, f, 5, 8, TB_RENDER_CPUMASK_LIST, "ipi", "ipi_send_cpumask");
		snprintf(want, sizeof(want), "cpumask=%s", v[i].list);
		ck_assert_str_eq(run_env(NULL, rec, 24), want);
		compile_ex(fmt, f, 5, 8, 0, "ipi", "ipi_send_cpumask");
		snprintf(want, sizeof(want), "cpumask=%s", v[i].hex);
		ck_assert_str_eq(run_env(NULL, rec, 24), want);
	}
}
END_TEST

static const char sizeof_fmt[] =
	"\"int=%d unsigned=%d unsigned int=%d long=%d unsigned long=%d long long=%d "
	"unsigned long long=%d s4=%d u4=%d s8=%d u8=%d\", sizeof(int), sizeof(unsigned), "
	"sizeof(unsigned int), sizeof(long), sizeof(unsigned long), sizeof(long long), "
	"sizeof(unsigned long long), sizeof(REC->s4), sizeof(REC->u4), sizeof(REC->s8), "
	"sizeof(REC->u8))";

START_TEST(utest_sizeof)
{
	uint8_t rec[32];
	tb_render_field f[] = { COMMON_FIELDS, ft("int", "s4", 8, 4, 1), ft("unsigned int", "u4", 12, 4, 0),
		ft("long long", "s8", 16, 8, 1), ft("unsigned long long", "u8", 24, 8, 0) };
	memset(rec, 0, sizeof(rec));
	rec[0] = 23;
	ck_assert_int_eq(compile_ex(sizeof_fmt, f, 8, 8, 0, "s", "sizeof_event"), TB_OK);
	ck_assert_str_eq(run_env(NULL, rec, 32),
			 "int=4 unsigned=4 unsigned int=4 long=8 unsigned long=8 long long=8 "
			 "unsigned long long=8 s4=4 u4=4 s8=8 u8=8");
	ck_assert_int_eq(compile_ex(sizeof_fmt, f, 8, 4, 0, "s", "sizeof_event"), TB_OK);
	ck_assert_str_eq(run_env(NULL, rec, 32),
			 "int=4 unsigned=4 unsigned int=4 long=4 unsigned long=4 long long=8 "
			 "unsigned long long=8 s4=4 u4=4 s8=8 u8=8");
	ck_assert_int_eq(compile_ex(sizeof_fmt, f, 8, 0, 0, "s", "sizeof_event"),
			 TB_ERR_UNSUPPORTED);
	ck_assert_str_eq(run_env(NULL, rec, 32), "[FAILED TO PARSE] s4=0 u4=0 s8=0 u8=0x0");
	ck_assert(last.notes & TB_RENDER_N_FALLBACK);
}
END_TEST

/* ---- spec 4.1: R1-R16 ---- */

START_TEST(r01_r03_division_by_zero)
{
	uint8_t rec[16];
	tb_render_field f[] = { COMMON_FIELDS, fs("a", 8, 4, 1), fs("b", 12, 4, 1) };
	memset(rec, 0, sizeof(rec));
	put32(rec, 8, 10);
	ck_assert_str_eq(R("\"%d\", 1/0", f, 6, rec, 16), TB_RENDER_M_DIV0);
	ck_assert(last.notes & TB_RENDER_N_DIV0);
	ck_assert_str_eq(R("\"%d\", 5 % 0", f, 6, rec, 16), TB_RENDER_M_DIV0);
	ck_assert_str_eq(R("\"x=%d y=%d\", REC->a / REC->b, REC->a", f, 6, rec, 16),
			 "x=" TB_RENDER_M_DIV0 " y=10");
	/* INT_MIN / -1 and LLONG_MIN % -1 are defined here */
	ck_assert_str_eq(R("\"%d %lld\", (-2147483647 - 1) / -1, (-9223372036854775807LL - 1) % -1",
			   f, 6, rec, 16), "-2147483648 0");
}
END_TEST

START_TEST(r04_missing_field_falls_back)
{
	uint8_t rec[16] = { 0 };
	tb_render_field f[] = { COMMON_FIELDS, fs("a", 8, 4, 1) };
	put32(rec, 8, 7);
	ck_assert_int_eq(compile_ex("\"%s\", __get_cpumask(nosuch)", f, 5, 8, 0, "t", "x"),
			 TB_ERR_VALUE);
	ck_assert_str_eq(run_env(NULL, rec, 12), "[FAILED TO PARSE] a=7");
	ck_assert_int_eq(compile_ex("\"%d\", REC->nosuch", f, 5, 8, 0, "t", "x"), TB_ERR_VALUE);
}
END_TEST

START_TEST(r05_r06_lengths_from_the_record)
{
	uint8_t rec[16];
	tb_render_field f[] = { COMMON_FIELDS, fa("buf", 8, 4, 1, 0), fs("len", 12, 4, 1) };
	memset(rec, 0, sizeof(rec));
	memcpy(rec + 8, "\x01\x02\x03\x04", 4);
	put32(rec, 12, 0xffff);
	ck_assert_str_eq(R("\"%s\", __print_hex(REC->buf, REC->len)", f, 6, rec, 16), "01 02 03 04");
	ck_assert(last.notes & TB_RENDER_N_OOR);
	put32(rec, 12, 0x7fffffff);
	ck_assert_str_eq(R("\"%s\", __print_array(REC->buf, REC->len, 4)", f, 6, rec, 16), "{0x4030201}");
	ck_assert(last.notes & TB_RENDER_N_OOR);
	ck_assert_str_eq(R("\"%s\", __print_array(REC->buf, 2, 3)", f, 6, rec, 16), "{BAD SIZE:3 0x1}");
	put32(rec, 12, (uint32_t)-5);
	ck_assert_str_eq(R("\"[%s]\", __print_hex(REC->buf, REC->len)", f, 6, rec, 16), "[]");
}
END_TEST

START_TEST(r07_index_overflow)
{
	uint8_t rec[24];
	tb_render_field f[] = { COMMON_FIELDS, fa("arr", 8, 8, 8, 0), fs("idx", 16, 4, 0) };
	static const uint32_t idx[] = { 0x10000000u, 0x80000000u, 1, 0xffffffffu };
	memset(rec, 0, sizeof(rec));
	put64(rec, 8, 0x1122334455667788ull);
	for (size_t i = 0; i < 4; i++) {
		put32(rec, 16, idx[i]);
		ck_assert_str_eq(R("\"%lx\", REC->arr[REC->idx]", f, 6, rec, 20), TB_RENDER_M_OOR);
	}
	put32(rec, 16, 0);
	ck_assert_str_eq(R("\"%lx\", REC->arr[REC->idx]", f, 6, rec, 20), "1122334455667788");
	ck_assert_str_eq(R("\"%lx\", REC->arr[-1]", f, 6, rec, 20), TB_RENDER_M_OOR);
}
END_TEST

START_TEST(r08_r09_r10_r16_dynamic_bounds)
{
	uint8_t rec[16];
	tb_render_field f[] = { COMMON_FIELDS, fd("name", 8, DL, 1, 1) };
	memset(rec, 0, sizeof(rec));
	/* R8: offset 12 len 4, no NUL: exactly the 4 bytes */
	put32(rec, 8, 4u << 16 | 12);
	memcpy(rec + 12, "ABCD", 4);
	ck_assert_str_eq(R("\"[%s]\", __get_str(name)", f, 5, rec, 16), "[ABCD]");
	/* R9: rel_loc 12 from the field end = 24, past a 16-byte record */
	f[4] = fd("name", 8, RL, 1, 1);
	ck_assert_str_eq(R("\"[%s]\", __get_rel_str(name)", f, 5, rec, 16), "[]");
	ck_assert(last.notes & TB_RENDER_N_OOR);
	/* a data_loc whose length runs past the record is clamped */
	f[4] = fd("name", 8, DL, 1, 1);
	put32(rec, 8, 200u << 16 | 12);
	ck_assert_str_eq(R("\"[%s]\", __get_str(name)", f, 5, rec, 16), "[ABCD]");
	ck_assert(last.notes & TB_RENDER_N_OOR);
	/* R10: char s[8] @8 in a 10-byte record */
	f[4] = fa("s", 8, 8, 1, 1);
	memcpy(rec + 8, "xyzwvuts", 8);
	ck_assert_str_eq(R("\"[%s]\", REC->s", f, 5, rec, 10), "[xy]");
	ck_assert(last.notes & TB_RENDER_N_OOR);
	/* R16: legacy 2-byte data_loc at 240 in a 12-byte record */
	f[4] = fd("name", 8, DL16, 1, 1);
	put16(rec, 8, 240);
	ck_assert_str_eq(R("\"[%s]\", __get_str(name)", f, 5, rec, 12), "[]");
	ck_assert(last.notes & TB_RENDER_N_OOR);
}
END_TEST

START_TEST(r11_field_past_record)
{
	uint8_t rec[8] = { 1, 0, 0, 0, 5, 0, 0, 0 };
	tb_render_field f[] = { COMMON_FIELDS, fs("x", 4096, 8, 0) };
	uint8_t *heap = tb_test_dup(rec, 8);
	ck_assert_str_eq(R("\"x=%llu pid=%d\", REC->x, REC->common_pid", f, 5, heap, 8),
			 "x=" TB_RENDER_M_OOR " pid=5");
	ck_assert_int_eq(compile_ex("\"x\"", f, 5, 8, 0, "t", "x"), TB_OK);
	/* and in the fallback listing */
	compile_ex("\"%d\", REC->x +", f, 5, 8, 0, "t", "x");
	ck_assert_str_eq(run_env(NULL, heap, 8), "[FAILED TO PARSE] x=" TB_RENDER_M_OOR);
	free(heap);
}
END_TEST

START_TEST(r12_deep_nesting)
{
	size_t depth = 100000, n = 0;
	char *fmt = malloc(2 * depth + 16);
	ck_assert_ptr_nonnull(fmt);
	n += (size_t)sprintf(fmt, "\"%%d\", ");
	for (size_t i = 0; i < depth; i++)
		fmt[n++] = '(';
	fmt[n++] = '1';
	for (size_t i = 0; i < depth; i++)
		fmt[n++] = ')';
	ck_assert_int_eq(compile_n(fmt, n, NULL, 0, 8, 0, "t", "x"), TB_ERR_LIMIT);
	ck_assert_str_eq(run_env(NULL, "\1\0\0\0\0\0\0\0", 8), "[FAILED TO PARSE]");
	/* unary and cast chains, and a long flat chain of operators */
	n = (size_t)sprintf(fmt, "\"%%d\", ");
	for (size_t i = 0; i < 5000; i++)
		fmt[n++] = '~';
	fmt[n++] = '1';
	ck_assert_int_eq(compile_n(fmt, n, NULL, 0, 8, 0, "t", "x"), TB_ERR_LIMIT);
	free(fmt);
	/* just inside the limit works */
	ck_assert_int_eq(compile_ex("\"%d\", ((((((((((((((((((((1))))))))))))))))))))", NULL, 0, 8, 0,
				    "t", "x"), TB_OK);
}
END_TEST

START_TEST(r12_flat_chain_nodes)
{
	/* REC->a + REC->a + ... : a left-deep tree, refused by depth */
	tb_render_field f[] = { COMMON_FIELDS, fs("a", 8, 4, 1) };
	char fmt[8192];
	size_t n = (size_t)sprintf(fmt, "\"%%d\", REC->a");
	for (int i = 0; i < 500; i++)
		n += (size_t)sprintf(fmt + n, " + REC->a");
	ck_assert_int_eq(compile_ex(fmt, f, 5, 8, 0, "t", "x"), TB_ERR_LIMIT);
}
END_TEST

/* The other two compile limits: expression nodes (a balanced tree is
 * shallow, so only the node count stops it) and decoded string bytes. */
START_TEST(r12_node_and_text_limits)
{
	char *fmt = malloc(70000), *tree = malloc(70000), *next = malloc(70000);
	size_t n;
	int d;
	ck_assert_ptr_nonnull(fmt);
	ck_assert_ptr_nonnull(tree);
	ck_assert_ptr_nonnull(next);
	/* depth 9 (512 ones, 511 sums): 1,023 nodes fit; depth 10: 2,047 do
	 * not (limit 1,536) */
	strcpy(tree, "1");
	for (d = 1; d <= 10; d++) {
		snprintf(next, 70000, "(%s+%s)", tree, tree);
		strcpy(tree, next);
		n = (size_t)snprintf(fmt, 70000, "\"%%d\", %s", tree);
		if (d == 9) {
			ck_assert_int_eq(compile_n(fmt, n, NULL, 0, 8, 0, "t", "x"), TB_OK);
			ck_assert_str_eq(run_env(NULL, "\1\0\0\0\0\0\0\0", 8), "512");
		}
	}
	ck_assert_int_eq(compile_n(fmt, n, NULL, 0, 8, 0, "t", "x"), TB_ERR_LIMIT);
	ck_assert_str_eq(run_env(NULL, "\1\0\0\0\0\0\0\0", 8), "[FAILED TO PARSE]");
	/* string literals decode into 12,288 bytes at most */
	fmt[0] = '"';
	memset(fmt + 1, 'a', TB_RENDER_MAX_TEXT);
	fmt[TB_RENDER_MAX_TEXT + 1] = '"';
	ck_assert_int_eq(compile_n(fmt, TB_RENDER_MAX_TEXT + 2, NULL, 0, 8, 0, "t", "x"), TB_OK);
	ck_assert_int_eq(tb_render(prog_buf(), NULL, "\1\0\0\0\0\0\0\0", 8, tree, 70000, &last),
			 TB_OK);
	ck_assert_uint_eq(strlen(tree), TB_RENDER_MAX_TEXT);
	ck_assert_uint_eq(last.len, TB_RENDER_MAX_TEXT);
	memcpy(fmt + TB_RENDER_MAX_TEXT + 1, "\" \"b\"", 5);
	ck_assert_int_eq(compile_n(fmt, TB_RENDER_MAX_TEXT + 6, NULL, 0, 8, 0, "t", "x"),
			 TB_ERR_LIMIT);
	free(fmt);
	free(tree);
	free(next);
}
END_TEST

START_TEST(r13_width_capped)
{
	uint8_t rec[16];
	tb_render_field f[] = { COMMON_FIELDS, fs("w", 8, 4, 1), fa("s", 12, 4, 1, 1) };
	memset(rec, 0, sizeof(rec));
	put32(rec, 8, 0x10000000);
	memcpy(rec + 12, "ab", 3);
	R("\"%*s\", REC->w, REC->s", f, 6, rec, 16);
	ck_assert_uint_eq(last.len, TB_RENDER_MAX_WIDTH);
	ck_assert(last.notes & TB_RENDER_N_CLAMPED);
	ck_assert_str_eq(outbuf + TB_RENDER_MAX_WIDTH - 2, "ab");
	put32(rec, 8, (uint32_t)-0x10000000);
	R("\"%*s|\", REC->w, REC->s", f, 6, rec, 16);
	ck_assert_uint_eq(last.len, TB_RENDER_MAX_WIDTH + 1);
	ck_assert(strncmp(outbuf, "ab  ", 4) == 0);
	/* a literal width in the format is capped too */
	R("\"%999999999d\", 1", f, 6, rec, 16);
	ck_assert_uint_eq(last.len, TB_RENDER_MAX_WIDTH);
}
END_TEST

/* ---- spec 4.2: historic inputs that crashed or misbehaved ---- */

START_TEST(historic_inputs)
{
	static const struct {
		const char *fmt;
		tb_status st;
	} v[] = {
		{ "\"\", c * ((3 * t)[", TB_ERR_SYNTAX },          /* ff09953 */
		{ "\"%d\", (x)", TB_OK },                           /* d951e79: 0 */
		{ "\"%d\", (x) 1", TB_OK },                         /* an unknown typedef cast */
		{ "\"%d\", sizeof(int x)", TB_ERR_SYNTAX },         /* a4b1ba5 */
		{ "\"%d\", sizeof(REC->a + 1)", TB_OK },
		{ "\"abc\\", TB_ERR_SYNTAX },                       /* 8be5640 */
		{ "\"abc", TB_ERR_SYNTAX },
		{ "", TB_ERR_SYNTAX },                              /* 17aeb31 */
		{ "\"%d\", ", TB_ERR_SYNTAX },                      /* 5fe6b47 */
		{ "\"\", a ? b", TB_ERR_SYNTAX },                   /* c3dc220 */
		{ "\"%d\", REC->a ? 1 : ", TB_ERR_SYNTAX },
		{ "\"%d\", sizeof(struct page)", TB_ERR_UNSUPPORTED }, /* cc941ad */
		{ "\"%d\", ((1)", TB_ERR_SYNTAX },
		{ "\"%d\"", TB_ERR_SYNTAX },                        /* too few arguments */
		{ "\"%d %d\", 1", TB_ERR_SYNTAX },
		{ "\"%d\", 1, 2, 3", TB_OK },                       /* extra arguments */
		{ "\"%q\", 1", TB_ERR_UNSUPPORTED },
		{ "\"%", TB_ERR_SYNTAX },
		{ "\"%d\", jiffies_to_msecs(REC->a)", TB_ERR_UNSUPPORTED },
		{ "\"%d\", *REC->a", TB_ERR_UNSUPPORTED },
		{ "\"%d\", REC.a", TB_ERR_UNSUPPORTED },
		{ "\"%d\", 0x", TB_ERR_SYNTAX },
		{ "\"%d\", (0x) + 1", TB_ERR_SYNTAX },            /* "0x" then a non-digit */
		{ "\"%d\", 99999999999999999999999", TB_ERR_SYNTAX },
		{ "\"%c\", 'ab'", TB_ERR_SYNTAX },
		{ "\"%d\", __print_flags(1)", TB_ERR_SYNTAX },
		{ "\"%d\", __print_symbolic(1, {1 \"x\"})", TB_ERR_SYNTAX },
		{ "\"%d\", __get_str(a)", TB_ERR_VALUE },           /* not dynamic */
		{ "\"%d\", &1", TB_ERR_UNSUPPORTED },
		{ "\"\x01\"", TB_OK },
		{ "\"%d\", \x01", TB_ERR_SYNTAX },
	};
	tb_render_field f[] = { COMMON_FIELDS, fs("a", 8, 4, 1) };
	uint8_t rec[12] = { 0 };
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		tb_status st = compile_ex(v[i].fmt, f, 5, 8, 0, "t", "x");
		ck_assert_msg(st == v[i].st, "%s: %d, expected %d", v[i].fmt, st, v[i].st);
		run_env(NULL, rec, sizeof(rec)); /* renders either way */
	}
	/* func_repeats, nested ?: (1.8.6) */
	{
		tb_render_field g[] = { COMMON_FIELDS, fs("top_delta_ts", 8, 4, 0),
			fs("bottom_delta_ts", 12, 4, 0), fs("count", 16, 4, 0) };
		uint8_t r2[20] = { 0 };
		put32(r2, 8, 1);
		put32(r2, 12, 2);
		put32(r2, 16, 3);
		ck_assert_str_eq(R("\"delta=%llu %s\", (((u64)(REC)->top_delta_ts << 32) | (REC)->bottom_delta_ts), "
				   "REC->count > 2 ? REC->count > 5 ? \"many\" : \"some\" : \"few\"",
				   g, 7, r2, 20), "delta=4294967298 some");
	}
}
END_TEST

/* Every prefix of a real print fmt compiles or fails cleanly (the print
 * fmt ends the format text, in an exact-size block). */
START_TEST(every_format_prefix)
{
	uint8_t rec[64];
	size_t n = sched_setup(rec, 1), len = strlen(sched_switch_fmt);
	for (size_t k = 0; k <= len; k++) {
		tb_render_result res;
		(void)compile_n(sched_switch_fmt, k, sched_fields, 11, 8, 0, "sched", "sched_switch");
		ck_assert_int_eq(tb_render(prog_buf(), NULL, rec, n, outbuf, sizeof(outbuf), &res), TB_OK);
	}
}
END_TEST

/* ---- the fallback listing ---- */

START_TEST(fallback_listing)
{
	uint8_t rec[48];
	tb_render_field f[] = { COMMON_FIELDS, fs("s2", 8, 2, 1), ft("long", "l4", 12, 4, 1),
		ft("unsigned long", "ptr", 16, 8, 0), fa("comm", 24, 8, 1, 1), fa("raw", 32, 3, 1, 0),
		fd("name", 36, DL, 1, 1) };
	memset(rec, 0, sizeof(rec));
	put16(rec, 8, (uint16_t)-2);
	put32(rec, 12, (uint32_t)-1);
	put64(rec, 16, 0xffffffff81000000ull);
	memcpy(rec + 24, "sh", 3);
	memcpy(rec + 32, "\x01\xab\xff", 3);
	put32(rec, 36, 3u << 16 | 40);
	memcpy(rec + 40, "ok", 3);
	ck_assert_int_eq(compile_ex("\"%d\", nosuchfn(1)", f, 10, 8, 0, "t", "x"), TB_ERR_UNSUPPORTED);
	ck_assert_str_eq(run_env(NULL, rec, 43),
			 "[FAILED TO PARSE] s2=-2 l4=0xffffffff ptr=0xffffffff81000000 comm=sh "
			 "raw=ARRAY[01, ab, ff] name=ok");
}
END_TEST

/* ---- the kernel's own printers ---- */

START_TEST(kernel_printers)
{
	uint8_t rec[64];
	tb_render_field sc[] = { COMMON_FIELDS, fs("__syscall_nr", 8, 4, 1), fs("dfd", 16, 8, 0),
		fs("filename", 24, 8, 0), fs("flags", 32, 8, 0), fs("mode", 40, 8, 0) };
	tb_render_field sx[] = { COMMON_FIELDS, fs("__syscall_nr", 8, 4, 1), fs("ret", 16, 8, 1) };
	tb_render_field pr[] = { COMMON_FIELDS, fs("ip", 8, 8, 0), fd("buf", 16, REST, 1, 1) };
	tb_render_field bp[] = { COMMON_FIELDS, fs("ip", 8, 8, 0), fs("fmt", 16, 8, 0),
		fd("buf", 24, REST, 4, 0) };
	tb_render_field bs[] = { COMMON_FIELDS, fs("ip", 8, 8, 0), fs("str", 16, 8, 0) };
	memset(rec, 0, sizeof(rec));
	put32(rec, 8, 257);
	put64(rec, 16, 0xffffff9c);
	put64(rec, 24, 0x561ff43fb340);
	put64(rec, 32, 0x241);
	put64(rec, 40, 3);
	compile_ex("\"dfd: 0x%08lx, filename: 0x%08lx, flags: 0x%08lx, mode: 0x%08lx\", "
		   "((unsigned long)(REC->dfd)), ((unsigned long)(REC->filename)), "
		   "((unsigned long)(REC->flags)), ((unsigned long)(REC->mode))",
		   sc, 9, 8, TB_RENDER_KERNEL_STYLE, "syscalls", "sys_enter_openat");
	ck_assert_str_eq(run_env(NULL, rec, 48),
			 "sys_openat(dfd: 0xffffff9c, filename: 0x561ff43fb340, flags: 0x241, mode: 3)");
	compile_ex("\"dfd: 0x%08lx\", ((unsigned long)(REC->dfd))", sc, 9, 8, 0, "syscalls",
		   "sys_enter_openat");
	ck_assert_str_eq(run_env(NULL, rec, 48), "dfd: 0xffffff9c");
	put64(rec, 16, (uint64_t)-2);
	compile_ex("\"0x%lx\", REC->ret", sx, 6, 8, TB_RENDER_KERNEL_STYLE, "syscalls", "sys_exit_openat");
	ck_assert_str_eq(run_env(NULL, rec, 24), "sys_openat -> 0xfffffffffffffffe");
	/* ftrace print: the trailing newline of the buffer goes */
	memset(rec, 0, sizeof(rec));
	put64(rec, 8, 0xffffffff81000020ull);
	memcpy(rec + 16, "hello world\n", 13);
	compile_ex("\"%ps: %s\", (void *)REC->ip, REC->buf", pr, 6, 8, 0, "ftrace", "print");
	ck_assert_str_eq(run_env(&test_env, rec, 29), "do_work: hello world");
	/* bputs: the string from printk_formats */
	put64(rec, 16, 0xffffffff82000100ull);
	compile_ex("\"%ps: %s\", (void *)REC->ip, REC->str", bs, 6, 8, 0, "ftrace", "bputs");
	ck_assert_str_eq(run_env(&test_env, rec, 24), "do_work: constant string");
	/* bprint: "val=%d str=%s hex=%llx ch=%c w=%*d" from binary arguments */
	memset(rec, 0, sizeof(rec));
	put64(rec, 8, 0xffffffff81000020ull);
	put64(rec, 16, 0xffffffff82000000ull);
	put32(rec, 24, (uint32_t)-5);            /* %d */
	memcpy(rec + 28, "ab", 3);               /* %s, NUL-terminated */
	put64(rec, 32, 0x1234567890ull);         /* %llx, aligned to 4 -> 32 */
	rec[40] = 'Z';                           /* %c: one byte */
	put32(rec, 44, 4);                       /* '*' width, aligned to 4 */
	put32(rec, 48, 7);                       /* %d */
	compile_ex("\"%ps: %s\", (void *)REC->ip, REC->fmt", bp, 7, 8, 0, "ftrace", "bprint");
	ck_assert_str_eq(run_env(&test_env, rec, 52), "do_work: val=-5 str=ab hex=1234567890 ch=Z w=   7");
	/* truncated binary arguments: a marker, not a read past the record */
	ck_assert_str_eq(run_env(&test_env, rec, 46), "do_work: val=-5 str=ab hex=1234567890 ch=Z w=" TB_RENDER_M_OOR);
	ck_assert(last.notes & TB_RENDER_N_OOR);
	/* no printk formats: the address */
	ck_assert_str_eq(run_env(NULL, rec, 52), "0xffffffff81000020: 0xffffffff82000000");
}
END_TEST

START_TEST(bad_arguments)
{
	tb_format f;
	tb_error err;
	char buf[4];
	memset(&f, 0, sizeof(f));
	ck_assert_int_eq(tb_render_compile(NULL, &f, 8, 0, 0, &err), TB_ERR_ARG);
	ck_assert_int_eq(tb_render_compile(prog_buf(), NULL, 8, 0, 0, &err), TB_ERR_ARG);
	f.nfields = 3;
	ck_assert_int_eq(tb_render_compile(prog_buf(), &f, 8, 0, 0, &err), TB_ERR_ARG);
	ck_assert_int_eq(tb_render(NULL, NULL, NULL, 0, buf, sizeof(buf), NULL), TB_ERR_ARG);
	ck_assert_int_eq(buf[0], '\0');
	/* a format without a print fmt renders the field listing */
	f.nfields = 0;
	ck_assert_int_eq(tb_render_compile(prog_buf(), &f, 8, 0, 0, &err), TB_ERR_SYNTAX);
	ck_assert_str_eq(run_env(NULL, "", 0), "[FAILED TO PARSE]");
}
END_TEST


START_TEST(helpers_sockaddr_rel_and_widths)
{
	uint8_t rec[64];
	tb_render_field f[] = { COMMON_FIELDS, fd("sa", 8, DL, 1, 0),
		fd("ra", 12, RL, 2, 0), fs("l", 16, 4, 0) };
	memset(rec, 0, sizeof(rec));
	put32(rec, 8, 16u << 16 | 24);   /* sockaddr_in @24 */
	put16(rec, 24, 2);
	rec[26] = 0x00;
	rec[27] = 0x50;                  /* port 80 */
	memcpy(rec + 28, "\x7f\x00\x00\x01", 4);
	put32(rec, 12, 4u << 16 | 24);   /* rel: 12+4+24 = 40: two u16 */
	put16(rec, 40, 7);
	put16(rec, 42, 9);
	put32(rec, 16, 0xfffffffe);
	compile_ex("\"%pISpc %pISc %u %u %s %lx %p %ld\", __get_sockaddr(sa), __get_sockaddr(sa), "
		   "__get_rel_dynamic_array_len(ra), ((u16 *)__get_rel_dynamic_array(ra))[1], "
		   "__print_array(__get_rel_dynamic_array(ra), 2, 2), REC->l, REC->l, REC->l",
		   f, 7, 4, 0, "sock", "x");
	ck_assert(tb_render_ok(prog_buf()));
	/* long is 4 bytes: %lx and %p are 32-bit, %ld of 0xfffffffe is -2 */
	ck_assert_str_eq(run_env(NULL, rec, 44), "127.0.0.1:80 127.0.0.1 4 9 {0x7,0x9} fffffffe fffffffe -2");
}
END_TEST

START_TEST(big_endian_records)
{
	uint8_t rec[24];
	tb_render_field f[] = { COMMON_FIELDS, fs("a", 8, 4, 1), fs("b", 12, 2, 0),
		fd("s", 16, DL, 1, 1) };
	memset(rec, 0, sizeof(rec));
	rec[8] = 0xff; rec[9] = 0xff; rec[10] = 0xff; rec[11] = 0xfe;   /* -2 */
	rec[12] = 0x12; rec[13] = 0x34;
	rec[16] = 0x00; rec[17] = 0x03; rec[18] = 0x00; rec[19] = 0x14; /* len 3 @20 */
	memcpy(rec + 20, "be", 3);
	big_endian = 1;
	ck_assert_int_eq(compile_ex("\"%d %x %s\", REC->a, REC->b, __get_str(s)", f, 7, 8, 0, "t", "x"), TB_OK);
	big_endian = 0;
	ck_assert_str_eq(run_env(NULL, rec, 24), "-2 1234 be");
}
END_TEST

/* ---- every real 6.18 format ---- */

/* The print fmts a capture cannot render: kernel functions (HZ,
 * mc_event's table), and C statement expressions in the format. */
static const char *const refused[] = {
	"jbd2/jbd2_run_stats", "jbd2/jbd2_checkpoint_stats", "ras/mc_event",
	"kvmmmu/kvm_mmu_unsync_page", "kvmmmu/kvm_mmu_sync_page",
	"kvmmmu/kvm_mmu_prepare_zap_page", "kvmmmu/kvm_mmu_get_page",
	"dma/dma_map_sg",
};

START_TEST(real_formats_compile)
{
	tb_tarball tar;
	size_t n = 0, failed = 0;
	uint8_t rec[4096];
	ck_assert_int_eq(tb_tarball_load(tb_test_path("tests/data/formats-6.18.tar.gz"), &tar), 0);
	for (size_t i = 0; i < tar.count; i++) {
		char sys[64], ev[128], full[200];
		const tb_tar_entry *e = &tar.entries[i];
		tb_format_error fe;
		tb_error err;
		tb_render_result res;
		tb_status st;
		int expect_fail = 0;
		if (!tb_tar_is_format(e, sys, sizeof(sys), ev, sizeof(ev)))
			continue;
		ck_assert_int_eq(tb_format_parse(e->data, e->len, fmt_fields, 64, 8, &fmt_parsed, &fe), TB_OK);
		fmt_parsed.system = sys;
		fmt_parsed.system_len = strlen(sys);
		st = tb_render_compile(prog_buf(), &fmt_parsed, 8, 0,
				       TB_RENDER_KNOWN_ENUMS | TB_RENDER_KERNEL_STYLE, &err);
		snprintf(full, sizeof(full), "%s/%s", sys, ev);
		for (size_t k = 0; k < sizeof(refused) / sizeof(refused[0]); k++)
			expect_fail |= !strcmp(full, refused[k]);
		ck_assert_msg((st == TB_OK) == !expect_fail, "%s: %s (%s)", full,
			      tb_strerror(st), err.what);
		failed += st != TB_OK;
		n++;
		/* a record of the format's size with a pattern in it */
		for (size_t k = 0; k < sizeof(rec); k++)
			rec[k] = (uint8_t)(k * 7);
		ck_assert_int_eq(tb_render(prog_buf(), NULL, rec, fmt_parsed.min_size + 32,
					   outbuf, sizeof(outbuf), &res), TB_OK);
	}
	ck_assert_uint_eq(n, 2323);
	ck_assert_uint_eq(failed, sizeof(refused) / sizeof(refused[0]));
	tb_tarball_free(&tar);
}
END_TEST

Suite *tb_suite_render(void)
{
	Suite *s = suite_create("render");
	TCase *t = tcase_create("core");
	tcase_add_test(t, sched_switch_states);
	tcase_add_test(t, truncation_every_capacity);
	tcase_add_test(t, contract_every_capacity_same_text);
	tcase_add_test(t, truncation_every_record_prefix);
	tcase_add_test(t, expression_operators);
	tcase_add_test(t, printf_conversions);
	tcase_add_test(t, pointer_extensions);
	tcase_add_test(t, helpers_dynamic);
	tcase_add_test(t, helpers_flags_symbolic);
	tcase_add_test(t, helpers_sockaddr_rel_and_widths);
	tcase_add_test(t, big_endian_records);
	tcase_add_test(t, unresolved_enums);
	tcase_add_test(t, perf_style);
	tcase_add_test(t, utest_dynamic_strings);
	tcase_add_test(t, planned_runs_every_capacity);
	tcase_add_test(t, planned_integer_conversions);
	tcase_add_test(t, planned_tables_match_expression);
	tcase_add_test(t, planned_text_every_length);
	tcase_add_test(t, utest_cpumask);
	tcase_add_test(t, utest_sizeof);
	tcase_add_test(t, r01_r03_division_by_zero);
	tcase_add_test(t, r04_missing_field_falls_back);
	tcase_add_test(t, r05_r06_lengths_from_the_record);
	tcase_add_test(t, r07_index_overflow);
	tcase_add_test(t, r08_r09_r10_r16_dynamic_bounds);
	tcase_add_test(t, r11_field_past_record);
	tcase_add_test(t, r12_deep_nesting);
	tcase_add_test(t, r12_flat_chain_nodes);
	tcase_add_test(t, r12_node_and_text_limits);
	tcase_add_test(t, r13_width_capped);
	tcase_add_test(t, historic_inputs);
	tcase_add_test(t, every_format_prefix);
	tcase_add_test(t, fallback_listing);
	tcase_add_test(t, kernel_printers);
	tcase_add_test(t, bad_arguments);
	tcase_add_test(t, real_formats_compile);
	suite_add_tcase(s, t);
	return s;
}
