/*
 * tracebound check FILE...: validate uploads completely.
 *
 * The library tells each file's kind from its first bytes and finds its
 * anomalies (check.h): a trace.dat or perf.data (a session), a FreeBSD
 * pmclog stream, or a raw trace_pipe_raw dump (its layout from
 * header_page / subbuf_kb beside the file, else 64-bit little-endian
 * 4 KiB); this command reads the input and says them.
 *
 * Every anomaly is printed with its location (section or CPU, file
 * offset), then one summary line per file; for a trace.dat a second line
 * says what decoding it needs (the session's memory, with every program
 * its events render through) against the budget (budget.h): what check
 * calls sound, report, stats and convert read within the same budget.
 * Exit 0 when every file is sound, 1 when any is malformed, 3 when one
 * is sound as far as read but over the budget (and none malformed), 2 on
 * usage or I/O errors.  --json writes one object per file on stdout and
 * the lines above on stderr.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture.h"
#include "opts.h"

#define CHECK_MAX_SHOWN 100

/* check --json: one object per file (schema below), the text on stderr. */
#define CHECK_SCHEMA_VERSION 1
static FILE *json_out;
/* check --jobs N: the need of a report or convert on N threads too */
static int check_jobs = 1;
static uint64_t need_jobs; /* that need, for the JSON of the file at hand */
static tb_cli_text check_text; /* the library's words, a line at a time */

/* A line of the library's words after "PATH: " (an anomaly when a is
 * given, else the summary of c or cs). */
static void line(const char *path, const tb_check_anomaly *a, const tb_session *s,
		 const tb_check *c, const tb_check_stream *cs)
{
	tb_cli_text *o = &check_text;
	printf("%s: ", path);
	if (a)
		TB_CLI_PRINT(o, stdout, tb_check_text(&o->t, a, s));
	else if (c)
		TB_CLI_PRINT(o, stdout, tb_check_summary(&o->t, c));
	else
		TB_CLI_PRINT(o, stdout, tb_check_stream_summary(&o->t, cs));
	putchar('\n');
}

/* The file's verdict as JSON (need and budget: trace.dat, else 0). */
static void json_verdict(const char *path, const char *kind, int rc, uint64_t events,
			 uint64_t anomalies, uint64_t need)
{
	if (!json_out)
		return;
	fprintf(json_out, "{\"schema_version\":%d,\"file\":", CHECK_SCHEMA_VERSION);
	tb_cli_json_str(json_out, path, strlen(path));
	fprintf(json_out,
		",\"kind\":\"%s\",\"verdict\":\"%s\",\"exit\":%d,\"events\":%llu,"
		"\"anomalies\":%llu,\"need\":%llu,\"budget\":%llu",
		kind,
		rc == TB_EXIT_OK ? "ok" : rc == TB_EXIT_BUDGET ? "over_budget"
				       : rc == TB_EXIT_MALFORMED ? "malformed" : "error",
		rc, (unsigned long long)events, (unsigned long long)anomalies,
		(unsigned long long)need, (unsigned long long)tb_cli_budget_limit());
	if (check_jobs > 1 && need_jobs)
		fprintf(json_out, ",\"jobs\":%d,\"need_jobs\":%llu", check_jobs,
			(unsigned long long)need_jobs);
	fputs("}\n", json_out);
	need_jobs = 0;
}

/* What decoding the capture needs after check's walk (every format's
 * programs its records render through), against the budget: 0 within,
 * else the message and TB_EXIT_BUDGET. */
static int check_need(const char *path, const tb_session *s, uint64_t *need, int *refused)
{
	tb_session_need nd;
	char msg[256];
	tb_session_need_get(s, &nd);
	*need = nd.total;
	*refused = nd.refused != NULL;
	if (nd.refused || nd.total > tb_cli_budget_limit()) {
		tb_cli_budget_note(nd.total, path);
		(void)tb_cli_budget_message(msg, sizeof(msg));
		printf("%s: trace.dat: %s\n", path, msg);
		return TB_EXIT_BUDGET;
	}
	printf("%s: decoding needs %llu bytes of memory, within the budget of %llu\n", path,
	       (unsigned long long)nd.total, (unsigned long long)tb_cli_budget_limit());
	if (check_jobs > 1) {
		/* report / convert --jobs N: what N parts take besides (the
		 * capture sound and within the budget on one thread, they fall
		 * back to fewer threads when N are over it) */
		tb_session_need_jobs(s, (size_t)check_jobs, &nd);
		need_jobs = nd.total;
		printf("%s: decoding on %d jobs needs %llu bytes of memory, %s the budget of %llu\n",
		       path, check_jobs, (unsigned long long)nd.total,
		       nd.total > tb_cli_budget_limit() ? "over" : "within",
		       (unsigned long long)tb_cli_budget_limit());
	}
	return TB_EXIT_OK;
}

