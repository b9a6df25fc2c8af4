/* lib/parquet.c: the Parquet writer, read back with tests/parquet_read.h. */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracebound/parquet.h"
#include "datwriter.h"
#include "pagewriter.h"
#include "parquet_read.h"
#include "testutil.h"
#include "zstd_dl.h"
#include "thrift.h"

Suite *tb_suite_parquet(void);

/* ---- an in-memory output that can fail after a number of bytes ---- */

typedef struct sink {
	uint8_t *p;
	size_t len, cap;
	size_t fail_at;   /* SIZE_MAX: never */
	unsigned calls;
} sink;

static tb_status sink_write(void *ctx, const void *p, size_t n)
{
	sink *s = ctx;
	s->calls++;
	if (n > s->fail_at - s->len) {
		size_t part = s->fail_at - s->len;
		if (s->len + part > s->cap) {
			s->cap = (s->len + part) * 2 + 64;
			s->p = realloc(s->p, s->cap);
		}
		memcpy(s->p + s->len, p, part);
		s->len += part;
		return TB_ERR_NO_SPACE;
	}
	if (s->len + n > s->cap) {
		s->cap = (s->len + n) * 2 + 64;
		s->p = realloc(s->p, s->cap);
	}
	memcpy(s->p + s->len, p, n);
	s->len += n;
	return TB_OK;
}

static void sink_init(sink *s)
{
	memset(s, 0, sizeof(*s));
	s->fail_at = SIZE_MAX;
}

/* ---- a table of every column kind ---- */

enum { NCOL = 14, COLCAP = 512 };

typedef struct table {
	tb_pq_column cols[NCOL];
	uint8_t bufs[NCOL][COLCAP];
	uint8_t scratch[2 * COLCAP + 64];
	uint8_t footer[1 << 18];
	tb_pq_config cfg;
	tb_pq_writer w;
	sink out;
} table;

static const struct { const char *name; uint8_t kind, bits, flags; } kinds[NCOL] = {
	{ "u8", TB_PQ_INT, 8, 0 },
	{ "s8", TB_PQ_INT, 8, TB_PQ_SIGNED },
	{ "u16", TB_PQ_INT, 16, TB_PQ_NULLABLE },
	{ "s16", TB_PQ_INT, 16, TB_PQ_SIGNED | TB_PQ_NULLABLE },
	{ "u32", TB_PQ_INT, 32, 0 },
	{ "s32", TB_PQ_INT, 32, TB_PQ_SIGNED | TB_PQ_NULLABLE },
	{ "u64", TB_PQ_INT, 64, TB_PQ_NULLABLE },
	{ "s64", TB_PQ_INT, 64, TB_PQ_SIGNED },
	{ "text", TB_PQ_BYTES, 0, TB_PQ_TEXT | TB_PQ_NULLABLE },
	{ "badtext", TB_PQ_BYTES, 0, TB_PQ_TEXT },
	{ "blob", TB_PQ_BYTES, 0, TB_PQ_NULLABLE },
	{ "ls16", TB_PQ_LIST, 16, TB_PQ_SIGNED | TB_PQ_NULLABLE },
	{ "lu64", TB_PQ_LIST, 64, 0 },
	{ "lu32", TB_PQ_LIST, 32, TB_PQ_NULLABLE },
};

static void table_init(table *t, size_t colcap)
{
	size_t i;
	tb_error e;
	memset(t, 0, sizeof(*t));
	for (i = 0; i < NCOL; i++) {
		t->cols[i].name = kinds[i].name;
		t->cols[i].name_len = strlen(kinds[i].name);
		t->cols[i].kind = kinds[i].kind;
		t->cols[i].bits = kinds[i].bits;
		t->cols[i].flags = kinds[i].flags;
		t->cols[i].buf = t->bufs[i];
		t->cols[i].cap = colcap;
	}
	sink_init(&t->out);
	t->cfg.write = sink_write;
	t->cfg.write_ctx = &t->out;
	t->cfg.scratch = t->scratch;
	t->cfg.scratch_cap = sizeof(t->scratch);
	t->cfg.footer = t->footer;
	t->cfg.footer_cap = sizeof(t->footer);
	ck_assert_int_eq(tb_pq_writer_init(&t->w, t->cols, NCOL, &t->cfg, &e), TB_OK);
}

/* The expected value of row r, column c (deterministic, spans the ranges). */
typedef struct expect {
	int is_null;
	int64_t i;
	uint8_t bytes[16];
	size_t n;
	int64_t list[6];
	size_t nlist;
	uint8_t raw[48];
} expect;

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	return x ^ (x >> 33);
}

static void expected(size_t r, size_t c, expect *x, tb_pq_value *v)
{
	uint64_t h = mix(r * 131 + c + 1);
	size_t k;
	memset(x, 0, sizeof(*x));
	memset(v, 0, sizeof(*v));
	x->is_null = (kinds[c].flags & TB_PQ_NULLABLE) && (r % 5 == 3 || (r / 16) % 4 == 1);
	v->is_null = x->is_null;
	switch (kinds[c].kind) {
	case TB_PQ_INT: {
		unsigned bits = kinds[c].bits;
		uint64_t u = bits == 64 ? h : h & (((uint64_t)1 << bits) - 1);
		if (r == 0) /* the extremes */
			u = bits == 64 ? UINT64_MAX : ((uint64_t)1 << bits) - 1;
		if (kinds[c].flags & TB_PQ_SIGNED) {
			int64_t s = bits == 64 ? (int64_t)u
					       : (int64_t)(u << (64 - bits)) >> (64 - bits);
			v->i = (uint64_t)s;
			x->i = s;
		} else {
			v->i = u;
			/* what the reader sees in the INT32/INT64 slot */
			x->i = bits == 32 ? (int32_t)(uint32_t)u : (int64_t)u;
		}
		break;
	}
	case TB_PQ_BYTES:
		x->n = h % 12;
		for (k = 0; k < x->n; k++)
			x->bytes[k] = (uint8_t)('a' + (h >> (k * 4)) % 26);
		if (c == 9 && r == 7) { /* one invalid UTF-8 value in "badtext" */
			x->bytes[0] = 0xc0;
			x->bytes[1] = 0x80;
			x->n = x->n < 2 ? 2 : x->n;
		}
		if (c == 10) /* blob: any bytes, NUL too */
			for (k = 0; k < x->n; k++)
				x->bytes[k] = (uint8_t)(h >> (k * 5));
		v->p = x->bytes;
		v->n = x->n;
		break;
	default: {
		unsigned es = c == 11 ? 2 : c == 12 ? 8 : (r % 2 ? 4 : 1);
		x->nlist = h % 6;
		for (k = 0; k < x->nlist; k++) {
			uint64_t e = mix(h + k);
			size_t b;
			for (b = 0; b < es; b++) /* big-endian for odd rows */
				x->raw[k * es + (r % 2 ? es - 1 - b : b)] = (uint8_t)(e >> (8 * b));
			if (es < 8)
				e &= ((uint64_t)1 << (8 * es)) - 1;
			if ((kinds[c].flags & TB_PQ_SIGNED) && es < 8 && (e >> (8 * es - 1)))
				e |= UINT64_MAX << (8 * es);
			x->list[k] = kinds[c].bits == 32 ? (int32_t)(uint32_t)e : (int64_t)e;
		}
		v->p = x->raw;
		v->n = x->nlist;
		v->elem_size = es;
		v->big_endian = (int)(r % 2);
		break;
	}
	}
}

static void write_rows(table *t, size_t nrows)
{
	size_t r, c;
	for (r = 0; r < nrows; r++) {
		tb_pq_value v[NCOL];
		tb_error e;
		/* expected() points each value into its own expect record */
		{
			static expect keep[NCOL];
			for (c = 0; c < NCOL; c++) {
				expected(r, c, &keep[c], &v[c]);
				if (v[c].p)
					v[c].p = kinds[c].kind == TB_PQ_LIST ? (const void *)keep[c].raw
									     : (const void *)keep[c].bytes;
			}
			ck_assert_int_eq(tb_pq_write_row(&t->w, v, &e), TB_OK);
		}
	}
}

/* Check the file against expected() for nrows rows. */
static void verify(const uint8_t *data, size_t len, size_t nrows, pqr_decompress_fn dec)
{
	pqr_file f;
	size_t c;
	ck_assert_msg(pqr_open(&f, data, len) == 0, "pqr_open: %s", f.error);
	ck_assert_int_eq(f.num_rows, (int64_t)nrows);
	ck_assert_uint_eq(f.nleaves, NCOL);
	ck_assert_uint_eq(f.nschema, 1 + NCOL + 2 * 3);
	for (c = 0; c < NCOL; c++) {
		pqr_entry *ent;
		size_t n, r, at = 0;
		const pqr_schema *s = &f.schema[f.leaves[c]];
		ck_assert_int_eq(pqr_leaf(&f, c, &ent, &n, dec, NULL), 0);
		if (kinds[c].kind == TB_PQ_INT) {
			ck_assert_str_eq(s->name, kinds[c].name);
			ck_assert_int_eq(s->type, kinds[c].bits == 64 ? 2 : 1);
			ck_assert_int_eq(s->logical, 10);
			ck_assert_int_eq(s->int_bits, kinds[c].bits);
			ck_assert_int_eq(s->int_signed, !!(kinds[c].flags & TB_PQ_SIGNED));
			/* INT_8.. 15-18, UINT_8.. 11-14 */
			ck_assert_int_eq(s->conv, ((kinds[c].flags & TB_PQ_SIGNED) ? 15 : 11) +
							  (kinds[c].bits == 8    ? 0
							   : kinds[c].bits == 16 ? 1
							   : kinds[c].bits == 32 ? 2
										 : 3));
			ck_assert_int_eq(s->rep, (kinds[c].flags & TB_PQ_NULLABLE) ? 1 : 0);
		} else if (kinds[c].kind == TB_PQ_BYTES) {
			ck_assert_int_eq(s->type, 6);
			/* "text" stays STRING; "badtext" held one invalid value
			 * (once row 7 is written), "blob" never asked for it */
			if (c == 8 || (c == 9 && nrows <= 7)) {
				ck_assert_int_eq(s->logical, 1);
				ck_assert_int_eq(s->conv, 0);
			} else {
				ck_assert_int_eq(s->logical, 0);
				ck_assert_int_eq(s->conv, -1);
			}
		} else {
			const pqr_schema *g = &f.schema[f.leaves[c] - 2];
			ck_assert_str_eq(g->name, kinds[c].name);
			ck_assert_int_eq(g->conv, 3);
			ck_assert_int_eq(g->logical, 3);
			ck_assert_str_eq(f.schema[f.leaves[c] - 1].name, "list");
			ck_assert_int_eq(f.schema[f.leaves[c] - 1].rep, 2);
			ck_assert_str_eq(s->name, "element");
			ck_assert_int_eq(s->int_bits, kinds[c].bits);
			ck_assert_int_eq(s->max_rep, 1);
		}
		for (r = 0; r < nrows; r++) {
			expect x;
			tb_pq_value v;
			expected(r, c, &x, &v);
			ck_assert_uint_lt(at, n);
			if (kinds[c].kind == TB_PQ_LIST) {
				size_t k;
				ck_assert_int_eq(ent[at].rep, 0);
				if (x.is_null || !x.nlist) {
					ck_assert_int_eq(ent[at].has_value, 0);
					ck_assert_int_eq(ent[at].def, x.is_null ? 0 : s->max_def - 1);
					at++;
					continue;
				}
				for (k = 0; k < x.nlist; k++, at++) {
					ck_assert_uint_lt(at, n);
					ck_assert_int_eq(ent[at].rep, k ? 1 : 0);
					ck_assert(ent[at].has_value);
					ck_assert_msg(ent[at].i == x.list[k], "row %zu col %zu elem %zu",
						      r, c, k);
				}
				continue;
			}
			ck_assert_int_eq(ent[at].has_value, !x.is_null);
			if (!x.is_null && kinds[c].kind == TB_PQ_INT)
				ck_assert_msg(ent[at].i == x.i, "row %zu col %zu: %lld != %lld", r, c,
					      (long long)ent[at].i, (long long)x.i);
			if (!x.is_null && kinds[c].kind == TB_PQ_BYTES) {
				ck_assert_uint_eq(ent[at].n, x.n);
				ck_assert(!x.n || !memcmp(ent[at].p, x.bytes, x.n));
			}
			at++;
		}
		ck_assert_uint_eq(at, n);
		free(ent);
	}
	pqr_close(&f);
}

START_TEST(every_type_round_trips)
{
	static table t;
	tb_error e;
	size_t i;
	table_init(&t, COLCAP);
	write_rows(&t, 7); /* "badtext" still all UTF-8 */
	ck_assert_int_eq(tb_pq_finish(&t.w, &e), TB_OK);
	verify(t.out.p, t.out.len, 7, NULL);
	ck_assert_uint_eq(t.cols[9].non_utf8, 0);
	free(t.out.p);

	table_init(&t, COLCAP);
	write_rows(&t, 40);
	ck_assert_int_eq(tb_pq_finish(&t.w, &e), TB_OK);
	verify(t.out.p, t.out.len, 40, NULL);
	ck_assert_uint_eq(t.cols[9].non_utf8, 1);
	ck_assert_uint_eq(t.w.rows, 40);
	for (i = 0; i < NCOL; i++)
		if (kinds[i].kind != TB_PQ_LIST)
			ck_assert_uint_eq(t.cols[i].values, 40);
	/* finished: no more rows, no second finish */
	ck_assert_int_eq(tb_pq_finish(&t.w, &e), TB_ERR_ARG);
	free(t.out.p);
}
END_TEST

