/* Trace objects, the sessions under them, filters, and the one event source. */
#include "tbpy.h"

#include <stdlib.h>
#include <string.h>

/* ---- memory ---- */

static void *mem_alloc(void *ctx, size_t size)
{
	(void)ctx;
	return PyMem_RawMalloc(size ? size : 1);
}

static void mem_free(void *ctx, void *p, size_t size)
{
	(void)ctx;
	(void)size;
	PyMem_RawFree(p);
}

const tb_mem tbpy_mem = { mem_alloc, mem_free, NULL };

/* ---- sessions ---- */

static void sess_dealloc(tbpy_sess *ss)
{
	tb_session_close(ss->s);
	ss->s = NULL;
	tb_host_zstream_free(&ss->zs);
	if (ss->lock)
		PyThread_free_lock(ss->lock);
	tbpy_input_decref(ss->in);
	Py_TYPE(ss)->tp_free((PyObject *)ss);
}

PyTypeObject tbpy_SessType = {
	TBPY_TYPE("tracebound._Session", tbpy_sess, sess_dealloc),
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "A library session over a Trace's input (internal).",
};

/* A new session over in: NULL with a Python error. */
static tbpy_sess *sess_new(tbpy_input *in)
{
	tb_session_options opt;
	tb_session_need need;
	tb_error err;
	tb_status st;
	tb_session *s = NULL;
	tbpy_sess *ss;
	memset(&opt, 0, sizeof(opt));
	memset(&err, 0, sizeof(err));
	opt.flags = in->flags | TB_SESSION_PERF_TEXT; /* as the CLI's report */
	opt.render_options = TB_RENDER_KNOWN_ENUMS | TB_RENDER_KERNEL_STYLE;
	Py_BEGIN_ALLOW_THREADS
	st = tb_session_open_budget(&s, &in->src, &opt, &tbpy_mem, in->budget, &need, &err);
	Py_END_ALLOW_THREADS
	if (st == TB_ERR_BUDGET) {
		char what[160];
		snprintf(what, sizeof(what),
			 "sound as far as read, but needs %llu bytes, over the budget of %llu "
			 "(max_memory)",
			 (unsigned long long)need.total, (unsigned long long)need.budget);
		return (tbpy_sess *)tbpy_raise("cannot open the capture", st, err.offset, what);
	}
	if (st != TB_OK) {
		if (st == TB_ERR_NO_SPACE && !err.what)
			return (tbpy_sess *)PyErr_NoMemory();
		return (tbpy_sess *)tbpy_raise("cannot open the capture", st, err.offset, err.what);
	}
	ss = PyObject_New(tbpy_sess, &tbpy_SessType);
	if (!ss) {
		tb_session_close(s);
		return NULL;
	}
	ss->s = s;
	ss->zs.dctx = NULL;
	ss->walking = 0;
	ss->in = in;
	in->refs++;
	ss->big_endian = tb_session_get_info(s)->big_endian;
	ss->lock = PyThread_allocate_lock();
	if (!ss->lock) {
		Py_DECREF(ss);
		return (tbpy_sess *)PyErr_NoMemory();
	}
	/* without libzstd, each COMPRESSED record is an anomaly in its place */
	st = tb_host_perf_zstd(s, &ss->zs, &err);
	if (st != TB_OK && st != TB_ERR_UNSUPPORTED) {
		Py_DECREF(ss);
		return (tbpy_sess *)tbpy_raise("cannot open the capture", st, err.offset, err.what);
	}
	return ss;
}

/* s walks every event again (no filter's sets).  The caller holds s's
 * lock and owns its walk. */
static void session_unselect(tb_session *s)
{
	tb_session_keep_ids(s, NULL, 0);
	tb_session_keep_cpus(s, NULL, 0);
	if (tb_session_set_window(s, 0, UINT64_MAX) != TB_OK)
		return; /* never: to >= from */
}

