/*
 * The session's walk (session_impl.h): every event merged by time across
 * buffers and CPUs, the selection (ids, CPUs, window), stats and fields.
 */
#include "session_impl.h"

/* ---- the walk ---- */

/* The record's event id (common_type) in *id: 0 when the record is too
 * short to hold one. */
TB_ALWAYS_INLINE int event_id(const tb_session *s, const tb_session_event *ev, uint32_t *id)
{
	int has = s->type_size <= ev->len && s->type_off <= ev->len - s->type_size &&
		  (s->type_size == 2 || s->type_size == 4 || s->type_size == 1);
	*id = has ? (uint32_t)tb_load_n(ev->data + s->type_off, s->type_size,
					s->info.big_endian) : 0;
	return has;
}

/* next_dat / next_raw: a record the window or the ids kept leave out
 * (read and counted, not described): tb_session_next reads on.  One past
 * the last status, so never one a stream returns. */
#define LEFT_OUT TB_STATUS_END_

/* Does the window, tb_session_keep_ids or tb_session_keep_cpus leave ev
 * (not yet described: its time without the offsets) out?  Both sets are
 * bit sets of the CPU lists' shape (filter.h's tb_cpu_list_has). */
TB_ALWAYS_INLINE int left_out(const tb_session *s, const tb_session_event *ev)
{
	uint32_t id;
	if (s->keep_cpus && !tb_cpu_list_has(s->keep_cpus, s->keep_cpu_words, ev->cpu))
		return 1;
	if (s->win_on) {
		uint64_t ts = ev->ts + (uint64_t)s->info.ts_offset; /* as fill_event adds it */
		if (ts < s->win_from || ts > s->win_to)
			return 1;
	}
	return s->keep && !(event_id(s, ev, &id) && tb_cpu_list_has(s->keep, s->keep_words, id));
}

/* Describe ev: TB_OK, or TB_ERR_NO_SPACE when mem refused its format's
 * fields (ev is then described without its format).  Per event, with
 * take_event: inline (their calls were 7 instructions in 100 a sample). */
TB_ALWAYS_INLINE tb_status fill_event(tb_session *s, tb_session_event *ev)
{
	fmt_entry *e;
	const tb_format *f = NULL;
	uint32_t po = s->pid_off, ps = s->pid_size;
	int be = s->info.big_endian;
	struct last_task *lt;
	ev->kind = TB_SEV_EVENT;
	ev->ts += (uint64_t)s->info.ts_offset; /* modulo 2^64: no signed overflow */
	ev->has_id = event_id(s, ev, &ev->id);
	e = NULL;
	if (ev->has_id) {
		/* a capture's few events: their entries kept by id (indexed
		 * ones, whose ids are unique), the index probed for the others */
		fmt_entry **c = &s->ecache[ev->id % TB_ARRAY_LEN(s->ecache)];
		e = *c && (*c)->id == ev->id ? *c : (*c = tb_ss_entry_of(s, ev->id));
	}
	if (e) {
		f = e->tried ? e->fmt : tb_ss_entry_format(s, e);
		if (f && !s->parent)
			e->used = 1; /* (a part's entries are the session's: read only) */
	}
	s->last_entry = e;
	ev->format = f;
	ev->system.ptr = ev->name.ptr = NULL;
	ev->system.len = ev->name.len = 0;
	if (f) {
		ev->system.ptr = f->system;
		ev->system.len = f->system ? f->system_len : 0;
		ev->name.ptr = f->name;
		ev->name.len = f->name_len;
		po = e->pid_off;
		ps = e->pid_size;
	}
	ev->pid = 0;
	ev->has_pid = 0;
	if (ps == 4 && po <= ev->len && ev->len - po >= 4) {
		ev->pid = (int32_t)tb_load32(ev->data + po, be);
		ev->has_pid = f || s->have_type;
	}
	if (s->perf) { /* perf's task names: next_perf sets them */
		ev->comm = NULL;
		ev->comm_len = 0;
		ev->comm_known = 0;
	} else {
		lt = &s->task[ev->cpu % LAST_SLOTS];
		if (!lt->have || lt->pid != ev->pid) {
			lt->comm = tb_session_comm(s, ev->pid, &lt->comm_len, &lt->known);
			lt->pid = ev->pid;
			lt->have = 1;
		}
		ev->comm = lt->comm;
		ev->comm_len = lt->comm_len;
		ev->comm_known = lt->known;
	}
	ev->damage.status = TB_OK;
	ev->damage.offset = 0;
	ev->damage.what = NULL;
	return e && !f && !e->tried ? tb_ss_mem_status(s) : TB_OK;
}

