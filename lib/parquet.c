/* The streaming Parquet writer (see parquet.h). */
#include <string.h>

#include "digits.h"
#include "internal.h"
#include "reader.h"
#include "thrift.h"
#include "tracebound/parquet.h"
#include "tracebound/protobuf.h"

/* Parquet enum values used here (parquet.thrift). */
enum {
	PQ_INT32 = 1,
	PQ_INT64 = 2,
	PQ_BYTE_ARRAY = 6,
	PQ_REQUIRED = 0,
	PQ_OPTIONAL = 1,
	PQ_REPEATED = 2,
	PQ_CT_UTF8 = 0,
	PQ_CT_LIST = 3,
	PQ_CT_UINT_8 = 11,
	PQ_CT_INT_8 = 15,
	PQ_ENC_PLAIN = 0,
	PQ_ENC_RLE = 3,
	PQ_ENC_RLE_DICTIONARY = 8,
	PQ_DATA_PAGE = 0,
	PQ_DICTIONARY_PAGE = 2
};

/* Footer bytes one row group's metadata can take: per column, and fixed. */
#define PQ_GROUP_FIXED 64u
#define PQ_CHUNK_FIXED 128u
/* The staging buffer for the footer and page headers (a schema element
 * holds a name of up to TB_PQ_MAX_NAME bytes). */
#define PQ_STAGE (TB_PQ_MAX_NAME + 256u)
/* Bytes kept free before a column's values: a flat column's encoded
 * definition levels usually fit there, so its page is assembled in place
 * (levels, then the values already in the buffer) without a copy. */
#define PQ_GAP 32u
/* The dictionary's hash table at its largest (never more than half full).
 * A slot holds the value's hash above PQ_SLOT_BITS and its entry + 1
 * below (TB_PQ_DICT_MAX < 2^PQ_SLOT_BITS, and so is the slot count). */
#define PQ_DICT_SLOTS (2u * TB_PQ_DICT_MAX)
#define PQ_SLOT_BITS 15u
#define PQ_SLOT_LOW ((1u << PQ_SLOT_BITS) - 1)
/* Slots one lookup may probe.  A table at most half full rarely needs 20;
 * more means values crafted to collide (a hostile capture's strings), and
 * the chunk goes out PLAIN rather than take time quadratic in its values. */
#define PQ_DICT_PROBES 64u
/* The caller's dict memory (tb_pq_dict_size): the slots (4 bytes each),
 * then each distinct value's offset in the column's buffer (4 bytes),
 * then each value's index (2 bytes). */
#define PQ_DICT_ENTS ((size_t)PQ_DICT_SLOTS * 4)
#define PQ_DICT_IDX (PQ_DICT_ENTS + (size_t)TB_PQ_DICT_MAX * 4)

/* ---- UTF-8 ---- */

/* Whether the n bytes are all ASCII: the bytes or'ed together a word at a
 * time, the last word overlapping the one before (no byte loop for the
 * tail: the strings written most, comms and event names, are 3-16 bytes,
 * and a loop over their last bytes cost as much as the rest). */
static int all_ascii(const uint8_t *p, size_t n)
{
	uint64_t acc = 0, w;
	size_t i;
	if (n >= 8) {
		for (i = 0; n - i > 8; i += 8) {
			memcpy(&w, p + i, 8);
			acc |= w;
		}
		memcpy(&w, p + n - 8, 8);
		acc |= w;
	} else if (n >= 4) {
		uint32_t a, b;
		memcpy(&a, p, 4);
		memcpy(&b, p + n - 4, 4);
		acc = a | b;
	} else {
		for (i = 0; i < n; i++)
			acc |= p[i];
	}
	return !(acc & 0x8080808080808080ull);
}

TB_API int tb_pq_utf8_valid(const void *s, size_t n)
{
	const uint8_t *p = s;
	size_t i = 0;
	if (all_ascii(p, n))
		return 1;
	while (i < n) {
		unsigned c = p[i], need, min;
		uint32_t cp;
		size_t k;
		if (c < 0x80) {
			/* ASCII, 8 bytes a test while they last */
			for (i++; n - i >= 8; i += 8) {
				uint64_t w;
				memcpy(&w, p + i, 8);
				if (w & 0x8080808080808080ull)
					break;
			}
			while (i < n && p[i] < 0x80)
				i++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf) {
			need = 1;
			min = 0x80;
			cp = c & 0x1f;
		} else if (c >= 0xe0 && c <= 0xef) {
			need = 2;
			min = 0x800;
			cp = c & 0x0f;
		} else if (c >= 0xf0 && c <= 0xf4) {
			need = 3;
			min = 0x10000;
			cp = c & 0x07;
		} else {
			return 0;
		}
		if (need > n - i - 1)
			return 0;
		for (k = 1; k <= need; k++) {
			unsigned b = p[i + k];
			if ((b & 0xc0) != 0x80)
				return 0;
			cp = cp << 6 | (b & 0x3f);
		}
		if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return 0;
		i += need + 1;
	}
	return 1;
}

/* ---- dictionaries ---- */

/* A hash of n bytes for the dictionary's table, read a little-endian word
 * at a time (the last word overlapping, as in all_ascii: names and comms
 * are short), the same on every host, so whether a chunk hits
 * PQ_DICT_PROBES is too. */
static uint32_t value_hash(const uint8_t *p, size_t n)
{
	const uint64_t k = 0x9e3779b97f4a7c15ull;
	uint64_t h = ((uint64_t)n + 1) * k, w = 0;
	size_t i;
	for (i = 0; n - i > 8; i += 8) {
		h = (h ^ tb_load64(p + i, 0)) * k;
		h ^= h >> 29;
	}
	if (n >= 8) {
		w = tb_load64(p + n - 8, 0);
	} else if (n >= 4) {
		w = (uint64_t)tb_load32(p, 0) << 32 | tb_load32(p + n - 4, 0);
	} else if (n) {
		w = (uint64_t)p[0] << 16 | (uint64_t)p[n / 2] << 8 | p[n - 1];
	}
	h = (h ^ w) * k;
	return (uint32_t)(h >> 32) ^ (uint32_t)h;
}

/* Are a[0..n) and b[0..n) the same?  Words, the last overlapping (no
 * library call for a comm). */
