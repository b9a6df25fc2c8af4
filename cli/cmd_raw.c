/*
 * tracebound raw: print the records of trace_pipe_raw dumps.
 *
 *   tracebound raw [--header-page FILE] [--events DIR] [--subbuf-size N]
 *                  [--all-records] [--json] RAWFILE...
 *
 * Every event (data record) of every sub-buffer: sub-buffer index, offset,
 * timestamp, payload size and the event id from the payload's first two
 * bytes.  A missed-events report comes before the events of its
 * sub-buffer.  Malformed input: the records before the fault are printed,
 * then one line on stderr names file, sub-buffer, offset and what; exit 1.
 * With --events DIR (laid out like /sys/kernel/tracing/events) events are
 * decoded into names and fields (cli/events.c).
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "opts.h"
#include "capture.h"
#include "events.h"

typedef struct raw_opts {
	const char *header_page;
	const char *events_dir;
	tb_cli_events *events;  /* loaded from events_dir */
	uint32_t subbuf_size;   /* 0: from subbuf_kb beside the file, else 4096 */
	int all_records;
	int json;
	int detect_order;       /* each dump's first sub-buffer says its byte order */
	tb_session *s;          /* --json: names, fields and JSON are the session's */
	char *line;
	size_t line_cap;
	tb_cli_text text;       /* the library's listings */
} raw_opts;

/* Where a record is: the file's cpu and the sub-buffer it sits in. */
typedef struct raw_ctx {
	FILE *out;
	const raw_opts *opt;
	int cpu;
	uint64_t subbuf;
	int64_t missed;         /* --json: drops waiting for the sub-buffer's first event */
} raw_ctx;

/* One event as the session writes JSON (docs/json.md): the same schema as
 * report --json; drops of the sub-buffer go with its first event. */
static void json_event(raw_ctx *c, const tb_kbuf_record *r)
{
	tb_session_event ev;
	tb_render_result res;
	tb_error e;
	raw_opts *o = (raw_opts *)(uintptr_t)c->opt;
	if (tb_session_describe(o->s, (uint32_t)c->cpu, r->ts, r->payload, r->payload_len, &ev) !=
	    TB_OK)
		return;
	ev.page_index = c->subbuf;
	ev.offset = r->offset;
	ev.missed = c->missed;
	c->missed = 0;
	if (ev.format && tb_format_check_record(ev.format, ev.data, ev.len,
						tb_session_get_info(o->s)->big_endian, &e) != TB_OK)
		tb_cli_events_count_bad(o->events);
	if (tb_session_text_grow(o->s, &ev, TB_TEXT_JSON, &o->line, &o->line_cap, tb_cli_grow,
				 NULL, &res) == TB_ERR_NO_SPACE && res.needed + 1 > o->line_cap)
		return; /* out of memory */
	fwrite(o->line, 1, res.len, c->out);
	putc('\n', c->out);
}

/* One record or drop report, as the library lists it (tracebound/listing.h):
 * events through their formats when --events gave them, or by the
 * session's JSON with --json. */
static void print_record(raw_ctx *c, const tb_kbuf_record *r, int be)
{
	raw_opts *o = (raw_opts *)(uintptr_t)c->opt;
	if (r->kind == TB_KBUF_DATA && o->json) { /* --json always has its session */
		json_event(c, r);
		return;
	}
	if (r->kind == TB_KBUF_DATA && tb_cli_events_print(o->events, c->out, c->cpu, r->ts,
							   r->payload, r->payload_len, be))
		return;
	TB_CLI_PRINT(&o->text, c->out,
		     tb_list_kbuf_record(&o->text.t, (uint32_t)c->cpu, c->subbuf, r, be,
					 o->json ? TB_LIST_JSON : 0));
}

