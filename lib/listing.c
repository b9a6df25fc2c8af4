/* Plain listings into the text sink (include/tracebound/listing.h). */
#include <string.h>

#include "tracebound/listing.h"

static const char hexdig[] = "0123456789abcdef";

void tb_list_bytes(tb_text *t, const void *s, size_t n, unsigned flags)
{
	const uint8_t *p = s;
	uint8_t lo = (flags & TB_LIST_SPACE) ? 0x20 : 0x21;
	size_t i, run = 0;
	if (n == 0) /* s may be NULL then: no pointer arithmetic on it */
		return;
	for (i = 0; i < n; i++) {
		char esc[4] = { '\\', 'x', 0, 0 };
		if (p[i] >= lo && p[i] < 0x7f && p[i] != '\\')
			continue;
		esc[2] = hexdig[p[i] >> 4];
		esc[3] = hexdig[p[i] & 15];
		tb_text_put(t, (const char *)p + run, i - run); /* the printable run before */
		tb_text_put(t, esc, 4);
		run = i + 1;
	}
	tb_text_put(t, (const char *)p + run, n - run);
}

static void put_num(tb_text *t, const tb_field *f, uint64_t v, int hex)
{
	if (f->flags & TB_FIELD_SIGNED) {
		tb_text_i64(t, (int64_t)v, 0, 0);
	} else if (hex) {
		tb_text_put(t, "0x", 2);
		tb_text_hex(t, v, 0, 0);
	} else {
		tb_text_u64(t, v, 0, 0);
	}
}

size_t tb_list_elems(const tb_field *f, const tb_field_value *v, tb_field *elem)
{
	*elem = *f;
	if (f->kind == TB_FIELD_OPAQUE) { /* bytes */
		elem->kind = TB_FIELD_ARRAY;
		elem->elem_size = 1;
		elem->flags &= (uint8_t)~TB_FIELD_SIGNED;
	}
	return v->status == TB_OK && elem->elem_size ? v->len / elem->elem_size : 0;
}

void tb_list_field(tb_text *t, const tb_field *f, const tb_field_value *v, const void *rec,
		   size_t len, int big_endian, unsigned flags)
{
	int json = (flags & TB_LIST_JSON) != 0;
	tb_field elem;
	size_t n, i;
	if (v->status != TB_OK) {
		if (json) {
			tb_text_puts(t, "null");
		} else {
			tb_text_putc(t, '<');
			tb_text_puts(t, tb_strerror(v->status));
			tb_text_putc(t, '>');
		}
		return;
	}
	if (f->kind == TB_FIELD_INT || f->kind == TB_FIELD_LONG || f->kind == TB_FIELD_POINTER) {
		put_num(t, f, v->num, !json && f->kind != TB_FIELD_INT);
		return;
	}
	if (f->flags & TB_FIELD_TEXT) {
		const uint8_t *nul = v->len ? memchr(v->data, 0, v->len) : NULL;
		n = nul ? (size_t)(nul - v->data) : v->len;
		if (json)
			tb_json_str(t, (const char *)v->data, n);
		else
			tb_list_bytes(t, v->data, n, 0);
		return;
	}
	n = tb_list_elems(f, v, &elem);
	tb_text_putc(t, json ? '[' : '{');
	for (i = 0; i < n; i++) {
		uint64_t e;
		if (i)
			tb_text_putc(t, ',');
		if (tb_field_elem(&elem, rec, len, big_endian, i, &e, NULL) == TB_OK)
			put_num(t, &elem, e, 0);
		else
			tb_text_puts(t, json ? "null" : "?");
	}
	tb_text_putc(t, json ? ']' : '}');
}

/* "system:name" (a format without a system: ":name"). */
static void put_name(tb_text *t, const tb_format *f)
{
	tb_text_put(t, f->system, f->system ? f->system_len : 0);
	tb_text_putc(t, ':');
	tb_text_put(t, f->name, f->name_len);
}

