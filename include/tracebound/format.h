/*
 * tracebound: event format schemas and typed field extraction.
 *
 * A tracefs event `format` file (events/<system>/<event>/format) says how
 * the bytes of one event's records are laid out:
 *
 *	name: sched_switch
 *	ID: 372
 *	format:
 *		field:unsigned short common_type;	offset:0;	size:2;	signed:0;
 *		...common fields...
 *
 *		field:char prev_comm[16];	offset:8;	size:16;	signed:0;
 *		...event fields...
 *
 *	print fmt: "prev_comm=%s ...", REC->prev_comm, ...
 *
 * tb_format_parse() checks such a text against its grammar and classifies
 * every field; a tb_format_set holds many parsed formats in storage the
 * caller provides and finds them by id in O(1).  The tb_field_* readers
 * then take values out of a record, each read checked against the
 * record's real length: a field, element or dynamic range outside the
 * record is an error for that field, never a read outside it.
 *
 * Zero copy: names, types and the print fmt of a parsed format point INTO
 * the format text (pointer + length, not NUL-terminated).  The text, and
 * the system name given to tb_format_set_add(), must stay valid and
 * unchanged for as long as the tb_format (or the set) is used.
 *
 * Byte order: records are read in the byte order of the traced machine
 * (`big_endian` argument), never the host's.
 *
 * Typical use (no allocation; sizes are the caller's choice):
 *
 *	tb_format ev[N]; tb_field fl[M]; uint32_t ix[IX]; tb_format_set set;
 *	    (IX a power of two >= tb_format_index_len(N): 16384 for 2,323 formats;
 *	     M the fields of all formats together: 21,094 for those 2,323)
 *	tb_format_set_init(&set, ev, N, fl, M, ix, IX, 8);
 *	for each events/<sys>/<event>/format text:
 *		tb_format_set_add(&set, text, len, sys, strlen(sys), NULL, &ferr);
 *	for each record (e.g. a tb_kbuf_record's payload):
 *		tb_format_set_lookup(&set, rec, len, be, &fmt, &err);   // id -> schema
 *		tb_format_decode(fmt, rec, len, be, vals, M, &err);      // every field
 *	or, once per record, tb_format_check_record() and then tb_field_*();
 *	or, for the numbers only, a tb_field_reader resolved once per format
 *	(tb_field_reader_init) and tb_field_reader_read() per record.
 */
#ifndef TRACEBOUND_FORMAT_H
#define TRACEBOUND_FORMAT_H

#include "tracebound/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- named limits (each exceeded limit is TB_ERR_LIMIT with its own `what`) ---- */

#define TB_FORMAT_MAX_FIELDS 256u    /* fields in one event */
#define TB_FORMAT_MAX_NAME 128u      /* bytes of an event, system or field name */
#define TB_FORMAT_MAX_TYPE 256u      /* bytes of a field's type text */
#define TB_FORMAT_MAX_EVENTS 65536u  /* formats in one tb_format_set */
#define TB_FORMAT_MAX_RECORD 65536u  /* a static field must end within this many bytes */

/* ---- fields ---- */

/* What a field holds, decided from its type text and size. */
typedef enum tb_field_kind {
	TB_FIELD_INT = 0,  /* integer of 1, 2, 4 or 8 bytes; TB_FIELD_SIGNED says how to extend */
	TB_FIELD_LONG,     /* `long` / `unsigned long`: an integer as wide as the traced kernel's long */
	TB_FIELD_POINTER,  /* a pointer (type has '*'): an integer as wide as the kernel's long */
	TB_FIELD_ARRAY,    /* fixed array: `count` elements of `elem_size` bytes */
	TB_FIELD_STRING,   /* fixed char array: text cut at the first NUL, bounded by the array */
	TB_FIELD_DYNAMIC,  /* __data_loc / __rel_loc: data elsewhere in the record (see flags) */
	TB_FIELD_REST,     /* size 0 (`char buf[]`): everything from `offset` to the record end */
	TB_FIELD_OPAQUE,   /* any other size (a struct, u128...): bytes only, no integer read */
	TB_FIELD_KIND_END_ /* not a kind */
} tb_field_kind;

