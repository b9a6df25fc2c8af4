/*
 * Compile a print fmt into a bounded program (render.h).
 *
 * A recursive-descent parser over a one-token lexer.  Recursion is bounded
 * by TB_RENDER_MAX_DEPTH (nesting), and every node records the depth of
 * its subtree, refused past the same limit, so the evaluator's recursion
 * is bounded too.  Constant subexpressions are folded here (except a
 * division by zero, which stays for the evaluator to render as a marker).
 */
#include <string.h>

#include "printfmt.h"
#include "render_out.h"

/* ---------------------------------------------------------------- lexer */

enum { T_EOF = 0, T_NUM, T_CHAR, T_STR, T_IDENT, T_PUNCT, T_BAD };

typedef struct tok {
	int kind;
	size_t start, len;  /* span in the print fmt text */
	size_t end;         /* offset just past the token */
	uint64_t v;         /* T_NUM / T_CHAR value */
	unsigned ty;        /* T_NUM type */
} tok;

static int is_ident_start(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static int is_ident_char(int c)
{
	return is_ident_start(c) || (c >= '0' && c <= '9');
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * Decode one C escape at s[i] (just after the backslash) of s[0..n);
 * stores the byte and returns the offset after the escape.
 */
static size_t unescape(const char *s, size_t n, size_t i, uint8_t *out)
{
	int c, d, k;
	unsigned v;
	if (i >= n) {
		*out = '\\';
		return i;
	}
	c = (unsigned char)s[i++];
	switch (c) {
	case 'n': *out = '\n'; return i;
	case 't': *out = '\t'; return i;
	case 'r': *out = '\r'; return i;
	case 'a': *out = '\a'; return i;
	case 'b': *out = '\b'; return i;
	case 'f': *out = '\f'; return i;
	case 'v': *out = '\v'; return i;
	case 'e': *out = 0x1b; return i;
	case 'x':
		v = 0;
		for (k = 0; k < 2 && i < n && (d = hexval((unsigned char)s[i])) >= 0; k++, i++)
			v = v << 4 | (unsigned)d;
		*out = (uint8_t)v;
		return i;
	default:
		if (c >= '0' && c <= '7') {
			v = (unsigned)(c - '0');
			for (k = 1; k < 3 && i < n && s[i] >= '0' && s[i] <= '7'; k++, i++)
				v = v << 3 | (unsigned)(s[i] - '0');
			*out = (uint8_t)v;
			return i;
		}
		*out = (uint8_t)c; /* \\ \" \' and anything else: itself */
		return i;
	}
}

static const char punct2[][3] = {
	"->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||"
};

/* Type of an integer literal: C's first type that holds it, with suffixes. */
static unsigned literal_type(uint64_t v, int hex, int u, int l, unsigned lsz)
{
	unsigned w = l ? (l >= 2 ? 8u : (lsz ? lsz : 8u)) : 4u;
	/* int, or a long of 4 bytes: int's rules, then the 8-byte types. */
	if (w == 4) {
		if (!u && v <= 0x7fffffffu)
			return TB_TY_INT;
		if ((u || hex) && v <= 0xffffffffu)
			return TB_TY_UINT;
	}
	if (!u && v <= INT64_MAX)
		return TB_TY_LONG;
	return TB_TY_ULONG;
}

/* Lex the token at pos (spaces skipped).  Never reads past n. */
static tok lex(const char *s, size_t n, size_t pos, unsigned lsz)
{
	tok t;
	size_t i = pos;
	int c;
	memset(&t, 0, sizeof(t));
	while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' ||
			 s[i] == '\r'))
		i++;
	t.start = i;
	if (i >= n) {
		t.kind = T_EOF;
		t.end = i;
		return t;
	}
	c = (unsigned char)s[i];
	if (c >= '0' && c <= '9') {
		uint64_t v = 0;
		int hex = 0, over = 0, u = 0, l = 0; /* over: overflow or no digits */
		size_t digits = 0;
		unsigned base = 10;
		if (c == '0' && i + 1 < n && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
			base = 16;
			hex = 1;
			i += 2;
		} else if (c == '0') {
			base = 8;
		}
		while (i < n) {
			int d = hexval((unsigned char)s[i]);
			if (d < 0 || (unsigned)d >= base)
				break;
			if (v > (UINT64_MAX - (unsigned)d) / base)
				over = 1;
			v = v * base + (unsigned)d;
			i++;
			digits++;
		}
		/* "0x" needs at least one hex digit */
		if (base == 16 && digits == 0)
			over = 1;
		while (i < n && (s[i] == 'u' || s[i] == 'U' || s[i] == 'l' ||
				 s[i] == 'L')) {
			if (s[i] == 'u' || s[i] == 'U')
				u = 1;
			else
				l++;
			i++;
		}
		if (over || (i < n && is_ident_char((unsigned char)s[i]))) {
			t.kind = T_BAD;
			t.end = i;
			return t;
		}
		t.kind = T_NUM;
		t.v = v;
		t.ty = literal_type(v, hex || base == 8, u, l, lsz);
		t.end = i;
		t.len = i - t.start;
		return t;
	}
	if (is_ident_start(c)) {
		while (i < n && is_ident_char((unsigned char)s[i]))
			i++;
		t.kind = T_IDENT;
		t.end = i;
		t.len = i - t.start;
		return t;
	}
	if (c == '"') {
		i++;
		while (i < n && s[i] != '"') {
			if (s[i] == '\\')
				i++;
			i++;
		}
		if (i >= n) { /* unterminated (or a backslash at the end) */
			t.kind = T_BAD;
			t.end = n;
			return t;
		}
		t.kind = T_STR;
		t.end = i + 1;
		t.len = t.end - t.start;
		return t;
	}
	if (c == '\'') {
		uint8_t b = 0;
		i++;
		if (i < n && s[i] == '\\')
			i = unescape(s, n, i + 1, &b);
		else if (i < n)
			b = (uint8_t)s[i++];
		if (i >= n || s[i] != '\'') {
			t.kind = T_BAD;
			t.end = i < n ? i : n;
			return t;
		}
		t.kind = T_CHAR;
		t.v = b; /* char constants have type int */
		t.ty = TB_TY_INT;
		t.end = i + 1;
		t.len = t.end - t.start;
		return t;
	}
	if (c < 0x20 || c >= 0x7f) {
		t.kind = T_BAD;
		t.end = i + 1;
		return t;
	}
	for (size_t k = 0; k < TB_ARRAY_LEN(punct2); k++) {
		if (i + 1 < n && s[i] == punct2[k][0] && s[i + 1] == punct2[k][1]) {
			t.kind = T_PUNCT;
			t.len = 2;
			t.end = i + 2;
			return t;
		}
	}
	t.kind = T_PUNCT;
	t.len = 1;
	t.end = i + 1;
	return t;
}

/* --------------------------------------------------------------- parser */

typedef struct parser {
	tb_render_prog *p;
	tb_render_node_ *nodes;  /* p->nodes, or the field listing's scratch */
	unsigned node_cap;
	const char *s;
	size_t n;
	tok cur;
	unsigned depth;
	tb_status st;
	const char *what;
	size_t at;
} parser;

static void advance(parser *ps)
{
	ps->cur = lex(ps->s, ps->n, ps->cur.end, ps->p->ev.long_size);
}

static tok peek_after(const parser *ps, const tok *t)
{
	return lex(ps->s, ps->n, t->end, ps->p->ev.long_size);
}

static int fail(parser *ps, tb_status st, const char *what)
{
	if (ps->st == TB_OK) {
		ps->st = st;
		ps->what = what;
		ps->at = ps->cur.start;
	}
	return 0;
}

static int is_punct(const tok *t, const parser *ps, const char *p)
{
	return t->kind == T_PUNCT && tb_span_eq(ps->s + t->start, t->len, p);
}

static int at(const parser *ps, const char *p)
{
	return is_punct(&ps->cur, ps, p);
}

static int ident_is(const parser *ps, const tok *t, const char *lit)
{
	return t->kind == T_IDENT && tb_span_eq(ps->s + t->start, t->len, lit);
}

static int expect(parser *ps, const char *p, const char *what)
{
	if (!at(ps, p))
		return fail(ps, TB_ERR_SYNTAX, what);
	advance(ps);
	return 1;
}

/* A new node; 0 (with the error set) when the table is full or the
 * subtree would nest too deep. */
