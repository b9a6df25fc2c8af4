/*
 * tracebound: a session's events as Parquet tables (docs/parquet.md).
 *
 * The writer of `convert --to parquet`, in the library: give it each
 * event of a session (tb_session_next) and it writes
 *
 *   events.parquet                  every event (rows.h's events table)
 *   SYSTEM-EVENT.parquet            one table per event format with events
 *   buffer-NAME/SYSTEM-EVENT.parquet  the same for an instance's buffer
 *
 * and, on its own, metadata.parquet and metadata.json
 * (tb_pq_session_metadata): about the capture and its tables.  Columns, types and nulls are rows.h's; the file
 * bytes are lib/parquet.c's.  No I/O: every byte goes up through the
 * caller's tb_pq_session_io (open a named output, write, close), and
 * pages are compressed by the caller's compressor when one is given.
 *
 * Names.  System and event names come from the capture: every byte
 * outside [A-Za-z0-9_.+-] becomes '_', so does a leading '.', and each
 * part is cut at 128 bytes; two formats that map to one name: the later
 * one adds ".ID".  A name has at most one '/', after "buffer-NAME".
 *
 * Memory.  All of it from the caller's tb_mem (an arena works: blocks
 * given back are then simply dropped with it), asked for as tables
 * appear:
 *   per writer  the writer, scratch and dictionary space for a column
 *               buffer of 4 x TB_DAT_PAGE_MAX (about 10 MB), the
 *               compressor's output space for that (io.compress_bound),
 *               and with TB_PQ_SESSION_FORMATS one record's decoded
 *               fields (TB_FORMAT_MAX_FIELDS tb_field_value)
 *   per table   its columns, a footer of 4 KiB (doubled when the row
 *               groups' metadata needs it), and per column a row group
 *               buffer: TB_PQ_SESSION_INT_START bytes for an integer,
 *               4 of the capture's largest pages (16 KiB at least,
 *               4 x TB_DAT_PAGE_MAX at most) for any other.
 * After each row group a table doubles its column buffers, up to
 * TB_PQ_SESSION_INT_CAP / TB_PQ_SESSION_VAR_CAP, so busy tables get large
 * row groups and quiet ones stay small.  The format tables' buffers
 * together grow no further than TB_PQ_SESSION_BUDGET; the events table
 * (one table) always grows to its caps.  A growth the tb_mem refuses is
 * skipped (the buffers stay: the file is as valid); anything else the
 * tb_mem refuses fails the call with TB_ERR_NO_SPACE, "out of memory".
 * The row groups depend on the events only (not on the memory given,
 * when growth is never refused), so two writers that share the roles
 * (TB_PQ_SESSION_EVENTS on one, _FORMATS on another, e.g. on two threads)
 * write the files one writer with both roles would, byte for byte.
 *
 * Errors.  Calls return a tb_status and fill a tb_error.  An error of an
 * io callback, of the Parquet writer or of the tb_mem is sticky: every
 * later call returns it; tb_pq_session_close() still gives everything
 * back (closing open outputs without asking how it went).
 *
 * Not thread-safe: one writer per thread; the session may be shared by
 * writers (they only read it) while nothing walks it.
 */
#ifndef TRACEBOUND_PQ_SESSION_H
#define TRACEBOUND_PQ_SESSION_H

#include "tracebound/parquet.h"
#include "tracebound/rows.h"
#include "tracebound/session.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- named limits ---- */
#define TB_PQ_SESSION_INT_START ((size_t)4 << 10)  /* an integer column's first buffer */
#define TB_PQ_SESSION_INT_CAP ((size_t)128 << 10)  /* ... grown at most to */
#define TB_PQ_SESSION_VAR_MIN ((size_t)16 << 10)   /* a byte or list column's first, at least */
#define TB_PQ_SESSION_VAR_CAP ((size_t)512 << 10)  /* ... grown at most to */
#define TB_PQ_SESSION_BUDGET ((size_t)48 << 20)    /* format tables' buffers, growth stops */
#define TB_PQ_SESSION_MAX_OPEN 200u     /* outputs open at once by default */
#define TB_PQ_SESSION_COMM_MAX ((size_t)4096) /* a __comm's bytes kept (longer: cut, counted) */
#define TB_PQ_SESSION_MAX_NAME 600u     /* an output name's bytes, NUL included */

/* The caller's outputs.  `out` is the caller's handle of an open output. */
typedef struct tb_pq_session_io {
	/* Open the output `name` (NUL-terminated, see Names); append: it was
	 * opened and closed before and takes the next bytes at its end. */
	tb_status (*open)(void *ctx, const char *name, int append, void **out);
	/* Take all n bytes, or return an error. */
	tb_status (*write)(void *ctx, void *out, const void *p, size_t n);
	/* Close it (an error fails the table: a close can be a write). */
	tb_status (*close)(void *ctx, void *out);
	void *ctx;
	/* Page compression (NULL: none): as tb_pq_config's, compress_bound
	 * the output room it needs for n bytes. */
	tb_pq_compress_fn compress;
	size_t (*compress_bound)(void *ctx, size_t n);
	void *compress_ctx;
	unsigned codec;
} tb_pq_session_io;

/* tb_pq_session_config.flags */
#define TB_PQ_SESSION_EVENTS 0x1u  /* write events.parquet */
#define TB_PQ_SESSION_FORMATS 0x2u /* write the per-format tables */
#define TB_PQ_SESSION_TEXT 0x4u    /* events.parquet gets __text (given per event) */

