/*
 * Merging sources by time (tracebound/merge.h), inline for the library's
 * own merges (a CPU's stream takes a call or four per event otherwise);
 * lib/merge.c gives the same to callers outside.  Internal header.
 *
 * A loser tree over the sources' keys, in the slots the caller keeps per
 * source.  The tree's leaves are the sources, leaf i at position n + i;
 * its inner nodes are positions 1 .. n-1 (the children of p are 2p and
 * 2p+1, for any n), inner node p in slot p's `node`: the key that lost the
 * match played there.  The winner of the root's match is m->win.  When the
 * winner's key changes (its source was refilled or ended), only the
 * matches on its path to the root are played again: one comparison a
 * level, no recursion.  Past TB_MERGE_SHORT sources a front is kept
 * besides: the runner-up (the least key but the winner's, `sec`), the
 * node where it lost to the winner (`apex`), and the least key of all the
 * others (`rest`).  A winner's new key below sec keeps it the winner, and
 * one between sec and rest only swaps the two at their apex: no climb.
 * So when the next winner is one of two sources that interleave while
 * the others are idle or done (the sparse CPUs of a large machine), a
 * pick costs two comparisons, not the log2 N of a climb; anything else
 * climbs, then reads the front off the two paths again. A plain scan of the
 * sources is not kept for few of them: from 2 sources on the tree took fewer instructions a pick
 * than the scan it replaced (bench/merge_bench.c under callgrind: equal
 * at 2 CPUs, 16% fewer at 4), and one source plays no match at all.
 */
#ifndef TB_LIB_MERGE_H
#define TB_LIB_MERGE_H

#include <string.h>

#include "tracebound/merge.h"

/* Every real key is below it: an ended source. */
#define TB_MERGE_ENDED ((tb_merge_key){ UINT64_MAX, UINT64_MAX })

static inline tb_merge_slot *tb_merge_slot_(const tb_merge *m, size_t i)
{
	return (tb_merge_slot *)(void *)((unsigned char *)m->slots + i * m->stride);
}

static inline int tb_merge_less_(const tb_merge_key *a, const tb_merge_key *b)
{
	return a->ts < b->ts || (a->ts == b->ts && a->ord < b->ord);
}

/* Past TB_MERGE_SHORT sources, the front (see the top of this file):
 * after a climb, the runner-up and the rest's least key, read off the
 * winner's path and the runner-up's path below their apex. */
#define TB_MERGE_SHORT 64 /* up to 6 levels: the plain climb costs less */
#define TB_MERGE_BACKOFF_MAX 64u
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static void tb_merge_front_(tb_merge *m)
{
	size_t w = (size_t)(m->win.ord & UINT32_MAX), p, r, apex = 0;
	tb_merge_key sec = TB_MERGE_ENDED, rest = TB_MERGE_ENDED;
	m->apex = 0;
	if (m->win.ord == UINT64_MAX)
		return; /* every source ended */
	/* the least loser on the winner's path is the runner-up; the others
	 * there are the rest's */
	for (p = (m->n + w) / 2; p >= 1; p /= 2, m->plays++) {
		const tb_merge_key *k = &tb_merge_slot_(m, p)->node;
		if (tb_merge_less_(k, &sec)) {
			rest = sec;
			sec = *k;
			apex = p;
		} else if (tb_merge_less_(k, &rest)) {
			rest = *k;
		}
	}
	if (sec.ord != UINT64_MAX) {
		/* so are the losers to the runner-up below the apex */
		r = (size_t)(sec.ord & UINT32_MAX);
		for (p = (m->n + r) / 2; p > apex; p /= 2, m->plays++) {
			const tb_merge_key *k = &tb_merge_slot_(m, p)->node;
			if (tb_merge_less_(k, &rest))
				rest = *k;
		}
	}
	m->apex = apex;
	m->sec = sec;
	m->rest = rest;
}

/* Play every match, the deepest first.  A match's winner goes up through
 * the leaf of its node's own index (p's `leaf`): by then that leaf (at
 * position n + p, under node (n + p) / 2 >= p) has played its match. */
static inline void tb_merge_build_(tb_merge *m)
{
	size_t p;
	if (m->n == 1) {
		m->win = tb_merge_slot_(m, 0)->leaf; /* no match to play */
		return;
	}
	for (p = m->n - 1; p >= 1; p--) {
		size_t l = 2 * p, r = l + 1;
		tb_merge_key a = tb_merge_slot_(m, l >= m->n ? l - m->n : l)->leaf;
		tb_merge_key b = tb_merge_slot_(m, r >= m->n ? r - m->n : r)->leaf;
		tb_merge_slot *s = tb_merge_slot_(m, p);
		if (tb_merge_less_(&b, &a)) {
			s->node = a;
			s->leaf = b;
		} else {
			s->node = b;
			s->leaf = a;
		}
	}
	m->win = tb_merge_slot_(m, 1)->leaf;
	m->skip = m->backoff = 0;
	if (m->n > TB_MERGE_SHORT)
		tb_merge_front_(m);
}

