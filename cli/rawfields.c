/*
 * trace-cmd report -R field printing (see rawfields.h).
 *
 * What libtraceevent (1.7) does, in our own words:
 *  - the print fmt's format string is cut into literal pieces and
 *    conversions; each conversion takes the next argument;
 *  - for each event field in order, the conversions are searched, from
 *    just after the one the previous field used (wrapping round), for one
 *    whose argument is that field, possibly under casts; a literal ending
 *    in "0x" right before it is printed too.  After the last conversion
 *    has been used nothing more is searched;
 *  - array and string fields, fields without a conversion, and every
 *    field of an event whose print fmt does not parse are printed raw.
 *
 * Input is untrusted: widths are capped, reads stay inside the record.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rawfields.h"

enum { RF_STR, RF_DIGIT, RF_PTR, RF_STRARG };

/* libtraceevent's field flags that matter here. */
#define LF_ARRAY 1u
#define LF_STRING 2u
#define LF_POINTER 4u
#define LF_LONG 8u
#define LF_DYNAMIC 16u
#define LF_REL 32u
#define LF_SIGNED 64u

#define RF_MAX_WIDTH 1000

typedef struct rf_item {
	int kind;
	int ls;
	int ends_0x;
	char pext;        /* RF_PTR: the letter after 'p' (or 0) */
	int field;        /* index in fmt->fields, -1 when not a plain field */
	int mask;         /* cast to a 1, 2 or 4 byte type: mask the value */
	int lenarg_field; /* '*': the field giving the width, -1 = none/unknown */
	int has_lenarg;
	char spec[40];    /* DIGIT/STRARG: flags, width, precision as written */
	char conv;
	char *text;       /* RF_STR */
	size_t text_len;
} rf_item;

typedef struct rf_event {
	int state;        /* 0 not parsed, 1 parsed, 2 failed */
	rf_item *items;
	size_t n;
	unsigned *lflags; /* per field */
} rf_event;

struct rf_ctx {
	const tb_format_set *set;
	rf_syms syms;
	rf_event *ev;
	size_t nev;
};

/* ---- output ---- */

void rf_printf(rf_out *o, const char *fmt, ...)
{
	va_list ap;
	int n;
	size_t room = o->cap - o->len;
	va_start(ap, fmt);
	n = vsnprintf(o->p + o->len, room, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= room) {
		o->len = o->cap;
		o->truncated = 1;
	} else {
		o->len += (size_t)n;
	}
}

/* ---- symbols ---- */

void rf_ksyms_prepare(tb_ksym *v, size_t n)
{
	size_t i = 0;
	/* libtraceevent keeps equal addresses newest-registered first, i.e.
	 * in reverse file order: reverse each run of equal addresses */
	while (i < n) {
		size_t j = i + 1, a, b;
		while (j < n && v[j].addr == v[i].addr)
			j++;
		for (a = i, b = j - 1; a < b; a++, b--) {
			tb_ksym t = v[a];
			v[a] = v[b];
			v[b] = t;
		}
		i = j;
	}
}

const tb_ksym *rf_find_func(const rf_syms *s, uint64_t addr)
{
	size_t l = 0, u = s->nks;
	while (l < u) {
		size_t idx = (l + u) / 2;
		const tb_ksym *p = &s->ks[idx];
		uint64_t next = idx + 1 < s->nks ? s->ks[idx + 1].addr : 0;
		if (addr == p->addr || (addr > p->addr && addr < next))
			return p;
		if (addr < p->addr)
			u = idx;
		else
			l = idx + 1;
	}
	return NULL;
}

/* ---- print fmt parsing ---- */

static const char *const known_funcs[] = {
	"__print_flags", "__print_symbolic", "__print_hex", "__print_hex_str",
	"__print_array", "__get_str", "__get_rel_str", "__get_bitmask",
	"__get_rel_bitmask", "__get_cpumask", "__get_rel_cpumask",
	"__get_dynamic_array", "__get_rel_dynamic_array",
	"__get_sockaddr", "__get_sockaddr_rel", "__builtin_expect", "sizeof",
	NULL
};

