/*
 * The input of a session: a trace.dat mapped read-only, or a raw dump
 * directory opened by the library's source rule over host/ (source.h).
 * Runs without the GIL: plain C, no Python calls.
 */
#define _DEFAULT_SOURCE
#include "tbpy.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TBPY_MAX_TEXT (64u << 20)   /* a format, table or header text */

int tbpy_map_file(const char *path, tbpy_map *m)
{
	return tb_input_load(path, m, 0, TBPY_MAX_TEXT);
}

int tbpy_map_capture(const char *path, tbpy_map *m)
{
	return tb_input_load(path, m, 1, TBPY_MAX_TEXT);
}

void tbpy_unmap(tbpy_map *m)
{
	tb_input_free(m);
}

/* ---- raw dump directories: the library's one rule (source.h) ---- */

static int fail(tbpy_input *in, const char *fmt, const char *a)
{
	int e = errno;
	snprintf(in->errmsg, sizeof(in->errmsg), fmt, a);
	errno = e;
	return -1;
}

static int open_raw_dir(tbpy_input *in, const char *path, const char *events_dir)
{
	tb_source_desc d;
	tb_error e;
	memset(&d, 0, sizeof(d));
	d.path = path;
	d.events = events_dir;
	if (!(in->host = calloc(1, sizeof(*in->host)))) {
		errno = ENOMEM;
		return fail(in, "%s: out of memory", path);
	}
	if (tb_host_capture_open(in->host, &d, &tbpy_mem, TBPY_MAX_TEXT, &e) != TB_OK) {
		tb_host_capture_message(in->host, &e, in->errmsg, sizeof(in->errmsg));
		errno = in->host->err ? in->host->err : EINVAL;
		return -1;
	}
	if (!in->host->source.events_found) {
		errno = ENOENT;
		return fail(in, "%s: raw dumps need their event formats: pass events=DIR "
				"(laid out like /sys/kernel/tracing/events)", path);
	}
	if (!in->host->source.src.nformats) {
		errno = ENOENT;
		return fail(in, "%s: no <system>/<event>/format files", path);
	}
	in->src = in->host->source.src;
	in->raw = in->src.raw;
	in->nraw = in->src.nraw;
	return 0;
}

int tbpy_input_open(tbpy_input *in, const char *path, const char *events_dir)
{
	memset(in, 0, sizeof(*in));
	if (tb_path_is_dir(path)) {
		int rc = open_raw_dir(in, path, events_dir);
		if (rc) {
			char msg[sizeof(in->errmsg)];
			int e = errno;
			memcpy(msg, in->errmsg, sizeof(msg));
			tbpy_input_close(in);
			memcpy(in->errmsg, msg, sizeof(msg));
			errno = e;
		}
		return rc;
	}
	if (tbpy_map_capture(path, &in->dat) != 0)
		return fail(in, "%s: cannot open", path);
	in->is_dat = 1;
	tb_host_source_bytes(&in->src, in->dat.data, in->dat.len, tb_input_fd(&in->dat));
	return 0;
}

void tbpy_input_close(tbpy_input *in)
{
	tbpy_unmap(&in->dat);
	if (in->host)
		tb_host_capture_close(in->host);
	free(in->host);
	memset(in, 0, sizeof(*in));
}

void tbpy_input_decref(tbpy_input *in)
{
	if (in && --in->refs <= 0) {
		tbpy_input_close(in);
		free(in);
	}
}
