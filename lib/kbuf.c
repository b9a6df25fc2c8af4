/*
 * The ring-buffer sub-buffer walker.
 *
 * The page header is checked once at open: after that every record start
 * lies in [header_size, end) and end = header_size + commit <= the bytes
 * present, so one comparison against the precomputed end per record is
 * all the walk needs.  Each record is at least 4 bytes (most at least 8)
 * and the position only moves forward, so the walk always ends.
 */
#include <string.h>

#include "tracebound/format.h"
#include "tracebound/kbuf.h"
#include "internal.h"

#define KB_TS_SHIFT 27
#define KB_DELTA_MASK ((1u << 27) - 1u)
#define KB_COMMIT_MASK ((1u << 27) - 1u)
#define KB_MISSED_EVENTS (1u << 31)
#define KB_MISSED_STORED (1u << 30)
#define KB_TS_MSB 0xF800000000000000ull
#define KB_TYPE_DATA_MAX 28u
#define KB_TYPE_PADDING 29u
#define KB_TYPE_EXTEND 30u
#define KB_TYPE_STAMP 31u

#define KB_INLINE TB_ALWAYS_INLINE
#if defined(__GNUC__)
#define KB_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define KB_UNLIKELY(x) (x)
#endif

/* ---- layouts ---- */

static int kb_pow2(uint32_t v)
{
	return v != 0 && (v & (v - 1u)) == 0;
}

tb_status tb_kbuf_layout_init_ex(tb_kbuf_layout *layout, int big_endian,
				 unsigned long_size, unsigned header_size,
				 uint32_t subbuf_size, unsigned flags)
{
	if (!layout || (long_size != 4 && long_size != 8) ||
	    (header_size != 12 && header_size != 16) ||
	    header_size < 8u + long_size ||
	    subbuf_size < TB_KBUF_SUBBUF_MIN ||
	    subbuf_size > TB_KBUF_SUBBUF_MAX || !kb_pow2(subbuf_size) ||
	    (flags & ~(unsigned)TB_KBUF_PAD_DELTA_IGNORE) != 0)
		return TB_ERR_ARG;
	layout->big_endian = big_endian ? 1 : 0;
	layout->long_size = (uint8_t)long_size;
	layout->header_size = (uint8_t)header_size;
	layout->flags = (uint8_t)flags;
	layout->subbuf_size = subbuf_size;
	layout->data_capacity = subbuf_size - header_size;
	return TB_OK;
}

tb_status tb_kbuf_layout_init(tb_kbuf_layout *layout, int big_endian,
			      unsigned long_size, uint32_t subbuf_size,
			      unsigned flags)
{
	return tb_kbuf_layout_init_ex(layout, big_endian, long_size,
				      long_size == 8 ? 16u : 12u, subbuf_size,
				      flags);
}

static int kb_layout_ok(const tb_kbuf_layout *l)
{
	tb_kbuf_layout check;
	return tb_kbuf_layout_init_ex(&check, l->big_endian, l->long_size,
				      l->header_size, l->subbuf_size,
				      l->flags) == TB_OK &&
	       l->data_capacity == check.data_capacity;
}

/* ---- header_page text ---- */

/*
 * The text goes through the format grammar (tb_format_parse_header_page,
 * lib/format.c) so there is one field-line grammar; the walker adds the
 * checks its layout needs.
 */
tb_status tb_kbuf_layout_from_header_page(const char *text, size_t len,
					  int big_endian,
					  tb_kbuf_layout *layout,
					  tb_error *err)
{
	tb_header_page hp;
	tb_format_error fe;
	tb_status st;

	tb_error_clear(err);
	if (!layout || (!text && len))
		return tb_fail(err, TB_ERR_ARG, 0, "no layout or text given");
	if (len == 0)
		return tb_fail(err, TB_ERR_UNSUPPORTED, 0,
			       "empty header_page (pre-2.6.31 format)");
	st = tb_format_parse_header_page(text, len, &hp, &fe);
	if (st != TB_OK)
		return tb_fail(err, st, fe.error.offset, fe.error.what);
	if (hp.timestamp_offset != 0)
		return tb_fail(err, TB_ERR_VALUE, hp.timestamp_line,
			       "header_page timestamp is not a u64 at offset 0");
	if (hp.commit_offset != 8)
		return tb_fail(err, TB_ERR_VALUE, hp.commit_line,
			       "header_page commit is not a 4- or 8-byte long at offset 8");
	if (hp.data_offset != 12 && hp.data_offset != 16)
		return tb_fail(err, TB_ERR_VALUE, hp.data_line,
			       "header_page data offset is not 12 or 16 after commit");
	if (hp.data_size > TB_KBUF_SUBBUF_MAX)
		return tb_fail(err, TB_ERR_VALUE, hp.data_line,
			       "header_page data size exceeds 1 MiB");
	st = tb_kbuf_layout_init_ex(layout, big_endian, hp.commit_size,
				    hp.data_offset, hp.data_offset + hp.data_size, 0);
	if (st != TB_OK)
		return tb_fail(err, TB_ERR_VALUE, hp.data_line,
			       "header_page data offset + size is not a power-of-two sub-buffer of 4 KiB to 1 MiB");
	return TB_OK;
}

