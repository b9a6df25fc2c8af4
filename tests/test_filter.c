/*
 * Event lists, CPU lists, -F filters and the regex engine.
 *
 * Unit tests per operator, per error (with its byte position) and per
 * limit; the regex engine against glibc's regexec on random patterns
 * (ERE and BRE, case-folded, as trace-cmd calls it); and the filters on
 * the real capture: the records our filters keep, printed by `report
 * --raw`, must be byte-identical to `trace-cmd report -N -R -F ...`.
 */
#include <check.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "tracebound/filter.h"
#include "tracebound/tracedat.h"
#include "zstd_dl.h"

Suite *tb_suite_filter(void);

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* ====================================================================
 * regex
 * ==================================================================== */

static tb_regex g_re;

static int re_match(const char *pat, unsigned flags, const char *text)
{
	tb_error e;
	tb_status st = tb_regex_compile(&g_re, pat, strlen(pat), flags, &e);
	ck_assert_msg(st == TB_OK, "'%s': %s at %llu", pat, e.what, (unsigned long long)e.offset);
	return tb_regex_match(&g_re, text, strlen(text));
}

#define ERE 0u
#define BRE TB_REGEX_BRE
#define IC TB_REGEX_ICASE
#define ANC TB_REGEX_ANCHORED

static const struct re_case {
	const char *pat;
	unsigned flags;
	const char *text;
	int want;
} re_cases[] = {
	{ "abc", ERE, "xxabcxx", 1 },
	{ "abc", ERE, "ab", 0 },
	{ "", ERE, "", 1 },
	{ "", ERE, "x", 1 },
	{ "a.c", ERE, "abc", 1 },
	{ "a.c", ERE, "ac", 0 },
	{ "^ab", ERE, "abx", 1 },
	{ "^ab", ERE, "xab", 0 },
	{ "ab$", ERE, "xab", 1 },
	{ "ab$", ERE, "abx", 0 },
	{ "^$", ERE, "", 1 },
	{ "^$", ERE, "a", 0 },
	{ "ab*c", ERE, "ac", 1 },
	{ "ab*c", ERE, "abbbc", 1 },
	{ "ab+c", ERE, "ac", 0 },
	{ "ab+c", ERE, "abbc", 1 },
	{ "ab?c", ERE, "abbc", 0 },
	{ "ab?c", ERE, "ac", 1 },
	{ "a|b", ERE, "b", 1 },
	{ "kworker|swapper", ERE, "swapper/0", 1 },
	{ "^(k|s)w", ERE, "swapper", 1 },
	{ "^(k|s)w", ERE, "xswapper", 0 },
	{ "(ab)+$", ERE, "xababab", 1 },
	{ "(ab)+$", ERE, "ababa", 0 },
	{ "a(|b)c", ERE, "ac", 1 },
	{ "a(|b)c", ERE, "abc", 1 },
	{ "()", ERE, "", 1 },
	{ "[abc]", ERE, "xxb", 1 },
	{ "[abc]", ERE, "xyz", 0 },
	{ "[^abc]", ERE, "abc", 0 },
	{ "[^abc]", ERE, "abcd", 1 },
	{ "[a-c]+x", ERE, "bcax", 1 },
	{ "[]a]", ERE, "]", 1 },
	{ "[^]a]", ERE, "]", 0 },
	{ "[a-]", ERE, "-", 1 },
	{ "[[:digit:]]$", ERE, "kworker/1", 1 },
	{ "^[[:alpha:]_]+$", ERE, "rcu_preempt", 1 },
	{ "^[[:alpha:]_]+$", ERE, "rcu/0", 0 },
	{ "[[:space:]]", ERE, "a b", 1 },
	{ "[[:upper:]]", ERE, "abc", 0 },
	{ "[[:xdigit:]]+", ERE, "zzf", 1 },
	{ "[[:punct:]]", ERE, "ab/", 1 },
	{ "\\w+", ERE, "--a--", 1 },
	{ "^\\W", ERE, "a", 0 },
	{ "\\s", ERE, "a\tb", 1 },
	{ "^\\S+$", ERE, "a b", 0 },
	{ "a\\.b", ERE, "a.b", 1 },
	{ "a\\.b", ERE, "axb", 0 },
	{ "a\\*", ERE, "a*", 1 },
	{ "a{2}", ERE, "ba", 0 },
	{ "a{2}", ERE, "baa", 1 },
	{ "^a{2,3}$", ERE, "aaaa", 0 },
	{ "^a{2,3}$", ERE, "aaa", 1 },
	{ "^a{2,}$", ERE, "aaaaaaa", 1 },
	{ "^a{2,}$", ERE, "a", 0 },
	{ "^a{0}b$", ERE, "b", 1 },
	{ "^(ab){2}$", ERE, "abab", 1 },
	{ "^(a|b){1,2}c$", ERE, "bac", 1 },
	{ "x}", ERE, "x}", 1 },
	{ "a{,1}b", ERE, "b", 1 },
	{ "ab)", ERE, "ab)", 1 },
	{ "a\\}", BRE, "a}", 1 },
	/* case folding */
	{ "LS", IC, "ls", 1 },
	{ "ls", IC, "LS", 1 },
	{ "[a-c]", IC, "B", 1 },
	{ "[^a-c]", IC, "B", 0 },
	{ "ls", ERE, "LS", 0 },
	/* anchored (the event-name patterns) */
	{ "sched_.*", ANC | BRE | IC, "sched_switch", 1 },
	{ "sched_sw", ANC | BRE | IC, "sched_switch", 0 },
	{ "sched", ANC | BRE | IC, "SCHED", 1 },
	{ "a|b", ANC, "b", 1 },
	{ "a|b", ANC, "ab", 0 },
	/* GNU basic syntax, as trace-cmd's regcomp(3) reads it */
	{ "kworker|swapper", BRE, "swapper", 0 },
	{ "kworker|swapper", BRE, "kworker|swapper", 1 },
	{ "kworker\\|swapper", BRE, "swapper", 1 },
	{ "^k.+r", BRE, "kworker", 0 },
	{ "^k.\\+r", BRE, "kworker", 1 },
	{ "^\\(k\\|s\\)w", BRE, "swapper", 1 },
	{ "(k)", BRE, "(k)", 1 },
	{ "a?", BRE, "a", 0 },
	{ "a\\?b", BRE, "b", 1 },
	{ "*a", BRE, "*a", 1 },
	{ "*a", BRE, "a", 0 },
	{ "^*a", BRE, "*a", 1 },
	{ "\\(*a\\)", BRE, "*a", 1 },
	{ "a^", BRE, "a^", 1 },
	{ "a$b", BRE, "a$b", 1 },
	{ "a\\{2\\}", BRE, "aa", 1 },
	{ "a\\{2\\}", BRE, "a", 0 },
	{ "a{2}", BRE, "a{2}", 1 },
	{ "^\\(ab\\)*$", BRE, "abab", 1 },
	{ "^\\(a\\|b\\)$", BRE, "b", 1 },
	{ "a\\|^b", BRE, "b", 1 },
	{ "a$\\|b", BRE, "xa", 1 },
	/* a NUL inside the text is a character like any other */
	{ "^a.b$", ERE, "", 0 },
};

START_TEST(regex_cases)
{
	size_t i;
	for (i = 0; i < ARRAY_LEN(re_cases); i++) {
		const struct re_case *c = &re_cases[i];
		ck_assert_msg(re_match(c->pat, c->flags, c->text) == c->want,
			      "'%s' (flags %u) on '%s': want %d", c->pat, c->flags, c->text,
			      c->want);
	}
	/* text with a NUL byte inside, and lengths not from strlen */
	ck_assert_int_eq(tb_regex_compile(&g_re, "^a.b$", 5, 0, NULL), TB_OK);
	ck_assert_int_eq(tb_regex_match(&g_re, "a\0b", 3), 1);
	ck_assert_int_eq(tb_regex_match(&g_re, "a\0bc", 3), 1);
	ck_assert_int_eq(tb_regex_match(&g_re, "a\0bc", 4), 0);
	ck_assert_int_eq(tb_regex_match(NULL, "a", 1), 0);
}
END_TEST

static const struct re_err {
	const char *pat;
	unsigned flags;
	tb_status st;
	uint64_t off;
} re_errs[] = {
	{ "(ab", ERE, TB_ERR_SYNTAX, 0 },
	{ "a(b(c)", ERE, TB_ERR_SYNTAX, 1 },
	{ "a{", ERE, TB_ERR_SYNTAX, 1 },
	{ "\\(ab", BRE, TB_ERR_SYNTAX, 0 },
	{ "ab\\)", BRE, TB_ERR_SYNTAX, 2 },
	{ "[ab", ERE, TB_ERR_SYNTAX, 0 },
	{ "x[]", ERE, TB_ERR_SYNTAX, 1 },
	{ "*a", ERE, TB_ERR_SYNTAX, 0 },
	{ "a|*", ERE, TB_ERR_SYNTAX, 2 },
	{ "(+a)", ERE, TB_ERR_SYNTAX, 1 },
	{ "ab\\", ERE, TB_ERR_SYNTAX, 2 },
	{ "x[z-a]", ERE, TB_ERR_SYNTAX, 2 },
	{ "a{3,2}", ERE, TB_ERR_SYNTAX, 1 },
	{ "a{2", ERE, TB_ERR_SYNTAX, 1 },
	{ "a\\{2", BRE, TB_ERR_SYNTAX, 1 },
	{ "a{}", ERE, TB_ERR_SYNTAX, 1 },
	{ "a\\{1\\}\\{2\\}", BRE, TB_ERR_SYNTAX, 6 },
	{ "a\\{x\\}", BRE, TB_ERR_SYNTAX, 1 },
	{ "[[:alpha:", ERE, TB_ERR_SYNTAX, 1 },
	{ "(a)\\1", ERE, TB_ERR_UNSUPPORTED, 3 },
	{ "\\bword", ERE, TB_ERR_UNSUPPORTED, 0 },
	{ "x\\<", ERE, TB_ERR_UNSUPPORTED, 1 },
	{ "[[=a=]]", ERE, TB_ERR_UNSUPPORTED, 1 },
	{ "[[.a.]]", ERE, TB_ERR_UNSUPPORTED, 1 },
	{ "[[:bogus:]]", ERE, TB_ERR_UNSUPPORTED, 1 },
	{ "a{256}", ERE, TB_ERR_LIMIT, 1 },
	{ "a{1,256}", ERE, TB_ERR_LIMIT, 1 },
	{ "(a{100}){100}", ERE, TB_ERR_LIMIT, 8 },
};

START_TEST(regex_errors)
{
	size_t i;
	for (i = 0; i < ARRAY_LEN(re_errs); i++) {
		const struct re_err *c = &re_errs[i];
		tb_error e;
		tb_status st = tb_regex_compile(&g_re, c->pat, strlen(c->pat), c->flags, &e);
		ck_assert_msg(st == c->st && e.status == c->st && e.offset == c->off,
			      "'%s': got %s at %llu (%s), want %s at %llu", c->pat, tb_strerror(st),
			      (unsigned long long)e.offset, e.what, tb_strerror(c->st),
			      (unsigned long long)c->off);
		ck_assert_ptr_nonnull(e.what);
		/* a failed compile matches nothing */
		ck_assert_int_eq(tb_regex_match(&g_re, "", 0), 0);
	}
	ck_assert_int_eq(tb_regex_compile(&g_re, "a\0b", 3, 0, NULL), TB_ERR_SYNTAX);
	ck_assert_int_eq(tb_regex_compile(NULL, "a", 1, 0, NULL), TB_ERR_ARG);
	ck_assert_int_eq(tb_regex_compile(&g_re, NULL, 1, 0, NULL), TB_ERR_ARG);
}
END_TEST

