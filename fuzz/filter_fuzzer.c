/*
 * Filter text, event lists, CPU lists and regexes from the input.
 * Input: MODE TEXT.  MODE % 4:
 *   0  a -F filter (MODE bits 2..4 pick the flags), compiled, checked
 *      against two real formats and evaluated on four records;
 *   1  an event list, matched against real event names;
 *   2  a CPU list;
 *   3  a regex built from TEXT's bytes as tokens of a small alphabet
 *      (MODE bits: 4 BRE, 8 case-folded, 16 a leading '^', 32 a final '$';
 *      a byte with bit 7 set picks an interval form or a lone brace),
 *      compared with glibc's regcomp and regexec on short texts (the
 *      differential): both compile it or neither does (our limits and what
 *      we do not support aside), and where both do they agree.
 * Invariants: results are 0 or 1, error offsets lie inside the text,
 * a failed compile leaves nothing that matches.
 */
#include <regex.h>
#include <string.h>

#include "fuzz.h"
#include "tracebound/filter.h"
#include "tracebound/session.h"

#define COMMON                                                                   \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"   \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"   \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

static const char sw_text[] =
	"name: sched_switch\nID: 372\nformat:\n" COMMON
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
	"\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
	"\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n\nprint fmt: \"\"\n";
static const char exec_text[] =
	"name: sched_process_exec\nID: 365\nformat:\n" COMMON
	"\tfield:__data_loc char[] filename;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:pid_t pid;\toffset:12;\tsize:4;\tsigned:1;\n"
	"\tfield:u32 flags[2];\toffset:16;\tsize:8;\tsigned:0;\n\nprint fmt: \"\"\n";

/* A sched_switch (kworker/0:1 -> bash) and a sched_process_exec
 * ("/bin/cat"), little-endian. */
static const uint8_t sw_rec[64] = {
	0x74, 0x01, 0, 0, 7, 0, 0, 0, 'k', 'w', 'o', 'r', 'k', 'e', 'r', '/', '0', ':', '1', 0,
	0, 0, 0, 0, 7, 0, 0, 0, 0xfb, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	0xff, 0xff, 'b', 'a', 's', 'h', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 42, 0, 0, 0, 120,
	0, 0, 0 };
static const uint8_t exec_rec[40] = {
	0x6d, 0x01, 0, 0, 9, 0, 0, 0, 24, 0, 9, 0, 99, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0,
	'/', 'b', 'i', 'n', '/', 'c', 'a', 't', 0, 0, 0, 0, 0, 0, 0, 0 };

static tb_format sw, ex;
static tb_field fields[64];
static tb_filter flt;
static tb_select sel;
static tb_regex re;
static int ready;

static void setup(void)
{
	tb_format_error fe;
	TB_FUZZ_CHECK(tb_format_parse(sw_text, sizeof sw_text - 1, fields, 32, 8, &sw, &fe) ==
		      TB_OK);
	TB_FUZZ_CHECK(tb_format_parse(exec_text, sizeof exec_text - 1, fields + 32, 32, 8, &ex,
				      &fe) == TB_OK);
	sw.system = ex.system = "sched";
	sw.system_len = ex.system_len = 5;
	ready = 1;
}

static void check_error(tb_status st, const tb_error *e, size_t len)
{
	if (st == TB_OK)
		return;
	TB_FUZZ_CHECK(tb_is_error(st));
	TB_FUZZ_CHECK(e->status == st && e->what != NULL);
	TB_FUZZ_CHECK(e->offset <= len);
}

