/*
 * The merge of N CPUs (issue 37): tb_dat_stream_next over captures of
 * 1..8192 CPUs, written by the test writers (tests/support/datwriter.c,
 * pagewriter.c).  Every capture holds the same 8192 pages of 4 KiB (204
 * small events each, 32 MiB), spread over its N CPUs: at 8192 CPUs each
 * holds one page (sparse CPUs), at 1 CPU one CPU holds them all, so that
 * every N walks as many bytes and events and the time per event shows what
 * the merge costs as N grows.  Two layouts:
 *   staggered:   CPU c's events follow CPU c-1's, half overlapping (at any
 *                time two CPUs interleave: a large machine mostly idle);
 *   interleaved: every CPU's events interleave with every other's (each
 *                event from the next CPU round the machine: the worst
 *                case for the caches, whatever the merge).
 * The merge must cost O(log N) per event: the goal is the time per event
 * at 8192 CPUs at most twice that at 1 CPU (staggered), and no loss at
 * 2..16 CPUs.  With --figures (bench/check.sh) it prints only "figure:
 * merge_N_vs_1 VALUE" lines for N = 2, 16, 1024, 8192 (staggered): the
 * time per event at 1 CPU over that at N (higher is better), each the
 * median of rounds that walk the 1-CPU capture and the N-CPU one in turn,
 * so that a machine whose speed wanders moves both alike.
 *   merge_bench [MAX_N [PAGES]]   (PAGES: fewer, for a run under valgrind)
 *   merge_bench --figures
 *   merge_bench --walk N [interleaved]   (one walk of N CPUs, for a profiler:
 *                                         valgrind --toggle-collect=walk)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tracebound/tracedat.h"
#include "../tests/support/pagewriter.c"
#include "../tests/support/datwriter.c"

#define PAGE 4096u
#define MAX_N 8192u
static unsigned PAGES = MAX_N; /* in every capture, spread over its CPUs */
#define PER_PAGE 204u /* events of 20 bytes in a page's 4080 */
#define ROUNDS 5

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);
	if (!p) {
		fprintf(stderr, "merge_bench: out of memory\n");
		exit(2);
	}
	return p;
}

/* One page of CPU c: PER_PAGE events at first, first + step, ... */
static void make_page(uint8_t *page, uint64_t first, uint32_t step, unsigned c)
{
	tbt_pw w;
	unsigned n;
	uint8_t payload[16] = { 0 };
	payload[0] = 44; /* an id, as sched events' common_type */
	payload[4] = (uint8_t)c;
	tbt_pw_init(&w, page, PAGE, 0, 8, first);
	for (n = 0; n < PER_PAGE; n++)
		tbt_pw_data(&w, n ? step : 0, payload, sizeof(payload), 0);
	tbt_pw_finish(&w, 0, 0, 0);
	if (w.overflow) {
		fprintf(stderr, "merge_bench: a page holds fewer events\n");
		exit(2);
	}
}

typedef struct capture {
	uint8_t *file;
	size_t len, events;
	tb_dat d;
	tb_dat_storage st;
	tb_kbuf_layout layout;
	const tb_dat_buffer *b;
	tb_dat_cursor *cur;
} capture;

static void build(capture *cap, unsigned n, int interleaved)
{
	uint8_t *pages = xcalloc(PAGES, PAGE);
	const uint8_t **data = xcalloc(n, sizeof(*data));
	size_t *sizes = xcalloc(n, sizeof(*sizes)), cap_len = (size_t)PAGES * PAGE * 2 + (1u << 20);
	dw_spec spec;
	tb_error err;
	tb_status s = TB_ERR_NO_SPACE;
	unsigned c, i;
	unsigned per_cpu = PAGES / n, pg;
	memset(cap, 0, sizeof(*cap));
	for (c = 0; c < n; c++) {
		/* staggered: CPU c starts halfway through CPU c-1, events 1 ns
		 * apart; interleaved: round the CPUs, N ns apart on one */
		uint64_t span = (uint64_t)per_cpu * PER_PAGE;
		uint64_t first = interleaved ? 1000 + c : 1000 + c * (span / 2);
		uint32_t step = interleaved ? n : 1;
		uint8_t *mine = pages + (size_t)c * per_cpu * PAGE;
		for (pg = 0; pg < per_cpu; pg++)
			make_page(mine + (size_t)pg * PAGE, first + (uint64_t)pg * PER_PAGE * step,
				  step, c);
		cap->events += (size_t)per_cpu * PER_PAGE;
		data[c] = mine;
		sizes[c] = (size_t)per_cpu * PAGE;
	}
	dw_default(&spec, 6);
	spec.ncpus = n;
	spec.cpu_datav = data;
	spec.cpu_sizev = sizes;
	cap->file = xcalloc(cap_len, 1);
	cap->len = dw_write(&spec, cap->file, cap_len, NULL);
	free(pages);
	free(data);
	free(sizes);
	if (!cap->len) {
		fprintf(stderr, "merge_bench: the writer's buffer is too small\n");
		exit(2);
	}
	for (i = 0; i < 5 && s == TB_ERR_NO_SPACE; i++) {
		s = tb_dat_open(&cap->d, cap->file, cap->len, &cap->st, NULL, &err);
		if (s == TB_ERR_NO_SPACE) {
			free(cap->st.events);
			free(cap->st.buffers);
			free(cap->st.cpus);
			free(cap->st.cpustats);
			free(cap->st.scratch);
			cap->st.events = xcalloc(cap->d.need.events, sizeof(tb_dat_event_text));
			cap->st.events_cap = cap->d.need.events;
			cap->st.buffers = xcalloc(cap->d.need.buffers, sizeof(tb_dat_buffer));
			cap->st.buffers_cap = cap->d.need.buffers;
			cap->st.cpus = xcalloc(cap->d.need.cpus, sizeof(tb_dat_cpu));
			cap->st.cpus_cap = cap->d.need.cpus;
			cap->st.cpustats = xcalloc(cap->d.need.cpustats, sizeof(tb_dat_text));
			cap->st.cpustats_cap = cap->d.need.cpustats;
			cap->st.scratch = xcalloc(cap->d.need.scratch, 1);
			cap->st.scratch_cap = cap->d.need.scratch;
		}
	}
	if (s != TB_OK ||
	    tb_kbuf_layout_from_header_page(cap->d.header_page.ptr, cap->d.header_page.len,
					    cap->d.big_endian, &cap->layout, &err) != TB_OK ||
	    !(cap->b = tb_dat_find_buffer(&cap->d, "")) || cap->b->ncpus != n) {
		fprintf(stderr, "merge_bench: %u CPUs: %s at %llu\n", n, err.what,
			(unsigned long long)err.offset);
		exit(2);
	}
	cap->cur = xcalloc(n, sizeof(*cap->cur));
}

