/*
 * Columns: every selected event type's fields in typed buffers, filled in
 * one walk with the GIL released; no Python object per event.  The
 * columns, their types and nulls are the library's (tb_rows_columns,
 * tb_rows_values: docs/tables.md), the same as the Parquet files'.
 * Integers go into arrays of their own width and signedness; strings are
 * dictionary-coded (a uint32 code per row and each distinct string once,
 * None one code of its own); fixed arrays into rows of their element type;
 * variable-length arrays and bytes into a flat buffer with offsets.  A
 * column's nulls are a byte per row, kept from its first null on.  Python
 * wraps the buffers with numpy (tracebound/__init__.py) without copying
 * them.
 */
#include "tbpy.h"

#include <string.h>

/* Store v in `width` bytes, host order (numpy's native dtype). */
static inline int put_int(tbpy_gbuf *b, uint64_t v, unsigned width)
{
	switch (width) {
	case 1: { uint8_t x = (uint8_t)v; return tbpy_gbuf_put(b, &x, 1); }
	case 2: { uint16_t x = (uint16_t)v; return tbpy_gbuf_put(b, &x, 2); }
	case 4: { uint32_t x = (uint32_t)v; return tbpy_gbuf_put(b, &x, 4); }
	default: return tbpy_gbuf_put(b, &v, 8);
	}
}

/* ---- distinct strings: text -> code ---- */

typedef struct strtab {
	tbpy_gbuf bytes;          /* every distinct string, back to back */
	tbpy_gbuf offs;           /* size_t start of string i (and one past the last) */
	uint32_t *slots;     /* open addressing: code + 1, 0 empty */
	uint64_t *hashes;
	size_t cap, count;
} strtab;

static uint64_t hash_bytes(const uint8_t *p, size_t n)
{
	uint64_t h = 1469598103934665603ull;
	size_t i;
	for (i = 0; i < n; i++) {
		h ^= p[i];
		h *= 1099511628211ull;
	}
	return h;
}

static const uint8_t *str_at(const strtab *t, uint32_t code, size_t *n)
{
	const size_t *o = (const size_t *)(const void *)t->offs.p;
	*n = o[code + 1] - o[code];
	return t->bytes.p ? t->bytes.p + o[code] : (const uint8_t *)""; /* only "" so far */
}

static int strtab_grow(strtab *t)
{
	size_t ncap = t->cap ? t->cap * 2 : 64, i;
	uint32_t *ns = PyMem_RawCalloc(ncap, sizeof(*ns));
	uint64_t *nh = PyMem_RawCalloc(ncap, sizeof(*nh));
	if (!ns || !nh) {
		PyMem_RawFree(ns);
		PyMem_RawFree(nh);
		return -1;
	}
	for (i = 0; i < t->cap; i++) {
		size_t h;
		if (!t->slots[i])
			continue;
		h = (size_t)t->hashes[i] & (ncap - 1);
		while (ns[h])
			h = (h + 1) & (ncap - 1);
		ns[h] = t->slots[i];
		nh[h] = t->hashes[i];
	}
	PyMem_RawFree(t->slots);
	PyMem_RawFree(t->hashes);
	t->slots = ns;
	t->hashes = nh;
	t->cap = ncap;
	return 0;
}

/* The code of s[0..n) (added when new): 0, or -1 when memory ran out. */
static int strtab_code(strtab *t, const uint8_t *s, size_t n, uint32_t *code)
{
	uint64_t h = hash_bytes(s, n);
	size_t i;
	if ((t->count + 1) * 2 > t->cap && strtab_grow(t))
		return -1;
	if (!t->offs.len) {
		size_t zero = 0;
		if (tbpy_gbuf_put(&t->offs, &zero, sizeof(zero)))
			return -1;
	}
	i = (size_t)h & (t->cap - 1);
	while (t->slots[i]) {
		if (t->hashes[i] == h) {
			size_t m;
			const uint8_t *p = str_at(t, t->slots[i] - 1, &m);
			if (m == n && (n == 0 || !memcmp(p, s, n))) {
				*code = t->slots[i] - 1;
				return 0;
			}
		}
		i = (i + 1) & (t->cap - 1);
	}
	if (t->count >= UINT32_MAX - 1 || tbpy_gbuf_put(&t->bytes, s, n))
		return -1;
	{
		size_t end = t->bytes.len;
		if (tbpy_gbuf_put(&t->offs, &end, sizeof(end)))
			return -1;
	}
	t->slots[i] = (uint32_t)(t->count + 1);
	t->hashes[i] = h;
	*code = (uint32_t)t->count++;
	return 0;
}

