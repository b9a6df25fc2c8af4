/*
 * trace-cmd report -F filters: "EVENTS[: EXPRESSION]" compiled into a
 * postfix program in caller storage, evaluated on records through the
 * field accessors.
 *
 * The parser is a shunting-yard loop with an explicit operator stack (no
 * recursion); nesting, program size, regex count and text length each
 * have a named limit.  trace-cmd's own reading is kept where a user
 * would notice a difference: && and || share one precedence and group
 * left to right, names and regexes are GNU basic regexes matched without
 * regard to case, a field the event lacks makes its comparison false.
 */
#include "internal.h"
#include "tracebound/filter.h"

enum { N_TRUE = 1, N_NUM, N_STR, N_RE, N_ARITH, N_NOT, N_AND, N_OR };
enum { C_EQ = 1, C_NE, C_LT, C_LE, C_GT, C_GE, C_RE, C_NRE };
enum { A_AND = 1, A_OR, A_XOR, A_ADD, A_SUB, A_MUL, A_DIV, A_MOD, A_SHL, A_SHR };
enum { K_END = 0, K_IDENT, K_NUM, K_STR, K_LP, K_RP, K_NOT, K_ANDAND, K_OROR, K_CMP,
       K_ARITH, K_ASSIGN };

typedef struct ftok {
	uint8_t kind;
	uint8_t op;       /* K_CMP: C_*; K_ARITH: A_* */
	size_t pos, len;  /* bytes of the token (K_STR: inside the quotes) */
} ftok;

typedef struct fparser {
	tb_filter *f;
	const char *p;
	size_t len;
	size_t i;
	size_t nre;       /* =~ and !~ so far */
	tb_error *err;
} fparser;

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static int is_ident(char c, int first)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
	       (!first && c >= '0' && c <= '9');
}

/* The next token at ps->i (moved past it). */
static tb_status lex(fparser *ps, ftok *t)
{
	const char *p = ps->p;
	size_t n = ps->len;
	char c, d;
	while (ps->i < n && is_space(p[ps->i]))
		ps->i++;
	memset(t, 0, sizeof *t);
	t->pos = ps->i;
	if (ps->i >= n)
		return TB_OK; /* K_END */
	c = p[ps->i];
	d = 0;
	if (ps->i + 1 < n)
		d = p[ps->i + 1];
	if (is_ident(c, 1)) {
		size_t s = ps->i;
		while (ps->i < n && is_ident(p[ps->i], 0))
			ps->i++;
		t->kind = K_IDENT;
		t->len = ps->i - s;
		if (t->len > TB_FORMAT_MAX_NAME)
			return tb_fail(ps->err, TB_ERR_LIMIT, s,
				       "field name longer than TB_FORMAT_MAX_NAME");
		return TB_OK;
	}
	if (c >= '0' && c <= '9') {
		size_t s = ps->i;
		while (ps->i < n && is_ident(p[ps->i], 0))
			ps->i++;
		t->kind = K_NUM;
		t->len = ps->i - s;
		return TB_OK;
	}
	if (c == '"' || c == '\'') {
		size_t s = ++ps->i;
		/* A backslash keeps the next character from ending the string;
		 * both stay in the value (trace-cmd hands them to regcomp). */
		while (ps->i < n && p[ps->i] != c) {
			if (p[ps->i] == 0)
				return tb_fail(ps->err, TB_ERR_SYNTAX, ps->i, "NUL in a filter");
			if (p[ps->i] == '\\' && ps->i + 1 < n)
				ps->i++;
			ps->i++;
		}
		if (ps->i >= n)
			return tb_fail(ps->err, TB_ERR_SYNTAX, s - 1,
				       "string without its closing quote");
		t->kind = K_STR;
		t->pos = s;
		t->len = ps->i - s;
		ps->i++;
		return TB_OK;
	}
	t->len = 2;
#define TWO(a, b) (c == (a) && d == (b))
	if (TWO('&', '&')) t->kind = K_ANDAND;
	else if (TWO('|', '|')) t->kind = K_OROR;
	else if (TWO('=', '=')) { t->kind = K_CMP; t->op = C_EQ; }
	else if (TWO('!', '=')) { t->kind = K_CMP; t->op = C_NE; }
	else if (TWO('<', '=')) { t->kind = K_CMP; t->op = C_LE; }
	else if (TWO('>', '=')) { t->kind = K_CMP; t->op = C_GE; }
	else if (TWO('=', '~')) { t->kind = K_CMP; t->op = C_RE; }
	else if (TWO('!', '~')) { t->kind = K_CMP; t->op = C_NRE; }
	else if (TWO('<', '<')) { t->kind = K_ARITH; t->op = A_SHL; }
	else if (TWO('>', '>')) { t->kind = K_ARITH; t->op = A_SHR; }
	else {
		t->len = 1;
		switch (c) {
		case '(': t->kind = K_LP; break;
		case ')': t->kind = K_RP; break;
		case '!': t->kind = K_NOT; break;
		case '<': t->kind = K_CMP; t->op = C_LT; break;
		case '>': t->kind = K_CMP; t->op = C_GT; break;
		case '=': t->kind = K_ASSIGN; break;
		case '&': t->kind = K_ARITH; t->op = A_AND; break;
		case '|': t->kind = K_ARITH; t->op = A_OR; break;
		case '^': t->kind = K_ARITH; t->op = A_XOR; break;
		case '+': t->kind = K_ARITH; t->op = A_ADD; break;
		case '-': t->kind = K_ARITH; t->op = A_SUB; break;
		case '*': t->kind = K_ARITH; t->op = A_MUL; break;
		case '/': t->kind = K_ARITH; t->op = A_DIV; break;
		case '%': t->kind = K_ARITH; t->op = A_MOD; break;
		default:
			return tb_fail(ps->err, TB_ERR_SYNTAX, ps->i,
				       "unexpected character in a filter");
		}
	}
#undef TWO
	ps->i += t->len;
	return TB_OK;
}

