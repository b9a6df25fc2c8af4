/*
 * tracebound report: the events of a trace.dat, every CPU of every buffer
 * merged by time.
 *
 *   tracebound report [--raw] [--json] [--cpu LIST] [--events LIST] FILE.dat
 *
 * Each event is a line as trace-cmd prints it, its text rendered through
 * the print fmt as the kernel renders it; --raw gives trace-cmd's -R field
 * listing (byte-identical to `trace-cmd report -N -R`); --json one object
 * per event (docs/json.md).  All of it is the library session's: this
 * file parses options and writes lines.  A malformed page is reported on
 * stderr with where it was, and the exit status is then 1.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture.h"
#include "opts.h"
#include "report_jobs.h"

#define REPORT_MAX_FILTERS 16

typedef struct report_opts {
	int json, raw, with_text;
	unsigned line_flags;  /* TB_TEXT_NSECS / _LATENCY / _TSDIFF */
	const char *cpus;   /* LIST or NULL */
	const char *filters[REPORT_MAX_FILTERS]; /* -F, in order */
	size_t nfilters, negate_from;            /* -F after -v hide what they match */
	const char *events; /* LIST or NULL */
	const char *file;
	int jobs;           /* --jobs N (1: one thread) */
} report_opts;

#define CPU_WORDS (TB_CPU_LIST_MAX / 64)

/* The selections, checked against the capture before the walk. */
typedef struct report_sel {
	tb_select events;
	int have_events;
	uint64_t cpus[CPU_WORDS];
	int have_cpus;
	tb_filter *flt[REPORT_MAX_FILTERS];
	size_t nflt;
} report_sel;

static void say_at(const char *opt, const char *text, const tb_error *e)
{
	fprintf(stderr, "tracebound: %s '%s': %s at byte %llu (%s)\n", opt, text, e->what,
		(unsigned long long)e->offset, tb_strerror(e->status));
}

/* Compile the selections and say what matches nothing: 0, or an exit status. */
static int prepare_sel(tb_session *s, const report_opts *o, report_sel *sel)
{
	const tb_session_info *info = tb_session_get_info(s);
	uint64_t hits = 0, applies = 0;
	tb_error e;
	size_t i, k;
	if (o->events) {
		if (tb_select_parse(&sel->events, o->events, strlen(o->events), &e) != TB_OK) {
			say_at("--events", o->events, &e);
			return TB_EXIT_USAGE;
		}
		sel->have_events = 1;
	}
	if (o->cpus) {
		if (tb_cpu_list_parse(o->cpus, strlen(o->cpus), info->ncpus ? info->ncpus : 1,
				      sel->cpus, CPU_WORDS, &e) != TB_OK) {
			fprintf(stderr, "tracebound: --cpu '%s': %s at byte %llu (the capture has "
					"%u CPUs)\n", o->cpus, e.what, (unsigned long long)e.offset,
				info->ncpus);
			return TB_EXIT_USAGE;
		}
		sel->have_cpus = 1;
	}
	for (i = 0; i < o->nfilters; i++) {
		sel->flt[i] = malloc(sizeof(tb_filter));
		if (!sel->flt[i]) {
			fprintf(stderr, "tracebound: out of memory\n");
			return TB_EXIT_USAGE;
		}
		sel->nflt++;
		if (tb_filter_compile(sel->flt[i], o->filters[i], strlen(o->filters[i]),
				      i >= o->negate_from ? TB_FILTER_NEGATE : 0u, &e) != TB_OK) {
			say_at("-F", o->filters[i], &e);
			return TB_EXIT_USAGE;
		}
	}
	/* every format of the capture: which items and filters meet one */
	for (k = 0; k < info->nformats; k++) {
		uint32_t id;
		const tb_format *f;
		if (!tb_session_format_at(s, k, NULL, NULL, &id) || !(f = tb_session_format(s, id)))
			continue;
		if (sel->have_events)
			(void)tb_select_match(&sel->events, f->system, f->system_len, f->name,
					      f->name_len, &hits);
		for (i = 0; i < sel->nflt; i++) {
			uint64_t found[2] = { 0, 0 };
			if (!tb_filter_applies(sel->flt[i], f->system, f->system_len, f->name,
					       f->name_len))
				continue;
			applies |= 1ull << i;
			if (tb_filter_check(sel->flt[i], f, found, &e) != TB_OK) {
				fprintf(stderr, "tracebound: -F '%s': %.*s: %s at byte %llu (%s)\n",
					o->filters[i], (int)f->name_len, f->name, e.what,
					(unsigned long long)e.offset, tb_strerror(e.status));
				return TB_EXIT_USAGE;
			}
		}
	}
	for (i = 0; sel->have_events && i < sel->events.n; i++)
		if (!(hits >> i & 1u)) {
			size_t n;
			const char *t = tb_select_item_text(&sel->events, i, &n);
			fprintf(stderr, "tracebound: no event matches '%.*s'\n", (int)n, t);
			return TB_EXIT_USAGE;
		}
	for (i = 0; i < sel->nflt; i++)
		if (!(applies >> i & 1u)) {
			/* trace-cmd: "Failed to create event filter: X" */
			fprintf(stderr, "tracebound: -F '%s': no event of the capture matches it\n",
				o->filters[i]);
			return TB_EXIT_USAGE;
		}
	return 0;
}

