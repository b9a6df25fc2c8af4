/*
 * Test/bench glue for the renderer over a capture directory (the layout
 * ci/capture-render.sh writes): event formats parsed by libtraceevent
 * (the reference oracle) and mapped onto tb_render_field, kallsyms and
 * printk_formats lookups, and the raw pages.  Header-only so both the
 * Check suite and bench/render_bench.c use the same code.
 *
 * Not library code: it allocates and does I/O freely.
 */
#ifndef TB_TESTS_RENDER_TEP_H
#define TB_TESTS_RENDER_TEP_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "tracebound/format.h"
#include "tracebound/kbuf.h"
#include "tracebound/render.h"

#define RT_MAX_ID 65536
#define RT_MAX_CPU 64

typedef struct rt_event {
	struct tep_event *tev;      /* libtraceevent's parse (its rendering) */
	char *text;                 /* the format file */
	tb_format fmt;              /* tracebound's parse */
	tb_field fields[TB_FORMAT_MAX_FIELDS];
	tb_render_prog *prog;
} rt_event;

typedef struct rt_sym {
	uint64_t addr;
	char *name;
	char *mod;
} rt_sym;

typedef struct rt_printk {
	uint64_t addr;
	char *str;
	size_t len;
} rt_printk;

typedef struct rt_capture {
	struct tep_handle *tep;
	rt_event *ev[RT_MAX_ID];
	rt_sym *syms;
	size_t nsyms;
	rt_printk *pk;
	size_t npk;
	tb_kbuf_layout layout;
	uint8_t *raw[RT_MAX_CPU];
	size_t raw_len[RT_MAX_CPU];
	int ncpu;
	unsigned options;
} rt_capture;

static char *rt_slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0;
	if (!f)
		return NULL;
	for (;;) {
		if (n + 65536 + 1 > cap) {
			char *nb;
			cap = cap ? cap * 2 : 131072;
			nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = nb;
		}
		size_t k = fread(buf + n, 1, 65536, f);
		n += k;
		if (k == 0)
			break;
	}
	fclose(f);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

static rt_event *rt_add_event(rt_capture *c, char *text, size_t len, const char *sys)
{
	struct tep_event *tev = NULL;
	rt_event *e;
	tb_format_error ferr;
	tb_error err;
	if (tep_parse_format(c->tep, &tev, text, len, sys) != 0 && !tev)
		return NULL;
	if (!tev || tev->id < 0 || tev->id >= RT_MAX_ID)
		return NULL;
	e = calloc(1, sizeof(*e));
	e->tev = tev;
	e->text = text;
	if (tb_format_parse(text, len, e->fields, TB_FORMAT_MAX_FIELDS, c->layout.long_size,
			    &e->fmt, &ferr) != TB_OK) {
		free(e);
		return NULL;
	}
	e->fmt.system = tev->system;
	e->fmt.system_len = strlen(tev->system);
	e->prog = malloc(sizeof(*e->prog));
	(void)tb_render_compile(e->prog, &e->fmt, c->layout.long_size, c->layout.big_endian,
				c->options, &err);
	c->ev[tev->id] = e;
	return e;
}

