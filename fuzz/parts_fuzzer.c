/*
 * Parts of a capture (session.h: tb_session_prepare, _plan, _part_*) over
 * any bytes taken as a trace.dat.  Promises checked: plan's bounds
 * increase; every part stays inside the arena; and wherever the parts'
 * marks say they tile (part j+1 starts where part j stopped), their items
 * one after the other are the whole session's, item for item (kind, cpu,
 * buffer, ts, page, offset, drops, record bytes, errors).  Page headers
 * are hostile here: timestamps that go back, damaged pages at a split.
 * The last byte's bits 1 and 2 also add an offset and a window (from the
 * 24 bytes before it) to the session, which the parts must keep; bit 3
 * reads the CPU data through a read function (tb_session_source.read, as
 * the CLI does), which with bit 4 fails for every read that touches 4 KiB
 * at an offset taken from the input.  When every CPU's page times are in
 * order, the plan is also checked against its definition
 * (tests/plan_oracle.h).
 */
#include <string.h>

#include "../tests/plan_oracle.h"
#include "fuzz.h"
#include "reader.h"
#include "tracebound/tracebound.h"

#define MAX_ITEMS 20000u

/* The input as the caller's file: reads fail where they touch
 * [fail_at, fail_at + 4096) when failing is set. */
typedef struct fuzz_file {
	const uint8_t *data;
	size_t len;
	uint64_t fail_at;
	int failing;
} fuzz_file;

static int file_read(void *ctx, uint64_t offset, void *buf, size_t len)
{
	const fuzz_file *f = ctx;
	if (offset > f->len || len > f->len - offset)
		return -1;
	if (f->failing && offset < f->fail_at + 4096 && offset + len > f->fail_at)
		return -1;
	memcpy(buf, f->data + offset, len);
	return 0;
}

static uint8_t arena_mem[48u << 20];
static uint64_t whole[MAX_ITEMS], got[MAX_ITEMS];

static uint64_t item(tb_status st, const tb_session_event *ev, const tb_error *err)
{
	uint64_t v[8], h = 1469598103934665603ull;
	const uint8_t *p = (const uint8_t *)v;
	size_t i;
	memset(v, 0, sizeof(v));
	if (st != TB_OK) {
		v[0] = 0xe0u + (uint64_t)(int64_t)st;
		v[1] = err->offset;
	} else {
		v[0] = ev->kind;
		v[1] = ((uint64_t)ev->cpu << 32) | ev->buffer;
		v[2] = ev->ts;
		v[3] = (uint64_t)ev->missed;
		v[4] = ev->page_index;
		v[5] = ((uint64_t)ev->offset << 32) | ev->len;
		v[6] = ev->damage.offset;
	}
	for (i = 0; i < sizeof(v); i++)
		h = (h ^ p[i]) * 1099511628211ull;
	for (i = 0; st == TB_OK && ev->kind == TB_SEV_EVENT && i < ev->len; i++)
		h = (h ^ ev->data[i]) * 1099511628211ull;
	return h;
}

/* The items of s (at most cap; *more when there were more). */
static size_t walk(tb_session *s, uint64_t *out, size_t cap, int *more)
{
	tb_session_event ev;
	tb_error err;
	tb_status st;
	size_t n = 0;
	*more = 0;
	while ((st = tb_session_next(s, &ev, &err)) != TB_END) {
		if (n == cap) {
			*more = 1;
			break;
		}
		out[n++] = item(st, &ev, &err);
	}
	return n;
}

