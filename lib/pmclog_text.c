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

/*
 * A record is written through a cursor: straight into the sink's tail
 * when the tail holds the most the record's fixed part can take (one
 * check a record, RECORD_MOST) and each run of slots (one check a block);
 * else piece by piece through a small scratch handed to tb_text_put,
 * which stores what fits and counts the rest.  A piece is at most PIECE
 * bytes, the digit writers' whole 8- and 16-byte stores included.
 */
#define PIECE 96u
#define TEXT_PLACES 16u /* places on a text line: more than any row has (6) */
#define FIELD_MOST 64u /* one field's piece: ",\"entryaddr\":" and 20 digits */
#define HEAD_MOST 256u /* the line's or the object's head */

typedef struct cur {
	tb_text *t;
	char *end;     /* direct: the tail's end */
	char *scratch; /* NULL: direct into the tail; else tmp */
	char tmp[PIECE];
} cur;

/* Where the record's next bytes go: the tail when it holds `most`. */
static char *cur_open(cur *c, tb_text *t, size_t most)
{
	size_t room;
	char *p = tb_text_tail(t, &room);
	c->t = t;
	if (p && room > most) {
		c->scratch = NULL;
		c->end = p + room;
		return p;
	}
	c->scratch = c->tmp;
	c->end = NULL;
	return c->tmp;
}

/* The bytes written into the tail up to p, counted in the sink. */
static void cur_land(cur *c, char *p)
{
	tb_text *t = c->t;
	size_t n = (size_t)(p - (t->buf + t->len));
	if (n) {
		t->len += n;
		t->need += n;
		t->last = (unsigned char)p[-1];
	}
}

/* A piece ends at p: from the scratch, it goes to the sink. */
TB_ALWAYS_INLINE char *cur_piece(cur *c, char *p)
{
	if (c->scratch) {
		tb_text_put(c->t, c->scratch, (size_t)(p - c->scratch));
		return c->scratch;
	}
	return p;
}

/* Room for n more bytes at p, else the rest through the scratch. */
TB_ALWAYS_INLINE char *cur_room(cur *c, char *p, size_t n)
{
	if (c->scratch || (size_t)(c->end - p) > n)
		return p;
	cur_land(c, p);
	c->scratch = c->tmp;
	return c->tmp;
}

/* The sink as it stands at p, for a writer that uses it itself (strings):
 * cur_open again after it. */
static tb_text *cur_sync(cur *c, char *p)
{
	if (c->scratch)
		(void)cur_piece(c, p);
	else
		cur_land(c, p);
	return c->t;
}

/* The record ends at p with '\n' (written). */
static void cur_close(cur *c, char *p)
{
	tb_text *t = c->t;
	size_t n;
	if (c->scratch) {
		(void)cur_piece(c, p);
		return;
	}
	n = (size_t)(p - (t->buf + t->len));
	t->len += n;
	t->need += n;
	t->last = '\n';
}

TB_ALWAYS_INLINE char *w_dec(char *p, uint64_t v)
{
	return p + tb_dec_fast(p, v);
}

TB_ALWAYS_INLINE char *w_i64(char *p, int64_t v)
{
	*p = '-';
	p += v < 0;
	return w_dec(p, v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v);
}

/* A number field's value: I32 signed, the others unsigned. */
TB_ALWAYS_INLINE char *w_num(char *p, const tb_pmclog_field *f, uint64_t v)
{
	return f->kind == TB_PMCLOG_F_I32 ? w_i64(p, (int64_t)v) : w_dec(p, v);
}

TB_ALWAYS_INLINE char *w_hex(char *p, uint64_t v)
{
	p[0] = '0';
	p[1] = 'x';
	return p + 2 + tb_hex_fast(p + 2, v);
}

/* A short string of n bytes (a name or key, under PIECE / 2; its
 * length from the table). */
TB_ALWAYS_INLINE char *w_str(char *p, const char *s, size_t n)
{
	tb_copy_short(p, s, n);
	return p + n;
}