/* tb_field.flags */
#define TB_FIELD_SIGNED 0x01u  /* `signed:1` (or, without `signed:`, a signed C type) */
#define TB_FIELD_COMMON 0x02u  /* one of the common fields (before the first blank line) */
#define TB_FIELD_TEXT   0x04u  /* elements are char / signed char / unsigned char: a string */
#define TB_FIELD_REL    0x08u  /* DYNAMIC: __rel_loc, the offset counts from the field's end */
#define TB_FIELD_LEGACY 0x10u  /* DYNAMIC: the old 2-byte __data_loc, offset only, data runs to
				  the record end (strings stop at their NUL) */

typedef struct tb_field {
	uint32_t offset;     /* byte offset in the record */
	uint32_t size;       /* bytes at offset (DYNAMIC: the 4- or 2-byte loc word) */
	uint32_t elem_size;  /* bytes per element (scalars: == size) */
	uint32_t count;      /* ARRAY/STRING: elements; scalars: 1; DYNAMIC/REST/OPAQUE: 0 */
	uint8_t kind;        /* tb_field_kind */
	uint8_t flags;       /* TB_FIELD_* */
	uint16_t name_len;
	uint16_t type_len;
	uint16_t index;      /* position in the format, 0-based, format order */
	const char *name;    /* into the format text, not NUL-terminated */
	const char *type;    /* the type as written (e.g. "__data_loc char[]"), into the text */
} tb_field;

/* ---- one parsed format ---- */

typedef struct tb_format {
	uint32_t id;            /* `ID:`, the value records carry in common_type */
	uint32_t nfields;       /* fields[0..nfields) in format order, common fields first */
	uint32_t ncommon;       /* how many of them are common fields */
	uint32_t min_size;      /* a record needs at least this many bytes (every static field) */
	const tb_field *fields;
	const char *name;       /* `name:`, into the text */
	size_t name_len;
	const char *system;     /* caller-supplied (tb_format_set_add), may be NULL */
	size_t system_len;
	const char *print_fmt;  /* text after "print fmt: " to the end of the text (string
				   literals may hold newlines), trailing blanks cut */
	size_t print_fmt_len;
	size_t print_fmt_offset;/* byte offset of print_fmt in the format text */
	const char *text;       /* the whole format text this was parsed from */
	size_t text_len;
	uint32_t ndynamic;      /* DYNAMIC fields (checked by tb_format_check_record) */
	int32_t type_field;     /* index of common_type, or -1 */
} tb_format;

/* A parse failure: `error.offset` is the byte offset in the text; line and
 * column (both 1-based, column counted in bytes) point at the same byte. */
typedef struct tb_format_error {
	tb_error error;
	uint32_t line;
	uint32_t column;
} tb_format_error;

/*
 * Parse one format text into *out, its fields into fields[0..max_fields).
 * `long_size` (4 or 8; 0 means 8) is the traced kernel's long, used only to
 * size the elements of dynamic and rest-of-record `long` arrays.  Old and
 * new kernel spellings are accepted (no `signed:` (signedness then from
 * the C type), `field special:`, macro or expression array lengths, `[]`,
 * BTF attributes, the 2-byte __data_loc).  The lines must come in the
 * kernel's order: name:, ID:, format:, common fields, blank line, event
 * fields, print fmt:.  Every byte outside the print fmt must be TAB or
 * printable ASCII; a NUL anywhere is an error.
 * Errors (each with its own static `what`, err->error.offset the byte
 * offset, err->line/column where it is): TB_ERR_SYNTAX (grammar),
 * TB_ERR_TRUNCATED (text ends early), TB_ERR_VALUE (a number that cannot
 * be: signed:2, an array size no multiple of its length, a 2- or 8-byte
 * __rel_loc, an ID over 32 bits or over common_type), TB_ERR_DUPLICATE
 * (field name or key twice), TB_ERR_RANGE (field past 64 KiB or over the
 * common header), TB_ERR_LIMIT (the TB_FORMAT_MAX_* limits),
 * TB_ERR_NO_SPACE (max_fields too small), TB_ERR_ARG (NULL arguments).
 */
