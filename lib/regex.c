/*
 * A small regular-expression engine for untrusted patterns.
 *
 * Compilation is two flat passes, no recursion: the pattern is read into
 * a postfix token list (concatenation made explicit, an interval {m,n}
 * expanded by copying its operand's tokens, which are contiguous at the
 * tail of the list), then the postfix list is built into a Thompson NFA
 * with a fragment stack.  Matching simulates the NFA with state bitsets,
 * so time is (text length) x (states) whatever the pattern: there is no
 * backtracking to blow up.  Only "does it match" is answered (REG_NOSUB),
 * which is all a filter needs.
 */
#include "internal.h"
#include "tracebound/filter.h"

/* The compile steps each hold a token or fragment array: kept out of
 * line (TB_NOINLINE) so no one stack frame holds two of them. */

enum { S_CHAR = 1, S_CLASS, S_ANY, S_BOL, S_EOL, S_NOP, S_SPLIT, S_MATCH };
enum { T_CHAR = 1, T_CLASS, T_ANY, T_BOL, T_EOL, T_EMPTY, T_CAT, T_ALT, T_STAR,
       T_PLUS, T_QUEST };

/* Postfix tokens: worst case two per state (an operand and its operator). */
#define MAX_TOKENS ((size_t)2 * TB_REGEX_MAX_STATES)
#define NIL 0xffffu

typedef struct tok {
	uint8_t kind;
	uint8_t arg;
} tok;

/* One open group (or the whole pattern) while reading. */
typedef struct level {
	uint16_t items;       /* operands in the current branch not yet joined (0..2) */
	uint16_t branches;    /* finished alternatives (0 or 1: joined as they come) */
	uint16_t group_start; /* where the group's tokens begin */
	uint16_t last_start;  /* where the branch's last operand begins */
	uint16_t lead_bol;    /* BRE: the branch so far is just its leading '^' */
	uint8_t last_rep;     /* the last operand ends with a repetition */
	uint8_t last_anchor;  /* the last operand is a bare '^' or '$' */
	uint32_t pos;         /* the '(' (for "unmatched") */
} level;

typedef struct rd {
	const char *p;
	size_t len;
	size_t i;
	unsigned flags;
	tb_regex *re;
	tok *out;
	size_t n;
	tb_error *err;
} rd;

static int lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c;
}

static tb_status emit(rd *r, uint8_t kind, uint8_t arg)
{
	if (r->n >= MAX_TOKENS)
		return tb_fail(r->err, TB_ERR_LIMIT, r->i,
			       "regex has more states than TB_REGEX_MAX_STATES");
	r->out[r->n].kind = kind;
	r->out[r->n].arg = arg;
	r->n++;
	return TB_OK;
}

/* A new operand arrives in the branch of lv: join the two before it. */
static tb_status operand_begins(rd *r, level *lv)
{
	tb_status st = TB_OK;
	if (lv->items == 2) {
		st = emit(r, T_CAT, 0);
		lv->items = 1;
	}
	lv->lead_bol = 0;
	lv->last_rep = lv->last_anchor = 0;
	lv->last_start = (uint16_t)r->n;
	return st;
}

/* The branch of lv ends (at '|', ')' or the end of the pattern). */
static tb_status branch_ends(rd *r, level *lv)
{
	tb_status st = TB_OK;
	if (lv->items == 0)
		st = emit(r, T_EMPTY, 0);
	else if (lv->items == 2)
		st = emit(r, T_CAT, 0);
	if (st == TB_OK && lv->branches == 1)
		st = emit(r, T_ALT, 0);
	lv->branches = 1;
	lv->items = 0;
	lv->lead_bol = 0;
	lv->last_rep = lv->last_anchor = 0;
	return st;
}

static uint8_t *class_new(rd *r, uint8_t *idx)
{
	tb_regex *re = r->re;
	if (re->nclasses >= TB_REGEX_MAX_CLASSES) {
		tb_fail(r->err, TB_ERR_LIMIT, r->i,
			"regex has more bracket expressions than TB_REGEX_MAX_CLASSES");
		return NULL;
	}
	*idx = re->nclasses;
	memset(re->classes[re->nclasses], 0, 32);
	return re->classes[re->nclasses++];
}

static void class_set(uint8_t *cl, unsigned c)
{
	cl[c >> 3] = (uint8_t)(cl[c >> 3] | (1u << (c & 7u)));
}

