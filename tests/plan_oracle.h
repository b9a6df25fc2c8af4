/*
 * The plan by its definition (session.h, tb_session_plan), read off every
 * page header: for test_parts.c and the parts fuzzer.
 */
#ifndef TB_TESTS_PLAN_ORACLE_H
#define TB_TESTS_PLAN_ORACLE_H

#include <stdlib.h>

#include "tracebound/tracebound.h"

static int tbt_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/*
 * When s merges one buffer whose CPUs' page times are each in order:
 * bound i is the least t past bound i-1 such that the share i/k of the
 * pages (total/k*i + total%k*i/k of them) start before t, i.e. the
 * want-th smallest page time plus one, or bound i-1 plus one when that is
 * not past it; none past the last pages' latest time.  A header too short
 * to read starts later than any time.  Returns 0 when that does not apply
 * (another layout, times out of order, more than cap pages, a time of
 * 2^64 - 1, an offset that wraps), else 1 with the bounds in out
 * (*nout of them, at most k - 1).  ts: room for cap page times.
 */
static int tbt_plan_defined(const tb_session *s, size_t k, uint64_t *ts, size_t cap,
			    uint64_t *out, size_t *nout)
{
	const tb_dat *d = tb_session_dat(s);
	const tb_dat_buffer *b = NULL;
	uint64_t lo = UINT64_MAX, hi = 0, prev, total = 0,
		 off = (uint64_t)tb_session_get_info(s)->ts_offset;
	size_t c, n = 0, i;
	*nout = 0;
	if (!d || tb_session_get_info(s)->nbuffers != 1)
		return 0;
	for (i = 0; i < d->nbuffers && !b; i++)
		if (!d->buffers[i].latency && d->buffers[i].ncpus)
			b = &d->buffers[i];
	if (!b || b->compressed || b->page_size != tb_session_buffer(s, 0)->page_size ||
	    b->page_size < 8)
		return 0;
	for (c = 0; c < b->ncpus; c++) {
		const tb_dat_cpu *cpu = &b->cpus[c];
		uint64_t np = cpu->size / b->page_size + (cpu->size % b->page_size != 0), p, last = 0;
		total += np;
		for (p = 0; p < np; p++) {
			uint64_t at = p * b->page_size, t = 0;
			int j;
			if (cpu->size - at < 8)
				continue;
			if (n == cap)
				return 0;
			for (j = 7; j >= 0; j--)
				t = t << 8 | d->file[cpu->offset + at + (size_t)(d->big_endian ? 7 - j : j)];
			if ((p && t < last) || t == UINT64_MAX)
				return 0;
			last = t;
			ts[n++] = t;
			if (p == 0 && t < lo)
				lo = t;
			if (p == np - 1 && t > hi)
				hi = t;
		}
	}
	if (hi + off < lo + off)
		return 0;
	qsort(ts, n, sizeof(*ts), tbt_cmp_u64);
	prev = lo;
	for (i = 1; total >= 2 && lo < hi && i < k; i++) {
		uint64_t want = total / k * i + total % k * i / k, t;
		if (want > n)
			break;
		t = want && ts[want - 1] + 1 > prev + 1 ? ts[want - 1] + 1 : prev + 1;
		if (t > hi)
			break;
		out[(*nout)++] = t + off;
		prev = t;
	}
	return 1;
}

#endif
