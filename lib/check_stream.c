/*
 * Checking the captures that stream (check.h): a raw trace_pipe_raw dump a
 * sub-buffer at a time, a pmclog stream a piece at a time, in constant
 * memory; telling a capture's kind from its first bytes; every anomaly in
 * `check`'s words.
 */
#include <string.h>

#include "internal.h"
#include "tracebound/check.h"
#include "tracebound/perfdata.h"
#include "tracebound/source.h"
#include "tracebound/tracedat.h"

/* A pipe's pmclog is fed in pieces of this size. */
#define PMCLOG_PIECE ((size_t)64 << 10)

/* A pmclog stream starts with a sound INITIALIZE record. */
static int looks_pmclog(tb_pmclog *pl, const tb_pmclog_options *po, const void *p, size_t n)
{
	tb_pmclog_event ev;
	tb_error e;
	if (tb_pmclog_open_buffer(pl, po, p, n) != TB_OK)
		return 0;
	return tb_pmclog_next(pl, &ev, &e) == TB_OK && ev.type == TB_PMCLOG_INITIALIZE;
}

tb_check_kind tb_check_stream_start(tb_check_stream *c, const void *head, size_t len,
				    const tb_kbuf_layout *l, const tb_pmclog_options *po)
{
	tb_error e;
	memset(c, 0, sizeof(*c));
	c->kind = TB_CHECK_KIND_UNKNOWN;
	if (len == 0 || !head) {
		c->kind = TB_CHECK_KIND_EMPTY;
	} else if (tb_dat_probe(head, len) || tb_perf_probe(head, len)) {
		c->kind = TB_CHECK_KIND_SESSION;
	} else if (looks_pmclog(&c->pl, po, head, len)) {
		c->kind = TB_CHECK_KIND_PMCLOG;
		c->piece = PMCLOG_PIECE;
		tb_pmclog_init(&c->pl, po);
	} else if (l) {
		c->layout = *l;
		if (tb_source_detect_order(head, len, l->long_size) == !l->big_endian &&
		    tb_kbuf_layout_init_ex(&c->layout, !l->big_endian, l->long_size, l->header_size,
					   l->subbuf_size, l->flags) != TB_OK)
			c->layout = *l; /* the same layout in the other order cannot fail */
		if (len >= c->layout.header_size &&
		    tb_kbuf_open(&c->kb, &c->layout, head, len, &e) == TB_OK) {
			c->kind = TB_CHECK_KIND_RAW;
			c->piece = c->layout.subbuf_size;
			tb_kbuf_stream_init(&c->ks, &c->layout, NULL, 0);
		}
	}
	c->done = c->kind != TB_CHECK_KIND_PMCLOG && c->kind != TB_CHECK_KIND_RAW;
	return c->kind;
}

tb_status tb_check_stream_feed(tb_check_stream *c, const void *data, size_t len)
{
	if (c->closed || c->done)
		return TB_ERR_ARG;
	if (c->kind == TB_CHECK_KIND_PMCLOG)
		return tb_pmclog_feed(&c->pl, data, len);
	if (c->ks.next < c->ks.len)
		return TB_ERR_ARG;
	tb_kbuf_stream_feed(&c->ks, data, len);
	return TB_OK;
}

void tb_check_stream_close(tb_check_stream *c)
{
	c->closed = 1;
	if (c->kind == TB_CHECK_KIND_PMCLOG)
		tb_pmclog_close(&c->pl);
}

static void subbuf_anomaly(tb_check_stream *c, tb_check_anomaly *a, const tb_error *e)
{
	a->part = TB_CHECK_SUBBUF;
	a->where = "sub-buffer";
	a->error = *e;
	a->page = c->ks.subbuf_index;
	a->offset = c->ks.subbuf_offset;
	c->anomalies++;
}

/*
 * A raw dump: a page whose commit is 0 holds no record (the header a
 * zero-filled page shows).  trace_pipe_raw hands out only pages that hold
 * data, so a few empty ones can only be filler (a tail written by dd
 * conv=sync, a file grown by truncate) and pass; but a dump of nothing but
 * empty pages is not one at all (a gigabyte of zeros would otherwise pass
 * as sound) and is an anomaly of its own.
 */
