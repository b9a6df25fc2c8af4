/*
 * The library session over any bytes taken as a trace.dat: open, merge
 * every CPU of every buffer, render every event in all three renderings.
 * Promises checked: memory stays inside the arena; every rendering is
 * NUL-terminated within its buffer and its `needed` does not depend on the
 * buffer's size (a small buffer holds a prefix of the whole text, no
 * buffer counts it); JSON
 * lines are well formed (strings closed, no raw control bytes, brackets
 * balanced); a damaged page's offset, an error's and every damage entry's
 * lie inside the input.  Then the same walk again through a tb_mem that
 * refuses one request (which one: from the first walk's count and the
 * input): a call during which a request was refused never says TB_OK
 * (session.h: such a call fails with TB_ERR_NO_SPACE), and once the
 * refusal is past the walk goes on.  And the walk once more into the
 * Parquet tables (pq_session.h) over a null sink: every output opened is
 * closed, starts with the magic and, when finished, ends with it; an
 * error stays (finish says it again); memory from an arena of its own.
 */
#include <string.h>

#include "fuzz.h"
#include "tracebound/pq_session.h"
#include "tracebound/tracebound.h"

static uint8_t arena_mem[32u << 20];
static char text[1 << 16], small[1 << 16];

/* The arena behind a tb_mem that refuses request number refuse_at (from
 * 1; 0: none) and notes that it did. */
typedef struct refusing {
	tb_arena *a;
	size_t calls, refuse_at;
	int refused;
} refusing;

static void *refusing_alloc(void *ctx, size_t size)
{
	refusing *r = ctx;
	tb_mem m = tb_arena_mem(r->a);
	if (++r->calls == r->refuse_at) {
		r->refused = 1;
		return NULL;
	}
	return m.alloc(m.ctx, size);
}

static void refusing_free(void *ctx, void *p, size_t size)
{
	refusing *r = ctx;
	tb_mem m = tb_arena_mem(r->a);
	m.free(m.ctx, p, size);
}

/* A call that had a request refused must not return TB_OK. */
static void check_refusal(refusing *r, tb_status st)
{
	if (r->refused)
		TB_FUZZ_CHECK(st != TB_OK);
	r->refused = 0;
}

/* The walk again with request k refused. */
static void walk_refusing(const tb_session_source *src, const tb_session_options *opt,
			  size_t k)
{
	static const unsigned how[] = { TB_TEXT_PRINT | TB_TEXT_LINE, TB_TEXT_JSON | TB_TEXT_WITH_PRINT };
	tb_arena a;
	refusing r = { &a, 0, k, 0 };
	tb_mem m = { refusing_alloc, refusing_free, &r };
	tb_session *s;
	tb_session_event ev;
	tb_error err;
	tb_status st;
	size_t n = 0;
	tb_arena_init(&a, arena_mem, sizeof(arena_mem));
	st = tb_session_open(&s, src, opt, &m, &err);
	check_refusal(&r, st);
	if (st != TB_OK)
		return;
	while ((st = tb_session_next(s, &ev, &err)) != TB_END && n++ < 20000) {
		check_refusal(&r, st);
		if (st != TB_OK)
			continue;
		st = tb_session_text(s, &ev, how[n & 1], text, sizeof(text), NULL);
		check_refusal(&r, st);
	}
	tb_session_close(s);
}

/* A JSON object: quotes paired, escapes known, no control bytes, brackets balanced. */
static int json_ok(const char *s, size_t n)
{
	size_t i, depth = 0;
	int in_str = 0;
	if (!n || s[0] != '{' || s[n - 1] != '}')
		return 0;
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (in_str) {
			if (c < 0x20)
				return 0;
			if (c == '\\') {
				if (i + 1 >= n || !strchr("\"\\/bfnrtu", s[i + 1]))
					return 0;
				i++;
			} else if (c == '"') {
				in_str = 0;
			}
			continue;
		}
		if (c == '"')
			in_str = 1;
		else if (c == '{' || c == '[')
			depth++;
		else if (c == '}' || c == ']') {
			if (!depth)
				return 0;
			depth--;
		}
	}
	return !in_str && depth == 0;
}

