/*
 * The anomalies of an opened session, one at a time (check.h): the
 * session's damage list, then its walk, each record checked against its
 * format.
 */
#include <string.h>

#include "internal.h"
#include "tracebound/check.h"
#include "tracebound/session_perf.h"
#include "tracebound/tracedat.h"

void tb_check_init(tb_check *c, tb_session *s)
{
	size_t i;
	uint32_t id;
	memset(c, 0, sizeof(*c));
	c->s = s;
	c->big_endian = s ? tb_session_get_info(s)->big_endian : 0;
	c->done = s == NULL;
	c->ndamage = tb_session_ndamage(s);
	/* every format counts, used or not */
	for (i = 0; s && i < tb_session_get_info(s)->nformats; i++)
		if (tb_session_format_at(s, i, NULL, NULL, &id) && tb_session_format(s, id) != NULL)
			c->nformats++;
}

/* The losses every CPU's data says, once the walk is over. */
static void add_drops(tb_check *c)
{
	const tb_dat *d = tb_session_dat(c->s);
	size_t i, j, nb = tb_session_get_info(c->s)->nbuffers;
	for (i = 0; i < nb; i++) {
		const tb_session_buffer_info *bi = tb_session_buffer(c->s, i);
		const tb_dat_buffer *b = NULL;
		size_t n = bi->ncpus;
		if (d) { /* the CPUs of the container's buffer (perf.data: 0..n-1 of buffer 0) */
			for (j = 0; j < d->nbuffers; j++)
				if (d->buffers[j].name.ptr == bi->name.ptr)
					b = &d->buffers[j];
			n = b ? b->ncpus : 0;
		} else if (i > 0) {
			break;
		}
		for (j = 0; j < n; j++) {
			tb_session_cpu_stats cs;
			if (tb_session_cpu_stats_get(c->s, i, b ? b->cpus[j].cpu : (uint32_t)j, &cs) ==
			    TB_OK) {
				c->dropped += cs.dropped;
				c->drops_unknown += d ? cs.drops_unknown : 0;
			}
		}
	}
}

void tb_check_summary(tb_text *t, const tb_check *c)
{
	const tb_dat *d = c->s ? tb_session_dat(c->s) : NULL;
	tb_session_need nd;
	if (!c->s)
		return;
	if (d) {
		const tb_dat_text *z = &d->compression;
		tb_text_put(t, "trace.dat v", 11);
		tb_text_u64(t, d->version, 0, 0);
		if (z->len && !(z->len == 4 && !memcmp(z->ptr, "none", 4))) {
			tb_text_put(t, " (", 2);
			tb_text_put(t, z->ptr, z->len < 16 ? z->len : 16);
			tb_text_putc(t, ')');
		}
		tb_text_put(t, ", ", 2);
		tb_text_u64(t, d->nbuffers, 0, 0);
		tb_text_puts(t, d->nbuffers == 1 ? " buffer, " : " buffers, ");
	} else {
		tb_text_puts(t, tb_session_perf(c->s)->pipe ? "perf.data (pipe stream), "
							    : "perf.data, ");
	}
	tb_text_u64(t, c->nformats, 0, 0);
	tb_text_puts(t, " event formats: ");
	tb_text_u64(t, c->events, 0, 0);
	tb_text_puts(t, " events, ");
	tb_text_u64(t, c->dropped, 0, 0);
	tb_text_puts(t, d && c->drops_unknown ? " dropped (and drops of unknown size), "
					     : " dropped, ");
	tb_text_u64(t, c->anomalies, 0, 0);
	tb_session_need_get(c->s, &nd);
	/* memory refused in the walk (a format's fields) makes anomalies that
	 * are not the file's */
	tb_text_puts(t, !c->anomalies ? " anomalies: ok"
		     : nd.refused ? " anomalies: over the budget" : " anomalies: MALFORMED");
}

static void where_in_walk(tb_check_anomaly *a, tb_check_part part, const char *where,
			  uint32_t buffer, uint32_t cpu, uint64_t page)
{
	a->part = part;
	a->where = where;
	a->buffer = buffer;
	a->cpu = cpu;
	a->page = page;
}

/* A record of the walk: an anomaly (1) or sound (0). */
static int check_record(tb_check *c, const tb_session_event *ev, tb_check_anomaly *a)
{
	tb_error e;
	c->events++;
	a->page_offset = ev->page_offset;
	a->record = ev->offset;
	a->has_id = ev->has_id;
	a->id = ev->id;
	a->offset = ev->page_offset + ev->offset;
	if (!ev->format) {
		c->unknown++;
		where_in_walk(a, TB_CHECK_EVENT, "event", ev->buffer, ev->cpu, ev->page_index);
		a->error.status = TB_NOT_FOUND;
		a->error.offset = a->offset;
		a->error.what = ev->has_id ? "event id has no format"
					   : "record too short for common_type";
		return 1;
	}
	if (tb_format_check_record(ev->format, ev->data, ev->len, c->big_endian, &e) == TB_OK)
		return 0;
	c->bad_records++;
	where_in_walk(a, TB_CHECK_RECORD, "record", ev->buffer, ev->cpu, ev->page_index);
	a->format = ev->format;
	a->error = e;
	return 1;
}

tb_status tb_check_next(tb_check *c, tb_check_anomaly *a)
{
	memset(a, 0, sizeof(*a));
	if (c->done)
		return TB_END;
	if (c->next_damage < c->ndamage) {
		const tb_session_damage *d = tb_session_damage_at(c->s, c->next_damage);
		a->part = TB_CHECK_CAPTURE;
		a->where = d->where ? d->where : "capture";
		a->error = d->error;
		a->offset = d->error.offset;
		a->damage = d;
		a->index = d->index;
		c->next_damage++;
		c->anomalies++;
		return TB_OK;
	}
	for (;;) {
		tb_session_event ev;
		tb_error e;
		tb_status st = tb_session_next(c->s, &ev, &e);
		if (st == TB_END) {
			c->done = 1;
			add_drops(c);
			return TB_END;
		}
		if (st != TB_OK) {
			/* a page the walk goes on past, or a format refused */
			const tb_session_error_info *ei = tb_session_error(c->s);
			int v = ei && ei->valid;
			where_in_walk(a, TB_CHECK_PAGE, "page", v ? ei->buffer : 0, v ? ei->cpu : 0,
				      v ? ei->page : 0);
			a->error = e;
			a->error.status = st;
			a->offset = e.offset;
		} else if (ev.kind == TB_SEV_DAMAGED) {
			/* the same, opened with TB_SESSION_SKIP_DAMAGED */
			where_in_walk(a, TB_CHECK_PAGE, "page", ev.buffer, ev.cpu, ev.page_index);
			a->error = ev.damage;
			a->offset = ev.damage.offset;
		} else if (!check_record(c, &ev, a)) {
			continue;
		}
		if (a->part == TB_CHECK_PAGE)
			c->bad_pages++;
		c->anomalies++;
		return TB_OK;
	}
}
