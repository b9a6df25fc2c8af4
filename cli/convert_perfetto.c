/*
 * tracebound convert --to perfetto [OPTIONS] OUT FILE.dat
 * tracebound convert --to perfetto [OPTIONS] --events DIR OUT RAWFILE...
 *
 * The capture as a Perfetto protobuf trace.  The library session reads
 * the capture and lib/perfetto.c encodes each event (docs/perfetto.md);
 * this file only opens files, hands bytes to the output and reports.  OUT
 * "-" is standard output.  Memory stays constant however long the
 * capture: one bundle per CPU and one event's scratch (grown once for an
 * unusually large event).
 *
 * Raw trace_pipe_raw dumps (cpuN.raw, or their folder as FILE) are found
 * by the library's one rule (source.h): --events DIR, else the folder's
 * events/; header_page, subbuf_kb and the tables beside the dumps.
 *
 * --jobs N (default: the online cores; one under 16 MiB) converts the parts of one
 * trace.dat on N threads through the parts engine (host/parts.h).  The trace's
 * bundles are cut (all written) at the times of a plan that does not
 * depend on N, one cut per 8 MiB of capture, so each part's packets are
 * its own: a worker makes them with a writer of its own, and the main
 * thread writes them in order.  The output is the same for every N, and
 * --jobs 1 cuts at the same times.  Raw dumps and captures the library
 * cannot split run on one thread, without cuts.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "files.h"
#include "opts.h"

typedef struct pf_out {
	FILE *f;
	const char *path;
	int err;                 /* errno of the first failed write */
} pf_out;

static tb_status pf_write(void *ctx, const void *p, size_t n)
{
	pf_out *o = ctx;
	if (fwrite(p, 1, n, o->f) != n) {
		o->err = errno ? errno : EIO;
		return TB_ERR_ARG; /* the status is the library's; errno says why */
	}
	return TB_OK;
}

/* ---- raw dumps: the library's source rule (source.h) ---- */

typedef struct raw_opts {
	const char *events, *header_page, *clock;
	uint32_t subbuf_size;
} raw_opts;

static int open_raw(tb_cli_capture *cap, const raw_opts *o, char **files, int nfiles,
		    const tb_session_options *sopt)
{
	tb_source_desc d;
	memset(&d, 0, sizeof(d));
	d.dumps = (const char *const *)files;
	d.ndumps = (size_t)nfiles;
	d.events = o->events;
	d.header_page = o->header_page;
	d.subbuf_size = o->subbuf_size;
	if (o->clock) {
		d.clock.ptr = o->clock;
		d.clock.len = strlen(o->clock);
	}
	return tb_cli_capture_open_source(cap, &d, sopt, stderr);
}

/* ---- the conversion ---- */

/* Call again with a scratch of w->need bytes while the event does not fit. */
static tb_status grow_retry(tb_pf_writer *w, uint8_t **scratch, tb_status st)
{
	uint8_t *nb;
	if (st != TB_ERR_NO_SPACE)
		return st;
	if (!(nb = realloc(*scratch, w->need + 1024)))
		return TB_ERR_NO_SPACE;
	*scratch = nb;
	tb_pf_set_scratch(w, nb, w->need + 1024);
	return TB_NEED_MORE; /* call again */
}

/* What a damaged page says on stderr, on one thread or several. */
static void damage_msg(char *buf, size_t n, const char *path, const tb_session_event *ev)
{
	snprintf(buf, n, "tracebound: %s: CPU %u, file offset %llu: %s (%s); the page is skipped, "
		 "its CPU's next bundle says lost_events\n", path, ev->cpu,
		 (unsigned long long)ev->damage.offset, ev->damage.what,
		 tb_strerror(ev->damage.status));
}

/* ---- cuts, and --jobs N: each part's bundles made on a worker ---- */

/*
 * Every open bundle is written (tb_pf_flush) at the split times of a fixed
 * plan, before the first event at or past each: one cut per 8 MiB of
 * capture (tb_parts_count), the same whatever --jobs says.  So the
 * bundles of a part are its own, and each worker of the parts engine makes
 * its parts' packets with a writer of its own: the main thread only writes
 * them in order.  A cut costs at most one short packet per CPU.
 */

