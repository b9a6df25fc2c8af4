/*
 * Differential harness: one sub-buffer through tracebound's walker and
 * through libtraceevent's kbuffer, event by event.
 *
 * The first input byte picks the layout (byte order, long size, padding
 * time rule); the rest is the page, zero-filled to one 4 KiB sub-buffer.
 * tracebound reads an exact-size heap copy (so ASan sees any over-read);
 * kbuffer reads its own copy with slack after it, because kbuffer trusts
 * the page: it reads past the end when commit or the missed-events word
 * point there, and it is not what is under test.
 *
 * Only pages tracebound calls sound (every record walked to TB_END) are
 * compared; on those, kbuffer must return the same events at the same
 * offsets with the same sizes and timestamps, and the same missed-events
 * count.  The comparison stops at the first record where the two differ
 * by design (include/tracebound/kbuf.h), each rule named in stop_here();
 * any other difference aborts.
 */
#include <stdlib.h>
#include <string.h>

#include <kbuffer.h>

#include "fuzz.h"
#include "tracebound/kbuf.h"

#define PAGE 4096u
#define SLACK 64u
/* Every record is at least 4 bytes: the most records a page can hold. */
#define MAX_RECORDS (PAGE / 4u)

typedef struct walk {
	tb_kbuf_record rec[MAX_RECORDS];
	size_t n;
	int64_t missed;
	int count_outside; /* the stored missed count would lie past the page */
} walk;

/*
 * Records from which on kbuffer and tracebound part by design:
 *  - an absolute time stamp: tracebound keeps bits 59..63 of the running
 *    time and wraps as the kernel does; kbuffer takes the 59 bits as is;
 *  - null padding: tracebound ends the page's data there, as the kernel
 *    means it; kbuffer walks on through the zeroes as 4-byte records of
 *    size -4 (it misbehaves);
 *  - any padding under TB_KBUF_PAD_DELTA_IGNORE (the kernel's rule),
 *    which kbuffer does not implement.
 */
static int stop_here(const tb_kbuf_record *r, unsigned layout_flags)
{
	if (r->kind == TB_KBUF_TIME_STAMP || (r->flags & TB_KBUF_REC_NULL_PAD))
		return 1;
	return r->kind == TB_KBUF_PADDING && (layout_flags & TB_KBUF_PAD_DELTA_IGNORE);
}

/* Walk the whole page with tracebound; 1 when it is sound. */
static int tb_walk(const tb_kbuf_layout *l, const uint8_t *page, walk *w)
{
	tb_kbuf kb;
	tb_kbuf_record r;
	tb_status st;
	uint32_t last = 0;
	if (tb_kbuf_open(&kb, l, page, PAGE, NULL) != TB_OK)
		return 0;
	w->n = 0;
	w->missed = tb_kbuf_missed(&kb);
	/* commit bit 30: a missed-events count is stored after the data. */
	w->count_outside = (kb.raw_commit & (1u << 30)) != 0 &&
			   kb.end + (uint32_t)l->long_size > PAGE;
	while ((st = tb_kbuf_next(&kb, &r)) == TB_OK) {
		/* Progress, and every record inside the page. */
		TB_FUZZ_CHECK(w->n < MAX_RECORDS);
		TB_FUZZ_CHECK(r.offset >= last && r.size >= 4);
		TB_FUZZ_CHECK(r.offset <= PAGE && r.size <= PAGE - r.offset);
		if (r.payload)
			TB_FUZZ_CHECK(tb_fuzz_inside(r.payload, r.payload_len, page, PAGE));
		last = r.offset + r.size;
		w->rec[w->n++] = r;
	}
	return st == TB_END;
}

static void compare(const tb_kbuf_layout *l, const uint8_t *page,
		    const uint8_t *kpage, const walk *w)
{
	struct kbuffer *k = kbuffer_alloc(l->long_size == 8 ? KBUFFER_LSIZE_8 : KBUFFER_LSIZE_4,
					  l->big_endian ? KBUFFER_ENDIAN_BIG : KBUFFER_ENDIAN_LITTLE);
	unsigned long long kts = 0;
	void *kev;
	size_t i, stop, events = 0;
	/*
	 * Compare the events before the first stop record.  kbuffer is never
	 * moved past the last of them when a stop record follows: on null
	 * padding its next_event can loop for ever inside the zeroes.  Loading
	 * the page already moves kbuffer to its first event, so a page with
	 * no event before its first stop record is not given to kbuffer.
	 */
	for (stop = 0; stop < w->n && !stop_here(&w->rec[stop], l->flags); stop++)
		if (w->rec[stop].kind == TB_KBUF_DATA)
			events++;
	if (!k)
		return;
	if (events == 0 && stop < w->n) {
		kbuffer_free(k);
		return;
	}
	TB_FUZZ_CHECK(kbuffer_load_subbuffer(k, (void *)(uintptr_t)kpage) == 0);
	/*
	 * kbuffer reports the missed-events count only while its cursor is
	 * at data index 0, so it forgets it when the page starts with a time
	 * extend or padding, or holds no record; and it keeps the stored
	 * count in an int.  Compare where it keeps it, modulo 2^32 (tracebound
	 * clamps counts above INT64_MAX, which are skipped).  When the stored
	 * count would lie past the page, tracebound says "unknown" (-1) and
	 * kbuffer reads beyond the page (here: its slack): skipped too.
	 */
	if (w->n > 0 && w->rec[0].kind == TB_KBUF_DATA && w->rec[0].index == 0 &&
	    w->missed != INT64_MAX && !w->count_outside)
		TB_FUZZ_CHECK((uint32_t)kbuffer_missed_events(k) == (uint32_t)w->missed);
	kev = kbuffer_read_event(k, &kts);
	for (i = 0; i < stop; i++) {
		const tb_kbuf_record *r = &w->rec[i];
		if (r->kind != TB_KBUF_DATA)
			continue;
		TB_FUZZ_CHECK(kev != NULL);
		/* The same event: same place, size and time. */
		TB_FUZZ_CHECK((const uint8_t *)kev - kpage == r->payload - page);
		TB_FUZZ_CHECK(kts == r->ts);
		TB_FUZZ_CHECK(kbuffer_event_size(k) == (int)r->payload_len);
		TB_FUZZ_CHECK(kbuffer_curr_offset(k) == (int)r->offset);
		TB_FUZZ_CHECK(kbuffer_curr_size(k) == (int)r->size);
		if (--events == 0 && stop < w->n)
			break;
		kev = kbuffer_next_event(k, &kts);
	}
	/* Walked to the end together: kbuffer has nothing more either. */
	if (stop == w->n)
		TB_FUZZ_CHECK(kev == NULL);
	kbuffer_free(k);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static walk w; /* 40 KiB: too large for the stack of a harness */
	tb_kbuf_layout l;
	uint8_t *page, *kpage;
	unsigned cfg;
	size_t n;
	if (size < 1)
		return 0;
	cfg = data[0];
	if (tb_kbuf_layout_init(&l, cfg & 1u, (cfg & 2u) ? 4 : 8, PAGE,
				(cfg & 4u) ? TB_KBUF_PAD_DELTA_IGNORE : 0) != TB_OK)
		return 0;
	n = size - 1 < PAGE ? size - 1 : PAGE;
	page = calloc(1, PAGE);
	kpage = calloc(1, PAGE + SLACK);
	if (page && kpage) {
		memcpy(page, data + 1, n);
		memcpy(kpage, page, PAGE);
		if (tb_walk(&l, page, &w))
			compare(&l, page, kpage, &w);
	}
	free(page);
	free(kpage);
	return 0;
}
