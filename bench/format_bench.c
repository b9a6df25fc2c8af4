/*
 * Event formats, tracebound against libtraceevent, in one run:
 *  1. parse all 2,323 real format files of Linux 6.18 into one set
 *     (tb_format_set_add / tep_parse_event);
 *  2. walk the real raw sub-buffers (repeated in memory to ~64 MiB, so
 *     they come from DRAM as a big capture's pages do) and read every
 *     numeric field of every event: kbuffer + tep_find_event +
 *     tep_read_number_field against tracebound three ways, all through
 *     the public API: tb_format_set_lookup + tb_field_int per field,
 *     + tb_format_decode, + a tb_field_reader resolved once per format.
 * Prints the rates (medians of interleaved rounds), the ratios (medians of
 * the rounds' ratios) and
 * "figure: NAME VALUE" lines for bench/check.sh; TB_BENCH_ROUNDS=1 prints
 * each round's times to stderr.  Goals: parsing >= 10x
 * (issue 3), walking plus field reads >= 6x (issue 17).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <traceevent/event-parse.h>
#include <traceevent/kbuffer.h>

#include "tracebound/tracebound.h"
#include "../tests/tarball.h"

#define NFMT_MAX 4096
#define FIELDS_MAX 65536
#define PAGE 4096
#define TARGET (64u << 20)
#define ROUNDS 15

/* CPU time of this process, not wall time: on a shared machine the time
 * spent descheduled is not the code's (both sides are timed alike). */
static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef struct fmt_text {
	const char *text;
	size_t len;
	char system[64];
} fmt_text;

static fmt_text texts[NFMT_MAX];
static size_t ntexts;
static tb_format events[NFMT_MAX];
static tb_field fields[FIELDS_MAX];
static uint32_t index_slots[16384];
static tb_format_set set;
static tb_field_reader readers[NFMT_MAX]; /* one per format of the set */
static tb_field_op reader_ops[FIELDS_MAX];
static volatile uint64_t sink;

static const char *src_path(const char *rel)
{
	static char buf[4096];
	const char *root = getenv("TB_SRCDIR");
	snprintf(buf, sizeof(buf), "%s/%s", root ? root : ".", rel);
	return buf;
}

static int tb_parse_all(void)
{
	size_t i;
	if (tb_format_set_init(&set, events, NFMT_MAX, fields, FIELDS_MAX, index_slots,
			       sizeof(index_slots) / sizeof(index_slots[0]), 8) != TB_OK)
		return -1;
	for (i = 0; i < ntexts; i++)
		if (tb_format_set_add(&set, texts[i].text, texts[i].len, texts[i].system,
				      strlen(texts[i].system), NULL, NULL) != TB_OK)
			return -1;
	return 0;
}

static struct tep_handle *tep_parse_all(void)
{
	struct tep_handle *tep = tep_alloc();
	size_t i;
	tep_set_long_size(tep, 8);
	tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
	for (i = 0; i < ntexts; i++)
		if (tep_parse_event(tep, texts[i].text, texts[i].len, texts[i].system) != 0) {
			tep_free(tep);
			return NULL;
		}
	return tep;
}

typedef struct raw_data {
	uint8_t *buf;
	size_t len;
} raw_data;

static int load_raw(const char *rel, raw_data *r)
{
	FILE *f = fopen(src_path(rel), "rb");
	long n;
	if (!f)
		return -1;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	r->buf = malloc((size_t)n);
	r->len = r->buf && fread(r->buf, 1, (size_t)n, f) == (size_t)n ? (size_t)n : 0;
	fclose(f);
	return r->len ? 0 : -1;
}

/* Resolve every format's numeric fields once (not timed: done once per
 * format, as a reader of a capture does when it meets the format). */
static int build_readers(void)
{
	size_t i, used = 0;
	tb_error e;
	for (i = 0; i < set.count; i++) {
		if (tb_field_reader_init(&readers[i], &set.events[i], 0, reader_ops + used,
					 FIELDS_MAX - used, &e) != TB_OK)
			return -1;
		used += readers[i].nops;
	}
	return 0;
}

/* How tb_walk reads fields; TB_LOOKUP_ONLY reads none (the floor). */
enum { TB_FIELD_INT_EACH, TB_DECODE, TB_READER, TB_TEP_, TB_LOOKUP_ONLY };