/* 1 when ts passes one or more split times from *next on (a cut before it). */
static int past_cut(const uint64_t *t, size_t nt, size_t *next, uint64_t ts)
{
	size_t from = *next;
	while (*next < nt && ts >= t[*next])
		(*next)++;
	return *next != from;
}

enum { PF_REC_BYTES = 1, PF_REC_STATS, PF_REC_FAIL };

/* A record in the engine's queues (one put, never split between chunks):
 * a pf_rec, then `len` bytes: trace bytes, a tb_pf_stats (what the
 * worker's writer added since its last), or a pf_fail. */
typedef struct pf_rec {
	uint32_t kind, len;
} pf_rec;

typedef struct pf_fail {
	tb_status st;
	const char *what;        /* static */
} pf_fail;

#define PF_NSTATS (sizeof(tb_pf_stats) / sizeof(uint64_t))

/* *a += b (sign 1) or -= b (sign -1), field by field. */
static void stats_add(tb_pf_stats *a, const tb_pf_stats *b, int sign)
{
	uint64_t x[PF_NSTATS], y[PF_NSTATS];
	size_t i;
	memcpy(x, a, sizeof(x));
	memcpy(y, b, sizeof(y));
	for (i = 0; i < PF_NSTATS; i++)
		x[i] = sign > 0 ? x[i] + y[i] : x[i] - y[i];
	memcpy(a, x, sizeof(x));
}

typedef struct pf_jobs {
	tb_cli_capture *c;
	const tb_pf_config *cfg; /* the main writer's: the workers' flags, sizes, clock */
	pf_out *out;
	uint64_t first_ts;       /* the first event's: every writer's clock pair */
	int have_first;
	tb_pf_stats stats;       /* what the workers' writers added */
	tb_status st;            /* the first error (an event, or the output) */
	tb_error e;
} pf_jobs;

typedef struct pf_worker {
	tb_pf_writer w;          /* writes to k, through queue_bytes */
	tb_pf_stats told;        /* w.stats when last queued */
	tb_parts_sink *k;        /* the part being made */
	int oom;                 /* the queue had no memory (else it stopped) */
	uint8_t *bundles, *scratch;
} pf_worker;

/* The worker writer's output: its bytes queued, one record a call.  Its
 * error is not TB_ERR_NO_SPACE, which the writer also returns for a
 * scratch too small: grow_retry would grow the scratch for ever. */
static tb_status queue_bytes(void *ctx, const void *p, size_t n)
{
	pf_worker *ws = ctx;
	pf_rec r;
	int rc = -1;
	r.kind = PF_REC_BYTES;
	r.len = (uint32_t)n;
	if (n > UINT32_MAX - sizeof(r) || (rc = tb_parts_put2(ws->k, &r, sizeof(r), p, n)) == -1)
		ws->oom = 1; /* or cancelled: then nothing is said */
	return rc ? TB_ERR_ARG : TB_OK;
}

static int queue_rec(tb_parts_sink *k, unsigned kind, const void *p, size_t n)
{
	uint8_t buf[sizeof(pf_rec) + sizeof(tb_pf_stats) + sizeof(pf_fail)];
	pf_rec r;
	r.kind = kind;
	r.len = (uint32_t)n;
	memcpy(buf, &r, sizeof(r));
	memcpy(buf + sizeof(r), p, n);
	return tb_parts_put(k, buf, sizeof(r) + n);
}

/* A cut: every bundle written, then what the writer added since the
 * last (nothing when nothing: an empty part queues nothing).  0 or -1. */
static int cut(pf_worker *ws)
{
	tb_pf_stats d;
	tb_error e;
	if (tb_pf_flush(&ws->w, &e) != TB_OK)
		return -1;
	if (!memcmp(&ws->w.stats, &ws->told, sizeof(d)))
		return 0;
	d = ws->w.stats;
	stats_add(&d, &ws->told, -1);
	ws->told = ws->w.stats;
	return queue_rec(ws->k, PF_REC_STATS, &d, sizeof(d));
}

