/*
 * Walk the real raw-sched4k pages (repeated in memory to ~64 MiB) with
 * tracebound and with libtraceevent's kbuffer in one run; print MB/s,
 * M records/s, the ratio, and the figure as a fraction of the memory
 * read bandwidth measured here over the same bytes.
 *
 * Then the same on ~64 MiB of large records: pages of ftrace `print`
 * events as trace_marker writes make them (long-form records of 500..560
 * bytes: common fields, ip, the text and its NUL), written by the test
 * page writer (tests/support/pagewriter.c).  Goal (issue 17): >= 3x.
 * Prints "figure: NAME VALUE" lines for bench/check.sh.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <traceevent/kbuffer.h>

#include "tracebound/kbuf.h"
/* The test-only page writer makes the large-record pages. */
#include "../tests/support/pagewriter.c"

#define PAGE 4096
#define TARGET (64u << 20)
#define ROUNDS 7

/* CPU time of this process, not wall time: on a shared machine the time
 * spent descheduled is not the code's (both sides are timed alike). */
static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static uint8_t *load(const char *dir, const char *name, size_t *len)
{
	char path[4096];
	FILE *f;
	uint8_t *b;
	long n;
	snprintf(path, sizeof(path), "%s/tests/data/raw-sched4k/%s", dir, name);
	f = fopen(path, "rb");
	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		perror(path);
		exit(2);
	}
	b = malloc((size_t)n);
	if (!b || fread(b, 1, (size_t)n, f) != (size_t)n) {
		perror(path);
		exit(2);
	}
	fclose(f);
	*len = (size_t)n;
	return b;
}

static volatile uint64_t sink;

static size_t walk_tb_single(const uint8_t *buf, size_t pages, const tb_kbuf_layout *l)
{
	size_t p, n = 0;
	uint64_t acc = 0;
	for (p = 0; p < pages; p++) {
		tb_kbuf kb;
		tb_kbuf_record r;
		if (tb_kbuf_open(&kb, l, buf + p * PAGE, PAGE, NULL) != TB_OK)
			continue;
		while (tb_kbuf_next_event(&kb, &r) == TB_OK) {
			acc += r.ts + r.payload[0];
			n++;
		}
	}
	sink = acc;
	return n;
}

static size_t walk_tb_batch(const uint8_t *buf, size_t pages, const tb_kbuf_layout *l)
{
	size_t p, n = 0;
	uint64_t acc = 0;
	tb_kbuf_record r[64];
	for (p = 0; p < pages; p++) {
		tb_kbuf kb;
		tb_status st = TB_OK;
		if (tb_kbuf_open(&kb, l, buf + p * PAGE, PAGE, NULL) != TB_OK)
			continue;
		while (st == TB_OK) {
			size_t k = tb_kbuf_next_events(&kb, r, 64, &st), i;
			for (i = 0; i < k; i++)
				acc += r[i].ts + r[i].payload[0];
			n += k;
		}
	}
	sink = acc;
	return n;
}

static size_t walk_kbuffer(uint8_t *buf, size_t pages, struct kbuffer *k)
{
	size_t p, n = 0;
	uint64_t acc = 0;
	for (p = 0; p < pages; p++) {
		unsigned long long ts;
		unsigned char *ev;
		kbuffer_load_subbuffer(k, buf + p * PAGE);
		for (ev = kbuffer_read_event(k, &ts); ev; ev = kbuffer_next_event(k, &ts)) {
			acc += ts + ev[0];
			n++;
		}
	}
	sink = acc;
	return n;
}

static size_t sum_pass(const uint8_t *buf, size_t len)
{
	uint64_t a = 0, b = 0, c = 0, d = 0, w[4];
	size_t i;
	for (i = 0; i + 32 <= len; i += 32) {
		memcpy(w, buf + i, 32);
		a += w[0];
		b += w[1];
		c += w[2];
		d += w[3];
	}
	sink = a + b + c + d;
	return len;
}

typedef struct result {
	double secs;    /* median over the rounds */
	size_t records;
} result;

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* The four passes over the same bytes, interleaved round by round (a
 * busy neighbour slows each alike), medians of ROUNDS. */
static void measure(uint8_t *buf, size_t pages, const tb_kbuf_layout *l,
		    struct kbuffer *k, result res[4])
{
	double t[4][ROUNDS];
	int r, v;
	for (r = 0; r < ROUNDS; r++)
		for (v = 0; v < 4; v++) {
			double t0 = now();
			res[v].records = v == 0 ? sum_pass(buf, pages * PAGE)
				       : v == 1 ? walk_kbuffer(buf, pages, k)
				       : v == 2 ? walk_tb_single(buf, pages, l)
						: walk_tb_batch(buf, pages, l);
			t[v][r] = now() - t0;
		}
	for (v = 0; v < 4; v++) {
		qsort(t[v], ROUNDS, sizeof(double), cmp_double);
		res[v].secs = t[v][ROUNDS / 2];
	}
}

