/* zstd and zlib for tests, loaded at run time (the test binary does not
 * link libzstd or zlib): lets the library tests read the real zstd sample
 * and write compressed files of their own. */
#include "zstd_dl.h"

#include <dlfcn.h>
#include <string.h>

/* zstd's streaming buffers (zstd.h, stable ABI) */
typedef struct zin {
	const void *src;
	size_t size, pos;
} zin;
typedef struct zout {
	void *dst;
	size_t size, pos;
} zout;

static struct {
	int tried;
	size_t (*dec)(void *, size_t, const void *, size_t);
	unsigned (*is_err)(size_t);
	void *(*dctx)(void);
	size_t (*free_dctx)(void *);
	size_t (*stream)(void *, zout *, zin *);
	size_t (*comp)(void *, size_t, const void *, size_t, int);
	int (*zcomp)(void *, unsigned long *, const void *, unsigned long, int);
	int (*zuncomp2)(void *, unsigned long *, const void *, unsigned long *);
} dl;

static void load(void)
{
	void *h;
	if (dl.tried)
		return;
	dl.tried = 1;
	if ((h = dlopen("libzstd.so.1", RTLD_NOW | RTLD_LOCAL))) {
		*(void **)&dl.dec = dlsym(h, "ZSTD_decompress");
		*(void **)&dl.is_err = dlsym(h, "ZSTD_isError");
		*(void **)&dl.dctx = dlsym(h, "ZSTD_createDCtx");
		*(void **)&dl.free_dctx = dlsym(h, "ZSTD_freeDCtx");
		*(void **)&dl.stream = dlsym(h, "ZSTD_decompressStream");
		*(void **)&dl.comp = dlsym(h, "ZSTD_compress");
		if (!dl.is_err || !dl.dctx || !dl.free_dctx || !dl.stream)
			dl.dec = NULL;
	}
	if ((h = dlopen("libz.so.1", RTLD_NOW | RTLD_LOCAL))) {
		*(void **)&dl.zcomp = dlsym(h, "compress2");
		*(void **)&dl.zuncomp2 = dlsym(h, "uncompress2");
	}
}

/* One call for a whole frame; a frame it cannot decode is streamed, so
 * that a cut one gives what it holds (TB_ERR_TRUNCATED). */
tb_status tb_test_zstd(void *ctx, const char *algo, const void *src,
		       size_t src_len, void *dst, size_t dst_cap,
		       size_t *produced)
{
	zin in = { src, src_len, 0 };
	zout out = { dst, dst_cap, 0 };
	size_t r;
	void *z;
	(void)ctx;
	if (strcmp(algo, "zstd") != 0)
		return TB_ERR_UNSUPPORTED;
	load();
	if (!dl.dec)
		return TB_ERR_UNSUPPORTED;
	r = dl.dec(dst, dst_cap, src, src_len);
	if (!dl.is_err(r)) {
		*produced = r;
		return TB_OK;
	}
	if (!(z = dl.dctx()))
		return TB_ERR_VALUE;
	for (;;) {
		size_t ip = in.pos, op = out.pos;
		r = dl.stream(z, &out, &in);
		if (dl.is_err(r) || !r || (in.pos == ip && out.pos == op))
			break;
	}
	dl.free_dctx(z);
	*produced = out.pos;
	/* more to come when all the input is used: it was cut */
	return !dl.is_err(r) && r && in.pos == in.size ? TB_ERR_TRUNCATED : TB_ERR_VALUE;
}

/* uncompress2 says how much input it used: a stream that is not over
 * when all of it is used ends early (its end, or only its check value,
 * cut). */
tb_status tb_test_zlib(void *ctx, const char *algo, const void *src,
		       size_t src_len, void *dst, size_t dst_cap,
		       size_t *produced)
{
	unsigned long out = (unsigned long)dst_cap, used = (unsigned long)src_len;
	int r;
	(void)ctx;
	if (strcmp(algo, "zlib") != 0)
		return TB_ERR_UNSUPPORTED;
	load();
	if (!dl.zuncomp2)
		return TB_ERR_UNSUPPORTED;
	r = dl.zuncomp2(dst, &out, src, &used);
	*produced = out;
	if (r == 0)
		return TB_OK;
	/* Z_DATA_ERROR (room left) or Z_BUF_ERROR (output full) */
	return (r == -3 || r == -5) && used == src_len ? TB_ERR_TRUNCATED : TB_ERR_VALUE;
}

int tb_test_have_zstd(void)
{
	load();
	return dl.dec != NULL;
}

int tb_test_have_zlib(void)
{
	load();
	return dl.zuncomp2 && dl.zcomp;
}

size_t tb_test_zstd_compress(const void *src, size_t n, void *dst, size_t cap)
{
	size_t r;
	load();
	if (!dl.comp)
		return 0;
	r = dl.comp(dst, cap, src, n, 3);
	return dl.is_err(r) ? 0 : r;
}

size_t tb_test_zlib_compress(const void *src, size_t n, void *dst, size_t cap)
{
	unsigned long out = (unsigned long)cap;
	load();
	if (!dl.zcomp || dl.zcomp(dst, &out, src, (unsigned long)n, 6) != 0)
		return 0;
	return (size_t)out;
}
