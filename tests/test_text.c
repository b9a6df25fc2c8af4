/* include/tracebound/text.h: the one text sink; numbers equal printf's. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "tracebound/text.h"
#include "digits.h" /* lib/: the one digit table's routines */

/* printf is the oracle here: its formats come from the table below */
#pragma GCC diagnostic ignored "-Wformat-nonliteral"

Suite *tb_suite_text(void);

START_TEST(numbers_equal_printf)
{
	static const long long vals[] = { 0, 1, -1, 7, -42, 255, 4096, 99, 100, 4294967295LL,
					  4294967296LL, -2147483648LL, 9223372036854775807LL,
					  -9223372036854775807LL - 1 };
	static const struct { unsigned flags; const char *d, *u, *x; } styles[] = {
		{ 0, "%*lld", "%*llu", "%*llX" },
		{ TB_TEXT_ZERO, "%0*lld", "%0*llu", "%0*llX" },
		{ TB_TEXT_LEFT, "%-*lld", "%-*llu", "%-*llX" },
	};
	size_t i, j;
	unsigned w, cap;
	for (i = 0; i < sizeof(vals) / sizeof(vals[0]); i++)
		for (j = 0; j < 3; j++)
			for (w = 0; w < 24; w += 5)
				for (cap = 4; cap <= 64; cap += 60) {
					/* cap 4: the slow path that counts what does not fit */
					char a[64], b[64];
					tb_text t;
					tb_text_init(&t, a, cap);
					tb_text_i64(&t, vals[i], w, styles[j].flags);
					tb_text_finish(&t);
					snprintf(b, sizeof(b), styles[j].d, (int)w, vals[i]);
					ck_assert_uint_eq(t.need, strlen(b));
					ck_assert(!strncmp(a, b, cap - 1));
					tb_text_init(&t, a, cap);
					tb_text_u64(&t, (unsigned long long)vals[i], w, styles[j].flags);
					tb_text_finish(&t);
					snprintf(b, sizeof(b), styles[j].u, (int)w,
						 (unsigned long long)vals[i]);
					ck_assert_uint_eq(t.need, strlen(b));
					ck_assert(!strncmp(a, b, cap - 1));
					tb_text_init(&t, a, cap);
					tb_text_hex(&t, (unsigned long long)vals[i], w,
						    styles[j].flags | TB_TEXT_UPPER);
					tb_text_finish(&t);
					snprintf(b, sizeof(b), styles[j].x, (int)w,
						 (unsigned long long)vals[i]);
					ck_assert_uint_eq(t.need, strlen(b));
					ck_assert(!strncmp(a, b, cap - 1));
				}
}
END_TEST

START_TEST(truncation_is_counted)
{
	char buf[8];
	tb_text t;
	tb_text_init(&t, buf, sizeof(buf));
	tb_text_puts(&t, "abcdef");
	ck_assert(!tb_text_truncated(&t));
	tb_text_u64(&t, 12345, 0, 0);
	ck_assert(tb_text_truncated(&t));
	ck_assert_uint_eq(t.len, 7);
	ck_assert_uint_eq(t.need, 11);
	tb_text_fill(&t, ' ', 1000);
	tb_text_finish(&t);
	ck_assert_uint_eq(t.len, 7);
	ck_assert_uint_eq(t.need, 1011);
	ck_assert_str_eq(buf, "abcdef1");
	/* no memory: everything counted, nothing written */
	tb_text_init(&t, NULL, 100);
	tb_text_puts(&t, "x");
	tb_text_finish(&t);
	ck_assert_uint_eq(t.len, 0);
	ck_assert_uint_eq(t.need, 1);
	/* the tail: a writer that fills memory itself */
	{
		size_t room;
		char *tail;
		tb_text_init(&t, buf, sizeof(buf));
		tb_text_puts(&t, "ab");
		tail = tb_text_tail(&t, &room);
		ck_assert_ptr_eq(tail, buf + 2);
		ck_assert_uint_eq(room, 6);
		memcpy(tail, "cd", 3);
		tb_text_advance(&t, 2, 2);
		ck_assert_int_eq(tb_text_last(&t), 'd');
		tb_text_advance(&t, 0, 50); /* a piece that did not fit */
		ck_assert_int_eq(tb_text_last(&t), -1);
		ck_assert_ptr_null(tb_text_tail(&t, &room));
		ck_assert_uint_eq(room, 0);
		ck_assert_uint_eq(t.need, 54);
	}
}
END_TEST

