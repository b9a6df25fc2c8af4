/*
 * Table rows: events to typed columns, one mapping for every table writer
 * (include/tracebound/rows.h, docs/tables.md).
 */
#include <string.h>

#include "tracebound/rows.h"
#include "reader.h"

typedef struct session_col {
	const char *name;
	uint8_t source, kind, bits, is_signed, nullable;
} session_col;

/* Every table's first columns; then the events table's own. */
static const session_col common_cols[] = {
	{ "__ts", TB_ROWS_TS, TB_ROWS_INT, 64, 0, 0 },
	{ "__cpu", TB_ROWS_CPU, TB_ROWS_INT, 32, 0, 0 },
	{ "__pid", TB_ROWS_PID, TB_ROWS_INT, 32, 1, 1 },
	{ "__comm", TB_ROWS_COMM, TB_ROWS_TEXT, 0, 0, 1 },
	{ "__buffer", TB_ROWS_BUFFER, TB_ROWS_TEXT, 0, 0, 0 },
	{ "__subbuf", TB_ROWS_SUBBUF, TB_ROWS_INT, 64, 0, 0 },
	{ "__offset", TB_ROWS_OFFSET, TB_ROWS_INT, 32, 0, 0 },
};
static const session_col event_cols[] = {
	{ "__system", TB_ROWS_SYSTEM, TB_ROWS_TEXT, 0, 0, 1 },
	{ "__name", TB_ROWS_NAME, TB_ROWS_TEXT, 0, 0, 1 },
	{ "__id", TB_ROWS_ID, TB_ROWS_INT, 32, 0, 1 },
	/* nullable: a writer may have no room for a long rendering */
	{ "__text", TB_ROWS_RENDERED, TB_ROWS_TEXT, 0, 0, 1 },
};
#define NCOMMON (sizeof(common_cols) / sizeof(common_cols[0]))
#define NEVENT (sizeof(event_cols) / sizeof(event_cols[0]))

/* Reserved beyond the columns above: the trace id a dataset adds. */
static const char *const more_reserved[] = { "__trace_id" };

static int name_is(const char *a, const char *b, size_t len)
{
	return strlen(a) == len && !memcmp(a, b, len);
}

int tb_rows_reserved(const char *name, size_t len)
{
	size_t i;
	if (!name || len < 2 || name[0] != '_' || name[1] != '_')
		return 0;
	for (i = 0; i < NCOMMON; i++)
		if (name_is(common_cols[i].name, name, len))
			return 1;
	for (i = 0; i < NEVENT; i++)
		if (name_is(event_cols[i].name, name, len))
			return 1;
	for (i = 0; i < sizeof(more_reserved) / sizeof(more_reserved[0]); i++)
		if (name_is(more_reserved[i], name, len))
			return 1;
	return 0;
}

static void put_session(tb_rows_column *c, const session_col *sc)
{
	memset(c, 0, sizeof(*c));
	c->name_len = strlen(sc->name);
	memcpy(c->name, sc->name, c->name_len + 1);
	c->source = sc->source;
	c->kind = sc->kind;
	c->bits = sc->bits;
	c->is_signed = sc->is_signed;
	c->nullable = sc->nullable;
}

static int int_width(uint32_t n)
{
	return n == 1 || n == 2 || n == 4 || n == 8;
}

