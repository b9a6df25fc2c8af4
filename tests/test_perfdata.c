/*
 * perf.data decoder: real captures of this machine against perf's own raw
 * dump (`perf report -D`, tests/golden/perf/), their features and tracing
 * data, every sample_type field and record kind hand-built in both byte
 * orders, every error at its offset, every prefix, every split of a pipe.
 */
#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracebound/perfdata.h"
#include "tracebound/tracedat.h"
#include "perfwriter.h"
#include "testutil.h"
#include "zstd_dl.h"

Suite *tb_suite_perfdata(void);

/* ------------------------------------------------------------------ */
/* Helpers.                                                           */

typedef struct text {
	char *s;
	size_t n, cap;
} text;

static void text_add(text *t, const char *s)
{
	size_t k = strlen(s);
	if (t->n + k + 1 > t->cap) {
		t->cap = (t->n + k + 1) * 2;
		t->s = realloc(t->s, t->cap);
		ck_assert_ptr_nonnull(t->s);
	}
	memcpy(t->s + t->n, s, k + 1);
	t->n += k;
}

static uint8_t *load(const char *name, size_t *n)
{
	return tb_test_load("tests/data/perf", name, n);
}

static char *load_text(const char *rel)
{
	size_t n;
	uint8_t *b = tb_test_read_file(tb_test_path(rel), &n);
	char *s;
	ck_assert_msg(b != NULL, "cannot read %s", rel);
	s = malloc(n + 1);
	ck_assert_ptr_nonnull(s);
	memcpy(s, b, n);
	s[n] = 0;
	free(b);
	return s;
}

static int is_compressed_type(uint32_t t)
{
	return t == TB_PERF_RECORD_COMPRESSED || t == TB_PERF_RECORD_COMPRESSED2;
}

/* Storage big enough for every test file. */
typedef struct store {
	tb_perf_attr attrs[64];
	tb_perf_id ids[1024];
	uint8_t tracing[1 << 16];
	tb_perf_storage st;
} store;

static store *new_store(void)
{
	store *s = calloc(1, sizeof(*s));
	ck_assert_ptr_nonnull(s);
	s->st.attrs = s->attrs;
	s->st.attrs_cap = 64;
	s->st.ids = s->ids;
	s->st.ids_cap = 1024;
	s->st.tracing = s->tracing;
	s->st.tracing_cap = sizeof(s->tracing);
	return s;
}

/* The golden line of a record (tests/data/perf/golden.sh says what). */
static void rec_line(const tb_perf_record *r, uint64_t base, text *out)
{
	char line[512];
	uint32_t cpu = 0;
	uint64_t time = 0;
	int n;
	if (r->has_sample) {
		cpu = (r->s.present & TB_PERF_SAMPLE_CPU) ? r->s.cpu : 0;
		time = (r->s.present & TB_PERF_SAMPLE_TIME) ? r->s.time : 0;
	}
	n = snprintf(line, sizeof(line), "%#" PRIx64 " %#x %s %u %" PRIu64,
		     r->offset - base, r->size, tb_perf_record_name(r->type), cpu, time);
	if (r->type == TB_PERF_RECORD_SAMPLE)
		snprintf(line + n, sizeof(line) - (size_t)n, " %d/%d %#" PRIx64 " %" PRIu64,
			 (int32_t)r->s.pid, (int32_t)r->s.tid, r->s.ip, r->s.period);
	else if (r->type == TB_PERF_RECORD_COMM)
		snprintf(line + n, sizeof(line) - (size_t)n, " %.*s:%d/%d",
			 (int)r->u.comm.comm.len, (const char *)r->u.comm.comm.ptr,
			 (int32_t)r->u.comm.pid, (int32_t)r->u.comm.tid);
	else if (r->type == TB_PERF_RECORD_FORK || r->type == TB_PERF_RECORD_EXIT)
		snprintf(line + n, sizeof(line) - (size_t)n, " (%d:%d):(%d:%d)",
			 (int32_t)r->u.fork.pid, (int32_t)r->u.fork.tid,
			 (int32_t)r->u.fork.ppid, (int32_t)r->u.fork.ptid);
	text_add(out, line);
	text_add(out, "\n");
}

/* A tracepoint sample's RAW record starts with its format's id: the attr's
 * config.  Checked on every real sample. */
static void check_raw(const tb_perf_record *r, size_t *samples)
{
	if (r->type != TB_PERF_RECORD_SAMPLE)
		return;
	(*samples)++;
	ck_assert_ptr_nonnull(r->attr);
	if (r->attr->type == 2) {
		ck_assert(r->s.present & TB_PERF_SAMPLE_RAW);
		ck_assert_uint_ge(r->s.raw.len, 8);
		ck_assert_uint_eq(r->s.raw.ptr[0] | r->s.raw.ptr[1] << 8, r->attr->config);
		/* the kernel pads the RAW part so the sample ends 8-aligned */
		ck_assert_uint_eq(r->size % 8, 0);
	}
}

static void compare_golden(const text *got, const char *golden_rel)
{
	char *want = load_text(golden_rel);
	const char *a = got->s ? got->s : "", *b = want;
	size_t line = 1;
	while (*a && *a == *b) {
		if (*a == '\n')
			line++;
		a++;
		b++;
	}
	if (*a || *b) {
		const char *ea = strchr(a, '\n'), *eb = strchr(b, '\n');
		/* back to the start of the differing line */
		while (a > got->s && a[-1] != '\n') {
			a--;
			b--;
		}
		ea = strchr(a, '\n');
		eb = strchr(b, '\n');
		ck_abort_msg("%s line %zu differs:\n got  %.*s\n want %.*s", golden_rel, line,
			     (int)(ea ? ea - a : (long)strlen(a)), a,
			     (int)(eb ? eb - b : (long)strlen(b)), b);
	}
	free(want);
}

/* Walk a whole file: its golden lines, samples checked. */
static size_t walk_file(const tb_perf *f, text *out)
{
	tb_perf_iter it;
	tb_perf_record r;
	tb_error e;
	tb_status st;
	size_t samples = 0;
	ck_assert_int_eq(tb_perf_records_begin(&it, f, &e), TB_OK);
	while ((st = tb_perf_record_next(&it, &r, &e)) == TB_OK) {
		rec_line(&r, 0, out);
		check_raw(&r, &samples);
	}
	ck_assert_msg(st == TB_END, "walk ended with %s at %" PRIu64 ": %s", tb_strerror(st),
		      e.offset, e.what);
	return samples;
}

/* Decode a stream fed in pieces: piece bytes at a time (0: whole), or
 * split in two at `split` (when piece is 0 and split > 0).  Each piece
 * is an exact-size copy, freed once the decoder asks for more, so a read
 * past a piece is caught by ASan.  Returns how it ended. */
typedef struct sresult {
	text lines;
	size_t records, samples;
	tb_status end;
	tb_error err;
	uint64_t last_end;       /* stream offset after the last record given */
} sresult;

static void run_stream(tb_perf_stream *p, const store *s, const uint8_t *d, size_t n,
		       size_t piece, size_t split, int close_at_end, sresult *out)
{
	size_t pos = 0;
	uint8_t *cur = NULL;
	memset(out, 0, sizeof(*out));
	tb_perf_stream_init(p, &s->st);
	for (;;) {
		tb_perf_record r;
		tb_status st = tb_perf_stream_next(p, &r, &out->err);
		if (st == TB_OK) {
			rec_line(&r, 16, &out->lines);
			check_raw(&r, &out->samples);
			out->records++;
			/* AUXTRACE's data is skipped after its record is given */
			out->last_end = r.offset + r.size +
					(r.type == TB_PERF_RECORD_AUXTRACE ? 0 : r.extra_len);
			continue;
		}
		if (st == TB_NEED_MORE) {
			size_t k;
			free(cur);
			cur = NULL;
			if (pos == n) {
				if (!close_at_end)
					break;
				tb_perf_stream_close(p);
				continue;
			}
			k = piece ? piece : (split && pos < split ? split : n - pos);
			if (k > n - pos)
				k = n - pos;
			cur = tb_test_dup(d + pos, k);
			ck_assert_int_eq(tb_perf_stream_feed(p, cur, k), TB_OK);
			pos += k;
			continue;
		}
		out->end = st;
		break;
	}
	free(cur);
}

static tb_perf_stream *new_stream(void)
{
	tb_perf_stream *p = malloc(sizeof(*p));
	ck_assert_ptr_nonnull(p);
	return p;
}

/* ------------------------------------------------------------------ */
/* Real captures against perf report -D.                              */

static const struct { const char *file, *golden; size_t samples; } real_files[] = {
	{ "sched.data", "tests/golden/perf/sched.records", 898 },
	{ "schedg.data", "tests/golden/perf/schedg.records", 74 },
	{ "small.data", "tests/golden/perf/small.records", 4 },
};

START_TEST(real_file_records_match_perf)
{
	size_t n;
	uint8_t *b = load(real_files[_i].file, &n);
	store *s = new_store();
	tb_perf f;
	tb_error e;
	text t = { 0 };
	ck_assert_msg(tb_perf_open(&f, b, n, &s->st, &e) == TB_OK, "%s: %s at %" PRIu64,
		      real_files[_i].file, e.what, e.offset);
	ck_assert_uint_eq(walk_file(&f, &t), real_files[_i].samples);
	compare_golden(&t, real_files[_i].golden);
	free(t.s);
	free(s);
	free(b);
}
END_TEST

static const struct { const char *file, *golden; size_t samples; } real_pipes[] = {
	{ "pipe.data", "tests/golden/perf/pipe.records", 765 },
	{ "small-pipe.data", "tests/golden/perf/small-pipe.records", 4 },
};

START_TEST(real_pipe_records_match_perf)
{
	size_t n;
	uint8_t *b = load(real_pipes[_i].file, &n);
	store *s = new_store();
	tb_perf_stream *p = new_stream();
	sresult r;
	tb_dat d;
	tb_dat_event_text ev[64];
	tb_dat_storage ds = { 0 };
	tb_dat_open_opts o = { TB_DAT_OPEN_PERF_TRACING, NULL, 0 };
	tb_error e;
	run_stream(p, s, b, n, 0, 0, 1, &r);
	ck_assert_msg(r.end == TB_END, "%s at %" PRIu64 ": %s", tb_strerror(r.end), r.err.offset,
		      r.err.what);
	ck_assert_uint_eq(r.samples, real_pipes[_i].samples);
	compare_golden(&r.lines, real_pipes[_i].golden);
	/* the tracing data came with the stream and parses as perf's */
	ck_assert(tb_perf_has_feature(&p->f, TB_PERF_FEAT_TRACING_DATA));
	ds.events = ev;
	ds.events_cap = 64;
	ck_assert_int_eq(tb_dat_open_ex(&d, p->f.tracing_data.ptr, p->f.tracing_data.len, &ds,
					NULL, &o, &e), TB_OK);
	ck_assert_uint_ge(d.nevents, 2);
	/* one byte at a time gives the same */
	free(r.lines.s);
	run_stream(p, s, b, n, 1, 0, 1, &r);
	ck_assert_int_eq(r.end, TB_END);
	compare_golden(&r.lines, real_pipes[_i].golden);
	free(r.lines.s);
	free(p);
	free(s);
	free(b);
}
END_TEST

/* Every split in two of a real pipe stream gives the same records. */
START_TEST(real_pipe_every_split)
{
	size_t n, k;
	uint8_t *b = load("small-pipe.data", &n);
	store *s = new_store();
	tb_perf_stream *p = new_stream();
	sresult whole, r;
	run_stream(p, s, b, n, 0, 0, 1, &whole);
	ck_assert_int_eq(whole.end, TB_END);
	for (k = 1; k < n; k++) {
		run_stream(p, s, b, n, 0, k, 1, &r);
		ck_assert_msg(r.end == TB_END && r.records == whole.records &&
				      strcmp(r.lines.s, whole.lines.s) == 0,
			      "split at %zu: %s", k, tb_strerror(r.end));
		free(r.lines.s);
	}
	free(whole.lines.s);
	free(p);
	free(s);
	free(b);
}
END_TEST

/* Every prefix of a real pipe stream: the whole records before the cut,
 * then a truncation at the cut record (or a clean end at a boundary). */