static void pf_worker_free(void *ctx, void *p)
{
	pf_worker *ws = p;
	(void)ctx;
	if (ws) {
		free(ws->bundles);
		free(ws->scratch);
		free(ws);
	}
}

static void *pf_worker_new(void *ctx)
{
	const pf_jobs *pj = ctx;
	pf_worker *ws = calloc(1, sizeof(*ws));
	tb_pf_config cfg = *pj->cfg;
	tb_error e;
	if (!ws)
		return NULL;
	ws->bundles = malloc(cfg.nslots * cfg.bundle_size);
	ws->scratch = malloc(TB_PF_DEFAULT_SCRATCH);
	cfg.write = queue_bytes;
	cfg.ctx = ws;
	cfg.bundles = ws->bundles;
	cfg.scratch = ws->scratch;
	cfg.scratch_size = TB_PF_DEFAULT_SCRATCH;
	if (!ws->bundles || !ws->scratch || tb_pf_init(&ws->w, &cfg, &e) != TB_OK) {
		pf_worker_free(NULL, ws);
		return NULL;
	}
	if (pj->have_first)
		tb_pf_set_clock(&ws->w, pj->first_ts);
	return ws;
}

/* The one-thread loop's walk over one part (or, when the parts did not
 * tile, the whole capture, cut at the plan's times): 0 or -1. */
static int pf_produce(void *ctx, void *p_ws, tb_session *p, tb_parts_sink *k, int *bad)
{
	const pf_jobs *pj = ctx;
	pf_worker *ws = p_ws;
	size_t ncuts, next = 0;
	const uint64_t *cuts = tb_parts_bounds(k, &ncuts);
	char msg[1024];
	ws->k = k;
	for (;;) {
		tb_session_event ev;
		tb_error e;
		tb_status st = tb_session_next(p, &ev, &e);
		if (st == TB_END)
			break;
		if (st != TB_OK) { /* a page the session could not skip in place */
			if (tb_cli_parts_page_error(k, pj->c, p, &e, bad))
				return -1;
			continue;
		}
		if (past_cut(cuts, ncuts, &next, ev.ts) && cut(ws))
			goto stopped;
		if (ev.kind == TB_SEV_DAMAGED) {
			damage_msg(msg, sizeof(msg), tb_cli_capture_path(pj->c, ev.cpu), &ev);
			if (tb_parts_msg(k, msg))
				return -1;
			if (*bad < 1)
				*bad = 1;
		}
		do
			st = grow_retry(&ws->w, &ws->scratch, tb_pf_session_event(&ws->w, &ev, &e));
		while (st == TB_NEED_MORE);
		if (st != TB_OK) {
			pf_fail f;
			if (ws->w.status != TB_OK)
				goto stopped;
			/* the one-thread loop stops here: the main thread says why */
			f.st = st;
			f.what = e.what;
			(void)queue_rec(k, PF_REC_FAIL, &f, sizeof(f));
			return -1;
		}
	}
	if (cut(ws))
		goto stopped;
	return 0;
stopped:
	if (ws->oom) {
		(void)tb_parts_msg(k, "tracebound: out of memory\n");
		*bad = 2;
	}
	return -1;
}

/* The first error, for the main thread to say: -1. */
static int jobs_fail(pf_jobs *pj, tb_status st, const char *what)
{
	pj->st = st;
	pj->e.status = st;
	pj->e.offset = 0;
	pj->e.what = what;
	return -1;
}

