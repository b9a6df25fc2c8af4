/*
 * The session's perf.data source (lib/session_perf.c): what session.c
 * calls.  Internal header: not installed.
 */
#ifndef TB_LIB_SESSION_PERF_H
#define TB_LIB_SESSION_PERF_H

#include "tracebound/session_perf.h"
#include "tracebound/text.h"

/* Memory through the session's budget. */
typedef struct tb_sperf_mem {
	void *(*get)(void *ctx, size_t n);
	void (*put)(void *ctx, void *p, size_t n);
	void *ctx;
} tb_sperf_mem;

typedef struct tb_sperf tb_sperf;

/* One event of the walk: a sample, with its drops before it. */
typedef struct tb_sperf_item {
	uint32_t cpu;
	uint64_t ts;
	const uint8_t *raw;        /* RAW (a tracepoint's record), or NULL */
	uint32_t raw_len;
	int64_t missed;            /* LOST / LOST_SAMPLES since the last sample */
	const char *comm;
	size_t comm_len;
	int comm_known;            /* from COMM / FORK (else ":tid", "swapper") */
	tb_session_perf_sample ps;
} tb_sperf_item;

/* Open data[0..len) (file or pipe stream).  The tracing data's bytes in
 * *tracing (empty when there are none). */
tb_status tb_sperf_open(tb_sperf **out, const void *data, size_t len, const tb_sperf_mem *m,
			const uint8_t **tracing, size_t *tracing_len, tb_error *err);
void tb_sperf_close(tb_sperf *p);
const tb_perf *tb_sperf_perf(const tb_sperf *p);

/* Name the attrs: EVENT_DESC's names, else for a tracepoint fmt(ctx,
 * config, &system, &name), else perf's names of the generic events.
 * Then *width is the longest (perf script's column). */
void tb_sperf_name(tb_sperf *p, int (*fmt)(void *ctx, uint64_t id, tb_span *sys, tb_span *name),
		   void *ctx);

/* The next sample by time: TB_OK, TB_END, an error for one record (the
 * next call goes on), TB_ERR_BUDGET / TB_ERR_NO_SPACE for the queue. */
tb_status tb_sperf_next(tb_sperf *p, tb_sperf_item *it, tb_error *err);
tb_status tb_sperf_rewind(tb_sperf *p);
/* A file's data section read through rd (tracedat.h's read function)
 * into a buffer of its own from the next walk on, not from the mapping
 * (a pipe, or a file with COMPRESSED records, is still read in place). */
void tb_sperf_read_through(tb_sperf *p, tb_dat_read_fn rd, void *ctx);
/* COMPRESSED records through z from now on (the walk starts again). */
tb_status tb_sperf_decompress(tb_sperf *p, const tb_session_perf_inflater *z, tb_error *err);

/* The CPUs counted (stats), and one's counts. */
uint32_t tb_sperf_ncpus(const tb_sperf *p);
tb_session_cpu_stats *tb_sperf_stats(tb_sperf *p, uint32_t cpu);

/* What the line head keeps from one line for the next (zeroed: none):
 * the seconds column, and per CPU (cpu % 4) "comm tid [cpu] " of its
 * last two tasks (a CPU's lines alternate between the task switched out
 * and the one switched in: one kept missed a third of a sched capture's
 * lines, two miss almost none). */
typedef struct tb_sperf_head {
	uint64_t sec;
	char sec_text[16];      /* spaces, the seconds, '.' */
	uint8_t sec_len;        /* 0: none */
	struct tb_sperf_head_task {
		int32_t tid;
		uint32_t cpu;
		uint8_t comm_len, len; /* len 0: none */
		char comm[16];
		char text[48];
	} task[4][2];
	uint8_t older[4];       /* per CPU: the way to fill next */
} tb_sperf_head;

/* perf script's default columns before the event's text: comm, tid,
 * [cpu], time, name (padded unless the sample has a callchain). */
void tb_sperf_line_head(const tb_sperf *p, const tb_sperf_item *it, const char *comm,
			size_t comm_len, tb_sperf_head *hc, tb_text *t);
/* After the text: the callchain lines (kernel frames named from ks). */
void tb_sperf_line_tail(const tb_sperf *p, const tb_sperf_item *it, const tb_kallsyms *ks,
			tb_text *t);
/* JSON members after "size": tid, period, ip, callchain. */
void tb_sperf_json(const tb_sperf_item *it, tb_text *t);

#endif
