/* The shared option parser (opts.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "opts.h"

void tb_opts_init(tb_opts *p, const char *cmd, const char *synopsis,
		  const tb_opt *opts, int argc, char **argv)
{
	p->cmd = cmd;
	p->synopsis = synopsis;
	p->opts = opts;
	p->argc = argc;
	p->argv = argv;
	p->i = 1;
	p->no_more = 0;
}

int tb_opts_fail(const tb_opts *p, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "tracebound %s: ", p->cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n(tracebound %s --help lists the options)\n", p->cmd);
	return TB_EXIT_USAGE;
}

int tb_opts_usage(const tb_opts *p)
{
	fprintf(stderr, "usage: tracebound %s %s\n(tracebound %s --help lists the options)\n",
		p->cmd, p->synopsis, p->cmd);
	return TB_EXIT_USAGE;
}

void tb_opts_help(const tb_opts *p)
{
	const tb_opt *o;
	printf("usage: tracebound %s %s\n\noptions:\n", p->cmd, p->synopsis);
	for (o = p->opts; o->id; o++) {
		char left[64];
		snprintf(left, sizeof(left), "%s%s%s%s%s", o->name, o->alias ? ", " : "",
			 o->alias ? o->alias : "", o->arg ? " " : "", o->arg ? o->arg : "");
		printf("  %-24s %s\n", left, o->help);
	}
	printf("  %-24s %s\n", "--help", "this list");
}

static const tb_opt *find(const tb_opts *p, const char *a, size_t n)
{
	const tb_opt *o;
	for (o = p->opts; o->id; o++)
		if ((strlen(o->name) == n && !strncmp(o->name, a, n)) ||
		    (o->alias && strlen(o->alias) == n && !strncmp(o->alias, a, n)))
			return o;
	return NULL;
}

int tb_opts_next(tb_opts *p, const char **val)
{
	const char *a, *eq;
	const tb_opt *o;
	size_t n;
	*val = NULL;
	if (p->i >= p->argc)
		return TB_OPTS_END;
	a = p->argv[p->i++];
	if (p->no_more || a[0] != '-' || !a[1]) {
		*val = a;
		return TB_OPTS_POSITIONAL;
	}
	if (!strcmp(a, "--")) {
		p->no_more = 1;
		if (p->i >= p->argc)
			return TB_OPTS_END;
		*val = p->argv[p->i++];
		return TB_OPTS_POSITIONAL;
	}
	if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
		tb_opts_help(p);
		return TB_OPTS_HELP;
	}
	eq = a[1] == '-' ? strchr(a, '=') : NULL;
	n = eq ? (size_t)(eq - a) : strlen(a);
	o = find(p, a, n);
	if (!o)
		return tb_opts_fail(p, "unknown option '%.*s'", (int)n, a), TB_OPTS_ERROR;
	if (!o->arg) {
		if (eq)
			return tb_opts_fail(p, "option '%s' takes no value", o->name), TB_OPTS_ERROR;
		return o->id;
	}
	if (eq) {
		*val = eq + 1;
	} else if (p->i < p->argc) {
		*val = p->argv[p->i++];
	} else {
		return tb_opts_fail(p, "option '%s' needs a value", o->name), TB_OPTS_ERROR;
	}
	return o->id;
}

int tb_opts_uint(const tb_opts *p, const char *opt, const char *val,
		 uint64_t lo, uint64_t hi, uint64_t *out)
{
	char *end;
	unsigned long long v;
	errno = 0;
	v = strtoull(val, &end, 10);
	if (val[0] < '0' || val[0] > '9' || *end || errno || v < lo || v > hi) {
		tb_opts_fail(p, "option '%s': '%s' is not a number from %llu to %llu", opt, val,
			     (unsigned long long)lo, (unsigned long long)hi);
		return -1;
	}
	*out = v;
	return 0;
}

int tb_opts_size(const tb_opts *p, const char *opt, const char *val, uint64_t *out)
{
	char *end;
	unsigned long long v;
	unsigned shift = 0;
	errno = 0;
	v = strtoull(val, &end, 10);
	if (val[0] < '0' || val[0] > '9' || errno)
		goto bad;
	if (*end == 'k' || *end == 'K')
		shift = 10, end++;
	else if (*end == 'm' || *end == 'M')
		shift = 20, end++;
	else if (*end == 'g' || *end == 'G')
		shift = 30, end++;
	if (*end || v > (UINT64_MAX >> shift))
		goto bad;
	*out = (uint64_t)v << shift;
	return 0;
bad:
	tb_opts_fail(p, "option '%s': '%s' is not a size (bytes, or with k or m: 16k)", opt, val);
	return -1;
}

int tb_opts_default_jobs(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 1 ? (n > TB_MAX_JOBS ? TB_MAX_JOBS : (int)n) : 1;
}

#define SPLIT_MIN_INPUT ((uint64_t)16 << 20)

int tb_opts_jobs_for(int jobs, int given, uint64_t len)
{
	return given || len >= SPLIT_MIN_INPUT ? jobs : 1;
}

int tb_opts_jobs(const tb_opts *p, const char *val, int *jobs)
{
	char *end;
	long n = strtol(val, &end, 10);
	if (!*val || *end || n < 1 || n > TB_MAX_JOBS) {
		tb_opts_fail(p, "--jobs '%s': a number of threads from 1 to %d", val, TB_MAX_JOBS);
		return -1;
	}
	*jobs = (int)n;
	return 0;
}