/* The main thread: the records in order.  0, or -1 (pj->st says). */
static int pf_consume(void *ctx, const uint8_t *p, size_t n)
{
	pf_jobs *pj = ctx;
	while (n) {
		pf_rec r;
		pf_fail f;
		tb_pf_stats d;
		if (n < sizeof(r))
			goto cut_short;
		memcpy(&r, p, sizeof(r));
		p += sizeof(r);
		n -= sizeof(r);
		if (r.len > n)
			goto cut_short;
		if (r.kind == PF_REC_BYTES) {
			if (pf_write(pj->out, p, r.len) != TB_OK)
				return jobs_fail(pj, TB_ERR_ARG, "perfetto writer: output failed");
		} else if (r.kind == PF_REC_STATS && r.len == sizeof(d)) {
			memcpy(&d, p, sizeof(d));
			stats_add(&pj->stats, &d, 1);
		} else if (r.kind == PF_REC_FAIL && r.len == sizeof(f)) {
			memcpy(&f, p, sizeof(f));
			return jobs_fail(pj, f.st, f.what);
		} else {
			goto cut_short;
		}
		p += r.len;
		n -= r.len;
	}
	return 0;
cut_short:
	return jobs_fail(pj, TB_ERR_ARG, "internal error: a queued record cut short");
}

static void pf_message(void *ctx, const char *msg)
{
	(void)ctx;
	fputs(msg, stderr);
}

/* The first event's time, which the clock pair of every bundle carries
 * (otherwise each writer would take its own first event's): read ahead,
 * then the session rewound.  *have 0: the capture has no event. */
static tb_status first_event(tb_session *s, uint64_t *ts, int *have, tb_error *e)
{
	*have = 0;
	for (;;) {
		tb_session_event ev;
		tb_status st = tb_session_next(s, &ev, e);
		if (st == TB_END)
			break;
		if (st == TB_OK && ev.kind == TB_SEV_EVENT) {
			*ts = ev.ts;
			*have = 1;
			break;
		}
	}
	return tb_session_rewind(s, e);
}

static const tb_opt perfetto_options[] = {
	{ 1, "--lossless", NULL, NULL, "keep every field (generic events beside typed ones)" },
	{ 2, "--generic", NULL, NULL, "every event as a generic one" },
	{ 3, "--verbose", "-v", NULL, "say what was dropped or damaged" },
	{ 4, "--events", NULL, "DIR", "event formats for raw cpuN.raw inputs" },
	{ 5, "--header-page", NULL, "FILE", "the sub-buffer layout of raw inputs" },
	{ 6, "--clock", NULL, "CLOCK", "the trace clock of raw inputs" },
	{ 7, "--subbuf-size", NULL, "SIZE", "the sub-buffer size of raw inputs (16k)" },
	{ 8, "--jobs", "-j", "N", "encode on N threads, output unchanged (default: the machine's "
				  "cores, one under 16 MiB; 1: one thread; one trace.dat)" },
	TB_CLI_MAX_MEMORY_OPT,
	{ 0, NULL, NULL, NULL, NULL },
};

