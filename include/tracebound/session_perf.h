/*
 * tracebound: a perf.data through the session (docs/perfdata.md).
 *
 * tb_session_open_budget opens a perf.data (file or `perf record -o -`
 * stream, whole in memory) given as tb_session_source.perf.  Its events
 * are the samples merged by time as perf orders them (each round between
 * FINISHED_ROUND records sorted, a round given once the next one is
 * read), a tracepoint sample's RAW record typed by the TRACING_DATA format
 * its attr's config names; comm is the task's name in force at the
 * sample's time (COMM, FORK); LOST and LOST_SAMPLES come as the next
 * event's drops (tb_session_event.missed).  tb_session_text's LINE is
 * `perf script`'s default line; JSON adds the perf fields below.
 *
 * This header says what the session keeps of the sample behind an event.
 */
#ifndef TRACEBOUND_SESSION_PERF_H
#define TRACEBOUND_SESSION_PERF_H

#include "tracebound/perfdata.h"
#include "tracebound/session.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What perf says of the sample behind the last event tb_session_next gave. */
typedef struct tb_session_perf_sample {
	int32_t pid, tid;          /* -1 without TID */
	uint64_t period;           /* PERIOD (0 without) */
	uint64_t ip;               /* IP (0 without) */
	uint32_t attr;             /* index in tb_session_perf(s)->attrs */
	tb_span system, name;      /* the event as perf names it (system empty
				      when name is whole: "cycles") */
	tb_perf_u64s callchain;    /* CALLCHAIN as written: context markers kept */
	uint64_t offset;           /* the SAMPLE record's file / stream offset */
} tb_session_perf_sample;

/* The perf.data the session reads (NULL: not a perf.data). */
TB_API const tb_perf *tb_session_perf(const tb_session *s);

/* The sample behind ev, the last event tb_session_next gave: TB_OK,
 * TB_NOT_FOUND for a session without perf.data or another event. */
TB_API tb_status tb_session_perf_sample_get(const tb_session *s, const tb_session_event *ev,
					    tb_session_perf_sample *out);

/*
 * COMPRESSED records (`perf record -z`): one zstd stream runs through all
 * of them, so the caller hands a streaming decompressor (perfdata.h's
 * tb_perf_decompress_fn) and reset, which starts its stream again (a
 * rewind).  Call after the open, before the walk (the walk starts again).
 * The session takes a window of 2 x TB_PERF_WINDOW_MIN and copies the
 * records it queues out of it (memory: the queued rounds' records).
 */
typedef struct tb_session_perf_inflater {
	tb_perf_decompress_fn fn;
	void *ctx;
	void (*reset)(void *ctx);  /* may be NULL */
} tb_session_perf_inflater;

TB_API TB_MUST_CHECK tb_status tb_session_perf_decompress(tb_session *s,
							  const tb_session_perf_inflater *z,
							  tb_error *err);

/* Callchain values from here up are perf's context markers, not ips. */
#define TB_PERF_CONTEXT_MAX ((uint64_t)-4095)

#ifdef __cplusplus
}
#endif

#endif /* TRACEBOUND_SESSION_PERF_H */
