/*
 * A Thrift compact protocol encoder into a bounded buffer, for the
 * Parquet writer's metadata (written from the protocol's description:
 * field headers as a delta nibble or a zigzag id, zigzag varint
 * integers, length-prefixed binaries, size-nibble list headers).
 *
 * Nothing past cap is written: `overflow` says a write did not fit, and
 * the caller (who sizes the buffer from a bound) treats it as an error.
 * Internal header: not installed, not part of the API.
 */
#ifndef TB_LIB_THRIFT_H
#define TB_LIB_THRIFT_H

#include <stddef.h>
#include <stdint.h>

/* Compact protocol type ids. */
enum {
	TB_THR_STOP = 0,
	TB_THR_TRUE = 1,
	TB_THR_FALSE = 2,
	TB_THR_BYTE = 3,
	TB_THR_I16 = 4,
	TB_THR_I32 = 5,
	TB_THR_I64 = 6,
	TB_THR_DOUBLE = 7,
	TB_THR_BINARY = 8,
	TB_THR_LIST = 9,
	TB_THR_SET = 10,
	TB_THR_MAP = 11,
	TB_THR_STRUCT = 12
};

/* Structs nest at most this deep (Parquet's metadata needs 4). */
#define TB_THR_MAX_DEPTH 8u

typedef struct tb_thr {
	uint8_t *p;
	size_t cap, len;
	int overflow;
	unsigned depth;                    /* structs open, the outermost included */
	int16_t last[TB_THR_MAX_DEPTH];    /* last field id written, per open struct */
} tb_thr;

/* Start encoding into p[0..cap), inside one (outermost) struct. */
void tb_thr_init(tb_thr *t, uint8_t *p, size_t cap);
void tb_thr_raw(tb_thr *t, const void *s, size_t n);
void tb_thr_varint(tb_thr *t, uint64_t v);
/* A field header (booleans: TB_THR_TRUE / TB_THR_FALSE carry the value). */
void tb_thr_field(tb_thr *t, unsigned type, int16_t id);
void tb_thr_i32(tb_thr *t, int16_t id, int32_t v);
void tb_thr_i64(tb_thr *t, int16_t id, int64_t v);
void tb_thr_i8(tb_thr *t, int16_t id, int8_t v);
void tb_thr_bool(tb_thr *t, int16_t id, int v);
void tb_thr_binary(tb_thr *t, int16_t id, const void *s, size_t n);
/* A struct-valued field; fields follow until tb_thr_end(). */
void tb_thr_struct(tb_thr *t, int16_t id);
/* A list field header of n elements of elem_type. */
void tb_thr_list(tb_thr *t, int16_t id, unsigned elem_type, size_t n);
/* A struct element of a list: fields follow until tb_thr_end(). */
void tb_thr_elem_struct(tb_thr *t);
/* List elements of the scalar kinds. */
void tb_thr_elem_i32(tb_thr *t, int32_t v);
void tb_thr_elem_binary(tb_thr *t, const void *s, size_t n);
/* Close the innermost struct (writes its stop byte). */
void tb_thr_end(tb_thr *t);

#endif /* TB_LIB_THRIFT_H */
