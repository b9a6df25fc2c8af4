/* zstd and zlib for tests, loaded with dlopen (see support/zstd_dl.c). */
#ifndef TB_TEST_ZSTD_DL_H
#define TB_TEST_ZSTD_DL_H

#include <stddef.h>

#include "tracebound/tracedat.h"

/* Decompressors (tb_dat_decompress_fn): a cut input gives what it holds,
 * with TB_ERR_TRUNCATED. */
tb_status tb_test_zstd(void *ctx, const char *algo, const void *src,
		       size_t src_len, void *dst, size_t dst_cap,
		       size_t *produced);
tb_status tb_test_zlib(void *ctx, const char *algo, const void *src,
		       size_t src_len, void *dst, size_t dst_cap,
		       size_t *produced);
int tb_test_have_zstd(void);
int tb_test_have_zlib(void);
/* Compressors for dw_spec.squeeze: the compressed size, 0 on failure. */
size_t tb_test_zstd_compress(const void *src, size_t n, void *dst, size_t cap);
size_t tb_test_zlib_compress(const void *src, size_t n, void *dst, size_t cap);

#endif
