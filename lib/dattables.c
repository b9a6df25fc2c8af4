/*
 * Lookup tables built from the companion texts a trace.dat carries:
 * saved cmdlines (pid -> comm), kallsyms (address -> symbol) and printk
 * formats (address -> format).  Entries live in caller storage and
 * point into the text; a malformed line fails with the byte offset of its
 * first character in the text.
 */
#include "tracebound/tracedat.h"
#include "internal.h"

/* Entries of any size, TB_SORT_ELEM_MAX bytes at a time. */
static void swap_elems(uint8_t *a, uint8_t *b, size_t size)
{
	uint8_t tmp[TB_SORT_ELEM_MAX];
	while (size) {
		size_t k = size < sizeof(tmp) ? size : sizeof(tmp);
		memcpy(tmp, a, k);
		memcpy(a, b, k);
		memcpy(b, tmp, k);
		a += k;
		b += k;
		size -= k;
	}
}

/* Moves the entry at root down the heap of the first n entries. */
static void sift_down(uint8_t *v, size_t root, size_t n, size_t size, tb_less_fn less)
{
	for (;;) {
		size_t child = 2 * root + 1;
		if (child >= n)
			break;
		if (child + 1 < n && less(v + child * size, v + (child + 1) * size))
			child++;
		if (!less(v + root * size, v + child * size))
			break;
		swap_elems(v + root * size, v + child * size, size);
		root = child;
	}
}

/* Heapsort: O(n log n), no recursion, no allocation.  Texts written by
 * the kernel are usually sorted already: that is checked first, O(n). */
void tb_heap_sort(void *base, size_t n, size_t size, tb_less_fn less)
{
	uint8_t *v = (uint8_t *)base;
	size_t start, end;
	if (n < 2 || !size)
		return;
	for (start = 1; start < n; start++)
		if (less(v + start * size, v + (start - 1) * size))
			break;
	if (start == n)
		return;
	for (start = n / 2; start-- > 0;)
		sift_down(v, start, n, size, less);
	for (end = n - 1; end > 0; end--) {
		swap_elems(v, v + end * size, size);
		sift_down(v, 0, end, size, less);
	}
}

