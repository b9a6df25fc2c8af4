/*
 * tracebound report: the events of a trace.dat, every CPU of every buffer
 * merged by time.
 *
 *   tracebound report [--raw] [--json] [--cpu LIST] [--events LIST] FILE.dat...
 *
 * Each event is a line as trace-cmd prints it, its text rendered through
 * the print fmt as the kernel renders it; --raw gives trace-cmd's -R field
 * listing (byte-identical to `trace-cmd report -N -R`); --json one object
 * per event (docs/json.md).  Several files are merged by time, each line
 * prefixed by its file's (or instance's) name as trace-cmd does.
 * --uname, --version, --stat, --cpus, --first-event and --last-event print
 * what trace-cmd prints for them instead of the events.  All of it is the
 * library session's: this file parses options and writes lines.  A
 * malformed page is reported on stderr with where it was, and the exit
 * status is then 1.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture.h"
#include "opts.h"
#include "report_jobs.h"

#define REPORT_MAX_FILTERS TB_SELECTION_MAX_FILTERS
#define REPORT_MAX_FILES TB_REPORT_MAX_FILES

/* What to print instead of the events (trace-cmd's precedence: the CPU
 * list first, then --version, --uname, --stat: TB_REPORT_* of report.h). */
#define SHOW_EVENTS 0
#define LIST_CPUS  0x100u /* and TB_REPORT_FIRST, TB_REPORT_LAST */

typedef struct report_input {
	const char *path;
	int64_t ts_offset;    /* --ts-offset after it */
} report_input;

typedef struct report_opts {
	int json, raw, with_text;
	unsigned line_flags;  /* TB_TEXT_NSECS / _LATENCY / _TSDIFF */
	const char *cpus;   /* LIST or NULL */
	const char *filters[REPORT_MAX_FILTERS]; /* -F, in order */
	size_t nfilters, negate_from;            /* -F after -v hide what they match */
	const char *events; /* LIST or NULL */
	report_input in[REPORT_MAX_FILES];
	size_t nin;
	int show;             /* SHOW_EVENTS, TB_REPORT_STAT... */
	unsigned list;        /* LIST_CPUS, TB_REPORT_FIRST... */
	uint64_t from, to;    /* the window (0, UINT64_MAX: none) */
	const char *from_text, *to_text;
	int jobs;             /* --jobs N (1: one thread) */
	int jobs_given;       /* --jobs was on the command line */
} report_opts;

/* Say what e is about ("--events", "--cpu", "-F"): the exit status. */
static int say_sel(const report_opts *o, const tb_selection *sel, uint32_t maxcpus,
		   const tb_selection_error *e)
{
	const char *opt = e->part == TB_SELECTION_EVENTS ? "--events" : "-F";
	const char *text = e->part == TB_SELECTION_EVENTS ? o->events
			   : e->index < o->nfilters ? o->filters[e->index] : "";
	if (e->error.status == TB_ERR_NO_SPACE || e->part == TB_SELECTION_SESSION) {
		fprintf(stderr, "tracebound: out of memory\n");
	} else if (e->part == TB_SELECTION_CPUS) {
		fprintf(stderr, "tracebound report: --cpu '%s': %s at byte %llu (the capture has "
				"%u CPUs)\n", o->cpus, e->error.what,
			(unsigned long long)e->error.offset, maxcpus);
	} else if (e->error.status == TB_NOT_FOUND && e->part == TB_SELECTION_EVENTS) {
		size_t n;
		const char *t = tb_selection_item(sel, e->index, &n);
		fprintf(stderr, "tracebound report: no event matches '%.*s'\n", (int)n, t);
	} else if (e->error.status == TB_NOT_FOUND) {
		/* trace-cmd: "Failed to create event filter: X" */
		fprintf(stderr, "tracebound report: -F '%s': no event of the capture matches it\n",
			text);
	} else if (e->format) {
		fprintf(stderr, "tracebound report: -F '%s': %.*s: %s at byte %llu (%s)\n", text,
			(int)e->format->name_len, e->format->name, e->error.what,
			(unsigned long long)e->error.offset, tb_strerror(e->error.status));
	} else {
		fprintf(stderr, "tracebound report: %s '%s': %s at byte %llu (%s)\n", opt, text,
			e->error.what, (unsigned long long)e->error.offset,
			tb_strerror(e->error.status));
	}
	return TB_EXIT_USAGE;
}

