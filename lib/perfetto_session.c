/* A session's capture as a Perfetto trace: the writer set up from what
 * the session knows (see include/tracebound/perfetto.h). */
#include <string.h>

#include "tracebound/perfetto.h"
#include "internal.h"

void tb_pf_session_config(tb_pf_config *cfg, const tb_session *s)
{
	const tb_session_info *info;
	const tb_session_buffer_info *b0;
	tb_span clock;
	size_t b, ncpus = 1;
	if (!cfg || !s)
		return;
	info = tb_session_get_info(s);
	for (b = 0; b < info->nbuffers; b++) {
		const tb_session_buffer_info *bi = tb_session_buffer(s, b);
		if (bi && bi->ncpus > ncpus)
			ncpus = bi->ncpus;
	}
	cfg->nslots = ncpus < TB_PF_MAX_SLOTS ? ncpus : TB_PF_MAX_SLOTS;
	cfg->big_endian = info->big_endian;
	/* the session's reading of it (tb_clock_parse) */
	b0 = tb_session_buffer(s, 0);
	clock = b0 && b0->clock.len ? b0->clock : info->clock;
	cfg->clock = clock.ptr;
	cfg->clock_len = clock.len;
}

tb_status tb_pf_session_begin(tb_pf_writer *w, const tb_session *s, tb_error *err)
{
	const tb_session_info *info;
	tb_status st;
	if (!w || !s)
		return tb_fail(err, TB_ERR_ARG, 0, "perfetto writer: no writer or session");
	info = tb_session_get_info(s);
	if ((st = tb_pf_system_info(w, info->uname.ptr, info->uname.len, err)) != TB_OK)
		return st;
	return tb_pf_threads(w, tb_session_cmdlines(s), err);
}

tb_status tb_pf_session_clock(tb_pf_writer *w, tb_session *s, int *have, tb_error *err)
{
	int seen = 0;
	if (!w || !s)
		return tb_fail(err, TB_ERR_ARG, 0, "perfetto writer: no writer or session");
	for (;;) {
		tb_session_event ev;
		tb_status st = tb_session_next(s, &ev, err);
		if (st == TB_END)
			break;
		if (st == TB_OK && ev.kind == TB_SEV_EVENT) {
			tb_pf_set_clock(w, ev.ts);
			seen = 1;
			break;
		}
	}
	if (have)
		*have = seen;
	return tb_session_rewind(s, err);
}
