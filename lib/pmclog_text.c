/*
 * pmclog records as text: a line as `pmcstat -R` prints it, or a JSON
 * object, both read from the record table (pmclog_table.c) into the one
 * text sink.  The CLI's `pmclog` and anything else that shows a record
 * print these bytes.
 */
#include <string.h>

#include "tracebound/pmclog.h"
#include "digits.h"
#include "pmclog_field.h"

/* v's digits (hex or decimal) at p: returns how many (20 at most);
 * writes 24 bytes at most (the fast writers' whole groups). */
TB_ALWAYS_INLINE size_t digits_at(char *p, uint64_t v, int hex)
{
	return hex ? tb_hex_fast(p, v) : tb_dec_fast(p, v);
}

/* n bytes written into the tail, the last of them `last`: said without
 * reading it back (a byte read just after a wider store of it waits for
 * the store), as tb_text_advance would. */
TB_ALWAYS_INLINE void text_landed(tb_text *t, size_t n, char last)
{
	t->len += n;
	t->need += n;
	t->last = (unsigned char)last;
}

/* The last digit of v, hex or decimal. */
TB_ALWAYS_INLINE char last_digit(uint64_t v, int hex)
{
	static const char digits[] = "0123456789abcdef";
	return digits[hex ? v & 15u : v % 10u];
}

/* The number of tb_text_u64 / tb_text_hex, written in place when there
 * is room (the per-record path: a sampling log is mostly PC numbers). */
static void put_num(tb_text *t, uint64_t v, int hex)
{
	size_t room;
	char *p = tb_text_tail(t, &room);
	if (p && room > 24) { /* 20 digits at most, and the writers' 8-byte stores */
		text_landed(t, digits_at(p, v, hex), last_digit(v, hex));
		return;
	}
	if (hex) /* near the end of the buffer: the sink's own writers */
		tb_text_hex(t, v, 0, 0);
	else
		tb_text_u64(t, v, 0, 0);
}

static void put_hex(tb_text *t, uint64_t v)
{
	tb_text_put(t, "0x", 2);
	put_num(t, v, 1);
}

static void put_i64(tb_text *t, int64_t v)
{
	if (v < 0)
		tb_text_putc(t, '-');
	put_num(t, v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v, 0);
}

/* A name padded to 9 columns, as printf's %-9s. */
static void put_entry(tb_text *t, const char *name)
{
	size_t n = strlen(name);
	tb_text_put(t, name, n);
	tb_text_fill(t, ' ', n < 9 ? 9 - n : 0);
}

/* A string from the log in double quotes, as pmcstat's text shows it:
 * '"' and '\\' escaped, bytes outside 0x20..0x7e as \xNN. */
static void put_quoted(tb_text *t, tb_pmclog_str s)
{
	static const char hex[] = "0123456789abcdef";
	size_t i, run = 0;
	tb_text_putc(t, '"');
	for (i = 0; i < s.len; i++) {
		unsigned char c = (unsigned char)s.ptr[i];
		if (c >= 0x20 && c <= 0x7e && c != '"' && c != '\\') {
			run++;
			continue;
		}
		tb_text_put(t, s.ptr + i - run, run);
		run = 0;
		tb_text_putc(t, '\\');
		if (c == '"' || c == '\\') {
			tb_text_putc(t, (char)c);
		} else {
			char x[3] = { 'x', hex[c >> 4], hex[c & 15u] };
			tb_text_put(t, x, 3);
		}
	}
	if (run)
		tb_text_put(t, s.ptr + s.len - run, run);
	tb_text_putc(t, '"');
}

static const char *part_name(uint8_t type)
{
	switch (type) {
	case TB_PMCLOG_PART_IBS_FETCH: return "ibs-fetch";
	case TB_PMCLOG_PART_IBS_OP: return "ibs-op";
	case TB_PMCLOG_PART_CALLCHAIN: return "kcallchain";
	default: return "part";
	}
}

/* Slots [first, end) of a CALLCHAIN as " 0x%x" each (on the line), as
 * "\n...       0x%x" lines, or as JSON ",%llu" (no comma before slot 0).
 * A slot past npc reads as 0, as tb_pmclog_cc_slot. */
enum { SLOT_SAME_LINE, SLOT_LINES, SLOT_JSON };

