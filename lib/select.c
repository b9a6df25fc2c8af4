/*
 * Event lists ("sched,irq:softirq_entry,sched_*") and CPU lists ("0,2-3"):
 * the selections a command line makes, parsed with positions and limits.
 */
#include "internal.h"
#include "tracebound/filter.h"

static int is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* ---- shell globs ---- */

/*
 * One bracket [...] at p[*pi] (just past the '['): does c match?  *pi is
 * moved past the ']'.  -1 when the bracket is not closed.
 */
static int glob_bracket(const char *p, size_t plen, size_t *pi, unsigned char c)
{
	size_t i = *pi;
	int neg = 0, hit = 0, first = 1;
	if (i < plen && (p[i] == '!' || p[i] == '^')) {
		neg = 1;
		i++;
	}
	for (;;) {
		unsigned char lo, hi;
		if (i >= plen)
			return -1;
		if (p[i] == ']' && !first)
			break;
		first = 0;
		if (p[i] == '\\' && i + 1 < plen)
			i++;
		lo = (unsigned char)p[i++];
		hi = lo;
		if (i + 1 < plen && p[i] == '-' && p[i + 1] != ']') {
			i++;
			if (p[i] == '\\' && i + 1 < plen)
				i++;
			hi = (unsigned char)p[i++];
		}
		if (c >= lo && c <= hi)
			hit = 1;
	}
	*pi = i + 1;
	return hit != neg;
}

/*
 * The classic one-star backtrack: on a mismatch go back to just after the
 * last '*' and let it eat one more character.  O(plen x tlen) at worst,
 * no recursion.
 */
int tb_glob_match(const char *p, size_t plen, const char *t, size_t tlen)
{
	size_t pi = 0, ti = 0, star_p = (size_t)-1, star_t = 0;
	if ((!p && plen) || (!t && tlen))
		return 0;
	while (ti < tlen) {
		if (pi < plen) {
			char pc = p[pi];
			if (pc == '*') {
				star_p = ++pi;
				star_t = ti;
				continue;
			}
			if (pc == '?') {
				pi++;
				ti++;
				continue;
			}
			if (pc == '[') {
				size_t q = pi + 1;
				int r = glob_bracket(p, plen, &q, (unsigned char)t[ti]);
				if (r == 1) {
					pi = q;
					ti++;
					continue;
				}
				if (r < 0 && t[ti] == '[') { /* unclosed: a literal '[' */
					pi++;
					ti++;
					continue;
				}
			} else {
				if (pc == '\\' && pi + 1 < plen)
					pc = p[pi + 1];
				if (pc == t[ti]) {
					pi += p[pi] == '\\' && pi + 1 < plen ? 2 : 1;
					ti++;
					continue;
				}
			}
		}
		if (star_p == (size_t)-1)
			return 0;
		pi = star_p;
		ti = ++star_t;
	}
	while (pi < plen && p[pi] == '*')
		pi++;
	return pi == plen;
}

/* ---- event lists ---- */

/* Check one glob part for the errors a glob can have. */
static tb_status glob_check(const char *p, size_t off, size_t len, tb_error *err)
{
	size_t i;
	for (i = off; i < off + len; i++) {
		if (p[i] == '\\') {
			if (i + 1 >= off + len)
				return tb_fail(err, TB_ERR_SYNTAX, i, "trailing backslash");
			i++;
		} else if (p[i] == '[') {
			size_t q = i + 1;
			/* the bracket's own grammar, matched against nothing */
			if (glob_bracket(p, off + len, &q, 0) < 0)
				return tb_fail(err, TB_ERR_SYNTAX, i, "'[' without its ']'");
			i = q - 1;
		} else if (p[i] == 0) {
			return tb_fail(err, TB_ERR_SYNTAX, i, "NUL in an event list");
		}
	}
	return TB_OK;
}

tb_status tb_select_parse(tb_select *sel, const char *list, size_t len, tb_error *err)
{
	size_t i = 0;
	tb_error_clear(err);
	if (!sel || (!list && len))
		return tb_fail(err, TB_ERR_ARG, 0, "NULL selection or list");
	sel->text = list;
	sel->len = len;
	sel->n = 0;
	if (len > TB_SELECT_MAX_LEN)
		return tb_fail(err, TB_ERR_LIMIT, TB_SELECT_MAX_LEN,
			       "event list longer than TB_SELECT_MAX_LEN");
	for (;;) {
		size_t s = i, e, b, colon = (size_t)-1;
		tb_select_item *it;
		tb_status st;
		while (i < len && list[i] != ',')
			i++;
		e = i;
		while (s < e && is_blank(list[s]))
			s++;
		while (e > s && is_blank(list[e - 1]))
			e--;
		if (s == e)
			return tb_fail(err, TB_ERR_SYNTAX, s, "empty item in the event list");
		if (e - s > TB_SELECT_MAX_ITEM)
			return tb_fail(err, TB_ERR_LIMIT, s,
				       "event list item longer than TB_SELECT_MAX_ITEM");
		if (sel->n >= TB_SELECT_MAX_PATTERNS)
			return tb_fail(err, TB_ERR_LIMIT, s,
				       "event list has more items than TB_SELECT_MAX_PATTERNS");
		for (b = s; b < e; b++) {
			if (list[b] == '\\') {
				b++;
			} else if (list[b] == ':') {
				if (colon != (size_t)-1)
					return tb_fail(err, TB_ERR_SYNTAX, b,
						       "a second ':' in an event list item");
				colon = b;
			}
		}
		it = &sel->item[sel->n];
		memset(it, 0, sizeof *it);
		it->off = (uint16_t)s;
		it->len = (uint16_t)(e - s);
		if (colon == (size_t)-1) {
			it->name_off = (uint16_t)s;
			it->name_len = (uint16_t)(e - s);
		} else {
			if (colon == s || colon + 1 == e)
				return tb_fail(err, TB_ERR_SYNTAX, colon,
					       "empty system or event around ':'");
			it->has_colon = 1;
			it->sys_off = (uint16_t)s;
			it->sys_len = (uint16_t)(colon - s);
			it->name_off = (uint16_t)(colon + 1);
			it->name_len = (uint16_t)(e - colon - 1);
		}
		st = glob_check(list, it->sys_off, it->sys_len, err);
		if (st == TB_OK)
			st = glob_check(list, it->name_off, it->name_len, err);
		if (st != TB_OK)
			return st;
		sel->n++;
		if (i >= len)
			break;
		i++; /* the ',' */
	}
	return TB_OK;
}

