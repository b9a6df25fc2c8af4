/*
 * trace-cmd report's listings of a capture (report.h), written from the
 * session's tables as trace-cmd prints them, and its merge of several.
 */
#include "tracebound/report.h"
#include "tracebound/tracedat.h"

/* The first top-level buffer ("" name) of a capture, or SIZE_MAX. */
static size_t top_buffer(const tb_session *s)
{
	size_t b, n = tb_session_get_info(s)->nbuffers;
	for (b = 0; b < n; b++)
		if (tb_session_buffer(s, b)->name.len == 0)
			return b;
	return SIZE_MAX;
}

/* One past the highest CPU of the buffer's data table. */
static uint32_t cpu_slots(const tb_session *s, size_t buffer)
{
	tb_session_cpu_data cd;
	tb_error e;
	uint32_t n = 0;
	size_t i;
	for (i = 0; tb_session_cpu_data_at(s, buffer, i, &cd, &e) != TB_NOT_FOUND; i++)
		if (cd.cpu + 1u > n)
			n = cd.cpu + 1u;
	return n;
}

/* A time as trace-cmd's CPU listing prints it: "%5u.%06u" (rounded), with
 * -t every nanosecond; counter clocks as their raw count. */
static void put_time(tb_text *t, uint64_t ts, int ns_clock, int nsecs)
{
	uint64_t us = ts / 1000u + (ts % 1000u >= 500u);
	if (!ns_clock) {
		tb_text_u64(t, ts, 12, 0);
		return;
	}
	tb_text_u64(t, nsecs ? ts / 1000000000u : us / 1000000u, 5, 0);
	tb_text_putc(t, '.');
	tb_text_u64(t, nsecs ? ts % 1000000000u : us % 1000000u, nsecs ? 9 : 6, TB_TEXT_ZERO);
}

void tb_report_cpus(tb_text *t, const tb_session *s, const char *name, size_t name_len,
		    unsigned flags)
{
	size_t top = top_buffer(s);
	const tb_session_buffer_info *bi;
	uint32_t cpu, n;
	tb_text_puts(t, "List of CPUs in ");
	tb_text_put(t, name, name_len);
	tb_text_puts(t, " with data:\n");
	if (top == SIZE_MAX)
		return;
	bi = tb_session_buffer(s, top);
	n = cpu_slots(s, top);
	for (cpu = 0; cpu < n; cpu++) {
		tb_session_cpu_stats cs;
		if (tb_session_cpu_stats_get(s, top, cpu, &cs) != TB_OK || !cs.events)
			continue;
		tb_text_puts(t, "  ");
		tb_text_u64(t, cpu, 0, 0);
		if (flags & TB_REPORT_FIRST) {
			tb_text_puts(t, "\tFirst event:");
			put_time(t, cs.first_ts, bi->ns_clock, (flags & TB_REPORT_NSECS) != 0);
		}
		if (flags & TB_REPORT_LAST) {
			tb_text_puts(t, "\tLast event:");
			put_time(t, cs.last_ts, bi->ns_clock, (flags & TB_REPORT_NSECS) != 0);
		}
		tb_text_putc(t, '\n');
	}
}

/* The CPUSTAT options as trace-cmd keeps them: each one's last byte made a
 * newline, all of them joined, written up to the first NUL. */
typedef struct stat_walk {
	tb_text *t;
	int found;
} stat_walk;

static int put_cpustat(void *ctx, unsigned id, const uint8_t *payload, uint32_t size,
		       uint64_t offset)
{
	stat_walk *w = ctx;
	const uint8_t *nul;
	(void)offset;
	if (id != TB_DAT_OPT_CPUSTAT || !size)
		return 0;
	w->found = 1;
	nul = memchr(payload, 0, size - 1u);
	tb_text_put(w->t, (const char *)payload, nul ? (size_t)(nul - payload) : size - 1u);
	if (nul)
		return 1;
	tb_text_putc(w->t, '\n');
	return 0;
}

/* trace-cmd report --stat: the kernel's buffer statistics saved at the end
 * of the record, then where each CPU's data of the top buffer is. */