static void render(tb_session *s, const tb_session_event *ev, unsigned how)
{
	tb_render_result r, r2;
	tb_status st = tb_session_text(s, ev, how, text, sizeof(text), &r);
	size_t cap;
	if (st == TB_ERR_NO_SPACE && r.needed == 0)
		return; /* no memory for the program */
	TB_FUZZ_CHECK(r.len < sizeof(text) && text[r.len] == '\0');
	TB_FUZZ_CHECK(r.len <= r.needed);
	if ((how & TB_TEXT_KIND_MASK) == TB_TEXT_JSON && r.len == r.needed)
		TB_FUZZ_CHECK(json_ok(text, r.len));
	if (r.len != r.needed || !r.len)
		return;
	cap = r.len / 2 + 1;
	small[cap] = 'Z';
	st = tb_session_text(s, ev, how, small, cap, &r2);
	TB_FUZZ_CHECK(small[cap] == 'Z');
	TB_FUZZ_CHECK(r2.needed == r.needed);
	TB_FUZZ_CHECK(r2.len == cap - 1 && !memcmp(small, text, r2.len));
	TB_FUZZ_CHECK(st == TB_ERR_NO_SPACE);
	/* and into no buffer at all: counted only */
	st = tb_session_text(s, ev, how, NULL, 0, &r2);
	TB_FUZZ_CHECK(st == TB_ERR_NO_SPACE && r2.len == 0 && r2.needed == r.needed);
}

/* ---- the Parquet tables into a null sink ---- */

typedef struct null_out {
	char name[TB_PQ_SESSION_MAX_NAME];
	size_t len;
	uint8_t head[4], tail[4];
} null_out;

typedef struct null_sink {
	null_out outs[512];
	size_t n, open;
} null_sink;

static null_sink sink;

static tb_status ns_open(void *ctx, const char *name, int append, void **out)
{
	null_sink *k = ctx;
	size_t i;
	for (i = 0; i < k->n && strcmp(k->outs[i].name, name); i++)
		;
	/* a name is new unless it appends; it fits the limit */
	TB_FUZZ_CHECK((i < k->n) == (append != 0) && strlen(name) < TB_PQ_SESSION_MAX_NAME);
	if (i == sizeof(k->outs) / sizeof(k->outs[0]))
		return TB_ERR_LIMIT;
	if (i == k->n) {
		memset(&k->outs[k->n], 0, sizeof(k->outs[0]));
		strcpy(k->outs[k->n++].name, name);
	}
	*out = &k->outs[i];
	k->open++;
	return TB_OK;
}

static tb_status ns_write(void *ctx, void *out, const void *p, size_t n)
{
	null_out *o = out;
	const uint8_t *b = p;
	size_t i;
	(void)ctx;
	for (i = 0; i < n; i++, o->len++) {
		if (o->len < 4)
			o->head[o->len] = b[i];
		o->tail[o->len % 4] = b[i];
	}
	return TB_OK;
}

static tb_status ns_close(void *ctx, void *out)
{
	(void)out;
	((null_sink *)ctx)->open--;
	return TB_OK;
}

/* The writer's memory: an arena of its own (dropped whole each run). */
static uint8_t pq_arena_mem[48u << 20];