#define MAX_PAGES 65536u
static uint64_t page_ts[MAX_PAGES];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	tb_session_source src;
	fuzz_file file;
	tb_session_options opt = { TB_SESSION_SKIP_DAMAGED | TB_SESSION_TC_DROPS, 0 };
	tb_session *s, *p = NULL;
	tb_session_mark start[64], stop[64];
	uint64_t bounds[8];
	tb_arena a;
	tb_mem m;
	tb_error err;
	size_t nwhole, nb = 0, j, n = 0, k, nmarks = 0;
	int more, tiled = 1;
	memset(&src, 0, sizeof(src));
	src.dat = data;
	src.dat_len = size;
	src.decompress.fn = tb_fuzz_copy_dc;
	if (size && (data[size - 1] & 1))
		opt.flags = 0; /* drops as the library reports them, page errors as errors */
	if (size >= 5 && (data[size - 1] & 8)) {
		file.data = data;
		file.len = size;
		file.failing = (data[size - 1] & 16) != 0;
		file.fail_at = tb_load32(data + size - 5, 0) % size;
		src.read = file_read;
		src.read_ctx = &file;
	}
	tb_arena_init(&a, arena_mem, sizeof(arena_mem));
	m = tb_arena_mem(&a);
	if (tb_session_open(&s, &src, &opt, &m, &err) != TB_OK)
		return 0;
	if (size >= 25 && (data[size - 1] & 6)) {
		uint64_t from = tb_load64(data + size - 17, 0), span = tb_load64(data + size - 9, 0) >> 8;
		if (data[size - 1] & 2)
			tb_session_add_ts_offset(s, (int64_t)tb_load64(data + size - 25, 0));
		if (data[size - 1] & 4)
			TB_FUZZ_CHECK(tb_session_set_window(s, from, from + span < from ? UINT64_MAX
									 : from + span) == TB_OK);
	}
	nwhole = walk(s, whole, MAX_ITEMS, &more);
	if (tb_session_rewind(s, &err) != TB_OK || more ||
	    tb_session_prepare(s, &err) != TB_OK) {
		tb_session_close(s);
		return 0;
	}
	k = 2 + (size ? data[0] % 7u : 0);
	TB_FUZZ_CHECK(tb_session_plan(s, k, bounds, &nb, &err) == TB_OK);
	TB_FUZZ_CHECK(nb < k);
	if (!(src.read && file.failing)) {
		uint64_t def[8];
		size_t nd;
		if (tbt_plan_defined(s, k, page_ts, MAX_PAGES, def, &nd))
			TB_FUZZ_CHECK(nd == nb && !memcmp(def, bounds, nb * sizeof(bounds[0])));
	}
	for (j = 1; j < nb; j++)
		TB_FUZZ_CHECK(bounds[j - 1] < bounds[j]);
	for (j = 0; j <= nb; j++) {
		const uint64_t *from = j ? &bounds[j - 1] : NULL, *to = j < nb ? &bounds[j] : NULL;
		size_t ns, got_n;
		tb_status st = p ? tb_session_part_seek(p, from, to, &err)
				 : tb_session_part_open(&p, s, &m, from, to, &err);
		if (st != TB_OK) {
			TB_FUZZ_CHECK(st == TB_ERR_NO_SPACE || (from && st == TB_ERR_UNSUPPORTED));
			tiled = 0;
			break;
		}
		ns = tb_session_part_marks(p, TB_SESSION_MARK_START, start, 64);
		if (j && (ns != nmarks || ns > 64 || memcmp(start, stop, ns * sizeof(start[0]))))
			tiled = 0;
		got_n = walk(p, got + n, MAX_ITEMS - n, &more);
		if (more) {
			tiled = 0;
			break;
		}
		if (tiled) {
			TB_FUZZ_CHECK(n + got_n <= nwhole);
			TB_FUZZ_CHECK(!memcmp(got + n, whole + n, got_n * sizeof(got[0])));
		}
		n += got_n;
		nmarks = tb_session_part_marks(p, TB_SESSION_MARK_STOP, stop, 64);
	}
	if (tiled && j > nb)
		TB_FUZZ_CHECK(n == nwhole);
	TB_FUZZ_CHECK(a.used <= sizeof(arena_mem));
	tb_session_close(p);
	tb_session_close(s);
	return 0;
}