TB_API TB_MUST_CHECK tb_status tb_format_parse(const char *text, size_t len,
					       tb_field *fields, size_t max_fields,
					       unsigned long_size, tb_format *out,
					       tb_format_error *err);

/* The field called name (C string / pointer+length), or NULL. */
TB_API const tb_field *tb_format_field(const tb_format *fmt, const char *name);
TB_API const tb_field *tb_format_field_n(const tb_format *fmt, const char *name,
					 size_t len);

/* Static name of a kind ("int", "long", "pointer", "array", "string",
 * "dynamic", "rest", "opaque"). */
TB_API const char *tb_field_kind_name(unsigned kind);

/* ---- reading a record ---- */

/*
 * Check a record against its format once: it holds every static field
 * and every dynamic field's data lies inside it.  After TB_OK every
 * tb_field_* read of this format on this record succeeds except for
 * reads the field's kind does not allow (and out-of-range indexes).
 * TB_ERR_TRUNCATED (record too short) or TB_ERR_RANGE (a dynamic field
 * points outside); err->offset is the offending field's offset.
 */
TB_API TB_MUST_CHECK tb_status tb_format_check_record(const tb_format *fmt,
						      const void *rec, size_t len,
						      int big_endian, tb_error *err);

/*
 * The integer value of an INT, LONG or POINTER field of 1, 2, 4 or 8 bytes,
 * sign-extended to 64 bits when TB_FIELD_SIGNED (cast to int64_t), else
 * zero-extended.  Other sizes: TB_ERR_UNSUPPORTED, never a silent 0.
 * Arrays / strings / dynamic fields: TB_ERR_ARG.  Past the record end:
 * TB_ERR_TRUNCATED.
 */
TB_API TB_MUST_CHECK tb_status tb_field_int(const tb_field *f, const void *rec,
					    size_t len, int big_endian,
					    uint64_t *out, tb_error *err);

/*
 * The bytes a field holds, inside the record: a static field's own bytes;
 * for DYNAMIC the data the loc word points at (__rel_loc base included;
 * length 0 means absent: *data = NULL, *n = 0 and TB_OK; LEGACY runs to the
 * record end); for REST everything from the offset to the record end.
 * TB_ERR_TRUNCATED when the field (or its loc word) runs past the record,
 * TB_ERR_RANGE when a dynamic field's data lies outside it.
 */
TB_API TB_MUST_CHECK tb_status tb_field_bytes(const tb_field *f, const void *rec,
					      size_t len, int big_endian,
					      const uint8_t **data, size_t *n,
					      tb_error *err);

/* Number of elements (ARRAY/STRING: count; DYNAMIC/REST: bytes / elem_size;
 * scalars: 1).  A dynamic length that is not a whole number of elements is
 * TB_ERR_LENGTH. */
TB_API TB_MUST_CHECK tb_status tb_field_count(const tb_field *f, const void *rec,
					      size_t len, int big_endian,
					      size_t *count, tb_error *err);

/* Element `i` of an array, string, dynamic or rest field, as an integer
 * (elem_size 1, 2, 4 or 8; sign-extended per TB_FIELD_SIGNED).  i past the
 * end: TB_ERR_RANGE. */
TB_API TB_MUST_CHECK tb_status tb_field_elem(const tb_field *f, const void *rec,
					     size_t len, int big_endian, size_t i,
					     uint64_t *out, tb_error *err);

/* The field as text: its bytes cut at the first NUL (a string without NUL
 * stops at the end of its bytes).  Any field kind but INT/LONG/POINTER. */
TB_API TB_MUST_CHECK tb_status tb_field_str(const tb_field *f, const void *rec,
					    size_t len, int big_endian,
					    const char **s, size_t *n, tb_error *err);