/* "key=" / "\"key\":" (after a separator) and a number. */
static void put_key(tb_text *t, const char *key, int json)
{
	if (json) {
		tb_text_putc(t, '"');
		tb_text_puts(t, key);
		tb_text_put(t, "\":", 2);
	} else {
		tb_text_puts(t, key);
		tb_text_putc(t, '=');
	}
}

static void put_u(tb_text *t, const char *sep, const char *key, uint64_t v, int json)
{
	tb_text_puts(t, sep);
	put_key(t, key, json);
	tb_text_u64(t, v, 0, 0);
}

tb_status tb_list_event(tb_text *t, const tb_format *f, uint32_t cpu, uint64_t ts,
			const void *rec, size_t len, int big_endian, tb_field_value *fv,
			size_t nfv, tb_error *err)
{
	size_t n = f->nfields < nfv ? f->nfields : nfv, i;
	tb_status st = TB_OK;
	tb_error e;
	const tb_field *pid = tb_format_field(f, "common_pid");
	if (n && tb_format_decode(f, rec, len, big_endian, fv, n, &e) != TB_OK) {
		st = e.status;
		if (err)
			*err = e;
	}
	put_u(t, "", "cpu", cpu, 0);
	put_u(t, " ", "ts", ts, 0);
	tb_text_putc(t, ' ');
	if (pid && pid->index < n && fv[pid->index].status == TB_OK) {
		put_key(t, "pid", 0);
		tb_text_i64(t, (int64_t)fv[pid->index].num, 0, 0);
		tb_text_putc(t, ' ');
	}
	put_name(t, f);
	tb_text_putc(t, ':');
	for (i = 0; i < f->nfields; i++) {
		const tb_field *fl = &f->fields[i];
		static const tb_field_value unread = { TB_ERR_LIMIT, 0, NULL, 0 };
		if (fl->flags & TB_FIELD_COMMON)
			continue;
		tb_text_putc(t, ' ');
		tb_text_put(t, fl->name, fl->name_len);
		tb_text_putc(t, '=');
		tb_list_field(t, fl, i < n ? &fv[i] : &unread, rec, len, big_endian, 0);
	}
	tb_text_putc(t, '\n');
	return st;
}

/* The record's place: "cpu= subbuf= offset= ts= size=". */
static void put_place(tb_text *t, uint32_t cpu, uint64_t subbuf, const tb_kbuf_record *r,
		      uint32_t size)
{
	put_u(t, "", "cpu", cpu, 0);
	put_u(t, " ", "subbuf", subbuf, 0);
	put_u(t, " ", "offset", r->offset, 0);
	put_u(t, " ", "ts", r->ts, 0);
	put_u(t, " ", "size", size, 0);
}

void tb_list_kbuf_record(tb_text *t, uint32_t cpu, uint64_t subbuf, const tb_kbuf_record *r,
			 int big_endian, unsigned flags)
{
	const char *kind = (r->flags & TB_KBUF_REC_NULL_PAD) ? "null_padding"
							     : tb_kbuf_kind_name(r->kind);
	if (r->kind == TB_KBUF_DATA) {
		const uint8_t *p = r->payload;
		put_place(t, cpu, subbuf, r, r->payload_len);
		/* common_type, in the traced machine's byte order */
		if (r->payload_len >= 2)
			put_u(t, " ", "id",
			      big_endian ? (unsigned)p[0] << 8 | p[1] : (unsigned)p[1] << 8 | p[0],
			      0);
		else
			tb_text_puts(t, " id=-");
	} else if (flags & TB_LIST_JSON) {
		put_u(t, "{", "cpu", cpu, 1);
		put_u(t, ",", "ts", r->ts, 1);
		tb_text_puts(t, ",\"kind\":");
		tb_json_str(t, kind, strlen(kind));
		put_u(t, ",", "subbuf", subbuf, 1);
		put_u(t, ",", "offset", r->offset, 1);
		put_u(t, ",", "size", r->size, 1);
		tb_text_putc(t, '}');
	} else {
		put_place(t, cpu, subbuf, r, r->size);
		tb_text_puts(t, " kind=");
		tb_text_puts(t, kind);
	}
	tb_text_putc(t, '\n');
}