static int same_bytes(const uint8_t *a, const uint8_t *b, size_t n)
{
	uint64_t x, y;
	size_t i;
	if (n < 8) {
		uint32_t u, v;
		if (n < 4) {
			for (i = 0; i < n; i++)
				if (a[i] != b[i])
					return 0;
			return 1;
		}
		memcpy(&u, a, 4);
		memcpy(&v, b, 4);
		if (u != v)
			return 0;
		memcpy(&u, a + n - 4, 4);
		memcpy(&v, b + n - 4, 4);
		return u == v;
	}
	for (i = 0; n - i > 8; i += 8) {
		memcpy(&x, a + i, 8);
		memcpy(&y, b + i, 8);
		if (x != y)
			return 0;
	}
	memcpy(&x, a + n - 8, 8);
	memcpy(&y, b + n - 8, 8);
	return x == y;
}

/* ---- column shapes ---- */

static int is_list(const tb_pq_column *c)
{
	return c->kind == TB_PQ_LIST;
}

/* (both set by tb_pq_writer_init, from the kind and flags it checked) */
static unsigned max_def(const tb_pq_column *c)
{
	return c->md_;
}

static unsigned max_rep(const tb_pq_column *c)
{
	return is_list(c) ? 1u : 0u;
}

static int has_levels(const tb_pq_column *c)
{
	return max_def(c) != 0; /* a list's is at least 1 */
}

/* Bytes of one PLAIN integer of an INT or LIST column. */
static size_t int_width(const tb_pq_column *c)
{
	return c->iw_;
}

static unsigned bit_width(unsigned max)
{
	unsigned w = 0;
	while (max) {
		w++;
		max >>= 1;
	}
	return w;
}

/* ---- output ---- */

static tb_status fail_sticky(tb_pq_writer *w, tb_error *err, tb_status st,
			     const char *what)
{
	w->sticky = st;
	w->sticky_err.status = st;
	w->sticky_err.offset = w->offset;
	w->sticky_err.what = what;
	return tb_fail(err, st, w->offset, what);
}

static tb_status out(tb_pq_writer *w, const void *p, size_t n, tb_error *err)
{
	tb_status st;
	if (!n)
		return TB_OK;
	st = w->cfg.write(w->cfg.write_ctx, p, n);
	if (st != TB_OK)
		return fail_sticky(w, err, tb_is_error(st) ? st : TB_ERR_ARG,
				   "the write callback failed");
	w->offset += n;
	return TB_OK;
}

/* Write what the encoder holds and empty it (its field ids are kept). */
static tb_status drain(tb_pq_writer *w, tb_thr *t, tb_error *err)
{
	tb_status st;
	if (t->overflow)
		return fail_sticky(w, err, TB_ERR_LIMIT, "metadata larger than its buffer");
	st = out(w, t->p, t->len, err);
	t->len = 0;
	return st;
}

/* ---- setup ---- */

TB_API size_t tb_pq_scratch_size(size_t cap)
{
	/* two level streams of at most (levels + 16) bytes each, the values */
	return cap > (SIZE_MAX - 64) / 2 ? SIZE_MAX : 2 * cap + 64;
}

TB_API size_t tb_pq_dict_size(size_t cap)
{
	/* an index per value: a value takes 4 bytes of the column at least */
	return PQ_DICT_IDX + (cap / 4 + 1) * 2;
}

static int column_ok(const tb_pq_column *c)
{
	if (!c->name || !c->name_len || memchr(c->name, 0, c->name_len) || !c->buf ||
	    c->cap < TB_PQ_MIN_COLUMN_BUF || c->flags & ~15u ||
	    ((c->flags & TB_PQ_DICT) && c->kind != TB_PQ_BYTES))
		return 0;
	switch (c->kind) {
	case TB_PQ_INT:
	case TB_PQ_LIST:
		return c->bits == 8 || c->bits == 16 || c->bits == 32 || c->bits == 64;
	case TB_PQ_BYTES:
		return !(c->flags & TB_PQ_SIGNED);
	default:
		return 0;
	}
}

TB_API tb_status tb_pq_writer_init(tb_pq_writer *w, tb_pq_column *cols, size_t ncols,
				   const tb_pq_config *cfg, tb_error *err)
{
	size_t i, maxcap = 0, maxdict = 0;
	tb_error_clear(err);
	if (!w || !cfg || !cfg->write || (ncols && !cols))
		return tb_fail(err, TB_ERR_ARG, 0, "NULL writer, configuration or callback");
	memset(w, 0, sizeof(*w));
	if (ncols > TB_PQ_MAX_COLUMNS)
		return tb_fail(err, TB_ERR_LIMIT, 0, "more columns than TB_PQ_MAX_COLUMNS");
	for (i = 0; i < ncols; i++) {
		tb_pq_column *c = &cols[i];
		if (c->name_len > TB_PQ_MAX_NAME)
			return tb_fail(err, TB_ERR_LIMIT, i, "column name longer than TB_PQ_MAX_NAME");
		if (c->cap > TB_PQ_MAX_COLUMN_BUF)
			return tb_fail(err, TB_ERR_LIMIT, i,
				       "column buffer larger than TB_PQ_MAX_COLUMN_BUF");
		if (!column_ok(c))
			return tb_fail(err, TB_ERR_ARG, i,
				       "bad column: name, kind, bits, flags or buffer");
		if (c->cap > maxcap)
			maxcap = c->cap;
		if ((c->flags & TB_PQ_DICT) && c->cap > maxdict)
			maxdict = c->cap;
		c->values = c->nulls = c->non_utf8 = 0;
		c->vlen_ = PQ_GAP;
		c->nlev_ = 0;
		c->chunk_values_ = 0;
		c->lazy_ = !is_list(c);
		c->md_ = (uint8_t)(((c->flags & TB_PQ_NULLABLE) ? 1u : 0u) + (is_list(c) ? 1u : 0u));
		c->iw_ = (uint8_t)(c->bits <= 32 ? 4u : 8u);
		/* in [-2^(bits-1), 2^(bits-1)) when signed (shifted by the
		 * bias, mod 2^64), in [0, 2^bits) when not */
		c->imax_ = c->bits >= 64 ? UINT64_MAX : ((uint64_t)1 << c->bits) - 1;
		c->ibias_ = (c->flags & TB_PQ_SIGNED) && c->bits < 64
			? (uint64_t)1 << (c->bits - 1) : 0;
	}
	if (!cfg->scratch || cfg->scratch_cap < tb_pq_scratch_size(maxcap))
		return tb_fail(err, TB_ERR_ARG, 0, "scratch smaller than tb_pq_scratch_size()");
	if (maxdict && (!cfg->dict || cfg->dict_cap < tb_pq_dict_size(maxdict)))
		return tb_fail(err, TB_ERR_ARG, 0, "dict smaller than tb_pq_dict_size()");
	if (cfg->compress && (!cfg->cscratch || !cfg->cscratch_cap))
		return tb_fail(err, TB_ERR_ARG, 0, "a compressor needs cscratch");
	if (cfg->footer_cap && !cfg->footer)
		return tb_fail(err, TB_ERR_ARG, 0, "footer capacity without a buffer");
	w->cols = cols;
	w->ncols = ncols;
	w->cfg = *cfg;
	w->footer = cfg->footer;
	w->footer_cap = cfg->footer_cap;
	return out(w, "PAR1", 4, err);
}

