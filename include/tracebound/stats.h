/*
 * tracebound: a capture's statistics, counted and written out as
 * `tracebound stats` prints them: per buffer its trace clock, events,
 * pages, drops and time span, per CPU its events, span and drops, per
 * event type its count (most frequent first).  The caller walks the
 * session and hands each event to tb_stats_count; the memory is the
 * caller's (no allocation).
 */
#ifndef TRACEBOUND_STATS_H
#define TRACEBOUND_STATS_H

#include "tracebound/session.h"
#include "tracebound/text.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tb_stats_type {
	const tb_format *format;
	uint64_t n;
} tb_stats_type;

typedef struct tb_stats_cpu {
	uint32_t cpu;
	uint64_t events, first, last;
} tb_stats_cpu;

/* One buffer's counts.  Zero it, then set cpus (tb_stats_cpus) and types. */
typedef struct tb_stats {
	uint64_t events, first, last;
	uint64_t errors;          /* pages the walk said were malformed (the caller counts) */
	uint64_t unknown;         /* events of ids without a format */
	tb_stats_type *types;     /* caller memory: the formats met, types_cap at most */
	size_t ntypes, types_cap;
	tb_stats_cpu *cpus;       /* caller memory: the buffer's CPUs */
	size_t ncpus;
} tb_stats;

/*
 * The CPUs of buffer k of s into cpus[0..cap) (their numbers set, counts
 * zero).  Returns how many the buffer has: call with cap 0 to size it.
 */
TB_API size_t tb_stats_cpus(const tb_session *s, size_t k, tb_stats_cpu *cpus, size_t cap);

/*
 * Count event ev (of kind TB_SEV_EVENT) into b, its buffer's counts.
 * TB_ERR_NO_SPACE, nothing counted, when its format is new and types is
 * full: give types more room (copied over) and call again.
 */
TB_API tb_status tb_stats_count(tb_stats *b, const tb_session_event *ev);

/*
 * The statistics text of s after its "file:" line: what the trace.dat or
 * perf.data header says, then each buffer with bufs[k] its counts (one
 * per session buffer, tb_session_get_info(s)->nbuffers).  Sorts each
 * buffer's types in place.
 */
TB_API void tb_stats_text(tb_text *t, const tb_session *s, tb_stats *bufs);

#ifdef __cplusplus
}
#endif

#endif /* TRACEBOUND_STATS_H */
