/* A capture's statistics (include/tracebound/stats.h): the counts and
 * the text `tracebound stats` prints. */
#include <string.h>

#include "tracebound/listing.h"
#include "tracebound/session_perf.h"
#include "tracebound/stats.h"
#include "internal.h"

/* The buffer of the trace.dat that session buffer k reads (the top one
 * when the names do not say). */
static const tb_dat_buffer *dat_buffer(const tb_session *s, size_t k)
{
	const tb_session_buffer_info *bi = tb_session_buffer(s, k);
	const tb_dat *d = tb_session_dat(s);
	const tb_dat_buffer *db = d ? tb_dat_find_buffer(d, "") : NULL;
	size_t j;
	for (j = 0; d && bi && j < d->nbuffers; j++)
		if (d->buffers[j].name.ptr == bi->name.ptr)
			db = &d->buffers[j];
	return db;
}

size_t tb_stats_cpus(const tb_session *s, size_t k, tb_stats_cpu *cpus, size_t cap)
{
	const tb_dat_buffer *db = tb_session_dat(s) ? dat_buffer(s, k) : NULL;
	const tb_session_buffer_info *bi = tb_session_buffer(s, k);
	size_t n = tb_session_dat(s) ? (db ? db->ncpus : 0) : (bi ? bi->ncpus : 0), i;
	for (i = 0; i < n && i < cap; i++) {
		memset(&cpus[i], 0, sizeof(cpus[i]));
		/* a perf.data's CPUs by number */
		cpus[i].cpu = db ? db->cpus[i].cpu : (uint32_t)i;
	}
	return n;
}

tb_status tb_stats_count(tb_stats *b, const tb_session_event *ev)
{
	size_t i;
	if (ev->format) {
		/* a capture uses tens of types: the last one met is checked first */
		for (i = b->ntypes; i > 0; i--)
			if (b->types[i - 1].format == ev->format)
				break;
		if (!i && b->ntypes == b->types_cap)
			return TB_ERR_NO_SPACE;
		if (!i) {
			b->types[b->ntypes].format = ev->format;
			b->types[b->ntypes].n = 0;
			i = ++b->ntypes;
		}
		b->types[i - 1].n++;
	} else {
		b->unknown++;
	}
	if (!b->events || ev->ts < b->first)
		b->first = ev->ts;
	if (!b->events || ev->ts > b->last)
		b->last = ev->ts;
	b->events++;
	for (i = 0; i < b->ncpus; i++)
		if (b->cpus[i].cpu == ev->cpu) {
			if (!b->cpus[i].events)
				b->cpus[i].first = ev->ts;
			b->cpus[i].last = ev->ts;
			b->cpus[i].events++;
			break;
		}
	return TB_OK;
}

static void put_ts(tb_text *t, uint64_t ts)
{
	tb_text_u64(t, ts / 1000000000u, 0, 0);
	tb_text_putc(t, '.');
	tb_text_u64(t, ts % 1000000000u, 9, TB_TEXT_ZERO);
}

/* Text from the capture, unprintable bytes as \xNN, a trailing newline
 * dropped, at most max bytes. */
static void put_capture_text(tb_text *t, const char *p, size_t n, size_t max)
{
	n = n < max ? n : max;
	while (n && (p[n - 1] == '\n' || p[n - 1] == '\0'))
		n--;
	tb_list_bytes(t, p, n, TB_LIST_SPACE);
}

static void put_u(tb_text *t, const char *before, uint64_t v, const char *after)
{
	tb_text_puts(t, before);
	tb_text_u64(t, v, 0, 0);
	tb_text_puts(t, after);
}