/* The index just past the string or char literal starting at s[i]. */
static size_t skip_quoted(const char *s, size_t n, size_t i)
{
	char q = s[i++];
	while (i < n && s[i] != q) {
		if (s[i] == '\\')
			i++;
		i++;
	}
	return i < n ? i + 1 : n;
}

static int is_ident(int c)
{
	return isalnum(c) || c == '_';
}

/* Would libtraceevent 1.7 fail this argument?  It knows a fixed set of
 * helpers (not __get_dynamic_array_len: every dma event fails), no
 * statement expressions and no empty symbol list (kvm_inj_exception). */
static int has_unknown_call(const char *s, size_t n)
{
	size_t i = 0;
	while (i < n) {
		if (s[i] == '"' || s[i] == '\'') {
			i = skip_quoted(s, n, i);
			continue;
		}
		if (s[i] == '{') {
			size_t j = i + 1;
			while (j < n && isspace((unsigned char)s[j]))
				j++;
			if (j < n && s[j] == '}')
				return 1;
		}
		if (s[i] == '(' && i + 1 < n && s[i + 1] == '{')
			return 1;
		if (s[i] == ';')
			return 1;
		if (is_ident((unsigned char)s[i]) &&
		    !isdigit((unsigned char)s[i])) {
			size_t st = i, k, j;
			while (i < n && is_ident((unsigned char)s[i]))
				i++;
			j = i;
			while (j < n && s[j] == ' ')
				j++;
			if (j < n && s[j] == '(') {
				int known = 0;
				for (k = 0; known_funcs[k]; k++)
					if (strlen(known_funcs[k]) == i - st &&
					    !memcmp(known_funcs[k], s + st, i - st))
						known = 1;
				if (!known)
					return 1;
				if (i - st == 6 && !memcmp(s + st, "sizeof", 6)) {
					/* only simple types and fields */
					size_t m = j + 1;
					while (m < n && s[m] == ' ')
						m++;
					if (n - m >= 6 && !memcmp(s + m, "struct", 6))
						return 1;
				}
			}
			continue;
		}
		i++;
	}
	return 0;
}

static void trim(const char **s, size_t *n)
{
	while (*n && isspace((unsigned char)**s)) {
		(*s)++;
		(*n)--;
	}
	while (*n && isspace((unsigned char)(*s)[*n - 1]))
		(*n)--;
}

/* The index of the ')' closing the '(' at s[0], or n. */
static size_t close_paren(const char *s, size_t n)
{
	size_t i;
	int depth = 0;
	for (i = 0; i < n; i++) {
		if (s[i] == '(')
			depth++;
		else if (s[i] == ')' && --depth == 0)
			return i;
	}
	return n;
}

/* Does s[0..n) look like a C type (a cast)? */
static int looks_like_type(const char *s, size_t n)
{
	size_t i;
	if (n == 0)
		return 0;
	for (i = 0; i < n; i++)
		if (!is_ident((unsigned char)s[i]) && s[i] != ' ' && s[i] != '*')
			return 0;
	return !(n >= 3 && !memcmp(s, "REC", 3) && (n == 3 || !is_ident((unsigned char)s[3])));
}

static int type_mask(const char *s, size_t n)
{
	static const struct { const char *t; int size; } types[] = {
		{ "char", 1 }, { "unsigned char", 1 }, { "signed char", 1 },
		{ "u8", 1 }, { "s8", 1 }, { "__u8", 1 }, { "__s8", 1 },
		{ "short", 2 }, { "unsigned short", 2 }, { "u16", 2 },
		{ "s16", 2 }, { "__u16", 2 }, { "__s16", 2 },
		{ "int", 4 }, { "unsigned int", 4 }, { "unsigned", 4 },
		{ "u32", 4 }, { "s32", 4 }, { "__u32", 4 }, { "__s32", 4 },
	};
	size_t i;
	if (memchr(s, '*', n))
		return 0;
	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (strlen(types[i].t) == n && !memcmp(types[i].t, s, n))
			return types[i].size;
	return 0;
}

