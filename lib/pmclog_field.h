/*
 * Inside the library: a pmclog table field's presence, inlined where the
 * renderers ask it for every field of every record (tb_pmclog_field_on
 * is the exported face of the same test).  Not installed, not the API.
 */
#ifndef TB_LIB_PMCLOG_FIELD_H
#define TB_LIB_PMCLOG_FIELD_H

#include "tracebound/pmclog.h"

static inline int tb_pmclog_field_present(const tb_pmclog_field *f, const tb_pmclog_event *ev)
{
	if (!(f->gens & (ev->legacy ? TB_PMCLOG_IN_LEGACY : TB_PMCLOG_IN_MODERN)))
		return 0;
	switch (f->when) {
	case TB_PMCLOG_W_DYN: return ev->u.x.has_dyn;
	case TB_PMCLOG_W_NODYN: return !ev->u.x.has_dyn;
	case TB_PMCLOG_W_NAME40: return ev->u.ad.name_at_40;
	case TB_PMCLOG_W_MULTIPART: return (ev->u.cc.cpuflags & TB_PMCLOG_CC_MULTIPART) != 0;
	default: return 1;
	}
}

#endif