int tb_convert_perfetto(int argc, char **argv)
{
	tb_pf_writer *w = NULL;
	tb_pf_config cfg;
	tb_cli_capture cap;
	raw_opts ro;
	tb_session_options sopt;
	pf_out out = { NULL, NULL, 0 };
	tb_error e;
	tb_status st;
	const tb_session_info *info;
	unsigned flags = 0;
	size_t b, ncpus = 1;
	int i, rc, verbose = 0, nin, id, npos = 0, jobs = tb_opts_default_jobs(), jobs_given = 0;
	tb_opts po;
	const char *v;
	uint64_t size;
	int damaged = 0;
	uint8_t *bundles = NULL, *scratch = NULL;
	uint64_t first_ts = 0;
	int have_first = 0;
	const char *outpath;
	memset(&cap, 0, sizeof(cap));
	memset(&ro, 0, sizeof(ro));
	tb_opts_init(&po, "convert --to perfetto",
		     "[--lossless] [--generic] [-v] [--jobs N] OUT FILE.dat\n"
		     "       tracebound convert --to perfetto [OPTIONS] --events DIR OUT RAWFILE...\n"
		     "(OUT may be - for stdout)",
		     perfetto_options, argc, argv);
	while ((id = tb_opts_next(&po, &v)) != TB_OPTS_END) {
		switch (id) {
		case TB_OPTS_HELP: return TB_EXIT_OK;
		case TB_OPTS_ERROR: return TB_EXIT_USAGE;
		case TB_OPT_MAX_MEMORY:
			if (tb_cli_budget_option(&po, v) != 0)
				return TB_EXIT_USAGE;
			break;
		case 1: flags |= TB_PF_LOSSLESS; break;
		case 2: flags |= TB_PF_ALL_GENERIC; break;
		case 3: verbose = 1; break;
		case 4: ro.events = v; break;
		case 5: ro.header_page = v; break;
		case 6: ro.clock = v; break;
		case 7:
			if (tb_opts_size(&po, "--subbuf-size", v, &size) != 0)
				return TB_EXIT_USAGE;
			if (size < 4096 || size > (1u << 20))
				return tb_opts_fail(&po, "option '--subbuf-size': %llu bytes: the size is "
						    "in bytes (k and m suffixes), from 4096 to 1m",
						    (unsigned long long)size);
			ro.subbuf_size = (uint32_t)size;
			break;
		case 8:
			if (tb_opts_jobs(&po, v, &jobs) != 0)
				return TB_EXIT_USAGE;
			jobs_given = 1;
			break;
		default: argv[++npos] = (char *)(uintptr_t)v; break;
		}
	}
	argc = npos + 1;
	i = 1;
	nin = argc - i - 1;
	if (nin < 1)
		return tb_opts_usage(&po);
	if (nin > 1 && !ro.events)
		return tb_opts_fail(&po, "a second input file '%s' (several inputs are raw "
				    "cpuN files, with --events)", argv[i + 2]);
	outpath = argv[i];

	memset(&sopt, 0, sizeof(sopt));
	sopt.flags = TB_SESSION_SKIP_DAMAGED; /* damaged pages in place: a loss there */
	if (ro.events)
		rc = open_raw(&cap, &ro, argv + i + 1, nin, &sopt);
	else
		rc = tb_cli_capture_open(&cap, argv[i + 1], &sopt, stderr);
	if (rc) {
		tb_cli_capture_close(&cap);
		return rc;
	}
	info = tb_session_get_info(cap.s);
	for (b = 0; b < info->nbuffers; b++) {
		const tb_session_buffer_info *bi = tb_session_buffer(cap.s, b);
		if (bi && bi->ncpus > ncpus)
			ncpus = bi->ncpus;
	}
	if (ncpus > TB_PF_MAX_SLOTS)
		ncpus = TB_PF_MAX_SLOTS;
	scratch = malloc(TB_PF_DEFAULT_SCRATCH);
	bundles = malloc(ncpus * TB_PF_DEFAULT_BUNDLE);
	w = malloc(sizeof(*w));
	rc = TB_EXIT_USAGE;
	if (!scratch || !bundles || !w) {
		fprintf(stderr, "tracebound: out of memory\n");
		goto done;
	}
	out.path = strcmp(outpath, "-") ? outpath : "(stdout)";
	out.f = strcmp(outpath, "-") ? fopen(outpath, "wb") : stdout;
	if (!out.f) {
		fprintf(stderr, "tracebound: %s: %s\n", outpath, strerror(errno));
		goto done;
	}
	memset(&cfg, 0, sizeof(cfg));
	cfg.write = pf_write;
	cfg.ctx = &out;
	cfg.bundles = bundles;
	cfg.nslots = ncpus;
	cfg.bundle_size = TB_PF_DEFAULT_BUNDLE;
	cfg.scratch = scratch;
	cfg.scratch_size = TB_PF_DEFAULT_SCRATCH;
	cfg.big_endian = info->big_endian;
	cfg.flags = flags;
	{
		/* the session's reading of it (tb_clock_parse) */
		const tb_session_buffer_info *b0 = tb_session_buffer(cap.s, 0);
		tb_span clock = b0 && b0->clock.len ? b0->clock : info->clock;
		cfg.clock = clock.ptr;
		cfg.clock_len = clock.len;
	}
	if (tb_pf_init(w, &cfg, &e) != TB_OK) {
		fprintf(stderr, "tracebound: %s\n", e.what);
		goto done;
	}
	do
		st = grow_retry(w, &scratch, tb_pf_system_info(w, info->uname.ptr, info->uname.len, &e));
	while (st == TB_NEED_MORE);
	if (st != TB_OK)
		goto failed;
	do
		st = grow_retry(w, &scratch, tb_pf_threads(w, tb_session_cmdlines(cap.s), &e));
	while (st == TB_NEED_MORE);
	if (st != TB_OK)
		goto failed;
	if (!cap.raw) {
		/* cuts may write a bundle (a loss) before the first event */
		if ((st = first_event(cap.s, &first_ts, &have_first, &e)) != TB_OK)
			goto failed;
		if (have_first)
			tb_pf_set_clock(w, first_ts);
	}
	{
		/* the parts on `jobs` threads, written in order, or one walk
		 * through the same hooks (see above) */
		pf_jobs pj;
		tb_parts_hooks h;
		int r = -1;
		memset(&pj, 0, sizeof(pj));
		pj.c = &cap;
		pj.cfg = &cfg;
		pj.out = &out;
		pj.first_ts = first_ts;
		pj.have_first = have_first;
		memset(&h, 0, sizeof(h));
		h.ctx = &pj;
		h.mem = &tb_cli_heap;
		h.input_len = cap.f.len;
		h.worker_new = pf_worker_new;
		h.worker_free = pf_worker_free;
		h.produce = pf_produce;
		h.consume = pf_consume;
		h.message = pf_message;
		h.parts = cap.raw ? 0 : tb_parts_count(cap.f.len);
		if (!cap.raw && tb_opts_jobs_for(jobs, jobs_given, cap.f.len) > 1)
			r = tb_parts_run(cap.s, jobs, &h);
		if (r < 0)
			r = tb_parts_walk(cap.s, &h);
		stats_add(&w->stats, &pj.stats, 1); /* the trace's, for the notes below */
		if (pj.st != TB_OK) {
			st = pj.st;
			e = pj.e;
			goto failed;
		}
		if (r == 2) {
			rc = TB_EXIT_USAGE; /* out of memory, said */
			goto done;
		}
		damaged = r == 1;
	}
	if (tb_pf_finish(w, &e) != TB_OK)
		goto failed;
	if (fflush(out.f) != 0) {
		out.err = errno;
		goto failed;
	}
	/* damage outside the pages too (a table, a format, CPU data cut
	 * short: said when the capture opened), as report and parquet do */
	rc = damaged || tb_session_ndamage(cap.s) ? TB_EXIT_MALFORMED : TB_EXIT_OK;
	if (w->stats.dropped_fields)
		fprintf(stderr, "tracebound: note: %llu field values have no place in their typed "
			"Perfetto message and were left out (--lossless writes those events as "
			"generic events)\n", (unsigned long long)w->stats.dropped_fields);
	if (verbose)
		fprintf(stderr, "tracebound: %llu events (%llu typed, %llu generic, %llu unknown), "
			"%llu threads, %llu packets, %llu bytes, %llu bundles after a loss\n",
			(unsigned long long)w->stats.events, (unsigned long long)w->stats.typed,
			(unsigned long long)w->stats.generic, (unsigned long long)w->stats.unknown,
			(unsigned long long)w->stats.threads, (unsigned long long)w->stats.packets,
			(unsigned long long)w->stats.bytes, (unsigned long long)w->stats.lost_bundles);
	goto done;
failed:
	if (st == TB_ERR_NO_SPACE)
		fprintf(stderr, "tracebound: out of memory\n");
	else
		fprintf(stderr, "tracebound: %s: %s\n", out.path,
			out.err ? strerror(out.err) : e.what);
	rc = TB_EXIT_USAGE;
done:
	if (out.f && out.f != stdout && fclose(out.f) != 0 && rc != TB_EXIT_USAGE) {
		fprintf(stderr, "tracebound: %s: %s\n", outpath, strerror(errno));
		rc = TB_EXIT_USAGE;
	}
	free(w);
	free(bundles);
	free(scratch);
	tb_cli_capture_close(&cap);
	return rc;
}