START_TEST(many_row_groups)
{
	static table t;
	pqr_file f;
	tb_error e;
	table_init(&t, 128); /* a few rows per group */
	write_rows(&t, 500);
	ck_assert_int_eq(tb_pq_finish(&t.w, &e), TB_OK);
	ck_assert_uint_gt(t.w.groups, 20);
	verify(t.out.p, t.out.len, 500, NULL);
	ck_assert_int_eq(pqr_open(&f, t.out.p, t.out.len), 0);
	ck_assert_uint_eq(f.ngroups, t.w.groups);
	{
		int64_t sum = 0;
		size_t g;
		for (g = 0; g < f.ngroups; g++)
			sum += f.groups[g].num_rows;
		ck_assert_int_eq(sum, 500);
	}
	pqr_close(&f);
	free(t.out.p);

	/* max_group_rows ends groups too */
	table_init(&t, COLCAP);
	t.w.cfg.max_group_rows = 3;
	write_rows(&t, 10);
	ck_assert_int_eq(tb_pq_finish(&t.w, &e), TB_OK);
	ck_assert_uint_eq(t.w.groups, 4);
	verify(t.out.p, t.out.len, 10, NULL);
	free(t.out.p);
}
END_TEST

/* Levels: long runs (RLE), short alternations (bit-packed), every
 * boundary between them. */
START_TEST(null_patterns)
{
	static uint8_t buf[8192], scratch[2 * 8192 + 64], footer[4096];
	static const char *const pats[] = { "0", "1", "01", "0001", "00000000111", "1110",
					    "000000001", "0101010100000000000000001" };
	size_t p, len;
	for (p = 0; p < sizeof(pats) / sizeof(pats[0]); p++)
		for (len = 1; len < 700; len += 97) {
			tb_pq_column col = { .name = "x", .name_len = 1, .kind = TB_PQ_INT,
					     .bits = 32, .flags = TB_PQ_NULLABLE, .buf = buf,
					     .cap = sizeof(buf) };
			tb_pq_config cfg = { .write = sink_write, .scratch = scratch,
					     .scratch_cap = sizeof(scratch), .footer = footer,
					     .footer_cap = sizeof(footer) };
			tb_pq_writer w;
			tb_error e;
			sink s;
			pqr_file f;
			pqr_entry *ent;
			size_t n, r, plen = strlen(pats[p]);
			sink_init(&s);
			cfg.write_ctx = &s;
			ck_assert_int_eq(tb_pq_writer_init(&w, &col, 1, &cfg, &e), TB_OK);
			for (r = 0; r < len; r++) {
				tb_pq_value v = { .is_null = pats[p][r % plen] == '1',
						  .i = (uint64_t)r };
				ck_assert_int_eq(tb_pq_write_row(&w, &v, &e), TB_OK);
			}
			ck_assert_int_eq(tb_pq_finish(&w, &e), TB_OK);
			ck_assert_int_eq(pqr_open(&f, s.p, s.len), 0);
			ck_assert_int_eq(pqr_leaf(&f, 0, &ent, &n, NULL, NULL), 0);
			ck_assert_uint_eq(n, len);
			for (r = 0; r < len; r++) {
				int null = pats[p][r % plen] == '1';
				ck_assert_int_eq(ent[r].has_value, !null);
				if (!null)
					ck_assert_int_eq(ent[r].i, (int64_t)r);
			}
			ck_assert_uint_eq(col.nulls + (len - col.nulls), len);
			free(ent);
			pqr_close(&f);
			free(s.p);
		}
}
END_TEST

/* Every failing write: the call that met it returns the error, the
 * writer stays failed, and the bytes out so far never parse as a file. */
START_TEST(write_errors_are_sticky)
{
	static table t;
	size_t total, cut;
	tb_error e;
	table_init(&t, 256);
	write_rows(&t, 30);
	ck_assert_int_eq(tb_pq_finish(&t.w, &e), TB_OK);
	total = t.out.len;
	free(t.out.p);
	for (cut = 0; cut < total; cut++) {
		tb_status st = TB_OK;
		size_t r, c;
		pqr_file f;
		table_init(&t, 256);
		t.out.fail_at = cut;
		if (cut < 4) { /* the magic at init: init again into an empty sink */
			t.out.len = 0;
			tb_pq_writer_init(&t.w, t.cols, NCOL, &t.cfg, &e) == TB_ERR_NO_SPACE
				? (void)0
				: ck_abort_msg("init with a failing write at %zu", cut);
			ck_assert_str_eq(e.what, "the write callback failed");
			ck_assert_int_eq(tb_pq_finish(&t.w, &e), TB_ERR_NO_SPACE);
			free(t.out.p);
			continue;
		}
		for (r = 0; r < 30 && st == TB_OK; r++) {
			tb_pq_value v[NCOL];
			static expect keep[NCOL];
			for (c = 0; c < NCOL; c++) {
				expected(r, c, &keep[c], &v[c]);
				if (v[c].p)
					v[c].p = kinds[c].kind == TB_PQ_LIST ? (const void *)keep[c].raw
									     : (const void *)keep[c].bytes;
			}
			st = tb_pq_write_row(&t.w, v, &e);
		}
		if (st == TB_OK)
			st = tb_pq_finish(&t.w, &e);
		ck_assert_int_eq(st, TB_ERR_NO_SPACE);
		ck_assert_str_eq(e.what, "the write callback failed");
		ck_assert_int_eq(tb_pq_flush(&t.w, &e), TB_ERR_NO_SPACE);
		ck_assert_int_eq(tb_pq_finish(&t.w, &e), TB_ERR_NO_SPACE);
		ck_assert_uint_eq(t.out.len, cut);
		ck_assert_int_ne(pqr_open(&f, t.out.p, t.out.len), 0);
		pqr_close(&f);
		free(t.out.p);
	}
}
END_TEST

/* The footer grows on demand and the file is the same byte for byte. */
START_TEST(footer_grow_and_retry)
{
	static table a, b;
	static uint8_t big[1 << 18];
	size_t r, c, retries = 0;
	tb_error e;
	table_init(&a, 128);
	write_rows(&a, 200);
	ck_assert_int_eq(tb_pq_finish(&a.w, &e), TB_OK);

	table_init(&b, 128);
	ck_assert_int_eq(tb_pq_writer_set_footer(&b.w, b.footer, 0, &e), TB_OK);
	for (r = 0; r <= 200; r++) {
		tb_pq_value v[NCOL];
		static expect keep[NCOL];
		tb_status st;
		for (c = 0; c < NCOL && r < 200; c++) {
			expected(r, c, &keep[c], &v[c]);
			if (v[c].p)
				v[c].p = kinds[c].kind == TB_PQ_LIST ? (const void *)keep[c].raw
								     : (const void *)keep[c].bytes;
		}
		for (;;) {
			size_t len = b.w.footer_len;
			st = r < 200 ? tb_pq_write_row(&b.w, v, &e) : tb_pq_finish(&b.w, &e);
			if (st != TB_ERR_NO_SPACE)
				break;
			ck_assert_uint_gt(b.w.footer_need, b.w.footer_cap);
			ck_assert_uint_le(b.w.footer_need, sizeof(big));
			ck_assert_uint_eq(b.w.footer_len, len);
			/* alternate between the two buffers, exactly the size asked */
			ck_assert_int_eq(tb_pq_writer_set_footer(&b.w, retries % 2 ? b.footer : big,
								 b.w.footer_need, &e),
					 TB_OK);
			retries++;
		}
		ck_assert_int_eq(st, TB_OK);
	}
	ck_assert_uint_gt(retries, 5);
	ck_assert_uint_eq(a.out.len, b.out.len);
	ck_assert(!memcmp(a.out.p, b.out.p, a.out.len));
	ck_assert_int_eq(tb_pq_writer_set_footer(&b.w, NULL, 10, &e), TB_ERR_ARG);
	ck_assert_int_eq(tb_pq_writer_set_footer(&b.w, big, 1, &e), TB_ERR_ARG);
	free(a.out.p);
	free(b.out.p);
}
END_TEST

static tb_status write_says_end(void *ctx, const void *p, size_t n)
{
	(void)ctx;
	(void)p;
	(void)n;
	return TB_END;
}

START_TEST(bad_arguments)
{
	static uint8_t buf[256], scratch[1024], footer[1024];
	tb_pq_column col = { .name = "x", .name_len = 1, .kind = TB_PQ_INT, .bits = 32,
			     .buf = buf, .cap = sizeof(buf) };
	tb_pq_config cfg = { .write = sink_write, .scratch = scratch,
			     .scratch_cap = sizeof(scratch), .footer = footer,
			     .footer_cap = sizeof(footer) };
	tb_pq_writer w;
	tb_error e;
	sink s;
	static tb_pq_column many[TB_PQ_MAX_COLUMNS + 1];
	tb_pq_column c2;
	tb_pq_value v;
	tb_pq_kv kv[TB_PQ_MAX_KV + 1];
	sink_init(&s);
	cfg.write_ctx = &s;

	ck_assert_int_eq(tb_pq_writer_init(NULL, &col, 1, &cfg, &e), TB_ERR_ARG);
	ck_assert_int_eq(tb_pq_writer_init(&w, &col, 1, NULL, &e), TB_ERR_ARG);
	cfg.write = write_says_end; /* "not an error" from the output is still a failure */
	ck_assert_int_eq(tb_pq_writer_init(&w, &col, 1, &cfg, &e), TB_ERR_ARG);
	ck_assert_str_eq(e.what, "the write callback failed");
	cfg.write = sink_write;
	ck_assert_int_eq(tb_pq_writer_init(&w, NULL, 1, &cfg, &e), TB_ERR_ARG);
	ck_assert_int_eq(tb_pq_writer_init(&w, many, TB_PQ_MAX_COLUMNS + 1, &cfg, &e),
			 TB_ERR_LIMIT);
#define BAD_COL(field, value, status)                                              \
	do {                                                                       \
		c2 = col;                                                          \
		c2.field = value;                                                  \
		ck_assert_int_eq(tb_pq_writer_init(&w, &c2, 1, &cfg, &e), status); \
	} while (0)
	BAD_COL(bits, 12, TB_ERR_ARG);
	BAD_COL(bits, 0, TB_ERR_ARG);
	BAD_COL(kind, 3, TB_ERR_ARG);
	BAD_COL(name_len, 0, TB_ERR_ARG);
	BAD_COL(name, NULL, TB_ERR_ARG);
	c2 = col;
	c2.name = "a\0b";
	c2.name_len = 3;
	ck_assert_int_eq(tb_pq_writer_init(&w, &c2, 1, &cfg, &e), TB_ERR_ARG);
	BAD_COL(name_len, TB_PQ_MAX_NAME + 1, TB_ERR_LIMIT);
	BAD_COL(cap, TB_PQ_MIN_COLUMN_BUF - 1, TB_ERR_ARG);
	BAD_COL(cap, (size_t)TB_PQ_MAX_COLUMN_BUF + 1, TB_ERR_LIMIT);
	BAD_COL(buf, NULL, TB_ERR_ARG);
	BAD_COL(flags, 0x80, TB_ERR_ARG);
	c2 = col;
	c2.kind = TB_PQ_BYTES;
	c2.flags = TB_PQ_SIGNED;
	ck_assert_int_eq(tb_pq_writer_init(&w, &c2, 1, &cfg, &e), TB_ERR_ARG);
	cfg.scratch_cap = tb_pq_scratch_size(sizeof(buf)) - 1;
	ck_assert_int_eq(tb_pq_writer_init(&w, &col, 1, &cfg, &e), TB_ERR_ARG);
	cfg.scratch_cap = sizeof(scratch);
	ck_assert_uint_eq(tb_pq_scratch_size(SIZE_MAX), SIZE_MAX);
	cfg.footer = NULL;
	ck_assert_int_eq(tb_pq_writer_init(&w, &col, 1, &cfg, &e), TB_ERR_ARG);
	cfg.footer = footer;

	/* a good writer, then values that do not fit */
	ck_assert_int_eq(tb_pq_writer_init(&w, &col, 1, &cfg, &e), TB_OK);
	ck_assert_int_eq(tb_pq_write_row(&w, NULL, &e), TB_ERR_ARG);
	ck_assert_int_eq(tb_pq_write_row(NULL, &v, &e), TB_ERR_ARG);
	memset(&v, 0, sizeof(v));
	v.is_null = 1; /* not nullable */
	ck_assert_int_eq(tb_pq_write_row(&w, &v, &e), TB_ERR_VALUE);
	ck_assert_uint_eq(e.offset, 0);
	v.is_null = 0;
	v.i = (uint64_t)1 << 32; /* over 32 bits */
	ck_assert_int_eq(tb_pq_write_row(&w, &v, &e), TB_ERR_VALUE);
	v.i = UINT32_MAX;
	ck_assert_int_eq(tb_pq_write_row(&w, &v, &e), TB_OK);
	ck_assert_int_eq(tb_pq_writer_set_kv(&w, NULL, 1, &e), TB_ERR_ARG);
	memset(kv, 0, sizeof(kv));
	ck_assert_int_eq(tb_pq_writer_set_kv(&w, kv, TB_PQ_MAX_KV + 1, &e), TB_ERR_LIMIT);
	kv[0].key_len = TB_PQ_MAX_NAME + 1;
	kv[0].key = "k";
	ck_assert_int_eq(tb_pq_writer_set_kv(&w, kv, 1, &e), TB_ERR_LIMIT);
	ck_assert_int_eq(tb_pq_flush(NULL, &e), TB_ERR_ARG);
	ck_assert_int_eq(tb_pq_finish(NULL, &e), TB_ERR_ARG);
	ck_assert_int_eq(tb_pq_writer_set_kv(NULL, kv, 0, &e), TB_ERR_ARG);
	ck_assert_int_eq(tb_pq_finish(&w, &e), TB_OK);
	ck_assert_int_eq(tb_pq_write_row(&w, &v, &e), TB_ERR_ARG);
	ck_assert_int_eq(tb_pq_flush(&w, &e), TB_ERR_ARG);
	free(s.p);
}
END_TEST

