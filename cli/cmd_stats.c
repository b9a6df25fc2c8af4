/*
 * tracebound stats FILE.dat: events per type and per CPU, drops, time span.
 */
#include <stdlib.h>
#include <string.h>

#include "datfile.h"

typedef struct cpu_stat {
	uint32_t cpu;
	uint64_t events, first, last;
} cpu_stat;

typedef struct st_ctx {
	const tb_datfile *df;
	uint64_t *per_format;   /* by format index in the set */
	uint64_t unknown, events, first, last, errors;
	cpu_stat *cpus;
	size_t ncpus;
} st_ctx;

static void on_event(void *ctx, const tb_dat_event *ev, const tb_format *f)
{
	st_ctx *c = ctx;
	size_t i;
	if (f)
		c->per_format[f - c->df->set.events]++;
	else
		c->unknown++;
	if (!c->events || ev->ts < c->first)
		c->first = ev->ts;
	if (!c->events || ev->ts > c->last)
		c->last = ev->ts;
	c->events++;
	for (i = 0; i < c->ncpus; i++)
		if (c->cpus[i].cpu == ev->cpu) {
			if (!c->cpus[i].events)
				c->cpus[i].first = ev->ts;
			c->cpus[i].last = ev->ts;
			c->cpus[i].events++;
			break;
		}
}

static void on_error(void *ctx, uint32_t cpu, uint64_t page, tb_status st,
		     const tb_error *e)
{
	st_ctx *c = ctx;
	(void)page;
	c->errors++;
	if (cpu == UINT32_MAX)
		fprintf(stderr, "tracebound: %s: %s at file offset %llu (%s)\n", c->df->path,
			e->what, (unsigned long long)e->offset, tb_strerror(st));
	else
		fprintf(stderr, "tracebound: %s: CPU %u: %s at file offset %llu (%s)\n",
			c->df->path, cpu, e->what, (unsigned long long)e->offset,
			tb_strerror(st));
}

static void print_ts(uint64_t ts)
{
	printf("%llu.%09llu", (unsigned long long)(ts / 1000000000u),
	       (unsigned long long)(ts % 1000000000u));
}

int tb_cmd_stats(int argc, char **argv)
{
	tb_datfile df;
	st_ctx c;
	size_t i, b;
	int rc;
	uint64_t dropped = 0, unknown_drops = 0;
	if (argc != 2 || (argv[1][0] == '-' && argv[1][1])) {
		fprintf(stderr, "usage: tracebound stats FILE.dat\n");
		return TB_EXIT_USAGE;
	}
	rc = tb_datfile_open(&df, argv[1], stderr, 1);
	if (rc) {
		tb_datfile_perror(&df);
		tb_datfile_close(&df);
		return rc == 1 ? TB_EXIT_MALFORMED : TB_EXIT_USAGE;
	}
	printf("file: %s\nversion: %u\ncompression: %.*s\nbuffers: %zu\n", argv[1],
	       df.d.version, df.d.compression.len ? (int)(df.d.compression.len < 16 ? df.d.compression.len : 16) : 4,
	       df.d.compression.len ? df.d.compression.ptr : "none", df.d.nbuffers);
	for (b = 0; b < df.d.nbuffers; b++) {
		const tb_dat_buffer *buf = &df.d.buffers[b];
		tb_datwalk_ops ops = { on_event, on_error, &c };
		tb_dat_stream s;
		memset(&c, 0, sizeof(c));
		c.df = &df;
		printf("\nbuffer: \"%.*s\"%s\n", (int)(buf->name.len < 64 ? buf->name.len : 64),
		       buf->name.ptr, buf->latency ? " (latency text)" : "");
		if (buf->latency)
			continue;
		c.per_format = calloc(df.set.events_cap + 1, sizeof(uint64_t));
		c.cpus = calloc(buf->ncpus + 1, sizeof(cpu_stat));
		if (!c.per_format || !c.cpus) {
			fprintf(stderr, "tracebound: out of memory\n");
			free(c.per_format);
			free(c.cpus);
			tb_datfile_close(&df);
			return TB_EXIT_USAGE;
		}
		c.ncpus = buf->ncpus;
		for (i = 0; i < buf->ncpus; i++)
			c.cpus[i].cpu = buf->cpus[i].cpu;
		if (tb_datfile_walk(&df, buf, 0, &ops, &s)) {
			free(c.per_format);
			free(c.cpus);
			tb_datfile_close(&df);
			return TB_EXIT_USAGE;
		}
		dropped += s.dropped_known;
		unknown_drops += s.drops_unknown;
		printf("events: %llu\npages: %llu\ndropped: %llu%s\n", (unsigned long long)c.events,
		       (unsigned long long)s.pages, (unsigned long long)s.dropped_known,
		       s.drops_unknown ? " (plus drops of unknown size)" : "");
		if (c.events) {
			printf("first: ");
			print_ts(c.first);
			printf("\nlast: ");
			print_ts(c.last);
			printf("\nspan: ");
			print_ts(c.last - c.first);
			printf(" s\n");
		}
		printf("per cpu:\n");
		for (i = 0; i < c.ncpus; i++) {
			printf("  cpu %u: %llu events", c.cpus[i].cpu,
			       (unsigned long long)c.cpus[i].events);
			if (c.cpus[i].events) {
				printf(", ");
				print_ts(c.cpus[i].first);
				printf(" .. ");
				print_ts(c.cpus[i].last);
			}
			printf("\n");
		}
		printf("per event:\n");
		for (i = 0; i < df.set.count; i++) {
			const tb_format *f = &df.set.events[i];
			if (!c.per_format[i])
				continue;
			printf("  %10llu  %.*s:%.*s\n", (unsigned long long)c.per_format[i],
			       (int)f->system_len, f->system ? f->system : "", (int)f->name_len,
			       f->name);
		}
		if (c.unknown)
			printf("  %10llu  (event ids without a format)\n",
			       (unsigned long long)c.unknown);
		if (c.errors)
			printf("malformed pages: %llu\n", (unsigned long long)c.errors);
		free(c.per_format);
		free(c.cpus);
		if (c.errors)
			rc = 1;
	}
	tb_datfile_close(&df);
	(void)dropped;
	(void)unknown_drops;
	return rc ? TB_EXIT_MALFORMED : TB_EXIT_OK;
}
