/* cli/outbuf.h: bounded appends and printf-equal numbers. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "../cli/outbuf.h"

/* printf is the oracle here: its formats come from the table below */
#pragma GCC diagnostic ignored "-Wformat-nonliteral"

Suite *tb_suite_outbuf(void);

START_TEST(numbers_equal_printf)
{
	static const long long vals[] = { 0, 1, -1, 7, -42, 255, 4096, -2147483648LL,
					  9223372036854775807LL, -9223372036854775807LL - 1 };
	static const struct { unsigned flags; const char *pf; } styles[] = {
		{ 0, "%*lld" }, { TB_OB_ZERO, "%0*lld" }, { TB_OB_LEFT, "%-*lld" },
	};
	size_t i, j, w;
	for (i = 0; i < sizeof(vals) / sizeof(vals[0]); i++)
		for (j = 0; j < 3; j++)
			for (w = 0; w < 24; w += 5) {
				char a[64], b[64];
				tb_outbuf o;
				tb_ob_init(&o, a, sizeof(a));
				tb_ob_int(&o, vals[i], w, styles[j].flags);
				snprintf(b, sizeof(b), styles[j].pf, (int)w, vals[i]);
				ck_assert_uint_eq(o.len, strlen(b));
				ck_assert(!memcmp(a, b, o.len));
				tb_ob_init(&o, a, sizeof(a));
				tb_ob_uint(&o, (unsigned long long)vals[i], 16, w,
					   styles[j].flags | TB_OB_UPPER);
				snprintf(b, sizeof(b), j == 0 ? "%*llX" : j == 1 ? "%0*llX" : "%-*llX",
					 (int)w, (unsigned long long)vals[i]);
				ck_assert_uint_eq(o.len, strlen(b));
				ck_assert(!memcmp(a, b, o.len));
				tb_ob_init(&o, a, sizeof(a));
				tb_ob_uint(&o, (unsigned long long)vals[i], 8, w, styles[j].flags);
				snprintf(b, sizeof(b), j == 0 ? "%*llo" : j == 1 ? "%0*llo" : "%-*llo",
					 (int)w, (unsigned long long)vals[i]);
				ck_assert(!memcmp(a, b, o.len) && o.len == strlen(b));
			}
}
END_TEST

START_TEST(truncation_is_flagged)
{
	char buf[8];
	tb_outbuf o;
	tb_ob_init(&o, buf, sizeof(buf));
	tb_ob_puts(&o, "abcdef");
	ck_assert_int_eq(o.truncated, 0);
	tb_ob_uint(&o, 12345, 10, 0, 0);
	ck_assert_int_eq(o.truncated, 1);
	ck_assert_uint_eq(o.len, 8);
	ck_assert(!memcmp(buf, "abcdef12", 8));
	tb_ob_fill(&o, ' ', 1000);
	ck_assert_uint_eq(o.len, 8);
	tb_ob_init(&o, NULL, 100);
	tb_ob_puts(&o, "x");
	ck_assert_uint_eq(o.len, 0);
	ck_assert_int_eq(o.truncated, 1);
}
END_TEST

Suite *tb_suite_outbuf(void)
{
	Suite *s = suite_create("outbuf");
	TCase *t = tcase_create("outbuf");
	tcase_add_test(t, numbers_equal_printf);
	tcase_add_test(t, truncation_is_flagged);
	suite_add_tcase(s, t);
	return s;
}