/* ---- opening a sub-buffer ---- */

/*
 * Pages of large records: ask for every cache line of the records at once.
 * The walk is a chain: where a record starts is known only once the
 * previous one's header is read, so with large records (trace_marker
 * writes of ~500 bytes) each header is a cache miss waited for in turn,
 * and the hardware's stride prefetcher does not follow lengths that vary.
 * A few dozen prefetches per page (they never fault, and the lines are
 * inside the checked range) let those misses overlap.  Pages of small
 * records are read densely, which the hardware already prefetches well
 * (and there the extra requests cost time), so this is done only when
 * the page's first data record, past at most one time record, is in the
 * long form (over 112 bytes of payload).
 */
KB_INLINE void kb_prefetch_large(const uint8_t *buf, uint32_t hdr, uint32_t end, int be)
{
#if defined(__GNUC__)
	uint32_t o = hdr, type_len = 31, i;
	for (i = 0; i < 2 && o + 4 <= end; i++, o += 8) {
		uint32_t word = tb_load32(buf + o, be);
		type_len = be ? word >> 27 : word & 31u;
		if (type_len != KB_TYPE_EXTEND && type_len != KB_TYPE_STAMP)
			break;
	}
	if (type_len != 0)
		return;
	for (o = hdr; o < end; o += 64)
		__builtin_prefetch(buf + o);
#else
	(void)buf;
	(void)hdr;
	(void)end;
	(void)be;
#endif
}

static tb_status kb_bad(tb_kbuf *kb, tb_status st, uint32_t off,
			const char *what)
{
	kb->status = tb_fail(&kb->err, st, off, what);
	return st;
}

tb_status tb_kbuf_open(tb_kbuf *kb, const tb_kbuf_layout *layout,
		       const void *buf, size_t len, tb_error *err)
{
	tb_reader r;
	uint64_t page_ts, raw, count;
	uint32_t flags, commit, hdr;
	tb_status st;

	tb_error_clear(err);
	if (!kb)
		return tb_fail(err, TB_ERR_ARG, 0, "no cursor given");
	memset(kb, 0, sizeof(*kb));
	tb_error_clear(&kb->err);
	if (!layout || !kb_layout_ok(layout) || (!buf && len)) {
		st = kb_bad(kb, TB_ERR_ARG, 0, "invalid layout or buffer");
		return tb_fail(err, st, 0, kb->err.what);
	}
	kb->layout = *layout;
	hdr = layout->header_size;
	if (len > layout->subbuf_size)
		len = layout->subbuf_size;
	kb->buf = (const uint8_t *)buf;
	kb->len = (uint32_t)len;
	kb->end = kb->pos = hdr;
	tb_rd_init(&r, buf, len, layout->big_endian);
	if (!tb_rd_u64_at(&r, 0, &page_ts) ||
	    !tb_rd_uN_at(&r, 8, layout->long_size, &raw) || len < hdr) {
		st = kb_bad(kb, TB_ERR_TRUNCATED, 0, "sub-buffer header truncated");
		goto fail;
	}
	/* The upper half of an 8-byte commit is not used. */
	flags = (uint32_t)raw;
	commit = flags & KB_COMMIT_MASK;
	kb->page_ts = kb->ts = page_ts;
	kb->raw_commit = raw;
	if (commit > layout->data_capacity) {
		st = kb_bad(kb, TB_ERR_LENGTH, 8, "commit exceeds the sub-buffer data capacity");
		goto fail;
	}
	if (commit > len - hdr) {
		st = kb_bad(kb, TB_ERR_TRUNCATED, 8, "commit runs past the bytes present");
		goto fail;
	}
	kb->commit = commit;
	kb->end = hdr + commit;
	kb_prefetch_large(kb->buf, hdr, kb->end, layout->big_endian);
	if (flags & KB_MISSED_EVENTS) {
		kb->missed = -1;
		if ((flags & KB_MISSED_STORED) &&
		    tb_rd_uN_at(&r, kb->end, layout->long_size, &count))
			kb->missed = count > (uint64_t)INT64_MAX ? INT64_MAX
								  : (int64_t)count;
	}
	kb->opened = 1;
	kb->status = TB_OK;
	return TB_OK;
fail:
	return tb_fail(err, st, kb->err.offset, kb->err.what);
}

