/*
 * tracebound report: the events of a trace.dat, every CPU merged by time.
 *
 *   tracebound report [--raw] [--json] [--cpu LIST] [--events LIST] FILE.dat
 *
 * --raw prints what `trace-cmd report -N -R FILE.dat` prints, byte for
 * byte; by default each event is rendered through its print fmt as the
 * kernel prints it (cli/report_render.c); --json one
 * object per event (the fields of `tracebound raw --json` plus pid, comm
 * and name) and per drop report.  A malformed page is reported on stderr
 * with its CPU and file offset and skipped; the exit status is then 1.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "datfile.h"
#include "rawfields.h"
#include "report_render.h"

typedef struct report_opts {
	int json;
	int raw;
	const char *cpus;   /* LIST or NULL */
	const char *events; /* LIST or NULL */
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

/* "sched_switch,irq:softirq_entry": does the list name this format? */
static int in_event_list(const char *list, const tb_format *f)
{
	const char *p = list;
	while (*p) {
		const char *end = strchr(p, ',');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		const char *colon = memchr(p, ':', n);
		if (colon) {
			size_t sn = (size_t)(colon - p);
			if (f->system && f->system_len == sn && !memcmp(f->system, p, sn) &&
			    f->name_len == n - sn - 1 && !memcmp(f->name, colon + 1, n - sn - 1))
				return 1;
		} else if (f->name_len == n && !memcmp(f->name, p, n)) {
			return 1;
		}
		p += n;
		if (*p == ',')
			p++;
	}
	return 0;
}

/* trace-cmd prints microseconds for the clocks it knows count ns. */
static int clock_in_usecs(const tb_datfile *df, const tb_dat_buffer *b)
{
	const char *c;
	size_t n;
	char name[32];
	if (b->clock.len) {
		c = b->clock.ptr;
		n = b->clock.len;
	} else {
		/* v6: the bracketed name in the trace_clock text */
		const tb_dat_text *t = df->d.v6_clock.len ? &df->d.v6_clock : &df->d.trace_clock;
		const char *open = t->len ? memchr(t->ptr, '[', t->len) : NULL;
		const char *close = open ? memchr(open, ']', t->len - (size_t)(open - t->ptr)) : NULL;
		if (!open || !close)
			return 1; /* trace-cmd falls back to local */
		c = open + 1;
		n = (size_t)(close - c);
	}
	if (n >= sizeof(name))
		return 0;
	memcpy(name, c, n);
	name[n] = 0;
	return !strcmp(name, "local") || !strcmp(name, "global") ||
	       !strcmp(name, "uptime") || !strcmp(name, "perf") ||
	       !strncmp(name, "mono", 4) || !strcmp(name, "tsc2nsec");
}

static void json_line(FILE *out, const tb_dat_event *ev, const tb_format *f,
		      int32_t pid, const char *comm, size_t comm_len, unsigned id,
		      int has_id)
{
	fprintf(out, "{\"cpu\":%u,\"ts\":%llu,", ev->cpu, (unsigned long long)ev->ts);
	if (has_id)
		fprintf(out, "\"id\":%u", id);
	else
		fputs("\"id\":null", out);
	fprintf(out, ",\"subbuf\":%llu,\"offset\":%u,\"size\":%u,\"pid\":%d,\"comm\":",
		(unsigned long long)ev->page_index, ev->offset, ev->len, pid);
	tb_cli_json_str(out, comm, comm_len);
	if (f) {
		fputs(",\"name\":", out);
		tb_cli_json_str(out, f->name, f->name_len);
	}
	fputs("}\n", out);
}

/* The buffers' streams and the next event of each. */
typedef struct report_src {
	tb_datbuf db;
	tb_dat_event head;
	int has_head, done, usecs;
	const char *prefix;      /* "name: " for an instance */
	size_t prefix_len;
} report_src;

/* Refill src's head: 0, or 1 after printing a page error. */
static int refill(report_src *r, const char *path, FILE *out)
{
	tb_error e;
	tb_status st;
	while (!r->has_head && !r->done) {
		st = tb_dat_stream_next(&r->db.s, &r->head, &e);
		if (st == TB_END) {
			r->done = 1;
			break;
		}
		if (st) {
			fflush(out);
			fprintf(stderr, "tracebound: %s: buffer \"%.*s\" CPU %u, sub-buffer %llu, "
				"file offset %llu: %s (%s)\n",
				path, (int)r->db.b->name.len, r->db.b->name.ptr, r->db.s.error_cpu,
				(unsigned long long)r->db.s.error_page, (unsigned long long)e.offset,
				e.what, tb_strerror(st));
			return 1;
		}
		r->has_head = 1;
	}
	return 0;
}

