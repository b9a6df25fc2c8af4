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
	tb_fmt_dir dir;          /* the format files and their texts */
	size_t bad_formats;
	size_t bad_records;
	tb_cli_text out;    /* the lines, rendered by the library */
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
	if (!ev->events || !ev->fields || !ev->index ||
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
		if (st == TB_OK)
			continue;
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
	tb_cli_text_free(&ev->out);
	free(ev);
	return problems;
}

/* ---- printing: the library's listings (tracebound/listing.h) ---- */

int tb_cli_events_print(tb_cli_events *ev, FILE *out, int cpu,
			uint64_t ts, const uint8_t *rec, size_t len, int big_endian)
{
	tb_field_value vals[TB_FORMAT_MAX_FIELDS];
	const tb_format *f;
	tb_error e;
	tb_status st = TB_OK;

	if (!ev || tb_format_set_lookup(&ev->set, rec, len, big_endian, &f, &e) != TB_OK)
		return 0;
	TB_CLI_PRINT(&ev->out, out, st = tb_list_event(&ev->out.t, f, (uint32_t)cpu, ts, rec,
						       len, big_endian, vals,
						       TB_FORMAT_MAX_FIELDS, &e));
	if (st != TB_OK && ev->bad_records++ == 0)
		fprintf(stderr, "tracebound: cpu %d ts %llu: %.*s record of %zu bytes: %s\n",
			cpu, (unsigned long long)ts, (int)f->name_len, f->name, len, e.what);
	return 1;
}

void tb_cli_events_list(tb_cli_events *ev, FILE *out, int json)
{
	size_t i;
	for (i = 0; i < ev->set.count; i++)
		TB_CLI_PRINT(&ev->out, out,
			     tb_list_format(&ev->out.t, &ev->set.events[i], json ? TB_LIST_JSON : 0));
}