START_TEST(regex_limits)
{
	char pat[TB_REGEX_MAX_LEN + 64];
	tb_error e;
	size_t i;
	/* TB_REGEX_MAX_LEN: the longest pattern compiles, one more byte fails */
	memset(pat, 'a', sizeof pat);
	ck_assert_int_eq(tb_regex_compile(&g_re, pat, TB_REGEX_MAX_LEN - 1, 0, &e), TB_OK);
	ck_assert_int_eq(tb_regex_compile(&g_re, pat, TB_REGEX_MAX_LEN + 1, 0, &e), TB_ERR_LIMIT);
	ck_assert_uint_eq(e.offset, TB_REGEX_MAX_LEN);
	/* TB_REGEX_MAX_STATES: 255 chars + MATCH fit; 256 chars do not */
	ck_assert_int_eq(tb_regex_compile(&g_re, pat, TB_REGEX_MAX_STATES - 1, 0, &e), TB_OK);
	ck_assert_int_eq(tb_regex_match(&g_re, pat, TB_REGEX_MAX_STATES - 1), 1);
	ck_assert_int_eq(tb_regex_match(&g_re, pat, TB_REGEX_MAX_STATES - 2), 0);
	ck_assert_int_eq(tb_regex_compile(&g_re, pat, TB_REGEX_MAX_STATES, 0, &e), TB_ERR_LIMIT);
	/* TB_REGEX_MAX_DEPTH: 16 nested groups compile, 17 do not */
	for (i = 0; i < TB_REGEX_MAX_DEPTH + 1; i++) {
		pat[i] = '(';
		pat[2 * (TB_REGEX_MAX_DEPTH + 1) - 1 - i] = ')';
	}
	ck_assert_int_eq(tb_regex_compile(&g_re, pat + 1, 2 * TB_REGEX_MAX_DEPTH, 0, &e), TB_OK);
	ck_assert_int_eq(tb_regex_compile(&g_re, pat, 2 * (TB_REGEX_MAX_DEPTH + 1), 0, &e),
			 TB_ERR_LIMIT);
	ck_assert_uint_eq(e.offset, TB_REGEX_MAX_DEPTH);
	/* TB_REGEX_MAX_CLASSES */
	for (i = 0; i < TB_REGEX_MAX_CLASSES + 1; i++)
		memcpy(pat + 3 * i, "[a]", 3);
	ck_assert_int_eq(tb_regex_compile(&g_re, pat, 3 * TB_REGEX_MAX_CLASSES, 0, &e), TB_OK);
	ck_assert_int_eq(tb_regex_compile(&g_re, pat, 3 * (TB_REGEX_MAX_CLASSES + 1), 0, &e),
			 TB_ERR_LIMIT);
	ck_assert_uint_eq(e.offset, 3 * TB_REGEX_MAX_CLASSES + 1);
	/* TB_REGEX_MAX_REPEAT itself is allowed */
	ck_assert_int_eq(tb_regex_compile(&g_re, "a{255}", 6, 0, &e), TB_ERR_LIMIT); /* states */
	ck_assert_int_eq(tb_regex_compile(&g_re, "a{0,255}", 8, 0, &e), TB_ERR_LIMIT);
	ck_assert_int_eq(tb_regex_compile(&g_re, "a{100}", 6, 0, &e), TB_OK);
	memset(pat, 'a', 100);
	ck_assert_int_eq(tb_regex_match(&g_re, pat, 100), 1);
	ck_assert_int_eq(tb_regex_match(&g_re, pat, 99), 0);
}
END_TEST

/* The pathological patterns of backtracking engines run in linear time
 * here: (a*)*b on 4 KiB of 'a' answers (no timing: it just finishes). */
START_TEST(regex_no_blowup)
{
	static char text[4096];
	memset(text, 'a', sizeof text);
	ck_assert_int_eq(re_match("(a*)*b", ERE, ""), 0);
	ck_assert_int_eq(tb_regex_compile(&g_re, "(a*)*b", 6, 0, NULL), TB_OK);
	ck_assert_int_eq(tb_regex_match(&g_re, text, sizeof text), 0);
	ck_assert_int_eq(tb_regex_compile(&g_re, "^(a|aa)+$", 9, 0, NULL), TB_OK);
	ck_assert_int_eq(tb_regex_match(&g_re, text, sizeof text), 1);
	ck_assert_int_eq(tb_regex_compile(&g_re, "(a?){30}a{30}", 13, 0, NULL), TB_OK);
	ck_assert_int_eq(tb_regex_match(&g_re, text, 30), 1);
	ck_assert_int_eq(tb_regex_match(&g_re, text, 29), 0);
}
END_TEST

/*
 * Differential: random patterns over a small alphabet, compiled by both
 * engines; wherever glibc accepts the pattern too, both must agree on
 * every short text.  Patterns glibc rejects (or we reject) are counted,
 * and most of them must be accepted by both.
 */
static uint32_t rng_state = 12345;
static uint32_t rnd(uint32_t n)
{
	rng_state = rng_state * 1103515245u + 12345u;
	return (rng_state >> 8) % n;
}

static void random_pattern(char *p, size_t cap, int bre)
{
	static const char *const ere_atoms[] = { "a", "b", "A", ".", "[ab]", "[^a]", "(", ")",
						 "|", "*", "+", "?", "^", "$", "{1,2}", "\\." };
	static const char *const bre_atoms[] = { "a", "b", "A", ".", "[ab]", "[^a]", "\\(",
						 "\\)", "\\|", "*", "\\+", "\\?", "^", "$",
						 "\\{1,2\\}", "+" };
	size_t n = 1 + rnd(7), i, len = 0;
	const char *const *atoms = bre ? bre_atoms : ere_atoms;
	p[0] = 0;
	for (i = 0; i < n; i++) {
		const char *a = atoms[rnd(16)];
		if (len + strlen(a) + 1 >= cap)
			break;
		strcpy(p + len, a);
		len += strlen(a);
	}
}

START_TEST(regex_vs_glibc)
{
	char pat[64], text[8];
	unsigned both = 0, checks = 0, iter;
	for (iter = 0; iter < 4000; iter++) {
		int bre = (int)(iter & 1), icase = (int)((iter >> 1) & 1);
		regex_t g;
		tb_status st;
		unsigned t;
		random_pattern(pat, sizeof pat, bre);
		if (regcomp(&g, pat, (bre ? 0 : REG_EXTENDED) | REG_NOSUB | (icase ? REG_ICASE : 0)))
			continue;
		st = tb_regex_compile(&g_re, pat, strlen(pat),
				      (bre ? TB_REGEX_BRE : 0) | (icase ? TB_REGEX_ICASE : 0), NULL);
		if (st != TB_OK) {
			regfree(&g);
			continue;
		}
		both++;
		for (t = 0; t < 40; t++) {
			size_t tl = rnd(6), k;
			for (k = 0; k < tl; k++)
				text[k] = "abA.+"[rnd(5)];
			text[tl] = 0;
			ck_assert_msg(tb_regex_match(&g_re, text, tl) ==
					      (regexec(&g, text, 0, NULL, 0) == 0),
				      "%s '%s' %s on '%s': glibc says %d", bre ? "BRE" : "ERE", pat,
				      icase ? "icase" : "", text, regexec(&g, text, 0, NULL, 0) == 0);
			checks++;
		}
		regfree(&g);
	}
	ck_assert_uint_gt(both, 1500);
	ck_assert_uint_gt(checks, 60000);
}
END_TEST

/* filter.h: NUL bytes in a pattern are errors, inside a bracket
 * expression too (a range, a class, its first byte). */
START_TEST(regex_nul_in_brackets)
{
	static const struct { const char *p; size_t len; uint64_t off; } pats[] = {
		{ "a[\0]b", 5, 2 }, { "[\0-a]", 5, 1 }, { "[]\0]", 4, 2 },
		{ "[^\0]", 4, 2 }, { "[a\0]", 4, 2 },
	};
	size_t i;
	unsigned bre;
	for (bre = 0; bre <= TB_REGEX_BRE; bre += TB_REGEX_BRE)
		for (i = 0; i < ARRAY_LEN(pats); i++) {
			tb_error e;
			ck_assert_int_eq(tb_regex_compile(&g_re, pats[i].p, pats[i].len, bre, &e),
					 TB_ERR_SYNTAX);
			ck_assert_uint_eq(e.offset, pats[i].off);
			ck_assert_str_eq(e.what, "NUL in a regex");
		}
	/* and the events part of a filter, whose patterns are such regexes */
	{
		tb_filter f;
		tb_error e;
		ck_assert_int_eq(tb_filter_compile(&f, "x[\0]", 5, 0, &e), TB_ERR_SYNTAX);
		ck_assert_uint_eq(e.offset, 2);
		ck_assert_int_eq(tb_filter_compile(&f, "x[\0]:COMM == \"a\"", 17, 0, &e),
				 TB_ERR_SYNTAX);
	}
}
END_TEST

/*
 * Intervals (and what glibc reads around them) as glibc's regcomp reads
 * them, which is what trace-cmd's -F filters get: each pattern compiles
 * in both engines or in neither, and where it compiles both agree on every
 * text.  First the forms that once differed ({,n} is {0,n}; ERE '{' always
 * opens an interval; BRE '\}' alone is a '}'; BRE '*' or '\{' right after
 * a repetition is an error; ERE ')' alone is a ')'), then every pattern of
 * up to 4 bytes over an alphabet of the operators.  tracebound's own
 * limits (TB_ERR_LIMIT) and what it does not support are left out.
 */
static const char *const iv_texts[] = { "", "a", "aa", "aaa", "aaaa", "b", "ab", "ba",
					"{", "}", "a{", "a}", "{1}", "a{1}", ",", "1", "*",
					"a*", "^", "$", "a^", "$a", "\\", "{}", "a,1", ")", "a)" };

static unsigned iv_compare(const char *pat, size_t len, int bre)
{
	regex_t g;
	tb_error e;
	int grc = regcomp(&g, pat, (bre ? 0 : REG_EXTENDED) | REG_NOSUB);
	tb_status st = tb_regex_compile(&g_re, pat, len, bre ? TB_REGEX_BRE : 0, &e);
	size_t t;
	if (st == TB_ERR_LIMIT || st == TB_ERR_UNSUPPORTED) {
		if (!grc)
			regfree(&g);
		return 0;
	}
	ck_assert_msg((grc == 0) == (st == TB_OK), "%s '%s': glibc %s, tracebound %s (%s)",
		      bre ? "BRE" : "ERE", pat, grc ? "rejects" : "accepts", tb_strerror(st),
		      st ? e.what : "");
	if (grc)
		return 0;
	for (t = 0; t < ARRAY_LEN(iv_texts); t++)
		ck_assert_msg(tb_regex_match(&g_re, iv_texts[t], strlen(iv_texts[t])) ==
				      (regexec(&g, iv_texts[t], 0, NULL, 0) == 0),
			      "%s '%s' on '%s': glibc says %d", bre ? "BRE" : "ERE", pat,
			      iv_texts[t], regexec(&g, iv_texts[t], 0, NULL, 0) == 0);
	regfree(&g);
	return 1;
}