START_TEST(value_errors)
{
	static uint8_t b1[128], b2[128], b3[128], scratch[1024], footer[4096];
	tb_pq_column cols[3] = {
		{ .name = "s8", .name_len = 2, .kind = TB_PQ_INT, .bits = 8,
		  .flags = TB_PQ_SIGNED, .buf = b1, .cap = sizeof(b1) },
		{ .name = "b", .name_len = 1, .kind = TB_PQ_BYTES, .buf = b2, .cap = sizeof(b2) },
		{ .name = "l", .name_len = 1, .kind = TB_PQ_LIST, .bits = 16, .buf = b3,
		  .cap = sizeof(b3) },
	};
	tb_pq_config cfg = { .write = sink_write, .scratch = scratch,
			     .scratch_cap = sizeof(scratch), .footer = footer,
			     .footer_cap = sizeof(footer) };
	tb_pq_value v[3];
	tb_pq_writer w;
	tb_error e;
	sink s;
	uint8_t big[200] = { 0 };
	sink_init(&s);
	cfg.write_ctx = &s;
	ck_assert_int_eq(tb_pq_writer_init(&w, cols, 3, &cfg, &e), TB_OK);
	memset(v, 0, sizeof(v));
	v[2].elem_size = 2;
	v[0].i = (uint64_t)-128;
	ck_assert_int_eq(tb_pq_write_row(&w, v, &e), TB_OK);
	v[0].i = 127;
	ck_assert_int_eq(tb_pq_write_row(&w, v, &e), TB_OK);
	v[0].i = 128;
	ck_assert_int_eq(tb_pq_write_row(&w, v, &e), TB_ERR_VALUE);
	v[0].i = (uint64_t)-129;
	ck_assert_int_eq(tb_pq_write_row(&w, v, &e), TB_ERR_VALUE);
	v[0].i = 0;
	v[1].n = 3; /* bytes without a pointer */
	ck_assert_int_eq(tb_pq_write_row(&w, v, &e), TB_ERR_VALUE);
	ck_assert_uint_eq(e.offset, 1);
	v[1].p = big;
	v[1].n = sizeof(big); /* larger than the column's buffer */
	ck_assert_int_eq(tb_pq_write_row(&w, v, &e), TB_ERR_LIMIT);
	v[1].n = 0;
	v[2].elem_size = 4; /* wider than the 16-bit elements */
	ck_assert_int_eq(tb_pq_write_row(&w, v, &e), TB_ERR_VALUE);
	ck_assert_uint_eq(e.offset, 2);
	v[2].elem_size = 3;
	ck_assert_int_eq(tb_pq_write_row(&w, v, &e), TB_ERR_VALUE);
	v[2].elem_size = 2;
	v[2].n = 2; /* elements without a pointer */
	ck_assert_int_eq(tb_pq_write_row(&w, v, &e), TB_ERR_VALUE);
	v[2].p = big;
	v[2].n = 100; /* 100 values + 100 levels > 128 */
	ck_assert_int_eq(tb_pq_write_row(&w, v, &e), TB_ERR_LIMIT);
	v[2].n = 130;
	ck_assert_int_eq(tb_pq_write_row(&w, v, &e), TB_ERR_LIMIT);
	v[2].n = 1;
	v[2].is_null = 1; /* not nullable */
	ck_assert_int_eq(tb_pq_write_row(&w, v, &e), TB_ERR_VALUE);
	v[2].is_null = 0;
	/* the rejected rows changed nothing: two rows so far */
	ck_assert_uint_eq(w.rows, 2);
	ck_assert_int_eq(tb_pq_write_row(&w, v, &e), TB_OK);
	ck_assert_int_eq(tb_pq_finish(&w, &e), TB_OK);
	{
		pqr_file f;
		pqr_entry *ent;
		size_t n;
		ck_assert_int_eq(pqr_open(&f, s.p, s.len), 0);
		ck_assert_int_eq(f.num_rows, 3);
		ck_assert_int_eq(pqr_leaf(&f, 0, &ent, &n, NULL, NULL), 0);
		ck_assert_uint_eq(n, 3);
		ck_assert_int_eq(ent[0].i, -128);
		ck_assert_int_eq(ent[1].i, 127);
		free(ent);
		ck_assert_int_eq(pqr_leaf(&f, 2, &ent, &n, NULL, NULL), 0);
		ck_assert_uint_eq(n, 3); /* two empty lists, one list of one */
		ck_assert_int_eq(ent[0].has_value, 0);
		ck_assert_int_eq(ent[2].has_value, 1);
		free(ent);
		pqr_close(&f);
	}
	free(s.p);
}
END_TEST

