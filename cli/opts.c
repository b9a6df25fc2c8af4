/* The shared option parser (opts.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "budget.h"
#include "opts.h"

void tb_opts_init(tb_opts *p, const char *cmd, const char *synopsis,
		  const tb_opt *opts, int argc, char **argv)
{
	*p = (tb_opts){ .cmd = cmd, .synopsis = synopsis, .opts = opts, .argc = argc,
			.argv = argv, .i = 1 };
	p->v.jobs = tb_opts_default_jobs();
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
	if (p->epilog)
		printf("\n%s", p->epilog);
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

static int next_any(tb_opts *p, const char **val)
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

/* A common option's value into p->v: 0, or the message and -1. */
static int common(tb_opts *p, int id, const char *val)
{
	uint64_t size;
	switch (id) {
	case TB_OPT_JSON: p->v.json = 1; return 0;
	case TB_OPT_EVENTS: p->v.events = val; return 0;
	case TB_OPT_HEADER_PAGE: p->v.header_page = val; return 0;
	case TB_OPT_MAX_MEMORY: return tb_cli_budget_option(p, val);
	case TB_OPT_JOBS:
		p->v.jobs_given = 1;
		return tb_opts_jobs(p, val, &p->v.jobs);
	case TB_OPT_ADDR_SIZE:
		if (strcmp(val, "4") && strcmp(val, "8"))
			return tb_opts_fail(p, "option '--addr-size': '%s' is not 4 or 8", val), -1;
		p->v.addr_size = (unsigned)(val[0] - '0');
		return 0;
	case TB_OPT_SUBBUF_SIZE:
		if (tb_opts_size(p, "--subbuf-size", val, &size) != 0)
			return -1;
		if (size < 4096 || size > (1u << 20) || (size & (size - 1)))
			return tb_opts_fail(p, "option '--subbuf-size': %llu bytes: the size is in "
					    "bytes (k and m suffixes), a power of two from 4096 to 1m",
					    (unsigned long long)size), -1;
		p->v.subbuf_size = (uint32_t)size;
		return 0;
	default: return 0;
	}
}

int tb_opts_next(tb_opts *p, const char **val)
{
	int id;
	while ((id = next_any(p, val)) >= TB_OPT_COMMON)
		if (common(p, id, *val) != 0)
			return TB_OPTS_ERROR;
	return id;
}

int tb_opts_parse(tb_opts *p, const char *one)
{
	const char *v;
	int id;
	while ((id = tb_opts_next(p, &v)) != TB_OPTS_END) {
		if (id == TB_OPTS_HELP || id == TB_OPTS_ERROR)
			return id == TB_OPTS_HELP ? TB_EXIT_OK : TB_EXIT_USAGE;
		if (id > 0) {
			p->own[id] = v ? v : "";
		} else if (one && p->npos) {
			return tb_opts_fail(p, "a second %s '%s'", one, v);
		} else {
			p->argv[++p->npos] = (char *)(uintptr_t)v;
		}
	}
	return p->npos ? -1 : tb_opts_usage(p);
}
