/* Event formats for the CLI: loading an events directory, printing events. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "events.h"
#include "files.h"

struct tb_cli_events {
	tb_format_set set;
	tb_format *events;
	tb_field *fields;
	uint32_t *index;
	int32_t *pid_field; /* per stored format: index of common_pid, or -1 */
	tb_fmt_dir dir;          /* the format files and their texts */
	size_t bad_formats;
	size_t bad_records;
};

/* An upper bound of a text's field lines: the word "field" after a blank. */
static size_t count_fields(const char *t, size_t n)
{
	size_t i, c = 0;
	for (i = 0; i + 5 <= n; i++)
		if (t[i] == 'f' && (i == 0 || t[i - 1] == '\t' || t[i - 1] == ' ' ||
				    t[i - 1] == '\n') && !memcmp(t + i, "field", 5))
			c++;
	return c;
}

tb_cli_events *tb_cli_events_load(const char *dir, unsigned long_size)
{
	tb_cli_events *ev = calloc(1, sizeof(*ev));
	size_t nfields = 1, ilen, i;

	if (!ev || tb_fmt_dir_read(&ev->dir, dir) != 0) {
		fprintf(stderr, "tracebound: %s: cannot read the event formats\n", dir);
		tb_cli_events_free(ev);
		return NULL;
	}
	if (ev->dir.n == 0) {
		fprintf(stderr, "tracebound: %s: no <system>/<event>/format files\n", dir);
		tb_cli_events_free(ev);
		return NULL;
	}
	for (i = 0; i < ev->dir.n; i++)
		nfields += count_fields(ev->dir.files[i].text, ev->dir.files[i].len);
	ilen = tb_format_index_len(ev->dir.n);
	ev->events = calloc(ev->dir.n, sizeof(tb_format));
	ev->fields = calloc(nfields, sizeof(tb_field));
	ev->index = calloc(ilen, sizeof(uint32_t));
	ev->pid_field = calloc(ev->dir.n, sizeof(int32_t));
	if (!ev->events || !ev->fields || !ev->index || !ev->pid_field ||
	    tb_format_set_init(&ev->set, ev->events, ev->dir.n, ev->fields, nfields,
			       ev->index, ilen, long_size) != TB_OK) {
		fprintf(stderr, "tracebound: %s: out of memory for %zu formats\n", dir,
			ev->dir.n);
		tb_cli_events_free(ev);
		return NULL;
	}
	for (i = 0; i < ev->dir.n; i++) {
		const tb_fmt_file *f = &ev->dir.files[i];
		tb_format_error fe;
		const tb_format *added;
		tb_status st = tb_format_set_add(&ev->set, f->text, f->len, f->system,
						 strlen(f->system), &added, &fe);
		if (st == TB_OK) {
			const tb_field *pid = tb_format_field(added, "common_pid");
			ev->pid_field[added - ev->events] = pid ? (int32_t)pid->index : -1;
			continue;
		}
		ev->bad_formats++;
		if (fe.line)
			fprintf(stderr, "tracebound: %s: line %u, column %u: %s (%s)\n", f->path,
				fe.line, fe.column, fe.error.what, tb_strerror(st));
		else
			fprintf(stderr, "tracebound: %s: %s (%s)\n", f->path, fe.error.what,
				tb_strerror(st));
	}
	return ev;
}

const tb_session_format_text *tb_cli_events_texts(tb_cli_events *ev, size_t *n)
{
	*n = 0;
	if (!ev)
		return NULL;
	*n = ev->dir.n;
	return ev->dir.texts;
}

void tb_cli_events_count_bad(tb_cli_events *ev)
{
	if (ev)
		ev->bad_records++;
}

size_t tb_cli_events_count(const tb_cli_events *ev)
{
	return ev ? ev->set.count : 0;
}

size_t tb_cli_events_free(tb_cli_events *ev)
{
	size_t problems;
	if (!ev)
		return 0;
	problems = ev->bad_formats + ev->bad_records;
	if (ev->bad_formats)
		fprintf(stderr, "tracebound: %zu event format(s) could not be used\n",
			ev->bad_formats);
	if (ev->bad_records)
		fprintf(stderr, "tracebound: %zu record(s) did not fit their event format\n",
			ev->bad_records);
	tb_fmt_dir_free(&ev->dir);
	free(ev->events);
	free(ev->fields);
	free(ev->index);
	free(ev->pid_field);
	free(ev);
	return problems;
}

/* ---- printing ---- */

static int is_scalar(const tb_field *f)
{
	return f->kind == TB_FIELD_INT || f->kind == TB_FIELD_LONG ||
	       f->kind == TB_FIELD_POINTER;
}

/* Text bytes cut at the first NUL. */
static size_t text_len(const uint8_t *p, size_t n)
{
	const uint8_t *nul = n ? memchr(p, 0, n) : NULL;
	return nul ? (size_t)(nul - p) : n;
}

static void text_str(FILE *out, const uint8_t *p, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++) {
		if (p[i] > 0x20 && p[i] < 0x7f && p[i] != '\\')
			putc(p[i], out);
		else
			fprintf(out, "\\x%02x", p[i]);
	}
}

static void print_num(FILE *out, const tb_field *f, uint64_t v, int hex)
{
	if (f->flags & TB_FIELD_SIGNED)
		fprintf(out, "%lld", (long long)v);
	else if (hex)
		fprintf(out, "0x%llx", (unsigned long long)v);
	else
		fprintf(out, "%llu", (unsigned long long)v);
}