/* The field an argument names, under casts and parentheses (-1: none). */
static int arg_field(const tb_format *fmt, const char *s, size_t n, int *mask)
{
	int guard;
	*mask = 0;
	for (guard = 0; guard < 64; guard++) {
		size_t c;
		trim(&s, &n);
		if (n == 0 || s[0] != '(')
			break;
		c = close_paren(s, n);
		if (c == n)
			return -1;
		if (c == n - 1) { /* (expr) */
			s++;
			n -= 2;
			continue;
		}
		if (!looks_like_type(s + 1, c - 1)) {
			/* (REC)->field */
			if (c == 4 && !memcmp(s, "(REC)", 5)) {
				s += 5;
				n -= 5;
				trim(&s, &n);
				if (n >= 2 && s[0] == '-' && s[1] == '>') {
					s += 2;
					n -= 2;
					goto name;
				}
			}
			return -1;
		}
		{
			const char *t = s + 1;
			size_t tn = c - 1;
			int m;
			trim(&t, &tn);
			m = type_mask(t, tn);
			if (m && (!*mask || m < *mask))
				*mask = m;
		}
		s += c + 1;
		n -= c + 1;
	}
	if (n < 5 || memcmp(s, "REC->", 5) != 0)
		return -1;
	s += 5;
	n -= 5;
name:
	trim(&s, &n);
	{
		size_t i;
		for (i = 0; i < n; i++)
			if (!is_ident((unsigned char)s[i]))
				return -1;
	}
	{
		const tb_field *f = tb_format_field_n(fmt, s, n);
		/* only event fields can be printed, but a common field must not
		 * match an event field of the same name: they differ anyway */
		return f ? (int)f->index : -1;
	}
}

static void add_str(rf_event *e, const char *text, size_t n)
{
	rf_item *it = &e->items[e->n++];
	memset(it, 0, sizeof(*it));
	it->kind = RF_STR;
	it->field = -1;
	it->text = malloc(n + 1);
	if (it->text) {
		memcpy(it->text, text, n);
		it->text[n] = 0;
		it->text_len = n;
	}
	it->ends_0x = n >= 2 && text[n - 2] == '0' && text[n - 1] == 'x';
}

typedef struct arglist {
	const char *s[64];
	size_t n[64];
	size_t count, next;
} arglist;

static int split_args(const char *s, size_t n, arglist *a)
{
	size_t i = 0, start = 0;
	int depth = 0;
	a->count = a->next = 0;
	while (i <= n) {
		if (i == n || (s[i] == ',' && depth == 0)) {
			if (a->count == 64)
				return -1;
			a->s[a->count] = s + start;
			a->n[a->count] = i - start;
			a->count++;
			start = i + 1;
			if (i == n)
				break;
		} else if (s[i] == '(' || s[i] == '[' || s[i] == '{') {
			depth++;
		} else if (s[i] == ')' || s[i] == ']' || s[i] == '}') {
			depth--;
		} else if (s[i] == '"' || s[i] == '\'') {
			i = skip_quoted(s, n, i);
			continue;
		}
		i++;
	}
	return 0;
}

/* Parse the print fmt of fmt into e; 0 ok, -1 when libtraceevent would
 * fail it (all fields then print raw). */