/* Every digit-count boundary in decimal and hex (where the pair tables
 * and the length guesses could be off by one), against printf. */
START_TEST(digit_boundaries_equal_printf)
{
	uint64_t vals[96];
	size_t n = 0, i;
	uint64_t p10 = 1;
	vals[n++] = 0;
	vals[n++] = UINT64_MAX;
	vals[n++] = 0x1005;
	vals[n++] = 0x0f00;
	vals[n++] = 0x105;
	for (i = 1; i < 20; i++) {
		p10 *= 10;
		vals[n++] = p10 - 1;
		vals[n++] = p10;
	}
	for (i = 1; i < 16; i++) {
		vals[n++] = ((uint64_t)1 << (4 * i)) - 1;
		vals[n++] = (uint64_t)1 << (4 * i);
	}
	for (i = 0; i < n; i++) {
		char a[32], b[32], *end = a + sizeof(a);
		size_t k;
		snprintf(b, sizeof(b), "%llu", (unsigned long long)vals[i]);
		k = tb_dec_digits(end, vals[i]);
		ck_assert_uint_eq(k, strlen(b));
		ck_assert_uint_eq(tb_dec_len(vals[i]), strlen(b));
		ck_assert(!memcmp(end - k, b, k));
		snprintf(b, sizeof(b), "%llx", (unsigned long long)vals[i]);
		k = tb_hex_digits(end, vals[i], 0);
		ck_assert_uint_eq(k, strlen(b));
		ck_assert_uint_eq(tb_hex_len(vals[i]), strlen(b));
		ck_assert(!memcmp(end - k, b, k));
		snprintf(b, sizeof(b), "%llX", (unsigned long long)vals[i]);
		k = tb_hex_digits(end, vals[i], 1);
		ck_assert(k == strlen(b) && !memcmp(end - k, b, k));
		/* tb_dec_n: one store below 10^8, the digit loop above */
		memset(a, 'z', sizeof(a));
		snprintf(b, sizeof(b), "%llu", (unsigned long long)vals[i]);
		tb_dec_n(a, vals[i], tb_dec_len(vals[i]));
		ck_assert(!memcmp(a, b, strlen(b)));
		if (vals[i] < 1000000) {
			memset(a, 'z', sizeof(a));
			tb_dec_fixed(a, (uint32_t)vals[i], 6);
			snprintf(b, sizeof(b), "%06u", (unsigned)vals[i]);
			ck_assert(!memcmp(a, b, 6) && a[6] == 'z');
		}
	}
}
END_TEST

/* tb_dec_fast at every value below 1100 (its three-digit way and the
 * first of tb_dec8's) and every digit-count boundary: printf's digits,
 * and nothing written past its 24 bytes. */
START_TEST(dec_fast_equals_printf)
{
	uint64_t vals[1100 + 2 * 16 + 1], p10 = 1000;
	size_t n = 0;
	for (unsigned i = 0; i < 1100; i++)
		vals[n++] = i;
	for (int k = 4; k < 20; k++) { /* 10^k - 1 and 10^k */
		p10 *= 10;
		vals[n++] = p10 - 1;
		vals[n++] = p10;
	}
	vals[n++] = UINT64_MAX;
	for (size_t i = 0; i < n; i++) {
		char a[32], b[32];
		size_t k;
		memset(a, 'z', sizeof(a));
		snprintf(b, sizeof(b), "%llu", (unsigned long long)vals[i]);
		k = tb_dec_fast(a, vals[i]);
		ck_assert_uint_eq(k, strlen(b));
		ck_assert_msg(!memcmp(a, b, k), "%s", b);
		ck_assert(a[24] == 'z');
	}
}
END_TEST

/* tb_copy_short at every length to 40 (its three ways: up to 16, two
 * overlapping halves to 32, memcpy past): the bytes and nothing after. */
START_TEST(short_copies_are_exact)
{
	const char *src = "0123456789abcdefghijklmnopqrstuvwxyzABCD";
	for (size_t n = 0; n <= 40; n++) {
		char d[48];
		memset(d, '.', sizeof(d));
		tb_copy_short(d, src, n);
		ck_assert(!memcmp(d, src, n));
		ck_assert_int_eq(d[n], '.');
	}
}
END_TEST

/*
 * Numbers without width at every room and after text that was cut: the
 * digits printf gives (the bare path wants 25 bytes of room, the others
 * count what does not fit).
 */
