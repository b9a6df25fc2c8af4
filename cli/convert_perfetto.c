/*
 * tracebound convert --to perfetto [--lossless] [--generic] OUT FILE.dat
 *
 * The capture as a Perfetto protobuf trace (lib/perfetto.c does the
 * encoding; see docs/perfetto.md).  OUT "-" is standard output.  Memory
 * stays constant: one bundle per CPU and one event's scratch.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "datfile.h"

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
		return TB_ERR_ARG;
	}
	return TB_OK;
}

typedef struct pf_ctx {
	tb_pf_writer *w;
	tb_datfile *df;
	pf_out *out;
	uint8_t *scratch;
	size_t scratch_size;
	uint32_t buffer;
	uint64_t page_errors;
	int failed;              /* 2: output or memory failed: stop */
} pf_ctx;

static void pf_fail_output(pf_ctx *c)
{
	if (!c->failed)
		fprintf(stderr, "tracebound: %s: %s\n", c->out->path,
			c->out->err ? strerror(c->out->err) : "write failed");
	c->failed = 2;
}

static void on_event(void *ctx, const tb_dat_event *ev, const tb_format *f)
{
	pf_ctx *c = ctx;
	tb_pf_record r;
	tb_error e;
	tb_status s;
	const tb_field *pid;
	uint64_t v = 0;
	if (c->failed)
		return;
	memset(&r, 0, sizeof(r));
	r.cpu = ev->cpu;
	r.buffer = c->buffer;
	r.ts = ev->ts;
	r.missed = ev->missed;
	r.format = f;
	r.data = ev->data;
	r.len = ev->len;
	if (f && (pid = tb_format_field(f, "common_pid")) != NULL &&
	    tb_field_int(pid, ev->data, ev->len, c->df->d.big_endian, &v, &e) == TB_OK)
		r.pid = (int32_t)v;
	if (!f && ev->len >= 2)
		r.id = tb_load16(ev->data, c->df->d.big_endian);
	while ((s = tb_pf_add(c->w, &r, &e)) == TB_ERR_NO_SPACE) {
		size_t want = c->w->need + 1024;
		uint8_t *nb = realloc(c->scratch, want);
		if (!nb) {
			fprintf(stderr, "tracebound: out of memory\n");
			c->failed = 2;
			return;
		}
		c->scratch = nb;
		c->scratch_size = want;
		tb_pf_set_scratch(c->w, nb, want);
	}
	if (s != TB_OK)
		pf_fail_output(c);
}

static void on_error(void *ctx, uint32_t cpu, uint64_t page, tb_status st, const tb_error *e)
{
	pf_ctx *c = ctx;
	tb_error e2;
	(void)page;
	c->page_errors++;
	if (cpu == UINT32_MAX)
		fprintf(stderr, "tracebound: %s: %s at file offset %llu (%s)\n", c->df->path,
			e->what, (unsigned long long)e->offset, tb_strerror(st));
	else {
		fprintf(stderr, "tracebound: %s: CPU %u: %s at file offset %llu (%s); "
			"the page is skipped, its CPU's next bundle says lost_events\n",
			c->df->path, cpu, e->what, (unsigned long long)e->offset,
			tb_strerror(st));
		if (!c->failed && tb_pf_lost(c->w, c->buffer, cpu, &e2) != TB_OK)
			pf_fail_output(c);
	}
}

/* The clock in use: the bracketed name of a trace_clock text, else its
 * first word ("[local] global counter" -> "local"). */