static inline tb_status tb_merge_init_(tb_merge *m, void *slots, size_t stride, size_t n)
{
	memset(m, 0, sizeof(*m));
	m->pending = SIZE_MAX;
	m->win = TB_MERGE_ENDED;
	if (n > UINT32_MAX || (n && (!slots || stride < sizeof(tb_merge_slot) ||
				     stride % _Alignof(tb_merge_slot) ||
				     (uintptr_t)slots % _Alignof(tb_merge_slot))))
		return TB_ERR_ARG;
	m->slots = slots;
	m->stride = stride;
	m->n = n;
	m->pending = n ? 0 : SIZE_MAX;
	return TB_OK;
}

static inline void tb_merge_restart_(tb_merge *m)
{
	m->filled = 0;
	m->pending = m->n ? 0 : SIZE_MAX;
	m->win = TB_MERGE_ENDED;
	m->apex = 0;
}

/* The source to refill: in the first pass the next in index order, then
 * the one taken last (`pending` holds both). */
static inline size_t tb_merge_want_(const tb_merge *m)
{
	return m->pending;
}

/* The initial pass (every source in order), kept out of the per-item path. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static void tb_merge_first_(tb_merge *m, size_t src, tb_merge_key k)
{
	tb_merge_slot_(m, src)->leaf = k;
	m->pending = ++m->filled;
	if (m->filled == m->n) {
		m->pending = SIZE_MAX;
		tb_merge_build_(m);
	}
}

/* The plain climb of the winner src with its new key k: the matches on
 * its path (none for one source), each against the key that lost there. */
static inline size_t tb_merge_climb_(tb_merge *m, size_t src, tb_merge_key k)
{
	size_t p, plays = 0;
	for (p = (m->n + src) / 2; p >= 1; p /= 2, plays++) {
		tb_merge_slot *s = tb_merge_slot_(m, p);
		if (tb_merge_less_(&s->node, &k)) {
			tb_merge_key t = s->node;
			s->node = k;
			k = t;
		}
	}
	m->win = k;
	return plays;
}

/* Past TB_MERGE_SHORT sources, when the front could not place k: the
 * climb, then the front again, unless it missed just before (then only
 * after `backoff` more climbs, doubling while it misses: sources that
 * all interleave pay the plain climb, not the front's reads too). */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static void tb_merge_slow_(tb_merge *m, size_t src, tb_merge_key k)
{
	if (m->apex) { /* the front missed */
		m->backoff = m->backoff ? 2 * m->backoff : 1;
		if (m->backoff > TB_MERGE_BACKOFF_MAX)
			m->backoff = TB_MERGE_BACKOFF_MAX;
		m->skip = m->backoff;
		m->apex = 0;
	}
	m->plays += tb_merge_climb_(m, src, k);
	if (m->skip)
		m->skip--;
	else
		tb_merge_front_(m);
}

/* The key of source src, the one tb_merge_want_ asked for. */
static inline void tb_merge_set_(tb_merge *m, size_t src, tb_merge_key k)
{
	if (m->filled < m->n) {
		tb_merge_first_(m, src, k);
		return;
	}
	m->pending = SIZE_MAX;
	if (m->n <= TB_MERGE_SHORT) {
		(void)tb_merge_climb_(m, src, k);
		return;
	}
	if (m->apex) {
		if (tb_merge_less_(&k, &m->sec)) { /* the winner stays */
			m->win = k;
			m->backoff = 0;
			return;
		}
		if (tb_merge_less_(&k, &m->rest)) {
			/* the runner-up wins, k loses to it at their apex */
			tb_merge_slot_(m, m->apex)->node = k;
			m->win = m->sec;
			m->sec = k;
			m->backoff = 0;
			return;
		}
	}
	tb_merge_slow_(m, src, k);
}

/* src: tb_merge_want_'s answer; rank below UINT32_MAX */
static inline void tb_merge_put_(tb_merge *m, size_t src, uint64_t ts, uint32_t rank)
{
	tb_merge_key k;
	k.ts = ts;
	k.ord = (uint64_t)rank << 32 | (uint64_t)src;
	tb_merge_set_(m, src, k);
}

static inline void tb_merge_end_(tb_merge *m, size_t src)
{
	tb_merge_set_(m, src, TB_MERGE_ENDED);
}

/* The top source once tb_merge_want_ has nothing to ask (SIZE_MAX: all ended). */
static inline size_t tb_merge_ready_top_(const tb_merge *m)
{
	return m->win.ord == UINT64_MAX ? SIZE_MAX : (size_t)(m->win.ord & UINT32_MAX);
}

static inline size_t tb_merge_top_(const tb_merge *m)
{
	return m->pending != SIZE_MAX ? SIZE_MAX : tb_merge_ready_top_(m);
}

/* The top source is taken: top from tb_merge_top_ (not SIZE_MAX). */
static inline void tb_merge_take_(tb_merge *m, size_t top)
{
	m->pending = top;
}

/* The ready top source, taken (SIZE_MAX: all ended, nothing taken). */
static inline size_t tb_merge_pop_ready_(tb_merge *m)
{
	size_t top = tb_merge_ready_top_(m);
	if (top != SIZE_MAX)
		tb_merge_take_(m, top);
	return top;
}

#endif /* TB_LIB_MERGE_H */
