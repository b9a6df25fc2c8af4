/*
 * Comparable copies of pmclog events, shared by the tests and the fuzz
 * harness: pointers become offsets inside the record, so events of two
 * decodes of the same bytes (one-shot and split feeding, where records
 * live in different buffers) compare equal with memcmp.
 */
#ifndef TB_PMCLOG_SNAP_H
#define TB_PMCLOG_SNAP_H

#include <stdint.h>
#include <string.h>

#include "tracebound/pmclog.h"

typedef struct tb_pmclog_snap {
	tb_pmclog_event ev; /* pointers replaced by offset + 1 (0: none) */
	uint64_t hash;      /* FNV-1a of the record bytes */
} tb_pmclog_snap;

/* The string field of an event, or NULL. */
static inline tb_pmclog_str *tb_pmclog_snap_str(tb_pmclog_event *ev)
{
	switch (ev->type) {
	case TB_PMCLOG_INITIALIZE: return &ev->u.i.cpuid;
	case TB_PMCLOG_PMCALLOCATEDYN: return &ev->u.ad.evname;
	case TB_PMCLOG_PMCATTACH: return &ev->u.t.pathname;
	case TB_PMCLOG_PROCEXEC: return &ev->u.x.pathname;
	case TB_PMCLOG_MAP_IN: return &ev->u.mi.pathname;
	case TB_PMCLOG_THR_CREATE: return &ev->u.tc.tdname;
	case TB_PMCLOG_PROC_CREATE: return &ev->u.pc.pcomm;
	default: return NULL;
	}
}

static inline uintptr_t tb_pmclog_snap_rel(const tb_pmclog_event *ev,
					   const void *p)
{
	return p ? (uintptr_t)p - (uintptr_t)ev->data + 1 : 0;
}

static inline void tb_pmclog_take_snap(const tb_pmclog_event *ev,
				       tb_pmclog_snap *s)
{
	uint64_t h = 1469598103934665603ULL;
	tb_pmclog_str *str;
	uint32_t i;
	memcpy(&s->ev, ev, sizeof(*ev));
	for (i = 0; i < ev->len; i++)
		h = (h ^ ev->data[i]) * 1099511628211ULL;
	s->hash = h;
	str = tb_pmclog_snap_str(&s->ev);
	if (str)
		str->ptr = (const char *)tb_pmclog_snap_rel(ev, str->ptr);
	if (ev->type == TB_PMCLOG_CALLCHAIN)
		s->ev.u.cc.pc = (const uint8_t *)tb_pmclog_snap_rel(ev, ev->u.cc.pc);
	s->ev.data = NULL;
}

static inline int tb_pmclog_snap_eq(const tb_pmclog_snap *a,
				    const tb_pmclog_snap *b)
{
	return a->hash == b->hash && memcmp(&a->ev, &b->ev, sizeof(a->ev)) == 0;
}

#endif
