/*
 * trace.dat salvage mode (TB_DAT_OPEN_SALVAGE): open any bytes so; when
 * they open, every damage entry lies inside the input, every span and
 * clipped CPU range too, and every buffer streams to its end.  Input
 * that opens in the normal mode opens the same in salvage mode, with no
 * damage.  A "copy" decompressor stands in for zstd/zlib.
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
	/* input that ends before the output does: a cut, as a codec says */
	return src_len < dst_cap ? TB_ERR_TRUNCATED : TB_OK;
}

#define NDMG 16

static tb_dat_event_text events[256];
static tb_dat_buffer buffers[8];
static tb_dat_cpu cpus[64];
static tb_dat_text stats[16];
static uint8_t scratch[1 << 18];
static tb_dat_damage damage[NDMG];
static tb_dat_cursor cursors[64];
static uint8_t chunk_mem[1 << 18];

static const uint8_t *g_data;
static size_t g_size;

static int inside(const tb_dat_text *t)
{
	return t->len == 0 || tb_fuzz_inside(t->ptr, t->len, g_data, g_size) ||
	       tb_fuzz_inside(t->ptr, t->len, scratch, sizeof(scratch));
}

static void stream_all(const tb_dat *d)
{
	tb_kbuf_layout lay;
	tb_error err;
	size_t i;
	if (tb_kbuf_layout_from_header_page(d->header_page.ptr, d->header_page.len,
					    d->big_endian, &lay, &err) != TB_OK &&
	    tb_kbuf_layout_init(&lay, d->big_endian, d->long_size, d->page_size, 0) != TB_OK)
		return;
	for (i = 0; i < d->nbuffers; i++) {
		const tb_dat_buffer *b = &d->buffers[i];
		tb_kbuf_layout bl = lay;
		tb_dat_stream st;
		tb_dat_event ev;
		tb_status s;
		size_t per_cpu = 0, guard = 0;
		if (b->latency || b->ncpus > 64 ||
		    tb_kbuf_layout_init_ex(&bl, lay.big_endian, lay.long_size, lay.header_size,
					   b->page_size, 0) != TB_OK ||
		    tb_dat_chunk_max(d, b, &per_cpu, &err) != TB_OK ||
		    (b->ncpus && per_cpu > sizeof(chunk_mem) / b->ncpus))
			continue;
		if (tb_dat_stream_init(&st, d, b, &bl, cursors, 64, chunk_mem, per_cpu, 0, &err) !=
		    TB_OK)
			continue;
		while (guard++ < 1000000) {
			s = tb_dat_stream_next(&st, &ev, &err);
			if (s == TB_END)
				break;
			if (s != TB_OK) {
				/* a page's error, a cut chunk's lost pages too:
				 * at an offset inside the input */
				TB_FUZZ_CHECK(tb_is_error(s) && err.offset <= g_size);
				continue;
			}
			TB_FUZZ_CHECK(tb_fuzz_inside(ev.data, ev.len, g_data, g_size) ||
				      tb_fuzz_inside(ev.data, ev.len, chunk_mem, sizeof(chunk_mem)));
		}
		TB_FUZZ_CHECK(guard < 1000000);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static tb_dat d, plain;
	tb_error err;
	tb_dat_storage st = { events, 256, buffers, 8, cpus, 64, stats, 16,
			      scratch, sizeof(scratch) };
	tb_dat_decompressor dc = { copy_dc, NULL };
	tb_dat_open_opts opt = { TB_DAT_OPEN_SALVAGE, damage, NDMG };
	tb_status s, sp;
	size_t i, j;
	g_data = data;
	g_size = size;
	sp = tb_dat_open(&plain, data, size, &st, &dc, &err);
	if (sp == TB_OK) {
		size_t nev = plain.nevents, nbuf = plain.nbuffers, ncpu = plain.need.cpus;
		s = tb_dat_open_ex(&d, data, size, &st, &dc, &opt, &err);
		TB_FUZZ_CHECK(s == TB_OK && d.damage_total == 0);
		TB_FUZZ_CHECK(d.nevents == nev && d.nbuffers == nbuf && d.need.cpus == ncpu);
	}
	s = tb_dat_open_ex(&d, data, size, &st, &dc, &opt, &err);
	if (s != TB_OK) {
		TB_FUZZ_CHECK(tb_is_error(s));
		TB_FUZZ_CHECK(err.what != NULL);
		TB_FUZZ_CHECK(s == TB_ERR_NO_SPACE || err.offset <= size);
		return 0;
	}
	TB_FUZZ_CHECK(d.ndamage <= NDMG && d.ndamage <= d.damage_total &&
		      (d.ndamage == d.damage_total || d.ndamage == NDMG));
	TB_FUZZ_CHECK(d.need.damage == d.damage_total);
	for (i = 0; i < d.ndamage; i++) {
		const tb_dat_damage *g = &d.damage[i];
		TB_FUZZ_CHECK(g->part < TB_DAT_PART_COUNT_ && g->error.what != NULL);
		TB_FUZZ_CHECK(tb_is_error(g->error.status));
		TB_FUZZ_CHECK(g->error.offset <= size && g->length <= size - g->error.offset);
		TB_FUZZ_CHECK(strcmp(tb_dat_part_name(g->part), "unknown") != 0);
		if (g->part == TB_DAT_PART_CPU_DATA)
			TB_FUZZ_CHECK(g->buffer < d.nbuffers);
	}
	TB_FUZZ_CHECK(inside(&d.header_page) && inside(&d.header_event));
	TB_FUZZ_CHECK(inside(&d.kallsyms) && inside(&d.printk) &&
		      inside(&d.cmdlines) && inside(&d.strings));
	TB_FUZZ_CHECK(d.nevents <= 256 && d.nbuffers <= 8);
	for (i = 0; i < d.nevents; i++)
		TB_FUZZ_CHECK(inside(&d.events[i].format));
	for (i = 0; i < d.nbuffers; i++) {
		const tb_dat_buffer *b = &d.buffers[i];
		TB_FUZZ_CHECK(inside(&b->name) && inside(&b->text));
		for (j = 0; j < b->ncpus; j++) {
			const tb_dat_cpu *c = &b->cpus[j];
			uint64_t fr = b->compressed && c->size ? 4 : 0;
			/* (a cut CPU whose data starts past the end keeps its
			 * declared offset, with size 0) */
			TB_FUZZ_CHECK((c->cut && c->size == 0) ||
				      (c->offset <= size && c->size <= size - c->offset));
			/* the part of a cut chunk: after the whole ones, inside */
			TB_FUZZ_CHECK(c->tail == 0 ||
				      (c->cut && b->compressed && c->tail >= 8 &&
				       c->offset <= size && c->tail <= size - c->offset &&
				       c->size + 4 <= size - c->offset - c->tail));
			if (c->cut)
				TB_FUZZ_CHECK(c->size == 0 || c->size + fr <= size - c->offset);
			else
				TB_FUZZ_CHECK(c->declared == c->size);
		}
	}
	stream_all(&d);
	return 0;
}
