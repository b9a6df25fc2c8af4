/*
 * One selection of events (selection.h): the events list, the CPUs, the
 * window and the -F filters, parsed once, compiled against each session,
 * and asked per event.
 */
#include "internal.h"
#include "tracebound/selection.h"

static tb_status sel_fail(tb_selection_error *err, tb_selection_part part, size_t index,
			  tb_status st, uint64_t offset, const char *what)
{
	if (err) {
		err->part = part;
		err->index = index;
		err->format = NULL;
		(void)tb_fail(&err->error, st, offset, what);
	}
	return st;
}

/* err from a parser's tb_error, said to be about part (index). */
static tb_status sel_from(tb_selection_error *err, tb_selection_part part, size_t index,
			  const tb_error *e)
{
	return sel_fail(err, part, index, e->status, e->offset, e->what);
}

tb_status tb_selection_init(tb_selection *sel, const tb_selection_spec *spec,
			    const tb_mem *mem, tb_selection_error *err)
{
	tb_error e;
	size_t i;
	(void)sel_fail(err, TB_SELECTION_NONE, 0, TB_OK, 0, "no error");
	if (!sel)
		return sel_fail(err, TB_SELECTION_NONE, 0, TB_ERR_ARG, 0, "NULL argument");
	memset(sel, 0, sizeof(*sel));
	if (!spec || !mem || !mem->alloc)
		return sel_fail(err, TB_SELECTION_NONE, 0, TB_ERR_ARG, 0, "NULL argument");
	sel->mem = *mem;
	sel->from = spec->from;
	sel->to = spec->to;
	sel->empty_window = spec->to < spec->from;
	sel->have_window = !sel->empty_window && (spec->from != 0 || spec->to != UINT64_MAX);
	if (spec->flags & TB_SELECTION_NO_EVENTS) {
		sel->no_events = 1;
	} else if (spec->events.ptr) {
		if (tb_select_parse(&sel->events, spec->events.ptr, spec->events.len, &e) != TB_OK)
			return sel_from(err, TB_SELECTION_EVENTS, 0, &e);
		sel->have_events = 1;
	}
	if (spec->cpu_mask) {
		size_t w = spec->cpu_words < TB_SELECTION_CPU_WORDS ? spec->cpu_words
								     : TB_SELECTION_CPU_WORDS;
		memcpy(sel->cpus, spec->cpu_mask, w * sizeof(uint64_t));
		sel->have_cpus = 1;
	} else if (spec->cpus.ptr) {
		if (tb_cpu_list_parse(spec->cpus.ptr, spec->cpus.len,
				      spec->ncpus ? spec->ncpus : TB_CPU_LIST_MAX, sel->cpus,
				      TB_SELECTION_CPU_WORDS, &e) != TB_OK)
			return sel_from(err, TB_SELECTION_CPUS, 0, &e);
		sel->have_cpus = 1;
	}
	if (spec->nfilters > TB_SELECTION_MAX_FILTERS)
		return sel_fail(err, TB_SELECTION_FILTER, TB_SELECTION_MAX_FILTERS, TB_ERR_LIMIT, 0,
				"more filters than TB_SELECTION_MAX_FILTERS");
	for (i = 0; i < spec->nfilters; i++) {
		int negate = i >= spec->negate_from;
		sel->flt[i] = mem->alloc(mem->ctx, sizeof(tb_filter));
		if (!sel->flt[i])
			return sel_fail(err, TB_SELECTION_FILTER, i, TB_ERR_NO_SPACE, 0,
					"no memory for a filter");
		sel->nflt++;
		sel->filter_text[i] = spec->filters[i];
		if (!negate)
			sel->any_positive = 1;
		if (tb_filter_compile(sel->flt[i], spec->filters[i].ptr, spec->filters[i].len,
				      negate ? TB_FILTER_NEGATE : 0u, &e) != TB_OK)
			return sel_from(err, TB_SELECTION_FILTER, i, &e);
	}
	return TB_OK;
}

/* The slot of f, or the empty one where it would go (bits > 0). */
static tb_selection_verdict *verdict_slot(const tb_selection *sel, const tb_format *f)
{
	size_t mask = ((size_t)1 << sel->bits) - 1;
	size_t i = (size_t)(((uint64_t)(uintptr_t)f * 0x9e3779b97f4a7c15ull) >> (64 - sel->bits));
	while (sel->slot[i].f && sel->slot[i].f != f)
		i = (i + 1) & mask;
	return &sel->slot[i];
}

/* Room for more verdicts: at least twice `want` slots.  0, or -1 when mem
 * refused (the old table is kept). */
