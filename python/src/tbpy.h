/*
 * tracebound for Python: what the extension's files share.
 *
 * The extension is a thin layer over the library's session
 * (include/tracebound/session.h): it maps the input, hands the session
 * heap memory through a tb_mem, and turns events into Python objects or,
 * for columns, into typed buffers filled with the GIL released.
 */
#ifndef TBPY_H
#define TBPY_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "tracebound/tracebound.h"
#include "tracebound/session.h"

#include "codec.h"          /* host/: the decompressors, shared with the CLI */
#include "files.h"          /* host/: the POSIX side, shared with the CLI */

/* ---- errors (module.c) ---- */

extern PyObject *tbpy_Error; /* tracebound.Error */

/* Raise tracebound.Error(message, status, offset, what); returns NULL. */
PyObject *tbpy_raise(const char *context, tb_status st, uint64_t offset,
		     const char *what);
/* The pending error gets attribute name = v (v may be NULL: nothing). */
void tbpy_raise_attach(const char *name, PyObject *v);

/* bytes -> str as the module decodes every text from a capture: UTF-8,
 * bytes that are not UTF-8 kept as surrogate escapes (lossless). */
PyObject *tbpy_str(const char *s, size_t n);
/* d[key] = v when `when` (v a new reference, released; NULL after an
 * error): 0, or -1 with the error set. */
int tbpy_put(PyObject *d, const char *key, int when, PyObject *v);
/* Append o (a new reference, or NULL after an error) to *list: 0, or -1
 * with *list and o released. */
int tbpy_append(PyObject **list, PyObject *o);

/* PyArg "O&" converter: a path (as PyUnicode_FSConverter) or None
 * (leaves *out NULL). */
int tbpy_fs_or_none(PyObject *o, void *out);

/* The start of a static type: its Python name, object struct and
 * deallocator (every type of the module sets these three). */
#define TBPY_TYPE(pyname, ctype, dealloc)                                     \
	PyVarObject_HEAD_INIT(NULL, 0) .tp_name = (pyname), .tp_basicsize = sizeof(ctype), \
	.tp_dealloc = (destructor)(dealloc)

/* A method table entry's function and flags for f(self, args, kw). */
#define TBPY_KW(f) (PyCFunction)(void (*)(void))(f), METH_VARARGS | METH_KEYWORDS

/* A map from pointers (formats, comms) to numbers: open addressing in
 * PyMem_Raw memory, so usable without the GIL.  Zero it to start. */
typedef struct tbpy_ptab {
	const void **keys;         /* NULL: an empty slot */
	uint64_t *vals;
	size_t cap, used;
} tbpy_ptab;

/* The value kept under key (not NULL).  Absent: NULL, or with add a new
 * value 0 (NULL when memory ran out). */
uint64_t *tbpy_ptab_at(tbpy_ptab *t, const void *key, int add);
void tbpy_ptab_free(tbpy_ptab *t);

/* A growable byte buffer in PyMem_Raw memory (no GIL needed).  Zero it
 * to start. */
typedef struct tbpy_gbuf {
	uint8_t *p;
	size_t len, cap;
} tbpy_gbuf;

/* Room for `more` bytes past len: 0, or -1 when memory ran out. */
int tbpy_gbuf_reserve(tbpy_gbuf *b, size_t more);

/* Append v[0..n): 0, or -1 when memory ran out. */
static inline int tbpy_gbuf_put(tbpy_gbuf *b, const void *v, size_t n)
{
	if (!n)
		return 0; /* (an empty string into a buffer not yet made: no memcpy of NULL) */
	if (n > b->cap - b->len && tbpy_gbuf_reserve(b, n))
		return -1;
	memcpy(b->p + b->len, v, n);
	b->len += n;
	return 0;
}

/* ---- the input (source.c) ---- */

#define TBPY_MAX_TEXT (64u << 20)   /* a file read whole: a format, table or header text */

/* Everything a session borrows: the mapped capture, or for a raw dump
 * directory the mapped CPU files and every text beside them. */
typedef struct tbpy_input {
	int is_dat;
	tb_input dat;                   /* host/files.h: mapped, its descriptor kept */
	tb_host_capture *host;          /* raw dumps: the library's source over host/ */
	tb_session_source src;
	char errmsg[512];               /* why opening failed (not a tb_error) */
	Py_ssize_t refs;                /* the Trace and each session (GIL held) */
	unsigned flags;                 /* TB_SESSION_* for every session */
	uint64_t budget;                /* each session's memory budget (open's max_memory) */
} tbpy_input;

/*
 * Open path: a trace.dat file, or a directory of cpuN.raw dumps whose
 * formats come from events (NULL: path/events), path and events as
 * PyUnicode_FSConverter gives them, without the GIL.  The input holds one
 * reference; NULL with OSError (FileNotFoundError) or MemoryError.
 */