static void print_missed(raw_ctx *c, int64_t missed)
{
	raw_opts *o = (raw_opts *)(uintptr_t)c->opt;
	if (o->json && o->s && !o->all_records) {
		c->missed = missed; /* the next event says it */
		return;
	}
	TB_CLI_PRINT(&o->text, c->out,
		     tb_list_kbuf_missed(&o->text.t, (uint32_t)c->cpu, c->subbuf, missed,
					 o->json ? TB_LIST_JSON : 0));
}

static int fault(FILE *out, const char *path, const tb_kbuf_stream *s,
		 const tb_error *e, uint64_t page_off)
{
	fflush(out);
	fprintf(stderr, "tracebound: %s: sub-buffer %llu, offset %llu (file offset %llu): %s (%s)\n",
		path, (unsigned long long)s->subbuf_index, (unsigned long long)page_off,
		(unsigned long long)(s->subbuf_offset + page_off), e->what,
		tb_strerror(e->status));
	return TB_EXIT_MALFORMED;
}

/*
 * The layout of the dumps by the library's rule (source.h): the
 * header_page, --subbuf-size, subbuf_kb beside the dumps, 4096.  What is
 * not used but says another size is said on stderr.  0, or an exit status.
 */
static int raw_layout(tb_host_capture *hc, const tb_source_desc *d, raw_opts *o)
{
	const tb_source *src = &hc->source;
	char msg[TB_SOURCE_PATH_MAX + 256];
	tb_error e;
	tb_status st = tb_host_capture_open(hc, d, &tb_cli_heap, tb_cli_budget_read_limit(), &e);
	char kbpath[TB_SOURCE_PATH_MAX];
	if (st != TB_OK) {
		if (st == TB_ERR_VALUE && !strcmp(e.what, "not a sub-buffer size in KiB (a power of "
							    "two, 4 to 1024)")) {
			fprintf(stderr, "tracebound: %s: not a sub-buffer size in KiB\n", src->part);
			return TB_EXIT_USAGE;
		}
		tb_host_capture_message(hc, &e, msg, sizeof(msg));
		fprintf(stderr, "tracebound: %s\n", msg);
		return tb_is_malformed(st) || st == TB_ERR_UNSUPPORTED ? TB_EXIT_MALFORMED : TB_EXIT_USAGE;
	}
	if (src->subbuf_from == TB_SOURCE_FROM_HEADER_PAGE && o->subbuf_size &&
	    o->subbuf_size != src->layout.subbuf_size)
		fprintf(stderr, "tracebound: warning: --subbuf-size %u ignored: the "
				"header_page (%s) says %u bytes, and it comes first\n",
			o->subbuf_size, src->header_page, src->layout.subbuf_size);
	if (src->subbuf_from == TB_SOURCE_FROM_SUBBUF_KB ||
	    (!src->subbuf_kb_bad && (!src->subbuf_kb || src->subbuf_kb == src->layout.subbuf_size)))
		return TB_EXIT_OK;
	snprintf(kbpath, sizeof(kbpath), "%s%ssubbuf_kb", d->ndumps ? "" : d->path,
		 d->ndumps ? "" : "/");
	if (d->ndumps) {
		const char *slash = strrchr(d->dumps[0], '/');
		if (slash)
			snprintf(kbpath, sizeof(kbpath), "%.*s/subbuf_kb", (int)(slash - d->dumps[0]),
				 d->dumps[0]);
	}
	if (src->subbuf_kb_bad)
		fprintf(stderr, "tracebound: warning: %s is not a sub-buffer size in KiB; "
				"ignored: ", kbpath);
	else
		fprintf(stderr, "tracebound: warning: %s says %u bytes (%u KiB); ignored: ", kbpath,
			src->subbuf_kb, src->subbuf_kb / 1024);
	if (src->subbuf_from == TB_SOURCE_FROM_HEADER_PAGE)
		fprintf(stderr, "the header_page (%s) says %u bytes, and it comes first\n",
			src->header_page, src->layout.subbuf_size);
	else
		fprintf(stderr, "--subbuf-size %u comes first\n", src->layout.subbuf_size);
	return TB_EXIT_OK;
}

