/* A tb_mem over the C heap for tests and fuzz harnesses: each block its
 * own allocation, so ASan sees any overrun.  Header-only. */
#ifndef TB_TEST_HEAPMEM_H
#define TB_TEST_HEAPMEM_H

#include <stdlib.h>

#include "tracebound/session.h"

static inline void *tb_heap_alloc(void *ctx, size_t n)
{
	(void)ctx;
	return malloc(n);
}

static inline void tb_heap_free(void *ctx, void *p, size_t n)
{
	(void)ctx;
	(void)n;
	free(p);
}

static const tb_mem tb_heap_mem = { tb_heap_alloc, tb_heap_free, NULL };

#endif