/* One field's value as decoded by tb_format_decode. */
typedef struct tb_field_value {
	tb_status status;    /* TB_OK, or why this field could not be read */
	uint64_t num;        /* INT/LONG/POINTER of 1/2/4/8 bytes: the (extended) value */
	const uint8_t *data; /* every field: its bytes inside the record (NULL if absent) */
	size_t len;          /* bytes at data */
} tb_field_value;

/*
 * Decode every field of a record: vals[i] for fmt->fields[i], i <
 * min(nvals, nfields).  Returns TB_OK when every field read, else the
 * first field's error (the other values are still filled: a bad dynamic
 * field does not hide the rest).  No name lookups: this is the hot path.
 */
TB_API TB_MUST_CHECK tb_status tb_format_decode(const tb_format *fmt,
						const void *rec, size_t len,
						int big_endian, tb_field_value *vals,
						size_t nvals, tb_error *err);

/* ---- numeric fields, resolved once per format ---- */

/*
 * How one numeric field is read (filled by tb_field_reader_init; treat as
 * opaque beyond `index`, the field's position in the format): an 8-byte
 * load that holds the field and lies within the format's static size, two
 * shifts that leave the field's bytes, and its sign extended, so that a
 * read takes no branch on the field's size or kind.
 */
typedef struct tb_field_op {
	uint32_t offset;     /* where the 8-byte load starts */
	uint16_t index;
	uint8_t size;        /* 1, 2, 4 or 8 */
	uint8_t is_signed;
	uint8_t lshift;      /* drops the loaded bytes past the field */
	uint8_t rshift;      /* 64 - 8 * size: drops those before it */
	uint8_t shape;       /* ops[0] only: a layout read without the ops (see field.c) */
	uint8_t reserved_;
} tb_field_op;

/*
 * A reader for every INT, LONG and POINTER field of 1, 2, 4 or 8 bytes of
 * one format (format order), resolved once, so that reading a record's
 * numbers is one bounds check and one load per field.  Caller storage:
 * `ops` holds one entry per such field (fmt->nfields entries always
 * suffice).
 */
typedef struct tb_field_reader {
	const tb_format *fmt;
	tb_field_op *ops;
	uint32_t nops;       /* numeric fields read */
	uint32_t min_size;   /* fmt->min_size: a shorter record is truncated */
	int big_endian;
} tb_field_reader;

/*
 * Resolve the numeric fields of `fmt` for records in the given byte order
 * into ops[0..ops_cap).  TB_ERR_NO_SPACE when ops_cap is below the count
 * of numeric fields (r->nops then holds the count needed), TB_ERR_ARG on
 * NULL arguments.  r keeps pointers to fmt and ops: both must outlive it.
 */
TB_API TB_MUST_CHECK tb_status tb_field_reader_init(tb_field_reader *r,
						    const tb_format *fmt,
						    int big_endian, tb_field_op *ops,
						    size_t ops_cap, tb_error *err);

/*
 * The numeric fields of one record: out[k] for r->ops[k] (field index
 * r->ops[k].index), k < min(nout, r->nops), each as tb_field_int gives it
 * (sign- or zero-extended).  TB_ERR_TRUNCATED (nothing written) when the
 * record is shorter than the format's static fields; the record's
 * dynamic fields are not looked at.  *n (optional) receives how many
 * values were written.
 */
TB_API TB_MUST_CHECK tb_status tb_field_reader_read(const tb_field_reader *r,
						    const void *rec, size_t len,
						    uint64_t *out, size_t nout,
						    size_t *n, tb_error *err);

/* ---- a set of formats in caller storage ---- */

typedef struct tb_format_set {
	tb_format *events;    /* caller storage */
	size_t events_cap;
	size_t count;         /* formats added */
	tb_field *fields;     /* caller storage shared by every format's fields */
	size_t fields_cap;
	size_t fields_used;
	uint32_t *index;      /* caller storage: open-addressed id -> event slot + 1 */
	size_t index_len;     /* a power of two */
	unsigned long_size;   /* see tb_format_parse */
	uint32_t type_offset; /* common_type layout shared by every format */
	uint32_t type_size;
} tb_format_set;