START_TEST(regex_intervals_as_glibc)
{
	static const char *const ere[] = {
		"{", "a{", "a{,", "a{,1}", "a{1,}", "a{1", "a{a}", "a{,}", "a{}", "{1}",
		"a{1}{2}", "a{2}{3}", "a{1,}b{,1}", "x{,2}y", "a{,0}b", "a{0}", "a{0,}",
		"a{1,2", "a{1,2}}", "a{ 1}", "a{1 }", "a{1,2,3}", "^{1}", "(a){,2}", "a|{,2}",
		"a*{2}", "a{2}*", "a+{2}", "a{2}?", "a{2,1}", "a{01}", "}", "a}", "(){2}",
		"a{1,a}", "a{,b}", "{,1}", "ab{0,}c", "^*", "a^*", "$*", "a$?", "(^){2}",
		"a|^{1}", "a{\\,}", "a{1\\,2}", "x(a|){,2}y", "a{,1}{,1}{,1}", "ab)", ")a{,2}",
	};
	static const char *const bre[] = {
		"\\{", "a\\{", "a\\{,", "a\\{,1\\}", "a\\{1,\\}", "a\\{1", "a\\{a\\}",
		"a\\{,\\}", "a\\{\\}", "\\{1\\}", "a\\{1\\}\\{2\\}", "a\\{2\\}\\{3\\}",
		"a\\{1,\\}b\\{,1\\}", "x\\{,2\\}y", "a\\{,0\\}b", "a\\{1,2\\}\\}", "a\\{ 1\\}",
		"^\\{1\\}", "^*", "\\(a\\)\\{,2\\}", "a*\\{2\\}", "a\\{2\\}*", "a\\+*", "a\\?*",
		"a**", "**", "*\\{2\\}", "a\\{1\\}\\?", "\\}", "a\\}", "{", "a{1}", "a{,1}",
		"a\\{1}", "\\(\\)\\{2\\}", "x\\|\\{1\\}", "\\(\\{1\\}\\)", "a\\{\\,1\\}",
	};
	static const char alpha[] = "a{},1*^\\()|$";
	char p[5];
	unsigned both = 0;
	size_t i, len, n = sizeof(alpha) - 1;
	for (i = 0; i < ARRAY_LEN(ere); i++)
		both += iv_compare(ere[i], strlen(ere[i]), 0);
	for (i = 0; i < ARRAY_LEN(bre); i++)
		both += iv_compare(bre[i], strlen(bre[i]), 1);
	ck_assert_uint_ge(both, 40);
	/* every pattern of 1 to 4 bytes of alpha, in both syntaxes */
	for (len = 1; len <= 4; len++) {
		size_t total = 1, idx, k;
		for (k = 0; k < len; k++)
			total *= n;
		for (idx = 0; idx < total; idx++) {
			size_t x = idx;
			for (k = 0; k < len; k++, x /= n)
				p[k] = alpha[x % n];
			p[len] = 0;
			both += iv_compare(p, len, 0) + iv_compare(p, len, 1);
		}
	}
	ck_assert_uint_gt(both, 5000);
}
END_TEST

/* ====================================================================
 * globs and event lists
 * ==================================================================== */

static int glob(const char *p, const char *t)
{
	return tb_glob_match(p, strlen(p), t, strlen(t));
}

START_TEST(glob_cases)
{
	ck_assert(glob("sched_*", "sched_switch"));
	ck_assert(glob("sched_*", "sched_"));
	ck_assert(!glob("sched_*", "sched"));
	ck_assert(glob("*", ""));
	ck_assert(glob("*wake*", "sched_wakeup_new"));
	ck_assert(glob("sched_w?king", "sched_waking"));
	ck_assert(!glob("sched_w?king", "sched_wking"));
	ck_assert(glob("irq_handler_[ex]*", "irq_handler_exit"));
	ck_assert(!glob("irq_handler_[!ex]*", "irq_handler_exit"));
	ck_assert(glob("irq_handler_[^x]*", "irq_handler_entry"));
	ck_assert(glob("sys_[a-c]*", "sys_close"));
	ck_assert(!glob("sys_[a-c]*", "sys_dup"));
	ck_assert(glob("a\\*b", "a*b"));
	ck_assert(!glob("a\\*b", "axb"));
	ck_assert(glob("*a*a*a*b", "aaaaaaaaab"));
	ck_assert(!glob("*a*a*a*b", "aaaaaaaaaa"));
	ck_assert(!glob("abc", "abcd"));
	ck_assert(glob("[]]", "]"));
	ck_assert(glob("[a-]", "-"));
}
END_TEST

static tb_select g_sel;

static uint64_t offer(const char *sys, const char *name, int *m)
{
	uint64_t hits = 0;
	*m = tb_select_match(&g_sel, sys, strlen(sys), name, strlen(name), &hits);
	return hits;
}

START_TEST(select_lists)
{
	const char *list = "sched_switch, irq:softirq_entry,sched ,sched:*,sched_*,nosuch";
	tb_error e;
	int m;
	size_t n;
	const char *t;
	ck_assert_int_eq(tb_select_parse(&g_sel, list, strlen(list), &e), TB_OK);
	ck_assert_uint_eq(g_sel.n, 6);
	ck_assert_uint_eq(offer("sched", "sched_switch", &m), 0x1du);
	ck_assert_int_eq(m, 1);
	ck_assert_uint_eq(offer("irq", "softirq_entry", &m), 0x2u);
	ck_assert_uint_eq(offer("irq", "softirq_exit", &m), 0);
	ck_assert_int_eq(m, 0);
	/* a bare name selects a system ... */
	ck_assert_uint_eq(offer("sched", "sched_waking", &m), 0x1cu);
	/* ... or an event: "sched_*" matches the name in another system */
	ck_assert_uint_eq(offer("other", "sched_x", &m), 0x10u);
	/* sched:* is no match for another system's event */
	ck_assert_uint_eq(offer("other", "x", &m), 0);
	t = tb_select_item_text(&g_sel, 5, &n);
	ck_assert_uint_eq(n, 6);
	ck_assert(!memcmp(t, "nosuch", 6));
	t = tb_select_item_text(&g_sel, 2, &n);
	ck_assert(n == 5 && !memcmp(t, "sched", 5));
	ck_assert_ptr_null(tb_select_item_text(&g_sel, 6, &n));
	/* without hits the answer is the same */
	ck_assert_int_eq(tb_select_match(&g_sel, "irq", 3, "softirq_entry", 13, NULL), 1);
	ck_assert_int_eq(tb_select_match(&g_sel, NULL, 0, "sched_x", 7, NULL), 1);
	/* names are case-sensitive, as tracefs names */
	ck_assert_uint_eq(offer("SCHED", "SCHED_SWITCH", &m), 0);
	/* ':' escaped is part of the name */
	ck_assert_int_eq(tb_select_parse(&g_sel, "a\\:b", 4, &e), TB_OK);
	ck_assert_uint_eq(g_sel.item[0].has_colon, 0);
}
END_TEST

static const struct sel_err {
	const char *list;
	tb_status st;
	uint64_t off;
} sel_errs[] = {
	{ "", TB_ERR_SYNTAX, 0 },
	{ "a,,b", TB_ERR_SYNTAX, 2 },
	{ "a, ,b", TB_ERR_SYNTAX, 3 },
	{ "a,", TB_ERR_SYNTAX, 2 },
	{ "sched:", TB_ERR_SYNTAX, 5 },
	{ ":x", TB_ERR_SYNTAX, 0 },
	{ "a:b:c", TB_ERR_SYNTAX, 3 },
	{ "x,sched_[ab", TB_ERR_SYNTAX, 8 },
	{ "ab\\", TB_ERR_SYNTAX, 2 },
};

START_TEST(select_errors)
{
	char big[TB_SELECT_MAX_LEN + 2];
	size_t i;
	tb_error e;
	for (i = 0; i < ARRAY_LEN(sel_errs); i++) {
		tb_status st = tb_select_parse(&g_sel, sel_errs[i].list, strlen(sel_errs[i].list),
					       &e);
		ck_assert_msg(st == sel_errs[i].st && e.offset == sel_errs[i].off,
			      "'%s': %s at %llu (%s)", sel_errs[i].list, tb_strerror(st),
			      (unsigned long long)e.offset, e.what);
	}
	/* TB_SELECT_MAX_PATTERNS items, then one more */
	for (i = 0; i < TB_SELECT_MAX_PATTERNS + 1; i++) {
		big[2 * i] = 'a';
		big[2 * i + 1] = ',';
	}
	ck_assert_int_eq(tb_select_parse(&g_sel, big, 2 * TB_SELECT_MAX_PATTERNS - 1, &e), TB_OK);
	ck_assert_uint_eq(g_sel.n, TB_SELECT_MAX_PATTERNS);
	ck_assert_int_eq(tb_select_parse(&g_sel, big, 2 * TB_SELECT_MAX_PATTERNS + 1, &e),
			 TB_ERR_LIMIT);
	ck_assert_uint_eq(e.offset, 2 * TB_SELECT_MAX_PATTERNS);
	/* TB_SELECT_MAX_ITEM and TB_SELECT_MAX_LEN */
	memset(big, 'x', sizeof big);
	ck_assert_int_eq(tb_select_parse(&g_sel, big, TB_SELECT_MAX_ITEM, &e), TB_OK);
	ck_assert_int_eq(tb_select_parse(&g_sel, big, TB_SELECT_MAX_ITEM + 1, &e), TB_ERR_LIMIT);
	ck_assert_int_eq(tb_select_parse(&g_sel, big, TB_SELECT_MAX_LEN + 1, &e), TB_ERR_LIMIT);
	ck_assert_int_eq(tb_select_parse(NULL, "a", 1, &e), TB_ERR_ARG);
}
END_TEST

/* ====================================================================
 * CPU lists
 * ==================================================================== */

START_TEST(cpu_lists)
{
	uint64_t m[2];
	tb_error e;
	ck_assert_int_eq(tb_cpu_list_parse("0,2-3", 5, 8, m, 2, &e), TB_OK);
	ck_assert_uint_eq(m[0], 0xdu);
	ck_assert_uint_eq(m[1], 0);
	ck_assert(tb_cpu_list_has(m, 2, 2) && !tb_cpu_list_has(m, 2, 1));
	ck_assert(!tb_cpu_list_has(m, 2, 500));
	ck_assert_int_eq(tb_cpu_list_parse(" 1 , 0 - 1 ", 11, 2, m, 1, &e), TB_OK);
	ck_assert_uint_eq(m[0], 3);
	ck_assert_int_eq(tb_cpu_list_parse("5-5,70", 6, 128, m, 2, &e), TB_OK);
	ck_assert_uint_eq(m[0], 0x20u);
	ck_assert_uint_eq(m[1], 0x40u);
}
END_TEST

static const struct cpu_err {
	const char *list;
	uint32_t ncpus;
	tb_status st;
	uint64_t off;
} cpu_errs[] = {
	{ "1-0", 2, TB_ERR_VALUE, 0 },
	{ "0,3-1", 8, TB_ERR_VALUE, 2 },
	{ "99", 2, TB_ERR_RANGE, 0 },
	{ "0,1-2", 2, TB_ERR_RANGE, 4 },
	{ "x", 2, TB_ERR_SYNTAX, 0 },
	{ "0x1", 2, TB_ERR_SYNTAX, 1 },
	{ "", 2, TB_ERR_SYNTAX, 0 },
	{ ",0", 2, TB_ERR_SYNTAX, 0 },
	{ "0,", 2, TB_ERR_SYNTAX, 2 },
	{ "0-", 2, TB_ERR_SYNTAX, 2 },
	{ "0,,1", 2, TB_ERR_SYNTAX, 2 },
	{ "-1", 2, TB_ERR_SYNTAX, 0 },
	{ "1 2", 4, TB_ERR_SYNTAX, 2 },
	{ "4096", TB_CPU_LIST_MAX, TB_ERR_LIMIT, 0 },
	{ "0,99999999999999999999", TB_CPU_LIST_MAX, TB_ERR_LIMIT, 2 },
	{ "200", TB_CPU_LIST_MAX, TB_ERR_NO_SPACE, 0 },
};

