/* A zstd decompressor for tests, loaded at run time (the test binary does
 * not link libzstd): lets the library tests read the real zstd sample. */
#include "zstd_dl.h"

#include <dlfcn.h>
#include <string.h>

typedef size_t (*zstd_decompress_fn)(void *, size_t, const void *, size_t);
typedef unsigned (*zstd_is_error_fn)(size_t);

tb_status tb_test_zstd(void *ctx, const char *algo, const void *src,
		       size_t src_len, void *dst, size_t dst_cap,
		       size_t *produced)
{
	static void *lib;
	static zstd_decompress_fn dec;
	static zstd_is_error_fn is_err;
	size_t r;
	(void)ctx;
	if (strcmp(algo, "zstd") != 0)
		return TB_ERR_UNSUPPORTED;
	if (!lib) {
		lib = dlopen("libzstd.so.1", RTLD_NOW | RTLD_LOCAL);
		if (!lib)
			return TB_ERR_UNSUPPORTED;
		dec = (zstd_decompress_fn)dlsym(lib, "ZSTD_decompress");
		is_err = (zstd_is_error_fn)dlsym(lib, "ZSTD_isError");
	}
	if (!dec || !is_err)
		return TB_ERR_UNSUPPORTED;
	r = dec(dst, dst_cap, src, src_len);
	if (is_err(r))
		return TB_ERR_VALUE;
	*produced = r;
	return TB_OK;
}

int tb_test_have_zstd(void)
{
	size_t p;
	char out[1];
	/* an empty frame fails to decode but proves the library loaded */
	return tb_test_zstd(NULL, "zstd", "", 0, out, 0, &p) != TB_ERR_UNSUPPORTED;
}

/* zstd's stream buffers (zstd.h's ZSTD_inBuffer / ZSTD_outBuffer). */
typedef struct zin { const void *src; size_t size, pos; } zin;
typedef struct zout { void *dst; size_t size, pos; } zout;
typedef void *(*zstd_create_fn)(void);
typedef size_t (*zstd_free_fn)(void *);
typedef size_t (*zstd_stream_fn)(void *, zout *, zin *);

tb_status tb_test_zstd_stream(void *ctx, const uint8_t *src, size_t src_len,
			      size_t *consumed, uint8_t *dst, size_t dst_cap,
			      size_t *produced)
{
	static void *lib;
	static zstd_create_fn create;
	static zstd_stream_fn step;
	static zstd_is_error_fn is_err;
	void **ds = (void **)ctx;
	zin in = { src, src_len, 0 };
	zout out = { dst, dst_cap, 0 };
	size_t r;
	if (!lib) {
		lib = dlopen("libzstd.so.1", RTLD_NOW | RTLD_LOCAL);
		if (!lib)
			return TB_ERR_UNSUPPORTED;
		create = (zstd_create_fn)dlsym(lib, "ZSTD_createDStream");
		step = (zstd_stream_fn)dlsym(lib, "ZSTD_decompressStream");
		is_err = (zstd_is_error_fn)dlsym(lib, "ZSTD_isError");
	}
	if (!create || !step || !is_err)
		return TB_ERR_UNSUPPORTED;
	if (!*ds && !(*ds = create()))
		return TB_ERR_UNSUPPORTED;
	r = step(*ds, &out, &in);
	if (is_err(r))
		return TB_ERR_VALUE;
	*consumed = in.pos;
	*produced = out.pos;
	return TB_OK;
}

void tb_test_zstd_stream_free(void *ctx)
{
	void **ds = (void **)ctx;
	zstd_free_fn fr;
	void *lib = dlopen("libzstd.so.1", RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
	if (lib && *ds && (fr = (zstd_free_fn)dlsym(lib, "ZSTD_freeDStream")))
		fr(*ds);
	if (lib)
		dlclose(lib);
	*ds = NULL;
}
