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
 * Raw trace_pipe_raw dumps (cpuN.raw) need the events directory their
 * formats come from (--events DIR: tracefs's events/ or a copy);
 * header_page is DIR/header_page, else beside the first dump, and the
 * sub-buffer size --subbuf-size, else subbuf_kb beside the first dump,
 * else header_page's.
 *
 * --jobs N (default: the online cores) encodes the events of one
 * trace.dat on N threads through the parts engine (parts.h): each worker
 * encodes its part's events with an encode-only writer of its own
 * (tb_pf_encode) and queues one record per event; the main thread places
 * them in order into the one writer (tb_pf_place), which makes the bundles
 * and packets exactly as the one-thread loop does.  Raw dumps and
 * captures the library cannot split run on one thread.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "fmtdir.h"
#include "opts.h"
#include "parts.h"

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

/* ---- raw dumps: the texts the session takes ---- */

typedef struct raw_inputs {
	tb_cli_file *files;      /* the dumps, then header_page, subbuf_kb */
	size_t nfiles;
	tb_session_raw_cpu *cpus;
	tb_fmt_dir fmts;         /* the format files and their texts */
	char **texts;            /* every malloc'd text and name */
	size_t ntexts, text_cap;
} raw_inputs;

static char *keep(raw_inputs *in, char *p)
{
	if (!p)
		return NULL;
	if (in->ntexts == in->text_cap) {
		size_t cap = in->text_cap ? 2 * in->text_cap : 256;
		char **n = realloc(in->texts, cap * sizeof(*n));
		if (!n) {
			free(p);
			return NULL;
		}
		in->texts = n;
		in->text_cap = cap;
	}
	return in->texts[in->ntexts++] = p;
}

/* Every DIR/<system>/<event>/format. */
static int load_formats(raw_inputs *in, const char *dir)
{
	if (tb_fmt_dir_read(&in->fmts, dir) != 0) {
		fprintf(stderr, "tracebound: %s: %s\n", dir, strerror(errno ? errno : ENOMEM));
		return -1;
	}
	if (!in->fmts.n) {
		fprintf(stderr, "tracebound: %s: no event formats\n", dir);
		return -1;
	}
	return 0;
}

/* DIR_OF(path)/name as a malloc'd text, or NULL. */
static char *beside(raw_inputs *in, const char *path, const char *name, size_t *len)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash ? strndup(path, (size_t)(slash - path)) : strdup(".");
	char *p = dir ? tb_path_join(dir, name) : NULL;
	char *t = p ? tb_file_read(p, len) : NULL;
	free(dir);
	free(p);
	return keep(in, t);
}

static void raw_free(raw_inputs *in)
{
	size_t i;
	for (i = 0; i < in->nfiles; i++)
		if (in->files[i].data)
			tb_cli_unload(&in->files[i]);
	for (i = 0; i < in->ntexts; i++)
		free(in->texts[i]);
	free(in->files);
	free(in->cpus);
	tb_fmt_dir_free(&in->fmts);
	free(in->texts);
}

typedef struct raw_opts {
	const char *events, *header_page, *clock;
	uint32_t subbuf_size;
} raw_opts;