static int parse_print_fmt(const tb_format *fmt, rf_event *e)
{
	/* the print fmt runs to the end of the text: its format string may
	 * hold newlines (ext4's fsmap events) */
	const char *p = fmt->print_fmt;
	size_t n = fmt->print_fmt && fmt->print_fmt_offset <= fmt->text_len
			   ? fmt->text_len - fmt->print_fmt_offset : 0,
	       i = 0, flen = 0, k;
	char *f;
	arglist args;
	if (!p || n == 0)
		return -1;
	while (n && isspace((unsigned char)p[n - 1]))
		n--;
	f = malloc(n + 1);
	if (!f)
		return -1;
	/* the format string: adjacent literals, escapes kept for later */
	while (i < n && p[i] == ' ')
		i++;
	if (i >= n || p[i] != '"') {
		free(f);
		return -1;
	}
	while (i < n && p[i] == '"') {
		i++;
		while (i < n && p[i] != '"') {
			/* libtraceevent fails a format string holding a raw
			 * control character such as a TAB (seen: maple_tree) */
			if (!isprint((unsigned char)p[i]) && p[i] != '\n') {
				free(f);
				return -1;
			}
			if (p[i] == '\\' && i + 1 < n)
				f[flen++] = p[i++];
			f[flen++] = p[i++];
		}
		if (i >= n) {
			free(f);
			return -1;
		}
		i++;
		while (i < n && p[i] == ' ')
			i++;
	}
	f[flen] = 0;
	args.count = args.next = 0;
	if (i < n) {
		if (p[i] != ',' || split_args(p + i + 1, n - i - 1, &args) < 0) {
			free(f);
			return -1;
		}
		for (k = 0; k < args.count; k++)
			if (has_unknown_call(args.s[k], args.n[k])) {
				free(f);
				return -1;
			}
	}
	/* at most one item per byte of the format string */
	e->items = calloc(flen + 1, sizeof(*e->items));
	if (!e->items) {
		free(f);
		return -1;
	}
	i = 0;
	while (i < flen) {
		if (f[i] == '%' && f[i + 1] != '%') {
			size_t st = i, j = i + 1;
			int ls = 0, has_len = 0, lenf = -1, done = 0;
			for (; j < flen && !done; j++) {
				char c = f[j];
				rf_item *it;
				int mask;
				switch (c) {
				case '#': case '.': case '-': case '+':
				case '0': case '1': case '2': case '3': case '4':
				case '5': case '6': case '7': case '8': case '9':
					break;
				case 'h': ls--; break;
				case 'l': ls++; break;
				case 'L': ls = 2; break;
				case 'z': case 'Z': ls = 1; break;
				case '*':
					if (args.next >= args.count || has_len)
						goto failed;
					has_len = 1;
					lenf = arg_field(fmt, args.s[args.next], args.n[args.next], &mask);
					args.next++;
					break;
				case 'p': case 'c': case 'd': case 'u': case 'i':
				case 'x': case 'X': case 'o': case 's':
					if (args.next >= args.count)
						goto failed;
					it = &e->items[e->n++];
					memset(it, 0, sizeof(*it));
					it->kind = c == 'p' ? RF_PTR : c == 's' ? RF_STRARG : RF_DIGIT;
					it->ls = ls;
					it->conv = c;
					it->has_lenarg = has_len;
					it->lenarg_field = lenf;
					it->field = arg_field(fmt, args.s[args.next], args.n[args.next],
							      &it->mask);
					args.next++;
					if (j - st < sizeof(it->spec)) {
						memcpy(it->spec, f + st + 1, j - st - 1);
						it->spec[j - st - 1] = 0;
					}
					if (c == 'p') {
						char x = j + 1 < flen ? f[j + 1] : 0;
						if (x == 'F' || x == 'S' || x == 'f' || x == 's') {
							it->pext = x;
							j++;
						} else if (x == 'M' || x == 'm') {
							it->pext = x;
							j++;
							if (j + 1 < flen && (f[j + 1] == 'R' || f[j + 1] == 'F'))
								j++;
						} else if (x == 'I' || x == 'i' || x == 'U' || x == 'h') {
							it->pext = '?'; /* printed raw (not emulated) */
							j++;
						}
					}
					if (ls < -2 || ls > 2)
						goto failed;
					done = 1;
					break;
				default: {
					char t[3] = { '>', c, '<' };
					add_str(e, t, 3);
					done = 1;
					break;
				}
				}
			}
			i = j;
			continue;
		}
		{
			/* a literal up to the next conversion, escapes resolved */
			char *lit = malloc(flen - i + 1);
			size_t ln = 0;
			if (!lit)
				goto failed;
			while (i < flen) {
				if (f[i] == '\\' && i + 1 < flen) {
					char c = f[++i];
					lit[ln++] = c == 'n' ? '\n' : c == 't' ? '\t' : c == 'r' ? '\r' : c;
				} else if (f[i] == '%') {
					if (f[i + 1] == '%') {
						lit[ln++] = '%';
						i++;
					} else {
						break;
					}
				} else {
					lit[ln++] = f[i];
				}
				i++;
			}
			add_str(e, lit, ln);
			free(lit);
		}
	}
	free(f);
	return 0;
failed:
	free(f);
	return -1;
}

