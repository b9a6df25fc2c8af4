/* The rendered payload of `tracebound report` (see report_render.h). */
#include <stdlib.h>
#include <string.h>

#include "report_render.h"

#define RR_IDS 65536u /* common_type is 16 bits */

struct tb_report_render {
	const tb_datfile *df;
	unsigned options;
	tb_render_env env;
	tb_render_prog *prog[RR_IDS];
	const tb_format *fmt[RR_IDS];
	char text[1 << 16];
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
	for (size_t i = 0; i < RR_IDS; i++)
		free(rr->prog[i]);
	free(rr);
}

void tb_report_render_event(tb_report_render *rr, tb_outbuf *line, const tb_format *f,
		      const uint8_t *rec, size_t len)
{
	uint32_t id = f->id & (RR_IDS - 1);
	tb_render_result res;
	tb_error err;
	if (!rr->prog[id] || rr->fmt[id] != f) {
		if (!rr->prog[id])
			rr->prog[id] = malloc(sizeof(*rr->prog[id]));
		if (!rr->prog[id]) {
			tb_ob_puts(line, "[OUT OF MEMORY]");
			return;
		}
		(void)tb_render_compile(rr->prog[id], f, rr->df->layout.long_size,
					rr->df->d.big_endian, rr->options, &err);
		rr->fmt[id] = f;
	}
	(void)tb_render(rr->prog[id], &rr->env, rec, len, rr->text, sizeof(rr->text), &res);
	tb_ob_put(line, rr->text, res.len);
}