static void fuzz_filter(unsigned flags, const char *text, size_t len)
{
	tb_filter_record r[4];
	const tb_filter *list[1] = { &flt };
	uint64_t found[2] = { 0, 0 };
	tb_error e;
	size_t i;
	tb_status st = tb_filter_compile(&flt, text, len, flags, &e);
	check_error(st, &e, len);
	if (memchr(text, 0, len)) /* filter.h: NUL bytes are errors */
		TB_FUZZ_CHECK(st != TB_OK);
	memset(r, 0, sizeof r);
	r[0].format = &sw;
	r[0].data = sw_rec;
	r[0].len = sizeof sw_rec;
	r[0].cpu = 1;
	r[0].comm = "kworker/0:1";
	r[0].comm_len = 11;
	r[1] = r[0];
	r[1].len = 30; /* too short for most fields */
	r[2].format = &ex;
	r[2].data = exec_rec;
	r[2].len = sizeof exec_rec;
	r[2].comm = "<idle>";
	r[2].comm_len = 6;
	r[3].format = NULL; /* an id without a format */
	r[3].data = sw_rec;
	r[3].len = 8;
	for (i = 0; i < 4; i++) {
		int m = -1, show = -1;
		tb_status es = tb_filter_eval(&flt, &r[i], &m, &e);
		if (st != TB_OK) {
			TB_FUZZ_CHECK(es == TB_ERR_ARG && m == 0);
			continue;
		}
		TB_FUZZ_CHECK(m == 0 || m == 1);
		/* only the short record can fail a read */
		TB_FUZZ_CHECK(es == TB_OK || (i == 1 && tb_is_error(es)));
		es = tb_filter_select(list, 1, &r[i], &show, &e);
		TB_FUZZ_CHECK(show == 0 || show == 1);
		TB_FUZZ_CHECK(!show || !r[i].format || (flags & TB_FILTER_NEGATE) || m);
		{
			/* the same with the EVENTS part decided once (report -F) */
			const tb_format *rf = r[i].format;
			int show2 = -1;
			uint64_t applies = rf && tb_filter_applies(&flt, rf->system, rf->system_len,
								    rf->name, rf->name_len);
			tb_status es2 = tb_filter_select_applying(list, 1, applies, &r[i], &show2, &e);
			TB_FUZZ_CHECK(es2 == es && show2 == show);
		}
	}
	if (st == TB_OK) {
		size_t k, off, nl;
		const char *name;
		tb_status cs = tb_filter_check(&flt, &sw, found, &e);
		TB_FUZZ_CHECK(cs == TB_OK || cs == TB_ERR_VALUE);
		check_error(cs, &e, len);
		cs = tb_filter_check(&flt, &ex, found, &e);
		TB_FUZZ_CHECK(cs == TB_OK || cs == TB_ERR_VALUE);
		check_error(cs, &e, len);
		for (k = 0; tb_filter_field_ref(&flt, k, &name, &nl, &off); k++)
			TB_FUZZ_CHECK(off < len && nl <= len && name >= text && name + nl <= text + len);
		TB_FUZZ_CHECK(k <= TB_FILTER_MAX_NODES);
		(void)tb_filter_applies(&flt, "sched", 5, "sched_switch", 12);
	} else {
		TB_FUZZ_CHECK(!tb_filter_applies(&flt, "sched", 5, "sched_switch", 12));
	}
}

static void fuzz_select(const char *text, size_t len)
{
	static const char *const names[][2] = { { "sched", "sched_switch" },
						{ "irq", "softirq_entry" },
						{ "syscalls", "sys_enter_openat" },
						{ "ftrace", "print" } };
	tb_error e;
	uint64_t hits = 0;
	size_t i;
	tb_status st = tb_select_parse(&sel, text, len, &e);
	check_error(st, &e, len);
	if (st != TB_OK)
		return;
	TB_FUZZ_CHECK(sel.n >= 1 && sel.n <= TB_SELECT_MAX_PATTERNS);
	for (i = 0; i < 4; i++) {
		uint64_t h = 0;
		int m = tb_select_match(&sel, names[i][0], strlen(names[i][0]), names[i][1],
					strlen(names[i][1]), &h);
		TB_FUZZ_CHECK(m == (h != 0));
		TB_FUZZ_CHECK(m == tb_select_match(&sel, names[i][0], strlen(names[i][0]),
						   names[i][1], strlen(names[i][1]), NULL));
		hits |= h;
	}
	TB_FUZZ_CHECK(sel.n == 64 || (hits >> sel.n) == 0);
	for (i = 0; i < sel.n; i++) {
		size_t n;
		const char *t = tb_select_item_text(&sel, i, &n);
		TB_FUZZ_CHECK(t >= text && n >= 1 && t + n <= text + len);
	}
}

static void fuzz_cpus(const char *text, size_t len)
{
	uint64_t mask[4];
	tb_error e;
	tb_status st = tb_cpu_list_parse(text, len, 200, mask, 4, &e);
	check_error(st, &e, len);
	if (st == TB_OK)
		TB_FUZZ_CHECK((mask[3] >> 8) == 0); /* nothing at or over 200 */
	/* the same typed text as a time (report --from / --to) */
	{
		uint64_t a = 0, b = 0;
		tb_status s1 = tb_session_time_parse(text, len, 0, &a, &e);
		tb_status s2;
		check_error(s1, &e, len);
		s2 = tb_session_time_parse(text, len, 1, &b, &e);
		check_error(s2, &e, len);
		/* a start never passes its end; both forms parse alike, but the
		 * end of a printed microsecond can run past 2^64 */
		TB_FUZZ_CHECK(s1 == s2 || (s1 == TB_OK && s2 == TB_ERR_LIMIT));
		if (s1 == TB_OK && s2 == TB_OK)
			TB_FUZZ_CHECK(a <= b && b - a <= 999u);
	}
}

