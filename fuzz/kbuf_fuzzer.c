/*
 * Fuzz the sub-buffer walker.  Input: byte 0 chooses the layout (byte
 * order, long size, padding-delta rule, sub-buffer size), byte 1 the
 * read_buffer size and a read-at-offset target; the rest is a dump of
 * sub-buffers (or, with layout byte 0xff, a header_page text).
 * Invariants: every record lies inside the page and inside commit,
 * offsets strictly increase, at most len/4 records per page, the batch
 * walk agrees with the single-step walk, and a re-serialised page reads
 * back the same events with the same timestamps.
 */
#include <string.h>

#include "fuzz.h"
#include "tracebound/kbuf.h"

static uint8_t rebuilt[TB_KBUF_SUBBUF_MAX];

static void check_page(tb_kbuf *kb, unsigned knob)
{
	const uint8_t *page = kb->buf;
	const size_t len = kb->len;
	tb_kbuf_record r, batch[8];
	tb_status st;
	size_t n = 0, events = 0, bn = 0;
	uint32_t last_end = kb->layout.header_size;

	while ((st = tb_kbuf_next(kb, &r)) == TB_OK) {
		TB_FUZZ_CHECK(r.offset == last_end);       /* progress, no gaps */
		TB_FUZZ_CHECK(r.size >= 4);
		TB_FUZZ_CHECK(r.offset + (uint64_t)r.size <= kb->end);
		TB_FUZZ_CHECK(kb->end <= len);
		TB_FUZZ_CHECK(r.index + kb->layout.header_size == r.offset);
		if (r.kind == TB_KBUF_DATA) {
			TB_FUZZ_CHECK(tb_fuzz_inside(r.payload, r.payload_len, page, len));
			TB_FUZZ_CHECK(r.payload_len + 4u <= r.size);
			events++;
		} else {
			TB_FUZZ_CHECK(r.payload == NULL);
		}
		last_end = r.offset + r.size;
		TB_FUZZ_CHECK(++n <= len / 4);
	}
	TB_FUZZ_CHECK(st == TB_END || tb_is_malformed(st));
	TB_FUZZ_CHECK(tb_kbuf_next(kb, &r) == st);   /* sticky */

	/* The batch walk sees the same events and the same end. */
	tb_kbuf_rewind(kb);
	for (;;) {
		tb_status bst;
		size_t k = tb_kbuf_next_events(kb, batch, 1 + knob % 8, &bst);
		bn += k;
		if (bst != TB_OK) {
			TB_FUZZ_CHECK(bst == st);
			break;
		}
		TB_FUZZ_CHECK(k > 0);
	}
	TB_FUZZ_CHECK(bn == events);

	/* read-at-offset lands on an event at or after the offset. */
	if (tb_kbuf_read_at_offset(kb, knob * 16u % (uint32_t)(len + 1), &r) == TB_OK)
		TB_FUZZ_CHECK(r.kind == TB_KBUF_DATA && r.offset >= kb->layout.header_size);

	/* Re-serialise from the second event; the copy reads back the same. */
	tb_kbuf_rewind(kb);
	if (tb_kbuf_next_event(kb, &r) == TB_OK) {
		size_t out_len = kb->layout.header_size + 8 + (knob * 37u) % kb->layout.subbuf_size;
		size_t dl = 0;
		tb_kbuf copy;
		if (out_len > kb->layout.subbuf_size)
			out_len = kb->layout.subbuf_size;
		st = tb_kbuf_read_buffer(kb, rebuilt, out_len, &dl);
		if (st == TB_OK) {
			tb_kbuf_record a, b;
			TB_FUZZ_CHECK(dl + kb->layout.header_size <= out_len);
			TB_FUZZ_CHECK(tb_kbuf_open(&copy, &kb->layout, rebuilt, out_len, NULL) == TB_OK);
			while (tb_kbuf_next_event(&copy, &b) == TB_OK) {
				TB_FUZZ_CHECK(tb_kbuf_next_event(kb, &a) == TB_OK);
				TB_FUZZ_CHECK(a.ts == b.ts && a.payload_len == b.payload_len);
				TB_FUZZ_CHECK(memcmp(a.payload, b.payload, a.payload_len) == 0);
			}
			TB_FUZZ_CHECK(copy.status == TB_END);
		} else {
			TB_FUZZ_CHECK(st == TB_END || st == TB_ERR_NO_SPACE || tb_is_malformed(st));
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	tb_kbuf_layout layout;
	tb_kbuf_stream s;
	tb_kbuf kb;
	tb_error e;
	unsigned sel, knob, pages = 0;

	if (size < 2)
		return 0;
	sel = data[0];
	knob = data[1];
	data += 2;
	size -= 2;
	if (sel == 0xff) {
		if (tb_kbuf_layout_from_header_page((const char *)data, size, 0, &layout, &e) == TB_OK)
			TB_FUZZ_CHECK(layout.header_size + layout.data_capacity == layout.subbuf_size);
		else
			TB_FUZZ_CHECK(tb_is_error(e.status) && e.offset <= size);
		return 0;
	}
	if (tb_kbuf_layout_init(&layout, sel & 1, (sel & 2) ? 4 : 8,
				4096u << ((sel >> 3) % 9),
				(sel & 4) ? TB_KBUF_PAD_DELTA_IGNORE : 0) != TB_OK)
		return 0;
	tb_kbuf_stream_init(&s, &layout, data, size);
	for (;;) {
		tb_status st = tb_kbuf_stream_next(&s, &kb, &e);
		if (st == TB_END)
			break;
		TB_FUZZ_CHECK(++pages <= size / 4096 + 1);
		if (st != TB_OK) {
			TB_FUZZ_CHECK(tb_is_malformed(st) && e.offset < size);
			continue;
		}
		TB_FUZZ_CHECK(tb_kbuf_missed(&kb) >= -1);
		check_page(&kb, knob);
	}
	return 0;
}