/* An array, dynamic array or opaque field as numbers of its element size. */
static void print_elems(FILE *out, const tb_field *f, const tb_field_value *v,
			const uint8_t *rec, size_t len, int be, int json)
{
	tb_field copy = *f;
	size_t n, i;
	if (f->kind == TB_FIELD_OPAQUE) { /* bytes */
		copy.kind = TB_FIELD_ARRAY;
		copy.elem_size = 1;
		copy.flags &= (uint8_t)~TB_FIELD_SIGNED;
	}
	n = copy.elem_size ? v->len / copy.elem_size : 0;
	putc(json ? '[' : '{', out);
	for (i = 0; i < n; i++) {
		uint64_t e;
		if (i)
			putc(',', out);
		if (tb_field_elem(&copy, rec, len, be, i, &e, NULL) == TB_OK)
			print_num(out, &copy, e, 0);
		else
			fputs(json ? "null" : "?", out);
	}
	putc(json ? ']' : '}', out);
}

static void print_value(FILE *out, const tb_field *f, const tb_field_value *v,
			const uint8_t *rec, size_t len, int be, int json)
{
	if (v->status != TB_OK) {
		if (json)
			fputs("null", out);
		else
			fprintf(out, "<%s>", tb_strerror(v->status));
	} else if (is_scalar(f)) {
		print_num(out, f, v->num, !json && f->kind != TB_FIELD_INT);
	} else if (f->flags & TB_FIELD_TEXT) {
		size_t n = text_len(v->data, v->len);
		if (json)
			tb_cli_json_str(out, (const char *)v->data, n);
		else
			text_str(out, v->data, n);
	} else {
		print_elems(out, f, v, rec, len, be, json);
	}
}

int tb_cli_events_print(tb_cli_events *ev, FILE *out, int cpu,
			uint64_t ts, const uint8_t *rec, size_t len, int big_endian)
{
	tb_field_value vals[TB_FORMAT_MAX_FIELDS];
	const tb_format *f;
	tb_error e;
	uint32_t i;
	int32_t pid;

	if (!ev || tb_format_set_lookup(&ev->set, rec, len, big_endian, &f, &e) != TB_OK)
		return 0;
	if (tb_format_decode(f, rec, len, big_endian, vals, TB_FORMAT_MAX_FIELDS, &e) != TB_OK) {
		if (ev->bad_records++ == 0)
			fprintf(stderr, "tracebound: cpu %d ts %llu: %.*s record of %zu bytes: %s\n",
				cpu, (unsigned long long)ts, (int)f->name_len, f->name, len, e.what);
	}
	fprintf(out, "cpu=%d ts=%llu ", cpu, (unsigned long long)ts);
	pid = ev->pid_field[f - ev->events];
	if (pid >= 0 && vals[pid].status == TB_OK)
		fprintf(out, "pid=%lld ", (long long)vals[pid].num);
	fprintf(out, "%.*s:%.*s:", (int)f->system_len, f->system ? f->system : "",
		(int)f->name_len, f->name);
	for (i = 0; i < f->nfields; i++) {
		const tb_field *fl = &f->fields[i];
		if (fl->flags & TB_FIELD_COMMON)
			continue;
		fprintf(out, " %.*s=", (int)fl->name_len, fl->name);
		print_value(out, fl, &vals[i], rec, len, big_endian, 0);
	}
	putc('\n', out);
	return 1;
}

/* ---- listing (tracebound formats) ---- */

/* The type with the array part the kernel prints after the name:
 * "char[16]", "char[]" (rest of record); the type text otherwise. */
static void type_text(char *buf, size_t n, const tb_field *fl)
{
	if (fl->kind == TB_FIELD_ARRAY || fl->kind == TB_FIELD_STRING)
		snprintf(buf, n, "%.*s[%u]", (int)fl->type_len, fl->type, fl->count);
	else if (fl->kind == TB_FIELD_REST)
		snprintf(buf, n, "%.*s[]", (int)fl->type_len, fl->type);
	else
		snprintf(buf, n, "%.*s", (int)fl->type_len, fl->type);
}

void tb_cli_events_list(const tb_cli_events *ev, FILE *out, int json)
{
	size_t i;
	uint32_t k;
	for (i = 0; i < ev->set.count; i++) {
		const tb_format *f = &ev->set.events[i];
		if (json) {
			fputs("{\"system\":", out);
			tb_cli_json_str(out, f->system, f->system_len);
			fputs(",\"name\":", out);
			tb_cli_json_str(out, f->name, f->name_len);
			fprintf(out, ",\"id\":%u,\"fields\":[", f->id);
		} else {
			fprintf(out, "%.*s:%.*s id=%u fields=%u\n", (int)f->system_len, f->system,
				(int)f->name_len, f->name, f->id, f->nfields);
		}
		for (k = 0; k < f->nfields; k++) {
			const tb_field *fl = &f->fields[k];
			int sig = (fl->flags & TB_FIELD_SIGNED) != 0;
			char type[TB_FORMAT_MAX_TYPE + 16];
			type_text(type, sizeof(type), fl);
			if (!json) {
				fprintf(out, "\t%s %.*s; offset=%u size=%u signed=%d kind=%s\n",
					type, (int)fl->name_len, fl->name, fl->offset, fl->size, sig,
					tb_field_kind_name(fl->kind));
				continue;
			}
			fputs(k ? ",{\"name\":" : "{\"name\":", out);
			tb_cli_json_str(out, fl->name, fl->name_len);
			fputs(",\"type\":", out);
			tb_cli_json_str(out, type, strlen(type));
			fprintf(out, ",\"offset\":%u,\"size\":%u,\"signed\":%d,\"kind\":\"%s\"}",
				fl->offset, fl->size, sig, tb_field_kind_name(fl->kind));
		}
		if (json)
			fputs("]}\n", out);
	}
}