static void release(capture *cap)
{
	free(cap->file);
	free(cap->st.events);
	free(cap->st.buffers);
	free(cap->st.cpus);
	free(cap->st.cpustats);
	free(cap->st.scratch);
	free(cap->cur);
}

static volatile uint64_t sink;

/* One walk of the whole merged stream: its events; exits on a misorder. */
static size_t walk(capture *cap)
{
	tb_dat_stream s;
	tb_dat_event ev;
	tb_error err;
	tb_status st;
	uint64_t last = 0, acc = 0;
	size_t n = 0;
	if (tb_dat_stream_init(&s, &cap->d, cap->b, &cap->layout, cap->cur, cap->b->ncpus, NULL,
			       0, 0, &err) != TB_OK) {
		fprintf(stderr, "merge_bench: init: %s\n", err.what);
		exit(2);
	}
	while ((st = tb_dat_stream_next(&s, &ev, &err)) == TB_OK) {
		if (ev.ts < last) {
			fprintf(stderr, "merge_bench: out of order at event %zu\n", n);
			exit(1);
		}
		last = ev.ts;
		acc += ev.cpu + ev.data[0];
		n++;
	}
	if (st != TB_END || n != cap->events) {
		fprintf(stderr, "merge_bench: %zu of %zu events, then %s\n", n, cap->events,
			tb_strerror(st));
		exit(1);
	}
	sink = acc;
	return n;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Median nanoseconds per event of walks of n CPUs. */
static double per_event(unsigned n, int interleaved)
{
	capture cap;
	double t[ROUNDS];
	size_t r;
	build(&cap, n, interleaved);
	(void)walk(&cap); /* warm */
	for (r = 0; r < ROUNDS; r++) {
		double t0 = now();
		size_t events = walk(&cap);
		t[r] = (now() - t0) * 1e9 / (double)events;
	}
	release(&cap);
	qsort(t, ROUNDS, sizeof(t[0]), cmp_double);
	return t[ROUNDS / 2];
}

/* The median over rounds of (time per event at 1 CPU) / (at n CPUs). */
static double paired_ratio(capture *one, unsigned n)
{
	capture cap;
	double q[ROUNDS];
	size_t r;
	build(&cap, n, 0);
	(void)walk(&cap);
	for (r = 0; r < ROUNDS; r++) {
		double t0 = now(), t1, t2;
		size_t e1 = walk(one), e2;
		t1 = now();
		e2 = walk(&cap);
		t2 = now();
		q[r] = ((t1 - t0) / (double)e1) / ((t2 - t1) / (double)e2);
	}
	release(&cap);
	qsort(q, ROUNDS, sizeof(q[0]), cmp_double);
	return q[ROUNDS / 2];
}

static int figures(void)
{
	static const unsigned ns[] = { 2, 16, 1024, 8192 };
	capture one;
	size_t i;
	build(&one, 1, 0);
	(void)walk(&one);
	for (i = 0; i < sizeof(ns) / sizeof(ns[0]); i++)
		printf("figure: merge_%u_vs_1 %.3f\n", ns[i], paired_ratio(&one, ns[i]));
	release(&one);
	return 0;
}

int main(int argc, char **argv)
{
	double one[2] = { 0, 0 };
	unsigned n, max = argc > 1 ? (unsigned)atoi(argv[1]) : MAX_N;
	int lay;
	if (argc > 1 && !strcmp(argv[1], "--figures"))
		return figures();
	if (argc > 2 && !strcmp(argv[1], "--walk")) {
		capture cap;
		build(&cap, (unsigned)atoi(argv[2]), argc > 3 && !strcmp(argv[3], "interleaved"));
		printf("%zu events\n", walk(&cap));
		release(&cap);
		return 0;
	}
	if (argc > 2 && atoi(argv[2]) > 0)
		PAGES = (unsigned)atoi(argv[2]);
	printf("merge of N CPUs, %u pages of %u events over them: ns per event\n", PAGES,
	       PER_PAGE);
	printf("%6s %12s %12s\n", "CPUs", "staggered", "interleaved");
	for (n = 1; n <= max && n <= PAGES; n *= 2) {
		double v[2];
		for (lay = 0; lay < 2; lay++) {
			v[lay] = per_event(n, lay);
			if (n == 1)
				one[lay] = v[lay];
		}
		printf("%6u %12.2f %12.2f   (%.2fx, %.2fx the time at 1 CPU)\n", n, v[0], v[1],
		       v[0] / one[0], v[1] / one[1]);
		fflush(stdout);
	}
	return 0;
}
