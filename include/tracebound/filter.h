/*
 * tracebound: choosing events -- event lists, CPU lists, trace-cmd's
 * `report -F` filters, and the small regular-expression engine they use.
 *
 * Every text here is untrusted (a command line, a web form): each parser
 * has named limits with their own errors, reports the byte position of a
 * fault with a static description, never recurses and never allocates.
 * Compiled results live in caller storage (fixed-size structs); texts
 * are borrowed: a compiled list or filter points into the text it was
 * compiled from, which must stay valid and unchanged while it is used.
 *
 * The grammar, its limits and every place it differs from trace-cmd are
 * described in docs/filter.md.
 */
#ifndef TRACEBOUND_FILTER_H
#define TRACEBOUND_FILTER_H

#include "tracebound/status.h"
#include "tracebound/format.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ======================================================================
 * Regular expressions (POSIX ERE, or GNU BRE as trace-cmd's regcomp(3)
 * reads them), matched by a Thompson NFA simulation: time is bounded by
 * text length x states, whatever the pattern.  No back-references.
 * ====================================================================== */

#define TB_REGEX_MAX_LEN 256u     /* bytes of a pattern */
#define TB_REGEX_MAX_STATES 256u  /* NFA states of one pattern ({m,n} copies count) */
#define TB_REGEX_MAX_CLASSES 16u  /* bracket expressions / \w \s classes in one pattern */
#define TB_REGEX_MAX_DEPTH 16u    /* nested groups */
#define TB_REGEX_MAX_REPEAT 255u  /* m and n of an interval {m,n} (POSIX RE_DUP_MAX) */

/* tb_regex_compile flags */
#define TB_REGEX_BRE 0x01u       /* basic syntax: \( \) \| \{ \} \+ \? (GNU); default ERE */
#define TB_REGEX_ICASE 0x02u     /* ASCII letters match either case */
#define TB_REGEX_ANCHORED 0x04u  /* the whole text must match (as ^(re)$) */

typedef struct tb_regex {
	uint16_t nstates;
	uint16_t start;
	uint8_t nclasses;
	uint8_t flags;
	uint8_t op[TB_REGEX_MAX_STATES];
	uint8_t arg[TB_REGEX_MAX_STATES];
	uint16_t out[TB_REGEX_MAX_STATES];
	uint16_t out1[TB_REGEX_MAX_STATES];
	uint8_t classes[TB_REGEX_MAX_CLASSES][32];
} tb_regex;

/*
 * Compile pattern[0..len) (NUL bytes are errors, in [...] too), as
 * glibc's regcomp reads it (docs/filter.md: {,n} is {0,n}; ERE: '{'
 * always opens an interval, a ')' alone is a ')'; BRE: a '\}' alone is a
 * '}').  Errors, offset = the byte in the pattern: TB_ERR_SYNTAX
 * (unbalanced group or bracket, nothing to repeat, bad interval, a
 * repetition of an ERE anchor, BRE '*' or '\{' right after a repetition,
 * trailing backslash, range out of order), TB_ERR_UNSUPPORTED (back-references, \b \< \> word anchors,
 * [=x=] [.x.], unknown [:class:]), TB_ERR_LIMIT (the TB_REGEX_MAX_*),
 * TB_ERR_ARG.
 */
TB_API TB_MUST_CHECK tb_status tb_regex_compile(tb_regex *re, const char *pattern,
						size_t len, unsigned flags, tb_error *err);

/* 1 when the regex matches text[0..len) (anywhere, unless ANCHORED), else 0. */
TB_API int tb_regex_match(const tb_regex *re, const char *text, size_t len);

/* ======================================================================
 * Event lists: "sched_switch,irq:softirq_entry,sched,sched:*,sched_*"
 * ====================================================================== */

#define TB_SELECT_MAX_PATTERNS 64u  /* items of one list */
#define TB_SELECT_MAX_LEN 4096u     /* bytes of one list */
#define TB_SELECT_MAX_ITEM 256u     /* bytes of one item */

/*
 * Items separated by commas (blanks around an item are ignored).  An
 * item is NAME (an event name or a system name), or SYSTEM:EVENT; each
 * part may be a shell glob (* ? [abc] [a-z] [!x] [^x], \ quotes the next
 * character).  Case-sensitive, as tracefs names are.
 */
typedef struct tb_select_item {
	uint16_t sys_off, sys_len;    /* into the list text; sys_len 0: bare NAME */
	uint16_t name_off, name_len;
	uint16_t off, len;            /* the whole item as written (for messages) */
	uint8_t has_colon;
} tb_select_item;

typedef struct tb_select {
	const char *text;             /* the list (borrowed) */
	size_t len;
	size_t n;
	tb_select_item item[TB_SELECT_MAX_PATTERNS];
} tb_select;

