/*
 * tracebound: one selection of events -- which events, which CPUs, which
 * time window and which filters -- as every tool takes it (report's
 * --events / --cpu / --from / --to / -F, Python's name / cpus / start /
 * end).
 *
 *   1. tb_selection_init() parses the texts (syntax errors here, with the
 *      option and the byte in its text);
 *   2. tb_selection_bind() compiles it against each session it will
 *      walk: it finds what each item and filter meets among the session's
 *      formats and hands the session what its walk can leave out without
 *      describing it (tb_session_keep_ids, tb_session_keep_cpus, the
 *      window);
 *   3. tb_selection_check() says, once every session is bound, which item
 *      or filter met no event format in any of them;
 *   4. tb_selection_match() decides each event the walk gives (-F's
 *      expressions are evaluated here).  Read-only: threads walking parts
 *      of the bound sessions share one selection.
 *
 * The name rule of the events list (docs/selection.md): items separated
 * by commas; `NAME` is an event name or a system name, `SYSTEM:EVENT` one
 * event of one system; each part may be a shell glob (`sched:*`,
 * `*:sched_switch`, `sched_*`, `irq:softirq_[er]*`).  Case-sensitive.
 *
 * Memory comes from the caller's tb_mem (the filters, a table of the
 * formats' verdicts linear in the formats bound, the ids kept per
 * session); nothing else is allocated.  Texts are borrowed: they must
 * outlive the selection.
 */
#ifndef TRACEBOUND_SELECTION_H
#define TRACEBOUND_SELECTION_H

#include "tracebound/filter.h"
#include "tracebound/session.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TB_SELECTION_MAX_FILTERS 16u   /* -F filters of one selection */
#define TB_SELECTION_MAX_SESSIONS 64u  /* sessions bound to one selection */
#define TB_SELECTION_CPU_WORDS 128u    /* CPUs 0..8191 in a cpu_mask */

/* The option of a selection an error is about. */
typedef enum tb_selection_part {
	TB_SELECTION_NONE = 0,
	TB_SELECTION_EVENTS,   /* the events list */
	TB_SELECTION_CPUS,     /* the CPU list */
	TB_SELECTION_FILTER,   /* filter number `index` */
	TB_SELECTION_SESSION   /* tb_selection_bind's session (too many, memory) */
} tb_selection_part;

/* An error of a selection: error.offset is the byte in the text of that
 * option (the events list, the CPU list, filter `index`'s text). */
typedef struct tb_selection_error {
	tb_error error;
	tb_selection_part part;
	size_t index;            /* EVENTS: the item; FILTER: the filter */
	const tb_format *format; /* a filter that does not fit this format */
} tb_selection_error;

/* What to select: ptr NULL (or 0 filters) selects by nothing. */
typedef struct tb_selection_spec {
	tb_span events;                /* an events list (the name rule above) */
	tb_span cpus;                  /* a CPU list, "0,2-3" */
	uint32_t ncpus;                /* CPUs in cpus must be below this (0: TB_CPU_LIST_MAX) */
	const uint64_t *cpu_mask;      /* instead of cpus: these CPUs' bits (not checked) */
	size_t cpu_words;              /* words of cpu_mask (at most TB_SELECTION_CPU_WORDS used) */
	uint64_t from, to;             /* only from <= ts <= to (0, UINT64_MAX: every time;
					  to < from: no event at all) */
	tb_span filters[TB_SELECTION_MAX_FILTERS]; /* report -F texts (filter.h) */
	size_t nfilters;
	size_t negate_from;            /* the filters from this one on hide what they match
					  (trace-cmd's -v); >= nfilters: none */
	unsigned flags;                /* TB_SELECTION_NO_EVENTS */
} tb_selection_spec;

/* Select no event at all (Python's name=[]): events is then ignored. */
#define TB_SELECTION_NO_EVENTS 0x1u

