/*
 * pmclog stream decoder harness.
 *
 * Input: byte 0 chooses decoder options, byte 1 the split pattern, byte 2
 * its parameter; the rest is the log.  The log is decoded one-shot, then
 * again fed in pieces (each an exact-size heap copy, so ASan sees any
 * over-read), and both decodes must give the same events and the same end.
 * Invariants: offsets contiguous and increasing, counts 1, 2, 3..., every
 * pointer inside its record, multipart parts inside the slots, no call
 * sequence without progress.
 *
 * The promises of pmclog.h checked: a stream decodes to the same records
 * and the same end however it is split (one piece, tb_pmclog_open_buffer,
 * and pieces of an input-chosen pattern); an error's offset lies inside
 * the stream, in the record after the last good one; every CALLCHAIN
 * slot read by tb_pmclog_cc_slot and tb_pmclog_cc_copy is the value the
 * harness reads from the slot's bytes itself.
 */
#include <string.h>

#include "fuzz.h"
#include "tracebound/pmclog.h"
#include "../tests/pmclog_snap.h"

#define MAX_EVENTS 4096

typedef struct outcome {
	tb_pmclog_snap *ev;
	size_t n;
	tb_status end;
	tb_error err;
} outcome;

static void options_from(uint8_t b, tb_pmclog_options *opt)
{
	memset(opt, 0, sizeof(*opt));
	opt->addr_size = (b & 3) == 1 ? 4 : (b & 3) == 2 ? 8 : 0;
	opt->generation = ((b >> 2) & 3) % 3;
	opt->byte_order = (b >> 4) & 3; /* 3: invalid, must be refused */
	if (b & 0x40)
		opt->flags |= TB_PMCLOG_STOP_AT_CLOSELOG;
	if (b & 0x80)
		opt->max_pcs = 16; /* exercise the limit */
}

/* The library's text and JSON of a record: the size they say does not
 * depend on the buffer, and a cut rendering is a prefix of the whole. */
static void check_rendering(const tb_pmclog_event *ev)
{
	static char whole[1u << 20];
	char small[40];
	int json;
	for (json = 0; json < 2; json++) {
		tb_text t, c;
		tb_text_init(&t, whole, sizeof(whole));
		tb_text_init(&c, small, sizeof(small));
		if (json) {
			tb_pmclog_json(&t, ev);
			tb_pmclog_json(&c, ev);
		} else {
			tb_pmclog_text(&t, ev);
			tb_pmclog_text(&c, ev);
		}
		TB_FUZZ_CHECK(!tb_text_truncated(&t) && t.len > 0 && whole[t.len - 1] == '\n');
		TB_FUZZ_CHECK(c.need == t.need && memcmp(small, whole, c.len) == 0);
	}
}

static void check_event(const tb_pmclog_event *ev, uint64_t want_off,
			uint64_t want_count)
{
	const tb_pmclog_str *str;
	tb_pmclog_event copy = *ev;
	TB_FUZZ_CHECK(ev->offset == want_off);
	TB_FUZZ_CHECK(ev->count == want_count);
	TB_FUZZ_CHECK(ev->len >= (ev->legacy ? 12 : 16) && ev->len % 4 == 0);
	TB_FUZZ_CHECK(ev->addr_size == 4 || ev->addr_size == 8);
	TB_FUZZ_CHECK(ev->data != NULL);
	str = tb_pmclog_snap_str(&copy);
	if (str)
		TB_FUZZ_CHECK(str->len == 0 ||
			      tb_fuzz_inside(str->ptr, str->len, ev->data, ev->len));
	if (ev->type == TB_PMCLOG_CALLCHAIN) {
		uint32_t i, used = 0;
		TB_FUZZ_CHECK(ev->u.cc.npc == 0 ||
			      tb_fuzz_inside(ev->u.cc.pc,
					     (size_t)ev->u.cc.npc * ev->addr_size,
					     ev->data, ev->len));
		TB_FUZZ_CHECK(ev->u.cc.pc_first <= ev->u.cc.npc);
		TB_FUZZ_CHECK(ev->u.cc.nparts <= TB_PMCLOG_MAX_PARTS);
		for (i = 0; i < ev->u.cc.nparts; i++) {
			const tb_pmclog_part *p = &ev->u.cc.parts[i];
			TB_FUZZ_CHECK(p->first >= used);
			TB_FUZZ_CHECK(p->nslots <= ev->u.cc.npc - p->first);
			used = p->first + p->nslots;
		}
		/* each slot as the harness reads the bytes itself, and the
		 * copy as the slots */
		for (i = 0; i < ev->u.cc.npc; i++) {
			uint64_t v = 0, got[2];
			unsigned b, w = ev->addr_size;
			const uint8_t *q = ev->u.cc.pc + (size_t)i * w;
			/* 32-bit words in the log's byte order, the low word
			 * first (the kernel's 64-bit layout) */
			for (b = 0; b < w; b++)
				v |= (uint64_t)q[b] << (8 * ((b & ~3u) +
					(ev->big_endian ? 3 - (b & 3) : (b & 3))));
			TB_FUZZ_CHECK(tb_pmclog_cc_slot(ev, i) == v);
			TB_FUZZ_CHECK(tb_pmclog_cc_copy(ev, i, got, 2) ==
				      (ev->u.cc.npc - i < 2 ? ev->u.cc.npc - i : 2));
			TB_FUZZ_CHECK(got[0] == v);
		}
		TB_FUZZ_CHECK(tb_pmclog_cc_slot(ev, ev->u.cc.npc) == 0);
		TB_FUZZ_CHECK(tb_pmclog_cc_copy(ev, ev->u.cc.npc, NULL, 0) == 0);
	}
	check_rendering(ev);
}

