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
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture.h"
#include "opts.h"

typedef struct report_opts {
	int json, raw, with_text;
	unsigned line_flags;  /* TB_TEXT_NSECS / _LATENCY / _TSDIFF */
	const char *cpus;   /* LIST or NULL */
	const char *events; /* LIST or NULL */
	const char *file;
} report_opts;

/* "0,2-3": is cpu in it?  -1 when the list is malformed. */
static int in_cpu_list(const char *list, uint32_t cpu)
{
	const char *p = list;
	while (*p) {
		char *end;
		unsigned long a = strtoul(p, &end, 10), b;
		if (end == p)
			return -1;
		b = a;
		p = end;
		if (*p == '-') {
			b = strtoul(p + 1, &end, 10);
			if (end == p + 1)
				return -1;
			p = end;
		}
		if (cpu >= a && cpu <= b)
			return 1;
		if (*p == ',')
			p++;
		else if (*p)
			return -1;
	}
	return 0;
}

/* "sched_switch,irq:softirq_entry": does the list name this event? */
static int in_event_list(const char *list, const tb_session_event *ev)
{
	const char *p = list;
	while (*p) {
		const char *end = strchr(p, ',');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		const char *colon = memchr(p, ':', n);
		if (colon) {
			size_t sn = (size_t)(colon - p);
			if (ev->system.len == sn && !memcmp(ev->system.ptr, p, sn) &&
			    ev->name.len == n - sn - 1 && !memcmp(ev->name.ptr, colon + 1, n - sn - 1))
				return 1;
		} else if (ev->name.len == n && !memcmp(ev->name.ptr, p, n)) {
			return 1;
		}
		p += n;
		if (*p == ',')
			p++;
	}
	return 0;
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
	static char outbuf[1 << 18];

	rc = tb_cli_capture_open(&c, o->file, &so, stderr);
	if (rc)
		return rc;
	if (tb_session_ndamage(c.s))
		bad = 1; /* listed on stderr: the exit status says so too */
	setvbuf(stdout, outbuf, _IOFBF, sizeof(outbuf));
	how = o->json ? TB_TEXT_JSON | (o->with_text ? TB_TEXT_WITH_PRINT : 0u)
		      : (o->raw ? TB_TEXT_FIELDS : TB_TEXT_PRINT) | TB_TEXT_LINE | o->line_flags;
	if (!tb_session_get_info(c.s)->nbuffers && !tb_session_ndamage(c.s))
		fprintf(stderr, "tracebound: %s: no flyrecord data (latency traces are not supported)\n",
			o->file);
	if (!o->json)
		printf("cpus=%u\n", tb_session_get_info(c.s)->ncpus);
	line.cap = 1 << 16;
	line.p = malloc(line.cap);
	if (!line.p) {
		fprintf(stderr, "tracebound: out of memory\n");
		tb_cli_capture_close(&c);
		return TB_EXIT_USAGE;
	}
	for (;;) {
		st = tb_session_next(c.s, &ev, &e);
		if (st == TB_END)
			break;
		if (st != TB_OK) {
			fflush(stdout);
			tb_cli_print_page_error(&c, &e);
			bad = 1;
			continue;
		}
		if (ev.kind == TB_SEV_DAMAGED) {
			/* the gap is said on stderr and marked in the output, in its
			 * place, whatever the selection */
			fflush(stdout);
			tb_cli_print_page_error(&c, &ev.damage);
			bad = 1;
			if (tb_cli_render(&c, &ev, how, &line) == 0) {
				if (o->json)
					line.p[line.len++] = '\n';
				if (fwrite(line.p, 1, line.len, stdout) != line.len)
					break;
			}
			continue;
		}
		nevents++;
		if (progress && (nevents & 0xfffff) == 0)
			fprintf(stderr, "\r%llu events", (unsigned long long)nevents);
		if (o->cpus && in_cpu_list(o->cpus, ev.cpu) != 1)
			continue;
		if (o->events && (!ev.format || !in_event_list(o->events, &ev)))
			continue;
		if (tb_cli_render(&c, &ev, how, &line) != 0) {
			fprintf(stderr, "tracebound: out of memory\n");
			bad = 2;
			break;
		}
		if (o->json)
			line.p[line.len++] = '\n'; /* cap >= needed + 2 */
		if (fwrite(line.p, 1, line.len, stdout) != line.len)
			break; /* main() reports the write error */
	}
	if (progress && nevents > 0xfffff)
		fprintf(stderr, "\r\n");
	free(line.p);
	tb_cli_capture_close(&c);
	return bad == 2 ? TB_EXIT_USAGE : bad ? TB_EXIT_MALFORMED : TB_EXIT_OK;
}

enum { O_RAW = 1, O_JSON, O_TEXT, O_NSECS, O_LAT, O_TSDIFF, O_CPU, O_EVENTS, O_INPUT };

static const tb_opt report_options[] = {
	{ O_RAW, "--raw", "-R", NULL, "trace-cmd's -R field listing instead of the print fmt text" },
	{ O_JSON, "--json", NULL, NULL, "one JSON object per event (docs/json.md)" },
	{ O_TEXT, "--text", NULL, NULL, "with --json: add the rendered text" },
	{ O_NSECS, "-t", NULL, NULL, "timestamps in nanoseconds (trace-cmd -t)" },
	{ O_LAT, "-l", NULL, NULL, "the latency columns (trace-cmd -l)" },
	{ O_TSDIFF, "--ts-diff", NULL, NULL, "the time since the previous event (trace-cmd --ts-diff)" },
	{ O_CPU, "--cpu", NULL, "LIST", "only these CPUs (0,2-3)" },
	{ O_EVENTS, "--events", NULL, "LIST", "only these events (name or system:name, comma-separated)" },
	{ O_INPUT, "-i", NULL, "FILE", "the input file (as trace-cmd -i)" },
	{ 0, NULL, NULL, NULL, NULL },
};

int tb_cmd_report(int argc, char **argv)
{
	report_opts o;
	tb_opts p;
	const char *v;
	int id;
	memset(&o, 0, sizeof(o));
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
		case O_EVENTS: o.events = v; break;
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
	if (o.cpus && in_cpu_list(o.cpus, 0) < 0)
		return tb_opts_fail(&p, "option '--cpu': bad list '%s'", o.cpus);
	return report_file(&o);
}
