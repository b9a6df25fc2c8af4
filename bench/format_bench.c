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
 *  3. the same on a broad mix (kmem, sched, irq, timer, syscalls: ~150
 *     event types, records of many sizes) in 16 KiB sub-buffers, captured
 *     on this machine by bench/make_mix.sh into build/bench/mix16k (or
 *     $TB_MIX_DIR), each tool with the capture's own formats; skipped
 *     with a note when there is no capture.
 * Before timing, every numeric field of every event is compared with
 * libtraceevent's value.  Prints the rates (medians of interleaved
 * rounds), the ratios (medians of the rounds' ratios) and "figure: NAME
 * VALUE" lines for bench/check.sh; TB_BENCH_ROUNDS=1 prints each round's
 * times to stderr.  Goals: parsing >= 10x (issue 3), walking plus field
 * reads >= 6x (issue 17), on the mix too (issue 38).
 *
 * Where the time goes on the mix (callgrind, instructions per event, one
 * pass of --profile 2 mix / --profile 3 mix; the machine this was
 * measured on was shared, so instruction counts, not times, decided each
 * step, and times were compared in alternated runs):
 *   tracebound 281: tb_field_reader_read 115 (the argument and record
 *   length checks and the call ~35, the common header 8 from one load,
 *   the other ~3.2 numeric fields ~15 each: window load, two variable
 *   shifts, the sign), this loop's own work 80 (the calls, summing ~7.2
 *   values), the sub-buffer walk 41, tb_format_set_lookup 37 (checks,
 *   one load, one probe);
 *   libtraceevent ~1,530: tep_read_number_field and tep_read_number per
 *   field, tep_find_event's bsearch, kbuffer's walk.
 * Before issue 38 tracebound took 370 (lookup 69: a size-generic read of
 * common_type and a probe loop; reader 174: every common field through
 * the per-field shifts).  Left: the per-field variable shifts (x86-64
 * without BMI2 moves each count to %cl) and the caller's own loop.
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
#define TARGET (64u << 20)
#define ROUNDS 15
#define MAX_VALUES (1u << 20) /* numeric fields of one sub-buffer, for the check */

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

/* One capture and its formats, parsed by both tools. */
typedef struct corpus {
	const char *what;       /* for the output */
	const char *prefix;     /* of its figures' names */
	tb_tarball tar;         /* the format texts */
	fmt_text texts[NFMT_MAX];
	size_t ntexts;
	tb_format events[NFMT_MAX];
	tb_field fields[FIELDS_MAX];
	uint32_t index_slots[16384];
	tb_format_set set;
	tb_field_reader readers[NFMT_MAX]; /* one per format of the set */
	tb_field_op reader_ops[FIELDS_MAX];
	struct tep_handle *tep;
	size_t page;            /* sub-buffer size */
	uint8_t *one;           /* the capture's sub-buffers, every CPU's in turn */
	size_t one_len;
	uint8_t *big;           /* `one` repeated to ~TARGET bytes */
	size_t pages;           /* sub-buffers in big */
} corpus;

static corpus corpora[2]; /* raw-sched4k, the mix */
static volatile uint64_t sink;

static const char *src_path(const char *rel)
{
	static char buf[4096];
	const char *root = getenv("TB_SRCDIR");
	snprintf(buf, sizeof(buf), "%s/%s", root ? root : ".", rel);
	return buf;
}

/* The format texts of a tarball (or directory) into c->texts. */
static void take_texts(corpus *c)
{
	size_t i;
	for (i = 0; i < c->tar.count && c->ntexts < NFMT_MAX; i++) {
		char ev[128];
		fmt_text *t = &c->texts[c->ntexts];
		if (tb_tar_is_format(&c->tar.entries[i], t->system, 64, ev, sizeof(ev))) {
			t->text = c->tar.entries[i].data;
			t->len = c->tar.entries[i].len;
			c->ntexts++;
		}
	}
}

