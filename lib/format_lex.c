/*
 * The field-line grammar (see format_lex.h), shared by event formats and
 * header_page so there is one grammar for both.
 */
#include "format_lex.h"

static int is_ws(char c)
{
	return c == ' ' || c == '\t';
}

static int is_ident(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_';
}

void tb_text_begin(tb_text_pos *tp, const char *text, size_t len,
		   tb_format_error *err)
{
	tp->text = text;
	tp->len = len;
	tp->line_start = 0;
	tp->line = 0;
	if (err) {
		tb_error_clear(&err->error);
		err->line = err->column = 0;
	}
}

/* Line and column of byte `at` (1-based), counted over the text up to it,
 * so they always name the byte err->error.offset names: also at the end
 * of the text, after a final newline and in an empty text.  Errors are
 * rare; counting is only done for them. */
static void text_position(const tb_text_pos *tp, size_t at, uint32_t *line,
			  uint32_t *column)
{
	size_t i, end = at < tp->len ? at : tp->len, line_start = 0;
	*line = 1;
	for (i = 0; tp->text && i < end; i++)
		if (tp->text[i] == '\n') {
			++*line;
			line_start = i + 1;
		}
	*column = (uint32_t)(at - line_start + 1);
}

tb_status tb_text_fail_any(const tb_text_pos *tp, tb_format_error *err,
			   tb_status st, size_t at, const char *what)
{
	return tb_text_fail(tp, err, st, at, what);
}

tb_status tb_text_fail(const tb_text_pos *tp, tb_format_error *err, tb_status st,
		       size_t at, const char *what)
{
	if (err) {
		(void)tb_fail(&err->error, st, at, what);
		text_position(tp, at, &err->line, &err->column);
	}
	return st;
}

static size_t skip_ws(const char *t, size_t i, size_t end)
{
	while (i < end && is_ws(t[i]))
		i++;
	return i;
}

/* Does t[i..end) start with lit? */
static int has_lit(const char *t, size_t i, size_t end, const char *lit)
{
	return i <= end && tb_span_starts(t + i, end - i, lit);
}

int tb_is_field_line(const tb_text_pos *tp, size_t off, size_t n)
{
	size_t i = skip_ws(tp->text, off, off + n);
	return has_lit(tp->text, i, off + n, "field");
}

/* A decimal number at t[*i..end) that fits 32 bits. */
static tb_status parse_u32(const tb_text_pos *tp, size_t *i, size_t end,
			   uint32_t *out, tb_format_error *err)
{
	const char *t = tp->text;
	size_t start = *i, j = *i;
	uint64_t v = 0;
	while (j < end && t[j] >= '0' && t[j] <= '9') {
		v = v * 10 + (uint64_t)(t[j] - '0');
		if (v > UINT32_MAX)
			return tb_text_fail(tp, err, TB_ERR_VALUE, start,
					    "number does not fit 32 bits");
		j++;
	}
	if (j == start)
		return tb_text_fail(tp, err, TB_ERR_SYNTAX, start,
				    "expected a decimal number");
	*out = (uint32_t)v;
	*i = j;
	return TB_OK;
}

/* Split DECL [ds, de) into type, name and [spec]. */
static tb_status split_decl(const tb_text_pos *tp, size_t ds, size_t de,
			    tb_field_line *fl, tb_format_error *err)
{
	const char *t = tp->text;
	size_t name_end, ns, te;

	while (de > ds && is_ws(t[de - 1]))
		de--;
	if (de == ds)
		return tb_text_fail(tp, err, TB_ERR_SYNTAX, ds,
				    "empty field declaration");
	fl->has_spec = 0;
	fl->spec_off = fl->spec_len = 0;
	name_end = de;
	if (t[de - 1] == ']') {
		/* The '[' matching the final ']' (specs like [sizeof(a[1])] nest). */
		size_t j = de - 1;
		unsigned depth = 0;
		for (;;) {
			if (t[j] == ']')
				depth++;
			else if (t[j] == '[' && --depth == 0)
				break;
			if (j == ds)
				return tb_text_fail(tp, err, TB_ERR_SYNTAX, de - 1,
						    "']' without '['");
			j--;
		}
		fl->has_spec = 1;
		fl->spec_off = j + 1;
		fl->spec_len = de - 1 - (j + 1);
		name_end = j;
	}
	ns = name_end;
	while (ns > ds && is_ident(t[ns - 1]))
		ns--;
	if (ns == name_end)
		return tb_text_fail(tp, err, TB_ERR_SYNTAX, name_end,
				    "missing field name");
	if (t[ns] >= '0' && t[ns] <= '9')
		return tb_text_fail(tp, err, TB_ERR_SYNTAX, ns,
				    "field name starts with a digit");
	te = ns;
	while (te > ds && is_ws(t[te - 1]))
		te--;
	if (te == ds)
		return tb_text_fail(tp, err, TB_ERR_SYNTAX, ds, "missing field type");
	if (name_end - ns >= TB_FORMAT_MAX_NAME)
		return tb_text_fail(tp, err, TB_ERR_LIMIT, ns, "field name too long");
	if (te - ds >= TB_FORMAT_MAX_TYPE)
		return tb_text_fail(tp, err, TB_ERR_LIMIT, ds, "field type too long");
	fl->type_off = ds;
	fl->type_len = te - ds;
	fl->name_off = ns;
	fl->name_len = name_end - ns;
	return TB_OK;
}

