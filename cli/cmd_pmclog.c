/*
 * tracebound pmclog [--json] [--addr-size 4|8] [--stop-at-closelog] FILE|-
 *
 * Prints a FreeBSD hwpmc log one record per line, named as `pmcstat -R`
 * names them, or as JSON lines: the library renders each record
 * (tb_pmclog_text, tb_pmclog_json).  The input is fed to the decoder as a
 * stream (a pipe works; nothing is loaded whole), which is the fd mode of
 * libpmc's pmclog_open(fd) kept out of the library: a regular file is
 * mapped and fed whole (no copy), anything else is read in 256 KiB
 * pieces.  With --jobs N (a mapped file), the records are rendered on N
 * threads and written in order (pmclog_jobs below).
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "opts.h"

#define READ_CHUNK (256u * 1024u)
#define OUT_CAP (1024u * 1024u)

/*
 * Rendered records waiting for one fwrite.  The one-thread loop's buffer
 * goes out when a record does not fit and whenever the input runs dry
 * (so a pipe fed slowly still shows each record as it comes); a --jobs
 * batch's buffer grows instead, and the main thread writes it in order.
 * A failed write (or growth) is kept: the loop stops and the command
 * exits 2.
 */
typedef struct outbuf {
	char *buf;
	size_t len, cap;
	int grow;   /* 1: make room by growing (a --jobs batch), else by writing */
	int failed; /* errno of the failed write, or -1 when errno said nothing */
} outbuf;

static void out_flush(outbuf *o)
{
	if (o->len && !o->failed) {
		errno = 0;
		if (fwrite(o->buf, 1, o->len, stdout) != o->len || fflush(stdout) != 0)
			o->failed = errno ? errno : -1;
	}
	o->len = 0;
}

/* One record rendered by the library behind o->len; where it does not
 * fit, the buffer is written out, or grown to the size the text said. */
static void out_record(outbuf *o, const tb_pmclog_event *ev, int json)
{
	while (!o->failed) {
		tb_text t;
		size_t cap = o->cap ? o->cap : OUT_CAP;
		char *b;
		tb_text_init(&t, o->buf ? o->buf + o->len : NULL, o->cap - o->len);
		if (json)
			tb_pmclog_json(&t, ev);
		else
			tb_pmclog_text(&t, ev);
		if (!tb_text_truncated(&t)) {
			o->len += t.len;
			return;
		}
		if (!o->grow && o->len) {
			out_flush(o);
			continue;
		}
		while (cap - o->len <= t.need)
			cap *= 2;
		b = realloc(o->buf, cap);
		if (!b)
			o->failed = ENOMEM;
		else
			o->buf = b, o->cap = cap;
	}
}

/*
 * The one-thread loop: decode p, fed from in, and print each record into
 * out, which goes out whenever the input runs dry.  Returns the status
 * that ended it: TB_END or an error (in *err), TB_NEED_MORE when a read
 * failed (said), or TB_OK when a write failed (in out->failed).
 */
static tb_status pmclog_loop(tb_pmclog *p, int json, tb_cli_input *in, tb_error *err,
			     uint64_t *nrecords, outbuf *out)
{
	tb_pmclog_event ev;
	while (!out->failed) {
		const uint8_t *b;
		size_t n;
		tb_status st = tb_pmclog_next(p, &ev, err);
		if (st == TB_OK) {
			++*nrecords;
			out_record(out, &ev, json);
			continue;
		}
		/* Whatever comes next may wait or end: what is decoded goes out. */
		out_flush(out);
		if (st != TB_NEED_MORE || out->failed)
			return out->failed ? TB_OK : st;
		if (tb_cli_input_piece(in, READ_CHUNK, &b, &n) != 0)
			return TB_NEED_MORE;
		if (n == 0)
			tb_pmclog_close(p);
		else if (tb_pmclog_feed(p, b, n) != TB_OK)
			abort(); /* next() said the last feed was used up */
	}
	return TB_OK;
}

/*
 * --jobs N, for a mapped log: the main thread decodes (the mapping is fed
 * whole, so every event points into it, and it outlives the run) into a
 * ring of batches; N - 1 workers, and the main thread whenever it would
 * wait, render the batches in order, each into its own growing buffer;
 * the main thread writes them in order.  The bytes are the one-thread
 * loop's; memory is PJ_SLOTS batches, each bounded by PJ_BYTES of input.
 */