tbpy_sess *tbpy_walker_get(tbpy_trace *t)
{
	tbpy_sess *ss;
	if (!t->in || !t->main) {
		PyErr_SetString(PyExc_ValueError, "I/O operation on a closed trace");
		return NULL;
	}
	if (!t->main->walking) {
		tb_status st;
		tb_error err;
		ss = t->main;
		Py_INCREF(ss);
		ss->walking = 1;
		Py_BEGIN_ALLOW_THREADS
		PyThread_acquire_lock(ss->lock, WAIT_LOCK);
		st = tb_session_rewind(ss->s, &err);
		session_unselect(ss->s); /* no walk's filter before this one's */
		PyThread_release_lock(ss->lock);
		Py_END_ALLOW_THREADS
		if (st != TB_OK) {
			tbpy_walker_put(ss);
			return (tbpy_sess *)tbpy_raise("cannot rewind the capture", err.status,
							err.offset, err.what);
		}
		return ss;
	}
	/* the main session's cursor is taken: a walk of its own */
	ss = sess_new(t->in);
	if (ss)
		ss->walking = 1;
	return ss;
}

void tbpy_walker_put(tbpy_sess *ss)
{
	if (!ss)
		return;
	/* the walk's filter is freed after this: the session forgets it */
	Py_BEGIN_ALLOW_THREADS
	PyThread_acquire_lock(ss->lock, WAIT_LOCK);
	session_unselect(ss->s);
	PyThread_release_lock(ss->lock);
	Py_END_ALLOW_THREADS
	ss->walking = 0;
	Py_DECREF(ss);
}

/* ---- filters ---- */

/* name (a str or an iterable of them) as one events list (selection.h's
 * name rule), a str: NULL with a Python error. */
static PyObject *names_list(PyObject *name)
{
	PyObject *seq = PyUnicode_Check(name) ? PyTuple_Pack(1, name) : PySequence_Tuple(name);
	PyObject *sep, *all = NULL;
	Py_ssize_t i;
	if (!seq)
		return NULL;
	for (i = 0; i < PyTuple_GET_SIZE(seq); i++) {
		PyObject *item = PyTuple_GET_ITEM(seq, i);
		if (!PyUnicode_Check(item)) {
			PyErr_SetString(PyExc_TypeError, "name: an event name (str) or a list of them");
			goto done;
		}
		if (!PyUnicode_GET_LENGTH(item) || /* one name per item */
		    PyUnicode_FindChar(item, ',', 0, PY_SSIZE_T_MAX, 1) != -1) {
			PyErr_Format(PyExc_ValueError, "no event format named %R in this capture", item);
			goto done;
		}
	}
	sep = PyUnicode_FromString(",");
	all = sep ? PyUnicode_Join(sep, seq) : NULL;
	Py_XDECREF(sep);
done:
	Py_DECREF(seq);
	return all;
}

static int get_u64(PyObject *o, const char *what, uint64_t *out)
{
	unsigned long long v;
	if (PyFloat_Check(o)) {
		PyErr_Format(PyExc_TypeError, "%s: an integer timestamp (the file's clock units)",
			     what);
		return -1;
	}
	v = PyLong_AsUnsignedLongLong(o);
	if (v == (unsigned long long)-1 && PyErr_Occurred())
		return -1;
	*out = v;
	return 0;
}

/* cpus (a number or a list) as CPU bits; CPUs past TB_DAT_MAX_CPUS select nothing. */
static int cpu_mask(PyObject *cpus, uint64_t *mask)
{
	PyObject *seq = PyLong_Check(cpus) ? PyTuple_Pack(1, cpus) : PySequence_Tuple(cpus);
	Py_ssize_t i;
	if (!seq)
		return -1;
	for (i = 0; i < PyTuple_GET_SIZE(seq); i++) {
		long c = PyLong_AsLong(PyTuple_GET_ITEM(seq, i));
		if (c == -1 && PyErr_Occurred()) {
			Py_DECREF(seq);
			return -1;
		}
		if (c >= 0 && (size_t)c < TB_SELECTION_CPU_WORDS * 64u)
			mask[c / 64] |= 1ull << (c % 64);
	}
	Py_DECREF(seq);
	return 0;
}

