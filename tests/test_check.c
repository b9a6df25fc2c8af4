/*
 * The library's check (check.h): the anomalies of damaged copies of the
 * v7 sample, each where the damage was put, with and without
 * TB_SESSION_SKIP_DAMAGED; a sound capture has none.  The streamed kinds
 * (raw dumps, pmclog) fed in pieces, the kinds told from first bytes, and
 * the words `check` says them in.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracebound/tracebound.h"
#include "pmclog_writer.h"
#include "testutil.h"


Suite *tb_suite_check(void);

static tb_session *open_mem(uint8_t *data, size_t len, unsigned flags)
{
	tb_session_source src;
	tb_session_options opt = { flags, 0 };
	tb_session *s = NULL;
	tb_error err;
	memset(&src, 0, sizeof(src));
	src.dat = data;
	src.dat_len = len;
	ck_assert_int_eq(tb_session_open(&s, &src, &opt, &tb_test_heap, &err), TB_OK);
	return s;
}

static uint8_t *load(size_t *len)
{
	const char *path = tb_test_path("../shared/samples/sched4k.v7.dat");
	if (!tb_test_exists(path)) {
		printf("check: %s missing, test skipped\n", path);
		return NULL;
	}
	return tb_test_read_file(path, len);
}

/* Every anomaly of one walk; returns how many, the first kept in *first. */
static uint64_t walk(tb_session *s, tb_check *c, tb_check_anomaly *first)
{
	tb_check_anomaly a;
	uint64_t n = 0;
	tb_check_init(c, s);
	while (tb_check_next(c, &a) == TB_OK)
		if (n++ == 0)
			*first = a;
	ck_assert_int_eq(tb_check_next(c, &a), TB_END); /* and stays at the end */
	ck_assert_uint_eq(c->anomalies, n);
	return n;
}

/* The damage entries in check's words (tb_check_damage_text), as
 * `tracebound check` prints them after "PATH: ": the sample cut 5,000
 * bytes short (its options, its buffer table, CPU 1's last pages), and
 * one with sched_switch's "format:" misspelt (its format's index and
 * system). */
static void damage_texts(uint8_t *p, size_t len, const char *const *want, size_t nwant)
{
	tb_session *s = open_mem(p, len, 0);
	char buf[256];
	tb_text t;
	size_t i;
	ck_assert_uint_eq(tb_session_ndamage(s), nwant);
	for (i = 0; i < nwant; i++) {
		tb_text_init(&t, buf, sizeof(buf));
		tb_check_damage_text(&t, tb_session_damage_at(s, i), s);
		ck_assert(!tb_text_truncated(&t));
		buf[t.len] = '\0';
		ck_assert_str_eq(buf, want[i]);
	}
	tb_session_close(s);
}

START_TEST(check_damage_text)
{
	static const char *const cut[] = {
		"options: next options section outside the file at file offset 7445507 (offset "
		"out of range)",
		"buffer: BUFFER option lost: CPU ranges inferred from the data at file offset "
		"7445515 (truncated input)",
		"CPU 1: data cut short at file offset 9781248: 2 pages lost (4777 bytes past the "
		"end of the file); the pages before it are read",
	};
	static const char *const fmt[] = {
		"event format 1533 (sched) at file offset 1305501: expected 'format:' (syntax "
		"error); its events are not decoded",
	};
	size_t len, at = 0;
	uint8_t *p = load(&len);
	if (!p)
		return;
	damage_texts(p, len - 5000, cut, 3);
	while (at + 18 < len && memcmp(p + at, "name: sched_switch", 18))
		at++;
	while (at + 7 < len && memcmp(p + at, "format:", 7))
		at++;
	ck_assert_uint_eq(at, 1305501);
	p[at + 4] = 'X';
	damage_texts(p, len, fmt, 1);
	free(p);
}
END_TEST

/* As `tracebound check` says of the sample: 63,844 events, no anomaly. */
START_TEST(check_sound_sample_has_no_anomaly)
{
	size_t len;
	uint8_t *p = load(&len);
	tb_session *s;
	tb_check c;
	tb_check_anomaly a;
	if (!p)
		return;
	s = open_mem(p, len, 0);
	ck_assert_uint_eq(walk(s, &c, &a), 0);
	ck_assert_uint_eq(c.events, 63844);
	tb_session_close(s);
	free(p);
}
END_TEST

/* A page whose commit says 0xffffffff: one PAGE anomaly, CPU 0, page 2,
 * its offset inside that page; the same opened with SKIP_DAMAGED. */
