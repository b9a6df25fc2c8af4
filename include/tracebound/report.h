/*
 * tracebound: what `trace-cmd report` prints about a capture instead of
 * its events, written into a tb_text (text.h): --stat, --uname and
 * --version (tb_report_info), --cpus, --first-event and --last-event
 * (tb_report_cpus).  The same bytes as trace-cmd; `tracebound report`
 * prints these.  And several captures' events merged by time in the order
 * trace-cmd report gives them (tb_report_merge).  No allocation.
 */
#ifndef TRACEBOUND_REPORT_H
#define TRACEBOUND_REPORT_H

#include "tracebound/merge.h"
#include "tracebound/session.h"
#include "tracebound/text.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What tb_report_info writes after "cpus=N\n". */
enum {
	TB_REPORT_CPUS_ONLY = 0,
	TB_REPORT_STAT,     /* the kernel's buffer statistics, each CPU's data */
	TB_REPORT_UNAME,    /* the traced system's uname, then the version */
	TB_REPORT_VERSION   /* the version of the trace-cmd that recorded it */
};

/* A part of the capture the listing could not read: the options
 * (cpu UINT32_MAX) or a CPU's data table entry (its line then says 0 at 0). */
typedef void (*tb_report_problem_fn)(void *ctx, uint32_t cpu, const tb_error *e);

/*
 * "cpus=N\n", then what `what` says (TB_REPORT_*).  --stat: the CPUSTAT
 * options as trace-cmd keeps them (each one's last byte made a newline, up
 * to the first NUL) and "CPUn data recorded at offset=0x..." for each CPU
 * slot of the top buffer (compressed data at the offsets trace-cmd would
 * have written it uncompressed).  Each problem goes to fn (may be NULL);
 * returns how many there were.
 */
TB_API size_t tb_report_info(tb_text *t, const tb_session *s, int what,
			     tb_report_problem_fn fn, void *ctx);

/* Flags of tb_report_cpus. */
#define TB_REPORT_FIRST 0x1u /* each CPU's first event time */
#define TB_REPORT_LAST  0x2u /* and its last */
#define TB_REPORT_NSECS 0x4u /* times to the nanosecond (trace-cmd -t) */

/*
 * "List of CPUs in NAME with data:\n", then each CPU of the top buffer
 * that holds an event, in CPU order, with its first and last event times
 * as flags ask.  The CPU statistics count what was read: walk s's events
 * first (tb_session_next to TB_END).
 */
TB_API void tb_report_cpus(tb_text *t, const tb_session *s, const char *name, size_t name_len,
			   unsigned flags);

/*
 * Several sessions' events merged by time as trace-cmd report merges
 * several files: on equal times every session's top buffer in session
 * order, then the named instances of the first session, of the second...
 * The caller keeps the sessions and one tb_report_head per session.
 */
typedef struct tb_report_head {
	tb_session_event ev;
	uint32_t rank;
	int has, done;
	tb_merge_slot slot;
} tb_report_head;

typedef struct tb_report_merge {
	tb_session *const *s;
	tb_report_head *heads;
	size_t n;
	tb_merge order;
} tb_report_merge;

/* TB_OK, or TB_ERR_ARG (no sessions, or more than the merge takes). */
TB_API TB_MUST_CHECK tb_status tb_report_merge_init(tb_report_merge *m, tb_session *const *s,
						    tb_report_head *heads, size_t n);
/*
 * The next event of them all: TB_OK (*which: its session; ev valid until
 * the next call), TB_END, or an error tb_session_next gave session *which
 * (err: call again to go on past it).
 */
TB_API TB_MUST_CHECK tb_status tb_report_merge_next(tb_report_merge *m, size_t *which,
						    tb_session_event *ev, tb_error *err);

#ifdef __cplusplus
}
#endif

#endif /* TRACEBOUND_REPORT_H */
