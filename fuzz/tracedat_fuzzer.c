/*
 * trace.dat container: open any bytes, and when they open, walk what the
 * library hands out (spans, options, compressed chunks, the tables) and
 * check every span lies inside the input or the scratch.  A "copy"
 * decompressor stands in for zstd/zlib so compressed paths are reached
 * ("repeat" expands: it fills what the file declares with the compressed
 * bytes over and over, so a small file can have large chunks).
 *
 * The promises of tracedat.h checked:
 *  - storage exactly as large as d->need says (grown from none at all,
 *    every array an exact-size heap block or NULL with capacity 0) opens
 *    the file the same way as the large static storage: same status, and
 *    on TB_OK the same texts, buffers and CPU ranges;
 *  - every error's offset lies inside the input: tb_dat_open's, and the
 *    stream's for plain and compressed buffers (a file offset);
 *  - an event's offset lies inside its page, its page inside the file;
 *  - the tables: count says what parse keeps (storage of exactly count
 *    entries never gives TB_ERR_NO_SPACE, and n == count on TB_OK), and
 *    their errors lie inside the text.
 */
#include <string.h>

#include "fuzz.h"
#include "tracebound/tracedat.h"

static tb_status copy_dc(void *ctx, const char *algo, const void *src,
			 size_t src_len, void *dst, size_t dst_cap,
			 size_t *produced)
{
	(void)ctx;
	if (strcmp(algo, "repeat") == 0 && src_len) {
		/* expands: decompressed offsets run past the file's */
		size_t k;
		for (k = 0; k < dst_cap; k++)
			((uint8_t *)dst)[k] = ((const uint8_t *)src)[k % src_len];
		*produced = dst_cap;
		return TB_OK;
	}
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
/* the exact-size storage of the last open (kept for the walk when the
 * static storage was too small) */
static tb_dat_storage g_x;
static const uint8_t *g_xscratch;
static size_t g_xscratch_len;
static size_t g_size;

static int inside(const tb_dat_text *t)
{
	return t->len == 0 || tb_fuzz_inside(t->ptr, t->len, g_data, g_size) ||
	       tb_fuzz_inside(t->ptr, t->len, scratch, sizeof(scratch)) ||
	       (g_xscratch && tb_fuzz_inside(t->ptr, t->len, g_xscratch, g_xscratch_len));
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

/* Larger needs are not tried exactly (the harness's memory). */
#define EXACT_MAX_ITEMS 4096u
#define EXACT_MAX_SCRATCH (1u << 20)

static void *exact(size_t n, size_t elem)
{
	return n ? calloc(n, elem) : NULL;
}

static void free_storage(tb_dat_storage *x)
{
	free(x->events);
	free(x->buffers);
	free(x->cpus);
	free(x->cpustats);
	free(x->scratch);
	memset(x, 0, sizeof(*x));
}

static int same_text(const tb_dat_text *a, const tb_dat_text *b)
{
	return a->len == b->len && a->offset == b->offset &&
	       (a->len == 0 || memcmp(a->ptr, b->ptr, a->len) == 0);
}

/* Open with no storage, then storage of exactly d->need, as the header
 * tells callers to; the result must be the one the large storage gave. */
static tb_status exact_storage(const uint8_t *data, size_t size, tb_status big_st,
			       const tb_dat *big, const tb_dat_decompressor *dc,
			       tb_dat *out)
{
	static tb_dat d;
	tb_dat_storage x;
	tb_error err;
	tb_status s = TB_ERR_NO_SPACE;
	size_t i, j;
	int round;
	free_storage(&g_x);
	g_xscratch = NULL;
	g_xscratch_len = 0;
	memset(&x, 0, sizeof(x));
	for (round = 0; round < 6; round++) {
		s = tb_dat_open(&d, data, size, &x, dc, &err);
		if (s != TB_ERR_NO_SPACE)
			break;
		if (d.need.events > EXACT_MAX_ITEMS || d.need.buffers > EXACT_MAX_ITEMS ||
		    d.need.cpus > EXACT_MAX_ITEMS || d.need.cpustats > EXACT_MAX_ITEMS ||
		    d.need.scratch > EXACT_MAX_SCRATCH) {
			free_storage(&x);
			return TB_ERR_NO_SPACE;
		}
		free_storage(&x);
		x.events = exact(d.need.events, sizeof(*x.events));
		x.events_cap = d.need.events;
		x.buffers = exact(d.need.buffers, sizeof(*x.buffers));
		x.buffers_cap = d.need.buffers;
		x.cpus = exact(d.need.cpus, sizeof(*x.cpus));
		x.cpus_cap = d.need.cpus;
		x.cpustats = exact(d.need.cpustats, sizeof(*x.cpustats));
		x.cpustats_cap = d.need.cpustats;
		x.scratch = exact(d.need.scratch, 1);
		x.scratch_cap = d.need.scratch;
	}
	if (big_st == TB_ERR_NO_SPACE) {
		/* the static storage was too small: growing to need converges */
		TB_FUZZ_CHECK(s != TB_ERR_NO_SPACE);
		goto keep;
	}
	TB_FUZZ_CHECK(s == big_st);
	if (s == TB_OK) {
		TB_FUZZ_CHECK(memcmp(&d.need, &big->need, sizeof(d.need)) == 0);
		TB_FUZZ_CHECK(d.nevents == big->nevents && d.nbuffers == big->nbuffers &&
			      d.ncpustats == big->ncpustats && d.nftrace == big->nftrace);
		TB_FUZZ_CHECK(same_text(&d.header_page, &big->header_page) &&
			      same_text(&d.kallsyms, &big->kallsyms) &&
			      same_text(&d.printk, &big->printk) &&
			      same_text(&d.cmdlines, &big->cmdlines));
		for (i = 0; i < d.nevents; i++)
			TB_FUZZ_CHECK(same_text(&d.events[i].format, &big->events[i].format) &&
				      same_text(&d.events[i].system, &big->events[i].system));
		for (i = 0; i < d.ncpustats; i++)
			TB_FUZZ_CHECK(same_text(&d.cpustats[i], &big->cpustats[i]));
		for (i = 0; i < d.nbuffers; i++) {
			const tb_dat_buffer *a = &d.buffers[i], *b = &big->buffers[i];
			TB_FUZZ_CHECK(same_text(&a->name, &b->name) && a->ncpus == b->ncpus &&
				      a->page_size == b->page_size &&
				      a->compressed == b->compressed && a->latency == b->latency);
			for (j = 0; j < a->ncpus; j++)
				TB_FUZZ_CHECK(a->cpus[j].cpu == b->cpus[j].cpu &&
					      a->cpus[j].offset == b->cpus[j].offset &&
					      a->cpus[j].size == b->cpus[j].size);
		}
	}
keep:
	/* the walk below goes on with this open when it alone succeeded */
	g_x = x;
	g_xscratch = x.scratch;
	g_xscratch_len = x.scratch_cap;
	if (s == TB_OK)
		*out = d;
	return s;
}

/* count is what parse keeps; errors inside the text. */
#define CHECK_TABLE(type, count_fn, parse_fn, text)                             \
	do {                                                                    \
		size_t cnt_ = count_fn((text).ptr, (text).len);                 \
		type t_;                                                        \
		tb_error e_;                                                    \
		tb_status s_;                                                   \
		memset(&t_, 0, sizeof(t_));                                     \
		if (cnt_ > 100000)                                              \
			break;                                                  \
		t_.v = exact(cnt_, sizeof(*t_.v));                              \
		t_.cap = cnt_;                                                  \
		s_ = parse_fn(&t_, (text).ptr, (text).len, &e_);                \
		TB_FUZZ_CHECK(s_ != TB_ERR_NO_SPACE);                           \
		if (s_ == TB_OK)                                                \
			TB_FUZZ_CHECK(t_.n == cnt_);                            \
		else                                                            \
			TB_FUZZ_CHECK(e_.offset < (text).len);                  \
		free(t_.v);                                                     \
	} while (0)

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
	if (exact_storage(data, size, s, &d, &dc, &d) == TB_OK && s == TB_ERR_NO_SPACE)
		s = TB_OK; /* too large for the static storage: walk the exact one */
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
	TB_FUZZ_CHECK(d.nevents == d.need.events && d.nbuffers == d.need.buffers);
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
				size_t got = 1;
				s = tb_dat_chunk_inflate(&d, b, &ch, page,
							 sizeof(page), &got, &err);
				TB_FUZZ_CHECK(s == TB_OK || tb_is_error(s));
				/* whole pages only, all of them unless cut (and
				 * only a salvage open cuts) */
				TB_FUZZ_CHECK(!ch.cut);
				TB_FUZZ_CHECK(s == TB_OK ? got == ch.usize : got == 0);
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
						/* a file offset, plain or compressed */
						TB_FUZZ_CHECK(err.offset < size);
						continue;
					}
					TB_FUZZ_CHECK(tb_fuzz_inside(ev.data, ev.len, data, size) ||
						      tb_fuzz_inside(ev.data, ev.len, chunk_mem,
								     sizeof(chunk_mem)));
					/* the record's offset is in its page */
					TB_FUZZ_CHECK(ev.offset >= bl.header_size &&
						      ev.offset + (uint64_t)ev.len <= b->page_size);
					TB_FUZZ_CHECK(ev.page_off < size);
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
	CHECK_TABLE(tb_kallsyms, tb_kallsyms_count, tb_kallsyms_parse, d.kallsyms);
	CHECK_TABLE(tb_printk_fmts, tb_printk_count, tb_printk_parse, d.printk);
	CHECK_TABLE(tb_cmdlines, tb_cmdlines_count, tb_cmdlines_parse, d.cmdlines);
	return 0;
}
