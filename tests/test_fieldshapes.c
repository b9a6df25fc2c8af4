/*
 * Every field shape event formats hold, with edge values, through
 * `report --raw` and `report`, line by line against `trace-cmd report -N
 * -R` and `-N` (issue 38: an all-zero __u8[4] printed as text where
 * trace-cmd prints ARRAY[00, 00, 00, 00]).
 *
 * The files are generated (tests/datwriter.h, tests/pagewriter.h): one
 * system of three events whose fields are every shape (char, u8 and s8
 * arrays of several lengths, arrays of wider types, signed and unsigned
 * scalars of 1, 2, 4 and 8 bytes, long and pointers of the file's long
 * size, __data_loc and __rel_loc strings and arrays), in two files
 * (little-endian v7 with 8-byte longs, big-endian v6 with 4-byte longs).
 * Their records take edge values: all zero, all 0xff, bytes that are not
 * printable, printable text ending in a NUL, text with no NUL, a NUL in
 * the middle, empty dynamic arrays.
 *
 *  - "raws": its print fmt names no scalar, so -R prints every field raw;
 *    each field takes every pattern, in an order that differs per field,
 *    so the listing's memory (a char array once printed as ARRAY[] stays
 *    ARRAY[] for the rest of the file, as in libtraceevent) is crossed
 *    both ways;
 *  - "texts": patterns that keep a char array text, so every text form is
 *    seen (before any ARRAY[] would hide it);
 *  - "convs": scalars printed by the print fmt's conversions (-R binds
 *    them), and %s / __print_array of the arrays for plain report.
 *
 * A digest of trace-cmd's outputs is kept in tests/golden/fieldshapes-*.fnv
 * (TB_FIELDSHAPES_GOLDEN=1 with trace-cmd writes them): with trace-cmd
 * installed the test compares line by line and checks trace-cmd's digest,
 * without it our digest.  TB_FIELDSHAPES_KEEP=DIR keeps the files.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "datwriter.h"
#include "pagewriter.h"
#include "testutil.h"

Suite *tb_suite_fieldshapes(void);

enum { K_NUM, K_ARR, K_LOC, K_REL };

typedef struct shape {
	const char *decl;  /* type and name, as the format writes them */
	unsigned size;     /* bytes (0: the long size); a loc word is 4 */
	int sign;
	int kind;
} shape;

static const shape shapes[] = {
	{ "char c1[1]", 1, 1, K_ARR },
	{ "char c4[4]", 4, 1, K_ARR },
	{ "char c16[16]", 16, 1, K_ARR },
	{ "__u8 u4[4]", 4, 0, K_ARR },
	{ "u8 u6[6]", 6, 0, K_ARR },
	{ "__s8 s3[3]", 3, 1, K_ARR },
	{ "unsigned char uc5[5]", 5, 0, K_ARR },
	{ "signed char sc2[2]", 2, 1, K_ARR },
	{ "int ia[2]", 8, 1, K_ARR },
	{ "u16 ha[3]", 6, 0, K_ARR },
	{ "u8 b1", 1, 0, K_NUM },
	{ "s8 sb1", 1, 1, K_NUM },
	{ "unsigned short us", 2, 0, K_NUM },
	{ "short ss", 2, 1, K_NUM },
	{ "unsigned int ui", 4, 0, K_NUM },
	{ "int si", 4, 1, K_NUM },
	{ "pid_t pid", 4, 1, K_NUM },
	{ "u64 q", 8, 0, K_NUM },
	{ "s64 sq", 8, 1, K_NUM },
	{ "unsigned long long ull", 8, 0, K_NUM },
	{ "long long ll", 8, 1, K_NUM },
	{ "long l", 0, 1, K_NUM },
	{ "unsigned long ul", 0, 0, K_NUM },
	{ "void * ptr", 0, 0, K_NUM },
	{ "const char * cp", 0, 0, K_NUM },
	{ "__data_loc char[] dstr", 4, 0, K_LOC },
	{ "__data_loc u8[] darr", 4, 0, K_LOC },
	{ "__data_loc int[] dint", 4, 1, K_LOC },
	{ "__rel_loc char[] rstr", 4, 0, K_REL },
	{ "__rel_loc u8[] rarr", 4, 0, K_REL },
	{ "__data_loc char[] dstr2", 4, 0, K_LOC },
};
#define NSHAPES (sizeof(shapes) / sizeof(shapes[0]))