static unsigned node(parser *ps, unsigned op, unsigned ty, unsigned a,
		     unsigned b, unsigned c, uint64_t v)
{
	tb_render_prog *p = ps->p;
	unsigned d = 0, idx;
	const unsigned kids[3] = { a, b, c };
	if (ps->st != TB_OK)
		return 0;
	for (int k = 0; k < 3; k++)
		if (kids[k] && ps->nodes[kids[k]].depth > d)
			d = ps->nodes[kids[k]].depth;
	if (d + 1 > TB_RENDER_MAX_DEPTH)
		return (unsigned)fail(ps, TB_ERR_LIMIT, "print fmt expression nests too deep");
	if (p->n_nodes >= ps->node_cap)
		return (unsigned)fail(ps, TB_ERR_LIMIT, "print fmt has too many expression nodes");
	/* arithmetic on an unresolved name stays marked: its value is not
	 * the kernel's (e.g. jiffies in writeback's age=) */
	if ((op == TB_N_BIN || op == TB_N_UNARY || op == TB_N_CAST) &&
	    ((a && (ps->nodes[a].ty & TB_TY_UNKNOWN)) ||
	     (b && (ps->nodes[b].ty & TB_TY_UNKNOWN))))
		ty |= TB_TY_UNKNOWN;
	idx = p->n_nodes++;
	memset(&ps->nodes[idx], 0, sizeof(ps->nodes[idx]));
	ps->nodes[idx].op = (uint8_t)op;
	ps->nodes[idx].ty = (uint8_t)ty;
	ps->nodes[idx].depth = (uint16_t)(d + 1);
	ps->nodes[idx].a = (uint16_t)a;
	ps->nodes[idx].b = (uint16_t)b;
	ps->nodes[idx].c = (uint16_t)c;
	ps->nodes[idx].v = v;
	return idx;
}

static unsigned num_node(parser *ps, uint64_t v, unsigned ty)
{
	return node(ps, TB_N_NUM, ty, 0, 0, 0, tb_ty_norm(v, ty));
}

static int is_num(const parser *ps, unsigned n)
{
	return n && ps->nodes[n].op == TB_N_NUM;
}

/* Append decoded string-literal bytes to the text arena. */
static int text_add(parser *ps, const tok *t)
{
	tb_render_prog *p = ps->p;
	size_t i = t->start + 1, end = t->start + t->len - 1;
	while (i < end) {
		uint8_t b;
		if (ps->s[i] == '\\')
			i = unescape(ps->s, end, i + 1, &b);
		else
			b = (uint8_t)ps->s[i++];
		if (p->text_len >= TB_RENDER_MAX_TEXT)
			return fail(ps, TB_ERR_LIMIT, "print fmt strings exceed the text limit");
		p->text[p->text_len++] = (char)b;
	}
	return 1;
}

/* One or more adjacent string literals, decoded into the arena. */
static int strings(parser *ps, uint32_t *off, uint32_t *len)
{
	*off = ps->p->text_len;
	if (ps->cur.kind != T_STR)
		return fail(ps, TB_ERR_SYNTAX, "print fmt: a string literal is expected");
	while (ps->cur.kind == T_STR) {
		if (!text_add(ps, &ps->cur))
			return 0;
		advance(ps);
	}
	*len = ps->p->text_len - *off;
	return 1;
}

static int field_lookup(const parser *ps, const char *name, size_t len,
			unsigned *idx)
{
	const tb_render_event_ *ev = &ps->p->ev;
	for (size_t i = 0; i < ev->n_fields; i++) {
		const tb_field *f = &ev->fields[i];
		if (f->name && f->name_len == len && memcmp(f->name, name, len) == 0) {
			*idx = (unsigned)i;
			return 1;
		}
	}
	return 0;
}

static unsigned field_type(const tb_field *f)
{
	unsigned w = f->size;
	if (tb_pf_kind(f) != TB_RF_SCALAR || (w != 1 && w != 2 && w != 4 && w != 8))
		return TB_TY_ULONG;
	return w | (tb_pf_signed(f) ? 0u : TB_TY_UNSIGNED);
}

static unsigned parse_expr(parser *ps);
static unsigned parse_unary(parser *ps);

/* Fold op over constant children, when it is safe to. */
static unsigned fold_bin(parser *ps, unsigned op, unsigned a, unsigned b)
{
	const tb_render_node_ *na = &ps->nodes[a], *nb = &ps->nodes[b];
	uint64_t r;
	unsigned ty;
	if (is_num(ps, a) && is_num(ps, b) &&
	    tb_pf_binop(op, na->v, na->ty, nb->v, nb->ty, &r, &ty))
		return num_node(ps, r, ty | ((na->ty | nb->ty) & TB_TY_UNKNOWN));
	ty = (op >= TB_OP_LT && op <= TB_OP_NE) || op == TB_OP_LAND ||
			     op == TB_OP_LOR
		     ? TB_TY_INT
	     : (op == TB_OP_SHL || op == TB_OP_SHR) ? tb_ty_promote(na->ty)
						     : tb_ty_arith(na->ty, nb->ty);
	return node(ps, TB_N_BIN, ty, a, b, 0, op);
}

/* ---- types in casts and sizeof ---- */

typedef struct ctype {
	unsigned ty;     /* value type after the cast */
	unsigned flags;  /* TB_CAST_* */
	unsigned size;   /* sizeof, 0 when unknown */
} ctype;

static const struct named_type {
	const char *name;
	unsigned ty;
	unsigned size; /* 0: long-sized */
} named_types[] = {
	{ "u8", 1 | TB_TY_UNSIGNED, 1 }, { "s8", 1, 1 },
	{ "u16", 2 | TB_TY_UNSIGNED, 2 }, { "s16", 2, 2 },
	{ "u32", TB_TY_UINT, 4 }, { "s32", TB_TY_INT, 4 },
	{ "u64", TB_TY_ULONG, 8 }, { "s64", TB_TY_LONG, 8 },
	{ "__u8", 1 | TB_TY_UNSIGNED, 1 }, { "__s8", 1, 1 },
	{ "__u16", 2 | TB_TY_UNSIGNED, 2 }, { "__s16", 2, 2 },
	{ "__u32", TB_TY_UINT, 4 }, { "__s32", TB_TY_INT, 4 },
	{ "__u64", TB_TY_ULONG, 8 }, { "__s64", TB_TY_LONG, 8 },
	{ "uint8_t", 1 | TB_TY_UNSIGNED, 1 }, { "int8_t", 1, 1 },
	{ "uint16_t", 2 | TB_TY_UNSIGNED, 2 }, { "int16_t", 2, 2 },
	{ "uint32_t", TB_TY_UINT, 4 }, { "int32_t", TB_TY_INT, 4 },
	{ "uint64_t", TB_TY_ULONG, 8 }, { "int64_t", TB_TY_LONG, 8 },
	{ "__le16", 2 | TB_TY_UNSIGNED, 2 }, { "__be16", 2 | TB_TY_UNSIGNED, 2 },
	{ "__le32", TB_TY_UINT, 4 }, { "__be32", TB_TY_UINT, 4 },
	{ "__le64", TB_TY_ULONG, 8 }, { "__be64", TB_TY_ULONG, 8 },
	{ "pid_t", TB_TY_INT, 4 }, { "uid_t", TB_TY_UINT, 4 },
	{ "gid_t", TB_TY_UINT, 4 }, { "gfp_t", TB_TY_UINT, 4 },
	{ "dev_t", TB_TY_UINT, 4 }, { "blk_opf_t", TB_TY_UINT, 4 },
	{ "umode_t", 2 | TB_TY_UNSIGNED, 2 }, { "uint", TB_TY_UINT, 4 },
	{ "loff_t", TB_TY_LONG, 8 }, { "sector_t", TB_TY_ULONG, 8 },
	{ "phys_addr_t", TB_TY_ULONG, 8 }, { "dma_addr_t", TB_TY_ULONG, 8 },
	{ "resource_size_t", TB_TY_ULONG, 8 },
	{ "__kernel_rwf_t", TB_TY_INT, 4 }, { "fmode_t", TB_TY_UINT, 4 },
	{ "size_t", TB_TY_ULONG, 0 }, { "ssize_t", TB_TY_LONG, 0 },
	{ "ulong", TB_TY_ULONG, 0 }, { "uintptr_t", TB_TY_ULONG, 0 },
	{ "ino_t", TB_TY_ULONG, 0 }, { "pgoff_t", TB_TY_ULONG, 0 },
	{ "time64_t", TB_TY_LONG, 8 }, { "ktime_t", TB_TY_LONG, 8 },
};

static int is_c_keyword_type(const parser *ps, const tok *t)
{
	static const char *const kw[] = { "unsigned", "signed", "char", "short",
		"int", "long", "bool", "_Bool", "void", "struct", "union",
		"enum", "const", "volatile" };
	for (size_t i = 0; i < TB_ARRAY_LEN(kw); i++)
		if (ident_is(ps, t, kw[i]))
			return 1;
	return 0;
}

static int is_named_type(const parser *ps, const tok *t, size_t *which)
{
	for (size_t i = 0; i < TB_ARRAY_LEN(named_types); i++)
		if (ident_is(ps, t, named_types[i].name)) {
			if (which)
				*which = i;
			return 1;
		}
	return 0;
}