/* A toy codec for the tests: bytes as (count, byte) runs. */
static tb_status toy_compress(void *ctx, const void *src, size_t n, void *dst, size_t cap,
			      size_t *out)
{
	const uint8_t *p = src;
	uint8_t *d = dst;
	size_t i = 0, o = 0;
	int *mode = ctx;
	if (*mode == 1)
		return TB_ERR_NO_SPACE;
	if (*mode == 2)
		return TB_ERR_VALUE;
	if (*mode == 4)
		return TB_END; /* not an error status: the writer calls it one */
	if (*mode == 3) {
		*out = cap + 1;
		return TB_OK;
	}
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

START_TEST(compressor_callback)
{
	static table t;
	static uint8_t cbuf[4096];
	int mode;
	tb_error e;
	pqr_file f;
	size_t g, c, compressed = 0, plain = 0;
	for (mode = 0; mode < 5; mode++) {
		compressed = 0;
		table_init(&t, COLCAP);
		t.w.cfg.compress = toy_compress;
		t.w.cfg.compress_ctx = &mode;
		t.w.cfg.codec = TB_PQ_ZSTD;
		t.w.cfg.cscratch = cbuf;
		t.w.cfg.cscratch_cap = sizeof(cbuf);
		write_rows(&t, mode >= 2 ? 3 : 60);
		if (mode == 2) {
			ck_assert_int_eq(tb_pq_finish(&t.w, &e), TB_ERR_VALUE);
			ck_assert_str_eq(e.what, "the compressor failed");
			free(t.out.p);
			continue;
		}
		if (mode >= 3) {
			ck_assert_int_eq(tb_pq_finish(&t.w, &e), TB_ERR_ARG);
			ck_assert_str_eq(e.what, mode == 3 ? "the compressor wrote past its buffer"
							   : "the compressor failed");
			free(t.out.p);
			continue;
		}
		ck_assert_int_eq(tb_pq_finish(&t.w, &e), TB_OK);
		verify(t.out.p, t.out.len, 60, toy_decompress);
		ck_assert_int_eq(pqr_open(&f, t.out.p, t.out.len), 0);
		for (g = 0; g < f.ngroups; g++)
			for (c = 0; c < f.groups[g].nchunks; c++) {
				if (f.groups[g].chunks[c].codec == TB_PQ_ZSTD)
					compressed++;
				else
					plain++;
			}
		pqr_close(&f);
		if (mode == 0)
			ck_assert_uint_gt(compressed, 0); /* the toy shrinks some pages */
		else
			ck_assert_uint_eq(compressed, 0); /* NO_SPACE: all stored plain */
		free(t.out.p);
	}
	ck_assert_uint_gt(plain, 0);
	{
		tb_pq_config cfg = t.cfg;
		cfg.compress = toy_compress;
		cfg.cscratch = NULL;
		ck_assert_int_eq(tb_pq_writer_init(&t.w, t.cols, NCOL, &cfg, &e), TB_ERR_ARG);
	}
}
END_TEST

/* ---- dictionaries ---- */

/* A writer of four columns: "name" (DICT, TEXT, nullable, from a few
 * strings), "comm" (DICT, in runs), "id" (an INT between them) and "uniq"
 * (DICT, every value new: the dictionary never pays). */
enum { DCOLS = 4, DCAP = 4096 };

typedef struct dtable {
	tb_pq_column cols[DCOLS];
	uint8_t bufs[DCOLS][DCAP];
	uint8_t scratch[2 * DCAP + 64];
	uint8_t footer[1 << 16];
	uint8_t *dict;
	tb_pq_config cfg;
	tb_pq_writer w;
	sink out;
} dtable;

static const char *const dnames[] = { "sys_enter_read", "sys_exit_read", "",
				      "sched_switch", "caf\xc3\xa9" };
static const char *const dcomms[] = { "bash", "swapper/1", "kworker/u8:3" };

static void dtable_init(dtable *t, uint8_t dict_flag)
{
	static const char *const names[DCOLS] = { "name", "comm", "id", "uniq" };
	size_t i;
	tb_error e;
	uint8_t *dict = t->dict;
	memset(t, 0, sizeof(*t));
	t->dict = dict ? dict : malloc(tb_pq_dict_size(DCAP));
	for (i = 0; i < DCOLS; i++) {
		t->cols[i].name = names[i];
		t->cols[i].name_len = strlen(names[i]);
		t->cols[i].kind = i == 2 ? TB_PQ_INT : TB_PQ_BYTES;
		t->cols[i].bits = i == 2 ? 32 : 0;
		t->cols[i].flags = i == 2 ? 0 : (uint8_t)(TB_PQ_TEXT | dict_flag);
		t->cols[i].buf = t->bufs[i];
		t->cols[i].cap = DCAP;
	}
	t->cols[0].flags |= TB_PQ_NULLABLE;
	sink_init(&t->out);
	t->cfg.write = sink_write;
	t->cfg.write_ctx = &t->out;
	t->cfg.scratch = t->scratch;
	t->cfg.scratch_cap = sizeof(t->scratch);
	t->cfg.dict = t->dict;
	t->cfg.dict_cap = tb_pq_dict_size(DCAP);
	t->cfg.footer = t->footer;
	t->cfg.footer_cap = sizeof(t->footer);
	ck_assert_int_eq(tb_pq_writer_init(&t->w, t->cols, DCOLS, &t->cfg, &e), TB_OK);
}

/* Row r's values (uniq: its own text in u). */
static void drow(size_t r, tb_pq_value *v, char *u)
{
	memset(v, 0, DCOLS * sizeof(*v));
	v[0].is_null = r % 7 == 3;
	v[0].p = dnames[(r * 7 + r / 3) % 5];
	v[0].n = strlen(v[0].p);
	v[1].p = r < 500 ? dcomms[(r / 50) % 3] : dcomms[r % 2]; /* runs, then 0/1 in turn */
	v[1].n = strlen(v[1].p);
	v[2].i = r;
	v[3].n = (size_t)snprintf(u, 24, "u%zu", r * 7919);
	v[3].p = u;
}

static void dwrite(dtable *t, size_t nrows)
{
	size_t r;
	for (r = 0; r < nrows; r++) {
		tb_pq_value v[DCOLS];
		char u[24];
		tb_error e;
		drow(r, v, u);
		ck_assert_int_eq(tb_pq_write_row(&t->w, v, &e), TB_OK);
	}
	ck_assert_int_eq(tb_pq_finish(&t->w, NULL), TB_OK);
}

/* Read the file back: every value as drow() made it; *dict_chunks: the
 * chunks with a dictionary page, per column. */
static void dverify(const uint8_t *data, size_t len, size_t nrows, pqr_decompress_fn dec,
		    size_t dict_chunks[DCOLS])
{
	pqr_file f;
	size_t c, g;
	ck_assert_msg(pqr_open(&f, data, len) == 0, "pqr_open: %s", f.error);
	ck_assert_int_eq(f.num_rows, (int64_t)nrows);
	for (c = 0; c < DCOLS; c++) {
		pqr_entry *ent;
		size_t n, r;
		dict_chunks[c] = 0;
		for (g = 0; g < f.ngroups; g++)
			dict_chunks[c] += f.groups[g].chunks[c].dict_page_offset >= 0;
		ck_assert_int_eq(pqr_leaf(&f, c, &ent, &n, dec, NULL), 0);
		ck_assert_uint_eq(n, nrows);
		for (r = 0; r < nrows; r++) {
			tb_pq_value v[DCOLS];
			char u[24];
			drow(r, v, u);
			ck_assert_int_eq(ent[r].has_value, !v[c].is_null);
			if (v[c].is_null)
				continue;
			if (c == 2) {
				ck_assert_int_eq(ent[r].i, (int64_t)r);
				continue;
			}
			ck_assert_msg(ent[r].n == v[c].n && !memcmp(ent[r].p, v[c].p, v[c].n),
				      "row %zu column %zu", r, c);
		}
		free(ent);
	}
	/* STRING stays: the dictionary holds the values that were checked */
	ck_assert_int_eq(f.schema[f.leaves[0]].logical, 1);
	pqr_close(&f);
}

/* A dtable with the toy codec (its mode in *mode) and cscratch buf. */
static void dtable_compressed(dtable *t, int *mode, uint8_t *buf, size_t cap)
{
	dtable_init(t, TB_PQ_DICT);
	t->w.cfg.compress = toy_compress;
	t->w.cfg.compress_ctx = mode;
	t->w.cfg.codec = TB_PQ_ZSTD;
	t->w.cfg.cscratch = buf;
	t->w.cfg.cscratch_cap = cap;
}

START_TEST(dictionary_round_trips)
{
	static dtable t, plain;
	static uint8_t cbuf[16384];
	size_t dc[DCOLS], pc[DCOLS], groups;
	int mode = 0;
	dtable_init(&plain, 0);
	dwrite(&plain, 1000);
	dverify(plain.out.p, plain.out.len, 1000, NULL, pc);
	ck_assert_uint_eq(pc[0] + pc[1] + pc[3], 0);
	ck_assert_uint_eq(plain.w.dict_chunks, 0);

	dtable_init(&t, TB_PQ_DICT);
	dwrite(&t, 1000);
	dverify(t.out.p, t.out.len, 1000, NULL, dc);
	groups = t.w.groups;
	/* a column's 4 KiB fill up: row groups of 340, 338 and 322 rows */
	ck_assert_uint_eq(groups, 3);
	ck_assert_uint_eq(groups, plain.w.groups);   /* the same row groups */
	/* 5 names and 3 comms: a dictionary in every row group */
	ck_assert_uint_eq(dc[0], 3);
	ck_assert_uint_eq(dc[1], 3);
	ck_assert_uint_eq(dc[2], 0);                 /* not asked */
	ck_assert_uint_eq(dc[3], 0);                 /* all distinct: never pays */
	ck_assert_uint_eq(t.w.dict_chunks, 6);
	ck_assert_uint_lt(t.out.len, plain.out.len * 3 / 4);
	free(t.out.p);

	/* compressed: both pages of a dictionary chunk take the codec */
	dtable_compressed(&t, &mode, cbuf, sizeof(cbuf));
	dwrite(&t, 1000);
	dverify(t.out.p, t.out.len, 1000, toy_decompress, dc);
	ck_assert_uint_eq(dc[0] + dc[1], 6);
	{
		pqr_file f;
		size_t g, zd = 0;
		ck_assert_int_eq(pqr_open(&f, t.out.p, t.out.len), 0);
		for (g = 0; g < f.ngroups; g++)
			zd += f.groups[g].chunks[1].codec == TB_PQ_ZSTD &&
			      f.groups[g].chunks[1].dict_page_offset >= 0;
		/* the row groups where comm alternates (rows 500 on): its
		 * bit-packed indices repeat a byte, which the toy codec
		 * shrinks (its few RLE runs do not) */
		ck_assert_uint_eq(zd, 2);
		pqr_close(&f);
	}
	free(t.out.p);

	/* the compressor out of room: stored plain, still with dictionaries */
	mode = 1;
	dtable_compressed(&t, &mode, cbuf, sizeof(cbuf));
	dwrite(&t, 1000);
	dverify(t.out.p, t.out.len, 1000, NULL, dc);
	ck_assert_uint_eq(dc[0] + dc[1], 6);
	free(t.out.p);
	free(t.dict);
	free(plain.out.p);
	free(plain.dict);
}
END_TEST

/* One TB_PQ_DICT byte column "v" in buf[0..cap), its writer started. */
typedef struct dcol {
	tb_pq_column col;
	tb_pq_config cfg;
	tb_pq_writer w;
	uint8_t footer[4096];
	sink out;
} dcol;

static void dcol_init(dcol *d, uint8_t *buf, size_t cap, uint8_t *scratch, uint8_t *dict)
{
	tb_error e;
	memset(&d->col, 0, sizeof(d->col));
	d->col.name = "v";
	d->col.name_len = 1;
	d->col.kind = TB_PQ_BYTES;
	d->col.flags = TB_PQ_DICT;
	d->col.buf = buf;
	d->col.cap = cap;
	memset(&d->cfg, 0, sizeof(d->cfg));
	sink_init(&d->out);
	d->cfg.write = sink_write;
	d->cfg.write_ctx = &d->out;
	d->cfg.scratch = scratch;
	d->cfg.scratch_cap = tb_pq_scratch_size(cap);
	d->cfg.dict = dict;
	d->cfg.dict_cap = tb_pq_dict_size(cap);
	d->cfg.footer = d->footer;
	d->cfg.footer_cap = sizeof(d->footer);
	ck_assert_int_eq(tb_pq_writer_init(&d->w, &d->col, 1, &d->cfg, &e), TB_OK);
}

/* Dictionaries of k distinct values (indices of every bit width from 1 to
 * 14, runs and bit-packed groups), up to TB_PQ_DICT_MAX; one more value is
 * a plain chunk. */
START_TEST(dictionary_sizes)
{
	static const size_t ks[] = { 1, 2, 3, 255, 256, 257, 4096, TB_PQ_DICT_MAX,
				     TB_PQ_DICT_MAX + 1 };
	const size_t cap = (size_t)1 << 20;
	uint8_t *buf = malloc(cap), *scratch = malloc(tb_pq_scratch_size(cap)),
		*dict = malloc(tb_pq_dict_size(cap));
	size_t t;
	for (t = 0; t < sizeof(ks) / sizeof(ks[0]); t++) {
		size_t k = ks[t], nrows = 2 * k + 40, r;
		static dcol d;
		tb_error e;
		pqr_file f;
		pqr_entry *ent;
		size_t n;
		dcol_init(&d, buf, cap, scratch, dict);
		for (r = 0; r < nrows; r++) {
			char v[32];
			tb_pq_value val;
			/* every value in turn, then a run of 40, then all again */
			size_t x = r < k ? r : r < k + 40 ? k - 1 : r - k - 40;
			memset(&val, 0, sizeof(val));
			val.n = (size_t)snprintf(v, sizeof(v), "value-%zu", x * 2654435761u % 1000003);
			val.p = v;
			ck_assert_int_eq(tb_pq_write_row(&d.w, &val, &e), TB_OK);
		}
		ck_assert_int_eq(tb_pq_finish(&d.w, &e), TB_OK);
		ck_assert_uint_eq(d.w.groups, 1);
		ck_assert_uint_eq(d.w.dict_chunks, k <= TB_PQ_DICT_MAX ? 1 : 0);
		ck_assert_int_eq(pqr_open(&f, d.out.p, d.out.len), 0);
		ck_assert_int_eq(f.groups[0].chunks[0].dict_page_offset >= 0, k <= TB_PQ_DICT_MAX);
		ck_assert_int_eq(pqr_leaf(&f, 0, &ent, &n, NULL, NULL), 0);
		ck_assert_uint_eq(n, nrows);
		for (r = 0; r < nrows; r++) {
			char v[32];
			size_t x = r < k ? r : r < k + 40 ? k - 1 : r - k - 40;
			size_t vn = (size_t)snprintf(v, sizeof(v), "value-%zu",
						     x * 2654435761u % 1000003);
			ck_assert_msg(ent[r].n == vn && !memcmp(ent[r].p, v, vn), "k %zu row %zu", k,
				      r);
		}
		free(ent);
		pqr_close(&f);
		free(d.out.p);
	}
	free(buf);
	free(scratch);
	free(dict);
}
END_TEST

/* The writer's value hash (lib/parquet.c), to craft values that collide. */
static uint32_t writer_hash(const uint8_t *p, size_t n)
{
	const uint64_t k = 0x9e3779b97f4a7c15ull;
	uint64_t h = ((uint64_t)n + 1) * k, w = 0;
	size_t i, b;
	for (i = 0; n - i > 8; i += 8) {
		uint64_t x = 0;
		for (b = 0; b < 8; b++)
			x |= (uint64_t)p[i + b] << (8 * b);
		h = (h ^ x) * k;
		h ^= h >> 29;
	}
	if (n >= 8) {
		for (b = 0; b < 8; b++)
			w |= (uint64_t)p[n - 8 + b] << (8 * b);
	} else if (n >= 4) {
		uint64_t a = 0, c = 0;
		for (b = 0; b < 4; b++) {
			a |= (uint64_t)p[b] << (8 * b);
			c |= (uint64_t)p[n - 4 + b] << (8 * b);
		}
		w = a << 32 | c;
	} else if (n) {
		w = (uint64_t)p[0] << 16 | (uint64_t)p[n / 2] << 8 | p[n - 1];
	}
	h = (h ^ w) * k;
	return (uint32_t)(h >> 32) ^ (uint32_t)h;
}

/* 100 distinct values, each 3 times (300 rows: a table of 1024 slots).
 * Ordinary ones get a dictionary; ones crafted to fall on one slot (what
 * a hostile capture's strings could do) go out PLAIN, and the writer does
 * not spend time quadratic in the values on them. */
START_TEST(dictionary_crafted_collisions)
{
	static char vals[100][16];
	int crafted;
	for (crafted = 0; crafted < 2; crafted++) {
		static uint8_t buf[8192], scratch[2 * 8192 + 64];
		static dcol d;
		uint8_t *dict = malloc(tb_pq_dict_size(sizeof(buf)));
		tb_error e;
		pqr_file f;
		pqr_entry *ent;
		size_t n, r, v;
		uint32_t next = 0;
		for (v = 0; v < 100; v++) {
			/* crafted: the next name whose hash is 0 mod 1024 */
			do
				snprintf(vals[v], sizeof(vals[v]), "c%08u", next++);
			while (crafted && (writer_hash((const uint8_t *)vals[v], 9) & 1023) != 0);
		}
		dcol_init(&d, buf, sizeof(buf), scratch, dict);
		for (r = 0; r < 300; r++) {
			tb_pq_value val;
			memset(&val, 0, sizeof(val));
			val.p = vals[(r * 37) % 100];
			val.n = 9;
			ck_assert_int_eq(tb_pq_write_row(&d.w, &val, &e), TB_OK);
		}
		ck_assert_int_eq(tb_pq_finish(&d.w, &e), TB_OK);
		ck_assert_uint_eq(d.w.groups, 1);
		ck_assert_uint_eq(d.w.dict_chunks, (crafted ? 0u : 1u));
		ck_assert_int_eq(pqr_open(&f, d.out.p, d.out.len), 0);
		ck_assert_int_eq(pqr_leaf(&f, 0, &ent, &n, NULL, NULL), 0);
		ck_assert_uint_eq(n, 300);
		for (r = 0; r < 300; r++)
			ck_assert(ent[r].n == 9 && !memcmp(ent[r].p, vals[(r * 37) % 100], 9));
		free(ent);
		pqr_close(&f);
		free(d.out.p);
		free(dict);
	}
}
END_TEST

START_TEST(dictionary_arguments)
{
	static dtable t;
	tb_pq_config cfg;
	tb_error e;
	static uint8_t big[2 * DCAP];
	dtable_init(&t, TB_PQ_DICT);
	cfg = t.cfg;
	/* a DICT column needs the dict memory, all of it */
	cfg.dict = NULL;
	ck_assert_int_eq(tb_pq_writer_init(&t.w, t.cols, DCOLS, &cfg, &e), TB_ERR_ARG);
	ck_assert_str_eq(e.what, "dict smaller than tb_pq_dict_size()");
	cfg.dict = t.dict;
	cfg.dict_cap = tb_pq_dict_size(DCAP) - 1;
	ck_assert_int_eq(tb_pq_writer_init(&t.w, t.cols, DCOLS, &cfg, &e), TB_ERR_ARG);
	/* without DICT columns it is not needed */
	t.cols[0].flags = t.cols[1].flags = t.cols[3].flags = 0;
	ck_assert_int_eq(tb_pq_writer_init(&t.w, t.cols, DCOLS, &cfg, &e), TB_OK);
	/* only BYTES columns take DICT */
	t.cols[2].flags = TB_PQ_DICT;
	ck_assert_int_eq(tb_pq_writer_init(&t.w, t.cols, DCOLS, &t.cfg, &e), TB_ERR_ARG);
	ck_assert_uint_eq(e.offset, 2);
	/* a DICT column cannot grow past the dict memory */
	free(t.out.p);
	dtable_init(&t, TB_PQ_DICT);
	t.w.cfg.scratch_cap = tb_pq_scratch_size(sizeof(big));
	ck_assert_int_eq(tb_pq_column_resize(&t.w, 1, big, sizeof(big), &e), TB_ERR_ARG);
	ck_assert_int_eq(tb_pq_column_resize(&t.w, 2, big, sizeof(big), &e), TB_OK);
	ck_assert_uint_eq(tb_pq_dict_size(SIZE_MAX), (2 * 16384 + 16384) * 4 + (SIZE_MAX / 4 + 1) * 2);
	ck_assert_uint_eq(tb_pq_dict_size(4096), (2 * 16384 + 16384) * 4 + 1025 * 2);
	free(t.out.p);
	free(t.dict);
}
END_TEST

START_TEST(utf8_rule)
{
	static const struct { const char *s; size_t n; int ok; } v[] = {
		{ "", 0, 1 }, { "abc", 3, 1 }, { "a\0b", 3, 1 },
		{ "\xc3\xa9", 2, 1 }, { "\xe2\x82\xac", 3, 1 }, { "\xf0\x9f\x98\x80", 4, 1 },
		{ "\xf4\x8f\xbf\xbf", 4, 1 }, { "\xed\x9f\xbf", 3, 1 },
		{ "\xc0\x80", 2, 0 },         /* overlong NUL */
		{ "\xc1\xbf", 2, 0 },         /* overlong */
		{ "\xe0\x80\x80", 3, 0 },     /* overlong */
		{ "\xf0\x80\x80\x80", 4, 0 }, /* overlong */
		{ "\xed\xa0\x80", 3, 0 },     /* surrogate */
		{ "\xf4\x90\x80\x80", 4, 0 }, /* past U+10FFFF */
		{ "\xf5\x80\x80\x80", 4, 0 }, { "\xff", 1, 0 }, { "\x80", 1, 0 },
		{ "\xc3", 1, 0 }, { "\xe2\x82", 2, 0 }, { "\xc3\x28", 2, 0 },
	};
	size_t i, at, n;
	char buf[40];
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		ck_assert_msg(tb_pq_utf8_valid(v[i].s, v[i].n) == v[i].ok, "case %zu", i);
	/* one bad byte or one good two-byte sequence at every place of an
	 * ASCII run (which is read 8 bytes at a time), every length */
	for (n = 1; n <= 33; n++)
		for (at = 0; at < n; at++) {
			memset(buf, 'a', sizeof(buf));
			ck_assert(tb_pq_utf8_valid(buf, n));
			buf[at] = (char)0xff;
			ck_assert_msg(!tb_pq_utf8_valid(buf, n), "0xff at %zu of %zu", at, n);
			buf[at] = (char)0x80;
			ck_assert_msg(!tb_pq_utf8_valid(buf, n), "0x80 at %zu of %zu", at, n);
			if (at + 1 < n) {
				buf[at] = (char)0xc3;
				buf[at + 1] = (char)0xa9;
				ck_assert_msg(tb_pq_utf8_valid(buf, n), "c3 a9 at %zu of %zu", at, n);
			}
		}
}
END_TEST

/* Every integer width, signed and not, at the edges of its range (the
 * writer keeps each column's range from init). */
START_TEST(int_ranges_every_width)
{
	static const uint8_t widths[] = { 8, 16, 32, 64 };
	static uint8_t b[128], scratch[1024], footer[4096];
	size_t k, sg;
	for (k = 0; k < 4; k++)
		for (sg = 0; sg < 2; sg++) {
			unsigned bits = widths[k];
			tb_pq_column col = { .name = "x", .name_len = 1, .kind = TB_PQ_INT,
					     .bits = (uint8_t)bits,
					     .flags = sg ? TB_PQ_SIGNED : 0, .buf = b,
					     .cap = sizeof(b) };
			tb_pq_config cfg = { .write = sink_write, .scratch = scratch,
					     .scratch_cap = sizeof(scratch), .footer = footer,
					     .footer_cap = sizeof(footer) };
			uint64_t top = bits == 64 ? UINT64_MAX : ((uint64_t)1 << bits) - 1;
			uint64_t half = (uint64_t)1 << (bits - 1);
			tb_pq_value v;
			tb_pq_writer w;
			tb_error e;
			sink s;
			sink_init(&s);
			cfg.write_ctx = &s;
			ck_assert_int_eq(tb_pq_writer_init(&w, &col, 1, &cfg, &e), TB_OK);
			memset(&v, 0, sizeof(v));
			v.i = 0;
			ck_assert_int_eq(tb_pq_write_row(&w, &v, &e), TB_OK);
			if (!sg) {
				v.i = top;
				ck_assert_int_eq(tb_pq_write_row(&w, &v, &e), TB_OK);
				if (bits < 64) {
					v.i = top + 1;
					ck_assert_int_eq(tb_pq_write_row(&w, &v, &e), TB_ERR_VALUE);
					v.i = UINT64_MAX; /* -1 is not unsigned */
					ck_assert_int_eq(tb_pq_write_row(&w, &v, &e), TB_ERR_VALUE);
				}
			} else {
				v.i = half - 1;
				ck_assert_int_eq(tb_pq_write_row(&w, &v, &e), TB_OK);
				v.i = (uint64_t)0 - half;
				ck_assert_int_eq(tb_pq_write_row(&w, &v, &e), TB_OK);
				v.i = UINT64_MAX;
				ck_assert_int_eq(tb_pq_write_row(&w, &v, &e), TB_OK);
				if (bits < 64) {
					v.i = half;
					ck_assert_int_eq(tb_pq_write_row(&w, &v, &e), TB_ERR_VALUE);
					v.i = (uint64_t)0 - half - 1;
					ck_assert_int_eq(tb_pq_write_row(&w, &v, &e), TB_ERR_VALUE);
				}
			}
			ck_assert_uint_eq(col.values, sg ? 4 : 2);
			ck_assert_int_eq(tb_pq_finish(&w, &e), TB_OK);
			free(s.p);
		}
}
END_TEST

START_TEST(metadata_and_empty_file)
{
	static uint8_t buf[256], scratch[1024], footer[1024];
	tb_pq_column col = { .name = "name", .name_len = 4, .kind = TB_PQ_BYTES,
			     .flags = TB_PQ_TEXT, .buf = buf, .cap = sizeof(buf) };
	tb_pq_config cfg = { .write = sink_write, .scratch = scratch,
			     .scratch_cap = sizeof(scratch), .footer = footer,
			     .footer_cap = sizeof(footer), .created_by = "test writer" };
	tb_pq_kv kv[2] = { { "source", 6, "x.dat", 5 }, { "clock", 5, "local", 5 } };
	tb_pq_writer w;
	tb_error e;
	sink s;
	pqr_file f;
	sink_init(&s);
	cfg.write_ctx = &s;
	ck_assert_int_eq(tb_pq_writer_init(&w, &col, 1, &cfg, &e), TB_OK);
	ck_assert_int_eq(tb_pq_writer_set_kv(&w, kv, 2, &e), TB_OK);
	ck_assert_int_eq(tb_pq_flush(&w, &e), TB_OK); /* nothing to flush */
	ck_assert_int_eq(tb_pq_finish(&w, &e), TB_OK);
	ck_assert_int_eq(pqr_open(&f, s.p, s.len), 0);
	ck_assert_int_eq(f.num_rows, 0);
	ck_assert_uint_eq(f.ngroups, 0);
	ck_assert_uint_eq(f.nkv, 2);
	ck_assert_str_eq(f.kv[0].key, "source");
	ck_assert_str_eq(f.kv[0].value, "x.dat");
	ck_assert_str_eq(f.kv[1].value, "local");
	ck_assert_str_eq(f.created_by, "test writer");
	ck_assert_int_eq(f.version, 1);
	pqr_close(&f);
	free(s.p);

	/* no columns at all, the default created_by */
	sink_init(&s);
	cfg.write_ctx = &s;
	cfg.created_by = NULL;
	ck_assert_int_eq(tb_pq_writer_init(&w, NULL, 0, &cfg, &e), TB_OK);
	ck_assert_int_eq(tb_pq_write_row(&w, NULL, &e), TB_OK);
	ck_assert_int_eq(tb_pq_finish(&w, &e), TB_OK);
	ck_assert_int_eq(pqr_open(&f, s.p, s.len), 0);
	ck_assert_int_eq(f.num_rows, 1);
	ck_assert_str_eq(f.created_by, "tracebound version " TB_VERSION_STRING);
	pqr_close(&f);
	free(s.p);
}
END_TEST

/* A long name and many columns: the footer staging and the bound hold. */
START_TEST(long_names_many_columns)
{
	enum { N = 300 };
	static tb_pq_column cols[N];
	static uint8_t bufs[N][64], scratch[256], footer[1 << 20];
	static char names[N][TB_PQ_MAX_NAME];
	static tb_pq_value v[N];
	tb_pq_config cfg = { .write = sink_write, .scratch = scratch,
			     .scratch_cap = sizeof(scratch), .footer = footer,
			     .footer_cap = sizeof(footer) };
	tb_pq_writer w;
	tb_error e;
	sink s;
	pqr_file f;
	size_t i, r;
	sink_init(&s);
	cfg.write_ctx = &s;
	for (i = 0; i < N; i++) {
		size_t len = i == 0 ? TB_PQ_MAX_NAME : 1 + i % 40;
		memset(names[i], 'a' + (int)(i % 26), len);
		snprintf(names[i], 8, "c%zu", i);
		names[i][strlen(names[i])] = i % 3 ? 'x' : 'y';
		cols[i] = (tb_pq_column){ .name = names[i], .name_len = len,
					  .kind = i % 2 ? TB_PQ_LIST : TB_PQ_INT, .bits = 64,
					  .buf = bufs[i], .cap = 64 };
	}
	ck_assert_int_eq(tb_pq_writer_init(&w, cols, N, &cfg, &e), TB_OK);
	for (r = 0; r < 20; r++) {
		for (i = 0; i < N; i++)
			v[i] = (tb_pq_value){ .i = r * i, .elem_size = 8 };
		ck_assert_int_eq(tb_pq_write_row(&w, v, &e), TB_OK);
	}
	ck_assert_int_eq(tb_pq_finish(&w, &e), TB_OK);
	ck_assert_int_eq(pqr_open(&f, s.p, s.len), 0);
	ck_assert_uint_eq(f.nleaves, N);
	ck_assert_uint_eq(f.schema[1].name_len, TB_PQ_MAX_NAME);
	ck_assert_int_eq(f.num_rows, 20);
	ck_assert_uint_gt(f.ngroups, 2);
	pqr_close(&f);
	free(s.p);
}
END_TEST

/* A column moves to a larger buffer mid row group (its values and
 * levels along), and the file is the same as with the large one from
 * the start; the errors of a bad move. */
START_TEST(column_resize)
{
	static table a, b;
	static uint8_t big[NCOL][COLCAP];
	size_t r, c;
	tb_error e;
	table_init(&a, COLCAP);
	a.w.cfg.max_group_rows = 1000;
	write_rows(&a, 30);
	ck_assert_int_eq(tb_pq_finish(&a.w, &e), TB_OK);

	table_init(&b, 200); /* starts small: row groups of a few rows */
	b.w.cfg.max_group_rows = 1000;
	for (r = 0; r < 30; r++) {
		tb_pq_value v[NCOL];
		static expect keep[NCOL];
		for (c = 0; c < NCOL; c++) {
			expected(r, c, &keep[c], &v[c]);
			if (v[c].p)
				v[c].p = kinds[c].kind == TB_PQ_LIST ? (const void *)keep[c].raw
								     : (const void *)keep[c].bytes;
		}
		ck_assert_int_eq(tb_pq_write_row(&b.w, v, &e), TB_OK);
		if (r == 1) /* two rows in: move every column to its large buffer */
			for (c = 0; c < NCOL; c++)
				ck_assert_int_eq(tb_pq_column_resize(&b.w, c, big[c], COLCAP, &e),
						 TB_OK);
	}
	ck_assert_int_eq(tb_pq_finish(&b.w, &e), TB_OK);
	ck_assert_uint_eq(b.w.groups, a.w.groups);
	verify(b.out.p, b.out.len, 30, NULL);
	ck_assert_uint_eq(a.out.len, b.out.len);
	ck_assert(!memcmp(a.out.p, b.out.p, a.out.len));
	free(a.out.p);
	free(b.out.p);

	table_init(&b, 200);
	write_rows(&b, 3);
	ck_assert_int_eq(tb_pq_column_resize(NULL, 0, big[0], COLCAP, &e), TB_ERR_ARG);
	ck_assert_int_eq(tb_pq_column_resize(&b.w, NCOL, big[0], COLCAP, &e), TB_ERR_ARG);
	ck_assert_int_eq(tb_pq_column_resize(&b.w, 0, NULL, COLCAP, &e), TB_ERR_ARG);
	ck_assert_int_eq(tb_pq_column_resize(&b.w, 0, b.bufs[0], 200, &e), TB_ERR_ARG);
	ck_assert_int_eq(tb_pq_column_resize(&b.w, 0, big[0], TB_PQ_MIN_COLUMN_BUF - 1, &e),
			 TB_ERR_ARG);
	ck_assert_int_eq(tb_pq_column_resize(&b.w, 0, big[0], (size_t)TB_PQ_MAX_COLUMN_BUF + 1, &e),
			 TB_ERR_LIMIT);
	ck_assert_int_eq(tb_pq_column_resize(&b.w, 0, big[0], COLCAP * 4, &e), TB_ERR_ARG);
	/* what the column holds does not fit the smaller buffer */
	ck_assert_int_eq(tb_pq_column_resize(&b.w, 12, big[12], 64, &e), TB_ERR_ARG);
	ck_assert_int_eq(tb_pq_finish(&b.w, &e), TB_OK);
	verify(b.out.p, b.out.len, 3, NULL);
	free(b.out.p);
}
END_TEST

/* Every proper prefix of a good file, and every single-byte change in its
 * footer, is handled by the test reader without a crash (ASan checks). */
START_TEST(reader_survives_damage)
{
	static table t;
	tb_error e;
	size_t cut, flen;
	table_init(&t, 256);
	write_rows(&t, 25);
	ck_assert_int_eq(tb_pq_finish(&t.w, &e), TB_OK);
	for (cut = 0; cut < t.out.len; cut++) {
		pqr_file f;
		uint8_t *p = tb_test_dup(t.out.p, cut);
		ck_assert_int_ne(pqr_open(&f, p, cut), 0);
		pqr_close(&f);
		free(p);
	}
	flen = (size_t)t.out.p[t.out.len - 8] | (size_t)t.out.p[t.out.len - 7] << 8;
	for (cut = t.out.len - 8 - flen; cut < t.out.len - 8; cut++) {
		pqr_file f;
		uint8_t *p = tb_test_dup(t.out.p, t.out.len);
		size_t c;
		p[cut] ^= 0x5a;
		if (pqr_open(&f, p, t.out.len) == 0)
			for (c = 0; c < f.nleaves; c++) {
				pqr_entry *ent;
				size_t n;
				if (pqr_leaf(&f, c, &ent, &n, NULL, NULL) == 0)
					free(ent);
			}
		pqr_close(&f);
		free(p);
	}
	free(t.out.p);
}
END_TEST


/* ---- the converter (tracebound convert --to parquet) ---- */

/* A whole file read with the test reader (malloc'd bytes kept in *buf). */
static int open_table(const char *path, pqr_file *f, uint8_t **buf)
{
	size_t len;
	*buf = tb_test_read_file(path, &len);
	if (!*buf)
		return -1;
	return pqr_open(f, *buf, len);
}

/* zstd pages through the tests' dlopen'd libzstd (when it is there). */
static int zstd_pages(void *ctx, int codec, const uint8_t *src, size_t n, size_t un,
		      uint8_t **out)
{
	uint8_t *d = malloc(un + 1);
	size_t got = 0;
	(void)ctx;
	if (!d || codec != TB_PQ_ZSTD ||
	    tb_test_zstd(NULL, "zstd", src, n, d, un, &got) != TB_OK || got != un) {
		free(d);
		return -1;
	}
	*out = d;
	return 0;
}

/* The leaf called name (flat columns), or -1. */
static int leaf_named(const pqr_file *f, const char *name)
{
	size_t i;
	for (i = 0; i < f->nleaves; i++)
		if (!strcmp(f->schema[f->leaves[i]].name, name))
			return (int)i;
	return -1;
}

static char *slurp_text(const char *path)
{
	size_t len;
	uint8_t *p = tb_test_read_file(path, &len), *t;
	if (!p)
		return NULL;
	t = realloc(p, len + 1);
	t[len] = 0;
	return (char *)t;
}

/* The dataset root's one partition, ROOT/trace_id=<id>, into out: it
 * holds one upload and nothing else (no staging directory left). */
static void one_part(const char *root, char *out, size_t cap)
{
	DIR *d = opendir(root);
	struct dirent *e;
	int n = 0;
	ck_assert_msg(d != NULL, "%s", root);
	while ((e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			ck_assert_msg(!strncmp(e->d_name, "trace_id=", 9), "%s/%s", root, e->d_name);
			ck_assert_int_lt(snprintf(out, cap, "%s/%s", root, e->d_name), (int)cap);
			n++;
		}
	closedir(d);
	ck_assert_int_eq(n, 1);
}

/* rm -rf tmp */
static void remove_tmp(const char *tmp)
{
	char cmd[600];
	tb_test_run r;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmp);
	tb_test_sh(cmd, &r);
	tb_test_run_free(&r);
}

/* The bundled real capture: every table, counts as `tracebound stats`
 * gives them, the columns typed, values as the capture holds them. */
START_TEST(cli_converts_real_capture)
{
	char tmp[] = "/tmp/tb-parquet-XXXXXX", args[1100], path[512];
	tb_test_run r;
	pqr_file f;
	uint8_t *buf;
	char *meta;
	int c;
	ck_assert_ptr_nonnull(mkdtemp(tmp));
	snprintf(args, sizeof(args), "convert --to parquet %s/out %s", tmp,
		 tb_test_path("tests/data/sched4k.v7zstd.dat"));
	tb_test_cli(args, &r);
	ck_assert_msg(r.status == 0, "status %d: %s", r.status, r.err);
	tb_test_run_free(&r);

	/* the partition is named by the file's SHA-256 (sha256sum's first 32 digits) */
	snprintf(path, sizeof(path), "%s/out/trace_id=e7c00a411ebe55f87989ea0080cd6da5/events.parquet", tmp);
	ck_assert_int_eq(open_table(path, &f, &buf), 0);
	ck_assert_int_eq(f.num_rows, 63844);
	/* the library's columns (include/tracebound/rows.h) */
	ck_assert_int_eq(leaf_named(&f, "__buffer"), 4);
	ck_assert_int_eq(leaf_named(&f, "__subbuf"), 5);
	ck_assert_int_eq(leaf_named(&f, "__system"), 7);
	ck_assert_int_eq(leaf_named(&f, "__id"), 9);
	ck_assert_str_eq(f.kv[0].key, "tracebound.source");
	/* the repeated strings are dictionaries in every row group */
	ck_assert_uint_gt(f.ngroups, 3);
	for (c = 0; c < (int)f.ngroups; c++) {
		const pqr_chunk *k = f.groups[c].chunks;
		ck_assert(k[3].dict_page_offset > 0 && k[4].dict_page_offset > 0 &&
			  k[7].dict_page_offset > 0 && k[8].dict_page_offset > 0);
		ck_assert(k[0].dict_page_offset < 0 && k[9].dict_page_offset < 0);
	}
	pqr_close(&f);
	free(buf);

	snprintf(path, sizeof(path), "%s/out/trace_id=e7c00a411ebe55f87989ea0080cd6da5/sched-sched_switch.parquet", tmp);
	ck_assert_int_eq(open_table(path, &f, &buf), 0);
	ck_assert_int_eq(f.num_rows, 968); /* tracebound stats: 968 sched:sched_switch */
	ck_assert_uint_eq(f.nleaves, 7 + 11);
	{
		static const struct { const char *name; int type, bits, sig, logical; } want[] = {
			{ "__ts", 2, 64, 0, 10 }, { "__cpu", 1, 32, 0, 10 },
			{ "__pid", 1, 32, 1, 10 }, { "__comm", 6, 0, 0, 1 },
			{ "__buffer", 6, 0, 0, 1 }, { "__subbuf", 2, 64, 0, 10 },
			{ "__offset", 1, 32, 0, 10 }, { "common_type", 1, 16, 0, 10 },
			{ "common_flags", 1, 8, 0, 10 }, { "common_pid", 1, 32, 1, 10 },
			{ "prev_comm", 6, 0, 0, 1 }, { "prev_state", 2, 64, 1, 10 },
			{ "next_pid", 1, 32, 1, 10 },
		};
		size_t i;
		for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
			const pqr_schema *sc;
			c = leaf_named(&f, want[i].name);
			ck_assert_msg(c >= 0, "no column %s", want[i].name);
			sc = &f.schema[f.leaves[c]];
			ck_assert_int_eq(sc->type, want[i].type);
			ck_assert_int_eq(sc->logical, want[i].logical);
			if (want[i].bits) {
				ck_assert_int_eq(sc->int_bits, want[i].bits);
				ck_assert_int_eq(sc->int_signed, want[i].sig);
			}
		}
	}
	/* the first two sched_switch records (as report and DuckDB show them) */
	if (tb_test_have_zstd()) {
		pqr_entry *ent;
		size_t n;
		ck_assert_int_eq(pqr_leaf(&f, 0, &ent, &n, zstd_pages, NULL), 0);
		ck_assert_uint_eq(n, 968);
		ck_assert_int_eq(ent[0].i, 192833687092);
		ck_assert_int_eq(ent[1].i, 192835680212);
		free(ent);
		c = leaf_named(&f, "prev_comm");
		ck_assert_int_eq(pqr_leaf(&f, (size_t)c, &ent, &n, zstd_pages, NULL), 0);
		ck_assert_uint_eq(ent[0].n, 15);
		ck_assert(!memcmp(ent[0].p, "memfd:sealed-91", 15));
		ck_assert(!memcmp(ent[1].p, "bash", 4));
		free(ent);
		c = leaf_named(&f, "next_comm");
		ck_assert_int_eq(pqr_leaf(&f, (size_t)c, &ent, &n, zstd_pages, NULL), 0);
		ck_assert(ent[0].n == 9 && !memcmp(ent[0].p, "swapper/1", 9));
		free(ent);
	}
	pqr_close(&f);
	free(buf);

	snprintf(path, sizeof(path), "%s/out/trace_id=e7c00a411ebe55f87989ea0080cd6da5/metadata.json", tmp);
	meta = slurp_text(path);
	ck_assert_ptr_nonnull(meta);
	ck_assert_ptr_nonnull(strstr(meta, "\"events\":63844,"));
	ck_assert_ptr_nonnull(strstr(meta, "{\"cpu\":0,\"events\":39537,\"pages\":354,\"dropped\":2746,"));
	ck_assert_ptr_nonnull(strstr(meta, "\"uname\":\"Linux vm 6.18.44-fc-v769 x86_64\""));
	ck_assert_ptr_nonnull(strstr(meta, "\"file\":\"sched-sched_switch.parquet\",\"buffer\":0,"
					   "\"system\":\"sched\",\"name\":\"sched_switch\",\"id\":372,"
					   "\"rows\":968"));
	free(meta);
	remove_tmp(tmp);
}
END_TEST