int tb_select_match(const tb_select *sel, const char *system, size_t system_len,
		    const char *name, size_t name_len, uint64_t *hits)
{
	size_t k;
	int any = 0;
	if (!sel)
		return 0;
	system_len = tb_region_len(system, system_len);
	name_len = tb_region_len(name, name_len);
	for (k = 0; k < sel->n && k < TB_SELECT_MAX_PATTERNS; k++) {
		const tb_select_item *it = &sel->item[k];
		const char *np = sel->text + it->name_off;
		int m;
		if (it->has_colon)
			m = tb_glob_match(sel->text + it->sys_off, it->sys_len, system, system_len) &&
			    tb_glob_match(np, it->name_len, name, name_len);
		else
			m = tb_glob_match(np, it->name_len, name, name_len) ||
			    (system_len > 0 && tb_glob_match(np, it->name_len, system, system_len));
		if (m) {
			any = 1;
			if (hits)
				*hits |= (uint64_t)1 << k;
			else
				break;
		}
	}
	return any;
}

const char *tb_select_item_text(const tb_select *sel, size_t i, size_t *len)
{
	if (!sel || i >= sel->n) {
		if (len)
			*len = 0;
		return NULL;
	}
	if (len)
		*len = sel->item[i].len;
	return sel->text + sel->item[i].off;
}

/* ---- CPU lists ---- */

/* A decimal CPU number at list[*i]; blanks before it skipped. */
static tb_status cpu_num(const char *list, size_t len, size_t *i, uint32_t *out,
			 size_t *start, tb_error *err)
{
	uint64_t v = 0;
	size_t s;
	while (*i < len && is_blank(list[*i]))
		(*i)++;
	s = *i;
	*start = s;
	while (*i < len && list[*i] >= '0' && list[*i] <= '9') {
		v = v * 10u + (uint64_t)(list[*i] - '0');
		if (v >= TB_CPU_LIST_MAX)
			return tb_fail(err, TB_ERR_LIMIT, s,
				       "CPU number at or over TB_CPU_LIST_MAX");
		(*i)++;
	}
	if (*i == s) {
		if (*i >= len || list[*i] == ',')
			return tb_fail(err, TB_ERR_SYNTAX, s, "empty item in the CPU list");
		return tb_fail(err, TB_ERR_SYNTAX, s,
			       "a CPU list holds numbers, ranges N-M and commas only");
	}
	*out = (uint32_t)v;
	return TB_OK;
}

tb_status tb_cpu_list_parse(const char *list, size_t len, uint32_t ncpus, uint64_t *mask,
			    size_t mask_words, tb_error *err)
{
	size_t i = 0, w;
	tb_error_clear(err);
	if (!mask || (!list && len))
		return tb_fail(err, TB_ERR_ARG, 0, "NULL CPU list or mask");
	for (w = 0; w < mask_words; w++)
		mask[w] = 0;
	if (ncpus > TB_CPU_LIST_MAX)
		ncpus = TB_CPU_LIST_MAX;
	for (;;) {
		uint32_t a, b, c;
		size_t at, bat;
		tb_status st = cpu_num(list, len, &i, &a, &at, err);
		if (st != TB_OK)
			return st;
		b = a;
		bat = at;
		while (i < len && is_blank(list[i]))
			i++;
		if (i < len && list[i] == '-') {
			i++;
			if (i >= len || list[i] == ',')
				return tb_fail(err, TB_ERR_SYNTAX, i, "a CPU range without its end");
			st = cpu_num(list, len, &i, &b, &bat, err);
			if (st != TB_OK)
				return st;
			if (b < a)
				return tb_fail(err, TB_ERR_VALUE, at,
					       "CPU range goes backwards (write it low-high)");
			while (i < len && is_blank(list[i]))
				i++;
		}
		if (a >= ncpus)
			return tb_fail(err, TB_ERR_RANGE, at, "no such CPU in the capture");
		if (b >= ncpus)
			return tb_fail(err, TB_ERR_RANGE, bat, "no such CPU in the capture");
		if ((size_t)(b / 64u) >= mask_words)
			return tb_fail(err, TB_ERR_NO_SPACE, bat, "CPU mask too small for this CPU");
		for (c = a; c <= b; c++)
			mask[c / 64u] |= (uint64_t)1 << (c % 64u);
		if (i >= len)
			return TB_OK;
		if (list[i] != ',')
			return tb_fail(err, TB_ERR_SYNTAX, i,
				       "a CPU list holds numbers, ranges N-M and commas only");
		i++;
		if (i >= len)
			return tb_fail(err, TB_ERR_SYNTAX, i, "empty item in the CPU list");
	}
}