/* Does the token after '(' begin a type name? */
static int starts_type(const parser *ps, const tok *t)
{
	tok n;
	if (t->kind != T_IDENT)
		return 0;
	if (is_c_keyword_type(ps, t) || is_named_type(ps, t, NULL))
		return 1;
	/* An unknown typedef: "(foo *)" or "(foo) operand". */
	n = peek_after(ps, t);
	if (is_punct(&n, ps, "*")) {
		tok m = n;
		while (is_punct(&m, ps, "*"))
			m = peek_after(ps, &m);
		return is_punct(&m, ps, ")");
	}
	if (is_punct(&n, ps, ")")) {
		tok m = peek_after(ps, &n);
		return m.kind == T_IDENT || m.kind == T_NUM || m.kind == T_CHAR ||
		       is_punct(&m, ps, "(") || is_punct(&m, ps, "~") ||
		       is_punct(&m, ps, "!");
	}
	return 0;
}

/* Parse a type name up to (not including) the closing ')'.  Callers have
 * seen starts_type(), so the first token is a name. */
static int parse_type(parser *ps, ctype *ct)
{
	unsigned lsz = ps->p->ev.long_size;
	int longs = 0, is_unsigned = 0, is_signed = 0, base = 0, ptr = 0;
	int tagged = 0, keep = 0, is_bool = 0;
	size_t which = 0;
	unsigned named = 0, named_size = 0;
	memset(ct, 0, sizeof(*ct));
	while (ps->cur.kind == T_IDENT || at(ps, "*")) {
		tok *t = &ps->cur;
		if (at(ps, "*")) {
			ptr++;
		} else if (ident_is(ps, t, "unsigned")) {
			is_unsigned = 1;
		} else if (ident_is(ps, t, "signed")) {
			is_signed = 1;
		} else if (ident_is(ps, t, "char")) {
			base = 1;
		} else if (ident_is(ps, t, "short")) {
			base = 2;
		} else if (ident_is(ps, t, "int")) {
			if (!base)
				base = 4;
		} else if (ident_is(ps, t, "long")) {
			longs++;
		} else if (ident_is(ps, t, "bool") || ident_is(ps, t, "_Bool")) {
			is_bool = 1;
		} else if (ident_is(ps, t, "void")) {
			keep = 1;
		} else if (ident_is(ps, t, "struct") || ident_is(ps, t, "union") ||
			   ident_is(ps, t, "enum")) {
			tagged = ident_is(ps, t, "enum") ? 2 : 1;
			advance(ps); /* the tag name */
			if (ps->cur.kind != T_IDENT)
				return fail(ps, TB_ERR_SYNTAX, "print fmt: a tag name is expected");
		} else if (ident_is(ps, t, "const") || ident_is(ps, t, "volatile")) {
			/* qualifiers change nothing */
		} else if (!named && !keep && is_named_type(ps, t, &which)) {
			named = named_types[which].ty;
			named_size = named_types[which].size;
			if (!named_size) {
				named_size = lsz ? lsz : 8;
				if (lsz == 4)
					named = 4u | (named & TB_TY_UNSIGNED);
			}
		} else if (base || longs || named || is_unsigned || is_signed ||
			   is_bool || keep || tagged) {
			return fail(ps, TB_ERR_SYNTAX, "print fmt: a stray name in a type");
		} else {
			keep = 1; /* an unknown typedef */
		}
		advance(ps);
	}
	if (ptr) {
		unsigned psz = lsz ? lsz : 8, el = 0, esg = 0;
		/* the pointee, for indexing: u8/u16/u32/u64, char, short,
		 * int, long (one level of pointer only) */
		if (ptr == 1 && named) {
			el = TB_TY_W(named);
			esg = !(named & TB_TY_UNSIGNED);
		} else if (ptr == 1 && (base || longs) && !tagged) {
			el = longs >= 2 ? 8u : longs ? psz : (unsigned)base;
			esg = is_signed || (!is_unsigned && base != 1);
		}
		ct->ty = psz | TB_TY_UNSIGNED;
		ct->flags = TB_CAST_PTR | el << 8 | esg << 16;
		ct->size = psz;
		return 1;
	}
	if (is_bool) {
		ct->ty = TB_TY_INT;
		ct->flags = TB_CAST_BOOL;
		ct->size = 1;
		return 1;
	}
	if (tagged == 1 || (keep && !named && !base && !longs)) {
		ct->flags = TB_CAST_KEEP;
		ct->size = 0;
		return 1;
	}
	if (tagged == 2) {
		ct->ty = TB_TY_INT;
		ct->size = 4;
		return 1;
	}
	if (named) {
		ct->ty = named;
		ct->size = named_size;
		return 1;
	}
	if (longs >= 2) {
		ct->size = 8;
	} else if (longs == 1) {
		ct->size = lsz; /* 0 when unknown */
	} else if (base) {
		ct->size = (unsigned)base;
	} else {
		ct->size = 4; /* "unsigned" / "signed" alone */
	}
	{
		unsigned w = ct->size ? ct->size : 8;
		/* char is unsigned on every kernel since 6.2 */
		int uns = is_unsigned || (base == 1 && !is_signed && !longs);
		ct->ty = w | (uns ? TB_TY_UNSIGNED : 0u);
	}
	return 1;
}

static unsigned make_cast(parser *ps, const ctype *ct, unsigned e)
{
	tb_render_node_ *ne;
	if (!e)
		return 0;
	ne = &ps->nodes[e];
	if (ct->flags & TB_CAST_KEEP)
		return e;
	if (ne->op == TB_N_NUM) {
		uint64_t v = ne->v;
		unsigned unk = ne->ty & TB_TY_UNKNOWN;
		if (ct->flags & TB_CAST_BOOL)
			return num_node(ps, v != 0, TB_TY_INT | unk);
		return num_node(ps, v, ct->ty | unk);
	}
	return node(ps, TB_N_CAST, ct->ty, e, 0, 0, ct->flags);
}

/*
 * The -R listing masks a field's value by a cast to a C type libtraceevent
 * knows the size of (spelled exactly so): 1, 2 or 4 bytes, 0 for none.
 */
static unsigned tep_cast_mask(const char *s, size_t n)
{
	static const struct {
		const char *t;
		uint8_t size;
	} types[] = {
		{ "char", 1 }, { "unsigned char", 1 }, { "signed char", 1 },
		{ "u8", 1 }, { "s8", 1 }, { "__u8", 1 }, { "__s8", 1 },
		{ "short", 2 }, { "unsigned short", 2 }, { "u16", 2 },
		{ "s16", 2 }, { "__u16", 2 }, { "__s16", 2 },
		{ "int", 4 }, { "unsigned int", 4 }, { "unsigned", 4 },
		{ "u32", 4 }, { "s32", 4 }, { "__u32", 4 }, { "__s32", 4 },
	};
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n'))
		n--;
	for (size_t i = 0; i < TB_ARRAY_LEN(types); i++)
		if (tb_span_eq(s, n, types[i].t))
			return types[i].size;
	return 0;
}

/* In the -R listing's compile, note on a cast node (type text [ts, te))
 * the mask libtraceevent would apply, in bits 24-26 of its v. */
static void tep_mark_cast(parser *ps, unsigned e, size_t ts, size_t te)
{
	unsigned m;
	if (!(ps->p->options & TB_RENDER_FIELD_LIST) || !e ||
	    ps->nodes[e].op != TB_N_CAST || te < ts)
		return;
	m = tep_cast_mask(ps->s + ts, te - ts);
	ps->nodes[e].v |= (uint64_t)m << 24;
}

/* sizeof ( type | expr ) */
static unsigned parse_sizeof(parser *ps)
{
	unsigned e, sz = 0;
	advance(ps);
	if (!expect(ps, "(", "print fmt: sizeof needs '('"))
		return 0;
	if (starts_type(ps, &ps->cur)) {
		ctype ct;
		if (!parse_type(ps, &ct))
			return 0;
		if (ct.flags & TB_CAST_KEEP)
			return (unsigned)fail(ps, TB_ERR_UNSUPPORTED, "print fmt: sizeof of a type of unknown size");
		if (!ct.size)
			return (unsigned)fail(ps, TB_ERR_UNSUPPORTED, "print fmt: sizeof(long) with the long size unknown");
		sz = ct.size;
	} else {
		const tb_render_node_ *ne;
		e = parse_expr(ps);
		if (!e)
			return 0;
		ne = &ps->nodes[e];
		if (ne->op == TB_N_FIELD)
			sz = ps->p->ev.fields[ne->v].size;
		else if (ne->op == TB_N_NUM || ne->op == TB_N_BIN ||
			 ne->op == TB_N_CAST || ne->op == TB_N_UNARY)
			sz = TB_TY_W(ne->ty);
		else
			return (unsigned)fail(ps, TB_ERR_UNSUPPORTED, "print fmt: sizeof of this expression");
	}
	if (!expect(ps, ")", "print fmt: sizeof needs ')'"))
		return 0;
	return num_node(ps, sz, TB_TY_ULONG);
}

