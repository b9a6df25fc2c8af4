/*
 * Events: the iterator (batches decoded with the GIL released) and the
 * Event objects it yields, with typed fields and the renderings.
 */
#include "tbpy.h"

#include <string.h>

#define ITER_BATCH 512u            /* events decoded per trip without the GIL */
#define ITER_ARENA (1u << 20)      /* record bytes per trip (more for a huge record) */

/* ---- field values: the library's table rows (rows.h), as Python objects ---- */

static PyObject *num(int is_signed, uint64_t v)
{
	return is_signed ? PyLong_FromLongLong((long long)(int64_t)v)
			 : PyLong_FromUnsignedLongLong(v);
}

/* Column c's value v: an int, a str, a list of ints (bytes: their values) or None. */
static PyObject *field_value(const tb_rows_column *c, const tb_pq_value *v)
{
	PyObject *list;
	size_t i;
	if (v->is_null)
		Py_RETURN_NONE;
	if (c->kind == TB_ROWS_INT)
		return num(c->is_signed, v->i);
	if (c->kind == TB_ROWS_TEXT)
		return tbpy_str(v->p, v->n);
	list = PyList_New((Py_ssize_t)v->n);
	for (i = 0; list && i < v->n; i++) {
		PyObject *o = num(c->is_signed, c->kind == TB_ROWS_BYTES
							? ((const uint8_t *)v->p)[i]
							: tb_rows_elem(v, i, c->is_signed));
		if (!o) {
			Py_CLEAR(list);
			break;
		}
		PyList_SET_ITEM(list, (Py_ssize_t)i, o);
	}
	return list;
}

/* Every field of an event (of a format), under its own name. */
static PyObject *fields_dict(const tb_session *s, const tb_session_event *ev)
{
	const tb_format *f = ev->format;
	size_t n = tb_rows_columns(f, 0, NULL, 0), i, first = 0;
	tb_rows_column *cols = PyMem_Malloc(n * sizeof(*cols));
	tb_pq_value *vals = PyMem_Malloc(n * sizeof(*vals));
	tb_field_value *fv = PyMem_Malloc((f->nfields + 1) * sizeof(*fv));
	PyObject *d = NULL;
	if (!cols || !vals || !fv) {
		PyErr_NoMemory();
		goto out;
	}
	(void)tb_rows_columns(f, 0, cols, n);
	while (first < n && cols[first].source != TB_ROWS_FIELD)
		first++; /* the session's columns: not fields */
	/* a field the record does not hold is None (the status only says
	 * that one did not read) */
	(void)tb_rows_values(s, ev, cols + first, n - first, fv, f->nfields, vals + first);
	d = PyDict_New();
	for (i = first; d && i < n; i++) {
		const tb_field *fl = &f->fields[cols[i].field];
		PyObject *k = tbpy_str(fl->name, fl->name_len);
		PyObject *v = k ? field_value(&cols[i], &vals[i]) : NULL;
		if (!v || PyDict_SetItem(d, k, v) < 0)
			Py_CLEAR(d);
		Py_XDECREF(k);
		Py_XDECREF(v);
	}
out:
	PyMem_Free(cols);
	PyMem_Free(vals);
	PyMem_Free(fv);
	return d;
}

/* ---- Event ---- */

typedef struct tbpy_event {
	PyObject_HEAD
	tbpy_sess *ss;        /* keeps the format and comm valid */
	PyObject *data;       /* bytes: the record, from common_type on */
	PyObject *comm;       /* str */
	PyObject *names;      /* (system, name) or None */
	PyObject *fields;     /* dict, made on first use */
	tb_session_event ev;  /* ev.data points into `data` */
} tbpy_event;

static void event_dealloc(tbpy_event *e)
{
	Py_XDECREF(e->ss);
	Py_XDECREF(e->data);
	Py_XDECREF(e->comm);
	Py_XDECREF(e->names);
	Py_XDECREF(e->fields);
	PyObject_Free(e);
}

/* system (0) or name (1): None without a format */
static PyObject *event_get_names(tbpy_event *e, void *i)
{
	if (e->names == Py_None)
		Py_RETURN_NONE;
	return Py_NewRef(PyTuple_GET_ITEM(e->names, (Py_ssize_t)(intptr_t)i));
}