TB_API tb_status tb_pq_writer_set_kv(tb_pq_writer *w, const tb_pq_kv *kv, size_t nkv,
				     tb_error *err)
{
	size_t i;
	if (!w || (nkv && !kv))
		return tb_fail(err, TB_ERR_ARG, 0, "NULL writer or pairs");
	if (nkv > TB_PQ_MAX_KV)
		return tb_fail(err, TB_ERR_LIMIT, 0, "more pairs than TB_PQ_MAX_KV");
	for (i = 0; i < nkv; i++)
		if (kv[i].key_len > TB_PQ_MAX_NAME || kv[i].value_len > TB_PQ_MAX_NAME ||
		    (kv[i].key_len && !kv[i].key) || (kv[i].value_len && !kv[i].value))
			return tb_fail(err, TB_ERR_LIMIT, i,
				       "key or value longer than TB_PQ_MAX_NAME (or NULL)");
	w->kv = kv;
	w->nkv = nkv;
	return TB_OK;
}

TB_API tb_status tb_pq_writer_set_footer(tb_pq_writer *w, uint8_t *buf, size_t cap,
					 tb_error *err)
{
	if (!w || !buf || cap < w->footer_len)
		return tb_fail(err, TB_ERR_ARG, 0, "footer buffer NULL or smaller than its contents");
	if (w->footer_len && buf != w->footer)
		memmove(buf, w->footer, w->footer_len);
	w->footer = buf;
	w->footer_cap = cap;
	return TB_OK;
}

TB_API tb_status tb_pq_column_resize(tb_pq_writer *w, size_t i, uint8_t *buf, size_t cap,
				     tb_error *err)
{
	tb_pq_column *c;
	if (!w || i >= w->ncols || !buf)
		return tb_fail(err, TB_ERR_ARG, 0, "NULL writer or buffer, or no such column");
	c = &w->cols[i];
	if (cap > TB_PQ_MAX_COLUMN_BUF)
		return tb_fail(err, TB_ERR_LIMIT, i, "column buffer larger than TB_PQ_MAX_COLUMN_BUF");
	if (cap < TB_PQ_MIN_COLUMN_BUF || w->cfg.scratch_cap < tb_pq_scratch_size(cap) ||
	    ((c->flags & TB_PQ_DICT) && w->cfg.dict_cap < tb_pq_dict_size(cap)))
		return tb_fail(err, TB_ERR_ARG, i,
			       "column buffer too small, or larger than the scratch or dict allows");
	if (c->vlen_ > cap || c->nlev_ > cap - c->vlen_ || buf == c->buf)
		return tb_fail(err, TB_ERR_ARG, i,
			       "the new buffer is the old one or cannot take what the column holds");
	memcpy(buf + PQ_GAP, c->buf + PQ_GAP, c->vlen_ - PQ_GAP);
	if (!c->lazy_ && c->nlev_)
		memcpy(buf + cap - c->nlev_, c->buf + c->cap - c->nlev_, c->nlev_);
	c->buf = buf;
	c->cap = cap;
	return TB_OK;
}

/* ---- rows ---- */

/* Does v fit the integer column c (its bits, signed or not)? */
static int int_fits(const tb_pq_column *c, uint64_t v)
{
	return v + c->ibias_ <= c->imax_;
}

/* Value bytes and level entries one value needs in column c. */
static tb_status value_size(const tb_pq_column *c, const tb_pq_value *v, size_t *vb,
			    size_t *lv)
{
	*lv = has_levels(c) ? 1 : 0;
	*vb = 0;
	if (v->is_null)
		return (c->flags & TB_PQ_NULLABLE) ? TB_OK : TB_ERR_VALUE;
	switch (c->kind) {
	case TB_PQ_INT:
		*vb = int_width(c);
		return int_fits(c, v->i) ? TB_OK : TB_ERR_VALUE;
	case TB_PQ_BYTES:
		if (v->n && !v->p)
			return TB_ERR_VALUE;
		if (v->n > c->cap)
			return TB_ERR_LIMIT;
		*vb = 4 + v->n;
		return TB_OK;
	default: /* TB_PQ_LIST */
		if ((v->n && !v->p) ||
		    (v->elem_size != 1 && v->elem_size != 2 && v->elem_size != 4 &&
		     v->elem_size != 8) ||
		    v->elem_size * 8 > c->bits)
			return TB_ERR_VALUE;
		if (v->n > c->cap)
			return TB_ERR_LIMIT;
		*vb = v->n * int_width(c);
		*lv = v->n ? v->n : 1;
		return TB_OK;
	}
}

/* Does a value of vb bytes and lv level entries fit what is left of c? */
static int fits(const tb_pq_column *c, size_t vb, size_t lv)
{
	size_t used = c->vlen_ + c->nlev_;
	return vb <= c->cap - used && lv <= c->cap - used - vb;
}

