/*
 * tracebound: ring-buffer sub-buffer walker (the bytes of trace_pipe_raw
 * and of trace.dat per-CPU data).
 *
 * A sub-buffer ("page") is a header (u64 timestamp, a long `commit`) then
 * `commit` bytes of records.  Every record is checked against the
 * committed area and the bytes really present before it is returned; a
 * malformed page yields an error with the byte offset of the fault, and
 * the error is sticky for that sub-buffer.  Nothing here allocates: the
 * caller owns every struct and every byte.
 *
 * Choices (see docs and tests):
 *  - Null padding (type 29, delta 0) inside the committed area ends the
 *    data of the page, as the kernel's writer means it; it is returned
 *    once as a PADDING record covering the rest of commit (flag
 *    TB_KBUF_REC_NULL_PAD) and the walk ends.
 *  - The time_delta of a padding record is added to the running
 *    timestamp, as libtraceevent and Perfetto do; layout flag
 *    TB_KBUF_PAD_DELTA_IGNORE gives the kernel reader's behaviour.
 *  - An absolute stamp takes bits 59..63 from the running timestamp and
 *    wraps by 2^59 when it would go backwards, as the kernel does.
 */
#ifndef TRACEBOUND_KBUF_H
#define TRACEBOUND_KBUF_H

#include "tracebound/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TB_KBUF_SUBBUF_MIN 4096u
#define TB_KBUF_SUBBUF_MAX (1u << 20)

/* Layout flags. */
#define TB_KBUF_PAD_DELTA_IGNORE 0x01u /* do not add padding time_delta (kernel) */

/* How the traced machine laid out its sub-buffers. */
typedef struct tb_kbuf_layout {
	uint8_t big_endian;     /* 1 when the traced machine was big-endian */
	uint8_t long_size;      /* 4 or 8: the traced kernel's long (commit width) */
	uint8_t header_size;    /* offset of the data area: 12 or 16 */
	uint8_t flags;          /* TB_KBUF_* layout flags */
	uint32_t subbuf_size;   /* whole sub-buffer, 4 KiB .. 1 MiB, power of two */
	uint32_t data_capacity; /* subbuf_size - header_size */
} tb_kbuf_layout;

/* Record kinds (the type_len classes). */
typedef enum tb_kbuf_kind {
	TB_KBUF_DATA = 0,        /* an event: type_len 0..28 */
	TB_KBUF_PADDING = 1,     /* type_len 29: discarded event or filler */
	TB_KBUF_TIME_EXTEND = 2, /* type_len 30 */
	TB_KBUF_TIME_STAMP = 3   /* type_len 31: absolute time stamp */
} tb_kbuf_kind;

/* Record flags. */
#define TB_KBUF_REC_NULL_PAD 0x01u /* null padding: end of the page's data */

/* One record, as returned by the walker.  Pointers point into the page. */
typedef struct tb_kbuf_record {
	const uint8_t *payload; /* DATA: the event bytes; others: NULL */
	uint64_t ts;            /* running timestamp after this record (ns) */
	uint32_t payload_len;   /* DATA: payload bytes (rounded up to 4) */
	uint32_t size;          /* whole record, header included */
	uint32_t offset;        /* from the start of the sub-buffer */
	uint32_t index;         /* from the start of the data area */
	uint32_t time_delta;    /* the 27-bit delta field of the header */
	uint8_t kind;           /* tb_kbuf_kind */
	uint8_t type_len;       /* raw type_len, 0..31 */
	uint8_t flags;          /* TB_KBUF_REC_* */
	uint8_t reserved_;
} tb_kbuf_record;

/* A cursor over one sub-buffer.  Opaque in use; read it via functions. */
typedef struct tb_kbuf {
	const uint8_t *buf;     /* the sub-buffer */
	uint64_t page_ts;       /* header timestamp */
	uint64_t ts;            /* running timestamp (after the last record) */
	int64_t missed;         /* 0, -1 (unknown) or the stored count */
	uint64_t raw_commit;    /* the commit word as stored */
	uint32_t len;           /* bytes looked at: min(length, subbuf_size) */
	uint32_t end;           /* header_size + commit: end of the records */
	uint32_t pos;           /* offset of the next record */
	uint32_t commit;        /* committed data bytes (masked) */
	uint32_t opened;        /* 1 when the header was valid */
	tb_kbuf_layout layout;
	tb_status status;       /* TB_OK, TB_END, or the sticky error */
	tb_error err;           /* the sticky error, when status is an error */
} tb_kbuf;

/*
 * Build a layout.  big_endian 0/1, long_size 4 or 8 (data at 12 or 16),
 * subbuf_size a power of two in [4 KiB, 1 MiB].  TB_ERR_ARG otherwise.
 */
TB_API tb_status tb_kbuf_layout_init(tb_kbuf_layout *layout, int big_endian,
				     unsigned long_size, uint32_t subbuf_size,
				     unsigned flags);

/* Same, with an explicit data offset (12 or 16, >= 8 + long_size). */
TB_API tb_status tb_kbuf_layout_init_ex(tb_kbuf_layout *layout,
					int big_endian, unsigned long_size,
					unsigned header_size,
					uint32_t subbuf_size, unsigned flags);

/*
 * Build a layout from the text of events/header_page (the `field: ` lines).
 * Checks timestamp@0 size 8, commit@8 size 4 or 8, data offset and size
 * consistent with a sub-buffer of [4 KiB, 1 MiB].  Errors carry the byte
 * offset in the text.  An empty text (the pre-2.6.31 format) is
 * TB_ERR_UNSUPPORTED.
 */
