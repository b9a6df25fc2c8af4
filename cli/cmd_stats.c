/*
 * tracebound stats FILE.dat: the uname; per buffer its trace clock, events
 * per type (most frequent first) and per CPU (with its drops), drops and
 * the time span.  The walk is the session's, the counts and their text the
 * library's (tracebound/stats.h).
 */
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "opts.h"

/* Room for buffer k's CPUs and types (64 to start: a capture uses tens). */
static int stats_init(tb_stats *b, const tb_session *s, size_t k)
{
	size_t n = tb_stats_cpus(s, k, NULL, 0);
	b->cpus = calloc(n + 1, sizeof(*b->cpus));
	b->types = malloc(64 * sizeof(*b->types));
	if (!b->cpus || !b->types)
		return -1;
	b->ncpus = tb_stats_cpus(s, k, b->cpus, n);
	b->types_cap = 64;
	return 0;
}

/* Count ev, the types' room doubled when a new one finds it full. */
static int count(tb_stats *b, const tb_session_event *ev)
{
	while (tb_stats_count(b, ev) == TB_ERR_NO_SPACE) {
		tb_stats_type *t = realloc(b->types, 2 * b->types_cap * sizeof(*t));
		if (!t)
			return -1;
		b->types = t;
		b->types_cap *= 2;
	}
	return 0;
}

int tb_cmd_stats(int argc, char **argv)
{
	tb_session_options so = { 0, 0 };
	tb_cli_capture c;
	tb_cli_text out = { { NULL, 0, 0, 0, -1 }, NULL, 0 };
	tb_stats *bs;
	size_t k, nb;
	int rc, bad = 0;
	tb_session_event ev;
	tb_error e;
	tb_status st;

	static const tb_opt opts[] = { TB_CLI_MAX_MEMORY_OPT, { 0, NULL, NULL, NULL, NULL } };
	tb_opts p;
	tb_opts_init(&p, "stats", "FILE.dat", opts, argc, argv);
	if ((rc = tb_opts_parse(&p, "input file")) >= 0)
		return rc;
	if ((rc = tb_cli_capture_open(&c, argv[1], &so, stderr)) != 0)
		return rc;
	nb = tb_session_get_info(c.s)->nbuffers;
	bs = calloc(nb + 1, sizeof(*bs));
	for (k = 0; bs && k < nb; k++)
		if (stats_init(&bs[k], c.s, k) != 0)
			break;
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
		if (count(&bs[ev.buffer], &ev) != 0) {
			fprintf(stderr, "tracebound: out of memory\n");
			rc = TB_EXIT_USAGE;
			goto done;
		}
	}
	printf("file: %s\n", argv[1]);
	TB_CLI_PRINT(&out, stdout, tb_stats_text(&out.t, c.s, bs));
	/* damage the capture's opening said (a table, a format, CPU data cut
	 * short) counts as report counts it */
	rc = bad || tb_session_ndamage(c.s) ? TB_EXIT_MALFORMED : TB_EXIT_OK;
done:
	for (k = 0; bs && k < nb; k++) {
		free(bs[k].cpus);
		free(bs[k].types);
	}
	free(bs);
	tb_cli_text_free(&out);
	tb_cli_capture_close(&c);
	return rc;
}