static int report_file(const char *path, const report_opts *o)
{
	tb_datfile df;
	report_src *src = NULL;
	size_t nsrc = 0, i, maxname = 0;
	rf_ctx *rf = NULL;
	tb_report_render *rr = NULL;
	rf_syms syms;
	rf_out line;
	tb_error e;
	tb_status st;
	int rc, bad = 0, be, progress = isatty(2);
	uint32_t pid_off = 4, pid_size = 4;
	int have_pid = 0;
	long long ts_offset = 0;
	unsigned cpus = 0;
	uint64_t nevents = 0;
	static char outbuf[1 << 18];
	FILE *out = stdout;

	rc = tb_datfile_open(&df, path, stderr, 1);
	if (rc) {
		tb_datfile_perror(&df);
		tb_datfile_close(&df);
		return rc < 0 ? TB_EXIT_USAGE : rc == 1 ? TB_EXIT_MALFORMED : TB_EXIT_USAGE;
	}
	setvbuf(out, outbuf, _IOFBF, sizeof(outbuf));
	be = df.d.big_endian;
	src = calloc(df.d.nbuffers + 1, sizeof(*src));
	line.cap = 1 << 16;
	line.p = malloc(line.cap);
	if (!src || !line.p) {
		fprintf(stderr, "tracebound: %s: out of memory\n", path);
		bad = 2;
		goto done;
	}
	for (i = 0; i < df.d.nbuffers; i++) {
		const tb_dat_buffer *b = &df.d.buffers[i];
		if (b->ncpus > cpus)
			cpus = (unsigned)b->ncpus;
		if (b->name.len && b->name.len > maxname)
			maxname = b->name.len;
	}
	if (df.d.version < 7)
		cpus = df.d.cpu_count;
	for (i = 0; i < df.d.nbuffers; i++) {
		const tb_dat_buffer *b = &df.d.buffers[i];
		report_src *r = &src[nsrc];
		if (b->latency || b->ncpus == 0)
			continue;
		rc = tb_datbuf_open(&df, b, TB_DAT_STREAM_TC_DROPS, &r->db, &st, &e);
		if (rc == 2) {
			fprintf(stderr, "tracebound: %s: out of memory\n", path);
			bad = 2;
			goto done;
		}
		if (rc == 1) {
			fprintf(stderr, "tracebound: %s: buffer \"%.*s\": %s at offset %llu (%s)\n", path,
				(int)b->name.len, b->name.ptr, e.what, (unsigned long long)e.offset,
				tb_strerror(st));
			tb_datbuf_close(&r->db);
			bad = 1;
			continue;
		}
		r->usecs = clock_in_usecs(&df, b);
		r->prefix = b->name.ptr;
		r->prefix_len = b->name.len;
		nsrc++;
	}
	if (!nsrc && !bad)
		fprintf(stderr, "tracebound: %s: no flyrecord data (latency traces are not supported)\n",
			path);
	rf_ksyms_prepare(df.ks.v, df.ks.n);
	syms.ks = df.ks.v;
	syms.nks = df.ks.n;
	syms.ktext = df.ks.text;
	syms.printk = &df.pk;
	syms.long_size = df.layout.long_size;
	syms.big_endian = be;
	rf = rf_new(&df.set, &syms);
	if (!o->raw && !o->json)
		rr = tb_report_render_new(&df, TB_RENDER_KNOWN_ENUMS | TB_RENDER_KERNEL_STYLE);
	/* the OFFSET option shifts every timestamp (DATE is ignored by
	 * trace-cmd report unless asked for) */
	if (df.d.ts_offset.len && df.d.ts_offset.len < 32) {
		char num[32];
		memcpy(num, df.d.ts_offset.ptr, df.d.ts_offset.len);
		num[df.d.ts_offset.len] = 0;
		ts_offset = strtoll(num, NULL, 0);
	}
	if (!o->json)
		fprintf(out, "cpus=%u\n", cpus);
	for (;;) {
		tb_dat_event ev;
		report_src *r = NULL;
		const tb_format *f = NULL;
		int32_t pid = 0;
		size_t clen;
		const char *comm;
		unsigned id = 0;
		int has_id;
		/* the earliest head over the buffers (ties: the earlier buffer) */
		for (i = 0; i < nsrc; i++) {
			while (refill(&src[i], path, out))
				bad = 1;
			if (src[i].has_head && (!r || src[i].head.ts < r->head.ts))
				r = &src[i];
		}
		if (!r)
			break;
		ev = r->head;
		r->has_head = 0;
		ev.ts += (uint64_t)ts_offset;
		nevents++;
		if (progress && (nevents & 0xfffff) == 0)
			fprintf(stderr, "\r%llu events", (unsigned long long)nevents);
		if (o->cpus && in_cpu_list(o->cpus, ev.cpu) != 1)
			continue;
		has_id = ev.len >= 2;
		if (has_id)
			id = tb_load16(ev.data, be);
		f = tb_datfile_lookup(&df, ev.data, ev.len);
		if (f && !have_pid) {
			/* common_pid: where the first format puts it */
			const tb_field *pf = tb_format_field(f, "common_pid");
			if (pf) {
				pid_off = pf->offset;
				pid_size = pf->size;
			}
			have_pid = 1;
		}
		if (o->events && (!f || !in_event_list(o->events, f)))
			continue;
		if (pid_off <= ev.len && pid_size <= ev.len - pid_off && pid_size == 4)
			pid = (int32_t)tb_load32(ev.data + pid_off, be);
		comm = tb_datfile_comm(&df, pid, &clen);
		if (o->json) {
			if (ev.missed)
				fprintf(out, "{\"cpu\":%u,\"missed\":%lld,\"subbuf\":%llu}\n", ev.cpu,
					(long long)ev.missed, (unsigned long long)ev.page_index);
			json_line(out, &ev, f, pid, comm, clen, id, has_id);
			continue;
		}
		line.len = 0;
		line.truncated = 0;
		/* with instances, every record starts with its buffer's name;
		 * a drop report comes between the name and the event, as
		 * trace-cmd prints it */
		if (maxname) {
			if (r->prefix_len) {
				tb_ob_put(&line, r->prefix, r->prefix_len);
				tb_ob_put(&line, ": ", 2);
				tb_ob_fill(&line, ' ', maxname - r->prefix_len);
			} else {
				tb_ob_fill(&line, ' ', maxname + 2);
			}
		}
		if (ev.missed > 0)
			rf_printf(&line, "CPU:%u [%lld EVENTS DROPPED]\n", ev.cpu,
				  (long long)ev.missed);
		else if (ev.missed < 0)
			rf_printf(&line, "CPU:%u [EVENTS DROPPED]\n", ev.cpu);
		if (!f) {
			tb_ob_puts(&line, "[UNKNOWN EVENT][UNKNOWN EVENT] (NULL):               "
				       "[UNKNOWN EVENT]\n");
			fwrite(line.p, 1, line.len, out);
			continue;
		}
		if (clen < 16)
			tb_ob_fill(&line, ' ', 16 - clen);
		tb_ob_put(&line, comm, clen);
		tb_ob_put(&line, "-", 1);
		tb_ob_int(&line, pid, 5, TB_OB_LEFT);
		tb_ob_put(&line, " [", 2);
		tb_ob_uint(&line, ev.cpu, 10, 3, TB_OB_ZERO);
		tb_ob_put(&line, "] ", 2);
		if (r->usecs) {
			uint64_t t = ev.ts / 1000 + (ev.ts % 1000 >= 500);
			tb_ob_uint(&line, t / 1000000, 10, 5, 0);
			tb_ob_put(&line, ".", 1);
			tb_ob_uint(&line, t % 1000000, 10, 6, TB_OB_ZERO);
		} else {
			tb_ob_uint(&line, ev.ts, 10, 12, 0);
		}
		tb_ob_put(&line, ": ", 2);
		tb_ob_put(&line, f->name, f->name_len);
		tb_ob_put(&line, ":", 1);
		tb_ob_fill(&line, ' ', f->name_len < 20 ? 21 - f->name_len : 1);
		if (rr)
			tb_report_render_event(rr, &line, f, ev.data, ev.len);
		else
			rf_fields(rf, &line, f, ev.data, ev.len);
		/* trace-cmd ends the line only when the fields did not (a
		 * string field can end in a newline) */
		if (line.len == 0 || line.p[line.len - 1] != '\n')
			tb_ob_put(&line, "\n", 1);
		if (line.truncated) {
			memcpy(line.p + line.cap - 16, "...[truncated]\n", 15);
			line.len = line.cap - 1;
		}
		fwrite(line.p, 1, line.len, out);
	}
done:
	if (progress && nevents > 0xfffff)
		fprintf(stderr, "\r\n");
	fflush(out);
	rf_free(rf);
	tb_report_render_free(rr);
	for (i = 0; src && i < nsrc; i++)
		tb_datbuf_close(&src[i].db);
	free(src);
	free(line.p);
	tb_datfile_close(&df);
	return bad == 2 ? TB_EXIT_USAGE : bad ? TB_EXIT_MALFORMED : TB_EXIT_OK;
}

int tb_report_legacy(int argc, char **argv)
{
	report_opts o;
	const char *file = NULL;
	int i;
	memset(&o, 0, sizeof(o));
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--raw") || !strcmp(a, "-R"))
			o.raw = 1;
		else if (!strcmp(a, "--json"))
			o.json = 1;
		else if (!strcmp(a, "--cpu") && i + 1 < argc)
			o.cpus = argv[++i];
		else if (!strcmp(a, "--events") && i + 1 < argc)
			o.events = argv[++i];
		else if (!strcmp(a, "-i") && i + 1 < argc && !file)
			file = argv[++i];
		else if (a[0] == '-' && a[1])
			return usage();
		else if (!file)
			file = a;
		else
			return usage();
	}
	if (!file)
		return usage();
	if (o.cpus && in_cpu_list(o.cpus, 0) < 0) {
		fprintf(stderr, "tracebound: --cpu: bad list '%s'\n", o.cpus);
		return TB_EXIT_USAGE;
	}
	return report_file(file, &o);
}
