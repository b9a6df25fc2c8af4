/*
 * The events of one trace.dat buffer, every CPU's pages walked with the
 * sub-buffer walker and merged by timestamp (ties: the lower CPU index
 * first, as trace-cmd picks them; lib/merge.c keeps that order in
 * O(log CPUs) per event).  Drop reports travel with the next
 * event of their CPU.  A bad page is reported once and skipped.
 */
#include "tracebound/tracedat.h"
#include "internal.h"
#include "merge.h"

tb_status tb_dat_chunk_max(const tb_dat *d, const tb_dat_buffer *b,
			   size_t *max, tb_error *err)
{
	size_t i;
	if (!d || !b || !max)
		return tb_fail(err, TB_ERR_ARG, 0, "NULL argument");
	*max = 0;
	if (!b->compressed) {
		size_t ps = b->page_size, want;
		if (!d->read || !ps)
			return TB_OK;
		want = b->ncpus > TB_DAT_READ_MANY ? TB_DAT_READ_SMALL : TB_DAT_READ_CHUNK;
		*max = want > ps ? want - want % ps : ps;
		return TB_OK;
	}
	for (i = 0; i < b->ncpus; i++) {
		tb_dat_chunk_iter it;
		tb_dat_chunk ch;
		tb_status s = tb_dat_chunks_begin(&it, d, b, &b->cpus[i], err);
		if (s)
			return s;
		while ((s = tb_dat_chunk_next(&it, &ch, err)) == TB_OK)
			if (ch.usize > *max)
				*max = ch.usize;
		if (s != TB_END)
			return s;
	}
	return TB_OK;
}

/* Each CPU's own chunk memory (see tracedat.h): what it holds, so that
 * empty CPUs cost nothing and none costs another's largest chunk. */
tb_status tb_dat_chunk_caps(const tb_dat *d, const tb_dat_buffer *b, size_t *caps,
			    size_t *total, tb_error *err)
{
	size_t i, sum = 0, want = 0, ps;
	if (!d || !b || (!caps && b->ncpus) || !total)
		return tb_fail(err, TB_ERR_ARG, 0, "NULL argument");
	ps = b->page_size;
	if (!b->compressed && d->read && ps) {
		want = b->ncpus > TB_DAT_READ_MANY ? TB_DAT_READ_SMALL : TB_DAT_READ_CHUNK;
		want = want > ps ? want - want % ps : ps;
	}
	for (i = 0; i < b->ncpus; i++) {
		const tb_dat_cpu *cpu = &b->cpus[i];
		size_t cap = 0;
		if (b->compressed && (cpu->size || cpu->tail)) { /* a cut chunk too */
			tb_dat_chunk_iter it;
			tb_dat_chunk ch;
			tb_status s = tb_dat_chunks_begin(&it, d, b, cpu, err);
			if (s)
				return s;
			while ((s = tb_dat_chunk_next(&it, &ch, err)) == TB_OK)
				if (ch.usize > cap)
					cap = ch.usize;
			if (s != TB_END)
				return s;
			if (cap < 16)
				cap = 16; /* a place to point at, chunks of 0 bytes or none */
		} else if (want && cpu->size) {
			/* a read buffer, no larger than the CPU's pages */
			cap = cpu->size < want ? (size_t)cpu->size : want;
			cap = (cap % ps) ? cap - cap % ps + ps : cap;
		}
		if (cap > SIZE_MAX / 2 - sum)
			return tb_fail(err, TB_ERR_LIMIT, b->section_offset,
				       "chunk memory past the address space");
		caps[i] = cap;
		sum += cap;
	}
	*total = sum;
	return TB_OK;
}

/* The cursors of tb_dat_stream_init and _init_caps: cursor i's chunk
 * memory is per_cpu bytes at i * per_cpu, or caps[i] bytes after the
 * caps before it. */