static size_t put_stat(tb_text *t, const tb_session *s, tb_report_problem_fn fn, void *ctx)
{
	const tb_dat *d = tb_session_dat(s);
	size_t top = top_buffer(s), i, problems = 0;
	stat_walk w = { t, 0 };
	tb_error e;
	uint64_t next;
	uint32_t cpu, n;
	tb_text_puts(t, "\nKernel buffer statistics:\n"
		     "  Note: \"entries\" are the entries left in the kernel ring buffer and are not\n"
		     "        recorded in the trace data. They should all be zero.\n\n");
	if (d && tb_dat_foreach_option(d, put_cpustat, &w, &e) != TB_OK) {
		problems++;
		if (fn)
			fn(ctx, UINT32_MAX, &e);
	}
	tb_text_puts(t, w.found ? "\n" : " No stats in this file\n");
	if (top == SIZE_MAX || !d)
		return problems;
	/* trace-cmd lists its CPU slots 0..n-1 (slots the table lacks: 0 at 0);
	 * compressed data it counts at the offsets it would have uncompressed,
	 * one after the other from the first page on */
	next = d->page_size;
	n = cpu_slots(s, top);
	for (cpu = 0; cpu < n; cpu++) {
		tb_session_cpu_data cd;
		uint64_t offset = 0, size = 0;
		tb_status st;
		for (i = 0; (st = tb_session_cpu_data_at(s, top, i, &cd, &e)) != TB_NOT_FOUND; i++)
			if (cd.cpu == cpu)
				break;
		if (st == TB_OK && cd.compressed && cd.size) {
			offset = next;
			size = cd.data_size;
			next = (next + size + d->page_size - 1u) / d->page_size * d->page_size;
		} else if (st == TB_OK) {
			offset = cd.offset;
			size = cd.data_size;
		} else if (st != TB_NOT_FOUND) {
			problems++;
			if (fn)
				fn(ctx, cpu, &e);
		}
		tb_text_puts(t, "CPU");
		tb_text_u64(t, cpu, 0, 0);
		tb_text_puts(t, " data recorded at offset=0x");
		tb_text_hex(t, offset, 0, 0);
		tb_text_puts(t, "\n    ");
		tb_text_u64(t, size, 0, 0);
		tb_text_puts(t, " bytes in size\n");
	}
	return problems;
}

/* A text option up to its first NUL, or `none` when it was not recorded. */
static void put_text_or(tb_text *t, tb_span v, const char *none)
{
	const char *nul = v.len ? memchr(v.ptr, 0, v.len) : NULL;
	if (v.len)
		tb_text_put(t, v.ptr, nul ? (size_t)(nul - v.ptr) : v.len);
	else
		tb_text_puts(t, none);
	tb_text_putc(t, '\n');
}

size_t tb_report_info(tb_text *t, const tb_session *s, int what, tb_report_problem_fn fn,
		      void *ctx)
{
	const tb_session_info *info = tb_session_get_info(s);
	size_t problems = 0;
	tb_text_puts(t, "cpus=");
	tb_text_u64(t, info->ncpus, 0, 0);
	tb_text_putc(t, '\n');
	if (what == TB_REPORT_STAT)
		problems = put_stat(t, s, fn, ctx);
	if (what == TB_REPORT_UNAME)
		put_text_or(t, info->uname, " uname was not recorded in this file");
	if (what == TB_REPORT_UNAME || what == TB_REPORT_VERSION)
		put_text_or(t, info->tracer_version, " version was not recorded in this file");
	return problems;
}

/* Where a buffer's events go among equal times: a session's top buffer
 * by the session's place; a named instance after every top buffer and the
 * instances of the sessions before. */
static uint32_t merge_rank(const tb_report_merge *m, size_t k, uint32_t buffer)
{
	size_t j, b, rank = m->n;
	if (!tb_session_buffer(m->s[k], buffer)->name.len)
		return (uint32_t)k;
	for (j = 0; j < k; j++)
		for (b = 0; b < tb_session_get_info(m->s[j])->nbuffers; b++)
			rank += tb_session_buffer(m->s[j], b)->name.len != 0;
	for (b = 0; b < buffer; b++)
		rank += tb_session_buffer(m->s[k], b)->name.len != 0;
	return (uint32_t)rank;
}

tb_status tb_report_merge_init(tb_report_merge *m, tb_session *const *s, tb_report_head *heads,
			       size_t n)
{
	if (!m || !s || !heads || !n)
		return TB_ERR_ARG;
	memset(heads, 0, n * sizeof(*heads));
	m->s = s;
	m->heads = heads;
	m->n = n;
	return tb_merge_init(&m->order, &heads[0].slot, sizeof(heads[0]), n);
}

tb_status tb_report_merge_next(tb_report_merge *m, size_t *which, tb_session_event *ev,
			       tb_error *err)
{
	size_t k;
	/* the next event of each session taken (at the start: of every one) */
	while ((k = tb_merge_want(&m->order)) != SIZE_MAX) {
		tb_report_head *h = &m->heads[k];
		while (!h->has && !h->done) {
			tb_status st = tb_session_next(m->s[k], &h->ev, err);
			if (st == TB_END) {
				h->done = 1;
			} else if (st != TB_OK) {
				*which = k; /* asked for again on the next call */
				return st;
			} else {
				h->has = 1;
				h->rank = merge_rank(m, k, h->ev.buffer);
			}
		}
		if (h->has)
			tb_merge_put(&m->order, k, h->ev.ts, h->rank);
		else
			tb_merge_end(&m->order, k);
	}
	if ((k = tb_merge_top(&m->order)) == SIZE_MAX)
		return TB_END;
	tb_merge_take(&m->order);
	m->heads[k].has = 0;
	*which = k;
	*ev = m->heads[k].ev;
	return TB_OK;
}
