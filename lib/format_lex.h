/*
 * The field-line grammar shared by event formats (lib/format.c) and
 * header_page (lib/format.c, used by the sub-buffer walker):
 *
 *   line  := WS* "field" [WS+ "special"] ":" WS* DECL ";" { WS* KEY ":" WS* NUM ";" } WS*
 *   DECL  := TYPE NAME [ "[" SPEC "]" ]     (TYPE may hold "[]", "*", attributes)
 *   KEY   := "offset" | "size" | "signed"   (each at most once; no other key)
 *
 * Internal header: not installed, not part of the API.
 */
#ifndef TB_LIB_FORMAT_LEX_H
#define TB_LIB_FORMAT_LEX_H

#include "internal.h"
#include "tracebound/format.h"

/* Where a text is being read: for errors with line and column. */
typedef struct tb_text_pos {
	const char *text;
	size_t len;
	size_t line_start; /* byte offset of the current line */
	uint32_t line;     /* 1-based */
} tb_text_pos;

/* One field line, split but not yet classified.  Offsets are absolute
 * byte offsets in the text. */
typedef struct tb_field_line {
	size_t type_off, type_len;   /* TYPE, trimmed */
	size_t name_off, name_len;   /* NAME */
	size_t spec_off, spec_len;   /* inside [ ] after the name */
	int has_spec;                /* NAME was followed by [ ] */
	uint32_t offset, size;
	int is_signed;               /* 0, 1, or -1 when no `signed:` */
	size_t decl_off;             /* where DECL starts (for errors about it) */
	size_t offset_off, size_off; /* where the offset and size values start */
} tb_field_line;

/* Start reading a text: position at its first byte, *err cleared. */
void tb_text_begin(tb_text_pos *tp, const char *text, size_t len,
		   tb_format_error *err);

/* Fail at byte `at` of the text, filling line and column. */
tb_status tb_text_fail(const tb_text_pos *tp, tb_format_error *err, tb_status st,
		       size_t at, const char *what);

/* The same for any byte of the text: the line is counted from the start
 * (for errors found after the lines were read). */
tb_status tb_text_fail_any(const tb_text_pos *tp, tb_format_error *err,
			   tb_status st, size_t at, const char *what);

/* Does the line [off, off+n) look like a field line (WS* "field")? */
int tb_is_field_line(const tb_text_pos *tp, size_t off, size_t n);

/* Parse the field line [off, off+n) of tp->text. */
tb_status tb_parse_field_line(const tb_text_pos *tp, size_t off, size_t n,
			      tb_field_line *fl, tb_format_error *err);

#endif /* TB_LIB_FORMAT_LEX_H */
