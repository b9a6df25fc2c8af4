/*
 * The anomalies of an opened session, one at a time (check.h): the
 * session's damage list, then its walk, each record checked against its
 * format.
 */
#include "internal.h"
#include "tracebound/check.h"

void tb_check_init(tb_check *c, tb_session *s)
{
	memset(c, 0, sizeof(*c));
	c->s = s;
	c->big_endian = s ? tb_session_get_info(s)->big_endian : 0;
	c->done = s == NULL;
	c->ndamage = tb_session_ndamage(s);
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
