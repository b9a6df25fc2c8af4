/*
 * tracebound: clock names.  A capture names its clock in a trace_clock
 * text ("[local] global counter uptime ...": the selected one bracketed)
 * or, for a raw dump, a caller's word.  One parser for every reader of
 * it: the session (timestamps as trace-cmd shows them), and the Perfetto
 * and Parquet writers through the session's info.
 */
#ifndef TRACEBOUND_CLOCK_H
#define TRACEBOUND_CLOCK_H

#include "tracebound/status.h"
#include "tracebound/session.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The clock in use: the bracketed name of a trace_clock text, else its
 * first word ("mono\n" -> "mono"); "local" (what trace-cmd assumes) when
 * the text names none.  The result points into text, or is static. */
TB_API tb_span tb_clock_parse(const char *text, size_t len);

/* 1 for the clocks that count nanoseconds (trace-cmd shows their times in
 * microseconds), 0 for counters (x86-tsc, counter...). */
TB_API int tb_clock_counts_ns(tb_span clock);

#ifdef __cplusplus
}
#endif

#endif