/* --text: the events table carries each record rendered by its print fmt. */
START_TEST(cli_text_column)
{
	char tmp[] = "/tmp/tb-parquet-XXXXXX", args[1100], path[512];
	tb_test_run r;
	pqr_file f;
	uint8_t *buf;
	int c;
	ck_assert_ptr_nonnull(mkdtemp(tmp));
	snprintf(args, sizeof(args), "convert --to parquet --text %s/out %s", tmp,
		 tb_test_path("tests/data/sched4k.v7zstd.dat"));
	tb_test_cli(args, &r);
	ck_assert_msg(r.status == 0, "status %d: %s", r.status, r.err);
	tb_test_run_free(&r);
	snprintf(path, sizeof(path), "%s/out/trace_id=e7c00a411ebe55f87989ea0080cd6da5/events.parquet", tmp);
	ck_assert_int_eq(open_table(path, &f, &buf), 0);
	c = leaf_named(&f, "__text");
	ck_assert_int_eq(c, 10);
	ck_assert_int_eq(f.schema[f.leaves[c]].logical, 1);
	if (tb_test_have_zstd()) {
		pqr_entry *ent;
		size_t n;
		static const char first[] = "fd: 0x00000005, statbuf: 0x7fff89a3be00";
		ck_assert_int_eq(pqr_leaf(&f, (size_t)c, &ent, &n, zstd_pages, NULL), 0);
		ck_assert_uint_eq(n, 63844);
		ck_assert_uint_eq(ent[0].n, sizeof(first) - 1);
		ck_assert(!memcmp(ent[0].p, first, sizeof(first) - 1));
		ck_assert(ent[1].n == 3 && !memcmp(ent[1].p, "0x0", 3));
		free(ent);
	}
	pqr_close(&f);
	free(buf);
	remove_tmp(tmp);
}
END_TEST