static void strtab_free(strtab *t)
{
	PyMem_RawFree(t->bytes.p);
	PyMem_RawFree(t->offs.p);
	PyMem_RawFree(t->slots);
	PyMem_RawFree(t->hashes);
	memset(t, 0, sizeof(*t));
}

/* ---- columns of one event type ---- */

enum { COL_NUM, COL_STR, COL_FIXED, COL_LIST };

typedef struct col {
	const tb_rows_column *rc; /* the library's column: name, type, source */
	int kind;            /* COL_* */
	unsigned width;      /* bytes per value (element) */
	int is_signed;
	uint32_t count;      /* COL_FIXED: elements per row */
	tbpy_gbuf data;
	tbpy_gbuf offs;           /* COL_LIST: uint64 end offset (in elements) per row */
	tbpy_gbuf nulls;          /* a byte per row (1: null) once a null was met */
	strtab st;           /* COL_STR */
	int64_t none_code;   /* COL_STR: the code of None, or -1 */
} col;

typedef struct table {
	const tb_format *f;
	size_t rows;
	tb_rows_column *rcs;  /* the library's columns, for tb_rows_values */
	col *cols;
	size_t ncols;
} table;

typedef struct builder {
	table *t;
	size_t n, cap;
	tbpy_ptab index;         /* format -> its table's index */
	const tb_session *s;
	tb_field_value *fv;      /* one record's fields */
	tb_pq_value *row;        /* one row's values */
	int all;                 /* every format met gets a table */
	uint64_t damaged;
} builder;

static void col_plan(col *c, const tb_rows_column *rc)
{
	c->rc = rc;
	c->none_code = -1;
	c->is_signed = rc->is_signed;
	c->width = rc->bits / 8u;
	switch (rc->kind) {
	case TB_ROWS_INT:
		c->kind = COL_NUM;
		break;
	case TB_ROWS_TEXT:
		c->kind = COL_STR;
		c->width = 4;
		break;
	case TB_ROWS_LIST:
		c->kind = rc->count ? COL_FIXED : COL_LIST;
		c->count = rc->count;
		break;
	default: /* bytes: a list of byte values, as the iteration gives them */
		c->kind = COL_LIST;
		c->width = 1;
		break;
	}
}

static int table_init(table *t, const tb_format *f)
{
	size_t i;
	memset(t, 0, sizeof(*t));
	t->f = f;
	t->ncols = tb_rows_columns(f, 0, NULL, 0);
	t->cols = PyMem_RawCalloc(t->ncols, sizeof(col));
	t->rcs = PyMem_RawCalloc(t->ncols, sizeof(*t->rcs));
	if (!t->cols || !t->rcs)
		return -1;
	(void)tb_rows_columns(f, 0, t->rcs, t->ncols);
	for (i = 0; i < t->ncols; i++)
		col_plan(&t->cols[i], &t->rcs[i]);
	return 0;
}

static void table_free(table *t)
{
	size_t i;
	for (i = 0; t->cols && i < t->ncols; i++) {
		PyMem_RawFree(t->cols[i].data.p);
		PyMem_RawFree(t->cols[i].offs.p);
		PyMem_RawFree(t->cols[i].nulls.p);
		strtab_free(&t->cols[i].st);
	}
	PyMem_RawFree(t->cols);
	PyMem_RawFree(t->rcs);
	memset(t, 0, sizeof(*t));
}

static void builder_free(builder *b)
{
	size_t i;
	for (i = 0; i < b->n; i++)
		table_free(&b->t[i]);
	PyMem_RawFree(b->t);
	tbpy_ptab_free(&b->index);
	PyMem_RawFree(b->fv);
	PyMem_RawFree(b->row);
	memset(b, 0, sizeof(*b));
}