static int class_has(const uint8_t *cl, unsigned c)
{
	return (cl[c >> 3] >> (c & 7u)) & 1;
}

/* The POSIX character classes, by name. */
static int named_class(const char *name, size_t n, unsigned c)
{
	static const char *const names[] = { "alpha", "digit", "alnum", "upper", "lower",
					     "space", "blank", "punct", "print", "graph",
					     "cntrl", "xdigit" };
	size_t k;
	int al = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
	int dg = c >= '0' && c <= '9';
	for (k = 0; k < TB_ARRAY_LEN(names); k++)
		if (strlen(names[k]) == n && !memcmp(names[k], name, n))
			break;
	switch (k) {
	case 0: return al;
	case 1: return dg;
	case 2: return al || dg;
	case 3: return c >= 'A' && c <= 'Z';
	case 4: return c >= 'a' && c <= 'z';
	case 5: return c == ' ' || (c >= '\t' && c <= '\r');
	case 6: return c == ' ' || c == '\t';
	case 7: return c > ' ' && c < 127 && !al && !dg;
	case 8: return c >= ' ' && c < 127;
	case 9: return c > ' ' && c < 127;
	case 10: return c < ' ' || c == 127;
	case 11: return dg || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
	default: return -1;
	}
}

static void class_fold(uint8_t *cl)
{
	unsigned c;
	for (c = 'a'; c <= 'z'; c++)
		if (class_has(cl, c) || class_has(cl, c - ('a' - 'A'))) {
			class_set(cl, c);
			class_set(cl, c - ('a' - 'A'));
		}
}

/* \w \W \s \S: a class token. */
static tb_status escape_class(rd *r, int which)
{
	uint8_t idx;
	uint8_t *cl = class_new(r, &idx);
	unsigned c;
	int neg = which == 'W' || which == 'S';
	if (!cl)
		return r->err ? r->err->status : TB_ERR_LIMIT;
	for (c = 0; c < 256; c++) {
		int in = (which == 'w' || which == 'W')
				 ? (named_class("alnum", 5, c) == 1 || c == '_')
				 : named_class("space", 5, c) == 1;
		if (in != neg)
			class_set(cl, c);
	}
	return emit(r, T_CLASS, idx);
}

/* A bracket expression; r->i is just past the '['. */
static tb_status bracket(rd *r, size_t open)
{
	uint8_t idx;
	uint8_t *cl = class_new(r, &idx);
	int neg = 0, first = 1;
	unsigned c;
	if (!cl)
		return r->err ? r->err->status : TB_ERR_LIMIT;
	if (r->i < r->len && r->p[r->i] == '^') {
		neg = 1;
		r->i++;
	}
	for (;;) {
		unsigned lo, hi;
		size_t at = r->i;
		if (r->i >= r->len)
			return tb_fail(r->err, TB_ERR_SYNTAX, open, "'[' without its ']'");
		lo = (unsigned char)r->p[r->i];
		if (lo == ']' && !first) {
			r->i++;
			break;
		}
		first = 0;
		if (lo == '[' && r->i + 1 < r->len &&
		    (r->p[r->i + 1] == ':' || r->p[r->i + 1] == '=' || r->p[r->i + 1] == '.')) {
			char kind = r->p[r->i + 1];
			size_t s = r->i + 2, e = s;
			while (e + 1 < r->len && !(r->p[e] == kind && r->p[e + 1] == ']'))
				e++;
			if (e + 1 >= r->len)
				return tb_fail(r->err, TB_ERR_SYNTAX, r->i,
					       "'[:' without its ':]'");
			if (kind != ':')
				return tb_fail(r->err, TB_ERR_UNSUPPORTED, r->i,
					       "collating elements [= =] and [. .] are not supported");
			if (named_class(r->p + s, e - s, 'a') < 0)
				return tb_fail(r->err, TB_ERR_UNSUPPORTED, r->i,
					       "unknown character class name");
			for (c = 0; c < 256; c++)
				if (named_class(r->p + s, e - s, c) == 1)
					class_set(cl, c);
			r->i = e + 2;
			continue;
		}
		r->i++;
		hi = lo;
		if (r->i + 1 < r->len && r->p[r->i] == '-' && r->p[r->i + 1] != ']') {
			hi = (unsigned char)r->p[r->i + 1];
			if (hi < lo)
				return tb_fail(r->err, TB_ERR_SYNTAX, r->i - 1,
					       "range out of order in [...]");
			r->i += 2;
		}
		if (lo == 0 || hi == 0)
			return tb_fail(r->err, TB_ERR_SYNTAX, at, "NUL in a regex");
		for (c = lo; c <= hi; c++)
			class_set(cl, c);
	}
	if (r->flags & TB_REGEX_ICASE)
		class_fold(cl);
	if (neg)
		for (c = 0; c < 32; c++)
			cl[c] = (uint8_t)~cl[c];
	return emit(r, T_CLASS, idx);
}

