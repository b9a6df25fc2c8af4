/* A zstd decompressor for tests, loaded with dlopen (see support/zstd_dl.c). */
#ifndef TB_TEST_ZSTD_DL_H
#define TB_TEST_ZSTD_DL_H

#include <stddef.h>

#include "tracebound/tracedat.h"

tb_status tb_test_zstd(void *ctx, const char *algo, const void *src,
		       size_t src_len, void *dst, size_t dst_cap,
		       size_t *produced);
int tb_test_have_zstd(void);

#endif