/* tracebound: walk, look up the format, read every numeric field. */
static uint64_t tb_walk(const uint8_t *buf, size_t pages, int how, size_t *nevents)
{
	tb_kbuf_layout layout;
	tb_field_value vals[TB_FORMAT_MAX_FIELDS];
	uint64_t nums[TB_FORMAT_MAX_FIELDS];
	tb_kbuf_record recs[64];
	uint64_t sum = 0;
	size_t pg, nev = 0;
	if (tb_kbuf_layout_init(&layout, 0, 8, PAGE, 0) != TB_OK)
		return 0;
	for (pg = 0; pg < pages; pg++) {
		tb_kbuf kb;
		tb_status st = TB_OK;
		tb_error e;
		if (tb_kbuf_open(&kb, &layout, buf + pg * PAGE, PAGE, NULL) != TB_OK)
			continue;
		while (st == TB_OK) {
			size_t n = tb_kbuf_next_events(&kb, recs, 64, &st), i;
			for (i = 0; i < n; i++) {
				const uint8_t *rec = recs[i].payload;
				size_t len = recs[i].payload_len, k, got;
				const tb_format *f;
				uint32_t j;
				if (tb_format_set_lookup(&set, rec, len, 0, &f, &e) != TB_OK)
					continue;
				switch (how) {
				case TB_FIELD_INT_EACH:
					for (j = 0; j < f->nfields; j++) {
						uint64_t v;
						if (tb_field_int(&f->fields[j], rec, len, 0, &v,
								 &e) == TB_OK)
							sum += v;
					}
					break;
				case TB_DECODE:
					if (tb_format_decode(f, rec, len, 0, vals,
							     TB_FORMAT_MAX_FIELDS, &e) != TB_OK)
						continue;
					for (j = 0; j < f->nfields; j++)
						sum += vals[j].num;
					break;
				case TB_LOOKUP_ONLY:
					sum += f->id;
					break;
				default:
					if (tb_field_reader_read(&readers[f - set.events], rec, len,
								 nums, TB_FORMAT_MAX_FIELDS, &got,
								 &e) != TB_OK)
						continue;
					for (k = 0; k < got; k++)
						sum += nums[k];
					break;
				}
				nev++;
			}
		}
	}
	*nevents = nev;
	return sum;
}