static int open_raw(tb_cli_capture *cap, raw_inputs *in, const raw_opts *o, char **files,
		    int nfiles, const tb_session_options *sopt)
{
	tb_session_source src;
	tb_status st;
	size_t len = 0;
	char *t;
	int i;
	memset(&src, 0, sizeof(src));
	in->files = calloc((size_t)nfiles, sizeof(*in->files));
	in->cpus = calloc((size_t)nfiles, sizeof(*in->cpus));
	if (!in->files || !in->cpus)
		return TB_EXIT_USAGE;
	for (i = 0; i < nfiles; i++) {
		if (tb_cli_load(files[i], &in->files[i]) != 0)
			return TB_EXIT_USAGE;
		in->nfiles++;
		in->cpus[i].cpu = (uint32_t)tb_cli_cpu_from_name(files[i], i);
		in->cpus[i].data = in->files[i].data;
		in->cpus[i].len = in->files[i].len;
	}
	if (load_formats(in, o->events) != 0)
		return TB_EXIT_USAGE;
	if (o->header_page) {
		if (!(t = keep(in, tb_file_read(o->header_page, &len)))) {
			fprintf(stderr, "tracebound: %s: cannot read\n", o->header_page);
			return TB_EXIT_USAGE;
		}
	} else {
		char *p = tb_path_join(o->events, "header_page");
		t = p ? keep(in, tb_file_read(p, &len)) : NULL;
		free(p);
		if (!t)
			t = beside(in, files[0], "header_page", &len);
	}
	if (t) {
		src.header_page.ptr = t;
		src.header_page.len = len;
	}
	src.subbuf_size = o->subbuf_size;
	if (!src.subbuf_size && (t = beside(in, files[0], "subbuf_kb", &len)) != NULL) {
		unsigned long kb = strtoul(t, NULL, 10);
		if (kb == 0 || kb > 1024) {
			fprintf(stderr, "tracebound: subbuf_kb beside %s: not a size in KiB\n", files[0]);
			return TB_EXIT_USAGE;
		}
		src.subbuf_size = (uint32_t)kb * 1024;
	}
	if ((t = beside(in, files[0], "saved_cmdlines", &len)) != NULL) {
		src.cmdlines.ptr = t;
		src.cmdlines.len = len;
	}
	if (o->clock) {
		src.clock.ptr = o->clock;
		src.clock.len = strlen(o->clock);
	} else if ((t = beside(in, files[0], "trace_clock", &len)) != NULL) {
		src.clock.ptr = t;
		src.clock.len = len;
	}
	{
		const uint16_t probe = 1;
		uint8_t first;
		memcpy(&first, &probe, 1);
		src.big_endian = first == 0; /* a dump is read on the machine it came from */
	}
	src.long_size = (unsigned)sizeof(long);
	src.raw = in->cpus;
	src.nraw = (size_t)nfiles;
	src.formats = in->fmts.texts;
	src.nformats = in->fmts.n;
	memset(cap, 0, sizeof(*cap));
	cap->path = files[0];
	st = tb_session_open(&cap->s, &src, sopt, &tb_cli_heap, &cap->err);
	if (st != TB_OK) {
		fprintf(stderr, "tracebound: %s: %s at offset %llu (%s)\n", files[0], cap->err.what,
			(unsigned long long)cap->err.offset, tb_strerror(st));
		return st == TB_ERR_NO_SPACE || st == TB_ERR_ARG ? TB_EXIT_USAGE : TB_EXIT_MALFORMED;
	}
	tb_cli_print_damage(cap, stderr);
	return TB_EXIT_OK;
}

/* tb_cli_capture_open, with its message prefixed only when there is one. */
static int open_dat(tb_cli_capture *cap, const char *path, const tb_session_options *opt)
{
	char *msg = NULL;
	size_t n = 0;
	FILE *errs = open_memstream(&msg, &n);
	int rc;
	memset(cap, 0, sizeof(*cap));
	if (!errs || tb_cli_load(path, &cap->f) != 0) {
		if (errs)
			fclose(errs);
		free(msg);
		return TB_EXIT_USAGE;
	}
	rc = tb_cli_capture_open_mem(cap, path, cap->f.data, cap->f.len, opt, stderr, errs);
	fclose(errs);
	if (rc) {
		fprintf(stderr, "tracebound: %s", msg ? msg : "cannot open\n");
		tb_cli_unload(&cap->f);
	}
	free(msg);
	return rc;
}

/* ---- the conversion ---- */

/* The clock in use: the bracketed name of a trace_clock text, else its
 * first word ("[local] global counter" -> "local"). */
static void clock_name(tb_span t, const char **name, size_t *len)
{
	const char *s = t.ptr, *b, *e;
	size_t n = t.len;
	*name = NULL;
	*len = 0;
	if (!s || !n)
		return;
	b = memchr(s, '[', n);
	if (b && (e = memchr(b, ']', n - (size_t)(b - s))) != NULL) {
		*name = b + 1;
		*len = (size_t)(e - b - 1);
		return;
	}
	while (n && (*s == ' ' || *s == '\n')) {
		s++;
		n--;
	}
	*name = s;
	while (*len < n && s[*len] != ' ' && s[*len] != '\n')
		(*len)++;
}

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

/* ---- --jobs N: events encoded on the parts engine's workers ---- */

enum { PF_REC_EVENT = 1, PF_REC_LOST, PF_REC_FAIL };

/*
 * A record in the engine's queues, one put (never split between chunks):
 * a pf_head, `len` bytes (the encoded event), then a pf_more when the
 * head says so (anything rare: a buffer, drops, dropped or bad fields, a
 * CPU above 2^24, or what failed).  16 bytes of header for most events.
 */