/* A decimal number of an interval; -1 when there is none. */
static long interval_num(rd *r)
{
	long v = 0;
	size_t s = r->i;
	while (r->i < r->len && r->p[r->i] >= '0' && r->p[r->i] <= '9') {
		v = v * 10 + (r->p[r->i] - '0');
		if (v > (long)TB_REGEX_MAX_REPEAT)
			v = (long)TB_REGEX_MAX_REPEAT + 1;
		r->i++;
	}
	return r->i == s ? -1 : v;
}

/*
 * X{m,n}: the operand's tokens are out[s..n); write X^m then (n-m)
 * optional copies (or X* for {m,}).  r->i is past the '{'.
 */
static TB_NOINLINE tb_status interval(rd *r, level *lv, size_t open)
{
	int bre = (r->flags & TB_REGEX_BRE) != 0;
	long m, n;
	size_t s = lv->last_start, xl = r->n - s, k, total, comma;
	tok x[MAX_TOKENS];
	tb_status st = TB_OK;
	/* As glibc reads them: {,n} is {0,n}, {,} is {0,}, {} is an error,
	 * and the comma may be written "\\," */
	m = interval_num(r);
	comma = r->i < r->len && r->p[r->i] == ',' ? 1
		: r->i + 1 < r->len && r->p[r->i] == '\\' && r->p[r->i + 1] == ',' ? 2 : 0;
	if (m < 0 && !comma)
		return tb_fail(r->err, TB_ERR_SYNTAX, open, "interval without a count");
	if (m < 0)
		m = 0;
	n = m;
	if (comma) {
		r->i += comma;
		n = interval_num(r); /* -1: no upper bound */
	}
	if (bre) {
		if (r->i + 1 >= r->len || r->p[r->i] != '\\' || r->p[r->i + 1] != '}')
			return tb_fail(r->err, TB_ERR_SYNTAX, open, "'\\{' without its '\\}'");
		r->i += 2;
	} else {
		if (r->i >= r->len || r->p[r->i] != '}')
			return tb_fail(r->err, TB_ERR_SYNTAX, open, "'{' without its '}'");
		r->i++;
	}
	if (m > (long)TB_REGEX_MAX_REPEAT || n > (long)TB_REGEX_MAX_REPEAT)
		return tb_fail(r->err, TB_ERR_LIMIT, open,
			       "interval count over TB_REGEX_MAX_REPEAT");
	if (n >= 0 && n < m)
		return tb_fail(r->err, TB_ERR_SYNTAX, open, "interval {m,n} with n < m");
	/* copies of X plus an operator each */
	total = (size_t)(n < 0 ? m + 1 : (n == 0 ? 0 : n)) * (xl + 2) + 1;
	if (s + total > MAX_TOKENS)
		return tb_fail(r->err, TB_ERR_LIMIT, open,
			       "regex has more states than TB_REGEX_MAX_STATES");
	memcpy(x, r->out + s, xl * sizeof(tok));
	r->n = s;
	if (n == 0)
		return emit(r, T_EMPTY, 0);
	for (k = 0; k < (size_t)m && st == TB_OK; k++) {
		memcpy(r->out + r->n, x, xl * sizeof(tok));
		r->n += xl;
		if (k > 0)
			st = emit(r, T_CAT, 0);
	}
	if (n < 0) {
		memcpy(r->out + r->n, x, xl * sizeof(tok));
		r->n += xl;
		if (st == TB_OK)
			st = emit(r, T_STAR, 0);
		if (st == TB_OK && m > 0)
			st = emit(r, T_CAT, 0);
	} else {
		for (k = (size_t)m; k < (size_t)n && st == TB_OK; k++) {
			memcpy(r->out + r->n, x, xl * sizeof(tok));
			r->n += xl;
			st = emit(r, T_QUEST, 0);
			if (st == TB_OK && k > 0)
				st = emit(r, T_CAT, 0);
		}
	}
	return st;
}