#define COMMON_FIELDS                                                            \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"   \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"   \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

/* One record: common fields (type, pid), then `rest`. */
static void put_record(tbt_pw *w, uint16_t type, int32_t pid, const void *rest, size_t n)
{
	uint8_t rec[64] = { 0 };
	rec[0] = (uint8_t)type;
	rec[1] = (uint8_t)(type >> 8);
	memcpy(rec + 4, &pid, 4);
	memcpy(rec + 8, rest, n);
	tbt_pw_data(w, 10, rec, 8 + n, 0);
}

/*
 * A capture with each documented outcome: an event format whose field
 * name repeats (rejected by the parser: its events are in events.parquet
 * only), records of an id without a format (the same), a field called
 * like a leading column (renamed pid_2), a char array that is not UTF-8
 * once (the column becomes plain BYTE_ARRAY), an instance buffer (its
 * tables under buffer-NAME/).  short_record: also a demo:thing record cut
 * after its `big` field, so its other fields do not read.
 */
static size_t craft_capture_with(uint8_t *out, size_t cap, int short_record,
				 const char *cmdlines)
{
	static uint8_t page[4096];
	dw_spec s;
	tbt_pw w;
	uint8_t rest[40];
	uint64_t big = UINT64_MAX - 1;
	int16_t vals[3] = { -1, 2, -300 };
	int i;
	dw_default(&s, 7);
	s.ftrace_format = "name: twice\nID: 7\nformat:\n" COMMON_FIELDS
			  "\tfield:int x;\toffset:8;\tsize:4;\tsigned:1;\n"
			  "\tfield:int x;\toffset:12;\tsize:4;\tsigned:1;\n\nprint fmt: \"\"\n";
	s.system = "demo";
	s.event_format = "name: thing\nID: 300\nformat:\n" COMMON_FIELDS
			 "\tfield:u64 big;\toffset:8;\tsize:8;\tsigned:0;\n"
			 "\tfield:char name[8];\toffset:16;\tsize:8;\tsigned:0;\n"
			 "\tfield:int pid;\toffset:24;\tsize:4;\tsigned:1;\n"
			 "\tfield:s16 vals[3];\toffset:28;\tsize:6;\tsigned:1;\n\n"
			 "print fmt: \"\"\n";
	tbt_pw_init(&w, page, sizeof(page), 0, 8, 1000);
	for (i = 0; i < 3; i++) {
		int32_t p = 100 + i;
		memset(rest, 0, sizeof(rest));
		memcpy(rest, &big, 8);
		memcpy(rest + 8, i == 1 ? "\xff\xfe" : "ok", 2);
		memcpy(rest + 16, &p, 4);
		memcpy(rest + 20, vals, 6);
		put_record(&w, 300, 42, rest, 26);
	}
	if (short_record)
		put_record(&w, 300, 43, rest, 8);
	memset(rest, 0, sizeof(rest));
	put_record(&w, 7, 1, rest, 8);   /* the rejected format */
	put_record(&w, 999, 1, rest, 4); /* no format at all */
	tbt_pw_finish(&w, 0, 0, 0);
	s.ncpus = 1;
	s.cpu_data[0] = page;
	s.cpu_size[0] = sizeof(page);
	s.instance = "inst";
	s.cmdlines = cmdlines;
	return dw_write(&s, out, cap, NULL);
}

