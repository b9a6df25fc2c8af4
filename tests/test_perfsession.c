/*
 * perf.data through the session: the report lines of this machine's
 * captures (tests/data/perf/) against `perf script`'s
 * (tests/golden/perf/NAME.script), JSON values and callchains, drops in
 * place, every prefix of a file and of a pipe stream, memory within a
 * budget, the compressed capture through a streaming zstd.
 */
#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracebound/session.h"
#include "tracebound/session_perf.h"
#include "heapmem.h"
#include "perfwriter.h"
#include "testutil.h"
#include "zstd_dl.h"

Suite *tb_suite_perfsession(void);


static uint8_t *load(const char *name, size_t *n)
{
	return tb_test_load("tests/data/perf", name, n);
}

static tb_status open_perf(tb_session **s, const uint8_t *b, size_t n, uint64_t budget,
			   tb_error *e)
{
	tb_session_source src;
	memset(&src, 0, sizeof(src));
	src.perf = b;
	src.perf_len = n;
	return tb_session_open_budget(s, &src, NULL, &tb_heap_mem, budget, NULL, e);
}

/* Every event's report line (SKIP_DAMAGED off: errors counted). */
typedef struct walk {
	char *text;
	size_t len, cap;
	size_t events, errors;
	uint64_t first_error;
} walk;

static void walk_add(walk *w, const char *s, size_t n)
{
	if (w->len + n + 1 > w->cap) {
		w->cap = (w->len + n + 1) * 2;
		w->text = realloc(w->text, w->cap);
		ck_assert_ptr_nonnull(w->text);
	}
	memcpy(w->text + w->len, s, n);
	w->len += n;
	w->text[w->len] = 0;
}

static void walk_all(tb_session *s, unsigned how, walk *w)
{
	static char line[1 << 16];
	tb_session_event ev;
	tb_error e;
	tb_status st;
	memset(w, 0, sizeof(*w));
	walk_add(w, "", 0);
	while ((st = tb_session_next(s, &ev, &e)) != TB_END) {
		tb_render_result r;
		if (st != TB_OK) {
			if (!w->errors++)
				w->first_error = e.offset;
			continue;
		}
		w->events++;
		ck_assert_int_eq(tb_session_text(s, &ev, how, line, sizeof(line), &r), TB_OK);
		walk_add(w, line, r.len);
		if (how == TB_TEXT_JSON)
			walk_add(w, "\n", 1);
	}
}

static char *golden(const char *name)
{
	char file[128];
	size_t n;
	uint8_t *b;
	char *s;
	snprintf(file, sizeof(file), "%s.script", name);
	b = tb_test_load("tests/golden/perf", file, &n);
	s = malloc(n + 1);
	ck_assert_ptr_nonnull(s);
	memcpy(s, b, n);
	s[n] = 0;
	free(b);
	return s;
}

/* The next line of *p (its length), *p moved past it. */
static size_t next_line(const char **p, const char **line)
{
	const char *e = strchr(*p, '\n');
	size_t n = e ? (size_t)(e - *p) : strlen(*p);
	*line = *p;
	*p += n + (e ? 1 : 0);
	return n;
}

/* Up to the text: "comm tid [cpu] time: name: " (the second ": " after
 * the time's). */
static size_t head_len(const char *l, size_t n)
{
	const char *c = memchr(l, ']', n);
	const char *t;
	ck_assert_ptr_nonnull(c);
	t = strstr(c, ": ");
	ck_assert_ptr_nonnull(t);
	t = strstr(t + 2, ": ");
	ck_assert_ptr_nonnull(t);
	return (size_t)(t + 2 - l);
}

/*
 * Compare the session's lines with perf script's: sample lines (the
 * callchain lines, tab first, are compared on their address only, as
 * perf names user frames from maps the session does not read), the heads
 * always, whole lines counted.  Drop lines (perf script does not print
 * them) are skipped.  max: lines of the golden compared (0: all).
 */
static void compare(const char *name, const char *ours, size_t max, size_t *same,
		    size_t *samples)
{
	char *g = golden(name);
	const char *p = g, *q = ours;
	size_t k = 0;
	*same = *samples = 0;
	while (*p && (!max || k < max)) {
		const char *a, *b;
		size_t na = next_line(&p, &a), nb;
		do
			nb = next_line(&q, &b);
		while (nb >= 4 && !strncmp(b, "CPU:", 4) && memchr(b, '[', nb));
		k++;
		if (na && a[0] == '\t') {
			/* kernel frames by address; user ones perf shows map-relative */
			int kernel = na > 9 && !memcmp(a + 1, "ffff", 4);
			ck_assert_msg(nb > 17 && b[0] == '\t' && (!kernel || !memcmp(a, b, 17)),
				      "%s line %zu: frame %.*s / %.*s", name, k, (int)na, a, (int)nb,
				      b);
			continue;
		}
		ck_assert_uint_eq(na == 0, nb == 0);
		if (!na)
			continue;
		(*samples)++;
		ck_assert_msg(head_len(a, na) == head_len(b, nb) &&
				      !memcmp(a, b, head_len(a, na)),
			      "%s line %zu head:\n%.*s\n%.*s", name, k, (int)na, a, (int)nb, b);
		if (na == nb && !memcmp(a, b, na))
			(*same)++;
	}
	if (!max)
		ck_assert_msg(!*q, "%s: lines past perf script's: %.60s", name, q);
	free(g);
}

static void real_capture(const char *file, const char *gold, size_t max, size_t want_events)
{
	size_t n, same, samples;
	uint8_t *b = load(file, &n);
	tb_session *s;
	tb_error e;
	walk w;
	ck_assert_int_eq(open_perf(&s, b, n, 0, &e), TB_OK);
	ck_assert(tb_session_get_info(s)->is_perf);
	walk_all(s, TB_TEXT_PRINT | TB_TEXT_LINE, &w);
	ck_assert_uint_eq(w.errors, 0);
	ck_assert_uint_eq(w.events, want_events);
	compare(gold, w.text, max, &same, &samples);
	printf("perfsession: %s: %zu of %zu sample lines identical to perf script's (%.2f%%), "
	       "every head identical\n", file, same, samples, samples ? 100.0 * same / samples : 0);
	ck_assert_uint_ge(same * 100, samples * 99);
	free(w.text);
	tb_session_close(s);
	free(b);
}

START_TEST(sched_lines)
{
	real_capture("sched.data", "sched", 0, 898);
}
END_TEST

START_TEST(small_lines)
{
	real_capture("small.data", "small", 0, 4);
	real_capture("small-pipe.data", "small-pipe", 0, 4);
}
END_TEST

START_TEST(pipe_lines)
{
	real_capture("pipe.data", "pipe.head", 200, 765);
}
END_TEST

START_TEST(callchain_lines)
{
	real_capture("schedg.data", "schedg", 0, 74);
}
END_TEST

/* LOST (2 samples) and LOST_SAMPLES (1 + 1) as the next events' drops. */
START_TEST(lost_in_place)
{
	size_t n, same, samples, i;
	uint8_t *b = load("lost.data", &n);
	tb_session *s;
	tb_session_cpu_stats cs;
	uint64_t dropped = 0;
	tb_error e;
	walk w;
	ck_assert_int_eq(open_perf(&s, b, n, 0, &e), TB_OK);
	walk_all(s, TB_TEXT_PRINT | TB_TEXT_LINE, &w);
	ck_assert_uint_eq(w.events, 842);
	ck_assert_ptr_nonnull(strstr(w.text, "CPU:1 [2 EVENTS DROPPED]\n"));
	compare("lost", w.text, 0, &same, &samples);
	ck_assert_uint_eq(same, samples);
	for (i = 0; i < tb_session_get_info(s)->ncpus; i++)
		if (tb_session_cpu_stats_get(s, 0, (uint32_t)i, &cs) == TB_OK)
			dropped += cs.dropped;
	ck_assert_uint_eq(dropped, 4);
	free(w.text);
	tb_session_close(s);
	free(b);
}
END_TEST

