/*
 * The Parquet writer on random schemas and values: the input says how
 * many columns of which kind (integers of every width and sign, text,
 * bytes, lists), the buffer sizes, a compressor, a failing output, and
 * then the rows.  The written file must parse back with the test reader
 * (tests/parquet_read.h, independent of lib/parquet.c) to exactly the
 * values given; a failing output must make a call fail, and what was
 * written before must not parse as a file.  A footer that is full says
 * footer_need: a footer of exactly that many bytes must take the call.
 *
 * CONFIG bit 7 moves every column to a buffer twice as large after the
 * second row (tb_pq_column_resize: the values and levels go along).
 *
 * Dictionaries: when a column has TB_PQ_DICT, cfg.dict is an exact-size
 * heap block of tb_pq_dict_size(the largest cap used, after the resize
 * too), so ASan sees an over-read; without one cfg.dict is NULL.  Values
 * of a TB_PQ_DICT column repeat on demand (below), so chunks do get a
 * dictionary.  Besides reading back to the values given: without a
 * TB_PQ_DICT column w.dict_chunks stays 0; the file's dictionary pages
 * are w.dict_chunks in number, in TB_PQ_DICT columns only; and each chunk
 * follows parquet.h's rule, from the values given and nothing else (not
 * the compressor, not the size of cscratch): a dictionary exactly when the
 * distinct values plus the index width byte and the packed indices take
 * fewer bytes than the values.  (The writer also goes PLAIN when a lookup
 * probes more than 64 slots of a table at most half full: only values
 * crafted against its hash do that, not a few hundred fuzzed ones.)
 *
 * Input: NCOLS CONFIG FAILAT COLUMN-SPEC... then per row, per column:
 * a tag byte (bit 0: null) and the value (INT: 8 bytes; BYTES:
 * (tag >> 1) % 40 bytes; LIST: (tag >> 1) % 9 elements of
 * 1 << ((tag >> 5) & 3) bytes, big-endian when bit 7 is set).  COLUMN-SPEC
 * k: kind k % 3, width (k >> 2) & 3, flags (k >> 4) & 15 (signed,
 * nullable, text, dict; text and dict only for BYTES, signed not for it).
 * In a TB_PQ_DICT column a tag with bit 7 set repeats the value of the
 * row ((tag >> 1) & 31) + 1 rows back (the same input bytes); when there
 * is no such row or it was null there, the value is read as usual.
 */
#include <string.h>

#include "fuzz.h"
#include "tracebound/parquet.h"
#include "../tests/parquet_read.h"

#define MAXC 8
#define MAXROWS 3000

typedef struct cur {
	const uint8_t *p;
	size_t n, at;
} cur;

static int take(cur *c, size_t k, const uint8_t **out)
{
	if (k > c->n - c->at)
		return 0;
	*out = c->p + c->at;
	c->at += k;
	return 1;
}

static uint8_t byte(cur *c)
{
	const uint8_t *b;
	return take(c, 1, &b) ? *b : 0;
}

typedef struct sink {
	uint8_t *p;
	size_t len, cap, fail_at;
} sink;

static tb_status sink_write(void *ctx, const void *p, size_t n)
{
	sink *s = ctx;
	if (n > s->fail_at - s->len)
		return TB_ERR_NO_SPACE;
	if (s->len + n > s->cap) {
		size_t cap = (s->len + n) * 2;
		uint8_t *np = realloc(s->p, cap);
		if (!np)
			return TB_ERR_NO_SPACE;
		s->p = np;
		s->cap = cap;
	}
	memcpy(s->p + s->len, p, n);
	s->len += n;
	return TB_OK;
}

/* A toy codec: (count, byte) runs. */
static tb_status toy_compress(void *ctx, const void *src, size_t n, void *dst, size_t cap,
			      size_t *out)
{
	const uint8_t *p = src;
	uint8_t *d = dst;
	size_t i = 0, o = 0;
	(void)ctx;
	while (i < n) {
		size_t run = 1;
		while (i + run < n && run < 255 && p[i + run] == p[i])
			run++;
		if (cap - o < 2)
			return TB_ERR_NO_SPACE;
		d[o++] = (uint8_t)run;
		d[o++] = p[i];
		i += run;
	}
	*out = o;
	return TB_OK;
}

static int toy_decompress(void *ctx, int codec, const uint8_t *src, size_t n, size_t un,
			  uint8_t **out)
{
	uint8_t *d = malloc(un + 1);
	size_t i, o = 0;
	(void)ctx;
	if (codec != TB_PQ_ZSTD || n % 2 || !d) {
		free(d);
		return -1;
	}
	for (i = 0; i < n; i += 2) {
		if (src[i] > un - o) {
			free(d);
			return -1;
		}
		memset(d + o, src[i + 1], src[i]);
		o += src[i];
	}
	if (o != un) {
		free(d);
		return -1;
	}
	*out = d;
	return 0;
}