/* The table of f: its index, or (size_t)-1 (no table: not selected) and
 * *oom set when memory ran out. */
static size_t table_of(builder *b, const tb_format *f, int *oom)
{
	uint64_t *k = tbpy_ptab_at(&b->index, f, 0);
	if (k)
		return (size_t)*k;
	if (!b->all)
		return (size_t)-1;
	/* a new event type */
	if (b->n == b->cap) {
		size_t nc = b->cap ? b->cap * 2 : 16;
		table *nt = PyMem_RawRealloc(b->t, nc * sizeof(*nt));
		if (!nt) {
			*oom = 1;
			return (size_t)-1;
		}
		b->t = nt;
		b->cap = nc;
	}
	if (table_init(&b->t[b->n], f) || !(k = tbpy_ptab_at(&b->index, f, 1))) {
		table_free(&b->t[b->n]);
		*oom = 1;
		return (size_t)-1;
	}
	*k = b->n;
	return b->n++;
}

/* Row `row`'s null flag: kept from the column's first null on (0, or -1
 * when memory ran out). */
static int put_null(col *c, size_t row, int is_null)
{
	uint8_t one = (uint8_t)(is_null != 0);
	if (!c->nulls.len && !is_null)
		return 0;
	if (!c->nulls.len) {
		if (tbpy_gbuf_reserve(&c->nulls, row + 1))
			return -1;
		memset(c->nulls.p, 0, row);
		c->nulls.len = row;
	}
	return tbpy_gbuf_put(&c->nulls, &one, 1);
}

/* Append one event to its table: 0, or -1 when memory ran out. */
static int table_add(builder *b, table *t, const tb_session_event *ev)
{
	tb_pq_value *vals = b->row;
	size_t i;
	/* a field the record does not hold is a null (the status only says
	 * that one did not read) */
	(void)tb_rows_values(b->s, ev, t->rcs, t->ncols, b->fv, TB_FORMAT_MAX_FIELDS, vals);
	for (i = 0; i < t->ncols; i++) {
		col *c = &t->cols[i];
		const tb_pq_value *v = &vals[i];
		int null = v->is_null;
		uint32_t code;
		if (c->kind != COL_STR && put_null(c, t->rows, null))
			return -1;
		switch (c->kind) {
		case COL_NUM:
			if (put_int(&c->data, null ? 0 : v->i, c->width))
				return -1;
			break;
		case COL_STR:
			if (null) {
				/* None: one code of its own */
				if (c->none_code < 0) {
					if (strtab_code(&c->st, (const uint8_t *)"\0none", 5, &code))
						return -1;
					c->none_code = code;
				}
				code = (uint32_t)c->none_code;
			} else if (strtab_code(&c->st, v->p, v->n, &code)) {
				return -1;
			}
			if (put_int(&c->data, code, 4))
				return -1;
			break;
		case COL_FIXED: {
			uint32_t k;
			if (tbpy_gbuf_reserve(&c->data, (size_t)c->count * c->width))
				return -1;
			for (k = 0; k < c->count; k++)
				(void)put_int(&c->data, !null && k < v->n ? tb_rows_elem(v, k, 0) : 0,
					      c->width);
			break;
		}
		default: { /* COL_LIST: elements, or a null's none */
			size_t cnt = null ? 0 : v->n, k;
			uint64_t end;
			if (tbpy_gbuf_reserve(&c->data, cnt * c->width))
				return -1;
			for (k = 0; k < cnt; k++)
				(void)put_int(&c->data,
					      c->rc->kind == TB_ROWS_BYTES
						      ? ((const uint8_t *)v->p)[k]
						      : tb_rows_elem(v, k, 0),
					      c->width);
			end = c->data.len / c->width;
			if (tbpy_gbuf_put(&c->offs, &end, sizeof(end)))
				return -1;
			break;
		}
		}
	}
	t->rows++;
	return 0;
}

/* Each event into its table (a tbpy_each_fn): 0, or -1 when memory ran out. */
static int table_add_event(void *ctx, const tb_session_event *ev)
{
	builder *b = ctx;
	int oom = 0;
	size_t k;
	if (!ev->format)
		return 0;
	k = table_of(b, ev->format, &oom);
	if (k == (size_t)-1)
		return oom ? -1 : 0;
	return table_add(b, &b->t[k], ev);
}