/*
 * A mix of the print fmt forms perf prints otherwise than the kernel
 * (wide.data: plain %p, %pS named from the machine's kallsyms, syscalls,
 * unresolved enum names): with TB_SESSION_PERF_TEXT every line equals
 * perf script's but the 4 timer_start lines, where perf 6.1 misreads
 * the flags mask ("flags=D|P|I") and tracebound prints the kernel's
 * reading (docs/perfdata.md).  Without it: the kernel's text.
 */
START_TEST(perf_text_lines)
{
	size_t n, nk, same, samples;
	uint8_t *b = load("wide.data", &n);
	uint8_t *k = load("wide.kallsyms", &nk);
	tb_session_options opt = { TB_SESSION_PERF_TEXT, TB_RENDER_KNOWN_ENUMS | TB_RENDER_KERNEL_STYLE };
	tb_session_source src;
	tb_session *s;
	tb_error e;
	walk w;
	memset(&src, 0, sizeof(src));
	src.perf = b;
	src.perf_len = n;
	src.kallsyms.ptr = (const char *)k;
	src.kallsyms.len = nk;
	for (int perf_text = 1; perf_text >= 0; perf_text--) {
		opt.flags = perf_text ? TB_SESSION_PERF_TEXT : 0;
		ck_assert_int_eq(tb_session_open_budget(&s, &src, &opt, &tb_heap_mem, 0, NULL, &e), TB_OK);
		walk_all(s, TB_TEXT_PRINT | TB_TEXT_LINE, &w);
		ck_assert_uint_eq(w.errors, 0);
		ck_assert_uint_eq(w.events, 253);
		compare("wide", w.text, 0, &same, &samples);
		if (perf_text) {
			ck_assert_uint_eq(same, samples - 4);
			ck_assert_ptr_nonnull(strstr(w.text, " kmem:kfree: call_site=perf_event_mmap+0x278 ptr=(nil)\n"));
			ck_assert_ptr_nonnull(strstr(w.text, "cpu=0 idx=216 flags=\n"));
		} else {
			ck_assert_uint_lt(same * 2, samples);
			ck_assert_ptr_nonnull(strstr(w.text, "sys_close(fd: 3)\n"));
		}
		printf("perfsession: wide.data%s: %zu of %zu sample lines identical to perf script's\n",
		       perf_text ? "" : " (kernel's text)", same, samples);
		free(w.text);
		tb_session_close(s);
	}
	free(k);
	free(b);
}
END_TEST

/* JSON: the trace.dat schema, the sample's tid, period and callchain
 * (context markers left out: 0xffffffffffffff80 is PERF_CONTEXT_KERNEL). */
START_TEST(json_values)
{
	size_t n;
	uint8_t *b = load("schedg.data", &n);
	tb_session *s;
	tb_session_event ev;
	tb_session_perf_sample ps;
	tb_error e;
	char line[8192];
	ck_assert_int_eq(open_perf(&s, b, n, 0, &e), TB_OK);
	ck_assert_int_eq(tb_session_next(s, &ev, &e), TB_OK);
	ck_assert_int_eq(tb_session_text(s, &ev, TB_TEXT_JSON, line, sizeof(line), NULL), TB_OK);
	/* perf script: perf 7747 [000] 294.332163: sched:sched_wakeup: comm=migration/0 pid=18 */
	ck_assert_ptr_nonnull(strstr(line, "{\"cpu\":0,\"ts\":294332163737,\"pid\":7747,"
					   "\"comm\":\"perf\",\"system\":\"sched\","
					   "\"name\":\"sched_wakeup\""));
	ck_assert_ptr_nonnull(strstr(line, "\"tid\":7747,\"tgid\":7747,\"period\":1,"
					   "\"callchain\":[18446744071582731717,"));
	ck_assert_ptr_nonnull(strstr(line, "\"comm\":\"migration/0\",\"pid\":18,\"prio\":0,"
					   "\"target_cpu\":0}"));
	ck_assert_ptr_null(strstr(line, "18446744073709551488")); /* the marker */
	ck_assert_int_eq(tb_session_perf_sample_get(s, &ev, &ps), TB_OK);
	ck_assert_uint_eq(ps.callchain.n, 20); /* two markers, 18 frames */
	ck_assert_uint_eq(tb_perf_u64_at(&ps.callchain, 0), (uint64_t)-128);
	ck_assert_uint_eq(tb_perf_u64_at(&ps.callchain, 1), 0xffffffff813b4dc5ull);
	ck_assert_int_eq(ps.tid, 7747);
	/* EVENT_DESC's name, whole */
	ck_assert_uint_eq(ps.name.len, 18);
	ck_assert(!memcmp(ps.name.ptr, "sched:sched_wakeup", 18));
	ck_assert_uint_eq(ps.system.len, 0);
	tb_session_close(s);
	free(b);
}
END_TEST

static int line_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The lines of w (its text split in place), sorted. */
static char **sorted_lines(walk *w, size_t *n)
{
	char **v = malloc((w->events + 1) * sizeof(*v)), *p = w->text;
	ck_assert_ptr_nonnull(v);
	*n = 0;
	while (*p) {
		char *e = strchr(p, '\n'), *c, *sys;
		ck_assert_ptr_nonnull(e);
		*e = 0;
		/* without the task's name: a cut can lose the COMM record that
		 * names it (perf, given the same bytes, shows ":tid" too) */
		if ((c = strstr(p, "\"comm\":")) && (sys = strstr(c, ",\"system\"")))
			memmove(c, sys, strlen(sys) + 1);
		v[(*n)++] = p;
		p = e + 1;
	}
	qsort(v, *n, sizeof(*v), line_cmp);
	return v;
}

/*
 * Every prefix of a capture: its events are events of the whole capture
 * (each once: a cut ends the last round early, so the final rounds may
 * come in another order than the whole capture's, as perf orders them
 * too), a cut inside a record is one error at or before the cut.
 */
static void every_prefix(const char *file, size_t step)
{
	size_t n, cut, nwhole;
	uint8_t *b = load(file, &n);
	tb_session *s;
	tb_error e;
	walk whole;
	char **all;
	ck_assert_int_eq(open_perf(&s, b, n, 0, &e), TB_OK);
	walk_all(s, TB_TEXT_JSON, &whole);
	tb_session_close(s);
	all = sorted_lines(&whole, &nwhole);
	for (cut = 0; cut < n; cut += step) {
		uint8_t *p = tb_test_dup(b, cut);
		tb_status st = open_perf(&s, p, cut, 0, &e);
		walk w;
		if (st != TB_OK) {
			ck_assert_msg(tb_is_error(st), "%s cut at %zu", file, cut);
			ck_assert_uint_le(e.offset, cut);
			free(p);
			continue;
		}
		walk_all(s, TB_TEXT_JSON, &w);
		{
			size_t np, i, j = 0;
			char **v = sorted_lines(&w, &np);
			for (i = 0; i < np; i++, j++) {
				while (j < nwhole && strcmp(all[j], v[i]) < 0)
					j++;
				ck_assert_msg(j < nwhole && !strcmp(all[j], v[i]),
					      "%s cut at %zu: an event the whole has not: %.80s", file,
					      cut, v[i]);
			}
			free(v);
		}
		ck_assert_uint_le(w.errors, 1);
		if (w.errors)
			ck_assert_uint_le(w.first_error, cut);
		free(w.text);
		tb_session_close(s);
		free(p);
	}
	free(all);
	free(whole.text);
	free(b);
}

