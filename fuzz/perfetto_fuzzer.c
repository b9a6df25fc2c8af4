/*
 * trace.dat -> Perfetto trace: any bytes that open as a trace.dat (a
 * library session in a fixed arena, damaged pages in place) are converted
 * as the CLI does (cmdlines, every event of every buffer), and the
 * output must be well-formed protobuf of the shape Perfetto reads: a
 * Trace of TracePackets, each holding a sequence id and one
 * FtraceEventBundle (cpu, events, loss and clock fields) or one
 * ProcessTree; every FtraceEvent has a timestamp, a pid and exactly one
 * event message; generic events have a name and Fields with at most one
 * value; every string the converter writes is UTF-8 (protoc rejects
 * others).  Counts must agree with the writer's stats.  Bytes that do
 * not open are a clean error.  A small bundle and scratch size make the
 * splitting and retry paths run.  The events also go through the two
 * halves of tb_pf_add, as convert --jobs uses them: tb_pf_encode on an
 * encode-only writer, tb_pf_place into a third; its bytes and stats must
 * be the first writer's (after the prologue).  A record the encoder refuses
 * for want of scratch is refused with the same w->need at need - 1 bytes
 * and encoded at need bytes, into exactly need bytes.
 */
#include <string.h>

#include "fuzz.h"
#include "tracebound/tracebound.h"

static uint8_t arena_mem[32u << 20];
static tb_pf_writer w;
static uint8_t bundles[8 * 1024];
static uint8_t pscratch[1 << 20];
static uint8_t out[1 << 21];
static size_t out_len;
static uint64_t seen_packets, seen_events, seen_threads;
static tb_pf_writer ew, pw;             /* encode only; placing */
static uint8_t ebundle[TB_PF_MIN_BUNDLE], pbundles[8 * 1024];
static uint8_t escratch[1 << 20];
static uint64_t hash[2], hashed[2];     /* FNV-1a of w's (after the prologue) and pw's bytes */

static void hash_in(int i, const void *p, size_t n)
{
	const uint8_t *b = p;
	size_t k;
	for (k = 0; k < n; k++)
		hash[i] = (hash[i] ^ b[k]) * 0x100000001b3ull;
	hashed[i] += n;
}

static tb_status sink(void *ctx, const void *p, size_t n)
{
	(void)ctx;
	TB_FUZZ_CHECK(n <= sizeof(out) - out_len);
	memcpy(out + out_len, p, n);
	out_len += n;
	hash_in(0, p, n);
	return TB_OK;
}

static tb_status sink_placed(void *ctx, const void *p, size_t n)
{
	(void)ctx;
	hash_in(1, p, n);
	return TB_OK;
}

static tb_status sink_never(void *ctx, const void *p, size_t n)
{
	(void)ctx;
	(void)p;
	(void)n;
	TB_FUZZ_CHECK(0); /* an encode-only writer writes nothing */
	return TB_ERR_ARG;
}

/* The event through encode + place; `fits`: w took it (else it was too
 * large for any scratch here, and the encoder must say the same). */
static void encode_place(const tb_session_event *ev, int fits)
{
	tb_pf_record r;
	tb_pf_encoded e;
	tb_error err;
	tb_status s;
	if (ev->kind == TB_SEV_DAMAGED) {
		TB_FUZZ_CHECK(tb_pf_session_record(ev, &r, &err) == TB_ERR_ARG);
		TB_FUZZ_CHECK(tb_pf_lost(&pw, ev->buffer, ev->cpu, &err) == TB_OK);
		return;
	}
	TB_FUZZ_CHECK(tb_pf_session_record(ev, &r, &err) == TB_OK);
	s = tb_pf_encode(&ew, &r, &e, &err);
	if (s == TB_ERR_NO_SPACE) {
		size_t need = ew.need;
		TB_FUZZ_CHECK(need > ew.cfg.scratch_size);
		/* need is the encoding's size, whatever the scratch: one byte
		 * less is refused with the same need, need bytes hold it */
		if (need <= sizeof(escratch)) {
			tb_pf_set_scratch(&ew, escratch, need - 1);
			TB_FUZZ_CHECK(tb_pf_encode(&ew, &r, &e, &err) == TB_ERR_NO_SPACE);
			TB_FUZZ_CHECK(ew.need == need);
			tb_pf_set_scratch(&ew, escratch, need);
		} else {
			tb_pf_set_scratch(&ew, escratch, sizeof(escratch));
		}
		s = tb_pf_encode(&ew, &r, &e, &err);
		TB_FUZZ_CHECK(s != TB_OK || e.len == need);
		tb_pf_set_scratch(&ew, escratch, 300);
	}
	if (!fits) {
		TB_FUZZ_CHECK(s == TB_ERR_NO_SPACE);
		return;
	}
	TB_FUZZ_CHECK(s == TB_OK);
	TB_FUZZ_CHECK(e.cpu == ev->cpu && e.buffer == ev->buffer && e.ts == ev->ts);
	TB_FUZZ_CHECK(tb_pf_place(&pw, &e, &err) == TB_OK);
}