static void decode(const tb_pmclog_options *opt, const uint8_t *data,
		   size_t len, int split, uint8_t mode, uint8_t param,
		   tb_pmclog *p, outcome *out)
{
	tb_pmclog_event ev;
	tb_fuzz_split sp;
	size_t iters = 0;
	uint64_t next_off = 0;
	tb_fuzz_split_init(&sp, mode, param);
	tb_pmclog_init(p, opt);
	if (!split) {
		TB_FUZZ_CHECK(tb_pmclog_feed(p, data, len) == TB_OK);
		tb_pmclog_close(p);
		sp.pos = len;
	}
	out->n = 0;
	for (;;) {
		tb_status st = tb_pmclog_next(p, &ev, &out->err);
		/* Every call yields an event or a feed; nothing loops idle. */
		TB_FUZZ_CHECK(++iters <= 2 * len + MAX_EVENTS + 8);
		if (st == TB_OK) {
			check_event(&ev, next_off, out->n + 1);
			if (!split)
				TB_FUZZ_CHECK(tb_fuzz_inside(ev.data, ev.len, data, len));
			next_off = ev.offset + ev.len;
			if (out->n < MAX_EVENTS)
				tb_pmclog_take_snap(&ev, &out->ev[out->n]);
			out->n++;
			continue;
		}
		if (st == TB_NEED_MORE) {
			size_t n;
			TB_FUZZ_CHECK(split);
			n = tb_fuzz_next_piece(&sp, data, len);
			if (n == 0)
				tb_pmclog_close(p);
			else
				TB_FUZZ_CHECK(tb_pmclog_feed(p, sp.piece, n) == TB_OK);
			continue;
		}
		out->end = st;
		break;
	}
	free(sp.piece);
	/* A sticky end repeats. */
	TB_FUZZ_CHECK(tb_pmclog_next(p, &ev, NULL) == out->end);
	if (tb_is_error(out->end)) {
		TB_FUZZ_CHECK(out->err.status == out->end);
		TB_FUZZ_CHECK(out->err.what != NULL);
		TB_FUZZ_CHECK(out->err.offset < len);
		/* The fault is in the record after the last good one. */
		TB_FUZZ_CHECK(out->err.offset >= next_off);
	} else {
		TB_FUZZ_CHECK(out->end == TB_END);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	tb_pmclog_options opt;
	tb_pmclog *p;
	outcome a, b;
	size_t i, n;
	if (size < 3)
		return 0;
	options_from(data[0], &opt);
	p = malloc(sizeof(*p));
	a.ev = malloc(MAX_EVENTS * sizeof(*a.ev));
	b.ev = malloc(MAX_EVENTS * sizeof(*b.ev));
	TB_FUZZ_CHECK(p && a.ev && b.ev);
	decode(&opt, data + 3, size - 3, 0, 0, 0, p, &a);
	decode(&opt, data + 3, size - 3, 1, data[1], data[2], p, &b);
	/* tb_pmclog_open_buffer is the one-shot decode */
	{
		tb_pmclog_event ev;
		tb_error e;
		tb_status st;
		size_t k = 0;
		TB_FUZZ_CHECK(tb_pmclog_open_buffer(p, &opt, data + 3, size - 3) == TB_OK);
		while ((st = tb_pmclog_next(p, &ev, &e)) == TB_OK) {
			tb_pmclog_snap snap;
			tb_pmclog_take_snap(&ev, &snap);
			if (k < MAX_EVENTS)
				TB_FUZZ_CHECK(tb_pmclog_snap_eq(&snap, &a.ev[k]));
			k++;
		}
		TB_FUZZ_CHECK(k == a.n && st == a.end);
	}
	TB_FUZZ_CHECK(a.n == b.n);
	TB_FUZZ_CHECK(a.end == b.end);
	n = a.n < MAX_EVENTS ? a.n : MAX_EVENTS;
	for (i = 0; i < n; i++)
		TB_FUZZ_CHECK(tb_pmclog_snap_eq(&a.ev[i], &b.ev[i]));
	if (tb_is_error(a.end)) {
		TB_FUZZ_CHECK(a.err.offset == b.err.offset);
		TB_FUZZ_CHECK(strcmp(a.err.what, b.err.what) == 0);
	}
	free(a.ev);
	free(b.ev);
	free(p);
	return 0;
}