typedef struct pf_head {
	uint32_t len;            /* bytes of the encoded event */
	uint32_t cpu_flags;      /* CPU (low 24 bits) | PF_F_* << 24 */
	uint64_t ts;             /* PF_REC_FAIL: the encoder's status */
} pf_head;

#define PF_F_KIND(f) ((f) & 3u)        /* PF_REC_* */
#define PF_F_ENC(f) (((f) >> 2) & 3u)  /* TB_PF_ENC_* */
#define PF_F_MORE 0x10u
#define PF_CPU_MASK 0xffffffu

typedef struct pf_more {
	uint32_t cpu, buffer;
	uint32_t dropped, bad;   /* the stats delta */
	int64_t missed;
	const char *what;        /* PF_REC_FAIL: its text (static) */
} pf_more;

typedef struct pf_jobs {
	tb_cli_capture *c;
	tb_pf_writer *w;         /* the main thread's: places */
	unsigned flags;
	int big_endian;
	tb_status st;            /* the first error placing (or encoding) */
	tb_error e;
} pf_jobs;

typedef struct pf_worker {
	tb_pf_writer w;          /* encode only: its bundle and output unused */
	uint8_t bundle[TB_PF_MIN_BUNDLE];
	uint8_t scratch[64];     /* until the first event: then the queue's room */
} pf_worker;

static tb_status no_write(void *ctx, const void *p, size_t n)
{
	(void)ctx;
	(void)p;
	(void)n;
	return TB_ERR_ARG; /* never called: the encoder places nothing */
}

static void *pf_worker_new(void *ctx)
{
	const pf_jobs *pj = ctx;
	pf_worker *ws = malloc(sizeof(*ws));
	tb_pf_config cfg;
	tb_error e;
	if (!ws)
		return NULL;
	memset(&cfg, 0, sizeof(cfg));
	cfg.write = no_write;
	cfg.bundles = ws->bundle;
	cfg.nslots = 1;
	cfg.bundle_size = sizeof(ws->bundle);
	cfg.scratch = ws->scratch;
	cfg.scratch_size = sizeof(ws->scratch);
	cfg.big_endian = pj->big_endian;
	cfg.flags = pj->flags;
	if (tb_pf_init(&ws->w, &cfg, &e) != TB_OK) {
		free(ws);
		return NULL;
	}
	return ws;
}

static void pf_worker_free(void *ctx, void *p)
{
	(void)ctx;
	free(p);
}

/* A record without bytes (PF_REC_LOST, PF_REC_FAIL): a head and a pf_more. */
static int put_rec(tb_parts_sink *k, unsigned kind, uint64_t ts, const pf_more *m)
{
	uint8_t buf[sizeof(pf_head) + sizeof(pf_more)];
	pf_head h;
	h.len = 0;
	h.cpu_flags = (m->cpu & PF_CPU_MASK) | (kind | PF_F_MORE) << 24;
	h.ts = ts;
	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h), m, sizeof(*m));
	return tb_parts_put(k, buf, sizeof(buf));
}

/* The record of an event, encoded in place in the queue (a header, then
 * its bytes: one put).  0; -1: stop (cancelled, or a write error of the
 * one-cursor walk: the main thread knows it); -2: out of memory; -3: the
 * encoder's error (*e). */
static int put_event(tb_parts_sink *k, pf_worker *ws, const tb_session_event *ev,
		     tb_error *e)
{
	const size_t extra = sizeof(pf_head) + sizeof(pf_more);
	size_t want = extra + 256, room;
	tb_pf_record r;
	tb_pf_encoded enc;
	pf_head h;
	pf_more m;
	uint8_t *at;
	unsigned flags;
	tb_status st = tb_pf_session_record(ev, &r, e);
	if (st != TB_OK)
		return -3;
	for (;;) {
		if (!(at = tb_parts_reserve(k, want, &room)))
			return -2; /* or cancelled: then the message is not queued */
		tb_pf_set_scratch(&ws->w, at + sizeof(pf_head), room - extra);
		st = tb_pf_encode(&ws->w, &r, &enc, e);
		if (st != TB_ERR_NO_SPACE)
			break;
		want = extra + ws->w.need; /* a chunk that holds it */
	}
	if (st != TB_OK)
		return -3;
	if (enc.len > UINT32_MAX)
		return -2;
	if (enc.data != at + sizeof(pf_head)) /* tb_pf_encode writes at the scratch */
		memmove(at + sizeof(pf_head), enc.data, enc.len);
	flags = PF_REC_EVENT | enc.kind << 2;
	if (enc.cpu > PF_CPU_MASK || enc.buffer || enc.missed || enc.dropped_fields ||
	    enc.bad_fields) {
		flags |= PF_F_MORE;
		memset(&m, 0, sizeof(m));
		m.cpu = enc.cpu;
		m.buffer = enc.buffer;
		m.dropped = enc.dropped_fields;
		m.bad = enc.bad_fields;
		m.missed = enc.missed;
		memcpy(at + sizeof(pf_head) + enc.len, &m, sizeof(m));
	}
	h.len = (uint32_t)enc.len;
	h.cpu_flags = (enc.cpu & PF_CPU_MASK) | flags << 24;
	h.ts = enc.ts;
	memcpy(at, &h, sizeof(h));
	return tb_parts_commit(k, sizeof(h) + enc.len + (flags & PF_F_MORE ? sizeof(m) : 0))
	       ? -1 : 0;
}