/* ---- a wire-format reader ---- */

typedef struct rd {
	const uint8_t *p, *end;
} rd;

static int varint(rd *r, uint64_t *v)
{
	unsigned shift = 0;
	*v = 0;
	while (r->p < r->end && shift < 64) {
		uint8_t b = *r->p++;
		*v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return 1;
		shift += 7;
	}
	return 0;
}

typedef struct fld {
	uint32_t num;
	unsigned wire;
	uint64_t v;
	rd sub;
} fld;

/* 1 a field, 0 the end; anything malformed aborts. */
static int next(rd *r, fld *f)
{
	uint64_t tag;
	if (r->p == r->end)
		return 0;
	TB_FUZZ_CHECK(varint(r, &tag));
	f->num = (uint32_t)(tag >> 3);
	f->wire = (unsigned)(tag & 7);
	TB_FUZZ_CHECK(f->num != 0 && tag >> 3 <= 536870911u);
	if (f->wire == 0) {
		TB_FUZZ_CHECK(varint(r, &f->v));
	} else if (f->wire == 2) {
		TB_FUZZ_CHECK(varint(r, &f->v));
		TB_FUZZ_CHECK(f->v <= (uint64_t)(r->end - r->p));
		f->sub.p = r->p;
		f->sub.end = r->p + f->v;
		r->p += f->v;
	} else {
		size_t n = f->wire == 1 ? 8 : 4;
		TB_FUZZ_CHECK(f->wire == 1 || f->wire == 5);
		TB_FUZZ_CHECK((size_t)(r->end - r->p) >= n);
		r->p += n;
	}
	return 1;
}

static int utf8_ok(const uint8_t *p, size_t n)
{
	size_t i = 0;
	while (i < n) {
		uint8_t c = p[i], lo = 0x80, hi = 0xbf;
		size_t len, k;
		if (c < 0x80) {
			i++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf)
			len = 2;
		else if (c >= 0xe0 && c <= 0xef) {
			len = 3;
			lo = c == 0xe0 ? 0xa0 : 0x80;
			hi = c == 0xed ? 0x9f : 0xbf;
		} else if (c >= 0xf0 && c <= 0xf4) {
			len = 4;
			lo = c == 0xf0 ? 0x90 : 0x80;
			hi = c == 0xf4 ? 0x8f : 0xbf;
		} else
			return 0;
		if (len > n - i)
			return 0;
		for (k = 1; k < len; k++) {
			if (p[i + k] < lo || p[i + k] > hi)
				return 0;
			lo = 0x80;
			hi = 0xbf;
		}
		i += len;
	}
	return 1;
}

static void string(const fld *f)
{
	TB_FUZZ_CHECK(f->wire == 2);
	TB_FUZZ_CHECK(utf8_ok(f->sub.p, (size_t)(f->sub.end - f->sub.p)));
}

/* Any message: well-formed fields (typed ftrace events hold scalars and
 * strings only, so one level). */
static void flat(rd r)
{
	fld f;
	while (next(&r, &f))
		;
}

static void generic(rd r)
{
	fld f, g;
	int name = 0;
	while (next(&r, &f)) {
		if (f.num == 1) {
			string(&f);
			name++;
		} else {
			int nvalues = 0, fname = 0;
			TB_FUZZ_CHECK(f.num == 2 && f.wire == 2);
			while (next(&f.sub, &g)) {
				if (g.num == 1) {
					string(&g);
					fname++;
				} else if (g.num == 3) {
					string(&g);
					nvalues++;
				} else {
					TB_FUZZ_CHECK((g.num == 4 || g.num == 5) && g.wire == 0);
					nvalues++;
				}
			}
			TB_FUZZ_CHECK(fname == 1 && nvalues <= 1);
		}
	}
	TB_FUZZ_CHECK(name == 1);
}