/* Byte patterns of n bytes; the first NTEXT keep a char array text. */
enum {
	P_ZERO, P_TEXT_NUL, P_TEXT_FULL, P_NUL_MID, P_SPACES, P_NUL_THEN_BAD,
	NTEXT,
	P_FF = NTEXT, P_LOW, P_HIGH, P_DEL, P_BAD_LAST,
	NPAT
};

static void fill(uint8_t *d, size_t n, int pat)
{
	static const char sp[] = "\t\v\f\r xy";
	for (size_t i = 0; i < n; i++) {
		uint8_t b = 0;
		switch (pat) {
		case P_ZERO: b = 0; break;
		case P_TEXT_NUL: b = i + 1 == n ? 0 : (uint8_t)('a' + i % 26); break;
		case P_TEXT_FULL: b = (uint8_t)('A' + i % 26); break;
		case P_NUL_MID: b = i == n / 2 ? 0 : (uint8_t)('m' + i % 8); break;
		case P_SPACES: b = (uint8_t)sp[i % 8]; break;
		case P_NUL_THEN_BAD: b = i == 0 ? 0 : (uint8_t)(0x80 + i); break;
		case P_FF: b = 0xff; break;
		case P_LOW: b = (uint8_t)(1 + i % 31); break;
		case P_HIGH: b = i % 2 ? 'h' : 0xe9; break;
		case P_DEL: b = i + 1 == n ? 0 : 0x7f; break;
		default: b = i + 1 == n ? 0x1b : 'z'; break;
		}
		d[i] = b;
	}
}

/* Dynamic arrays: every pattern at lengths 0 (empty) to 6. */
static size_t dyn_len(unsigned r, size_t k)
{
	return (r + 3 * k) % 7;
}

/* Scalar values: 0, all ones, the sign bit alone, the largest positive,
 * 1, a mixed one. */
static uint64_t scalar(unsigned v, unsigned size)
{
	uint64_t all = size == 8 ? UINT64_MAX : (UINT64_C(1) << (8 * size)) - 1;
	uint64_t sign = UINT64_C(1) << (8 * size - 1);
	switch (v % 6) {
	case 0: return 0;
	case 1: return all;
	case 2: return sign;
	case 3: return sign - 1;
	case 4: return 1;
	default: return UINT64_C(0x8123456789abcdef) & all;
	}
}

typedef struct gen {
	int be;
	unsigned long_size;
	const char *instance;  /* a second buffer with the same records */
	uint32_t off[NSHAPES], size[NSHAPES], fixed;
} gen;

static void layout(gen *g)
{
	uint32_t off = 8;
	for (size_t k = 0; k < NSHAPES; k++) {
		g->size[k] = shapes[k].size ? shapes[k].size : g->long_size;
		g->off[k] = off;
		off += g->size[k];
	}
	g->fixed = off;
}

/* One event's format text, with its print fmt. */
static void format_text(const gen *g, char *out, size_t cap, const char *name, unsigned id,
			const char *print_fmt)
{
	size_t n = (size_t)snprintf(out, cap,
		"name: %s\nID: %u\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
		"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n", name, id);
	for (size_t k = 0; k < NSHAPES && n < cap; k++)
		n += (size_t)snprintf(out + n, cap - n, "\tfield:%s;\toffset:%u;\tsize:%u;\tsigned:%d;\n",
				      shapes[k].decl, g->off[k], g->size[k], shapes[k].sign);
	ck_assert_uint_lt(n, cap);
	n += (size_t)snprintf(out + n, cap - n, "\nprint fmt: %s\n", print_fmt);
	ck_assert_uint_lt(n, cap);
}

static void put_n(const gen *g, uint8_t *p, uint64_t v, unsigned n)
{
	dw_store(p, v, n, g->be);
}