/* Read the pattern into postfix tokens (r->out[0..r->n)). */
static TB_NOINLINE tb_status to_postfix(rd *r)
{
	level lv[TB_REGEX_MAX_DEPTH + 1];
	size_t depth = 0;
	int bre = (r->flags & TB_REGEX_BRE) != 0;
	tb_status st = TB_OK;
	memset(&lv[0], 0, sizeof lv[0]);
	while (r->i < r->len && st == TB_OK) {
		size_t at = r->i;
		unsigned c = (unsigned char)r->p[r->i++];
		level *L = &lv[depth];
		/* "special" characters in this syntax, normalised: '(' ')' '|' '{' '+' '?' */
		int sp = 0;
		if (c == '\\') {
			unsigned d;
			if (r->i >= r->len)
				return tb_fail(r->err, TB_ERR_SYNTAX, at, "trailing backslash");
			d = (unsigned char)r->p[r->i++];
			if (bre && (d == '(' || d == ')' || d == '|' || d == '{' || d == '+' ||
				    d == '?' || d == '}'))
				sp = (int)d;
			else if (d >= '1' && d <= '9')
				return tb_fail(r->err, TB_ERR_UNSUPPORTED, at,
					       "back-references are not supported");
			else if (d == 'b' || d == 'B' || d == '<' || d == '>' || d == '`' ||
				 d == '\'')
				return tb_fail(r->err, TB_ERR_UNSUPPORTED, at,
					       "word and buffer anchors are not supported");
			else if (d == 'w' || d == 'W' || d == 's' || d == 'S') {
				st = operand_begins(r, L);
				if (st == TB_OK)
					st = escape_class(r, (int)d);
				L->items++;
				continue;
			} else {
				if (d == 0)
					return tb_fail(r->err, TB_ERR_SYNTAX, at, "NUL in a regex");
				st = operand_begins(r, L);
				if (st == TB_OK)
					st = emit(r, T_CHAR, (uint8_t)((r->flags & TB_REGEX_ICASE)
									       ? lower((int)d) : (int)d));
				L->items++;
				continue;
			}
		} else if (!bre && (c == '(' || c == ')' || c == '|' || c == '+' || c == '?' ||
				    c == '{')) {
			sp = (int)c; /* ERE: '{' always opens an interval (glibc) */
		}
		if (sp == '(') {
			if (depth >= TB_REGEX_MAX_DEPTH)
				return tb_fail(r->err, TB_ERR_LIMIT, at,
					       "groups nested deeper than TB_REGEX_MAX_DEPTH");
			st = operand_begins(r, L);
			depth++;
			memset(&lv[depth], 0, sizeof lv[depth]);
			lv[depth].group_start = (uint16_t)r->n;
			lv[depth].pos = (uint32_t)at;
			continue;
		}
		if (sp == ')') {
			uint16_t gs;
			if (depth == 0 && !bre) { /* ERE: a ')' of its own (glibc) */
				c = ')';
				goto literal;
			}
			if (depth == 0)
				return tb_fail(r->err, TB_ERR_SYNTAX, at, "')' without its '('");
			st = branch_ends(r, L);
			gs = L->group_start;
			depth--;
			lv[depth].items++;
			lv[depth].last_start = gs;
			lv[depth].last_rep = lv[depth].last_anchor = 0;
			continue;
		}
		if (sp == '|') {
			st = branch_ends(r, L);
			continue;
		}
		if (sp == '}') { /* BRE: '\\}' without its '\\{' is a '}' (glibc) */
			c = '}';
			goto literal;
		}
		/* A repetition.  In BRE, '*' '\+' '\?' with nothing before them
		 * (or only the leading '^') are literals, as GNU reads them. */
		if (c == '*' || sp == '+' || sp == '?' || sp == '{') {
			if (bre && sp != '{' && (L->items == 0 || L->lead_bol)) {
				c = sp ? (unsigned)sp : c;
				goto literal;
			}
			/* glibc's errors: nothing before; ERE: an anchor before;
			 * BRE: '\\{' after the leading '^', '*' or '\\{' right
			 * after a repetition */
			if (L->items == 0 || (!bre && L->last_anchor) ||
			    (bre && sp == '{' && L->lead_bol))
				return tb_fail(r->err, TB_ERR_SYNTAX, at, "nothing to repeat");
			if (bre && L->last_rep && (sp == '{' || !sp))
				return tb_fail(r->err, TB_ERR_SYNTAX, at,
					       "'*' or '\\{' right after a repetition");
			L->last_rep = 1;
			if (sp == '{')
				st = interval(r, L, at);
			else
				st = emit(r, c == '*' ? T_STAR : sp == '+' ? T_PLUS : T_QUEST, 0);
			continue;
		}
		if (c == '^' && (!bre || L->items == 0)) {
			/* BRE: an anchor only first in a branch (GNU), else literal */
			st = operand_begins(r, L);
			if (st == TB_OK)
				st = emit(r, T_BOL, 0);
			L->items++;
			L->lead_bol = (uint16_t)bre;
			L->last_anchor = 1;
			continue;
		}
		if (c == '$') {
			int at_end = r->i >= r->len ||
				     (bre && r->i + 1 < r->len && r->p[r->i] == '\\' &&
				      (r->p[r->i + 1] == ')' || r->p[r->i + 1] == '|'));
			if (!bre || at_end) {
				st = operand_begins(r, L);
				if (st == TB_OK)
					st = emit(r, T_EOL, 0);
				L->items++;
				L->last_anchor = 1;
				continue;
			}
		}
		if (c == '.') {
			st = operand_begins(r, L);
			if (st == TB_OK)
				st = emit(r, T_ANY, 0);
			L->items++;
			continue;
		}
		if (c == '[') {
			st = operand_begins(r, L);
			if (st == TB_OK)
				st = bracket(r, at);
			L->items++;
			continue;
		}
literal:
		if (c == 0)
			return tb_fail(r->err, TB_ERR_SYNTAX, at, "NUL in a regex");
		st = operand_begins(r, &lv[depth]);
		if (st == TB_OK)
			st = emit(r, T_CHAR, (uint8_t)((r->flags & TB_REGEX_ICASE) ? lower((int)c)
										  : (int)c));
		lv[depth].items++;
	}
	if (st != TB_OK)
		return st;
	if (depth > 0)
		return tb_fail(r->err, TB_ERR_SYNTAX, lv[depth].pos, "'(' without its ')'");
	return branch_ends(r, &lv[0]);
}