static const struct helper {
	const char *name;
	unsigned id;
	int kind; /* TB_RF_* the field must have: -1 any dynamic, -2 a value */
} helpers[] = {
	{ "__get_str", TB_H_GET_STR, -1 },
	{ "__get_rel_str", TB_H_GET_STR, -1 },
	{ "__get_dynamic_array", TB_H_GET_DYN, -1 },
	{ "__get_rel_dynamic_array", TB_H_GET_DYN, -1 },
	{ "__get_dynamic_array_len", TB_H_GET_DYN_LEN, -1 },
	{ "__get_rel_dynamic_array_len", TB_H_GET_DYN_LEN, -1 },
	{ "__get_bitmask", TB_H_GET_BITMASK, -1 },
	{ "__get_rel_bitmask", TB_H_GET_BITMASK, -1 },
	{ "__get_cpumask", TB_H_GET_CPUMASK, -1 },
	{ "__get_rel_cpumask", TB_H_GET_CPUMASK, -1 },
	{ "__get_sockaddr", TB_H_GET_SOCKADDR, -1 },
	{ "__get_rel_sockaddr", TB_H_GET_SOCKADDR, -1 },
	{ "__get_sockaddr_rel", TB_H_GET_SOCKADDR, -1 },
	{ "__print_flags", TB_H_PRINT_FLAGS, -2 },
	{ "__print_flags_u64", TB_H_PRINT_FLAGS_U64, -2 },
	{ "__print_symbolic", TB_H_PRINT_SYMBOLIC, -2 },
	{ "__print_symbolic_u64", TB_H_PRINT_SYMBOLIC_U64, -2 },
	{ "__print_hex", TB_H_PRINT_HEX, -2 },
	{ "__print_hex_str", TB_H_PRINT_HEX_STR, -2 },
	{ "__print_array", TB_H_PRINT_ARRAY, -2 },
	{ "__print_dynamic_array", TB_H_PRINT_DYN_ARRAY, -1 },
};

/* Parse "(" arg, arg ... ")" into a next-linked list; returns the head. */
static unsigned parse_args(parser *ps, int allow_pairs, unsigned *count)
{
	unsigned head = 0, tail = 0;
	*count = 0;
	if (!expect(ps, "(", "print fmt: '(' expected"))
		return 0;
	if (at(ps, ")")) {
		advance(ps);
		return 0;
	}
	for (;;) {
		unsigned e;
		if (allow_pairs && at(ps, "{") &&
		    is_punct((const tok[]){ peek_after(ps, &ps->cur) }, ps, "}")) {
			/* an empty table "{ }" (kvm_inj_exception): no entry */
			advance(ps);
			advance(ps);
			e = 0;
		} else if (allow_pairs && at(ps, "{")) {
			unsigned a, b;
			advance(ps);
			a = parse_expr(ps);
			if (!a || !expect(ps, ",", "print fmt: ',' expected in { value, \"name\" }"))
				return 0;
			b = parse_expr(ps);
			if (!b || !expect(ps, "}", "print fmt: '}' expected"))
				return 0;
			e = node(ps, TB_N_PAIR, 0, a, b, 0, 0);
			if (!e)
				return 0;
		} else {
			e = parse_expr(ps);
			if (!e)
				return 0;
		}
		if (e) {
			if (tail)
				ps->nodes[tail].next = (uint16_t)e;
			else
				head = e;
			tail = e;
			(*count)++;
		}
		if (at(ps, ",")) {
			advance(ps);
			continue;
		}
		if (!expect(ps, ")", "print fmt: ')' expected after the arguments"))
			return 0;
		return head;
	}
}

static unsigned parse_call(parser *ps, const tok *name)
{
	const struct helper *h = NULL;
	unsigned count, args, fidx = 0;
	const char *s = ps->s + name->start;
	if (ident_is(ps, name, "__builtin_expect")) {
		args = parse_args(ps, 0, &count);
		if (!args || count != 2)
			return (unsigned)fail(ps, TB_ERR_SYNTAX, "print fmt: __builtin_expect takes two arguments");
		return args; /* its value is its first argument */
	}
	if (ident_is(ps, name, "__print_ns_to_secs") ||
	    ident_is(ps, name, "__print_ns_without_secs")) {
		unsigned div;
		args = parse_args(ps, 0, &count);
		if (!args || count != 1)
			return (unsigned)fail(ps, TB_ERR_SYNTAX, "print fmt: __print_ns_* takes one argument");
		div = num_node(ps, 1000000000u, TB_TY_ULONG);
		if (!div)
			return 0;
		ps->nodes[args].next = 0;
		return fold_bin(ps, name->len == strlen("__print_ns_to_secs")
				       ? TB_OP_DIV : TB_OP_MOD,
				make_cast(ps, &(ctype){ TB_TY_ULONG, 0, 8 }, args), div);
	}
	for (size_t i = 0; i < TB_ARRAY_LEN(helpers); i++)
		if (tb_span_eq(s, name->len, helpers[i].name))
			h = &helpers[i];
	if (!h)
		return (unsigned)fail(ps, TB_ERR_UNSUPPORTED, "print fmt calls a function this renderer does not know");
	if (h->kind == -1) {
		/* the first argument names a dynamic field */
		const tb_field *f;
		if (!expect(ps, "(", "print fmt: '(' expected"))
			return 0;
		if (ps->cur.kind != T_IDENT ||
		    !field_lookup(ps, ps->s + ps->cur.start, ps->cur.len, &fidx))
			return (unsigned)fail(ps, TB_ERR_VALUE, "print fmt names a field the event does not have");
		f = &ps->p->ev.fields[fidx];
		if (tb_pf_kind(f) != TB_RF_DATA_LOC && tb_pf_kind(f) != TB_RF_REL_LOC &&
		    tb_pf_kind(f) != TB_RF_DATA_LOC16 && tb_pf_kind(f) != TB_RF_REST &&
		    tb_pf_kind(f) != TB_RF_ARRAY)
			return (unsigned)fail(ps, TB_ERR_VALUE, "print fmt: a dynamic-array helper on a plain field");
		advance(ps);
		args = 0;
		count = 0;
		if (h->id == TB_H_PRINT_DYN_ARRAY) {
			if (!expect(ps, ",", "print fmt: __print_dynamic_array needs an element size"))
				return 0;
			args = parse_expr(ps);
			if (!args)
				return 0;
			count = 1;
		}
		if (!expect(ps, ")", "print fmt: ')' expected"))
			return 0;
		return node(ps, TB_N_CALL, TB_TY_ULONG, args, 0, 0,
			    h->id | (uint64_t)fidx << 8);
	}
	args = parse_args(ps, h->id == TB_H_PRINT_FLAGS ||
				  h->id == TB_H_PRINT_FLAGS_U64 ||
				  h->id == TB_H_PRINT_SYMBOLIC ||
				  h->id == TB_H_PRINT_SYMBOLIC_U64,
			  &count);
	if (ps->st != TB_OK)
		return 0;
	switch (h->id) {
	case TB_H_PRINT_FLAGS:
	case TB_H_PRINT_FLAGS_U64:
		if (count < 2)
			return (unsigned)fail(ps, TB_ERR_SYNTAX, "print fmt: __print_flags needs a value and a delimiter");
		break;
	case TB_H_PRINT_SYMBOLIC:
	case TB_H_PRINT_SYMBOLIC_U64:
		if (count < 1)
			return (unsigned)fail(ps, TB_ERR_SYNTAX, "print fmt: __print_symbolic needs a value");
		break;
	case TB_H_PRINT_HEX:
	case TB_H_PRINT_HEX_STR:
		if (count != 2)
			return (unsigned)fail(ps, TB_ERR_SYNTAX, "print fmt: __print_hex takes two arguments");
		break;
	default: /* TB_H_PRINT_ARRAY */
		if (count != 3)
			return (unsigned)fail(ps, TB_ERR_SYNTAX, "print fmt: __print_array takes three arguments");
		break;
	}
	return node(ps, TB_N_CALL, TB_TY_ULONG, args, 0, 0, h->id);
}

static unsigned ident_value(parser *ps, const tok *t)
{
	uint64_t v = 0;
	if (tb_pf_enum_value(ps->s + t->start, t->len, ps->p->options, &v))
		return num_node(ps, v, TB_TY_INT);
	/* 0, as trace-cmd has it, but marked: no flag or symbol matches it */
	return num_node(ps, 0, TB_TY_INT | TB_TY_UNKNOWN);
}

static unsigned parse_primary(parser *ps)
{
	tok t = ps->cur;
	unsigned e;
	switch (t.kind) {
	case T_NUM:
	case T_CHAR:
		advance(ps);
		return num_node(ps, t.v, t.ty);
	case T_STR: {
		uint32_t off, len;
		if (!strings(ps, &off, &len))
			return 0;
		return node(ps, TB_N_STR, TB_TY_ULONG, 0, 0, 0,
			    (uint64_t)off << 32 | len);
	}
	case T_IDENT:
		advance(ps);
		if (ident_is(ps, &t, "REC"))
			return node(ps, TB_N_REC, 0, 0, 0, 0, 0);
		if (ident_is(ps, &t, "sizeof")) {
			ps->cur = t;
			return parse_sizeof(ps);
		}
		if (at(ps, "("))
			return parse_call(ps, &t);
		return ident_value(ps, &t);
	case T_PUNCT:
		if (at(ps, "(")) {
			advance(ps);
			e = parse_expr(ps);
			if (!e || !expect(ps, ")", "print fmt: ')' expected"))
				return 0;
			return e;
		}
		return (unsigned)fail(ps, TB_ERR_SYNTAX, "print fmt: an operand is expected");
	case T_EOF:
		return (unsigned)fail(ps, TB_ERR_SYNTAX, "print fmt ends inside an expression");
	default:
		return (unsigned)fail(ps, TB_ERR_SYNTAX, "print fmt: malformed token");
	}
}