/* Record r of event id: every field from pattern pick(r, k). */
static size_t record(const gen *g, uint8_t *rec, size_t cap, unsigned id, unsigned r,
		     int texts_only)
{
	size_t dyn = g->fixed;
	memset(rec, 0, cap);
	put_n(g, rec, id, 2);
	put_n(g, rec + 4, 42, 4);
	for (size_t k = 0; k < NSHAPES; k++) {
		const shape *s = &shapes[k];
		/* texts: the text patterns in turn; raws: every pattern, each
		 * field its own order (a step prime to NPAT) */
		int pat = texts_only ? (int)((r + k) % NTEXT)
				     : (int)((r * (1 + k % 5) + k) % NPAT);
		uint8_t *at = rec + g->off[k];
		if (s->kind == K_NUM) {
			put_n(g, at, scalar(r + (unsigned)k, g->size[k]), g->size[k]);
		} else if (s->kind == K_ARR) {
			fill(at, g->size[k], pat);
		} else {
			size_t n = dyn_len(r, k);
			uint32_t o = (uint32_t)(s->kind == K_REL ? dyn - (g->off[k] + 4) : dyn);
			ck_assert_uint_lt(dyn + n + 4, cap);
			fill(rec + dyn, n, pat);
			put_n(g, at, (uint64_t)n << 16 | o, 4);
			dyn += n;
		}
	}
	/* a NUL after everything: text with no NUL ends inside the record */
	return dyn + 1;
}

/* Records of the three events into pages of one CPU; returns the bytes. */
static size_t write_pages(const gen *g, uint8_t *pages, size_t cap, unsigned nrec)
{
	static const struct { unsigned id; int texts; } evs[] = { { 301, 0 }, { 302, 1 },
								   { 303, 1 } };
	uint8_t rec[512];
	size_t used = 0;
	tbt_pw w;
	uint64_t ts = 1000000;
	tbt_pw_init(&w, pages, 4096, g->be, g->long_size, ts);
	for (unsigned r = 0; r < nrec; r++) {
		for (size_t e = 0; e < 3; e++) {
			size_t n = record(g, rec, sizeof(rec), evs[e].id, r, evs[e].texts);
			if (w.pos + 8 + n + 4 > w.size) {
				tbt_pw_finish(&w, 0, 0, 0);
				used += 4096;
				ck_assert_uint_le(used + 4096, cap);
				tbt_pw_init(&w, pages + used, 4096, g->be, g->long_size, ts);
			}
			tbt_pw_data(&w, 1000, rec, n, 0);
			ts += 1000;
		}
	}
	tbt_pw_finish(&w, 0, 0, 0);
	return used + 4096;
}

/* %s of every char and u8 array and of __get_str / __get_rel_str: the
 * print fmt of raws and texts (no scalar named: -R prints them raw).
 * __print_array is left out: report prints it as the kernel does
 * ({0x1,0x2}), trace-cmd in decimal. */
#define ARRAY_FMT "\"c1=%s c4=%s c16=%s u4=%s u6=%s s3=%s uc5=%s sc2=%s dstr=%s rstr=%s " \
	"dstr2=%s\", REC->c1, REC->c4, REC->c16, REC->u4, REC->u6, REC->s3, " \
	"REC->uc5, REC->sc2, __get_str(dstr), __get_rel_str(rstr), __get_str(dstr2)"
/* Every scalar through a conversion -R binds to it.  report prints these
 * as the kernel does (a signed char's %d negative, %p without 0x, %#x
 * of 0 as 0x0), so plain report's lines of convs are not compared. */
#define CONV_FMT "\"b1=%u sb1=%d us=%hu ss=%hd ui=%x si=%i pid=%d q=%llu sq=%lld " \
	"ull=%#llx ll=%lld l=%ld ul=0x%lx ptr=%p cp=%px\", REC->b1, REC->sb1, REC->us, " \
	"REC->ss, REC->ui, REC->si, REC->pid, REC->q, REC->sq, REC->ull, REC->ll, REC->l, " \
	"REC->ul, REC->ptr, REC->cp"

