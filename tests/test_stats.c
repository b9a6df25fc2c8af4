/*
 * Statistics (include/tracebound/stats.h) of the bundled capture
 * (tests/data/sched4k.v7zstd.dat): the counts and the text are
 * `tracebound stats`'s golden output (tests/golden/sched4k.v7.dat.stats,
 * the same events uncompressed) line for line.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "tracebound/tracebound.h"

#include "testutil.h"
#include "zstd_dl.h"

Suite *tb_suite_stats(void);

static uint8_t *dat;

static tb_session *open_bundled(void)
{
	tb_session_source src;
	tb_session *s = NULL;
	tb_error err;
	size_t len;
	dat = tb_test_read_file(tb_test_path("tests/data/sched4k.v7zstd.dat"), &len);
	ck_assert_ptr_nonnull(dat);
	memset(&src, 0, sizeof(src));
	src.dat = dat;
	src.dat_len = len;
	src.decompress.fn = tb_test_zstd;
	ck_assert_int_eq(tb_session_open(&s, &src, NULL, &tb_test_heap, &err), TB_OK);
	return s;
}

START_TEST(stats_of_the_bundled_capture)
{
	tb_session *s = open_bundled();
	tb_stats_cpu cpus[2];
	tb_stats_type types[4];
	tb_stats b;
	tb_session_event ev;
	tb_error err;
	tb_text t;
	size_t glen, grown = 0;
	char *golden = (char *)tb_test_read_file(tb_test_path("tests/golden/sched4k.v7.dat.stats"),
						&glen);
	static char out[16384];
	tb_stats_type *room = types;
	ck_assert_uint_eq(tb_session_get_info(s)->nbuffers, 1);
	ck_assert_uint_eq(tb_stats_cpus(s, 0, NULL, 0), 2);
	memset(&b, 0, sizeof(b));
	b.cpus = cpus;
	b.ncpus = tb_stats_cpus(s, 0, cpus, 2);
	ck_assert_uint_eq(b.ncpus, 2);
	ck_assert(cpus[0].cpu == 0 && cpus[1].cpu == 1 && cpus[1].events == 0);
	b.types = types;
	b.types_cap = 4;
	while (tb_session_next(s, &ev, &err) == TB_OK) {
		tb_status st;
		while ((st = tb_stats_count(&b, &ev)) == TB_ERR_NO_SPACE) {
			/* the caller's room grows: nothing was counted */
			tb_stats_type *more = malloc(2 * b.types_cap * sizeof(*more));
			ck_assert_ptr_nonnull(more);
			memcpy(more, b.types, b.ntypes * sizeof(*more));
			if (b.types != types)
				free(b.types);
			b.types = more;
			b.types_cap *= 2;
			grown++;
		}
		ck_assert_int_eq(st, TB_OK);
	}
	room = b.types;
	ck_assert_uint_ge(grown, 2);
	ck_assert_uint_eq(b.events, 63844);
	ck_assert_uint_eq(cpus[0].events, 39537);
	ck_assert_uint_eq(cpus[1].first, 192833676481ull);
	ck_assert_uint_eq(b.last, 193379737076ull);
	tb_text_init(&t, out, sizeof(out));
	tb_stats_text(&t, s, &b);
	tb_text_finish(&t);
	ck_assert(!tb_text_truncated(&t));
	/* after the compression line, the golden's text */
	{
		const char *g = strstr(golden, "\nbuffers: "), *o = strstr(out, "\nbuffers: ");
		ck_assert_ptr_nonnull(g);
		ck_assert_ptr_nonnull(o);
		ck_assert_uint_eq(strlen(o), glen - (size_t)(g - golden));
		ck_assert(!memcmp(o, g, strlen(o)));
		ck_assert(!strncmp(out, "version: 7\ncompression: zstd\nbuffers: 1\n", 40));
	}
	/* most frequent first */
	ck_assert_uint_eq(room[0].n, 8639);
	ck_assert(room[0].format->name_len == 13 && !memcmp(room[0].format->name, "sys_exit_read", 13));
	/* a small sink holds the start and knows the whole length */
	{
		char small[32];
		tb_text st;
		tb_stats b2 = b;
		tb_text_init(&st, small, sizeof(small));
		tb_stats_text(&st, s, &b2);
		ck_assert(tb_text_truncated(&st));
		ck_assert_uint_eq(st.need, t.len);
		ck_assert(!memcmp(small, out, st.len));
	}
	if (room != types)
		free(room);
	free(golden);
	tb_session_close(s);
	free(dat);
}
END_TEST

/* Events without a format and malformed pages have their lines. */
START_TEST(stats_unknown_and_errors)
{
	tb_session *s = open_bundled();
	tb_stats_cpu cpus[2];
	tb_stats_type types[1];
	tb_stats b;
	tb_session_event ev;
	tb_error err;
	tb_text t;
	static char out[4096];
	memset(&b, 0, sizeof(b));
	b.cpus = cpus;
	b.ncpus = tb_stats_cpus(s, 0, cpus, 2);
	b.types = types;
	b.types_cap = 1;
	ck_assert_int_eq(tb_session_next(s, &ev, &err), TB_OK);
	ck_assert_int_eq(tb_stats_count(&b, &ev), TB_OK);
	ev.format = NULL;
	ev.ts = 5;
	ck_assert_int_eq(tb_stats_count(&b, &ev), TB_OK);
	b.errors = 3;
	tb_text_init(&t, out, sizeof(out));
	tb_stats_text(&t, s, &b);
	tb_text_finish(&t);
	ck_assert_ptr_nonnull(strstr(out, "events: 2\n"));
	ck_assert_ptr_nonnull(strstr(out, "first: 0.000000005\n"));
	ck_assert_ptr_nonnull(strstr(out, "per event:\n           1  syscalls:sys_enter_newfstat\n"
					  "           1  (event ids without a format)\n"
					  "malformed pages: 3\n"));
	tb_session_close(s);
	free(dat);
}
END_TEST

Suite *tb_suite_stats(void)
{
	Suite *s = suite_create("stats");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, stats_of_the_bundled_capture);
	tcase_add_test(tc, stats_unknown_and_errors);
	suite_add_tcase(s, tc);
	return s;
}