/* The selection's error as a Python one: -1. */
static int raise_sel(const tb_selection *sel, const tb_selection_error *e)
{
	size_t n = 0;
	const char *item;
	if (e->error.status == TB_ERR_NO_SPACE) {
		PyErr_NoMemory();
	} else if (e->part == TB_SELECTION_EVENTS && e->error.status == TB_NOT_FOUND &&
		   (item = tb_selection_item(sel, e->index, &n)) != NULL) {
		PyObject *o = tbpy_str(item, n);
		if (o) {
			PyErr_Format(PyExc_ValueError, "no event format named %R in this capture", o);
			Py_DECREF(o);
		}
	} else {
		PyErr_Format(PyExc_ValueError, "name: %s at byte %llu (%s)", e->error.what,
			     (unsigned long long)e->error.offset, tb_strerror(e->error.status));
	}
	return -1;
}

/* The formats the names select, in the order named (each once): the
 * tables columns() makes even when empty.  0, or -1 with a Python error. */
static int named_formats(tbpy_filter *f, tb_session *s)
{
	const tb_select *list = &f->sel.events;
	size_t n = tb_session_get_info(s)->nformats, i, k, j;
	f->formats = PyMem_RawMalloc((n ? n : 1) * sizeof(*f->formats));
	if (!f->formats) {
		PyErr_NoMemory();
		return -1;
	}
	for (i = 0; f->sel.have_events && i < list->n; i++)
		for (k = 0; k < n; k++) {
			uint64_t hits = 0;
			uint32_t id;
			const tb_format *fmt;
			if (!tb_session_format_at(s, k, NULL, NULL, &id) ||
			    !(fmt = tb_session_format(s, id)))
				continue;
			(void)tb_select_match(list, fmt->system, fmt->system_len, fmt->name,
					      fmt->name_len, &hits);
			if (!(hits >> i & 1u))
				continue;
			for (j = 0; j < f->nformats && f->formats[j] != fmt; j++)
				;
			if (j == f->nformats)
				f->formats[f->nformats++] = fmt;
		}
	return 0;
}

int tbpy_filter_parse(tbpy_sess *ss, tbpy_filter *f, PyObject *name, PyObject *cpus,
		      PyObject *start, PyObject *end)
{
	tb_selection_spec spec;
	tb_selection_error e;
	uint64_t mask[TB_SELECTION_CPU_WORDS];
	int rc = -1;
	memset(f, 0, sizeof(*f));
	memset(&spec, 0, sizeof(spec));
	spec.to = UINT64_MAX;
	if (name && name != Py_None) {
		Py_ssize_t n;
		if (!(f->names = names_list(name)) ||
		    !(spec.events.ptr = PyUnicode_AsUTF8AndSize(f->names, &n)))
			goto fail;
		spec.events.len = (size_t)n;
		spec.flags = n ? 0u : TB_SELECTION_NO_EVENTS;
	}
	if (cpus && cpus != Py_None) {
		memset(mask, 0, sizeof(mask));
		if (cpu_mask(cpus, mask))
			goto fail;
		spec.cpu_mask = mask;
		spec.cpu_words = TB_SELECTION_CPU_WORDS;
	}
	if (start && start != Py_None && get_u64(start, "start", &spec.from))
		goto fail;
	if (end && end != Py_None) { /* [start, end): an empty range is to < from */
		uint64_t to;
		if (get_u64(end, "end", &to))
			goto fail;
		if (to <= spec.from) {
			spec.from = 1;
			spec.to = 0;
		} else {
			spec.to = to - 1;
		}
	}
	/* binding looks names up (parsing formats), and an Event of this
	 * session may be rendering in another thread: its lock, waited for
	 * without the GIL (its holders never need the GIL) */
	Py_BEGIN_ALLOW_THREADS
	PyThread_acquire_lock(ss->lock, WAIT_LOCK);
	Py_END_ALLOW_THREADS
	if (tb_selection_init(&f->sel, &spec, &tbpy_mem, &e) != TB_OK ||
	    tb_selection_bind(&f->sel, ss->s, &e) != TB_OK ||
	    tb_selection_check(&f->sel, &e) != TB_OK)
		raise_sel(&f->sel, &e);
	else
		rc = spec.events.ptr ? named_formats(f, ss->s) : 0;
	if (rc)
		session_unselect(ss->s);
	PyThread_release_lock(ss->lock);
	if (rc == 0)
		return 0;
fail:
	tbpy_filter_free(f);
	return -1;
}