static int tb_parse_all(corpus *c)
{
	size_t i;
	if (tb_format_set_init(&c->set, c->events, NFMT_MAX, c->fields, FIELDS_MAX,
			       c->index_slots,
			       sizeof(c->index_slots) / sizeof(c->index_slots[0]),
			       8) != TB_OK)
		return -1;
	for (i = 0; i < c->ntexts; i++)
		if (tb_format_set_add(&c->set, c->texts[i].text, c->texts[i].len,
				      c->texts[i].system, strlen(c->texts[i].system), NULL,
				      NULL) != TB_OK)
			return -1;
	return 0;
}

static struct tep_handle *tep_parse_all(const corpus *c)
{
	struct tep_handle *tep = tep_alloc();
	size_t i;
	tep_set_long_size(tep, 8);
	tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
	for (i = 0; i < c->ntexts; i++)
		if (tep_parse_event(tep, c->texts[i].text, c->texts[i].len,
				    c->texts[i].system) != 0) {
			tep_free(tep);
			return NULL;
		}
	return tep;
}

/* Append a file to c->one; 0 when it was read whole. */
static int load_raw(corpus *c, const char *path)
{
	FILE *f = fopen(path, "rb");
	long n;
	uint8_t *nb;
	if (!f)
		return -1;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	nb = n > 0 ? realloc(c->one, c->one_len + (size_t)n) : NULL;
	if (nb) {
		c->one = nb;
		if (fread(c->one + c->one_len, 1, (size_t)n, f) == (size_t)n)
			c->one_len += (size_t)n;
		else
			nb = NULL;
	}
	fclose(f);
	return nb ? 0 : -1;
}

/* Resolve every format's numeric fields once (not timed: done once per
 * format, as a reader of a capture does when it meets the format). */
static int build_readers(corpus *c)
{
	size_t i, used = 0;
	tb_error e;
	for (i = 0; i < c->set.count; i++) {
		if (tb_field_reader_init(&c->readers[i], &c->set.events[i], 0,
					 c->reader_ops + used, FIELDS_MAX - used, &e) != TB_OK)
			return -1;
		used += c->readers[i].nops;
	}
	return 0;
}

/* `one` repeated in memory to ~TARGET bytes (whole copies), so that the
 * pages come from DRAM as a big capture's do. */
static int make_big(corpus *c)
{
	size_t copies = TARGET / c->one_len ? TARGET / c->one_len : 1, i;
	c->one_len -= c->one_len % c->page;
	c->pages = copies * (c->one_len / c->page);
	c->big = malloc(c->pages * c->page);
	if (!c->big || !c->pages)
		return -1;
	for (i = 0; i < copies; i++)
		memcpy(c->big + i * c->one_len, c->one, c->one_len);
	return 0;
}

/* The ways to walk: tracebound reading fields three ways, libtraceevent,
 * and both tools' walk + lookup alone (the floors). */
enum { TB_FIELD_INT_EACH, TB_DECODE, TB_READER, TEP_FIELDS, TB_LOOKUP_ONLY, TEP_LOOKUP_ONLY,
       NVARIANTS };

