/*
 * Event format texts: the line grammar, field classification and
 * validation; the header_page text through the same field-line grammar.
 */
#include "format_lex.h"

/* ---- type text -> what the element is ---- */

#define LONG_SIZE 0xffu /* table marker: as wide as the traced kernel's long */

typedef struct ctype {
	const char *name;  /* canonical spelling: significant words, one space apart */
	uint8_t len;       /* strlen(name) */
	uint8_t size;      /* bytes, or LONG_SIZE */
	uint8_t is_signed; /* for old formats without `signed:` */
	uint8_t text;      /* a char type: arrays of it are strings */
} ctype;

/* CT(name, size, signed, text): one known scalar type. */
#define CT(n, size, sig, text) { n, sizeof(n) - 1, size, sig, text }

static const ctype ctypes[] = {
	CT("char", 1, 0, 1), CT("signed char", 1, 1, 1), CT("unsigned char", 1, 0, 1),
	CT("bool", 1, 0, 0), CT("_Bool", 1, 0, 0), CT("u8", 1, 0, 0), CT("s8", 1, 1, 0),
	CT("__u8", 1, 0, 0), CT("__s8", 1, 1, 0), CT("uint8_t", 1, 0, 0),
	CT("int8_t", 1, 1, 0), CT("short", 2, 1, 0), CT("short int", 2, 1, 0),
	CT("signed short", 2, 1, 0), CT("unsigned short", 2, 0, 0),
	CT("unsigned short int", 2, 0, 0), CT("short unsigned int", 2, 0, 0),
	CT("u16", 2, 0, 0), CT("s16", 2, 1, 0), CT("__u16", 2, 0, 0), CT("__s16", 2, 1, 0),
	CT("uint16_t", 2, 0, 0), CT("int16_t", 2, 1, 0), CT("__le16", 2, 0, 0),
	CT("__be16", 2, 0, 0), CT("int", 4, 1, 0), CT("signed", 4, 1, 0),
	CT("signed int", 4, 1, 0), CT("unsigned", 4, 0, 0), CT("unsigned int", 4, 0, 0),
	CT("u32", 4, 0, 0), CT("s32", 4, 1, 0), CT("__u32", 4, 0, 0), CT("__s32", 4, 1, 0),
	CT("uint32_t", 4, 0, 0), CT("int32_t", 4, 1, 0), CT("__le32", 4, 0, 0),
	CT("__be32", 4, 0, 0), CT("pid_t", 4, 1, 0), CT("long long", 8, 1, 0),
	CT("long long int", 8, 1, 0), CT("signed long long", 8, 1, 0),
	CT("unsigned long long", 8, 0, 0), CT("unsigned long long int", 8, 0, 0),
	CT("u64", 8, 0, 0), CT("s64", 8, 1, 0), CT("__u64", 8, 0, 0), CT("__s64", 8, 1, 0),
	CT("uint64_t", 8, 0, 0), CT("int64_t", 8, 1, 0), CT("__le64", 8, 0, 0),
	CT("__be64", 8, 0, 0), CT("long", LONG_SIZE, 1, 0), CT("long int", LONG_SIZE, 1, 0),
	CT("signed long", LONG_SIZE, 1, 0), CT("unsigned long", LONG_SIZE, 0, 0),
	CT("unsigned long int", LONG_SIZE, 0, 0), CT("size_t", LONG_SIZE, 0, 0),
	CT("ssize_t", LONG_SIZE, 1, 0),
};
#undef CT

/* Words that qualify a type without changing its layout. */
static int is_qualifier(const char *w, size_t n)
{
	if (n < 5 || (w[0] != 'c' && w[0] != 'v' && w[0] != '_' && w[0] != 'r'))
		return 0;
	static const char *const q[] = { "const", "volatile", "__user", "__rcu",
					 "__iomem", "__percpu", "__force",
					 "__seg_gs", "__seg_fs", "restrict" };
	size_t k;
	for (k = 0; k < TB_ARRAY_LEN(q); k++)
		if (tb_span_eq(w, n, q[k]))
			return 1;
	return 0;
}