static void put_slots(tb_text *t, const tb_pmclog_event *ev, uint32_t first, uint32_t end,
		      int how)
{
	static const char *const lead[] = { " 0x", "\n...       0x", "," };
	static const size_t lead_len[] = { 3, 13, 1 };
	uint64_t pcs[64];
	while (first < end) {
		uint32_t want = end - first < 64 ? end - first : 64, k = 0;
		uint32_t n = tb_pmclog_cc_copy(ev, first, pcs, want);
		size_t room;
		char *p = tb_text_tail(t, &room), *q = p;
		for (; n < want; n++)
			pcs[n] = 0;
		/* a block at once when it fits (13 + 24 bytes a slot at most),
		 * each way its own loop: the leads are copied as constants */
		if (p && room > (size_t)64 * 40) {
			if (how == SLOT_JSON) {
				if (first == 0 && n)
					q += tb_dec_fast(q, pcs[k++]);
				for (; k < n; k++) {
					*q++ = ',';
					q += tb_dec_fast(q, pcs[k]);
				}
			} else if (how == SLOT_LINES) {
				for (; k < n; k++) {
					memcpy(q, "\n...       0x", 13);
					q += 13 + tb_hex_fast(q + 13, pcs[k]);
				}
			} else {
				for (; k < n; k++) {
					memcpy(q, " 0x", 3);
					q += 3 + tb_hex_fast(q + 3, pcs[k]);
				}
			}
			if (n)
				text_landed(t, (size_t)(q - p), last_digit(pcs[n - 1], how != SLOT_JSON));
		}
		for (; k < n; k++) {
			if (how != SLOT_JSON || first + k)
				tb_text_put(t, lead[how], lead_len[how]);
			put_num(t, pcs[k], how != SLOT_JSON);
		}
		first += n;
	}
}

/* The parts other than the kernel callchain, one line each, then the
 * PCs, one line each. */
static void put_cc_lines(tb_text *t, const tb_pmclog_event *ev)
{
	uint32_t k;
	for (k = 0; k < ev->u.cc.nparts; k++) {
		const tb_pmclog_part *pt = &ev->u.cc.parts[k];
		if (pt->type == TB_PMCLOG_PART_CALLCHAIN)
			continue; /* its slots are printed as PCs */
		tb_text_putc(t, '\n');
		put_entry(t, part_name(pt->type));
		put_slots(t, ev, pt->first, pt->first + pt->nslots, SLOT_SAME_LINE);
	}
	put_slots(t, ev, ev->u.cc.pc_first, ev->u.cc.npc, SLOT_LINES);
}

static void text_field(tb_text *t, const tb_pmclog_field *f, const tb_pmclog_event *ev)
{
	tb_pmclog_value v;
	tb_pmclog_field_value(f, ev, &v);
	if (f->text != TB_PMCLOG_T_LINES)
		tb_text_putc(t, ' ');
	switch (f->text) {
	case TB_PMCLOG_T_HEX: put_hex(t, v.u); break;
	case TB_PMCLOG_T_DEC:
		if (f->kind == TB_PMCLOG_F_I32)
			put_i64(t, v.i[0]);
		else
			put_num(t, v.u, 0);
		break;
	case TB_PMCLOG_T_STR: put_quoted(t, v.s); break;
	case TB_PMCLOG_T_USER: tb_text_putc(t, v.u ? 'u' : 's'); break;
	case TB_PMCLOG_T_CPU: put_num(t, v.u >> 16, 0); break;
	case TB_PMCLOG_T_CCUSER: tb_text_putc(t, v.u & TB_PMCLOG_CC_USERSPACE ? 'u' : 's'); break;
	case TB_PMCLOG_T_DEPTH: put_num(t, (uint32_t)(ev->u.cc.npc - ev->u.cc.pc_first), 0); break;
	default: put_cc_lines(t, ev); break;
	}
}

/* Places on a text line: more than any row has (6). */
#define TEXT_PLACES 16u