/* Pages of trace_marker-like print records, 500..560 bytes each. */
static size_t make_marker_pages(uint8_t *buf, size_t pages)
{
	uint8_t payload[600];
	uint32_t seed = 2026;
	size_t pg, nrec = 0;
	for (pg = 0; pg < pages; pg++) {
		tbt_pw w;
		tbt_pw_init(&w, buf + pg * PAGE, PAGE, 0, 8, 1000000 + pg * 1000);
		for (;;) {
			size_t len, i;
			seed = seed * 1103515245u + 12345u;
			len = 500 + (seed >> 16) % 61;
			if (w.pos + 8 + ((len + 3) & ~(size_t)3) > PAGE)
				break;
			memset(payload, 0, sizeof(payload));
			payload[0] = 5; /* common_type: print */
			payload[4] = (uint8_t)pg;
			for (i = 16; i < len - 1; i++)
				payload[i] = (uint8_t)('a' + (i + seed) % 26);
			tbt_pw_data(&w, 1000 + (seed & 255), payload, len, 1);
			nrec++;
		}
		tbt_pw_finish(&w, 0, 0, 0);
	}
	return nrec;
}

int main(void)
{
	const char *dir = getenv("TB_SRCDIR") ? getenv("TB_SRCDIR") : ".";
	size_t l0, l1, one, pages, i;
	uint8_t *c0 = load(dir, "cpu0.raw", &l0), *c1 = load(dir, "cpu1.raw", &l1), *buf;
	tb_kbuf_layout l;
	struct kbuffer *k = kbuffer_alloc(KBUFFER_LSIZE_8, KBUFFER_ENDIAN_LITTLE);
	result res[4], mem, kb, tb1, tbb;
	double mb;

	if (tb_kbuf_layout_init(&l, 0, 8, PAGE, 0) != TB_OK || !k)
		return 2;
	one = l0 + l1;
	pages = (TARGET / one) * (one / PAGE);
	buf = malloc(pages * PAGE);
	if (!buf)
		return 2;
	for (i = 0; i * one < pages * PAGE; i++) {
		memcpy(buf + i * one, c0, l0);
		memcpy(buf + i * one + l0, c1, l1);
	}
	mb = (double)(pages * PAGE) / 1e6;

	measure(buf, pages, &l, k, res);
	mem = res[0], kb = res[1], tb1 = res[2], tbb = res[3];
	if (tb1.records != kb.records || tbb.records != kb.records) {
		fprintf(stderr, "record counts differ: tracebound %zu/%zu, kbuffer %zu\n",
			tb1.records, tbb.records, kb.records);
		return 1;
	}
	printf("kbuf bench: %zu sub-buffers, %.1f MB, %zu events per pass (medians of %d interleaved rounds)\n",
	       pages, mb, kb.records, ROUNDS);
	printf("  memory read (sum pass)     %8.0f MB/s\n", mb / mem.secs);
	printf("  libtraceevent kbuffer      %8.0f MB/s  %6.1f M events/s\n",
	       mb / kb.secs, (double)kb.records / kb.secs / 1e6);
	printf("  tracebound next_event      %8.0f MB/s  %6.1f M events/s  %5.1fx kbuffer  %4.0f%% of memory bandwidth\n",
	       mb / tb1.secs, (double)tb1.records / tb1.secs / 1e6, kb.secs / tb1.secs,
	       100.0 * mem.secs / tb1.secs);
	printf("  tracebound next_events(64) %8.0f MB/s  %6.1f M events/s  %5.1fx kbuffer  %4.0f%% of memory bandwidth\n",
	       mb / tbb.secs, (double)tbb.records / tbb.secs / 1e6, kb.secs / tbb.secs,
	       100.0 * mem.secs / tbb.secs);
	printf("figure: kbuf_small_batch_vs_kbuffer %.2f\n", kb.secs / tbb.secs);
	printf("figure: kbuf_small_single_vs_kbuffer %.2f\n", kb.secs / tb1.secs);

	/* large records */
	{
		size_t made = make_marker_pages(buf, pages);
		measure(buf, pages, &l, k, res);
		mem = res[0], kb = res[1], tb1 = res[2], tbb = res[3];
		if (tb1.records != made || tbb.records != made || kb.records != made) {
			fprintf(stderr, "large records: tracebound %zu/%zu, kbuffer %zu, made %zu\n",
				tb1.records, tbb.records, kb.records, made);
			return 1;
		}
		printf("large records (trace_marker-like, 500..560 bytes): %zu sub-buffers, "
		       "%zu events per pass\n", pages, made);
		printf("  memory read (sum pass)     %8.0f MB/s\n", mb / mem.secs);
		printf("  libtraceevent kbuffer      %8.0f MB/s  %6.1f M events/s\n",
		       mb / kb.secs, (double)kb.records / kb.secs / 1e6);
		printf("  tracebound next_event      %8.0f MB/s  %6.1f M events/s  %5.1fx kbuffer\n",
		       mb / tb1.secs, (double)tb1.records / tb1.secs / 1e6, kb.secs / tb1.secs);
		printf("  tracebound next_events(64) %8.0f MB/s  %6.1f M events/s  %5.1fx kbuffer\n",
		       mb / tbb.secs, (double)tbb.records / tbb.secs / 1e6, kb.secs / tbb.secs);
		printf("  (goal: >= 3x)\n");
		printf("figure: kbuf_large_batch_vs_kbuffer %.2f\n", kb.secs / tbb.secs);
		printf("figure: kbuf_large_single_vs_kbuffer %.2f\n", kb.secs / tb1.secs);
	}
	kbuffer_free(k);
	free(buf);
	free(c0);
	free(c1);
	return 0;
}