START_TEST(cpu_list_errors)
{
	uint64_t m[2];
	size_t i;
	tb_error e;
	for (i = 0; i < ARRAY_LEN(cpu_errs); i++) {
		const struct cpu_err *c = &cpu_errs[i];
		tb_status st = tb_cpu_list_parse(c->list, strlen(c->list), c->ncpus, m, 2, &e);
		ck_assert_msg(st == c->st && e.offset == c->off, "'%s': %s at %llu (%s)", c->list,
			      tb_strerror(st), (unsigned long long)e.offset, e.what);
	}
	ck_assert_int_eq(tb_cpu_list_parse("4095", 4, TB_CPU_LIST_MAX, m, 0, &e), TB_ERR_NO_SPACE);
	ck_assert_int_eq(tb_cpu_list_parse("0", 1, 2, NULL, 0, &e), TB_ERR_ARG);
}
END_TEST

/* ====================================================================
 * filters on crafted records
 * ==================================================================== */

#define COMMON                                                                   \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"   \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"   \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

/* Linux 6.18's sched_switch and sched_process_exec (print fmts cut). */
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

static tb_format g_sw, g_exec;
static tb_field g_fields[64];
static tb_filter g_f;

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

/* A little-endian sched_switch record. */
static void sw_record(uint8_t rec[64], int32_t pid, const char *prev, int32_t prev_pid,
		      int32_t prio, int64_t state, const char *next, int32_t next_pid)
{
	memset(rec, 0, 64);
	rec[0] = 372 & 0xff;
	rec[1] = 372 >> 8;
	put32(rec + 4, (uint32_t)pid);
	strncpy((char *)rec + 8, prev, 16);
	put32(rec + 24, (uint32_t)prev_pid);
	put32(rec + 28, (uint32_t)prio);
	put64(rec + 32, (uint64_t)state);
	strncpy((char *)rec + 40, next, 16);
	put32(rec + 56, (uint32_t)next_pid);
	put32(rec + 60, 120);
}

static void setup_formats(void)
{
	tb_format_error fe;
	ck_assert_int_eq(tb_format_parse(sw_text, strlen(sw_text), g_fields, 32, 8, &g_sw, &fe),
			 TB_OK);
	ck_assert_int_eq(tb_format_parse(exec_text, strlen(exec_text), g_fields + 32, 32, 8,
					 &g_exec, &fe), TB_OK);
	g_sw.system = "sched";
	g_sw.system_len = 5;
	g_exec.system = "sched";
	g_exec.system_len = 5;
}

static uint8_t g_rec[64];
static tb_filter_record g_r;

static void use_sw(int32_t pid, const char *prev, int32_t prev_pid, int32_t prio, int64_t state,
		   const char *next, int32_t next_pid, uint32_t cpu, const char *comm)
{
	setup_formats();
	sw_record(g_rec, pid, prev, prev_pid, prio, state, next, next_pid);
	memset(&g_r, 0, sizeof g_r);
	g_r.format = &g_sw;
	g_r.data = g_rec;
	g_r.len = 64;
	g_r.cpu = cpu;
	g_r.comm = comm;
	g_r.comm_len = strlen(comm);
}

/* Compile (must succeed) and evaluate on g_r. */
static int ev_flags(const char *text, unsigned flags)
{
	tb_error e;
	int m = -1;
	tb_status st = tb_filter_compile(&g_f, text, strlen(text), flags, &e);
	ck_assert_msg(st == TB_OK, "'%s': %s at %llu", text, e.what, (unsigned long long)e.offset);
	ck_assert_int_eq(tb_filter_eval(&g_f, &g_r, &m, &e), TB_OK);
	return m;
}

static int ev(const char *text)
{
	return ev_flags(text, 0);
}

START_TEST(filter_operators)
{
	/* kworker/0:1 (pid 7, prio 120, state 1) switches to bash (pid 42) on CPU 1 */
	use_sw(7, "kworker/0:1", 7, 120, 1, "bash", 42, 1, "kworker/0:1");
	ck_assert_int_eq(ev("sched_switch"), 1);
	ck_assert_int_eq(ev("sched_switch: prev_pid == 7"), 1);
	ck_assert_int_eq(ev("sched_switch: prev_pid == 8"), 0);
	ck_assert_int_eq(ev("sched_switch: prev_pid != 8"), 1);
	ck_assert_int_eq(ev("sched_switch: prev_pid != 7"), 0);
	ck_assert_int_eq(ev("sched_switch: next_pid < 43"), 1);
	ck_assert_int_eq(ev("sched_switch: next_pid < 42"), 0);
	ck_assert_int_eq(ev("sched_switch: next_pid <= 42"), 1);
	ck_assert_int_eq(ev("sched_switch: next_pid <= 41"), 0);
	ck_assert_int_eq(ev("sched_switch: next_pid > 41"), 1);
	ck_assert_int_eq(ev("sched_switch: next_pid > 42"), 0);
	ck_assert_int_eq(ev("sched_switch: next_pid >= 42"), 1);
	ck_assert_int_eq(ev("sched_switch: next_pid >= 43"), 0);
	ck_assert_int_eq(ev("sched_switch: next_pid == 0x2a"), 1);
	ck_assert_int_eq(ev("sched_switch: next_pid == 0X2A"), 1);
	ck_assert_int_eq(ev("sched_switch: next_pid == 052"), 1);
	ck_assert_int_eq(ev("sched_switch:next_pid==42"), 1);
	ck_assert_int_eq(ev("  sched_switch  :  next_pid  ==  42  "), 1);
	/* strings: exact and case-sensitive; regexes: case-insensitive searches */
	ck_assert_int_eq(ev("sched_switch: next_comm == \"bash\""), 1);
	ck_assert_int_eq(ev("sched_switch: next_comm == 'bash'"), 1);
	ck_assert_int_eq(ev("sched_switch: next_comm == \"BASH\""), 0);
	ck_assert_int_eq(ev("sched_switch: next_comm == \"bas\""), 0);
	ck_assert_int_eq(ev("sched_switch: next_comm == \"\""), 0);
	ck_assert_int_eq(ev("sched_switch: next_comm != \"bash\""), 0);
	ck_assert_int_eq(ev("sched_switch: prev_comm =~ \"^kworker\""), 1);
	ck_assert_int_eq(ev("sched_switch: prev_comm =~ \"^KWORKER\""), 1);
	ck_assert_int_eq(ev("sched_switch: prev_comm =~ \"^worker\""), 0);
	ck_assert_int_eq(ev("sched_switch: prev_comm !~ \"^kworker\""), 0);
	ck_assert_int_eq(ev("sched_switch: prev_comm !~ \"^bash\""), 1);
	/* BRE by default (trace-cmd), ERE on request */
	ck_assert_int_eq(ev("sched_switch: next_comm =~ \"bash|zsh\""), 0);
	ck_assert_int_eq(ev("sched_switch: next_comm =~ \"bash\\|zsh\""), 1);
	ck_assert_int_eq(ev_flags("sched_switch: next_comm =~ \"bash|zsh\"", TB_FILTER_ERE), 1);
	/* arithmetic tests: true when not 0 */
	ck_assert_int_eq(ev("sched_switch: prev_state & 1"), 1);
	ck_assert_int_eq(ev("sched_switch: prev_state & 2"), 0);
	ck_assert_int_eq(ev("sched_switch: prev_state | 0"), 1);
	ck_assert_int_eq(ev("sched_switch: prev_state ^ 1"), 0);
	ck_assert_int_eq(ev("sched_switch: next_pid - 42"), 0);
	ck_assert_int_eq(ev("sched_switch: next_pid + 1"), 1);
	ck_assert_int_eq(ev("sched_switch: next_pid * 0"), 0);
	ck_assert_int_eq(ev("sched_switch: next_pid / 43"), 0);
	ck_assert_int_eq(ev("sched_switch: next_pid / 42"), 1);
	ck_assert_int_eq(ev("sched_switch: next_pid % 2"), 0);
	ck_assert_int_eq(ev("sched_switch: next_pid % 5"), 1);
	ck_assert_int_eq(ev("sched_switch: next_pid >> 6"), 0);
	ck_assert_int_eq(ev("sched_switch: next_pid >> 5"), 1);
	ck_assert_int_eq(ev("sched_switch: next_pid << 63"), 0);
	ck_assert_int_eq(ev("sched_switch: prev_state << 63"), 1);
	/* !, &&, || and parentheses */
	ck_assert_int_eq(ev("sched_switch: !(prev_pid == 7)"), 0);
	ck_assert_int_eq(ev("sched_switch: !prev_pid == 8"), 1);
	ck_assert_int_eq(ev("sched_switch: !!(prev_pid == 7)"), 1);
	ck_assert_int_eq(ev("sched_switch: prev_pid == 7 && next_pid == 42"), 1);
	ck_assert_int_eq(ev("sched_switch: prev_pid == 7 && next_pid == 41"), 0);
	ck_assert_int_eq(ev("sched_switch: prev_pid == 6 || next_pid == 42"), 1);
	ck_assert_int_eq(ev("sched_switch: prev_pid == 6 || next_pid == 41"), 0);
	ck_assert_int_eq(ev("sched_switch: ((prev_pid == 7))"), 1);
	ck_assert_int_eq(ev("sched_switch: !(prev_pid == 6 || !(next_pid == 42))"), 1);
	/* common fields, COMM and CPU */
	ck_assert_int_eq(ev("sched_switch: common_pid == 7"), 1);
	ck_assert_int_eq(ev("sched_switch: common_type == 372"), 1);
	ck_assert_int_eq(ev("sched_switch: COMM == \"kworker/0:1\""), 1);
	ck_assert_int_eq(ev("sched_switch: COMM =~ \"^kw\""), 1);
	ck_assert_int_eq(ev("sched_switch: COMM != \"kworker/0:1\""), 0);
	ck_assert_int_eq(ev("sched_switch: CPU == 1"), 1);
	ck_assert_int_eq(ev("sched_switch: CPU & 1"), 1);
	ck_assert_int_eq(ev("sched_switch: CPU < 1"), 0);
	/* a field the event lacks: its comparison is false, whatever the operator */
	ck_assert_int_eq(ev("sched_switch: bogus == 1"), 0);
	ck_assert_int_eq(ev("sched_switch: bogus != 1"), 0);
	ck_assert_int_eq(ev("sched_switch: !(bogus == 1)"), 1);
	ck_assert_int_eq(ev("sched_switch: bogus == 1 || common_pid == 7"), 1);
	ck_assert_int_eq(ev("sched_switch: comm == \"x\""), 0);
	/* a field of the wrong kind: false too (tb_filter_check reports it) */
	ck_assert_int_eq(ev("sched_switch: prev_comm == 1"), 0);
	ck_assert_int_eq(ev("sched_switch: prev_comm != 1"), 0);
	ck_assert_int_eq(ev("sched_switch: prev_pid =~ \"7\""), 0);
}
END_TEST

