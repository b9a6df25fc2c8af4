/*
 * host/: a session's Parquet tables (pq_session.h) written as files of a
 * directory, on one thread or two: the POSIX side of the library's
 * writer (files, buffer-NAME/ subdirectories, zstd pages when built with
 * it, the heap), for `convert --to parquet` and any program that wants a
 * capture's tables on disk.
 *
 * The caller walks the session (tb_session_next) and hands each event to
 * tb_host_pq_event, which is tb_pq_session_event with the files, the
 * memory and the threads taken care of.  With jobs > 1, two library
 * writers share the tables on two threads: the events go, their records
 * copied, through a bounded queue (8 chunks of 2 MiB) to a thread that
 * writes the per-format tables, and the events table's rows are made by
 * whichever thread has nothing else to do.  Every table has one writer
 * and takes its rows in order, so the files are the one-thread files,
 * byte for byte (pq_session.h).  When the chunks or the thread cannot be
 * had, one thread does it all.
 *
 * Errors: the first output error (a file, the writer, memory) is handed
 * to cfg.error, once, with the path (or the directory) and what went
 * wrong; every writer then stops.  The walk should stop too
 * (tb_host_pq_failed).  Nothing is printed here.
 */
#ifndef TB_HOST_PQ_DIR_H
#define TB_HOST_PQ_DIR_H

#include <stddef.h>

#include "tracebound/pq_session.h"

typedef struct tb_host_pq tb_host_pq;

typedef struct tb_host_pq_config {
	const char *dir;     /* the tables go here (it exists) */
	const char *source;  /* events.parquet's "tracebound.source" (NUL-terminated) */
	int text;            /* events.parquet gets __text, from render */
	int jobs;            /* > 1: two threads */
	void *ctx;
	/* The first output error: path, what (static), errno or 0. */
	void (*error)(void *ctx, const char *path, const char *what, int err);
	/* With text: the event's __text (on the walking thread, valid until
	 * the next call): 0, or -1 (out of memory, said here). */
	int (*render)(void *ctx, const tb_session_event *ev, const char **text, size_t *len);
} tb_host_pq_config;

/* The writers over s (read, not walked, by the second thread: walk s on
 * the caller's thread only).  0, or -1 (said); *out is set either way:
 * close it. */
int tb_host_pq_open(tb_host_pq **out, const tb_session *s, const tb_host_pq_config *cfg);

/* One event of the walk, in order: 0, or -1 when the writing stopped. */
int tb_host_pq_event(tb_host_pq *w, const tb_session_event *ev);

/* 1 when an output error stopped the writing (stop the walk). */
int tb_host_pq_failed(const tb_host_pq *w);

/* The walk is over: every table finished, then metadata.parquet and
 * metadata.json (tb_pq_session_metadata with meta, whose events and
 * formats writers are filled in here).  0, or -1 (an error said). */
int tb_host_pq_finish(tb_host_pq *w, const tb_pq_session_meta *meta);

/* Stop the second thread (when finish was not called), give everything
 * back.  NULL: nothing. */
void tb_host_pq_close(tb_host_pq *w);

#endif
