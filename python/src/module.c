/* tracebound._tracebound: the module, its Error type and shared helpers. */
#include "tbpy.h"

#include <string.h>

PyObject *tbpy_Error;

/* Short, stable names for tb_status values (Error.status). */
static const char *status_key(tb_status st)
{
	switch (st) {
	case TB_OK: return "ok";
	case TB_END: return "end";
	case TB_NEED_MORE: return "need_more";
	case TB_NOT_FOUND: return "not_found";
	case TB_ERR_TRUNCATED: return "truncated";
	case TB_ERR_LENGTH: return "length";
	case TB_ERR_RANGE: return "range";
	case TB_ERR_MAGIC: return "magic";
	case TB_ERR_VERSION: return "version";
	case TB_ERR_SYNTAX: return "syntax";
	case TB_ERR_VALUE: return "value";
	case TB_ERR_DUPLICATE: return "duplicate";
	case TB_ERR_CYCLE: return "cycle";
	case TB_ERR_UNSUPPORTED: return "unsupported";
	case TB_ERR_LIMIT: return "limit";
	case TB_ERR_NO_SPACE: return "no_space";
	case TB_ERR_ARG: return "arg";
	case TB_ERR_BUDGET: return "budget";
	default: return "error";
	}
}

/* o.name = v (a new reference, or NULL: nothing). */
static void set_attr(PyObject *o, const char *name, PyObject *v)
{
	if (v) {
		PyObject_SetAttrString(o, name, v);
		Py_DECREF(v);
	}
}

PyObject *tbpy_raise(const char *context, tb_status st, uint64_t offset,
		     const char *what)
{
	PyObject *exc, *v;
	if (!what)
		what = tb_strerror(st);
	exc = PyObject_CallFunction(tbpy_Error, "s", "");
	if (!exc)
		return NULL;
	v = PyUnicode_FromFormat("%s%s%s at offset %llu (%s)", context ? context : "",
				 context ? ": " : "", what, (unsigned long long)offset,
				 tb_strerror(st));
	/* the message is args[0], as str(e) shows it */
	set_attr(exc, "args", v ? PyTuple_Pack(1, v) : NULL);
	Py_XDECREF(v);
	set_attr(exc, "status", PyUnicode_FromString(status_key(st)));
	set_attr(exc, "code", PyLong_FromLong((long)st));
	set_attr(exc, "offset", PyLong_FromUnsignedLongLong(offset));
	set_attr(exc, "what", PyUnicode_FromString(what));
	PyErr_Clear(); /* a failed attribute set must not mask the error */
	PyErr_SetObject(tbpy_Error, exc);
	Py_DECREF(exc);
	return NULL;
}

void tbpy_raise_attach(const char *name, PyObject *v)
{
	PyObject *type, *exc, *tb;
	PyErr_Fetch(&type, &exc, &tb);
	PyErr_NormalizeException(&type, &exc, &tb);
	if (exc)
		set_attr(exc, name, Py_XNewRef(v));
	PyErr_Restore(type, exc, tb);
}

int tbpy_put(PyObject *d, const char *key, int when, PyObject *v)
{
	int rc;
	if (!v)
		return -1;
	rc = when ? PyDict_SetItemString(d, key, v) : 0;
	Py_DECREF(v);
	return rc;
}

int tbpy_append(PyObject **list, PyObject *o)
{
	if (!o || PyList_Append(*list, o) < 0) {
		Py_XDECREF(o);
		Py_CLEAR(*list);
		return -1;
	}
	Py_DECREF(o);
	return 0;
}

PyObject *tbpy_str(const char *s, size_t n)
{
	if (n > PY_SSIZE_T_MAX)
		n = PY_SSIZE_T_MAX;
	return PyUnicode_DecodeUTF8(s ? s : "", (Py_ssize_t)n, "surrogateescape");
}

int tbpy_fs_or_none(PyObject *o, void *out)
{
	if (o == Py_None) {
		*(PyObject **)out = NULL;
		return 1;
	}
	return PyUnicode_FSConverter(o, out);
}

static size_t ptab_slot(const void **keys, size_t cap, const void *key)
{
	size_t h = ((uintptr_t)key >> 4) & (cap - 1);
	while (keys[h] && keys[h] != key)
		h = (h + 1) & (cap - 1);
	return h;
}