static PyObject *event_get_fields(tbpy_event *e, void *c)
{
	(void)c;
	if (!e->ev.format || e->ev.kind != TB_SEV_EVENT)
		return PyDict_New();
	if (!e->fields)
		e->fields = fields_dict(e->ss->s, &e->ev);
	return e->fields ? Py_NewRef(e->fields) : NULL;
}

static PyObject *event_getitem(tbpy_event *e, PyObject *key)
{
	PyObject *f = event_get_fields(e, NULL), *v;
	if (!f)
		return NULL;
	v = PyDict_GetItemWithError(f, key);
	if (v)
		Py_INCREF(v);
	else if (!PyErr_Occurred())
		PyErr_SetObject(PyExc_KeyError, key);
	Py_DECREF(f);
	return v;
}

/* tb_grow_fn for event_text: the stack buffer's one replacement, from
 * the raw allocator (the GIL is released), below 1 GiB. */
typedef struct text_grow_ctx {
	char *small;
	int nomem;
} text_grow_ctx;

static int text_grow(void *ctx, char **buf, size_t *cap, size_t want)
{
	text_grow_ctx *g = ctx;
	char *p;
	if (*buf != g->small || want > ((size_t)1 << 30))
		return -1;
	p = PyMem_RawMalloc(want);
	if (!p) {
		g->nomem = 1;
		return -1;
	}
	*buf = p;
	*cap = want;
	return 0;
}

static PyObject *event_text(tbpy_event *e, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "kind", NULL };
	static const struct { const char *kind; unsigned how; } kinds[] = {
		{ "print", TB_TEXT_PRINT }, { "fields", TB_TEXT_FIELDS },
		{ "line", TB_TEXT_PRINT | TB_TEXT_LINE }, { "raw-line", TB_TEXT_FIELDS | TB_TEXT_LINE },
		{ "json", TB_TEXT_JSON | TB_TEXT_WITH_PRINT },
	};
	const char *kind = "print";
	unsigned how, k;
	char small[2048], *buf = small;
	size_t cap = sizeof(small), n;
	tb_render_result res;
	text_grow_ctx g = { small, 0 };
	tb_status st;
	PyObject *out = NULL;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "|s", kwlist, &kind))
		return NULL;
	for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]) && strcmp(kind, kinds[k].kind); k++)
		;
	if (k == sizeof(kinds) / sizeof(kinds[0])) {
		PyErr_Format(PyExc_ValueError,
			     "kind: 'print', 'fields', 'line', 'raw-line' or 'json', not %R",
			     PyTuple_Size(args) ? PyTuple_GET_ITEM(args, 0) : Py_None);
		return NULL;
	}
	how = kinds[k].how;
	memset(&res, 0, sizeof(res));
	Py_BEGIN_ALLOW_THREADS
	PyThread_acquire_lock(e->ss->lock, WAIT_LOCK);
	st = tb_session_text_grow(e->ss->s, &e->ev, how, &buf, &cap, text_grow, &g, &res);
	PyThread_release_lock(e->ss->lock);
	Py_END_ALLOW_THREADS
	if (g.nomem) {
		PyErr_NoMemory();
	} else if (st != TB_OK && st != TB_ERR_NO_SPACE) {
		tbpy_raise("rendering", st, 0, NULL);
	} else if (st == TB_ERR_NO_SPACE && res.needed == 0) {
		tbpy_raise("rendering", st, 0, /* no program for this rendering */
			   "the session has no program for this rendering "
			   "(out of memory, or a kind it lacks)");
	} else {
		n = res.len < cap ? res.len : cap - 1;
		/* a line is a str like any other: the '\n' that ends it in
		 * a report is the printer's (print() adds its own) */
		if ((how & TB_TEXT_LINE) && n && buf[n - 1] == '\n')
			n--;
		out = tbpy_str(buf, n);
	}
	if (buf != small)
		PyMem_RawFree(buf);
	return out;
}

