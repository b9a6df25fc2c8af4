/*
 * tracebound stats FILE.dat: the uname; per buffer its trace clock, events
 * per type (most frequent first) and per CPU (with its drops), drops and
 * the time span.  Counting only: the walk is the session's.
 */
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "opts.h"

typedef struct type_count {
	const tb_format *f;
	uint64_t n;
} type_count;

typedef struct cpu_span {
	uint32_t cpu;
	uint64_t events, first, last;
} cpu_span;

typedef struct buf_stats {
	uint64_t events, first, last, errors;
	type_count *types;       /* formats met (sorted when printed) */
	size_t ntypes, cap;
	uint64_t unknown;
	cpu_span *cpus;
	size_t ncpus;
} buf_stats;

static void print_ts(uint64_t ts)
{
	printf("%llu.%09llu", (unsigned long long)(ts / 1000000000u),
	       (unsigned long long)(ts % 1000000000u));
}

/* Count ev under its type (a short list: a capture uses tens of types;
 * the last type met is checked first). */
static int count_type(buf_stats *b, const tb_format *f)
{
	size_t i;
	if (b->ntypes && b->types[b->ntypes - 1].f == f) {
		b->types[b->ntypes - 1].n++;
		return 0;
	}
	for (i = 0; i < b->ntypes; i++)
		if (b->types[i].f == f) {
			b->types[i].n++;
			return 0;
		}
	if (b->ntypes == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 64;
		type_count *t = realloc(b->types, cap * sizeof(*t));
		if (!t)
			return -1;
		b->types = t;
		b->cap = cap;
	}
	b->types[b->ntypes].f = f;
	b->types[b->ntypes].n = 1;
	b->ntypes++;
	return 0;
}

static void count_event(buf_stats *b, const tb_session_event *ev)
{
	size_t i;
	if (!b->events || ev->ts < b->first)
		b->first = ev->ts;
	if (!b->events || ev->ts > b->last)
		b->last = ev->ts;
	b->events++;
	for (i = 0; i < b->ncpus; i++)
		if (b->cpus[i].cpu == ev->cpu) {
			if (!b->cpus[i].events)
				b->cpus[i].first = ev->ts;
			b->cpus[i].last = ev->ts;
			b->cpus[i].events++;
			break;
		}
}

/* Text from the capture, unprintable bytes as \xNN (a trailing newline dropped). */
static void print_text(const char *p, size_t n)
{
	size_t i;
	while (n && (p[n - 1] == '\n' || p[n - 1] == '\0'))
		n--;
	for (i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)p[i];
		if (ch >= 0x20 && ch < 0x7f && ch != '\\')
			putchar(ch);
		else
			printf("\\x%02x", ch);
	}
}

static int name_cmp(const tb_format *a, const tb_format *b)
{
	size_t n;
	int r;
	n = a->system_len < b->system_len ? a->system_len : b->system_len;
	r = n ? memcmp(a->system, b->system, n) : 0;
	if (r || a->system_len != b->system_len)
		return r ? r : a->system_len < b->system_len ? -1 : 1;
	n = a->name_len < b->name_len ? a->name_len : b->name_len;
	r = n ? memcmp(a->name, b->name, n) : 0;
	if (r || a->name_len != b->name_len)
		return r ? r : a->name_len < b->name_len ? -1 : 1;
	return 0;
}

/* Most frequent first; equal counts by system:event. */
static int type_cmp(const void *pa, const void *pb)
{
	const type_count *a = pa, *b = pb;
	if (a->n != b->n)
		return a->n > b->n ? -1 : 1;
	return name_cmp(a->f, b->f);
}

static void print_buffer(const tb_cli_capture *c, size_t k, buf_stats *b);

/* A perf.data: what its header says, then its one stream as a buffer. */
static void print_perf(const tb_cli_capture *c, const char *path, buf_stats *b)
{
	const tb_perf *f = tb_session_perf(c->s);
	printf("file: %s\nformat: perf.data%s\ncompression: %s\n", path,
	       f->pipe ? " (pipe stream)" : "", f->has_compression ? "zstd" : "none");
	printf("hostname: ");
	print_text((const char *)f->hostname.ptr, f->hostname.len < 64 ? f->hostname.len : 64);
	printf("\nosrelease: ");
	print_text((const char *)f->osrelease.ptr, f->osrelease.len < 64 ? f->osrelease.len : 64);
	printf("\nperf version: ");
	print_text((const char *)f->version.ptr, f->version.len < 64 ? f->version.len : 64);
	printf("\nattrs: %zu\n\n", f->nattrs);
	print_buffer(c, 0, b);
}

