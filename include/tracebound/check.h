/*
 * tracebound: checking a capture -- every anomaly of an opened session,
 * one at a time, each saying what (a status and a static text), where (a
 * byte offset in the file) and which part (the container's tables and
 * formats, a page of a CPU, a record).  `tracebound check`, Python's
 * check() and an ingestion service all walk this one iterator and only
 * word its findings their own way.
 *
 * The iterator walks the session itself (tb_session_next): open the
 * session for it and do not walk it elsewhere meanwhile.  Nothing is
 * allocated; the anomaly borrows from the session (formats, the damage
 * list) until the next call.
 */
#ifndef TRACEBOUND_CHECK_H
#define TRACEBOUND_CHECK_H

#include "tracebound/status.h"
#include "tracebound/kbuf.h"
#include "tracebound/pmclog.h"
#include "tracebound/session.h"
#include "tracebound/text.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Which part of the capture an anomaly is in. */
typedef enum tb_check_part {
	TB_CHECK_CAPTURE = 0, /* outside the event data: see .damage (tables, formats, buffers,
				 CPU data cut short) */
	TB_CHECK_PAGE = 1,    /* a damaged page (sub-buffer) of one CPU: the walk goes on past it;
				 also a format whose fields mem refused (TB_ERR_NO_SPACE) */
	TB_CHECK_EVENT = 2,   /* a record without a format for its id (has_id 0: too short for
				 common_type) */
	TB_CHECK_RECORD = 3,  /* a record its format does not fit (tb_format_check_record) */
	TB_CHECK_SUBBUF = 4,  /* raw dump: a sub-buffer that does not open or walk (.page:
				 its index; .offset: where it starts; .error.offset: in the dump) */
	TB_CHECK_DUMP = 5,    /* raw dump: the whole of it (every sub-buffer is empty) */
	TB_CHECK_STREAM = 6   /* pmclog: the fault that ends the stream (.index: records before) */
} tb_check_part;

typedef struct tb_check_anomaly {
	tb_check_part part;
	const char *where;        /* static: the damage's where for CAPTURE, else
				     "page", "event", "record" */
	tb_error error;           /* status and static what; offset: in the file,
				     except RECORD: the byte of the record at fault */
	uint64_t offset;          /* in the file, always */
	const tb_session_damage *damage; /* CAPTURE: the entry (index, cut, cpu...) */
	size_t index;             /* CAPTURE: the damage's index (which format, buffer...) */
	/* PAGE, EVENT, RECORD: */
	uint32_t buffer, cpu;     /* buffer index (tb_session_buffer), CPU */
	uint64_t page;            /* page number on its CPU */
	/* EVENT, RECORD: */
	uint64_t page_offset;     /* file offset of its page */
	uint32_t record;          /* record offset in its page */
	int has_id;
	uint32_t id;              /* common_type, when has_id */
	const tb_format *format;  /* RECORD: the format that does not fit */
} tb_check_anomaly;

/* An anomaly of PAGE, EVENT, RECORD, SUBBUF, DUMP or STREAM in `check`'s
 * words, without a newline (s: the session of a walk's anomaly, else may
 * be NULL).  CAPTURE ones are said by their damage entry. */
TB_API void tb_check_text(tb_text *t, const tb_check_anomaly *a, const tb_session *s);

/* A damage entry of s (a CAPTURE anomaly's .damage, tb_session_damage_at)
 * in the words `tracebound` says it, without a newline: an event format by
 * its index and system ("event format 1533 (sched) at file offset N: what
 * (status); its events are not decoded"), CPU data cut short by the pages
 * (or compressed chunks) lost, anything else "WHERE: what at file offset
 * N (status)". */
TB_API void tb_check_damage_text(tb_text *t, const tb_session_damage *d, const tb_session *s);