/* The selection (selection.h) of --events, --cpu, -F and the window,
 * bound to every capture and checked: 0, or an exit status. */
static int prepare_sel(tb_cli_capture *caps, size_t ncaps, const report_opts *o,
		       tb_selection *sel)
{
	tb_selection_spec spec;
	tb_selection_error e;
	uint32_t maxcpus = 1;
	size_t i, c;
	memset(&spec, 0, sizeof(spec));
	for (c = 0; c < ncaps; c++)
		if (tb_session_get_info(caps[c].s)->ncpus > maxcpus)
			maxcpus = tb_session_get_info(caps[c].s)->ncpus;
	spec.events.ptr = o->events;
	spec.events.len = o->events ? strlen(o->events) : 0;
	spec.cpus.ptr = o->cpus;
	spec.cpus.len = o->cpus ? strlen(o->cpus) : 0;
	spec.ncpus = maxcpus;
	spec.from = o->from;
	spec.to = o->to;
	for (i = 0; i < o->nfilters; i++) {
		spec.filters[i].ptr = o->filters[i];
		spec.filters[i].len = strlen(o->filters[i]);
	}
	spec.nfilters = o->nfilters;
	spec.negate_from = o->negate_from;
	if (tb_selection_init(sel, &spec, &tb_cli_heap, &e) != TB_OK)
		return say_sel(o, sel, maxcpus, &e);
	for (c = 0; c < ncaps; c++)
		if (tb_selection_bind(sel, caps[c].s, &e) != TB_OK)
			return say_sel(o, sel, maxcpus, &e);
	if (tb_selection_check(sel, &e) != TB_OK)
		return say_sel(o, sel, maxcpus, &e);
	return 0;
}

static int select_event(const void *ctx, const tb_session *s, const tb_session_event *ev)
{
	return tb_selection_match(ctx, s, ev);
}

/* Read every event (the CPU statistics then hold each CPU's first and
 * last): 0, or 1 when a page was damaged (said on stderr). */
static int walk_all(tb_cli_capture *c)
{
	tb_session_event ev;
	tb_error e;
	tb_status st;
	int bad = 0;
	while ((st = tb_session_next(c->s, &ev, &e)) != TB_END) {
		if (st != TB_OK) {
			tb_cli_print_page_error(c, &e);
			bad = 1;
		} else if (ev.kind == TB_SEV_DAMAGED) {
			tb_cli_print_page_error(c, &ev.damage);
			bad = 1;
		}
	}
	return bad;
}

/* A problem of tb_report_info's, said once (the text may be written twice). */
typedef struct info_said {
	const char *path;
	size_t said, seen;
} info_said;

static void say_info_problem(void *ctx, uint32_t cpu, const tb_error *e)
{
	info_said *w = ctx;
	char where[32] = "options";
	if (w->seen++ < w->said)
		return;
	w->said++;
	if (cpu != UINT32_MAX)
		snprintf(where, sizeof(where), "CPU %u", cpu);
	fprintf(stderr, "tracebound: %s: %s: %s at file offset %llu (%s)\n", w->path, where,
		e->what, (unsigned long long)e->offset, tb_strerror(e->status));
}

/* The name before a line (report_jobs.h): its length, and the file's on stdout. */
static size_t prefix_len(const tb_cli_capture *c, uint32_t buffer)
{
	return (size_t)tb_report_prefix(NULL, 0, c, buffer, 0) - 2;
}