/* The first of n sorted entries (`size` bytes each) whose key is >= key. */
size_t tb_lower_bound(const void *base, size_t n, size_t size, uint64_t key,
			  uint64_t (*key_of)(const void *))
{
	const uint8_t *v = (const uint8_t *)base;
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (key_of(v + mid * size) < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The start every table parser shares: 0 (with *st) when it is done
 * already: bad arguments, or an empty text (an empty table). */
static int table_begin(int bad_args, size_t *n, const char *text, size_t len,
		       tb_error *err, tb_status *st)
{
	if (bad_args) {
		*st = tb_fail(err, TB_ERR_ARG, 0, "NULL table or text");
		return 0;
	}
	tb_error_clear(err);
	*n = 0;
	*st = TB_OK;
	return text && len; /* (no pointer arithmetic on a NULL text) */
}

/* Lines that are not blank (what the tables may need room for). */
static size_t count_lines(const char *text, size_t len)
{
	tb_reader r;
	const char *s;
	size_t n, count = 0;
	if (!text || !len)
		return 0; /* (no pointer arithmetic on a NULL text) */
	tb_rd_init(&r, text, len, 0);
	while (tb_rd_line(&r, &s, &n))
		if (n && !(n == 1 && s[0] == '\r'))
			count++;
	return count;
}

/* One line of a table's text: at is its offset in the text. */
typedef tb_status (*line_fn)(void *t, const char *text, size_t at, const char *s, size_t n,
			     tb_error *err);

/* Runs fn on each non-empty line; the first line it refuses stops the
 * parse (the lines before it stay usable, as libtraceevent keeps them). */
static tb_status each_line(void *t, const char *text, size_t len, line_fn fn, tb_error *err)
{
	tb_reader r;
	const char *s;
	size_t n;
	tb_status st;
	tb_rd_init(&r, text, len, 0);
	while (tb_rd_line(&r, &s, &n))
		if (n && (st = fn(t, text, (size_t)(s - text), s, n, err)) != TB_OK)
			return st;
	return TB_OK;
}

/* A whole table t: its start, each line (fn appends to the *n entries
 * of `size` bytes at v), then the entries in `less` order. */
static tb_status parse_table(int bad_args, void *t, void *v, size_t *n, size_t size,
			     tb_less_fn less, const char *text, size_t len, line_fn fn,
			     tb_error *err)
{
	tb_status st;
	if (!table_begin(bad_args, n, text, len, err, &st))
		return st;
	st = each_line(t, text, len, fn, err);
	tb_heap_sort(v, *n, size, less);
	return st;
}

size_t tb_cmdlines_count(const char *text, size_t len)
{
	return count_lines(text, len);
}

size_t tb_kallsyms_count(const char *text, size_t len)
{
	return count_lines(text, len);
}

size_t tb_printk_count(const char *text, size_t len)
{
	return count_lines(text, len);
}

static size_t find_char(const char *s, size_t n, char ch)
{
	const char *p = (const char *)memchr(s, ch, n);
	return p ? (size_t)(p - s) : n;
}

/* ---- saved cmdlines ---- */

static int cmdline_less(const void *a, const void *b)
{
	const tb_cmdline *x = (const tb_cmdline *)a, *y = (const tb_cmdline *)b;
	return x->pid < y->pid;
}

static tb_status cmdline_line(void *tp, const char *text, size_t at, const char *s, size_t n,
			      tb_error *err)
{
	tb_cmdlines *t = (tb_cmdlines *)tp;
	size_t sp = find_char(s, n, ' ');
	uint64_t pid;
	(void)text;
	if (sp == n || sp + 1 == n)
		return tb_fail(err, TB_ERR_SYNTAX, at, "cmdline without '<pid> <comm>'");
	if (!tb_parse_u64(s, sp, &pid) || pid > INT32_MAX)
		return tb_fail(err, TB_ERR_SYNTAX, at, "cmdline pid is not a number");
	if (t->n >= t->cap)
		return tb_fail(err, TB_ERR_NO_SPACE, at, "cmdlines table full");
	t->v[t->n].pid = (int32_t)pid;
	t->v[t->n].comm = s + sp + 1;
	t->v[t->n].comm_len = n - sp - 1;
	t->n++;
	return TB_OK;
}

tb_status tb_cmdlines_parse(tb_cmdlines *t, const char *text, size_t len,
			    tb_error *err)
{
	return parse_table(!t || (!text && len) || (!t->v && t->cap), t, t ? t->v : NULL,
			   t ? &t->n : NULL, sizeof(*t->v), cmdline_less, text, len, cmdline_line, err);
}

/* pids in key order (signed, so the sign bit is flipped) */
static uint64_t pid_key(const void *e)
{
	return (uint32_t)((const tb_cmdline *)e)->pid ^ 0x80000000u;
}

const tb_cmdline *tb_cmdlines_find(const tb_cmdlines *t, int32_t pid)
{
	size_t i;
	if (!t || !t->v)
		return NULL;
	/* several lines for one pid: any of them (equal in a sane file) */
	i = tb_lower_bound(t->v, t->n, sizeof(*t->v), (uint32_t)pid ^ 0x80000000u, pid_key);
	return i < t->n && t->v[i].pid == pid ? &t->v[i] : NULL;
}

/* ---- kallsyms ---- */

static int ksym_less(const void *a, const void *b)
{
	const tb_ksym *x = (const tb_ksym *)a, *y = (const tb_ksym *)b;
	if (x->addr != y->addr)
		return x->addr < y->addr;
	/* equal addresses keep text order (name offsets increase) */
	return x->name < y->name;
}

/* Absolute symbols ('A', 'a': per-CPU offsets and the like, not code
 * addresses) and '$' mapping symbols (arm's $a, $d, $t) are kept in the
 * table, after the code symbols, and never returned by tb_kallsyms_find,
 * as trace-cmd does not look them up either. */
static int ksym_lookable(const tb_kallsyms *t, const tb_ksym *k)
{
	return k->type != 'A' && k->type != 'a' &&
	       !(t->text && t->text[k->name] == '$');
}

/* How many entries are lookable: they come first (binary search). */
static size_t ksym_lookable_count(const tb_kallsyms *t)
{
	size_t lo = 0, hi = t->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ksym_lookable(t, &t->v[mid]))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The lookable entries first, then each part sorted by address. */
static void ksym_order(tb_kallsyms *t)
{
	size_t i, k = 0;
	if (!t->n)
		return; /* v may be NULL (capacity 0): no NULL + 0 */
	for (i = 0; i < t->n; i++)
		if (ksym_lookable(t, &t->v[i])) {
			if (i != k)
				swap_elems((uint8_t *)&t->v[k], (uint8_t *)&t->v[i],
					   sizeof(*t->v));
			k++;
		}
	tb_heap_sort(t->v, k, sizeof(*t->v), ksym_less);
	tb_heap_sort(t->v + k, t->n - k, sizeof(*t->v), ksym_less);
}

static tb_status ksym_line(void *tp, const char *text, size_t at, const char *s, size_t n,
			   tb_error *err)
{
	tb_kallsyms *t = (tb_kallsyms *)tp;
	size_t a, nm, tab, ml;
	const char *mod;
	uint64_t addr = 0;
	tb_ksym *k;
	/* a 64-bit kernel's addresses are 16 digits: when those are,
	 * the first space is at 16 without a search */
	int fast = n > 16 && s[16] == ' ' && tb_parse_hex64(s, 16, &addr);
	a = fast ? 16 : find_char(s, n, ' ');
	/* "<addr> <type> <name>": the type is one character */
	if (a == n || a + 3 >= n || s[a + 2] != ' ')
		return tb_fail(err, TB_ERR_SYNTAX, at,
			       "kallsyms line is not '<addr> <type> <name>'");
	if (!fast && !tb_parse_hex64(s, a, &addr))
		return tb_fail(err, TB_ERR_SYNTAX, at, "kallsyms address is not hex");
	nm = a + 3;
	if (t->n >= t->cap)
		return tb_fail(err, TB_ERR_NO_SPACE, at, "kallsyms table full");
	/* "<name>[\t[<module>]]" */
	tab = find_char(s + nm, n - nm, '\t');
	mod = s + nm + tab + (tab < n - nm);
	ml = n - nm - tab - (tab < n - nm);
	if (ml >= 2 && mod[0] == '[' && mod[ml - 1] == ']') {
		mod++;
		ml -= 2;
	}
	if (tab == 0)
		return tb_fail(err, TB_ERR_SYNTAX, at, "kallsyms line without a name");
	/* names are 16-bit lengths (and 32-bit offsets: the text is
	 * under 4 GiB) */
	if (tab > TB_KSYM_NAME_MAX || ml > TB_KSYM_NAME_MAX)
		return tb_fail(err, TB_ERR_LIMIT, at, "kallsyms name or module over the limits");
	k = &t->v[t->n++];
	k->addr = addr;
	k->type = s[a + 1];
	k->name = (uint32_t)(at + nm);
	k->name_len = (uint16_t)tab;
	k->module = ml ? (uint32_t)(mod - text) : 0;
	k->module_len = (uint16_t)ml;
	return TB_OK;
}

tb_status tb_kallsyms_parse(tb_kallsyms *t, const char *text, size_t len,
			    tb_error *err)
{
	tb_status st;
	if (!table_begin(!t || (!text && len) || (!t->v && t->cap), t ? &t->n : NULL,
			 text, len, err, &st))
		return st;
	t->text = text;
	if (len > UINT32_MAX)
		return tb_fail(err, TB_ERR_LIMIT, 0, "kallsyms text over 4 GiB");
	st = each_line(t, text, len, ksym_line, err);
	ksym_order(t);
	return st;
}

static uint64_t ksym_key(const void *e)
{
	return ((const tb_ksym *)e)->addr;
}

const tb_ksym *tb_kallsyms_find(const tb_kallsyms *t, uint64_t addr)
{
	size_t i, n;
	if (!t || !t->v)
		return NULL;
	n = ksym_lookable_count(t);
	/* the last entry at or below addr: one before the first above it */
	i = addr == UINT64_MAX ? n
			       : tb_lower_bound(t->v, n, sizeof(*t->v), addr + 1, ksym_key);
	return i ? &t->v[i - 1] : NULL;
}

/* The index just past the entries at address a (a run of aliases) among
 * the first n (the lookable ones). */
static size_t ksym_run_end(const tb_kallsyms *t, size_t n, uint64_t a)
{
	return a == UINT64_MAX ? n : tb_lower_bound(t->v, n, sizeof(*t->v), a + 1, ksym_key);
}

/*
 * libtraceevent's lookup, with the table left in text order: it keeps
 * aliases newest-registered first (the reverse of the text) and runs
 * glibc's bsearch with "addr is the entry's, or lies below the next
 * entry's" (the last entry: its own address only).  Reversing runs of
 * equal addresses moves no address, so the search probes the same
 * indices here; the entry it stops at is mirrored inside its run.  Only
 * the lookable entries take part (trace-cmd does not load the others).
 */
static const tb_ksym *ksym_find_tep(const tb_kallsyms *t, uint64_t addr)
{
	size_t n = ksym_lookable_count(t), lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2, s, e;
		uint64_t a = t->v[mid].addr;
		uint64_t next = mid + 1 < n ? t->v[mid + 1].addr : 0;
		if (addr == a || (addr > a && addr < next)) {
			/* the run of aliases around mid (mostly just mid) */
			s = mid && t->v[mid - 1].addr == a
				    ? tb_lower_bound(t->v, n, sizeof(*t->v), a, ksym_key)
				    : mid;
			e = mid + 1 < n && next == a ? ksym_run_end(t, n, a) : mid + 1;
			return &t->v[s + (e - 1 - mid)];
		}
		if (addr < a)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

const tb_ksym *tb_kallsyms_find_as(const tb_kallsyms *t, uint64_t addr,
				   unsigned how)
{
	const tb_ksym *k;
	if (!t || !t->v)
		return NULL;
	switch (how) {
	case TB_KSYM_TEP:
		return ksym_find_tep(t, addr);
	case TB_KSYM_FIRST:
		k = tb_kallsyms_find(t, addr);
		return k ? &t->v[tb_lower_bound(t->v, ksym_lookable_count(t), sizeof(*t->v),
					     k->addr, ksym_key)]
			 : NULL;
	default:
		return tb_kallsyms_find(t, addr);
	}
}

uint64_t tb_kallsyms_size(const tb_kallsyms *t, const tb_ksym *k)
{
	size_t n, e;
	if (!t || !t->v || !k || !ksym_lookable(t, k))
		return 0;
	n = ksym_lookable_count(t);
	e = ksym_run_end(t, n, k->addr);
	return e < n ? t->v[e].addr - k->addr : 0;
}

/* ---- printk formats ---- */

static int printk_less(const void *a, const void *b)
{
	const tb_printk_fmt *x = (const tb_printk_fmt *)a;
	const tb_printk_fmt *y = (const tb_printk_fmt *)b;
	if (x->addr != y->addr)
		return x->addr < y->addr;
	return (uintptr_t)x->fmt < (uintptr_t)y->fmt;
}

static int trim_span(const char **s, size_t *n)
{
	while (*n && (**s == ' ' || **s == '\t')) {
		(*s)++;
		(*n)--;
	}
	while (*n && ((*s)[*n - 1] == ' ' || (*s)[*n - 1] == '\t' ||
		      (*s)[*n - 1] == '\r'))
		(*n)--;
	return *n != 0;
}

static tb_status printk_line(void *tp, const char *text, size_t at, const char *s, size_t n,
			     tb_error *err)
{
	tb_printk_fmts *t = (tb_printk_fmts *)tp;
	size_t colon = find_char(s, n, ':'), an, fn;
	const char *as = s, *fs;
	uint64_t addr;
	(void)text;
	if (colon == n)
		return tb_fail(err, TB_ERR_SYNTAX, at, "printk format line without ':'");
	an = colon;
	if (!trim_span(&as, &an))
		return tb_fail(err, TB_ERR_SYNTAX, at, "printk format line without an address");
	if (an > 2 && as[0] == '0' && (as[1] == 'x' || as[1] == 'X')) {
		as += 2;
		an -= 2;
	}
	if (!tb_parse_hex64(as, an, &addr))
		return tb_fail(err, TB_ERR_SYNTAX, at, "printk format address is not hex");
	fs = s + colon + 1;
	fn = n - colon - 1;
	/* one space follows the colon */
	if (fn && fs[0] == ' ') {
		fs++;
		fn--;
	}
	if (fn && fs[fn - 1] == '\r')
		fn--;
	if (fn >= 2 && fs[0] == '"' && fs[fn - 1] == '"') {
		fs++;
		fn -= 2;
	}
	if (t->n >= t->cap)
		return tb_fail(err, TB_ERR_NO_SPACE, at, "printk table full");
	t->v[t->n].addr = addr;
	t->v[t->n].fmt = fs;
	t->v[t->n].fmt_len = fn;
	t->n++;
	return TB_OK;
}

tb_status tb_printk_parse(tb_printk_fmts *t, const char *text, size_t len,
			  tb_error *err)
{
	return parse_table(!t || (!text && len) || (!t->v && t->cap), t, t ? t->v : NULL,
			   t ? &t->n : NULL, sizeof(*t->v), printk_less, text, len, printk_line, err);
}

static uint64_t printk_key(const void *e)
{
	return ((const tb_printk_fmt *)e)->addr;
}

const tb_printk_fmt *tb_printk_find(const tb_printk_fmts *t, uint64_t addr)
{
	size_t i;
	if (!t || !t->v)
		return NULL;
	i = tb_lower_bound(t->v, t->n, sizeof(*t->v), addr, printk_key);
	return i < t->n && t->v[i].addr == addr ? &t->v[i] : NULL;
}