static PyObject *event_repr(tbpy_event *e)
{
	PyObject *name = e->names == Py_None ? NULL : PyTuple_GET_ITEM(e->names, 1);
	PyObject *comm = e->comm == Py_None ? PyUnicode_FromString("<...>") : Py_NewRef(e->comm);
	PyObject *r;
	if (!comm)
		return NULL;
	if (name)
		r = PyUnicode_FromFormat("<Event ts=%llu cpu=%u %U-%d %U>",
					 (unsigned long long)e->ev.ts, e->ev.cpu, comm,
					 (int)e->ev.pid, name);
	else
		r = PyUnicode_FromFormat("<Event ts=%llu cpu=%u %U-%d id=%u (no format)>",
					 (unsigned long long)e->ev.ts, e->ev.cpu, comm,
					 (int)e->ev.pid, e->ev.id);
	Py_DECREF(comm);
	return r;
}

static PyObject *event_as_dict(tbpy_event *e, PyObject *noargs)
{
	PyObject *f = event_get_fields(e, NULL), *d;
	(void)noargs;
	if (!f)
		return NULL;
	d = Py_BuildValue("{sIsKsisOsOsOsIsN}", "cpu", e->ev.cpu, "ts",
			  (unsigned long long)e->ev.ts, "pid", (int)e->ev.pid, "comm", e->comm,
			  "system",
			  e->names == Py_None ? Py_None : PyTuple_GET_ITEM(e->names, 0), "name",
			  e->names == Py_None ? Py_None : PyTuple_GET_ITEM(e->names, 1), "id",
			  e->ev.id, "fields", f);
	return d;
}

static PyMethodDef event_methods[] = {
	{ "text", TBPY_KW(event_text),
	  "text(kind='print') -> str\n\n"
	  "'print': the event's print fmt rendered as the kernel renders it;\n"
	  "'fields': trace-cmd -R's ' name=value' listing; 'line' / 'raw-line':\n"
	  "the whole trace-cmd report line of either; 'json': one JSON object." },
	{ "as_dict", (PyCFunction)event_as_dict, METH_NOARGS,
	  "as_dict() -> {cpu, ts, pid, comm, system, name, id, fields}" },
	{ NULL, NULL, 0, NULL }
};

static PyGetSetDef event_getset[] = {
	{ "system", (getter)event_get_names, NULL, "event system, None without a format", (void *)0 },
	{ "name", (getter)event_get_names, NULL, "event name, None without a format", (void *)1 },
	{ "fields", (getter)event_get_fields, NULL, "every field, typed (dict)", NULL },
	{ NULL, NULL, NULL, NULL, NULL }
};

static PyMemberDef event_members[] = {
	{ "comm", T_OBJECT, offsetof(tbpy_event, comm), READONLY,
	  "the task's comm from the saved cmdlines, '<idle>' for pid 0, None when unknown" },
	{ "data", T_OBJECT, offsetof(tbpy_event, data), READONLY, "the record's bytes" },
	{ "ts", T_ULONGLONG, offsetof(tbpy_event, ev.ts), READONLY,
	  "timestamp in the file's clock units, its offset applied" },
	{ "cpu", T_UINT, offsetof(tbpy_event, ev.cpu), READONLY, "CPU" },
	{ "pid", T_INT, offsetof(tbpy_event, ev.pid), READONLY, "common_pid" },
	{ "id", T_UINT, offsetof(tbpy_event, ev.id), READONLY, "common_type" },
	{ "buffer", T_UINT, offsetof(tbpy_event, ev.buffer), READONLY,
	  "buffer (instance) index" },
	{ "missed", T_LONGLONG, offsetof(tbpy_event, ev.missed), READONLY,
	  "events dropped just before on its CPU: 0, -1 unknown, n" },
	{ "subbuf", T_ULONGLONG, offsetof(tbpy_event, ev.page_index), READONLY,
	  "the sub-buffer (page) it was read from, counted from 0 on its CPU" },
	{ "offset", T_UINT, offsetof(tbpy_event, ev.offset), READONLY,
	  "the record's byte offset in that sub-buffer" },
	{ NULL, 0, 0, 0, NULL }
};

