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

typedef struct report_opts {
	int json, raw, with_text;
	unsigned line_flags;  /* TB_TEXT_NSECS / _LATENCY / _TSDIFF */
	const char *cpus;   /* LIST or NULL */
	const char *events; /* LIST or NULL */
	const char *file;
} report_opts;

static int usage(void)
{
	fprintf(stderr, "usage: tracebound report [--raw] [--json] [--cpu LIST] "
			"[--events LIST] FILE.dat\n");
	return TB_EXIT_USAGE;
}

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
	tb_session_options so = { TB_SESSION_TC_DROPS,
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

int tb_cmd_report(int argc, char **argv)
{
	report_opts o;
	int i;
	memset(&o, 0, sizeof(o));
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--raw") || !strcmp(a, "-R"))
			o.raw = 1;
		else if (!strcmp(a, "--json"))
			o.json = 1;
		else if (!strcmp(a, "--text"))
			o.with_text = 1;
		else if (!strcmp(a, "-t"))
			o.line_flags |= TB_TEXT_NSECS;
		else if (!strcmp(a, "-l"))
			o.line_flags |= TB_TEXT_LATENCY;
		else if (!strcmp(a, "--ts-diff"))
			o.line_flags |= TB_TEXT_TSDIFF;
		else if (!strcmp(a, "--cpu") && i + 1 < argc)
			o.cpus = argv[++i];
		else if (!strcmp(a, "--events") && i + 1 < argc)
			o.events = argv[++i];
		else if (!strcmp(a, "-i") && i + 1 < argc && !o.file)
			o.file = argv[++i];
		else if (a[0] == '-' && a[1])
			return usage();
		else if (!o.file)
			o.file = a;
		else
			return usage();
	}
	if (!o.file)
		return usage();
	if (o.cpus && in_cpu_list(o.cpus, 0) < 0) {
		fprintf(stderr, "tracebound: --cpu: bad list '%s'\n", o.cpus);
		return TB_EXIT_USAGE;
	}
	return report_file(&o);
}
