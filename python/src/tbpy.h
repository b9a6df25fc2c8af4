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

#include "tracebound/tracebound.h"
#include "tracebound/session.h"

#include "codec.h"          /* host/: the decompressors, shared with the CLI */
#include "files.h"          /* host/: the POSIX side, shared with the CLI */

/* ---- errors (module.c) ---- */

extern PyObject *tbpy_Error; /* tracebound.Error */

/* Raise tracebound.Error(message, status, offset, what); returns NULL. */
PyObject *tbpy_raise(const char *context, tb_status st, uint64_t offset,
		     const char *what);
PyObject *tbpy_raise_err(const char *context, const tb_error *e);

/* bytes -> str as the module decodes every text from a capture: UTF-8,
 * bytes that are not UTF-8 kept as surrogate escapes (lossless). */
PyObject *tbpy_str(const char *s, size_t n);
/* Append o (a new reference, or NULL after an error) to *list: 0, or -1
 * with *list and o released. */
int tbpy_append(PyObject **list, PyObject *o);

/* PyArg "O&" converter: a path (as PyUnicode_FSConverter) or None
 * (leaves *out NULL). */
int tbpy_fs_or_none(PyObject *o, void *out);

/* ---- the input (source.c) ---- */

/* A file mapped read-only, or read into the heap (host/files.h). */
typedef tb_input tbpy_map;

/* Map path (read-only, private).  0, or -1 with errno set. */
int tbpy_map_file(const char *path, tbpy_map *m);
/* The same for a trace.dat, whose descriptor is kept when it is mapped:
 * the session reads its CPU data through it (tb_session_source.read). */
int tbpy_map_capture(const char *path, tbpy_map *m);
void tbpy_unmap(tbpy_map *m);

/* Everything a session borrows: the mapped capture, or for a raw dump
 * directory the mapped CPU files and every text beside them. */
typedef struct tbpy_input {
	int is_dat;
	tbpy_map dat;
	tb_host_capture *host;          /* raw dumps: the library's source over host/ */
	const tb_session_raw_cpu *raw;  /* its dumps (host->source.src.raw) */
	size_t nraw;
	tb_session_source src;
	char errmsg[512];               /* why opening failed (not a tb_error) */
	Py_ssize_t refs;                /* the Trace and each session (GIL held) */
	unsigned flags;                 /* TB_SESSION_* for every session */
	uint64_t budget;                /* each session's memory budget (open's max_memory) */
} tbpy_input;

/*
 * Open path: a trace.dat file, or a directory of cpuN.raw dumps whose
 * formats come from events_dir (NULL: path/events).  0 on success; -1
 * with in->errmsg (and errno for I/O errors) set.  Call without the GIL.
 */
int tbpy_input_open(tbpy_input *in, const char *path, const char *events_dir);
void tbpy_input_close(tbpy_input *in);
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
	char *names;               /* the events list sel borrows (PyMem_Raw) */
	const tb_format **formats; /* those it names, in the order named (NULL: no names) */
	size_t nformats;
} tbpy_filter;

/* Fill *f from Python arguments (name, cpus, start, end) and bind it to
 * s: s's walk then leaves out what f drops without describing it
 * (tb_session_keep_ids, tb_session_keep_cpus, the window).  0, or -1
 * with a Python error. */
int tbpy_filter_parse(tbpy_filter *f, tb_session *s, PyObject *name,
		      PyObject *cpus, PyObject *start, PyObject *end);
/* The same with ss's lock held (looking names up can parse formats, and
 * an Event of this session may be rendering in another thread). */
int tbpy_filter_parse_locked(tbpy_sess *ss, tbpy_filter *f, PyObject *name,
			     PyObject *cpus, PyObject *start, PyObject *end);
void tbpy_filter_free(tbpy_filter *f);
/* s walks every event again (no filter's sets).  The caller holds s's
 * lock and owns its walk. */
void tbpy_session_unselect(tb_session *s);

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

/* ---- events (event.c) ---- */

extern PyTypeObject tbpy_EventType;
extern PyTypeObject tbpy_EventIterType;

PyObject *tbpy_events_new(tbpy_trace *t, PyObject *args, PyObject *kw);

/* ---- columns (columns.c) ---- */

PyObject *tbpy_columns(tbpy_trace *t, PyObject *args, PyObject *kw);

/* ---- the memory object that column buffers are handed out in ---- */

extern PyTypeObject tbpy_BufferType;
/* Take ownership of p[0..len) (PyMem_Raw memory). */
PyObject *tbpy_buffer_new(void *p, size_t len);

/* ---- check and pmclog (check.c, pmclog.c) ---- */

PyObject *tbpy_check(PyObject *self, PyObject *args, PyObject *kw);
PyObject *tbpy_pmclog(PyObject *self, PyObject *args, PyObject *kw);

#endif