/* A 4- or 8-byte little-endian word (an INT32/INT64 slot, a length): one store. */
static void put_int(uint8_t *p, uint64_t v, size_t w)
{
	if (w == 8)
		tb_put_le64((char *)p, v);
	else
		tb_put_le32((char *)p, (uint32_t)v);
}

/* One level entry.  While every entry of the chunk is a defined flat
 * value (the usual case) the bytes are not stored, only counted: the
 * first other entry writes them out. */
static void put_level_slow(tb_pq_column *c, unsigned def, unsigned rep)
{
	if (c->lazy_) {
		if (c->nlev_)
			memset(c->buf + c->cap - c->nlev_, (int)max_def(c), c->nlev_);
		c->lazy_ = 0;
	}
	c->nlev_++;
	c->buf[c->cap - c->nlev_] = (uint8_t)(rep << 4 | def);
}

static inline void put_level(tb_pq_column *c, unsigned def, unsigned rep)
{
	if (c->lazy_ && def == max_def(c) && !rep)
		c->nlev_++;
	else
		put_level_slow(c, def, rep);
}

static void append(tb_pq_column *c, const tb_pq_value *v)
{
	unsigned md = max_def(c);
	c->values++;
	c->chunk_values_++;
	if (v->is_null) {
		c->nulls++;
		put_level(c, 0, 0);
		return;
	}
	switch (c->kind) {
	case TB_PQ_INT:
		put_int(c->buf + c->vlen_, v->i, int_width(c));
		c->vlen_ += int_width(c);
		if (md)
			put_level(c, md, 0);
		return;
	case TB_PQ_BYTES:
		put_int(c->buf + c->vlen_, v->n, 4);
		if (v->n)
			memcpy(c->buf + c->vlen_ + 4, v->p, v->n);
		c->vlen_ += 4 + v->n;
		if ((c->flags & TB_PQ_TEXT) && !tb_pq_utf8_valid(v->p, v->n))
			c->non_utf8++;
		if (md)
			put_level(c, md, 0);
		return;
	default: { /* TB_PQ_LIST */
		const uint8_t *p = v->p;
		size_t i, w = int_width(c);
		unsigned es = v->elem_size;
		if (!v->n) {
			put_level(c, md - 1, 0); /* an empty list */
			return;
		}
		c->values += v->n - 1;
		c->chunk_values_ += v->n - 1;
		for (i = 0; i < v->n; i++) {
			uint64_t e = tb_extend(tb_load_n(p + i * es, es, v->big_endian), es,
					       (c->flags & TB_PQ_SIGNED) != 0);
			put_int(c->buf + c->vlen_, e, w);
			c->vlen_ += w;
			put_level(c, md, i ? 1 : 0);
		}
		return;
	}
	}
}

static tb_status check_usable(tb_pq_writer *w, tb_error *err)
{
	if (w->sticky) {
		if (err)
			*err = w->sticky_err;
		return w->sticky;
	}
	if (w->finished)
		return tb_fail(err, TB_ERR_ARG, w->offset, "the file is finished");
	return TB_OK;
}

TB_API tb_status tb_pq_write_row(tb_pq_writer *w, const tb_pq_value *vals, tb_error *err)
{
	size_t i;
	int full = 0;
	tb_status st;
	tb_error_clear(err);
	if (!w || (!vals && w->ncols))
		return tb_fail(err, TB_ERR_ARG, 0, "NULL writer or values");
	if ((st = check_usable(w, err)) != TB_OK)
		return st;
	for (i = 0; i < w->ncols; i++) {
		size_t vb, lv;
		const tb_pq_column *c = &w->cols[i];
		st = value_size(c, &vals[i], &vb, &lv);
		if (st == TB_ERR_VALUE)
			return tb_fail(err, st, i,
				       "value does not fit its column (null, range or element size)");
		if (st == TB_OK && fits(c, vb, lv))
			continue;
		/* (the empty buffer has PQ_GAP used: what fits there fits now
		 * unless the row group is full) */
		if (st != TB_OK || vb > c->cap - PQ_GAP || lv > c->cap - PQ_GAP - vb)
			return tb_fail(err, TB_ERR_LIMIT, i, "value larger than its column buffer");
		full = 1;
	}
	if (full || (w->cfg.max_group_rows && w->group_rows >= w->cfg.max_group_rows))
		if ((st = tb_pq_flush(w, err)) != TB_OK)
			return st;
	for (i = 0; i < w->ncols; i++)
		append(&w->cols[i], &vals[i]);
	w->rows++;
	w->group_rows++;
	return TB_OK;
}

/* ---- flushing a row group ---- */

/* What the RLE / bit-packed hybrid encodes: a column's level entries
 * (bytes from the back of its buffer, a nibble of each), or the
 * dictionary indices of its values (2 bytes each). */
typedef struct pq_seq {
	const uint8_t *p; /* levels: one past the first entry; indices: the first */
	size_t n;
	unsigned shift;   /* levels: which nibble */
	int idx;
} pq_seq;

static inline unsigned seq_at(const pq_seq *q, size_t i)
{
	uint16_t v;
	if (!q->idx)
		return (unsigned)(*(q->p - 1 - i) >> q->shift) & 0x0f;
	memcpy(&v, q->p + 2 * i, 2);
	return v;
}

/* An RLE run: its length, then the value in (bw + 7) / 8 bytes. */
static size_t put_run(uint8_t *out, size_t run, unsigned v, unsigned bw)
{
	size_t pos = tb_pb_put_varint(out, (uint64_t)run << 1), k; /* ULEB128, as protobuf's */
	for (k = 0; k < (bw + 7) / 8; k++)
		out[pos++] = (uint8_t)(v >> (8 * k));
	return pos;
}

/* Bytes the hybrid of n values of bw bits can take: per 8 values at most
 * bw bytes and a header byte, or an RLE run of at most bw + 1 bytes (a
 * run of 64 or more has a longer length but covers 8 groups). */
static size_t hybrid_bound(size_t n, unsigned bw)
{
	return (n / 8 + 1) * (bw + 1);
}

/* The RLE / bit-packed hybrid of q into out; returns the bytes written.
 * Runs of 8 or more equal values are RLE runs; the rest goes in
 * bit-packed groups of 8 (the last one padded with zeros). */
