/* host/: the file access of a library source (files.h, source.h). */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "codec.h"
#include "files.h"

/* errno as a status, kept for the message. */
static tb_status io_status(tb_host_capture *c, int e)
{
	c->err = e;
	return e == ENOENT || e == ENOTDIR ? TB_NOT_FOUND
	       : e == ENOMEM		    ? TB_ERR_NO_SPACE
	       : e == EFBIG		    ? TB_ERR_LIMIT
				      : TB_ERR_ARG;
}

static tb_status host_load(void *ctx, const char *path, const void **data, size_t *len)
{
	tb_host_capture *c = ctx;
	int keep = c->keep_fd && !strcmp(path, c->keep_fd);
	c->err = 0; /* errno of this call's failure only */
	if (c->nfiles == c->cap) {
		size_t nc = c->cap ? c->cap * 2 : 64;
		tb_input *nf = realloc(c->files, nc * sizeof(*nf));
		if (!nf)
			return io_status(c, ENOMEM);
		c->files = nf;
		c->cap = nc;
	}
	if (tb_input_load(path, &c->files[c->nfiles], keep, c->max_read) != 0)
		return io_status(c, errno);
	*data = c->files[c->nfiles].data;
	*len = c->files[c->nfiles].len;
	c->nfiles++;
	return TB_OK;
}

static void listing_free(tb_host_listing *l)
{
	tb_names_free(l->names, l->nnames);
	free(l->dir);
	memset(l, 0, sizeof(*l));
}

/* path's names: a slot that holds them, else the older slot listed again. */
static tb_status listing_of(tb_host_capture *c, const char *path, tb_host_listing **out)
{
	tb_host_listing *l;
	unsigned i;
	for (i = 0; i < 2; i++)
		if (c->listed[i].dir && !strcmp(c->listed[i].dir, path)) {
			c->last = i;
			*out = &c->listed[i];
			return TB_OK;
		}
	c->last ^= 1u;
	l = &c->listed[c->last];
	listing_free(l);
	if (!tb_path_is_dir(path)) {
		struct stat st;
		c->err = stat(path, &st) == 0 ? ENOTDIR : errno;
		return TB_NOT_FOUND;
	}
	if (!(l->names = tb_dir_names(path, 0, &l->nnames)))
		return io_status(c, errno);
	if (!(l->dir = strdup(path))) {
		listing_free(l);
		return io_status(c, ENOMEM);
	}
	*out = l;
	return TB_OK;
}

static tb_status host_list(void *ctx, const char *path, size_t index, char *name, size_t cap,
			   int *is_dir)
{
	tb_host_capture *c = ctx;
	tb_host_listing *l;
	tb_status st;
	char *p;
	c->err = 0;
	if ((st = listing_of(c, path, &l)) != TB_OK)
		return st;
	if (index >= l->nnames)
		return TB_END;
	if (strlen(l->names[index]) >= cap)
		return io_status(c, ENAMETOOLONG);
	strcpy(name, l->names[index]);
	if (!(p = tb_path_join(path, name)))
		return io_status(c, ENOMEM);
	*is_dir = tb_path_is_dir(p);
	free(p);
	return TB_OK;
}

tb_status tb_host_capture_open(tb_host_capture *c, const tb_source_desc *d, const tb_mem *mem,
			       size_t max_read, tb_error *err)
{
	tb_source_io io = { host_load, host_list, NULL };
	tb_status st;
	memset(c, 0, sizeof(*c));
	io.ctx = c;
	c->max_read = max_read;
	c->keep_fd = d->path;
	st = tb_source_open(&c->source, d, &io, mem, err);
	if (st == TB_OK && c->source.kind == TB_SOURCE_DAT && c->nfiles == 1 &&
	    tb_input_fd(&c->files[0]) >= 0) {
		/* CPU data through reused buffers, not the mapping (tracedat.h) */
		c->source.src.read = tb_file_pread;
		c->source.src.read_ctx = (void *)(intptr_t)tb_input_fd(&c->files[0]);
	}
	return st;
}

void tb_host_capture_close(tb_host_capture *c)
{
	size_t i;
	tb_source_close(&c->source);
	for (i = 0; i < c->nfiles; i++)
		tb_input_free(&c->files[i]);
	free(c->files);
	listing_free(&c->listed[0]);
	listing_free(&c->listed[1]);
	memset(c, 0, sizeof(*c));
}

void tb_host_capture_message(const tb_host_capture *c, const tb_error *e, char *buf, size_t cap)
{
	const char *part = c->source.part[0] ? c->source.part : "(source)";
	if (e->status == TB_NOT_FOUND && !c->err)
		snprintf(buf, cap, "%s: %s", part, e->what);
	else if (c->err && (e->status == TB_NOT_FOUND || e->status == TB_ERR_ARG))
		snprintf(buf, cap, "%s: %s (%s)", part, e->what, strerror(c->err));
	else if (e->offset)
		snprintf(buf, cap, "%s: byte %llu: %s (%s)", part, (unsigned long long)e->offset,
			 e->what, tb_strerror(e->status));
	else
		snprintf(buf, cap, "%s: %s (%s)", part, e->what, tb_strerror(e->status));
}

void tb_host_source_bytes(tb_session_source *src, const uint8_t *data, size_t len, int fd)
{
	memset(src, 0, sizeof(*src));
	src->decompress.fn = tb_host_decompress;
	if (tb_perf_probe(data, len)) {
		src->perf = data;
		src->perf_len = len;
	} else {
		src->dat = data;
		src->dat_len = len;
	}
	if (fd >= 0) {
		src->read = tb_file_pread;
		src->read_ctx = (void *)(intptr_t)fd;
	}
}