static PyMappingMethods event_mapping = {
	.mp_subscript = (binaryfunc)event_getitem,
};

PyTypeObject tbpy_EventType = {
	TBPY_TYPE("tracebound.Event", tbpy_event, event_dealloc),
	.tp_repr = (reprfunc)event_repr,
	.tp_as_mapping = &event_mapping,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "One event of a capture (event['field'] reads a field).",
	.tp_methods = event_methods,
	.tp_getset = event_getset,
	.tp_members = event_members,
};

/* ---- the iterator ---- */

typedef struct tbpy_iter {
	PyObject_HEAD
	tbpy_sess *ss;            /* the walk's session (NULL when finished) */
	tbpy_filter f;
	tb_session_event *batch;
	size_t *off;              /* record bytes of batch[i] at arena + off[i] */
	size_t n, pos;
	tbpy_gbuf arena;
	int pending;              /* 0, or 1: `st` / `err` end the batch */
	tb_status st;
	tb_error err;
	uint64_t ndamaged;
	/* names and comms are shared, not rebuilt: format or comm -> index in objs */
	tbpy_ptab names, comms;
	PyObject *objs;
} tbpy_iter;

static void iter_finish(tbpy_iter *it)
{
	if (it->ss) {
		tbpy_walker_put(it->ss);
		it->ss = NULL;
	}
	tbpy_filter_free(&it->f);
	PyMem_RawFree(it->batch);
	PyMem_RawFree(it->off);
	PyMem_RawFree(it->arena.p);
	it->batch = NULL;
	it->off = NULL;
	memset(&it->arena, 0, sizeof(it->arena));
	it->n = it->pos = 0;
}

static void iter_dealloc(tbpy_iter *it)
{
	iter_finish(it);
	tbpy_ptab_free(&it->names);
	tbpy_ptab_free(&it->comms);
	Py_XDECREF(it->objs);
	PyObject_Free(it);
}

/* Decode the next batch (no GIL, the session's lock held): 0, -1 no memory. */
static int fill(tbpy_iter *it)
{
	it->n = it->pos = 0;
	it->arena.len = 0;
	while (it->n < ITER_BATCH && it->arena.len < ITER_ARENA) {
		tb_session_event *ev = &it->batch[it->n];
		tb_status st = tbpy_next(it->ss->s, &it->f, ev, &it->ndamaged, &it->err);
		if (st != TB_OK) {
			it->pending = 1;
			it->st = st;
			break;
		}
		it->off[it->n] = it->arena.len;
		if (tbpy_gbuf_put(&it->arena, ev->data, ev->len))
			return -1;
		it->n++;
	}
	return 0;
}

/* The object kept in t under key, or NULL. */
static PyObject *cached(tbpy_iter *it, tbpy_ptab *t, const void *key)
{
	uint64_t *v = tbpy_ptab_at(t, key, 0);
	return v ? Py_NewRef(PyList_GET_ITEM(it->objs, (Py_ssize_t)*v)) : NULL;
}

/* Keep o (may be NULL after an error) in t under key: o, or NULL. */
static PyObject *keep(tbpy_iter *it, tbpy_ptab *t, const void *key, PyObject *o)
{
	uint64_t *v;
	if (!o || PyList_Append(it->objs, o) < 0 || !(v = tbpy_ptab_at(t, key, 1))) {
		Py_XDECREF(o);
		return PyErr_Occurred() ? NULL : PyErr_NoMemory();
	}
	*v = (uint64_t)(PyList_GET_SIZE(it->objs) - 1);
	return o;
}

static PyObject *names_of(tbpy_iter *it, const tb_format *f)
{
	PyObject *o;
	if (!f)
		return Py_NewRef(Py_None);
	o = cached(it, &it->names, f);
	return o ? o : keep(it, &it->names, f, Py_BuildValue("(NN)", tbpy_str(f->system, f->system_len),
							     tbpy_str(f->name, f->name_len)));
}

/* The comm as the library's JSON gives it: None when the capture does not
 * know it ("<...>" in report lines), "<idle>" for pid 0. */