static tb_status stream_init(tb_dat_stream *s, const tb_dat *d, const tb_dat_buffer *b,
			     const tb_kbuf_layout *layout, tb_dat_cursor *cursors,
			     size_t ncursors, uint8_t *chunk_mem, size_t per_cpu,
			     const size_t *caps, unsigned flags, tb_error *err)
{
	size_t i, at = 0;
	tb_error_clear(err);
	if (!s || !d || !b || !layout || (!cursors && b->ncpus) ||
	    ncursors < b->ncpus ||
	    (!caps && (b->compressed || d->read) && b->ncpus && per_cpu && !chunk_mem) ||
	    (!caps && d->read && !b->compressed && b->ncpus && per_cpu < b->page_size))
		return tb_fail(err, TB_ERR_ARG, 0, "invalid stream arguments");
	if (b->latency)
		return tb_fail(err, TB_ERR_UNSUPPORTED, b->section_offset,
			       "a latency (text) buffer has no events");
	if (layout->subbuf_size != b->page_size)
		return tb_fail(err, TB_ERR_VALUE, b->section_offset,
			       "header_page and the buffer disagree on the page size");
	memset(s, 0, sizeof(*s));
	s->d = d;
	s->b = b;
	s->layout = *layout;
	s->cur = cursors;
	s->ncur = b->ncpus;
	s->flags = flags;
	if (tb_merge_init_(&s->merge, b->ncpus ? &cursors[0].merge : NULL, sizeof(*cursors),
			  b->ncpus) != TB_OK)
		return tb_fail(err, TB_ERR_LIMIT, b->section_offset, "too many CPUs to merge");
	for (i = 0; i < b->ncpus; i++) {
		tb_dat_cursor *c = &cursors[i];
		size_t cap = caps ? caps[i] : per_cpu;
		uint8_t *mem = NULL;
		tb_status st;
		if (chunk_mem && cap) /* (no NULL + 0) */
			mem = chunk_mem + (caps ? at : i * per_cpu);
		else if (chunk_mem && !caps)
			mem = chunk_mem;
		at += caps ? cap : 0;
		/* all but the records (1 KiB of a cursor's 1.5, kept last):
		 * filled before they are read */
		memset(c, 0, offsetof(tb_dat_cursor, recs));
		c->cpu = &b->cpus[i];
		c->batch_status = TB_END;
		if (c->cpu->size == 0 && !c->cpu->tail) {
			c->done = 1;
			continue;
		}
		if ((b->compressed || d->read) && (!mem || (!b->compressed && cap < b->page_size)))
			return tb_fail(err, TB_ERR_ARG, 0, "invalid stream arguments");
		if (b->compressed) {
			c->chunk = mem;
			c->chunk_cap = cap;
			st = tb_dat_chunks_begin(&c->chunks, d, b, c->cpu, err);
			if (st)
				return st;
		} else {
			c->next = c->cpu->offset;
			c->end = c->cpu->offset + c->cpu->size;
			if (d->read) {
				c->chunk = mem;
				c->chunk_cap = cap - cap % b->page_size;
			}
		}
	}
	return TB_OK;
}

tb_status tb_dat_stream_init(tb_dat_stream *s, const tb_dat *d,
			     const tb_dat_buffer *b,
			     const tb_kbuf_layout *layout,
			     tb_dat_cursor *cursors, size_t ncursors,
			     uint8_t *chunk_mem, size_t per_cpu,
			     unsigned flags, tb_error *err)
{
	return stream_init(s, d, b, layout, cursors, ncursors, chunk_mem, per_cpu, NULL, flags,
			   err);
}

tb_status tb_dat_stream_init_caps(tb_dat_stream *s, const tb_dat *d, const tb_dat_buffer *b,
				  const tb_kbuf_layout *layout, tb_dat_cursor *cursors,
				  size_t ncursors, uint8_t *chunk_mem, const size_t *caps,
				  unsigned flags, tb_error *err)
{
	if (!caps && b && b->ncpus)
		return tb_fail(err, TB_ERR_ARG, 0, "invalid stream arguments");
	return stream_init(s, d, b, layout, cursors, ncursors, chunk_mem, 0, caps, flags, err);
}

/* The file offset of a fault at byte `at` of the cursor's page.  A page
 * of a compressed buffer lies in a decompressed chunk, which has no file
 * offsets: its fault is reported at the chunk's header in the file. */
static uint64_t fault_offset(const tb_dat_stream *s, const tb_dat_cursor *c,
			     uint64_t at)
{
	return s->b->compressed ? c->chunk_off : c->page_off + at;
}