static void put_file_prefix(const tb_cli_capture *c, size_t width)
{
	char pre[600];
	if (tb_report_prefix(pre, sizeof(pre), c, UINT32_MAX, width) > 0)
		fputs(pre, stdout);
}

static int report_files(const report_opts *o)
{
	/* a perf.data's text as perf script prints it (docs/perfdata.md) */
	tb_session_options so = { TB_SESSION_TC_DROPS | TB_SESSION_SKIP_DAMAGED | TB_SESSION_PERF_TEXT,
				  TB_RENDER_KNOWN_ENUMS | TB_RENDER_KERNEL_STYLE };
	static tb_cli_capture caps[REPORT_MAX_FILES];
	static tb_selection sel;
	static char outbuf[1 << 18];
	tb_cli_text text = { { NULL, 0, 0, 0, -1 }, NULL, 0 };
	unsigned how;
	int rc = 0, bad = 0, multi = o->nin > 1, jobs;
	size_t i, k, ncaps = 0, width = 0;

	memset(&sel, 0, sizeof(sel));
	for (k = 0; k < o->nin; k++) {
		rc = tb_cli_capture_open(&caps[k], o->in[k].path, &so, stderr);
		if (rc)
			goto done;
		ncaps++;
		if (tb_session_ndamage(caps[k].s))
			bad = 1; /* listed on stderr: the exit status says so too */
		tb_session_add_ts_offset(caps[k].s, o->in[k].ts_offset);
		if (prefix_len(&caps[k], UINT32_MAX) > width)
			width = prefix_len(&caps[k], UINT32_MAX);
	}
	setvbuf(stdout, outbuf, _IOFBF, sizeof(outbuf));
	if (o->list) {
		unsigned flags = (o->list & (TB_REPORT_FIRST | TB_REPORT_LAST)) |
				 (o->line_flags & TB_TEXT_NSECS ? TB_REPORT_NSECS : 0u);
		for (k = 0; k < ncaps; k++) {
			bad |= walk_all(&caps[k]);
			TB_CLI_PRINT(&text, stdout, tb_report_cpus(&text.t, caps[k].s, caps[k].path,
								   strlen(caps[k].path), flags));
		}
		goto done;
	}
	for (k = 0; o->show != SHOW_EVENTS && k < ncaps; k++) {
		info_said w = { caps[k].path, 0, 0 };
		size_t problems;
		if (multi)
			put_file_prefix(&caps[k], width);
		TB_CLI_PRINT(&text, stdout, (w.seen = 0, problems = tb_report_info(
			     &text.t, caps[k].s, o->show, say_info_problem, &w)));
		bad |= problems != 0;
	}
	if (o->show != SHOW_EVENTS)
		goto done;
	how = o->json ? TB_TEXT_JSON | (o->with_text ? TB_TEXT_WITH_PRINT : 0u)
		      : (o->raw ? TB_TEXT_FIELDS : TB_TEXT_PRINT) | TB_TEXT_LINE | o->line_flags |
				(multi ? TB_TEXT_NO_BUFFER : 0u);
	for (k = 0; k < ncaps; k++)
		if (!tb_session_get_info(caps[k].s)->nbuffers && !tb_session_ndamage(caps[k].s))
			fprintf(stderr, "tracebound: %s: no flyrecord data (latency traces are not "
					"supported)\n", caps[k].path);
	if ((rc = prepare_sel(caps, ncaps, o, &sel)) != 0)
		goto done;
	for (k = 0; multi && o->json && k < ncaps; k++)
		tb_session_set_json_file(caps[k].s, caps[k].path, strlen(caps[k].path)); /* which file */
	/* "cpus=" per file; trace-cmd's name width then has only the
	 * instances of the files before (it learns them file by file) */
	for (k = 0; !o->json && k < ncaps; k++) {
		if (multi)
			put_file_prefix(&caps[k], width);
		if (!tb_session_get_info(caps[k].s)->is_perf) /* perf script has no header */
			printf("cpus=%u\n", tb_session_get_info(caps[k].s)->ncpus);
		for (i = 0; multi && i < tb_session_get_info(caps[k].s)->nbuffers; i++)
			if (prefix_len(&caps[k], (uint32_t)i) > width)
				width = prefix_len(&caps[k], (uint32_t)i);
	}
	{
		/* one file: its parts on `jobs` threads (o->jobs, or fewer
		 * within the budget), or on one, written in order; several:
		 * merged by time (report_jobs.c); with nothing selected, no
		 * call per event to learn so */
		tb_report_job job = { caps, ncaps, width, how, o->json, 1, isatty(2),
				      tb_selection_all(&sel) ? NULL : select_event, &sel };
		if (ncaps == 1 && tb_opts_jobs_for(o->jobs, o->jobs_given, caps[0].f.len) > 1)
			job.jobs = tb_cli_budget_jobs(caps[0].s, caps[0].path, o->jobs);
		jobs = tb_report_jobs(&job);
		if (jobs == 2)
			rc = TB_EXIT_USAGE;
		else if (jobs)
			bad = 1;
	}
done:
	tb_cli_text_free(&text);
	for (k = 0; k < ncaps; k++)
		tb_cli_capture_close(&caps[k]);
	tb_selection_free(&sel); /* after the sessions that keep its sets */
	if (rc)
		return rc;
	return bad ? TB_EXIT_MALFORMED : TB_EXIT_OK;
}