/* Raw dumps: the layout the source rule found, then the one buffer. */
static void print_raw(const tb_cli_capture *c, const char *path, buf_stats *b)
{
	const tb_session_info *in = tb_session_get_info(c->s);
	const tb_session_buffer_info *bi = tb_session_buffer(c->s, 0);
	printf("file: %s\nformat: raw sub-buffers (%zu dumps)\nbyte order: %s\nlong size: %u\n"
	       "formats: %zu\n\n",
	       path, c->nraw, in->big_endian ? "big-endian" : "little-endian", in->long_size,
	       in->nformats);
	if (bi)
		print_buffer(c, 0, b);
}

static void print_buffer(const tb_cli_capture *c, size_t k, buf_stats *b)
{
	uint64_t pages = 0, dropped = 0, unknown = 0;
	size_t i;
	for (i = 0; i < b->ncpus; i++) {
		tb_session_cpu_stats cs;
		if (tb_session_cpu_stats_get(c->s, k, b->cpus[i].cpu, &cs) == TB_OK) {
			pages += cs.pages;
			dropped += cs.dropped;
			unknown += cs.drops_unknown;
		}
	}
	{
		const tb_session_buffer_info *bi = tb_session_buffer(c->s, k);
		const tb_dat *d = tb_session_dat(c->s);
		const tb_dat_buffer *db = d ? tb_dat_find_buffer(d, "") : NULL;
		size_t j;
		for (j = 0; d && j < d->nbuffers; j++)
			if (d->buffers[j].name.ptr == bi->name.ptr)
				db = &d->buffers[j];
		printf("trace clock: ");
		print_text(bi->clock.ptr, bi->clock.len);
		/* the session names "local" when the file says nothing */
		if (d && !(db && db->clock.len) && !d->v6_clock.len && !d->trace_clock.len)
			printf(" (not recorded: trace-cmd's default)");
		printf("\n");
	}
	printf("events: %llu\npages: %llu\ndropped: %llu%s\n", (unsigned long long)b->events,
	       (unsigned long long)pages, (unsigned long long)dropped,
	       unknown ? " (plus drops of unknown size)" : "");
	if (b->events) {
		printf("first: ");
		print_ts(b->first);
		printf("\nlast: ");
		print_ts(b->last);
		printf("\nspan: ");
		print_ts(b->last - b->first);
		printf(" s\n");
	}
	printf("per cpu:\n");
	for (i = 0; i < b->ncpus; i++) {
		tb_session_cpu_stats cs;
		printf("  cpu %u: %llu events", b->cpus[i].cpu, (unsigned long long)b->cpus[i].events);
		if (b->cpus[i].events) {
			printf(", ");
			print_ts(b->cpus[i].first);
			printf(" .. ");
			print_ts(b->cpus[i].last);
		}
		if (tb_session_cpu_stats_get(c->s, k, b->cpus[i].cpu, &cs) == TB_OK) {
			printf(", %llu dropped", (unsigned long long)cs.dropped);
			if (cs.drops_unknown)
				printf(" (plus %llu drops of unknown size)",
				       (unsigned long long)cs.drops_unknown);
			if (cs.damaged_pages)
				printf(", %llu damaged pages", (unsigned long long)cs.damaged_pages);
		}
		printf("\n");
	}
	if (b->ntypes > 1) /* types is NULL when no event had a format */
		qsort(b->types, b->ntypes, sizeof(*b->types), type_cmp);
	printf("per event:\n");
	for (i = 0; i < b->ntypes; i++) {
		const tb_format *f = b->types[i].f;
		if (f)
			printf("  %10llu  %.*s:%.*s\n", (unsigned long long)b->types[i].n,
			       (int)f->system_len, f->system ? f->system : "", (int)f->name_len,
			       f->name);
	}
	if (b->unknown)
		printf("  %10llu  (event ids without a format)\n", (unsigned long long)b->unknown);
	if (b->errors)
		printf("malformed pages: %llu\n", (unsigned long long)b->errors);
}

