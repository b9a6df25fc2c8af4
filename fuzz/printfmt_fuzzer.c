/*
 * Fuzz the print fmt compiler and renderer with one input:
 *
 *   u8 options, u8 field count (<= 32), u8 output capacity / 16,
 *   per field: u8 kind, u8 flags (1 signed, 2 string, 4 long, 8 common),
 *              u16 offset, u16 size, u8 elem size, u8 name length, name,
 *   the print fmt text up to a NUL, then the record (the rest).
 *
 * ci/printfmt-seeds.py builds seeds in this layout from real format
 * files.  The output buffer sits in an exact-size heap block with a guard
 * after it; the renderer must stay inside, NUL-terminate and report
 * truncation consistently.
 */
#include <string.h>

#include "fuzz.h"
#include "tracebound/render.h"

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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static tb_render_prog prog;
	tb_render_field fields[32];
	tb_render_event ev;
	tb_render_env env = { sym, NULL, printk, NULL };
	tb_render_result res;
	tb_error err;
	size_t pos = 3, nf, cap, fmt_end;
	char *out;
	tb_status st;
	if (size < 3)
		return 0;
	nf = data[1] % 33;
	cap = (size_t)data[2] * 16;
	memset(&ev, 0, sizeof(ev));
	for (size_t i = 0; i < nf; i++) {
		tb_render_field *f = &fields[i];
		if (size - pos < 8)
			return 0;
		memset(f, 0, sizeof(*f));
		f->kind = (uint8_t)(data[pos] % 6);
		f->is_signed = data[pos + 1] & 1;
		f->is_string = (data[pos + 1] >> 1) & 1;
		f->is_long = (data[pos + 1] >> 2) & 1;
		f->is_common = (data[pos + 1] >> 3) & 1;
		f->offset = (uint32_t)data[pos + 2] | (uint32_t)data[pos + 3] << 8;
		f->size = (uint32_t)data[pos + 4] | (uint32_t)data[pos + 5] << 8;
		f->elem_size = data[pos + 6];
		f->name_len = data[pos + 7];
		pos += 8;
		if (size - pos < f->name_len)
			return 0;
		f->name = (const char *)data + pos;
		pos += f->name_len;
	}
	fmt_end = pos;
	while (fmt_end < size && data[fmt_end])
		fmt_end++;
	ev.system = (data[0] & 0x40) ? "syscalls" : "ftrace";
	ev.system_len = strlen(ev.system);
	ev.name = (data[0] & 0x80) ? "sys_enter_fuzz" : (data[0] & 0x20) ? "bprint" : "fuzz";
	ev.name_len = strlen(ev.name);
	ev.print_fmt = (const char *)data + pos;
	ev.print_fmt_len = fmt_end - pos;
	ev.fields = fields;
	ev.n_fields = nf;
	ev.long_size = (data[0] & 0x10) ? 4 : 8;
	ev.big_endian = (data[0] >> 3) & 1;
	st = tb_render_compile(&prog, &ev, data[0] & 7, &err);
	TB_FUZZ_CHECK(st == TB_OK || tb_is_error(st));
	TB_FUZZ_CHECK(err.what != NULL);
	if (fmt_end < size)
		fmt_end++; /* the NUL */
	/* the record: an exact-size copy so an over-read is caught */
	{
		size_t rlen = size - fmt_end;
		uint8_t *rec = rlen ? malloc(rlen) : NULL;
		if (rlen && !rec)
			return 0;
		if (rlen)
			memcpy(rec, data + fmt_end, rlen);
		out = malloc(cap + 8);
		if (!out) {
			free(rec);
			return 0;
		}
		memset(out, 0x5a, cap + 8);
		st = tb_render(&prog, &env, rec, rlen, cap ? out : NULL, cap, &res);
		TB_FUZZ_CHECK(st == TB_OK || st == TB_ERR_NO_SPACE);
		TB_FUZZ_CHECK(res.len <= res.needed);
		TB_FUZZ_CHECK(cap == 0 || res.len < cap);
		TB_FUZZ_CHECK(cap == 0 || out[res.len] == '\0');
		TB_FUZZ_CHECK((st == TB_ERR_NO_SPACE) == (res.len < res.needed));
		for (size_t i = cap; i < cap + 8; i++)
			TB_FUZZ_CHECK(out[i] == 0x5a);
		if (!cap)
			TB_FUZZ_CHECK(out[0] == 0x5a);
		free(out);
		free(rec);
	}
	return 0;
}