/* A format's verdict (internal to lib/selection.c). */
typedef struct tb_selection_verdict {
	const tb_format *f;     /* NULL: an empty slot */
	uint64_t applies;       /* bit i: filter i applies to it */
	int keep;               /* the events list keeps it */
} tb_selection_verdict;

/* Caller storage; every field is the library's. */
typedef struct tb_selection {
	tb_mem mem;
	tb_select events;
	int have_events, no_events;
	uint64_t cpus[TB_SELECTION_CPU_WORDS];
	int have_cpus;
	uint64_t from, to;
	int have_window, empty_window;
	tb_filter *flt[TB_SELECTION_MAX_FILTERS];
	tb_span filter_text[TB_SELECTION_MAX_FILTERS];
	size_t nflt;
	int any_positive;             /* a filter that shows what it matches */
	tb_selection_verdict *slot;   /* open addressing on the format pointer */
	unsigned bits;                /* 1 << bits slots (0: no table) */
	size_t used;
	uint64_t hits, applies;       /* items / filters that met a format */
	struct tb_selection_bound {
		tb_session *s;
		uint64_t *ids;            /* handed to tb_session_keep_ids */
		size_t words;
	} bound[TB_SELECTION_MAX_SESSIONS];
	size_t nbound;
} tb_selection;

/*
 * Parse spec into sel (all of sel is set; tb_selection_free after any
 * return).  Errors: the events list's (tb_select_parse; part EVENTS), the
 * CPU list's (tb_cpu_list_parse against spec->ncpus; part CPUS), a
 * filter's (tb_filter_compile; part FILTER, index), TB_ERR_LIMIT over
 * TB_SELECTION_MAX_FILTERS, TB_ERR_NO_SPACE when mem refused a filter,
 * TB_ERR_ARG.
 */
TB_API TB_MUST_CHECK tb_status tb_selection_init(tb_selection *sel,
						 const tb_selection_spec *spec,
						 const tb_mem *mem, tb_selection_error *err);

/*
 * Compile sel against s (every format of s is parsed when an events list
 * or a filter is given) and hand s what its walk may leave out: the ids
 * of the formats that can be shown (when an event without a format is
 * hidden anyway), the CPUs, the window.  s keeps pointers into sel's
 * memory: close s, or call tb_session_keep_ids(s, NULL, 0), before
 * tb_selection_free.  Errors: a filter that names a field s's format
 * lacks or compares it the wrong way (tb_filter_check; part FILTER, index,
 * format), TB_ERR_LIMIT past TB_SELECTION_MAX_SESSIONS, TB_ERR_NO_SPACE
 * when mem refused (part SESSION), TB_ERR_ARG.
 */
TB_API TB_MUST_CHECK tb_status tb_selection_bind(tb_selection *sel, tb_session *s,
						 tb_selection_error *err);

/*
 * After binding every session: TB_NOT_FOUND for the first events item
 * that met no format of any of them (part EVENTS, index, offset = the
 * item's byte in the list), else for the first filter that applies to
 * none (part FILTER, index); else TB_OK.
 */
TB_API TB_MUST_CHECK tb_status tb_selection_check(const tb_selection *sel,
						  tb_selection_error *err);

/* 1 when nothing selects (every event is shown: no call per event needed). */
TB_API int tb_selection_all(const tb_selection *sel);

/*
 * Is ev (from a bound session s, or a part of one) selected?  1 or 0.
 * Damaged events (TB_SEV_DAMAGED) are the caller's to show.  An event
 * without a format is hidden by an events list and by a filter that shows
 * what it matches; a filter that cannot read its record's field does not
 * show it (filter.h).
 */
TB_API int tb_selection_match(const tb_selection *sel, const tb_session *s,
			      const tb_session_event *ev);

/* Item i of the events list as written (NULL past the end), for messages. */
TB_API const char *tb_selection_item(const tb_selection *sel, size_t i, size_t *len);

/* Give sel's memory back (sel then selects nothing until the next init). */
TB_API void tb_selection_free(tb_selection *sel);

#ifdef __cplusplus
}
#endif

#endif
