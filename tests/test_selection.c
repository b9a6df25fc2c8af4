/*
 * The selection API (selection.h): every error with its option and byte,
 * every name rule, CPUs, the window, -F filters, on the bundled capture
 * (tests/data/sched4k.v7zstd.dat).  The counts are report --json's on the
 * same file (`report --json --events sched_switch ... | wc -l`).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracebound/tracebound.h"

#include "testutil.h"
#include "zstd_dl.h"

Suite *tb_suite_selection(void);

#define DAT "tests/data/sched4k.v7zstd.dat"
#define ALL_EVENTS 63844u

static uint8_t *g_data;
static size_t g_len;

static tb_session *open_sample(void)
{
	tb_session_source src;
	tb_session_options opt = { 0, TB_RENDER_KNOWN_ENUMS | TB_RENDER_KERNEL_STYLE };
	tb_session *s = NULL;
	tb_error err;
	if (!g_data)
		g_data = tb_test_read_file(tb_test_path(DAT), &g_len);
	ck_assert_ptr_nonnull(g_data);
	memset(&src, 0, sizeof(src));
	src.dat = g_data;
	src.dat_len = g_len;
	src.decompress.fn = tb_test_zstd;
	ck_assert_int_eq(tb_session_open(&s, &src, &opt, &tb_test_heap, &err), TB_OK);
	return s;
}

/* The sample is zstd-compressed: without libzstd the suite says so and passes. */
#define NEED_ZSTD()                                                             \
	do {                                                                    \
		if (!tb_test_have_zstd()) {                                     \
			printf("selection: no libzstd, test skipped\n");        \
			return;                                                 \
		}                                                               \
	} while (0)

static tb_span span(const char *t)
{
	tb_span sp;
	sp.ptr = t;
	sp.len = t ? strlen(t) : 0;
	return sp;
}

static void spec_init(tb_selection_spec *sp)
{
	memset(sp, 0, sizeof(*sp));
	sp->to = UINT64_MAX;
	sp->negate_from = SIZE_MAX;
}

/* Events the selection shows in a whole walk of a fresh session; with
 * *sid the sum of their ids, *scpu a bit per CPU seen. */
static uint64_t count(const tb_selection_spec *sp, uint64_t *sid, uint64_t *scpu)
{
	static tb_selection sel;
	tb_selection_error e;
	tb_session_event ev;
	tb_error err;
	tb_status st;
	tb_session *s = open_sample();
	uint64_t n = 0, ids = 0, cpus = 0;
	ck_assert_int_eq(tb_selection_init(&sel, sp, &tb_test_heap, &e), TB_OK);
	ck_assert_int_eq(tb_selection_bind(&sel, s, &e), TB_OK);
	ck_assert_int_eq(tb_selection_check(&sel, &e), TB_OK);
	while ((st = tb_session_next(s, &ev, &err)) == TB_OK)
		if (tb_selection_match(&sel, s, &ev)) {
			n++;
			ids += ev.id;
			cpus |= 1ull << (ev.cpu % 64u);
		}
	ck_assert_int_eq(st, TB_END);
	tb_session_close(s);
	tb_selection_free(&sel);
	if (sid)
		*sid = ids;
	if (scpu)
		*scpu = cpus;
	return n;
}

static uint64_t count_events(const char *list)
{
	tb_selection_spec sp;
	spec_init(&sp);
	sp.events = span(list);
	return count(&sp, NULL, NULL);
}

START_TEST(selection_name_rules)
{
	NEED_ZSTD();
	/* report --json --events X | wc -l on the sample */
	ck_assert_uint_eq(count_events("sched_switch"), 968);       /* an event name */
	ck_assert_uint_eq(count_events("sched:sched_switch"), 968); /* system:event */
	ck_assert_uint_eq(count_events("*:sched_switch"), 968);     /* any system */
	ck_assert_uint_eq(count_events("sched"), 3672);             /* a system name */
	ck_assert_uint_eq(count_events("sched:*"), 3672);           /* a system's events */
	ck_assert_uint_eq(count_events("sched_w*"), 1518);          /* a glob */
	ck_assert_uint_eq(count_events(" sched_switch , sched_switch "), 968); /* blanks, twice */
	ck_assert_uint_eq(count_events("sched_switch,sched_w*"), 968 + 1518);
}
END_TEST

START_TEST(selection_nothing_selects_everything)
{
	tb_selection_spec sp;
	static tb_selection sel;
	tb_selection_error e;
	NEED_ZSTD();
	spec_init(&sp);
	ck_assert_uint_eq(count(&sp, NULL, NULL), ALL_EVENTS);
	ck_assert_int_eq(tb_selection_init(&sel, &sp, &tb_test_heap, &e), TB_OK);
	ck_assert_int_eq(tb_selection_all(&sel), 1);
	tb_selection_free(&sel);
	sp.cpus = span("0");
	ck_assert_int_eq(tb_selection_init(&sel, &sp, &tb_test_heap, &e), TB_OK);
	ck_assert_int_eq(tb_selection_all(&sel), 0);
	tb_selection_free(&sel);
}
END_TEST

