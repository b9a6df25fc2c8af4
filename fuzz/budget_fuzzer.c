/*
 * The memory budget and the work bound (SECURITY.md, "Budget"): any bytes
 * taken as a trace.dat (or a perf.data, when its magic says so: file or
 * pipe stream), opened and walked whole (every event rendered) with a
 * small budget.  Promises checked, with what the tb_mem callbacks
 * and the decompressor count:
 *   - the bytes held never pass the budget, whatever the input;
 *   - a refusal is TB_ERR_BUDGET naming its part, with a need past the
 *     budget; TB_OK never hides one at the open;
 *   - tb_session_need's held and peak are what the callbacks saw;
 *   - the open decompresses at most its storage rounds times the budget;
 *   - the work (bytes the decompressor made, every round again, and events
 *     and damaged pages stepped over) stays within BUDGET_WORK_K x (input
 *     + the declared decompressed bytes + output bytes), plus a constant.
 * (Memory asked for in all is not work here: a print fmt program is 54 KB
 * for any format, and what is held stays within the budget.)
 */
#include <string.h>

#include "fuzz.h"
#include "tracebound/source.h"
#include "tracebound/tracebound.h"

#define BUDGET ((size_t)4 << 20)      /* small: most inputs' need is near */
#define BUDGET_ROUNDS 8u               /* the session's container rounds */
#define BUDGET_WORK_K 16u              /* the rounds, and twice for the walk */
#define BUDGET_WORK_CONST ((uint64_t)1 << 20)

typedef struct counter {
	size_t held, peak;
	uint64_t asked;          /* bytes asked for, in all */
} counter;

static counter mc;
static uint64_t dc_made;

static void *c_alloc(void *ctx, size_t n)
{
	counter *c = ctx;
	void *p = malloc(n ? n : 1);
	c->asked += n;
	if (p) {
		c->held += n;
		if (c->held > c->peak)
			c->peak = c->held;
		TB_FUZZ_CHECK(c->held <= BUDGET); /* never past the budget */
	}
	return p;
}

static void c_free(void *ctx, void *p, size_t n)
{
	counter *c = ctx;
	if (!p)
		return;
	TB_FUZZ_CHECK(n <= c->held);
	c->held -= n;
	free(p);
}

static char text[1 << 16];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	tb_session_source src;
	tb_session_options opt = { TB_SESSION_SKIP_DAMAGED, TB_RENDER_KNOWN_ENUMS };
	tb_session_need need;
	tb_session *s;
	tb_session_event ev;
	tb_mem m = { c_alloc, c_free, &mc };
	tb_error err;
	tb_status st;
	uint64_t events = 0, out = 0, work;
	memset(&src, 0, sizeof(src));
	memset(&mc, 0, sizeof(mc));
	dc_made = 0;
	if (tb_source_probe(data, size) == TB_SOURCE_PERF) {
		src.perf = data;
		src.perf_len = size;
	} else {
		src.dat = data;
		src.dat_len = size;
	}
	src.decompress.fn = tb_fuzz_copy_dc;
	src.decompress.ctx = &dc_made;
	st = tb_session_open_budget(&s, &src, &opt, &m, BUDGET, &need, &err);
	TB_FUZZ_CHECK(need.budget == BUDGET);
	if (st != TB_OK) {
		TB_FUZZ_CHECK(tb_is_error(st) && st == err.status);
		TB_FUZZ_CHECK(mc.held == 0); /* nothing kept */
		if (st == TB_ERR_BUDGET) {
			TB_FUZZ_CHECK(need.refused && err.what == need.refused);
			TB_FUZZ_CHECK(need.total > BUDGET);
		}
		/* refused before the bytes were made: each round's fit */
		TB_FUZZ_CHECK(dc_made <= BUDGET_ROUNDS * (uint64_t)BUDGET);
		return 0;
	}
	TB_FUZZ_CHECK(!need.refused);
	TB_FUZZ_CHECK(need.held == mc.held && need.peak == mc.peak);
	while ((st = tb_session_next(s, &ev, &err)) != TB_END && events < 1000000) {
		tb_render_result r;
		events++;
		if (st != TB_OK || ev.kind == TB_SEV_DAMAGED)
			continue;
		st = tb_session_text(s, &ev, TB_TEXT_PRINT | TB_TEXT_LINE, text, sizeof(text), &r);
		TB_FUZZ_CHECK(st == TB_OK || st == TB_ERR_NO_SPACE || st == TB_ERR_BUDGET);
		out += r.needed;
		st = tb_session_text(s, &ev, TB_TEXT_JSON | TB_TEXT_WITH_PRINT, text, sizeof(text),
				     &r);
		TB_FUZZ_CHECK(st == TB_OK || st == TB_ERR_NO_SPACE || st == TB_ERR_BUDGET);
		out += r.needed;
	}
	tb_session_need_get(s, &need);
	TB_FUZZ_CHECK(need.held == mc.held && need.peak == mc.peak && mc.peak <= BUDGET);
	TB_FUZZ_CHECK(!need.refused || need.total > BUDGET);
	/* the work bound: decompression (every round again) and events
	 * stepped over, against what the input declares and the output */
	work = dc_made + events;
	TB_FUZZ_CHECK(work <= BUDGET_WORK_K * ((uint64_t)size + need.decompressed + out) +
				      BUDGET_WORK_CONST);
	tb_session_close(s);
	TB_FUZZ_CHECK(mc.held == 0);
	return 0;
}