static unsigned parse_postfix(parser *ps)
{
	unsigned e = parse_primary(ps);
	while (e) {
		if (at(ps, "->")) {
			unsigned fidx;
			advance(ps);
			if (ps->nodes[e].op != TB_N_REC)
				return (unsigned)fail(ps, TB_ERR_UNSUPPORTED, "print fmt: '->' on something other than REC");
			if (ps->cur.kind != T_IDENT)
				return (unsigned)fail(ps, TB_ERR_SYNTAX, "print fmt: a field name is expected after '->'");
			if (!field_lookup(ps, ps->s + ps->cur.start, ps->cur.len, &fidx))
				return (unsigned)fail(ps, TB_ERR_VALUE, "print fmt names a field the event does not have");
			advance(ps);
			e = node(ps, TB_N_FIELD, field_type(&ps->p->ev.fields[fidx]),
				 0, 0, 0, fidx);
		} else if (at(ps, "[")) {
			unsigned i;
			advance(ps);
			i = parse_expr(ps);
			if (!i || !expect(ps, "]", "print fmt: ']' expected"))
				return 0;
			e = node(ps, TB_N_INDEX, TB_TY_ULONG, e, i, 0, 0);
		} else if (at(ps, ".")) {
			return (unsigned)fail(ps, TB_ERR_UNSUPPORTED, "print fmt: member access with '.'");
		} else {
			break;
		}
	}
	return e;
}

static unsigned parse_unary(parser *ps)
{
	unsigned e = 0;
	if (++ps->depth > TB_RENDER_MAX_DEPTH)
		return (unsigned)fail(ps, TB_ERR_LIMIT, "print fmt expression nests too deep");
	if (at(ps, "-") || at(ps, "~") || at(ps, "!") || at(ps, "+")) {
		char op = ps->s[ps->cur.start];
		advance(ps);
		e = parse_unary(ps);
		if (e && op != '+') {
			tb_render_node_ *ne = &ps->nodes[e];
			unsigned ty = op == '!' ? TB_TY_INT : tb_ty_promote(ne->ty);
			if (ne->op == TB_N_NUM) {
				uint64_t v = ne->v;
				v = op == '-' ? 0 - v : op == '~' ? ~v : (uint64_t)(v == 0);
				e = num_node(ps, v, ty | (ne->ty & TB_TY_UNKNOWN));
			} else {
				e = node(ps, TB_N_UNARY, ty, e, 0, 0, (uint64_t)op);
			}
		}
	} else if (at(ps, "&")) {
		advance(ps);
		e = parse_unary(ps);
		if (e) {
			unsigned op = ps->nodes[e].op;
			if (op != TB_N_FIELD && op != TB_N_INDEX)
				e = (unsigned)fail(ps, TB_ERR_UNSUPPORTED, "print fmt: '&' of something other than a field");
			else
				e = node(ps, TB_N_ADDR, TB_TY_ULONG, e, 0, 0, 0);
		}
	} else if (at(ps, "*") || at(ps, "++") || at(ps, "--")) {
		e = (unsigned)fail(ps, TB_ERR_UNSUPPORTED, "print fmt: pointer dereference or increment");
	} else if (at(ps, "(")) {
		tok n = peek_after(ps, &ps->cur);
		if (starts_type(ps, &n)) {
			ctype ct;
			size_t ts, te;
			advance(ps);
			ts = ps->cur.start;
			if (parse_type(ps, &ct)) {
				te = ps->cur.start;
				if (expect(ps, ")", "print fmt: ')' expected after a type")) {
					e = parse_unary(ps);
					e = make_cast(ps, &ct, e);
					tep_mark_cast(ps, e, ts, te);
				}
			}
		} else {
			e = parse_postfix(ps);
		}
	} else {
		e = parse_postfix(ps);
	}
	ps->depth--;
	return e;
}

static int binop_of(const parser *ps, unsigned *op, int *prec)
{
	static const struct {
		const char *s;
		unsigned op;
		int prec;
	} ops[] = {
		{ "*", TB_OP_MUL, 10 }, { "/", TB_OP_DIV, 10 }, { "%", TB_OP_MOD, 10 },
		{ "+", TB_OP_ADD, 9 }, { "-", TB_OP_SUB, 9 },
		{ "<<", TB_OP_SHL, 8 }, { ">>", TB_OP_SHR, 8 },
		{ "<", TB_OP_LT, 7 }, { ">", TB_OP_GT, 7 }, { "<=", TB_OP_LE, 7 },
		{ ">=", TB_OP_GE, 7 }, { "==", TB_OP_EQ, 6 }, { "!=", TB_OP_NE, 6 },
		{ "&", TB_OP_BAND, 5 }, { "^", TB_OP_XOR, 4 }, { "|", TB_OP_BOR, 3 },
		{ "&&", TB_OP_LAND, 2 }, { "||", TB_OP_LOR, 1 },
	};
	if (ps->cur.kind != T_PUNCT)
		return 0;
	for (size_t i = 0; i < TB_ARRAY_LEN(ops); i++)
		if (at(ps, ops[i].s)) {
			*op = ops[i].op;
			*prec = ops[i].prec;
			return 1;
		}
	return 0;
}

/* Precedence climbing: left-associative binary operators >= min. */
static unsigned parse_binary(parser *ps, int min)
{
	unsigned lhs, op;
	int prec;
	if (++ps->depth > TB_RENDER_MAX_DEPTH + 16)
		return (unsigned)fail(ps, TB_ERR_LIMIT, "print fmt expression nests too deep");
	lhs = parse_unary(ps);
	while (lhs && binop_of(ps, &op, &prec) && prec >= min) {
		unsigned rhs;
		advance(ps);
		rhs = parse_binary(ps, prec + 1);
		if (!rhs) {
			lhs = 0;
			break;
		}
		lhs = fold_bin(ps, op, lhs, rhs);
	}
	ps->depth--;
	return lhs;
}

static unsigned parse_expr(parser *ps)
{
	unsigned c, a, b;
	if (++ps->depth > TB_RENDER_MAX_DEPTH)
		return (unsigned)fail(ps, TB_ERR_LIMIT, "print fmt expression nests too deep");
	c = parse_binary(ps, 1);
	if (c && at(ps, "?")) {
		advance(ps);
		a = parse_expr(ps);
		if (a && expect(ps, ":", "print fmt: ':' expected in '?:'"))
			b = parse_expr(ps);
		else
			b = 0;
		if (!a || !b) {
			c = 0;
		} else if (is_num(ps, c)) {
			c = ps->nodes[c].v ? a : b;
		} else {
			unsigned ta = ps->nodes[a].ty, tb = ps->nodes[b].ty;
			c = node(ps, TB_N_TERN, tb_ty_arith(ta, tb), c, a, b, 0);
		}
	}
	ps->depth--;
	return c;
}

/* ---------------------------------------------------- the format string */

static int dir_add(parser *ps, tb_render_dir_ **d)
{
	tb_render_prog *p = ps->p;
	if (p->n_dirs >= TB_RENDER_MAX_DIRS)
		return fail(ps, TB_ERR_LIMIT, "print fmt has too many conversions");
	*d = &p->dirs[p->n_dirs++];
	memset(*d, 0, sizeof(**d));
	(*d)->width = -1;
	(*d)->prec = -1;
	return 1;
}

/*
 * Split the decoded format text into literal runs and conversions, the
 * way the kernel's format_decode() reads it.  *nargs receives how many
 * arguments the conversions consume.
 */
static int parse_format(parser *ps, uint32_t off, uint32_t len, unsigned *nargs)
{
	const char *s = ps->p->text + off;
	uint32_t i = 0, lit = 0;
	tb_render_dir_ *d;
	*nargs = 0;
	while (i <= len) {
		if (i < len && s[i] != '%') {
			i++;
			continue;
		}
		if (i > lit) {
			if (!dir_add(ps, &d))
				return 0;
			d->kind = TB_D_LIT;
			d->text_off = off + lit;
			d->text_len = i - lit;
		}
		if (i >= len)
			break;
		i++; /* '%' */
		if (i < len && s[i] == '%') {
			lit = i; /* the second '%' starts the next literal */
			i++;
			continue;
		}
		if (!dir_add(ps, &d))
			return 0;
		switch (tb_pf_decode_spec(s, len, &i, d)) {
		case 1:
			break;
		case 0:
			return fail(ps, TB_ERR_SYNTAX, "print fmt: a conversion is cut short");
		default:
			return fail(ps, TB_ERR_UNSUPPORTED, "print fmt uses a conversion the kernel does not have");
		}
		if (d->width == -2)
			(*nargs)++;
		if (d->prec == -2)
			(*nargs)++;
		(*nargs)++;
		lit = i;
	}
	return 1;
}