enum { O_RAW = 1, O_JSON, O_TEXT, O_NSECS, O_LAT, O_TSDIFF, O_CPU, O_EVENTS, O_INPUT, O_FILTER,
       O_INVERT, O_UNAME, O_VERSION, O_STAT, O_CPUS, O_FIRST, O_LAST, O_TSOFFSET, O_FROM, O_TO,
       O_KALLSYMS };

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
	{ O_FROM, "--from", NULL, "TIME", "only events at or after TIME: ns, or s.us as lines print it (193.379737: from the first line printed so)" },
	{ O_TO, "--to", NULL, "TIME", "only events at or before TIME (193.379737: up to the last line printed so)" },
	{ O_INPUT, "-i", NULL, "FILE", "an input file (as trace-cmd -i); several are merged by time, each line named" },
	{ O_TSOFFSET, "--ts-offset", NULL, "NS", "add NS (may be negative) to the times of the file named before it" },
	{ O_CPUS, "--cpus", NULL, NULL, "only list the CPUs that hold events (trace-cmd --cpus)" },
	{ O_FIRST, "--first-event", NULL, NULL, "list each CPU's first event time (trace-cmd --first-event)" },
	{ O_LAST, "--last-event", NULL, NULL, "list each CPU's last event time (trace-cmd --last-event)" },
	{ O_STAT, "--stat", NULL, NULL, "only the kernel's buffer statistics and the CPU data (trace-cmd --stat)" },
	{ O_UNAME, "--uname", NULL, NULL, "only the traced system's uname and the recorder's version (trace-cmd --uname)" },
	{ O_VERSION, "--version", NULL, NULL, "only the version of the trace-cmd that recorded it (trace-cmd --version)" },
	{ O_KALLSYMS, "--kallsyms", NULL, "FILE", "a perf.data's kernel frames named from FILE (/proc/kallsyms of the traced machine)" },
	{ TB_OPT_JOBS, "--jobs", "-j", "N", "format on N threads, output unchanged (default: the machine's cores, one under 16 MiB; 1: one thread; one file)" },
	TB_CLI_MAX_MEMORY_OPT,
	{ 0, NULL, NULL, NULL, NULL },
};