/* ev's format could not be had for want of memory: said as the error of
 * this call (where, as for a page: tb_session_error) instead of an event
 * quietly without its format.  ev stays as described. */
tb_status tb_ss_format_refused(tb_session *s, const tb_session_event *ev, tb_error *err)
{
	const fmt_entry *e = s->last_entry;
	uint64_t off = s->src.dat ? s->d.events[e->text].format.offset : 0;
	s->last.error.status = tb_ss_mem_status(s);
	s->last.error.offset = off;
	s->last.error.what = s->nd.refused ? s->nd.refused : "no memory for the event's format";
	s->last.buffer = ev->buffer;
	s->last.cpu = ev->cpu;
	s->last.page = ev->page_index;
	s->last.valid = 1;
	return tb_fail(err, s->last.error.status, off, s->last.error.what);
}

static tb_status page_error(tb_session *s, tb_session_event *ev, uint32_t buffer, uint32_t cpu,
			    uint64_t page, tb_status st, const tb_error *e,
			    tb_session_cpu_stats *cs, tb_error *err)
{
	s->last.error = *e;
	s->last.error.status = st;
	s->last.buffer = buffer;
	s->last.cpu = cpu;
	s->last.page = page;
	s->last.valid = 1;
	if (cs)
		cs->damaged_pages++;
	if (!(s->opt.flags & TB_SESSION_SKIP_DAMAGED))
		return tb_fail(err, st, e->offset, e->what);
	memset(ev, 0, sizeof(*ev));
	ev->kind = TB_SEV_DAMAGED;
	ev->buffer = buffer;
	ev->cpu = cpu;
	ev->ts = s->last_ts;
	ev->page_index = page;
	ev->page_offset = e->offset;
	ev->damage = *e;
	ev->damage.status = st;
	ev->comm = "<...>";
	ev->comm_len = 5;
	return TB_OK;
}

/* Refill a buffer's head; a page error is returned (the stream goes on after it). */
static tb_status dat_refill(dat_src *ds, tb_error *e)
{
	tb_status st;
	if (ds->has_head || ds->done)
		return TB_OK;
	st = tb_dat_stream_next(&ds->s, &ds->head, e);
	if (st == TB_END) {
		ds->done = 1;
		return TB_OK;
	}
	if (st != TB_OK)
		return st;
	ds->has_head = 1;
	return TB_OK;
}

static size_t cpu_slot(const tb_dat_buffer *b, uint32_t cpu)
{
	size_t i;
	if (cpu < b->ncpus && b->cpus[cpu].cpu == cpu)
		return cpu; /* CPUs numbered as stored: per event, no scan */
	for (i = 0; i < b->ncpus; i++)
		if (b->cpus[i].cpu == cpu)
			return i;
	return SIZE_MAX;
}

/* A CPU's first and last event time (after fill_event: offsets applied). */
static void note_ts(tb_session_cpu_stats *cs, uint64_t ts)
{
	if (cs->events == 1)
		cs->first_ts = ts;
	cs->last_ts = ts;
}

/* The end of a walk's step: ev (counted on its CPU's cs, may be NULL)
 * left out, or described. */
TB_ALWAYS_INLINE tb_status take_event(tb_session *s, tb_session_event *ev,
				      tb_session_cpu_stats *cs, tb_error *err)
{
	tb_status described;
	s->last_ts = ev->ts;
	if (s->leave_out && left_out(s, ev)) {
		if (cs)
			note_ts(cs, ev->ts + (uint64_t)s->info.ts_offset);
		return LEFT_OUT;
	}
	described = fill_event(s, ev);
	if (cs)
		note_ts(cs, ev->ts);
	return described == TB_OK ? TB_OK : tb_ss_format_refused(s, ev, err);
}