static size_t hybrid(const pq_seq *q, unsigned bw, uint8_t *out)
{
	size_t n = q->n, i = 0, pos = 0;
	while (i < n) {
		unsigned v = seq_at(q, i);
		size_t run = 1;
		while (i + run < n && seq_at(q, i + run) == v)
			run++;
		if (run >= 8) {
			pos += put_run(out + pos, run, v, bw);
			i += run;
			continue;
		}
		{
			size_t head = pos++, groups = 0;
			while (i < n && groups < 63) {
				size_t k;
				uint64_t acc = 0;
				unsigned nb = 0;
				if (groups) {
					unsigned f = seq_at(q, i);
					size_t same = 1;
					while (same < 8 && i + same < n && seq_at(q, i + same) == f)
						same++;
					if (same >= 8)
						break;
				}
				for (k = 0; k < 8; k++) {
					acc |= (uint64_t)(i + k < n ? seq_at(q, i + k) : 0) << nb;
					for (nb += bw; nb >= 8; nb -= 8) {
						out[pos++] = (uint8_t)acc;
						acc >>= 8;
					}
				}
				i = n - i < 8 ? n : i + 8;
				groups++;
			}
			out[head] = (uint8_t)(groups << 1 | 1);
		}
	}
	return pos;
}

/* The levels' hybrid after its 4-byte length; returns the bytes written. */
static size_t encode_levels(const tb_pq_column *c, unsigned shift, unsigned bw,
			    uint8_t *out)
{
	size_t pos = 4;
	if (c->lazy_ && c->nlev_) { /* all defined: one RLE run */
		pos += put_run(out + pos, c->nlev_, max_def(c), bw);
	} else {
		pq_seq q;
		q.p = c->buf + c->cap;
		q.n = c->nlev_;
		q.shift = shift;
		q.idx = 0;
		pos += hybrid(&q, bw, out + pos);
	}
	put_int(out, pos - 4, 4);
	return pos;
}

/* Bytes put_levels can write: each stream's length word and hybrid. */
static size_t levels_bound(const tb_pq_column *c)
{
	size_t b = 0;
	if (max_rep(c))
		b += 4 + hybrid_bound(c->nlev_, 1);
	if (max_def(c))
		b += 4 + hybrid_bound(c->nlev_, bit_width(max_def(c)));
	return b;
}

/* The page's levels into s; returns their bytes. */
static size_t put_levels(const tb_pq_column *c, uint8_t *s)
{
	size_t pos = 0;
	if (max_rep(c))
		pos += encode_levels(c, 4, 1, s + pos);
	if (max_def(c))
		pos += encode_levels(c, 0, bit_width(max_def(c)), s + pos);
	return pos;
}

static size_t chunk_bound(const tb_pq_column *c)
{
	return PQ_CHUNK_FIXED + c->name_len;
}

static size_t group_bound(const tb_pq_writer *w)
{
	size_t i, b = PQ_GROUP_FIXED;
	for (i = 0; i < w->ncols; i++)
		b += chunk_bound(&w->cols[i]);
	return b;
}

static int phys_type(const tb_pq_column *c)
{
	if (c->kind == TB_PQ_BYTES)
		return PQ_BYTE_ARRAY;
	return c->bits <= 32 ? PQ_INT32 : PQ_INT64;
}

/* One page as it goes out: its bytes, the compressed ones when they are
 * used, and what its header says. */
typedef struct pq_page {
	const uint8_t *p;
	size_t len;              /* uncompressed */
	const uint8_t *payload;
	size_t plen;
	int dict;                /* a dictionary page */
	uint64_t nvals;
	unsigned enc;
} pq_page;

static void page_init(pq_page *pg, const uint8_t *p, size_t len, int dict, uint64_t nvals,
		      unsigned enc)
{
	pg->p = pg->payload = p;
	pg->len = pg->plen = len;
	pg->dict = dict;
	pg->nvals = nvals;
	pg->enc = enc;
}

/* Compress pg into cscratch: TB_OK with pg->payload set when the
 * compressor managed (*ok; smaller or not), TB_OK with !*ok when it ran
 * out of room, or the compressor's failure (sticky). */
static tb_status compress_page(tb_pq_writer *w, pq_page *pg, int *ok, tb_error *err)
{
	size_t clen = 0;
	tb_status st = w->cfg.compress(w->cfg.compress_ctx, pg->p, pg->len, w->cfg.cscratch,
				       w->cfg.cscratch_cap, &clen);
	*ok = 0;
	if (st == TB_OK && clen > w->cfg.cscratch_cap)
		return fail_sticky(w, err, TB_ERR_ARG, "the compressor wrote past its buffer");
	if (st == TB_OK) {
		pg->payload = w->cfg.cscratch;
		pg->plen = clen;
		*ok = 1;
	} else if (st != TB_ERR_NO_SPACE) {
		return fail_sticky(w, err, tb_is_error(st) ? st : TB_ERR_ARG,
				   "the compressor failed");
	}
	return TB_OK;
}

/* The page's header and payload out; *uncomp grows by header + page. */
static tb_status put_page(tb_pq_writer *w, const pq_page *pg, uint64_t *uncomp,
			  tb_error *err)
{
	uint8_t hdr[64];
	tb_thr h;
	tb_status st;
	/* PageHeader { type, sizes, DataPageHeader { count, encodings } or
	 * DictionaryPageHeader { count, encoding } } */
	tb_thr_init(&h, hdr, sizeof(hdr));
	tb_thr_i32(&h, 1, pg->dict ? PQ_DICTIONARY_PAGE : PQ_DATA_PAGE);
	tb_thr_i32(&h, 2, (int32_t)pg->len);
	tb_thr_i32(&h, 3, (int32_t)pg->plen);
	tb_thr_struct(&h, pg->dict ? 7 : 5);
	tb_thr_i32(&h, 1, (int32_t)pg->nvals);
	tb_thr_i32(&h, 2, (int32_t)pg->enc);
	if (!pg->dict) {
		tb_thr_i32(&h, 3, PQ_ENC_RLE);
		tb_thr_i32(&h, 4, PQ_ENC_RLE);
	}
	tb_thr_end(&h);
	tb_thr_end(&h);
	*uncomp += h.len + pg->len;
	if ((st = drain(w, &h, err)) != TB_OK)
		return st;
	return out(w, pg->payload, pg->plen, err);
}