typedef struct type_info {
	const ctype *ct;   /* the known scalar type, or NULL */
	int pointer;       /* a '*' outside attributes */
	int long_word;     /* the word "long" appears exactly once */
	size_t words;      /* significant words */
} type_info;

#define CANON_MAX 48

/* Look at a type text (without __data_loc and [] parts). */
static void inspect_type(const char *t, size_t n, type_info *ti)
{
	char canon[CANON_MAX];
	size_t cn = 0, i = 0, longs = 0, k;
	int overflow = 0;

	ti->ct = NULL;
	ti->pointer = 0;
	ti->words = 0;
	while (i < n) {
		char c = t[i];
		if (c == '*') {
			ti->pointer = 1;
			i++;
		} else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			   c == '_') {
			size_t s = i;
			while (i < n && ((t[i] >= 'a' && t[i] <= 'z') ||
					 (t[i] >= 'A' && t[i] <= 'Z') ||
					 (t[i] >= '0' && t[i] <= '9') || t[i] == '_'))
				i++;
			if (tb_span_eq(t + s, i - s, "__attribute__")) {
				/* skip the balanced (( ... )) that follows */
				unsigned depth = 0;
				while (i < n && (t[i] == ' ' || t[i] == '\t'))
					i++;
				for (; i < n && (depth > 0 || t[i] == '('); i++) {
					if (t[i] == '(')
						depth++;
					else if (t[i] == ')')
						depth--;
				}
				continue;
			}
			if (is_qualifier(t + s, i - s))
				continue;
			if (tb_span_eq(t + s, i - s, "long"))
				longs++;
			ti->words++;
			if (cn + (cn ? 1 : 0) + (i - s) >= CANON_MAX) {
				overflow = 1;
				continue;
			}
			if (cn)
				canon[cn++] = ' ';
			memcpy(canon + cn, t + s, i - s);
			cn += i - s;
		} else {
			i++;
		}
	}
	ti->long_word = longs == 1;
	if (overflow || ti->pointer)
		return;
	for (k = 0; k < TB_ARRAY_LEN(ctypes); k++)
		if (ctypes[k].len == cn && memcmp(canon, ctypes[k].name, cn) == 0) {
			ti->ct = &ctypes[k];
			return;
		}
}

/* Element size of a type, 0 when unknown. */
static uint32_t ctype_size(const type_info *ti, unsigned long_size)
{
	if (!ti->ct)
		return 0;
	return ti->ct->size == LONG_SIZE ? long_size : ti->ct->size;
}

/* ---- classification of one field line ---- */

static int is_pow_int(uint32_t n)
{
	return n == 1 || n == 2 || n == 4 || n == 8;
}