START_TEST(real_pipe_every_prefix)
{
	size_t n, k;
	uint8_t *b = load("small-pipe.data", &n);
	store *s = new_store();
	tb_perf_stream *p = new_stream();
	sresult r;
	for (k = 0; k < n; k++) {
		run_stream(p, s, b, k, 0, 0, 1, &r);
		ck_assert_msg(r.end == TB_END || r.end == TB_ERR_TRUNCATED, "prefix %zu: %s", k,
			      tb_strerror(r.end));
		ck_assert_uint_le(r.last_end, k);
		if (r.end == TB_ERR_TRUNCATED)
			ck_assert_msg(r.err.offset <= k && r.err.offset >= (k < 16 ? 0 : r.last_end ? r.last_end - 1 : 0),
				      "prefix %zu: error at %" PRIu64, k, r.err.offset);
		else /* ended on a boundary: a record's, or the header's */
			ck_assert(r.last_end == k || (r.records == 0 && k == 16));
		free(r.lines.s);
	}
	free(p);
	free(s);
	free(b);
}
END_TEST

/* Every prefix of a real file is refused at an offset inside it. */
START_TEST(real_file_every_prefix)
{
	size_t n, k;
	uint8_t *b = load("small.data", &n);
	store *s = new_store();
	for (k = 0; k < n; k++) {
		uint8_t *c = tb_test_dup(b, k);
		tb_perf f;
		tb_error e;
		tb_status st = tb_perf_open(&f, c, k, &s->st, &e);
		ck_assert_msg(tb_is_malformed(st), "prefix %zu: %s", k, tb_strerror(st));
		ck_assert_uint_le(e.offset, k);
		free(c);
	}
	free(s);
	free(b);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Features of a real file.                                           */

static void expect_bytes(tb_perf_bytes b, const char *want)
{
	ck_assert_msg(b.len == strlen(want) && memcmp(b.ptr, want, b.len) == 0,
		      "got \"%.*s\", want \"%s\"", (int)b.len, (const char *)b.ptr, want);
}

START_TEST(real_file_features)
{
	static const char *const cmdline[] = { "/usr/bin/perf", "record", "-e", "sched:*", "-a",
					       "-o", "sched.data", "--", "sleep", "0.2" };
	size_t n, i;
	uint8_t *b = load("sched.data", &n);
	store *s = new_store();
	tb_perf f;
	tb_perf_feature ft;
	tb_perf_str_iter si;
	tb_perf_desc_iter di;
	tb_perf_event_desc ed;
	tb_perf_bytes str;
	const tb_perf_attr *a;
	tb_error e;
	ck_assert_int_eq(tb_perf_open(&f, b, n, &s->st, &e), TB_OK);
	/* perf report --header-only says all of this */
	ck_assert_int_eq(f.big_endian, 0);
	ck_assert_uint_eq(f.header_size, 104);
	ck_assert_uint_eq(f.data.offset, 4424);
	ck_assert_uint_eq(f.data.size, 139392);
	expect_bytes(f.hostname, "vm");
	expect_bytes(f.osrelease, "6.18.44-fc-v1272");
	expect_bytes(f.version, "6.1.187");
	expect_bytes(f.arch, "x86_64");
	expect_bytes(f.cpudesc, "AMD EPYC");
	expect_bytes(f.cpuid, "AuthenticAMD,26,2,1");
	ck_assert(f.has_nrcpus);
	ck_assert_uint_eq(f.nr_cpus_online, 2);
	ck_assert_uint_eq(f.nr_cpus_avail, 2);
	ck_assert(!f.has_clock_data && !f.has_compression && !f.dir_format);
	ck_assert_uint_eq(f.nattrs, 27);
	ck_assert_uint_eq(f.nids, 54);
	ck_assert_int_eq(f.id_pos, 0);     /* IDENTIFIER first */
	ck_assert_int_eq(f.id_pos_end, 1); /* and last in a trailer */
	ck_assert_uint_eq(f.attrs[0].config, 0x163);
	ck_assert_uint_eq(f.attrs[0].size, 128);
	ck_assert_uint_eq(f.attrs[0].sample_type,
			  TB_PERF_SAMPLE_IP | TB_PERF_SAMPLE_TID | TB_PERF_SAMPLE_TIME |
				  TB_PERF_SAMPLE_CPU | TB_PERF_SAMPLE_PERIOD | TB_PERF_SAMPLE_RAW |
				  TB_PERF_SAMPLE_IDENTIFIER);
	ck_assert(f.attrs[0].flags & TB_PERF_ATTR_FLAG_SAMPLE_ID_ALL);
	ck_assert_uint_eq(f.attrs[0].read_format, TB_PERF_FORMAT_ID | TB_PERF_FORMAT_LOST);
	ck_assert_int_eq(tb_perf_find_attr(&f, 46, &a), TB_OK);
	ck_assert_uint_eq(a->config, 0x174); /* sched:sched_switch, ids 46 and 47 */
	ck_assert_int_eq(tb_perf_find_attr(&f, 47, &a), TB_OK);
	ck_assert_uint_eq(a->config, 0x174);
	ck_assert_int_eq(tb_perf_find_attr(&f, 66, &a), TB_NOT_FOUND);
	ck_assert_int_eq(tb_perf_find_attr(&f, 11, &a), TB_NOT_FOUND);
	/* CMDLINE */
	ck_assert_int_eq(tb_perf_feature_get(&f, TB_PERF_FEAT_CMDLINE, &ft, &e), TB_OK);
	ck_assert_int_eq(tb_perf_strings_begin(&si, &f, &ft, &e), TB_OK);
	ck_assert_uint_eq(si.count, 10);
	for (i = 0; i < 10; i++) {
		ck_assert_int_eq(tb_perf_strings_next(&si, &str, &e), TB_OK);
		expect_bytes(str, cmdline[i]);
	}
	ck_assert_int_eq(tb_perf_strings_next(&si, &str, &e), TB_END);
	/* HOSTNAME through the one-string reader */
	ck_assert_int_eq(tb_perf_feature_get(&f, TB_PERF_FEAT_HOSTNAME, &ft, &e), TB_OK);
	ck_assert_int_eq(tb_perf_feature_string(&f, &ft, &str, &e), TB_OK);
	expect_bytes(str, "vm");
	ck_assert_int_eq(tb_perf_feature_get(&f, TB_PERF_FEAT_CLOCK_DATA, &ft, &e), TB_NOT_FOUND);
	/* EVENT_DESC: names and ids as perf report --header-only prints them */
	ck_assert_int_eq(tb_perf_feature_get(&f, TB_PERF_FEAT_EVENT_DESC, &ft, &e), TB_OK);
	ck_assert_int_eq(tb_perf_event_desc_begin(&di, &f, &ft, &e), TB_OK);
	ck_assert_uint_eq(di.list.count, 27);
	for (i = 0; i < 27; i++) {
		ck_assert_int_eq(tb_perf_event_desc_next(&di, &ed, &e), TB_OK);
		ck_assert_uint_eq(ed.ids.n, 2);
		ck_assert_uint_eq(tb_perf_u64_at(&ed.ids, 0), 12 + 2 * i);
		ck_assert_uint_eq(tb_perf_u64_at(&ed.ids, 1), 13 + 2 * i);
		ck_assert_uint_eq(ed.attr.config, f.attrs[i].config);
		if (i == 0)
			expect_bytes(ed.name, "sched:sched_wake_idle_without_ipi");
		if (i == 17)
			expect_bytes(ed.name, "sched:sched_switch");
		if (i == 26)
			expect_bytes(ed.name, "dummy:HG");
	}
	ck_assert_int_eq(tb_perf_event_desc_next(&di, &ed, &e), TB_END);
	free(s);
	free(b);
}
END_TEST

/* The feature readers refuse what they cannot use, each with its status:
 * missing arguments, a pipe stream's features (records there), a string
 * list or EVENT_DESC whose count or header does not fit its bytes. */
START_TEST(feature_readers_refuse)
{
	size_t n;
	uint8_t *b = load("sched.data", &n);
	store *s = new_store();
	tb_perf f, piped;
	tb_perf_feature ft, cut;
	tb_perf_str_iter si;
	tb_perf_desc_iter di;
	tb_perf_event_desc ed;
	tb_perf_bytes str;
	tb_error e;
	static const uint8_t many[8] = { 0xff, 0xff, 0, 0, 0, 0, 0, 0 };
	ck_assert_int_eq(tb_perf_open(&f, b, n, &s->st, &e), TB_OK);
	ck_assert_int_eq(tb_perf_feature_get(NULL, TB_PERF_FEAT_CMDLINE, &ft, &e), TB_ERR_ARG);
	ck_assert_int_eq(tb_perf_feature_get(&f, TB_PERF_FEAT_CMDLINE, NULL, &e), TB_ERR_ARG);
	piped = f;
	piped.pipe = 1;
	ck_assert_int_eq(tb_perf_feature_get(&piped, TB_PERF_FEAT_CMDLINE, &ft, &e), TB_ERR_ARG);
	ck_assert_str_eq(e.what, "pipe mode: features come as records");
	ck_assert_int_eq(tb_perf_feature_get(&f, TB_PERF_FEAT_HOSTNAME, &ft, &e), TB_OK);
	ck_assert_int_eq(tb_perf_feature_string(NULL, &ft, &str, &e), TB_ERR_ARG);
	ck_assert_int_eq(tb_perf_feature_string(&f, NULL, &str, &e), TB_ERR_ARG);
	ck_assert_int_eq(tb_perf_feature_string(&f, &ft, NULL, &e), TB_ERR_ARG);
	ck_assert_int_eq(tb_perf_strings_begin(NULL, &f, &ft, &e), TB_ERR_ARG);
	ck_assert_int_eq(tb_perf_strings_begin(&si, NULL, &ft, &e), TB_ERR_ARG);
	ck_assert_int_eq(tb_perf_strings_begin(&si, &f, NULL, &e), TB_ERR_ARG);
	ck_assert_int_eq(tb_perf_strings_next(NULL, &str, &e), TB_ERR_ARG);
	ck_assert_int_eq(tb_perf_event_desc_begin(NULL, &f, &ft, &e), TB_ERR_ARG);
	ck_assert_int_eq(tb_perf_event_desc_begin(&di, NULL, &ft, &e), TB_ERR_ARG);
	ck_assert_int_eq(tb_perf_event_desc_begin(&di, &f, NULL, &e), TB_ERR_ARG);
	ck_assert_int_eq(tb_perf_event_desc_next(NULL, &ed, &e), TB_ERR_ARG);
	/* a list of 65535 strings in 8 bytes; an EVENT_DESC of 3 bytes */
	cut = ft;
	cut.data.ptr = many;
	cut.data.len = sizeof(many);
	ck_assert_int_eq(tb_perf_strings_begin(&si, &f, &cut, &e), TB_ERR_LENGTH);
	ck_assert_str_eq(e.what, "string list count exceeds its section");
	ck_assert_uint_eq(e.offset, ft.offset);
	cut.data.len = 3;
	ck_assert_int_eq(tb_perf_strings_begin(&si, &f, &cut, &e), TB_ERR_TRUNCATED);
	ck_assert_int_eq(tb_perf_event_desc_begin(&di, &f, &cut, &e), TB_ERR_TRUNCATED);
	ck_assert_str_eq(e.what, "EVENT_DESC header cut short");
	ck_assert_int_eq(tb_perf_strings_next(&si, NULL, &e), TB_ERR_ARG);
	ck_assert_int_eq(tb_perf_event_desc_next(&di, NULL, &e), TB_ERR_ARG);
	/* the real EVENT_DESC (attrs of 128 bytes) cut inside its last entry:
	 * the attr, the id count, the name, the ids */
	ck_assert_int_eq(tb_perf_feature_get(&f, TB_PERF_FEAT_EVENT_DESC, &ft, &e), TB_OK);
	ck_assert_int_eq(tb_perf_event_desc_begin(&di, &f, &ft, &e), TB_OK);
	while (di.list.index + 1 < di.list.count)
		ck_assert_int_eq(tb_perf_event_desc_next(&di, &ed, &e), TB_OK);
	cut = ft;
	{
		const size_t last = di.list.pos;
		const size_t at[] = { last + 100, last + 128 + 2, last + 128 + 4 + 2, ft.data.len - 4 };
		static const char *const what[] = { "EVENT_DESC attr cut short",
						    "EVENT_DESC id count cut short",
						    "string length cut short",
						    "EVENT_DESC ids run past the section" };
		size_t k;
		for (k = 0; k < 4; k++) {
			cut.data.len = at[k];
			ck_assert_int_eq(tb_perf_event_desc_begin(&di, &f, &cut, &e), TB_OK);
			while (di.list.index + 1 < di.list.count)
				ck_assert_int_eq(tb_perf_event_desc_next(&di, &ed, &e), TB_OK);
			ck_assert_int_ne(tb_perf_event_desc_next(&di, &ed, &e), TB_OK);
			ck_assert_msg(!strcmp(e.what, what[k]), "cut at %zu: %s", at[k], e.what);
		}
	}
	free(s);
	free(b);
}
END_TEST

/* TRACING_DATA is a v6 trace.dat header under version 0.6: the trace.dat
 * parsers read its formats, and sched_switch's ID is the attr's config. */
START_TEST(real_file_tracing_data)
{
	size_t n, i, found = 0;
	uint8_t *b = load("sched.data", &n);
	store *s = new_store();
	tb_perf f;
	tb_dat d;
	tb_dat_event_text ev[128];
	tb_dat_storage ds = { 0 };
	tb_dat_open_opts o = { TB_DAT_OPEN_PERF_TRACING, NULL, 0 };
	tb_error e;
	ck_assert_int_eq(tb_perf_open(&f, b, n, &s->st, &e), TB_OK);
	ck_assert(tb_perf_has_feature(&f, TB_PERF_FEAT_TRACING_DATA));
	ck_assert_uint_eq(f.tracing_offset, 144184);
	ck_assert_uint_eq(f.tracing_data.len, 21703);
	ds.events = ev;
	ds.events_cap = 128;
	ck_assert_msg(tb_dat_open_ex(&d, f.tracing_data.ptr, f.tracing_data.len, &ds, NULL, &o,
				     &e) == TB_OK, "%s at %" PRIu64, e.what, e.offset);
	ck_assert_uint_eq(d.long_size, 8);
	ck_assert_uint_eq(d.page_size, 4096);
	ck_assert_uint_gt(d.header_page.len, 0);
	ck_assert_uint_eq(d.nsystems, 1);
	ck_assert_uint_eq(d.nevents - d.nftrace, 26); /* the sched events recorded */
	ck_assert_uint_eq(d.nbuffers, 0);
	for (i = 0; i < d.nevents; i++)
		if (strstr(d.events[i].format.ptr, "name: sched_switch\nID: 372\n") &&
		    (size_t)(strstr(d.events[i].format.ptr, "name: sched_switch") -
			     d.events[i].format.ptr) < d.events[i].format.len)
			found++;
	ck_assert_uint_eq(found, 1);
	/* without the flag it is no trace.dat */
	ck_assert_int_eq(tb_dat_open_ex(&d, f.tracing_data.ptr, f.tracing_data.len, &ds, NULL,
					NULL, &e), TB_ERR_VERSION);
	free(s);
	free(b);
}
END_TEST

/* A -g capture: the first sample's callchain as perf report -D prints it. */
START_TEST(real_file_callchain)
{
	size_t n;
	uint8_t *b = load("schedg.data", &n);
	store *s = new_store();
	tb_perf f;
	tb_perf_iter it;
	tb_perf_record r;
	tb_error e;
	ck_assert_int_eq(tb_perf_open(&f, b, n, &s->st, &e), TB_OK);
	ck_assert_int_eq(tb_perf_records_begin(&it, &f, &e), TB_OK);
	while (tb_perf_record_next(&it, &r, &e) == TB_OK && r.offset != 0x84e8)
		;
	ck_assert_uint_eq(r.offset, 0x84e8);
	ck_assert_uint_eq(r.type, TB_PERF_RECORD_SAMPLE);
	ck_assert(r.s.present & TB_PERF_SAMPLE_CALLCHAIN);
	ck_assert_uint_eq(r.s.callchain.n, 20);
	ck_assert_uint_eq(tb_perf_u64_at(&r.s.callchain, 0), 0xffffffffffffff80ull);
	ck_assert_uint_eq(tb_perf_u64_at(&r.s.callchain, 1), 0xffffffff813b4dc5ull);
	ck_assert_uint_eq(tb_perf_u64_at(&r.s.callchain, 10), 0xffffffff81000130ull);
	ck_assert_uint_eq(tb_perf_u64_at(&r.s.callchain, 20), 0); /* past the end */
	ck_assert_uint_eq(r.s.pid, 7747);
	ck_assert_uint_eq(r.s.time, 294332163737ull);
	free(s);
	free(b);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Hand-built: every sample_type field, both byte orders.             */

#define ALL_BITS (TB_PERF_SAMPLE_KNOWN_ & ~TB_PERF_SAMPLE_WEIGHT)
#define RF_ALL (TB_PERF_FORMAT_GROUP | TB_PERF_FORMAT_ID | TB_PERF_FORMAT_LOST | \
		TB_PERF_FORMAT_TOTAL_TIME_ENABLED | TB_PERF_FORMAT_TOTAL_TIME_RUNNING)

static pw_attr full_attr(uint32_t size)
{
	pw_attr a;
	memset(&a, 0, sizeof(a));
	a.type = 4;
	a.size = size;
	a.config = 0x1234;
	a.sample_type = ALL_BITS;
	a.read_format = RF_ALL;
	a.flags = TB_PERF_ATTR_FLAG_SAMPLE_ID_ALL | TB_PERF_ATTR_FLAG_USE_CLOCKID | 1u;
	a.branch_sample_type = TB_PERF_BRANCH_HW_INDEX | TB_PERF_BRANCH_COUNTERS;
	a.regs_user = 0xb;   /* 3 registers */
	a.regs_intr = 0x3;   /* 2 */
	a.stack_user = 16;
	a.clockid = 1;
	return a;
}

/* One SAMPLE with every field of full_attr; returns its offset in w. */
static size_t put_full_sample(pw *w)
{
	size_t at = pw_rec_begin(w, TB_PERF_RECORD_SAMPLE, 1), i;
	pw_u64(w, 77);                     /* IDENTIFIER */
	pw_u64(w, 0x1111);                 /* IP */
	pw_u32(w, 10);                     /* TID */
	pw_u32(w, 11);
	pw_u64(w, 1000);                   /* TIME */
	pw_u64(w, 0x2222);                 /* ADDR */
	pw_u64(w, 77);                     /* ID */
	pw_u64(w, 99);                     /* STREAM_ID */
	pw_u32(w, 3);                      /* CPU */
	pw_u32(w, 0);
	pw_u64(w, 5);                      /* PERIOD */
	pw_u64(w, 2);                      /* READ: nr, enabled, running, 2 x 3 */
	pw_u64(w, 100);
	pw_u64(w, 90);
	for (i = 0; i < 6; i++)
		pw_u64(w, 500 + i);
	pw_u64(w, 3);                      /* CALLCHAIN */
	pw_u64(w, 0xfffffffffffffe00ull);
	pw_u64(w, 0xffffffff81000000ull);
	pw_u64(w, 0xffffffff81000010ull);
	pw_u32(w, 12);                     /* RAW */
	pw_u16(w, 0x1234);
	pw_bytes(w, "0123456789", 10);
	pw_u64(w, 2);                      /* BRANCH_STACK: nr, hw_idx, entries, counters */
	pw_u64(w, 7);
	for (i = 0; i < 6; i++)
		pw_u64(w, 600 + i);
	pw_u64(w, 41);
	pw_u64(w, 42);
	pw_u64(w, 2);                      /* REGS_USER: abi, 3 regs */
	pw_u64(w, 701);
	pw_u64(w, 702);
	pw_u64(w, 703);
	pw_u64(w, 16);                     /* STACK_USER: size, bytes, dyn_size */
	pw_bytes(w, "stackstackstack!", 16);
	pw_u64(w, 8);
	pw_u64(w, 0x55);                   /* WEIGHT_STRUCT */
	pw_u64(w, 0x66);                   /* DATA_SRC */
	pw_u64(w, 0x77);                   /* TRANSACTION */
	pw_u64(w, 1);                      /* REGS_INTR: abi, 2 regs */
	pw_u64(w, 801);
	pw_u64(w, 802);
	pw_u64(w, 0x88);                   /* PHYS_ADDR */
	pw_u64(w, 0x99);                   /* CGROUP */
	pw_u64(w, 4096);                   /* DATA_PAGE_SIZE */
	pw_u64(w, 8192);                   /* CODE_PAGE_SIZE */
	pw_u64(w, 8);                      /* AUX */
	pw_bytes(w, "auxdata!", 8);
	pw_rec_end(w, at);
	return at;
}

static void check_full_sample(const tb_perf_record *r)
{
	const tb_perf_sample *s = &r->s;
	ck_assert_uint_eq(r->type, TB_PERF_RECORD_SAMPLE);
	ck_assert_uint_eq(r->misc, 1);
	ck_assert_ptr_nonnull(r->attr);
	ck_assert_uint_eq(r->attr->config, 0x1234);
	ck_assert_uint_eq(s->present, ALL_BITS);
	ck_assert_uint_eq(s->id, 77);
	ck_assert_uint_eq(s->ip, 0x1111);
	ck_assert_uint_eq(s->pid, 10);
	ck_assert_uint_eq(s->tid, 11);
	ck_assert_uint_eq(s->time, 1000);
	ck_assert_uint_eq(s->addr, 0x2222);
	ck_assert_uint_eq(s->stream_id, 99);
	ck_assert_uint_eq(s->cpu, 3);
	ck_assert_uint_eq(s->period, 5);
	ck_assert_uint_eq(s->read.n, 9);
	ck_assert_uint_eq(tb_perf_u64_at(&s->read, 0), 2);
	ck_assert_uint_eq(tb_perf_u64_at(&s->read, 2), 90);
	ck_assert_uint_eq(tb_perf_u64_at(&s->read, 8), 505);
	ck_assert_uint_eq(s->callchain.n, 3);
	ck_assert_uint_eq(tb_perf_u64_at(&s->callchain, 0), 0xfffffffffffffe00ull);
	ck_assert_uint_eq(tb_perf_u64_at(&s->callchain, 2), 0xffffffff81000010ull);
	ck_assert_uint_eq(s->raw.len, 12);
	ck_assert_int_eq(memcmp(s->raw.ptr + 2, "0123456789", 10), 0);
	ck_assert_uint_eq(s->branch_nr, 2);
	ck_assert_uint_eq(s->branch_hw_idx, 7);
	ck_assert_uint_eq(s->branches.n, 6);
	ck_assert_uint_eq(tb_perf_u64_at(&s->branches, 5), 605);
	ck_assert_uint_eq(s->branch_counters.n, 2);
	ck_assert_uint_eq(tb_perf_u64_at(&s->branch_counters, 1), 42);
	ck_assert_uint_eq(s->regs_user_abi, 2);
	ck_assert_uint_eq(s->regs_user.n, 3);
	ck_assert_uint_eq(tb_perf_u64_at(&s->regs_user, 2), 703);
	ck_assert_uint_eq(s->stack_user_size, 16);
	ck_assert_int_eq(memcmp(s->stack_user.ptr, "stackstackstack!", 16), 0);
	ck_assert_uint_eq(s->stack_user_dyn_size, 8);
	ck_assert_uint_eq(s->weight, 0x55);
	ck_assert_uint_eq(s->data_src, 0x66);
	ck_assert_uint_eq(s->transaction, 0x77);
	ck_assert_uint_eq(s->regs_intr_abi, 1);
	ck_assert_uint_eq(s->regs_intr.n, 2);
	ck_assert_uint_eq(tb_perf_u64_at(&s->regs_intr, 1), 802);
	ck_assert_uint_eq(s->phys_addr, 0x88);
	ck_assert_uint_eq(s->cgroup, 0x99);
	ck_assert_uint_eq(s->data_page_size, 4096);
	ck_assert_uint_eq(s->code_page_size, 8192);
	ck_assert_uint_eq(s->aux.len, 8);
	ck_assert_int_eq(memcmp(s->aux.ptr, "auxdata!", 8), 0);
}

/* A file of one attr (id 77) and one full sample. */
static void build_full(pw *w, int be, uint32_t attr_size, size_t entry)
{
	static const uint64_t ids[] = { 77 };
	pw data;
	pw_file pf;
	pw_init(&data, be);
	(void)put_full_sample(&data);
	memset(&pf, 0, sizeof(pf));
	pf.attrs[0] = full_attr(attr_size);
	pf.ids[0] = ids;
	pf.nids[0] = 1;
	pf.nattrs = 1;
	pf.attr_entry = entry;
	pf.data = data.b;
	pf.data_len = data.len;
	pw_init(w, be);
	pw_build_file(w, &pf);
	pw_free(&data);
}

START_TEST(every_sample_field_both_orders)
{
	int be = _i & 1;
	static const uint32_t sizes[] = { 104, 112, 120, 128, 136 };
	uint32_t asz = sizes[_i / 2];
	pw w;
	store *s = new_store();
	tb_perf f;
	tb_perf_iter it;
	tb_perf_record r;
	tb_error e;
	/* the header's attr_size may exceed the attr's own size */
	build_full(&w, be, asz, 136 + 16);
	ck_assert_msg(tb_perf_open(&f, w.b, w.len, &s->st, &e) == TB_OK, "%s at %" PRIu64,
		      e.what, e.offset);
	ck_assert_int_eq(f.big_endian, be);
	ck_assert_uint_eq(f.attrs[0].size, asz);
	ck_assert_uint_eq(f.attrs[0].flags & TB_PERF_ATTR_FLAG_SAMPLE_ID_ALL,
			  TB_PERF_ATTR_FLAG_SAMPLE_ID_ALL);
	ck_assert(f.attrs[0].flags & TB_PERF_ATTR_FLAG_USE_CLOCKID);
	ck_assert_int_eq(f.attrs[0].clockid, 1);
	ck_assert_uint_eq(f.attrs[0].sample_regs_intr, 0x3);
	ck_assert_int_eq(tb_perf_records_begin(&it, &f, &e), TB_OK);
	ck_assert_int_eq(tb_perf_record_next(&it, &r, &e), TB_OK);
	check_full_sample(&r);
	ck_assert_int_eq(tb_perf_record_next(&it, &r, &e), TB_END);
	pw_free(&w);
	free(s);
}
END_TEST

/* Every shortened SAMPLE is an error inside it, and the walk goes on. */
START_TEST(every_short_sample)
{
	int be = _i;
	pw w, data;
	size_t at, full, k;
	store *s = new_store();
	build_full(&w, be, 136, 152);
	pw_init(&data, be);
	at = put_full_sample(&data);
	full = data.len - at;
	pw_free(&data);
	for (k = 8; k < full; k++) {
		uint8_t *c = tb_test_dup(w.b, w.len);
		tb_perf f;
		tb_perf_iter it;
		tb_perf_record r;
		tb_error e;
		uint64_t data_off;
		tb_status st;
		ck_assert_int_eq(tb_perf_open(&f, c, w.len, &s->st, &e), TB_OK);
		data_off = f.data.offset;
		/* the record claims k bytes; the rest of it follows as one
		 * unknown record of type 0 if it can be one, so just stop the
		 * data section after the short record */
		c[data_off + 6 + (be ? 0 : 1)] = (uint8_t)(k >> 8);
		c[data_off + 6 + (be ? 1 : 0)] = (uint8_t)k;
		f.data.size = k;
		ck_assert_int_eq(tb_perf_records_begin(&it, &f, &e), TB_OK);
		st = tb_perf_record_next(&it, &r, &e);
		ck_assert_msg(st == TB_ERR_LENGTH, "size %zu: %s", k, tb_strerror(st));
		ck_assert_uint_ge(e.offset, data_off);
		ck_assert_uint_le(e.offset, data_off + k);
		ck_assert_int_eq(tb_perf_record_next(&it, &r, &e), TB_END);
		free(c);
	}
	pw_free(&w);
	free(s);
}
END_TEST

/* Every prefix of a hand-built file (both orders) is refused inside it. */
START_TEST(every_prefix_hand_built)
{
	pw w;
	size_t k;
	store *s = new_store();
	build_full(&w, _i, 128, 144);
	for (k = 0; k < w.len; k++) {
		uint8_t *c = tb_test_dup(w.b, k);
		tb_perf f;
		tb_error e;
		tb_status st = tb_perf_open(&f, c, k, &s->st, &e);
		ck_assert_msg(tb_is_malformed(st), "prefix %zu: %s", k, tb_strerror(st));
		ck_assert_uint_le(e.offset, k);
		free(c);
	}
	pw_free(&w);
	free(s);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Hand-built: the other records and their sample_id_all trailer.     */

#define TRAILER_TYPE (TB_PERF_SAMPLE_TID | TB_PERF_SAMPLE_TIME | TB_PERF_SAMPLE_ID | \
		      TB_PERF_SAMPLE_STREAM_ID | TB_PERF_SAMPLE_CPU | TB_PERF_SAMPLE_IDENTIFIER)

static void put_trailer(pw *w, uint32_t pid, uint64_t time, uint64_t id, uint32_t cpu)
{
	pw_u32(w, pid);
	pw_u32(w, pid + 1);
	pw_u64(w, time);
	pw_u64(w, id);
	pw_u64(w, id);  /* stream id */
	pw_u32(w, cpu);
	pw_u32(w, 0);
	pw_u64(w, id);  /* identifier */
}

/* Two attrs (ids 5 and 6) and one record of each kind; *nrec records. */
static void build_kinds(pw *w, int be, size_t *nrec)
{
	static const uint64_t ids5[] = { 5 }, ids6[] = { 6, 16 };
	static const uint8_t bid[20] = { 0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8 };
	pw d;
	pw_file pf;
	size_t at;
	pw_init(&d, be);
	at = pw_rec_begin(&d, TB_PERF_RECORD_COMM, TB_PERF_MISC_COMM_EXEC);
	pw_u32(&d, 100);
	pw_u32(&d, 101);
	pw_bytes(&d, "bash\0\0\0\0", 8);
	put_trailer(&d, 100, 1000, 6, 1);
	pw_rec_end(&d, at);
	at = pw_rec_begin(&d, TB_PERF_RECORD_FORK, 0);
	pw_u32(&d, 200);
	pw_u32(&d, 100);
	pw_u32(&d, 201);
	pw_u32(&d, 101);
	pw_u64(&d, 2000);
	put_trailer(&d, 200, 2000, 5, 0);
	pw_rec_end(&d, at);
	at = pw_rec_begin(&d, TB_PERF_RECORD_EXIT, 0);
	pw_u32(&d, 200);
	pw_u32(&d, 100);
	pw_u32(&d, 201);
	pw_u32(&d, 101);
	pw_u64(&d, 3000);
	put_trailer(&d, 200, 3000, 16, 1);
	pw_rec_end(&d, at);
	at = pw_rec_begin(&d, TB_PERF_RECORD_LOST, 0);
	pw_u64(&d, 6);
	pw_u64(&d, 12345);
	put_trailer(&d, 0, 4000, 6, 1);
	pw_rec_end(&d, at);
	at = pw_rec_begin(&d, TB_PERF_RECORD_LOST_SAMPLES, 0);
	pw_u64(&d, 77);
	put_trailer(&d, 0, 5000, 5, 0);
	pw_rec_end(&d, at);
	at = pw_rec_begin(&d, TB_PERF_RECORD_MMAP, 0);
	pw_u32(&d, 300);
	pw_u32(&d, 300);
	pw_u64(&d, 0x400000);
	pw_u64(&d, 0x1000);
	pw_u64(&d, 0);
	pw_bytes(&d, "/bin/ls\0", 8);
	put_trailer(&d, 300, 6000, 5, 0);
	pw_rec_end(&d, at);
	at = pw_rec_begin(&d, TB_PERF_RECORD_MMAP2, 0);
	pw_u32(&d, 301);
	pw_u32(&d, 302);
	pw_u64(&d, 0x7f0000);
	pw_u64(&d, 0x2000);
	pw_u64(&d, 0x100);
	pw_u32(&d, 8);
	pw_u32(&d, 1);
	pw_u64(&d, 4242);
	pw_u64(&d, 7);
	pw_u32(&d, 5);
	pw_u32(&d, 2);
	pw_bytes(&d, "/lib/libc.so\0\0\0\0", 16);
	put_trailer(&d, 301, 7000, 6, 1);
	pw_rec_end(&d, at);
	at = pw_rec_begin(&d, TB_PERF_RECORD_MMAP2, TB_PERF_MISC_MMAP_BUILD_ID);
	pw_u32(&d, 303);
	pw_u32(&d, 303);
	pw_u64(&d, 0x10000);
	pw_u64(&d, 0x3000);
	pw_u64(&d, 0);
	pw_un(&d, 20, 1);
	pw_zeros(&d, 3);
	pw_bytes(&d, bid, 20);
	pw_u32(&d, 5);
	pw_u32(&d, 2);
	pw_bytes(&d, "[vdso]\0\0", 8);
	put_trailer(&d, 303, 8000, 5, 0);
	pw_rec_end(&d, at);
	at = pw_rec_begin(&d, TB_PERF_RECORD_THROTTLE, 0);
	pw_u64(&d, 9000);
	pw_u64(&d, 6);
	pw_u64(&d, 6);
	put_trailer(&d, 0, 9000, 6, 1);
	pw_rec_end(&d, at);
	at = pw_rec_begin(&d, TB_PERF_RECORD_AUXTRACE, 0);
	pw_u64(&d, 24);   /* size of the data after the record */
	pw_u64(&d, 0);
	pw_u64(&d, 0xabc);
	pw_u32(&d, 1);
	pw_u32(&d, 400);
	pw_u32(&d, 1);
	pw_u32(&d, 0);
	pw_rec_end(&d, at);
	pw_bytes(&d, "AUXTRACE data, 24 bytes.", 24);
	at = pw_rec_begin(&d, 200, 0); /* unknown: stepped over by its size */
	pw_u64(&d, 1);
	pw_rec_end(&d, at);
	at = pw_rec_begin(&d, TB_PERF_RECORD_FINISHED_ROUND, 0);
	pw_rec_end(&d, at);
	*nrec = 12;
	memset(&pf, 0, sizeof(pf));
	pf.attrs[0].type = 1;
	pf.attrs[0].size = 72;
	pf.attrs[0].config = 9;
	pf.attrs[0].sample_type = TRAILER_TYPE;
	pf.attrs[0].flags = TB_PERF_ATTR_FLAG_SAMPLE_ID_ALL;
	pf.attrs[1] = pf.attrs[0];
	pf.attrs[1].size = 0; /* the first revision: 64 bytes */
	pf.attrs[1].config = 10;
	pf.ids[0] = ids5;
	pf.nids[0] = 1;
	pf.ids[1] = ids6;
	pf.nids[1] = 2;
	pf.nattrs = 2;
	pf.attr_entry = 72 + 16;
	pf.data = d.b;
	pf.data_len = d.len;
	pw_init(w, be);
	pw_build_file(w, &pf);
	pw_free(&d);
}

static void check_kind(const tb_perf_record *r, size_t i)
{
	static const uint32_t types[] = { 3, 7, 4, 2, 13, 1, 10, 10, 5, 71, 200, 68 };
	static const uint64_t cfg[] = { 10, 9, 10, 10, 9, 9, 10, 9, 10 };
	ck_assert_uint_eq(r->type, types[i]);
	if (i < 9) { /* kernel records: the trailer found their attr */
		ck_assert(r->has_sample);
		ck_assert_ptr_nonnull(r->attr);
		ck_assert_uint_eq(r->attr->config, cfg[i]);
		ck_assert_uint_eq(r->s.time, 1000 * (i + 1));
		ck_assert_uint_eq(r->s.present, TRAILER_TYPE);
	} else {
		ck_assert(!r->has_sample);
	}
	switch (i) {
	case 0:
		expect_bytes(r->u.comm.comm, "bash");
		ck_assert_uint_eq(r->u.comm.pid, 100);
		ck_assert_uint_eq(r->u.comm.tid, 101);
		ck_assert_uint_eq(r->misc, TB_PERF_MISC_COMM_EXEC);
		ck_assert_uint_eq(r->s.cpu, 1);
		ck_assert_uint_eq(r->s.pid, 100);
		ck_assert_uint_eq(r->s.tid, 101);
		break;
	case 1:
	case 2:
		ck_assert_uint_eq(r->u.fork.pid, 200);
		ck_assert_uint_eq(r->u.fork.ppid, 100);
		ck_assert_uint_eq(r->u.fork.tid, 201);
		ck_assert_uint_eq(r->u.fork.ptid, 101);
		ck_assert_uint_eq(r->u.fork.time, 1000 * (i + 1));
		break;
	case 3:
		ck_assert_uint_eq(r->u.lost.id, 6);
		ck_assert_uint_eq(r->u.lost.lost, 12345);
		break;
	case 4:
		ck_assert_uint_eq(r->u.lost_samples.lost, 77);
		break;
	case 5:
		ck_assert_uint_eq(r->u.mmap.addr, 0x400000);
		ck_assert_uint_eq(r->u.mmap.len, 0x1000);
		expect_bytes(r->u.mmap.filename, "/bin/ls");
		break;
	case 6:
		ck_assert_uint_eq(r->u.mmap.pid, 301);
		ck_assert_uint_eq(r->u.mmap.tid, 302);
		ck_assert_uint_eq(r->u.mmap.pgoff, 0x100);
		ck_assert_uint_eq(r->u.mmap.maj, 8);
		ck_assert_uint_eq(r->u.mmap.min, 1);
		ck_assert_uint_eq(r->u.mmap.ino, 4242);
		ck_assert_uint_eq(r->u.mmap.ino_generation, 7);
		ck_assert_uint_eq(r->u.mmap.prot, 5);
		ck_assert_uint_eq(r->u.mmap.flags, 2);
		expect_bytes(r->u.mmap.filename, "/lib/libc.so");
		break;
	case 7:
		ck_assert_uint_eq(r->u.mmap.build_id.len, 20);
		ck_assert_uint_eq(r->u.mmap.build_id.ptr[0], 0xde);
		ck_assert_uint_eq(r->u.mmap.build_id.ptr[3], 0xef);
		expect_bytes(r->u.mmap.filename, "[vdso]");
		break;
	case 9:
		ck_assert_uint_eq(r->u.auxtrace.size, 24);
		ck_assert_uint_eq(r->u.auxtrace.reference, 0xabc);
		ck_assert_uint_eq(r->u.auxtrace.tid, 400);
		ck_assert_uint_eq(r->extra_len, 24);
		break;
	default:
		break;
	}
}

START_TEST(record_kinds_both_orders)
{
	pw w;
	size_t nrec, i = 0;
	store *s = new_store();
	tb_perf f;
	tb_perf_iter it;
	tb_perf_record r;
	tb_error e;
	tb_status st;
	build_kinds(&w, _i, &nrec);
	ck_assert_msg(tb_perf_open(&f, w.b, w.len, &s->st, &e) == TB_OK, "%s at %" PRIu64,
		      e.what, e.offset);
	ck_assert_uint_eq(f.attrs[1].size, 0);
	ck_assert_uint_eq(f.nids, 3);
	ck_assert_int_eq(f.id_pos_end, 1);
	ck_assert_int_eq(tb_perf_records_begin(&it, &f, &e), TB_OK);
	while ((st = tb_perf_record_next(&it, &r, &e)) == TB_OK) {
		ck_assert_uint_lt(i, nrec);
		check_kind(&r, i);
		if (i == 9) /* the AUXTRACE data in the file, after the record */
			ck_assert_int_eq(memcmp(r.extra.ptr, "AUXTRACE data, 24 bytes.", 24), 0);
		i++;
	}
	ck_assert_int_eq(st, TB_END);
	ck_assert_uint_eq(i, nrec);
	pw_free(&w);
	free(s);
}
END_TEST

/* The same records as a pipe stream, with attrs and a feature as records
 * and tracing data after its record: whole, every split, every prefix. */
static void build_kinds_pipe(pw *w, int be, size_t *nrec)
{
	pw file;
	tb_perf f;
	store *s = new_store();
	tb_error e;
	size_t n, at;
	static const uint64_t ids5[] = { 5 }, ids6[] = { 6, 16 };
	pw_attr a;
	build_kinds(&file, be, &n);
	ck_assert_int_eq(tb_perf_open(&f, file.b, file.len, &s->st, &e), TB_OK);
	pw_init(w, be);
	pw_pipe_header(w);
	memset(&a, 0, sizeof(a));
	a.type = 1;
	a.size = 72;
	a.config = 9;
	a.sample_type = TRAILER_TYPE;
	a.flags = TB_PERF_ATTR_FLAG_SAMPLE_ID_ALL;
	pw_header_attr(w, &a, ids5, 1);
	a.size = 0;
	a.config = 10;
	pw_header_attr(w, &a, ids6, 2);
	at = pw_rec_begin(w, TB_PERF_RECORD_HEADER_FEATURE, 0);
	pw_u64(w, TB_PERF_FEAT_HOSTNAME);
	pw_str(w, "box");
	pw_rec_end(w, at);
	at = pw_rec_begin(w, TB_PERF_RECORD_HEADER_FEATURE, 0);
	pw_u64(w, TB_PERF_FEAT_CLOCK_DATA);
	pw_u32(w, 1);
	pw_u32(w, 1);
	pw_u64(w, 1700000000000000000ull);
	pw_u64(w, 123456789);
	pw_rec_end(w, at);
	at = pw_rec_begin(w, TB_PERF_RECORD_HEADER_TRACING_DATA, 0);
	pw_u32(w, 24);
	pw_u32(w, 0);
	pw_rec_end(w, at);
	pw_bytes(w, "\027\010Dtracing0.6\0tracing!!!", 24);
	at = pw_rec_begin(w, TB_PERF_RECORD_FINISHED_INIT, 0);
	pw_rec_end(w, at);
	pw_bytes(w, f.file + f.data.offset, (size_t)f.data.size);
	*nrec = n + 6;
	pw_free(&file);
	free(s);
}

START_TEST(pipe_kinds_whole_split_prefix)
{
	int be = _i;
	pw w;
	size_t nrec, k;
	store *s = new_store();
	tb_perf_stream *p = new_stream();
	sresult whole, r;
	build_kinds_pipe(&w, be, &nrec);
	run_stream(p, s, w.b, w.len, 0, 0, 1, &whole);
	ck_assert_msg(whole.end == TB_END, "%s at %" PRIu64 ": %s", tb_strerror(whole.end),
		      whole.err.offset, whole.err.what);
	ck_assert_uint_eq(whole.records, nrec);
	ck_assert_int_eq(p->f.big_endian, be);
	ck_assert_uint_eq(p->f.nattrs, 2);
	ck_assert_uint_eq(p->f.nids, 3);
	ck_assert(p->init_done);
	ck_assert(p->f.has_clock_data);
	ck_assert_uint_eq(p->f.clock.clockid, 1);
	ck_assert_uint_eq(p->f.clock.tod_ns, 1700000000000000000ull);
	ck_assert_uint_eq(p->f.clock.clock_ns, 123456789);
	ck_assert(tb_perf_has_feature(&p->f, TB_PERF_FEAT_HOSTNAME));
	ck_assert_uint_eq(p->f.tracing_data.len, 24);
	ck_assert_int_eq(memcmp(p->f.tracing_data.ptr + 18, "ing!!!", 6), 0);
	for (k = 1; k < w.len; k++) {
		run_stream(p, s, w.b, w.len, 0, k, 1, &r);
		ck_assert_msg(r.end == TB_END && strcmp(r.lines.s, whole.lines.s) == 0,
			      "split at %zu: %s", k, tb_strerror(r.end));
		free(r.lines.s);
	}
	for (k = 0; k < w.len; k++) {
		run_stream(p, s, w.b, k, 0, 0, 1, &r);
		ck_assert_msg(r.end == TB_END || r.end == TB_ERR_TRUNCATED, "prefix %zu", k);
		ck_assert_uint_le(r.err.offset, k);
		ck_assert_uint_le(r.last_end, k);
		ck_assert(strncmp(r.lines.s ? r.lines.s : "", whole.lines.s, r.lines.n) == 0);
		free(r.lines.s);
	}
	free(whole.lines.s);
	free(p);
	free(s);
	pw_free(&w);
}
END_TEST

/* HEADER_FEATURE records in a stream: each read in turn by the caller. */
START_TEST(pipe_feature_records)
{
	size_t n;
	uint8_t *b = load("pipe.data", &n);
	store *s = new_store();
	tb_perf_stream *p = new_stream();
	tb_perf_record r;
	tb_perf_bytes str;
	tb_error e;
	tb_status st;
	int host = 0, arch = 0;
	ck_assert_int_eq(tb_perf_stream_open_buffer(p, &s->st, b, n), TB_OK);
	while ((st = tb_perf_stream_next(p, &r, &e)) == TB_OK) {
		if (r.type != TB_PERF_RECORD_HEADER_FEATURE)
			continue;
		if (r.u.feature.id == TB_PERF_FEAT_HOSTNAME) {
			ck_assert_int_eq(tb_perf_feature_string(&p->f, &r.u.feature, &str, &e), TB_OK);
			expect_bytes(str, "vm");
			host++;
		}
		if (r.u.feature.id == TB_PERF_FEAT_ARCH) {
			ck_assert_int_eq(tb_perf_feature_string(&p->f, &r.u.feature, &str, &e), TB_OK);
			expect_bytes(str, "x86_64");
			arch++;
		}
	}
	ck_assert_int_eq(st, TB_END);
	ck_assert_int_eq(host, 1);
	ck_assert_int_eq(arch, 1);
	ck_assert(p->f.has_nrcpus);
	ck_assert_uint_eq(p->f.nr_cpus_online, 2);
	ck_assert_uint_eq(p->f.nattrs, 27);
	/* fed whole, the strings stay in the stream's tb_perf (what stats shows) */
	expect_bytes(p->f.hostname, "vm");
	expect_bytes(p->f.osrelease, "6.18.44-fc-v1272");
	expect_bytes(p->f.version, "6.1.187");
	expect_bytes(p->f.arch, "x86_64");
	free(b);
	/* fed a byte at a time, every record is the stream's own copy, gone at
	 * the next call: the strings are not kept, the records still are */
	b = load("small-pipe.data", &n);
	{
		sresult res;
		run_stream(p, s, b, n, 1, 0, 1, &res);
		ck_assert_int_eq(res.end, TB_END);
		ck_assert_uint_gt(res.records, 0);
		ck_assert(p->f.has_nrcpus);
		ck_assert_uint_eq(p->f.hostname.len, 0);
		ck_assert_uint_eq(p->f.arch.len, 0);
		free(res.lines.s);
	}
	free(p);
	free(s);
	free(b);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Errors, each at its offset.                                        */

static void put_at(uint8_t *b, size_t at, uint64_t v, unsigned n)
{
	unsigned i;
	for (i = 0; i < n; i++)
		b[at + i] = (uint8_t)(v >> (8 * i));
}

static tb_status open_err(const uint8_t *b, size_t n, tb_error *e)
{
	static store *s;
	tb_perf f;
	tb_status st;
	s = new_store();
	st = tb_perf_open(&f, b, n, &s->st, e);
	free(s);
	return st;
}

START_TEST(header_errors)
{
	pw w;
	uint8_t *c;
	tb_error e;
	build_full(&w, 0, 128, 144);
	c = tb_test_dup(w.b, w.len);
	/* magic */
	c[0] = 'X';
	ck_assert_int_eq(open_err(c, w.len, &e), TB_ERR_MAGIC);
	ck_assert_uint_eq(e.offset, 0);
	c[0] = 'P';
	/* header size neither 16 nor >= 104 */
	put_at(c, 8, 50, 8);
	ck_assert_int_eq(open_err(c, w.len, &e), TB_ERR_VERSION);
	ck_assert_uint_eq(e.offset, 8);
	/* pipe mode is refused by the file reader */
	put_at(c, 8, 16, 8);
	ck_assert_int_eq(open_err(c, w.len, &e), TB_ERR_UNSUPPORTED);
	put_at(c, 8, 104, 8);
	/* attr_size */
	put_at(c, 16, 20, 8);
	ck_assert_int_eq(open_err(c, w.len, &e), TB_ERR_LENGTH);
	ck_assert_uint_eq(e.offset, 16);
	put_at(c, 16, 144, 8);
	/* attrs section past the end */
	put_at(c, 24, w.len, 8);
	ck_assert_int_eq(open_err(c, w.len, &e), TB_ERR_RANGE);
	ck_assert_uint_eq(e.offset, 24);
	memcpy(c, w.b, w.len);
	/* data section past the end */
	put_at(c, 48, w.len, 8);
	ck_assert_int_eq(open_err(c, w.len, &e), TB_ERR_RANGE);
	ck_assert_uint_eq(e.offset, 40);
	memcpy(c, w.b, w.len);
	/* the attr's own size beyond its room: 144 - 16 */
	{
		uint64_t attrs;
		memcpy(&attrs, c + 24, 8);
		put_at(c, (size_t)attrs + 4, 136, 4);
		ck_assert_int_eq(open_err(c, w.len, &e), TB_ERR_LENGTH);
		ck_assert_uint_eq(e.offset, attrs + 4);
		put_at(c, (size_t)attrs + 4, 60, 4);
		ck_assert_int_eq(open_err(c, w.len, &e), TB_ERR_LENGTH);
		ck_assert_uint_eq(e.offset, attrs + 4);
		memcpy(c, w.b, w.len);
		/* its ids section outside the file */
		put_at(c, (size_t)attrs + 128 + 8, 1u << 20, 8);
		ck_assert_int_eq(open_err(c, w.len, &e), TB_ERR_RANGE);
		ck_assert_uint_eq(e.offset, attrs + 128);
		memcpy(c, w.b, w.len);
	}
	/* a feature bit without its section table entry */
	put_at(c, 72, 1u << 3, 8);
	ck_assert_int_eq(open_err(c, w.len, &e), TB_ERR_TRUNCATED);
	ck_assert_uint_le(e.offset, w.len);
	/* a big-endian reading of the same file is no file */
	ck_assert(tb_perf_probe(w.b, w.len));
	ck_assert(!tb_perf_probe(w.b, 7));
	free(c);
	pw_free(&w);
}
END_TEST

START_TEST(record_errors)
{
	pw w;
	uint8_t *c;
	store *s = new_store();
	tb_perf f;
	tb_perf_iter it;
	tb_perf_record r;
	tb_error e;
	uint64_t d;
	size_t nrec;
	build_kinds(&w, 0, &nrec);
	c = tb_test_dup(w.b, w.len);
	ck_assert_int_eq(tb_perf_open(&f, c, w.len, &s->st, &e), TB_OK);
	d = f.data.offset;
	/* size below the header: sticky, at the size field */
	put_at(c, (size_t)d + 6, 4, 2);
	ck_assert_int_eq(tb_perf_records_begin(&it, &f, &e), TB_OK);
	ck_assert_int_eq(tb_perf_record_next(&it, &r, &e), TB_ERR_LENGTH);
	ck_assert_uint_eq(e.offset, d + 6);
	ck_assert_int_eq(tb_perf_record_next(&it, &r, &e), TB_ERR_LENGTH);
	/* size past the data section */
	put_at(c, (size_t)d + 6, 0xfff8, 2);
	ck_assert_int_eq(tb_perf_records_begin(&it, &f, &e), TB_OK);
	ck_assert_int_eq(tb_perf_record_next(&it, &r, &e), TB_ERR_TRUNCATED);
	ck_assert_uint_eq(e.offset, d);
	memcpy(c, w.b, w.len);
	/* COMM without its NUL before the trailer: that record only */
	memcpy(c + d + 16, "bashbash", 8);
	ck_assert_int_eq(tb_perf_records_begin(&it, &f, &e), TB_OK);
	ck_assert_int_eq(tb_perf_record_next(&it, &r, &e), TB_ERR_LENGTH);
	ck_assert_uint_eq(e.offset, d + 8);
	ck_assert_int_eq(tb_perf_record_next(&it, &r, &e), TB_OK);
	ck_assert_uint_eq(r.type, TB_PERF_RECORD_FORK);
	memcpy(c, w.b, w.len);
	/* a trailer id no attr lists: the record is read without its attr */
	put_at(c, (size_t)d + 72 - 8, 999, 8); /* COMM: 24 bytes + 48 of trailer */
	ck_assert_int_eq(tb_perf_records_begin(&it, &f, &e), TB_OK);
	ck_assert_int_eq(tb_perf_record_next(&it, &r, &e), TB_OK);
	ck_assert_ptr_null(r.attr);
	ck_assert(!r.has_sample);
	free(c);
	pw_free(&w);
	/* a SAMPLE of an unknown id */
	build_full(&w, 0, 128, 144);
	c = tb_test_dup(w.b, w.len);
	{
		static const uint64_t ids[] = { 77 };
		pw data;
		pw_file pf;
		pw w2;
		pw_init(&data, 0);
		(void)put_full_sample(&data);
		(void)put_full_sample(&data);
		memset(&pf, 0, sizeof(pf));
		pf.attrs[0] = full_attr(128);
		pf.attrs[1] = full_attr(128);
		pf.ids[0] = ids;
		pf.nids[0] = 1;
		pf.ids[1] = NULL;
		pf.nids[1] = 0;
		pf.nattrs = 2;
		pf.attr_entry = 144;
		pf.data = data.b;
		pf.data_len = data.len;
		pw_init(&w2, 0);
		pw_build_file(&w2, &pf);
		ck_assert_int_eq(tb_perf_open(&f, w2.b, w2.len, &s->st, &e), TB_OK);
		d = f.data.offset;
		put_at(w2.b, (size_t)d + 8, 78, 8); /* IDENTIFIER 78 */
		ck_assert_int_eq(tb_perf_records_begin(&it, &f, &e), TB_OK);
		ck_assert_int_eq(tb_perf_record_next(&it, &r, &e), TB_ERR_VALUE);
		ck_assert_uint_eq(e.offset, d);
		ck_assert_int_eq(tb_perf_record_next(&it, &r, &e), TB_OK);
		check_full_sample(&r);
		pw_free(&w2);
		pw_free(&data);
	}
	free(c);
	pw_free(&w);
	free(s);
}
END_TEST

/* Two attrs of IDENTIFIER and TIME listing ids a[0..na) and b[0..nb). */
static void two_attrs(pw_file *pf, const uint64_t *a, size_t na, const uint64_t *b, size_t nb)
{
	memset(pf, 0, sizeof(*pf));
	pf->attrs[0].size = 64;
	pf->attrs[0].sample_type = TB_PERF_SAMPLE_IDENTIFIER | TB_PERF_SAMPLE_TIME;
	pf->attrs[1] = pf->attrs[0];
	pf->attrs[1].config = 1;
	pf->ids[0] = a;
	pf->nids[0] = na;
	pf->ids[1] = b;
	pf->nids[1] = nb;
	pf->nattrs = 2;
	pf->attr_entry = 80;
}

/* pf written as a little-endian file into w. */
static void build_le(pw *w, const pw_file *pf)
{
	pw_init(w, 0);
	pw_build_file(w, pf);
}

START_TEST(attr_table_errors_and_storage)
{
	static const uint64_t a_ids[] = { 5, 6 }, b_ids[] = { 6 };
	pw w;
	pw_file pf;
	store *s = new_store();
	tb_perf f;
	tb_perf_storage small;
	tb_error e;
	two_attrs(&pf, a_ids, 2, b_ids, 1);
	/* id 6 listed by both attrs */
	build_le(&w, &pf);
	ck_assert_int_eq(tb_perf_open(&f, w.b, w.len, &s->st, &e), TB_ERR_DUPLICATE);
	pw_free(&w);
	/* attrs keeping their ids in different places */
	pf.ids[1] = NULL;
	pf.nids[1] = 0;
	pf.attrs[1].sample_type = TB_PERF_SAMPLE_ID | TB_PERF_SAMPLE_TIME;
	build_le(&w, &pf);
	ck_assert_int_eq(tb_perf_open(&f, w.b, w.len, &s->st, &e), TB_ERR_VALUE);
	ck_assert_uint_eq(e.offset, 104 + 16 + 80 + 24); /* attr 1's sample_type */
	/* storage too small: need says how much, and growing works */
	pf.attrs[1].sample_type = pf.attrs[0].sample_type;
	pw_free(&w);
	build_le(&w, &pf);
	memset(&small, 0, sizeof(small));
	ck_assert_int_eq(tb_perf_open(&f, w.b, w.len, &small, &e), TB_ERR_NO_SPACE);
	ck_assert_uint_eq(f.need.attrs, 2);
	ck_assert_uint_eq(f.need.ids, 2);
	small.attrs = s->attrs;
	small.attrs_cap = 2;
	small.ids = s->ids;
	small.ids_cap = 1;
	ck_assert_int_eq(tb_perf_open(&f, w.b, w.len, &small, &e), TB_ERR_NO_SPACE);
	small.ids_cap = 2;
	ck_assert_int_eq(tb_perf_open(&f, w.b, w.len, &small, &e), TB_OK);
	ck_assert_uint_eq(f.nids, 2);
	pw_free(&w);
	free(s);
}
END_TEST

/* An id is found at its place in a table without gaps, and searched for
 * where the table has them: ids 5, 7, 8 (attr 0: 5 and 8; attr 1: 7). */
START_TEST(find_attr_with_gaps)
{
	static const uint64_t a_ids[] = { 8, 5 }, b_ids[] = { 7 };
	static const struct { uint64_t id; int attr; } want[] = {
		{ 5, 0 },  /* at its place */
		{ 7, 1 },  /* its place holds 8: searched */
		{ 8, 0 },  /* past the table's length: searched */
		{ 6, -1 }, /* its place holds 7: not there */
		{ 4, -1 }, /* below the first */
		{ 9, -1 },
	};
	pw w;
	pw_file pf;
	store *s = new_store();
	tb_perf f;
	const tb_perf_attr *a;
	tb_error e;
	size_t i;
	two_attrs(&pf, a_ids, 2, b_ids, 1);
	build_le(&w, &pf);
	ck_assert_int_eq(tb_perf_open(&f, w.b, w.len, &s->st, &e), TB_OK);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		tb_status st = tb_perf_find_attr(&f, want[i].id, &a);
		ck_assert_int_eq(st, want[i].attr < 0 ? TB_NOT_FOUND : TB_OK);
		if (want[i].attr >= 0)
			ck_assert_ptr_eq(a, &f.attrs[want[i].attr]);
	}
	pw_free(&w);
	free(s);
}
END_TEST

START_TEST(pipe_errors)
{
	pw w;
	store *s = new_store();
	tb_perf_stream *p = new_stream();
	tb_perf_record r;
	tb_error e;
	size_t nrec, at;
	uint8_t *c;
	/* a file given to the stream */
	build_full(&w, 0, 128, 144);
	ck_assert_int_eq(tb_perf_stream_open_buffer(p, &s->st, w.b, w.len), TB_OK);
	ck_assert_int_eq(tb_perf_stream_next(p, &r, &e), TB_ERR_UNSUPPORTED);
	ck_assert_uint_eq(e.offset, 8);
	pw_free(&w);
	/* tracing data bigger than the storage: need says how much */
	build_kinds_pipe(&w, 0, &nrec);
	{
		store *t = new_store();
		t->st.tracing_cap = 10;
		ck_assert_int_eq(tb_perf_stream_open_buffer(p, &t->st, w.b, w.len), TB_OK);
		while (tb_perf_stream_next(p, &r, &e) == TB_OK)
			;
		ck_assert_int_eq(e.status, TB_ERR_NO_SPACE);
		ck_assert_uint_eq(p->f.need.tracing, 24);
		t->st.attrs_cap = 1;
		ck_assert_int_eq(tb_perf_stream_open_buffer(p, &t->st, w.b, w.len), TB_OK);
		while (tb_perf_stream_next(p, &r, &e) == TB_OK)
			;
		ck_assert_int_eq(e.status, TB_ERR_NO_SPACE);
		ck_assert_uint_eq(p->f.need.attrs, 2);
		free(t);
	}
	/* a record size below 8: sticky, at the size field */
	c = tb_test_dup(w.b, w.len);
	at = 16;
	c[at + 6] = 7;
	c[at + 7] = 0;
	ck_assert_int_eq(tb_perf_stream_open_buffer(p, &s->st, c, w.len), TB_OK);
	ck_assert_int_eq(tb_perf_stream_next(p, &r, &e), TB_ERR_LENGTH);
	ck_assert_uint_eq(e.offset, 16 + 6);
	ck_assert_int_eq(tb_perf_stream_next(p, &r, &e), TB_ERR_LENGTH);
	free(c);
	/* feeding before the last feed is used up */
	tb_perf_stream_init(p, &s->st);
	ck_assert_int_eq(tb_perf_stream_feed(p, w.b, w.len), TB_OK);
	ck_assert_int_eq(tb_perf_stream_feed(p, w.b, w.len), TB_ERR_ARG);
	pw_free(&w);
	free(p);
	free(s);
}
END_TEST

/* A single attr without ids: every sample is its own. */
START_TEST(single_attr_without_ids)
{
	pw d, w;
	pw_file pf;
	store *s = new_store();
	tb_perf f;
	tb_perf_iter it;
	tb_perf_record r;
	tb_error e;
	const tb_perf_attr *a;
	size_t at;
	pw_init(&d, 1);
	at = pw_rec_begin(&d, TB_PERF_RECORD_SAMPLE, 0);
	pw_u64(&d, 0xffffffff81234567ull); /* IP */
	pw_u32(&d, 42);                    /* TID */
	pw_u32(&d, 43);
	pw_rec_end(&d, at);
	memset(&pf, 0, sizeof(pf));
	pf.attrs[0].type = 1;
	pf.attrs[0].size = 64;
	pf.attrs[0].sample_type = TB_PERF_SAMPLE_IP | TB_PERF_SAMPLE_TID;
	pf.nattrs = 1;
	pf.attr_entry = 80;
	pf.data = d.b;
	pf.data_len = d.len;
	pw_init(&w, 1);
	pw_build_file(&w, &pf);
	ck_assert_int_eq(tb_perf_open(&f, w.b, w.len, &s->st, &e), TB_OK);
	ck_assert_int_eq(f.big_endian, 1);
	ck_assert_int_eq(f.id_pos, -1);
	ck_assert_int_eq(tb_perf_find_attr(&f, 12345, &a), TB_OK);
	ck_assert_ptr_eq(a, &f.attrs[0]);
	ck_assert_int_eq(tb_perf_records_begin(&it, &f, &e), TB_OK);
	ck_assert_int_eq(tb_perf_record_next(&it, &r, &e), TB_OK);
	ck_assert_uint_eq(r.s.ip, 0xffffffff81234567ull);
	ck_assert_uint_eq(r.s.pid, 42);
	ck_assert_uint_eq(r.s.tid, 43);
	ck_assert_int_eq(tb_perf_record_next(&it, &r, &e), TB_END);
	pw_free(&w);
	pw_free(&d);
	free(s);
}
END_TEST

START_TEST(names)
{
	ck_assert_str_eq(tb_perf_record_name(TB_PERF_RECORD_SAMPLE), "SAMPLE");
	ck_assert_str_eq(tb_perf_record_name(TB_PERF_RECORD_HEADER_ATTR), "ATTR");
	ck_assert_str_eq(tb_perf_record_name(TB_PERF_RECORD_COMPRESSED2), "COMPRESSED2");
	ck_assert_str_eq(tb_perf_record_name(84), "unknown");
	ck_assert_str_eq(tb_perf_record_name(22), "unknown");
	ck_assert_str_eq(tb_perf_feature_name(TB_PERF_FEAT_CLOCK_DATA), "CLOCK_DATA");
	ck_assert_str_eq(tb_perf_feature_name(200), "unknown");
}
END_TEST


/* ------------------------------------------------------------------ */
/* COMPRESSED records.                                                */

static int cmp_lines(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The lines of t sorted bytewise (as LC_ALL=C sort). */
static void sort_lines(text *t)
{
	size_t n = 0, i, cap = 16;
	char **v = malloc(cap * sizeof(*v)), *p, *save = NULL;
	text out = { 0 };
	ck_assert_ptr_nonnull(v);
	for (p = strtok_r(t->s, "\n", &save); p; p = strtok_r(NULL, "\n", &save)) {
		if (n == cap)
			v = realloc(v, (cap *= 2) * sizeof(*v));
		ck_assert_ptr_nonnull(v);
		v[n++] = p;
	}
	qsort(v, n, sizeof(*v), cmp_lines);
	for (i = 0; i < n; i++) {
		text_add(&out, v[i]);
		text_add(&out, "\n");
	}
	free(v);
	free(t->s);
	*t = out;
}

/* perf record -z: the records inside the COMPRESSED ones are perf's (the
 * golden lines sorted: perf prints the records of one COMPRESSED record
 * in time order, the decoder in stream order). */
START_TEST(real_zstd_file)
{
	size_t n, samples = 0, inside = 0;
	uint8_t *b = load("schedz.data", &n);
	store *s = new_store();
	void *zs = NULL;
	uint8_t *window = malloc(128 << 10);
	tb_perf_decompressor dc = { tb_test_zstd_stream, &zs, window, 128 << 10 };
	tb_perf f;
	tb_perf_iter it;
	tb_perf_record r;
	tb_error e;
	tb_status st;
	uint64_t last = 0;
	unsigned refused = 0;
	text t = { 0 };
	if (!tb_test_have_zstd()) {
		free(window);
		free(s);
		free(b);
		return;
	}
	ck_assert_int_eq(tb_perf_open(&f, b, n, &s->st, &e), TB_OK);
	ck_assert(f.has_compression);
	ck_assert_uint_eq(f.compression.type, 1); /* zstd */
	ck_assert_uint_eq(f.compression.level, 1);
	ck_assert_uint_eq(f.compression.ratio, 10);
	/* without a decompressor: each COMPRESSED record refused, the rest read */
	ck_assert_int_eq(tb_perf_records_begin(&it, &f, &e), TB_OK);
	while ((st = tb_perf_record_next(&it, &r, &e)) != TB_END) {
		if (st == TB_ERR_UNSUPPORTED)
			refused++;
		else
			ck_assert_int_eq(st, TB_OK);
	}
	ck_assert_uint_eq(refused, 5);
	ck_assert_int_eq(tb_perf_records_begin(&it, &f, &e), TB_OK);
	ck_assert_int_eq(tb_perf_records_decompress(&it, &dc), TB_OK);
	while ((st = tb_perf_record_next(&it, &r, &e)) == TB_OK) {
		rec_line(&r, 0, &t);
		check_raw(&r, &samples);
		ck_assert(!is_compressed_type(r.type));
		if (r.decompressed) {
			ck_assert(inside == 0 || r.stream_offset > last);
			last = r.stream_offset;
			inside++;
		}
	}
	ck_assert_msg(st == TB_END, "%s at %" PRIu64 ": %s", tb_strerror(st), e.offset, e.what);
	ck_assert_uint_eq(samples, 122);
	ck_assert_uint_eq(inside, it.z.records);
	ck_assert_uint_eq(inside, 129); /* 122 samples, FORK, EXIT, COMM, 4 MMAP2 */
	sort_lines(&t);
	compare_golden(&t, "tests/golden/perf/schedz.records.sorted");
	tb_test_zstd_stream_free(&zs);
	free(t.s);
	free(window);
	free(s);
	free(b);
}
END_TEST

/* One attr (full_attr, id 77); data: COMM-less: [COMPRESSED: sample 1,
 * half of sample 2] [FINISHED_ROUND] [COMPRESSED2: the rest, sample 3,
 * 5 bytes of padding]. */
static void build_compressed(pw *w, int be, int pipe)
{
	static const uint64_t ids[] = { 77 };
	pw inner, data;
	pw_file pf;
	size_t cut, at;
	pw_init(&inner, be);
	(void)put_full_sample(&inner);
	cut = inner.len + 100;
	(void)put_full_sample(&inner);
	(void)put_full_sample(&inner);
	pw_init(&data, be);
	at = pw_rec_begin(&data, TB_PERF_RECORD_COMPRESSED, 0);
	pw_bytes(&data, inner.b, cut);
	pw_rec_end(&data, at);
	at = pw_rec_begin(&data, TB_PERF_RECORD_FINISHED_ROUND, 0);
	pw_rec_end(&data, at);
	at = pw_rec_begin(&data, TB_PERF_RECORD_COMPRESSED2, 0);
	pw_u64(&data, inner.len - cut);
	pw_bytes(&data, inner.b + cut, inner.len - cut);
	pw_zeros(&data, 5);
	pw_rec_end(&data, at);
	if (pipe) {
		pw_attr a = full_attr(128);
		pw_init(w, be);
		pw_pipe_header(w);
		pw_header_attr(w, &a, ids, 1);
		pw_bytes(w, data.b, data.len);
	} else {
		memset(&pf, 0, sizeof(pf));
		pf.attrs[0] = full_attr(128);
		pf.ids[0] = ids;
		pf.nids[0] = 1;
		pf.nattrs = 1;
		pf.attr_entry = 144;
		pf.data = data.b;
		pf.data_len = data.len;
		pw_init(w, be);
		pw_build_file(w, &pf);
	}
	pw_free(&inner);
	pw_free(&data);
}

START_TEST(compressed_records_straddle)
{
	static const size_t chunks[] = { 1, 7, 4096, 1 << 20 };
	int be = _i & 1;
	size_t chunk = chunks[_i / 2], i = 0;
	uint8_t *window = malloc(TB_PERF_WINDOW_MIN);
	tb_perf_decompressor dc = { pw_copy_decompress, &chunk, window, TB_PERF_WINDOW_MIN };
	store *s = new_store();
	pw w;
	tb_perf f;
	tb_perf_iter it;
	tb_perf_record r;
	tb_error e;
	tb_status st;
	uint64_t comp1, comp2;
	build_compressed(&w, be, 0);
	ck_assert_int_eq(tb_perf_open(&f, w.b, w.len, &s->st, &e), TB_OK);
	comp1 = f.data.offset;
	comp2 = 0;
	ck_assert_int_eq(tb_perf_records_begin(&it, &f, &e), TB_OK);
	dc.window_cap = TB_PERF_WINDOW_MIN - 1;
	ck_assert_int_eq(tb_perf_records_decompress(&it, &dc), TB_ERR_ARG);
	dc.window_cap = TB_PERF_WINDOW_MIN;
	ck_assert_int_eq(tb_perf_records_decompress(&it, &dc), TB_OK);
	while ((st = tb_perf_record_next(&it, &r, &e)) == TB_OK) {
		if (i == 1) { /* the round between the two */
			ck_assert_uint_eq(r.type, TB_PERF_RECORD_FINISHED_ROUND);
			ck_assert(!r.decompressed);
			comp2 = r.offset + 8;
		} else {
			check_full_sample(&r);
			ck_assert(r.decompressed);
			/* each at the COMPRESSED record that completed it */
			ck_assert_uint_eq(r.offset, i == 0 ? comp1 : comp2);
		}
		i++;
	}
	ck_assert_msg(st == TB_END, "%s at %" PRIu64 ": %s", tb_strerror(st), e.offset, e.what);
	ck_assert_uint_eq(i, 4);
	/* the same as a pipe, split everywhere */
	{
		tb_perf_stream *p = new_stream();
		size_t k;
		pw_free(&w);
		build_compressed(&w, be, 1);
		for (k = 1; k < w.len; k += (chunk == 1 ? 1 : 5)) {
			uint8_t *a = tb_test_dup(w.b, k), *b2 = tb_test_dup(w.b + k, w.len - k);
			int fed = 0;
			i = 0;
			tb_perf_stream_init(p, &s->st);
			ck_assert_int_eq(tb_perf_stream_decompress(p, &dc), TB_OK);
			ck_assert_int_eq(tb_perf_stream_feed(p, a, k), TB_OK);
			for (;;) {
				st = tb_perf_stream_next(p, &r, &e);
				if (st == TB_NEED_MORE) {
					if (fed++ == 0)
						ck_assert_int_eq(tb_perf_stream_feed(p, b2, w.len - k), TB_OK);
					else
						tb_perf_stream_close(p);
					continue;
				}
				if (st != TB_OK)
					break;
				if (r.type == TB_PERF_RECORD_SAMPLE) {
					check_full_sample(&r);
					i++;
				}
			}
			ck_assert_msg(st == TB_END && i == 3, "split %zu: %s, %zu samples", k,
				      tb_strerror(st), i);
			free(a);
			free(b2);
		}
		free(p);
	}
	pw_free(&w);
	free(s);
	free(window);
}
END_TEST

/* Compressed data cut inside a record, and a decompressor that fails. */
START_TEST(compressed_errors)
{
	size_t chunk = 1 << 20;
	uint8_t *window = malloc(TB_PERF_WINDOW_MIN);
	tb_perf_decompressor dc = { pw_copy_decompress, &chunk, window, TB_PERF_WINDOW_MIN };
	store *s = new_store();
	pw w;
	tb_perf f;
	tb_perf_iter it;
	tb_perf_record r;
	tb_error e;
	size_t n = 0;
	tb_status st;
	build_compressed(&w, 0, 0);
	ck_assert_int_eq(tb_perf_open(&f, w.b, w.len, &s->st, &e), TB_OK);
	/* stop the data section after the COMPRESSED record and the round:
	 * sample 2 is cut */
	{
		uint16_t sz = (uint16_t)(w.b[f.data.offset + 6] | w.b[f.data.offset + 7] << 8);
		f.data.size = (uint64_t)sz + 8;
	}
	ck_assert_int_eq(tb_perf_records_begin(&it, &f, &e), TB_OK);
	ck_assert_int_eq(tb_perf_records_decompress(&it, &dc), TB_OK);
	while ((st = tb_perf_record_next(&it, &r, &e)) == TB_OK)
		n++;
	ck_assert_uint_eq(n, 2); /* sample 1 and the round */
	ck_assert_int_eq(st, TB_ERR_TRUNCATED);
	ck_assert_uint_eq(e.offset, f.data.offset + f.data.size);
	/* COMPRESSED2 whose data size runs past it: that record only */
	ck_assert_int_eq(tb_perf_open(&f, w.b, w.len, &s->st, &e), TB_OK);
	{
		uint16_t sz = (uint16_t)(w.b[f.data.offset + 6] | w.b[f.data.offset + 7] << 8);
		size_t c2 = (size_t)f.data.offset + sz + 8;
		uint8_t *c = tb_test_dup(w.b, w.len);
		put_at(c, c2 + 8, 0xffff, 8);
		ck_assert_int_eq(tb_perf_open(&f, c, w.len, &s->st, &e), TB_OK);
		ck_assert_int_eq(tb_perf_records_begin(&it, &f, &e), TB_OK);
		ck_assert_int_eq(tb_perf_records_decompress(&it, &dc), TB_OK);
		n = 0;
		while ((st = tb_perf_record_next(&it, &r, &e)) == TB_OK)
			n++;
		ck_assert_int_eq(st, TB_ERR_LENGTH);
		ck_assert_uint_eq(e.offset, c2 + 8);
		ck_assert_uint_eq(n, 2);
		/* the walk goes on: the cut sample 2 is then a truncation */
		ck_assert_int_eq(tb_perf_record_next(&it, &r, &e), TB_ERR_TRUNCATED);
		free(c);
	}
	pw_free(&w);
	free(s);
	free(window);
}
END_TEST

/* Feature sections of a hand-built file: the scalar ones kept, a short
 * one refused at its offset, DIR_FORMAT refused. */
static void feature_file(pw *w, int be, unsigned id, const pw *feat)
{
	static const uint64_t ids[] = { 5 };
	pw_file pf;
	memset(&pf, 0, sizeof(pf));
	pf.attrs[0].size = 64;
	pf.attrs[0].sample_type = TB_PERF_SAMPLE_IDENTIFIER;
	pf.ids[0] = ids;
	pf.nids[0] = 1;
	pf.nattrs = 1;
	pf.attr_entry = 80;
	pf.feat_id[0] = id;
	pf.feat[0] = feat->b;
	pf.feat_len[0] = feat->len;
	pf.nfeats = 1;
	pw_init(w, be);
	pw_build_file(w, &pf);
}

START_TEST(scalar_features_both_orders)
{
	int be = _i;
	store *s = new_store();
	pw ft, w;
	tb_perf f;
	tb_error e;
	tb_perf_feature got;
	/* CLOCK_DATA */
	pw_init(&ft, be);
	pw_u32(&ft, 1);
	pw_u32(&ft, 4);                      /* CLOCK_MONOTONIC_RAW */
	pw_u64(&ft, 1764921600000000000ull);
	pw_u64(&ft, 925376985276ull);
	feature_file(&w, be, TB_PERF_FEAT_CLOCK_DATA, &ft);
	ck_assert_int_eq(tb_perf_open(&f, w.b, w.len, &s->st, &e), TB_OK);
	ck_assert(f.has_clock_data);
	ck_assert_uint_eq(f.clock.clockid, 4);
	ck_assert_uint_eq(f.clock.tod_ns, 1764921600000000000ull);
	ck_assert_uint_eq(f.clock.clock_ns, 925376985276ull);
	ck_assert_int_eq(tb_perf_feature_get(&f, TB_PERF_FEAT_CLOCK_DATA, &got, &e), TB_OK);
	ck_assert_uint_eq(got.data.len, 24);
	/* the same cut to 20 bytes: refused at the section */
	ft.len = 20;
	pw_free(&w);
	feature_file(&w, be, TB_PERF_FEAT_CLOCK_DATA, &ft);
	ck_assert_int_eq(tb_perf_open(&f, w.b, w.len, &s->st, &e), TB_ERR_TRUNCATED);
	ck_assert_uint_eq(e.offset, w.len - 20);
	pw_free(&w);
	pw_free(&ft);
	/* CLOCKID, NRCPUS, COMPRESSED */
	pw_init(&ft, be);
	pw_u64(&ft, 1);
	feature_file(&w, be, TB_PERF_FEAT_CLOCKID, &ft);
	ck_assert_int_eq(tb_perf_open(&f, w.b, w.len, &s->st, &e), TB_OK);
	ck_assert(f.has_clockid_res);
	ck_assert_uint_eq(f.clockid_res_ns, 1);
	pw_free(&w);
	pw_free(&ft);
	pw_init(&ft, be);
	pw_u32(&ft, 8);
	pw_u32(&ft, 6);
	feature_file(&w, be, TB_PERF_FEAT_NRCPUS, &ft);
	ck_assert_int_eq(tb_perf_open(&f, w.b, w.len, &s->st, &e), TB_OK);
	ck_assert_uint_eq(f.nr_cpus_avail, 8);
	ck_assert_uint_eq(f.nr_cpus_online, 6);
	pw_free(&w);
	pw_free(&ft);
	pw_init(&ft, be);
	pw_u32(&ft, 0);
	pw_u32(&ft, 1);
	pw_u32(&ft, 3);
	pw_u32(&ft, 12);
	pw_u32(&ft, 528384);
	feature_file(&w, be, TB_PERF_FEAT_COMPRESSED, &ft);
	ck_assert_int_eq(tb_perf_open(&f, w.b, w.len, &s->st, &e), TB_OK);
	ck_assert(f.has_compression);
	ck_assert_uint_eq(f.compression.level, 3);
	ck_assert_uint_eq(f.compression.mmap_len, 528384);
	pw_free(&w);
	pw_free(&ft);
	/* a string longer than its section */
	pw_init(&ft, be);
	pw_u32(&ft, 64);
	pw_bytes(&ft, "host", 4);
	feature_file(&w, be, TB_PERF_FEAT_HOSTNAME, &ft);
	ck_assert_int_eq(tb_perf_open(&f, w.b, w.len, &s->st, &e), TB_ERR_LENGTH);
	ck_assert_uint_eq(e.offset, w.len - 8);
	pw_free(&w);
	pw_free(&ft);
	/* DIR_FORMAT: the samples are elsewhere */
	pw_init(&ft, be);
	pw_u64(&ft, 1);
	feature_file(&w, be, TB_PERF_FEAT_DIR_FORMAT, &ft);
	ck_assert_int_eq(tb_perf_open(&f, w.b, w.len, &s->st, &e), TB_ERR_UNSUPPORTED);
	ck_assert(f.dir_format);
	pw_free(&w);
	pw_free(&ft);
	/* an unknown feature is skipped by its size */
	pw_init(&ft, be);
	pw_bytes(&ft, "whatever", 8);
	feature_file(&w, be, 200, &ft);
	ck_assert_int_eq(tb_perf_open(&f, w.b, w.len, &s->st, &e), TB_OK);
	ck_assert(tb_perf_has_feature(&f, 200));
	ck_assert_int_eq(tb_perf_feature_get(&f, 200, &got, &e), TB_OK);
	ck_assert_int_eq(memcmp(got.data.ptr, "whatever", 8), 0);
	pw_free(&w);
	pw_free(&ft);
	free(s);
}
END_TEST

/* HEADER_ATTR records after samples: each one sorts the id table again,
 * so their number is bounded. */
START_TEST(pipe_late_attrs_limit)
{
	store *s = new_store();
	tb_perf_stream *p = new_stream();
	pw w;
	pw_attr a;
	tb_perf_record r;
	tb_error e;
	tb_status st;
	uint64_t id;
	size_t samples = 0;
	memset(&a, 0, sizeof(a));
	a.size = 64;
	a.sample_type = TB_PERF_SAMPLE_IDENTIFIER;
	pw_init(&w, 0);
	pw_pipe_header(&w);
	for (id = 1; id <= TB_PERF_MAX_LATE_ATTRS + 4; id++) {
		size_t at;
		pw_header_attr(&w, &a, &id, 1);
		at = pw_rec_begin(&w, TB_PERF_RECORD_SAMPLE, 0);
		pw_u64(&w, id);
		pw_rec_end(&w, at);
	}
	/* room for every attr: the limit, not the storage, must stop it */
	s->st.attrs = calloc(2 * TB_PERF_MAX_LATE_ATTRS, sizeof(tb_perf_attr));
	s->st.attrs_cap = 2 * TB_PERF_MAX_LATE_ATTRS;
	ck_assert_int_eq(tb_perf_stream_open_buffer(p, &s->st, w.b, w.len), TB_OK);
	while ((st = tb_perf_stream_next(p, &r, &e)) == TB_OK)
		if (r.type == TB_PERF_RECORD_SAMPLE) {
			ck_assert_ptr_nonnull(r.attr);
			ck_assert_uint_eq(r.s.id, ++samples);
		}
	ck_assert_int_eq(st, TB_ERR_LIMIT);
	ck_assert_uint_eq(samples, TB_PERF_MAX_LATE_ATTRS + 1);
	free(s->st.attrs);
	pw_free(&w);
	free(p);
	free(s);
}
END_TEST

Suite *tb_suite_perfdata(void)
{
	Suite *s = suite_create("perfdata");
	TCase *tc = tcase_create("real");
	tcase_set_timeout(tc, 300);
	tcase_add_loop_test(tc, real_file_records_match_perf, 0, 3);
	tcase_add_loop_test(tc, real_pipe_records_match_perf, 0, 2);
	tcase_add_test(tc, real_pipe_every_split);
	tcase_add_test(tc, real_pipe_every_prefix);
	tcase_add_test(tc, real_file_every_prefix);
	tcase_add_test(tc, real_file_features);
	tcase_add_test(tc, feature_readers_refuse);
	tcase_add_test(tc, real_file_tracing_data);
	tcase_add_test(tc, real_file_callchain);
	tcase_add_test(tc, pipe_feature_records);
	tcase_add_test(tc, real_zstd_file);
	suite_add_tcase(s, tc);
	tc = tcase_create("built");
	tcase_set_timeout(tc, 300);
	tcase_add_loop_test(tc, every_sample_field_both_orders, 0, 10);
	tcase_add_loop_test(tc, every_short_sample, 0, 2);
	tcase_add_loop_test(tc, every_prefix_hand_built, 0, 2);
	tcase_add_loop_test(tc, record_kinds_both_orders, 0, 2);
	tcase_add_loop_test(tc, pipe_kinds_whole_split_prefix, 0, 2);
	tcase_add_test(tc, single_attr_without_ids);
	tcase_add_test(tc, names);
	tcase_add_loop_test(tc, compressed_records_straddle, 0, 8);
	tcase_add_test(tc, compressed_errors);
	tcase_add_loop_test(tc, scalar_features_both_orders, 0, 2);
	tcase_add_test(tc, pipe_late_attrs_limit);
	suite_add_tcase(s, tc);
	tc = tcase_create("errors");
	tcase_add_test(tc, header_errors);
	tcase_add_test(tc, record_errors);
	tcase_add_test(tc, attr_table_errors_and_storage);
	tcase_add_test(tc, pipe_errors);
	tcase_add_test(tc, find_attr_with_gaps);
	suite_add_tcase(s, tc);
	return s;
}
