/*
 * trace.dat container: open any bytes, and when they open, walk what the
 * library hands out (spans, options, compressed chunks, the tables) and
 * check every span lies inside the input or the scratch.  A "copy"
 * decompressor stands in for zstd/zlib so compressed paths are reached.
 */
#include <string.h>

#include "fuzz.h"
#include "tracebound/tracedat.h"

static tb_status copy_dc(void *ctx, const char *algo, const void *src,
			 size_t src_len, void *dst, size_t dst_cap,
			 size_t *produced)
{
	(void)ctx;
	if (strcmp(algo, "copy") != 0)
		return TB_ERR_UNSUPPORTED;
	if (src_len > dst_cap)
		src_len = dst_cap; /* short: the library must notice */
	memcpy(dst, src, src_len);
	*produced = src_len;
	return TB_OK;
}

static tb_dat_event_text events[256];
static tb_dat_buffer buffers[8];
static tb_dat_cpu cpus[64];
static tb_dat_text stats[16];
static uint8_t scratch[1 << 18];
static uint8_t page[1 << 17];
static tb_ksym ksyms[256];
static tb_printk_fmt pfmts[64];
static tb_cmdline cmds[64];

static tb_dat_cursor cursors[64];
static uint8_t chunk_mem[1 << 18];

static const uint8_t *g_data;
static size_t g_size;

static int inside(const tb_dat_text *t)
{
	return t->len == 0 || tb_fuzz_inside(t->ptr, t->len, g_data, g_size) ||
	       tb_fuzz_inside(t->ptr, t->len, scratch, sizeof(scratch));
}

static int on_option(void *ctx, unsigned id, const uint8_t *payload,
		     uint32_t size, uint64_t offset)
{
	(void)ctx;
	(void)id;
	TB_FUZZ_CHECK(tb_fuzz_inside(payload, size, g_data, g_size));
	TB_FUZZ_CHECK(offset < g_size);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	tb_dat d;
	tb_error err;
	tb_dat_storage st = { events, 256, buffers, 8, cpus, 64, stats, 16,
			      scratch, sizeof(scratch) };
	tb_dat_decompressor dc = { copy_dc, NULL };
	tb_status s;
	size_t i, j;
	g_data = data;
	g_size = size;
	(void)tb_dat_probe(data, size);
	s = tb_dat_open(&d, data, size, &st, &dc, &err);
	if (s != TB_OK) {
		TB_FUZZ_CHECK(tb_is_error(s));
		TB_FUZZ_CHECK(err.what != NULL);
		TB_FUZZ_CHECK(s == TB_ERR_NO_SPACE || err.offset <= size);
		return 0;
	}
	TB_FUZZ_CHECK(inside(&d.header_page) && inside(&d.header_event));
	TB_FUZZ_CHECK(inside(&d.kallsyms) && inside(&d.printk) &&
		      inside(&d.cmdlines) && inside(&d.strings));
	TB_FUZZ_CHECK(inside(&d.uname) && inside(&d.trace_clock));
	TB_FUZZ_CHECK(d.nevents <= 256 && d.nbuffers <= 8);
	for (i = 0; i < d.nevents; i++)
		TB_FUZZ_CHECK(inside(&d.events[i].format) &&
			      (inside(&d.events[i].system) ||
			       (i < d.nftrace && d.events[i].system.len == 6 &&
				!memcmp(d.events[i].system.ptr, "ftrace", 6))));
	for (i = 0; i < d.ncpustats; i++)
		TB_FUZZ_CHECK(inside(&d.cpustats[i]));
	for (i = 0; i < d.nbuffers; i++) {
		const tb_dat_buffer *b = &d.buffers[i];
		TB_FUZZ_CHECK(inside(&b->name) && inside(&b->text));
		for (j = 0; j < b->ncpus; j++) {
			const tb_dat_cpu *c = &b->cpus[j];
			tb_dat_chunk_iter it;
			tb_dat_chunk ch;
			TB_FUZZ_CHECK(c->offset <= size &&
				      c->size <= size - c->offset);
			if (!b->compressed ||
			    tb_dat_chunks_begin(&it, &d, b, c, &err) != TB_OK)
				continue;
			while (tb_dat_chunk_next(&it, &ch, &err) == TB_OK) {
				TB_FUZZ_CHECK(tb_fuzz_inside(ch.data, ch.csize,
							     data, size));
				s = tb_dat_chunk_inflate(&d, b, &ch, page,
							 sizeof(page), &err);
				TB_FUZZ_CHECK(s == TB_OK || tb_is_error(s));
			}
		}
	}
	/* every event of every buffer, merged by time */
	{
		tb_kbuf_layout lay;
		if (tb_kbuf_layout_from_header_page(d.header_page.ptr, d.header_page.len,
						    d.big_endian, &lay, &err) == TB_OK) {
			for (i = 0; i < d.nbuffers; i++) {
				const tb_dat_buffer *b = &d.buffers[i];
				tb_kbuf_layout bl = lay;
				tb_dat_stream st2;
				tb_dat_event ev;
				size_t per_cpu = 0, guard = 0;
				if (b->latency || b->ncpus > 64 ||
				    tb_kbuf_layout_init_ex(&bl, lay.big_endian, lay.long_size,
							   lay.header_size, b->page_size, 0) != TB_OK ||
				    tb_dat_chunk_max(&d, b, &per_cpu, &err) != TB_OK ||
				    (b->ncpus && per_cpu > sizeof(chunk_mem) / b->ncpus))
					continue;
				if (tb_dat_stream_init(&st2, &d, b, &bl, cursors, 64, chunk_mem,
						       per_cpu, i & 1 ? TB_DAT_STREAM_TC_DROPS : 0,
						       &err) != TB_OK)
					continue;
				while (guard++ < 1000000) {
					s = tb_dat_stream_next(&st2, &ev, &err);
					if (s == TB_END)
						break;
					if (s != TB_OK) {
						TB_FUZZ_CHECK(tb_is_error(s));
						continue;
					}
					TB_FUZZ_CHECK(tb_fuzz_inside(ev.data, ev.len, data, size) ||
						      tb_fuzz_inside(ev.data, ev.len, chunk_mem,
								     sizeof(chunk_mem)));
				}
				TB_FUZZ_CHECK(guard < 1000000);
			}
		}
	}
	(void)tb_dat_foreach_option(&d, on_option, NULL, &err);
	(void)tb_dat_section_name(&d, 0);
	{
		tb_kallsyms kt = { ksyms, 0, 256, NULL };
		tb_printk_fmts pt = { pfmts, 0, 64 };
		tb_cmdlines ct = { cmds, 0, 64 };
		if (tb_kallsyms_parse(&kt, d.kallsyms.ptr, d.kallsyms.len,
				      &err) == TB_OK && kt.n)
			(void)tb_kallsyms_find(&kt, kt.v[0].addr + 1);
		if (tb_printk_parse(&pt, d.printk.ptr, d.printk.len, &err) ==
			    TB_OK && pt.n)
			TB_FUZZ_CHECK(tb_printk_find(&pt, pt.v[0].addr) != NULL);
		if (tb_cmdlines_parse(&ct, d.cmdlines.ptr, d.cmdlines.len,
				      &err) == TB_OK && ct.n)
			TB_FUZZ_CHECK(tb_cmdlines_find(&ct, ct.v[0].pid) != NULL);
	}
	return 0;
}