static int check_dat_file(const char *path, const tb_cli_file *f)
{
	tb_session_options so = { 0, 0 };
	tb_cli_capture cap;
	tb_check it;
	tb_check_anomaly a;
	uint64_t need = 0;
	int rc, refused = 0, over;
	memset(&cap, 0, sizeof(cap));
	/* the file as report has it (CPU data read through its buffers), so
	 * that the need is report's; it stays ours to unload */
	cap.f = *f;
	rc = tb_cli_capture_open_mem(&cap, path, f->data, f->len, &so, NULL, stdout);
	if (rc == TB_EXIT_BUDGET) { /* said on stdout */
		json_verdict(path, "trace.dat", rc, 0, 0, tb_cli_budget_need());
		return rc;
	}
	if (rc) {
		printf("%s: trace.dat: MALFORMED\n", path);
		json_verdict(path, "trace.dat", rc, 0, 1, 0);
		return rc;
	}
	fflush(stderr);
	tb_check_init(&it, cap.s);
	while (tb_check_next(&it, &a) == TB_OK) {
		if (a.part == TB_CHECK_CAPTURE) /* all of them said */
			tb_cli_print_damage_one(&cap, a.damage, stdout);
		else if (it.anomalies <= CHECK_MAX_SHOWN)
			line(path, &a, cap.s, NULL, NULL);
	}
	if (it.anomalies > CHECK_MAX_SHOWN)
		printf("%s: ... %llu more anomalies not shown\n", path,
		       (unsigned long long)(it.anomalies - CHECK_MAX_SHOWN));
	line(path, NULL, NULL, &it, NULL);
	over = check_need(path, cap.s, &need, &refused);
	/* memory refused in the walk (a format's fields) makes anomalies of
	 * its own: the budget is the outcome then */
	rc = it.anomalies && !refused ? TB_EXIT_MALFORMED : over;
	json_verdict(path, "trace.dat", rc, it.events, it.anomalies, need);
	memset(&cap.f, 0, sizeof(cap.f));
	tb_cli_capture_close(&cap);
	return rc;
}

/* A trace.dat cannot stream (its metadata may sit anywhere): read whole. */
static int check_dat(const char *path, tb_cli_input *in)
{
	tb_cli_file f;
	int rc;
	rc = tb_cli_input_take(in, tb_cli_budget_read_limit(), &f);
	if (rc != 0)
		return rc == -2 ? TB_EXIT_BUDGET : TB_EXIT_USAGE;
	rc = check_dat_file(path, &f);
	tb_cli_unload(&f);
	return rc;
}

/* The layout of a raw dump by the library's rule (source.h: header_page,
 * subbuf_kb beside it, 4096); the common 64-bit little-endian 4 KiB one
 * when those texts cannot be used. */
static void raw_layout(const char *path, tb_kbuf_layout *l)
{
	tb_host_capture *hc = calloc(1, sizeof(*hc));
	tb_source_desc d;
	tb_error e;
	memset(&d, 0, sizeof(d));
	d.dumps = &path;
	d.ndumps = 1;
	d.flags = TB_SOURCE_NO_DUMPS;
	if (hc && tb_host_capture_open(hc, &d, &tb_cli_heap, TB_FMT_FILE_MAX, &e) == TB_OK)
		*l = hc->source.layout;
	else
		(void)tb_kbuf_layout_init(l, 0, 8, 4096, 0);
	if (hc)
		tb_host_capture_close(hc);
	free(hc);
}

/* A raw dump or a pmclog stream, checked as it is read: a pipe a piece
 * at a time, in constant memory. */
static int check_stream(const char *path, tb_check_stream *cs, tb_cli_input *in)
{
	tb_check_anomaly a;
	tb_status st;
	int rc;
	while ((st = tb_check_stream_next(cs, &a)) != TB_END) {
		const uint8_t *p;
		size_t n;
		if (st == TB_OK) {
			line(path, &a, NULL, NULL, NULL);
			continue;
		}
		if (tb_cli_input_piece(in, cs->piece, &p, &n) != 0)
			return TB_EXIT_USAGE;
		if (n == 0)
			tb_check_stream_close(cs);
		else if (tb_check_stream_feed(cs, p, n) != TB_OK)
			return TB_EXIT_USAGE; /* not after NEED_MORE */
	}
	line(path, NULL, NULL, NULL, cs);
	rc = cs->anomalies ? TB_EXIT_MALFORMED : TB_EXIT_OK;
	json_verdict(path, cs->kind == TB_CHECK_KIND_RAW ? "raw" : "pmclog", rc, cs->events,
		     cs->anomalies, 0);
	return rc;
}

static const tb_opt check_options[] = {
	{ TB_OPT_ADDR_SIZE, "--addr-size", NULL, "4|8", "pmclog address width (legacy 32-bit logs need 4)" },
	TB_CLI_MAX_MEMORY_OPT,
	{ TB_OPT_JSON, "--json", NULL, NULL, "one JSON object per file (schema_version 1): what a service reads" },
	{ TB_OPT_JOBS, "--jobs", "-j", "N", "say too what decoding on N threads needs (report, convert --jobs N)" },
	{ 0, NULL, NULL, NULL, NULL },
};