/* Bind each conversion (and each '*') to its argument expression. */
static int bind_args(parser *ps, unsigned head)
{
	tb_render_prog *p = ps->p;
	unsigned a = head;
	for (uint32_t k = 0; k < p->n_dirs; k++) {
		tb_render_dir_ *d = &p->dirs[k];
		if (d->kind != TB_D_CONV)
			continue;
		if (d->width == -2) {
			d->warg = (uint16_t)a;
			a = a ? p->nodes[a].next : 0;
		}
		if (d->prec == -2) {
			d->parg = (uint16_t)a;
			a = a ? p->nodes[a].next : 0;
		}
		d->arg = (uint16_t)a;
		a = a ? p->nodes[a].next : 0;
		if (!d->arg || (d->width == -2 && !d->warg) ||
		    (d->prec == -2 && !d->parg))
			return fail(ps, TB_ERR_SYNTAX, "print fmt has fewer arguments than conversions");
	}
	return 1;
}

/* ------------------------------------------- trace-cmd's -R listing */

/*
 * The listing decides per field which conversion prints it, the way
 * libtraceevent 1.7 does (render.h, TB_RENDER_FIELD_LIST).  The print
 * fmt goes through the same lexer, string decoder and expression parser
 * as a rendering; what differs is libtraceevent's grammar of a
 * conversion, the helpers it knows, and that an argument it does not
 * understand is no field (instead of an error).
 */

#define TEP_MAX_ARGS 64u /* libtraceevent's argument table */
#define TEP_MAX_SPEC 28u /* a longer conversion spec fails libtraceevent */
#define TEP_MAX_WIDTH 1000 /* a wider width or precision prints raw */
#define TEP_MAX_NODES 32u  /* an argument of more nodes is no plain field */

/* The helpers libtraceevent 1.7 knows: calling anything else fails it. */
static const char *const tep_helpers[] = {
	"__print_flags", "__print_symbolic", "__print_hex", "__print_hex_str",
	"__print_array", "__get_str", "__get_rel_str", "__get_bitmask",
	"__get_rel_bitmask", "__get_cpumask", "__get_rel_cpumask",
	"__get_dynamic_array", "__get_rel_dynamic_array",
	"__get_sockaddr", "__get_sockaddr_rel", "__builtin_expect", "sizeof",
};

typedef struct tep_arg {
	int16_t field;  /* index in the event's fields, -1: not a plain field */
	uint8_t mask;   /* bytes a cast keeps (0: all) */
} tep_arg;

static int span_has(const char *s, size_t n, const char *w)
{
	size_t k = strlen(w);
	for (size_t i = 0; s && k <= n && i <= n - k; i++)
		if (memcmp(s + i, w, k) == 0)
			return 1;
	return 0;
}

/* Is the field's name followed by '[' in the format text (a size-0
 * `char buf[]`)?  Only looked at inside the text the format came from. */
static int name_bracket(const tb_format *fmt, const tb_field *f)
{
	uintptr_t a = (uintptr_t)f->name, b = (uintptr_t)fmt->text;
	if (!f->name || !fmt->text || a < b || a - b >= fmt->text_len ||
	    fmt->text_len - (a - b) <= f->name_len)
		return 0;
	return f->name[f->name_len] == '[';
}

/* libtraceevent's flags for a field, from its type text. */
static unsigned tep_flags(const tb_format *fmt, const tb_field *f)
{
	const char *t = f->type;
	size_t n = t ? f->type_len : 0;
	unsigned fl = 0;
	if (span_has(t, n, "[") || f->kind == TB_FIELD_ARRAY ||
	    f->kind == TB_FIELD_STRING ||
	    (f->kind == TB_FIELD_REST && name_bracket(fmt, f)))
		fl |= TB_TF_ARRAY;
	if ((fl & TB_TF_ARRAY) &&
	    (span_has(t, n, "char") || span_has(t, n, "u8") || span_has(t, n, "s8")))
		fl |= TB_TF_STRING;
	if (tb_span_starts(t, n, "__data_loc") || tb_span_starts(t, n, "__rel_loc"))
		fl |= TB_TF_DYNAMIC;
	if (span_has(t, n, "*"))
		fl |= TB_TF_POINTER;
	if (span_has(t, n, "long"))
		fl |= TB_TF_LONG;
	if (tb_pf_signed(f))
		fl |= TB_TF_SIGNED;
	return fl;
}

/* A string token libtraceevent reads: no control byte but a newline. */
static int tep_plain_string(const char *s, size_t n)
{
	for (size_t i = 1; i + 1 < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '\\') {
			i++;
			continue;
		}
		if ((c < 0x20 || c > 0x7e) && c != '\n')
			return 0;
	}
	return 1;
}

/* Would libtraceevent fail at token t (followed by nx)? */
static int tep_refuses(const parser *ps, const tok *t, const tok *nx)
{
	if (is_punct(t, ps, ";"))
		return 1;
	if (is_punct(t, ps, "{") && is_punct(nx, ps, "}"))
		return 1; /* an empty symbol table (kvm_inj_exception) */
	if (is_punct(t, ps, "(") && is_punct(nx, ps, "{") && nx->start == t->end)
		return 1; /* a statement expression */
	if (t->kind == T_IDENT && is_punct(nx, ps, "(")) {
		int known = 0;
		for (size_t k = 0; k < TB_ARRAY_LEN(tep_helpers); k++)
			known |= ident_is(ps, t, tep_helpers[k]);
		if (!known)
			return 1;
		if (ident_is(ps, t, "sizeof")) {
			tok m = peek_after(ps, nx);
			if (m.kind == T_IDENT && tb_span_starts(ps->s + m.start, m.len, "struct"))
				return 1; /* it sizes simple types only */
		}
	}
	return 0;
}

/* Which field argument [st, en) is, under casts and parentheses. */
static tep_arg tep_arg_of(parser *ps, size_t st, size_t en, uint32_t text_mark)
{
	tep_arg a = { -1, 0 };
	size_t n = ps->n;
	unsigned e, m = 0;
	ps->n = en;
	ps->depth = 0;
	ps->cur = lex(ps->s, en, st, ps->p->ev.long_size);
	e = parse_expr(ps);
	if (e && ps->st == TB_OK && ps->cur.kind == T_EOF) {
		const tb_render_node_ *nd = &ps->nodes[e];
		while (nd->op == TB_N_CAST) {
			unsigned cm = (unsigned)(nd->v >> 24) & 7u;
			if (cm && (!m || cm < m))
				m = cm;
			nd = &ps->nodes[nd->a];
		}
		if (nd->op == TB_N_FIELD) {
			a.field = (int16_t)nd->v;
			a.mask = (uint8_t)m;
		}
	}
	/* what libtraceevent does not understand is no field, not an error;
	 * the nodes and strings are not kept */
	ps->st = TB_OK;
	ps->what = NULL;
	ps->n = n;
	ps->depth = 0;
	ps->p->n_nodes = 1; /* the scratch is free again */
	ps->p->text_len = text_mark;
	return a;
}

/* Split the arguments after the format string at top-level commas and
 * find each one's field; 0 (error set) when libtraceevent fails them. */
static int tep_args(parser *ps, tep_arg *args, unsigned *nargs, uint32_t text_mark)
{
	size_t pos = ps->cur.end, start = pos;
	uint32_t sp[TEP_MAX_ARGS], ep[TEP_MAX_ARGS]; /* print fmt <= 64 KiB */
	int depth = 0;
	unsigned n = 0;
	*nargs = 0;
	for (;;) {
		tok t = lex(ps->s, ps->n, pos, ps->p->ev.long_size);
		tok nx = peek_after(ps, &t);
		if (t.kind == T_EOF || (depth == 0 && is_punct(&t, ps, ","))) {
			if (n == TEP_MAX_ARGS)
				return fail(ps, TB_ERR_LIMIT, "print fmt has more arguments than libtraceevent takes");
			sp[n] = (uint32_t)start;
			ep[n] = (uint32_t)t.start;
			n++;
			if (t.kind == T_EOF)
				break;
			pos = start = t.end;
			continue;
		}
		if (tep_refuses(ps, &t, &nx)) {
			ps->cur = t;
			return fail(ps, TB_ERR_UNSUPPORTED, "print fmt: libtraceevent cannot parse it (an unknown helper or statement)");
		}
		if (is_punct(&t, ps, "(") || is_punct(&t, ps, "[") || is_punct(&t, ps, "{"))
			depth++;
		else if (is_punct(&t, ps, ")") || is_punct(&t, ps, "]") || is_punct(&t, ps, "}"))
			depth--;
		pos = t.end;
	}
	for (unsigned k = 0; k < n; k++)
		args[k] = tep_arg_of(ps, sp[k], ep[k], text_mark);
	*nargs = n;
	return 1;
}

