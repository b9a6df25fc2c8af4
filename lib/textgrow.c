/*
 * The grow-and-retry rule around tb_session_text (session.h), so that
 * callers pass a grow function instead of writing the loop themselves.
 */
#include "tracebound/session.h"
#include "internal.h"

tb_status tb_session_text_grow(tb_session *s, const tb_session_event *ev, unsigned how,
			       char **buf, size_t *cap, tb_grow_fn grow, void *ctx,
			       tb_render_result *res)
{
	tb_render_result r;
	tb_status st;
	if (!buf || !cap)
		return TB_ERR_ARG;
	st = tb_session_text(s, ev, how, *buf, *cap, &r);
	/* needed 0: no program for it, no room helps; needed < cap: the
	 * refusal is not about room; needed == SIZE_MAX: no room holds it */
	if (st == TB_ERR_NO_SPACE && grow && r.needed && r.needed >= *cap &&
	    r.needed < SIZE_MAX && grow(ctx, buf, cap, r.needed + 1) == 0 &&
	    *buf && *cap > r.needed)
		st = tb_session_text(s, ev, how, *buf, *cap, &r);
	if (res)
		*res = r;
	return st;
}