int tb_cmd_stats(int argc, char **argv)
{
	tb_session_options so = { 0, 0 };
	tb_cli_capture c;
	const tb_dat *d;
	buf_stats *bs;
	size_t i, k, nb;
	int rc, bad = 0;
	tb_session_event ev;
	tb_error e;
	tb_status st;

	{
		static const tb_opt none[] = { TB_CLI_MAX_MEMORY_OPT, { 0, NULL, NULL, NULL, NULL } };
		tb_opts p;
		const char *v, *file = NULL;
		int id;
		tb_opts_init(&p, "stats", "FILE.dat", none, argc, argv);
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
			if (file)
				return tb_opts_fail(&p, "a second input file '%s'", v);
			file = v;
		}
		if (!file)
			return tb_opts_usage(&p);
		argv[1] = (char *)(uintptr_t)file;
	}
	if ((rc = tb_cli_capture_open(&c, argv[1], &so, stderr)) != 0)
		return rc;
	d = tb_session_dat(c.s);
	nb = tb_session_get_info(c.s)->nbuffers;
	bs = calloc(nb + 1, sizeof(*bs));
	for (k = 0; bs && !d && k < nb; k++) { /* a perf.data: CPUs by number */
		uint32_t n = tb_session_buffer(c.s, k)->ncpus;
		if (!(bs[k].cpus = calloc(n + 1, sizeof(cpu_span))))
			break;
		bs[k].ncpus = n;
		for (i = 0; i < n; i++)
			bs[k].cpus[i].cpu = (uint32_t)i;
	}
	for (k = d ? 0 : nb; bs && k < nb; k++) {
		const tb_session_buffer_info *bi = tb_session_buffer(c.s, k);
		const tb_dat_buffer *b = tb_dat_find_buffer(d, "");
		for (i = 0; i < d->nbuffers; i++)
			if (d->buffers[i].name.ptr == bi->name.ptr)
				b = &d->buffers[i];
		bs[k].cpus = calloc(b->ncpus + 1, sizeof(cpu_span));
		if (!bs[k].cpus)
			break;
		bs[k].ncpus = b->ncpus;
		for (i = 0; i < b->ncpus; i++)
			bs[k].cpus[i].cpu = b->cpus[i].cpu;
	}
	if (!bs || k < nb) {
		fprintf(stderr, "tracebound: out of memory\n");
		rc = TB_EXIT_USAGE;
		goto done;
	}
	while ((st = tb_session_next(c.s, &ev, &e)) != TB_END) {
		if (st != TB_OK) {
			bs[tb_session_error(c.s)->buffer].errors++;
			fprintf(stderr, "tracebound: %s: CPU %u: %s at file offset %llu (%s)\n",
				argv[1], tb_session_error(c.s)->cpu, e.what,
				(unsigned long long)e.offset, tb_strerror(st));
			bad = 1;
			continue;
		}
		count_event(&bs[ev.buffer], &ev);
		if (ev.format ? count_type(&bs[ev.buffer], ev.format) != 0 : (bs[ev.buffer].unknown++, 0)) {
			fprintf(stderr, "tracebound: out of memory\n");
			rc = TB_EXIT_USAGE;
			goto done;
		}
	}
	if (!d) {
		if (tb_session_get_info(c.s)->is_perf)
			print_perf(&c, argv[1], bs);
		else
			print_raw(&c, argv[1], bs);
		goto counted;
	}
	printf("file: %s\nversion: %u\ncompression: %.*s\nbuffers: %zu\n", argv[1], d->version,
	       d->compression.len ? (int)(d->compression.len < 16 ? d->compression.len : 16) : 4,
	       d->compression.len ? d->compression.ptr : "none", d->nbuffers);
	printf("uname: ");
	if (d->uname.len)
		print_text(d->uname.ptr, d->uname.len);
	else
		printf("(not recorded)");
	printf("\n");
	for (i = 0, k = 0; i < d->nbuffers; i++) {
		const tb_dat_buffer *b = &d->buffers[i];
		printf("\nbuffer: \"");
		print_text(b->name.ptr, b->name.len < 64 ? b->name.len : 64);
		printf("\"%s\n", b->latency ? " (latency text)" : "");
		if (b->latency || !b->ncpus)
			continue;
		if (k < nb && tb_session_buffer(c.s, k)->name.ptr == b->name.ptr) {
			print_buffer(&c, k, &bs[k]);
			k++;
		}
	}
counted:
	/* damage the capture's opening said (a table, a format, CPU data cut
	 * short) counts as report counts it */
	rc = bad || tb_session_ndamage(c.s) ? TB_EXIT_MALFORMED : TB_EXIT_OK;
done:
	for (k = 0; bs && k < nb; k++) {
		free(bs[k].cpus);
		free(bs[k].types);
	}
	free(bs);
	tb_cli_capture_close(&c);
	return rc;
}