static tb_status raw_next(tb_check_stream *c, tb_check_anomaly *a)
{
	for (;;) {
		tb_kbuf_record r;
		tb_error e;
		tb_status st = tb_kbuf_stream_next(&c->ks, &c->kb, &e);
		if (st == TB_END && !c->closed)
			return TB_NEED_MORE;
		if (st == TB_END)
			break;
		if (st != TB_OK) {
			e.status = st;
			subbuf_anomaly(c, a, &e);
			return TB_OK;
		}
		c->pages++;
		c->empty += tb_kbuf_commit(&c->kb) == 0;
		if (tb_kbuf_missed(&c->kb) > 0)
			c->dropped += (uint64_t)tb_kbuf_missed(&c->kb);
		while ((st = tb_kbuf_next_event(&c->kb, &r)) == TB_OK)
			c->events++;
		if (st != TB_END) {
			e = tb_kbuf_error(&c->kb);
			e.status = st;
			subbuf_anomaly(c, a, &e);
			return TB_OK;
		}
	}
	c->done = 1;
	if (c->pages == 0 || c->empty != c->pages)
		return TB_END;
	a->part = TB_CHECK_DUMP;
	a->where = "dump";
	a->error.status = TB_ERR_VALUE;
	a->error.what = "every sub-buffer is empty (commit 0, as in zero-filled bytes): not a "
			"trace_pipe_raw dump, which holds only pages with events";
	c->anomalies++;
	return TB_OK;
}

static tb_status pmclog_next(tb_check_stream *c, tb_check_anomaly *a)
{
	for (;;) {
		tb_pmclog_event ev;
		tb_error e;
		tb_status st = tb_pmclog_next(&c->pl, &ev, &e);
		if (st == TB_NEED_MORE)
			return st;
		if (st != TB_OK) {
			c->done = 1;
			if (st == TB_END)
				return TB_END;
			a->part = TB_CHECK_STREAM;
			a->where = "pmclog";
			a->error = e;
			a->error.status = st;
			a->offset = e.offset;
			a->index = (size_t)c->events;
			c->anomalies++;
			return TB_OK;
		}
		c->events++;
		c->drops += ev.type == TB_PMCLOG_DROPNOTIFY;
		c->unknown += ev.type == TB_PMCLOG_UNKNOWN;
	}
}

tb_status tb_check_stream_next(tb_check_stream *c, tb_check_anomaly *a)
{
	memset(a, 0, sizeof(*a));
	if (c->done)
		return TB_END;
	return c->kind == TB_CHECK_KIND_PMCLOG ? pmclog_next(c, a) : raw_next(c, a);
}

void tb_check_stream_summary(tb_text *t, const tb_check_stream *c)
{
	/* "<lead 0><count 0><lead 1><count 1>...": the last count is the anomalies */
	static const char *const pmclog_lead[] = {"pmclog: ", " records, ",
						  " drop notifications, ", " of unknown type, "};
	static const char *const raw_lead[] = {"raw sub-buffers (", "-byte): ", " sub-buffers, ",
					       " events, ", " dropped, "};
	const char *const *lead;
	uint64_t v[5];
	size_t n, i;
	if (c->kind == TB_CHECK_KIND_PMCLOG) {
		lead = pmclog_lead;
		n = TB_ARRAY_LEN(pmclog_lead);
		v[0] = c->events;
		v[1] = c->drops;
		v[2] = c->unknown;
	} else if (c->kind == TB_CHECK_KIND_RAW) {
		lead = raw_lead;
		n = TB_ARRAY_LEN(raw_lead);
		v[0] = c->layout.subbuf_size;
		v[1] = c->pages;
		v[2] = c->events;
		v[3] = c->dropped;
	} else {
		return;
	}
	v[n - 1] = c->anomalies;
	for (i = 0; i < n; i++) {
		tb_text_puts(t, lead[i]);
		tb_text_u64(t, v[i], 0, 0);
	}
	tb_text_puts(t, c->anomalies ? " anomalies: MALFORMED" : " anomalies: ok");
}

/* " at file offset N" / " at offset N": a lead and a number. */
static void at(tb_text *t, const char *lead, uint64_t off)
{
	tb_text_puts(t, lead);
	tb_text_u64(t, off, 0, 0);
}

/* " (STATUS)" */
static void status_in_parens(tb_text *t, tb_status st)
{
	tb_text_put(t, " (", 2);
	tb_text_puts(t, tb_strerror(st));
	tb_text_putc(t, ')');
}

/* ": WHAT[ LEAD N] (status)": the error an anomaly carries (no offset
 * piece when lead is NULL). */