/* The uncompressed page of len bytes at c->next, from the cursor's read
 * buffer (chunk_off: the file offset of its first byte), which is refilled
 * with the pages from there on when the page is not in it.  A refill that
 * fails is tried again for the page alone; NULL when that fails too. */
static const uint8_t *read_page(const tb_dat_stream *s, tb_dat_cursor *c, size_t len)
{
	size_t want;
	if (c->chunk_len && c->next >= c->chunk_off && c->next - c->chunk_off <= c->chunk_len &&
	    len <= c->chunk_len - (c->next - c->chunk_off))
		return c->chunk + (c->next - c->chunk_off);
	want = c->end - c->next < c->chunk_cap ? (size_t)(c->end - c->next) : c->chunk_cap;
	c->chunk_len = 0;
	if (s->d->read(s->d->read_ctx, c->next, c->chunk, want) != 0) {
		if (want == len || s->d->read(s->d->read_ctx, c->next, c->chunk, len) != 0)
			return NULL;
		want = len;
	}
	c->chunk_off = c->next;
	c->chunk_len = want;
	return c->chunk;
}

/* Open the cursor's next page: TB_OK, TB_END (CPU finished) or an error
 * (the page, or the chunk, is skipped). */
static tb_status open_page(tb_dat_stream *s, tb_dat_cursor *c, tb_error *err)
{
	const uint8_t *page;
	size_t len;
	uint32_t ps = s->layout.subbuf_size;
	tb_error e;
	tb_status st;
	if (s->b->compressed) {
		if (c->chunk_next >= c->chunk_len && !c->chunk_cut) {
			tb_dat_chunk ch;
			size_t got;
			st = tb_dat_chunk_next(&c->chunks, &ch, err);
			if (st == TB_END)
				return TB_END;
			if (st) {
				c->done = 1; /* the framing is broken: stop */
				return st;
			}
			c->chunk_off = ch.offset;
			c->chunk_len = 0;
			c->chunk_next = 0;
			st = tb_dat_chunk_inflate(s->d, s->b, &ch, c->chunk,
						  c->chunk_cap, &got, err);
			if (st == TB_ERR_TRUNCATED && ch.cut)
				c->chunk_cut = 1; /* its whole pages first */
			else if (st)
				return st; /* next call tries the next chunk */
			c->chunk_len = got;
		}
		if (c->chunk_next >= c->chunk_len && c->chunk_cut) {
			/* the pages of a cut chunk past its whole ones: one
			 * error, at the first of them */
			c->chunk_cut = 0;
			c->page_index++;
			c->batch_status = TB_END;
			return tb_fail(err, TB_ERR_TRUNCATED, c->chunk_off,
				       "compressed chunk cut short: its pages from here are lost");
		}
		page = c->chunk + c->chunk_next;
		len = c->chunk_len - c->chunk_next < ps ? c->chunk_len - c->chunk_next
							 : ps;
		c->page_off = c->chunk_off;
		c->page_in_chunk = (uint32_t)c->chunk_next;
		c->chunk_next += len;
	} else {
		if (c->next >= c->end)
			return TB_END;
		len = c->end - c->next < ps ? (size_t)(c->end - c->next) : ps;
		c->page_off = c->next;
		c->page_in_chunk = 0;
		if (s->d->read) {
			page = read_page(s, c, len);
			if (!page) {
				c->next += len; /* the next call tries the next page */
				c->page_index++;
				s->pages++;
				c->batch_status = TB_END;
				return tb_fail(err, TB_ERR_TRUNCATED, c->page_off,
					       "CPU data that could not be read");
			}
		} else {
			page = s->d->file + c->next;
		}
		c->next += len;
	}
	c->page_index++;
	s->pages++;
	c->nrecs = c->irec = 0;
	c->first_in_page = 1;
	st = tb_kbuf_open(&c->kb, &s->layout, page, len, &e);
	if (st) {
		c->batch_status = TB_END;
		return tb_fail(err, st, fault_offset(s, c, e.offset), e.what);
	}
	{
		int64_t m = tb_kbuf_missed(&c->kb);
		/* Stored counts come from the input: sums saturate, never wrap. */
		if (m < 0)
			s->drops_unknown++;
		else if ((uint64_t)m > UINT64_MAX - s->dropped_known)
			s->dropped_known = UINT64_MAX;
		else
			s->dropped_known += (uint64_t)m;
		if (m != 0) {
			if (c->missed < 0 || m < 0)
				c->missed = -1;
			else if (m > INT64_MAX - c->missed)
				c->missed = INT64_MAX;
			else
				c->missed += m;
		}
	}
	c->batch_status = TB_OK;
	return TB_OK;
}