tb_status tb_ss_next_dat(tb_session *s, tb_session_event *ev, tb_error *err)
{
	size_t i, best;
	dat_src *ds;
	tb_session_cpu_stats *cs = NULL;
	while ((i = tb_merge_want_(&s->buf_merge)) != SIZE_MAX) {
		tb_error e;
		tb_status st = dat_refill(&s->bufs[i], &e);
		if (st != TB_OK) {
			size_t k = cpu_slot(s->bufs[i].b, s->bufs[i].s.error_cpu);
			return page_error(s, ev, (uint32_t)i, s->bufs[i].s.error_cpu,
					  s->bufs[i].s.error_page, st, &e,
					  k != SIZE_MAX ? &s->bufs[i].cst[k] : NULL, err);
		}
		if (s->bufs[i].has_head)
			tb_merge_put_(&s->buf_merge, i, s->bufs[i].head.ts, 0);
		else
			tb_merge_end_(&s->buf_merge, i);
	}
	best = tb_merge_ready_top_(&s->buf_merge);
	if (best == SIZE_MAX)
		return TB_END;
	if (s->has_to && s->bufs[best].head.ts >= s->to_raw)
		return TB_END; /* a part: every head is at or past its end */
	tb_merge_take_(&s->buf_merge, best);
	ds = &s->bufs[best];
	ds->has_head = 0;
	ev->buffer = (uint32_t)best;
	ev->cpu = ds->head.cpu;
	ev->ts = ds->head.ts;
	ev->data = ds->head.data;
	ev->len = ds->head.len;
	ev->missed = ds->head.missed;
	ev->page_offset = ds->head.page_off;
	ev->page_index = ds->head.page_index;
	ev->offset = ds->head.offset;
	{
		size_t k = cpu_slot(ds->b, ev->cpu);
		if (k != SIZE_MAX) {
			cs = &ds->cst[k];
			cs->events++;
			cs->pages = ds->cur[k].page_index;
			if (ev->missed > 0)
				cs->dropped += (uint64_t)ev->missed;
			else if (ev->missed < 0)
				cs->drops_unknown++;
		}
	}
	return take_event(s, ev, cs, err);
}

/* Make a raw cursor's next record ready: 0 ready or done, else a page error. */
static tb_status raw_refill(raw_cursor *c, tb_error *e)
{
	tb_status st;
	while (!c->done && c->irec >= c->nrecs) {
		if (c->page_open) {
			c->nrecs = tb_kbuf_next_events(&c->kb, c->recs, TB_DAT_BATCH, &st);
			c->irec = 0;
			if (c->nrecs)
				return TB_OK;
			c->page_open = 0;
			if (st != TB_END) {
				*e = tb_kbuf_error(&c->kb);
				e->offset += c->ks.subbuf_offset; /* in the dump */
				return e->status ? e->status : st;
			}
			continue;
		}
		st = tb_kbuf_stream_next(&c->ks, &c->kb, e);
		if (st == TB_END) {
			c->done = 1;
			return TB_OK;
		}
		c->page_index = c->ks.subbuf_index;
		c->st.pages++;
		if (st != TB_OK)
			return st;
		c->page_open = 1;
		c->missed = tb_kbuf_missed(&c->kb);
	}
	return TB_OK;
}

static tb_status next_raw(tb_session *s, tb_session_event *ev, tb_error *err)
{
	size_t i, best;
	raw_cursor *c;
	const tb_kbuf_record *r;
	while ((i = tb_merge_want_(&s->raw_merge)) != SIZE_MAX) {
		tb_error e;
		tb_status st = raw_refill(&s->raw[i], &e);
		if (st != TB_OK)
			return page_error(s, ev, 0, s->raw[i].src->cpu, s->raw[i].page_index, st, &e,
					  &s->raw[i].st, err);
		if (s->raw[i].irec < s->raw[i].nrecs)
			tb_merge_put_(&s->raw_merge, i, s->raw[i].recs[s->raw[i].irec].ts, 0);
		else
			tb_merge_end_(&s->raw_merge, i);
	}
	best = tb_merge_pop_ready_(&s->raw_merge);
	if (best == SIZE_MAX)
		return TB_END;
	c = &s->raw[best];
	r = &c->recs[c->irec++];
	ev->buffer = 0;
	ev->cpu = c->src->cpu;
	ev->ts = r->ts;
	ev->data = r->payload;
	ev->len = r->payload_len;
	ev->missed = c->missed;
	c->missed = 0;
	ev->page_offset = c->ks.subbuf_offset;
	ev->page_index = c->page_index;
	ev->offset = r->offset;
	c->st.events++;
	if (ev->missed > 0)
		c->st.dropped += (uint64_t)ev->missed;
	else if (ev->missed < 0)
		c->st.drops_unknown++;
	return take_event(s, ev, &c->st, err);
}

/* The next perf sample (session_perf.c orders them), described as the
 * others with its task and name from perf. */