tbpy_input *tbpy_input_new(PyObject *path, PyObject *events);
/* Drop one counted reference; the last one unmaps and frees (GIL held). */
void tbpy_input_decref(tbpy_input *in);

/* ---- sessions (trace.c) ---- */

/* The heap for sessions (PyMem_Raw*: callable without the GIL). */
extern const tb_mem tbpy_mem;

struct tbpy_trace;

/*
 * One tb_session as a Python object, so that everything pointing into it
 * (events' formats and comms, iterators) keeps it alive.  It keeps its
 * Trace alive in turn, and so the mapped input.  `lock` is held while C
 * code uses the session (a walk, a rendering), with the GIL released.
 */
typedef struct tbpy_sess {
	PyObject_HEAD
	tbpy_input *in;            /* counted reference: the bytes s borrows */
	tb_session *s;
	tb_host_zstream zs;        /* a perf.data's COMPRESSED records */
	PyThread_type_lock lock;
	int walking;               /* an iterator or a column pass owns the cursor */
	int big_endian;
} tbpy_sess;

extern PyTypeObject tbpy_SessType;

/* A Trace object: the input and its metadata session. */
typedef struct tbpy_trace {
	PyObject_HEAD
	tbpy_input *in;            /* counted reference (NULL before init) */
	tbpy_sess *main;           /* NULL once closed */
	PyObject *path;
	PyObject *stats;           /* cached result of the counting walk */
} tbpy_trace;

extern PyTypeObject tbpy_TraceType;

/* A session of t to walk with (its `walking` set): the main one rewound
 * when no walk owns it, else a new one.  NULL with a Python error set. */
tbpy_sess *tbpy_walker_get(tbpy_trace *t);
/* The walk is over: clear `walking` and drop the reference. */
void tbpy_walker_put(tbpy_sess *ss);

/* What walks push down into C: the library's selection (selection.h) of
 * events by name, CPU and time, bound to the walk's session. */
typedef struct tbpy_filter {
	tb_selection sel;
	PyObject *names;           /* the events list sel borrows (a str) */
	const tb_format **formats; /* those it names, in the order named (NULL: no names) */
	size_t nformats;
} tbpy_filter;

/* Fill *f from Python arguments (name, cpus, start, end) and bind it to
 * ss's session, its lock held for that: the walk then leaves out what f
 * drops without describing it (tb_session_keep_ids, tb_session_keep_cpus,
 * the window).  0, or -1 with a Python error. */
int tbpy_filter_parse(tbpy_sess *ss, tbpy_filter *f, PyObject *name, PyObject *cpus,
		      PyObject *start, PyObject *end);
void tbpy_filter_free(tbpy_filter *f); /* (with the GIL) */

/*
 * The one place events come from: the next event of s that passes f
 * (TB_OK), TB_END, or an error for one page (the walk can go on after
 * it).  Damaged pages (TB_SESSION_SKIP_DAMAGED) are counted in *ndamaged
 * and skipped.  No Python calls: runs without the GIL, the session's lock
 * held.
 */
tb_status tbpy_next(tb_session *s, const tbpy_filter *f, tb_session_event *ev,
		    uint64_t *ndamaged, tb_error *err);

/* Raise the error of a failed walk step (with its buffer, CPU, page). */
PyObject *tbpy_raise_walk(tb_session *s, const tb_error *e);

/* Walk ss (its walk owned) to the end through f (may be NULL) without
 * the GIL, its lock held, handing each event to each(ctx, ev), which
 * returns -1 when memory ran out.  0, or -1 with a Python error: no
 * memory, or the first page that failed (tbpy_raise_walk). */
typedef int (*tbpy_each_fn)(void *ctx, const tb_session_event *ev);
int tbpy_walk(tbpy_sess *ss, const tbpy_filter *f, tbpy_each_fn each, void *ctx,
	      uint64_t *ndamaged);

/* ---- events (event.c) ---- */

extern PyTypeObject tbpy_EventType;
extern PyTypeObject tbpy_EventIterType;

PyObject *tbpy_events_new(tbpy_trace *t, PyObject *args, PyObject *kw);

/* ---- columns (columns.c) ---- */

PyObject *tbpy_columns(tbpy_trace *t, PyObject *args, PyObject *kw);

/* ---- the memory object that column buffers are handed out in ---- */

extern PyTypeObject tbpy_BufferType;

/* ---- check and pmclog (check.c, pmclog.c) ---- */

PyObject *tbpy_check(PyObject *self, PyObject *args, PyObject *kw);
/* An anomaly as check() lists it (bare: where, status, offset and what
 * only): a new dict, or NULL with the error set. */
PyObject *tbpy_anomaly(const tb_check_anomaly *a, int bare);
PyObject *tbpy_pmclog(PyObject *self, PyObject *args, PyObject *kw);

#endif
