/*
 * host/: the decompressors tracebound is handed, once, for the CLI and the
 * Python module: zstd and zlib for compressed trace.dat sections, and one
 * zstd stream for a perf.data's COMPRESSED records (`perf record -z`).
 * The machine's libzstd.so.1 and libz.so.1 are loaded with dlopen at first
 * use (dlcodec.h): no build dependency, and without them a compressed
 * section is refused as the library refuses it.
 */
#ifndef TB_HOST_CODEC_H
#define TB_HOST_CODEC_H

#include <stddef.h>

#include "tracebound/session.h"
#include "tracebound/session_perf.h"

/* A tb_dat_decompress_fn (ctx unused) for "zstd" and "zlib": a frame or
 * stream cut short gives what it held and TB_ERR_TRUNCATED;
 * TB_ERR_UNSUPPORTED for an algorithm the machine lacks.  Thread-safe. */
tb_status tb_host_decompress(void *ctx, const char *algo, const void *src, size_t src_len,
			     void *dst, size_t dst_cap, size_t *produced);

/* One session's zstd stream (zero it before use; free it after closing
 * the session that reads through it). */
typedef struct tb_host_zstream {
	void *dctx;
} tb_host_zstream;

/*
 * A perf.data session s whose records are compressed reads them through
 * z from now on (tb_session_perf_decompress): TB_OK, also when s is no
 * such capture (nothing done); TB_ERR_UNSUPPORTED without libzstd (each
 * COMPRESSED record is then an anomaly in its place); else the session's
 * refusal, in err.
 */
tb_status tb_host_perf_zstd(tb_session *s, tb_host_zstream *z, tb_error *err);
void tb_host_zstream_free(tb_host_zstream *z);

#endif
