/*
 * tracebound check FILE...: validate uploads completely.
 *
 * The kind of each file is told from its content: a trace.dat (magic),
 * else a raw trace_pipe_raw dump (its first sub-buffer opens as one; the
 * layout comes from header_page / subbuf_kb beside the file, else 64-bit
 * little-endian 4 KiB), or a FreeBSD pmclog stream (it opens with an
 * INITIALIZE record).
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
#include <stdarg.h>
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

typedef struct chk {
	const char *path;
	uint64_t events, anomalies, shown;
} chk;

static void anomaly(chk *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void anomaly(chk *c, const char *fmt, ...)
{
	va_list ap;
	c->anomalies++;
	if (c->shown >= CHECK_MAX_SHOWN)
		return;
	c->shown++;
	printf("%s: ", c->path);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/* An anomaly of the library's check, in check's words. */
static void say(chk *c, const tb_cli_capture *cap, const tb_check_anomaly *a)
{
	const tb_session_buffer_info *bi;
	char name[80];
	if (a->part == TB_CHECK_CAPTURE) {
		/* all of them said (the count shown stops at the limit) */
		c->anomalies++;
		c->shown += c->shown < CHECK_MAX_SHOWN;
		tb_cli_print_damage_one(cap, a->damage, stdout);
		return;
	}
	bi = tb_session_buffer(cap->s, a->buffer);
	snprintf(name, sizeof(name), "%.*s", (int)(bi->name.len < 64 ? bi->name.len : 64),
		 bi->name.ptr);
	if (a->part == TB_CHECK_PAGE)
		anomaly(c, "buffer \"%s\" CPU %u, sub-buffer %llu: %s at file offset %llu (%s)", name,
			a->cpu, (unsigned long long)a->page, a->error.what,
			(unsigned long long)a->error.offset, tb_strerror(a->error.status));
	else if (a->part == TB_CHECK_EVENT)
		anomaly(c, "buffer \"%s\" CPU %u, sub-buffer %llu at file offset %llu, record offset %u: "
			   "event id %u has no format",
			name, a->cpu, (unsigned long long)a->page,
			(unsigned long long)a->page_offset, a->record, a->id);
	else
		anomaly(c, "buffer \"%s\" CPU %u, sub-buffer %llu at file offset %llu, record offset %u: "
			   "%.*s: %s at record byte %llu (%s)",
			name, a->cpu, (unsigned long long)a->page,
			(unsigned long long)a->page_offset, a->record, (int)a->format->name_len,
			a->format->name, a->error.what, (unsigned long long)a->error.offset,
			tb_strerror(a->error.status));
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

/* Memory refused for the budget in the walk: the anomalies it made (a
 * format without its fields) are not the file's. */
static int refused_in_walk(const tb_session *s)
{
	tb_session_need nd;
	tb_session_need_get(s, &nd);
	return nd.refused != NULL;
}

static int check_dat_file(const char *path, const tb_cli_file *f)
{
	tb_session_options so = { 0, 0 };
	tb_cli_capture cap;
	tb_check it;
	tb_check_anomaly a;
	const tb_dat *d;
	chk c;
	size_t i, nformats = 0, nb;
	uint64_t dropped = 0, drops_unknown = 0;
	int rc;
	memset(&c, 0, sizeof(c));
	c.path = path;
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
	d = tb_session_dat(cap.s);
	/* every format is checked, used or not */
	for (i = 0; i < tb_session_get_info(cap.s)->nformats; i++) {
		uint32_t id;
		if (tb_session_format_at(cap.s, i, NULL, NULL, &id) &&
		    tb_session_format(cap.s, id) != NULL)
			nformats++;
	}
	fflush(stderr);
	tb_check_init(&it, cap.s);
	while (tb_check_next(&it, &a) == TB_OK)
		say(&c, &cap, &a);
	c.events = it.events;
	nb = tb_session_get_info(cap.s)->nbuffers;
	for (i = 0; !d && i < tb_session_buffer(cap.s, 0)->ncpus; i++) { /* perf.data */
		tb_session_cpu_stats cs;
		if (tb_session_cpu_stats_get(cap.s, 0, (uint32_t)i, &cs) == TB_OK)
			dropped += cs.dropped;
	}
	for (i = 0; d && i < nb; i++) {
		const tb_session_buffer_info *bi = tb_session_buffer(cap.s, i);
		const tb_dat_buffer *b = NULL;
		size_t j;
		for (j = 0; j < d->nbuffers; j++)
			if (d->buffers[j].name.ptr == bi->name.ptr)
				b = &d->buffers[j];
		for (j = 0; b && j < b->ncpus; j++) {
			tb_session_cpu_stats cs;
			if (tb_session_cpu_stats_get(cap.s, i, b->cpus[j].cpu, &cs) == TB_OK) {
				dropped += cs.dropped;
				drops_unknown += cs.drops_unknown;
			}
		}
	}
	if (c.shown < c.anomalies && c.anomalies > CHECK_MAX_SHOWN)
		printf("%s: ... %llu more anomalies not shown\n", path,
		       (unsigned long long)(c.anomalies - c.shown));
	if (!d) {
		printf("%s: perf.data%s, %zu event formats: %llu events, %llu dropped, %llu "
		       "anomalies: %s\n", path, tb_session_perf(cap.s)->pipe ? " (pipe stream)" : "",
		       nformats, (unsigned long long)c.events, (unsigned long long)dropped,
		       (unsigned long long)c.anomalies,
		       !c.anomalies ? "ok" : refused_in_walk(cap.s) ? "over the budget" : "MALFORMED");
	} else {
		const tb_dat_text *z = &d->compression;
		int named = z->len && !(z->len == 4 && !memcmp(z->ptr, "none", 4));
		printf("%s: trace.dat v%u%s%.*s%s, %zu buffer%s, %zu event formats: %llu events, "
		       "%llu dropped%s, %llu anomalies: %s\n",
		       path, d->version, named ? " (" : "", named ? (int)(z->len < 16 ? z->len : 16) : 0,
		       named ? z->ptr : "", named ? ")" : "", d->nbuffers,
		       d->nbuffers == 1 ? "" : "s", nformats, (unsigned long long)c.events,
		       (unsigned long long)dropped,
		       drops_unknown ? " (and drops of unknown size)" : "",
		       (unsigned long long)c.anomalies,
		       !c.anomalies ? "ok" : refused_in_walk(cap.s) ? "over the budget" : "MALFORMED");
	}
	{
		uint64_t need = 0;
		int refused = 0, over = check_need(path, cap.s, &need, &refused);
		/* memory refused in the walk (a format's fields) makes anomalies
		 * of its own: the budget is the outcome then */
		rc = c.anomalies && !refused ? TB_EXIT_MALFORMED : over;
		json_verdict(path, "trace.dat", rc, c.events, c.anomalies, need);
	}
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

static int looks_raw(const tb_kbuf_layout *l, const uint8_t *p, size_t n)
{
	tb_kbuf kb;
	tb_error e;
	return n >= l->header_size && tb_kbuf_open(&kb, l, p, n, &e) == TB_OK;
}

/*
 * A raw dump walked as it is read: a pipe a sub-buffer at a time, in
 * constant memory.  A page whose commit is 0 holds no record: the page
 * header a zero-filled page shows (time 0, commit 0, no missed-events
 * flag).  trace_pipe_raw hands out only pages that hold data (the kernel
 * gives a reader a page only when its CPU has events), so a few empty ones
 * can only be filler (a tail written by dd conv=sync, a file grown by
 * truncate) and are let pass; but an input of nothing but empty pages is
 * not a dump at all (a gigabyte of zeros would otherwise pass as a sound
 * one) and is one anomaly: "every sub-buffer is empty".
 */
static int check_raw(const char *path, const tb_kbuf_layout *l, tb_cli_input *in)
{
	tb_kbuf_stream s;
	tb_kbuf kb;
	tb_error e;
	tb_status st;
	uint64_t events = 0, pages = 0, empty = 0, dropped = 0, anomalies = 0;
	tb_kbuf_stream_init(&s, l, NULL, 0);
	for (;;) {
		tb_kbuf_record r;
		if (tb_cli_input_subbuf(in, &s, &kb, &e, &st) != 0)
			return TB_EXIT_USAGE;
		if (st == TB_END)
			break;
		if (st) {
			anomalies++;
			printf("%s: sub-buffer %llu at file offset %llu: %s at offset %llu (%s)\n", path,
			       (unsigned long long)s.subbuf_index, (unsigned long long)s.subbuf_offset,
			       e.what, (unsigned long long)e.offset, tb_strerror(st));
			continue;
		}
		pages++;
		empty += tb_kbuf_commit(&kb) == 0;
		if (tb_kbuf_missed(&kb) > 0)
			dropped += (uint64_t)tb_kbuf_missed(&kb);
		while ((st = tb_kbuf_next_event(&kb, &r)) == TB_OK)
			events++;
		if (st != TB_END) {
			tb_error ke = tb_kbuf_error(&kb);
			anomalies++;
			printf("%s: sub-buffer %llu at file offset %llu: %s at offset %llu (%s)\n", path,
			       (unsigned long long)s.subbuf_index, (unsigned long long)s.subbuf_offset,
			       ke.what, (unsigned long long)ke.offset, tb_strerror(st));
		}
	}
	if (pages > 0 && empty == pages) {
		anomalies++;
		printf("%s: every sub-buffer is empty (commit 0, as in zero-filled bytes): not a "
		       "trace_pipe_raw dump, which holds only pages with events\n", path);
	}
	printf("%s: raw sub-buffers (%u-byte): %llu sub-buffers, %llu events, %llu dropped, "
	       "%llu anomalies: %s\n", path, l->subbuf_size, (unsigned long long)pages,
	       (unsigned long long)events, (unsigned long long)dropped,
	       (unsigned long long)anomalies, anomalies ? "MALFORMED" : "ok");
	json_verdict(path, "raw", anomalies ? TB_EXIT_MALFORMED : TB_EXIT_OK, events, anomalies, 0);
	return anomalies ? TB_EXIT_MALFORMED : TB_EXIT_OK;
}

/* A pmclog stream starts with a sound INITIALIZE record. */
static int looks_pmclog(tb_pmclog *pl, const tb_pmclog_options *po, const uint8_t *p, size_t n)
{
	tb_pmclog_event ev;
	tb_error e;
	if (tb_pmclog_open_buffer(pl, po, p, n) != TB_OK)
		return 0;
	return tb_pmclog_next(pl, &ev, &e) == TB_OK && ev.type == TB_PMCLOG_INITIALIZE;
}

/* A pipe is fed to the decoder in pieces of this size. */
#define PMCLOG_PIECE ((size_t)64 << 10)

static int check_pmclog(const char *path, tb_pmclog *pl, const tb_pmclog_options *po,
			tb_cli_input *in)
{
	tb_pmclog_event ev;
	tb_error e;
	tb_status st;
	uint64_t records = 0, drops = 0, unknown = 0, anomalies = 0;
	tb_pmclog_init(pl, po);
	for (;;) {
		const uint8_t *p;
		size_t n;
		st = tb_pmclog_next(pl, &ev, &e);
		if (st == TB_OK) {
			records++;
			if (ev.type == TB_PMCLOG_DROPNOTIFY)
				drops++;
			else if (ev.type == TB_PMCLOG_UNKNOWN)
				unknown++;
			continue;
		}
		if (st != TB_NEED_MORE)
			break;
		if (tb_cli_input_piece(in, PMCLOG_PIECE, &p, &n) != 0)
			return TB_EXIT_USAGE;
		if (n == 0)
			tb_pmclog_close(pl);
		else if (tb_pmclog_feed(pl, p, n) != TB_OK)
			return TB_EXIT_USAGE; /* not after NEED_MORE */
	}
	if (st != TB_END) {
		anomalies++;
		printf("%s: record %llu at offset %llu: %s (%s)\n", path,
		       (unsigned long long)records + 1, (unsigned long long)e.offset, e.what,
		       tb_strerror(st));
	}
	printf("%s: pmclog: %llu records, %llu drop notifications, %llu of unknown type, "
	       "%llu anomalies: %s\n", path, (unsigned long long)records,
	       (unsigned long long)drops, (unsigned long long)unknown,
	       (unsigned long long)anomalies, anomalies ? "MALFORMED" : "ok");
	json_verdict(path, "pmclog", anomalies ? TB_EXIT_MALFORMED : TB_EXIT_OK, records, anomalies,
		     0);
	return anomalies ? TB_EXIT_MALFORMED : TB_EXIT_OK;
}

static const tb_opt check_options[] = {
	{ 1, "--addr-size", NULL, "4|8", "pmclog address width (legacy 32-bit logs need 4)" },
	TB_CLI_MAX_MEMORY_OPT,
	{ 1 + 1, "--json", NULL, NULL, "one JSON object per file (schema_version 1): what a service reads" },
	{ 3, "--jobs", "-j", "N", "say too what decoding on N threads needs (report, convert --jobs N)" },
	{ 0, NULL, NULL, NULL, NULL },
};

/* One file, its kind told from its first bytes: 1. */
static int check_file(const char *path, tb_pmclog *pl, const tb_pmclog_options *po, int *worst)
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
	if (tb_source_detect_order(head, len, l.long_size) == !l.big_endian)
		(void)tb_kbuf_layout_init_ex(&l, !l.big_endian, l.long_size, l.header_size,
					     l.subbuf_size, l.flags); /* its first page's order */
	if (len == 0) {
		/* said as raw, pmclog, report and stats say it */
		printf("%s: empty input (not a trace.dat, a pmclog stream or raw "
		       "sub-buffers)\n", path);
		rc = TB_EXIT_MALFORMED;
		json_verdict(path, "empty", rc, 0, 1, 0);
	} else if (tb_dat_probe(head, len) || tb_perf_probe(head, len)) {
		rc = check_dat(path, &in); /* a perf.data through the session too */
	} else if (looks_pmclog(pl, po, head, len)) {
		rc = check_pmclog(path, pl, po, &in);
	} else if (looks_raw(&l, head, len)) {
		rc = check_raw(path, &l, &in);
	} else {
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
static int check_arg(const char *path, tb_pmclog *pl, const tb_pmclog_options *po, int *worst)
{
	tb_host_capture *hc;
	tb_source_desc d;
	tb_error e;
	char msg[TB_SOURCE_PATH_MAX + 256];
	int n = 0;
	size_t k;
	if (!strcmp(path, "-") || !tb_path_is_dir(path))
		return check_file(path, pl, po, worst);
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
		n += check_file(hc->source.dump_paths[k], pl, po, worst);
	if (hc)
		tb_host_capture_close(hc);
	free(hc);
	return n;
}

int tb_cmd_check(int argc, char **argv)
{
	int i, worst = TB_EXIT_OK, files = 0, id, n = 0, json = 0, saved = -1;
	tb_pmclog *pl;
	tb_opts p;
	tb_pmclog_options po;
	const char *v;
	memset(&po, 0, sizeof(po));
	tb_opts_init(&p, "check", "FILE...", check_options, argc, argv);
	while ((id = tb_opts_next(&p, &v)) != TB_OPTS_END) {
		if (id == TB_OPTS_HELP)
			return TB_EXIT_OK;
		if (id == TB_OPTS_ERROR)
			return TB_EXIT_USAGE;
		if (id == TB_OPT_MAX_MEMORY) {
			if (tb_cli_budget_option(&p, v) != 0)
				return TB_EXIT_USAGE;
			continue;
		}
		if (id == 2) {
			json = 1;
			continue;
		}
		if (id == 3) {
			if (tb_opts_jobs(&p, v, &check_jobs))
				return TB_EXIT_USAGE;
			continue;
		}
		if (id == 1) {
			if (strcmp(v, "4") && strcmp(v, "8"))
				return tb_opts_fail(&p, "option '--addr-size': '%s' is not 4 or 8", v);
			po.addr_size = (unsigned)(v[0] - '0');
			continue;
		}
		argv[++n] = (char *)(uintptr_t)v;
	}
	argc = n + 1;
	pl = malloc(sizeof(*pl));
	if (!pl) {
		fprintf(stderr, "tracebound: out of memory\n");
		return TB_EXIT_USAGE;
	}
	if (json) {
		/* the JSON on the real stdout, the text lines on stderr */
		fflush(stdout);
		saved = dup(1);
		json_out = saved >= 0 ? fdopen(saved, "w") : NULL;
		if (!json_out || dup2(2, 1) < 0) {
			fprintf(stderr, "tracebound: cannot set up the JSON output\n");
			free(pl);
			return TB_EXIT_USAGE;
		}
	}
	for (i = 1; i < argc; i++)
		files += check_arg(argv[i], pl, &po, &worst);
	tb_cli_budget_restart(); /* said per file: not again by main */
	free(pl);
	if (json_out && (fflush(json_out) != 0 || ferror(json_out) || fclose(json_out) != 0)) {
		fprintf(stderr, "tracebound: error writing the output\n");
		worst = TB_EXIT_USAGE;
	}
	if (!files)
		return tb_opts_usage(&p);
	return worst;
}
