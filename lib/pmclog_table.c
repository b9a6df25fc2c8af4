/*
 * The pmclog record table (see include/tracebound/pmclog.h): one row per
 * record kind.  Layouts from /work/shared/specs/pmclog-format.md,
 * sections 3 and 4; the decoder (pmclog.c), the renderer (pmclog_text.c)
 * and the Python module all read them from here.
 *
 * A field row: JSON key, event member, kind, generations, condition,
 * text form and place, how the decoder reads it, and where: modern
 * offset + A multiples, legacy offset + A multiples (A: address width),
 * and a name's size.  Fields are listed in JSON order.
 */
#include <stddef.h>
#include <string.h>

#include "tracebound/pmclog.h"
#include "pmclog_field.h"

/* (the key's length from its literal: the renderers copy it, no strlen) */
#define FK(key, klen, member, kind, gens, when, text, pos, src, am, aam, al, aal, size)        \
	{ key, (uint16_t)offsetof(tb_pmclog_event, member), TB_PMCLOG_F_##kind,                 \
	  TB_PMCLOG_IN_##gens, TB_PMCLOG_W_##when, TB_PMCLOG_T_##text, pos, TB_PMCLOG_S_##src, \
	  { am, al }, { aam, aal }, size, klen }
#define F(key, ...) FK(key, (uint8_t)(sizeof(key) - 1), __VA_ARGS__)
#define END { NULL, 0, TB_PMCLOG_F_END, 0, 0, 0, 0, 0, { 0, 0 }, { 0, 0 }, 0, 0 }
/* The common shapes: one 32-bit word at the same place in both
 * generations, shifted by the prefix (16 modern, 12 legacy). */
#define U32(key, m, text, pos, at) F(key, m, U32, BOTH, ALWAYS, text, pos, U32, at, 0, (at) - 4, 0, 0)
#define I32(key, m, text, pos, at) F(key, m, I32, BOTH, ALWAYS, text, pos, I32, at, 0, (at) - 4, 0, 0)
/* Fields only in modern logs (after the 16-byte prefix). */
#define M_U32(key, m, text, pos, at) F(key, m, U32, MODERN, ALWAYS, text, pos, U32, at, 0, 0, 0, 0)
#define M_I32(key, m, text, pos, at) F(key, m, I32, MODERN, ALWAYS, text, pos, I32, at, 0, 0, 0, 0)
#define M_NAME(key, m, pos, at, n) F(key, m, STR, MODERN, ALWAYS, STR, pos, NAME, at, 0, 0, 0, n)
/* Fields the decoder sets by code (layouts that move): no place here. */
#define BY_CODE(key, m, kind, gens, when, text, pos) F(key, m, kind, gens, when, text, pos, CODE, 0, 0, 0, 0, 0)
/* MAP_IN and MAP_OUT start alike: pid, (modern: pad,) start address. */
#define MAP_PID_START(s)                                                                 \
	I32("pid", u.s.pid, DEC, 1, 16),                                                 \
	F("start", u.s.start, U64, BOTH, ALWAYS, HEX, 2, ADDR, 24, 0, 16, 0, 0)

#define ROW(t, name_, pmcstat_, rm, rl, sm, sam, sl, sal, ...)                                  \
	[TB_PMCLOG_##t] = { .type = TB_PMCLOG_##t, .name = name_,                             \
			    .libpmc = "PMCLOG_TYPE_" #t, .pmcstat = pmcstat_, .raw = { rm, rl },  \
			    .size = { sm, sl }, .size_a = { sam, sal },                          \
			    .name_len = sizeof(name_) - 1, .pmcstat_len = sizeof(pmcstat_) - 1,  \
			    .nfields = (uint8_t)(sizeof((const tb_pmclog_field[]){ __VA_ARGS__ }) / \
						 sizeof(tb_pmclog_field) - 1),                   \
			    .fields = (const tb_pmclog_field[]){ __VA_ARGS__ } }