static int raw_file(const char *path, int cpu, raw_opts *o, const tb_kbuf_layout *given)
{
	tb_kbuf_layout layout = *given;
	tb_kbuf_stream s;
	tb_kbuf kb;
	tb_kbuf_record r;
	tb_cli_input in;
	tb_error e;
	tb_status st;
	raw_ctx c;
	int rc = TB_EXIT_OK;
	const uint8_t *head;
	size_t n;

	/* a pipe is walked a sub-buffer at a time, in constant memory */
	if (tb_cli_input_open(&in, path) != 0 ||
	    tb_cli_input_head(&in, 8 + layout.long_size, &head, &n) != 0) {
		tb_cli_input_close(&in);
		return TB_EXIT_USAGE;
	}
	if (o->detect_order) { /* the order its first sub-buffer says (source.h) */
		int be = tb_source_detect_order(head, n, layout.long_size);
		if (be >= 0 && be != layout.big_endian &&
		    tb_kbuf_layout_init_ex(&layout, be, layout.long_size, layout.header_size,
					   layout.subbuf_size, layout.flags) != TB_OK)
			layout = *given;
	}
	c.out = stdout;
	c.opt = o;
	c.missed = 0;
	c.cpu = cpu;
	tb_kbuf_stream_init(&s, &layout, NULL, 0);
	for (;;) {
		int64_t missed;
		if (tb_cli_input_subbuf(&in, &s, &kb, &e, &st) != 0) {
			rc = TB_EXIT_USAGE;
			break;
		}
		if (st == TB_END)
			break;
		if (st != TB_OK) {
			/* The open failed; e.offset counts from the start of the file. */
			rc = fault(stdout, path, &s, &e, e.offset - s.subbuf_offset);
			break;
		}
		missed = tb_kbuf_missed(&kb);
		c.subbuf = s.subbuf_index;
		if (s.ts_went_back) {
			fflush(stdout);
			fprintf(stderr, "tracebound: %s: sub-buffer %llu: page time %llu goes back "
					"before %llu\n", path, (unsigned long long)s.subbuf_index,
				(unsigned long long)tb_kbuf_page_ts(&kb),
				(unsigned long long)s.last_ts);
		}
		if (missed)
			print_missed(&c, missed);
		while ((st = o->all_records ? tb_kbuf_next(&kb, &r)
					    : tb_kbuf_next_event(&kb, &r)) == TB_OK)
			print_record(&c, &r, layout.big_endian);
		if (st != TB_END) {
			e = tb_kbuf_error(&kb);
			rc = fault(stdout, path, &s, &e, e.offset);
			break;
		}
	}
	if (rc == TB_EXIT_OK && s.base + s.len == 0) {
		fprintf(stderr, "tracebound: %s: empty input (no ring-buffer sub-buffers)\n", path);
		rc = TB_EXIT_MALFORMED;
	}
	tb_cli_input_close(&in);
	return rc;
}

