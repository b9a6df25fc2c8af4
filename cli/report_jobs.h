/* report's walk of the events: one capture's parts formatted on N threads (host/parts.h), or on
 * one; several captures merged by time. */
#ifndef TB_CLI_REPORT_JOBS_H
#define TB_CLI_REPORT_JOBS_H

#include "capture.h"

/* 1: the event is printed (report's --cpu, --events, -F); read-only use. */
typedef int (*tb_report_select_fn)(const void *ctx, const tb_session *s,
				   const tb_session_event *ev);

#define TB_REPORT_MAX_FILES 64

typedef struct tb_report_job {
	tb_cli_capture *c;       /* opened; tb_session_prepare done here */
	size_t ncaps;            /* c[0..ncaps): several are merged by time
				    (report.h), on one thread */
	size_t width;            /* several, as text: the names' width */
	unsigned how;            /* tb_session_text flags */
	int json;                /* a newline after each object */
	int jobs;                /* threads (1: the one-thread walk) */
	int progress;            /* one thread: "\rN events" on stderr */
	tb_report_select_fn select; /* NULL: every event */
	const void *select_ctx;
} tb_report_job;

/*
 * Write every event, the same bytes on stdout and stderr on any number of
 * threads (one when the capture cannot be split).  0, 1 (damage seen) or
 * 2 (out of memory, said).  A write error stops it: one of stdio's is
 * left for the caller's stdout check to report; one of write(2) (large
 * blocks bypass stdio's buffer) is said here, and 2 returned.
 */
int tb_report_jobs(const tb_report_job *job);

/* trace-cmd's "NAME: " before a line when several files are read, the
 * names right-aligned to width: the instance's name for a named buffer,
 * else the file's base name (buffer UINT32_MAX: always).  snprintf's
 * result. */
int tb_report_prefix(char *buf, size_t cap, const tb_cli_capture *c, uint32_t buffer,
		     size_t width);

#endif
