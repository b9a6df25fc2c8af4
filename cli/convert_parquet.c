/*
 * tracebound convert --to parquet [--text] DATASET FILE.dat...
 * tracebound convert --to parquet [--text] --events DIR [--header-page FILE]
 *                                  DATASET cpuN.raw...
 *
 * Every event of each capture as typed Parquet tables (docs/parquet.md),
 * added to the dataset DATASET as the partition DATASET/trace_id=ID
 * (dataset.h: staged, then one rename): SYSTEM-EVENT.parquet per event
 * format that has events, events.parquet over all events,
 * metadata.parquet (one row) and metadata.json.
 * The library writes the tables (pq_session.h), host/ gives it the files
 * and the compressor and runs it on one or two threads (pq_dir.h); this
 * file walks the capture and says what the walk met.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture.h"
#include "dataset.h"
#include "opts.h"
#include "pq_dir.h"

/* The walk's own: the capture and --text's rendering. */
typedef struct pq_walk {
	tb_cli_capture *c;
	tb_cli_line line;
	uint64_t bad_pages;
	int malformed;            /* a page did not read, or damage */
} pq_walk;

static void say_error(void *ctx, const char *path, const char *what, int err)
{
	(void)ctx;
	fprintf(stderr, "tracebound: %s: %s%s%s\n", path, what, err ? ": " : "",
		err ? strerror(err) : "");
}

static int render_text(void *ctx, const tb_session_event *ev, const char **text, size_t *len)
{
	pq_walk *wk = ctx;
	if (tb_cli_render(wk->c, ev, TB_TEXT_PRINT, &wk->line) != 0)
		return -1;
	*text = wk->line.p;
	*len = wk->line.len;
	return 0;
}

/* Walk the capture into w, and say what the walk met on stderr, as it
 * meets it. */
static void walk(tb_host_pq *w, pq_walk *wk, const char *path)
{
	tb_session_event ev;
	tb_error e;
	tb_status st;
	uint64_t seen = 0;
	int progress = isatty(2);
	while (!tb_host_pq_failed(w) && (st = tb_session_next(wk->c->s, &ev, &e)) != TB_END) {
		if (st != TB_OK) {
			wk->bad_pages++;
			wk->malformed = 1;
			tb_cli_print_page_error(wk->c, &e);
			continue;
		}
		if (progress && (seen & 0xfffff) == 0 && seen)
			fprintf(stderr, "\r%s: %llu events", path, (unsigned long long)seen);
		seen++;
		(void)tb_host_pq_event(w, &ev);
	}
	if (progress && seen > 0xfffff)
		fprintf(stderr, "\r\n");
	/* tables or formats that did not parse: said on stderr, malformed */
	tb_cli_print_damage(wk->c, stderr);
	if (tb_session_ndamage(wk->c->s))
		wk->malformed = 1;
}

/* Convert the opened capture c into dir (c is closed here): on two
 * threads when jobs > 1 (pq_dir.h).  src, id: for the metadata. */
static int convert_capture(tb_cli_capture *cp, const char *dir, const char *path, int text,
			   int jobs, const char *src, const char *id)
{
	tb_cli_capture c = *cp;
	pq_walk wk = { &c, { NULL, 0, 0 }, 0, 0 };
	tb_host_pq_config cfg = { dir, src, text, jobs, &wk, say_error, render_text };
	tb_host_pq *w;
	int failed = 1;
	if (tb_host_pq_open(&w, c.s, &cfg) == 0) {
		tb_pq_session_meta meta = { src, id, c.raw, c.nraw, 0, NULL, NULL };
		walk(w, &wk, path);
		meta.bad_pages = wk.bad_pages;
		failed = tb_host_pq_finish(w, &meta) != 0;
	}
	tb_host_pq_close(w);
	free(wk.line.p);
	tb_cli_capture_close(&c);
	memset(cp, 0, sizeof(*cp));
	if (failed)
		return TB_EXIT_USAGE;
	return wk.malformed ? TB_EXIT_MALFORMED : TB_EXIT_OK;
}

/* The opened capture c (closed here) as the upload id of the dataset
 * root: staged, converted, published (dataset.h).  An upload already
 * there is left as it is. */