/* ---- handing the buffers to Python ---- */

typedef struct tbpy_buffer {
	PyObject_HEAD
	void *p;
	Py_ssize_t len;
	Py_ssize_t exports;
} tbpy_buffer;

static int buffer_get(tbpy_buffer *b, Py_buffer *view, int flags)
{
	if (PyBuffer_FillInfo(view, (PyObject *)b, b->p, b->len, 0, flags) < 0)
		return -1;
	b->exports++;
	return 0;
}

static void buffer_release(tbpy_buffer *b, Py_buffer *view)
{
	(void)view;
	b->exports--;
}

static void buffer_dealloc(tbpy_buffer *b)
{
	PyMem_RawFree(b->p);
	PyObject_Free(b);
}

static PyBufferProcs buffer_procs = {
	(getbufferproc)buffer_get,
	(releasebufferproc)buffer_release,
};

PyTypeObject tbpy_BufferType = {
	TBPY_TYPE("tracebound._Buffer", tbpy_buffer, buffer_dealloc),
	.tp_as_buffer = &buffer_procs,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "Memory filled by the decoder (wrapped by numpy.frombuffer).",
};

/* Move g's memory into a Buffer object. */
static PyObject *take(tbpy_gbuf *g)
{
	tbpy_buffer *b;
	if (!g->p && !(g->p = PyMem_RawMalloc(1)))
		return PyErr_NoMemory();
	b = PyObject_New(tbpy_buffer, &tbpy_BufferType);
	if (b) {
		b->p = g->p;
		b->len = (Py_ssize_t)g->len;
		b->exports = 0;
	} else {
		PyMem_RawFree(g->p);
	}
	memset(g, 0, sizeof(*g));
	return (PyObject *)b;
}

/* The distinct strings of a column as a list of str. */
static PyObject *uniques(const strtab *t, int64_t none_code)
{
	PyObject *l = PyList_New((Py_ssize_t)t->count);
	size_t i;
	for (i = 0; l && i < t->count; i++) {
		size_t n;
		const uint8_t *s = str_at(t, (uint32_t)i, &n);
		PyObject *o = (int64_t)i == none_code ? Py_NewRef(Py_None)
						     : tbpy_str((const char *)s, n);
		if (!o) {
			Py_CLEAR(l);
			break;
		}
		PyList_SET_ITEM(l, (Py_ssize_t)i, o);
	}
	return l;
}

/* A list column: one list of ints per row, None where null. */
static PyObject *lists(col *c, size_t rows)
{
	const uint8_t *nulls = c->nulls.len ? c->nulls.p : NULL;
	PyObject *l = PyList_New((Py_ssize_t)rows);
	const uint64_t *ends = (const uint64_t *)(const void *)c->offs.p;
	uint64_t start = 0;
	size_t r;
	for (r = 0; l && r < rows; r++) {
		uint64_t k, end = ends[r];
		PyObject *row;
		if ((r & 0xffff) == 0xffff) {
			/* Python objects need the GIL: let other threads run
			 * between chunks, as the eval loop would */
			Py_BEGIN_ALLOW_THREADS
			Py_END_ALLOW_THREADS
		}
		if (nulls && nulls[r]) {
			PyList_SET_ITEM(l, (Py_ssize_t)r, Py_NewRef(Py_None));
			continue;
		}
		row = PyList_New((Py_ssize_t)(end - start));
		for (k = start; row && k < end; k++) {
			const uint8_t *p = c->data.p + k * c->width;
			uint64_t u = 0;
			PyObject *o;
			switch (c->width) {
			case 1: { uint8_t x; memcpy(&x, p, 1);
				u = c->is_signed ? (uint64_t)(int64_t)(int8_t)x : x; break; }
			case 2: { uint16_t x; memcpy(&x, p, 2);
				u = c->is_signed ? (uint64_t)(int64_t)(int16_t)x : x; break; }
			case 4: { uint32_t x; memcpy(&x, p, 4);
				u = c->is_signed ? (uint64_t)(int64_t)(int32_t)x : x; break; }
			default: memcpy(&u, p, 8); break;
			}
			o = c->is_signed ? PyLong_FromLongLong((long long)(int64_t)u)
					 : PyLong_FromUnsignedLongLong(u);
			if (!o) {
				Py_CLEAR(row);
				break;
			}
			PyList_SET_ITEM(row, (Py_ssize_t)(k - start), o);
		}
		if (!row) {
			Py_CLEAR(l);
			break;
		}
		PyList_SET_ITEM(l, (Py_ssize_t)r, row);
		start = end;
	}
	return l;
}