void tbpy_filter_free(tbpy_filter *f)
{
	tb_selection_free(&f->sel);
	Py_CLEAR(f->names);
	PyMem_RawFree(f->formats);
	f->formats = NULL;
	f->nformats = 0;
}

tb_status tbpy_next(tb_session *s, const tbpy_filter *f, tb_session_event *ev,
		    uint64_t *ndamaged, tb_error *err)
{
	for (;;) {
		tb_status st = tb_session_next(s, ev, err);
		if (st != TB_OK)
			return st;
		if (ev->kind == TB_SEV_DAMAGED) {
			if (ndamaged)
				(*ndamaged)++;
			continue;
		}
		if (!f || tb_selection_match(&f->sel, s, ev))
			return TB_OK;
	}
}

PyObject *tbpy_raise_walk(tb_session *s, const tb_error *e)
{
	const tb_session_error_info *ei = tb_session_error(s);
	char ctx[128];
	if (ei && ei->valid)
		snprintf(ctx, sizeof(ctx), "buffer %u, CPU %u, page %llu", ei->buffer, ei->cpu,
			 (unsigned long long)ei->page);
	else
		snprintf(ctx, sizeof(ctx), "event data");
	return tbpy_raise(ctx, e->status, e->offset, e->what);
}

int tbpy_walk(tbpy_sess *ss, const tbpy_filter *f, tbpy_each_fn each, void *ctx,
	      uint64_t *ndamaged)
{
	tb_session_event ev;
	tb_error err;
	tb_status st;
	int oom = 0;
	Py_BEGIN_ALLOW_THREADS
	PyThread_acquire_lock(ss->lock, WAIT_LOCK);
	while (!oom && (st = tbpy_next(ss->s, f, &ev, ndamaged, &err)) == TB_OK)
		oom = each(ctx, &ev) != 0;
	PyThread_release_lock(ss->lock);
	Py_END_ALLOW_THREADS
	if (oom)
		PyErr_NoMemory();
	else if (st != TB_END)
		tbpy_raise_walk(ss->s, &err);
	return oom || st != TB_END ? -1 : 0;
}

/* ---- Trace ---- */

/* The damage the session got past outside the event data, as dicts. */
static PyObject *damage_list(tb_session *s)
{
	size_t k, n = tb_session_ndamage(s);
	PyObject *out = PyList_New(0);
	for (k = 0; out && k < n; k++) {
		const tb_session_damage *d = tb_session_damage_at(s, k);
		tb_check_anomaly a = { .part = TB_CHECK_CAPTURE };
		if (!d)
			continue;
		a.where = d->where ? d->where : "?";
		a.offset = d->error.offset;
		a.error = d->error;
		a.error.what = d->error.what ? d->error.what : "";
		a.index = d->index;
		if (tbpy_append(&out, tbpy_anomaly(&a, 0)))
			break;
	}
	return out;
}

/* A capture opened with damage in what open reads (tables, formats,
 * options, a buffer given up): Error, its first damage as the fault and
 * all of it as e.damage, unless salvage was asked (skip_damaged). */
