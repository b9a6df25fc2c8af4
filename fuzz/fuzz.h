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

#endif