static size_t craft_capture(uint8_t *out, size_t cap)
{
	return craft_capture_with(out, cap, 0, NULL);
}

START_TEST(cli_documented_outcomes)
{
	static uint8_t file[1 << 16];
	char tmp[] = "/tmp/tb-parquet-XXXXXX", args[1100], path[512], part[256];
	size_t n = craft_capture(file, sizeof(file));
	tb_test_run r;
	pqr_file f;
	uint8_t *buf;
	char *meta;
	FILE *fp;
	ck_assert_uint_gt(n, 0);
	ck_assert_ptr_nonnull(mkdtemp(tmp));
	snprintf(path, sizeof(path), "%s/crafted.dat", tmp);
	fp = fopen(path, "wb");
	ck_assert_ptr_nonnull(fp);
	ck_assert_uint_eq(fwrite(file, 1, n, fp), n);
	ck_assert_int_eq(fclose(fp), 0);
	snprintf(args, sizeof(args), "convert --to parquet %s/out %s", tmp, path);
	tb_test_cli(args, &r);
	/* a rejected format is malformed input: status 1, everything written */
	ck_assert_msg(r.status == 1, "status %d: %s", r.status, r.err);
	ck_assert_ptr_nonnull(strstr(r.err, "field"));
	tb_test_run_free(&r);

	snprintf(path, sizeof(path), "%s/out", tmp);
	one_part(path, part, sizeof(part));
	snprintf(path, sizeof(path), "%s/events.parquet", part);
	ck_assert_int_eq(open_table(path, &f, &buf), 0);
	ck_assert_int_eq(f.num_rows, 10); /* 5 records in each of two buffers */
	{
		pqr_entry *ent;
		size_t k, nn, nulls = 0;
		int c = leaf_named(&f, "__name");
		ck_assert_int_ge(c, 0);
		ck_assert_int_eq(pqr_leaf(&f, (size_t)c, &ent, &nn, zstd_pages, NULL), 0);
		for (k = 0; k < nn; k++)
			nulls += !ent[k].has_value;
		ck_assert_uint_eq(nulls, 4); /* ids 7 and 999, twice */
		free(ent);
		/* the events without a format keep their id */
		c = leaf_named(&f, "__id");
		ck_assert_int_eq(pqr_leaf(&f, (size_t)c, &ent, &nn, zstd_pages, NULL), 0);
		ck_assert_uint_eq(nn, 10);
		{
			size_t n7 = 0, n999 = 0, n300 = 0;
			for (k = 0; k < nn; k++) {
				ck_assert(ent[k].has_value);
				n7 += ent[k].i == 7;
				n999 += ent[k].i == 999;
				n300 += ent[k].i == 300;
			}
			ck_assert_uint_eq(n7, 2);
			ck_assert_uint_eq(n999, 2);
			ck_assert_uint_eq(n300, 6);
		}
		free(ent);
		c = leaf_named(&f, "__buffer");
		ck_assert_int_eq(pqr_leaf(&f, (size_t)c, &ent, &nn, zstd_pages, NULL), 0);
		ck_assert_uint_eq(ent[0].n, 0);
		ck_assert_uint_eq(ent[9].n, 4);
		ck_assert(!memcmp(ent[9].p, "inst", 4));
		free(ent);
	}
	pqr_close(&f);
	free(buf);

	snprintf(path, sizeof(path), "%s/demo-thing.parquet", part);
	ck_assert_int_eq(open_table(path, &f, &buf), 0);
	ck_assert_int_eq(f.num_rows, 3);
	/* the field pid keeps its name beside the session's __pid */
	ck_assert_int_eq(leaf_named(&f, "__pid"), 2);
	ck_assert_int_eq(leaf_named(&f, "pid"), 13);
	{
		int c = leaf_named(&f, "name");
		const pqr_schema *sc = &f.schema[f.leaves[c]];
		ck_assert_int_eq(sc->type, 6);
		ck_assert_int_eq(sc->logical, 0); /* one value was not UTF-8 */
		c = leaf_named(&f, "__comm");
		ck_assert_int_eq(f.schema[f.leaves[c]].logical, 1);
		c = leaf_named(&f, "big");
		ck_assert_int_eq(f.schema[f.leaves[c]].int_bits, 64);
		ck_assert_int_eq(f.schema[f.leaves[c]].int_signed, 0);
	}
	pqr_close(&f);
	free(buf);
	/* the instance's own table */
	snprintf(path, sizeof(path), "%s/buffer-inst/demo-thing.parquet", part);
	ck_assert_int_eq(open_table(path, &f, &buf), 0);
	ck_assert_int_eq(f.num_rows, 3);
	pqr_close(&f);
	free(buf);

	snprintf(path, sizeof(path), "%s/metadata.json", part);
	meta = slurp_text(path);
	ck_assert_ptr_nonnull(meta);
	ck_assert_ptr_nonnull(strstr(meta, "\"events_without_format\":4,"));
	ck_assert_ptr_nonnull(strstr(meta, "\"formats_rejected\":1,"));
	ck_assert_ptr_nonnull(strstr(meta, "\"binary_columns\":[\"name\"]"));
	ck_assert_ptr_nonnull(strstr(meta, "\"file\":\"buffer-inst/demo-thing.parquet\",\"buffer\":1,"));
	free(meta);

	/* every prefix of the capture: a clean result, never a crash */
	{
		size_t cut;
		for (cut = 0; cut < n; cut += n / 40 + 1) {
			snprintf(path, sizeof(path), "%s/cut.dat", tmp);
			fp = fopen(path, "wb");
			ck_assert_ptr_nonnull(fp);
			ck_assert_uint_eq(fwrite(file, 1, cut, fp), cut);
			ck_assert_int_eq(fclose(fp), 0);
			snprintf(args, sizeof(args), "convert --to parquet %s/cut %s", tmp, path);
			tb_test_cli(args, &r);
			ck_assert_msg(r.status == 0 || r.status == 1, "prefix %zu: status %d", cut,
				      r.status);
			ck_assert_msg(r.status == 0 || strstr(r.err, "tracebound: "),
				      "prefix %zu: no message", cut);
			tb_test_run_free(&r);
		}
	}
	remove_tmp(tmp);
}
END_TEST

/* Raw trace_pipe_raw dumps with an events directory: one capture. */
START_TEST(cli_converts_raw_dumps)
{
	char tmp[] = "/tmp/tb-parquet-XXXXXX", args[1100], path[512], part[256];
	tb_test_run r;
	pqr_file f;
	uint8_t *buf;
	char *meta;
	ck_assert_ptr_nonnull(mkdtemp(tmp));
	snprintf(args, sizeof(args),
		 "tar xzf tests/data/formats-6.18.tar.gz -C %s && "
		 "$CLI convert --to parquet --events %s/events --header-page "
		 "tests/data/raw-sched4k/header_page %s/out tests/data/raw-sched4k/cpu0.raw "
		 "tests/data/raw-sched4k/cpu1.raw",
		 tmp, tmp, tmp);
	tb_test_sh(args, &r);
	ck_assert_msg(r.status == 0, "status %d: %s", r.status, r.err);
	tb_test_run_free(&r);
	snprintf(path, sizeof(path), "%s/out", tmp);
	one_part(path, part, sizeof(part));
	snprintf(path, sizeof(path), "%s/events.parquet", part);
	ck_assert_int_eq(open_table(path, &f, &buf), 0);
	ck_assert_int_eq(f.num_rows, 53737);
	pqr_close(&f);
	free(buf);
	snprintf(path, sizeof(path), "%s/sched-sched_switch.parquet", part);
	ck_assert_int_eq(open_table(path, &f, &buf), 0);
	ck_assert_int_gt(f.num_rows, 0);
	ck_assert_int_eq(leaf_named(&f, "next_comm"), 15);
	pqr_close(&f);
	free(buf);
	snprintf(path, sizeof(path), "%s/metadata.json", part);
	meta = slurp_text(path);
	ck_assert_ptr_nonnull(meta);
	ck_assert_ptr_nonnull(strstr(meta, "\"container\":\"raw\""));
	ck_assert_ptr_nonnull(strstr(meta, "{\"cpu\":0,\"events\":15353,"));
	ck_assert_ptr_nonnull(strstr(meta, "{\"cpu\":1,\"events\":38384,\"pages\":370,\"dropped\":145271,"));
	free(meta);
	/* an events directory that is not there */
	snprintf(args, sizeof(args), "convert --to parquet --events %s/none %s/out2 x.raw", tmp, tmp);
	tb_test_cli(args, &r);
	ck_assert_int_eq(r.status, 2);
	ck_assert_ptr_nonnull(strstr(r.err, "none: not an events directory (No such file"));
	tb_test_run_free(&r);
	remove_tmp(tmp);
}
END_TEST

/* convert --jobs N (two threads: the events table on the walking one,
 * the per-event tables on the other): every file, stderr and the status
 * as --jobs 1 gives them, for the samples, a compressed capture, raw
 * dumps, and a crafted capture with a rejected format, events without a
 * format, an instance, non-UTF-8 text and a record whose fields do not
 * all read. */
/* tmp/name holding n bytes of data; its path into path. */
static void write_capture(const char *tmp, const char *name, const uint8_t *data, size_t n,
			  char *path, size_t cap)
{
	FILE *fp;
	snprintf(path, cap, "%s/%s", tmp, name);
	fp = fopen(path, "wb");
	ck_assert_ptr_nonnull(fp);
	ck_assert_uint_eq(fwrite(data, 1, n, fp), n);
	ck_assert_int_eq(fclose(fp), 0);
}

static void jobs_same(const char *tmp, const char *inputs, int want)
{
	char args[2048];
	tb_test_run one, r;
	int j;
	snprintf(args, sizeof(args), "rm -rf %s/out %s/one; $CLI convert --to parquet --jobs 1 "
		 "%s/out %s; st=$?; mv %s/out %s/one; exit $st", tmp, tmp, tmp, inputs, tmp, tmp);
	tb_test_sh(args, &one);
	ck_assert_msg(one.status == want, "%s: status %d: %s", inputs, one.status, one.err);
	for (j = 2; j <= 5; j += 3) {
		snprintf(args, sizeof(args), "rm -rf %s/out && $CLI convert --to parquet --jobs %d "
			 "%s/out %s", tmp, j, tmp, inputs);
		tb_test_sh(args, &r);
		ck_assert_msg(r.status == one.status && !strcmp(r.err, one.err),
			      "--jobs %d %s: status %d err '%s' (--jobs 1: %d '%s')", j, inputs,
			      r.status, r.err, one.status, one.err);
		tb_test_run_free(&r);
		snprintf(args, sizeof(args), "diff -r %s/one %s/out", tmp, tmp);
		tb_test_sh(args, &r);
		ck_assert_msg(r.status == 0, "--jobs %d %s: files differ: %s", j, inputs, r.out);
		tb_test_run_free(&r);
	}
	tb_test_run_free(&one);
}

/* A perf.data: its container named as such in the metadata (it said
 * "raw"), and its CPUs listed with their counts (the list was empty: only
 * a trace.dat's or the dumps' CPUs were walked). */
START_TEST(cli_converts_perf_data)
{
	char tmp[] = "/tmp/tb-parquet-XXXXXX", args[1100], path[512], part[256];
	tb_test_run r;
	pqr_file f;
	uint8_t *buf;
	char *meta;
	ck_assert_ptr_nonnull(mkdtemp(tmp));
	snprintf(args, sizeof(args), "convert --to parquet %s/out tests/data/perf/small.data", tmp);
	tb_test_cli(args, &r);
	ck_assert_msg(r.status == 0, "status %d: %s", r.status, r.err);
	tb_test_run_free(&r);
	snprintf(path, sizeof(path), "%s/out", tmp);
	one_part(path, part, sizeof(part));
	snprintf(path, sizeof(path), "%s/events.parquet", part);
	ck_assert_int_eq(open_table(path, &f, &buf), 0);
	ck_assert_int_eq(f.num_rows, 4);
	pqr_close(&f);
	free(buf);
	snprintf(path, sizeof(path), "%s/metadata.json", part);
	meta = slurp_text(path);
	ck_assert_ptr_nonnull(meta);
	ck_assert_ptr_nonnull(strstr(meta, "\"container\":\"perf.data\",\"compression\":\"none\""));
	ck_assert_ptr_nonnull(strstr(meta, "\"cpus\":[{\"cpu\":0,\"events\":0,\"pages\":0,"));
	ck_assert_ptr_nonnull(strstr(meta, "{\"cpu\":1,\"events\":4,\"pages\":0,\"dropped\":0,"));
	free(meta);
	remove_tmp(tmp);
}
END_TEST