/* The dumps (files, or one folder of them) by the library's rule. */
static int raw_run(raw_opts *o, char **files, int nfiles)
{
	tb_host_capture *hc = calloc(1, sizeof(*hc));
	const tb_source *src = hc ? &hc->source : NULL;
	tb_source_desc d;
	char *evdir = NULL;
	size_t i;
	int rc;
	if (!hc) {
		fprintf(stderr, "tracebound: out of memory\n");
		return TB_EXIT_USAGE;
	}
	memset(&d, 0, sizeof(d));
	if (nfiles == 1 && strcmp(files[0], "-") && tb_path_is_dir(files[0])) {
		d.path = files[0];
	} else {
		d.dumps = (const char *const *)files;
		d.ndumps = (size_t)nfiles;
	}
	d.events = o->events_dir;
	d.header_page = o->header_page;
	d.subbuf_size = o->subbuf_size;
	for (i = 0; i < d.ndumps; i++) /* a pipe is streamed here, in constant memory */
		if (!strcmp(files[i], "-"))
			d.flags = TB_SOURCE_NO_DUMPS;
	if ((rc = raw_layout(hc, &d, o)) != TB_EXIT_OK)
		goto out;
	o->detect_order = 1;
	if (!o->events_dir && d.path && src->events_found)
		o->events_dir = evdir = tb_path_join(d.path, "events");
	if (o->events_dir && !(o->events = tb_cli_events_load(o->events_dir, src->layout.long_size))) {
		rc = TB_EXIT_USAGE;
		goto out;
	}
	if (o->json) {
		/* a session without dumps: the formats and the JSON writer */
		tb_session_source ss;
		tb_error e;
		memset(&ss, 0, sizeof(ss));
		ss.big_endian = src->layout.big_endian;
		ss.long_size = src->layout.long_size;
		ss.formats = tb_cli_events_texts(o->events, &ss.nformats);
		if ((o->events && !ss.formats) ||
		    tb_cli_session_open(&o->s, &ss, NULL, NULL, NULL, &e) != TB_OK) {
			rc = tb_cli_budget_over() ? tb_cli_budget_fail() : TB_EXIT_USAGE;
			if (rc == TB_EXIT_USAGE)
				fprintf(stderr, "tracebound: out of memory\n");
			goto out;
		}
	}
	for (i = 0; i < src->src.nraw && rc == TB_EXIT_OK; i++)
		rc = raw_file(src->dump_paths[i], (int)src->src.raw[i].cpu, o, &src->layout);
out:
	tb_session_close(o->s);
	free(o->line);
	tb_cli_text_free(&o->text);
	free(evdir);
	if (tb_cli_events_free(o->events) && rc == TB_EXIT_OK)
		rc = TB_EXIT_MALFORMED;
	tb_host_capture_close(hc);
	free(hc);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "tracebound: error writing output\n");
		return TB_EXIT_USAGE;
	}
	return rc;
}

static const tb_opt raw_options[] = {
	{ TB_OPT_HEADER_PAGE, "--header-page", NULL, "FILE", "the sub-buffer layout (events/header_page)" },
	{ TB_OPT_EVENTS, "--events", NULL, "DIR", "the event formats (a tracefs events directory)" },
	{ TB_OPT_SUBBUF_SIZE, "--subbuf-size", NULL, "SIZE", "the sub-buffer size in bytes (16k; at least 4096)" },
	{ 1, "--all-records", NULL, NULL, "also list padding and time records" },
	{ TB_OPT_JSON, "--json", NULL, NULL, "one JSON object per event (docs/json.md)" },
	TB_CLI_MAX_MEMORY_OPT,
	{ 0, NULL, NULL, NULL, NULL },
};

int tb_cmd_raw(int argc, char **argv)
{
	raw_opts o;
	tb_opts p;
	int rc;
	tb_opts_init(&p, "raw", "[OPTIONS] RAWFILE...", raw_options, argc, argv);
	p.epilog = "The sub-buffer layout comes from, first to last: the header_page\n"
		   "(--header-page, else beside the dumps, else in the events\n"
		   "directory), --subbuf-size, subbuf_kb beside the dumps, 4096 bytes.\n"
		   "One that says another size than the one used is named on stderr.\n"
		   "RAWFILE may be a folder of cpuN / cpuN.raw dumps (docs/python.md).\n";
	if ((rc = tb_opts_parse(&p, NULL)) >= 0)
		return rc;
	memset(&o, 0, sizeof(o));
	o.header_page = p.v.header_page;
	o.events_dir = p.v.events;
	o.subbuf_size = p.v.subbuf_size;
	o.all_records = p.own[1] != NULL;
	o.json = p.v.json;
	return raw_run(&o, argv + 1, p.npos);
}