#define PJ_EVENTS 1024u         /* events in a batch at most */
#define PJ_BYTES (256u * 1024u) /* a batch ends after this much input */
#define PJ_SLOTS 8u             /* batches between decoding and writing */

typedef struct pj_batch {
	tb_pmclog_event ev[PJ_EVENTS];
	uint32_t n;
	int done;   /* rendered (under mu) */
	outbuf out; /* grows; written by the main thread */
} pj_batch;

typedef struct pj_shared {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pj_batch *b;                     /* batch k sits in b[k % PJ_SLOTS] */
	uint64_t filled, taken, written; /* batches decoded, taken, written */
	int json, stop;
} pj_shared;

/* Render the next batch not taken, if any (mu held; released meanwhile). */
static int pj_take(pj_shared *sh)
{
	pj_batch *b;
	uint32_t i;
	if (sh->taken == sh->filled)
		return 0;
	b = &sh->b[sh->taken++ % PJ_SLOTS];
	pthread_mutex_unlock(&sh->mu);
	for (i = 0; i < b->n; i++)
		out_record(&b->out, &b->ev[i], sh->json);
	pthread_mutex_lock(&sh->mu);
	b->done = 1;
	pthread_cond_broadcast(&sh->cv);
	return 1;
}

static void *pj_worker(void *arg)
{
	pj_shared *sh = arg;
	pthread_mutex_lock(&sh->mu);
	while (!sh->stop)
		if (!pj_take(sh))
			pthread_cond_wait(&sh->cv, &sh->mu);
	pthread_mutex_unlock(&sh->mu);
	return NULL;
}

/* Write the next batch if it is rendered (mu held; released for the
 * write), a failure kept in out; else render one, or wait. */
static void pj_step(pj_shared *sh, outbuf *out)
{
	pj_batch *b = &sh->b[sh->written % PJ_SLOTS];
	if (sh->written < sh->filled && b->done) {
		pthread_mutex_unlock(&sh->mu);
		out_flush(&b->out);
		if (b->out.failed)
			out->failed = b->out.failed;
		pthread_mutex_lock(&sh->mu);
		b->done = 0;
		sh->written++;
	} else if (!pj_take(sh)) {
		pthread_cond_wait(&sh->cv, &sh->mu);
	}
}

/* Decode the whole log in p (opened on the mapping) on `jobs` threads:
 * the status that ended the decoding (TB_END or an error, in *err), the
 * records in *nrecords; a write error or a lack of memory in out->failed. */
static tb_status pmclog_jobs(tb_pmclog *p, int json, int jobs, tb_error *err,
			     uint64_t *nrecords, outbuf *out)
{
	pj_shared sh;
	pthread_t th[TB_MAX_JOBS];
	int nth = 0, k;
	tb_status st = TB_OK;
	memset(&sh, 0, sizeof(sh));
	sh.json = json;
	sh.b = calloc(PJ_SLOTS, sizeof(*sh.b));
	if (!sh.b) {
		out->failed = ENOMEM;
		return TB_END;
	}
	for (k = 0; k < (int)PJ_SLOTS; k++)
		sh.b[k].out.grow = 1;
	pthread_mutex_init(&sh.mu, NULL);
	pthread_cond_init(&sh.cv, NULL);
	while (nth < jobs - 1 && pthread_create(&th[nth], NULL, pj_worker, &sh) == 0)
		nth++;
	pthread_mutex_lock(&sh.mu);
	while (st == TB_OK && !out->failed) {
		pj_batch *b = &sh.b[sh.filled % PJ_SLOTS];
		if (sh.filled - sh.written == PJ_SLOTS) { /* the ring is full */
			pj_step(&sh, out);
			continue;
		}
		pthread_mutex_unlock(&sh.mu);
		for (b->n = 0; b->n < PJ_EVENTS; b->n++) {
			const tb_pmclog_event *ev = &b->ev[b->n];
			if ((st = tb_pmclog_next(p, &b->ev[b->n], err)) != TB_OK)
				break;
			if (ev->offset + ev->len - b->ev[0].offset >= PJ_BYTES) {
				b->n++;
				break;
			}
		}
		*nrecords += b->n;
		pthread_mutex_lock(&sh.mu);
		if (b->n) {
			sh.filled++;
			pthread_cond_broadcast(&sh.cv);
		}
	}
	while (!out->failed && sh.written < sh.filled)
		pj_step(&sh, out);
	sh.stop = 1;
	pthread_cond_broadcast(&sh.cv);
	pthread_mutex_unlock(&sh.mu);
	for (k = 0; k < nth; k++)
		pthread_join(th[k], NULL);
	for (k = 0; k < (int)PJ_SLOTS; k++)
		free(sh.b[k].out.buf);
	free(sh.b);
	pthread_cond_destroy(&sh.cv);
	pthread_mutex_destroy(&sh.mu);
	return st;
}

