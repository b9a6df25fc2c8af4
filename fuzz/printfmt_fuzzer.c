/*
 * Fuzz the print fmt compiler and renderer with one input:
 *
 *   u8 options (render options in bits 0-2, long 4 in bit 4, big-endian
 *   in bit 3, the -R field listing (TB_RENDER_FIELD_LIST) in bit 5,
 *   system "syscalls"/"ftrace" in bit 6, symbols from a kallsyms table
 *   instead of the callback in bit 7, by rule capacity % 3), u8 output
 *   capacity / 16, an event format text up to a NUL, then the record
 *   (the rest).
 *
 * The format goes through tb_format_parse first (a text it refuses ends
 * the run); seeds are real format files with plausible records
 * (ci/printfmt-seeds.py).  The output buffer sits in an exact-size heap
 * block with a guard after it; the renderer must stay inside,
 * NUL-terminate and report truncation consistently.
 *
 * The promise of render.h checked: the text is the same whatever the
 * buffer.  The record is rendered in full (cap = needed + 1, TB_OK), then
 * again into buffers of 0 (a real pointer: nothing may be written),
 * 1, needed, needed + 1 and an input-chosen number of bytes, each an
 * exact-size heap block followed by a canary: every one must report the
 * same `needed` and notes (but TRUNCATED), store the longest prefix of
 * the full text that fits, and touch nothing at or past cap.
 */
#include <string.h>

#include "fuzz.h"
#include "tracebound/format.h"
#include "tracebound/render.h"
#include "tracebound/tracedat.h"

/* aliases, a module, and addresses a record's low bytes can reach */
static const char ksyms_text[] = "0 t zero\n1000 t a1\n1000 T a2\n1000 t a3\n"
				 "1040 t b\t[mod]\n2000 t c\nffffffff81000000 T k\n";

static int sym(void *ctx, uint64_t addr, const char **name, size_t *nlen,
	       uint64_t *start, const char **mod, size_t *mlen)
{
	(void)ctx;
	if (addr & 1)
		return 0;
	*name = "fuzz_symbol";
	*nlen = 11;
	*start = addr - (addr & 0xff);
	*mod = (addr & 2) ? "mod" : NULL;
	*mlen = 3;
	return 1;
}

static int printk(void *ctx, uint64_t addr, const char **s, size_t *n)
{
	static const char *const fmts[] = { "%d %s %llx %c %*d %pS %pI4 %.*s\n",
					    "plain\n", "%", "%-08.3lu%%%p" };
	(void)ctx;
	*s = fmts[addr & 3];
	*n = strlen(*s);
	return 1;
}

#define CANARY 8

/* Render into an exact-size block of cap bytes (plus the canary) and
 * compare with the full text. */
static void render_cap(const tb_render_prog *prog, const tb_render_env *env,
		       const uint8_t *rec, size_t rlen, const char *full,
		       const tb_render_result *fres, size_t cap)
{
	char *out = malloc(cap + CANARY);
	tb_render_result res;
	tb_status st;
	size_t want = cap ? (fres->needed < cap - 1 ? fres->needed : cap - 1) : 0;
	if (!out)
		return;
	memset(out, 0x5a, cap + CANARY);
	st = tb_render(prog, env, rlen ? rec : NULL, rlen, out, cap, &res);
	TB_FUZZ_CHECK(res.needed == fres->needed);
	TB_FUZZ_CHECK(res.len == want);
	TB_FUZZ_CHECK(st == (want < fres->needed ? TB_ERR_NO_SPACE : TB_OK));
	TB_FUZZ_CHECK((res.notes & ~(unsigned)TB_RENDER_N_TRUNCATED) ==
		      (fres->notes & ~(unsigned)TB_RENDER_N_TRUNCATED));
	TB_FUZZ_CHECK(!!(res.notes & TB_RENDER_N_TRUNCATED) == (st == TB_ERR_NO_SPACE));
	TB_FUZZ_CHECK(memcmp(out, full, want) == 0);
	if (cap)
		TB_FUZZ_CHECK(out[want] == '\0');
	for (size_t i = cap; i < cap + CANARY; i++)
		TB_FUZZ_CHECK(out[i] == 0x5a);
	free(out);
}

/* The same text, needed and notes for every capacity. */
/* tb_render_stateful of one record, twice, prints what tb_render prints
 * (the -R listing only remembers fields that were not text in this very
 * record), and tb_render after it stays history-free. */
static void stateful_same_text(tb_render_prog *prog, const tb_render_env *env,
			       const uint8_t *rec, size_t rlen, size_t needed)
{
	char *a = malloc(needed + 1), *b = malloc(needed + 1);
	tb_render_result ra, rb;
	const uint8_t *r = rlen ? rec : NULL;
	if (a && b) {
		TB_FUZZ_CHECK(tb_render(prog, env, r, rlen, a, needed + 1, &ra) == TB_OK);
		for (int k = 0; k < 3; k++) {
			TB_FUZZ_CHECK((k == 2 ? tb_render(prog, env, r, rlen, b, needed + 1, &rb)
					      : tb_render_stateful(prog, env, r, rlen, b, needed + 1,
								   &rb)) == TB_OK);
			TB_FUZZ_CHECK(rb.len == ra.len && !memcmp(a, b, ra.len));
		}
	}
	free(a);
	free(b);
}