START_TEST(check_damaged_page)
{
	size_t len, page;
	uint8_t *p = load(&len);
	tb_session *s;
	tb_check c;
	tb_check_anomaly a;
	unsigned flags;
	if (!p)
		return;
	s = open_mem(p, len, 0);
	page = (size_t)tb_session_dat(s)->buffers[0].cpus[0].offset + 2 * 4096;
	tb_session_close(s);
	memset(p + page + 8, 0xff, 4);
	for (flags = 0; flags <= TB_SESSION_SKIP_DAMAGED; flags += TB_SESSION_SKIP_DAMAGED) {
		s = open_mem(p, len, flags);
		ck_assert_uint_eq(walk(s, &c, &a), 1);
		ck_assert_int_eq(a.part, TB_CHECK_PAGE);
		ck_assert_str_eq(a.where, "page");
		ck_assert(tb_is_malformed(a.error.status));
		ck_assert_ptr_nonnull(a.error.what);
		ck_assert_uint_eq(a.cpu, 0);
		ck_assert_uint_eq(a.page, 2);
		ck_assert_uint_ge(a.offset, page);
		ck_assert_uint_lt(a.offset, page + 4096);
		ck_assert_uint_eq(a.offset, a.error.offset);
		ck_assert_uint_eq(c.bad_pages, 1);
		ck_assert_uint_lt(c.events, 63844);
		ck_assert_uint_gt(c.events, 63844 - 200); /* one page of events lost */
		tb_session_close(s);
	}
	free(p);
}
END_TEST

/* A record whose common_type names no format: one EVENT anomaly at the
 * record's file offset, with that id. */
START_TEST(check_event_without_format)
{
	size_t len, at;
	uint8_t *p = load(&len);
	tb_session *s;
	tb_session_event ev;
	tb_error e;
	tb_check c;
	tb_check_anomaly a;
	uint64_t rec;
	if (!p)
		return;
	s = open_mem(p, len, 0);
	/* the 100th event: its payload lies in the file (v7, not compressed) */
	for (at = 0; at < 100; at++)
		ck_assert_int_eq(tb_session_next(s, &ev, &e), TB_OK);
	ck_assert(ev.data > p && ev.data < p + len);
	at = (size_t)(ev.data - p);
	rec = ev.page_offset + ev.offset;
	tb_session_close(s);
	p[at] = 0xfe; /* common_type 0xfffe, little-endian */
	p[at + 1] = 0xff;
	s = open_mem(p, len, 0);
	ck_assert_uint_eq(walk(s, &c, &a), 1);
	ck_assert_int_eq(a.part, TB_CHECK_EVENT);
	ck_assert_str_eq(a.where, "event");
	ck_assert_int_eq(a.error.status, TB_NOT_FOUND);
	ck_assert_str_eq(a.error.what, "event id has no format");
	ck_assert_uint_eq(a.offset, rec);
	ck_assert_uint_eq(a.page_offset + a.record, rec);
	ck_assert_int_eq(a.has_id, 1);
	ck_assert_uint_eq(a.id, 0xfffe);
	ck_assert_ptr_null(a.format);
	ck_assert_uint_eq(c.unknown, 1);
	ck_assert_uint_eq(c.events, 63844); /* the record is still counted */
	tb_session_close(s);
	free(p);
}
END_TEST

/* No session: nothing to walk. */
START_TEST(check_without_session)
{
	tb_check c;
	tb_check_anomaly a;
	tb_check_init(&c, NULL);
	ck_assert_int_eq(tb_check_next(&c, &a), TB_END);
	ck_assert_uint_eq(c.anomalies, 0);
}
END_TEST

/* tb_session_set_json_file: the library's JSON writer puts "file" first
 * in every event object (report --json over several captures), escaped by
 * tb_json_str; unset, the object is as before. */
