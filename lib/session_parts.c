/*
 * Parts of a session (session_impl.h): a capture split by time into
 * cursors of their own, for threads.
 */
#include "session_impl.h"

/* ---- parts of a capture (session.h: tb_session_prepare / _plan / _part_*) ----
 *
 * A part is a tb_session of its own: a shallow copy of the session (the
 * container, formats, tables and buffer infos are read through it, never
 * written: tb_session_prepare parsed every format, so no lazy cache of
 * the session is filled later), with its own cursors, stats, comm cache,
 * line state, JSON scratch and print fmt programs, all in the part's own
 * memory.  Its streams are seeked per CPU: a binary search over the page
 * headers' timestamps finds the last page that starts before `from`, and
 * the records before `from` are consumed there (tb_dat_stream_skip_before);
 * next_dat stops once every head is at or past `to`. */

tb_status tb_session_prepare(tb_session *s, tb_error *err)
{
	size_t i;
	tb_error_clear(err);
	if (!s || s->parent)
		return tb_fail(err, TB_ERR_ARG, 0, "NULL argument or a part");
	for (i = 0; i < s->ntexts; i++)
		if (s->fe[i].ok && !tb_ss_entry_format(s, &s->fe[i]) && !s->fe[i].tried)
			return tb_ss_no_memory(s, err, 0, "no memory for an event's format");
	s->prepared = 1;
	return TB_OK;
}

/* The first of the CPU's pages [lo, hi) whose header time is >= t (pages
 * past a header that cannot be read count as later): hi when none is. */
