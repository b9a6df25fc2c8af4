/* Protobuf wire-format writer (see include/tracebound/protobuf.h). */
#include <string.h>

#include "tracebound/protobuf.h"
#include "digits.h"
#include "internal.h"

size_t tb_pb_varint_len(uint64_t v)
{
	size_t n = 1;
	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

size_t tb_pb_put_varint(uint8_t *out, uint64_t v)
{
	size_t n = 0;
	while (v >= 0x80) {
		out[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	out[n++] = (uint8_t)v;
	return n;
}

uint64_t tb_pb_zigzag(int64_t v)
{
	/* (v << 1) ^ (v >> 63) without shifting a negative value */
	uint64_t u = (uint64_t)v;
	return (u << 1) ^ (v < 0 ? UINT64_MAX : 0);
}

int64_t tb_pb_unzigzag(uint64_t v)
{
	uint64_t u = (v >> 1) ^ (0 - (v & 1));
	return (int64_t)u;
}

void tb_pb_init(tb_pb *pb, void *buf, size_t cap)
{
	memset(pb, 0, sizeof(*pb));
	pb->buf = (uint8_t *)buf;
	pb->cap = buf ? cap : 0;
}

void tb_pb_reset(tb_pb *pb)
{
	tb_pb_init(pb, pb->buf, pb->cap);
}

tb_status tb_pb_status(const tb_pb *pb)
{
	return pb->status;
}

static void set_error(tb_pb *pb, tb_status s)
{
	if (pb->status == TB_OK)
		pb->status = s;
}

/* Account for n more bytes; store them when they fit and nothing was
 * dropped before (a message is stored whole or counted only). */
static void put(tb_pb *pb, const void *p, size_t n)
{
	if (!n)
		return; /* nothing to count: no NULL + len in count-only mode */
	if (n > SIZE_MAX - pb->len) {
		set_error(pb, TB_ERR_LIMIT);
		pb->overflow = 1;
		return;
	}
	if (!pb->overflow && n <= pb->cap - pb->len) {
		/* most puts are a tag, a varint or a short name: no call */
		tb_copy_short((char *)pb->buf + pb->len, p, n);
	} else {
		pb->overflow = 1;
		set_error(pb, TB_ERR_NO_SPACE);
	}
	pb->len += n;
	if (pb->overflow)
		pb->need = pb->len;
}

static void put_varint(tb_pb *pb, uint64_t v)
{
	uint8_t b[TB_PB_VARINT_MAX];
	put(pb, b, tb_pb_put_varint(b, v));
}

static int tag(tb_pb *pb, uint32_t field, unsigned wire)
{
	if (field == 0 || field > TB_PB_MAX_FIELD) {
		set_error(pb, TB_ERR_ARG);
		return 0;
	}
	put_varint(pb, (uint64_t)field << 3 | wire);
	return 1;
}

void tb_pb_uint(tb_pb *pb, uint32_t field, uint64_t v)
{
	if (tag(pb, field, TB_PB_VARINT))
		put_varint(pb, v);
}

void tb_pb_int(tb_pb *pb, uint32_t field, int64_t v)
{
	tb_pb_uint(pb, field, (uint64_t)v);
}

void tb_pb_sint(tb_pb *pb, uint32_t field, int64_t v)
{
	tb_pb_uint(pb, field, tb_pb_zigzag(v));
}

/* A fixed-width field: n bytes of v, little-endian (n is 4 or 8). */
static void fixed(tb_pb *pb, uint32_t field, unsigned wire, uint64_t v, unsigned n)
{
	uint8_t b[8];
	unsigned i;
	if (!tag(pb, field, wire))
		return;
	for (i = 0; i < n; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	put(pb, b, n);
}

void tb_pb_fixed32(tb_pb *pb, uint32_t field, uint32_t v)
{
	fixed(pb, field, TB_PB_FIXED32, v, 4);
}

void tb_pb_fixed64(tb_pb *pb, uint32_t field, uint64_t v)
{
	fixed(pb, field, TB_PB_FIXED64, v, 8);
}

void tb_pb_bytes(tb_pb *pb, uint32_t field, const void *p, size_t n)
{
	if (!tag(pb, field, TB_PB_LEN))
		return;
	put_varint(pb, n);
	put(pb, p, n);
}

void tb_pb_str(tb_pb *pb, uint32_t field, const char *s)
{
	tb_pb_bytes(pb, field, s, s ? strlen(s) : 0);
}

void tb_pb_raw(tb_pb *pb, const void *p, size_t n)
{
	put(pb, p, n);
}

void tb_pb_begin(tb_pb *pb, uint32_t field)
{
	static const uint8_t zero = 0;
	if (!tag(pb, field, TB_PB_LEN)) {
		pb->depth++; /* keeps begin/end balanced; the error is set */
		return;
	}
	if (pb->depth >= TB_PB_MAX_DEPTH)
		set_error(pb, TB_ERR_LIMIT);
	else
		pb->open[pb->depth] = pb->len;
	pb->depth++;
	put(pb, &zero, 1); /* the length, one byte for now */
}

void tb_pb_end(tb_pb *pb)
{
	size_t start, body, vl;
	if (pb->depth == 0) {
		set_error(pb, TB_ERR_ARG);
		return;
	}
	pb->depth--;
	if (pb->depth >= TB_PB_MAX_DEPTH || pb->status == TB_ERR_ARG)
		return; /* its begin failed: the error is already set */
	start = pb->open[pb->depth];
	body = pb->len - start - 1;
	if (body > UINT32_MAX) {
		set_error(pb, TB_ERR_LIMIT);
		return;
	}
	vl = tb_pb_varint_len(body);
	if (!pb->overflow && vl - 1 <= pb->cap - pb->len) {
		if (vl > 1)
			memmove(pb->buf + start + vl, pb->buf + start + 1, body);
		(void)tb_pb_put_varint(pb->buf + start, body);
	} else if (!pb->overflow) {
		pb->overflow = 1;
		set_error(pb, TB_ERR_NO_SPACE);
	}
	pb->len += vl - 1;
	if (pb->overflow)
		pb->need = pb->len;
}

tb_status tb_pb_flush(tb_pb *pb, uint32_t field, tb_pb_write_fn write, void *ctx)
{
	tb_status s;
	if (pb->status)
		return pb->status;
	if (pb->depth || !write || field > TB_PB_MAX_FIELD) {
		set_error(pb, TB_ERR_ARG);
		return pb->status;
	}
	if (field) {
		uint8_t h[2 * TB_PB_VARINT_MAX];
		size_t n = tb_pb_put_varint(h, (uint64_t)field << 3 | TB_PB_LEN);
		n += tb_pb_put_varint(h + n, pb->len);
		if ((s = write(ctx, h, n)) != TB_OK) {
			set_error(pb, s);
			return s;
		}
	}
	if (pb->len && (s = write(ctx, pb->buf, pb->len)) != TB_OK) {
		set_error(pb, s);
		return s;
	}
	pb->len = 0;
	pb->need = 0;
	return TB_OK;
}
