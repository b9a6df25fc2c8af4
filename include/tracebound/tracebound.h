/*
 * tracebound: safe, allocation-free decoders for untrusted trace captures.
 *
 * The contract every module keeps:
 *  - the library never allocates, never does I/O, has no global state
 *    and never prints; the caller owns every byte of memory involved;
 *  - every length, offset and count read from input is checked against
 *    the bytes that really exist before it is used;
 *  - malformed input yields a tb_status error with the byte offset of the
 *    fault and a static description (see status.h); nothing valid is
 *    dropped silently;
 *  - separate contexts may be used from separate threads at once.
 */
#ifndef TRACEBOUND_H
#define TRACEBOUND_H

#include "tracebound/status.h"
#include "tracebound/kbuf.h"
#include "tracebound/merge.h"
#include "tracebound/format.h"
#include "tracebound/pmclog.h"
#include "tracebound/tracedat.h"
#include "tracebound/perfdata.h"
#include "tracebound/session_perf.h"
#include "tracebound/render.h"
#include "tracebound/session.h"
#include "tracebound/text.h"
#include "tracebound/filter.h"
#include "tracebound/check.h"
#include "tracebound/clock.h"
#include "tracebound/parquet.h"
#include "tracebound/protobuf.h"
#include "tracebound/perfetto.h"
#include "tracebound/rows.h"
#include "tracebound/selection.h"
#include "tracebound/listing.h"
#include "tracebound/stats.h"
#include "tracebound/report.h"

#endif /* TRACEBOUND_H */
