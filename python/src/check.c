/*
 * tracebound.check(path): every anomaly of a capture, as `tracebound
 * check` finds them: damage outside the event data, damaged pages (the
 * walk goes on past them), events without a format, records their format
 * does not fit; for a pmclog stream the fault that stops it.  The walk
 * runs without the GIL; anomalies are collected in C, then turned into
 * dicts.  An empty list means the capture is sound.
 */
#include "tbpy.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

typedef struct anomaly {
	const char *where;       /* static */
	tb_status status;
	uint64_t offset;         /* file offset (or in the CPU's dump) */
	const char *what;        /* static */
	int64_t buffer, cpu, page, index, id;
	int64_t record;          /* record offset in its page, or -1 */
	char event[64];          /* the event's name: copied, the session goes first */
} anomaly;

typedef struct alist {
	anomaly *v;
	size_t n, cap, limit;
	uint64_t total;
	int oom;
} alist;

static anomaly *add(alist *l, const char *where, tb_status st, uint64_t off, const char *what)
{
	anomaly *a;
	l->total++;
	if (l->n >= l->limit)
		return NULL;
	if (l->n == l->cap) {
		size_t nc = l->cap ? l->cap * 2 : 64;
		anomaly *nv = PyMem_RawRealloc(l->v, nc * sizeof(*nv));
		if (!nv) {
			l->oom = 1;
			return NULL;
		}
		l->v = nv;
		l->cap = nc;
	}
	a = &l->v[l->n++];
	a->where = where;
	a->status = st;
	a->offset = off;
	a->what = what ? what : tb_strerror(st);
	a->buffer = a->cpu = a->page = a->index = a->id = a->record = -1;
	a->event[0] = 0;
	return a;
}

/* The library's check (check.h), each anomaly kept as a dict will say it. */
static void walk_session(tb_session *s, alist *l)
{
	tb_check c;
	tb_check_anomaly a;
	tb_check_init(&c, s);
	while (tb_check_next(&c, &a) == TB_OK) {
		anomaly *k = add(l, a.where, a.error.status, a.offset, a.error.what);
		if (!k)
			continue;
		if (a.part == TB_CHECK_CAPTURE) {
			k->index = (int64_t)a.index;
			continue;
		}
		k->buffer = a.buffer;
		k->cpu = a.cpu;
		k->page = (int64_t)a.page;
		if (a.part == TB_CHECK_PAGE)
			continue;
		k->record = a.record;
		if (a.has_id)
			k->id = a.id;
		if (a.format)
			snprintf(k->event, sizeof(k->event), "%.*s",
				 (int)(a.format->name_len < 63 ? a.format->name_len : 63),
				 a.format->name);
	}
}

static void walk_pmclog(const tbpy_map *m, alist *l, uint64_t *records)
{
	tb_pmclog *p = PyMem_RawMalloc(sizeof(*p));
	tb_pmclog_event ev;
	tb_error err;
	tb_status st;
	if (!p) {
		l->oom = 1;
		return;
	}
	(void)tb_pmclog_open_buffer(p, NULL, m->data, m->len);
	while ((st = tb_pmclog_next(p, &ev, &err)) == TB_OK)
		(*records)++;
	if (st != TB_END) {
		anomaly *a = add(l, "pmclog", err.status, err.offset, err.what);
		if (a)
			a->index = (int64_t)*records; /* records before the fault */
	}
	PyMem_RawFree(p);
}

static int looks_pmclog(const tbpy_map *m)
{
	tb_pmclog *p = PyMem_RawMalloc(sizeof(*p));
	tb_pmclog_event ev;
	tb_error e;
	int yes = 0;
	if (!p)
		return 0;
	if (tb_pmclog_open_buffer(p, NULL, m->data, m->len) == TB_OK)
		yes = tb_pmclog_next(p, &ev, &e) == TB_OK && ev.type == TB_PMCLOG_INITIALIZE;
	PyMem_RawFree(p);
	return yes;
}

static int put(PyObject *d, const char *k, PyObject *v)
{
	int rc;
	if (!v)
		return -1;
	rc = PyDict_SetItemString(d, k, v);
	Py_DECREF(v);
	return rc;
}