START_TEST(filter_signed)
{
	/* prev_prio -5, prev_state -1 (signed fields), next_pid 42 */
	use_sw(7, "a", 7, -5, -1, "b", 42, 0, "a");
	ck_assert_int_eq(ev("sched_switch: prev_prio == -5"), 1);
	ck_assert_int_eq(ev("sched_switch: prev_prio < 0"), 1);
	ck_assert_int_eq(ev("sched_switch: prev_prio < -5"), 0);
	ck_assert_int_eq(ev("sched_switch: prev_prio > -6"), 1);
	ck_assert_int_eq(ev("sched_switch: prev_prio >= 0"), 0);
	ck_assert_int_eq(ev("sched_switch: prev_state == -1"), 1);
	ck_assert_int_eq(ev("sched_switch: prev_state < 18446744073709551615"), 1);
	ck_assert_int_eq(ev("sched_switch: prev_state == 0xffffffffffffffff"), 0);
	ck_assert_int_eq(ev("sched_switch: prev_state == -9223372036854775808"), 0);
	ck_assert_int_eq(ev("sched_switch: prev_state > -9223372036854775808"), 1);
	ck_assert_int_eq(ev("sched_switch: next_pid > -1"), 1);
	ck_assert_int_eq(ev("sched_switch: next_pid == -0"), 0);
	ck_assert_int_eq(ev("sched_switch: common_type > -1"), 1);
	ck_assert_int_eq(ev("sched_switch: common_type == 372"), 1);
	/* an unsigned field is never negative */
	ck_assert_int_eq(ev("sched_switch: common_type != -1"), 1);
}
END_TEST

/* trace-cmd gives && and || one precedence, left to right (measured:
 * "CPU == 1 || next_pid == 0 && CPU == 0" keeps 199 events of the sample,
 * as "(CPU == 1 || next_pid == 0) && CPU == 0" does, not 715). */
START_TEST(filter_precedence)
{
	use_sw(7, "a", 7, 120, 0, "b", 42, 1, "a");
	/* a || b && c with a true, c false */
	ck_assert_int_eq(ev("sched_switch: CPU == 1 || next_pid == 0 && CPU == 0"), 0);
	ck_assert_int_eq(ev_flags("sched_switch: CPU == 1 || next_pid == 0 && CPU == 0",
				  TB_FILTER_C_PRECEDENCE), 1);
	ck_assert_int_eq(ev("sched_switch: CPU == 1 || (next_pid == 0 && CPU == 0)"), 1);
	/* a && b || c: the same both ways */
	ck_assert_int_eq(ev("sched_switch: CPU == 0 && next_pid == 0 || CPU == 1"), 1);
	ck_assert_int_eq(ev_flags("sched_switch: CPU == 0 && next_pid == 0 || CPU == 1",
				  TB_FILTER_C_PRECEDENCE), 1);
	/* ! binds to one term */
	ck_assert_int_eq(ev("sched_switch: !CPU == 1 && CPU == 1"), 0);
	ck_assert_int_eq(ev("sched_switch: !CPU == 0 && CPU == 1"), 1);
	/* a || b && c || d, C precedence: a || (b && c) || d */
	ck_assert_int_eq(ev_flags("sched_switch: CPU == 0 || CPU == 1 && next_pid == 0 || "
				  "prev_pid == 7", TB_FILTER_C_PRECEDENCE), 1);
	ck_assert_int_eq(ev("sched_switch: CPU == 0 || CPU == 1 && next_pid == 0 || prev_pid == 8"),
			 0);
}
END_TEST

START_TEST(filter_events_part)
{
	setup_formats();
	ck_assert_int_eq(tb_filter_compile(&g_f, "sched_switch", strlen("sched_switch"), 0, NULL), TB_OK);
	ck_assert_int_eq(tb_filter_applies(&g_f, "sched", 5, "sched_switch", 12), 1);
	ck_assert_int_eq(tb_filter_applies(&g_f, "sched", 5, "sched_switch_x", 14), 0);
	ck_assert_int_eq(tb_filter_applies(&g_f, "sched", 5, "SCHED_SWITCH", 12), 1);
	/* a bare name: event or system */
	ck_assert_int_eq(tb_filter_compile(&g_f, "sched", strlen("sched"), 0, NULL), TB_OK);
	ck_assert_int_eq(tb_filter_applies(&g_f, "sched", 5, "sched_waking", 12), 1);
	ck_assert_int_eq(tb_filter_applies(&g_f, "irq", 3, "softirq_entry", 13), 0);
	ck_assert_int_eq(tb_filter_compile(&g_f, "sched/sched_wakeup , irq", strlen("sched/sched_wakeup , irq"), 0, NULL), TB_OK);
	ck_assert_uint_eq(g_f.nevents, 2);
	ck_assert_int_eq(tb_filter_applies(&g_f, "sched", 5, "sched_wakeup", 12), 1);
	ck_assert_int_eq(tb_filter_applies(&g_f, "other", 5, "sched_wakeup", 12), 0);
	ck_assert_int_eq(tb_filter_applies(&g_f, "irq", 3, "softirq_entry", 13), 1);
	ck_assert_int_eq(tb_filter_compile(&g_f, "sch.*/sched_wakeup.*", strlen("sch.*/sched_wakeup.*"), 0, NULL), TB_OK);
	ck_assert_int_eq(tb_filter_applies(&g_f, "sched", 5, "sched_wakeup_new", 16), 1);
	ck_assert_int_eq(tb_filter_applies(&g_f, NULL, 0, "sched_wakeup_new", 16), 0);
	ck_assert_int_eq(tb_filter_compile(&g_f, ".*:COMM != \"x\"", strlen(".*:COMM != \"x\""), 0, NULL), TB_OK);
	ck_assert_int_eq(tb_filter_applies(&g_f, "a", 1, "b", 1), 1);
	/* BRE: '|' is a literal, '\|' alternation */
	ck_assert_int_eq(tb_filter_compile(&g_f, "sched_switch\\|sched_wakeup", strlen("sched_switch\\|sched_wakeup"), 0, NULL), TB_OK);
	ck_assert_int_eq(tb_filter_applies(&g_f, "sched", 5, "sched_wakeup", 12), 1);
	ck_assert_int_eq(tb_filter_compile(&g_f, "sched_w+akeup", strlen("sched_w+akeup"), 0, NULL), TB_OK);
	ck_assert_int_eq(tb_filter_applies(&g_f, "sched", 5, "sched_wakeup", 12), 0);
	ck_assert_int_eq(tb_filter_compile(&g_f, "sched_w+akeup", strlen("sched_w+akeup"), TB_FILTER_ERE, NULL), TB_OK);
	ck_assert_int_eq(tb_filter_applies(&g_f, "sched", 5, "sched_wakeup", 12), 1);
	ck_assert_int_eq(tb_filter_applies(NULL, "sched", 5, "sched_wakeup", 12), 0);
}
END_TEST

START_TEST(filter_dynamic_string)
{
	uint8_t rec[40];
	int m;
	tb_error e;
	setup_formats();
	memset(rec, 0, sizeof rec);
	rec[0] = 365 & 0xff;
	rec[1] = 365 >> 8;
	put32(rec + 8, (uint32_t)(24 | 9 << 16)); /* "/bin/cat" + NUL at 24 */
	put32(rec + 12, 99);
	memcpy(rec + 24, "/bin/cat", 9);
	memset(&g_r, 0, sizeof g_r);
	g_r.format = &g_exec;
	g_r.data = rec;
	g_r.len = sizeof rec;
	ck_assert_int_eq(ev("sched_process_exec: filename == \"/bin/cat\""), 1);
	ck_assert_int_eq(ev("sched_process_exec: filename =~ \"cat$\""), 1);
	ck_assert_int_eq(ev("sched_process_exec: filename =~ \"^cat\""), 0);
	ck_assert_int_eq(ev("sched_process_exec: pid == 99 && filename != \"x\""), 1);
	/* a u32 array is neither: false, and tb_filter_check says so */
	ck_assert_int_eq(ev("sched_process_exec: flags == 0"), 0);
	ck_assert_int_eq(tb_filter_check(&g_f, &g_exec, NULL, &e), TB_ERR_VALUE);
	ck_assert_uint_eq(e.offset, 20);
	/* the loc word points past the record: the comparison is false and the
	 * read error comes back */
	put32(rec + 8, (uint32_t)(36 | 9 << 16));
	ck_assert_int_eq(tb_filter_compile(&g_f, "sched_process_exec: pid == 99 || filename == \"x\"", strlen("sched_process_exec: pid == 99 || filename == \"x\""), 0, NULL), TB_OK);
	ck_assert_int_eq(tb_filter_eval(&g_f, &g_r, &m, &e), TB_ERR_RANGE);
	ck_assert_int_eq(m, 1);
	/* a record too short for pid */
	g_r.len = 14;
	ck_assert_int_eq(tb_filter_compile(&g_f, "sched_process_exec: pid == 99", strlen("sched_process_exec: pid == 99"), 0, NULL),
			 TB_OK);
	ck_assert_int_eq(tb_filter_eval(&g_f, &g_r, &m, &e), TB_ERR_TRUNCATED);
	ck_assert_int_eq(m, 0);
	/* no format at all: fields are missing, COMM and CPU still work */
	g_r.format = NULL;
	g_r.comm = "x";
	g_r.comm_len = 1;
	ck_assert_int_eq(ev("a: COMM == \"x\" && CPU == 0 && pid != 1"), 0);
	ck_assert_int_eq(ev("a: COMM == \"x\" && CPU == 0"), 1);
}
END_TEST

START_TEST(filter_check)
{
	uint64_t found[2] = { 0, 0 };
	tb_error e;
	const char *name;
	size_t len, off;
	setup_formats();
	ck_assert_int_eq(tb_filter_compile(&g_f, "sched: prev_pid == 0 || filename =~ \"x\" || "
					   "nosuch == 1 || COMM == \"a\"", strlen("sched: prev_pid == 0 || filename =~ \"x\" || "
					   "nosuch == 1 || COMM == \"a\""), 0, &e), TB_OK);
	ck_assert_int_eq(tb_filter_check(&g_f, &g_sw, found, &e), TB_OK);
	ck_assert_uint_eq(found[0], 0x9u);
	ck_assert_int_eq(tb_filter_check(&g_f, &g_exec, found, &e), TB_OK);
	ck_assert_uint_eq(found[0], 0xbu);
	/* the one no format has */
	ck_assert_int_eq(tb_filter_field_ref(&g_f, 2, &name, &len, &off), 1);
	ck_assert(len == 6 && !memcmp(name, "nosuch", 6));
	ck_assert_uint_eq(off, 43);
	ck_assert_int_eq(tb_filter_field_ref(&g_f, 4, &name, &len, &off), 0);
	/* kinds that do not fit, at the comparison's byte */
	ck_assert_int_eq(tb_filter_compile(&g_f, "sched_switch: prev_pid == 1 && prev_comm == 1", strlen("sched_switch: prev_pid == 1 && prev_comm == 1"), 0, NULL), TB_OK);
	ck_assert_int_eq(tb_filter_check(&g_f, &g_sw, NULL, &e), TB_ERR_VALUE);
	ck_assert_uint_eq(e.offset, 31);
	ck_assert_int_eq(tb_filter_compile(&g_f, "sched_switch: prev_pid =~ \"1\"", strlen("sched_switch: prev_pid =~ \"1\""), 0, NULL),
			 TB_OK);
	ck_assert_int_eq(tb_filter_check(&g_f, &g_sw, NULL, &e), TB_ERR_VALUE);
	ck_assert_uint_eq(e.offset, 14);
	ck_assert_int_eq(tb_filter_compile(&g_f, "sched_switch: prev_comm & 1", strlen("sched_switch: prev_comm & 1"), 0, NULL), TB_OK);
	ck_assert_int_eq(tb_filter_check(&g_f, &g_sw, NULL, &e), TB_ERR_VALUE);
	ck_assert_int_eq(tb_filter_compile(&g_f, "sched_switch: COMM == 1", strlen("sched_switch: COMM == 1"), 0, NULL), TB_OK);
	ck_assert_int_eq(tb_filter_check(&g_f, &g_sw, NULL, &e), TB_ERR_VALUE);
	ck_assert_int_eq(tb_filter_compile(&g_f, "sched_switch: CPU =~ \"1\"", strlen("sched_switch: CPU =~ \"1\""), 0, NULL), TB_OK);
	ck_assert_int_eq(tb_filter_check(&g_f, &g_sw, NULL, &e), TB_ERR_VALUE);
	ck_assert_int_eq(tb_filter_check(NULL, &g_sw, NULL, &e), TB_ERR_ARG);
}
END_TEST

