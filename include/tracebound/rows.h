/*
 * tracebound: table rows, the one mapping of a session's events to typed
 * columns (docs/tables.md).  The Parquet converter and Python's columns()
 * / df() both build their tables with it, so a column has the same name,
 * type and nulls in each.
 *
 * A table is either one event format's (its events, one row each: the
 * session's columns, then every field of the format) or the events table
 * (every event, formats or not: the session's columns and the event's
 * system, name and id).  tb_rows_columns() describes the columns once per
 * table; tb_rows_values() gives one event's row.  Values are the Parquet
 * writer's tb_pq_value (a null flag, an integer, bytes or a list of
 * integers in the capture's byte order), pointing into the event's record
 * and the session's tables: valid as long as the event is.
 *
 * Names.  Field names are C identifiers (the format parser takes no
 * other); the session's columns are the reserved names below, `__` and a
 * word, as Python has always named them.  A field that carries a reserved
 * name (no kernel event does: only a made-up format) is the column
 * "field:NAME", which no identifier can be: so a session column is always
 * where its name says, and no two columns of a table share a name.
 */
#ifndef TRACEBOUND_ROWS_H
#define TRACEBOUND_ROWS_H

#include "tracebound/format.h"
#include "tracebound/parquet.h"
#include "tracebound/session.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A column name's bytes at most, the NUL not counted ("field:" + a field name). */
#define TB_ROWS_MAX_NAME (TB_FORMAT_MAX_NAME + 8u)
/* The session's columns of a table at most (the events table's, with __text). */
#define TB_ROWS_MAX_SESSION 11u
/* The columns of any table at most. */
#define TB_ROWS_MAX_COLUMNS (TB_ROWS_MAX_SESSION + TB_FORMAT_MAX_FIELDS)

/* What a column holds. */
enum tb_rows_kind {
	TB_ROWS_INT = 0,   /* an integer of `bits`, signed or not */
	TB_ROWS_TEXT = 1,  /* a string (field text cut at its first NUL) */
	TB_ROWS_BYTES = 2, /* a field's bytes as they are (a struct, a u128...) */
	TB_ROWS_LIST = 3   /* a list of integers of `bits` (an array field) */
};

/* Where a column's values come from. */
enum tb_rows_source {
	TB_ROWS_FIELD = 0, /* field `field` of the table's format */
	TB_ROWS_TS,        /* __ts      uint64: the event's time, the offset applied */
	TB_ROWS_CPU,       /* __cpu     uint32 */
	TB_ROWS_PID,       /* __pid     int32, null: the record holds no common_pid */
	TB_ROWS_COMM,      /* __comm    text, null: pid null, or not in the saved
			    *           cmdlines (pid 0 is "<idle>") */
	TB_ROWS_BUFFER,    /* __buffer  text: the instance, "" for the top buffer */
	TB_ROWS_SUBBUF,    /* __subbuf  uint64: the sub-buffer's index on its CPU */
	TB_ROWS_OFFSET,    /* __offset  uint32: the record's offset in it */
	TB_ROWS_SYSTEM,    /* __system  text, null without a format (events table) */
	TB_ROWS_NAME,      /* __name    text, null without a format (events table) */
	TB_ROWS_ID,        /* __id      uint32, null: too short for common_type */
	TB_ROWS_RENDERED   /* __text    text: the print fmt rendering, which
			    *           the caller makes (tb_rows_values: null) */
};

typedef struct tb_rows_column {
	char name[TB_ROWS_MAX_NAME + 1]; /* NUL-terminated */
	size_t name_len;
	uint8_t kind;       /* tb_rows_kind */
	uint8_t bits;       /* INT: 8, 16, 32, 64; LIST: its elements' */
	uint8_t is_signed;  /* INT, LIST */
	uint8_t nullable;   /* 0: never null */
	uint8_t source;     /* tb_rows_source */
	uint32_t field;     /* TB_ROWS_FIELD: the field's index in the format */
	uint32_t count;     /* LIST from a fixed array: its elements, else 0 */
} tb_rows_column;

/* Tables: an event format's (format given) or the events table (NULL). */
#define TB_ROWS_WITH_TEXT 0x1u /* events table: add __text */

/*
 * The columns of a table, in their order: __ts __cpu __pid __comm
 * __buffer __subbuf __offset (the key of an event within a capture is
 * (__buffer, __cpu, __subbuf, __offset)), then the format's fields in
 * format order, or for the events table __system __name __id [__text].
 * Writes up to cap of them into out; returns how many the table has
 * (at most TB_ROWS_MAX_COLUMNS).
 */
TB_API size_t tb_rows_columns(const tb_format *format, unsigned flags, tb_rows_column *out,
			      size_t cap);

/* 1 when name[0..len) is a reserved (session column) name. */
TB_API int tb_rows_reserved(const char *name, size_t len);

/* The tb_pq_column kind, bits and flags of a column (its name borrowed
 * from col; buffers left to the caller). */
TB_API void tb_rows_pq_column(const tb_rows_column *col, tb_pq_column *out);

/*
 * Element k (< v->n) of a LIST value as a number: read in the capture's
 * byte order, sign-extended when the column is_signed (cast to int64_t).
 */
TB_API uint64_t tb_rows_elem(const tb_pq_value *v, size_t k, int is_signed);

/*
 * One event's row (a TB_SEV_EVENT of session s; for a format's table, an
 * event of that format): vals[i] for cols[i], i < ncols.  Field columns
 * are decoded into fv (room for the format's fields: nfv >= its nfields,
 * else the fields past nfv are null).  A field the record does not hold
 * (past its end, a dynamic field pointing outside, a list whose bytes are
 * not whole elements) is a null.  TB_OK when every field read, else the
 * first unreadable field's status (the row is complete either way);
 * TB_ERR_ARG for a damaged-page event.
 */
TB_API tb_status tb_rows_values(const tb_session *s, const tb_session_event *ev,
				const tb_rows_column *cols, size_t ncols,
				tb_field_value *fv, size_t nfv, tb_pq_value *vals);

#ifdef __cplusplus
}
#endif

#endif
