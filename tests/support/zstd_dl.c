/* zstd and zlib for tests, loaded at run time (the test binary does not
 * link libzstd or zlib): lets the library tests read the real zstd sample
 * and write compressed files of their own.  The decompressors are the
 * Python module's (host/dlcodec.h). */
#include "zstd_dl.h"

#include "../../host/dlcodec.h"

static tb_dlcodec dl;
static size_t (*zcomp)(void *, size_t, const void *, size_t, int);
static int (*zlcomp)(void *, unsigned long *, const void *, unsigned long, int);

static void load(void)
{
	if (dl.tried)
		return;
	tb_dlcodec_load(&dl);
	if (dl.zstd)
		*(void **)&zcomp = dlsym(dl.zstd, "ZSTD_compress");
	if (dl.zlib)
		*(void **)&zlcomp = dlsym(dl.zlib, "compress2");
}

static tb_status only(const char *want, void *ctx, const char *algo, const void *src,
		      size_t src_len, void *dst, size_t dst_cap, size_t *produced)
{
	(void)ctx;
	if (strcmp(algo, want) != 0)
		return TB_ERR_UNSUPPORTED;
	load();
	return tb_dlcodec_decompress(&dl, algo, src, src_len, dst, dst_cap, produced);
}

tb_status tb_test_zstd(void *ctx, const char *algo, const void *src,
		       size_t src_len, void *dst, size_t dst_cap,
		       size_t *produced)
{
	return only("zstd", ctx, algo, src, src_len, dst, dst_cap, produced);
}

tb_status tb_test_zlib(void *ctx, const char *algo, const void *src,
		       size_t src_len, void *dst, size_t dst_cap,
		       size_t *produced)
{
	return only("zlib", ctx, algo, src, src_len, dst, dst_cap, produced);
}

int tb_test_have_zstd(void)
{
	load();
	return dl.zd != NULL;
}

int tb_test_have_zlib(void)
{
	load();
	return dl.zu && zlcomp;
}

size_t tb_test_zstd_compress(const void *src, size_t n, void *dst, size_t cap)
{
	size_t r;
	load();
	if (!zcomp || !dl.ze)
		return 0;
	r = zcomp(dst, cap, src, n, 3);
	return dl.ze(r) ? 0 : r;
}

size_t tb_test_zlib_compress(const void *src, size_t n, void *dst, size_t cap)
{
	unsigned long out = (unsigned long)cap;
	load();
	if (!zlcomp || zlcomp(dst, &out, src, (unsigned long)n, 6) != 0)
		return 0;
	return (size_t)out;
}

/* perf.data's COMPRESSED records: one zstd stream across them all (a
 * ZSTD_DCtx serves as the stream). */
tb_status tb_test_zstd_stream(void *ctx, const uint8_t *src, size_t src_len,
			      size_t *consumed, uint8_t *dst, size_t dst_cap,
			      size_t *produced)
{
	void **ds = (void **)ctx;
	tb_dl_zin in = { src, src_len, 0 };
	tb_dl_zout out = { dst, dst_cap, 0 };
	size_t r;
	load();
	if (!dl.zd)
		return TB_ERR_UNSUPPORTED;
	if (!*ds && !(*ds = dl.zdctx()))
		return TB_ERR_UNSUPPORTED;
	r = dl.zstream(*ds, &out, &in);
	if (dl.ze(r))
		return TB_ERR_VALUE;
	*consumed = in.pos;
	*produced = out.pos;
	return TB_OK;
}

void tb_test_zstd_stream_free(void *ctx)
{
	void **ds = (void **)ctx;
	if (*ds && dl.zfree)
		dl.zfree(*ds);
	*ds = NULL;
}