/* What one value was, to compare with what is read back. */
typedef struct val {
	uint8_t null, n;
	int64_t i;
	const uint8_t *p;   /* BYTES: into the input */
	int64_t e[8];       /* LIST elements as the reader sees them */
} val;

static val vals[MAXROWS][MAXC];

static unsigned bits_for(size_t x)
{
	unsigned b = 0;
	while (x) {
		b++;
		x >>= 1;
	}
	return b;
}

/*
 * The file's dictionary pages against the writer's count and parquet.h's
 * rule, per chunk (row group) of each TB_PQ_DICT column, from the values
 * given: values = the bytes of its non-null values PLAIN (4 + length
 * each), dict = those of its distinct values, idx = its indices packed at
 * the width of the largest one (1 bit at least).  A dictionary page
 * exactly when dict + 1 (the width byte) + idx < values.
 */
static void check_dicts(const pqr_file *f, const tb_pq_writer *w, const tb_pq_column *cols,
			size_t ncols, size_t nrows)
{
	static size_t distinct[MAXROWS];
	size_t g, i, first = 0, total = 0;
	for (g = 0; g < f->ngroups; g++) {
		size_t rows = (size_t)f->groups[g].num_rows;
		TB_FUZZ_CHECK(f->groups[g].num_rows > 0 && rows <= nrows - first);
		for (i = 0; i < ncols; i++) {
			int has = f->groups[g].chunks[i].dict_page_offset >= 0;
			size_t r, k, nd = 0, n = 0, values = 0, dict = 0, idx;
			unsigned bw;
			total += (size_t)has;
			if (!(cols[i].flags & TB_PQ_DICT)) {
				TB_FUZZ_CHECK(!has);
				continue;
			}
			for (r = first; r < first + rows; r++) {
				const val *x = &vals[r][i];
				if (x->null)
					continue;
				n++;
				values += 4 + (size_t)x->n;
				for (k = 0; k < nd; k++) {
					const val *y = &vals[distinct[k]][i];
					if (y->n == x->n && (!x->n || !memcmp(y->p, x->p, x->n)))
						break;
				}
				if (k == nd) {
					distinct[nd++] = r;
					dict += 4 + (size_t)x->n;
				}
			}
			bw = bits_for(nd ? nd - 1 : 0);
			idx = (n * (bw ? bw : 1) + 7) / 8;
			TB_FUZZ_CHECK(has == (n && dict + 1 + idx < values));
		}
		first += rows;
	}
	TB_FUZZ_CHECK(first == nrows && total == w->dict_chunks);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static tb_pq_column cols[MAXC];
	static uint8_t *bufs[MAXC], *bufs2[MAXC];
	static uint8_t scratch[2 * 4096 + 64], cbuf[4 * 4096 + 64], footer[8192];
	cur c = { data, size, 0 };
	size_t ncols, i, r, nrows = 0, cap, ndict = 0;
	uint8_t *dict = NULL;
	unsigned config, failat;
	tb_pq_config cfg;
	tb_pq_writer w;
	tb_error e;
	tb_status st = TB_OK;
	sink s = { NULL, 0, 0, SIZE_MAX };
	pqr_file f;

	ncols = byte(&c) % MAXC + 1;
	config = byte(&c);
	failat = byte(&c);
	cap = (size_t)64 << (config & 3); /* 64 .. 512 bytes per column */
	for (i = 0; i < ncols; i++) {
		uint8_t k = byte(&c);
		static const uint8_t widths[4] = { 8, 16, 32, 64 };
		memset(&cols[i], 0, sizeof(cols[i]));
		static const char names[] = "abcdefgh";
		cols[i].name = &names[i];
		cols[i].name_len = 1;
		cols[i].kind = (uint8_t)(k % 3);
		cols[i].bits = cols[i].kind == TB_PQ_BYTES ? 0 : widths[(k >> 2) & 3];
		cols[i].flags = (uint8_t)((k >> 4) & 15);
		if (cols[i].kind == TB_PQ_BYTES)
			cols[i].flags &= (uint8_t)~TB_PQ_SIGNED;
		else
			cols[i].flags &= (uint8_t)~(TB_PQ_TEXT | TB_PQ_DICT);
		if (cols[i].flags & TB_PQ_DICT)
			ndict++;
		bufs[i] = malloc(cap);
		bufs2[i] = NULL;
		cols[i].buf = bufs[i];
		cols[i].cap = cap;
	}
	memset(&cfg, 0, sizeof(cfg));
	cfg.write = sink_write;
	cfg.write_ctx = &s;
	cfg.scratch = scratch;
	cfg.scratch_cap = tb_pq_scratch_size(config & 0x80 ? 2 * cap : cap);
	cfg.footer = footer;
	cfg.footer_cap = config & 4 ? sizeof(footer) : 300;
	cfg.max_group_rows = config & 8 ? (config >> 6) + 1 : 0;
	if (ndict) {
		/* exactly what the largest buffer needs, so ASan sees an over-read */
		cfg.dict_cap = tb_pq_dict_size(config & 0x80 ? 2 * cap : cap);
		dict = malloc(cfg.dict_cap);
		TB_FUZZ_CHECK(dict != NULL);
		cfg.dict = dict;
	}
	if (config & 0x10) {
		cfg.compress = toy_compress;
		cfg.codec = TB_PQ_ZSTD;
		cfg.cscratch = cbuf;
		cfg.cscratch_cap = config & 0x20 ? sizeof(cbuf) : 40;
	}
	if (failat)
		s.fail_at = (size_t)failat * 13;
	st = tb_pq_writer_init(&w, cols, ncols, &cfg, &e);
	TB_FUZZ_CHECK(st == TB_OK || (failat && st == TB_ERR_NO_SPACE));

	while (st == TB_OK && c.at < c.n && nrows < MAXROWS) {
		tb_pq_value v[MAXC];
		memset(v, 0, sizeof(v));
		for (i = 0; i < ncols; i++) {
			tb_pq_column *col = &cols[i];
			val *x = &vals[nrows][i];
			uint8_t tag = byte(&c);
			const uint8_t *b;
			memset(x, 0, sizeof(*x));
			x->null = (tag & 1) && (col->flags & TB_PQ_NULLABLE);
			v[i].is_null = x->null;
			if (x->null)
				continue;
			if (col->kind == TB_PQ_INT) {
				uint64_t u = 0;
				unsigned k;
				for (k = 0; k < 8; k++)
					u = u << 8 | byte(&c);
				if (col->bits < 64) {
					u &= ((uint64_t)1 << col->bits) - 1;
					if ((col->flags & TB_PQ_SIGNED) && (u >> (col->bits - 1)))
						u |= UINT64_MAX << col->bits;
				}
				v[i].i = u;
				x->i = col->bits == 32 && !(col->flags & TB_PQ_SIGNED)
					       ? (int32_t)(uint32_t)u
					       : (int64_t)u;
			} else if (col->kind == TB_PQ_BYTES) {
				size_t n = (size_t)(tag >> 1) % 40, back = (size_t)((tag >> 1) & 31) + 1;
				if ((col->flags & TB_PQ_DICT) && (tag & 0x80) && back <= nrows &&
				    !vals[nrows - back][i].null) {
					/* a value seen before: the same bytes again */
					b = vals[nrows - back][i].p;
					n = vals[nrows - back][i].n;
				} else if (!take(&c, n, &b)) {
					n = 0, b = NULL;
				}
				v[i].p = b;
				v[i].n = n;
				x->p = b;
				x->n = (uint8_t)n;
			} else {
				size_t n = (size_t)(tag >> 1) % 9, k;
				unsigned es = 1u << ((tag >> 5) & 3);
				int be = (tag >> 7) & 1;
				if (es * 8 > col->bits)
					es = col->bits / 8;
				if (!take(&c, n * es, &b))
					n = 0, b = NULL;
				v[i].p = b;
				v[i].n = n;
				v[i].elem_size = es;
				v[i].big_endian = be;
				x->n = (uint8_t)n;
				for (k = 0; k < n && k < 8; k++) {
					uint64_t u = 0;
					unsigned j;
					for (j = 0; j < es; j++)
						u |= (uint64_t)b[k * es + (be ? es - 1 - j : j)] << (8 * j);
					if ((col->flags & TB_PQ_SIGNED) && es < 8 && (u >> (8 * es - 1)))
						u |= UINT64_MAX << (8 * es);
					x->e[k] = col->bits == 32 ? (int32_t)(uint32_t)u : (int64_t)u;
				}
			}
		}
		st = tb_pq_write_row(&w, v, &e);
		if (st == TB_ERR_NO_SPACE && !w.sticky) {
			/* the footer: grow once into the big buffer and retry;
			 * footer_need bytes are enough (parquet.h), so first
			 * with exactly those, then with all of it */
			static uint8_t big[1 << 16];
			size_t need = w.footer_need;
			TB_FUZZ_CHECK(need > w.footer_cap);
			if (need <= sizeof(big) && w.footer != big) {
				TB_FUZZ_CHECK(tb_pq_writer_set_footer(&w, big, need, &e) == TB_OK);
				st = tb_pq_write_row(&w, v, &e);
				TB_FUZZ_CHECK(st != TB_ERR_NO_SPACE || w.sticky);
				TB_FUZZ_CHECK(tb_pq_writer_set_footer(&w, big, sizeof(big), &e) == TB_OK);
			}
		}
		if (st == TB_ERR_LIMIT) { /* a value larger than its column: skip the row */
			TB_FUZZ_CHECK(!w.sticky);
			st = TB_OK;
			continue;
		}
		if (st == TB_OK)
			nrows++;
		if (st == TB_OK && nrows == 2 && (config & 0x80))
			for (i = 0; i < ncols; i++) {
				bufs2[i] = malloc(2 * cap);
				TB_FUZZ_CHECK(tb_pq_column_resize(&w, i, bufs2[i], 2 * cap, &e) ==
					      TB_OK);
			}
	}
	if (st == TB_OK) {
		st = tb_pq_finish(&w, &e);
		if (st == TB_ERR_NO_SPACE && !w.sticky) {
			static uint8_t big2[1 << 16];
			if (w.footer_need <= sizeof(big2)) {
				TB_FUZZ_CHECK(tb_pq_writer_set_footer(&w, big2, w.footer_need, &e) ==
					      TB_OK);
				st = tb_pq_finish(&w, &e);
				TB_FUZZ_CHECK(st != TB_ERR_NO_SPACE || w.sticky);
			}
		}
	}
	if (!ndict)
		TB_FUZZ_CHECK(w.dict_chunks == 0);
	if (st != TB_OK) {
		/* only the output (or a footer we did not grow) may fail */
		TB_FUZZ_CHECK(st == TB_ERR_NO_SPACE);
		TB_FUZZ_CHECK(pqr_open(&f, s.p, s.len) != 0);
		pqr_close(&f);
		goto out;
	}
	TB_FUZZ_CHECK(pqr_open(&f, s.p, s.len) == 0);
	TB_FUZZ_CHECK(f.num_rows == (int64_t)nrows && f.nleaves == ncols);
	TB_FUZZ_CHECK(f.ngroups == w.groups);
	check_dicts(&f, &w, cols, ncols, nrows);
	for (i = 0; i < ncols; i++) {
		const tb_pq_column *col = &cols[i];
		const pqr_schema *sc = &f.schema[f.leaves[i]];
		pqr_entry *ent;
		size_t n, at = 0;
		TB_FUZZ_CHECK(pqr_leaf(&f, i, &ent, &n, toy_decompress, NULL) == 0);
		if (col->kind == TB_PQ_BYTES)
			TB_FUZZ_CHECK((sc->logical == 1) ==
				      ((col->flags & TB_PQ_TEXT) && !col->non_utf8));
		else
			TB_FUZZ_CHECK(sc->int_bits == col->bits &&
				      sc->int_signed == !!(col->flags & TB_PQ_SIGNED));
		for (r = 0; r < nrows; r++) {
			const val *x = &vals[r][i];
			TB_FUZZ_CHECK(at < n);
			if (col->kind == TB_PQ_LIST && !x->null && x->n) {
				size_t k;
				for (k = 0; k < x->n; k++, at++) {
					TB_FUZZ_CHECK(at < n && ent[at].has_value);
					TB_FUZZ_CHECK(ent[at].rep == (k ? 1 : 0));
					TB_FUZZ_CHECK(ent[at].i == x->e[k]);
				}
				continue;
			}
			TB_FUZZ_CHECK(ent[at].rep == 0);
			if (col->kind == TB_PQ_LIST)
				TB_FUZZ_CHECK(!ent[at].has_value);
			else
				TB_FUZZ_CHECK(ent[at].has_value == !x->null);
			if (!x->null && col->kind == TB_PQ_INT)
				TB_FUZZ_CHECK(ent[at].i == x->i);
			if (!x->null && col->kind == TB_PQ_BYTES)
				TB_FUZZ_CHECK(ent[at].n == x->n &&
					      (!x->n || !memcmp(ent[at].p, x->p, x->n)));
			at++;
		}
		TB_FUZZ_CHECK(at == n);
		free(ent);
	}
	pqr_close(&f);
out:
	free(s.p);
	free(dict);
	for (i = 0; i < ncols; i++) {
		free(bufs[i]);
		free(bufs2[i]);
	}
	return 0;
}