START_TEST(selection_cpus_and_window)
{
	tb_selection_spec sp;
	uint64_t cpus, mask[2] = { 2, 0 };
	NEED_ZSTD();
	spec_init(&sp);
	sp.cpus = span("1");
	sp.ncpus = 2;
	ck_assert_uint_eq(count(&sp, NULL, &cpus), 24307); /* report --cpu 1 */
	ck_assert_uint_eq(cpus, 2);
	sp.events = span("sched_switch");
	ck_assert_uint_eq(count(&sp, NULL, &cpus), 516);
	/* a mask instead of a list: the same CPU */
	sp.cpus = span(NULL);
	sp.cpu_mask = mask;
	sp.cpu_words = 2;
	ck_assert_uint_eq(count(&sp, NULL, NULL), 516);
	sp.cpu_mask = NULL;
	/* both ends included: the first sched_switch is at 192833687092 */
	sp.from = 192833687092ull;
	sp.to = 192900000000ull;
	ck_assert_uint_eq(count(&sp, NULL, NULL), 261);
	sp.from = 192833687093ull;
	ck_assert_uint_eq(count(&sp, NULL, NULL), 260);
	/* to < from: nothing */
	sp.to = sp.from - 1;
	ck_assert_uint_eq(count(&sp, NULL, NULL), 0);
	spec_init(&sp);
	sp.flags = TB_SELECTION_NO_EVENTS;
	ck_assert_uint_eq(count(&sp, NULL, NULL), 0);
}
END_TEST

START_TEST(selection_filters)
{
	tb_selection_spec sp;
	uint64_t ids;
	NEED_ZSTD();
	spec_init(&sp);
	sp.filters[0] = span("sched_switch: prev_pid == 0");
	sp.nfilters = 1;
	ck_assert_uint_eq(count(&sp, &ids, NULL), 207); /* report -F ... */
	ck_assert_uint_eq(ids, 207u * 372u);            /* sched_switch's id, each */
	/* -v: every event but those */
	sp.negate_from = 0;
	ck_assert_uint_eq(count(&sp, NULL, NULL), ALL_EVENTS - 207);
	/* a positive one and a negative one: only the positive's events */
	sp.filters[1] = span("sched_waking");
	sp.nfilters = 2;
	sp.negate_from = 1;
	ck_assert_uint_eq(count(&sp, NULL, NULL), 207);
	/* with an events list: both must keep it */
	sp.nfilters = 1;
	sp.negate_from = SIZE_MAX;
	sp.events = span("sched_waking");
	ck_assert_uint_eq(count(&sp, NULL, NULL), 0);
}
END_TEST

/* init's error for spec: its status, part, index and byte. */
static void init_fails(const tb_selection_spec *sp, tb_status st, tb_selection_part part,
		       size_t index, uint64_t offset)
{
	static tb_selection sel;
	tb_selection_error e;
	ck_assert_int_eq(tb_selection_init(&sel, sp, &tb_test_heap, &e), st);
	ck_assert_int_eq(e.error.status, st);
	ck_assert_int_eq(e.part, part);
	ck_assert_uint_eq(e.index, index);
	ck_assert_uint_eq(e.error.offset, offset);
	ck_assert_ptr_nonnull(e.error.what);
	tb_selection_free(&sel);
}

static void *refuse(void *ctx, size_t n)
{
	(void)ctx;
	(void)n;
	return NULL;
}

