/*
 * zstd and zlib loaded with dlopen (no build dependency): the decompressor
 * tracebound is handed (tb_dat_decompress_fn).  Header-only: codec.c (the CLI's and Python's
 * decompressors) and the tests' zstd_dl.c include it.
 */
#ifndef TB_CLI_DLCODEC_H
#define TB_CLI_DLCODEC_H

#include <dlfcn.h>
#include <string.h>

#include "tracebound/tracedat.h"

/* zstd's streaming buffers (zstd.h, stable ABI) */
typedef struct tb_dl_zin {
	const void *src;
	size_t size, pos;
} tb_dl_zin;
typedef struct tb_dl_zout {
	void *dst;
	size_t size, pos;
} tb_dl_zout;

typedef struct tb_dlcodec {
	int tried;
	size_t (*zd)(void *, size_t, const void *, size_t);     /* ZSTD_decompress */
	unsigned (*ze)(size_t);                                  /* ZSTD_isError */
	void *(*zdctx)(void);
	size_t (*zfree)(void *);
	size_t (*zstream)(void *, tb_dl_zout *, tb_dl_zin *);
	size_t (*zreset)(void *, int);                           /* ZSTD_DCtx_reset */
	int (*zu)(void *, unsigned long *, const void *, unsigned long *); /* uncompress2 */
	void *zstd, *zlib;       /* the handles, for more symbols */
} tb_dlcodec;

/* Load what the machine has (once; not thread-safe: call it first). */
static inline void tb_dlcodec_load(tb_dlcodec *c)
{
	if (c->tried)
		return;
	c->tried = 1;
	if ((c->zstd = dlopen("libzstd.so.1", RTLD_NOW | RTLD_LOCAL)) != NULL) {
		*(void **)&c->zd = dlsym(c->zstd, "ZSTD_decompress");
		*(void **)&c->ze = dlsym(c->zstd, "ZSTD_isError");
		*(void **)&c->zdctx = dlsym(c->zstd, "ZSTD_createDCtx");
		*(void **)&c->zfree = dlsym(c->zstd, "ZSTD_freeDCtx");
		*(void **)&c->zstream = dlsym(c->zstd, "ZSTD_decompressStream");
		*(void **)&c->zreset = dlsym(c->zstd, "ZSTD_DCtx_reset");
		if (!c->ze || !c->zdctx || !c->zfree || !c->zstream)
			c->zd = NULL;
	}
	if ((c->zlib = dlopen("libz.so.1", RTLD_NOW | RTLD_LOCAL)) != NULL)
		*(void **)&c->zu = dlsym(c->zlib, "uncompress2");
}

/* A frame one call cannot decode is streamed, so that a cut one gives
 * what it holds: TB_ERR_TRUNCATED when all the input is used and more
 * was to come. */
static inline tb_status tb_dlcodec_zstd(const tb_dlcodec *c, const void *src, size_t src_len,
					void *dst, size_t dst_cap, size_t *produced)
{
	tb_dl_zin in = { src, src_len, 0 };
	tb_dl_zout out = { dst, dst_cap, 0 };
	size_t r = c->zd(dst, dst_cap, src, src_len);
	void *z;
	if (!c->ze(r)) {
		*produced = r;
		return TB_OK;
	}
	if (!(z = c->zdctx()))
		return TB_ERR_VALUE;
	for (;;) {
		size_t ip = in.pos, op = out.pos;
		r = c->zstream(z, &out, &in);
		if (c->ze(r) || !r || (in.pos == ip && out.pos == op))
			break;
	}
	c->zfree(z);
	*produced = out.pos;
	return !c->ze(r) && r && in.pos == in.size ? TB_ERR_TRUNCATED : TB_ERR_VALUE;
}

/* uncompress2 says how much input it used: a stream that is not over
 * when all of it is used (Z_DATA_ERROR with room left, Z_BUF_ERROR when
 * full) ends early: its end, or only its check value, cut. */
static inline tb_status tb_dlcodec_zlib(const tb_dlcodec *c, const void *src, size_t src_len,
					void *dst, size_t dst_cap, size_t *produced)
{
	unsigned long out = (unsigned long)dst_cap, used = (unsigned long)src_len;
	int r;
	if (src_len > (unsigned long)-1 || dst_cap > (unsigned long)-1)
		return TB_ERR_VALUE;
	r = c->zu(dst, &out, src, &used);
	*produced = out;
	if (r == 0)
		return TB_OK;
	return (r == -3 || r == -5) && used == src_len ? TB_ERR_TRUNCATED : TB_ERR_VALUE;
}

/* tb_dat_decompress_fn's work for "zstd" and "zlib" with what loaded. */
static inline tb_status tb_dlcodec_decompress(const tb_dlcodec *c, const char *algo,
					      const void *src, size_t src_len, void *dst,
					      size_t dst_cap, size_t *produced)
{
	if (!strcmp(algo, "zstd") && c->zd)
		return tb_dlcodec_zstd(c, src, src_len, dst, dst_cap, produced);
	if (!strcmp(algo, "zlib") && c->zu)
		return tb_dlcodec_zlib(c, src, src_len, dst, dst_cap, produced);
	return TB_ERR_UNSUPPORTED;
}

#endif