static uint64_t first_page_in(const tb_dat_stream *st, size_t slot, uint64_t lo, uint64_t hi,
			      uint64_t t)
{
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2, ts;
		if (tb_dat_stream_page_ts(st, slot, mid, &ts) == TB_OK && ts < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static uint64_t first_page_at(const tb_dat_stream *st, size_t slot, uint64_t npages, uint64_t t)
{
	return first_page_in(st, slot, 0, npages, t);
}

static int splittable(const tb_session *s)
{
	size_t i;
	if (!s->info.is_dat || !s->nbufs)
		return 0;
	for (i = 0; i < s->nbufs; i++)
		if (s->bufs[i].b->compressed)
			return 0;
	return 1;
}

/* The plan's search keeps, for each CPU of the first PLAN_NARROW, the
 * range of page counts its answer can take: each probe then searches only
 * that range, instead of about 64 x log2(pages) page headers per CPU, each
 * a page of the capture touched for the first time (0.07 s of a 386 MiB
 * capture's serial start before the threads could run).  The probes are
 * aimed (plan_aim) rather than halving the time range, and once every
 * range is one page wide the answer is read off those pages
 * (plan_finish): 4,421 header reads for 46 bounds of that capture, where
 * halving read 11,307.  The bounds are those of the unnarrowed bisection
 * on every capture whose CPUs' pages are in time order: any probe inside
 * the range keeps the bisection's answer. */
#define PLAN_NARROW 128
/* After this many aimed probes in a row that did not halve the time range,
 * the next one halves it: a bound never takes many more probes than the
 * bisection would. */
#define PLAN_AIM_MISSES 3

typedef struct plan_range {
	uint64_t lo, hi;
} plan_range;

/* Pages of every CPU whose header time is below t, each CPU searched in
 * its range r[j] (NULL: all its pages), its count put in at[j]. */
static uint64_t pages_before_in(const tb_session *s, uint64_t t, const plan_range *r,
				uint64_t *at)
{
	uint64_t sum = 0;
	size_t i, k, j = 0;
	for (i = 0; i < s->nbufs; i++) {
		const tb_dat_stream *st = &s->bufs[i].s;
		for (k = 0; k < st->ncur; k++, j++) {
			uint64_t n = 0, c;
			if (tb_dat_stream_pages(st, k, &n) != TB_OK)
				n = 0;
			c = r ? first_page_in(st, k, r[j].lo, r[j].hi, t) : first_page_at(st, k, n, t);
			if (at)
				at[j] = c;
			sum += c;
		}
	}
	return sum;
}

/* About span * num / den (num <= den, den > 0), at most span, in 64 bits:
 * den and num are cut to 32 bits first so that r * num cannot overflow. */
static uint64_t plan_scale(uint64_t span, uint64_t num, uint64_t den)
{
	uint64_t q, r;
	while (den > UINT32_MAX) {
		den >>= 1;
		num >>= 1;
	}
	q = span / den;
	r = span % den;
	return q * num + r * num / den;
}

/*
 * The next probe in [a, b) (a < b) for the share `want`, with sum_lo and
 * sum_hi the sums of the ranges' ends: where the pages' times would put it
 * if they came at an even rate between a and b, aimed `over` pages past
 * the share when the probes so far all fell short (or before it when they
 * all overshot), so that the next one lands on the other side and closes
 * the range from both ends.
 */
static uint64_t plan_aim(uint64_t a, uint64_t b, uint64_t want, uint64_t sum_lo,
			 uint64_t sum_hi, uint64_t over, int side)
{
	uint64_t target = want;
	if (sum_hi <= sum_lo || want <= sum_lo || want > sum_hi)
		return a + (b - a) / 2;
	if (side < 0)
		target = over - 1 < sum_hi - want ? want + (over - 1) : sum_hi;
	else if (side > 0)
		target = want - sum_lo > over ? want - over : sum_lo + 1;
	return a + plan_scale(b - 1 - a, target - sum_lo, sum_hi - sum_lo);
}

/*
 * Every range at most one page wide: the least t in [a, b) whose pages
 * before it reach want, read off the one page each range still holds (at[j]
 * takes its time; UINT64_MAX, never before any t, when the range is empty
 * or its header cannot be read, which counts as later as in
 * first_page_in), else b.  The ranges' lower ends move to the counts at t.
 */
static uint64_t plan_finish(const tb_session *s, plan_range *r, uint64_t *at, size_t ncur,
			    uint64_t a, uint64_t b, uint64_t want)
{
	uint64_t below = 0, t = b, v = 0, seen = 0;
	size_t i, k, j = 0;
	for (i = 0; i < s->nbufs; i++) {
		const tb_dat_stream *st = &s->bufs[i].s;
		for (k = 0; k < st->ncur; k++, j++) {
			below += r[j].lo;
			if (r[j].hi <= r[j].lo || tb_dat_stream_page_ts(st, k, r[j].lo, &at[j]) != TB_OK)
				at[j] = UINT64_MAX;
		}
	}
	if (below >= want) {
		t = a;
	} else {
		/* the (want - below)-th smallest time, found value by value
		 * (at most ncur of them) */
		int first = 1;
		while (seen < want - below) {
			uint64_t next = UINT64_MAX;
			for (j = 0; j < ncur; j++)
				if (at[j] < next && (first || at[j] > v))
					next = at[j];
			if (next == UINT64_MAX)
				break; /* fewer pages than the share: b */
			for (j = 0; j < ncur; j++)
				seen += at[j] == next;
			v = next;
			first = 0;
		}
		if (seen >= want - below)
			t = v + 1 > a ? v + 1 : a;
		if (t > b)
			t = b;
	}
	for (j = 0; j < ncur; j++)
		if (at[j] < t)
			r[j].lo++;
	return t;
}

/* Each range's upper end back to all its CPU's pages. */
static void plan_ranges_top(const tb_session *s, plan_range *r)
{
	size_t i, k, j = 0;
	for (i = 0; i < s->nbufs; i++) {
		const tb_dat_stream *st = &s->bufs[i].s;
		for (k = 0; k < st->ncur; k++, j++) {
			uint64_t n = 0;
			r[j].hi = tb_dat_stream_pages(st, k, &n) == TB_OK ? n : 0;
			if (r[j].lo > r[j].hi)
				r[j].lo = r[j].hi;
		}
	}
}

static int plan_store(void *ctx, size_t i, uint64_t bound)
{
	((uint64_t *)ctx)[i] = bound;
	return 0;
}

tb_status tb_session_plan(const tb_session *s, size_t k, uint64_t *bounds, size_t *nbounds,
			  tb_error *err)
{
	tb_error_clear(err);
	if (!s || !nbounds || (k > 1 && !bounds))
		return tb_fail(err, TB_ERR_ARG, 0, "NULL argument");
	return tb_session_plan_each(s, k, plan_store, bounds, nbounds, err);
}

tb_status tb_session_plan_each(const tb_session *s, size_t k,
			       int (*each)(void *ctx, size_t i, uint64_t bound), void *ctx,
			       size_t *nbounds, tb_error *err)
{
	uint64_t total = 0, lo = UINT64_MAX, hi = 0, prev;
	uint64_t at[PLAN_NARROW] = { 0 }; /* each probe's counts (rp: filled by pages_before_in) */
	plan_range r[PLAN_NARROW], *rp = NULL;
	size_t i, j, n = 0, ncur = 0;
	tb_error_clear(err);
	if (!s || !nbounds || !each)
		return tb_fail(err, TB_ERR_ARG, 0, "NULL argument");
	*nbounds = 0;
	if (k < 2 || !splittable(s))
		return TB_OK;
	/* the pages and the time range their headers span */
	for (i = 0; i < s->nbufs; i++) {
		const tb_dat_stream *st = &s->bufs[i].s;
		for (j = 0; j < st->ncur; j++, ncur++) {
			uint64_t np = 0, ts;
			if (ncur < PLAN_NARROW)
				r[ncur].lo = 0;
			if (tb_dat_stream_pages(st, j, &np) != TB_OK || !np)
				continue;
			total += np;
			if (tb_dat_stream_page_ts(st, j, 0, &ts) == TB_OK && ts < lo)
				lo = ts;
			if (tb_dat_stream_page_ts(st, j, np - 1, &ts) == TB_OK && ts > hi)
				hi = ts;
		}
	}
	if (ncur <= PLAN_NARROW) {
		rp = r;
		plan_ranges_top(s, r);
	}
	if (total < 2 || lo >= hi)
		return TB_OK;
	/* an offset that carries some times past 2^64 and not others leaves
	 * no increasing split times: one part */
	if (hi + (uint64_t)s->info.ts_offset < lo + (uint64_t)s->info.ts_offset)
		return TB_OK;
	prev = lo;
	for (i = 1; i < k; i++) {
		/* the least t > prev with the share i/k of the pages starting before it */
		uint64_t want = total / k * i + total % k * i / k, a = prev + 1, b = hi + 1;
		uint64_t over1 = ncur ? ncur : 1, over = over1; /* one page a CPU */
		int side = 0, misses = 0;
		while (a < b) {
			uint64_t mid = a + (b - a) / 2, sum_lo = 0, sum_hi = 0, span = b - a;
			int enough, wide = 0, aimed = 0;
			for (j = 0; rp && j < ncur; j++) {
				sum_lo += r[j].lo;
				sum_hi += r[j].hi;
				wide |= r[j].hi - r[j].lo > 1;
			}
			if (rp && !wide) {
				a = plan_finish(s, r, at, ncur, a, b, want);
				break;
			}
			if (rp && misses < PLAN_AIM_MISSES && want <= sum_hi) {
				mid = plan_aim(a, b, want, sum_lo, sum_hi, over, side);
				aimed = 1;
			}
			enough = pages_before_in(s, mid, rp, rp ? at : NULL) >= want;
			if (enough)
				b = mid;
			else
				a = mid + 1;
			/* a probe on the same side as the last aims further past
			 * the share; the first on the other side starts over */
			if (side == (enough ? 1 : -1))
				over = over <= UINT64_MAX / 2 ? over * 2 : over;
			else
				over = over1;
			side = enough ? 1 : -1;
			misses = aimed && b - a > span / 2 ? misses + 1 : 0;
			/* the counts at mid bound those of the times left:
			 * from above when the answer is at or below mid, from
			 * below when it is past mid */
			for (j = 0; rp && j < ncur; j++) {
				if (enough)
					r[j].hi = at[j];
				else
					r[j].lo = at[j];
			}
		}
		if (a > hi || each(ctx, n, a + (uint64_t)s->info.ts_offset) != 0)
			break;
		*nbounds = ++n;
		prev = a;
		/* the next search starts past a: its counts are at least the
		 * lower bounds found; the upper ones start over */
		if (rp)
			plan_ranges_top(s, r);
	}
	return TB_OK;
}

/* A CPU cursor's position as a mark (its next record, if it has one). */
static tb_session_mark cursor_mark(const tb_dat_stream *st, const tb_dat_cursor *c)
{
	tb_session_mark m;
	memset(&m, 0, sizeof(m));
	if (c->irec < c->nrecs) {
		const tb_kbuf_record *r = &c->recs[c->irec];
		m.state = 1;
		m.page = c->page_index ? c->page_index - 1 : 0;
		m.offset = r->offset;
		if (c->missed && (!(st->flags & TB_DAT_STREAM_TC_DROPS) || r->index == 0))
			m.missed = (uint64_t)c->missed;
	} else if (!c->done) {
		m.state = 2; /* not positioned yet: the CPU's first page */
	}
	return m;
}

tb_status tb_ss_part_position(tb_session *p, tb_error *err)
{
	size_t i, k, m = 0;
	for (i = 0; i < p->nbufs; i++) {
		dat_src *ds = &p->bufs[i];
		tb_status st;
		ds->s.flags = p->parent->bufs[i].s.flags;
		if ((st = tb_ss_stream_start(p, ds, err)) != TB_OK)
			return st;
		ds->has_head = ds->done = 0;
		memset(ds->cst, 0, ds->b->ncpus * sizeof(*ds->cst));
		for (k = 0; k < ds->s.ncur; k++) {
			if (p->has_from) {
				uint64_t np = 0, pg;
				if ((st = tb_dat_stream_pages(&ds->s, k, &np)) != TB_OK)
					return tb_fail(err, st, ds->b->section_offset,
						       "a part of compressed CPU data");
				pg = first_page_at(&ds->s, k, np, p->from_raw);
				/* the page before may still hold records at or past from */
				if ((st = tb_dat_stream_seek(&ds->s, k, pg ? pg - 1 : 0, err)) != TB_OK)
					return st;
				if ((st = tb_dat_stream_skip_before(&ds->s, k, p->from_raw, NULL)) !=
				    TB_OK)
					return tb_fail(err, st, 0, "skipping to the part's start");
			}
			p->start_marks[m++] = cursor_mark(&ds->s, &ds->cur[k]);
		}
	}
	p->last_ts = 0;
	p->last_entry = NULL;
	memset(p->task, 0, sizeof(p->task));
	p->prev_line_ts = p->pending_line_ts = 0;
	p->have_prev_line = 0;
	memset(&p->last, 0, sizeof(p->last));
	return tb_ss_start_merges(p, err);
}

tb_status tb_session_part_seek(tb_session *p, const uint64_t *from, const uint64_t *to,
			       tb_error *err)
{
	uint64_t off;
	tb_error_clear(err);
	if (!p || !p->parent)
		return tb_fail(err, TB_ERR_ARG, 0, "not a part");
	if (from && !splittable(p->parent))
		return tb_fail(err, TB_ERR_UNSUPPORTED, 0,
			       "a part that does not start at the start of compressed CPU data");
	off = (uint64_t)p->info.ts_offset;
	p->has_from = from != NULL;
	p->from_raw = from ? *from - off : 0;
	p->has_to = to != NULL;
	p->to_raw = to ? *to - off : 0;
	return tb_ss_part_position(p, err);
}

void tb_ss_part_close(tb_session *p)
{
	tb_mem m = p->mem;
	size_t i;
	if (m.free) {
		for (i = 0; p->pprog && i < p->ntexts; i++)
			tb_ss_free_progs(m, p->pprog[i].p);
		tb_ss_free_last(p, m);
	}
}

/* A part's one region (tb_session_part_open): buffers, per buffer its
 * cursors, stats and chunks, the start marks, the program table; *ncpu
 * the CPUs of all buffers. */
static size_t part_region(const tb_session *s, size_t *ncpu)
{
	size_t i, total;
	*ncpu = 0;
	total = ALIGN_UP((s->nbufs ? s->nbufs : 1) * sizeof(dat_src));
	for (i = 0; i < s->nbufs; i++) {
		size_t nc = s->bufs[i].b->ncpus;
		total += ALIGN_UP(nc * sizeof(tb_dat_cursor)) +
			 ALIGN_UP(nc * sizeof(tb_session_cpu_stats)) +
			 ALIGN_UP(s->bufs[i].chunks_len);
		*ncpu += nc;
	}
	return total + ALIGN_UP((*ncpu ? *ncpu : 1) * sizeof(tb_session_mark)) +
	       ALIGN_UP((s->ntexts ? s->ntexts : 1) * sizeof(part_prog));
}

void tb_session_need_jobs(const tb_session *s, size_t jobs, tb_session_need *out)
{
	size_t i, ncpu;
	uint64_t per, used = 0, more;
	tb_session_need_get(s, out);
	if (!out || !s || s->parent || jobs < 2 || !splittable(s))
		return;
	for (i = 0; s->fe && i < s->ntexts; i++)
		used += s->fe[i].used;
	/* each part: itself, its region, both programs of every format used */
	per = sizeof(tb_session) + part_region(s, &ncpu) + used * 2 * sizeof(tb_render_prog);
	more = jobs > UINT64_MAX / per ? UINT64_MAX : jobs * per;
	out->total = more > UINT64_MAX - out->total ? UINT64_MAX : out->total + more;
}

size_t tb_session_jobs_within(tb_session *s, size_t jobs, uint64_t room)
{
	tb_session_need own, nj;
	tb_session_event ev;
	tb_error e;
	uint64_t worst = (uint64_t)jobs * 2 * sizeof(tb_render_prog);
	size_t j;
	if (!s || jobs < 2 || tb_session_prepare(s, &e) != TB_OK)
		return jobs;
	tb_session_need_get(s, &own);
	tb_session_need_jobs(s, jobs, &nj);
	if (nj.total == own.total)
		return jobs; /* not split: one cursor */
	worst = s->info.nformats > UINT64_MAX / worst ? UINT64_MAX : worst * s->info.nformats;
	if (worst <= room && nj.total <= room - worst)
		return jobs; /* whatever the parts render */
	if (nj.total <= room) {
		/* the formats that have records: a walk, then back to the start */
		tb_status st;
		while ((st = tb_session_next(s, &ev, &e)) != TB_END)
			if (st == TB_ERR_NO_SPACE || st == TB_ERR_BUDGET)
				return jobs;
		if (tb_session_rewind(s, &e) != TB_OK)
			return jobs;
	}
	for (j = jobs; j > 1; j--) {
		tb_session_need_jobs(s, j, &nj);
		if (nj.total <= room)
			break;
	}
	tb_session_need_get(s, &own);
	return j < jobs && own.total > room ? jobs : j;
}

tb_status tb_session_part_open(tb_session **out, const tb_session *s, const tb_mem *mem,
			       const uint64_t *from, const uint64_t *to, tb_error *err)
{
	tb_session *p;
	size_t i, total, ncpu, at;
	uint8_t *base;
	tb_status st;
	tb_error_clear(err);
	if (!out || !s || !mem || !mem->alloc)
		return tb_fail(err, TB_ERR_ARG, 0, "NULL argument");
	*out = NULL;
	if (s->parent || !s->prepared)
		return tb_fail(err, TB_ERR_ARG, 0,
			       "parts are opened on a session after tb_session_prepare");
	if (!s->info.is_dat)
		return tb_fail(err, TB_ERR_UNSUPPORTED, 0, "parts of raw dumps");
	if (from && !splittable(s))
		return tb_fail(err, TB_ERR_UNSUPPORTED, 0,
			       "a part that does not start at the start of compressed CPU data");
	total = part_region(s, &ncpu);
	if (s->budget && (s->held >= s->budget || sizeof(*p) > s->budget - s->held))
		return tb_fail(err, TB_ERR_BUDGET, 0, part_session);
	p = mem->alloc(mem->ctx, sizeof(*p));
	if (!p)
		return tb_fail(err, TB_ERR_NO_SPACE, 0, "no memory for the part");
	*p = *s;
	p->mem = *mem;
	p->parent = s;
	/* what the session left of its budget */
	p->budget = s->budget ? s->budget - s->held : 0;
	p->held = p->peak = sizeof(*p);
	memset(&p->nd, 0, sizeof(p->nd));
	p->nregions = 0;
	p->rbuf = NULL;
	p->rcap = p->rlen = 0;
	p->raw = NULL;
	p->nraw = 0;
	p->pprog = NULL;
	base = tb_ss_take(p, total, part_streams);
	if (!base) {
		st = tb_ss_no_memory(p, err, 0, "no memory for the part's cursors");
		tb_ss_part_close(p);
		return st;
	}
	at = 0;
	p->bufs = (dat_src *)(void *)base;
	at += ALIGN_UP((s->nbufs ? s->nbufs : 1) * sizeof(dat_src));
	for (i = 0; i < s->nbufs; i++) {
		dat_src *ds = &p->bufs[i];
		size_t nc = s->bufs[i].b->ncpus;
		ds->b = s->bufs[i].b;
		ds->layout = s->bufs[i].layout;
		ds->cur = (tb_dat_cursor *)(void *)(base + at);
		at += ALIGN_UP(nc * sizeof(tb_dat_cursor));
		ds->cst = (tb_session_cpu_stats *)(void *)(base + at);
		at += ALIGN_UP(nc * sizeof(tb_session_cpu_stats));
		ds->chunks_len = s->bufs[i].chunks_len;
		ds->caps = s->bufs[i].caps; /* read only */
		ds->chunks = ds->chunks_len ? base + at : NULL;
		at += ALIGN_UP(ds->chunks_len);
	}
	p->start_marks = (tb_session_mark *)(void *)(base + at);
	p->nmarks = ncpu;
	at += ALIGN_UP((ncpu ? ncpu : 1) * sizeof(tb_session_mark));
	p->pprog = (part_prog *)(void *)(base + at);
	if ((st = tb_session_part_seek(p, from, to, err)) != TB_OK) {
		tb_ss_part_close(p);
		return st;
	}
	*out = p;
	return TB_OK;
}

size_t tb_session_part_marks(const tb_session *p, unsigned which, tb_session_mark *out,
			     size_t cap)
{
	size_t i, k, m = 0;
	if (!p || !p->parent)
		return 0;
	if (which == TB_SESSION_MARK_START) {
		for (i = 0; out && i < p->nmarks && i < cap; i++)
			out[i] = p->start_marks[i];
		return p->nmarks;
	}
	for (i = 0; i < p->nbufs; i++) {
		const dat_src *ds = &p->bufs[i];
		for (k = 0; k < ds->s.ncur; k++, m++) {
			tb_session_mark mk = cursor_mark(&ds->s, &ds->cur[k]);
			if (ds->has_head && ds->head.cpu == ds->cur[k].cpu->cpu) {
				/* the buffer's next event, taken from its cursor already */
				memset(&mk, 0, sizeof(mk));
				mk.state = 1;
				mk.page = ds->head.page_index;
				mk.offset = ds->head.offset;
				mk.missed = (uint64_t)ds->head.missed;
			}
			if (out && m < cap)
				out[m] = mk;
		}
	}
	return m;
}

size_t tb_session_listing_memory(const tb_session *s, uint64_t *out, size_t cap)
{
	size_t n = 0;
	for (size_t i = 0; s && s->fe && i < s->ntexts; i++) {
		const tb_render_prog *p = s->pprog ? s->pprog[i].p[1] : s->fe[i].prog[1];
		for (uint32_t k = 0; p && k < p->n_fops; k++) {
			if (!tb_pf_forgot_text(p, k))
				continue;
			if (out && n < cap)
				out[n] = (uint64_t)i << 16 | p->fops[k].field;
			n++;
		}
	}
	return n;
}

void tb_session_line_state_get(const tb_session *s, tb_session_line_state *out)
{
	if (!s || !out)
		return;
	out->prev_shown = s->prev_line_ts;
	out->have_prev = s->have_prev_line;
}

void tb_session_line_state_set(tb_session *s, const tb_session_line_state *in)
{
	if (!s || !in)
		return;
	s->prev_line_ts = in->prev_shown;
	s->have_prev_line = in->have_prev != 0;
}