/* libtraceevent's flags for a field, from its type text. */
static unsigned lflags_of(const tb_field *f)
{
	unsigned fl = 0;
	char type[TB_FORMAT_MAX_TYPE + 1];
	size_t n = f->type_len < TB_FORMAT_MAX_TYPE ? f->type_len : TB_FORMAT_MAX_TYPE;
	memcpy(type, f->type, n);
	type[n] = 0;
	/* an array only when the line has brackets, in the type or after the
	 * name (the name is followed by ';' or '[' in the text): `__data_loc
	 * cpumask_t mask` prints as the number its loc word holds */
	if (strchr(type, '[') || f->name[f->name_len] == '[')
		fl |= LF_ARRAY;
	if ((fl & LF_ARRAY) && (strstr(type, "char") || strstr(type, "u8") || strstr(type, "s8")))
		fl |= LF_STRING;
	if (!strncmp(type, "__data_loc", 10) || !strncmp(type, "__rel_loc", 9))
		fl |= LF_DYNAMIC;
	if (!strncmp(type, "__rel_loc", 9))
		fl |= LF_REL;
	if (strchr(type, '*'))
		fl |= LF_POINTER;
	if (strstr(type, "long"))
		fl |= LF_LONG;
	if (f->flags & TB_FIELD_SIGNED)
		fl |= LF_SIGNED;
	return fl;
}

rf_ctx *rf_new(const tb_format_set *set, const rf_syms *syms)
{
	rf_ctx *c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->set = set;
	c->syms = *syms;
	c->nev = set->events_cap; /* formats may be added later (lazily) */
	c->ev = calloc(c->nev ? c->nev : 1, sizeof(*c->ev));
	if (!c->ev) {
		free(c);
		return NULL;
	}
	return c;
}

void rf_free(rf_ctx *c)
{
	size_t i, j;
	if (!c)
		return;
	for (i = 0; i < c->nev; i++) {
		for (j = 0; j < c->ev[i].n; j++)
			free(c->ev[i].items[j].text);
		free(c->ev[i].items);
		free(c->ev[i].lflags);
	}
	free(c->ev);
	free(c);
}

/* ---- values ---- */

static uint64_t read_num(const rf_ctx *c, const uint8_t *rec, size_t len,
			 uint32_t off, uint32_t size)
{
	uint64_t v = 0;
	uint32_t i;
	if (size != 1 && size != 2 && size != 4 && size != 8)
		return 0;
	if (off > len || size > len - off)
		return 0; /* outside the record: libtraceevent would over-read */
	for (i = 0; i < size; i++) {
		unsigned b = rec[off + (c->syms.big_endian ? i : size - 1 - i)];
		v = v << 8 | b;
	}
	return v;
}

static uint64_t field_val(const rf_ctx *c, const tb_field *f, const uint8_t *rec,
			  size_t len, int mask)
{
	uint64_t v = read_num(c, rec, len, f->offset, f->size);
	if (mask == 1)
		v &= 0xff;
	else if (mask == 2)
		v &= 0xffff;
	else if (mask == 4)
		v &= 0xffffffffu;
	return v;
}

/* The bytes of an array field as libtraceevent locates them, clamped to
 * the record. */