static int name_cmp(const tb_format *a, const tb_format *b)
{
	size_t n;
	int r;
	n = a->system_len < b->system_len ? a->system_len : b->system_len;
	r = n ? memcmp(a->system, b->system, n) : 0;
	if (r || a->system_len != b->system_len)
		return r ? r : a->system_len < b->system_len ? -1 : 1;
	n = a->name_len < b->name_len ? a->name_len : b->name_len;
	r = n ? memcmp(a->name, b->name, n) : 0;
	if (r || a->name_len != b->name_len)
		return r ? r : a->name_len < b->name_len ? -1 : 1;
	return 0;
}

/* Most frequent first; equal counts by system:event. */
static int type_less(const void *pa, const void *pb)
{
	const tb_stats_type *a = pa, *b = pb;
	if (a->n != b->n)
		return a->n > b->n;
	return name_cmp(a->format, b->format) < 0;
}

static void buffer_text(tb_text *t, const tb_session *s, size_t k, tb_stats *b)
{
	uint64_t pages = 0, dropped = 0, unknown = 0;
	const tb_dat *d = tb_session_dat(s);
	const tb_dat_buffer *db = d ? dat_buffer(s, k) : NULL;
	const tb_session_buffer_info *bi = tb_session_buffer(s, k);
	size_t i;
	for (i = 0; i < b->ncpus; i++) {
		tb_session_cpu_stats cs;
		if (tb_session_cpu_stats_get(s, k, b->cpus[i].cpu, &cs) == TB_OK) {
			pages += cs.pages;
			dropped += cs.dropped;
			unknown += cs.drops_unknown;
		}
	}
	tb_text_puts(t, "trace clock: ");
	put_capture_text(t, bi->clock.ptr, bi->clock.len, SIZE_MAX);
	/* the session names "local" when the file says nothing */
	if (d && !(db && db->clock.len) && !d->v6_clock.len && !d->trace_clock.len)
		tb_text_puts(t, " (not recorded: trace-cmd's default)");
	put_u(t, "\nevents: ", b->events, "\n");
	put_u(t, "pages: ", pages, "\n");
	put_u(t, "dropped: ", dropped, unknown ? " (plus drops of unknown size)\n" : "\n");
	if (b->events) {
		tb_text_puts(t, "first: ");
		put_ts(t, b->first);
		tb_text_puts(t, "\nlast: ");
		put_ts(t, b->last);
		tb_text_puts(t, "\nspan: ");
		put_ts(t, b->last - b->first);
		tb_text_puts(t, " s\n");
	}
	tb_text_puts(t, "per cpu:\n");
	for (i = 0; i < b->ncpus; i++) {
		const tb_stats_cpu *c = &b->cpus[i];
		tb_session_cpu_stats cs;
		put_u(t, "  cpu ", c->cpu, ": ");
		put_u(t, "", c->events, " events");
		if (c->events) {
			tb_text_puts(t, ", ");
			put_ts(t, c->first);
			tb_text_puts(t, " .. ");
			put_ts(t, c->last);
		}
		if (tb_session_cpu_stats_get(s, k, c->cpu, &cs) == TB_OK) {
			put_u(t, ", ", cs.dropped, " dropped");
			if (cs.drops_unknown)
				put_u(t, " (plus ", cs.drops_unknown, " drops of unknown size)");
			if (cs.damaged_pages)
				put_u(t, ", ", cs.damaged_pages, " damaged pages");
		}
		tb_text_putc(t, '\n');
	}
	if (b->ntypes > 1)
		tb_heap_sort(b->types, b->ntypes, sizeof(*b->types), type_less);
	tb_text_puts(t, "per event:\n");
	for (i = 0; i < b->ntypes; i++) {
		const tb_format *f = b->types[i].format;
		tb_text_puts(t, "  ");
		tb_text_u64(t, b->types[i].n, 10, 0);
		tb_text_puts(t, "  ");
		tb_text_put(t, f->system, f->system ? f->system_len : 0);
		tb_text_putc(t, ':');
		tb_text_put(t, f->name, f->name_len);
		tb_text_putc(t, '\n');
	}
	if (b->unknown) {
		tb_text_puts(t, "  ");
		tb_text_u64(t, b->unknown, 10, 0);
		tb_text_puts(t, "  (event ids without a format)\n");
	}
	if (b->errors)
		put_u(t, "malformed pages: ", b->errors, "\n");
}