START_TEST(selection_init_errors)
{
	static const char *const sixteen_plus_one = "x";
	static tb_selection sel;
	static char many[4 * 70];
	tb_selection_spec sp;
	tb_selection_error e;
	tb_mem none = { refuse, NULL, NULL };
	size_t i;
	spec_init(&sp);
	sp.events = span("sched,,irq");            /* an empty item */
	init_fails(&sp, TB_ERR_SYNTAX, TB_SELECTION_EVENTS, 0, 6);
	sp.events = span("a:b:c");                 /* a second ':' */
	init_fails(&sp, TB_ERR_SYNTAX, TB_SELECTION_EVENTS, 0, 3);
	sp.events = span("sched:[ab");             /* an unterminated [ */
	ck_assert_int_eq(tb_selection_init(&sel, &sp, &tb_test_heap, &e), TB_ERR_SYNTAX);
	ck_assert_int_eq(e.part, TB_SELECTION_EVENTS);
	tb_selection_free(&sel);
	many[0] = 'a';                             /* 65 items: a,a,...,a */
	for (i = 1; i < 65; i++)
		memcpy(many + 2 * i - 1, ",a", 2);
	many[129] = 0;
	sp.events = span(many);
	ck_assert_int_eq(tb_selection_init(&sel, &sp, &tb_test_heap, &e), TB_ERR_LIMIT);
	ck_assert_int_eq(e.part, TB_SELECTION_EVENTS);
	tb_selection_free(&sel);
	spec_init(&sp);
	sp.cpus = span("0,x");                     /* junk */
	init_fails(&sp, TB_ERR_SYNTAX, TB_SELECTION_CPUS, 0, 2);
	sp.cpus = span("3-1");                     /* backwards */
	init_fails(&sp, TB_ERR_VALUE, TB_SELECTION_CPUS, 0, 0);
	sp.cpus = span("0,2");                     /* past the capture's 2 CPUs */
	sp.ncpus = 2;
	init_fails(&sp, TB_ERR_RANGE, TB_SELECTION_CPUS, 0, 2);
	sp.ncpus = 0;                              /* no capture limit: fine */
	ck_assert_int_eq(tb_selection_init(&sel, &sp, &tb_test_heap, &e), TB_OK);
	tb_selection_free(&sel);
	sp.cpus = span("4096");                    /* past TB_CPU_LIST_MAX */
	init_fails(&sp, TB_ERR_LIMIT, TB_SELECTION_CPUS, 0, 0);
	spec_init(&sp);
	sp.filters[0] = span("sched_switch");
	sp.filters[1] = span("sched_switch: prev_pid ==");  /* filter 1, no value */
	sp.nfilters = 2;
	ck_assert_int_eq(tb_selection_init(&sel, &sp, &tb_test_heap, &e), TB_ERR_SYNTAX);
	ck_assert_int_eq(e.part, TB_SELECTION_FILTER);
	ck_assert_uint_eq(e.index, 1);
	ck_assert_uint_eq(e.error.offset, 25);
	tb_selection_free(&sel);
	for (i = 0; i < TB_SELECTION_MAX_FILTERS; i++)
		sp.filters[i] = span(sixteen_plus_one);
	sp.nfilters = TB_SELECTION_MAX_FILTERS + 1;
	init_fails(&sp, TB_ERR_LIMIT, TB_SELECTION_FILTER, TB_SELECTION_MAX_FILTERS, 0);
	sp.nfilters = 1;                           /* mem refuses the filter */
	ck_assert_int_eq(tb_selection_init(&sel, &sp, &none, &e), TB_ERR_NO_SPACE);
	ck_assert_int_eq(e.part, TB_SELECTION_FILTER);
	tb_selection_free(&sel);
	ck_assert_int_eq(tb_selection_init(NULL, &sp, &tb_test_heap, &e), TB_ERR_ARG);
	ck_assert_int_eq(tb_selection_init(&sel, NULL, &tb_test_heap, &e), TB_ERR_ARG);
	ck_assert_int_eq(tb_selection_init(&sel, &sp, NULL, &e), TB_ERR_ARG);
	tb_selection_free(&sel);
	tb_selection_free(NULL);
}
END_TEST