static void pq_tables(tb_session *s)
{
	tb_arena a;
	tb_mem heap;
	tb_pq_session_config cfg = { TB_PQ_SESSION_EVENTS | TB_PQ_SESSION_FORMATS |
					     TB_PQ_SESSION_TEXT, "fuzz", 4, 4 };
	tb_pq_session_io io = { ns_open, ns_write, ns_close, &sink, NULL, NULL, NULL, 0 };
	tb_pq_session *w;
	tb_session_event ev;
	tb_error err;
	tb_status st, st2;
	size_t n = 0, i;
	sink.n = sink.open = 0;
	tb_arena_init(&a, pq_arena_mem, sizeof(pq_arena_mem));
	heap = tb_arena_mem(&a);
	if (tb_session_rewind(s, &err) != TB_OK)
		return;
	st = tb_pq_session_open(&w, s, &heap, &cfg, &io, &err);
	while (st == TB_OK && tb_session_next(s, &ev, &err) == TB_OK && n++ < 100000)
		st = tb_pq_session_event(w, &ev, "text", 4, &err);
	TB_FUZZ_CHECK(st == TB_OK || tb_is_error(st));
	st2 = tb_pq_session_finish(w, &err);
	TB_FUZZ_CHECK(st == TB_OK ? st2 == TB_OK || tb_is_error(st2) : st2 == st);
	if (st2 == TB_OK) {
		tb_pq_session_meta meta = { "fuzz", "0", NULL, 0, 0, w, w };
		st2 = tb_pq_session_metadata(s, &meta, &heap, &io, &err);
		TB_FUZZ_CHECK(st2 == TB_OK || tb_is_error(st2));
	}
	tb_pq_session_close(w);
	TB_FUZZ_CHECK(sink.open == 0 && a.used <= sizeof(pq_arena_mem));
	for (i = 0; i < sink.n; i++) {
		const null_out *o = &sink.outs[i];
		TB_FUZZ_CHECK(o->len < 4 || !memcmp(o->head, "PAR1", 4) ||
			      o->head[0] == '{'); /* metadata.json */
		if (st2 == TB_OK && o->head[0] != '{')
			TB_FUZZ_CHECK(o->len >= 8 && o->tail[(o->len - 4) % 4] == 'P' &&
				      o->tail[(o->len - 1) % 4] == '1');
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	tb_session_source src;
	tb_session_options opt = { TB_SESSION_SKIP_DAMAGED | TB_SESSION_TC_DROPS,
				   TB_RENDER_KNOWN_ENUMS | TB_RENDER_KERNEL_STYLE };
	tb_session *s;
	tb_session_event ev;
	tb_arena a;
	refusing counted = { &a, 0, 0, 0 };
	tb_mem m;
	tb_error err;
	tb_status st;
	size_t n = 0;
	memset(&src, 0, sizeof(src));
	src.dat = data;
	src.dat_len = size;
	src.decompress.fn = tb_fuzz_copy_dc;
	tb_arena_init(&a, arena_mem, sizeof(arena_mem));
	m.alloc = refusing_alloc;
	m.free = refusing_free;
	m.ctx = &counted;
	if (tb_session_open(&s, &src, &opt, &m, &err) != TB_OK) {
		TB_FUZZ_CHECK(tb_is_error(err.status));
		return 0;
	}
	while ((st = tb_session_next(s, &ev, &err)) == TB_OK && n++ < 100000) {
		if (ev.kind == TB_SEV_DAMAGED) {
			TB_FUZZ_CHECK(ev.damage.offset <= size && ev.page_offset <= size);
			render(s, &ev, TB_TEXT_PRINT | TB_TEXT_LINE);
			continue;
		}
		TB_FUZZ_CHECK(tb_fuzz_inside(ev.data, ev.len, data, size) || ev.len == 0 ||
			      tb_fuzz_inside(ev.data, ev.len, arena_mem, sizeof(arena_mem)));
		render(s, &ev, TB_TEXT_PRINT | TB_TEXT_LINE);
		render(s, &ev, TB_TEXT_FIELDS | TB_TEXT_LINE);
		render(s, &ev, TB_TEXT_JSON | TB_TEXT_WITH_PRINT);
	}
	TB_FUZZ_CHECK(st == TB_OK || st == TB_END || tb_is_error(st));
	TB_FUZZ_CHECK(st == TB_OK || st == TB_END || err.offset <= size);
	TB_FUZZ_CHECK(a.used <= sizeof(arena_mem));
	{
		size_t i;
		for (i = 0; i < tb_session_ndamage(s); i++)
			TB_FUZZ_CHECK(tb_session_damage_at(s, i)->error.offset <= size);
	}
	/* the CPU tables (report --stat), each CPU's first/last (--first-event) */
	{
		const tb_session_info *info = tb_session_get_info(s);
		size_t b, i;
		uint64_t seen = 0, lo = UINT64_MAX, hi = 0;
		for (b = 0; b < info->nbuffers; b++)
			for (i = 0; i < 1024; i++) {
				tb_session_cpu_data cd;
				tb_session_cpu_stats cs;
				st = tb_session_cpu_data_at(s, b, i, &cd, &err);
				if (st == TB_NOT_FOUND)
					break;
				TB_FUZZ_CHECK(st == TB_OK || tb_is_error(st));
				if (st != TB_OK)
					continue;
				TB_FUZZ_CHECK(cd.compressed || cd.data_size == cd.size);
				TB_FUZZ_CHECK(tb_session_cpu_stats_get(s, b, cd.cpu, &cs) == TB_OK);
				if (!cs.events)
					continue;
				seen += cs.events;
				lo = cs.first_ts < lo ? cs.first_ts : lo;
				hi = cs.last_ts > hi ? cs.last_ts : hi;
			}
		/* a window over part of it gives only events inside it */
		if (seen && tb_session_rewind(s, &err) == TB_OK) {
			uint64_t from = lo + (hi - lo) / 4, to = hi - (hi - lo) / 4, k = 0;
			TB_FUZZ_CHECK(tb_session_set_window(s, from, to) == TB_OK);
			while ((st = tb_session_next(s, &ev, &err)) == TB_OK && k++ < 100000)
				TB_FUZZ_CHECK(ev.kind == TB_SEV_DAMAGED ||
					      (ev.ts >= from && ev.ts <= to));
		}
		/* and with ids kept too (the input's last byte picks them):
		 * only those, still in the window, each described */
		if (seen && tb_session_rewind(s, &err) == TB_OK) {
			uint64_t from = lo + (hi - lo) / 4, to = hi - (hi - lo) / 4;
			uint64_t keep[2] = { 0x5555555555555555ull * (data[size - 1] & 1u),
					     ~0ull << (data[size - 1] >> 2 & 63u) }, k = 0;
			uint64_t cpus = data[size - 1] & 2u ? 0x5555555555555555ull : ~0ull;
			tb_session_keep_ids(s, keep, 2);
			tb_session_keep_cpus(s, &cpus, 1);
			while ((st = tb_session_next(s, &ev, &err)) == TB_OK && k++ < 100000) {
				if (ev.kind == TB_SEV_DAMAGED)
					continue;
				TB_FUZZ_CHECK(ev.cpu < 64 && (cpus >> ev.cpu & 1u));
				TB_FUZZ_CHECK(ev.has_id && ev.id < 128 &&
					      (keep[ev.id / 64] >> (ev.id % 64) & 1u));
				TB_FUZZ_CHECK(ev.ts >= from && ev.ts <= to);
				render(s, &ev, TB_TEXT_PRINT | TB_TEXT_LINE);
			}
			/* the sets are this block's: the session reads them
			 * until told otherwise (session.h) */
			tb_session_keep_ids(s, NULL, 0);
			tb_session_keep_cpus(s, NULL, 0);
		}
	}
	pq_tables(s);
	tb_session_close(s);
	/* one request refused, of those the walk above made (the one below
	 * renders less, so a late one may never come), picked by the input */
	{
		size_t k;
		uint32_t h = 2166136261u;
		for (k = 0; k < size; k += 1 + size / 64)
			h = (h ^ data[k]) * 16777619u;
		walk_refusing(&src, &opt, 1 + h % counted.calls);
	}
	return 0;
}