START_TEST(json_file_first)
{
	tb_session *s;
	tb_session_event ev;
	tb_error err;
	char plain[4096], named[4096];
	size_t len;
	uint8_t *p = load(&len);
	if (!p)
		return;
	s = open_mem(p, len, 0);
	ck_assert_int_eq(tb_session_next(s, &ev, &err), TB_OK);
	ck_assert_int_eq(tb_session_text(s, &ev, TB_TEXT_JSON, plain, sizeof(plain), NULL), TB_OK);
	ck_assert(strncmp(plain, "{\"cpu\":1,", 9) == 0);
	tb_session_set_json_file(s, "a\"b\\c.dat", 9);
	ck_assert_int_eq(tb_session_text(s, &ev, TB_TEXT_JSON, named, sizeof(named), NULL), TB_OK);
	ck_assert_str_eq(named + strlen("{\"file\":\"a\\\"b\\\\c.dat\","), plain + 1);
	ck_assert(strncmp(named, "{\"file\":\"a\\\"b\\\\c.dat\",\"cpu\":1,", 30) == 0);
	tb_session_set_json_file(s, NULL, 5); /* off again */
	ck_assert_int_eq(tb_session_text(s, &ev, TB_TEXT_JSON, named, sizeof(named), NULL), TB_OK);
	ck_assert_str_eq(named, plain);
	tb_session_close(s);
	free(p);
}
END_TEST


/* The words of a summary or an anomaly. */
static const char *words(char *buf, size_t cap, const tb_check *c, const tb_check_stream *cs,
			 const tb_check_anomaly *a)
{
	tb_text t;
	tb_text_init(&t, buf, cap);
	if (a)
		tb_check_text(&t, a, NULL);
	else if (c)
		tb_check_summary(&t, c);
	else
		tb_check_stream_summary(&t, cs);
	ck_assert(!tb_text_truncated(&t));
	tb_text_finish(&t);
	return buf;
}

/* The sample's summary as `check` prints it (its CPU data says 2,746
 * events were lost). */
START_TEST(check_summary_of_sample)
{
	size_t len;
	uint8_t *p = load(&len);
	tb_session *s;
	tb_check c;
	tb_check_anomaly a;
	char buf[256];
	if (!p)
		return;
	s = open_mem(p, len, 0);
	ck_assert_uint_eq(walk(s, &c, &a), 0);
	ck_assert_uint_eq(c.nformats, 2323);
	ck_assert_uint_eq(c.dropped, 2746);
	ck_assert_str_eq(words(buf, sizeof(buf), &c, NULL, NULL),
			 "trace.dat v7, 1 buffer, 2323 event formats: 63844 events, 2746 dropped, "
			 "0 anomalies: ok");
	tb_session_close(s);
	free(p);
}
END_TEST

/* Feed data to cs in pieces of `piece` bytes (the last one shorter);
 * anomalies counted, the first kept. */
static uint64_t feed_all(tb_check_stream *cs, const uint8_t *data, size_t len, size_t piece,
			 tb_check_anomaly *first)
{
	tb_check_anomaly a;
	tb_status st;
	size_t at = 0;
	uint64_t n = 0;
	while ((st = tb_check_stream_next(cs, &a)) != TB_END) {
		if (st == TB_OK) {
			if (n++ == 0)
				*first = a;
			continue;
		}
		ck_assert_int_eq(st, TB_NEED_MORE);
		if (at == len) {
			tb_check_stream_close(cs);
			continue;
		}
		ck_assert_int_eq(tb_check_stream_feed(cs, data + at, len - at < piece ? len - at
										     : piece),
				 TB_OK);
		at += len - at < piece ? len - at : piece;
	}
	ck_assert_int_eq(tb_check_stream_next(cs, &a), TB_END); /* and stays there */
	ck_assert_uint_eq(cs->anomalies, n);
	return n;
}

/* The kinds, told in check's order from the first bytes. */
START_TEST(check_stream_kinds)
{
	static uint8_t zeros[8192];
	tb_check_stream *cs = malloc(sizeof(*cs));
	tb_kbuf_layout l;
	tb_plw w;
	size_t len;
	uint8_t *dat = load(&len), *raw;
	size_t rlen;
	ck_assert_ptr_nonnull(cs);
	ck_assert_int_eq(tb_kbuf_layout_init(&l, 0, 8, 4096, 0), TB_OK);
	ck_assert_int_eq(tb_check_stream_start(cs, NULL, 0, &l, NULL), TB_CHECK_KIND_EMPTY);
	ck_assert_int_eq(tb_check_stream_start(cs, "garbage!", 8, &l, NULL), TB_CHECK_KIND_UNKNOWN);
	ck_assert_int_eq(tb_check_stream_start(cs, zeros, sizeof(zeros), &l, NULL),
			 TB_CHECK_KIND_RAW);
	ck_assert_uint_eq(cs->piece, 4096);
	ck_assert_int_eq(tb_check_stream_start(cs, zeros, sizeof(zeros), NULL, NULL),
			 TB_CHECK_KIND_UNKNOWN); /* no layout: no raw dump */
	tb_plw_init_arch(&w, TB_PLW_AMD64);
	(void)tb_plw_session_all(&w);
	ck_assert_int_eq(tb_check_stream_start(cs, w.buf, w.len, &l, NULL), TB_CHECK_KIND_PMCLOG);
	ck_assert_uint_eq(cs->piece, 64u << 10);
	ck_assert_int_eq(tb_check_stream_start(cs, w.buf + 1, w.len - 1, NULL, NULL),
			 TB_CHECK_KIND_UNKNOWN);
	tb_plw_free(&w);
	if (dat) {
		ck_assert_int_eq(tb_check_stream_start(cs, dat, len, &l, NULL), TB_CHECK_KIND_SESSION);
		free(dat);
	}
	raw = tb_test_read_file(tb_test_path("../shared/samples/raw-sched4k/cpu0.raw"), &rlen);
	if (raw) {
		ck_assert_int_eq(tb_check_stream_start(cs, raw, 4096, &l, NULL), TB_CHECK_KIND_RAW);
		free(raw);
	}
	free(cs);
}
END_TEST