static const tb_opt pmclog_options[] = {
	{ TB_OPT_JSON, "--json", NULL, NULL, "one JSON object per record" },
	{ 1, "--stop-at-closelog", NULL, NULL, "stop at the first CLOSELOG record" },
	{ TB_OPT_ADDR_SIZE, "--addr-size", NULL, "4|8", "address width (default: guessed from INITIALIZE)" },
	{ TB_OPT_JOBS, "--jobs", "-j", "N", "format on N threads, output unchanged (default: the machine's cores; 1: one thread; a file, not a pipe)" },
	{ 0, NULL, NULL, NULL, NULL },
};

int tb_cmd_pmclog(int argc, char **argv)
{
	tb_pmclog_options opt;
	tb_pmclog *p;
	tb_error err;
	tb_status st;
	outbuf out;
	tb_cli_input in;
	int json, rc;
	uint64_t nrecords = 0;
	tb_opts po;
	tb_opts_init(&po, "pmclog", "[OPTIONS] FILE|-", pmclog_options, argc, argv);
	if ((rc = tb_opts_parse(&po, "input file")) >= 0)
		return rc;
	memset(&opt, 0, sizeof(opt));
	memset(&out, 0, sizeof(out));
	opt.addr_size = po.v.addr_size;
	opt.flags = po.own[1] ? TB_PMCLOG_STOP_AT_CLOSELOG : 0;
	json = po.v.json;
	rc = TB_EXIT_OK;
	if (tb_cli_input_open(&in, argv[1]) != 0)
		return TB_EXIT_USAGE;
	p = malloc(sizeof(*p));
	if (!p) {
		fprintf(stderr, "tracebound: out of memory\n");
		tb_cli_input_close(&in);
		return TB_EXIT_USAGE;
	}
	if (po.v.jobs > 1 && in.fd < 0) {
		/* a mapping, fed whole: every event points into it */
		const uint8_t *b;
		size_t n;
		(void)tb_cli_input_piece(&in, 0, &b, &n);
		if (tb_pmclog_open_buffer(p, &opt, b, n) != TB_OK)
			abort(); /* a fresh decoder takes any buffer */
		st = pmclog_jobs(p, json, po.v.jobs, &err, &nrecords, &out);
	} else {
		tb_pmclog_init(p, &opt);
		st = pmclog_loop(p, json, &in, &err, &nrecords, &out);
	}
	if (st == TB_END && nrecords == 0 && !out.failed) {
		fprintf(stderr, "tracebound: %s: empty input (no pmclog records)\n", in.name);
		rc = TB_EXIT_MALFORMED;
	} else if (st == TB_NEED_MORE) {
		rc = TB_EXIT_USAGE; /* a read failed, said by tb_cli_input_piece */
	} else if (st != TB_END && !out.failed) {
		fprintf(stderr, "tracebound: %s: offset %" PRIu64 ": %s: %s\n", in.name,
			err.offset, tb_strerror(err.status), err.what);
		rc = TB_EXIT_MALFORMED;
	}
	out_flush(&out);
	if (out.failed) {
		fprintf(stderr, "tracebound: write error: %s\n",
			out.failed > 0 ? strerror(out.failed) : "short write");
		rc = TB_EXIT_USAGE;
	}
	tb_cli_input_close(&in);
	free(out.buf);
	free(p);
	return rc;
}