static tb_status next_perf(tb_session *s, tb_session_event *ev, tb_error *err)
{
	tb_sperf_item *it = &s->pitem;
	tb_session_cpu_stats *cs;
	tb_error e;
	tb_status st = tb_sperf_next(s->perf, it, &e);
	if (st == TB_END)
		return TB_END;
	if (st == TB_ERR_NO_SPACE)
		return tb_ss_no_memory(s, err, e.offset, e.what);
	if (st != TB_OK)
		return page_error(s, ev, 0, 0, e.offset, st, &e, NULL, err);
	/* (what fill_event does not set: no memset of the whole event) */
	ev->buffer = 0;
	ev->page_index = 0;
	ev->offset = 0;
	ev->cpu = it->cpu;
	ev->ts = it->ts;
	ev->data = it->raw;
	ev->len = it->raw_len;
	ev->missed = it->missed;
	ev->page_offset = it->ps.offset;
	if ((cs = tb_sperf_stats(s->perf, ev->cpu)) != NULL) {
		cs->events++;
		if (ev->missed > 0)
			cs->dropped += (uint64_t)ev->missed;
	}
	if ((st = take_event(s, ev, cs, err)) == LEFT_OUT)
		return st;
	/* perf's task, and the name of an event without a format */
	ev->pid = it->ps.tid;
	ev->comm = it->comm;
	ev->comm_len = it->comm_len;
	ev->comm_known = it->comm_known;
	if (!ev->format) {
		ev->system = it->ps.system;
		ev->name = it->ps.name;
	}
	return st;
}

tb_status tb_session_perf_decompress(tb_session *s, const tb_session_perf_inflater *z,
				    tb_error *err)
{
	tb_status st;
	tb_error e;
	tb_error_clear(err);
	if (!s || !s->perf || s->parent)
		return tb_fail(err, TB_ERR_ARG, 0, "not a perf.data session");
	st = tb_sperf_decompress(s->perf, z, &e);
	if (st == TB_ERR_NO_SPACE)
		return tb_ss_no_memory(s, err, 0, e.what);
	return st == TB_OK ? TB_OK : tb_fail(err, st, e.offset, e.what);
}

const tb_perf *tb_session_perf(const tb_session *s)
{
	return s && s->perf ? tb_sperf_perf(s->perf) : NULL;
}

tb_status tb_session_perf_sample_get(const tb_session *s, const tb_session_event *ev,
				     tb_session_perf_sample *out)
{
	if (!s || !ev || !out)
		return TB_ERR_ARG;
	if (!s->perf || ev->kind != TB_SEV_EVENT || ev->page_offset != s->pitem.ps.offset)
		return TB_NOT_FOUND;
	*out = s->pitem.ps;
	return TB_OK;
}

tb_status tb_session_describe(tb_session *s, uint32_t cpu, uint64_t ts, const void *rec,
			      size_t len, tb_session_event *ev)
{
	if (!s || !ev || (!rec && len) || len > UINT32_MAX)
		return TB_ERR_ARG;
	memset(ev, 0, sizeof(*ev));
	ev->cpu = cpu;
	ev->ts = ts;
	ev->data = rec;
	ev->len = (uint32_t)len;
	return fill_event(s, ev);
}

tb_status tb_session_next(tb_session *s, tb_session_event *ev, tb_error *err)
{
	tb_error_clear(err);
	if (!s || !ev)
		return tb_fail(err, TB_ERR_ARG, 0, "NULL argument");
	for (;;) {
		tb_status st = s->perf ? next_perf(s, ev, err)
			       : s->info.is_dat ? tb_ss_next_dat(s, ev, err) : next_raw(s, ev, err);
		if (st != LEFT_OUT)
			return st;
	}
}

/* Whether any of the window and the keep sets is on (the walk's one
 * test), after one of them changed. */
static void selection_changed(tb_session *s)
{
	s->leave_out = s->win_on || s->keep || s->keep_cpus;
}

/* Set one of the keep sets (NULL or 0 words: none). */
static void set_keep(tb_session *s, const uint64_t **set, size_t *set_words,
		     const uint64_t *keep, size_t words)
{
	int on = keep && words;
	*set = on ? keep : NULL;
	*set_words = on ? words : 0;
	selection_changed(s);
}

void tb_session_keep_ids(tb_session *s, const uint64_t *keep, size_t words)
{
	if (s)
		set_keep(s, &s->keep, &s->keep_words, keep, words);
}