/* The iterator; its counters are read during and after the walk. */
typedef struct tb_check {
	tb_session *s;
	size_t next_damage, ndamage; /* the damage list as the walk starts */
	int big_endian, done;
	uint64_t events;          /* records met (sound or not) */
	uint64_t unknown;         /* EVENT anomalies */
	uint64_t bad_records;     /* RECORD anomalies */
	uint64_t bad_pages;       /* PAGE anomalies */
	uint64_t anomalies;       /* all, CAPTURE ones included */
	size_t nformats;          /* event formats the session has (as init found them) */
	uint64_t dropped;         /* at TB_END: events the CPUs' data says were lost */
	uint64_t drops_unknown;   /* at TB_END: losses of unknown size (trace.dat) */
} tb_check;

/* Start checking s from its first event (s not walked yet, or rewound). */
TB_API void tb_check_init(tb_check *c, tb_session *s);

/* The next anomaly: TB_OK (a filled in), TB_END when the whole capture
 * has been walked.  The container's damage comes first (the list as
 * tb_check_init found it: a format the walk parses and finds damaged is
 * added to tb_session_damage_at() but not said here, as `check` always
 * had it), then the walk's findings in event order. */
TB_API TB_MUST_CHECK tb_status tb_check_next(tb_check *c, tb_check_anomaly *a);

/* After TB_END: the summary `check` prints, without the path and the
 * newline ("trace.dat v7, 1 buffer, ...: ok"). */
TB_API void tb_check_summary(tb_text *t, const tb_check *c);

/*
 * Telling a capture's kind from its first bytes, and checking the kinds
 * that stream (a raw trace_pipe_raw dump, a pmclog stream) as they are
 * read, in constant memory: the same anomalies, fed piece by piece.
 */
typedef enum tb_check_kind {
	TB_CHECK_KIND_EMPTY = 0,   /* no bytes */
	TB_CHECK_KIND_SESSION = 1, /* a trace.dat or a perf.data: tb_session_open + tb_check */
	TB_CHECK_KIND_PMCLOG = 2,  /* opens with a sound INITIALIZE record */
	TB_CHECK_KIND_RAW = 3,     /* its first sub-buffer opens as one */
	TB_CHECK_KIND_UNKNOWN = 4
} tb_check_kind;

typedef struct tb_check_stream {
	tb_check_kind kind;
	size_t piece;             /* bytes to feed at a time (a sub-buffer; 64 KiB) */
	int closed, done;
	uint64_t events;          /* raw: records; pmclog: records */
	uint64_t pages, empty;    /* raw: sub-buffers opened, of them with commit 0 */
	uint64_t dropped;         /* raw: missed events the pages say */
	uint64_t drops, unknown;  /* pmclog: drop notifications, records of unknown type */
	uint64_t anomalies;
	tb_kbuf_layout layout;    /* raw: as given, in the first page's byte order */
	tb_kbuf_stream ks;
	tb_kbuf kb;
	tb_pmclog pl;
} tb_check_stream;

/*
 * Tell the kind of the capture whose first bytes are head[0..len) (at
 * least a sub-buffer of l, or all of it when shorter), in this order:
 * empty, trace.dat / perf.data, pmclog (po may be NULL), raw dump (only
 * when l is given: its layout; the byte order is the first page's when
 * that tells).  For PMCLOG and RAW, c is ready to be fed from the start
 * of the input (head included).
 */
TB_API tb_check_kind tb_check_stream_start(tb_check_stream *c, const void *head, size_t len,
					   const tb_kbuf_layout *l, const tb_pmclog_options *po);

/* The next piece (kept until tb_check_stream_next says TB_NEED_MORE);
 * TB_ERR_ARG when the last piece is not used up or after close. */
TB_API tb_status tb_check_stream_feed(tb_check_stream *c, const void *data, size_t len);

/* No more input will come. */
TB_API void tb_check_stream_close(tb_check_stream *c);

/* The next anomaly: TB_OK (a filled in: SUBBUF, DUMP or STREAM),
 * TB_NEED_MORE (feed or close), TB_END when the input is checked. */
TB_API TB_MUST_CHECK tb_status tb_check_stream_next(tb_check_stream *c, tb_check_anomaly *a);

/* After TB_END: the summary `check` prints ("pmclog: 3 records, ...: ok"). */
TB_API void tb_check_stream_summary(tb_text *t, const tb_check_stream *c);

#ifdef __cplusplus
}
#endif

#endif