uint64_t *tbpy_ptab_at(tbpy_ptab *t, const void *key, int add)
{
	size_t h, i;
	if (t->cap && t->keys[h = ptab_slot(t->keys, t->cap, key)])
		return &t->vals[h];
	if (!add)
		return NULL;
	if ((t->used + 1) * 2 > t->cap) { /* at most half full */
		tbpy_ptab n = { NULL, NULL, t->cap ? t->cap * 2 : 64, t->used };
		n.keys = PyMem_RawCalloc(n.cap, sizeof(*n.keys));
		n.vals = PyMem_RawCalloc(n.cap, sizeof(*n.vals));
		if (!n.keys || !n.vals) {
			tbpy_ptab_free(&n);
			return NULL;
		}
		for (i = 0; i < t->cap; i++) {
			if (!t->keys[i])
				continue;
			h = ptab_slot(n.keys, n.cap, t->keys[i]);
			n.keys[h] = t->keys[i];
			n.vals[h] = t->vals[i];
		}
		tbpy_ptab_free(t);
		*t = n;
	}
	h = ptab_slot(t->keys, t->cap, key);
	t->keys[h] = key;
	t->used++;
	return &t->vals[h];
}

void tbpy_ptab_free(tbpy_ptab *t)
{
	PyMem_RawFree((void *)t->keys);
	PyMem_RawFree(t->vals);
	memset(t, 0, sizeof(*t));
}

int tbpy_gbuf_reserve(tbpy_gbuf *b, size_t more)
{
	size_t ncap;
	uint8_t *np;
	if (more <= b->cap - b->len)
		return 0;
	ncap = b->cap ? b->cap : 4096;
	while (ncap - b->len < more) {
		if (ncap > SIZE_MAX / 2)
			return -1;
		ncap *= 2;
	}
	np = PyMem_RawRealloc(b->p, ncap);
	if (!np)
		return -1;
	b->p = np;
	b->cap = ncap;
	return 0;
}

static PyObject *py_open(PyObject *self, PyObject *args, PyObject *kw)
{
	(void)self;
	return PyObject_Call((PyObject *)&tbpy_TraceType, args, kw);
}

static PyObject *py_strerror(PyObject *self, PyObject *arg)
{
	long v = PyLong_AsLong(arg);
	(void)self;
	if (v == -1 && PyErr_Occurred())
		return NULL;
	return PyUnicode_FromString(tb_strerror((tb_status)v));
}

static PyMethodDef methods[] = {
	{ "open", TBPY_KW(py_open),
	  "open(path, events=None, skip_damaged=False) -> Trace\n\n"
	  "A trace.dat file, or a directory of per-CPU trace_pipe_raw dumps\n"
	  "(cpuN.raw, header_page, subbuf_kb) with an events directory of\n"
	  "<system>/<event>/format files (events=, default path/events)." },
	{ "check", TBPY_KW(tbpy_check),
	  "check(path, events=None) -> list of anomalies (dicts)" },
	{ "pmclog", TBPY_KW(tbpy_pmclog),
	  "pmclog(path, addr_size=0, stop_at_closelog=False) -> list of records" },
	{ "strerror", py_strerror, METH_O, "strerror(code) -> the library's name of a status" },
	{ NULL, NULL, 0, NULL }
};

static struct PyModuleDef moddef = {
	PyModuleDef_HEAD_INIT, "tracebound._tracebound",
	"tracebound's C extension: decoding in C over the library's session.", -1,
	methods, NULL, NULL, NULL, NULL
};

PyMODINIT_FUNC PyInit__tracebound(void);

PyMODINIT_FUNC PyInit__tracebound(void)
{
	PyObject *m;
	if (PyType_Ready(&tbpy_SessType) < 0 || PyType_Ready(&tbpy_TraceType) < 0 || PyType_Ready(&tbpy_EventType) < 0 ||
	    PyType_Ready(&tbpy_EventIterType) < 0 || PyType_Ready(&tbpy_BufferType) < 0)
		return NULL;
	m = PyModule_Create(&moddef);
	if (!m)
		return NULL;
	tbpy_Error = PyErr_NewExceptionWithDoc(
		"tracebound.Error",
		"A capture that cannot be decoded: status (a short name such as\n"
		"'truncated'), code (the library's tb_status), offset (the byte\n"
		"offset of the fault) and what (the library's description).",
		NULL, NULL);
	if (!tbpy_Error || PyModule_AddObjectRef(m, "Error", tbpy_Error) < 0 ||
	    PyModule_AddObjectRef(m, "Trace", (PyObject *)&tbpy_TraceType) < 0 ||
	    PyModule_AddObjectRef(m, "Event", (PyObject *)&tbpy_EventType) < 0 ||
	    PyModule_AddStringConstant(m, "library_version", tb_version()) < 0) {
		Py_DECREF(m);
		return NULL;
	}
	return m;
}