static void array_span(const rf_ctx *c, const tb_field *f, unsigned lf,
		       const uint8_t *rec, size_t len, size_t *off, size_t *n)
{
	if (lf & LF_DYNAMIC) {
		uint64_t v = read_num(c, rec, len, f->offset, f->size);
		size_t o, l;
		if (f->size == 2) {
			o = (size_t)v;
			l = o <= len ? len - o : 0;
		} else {
			o = (size_t)(v & 0xffff);
			l = (size_t)(v >> 16);
		}
		if (o > len)
			o = 0;
		if (l > len - o)
			l = 0;
		if (lf & LF_REL)
			o += (size_t)f->offset + f->size;
		*off = o;
		*n = l;
	} else {
		*off = f->offset;
		*n = f->size;
	}
	if (*off > len)
		*off = len;
	if (*n > len - *off)
		*n = len - *off;
}

static void print_raw(rf_ctx *c, rf_out *o, const tb_field *f, unsigned *lf,
		      const uint8_t *rec, size_t len)
{
	if (*lf & LF_ARRAY) {
		size_t off, n, i, printable = 1;
		array_span(c, f, *lf, rec, len, &off, &n);
		for (i = 0; i < n && rec[off + i]; i++)
			if (!isprint(rec[off + i]) && !isspace(rec[off + i]))
				printable = 0;
		if ((*lf & LF_STRING) && printable) {
			/* "%s" of the bytes: to the NUL (kept inside the record) */
			const uint8_t *z = memchr(rec + off, 0, len - off);
			tb_ob_put(o, (const char *)rec + off, z ? (size_t)(z - (rec + off)) : len - off);
		} else {
			tb_ob_puts(o, "ARRAY[");
			for (i = 0; i < n; i++)
				rf_printf(o, i ? ", %02x" : "%02x", rec[off + i]);
			tb_ob_puts(o, "]");
			*lf &= ~LF_STRING; /* libtraceevent forgets it is a string */
		}
		return;
	}
	{
		uint64_t v = read_num(c, rec, len, f->offset, f->size);
		if (*lf & LF_POINTER) {
			tb_ob_put(o, "0x", 2);
			tb_ob_uint(o, v, 16, 0, 0);
		} else if (*lf & LF_SIGNED) {
			switch (f->size) {
			case 4:
				if (*lf & LF_LONG) {
					tb_ob_put(o, "0x", 2);
					tb_ob_uint(o, (uint32_t)v, 16, 0, 0);
				} else {
					tb_ob_int(o, (int32_t)(uint32_t)v, 0, 0);
				}
				break;
			case 2:
				tb_ob_int(o, (int16_t)(uint16_t)v, 2, 0);
				break;
			case 1:
				tb_ob_int(o, (int8_t)(uint8_t)v, 1, 0);
				break;
			default:
				tb_ob_int(o, (int64_t)v, 0, 0);
			}
		} else if (*lf & LF_LONG) {
			tb_ob_put(o, "0x", 2);
			tb_ob_uint(o, v, 16, 0, 0);
		} else {
			tb_ob_uint(o, v, 10, 0, 0);
		}
	}
}

/* A printf spec rebuilt from what the format wrote: flags, width and
 * precision kept (capped), the length from ls, then the conversion. */
static int build_spec(const rf_item *it, char *out, size_t cap, int *star)
{
	const char *s = it->spec;
	size_t n = 0;
	unsigned long num = 0;
	int in_num = 0;
	*star = 0;
	out[n++] = '%';
	for (; *s && n + 4 < cap; s++) {
		char ch = *s;
		if (ch == 'h' || ch == 'l' || ch == 'L' || ch == 'z' || ch == 'Z')
			continue;
		if (ch == '*') {
			*star = 1;
			out[n++] = '*';
			continue;
		}
		if (ch >= '1' && ch <= '9' && !in_num) {
			in_num = 1;
			num = 0;
		}
		if (in_num && ch >= '0' && ch <= '9') {
			num = num * 10 + (unsigned long)(ch - '0');
			if (num > RF_MAX_WIDTH)
				return -1;
		} else {
			in_num = 0;
		}
		if (ch == '#' || ch == '-' || ch == '+' || ch == '.' ||
		    (ch >= '0' && ch <= '9'))
			out[n++] = ch;
	}
	if (it->kind == RF_DIGIT) {
		if (it->ls == -2) { out[n++] = 'h'; out[n++] = 'h'; }
		else if (it->ls == -1) out[n++] = 'h';
		else if (it->ls == 1) out[n++] = 'l';
		else if (it->ls == 2) { out[n++] = 'l'; out[n++] = 'l'; }
	}
	out[n++] = it->conv;
	out[n] = 0;
	return 0;
}