/* A regex from tokens; both engines answer on every short text. */
static void fuzz_regex(unsigned mode, const uint8_t *in, size_t len)
{
	/* '^' and '$' only at the ends: glibc answers wrongly for some
	 * anchors inside groups (it says ^(a$a|b)+$ matches "baa"). */
	static const char *const ere[] = { "a", "b", "A", ".", "[ab]", "[^a]", "(", ")", "|",
					   "*", "+", "?", "ab", "[[:upper:]]", "{1,2}", "\\." };
	static const char *const bre[] = { "a", "b", "A", ".", "[ab]", "[^a]", "\\(", "\\)",
					   "\\|", "*", "\\+", "\\?", "ab", "[[:upper:]]",
					   "\\{1,2\\}", "+" };
	static const char *const ere_iv[] = { "{,2}", "{1,}", "{", "}", "{,}", ")", "\\}", "{0}" };
	static const char *const bre_iv[] = { "\\{,2\\}", "\\{1,\\}", "\\{", "\\}", "\\{,\\}",
					      "{", "}", "\\{0\\}" };
	int is_bre = (mode >> 2) & 1, icase = (mode >> 3) & 1, rep = 0;
	const char *const *atoms = is_bre ? bre : ere;
	char pat[12 * 11 + 3], text[8];
	size_t n = 0, i, intervals = 0;
	unsigned t;
	regex_t g;
	tb_status st;
	tb_error e;
	/* the bytes themselves as a pattern: errors inside it, NUL an error */
	st = tb_regex_compile(&re, (const char *)in, len, (mode >> 2) & 3u, &e);
	check_error(st, &e, len);
	if (memchr(in, 0, len))
		TB_FUZZ_CHECK(st != TB_OK);
	if (mode & 0x10u)
		pat[n++] = '^';
	for (i = 0; i < len && i < 12; i++) {
		unsigned q = in[i] & 15u;
		int iv = (in[i] & 0x80u) != 0;
		const char *a = iv ? (is_bre ? bre_iv : ere_iv)[in[i] & 7u] : atoms[q];
		/* stacked repetitions (a*+?); the interval forms count as both */
		int r = iv || q == 9 || q == 10 || q == 11 || q == 14;
		intervals += iv || q == 14u;
		intervals += r && rep ? 3 : 0;
		rep = r;
		memcpy(pat + n, a, strlen(a));
		n += strlen(a);
	}
	if (mode & 0x20u)
		pat[n++] = '$';
	pat[n] = 0;
	st = tb_regex_compile(&re, pat, n, (is_bre ? TB_REGEX_BRE : 0) |
					   (icase ? TB_REGEX_ICASE : 0), NULL);
	if (st != TB_OK)
		TB_FUZZ_CHECK(tb_regex_match(&re, "a", 1) == 0);
	/* glibc's regcomp takes exponential time on nested intervals and on
	 * stacked repetitions (ours stays linear): the reference gets at most
	 * two intervals and no stacking */
	if (intervals > 2 || st == TB_ERR_LIMIT || st == TB_ERR_UNSUPPORTED)
		return;
	if (regcomp(&g, pat, (is_bre ? 0 : REG_EXTENDED) | REG_NOSUB | (icase ? REG_ICASE : 0))) {
		TB_FUZZ_CHECK(st != TB_OK); /* trace-cmd would refuse it: so do we */
		return;
	}
	if (st != TB_OK) {
		regfree(&g);
		TB_FUZZ_CHECK(0); /* trace-cmd would take it: so must we */
	}
	for (t = 0; t < 243; t++) { /* every text of up to 5 of "abA" (3^5) */
		unsigned v = t, k, tl = 1 + t % 5;
		for (k = 0; k < tl; k++, v /= 3)
			text[k] = "abA"[v % 3];
		text[tl] = 0;
		TB_FUZZ_CHECK(tb_regex_match(&re, text, tl) == (regexec(&g, text, 0, NULL, 0) == 0));
	}
	regfree(&g);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned mode;
	const char *text;
	if (!ready)
		setup();
	if (size == 0)
		return 0;
	mode = data[0];
	text = (const char *)(data + 1);
	size--;
	switch (mode % 4u) {
	case 0:
		fuzz_filter((mode >> 2) & 7u, text, size);
		break;
	case 1:
		fuzz_select(text, size);
		break;
	case 2:
		fuzz_cpus(text, size);
		break;
	default:
		fuzz_regex(mode, data + 1, size);
		break;
	}
	return 0;
}
