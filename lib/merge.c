/* Merging sources by time (tracebound/merge.h): lib/merge.h's inline
 * merge for callers outside the library. */
#include "merge.h"

tb_status tb_merge_init(tb_merge *m, void *slots, size_t stride, size_t n)
{
	return m ? tb_merge_init_(m, slots, stride, n) : TB_ERR_ARG;
}

void tb_merge_restart(tb_merge *m)
{
	if (m)
		tb_merge_restart_(m);
}

size_t tb_merge_want(const tb_merge *m)
{
	return m ? tb_merge_want_(m) : SIZE_MAX;
}

void tb_merge_put(tb_merge *m, size_t src, uint64_t ts, uint32_t rank)
{
	if (m && src == m->pending && rank != UINT32_MAX)
		tb_merge_put_(m, src, ts, rank);
}

void tb_merge_end(tb_merge *m, size_t src)
{
	if (m && src == m->pending)
		tb_merge_end_(m, src);
}

size_t tb_merge_top(const tb_merge *m)
{
	return m ? tb_merge_top_(m) : SIZE_MAX;
}

void tb_merge_take(tb_merge *m)
{
	size_t top = tb_merge_top(m);
	if (top != SIZE_MAX)
		tb_merge_take_(m, top);
}
