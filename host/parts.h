/*
 * host/: the parts engine, the one thread engine of the tools (report
 * --jobs N, convert --to perfetto --jobs N).  POSIX threads; the policy
 * (what a part makes, where it goes) is the caller's, through hooks.
 *
 * The library splits a capture into parts by time (tb_session_plan) and
 * gives each worker thread a cursor of its own.  A command says, through
 * hooks, what a worker makes of a part (produce: bytes and messages put
 * into a sink) and what the main thread does with those bytes, in part
 * order (consume: write them, or parse and place them).  The engine runs
 * the threads, bounds each worker's queued memory, keeps the messages in
 * their place, and when the parts do not tile (a clock going back) walks
 * the whole capture again on one cursor through the same produce and
 * consume hooks, skipping what was consumed already.  tb_parts_walk is
 * the one-thread run through the same hooks, so a command writes its
 * walk once.  Messages are handed to the message hook as text; the
 * engine prints nothing itself.
 *
 * A command: fill tb_parts_hooks, call tb_parts_run(s, jobs, &h) when it
 * wants threads, and tb_parts_walk(s, &h) when that returned -1 (or for
 * one thread).  Only tb_parts_* sink calls inside produce.
 */
#ifndef TB_HOST_PARTS_H
#define TB_HOST_PARTS_H

#include <stddef.h>
#include <stdint.h>

#include "tracebound/session.h"

typedef struct tb_parts_sink tb_parts_sink;

/* Put n bytes: one put is never split between two consume calls' chunks
 * (consume may get several puts at once).  0, or -1: stop (cancelled, out
 * of memory, or a write error in the one-cursor walk). */
int tb_parts_put(tb_parts_sink *k, const void *p, size_t n);
/* One put of two pieces, a then b (a record's header and its body; either
 * may be empty): 0, -1 as tb_parts_reserve's NULL, -2 a write error (the
 * one-cursor walk).  tb_parts_put is this with no header. */
int tb_parts_put2(tb_parts_sink *k, const void *a, size_t an, const void *b, size_t bn);
/* Room to build a put in place (no copy): at least n bytes, *room says
 * how many (NULL: stop, as above).  tb_parts_commit(k, used) then puts the
 * first `used` bytes (at most *room) as one tb_parts_put would. */
void *tb_parts_reserve(tb_parts_sink *k, size_t n, size_t *room);
int tb_parts_commit(tb_parts_sink *k, size_t used);
/* A message (for stderr), in its place among the bytes.  0 or -1 as above. */
int tb_parts_msg(tb_parts_sink *k, const char *msg);
/* With defer_first: 1 when the producer must hand this part's first
 * formatted event to tb_parts_defer instead of putting its bytes. */
int tb_parts_want_defer(const tb_parts_sink *k);
/* The event, for the main thread's defer hook (its record copied). */
int tb_parts_defer(tb_parts_sink *k, const tb_session_event *ev);

typedef struct tb_parts_hooks {
	void *ctx;
	const tb_mem *mem;       /* the heap of the workers' cursors */
	uint64_t input_len;      /* the capture's bytes: how many parts */
	/* A worker's state, made and freed on its thread (NULL: out of memory);
	 * both may be NULL (no state: produce gets NULL). */
	void *(*worker_new)(void *ctx);
	void (*worker_free)(void *ctx, void *ws);
	/* Every event of the cursor p into k: 0, or -1 (stop: out of memory
	 * said, cancelled, or a write error).  *bad raised to 1 (damage seen)
	 * or 2 (out of memory). */
	int (*produce)(void *ctx, void *ws, tb_session *p, tb_parts_sink *k, int *bad);
	/* The main thread (or, direct_ok, the live part's worker: one
	 * thread at a time), in order: bytes put (whole puts).  0, or -1:
	 * stop (a write error, errno set; the caller reports it). */
	int (*consume)(void *ctx, const uint8_t *p, size_t n);
	/* As consume: a message. */
	void (*message)(void *ctx, const char *msg);
	/* defer_first only: the deferred event, rendered with the line state
	 * the earlier parts left; *bytes counts what was consumed (the
	 * one-cursor walk skips it).  0, -1 a write error, -2 out of memory
	 * (said). */
	int (*defer)(void *ctx, const tb_session_event *ev, const tb_session_line_state *ls,
		     uint64_t *bytes);
	int defer_first;
	/* consume and message may run on a worker, one thread at a time, for
	 * the part being written when nothing before it is left (report:
	 * the live part's lines go out from the worker's own buffer, with no
	 * copy to a chunk and no wait for the main thread) */
	int direct_ok;
	/* 0: the engine picks the parts (at least 4 per thread).  Else a
	 * fixed plan of this many parts whatever `jobs` (tb_parts_count):
	 * for output that depends on where the parts are cut. */
	size_t parts;
} tb_parts_hooks;

/* The part count of a fixed plan: one per 8 MiB of capture, 1 to 1024
 * (TRACEBOUND_PART_SIZE=BYTES sets the 8 MiB, for tests).  The same on
 * any number of threads. */
size_t tb_parts_count(uint64_t input_len);

/* The one-cursor walks (tb_parts_walk, or when the parts did not tile):
 * the fixed plan's split times, so that produce can cut where the parts
 * were cut.  A part, or no fixed plan: NULL, *n = 0 (its cut is its end). */
const uint64_t *tb_parts_bounds(const tb_parts_sink *k, size_t *n);

/*
 * Run the session s (opened) on `jobs` threads (>= 2).  -1 when it cannot
 * be split (nothing was produced: run the one-thread loop), else the
 * highest *bad the producers set: 0, 1 (damage seen) or 2 (out of memory).
 * A consume error stops it (the caller knows and reports it).
 */
int tb_parts_run(tb_session *s, int jobs, const tb_parts_hooks *h);

/*
 * The one-thread loop through the same hooks: s itself (not a part
 * cursor) walked by one produce call straight to consume and message,
 * cut at a fixed plan's times (h->parts: see tb_parts_bounds; the times
 * given before a plan error are kept, as tb_parts_run keeps them).
 * Returns the highest *bad, as tb_parts_run.
 */
int tb_parts_walk(tb_session *s, const tb_parts_hooks *h);

#endif