/* Make sure c has a record at irec: TB_OK, TB_END or a page's error.
 * fill_more is the rare path (a batch used up): kept out of line, so the
 * per-event check is a compare, not a call
 * that saves and restores six registers.  batch: the records to decode
 * at most (the first pass asks one of each CPU: the merge needs only its
 * head, and 8192 CPUs' full batches would be 10 MiB written long before
 * they are read; the order of records and errors is the same). */
static TB_NOINLINE tb_status fill_more(tb_dat_stream *s, tb_dat_cursor *c, size_t batch,
				       tb_error *err)
{
	while (c->irec >= c->nrecs) {
		tb_status st;
		if (c->done)
			return TB_END;
		if (c->batch_status == TB_OK) {
			c->nrecs = tb_kbuf_next_events(&c->kb, c->recs, batch,
						       &c->batch_status);
			s->decoded += c->nrecs;
			c->irec = 0;
			if (c->nrecs)
				return TB_OK;
		}
		if (tb_is_error(c->batch_status)) {
			tb_error e = tb_kbuf_error(&c->kb);
			tb_status bad = c->batch_status; /* == e.status */
			c->batch_status = TB_END;
			return tb_fail(err, bad, fault_offset(s, c, e.offset),
				       e.what);
		}
		/* this page is done: open the next */
		if ((s->flags & TB_DAT_STREAM_TC_DROPS) && c->first_in_page)
			c->missed = 0; /* no event carried it: trace-cmd loses it */
		st = open_page(s, c, err);
		if (st == TB_END) {
			c->done = 1;
			return TB_END;
		}
		if (st)
			return st;
	}
	return TB_OK;
}

static inline tb_status fill(tb_dat_stream *s, tb_dat_cursor *c, tb_error *err)
{
	return c->irec < c->nrecs ? TB_OK : fill_more(s, c, TB_DAT_BATCH, err);
}

tb_status tb_dat_stream_next(tb_dat_stream *s, tb_dat_event *ev, tb_error *err)
{
	size_t i;
	tb_dat_cursor *c;
	const tb_kbuf_record *r;
	if (!s || !ev)
		return tb_fail(err, TB_ERR_ARG, 0, "NULL argument");
	/* refill the CPU taken last (at the start: every CPU, in order) */
	while ((i = tb_merge_want_(&s->merge)) != SIZE_MAX) {
		tb_status st;
		c = &s->cur[i];
		st = c->irec < c->nrecs ? TB_OK
		     : fill_more(s, c, s->merge.filled < s->merge.n ? 1 : TB_DAT_BATCH, err);
		if (st == TB_OK) {
			tb_merge_put_(&s->merge, i, c->recs[c->irec].ts, 0);
		} else if (st == TB_END) {
			tb_merge_end_(&s->merge, i);
		} else {
			s->error_cpu = c->cpu->cpu;
			s->error_page = c->page_index ? c->page_index - 1 : 0;
			return st;
		}
	}
	i = tb_merge_pop_ready_(&s->merge);
	if (i == SIZE_MAX)
		return TB_END;
	c = &s->cur[i];
	r = &c->recs[c->irec++];
	ev->data = r->payload;
	ev->len = r->payload_len;
	ev->cpu = c->cpu->cpu;
	ev->ts = r->ts;
	ev->page_off = c->page_off;
	ev->page_index = c->page_index - 1;
	ev->offset = r->offset;
	ev->missed = 0;
	if (c->missed) {
		/* trace-cmd reports a page's drops only with an event that
		 * opens the page's data (nothing before it, not even an
		 * extend); otherwise they are lost.  (Drops are only pending
		 * while first_in_page is set: open_page sets both, and the
		 * page's first event clears both.) */
		if (!(s->flags & TB_DAT_STREAM_TC_DROPS) || r->index == 0)
			ev->missed = c->missed;
		c->missed = 0;
	}
	c->first_in_page = 0;
	s->events++;
	return TB_OK;
}