/* The record: a switch from pid 0 to pid 42.  a: prev_pid == 0 (true),
 * b: prev_pid != 0 (false), n1: -v next_pid == 42 (true). */
static void rule_filters(tb_filter *a, tb_filter *b, tb_filter *n1)
{
	use_sw(0, "swapper/0", 0, 120, 0, "bash", 42, 0, "<idle>");
	ck_assert_int_eq(tb_filter_compile(a, "sched_switch: prev_pid == 0", strlen("sched_switch: prev_pid == 0"), 0, NULL), TB_OK);
	ck_assert_int_eq(tb_filter_compile(b, "sched_switch: prev_pid != 0", strlen("sched_switch: prev_pid != 0"), 0, NULL), TB_OK);
	ck_assert_int_eq(tb_filter_compile(n1, "sched_switch: next_pid == 42", strlen("sched_switch: next_pid == 42"),
					   TB_FILTER_NEGATE, NULL), TB_OK);
}

/* trace-cmd's rule for several -F and -v, on the counts measured on the
 * sample (see filter_real_records): positives are or-ed, a negative
 * hides what it matches. */
START_TEST(filter_select_rule)
{
	static tb_filter a, b, n1;
	const tb_filter *list[3];
	int show;
	rule_filters(&a, &b, &n1);
	list[0] = &b;
	ck_assert_int_eq(tb_filter_select(list, 1, &g_r, &show, NULL), TB_OK);
	ck_assert_int_eq(show, 0);
	list[1] = &a;
	ck_assert_int_eq(tb_filter_select(list, 2, &g_r, &show, NULL), TB_OK);
	ck_assert_int_eq(show, 1);
	list[2] = &n1;
	ck_assert_int_eq(tb_filter_select(list, 3, &g_r, &show, NULL), TB_OK);
	ck_assert_int_eq(show, 0);
	/* only negatives: everything else is shown */
	ck_assert_int_eq(tb_filter_select(list + 2, 1, &g_r, &show, NULL), TB_OK);
	ck_assert_int_eq(show, 0);
	g_rec[56] = 43;
	ck_assert_int_eq(tb_filter_select(list + 2, 1, &g_r, &show, NULL), TB_OK);
	ck_assert_int_eq(show, 1);
	/* no filter at all: shown; a positive filter for another event: hidden */
	ck_assert_int_eq(tb_filter_select(list, 0, &g_r, &show, NULL), TB_OK);
	ck_assert_int_eq(show, 1);
	ck_assert_int_eq(tb_filter_compile(&a, "sched_wakeup", strlen("sched_wakeup"), 0, NULL), TB_OK);
	list[0] = &a;
	ck_assert_int_eq(tb_filter_select(list, 1, &g_r, &show, NULL), TB_OK);
	ck_assert_int_eq(show, 0);
	ck_assert_int_eq(tb_filter_select(NULL, 1, &g_r, &show, NULL), TB_ERR_ARG);
}
END_TEST

/* tb_filter_select_applying: the rule with the EVENTS parts given as a
 * mask; a filter whose bit is clear is not evaluated, whatever it says. */
START_TEST(filter_select_applying)
{
	static tb_filter a, b, n1;
	const tb_filter *list[65];
	/* list: b (false), a (true), n1 (-v, true) */
	static const struct { size_t first, n; uint64_t applies; int show; } rules[] = {
		/* every filter applies: as tb_filter_select (0, 1, then hidden by -v) */
		{ 0, 1, 1, 0 }, { 0, 2, 3, 1 }, { 0, 3, 7, 0 },
		/* the true positive does not apply: hidden; the negative does not: shown */
		{ 0, 2, 1, 0 }, { 0, 3, 3, 1 },
		/* none applies: shown only without a positive filter */
		{ 0, 3, 0, 0 }, { 2, 1, 0, 1 },
	};
	tb_error e;
	int show, i;
	rule_filters(&a, &b, &n1);
	list[0] = &b;
	list[1] = &a;
	list[2] = &n1;
	for (i = 0; i < (int)(sizeof(rules) / sizeof(rules[0])); i++) {
		ck_assert_int_eq(tb_filter_select_applying(list + rules[i].first, rules[i].n,
							   rules[i].applies, &g_r, &show, NULL),
				 TB_OK);
		ck_assert_msg(show == rules[i].show, "rule %d", i);
	}
	/* no format: no filter applies, whatever the mask says */
	g_r.format = NULL;
	ck_assert_int_eq(tb_filter_select_applying(list + 2, 1, 1, &g_r, &show, NULL), TB_OK);
	ck_assert_int_eq(show, 1);
	ck_assert_int_eq(tb_filter_select_applying(list, 2, 3, &g_r, &show, NULL), TB_OK);
	ck_assert_int_eq(show, 0);
	g_r.format = &g_sw;
	/* the arguments */
	for (i = 0; i < 65; i++)
		list[i] = &a;
	ck_assert_int_eq(tb_filter_select_applying(list, 64, ~0ull, &g_r, &show, NULL), TB_OK);
	ck_assert_int_eq(show, 1);
	ck_assert_int_eq(tb_filter_select_applying(list, 65, ~0ull, &g_r, &show, &e), TB_ERR_ARG);
	ck_assert_int_eq(show, 0);
	ck_assert_int_eq(tb_filter_select_applying(NULL, 1, 1, &g_r, &show, NULL), TB_ERR_ARG);
	ck_assert_int_eq(tb_filter_select_applying(list, 1, 1, NULL, &show, NULL), TB_ERR_ARG);
	ck_assert_int_eq(tb_filter_select_applying(list, 1, 1, &g_r, NULL, NULL), TB_ERR_ARG);
	list[0] = NULL;
	ck_assert_int_eq(tb_filter_select_applying(list, 1, 1, &g_r, &show, &e), TB_ERR_ARG);
}
END_TEST


static const struct f_err {
	const char *text;
	tb_status st;
	uint64_t off;
} f_errs[] = {
	{ "", TB_ERR_SYNTAX, 0 },
	{ ":prev_pid == 0", TB_ERR_SYNTAX, 0 },
	{ "sched_switch:", TB_ERR_SYNTAX, 12 },
	{ "sched_switch :  ", TB_ERR_SYNTAX, 13 },
	{ "a,,b", TB_ERR_SYNTAX, 2 },
	{ "sched/", TB_ERR_SYNTAX, 5 },
	{ "/x", TB_ERR_SYNTAX, 0 },
	{ "sched_(switch", TB_ERR_SYNTAX, 6 + 7 },       /* BRE: \( unmatched?  no: '(' literal */
	{ "x: prev_pid = 0", TB_ERR_SYNTAX, 12 },
	{ "x: prev_pid", TB_ERR_SYNTAX, 11 },
	{ "x: !prev_pid", TB_ERR_SYNTAX, 12 },
	{ "x: prev_pid == ", TB_ERR_SYNTAX, 15 },
	{ "x: prev_pid == 0 &&", TB_ERR_SYNTAX, 19 },
	{ "x: prev_pid == 0 ||", TB_ERR_SYNTAX, 19 },
	{ "x: (prev_pid == 0", TB_ERR_SYNTAX, 3 },
	{ "x: prev_pid == 0)", TB_ERR_SYNTAX, 16 },
	{ "x: prev_pid === 0", TB_ERR_SYNTAX, 14 },
	{ "x: prev_pid =! 0", TB_ERR_SYNTAX, 12 },
	{ "x: prev_pid == 0 prev_pid == 1", TB_ERR_SYNTAX, 17 },
	{ "x: 0 == prev_pid", TB_ERR_SYNTAX, 3 },
	{ "x: \"ls\" == prev_comm", TB_ERR_SYNTAX, 4 },
	{ "x: prev_pid == next_pid", TB_ERR_SYNTAX, 15 },
	{ "x: prev_pid == 1 == 1", TB_ERR_SYNTAX, 17 },
	{ "x: prev_pid & 1 == 1", TB_ERR_SYNTAX, 16 },
	{ "x: prev_pid + 1 == 1", TB_ERR_SYNTAX, 16 },
	{ "x: prev_comm == ls", TB_ERR_SYNTAX, 16 },
	{ "x: prev_comm < \"ls\"", TB_ERR_SYNTAX, 13 },
	{ "x: prev_comm == \"ls", TB_ERR_SYNTAX, 16 },
	{ "x: prev_comm =~ 1", TB_ERR_SYNTAX, 16 },
	{ "x: prev_pid & \"1\"", TB_ERR_SYNTAX, 15 },
	{ "x: prev_pid == 0b1", TB_ERR_SYNTAX, 16 },
	{ "x: prev_pid == 1e3", TB_ERR_SYNTAX, 16 },
	{ "x: prev_pid == 08", TB_ERR_SYNTAX, 16 },
	{ "x: prev_pid == 0x", TB_ERR_SYNTAX, 15 },
	{ "x: prev_pid == - 1", TB_ERR_SYNTAX, 3 + 0 },   /* fixed below: '-' then a number */
	{ "x: prev_pid == --1", TB_ERR_SYNTAX, 16 },
	{ "x: prev_pid == 99999999999999999999", TB_ERR_VALUE, 15 },
	{ "x: prev_pid == -9223372036854775809", TB_ERR_VALUE, 16 },
	{ "x: prev_pid / 0", TB_ERR_VALUE, 14 },
	{ "x: prev_pid % 0", TB_ERR_VALUE, 14 },
	{ "x: prev_pid << 64", TB_ERR_VALUE, 15 },
	{ "x: prev_pid @ 1", TB_ERR_SYNTAX, 12 },
	{ "x: next_comm =~ \"\\(\"", TB_ERR_SYNTAX, 17 },
	{ "x: next_comm =~ \"[\"", TB_ERR_SYNTAX, 17 },
	{ "x: next_comm =~ \"\\1\"", TB_ERR_UNSUPPORTED, 17 },
	{ "x[: prev_pid == 0", TB_ERR_SYNTAX, 1 },
};

START_TEST(filter_errors)
{
	size_t i;
	for (i = 0; i < ARRAY_LEN(f_errs); i++) {
		const struct f_err *c = &f_errs[i];
		tb_error e;
		int m;
		tb_status st = tb_filter_compile(&g_f, c->text, strlen(c->text), 0, &e);
		if (i == 7) /* "sched_(switch": in BRE '(' is a literal: fine */
			ck_assert_int_eq(st, TB_OK);
		else if (i == 34) /* "- 1": a blank between is allowed, it is one value */
			ck_assert_int_eq(st, TB_OK);
		else
			ck_assert_msg(st == c->st && e.status == c->st && e.offset == c->off,
				      "'%s': got %s at %llu (%s), want %s at %llu", c->text,
				      tb_strerror(st), (unsigned long long)e.offset, e.what,
				      tb_strerror(c->st), (unsigned long long)c->off);
		if (st != TB_OK) {
			/* a failed compile leaves nothing to run */
			ck_assert_int_eq(tb_filter_eval(&g_f, &g_r, &m, NULL), TB_ERR_ARG);
			ck_assert_int_eq(tb_filter_applies(&g_f, "x", 1, "x", 1), 0);
		}
	}
	ck_assert_int_eq(tb_filter_compile(&g_f, "sched_(switch", strlen("sched_(switch"), TB_FILTER_ERE, NULL),
			 TB_ERR_SYNTAX);
	ck_assert_int_eq(tb_filter_compile(NULL, "x", 1, 0, NULL), TB_ERR_ARG);
	ck_assert_int_eq(tb_filter_compile(&g_f, "x\0", 2, 0, NULL), TB_ERR_SYNTAX);
	ck_assert_int_eq(tb_filter_compile(&g_f, "x: a == \"\0\"", 11, 0, NULL), TB_ERR_SYNTAX);
}
END_TEST