START_TEST(pipe_every_prefix)
{
	every_prefix("small-pipe.data", 1);
	every_prefix("pipe.data", 97);
}
END_TEST

START_TEST(file_every_prefix)
{
	every_prefix("small.data", 1);
}
END_TEST

/* Memory: a budget that holds the queue and the names reads it all; one
 * under what the walk took is refused with the part named. */
START_TEST(budget)
{
	size_t n;
	uint8_t *b = load("sched.data", &n);
	tb_session *s;
	tb_session_need nd;
	tb_error e;
	walk w;
	ck_assert_int_eq(open_perf(&s, b, n, 2u << 20, &e), TB_OK);
	walk_all(s, TB_TEXT_PRINT | TB_TEXT_LINE, &w);
	ck_assert_uint_eq(w.events, 898);
	tb_session_need_get(s, &nd);
	ck_assert_uint_le(nd.peak, 2u << 20);
	ck_assert_ptr_null(nd.refused);
	free(w.text);
	tb_session_close(s);
	ck_assert_int_eq(open_perf(&s, b, n, 4096, &e), TB_ERR_BUDGET);
	free(b);
}
END_TEST

/* -z: one zstd stream through the COMPRESSED records; rewind starts it again. */
/* The session's COMPRESSED records through the tests' zstd stream (its
 * state in *zs, freed by the caller). */
static void zstd_on(tb_session *s, void **zs)
{
	tb_session_perf_inflater z = { tb_test_zstd_stream, zs, tb_test_zstd_stream_free };
	tb_error e;
	ck_assert_int_eq(tb_session_perf_decompress(s, &z, &e), TB_OK);
}

START_TEST(zstd_capture)
{
	size_t n, same, samples;
	uint8_t *b;
	tb_session *s;
	void *zs = NULL;
	tb_error e;
	walk w, again;
	if (!tb_test_have_zstd())
		return;
	b = load("schedz.data", &n);
	ck_assert_int_eq(open_perf(&s, b, n, 0, &e), TB_OK);
	walk_all(s, TB_TEXT_PRINT | TB_TEXT_LINE, &w);
	ck_assert_uint_eq(w.events, 0); /* without a decompressor: refused in place */
	ck_assert_uint_eq(w.errors, 5);
	free(w.text);
	zstd_on(s, &zs);
	walk_all(s, TB_TEXT_PRINT | TB_TEXT_LINE, &w);
	ck_assert_uint_eq(w.errors, 0);
	ck_assert_uint_eq(w.events, 122);
	compare("schedz", w.text, 0, &same, &samples);
	ck_assert_uint_eq(same, samples);
	ck_assert_int_eq(tb_session_rewind(s, &e), TB_OK);
	walk_all(s, TB_TEXT_PRINT | TB_TEXT_LINE, &again);
	ck_assert_str_eq(w.text, again.text);
	free(w.text);
	free(again.text);
	tb_session_close(s);
	tb_test_zstd_stream_free(&zs);
	free(b);
}
END_TEST

/*
 * A -z capture hand-built, and its uncompressed twin: `rounds` rounds of
 * 12 sched_switch samples (CPU 0's, then CPU 1's, times interleaved)
 * ended by FINISHED_ROUND, five tasks named in the first rounds.  The
 * tracing data and one RAW record are small.data's; each sample's RAW
 * has a next_pid of its own, and the session reads it back out of the
 * queued record's bytes when it renders.  In the -z one every record
 * (the rounds too) goes through one zstd stream cut into COMPRESSED and
 * COMPRESSED2 records of 61 and 97 bytes: records straddle them, and the
 * session's spill of decompressed records is compacted at every round.
 */
#define ZR_SAMPLES 12u
#define ZR_TYPE (TB_PERF_SAMPLE_IP | TB_PERF_SAMPLE_TID | TB_PERF_SAMPLE_TIME | \
		 TB_PERF_SAMPLE_CPU | TB_PERF_SAMPLE_PERIOD | TB_PERF_SAMPLE_RAW)
#define ZR_NEXT_PID 56 /* sched_switch's next_pid in its record */

typedef struct zr_src {
	uint8_t *file;
	tb_perf_bytes tracing;
	const uint8_t *raw;
	uint32_t raw_len;
	uint64_t config;
} zr_src;

/* small.data's tracing data and its first sched_switch (attr 0) record. */
static void zr_load(zr_src *z)
{
	static tb_perf_attr attrs[4];
	static tb_perf_id ids[8];
	tb_perf_storage st = { attrs, 4, ids, 8, NULL, 0 };
	tb_perf f;
	tb_perf_iter it;
	tb_perf_record r;
	tb_error e;
	size_t n;
	memset(z, 0, sizeof(*z));
	z->file = load("small.data", &n);
	ck_assert_int_eq(tb_perf_open(&f, z->file, n, &st, &e), TB_OK);
	z->tracing = f.tracing_data;
	z->config = f.attrs[0].config;
	ck_assert_int_eq(tb_perf_records_begin(&it, &f, &e), TB_OK);
	while (!z->raw && tb_perf_record_next(&it, &r, &e) == TB_OK)
		if (r.type == TB_PERF_RECORD_SAMPLE && r.attr == &f.attrs[0]) {
			z->raw = r.s.raw.ptr;
			z->raw_len = (uint32_t)r.s.raw.len;
		}
	ck_assert_ptr_nonnull(z->raw);
	ck_assert_uint_ge(z->raw_len, ZR_NEXT_PID + 4);
	ck_assert_uint_eq((z->raw_len + 4) % 8, 0);
}

static void zr_records(pw *d, const zr_src *z, unsigned rounds)
{
	unsigned k, j;
	for (k = 0; k < rounds; k++) {
		uint64_t base = 1000000000ull + (uint64_t)k * 100000000;
		size_t at;
		if (k < 5) {
			char name[16];
			snprintf(name, sizeof(name), "task%u", k);
			at = pw_rec_begin(d, TB_PERF_RECORD_COMM, 0);
			pw_u32(d, 2000 + k);
			pw_u32(d, 2000 + k);
			pw_bytes(d, name, strlen(name));
			pw_zeros(d, 16 - strlen(name));
			pw_rec_end(d, at);
		}
		for (j = 0; j < ZR_SAMPLES; j++) {
			unsigned cpu = j >= ZR_SAMPLES / 2, tid = 2000 + (k + j) % 7;
			at = pw_rec_begin(d, TB_PERF_RECORD_SAMPLE, 0);
			pw_u64(d, 0xffffffff81000000ull + k * 64 + j);
			pw_u32(d, tid);
			pw_u32(d, tid);
			pw_u64(d, base + (j % (ZR_SAMPLES / 2)) * 10000 + cpu * 5000);
			pw_u32(d, cpu);
			pw_u32(d, 0);
			pw_u64(d, 1 + k * 100 + j);
			pw_u32(d, z->raw_len);
			pw_bytes(d, z->raw, z->raw_len);
			pw_put_at(d, d->len - z->raw_len + ZR_NEXT_PID, 3000 + k * ZR_SAMPLES + j, 4);
			pw_rec_end(d, at);
		}
		at = pw_rec_begin(d, TB_PERF_RECORD_FINISHED_ROUND, 0);
		pw_rec_end(d, at);
	}
}

/* Rounds of BIG_N samples (CPU 0's half, then CPU 1's, times
 * interleaved), more than the queue's first 1024 keys hold over two
 * rounds: it grows, then makes room by dropping what it gave. */
