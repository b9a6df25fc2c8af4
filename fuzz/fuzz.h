/*
 * Shared by every fuzz harness.  A harness is one file, fuzz/NAME_fuzzer.c,
 * defining LLVMFuzzerTestOneInput; it builds for libFuzzer (make fuzz),
 * AFL++ (make afl) and the plain replay driver used by make check.
 *
 * TB_FUZZ_CHECK states an invariant of the library's output (progress,
 * results inside the input, offsets increasing); a broken invariant
 * aborts so every engine reports it as a crash.
 */
#ifndef TB_FUZZ_H
#define TB_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracebound/status.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define TB_FUZZ_CHECK(cond)                                                   \
	do {                                                                  \
		if (!(cond)) {                                                \
			fprintf(stderr, "%s:%d: fuzz invariant broken: %s\n", \
				__FILE__, __LINE__, #cond);                   \
			abort();                                              \
		}                                                             \
	} while (0)

/* Is [p, p+n) inside [base, base+len)?  (Pointer math done on integers.) */
static inline int tb_fuzz_inside(const void *p, size_t n, const void *base,
				 size_t len)
{
	uintptr_t a = (uintptr_t)p, b = (uintptr_t)base;
	return a >= b && a - b <= len && n <= len - (a - b);
}

/* The "copy" decompressor of the harnesses' trace.dat inputs (what
 * tests/datwriter.h writes): the bytes as they are, cut to dst_cap; ctx,
 * when not NULL, a uint64_t that counts the bytes made. */
static inline tb_status tb_fuzz_copy_dc(void *ctx, const char *algo, const void *src,
					size_t src_len, void *dst, size_t dst_cap,
					size_t *produced)
{
	if (strcmp(algo, "copy") != 0)
		return TB_ERR_UNSUPPORTED;
	if (src_len > dst_cap)
		src_len = dst_cap;
	if (src_len)
		memcpy(dst, src, src_len);
	*produced = src_len;
	if (ctx)
		*(uint64_t *)ctx += src_len;
	return TB_OK;
}

/* Piece k of a split pattern for stream harnesses (mode's low 2 bits:
 * single bytes, param + 1 bytes, random sizes up to param * 64 + 1, or
 * two pieces cut at param / 256 of the input). */
static inline size_t tb_fuzz_piece_size(uint8_t mode, uint8_t param, size_t k, size_t len,
					uint32_t *rng)
{
	switch (mode & 3) {
	case 0:
		return 1;
	case 1:
		return (size_t)param + 1;
	case 2:
		*rng = *rng * 1103515245u + 12345u;
		return 1 + (*rng >> 16) % ((size_t)param * 64 + 1);
	default:
		return k == 0 ? (len * param) / 256 + 1 : len;
	}
}

/* A stream fed in pieces: each an exact-size heap copy, so ASan sees a
 * read past it; the previous one is freed when the next is taken. */
typedef struct tb_fuzz_split {
	uint8_t mode, param;
	size_t pos, k;
	uint32_t rng;
	uint8_t *piece;
} tb_fuzz_split;

static inline void tb_fuzz_split_init(tb_fuzz_split *s, uint8_t mode, uint8_t param)
{
	s->mode = mode;
	s->param = param;
	s->pos = s->k = 0;
	s->rng = param;
	s->piece = NULL;
}

/* The next piece of data[0..len) in s->piece, its size returned; 0 when
 * all of it was given (the last piece freed). */
static inline size_t tb_fuzz_next_piece(tb_fuzz_split *s, const uint8_t *data, size_t len)
{
	size_t n;
	free(s->piece);
	s->piece = NULL;
	if (s->pos >= len)
		return 0;
	n = tb_fuzz_piece_size(s->mode, s->param, s->k++, len, &s->rng);
	if (n > len - s->pos)
		n = len - s->pos;
	s->piece = (uint8_t *)malloc(n);
	TB_FUZZ_CHECK(s->piece != NULL);
	memcpy(s->piece, data + s->pos, n);
	s->pos += n;
	return n;
}

#endif