/* ---- Thompson construction ---- */

/* A dangling out pointer: state << 1 | (0: out, 1: out1); lists are
 * threaded through the dangling fields themselves. */
typedef struct frag {
	uint16_t start;
	uint16_t list;
} frag;

static uint16_t *slot(tb_regex *re, uint16_t code)
{
	return (code & 1u) ? &re->out1[code >> 1] : &re->out[code >> 1];
}

static void patch(tb_regex *re, uint16_t list, uint16_t to)
{
	while (list != NIL) {
		uint16_t *p = slot(re, list);
		list = *p;
		*p = to;
	}
}

static uint16_t append(tb_regex *re, uint16_t a, uint16_t b)
{
	uint16_t l = a;
	if (a == NIL)
		return b;
	while (*slot(re, l) != NIL)
		l = *slot(re, l);
	*slot(re, l) = b;
	return a;
}

static int new_state(tb_regex *re, uint8_t op, uint8_t arg, uint16_t *s)
{
	if (re->nstates >= TB_REGEX_MAX_STATES)
		return 0;
	*s = re->nstates++;
	re->op[*s] = op;
	re->arg[*s] = arg;
	re->out[*s] = NIL;
	re->out1[*s] = NIL;
	return 1;
}

static TB_NOINLINE tb_status build(tb_regex *re, const tok *t, size_t n, tb_error *err, size_t plen)
{
	frag st[MAX_TOKENS];
	size_t sp = 0, i;
	uint16_t s;
	static const uint8_t leaf_op[] = { 0, S_CHAR, S_CLASS, S_ANY, S_BOL, S_EOL, S_NOP };
	for (i = 0; i < n; i++) {
		frag a, b;
		unsigned k = t[i].kind;
		/* the reader only writes well-formed postfix; say so if it did not */
		if (k < T_CHAR || k > T_QUEST ||
		    (k <= T_EMPTY ? sp >= MAX_TOKENS : sp < (k == T_CAT || k == T_ALT ? 2u : 1u)))
			return tb_fail(err, TB_ERR_ARG, plen, "malformed regex program");
		switch (k) {
		case T_CHAR: case T_CLASS: case T_ANY: case T_BOL: case T_EOL: case T_EMPTY:
			if (!new_state(re, leaf_op[t[i].kind], t[i].arg, &s))
				goto full;
			st[sp].start = s;
			st[sp].list = (uint16_t)((unsigned)s << 1);
			sp++;
			break;
		case T_CAT:
			b = st[--sp];
			a = st[sp - 1];
			patch(re, a.list, b.start);
			st[sp - 1].list = b.list;
			break;
		case T_ALT:
			b = st[--sp];
			a = st[sp - 1];
			if (!new_state(re, S_SPLIT, 0, &s))
				goto full;
			re->out[s] = a.start;
			re->out1[s] = b.start;
			st[sp - 1].start = s;
			st[sp - 1].list = append(re, a.list, b.list);
			break;
		default: /* STAR, PLUS, QUEST */
			a = st[sp - 1];
			if (!new_state(re, S_SPLIT, 0, &s))
				goto full;
			re->out[s] = a.start;
			if (t[i].kind == T_QUEST) {
				st[sp - 1].start = s;
				st[sp - 1].list = append(re, a.list, (uint16_t)((unsigned)s << 1 | 1u));
			} else {
				patch(re, a.list, s);
				if (t[i].kind == T_STAR)
					st[sp - 1].start = s;
				st[sp - 1].list = (uint16_t)((unsigned)s << 1 | 1u);
			}
			break;
		}
	}
	if (sp != 1)
		return tb_fail(err, TB_ERR_ARG, plen, "malformed regex program");
	if (!new_state(re, S_MATCH, 0, &s))
		goto full;
	patch(re, st[0].list, s);
	re->start = st[0].start;
	return TB_OK;
full:
	return tb_fail(err, TB_ERR_LIMIT, plen, "regex has more states than TB_REGEX_MAX_STATES");
}

