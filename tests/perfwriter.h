/*
 * A small perf.data / pipe-stream writer for the tests: builds files in
 * either byte order, attrs of any revision size, and records field by
 * field, for what this machine's perf cannot write (big-endian, every
 * sample_type bit, hostile sizes).  Test code only: aborts on no memory.
 */
#ifndef TB_TEST_PERFWRITER_H
#define TB_TEST_PERFWRITER_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tracebound/perfdata.h"

typedef struct pw {
	uint8_t *b;
	size_t len, cap;
	int be;
} pw;

static inline void pw_init(pw *w, int be)
{
	memset(w, 0, sizeof(*w));
	w->be = be;
}

static inline void pw_free(pw *w)
{
	free(w->b);
	memset(w, 0, sizeof(*w));
}

static inline void pw_bytes(pw *w, const void *p, size_t n)
{
	if (w->len + n > w->cap) {
		w->cap = (w->len + n) * 2 + 64;
		w->b = realloc(w->b, w->cap);
		if (!w->b)
			abort();
	}
	if (n)
		memcpy(w->b + w->len, p, n);
	w->len += n;
}

static inline void pw_put_at(pw *w, size_t at, uint64_t v, unsigned n)
{
	unsigned i;
	for (i = 0; i < n; i++) {
		unsigned shift = w->be ? 8u * (n - 1 - i) : 8u * i;
		w->b[at + i] = (uint8_t)(v >> shift);
	}
}

static inline void pw_un(pw *w, uint64_t v, unsigned n)
{
	static const uint8_t z[8];
	size_t at = w->len;
	pw_bytes(w, z, n);
	pw_put_at(w, at, v, n);
}

static inline void pw_u16(pw *w, uint64_t v) { pw_un(w, v, 2); }
static inline void pw_u32(pw *w, uint64_t v) { pw_un(w, v, 4); }
static inline void pw_u64(pw *w, uint64_t v) { pw_un(w, v, 8); }

static inline void pw_zeros(pw *w, size_t n)
{
	while (n--)
		pw_un(w, 0, 1);
}

/* A perf string: u32 length (padded to 8 with the NUL), then the bytes. */
static inline void pw_str(pw *w, const char *s)
{
	size_t n = strlen(s) + 1, padded = (n + 7) / 8 * 8;
	pw_u32(w, padded);
	pw_bytes(w, s, n - 1);
	pw_zeros(w, padded - n + 1);
}

/* The attr fields a test sets; written as a perf_event_attr of `size`
 * bytes (64..136), the flag word bit-reversed in a big-endian file as a
 * big-endian compiler lays out the bit field. */
typedef struct pw_attr {
	uint32_t type, size;
	uint64_t config, period, sample_type, read_format, flags;
	uint64_t branch_sample_type, regs_user, regs_intr;
	uint32_t stack_user;
	int32_t clockid;
} pw_attr;

static inline uint64_t pw_rev64(uint64_t v)
{
	uint64_t r = 0;
	unsigned i;
	for (i = 0; i < 64; i++)
		r |= ((v >> i) & 1u) << (63 - i);
	return r;
}

static inline void pw_attr_bytes(pw *w, const pw_attr *a)
{
	size_t start = w->len, n = a->size ? a->size : 64;
	pw_zeros(w, n);
	pw_put_at(w, start + 0, a->type, 4);
	pw_put_at(w, start + 4, a->size, 4);
	pw_put_at(w, start + 8, a->config, 8);
	pw_put_at(w, start + 16, a->period, 8);
	pw_put_at(w, start + 24, a->sample_type, 8);
	pw_put_at(w, start + 32, a->read_format, 8);
	pw_put_at(w, start + 40, w->be ? pw_rev64(a->flags) : a->flags, 8);
	if (n >= 80)
		pw_put_at(w, start + 72, a->branch_sample_type, 8);
	if (n >= 96) {
		pw_put_at(w, start + 80, a->regs_user, 8);
		pw_put_at(w, start + 88, a->stack_user, 4);
		pw_put_at(w, start + 92, (uint32_t)a->clockid, 4);
	}
	if (n >= 104)
		pw_put_at(w, start + 96, a->regs_intr, 8);
}

/* Records: begin writes the header, end patches its size. */
static inline size_t pw_rec_begin(pw *w, uint32_t type, uint16_t misc)
{
	size_t at = w->len;
	pw_u32(w, type);
	pw_u16(w, misc);
	pw_u16(w, 0);
	return at;
}

