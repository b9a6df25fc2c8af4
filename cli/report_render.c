/* The rendered payload of `tracebound report` (see report_render.h). */
#include <stdlib.h>
#include <string.h>

#include "report_render.h"

#define RR_IDS 65536u /* common_type is 16 bits */

struct tb_report_render {
	const tb_datfile *df;
	unsigned options;
	tb_render_env env;
	struct {
		tb_render_prog *prog;
		const tb_format *fmt;
	} slot[RR_IDS];
	uint16_t used[RR_IDS]; /* the ids with a program: freed without a
				  walk over every slot (pages never touched) */
	uint32_t nused;
};

static int rr_sym(void *ctx, uint64_t addr, const char **name, size_t *nlen,
		  uint64_t *start, const char **mod, size_t *mlen)
{
	const tb_kallsyms *t = ctx;
	const tb_ksym *k = tb_kallsyms_find(t, addr);
	if (!k)
		return 0;
	*name = tb_ksym_name(t, k);
	*nlen = k->name_len;
	*start = k->addr;
	*mod = tb_ksym_module(t, k);
	*mlen = k->module_len;
	return 1;
}

static int rr_printk(void *ctx, uint64_t addr, const char **s, size_t *n)
{
	const tb_printk_fmt *p = tb_printk_find(ctx, addr);
	if (!p)
		return 0;
	*s = p->fmt;
	*n = p->fmt_len;
	return 1;
}

tb_report_render *tb_report_render_new(const tb_datfile *df, unsigned options)
{
	tb_report_render *rr = calloc(1, sizeof(*rr));
	if (!rr)
		return NULL;
	rr->df = df;
	rr->options = options;
	rr->env.sym = rr_sym;
	rr->env.sym_ctx = (void *)&df->ks;
	rr->env.printk = rr_printk;
	rr->env.printk_ctx = (void *)&df->pk;
	if (options & TB_RENDER_FIELD_LIST) {
		/* trace-cmd -R names symbols as libtraceevent finds them */
		rr->env.sym = NULL;
		rr->env.ksyms = &df->ks;
		rr->env.ksym_how = TB_KSYM_TEP;
	}
	return rr;
}

void tb_report_render_free(tb_report_render *rr)
{
	if (!rr)
		return;
	for (size_t i = 0; i < rr->nused; i++)
		free(rr->slot[rr->used[i]].prog);
	free(rr);
}

void tb_report_render_event(tb_report_render *rr, tb_outbuf *line, const tb_format *f,
		      const uint8_t *rec, size_t len)
{
	uint32_t id = f->id & (RR_IDS - 1);
	tb_render_result res;
	tb_error err;
	if (!rr->slot[id].prog || rr->slot[id].fmt != f) {
		if (!rr->slot[id].prog) {
			rr->slot[id].prog = malloc(sizeof(*rr->slot[id].prog));
			if (!rr->slot[id].prog) {
				tb_ob_puts(line, "[OUT OF MEMORY]");
				return;
			}
			rr->used[rr->nused++] = (uint16_t)id;
		}
		(void)tb_render_compile(rr->slot[id].prog, f, rr->df->layout.long_size,
					rr->df->d.big_endian, rr->options, &err);
		rr->slot[id].fmt = f;
	}
	/* straight into the line: the room left, and one byte for the NUL */
	(void)tb_render(rr->slot[id].prog, &rr->env, rec, len,
			line->len < line->cap ? line->p + line->len : NULL,
			line->cap - line->len, &res);
	line->len += res.len;
	if (res.len < res.needed)
		line->truncated = 1;
}