/*
 * Most patterns a user types are plain words ("sched_switch", "^kworker",
 * ".*").  A program that is only CHAR states (an optional BOL first, EOL
 * last) is matched by comparing bytes, and ".*" by answering yes: the
 * same answers as the NFA, without simulating it.  The chars of the
 * literal are re->arg[first..nstates-1-(eol)] in order (leaves are made in
 * pattern order; concatenation adds no state).
 */
#define SC_LITERAL 0x10u
#define SC_BOL 0x20u
#define SC_EOL 0x40u
#define SC_ALL 0x80u

static void find_shortcut(tb_regex *re, const char *pattern, size_t len)
{
	size_t i, last = (size_t)re->nstates - 1; /* the MATCH state */
	unsigned f = SC_LITERAL;
	if (len == 2 && pattern[0] == '.' && pattern[1] == '*') {
		re->flags = (uint8_t)(re->flags | SC_ALL);
		return;
	}
	for (i = 0; i < last; i++) {
		if (re->op[i] == S_CHAR)
			continue;
		if (re->op[i] == S_BOL && i == 0)
			f |= SC_BOL;
		else if (re->op[i] == S_EOL && i + 1 == last)
			f |= SC_EOL;
		else
			return;
	}
	if (re->start != 0 && last > 0)
		return;
	re->flags = (uint8_t)(re->flags | f);
}

static int lit_eq(const tb_regex *re, size_t from, size_t n, const char *t, int icase)
{
	size_t k;
	for (k = 0; k < n; k++) {
		int c = (unsigned char)t[k];
		if ((icase ? lower(c) : c) != re->arg[from + k])
			return 0;
	}
	return 1;
}

static int literal_match(const tb_regex *re, const char *text, size_t len)
{
	unsigned f = re->flags;
	int icase = (f & TB_REGEX_ICASE) != 0;
	int bol = (f & (SC_BOL | TB_REGEX_ANCHORED)) != 0;
	int eol = (f & (SC_EOL | TB_REGEX_ANCHORED)) != 0;
	size_t from = (f & SC_BOL) ? 1u : 0u;
	size_t n = (size_t)re->nstates - 1 - from - ((f & SC_EOL) ? 1u : 0u), at;
	if (n > len)
		return 0;
	if (bol && eol)
		return n == len && lit_eq(re, from, n, text, icase);
	if (bol)
		return lit_eq(re, from, n, text, icase);
	if (eol)
		return lit_eq(re, from, n, text + len - n, icase);
	for (at = 0; at + n <= len; at++)
		if (lit_eq(re, from, n, text + at, icase))
			return 1;
	return 0;
}