void tb_session_keep_cpus(tb_session *s, const uint64_t *keep, size_t words)
{
	if (s)
		set_keep(s, &s->keep_cpus, &s->keep_cpu_words, keep, words);
}

tb_status tb_session_set_window(tb_session *s, uint64_t from, uint64_t to)
{
	if (!s || to < from)
		return TB_ERR_ARG;
	s->win_from = from;
	s->win_to = to;
	s->win_on = from != 0 || to != UINT64_MAX;
	selection_changed(s);
	return TB_OK;
}

uint64_t tb_session_tsdiff_prev(const tb_session *s)
{
	return s && s->have_prev_line ? s->prev_line_ts : 0;
}

void tb_session_set_json_file(tb_session *s, const char *name, size_t len)
{
	if (s) {
		s->json_file.ptr = name;
		s->json_file.len = name ? len : 0;
	}
}

void tb_session_set_tsdiff_prev(tb_session *s, uint64_t shown)
{
	if (s) {
		s->prev_line_ts = shown;
		s->have_prev_line = shown != 0;
	}
}

void tb_session_add_ts_offset(tb_session *s, int64_t ns)
{
	if (s)
		s->info.ts_offset = (int64_t)((uint64_t)s->info.ts_offset + (uint64_t)ns);
}

tb_status tb_session_cpu_data_at(const tb_session *s, size_t buffer, size_t i,
				 tb_session_cpu_data *out, tb_error *err)
{
	const tb_dat_buffer *b;
	const tb_dat_cpu *c;
	tb_error_clear(err);
	if (!s || !out)
		return tb_fail(err, TB_ERR_ARG, 0, "NULL argument");
	memset(out, 0, sizeof(*out));
	if (!s->info.is_dat) {
		if (buffer != 0 || i >= s->nraw)
			return TB_NOT_FOUND;
		out->cpu = s->raw[i].src->cpu;
		out->size = out->data_size = s->raw[i].src->len;
		return TB_OK;
	}
	if (buffer >= s->nbufs || i >= s->bufs[buffer].b->ncpus)
		return TB_NOT_FOUND;
	b = s->bufs[buffer].b;
	c = &b->cpus[i];
	out->cpu = c->cpu;
	out->offset = c->table_offset;
	out->size = c->declared;
	out->data_size = c->declared;
	out->compressed = b->compressed;
	if (b->compressed) {
		tb_dat_chunk_iter it;
		tb_dat_chunk ch;
		tb_status st;
		out->data_size = 0;
		if (!c->size && !c->tail)
			return TB_OK;
		if ((st = tb_dat_chunks_begin(&it, &s->d, b, c, err)) != TB_OK)
			return st;
		while ((st = tb_dat_chunk_next(&it, &ch, err)) == TB_OK)
			out->data_size += ch.usize;
		if (st != TB_END)
			return st;
		tb_error_clear(err);
	}
	return TB_OK;
}

/* n decimal digits at p (n >= 1) into *v: 0, or -1 past UINT64_MAX. */
tb_status tb_session_time_parse(const char *text, size_t len, int is_end, uint64_t *ns,
				tb_error *err)
{
	static const uint64_t pow10[10] = { 1u, 10u, 100u, 1000u, 10000u, 100000u, 1000000u,
					    10000000u, 100000000u, 1000000000u };
	size_t i, dot = SIZE_MAX, frac;
	uint64_t sec, f = 0, v;
	tb_error_clear(err);
	if (!text || !ns)
		return tb_fail(err, TB_ERR_ARG, 0, "NULL argument");
	for (i = 0; i < len; i++) {
		if (text[i] == '.' && dot == SIZE_MAX && i > 0)
			dot = i;
		else if (text[i] < '0' || text[i] > '9')
			return tb_fail(err, TB_ERR_VALUE, i,
				       "not a time (nanoseconds, or seconds.fraction)");
	}
	if (len == 0)
		return tb_fail(err, TB_ERR_VALUE, 0, "an empty time");
	if (dot == SIZE_MAX) {
		if (!tb_parse_u64(text, len, &v))
			return tb_fail(err, TB_ERR_LIMIT, 0, "more nanoseconds than 64 bits hold");
		*ns = v;
		return TB_OK;
	}
	frac = len - dot - 1;
	if (frac == 0 || frac > 9)
		return tb_fail(err, TB_ERR_VALUE, dot + 1 + (frac > 9 ? 9 : 0),
			       "the fraction of a second takes 1 to 9 digits");
	if (!tb_parse_u64(text, dot, &sec) || sec > UINT64_MAX / 1000000000u)
		return tb_fail(err, TB_ERR_LIMIT, 0, "more nanoseconds than 64 bits hold");
	(void)tb_parse_u64(text + dot + 1, frac, &f); /* 1 to 9 digits */
	v = sec * 1000000000u;
	f *= pow10[9 - frac];
	if (v > UINT64_MAX - f)
		return tb_fail(err, TB_ERR_LIMIT, 0, "more nanoseconds than 64 bits hold");
	v += f;
	if (frac == 6) {
		/* the microsecond a line prints: (ts + 500) / 1000 */
		if (!is_end)
			v = v >= 500u ? v - 500u : 0;
		else if (v > UINT64_MAX - 499u)
			return tb_fail(err, TB_ERR_LIMIT, 0, "more nanoseconds than 64 bits hold");
		else
			v += 499u;
	}
	*ns = v;
	return TB_OK;
}


