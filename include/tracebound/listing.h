/*
 * tracebound: plain listings of what the library decodes, written into a
 * tb_text (text.h): a decoded field's value, an event's fields as
 * `name=value`, ring-buffer records and drops, and event formats, each as
 * a text line or a JSON line.  These are the texts `tracebound raw` and
 * `tracebound formats` print; any caller gets the same bytes.  Every
 * listing ends with its '\n' (a field value has none).  No allocation.
 */
#ifndef TRACEBOUND_LISTING_H
#define TRACEBOUND_LISTING_H

#include "tracebound/format.h"
#include "tracebound/kbuf.h"
#include "tracebound/text.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Flags. */
#define TB_LIST_JSON  0x1u /* a JSON value / one JSON object per line */
#define TB_LIST_SPACE 0x2u /* tb_list_bytes: ' ' as itself (else \x20) */

/*
 * Bytes from a capture as text: printable ASCII as itself, every other
 * byte (and '\\') as \xNN, so the text is one unambiguous line.  s may be
 * NULL when n is 0.
 */
TB_API void tb_list_bytes(tb_text *t, const void *s, size_t n, unsigned flags);

/*
 * The elements of an array, dynamic array or opaque field's value v: how
 * many, and in *elem the field to read them with tb_field_elem (an opaque
 * field's are its bytes, unsigned).  0 for a value that did not read.
 */
TB_API size_t tb_list_elems(const tb_field *f, const tb_field_value *v, tb_field *elem);

/*
 * One field's value v (from tb_format_decode of rec[0..len)).  Text: a
 * number (signed by TB_FIELD_SIGNED; longs and pointers in hex), a string
 * cut at its first NUL (tb_list_bytes), elements as {1,2,?}, or
 * <status> when it did not read.  JSON: a number, a string, [1,2,null] or
 * null.
 */
TB_API void tb_list_field(tb_text *t, const tb_field *f, const tb_field_value *v,
			  const void *rec, size_t len, int big_endian, unsigned flags);

/*
 * One event record of format f as a line:
 *   cpu=0 ts=123 pid=42 sched:sched_switch: prev_comm=bash ...
 * (pid= only when common_pid reads; every field but the common ones, as
 * tb_list_field writes them).  The record is decoded into fv (room for
 * nfv values, at least f->nfields; fields past nfv print as not read).
 * Returns what tb_format_decode said, its error in *err (may be NULL);
 * the line is written either way.
 */
TB_API tb_status tb_list_event(tb_text *t, const tb_format *f, uint32_t cpu, uint64_t ts,
			       const void *rec, size_t len, int big_endian,
			       tb_field_value *fv, size_t nfv, tb_error *err);

/*
 * One ring-buffer record r of sub-buffer `subbuf` of a CPU's dump.  A data
 * record: "cpu= subbuf= offset= ts= size= id=" with the event id from the
 * payload's first two bytes (id=- when shorter); any other record
 * (padding, time extend, time stamp) its kind, in text or JSON.
 */
TB_API void tb_list_kbuf_record(tb_text *t, uint32_t cpu, uint64_t subbuf,
				const tb_kbuf_record *r, int big_endian, unsigned flags);

/* The drops a sub-buffer reports before its records (missed < 0: unknown). */
TB_API void tb_list_kbuf_missed(tb_text *t, uint32_t cpu, uint64_t subbuf, int64_t missed,
				unsigned flags);

/*
 * An event format: its name, id and fields, each with its type as the
 * kernel prints it ("char[16]", "u8[]"), offset, size, sign and kind.
 * Text: a line for the event, one per field; JSON: one object.
 */
TB_API void tb_list_format(tb_text *t, const tb_format *f, unsigned flags);

#ifdef __cplusplus
}
#endif

#endif /* TRACEBOUND_LISTING_H */
