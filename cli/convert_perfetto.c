/*
 * tracebound convert --to perfetto [OPTIONS] OUT FILE.dat
 * tracebound convert --to perfetto [OPTIONS] --events DIR OUT RAWFILE...
 *
 * The capture as a Perfetto protobuf trace.  The library session reads
 * the capture and lib/perfetto.c encodes each event (docs/perfetto.md);
 * this file only opens files, hands bytes to the output and reports.  OUT
 * "-" is standard output.  Memory stays constant however long the
 * capture (one bundle per CPU, one event's scratch: perfetto.h).
 *
 * Raw trace_pipe_raw dumps (cpuN.raw, or their folder as FILE) are found
 * by the library's one rule (source.h): --events DIR, else the folder's
 * events/; header_page, subbuf_kb and the tables beside the dumps.
 *
 * --jobs N (default: the online cores; one under 16 MiB) converts the parts
 * of one trace.dat on N threads, cut at times that do not depend on N
 * (host/pfjobs.h): the output is the same for every N.  Raw dumps and
 * captures the library cannot split run on one thread, without cuts.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "files.h"
#include "opts.h"
#include "pfjobs.h"

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

/* ---- the conversion (host/pfjobs.h) ---- */

/* What a page the session could not read, or a damaged one it skipped,
 * says on stderr, on one thread or several. */
static void say_page(void *ctx, char *buf, size_t n, const tb_session *p,
		     const tb_session_event *ev, const tb_error *e)
{
	const tb_cli_capture *c = ctx;
	if (e) {
		(void)tb_cli_format_page_error(buf, n, c, p, e);
		return;
	}
	snprintf(buf, n, "tracebound: %s: CPU %u, file offset %llu: %s (%s); the page is skipped, "
		 "its CPU's next bundle says lost_events\n", tb_cli_capture_path(c, ev->cpu),
		 ev->cpu, (unsigned long long)ev->damage.offset, ev->damage.what,
		 tb_strerror(ev->damage.status));
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
	{ TB_OPT_EVENTS, "--events", NULL, "DIR", "event formats for raw cpuN.raw inputs" },
	{ TB_OPT_HEADER_PAGE, "--header-page", NULL, "FILE", "the sub-buffer layout of raw inputs" },
	{ 6, "--clock", NULL, "CLOCK", "the trace clock of raw inputs" },
	{ TB_OPT_SUBBUF_SIZE, "--subbuf-size", NULL, "SIZE", "the sub-buffer size of raw inputs (16k)" },
	{ TB_OPT_JOBS, "--jobs", "-j", "N", "encode on N threads, output unchanged (default: the machine's "
				  "cores, one under 16 MiB; 1: one thread; one trace.dat)" },
	TB_CLI_MAX_MEMORY_OPT,
	{ 0, NULL, NULL, NULL, NULL },
};

int tb_convert_perfetto(int argc, char **argv)
{
	tb_pf_writer *w = NULL;
	tb_pf_config cfg;
	tb_cli_capture cap;
	tb_source_desc ro; /* raw dumps: the library's source rule (source.h) */
	tb_session_options sopt;
	pf_out out = { NULL, NULL, 0 };
	tb_pfjobs pj;
	tb_error e;
	tb_status st = TB_OK;
	unsigned flags = 0;
	int rc, r, verbose = 0, nin, id, npos = 0, jobs, jobs_given;
	tb_opts po;
	const char *v, *outpath;
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
		case 1: flags |= TB_PF_LOSSLESS; break;
		case 2: flags |= TB_PF_ALL_GENERIC; break;
		case 3: verbose = 1; break;
		case 6:
			ro.clock.ptr = v;
			ro.clock.len = strlen(v);
			break;
		default: argv[++npos] = (char *)(uintptr_t)v; break;
		}
	}
	ro.events = po.v.events;
	ro.header_page = po.v.header_page;
	ro.subbuf_size = po.v.subbuf_size;
	jobs = po.v.jobs;
	jobs_given = po.v.jobs_given;
	nin = npos - 1;
	if (nin < 1)
		return tb_opts_usage(&po);
	if (nin > 1 && !ro.events)
		return tb_opts_fail(&po, "a second input file '%s' (several inputs are raw "
				    "cpuN files, with --events)", argv[3]);
	outpath = argv[1];

	memset(&sopt, 0, sizeof(sopt));
	sopt.flags = TB_SESSION_SKIP_DAMAGED; /* damaged pages in place: a loss there */
	ro.dumps = (const char *const *)(argv + 2);
	ro.ndumps = (size_t)nin;
	if (ro.events)
		rc = tb_cli_capture_open_source(&cap, &ro, &sopt, stderr);
	else
		rc = tb_cli_capture_open(&cap, argv[2], &sopt, stderr);
	if (rc) {
		tb_cli_capture_close(&cap);
		return rc;
	}
	memset(&cfg, 0, sizeof(cfg));
	tb_pf_session_config(&cfg, cap.s);
	cfg.write = pf_write;
	cfg.ctx = &out;
	cfg.flags = flags;
	cfg.mem = &tb_host_heap; /* the writers' bundles and scratch, outside --max-memory */
	rc = TB_EXIT_USAGE;
	out.path = strcmp(outpath, "-") ? outpath : "(stdout)";
	if (!(w = calloc(1, sizeof(*w))) || (st = tb_pf_init(w, &cfg, &e)) != TB_OK) {
		fprintf(stderr, "tracebound: out of memory\n");
		goto done;
	}
	out.f = strcmp(outpath, "-") ? fopen(outpath, "wb") : stdout;
	if (!out.f) {
		fprintf(stderr, "tracebound: %s: %s\n", outpath, strerror(errno));
		goto done;
	}
	/* cuts may write a bundle (a loss) before the first event */
	if ((st = tb_pf_session_begin(w, cap.s, &e)) != TB_OK ||
	    (!cap.raw && (st = tb_pf_session_clock(w, cap.s, NULL, &e)) != TB_OK))
		goto failed;
	memset(&pj, 0, sizeof(pj));
	pj.w = w;
	pj.mem = &tb_cli_heap;
	pj.input_len = cap.f.len;
	pj.split = !cap.raw;
	pj.jobs = tb_opts_jobs_for(jobs, jobs_given, cap.f.len);
	pj.ctx = &cap;
	pj.say_page = say_page;
	pj.message = pf_message;
	if ((r = tb_pfjobs_run(cap.s, &pj, &e)) < 0) {
		st = e.status;
		goto failed;
	}
	if (r == 2)
		goto done; /* out of memory, said */
	if ((st = tb_pf_finish(w, &e)) != TB_OK)
		goto failed;
	if (fflush(out.f) != 0) {
		out.err = errno;
		goto failed;
	}
	/* damage outside the pages too (a table, a format, CPU data cut
	 * short: said when the capture opened), as report and parquet do */
	rc = r == 1 || tb_session_ndamage(cap.s) ? TB_EXIT_MALFORMED : TB_EXIT_OK;
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
	tb_pf_release(w);
	free(w);
	tb_cli_capture_close(&cap);
	return rc;
}