/* The column of field i of f (docs/tables.md, "Fields"). */
static void put_field(tb_rows_column *c, const tb_format *f, uint32_t i)
{
	const tb_field *fl = &f->fields[i];
	size_t n = fl->name_len < TB_FORMAT_MAX_NAME ? fl->name_len : TB_FORMAT_MAX_NAME;
	memset(c, 0, sizeof(*c));
	if (tb_rows_reserved(fl->name, n)) {
		memcpy(c->name, "field:", 6);
		c->name_len = 6;
	}
	memcpy(c->name + c->name_len, fl->name, n);
	c->name_len += n;
	c->name[c->name_len] = 0;
	c->source = TB_ROWS_FIELD;
	c->field = i;
	c->nullable = 1;
	c->kind = TB_ROWS_BYTES;
	switch (fl->kind) {
	case TB_FIELD_INT:
	case TB_FIELD_LONG:
	case TB_FIELD_POINTER:
		if (int_width(fl->size)) {
			c->kind = TB_ROWS_INT;
			c->bits = (uint8_t)(fl->size * 8);
			c->is_signed = fl->kind != TB_FIELD_POINTER && (fl->flags & TB_FIELD_SIGNED);
		}
		break;
	case TB_FIELD_STRING:
		c->kind = TB_ROWS_TEXT;
		break;
	case TB_FIELD_ARRAY:
	case TB_FIELD_DYNAMIC:
	case TB_FIELD_REST:
		if (fl->flags & TB_FIELD_TEXT) {
			c->kind = TB_ROWS_TEXT;
		} else if (int_width(fl->elem_size)) {
			c->kind = TB_ROWS_LIST;
			c->bits = (uint8_t)(fl->elem_size * 8);
			c->is_signed = (fl->flags & TB_FIELD_SIGNED) != 0;
			c->count = fl->kind == TB_FIELD_ARRAY ? fl->count : 0;
		}
		break;
	default: /* OPAQUE: its bytes */
		break;
	}
}

size_t tb_rows_columns(const tb_format *format, unsigned flags, tb_rows_column *out, size_t cap)
{
	size_t n = 0, i;
	size_t extra = format ? format->nfields : NEVENT - !(flags & TB_ROWS_WITH_TEXT);
	if (format && extra > TB_FORMAT_MAX_FIELDS)
		extra = TB_FORMAT_MAX_FIELDS; /* a parsed format has no more */
	for (i = 0; i < NCOMMON; i++, n++)
		if (out && n < cap)
			put_session(&out[n], &common_cols[i]);
	for (i = 0; i < extra; i++, n++) {
		if (!out || n >= cap)
			continue;
		if (format)
			put_field(&out[n], format, (uint32_t)i);
		else
			put_session(&out[n], &event_cols[i]);
	}
	return n;
}

void tb_rows_pq_column(const tb_rows_column *col, tb_pq_column *out)
{
	memset(out, 0, sizeof(*out));
	out->name = col->name;
	out->name_len = col->name_len;
	out->bits = col->bits;
	out->flags = (uint8_t)((col->nullable ? TB_PQ_NULLABLE : 0) |
			       (col->is_signed ? TB_PQ_SIGNED : 0));
	out->kind = col->kind == TB_ROWS_INT ? TB_PQ_INT
		    : col->kind == TB_ROWS_LIST ? TB_PQ_LIST : TB_PQ_BYTES;
	/* every text but a rendering repeats */
	if (col->kind == TB_ROWS_TEXT)
		out->flags |= (uint8_t)(TB_PQ_TEXT |
					(col->source == TB_ROWS_RENDERED ? 0 : TB_PQ_DICT));
}

static void text_val(tb_pq_value *v, const void *p, size_t n)
{
	v->p = p ? p : "";
	v->n = p ? n : 0;
}

static size_t cut_nul(const uint8_t *p, size_t n)
{
	const uint8_t *z = n ? memchr(p, 0, n) : NULL;
	return z ? (size_t)(z - p) : n;
}

uint64_t tb_rows_elem(const tb_pq_value *v, size_t k, int is_signed)
{
	const uint8_t *p = (const uint8_t *)v->p + k * v->elem_size;
	return tb_extend(tb_load_n(p, v->elem_size, v->big_endian), v->elem_size, is_signed);
}

