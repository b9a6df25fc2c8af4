/*
 * Format text in, parsed, then every field read from a record carved
 * from the rest of the input.  Input: TEXT [ '\0' FLAGS RECORD ], where
 * FLAGS bit 0 = big-endian record, bit 1 = 4-byte kernel long.  The same
 * text also goes through the header_page parser and a one-slot set.
 *
 * The promises of format.h checked: every error's offset lies in the text
 * (or just past its end) and its line and column, 1-based, name that same
 * byte (an empty text included); every field accessor agrees with the
 * harness's own reading of the record (format_check.h).
 */
#include <string.h>

#include "format_check.h"

/* format.h: line and column (1-based, column in bytes) name the byte
 * error.offset names, which lies in the text or just past its end. */
static void position_agrees(const uint8_t *text, size_t len, const tb_format_error *e)
{
	uint32_t line = 1;
	size_t i, start = 0;
	TB_FUZZ_CHECK(e->error.offset <= len);
	for (i = 0; i < e->error.offset; i++)
		if (text[i] == '\n') {
			line++;
			start = i + 1;
		}
	TB_FUZZ_CHECK(e->line == line);
	TB_FUZZ_CHECK(e->column == e->error.offset - start + 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static tb_field fields[TB_FORMAT_MAX_FIELDS];
	const uint8_t *nul = size ? (const uint8_t *)memchr(data, 0, size) : NULL;
	size_t tlen = nul ? (size_t)(nul - data) : size;
	const uint8_t *rec = NULL;
	size_t rlen = 0;
	int be = 0;
	unsigned long_size = 8;
	tb_format f;
	tb_format_error e;
	tb_header_page hp;
	tb_status st;

	if (nul && tlen + 1 < size) {
		be = data[tlen + 1] & 1;
		long_size = (data[tlen + 1] & 2) ? 4 : 8;
		rec = data + tlen + 2;
		rlen = size - tlen - 2;
	}
	st = tb_format_parse((const char *)data, tlen, fields, TB_FORMAT_MAX_FIELDS,
			     long_size, &f, &e);
	if (st != TB_OK) {
		TB_FUZZ_CHECK(tb_is_error(st) && e.error.status == st);
		TB_FUZZ_CHECK(e.error.offset <= tlen && e.error.what != NULL);
		position_agrees(data, tlen, &e);
	} else {
		uint32_t i;
		TB_FUZZ_CHECK(f.nfields <= TB_FORMAT_MAX_FIELDS && f.ncommon <= f.nfields);
		TB_FUZZ_CHECK(f.min_size <= TB_FORMAT_MAX_RECORD);
		TB_FUZZ_CHECK(tb_fuzz_inside(f.name, f.name_len, data, tlen));
		if (f.print_fmt_len)
			TB_FUZZ_CHECK(tb_fuzz_inside(f.print_fmt, f.print_fmt_len, data, tlen));
		for (i = 0; i < f.nfields; i++) {
			const tb_field *fl = &f.fields[i];
			TB_FUZZ_CHECK(tb_fuzz_inside(fl->name, fl->name_len, data, tlen));
			TB_FUZZ_CHECK(tb_fuzz_inside(fl->type, fl->type_len, data, tlen));
			TB_FUZZ_CHECK(fl->kind < TB_FIELD_KIND_END_ && fl->index == i);
			TB_FUZZ_CHECK(tb_format_field_n(&f, fl->name, fl->name_len) == fl);
			if (fl->kind == TB_FIELD_ARRAY || fl->kind == TB_FIELD_STRING)
				TB_FUZZ_CHECK(fl->elem_size * fl->count == fl->size);
		}
		tb_fuzz_read_fields(&f, rec, rlen, be);
		{
			tb_format ev[1];
			uint32_t index[4];
			tb_format_set set;
			const tb_format *got;
			tb_error er;
			TB_FUZZ_CHECK(tb_format_set_init(&set, ev, 1, fields, TB_FORMAT_MAX_FIELDS,
							 index, 4, long_size) == TB_OK);
			if (tb_format_set_add(&set, (const char *)data, tlen, "fuzz", 4, &got, &e) ==
			    TB_OK) {
				TB_FUZZ_CHECK(tb_format_set_by_id(&set, f.id) == got);
				TB_FUZZ_CHECK(tb_format_set_find(&set, "fuzz", NULL) == NULL);
				st = tb_format_set_lookup(&set, rec, rlen, be, &got, &er);
				TB_FUZZ_CHECK(st == TB_OK || st == TB_NOT_FOUND ||
					      st == TB_ERR_TRUNCATED);
				if (st == TB_OK)
					TB_FUZZ_CHECK(got->id == f.id);
			}
		}
	}
	st = tb_format_parse_header_page((const char *)data, tlen, &hp, &e);
	if (st == TB_OK)
		TB_FUZZ_CHECK(hp.data_offset >= hp.commit_offset + hp.commit_size &&
			      hp.data_size > 0);
	else
		position_agrees(data, tlen, &e);
	return 0;
}
