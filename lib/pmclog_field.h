/*
 * Inside the library: a pmclog table field's presence and value, inlined
 * where the renderers ask them for every field of every record
 * (tb_pmclog_field_on and tb_pmclog_field_get are their exported faces).  Not installed, not the API.
 */
#ifndef TB_LIB_PMCLOG_FIELD_H
#define TB_LIB_PMCLOG_FIELD_H

#include <string.h>

#include "tracebound/pmclog.h"

/* The table (pmclog_table.c; hidden, as every library symbol without
 * TB_API): the per-record paths take a row by direct index, no call. */
extern const tb_pmclog_record tb_pmclog_rows_[TB_PMCLOG_TYPE_COUNT_];

/* tb_pmclog_record_of, inlined. */
static inline const tb_pmclog_record *tb_pmclog_row(tb_pmclog_type type)
{
	return &tb_pmclog_rows_[(unsigned)type < (unsigned)TB_PMCLOG_TYPE_COUNT_ ? type
										 : TB_PMCLOG_UNKNOWN];
}

/* The conditions an event meets (bit i: enum tb_pmclog_when i) and its
 * generation's bit, worked out once a record for the field tests. */
static inline unsigned tb_pmclog_conds(const tb_pmclog_event *ev)
{
	return 1u << TB_PMCLOG_W_ALWAYS |
	       1u << (ev->u.x.has_dyn ? TB_PMCLOG_W_DYN : TB_PMCLOG_W_NODYN) |
	       (unsigned)(ev->u.ad.name_at_40 != 0) << TB_PMCLOG_W_NAME40 |
	       (unsigned)((ev->u.cc.cpuflags & TB_PMCLOG_CC_MULTIPART) != 0) << TB_PMCLOG_W_MULTIPART;
}

static inline unsigned tb_pmclog_gen(const tb_pmclog_event *ev)
{
	return ev->legacy ? TB_PMCLOG_IN_LEGACY : TB_PMCLOG_IN_MODERN;
}

/* Field f is in an event of generation gen meeting conds (a condition
 * the table does not know holds). */
static inline int tb_pmclog_field_in(const tb_pmclog_field *f, unsigned gen, unsigned conds)
{
	return (f->gens & gen) && (f->when > TB_PMCLOG_W_MULTIPART || (conds >> f->when & 1u));
}

static inline int tb_pmclog_field_present(const tb_pmclog_field *f, const tb_pmclog_event *ev)
{
	return tb_pmclog_field_in(f, tb_pmclog_gen(ev), tb_pmclog_conds(ev));
}

/* A number field's value (U8, U16, U32, U64; I32 sign-extended). */
static inline uint64_t tb_pmclog_field_num(const tb_pmclog_field *f, const tb_pmclog_event *ev)
{
	const char *at = (const char *)ev + f->member;
	uint8_t u8;
	uint16_t u16;
	uint32_t u32;
	int32_t i32;
	uint64_t u64;
	switch (f->kind) {
	case TB_PMCLOG_F_U8: memcpy(&u8, at, 1); return u8;
	case TB_PMCLOG_F_U16: memcpy(&u16, at, 2); return u16;
	case TB_PMCLOG_F_U32: memcpy(&u32, at, 4); return u32;
	case TB_PMCLOG_F_I32: memcpy(&i32, at, 4); return (uint64_t)(int64_t)i32;
	default: memcpy(&u64, at, 8); return u64;
	}
}

/* A field's value (tb_pmclog_field_get, inlined for the renderers). */
static inline void tb_pmclog_field_value(const tb_pmclog_field *f, const tb_pmclog_event *ev,
					 tb_pmclog_value *v)
{
	const char *at = (const char *)ev + f->member;
	memset(v, 0, sizeof(*v));
	switch (f->kind) {
	case TB_PMCLOG_F_I32: v->i[0] = (int64_t)tb_pmclog_field_num(f, ev); break;
	case TB_PMCLOG_F_TIMESPEC: memcpy(v->i, at, 16); break;
	case TB_PMCLOG_F_STR: memcpy(&v->s, at, sizeof(v->s)); break;
	case TB_PMCLOG_F_PCS: /* from ev->u.cc */
	case TB_PMCLOG_F_PARTS: break;
	default: v->u = tb_pmclog_field_num(f, ev); break;
	}
}

#endif
