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
	char kb_warned[4096];   /* the subbuf_kb last said to disagree */
	int all_records;
	int json;
	tb_session *s;          /* --json: names, fields and JSON are the session's */
	char *line;
	size_t line_cap;
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

/* One event.  Kept in one place so event names and fields can be added. */
static void print_event(const raw_ctx *c, const tb_kbuf_record *r, int be)
{
	int has_id = r->payload_len >= 2;
	/* common_type, in the traced machine's byte order */
	unsigned id = !has_id ? 0u
		      : be  ? (unsigned)r->payload[0] << 8 | r->payload[1]
			    : (unsigned)r->payload[1] << 8 | r->payload[0];
	if (c->opt->json) { /* --json always has its session */
		json_event((raw_ctx *)(uintptr_t)c, r);
		return;
	}
	if (tb_cli_events_print(c->opt->events, c->out, c->cpu, r->ts,
				r->payload, r->payload_len, be))
		return;
	fprintf(c->out, "cpu=%d subbuf=%llu offset=%u ts=%llu size=%u ", c->cpu,
		(unsigned long long)c->subbuf, r->offset, (unsigned long long)r->ts,
		r->payload_len);
	if (has_id)
		fprintf(c->out, "id=%u\n", id);
	else
		fputs("id=-\n", c->out);
}

/* Padding, time extends and time stamps (with --all-records). */
static void print_other(const raw_ctx *c, const tb_kbuf_record *r)
{
	const char *kind = (r->flags & TB_KBUF_REC_NULL_PAD) ? "null_padding"
							     : tb_kbuf_kind_name(r->kind);
	if (c->opt->json)
		fprintf(c->out, "{\"cpu\":%d,\"ts\":%llu,\"kind\":\"%s\",\"subbuf\":%llu,"
			"\"offset\":%u,\"size\":%u}\n", c->cpu, (unsigned long long)r->ts,
			kind, (unsigned long long)c->subbuf, r->offset, r->size);
	else
		fprintf(c->out, "cpu=%d subbuf=%llu offset=%u ts=%llu size=%u kind=%s\n",
			c->cpu, (unsigned long long)c->subbuf, r->offset,
			(unsigned long long)r->ts, r->size, kind);
}