static PyObject *to_dict(const anomaly *a)
{
	PyObject *d = PyDict_New();
	if (!d)
		return NULL;
	if (put(d, "where", PyUnicode_FromString(a->where)) ||
	    put(d, "status", PyUnicode_FromString(tb_strerror(a->status))) ||
	    put(d, "offset", PyLong_FromUnsignedLongLong(a->offset)) ||
	    put(d, "what", PyUnicode_FromString(a->what)) ||
	    (a->buffer >= 0 && put(d, "buffer", PyLong_FromLongLong(a->buffer))) ||
	    (a->cpu >= 0 && put(d, "cpu", PyLong_FromLongLong(a->cpu))) ||
	    (a->page >= 0 && put(d, "page", PyLong_FromLongLong(a->page))) ||
	    (a->index >= 0 && put(d, "index", PyLong_FromLongLong(a->index))) ||
	    (a->id >= 0 && put(d, "id", PyLong_FromLongLong(a->id))) ||
	    (a->record >= 0 && put(d, "record", PyLong_FromLongLong(a->record))) ||
	    (a->event[0] && put(d, "event", tbpy_str(a->event, strlen(a->event))))) {
		Py_DECREF(d);
		return NULL;
	}
	return d;
}

PyObject *tbpy_check(PyObject *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "path", "events", "limit", NULL };
	PyObject *path = NULL, *events = NULL, *out = NULL;
	Py_ssize_t limit = 1000;
	tbpy_input *in;
	alist l;
	int rc, kind = 0; /* 1 capture, 2 pmclog, 3 neither, 4 an empty file */
	tb_status st = TB_OK;
	tb_error err;
	uint64_t records = 0;
	size_t i;
	(void)self;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&|O&n", kwlist, PyUnicode_FSConverter, &path,
					 tbpy_fs_or_none, &events, &limit))
		return NULL;
	memset(&l, 0, sizeof(l));
	memset(&err, 0, sizeof(err));
	l.limit = limit < 0 ? 0 : (size_t)limit;
	in = PyMem_RawCalloc(1, sizeof(*in));
	if (!in) {
		Py_XDECREF(path);
		Py_XDECREF(events);
		return PyErr_NoMemory();
	}
	Py_BEGIN_ALLOW_THREADS
	rc = tbpy_input_open(in, PyBytes_AS_STRING(path), events ? PyBytes_AS_STRING(events) : NULL);
	if (rc == 0) {
		if (in->is_dat && in->dat.len == 0)
			kind = 4;
		else if (!in->is_dat || tb_dat_probe(in->dat.data, in->dat.len) ||
			 tb_perf_probe(in->dat.data, in->dat.len))
			kind = 1;
		else if (looks_pmclog(&in->dat))
			kind = 2;
		else
			kind = 3;
		if (kind == 1) {
			tb_session *s = NULL;
			tb_session_options opt;
			memset(&opt, 0, sizeof(opt));
			opt.flags = TB_SESSION_SKIP_DAMAGED;
			tb_host_zstream zs = { NULL };
			st = tb_session_open(&s, &in->src, &opt, &tbpy_mem, &err);
			if (st == TB_OK && (st = tb_host_perf_zstd(s, &zs, &err)) == TB_ERR_UNSUPPORTED)
				st = TB_OK; /* each COMPRESSED record an anomaly in its place */
			if (st == TB_OK)
				walk_session(s, &l);
			else
				(void)add(&l, "container", st, err.offset, err.what);
			tb_session_close(s);
			tb_host_zstream_free(&zs);
		} else if (kind == 2) {
			walk_pmclog(&in->dat, &l, &records);
		} else if (kind == 4) {
			/* as `tracebound check` says it */
			(void)add(&l, "file", TB_ERR_TRUNCATED, 0,
				  "empty input (not a trace.dat, a pmclog stream or a raw dump directory)");
		} else {
			(void)add(&l, "file", TB_ERR_MAGIC, 0,
				  "not recognised (not a trace.dat, a pmclog stream or a raw dump directory)");
		}
	}
	Py_END_ALLOW_THREADS
	if (rc != 0) {
		int e = errno ? errno : EINVAL;
		PyObject *a = Py_BuildValue("(is)", e, in->errmsg);
		if (a) {
			PyErr_SetObject(e == ENOENT ? PyExc_FileNotFoundError : PyExc_OSError, a);
			Py_DECREF(a);
		}
		goto done;
	}
	if (l.oom) {
		PyErr_NoMemory();
		goto done;
	}
	out = PyList_New(0);
	for (i = 0; out && i < l.n; i++) {
		PyObject *d = to_dict(&l.v[i]);
		if (!d || PyList_Append(out, d) < 0) {
			Py_XDECREF(d);
			Py_CLEAR(out);
		} else {
			Py_DECREF(d);
		}
	}
	if (out && l.total > l.n) {
		PyObject *d = Py_BuildValue("{sssKss}", "where", "more", "count",
					    (unsigned long long)(l.total - l.n), "what",
					    "anomalies past the limit, not listed");
		if (!d || PyList_Append(out, d) < 0)
			Py_CLEAR(out);
		Py_XDECREF(d);
	}
done:
	tbpy_input_close(in);
	PyMem_RawFree(in);
	PyMem_RawFree(l.v);
	Py_XDECREF(path);
	Py_XDECREF(events);
	return out;
}