START_TEST(selection_bind_and_check_errors)
{
	static tb_selection sel;
	tb_selection_spec sp;
	tb_selection_error e;
	tb_mem none = { refuse, NULL, NULL };
	tb_session *s;
	size_t n;
	const char *t;
	NEED_ZSTD();
	s = open_sample();
	/* nothing to bind or list */
	ck_assert_int_eq(tb_selection_bind(NULL, s, &e), TB_ERR_ARG);
	ck_assert_int_eq(e.part, TB_SELECTION_SESSION);
	n = 9;
	ck_assert_ptr_null(tb_selection_item(NULL, 0, &n));
	ck_assert_uint_eq(n, 0);
	ck_assert_ptr_null(tb_selection_item(NULL, 0, NULL));
	/* an item that meets no format: its index and byte */
	spec_init(&sp);
	sp.events = span("sched_switch,nosuch*");
	ck_assert_int_eq(tb_selection_init(&sel, &sp, &tb_test_heap, &e), TB_OK);
	ck_assert_int_eq(tb_selection_bind(&sel, s, &e), TB_OK);
	ck_assert_int_eq(tb_selection_check(&sel, &e), TB_NOT_FOUND);
	ck_assert_int_eq(e.part, TB_SELECTION_EVENTS);
	ck_assert_uint_eq(e.index, 1);
	ck_assert_uint_eq(e.error.offset, 13);
	t = tb_selection_item(&sel, e.index, &n);
	ck_assert_int_eq((int)n, 7);
	ck_assert(memcmp(t, "nosuch*", 7) == 0);
	ck_assert_ptr_null(tb_selection_item(&sel, 2, &n));
	tb_session_keep_ids(s, NULL, 0);
	tb_selection_free(&sel);
	/* a filter that applies to no event */
	spec_init(&sp);
	sp.filters[0] = span("sched_switch");
	sp.filters[1] = span("nosuch: x == 1");
	sp.nfilters = 2;
	ck_assert_int_eq(tb_selection_init(&sel, &sp, &tb_test_heap, &e), TB_OK);
	ck_assert_int_eq(tb_selection_bind(&sel, s, &e), TB_OK);
	ck_assert_int_eq(tb_selection_check(&sel, &e), TB_NOT_FOUND);
	ck_assert_int_eq(e.part, TB_SELECTION_FILTER);
	ck_assert_uint_eq(e.index, 1);
	tb_session_keep_ids(s, NULL, 0);
	tb_selection_free(&sel);
	/* a string field compared with a number: the format and the byte */
	sp.filters[1] = span("sched_switch: prev_comm == 3");
	ck_assert_int_eq(tb_selection_init(&sel, &sp, &tb_test_heap, &e), TB_OK);
	ck_assert_int_eq(tb_selection_bind(&sel, s, &e), TB_ERR_VALUE);
	ck_assert_int_eq(e.part, TB_SELECTION_FILTER);
	ck_assert_uint_eq(e.index, 1);
	ck_assert_uint_eq(e.error.offset, 14);
	ck_assert_ptr_nonnull(e.format);
	ck_assert(e.format->name_len == 12 && memcmp(e.format->name, "sched_switch", 12) == 0);
	tb_session_keep_ids(s, NULL, 0);
	tb_selection_free(&sel);
	/* memory refused for the verdicts */
	sp.nfilters = 0;
	sp.events = span("sched");
	ck_assert_int_eq(tb_selection_init(&sel, &sp, &none, &e), TB_OK);
	ck_assert_int_eq(tb_selection_bind(&sel, s, &e), TB_ERR_NO_SPACE);
	ck_assert_int_eq(e.part, TB_SELECTION_SESSION);
	tb_selection_free(&sel);
	/* more sessions than it takes */
	spec_init(&sp);
	ck_assert_int_eq(tb_selection_init(&sel, &sp, &tb_test_heap, &e), TB_OK);
	for (n = 0; n < TB_SELECTION_MAX_SESSIONS; n++)
		ck_assert_int_eq(tb_selection_bind(&sel, s, &e), TB_OK);
	ck_assert_int_eq(tb_selection_bind(&sel, s, &e), TB_ERR_LIMIT);
	ck_assert_int_eq(e.part, TB_SELECTION_SESSION);
	ck_assert_int_eq(tb_selection_bind(&sel, NULL, &e), TB_ERR_ARG);
	ck_assert_int_eq(tb_selection_check(NULL, &e), TB_ERR_ARG);
	tb_selection_free(&sel);
	tb_session_close(s);
}
END_TEST

/* Two sessions, one selection: an item met in either is no error, and the
 * events of both are matched (report's several files). */
START_TEST(selection_two_sessions)
{
	static tb_selection sel;
	tb_selection_spec sp;
	tb_selection_error e;
	tb_session *a, *b;
	tb_session_event ev;
	tb_error err;
	uint64_t n = 0;
	NEED_ZSTD();
	a = open_sample();
	b = open_sample();
	spec_init(&sp);
	sp.events = span("sched_switch");
	ck_assert_int_eq(tb_selection_init(&sel, &sp, &tb_test_heap, &e), TB_OK);
	ck_assert_int_eq(tb_selection_bind(&sel, a, &e), TB_OK);
	ck_assert_int_eq(tb_selection_bind(&sel, b, &e), TB_OK);
	ck_assert_int_eq(tb_selection_check(&sel, &e), TB_OK);
	while (tb_session_next(a, &ev, &err) == TB_OK)
		n += (uint64_t)tb_selection_match(&sel, a, &ev);
	while (tb_session_next(b, &ev, &err) == TB_OK)
		n += (uint64_t)tb_selection_match(&sel, b, &ev);
	ck_assert_uint_eq(n, 2 * 968);
	tb_session_close(a);
	tb_session_close(b);
	tb_selection_free(&sel);
}
END_TEST

Suite *tb_suite_selection(void)
{
	Suite *s = suite_create("selection");
	TCase *t = tcase_create("selection");
	tcase_set_timeout(t, 120);
	tcase_add_test(t, selection_name_rules);
	tcase_add_test(t, selection_nothing_selects_everything);
	tcase_add_test(t, selection_cpus_and_window);
	tcase_add_test(t, selection_filters);
	tcase_add_test(t, selection_init_errors);
	tcase_add_test(t, selection_bind_and_check_errors);
	tcase_add_test(t, selection_two_sessions);
	suite_add_tcase(s, t);
	return s;
}