static PyObject *comm_of(tbpy_iter *it, const tb_session_event *ev)
{
	PyObject *o;
	if (!ev->comm_known && ev->pid != 0)
		return Py_NewRef(Py_None);
	if (!ev->comm)
		return tbpy_str(NULL, 0);
	o = cached(it, &it->comms, ev->comm);
	return o ? o : keep(it, &it->comms, ev->comm, tbpy_str(ev->comm, ev->comm_len));
}

static PyObject *make_event(tbpy_iter *it, size_t i)
{
	tbpy_event *e = PyObject_New(tbpy_event, &tbpy_EventType);
	const tb_session_event *src = &it->batch[i];
	if (!e)
		return NULL;
	e->ss = NULL;
	e->comm = e->names = e->fields = NULL;
	e->ev = *src;
	e->data = PyBytes_FromStringAndSize((const char *)it->arena.p + it->off[i],
					    (Py_ssize_t)src->len);
	if (!e->data)
		goto fail;
	e->ev.data = (const uint8_t *)PyBytes_AS_STRING(e->data);
	e->comm = comm_of(it, src);
	e->names = names_of(it, src->format);
	if (!e->comm || !e->names)
		goto fail;
	e->ss = (tbpy_sess *)Py_NewRef(it->ss);
	return (PyObject *)e;
fail:
	Py_DECREF(e);
	return NULL;
}

static PyObject *iter_next(tbpy_iter *it)
{
	int rc;
	for (;;) {
		if (it->pos < it->n) {
			PyObject *e = make_event(it, it->pos);
			if (e)
				it->pos++;
			return e;
		}
		if (!it->ss)
			return NULL;
		if (it->pending) {
			it->pending = 0;
			if (it->st == TB_END) {
				iter_finish(it);
				return NULL;
			}
			/* one page failed: raise; a next() goes on after it */
			return tbpy_raise_walk(it->ss->s, &it->err);
		}
		Py_BEGIN_ALLOW_THREADS
		PyThread_acquire_lock(it->ss->lock, WAIT_LOCK);
		rc = fill(it);
		PyThread_release_lock(it->ss->lock);
		Py_END_ALLOW_THREADS
		if (rc)
			return PyErr_NoMemory();
	}
}

static PyMemberDef iter_members[] = {
	{ "damaged_pages", T_ULONGLONG, offsetof(tbpy_iter, ndamaged), READONLY,
	  "pages skipped as damaged so far (skip_damaged=True)" },
	{ NULL, 0, 0, 0, NULL }
};

PyTypeObject tbpy_EventIterType = {
	TBPY_TYPE("tracebound.EventIterator", tbpy_iter, iter_dealloc),
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "Events of a Trace, merged by time (Trace.events()).",
	.tp_iter = PyObject_SelfIter,
	.tp_iternext = (iternextfunc)iter_next,
	.tp_members = iter_members,
};

PyObject *tbpy_events_new(tbpy_trace *t, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "name", "cpus", "start", "end", NULL };
	PyObject *name = NULL, *cpus = NULL, *start = NULL, *end = NULL;
	tbpy_iter *it;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "|OOOO", kwlist, &name, &cpus, &start, &end))
		return NULL;
	it = PyObject_New(tbpy_iter, &tbpy_EventIterType);
	if (!it)
		return NULL;
	memset((char *)it + sizeof(PyObject), 0, sizeof(*it) - sizeof(PyObject));
	it->ss = tbpy_walker_get(t);
	if (!it->ss) {
		Py_DECREF(it);
		return NULL;
	}
	if (tbpy_filter_parse(it->ss, &it->f, name, cpus, start, end)) {
		Py_DECREF(it);
		return NULL;
	}
	it->batch = PyMem_RawMalloc(ITER_BATCH * sizeof(*it->batch));
	it->off = PyMem_RawMalloc(ITER_BATCH * sizeof(*it->off));
	it->objs = PyList_New(0);
	if (!it->batch || !it->off || tbpy_gbuf_reserve(&it->arena, ITER_ARENA + 65536) ||
	    !it->objs) {
		Py_DECREF(it);
		return PyErr_NoMemory();
	}
	return (PyObject *)it;
}
