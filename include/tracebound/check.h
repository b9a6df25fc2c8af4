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
#include "tracebound/session.h"

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
	TB_CHECK_RECORD = 3   /* a record its format does not fit (tb_format_check_record) */
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
} tb_check;

/* Start checking s from its first event (s not walked yet, or rewound). */
TB_API void tb_check_init(tb_check *c, tb_session *s);

/* The next anomaly: TB_OK (a filled in), TB_END when the whole capture
 * has been walked.  The container's damage comes first (the list as
 * tb_check_init found it: a format the walk parses and finds damaged is
 * added to tb_session_damage_at() but not said here, as `check` always
 * had it), then the walk's findings in event order. */
TB_API TB_MUST_CHECK tb_status tb_check_next(tb_check *c, tb_check_anomaly *a);

#ifdef __cplusplus
}
#endif

#endif