/* Does span hold only decimal digits? */
static int all_digits(const char *s, size_t n)
{
	size_t i;
	if (n == 0)
		return 0;
	for (i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return 0;
	return 1;
}

static tb_status classify(const tb_text_pos *tp, const tb_field_line *fl,
			  unsigned long_size, tb_field *f, tb_format_error *err)
{
	const char *t = tp->text;
	const char *type = t + fl->type_off;
	size_t tlen = fl->type_len;
	type_info ti;
	int sig;

	f->offset = fl->offset;
	f->size = fl->size;
	f->name = t + fl->name_off;
	f->name_len = (uint16_t)fl->name_len;
	f->type = type;
	f->type_len = (uint16_t)fl->type_len;
	f->flags = 0;
	f->count = 0;

	if (tb_span_starts(type, tlen, "__data_loc") ||
	    tb_span_starts(type, tlen, "__rel_loc")) {
		int rel = type[2] == 'r';
		size_t skip = rel ? 9 : 10, es, ee;
		uint32_t esz;
		if (fl->has_spec)
			return tb_text_fail(tp, err, TB_ERR_SYNTAX, fl->spec_off,
					    "dynamic field with a [length] after its name");
		if (tlen > skip && type[skip] != ' ' && type[skip] != '\t')
			goto plain; /* a type merely starting with these letters */
		es = skip;
		ee = tlen;
		if (ee >= 2 && type[ee - 2] == '[' && type[ee - 1] == ']')
			ee -= 2;
		inspect_type(type + es, ee - es, &ti);
		f->kind = TB_FIELD_DYNAMIC;
		if (fl->size == 2 && !rel) {
			f->flags |= TB_FIELD_LEGACY;
		} else if (fl->size != 4) {
			return tb_text_fail(tp, err, TB_ERR_VALUE, fl->size_off,
					    "a __data_loc / __rel_loc field must have size 4");
		}
		if (rel)
			f->flags |= TB_FIELD_REL;
		esz = ctype_size(&ti, long_size);
		/* the legacy form names no element type: it held strings */
		if ((ti.ct && ti.ct->text) || ti.words == 0)
			f->flags |= TB_FIELD_TEXT;
		f->elem_size = esz ? esz : 1;
		if (fl->is_signed == 1 || (fl->is_signed < 0 && ti.ct && ti.ct->is_signed))
			f->flags |= TB_FIELD_SIGNED;
		return TB_OK;
	}
plain:
	inspect_type(type, tlen, &ti);
	sig = fl->is_signed >= 0 ? fl->is_signed
				 : (ti.ct && ti.ct->is_signed && !ti.pointer);
	if (sig)
		f->flags |= TB_FIELD_SIGNED;

	if (fl->has_spec || fl->size == 0) {
		const char *spec = t + fl->spec_off;
		uint32_t esz = ctype_size(&ti, long_size);
		uint64_t len = 0;
		int numeric = fl->has_spec && all_digits(spec, fl->spec_len);
		if (ti.ct && ti.ct->text)
			f->flags |= TB_FIELD_TEXT;
		if (numeric && !tb_parse_u64(spec, fl->spec_len, &len))
			return tb_text_fail(tp, err, TB_ERR_VALUE, fl->spec_off,
					    "array length too large");
		if (fl->size == 0) {
			if (numeric && len != 0)
				return tb_text_fail(tp, err, TB_ERR_VALUE, fl->size_off,
						    "array with a length but size 0");
			f->kind = TB_FIELD_REST;
			f->elem_size = esz ? esz : 1;
			return TB_OK;
		}
		if (numeric) {
			if (len == 0 || fl->size % len != 0)
				return tb_text_fail(tp, err, TB_ERR_VALUE, fl->size_off,
						    "array size is not a multiple of its length");
			esz = (uint32_t)(fl->size / len);
		} else if (!esz || fl->size % esz != 0) {
			esz = 1; /* macro / expression length, unknown element: bytes */
		}
		f->elem_size = esz;
		f->count = fl->size / esz;
		f->kind = (f->flags & TB_FIELD_TEXT) && esz == 1 ? TB_FIELD_STRING
								 : TB_FIELD_ARRAY;
		if (esz != 1)
			f->flags &= (uint8_t)~TB_FIELD_TEXT;
		return TB_OK;
	}
	f->elem_size = fl->size;
	if (!is_pow_int(fl->size)) {
		f->kind = TB_FIELD_OPAQUE;
		return TB_OK;
	}
	f->count = 1;
	if (ti.pointer)
		f->kind = TB_FIELD_POINTER;
	else if (ti.long_word)
		f->kind = TB_FIELD_LONG;
	else
		f->kind = TB_FIELD_INT;
	return TB_OK;
}

/* ---- the format text ---- */

static int blank(const char *s, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++)
		if (s[i] != ' ' && s[i] != '\t')
			return 0;
	return 1;
}

/* "KEY:" then optional blanks; the value span up to trailing blanks. */
static int keyed_line(const char *s, size_t n, const char *key, size_t *vs,
		      size_t *ve)
{
	size_t i = strlen(key), e = n;
	if (!tb_span_starts(s, n, key))
		return 0;
	while (i < n && (s[i] == ' ' || s[i] == '\t'))
		i++;
	while (e > i && (s[e - 1] == ' ' || s[e - 1] == '\t'))
		e--;
	*vs = i;
	*ve = e;
	return 1;
}