/* libtraceevent: kbuffer walk, tep_find_event, tep_read_number_field per field. */
static uint64_t tep_walk(struct tep_handle *tep, uint8_t *buf, size_t pages,
			 size_t *nevents)
{
	struct kbuffer *kb = kbuffer_alloc(KBUFFER_LSIZE_8, KBUFFER_ENDIAN_LITTLE);
	uint64_t sum = 0;
	size_t pg;
	*nevents = 0;
	for (pg = 0; pg < pages; pg++) {
		unsigned long long ts;
		void *data;
		kbuffer_load_subbuffer(kb, buf + pg * PAGE);
		for (data = kbuffer_read_event(kb, &ts); data;
		     data = kbuffer_next_event(kb, &ts)) {
			struct tep_record rec;
			struct tep_event *ev;
			struct tep_format_field *tf;
			memset(&rec, 0, sizeof(rec));
			rec.data = data;
			rec.size = kbuffer_event_size(kb);
			ev = tep_find_event(tep, tep_data_type(tep, &rec));
			if (!ev)
				continue;
			for (tf = ev->format.common_fields; tf; tf = tf->next) {
				unsigned long long v;
				if (!(tf->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC)) &&
				    tep_read_number_field(tf, data, &v) == 0)
					sum += v;
			}
			for (tf = ev->format.fields; tf; tf = tf->next) {
				unsigned long long v;
				if (!(tf->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC)) &&
				    tep_read_number_field(tf, data, &v) == 0)
					sum += v;
			}
			(*nevents)++;
		}
	}
	kbuffer_free(kb);
	return sum;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
	tb_tarball tar;
	raw_data raws[2];
	size_t i, v, rounds, tb_ev = 0, tep_ev = 0, one, pages;
	double t0, tb_parse = 1e9, tep_parse = 1e9, mb, t[5][ROUNDS], med[5];
	double ratio[5][ROUNDS], rat[5];
	uint8_t *big;
	struct tep_handle *tep;

	if (tb_tarball_load(src_path("tests/data/formats-6.18.tar.gz"), &tar) != 0) {
		fprintf(stderr, "format_bench: cannot read tests/data/formats-6.18.tar.gz\n");
		return 1;
	}
	for (i = 0; i < tar.count && ntexts < NFMT_MAX; i++) {
		char ev[128];
		if (tb_tar_is_format(&tar.entries[i], texts[ntexts].system, 64, ev, sizeof(ev))) {
			texts[ntexts].text = tar.entries[i].data;
			texts[ntexts].len = tar.entries[i].len;
			ntexts++;
		}
	}
	tep_set_loglevel(TEP_LOG_NONE);

	/* 1. parsing: best of several rounds each */
	for (rounds = 0; rounds < 20; rounds++) {
		t0 = now();
		if (tb_parse_all() != 0) {
			fprintf(stderr, "format_bench: tracebound failed to parse a format\n");
			return 1;
		}
		if (now() - t0 < tb_parse)
			tb_parse = now() - t0;
	}
	for (rounds = 0; rounds < 5; rounds++) {
		t0 = now();
		tep = tep_parse_all();
		if (now() - t0 < tep_parse)
			tep_parse = now() - t0;
		if (!tep) {
			fprintf(stderr, "format_bench: libtraceevent failed to parse a format\n");
			return 1;
		}
		if (rounds < 4)
			tep_free(tep);
	}
	printf("parse %zu formats: tracebound %.2f ms, libtraceevent %.2f ms, ratio %.1fx\n",
	       ntexts, tb_parse * 1e3, tep_parse * 1e3, tep_parse / tb_parse);

	/* 2. walk + every numeric field of every event, on ~64 MiB of pages */
	if (load_raw("tests/data/raw-sched4k/cpu0.raw", &raws[0]) != 0 ||
	    load_raw("tests/data/raw-sched4k/cpu1.raw", &raws[1]) != 0 || build_readers() != 0) {
		fprintf(stderr, "format_bench: cannot read tests/data/raw-sched4k\n");
		return 1;
	}
	one = raws[0].len + raws[1].len;
	pages = (TARGET / one) * (one / PAGE);
	big = malloc(pages * PAGE);
	if (!big)
		return 1;
	for (i = 0; i * one < pages * PAGE; i++) {
		memcpy(big + i * one, raws[0].buf, raws[0].len);
		memcpy(big + i * one + raws[0].len, raws[1].buf, raws[1].len);
	}
	mb = (double)(pages * PAGE) / 1e6;
	/* --profile N: only variant N (0..4), 20 times, for perf/callgrind */
	if (argc == 3 && !strcmp(argv[1], "--profile")) {
		size_t ev0;
		v = (size_t)atoi(argv[2]);
		for (rounds = 0; rounds < (getenv("TB_PROFILE_ROUNDS") ? (size_t)atoi(getenv("TB_PROFILE_ROUNDS")) : 20); rounds++)
			sink += v == 3 ? tep_walk(tep, big, pages, &ev0)
				       : tb_walk(big, pages, (int)v, &ev0);
		return 0;
	}
	/* rounds interleaved, so a busy neighbour slows every variant alike */
	for (rounds = 0; rounds < ROUNDS; rounds++) {
		uint64_t sums[5];
		size_t ev[5];
		for (v = 0; v < 5; v++) {
			t0 = now();
			sums[v] = v == 3 ? tep_walk(tep, big, pages, &ev[v])
					 : tb_walk(big, pages, (int)v, &ev[v]);
			t[v][rounds] = now() - t0;
		}
		for (v = 0; v < 3; v++)
			if (ev[v] != ev[3] || sums[v] != sums[3]) {
				fprintf(stderr, "format_bench: variant %zu: %zu events, sum %llu; "
					"libtraceevent %zu, %llu\n", v, ev[v],
					(unsigned long long)sums[v], ev[3],
					(unsigned long long)sums[3]);
				return 1;
			}
		if (getenv("TB_BENCH_ROUNDS")) /* each round's seconds, to see the noise */
			fprintf(stderr, "round %zu: field_int %.3f decode %.3f reader %.3f "
				"libtraceevent %.3f floor %.3f\n", rounds, t[0][rounds],
				t[1][rounds], t[2][rounds], t[3][rounds], t[4][rounds]);
		tb_ev = ev[0];
		tep_ev = ev[3];
		sink += sums[0];
	}
	/* the ratios: medians of each round's ratio, so that a change of the
	 * machine's speed between rounds cancels out (this guest's speed
	 * flips between two modes); the rates: medians of the times */
	for (v = 0; v < 5; v++) {
		for (rounds = 0; rounds < ROUNDS; rounds++)
			ratio[v][rounds] = t[3][rounds] / t[v][rounds];
		rat[v] = median(ratio[v], ROUNDS);
	}
	for (v = 0; v < 5; v++)
		med[v] = median(t[v], ROUNDS);
	printf("walk + every numeric field of %zu events (%.1f MB of real 4 KiB pages, "
	       "medians of %d rounds):\n", tep_ev, mb, ROUNDS);
	printf("  libtraceevent (tep_read_number_field)  %6.0f MB/s  %6.1f M events/s\n",
	       mb / med[3], (double)tep_ev / med[3] / 1e6);
	{
		static const char *const names[3] = {
			"tracebound tb_field_int per field",
			"tracebound tb_format_decode",
			"tracebound tb_field_reader_read",
		};
		static const char *const keys[3] = {
			"walk_fields_field_int_vs_tep",
			"walk_fields_decode_vs_tep",
			"walk_fields_reader_vs_tep",
		};
		for (v = 0; v < 3; v++)
			printf("  %-38s %6.0f MB/s  %6.1f M events/s  %5.1fx\n", names[v],
			       mb / med[v], (double)tb_ev / med[v] / 1e6, rat[v]);
		printf("  %-38s %6.0f MB/s  %6.1f M events/s  %5.1fx  (the floor)\n",
		       "tracebound walk + lookup, no fields", mb / med[4],
		       (double)tb_ev / med[4] / 1e6, rat[4]);
		printf("  (goal: >= 6x through the public API)\n");
		printf("figure: parse_formats_vs_tep %.2f\n", tep_parse / tb_parse);
		for (v = 0; v < 3; v++)
			printf("figure: %s %.2f\n", keys[v], rat[v]);
	}
	free(big);
	tep_free(tep);
	free(raws[0].buf);
	free(raws[1].buf);
	tb_tarball_free(&tar);
	return 0;
}
