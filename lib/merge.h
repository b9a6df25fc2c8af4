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
 * level, no recursion.  Up to TB_MERGE_SCAN_MAX sources the keys stay in
 * the leaves and are scanned.
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

static inline tb_merge_key tb_merge_scan_(const tb_merge *m)
{
	tb_merge_key w = TB_MERGE_ENDED;
	size_t i;
	for (i = 0; i < m->n; i++)
		if (tb_merge_less_(&tb_merge_slot_(m, i)->leaf, &w))
			w = tb_merge_slot_(m, i)->leaf;
	return w;
}

/* Play every match, the deepest first.  A match's winner goes up through
 * the leaf of its node's own index (p's `leaf`): by then that leaf (at
 * position n + p, under node (n + p) / 2 >= p) has played its match. */
static inline void tb_merge_build_(tb_merge *m)
{
	size_t p;
	if (m->n <= TB_MERGE_SCAN_MAX) {
		m->win = tb_merge_scan_(m);
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
	return TB_OK;
}

static inline void tb_merge_restart_(tb_merge *m)
{
	m->filled = 0;
	m->pending = SIZE_MAX;
	m->win = TB_MERGE_ENDED;
}

static inline size_t tb_merge_want_(const tb_merge *m)
{
	return m->filled < m->n ? m->filled : m->pending;
}

/* The initial pass (every source in order), kept out of the per-item path. */
static inline void tb_merge_first_(tb_merge *m, size_t src, tb_merge_key k)
{
	if (src != m->filled)
		return;
	tb_merge_slot_(m, src)->leaf = k;
	if (++m->filled == m->n)
		tb_merge_build_(m);
}

static inline void tb_merge_set_(tb_merge *m, size_t src, tb_merge_key k)
{
	size_t p;
	if (m->filled < m->n) {
		tb_merge_first_(m, src, k);
		return;
	}
	if (src != m->pending)
		return;
	m->pending = SIZE_MAX;
	if (m->n <= TB_MERGE_SCAN_MAX) {
		tb_merge_slot_(m, src)->leaf = k;
		m->win = tb_merge_scan_(m);
		return;
	}
	for (p = (m->n + src) / 2; p >= 1; p /= 2) {
		tb_merge_slot *s = tb_merge_slot_(m, p);
		if (tb_merge_less_(&s->node, &k)) {
			tb_merge_key t = s->node;
			s->node = k;
			k = t;
		}
	}
	m->win = k;
}

static inline void tb_merge_put_(tb_merge *m, size_t src, uint64_t ts, uint32_t rank)
{
	tb_merge_key k;
	if (rank == UINT32_MAX)
		return;
	k.ts = ts;
	k.ord = (uint64_t)rank << 32 | (uint64_t)src;
	tb_merge_set_(m, src, k);
}

static inline void tb_merge_end_(tb_merge *m, size_t src)
{
	tb_merge_set_(m, src, TB_MERGE_ENDED);
}

static inline size_t tb_merge_top_(const tb_merge *m)
{
	if (m->filled < m->n || m->pending != SIZE_MAX || m->win.ord == UINT64_MAX)
		return SIZE_MAX;
	return (size_t)(m->win.ord & UINT32_MAX);
}

/* The top source is taken: top from tb_merge_top_ (not SIZE_MAX). */
static inline void tb_merge_take_(tb_merge *m, size_t top)
{
	m->pending = top;
}

#endif /* TB_LIB_MERGE_H */