static int verdicts_reserve(tb_selection *sel, size_t want)
{
	tb_selection_verdict *old = sel->slot;
	size_t oldn = sel->bits ? (size_t)1 << sel->bits : 0, i;
	unsigned bits = sel->bits ? sel->bits : 4;
	while (((size_t)1 << bits) < 2 * want) {
		if (bits >= 8 * sizeof(size_t) - 8)
			return -1;
		bits++;
	}
	if (bits == sel->bits)
		return 0;
	sel->slot = sel->mem.alloc(sel->mem.ctx, ((size_t)1 << bits) * sizeof(*old));
	if (!sel->slot) {
		sel->slot = old;
		return -1;
	}
	memset(sel->slot, 0, ((size_t)1 << bits) * sizeof(*old));
	sel->bits = bits;
	for (i = 0; i < oldn; i++)
		if (old[i].f)
			*verdict_slot(sel, old[i].f) = old[i];
	if (old && sel->mem.free)
		sel->mem.free(sel->mem.ctx, old, oldn * sizeof(*old));
	return 0;
}

/* Can the events list and the filters show events of this format?
 * (The filters decide on the record, only where one applies.) */
static int may_show(const tb_selection *sel, const tb_selection_verdict *v)
{
	return (!sel->have_events || v->keep) && (!sel->nflt || !sel->any_positive || v->applies);
}

/* The ids of the formats that may be shown, handed to s: only when an
 * event without a format is hidden anyway (an events list, or a filter
 * that shows what it matches), so that leaving out the ids of no format
 * changes nothing.  An id past 2 bytes: no set (tb_selection_match still
 * decides every event). */
static tb_status keep_ids(tb_selection *sel, struct tb_selection_bound *b,
			  tb_selection_error *err)
{
	tb_session *s = b->s;
	size_t n = tb_session_get_info(s)->nformats, words = 1, k;
	uint32_t id;
	const tb_format *f;
	if (!sel->have_events && !sel->any_positive && !sel->no_events)
		return TB_OK;
	for (k = 0; k < n; k++)
		if (tb_session_format_at(s, k, NULL, NULL, &id) && id / 64u + 1u > words)
			words = id / 64u + 1u;
	if (words > TB_SESSION_KEEP_ID_WORDS)
		return TB_OK;
	b->ids = sel->mem.alloc(sel->mem.ctx, words * sizeof(uint64_t));
	if (!b->ids)
		return sel_fail(err, TB_SELECTION_SESSION, sel->nbound, TB_ERR_NO_SPACE, 0,
				"no memory for the ids kept");
	b->words = words;
	memset(b->ids, 0, words * sizeof(uint64_t));
	for (k = 0; !sel->no_events && k < n; k++)
		if (tb_session_format_at(s, k, NULL, NULL, &id) &&
		    (f = tb_session_format(s, id)) != NULL && may_show(sel, verdict_slot(sel, f)))
			b->ids[id / 64u] |= 1ull << (id % 64u);
	tb_session_keep_ids(s, b->ids, words);
	return TB_OK;
}

tb_status tb_selection_bind(tb_selection *sel, tb_session *s, tb_selection_error *err)
{
	struct tb_selection_bound *b;
	const tb_session_info *info;
	tb_error e;
	size_t k, i;
	tb_status st;
	(void)sel_fail(err, TB_SELECTION_NONE, 0, TB_OK, 0, "no error");
	if (!sel || !s)
		return sel_fail(err, TB_SELECTION_SESSION, 0, TB_ERR_ARG, 0, "NULL argument");
	if (sel->nbound == TB_SELECTION_MAX_SESSIONS)
		return sel_fail(err, TB_SELECTION_SESSION, sel->nbound, TB_ERR_LIMIT, 0,
				"more sessions than TB_SELECTION_MAX_SESSIONS");
	info = tb_session_get_info(s);
	b = &sel->bound[sel->nbound];
	b->s = s;
	b->ids = NULL;
	b->words = 0;
	sel->nbound++;
	/* every format: which items and filters meet it (parsing all of them,
	 * 2,300 on a recent kernel, is 10-15 ms: only when something selects) */
	if (sel->have_events || sel->nflt) {
		if (verdicts_reserve(sel, sel->used + info->nformats) != 0)
			return sel_fail(err, TB_SELECTION_SESSION, sel->nbound - 1, TB_ERR_NO_SPACE, 0,
					"no memory for the formats' verdicts");
		for (k = 0; k < info->nformats; k++) {
			uint32_t id;
			const tb_format *f;
			tb_selection_verdict *v;
			if (!tb_session_format_at(s, k, NULL, NULL, &id) ||
			    !(f = tb_session_format(s, id)))
				continue;
			v = verdict_slot(sel, f);
			if (!v->f)
				sel->used++;
			v->f = f;
			if (sel->have_events)
				v->keep = tb_select_match(&sel->events, f->system, f->system_len,
							  f->name, f->name_len, &sel->hits);
			for (i = 0; i < sel->nflt; i++) {
				if (!tb_filter_applies(sel->flt[i], f->system, f->system_len, f->name,
						       f->name_len))
					continue;
				sel->applies |= 1ull << i;
				v->applies |= 1ull << i;
				if (tb_filter_check(sel->flt[i], f, NULL, &e) != TB_OK) {
					(void)sel_from(err, TB_SELECTION_FILTER, i, &e);
					if (err)
						err->format = f;
					return e.status;
				}
			}
		}
	}
	if ((st = keep_ids(sel, b, err)) != TB_OK)
		return st;
	if (sel->have_cpus)
		tb_session_keep_cpus(s, sel->cpus, TB_SELECTION_CPU_WORDS);
	if (sel->have_window && tb_session_set_window(s, sel->from, sel->to) != TB_OK)
		return sel_fail(err, TB_SELECTION_SESSION, sel->nbound - 1, TB_ERR_ARG, 0,
				"the window ends before it starts");
	return TB_OK;
}