static void clock_name(const tb_dat *d, const char **name, size_t *len)
{
	const tb_dat_text *t = d->trace_clock.len ? &d->trace_clock : &d->v6_clock;
	const char *s = t->ptr, *b, *e;
	size_t n = t->len;
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

int tb_convert_perfetto(const char *target, int argc, char **argv)
{
	tb_pf_writer *w = NULL;
	tb_pf_config cfg;
	tb_datfile df;
	pf_out out = { NULL, NULL, 0 };
	pf_ctx c;
	tb_error e;
	unsigned flags = 0;
	size_t b, ncpus = 1;
	int i, rc, verbose = 0;
	uint8_t *bundles = NULL;
	const char *in = NULL, *outpath = NULL;
	(void)target;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--lossless"))
			flags |= TB_PF_LOSSLESS;
		else if (!strcmp(argv[i], "--generic"))
			flags |= TB_PF_ALL_GENERIC;
		else if (!strcmp(argv[i], "-v") || !strcmp(argv[i], "--verbose"))
			verbose = 1;
		else if (argv[i][0] == '-' && argv[i][1] && strcmp(argv[i], "--"))
			break;
		else {
			if (!strcmp(argv[i], "--"))
				i++;
			break;
		}
	}
	if (argc - i != 2) {
		fprintf(stderr, "usage: tracebound convert --to perfetto [--lossless] [--generic] "
			"[-v] OUT FILE.dat\n");
		return TB_EXIT_USAGE;
	}
	outpath = argv[i];
	in = argv[i + 1];
	rc = tb_datfile_open(&df, in, stderr, 1);
	if (rc) {
		tb_datfile_perror(&df);
		tb_datfile_close(&df);
		return rc < 0 ? TB_EXIT_USAGE : rc;
	}
	for (b = 0; b < df.d.nbuffers; b++)
		if (df.d.buffers[b].ncpus > ncpus)
			ncpus = df.d.buffers[b].ncpus;
	if (ncpus > TB_PF_MAX_SLOTS)
		ncpus = TB_PF_MAX_SLOTS;
	memset(&c, 0, sizeof(c));
	c.scratch_size = TB_PF_DEFAULT_SCRATCH;
	c.scratch = malloc(c.scratch_size);
	bundles = malloc(ncpus * TB_PF_DEFAULT_BUNDLE);
	w = malloc(sizeof(*w));
	if (!c.scratch || !bundles || !w) {
		fprintf(stderr, "tracebound: out of memory\n");
		rc = TB_EXIT_USAGE;
		goto done;
	}
	out.path = strcmp(outpath, "-") ? outpath : "(stdout)";
	out.f = strcmp(outpath, "-") ? fopen(outpath, "wb") : stdout;
	if (!out.f) {
		fprintf(stderr, "tracebound: %s: %s\n", outpath, strerror(errno));
		rc = TB_EXIT_USAGE;
		goto done;
	}
	memset(&cfg, 0, sizeof(cfg));
	cfg.write = pf_write;
	cfg.ctx = &out;
	cfg.bundles = bundles;
	cfg.nslots = ncpus;
	cfg.bundle_size = TB_PF_DEFAULT_BUNDLE;
	cfg.scratch = c.scratch;
	cfg.scratch_size = c.scratch_size;
	cfg.big_endian = df.d.big_endian;
	cfg.flags = flags;
	clock_name(&df.d, &cfg.clock, &cfg.clock_len);
	if (tb_pf_init(w, &cfg, &e) != TB_OK) {
		fprintf(stderr, "tracebound: %s\n", e.what);
		rc = TB_EXIT_USAGE;
		goto done;
	}
	c.w = w;
	c.df = &df;
	c.out = &out;
	for (;;) {
		tb_status s = tb_pf_threads(w, &df.cmd, &e);
		if (s == TB_OK)
			break;
		if (s == TB_ERR_NO_SPACE) {
			uint8_t *nb = realloc(c.scratch, w->need + 1024);
			if (nb) {
				c.scratch = nb;
				c.scratch_size = w->need + 1024;
				tb_pf_set_scratch(w, nb, c.scratch_size);
				continue;
			}
			fprintf(stderr, "tracebound: out of memory\n");
		} else {
			pf_fail_output(&c);
		}
		rc = TB_EXIT_USAGE;
		goto done;
	}
	{
		tb_datwalk_ops ops = { on_event, on_error, &c };
		for (b = 0; b < df.d.nbuffers && !c.failed; b++) {
			c.buffer = (uint32_t)b;
			if (tb_datfile_walk(&df, &df.d.buffers[b], 0, &ops, NULL)) {
				c.failed = 2;
				break;
			}
		}
	}
	if (!c.failed && tb_pf_finish(w, &e) != TB_OK)
		pf_fail_output(&c);
	if (!c.failed && fflush(out.f) != 0) {
		out.err = errno;
		pf_fail_output(&c);
	}
	rc = c.failed ? TB_EXIT_USAGE : c.page_errors ? TB_EXIT_MALFORMED : TB_EXIT_OK;
	if (w->stats.dropped_fields && !c.failed)
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
done:
	if (out.f && out.f != stdout && fclose(out.f) != 0 && rc != TB_EXIT_USAGE) {
		fprintf(stderr, "tracebound: %s: %s\n", outpath, strerror(errno));
		rc = TB_EXIT_USAGE;
	}
	free(w);
	free(bundles);
	free(c.scratch);
	tb_datfile_close(&df);
	return rc;
}