const tb_pmclog_record tb_pmclog_rows_[TB_PMCLOG_TYPE_COUNT_] = {
	ROW(UNKNOWN, "unknown", "unknown", -1, -1, 0, 0, 0, 0,
	    BY_CODE("raw_type", raw_type, U8, BOTH, ALWAYS, NONE, 0),
	    BY_CODE("len", len, U16, BOTH, ALWAYS, NONE, 0), END),
	ROW(CLOSELOG, "closelog", "closelog", 1, 0, 16, 0, 12, 0, END),
	ROW(DROPNOTIFY, "dropnotify", "drop", 2, 1, 16, 0, 12, 0, END),
	/* sizes by code: 104 or 112 modern (time_t), 20 legacy */
	ROW(INITIALIZE, "initialize", "initlog", 3, 2, 0, 0, 0, 0,
	    U32("version", u.i.version, HEX, 1, 16), U32("arch", u.i.arch, HEX, 2, 20),
	    F("tsc_freq", u.i.tsc_freq, U64, MODERN, ALWAYS, NONE, 0, U64W, 24, 0, 0, 0, 0),
	    BY_CODE("ts", u.i.ts_sec, TIMESPEC, MODERN, ALWAYS, NONE, 0),
	    BY_CODE("cpuid", u.i.cpuid, STR, MODERN, ALWAYS, STR, 3), END),
	/* legacy only: modern type 4 is retired */
	ROW(PCSAMPLE, "pcsample", "sample", -1, 4, 0, 0, 24, 1,
	    F("pid", u.s.pid, I32, LEGACY, ALWAYS, DEC, 2, I32, 0, 0, 12, 0, 0),
	    F("pc", u.s.pc, U64, LEGACY, ALWAYS, HEX, 3, ADDR, 0, 0, 16, 0, 0),
	    F("pmcid", u.s.pmcid, U32, LEGACY, ALWAYS, HEX, 1, U32, 0, 0, 16, 1, 0),
	    F("usermode", u.s.usermode, U32, LEGACY, ALWAYS, USER, 4, U32, 0, 0, 20, 1, 0), END),
	ROW(PMCALLOCATE, "pmcallocate", "allocate", 5, 5, 40, 0, 24, 0,
	    U32("pmcid", u.a.pmcid, HEX, 1, 16), U32("event", u.a.event, HEX, 2, 20),
	    U32("flags", u.a.flags, HEX, 3, 24),
	    F("rate", u.a.rate, U64, MODERN, ALWAYS, NONE, 0, U64W, 32, 0, 0, 0, 0), END),
	ROW(PMCATTACH, "pmcattach", "attach", 6, 6, 0, 0, 0, 0,
	    U32("pmcid", u.t.pmcid, HEX, 1, 16), I32("pid", u.t.pid, DEC, 2, 20),
	    F("pathname", u.t.pathname, STR, BOTH, ALWAYS, STR, 3, PATH, 24, 0, 20, 0, 0), END),
	ROW(PMCDETACH, "pmcdetach", "detach", 7, 7, 24, 0, 20, 0,
	    U32("pmcid", u.d.pmcid, HEX, 1, 16), I32("pid", u.d.pid, DEC, 2, 20), END),
	/* legacy: pmcid, value, pid; modern: value, pmcid, pid, tid */
	ROW(PROCCSW, "proccsw", "cswval", 8, 8, 40, 0, 28, 0,
	    F("pmcid", u.c.pmcid, U32, BOTH, ALWAYS, HEX, 1, U32, 24, 0, 12, 0, 0),
	    F("pid", u.c.pid, I32, BOTH, ALWAYS, DEC, 2, I32, 28, 0, 24, 0, 0),
	    M_I32("tid", u.c.tid, NONE, 0, 32),
	    F("value", u.c.value, U64, BOTH, ALWAYS, DEC, 3, U64W, 16, 0, 16, 0, 0), END),
	ROW(PROCEXEC, "procexec", "exec", 9, 9, 0, 0, 0, 0,
	    I32("pid", u.x.pid, DEC, 2, 16),
	    F("pmcid", u.x.pmcid, U32, BOTH, ALWAYS, HEX, 1, U32, 20, 0, 16, 1, 0),
	    F("baseaddr", u.x.baseaddr, U64, MODERN, DYN, HEX, 3, ADDR, 24, 0, 0, 0, 0),
	    F("dynaddr", u.x.dynaddr, U64, MODERN, DYN, HEX, 4, ADDR, 24, 1, 0, 0, 0),
	    F("entryaddr", u.x.entryaddr, U64, BOTH, NODYN, HEX, 3, ADDR, 24, 0, 16, 0, 0),
	    F("pathname", u.x.pathname, STR, MODERN, DYN, STR, 5, PATH, 24, 2, 0, 0, 0),
	    F("pathname", u.x.pathname, STR, BOTH, NODYN, STR, 4, PATH, 24, 1, 20, 1, 0), END),
	ROW(PROCEXIT, "procexit", "exitval", 10, 10, 32, 0, 28, 0,
	    U32("pmcid", u.e.pmcid, HEX, 1, 16),
	    F("pid", u.e.pid, I32, BOTH, ALWAYS, DEC, 2, I32, 20, 0, 24, 0, 0),
	    F("value", u.e.value, U64, BOTH, ALWAYS, DEC, 3, U64W, 24, 0, 16, 0, 0), END),
	ROW(PROCFORK, "procfork", "fork", 11, 11, 24, 0, 20, 0,
	    I32("oldpid", u.f.oldpid, DEC, 1, 16), I32("newpid", u.f.newpid, DEC, 2, 20), END),
	ROW(SYSEXIT, "sysexit", "exit", 12, 12, 24, 0, 16, 0,
	    I32("pid", u.se.pid, DEC, 1, 16), END),
	ROW(USERDATA, "userdata", "userdata", 13, 13, 24, 0, 16, 0,
	    U32("userdata", u.u.userdata, HEX, 1, 16), END),
	ROW(MAP_IN, "map_in", "map-in", 14, 14, 0, 0, 0, 0, MAP_PID_START(mi),
	    F("pathname", u.mi.pathname, STR, BOTH, ALWAYS, STR, 3, PATH, 24, 1, 16, 1, 0), END),
	ROW(MAP_OUT, "map_out", "map-out", 15, 15, 24, 2, 16, 2, MAP_PID_START(mo),
	    F("end", u.mo.end, U64, BOTH, ALWAYS, HEX, 3, ADDR, 24, 1, 16, 1, 0), END),
	/* the PCs (and a multipart header) follow at 32 modern, 24 legacy */
	ROW(CALLCHAIN, "callchain", "callchain", 16, 16, 0, 0, 0, 0,
	    I32("pid", u.cc.pid, DEC, 1, 16), M_I32("tid", u.cc.tid, NONE, 0, 20),
	    F("pmcid", u.cc.pmcid, U32, BOTH, ALWAYS, HEX, 2, U32, 24, 0, 16, 0, 0),
	    F("cpuflags", u.cc.cpuflags, U32, BOTH, ALWAYS, CPU, 3, U32, 28, 0, 20, 0, 0),
	    BY_CODE("npc", u.cc.npc, U32, BOTH, ALWAYS, DEPTH, 4),
	    FK(NULL, 0, u.cc.cpuflags, U32, BOTH, ALWAYS, CCUSER, 5, CODE, 0, 0, 0, 0, 0),
	    BY_CODE("pc", u.cc.pc, PCS, BOTH, ALWAYS, LINES, 6),
	    BY_CODE("pc_first", u.cc.pc_first, U32, BOTH, MULTIPART, NONE, 0),
	    BY_CODE("parts", u.cc.parts, PARTS, BOTH, MULTIPART, NONE, 0), END),
	/* sizes by code: 96 modern, 40 or 88 legacy (PMC_NAME_MAX 16 or
	 * 64); the name's place by code (the kernel writer's quirk) */
	ROW(PMCALLOCATEDYN, "pmcallocatedyn", "allocatedyn", 17, 17, 0, 0, 0, 0,
	    U32("pmcid", u.ad.pmcid, HEX, 1, 16), U32("event", u.ad.event, NONE, 0, 20),
	    U32("flags", u.ad.flags, HEX, 3, 24),
	    BY_CODE("rate", u.ad.rate, U64, MODERN, NAME40, NONE, 0),
	    BY_CODE("evname", u.ad.evname, STR, BOTH, ALWAYS, STR, 2), END),
	/* modern only, as the two below */
	ROW(THR_CREATE, "thr_create", "thr-create", 18, -1, 52, 0, 0, 0,
	    M_I32("tid", u.tc.tid, DEC, 1, 16), M_I32("pid", u.tc.pid, DEC, 2, 20),
	    M_U32("flags", u.tc.flags, HEX, 3, 24), M_NAME("tdname", u.tc.tdname, 4, 32, 20), END),
	ROW(THR_EXIT, "thr_exit", "thr-exit", 19, -1, 24, 0, 0, 0,
	    M_I32("tid", u.te.tid, DEC, 1, 16), END),
	ROW(PROC_CREATE, "proc_create", "create", 20, -1, 44, 0, 0, 0,
	    M_I32("pid", u.pc.pid, DEC, 1, 16), M_U32("flags", u.pc.flags, HEX, 2, 20),
	    M_NAME("pcomm", u.pc.pcomm, 3, 24, 20), END),
	/* AMD's fork: a grouped PMC a forked child could not inherit */
	ROW(PMCGROUPINHERITMISS, "pmcgroupinheritmiss", "pmcgroupinheritmiss", 21, -1, 24, 0, 0, 0,
	    M_U32("pmcid", u.d.pmcid, HEX, 1, 16), M_I32("pid", u.d.pid, DEC, 2, 20), END),
};

TB_API const tb_pmclog_record *tb_pmclog_record_of(tb_pmclog_type type)
{
	return tb_pmclog_row(type);
}

TB_API const char *tb_pmclog_type_name(tb_pmclog_type type)
{
	return tb_pmclog_record_of(type)->name;
}

TB_API int tb_pmclog_field_on(const tb_pmclog_field *f, const tb_pmclog_event *ev)
{
	return tb_pmclog_field_present(f, ev);
}

TB_API void tb_pmclog_field_get(const tb_pmclog_field *f, const tb_pmclog_event *ev,
				tb_pmclog_value *v)
{
	tb_pmclog_field_value(f, ev, v);
}