/* Flags, width and precision of a spec as printf reads it; 0 when it is
 * not in printf's order or a number is over the limit (printed raw). */
static int tep_spec(const char *s, uint32_t n, tb_render_dir_ *d)
{
	char b[TEP_MAX_SPEC + 1];
	uint32_t m = 0, k = 0;
	int32_t *num = &d->width;
	for (uint32_t i = 0; i < n; i++)
		if (s[i] != 'h' && s[i] != 'l' && s[i] != 'L' && s[i] != 'z' && s[i] != 'Z')
			b[m++] = s[i];
	for (; k < m; k++) {
		if (b[k] == '#') d->flags |= TB_NF_SPECIAL;
		else if (b[k] == '-') d->flags |= TB_NF_LEFT;
		else if (b[k] == '0') d->flags |= TB_NF_ZEROPAD;
		else break;
	}
	for (int part = 0; part < 2; part++) {
		if (part == 1) {
			if (k >= m || b[k] != '.')
				break;
			k++;
			num = &d->prec;
			*num = 0;
		}
		if (k < m && b[k] == '*') {
			*num = -2;
			k++;
		} else if (k < m && b[k] >= '0' && b[k] <= '9') {
			int32_t v = 0;
			for (; k < m && b[k] >= '0' && b[k] <= '9'; k++) {
				v = v * 10 + (b[k] - '0');
				if (v > TEP_MAX_WIDTH)
					return 0;
			}
			*num = v;
		}
	}
	return k == m;
}

/* Append a listing's conversion to its table in text (printfmt.h). */
static int fm_conv_add(parser *ps, const tb_render_dir_ *d)
{
	tb_render_prog *p = ps->p;
	size_t pos = p->text_len + (size_t)p->n_dirs * sizeof(*d);
	if (p->n_dirs >= TB_RENDER_MAX_DIRS || pos + sizeof(*d) > TB_RENDER_MAX_TEXT)
		return fail(ps, TB_ERR_LIMIT, "print fmt has too many conversions");
	memcpy(p->text + pos, d, sizeof(*d));
	p->n_dirs++;
	return 1;
}

/* The letters libtraceevent takes after %pI / %pi (4, 6, 6c, S[pcfs]*),
 * %pU (b B l L) and %ph (C D N); j is at the first letter. */
static void tep_pext(const char *f, uint32_t len, uint32_t *j, tb_render_dir_ *d)
{
	char y = (char)(*j + 1 < len ? f[*j + 1] : 0);
	if (d->pext[0] == 'I' || d->pext[0] == 'i') {
		if (y == '4' || y == '6') {
			d->pext[1] = y;
			(*j)++;
			if (y == '6' && *j + 1 < len && f[*j + 1] == 'c') {
				d->pext[2] = 'c';
				(*j)++;
			}
		} else if (y == 'S') {
			d->pext[1] = y;
			(*j)++;
			while (*j + 1 < len && (f[*j + 1] == 'p' || f[*j + 1] == 'c' ||
						f[*j + 1] == 'f' || f[*j + 1] == 's'))
				(*j)++;
		}
	} else if (d->pext[0] == 'U') {
		if (y == 'b' || y == 'B' || y == 'l' || y == 'L') {
			d->pext[1] = y;
			(*j)++;
		}
	} else if (y == 'C' || y == 'D' || y == 'N') {
		(*j)++;
	}
}

/* The items of the format string, literals merged: TB_FM_0X | ends in
 * "0x" for a literal run, else a dir index. */
#define TEP_LIT 0x4000u

static int tep_add_item(uint16_t *items, unsigned *n, unsigned v)
{
	if (*n && (items[*n - 1] & TEP_LIT) && (v & TEP_LIT)) {
		items[*n - 1] = (uint16_t)v; /* a literal run: its end counts */
		return 1;
	}
	if (*n >= 2 * TB_RENDER_MAX_DIRS + 2)
		return 0;
	items[(*n)++] = (uint16_t)v;
	return 1;
}

/* The conversions of the format string text[off, off+len), as
 * libtraceevent cuts it, bound to the arguments' fields. */
static int tep_format(parser *ps, uint32_t off, uint32_t len, const tep_arg *args,
		      unsigned nargs, uint16_t *items, unsigned *nitems)
{
	tb_render_prog *p = ps->p;
	const char *f = p->text + off;
	uint32_t i = 0;
	unsigned next = 0;
	*nitems = 0;
	while (i < len) {
		if (f[i] == '%' && (i + 1 >= len || f[i + 1] != '%')) {
			uint32_t st = i, j = i + 1;
			int ls = 0, star = 0, done = 0, lenf = -1;
			for (; j < len && !done; j++) {
				char c = f[j];
				tb_render_dir_ dd, *d = &dd;
				switch (c) {
				case '#': case '.': case '-': /* not '+': see default */
				case '0': case '1': case '2': case '3': case '4':
				case '5': case '6': case '7': case '8': case '9':
					break;
				case 'h': ls--; break;
				case 'l': ls++; break;
				case 'L': ls = 2; break;
				case 'z': case 'Z': ls = 1; break;
				case '*':
					if (next >= nargs || star)
						return fail(ps, TB_ERR_SYNTAX, "print fmt has fewer arguments than conversions");
					star = 1;
					lenf = args[next++].field;
					break;
				case 'p': case 'c': case 'd': case 'u': case 'i':
				case 'x': case 'X': case 'o': case 's':
					if (next >= nargs)
						return fail(ps, TB_ERR_SYNTAX, "print fmt has fewer arguments than conversions");
					if (ls < -2 || ls > 2)
						return fail(ps, TB_ERR_SYNTAX, "print fmt: a length modifier libtraceevent refuses");
					memset(d, 0, sizeof(*d));
					d->width = -1;
					d->prec = -1;
					d->kind = TB_D_CONV;
					d->conv = (uint8_t)c;
					d->lenmod = (uint8_t)(ls == -2 ? TB_L_HH : ls == -1 ? TB_L_H
							    : ls == 1 ? TB_L_L : ls == 2 ? TB_L_LL : TB_L_NONE);
					d->arg = (uint16_t)(args[next].field + 1);
					d->parg = args[next].mask;
					next++;
					d->warg = (uint16_t)(star && lenf >= 0 ? lenf + 1 : 0);
					if (j - st - 1 > TEP_MAX_SPEC)
						return fail(ps, TB_ERR_LIMIT, "print fmt: a conversion longer than libtraceevent takes");
					if (!tep_spec(f + st + 1, j - st - 1, d))
						d->kind = TB_D_WIDE;
					if (c == 'p') {
						char x = (char)(j + 1 < len ? f[j + 1] : 0);
						if (x == 'F' || x == 'S' || x == 'f' || x == 's') {
							d->pext[0] = x;
							j++;
						} else if (x == 'M' || x == 'm') {
							d->pext[0] = x;
							j++;
							if (j + 1 < len && (f[j + 1] == 'R' || f[j + 1] == 'F'))
								j++;
						} else if (x == 'I' || x == 'i' || x == 'U' || x == 'h') {
							d->pext[0] = x;
							j++;
							tep_pext(f, len, &j, d);
						}
					}
					if (!fm_conv_add(ps, d))
						return 0;
					if (!tep_add_item(items, nitems, p->n_dirs - 1))
						return fail(ps, TB_ERR_LIMIT, "print fmt has too many conversions");
					done = 1;
					break;
				default:
					/* a letter libtraceevent does not know
					 * ('+', ' ', 'j', 't', 'n'...) ends the
					 * conversion as a literal: it takes no
					 * argument */
					if (!tep_add_item(items, nitems, TEP_LIT))
						return fail(ps, TB_ERR_LIMIT, "print fmt has too many conversions");
					done = 1;
					break;
				}
			}
			i = j;
			continue;
		}
		{
			/* a literal run to the next conversion ("%%" is one '%') */
			char c1 = 0, c2 = 0;
			while (i < len && !(f[i] == '%' && (i + 1 >= len || f[i + 1] != '%'))) {
				c1 = c2;
				c2 = f[i];
				i += f[i] == '%' ? 2 : 1;
			}
			if (!tep_add_item(items, nitems,
					  TEP_LIT | (c1 == '0' && c2 == 'x' ? TB_FM_0X : 0u)))
				return fail(ps, TB_ERR_LIMIT, "print fmt has too many conversions");
		}
	}
	return 1;
}

static void fm_set(tb_render_prog *p, size_t i, unsigned v)
{
	p->text[TB_FM_ENTRY * i + 1] = (char)(v & 0xff);
	p->text[TB_FM_ENTRY * i + 2] = (char)(v >> 8);
}

/* Which conversion prints each field: libtraceevent's search, done once
 * here since it depends on the format only. */