tb_status tb_session_rewind(tb_session *s, tb_error *err)
{
	size_t i;
	tb_error_clear(err);
	if (!s)
		return tb_fail(err, TB_ERR_ARG, 0, "NULL argument");
	if (s->parent)
		return tb_ss_part_position(s, err);
	if (s->perf && tb_sperf_rewind(s->perf) != TB_OK)
		return tb_fail(err, TB_ERR_VALUE, 0, "the perf.data walk does not restart");
	for (i = 0; i < s->nbufs; i++) {
		dat_src *ds = &s->bufs[i];
		tb_status st = tb_ss_stream_start(s, ds, err);
		if (st != TB_OK)
			return st;
		ds->has_head = ds->done = 0;
		memset(ds->cst, 0, ds->b->ncpus * sizeof(*ds->cst));
	}
	for (i = 0; i < s->nraw; i++) {
		raw_cursor *c = &s->raw[i];
		const tb_session_raw_cpu *src = c->src;
		memset(c, 0, sizeof(*c));
		c->src = src;
		tb_kbuf_stream_init(&c->ks, &s->layout, src->data, src->len);
	}
	s->last_ts = 0;
	memset(&s->last, 0, sizeof(s->last));
	return tb_ss_start_merges(s, err);
}

tb_status tb_session_cpu_stats_get(const tb_session *s, size_t buffer, uint32_t cpu,
				   tb_session_cpu_stats *out)
{
	size_t i;
	if (!s || !out)
		return TB_ERR_ARG;
	memset(out, 0, sizeof(*out));
	if (s->perf) {
		const tb_session_cpu_stats *cs = tb_sperf_stats(s->perf, cpu);
		if (buffer != 0 || !cs)
			return TB_NOT_FOUND;
		*out = *cs;
		return TB_OK;
	}
	if (s->info.is_dat) {
		size_t k;
		if (buffer >= s->nbufs)
			return TB_NOT_FOUND;
		k = cpu_slot(s->bufs[buffer].b, cpu);
		if (k == SIZE_MAX)
			return TB_NOT_FOUND;
		*out = s->bufs[buffer].cst[k];
		out->pages = s->bufs[buffer].cur[k].page_index;
		return TB_OK;
	}
	if (buffer != 0)
		return TB_NOT_FOUND;
	for (i = 0; i < s->nraw; i++)
		if (s->raw[i].src->cpu == cpu) {
			*out = s->raw[i].st;
			return TB_OK;
		}
	return TB_NOT_FOUND;
}

/* ---- fields ---- */

tb_status tb_session_field(const tb_session *s, const tb_session_event *ev, const char *name,
			   tb_field_value *val, const tb_field **field, tb_error *err)
{
	const tb_field *f;
	tb_status st;
	tb_error_clear(err);
	if (!s || !ev || !name || !val)
		return tb_fail(err, TB_ERR_ARG, 0, "NULL argument");
	memset(val, 0, sizeof(*val));
	if (field)
		*field = NULL;
	if (!ev->format || !(f = tb_format_field(ev->format, name)))
		return TB_NOT_FOUND;
	if (field)
		*field = f;
	st = tb_field_bytes(f, ev->data, ev->len, s->info.big_endian, &val->data, &val->len, err);
	if (st == TB_OK && (f->kind == TB_FIELD_INT || f->kind == TB_FIELD_LONG ||
			    f->kind == TB_FIELD_POINTER))
		st = tb_field_int(f, ev->data, ev->len, s->info.big_endian, &val->num, err);
	val->status = st;
	return st;
}