/* ---- the walk ---- */

/*
 * The one walking loop.  Fills up to `max` records (only DATA records
 * count when events_only), keeping the position and the running time in
 * locals; short data records, the common case, take the first branch.
 * `be` and `events_only` are constants in every caller, so the compiler
 * makes a specialised copy for each byte order and mode.
 */
KB_INLINE size_t kb_walk(tb_kbuf *kb, tb_kbuf_record *recs, size_t max,
			 int events_only, tb_status *status, int be)
{
	const uint8_t *const buf = kb->buf;
	const uint32_t end = kb->end, hdr = kb->layout.header_size;
	const int pad_delta = !(kb->layout.flags & TB_KBUF_PAD_DELTA_IGNORE);
	uint32_t off = kb->pos, fault = 0;
	uint64_t ts = kb->ts;
	size_t n = 0;
	tb_status st = kb->status;
	const char *what = NULL;

	if (KB_UNLIKELY(st != TB_OK)) {
		*status = st;
		return 0;
	}
	while (n < max) {
		tb_kbuf_record *rec = &recs[n];
		const uint8_t *p;
		uint32_t left, word, type_len, delta, size, arr;

		if (off >= end) {
			st = TB_END;
			break;
		}
		left = end - off;
		if (KB_UNLIKELY(left < 4)) {
			st = TB_ERR_TRUNCATED, fault = off, what = "event header cut by commit";
			break;
		}
		p = buf + off;
		word = tb_load32(p, be);
		if (be) {
			type_len = word >> 27;
			delta = word & KB_DELTA_MASK;
		} else {
			type_len = word & 31u;
			delta = word >> 5;
		}
		rec->offset = off;
		rec->index = off - hdr;
		rec->time_delta = delta;
		rec->type_len = (uint8_t)type_len;
		rec->flags = 0;
		rec->reserved_ = 0;
		if (type_len - 1u < KB_TYPE_DATA_MAX) {
			/* Short data form: type_len words of payload. */
			size = 4u + type_len * 4u;
			if (KB_UNLIKELY(size > left)) {
				st = TB_ERR_RANGE, fault = off, what = "data record ends past commit";
				break;
			}
			ts += delta;
			rec->payload = p + 4;
			rec->payload_len = size - 4u;
			rec->kind = TB_KBUF_DATA;
			rec->size = size;
			rec->ts = ts;
			off += size;
			n++;
			continue;
		}
		rec->payload = NULL;
		rec->payload_len = 0;
		if (type_len == KB_TYPE_PADDING && delta == 0) {
			/* Null padding inside commit: the rest of the page is filler. */
			rec->kind = TB_KBUF_PADDING;
			rec->flags = TB_KBUF_REC_NULL_PAD;
			rec->size = left;
			rec->ts = ts;
			off = end;
			n += !events_only;
			continue;
		}
		if (KB_UNLIKELY(left < 8)) {
			st = TB_ERR_TRUNCATED, fault = off;
			what = type_len == 0 ? "data length word cut by commit" :
			       type_len == KB_TYPE_PADDING ? "padding length word cut by commit" :
			       type_len == KB_TYPE_EXTEND ? "time extend cut by commit" :
			       "time stamp cut by commit";
			break;
		}
		arr = tb_load32(p + 4, be);
		if (type_len == 0) {
			/* Long data form: arr counts itself and the payload. */
			uint64_t len4 = ((uint64_t)arr + 3u) & ~(uint64_t)3u;
			if (KB_UNLIKELY(arr < 4)) {
				st = TB_ERR_LENGTH, fault = off + 4;
				what = arr == 0 ? "zero data length" : "data length below 4";
				break;
			}
			if (KB_UNLIKELY(len4 + 4u > left)) {
				st = TB_ERR_RANGE, fault = off, what = "data record ends past commit";
				break;
			}
			size = (uint32_t)len4 + 4u;
			ts += delta;
			rec->payload = p + 8;
			rec->payload_len = size - 8u;
			rec->kind = TB_KBUF_DATA;
		} else if (type_len == KB_TYPE_PADDING) {
			if (KB_UNLIKELY(arr < 4)) {
				st = TB_ERR_LENGTH, fault = off + 4, what = "padding length below 4";
				break;
			}
			if (KB_UNLIKELY((uint64_t)arr + 4u > left)) {
				st = TB_ERR_RANGE, fault = off, what = "padding ends past commit";
				break;
			}
			size = arr + 4u;
			rec->kind = TB_KBUF_PADDING;
			if (pad_delta)
				ts += delta;
		} else if (type_len == KB_TYPE_EXTEND) {
			size = 8;
			rec->kind = TB_KBUF_TIME_EXTEND;
			ts += ((uint64_t)arr << KB_TS_SHIFT) + delta;
		} else {
			/* Absolute: 59 bits; the top bits and the wrap as the kernel does. */
			uint64_t v = ((uint64_t)arr << KB_TS_SHIFT) | delta;
			if (ts & KB_TS_MSB) {
				v |= ts & KB_TS_MSB;
				if (v < ts)
					v += 1ull << 59;
			}
			size = 8;
			rec->kind = TB_KBUF_TIME_STAMP;
			ts = v;
		}
		rec->size = size;
		rec->ts = ts;
		off += size;
		n += !events_only || rec->kind == TB_KBUF_DATA;
	}
	kb->pos = off;
	kb->ts = ts;
	if (st != TB_OK) {
		kb->status = st;
		if (what)
			tb_fail(&kb->err, st, fault, what);
	}
	*status = st;
	return n;
}