static int convert_upload(tb_cli_capture *c, const char *root, const char *path,
			  const char *id, int text, int jobs)
{
	tb_ds_stage st;
	const char *name = strcmp(path, "-") ? path : "(stdin)";
	char *src = strcmp(path, "-") ? tb_ds_abspath(path) : NULL;
	int rc, present = tb_ds_present(root, id);
	if (present) {
		rc = TB_EXIT_OK;
		tb_cli_capture_close(c);
	} else if (tb_ds_stage_begin(&st, root, id)) {
		rc = TB_EXIT_USAGE;
		tb_cli_capture_close(c);
	} else {
		rc = convert_capture(c, st.dir, path, text, jobs, src ? src : name, id);
		/* a malformed capture's tables are whole: what could be read */
		if (rc == TB_EXIT_OK || rc == TB_EXIT_MALFORMED) {
			present = tb_ds_stage_publish(&st);
			if (present < 0)
				rc = TB_EXIT_USAGE;
		}
		tb_ds_stage_end(&st);
	}
	/* the same bytes again (here, or by a convert running beside this
	 * one): the partition stays as it is */
	if (present > 0)
		fprintf(stderr, "tracebound: %s: already in %s as trace_id=%s\n", name, root, id);
	if (rc == TB_EXIT_OK || rc == TB_EXIT_MALFORMED)
		printf("trace_id=%s\t%s\n", id, name);
	free(src);
	return rc;
}

/* The upload's trace id (dataset.h): a file's bytes as stored (trace.dat,
 * perf.data), or a folder's parts as the library's source found them. */
static void capture_trace_id(const tb_cli_capture *c, char id[TB_TRACE_ID_LEN + 1])
{
	if (c->host)
		tb_trace_id_source(&c->host->source.src, id);
	else
		tb_trace_id_dat(c->f.data, c->f.len, id);
}

static int convert_dat(const char *root, const char *path, int text, int jobs)
{
	tb_session_options so = { 0, 0 };
	tb_cli_capture c;
	char id[TB_TRACE_ID_LEN + 1];
	int rc;
	/* damage outside the events is listed after the walk, when the
	 * formats met on the way have been parsed too */
	if ((rc = tb_cli_capture_open(&c, path, &so, NULL)) != 0)
		return rc;
	capture_trace_id(&c, id);
	return convert_upload(&c, root, path, id, text, jobs);
}

/* ---- raw dumps: the library's source rule (source.h) ---- */

static int convert_raw(const char *dir, const char *events, const char *hp_path,
		       char **files, int nfiles, int text, int jobs)
{
	tb_session_options so = { 0, 0 };
	tb_source_desc d;
	tb_cli_capture c;
	char id[TB_TRACE_ID_LEN + 1];
	int rc;
	memset(&d, 0, sizeof(d));
	d.dumps = (const char *const *)files;
	d.ndumps = (size_t)nfiles;
	d.events = events;
	d.header_page = hp_path;
	if ((rc = tb_cli_capture_open_source(&c, &d, &so, NULL)) != 0) {
		tb_cli_capture_close(&c);
		return rc;
	}
	capture_trace_id(&c, id);
	return convert_upload(&c, dir, files[0], id, text, jobs);
}

static const tb_opt parquet_options[] = {
	{ 1, "--text", NULL, NULL, "add the rendered text column" },
	{ TB_OPT_EVENTS, "--events", NULL, "DIR", "event formats for raw cpuN.raw inputs" },
	{ TB_OPT_HEADER_PAGE, "--header-page", NULL, "FILE", "the sub-buffer layout of raw inputs" },
	{ TB_OPT_JOBS, "--jobs", "-j", "N", "write on 2 threads when N > 1, files unchanged (default: the machine's cores)" },
	TB_CLI_MAX_MEMORY_OPT,
	{ 0, NULL, NULL, NULL, NULL },
};

int tb_convert_parquet(int argc, char **argv)
{
	int i = 1, text, rc, nfiles, k, jobs;
	tb_opts po;
	const char *outdir, *events, *hp;
	tb_opts_init(&po, "convert --to parquet",
		     "[--text] DATASET FILE.dat...\n"
		     "       tracebound convert --to parquet [--text] --events DIR "
		     "[--header-page FILE] DATASET cpuN.raw...",
		     parquet_options, argc, argv);
	if ((rc = tb_opts_parse(&po, NULL)) >= 0)
		return rc;
	rc = TB_EXIT_OK;
	text = po.own[1] != NULL;
	events = po.v.events;
	hp = po.v.header_page;
	jobs = po.v.jobs;
	argc = po.npos + 1;
	if (argc - i < 2)
		return tb_opts_usage(&po);
	outdir = argv[i++];
	nfiles = argc - i;
	if (tb_ds_mkdir_p(outdir)) {
		fprintf(stderr, "tracebound: %s: cannot create: %s\n", outdir, strerror(errno));
		return TB_EXIT_USAGE;
	}
	if (events) {
		/* the dumps are one upload */
		rc = convert_raw(outdir, events, hp, argv + i, nfiles, text, jobs);
	} else {
		for (k = 0; k < nfiles; k++) {
			int r = convert_dat(outdir, argv[i + k], text, jobs);
			if (r > rc)
				rc = r;
		}
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "tracebound: stdout: write failed: %s\n", strerror(errno));
		rc = TB_EXIT_USAGE;
	}
	return rc;
}