/* The specs are rebuilt by build_spec from a fixed alphabet. */
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
static void print_item(rf_ctx *c, rf_out *o, const tb_format *fmt,
		       const rf_item *it, const tb_field *f, unsigned lf,
		       const uint8_t *rec, size_t len)
{
	char spec[48];
	int star, w = 0;
	uint64_t v = field_val(c, f, rec, len, it->mask);
	if (it->has_lenarg) {
		if (it->lenarg_field >= 0)
			w = (int)(int32_t)read_num(c, rec, len,
						   fmt->fields[it->lenarg_field].offset,
						   fmt->fields[it->lenarg_field].size);
		if (w > RF_MAX_WIDTH)
			w = RF_MAX_WIDTH;
		if (w < -RF_MAX_WIDTH)
			w = -RF_MAX_WIDTH;
	}
	if (it->kind == RF_PTR) {
		if (it->pext == 's' || it->pext == 'S' || it->pext == 'f' || it->pext == 'F') {
			const tb_ksym *k = rf_find_func(&c->syms, v);
			if (k) {
				tb_ob_put(o, c->syms.ktext + k->name, k->name_len);
				if (it->pext == 'S' || it->pext == 'F') {
					tb_ob_put(o, "+0x", 3);
					tb_ob_uint(o, v - k->addr, 16, 0, 0);
				}
			} else {
				tb_ob_put(o, "0x", 2);
				tb_ob_uint(o, v, 16, 0, 0);
			}
		} else if (it->pext == 'M' || it->pext == 'm') {
			if (f->size != 6 || f->offset > len || len - f->offset < 6) {
				tb_ob_puts(o, "INVALIDMAC");
			} else {
				const uint8_t *m = rec + f->offset;
				rf_printf(o, it->pext == 'M' ? "%.2x:%.2x:%.2x:%.2x:%.2x:%.2x"
							     : "%.2x%.2x%.2x%.2x%.2x%.2x",
					  m[0], m[1], m[2], m[3], m[4], m[5]);
			}
		} else if (v == 0) {
			tb_ob_puts(o, "(nil)");
		} else {
			tb_ob_put(o, "0x", 2);
			tb_ob_uint(o, v, 16, 0, 0);
		}
		return;
	}
	if (build_spec(it, spec, sizeof(spec), &star) < 0) {
		unsigned l2 = lf;
		print_raw(c, o, f, &l2, rec, len);
		return;
	}
	if (it->kind == RF_STRARG) {
		if (!(lf & LF_ARRAY) && f->size == c->syms.long_size) {
			const tb_printk_fmt *pf = c->syms.printk ? tb_printk_find(c->syms.printk, v) : NULL;
			if (pf)
				tb_ob_put(o, pf->fmt, pf->fmt_len);
			else
				tb_ob_uint(o, v, 16, 0, 0);
		} else {
			char str[256];
			size_t off = f->offset, n = f->size ? f->size : (off <= len ? len - off : 0);
			if (off > len)
				off = len;
			if (n > len - off)
				n = len - off;
			if (n >= sizeof(str))
				n = sizeof(str) - 1;
			memcpy(str, rec + off, n);
			str[n] = 0;
			if (star)
				rf_printf(o, spec, w, str);
			else
				rf_printf(o, spec, str);
		}
		return;
	}
	/* RF_DIGIT: the value as the C type the length modifier names; the
	 * plain specs (flags '0'/'-' and a width) without vsnprintf */
	if (!star && it->conv != 'c' && it->spec[strspn(it->spec, "0123456789-hlLzZ")] == 0) {
		const char *sp = it->spec;
		int zero = 0, left = 0, width = 0;
		for (; *sp == '0' || *sp == '-'; sp++) {
			if (*sp == '0')
				zero = 1;
			else
				left = 1;
		}
		for (; *sp >= '0' && *sp <= '9'; sp++)
			width = width * 10 + (*sp - '0');
		if (*sp == 0 || strchr("hlLzZ", *sp)) {
			if (it->conv == 'd' || it->conv == 'i') {
				int64_t sv = it->ls <= -2 ? (int8_t)(uint8_t)v
					   : it->ls == -1 ? (int16_t)(uint16_t)v
					   : it->ls == 0 ? (int32_t)(uint32_t)v : (int64_t)v;
				tb_ob_int(o, sv, (size_t)width,
					  (zero ? TB_OB_ZERO : 0u) | (left ? TB_OB_LEFT : 0u));
			} else {
				uint64_t uv = it->ls <= -2 ? (uint8_t)v
					    : it->ls == -1 ? (uint16_t)v
					    : it->ls == 0 ? (uint32_t)v : v;
				unsigned base = it->conv == 'o' ? 8 : it->conv == 'u' ? 10 : 16;
				tb_ob_uint(o, uv, base, (size_t)width,
					   (zero ? TB_OB_ZERO : 0u) | (left ? TB_OB_LEFT : 0u) |
						   (it->conv == 'X' ? TB_OB_UPPER : 0u));
			}
			return;
		}
	}
	switch (it->ls) {
	case -2:
		if (star) rf_printf(o, spec, w, (int)(signed char)v);
		else rf_printf(o, spec, (int)(signed char)v);
		break;
	case -1:
		if (star) rf_printf(o, spec, w, (int)(short)v);
		else rf_printf(o, spec, (int)(short)v);
		break;
	case 0:
		if (star) rf_printf(o, spec, w, (int)v);
		else rf_printf(o, spec, (int)v);
		break;
	case 1:
		if (star) rf_printf(o, spec, w, (long)v);
		else rf_printf(o, spec, (long)v);
		break;
	default:
		if (star) rf_printf(o, spec, w, (long long)v);
		else rf_printf(o, spec, (long long)v);
		break;
	}
}

