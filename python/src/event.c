/*
 * Events: the iterator (batches decoded with the GIL released) and the
 * Event objects it yields, with typed fields and the renderings.
 */
#include "tbpy.h"

#include <string.h>

#define ITER_BATCH 512u            /* events decoded per trip without the GIL */
#define ITER_ARENA (1u << 20)      /* record bytes per trip (more for a huge record) */

/* ---- a pointer -> object cache (names and comms are shared, not rebuilt) ---- */

typedef struct pcache_slot {
	const void *key;
	PyObject *obj;
} pcache_slot;

typedef struct pcache {
	pcache_slot *v;
	size_t cap, used;
} pcache;

static PyObject *pcache_get(pcache *c, const void *key)
{
	size_t h;
	if (!c->cap)
		return NULL;
	h = ((uintptr_t)key >> 3) & (c->cap - 1);
	while (c->v[h].key) {
		if (c->v[h].key == key)
			return c->v[h].obj;
		h = (h + 1) & (c->cap - 1);
	}
	return NULL;
}

/* Keep obj (a new reference is taken) under key: 0, or -1 (no memory). */
static int pcache_put(pcache *c, const void *key, PyObject *obj)
{
	size_t h;
	if ((c->used + 1) * 2 > c->cap) {
		size_t ncap = c->cap ? c->cap * 2 : 64, i;
		pcache_slot *nv = PyMem_Calloc(ncap, sizeof(*nv));
		if (!nv)
			return -1;
		for (i = 0; i < c->cap; i++) {
			if (!c->v[i].key)
				continue;
			h = ((uintptr_t)c->v[i].key >> 3) & (ncap - 1);
			while (nv[h].key)
				h = (h + 1) & (ncap - 1);
			nv[h] = c->v[i];
		}
		PyMem_Free(c->v);
		c->v = nv;
		c->cap = ncap;
	}
	h = ((uintptr_t)key >> 3) & (c->cap - 1);
	while (c->v[h].key)
		h = (h + 1) & (c->cap - 1);
	c->v[h].key = key;
	c->v[h].obj = Py_NewRef(obj);
	c->used++;
	return 0;
}

static void pcache_clear(pcache *c)
{
	size_t i;
	for (i = 0; i < c->cap; i++)
		Py_XDECREF(c->v[i].obj);
	PyMem_Free(c->v);
	memset(c, 0, sizeof(*c));
}

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

static PyObject *event_get_comm(tbpy_event *e, void *c)
{
	(void)c;
	return Py_NewRef(e->comm);
}

static PyObject *event_get_system(tbpy_event *e, void *c)
{
	(void)c;
	if (e->names == Py_None)
		Py_RETURN_NONE;
	return Py_NewRef(PyTuple_GET_ITEM(e->names, 0));
}

static PyObject *event_get_name(tbpy_event *e, void *c)
{
	(void)c;
	if (e->names == Py_None)
		Py_RETURN_NONE;
	return Py_NewRef(PyTuple_GET_ITEM(e->names, 1));
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

static PyObject *event_get_data(tbpy_event *e, void *c)
{
	(void)c;
	return Py_NewRef(e->data);
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
	const char *kind = "print";
	unsigned how;
	char small[2048], *buf = small;
	size_t cap = sizeof(small);
	tb_render_result res;
	text_grow_ctx g;
	tb_status st;
	PyObject *out;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "|s", kwlist, &kind))
		return NULL;
	if (!strcmp(kind, "print"))
		how = TB_TEXT_PRINT;
	else if (!strcmp(kind, "fields"))
		how = TB_TEXT_FIELDS;
	else if (!strcmp(kind, "line"))
		how = TB_TEXT_PRINT | TB_TEXT_LINE;
	else if (!strcmp(kind, "raw-line"))
		how = TB_TEXT_FIELDS | TB_TEXT_LINE;
	else if (!strcmp(kind, "json"))
		how = TB_TEXT_JSON | TB_TEXT_WITH_PRINT;
	else {
		PyErr_Format(PyExc_ValueError,
			     "kind: 'print', 'fields', 'line', 'raw-line' or 'json', not %R",
			     PyTuple_Size(args) ? PyTuple_GET_ITEM(args, 0) : Py_None);
		return NULL;
	}
	memset(&res, 0, sizeof(res));
	g.small = small;
	g.nomem = 0;
	Py_BEGIN_ALLOW_THREADS
	PyThread_acquire_lock(e->ss->lock, WAIT_LOCK);
	st = tb_session_text_grow(e->ss->s, &e->ev, how, &buf, &cap, text_grow, &g, &res);
	PyThread_release_lock(e->ss->lock);
	Py_END_ALLOW_THREADS
	if (g.nomem)
		return PyErr_NoMemory();
	if (st != TB_OK && st != TB_ERR_NO_SPACE) {
		if (buf != small)
			PyMem_RawFree(buf);
		return tbpy_raise("rendering", st, 0, NULL);
	}
	if (st == TB_ERR_NO_SPACE && res.needed == 0) {
		/* the session gave no program for this rendering */
		if (buf != small)
			PyMem_RawFree(buf);
		return tbpy_raise("rendering", st, 0,
				  "the session has no program for this rendering "
				  "(out of memory, or a kind it lacks)");
	}
	{
		size_t n = res.len < cap ? res.len : cap - 1;
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
	{ "text", (PyCFunction)(void (*)(void))event_text, METH_VARARGS | METH_KEYWORDS,
	  "text(kind='print') -> str\n\n"
	  "'print': the event's print fmt rendered as the kernel renders it;\n"
	  "'fields': trace-cmd -R's ' name=value' listing; 'line' / 'raw-line':\n"
	  "the whole trace-cmd report line of either; 'json': one JSON object." },
	{ "as_dict", (PyCFunction)event_as_dict, METH_NOARGS,
	  "as_dict() -> {cpu, ts, pid, comm, system, name, id, fields}" },
	{ NULL, NULL, 0, NULL }
};