/* Every byte of a grammar line is TAB or printable ASCII. */
static tb_status check_bytes(const tb_text_pos *tp, size_t off, size_t n,
			     tb_format_error *err)
{
	size_t i;
	for (i = off; i < off + n; i++) {
		unsigned char c = (unsigned char)tp->text[i];
		if (c == '\t' || (c >= 0x20 && c < 0x7f))
			continue;
		return tb_text_fail(tp, err, TB_ERR_SYNTAX, i,
				    c == 0 ? "NUL byte in format text"
				    : c >= 0x80 ? "non-ASCII byte in format text"
						: "control character in format text");
	}
	return TB_OK;
}

tb_status tb_parse_field_line(const tb_text_pos *tp, size_t off, size_t n,
			      tb_field_line *fl, tb_format_error *err)
{
	const char *t = tp->text;
	size_t end = off + n, i, semi;
	int have_off = 0, have_size = 0;
	tb_status st;

	if ((st = check_bytes(tp, off, n, err)) != TB_OK)
		return st;
	i = skip_ws(t, off, end);
	if (!has_lit(t, i, end, "field"))
		return tb_text_fail(tp, err, TB_ERR_SYNTAX, i, "expected 'field'");
	i += 5;
	if (i < end && is_ws(t[i])) { /* very old kernels: "field special:" */
		i = skip_ws(t, i, end);
		if (!has_lit(t, i, end, "special"))
			return tb_text_fail(tp, err, TB_ERR_SYNTAX, i,
					    "expected ':' after 'field'");
		i += 7;
	}
	if (i >= end || t[i] != ':')
		return tb_text_fail(tp, err, TB_ERR_SYNTAX, i,
				    "expected ':' after 'field'");
	i = skip_ws(t, i + 1, end);
	fl->decl_off = i;
	for (semi = i; semi < end && t[semi] != ';' && t[semi] != ':'; semi++)
		;
	if (semi == end || t[semi] == ':') /* no C type holds a ':' */
		return tb_text_fail(tp, err, TB_ERR_SYNTAX, semi,
				    "missing ';' after the field declaration");
	if ((st = split_decl(tp, i, semi, fl, err)) != TB_OK)
		return st;

	fl->is_signed = -1;
	fl->offset = fl->size = 0;
	fl->offset_off = fl->size_off = semi;
	i = semi + 1;
	for (;;) {
		size_t ks, ke, vs;
		uint32_t v;
		int is_off;
		i = skip_ws(t, i, end);
		if (i == end)
			break;
		ks = i;
		while (i < end && is_ident(t[i]))
			i++;
		if (i == ks)
			return tb_text_fail(tp, err, TB_ERR_SYNTAX, i,
					    "expected offset:, size: or signed:");
		ke = i;
		if (i == end || t[i] != ':')
			return tb_text_fail(tp, err, TB_ERR_SYNTAX, i,
					    "expected ':' after a key");
		i = skip_ws(t, i + 1, end);
		vs = i;
		if ((st = parse_u32(tp, &i, end, &v, err)) != TB_OK)
			return st;
		if (i == end || t[i] != ';')
			return tb_text_fail(tp, err, TB_ERR_SYNTAX, i,
					    "missing ';' after a value");
		i++;
		is_off = tb_span_eq(t + ks, ke - ks, "offset");
		if (is_off || tb_span_eq(t + ks, ke - ks, "size")) {
			/* offset: and size: each once, kept with where it stands */
			int *have = is_off ? &have_off : &have_size;
			if (*have)
				return tb_text_fail(tp, err, TB_ERR_DUPLICATE, ks,
						    is_off ? "offset: given twice"
							   : "size: given twice");
			*have = 1;
			*(is_off ? &fl->offset : &fl->size) = v;
			*(is_off ? &fl->offset_off : &fl->size_off) = vs;
		} else if (tb_span_eq(t + ks, ke - ks, "signed")) {
			if (fl->is_signed != -1)
				return tb_text_fail(tp, err, TB_ERR_DUPLICATE, ks,
						    "signed: given twice");
			if (v > 1)
				return tb_text_fail(tp, err, TB_ERR_VALUE, vs,
						    "signed: must be 0 or 1");
			fl->is_signed = (int)v;
		} else {
			return tb_text_fail(tp, err, TB_ERR_SYNTAX, ks,
					    "unknown key (expected offset:, size: or signed:)");
		}
	}
	if (!have_off)
		return tb_text_fail(tp, err, TB_ERR_SYNTAX, end,
				    "field line lacks offset:");
	if (!have_size)
		return tb_text_fail(tp, err, TB_ERR_SYNTAX, end,
				    "field line lacks size:");
	return TB_OK;
}