/* The chunk's place in the footer: ColumnChunk { file_offset,
 * ColumnMetaData { ... } } (dict_off 0: no dictionary page). */
static void chunk_meta(tb_thr *ft, const tb_pq_column *c, unsigned codec, uint64_t start,
		       uint64_t data_off, uint64_t dict_off, uint64_t uncomp, uint64_t comp)
{
	size_t nenc = 1u + (has_levels(c) ? 1u : 0u) + (dict_off ? 1u : 0u);
	tb_thr_elem_struct(ft);
	tb_thr_i64(ft, 2, (int64_t)start);
	tb_thr_struct(ft, 3);
	tb_thr_i32(ft, 1, phys_type(c));
	tb_thr_list(ft, 2, TB_THR_I32, nenc);
	tb_thr_elem_i32(ft, PQ_ENC_PLAIN);
	if (has_levels(c))
		tb_thr_elem_i32(ft, PQ_ENC_RLE);
	if (dict_off)
		tb_thr_elem_i32(ft, PQ_ENC_RLE_DICTIONARY);
	if (is_list(c)) {
		tb_thr_list(ft, 3, TB_THR_BINARY, 3);
		tb_thr_elem_binary(ft, c->name, c->name_len);
		tb_thr_elem_binary(ft, "list", 4);
		tb_thr_elem_binary(ft, "element", 7);
	} else {
		tb_thr_list(ft, 3, TB_THR_BINARY, 1);
		tb_thr_elem_binary(ft, c->name, c->name_len);
	}
	tb_thr_i32(ft, 4, (int32_t)codec);
	tb_thr_i64(ft, 5, (int64_t)c->chunk_values_);
	tb_thr_i64(ft, 6, (int64_t)uncomp);
	tb_thr_i64(ft, 7, (int64_t)comp);
	tb_thr_i64(ft, 9, (int64_t)data_off);
	if (dict_off)
		tb_thr_i64(ft, 11, (int64_t)dict_off);
	tb_thr_end(ft);
	tb_thr_end(ft);
}

/*
 * The chunk's distinct values, first seen first (their offsets in the
 * column's buffer, in dict), and each value's index into them: the
 * number of distinct values when a dictionary pays (at most
 * TB_PQ_DICT_MAX, and the dictionary page plus the packed indices smaller
 * than the values), else 0.  *dbytes: the dictionary page's bytes;
 * *nidx: the values (nulls have none); *bw: the indices' bit width.
 */
static size_t dict_build(const tb_pq_writer *w, const tb_pq_column *c, size_t *dbytes,
			 size_t *nidx, unsigned *bw)
{
	uint8_t *slots = w->cfg.dict, *ents = slots + PQ_DICT_ENTS, *idx = slots + PQ_DICT_IDX;
	uint64_t most = c->chunk_values_ < TB_PQ_DICT_MAX ? c->chunk_values_ : TB_PQ_DICT_MAX;
	size_t nslots = 16, at = PQ_GAP, n = 0, nd = 0, bytes = 0, nv = c->vlen_ - PQ_GAP;
	size_t prev = 0, probes;
	uint32_t plen = 0;
	while (nslots < 2 * most)
		nslots <<= 1;
	memset(slots, 0, nslots * 4);
	while (at < c->vlen_) {
		const uint8_t *v = c->buf + at;
		uint32_t len = tb_load32(v, 0), h, slot;
		size_t k, e;
		/* the same as the value before (a task's events come in runs):
		 * its index, without hashing */
		if (n && len == plen && same_bytes(v + 4, c->buf + prev + 4, len)) {
			memcpy(idx + 2 * n, idx + 2 * (n - 1), 2);
			n++;
			prev = at;
			at += 4 + (size_t)len;
			continue;
		}
		h = value_hash(v + 4, len);
		k = h & (nslots - 1);
		for (probes = 0;; probes++) {
			if (probes == PQ_DICT_PROBES)
				return 0;
			memcpy(&slot, slots + 4 * k, 4);
			if (!slot) {
				if (nd == TB_PQ_DICT_MAX)
					return 0;
				e = nd++;
				slot = (h & ~PQ_SLOT_LOW) | (uint32_t)(e + 1);
				memcpy(slots + 4 * k, &slot, 4);
				memcpy(ents + 4 * e, &(uint32_t){ (uint32_t)at }, 4);
				bytes += 4 + (size_t)len;
				break;
			}
			if (!((slot ^ h) & ~PQ_SLOT_LOW)) {
				uint32_t o;
				e = (slot & PQ_SLOT_LOW) - 1;
				memcpy(&o, ents + 4 * e, 4);
				if (tb_load32(c->buf + o, 0) == len && same_bytes(c->buf + o + 4, v + 4, len))
					break;
			}
			k = (k + 1) & (nslots - 1);
		}
		memcpy(idx + 2 * n, &(uint16_t){ (uint16_t)e }, 2);
		n++;
		prev = at;
		plen = len;
		at += 4 + (size_t)len;
	}
	*bw = nd > 1 ? bit_width((unsigned)(nd - 1)) : 1;
	*dbytes = bytes;
	*nidx = n;
	return nd && bytes + (n * *bw + 7) / 8 + 1 < nv ? nd : 0;
}

/* The data page of a dictionary chunk into s: the levels, the bit width,
 * the indices' hybrid; returns its bytes. */
static size_t dict_data_page(const tb_pq_writer *w, const tb_pq_column *c, uint8_t *s, size_t n,
			     unsigned bw)
{
	size_t len = put_levels(c, s);
	pq_seq q;
	s[len++] = (uint8_t)bw;
	q.p = w->cfg.dict + PQ_DICT_IDX;
	q.n = n;
	q.shift = 0;
	q.idx = 1;
	return len + hybrid(&q, bw, s + len);
}

/*
 * The chunk as a dictionary page and a data page of indices, when that
 * pays: *done.  Nothing is written until both pages are ready,
 * so the chunk can still go out plain.  Scratch: the data page from the
 * front, the dictionary page after it; compressed, the data page moves
 * back into its place and the dictionary page takes cscratch.  A
 * compressed chunk has both pages compressed (the codec is the chunk's);
 * when the dictionary page does not fit cscratch compressed, both go out
 * uncompressed, so whether a chunk has a dictionary never depends on the
 * memory given.
 */