void rf_fields(rf_ctx *c, rf_out *o, const tb_format *fmt, const uint8_t *rec,
	       size_t len)
{
	size_t idx = (size_t)(fmt - c->set->events), i, cursor = 0;
	rf_event *e;
	int have_cursor = 1;
	if (idx >= c->nev)
		return;
	e = &c->ev[idx];
	if (e->state == 0) {
		e->lflags = calloc(fmt->nfields ? fmt->nfields : 1, sizeof(unsigned));
		for (i = 0; e->lflags && i < fmt->nfields; i++)
			e->lflags[i] = lflags_of(&fmt->fields[i]);
		e->state = (e->lflags && parse_print_fmt(fmt, e) == 0) ? 1 : 2;
		if (!e->lflags)
			return;
	}
	for (i = fmt->ncommon; i < fmt->nfields; i++) {
		const tb_field *f = &fmt->fields[i];
		unsigned *lf = &e->lflags[i];
		size_t k, p;
		int has_0x = 0, found = 0;
		tb_ob_puts(o, " ");
		tb_ob_put(o, f->name, f->name_len);
		tb_ob_puts(o, "=");
		if (e->state != 1 || !have_cursor || e->n == 0 ||
		    (*lf & (LF_ARRAY | LF_STRING))) {
			print_raw(c, o, f, lf, rec, len);
			continue;
		}
		for (k = 0, p = cursor; k < e->n; k++, p = (p + 1) % e->n) {
			const rf_item *it = &e->items[p];
			if (it->kind == RF_STR) {
				has_0x = it->ends_0x;
				continue;
			}
			if (it->field != (int)i || it->pext == '?') {
				has_0x = 0;
				continue;
			}
			if (has_0x)
				tb_ob_puts(o, "0x");
			print_item(c, o, fmt, it, f, *lf, rec, len);
			if (p + 1 < e->n)
				cursor = p + 1;
			else
				have_cursor = 0;
			found = 1;
			break;
		}
		if (!found)
			print_raw(c, o, f, lf, rec, len);
	}
}
