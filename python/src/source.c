/*
 * The input of a session: a trace.dat mapped read-only, or a raw dump
 * directory opened by the library's source rule over host/ (source.h).
 * Opening runs without the GIL: plain C, no Python calls.
 */
#define _DEFAULT_SOURCE
#include "tbpy.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	return 0;
}

/* Open path (without the GIL): 0, or -1 with in->errmsg and errno set. */
static int input_open(tbpy_input *in, const char *path, const char *events_dir)
{
	if (tb_path_is_dir(path))
		return open_raw_dir(in, path, events_dir);
	if (tb_input_load(path, &in->dat, 1, TBPY_MAX_TEXT) != 0)
		return fail(in, "%s: cannot open", path);
	in->is_dat = 1;
	tb_host_source_bytes(&in->src, in->dat.data, in->dat.len, tb_input_fd(&in->dat));
	return 0;
}

/* Unmap and free in. */
static void input_free(tbpy_input *in)
{
	tb_input_free(&in->dat);
	if (in->host)
		tb_host_capture_close(in->host);
	free(in->host);
	PyMem_RawFree(in);
}

tbpy_input *tbpy_input_new(PyObject *path, PyObject *events)
{
	tbpy_input *in = PyMem_RawCalloc(1, sizeof(*in));
	PyObject *a;
	int rc, e;
	if (!in)
		return (tbpy_input *)PyErr_NoMemory();
	Py_BEGIN_ALLOW_THREADS
	rc = input_open(in, PyBytes_AS_STRING(path), events ? PyBytes_AS_STRING(events) : NULL);
	Py_END_ALLOW_THREADS
	if (rc == 0) {
		in->refs = 1;
		return in;
	}
	e = errno ? errno : EINVAL;
	a = Py_BuildValue("(is)", e, in->errmsg);
	if (a) {
		PyErr_SetObject(e == ENOENT ? PyExc_FileNotFoundError : PyExc_OSError, a);
		Py_DECREF(a);
	}
	input_free(in);
	return NULL;
}

void tbpy_input_decref(tbpy_input *in)
{
	if (in && --in->refs <= 0)
		input_free(in);
}
