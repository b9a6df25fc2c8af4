/* zstd and zlib for tests, loaded with dlopen (see support/zstd_dl.c). */
#ifndef TB_TEST_ZSTD_DL_H
#define TB_TEST_ZSTD_DL_H

#include <stddef.h>
#include <stdint.h>

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

/* A streaming zstd decompressor for perf.data's COMPRESSED records
 * (tb_perf_decompress_fn): ctx points to a void * that starts NULL and
 * holds the stream; tb_test_zstd_stream_free ends it. */
tb_status tb_test_zstd_stream(void *ctx, const uint8_t *src, size_t src_len,
			      size_t *consumed, uint8_t *dst, size_t dst_cap,
			      size_t *produced);
void tb_test_zstd_stream_free(void *ctx);

#endif