static void same_text_any_cap(const tb_render_prog *prog, const tb_render_env *env,
			      const uint8_t *rec, size_t rlen, unsigned knob)
{
	tb_render_result fres, r0;
	char probe[1], *full;
	size_t n;
	tb_status st = tb_render(prog, env, rlen ? rec : NULL, rlen, probe, 0, &r0);
	TB_FUZZ_CHECK(st == (r0.needed ? TB_ERR_NO_SPACE : TB_OK) && r0.len == 0);
	n = r0.needed;
	full = malloc(n + 1);
	if (!full)
		return;
	st = tb_render(prog, env, rlen ? rec : NULL, rlen, full, n + 1, &fres);
	TB_FUZZ_CHECK(st == TB_OK && fres.len == n && fres.needed == n);
	TB_FUZZ_CHECK(full[n] == '\0');
	render_cap(prog, env, rec, rlen, full, &fres, 0);
	render_cap(prog, env, rec, rlen, full, &fres, 1);
	render_cap(prog, env, rec, rlen, full, &fres, n);
	render_cap(prog, env, rec, rlen, full, &fres, n + 1);
	render_cap(prog, env, rec, rlen, full, &fres, knob % (n + 2));
	free(full);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static tb_render_prog prog;
	static tb_field fields[TB_FORMAT_MAX_FIELDS];
	tb_format fmt;
	tb_format_error ferr;
	tb_render_env env = { sym, NULL, printk, NULL, NULL, 0 };
	tb_ksym kv[8];
	tb_kallsyms ks = { kv, 0, 8, NULL };
	tb_render_result res;
	tb_error err;
	size_t cap, end, rlen;
	unsigned lsz;
	char *text, *out;
	uint8_t *rec;
	tb_status st;
	if (size < 2)
		return 0;
	cap = (size_t)data[1] * 16;
	lsz = (data[0] & 0x10) ? 4 : 8;
	for (end = 2; end < size && data[end]; end++)
		;
	/* exact-size copies: an over-read of either is caught */
	text = malloc(end - 2 + 1);
	if (!text)
		return 0;
	memcpy(text, data + 2, end - 2);
	if (tb_format_parse(text, end - 2, fields, TB_FORMAT_MAX_FIELDS, lsz, &fmt, &ferr) != TB_OK) {
		free(text);
		return 0;
	}
	fmt.system = (data[0] & 0x40) ? "syscalls" : "ftrace";
	fmt.system_len = strlen(fmt.system);
	if (data[0] & 0x80) {
		TB_FUZZ_CHECK(tb_kallsyms_parse(&ks, ksyms_text, sizeof(ksyms_text) - 1, NULL) ==
			      TB_OK);
		env.sym = NULL;
		env.ksyms = &ks;
		env.ksym_how = data[1] % 3;
	}
	st = tb_render_compile(&prog, &fmt, lsz, (data[0] >> 3) & 1,
			       (data[0] & 7u) | ((data[0] & 0x20) ? TB_RENDER_FIELD_LIST : 0u), &err);
	TB_FUZZ_CHECK(st == TB_OK || tb_is_error(st));
	TB_FUZZ_CHECK(err.what != NULL);
	if (end < size)
		end++; /* the NUL */
	rlen = size - end;
	rec = malloc(rlen ? rlen : 1);
	out = malloc(cap + 8);
	if (!rec || !out) {
		free(rec);
		free(out);
		free(text);
		return 0;
	}
	if (rlen)
		memcpy(rec, data + end, rlen);
	memset(out, 0x5a, cap + 8);
	st = tb_render(&prog, &env, rlen ? rec : NULL, rlen, cap ? out : NULL, cap, &res);
	TB_FUZZ_CHECK(st == TB_OK || st == TB_ERR_NO_SPACE);
	TB_FUZZ_CHECK(res.len <= res.needed);
	TB_FUZZ_CHECK(cap == 0 || res.len < cap);
	TB_FUZZ_CHECK(cap == 0 || out[res.len] == '\0');
	TB_FUZZ_CHECK((st == TB_ERR_NO_SPACE) == (res.len < res.needed));
	for (size_t i = cap; i < cap + 8; i++)
		TB_FUZZ_CHECK(out[i] == 0x5a);
	if (!cap)
		TB_FUZZ_CHECK(out[0] == 0x5a);
	same_text_any_cap(&prog, &env, rec, rlen, (unsigned)data[1] * 7u + data[0]);
	stateful_same_text(&prog, &env, rec, rlen, res.needed);
	free(out);
	free(rec);
	free(text);
	return 0;
}