TB_API tb_status tb_kbuf_layout_from_header_page(const char *text, size_t len,
						 int big_endian,
						 tb_kbuf_layout *layout,
						 tb_error *err);

/*
 * Open one sub-buffer of `len` bytes (bytes beyond the layout's
 * sub-buffer size are ignored).  The header is validated first: the
 * masked commit must lie within the data capacity and the bytes present;
 * the missed count is read only when it lies inside the bytes.  On error
 * the cursor is left failed (every later call returns the same error).
 */
TB_API tb_status tb_kbuf_open(tb_kbuf *kb, const tb_kbuf_layout *layout,
			      const void *buf, size_t len, tb_error *err);

/* Next record of any kind: TB_OK, TB_END or the (sticky) error. */
TB_API tb_status tb_kbuf_next(tb_kbuf *kb, tb_kbuf_record *rec);

/* Next DATA record (events only); extends and stamps are applied. */
TB_API tb_status tb_kbuf_next_event(tb_kbuf *kb, tb_kbuf_record *rec);

/*
 * Fill up to `max` DATA records in one call (the fast path).  Returns the
 * number filled; *status gets TB_OK when more may follow, else TB_END or
 * the error that stopped the walk (records before it are filled).
 */
TB_API size_t tb_kbuf_next_events(tb_kbuf *kb, tb_kbuf_record *recs,
				  size_t max, tb_status *status);

/* Missed events before this sub-buffer: 0 none, -1 unknown, else count. */
TB_API int64_t tb_kbuf_missed(const tb_kbuf *kb);

/* The header timestamp of the open sub-buffer. */
TB_API uint64_t tb_kbuf_page_ts(const tb_kbuf *kb);

/* Committed data bytes of the open sub-buffer (masked commit). */
TB_API uint32_t tb_kbuf_commit(const tb_kbuf *kb);

/* The sticky error of the cursor (status TB_OK when none). */
TB_API tb_error tb_kbuf_error(const tb_kbuf *kb);

/* Back to the first record (an error found at open stays). */
TB_API void tb_kbuf_rewind(tb_kbuf *kb);

/*
 * kbuffer_read_at_offset: rewind and return the first DATA record whose
 * offset (from the sub-buffer start) is >= `offset`; an offset inside the
 * header gives the first event.  The cursor is left after that record.
 */
TB_API tb_status tb_kbuf_read_at_offset(tb_kbuf *kb, uint32_t offset,
					tb_kbuf_record *rec);

/*
 * kbuffer_read_buffer: write a standalone sub-buffer into out[0..out_len)
 * holding the next DATA record (the one tb_kbuf_next_event would return)
 * and every record after it that fits.  The new header's timestamp is
 * that event's, so every timestamp read back equals the original.  The
 * rest of out is zero-filled; missed-event flags are not carried.
 * Returns TB_OK with *data_len = the new commit (bytes of records),
 * TB_END when no event is left, TB_ERR_NO_SPACE when out cannot hold even
 * one record, or the page's error.  The cursor itself does not move.
 */
TB_API tb_status tb_kbuf_read_buffer(const tb_kbuf *kb, void *out,
				     size_t out_len, size_t *data_len);

/* Static name of a record kind: "data", "padding", "time_extend", "time_stamp". */
TB_API const char *tb_kbuf_kind_name(unsigned kind);

/* ---- a whole trace_pipe_raw dump: consecutive sub-buffers of one CPU ---- */

typedef struct tb_kbuf_stream {
	const uint8_t *data;    /* the dump, or the piece of it fed last */
	size_t len;
	size_t next;            /* offset in data of the next sub-buffer */
	uint64_t base;          /* offset in the dump of data[0] (pieces before it) */
	uint64_t subbuf_offset; /* offset in the dump of the current sub-buffer */
	uint64_t subbuf_index;  /* index of the current sub-buffer */
	uint64_t last_ts;       /* highest timestamp seen so far */
	uint64_t backwards;     /* how many sub-buffers went back in time */
	int ts_went_back;       /* the current sub-buffer starts before last_ts */
	int started;
	tb_kbuf_layout layout;
} tb_kbuf_stream;

TB_API void tb_kbuf_stream_init(tb_kbuf_stream *s, const tb_kbuf_layout *layout,
				const void *data, size_t len);

/*
 * Open the next sub-buffer into *kb (pass the same kb every time: the
 * running timestamp it reached is used for time continuity).  TB_OK,
 * TB_END after the last one, or the error (offset in err is from the
 * start of the dump).  A final piece shorter than a sub-buffer is opened
 * with the bytes it has.
 */
TB_API tb_status tb_kbuf_stream_next(tb_kbuf_stream *s, tb_kbuf *kb,
				     tb_error *err);

/*
 * A dump that arrives in pieces (a pipe, read a sub-buffer at a time):
 * after tb_kbuf_stream_next said TB_END, give it the next piece and go on.
 * Sub-buffer indexes, offsets (in the dump, pieces before counted) and
 * time continuity carry on as if the pieces were one dump, so a dump fed
 * in pieces of whole sub-buffers walks as the whole dump does.  Each piece
 * is cut into sub-buffers from its start: a piece shorter than a
 * sub-buffer is opened as the dump's final piece would be.  The records of
 * the current sub-buffer point into the piece: keep it until they are used.
 */
TB_API void tb_kbuf_stream_feed(tb_kbuf_stream *s, const void *data, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* TRACEBOUND_KBUF_H */