/* A number token: decimal, 0x hex or 0 octal (C's rules), 64 bits. */
static tb_status number(fparser *ps, const ftok *t, uint64_t *out)
{
	const char *p = ps->p + t->pos;
	size_t i = 0, n = t->len;
	unsigned base = 10;
	uint64_t v = 0;
	if (n > 1 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		base = 16;
		i = 2;
		if (n == 2)
			return tb_fail(ps->err, TB_ERR_SYNTAX, t->pos, "0x without hex digits");
	} else if (n > 1 && p[0] == '0') {
		base = 8;
		i = 1;
	}
	for (; i < n; i++) {
		char c = p[i];
		unsigned dv;
		if (c >= '0' && c <= '9')
			dv = (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			dv = (unsigned)(c - 'a') + 10u;
		else if (c >= 'A' && c <= 'F')
			dv = (unsigned)(c - 'A') + 10u;
		else
			dv = 99;
		if (dv >= base)
			return tb_fail(ps->err, TB_ERR_SYNTAX, t->pos + i,
				       "not a digit of this number (decimal, 0x hex or 0 octal)");
		if (v > (UINT64_MAX - dv) / base)
			return tb_fail(ps->err, TB_ERR_VALUE, t->pos, "number over 64 bits");
		v = v * base + dv;
	}
	*out = v;
	return TB_OK;
}

static tb_filter_node *new_node(fparser *ps, uint8_t op, size_t pos)
{
	tb_filter *f = ps->f;
	tb_filter_node *nd;
	if (f->nnodes >= TB_FILTER_MAX_NODES) {
		tb_fail(ps->err, TB_ERR_LIMIT, pos, "filter longer than TB_FILTER_MAX_NODES steps");
		return NULL;
	}
	nd = &f->node[f->nnodes++];
	memset(nd, 0, sizeof *nd);
	nd->op = op;
	nd->pos = (uint16_t)pos;
	return nd;
}

static unsigned regex_flags(const tb_filter *f)
{
	return TB_REGEX_ICASE | ((f->flags & TB_FILTER_ERE) ? 0u : TB_REGEX_BRE);
}

/* Compile a regex of the text at [off, off+len) into the next slot. */
static tb_status add_regex(fparser *ps, size_t off, size_t len, unsigned flags,
			   uint8_t *idx)
{
	tb_filter *f = ps->f;
	tb_error e;
	tb_status st;
	if (f->nregex >= TB_ARRAY_LEN(f->regex))
		return tb_fail(ps->err, TB_ERR_LIMIT, off, "too many regexes in one filter");
	st = tb_regex_compile(&f->regex[f->nregex], ps->p + off, len, flags, &e);
	if (st != TB_OK)
		return tb_fail(ps->err, st, off + e.offset, e.what);
	*idx = (uint8_t)f->nregex++;
	return TB_OK;
}

/* FIELD OP VALUE or FIELD ARITH NUMBER; `name` is the field token. */
static tb_status comparison(fparser *ps, const ftok *name)
{
	ftok op, v;
	tb_filter_node *nd;
	tb_status st = lex(ps, &op);
	int neg = 0;
	if (st != TB_OK)
		return st;
	if (op.kind == K_ASSIGN)
		return tb_fail(ps->err, TB_ERR_SYNTAX, op.pos, "'=' is not an operator: use '=='");
	if (op.kind != K_CMP && op.kind != K_ARITH)
		return tb_fail(ps->err, TB_ERR_SYNTAX, op.pos,
			       "a field needs an operator and a value (FIELD == VALUE)");
	st = lex(ps, &v);
	if (st == TB_OK && op.kind == K_CMP && v.kind == K_ARITH && v.op == A_SUB) {
		neg = 1;
		st = lex(ps, &v);
		if (st == TB_OK && v.kind != K_NUM)
			return tb_fail(ps->err, TB_ERR_SYNTAX, v.pos, "'-' without a number");
	}
	if (st != TB_OK)
		return st;
	nd = new_node(ps, N_NUM, name->pos);
	if (!nd)
		return ps->err ? ps->err->status : TB_ERR_LIMIT;
	nd->name_off = (uint16_t)name->pos;
	nd->name_len = (uint16_t)name->len;
	if (op.kind == K_ARITH) {
		if (v.kind != K_NUM)
			return tb_fail(ps->err, TB_ERR_SYNTAX, v.pos,
				       "arithmetic takes a number (FIELD & 0x4)");
		st = number(ps, &v, &nd->num);
		if (st != TB_OK)
			return st;
		if ((op.op == A_DIV || op.op == A_MOD) && nd->num == 0)
			return tb_fail(ps->err, TB_ERR_VALUE, v.pos, "division by zero");
		if ((op.op == A_SHL || op.op == A_SHR) && nd->num > 63)
			return tb_fail(ps->err, TB_ERR_VALUE, v.pos, "shift by more than 63");
		nd->op = N_ARITH;
		nd->cmp = op.op;
		return TB_OK;
	}
	nd->cmp = op.op;
	if (op.op == C_RE || op.op == C_NRE) {
		if (v.kind != K_STR)
			return tb_fail(ps->err, TB_ERR_SYNTAX, v.pos,
				       "=~ and !~ take a quoted regular expression");
		if (ps->nre >= TB_FILTER_MAX_REGEX)
			return tb_fail(ps->err, TB_ERR_LIMIT, op.pos,
				       "more =~ / !~ than TB_FILTER_MAX_REGEX");
		nd->op = N_RE;
		ps->nre++;
		return add_regex(ps, v.pos, v.len, regex_flags(ps->f), &nd->regex);
	}
	if (v.kind == K_STR) {
		if (op.op != C_EQ && op.op != C_NE)
			return tb_fail(ps->err, TB_ERR_SYNTAX, op.pos,
				       "strings compare with ==, !=, =~ or !~ only");
		nd->op = N_STR;
		nd->str_off = (uint16_t)v.pos;
		nd->str_len = (uint16_t)v.len;
		return TB_OK;
	}
	if (v.kind != K_NUM)
		return tb_fail(ps->err, TB_ERR_SYNTAX, v.pos,
			       "a comparison needs a number or a quoted string");
	st = number(ps, &v, &nd->num);
	if (st != TB_OK)
		return st;
	if (neg) {
		if (nd->num > (uint64_t)1 << 63)
			return tb_fail(ps->err, TB_ERR_VALUE, v.pos, "number below -2^63");
		nd->num = (uint64_t)0 - nd->num;
		nd->neg = nd->num != 0;
	}
	return TB_OK;
}

/* ---- the expression: shunting-yard over an explicit stack ---- */

typedef struct opent {
	uint8_t kind;   /* K_LP, K_NOT, K_ANDAND, K_OROR */
	size_t pos;
} opent;

static int prec(const tb_filter *f, uint8_t kind)
{
	if (kind == K_ANDAND && (f->flags & TB_FILTER_C_PRECEDENCE))
		return 2;
	return 1;
}

static tb_status emit_op(fparser *ps, uint8_t kind, size_t pos)
{
	uint8_t op = kind == K_NOT ? N_NOT : kind == K_ANDAND ? N_AND : N_OR;
	return new_node(ps, op, pos) ? TB_OK : (ps->err ? ps->err->status : TB_ERR_LIMIT);
}

static tb_status expression(fparser *ps)
{
	opent stk[3u * (TB_FILTER_MAX_DEPTH + 1u)];
	size_t sp = 0, depth = 0;
	int want_operand = 1;
	for (;;) {
		ftok t;
		tb_status st = lex(ps, &t);
		if (st != TB_OK)
			return st;
		if (want_operand) {
			if (t.kind == K_LP || t.kind == K_NOT) {
				if (depth >= TB_FILTER_MAX_DEPTH)
					return tb_fail(ps->err, TB_ERR_LIMIT, t.pos,
						       "'(' and '!' nested deeper than "
						       "TB_FILTER_MAX_DEPTH");
				depth++;
				stk[sp].kind = t.kind;
				stk[sp].pos = t.pos;
				sp++;
				continue;
			}
			if (t.kind == K_IDENT) {
				st = comparison(ps, &t);
			} else if (t.kind == K_END) {
				return tb_fail(ps->err, TB_ERR_SYNTAX, t.pos,
					       "the filter ends where a comparison should be");
			} else if (t.kind == K_NUM || t.kind == K_STR) {
				return tb_fail(ps->err, TB_ERR_SYNTAX, t.pos,
					       "a comparison starts with a field name "
					       "(FIELD == VALUE)");
			} else {
				return tb_fail(ps->err, TB_ERR_SYNTAX, t.pos,
					       "expected a field name, '(' or '!'");
			}
		} else if (t.kind == K_RP) {
			while (sp > 0 && stk[sp - 1].kind != K_LP) {
				sp--;
				st = emit_op(ps, stk[sp].kind, stk[sp].pos);
				if (st != TB_OK)
					return st;
			}
			if (sp == 0)
				return tb_fail(ps->err, TB_ERR_SYNTAX, t.pos, "')' without its '('");
			sp--;
			depth--;
		} else if (t.kind == K_ANDAND || t.kind == K_OROR) {
			while (sp > 0 && stk[sp - 1].kind != K_LP &&
			       prec(ps->f, stk[sp - 1].kind) >= prec(ps->f, t.kind)) {
				sp--;
				st = emit_op(ps, stk[sp].kind, stk[sp].pos);
				if (st != TB_OK)
					return st;
			}
			stk[sp].kind = t.kind;
			stk[sp].pos = t.pos;
			sp++;
			want_operand = 1;
			continue;
		} else if (t.kind == K_END) {
			while (sp > 0) {
				sp--;
				if (stk[sp].kind == K_LP)
					return tb_fail(ps->err, TB_ERR_SYNTAX, stk[sp].pos,
						       "'(' without its ')'");
				st = emit_op(ps, stk[sp].kind, stk[sp].pos);
				if (st != TB_OK)
					return st;
			}
			return TB_OK;
		} else {
			return tb_fail(ps->err, TB_ERR_SYNTAX, t.pos,
				       "expected '&&', '||' or ')' after a comparison");
		}
		if (st != TB_OK)
			return st;
		/* A term is complete: the '!'s right before it apply now. */
		while (sp > 0 && stk[sp - 1].kind == K_NOT) {
			sp--;
			depth--;
			st = emit_op(ps, K_NOT, stk[sp].pos);
			if (st != TB_OK)
				return st;
		}
		want_operand = 0;
	}
}

/* ---- the EVENTS part ---- */

static void trim(const char *p, size_t *s, size_t *e)
{
	while (*s < *e && is_space(p[*s]))
		(*s)++;
	while (*e > *s && is_space(p[*e - 1]))
		(*e)--;
}

static tb_status events(fparser *ps, size_t end)
{
	tb_filter *f = ps->f;
	size_t i = 0;
	unsigned flags = regex_flags(f) | TB_REGEX_ANCHORED;
	for (;;) {
		size_t s = i, e, slash, ns, ne;
		tb_filter_event *ev;
		tb_status st;
		while (i < end && ps->p[i] != ',')
			i++;
		e = i;
		trim(ps->p, &s, &e);
		if (s == e)
			return tb_fail(ps->err, TB_ERR_SYNTAX, s, "empty event name");
		if (f->nevents >= TB_FILTER_MAX_EVENTS)
			return tb_fail(ps->err, TB_ERR_LIMIT, s,
				       "more event patterns than TB_FILTER_MAX_EVENTS");
		ev = &f->event[f->nevents];
		memset(ev, 0, sizeof *ev);
		for (slash = s; slash < e && ps->p[slash] != '/'; slash++)
			;
		ns = s;
		ne = e;
		if (slash < e) {
			size_t ss = s, se = slash;
			trim(ps->p, &ss, &se);
			ns = slash + 1;
			trim(ps->p, &ns, &ne);
			if (ss == se || ns == ne)
				return tb_fail(ps->err, TB_ERR_SYNTAX, slash,
					       "empty system or event around '/'");
			st = add_regex(ps, ss, se - ss, flags, &ev->sys_re);
			if (st != TB_OK)
				return st;
			ev->has_sys = 1;
		}
		st = add_regex(ps, ns, ne - ns, flags, &ev->name_re);
		if (st != TB_OK)
			return st;
		f->nevents++;
		if (i >= end)
			return TB_OK;
		i++;
	}
}

tb_status tb_filter_compile(tb_filter *f, const char *text, size_t len, unsigned flags,
			    tb_error *err)
{
	fparser ps;
	size_t colon = 0;
	tb_status st;
	tb_error_clear(err);
	if (!f || (!text && len))
		return tb_fail(err, TB_ERR_ARG, 0, "NULL filter or text");
	f->text = text;
	f->len = len;
	f->flags = flags;
	f->nnodes = 0;
	f->nevents = 0;
	f->nregex = 0;
	f->pad_ = 0;
	if (len > TB_FILTER_MAX_LEN)
		return tb_fail(err, TB_ERR_LIMIT, TB_FILTER_MAX_LEN,
			       "filter longer than TB_FILTER_MAX_LEN");
	ps.f = f;
	ps.p = text;
	ps.len = len;
	ps.i = 0;
	ps.nre = 0;
	ps.err = err;
	while (colon < len && text[colon] != ':')
		colon++;
	st = events(&ps, colon);
	if (st == TB_OK && colon >= len) {
		st = new_node(&ps, N_TRUE, 0) ? TB_OK : err ? err->status : TB_ERR_LIMIT;
	} else if (st == TB_OK) {
		size_t k = colon + 1;
		while (k < len && is_space(text[k]))
			k++;
		if (k >= len)
			st = tb_fail(err, TB_ERR_SYNTAX, colon, "nothing after ':' (drop the ':')");
		ps.i = colon + 1;
		if (st == TB_OK)
			st = expression(&ps);
	}
	if (st != TB_OK) {
		f->nnodes = 0;
		f->nevents = 0;
	}
	return st;
}

int tb_filter_applies(const tb_filter *f, const char *system, size_t system_len,
		      const char *name, size_t name_len)
{
	size_t k;
	if (!f)
		return 0;
	system_len = tb_region_len(system, system_len);
	name_len = tb_region_len(name, name_len);
	for (k = 0; k < f->nevents; k++) {
		const tb_filter_event *ev = &f->event[k];
		const tb_regex *nr = &f->regex[ev->name_re];
		if (ev->has_sys) {
			if (tb_regex_match(&f->regex[ev->sys_re], system, system_len) &&
			    tb_regex_match(nr, name, name_len))
				return 1;
		} else if (tb_regex_match(nr, name, name_len) ||
			   tb_regex_match(nr, system, system_len)) {
			return 1;
		}
	}
	return 0;
}

/* ---- evaluation ---- */

enum { V_NONE = 0, V_INT, V_STR, V_OTHER };

/* What a field name stands for in one record's format. */
typedef struct fref {
	int kind;             /* V_* */
	const tb_field *field;
	int special;          /* 1: COMM, 2: CPU */
} fref;

static int is_text_field(const tb_field *fl)
{
	if (fl->kind == TB_FIELD_STRING)
		return 1;
	return (fl->kind == TB_FIELD_DYNAMIC || fl->kind == TB_FIELD_REST ||
		fl->kind == TB_FIELD_ARRAY) && (fl->flags & TB_FIELD_TEXT);
}

static fref resolve(const tb_filter *f, const tb_filter_node *nd, const tb_format *fmt)
{
	fref r;
	const char *name = f->text + nd->name_off;
	memset(&r, 0, sizeof r);
	r.field = fmt ? tb_format_field_n(fmt, name, nd->name_len) : NULL;
	if (r.field) {
		const tb_field *fl = r.field;
		if (fl->kind == TB_FIELD_INT || fl->kind == TB_FIELD_LONG ||
		    fl->kind == TB_FIELD_POINTER)
			r.kind = V_INT;
		else if (is_text_field(fl))
			r.kind = V_STR;
		else
			r.kind = V_OTHER;
	} else if (nd->name_len == 4 && !memcmp(name, "COMM", 4)) {
		r.kind = V_STR;
		r.special = 1;
	} else if (nd->name_len == 3 && !memcmp(name, "CPU", 3)) {
		r.kind = V_INT;
		r.special = 2;
	}
	return r;
}

static int is_cmp(const tb_filter_node *nd)
{
	return nd->op == N_NUM || nd->op == N_STR || nd->op == N_RE || nd->op == N_ARITH;
}

/* Compare a value (bits, negative?) with a literal: -1, 0, 1. */
static int cmp3(uint64_t a, int aneg, uint64_t b, int bneg)
{
	if (aneg != bneg)
		return aneg ? -1 : 1;
	return a < b ? -1 : a > b;
}

static int num_test(unsigned cmp, int c)
{
	switch (cmp) {
	case C_EQ: return c == 0;
	case C_NE: return c != 0;
	case C_LT: return c < 0;
	case C_LE: return c <= 0;
	case C_GT: return c > 0;
	default: return c >= 0;
	}
}

static uint64_t arith(unsigned op, uint64_t a, uint64_t b)
{
	switch (op) {
	case A_AND: return a & b;
	case A_OR: return a | b;
	case A_XOR: return a ^ b;
	case A_ADD: return a + b;
	case A_SUB: return a - b;
	case A_MUL: return a * b;
	case A_DIV: return b ? a / b : 0;
	case A_MOD: return b ? a % b : 0;
	case A_SHL: return b < 64 ? a << b : 0;
	default: return b < 64 ? a >> b : 0;
	}
}

/* One comparison on a record: 1 or 0; *st gets a read error (first wins). */
static int test(const tb_filter *f, const tb_filter_node *nd, const tb_filter_record *rec,
		tb_status *st, tb_error *err)
{
	fref r = resolve(f, nd, rec->format);
	tb_error e = { TB_OK, 0, "no error" };
	tb_status s = TB_OK;
	if (r.kind == V_INT && (nd->op == N_NUM || nd->op == N_ARITH)) {
		uint64_t v = rec->cpu;
		int vneg = 0;
		if (!r.special) {
			s = tb_field_int(r.field, rec->data, rec->len, rec->big_endian, &v, &e);
			vneg = (r.field->flags & TB_FIELD_SIGNED) && (int64_t)v < 0;
		}
		if (s == TB_OK) {
			if (nd->op == N_ARITH)
				return arith(nd->cmp, v, nd->num) != 0;
			return num_test(nd->cmp, cmp3(v, vneg, nd->num, nd->neg));
		}
	} else if (r.kind == V_STR && (nd->op == N_STR || nd->op == N_RE)) {
		const char *sv = rec->comm;
		size_t n = rec->comm_len;
		if (!r.special)
			s = tb_field_str(r.field, rec->data, rec->len, rec->big_endian, &sv, &n,
					 &e);
		else if (!sv)
			n = 0;
		if (s == TB_OK) {
			int m;
			if (nd->op == N_RE)
				m = tb_regex_match(&f->regex[nd->regex], sv, n);
			else
				m = n == nd->str_len && (n == 0 || !memcmp(sv, f->text + nd->str_off, n));
			return (nd->cmp == C_NE || nd->cmp == C_NRE) ? !m : m;
		}
	}
	if (s != TB_OK && *st == TB_OK) {
		*st = s;
		if (err)
			*err = e;
	}
	return 0;
}

tb_status tb_filter_eval(const tb_filter *f, const tb_filter_record *rec, int *match,
			 tb_error *err)
{
	uint8_t v[TB_FILTER_MAX_NODES];
	size_t sp = 0, k;
	tb_status st = TB_OK;
	tb_error_clear(err);
	if (match)
		*match = 0;
	if (!f || !rec || !match || f->nnodes == 0 || f->nnodes > TB_FILTER_MAX_NODES)
		return tb_fail(err, TB_ERR_ARG, 0, "NULL or uncompiled filter");
	for (k = 0; k < f->nnodes; k++) {
		const tb_filter_node *nd = &f->node[k];
		switch (nd->op) {
		case N_TRUE:
			v[sp++] = 1;
			break;
		case N_NOT:
			if (sp < 1)
				return tb_fail(err, TB_ERR_ARG, k, "corrupt filter program");
			v[sp - 1] = (uint8_t)!v[sp - 1];
			break;
		case N_AND:
		case N_OR:
			if (sp < 2)
				return tb_fail(err, TB_ERR_ARG, k, "corrupt filter program");
			sp--;
			v[sp - 1] = (uint8_t)(nd->op == N_AND ? (v[sp - 1] && v[sp])
							      : (v[sp - 1] || v[sp]));
			break;
		default:
			if (sp >= TB_FILTER_MAX_NODES)
				return tb_fail(err, TB_ERR_ARG, k, "corrupt filter program");
			v[sp++] = (uint8_t)test(f, nd, rec, &st, err);
			break;
		}
	}
	if (sp != 1)
		return tb_fail(err, TB_ERR_ARG, 0, "corrupt filter program");
	*match = v[0];
	return st;
}

/* trace-cmd's rule over filters[0..n): whether filter k applies to the
 * record's event is bit k of *applies when given, else asked of its
 * EVENTS part (only for the filters still to be decided). */
static tb_status select_by_rule(const tb_filter *const *filters, size_t n,
				const uint64_t *applies, const tb_filter_record *rec, int *show,
				tb_error *err)
{
	size_t k;
	int any_pos = 0, pos_hit = 0, neg_hit = 0;
	tb_status first = TB_OK;
	for (k = 0; k < n; k++) {
		const tb_filter *f = filters[k];
		const tb_format *fmt = rec->format;
		int neg, m = 0;
		tb_error e;
		tb_status st;
		if (!f)
			return tb_fail(err, TB_ERR_ARG, 0, "NULL filter in the list");
		neg = (f->flags & TB_FILTER_NEGATE) != 0;
		if (!neg)
			any_pos = 1;
		if ((neg ? neg_hit : pos_hit) || !fmt ||
		    !(applies ? (*applies >> k & 1u) != 0
			      : tb_filter_applies(f, fmt->system, fmt->system_len, fmt->name,
						  fmt->name_len)))
			continue;
		tb_error_clear(&e);
		st = tb_filter_eval(f, rec, &m, &e);
		if (st != TB_OK && first == TB_OK) {
			first = st;
			if (err)
				*err = e;
		}
		if (m) {
			if (neg)
				neg_hit = 1;
			else
				pos_hit = 1;
		}
	}
	*show = (!any_pos || pos_hit) && !neg_hit;
	return first;
}

/* The arguments of both entry points checked, then the rule. */
static tb_status select_checked(const tb_filter *const *filters, size_t n,
				const uint64_t *applies, const tb_filter_record *rec, int *show,
				tb_error *err)
{
	tb_error_clear(err);
	if (show)
		*show = 0;
	if (!rec || !show || (!filters && n) || (applies && n > 64))
		return tb_fail(err, TB_ERR_ARG, 0, "NULL filters, record or result, or over 64");
	return select_by_rule(filters, n, applies, rec, show, err);
}

tb_status tb_filter_select(const tb_filter *const *filters, size_t n,
			   const tb_filter_record *rec, int *show, tb_error *err)
{
	return select_checked(filters, n, NULL, rec, show, err);
}

tb_status tb_filter_select_applying(const tb_filter *const *filters, size_t n,
				    uint64_t applies, const tb_filter_record *rec, int *show,
				    tb_error *err)
{
	return select_checked(filters, n, &applies, rec, show, err);
}

/* ---- checking against a format ---- */

tb_status tb_filter_check(const tb_filter *f, const tb_format *fmt, uint64_t found[2],
			  tb_error *err)
{
	size_t k, i = 0;
	tb_error_clear(err);
	if (!f || !fmt)
		return tb_fail(err, TB_ERR_ARG, 0, "NULL filter or format");
	for (k = 0; k < f->nnodes; k++) {
		const tb_filter_node *nd = &f->node[k];
		fref r;
		if (!is_cmp(nd))
			continue;
		r = resolve(f, nd, fmt);
		if (r.kind != V_NONE && found && i < 128)
			found[i / 64] |= (uint64_t)1 << (i % 64);
		i++;
		if (r.kind == V_NONE)
			continue;
		if (r.kind == V_OTHER)
			return tb_fail(err, TB_ERR_VALUE, nd->pos,
				       "this field holds neither an integer nor text");
		if (r.kind == V_INT && (nd->op == N_STR || nd->op == N_RE))
			return tb_fail(err, TB_ERR_VALUE, nd->pos,
				       "an integer field compared with a string");
		if (r.kind == V_STR && nd->op == N_NUM)
			return tb_fail(err, TB_ERR_VALUE, nd->pos,
				       "a string field compared with a number (quote the value)");
		if (r.kind == V_STR && nd->op == N_ARITH)
			return tb_fail(err, TB_ERR_VALUE, nd->pos, "arithmetic on a string field");
	}
	return TB_OK;
}

int tb_filter_field_ref(const tb_filter *f, size_t i, const char **name, size_t *name_len,
			size_t *offset)
{
	size_t k, j = 0;
	if (!f)
		return 0;
	for (k = 0; k < f->nnodes; k++) {
		const tb_filter_node *nd = &f->node[k];
		if (!is_cmp(nd))
			continue;
		if (j++ == i) {
			if (name)
				*name = f->text + nd->name_off;
			if (name_len)
				*name_len = nd->name_len;
			if (offset)
				*offset = nd->pos;
			return 1;
		}
	}
	return 0;
}