static size_t make_file(gen *g, unsigned version, uint8_t *out, size_t cap)
{
	static char f1[8192], f2[8192], f3[8192];
	static uint8_t pages[64 * 4096];
	static const char hp4[] =
		"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
		"\tfield: local_t commit;\toffset:8;\tsize:4;\tsigned:1;\n"
		"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
		"\tfield: char data;\toffset:12;\tsize:4084;\tsigned:0;\n";
	dw_spec s;
	size_t n;
	layout(g);
	format_text(g, f1, sizeof(f1), "raws", 301, ARRAY_FMT);
	format_text(g, f2, sizeof(f2), "texts", 302, ARRAY_FMT);
	format_text(g, f3, sizeof(f3), "convs", 303, CONV_FMT);
	dw_default(&s, version);
	s.big_endian = g->be;
	s.long_size = g->long_size;
	if (g->long_size == 4)
		s.header_page = hp4;
	s.system = "shapes";
	s.event_format = f1;
	s.more_formats[0] = f2;
	s.more_formats[1] = f3;
	s.ftrace_format = NULL;
	s.ncpus = 1;
	s.instance = g->instance;
	s.cpu_data[0] = pages;
	s.cpu_size[0] = write_pages(g, pages, sizeof(pages), 3 * NPAT * 7);
	n = dw_write(&s, out, cap, NULL);
	ck_assert_uint_gt(n, 0);
	return n;
}

static int have_trace_cmd(void)
{
	return system("command -v trace-cmd >/dev/null 2>&1") == 0;
}

/* Does the line [s, s+n) hold w? */
static int line_has(const char *s, size_t n, const char *w)
{
	size_t k = strlen(w);
	for (size_t i = 0; k <= n && i <= n - k; i++)
		if (!memcmp(s + i, w, k))
			return 1;
	return 0;
}

/* FNV-1a over the lines of text that do not hold skip (each with its
 * newline): what tests/golden keeps of trace-cmd's output. */
static uint64_t digest(const char *text, const char *skip)
{
	uint64_t h = UINT64_C(0xcbf29ce484222325);
	while (*text) {
		const char *e = strchr(text, '\n');
		size_t n = e ? (size_t)(e - text) + 1 : strlen(text);
		if (!skip || !line_has(text, n, skip))
			for (size_t i = 0; i < n; i++)
				h = (h ^ (uint8_t)text[i]) * UINT64_C(0x100000001b3);
		text += n;
	}
	return h;
}

/* Lines of a and b compared one by one (but pairs where trace-cmd's line
 * holds skip, when given): how many differ (the first few shown). */
static size_t diff_lines(const char *what, const char *want, const char *got, const char *skip,
			 size_t *lines)
{
	size_t bad = 0;
	*lines = 0;
	while (*want || *got) {
		const char *we = strchr(want, '\n'), *ge = strchr(got, '\n');
		size_t wn = we ? (size_t)(we - want) : strlen(want);
		size_t gn = ge ? (size_t)(ge - got) : strlen(got);
		if (!skip || !line_has(want, wn, skip)) {
			++*lines;
			if ((wn != gn || memcmp(want, got, wn)) && bad++ < 12)
				fprintf(stderr, "%s line %zu:\n  trace-cmd:  %.*s\n  tracebound: %.*s\n",
					what, *lines, (int)wn, want, (int)gn, got);
		}
		want += wn + (we != NULL);
		got += gn + (ge != NULL);
	}
	return bad;
}

/* One file through one pair of commands: ours against trace-cmd line by
 * line, and trace-cmd's digest against the kept one (the generator still
 * makes what trace-cmd printed); without trace-cmd, our digest against
 * the kept one. */