#define BIG_N 700u
static void big_records(pw *d, const zr_src *z, unsigned rounds)
{
	unsigned k, j;
	for (k = 0; k < rounds; k++) {
		uint64_t base = 1000000000ull + (uint64_t)k * 100000000;
		size_t at;
		for (j = 0; j < BIG_N; j++) {
			unsigned cpu = j >= BIG_N / 2;
			at = pw_rec_begin(d, TB_PERF_RECORD_SAMPLE, 0);
			pw_u64(d, 0xffffffff81000000ull);
			pw_u32(d, 2000);
			pw_u32(d, 2000);
			pw_u64(d, base + (j % (BIG_N / 2)) * 10000 + cpu * 5000);
			pw_u32(d, cpu);
			pw_u32(d, 0);
			pw_u64(d, 1);
			pw_u32(d, z->raw_len);
			pw_bytes(d, z->raw, z->raw_len);
			pw_put_at(d, d->len - z->raw_len + ZR_NEXT_PID, k * BIG_N + j, 4);
			pw_rec_end(d, at);
		}
		at = pw_rec_begin(d, TB_PERF_RECORD_FINISHED_ROUND, 0);
		pw_rec_end(d, at);
	}
}

/* The records of plain as one zstd stream in COMPRESSED(2) records. */
static void zr_compress(pw *out, const pw *plain)
{
	size_t cap = plain->len + plain->len / 8 + 4096, n, at = 0, k = 0;
	uint8_t *z = malloc(cap);
	ck_assert_ptr_nonnull(z);
	n = tb_test_zstd_compress(plain->b, plain->len, z, cap);
	ck_assert_uint_gt(n, 0);
	while (at < n) {
		size_t piece = k & 1 ? 97 : 61, r;
		if (piece > n - at)
			piece = n - at;
		if (k++ & 1) {
			r = pw_rec_begin(out, TB_PERF_RECORD_COMPRESSED2, 0);
			pw_u64(out, piece);
			pw_bytes(out, z + at, piece);
			pw_zeros(out, (8 - piece % 8) % 8);
		} else {
			r = pw_rec_begin(out, TB_PERF_RECORD_COMPRESSED, 0);
			pw_bytes(out, z + at, piece);
		}
		pw_rec_end(out, r);
		at += piece;
	}
	free(z);
}

/* A file of one attr a, the records of data and z's tracing data. */
static void zr_file(pw *w, const pw_attr *a, const zr_src *z, const pw *data)
{
	pw_file pf;
	memset(&pf, 0, sizeof(pf));
	pf.attrs[0] = *a;
	pf.nattrs = 1;
	pf.attr_entry = 80;
	pf.data = data->b;
	pf.data_len = data->len;
	pf.feat_id[0] = TB_PERF_FEAT_TRACING_DATA;
	pf.feat[0] = z->tracing.ptr;
	pf.feat_len[0] = z->tracing.len;
	pf.nfeats = 1;
	pw_build_file(w, &pf);
}

/* The capture as a file or a pipe stream, -z or not. */
typedef void zr_writer(pw *d, const zr_src *z, unsigned rounds);

/* A capture of the records recs writes. */
static void zr_capture_of(pw *w, zr_writer *recs, unsigned rounds, int zstd, int pipe)
{
	pw plain, data;
	pw_attr a;
	zr_src z;
	zr_load(&z);
	memset(&a, 0, sizeof(a));
	a.type = 2; /* a tracepoint */
	a.size = 64;
	a.config = z.config;
	a.sample_type = ZR_TYPE;
	pw_init(&plain, 0);
	recs(&plain, &z, rounds);
	pw_init(&data, 0);
	if (zstd)
		zr_compress(&data, &plain);
	else
		pw_bytes(&data, plain.b, plain.len);
	pw_init(w, 0);
	if (pipe) {
		size_t at;
		pw_pipe_header(w);
		pw_header_attr(w, &a, NULL, 0);
		size_t pad = (8 - z.tracing.len % 8) % 8;
		at = pw_rec_begin(w, TB_PERF_RECORD_HEADER_TRACING_DATA, 0);
		pw_u32(w, z.tracing.len + pad);
		pw_u32(w, 0);
		pw_rec_end(w, at);
		pw_bytes(w, z.tracing.ptr, z.tracing.len);
		pw_zeros(w, pad);
		pw_bytes(w, data.b, data.len);
	} else {
		zr_file(w, &a, &z, &data);
	}
	pw_free(&plain);
	pw_free(&data);
	free(z.file);
}

static void zr_capture(pw *w, unsigned rounds, int zstd, int pipe)
{
	zr_capture_of(w, zr_records, rounds, zstd, pipe);
}

/* One task renamed to names of the same length (short, mid, long) and
 * its samples in three seconds, each in a round of its own. */
static const struct {
	const char *comm;
	uint64_t ts;
	unsigned cpu;
} rn_steps[] = {
	{ "ab", 1000001000, 0 },         { NULL, 1000002000, 0 }, { "ac", 1000003000, 0 },
	{ "ab", 1000003500, 0 },         { "ac", 1000003600, 0 }, /* back: both kept */
	{ "abcde", 2000004000, 0 },      { NULL, 2000004500, 1 }, { "abcdf", 2000005000, 0 },
	{ "abcdefghij", 3500000000, 0 }, { NULL, 3500001000, 0 }, { "abcdefghik", 3600000000, 0 },
	{ NULL, 123456789012000000, 0 },
};

static void rn_records(pw *d, const zr_src *z, unsigned rounds)
{
	(void)rounds;
	for (size_t i = 0; i < sizeof(rn_steps) / sizeof(rn_steps[0]); i++) {
		size_t at;
		if (rn_steps[i].comm) {
			at = pw_rec_begin(d, TB_PERF_RECORD_COMM, 0);
			pw_u32(d, 2000);
			pw_u32(d, 2000);
			pw_bytes(d, rn_steps[i].comm, strlen(rn_steps[i].comm));
			pw_zeros(d, 16 - strlen(rn_steps[i].comm));
			pw_rec_end(d, at);
		}
		at = pw_rec_begin(d, TB_PERF_RECORD_SAMPLE, 0);
		pw_u64(d, 0xffffffff81000000ull);
		pw_u32(d, 2000);
		pw_u32(d, 2000);
		pw_u64(d, rn_steps[i].ts);
		pw_u32(d, rn_steps[i].cpu);
		pw_u32(d, 0);
		pw_u64(d, 1);
		pw_u32(d, z->raw_len);
		pw_bytes(d, z->raw, z->raw_len);
		pw_rec_end(d, at);
		at = pw_rec_begin(d, TB_PERF_RECORD_FINISHED_ROUND, 0);
		pw_rec_end(d, at);
	}
}

/* The line head as perf script prints it through every rename, CPU and
 * second (what the head keeps from line to line is never stale). */