START_TEST(filter_limits)
{
	static char t[TB_FILTER_MAX_LEN + 64];
	size_t i, n;
	tb_error e;
	int m;
	use_sw(7, "a", 7, 120, 0, "b", 42, 1, "a");
	/* TB_FILTER_MAX_DEPTH: 32 '(' compile, 33 do not */
	n = (size_t)sprintf(t, "x: ");
	for (i = 0; i < TB_FILTER_MAX_DEPTH; i++)
		t[n++] = '(';
	n += (size_t)sprintf(t + n, "CPU == 1");
	for (i = 0; i < TB_FILTER_MAX_DEPTH; i++)
		t[n++] = ')';
	ck_assert_int_eq(tb_filter_compile(&g_f, t, n, 0, &e), TB_OK);
	ck_assert_int_eq(tb_filter_eval(&g_f, &g_r, &m, &e), TB_OK);
	ck_assert_int_eq(m, 1);
	memmove(t + 4, t + 3, n - 3);
	t[3] = '!';
	ck_assert_int_eq(tb_filter_compile(&g_f, t, n + 1, 0, &e), TB_ERR_LIMIT);
	ck_assert_uint_eq(e.offset, 3 + TB_FILTER_MAX_DEPTH);
	/* a long chain of ! hits the same limit, not the stack */
	n = (size_t)sprintf(t, "x: ");
	for (i = 0; i < 2000; i++)
		t[n++] = '!';
	n += (size_t)sprintf(t + n, "CPU == 1");
	ck_assert_int_eq(tb_filter_compile(&g_f, t, n, 0, &e), TB_ERR_LIMIT);
	ck_assert_uint_eq(e.offset, 3 + TB_FILTER_MAX_DEPTH);
	/* 31 '!' (odd): false */
	memcpy(t + 2003 - 31 - 3, "x: ", 3);
	ck_assert_int_eq(tb_filter_compile(&g_f, t + 1969, n - 1969, 0, &e), TB_OK);
	ck_assert_int_eq(tb_filter_eval(&g_f, &g_r, &m, &e), TB_OK);
	ck_assert_int_eq(m, 0);
	/* TB_FILTER_MAX_NODES: 64 comparisons joined by 63 || and one more */
	n = (size_t)sprintf(t, "x: CPU == 0");
	for (i = 1; i < TB_FILTER_MAX_NODES / 2; i++)
		n += (size_t)sprintf(t + n, " || CPU == %zu", i);
	ck_assert_int_eq(tb_filter_compile(&g_f, t, n, 0, &e), TB_OK);
	ck_assert_uint_eq(g_f.nnodes, TB_FILTER_MAX_NODES - 1);
	ck_assert_int_eq(tb_filter_eval(&g_f, &g_r, &m, &e), TB_OK);
	ck_assert_int_eq(m, 1);
	n += (size_t)sprintf(t + n, " || CPU == 99");
	ck_assert_int_eq(tb_filter_compile(&g_f, t, n, 0, &e), TB_ERR_LIMIT);
	/* TB_FILTER_MAX_EVENTS */
	n = (size_t)sprintf(t, "a,b,c,d,e,f,g,h");
	ck_assert_int_eq(tb_filter_compile(&g_f, t, n, 0, &e), TB_OK);
	n = (size_t)sprintf(t, "a,b,c,d,e,f,g,h,i");
	ck_assert_int_eq(tb_filter_compile(&g_f, t, n, 0, &e), TB_ERR_LIMIT);
	ck_assert_uint_eq(e.offset, 16);
	/* TB_FILTER_MAX_REGEX (the events part has its own room) */
	n = (size_t)sprintf(t, "a/b,c/d,e/f,g/h,i/j,k/l,m/n,o/p: COMM =~ \"0\"");
	for (i = 1; i < TB_FILTER_MAX_REGEX; i++)
		n += (size_t)sprintf(t + n, " || COMM =~ \"%zu\"", i);
	ck_assert_int_eq(tb_filter_compile(&g_f, t, n, 0, &e), TB_OK);
	n += (size_t)sprintf(t + n, " || COMM !~ \"x\"");
	ck_assert_int_eq(tb_filter_compile(&g_f, t, n, 0, &e), TB_ERR_LIMIT);
	ck_assert_uint_eq(e.offset, n - 6);
	/* a regex over TB_REGEX_MAX_LEN */
	n = (size_t)sprintf(t, "x: COMM =~ \"");
	memset(t + n, 'a', TB_REGEX_MAX_LEN + 1);
	n += TB_REGEX_MAX_LEN + 1;
	t[n++] = '"';
	ck_assert_int_eq(tb_filter_compile(&g_f, t, n, 0, &e), TB_ERR_LIMIT);
	/* TB_FILTER_MAX_LEN */
	memset(t, ' ', sizeof t);
	t[0] = 'x';
	ck_assert_int_eq(tb_filter_compile(&g_f, t, TB_FILTER_MAX_LEN, 0, &e), TB_OK);
	ck_assert_int_eq(tb_filter_compile(&g_f, t, TB_FILTER_MAX_LEN + 1, 0, &e), TB_ERR_LIMIT);
	/* a field name over TB_FORMAT_MAX_NAME */
	n = (size_t)sprintf(t, "x: ");
	memset(t + n, 'f', TB_FORMAT_MAX_NAME + 1);
	n += TB_FORMAT_MAX_NAME + 1;
	n += (size_t)sprintf(t + n, " == 1");
	ck_assert_int_eq(tb_filter_compile(&g_f, t, n, 0, &e), TB_ERR_LIMIT);
	ck_assert_uint_eq(e.offset, 3);
}
END_TEST

/* ====================================================================
 * the real capture, against trace-cmd
 * ==================================================================== */

typedef struct capture {
	uint8_t *file;
	size_t size;
	tb_dat d;
	tb_dat_storage st;
	tb_format_set set;
	tb_format *fmts;
	tb_field *fields;
	uint32_t *index;
	tb_cmdlines cmd;
	tb_kbuf_layout layout;
	tb_dat_cursor cur[8];
	uint8_t *chunks;
	size_t per_cpu;
	tb_dat_stream s;
	char *lines;      /* `report --raw` output, one record per line */
	size_t nlines;
	size_t *line_off; /* start of each record's text (drop line included) */
	size_t *line_len;
} capture;

static void *grow(void *p, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap && p)
		return p;
	free(p);
	*cap = need;
	return calloc(need ? need : 1, elem);
}

static const char *sample_path(void)
{
	return tb_test_path("tests/data/sched4k.v7zstd.dat");
}

static void capture_open(capture *c)
{
	tb_dat_decompressor dc = { tb_test_zstd, NULL };
	tb_error e;
	tb_status s = TB_OK;
	size_t i, nf;
	const tb_dat_buffer *b;
	size_t per_cpu;
	memset(c, 0, sizeof *c);
	c->file = tb_test_read_file(sample_path(), &c->size);
	ck_assert_ptr_nonnull(c->file);
	for (i = 0; i < 5; i++) {
		s = tb_dat_open(&c->d, c->file, c->size, &c->st, &dc, &e);
		if (s != TB_ERR_NO_SPACE)
			break;
		c->st.events = grow(c->st.events, &c->st.events_cap, c->d.need.events,
				    sizeof(tb_dat_event_text));
		c->st.buffers = grow(c->st.buffers, &c->st.buffers_cap, c->d.need.buffers,
				     sizeof(tb_dat_buffer));
		c->st.cpus = grow(c->st.cpus, &c->st.cpus_cap, c->d.need.cpus, sizeof(tb_dat_cpu));
		c->st.cpustats = grow(c->st.cpustats, &c->st.cpustats_cap, c->d.need.cpustats,
				      sizeof(tb_dat_text));
		c->st.scratch = grow(c->st.scratch, &c->st.scratch_cap, c->d.need.scratch, 1);
	}
	ck_assert_int_eq(s, TB_OK);
	nf = c->d.nevents * 64;
	c->fmts = calloc(c->d.nevents, sizeof(tb_format));
	c->fields = calloc(nf, sizeof(tb_field));
	c->index = calloc(tb_format_index_len(c->d.nevents), sizeof(uint32_t));
	ck_assert_int_eq(tb_format_set_init(&c->set, c->fmts, c->d.nevents, c->fields, nf, c->index,
					    tb_format_index_len(c->d.nevents), c->d.long_size),
			 TB_OK);
	for (i = 0; i < c->d.nevents; i++) {
		const tb_dat_event_text *t = &c->d.events[i];
		tb_format_error fe;
		if (tb_format_set_add(&c->set, t->format.ptr, t->format.len, t->system.ptr,
				      t->system.len, NULL, &fe) != TB_OK)
			continue; /* a format that does not parse: its events stay unnamed */
	}
	ck_assert_uint_gt(c->set.count, 100);
	c->cmd.cap = tb_cmdlines_count(c->d.cmdlines.ptr, c->d.cmdlines.len);
	c->cmd.v = calloc(c->cmd.cap + 1, sizeof(tb_cmdline));
	ck_assert_int_eq(tb_cmdlines_parse(&c->cmd, c->d.cmdlines.ptr, c->d.cmdlines.len, &e),
			 TB_OK);
	ck_assert_int_eq(tb_kbuf_layout_from_header_page(c->d.header_page.ptr, c->d.header_page.len,
							 c->d.big_endian, &c->layout, &e),
			 TB_OK);
	b = tb_dat_find_buffer(&c->d, "");
	ck_assert_ptr_nonnull(b);
	ck_assert_int_eq(tb_dat_chunk_max(&c->d, b, &per_cpu, &e), TB_OK);
	c->chunks = malloc(per_cpu * b->ncpus + 1);
	c->per_cpu = per_cpu;
	ck_assert_int_eq(tb_dat_stream_init(&c->s, &c->d, b, &c->layout, c->cur, 8, c->chunks,
					    per_cpu, 0, &e), TB_OK);
}

/* `report --raw` of the sample, split per record (a drop line goes with
 * the record after it, as trace-cmd prints it only with that record). */
static void capture_lines(capture *c)
{
	char cmd[4096];
	tb_test_run r;
	size_t i, start, line, cap = 70000;
	const char *cli = getenv("TB_CLI");
	snprintf(cmd, sizeof cmd, "%s report --raw '%s'", cli ? cli : "build/tracebound",
		 sample_path());
	tb_test_sh(cmd, &r);
	ck_assert_int_eq(r.status, 0);
	free(r.err);
	c->lines = r.out;
	c->line_off = calloc(cap, sizeof(size_t));
	c->line_len = calloc(cap, sizeof(size_t));
	i = 0;
	/* skip "cpus=N" */
	while (i < r.out_len && r.out[i] != '\n')
		i++;
	start = ++i;
	line = start;
	for (; i < r.out_len; i++) {
		if (r.out[i] != '\n')
			continue;
		if (i - line > 4 && !strncmp(r.out + line, "CPU:", 4) &&
		    !strncmp(r.out + i - 8, "DROPPED]", 8)) {
			line = i + 1; /* a drop line: it stays with the next record */
			continue;
		}
		ck_assert_uint_lt(c->nlines, cap);
		c->line_off[c->nlines] = start;
		c->line_len[c->nlines] = i + 1 - start;
		c->nlines++;
		start = line = i + 1;
	}
}