static void tep_bind(tb_render_prog *p, const uint16_t *items, unsigned n)
{
	unsigned cursor = 0;
	int live = 1;
	for (size_t i = 0; i < p->ev.n_fields && live && n; i++) {
		unsigned k, q, has0x = 0;
		if (tb_pf_common(&p->ev.fields[i]) ||
		    (p->text[TB_FM_ENTRY * i] & (TB_TF_ARRAY | TB_TF_STRING)))
			continue;
		for (k = 0, q = cursor; k < n; k++, q = (q + 1) % n) {
			tb_render_dir_ d;
			if (items[q] & TEP_LIT) {
				has0x = (items[q] & TB_FM_0X) != 0;
				continue;
			}
			tb_pf_fm_get(p, items[q], &d);
			/* libtraceevent prints no field with %c */
			if (d.arg != i + 1 || d.conv == 'c') {
				has0x = 0;
				continue;
			}
			fm_set(p, i, (items[q] + 1u) | (has0x ? TB_FM_0X : 0u));
			if (q + 1 < n)
				cursor = q + 1;
			else
				live = 0;
			break;
		}
	}
}

static tb_status compile_fields(parser *ps, const tb_format *fmt, tb_error *err)
{
	tb_render_prog *p = ps->p;
	tep_arg args[TEP_MAX_ARGS];
	uint16_t items[2 * TB_RENDER_MAX_DIRS + 2];
	/* the arguments' nodes live here for a moment, so the program's own
	 * node table (and its pages) stays untouched */
	tb_render_node_ scratch[TEP_MAX_NODES];
	unsigned nargs = 0, nitems = 0;
	uint32_t off, mark;
	size_t nf = p->ev.n_fields;
	p->mode = TB_M_FIELDS;
	ps->nodes = scratch;
	ps->node_cap = TEP_MAX_NODES;
	memset(&scratch[0], 0, sizeof(scratch[0]));
	if (nf > TB_FORMAT_MAX_FIELDS) {
		p->mode = TB_M_FALLBACK;
		fail(ps, TB_ERR_LIMIT, "event has too many fields for the field listing");
		goto out;
	}
	for (size_t i = 0; i < nf; i++) {
		p->text[TB_FM_ENTRY * i] = (char)tep_flags(fmt, &p->ev.fields[i]);
		fm_set(p, i, 0);
	}
	p->text_len = (uint32_t)(TB_FM_ENTRY * nf);
	off = p->text_len;
	if (ps->n > TB_RENDER_MAX_FMT) {
		fail(ps, TB_ERR_LIMIT, "print fmt is longer than the limit");
		goto out;
	}
	ps->cur = lex(ps->s, ps->n, 0, p->ev.long_size);
	if (ps->cur.kind != T_STR) {
		fail(ps, TB_ERR_SYNTAX, "print fmt: a string literal is expected");
		goto out;
	}
	while (ps->cur.kind == T_STR) {
		if (!tep_plain_string(ps->s + ps->cur.start, ps->cur.len)) {
			fail(ps, TB_ERR_UNSUPPORTED, "print fmt: a control byte in the format string");
			goto out;
		}
		if (!text_add(ps, &ps->cur))
			goto out;
		advance(ps);
	}
	mark = p->text_len;
	if (ps->cur.kind != T_EOF && !at(ps, ",")) {
		fail(ps, TB_ERR_SYNTAX, "print fmt: ',' expected after the format string");
		goto out;
	}
	if (at(ps, ",") && !tep_args(ps, args, &nargs, mark))
		goto out;
	/* the conversions follow the format string, aligned */
	p->text_len = (mark + 7u) & ~7u;
	if (tep_format(ps, off, mark - off, args, nargs, items, &nitems))
		tep_bind(p, items, nitems);
out:
	p->n_nodes = 0;
	ps->nodes = p->nodes;
	if (ps->st != TB_OK)
		for (size_t i = 0; p->mode == TB_M_FIELDS && i < nf; i++)
			fm_set(p, i, 0);
	if (p->mode == TB_M_FIELDS)
		tb_pf_plan_fields(p);
	if (ps->st != TB_OK) {
		p->n_dirs = 0;
		p->status = ps->st;
		p->error.status = ps->st;
		p->error.offset = ps->at;
		p->error.what = ps->what;
		return tb_fail(err, ps->st, ps->at, ps->what);
	}
	p->status = TB_OK;
	tb_error_clear(&p->error);
	return TB_OK;
}

/* ------------------------------------------------------------ the entry */

static void kernel_printer(tb_render_prog *p, unsigned options)
{
	const tb_render_event_ *ev = &p->ev;
	int ftrace = ev->system && tb_span_eq(ev->system, ev->system_len, "ftrace");
	if (ftrace && ev->name && tb_span_eq(ev->name, ev->name_len, "bprint")) {
		p->mode = TB_M_BPRINT;
		return;
	}
	if (ftrace && ev->name && tb_span_eq(ev->name, ev->name_len, "bputs")) {
		p->mode = TB_M_BPUTS;
		return;
	}
	if (!(options & TB_RENDER_KERNEL_STYLE) || !ev->name || !ev->system ||
	    !tb_span_eq(ev->system, ev->system_len, "syscalls"))
		return;
	if (tb_span_starts(ev->name, ev->name_len, "sys_enter_"))
		p->mode = TB_M_SYS_ENTER;
	else if (tb_span_starts(ev->name, ev->name_len, "sys_exit_"))
		p->mode = TB_M_SYS_EXIT;
	else
		return;
	tb_pf_plan_syscall(p, p->mode == TB_M_SYS_ENTER);
}

tb_status tb_render_compile(tb_render_prog *prog, const tb_format *fmt,
			    unsigned long_size, int big_endian, unsigned options,
			    tb_error *err)
{
	parser ps;
	uint32_t off, len;
	unsigned nargs, count = 0, head = 0, tail = 0;
	tb_render_event_ *ev;
	tb_error_clear(err);
	if (!prog || !fmt || (fmt->nfields && !fmt->fields))
		return tb_fail(err, TB_ERR_ARG, 0, "render: no program or no format");
	/* the header only: dirs, text and nodes are written before read */
	memset(prog, 0, offsetof(tb_render_prog, nodes));
	ev = &prog->ev;
	ev->system = fmt->system;
	ev->system_len = fmt->system ? fmt->system_len : 0;
	ev->name = fmt->name;
	ev->name_len = fmt->name ? fmt->name_len : 0;
	ev->fields = fmt->fields;
	ev->n_fields = fmt->nfields;
	ev->long_size = long_size;
	ev->big_endian = big_endian != 0;
	ev->print_fmt = fmt->print_fmt;
	ev->print_fmt_len = fmt->print_fmt ? fmt->print_fmt_len : 0;
	/* a print fmt may hold a newline inside a string (ext4 fsmap
	 * events): it runs to the end of the text, not of its line */
	if (fmt->print_fmt && fmt->text && fmt->print_fmt_offset <= fmt->text_len &&
	    fmt->print_fmt == fmt->text + fmt->print_fmt_offset) {
		size_t n = fmt->text_len - fmt->print_fmt_offset;
		while (n && (fmt->print_fmt[n - 1] == '\n' || fmt->print_fmt[n - 1] == '\0'))
			n--;
		if (n > ev->print_fmt_len)
			ev->print_fmt_len = n;
	}
	prog->options = options;
	prog->n_nodes = 1; /* node 0 means "none" */
	prog->mode = TB_M_PRINTFMT;
	memset(&ps, 0, sizeof(ps));
	ps.p = prog;
	ps.nodes = prog->nodes;
	ps.node_cap = TB_RENDER_MAX_NODES;
	ps.s = ev->print_fmt;
	ps.n = ev->print_fmt_len;
	if (options & TB_RENDER_FIELD_LIST)
		return compile_fields(&ps, fmt, err);
	if (ps.n > TB_RENDER_MAX_FMT) {
		fail(&ps, TB_ERR_LIMIT, "print fmt is longer than the limit");
	} else {
		ps.cur = lex(ps.s, ps.n, 0, long_size);
		if (strings(&ps, &off, &len)) {
			while (ps.st == TB_OK && at(&ps, ",")) {
				unsigned e;
				advance(&ps);
				e = parse_expr(&ps);
				if (!e)
					break;
				if (tail)
					prog->nodes[tail].next = (uint16_t)e;
				else
					head = e;
				tail = e;
				count++;
			}
			/* anything after the last argument is ignored, as
			 * libtraceevent does (its sizeof test ends in ')') */
			if (ps.st == TB_OK && parse_format(&ps, off, len, &nargs))
				bind_args(&ps, head);
		}
	}
	kernel_printer(prog, options);
	if (ps.st != TB_OK) {
		prog->status = ps.st;
		prog->error.status = ps.st;
		prog->error.offset = ps.at;
		prog->error.what = ps.what;
		if (prog->mode == TB_M_PRINTFMT)
			prog->mode = TB_M_FALLBACK;
		return tb_fail(err, ps.st, ps.at, ps.what);
	}
	if (prog->mode == TB_M_PRINTFMT)
		tb_pf_plan_dirs(prog);
	prog->status = TB_OK;
	tb_error_clear(&prog->error);
	return TB_OK;
}