static PyGetSetDef event_getset[] = {
	{ "comm", (getter)event_get_comm, NULL,
	  "the task's comm from the saved cmdlines, '<idle>' for pid 0, None when unknown", NULL },
	{ "system", (getter)event_get_system, NULL, "event system, None without a format", NULL },
	{ "name", (getter)event_get_name, NULL, "event name, None without a format", NULL },
	{ "fields", (getter)event_get_fields, NULL, "every field, typed (dict)", NULL },
	{ "data", (getter)event_get_data, NULL, "the record's bytes", NULL },
	{ NULL, NULL, NULL, NULL, NULL }
};

static PyMemberDef event_members[] = {
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
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "tracebound.Event",
	.tp_basicsize = sizeof(tbpy_event),
	.tp_dealloc = (destructor)event_dealloc,
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
	uint8_t *arena;
	size_t arena_len, arena_cap;
	int pending;              /* 0, or 1: `st` / `err` end the batch */
	tb_status st;
	tb_error err;
	uint64_t ndamaged;
	pcache names, comms;
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
	PyMem_RawFree(it->arena);
	it->batch = NULL;
	it->off = NULL;
	it->arena = NULL;
	it->n = it->pos = it->arena_len = it->arena_cap = 0;
}

static void iter_dealloc(tbpy_iter *it)
{
	iter_finish(it);
	pcache_clear(&it->names);
	pcache_clear(&it->comms);
	PyObject_Free(it);
}

/* Decode the next batch (no GIL, the session's lock held): 0, -1 no memory. */
static int fill(tbpy_iter *it)
{
	it->n = it->pos = 0;
	it->arena_len = 0;
	while (it->n < ITER_BATCH && it->arena_len < ITER_ARENA) {
		tb_session_event *ev = &it->batch[it->n];
		tb_status st = tbpy_next(it->ss->s, &it->f, ev, &it->ndamaged, &it->err);
		if (st != TB_OK) {
			it->pending = 1;
			it->st = st;
			break;
		}
		if (ev->len > it->arena_cap - it->arena_len) {
			size_t ncap = it->arena_cap * 2;
			uint8_t *na;
			while (ncap - it->arena_len < ev->len)
				ncap *= 2;
			na = PyMem_RawRealloc(it->arena, ncap);
			if (!na)
				return -1;
			it->arena = na;
			it->arena_cap = ncap;
		}
		if (ev->len)
			memcpy(it->arena + it->arena_len, ev->data, ev->len);
		it->off[it->n] = it->arena_len;
		it->arena_len += ev->len;
		it->n++;
	}
	return 0;
}

static PyObject *names_of(tbpy_iter *it, const tb_format *f)
{
	PyObject *o;
	if (!f)
		return Py_NewRef(Py_None);
	o = pcache_get(&it->names, f);
	if (o)
		return Py_NewRef(o);
	o = Py_BuildValue("(NN)", tbpy_str(f->system, f->system_len), tbpy_str(f->name, f->name_len));
	if (o && pcache_put(&it->names, f, o) < 0) {
		Py_DECREF(o);
		return PyErr_NoMemory();
	}
	return o;
}

/* The comm as the library's JSON gives it: None when the capture does not
 * know it ("<...>" in report lines), "<idle>" for pid 0. */
static int comm_unknown(const tb_session_event *ev)
{
	return !ev->comm_known && ev->pid != 0;
}

static PyObject *comm_of(tbpy_iter *it, const tb_session_event *ev)
{
	PyObject *o;
	if (comm_unknown(ev))
		return Py_NewRef(Py_None);
	o = ev->comm ? pcache_get(&it->comms, ev->comm) : NULL;
	if (o)
		return Py_NewRef(o);
	o = tbpy_str(ev->comm, ev->comm ? ev->comm_len : 0);
	if (o && ev->comm && pcache_put(&it->comms, ev->comm, o) < 0) {
		Py_DECREF(o);
		return PyErr_NoMemory();
	}
	return o;
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
	e->data = PyBytes_FromStringAndSize((const char *)it->arena + it->off[i],
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

static PyObject *iter_get_damaged(tbpy_iter *it, void *c)
{
	(void)c;
	return PyLong_FromUnsignedLongLong(it->ndamaged);
}

static PyGetSetDef iter_getset[] = {
	{ "damaged_pages", (getter)iter_get_damaged, NULL,
	  "pages skipped as damaged so far (skip_damaged=True)", NULL },
	{ NULL, NULL, NULL, NULL, NULL }
};

PyTypeObject tbpy_EventIterType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "tracebound.EventIterator",
	.tp_basicsize = sizeof(tbpy_iter),
	.tp_dealloc = (destructor)iter_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "Events of a Trace, merged by time (Trace.events()).",
	.tp_iter = PyObject_SelfIter,
	.tp_iternext = (iternextfunc)iter_next,
	.tp_getset = iter_getset,
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
	if (tbpy_filter_parse_locked(it->ss, &it->f, name, cpus, start, end)) {
		Py_DECREF(it);
		return NULL;
	}
	it->batch = PyMem_RawMalloc(ITER_BATCH * sizeof(*it->batch));
	it->off = PyMem_RawMalloc(ITER_BATCH * sizeof(*it->off));
	it->arena_cap = ITER_ARENA + 65536;
	it->arena = PyMem_RawMalloc(it->arena_cap);
	if (!it->batch || !it->off || !it->arena) {
		Py_DECREF(it);
		return PyErr_NoMemory();
	}
	return (PyObject *)it;
}