/* Only printable, non-blank ASCII in an event name. */
static tb_status check_name(const tb_text_pos *tp, size_t off, size_t n,
			    tb_format_error *err)
{
	size_t i;
	if (n == 0)
		return tb_text_fail(tp, err, TB_ERR_SYNTAX, off, "missing event name");
	if (n >= TB_FORMAT_MAX_NAME)
		return tb_text_fail(tp, err, TB_ERR_LIMIT, off, "event name too long");
	for (i = off; i < off + n; i++) {
		unsigned char c = (unsigned char)tp->text[i];
		if (c <= 0x20 || c >= 0x7f)
			return tb_text_fail(tp, err, TB_ERR_SYNTAX, i,
					    "bad byte in event name");
	}
	return TB_OK;
}

/* Cross-field rules once every line is read. */
static tb_status validate(const tb_text_pos *tp, tb_format *out, tb_field *fields,
			  tb_format_error *err)
{
	uint32_t common_end = 0, min_size = 0, i, j;
	for (i = 0; i < out->nfields; i++) {
		const tb_field *f = &fields[i];
		uint32_t end = f->offset + f->size; /* both < 2^16 here */
		if (f->flags & TB_FIELD_COMMON) {
			if (end > common_end)
				common_end = end;
		} else if (f->offset < common_end) {
			return tb_text_fail_any(tp, err, TB_ERR_RANGE,
					    (size_t)(f->name - tp->text),
					    "field overlaps the common header");
		}
		if (end > min_size)
			min_size = end;
		for (j = 0; j < i; j++)
			if (fields[j].name_len == f->name_len &&
			    memcmp(fields[j].name, f->name, f->name_len) == 0)
				return tb_text_fail_any(tp, err, TB_ERR_DUPLICATE,
						    (size_t)(f->name - tp->text),
						    "duplicate field name");
		if (f->kind == TB_FIELD_DYNAMIC)
			out->ndynamic++;
		if (tb_span_eq(f->name, f->name_len, "common_type")) {
			if (f->kind != TB_FIELD_INT)
				return tb_text_fail_any(tp, err, TB_ERR_VALUE,
						    (size_t)(f->name - tp->text),
						    "common_type is not an integer");
			if (f->size < 4 && out->id >> (8 * f->size) != 0)
				return tb_text_fail_any(tp, err, TB_ERR_VALUE, 0,
						    "ID does not fit common_type");
			out->type_field = (int32_t)i;
		}
	}
	out->min_size = min_size;
	return TB_OK;
}

enum { ST_NAME, ST_ID, ST_FORMAT, ST_FIELDS, ST_DONE };

