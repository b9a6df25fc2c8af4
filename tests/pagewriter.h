/*
 * A small test-only sub-buffer writer: builds pages in either byte order,
 * with 4- or 8-byte longs and any size, record by record, so tests can
 * make exactly the bytes they need (valid and malformed).
 */
#ifndef TB_PAGEWRITER_H
#define TB_PAGEWRITER_H

#include <stddef.h>
#include <stdint.h>

typedef struct tbt_pw {
	uint8_t *buf;
	size_t size;      /* bytes of buf */
	size_t hdr;       /* data offset: 8 + long_size */
	size_t pos;       /* next write offset */
	int be;
	unsigned long_size;
	int overflow;     /* a write did not fit */
} tbt_pw;

/* Start a page of `size` bytes (zero-filled) with header timestamp ts. */
void tbt_pw_init(tbt_pw *w, uint8_t *buf, size_t size, int be,
		 unsigned long_size, uint64_t ts);
/* Store v in n bytes at p in the writer's byte order. */
void tbt_pw_put(const tbt_pw *w, uint8_t *p, uint64_t v, unsigned n);
/* The raw event header word for type_len and a 27-bit delta. */
uint32_t tbt_pw_word(const tbt_pw *w, unsigned type_len, uint32_t delta);
/* Append a raw u32 in page byte order. */
void tbt_pw_u32(tbt_pw *w, uint32_t v);
/* Data record: short form when len <= 112 and !force_long, else long form.
 * Returns the record's offset in the page. */
size_t tbt_pw_data(tbt_pw *w, uint32_t delta, const void *payload,
		   size_t len, int force_long);
/* Discard-style padding of `total` bytes (>= 8) with a non-zero delta. */
size_t tbt_pw_padding(tbt_pw *w, uint32_t delta, uint32_t total);
/* Null padding header (type 29, delta 0). */
size_t tbt_pw_null_padding(tbt_pw *w);
/* Time extend adding `delta` (up to 59 bits). */
size_t tbt_pw_extend(tbt_pw *w, uint64_t delta);
/* Absolute time stamp (low 59 bits of ts). */
size_t tbt_pw_stamp(tbt_pw *w, uint64_t ts);
/* Write commit = bytes written (plus flag bits) and, when `stored`, the
 * missed count right after the data. */
void tbt_pw_finish(tbt_pw *w, int missed, int stored, uint64_t count);
/* Write an explicit raw commit word. */
void tbt_pw_commit(tbt_pw *w, uint64_t raw);

#endif