static int selected(const report_sel *sel, const tb_session *s, const tb_session_event *ev)
{
	const tb_format *f = ev->format;
	if (sel->have_cpus && !tb_cpu_list_has(sel->cpus, CPU_WORDS, ev->cpu))
		return 0;
	if (sel->have_events &&
	    !(f && tb_select_match(&sel->events, f->system, f->system_len, f->name, f->name_len,
				   NULL)))
		return 0;
	if (sel->nflt) {
		tb_filter_record r;
		tb_error e;
		int show = 0;
		r.format = f;
		r.data = ev->data;
		r.len = ev->len;
		r.big_endian = tb_session_get_info(s)->big_endian;
		r.cpu = ev->cpu;
		r.comm = ev->comm;
		r.comm_len = ev->comm_len;
		(void)tb_filter_select((const tb_filter *const *)sel->flt, sel->nflt, &r, &show, &e);
		return show;
	}
	return 1;
}

static int select_event(const void *ctx, const tb_session *s, const tb_session_event *ev)
{
	return selected(ctx, s, ev);
}

/*
 * The output: events are rendered straight into one large buffer, which
 * goes out with write(2) when the next event does not fit (no stdio and
 * no copy per event).  An event larger than the whole buffer is rendered
 * into the line buffer (grown as needed) and written from there.
 */
#define REPORT_OUT_CAP (1u << 17)

typedef struct report_out {
	char *buf;
	size_t len;
	int failed; /* a write failed: said once, nothing more is written */
} report_out;

static int out_write(report_out *w, const char *p, size_t n)
{
	while (n && !w->failed) {
		ssize_t k = write(STDOUT_FILENO, p, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			fprintf(stderr, "tracebound: error writing the output: %s\n",
				k < 0 ? strerror(errno) : "write failed");
			w->failed = 1;
			break;
		}
		p += k;
		n -= (size_t)k;
	}
	return w->failed ? -1 : 0;
}

static int out_flush(report_out *w)
{
	int rc = out_write(w, w->buf, w->len);
	w->len = 0;
	return rc;
}

/* ev's text (and a newline after JSON) appended to the output: 0, -1
 * when the write failed, -2 when memory ran out. */
static int out_event(report_out *w, tb_cli_capture *c, const tb_session_event *ev,
		     unsigned how, int json, tb_cli_line *line)
{
	int tries;
	for (tries = 0; tries < 2; tries++) {
		tb_render_result r;
		tb_status st;
		size_t room = REPORT_OUT_CAP - w->len;
		st = tb_session_text(c->s, ev, how, w->buf + w->len, room, &r);
		if (st != TB_ERR_NO_SPACE || r.needed == 0) {
			/* what was rendered (as tb_cli_render keeps it); r.len < room */
			w->len += r.len;
			if (json)
				w->buf[w->len++] = '\n';
			return 0;
		}
		if (out_flush(w) != 0)
			return -1;
	}
	/* larger than the whole buffer */
	if (tb_cli_render(c, ev, how, line) != 0)
		return -2;
	if (json)
		line->p[line->len++] = '\n';
	return out_write(w, line->p, line->len);
}