/* A name of n bytes padded to 9 columns, as printf's %-9s. */
TB_ALWAYS_INLINE char *w_entry(char *p, const char *name, size_t n)
{
	memset(p, ' ', 16);
	tb_copy_short(p, name, n);
	return p + (n < 9 ? 9 : n);
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

/* Every amd64 kernel address (from 0xffffffff80000000) is "1844674407"
 * and 10 more digits: v - KADDR_BASE, under 2^32. */
#define KADDR_BASE 18446744070000000000ull

/* ",1844674407", the two digits hi < 100 and the 8 digits w (tb_dec8's
 * word): one kernel address of a JSON list, 21 bytes. */
TB_ALWAYS_INLINE char *w_kaddr(char *p, uint32_t hi, uint64_t w)
{
	/* hi's two digits from a pair table: no division a slot */
	static const char pairs[] = "00010203040506070809101112131415161718192021222324"
				    "25262728293031323334353637383940414243444546474849"
				    "50515253545556575859606162636465666768697071727374"
				    "75767778798081828384858687888990919293949596979899";
	memcpy(p, ",1844674407", 11);
	memcpy(p + 11, pairs + (size_t)hi * 2u, 2);
	tb_put_le64(p + 13, w);
	return p + 21;
}

/* 8 digits stored by tb_dec16 as tb_dec8's word (first digit low). */
TB_ALWAYS_INLINE uint64_t digits8(const char *d)
{
	uint64_t w;
	memcpy(&w, d, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	w = __builtin_bswap64(w);
#endif
	return w;
}

/* Slots two at a time, as JSON ",%llu": a pair of user PCs (under 10^8)
 * or of kernel addresses is one 16-digit conversion. */
static char *json_pair(char *p, uint64_t a, uint64_t b)
{
	char d[16];
	if (a < 100000000u && b < 100000000u) {
		tb_dec16(d, (uint32_t)a, (uint32_t)b);
		*p++ = ',';
		p += tb_lead8(p, digits8(d));
		*p++ = ',';
		return p + tb_lead8(p, digits8(d + 8));
	}
	if (a >= KADDR_BASE && b >= KADDR_BASE) {
		uint32_t x = (uint32_t)(a - KADDR_BASE), y = (uint32_t)(b - KADDR_BASE);
		tb_dec16(d, x % 100000000u, y % 100000000u);
		p = w_kaddr(p, x / 100000000u, digits8(d));
		return w_kaddr(p, y / 100000000u, digits8(d + 8));
	}
	*p++ = ',';
	p = w_dec(p, a);
	*p++ = ',';
	return w_dec(p, b);
}

/* Slots [first, first + n) in place when they are the usual log's
 * (8-byte, little-endian, all inside npc), for reading without a copy;
 * else NULL (tb_pmclog_cc_copy's). */
static const uint8_t *slots_in_place(const tb_pmclog_event *ev, uint32_t first, uint32_t n)
{
	/* (only CALLCHAIN rows have slot fields) */
	if (!ev->u.cc.pc || ev->addr_size != 8 || ev->big_endian || first >= ev->u.cc.npc ||
	    n > ev->u.cc.npc - first)
		return NULL;
	return ev->u.cc.pc + (size_t)first * 8u;
}

/* Slot k of a block of 8-byte little-endian slots (in place, or the
 * copy put in that order), one way for both: no test a slot. */
TB_ALWAYS_INLINE uint64_t slot_k(const uint8_t *s, uint32_t k)
{
	uint64_t v;
	memcpy(&v, s + (size_t)k * 8u, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap64(v);
#endif
	return v;
}

static char *put_slots(cur *c, char *p, const tb_pmclog_event *ev, uint32_t first,
		       uint32_t end, int how)
{
	static const char *const lead[] = { " 0x", "\n...       0x", "," };
	static const size_t lead_len[] = { 3, 13, 1 };
	uint64_t pcs[64];
	while (first < end) {
		uint32_t n = end - first, k = 0;
		const uint8_t *s;
		if (n > 64)
			n = 64;
		s = slots_in_place(ev, first, n);
		if (!s) {
			uint32_t got = tb_pmclog_cc_copy(ev, first, pcs, n);
			for (; got < n; got++)
				pcs[got] = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
			for (got = 0; got < n; got++)
				pcs[got] = __builtin_bswap64(pcs[got]);
#endif
			s = (const uint8_t *)pcs;
		}
		/* the block at once when it fits (13 + 16 bytes a slot at
		 * most, 1 + 24 in JSON), each way its own loop */
		p = cur_room(c, p, (size_t)n * 32u + (size_t)2 * PIECE);
		if (!c->scratch) {
			if (how == SLOT_JSON) {
				if (first == 0)
					p = w_dec(p, slot_k(s, k++));
				for (; k + 1 < n; k += 2)
					p = json_pair(p, slot_k(s, k), slot_k(s, k + 1));
				for (; k < n; k++) {
					*p++ = ',';
					p = w_dec(p, slot_k(s, k));
				}
			} else if (how == SLOT_LINES) {
				for (; k < n; k++) {
					memcpy(p, "\n...       0x", 13);
					p += 13 + tb_hex_fast(p + 13, slot_k(s, k));
				}
			} else {
				for (; k < n; k++) {
					memcpy(p, " 0x", 3);
					p += 3 + tb_hex_fast(p + 3, slot_k(s, k));
				}
			}
		}
		for (; k < n; k++) {
			uint64_t v = slot_k(s, k);
			if (how != SLOT_JSON || first + k) {
				memcpy(p, lead[how], lead_len[how]);
				p += lead_len[how];
			}
			p = cur_piece(c, how == SLOT_JSON ? w_dec(p, v) : p + tb_hex_fast(p, v));
		}
		first += n;
	}
	return p;
}

/* The parts other than the kernel callchain, one line each, then the
 * PCs, one line each. */
static char *put_cc_lines(cur *c, char *p, const tb_pmclog_event *ev)
{
	uint32_t k;
	for (k = 0; k < ev->u.cc.nparts; k++) {
		const tb_pmclog_part *pt = &ev->u.cc.parts[k];
		const char *name;
		if (pt->type == TB_PMCLOG_PART_CALLCHAIN)
			continue; /* its slots are printed as PCs */
		p = cur_room(c, p, PIECE);
		*p++ = '\n';
		name = part_name(pt->type); /* (rare: multipart records) */
		p = cur_piece(c, w_entry(p, name, strlen(name)));
		p = put_slots(c, p, ev, pt->first, pt->first + pt->nslots, SLOT_SAME_LINE);
	}
	return put_slots(c, p, ev, ev->u.cc.pc_first, ev->u.cc.npc, SLOT_LINES);
}

static char *text_field(cur *c, char *p, const tb_pmclog_field *f, const tb_pmclog_event *ev)
{
	uint64_t v;
	if (f->text == TB_PMCLOG_T_LINES)
		return put_cc_lines(c, p, ev);
	*p++ = ' ';
	if (f->text == TB_PMCLOG_T_STR) {
		tb_pmclog_value s;
		tb_pmclog_field_value(f, ev, &s);
		put_quoted(cur_sync(c, p), s.s);
		return cur_open(c, c->t, (size_t)FIELD_MOST * TEXT_PLACES);
	}
	v = tb_pmclog_field_num(f, ev);
	switch (f->text) {
	case TB_PMCLOG_T_HEX: p = w_hex(p, v); break;
	case TB_PMCLOG_T_DEC: p = w_num(p, f, v); break;
	case TB_PMCLOG_T_USER: *p++ = v ? 'u' : 's'; break;
	case TB_PMCLOG_T_CPU: p = w_dec(p, v >> 16); break;
	case TB_PMCLOG_T_CCUSER: *p++ = v & TB_PMCLOG_CC_USERSPACE ? 'u' : 's'; break;
	default: p = w_dec(p, (uint32_t)(ev->u.cc.npc - ev->u.cc.pc_first)); break; /* DEPTH */
	}
	return cur_piece(c, p);
}

TB_API void tb_pmclog_text(tb_text *t, const tb_pmclog_event *ev)
{
	const tb_pmclog_record *r = tb_pmclog_row(ev->type);
	const tb_pmclog_field *at[TEXT_PLACES], *f;
	unsigned pos, gen = tb_pmclog_gen(ev), conds = tb_pmclog_conds(ev), held = 0;
	cur c;
	char *p = cur_open(&c, t, HEAD_MOST + FIELD_MOST * TEXT_PLACES);
	p = w_entry(p, r->pmcstat, r->pmcstat_len);
	if (ev->type == TB_PMCLOG_UNKNOWN) {
		memcpy(p, " type=", 6);
		p = w_dec(p + 6, ev->raw_type);
		p = cur_piece(&c, p);
		memcpy(p, " len=", 5);
		p = w_dec(p + 5, ev->len);
	}
	p = cur_piece(&c, p);
	/* The fields in the line's order: the first present field of each
	 * place holds it, up to the first place none holds (one pass over
	 * the row, not one a place). */
	for (f = r->fields; f->kind != TB_PMCLOG_F_END; f++)
		if (f->text_pos && f->text_pos < TEXT_PLACES && !(held >> f->text_pos & 1u) &&
		    tb_pmclog_field_in(f, gen, conds)) {
			at[f->text_pos] = f;
			held |= 1u << f->text_pos;
		}
	for (pos = 1; held >> pos & 1u; pos++)
		p = text_field(&c, p, at[pos], ev);
	if (pos == 1 && ev->type != TB_PMCLOG_UNKNOWN)
		*p++ = ' '; /* no fields: "closelog  " */
	*p++ = '\n';
	cur_close(&c, p);
}

/* ,"key": (no comma before an object's first member). */
TB_ALWAYS_INLINE char *w_key(char *p, const tb_pmclog_field *f, int first)
{
	*p = ',';
	p += !first;
	*p++ = '"';
	p = w_str(p, f->key, f->key_len);
	*p++ = '"';
	*p++ = ':';
	return p;
}

static char *json_timespec(cur *c, char *p, int64_t sec, int64_t nsec)
{
	memcpy(p, "{\"tv_sec\":", 10);
	p = cur_piece(c, w_i64(p + 10, sec));
	memcpy(p, ",\"tv_nsec\":", 11);
	p = w_i64(p + 11, nsec);
	*p++ = '}';
	return cur_piece(c, p);
}

static char *json_parts(cur *c, char *p, const tb_pmclog_event *ev)
{
	uint32_t i;
	*p++ = '[';
	for (i = 0; i < ev->u.cc.nparts; i++) {
		p = cur_room(c, cur_piece(c, p), (size_t)4 * PIECE);
		*p = ',';
		p += i != 0;
		memcpy(p, "{\"type\":", 8);
		p = cur_piece(c, w_dec(p + 8, ev->u.cc.parts[i].type));
		memcpy(p, ",\"first\":", 9);
		p = cur_piece(c, w_dec(p + 9, ev->u.cc.parts[i].first));
		memcpy(p, ",\"nslots\":", 10);
		p = w_dec(p + 10, ev->u.cc.parts[i].nslots);
		*p++ = '}';
	}
	*p++ = ']';
	return cur_piece(c, p);
}

TB_API void tb_pmclog_json(tb_text *t, const tb_pmclog_event *ev)
{
	const tb_pmclog_record *r = tb_pmclog_row(ev->type);
	const tb_pmclog_field *f;
	unsigned gen = tb_pmclog_gen(ev), conds = tb_pmclog_conds(ev);
	int first = 1;
	cur c;
	char *p = cur_open(&c, t, HEAD_MOST + FIELD_MOST * (size_t)r->nfields);
	memcpy(p, "{\"offset\":", 10);
	p = cur_piece(&c, w_dec(p + 10, ev->offset));
	memcpy(p, ",\"type\":\"", 9);
	p = cur_piece(&c, w_str(p + 9, r->name, r->name_len));
	if (ev->legacy) {
		memcpy(p, "\",\"ts\":", 7);
		p = json_timespec(&c, p + 7, ev->ts_sec, ev->ts_nsec);
	} else {
		memcpy(p, "\",\"tsc\":", 8);
		p = cur_piece(&c, w_dec(p + 8, ev->tsc));
	}
	memcpy(p, ",\"fields\":{", 11);
	p = cur_piece(&c, p + 11);
	for (f = r->fields; f->kind != TB_PMCLOG_F_END; f++) {
		tb_pmclog_value v;
		if (!f->key || !tb_pmclog_field_in(f, gen, conds))
			continue;
		p = w_key(p, f, first);
		first = 0;
		switch (f->kind) {
		case TB_PMCLOG_F_STR:
			tb_pmclog_field_value(f, ev, &v);
			tb_json_str(cur_sync(&c, p), v.s.ptr, v.s.len);
			p = cur_open(&c, t, HEAD_MOST + FIELD_MOST * (size_t)r->nfields);
			break;
		case TB_PMCLOG_F_TIMESPEC:
			p = json_timespec(&c, p, ev->u.i.ts_sec, ev->u.i.ts_nsec);
			break;
		case TB_PMCLOG_F_PCS:
			*p++ = '[';
			p = put_slots(&c, p, ev, 0, ev->u.cc.npc, SLOT_JSON);
			*p++ = ']';
			break;
		case TB_PMCLOG_F_PARTS: p = json_parts(&c, p, ev); break;
		default: p = w_num(p, f, tb_pmclog_field_num(f, ev)); break;
		}
		p = cur_piece(&c, p);
	}
	memcpy(p, "}}\n", 3);
	cur_close(&c, p + 3);
}