tb_status tb_selection_check(const tb_selection *sel, tb_selection_error *err)
{
	size_t i;
	(void)sel_fail(err, TB_SELECTION_NONE, 0, TB_OK, 0, "no error");
	if (!sel)
		return sel_fail(err, TB_SELECTION_NONE, 0, TB_ERR_ARG, 0, "NULL argument");
	for (i = 0; sel->have_events && i < sel->events.n; i++)
		if (!(sel->hits >> i & 1u))
			return sel_fail(err, TB_SELECTION_EVENTS, i, TB_NOT_FOUND,
					sel->events.item[i].off, "no event matches it");
	for (i = 0; i < sel->nflt; i++)
		if (!(sel->applies >> i & 1u))
			return sel_fail(err, TB_SELECTION_FILTER, i, TB_NOT_FOUND, 0,
					"no event of the capture matches it");
	return TB_OK;
}

int tb_selection_all(const tb_selection *sel)
{
	return !sel || (!sel->have_cpus && !sel->have_events && !sel->nflt && !sel->no_events &&
			!sel->have_window && !sel->empty_window);
}

int tb_selection_match(const tb_selection *sel, const tb_session *s, const tb_session_event *ev)
{
	const tb_format *f;
	const tb_selection_verdict *v;
	if (tb_selection_all(sel))
		return 1;
	if (!s || !ev || sel->no_events || sel->empty_window)
		return 0;
	f = ev->format;
	if (sel->have_cpus && !tb_cpu_list_has(sel->cpus, TB_SELECTION_CPU_WORDS, ev->cpu))
		return 0;
	if (sel->have_window && (ev->ts < sel->from || ev->ts > sel->to))
		return 0;
	/* f's verdict (v->f NULL for a format no bound session listed: none
	 * should come, and it is then matched here) */
	v = f && sel->bits ? verdict_slot(sel, f) : NULL;
	if (v && !v->f)
		v = NULL;
	if (sel->have_events &&
	    !(f && (v ? v->keep
		      : tb_select_match(&sel->events, f->system, f->system_len, f->name,
					f->name_len, NULL))))
		return 0;
	if (sel->nflt) {
		tb_filter_record r;
		tb_error e;
		int show = 0;
		if (!f || (v && !v->applies))
			return !sel->any_positive; /* trace-cmd's rule when no filter applies */
		r.format = f;
		r.data = ev->data;
		r.len = ev->len;
		r.big_endian = tb_session_get_info(s)->big_endian;
		r.cpu = ev->cpu;
		r.comm = ev->comm;
		r.comm_len = ev->comm_len;
		if (v)
			(void)tb_filter_select_applying((const tb_filter *const *)sel->flt, sel->nflt,
							v->applies, &r, &show, &e);
		else
			(void)tb_filter_select((const tb_filter *const *)sel->flt, sel->nflt, &r,
					       &show, &e);
		return show;
	}
	return 1;
}

const char *tb_selection_item(const tb_selection *sel, size_t i, size_t *len)
{
	if (!sel || !sel->have_events) {
		if (len)
			*len = 0;
		return NULL;
	}
	return tb_select_item_text(&sel->events, i, len);
}

void tb_selection_free(tb_selection *sel)
{
	size_t i;
	if (!sel)
		return;
	for (i = 0; sel->mem.free && i < sel->nflt; i++)
		sel->mem.free(sel->mem.ctx, sel->flt[i], sizeof(tb_filter));
	for (i = 0; sel->mem.free && i < sel->nbound; i++)
		if (sel->bound[i].ids)
			sel->mem.free(sel->mem.ctx, sel->bound[i].ids,
				      sel->bound[i].words * sizeof(uint64_t));
	if (sel->slot && sel->mem.free)
		sel->mem.free(sel->mem.ctx, sel->slot,
			      ((size_t)1 << sel->bits) * sizeof(*sel->slot));
	memset(sel, 0, sizeof(*sel));
}