/* A pmclog stream split in two at every byte: the same records, no
 * anomaly; cut short anywhere inside a record, one STREAM anomaly naming
 * the records before it. */
START_TEST(check_stream_pmclog_every_split)
{
	tb_check_stream *cs = malloc(sizeof(*cs));
	tb_check_anomaly a;
	tb_plw w;
	size_t cut, n;
	uint64_t records;
	char buf[256];
	ck_assert_ptr_nonnull(cs);
	tb_plw_init_arch(&w, TB_PLW_AMD64);
	n = tb_plw_session_all(&w);
	ck_assert_int_eq(tb_check_stream_start(cs, w.buf, w.len, NULL, NULL), TB_CHECK_KIND_PMCLOG);
	ck_assert_uint_eq(feed_all(cs, w.buf, w.len, w.len, &a), 0);
	records = cs->events;
	ck_assert_uint_eq(records, n);
	{
		/* the counts as the decoder gives them */
		tb_pmclog *pl = malloc(sizeof(*pl));
		tb_pmclog_event ev;
		tb_error e;
		uint64_t drops = 0, unknown = 0;
		char want[256];
		ck_assert_ptr_nonnull(pl);
		ck_assert_int_eq(tb_pmclog_open_buffer(pl, NULL, w.buf, w.len), TB_OK);
		while (tb_pmclog_next(pl, &ev, &e) == TB_OK) {
			drops += ev.type == TB_PMCLOG_DROPNOTIFY;
			unknown += ev.type == TB_PMCLOG_UNKNOWN;
		}
		free(pl);
		ck_assert_uint_gt(drops, 0);
		snprintf(want, sizeof(want), "pmclog: %llu records, %llu drop notifications, %llu of "
			 "unknown type, 0 anomalies: ok", (unsigned long long)records,
			 (unsigned long long)drops, (unsigned long long)unknown);
		ck_assert_str_eq(words(buf, sizeof(buf), NULL, cs, NULL), want);
	}
	for (cut = 1; cut < w.len; cut++) {
		ck_assert_int_eq(tb_check_stream_start(cs, w.buf, w.len, NULL, NULL),
				 TB_CHECK_KIND_PMCLOG);
		ck_assert_uint_eq(feed_all(cs, w.buf, w.len, cut, &a), 0);
		ck_assert_uint_eq(cs->events, records);
	}
	/* cut inside the last record */
	ck_assert_int_eq(tb_check_stream_start(cs, w.buf, w.len, NULL, NULL), TB_CHECK_KIND_PMCLOG);
	ck_assert_uint_eq(feed_all(cs, w.buf, w.len - 1, 7, &a), 1);
	ck_assert_int_eq(a.part, TB_CHECK_STREAM);
	ck_assert_str_eq(a.where, "pmclog");
	ck_assert_int_eq(a.error.status, TB_ERR_TRUNCATED);
	ck_assert_uint_eq(a.index, records - 1);
	ck_assert_uint_eq(cs->events, records - 1);
	ck_assert_uint_lt(a.offset, w.len);
	snprintf(buf, sizeof(buf), "record %llu at offset %llu: %s (%s)",
		 (unsigned long long)records, (unsigned long long)a.offset, a.error.what,
		 tb_strerror(TB_ERR_TRUNCATED));
	{
		char said[256];
		ck_assert_str_eq(words(said, sizeof(said), NULL, NULL, &a), buf);
	}
	/* a piece before the last is used up, or after close: refused */
	ck_assert_int_eq(tb_check_stream_start(cs, w.buf, w.len, NULL, NULL), TB_CHECK_KIND_PMCLOG);
	ck_assert_int_eq(tb_check_stream_feed(cs, w.buf, w.len), TB_OK);
	ck_assert_int_eq(tb_check_stream_feed(cs, w.buf, w.len), TB_ERR_ARG);
	tb_check_stream_close(cs);
	ck_assert_int_eq(tb_check_stream_feed(cs, w.buf, 1), TB_ERR_ARG);
	tb_plw_free(&w);
	free(cs);
}
END_TEST

