/*
 * tracebound.check(path): every anomaly of a capture, as `tracebound
 * check` finds them (the library's iterators, check.h): damage outside
 * the event data, damaged pages (the walk goes on past them), events
 * without a format, records their format does not fit; for a pmclog
 * stream the fault that stops it.  The walk runs without the GIL, taken
 * back for each anomaly to make its dict.  An empty list means the
 * capture is sound.
 */
#include "tbpy.h"

#include <string.h>

typedef struct alist {
	PyObject *out;
	size_t limit;
	uint64_t total;
} alist;

PyObject *tbpy_anomaly(const tb_check_anomaly *a, int bare)
{
	int walk = !bare && a->part != TB_CHECK_CAPTURE && a->part != TB_CHECK_STREAM;
	int rec = walk && a->part != TB_CHECK_PAGE;
	const tb_format *f = a->format;
	size_t en = f ? strnlen(f->name, f->name_len < 63 ? f->name_len : 63) : 0;
	PyObject *d = PyDict_New();
	if (d && !tbpy_put(d, "where", 1, PyUnicode_FromString(a->where)) &&
	    !tbpy_put(d, "status", 1, PyUnicode_FromString(tb_strerror(a->error.status))) &&
	    !tbpy_put(d, "offset", 1, PyLong_FromUnsignedLongLong(a->offset)) &&
	    !tbpy_put(d, "what", 1, PyUnicode_FromString(a->error.what ? a->error.what
									: tb_strerror(a->error.status))) &&
	    !tbpy_put(d, "buffer", walk, PyLong_FromUnsignedLong(a->buffer)) &&
	    !tbpy_put(d, "cpu", walk, PyLong_FromUnsignedLong(a->cpu)) &&
	    !tbpy_put(d, "page", walk, PyLong_FromUnsignedLongLong(a->page)) &&
	    !tbpy_put(d, "index", !bare && !walk, PyLong_FromSize_t(a->index)) &&
	    !tbpy_put(d, "id", rec && a->has_id, PyLong_FromUnsignedLong(a->id)) &&
	    !tbpy_put(d, "record", rec, PyLong_FromUnsignedLong(a->record)) &&
	    !tbpy_put(d, "event", en != 0, tbpy_str(f ? f->name : "", en)))
		return d;
	Py_XDECREF(d);
	return NULL;
}

/* a as a dict at the end of l->out, while under the limit: -1 with the
 * error set. */
static int add(alist *l, const tb_check_anomaly *a, int bare)
{
	PyObject *d;
	int rc;
	if (l->total++ >= l->limit)
		return 0;
	if (!(d = tbpy_anomaly(a, bare)))
		return -1;
	rc = PyList_Append(l->out, d);
	Py_DECREF(d);
	return rc;
}

/* An anomaly that is not the iterators': where and what said here. */
static int add_bare(alist *l, const char *where, tb_status st, uint64_t off, const char *what)
{
	tb_check_anomaly a = { .where = where, .offset = off, .error = { .status = st, .what = what } };
	return add(l, &a, 1);
}

/* Every anomaly of c (a session's) or else cs, each step without the GIL. */
static int walk(alist *l, tb_check *c, tb_check_stream *cs)
{
	tb_check_anomaly a;
	tb_status st;
	for (;;) {
		Py_BEGIN_ALLOW_THREADS
		st = c ? tb_check_next(c, &a) : tb_check_stream_next(cs, &a);
		Py_END_ALLOW_THREADS
		if (st != TB_OK)
			return 0;
		if (add(l, &a, 0) != 0)
			return -1;
	}
}

static int check(tbpy_input *in, tb_check_stream *cs, alist *l)
{
	tb_host_zstream zs = { NULL };
	tb_session *s = NULL;
	tb_session_options opt;
	tb_error err;
	tb_check c;
	tb_status st = TB_OK;
	int rc;
	switch (in->is_dat ? tb_check_stream_start(cs, in->dat.data, in->dat.len, NULL, NULL)
			   : TB_CHECK_KIND_SESSION) {
	case TB_CHECK_KIND_SESSION:
		memset(&opt, 0, sizeof(opt));
		opt.flags = TB_SESSION_SKIP_DAMAGED;
		Py_BEGIN_ALLOW_THREADS
		st = tb_session_open(&s, &in->src, &opt, &tbpy_mem, &err);
		if (st == TB_OK && (st = tb_host_perf_zstd(s, &zs, &err)) == TB_ERR_UNSUPPORTED)
			st = TB_OK; /* each COMPRESSED record an anomaly in its place */
		if (st == TB_OK)
			tb_check_init(&c, s);
		Py_END_ALLOW_THREADS
		rc = st == TB_OK ? walk(l, &c, NULL)
				 : add_bare(l, "container", err.status, err.offset, err.what);
		tb_session_close(s);
		tb_host_zstream_free(&zs);
		return rc;
	case TB_CHECK_KIND_PMCLOG:
		(void)tb_check_stream_feed(cs, in->dat.data, in->dat.len);
		tb_check_stream_close(cs);
		return walk(l, NULL, cs);
	case TB_CHECK_KIND_EMPTY: /* as `tracebound check` says it */
		return add_bare(l, "file", TB_ERR_TRUNCATED, 0,
				"empty input (not a trace.dat, a pmclog stream or a raw dump directory)");
	default:
		return add_bare(l, "file", TB_ERR_MAGIC, 0,
				"not recognised (not a trace.dat, a pmclog stream or a raw dump directory)");
	}
}

PyObject *tbpy_check(PyObject *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "path", "events", "limit", NULL };
	PyObject *path = NULL, *events = NULL;
	Py_ssize_t limit = 1000;
	tbpy_input *in;
	tb_check_stream *cs;
	alist l = { NULL, 0, 0 };
	int rc = -1;
	(void)self;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&|O&n", kwlist, PyUnicode_FSConverter, &path,
					 tbpy_fs_or_none, &events, &limit))
		return NULL;
	l.limit = limit < 0 ? 0 : (size_t)limit;
	in = tbpy_input_new(path, events);
	cs = PyMem_RawMalloc(sizeof(*cs));
	if (in && (!cs || !(l.out = PyList_New(0))))
		PyErr_NoMemory();
	if (l.out && (rc = check(in, cs, &l)) == 0 && l.total > l.limit) {
		PyObject *d = Py_BuildValue("{sssKss}", "where", "more", "count",
					    (unsigned long long)(l.total - l.limit), "what",
					    "anomalies past the limit, not listed");
		rc = d ? PyList_Append(l.out, d) : -1;
		Py_XDECREF(d);
	}
	tbpy_input_decref(in);
	PyMem_RawFree(cs);
	Py_XDECREF(path);
	Py_XDECREF(events);
	if (rc != 0)
		Py_CLEAR(l.out);
	return l.out;
}