static void event(rd r)
{
	fld f;
	int ts = 0, pid = 0, body = 0;
	while (next(&r, &f)) {
		if (f.num == 1 || f.num == 2 || f.num == 5) {
			TB_FUZZ_CHECK(f.wire == 0);
			ts += f.num == 1;
			pid += f.num == 2;
			TB_FUZZ_CHECK(f.num != 2 || f.v <= UINT32_MAX);
		} else {
			TB_FUZZ_CHECK(f.wire == 2);
			body++;
			if (f.num == 327)
				generic(f.sub);
			else
				flat(f.sub);
		}
	}
	TB_FUZZ_CHECK(ts == 1 && pid == 1 && body == 1);
	seen_events++;
}

static void bundle(rd r)
{
	fld f;
	int cpu = 0;
	while (next(&r, &f)) {
		if (f.num == 2) {
			TB_FUZZ_CHECK(f.wire == 2);
			event(f.sub);
		} else {
			TB_FUZZ_CHECK(f.wire == 0 && (f.num == 1 || f.num == 3 || f.num == 5 ||
						      f.num == 6 || f.num == 7));
			cpu += f.num == 1;
		}
	}
	TB_FUZZ_CHECK(cpu == 1);
}

static void tree(rd r)
{
	fld f, g;
	while (next(&r, &f)) {
		TB_FUZZ_CHECK(f.num == 2 && f.wire == 2);
		while (next(&f.sub, &g)) {
			TB_FUZZ_CHECK(g.num == 1 || g.num == 2);
			if (g.num == 2)
				string(&g);
			else
				TB_FUZZ_CHECK(g.wire == 0);
		}
		seen_threads++;
	}
}