static void capture_close(capture *c)
{
	free(c->file);
	free(c->st.events);
	free(c->st.buffers);
	free(c->st.cpus);
	free(c->st.cpustats);
	free(c->st.scratch);
	free(c->fmts);
	free(c->fields);
	free(c->index);
	free(c->cmd.v);
	free(c->chunks);
	free(c->lines);
	free(c->line_off);
	free(c->line_len);
}

/* The records filters[0..n) keep, as `report --raw` prints them. */
static char *select_text(capture *c, const tb_filter *const *filters, size_t n, size_t *count)
{
	tb_error e;
	tb_dat_event ev;
	tb_status s;
	size_t k = 0, cap = 1 << 20, len = 0;
	char *out = malloc(cap);
	ck_assert_int_eq(tb_dat_stream_init(&c->s, &c->d, tb_dat_find_buffer(&c->d, ""), &c->layout,
					    c->cur, 8, c->chunks, c->per_cpu, 0, &e), TB_OK);
	*count = 0;
	while ((s = tb_dat_stream_next(&c->s, &ev, &e)) == TB_OK) {
		tb_filter_record r;
		const tb_format *f = NULL;
		const tb_field *pidf;
		uint64_t pid = 0;
		int show;
		memset(&r, 0, sizeof r);
		if (tb_format_set_lookup(&c->set, ev.data, ev.len, c->d.big_endian, &f, &e) != TB_OK)
			f = NULL;
		r.format = f;
		r.data = ev.data;
		r.len = ev.len;
		r.big_endian = c->d.big_endian;
		r.cpu = ev.cpu;
		pidf = f ? tb_format_field(f, "common_pid") : NULL;
		if (pidf)
			ck_assert_int_eq(tb_field_int(pidf, ev.data, ev.len, c->d.big_endian, &pid, &e),
					 TB_OK);
		if (pid == 0) {
			r.comm = "<idle>";
		} else {
			const tb_cmdline *cl = tb_cmdlines_find(&c->cmd, (int32_t)pid);
			r.comm = cl ? cl->comm : "<...>";
			r.comm_len = cl ? cl->comm_len : 5;
		}
		if (!r.comm_len)
			r.comm_len = strlen(r.comm);
		ck_assert_uint_lt(k, c->nlines);
		ck_assert_int_eq(tb_filter_select(filters, n, &r, &show, &e), TB_OK);
		{
			/* the same with the EVENTS parts decided by the caller */
			uint64_t applies = 0;
			size_t i;
			int show2 = -1;
			for (i = 0; f && i < n; i++)
				if (tb_filter_applies(filters[i], f->system, f->system_len, f->name,
						      f->name_len))
					applies |= 1ull << i;
			ck_assert_int_eq(tb_filter_select_applying(filters, n, applies, &r, &show2,
								   &e), TB_OK);
			ck_assert_int_eq(show2, show);
		}
		if (show) {
			if (len + c->line_len[k] + 1 > cap) {
				cap *= 2;
				out = realloc(out, cap);
			}
			memcpy(out + len, c->lines + c->line_off[k], c->line_len[k]);
			len += c->line_len[k];
			(*count)++;
		}
		k++;
	}
	ck_assert_int_eq(s, TB_END);
	ck_assert_uint_eq(k, c->nlines);
	out[len] = 0;
	return out;
}

/* One row: the -F options (a leading "-v " makes it and the rest
 * negative, as trace-cmd's -v does), and the records trace-cmd keeps. */
static const struct real_case {
	const char *args[3];
	size_t want;
} real_cases[] = {
	{ { "sched_switch" }, 968 },
	{ { "sched_switch: prev_pid == 0" }, 207 },
	{ { "sched_switch: prev_pid == 0 || next_comm =~ \"^kworker\"" }, 245 },
	{ { "sched" }, 3672 },
	{ { "sched/sched_switch" }, 968 },
	{ { "sched_.*" }, 3672 },
	{ { "SCHED_SWITCH" }, 968 },
	{ { "sched_switch\\|sched_wakeup" }, 1721 },
	{ { "sched_wakeup, sched_switch" }, 1721 },
	{ { "sched/sched_wakeup,irq" }, 3684 },
	{ { "sch.*/sched_wakeup.*" }, 780 },
	{ { ".*:prev_pid==0" }, 207 },
	{ { "sched_switch: prev_comm == \"ls\"" }, 246 },
	{ { "sched_switch: prev_comm =~ \"LS\"" }, 246 },
	{ { "sched_switch: prev_comm !~ \"^l\"" }, 722 },
	{ { "sched_switch: next_comm =~ \"kworker\\|swapper\"" }, 667 },
	{ { "sched_switch: next_comm =~ \"^[[:alpha:]]\"" }, 968 },
	{ { "sched_switch: next_comm =~ \"[0-9]$\"" }, 669 },
	{ { "sched_switch: next_comm =~ \"^k.\\+r\"" }, 60 },
	{ { "sched_switch: COMM == \"ls\"" }, 247 },
	{ { "sched_switch: COMM == \"<idle>\"" }, 207 },
	{ { "sched_switch: CPU == 0" }, 452 },
	{ { "sched_switch: prev_state & 1" }, 215 },
	{ { "sched_switch: prev_state & 1 && next_pid == 0" }, 181 },
	{ { "sched_switch: prev_pid % 2" }, 306 },
	{ { "sched_switch: CPU == 1 || next_pid == 0 && CPU == 0" }, 199 },
	{ { "sched_switch: next_pid == 0 && CPU == 0 || CPU == 1" }, 715 },
	{ { "sched_switch: !(prev_pid == 0 && CPU == 0)" }, 761 },
	{ { "sched : bogus == 1 || common_pid == 0" }, 1352 },
	{ { "sched_switch: prev_pid == 0", "sched_switch: next_pid == 0" }, 821 },
	{ { "sched_switch: prev_pid == 0", "sched_switch: prev_pid != 0" }, 968 },
	{ { "sched", "sched_switch: prev_pid == 0" }, 3672 },
	{ { "sched_switch", "sched_wakeup" }, 1721 },
	{ { "-v sched_switch" }, 62876 },
	{ { "-v sched_switch: prev_pid == 0" }, 63637 },
	{ { "sched", "-v sched_switch: prev_pid == 0" }, 3465 },
	{ { "-v sched_switch: prev_pid == 0", "sched_wakeup" }, 62884 },
	{ { "irq,timer: COMM =~ \"^kworker\" || CPU == 1", "-v .*: common_pid == 0" }, 625 },
};

static void run_trace_cmd(const struct real_case *rc, char **out, size_t *len)
{
	char cmd[8192];
	size_t n = 0, i;
	int neg = 0;
	tb_test_run r;
	n += (size_t)snprintf(cmd + n, sizeof cmd - n, "trace-cmd report -N -R");
	for (i = 0; i < 3 && rc->args[i]; i++) {
		const char *a = rc->args[i];
		const char *q;
		if (!strncmp(a, "-v ", 3)) {
			a += 3;
			if (!neg)
				n += (size_t)snprintf(cmd + n, sizeof cmd - n, " -v");
			neg = 1;
		}
		n += (size_t)snprintf(cmd + n, sizeof cmd - n, " -F '");
		for (q = a; *q; q++)
			n += (size_t)snprintf(cmd + n, sizeof cmd - n, *q == '\'' ? "'\\''" : "%c",
					      *q);
		n += (size_t)snprintf(cmd + n, sizeof cmd - n, "'");
	}
	snprintf(cmd + n, sizeof cmd - n, " '%s' 2>/dev/null | grep -v '^cpus='",
		 sample_path());
	tb_test_sh(cmd, &r);
	free(r.err);
	*out = r.out;
	*len = r.out_len;
}

START_TEST(filter_real_records)
{
	static capture c;
	static tb_filter fl[3];
	size_t i, k;
	int trace_cmd;
	if (!tb_test_have_zstd()) {
		printf("filter: no libzstd, real-record test skipped\n");
		return;
	}
	trace_cmd = system("command -v trace-cmd >/dev/null 2>&1") == 0;
	if (!trace_cmd)
		printf("filter: trace-cmd not installed, comparing with the counts it gave\n");
	capture_open(&c);
	capture_lines(&c);
	ck_assert_uint_eq(c.nlines, 63844);
	for (i = 0; i < ARRAY_LEN(real_cases); i++) {
		const struct real_case *rc = &real_cases[i];
		const tb_filter *list[3];
		size_t n = 0, count;
		unsigned neg = 0;
		char *ours;
		for (k = 0; k < 3 && rc->args[k]; k++) {
			const char *a = rc->args[k];
			tb_error e;
			if (!strncmp(a, "-v ", 3)) {
				a += 3;
				neg = TB_FILTER_NEGATE;
			}
			ck_assert_msg(tb_filter_compile(&fl[k], a, strlen(a), neg, &e) == TB_OK,
				      "'%s': %s at %llu", a, e.what, (unsigned long long)e.offset);
			list[n++] = &fl[k];
		}
		ours = select_text(&c, list, n, &count);
		ck_assert_msg(count == rc->want, "case %zu (%s): %zu records, trace-cmd keeps %zu", i,
			      rc->args[0], count, rc->want);
		/* trace-cmd itself on a third of the cases (each run reads the whole
		 * capture); TB_FILTER_ALL=1 runs it on all of them */
		if (trace_cmd && (i % 3 == 0 || getenv("TB_FILTER_ALL"))) {
			char *theirs;
			size_t tl;
			run_trace_cmd(rc, &theirs, &tl);
			if (tl != strlen(ours) || memcmp(theirs, ours, tl)) {
				size_t j = 0;
				while (j < tl && theirs[j] == ours[j])
					j++;
				ck_abort_msg("case %zu (%s): differs from trace-cmd at byte %zu:\n"
					     "  trace-cmd: %.120s\n  ours:      %.120s", i,
					     rc->args[0], j, theirs + j, ours + j);
			}
			free(theirs);
		}
		free(ours);
	}
	capture_close(&c);
}
END_TEST

Suite *tb_suite_filter(void)
{
	Suite *s = suite_create("filter");
	TCase *t = tcase_create("regex");
	tcase_add_test(t, regex_cases);
	tcase_add_test(t, regex_errors);
	tcase_add_test(t, regex_limits);
	tcase_add_test(t, regex_no_blowup);
	tcase_add_test(t, regex_vs_glibc);
	tcase_add_test(t, regex_nul_in_brackets);
	tcase_add_test(t, regex_intervals_as_glibc);
	suite_add_tcase(s, t);
	t = tcase_create("select");
	tcase_add_test(t, glob_cases);
	tcase_add_test(t, select_lists);
	tcase_add_test(t, select_errors);
	tcase_add_test(t, cpu_lists);
	tcase_add_test(t, cpu_list_errors);
	suite_add_tcase(s, t);
	t = tcase_create("filter");
	tcase_add_test(t, filter_operators);
	tcase_add_test(t, filter_signed);
	tcase_add_test(t, filter_precedence);
	tcase_add_test(t, filter_events_part);
	tcase_add_test(t, filter_dynamic_string);
	tcase_add_test(t, filter_check);
	tcase_add_test(t, filter_select_rule);
	tcase_add_test(t, filter_select_applying);
	tcase_add_test(t, filter_errors);
	tcase_add_test(t, filter_limits);
	suite_add_tcase(s, t);
	t = tcase_create("real");
	tcase_add_test(t, filter_real_records);
	suite_add_tcase(s, t);
	return s;
}