/* A perf.data: what its header says, then its one stream as a buffer. */
static void perf_text(tb_text *t, const tb_session *s, tb_stats *b)
{
	const tb_perf *f = tb_session_perf(s);
	tb_text_puts(t, f->pipe ? "format: perf.data (pipe stream)\ncompression: "
				: "format: perf.data\ncompression: ");
	tb_text_puts(t, f->has_compression ? "zstd\nhostname: " : "none\nhostname: ");
	put_capture_text(t, (const char *)f->hostname.ptr, f->hostname.len, 64);
	tb_text_puts(t, "\nosrelease: ");
	put_capture_text(t, (const char *)f->osrelease.ptr, f->osrelease.len, 64);
	tb_text_puts(t, "\nperf version: ");
	put_capture_text(t, (const char *)f->version.ptr, f->version.len, 64);
	put_u(t, "\nattrs: ", f->nattrs, "\n\n");
	if (tb_session_get_info(s)->nbuffers)
		buffer_text(t, s, 0, b);
}

/* Raw dumps: the layout the source rule found, then the one buffer. */
static void raw_text(tb_text *t, const tb_session *s, tb_stats *b)
{
	const tb_session_info *in = tb_session_get_info(s);
	const tb_session_buffer_info *bi = in->nbuffers ? tb_session_buffer(s, 0) : NULL;
	put_u(t, "format: raw sub-buffers (", bi ? bi->ncpus : 0, " dumps)\nbyte order: ");
	tb_text_puts(t, in->big_endian ? "big-endian" : "little-endian");
	put_u(t, "\nlong size: ", in->long_size, "\n");
	put_u(t, "formats: ", in->nformats, "\n\n");
	if (bi)
		buffer_text(t, s, 0, b);
}

void tb_stats_text(tb_text *t, const tb_session *s, tb_stats *bufs)
{
	const tb_dat *d = tb_session_dat(s);
	size_t nb = tb_session_get_info(s)->nbuffers, i, k, n;
	if (!d) {
		/* perf.data, else raw dumps (no header of theirs to say) */
		if (tb_session_get_info(s)->is_perf)
			perf_text(t, s, bufs);
		else
			raw_text(t, s, bufs);
		return;
	}
	put_u(t, "version: ", d->version, "\ncompression: ");
	if (d->compression.len && d->compression.ptr) {
		/* the compression's name as C text: up to 16 bytes, to a NUL */
		const char *nul;
		n = d->compression.len < 16 ? d->compression.len : 16;
		if ((nul = memchr(d->compression.ptr, 0, n)) != NULL)
			n = (size_t)(nul - d->compression.ptr);
		tb_text_put(t, d->compression.ptr, n);
	} else {
		tb_text_puts(t, "none");
	}
	put_u(t, "\nbuffers: ", d->nbuffers, "\nuname: ");
	if (d->uname.len)
		put_capture_text(t, d->uname.ptr, d->uname.len, SIZE_MAX);
	else
		tb_text_puts(t, "(not recorded)");
	tb_text_putc(t, '\n');
	for (i = 0, k = 0; i < d->nbuffers; i++) {
		const tb_dat_buffer *b = &d->buffers[i];
		tb_text_puts(t, "\nbuffer: \"");
		put_capture_text(t, b->name.ptr, b->name.len, 64);
		tb_text_puts(t, b->latency ? "\" (latency text)\n" : "\"\n");
		if (b->latency || !b->ncpus)
			continue;
		if (k < nb && tb_session_buffer(s, k)->name.ptr == b->name.ptr) {
			buffer_text(t, s, k, &bufs[k]);
			k++;
		}
	}
}
