/* host/: the decompressors (codec.h) over the dlopen'd libraries (dlcodec.h). */
#include <pthread.h>

#include "codec.h"
#include "dlcodec.h"

static tb_dlcodec dl;
static pthread_once_t dl_once = PTHREAD_ONCE_INIT;

static void load(void)
{
	tb_dlcodec_load(&dl);
}

tb_status tb_host_decompress(void *ctx, const char *algo, const void *src, size_t src_len,
			     void *dst, size_t dst_cap, size_t *produced)
{
	(void)ctx;
	(void)pthread_once(&dl_once, load);
	return tb_dlcodec_decompress(&dl, algo, src, src_len, dst, dst_cap, produced);
}

/* tb_perf_decompress_fn: as much of the stream as fits dst. */
static tb_status zstream_next(void *ctx, const uint8_t *src, size_t src_len, size_t *consumed,
			      uint8_t *dst, size_t dst_cap, size_t *produced)
{
	tb_dl_zin in = { src, src_len, 0 };
	tb_dl_zout out = { dst, dst_cap, 0 };
	size_t r = dl.zstream(ctx, &out, &in);
	*consumed = in.pos;
	*produced = out.pos;
	return dl.ze(r) ? TB_ERR_VALUE : TB_OK;
}

/* The walk starts again (a rewind): the stream from its beginning. */
static void zstream_reset(void *ctx)
{
	(void)dl.zreset(ctx, 1); /* ZSTD_reset_session_only */
}

tb_status tb_host_perf_zstd(tb_session *s, tb_host_zstream *z, tb_error *err)
{
	tb_session_perf_inflater in;
	const tb_perf *f = tb_session_perf(s);
	if (!f || !f->has_compression)
		return TB_OK;
	(void)pthread_once(&dl_once, load);
	if (!dl.zd || !dl.zreset)
		return TB_ERR_UNSUPPORTED;
	if (!z->dctx && !(z->dctx = dl.zdctx()))
		return TB_ERR_NO_SPACE;
	in.fn = zstream_next;
	in.ctx = z->dctx;
	in.reset = zstream_reset;
	return tb_session_perf_decompress(s, &in, err);
}

void tb_host_zstream_free(tb_host_zstream *z)
{
	if (z->dctx)
		dl.zfree(z->dctx);
	z->dctx = NULL;
}
