/*
 * Inside the library: a pmclog table field's presence and value, inlined
 * where the renderers ask them for every field of every record
 * (tb_pmclog_field_on and tb_pmclog_field_get are their exported faces).  Not installed, not the API.
 */
#ifndef TB_LIB_PMCLOG_FIELD_H
#define TB_LIB_PMCLOG_FIELD_H

#include <string.h>

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

/* A field's value (tb_pmclog_field_get, inlined for the renderers). */
static inline void tb_pmclog_field_value(const tb_pmclog_field *f, const tb_pmclog_event *ev,
					 tb_pmclog_value *v)
{
	const char *at = (const char *)ev + f->member;
	uint8_t u8;
	uint16_t u16;
	uint32_t u32;
	int32_t i32;
	memset(v, 0, sizeof(*v));
	switch (f->kind) {
	case TB_PMCLOG_F_U8: memcpy(&u8, at, 1); v->u = u8; break;
	case TB_PMCLOG_F_U16: memcpy(&u16, at, 2); v->u = u16; break;
	case TB_PMCLOG_F_U32: memcpy(&u32, at, 4); v->u = u32; break;
	case TB_PMCLOG_F_I32: memcpy(&i32, at, 4); v->i[0] = i32; break;
	case TB_PMCLOG_F_U64: memcpy(&v->u, at, 8); break;
	case TB_PMCLOG_F_TIMESPEC: memcpy(v->i, at, 16); break;
	case TB_PMCLOG_F_STR: memcpy(&v->s, at, sizeof(v->s)); break;
	default: break; /* PCS, PARTS: from ev->u.cc */
	}
}

#endif