/* A signed decimal number of nanoseconds: 0, or a message and -1. */
static int parse_offset(const tb_opts *p, const char *val, int64_t *out)
{
	char *end;
	long long v;
	errno = 0;
	v = strtoll(val, &end, 10);
	if (!*val || *end || errno || (val[0] != '-' && val[0] != '+' && (val[0] < '0' || val[0] > '9'))) {
		tb_opts_fail(p, "option '--ts-offset': '%s' is not a number of nanoseconds", val);
		return -1;
	}
	*out = (int64_t)v;
	return 0;
}

static int parse_time(const tb_opts *p, const char *opt, const char *val, int is_end,
		      uint64_t *out)
{
	tb_error e;
	if (tb_session_time_parse(val, strlen(val), is_end, out, &e) != TB_OK) {
		tb_opts_fail(p, "option '%s': '%s': %s at byte %llu (a time is nanoseconds, "
				"193379737000, or seconds as report prints them, 193.379737)",
			     opt, val, e.what, (unsigned long long)e.offset);
		return -1;
	}
	return 0;
}

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
	static report_opts o;
	tb_cli_file kallsyms;
	tb_opts p;
	const char *v;
	int id;
	memset(&o, 0, sizeof(o));
	memset(&kallsyms, 0, sizeof(kallsyms));
	o.negate_from = SIZE_MAX;
	o.to = UINT64_MAX;
	tb_opts_init(&p, "report", "[OPTIONS] FILE.dat...", report_options, argc, argv);
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
		case O_EVENTS: o.events = v; break;
		case O_KALLSYMS:
			if (kallsyms.data)
				return tb_opts_fail(&p, "--kallsyms given twice");
			if (tb_cli_load(v, &kallsyms) != 0)
				return TB_EXIT_USAGE;
			tb_cli_perf_kallsyms.ptr = (const char *)kallsyms.data;
			tb_cli_perf_kallsyms.len = kallsyms.len;
			break;
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
		case O_CPUS: o.list |= LIST_CPUS; break;
		case O_FIRST: o.list |= LIST_CPUS | TB_REPORT_FIRST; break;
		case O_LAST: o.list |= LIST_CPUS | TB_REPORT_LAST; break;
		/* trace-cmd: --version over --uname over --stat */
		case O_STAT: if (o.show < TB_REPORT_STAT) o.show = TB_REPORT_STAT; break;
		case O_UNAME: if (o.show < TB_REPORT_UNAME) o.show = TB_REPORT_UNAME; break;
		case O_VERSION: o.show = TB_REPORT_VERSION; break;
		case O_FROM:
			if (parse_time(&p, "--from", v, 0, &o.from))
				return TB_EXIT_USAGE;
			o.from_text = v;
			break;
		case O_TO:
			if (parse_time(&p, "--to", v, 1, &o.to))
				return TB_EXIT_USAGE;
			o.to_text = v;
			break;
		case O_TSOFFSET:
			if (!o.nin)
				return tb_opts_fail(&p, "--ts-offset '%s' before any input file (it "
							"applies to the file named before it)", v);
			if (parse_offset(&p, v, &o.in[o.nin - 1].ts_offset))
				return TB_EXIT_USAGE;
			break;
		case O_INPUT:
		case TB_OPTS_POSITIONAL:
			if (o.nin == REPORT_MAX_FILES)
				return tb_opts_fail(&p, "more than %d input files ('%s')",
						    REPORT_MAX_FILES, v);
			o.in[o.nin++].path = v;
			break;
		default: break;
		}
	}
	o.jobs = p.v.jobs;
	o.jobs_given = p.v.jobs_given;
	if (!o.nin)
		return tb_opts_usage(&p);
	if (o.from_text && o.to_text && o.to < o.from)
		return tb_opts_fail(&p, "--to '%s' is before --from '%s'", o.to_text, o.from_text);
	if ((id = conflicts(&p, &o)) == 0)
		id = report_files(&o);
	if (kallsyms.data)
		tb_cli_unload(&kallsyms);
	return id;
}