TB_API void tb_pmclog_text(tb_text *t, const tb_pmclog_event *ev)
{
	const tb_pmclog_record *r = tb_pmclog_record_of(ev->type);
	const tb_pmclog_field *at[TEXT_PLACES], *f;
	unsigned pos;
	put_entry(t, r->pmcstat);
	if (ev->type == TB_PMCLOG_UNKNOWN) {
		tb_text_put(t, " type=", 6);
		put_num(t, ev->raw_type, 0);
		tb_text_put(t, " len=", 5);
		put_num(t, ev->len, 0);
	}
	/* The fields in the line's order: the first present field of each
	 * place holds it, up to the first place none holds (one pass over
	 * the row, not one a place). */
	memset(at, 0, sizeof(at));
	for (f = r->fields; f->kind != TB_PMCLOG_F_END; f++)
		if (f->text_pos && f->text_pos < TEXT_PLACES && !at[f->text_pos] &&
		    tb_pmclog_field_present(f, ev))
			at[f->text_pos] = f;
	for (pos = 1; pos < TEXT_PLACES && at[pos]; pos++)
		text_field(t, at[pos], ev);
	if (pos == 1 && ev->type != TB_PMCLOG_UNKNOWN)
		tb_text_putc(t, ' '); /* no fields: "closelog  " */
	tb_text_putc(t, '\n');
}

static void json_key(tb_text *t, const char *key, int first)
{
	if (!first)
		tb_text_putc(t, ',');
	tb_text_putc(t, '"');
	tb_text_puts(t, key);
	tb_text_put(t, "\":", 2);
}

static void json_timespec(tb_text *t, int64_t sec, int64_t nsec)
{
	tb_text_put(t, "{\"tv_sec\":", 10);
	put_i64(t, sec);
	tb_text_put(t, ",\"tv_nsec\":", 11);
	put_i64(t, nsec);
	tb_text_putc(t, '}');
}

static void json_parts(tb_text *t, const tb_pmclog_event *ev)
{
	uint32_t i;
	tb_text_putc(t, '[');
	for (i = 0; i < ev->u.cc.nparts; i++) {
		tb_text_put(t, &",{\"type\":"[i == 0], i == 0 ? 8u : 9u);
		put_num(t, ev->u.cc.parts[i].type, 0);
		tb_text_put(t, ",\"first\":", 9);
		put_num(t, ev->u.cc.parts[i].first, 0);
		tb_text_put(t, ",\"nslots\":", 10);
		put_num(t, ev->u.cc.parts[i].nslots, 0);
		tb_text_putc(t, '}');
	}
	tb_text_putc(t, ']');
}

TB_API void tb_pmclog_json(tb_text *t, const tb_pmclog_event *ev)
{
	const tb_pmclog_record *r = tb_pmclog_record_of(ev->type);
	const tb_pmclog_field *f;
	int first = 1;
	tb_text_put(t, "{\"offset\":", 10);
	put_num(t, ev->offset, 0);
	tb_text_put(t, ",\"type\":\"", 9);
	tb_text_puts(t, r->name);
	if (ev->legacy) {
		tb_text_put(t, "\",\"ts\":", 7);
		json_timespec(t, ev->ts_sec, ev->ts_nsec);
	} else {
		tb_text_put(t, "\",\"tsc\":", 8);
		put_num(t, ev->tsc, 0);
	}
	tb_text_put(t, ",\"fields\":{", 11);
	for (f = r->fields; f->kind != TB_PMCLOG_F_END; f++) {
		tb_pmclog_value v;
		if (!f->key || !tb_pmclog_field_present(f, ev))
			continue;
		json_key(t, f->key, first);
		first = 0;
		tb_pmclog_field_value(f, ev, &v);
		switch (f->kind) {
		case TB_PMCLOG_F_I32: put_i64(t, v.i[0]); break;
		case TB_PMCLOG_F_STR: tb_json_str(t, v.s.ptr, v.s.len); break;
		case TB_PMCLOG_F_TIMESPEC: json_timespec(t, v.i[0], v.i[1]); break;
		case TB_PMCLOG_F_PCS:
			tb_text_putc(t, '[');
			put_slots(t, ev, 0, ev->u.cc.npc, SLOT_JSON);
			tb_text_putc(t, ']');
			break;
		case TB_PMCLOG_F_PARTS: json_parts(t, ev); break;
		default: put_num(t, v.u, 0); break;
		}
	}
	tb_text_put(t, "}}\n", 3);
}