START_TEST(head_follows_renames)
{
	pw c;
	tb_session *s;
	tb_error e;
	walk w;
	const char *l;
	const char *comm = "ab";
	zr_capture_of(&c, rn_records, 1, 0, 0);
	ck_assert_int_eq(open_perf(&s, c.b, c.len, 0, &e), TB_OK);
	walk_all(s, TB_TEXT_PRINT | TB_TEXT_LINE, &w);
	ck_assert_uint_eq(w.errors, 0);
	ck_assert_uint_eq(w.events, sizeof(rn_steps) / sizeof(rn_steps[0]));
	l = w.text;
	for (size_t i = 0; i < sizeof(rn_steps) / sizeof(rn_steps[0]); i++) {
		char want[96], tm[32];
		if (rn_steps[i].comm)
			comm = rn_steps[i].comm;
		snprintf(tm, sizeof(tm), "%llu.%06llu",
			 (unsigned long long)(rn_steps[i].ts / 1000000000u),
			 (unsigned long long)(rn_steps[i].ts % 1000000000u / 1000u));
		snprintf(want, sizeof(want), "%16s  2000 [%03u] %12s: ", comm, rn_steps[i].cpu, tm);
		ck_assert_msg(!strncmp(l, want, strlen(want)), "line %zu: %.60s, want %s", i, l, want);
		l = strchr(l, '\n');
		ck_assert_ptr_nonnull(l);
		l++;
	}
	free(w.text);
	tb_session_close(s);
	pw_free(&c);
}
END_TEST

/* Its report lines and the memory figures after the walk. */
static void zr_walk(unsigned rounds, int zstd, int pipe, walk *w, tb_session_need *nd)
{
	pw c;
	tb_session *s;
	tb_error e;
	void *zs = NULL;
	zr_capture(&c, rounds, zstd, pipe);
	ck_assert_int_eq(open_perf(&s, c.b, c.len, 4u << 20, &e), TB_OK);
	if (zstd)
		zstd_on(s, &zs);
	walk_all(s, TB_TEXT_PRINT | TB_TEXT_LINE, w);
	ck_assert_uint_eq(w->errors, 0);
	ck_assert_uint_eq(w->events, rounds * ZR_SAMPLES);
	tb_session_need_get(s, nd);
	tb_session_close(s);
	tb_test_zstd_stream_free(&zs);
	pw_free(&c);
}

#define ZR_SW ": sched:sched_switch: prev_comm=sleep prev_pid=24535 prev_prio=120 prev_state=R ==> " \
	      "next_comm=head next_pid="
#define ZR_HEAD                                                                         \
	"           task0  2000 [000]     1.000000" ZR_SW "3000 next_prio=120\n"           \
	"           :2006  2006 [001]     1.000005" ZR_SW "3006 next_prio=120\n"           \
	"           :2001  2001 [000]     1.000010" ZR_SW "3001 next_prio=120\n"

START_TEST(zstd_many_rounds)
{
	static const unsigned rounds[] = { 40, 700 };
	uint64_t peak[2] = { 0, 0 }, held[2] = { 0, 0 };
	unsigned i;
	int pipe = _i;
	if (!tb_test_have_zstd())
		return;
	for (i = 0; i < 2; i++) {
		walk plain, z;
		tb_session_need nplain, nz;
		zr_walk(rounds[i], 0, pipe, &plain, &nplain);
		zr_walk(rounds[i], 1, pipe, &z, &nz);
		{
			size_t d = 0;
			while (z.text[d] && z.text[d] == plain.text[d])
				d++;
			ck_assert_msg(!z.text[d] && !plain.text[d], "-z differs at byte %zu: %.120s",
				      d, z.text + d);
		}
		/* CPU 0's and CPU 1's samples merged; tasks not named yet are ":tid" */
		ck_assert_msg(!strncmp(plain.text, ZR_HEAD, strlen(ZR_HEAD)), "%.900s", plain.text);
		peak[i] = nz.peak;
		held[i] = nz.held;
		free(plain.text);
		free(z.text);
	}
	/* 700 rounds (430 KB decompressed, the spill 256 KB) hold what 40 do */
	ck_assert_uint_eq(peak[1], peak[0]);
	ck_assert_uint_eq(held[1], held[0]);
}
END_TEST

/*
 * The session reads a SAMPLE of fixed fields, CALLCHAIN and RAW at its
 * attr's offsets, and any other through tb_perf_parse_sample: both give
 * the same event, and a sample cut anywhere is the same error.  One
 * sample of sample_type t (tid 2000, at 1 s, CPU 0): its CALLCHAIN of nr
 * ips, its RAW's size field raw_extra more than the bytes it has, the
 * record cut to `cut` bytes (0: whole).
 */
static void lay_sample(pw *d, uint64_t t, const zr_src *z, uint64_t nr, uint32_t raw_extra,
		       size_t cut)
{
	size_t at = pw_rec_begin(d, TB_PERF_RECORD_SAMPLE, 0);
	uint64_t k;
	if (t & TB_PERF_SAMPLE_IP)
		pw_u64(d, 0xffffffff81000000ull);
	if (t & TB_PERF_SAMPLE_TID) {
		pw_u32(d, 2000);
		pw_u32(d, 2000);
	}
	if (t & TB_PERF_SAMPLE_TIME)
		pw_u64(d, 1000000000ull);
	if (t & TB_PERF_SAMPLE_CPU) {
		pw_u32(d, 0);
		pw_u32(d, 0);
	}
	if (t & TB_PERF_SAMPLE_PERIOD)
		pw_u64(d, 1);
	if (t & TB_PERF_SAMPLE_CALLCHAIN) {
		pw_u64(d, nr);
		for (k = 0; k < nr && k < 4; k++)
			pw_u64(d, 0xffffffff81000100ull + k);
	}
	if (t & TB_PERF_SAMPLE_RAW) {
		pw_u32(d, z->raw_len + raw_extra);
		pw_bytes(d, z->raw, z->raw_len);
	}
	if (t & TB_PERF_SAMPLE_WEIGHT)
		pw_u64(d, 7);
	if (cut)
		d->len = at + cut;
	pw_rec_end(d, at);
}

/* The session's walk of a file of such samples. */
/* A file of n samples of one attr whose sample_type is t (nr, extra,
 * cut: each one's, as lay_sample takes them; NULL: none). */
static void lay_file(pw *c, uint64_t t, const zr_src *z, const uint64_t *nr,
		     const uint32_t *extra, const size_t *cut, size_t n)
{
	pw d;
	pw_attr a;
	size_t i;
	pw_init(&d, 0);
	for (i = 0; i < n; i++)
		lay_sample(&d, t, z, nr ? nr[i] : 0, extra ? extra[i] : 0, cut ? cut[i] : 0);
	memset(&a, 0, sizeof(a));
	a.type = 2;
	a.size = 64;
	a.config = z->config;
	a.sample_type = t;
	pw_init(c, 0);
	zr_file(c, &a, z, &d);
	pw_free(&d);
}

static void lay_walk(uint64_t t, const uint64_t *nr, const uint32_t *extra, const size_t *cut,
		     size_t n, walk *w)
{
	pw c;
	zr_src z;
	tb_session *s;
	tb_error e;
	zr_load(&z);
	lay_file(&c, t, &z, nr, extra, cut, n);
	ck_assert_int_eq(open_perf(&s, c.b, c.len, 0, &e), TB_OK);
	walk_all(s, TB_TEXT_PRINT | TB_TEXT_LINE, w);
	tb_session_close(s);
	pw_free(&c);
	free(z.file);
}

#define LAY_TYPE (TB_PERF_SAMPLE_IP | TB_PERF_SAMPLE_TID | TB_PERF_SAMPLE_TIME | \
		  TB_PERF_SAMPLE_CPU | TB_PERF_SAMPLE_PERIOD | TB_PERF_SAMPLE_RAW)
#define LAY_HEAD "           :2000  2000 [000]     1.000000: sched:sched_switch: "