static int raise_damaged(tb_session *s)
{
	const tb_session_damage *d = tb_session_damage_at(s, 0);
	PyObject *all = damage_list(s);
	char ctx[96];
	if (!all)
		return -1;
	snprintf(ctx, sizeof(ctx), "damaged capture (%zu anomalies; skip_damaged=True reads what "
		 "is sound), first in %s", tb_session_ndamage(s), d && d->where ? d->where : "?");
	tbpy_raise(ctx, d ? d->error.status : TB_ERR_VALUE, d ? d->error.offset : 0,
		   d ? d->error.what : NULL);
	tbpy_raise_attach("damage", all);
	Py_DECREF(all);
	return -1;
}

static int trace_init(tbpy_trace *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "path", "events", "skip_damaged", "max_memory", NULL };
	PyObject *path = NULL, *events = NULL, *pathobj = NULL;
	unsigned long long max_memory = 0;
	int skip = 0;
	size_t i;
	tbpy_input *in;
	if (self->in) {
		PyErr_SetString(PyExc_RuntimeError, "Trace.__init__ called twice");
		return -1;
	}
	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&|O&pK", kwlist, PyUnicode_FSConverter,
					 &path, tbpy_fs_or_none, &events, &skip, &max_memory))
		return -1;
	in = tbpy_input_new(path, events);
	Py_XDECREF(events);
	if (!in) {
		Py_XDECREF(path);
		return -1;
	}
	in->flags = skip ? TB_SESSION_SKIP_DAMAGED : 0;
	/* the CLI's default budget: max(64 MiB, 16 x the input) */
	in->budget = (uint64_t)in->src.dat_len;
	for (i = 0; i < in->src.nraw; i++)
		in->budget += in->src.raw[i].len;
	in->budget = in->budget > (4ull << 20) ? 16 * in->budget : (64ull << 20);
	if (max_memory)
		in->budget = max_memory;
	self->in = in;
	pathobj = PyUnicode_DecodeFSDefault(PyBytes_AS_STRING(path));
	Py_XDECREF(path);
	if (!pathobj)
		return -1;
	Py_XSETREF(self->path, pathobj);
	self->main = sess_new(in);
	if (!self->main)
		return -1;
	if (!skip && tb_session_ndamage(self->main->s))
		return raise_damaged(self->main->s);
	return 0;
}

static void trace_close_(tbpy_trace *self)
{
	Py_CLEAR(self->main);
	if (self->in) {
		tbpy_input_decref(self->in);
		self->in = NULL;
	}
}