/* Check the complete packets in out[], then empty it. */
static void check_output(void)
{
	rd r = { out, out + out_len };
	fld f, g;
	while (next(&r, &f)) {
		int seq = 0, data = 0;
		TB_FUZZ_CHECK(f.num == 1 && f.wire == 2);
		while (next(&f.sub, &g)) {
			if (g.num == 10) {
				TB_FUZZ_CHECK(g.wire == 0 && g.v == 1);
				seq++;
			} else if (g.num == 1) {
				TB_FUZZ_CHECK(g.wire == 2);
				bundle(g.sub);
				data++;
			} else if (g.num == 45) { /* system_info { utsname { strings } } */
				fld u, t;
				TB_FUZZ_CHECK(g.wire == 2);
				while (next(&g.sub, &u)) {
					TB_FUZZ_CHECK(u.num == 1 && u.wire == 2);
					while (next(&u.sub, &t))
						string(&t);
				}
				data++;
			} else {
				TB_FUZZ_CHECK(g.num == 2 && g.wire == 2);
				tree(g.sub);
				data++;
			}
		}
		TB_FUZZ_CHECK(seq == 1 && data == 1);
		seen_packets++;
	}
	out_len = 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	tb_arena arena;
	tb_mem mem;
	tb_session *ses;
	tb_session_source src;
	tb_session_options opt;
	const tb_session_buffer_info *b0;
	tb_error err;
	tb_pf_config cfg;
	size_t budget = 20000;
	uint64_t prologue_packets;
	tb_status s;

	tb_arena_init(&arena, arena_mem, sizeof(arena_mem));
	mem = tb_arena_mem(&arena);
	memset(&src, 0, sizeof(src));
	src.dat = data;
	src.dat_len = size;
	src.decompress.fn = tb_fuzz_copy_dc;
	memset(&opt, 0, sizeof(opt));
	opt.flags = TB_SESSION_SKIP_DAMAGED | (size & 16 ? TB_SESSION_TC_DROPS : 0);
	if (tb_session_open(&ses, &src, &opt, &mem, &err) != TB_OK)
		return 0;

	memset(&cfg, 0, sizeof(cfg));
	cfg.write = sink;
	cfg.bundles = bundles;
	cfg.nslots = 1 + size % 4;              /* CPUs share slots too */
	cfg.bundle_size = sizeof(bundles) / 4;
	cfg.scratch = pscratch;
	cfg.scratch_size = 512;                 /* big events take the retry */
	cfg.big_endian = tb_session_get_info(ses)->big_endian;
	/* the bracketed clock of "[local] global ..." */
	b0 = tb_session_buffer(ses, 0);
	if (b0 && b0->clock.len) {
		cfg.clock = b0->clock.ptr;
		cfg.clock_len = b0->clock.len;
	}
	cfg.flags = size & 8 ? TB_PF_LOSSLESS : 0;
	TB_FUZZ_CHECK(tb_pf_init(&w, &cfg, &err) == TB_OK);
	cfg.write = sink_placed;
	cfg.bundles = pbundles;
	TB_FUZZ_CHECK(tb_pf_init(&pw, &cfg, &err) == TB_OK);
	cfg.write = sink_never;
	cfg.bundles = ebundle;
	cfg.nslots = 1;
	cfg.bundle_size = sizeof(ebundle);
	cfg.scratch = escratch;
	cfg.scratch_size = 300;                 /* another size than w's: the same bytes */
	TB_FUZZ_CHECK(tb_pf_init(&ew, &cfg, &err) == TB_OK);
	out_len = 0;
	seen_packets = seen_events = seen_threads = 0;

	{
		const tb_session_info *info = tb_session_get_info(ses);
		if (tb_pf_system_info(&w, info->uname.ptr, info->uname.len, &err) != TB_OK)
			TB_FUZZ_CHECK(w.need > 512);
	}
	if (tb_pf_threads(&w, tb_session_cmdlines(ses), &err) != TB_OK)
		TB_FUZZ_CHECK(w.need > 512); /* a name larger than the scratch */
	check_output();
	hash[0] = hash[1] = 0xcbf29ce484222325ull;
	hashed[0] = hashed[1] = 0;
	prologue_packets = w.stats.packets;

	while (budget--) {
		tb_session_event ev;
		s = tb_session_next(ses, &ev, &err);
		if (s == TB_END)
			break;
		if (s != TB_OK) {
			TB_FUZZ_CHECK(tb_is_error(s));
			if (getenv("TB_FUZZ_VERBOSE"))
				fprintf(stderr, "perfetto_fuzzer: %s (%s)\n", err.what, tb_strerror(s));
			continue;
		}
		s = tb_pf_session_event(&w, &ev, &err);
		if (s == TB_ERR_NO_SPACE) {
			/* grow and retry, as a caller does: it must then fit */
			TB_FUZZ_CHECK(w.need > w.cfg.scratch_size);
			if (w.need > sizeof(pscratch)) {
				encode_place(&ev, 0);
				continue;
			}
			tb_pf_set_scratch(&w, pscratch, sizeof(pscratch));
			s = tb_pf_session_event(&w, &ev, &err);
			tb_pf_set_scratch(&w, pscratch, 512);
		}
		TB_FUZZ_CHECK(s == TB_OK);
		encode_place(&ev, 1);
		if (out_len > sizeof(out) / 2)
			check_output();
	}
	TB_FUZZ_CHECK(tb_pf_finish(&w, &err) == TB_OK);
	TB_FUZZ_CHECK(tb_pf_finish(&pw, &err) == TB_OK);
	check_output();
	TB_FUZZ_CHECK(hashed[0] == hashed[1] && hash[0] == hash[1]);
	TB_FUZZ_CHECK(pw.stats.events == w.stats.events && pw.stats.typed == w.stats.typed &&
		      pw.stats.generic == w.stats.generic && pw.stats.unknown == w.stats.unknown);
	TB_FUZZ_CHECK(pw.stats.dropped_fields == w.stats.dropped_fields &&
		      pw.stats.bad_fields == w.stats.bad_fields &&
		      pw.stats.lost_bundles == w.stats.lost_bundles);
	TB_FUZZ_CHECK(pw.stats.packets == w.stats.packets - prologue_packets);
	TB_FUZZ_CHECK(ew.stats.events == 0 && ew.stats.packets == 0);
	TB_FUZZ_CHECK(seen_packets == w.stats.packets);
	TB_FUZZ_CHECK(seen_events == w.stats.events);
	TB_FUZZ_CHECK(seen_threads == w.stats.threads);
	TB_FUZZ_CHECK(w.stats.typed + w.stats.generic + w.stats.unknown == w.stats.events);
	if (getenv("TB_FUZZ_VERBOSE"))
		fprintf(stderr, "perfetto_fuzzer: %llu events (%llu typed), %llu packets\n",
			(unsigned long long)w.stats.events, (unsigned long long)w.stats.typed,
			(unsigned long long)w.stats.packets);
	tb_session_close(ses);
	return 0;
}