/* The nulls of a number column: a Buffer of a byte per row, or None. */
static PyObject *nulls_of(col *c)
{
	return c->nulls.len ? take(&c->nulls) : Py_NewRef(Py_None);
}

/* (name, kind, dtype, payload..., nulls) for each column of t. */
static PyObject *table_result(table *t)
{
	PyObject *cols = PyList_New(0);
	size_t i;
	if (!cols)
		return NULL;
	for (i = 0; i < t->ncols; i++) {
		col *c = &t->cols[i];
		PyObject *name = tbpy_str(c->rc->name, c->rc->name_len);
		PyObject *spec = NULL;
		char dt[8];
		snprintf(dt, sizeof(dt), "=%c%u", c->is_signed ? 'i' : 'u', c->width);
		if (!name) {
			Py_DECREF(cols);
			return NULL;
		}
		switch (c->kind) {
		case COL_NUM:
			spec = Py_BuildValue("(NsyNN)", name, "num", dt, take(&c->data),
					     nulls_of(c));
			break;
		case COL_STR:
			spec = Py_BuildValue("(NsyNN)", name, "str", "=u4", take(&c->data),
					     uniques(&c->st, c->none_code));
			break;
		case COL_FIXED:
			spec = Py_BuildValue("(NsyNIN)", name, "fixed", dt, take(&c->data),
					     c->count, nulls_of(c));
			break;
		default:
			spec = Py_BuildValue("(NsyN)", name, "list", dt, lists(c, t->rows));
			break;
		}
		if (tbpy_append(&cols, spec))
			return NULL;
	}
	return Py_BuildValue("(NNnN)", tbpy_str(t->f->system, t->f->system_len),
			     tbpy_str(t->f->name, t->f->name_len), (Py_ssize_t)t->rows, cols);
}

PyObject *tbpy_columns(tbpy_trace *t, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "name", "cpus", "start", "end", NULL };
	PyObject *name = NULL, *cpus = NULL, *start = NULL, *end = NULL, *out = NULL;
	tbpy_filter f;
	builder b;
	tbpy_sess *ss;
	int oom = 0;
	size_t i;
	uint64_t damaged;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "|OOOO", kwlist, &name, &cpus, &start, &end))
		return NULL;
	ss = tbpy_walker_get(t);
	if (!ss)
		return NULL;
	memset(&b, 0, sizeof(b));
	if (tbpy_filter_parse(ss, &f, name, cpus, start, end)) {
		tbpy_walker_put(ss);
		return NULL;
	}
	b.s = ss->s;
	b.all = f.formats == NULL;
	b.fv = PyMem_RawMalloc(TB_FORMAT_MAX_FIELDS * sizeof(*b.fv));
	b.row = PyMem_RawMalloc(TB_ROWS_MAX_COLUMNS * sizeof(*b.row));
	oom = !b.fv || !b.row;
	/* named types get their tables (in the order named) even when empty */
	for (i = 0; i < f.nformats && !oom; i++) {
		b.all = 1;
		(void)table_of(&b, f.formats[i], &oom);
		b.all = 0;
	}
	if (oom) {
		PyErr_NoMemory();
	} else if (tbpy_walk(ss, &f, table_add_event, &b, &b.damaged) == 0) {
		out = PyList_New(0);
		for (i = 0; out && i < b.n; i++)
			(void)tbpy_append(&out, table_result(&b.t[i]));
	}
	damaged = b.damaged;
	builder_free(&b);
	tbpy_walker_put(ss); /* before the filter it was handed goes */
	if (out) /* (tables, damaged pages skipped) */
		out = Py_BuildValue("(NK)", out, (unsigned long long)damaged);
	tbpy_filter_free(&f);
	return out;
}