static void trace_dealloc(tbpy_trace *self)
{
	trace_close_(self);
	Py_CLEAR(self->path);
	Py_CLEAR(self->stats);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

/* The main session and its info (*s set): NULL with ValueError once closed. */
static const tb_session_info *main_info(tbpy_trace *t, tb_session **s)
{
	if (!t->main) {
		PyErr_SetString(PyExc_ValueError, "I/O operation on a closed trace");
		return NULL;
	}
	*s = t->main->s;
	return tb_session_get_info(*s);
}

static PyObject *span_str(tb_span sp)
{
	if (!sp.ptr || !sp.len)
		Py_RETURN_NONE;
	/* tables end in a newline: the value does not */
	while (sp.len && (sp.ptr[sp.len - 1] == '\n' || sp.ptr[sp.len - 1] == 0))
		sp.len--;
	return tbpy_str(sp.ptr, sp.len);
}

static PyObject *trace_get_clock(tbpy_trace *t, void *c)
{
	tb_session *s;
	const tb_session_info *i = main_info(t, &s);
	const tb_session_buffer_info *b;
	(void)c;
	if (!i)
		return NULL;
	b = i->nbuffers ? tb_session_buffer(s, 0) : NULL;
	return span_str(b && b->clock.len ? b->clock : i->clock);
}

static PyObject *trace_get_info(tbpy_trace *t, void *c)
{
	tb_session *s;
	const tb_session_info *i = main_info(t, &s);
	PyObject *bufs = i ? PyList_New(0) : NULL, *d;
	size_t k;
	(void)c;
	if (!bufs)
		return NULL;
	for (k = 0; k < i->nbuffers; k++) {
		const tb_session_buffer_info *b = tb_session_buffer(s, k);
		PyObject *bn, *bc, *o;
		if (!b)
			continue;
		bn = tbpy_str(b->name.ptr, b->name.len);
		bc = span_str(b->clock);
		o = (bn && bc) ? Py_BuildValue("{sOsOsIsIsi}", "name", bn, "clock", bc, "cpus",
					       (unsigned)b->ncpus, "page_size",
					       (unsigned)b->page_size, "ns_clock", b->ns_clock)
			       : NULL;
		Py_XDECREF(bn);
		Py_XDECREF(bc);
		if (tbpy_append(&bufs, o))
			return NULL;
	}
	d = Py_BuildValue("{sisIsisIsIsnsNsNsNsNsLsN}", "is_dat", i->is_dat, "version",
			  i->dat_version, "big_endian", i->big_endian, "long_size", i->long_size,
			  "cpus", (unsigned)i->ncpus, "formats", (Py_ssize_t)i->nformats,
			  "uname", span_str(i->uname), "clock", span_str(i->clock),
			  "tracer_version", span_str(i->tracer_version), "compression",
			  span_str(i->compression), "ts_offset", (long long)i->ts_offset,
			  "buffers", bufs);
	return d;
}

/* Item key of a getter's dict d (a new reference, or NULL): d's other
 * items and d go. */
static PyObject *item(PyObject *d, const char *key)
{
	PyObject *v = d ? PyDict_GetItemString(d, key) : NULL;
	Py_XINCREF(v);
	Py_XDECREF(d);
	return v;
}

/* cpus, uname: as info has them */
static PyObject *trace_get_info_item(tbpy_trace *t, void *key)
{
	return item(trace_get_info(t, NULL), key);
}

/* The name: line of a format text (without parsing it). */
static void text_name(const char *t, size_t n, const char **name, size_t *len)
{
	size_t i = 0;
	*name = NULL;
	*len = 0;
	while (i < n) {
		size_t e = i;
		while (e < n && t[e] != '\n')
			e++;
		if (e - i > 6 && !memcmp(t + i, "name: ", 6)) {
			*name = t + i + 6;
			*len = e - i - 6;
			while (*len && ((*name)[*len - 1] == ' ' || (*name)[*len - 1] == '\r'))
				(*len)--;
			return;
		}
		i = e + 1;
	}
}

static PyObject *trace_event_types(tbpy_trace *t, PyObject *noargs)
{
	tb_session *s;
	const tb_session_info *i = main_info(t, &s);
	PyObject *out = i ? PyList_New(0) : NULL;
	size_t k;
	(void)noargs;
	for (k = 0; out && k < i->nformats; k++) {
		tb_span sys, text;
		uint32_t id = 0;
		const char *name;
		size_t nlen;
		PyObject *o;
		int has_id = tb_session_format_at(s, k, &sys, &text, &id);
		text_name(text.ptr, text.len, &name, &nlen);
		if (!name)
			continue;
		o = Py_BuildValue("(NNO)", tbpy_str(sys.ptr, sys.len), tbpy_str(name, nlen),
				  has_id ? PyLong_FromUnsignedLong(id) : Py_NewRef(Py_None));
		if (tbpy_append(&out, o))
			break;
	}
	return out;
}

static PyObject *trace_damage(tbpy_trace *t, PyObject *noargs)
{
	tb_session *s;
	(void)noargs;
	return main_info(t, &s) ? damage_list(s) : NULL;
}

/* ---- counting walk (stats, drops) ---- */

typedef struct counts {
	tbpy_ptab by_format;       /* format -> events */
	uint64_t unknown, events, damaged;
} counts;

static int count(void *ctx, const tb_session_event *ev)
{
	counts *c = ctx;
	uint64_t *n = ev->format ? tbpy_ptab_at(&c->by_format, ev->format, 1) : &c->unknown;
	if (!n)
		return -1;
	(*n)++;
	c->events++;
	return 0;
}

static PyObject *fmt_key(const tb_format *f)
{
	PyObject *a = tbpy_str(f->system, f->system_len), *b = tbpy_str(f->name, f->name_len);
	PyObject *k = a && b ? PyUnicode_FromFormat("%U:%U", a, b) : NULL;
	Py_XDECREF(a);
	Py_XDECREF(b);
	return k;
}

static PyObject *trace_stats(tbpy_trace *t, PyObject *noargs)
{
	tbpy_sess *ss;
	counts c;
	PyObject *by_type = NULL, *per_cpu = NULL, *out = NULL;
	uint64_t dropped = 0, unknown_drops = 0;
	size_t b, k;
	const tb_session_info *info;
	(void)noargs;
	if (t->stats)
		return Py_NewRef(t->stats);
	ss = tbpy_walker_get(t);
	if (!ss)
		return NULL;
	memset(&c, 0, sizeof(c));
	if (tbpy_walk(ss, NULL, count, &c, &c.damaged))
		goto done;
	by_type = PyDict_New();
	per_cpu = PyList_New(0);
	if (!by_type || !per_cpu)
		goto done;
	for (k = 0; k < c.by_format.cap; k++) {
		PyObject *key, *v;
		if (!c.by_format.keys[k])
			continue;
		key = fmt_key(c.by_format.keys[k]);
		v = PyLong_FromUnsignedLongLong(c.by_format.vals[k]);
		if (!key || !v || PyDict_SetItem(by_type, key, v) < 0) {
			Py_XDECREF(key);
			Py_XDECREF(v);
			goto done;
		}
		Py_DECREF(key);
		Py_DECREF(v);
	}
	info = tb_session_get_info(ss->s);
	for (b = 0; b < info->nbuffers; b++) {
		const tb_session_buffer_info *bi = tb_session_buffer(ss->s, b);
		uint32_t cpu;
		for (cpu = 0; bi && cpu < bi->ncpus; cpu++) {
			tb_session_cpu_stats cs;
			PyObject *o;
			if (tb_session_cpu_stats_get(ss->s, b, cpu, &cs) != TB_OK)
				continue;
			dropped += cs.dropped;
			unknown_drops += cs.drops_unknown;
			o = Py_BuildValue("{snsIsKsKsKsKsK}", "buffer", (Py_ssize_t)b, "cpu", cpu,
					  "events", (unsigned long long)cs.events, "pages",
					  (unsigned long long)cs.pages, "dropped",
					  (unsigned long long)cs.dropped, "drops_unknown",
					  (unsigned long long)cs.drops_unknown, "damaged_pages",
					  (unsigned long long)cs.damaged_pages);
			if (tbpy_append(&per_cpu, o))
				goto done;
		}
	}
	out = Py_BuildValue("{sKsKsKsKsKsOsO}", "events", (unsigned long long)c.events,
			    "unknown_events", (unsigned long long)c.unknown, "dropped",
			    (unsigned long long)dropped, "drops_unknown",
			    (unsigned long long)unknown_drops, "damaged_pages",
			    (unsigned long long)c.damaged, "by_type", by_type, "per_cpu", per_cpu);
	if (out)
		t->stats = Py_NewRef(out);
done:
	tbpy_ptab_free(&c.by_format);
	Py_XDECREF(by_type);
	Py_XDECREF(per_cpu);
	tbpy_walker_put(ss);
	return out;
}

static PyObject *trace_get_drops(tbpy_trace *t, void *c)
{
	(void)c;
	return item(trace_stats(t, NULL), "dropped");
}

static PyObject *trace_close(tbpy_trace *t, PyObject *noargs)
{
	(void)noargs;
	trace_close_(t);
	Py_RETURN_NONE;
}

static PyObject *trace_enter(tbpy_trace *t, PyObject *noargs)
{
	(void)noargs;
	return Py_NewRef(t);
}

static PyObject *trace_exit(tbpy_trace *t, PyObject *args)
{
	(void)args;
	trace_close_(t);
	Py_RETURN_FALSE;
}

static PyObject *trace_iter(tbpy_trace *t)
{
	PyObject *args = PyTuple_New(0), *r;
	if (!args)
		return NULL;
	r = tbpy_events_new(t, args, NULL);
	Py_DECREF(args);
	return r;
}

static PyObject *trace_repr(tbpy_trace *t)
{
	return PyUnicode_FromFormat("<tracebound.Trace %R%s>", t->path ? t->path : Py_None,
				    t->main ? "" : " (closed)");
}

static PyMethodDef trace_methods[] = {
	{ "events", TBPY_KW(tbpy_events_new),
	  "events(name=None, cpus=None, start=None, end=None) -> iterator of Event\n\n"
	  "Every event merged by time; the filters run in C: name an event name\n"
	  "('sched_switch' or 'sched:sched_switch') or a list of them, cpus a\n"
	  "CPU number or a list, start/end timestamps (the file's clock units,\n"
	  "end excluded)." },
	{ "_columns", TBPY_KW(tbpy_columns),
	  "_columns(name=None, cpus=None, start=None, end=None) -> typed buffers per\n"
	  "event type (see Trace.columns)" },
	{ "event_types", (PyCFunction)trace_event_types, METH_NOARGS,
	  "event_types() -> [(system, name, id)] of every event format in the capture" },
	{ "stats", (PyCFunction)trace_stats, METH_NOARGS,
	  "stats() -> events, drops and counts per type and per CPU (one walk, cached)" },
	{ "damage", (PyCFunction)trace_damage, METH_NOARGS,
	  "damage() -> damage found outside the event data (tables, formats, buffers)" },
	{ "close", (PyCFunction)trace_close, METH_NOARGS, "close() -> None" },
	{ "__enter__", (PyCFunction)trace_enter, METH_NOARGS, NULL },
	{ "__exit__", (PyCFunction)trace_exit, METH_VARARGS, NULL },
	{ NULL, NULL, 0, NULL }
};

static PyGetSetDef trace_getset[] = {
	{ "cpus", (getter)trace_get_info_item, NULL, "CPUs of the capture (trace-cmd's cpus=)",
	  (void *)"cpus" },
	{ "clock", (getter)trace_get_clock, NULL, "the trace clock's name", NULL },
	{ "uname", (getter)trace_get_info_item, NULL, "uname of the traced machine, or None",
	  (void *)"uname" },
	{ "drops", (getter)trace_get_drops, NULL, "events the kernel dropped (known counts)", NULL },
	{ "info", (getter)trace_get_info, NULL, "what the capture is (dict)", NULL },
	{ NULL, NULL, NULL, NULL, NULL }
};

static PyMemberDef trace_members[] = {
	{ "path", T_OBJECT, offsetof(tbpy_trace, path), READONLY, "the path opened" },
	{ NULL, 0, 0, 0, NULL }
};

PyTypeObject tbpy_TraceType = {
	TBPY_TYPE("tracebound.Trace", tbpy_trace, trace_dealloc),
	.tp_repr = (reprfunc)trace_repr,
	.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
	.tp_doc = "Trace(path, events=None, skip_damaged=False): an opened capture.",
	.tp_iter = (getiterfunc)trace_iter,
	.tp_methods = trace_methods,
	.tp_getset = trace_getset,
	.tp_members = trace_members,
	.tp_init = (initproc)trace_init,
	.tp_new = PyType_GenericNew,
};