/* The index length to pass for up to n formats (a power of two >= 2n). */
TB_API size_t tb_format_index_len(size_t nevents);

/*
 * Set up an empty set over caller storage: room for `events_cap` formats
 * holding `fields_cap` fields in all, and an id index of index_len slots
 * (a power of two; at least tb_format_index_len(events_cap) keeps lookups
 * short).  long_size as for tb_format_parse.  TB_ERR_ARG on bad storage.
 */
TB_API TB_MUST_CHECK tb_status tb_format_set_init(tb_format_set *set,
						  tb_format *events, size_t events_cap,
						  tb_field *fields, size_t fields_cap,
						  uint32_t *index, size_t index_len,
						  unsigned long_size);

/*
 * Parse a format text and add it under `system` (may be NULL; not copied:
 * it must outlive the set, like the text).  *out (optional) receives the
 * stored format.  TB_ERR_NO_SPACE when the events, fields or index storage
 * is full (the set is unchanged), TB_ERR_DUPLICATE for an id or
 * system+name already present, TB_ERR_LIMIT past TB_FORMAT_MAX_EVENTS,
 * TB_ERR_VALUE when common_type's layout differs from the formats
 * already added; parse errors as tb_format_parse.
 */
TB_API TB_MUST_CHECK tb_status tb_format_set_add(tb_format_set *set,
						 const char *text, size_t len,
						 const char *system, size_t system_len,
						 const tb_format **out,
						 tb_format_error *err);

/* The format with this id, or NULL.  O(1): one index probe in the usual case. */
TB_API const tb_format *tb_format_set_by_id(const tb_format_set *set, uint32_t id);

/* The format called system:name (system NULL: any system; first added wins), or NULL. */
TB_API const tb_format *tb_format_set_find(const tb_format_set *set,
					   const char *system, const char *name);

/*
 * The format of a record: reads common_type (at the layout the set's
 * formats share) and looks it up.  TB_NOT_FOUND for an id without a
 * format (*out = NULL), TB_ERR_TRUNCATED when the record is too short to
 * hold common_type.
 */
TB_API TB_MUST_CHECK tb_status tb_format_set_lookup(const tb_format_set *set,
						    const void *rec, size_t len,
						    int big_endian,
						    const tb_format **out,
						    tb_error *err);

/* ---- header_page ---- */

/* The sub-buffer header layout from events/header_page. */
typedef struct tb_header_page {
	uint32_t timestamp_offset, timestamp_size;  /* u64 timestamp */
	uint32_t commit_offset, commit_size;        /* local_t commit: the kernel's long */
	uint32_t data_offset, data_size;            /* char data: where event data starts, capacity */
	int has_overwrite;                          /* historic `int overwrite` present */
	uint32_t overwrite_offset, overwrite_size;
	/* byte offset of each field's line in the text, for callers' own errors */
	size_t timestamp_line, commit_line, data_line;
} tb_header_page;

/*
 * Parse a header_page text with the same field-line grammar as formats
 * (the `field: TYPE NAME;` lines, space after the colon allowed).
 * Requires timestamp (size 8), commit (size 4 or 8) and data (after both,
 * size > 0, ending below 128 MiB); overwrite is optional and other fields
 * are skipped.  Grammar errors point at the offending byte; a missing
 * field is TB_ERR_SYNTAX at the end of the text; a field given twice is
 * TB_ERR_DUPLICATE and an impossible size or place TB_ERR_VALUE, both at
 * the start of that field's line.
 */
TB_API TB_MUST_CHECK tb_status tb_format_parse_header_page(const char *text, size_t len,
							   tb_header_page *out,
							   tb_format_error *err);

#ifdef __cplusplus
}
#endif

#endif /* TRACEBOUND_FORMAT_H */