START_TEST(sample_layouts)
{
	static const uint64_t chains[] = { 0, 2 }, long_chain[] = { 1000 };
	static const uint32_t long_raw[] = { 8 };
	walk fast, slow, w;
	size_t fixed = 8 + 5 * 8, cut;
	/* read at its offsets, and by the general parser (WEIGHT after RAW):
	 * the same line */
	lay_walk(LAY_TYPE, NULL, NULL, NULL, 1, &fast);
	lay_walk(LAY_TYPE | TB_PERF_SAMPLE_WEIGHT, NULL, NULL, NULL, 1, &slow);
	ck_assert_uint_eq(fast.events, 1);
	ck_assert_uint_eq(fast.errors, 0);
	ck_assert_msg(!strncmp(fast.text, LAY_HEAD, strlen(LAY_HEAD)), "%s", fast.text);
	ck_assert_str_eq(fast.text, slow.text);
	free(slow.text);
	/* a callchain of none and of two ips */
	lay_walk(LAY_TYPE | TB_PERF_SAMPLE_CALLCHAIN, chains, NULL, NULL, 2, &w);
	ck_assert_uint_eq(w.events, 2);
	ck_assert_uint_eq(w.errors, 0);
	ck_assert_ptr_nonnull(strstr(w.text, "\tffffffff81000101 [unknown] ([unknown])\n"));
	free(w.text);
	/* no RAW: shown with its period, as perf shows a cycles sample */
	lay_walk(LAY_TYPE & ~TB_PERF_SAMPLE_RAW, NULL, NULL, NULL, 1, &w);
	ck_assert_uint_eq(w.events, 1);
	ck_assert_uint_eq(w.errors, 0);
	ck_assert_msg(!strncmp(w.text, "           :2000  2000 [000]     1.000000:          1 ",
			       54), "%s", w.text);
	free(w.text);
	/* RAW alone: no tid, time, CPU, ip or period (perf's ":-1" task) */
	lay_walk(TB_PERF_SAMPLE_RAW, NULL, NULL, NULL, 1, &w);
	ck_assert_uint_eq(w.events, 1);
	ck_assert_uint_eq(w.errors, 0);
	ck_assert_ptr_nonnull(strstr(w.text, "sched:sched_switch: prev_comm="));
	free(w.text);
	/* cut anywhere, both ways: an error at the sample, never an event */
	for (cut = 8; cut < fixed + 8 + 4 + 8; cut += 4) {
		size_t c1[] = { cut };
		lay_walk(LAY_TYPE | TB_PERF_SAMPLE_CALLCHAIN, NULL, NULL, c1, 1, &w);
		ck_assert_uint_eq(w.events, 0);
		ck_assert_uint_eq(w.errors, 1);
		free(w.text);
	}
	lay_walk(LAY_TYPE | TB_PERF_SAMPLE_CALLCHAIN, long_chain, NULL, NULL, 1, &w);
	ck_assert_uint_eq(w.events, 0);
	ck_assert_uint_eq(w.errors, 1);
	free(w.text);
	lay_walk(LAY_TYPE, NULL, long_raw, NULL, 1, &w);
	ck_assert_uint_eq(w.events, 0);
	ck_assert_uint_eq(w.errors, 1);
	free(w.text);
	free(fast.text);
}
END_TEST

/* A file in memory read through a read function, as the CLI's pread:
 * the reads counted; one past `cut` fails (a file cut while read). */
typedef struct mem_file {
	const uint8_t *b;
	size_t cut, reads;
} mem_file;

static int mem_read(void *ctx, uint64_t off, void *buf, size_t len)
{
	mem_file *m = ctx;
	m->reads++;
	if (off > m->cut || len > m->cut - off)
		return -1;
	memcpy(buf, m->b + off, len);
	return 0;
}

static tb_status open_perf_read(tb_session **s, const uint8_t *b, size_t n, uint64_t cap,
				mem_file *m, tb_error *e)
{
	tb_session_source src;
	memset(&src, 0, sizeof(src));
	src.perf = b;
	src.perf_len = n;
	src.read = mem_read;
	src.read_ctx = m;
	m->b = b;
	m->cut = m->cut ? m->cut : n;
	m->reads = 0;
	return tb_session_open_budget(s, &src, NULL, &tb_heap_mem, cap, NULL, e);
}

/* Lines of a capture walked from memory (w), and read through m. */
static tb_status walk_both(const uint8_t *b, size_t n, uint64_t cap, mem_file *m, walk *w,
			   walk *r)
{
	tb_session *s;
	tb_error e;
	tb_status st = open_perf(&s, b, n, 0, &e);
	if (st != TB_OK) { /* then it fails as that read through too */
		ck_assert_int_eq(open_perf_read(&s, b, n, cap, m, &e), st);
		return st;
	}
	walk_all(s, TB_TEXT_PRINT | TB_TEXT_LINE, w);
	tb_session_close(s);
	ck_assert_int_eq(open_perf_read(&s, b, n, cap, m, &e), TB_OK);
	walk_all(s, TB_TEXT_PRINT | TB_TEXT_LINE, r);
	tb_session_close(s);
	return TB_OK;
}

/* A file's data section read through a buffer used again (64 KiB first,
 * grown to what a round and the next hold) gives the lines the mapping
 * gives; a pipe stream, and a -z file, are read in place. */
START_TEST(read_through)
{
	static const struct {
		const char *file;
		size_t min_reads, max_reads;
	} c[] = {
		{ "sched.data", 3, 64 },  /* 175 KB: the ring slides and grows */
		{ "lost.data", 3, 64 },   { "schedg.data", 1, 64 }, { "wide.data", 1, 64 },
		{ "small.data", 1, 1 },   /* one read: the whole section */
		{ "schedz.data", 0, 0 },  /* COMPRESSED: from the mapping */
		{ "pipe.data", 0, 0 },
	};
	size_t i, n;
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		uint8_t *b = load(c[i].file, &n);
		mem_file m = { 0 };
		walk w, r;
		walk_both(b, n, 0, &m, &w, &r);
		ck_assert_uint_eq(r.events, w.events);
		ck_assert_uint_eq(r.errors, w.errors);
		ck_assert_str_eq(r.text, w.text);
		ck_assert_msg(m.reads >= c[i].min_reads && m.reads <= c[i].max_reads,
			      "%s: %zu reads", c[i].file, m.reads);
		free(w.text);
		free(r.text);
		free(b);
	}
}
END_TEST

/* A file cut while it is read: the records before the cut, then one error
 * where the read failed, the walk's last; a budget without room for the
 * ring: refused, named.  A COMPRESSED record in a file whose header does
 * not say so: its stream drained from the mapping from there on. */
START_TEST(read_through_faults)
{
	size_t n;
	uint8_t *b = load("sched.data", &n);
	mem_file m = { 0 };
	tb_session *s;
	tb_session_need nd;
	tb_error e;
	walk w, r;
	pw c;
	m.cut = n / 2;
	walk_both(b, n, 0, &m, &w, &r);
	ck_assert_uint_eq(w.events, 898);
	ck_assert_uint_gt(r.events, 300);
	ck_assert_uint_lt(r.events, 898);
	ck_assert_uint_eq(r.errors, 1);
	ck_assert_uint_le(r.first_error, n / 2);
	ck_assert_uint_gt(r.first_error, n / 2 - 512);
	free(w.text);
	free(r.text);
	/* the queue and names fit 2 MiB (test budget), not with the ring in 40 KiB */
	memset(&m, 0, sizeof(m));
	ck_assert_int_eq(open_perf_read(&s, b, n, 40u << 10, &m, &e), TB_OK);
	walk_all(s, TB_TEXT_PRINT | TB_TEXT_LINE, &r);
	ck_assert_uint_eq(r.events, 0);
	ck_assert_uint_ge(r.errors, 1);
	tb_session_need_get(s, &nd);
	ck_assert_ptr_nonnull(nd.refused);
	free(r.text);
	tb_session_close(s);
	free(b);
	if (tb_test_have_zstd()) {
		void *zs = NULL;
		zr_capture(&c, 3, 1, 0);
		memset(&m, 0, sizeof(m));
		ck_assert_int_eq(open_perf_read(&s, c.b, c.len, 0, &m, &e), TB_OK);
		zstd_on(s, &zs);
		walk_all(s, TB_TEXT_PRINT | TB_TEXT_LINE, &r);
		ck_assert_uint_eq(r.errors, 0);
		ck_assert_uint_eq(r.events, 3 * 12);
		ck_assert_uint_ge(m.reads, 1);
		free(r.text);
		tb_session_close(s);
		tb_test_zstd_stream_free(&zs);
		pw_free(&c);
	}
}
END_TEST