/* One file, its kind told from its first bytes: 1. */
static int check_file(const char *path, tb_check_stream *cs, const tb_pmclog_options *po, int *worst)
{
	tb_cli_input in;
	tb_kbuf_layout l;
	const uint8_t *head;
	size_t len;
	int rc;
	tb_cli_budget_restart(); /* each file its own budget */
	raw_layout(path, &l);
	/* enough to tell the kind: a trace.dat's magic, a pmclog's
	 * INITIALIZE record, a raw dump's first sub-buffer */
	if (tb_cli_input_open(&in, path) != 0 ||
	    tb_cli_input_head(&in, l.subbuf_size, &head, &len) != 0) {
		tb_cli_input_close(&in);
		*worst = TB_EXIT_USAGE;
		json_verdict(path, "unreadable", TB_EXIT_USAGE, 0, 0, 0);
		return 1;
	}
	switch (tb_check_stream_start(cs, head, len, &l, po)) {
	case TB_CHECK_KIND_EMPTY: /* said as raw, pmclog, report and stats say it */
		printf("%s: empty input (not a trace.dat, a pmclog stream or raw "
		       "sub-buffers)\n", path);
		rc = TB_EXIT_MALFORMED;
		json_verdict(path, "empty", rc, 0, 1, 0);
		break;
	case TB_CHECK_KIND_SESSION: /* a perf.data through the session too */
		rc = check_dat(path, &in);
		break;
	case TB_CHECK_KIND_PMCLOG:
	case TB_CHECK_KIND_RAW:
		rc = check_stream(path, cs, &in);
		break;
	default:
		printf("%s: not recognised (not a trace.dat, a pmclog stream or raw "
		       "sub-buffers)\n", path);
		rc = TB_EXIT_MALFORMED;
		json_verdict(path, "unknown", rc, 0, 1, 0);
	}
	fflush(stdout);
	tb_cli_input_close(&in);
	/* usage before malformed before over the budget */
	if (rc == TB_EXIT_USAGE || (rc == TB_EXIT_MALFORMED && *worst != TB_EXIT_USAGE) ||
	    (rc == TB_EXIT_BUDGET && *worst == TB_EXIT_OK))
		*worst = rc;
	return 1;
}

/* One file; a raw-dump folder is each of its dumps (source.h's rule).
 * The number of files checked. */
static int check_arg(const char *path, tb_check_stream *cs, const tb_pmclog_options *po, int *worst)
{
	tb_host_capture *hc;
	tb_source_desc d;
	tb_error e;
	char msg[TB_SOURCE_PATH_MAX + 256];
	int n = 0;
	size_t k;
	if (!strcmp(path, "-") || !tb_path_is_dir(path))
		return check_file(path, cs, po, worst);
	memset(&d, 0, sizeof(d));
	d.path = path;
	d.flags = TB_SOURCE_NO_DUMPS;
	if (!(hc = calloc(1, sizeof(*hc))) ||
	    tb_host_capture_open(hc, &d, &tb_cli_heap, TB_FMT_FILE_MAX, &e) != TB_OK) {
		if (hc)
			tb_host_capture_message(hc, &e, msg, sizeof(msg));
		printf("%s: %s\n", path, hc ? msg : "out of memory");
		*worst = TB_EXIT_USAGE;
		json_verdict(path, "unreadable", TB_EXIT_USAGE, 0, 0, 0);
		n = 1;
	}
	for (k = 0; hc && k < hc->source.src.nraw; k++)
		n += check_file(hc->source.dump_paths[k], cs, po, worst);
	if (hc)
		tb_host_capture_close(hc);
	free(hc);
	return n;
}

int tb_cmd_check(int argc, char **argv)
{
	int i, worst = TB_EXIT_OK, saved = -1, files = 0;
	tb_check_stream *cs;
	tb_opts p;
	tb_pmclog_options po;
	tb_opts_init(&p, "check", "FILE...", check_options, argc, argv);
	if ((i = tb_opts_parse(&p, NULL)) >= 0)
		return i;
	check_jobs = p.v.jobs_given ? p.v.jobs : 1;
	memset(&po, 0, sizeof(po));
	po.addr_size = p.v.addr_size;
	cs = malloc(sizeof(*cs));
	if (!cs) {
		fprintf(stderr, "tracebound: out of memory\n");
		return TB_EXIT_USAGE;
	}
	if (p.v.json) {
		/* the JSON on the real stdout, the text lines on stderr */
		fflush(stdout);
		saved = dup(1);
		json_out = saved >= 0 ? fdopen(saved, "w") : NULL;
		if (!json_out || dup2(2, 1) < 0) {
			fprintf(stderr, "tracebound: cannot set up the JSON output\n");
			free(cs);
			return TB_EXIT_USAGE;
		}
	}
	for (i = 1; i <= p.npos; i++)
		files += check_arg(argv[i], cs, &po, &worst);
	tb_cli_budget_restart(); /* said per file: not again by main */
	free(cs);
	tb_cli_text_free(&check_text);
	if (json_out && (fflush(json_out) != 0 || ferror(json_out) || fclose(json_out) != 0)) {
		fprintf(stderr, "tracebound: error writing the output\n");
		worst = TB_EXIT_USAGE;
	}
	return files ? worst : tb_opts_usage(&p);
}