static tb_status flush_dict(tb_pq_writer *w, tb_pq_column *c, tb_thr *ft, uint64_t *tot_uncomp,
			    uint64_t *tot_comp, int *done, tb_error *err)
{
	uint8_t *s = w->cfg.scratch;
	size_t nd, dbytes, n, dlen, e, at;
	unsigned bw, codec = TB_PQ_UNCOMPRESSED;
	uint64_t start = w->offset, data_off, uncomp = 0;
	pq_page dp, pp;
	tb_status st;
	*done = 0;
	if (!(nd = dict_build(w, c, &dbytes, &n, &bw)))
		return TB_OK;
	/* (a scratch of tb_pq_scratch_size() always has the room: the levels
	 * and the values fit in cap, the indices and dictionary in less) */
	if (w->cfg.scratch_cap < levels_bound(c) + 1 + hybrid_bound(n, bw) + dbytes)
		return TB_OK;
	dlen = dict_data_page(w, c, s, n, bw);
	/* the dictionary page: the distinct values, PLAIN */
	for (e = 0, at = dlen; e < nd; e++) {
		uint32_t o;
		size_t len;
		memcpy(&o, w->cfg.dict + PQ_DICT_ENTS + 4 * e, 4);
		len = 4 + (size_t)tb_load32(c->buf + o, 0);
		memcpy(s + at, c->buf + o, len);
		at += len;
	}
	page_init(&dp, s, dlen, 0, c->chunk_values_, PQ_ENC_RLE_DICTIONARY);
	page_init(&pp, s + dlen, dbytes, 1, nd, PQ_ENC_PLAIN);
	if (w->cfg.compress) {
		int ok;
		if ((st = compress_page(w, &dp, &ok, err)) != TB_OK)
			return st;
		if (ok && dp.plen < dp.len) {
			memcpy(s, dp.payload, dp.plen); /* over the page it came from */
			dp.payload = s;
			if ((st = compress_page(w, &pp, &ok, err)) != TB_OK)
				return st;
			if (ok) {
				codec = w->cfg.codec;
			} else { /* both uncompressed: the data page again */
				dict_data_page(w, c, s, n, bw);
				dp.plen = dp.len;
				pp.payload = pp.p;
			}
		} else {
			dp.payload = s;
			dp.plen = dp.len;
		}
	}
	if ((st = put_page(w, &pp, &uncomp, err)) != TB_OK)
		return st;
	data_off = w->offset;
	if ((st = put_page(w, &dp, &uncomp, err)) != TB_OK)
		return st;
	chunk_meta(ft, c, codec, start, data_off, start, uncomp, w->offset - start);
	*tot_uncomp += uncomp;
	*tot_comp += w->offset - start;
	w->dict_chunks++;
	*done = 1;
	return TB_OK;
}

/* Write one column's chunk (one data page, or a dictionary page and one
 * data page) and its ColumnChunk metadata into ft. */
static tb_status flush_column(tb_pq_writer *w, tb_pq_column *c, tb_thr *ft,
			      uint64_t *tot_uncomp, uint64_t *tot_comp, tb_error *err)
{
	uint8_t *s = w->cfg.scratch;
	size_t pos, nv = c->vlen_ - PQ_GAP;
	unsigned codec = TB_PQ_UNCOMPRESSED;
	uint64_t page_off = w->offset, uncomp = 0;
	int done = 0;
	pq_page pg;
	tb_status st;
	if ((c->flags & TB_PQ_DICT) && nv &&
	    (st = flush_dict(w, c, ft, tot_uncomp, tot_comp, &done, err)) != TB_OK)
		return st;
	if (!done) {
		const uint8_t *page = s;
		pos = put_levels(c, s);
		if (pos <= PQ_GAP && !max_rep(c)) {
			/* in place: the levels just before the values */
			if (pos)
				memcpy(c->buf + PQ_GAP - pos, s, pos);
			page = c->buf + PQ_GAP - pos;
		} else if (nv) {
			memcpy(s + pos, c->buf + PQ_GAP, nv);
		}
		page_init(&pg, page, pos + nv, 0, c->chunk_values_, PQ_ENC_PLAIN);
		if (w->cfg.compress) {
			int ok;
			if ((st = compress_page(w, &pg, &ok, err)) != TB_OK)
				return st;
			if (ok && pg.plen < pg.len) {
				codec = w->cfg.codec;
			} else {
				pg.payload = pg.p;
				pg.plen = pg.len;
			}
		}
		if ((st = put_page(w, &pg, &uncomp, err)) != TB_OK)
			return st;
		chunk_meta(ft, c, codec, page_off, page_off, 0, uncomp, w->offset - page_off);
		*tot_uncomp += uncomp;
		*tot_comp += w->offset - page_off;
	}
	c->vlen_ = PQ_GAP;
	c->nlev_ = 0;
	c->chunk_values_ = 0;
	c->lazy_ = !is_list(c);
	return TB_OK;
}

TB_API tb_status tb_pq_flush(tb_pq_writer *w, tb_error *err)
{
	size_t i, need;
	uint64_t uncomp = 0, comp = 0, first = 0;
	tb_thr ft;
	tb_status st;
	if (!w)
		return tb_fail(err, TB_ERR_ARG, 0, "NULL writer");
	if ((st = check_usable(w, err)) != TB_OK)
		return st;
	if (!w->group_rows)
		return TB_OK;
	need = group_bound(w);
	if (w->footer_cap < w->footer_len || need > w->footer_cap - w->footer_len) {
		w->footer_need = w->footer_len + need;
		return tb_fail(err, TB_ERR_NO_SPACE, w->offset,
			       "footer buffer full: give a larger one (footer_need)");
	}
	/* RowGroup { columns: [...], total_byte_size, num_rows, file_offset,
	 * total_compressed_size } */
	tb_thr_init(&ft, w->footer + w->footer_len, w->footer_cap - w->footer_len);
	tb_thr_list(&ft, 1, TB_THR_STRUCT, w->ncols);
	first = w->offset;
	for (i = 0; i < w->ncols; i++)
		if ((st = flush_column(w, &w->cols[i], &ft, &uncomp, &comp, err)) != TB_OK)
			return st;
	tb_thr_i64(&ft, 2, (int64_t)uncomp);
	tb_thr_i64(&ft, 3, (int64_t)w->group_rows);
	tb_thr_i64(&ft, 5, (int64_t)first);
	tb_thr_i64(&ft, 6, (int64_t)comp);
	tb_thr_end(&ft);
	if (ft.overflow)
		return fail_sticky(w, err, TB_ERR_LIMIT, "row group metadata over its bound");
	w->footer_len += ft.len;
	w->groups++;
	w->group_rows = 0;
	return TB_OK;
}

