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

#endif