static void print_missed(raw_ctx *c, int64_t missed)
{
	if (c->opt->json && c->opt->s && !c->opt->all_records) {
		c->missed = missed; /* the next event says it */
		return;
	}
	if (c->opt->json)
		fprintf(c->out, "{\"cpu\":%d,\"missed\":%lld,\"subbuf\":%llu}\n", c->cpu,
			(long long)missed, (unsigned long long)c->subbuf);
	else if (missed < 0)
		fprintf(c->out, "cpu=%d subbuf=%llu missed=unknown\n", c->cpu,
			(unsigned long long)c->subbuf);
	else
		fprintf(c->out, "cpu=%d subbuf=%llu missed=%lld\n", c->cpu,
			(unsigned long long)c->subbuf, (long long)missed);
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

/* A text file small enough to read whole (header_page, subbuf_kb). */
static char *read_small(const char *path, size_t *len)
{
	tb_cli_file f;
	char *copy;
	if (tb_cli_load(path, &f) != 0)
		return NULL;
	copy = malloc(f.len + 1);
	if (copy) {
		memcpy(copy, f.data, f.len);
		copy[f.len] = '\0';
		*len = f.len;
	}
	tb_cli_unload(&f);
	return copy;
}

static int parse_size(const char *s, uint32_t *out)
{
	char *end;
	unsigned long v = strtoul(s, &end, 0);
	while (*end == ' ' || *end == '\n' || *end == '\t' || *end == '\r')
		end++;
	if (end == s || *end != '\0' || v > 0xffffffffUL)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

/* The subbuf_kb file beside a dump: 1 with *size and its name in kbpath,
 * 0 when there is none, -1 when it cannot be read or is not a size (the
 * latter said on stderr unless `quiet`). */
static int subbuf_kb_beside(const char *path, char *kbpath, size_t cap, uint32_t *size,
			    int quiet)
{
	const char *slash = strrchr(path, '/');
	char *text;
	size_t len;
	uint32_t kb;
	int n;
	if (slash)
		n = snprintf(kbpath, cap, "%.*s/subbuf_kb", (int)(slash - path), path);
	else
		n = snprintf(kbpath, cap, "subbuf_kb");
	if (n < 0 || (size_t)n >= cap)
		return 0;
	{
		FILE *probe = fopen(kbpath, "r");
		if (!probe)
			return 0;
		fclose(probe);
	}
	text = read_small(kbpath, &len);
	if (!text)
		return -1;
	if (parse_size(text, &kb) != 0 || kb == 0 || kb > 1024) {
		if (!quiet)
			fprintf(stderr, "tracebound: %s: not a sub-buffer size in KiB\n", kbpath);
		free(text);
		return -1;
	}
	free(text);
	*size = kb * 1024;
	return 1;
}

/*
 * The sub-buffer size for a file, first to last: the header_page (given),
 * --subbuf-size, subbuf_kb beside it, 4096.  What is not used but says
 * another size is said on stderr, once per subbuf_kb file.
 */
static int subbuf_for(const char *path, raw_opts *o, const tb_kbuf_layout *given,
		      uint32_t *size)
{
	char kbpath[4096];
	uint32_t kb = 0;
	int have_kb = subbuf_kb_beside(path, kbpath, sizeof(kbpath), &kb, given || o->subbuf_size);
	*size = given ? given->subbuf_size : o->subbuf_size ? o->subbuf_size : 4096;
	if (!given && !o->subbuf_size) {
		if (have_kb < 0)
			return -1;
		if (have_kb)
			*size = kb;
		return 0;
	}
	if (have_kb != 0 && (have_kb < 0 || kb != *size) &&
	    strcmp(kbpath, o->kb_warned) != 0) {
		if (have_kb < 0)
			fprintf(stderr, "tracebound: warning: %s is not a sub-buffer size in KiB; "
					"ignored: ", kbpath);
		else
			fprintf(stderr, "tracebound: warning: %s says %u bytes (%u KiB); ignored: ",
				kbpath, kb, kb / 1024);
		if (given)
			fprintf(stderr, "the header_page (%s) says %u bytes, and it comes first\n",
				o->header_page, *size);
		else
			fprintf(stderr, "--subbuf-size %u comes first\n", *size);
		snprintf(o->kb_warned, sizeof(o->kb_warned), "%s", kbpath);
	}
	return 0;
}

/* With no header_page, the dump is taken to come from this machine. */
static int host_big_endian(void)
{
	const uint16_t probe = 1;
	uint8_t first;
	memcpy(&first, &probe, 1);
	return first == 0;
}

static int raw_file(const char *path, int position, raw_opts *o,
		    const tb_kbuf_layout *given)
{
	tb_kbuf_layout layout;
	tb_kbuf_stream s;
	tb_kbuf kb;
	tb_kbuf_record r;
	tb_cli_input in;
	tb_error e;
	tb_status st;
	raw_ctx c;
	int rc = TB_EXIT_OK;

	if (given) {
		uint32_t size;
		layout = *given;
		if (subbuf_for(path, o, given, &size) != 0)
			return TB_EXIT_USAGE;
	} else {
		uint32_t size;
		if (subbuf_for(path, o, NULL, &size) != 0)
			return TB_EXIT_USAGE;
		if (tb_kbuf_layout_init(&layout, host_big_endian(), (unsigned)sizeof(long),
					size, 0) != TB_OK) {
			fprintf(stderr, "tracebound: %s: sub-buffer size %u is not a power of two "
					"from 4 KiB to 1 MiB\n", path, size);
			return TB_EXIT_USAGE;
		}
	}
	/* a pipe is walked a sub-buffer at a time, in constant memory */
	if (tb_cli_input_open(&in, path) != 0) {
		tb_cli_input_close(&in);
		return TB_EXIT_USAGE;
	}
	c.out = stdout;
	c.opt = o;
	c.missed = 0;
	c.cpu = tb_cli_cpu_from_name(path, position);
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
					    : tb_kbuf_next_event(&kb, &r)) == TB_OK) {
			if (r.kind == TB_KBUF_DATA)
				print_event(&c, &r, layout.big_endian);
			else
				print_other(&c, &r);
		}
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

enum { O_HP = 1, O_EVDIR, O_SUBBUF, O_ALL, O_JSON };

static const tb_opt raw_options[] = {
	{ O_HP, "--header-page", NULL, "FILE", "the sub-buffer layout (events/header_page)" },
	{ O_EVDIR, "--events", NULL, "DIR", "the event formats (a tracefs events directory)" },
	{ O_SUBBUF, "--subbuf-size", NULL, "SIZE", "the sub-buffer size in bytes (16k; at least 4096)" },
	{ O_ALL, "--all-records", NULL, NULL, "also list padding and time records" },
	{ O_JSON, "--json", NULL, NULL, "one JSON object per event (docs/json.md)" },
	TB_CLI_MAX_MEMORY_OPT,
	{ 0, NULL, NULL, NULL, NULL },
};

int tb_cmd_raw(int argc, char **argv)
{
	raw_opts o;
	tb_kbuf_layout hp;
	char *events_hp = NULL;
	int i, first, rc = TB_EXIT_OK, have_hp = 0, id, nfiles = 0;
	tb_opts p;
	const char *v;
	uint64_t size;

	memset(&o, 0, sizeof(o));
	tb_opts_init(&p, "raw", "[OPTIONS] RAWFILE...", raw_options, argc, argv);
	while ((id = tb_opts_next(&p, &v)) != TB_OPTS_END) {
		switch (id) {
		case TB_OPTS_HELP:
			printf("\nThe sub-buffer layout comes from, first to last: the header_page\n"
			       "(--header-page, or DIR/../header_page with --events), --subbuf-size,\n"
			       "subbuf_kb beside the dump, 4096 bytes.  One that says another\n"
			       "size than the one used is named on stderr.\n");
			return TB_EXIT_OK;
		case TB_OPTS_ERROR: return TB_EXIT_USAGE;
		case TB_OPT_MAX_MEMORY:
			if (tb_cli_budget_option(&p, v) != 0)
				return TB_EXIT_USAGE;
			break;
		case O_HP: o.header_page = v; break;
		case O_EVDIR: o.events_dir = v; break;
		case O_SUBBUF:
			if (tb_opts_size(&p, "--subbuf-size", v, &size) != 0)
				return TB_EXIT_USAGE;
			if (size < 4096 || size > (1u << 20))
				return tb_opts_fail(&p, "option '--subbuf-size': %llu bytes: the size is in "
						    "bytes (k and m suffixes), from 4096 to 1m",
						    (unsigned long long)size);
			o.subbuf_size = (uint32_t)size;
			break;
		case O_ALL: o.all_records = 1; break;
		case O_JSON: o.json = 1; break;
		case TB_OPTS_POSITIONAL: argv[++nfiles] = (char *)(uintptr_t)v; break;
		default: break;
		}
	}
	if (nfiles == 0)
		return tb_opts_usage(&p);
	first = 1;
	argc = nfiles + 1;
	if (o.events_dir && !o.header_page)
		o.header_page = events_hp = tb_cli_events_header_page(o.events_dir);
	if (o.header_page) {
		size_t len;
		tb_error e;
		char *text = read_small(o.header_page, &len);
		if (!text) {
			free(events_hp);
			return TB_EXIT_USAGE;
		}
		if (tb_kbuf_layout_from_header_page(text, len, host_big_endian(), &hp, &e) != TB_OK) {
			fprintf(stderr, "tracebound: %s: byte %llu: %s (%s)\n", o.header_page,
				(unsigned long long)e.offset, e.what, tb_strerror(e.status));
			free(text);
			free(events_hp);
			return TB_EXIT_MALFORMED;
		}
		free(text);
		have_hp = 1;
		if (o.subbuf_size && o.subbuf_size != hp.subbuf_size)
			fprintf(stderr, "tracebound: warning: --subbuf-size %u ignored: the "
					"header_page (%s) says %u bytes, and it comes first\n",
				o.subbuf_size, o.header_page, hp.subbuf_size);
	}
	if (o.events_dir &&
	    !(o.events = tb_cli_events_load(o.events_dir, have_hp ? hp.long_size
								  : (unsigned)sizeof(long)))) {
		free(events_hp);
		return TB_EXIT_USAGE;
	}
	if (o.json) {
		/* a session without dumps: the formats and the JSON writer */
		tb_session_source src;
		tb_error e;
		memset(&src, 0, sizeof(src));
		src.big_endian = have_hp ? hp.big_endian : host_big_endian();
		src.long_size = have_hp ? hp.long_size : (unsigned)sizeof(long);
		src.formats = tb_cli_events_texts(o.events, &src.nformats);
		if ((o.events && !src.formats) ||
		    tb_cli_session_open(&o.s, &src, NULL, NULL, NULL, &e) != TB_OK) {
			if (tb_cli_budget_over())
				return tb_cli_budget_fail();
			fprintf(stderr, "tracebound: out of memory\n");
			tb_cli_events_free(o.events);
			free(events_hp);
			return TB_EXIT_USAGE;
		}
	}
	for (i = first; i < argc; i++) {
		rc = raw_file(argv[i], i - first, &o, have_hp ? &hp : NULL);
		if (rc != TB_EXIT_OK)
			break;
	}
	tb_session_close(o.s);
	free(o.line);
	free(events_hp);
	if (tb_cli_events_free(o.events) && rc == TB_EXIT_OK)
		rc = TB_EXIT_MALFORMED;
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "tracebound: error writing output\n");
		return TB_EXIT_USAGE;
	}
	return rc;
}