TB_API tb_status tb_format_parse(const char *text, size_t len, tb_field *fields,
				 size_t max_fields, unsigned long_size,
				 tb_format *out, tb_format_error *err)
{
	tb_text_pos tp;
	tb_reader r;
	const char *s;
	size_t n, vs, ve;
	int state = ST_NAME, common = 1;
	tb_status st;

	tb_text_begin(&tp, text, len, err);
	if (!out || (!text && len) || (!fields && max_fields))
		return tb_text_fail(&tp, err, TB_ERR_ARG, 0, "NULL argument");
	if (long_size == 0)
		long_size = 8;
	if (long_size != 4 && long_size != 8)
		return tb_text_fail(&tp, err, TB_ERR_ARG, 0, "long size must be 4 or 8");
	memset(out, 0, sizeof(*out));
	out->fields = fields;
	out->text = text;
	out->text_len = len;
	out->type_field = -1;

	tb_rd_init(&r, text, len, 0);
	while (state != ST_DONE) {
		size_t off = r.pos;
		if (!tb_rd_line(&r, &s, &n))
			break;
		tp.line_start = off;
		tp.line++;
		switch (state) {
		case ST_NAME:
			if (!keyed_line(s, n, "name:", &vs, &ve))
				return tb_text_fail(&tp, err, TB_ERR_SYNTAX, off,
						    "expected 'name:'");
			if ((st = check_name(&tp, off + vs, ve - vs, err)) != TB_OK)
				return st;
			out->name = s + vs;
			out->name_len = ve - vs;
			state = ST_ID;
			break;
		case ST_ID: {
			uint64_t id;
			if (!keyed_line(s, n, "ID:", &vs, &ve))
				return tb_text_fail(&tp, err, TB_ERR_SYNTAX, off,
						    "expected 'ID:'");
			if (!all_digits(s + vs, ve - vs))
				return tb_text_fail(&tp, err, TB_ERR_SYNTAX, off + vs,
						    "ID is not a decimal number");
			if (!tb_parse_u64(s + vs, ve - vs, &id) || id > UINT32_MAX)
				return tb_text_fail(&tp, err, TB_ERR_VALUE, off + vs,
						    "ID does not fit 32 bits");
			out->id = (uint32_t)id;
			state = ST_FORMAT;
			break;
		}
		case ST_FORMAT:
			if (!keyed_line(s, n, "format:", &vs, &ve) || ve != vs)
				return tb_text_fail(&tp, err, TB_ERR_SYNTAX, off,
						    "expected 'format:'");
			state = ST_FIELDS;
			break;
		default: { /* ST_FIELDS */
			tb_field_line fl;
			tb_field *f;
			if (blank(s, n)) {
				common = 0;
				break;
			}
			if (tb_span_starts(s, n, "print fmt:")) {
				/* The print fmt runs to the end of the text: its
				 * string literals may hold real newlines. */
				size_t ps = off + 10, pe = len, i;
				if (ps < len && text[ps] == ' ')
					ps++;
				while (pe > ps && (text[pe - 1] == '\n' ||
						   text[pe - 1] == ' ' ||
						   text[pe - 1] == '\t'))
					pe--;
				for (i = ps; i < pe; i++) {
					if (text[i] == '\n') {
						tp.line++;
						tp.line_start = i + 1;
					} else if (text[i] == '\0') {
						return tb_text_fail(&tp, err, TB_ERR_SYNTAX, i,
								    "NUL byte in print fmt");
					}
				}
				out->print_fmt = text + ps;
				out->print_fmt_len = pe - ps;
				out->print_fmt_offset = ps;
				state = ST_DONE;
				break;
			}
			if (!tb_is_field_line(&tp, off, n))
				return tb_text_fail(&tp, err, TB_ERR_SYNTAX, off,
						    "expected a field line, a blank line or 'print fmt:'");
			if ((st = tb_parse_field_line(&tp, off, n, &fl, err)) != TB_OK)
				return st;
			if ((uint64_t)fl.offset + fl.size > TB_FORMAT_MAX_RECORD)
				return tb_text_fail(&tp, err, TB_ERR_RANGE, fl.offset_off,
						    "field ends past 64 KiB");
			if (out->nfields >= TB_FORMAT_MAX_FIELDS)
				return tb_text_fail(&tp, err, TB_ERR_LIMIT, off,
						    "too many fields in one event");
			if (out->nfields >= max_fields)
				return tb_text_fail(&tp, err, TB_ERR_NO_SPACE, off,
						    "field storage full");
			f = &fields[out->nfields];
			if ((st = classify(&tp, &fl, long_size, f, err)) != TB_OK)
				return st;
			f->index = (uint16_t)out->nfields;
			if (common) {
				f->flags |= TB_FIELD_COMMON;
				out->ncommon++;
			}
			out->nfields++;
			break;
		}
		}
	}
	if (state != ST_DONE)
		return tb_text_fail(&tp, err, TB_ERR_TRUNCATED, len,
				    state == ST_NAME ? "empty format text"
				    : state == ST_FIELDS
					    ? "format text ends before 'print fmt:'"
					    : "format text ends in its header");
	return validate(&tp, out, fields, err);
}

TB_API const tb_field *tb_format_field_n(const tb_format *fmt, const char *name,
					 size_t len)
{
	uint32_t i;
	if (!fmt || !name)
		return NULL;
	for (i = 0; i < fmt->nfields; i++)
		if (fmt->fields[i].name_len == len &&
		    memcmp(fmt->fields[i].name, name, len) == 0)
			return &fmt->fields[i];
	return NULL;
}

