/*
 * tracebound: a protobuf wire-format writer into caller memory.
 *
 * A tb_pb builds one message (with nested messages) in a buffer the
 * caller owns.  Nothing is allocated.  Scalars go out as varints (plain
 * or zigzag), fixed 32/64-bit little-endian words, or length-delimited
 * bytes; a nested message is opened with tb_pb_begin() and closed with
 * tb_pb_end().
 *
 * Nested lengths: tb_pb_begin() reserves ONE byte for the length; when
 * the message is closed its real length is known and, if that needs a
 * longer varint, the body is moved right by the missing bytes (at most
 * 4: a length is below 2^32).  Most nested messages are short, so most
 * closes move nothing, and the output is canonical (minimal varints):
 * byte for byte what any protobuf library writes for the same fields.
 *
 * Bounded: a write that does not fit is counted, not stored.  From then
 * on the writer only counts (the error is sticky: TB_ERR_NO_SPACE) and
 * pb->need says how many bytes the whole message takes, so a caller can
 * grow its buffer to pb->need and build the message again.  Nesting
 * deeper than TB_PB_MAX_DEPTH is TB_ERR_LIMIT; an end without a begin, or
 * a field number outside 1 .. 2^29-1, is TB_ERR_ARG.  All sticky: check
 * once, at the end (tb_pb_status()).
 *
 * Output: tb_pb_flush() hands the finished bytes to a write callback
 * (optionally behind a field tag and length, so a sequence of messages
 * can be streamed as the repeated field of an outer message that is
 * never held whole) and empties the buffer for the next message.  A
 * callback error is returned as it is and kept (sticky).
 */
#ifndef TRACEBOUND_PROTOBUF_H
#define TRACEBOUND_PROTOBUF_H

#include "tracebound/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TB_PB_MAX_DEPTH 16u           /* nested messages open at once */
#define TB_PB_MAX_FIELD 536870911u    /* 2^29 - 1, protobuf's largest field number */
#define TB_PB_VARINT_MAX 10u          /* bytes of the longest varint */

/* Wire types. */
enum tb_pb_wire {
	TB_PB_VARINT = 0,
	TB_PB_FIXED64 = 1,
	TB_PB_LEN = 2,
	TB_PB_FIXED32 = 5
};

/* Write n bytes at p; TB_OK or an error status (returned by the flush). */
typedef tb_status (*tb_pb_write_fn)(void *ctx, const void *p, size_t n);

typedef struct tb_pb {
	uint8_t *buf;
	size_t cap;
	size_t len;               /* bytes of the message so far (counted past cap) */
	size_t need;              /* after TB_ERR_NO_SPACE: bytes the message takes */
	size_t open[TB_PB_MAX_DEPTH]; /* offset of each open message's length byte */
	unsigned depth;
	tb_status status;         /* sticky: the first error */
	int overflow;             /* 1: stopped storing (counting only) */
} tb_pb;

/* Start an empty message over buf[0..cap) (buf may be NULL to only count). */
TB_API void tb_pb_init(tb_pb *pb, void *buf, size_t cap);
/* Empty the message (keeps the buffer; clears every error). */
TB_API void tb_pb_reset(tb_pb *pb);
/* TB_OK, or the first error. */
TB_API tb_status tb_pb_status(const tb_pb *pb);

/* Fields.  `field` is the field number. */
TB_API void tb_pb_uint(tb_pb *pb, uint32_t field, uint64_t v);   /* uint32/64, bool, enum */
TB_API void tb_pb_int(tb_pb *pb, uint32_t field, int64_t v);     /* int32/64: two's complement */
TB_API void tb_pb_sint(tb_pb *pb, uint32_t field, int64_t v);    /* sint32/64: zigzag */
TB_API void tb_pb_fixed32(tb_pb *pb, uint32_t field, uint32_t v);
TB_API void tb_pb_fixed64(tb_pb *pb, uint32_t field, uint64_t v);
/* bytes, string (p may be NULL when n is 0) */
TB_API void tb_pb_bytes(tb_pb *pb, uint32_t field, const void *p, size_t n);
TB_API void tb_pb_str(tb_pb *pb, uint32_t field, const char *s);  /* NUL-terminated */

/* Open / close a nested message in `field`. */
TB_API void tb_pb_begin(tb_pb *pb, uint32_t field);
TB_API void tb_pb_end(tb_pb *pb);

/* Append bytes that are already encoded fields (a message built elsewhere;
 * p may be NULL when n is 0). */
TB_API void tb_pb_raw(tb_pb *pb, const void *p, size_t n);

/*
 * Hand the message to write(): with field != 0 as that field of an outer
 * message (tag, length, then the bytes), with field 0 as bare bytes.  The
 * message must be complete (no open begin: TB_ERR_ARG).  On TB_OK the
 * buffer is empty again.  An earlier error is returned without writing.
 */
TB_API TB_MUST_CHECK tb_status tb_pb_flush(tb_pb *pb, uint32_t field,
					   tb_pb_write_fn write, void *ctx);

/* ---- the encodings themselves, for callers that place bytes ---- */

/* Encode v as a varint into out (room for TB_PB_VARINT_MAX); its length. */
TB_API size_t tb_pb_put_varint(uint8_t *out, uint64_t v);
/* Bytes the varint of v takes (1..10). */
TB_API size_t tb_pb_varint_len(uint64_t v);
/* Zigzag: 0,-1,1,-2.. -> 0,1,2,3.. and back. */
TB_API uint64_t tb_pb_zigzag(int64_t v);
TB_API int64_t tb_pb_unzigzag(uint64_t v);

#ifdef __cplusplus
}
#endif

#endif /* TRACEBOUND_PROTOBUF_H */