/*
 * Parse a list.  Errors: TB_ERR_SYNTAX (empty item, empty part of
 * SYS:EVENT, a second ':', an unterminated [...], a trailing \),
 * TB_ERR_LIMIT (TB_SELECT_MAX_*), TB_ERR_ARG; offset = the byte in the list.
 */
TB_API TB_MUST_CHECK tb_status tb_select_parse(tb_select *sel, const char *list,
					       size_t len, tb_error *err);

/*
 * Does the event system:name match the list?  1 or 0.  *hits (optional)
 * gets bit i set for every item i that matches it, so that after
 * offering every event of a capture the caller knows which items
 * matched nothing (tb_select_item_text names them).
 */
TB_API int tb_select_match(const tb_select *sel, const char *system, size_t system_len,
			   const char *name, size_t name_len, uint64_t *hits);

/* Item i as written, for "no event matches 'X'" (NULL past the end). */
TB_API const char *tb_select_item_text(const tb_select *sel, size_t i, size_t *len);

/* A shell glob match (the item grammar above), 1 or 0. */
TB_API int tb_glob_match(const char *pattern, size_t plen, const char *text, size_t tlen);

/* ======================================================================
 * CPU lists: "0,2-3"
 * ====================================================================== */

#define TB_CPU_LIST_MAX 4096u   /* CPUs numbered 0..TB_CPU_LIST_MAX-1 at most */

/*
 * Parse "N", "N-M" items separated by commas (blanks around items
 * allowed) into mask (bit c of mask[c / 64]); mask_words words are
 * cleared first.  CPUs from ncpus on (the capture's CPU count; pass
 * TB_CPU_LIST_MAX for no capture limit) are TB_ERR_RANGE.  Errors, offset
 * = the byte in the list: TB_ERR_SYNTAX (junk, empty item, "1-"),
 * TB_ERR_VALUE (a range backwards, "3-1"), TB_ERR_RANGE (CPU >= ncpus),
 * TB_ERR_LIMIT (CPU >= TB_CPU_LIST_MAX), TB_ERR_NO_SPACE (a CPU past
 * mask_words * 64), TB_ERR_ARG.
 */
TB_API TB_MUST_CHECK tb_status tb_cpu_list_parse(const char *list, size_t len,
						 uint32_t ncpus, uint64_t *mask,
						 size_t mask_words, tb_error *err);

/* Is cpu in the mask? */
static inline int tb_cpu_list_has(const uint64_t *mask, size_t mask_words, uint32_t cpu)
{
	return (size_t)(cpu / 64u) < mask_words && ((mask[cpu / 64u] >> (cpu % 64u)) & 1u);
}

/* ======================================================================
 * trace-cmd report -F filters:  EVENTS [':' EXPRESSION]
 *
 *   EVENTS     = PATTERN [',' PATTERN]...     PATTERN = [SYSTEM '/'] EVENT
 *                (each part a regex anchored at both ends, case-insensitive,
 *                 a bare EVENT matching an event name or a system name)
 *   EXPRESSION = TERM [('&&' | '||') TERM]...   (left to right, one
 *                precedence, as trace-cmd; TB_FILTER_C_PRECEDENCE: && first)
 *   TERM       = '!' TERM | '(' EXPRESSION ')' | FIELD OP VALUE
 *                | FIELD ARITH NUMBER    (true when the result is not 0)
 *   OP         = == != < <= > >= (numbers)   == != =~ !~ (strings)
 *   ARITH      = & | ^ + - * / % << >>
 *
 * FIELD: an event or common field of the format, or COMM (the task's
 * name) or CPU when the format has no field of that name.  A comparison
 * whose field the event lacks is false (as in trace-cmd).  docs/filter.md
 * has the details.
 * ====================================================================== */

#define TB_FILTER_MAX_LEN 4096u     /* bytes of one filter text */
#define TB_FILTER_MAX_NODES 128u    /* program steps: comparisons, !, &&, || */
#define TB_FILTER_MAX_DEPTH 32u     /* nested parentheses and ! */
#define TB_FILTER_MAX_EVENTS 8u     /* patterns in the EVENTS part */
#define TB_FILTER_MAX_REGEX 8u      /* =~ and !~ in the expression */

/* tb_filter_compile flags */
#define TB_FILTER_NEGATE 0x01u        /* trace-cmd -v: matching events are hidden */
#define TB_FILTER_ERE 0x02u           /* regexes are POSIX ERE (default: GNU BRE, as trace-cmd) */
#define TB_FILTER_C_PRECEDENCE 0x04u  /* && binds tighter than || (default: trace-cmd's
					 left-to-right, one precedence) */