TB_API const tb_field *tb_format_field(const tb_format *fmt, const char *name)
{
	return name ? tb_format_field_n(fmt, name, strlen(name)) : NULL;
}

TB_API const char *tb_field_kind_name(unsigned kind)
{
	static const char *const names[] = { "int", "long", "pointer", "array",
					     "string", "dynamic", "rest", "opaque" };
	return kind < TB_ARRAY_LEN(names) ? names[kind] : "unknown";
}

/* ---- header_page ---- */

TB_API tb_status tb_format_parse_header_page(const char *text, size_t len,
					     tb_header_page *out,
					     tb_format_error *err)
{
	tb_text_pos tp;
	tb_reader r;
	const char *s;
	size_t n;
	unsigned seen = 0; /* bits: 1 timestamp, 2 commit, 4 overwrite, 8 data */
	tb_status st;

	tb_text_begin(&tp, text, len, err);
	if (!out || (!text && len))
		return tb_text_fail(&tp, err, TB_ERR_ARG, 0, "NULL argument");
	memset(out, 0, sizeof(*out));
	tb_rd_init(&r, text, len, 0);
	for (;;) {
		size_t off = r.pos;
		tb_field_line fl;
		const char *nm;
		unsigned bit;
		if (!tb_rd_line(&r, &s, &n))
			break;
		tp.line_start = off;
		tp.line++;
		if (blank(s, n))
			continue;
		if ((st = tb_parse_field_line(&tp, off, n, &fl, err)) != TB_OK)
			return st;
		nm = text + fl.name_off;
		if (tb_span_eq(nm, fl.name_len, "timestamp"))
			bit = 1;
		else if (tb_span_eq(nm, fl.name_len, "commit"))
			bit = 2;
		else if (tb_span_eq(nm, fl.name_len, "overwrite"))
			bit = 4;
		else if (tb_span_eq(nm, fl.name_len, "data"))
			bit = 8;
		else
			continue; /* a field no reader needs */
		if (seen & bit)
			return tb_text_fail(&tp, err, TB_ERR_DUPLICATE, off,
					    "header_page field given twice");
		seen |= bit;
		if (bit == 1) {
			if (fl.size != 8)
				return tb_text_fail(&tp, err, TB_ERR_VALUE, off,
						    "header_page timestamp must have size 8");
			out->timestamp_offset = fl.offset;
			out->timestamp_size = fl.size;
			out->timestamp_line = off;
		} else if (bit == 2) {
			if (fl.size != 4 && fl.size != 8)
				return tb_text_fail(&tp, err, TB_ERR_VALUE, off,
						    "header_page commit must have size 4 or 8");
			out->commit_offset = fl.offset;
			out->commit_size = fl.size;
			out->commit_line = off;
		} else if (bit == 4) {
			out->has_overwrite = 1;
			out->overwrite_offset = fl.offset;
			out->overwrite_size = fl.size;
		} else {
			if (fl.size == 0)
				return tb_text_fail(&tp, err, TB_ERR_VALUE, off,
						    "header_page data has size 0");
			out->data_offset = fl.offset;
			out->data_size = fl.size;
			out->data_line = off;
		}
	}
	if ((seen & 11u) != 11u)
		return tb_text_fail(&tp, err, TB_ERR_SYNTAX, len,
				    "header_page lacks timestamp, commit or data");
	if ((uint64_t)out->timestamp_offset + 8 > out->commit_offset &&
	    (uint64_t)out->commit_offset + out->commit_size > out->timestamp_offset)
		return tb_text_fail_any(&tp, err, TB_ERR_VALUE, out->timestamp_line,
					"header_page timestamp and commit overlap");
	if (out->data_offset < (uint64_t)out->timestamp_offset + 8 ||
	    out->data_offset < (uint64_t)out->commit_offset + out->commit_size)
		return tb_text_fail_any(&tp, err, TB_ERR_VALUE, out->data_line,
					"header_page data starts inside the header");
	if ((uint64_t)out->data_offset + out->data_size > (1u << 27))
		return tb_text_fail_any(&tp, err, TB_ERR_VALUE, out->data_line,
					"header_page data ends past 128 MiB");
	return TB_OK;
}