/*
 * Records made unsound one at a time (a size below the header, one past
 * the section, a type whose data follows it, a COMPRESSED record without
 * a decompressor) and the data section cut anywhere in its last 200
 * bytes: read through, the same events, errors and first error offset as
 * from memory.
 */
START_TEST(read_through_mutants)
{
	static const struct {
		unsigned at;
		uint32_t v;
		unsigned width;
	} mut[] = {
		{ 6, 0, 2 }, { 6, 4, 2 }, { 6, 0xfff8, 2 }, { 0, TB_PERF_RECORD_AUXTRACE, 4 },
		{ 0, TB_PERF_RECORD_COMPRESSED, 4 },
	};
	size_t n, i, k, checked = 0;
	uint8_t *b = load("small.data", &n);
	uint64_t off[64], dsize = 0;
	size_t noff = 0, nmut = sizeof(mut) / sizeof(mut[0]);
	tb_session *s;
	tb_perf_iter it;
	tb_perf_record r;
	tb_error e;
	for (i = 0; i < 8; i++) /* the data section's size (a little-endian file) */
		dsize |= (uint64_t)b[48 + i] << (8 * i);
	ck_assert_int_eq(open_perf(&s, b, n, 0, &e), TB_OK);
	ck_assert_int_eq(tb_perf_records_begin(&it, tb_session_perf(s), &e), TB_OK);
	while (noff < 64 && tb_perf_record_next(&it, &r, &e) == TB_OK)
		off[noff++] = r.offset;
	tb_session_close(s);
	ck_assert_uint_gt(noff, 8);
	for (k = 0; k < noff * nmut + 200; k++) {
		uint8_t *p = tb_test_dup(b, n);
		mem_file m = { 0 };
		walk w, rt;
		if (k < noff * nmut) {
			size_t j = k % nmut;
			uint8_t *at = p + off[k / nmut] + mut[j].at;
			for (i = 0; i < mut[j].width; i++)
				at[i] = (uint8_t)(mut[j].v >> (8 * i));
		} else { /* the section's size cut by 1..200 */
			uint64_t d = dsize - (k - noff * nmut) - 1;
			for (i = 0; i < 8; i++)
				p[48 + i] = (uint8_t)(d >> (8 * i));
		}
		if (walk_both(p, n, 0, &m, &w, &rt) != TB_OK) { /* (not opened either way) */
			free(p);
			continue;
		}
		ck_assert_msg(rt.events == w.events && rt.errors == w.errors &&
				      rt.first_error == w.first_error && !strcmp(rt.text, w.text),
			      "mutant %zu: %zu/%zu events, %zu/%zu errors, first at %llu/%llu", k,
			      rt.events, w.events, rt.errors, w.errors,
			      (unsigned long long)rt.first_error, (unsigned long long)w.first_error);
		checked += w.errors > 0;
		free(w.text);
		free(rt.text);
		free(p);
	}
	ck_assert_uint_gt(checked, noff * 3);
	free(b);
}
END_TEST

/* Rounds larger than the queue's first keys: every sample once, in time
 * order, from memory and read through alike. */
START_TEST(big_rounds)
{
	static uint8_t seen[6 * BIG_N];
	pw c;
	tb_session *s;
	tb_session_event ev;
	tb_error e;
	uint64_t last = 0;
	size_t n = 0, i;
	mem_file m = { 0 };
	walk w, r;
	zr_capture_of(&c, big_records, 6, 0, 0);
	memset(seen, 0, sizeof(seen));
	ck_assert_int_eq(open_perf(&s, c.b, c.len, 0, &e), TB_OK);
	while (tb_session_next(s, &ev, &e) == TB_OK) {
		uint32_t id = (uint32_t)ev.data[ZR_NEXT_PID] | (uint32_t)ev.data[ZR_NEXT_PID + 1] << 8 |
			      (uint32_t)ev.data[ZR_NEXT_PID + 2] << 16;
		ck_assert_uint_ge(ev.ts, last);
		last = ev.ts;
		ck_assert_uint_lt(id, 6 * BIG_N);
		ck_assert_uint_eq(seen[id]++, 0);
		n++;
	}
	tb_session_close(s);
	ck_assert_uint_eq(n, 6 * BIG_N);
	for (i = 0; i < 6 * BIG_N; i++)
		ck_assert_uint_eq(seen[i], 1);
	ck_assert_int_eq(walk_both(c.b, c.len, 0, &m, &w, &r), TB_OK);
	ck_assert_uint_eq(w.events, 6 * BIG_N);
	ck_assert_str_eq(w.text, r.text);
	free(w.text);
	free(r.text);
	pw_free(&c);
}
END_TEST

/* The caller's bytes changed under the walk (a file written while it is
 * mapped) after a round was queued: the changed sample comes without
 * fields it no longer holds, never read past its record (ASan watches). */
static void changed_walk(uint64_t t)
{
	pw c;
	zr_src z;
	tb_session *s;
	tb_session_event ev;
	tb_perf_iter it;
	tb_perf_record r;
	tb_error e;
	int i;
	zr_load(&z);
	lay_file(&c, t, &z, NULL, NULL, NULL, 2);
	ck_assert_int_eq(open_perf(&s, c.b, c.len, 0, &e), TB_OK);
	ck_assert_int_eq(tb_session_next(s, &ev, &e), TB_OK);
	ck_assert_uint_eq(ev.len, z.raw_len);
	/* the second sample's RAW size, past its record */
	ck_assert_int_eq(tb_perf_records_begin(&it, tb_session_perf(s), &e), TB_OK);
	for (i = 0; i < 2;)
		if (tb_perf_record_next(&it, &r, &e) == TB_OK && r.type == TB_PERF_RECORD_SAMPLE)
			i++;
	memset(c.b + r.offset + 8 + 5 * 8, 0xff, 4);
	ck_assert_int_eq(tb_session_next(s, &ev, &e), TB_OK);
	ck_assert_uint_eq(ev.len, 0);
	ck_assert_int_eq(tb_session_next(s, &ev, &e), TB_END);
	tb_session_close(s);
	pw_free(&c);
	free(z.file);
}

START_TEST(bytes_changed_under_walk)
{
	changed_walk(LAY_TYPE);                        /* read at its offsets */
	changed_walk(LAY_TYPE | TB_PERF_SAMPLE_WEIGHT); /* by the general parser */
}
END_TEST

/* The session reads its samples unparsed, through a tb_perf of its own:
 * the one tb_session_perf gives still parses them for a walk of its own. */
