/*
 * Fuzz the sub-buffer walker.  Input: byte 0 chooses the layout (byte
 * order, long size, padding-delta rule, sub-buffer size), byte 1 the
 * read_buffer size and a read-at-offset target; the rest is a dump of
 * sub-buffers (or, with layout byte 0xff, a header_page text).
 * Invariants: every record lies inside the page and inside commit,
 * offsets strictly increase, at most len/4 records per page.
 *
 * The promises of kbuf.h checked: the batch walker (input-chosen batch
 * sizes) returns exactly the records the single-record walker returns,
 * and ends the same way; tb_kbuf_read_at_offset returns the first event
 * at or after any offset (each event's, one past the previous one's) and
 * leaves the cursor after it; a sub-buffer rebuilt by tb_kbuf_read_buffer
 * after any number of events, into an input-chosen size or a whole
 * sub-buffer, walks to the same events with the same timestamps (all of
 * those left, in a whole sub-buffer), its commit the data_len returned.
 */
#include <string.h>

#include "fuzz.h"
#include "tracebound/kbuf.h"

static uint8_t rebuilt[TB_KBUF_SUBBUF_MAX];
/* every event of a page (an event takes at least 8 bytes) */
static tb_kbuf_record evs[TB_KBUF_SUBBUF_MAX / 8];

static int same_record(const tb_kbuf_record *a, const tb_kbuf_record *b)
{
	return a->payload == b->payload && a->ts == b->ts &&
	       a->payload_len == b->payload_len && a->size == b->size &&
	       a->offset == b->offset && a->index == b->index &&
	       a->time_delta == b->time_delta && a->kind == b->kind &&
	       a->type_len == b->type_len && a->flags == b->flags;
}

static void check_page(tb_kbuf *kb, unsigned knob)
{
	const uint8_t *page = kb->buf;
	const size_t len = kb->len;
	tb_kbuf_record r, batch[8];
	tb_status st;
	size_t n = 0, events = 0, bn = 0, nev, i, skip;
	int pass;
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
	if (st != TB_END) /* the fault lies in the page's bytes */
		TB_FUZZ_CHECK(tb_kbuf_error(kb).status == st &&
			      tb_kbuf_error(kb).offset < len);

	/* The batch walk returns the same records and the same end. */
	tb_kbuf_rewind(kb);
	nev = 0;
	while (tb_kbuf_next_event(kb, &r) == TB_OK)
		evs[nev++] = r;
	TB_FUZZ_CHECK(nev == events);
	tb_kbuf_rewind(kb);
	for (;;) {
		tb_status bst;
		size_t k = tb_kbuf_next_events(kb, batch, 1 + knob % 8, &bst), j;
		for (j = 0; j < k; j++) {
			TB_FUZZ_CHECK(bn + j < nev);
			TB_FUZZ_CHECK(same_record(&batch[j], &evs[bn + j]));
		}
		bn += k;
		if (bst != TB_OK) {
			TB_FUZZ_CHECK(bst == st);
			break;
		}
		TB_FUZZ_CHECK(k > 0);
	}
	TB_FUZZ_CHECK(bn == events);

	/* read-at-offset: the first event at or after the offset, and the
	 * cursor after it (every event for short pages, then a sample). */
	for (i = 0; i < nev; i += (i < 64 ? 1 : 1 + nev / 16)) {
		uint32_t at = i ? evs[i - 1].offset + 1 : knob % (evs[0].offset + 1);
		TB_FUZZ_CHECK(tb_kbuf_read_at_offset(kb, at, &r) == TB_OK);
		TB_FUZZ_CHECK(same_record(&r, &evs[i]));
		if (i + 1 < nev) {
			TB_FUZZ_CHECK(tb_kbuf_next_event(kb, &r) == TB_OK);
			TB_FUZZ_CHECK(same_record(&r, &evs[i + 1]));
		} else {
			TB_FUZZ_CHECK(tb_kbuf_next_event(kb, &r) == st);
		}
	}
	if (nev)
		TB_FUZZ_CHECK(tb_kbuf_read_at_offset(kb, evs[nev - 1].offset + 1, &r) == st);
	else
		TB_FUZZ_CHECK(tb_kbuf_read_at_offset(kb, knob, &r) == st);

	/* Re-serialise after an input-chosen number of events, into an
	 * input-chosen size and into a whole sub-buffer: the copy reads back
	 * the same events with the same timestamps, a prefix of those left
	 * (all of them in a whole sub-buffer). */
	skip = nev ? knob % nev : 0;
	for (pass = 0; pass < 2; pass++) {
		size_t out_len = pass ? kb->layout.subbuf_size
				      : kb->layout.header_size + 8 +
					(knob * 37u) % kb->layout.subbuf_size;
		size_t dl = 0, got = 0;
		tb_kbuf copy;
		if (out_len > kb->layout.subbuf_size)
			out_len = kb->layout.subbuf_size;
		tb_kbuf_rewind(kb);
		for (i = 0; i < skip; i++)
			TB_FUZZ_CHECK(tb_kbuf_next_event(kb, &r) == TB_OK);
		st = tb_kbuf_read_buffer(kb, rebuilt, out_len, &dl);
		if (st != TB_OK) {
			TB_FUZZ_CHECK(skip == nev ? st == tb_kbuf_next_event(kb, &r)
						  : st == TB_ERR_NO_SPACE);
			if (pass)
				TB_FUZZ_CHECK(skip == nev);
			continue;
		}
		TB_FUZZ_CHECK(skip < nev);
		TB_FUZZ_CHECK(dl + kb->layout.header_size <= out_len);
		TB_FUZZ_CHECK(tb_kbuf_open(&copy, &kb->layout, rebuilt, out_len, NULL) == TB_OK);
		TB_FUZZ_CHECK(tb_kbuf_commit(&copy) == dl);
		while (tb_kbuf_next_event(&copy, &r) == TB_OK) {
			const tb_kbuf_record *a = &evs[skip + got];
			TB_FUZZ_CHECK(skip + got < nev);
			TB_FUZZ_CHECK(r.ts == a->ts && r.payload_len == a->payload_len &&
				      r.size == a->size && r.type_len == a->type_len);
			TB_FUZZ_CHECK(memcmp(r.payload, a->payload, a->payload_len) == 0);
			got++;
		}
		TB_FUZZ_CHECK(copy.status == TB_END);
		TB_FUZZ_CHECK(got >= 1);
		if (pass)
			TB_FUZZ_CHECK(skip + got == nev);
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