/* One step of a compiled filter (internal layout, caller storage). */
typedef struct tb_filter_node {
	uint8_t op;
	uint8_t cmp;
	uint8_t neg;        /* the literal is negative */
	uint8_t regex;      /* index into tb_filter.regex */
	uint16_t name_off;  /* field name: into the text */
	uint16_t name_len;
	uint16_t str_off;   /* string literal: into the text */
	uint16_t str_len;
	uint16_t pos;       /* byte of the comparison in the text (for tb_filter_check) */
	uint64_t num;       /* the literal's bits (two's complement when neg) */
} tb_filter_node;

typedef struct tb_filter_event {
	uint8_t has_sys;
	uint8_t sys_re, name_re;  /* indexes into tb_filter.regex */
} tb_filter_event;

typedef struct tb_filter {
	const char *text;   /* borrowed */
	size_t len;
	unsigned flags;
	uint16_t nnodes, nevents, nregex, pad_;
	tb_filter_node node[TB_FILTER_MAX_NODES];
	tb_filter_event event[TB_FILTER_MAX_EVENTS];
	tb_regex regex[2 * TB_FILTER_MAX_EVENTS + TB_FILTER_MAX_REGEX];
} tb_filter;

/*
 * Compile one -F text.  Errors (offset = the byte in the text, what = a
 * static description): TB_ERR_SYNTAX (grammar; the regexes' syntax
 * errors point into their pattern), TB_ERR_VALUE (a number over 64
 * bits, / or % by 0, a shift over 63), TB_ERR_UNSUPPORTED (regex
 * features), TB_ERR_LIMIT (TB_FILTER_MAX_*, TB_REGEX_MAX_*), TB_ERR_ARG.
 */
TB_API TB_MUST_CHECK tb_status tb_filter_compile(tb_filter *f, const char *text,
						 size_t len, unsigned flags, tb_error *err);

/* Does the filter's EVENTS part name the event system:name?  1 or 0. */
TB_API int tb_filter_applies(const tb_filter *f, const char *system, size_t system_len,
			     const char *name, size_t name_len);

/*
 * Check the expression against one format it applies to: TB_ERR_VALUE
 * for a field of the wrong kind (a string field compared with a number
 * or with <, an integer field with a string or a regex; offset = the
 * comparison's byte in the text), else TB_OK.  Fields the format lacks
 * are no error (trace-cmd's rule) but *found (optional, one bit per
 * comparison in text order, TB_FILTER_MAX_NODES bits = 2 words) gets
 * the bit of every comparison whose field the format has: OR it over
 * the formats to find a field no event has (tb_filter_field_ref).
 */
TB_API TB_MUST_CHECK tb_status tb_filter_check(const tb_filter *f, const tb_format *fmt,
					       uint64_t found[2], tb_error *err);

/* Comparison i (text order): its field name and byte offset.  0 past the end. */
TB_API int tb_filter_field_ref(const tb_filter *f, size_t i, const char **name,
			       size_t *name_len, size_t *offset);

/* What the evaluator needs of one record. */
typedef struct tb_filter_record {
	const tb_format *format;   /* NULL: no format (no filter applies) */
	const void *data;          /* the record from common_type on */
	size_t len;
	int big_endian;
	uint32_t cpu;              /* for CPU */
	const char *comm;          /* for COMM (trace-cmd's: "<idle>" for pid 0, "<...>") */
	size_t comm_len;
} tb_filter_record;

/*
 * Evaluate the expression on a record (whether the EVENTS part applies
 * is not looked at: see tb_filter_applies).  *match = 1 or 0.  A field
 * that cannot be read (record too short...) makes its comparison false;
 * the call then returns that read's error (and *match is still set),
 * else TB_OK.
 */
TB_API tb_status tb_filter_eval(const tb_filter *f, const tb_filter_record *rec,
				int *match, tb_error *err);

/*
 * trace-cmd's rule for several -F (and -v, TB_FILTER_NEGATE): an event
 * is shown when, if any positive filter exists, at least one positive
 * filter applies to it and is true, and no negative filter that applies
 * is true.  *show = 1 or 0; errors as tb_filter_eval (the first).
 */
TB_API tb_status tb_filter_select(const tb_filter *const *filters, size_t n,
				  const tb_filter_record *rec, int *show, tb_error *err);

/*
 * The same, with which filters apply to the record's event already known:
 * bit k of applies is tb_filter_applies(filters[k], its system and name),
 * found once per format by the caller instead of a regex match per event
 * and filter (a record without a format still has none apply).  n <= 64,
 * else TB_ERR_ARG.
 */
TB_API tb_status tb_filter_select_applying(const tb_filter *const *filters, size_t n,
					   uint64_t applies, const tb_filter_record *rec,
					   int *show, tb_error *err);

#ifdef __cplusplus
}
#endif

#endif /* TRACEBOUND_FILTER_H */
