/*
 * host/: a session's capture as a Perfetto trace, on N threads through
 * the parts engine (host/parts.h), or on one; the output the same.
 *
 * The caller sets up one writer (tb_pf_session_config, tb_pf_init,
 * tb_pf_session_begin, tb_pf_session_clock: docs/perfetto.md) whose
 * write callback takes the trace in order.  Each worker thread makes its
 * part's packets with a writer of its own (the same configuration) and
 * the main thread hands them to that callback in part order.  Every open
 * bundle is written (tb_pf_flush) at the split times of a fixed plan,
 * before the first event at or past each: one cut per 8 MiB of capture
 * (tb_parts_count), whatever the thread count, so a part's bundles are its
 * own.  A cut costs at most one short packet per CPU.
 */
#ifndef TB_HOST_PFJOBS_H
#define TB_HOST_PFJOBS_H

#include "tracebound/perfetto.h"

typedef struct tb_pfjobs {
	/* the main writer (with cfg.mem: the workers' writers take their
	 * memory from it); its stats get the workers' */
	tb_pf_writer *w;
	const tb_mem *mem;       /* the heap of the workers' cursors */
	uint64_t input_len;      /* the capture's bytes: how many parts */
	int split;               /* 0: one walk, no cuts (raw dumps) */
	int jobs;                /* threads (1: one walk) */
	void *ctx;
	/* The line (with its newline) for a page the session could not read
	 * (e) or a damaged page it skipped (ev, TB_SEV_DAMAGED; e NULL) of
	 * the cursor p: said in its place among the trace's packets. */
	void (*say_page)(void *ctx, char *buf, size_t cap, const tb_session *p,
			 const tb_session_event *ev, const tb_error *e);
	/* A line to say (stderr), in order. */
	void (*message)(void *ctx, const char *msg);
} tb_pfjobs;

/*
 * Convert every event of s (opened with TB_SESSION_SKIP_DAMAGED) into
 * j->w, not finished.  The highest of 0, 1 (damage seen, said) and 2 (out
 * of memory, said); -1 when an event or the output failed: *err says
 * (the write callback's own error is the caller's to tell).
 */
int tb_pfjobs_run(tb_session *s, const tb_pfjobs *j, tb_error *err);

#endif