/* The raw sample's CPU 0 dump, whole or a sub-buffer at a time: 145
 * sub-buffers, 15,353 events (as `check` says); a page whose commit
 * runs past it: one SUBBUF anomaly at that page; zero-filled pages: the
 * one DUMP anomaly. */
START_TEST(check_stream_raw)
{
	static uint8_t zeros[3 * 4096];
	tb_check_stream *cs = malloc(sizeof(*cs));
	tb_check_anomaly a;
	tb_kbuf_layout l;
	size_t len, piece;
	char buf[512];
	uint8_t *raw = tb_test_read_file(tb_test_path("../shared/samples/raw-sched4k/cpu0.raw"),
					 &len);
	ck_assert_ptr_nonnull(cs);
	ck_assert_int_eq(tb_kbuf_layout_init(&l, 0, 8, 4096, 0), TB_OK);
	for (piece = 4096; raw && piece <= len; piece = piece == 4096 ? len : len + 1) {
		ck_assert_int_eq(tb_check_stream_start(cs, raw, 4096, &l, NULL), TB_CHECK_KIND_RAW);
		ck_assert_uint_eq(feed_all(cs, raw, len, piece, &a), 0);
		ck_assert_uint_eq(cs->pages, 145);
		ck_assert_uint_eq(cs->events, 15353);
		ck_assert_str_eq(words(buf, sizeof(buf), NULL, cs, NULL),
				 "raw sub-buffers (4096-byte): 145 sub-buffers, 15353 events, "
				 "0 dropped, 0 anomalies: ok");
	}
	if (raw) {
		memset(raw + 3 * 4096 + 8, 0x7f, 4); /* commit of page 3: far past the page */
		ck_assert_int_eq(tb_check_stream_start(cs, raw, 4096, &l, NULL), TB_CHECK_KIND_RAW);
		ck_assert_uint_eq(feed_all(cs, raw, len, 4096, &a), 1);
		ck_assert_int_eq(a.part, TB_CHECK_SUBBUF);
		ck_assert_str_eq(a.where, "sub-buffer");
		ck_assert_uint_eq(a.page, 3);
		ck_assert_uint_eq(a.offset, 3 * 4096);
		ck_assert(tb_is_malformed(a.error.status));
		ck_assert_uint_eq(cs->pages, 144);
		free(raw);
	}
	ck_assert_int_eq(tb_check_stream_start(cs, zeros, 4096, &l, NULL), TB_CHECK_KIND_RAW);
	ck_assert_uint_eq(feed_all(cs, zeros, sizeof(zeros), 4096, &a), 1);
	ck_assert_int_eq(a.part, TB_CHECK_DUMP);
	ck_assert_uint_eq(cs->pages, 3);
	ck_assert_uint_eq(cs->empty, 3);
	ck_assert_str_eq(words(buf, sizeof(buf), NULL, NULL, &a),
			 "every sub-buffer is empty (commit 0, as in zero-filled bytes): not a "
			 "trace_pipe_raw dump, which holds only pages with events");
	ck_assert_str_eq(words(buf, sizeof(buf), NULL, cs, NULL),
			 "raw sub-buffers (4096-byte): 3 sub-buffers, 0 events, 0 dropped, "
			 "1 anomalies: MALFORMED");
	free(cs);
}
END_TEST

Suite *tb_suite_check(void)
{
	Suite *s = suite_create("check");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, check_sound_sample_has_no_anomaly);
	tcase_add_test(tc, check_damaged_page);
	tcase_add_test(tc, check_event_without_format);
	tcase_add_test(tc, check_without_session);
	tcase_add_test(tc, json_file_first);
	tcase_add_test(tc, check_summary_of_sample);
	tcase_add_test(tc, check_stream_kinds);
	tcase_add_test(tc, check_stream_pmclog_every_split);
	tcase_add_test(tc, check_stream_raw);
	tcase_add_test(tc, check_damage_text);
	suite_add_tcase(s, tc);
	return s;
}