void tb_list_kbuf_missed(tb_text *t, uint32_t cpu, uint64_t subbuf, int64_t missed,
			 unsigned flags)
{
	int json = (flags & TB_LIST_JSON) != 0;
	put_u(t, json ? "{" : "", "cpu", cpu, json);
	if (json) {
		tb_text_puts(t, ",\"missed\":");
		tb_text_i64(t, missed, 0, 0);
		put_u(t, ",", "subbuf", subbuf, 1);
		tb_text_putc(t, '}');
	} else {
		put_u(t, " ", "subbuf", subbuf, 0);
		tb_text_puts(t, " missed=");
		if (missed < 0)
			tb_text_puts(t, "unknown");
		else
			tb_text_i64(t, missed, 0, 0);
	}
	tb_text_putc(t, '\n');
}

/* The type with the array part the kernel prints after the name:
 * "char[16]", "char[]" (rest of record); the type text otherwise. */
static void put_type(tb_text *t, const tb_field *fl)
{
	tb_text_put(t, fl->type, fl->type_len);
	if (fl->kind == TB_FIELD_ARRAY || fl->kind == TB_FIELD_STRING) {
		tb_text_putc(t, '[');
		tb_text_u64(t, fl->count, 0, 0);
		tb_text_putc(t, ']');
	} else if (fl->kind == TB_FIELD_REST) {
		tb_text_put(t, "[]", 2);
	}
}

void tb_list_format(tb_text *t, const tb_format *f, unsigned flags)
{
	int json = (flags & TB_LIST_JSON) != 0;
	uint32_t k;
	if (json) {
		tb_text_puts(t, "{\"system\":");
		tb_json_str(t, f->system, f->system ? f->system_len : 0);
		tb_text_puts(t, ",\"name\":");
		tb_json_str(t, f->name, f->name_len);
		put_u(t, ",", "id", f->id, 1);
		tb_text_puts(t, ",\"fields\":[");
	} else {
		put_name(t, f);
		put_u(t, " ", "id", f->id, 0);
		put_u(t, " ", "fields", f->nfields, 0);
		tb_text_putc(t, '\n');
	}
	for (k = 0; k < f->nfields; k++) {
		const tb_field *fl = &f->fields[k];
		const char *kind = tb_field_kind_name(fl->kind);
		if (!json) {
			tb_text_putc(t, '\t');
			put_type(t, fl);
			tb_text_putc(t, ' ');
			tb_text_put(t, fl->name, fl->name_len);
			put_u(t, "", "; offset", fl->offset, 0);
			put_u(t, " ", "size", fl->size, 0);
			put_u(t, " ", "signed", (fl->flags & TB_FIELD_SIGNED) != 0, 0);
			tb_text_puts(t, " kind=");
			tb_text_puts(t, kind);
			tb_text_putc(t, '\n');
			continue;
		}
		tb_text_puts(t, k ? ",{\"name\":" : "{\"name\":");
		tb_json_str(t, fl->name, fl->name_len);
		tb_text_puts(t, ",\"type\":");
		{
			/* the type is written once into room of its own, then escaped */
			char type[TB_FORMAT_MAX_TYPE + 24];
			tb_text tt;
			tb_text_init(&tt, type, sizeof(type));
			put_type(&tt, fl);
			tb_json_str(t, type, tt.len);
		}
		put_u(t, ",", "offset", fl->offset, 1);
		put_u(t, ",", "size", fl->size, 1);
		put_u(t, ",", "signed", (fl->flags & TB_FIELD_SIGNED) != 0, 1);
		tb_text_puts(t, ",\"kind\":\"");
		tb_text_puts(t, kind);
		tb_text_put(t, "\"}", 2);
	}
	if (json)
		tb_text_put(t, "]}\n", 3);
}