static void what_at(tb_text *t, const tb_check_anomaly *a, const char *lead, uint64_t off)
{
	tb_text_put(t, ": ", 2);
	tb_text_puts(t, a->error.what);
	if (lead)
		at(t, lead, off);
	status_in_parens(t, a->error.status);
}

/* "buffer "NAME" CPU N, sub-buffer N" of a walk's anomaly. */
static void walk_place(tb_text *t, const tb_check_anomaly *a, const tb_session *s)
{
	const tb_session_buffer_info *bi = s ? tb_session_buffer(s, a->buffer) : NULL;
	tb_text_put(t, "buffer \"", 8);
	if (bi && bi->name.len)
		tb_text_put(t, bi->name.ptr, bi->name.len < 64 ? bi->name.len : 64);
	tb_text_put(t, "\" CPU ", 6);
	tb_text_u64(t, a->cpu, 0, 0);
	at(t, ", sub-buffer ", a->page);
	if (a->part != TB_CHECK_PAGE) {
		at(t, " at file offset ", a->page_offset);
		at(t, ", record offset ", a->record);
		tb_text_put(t, ": ", 2);
	}
}

void tb_check_text(tb_text *t, const tb_check_anomaly *a, const tb_session *s)
{
	switch (a->part) {
	case TB_CHECK_PAGE:
		walk_place(t, a, s);
		what_at(t, a, " at file offset ", a->error.offset);
		break;
	case TB_CHECK_EVENT:
		walk_place(t, a, s);
		at(t, "event id ", a->id);
		tb_text_puts(t, " has no format");
		break;
	case TB_CHECK_RECORD:
		walk_place(t, a, s);
		if (a->format)
			tb_text_put(t, a->format->name, a->format->name_len);
		what_at(t, a, " at record byte ", a->error.offset);
		break;
	case TB_CHECK_SUBBUF:
		at(t, "sub-buffer ", a->page);
		at(t, " at file offset ", a->offset);
		what_at(t, a, " at offset ", a->error.offset);
		break;
	case TB_CHECK_STREAM:
		at(t, "record ", (uint64_t)a->index + 1);
		at(t, " at offset ", a->offset);
		what_at(t, a, NULL, 0);
		break;
	case TB_CHECK_DUMP:
		tb_text_puts(t, a->error.what);
		break;
	default: /* CAPTURE: its damage entry */
		tb_text_puts(t, a->where);
		what_at(t, a, " at file offset ", a->offset);
		break;
	}
}

void tb_check_damage_text(tb_text *t, const tb_session_damage *d, const tb_session *s)
{
	tb_span sys = { "", 0 }, text;
	tb_session_cpu_data cd;
	int z;
	if (strlen(d->where) == 12 && !memcmp(d->where, "event format", 12)) {
		/* the system's name as far as its first NUL, 64 bytes at most */
		size_t n;
		(void)tb_session_format_at(s, d->index, &sys, &text, NULL);
		n = sys.len < 64 ? sys.len : 64;
		if (n && memchr(sys.ptr, 0, n))
			n = strlen(sys.ptr);
		at(t, "event format ", d->index);
		tb_text_put(t, " (", 2);
		tb_text_put(t, sys.ptr, n);
		at(t, ") at file offset ", d->error.offset);
		tb_text_put(t, ": ", 2);
		tb_text_puts(t, d->error.what);
		status_in_parens(t, d->error.status);
		tb_text_puts(t, "; its events are not decoded");
	} else if (d->cut) {
		/* compressed data counts chunks: the first of them cut, its
		 * whole pages before the cut read */
		z = tb_session_cpu_data_at(s, d->index, 0, &cd, NULL) == TB_OK && cd.compressed;
		at(t, "CPU ", d->cpu);
		at(t, ": data cut short at file offset ", d->error.offset);
		at(t, ": ", d->units);
		tb_text_puts(t, z ? (d->units == 1 ? " chunk cut" : " chunks cut or lost")
				  : (d->units == 1 ? " page lost" : " pages lost"));
		at(t, " (", d->missing);
		tb_text_puts(t, z ? " bytes past the end of the file); the whole pages before "
				    "the cut are read"
				  : " bytes past the end of the file); the pages before it are read");
	} else {
		tb_text_puts(t, d->where);
		tb_text_put(t, ": ", 2);
		tb_text_puts(t, d->error.what);
		at(t, " at file offset ", d->error.offset);
		status_in_parens(t, d->error.status);
	}
}
