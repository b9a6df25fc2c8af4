/*
 * Event formats, tracebound against libtraceevent, in one run:
 *  1. parse all 2,323 real format files of Linux 6.18 into one set
 *     (tb_format_set_add / tep_parse_event);
 *  2. walk the real raw sub-buffers and read every numeric field of every
 *     event (tb_kbuf + tb_format_set_lookup + tb_format_decode /
 *     kbuffer + tep_find_event + tep_read_number_field).
 * Prints both rates and the ratios.  Goals (issue 3): parsing >= 10x,
 * walking plus field reads >= 5x.
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

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
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

/* tracebound: walk, look up, decode; sum every numeric field. */
static uint64_t tb_walk(const raw_data *raws, size_t nraw, size_t *nevents)
{
	tb_kbuf_layout layout;
	tb_field_value vals[TB_FORMAT_MAX_FIELDS];
	tb_kbuf_record recs[64];
	uint64_t sum = 0;
	size_t k;
	*nevents = 0;
	if (tb_kbuf_layout_init(&layout, 0, 8, 4096, 0) != TB_OK)
		return 0;
	for (k = 0; k < nraw; k++) {
		tb_kbuf_stream s;
		tb_kbuf kb;
		tb_error e;
		tb_kbuf_stream_init(&s, &layout, raws[k].buf, raws[k].len);
		while (tb_kbuf_stream_next(&s, &kb, &e) == TB_OK) {
			tb_status st = TB_OK;
			while (st == TB_OK) {
				size_t n = tb_kbuf_next_events(&kb, recs, 64, &st), i;
				for (i = 0; i < n; i++) {
					const tb_format *f;
					uint32_t j;
					if (tb_format_set_lookup(&set, recs[i].payload,
								 recs[i].payload_len, 0, &f,
								 &e) != TB_OK ||
					    tb_format_decode(f, recs[i].payload, recs[i].payload_len,
							     0, vals, TB_FORMAT_MAX_FIELDS, &e) != TB_OK)
						continue;
					for (j = 0; j < f->nfields; j++)
						sum += vals[j].num;
					(*nevents)++;
				}
			}
		}
	}
	return sum;
}

/* libtraceevent: kbuffer walk, tep_find_event, tep_read_number_field per field. */
static uint64_t tep_walk(struct tep_handle *tep, const raw_data *raws, size_t nraw,
			 size_t *nevents)
{
	struct kbuffer *kb = kbuffer_alloc(KBUFFER_LSIZE_8, KBUFFER_ENDIAN_LITTLE);
	uint64_t sum = 0;
	size_t k, off;
	*nevents = 0;
	for (k = 0; k < nraw; k++) {
		for (off = 0; off + 4096 <= raws[k].len; off += 4096) {
			unsigned long long ts;
			void *data;
			kbuffer_load_subbuffer(kb, raws[k].buf + off);
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
	}
	kbuffer_free(kb);
	return sum;
}

int main(void)
{
	tb_tarball tar;
	raw_data raws[2];
	size_t i, rounds, tb_ev = 0, tep_ev = 0;
	double t0, tb_parse = 1e9, tep_parse = 1e9, tb_w = 1e9, tep_w = 1e9, mb;
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

	/* 2. walk + every numeric field of every event */
	if (load_raw("tests/data/raw-sched4k/cpu0.raw", &raws[0]) != 0 ||
	    load_raw("tests/data/raw-sched4k/cpu1.raw", &raws[1]) != 0) {
		fprintf(stderr, "format_bench: cannot read tests/data/raw-sched4k\n");
		return 1;
	}
	mb = (double)(raws[0].len + raws[1].len) / 1e6;
	for (rounds = 0; rounds < 10; rounds++) {
		uint64_t a, b;
		t0 = now();
		a = tb_walk(raws, 2, &tb_ev);
		if (now() - t0 < tb_w)
			tb_w = now() - t0;
		t0 = now();
		b = tep_walk(tep, raws, 2, &tep_ev);
		if (now() - t0 < tep_w)
			tep_w = now() - t0;
		sink += a + b;
		if (tb_ev != tep_ev) {
			fprintf(stderr, "format_bench: %zu events vs %zu\n", tb_ev, tep_ev);
			return 1;
		}
	}
	printf("walk + numeric fields of %zu events (%.2f MB): tracebound %.0f MB/s "
	       "(%.1f M events/s), libtraceevent %.0f MB/s (%.1f M events/s), ratio %.1fx\n",
	       tb_ev, mb, mb / tb_w, (double)tb_ev / tb_w / 1e6, mb / tep_w,
	       (double)tep_ev / tep_w / 1e6, tep_w / tb_w);
	tep_free(tep);
	free(raws[0].buf);
	free(raws[1].buf);
	tb_tarball_free(&tar);
	return 0;
}