START_TEST(session_perf_walk_parses)
{
	pw c;
	tb_session *s;
	tb_perf_iter it;
	tb_perf_record r;
	tb_error e;
	walk w;
	zr_capture(&c, 1, 0, 0);
	ck_assert_int_eq(open_perf(&s, c.b, c.len, 0, &e), TB_OK);
	walk_all(s, TB_TEXT_PRINT | TB_TEXT_LINE, &w);
	ck_assert_uint_eq(w.events, ZR_SAMPLES);
	ck_assert_int_eq(tb_perf_records_begin(&it, tb_session_perf(s), &e), TB_OK);
	ck_assert_int_eq(tb_perf_record_next(&it, &r, &e), TB_OK);
	ck_assert_uint_eq(r.type, TB_PERF_RECORD_COMM);
	ck_assert_int_eq(tb_perf_record_next(&it, &r, &e), TB_OK);
	ck_assert_uint_eq(r.type, TB_PERF_RECORD_SAMPLE);
	ck_assert(r.has_sample);
	ck_assert_uint_eq(r.s.time, 1000000000ull);
	ck_assert_uint_eq(r.s.tid, 2000);
	ck_assert_uint_gt(r.s.raw.len, ZR_NEXT_PID);
	free(w.text);
	tb_session_close(s);
	pw_free(&c);
}
END_TEST

/* The records of a pipe stream fed in two pieces (k: the first's length;
 * 0: whole), each as (type, time, tid, ip, period, cpu) into v. */
static size_t zr_stream_records(const pw *c, size_t k, int zstd, uint64_t *v, size_t cap)
{
	static tb_perf_attr attrs[4];
	static tb_perf_id ids[4];
	static uint8_t tracing[1 << 16];
	tb_perf_storage st = { attrs, 4, ids, 4, tracing, sizeof(tracing) };
	tb_perf_stream *p = malloc(sizeof(*p));
	uint8_t *window = malloc(TB_PERF_WINDOW_MIN);
	void *zs = NULL;
	tb_perf_decompressor dc = { tb_test_zstd_stream, &zs, window, TB_PERF_WINDOW_MIN };
	tb_perf_record r;
	tb_error e;
	tb_status sr;
	size_t n = 0;
	int fed = 0;
	ck_assert(p && window);
	tb_perf_stream_init(p, &st);
	if (zstd)
		ck_assert_int_eq(tb_perf_stream_decompress(p, &dc), TB_OK);
	ck_assert_int_eq(tb_perf_stream_feed(p, c->b, k ? k : c->len), TB_OK);
	for (;;) {
		sr = tb_perf_stream_next(p, &r, &e);
		if (sr == TB_NEED_MORE) {
			if (k && !fed++)
				ck_assert_int_eq(tb_perf_stream_feed(p, c->b + k, c->len - k), TB_OK);
			else
				tb_perf_stream_close(p);
			continue;
		}
		if (sr != TB_OK)
			break;
		ck_assert_uint_le(n + 6, cap);
		v[n++] = r.type;
		if (r.type == TB_PERF_RECORD_SAMPLE) {
			v[n++] = r.s.time;
			v[n++] = r.s.tid;
			v[n++] = r.s.ip;
			v[n++] = r.s.period;
			v[n++] = r.s.cpu;
		}
	}
	ck_assert_msg(sr == TB_END, "split at %zu: %s at %" PRIu64 ": %s", k, tb_strerror(sr),
		      e.offset, e.what);
	tb_test_zstd_stream_free(&zs);
	free(window);
	free(p);
	return n;
}

/* A pipe -z stream split in two everywhere: the records of the
 * uncompressed stream, in its order (the halves' copies, as a pipe's). */
START_TEST(zstd_pipe_every_split)
{
	enum { CAP = 4096 };
	uint64_t *want = malloc(CAP * sizeof(uint64_t)), *got = malloc(CAP * sizeof(uint64_t));
	size_t nwant, k;
	pw plain, z;
	if (!tb_test_have_zstd())
		return;
	ck_assert(want && got);
	zr_capture(&plain, 6, 0, 1);
	zr_capture(&z, 6, 1, 1);
	nwant = zr_stream_records(&plain, 0, 0, want, CAP);
	/* the rounds, the COMMs, HEADER_ATTR and HEADER_TRACING_DATA */
	ck_assert_uint_eq(nwant, 6 * (ZR_SAMPLES * 6 + 1) + 5 + 2);
	for (k = 1; k < z.len; k++) {
		size_t n = zr_stream_records(&z, k, 1, got, CAP);
		ck_assert_msg(n == nwant && !memcmp(got, want, n * sizeof(uint64_t)),
			      "split at %zu of %zu: %zu values, %zu wanted", k, z.len, n, nwant);
	}
	pw_free(&plain);
	pw_free(&z);
	free(want);
	free(got);
}
END_TEST

/* The CLI: report by the magic, a pipe stream from stdin, check and
 * stats, exit statuses. */
START_TEST(cli)
{
	tb_test_run r;
	char *g = golden("small-pipe");
	tb_test_cli("report tests/data/perf/small.data", &r);
	ck_assert_int_eq(r.status, 0);
	tb_test_run_free(&r);
	tb_test_sh("\"$CLI\" report - < tests/data/perf/small-pipe.data", &r);
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(r.out, g);
	tb_test_run_free(&r);
	tb_test_cli("check tests/data/perf/lost.data", &r);
	ck_assert_int_eq(r.status, 0);
	ck_assert_ptr_nonnull(strstr(r.out, "perf.data, 3 event formats: 842 events, 4 dropped, "
					    "0 anomalies: ok"));
	tb_test_run_free(&r);
	tb_test_cli("stats tests/data/perf/sched.data", &r);
	ck_assert_int_eq(r.status, 0);
	ck_assert_ptr_nonnull(strstr(r.out, "events: 898\n"));
	ck_assert_ptr_nonnull(strstr(r.out, "     263  sched:sched_switch\n"));
	tb_test_run_free(&r);
	/* a cut pipe: the records before the cut, the cut said, exit 1 */
	tb_test_sh("head -c 100000 tests/data/perf/pipe.data | \"$CLI\" report - | grep -c \" sched:\"", &r);
	ck_assert_str_eq(r.out, "216\n");
	tb_test_run_free(&r);
	tb_test_sh("head -c 100000 tests/data/perf/pipe.data | \"$CLI\" report - >/dev/null", &r);
	ck_assert_int_eq(r.status, 1);
	ck_assert_ptr_nonnull(strstr(r.err, "record cut short by the end of the input"));
	tb_test_run_free(&r);
	free(g);
}
END_TEST

Suite *tb_suite_perfsession(void)
{
	Suite *s = suite_create("perfsession");
	TCase *tc = tcase_create("real");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, sched_lines);
	tcase_add_test(tc, small_lines);
	tcase_add_test(tc, pipe_lines);
	tcase_add_test(tc, perf_text_lines);
	tcase_add_test(tc, callchain_lines);
	tcase_add_test(tc, lost_in_place);
	tcase_add_test(tc, head_follows_renames);
	tcase_add_test(tc, json_values);
	tcase_add_test(tc, budget);
	tcase_add_test(tc, sample_layouts);
	tcase_add_test(tc, bytes_changed_under_walk);
	tcase_add_test(tc, read_through);
	tcase_add_test(tc, read_through_faults);
	tcase_add_test(tc, read_through_mutants);
	tcase_add_test(tc, big_rounds);
	tcase_add_test(tc, session_perf_walk_parses);
	tcase_add_test(tc, zstd_capture);
	tcase_add_test(tc, pipe_every_prefix);
	tcase_add_test(tc, file_every_prefix);
	tcase_add_test(tc, cli);
	suite_add_tcase(s, tc);
	tc = tcase_create("zstd"); /* hand-built -z captures */
	tcase_add_loop_test(tc, zstd_many_rounds, 0, 2);
	tcase_add_test(tc, zstd_pipe_every_split);
	suite_add_tcase(s, tc);
	return s;
}