static int report_file(const report_opts *o)
{
	tb_session_options so = { TB_SESSION_TC_DROPS | TB_SESSION_SKIP_DAMAGED,
				  TB_RENDER_KNOWN_ENUMS | TB_RENDER_KERNEL_STYLE };
	tb_cli_capture c;
	tb_session_event ev;
	tb_cli_line line = { NULL, 0, 0 };
	tb_error e;
	tb_status st;
	unsigned how;
	int rc, bad = 0, progress = isatty(2);
	uint64_t nevents = 0;
	report_out out = { NULL, 0, 0 };
	static report_sel sel;
	size_t i;

	memset(&sel, 0, sizeof(sel));
	rc = tb_cli_capture_open(&c, o->file, &so, stderr);
	if (rc)
		return rc;
	if (tb_session_ndamage(c.s))
		bad = 1; /* listed on stderr: the exit status says so too */
	how = o->json ? TB_TEXT_JSON | (o->with_text ? TB_TEXT_WITH_PRINT : 0u)
		      : (o->raw ? TB_TEXT_FIELDS : TB_TEXT_PRINT) | TB_TEXT_LINE | o->line_flags;
	if (!tb_session_get_info(c.s)->nbuffers && !tb_session_ndamage(c.s))
		fprintf(stderr, "tracebound: %s: no flyrecord data (latency traces are not supported)\n",
			o->file);
	if ((rc = prepare_sel(c.s, o, &sel)) != 0) {
		bad = rc == TB_EXIT_USAGE ? 2 : 1;
		goto done;
	}
	if (!o->json)
		printf("cpus=%u\n", tb_session_get_info(c.s)->ncpus);
	if (o->jobs > 1) {
		/* the parts on o->jobs threads, written in order (report_jobs.c) */
		tb_report_job job = { &c, how, o->json, o->jobs, select_event, &sel };
		int r = tb_report_jobs(&job);
		if (r >= 0) {
			if (r > bad)
				bad = r;
			goto done;
		}
	}
	fflush(stdout); /* what follows goes out with write(2) */
	line.cap = 1 << 16;
	line.p = malloc(line.cap);
	out.buf = malloc(REPORT_OUT_CAP);
	if (!line.p || !out.buf) {
		fprintf(stderr, "tracebound: out of memory\n");
		free(line.p);
		free(out.buf);
		tb_cli_capture_close(&c);
		return TB_EXIT_USAGE;
	}
	for (;;) {
		st = tb_session_next(c.s, &ev, &e);
		if (st == TB_END)
			break;
		if (st != TB_OK) {
			if (out_flush(&out) != 0)
				break;
			tb_cli_print_page_error(&c, &e);
			bad = 1;
			continue;
		}
		if (ev.kind == TB_SEV_DAMAGED) {
			/* the gap is said on stderr and marked in the output, in its
			 * place, whatever the selection */
			if (out_flush(&out) != 0)
				break;
			tb_cli_print_page_error(&c, &ev.damage);
			bad = 1;
			if (out_event(&out, &c, &ev, how, o->json, &line) == -1)
				break;
			continue;
		}
		nevents++;
		if (progress && (nevents & 0xfffff) == 0)
			fprintf(stderr, "\r%llu events", (unsigned long long)nevents);
		if (!selected(&sel, c.s, &ev))
			continue;
		rc = out_event(&out, &c, &ev, how, o->json, &line);
		if (rc == -2) {
			fprintf(stderr, "tracebound: out of memory\n");
			bad = 2;
			break;
		}
		if (rc != 0)
			break;
	}
	(void)out_flush(&out);
	if (out.failed)
		bad = 2;
	if (progress && nevents > 0xfffff)
		fprintf(stderr, "\r\n");
done:
	for (i = 0; i < sel.nflt; i++)
		free(sel.flt[i]);
	free(line.p);
	free(out.buf);
	tb_cli_capture_close(&c);
	return bad == 2 ? TB_EXIT_USAGE : bad ? TB_EXIT_MALFORMED : TB_EXIT_OK;
}

enum { O_RAW = 1, O_JSON, O_TEXT, O_NSECS, O_LAT, O_TSDIFF, O_CPU, O_EVENTS, O_INPUT, O_FILTER,
       O_INVERT, O_JOBS };