START_TEST(bare_numbers_at_every_room)
{
	static const long long vals[] = { 0, 9, -9, 99999999, 100000000, -100000000,
					  9999999999999999LL, 10000000000000000LL,
					  -9223372036854775807LL - 1, 9223372036854775807LL };
	size_t i, cap;
	for (i = 0; i < sizeof(vals) / sizeof(vals[0]); i++)
		for (cap = 0; cap <= 48; cap++) {
			char a[64], want[96];
			tb_text t;
			size_t n = (size_t)snprintf(want, sizeof(want), "x%lld,%llu", vals[i],
						    (unsigned long long)vals[i]);
			memset(a, '#', sizeof(a));
			tb_text_init(&t, a, cap);
			tb_text_putc(&t, 'x');
			tb_text_i64(&t, vals[i], 0, 0);
			tb_text_putc(&t, ',');
			tb_text_u64(&t, (unsigned long long)vals[i], 0, 0);
			tb_text_finish(&t);
			ck_assert_uint_eq(t.need, n);
			ck_assert_uint_eq(t.len, cap ? (cap - 1 < n ? cap - 1 : n) : 0);
			ck_assert(!memcmp(a, want, t.len));
			if (cap)
				ck_assert_uint_eq(a[t.len], 0);
			ck_assert_uint_eq(a[cap], '#');
		}
}
END_TEST

/* The escaping JSON strings take, byte by byte (for the bytes below:
 * ASCII, the valid "\xc3\xa9", a lone 0x80). */
static size_t json_want(char *out, const char *s, size_t n)
{
	size_t i, k = 0;
	out[k++] = '"';
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == 0xc3 && i + 1 < n && (unsigned char)s[i + 1] == 0xa9) {
			out[k++] = (char)c;
			out[k++] = s[++i];
		} else if (c == '"' || c == '\\') {
			out[k++] = '\\';
			out[k++] = (char)c;
		} else if (c == '\n') {
			out[k++] = '\\';
			out[k++] = 'n';
		} else if (c < 0x20 || c >= 0x80) {
			k += (size_t)sprintf(out + k, "\\u%04x", c);
		} else {
			out[k++] = (char)c;
		}
	}
	out[k++] = '"';
	return k;
}

/*
 * JSON strings of 0 to 40 bytes, plain or with one byte to escape (or a
 * UTF-8 pair) at each place: in the words checked a word at a time, in
 * the last word, in the bytes after: the bytes json_want gives, at every
 * room a prefix and the whole length.
 */
START_TEST(json_strings_at_every_place_and_room)
{
	static const char *const odd[] = { "", "\"", "\\", "\n", "\x01", "\x7f", "\x80",
					   "\xc3\xa9" };
	size_t len, at, o, cap;
	for (len = 0; len <= 40; len++)
		for (o = 0; o < sizeof(odd) / sizeof(odd[0]); o++)
			for (at = 0; at <= len; at += (o ? 1 : len + 1)) {
				char s[48], want[320], a[320];
				size_t n = 0, wn, i;
				for (i = 0; i < len; i++) {
					if (i == at)
						n += (size_t)sprintf(s + n, "%s", odd[o]);
					s[n++] = (char)('a' + i % 26);
				}
				if (at == len)
					n += (size_t)sprintf(s + n, "%s", odd[o]);
				wn = json_want(want, s, n);
				for (cap = 0; cap <= wn + 1; cap++) {
					tb_text t;
					memset(a, '#', sizeof(a));
					tb_text_init(&t, a, cap);
					tb_json_str(&t, n ? s : NULL, n);
					ck_assert_uint_eq(t.need, wn);
					ck_assert_uint_eq(t.len, cap ? (cap - 1 < wn ? cap - 1 : wn) : 0);
					ck_assert(!memcmp(a, want, t.len));
					ck_assert_uint_eq(a[cap], '#');
				}
			}
}
END_TEST

Suite *tb_suite_text(void)
{
	Suite *s = suite_create("text");
	TCase *t = tcase_create("text");
	tcase_add_test(t, numbers_equal_printf);
	tcase_add_test(t, truncation_is_counted);
	tcase_add_test(t, digit_boundaries_equal_printf);
	tcase_add_test(t, dec_fast_equals_printf);
	tcase_add_test(t, short_copies_are_exact);
	tcase_add_test(t, bare_numbers_at_every_room);
	tcase_add_test(t, json_strings_at_every_place_and_room);
	suite_add_tcase(s, t);
	return s;
}
