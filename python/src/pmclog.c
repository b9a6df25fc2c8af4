/*
 * tracebound.pmclog(path): every record of a FreeBSD hwpmc log as a dict,
 * shaped like `tracebound pmclog --json`'s objects:
 *   {"offset": N, "type": "callchain", "tsc": T | "ts": {...}, "fields": {...}}
 * Records are decoded in batches with the GIL released (the file is mapped
 * and fed whole, so every record's pointers stay inside the mapping).
 */
#include "tbpy.h"

#include <errno.h>
#include <string.h>

#define PMC_BATCH 1024u

static int set_u(PyObject *d, const char *k, uint64_t v)
{
	return tbpy_put(d, k, 1, PyLong_FromUnsignedLongLong(v));
}

static PyObject *timespec(int64_t sec, int64_t nsec)
{
	return Py_BuildValue("{sLsL}", "tv_sec", (long long)sec, "tv_nsec", (long long)nsec);
}

static PyObject *pc_item(const tb_pmclog_event *ev, uint32_t i)
{
	return PyLong_FromUnsignedLongLong(tb_pmclog_cc_slot(ev, i));
}

static PyObject *part_item(const tb_pmclog_event *ev, uint32_t i)
{
	const tb_pmclog_part *pt = &ev->u.cc.parts[i];
	return Py_BuildValue("{sIsIsI}", "type", (unsigned)pt->type, "first", pt->first,
			     "nslots", (unsigned)pt->nslots);
}

/* A list of n items (CALLCHAIN slots, parts). */
static PyObject *list_of(const tb_pmclog_event *ev, uint32_t n,
			 PyObject *(*item)(const tb_pmclog_event *, uint32_t))
{
	PyObject *l = PyList_New(n);
	uint32_t i;
	for (i = 0; l && i < n; i++) {
		PyObject *o = item(ev, i);
		if (!o)
			Py_CLEAR(l);
		else
			PyList_SET_ITEM(l, i, o);
	}
	return l;
}

/* The "fields" object of one record: keys and kinds from the library's
 * record table, as tb_pmclog_json writes them. */
static PyObject *fields(const tb_pmclog_event *ev)
{
	const tb_pmclog_field *f = tb_pmclog_record_of(ev->type)->fields;
	PyObject *d = PyDict_New();
	for (; d && f->kind != TB_PMCLOG_F_END; f++) {
		tb_pmclog_value v;
		PyObject *o;
		if (!f->key || !tb_pmclog_field_on(f, ev))
			continue;
		tb_pmclog_field_get(f, ev, &v);
		switch (f->kind) {
		case TB_PMCLOG_F_I32: o = PyLong_FromLongLong(v.i[0]); break;
		case TB_PMCLOG_F_STR: o = tbpy_str(v.s.ptr, v.s.len); break;
		case TB_PMCLOG_F_TIMESPEC: o = timespec(v.i[0], v.i[1]); break;
		case TB_PMCLOG_F_PCS: o = list_of(ev, ev->u.cc.npc, pc_item); break;
		case TB_PMCLOG_F_PARTS: o = list_of(ev, ev->u.cc.nparts, part_item); break;
		default: o = PyLong_FromUnsignedLongLong(v.u); break;
		}
		if (tbpy_put(d, f->key, 1, o))
			Py_CLEAR(d);
	}
	return d;
}

static PyObject *record(const tb_pmclog_event *ev)
{
	PyObject *d = PyDict_New();
	if (!d)
		return NULL;
	if (set_u(d, "offset", ev->offset) ||
	    tbpy_put(d, "type", 1, PyUnicode_FromString(tb_pmclog_type_name(ev->type))) ||
	    (ev->legacy ? tbpy_put(d, "ts", 1, timespec(ev->ts_sec, ev->ts_nsec))
			: set_u(d, "tsc", ev->tsc)) ||
	    tbpy_put(d, "fields", 1, fields(ev))) {
		Py_DECREF(d);
		return NULL;
	}
	return d;
}

PyObject *tbpy_pmclog(PyObject *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "path", "addr_size", "stop_at_closelog", NULL };
	PyObject *path = NULL, *out = NULL;
	unsigned addr_size = 0;
	int stop = 0, rc;
	tb_input m;
	tb_pmclog *p;
	tb_pmclog_options opt;
	tb_pmclog_event *batch;
	tb_error err;
	tb_status st = TB_OK;
	(void)self;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&|Ip", kwlist, PyUnicode_FSConverter, &path,
					 &addr_size, &stop))
		return NULL;
	if (addr_size != 0 && addr_size != 4 && addr_size != 8) {
		Py_DECREF(path);
		PyErr_SetString(PyExc_ValueError, "addr_size: 0 (guess), 4 or 8");
		return NULL;
	}
	Py_BEGIN_ALLOW_THREADS
	rc = tb_input_load(PyBytes_AS_STRING(path), &m, 0, TBPY_MAX_TEXT);
	Py_END_ALLOW_THREADS
	if (rc) {
		PyErr_SetFromErrnoWithFilenameObject(PyExc_OSError, path);
		Py_DECREF(path);
		return NULL;
	}
	Py_DECREF(path);
	p = PyMem_RawMalloc(sizeof(*p));
	batch = PyMem_RawMalloc(PMC_BATCH * sizeof(*batch));
	out = PyList_New(0);
	if (!p || !batch || !out) {
		if (!PyErr_Occurred())
			PyErr_NoMemory();
		Py_CLEAR(out);
		goto done;
	}
	memset(&opt, 0, sizeof(opt));
	opt.addr_size = addr_size;
	if (stop)
		opt.flags |= TB_PMCLOG_STOP_AT_CLOSELOG;
	if (tb_pmclog_open_buffer(p, &opt, m.data, m.len) != TB_OK) {
		tbpy_raise("pmclog", TB_ERR_ARG, 0, "cannot start the decoder");
		Py_CLEAR(out);
		goto done;
	}
	while (st == TB_OK) {
		size_t n = 0, i;
		Py_BEGIN_ALLOW_THREADS
		while (n < PMC_BATCH && (st = tb_pmclog_next(p, &batch[n], &err)) == TB_OK)
			n++;
		Py_END_ALLOW_THREADS
		for (i = 0; i < n; i++) {
			PyObject *r = record(&batch[i]);
			if (!r || PyList_Append(out, r) < 0) {
				Py_XDECREF(r);
				Py_CLEAR(out);
				goto done;
			}
			Py_DECREF(r);
		}
	}
	if (st == TB_NEED_MORE) /* cannot happen after close: say so, never loop */
		st = TB_ERR_TRUNCATED;
	if (st != TB_END) {
		tbpy_raise("pmclog", err.status ? err.status : st, err.offset, err.what);
		tbpy_raise_attach("records", out); /* the records before the fault */
		Py_CLEAR(out);
	}
done:
	PyMem_RawFree(p);
	PyMem_RawFree(batch);
	tb_input_free(&m);
	return out;
}
