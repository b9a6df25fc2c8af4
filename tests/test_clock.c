/*
 * tb_clock_parse: the one reading of a trace_clock text (session, Perfetto,
 * Parquet), and which clocks count nanoseconds.
 */
#include <check.h>
#include <string.h>

#include "tracebound/tracebound.h"

Suite *tb_suite_clock(void);

static void expect(const char *text, const char *want)
{
	tb_span c = tb_clock_parse(text, text ? strlen(text) : 0);
	ck_assert_msg(c.len == strlen(want) && !memcmp(c.ptr, want, c.len), "%s: %.*s",
		      text ? text : "(null)", (int)c.len, c.ptr);
}

START_TEST(clock_names)
{
	/* the kernel's trace_clock file: the selected one bracketed */
	expect("[local] global counter uptime perf mono mono_raw boot x86-tsc\n", "local");
	expect("local global counter uptime perf mono mono_raw [boot] x86-tsc\n", "boot");
	/* a raw dump's word, a first word, blanks around it */
	expect("mono\n", "mono");
	expect("  x86-tsc  \n", "x86-tsc");
	expect("local global", "local");
	/* nothing named: what trace-cmd assumes */
	expect("", "local");
	expect(NULL, "local");
	expect(" \n", "local");
	expect("[]", "local");
	/* an open bracket never closed: the first word as it stands */
	expect("[boot", "[boot");
}
END_TEST

START_TEST(clock_units)
{
	static const char *const ns[] = { "local", "global", "uptime", "perf", "mono",
					  "mono_raw", "tsc2nsec", "boot", "tai" };
	static const char *const counters[] = { "counter", "x86-tsc", "loca", "globals" };
	size_t i;
	for (i = 0; i < sizeof(ns) / sizeof(ns[0]); i++)
		ck_assert_msg(tb_clock_counts_ns(tb_clock_parse(ns[i], strlen(ns[i]))), "%s", ns[i]);
	for (i = 0; i < sizeof(counters) / sizeof(counters[0]); i++)
		ck_assert_msg(!tb_clock_counts_ns(tb_clock_parse(counters[i], strlen(counters[i]))),
			      "%s", counters[i]);
}
END_TEST

Suite *tb_suite_clock(void)
{
	Suite *s = suite_create("clock");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, clock_names);
	tcase_add_test(tc, clock_units);
	suite_add_tcase(s, tc);
	return s;
}