/* tracebound: walk, look up the format, read every numeric field. */
static uint64_t tb_walk(const corpus *c, const uint8_t *buf, size_t pages, int how,
			size_t *nevents)
{
	tb_kbuf_layout layout;
	tb_field_value vals[TB_FORMAT_MAX_FIELDS];
	uint64_t nums[TB_FORMAT_MAX_FIELDS];
	tb_kbuf_record recs[64];
	uint64_t sum = 0;
	size_t pg, nev = 0;
	if (tb_kbuf_layout_init(&layout, 0, 8, (uint32_t)c->page, 0) != TB_OK)
		return 0;
	for (pg = 0; pg < pages; pg++) {
		tb_kbuf kb;
		tb_status st = TB_OK;
		tb_error e;
		if (tb_kbuf_open(&kb, &layout, buf + pg * c->page, c->page, NULL) != TB_OK)
			continue;
		while (st == TB_OK) {
			size_t n = tb_kbuf_next_events(&kb, recs, 64, &st), i;
			for (i = 0; i < n; i++) {
				const uint8_t *rec = recs[i].payload;
				size_t len = recs[i].payload_len, k, got;
				const tb_format *f;
				uint32_t j;
				if (tb_format_set_lookup(&c->set, rec, len, 0, &f, &e) != TB_OK)
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
					if (tb_field_reader_read(&c->readers[f - c->set.events], rec,
								 len, nums, TB_FORMAT_MAX_FIELDS,
								 &got, &e) != TB_OK)
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

/* libtraceevent's numeric fields of one event, as tep_walk reads them;
 * returns how many (at most max are stored).  tep_read_number_field
 * does not extend the sign (a `node` of -1 comes out as 0xffffffff): a
 * signed field's sign is extended here, as tb_field_int does and as a
 * program using the values must. */
static size_t tep_numbers(struct tep_event *ev, void *data, uint64_t *out, size_t max)
{
	struct tep_format_field *lists[2] = {ev->format.common_fields, ev->format.fields};
	size_t n = 0, l;
	for (l = 0; l < 2; l++) {
		struct tep_format_field *tf;
		for (tf = lists[l]; tf; tf = tf->next) {
			unsigned long long v;
			if (!(tf->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC)) &&
			    tep_read_number_field(tf, data, &v) == 0) {
				/* branch-free: sizes are 1, 2, 4 or 8 here */
				unsigned long long m =
					(unsigned long long)!!(tf->flags & TEP_FIELD_IS_SIGNED)
					<< (8 * tf->size - 1);
				v = (v ^ m) - m;
				if (n < max)
					out[n] = v;
				n++;
			}
		}
	}
	return n;
}

/* libtraceevent: kbuffer walk, tep_find_event, tep_read_number_field per
 * field (fields 0: the lookup alone, the sum of the ids). */
static uint64_t tep_walk(const corpus *c, uint8_t *buf, size_t pages, int fields,
			 size_t *nevents)
{
	struct kbuffer *kb = kbuffer_alloc(KBUFFER_LSIZE_8, KBUFFER_ENDIAN_LITTLE);
	uint64_t sum = 0;
	size_t pg;
	*nevents = 0;
	for (pg = 0; pg < pages; pg++) {
		unsigned long long ts;
		void *data;
		kbuffer_load_subbuffer(kb, buf + pg * c->page);
		for (data = kbuffer_read_event(kb, &ts); data;
		     data = kbuffer_next_event(kb, &ts)) {
			struct tep_record rec;
			struct tep_event *ev;
			memset(&rec, 0, sizeof(rec));
			rec.data = data;
			rec.size = kbuffer_event_size(kb);
			ev = tep_find_event(c->tep, tep_data_type(c->tep, &rec));
			if (!ev)
				continue;
			if (fields) {
				uint64_t nums[TB_FORMAT_MAX_FIELDS];
				size_t n = tep_numbers(ev, data, nums, TB_FORMAT_MAX_FIELDS), k;
				for (k = 0; k < n && k < TB_FORMAT_MAX_FIELDS; k++)
					sum += nums[k];
			} else {
				sum += (uint64_t)ev->id;
			}
			(*nevents)++;
		}
	}
	kbuffer_free(kb);
	return sum;
}

/*
 * Before any timing: every event of every sub-buffer of the capture, the
 * format found and each numeric field's value (tb_field_reader_read)
 * equal to libtraceevent's (tep_read_number_field), in the same order.
 * Returns the events compared, 0 on a difference (said on stderr).
 */
static size_t verify(const corpus *c)
{
	static uint64_t tbv[MAX_VALUES];
	static uint32_t tbn[MAX_VALUES];
	static const tb_format *tbf[MAX_VALUES];
	tb_kbuf_layout layout;
	size_t pg, total = 0;
	if (tb_kbuf_layout_init(&layout, 0, 8, (uint32_t)c->page, 0) != TB_OK)
		return 0;
	for (pg = 0; pg < c->one_len / c->page; pg++) {
		uint8_t *page = c->one + pg * c->page;
		struct kbuffer *kb;
		tb_kbuf k;
		tb_kbuf_record rec;
		size_t ne = 0, used = 0, i = 0, at = 0;
		unsigned long long ts;
		void *data;
		if (tb_kbuf_open(&k, &layout, page, c->page, NULL) != TB_OK)
			continue;
		while (tb_kbuf_next_event(&k, &rec) == TB_OK && ne < MAX_VALUES) {
			tb_error e;
			size_t got = 0;
			if (tb_format_set_lookup(&c->set, rec.payload, rec.payload_len, 0,
						 &tbf[ne], &e) == TB_OK &&
			    tb_field_reader_read(&c->readers[tbf[ne] - c->set.events], rec.payload,
						 rec.payload_len, tbv + used, MAX_VALUES - used,
						 &got, &e) != TB_OK)
				return fprintf(stderr, "verify: %s: sub-buffer %zu: %s\n", c->what,
					       pg, e.what), (size_t)0;
			tbn[ne++] = (uint32_t)got;
			used += got;
		}
		kb = kbuffer_alloc(KBUFFER_LSIZE_8, KBUFFER_ENDIAN_LITTLE);
		kbuffer_load_subbuffer(kb, page);
		for (data = kbuffer_read_event(kb, &ts); data; data = kbuffer_next_event(kb, &ts)) {
			struct tep_record r;
			struct tep_event *ev;
			uint64_t nums[TB_FORMAT_MAX_FIELDS];
			size_t n = 0;
			memset(&r, 0, sizeof(r));
			r.data = data;
			r.size = kbuffer_event_size(kb);
			ev = tep_find_event(c->tep, tep_data_type(c->tep, &r));
			if (ev)
				n = tep_numbers(ev, data, nums, TB_FORMAT_MAX_FIELDS);
			if (i >= ne || !ev != !tbf[i] || (ev && (uint32_t)ev->id != tbf[i]->id) ||
			    n != tbn[i] || (n && memcmp(nums, tbv + at, n * sizeof(nums[0])))) {
				fprintf(stderr, "verify: %s: sub-buffer %zu, event %zu (%s): "
					"tracebound and libtraceevent differ\n", c->what, pg, i,
					ev ? ev->name : "no format");
				kbuffer_free(kb);
				return 0;
			}
			at += n;
			i++;
		}
		kbuffer_free(kb);
		if (i != ne)
			return fprintf(stderr, "verify: %s: sub-buffer %zu: %zu events, "
				       "libtraceevent %zu\n", c->what, pg, ne, i), (size_t)0;
		total += ne;
	}
	return total;
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

static uint64_t run(corpus *c, size_t v, size_t *nev)
{
	if (v == TEP_FIELDS || v == TEP_LOOKUP_ONLY)
		return tep_walk(c, c->big, c->pages, v == TEP_FIELDS, nev);
	return tb_walk(c, c->big, c->pages, (int)v, nev);
}

/* Walk + every numeric field of c, each way, in interleaved rounds;
 * prints the rates and ratios and the figure lines.  0 when all agreed. */
static int walk_bench(corpus *c)
{
	double t[NVARIANTS][ROUNDS], ratio[NVARIANTS][ROUNDS], med[NVARIANTS], rat[NVARIANTS];
	size_t v, rounds, tb_ev = 0, tep_ev = 0, checked;
	double mb = (double)(c->pages * c->page) / 1e6;
	static const char *const names[] = {
		"tracebound tb_field_int per field",
		"tracebound tb_format_decode",
		"tracebound tb_field_reader_read",
	};
	static const char *const keys[] = {
		"walk_fields_field_int_vs_tep",
		"walk_fields_decode_vs_tep",
		"walk_fields_reader_vs_tep",
	};
	if (!(checked = verify(c)))
		return -1;
	/* rounds interleaved, so a busy neighbour slows every variant alike */
	for (rounds = 0; rounds < ROUNDS; rounds++) {
		uint64_t sums[NVARIANTS];
		size_t ev[NVARIANTS];
		double t0;
		for (v = 0; v < NVARIANTS; v++) {
			t0 = now();
			sums[v] = run(c, v, &ev[v]);
			t[v][rounds] = now() - t0;
		}
		for (v = 0; v < NVARIANTS; v++) {
			size_t ref = v < TB_LOOKUP_ONLY ? TEP_FIELDS : TEP_LOOKUP_ONLY;
			if (ev[v] != ev[ref] || sums[v] != sums[ref]) {
				fprintf(stderr, "format_bench: %s: variant %zu: %zu events, sum %llu; "
					"libtraceevent %zu, %llu\n", c->what, v, ev[v],
					(unsigned long long)sums[v], ev[ref],
					(unsigned long long)sums[ref]);
				return -1;
			}
		}
		if (getenv("TB_BENCH_ROUNDS")) /* each round's seconds, to see the noise */
			fprintf(stderr, "%s round %zu: field_int %.3f decode %.3f reader %.3f "
				"libtraceevent %.3f floor %.3f tep floor %.3f\n", c->what, rounds,
				t[0][rounds], t[1][rounds], t[2][rounds], t[3][rounds],
				t[4][rounds], t[5][rounds]);
		tb_ev = ev[TB_READER];
		tep_ev = ev[TEP_FIELDS];
		sink += sums[0];
	}
	/* the ratios: medians of each round's ratio, so that a change of the
	 * machine's speed between rounds cancels out (this guest's speed
	 * flips between two modes); the rates: medians of the times.  The
	 * floors are compared with each other, the rest with libtraceevent's
	 * fields. */
	for (v = 0; v < NVARIANTS; v++) {
		size_t ref = v < TB_LOOKUP_ONLY ? TEP_FIELDS : TEP_LOOKUP_ONLY;
		for (rounds = 0; rounds < ROUNDS; rounds++)
			ratio[v][rounds] = t[ref][rounds] / t[v][rounds];
		rat[v] = median(ratio[v], ROUNDS);
	}
	for (v = 0; v < NVARIANTS; v++)
		med[v] = median(t[v], ROUNDS);
	printf("walk + every numeric field of %zu events, %s (%.1f MB of %zu KiB pages, "
	       "%zu events' fields checked against libtraceevent; medians of %d rounds):\n",
	       tep_ev, c->what, mb, c->page >> 10, checked, ROUNDS);
	printf("  %-38s %6.0f MB/s  %6.1f M events/s\n", "libtraceevent (tep_read_number_field)",
	       mb / med[TEP_FIELDS], (double)tep_ev / med[TEP_FIELDS] / 1e6);
	for (v = 0; v < 3; v++)
		printf("  %-38s %6.0f MB/s  %6.1f M events/s  %5.1fx\n", names[v], mb / med[v],
		       (double)tb_ev / med[v] / 1e6, rat[v]);
	printf("  %-38s %6.0f MB/s  %6.1f M events/s\n", "libtraceevent walk + lookup, no fields",
	       mb / med[TEP_LOOKUP_ONLY], (double)tep_ev / med[TEP_LOOKUP_ONLY] / 1e6);
	printf("  %-38s %6.0f MB/s  %6.1f M events/s  %5.1fx  (the floor, against the line above)\n",
	       "tracebound walk + lookup, no fields", mb / med[TB_LOOKUP_ONLY],
	       (double)tb_ev / med[TB_LOOKUP_ONLY] / 1e6, rat[TB_LOOKUP_ONLY]);
	printf("  (goal: >= 6x through the public API)\n");
	for (v = 0; v < 3; v++)
		printf("figure: %s%s %.2f\n", c->prefix, keys[v], rat[v]);
	printf("figure: %swalk_lookup_vs_tep %.2f\n", c->prefix, rat[TB_LOOKUP_ONLY]);
	return 0;
}

/* Parse the corpus' formats with both tools and build the readers. */
static int prepare(corpus *c)
{
	take_texts(c);
	if (tb_parse_all(c) != 0 || build_readers(c) != 0 || !(c->tep = tep_parse_all(c))) {
		fprintf(stderr, "format_bench: %s: a format does not parse\n", c->what);
		return -1;
	}
	return make_big(c);
}

/* The mix captured by bench/make_mix.sh: 1 when there is none. */
static int load_mix(corpus *c)
{
	const char *dir = getenv("TB_MIX_DIR");
	char path[600]; /* tarball.h's directory walk takes paths under 1 KiB */
	FILE *f;
	unsigned kb = 0;
	int cpu;
	if (!dir)
		dir = src_path("build/bench/mix16k");
	if (strlen(dir) > 500)
		return -1;
	snprintf(path, sizeof(path), "%s/subbuf_kb", dir);
	if (!(f = fopen(path, "r")))
		return 1;
	if (fscanf(f, "%u", &kb) != 1 || kb < 4 || kb > 1024 || (kb & (kb - 1)))
		kb = 0;
	fclose(f);
	c->page = (size_t)kb << 10;
	snprintf(path, sizeof(path), "%s/formats", dir);
	if (!kb || tb_tarball_from_dir(path, &c->tar) != 0)
		return -1;
	for (cpu = 0;; cpu++) {
		snprintf(path, sizeof(path), "%s/cpu%d.raw", dir, cpu);
		if (load_raw(c, path) != 0)
			break;
	}
	return cpu ? prepare(c) : -1;
}

int main(int argc, char **argv)
{
	corpus *sched = &corpora[0], *mix = &corpora[1];
	size_t rounds;
	double t0, tb_parse = 1e9, tep_parse = 1e9;
	int have_mix, only_mix = argc == 4 && !strcmp(argv[3], "mix");

	sched->what = "raw-sched4k";
	sched->prefix = "";
	sched->page = 4096;
	mix->what = "the mix";
	mix->prefix = "mix_";
	if (tb_tarball_load(src_path("tests/data/formats-6.18.tar.gz"), &sched->tar) != 0) {
		fprintf(stderr, "format_bench: cannot read tests/data/formats-6.18.tar.gz\n");
		return 1;
	}
	take_texts(sched);
	tep_set_loglevel(TEP_LOG_NONE);
	if (only_mix && load_mix(mix) != 0) {
		fprintf(stderr, "format_bench: no mix capture to profile\n");
		return 1;
	}

	/* 1. parsing: best of several rounds each (not when profiling) */
	for (rounds = 0; rounds < 20 && argc < 3; rounds++) {
		t0 = now();
		if (tb_parse_all(sched) != 0) {
			fprintf(stderr, "format_bench: tracebound failed to parse a format\n");
			return 1;
		}
		if (now() - t0 < tb_parse)
			tb_parse = now() - t0;
	}
	for (rounds = 0; rounds < 5 && argc < 3; rounds++) {
		struct tep_handle *tep;
		t0 = now();
		tep = tep_parse_all(sched);
		if (now() - t0 < tep_parse)
			tep_parse = now() - t0;
		if (!tep) {
			fprintf(stderr, "format_bench: libtraceevent failed to parse a format\n");
			return 1;
		}
		tep_free(tep);
	}
	if (argc < 3) {
		printf("parse %zu formats: tracebound %.2f ms, libtraceevent %.2f ms, "
		       "ratio %.1fx\n", sched->ntexts, tb_parse * 1e3, tep_parse * 1e3,
		       tep_parse / tb_parse);
		printf("figure: parse_formats_vs_tep %.2f\n", tep_parse / tb_parse);
	}
	sched->ntexts = 0;

	/* 2. and 3. walk + every numeric field of every event, on ~64 MiB of pages */
	if (!only_mix && (load_raw(sched, src_path("tests/data/raw-sched4k/cpu0.raw")) != 0 ||
			  load_raw(sched, src_path("tests/data/raw-sched4k/cpu1.raw")) != 0 ||
			  prepare(sched) != 0)) {
		fprintf(stderr, "format_bench: cannot read tests/data/raw-sched4k\n");
		return 1;
	}
	have_mix = only_mix ? 0 : load_mix(mix);
	if (have_mix < 0) {
		fprintf(stderr, "format_bench: the mix capture is there but cannot be read\n");
		return 1;
	}
	/* --profile N [mix]: only variant N (0..5), 20 times, for perf/callgrind */
	if (argc >= 3 && !strcmp(argv[1], "--profile")) {
		corpus *c = only_mix && have_mix == 0 ? mix : sched;
		const char *r = getenv("TB_PROFILE_ROUNDS");
		size_t ev0, n = r ? (size_t)atoi(r) : 20;
		for (rounds = 0; rounds < n; rounds++)
			sink += run(c, (size_t)atoi(argv[2]), &ev0);
		return 0;
	}
	if (walk_bench(sched) != 0)
		return 1;
	if (have_mix == 0) {
		if (walk_bench(mix) != 0)
			return 1;
	} else {
		printf("the mix: no capture (sh bench/make_mix.sh makes one, as root): skipped\n");
	}
	return 0;
}