START_TEST(cli_jobs_files_are_the_one_thread_files)
{
	static uint8_t file[1 << 16];
	char tmp[] = "/tmp/tb-parquet-XXXXXX", args[1100], part[256];
	size_t n = craft_capture_with(file, sizeof(file), 1, NULL);
	tb_test_run r;
	ck_assert_ptr_nonnull(mkdtemp(tmp));
	write_capture(tmp, "crafted.dat", file, n, args, sizeof(args));
	jobs_same(tmp, args, 1);
	/* the cut record, once in each buffer, counted (on the per-event side
	 * with --jobs 2 and 5: the same metadata.json) */
	snprintf(args, sizeof(args), "%s/one", tmp);
	one_part(args, part, sizeof(part));
	snprintf(args, sizeof(args), "grep -c '\"records_with_unreadable_fields\":2,' "
		 "%s/metadata.json", part);
	tb_test_sh(args, &r);
	ck_assert_msg(r.status == 0, "%s", r.out);
	tb_test_run_free(&r);
	jobs_same(tmp, "tests/data/sched4k.v7zstd.dat", 0);
	snprintf(args, sizeof(args), "--text %s", tb_test_path("../shared/samples/sched4k.v7.dat"));
	if (tb_test_exists(tb_test_path("../shared/samples/sched4k.v7.dat"))) {
		jobs_same(tmp, args, 0);
		jobs_same(tmp, tb_test_path("../shared/samples/sched4k.v6.dat"), 0);
	}
	snprintf(args, sizeof(args), "tar xzf tests/data/formats-6.18.tar.gz -C %s", tmp);
	tb_test_sh(args, &r);
	ck_assert_int_eq(r.status, 0);
	tb_test_run_free(&r);
	snprintf(args, sizeof(args), "--events %s/events --header-page "
		 "tests/data/raw-sched4k/header_page tests/data/raw-sched4k/cpu0.raw "
		 "tests/data/raw-sched4k/cpu1.raw", tmp);
	jobs_same(tmp, args, 0);
	/* a write error (files past `ulimit -f`, SIGXFSZ ignored) on either
	 * side stops both: said once, status 2, nothing left in the dataset */
	snprintf(args, sizeof(args),
		 "rm -rf %s/out && trap '' XFSZ && ulimit -f 64 && "
		 "$CLI convert --to parquet --jobs 2 %s/out tests/data/sched4k.v7zstd.dat; st=$?; "
		 "ls -A %s/out; exit $st", tmp, tmp, tmp);
	tb_test_sh(args, &r);
	ck_assert_int_eq(r.status, 2);
	ck_assert_str_eq(r.out, "");
	{
		const char *m = strstr(r.err, ".parquet: write failed: File too large");
		ck_assert_msg(m && !strstr(m + 1, "tracebound:"), "%s", r.err);
	}
	tb_test_run_free(&r);
	remove_tmp(tmp);
}
END_TEST

/* A saved comm longer than any page (the cmdlines text is the capture's,
 * any length): --jobs 2 once copied it into a queue chunk sized for a
 * record and wrote past the chunk, and one thread stopped with "value
 * larger than its column buffer".  Now it is cut to 4096 bytes and
 * counted, and --jobs 2 and 5 write the one-thread files. */
START_TEST(cli_jobs_long_comm)
{
	size_t clen = (size_t)3 << 20, cap = clen + (1 << 16), n;
	char *cmd = malloc(clen + 8);
	uint8_t *file = malloc(cap);
	char tmp[] = "/tmp/tb-parquet-XXXXXX", args[1100], part[256];
	tb_test_run r;
	ck_assert_ptr_nonnull(cmd);
	ck_assert_ptr_nonnull(file);
	memcpy(cmd, "42 ", 3);
	memset(cmd + 3, 'c', clen);
	memcpy(cmd + 3 + clen, "\n", 2);
	n = craft_capture_with(file, cap, 0, cmd);
	ck_assert_uint_gt(n, clen);
	ck_assert_ptr_nonnull(mkdtemp(tmp));
	write_capture(tmp, "long.dat", file, n, args, sizeof(args));
	jobs_same(tmp, args, 1); /* 1: the crafted capture's rejected format */
	/* demo:thing's 3 records (pid 42) in each of the two buffers */
	snprintf(args, sizeof(args), "%s/one", tmp);
	one_part(args, part, sizeof(part));
	snprintf(args, sizeof(args), "grep -c '\"comms_cut\":6,' %s/metadata.json", part);
	tb_test_sh(args, &r);
	ck_assert_msg(r.status == 0, "%s", r.out);
	tb_test_run_free(&r);
	if (tb_test_have_zstd()) {
		pqr_file f;
		pqr_entry *ent;
		uint8_t *buf;
		size_t rows;
		snprintf(args, sizeof(args), "%s/demo-thing.parquet", part);
		ck_assert_int_eq(open_table(args, &f, &buf), 0);
		ck_assert_int_eq(pqr_leaf(&f, (size_t)leaf_named(&f, "__comm"), &ent, &rows,
					  zstd_pages, NULL), 0);
		ck_assert_uint_eq(rows, 3);
		ck_assert_uint_eq(ent[0].n, 4096);
		ck_assert(ent[0].p[0] == 'c' && ent[0].p[4095] == 'c');
		free(ent);
		pqr_close(&f);
		free(buf);
	}
	remove_tmp(tmp);
	free(cmd);
	free(file);
}
END_TEST

/* Output errors: a full disk, a directory that cannot be made; usage. */
START_TEST(cli_output_errors)
{
	char tmp[] = "/tmp/tb-parquet-XXXXXX", args[1024];
	tb_test_run r;
	ck_assert_ptr_nonnull(mkdtemp(tmp));
	snprintf(args, sizeof(args),
		 "trap '' XFSZ && ulimit -f 64 && "
		 "$CLI convert --to parquet %s/out tests/data/sched4k.v7zstd.dat; st=$?; "
		 "ls -A %s/out; exit $st", tmp, tmp);
	tb_test_sh(args, &r);
	ck_assert_int_eq(r.status, 2);
	ck_assert_msg(strstr(r.err, ".parquet: write failed: File too large"), "%s", r.err);
	ck_assert_str_eq(r.out, ""); /* the staged upload is removed */
	tb_test_run_free(&r);
	snprintf(args, sizeof(args),
		 "touch %s/file && $CLI convert --to parquet %s/file/x tests/data/sched4k.v7zstd.dat",
		 tmp, tmp);
	tb_test_sh(args, &r);
	ck_assert_int_eq(r.status, 2);
	ck_assert_ptr_nonnull(strstr(r.err, "cannot create"));
	tb_test_run_free(&r);
	tb_test_cli("convert --to parquet", &r);
	ck_assert_int_eq(r.status, 2);
	ck_assert_ptr_nonnull(strstr(r.err, "usage: tracebound convert --to parquet"));
	tb_test_run_free(&r);
	tb_test_cli("convert --to nothing x y", &r);
	ck_assert_int_eq(r.status, 2);
	ck_assert_ptr_nonnull(strstr(r.err, "formats: parquet"));
	tb_test_run_free(&r);
	snprintf(args, sizeof(args), "convert --to=parquet --bogus %s/o x", tmp);
	tb_test_cli(args, &r);
	ck_assert_int_eq(r.status, 2);
	ck_assert_ptr_nonnull(strstr(r.err, "unknown option '--bogus'"));
	tb_test_run_free(&r);
	snprintf(args, sizeof(args), "convert --to parquet %s/o %s/missing.dat", tmp, tmp);
	tb_test_cli(args, &r);
	ck_assert_int_eq(r.status, 2);
	tb_test_run_free(&r);
	/* not a trace.dat: malformed, said so */
	snprintf(args, sizeof(args), "convert --to parquet %s/o %s", tmp,
		 tb_test_path("tests/data/SAMPLES.md"));
	tb_test_cli(args, &r);
	ck_assert_int_eq(r.status, 1);
	ck_assert_ptr_nonnull(strstr(r.err, "SAMPLES.md: not a trace.dat"));
	tb_test_run_free(&r);
	remove_tmp(tmp);
}
END_TEST

/* The compact protocol encoder byte for byte (values from the protocol's
 * description: zigzag varints, delta or long-form field headers, list
 * headers with the size in the high nibble or a varint after 0xF?). */
START_TEST(thrift_compact_bytes)
{
	uint8_t buf[64];
	tb_thr t;
	size_t i;
	tb_thr_init(&t, buf, sizeof(buf));
	tb_thr_i32(&t, 1, 1);          /* 0x15 0x02 */
	tb_thr_i32(&t, 2, -1);         /* 0x15 0x01 */
	tb_thr_i64(&t, 20, 300);       /* long form: 0x06, zigzag(20)=0x28, 600 = 0xd8 0x04 */
	tb_thr_i32(&t, 3, 0);          /* backwards: long form 0x05 0x06 0x00 */
	tb_thr_bool(&t, 4, 1);         /* 0x11 */
	tb_thr_bool(&t, 5, 0);         /* 0x12 */
	tb_thr_i8(&t, 6, -2);          /* 0x13 0xfe */
	tb_thr_list(&t, 7, TB_THR_I32, 15); /* 0x19 0xf5 0x0f */
	tb_thr_end(&t);                /* 0x00 (the outermost struct stays open) */
	{
		static const uint8_t want[] = { 0x15, 0x02, 0x15, 0x01, 0x06, 0x28, 0xd8, 0x04,
						0x05, 0x06, 0x00, 0x11, 0x12, 0x13, 0xfe, 0x19,
						0xf5, 0x0f, 0x00 };
		ck_assert_uint_eq(t.len, sizeof(want));
		ck_assert(!memcmp(buf, want, sizeof(want)));
		ck_assert_int_eq(t.overflow, 0);
		ck_assert_uint_eq(t.depth, 1);
	}
	/* nesting: each struct has its own field ids, up to the depth limit */
	tb_thr_init(&t, buf, sizeof(buf));
	for (i = 0; i < TB_THR_MAX_DEPTH - 1; i++)
		tb_thr_struct(&t, 1);
	ck_assert_int_eq(t.overflow, 0);
	tb_thr_struct(&t, 1);
	ck_assert_int_eq(t.overflow, 1); /* one too deep: flagged, not written past */
	/* a full buffer: nothing past cap, overflow set */
	tb_thr_init(&t, buf, 3);
	tb_thr_binary(&t, 1, "abcdef", 6);
	ck_assert_int_eq(t.overflow, 1);
	ck_assert_uint_le(t.len, 3);
	tb_thr_init(&t, NULL, 10);
	tb_thr_i32(&t, 1, 5);
	ck_assert_int_eq(t.overflow, 1);
	ck_assert_uint_eq(t.len, 0);
	/* a 64-bit extreme: 10 varint bytes */
	tb_thr_init(&t, buf, sizeof(buf));
	tb_thr_i64(&t, 1, INT64_MIN);
	ck_assert_uint_eq(t.len, 11);
	ck_assert_int_eq(buf[10], 0x01);
}
END_TEST

Suite *tb_suite_parquet(void)
{
	Suite *s = suite_create("parquet");
	TCase *t = tcase_create("writer");
	tcase_add_test(t, every_type_round_trips);
	tcase_add_test(t, many_row_groups);
	tcase_add_test(t, null_patterns);
	tcase_add_test(t, write_errors_are_sticky);
	tcase_add_test(t, footer_grow_and_retry);
	tcase_add_test(t, bad_arguments);
	tcase_add_test(t, value_errors);
	tcase_add_test(t, compressor_callback);
	tcase_add_test(t, dictionary_round_trips);
	tcase_add_test(t, dictionary_sizes);
	tcase_add_test(t, dictionary_arguments);
	tcase_add_test(t, dictionary_crafted_collisions);
	tcase_add_test(t, utf8_rule);
	tcase_add_test(t, int_ranges_every_width);
	tcase_add_test(t, metadata_and_empty_file);
	tcase_add_test(t, long_names_many_columns);
	tcase_add_test(t, reader_survives_damage);
	tcase_add_test(t, thrift_compact_bytes);
	tcase_add_test(t, column_resize);
	suite_add_tcase(s, t);
	t = tcase_create("convert");
	tcase_add_test(t, cli_converts_real_capture);
	tcase_add_test(t, cli_text_column);
	tcase_add_test(t, cli_documented_outcomes);
	tcase_add_test(t, cli_converts_raw_dumps);
	tcase_add_test(t, cli_converts_perf_data);
	tcase_add_test(t, cli_output_errors);
	tcase_add_test(t, cli_jobs_files_are_the_one_thread_files);
	tcase_add_test(t, cli_jobs_long_comm);
	suite_add_tcase(s, t);
	return s;
}