/* The one-thread loop's walk over one part, each event encoded: 0 or -1. */
static int pf_produce(void *ctx, void *p_ws, tb_session *p, tb_parts_sink *k, int *bad)
{
	const pf_jobs *pj = ctx;
	pf_worker *ws = p_ws;
	char msg[1024];
	for (;;) {
		tb_session_event ev;
		pf_more m;
		tb_error e;
		int rc;
		tb_status st = tb_session_next(p, &ev, &e);
		if (st == TB_END)
			return 0;
		memset(&m, 0, sizeof(m));
		if (st != TB_OK) { /* a page the session could not skip in place */
			if (tb_parts_page_error(k, pj->c->path, p, &e, bad))
				return -1;
			continue;
		}
		if (ev.kind == TB_SEV_DAMAGED) {
			snprintf(msg, sizeof(msg), "tracebound: %s: CPU %u, file offset %llu: %s (%s); "
				 "the page is skipped, its CPU's next bundle says lost_events\n",
				 pj->c->path, ev.cpu, (unsigned long long)ev.damage.offset,
				 ev.damage.what, tb_strerror(ev.damage.status));
			if (tb_parts_msg(k, msg))
				return -1;
			if (*bad < 1)
				*bad = 1;
			m.cpu = ev.cpu;
			m.buffer = ev.buffer;
			if (put_rec(k, PF_REC_LOST, 0, &m))
				return -1;
			continue;
		}
		rc = put_event(k, ws, &ev, &e);
		if (rc == -1)
			return -1;
		if (rc == -2) {
			(void)tb_parts_msg(k, "tracebound: out of memory\n");
			*bad = 2;
			return -1;
		}
		if (rc == -3) {
			/* the one-thread loop stops here: the main thread says why */
			m.what = e.what;
			(void)put_rec(k, PF_REC_FAIL, (uint64_t)e.status, &m);
			return -1;
		}
	}
}

/* The main thread: the records placed in order.  0, or -1 (pj->st says). */
static int pf_consume(void *ctx, const uint8_t *p, size_t n)
{
	pf_jobs *pj = ctx;
	while (n) {
		pf_head h;
		pf_more m;
		unsigned flags;
		size_t size;
		tb_status st;
		if (n < sizeof(h))
			goto cut;
		memcpy(&h, p, sizeof(h));
		flags = h.cpu_flags >> 24;
		size = sizeof(h) + (flags & PF_F_MORE ? sizeof(m) : 0);
		if (n < size || h.len > n - size)
			goto cut;
		if (flags & PF_F_MORE) {
			memcpy(&m, p + sizeof(h) + h.len, sizeof(m));
		} else {
			memset(&m, 0, sizeof(m));
			m.cpu = h.cpu_flags & PF_CPU_MASK;
		}
		if (PF_F_KIND(flags) == PF_REC_EVENT) {
			tb_pf_encoded enc;
			enc.data = p + sizeof(h);
			enc.len = h.len;
			enc.ts = h.ts;
			enc.missed = m.missed;
			enc.cpu = m.cpu;
			enc.buffer = m.buffer;
			enc.kind = PF_F_ENC(flags);
			enc.dropped_fields = m.dropped;
			enc.bad_fields = m.bad;
			st = tb_pf_place(pj->w, &enc, &pj->e);
		} else if (PF_F_KIND(flags) == PF_REC_LOST) {
			st = tb_pf_lost(pj->w, m.buffer, m.cpu, &pj->e);
		} else {
			st = (tb_status)h.ts;
			pj->e.status = st;
			pj->e.offset = 0;
			pj->e.what = m.what;
		}
		if (st != TB_OK) {
			pj->st = st;
			return -1;
		}
		p += size + h.len;
		n -= size + h.len;
	}
	return 0;
cut:
	pj->st = TB_ERR_ARG;
	pj->e.status = TB_ERR_ARG;
	pj->e.offset = 0;
	pj->e.what = "internal error: a queued record cut short";
	return -1;
}