tb_status tb_regex_compile(tb_regex *re, const char *pattern, size_t len, unsigned flags,
			   tb_error *err)
{
	tok out[MAX_TOKENS];
	rd r;
	tb_status st;
	tb_error_clear(err);
	if (!re || (!pattern && len))
		return tb_fail(err, TB_ERR_ARG, 0, "NULL regex or pattern");
	if (len > TB_REGEX_MAX_LEN)
		return tb_fail(err, TB_ERR_LIMIT, TB_REGEX_MAX_LEN,
			       "regex longer than TB_REGEX_MAX_LEN");
	re->nstates = 0;
	re->nclasses = 0;
	re->start = 0;
	re->flags = (uint8_t)(flags & (TB_REGEX_BRE | TB_REGEX_ICASE | TB_REGEX_ANCHORED));
	memset(&r, 0, sizeof r);
	r.p = pattern ? pattern : "";
	r.len = len;
	r.flags = flags;
	r.re = re;
	r.out = out;
	r.err = err;
	st = to_postfix(&r);
	if (st == TB_OK)
		st = build(re, out, r.n, err, len);
	if (st != TB_OK)
		re->nstates = 0;
	else
		find_shortcut(re, pattern, len);
	return st;
}

/* ---- simulation ---- */

#define WORDS (TB_REGEX_MAX_STATES / 64u)

/* Add state s and everything reachable from it without input. */
static void closure(const tb_regex *re, uint64_t *set, uint16_t s, size_t pos, size_t len)
{
	uint16_t stack[2u * TB_REGEX_MAX_STATES + 2u];
	size_t sp = 0;
	stack[sp++] = s;
	while (sp > 0) {
		uint16_t x = stack[--sp];
		uint64_t bit;
		if (x >= re->nstates)
			continue;
		bit = (uint64_t)1 << (x % 64u);
		if (set[x / 64u] & bit)
			continue;
		set[x / 64u] |= bit;
		switch (re->op[x]) {
		case S_SPLIT:
			stack[sp++] = re->out1[x];
			stack[sp++] = re->out[x];
			break;
		case S_NOP:
			stack[sp++] = re->out[x];
			break;
		case S_BOL:
			if (pos == 0)
				stack[sp++] = re->out[x];
			break;
		case S_EOL:
			if (pos == len)
				stack[sp++] = re->out[x];
			break;
		default:
			break;
		}
	}
}

static int has_match(const tb_regex *re, const uint64_t *set)
{
	uint16_t m = (uint16_t)(re->nstates - 1); /* MATCH is always the last state */
	return (int)((set[m / 64u] >> (m % 64u)) & 1u);
}

int tb_regex_match(const tb_regex *re, const char *text, size_t len)
{
	uint64_t cur[WORDS], nxt[WORDS];
	size_t pos, w;
	int anchored, icase;
	if (!re || re->nstates == 0 || (!text && len))
		return 0;
	if (re->flags & SC_ALL)
		return 1;
	if (re->flags & SC_LITERAL)
		return literal_match(re, text, len);
	anchored = (re->flags & TB_REGEX_ANCHORED) != 0;
	icase = (re->flags & TB_REGEX_ICASE) != 0;
	memset(cur, 0, sizeof cur);
	closure(re, cur, re->start, 0, len);
	for (pos = 0;; pos++) {
		unsigned c;
		int any = 0;
		if (has_match(re, cur) && (!anchored || pos == len))
			return 1;
		if (pos == len)
			return 0;
		c = (unsigned char)text[pos];
		memset(nxt, 0, sizeof nxt);
		for (w = 0; w < WORDS; w++) {
			uint64_t bits = cur[w];
			while (bits) {
				unsigned b = (unsigned)__builtin_ctzll(bits);
				uint16_t x = (uint16_t)(w * 64u + b);
				int ok = 0;
				bits &= bits - 1;
				switch (re->op[x]) {
				case S_CHAR:
					ok = (icase ? (unsigned)lower((int)c) : c) == re->arg[x];
					break;
				case S_CLASS:
					ok = class_has(re->classes[re->arg[x]], c);
					break;
				case S_ANY:
					ok = 1;
					break;
				default:
					break;
				}
				if (ok) {
					closure(re, nxt, re->out[x], pos + 1, len);
					any = 1;
				}
			}
		}
		if (!anchored)
			closure(re, nxt, re->start, pos + 1, len);
		else if (!any)
			return 0;
		memcpy(cur, nxt, sizeof cur);
	}
}
