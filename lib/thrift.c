/* The Thrift compact protocol encoder (see thrift.h). */
#include <string.h>

#include "thrift.h"

void tb_thr_init(tb_thr *t, uint8_t *p, size_t cap)
{
	t->p = p;
	t->cap = p ? cap : 0;
	t->len = 0;
	t->overflow = 0;
	t->depth = 1;
	t->last[0] = 0;
}

void tb_thr_raw(tb_thr *t, const void *s, size_t n)
{
	if (n > t->cap - t->len) {
		t->overflow = 1;
		return;
	}
	if (n)
		memcpy(t->p + t->len, s, n);
	t->len += n;
}

static void put8(tb_thr *t, unsigned b)
{
	uint8_t c = (uint8_t)b;
	tb_thr_raw(t, &c, 1);
}

void tb_thr_varint(tb_thr *t, uint64_t v)
{
	uint8_t tmp[10];
	size_t n = 0;
	while (v >= 0x80) {
		tmp[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	tmp[n++] = (uint8_t)v;
	tb_thr_raw(t, tmp, n);
}

static uint64_t zigzag(int64_t v)
{
	/* (v << 1) ^ (v >> 63) without shifting a negative value */
	uint64_t u = (uint64_t)v;
	return (u << 1) ^ (v < 0 ? UINT64_MAX : 0);
}

void tb_thr_field(tb_thr *t, unsigned type, int16_t id)
{
	int16_t *last = &t->last[t->depth - 1];
	int delta = (int)id - (int)*last;
	if (delta > 0 && delta <= 15) {
		put8(t, (unsigned)delta << 4 | type);
	} else {
		put8(t, type);
		tb_thr_varint(t, zigzag(id));
	}
	*last = id;
}

void tb_thr_i32(tb_thr *t, int16_t id, int32_t v)
{
	tb_thr_field(t, TB_THR_I32, id);
	tb_thr_varint(t, zigzag(v));
}

void tb_thr_i64(tb_thr *t, int16_t id, int64_t v)
{
	tb_thr_field(t, TB_THR_I64, id);
	tb_thr_varint(t, zigzag(v));
}

void tb_thr_i8(tb_thr *t, int16_t id, int8_t v)
{
	tb_thr_field(t, TB_THR_BYTE, id);
	put8(t, (uint8_t)v);
}

void tb_thr_bool(tb_thr *t, int16_t id, int v)
{
	tb_thr_field(t, v ? TB_THR_TRUE : TB_THR_FALSE, id);
}

void tb_thr_binary(tb_thr *t, int16_t id, const void *s, size_t n)
{
	tb_thr_field(t, TB_THR_BINARY, id);
	tb_thr_elem_binary(t, s, n);
}

static void push(tb_thr *t)
{
	if (t->depth >= TB_THR_MAX_DEPTH) {
		t->overflow = 1; /* a caller bug: the metadata never nests this deep */
		return;
	}
	t->last[t->depth++] = 0;
}

void tb_thr_struct(tb_thr *t, int16_t id)
{
	tb_thr_field(t, TB_THR_STRUCT, id);
	push(t);
}

void tb_thr_list(tb_thr *t, int16_t id, unsigned elem_type, size_t n)
{
	tb_thr_field(t, TB_THR_LIST, id);
	if (n < 15) {
		put8(t, (unsigned)n << 4 | elem_type);
	} else {
		put8(t, 0xf0u | elem_type);
		tb_thr_varint(t, n);
	}
}

void tb_thr_elem_struct(tb_thr *t)
{
	push(t);
}

void tb_thr_elem_i32(tb_thr *t, int32_t v)
{
	tb_thr_varint(t, zigzag(v));
}

void tb_thr_elem_binary(tb_thr *t, const void *s, size_t n)
{
	tb_thr_varint(t, n);
	tb_thr_raw(t, s, n);
}

void tb_thr_end(tb_thr *t)
{
	put8(t, TB_THR_STOP);
	if (t->depth > 1)
		t->depth--;
}
