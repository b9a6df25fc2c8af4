/*
 * lib/sha256.c: SHA-256 against the FIPS 180-4 examples (one and two
 * blocks, the empty message, a million 'a'), every split of a message
 * into two updates, and the trace id of a trace.dat and of raw dumps
 * (known answers computed outside tracebound, with Python's hashlib).
 */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "testutil.h"
#include "tracebound/dataset.h"

Suite *tb_suite_dataset(void);

static void hex(const uint8_t *d, size_t n, char *out)
{
	size_t i;
	for (i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", d[i]);
}

static void digest_hex(const void *p, size_t n, char out[65])
{
	tb_sha256 s;
	uint8_t d[TB_SHA256_SIZE];
	tb_sha256_init(&s);
	tb_sha256_update(&s, p, n);
	tb_sha256_final(&s, d);
	hex(d, sizeof(d), out);
}

START_TEST(test_sha256_vectors)
{
	static const struct {
		const char *msg, *want;
	} v[] = {
		{ "", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
		{ "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" },
		{ "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
		  "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1" },
		{ "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnop"
		  "jklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
		  "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1" },
	};
	char out[65];
	size_t i;
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		digest_hex(v[i].msg, strlen(v[i].msg), out);
		ck_assert_str_eq(out, v[i].want);
	}
}
END_TEST

START_TEST(test_sha256_million_a)
{
	static uint8_t a[1000];
	tb_sha256 s;
	uint8_t d[TB_SHA256_SIZE];
	char out[65];
	int i;
	memset(a, 'a', sizeof(a));
	tb_sha256_init(&s);
	for (i = 0; i < 1000; i++)
		tb_sha256_update(&s, a, sizeof(a));
	tb_sha256_final(&s, d);
	hex(d, sizeof(d), out);
	ck_assert_str_eq(out, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}
END_TEST

/* bytes 0..255 three times, cut at every place into two updates (and a
 * NULL, empty one between): the digest never changes */
START_TEST(test_sha256_every_split)
{
	uint8_t m[768], d[TB_SHA256_SIZE];
	char out[65];
	size_t i, cut;
	for (i = 0; i < sizeof(m); i++)
		m[i] = (uint8_t)i;
	for (cut = 0; cut <= sizeof(m); cut++) {
		tb_sha256 s;
		tb_sha256_init(&s);
		tb_sha256_update(&s, m, cut);
		tb_sha256_update(&s, NULL, 0);
		tb_sha256_update(&s, m + cut, sizeof(m) - cut);
		tb_sha256_final(&s, d);
		hex(d, sizeof(d), out);
		ck_assert_msg(!strcmp(out, "f3a25aa93aa2fbba28d79260535bbd6a5eb0fc1c24a8b0f04e12b484c1dfe363"),
			      "cut at %zu: %s", cut, out);
	}
}
END_TEST

/* The id of a header page (name, content), a format and a CPU's dump. */
static void raw_id(const char *hp_name, const char *hp, char id[TB_TRACE_ID_LEN + 1])
{
	tb_sha256 s;
	tb_trace_id_raw_begin(&s);
	tb_trace_id_part(&s, TB_TRACE_ID_HEADER_PAGE, hp_name, strlen(hp_name), hp, strlen(hp));
	tb_trace_id_part(&s, TB_TRACE_ID_FORMAT, "sched/sched_switch", 18, "fmt", 3);
	tb_trace_id_part(&s, TB_TRACE_ID_CPU, "0", 1, "\x01\x02", 2);
	tb_trace_id_final(&s, id);
}

START_TEST(test_trace_id)
{
	char id[TB_TRACE_ID_LEN + 1];
	tb_trace_id_dat("abc", 3, id);
	ck_assert_str_eq(id, "ba7816bf8f01cfea414140de5dae2223");
	/* raw dumps: the framed parts */
	raw_id("header_page", "hp", id);
	ck_assert_str_eq(id, "b8eaba6baa48a53a08b1c9654819eeff");
	/* a byte moved from a name to its content is another id */
	raw_id("header_pag", "ehp", id);
	ck_assert_str_ne(id, "b8eaba6baa48a53a08b1c9654819eeff");
	/* raw dumps through tb_trace_id_raw: CPUs by number whatever the
	 * order given, the same framing */
	{
		static const char hp[] = "hp", fmt[] = "fmt";
		const tb_session_format_text ft = { { "sched/sched_switch", 18 }, { fmt, 3 } };
		const tb_session_raw_cpu one[2] = { { 0, "\x01\x02", 2 }, { 10, "\x03", 1 } };
		const tb_session_raw_cpu two[2] = { { 10, "\x03", 1 }, { 0, "\x01\x02", 2 } };
		char a[TB_TRACE_ID_LEN + 1], b[TB_TRACE_ID_LEN + 1];
		tb_trace_id_raw(hp, 2, &ft, 1, one, 1, a);
		ck_assert_str_eq(a, "b8eaba6baa48a53a08b1c9654819eeff");
		tb_trace_id_raw(hp, 2, &ft, 1, one, 2, a);
		tb_trace_id_raw(hp, 2, &ft, 1, two, 2, b);
		ck_assert_str_eq(a, b);
		ck_assert_str_eq(a, "126539d897e29127a2efea348af6402d");
		/* the same through a session's source; a trace.dat's is its bytes */
		{
			tb_session_source src;
			memset(&src, 0, sizeof(src));
			src.header_page.ptr = hp;
			src.header_page.len = 2;
			src.formats = &ft;
			src.nformats = 1;
			src.raw = two;
			src.nraw = 2;
			tb_trace_id_source(&src, b);
			ck_assert_str_eq(b, "126539d897e29127a2efea348af6402d");
			src.dat = "abc";
			src.dat_len = 3;
			tb_trace_id_source(&src, b);
			ck_assert_str_eq(b, "ba7816bf8f01cfea414140de5dae2223");
		}
	}
}
END_TEST

Suite *tb_suite_dataset(void)
{
	Suite *s = suite_create("dataset");
	TCase *tc = tcase_create("sha256");
	tcase_add_test(tc, test_sha256_vectors);
	tcase_add_test(tc, test_sha256_million_a);
	tcase_add_test(tc, test_sha256_every_split);
	tcase_add_test(tc, test_trace_id);
	suite_add_tcase(s, tc);
	return s;
}