/* ---- seeking one CPU (parts of a capture, session.h's tb_session_part_*) ---- */

tb_status tb_dat_stream_pages(const tb_dat_stream *s, size_t slot, uint64_t *npages)
{
	const tb_dat_cpu *cpu;
	uint32_t ps;
	if (!s || !npages || slot >= s->ncur)
		return TB_ERR_ARG;
	*npages = 0;
	if (s->b->compressed)
		return TB_ERR_UNSUPPORTED;
	cpu = s->cur[slot].cpu;
	ps = s->layout.subbuf_size;
	*npages = cpu->size / ps + (cpu->size % ps != 0);
	return TB_OK;
}

tb_status tb_dat_stream_page_ts(const tb_dat_stream *s, size_t slot, uint64_t page,
				uint64_t *ts)
{
	const tb_dat_cpu *cpu;
	uint64_t npages, off;
	tb_reader r;
	tb_status st;
	if (!ts)
		return TB_ERR_ARG;
	*ts = 0;
	if ((st = tb_dat_stream_pages(s, slot, &npages)) != TB_OK)
		return st;
	if (page >= npages)
		return TB_NOT_FOUND;
	cpu = s->cur[slot].cpu;
	/* the container keeps every CPU range inside the file */
	if (cpu->offset > s->d->len || cpu->size > s->d->len - cpu->offset)
		return TB_ERR_RANGE;
	off = page * s->layout.subbuf_size;
	if (s->d->read) {
		/* one header read through the caller: a few hundred per part
		 * of a plan, each on a page of its own */
		uint8_t h[8];
		if (cpu->size - off < 8)
			return TB_NOT_FOUND; /* a last page too short for its header */
		if (s->d->read(s->d->read_ctx, cpu->offset + off, h, 8) != 0)
			return TB_ERR_TRUNCATED;
		*ts = tb_load64(h, s->layout.big_endian);
		return TB_OK;
	}
	tb_rd_init(&r, s->d->file + cpu->offset, (size_t)cpu->size, s->layout.big_endian);
	if (off > SIZE_MAX || !tb_rd_u64_at(&r, (size_t)off, ts))
		return TB_NOT_FOUND; /* a last page too short for its header */
	return TB_OK;
}

tb_status tb_dat_stream_seek(tb_dat_stream *s, size_t slot, uint64_t page, tb_error *err)
{
	tb_dat_cursor *c;
	uint64_t npages;
	tb_status st;
	tb_error_clear(err);
	if ((st = tb_dat_stream_pages(s, slot, &npages)) != TB_OK)
		return tb_fail(err, st, 0, st == TB_ERR_UNSUPPORTED
					       ? "seeking inside compressed CPU data"
					       : "invalid seek arguments");
	c = &s->cur[slot];
	c->nrecs = c->irec = 0;
	c->batch_status = TB_END;  /* the next fill opens a page */
	c->missed = 0;
	c->first_in_page = 0;
	tb_merge_restart_(&s->merge);
	if (page >= npages) {
		c->done = 1;
		c->next = c->end;
		c->page_index = npages;
		return TB_OK;
	}
	c->done = c->cpu->size == 0;
	c->next = c->cpu->offset + page * s->layout.subbuf_size;
	c->page_index = page;
	return TB_OK;
}

tb_status tb_dat_stream_skip_before(tb_dat_stream *s, size_t slot, uint64_t ts,
				    uint64_t *skipped)
{
	tb_dat_cursor *c;
	uint64_t n = 0;
	if (!s || slot >= s->ncur)
		return TB_ERR_ARG;
	c = &s->cur[slot];
	tb_merge_restart_(&s->merge);
	for (;;) {
		tb_error e;
		tb_status st = fill(s, c, &e);
		if (st == TB_END)
			break;
		if (st != TB_OK)
			continue; /* a bad page before the start: an earlier part's */
		if (c->recs[c->irec].ts >= ts)
			break;
		/* what tb_dat_stream_next does to the cursor, without the event */
		c->irec++;
		c->missed = 0;
		c->first_in_page = 0;
		n++;
	}
	if (skipped)
		*skipped = n;
	return TB_OK;
}