static const tb_opt report_options[] = {
	{ O_RAW, "--raw", "-R", NULL, "trace-cmd's -R field listing instead of the print fmt text" },
	{ O_JSON, "--json", NULL, NULL, "one JSON object per event (docs/json.md)" },
	{ O_TEXT, "--text", NULL, NULL, "with --json: add the rendered text" },
	{ O_NSECS, "-t", NULL, NULL, "timestamps in nanoseconds (trace-cmd -t)" },
	{ O_LAT, "-l", NULL, NULL, "the latency columns (trace-cmd -l)" },
	{ O_TSDIFF, "--ts-diff", NULL, NULL, "the time since the previous event (trace-cmd --ts-diff)" },
	{ O_CPU, "--cpu", NULL, "LIST", "only these CPUs (0,2-3)" },
	{ O_EVENTS, "--events", NULL, "LIST", "only these events: names, systems, system:event, globs (sched,irq:softirq_*)" },
	{ O_FILTER, "-F", NULL, "FILTER", "trace-cmd's filter ('sched_switch: prev_pid == 0'); several are or-ed (docs/filter.md)" },
	{ O_INVERT, "-v", NULL, NULL, "the -F filters after it hide what they match" },
	{ O_INPUT, "-i", NULL, "FILE", "the input file (as trace-cmd -i)" },
	{ O_JOBS, "--jobs", "-j", "N", "format on N threads, output unchanged (default: the machine's cores; 1: one thread)" },
	{ 0, NULL, NULL, NULL, NULL },
};

/* Options that would be ignored in silence are a usage error (exit 2). */
static int conflicts(const tb_opts *p, const report_opts *o)
{
	static const struct { unsigned flag; const char *name; } line[] = {
		{ TB_TEXT_NSECS, "-t" }, { TB_TEXT_LATENCY, "-l" }, { TB_TEXT_TSDIFF, "--ts-diff" },
	};
	size_t i;
	if (o->json && o->raw)
		return tb_opts_fail(p, "--raw and --json do not go together (--json always has "
				    "the fields; --json --text adds the print fmt text)");
	if (o->with_text && !o->json)
		return tb_opts_fail(p, "--text goes with --json (the text output has it already)");
	for (i = 0; o->json && i < sizeof(line) / sizeof(line[0]); i++)
		if (o->line_flags & line[i].flag)
			return tb_opts_fail(p, "%s and --json do not go together (%s shapes the text "
					    "line; JSON has every field and the whole \"ts\")",
					    line[i].name, line[i].name);
	if (o->negate_from != SIZE_MAX && o->negate_from == o->nfilters)
		return tb_opts_fail(p, "-v with no -F after it (it inverts the -F filters that "
				    "follow)");
	return 0;
}

int tb_cmd_report(int argc, char **argv)
{
	report_opts o;
	tb_opts p;
	const char *v;
	int id;
	memset(&o, 0, sizeof(o));
	o.negate_from = SIZE_MAX;
	{
		long n = sysconf(_SC_NPROCESSORS_ONLN);
		o.jobs = n > 1 ? (n > 64 ? 64 : (int)n) : 1;
	}
	tb_opts_init(&p, "report", "[OPTIONS] FILE.dat", report_options, argc, argv);
	while ((id = tb_opts_next(&p, &v)) != TB_OPTS_END) {
		switch (id) {
		case TB_OPTS_HELP: return TB_EXIT_OK;
		case TB_OPTS_ERROR: return TB_EXIT_USAGE;
		case O_RAW: o.raw = 1; break;
		case O_JSON: o.json = 1; break;
		case O_TEXT: o.with_text = 1; break;
		case O_NSECS: o.line_flags |= TB_TEXT_NSECS; break;
		case O_LAT: o.line_flags |= TB_TEXT_LATENCY; break;
		case O_TSDIFF: o.line_flags |= TB_TEXT_TSDIFF; break;
		case O_CPU: o.cpus = v; break;
		case O_JOBS: {
			char *end;
			long n = strtol(v, &end, 10);
			if (!*v || *end || n < 1 || n > 64)
				return tb_opts_fail(&p, "--jobs '%s': a number of threads from 1 to 64", v);
			o.jobs = (int)n;
			break;
		}
		case O_EVENTS: o.events = v; break;
		case O_FILTER:
			if (o.nfilters == REPORT_MAX_FILTERS)
				return tb_opts_fail(&p, "more than %d -F filters", REPORT_MAX_FILTERS);
			o.filters[o.nfilters++] = v;
			break;
		case O_INVERT:
			if (o.negate_from != SIZE_MAX)
				return tb_opts_fail(&p, "-v given twice (trace-cmd takes it once)");
			o.negate_from = o.nfilters;
			break;
		case O_INPUT:
		case TB_OPTS_POSITIONAL:
			if (o.file)
				return tb_opts_fail(&p, "a second input file '%s'", v);
			o.file = v;
			break;
		default: break;
		}
	}
	if (!o.file)
		return tb_opts_usage(&p);
	if ((id = conflicts(&p, &o)) != 0)
		return id;
	return report_file(&o);
}