typedef struct tb_pq_session_config {
	unsigned flags;
	const char *source;        /* events.parquet's "tracebound.source" (borrowed) */
	size_t source_len;
	size_t max_open;           /* 0: TB_PQ_SESSION_MAX_OPEN.  More tables than
				    * this close their output after a row group
				    * and reopen it to append the next */
} tb_pq_session_config;

/* What the writer counted (a role's counts stay 0 without the role). */
typedef struct tb_pq_session_counts {
	uint64_t events;      /* EVENTS: rows of events.parquet */
	uint64_t no_format;   /* EVENTS: of them without a format */
	uint64_t comms_cut;   /* EVENTS: comms longer than TB_PQ_SESSION_COMM_MAX */
	uint64_t bad_records; /* FORMATS: records with a field that did not read */
} tb_pq_session_counts;

/* A table written (or being written). */
typedef struct tb_pq_session_table {
	const char *name;          /* its output's name */
	const tb_format *format;   /* NULL: the events table */
	uint32_t buffer;           /* the session's buffer index */
	uint64_t rows;
	uint64_t too_large;        /* values too large for a column buffer: nulls */
	const tb_pq_column *cols;  /* its columns (non_utf8: TEXT columns left BYTE_ARRAY) */
	size_t ncols;
} tb_pq_session_table;

typedef struct tb_pq_session tb_pq_session;

/* A writer over session s (borrowed until close) and io (copied).
 * TB_ERR_ARG (NULL, no role, no open/write/close, a compressor without
 * its bound), TB_ERR_NO_SPACE (memory); with EVENTS, the events table's
 * output is opened and its magic written (an io error).  *out is set
 * whenever the writer itself was made, on an error too: close it then. */
TB_API TB_MUST_CHECK tb_status tb_pq_session_open(tb_pq_session **out, const tb_session *s,
						  const tb_mem *mem,
						  const tb_pq_session_config *cfg,
						  const tb_pq_session_io *io, tb_error *err);

/*
 * One event (TB_SEV_EVENT; anything else is skipped): its row in
 * events.parquet (EVENTS) and in its format's table (FORMATS, an event
 * with a format; the table and its output appear on its first event).
 * text[0..text_len): the __text value with TB_PQ_SESSION_TEXT (else
 * unused).  A field that does not read is a null (counted); a value too
 * large for its column's buffer is a null (counted per table).
 */
TB_API TB_MUST_CHECK tb_status tb_pq_session_event(tb_pq_session *w, const tb_session_event *ev,
						   const char *text, size_t text_len,
						   tb_error *err);

/* Finish every table (last row group, footer) and close its output. */
TB_API TB_MUST_CHECK tb_status tb_pq_session_finish(tb_pq_session *w, tb_error *err);

/* Give everything back to the tb_mem (outputs still open are closed). */
TB_API void tb_pq_session_close(tb_pq_session *w);

TB_API const tb_pq_session_counts *tb_pq_session_get_counts(const tb_pq_session *w);

/* The format tables, in the order they appeared (i < tb_pq_session_ntables),
 * and the events table (NULL without EVENTS). */
TB_API size_t tb_pq_session_ntables(const tb_pq_session *w);
TB_API const tb_pq_session_table *tb_pq_session_table_at(const tb_pq_session *w, size_t i);
TB_API const tb_pq_session_table *tb_pq_session_events_table(const tb_pq_session *w);

/* Each (buffer, CPU) of s with stats: a trace.dat's CPUs as its buffers
 * list them, raw dumps' in the order of raw[0..nraw).  fn returns
 * nonzero to stop (then 1 is returned, else 0). */
typedef int (*tb_pq_session_cpu_fn)(void *ctx, size_t buffer, uint32_t cpu,
				    const tb_session_cpu_stats *cs);
TB_API int tb_pq_session_foreach_cpu(const tb_session *s, const tb_session_raw_cpu *raw,
				     size_t nraw, tb_pq_session_cpu_fn fn, void *ctx);

/* What the metadata says besides the session's own. */
typedef struct tb_pq_session_meta {
	const char *source;        /* the capture as named (NUL-terminated) */
	const char *trace_id;      /* NUL-terminated */
	const tb_session_raw_cpu *raw; /* raw dumps' CPUs (tb_pq_session_foreach_cpu) */
	size_t nraw;
	uint64_t bad_pages;        /* pages the walk could not read */
	/* the writers of the tables (finished; one may be both; NULL: none):
	 * their counts and tables */
	const tb_pq_session *events, *formats;
} tb_pq_session_meta;

/*
 * The outputs "metadata.parquet" (one row about the capture) and
 * "metadata.json" (the same and every table: its file, rows, values too
 * large, columns left BYTE_ARRAY), docs/parquet.md, each opened, written
 * and closed through io.  Memory from mem, all given back.  TB_ERR_ARG,
 * TB_ERR_NO_SPACE (memory), an io or writer error.
 */
TB_API TB_MUST_CHECK tb_status tb_pq_session_metadata(const tb_session *s,
						      const tb_pq_session_meta *m,
						      const tb_mem *mem,
						      const tb_pq_session_io *io, tb_error *err);

#ifdef __cplusplus
}
#endif

#endif /* TRACEBOUND_PQ_SESSION_H */