static void pf_message(void *ctx, const char *msg)
{
	(void)ctx;
	fputs(msg, stderr);
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
				  "cores; 1: one thread; one trace.dat)" },
	{ 0, NULL, NULL, NULL, NULL },
};

int tb_convert_perfetto(int argc, char **argv)
{
	tb_pf_writer *w = NULL;
	tb_pf_config cfg;
	tb_cli_capture cap;
	raw_inputs in;
	raw_opts ro;
	tb_session_options sopt;
	pf_out out = { NULL, NULL, 0 };
	tb_error e;
	tb_status st;
	const tb_session_info *info;
	unsigned flags = 0;
	size_t b, ncpus = 1;
	int i, rc, verbose = 0, nin, id, npos = 0, jobs = tb_opts_default_jobs();
	tb_opts po;
	const char *v;
	uint64_t size;
	uint64_t damaged = 0, page_errors = 0;
	uint8_t *bundles = NULL, *scratch = NULL;
	const char *outpath;
	memset(&cap, 0, sizeof(cap));
	memset(&in, 0, sizeof(in));
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
		rc = open_raw(&cap, &in, &ro, argv + i + 1, nin, &sopt);
	else
		rc = open_dat(&cap, argv[i + 1], &sopt);
	if (rc) {
		if (ro.events)
			raw_free(&in);
		if (cap.s)
			tb_session_close(cap.s);
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
		const tb_session_buffer_info *b0 = tb_session_buffer(cap.s, 0);
		clock_name(b0 && b0->clock.len ? b0->clock : info->clock, &cfg.clock, &cfg.clock_len);
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
	if (jobs > 1 && !ro.events) {
		/* the parts on `jobs` threads, placed in order (see the top) */
		pf_jobs pj;
		tb_parts_hooks h;
		int r;
		memset(&pj, 0, sizeof(pj));
		pj.c = &cap;
		pj.w = w;
		pj.flags = flags;
		pj.big_endian = info->big_endian;
		memset(&h, 0, sizeof(h));
		h.ctx = &pj;
		h.worker_new = pf_worker_new;
		h.worker_free = pf_worker_free;
		h.produce = pf_produce;
		h.consume = pf_consume;
		h.message = pf_message;
		r = tb_parts_run(&cap, jobs, &h);
		if (pj.st != TB_OK) {
			st = pj.st;
			e = pj.e;
			goto failed;
		}
		if (r == 2) {
			rc = TB_EXIT_USAGE; /* out of memory, said */
			goto done;
		}
		if (r >= 0) {
			damaged = r == 1;
			goto finish;
		}
	}
	for (;;) {
		tb_session_event ev;
		st = tb_session_next(cap.s, &ev, &e);
		if (st == TB_END)
			break;
		if (st != TB_OK) { /* a page the session could not skip in place */
			tb_cli_print_page_error(&cap, &e);
			page_errors++;
			continue;
		}
		if (ev.kind == TB_SEV_DAMAGED) {
			damaged++;
			fprintf(stderr, "tracebound: %s: CPU %u, file offset %llu: %s (%s); the page is "
				"skipped, its CPU's next bundle says lost_events\n", cap.path, ev.cpu,
				(unsigned long long)ev.damage.offset, ev.damage.what,
				tb_strerror(ev.damage.status));
		}
		do
			st = grow_retry(w, &scratch, tb_pf_session_event(w, &ev, &e));
		while (st == TB_NEED_MORE);
		if (st != TB_OK)
			goto failed;
	}
finish:
	if (tb_pf_finish(w, &e) != TB_OK)
		goto failed;
	if (fflush(out.f) != 0) {
		out.err = errno;
		goto failed;
	}
	/* damage outside the pages too (a table, a format, CPU data cut
	 * short: said when the capture opened), as report and parquet do */
	rc = damaged || page_errors || tb_session_ndamage(cap.s) ? TB_EXIT_MALFORMED : TB_EXIT_OK;
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
	if (ro.events) {
		tb_session_close(cap.s);
		raw_free(&in);
	} else {
		tb_cli_capture_close(&cap);
	}
	return rc;
}