KB_INLINE tb_status kb_one(tb_kbuf *kb, tb_kbuf_record *rec, int events_only)
{
	tb_status st;
	if (!kb || !rec)
		return TB_ERR_ARG;
	if (kb->layout.big_endian)
		kb_walk(kb, rec, 1, events_only, &st, 1);
	else
		kb_walk(kb, rec, 1, events_only, &st, 0);
	return st;
}

tb_status tb_kbuf_next(tb_kbuf *kb, tb_kbuf_record *rec)
{
	return kb_one(kb, rec, 0);
}

tb_status tb_kbuf_next_event(tb_kbuf *kb, tb_kbuf_record *rec)
{
	return kb_one(kb, rec, 1);
}

size_t tb_kbuf_next_events(tb_kbuf *kb, tb_kbuf_record *recs, size_t max,
			   tb_status *status)
{
	tb_status dummy;
	if (!status)
		status = &dummy;
	if (!kb || (!recs && max)) {
		*status = TB_ERR_ARG;
		return 0;
	}
	return kb->layout.big_endian ? kb_walk(kb, recs, max, 1, status, 1)
				     : kb_walk(kb, recs, max, 1, status, 0);
}

int64_t tb_kbuf_missed(const tb_kbuf *kb)
{
	return kb ? kb->missed : 0;
}

uint64_t tb_kbuf_page_ts(const tb_kbuf *kb)
{
	return kb ? kb->page_ts : 0;
}

uint32_t tb_kbuf_commit(const tb_kbuf *kb)
{
	return kb ? kb->commit : 0;
}

tb_error tb_kbuf_error(const tb_kbuf *kb)
{
	tb_error e;
	tb_error_clear(&e);
	if (kb && tb_is_error(kb->status))
		e = kb->err;
	return e;
}

void tb_kbuf_rewind(tb_kbuf *kb)
{
	if (!kb || !kb->opened)
		return;
	kb->pos = kb->layout.header_size;
	kb->ts = kb->page_ts;
	kb->status = TB_OK;
	tb_error_clear(&kb->err);
}

tb_status tb_kbuf_read_at_offset(tb_kbuf *kb, uint32_t offset,
				 tb_kbuf_record *rec)
{
	tb_status st;
	if (!kb || !rec)
		return TB_ERR_ARG;
	tb_kbuf_rewind(kb);
	do
		st = tb_kbuf_next_event(kb, rec);
	while (st == TB_OK && rec->offset < offset);
	return st;
}

/* ---- re-serialising into a standalone sub-buffer ---- */

