/*
 * Merging sources by time: the order in which N sources (the CPUs of a
 * buffer, the buffers of a session, the files of a report) give their
 * next items, the least (timestamp, rank, source index) first, at
 * O(log N) per item (a loser tree).
 *
 * The caller keeps each source's next item and storage for one
 * tb_merge_slot per source, which may sit inside its own per-source
 * records (slots: the first source's, stride: the distance between two),
 * so that the merge needs no memory of its own.  The protocol mirrors a
 * scan that refills every source in index order before each pick:
 *
 *   for (;;) {
 *       while ((i = tb_merge_want(&m)) != SIZE_MAX) {
 *           refill source i;                 (an error: report it and
 *                                             come back: i is asked again)
 *           if it has an item: tb_merge_put(&m, i, its ts, its rank);
 *           else               tb_merge_end(&m, i);
 *       }
 *       if ((i = tb_merge_top(&m)) == SIZE_MAX) break;   (all ended)
 *       tb_merge_take(&m);                   (source i's item is used)
 *   }
 *
 * tb_merge_want first asks for every source in index order (after init
 * and after tb_merge_restart), then only for the source taken last.  An
 * error while refilling leaves the merge as it was, so that the refills
 * and their errors come in the same order as a scan's.
 */
#ifndef TRACEBOUND_MERGE_H
#define TRACEBOUND_MERGE_H

#include <stddef.h>
#include <stdint.h>

#include "tracebound/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A source's key: its item's timestamp, then ord = rank << 32 | source. */
typedef struct tb_merge_key {
	uint64_t ts;
	uint64_t ord;
} tb_merge_key;

/* One source's room (caller storage; opaque). */
typedef struct tb_merge_slot {
	tb_merge_key leaf;
	tb_merge_key node;
} tb_merge_slot;

typedef struct tb_merge {
	void *slots;             /* source 0's slot */
	size_t stride;           /* bytes from one source's slot to the next's */
	size_t n;                /* sources */
	size_t filled;           /* sources [0, filled) have keys */
	size_t pending;          /* to refill: the next of the first pass, or
				    the one taken last (SIZE_MAX: none) */
	tb_merge_key win;        /* the least key, once every source has one */
	/* past 64 sources, the front: the runner-up, the node where it lost
	   to the winner (0: no front) and the least key of the others */
	tb_merge_key sec, rest;
	size_t apex;
	size_t skip, backoff;    /* climbs before the front is read again,
				    after it missed */
	uint64_t plays;          /* past 64 sources: matches played again
				    after the first pass and nodes read for
				    the front (what the merge cost) */
} tb_merge;

/*
 * Start a merge of n sources (n < 2^32): slots points at source 0's slot,
 * source i's is stride * i bytes further (stride a multiple of
 * _Alignof(tb_merge_slot), at least sizeof(tb_merge_slot)).
 */
TB_API TB_MUST_CHECK tb_status tb_merge_init(tb_merge *m, void *slots, size_t stride,
					     size_t n);
/* Ask for every source again, in index order (the sources were moved). */
TB_API void tb_merge_restart(tb_merge *m);
/* The source to refill before the next pick, SIZE_MAX when none is. */
TB_API size_t tb_merge_want(const tb_merge *m);
/* Source src (tb_merge_want's answer; anything else is ignored) has an
 * item at ts; rank (below UINT32_MAX) orders equal times before the
 * source index does. */
TB_API void tb_merge_put(tb_merge *m, size_t src, uint64_t ts, uint32_t rank);
/* Source src (tb_merge_want's answer) has no more items. */
TB_API void tb_merge_end(tb_merge *m, size_t src);
/* The source with the least key; SIZE_MAX when every source has ended
 * (or when a source is still wanted). */
TB_API size_t tb_merge_top(const tb_merge *m);
/* The top source's item is used: it is the next one wanted. */
TB_API void tb_merge_take(tb_merge *m);

#ifdef __cplusplus
}
#endif

#endif /* TRACEBOUND_MERGE_H */