static inline void pw_rec_end(pw *w, size_t at)
{
	pw_put_at(w, at + 6, w->len - at, 2);
}

/* ---- a whole file: header, attrs (with ids), data, features ---- */

#define PW_MAX_ATTRS 8
#define PW_MAX_FEATS 8

typedef struct pw_file {
	pw_attr attrs[PW_MAX_ATTRS];
	const uint64_t *ids[PW_MAX_ATTRS];
	size_t nids[PW_MAX_ATTRS];
	size_t nattrs;
	size_t attr_entry;       /* attr_size of the header (attr + 16) */
	const uint8_t *data;     /* the data section's bytes */
	size_t data_len;
	unsigned feat_id[PW_MAX_FEATS];
	const uint8_t *feat[PW_MAX_FEATS];
	size_t feat_len[PW_MAX_FEATS];
	size_t nfeats;           /* ids in increasing order */
} pw_file;

/* Layout: header, ids, attrs, data, feature table, features. */
static inline void pw_build_file(pw *w, const pw_file *f)
{
	size_t i, ids_at[PW_MAX_ATTRS], attrs_at, data_at, table_at, at;
	uint64_t bits[4] = { 0, 0, 0, 0 };
	pw_bytes(w, "PERFILE2", 8);
	if (w->be) /* the magic is a u64 in the file's order */
		pw_put_at(w, 0, 0x32454c4946524550ull, 8);
	pw_u64(w, 104);
	pw_u64(w, f->attr_entry);
	pw_zeros(w, 104 - 24);
	for (i = 0; i < f->nattrs; i++) {
		size_t k;
		ids_at[i] = w->len;
		for (k = 0; k < f->nids[i]; k++)
			pw_u64(w, f->ids[i][k]);
	}
	attrs_at = w->len;
	for (i = 0; i < f->nattrs; i++) {
		size_t start = w->len;
		pw_attr_bytes(w, &f->attrs[i]);
		pw_zeros(w, f->attr_entry - 16 - (w->len - start));
		pw_u64(w, ids_at[i]);
		pw_u64(w, f->nids[i] * 8);
	}
	data_at = w->len;
	pw_bytes(w, f->data, f->data_len);
	table_at = w->len;
	pw_zeros(w, 16 * f->nfeats);
	for (i = 0; i < f->nfeats; i++) {
		at = w->len;
		pw_bytes(w, f->feat[i], f->feat_len[i]);
		pw_put_at(w, table_at + 16 * i, at, 8);
		pw_put_at(w, table_at + 16 * i + 8, f->feat_len[i], 8);
		bits[f->feat_id[i] / 64] |= 1ull << (f->feat_id[i] % 64);
	}
	pw_put_at(w, 24, attrs_at, 8);
	pw_put_at(w, 32, data_at - attrs_at, 8);
	pw_put_at(w, 40, data_at, 8);
	pw_put_at(w, 48, f->data_len, 8);
	for (i = 0; i < 4; i++)
		pw_put_at(w, 72 + 8 * i, bits[i], 8);
	(void)table_at;
}

/* Pipe: the 16-byte header, then HEADER_ATTR records. */
static inline void pw_pipe_header(pw *w)
{
	pw_u64(w, 0x32454c4946524550ull);
	pw_u64(w, 16);
}

static inline void pw_header_attr(pw *w, const pw_attr *a, const uint64_t *ids, size_t n)
{
	size_t at = pw_rec_begin(w, TB_PERF_RECORD_HEADER_ATTR, 0), k;
	pw_attr_bytes(w, a);
	for (k = 0; k < n; k++)
		pw_u64(w, ids[k]);
	pw_rec_end(w, at);
}

/* A "decompressor" for COMPRESSED records built from plain records: it
 * copies, at most *(size_t *)ctx bytes a call (tb_perf_decompress_fn). */
static inline tb_status pw_copy_decompress(void *ctx, const uint8_t *src, size_t src_len,
					   size_t *consumed, uint8_t *dst, size_t dst_cap,
					   size_t *produced)
{
	size_t n = *(const size_t *)ctx;
	if (n > src_len)
		n = src_len;
	if (n > dst_cap)
		n = dst_cap;
	if (n)
		memcpy(dst, src, n);
	*consumed = *produced = n;
	return TB_OK;
}

#endif