/* A field's value from its decoded fv. */
static void field_val(tb_pq_value *v, const tb_rows_column *c, const tb_field_value *fv, int be)
{
	v->is_null = fv->status != TB_OK;
	if (v->is_null)
		return;
	switch (c->kind) {
	case TB_ROWS_INT:
		v->i = fv->num;
		break;
	case TB_ROWS_TEXT:
		text_val(v, fv->data, fv->data ? cut_nul(fv->data, fv->len) : 0);
		break;
	case TB_ROWS_BYTES:
		text_val(v, fv->data, fv->len);
		break;
	default: { /* LIST */
		unsigned es = c->bits / 8u;
		if (!es || fv->len % es) {
			v->is_null = 1;
			break;
		}
		text_val(v, fv->data, fv->len / es);
		v->elem_size = es;
		v->big_endian = be;
		break;
	}
	}
}

static void session_val(tb_pq_value *v, const tb_rows_column *c, const tb_session *s,
			const tb_session_event *ev)
{
	const tb_format *f = ev->format;
	v->is_null = 0;
	switch (c->source) {
	case TB_ROWS_TS: v->i = ev->ts; break;
	case TB_ROWS_CPU: v->i = ev->cpu; break;
	case TB_ROWS_SUBBUF: v->i = ev->page_index; break;
	case TB_ROWS_OFFSET: v->i = ev->offset; break;
	case TB_ROWS_PID:
		v->i = (uint64_t)(int64_t)ev->pid;
		v->is_null = !ev->has_pid;
		break;
	case TB_ROWS_COMM:
		if (!ev->has_pid || (!ev->comm_known && ev->pid != 0))
			v->is_null = 1;
		else if (ev->comm_known)
			text_val(v, ev->comm, ev->comm_len);
		else
			text_val(v, "<idle>", 6);
		break;
	case TB_ROWS_BUFFER: {
		const tb_session_buffer_info *bi = tb_session_buffer(s, ev->buffer);
		text_val(v, bi ? bi->name.ptr : NULL, bi ? bi->name.len : 0);
		break;
	}
	case TB_ROWS_SYSTEM:
		v->is_null = !f || !f->system;
		if (!v->is_null)
			text_val(v, f->system, f->system_len);
		break;
	case TB_ROWS_NAME:
		v->is_null = !f;
		if (f)
			text_val(v, f->name, f->name_len);
		break;
	case TB_ROWS_ID:
		v->i = ev->id;
		v->is_null = !ev->has_id;
		break;
	default: /* RENDERED: the caller's */
		v->is_null = 1;
		break;
	}
}

tb_status tb_rows_values(const tb_session *s, const tb_session_event *ev,
			 const tb_rows_column *cols, size_t ncols,
			 tb_field_value *fv, size_t nfv, tb_pq_value *vals)
{
	const tb_session_info *in = tb_session_get_info(s);
	const tb_format *f = ev ? ev->format : NULL;
	tb_status st = TB_OK;
	int be = in ? in->big_endian : 0, decoded = 0;
	size_t i;
	tb_error e;
	if (!ev || ev->kind != TB_SEV_EVENT || (ncols && (!cols || !vals)))
		return TB_ERR_ARG;
	for (i = 0; i < ncols; i++) {
		const tb_rows_column *c = &cols[i];
		tb_pq_value *v = &vals[i];
		if (c->source != TB_ROWS_FIELD) {
			session_val(v, c, s, ev);
			continue;
		}
		if (!decoded) {
			/* a field that does not read is a null; the others
			 * still count */
			size_t n = f ? (f->nfields < nfv ? f->nfields : nfv) : 0;
			decoded = 1;
			if (n && tb_format_decode(f, ev->data, ev->len, be, fv, n, &e) != TB_OK)
				st = e.status;
			if (f && n < f->nfields && st == TB_OK)
				st = TB_ERR_LIMIT;
		}
		if (!f || c->field >= f->nfields || c->field >= nfv) {
			v->is_null = 1;
			continue;
		}
		field_val(v, c, &fv[c->field], be);
	}
	return st;
}