static int rt_load_formats(rt_capture *c, const char *dir)
{
	char path[8192];
	DIR *top, *sd;
	struct dirent *s, *v;
	int count = 0;
	snprintf(path, sizeof(path), "%s/events", dir);
	top = opendir(path);
	if (!top)
		return -1;
	while ((s = readdir(top))) {
		if (s->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/events/%s", dir, s->d_name);
		sd = opendir(path);
		if (!sd)
			continue;
		while ((v = readdir(sd))) {
			size_t len;
			char *text;
			if (v->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/events/%s/%s/format", dir, s->d_name, v->d_name);
			text = rt_slurp(path, &len);
			if (text && rt_add_event(c, text, len, s->d_name))
				count++;
			else
				free(text);
		}
		closedir(sd);
	}
	closedir(top);
	return count;
}

static int rt_sym_cmp(const void *a, const void *b)
{
	const rt_sym *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static void rt_load_kallsyms(rt_capture *c, const char *path)
{
	char *text = rt_slurp(path, NULL), *line, *save = NULL;
	size_t cap = 0;
	if (!text)
		return;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *end, *name, *mod;
		unsigned long long a = strtoull(line, &end, 16);
		if (end == line || end[0] != ' ' || !end[1] || end[2] != ' ')
			continue;
		if (end[1] == 'a' || end[1] == 'A' || end[1] == 'U' || a == 0)
			continue;
		name = end + 3;
		mod = strchr(name, '\t');
		if (mod) {
			*mod++ = '\0';
			if (*mod == '[')
				mod++;
			mod[strcspn(mod, "]")] = '\0';
		}
		if (c->nsyms == cap) {
			cap = cap ? cap * 2 : 4096;
			c->syms = realloc(c->syms, cap * sizeof(*c->syms));
		}
		c->syms[c->nsyms].addr = a;
		c->syms[c->nsyms].name = name;
		c->syms[c->nsyms].mod = mod;
		c->nsyms++;
	}
	qsort(c->syms, c->nsyms, sizeof(*c->syms), rt_sym_cmp);
	/* text stays allocated: the names point into it */
}

static int rt_sym_lookup(void *ctx, uint64_t addr, const char **name, size_t *nlen,
			 uint64_t *start, const char **mod, size_t *mlen)
{
	const rt_capture *c = ctx;
	size_t lo = 0, hi = c->nsyms;
	if (!c->nsyms || addr < c->syms[0].addr)
		return 0;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (c->syms[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	/* past the last symbol: not a kernel text address we know */
	if (lo + 1 == c->nsyms && addr - c->syms[lo].addr > 0x100000)
		return 0;
	*name = c->syms[lo].name;
	*nlen = strlen(*name);
	*start = c->syms[lo].addr;
	*mod = c->syms[lo].mod;
	*mlen = *mod ? strlen(*mod) : 0;
	return 1;
}

static void rt_load_printk(rt_capture *c, const char *path)
{
	char *text = rt_slurp(path, NULL), *line, *save = NULL;
	size_t cap = 0;
	if (!text)
		return;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *end, *q;
		unsigned long long a = strtoull(line, &end, 16);
		q = strstr(end, ": \"");
		if (!q)
			continue;
		q += 3;
		if (c->npk == cap) {
			cap = cap ? cap * 2 : 256;
			c->pk = realloc(c->pk, cap * sizeof(*c->pk));
		}
		c->pk[c->npk].addr = a;
		c->pk[c->npk].str = q;
		c->pk[c->npk].len = strlen(q) && q[strlen(q) - 1] == '"' ? strlen(q) - 1 : strlen(q);
		c->npk++;
	}
}

static int rt_printk_lookup(void *ctx, uint64_t addr, const char **s, size_t *n)
{
	const rt_capture *c = ctx;
	for (size_t i = 0; i < c->npk; i++)
		if (c->pk[i].addr == addr) {
			*s = c->pk[i].str;
			*n = c->pk[i].len;
			return 1;
		}
	return 0;
}

/* Open a capture: layout, formats (compiled with options), lookups, raw. */
static int rt_open(rt_capture *c, const char *dir, unsigned options, int tep_syms)
{
	char path[8192];
	size_t len;
	char *hp, *ks;
	tb_error err;
	memset(c, 0, sizeof(*c));
	c->options = options;
	snprintf(path, sizeof(path), "%s/header_page", dir);
	hp = rt_slurp(path, &len);
	if (!hp || tb_kbuf_layout_from_header_page(hp, len, 0, &c->layout, &err) != TB_OK) {
		free(hp);
		return -1;
	}
	free(hp);
	c->tep = tep_alloc();
	tep_set_long_size(c->tep, c->layout.long_size);
	tep_set_page_size(c->tep, (int)c->layout.subbuf_size);
	tep_set_file_bigendian(c->tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(c->tep, TEP_LITTLE_ENDIAN);
	if (rt_load_formats(c, dir) <= 0)
		return -1;
	snprintf(path, sizeof(path), "%s/kallsyms", dir);
	rt_load_kallsyms(c, path);
	if (tep_syms) {
		ks = rt_slurp(path, NULL);
		if (ks) {
			tep_parse_kallsyms(c->tep, ks);
			free(ks);
		}
	}
	snprintf(path, sizeof(path), "%s/printk_formats", dir);
	rt_load_printk(c, path);
	if (tep_syms) {
		char *pk = rt_slurp(path, NULL);
		if (pk) {
			tep_parse_printk_formats(c->tep, pk);
			free(pk);
		}
		snprintf(path, sizeof(path), "%s/saved_cmdlines", dir);
		pk = rt_slurp(path, NULL);
		if (pk) {
			tep_parse_saved_cmdlines(c->tep, pk);
			free(pk);
		}
	}
	for (int cpu = 0; cpu < RT_MAX_CPU; cpu++) {
		snprintf(path, sizeof(path), "%s/cpu%d.raw", dir, cpu);
		c->raw[cpu] = (uint8_t *)rt_slurp(path, &c->raw_len[cpu]);
		if (c->raw[cpu])
			c->ncpu = cpu + 1;
	}
	return 0;
}

static const tb_render_env *rt_env(rt_capture *c, tb_render_env *env)
{
	env->sym = rt_sym_lookup;
	env->sym_ctx = c;
	env->printk = rt_printk_lookup;
	env->printk_ctx = c;
	return env;
}

/* The event id of a raw record (common_type, u16). */
static int rt_record_id(const rt_capture *c, const tb_kbuf_record *r)
{
	if (r->payload_len < 2)
		return -1;
	return c->layout.big_endian ? (r->payload[0] << 8 | r->payload[1])
				    : (r->payload[1] << 8 | r->payload[0]);
}

/* One event of the capture, as the walker found it. */
typedef struct rt_rec {
	const uint8_t *p;
	uint32_t len;
	int id, cpu;
	uint64_t ts;
} rt_rec;

/* Every event record of every CPU (CPU by CPU, in order); *n the count. */
static rt_rec *rt_records(const rt_capture *c, size_t *n)
{
	rt_rec *recs = NULL;
	size_t capn = 0;
	*n = 0;
	for (int cpu = 0; cpu < c->ncpu; cpu++) {
		tb_kbuf_stream s;
		tb_kbuf kb;
		tb_error err;
		if (!c->raw[cpu])
			continue;
		tb_kbuf_stream_init(&s, &c->layout, c->raw[cpu], c->raw_len[cpu]);
		while (tb_kbuf_stream_next(&s, &kb, &err) == TB_OK) {
			tb_kbuf_record r;
			while (tb_kbuf_next_event(&kb, &r) == TB_OK) {
				if (*n == capn) {
					capn = capn ? capn * 2 : 4096;
					recs = realloc(recs, capn * sizeof(*recs));
				}
				recs[*n].p = r.payload;
				recs[*n].len = r.payload_len;
				recs[*n].id = rt_record_id(c, &r);
				recs[*n].cpu = cpu;
				recs[*n].ts = r.ts;
				(*n)++;
			}
		}
	}
	return recs;
}

#endif /* TB_TESTS_RENDER_TEP_H */