static void compare(const char *path, const char *golden, const char *ours_opt,
		    const char *theirs_opt, const char *skip)
{
	char cmd[4096], kept[32] = "", now[32], line[40];
	tb_test_run ours, theirs;
	size_t lines = 0, bad;
	FILE *g;
	snprintf(cmd, sizeof(cmd), "report %s '%s'", ours_opt, path);
	tb_test_cli(cmd, &ours);
	ck_assert_int_eq(ours.status, 0);
	if ((g = fopen(tb_test_path(golden), "r")) != NULL) {
		ck_assert_int_eq(fscanf(g, "%16s", kept), 1);
		fclose(g);
	}
	if (!have_trace_cmd()) {
		printf("fieldshapes: no trace-cmd, %s against %s\n", ours_opt, golden);
		snprintf(now, sizeof(now), "%016llx", (unsigned long long)digest(ours.out, skip));
		ck_assert_str_eq(now, kept);
		tb_test_run_free(&ours);
		return;
	}
	snprintf(cmd, sizeof(cmd), "trace-cmd report %s '%s'", theirs_opt, path);
	tb_test_sh(cmd, &theirs);
	ck_assert_int_eq(theirs.status, 0);
	snprintf(now, sizeof(now), "%016llx", (unsigned long long)digest(theirs.out, skip));
	if (getenv("TB_FIELDSHAPES_GOLDEN")) {
		snprintf(line, sizeof(line), "%s\n", now);
		tb_test_write_file(tb_test_path(golden), line, strlen(line));
	} else {
		ck_assert_msg(!strcmp(now, kept), "%s: trace-cmd prints other lines now", golden);
	}
	bad = diff_lines(golden, theirs.out, ours.out, skip, &lines);
	printf("fieldshapes: %s: %zu lines compared, %zu differ\n", golden, lines, bad);
	ck_assert_msg(bad == 0, "%s: %zu of %zu lines differ from trace-cmd", golden, bad, lines);
	ck_assert_uint_gt(lines, (skip ? 2 : 3) * NPAT * 7);
	tb_test_run_free(&theirs);
	tb_test_run_free(&ours);
}

/* The instance's first record of texts (its second copy of the pages)
 * made to print u4 as ARRAY[]: libtraceevent's memory is the file's, so
 * the top buffer's later texts print u4 as ARRAY[] too. */
static void instance_flips_u4(const gen *g, uint8_t *file, size_t n)
{
	uint8_t head[8], rec[8];
	size_t at = 0, k;
	dw_store(head, 1000000, 8, g->be);
	for (k = 0; k + 4096 <= n; k += 4096)
		if (!memcmp(file + k, head, 8))
			at = k; /* the last page that starts the data */
	ck_assert_uint_gt(at, 0);
	dw_store(rec, 302, 2, g->be);
	rec[2] = rec[3] = 0;
	dw_store(rec + 4, 42, 4, g->be);
	for (k = at + 16; k + 8 <= at + 4096 && memcmp(file + k, rec, 8); k++)
		;
	ck_assert_uint_lt(k + 8, at + 4096);
	memset(file + k + g->off[3], 1, 4);
}

static void check_file(const char *tag, gen *g, unsigned version, int raw_only)
{
	static uint8_t file[1 << 20];
	char path[256], golden[256];
	const char *keep = getenv("TB_FIELDSHAPES_KEEP");
	size_t n = make_file(g, version, file, sizeof(file));
	if (g->instance)
		instance_flips_u4(g, file, n);
	if (keep)
		snprintf(path, sizeof(path), "%s/fieldshapes-%s.dat", keep, tag);
	else
		snprintf(path, sizeof(path), "/tmp/tb-fieldshapes-%s-%d.dat", tag, (int)getpid());
	tb_test_write_file(path, file, n);
	snprintf(golden, sizeof(golden), "tests/golden/fieldshapes-%s.raw.fnv", tag);
	compare(path, golden, "--raw", "-N -R", NULL);
	if (!raw_only) {
		snprintf(golden, sizeof(golden), "tests/golden/fieldshapes-%s.fnv", tag);
		compare(path, golden, "", "-N", ": convs: ");
	}
	if (!keep)
		remove(path);
}

START_TEST(little_endian_v7_long8)
{
	gen g = { 0, 8, NULL, { 0 }, { 0 }, 0 };
	check_file("le8", &g, 7, 0);
}
END_TEST

START_TEST(big_endian_v6_long4)
{
	gen g = { 1, 4, NULL, { 0 }, { 0 }, 0 };
	check_file("be4", &g, 6, 0);
}
END_TEST

/* One memory for the whole file: an instance's ARRAY[] is the top
 * buffer's too. */
START_TEST(instance_shares_the_memory)
{
	gen g = { 0, 8, "inst", { 0 }, { 0 }, 0 };
	check_file("inst", &g, 7, 1);
}
END_TEST

Suite *tb_suite_fieldshapes(void)
{
	Suite *s = suite_create("fieldshapes");
	TCase *t = tcase_create("differential");
	tcase_set_timeout(t, 120);
	tcase_add_test(t, little_endian_v7_long8);
	tcase_add_test(t, big_endian_v6_long4);
	tcase_add_test(t, instance_shares_the_memory);
	suite_add_tcase(s, t);
	return s;
}