static void kb_store(uint8_t *p, uint64_t v, unsigned n, int be)
{
	unsigned i;
	for (i = 0; i < n; i++) {
		unsigned shift = 8u * (be ? n - 1u - i : i);
		p[i] = (uint8_t)(v >> shift);
	}
}

tb_status tb_kbuf_read_buffer(const tb_kbuf *kb, void *out, size_t out_len,
			      size_t *data_len)
{
	tb_kbuf c;
	tb_kbuf_record r;
	uint8_t *o = (uint8_t *)out;
	size_t hdr, cap, w, committed;
	uint32_t word;
	tb_status st;
	int be;

	if (data_len)
		*data_len = 0;
	if (!kb || (!out && out_len))
		return TB_ERR_ARG;
	c = *kb;
	st = tb_kbuf_next_event(&c, &r);
	if (st != TB_OK)
		return st;
	be = kb->layout.big_endian;
	hdr = kb->layout.header_size;
	cap = out_len < kb->layout.subbuf_size ? out_len : kb->layout.subbuf_size;
	if (cap < hdr || r.size > cap - hdr)
		return TB_ERR_NO_SPACE;
	cap -= hdr;
	/* The first event carries delta 0: the new page stamp is its time. */
	kb_store(o, r.ts, 8, be);
	memcpy(o + hdr, kb->buf + r.offset, r.size);
	word = tb_load32(o + hdr, be);
	word &= be ? ~KB_DELTA_MASK : 31u;
	kb_store(o + hdr, word, 4, be);
	w = committed = r.size;
	while (tb_kbuf_next(&c, &r) == TB_OK && !(r.flags & TB_KBUF_REC_NULL_PAD) &&
	       r.size <= cap - w) {
		memcpy(o + hdr + w, kb->buf + r.offset, r.size);
		w += r.size;
		if (r.kind == TB_KBUF_DATA)
			committed = w;
	}
	/* Extends or padding with no event after them are left out. */
	memset(o + hdr + committed, 0, out_len - hdr - committed);
	memset(o + 8, 0, hdr - 8);
	kb_store(o + 8, committed, kb->layout.long_size, be);
	if (data_len)
		*data_len = committed;
	return TB_OK;
}

const char *tb_kbuf_kind_name(unsigned kind)
{
	static const char *const names[] = { "data", "padding", "time_extend",
					     "time_stamp" };
	return kind < TB_ARRAY_LEN(names) ? names[kind] : "unknown";
}

/* ---- a whole dump of consecutive sub-buffers ---- */

void tb_kbuf_stream_init(tb_kbuf_stream *s, const tb_kbuf_layout *layout,
			 const void *data, size_t len)
{
	if (!s)
		return;
	memset(s, 0, sizeof(*s));
	if (layout)
		s->layout = *layout;
	s->data = (const uint8_t *)data;
	s->len = data ? len : 0;
}

void tb_kbuf_stream_feed(tb_kbuf_stream *s, const void *data, size_t len)
{
	if (!s)
		return;
	s->base += s->len;
	s->data = (const uint8_t *)data;
	s->len = data ? len : 0;
	s->next = 0;
}

tb_status tb_kbuf_stream_next(tb_kbuf_stream *s, tb_kbuf *kb, tb_error *err)
{
	size_t off, n;
	tb_status st;

	tb_error_clear(err);
	if (!s || !kb)
		return tb_fail(err, TB_ERR_ARG, 0, "no stream or cursor given");
	if (s->started && kb->opened && kb->commit > 0) {
		uint64_t t = kb->ts > kb->page_ts ? kb->ts : kb->page_ts;
		if (t > s->last_ts)
			s->last_ts = t;
	}
	if (s->next >= s->len)
		return TB_END;
	off = s->next;
	n = s->len - off;
	if (n > s->layout.subbuf_size)
		n = s->layout.subbuf_size;
	s->subbuf_index = s->started ? s->subbuf_index + 1 : 0;
	s->subbuf_offset = s->base + off;
	s->next = off + n; /* n > 0: off < len */
	st = tb_kbuf_open(kb, &s->layout, s->data + off, n, err);
	s->ts_went_back = 0;
	if (st != TB_OK) {
		s->started = 1;
		return tb_fail(err, st, s->subbuf_offset + kb->err.offset, kb->err.what);
	}
	/* Empty (zero-filled) sub-buffers carry no time. */
	if (s->started && kb->commit > 0 && kb->page_ts < s->last_ts) {
		s->ts_went_back = 1;
		s->backwards++;
	}
	s->started = 1;
	return TB_OK;
}