/* ---- the footer ---- */

static void int_annotation(tb_thr *t, const tb_pq_column *c)
{
	int sig = (c->flags & TB_PQ_SIGNED) != 0;
	unsigned lg = c->bits == 8 ? 0u : c->bits == 16 ? 1u : c->bits == 32 ? 2u : 3u;
	tb_thr_i32(t, 6, (int32_t)((sig ? PQ_CT_INT_8 : PQ_CT_UINT_8) + lg));
	tb_thr_struct(t, 10);
	tb_thr_struct(t, 10);
	tb_thr_i8(t, 1, (int8_t)c->bits);
	tb_thr_bool(t, 2, sig);
	tb_thr_end(t);
	tb_thr_end(t);
}

static void schema_element(tb_thr *t, const tb_pq_column *c)
{
	int opt = (c->flags & TB_PQ_NULLABLE) != 0;
	tb_thr_elem_struct(t);
	if (is_list(c)) {
		tb_thr_i32(t, 3, opt ? PQ_OPTIONAL : PQ_REQUIRED);
		tb_thr_binary(t, 4, c->name, c->name_len);
		tb_thr_i32(t, 5, 1);
		tb_thr_i32(t, 6, PQ_CT_LIST);
		tb_thr_struct(t, 10);
		tb_thr_struct(t, 3);
		tb_thr_end(t);
		tb_thr_end(t);
		tb_thr_end(t);
		tb_thr_elem_struct(t);
		tb_thr_i32(t, 3, PQ_REPEATED);
		tb_thr_binary(t, 4, "list", 4);
		tb_thr_i32(t, 5, 1);
		tb_thr_end(t);
		tb_thr_elem_struct(t);
		tb_thr_i32(t, 1, phys_type(c));
		tb_thr_i32(t, 3, PQ_REQUIRED);
		tb_thr_binary(t, 4, "element", 7);
		int_annotation(t, c);
		tb_thr_end(t);
		return;
	}
	tb_thr_i32(t, 1, phys_type(c));
	tb_thr_i32(t, 3, opt ? PQ_OPTIONAL : PQ_REQUIRED);
	tb_thr_binary(t, 4, c->name, c->name_len);
	if (c->kind == TB_PQ_INT) {
		int_annotation(t, c);
	} else if ((c->flags & TB_PQ_TEXT) && !c->non_utf8) {
		tb_thr_i32(t, 6, PQ_CT_UTF8);
		tb_thr_struct(t, 10);
		tb_thr_struct(t, 1);
		tb_thr_end(t);
		tb_thr_end(t);
	}
	tb_thr_end(t);
}

TB_API tb_status tb_pq_finish(tb_pq_writer *w, tb_error *err)
{
	uint8_t stage[PQ_STAGE];
	size_t i, nschema = 1;
	uint64_t start;
	const char *by;
	tb_thr t;
	tb_status st;
	tb_error_clear(err);
	if (!w)
		return tb_fail(err, TB_ERR_ARG, 0, "NULL writer");
	if ((st = tb_pq_flush(w, err)) != TB_OK)
		return st;
	start = w->offset;
	for (i = 0; i < w->ncols; i++)
		nschema += is_list(&w->cols[i]) ? 3 : 1;
	/* FileMetaData { version, schema, num_rows, row_groups, kv, created_by } */
	tb_thr_init(&t, stage, sizeof(stage));
	tb_thr_i32(&t, 1, 1);
	tb_thr_list(&t, 2, TB_THR_STRUCT, nschema);
	tb_thr_elem_struct(&t);
	tb_thr_binary(&t, 4, "schema", 6);
	tb_thr_i32(&t, 5, (int32_t)w->ncols);
	tb_thr_end(&t);
	for (i = 0; i < w->ncols; i++) {
		schema_element(&t, &w->cols[i]);
		if ((st = drain(w, &t, err)) != TB_OK)
			return st;
	}
	tb_thr_i64(&t, 3, (int64_t)w->rows);
	tb_thr_list(&t, 4, TB_THR_STRUCT, w->groups);
	if ((st = drain(w, &t, err)) != TB_OK ||
	    (st = out(w, w->footer, w->footer_len, err)) != TB_OK)
		return st;
	if (w->nkv) {
		tb_thr_list(&t, 5, TB_THR_STRUCT, w->nkv);
		for (i = 0; i < w->nkv; i++) {
			tb_thr_elem_struct(&t);
			tb_thr_binary(&t, 1, w->kv[i].key, w->kv[i].key_len);
			tb_thr_binary(&t, 2, w->kv[i].value, w->kv[i].value_len);
			tb_thr_end(&t);
			if ((st = drain(w, &t, err)) != TB_OK)
				return st;
		}
	}
	by = w->cfg.created_by ? w->cfg.created_by : "tracebound version " TB_VERSION_STRING;
	tb_thr_binary(&t, 6, by, strnlen(by, TB_PQ_MAX_NAME));
	tb_thr_end(&t);
	if ((st = drain(w, &t, err)) != TB_OK)
		return st;
	{
		uint8_t tail[8];
		uint64_t flen = w->offset - start;
		if (flen > UINT32_MAX)
			return fail_sticky(w, err, TB_ERR_LIMIT, "footer over 4 GiB");
		static const uint8_t magic[4] = { 'P', 'A', 'R', '1' };
		put_int(tail, flen, 4);
		memcpy(tail + 4, magic, sizeof(magic));
		if ((st = out(w, tail, 8, err)) != TB_OK)
			return st;
	}
	w->finished = 1;
	return TB_OK;
}
