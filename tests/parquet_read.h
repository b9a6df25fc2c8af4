/*
 * A small Parquet reader for the writer's tests and fuzz harness (test
 * code: it allocates).  It parses the Thrift compact footer
 * (FileMetaData, SchemaElement, LogicalType, RowGroup, ColumnChunk,
 * ColumnMetaData, KeyValue) and the pages (PageHeader, DataPageHeader,
 * DictionaryPageHeader, hybrid RLE/bit-packed levels, PLAIN INT32 / INT64 /
 * BYTE_ARRAY values, RLE_DICTIONARY / PLAIN_DICTIONARY indices into a
 * PLAIN dictionary page), written from the format description, independently
 * of lib/parquet.c.  Every read is bounds-checked: it runs on truncated
 * and mutated files too and must fail cleanly.
 *
 *   pqr_file f;  pqr_open(&f, data, len)  -> 0, or -1 with f.error set
 *   pqr_leaf(&f, j, &entries, &n, decompress, ctx) -> 0 / -1: every level
 *       entry of leaf column j over all row groups
 *   pqr_close(&f)
 */
#ifndef TB_TESTS_PARQUET_READ_H
#define TB_TESTS_PARQUET_READ_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define PQR_MAX_DEPTH 16
#define PQR_NAME_MAX 1100

typedef struct pqr_schema {
	char name[PQR_NAME_MAX];
	size_t name_len;
	int type;            /* -1: a group */
	int rep;             /* -1: absent */
	int nchild;
	int conv;            /* -1: absent */
	int logical;         /* LogicalType union field id, 0: absent */
	int int_bits, int_signed;
	int max_def, max_rep;/* for leaves: from the path */
} pqr_schema;

typedef struct pqr_chunk {
	int type, codec;
	int64_t num_values, data_page_offset, comp_size, uncomp_size;
	int64_t dict_page_offset; /* -1: absent */
	int npath;
	int have_meta;
} pqr_chunk;

typedef struct pqr_group {
	int64_t num_rows;
	pqr_chunk *chunks;
	size_t nchunks;
} pqr_group;

typedef struct pqr_kv {
	char key[PQR_NAME_MAX], value[PQR_NAME_MAX];
} pqr_kv;

typedef struct pqr_entry {
	uint8_t rep, def;
	int has_value;
	int64_t i;
	const uint8_t *p;
	uint32_t n;
} pqr_entry;

typedef struct pqr_file {
	const uint8_t *data;
	size_t len;
	int version;
	pqr_schema *schema;
	size_t nschema;
	size_t *leaves;      /* schema index of each leaf */
	size_t nleaves;
	int64_t num_rows;
	pqr_group *groups;
	size_t ngroups;
	pqr_kv *kv;
	size_t nkv;
	char created_by[PQR_NAME_MAX];
	void **pages;        /* decompressed pages, freed by pqr_close */
	size_t npages;
	const char *error;
} pqr_file;

/* Decompress: 0 with *out (malloc-ed, `uncompressed` bytes), or -1. */
typedef int (*pqr_decompress_fn)(void *ctx, int codec, const uint8_t *src, size_t n,
				 size_t uncompressed, uint8_t **out);

typedef struct pqr_rd {
	const uint8_t *p;
	size_t len, pos;
	int bad;
} pqr_rd;

static inline uint64_t pqr_varint(pqr_rd *r)
{
	uint64_t v = 0;
	unsigned shift = 0;
	for (;;) {
		uint8_t b;
		if (r->pos >= r->len || shift > 63) {
			r->bad = 1;
			return 0;
		}
		b = r->p[r->pos++];
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
		shift += 7;
	}
}

static inline int64_t pqr_zz(pqr_rd *r)
{
	uint64_t u = pqr_varint(r);
	return (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
}

static inline uint8_t pqr_byte(pqr_rd *r)
{
	if (r->pos >= r->len) {
		r->bad = 1;
		return 0;
	}
	return r->p[r->pos++];
}

/* A binary: pointer into the input and its length. */
static inline const uint8_t *pqr_bin(pqr_rd *r, size_t *n)
{
	uint64_t l = pqr_varint(r);
	const uint8_t *p;
	if (r->bad || l > r->len - r->pos) {
		r->bad = 1;
		*n = 0;
		return NULL;
	}
	p = r->p + r->pos;
	r->pos += (size_t)l;
	*n = (size_t)l;
	return p;
}

static inline void pqr_copy_str(char *dst, const uint8_t *s, size_t n, size_t *out_len)
{
	if (n >= PQR_NAME_MAX)
		n = PQR_NAME_MAX - 1;
	if (n)
		memcpy(dst, s, n);
	dst[n] = 0;
	if (out_len)
		*out_len = n;
}

/* Field header: 0 at stop, else the type; *id updated. */
static inline int pqr_field(pqr_rd *r, int16_t *id)
{
	uint8_t b = pqr_byte(r);
	int t = b & 0x0f;
	if (r->bad || b == 0)
		return 0;
	if (b >> 4)
		*id = (int16_t)(*id + (b >> 4));
	else
		*id = (int16_t)pqr_zz(r);
	return t;
}

static inline size_t pqr_list(pqr_rd *r, int *elem)
{
	uint8_t b = pqr_byte(r);
	size_t n = b >> 4;
	*elem = b & 0x0f;
	if (n == 15) {
		uint64_t v = pqr_varint(r);
		n = v > r->len ? r->len + 1 : (size_t)v;
	}
	if (n > r->len - r->pos && *elem != 1 && *elem != 2)
		r->bad = 1; /* every element takes a byte at least */
	return r->bad ? 0 : n;
}

static inline void pqr_skip(pqr_rd *r, int type, int depth);

static inline void pqr_skip_struct(pqr_rd *r, int depth)
{
	int16_t id = 0;
	int t;
	if (depth > PQR_MAX_DEPTH) {
		r->bad = 1;
		return;
	}
	while (!r->bad && (t = pqr_field(r, &id)) != 0)
		pqr_skip(r, t, depth + 1);
}

static inline void pqr_skip(pqr_rd *r, int type, int depth)
{
	size_t n, i;
	int e, e2;
	if (depth > PQR_MAX_DEPTH) {
		r->bad = 1;
		return;
	}
	switch (type) {
	case 1: case 2: return;               /* bool in a field header */
	case 3: (void)pqr_byte(r); return;
	case 4: case 5: case 6: (void)pqr_varint(r); return;
	case 7: if (r->len - r->pos < 8) r->bad = 1; else r->pos += 8; return;
	case 8: (void)pqr_bin(r, &n); return;
	case 9: case 10:
		n = pqr_list(r, &e);
		for (i = 0; i < n && !r->bad; i++) {
			if (e == 1 || e == 2)
				(void)pqr_byte(r);
			else
				pqr_skip(r, e, depth + 1);
		}
		return;
	case 11: {
		uint8_t kt;
		n = (size_t)pqr_varint(r);
		if (!n)
			return;
		kt = pqr_byte(r);
		e = kt >> 4;
		e2 = kt & 0x0f;
		for (i = 0; i < n && !r->bad; i++) {
			pqr_skip(r, e, depth + 1);
			pqr_skip(r, e2, depth + 1);
		}
		return;
	}
	case 12: pqr_skip_struct(r, depth + 1); return;
	default: r->bad = 1; return;
	}
}

static inline void pqr_logical(pqr_rd *r, pqr_schema *s)
{
	int16_t id = 0;
	int t;
	while (!r->bad && (t = pqr_field(r, &id)) != 0) {
		if (t == 12 && !s->logical) {
			s->logical = id;
			if (id == 10) { /* IntType */
				int16_t id2 = 0;
				int t2;
				while (!r->bad && (t2 = pqr_field(r, &id2)) != 0) {
					if (id2 == 1 && t2 == 3)
						s->int_bits = (int8_t)pqr_byte(r);
					else if (id2 == 2 && (t2 == 1 || t2 == 2))
						s->int_signed = t2 == 1;
					else
						pqr_skip(r, t2, 2);
				}
			} else {
				pqr_skip_struct(r, 2);
			}
		} else {
			pqr_skip(r, t, 1);
		}
	}
}

static inline void pqr_schema_el(pqr_rd *r, pqr_schema *s)
{
	int16_t id = 0;
	int t;
	memset(s, 0, sizeof(*s));
	s->type = s->rep = s->conv = -1;
	while (!r->bad && (t = pqr_field(r, &id)) != 0) {
		if (id == 1 && t == 5)
			s->type = (int)pqr_zz(r);
		else if (id == 3 && t == 5)
			s->rep = (int)pqr_zz(r);
		else if (id == 4 && t == 8) {
			size_t n;
			const uint8_t *p = pqr_bin(r, &n);
			if (p)
				pqr_copy_str(s->name, p, n, &s->name_len);
		} else if (id == 5 && t == 5)
			s->nchild = (int)pqr_zz(r);
		else if (id == 6 && t == 5)
			s->conv = (int)pqr_zz(r);
		else if (id == 10 && t == 12)
			pqr_logical(r, s);
		else
			pqr_skip(r, t, 1);
	}
}

static inline void pqr_colmeta(pqr_rd *r, pqr_chunk *c)
{
	int16_t id = 0;
	int t, e;
	size_t n, i;
	c->have_meta = 1;
	c->dict_page_offset = -1;
	while (!r->bad && (t = pqr_field(r, &id)) != 0) {
		if (id == 1 && t == 5)
			c->type = (int)pqr_zz(r);
		else if (id == 3 && t == 9) {
			n = pqr_list(r, &e);
			c->npath = (int)n;
			for (i = 0; i < n && !r->bad; i++)
				pqr_skip(r, e, 2);
		} else if (id == 4 && t == 5)
			c->codec = (int)pqr_zz(r);
		else if (id == 5 && t == 6)
			c->num_values = pqr_zz(r);
		else if (id == 6 && t == 6)
			c->uncomp_size = pqr_zz(r);
		else if (id == 7 && t == 6)
			c->comp_size = pqr_zz(r);
		else if (id == 9 && t == 6)
			c->data_page_offset = pqr_zz(r);
		else if (id == 11 && t == 6)
			c->dict_page_offset = pqr_zz(r);
		else
			pqr_skip(r, t, 1);
	}
}

static inline void pqr_rowgroup(pqr_rd *r, pqr_group *g)
{
	int16_t id = 0;
	int t, e;
	size_t n, i;
	while (!r->bad && (t = pqr_field(r, &id)) != 0) {
		if (id == 1 && t == 9 && !g->chunks) {
			n = pqr_list(r, &e);
			g->chunks = calloc(n + 1, sizeof(*g->chunks));
			g->nchunks = n;
			for (i = 0; i < n && !r->bad; i++) {
				int16_t id2 = 0;
				int t2;
				if (e != 12) {
					r->bad = 1;
					break;
				}
				while (!r->bad && (t2 = pqr_field(r, &id2)) != 0) {
					if (id2 == 3 && t2 == 12)
						pqr_colmeta(r, &g->chunks[i]);
					else
						pqr_skip(r, t2, 2);
				}
			}
		} else if (id == 3 && t == 6)
			g->num_rows = pqr_zz(r);
		else
			pqr_skip(r, t, 1);
	}
}

static inline void pqr_close(pqr_file *f)
{
	size_t i;
	for (i = 0; i < f->ngroups; i++)
		free(f->groups[i].chunks);
	for (i = 0; i < f->npages; i++)
		free(f->pages[i]);
	free(f->pages);
	free(f->groups);
	free(f->schema);
	free(f->leaves);
	free(f->kv);
	memset(f, 0, sizeof(*f));
}

/* Walk the schema tree (depth-first, as stored) to find the leaves and
 * their level maxima.  Iterative, with an explicit stack. */
static inline int pqr_tree(pqr_file *f)
{
	struct { int left, def, rep; } st[PQR_MAX_DEPTH + 1];
	size_t i, sp = 0;
	if (!f->nschema || f->schema[0].nchild < 0)
		return -1;
	f->leaves = calloc(f->nschema, sizeof(size_t));
	st[0].left = f->schema[0].nchild;
	st[0].def = st[0].rep = 0;
	for (i = 1; i < f->nschema; i++) {
		pqr_schema *s = &f->schema[i];
		int def, rep;
		while (sp > 0 && st[sp].left == 0)
			sp--;
		if (st[sp].left <= 0)
			return -1;
		st[sp].left--;
		def = st[sp].def + (s->rep == 1 || s->rep == 2);
		rep = st[sp].rep + (s->rep == 2);
		if (s->nchild > 0) {
			if (sp >= PQR_MAX_DEPTH)
				return -1;
			sp++;
			st[sp].left = s->nchild;
			st[sp].def = def;
			st[sp].rep = rep;
		} else {
			if (s->type < 0)
				return -1;
			s->max_def = def;
			s->max_rep = rep;
			f->leaves[f->nleaves++] = i;
		}
	}
	while (sp > 0 && st[sp].left == 0)
		sp--;
	return st[sp].left == 0 && sp == 0 ? 0 : -1;
}

static inline int pqr_open(pqr_file *f, const uint8_t *data, size_t len)
{
	pqr_rd r;
	uint32_t flen;
	int16_t id = 0;
	int t, e;
	size_t n, i;
	memset(f, 0, sizeof(*f));
	f->data = data;
	f->len = len;
	f->error = "too short";
	if (len < 12 || memcmp(data, "PAR1", 4) || memcmp(data + len - 4, "PAR1", 4))
		return -1;
	flen = (uint32_t)data[len - 8] | (uint32_t)data[len - 7] << 8 |
	       (uint32_t)data[len - 6] << 16 | (uint32_t)data[len - 5] << 24;
	f->error = "footer length";
	if (flen > len - 12)
		return -1;
	r.p = data + len - 8 - flen;
	r.len = flen;
	r.pos = 0;
	r.bad = 0;
	while (!r.bad && (t = pqr_field(&r, &id)) != 0) {
		if (id == 1 && t == 5)
			f->version = (int)pqr_zz(&r);
		else if (id == 2 && t == 9 && !f->schema) {
			n = pqr_list(&r, &e);
			f->schema = calloc(n + 1, sizeof(*f->schema));
			f->nschema = n;
			for (i = 0; i < n && !r.bad; i++) {
				if (e != 12)
					r.bad = 1;
				else
					pqr_schema_el(&r, &f->schema[i]);
			}
		} else if (id == 3 && t == 6)
			f->num_rows = pqr_zz(&r);
		else if (id == 4 && t == 9 && !f->groups) {
			n = pqr_list(&r, &e);
			f->groups = calloc(n + 1, sizeof(*f->groups));
			f->ngroups = n;
			for (i = 0; i < n && !r.bad; i++) {
				if (e != 12)
					r.bad = 1;
				else
					pqr_rowgroup(&r, &f->groups[i]);
			}
		} else if (id == 5 && t == 9 && !f->kv) {
			n = pqr_list(&r, &e);
			f->kv = calloc(n + 1, sizeof(*f->kv));
			f->nkv = n;
			for (i = 0; i < n && !r.bad; i++) {
				int16_t id2 = 0;
				int t2;
				if (e != 12) {
					r.bad = 1;
					break;
				}
				while (!r.bad && (t2 = pqr_field(&r, &id2)) != 0) {
					size_t bl;
					const uint8_t *bp;
					if (t2 == 8 && (id2 == 1 || id2 == 2)) {
						bp = pqr_bin(&r, &bl);
						if (bp)
							pqr_copy_str(id2 == 1 ? f->kv[i].key
									      : f->kv[i].value,
								     bp, bl, NULL);
					} else {
						pqr_skip(&r, t2, 2);
					}
				}
			}
		} else if (id == 6 && t == 8) {
			const uint8_t *p = pqr_bin(&r, &n);
			if (p)
				pqr_copy_str(f->created_by, p, n, NULL);
		} else
			pqr_skip(&r, t, 1);
	}
	f->error = "footer does not parse";
	if (r.bad || r.pos != r.len)
		return -1;
	f->error = "schema tree";
	if (pqr_tree(f))
		return -1;
	f->error = "row groups do not match the schema";
	for (i = 0; i < f->ngroups; i++)
		if (f->groups[i].nchunks != f->nleaves)
			return -1;
	f->error = NULL;
	return 0;
}

static inline void pqr_put(uint8_t *out8, uint32_t *out32, size_t i, uint32_t v)
{
	if (out8)
		out8[i] = (uint8_t)v;
	else
		out32[i] = v;
}

/* Decode n values of bit width bw (<= 32) of the RLE / bit-packed hybrid
 * into out8 (levels) or out32 (dictionary indices). */
static inline int pqr_hybrid(pqr_rd *r, unsigned bw, uint8_t *out8, uint32_t *out32, size_t n)
{
	size_t got = 0;
	if (bw > 32)
		return -1;
	while (got < n) {
		uint64_t h = pqr_varint(r);
		if (r->bad)
			return -1;
		if (h & 1) {
			uint64_t groups = h >> 1, k;
			if (!groups || groups > (r->len - r->pos) / (bw ? bw : 1) + 1)
				return -1;
			for (k = 0; k < groups * 8; k++) {
				size_t bit = (size_t)k * bw;
				uint32_t v = 0;
				unsigned b;
				for (b = 0; b < bw; b++) {
					size_t at = r->pos + (bit + b) / 8;
					if (at >= r->len)
						return -1;
					v |= (uint32_t)(r->p[at] >> ((bit + b) % 8) & 1) << b;
				}
				if (got < n)
					pqr_put(out8, out32, got++, v);
			}
			r->pos += (size_t)groups * bw;
		} else {
			uint64_t run = h >> 1;
			uint32_t v = 0;
			unsigned b;
			for (b = 0; b < (bw + 7) / 8; b++)
				v |= (uint32_t)pqr_byte(r) << (8 * b);
			if (r->bad || !run)
				return -1;
			while (run-- && got < n)
				pqr_put(out8, out32, got++, v);
		}
	}
	return 0;
}

static inline int pqr_levels(pqr_rd *r, unsigned bw, uint8_t *out, size_t n)
{
	return bw > 8 ? -1 : pqr_hybrid(r, bw, out, NULL, n);
}

/* A page header: *ptype 0 (data: *nvals, *enc) or 2 (dictionary:
 * *nvals entries, *enc PLAIN or PLAIN_DICTIONARY). */
static inline int pqr_page_header(pqr_rd *r, int *ptype, int32_t *usize, int32_t *csize,
				  int32_t *nvals, int *enc)
{
	int16_t id = 0;
	int t;
	*ptype = -1;
	*nvals = -1;
	*enc = -1;
	*usize = *csize = -1;
	while (!r->bad && (t = pqr_field(r, &id)) != 0) {
		if (id == 1 && t == 5)
			*ptype = (int)pqr_zz(r);
		else if (id == 2 && t == 5)
			*usize = (int32_t)pqr_zz(r);
		else if (id == 3 && t == 5)
			*csize = (int32_t)pqr_zz(r);
		else if ((id == 5 || id == 7) && t == 12) {
			int16_t id2 = 0;
			int t2;
			while (!r->bad && (t2 = pqr_field(r, &id2)) != 0) {
				if (id2 == 1 && t2 == 5)
					*nvals = (int32_t)pqr_zz(r);
				else if (id2 == 2 && t2 == 5)
					*enc = (int)pqr_zz(r);
				else
					pqr_skip(r, t2, 2);
			}
		} else
			pqr_skip(r, t, 1);
	}
	if (r->bad || *usize < 0 || *csize < 0 || *nvals < 0)
		return -1;
	if (*ptype == 0)
		return *enc == 0 || *enc == 2 || *enc == 8 ? 0 : -1;
	if (*ptype == 2)
		return *enc == 0 || *enc == 2 ? 0 : -1;
	return -1;
}

/* One PLAIN value of physical type `type` into e. */
static inline int pqr_plain(pqr_rd *pr, int type, pqr_entry *e)
{
	e->has_value = 1;
	if (type == 1 || type == 2) { /* INT32, INT64 */
		size_t w = type == 1 ? 4 : 8;
		uint64_t x = 0;
		if (pr->len - pr->pos < w)
			return -1;
		memcpy(&x, pr->p + pr->pos, w); /* little-endian host */
		pr->pos += w;
		e->i = type == 1 ? (int32_t)(uint32_t)x : (int64_t)x;
	} else if (type == 6) {
		uint32_t l;
		if (pr->len - pr->pos < 4)
			return -1;
		memcpy(&l, pr->p + pr->pos, 4);
		pr->pos += 4;
		if (l > pr->len - pr->pos)
			return -1;
		e->p = pr->p + pr->pos;
		e->n = l;
		pr->pos += l;
	} else {
		return -1;
	}
	return 0;
}

/* Every level entry of leaf column `leaf` over all row groups into *out
 * (malloc-ed).  A chunk is an optional dictionary page (first, where
 * dictionary_page_offset says, and the data pages right after it at
 * data_page_offset), then data pages of PLAIN values or dictionary
 * indices. */
static inline int pqr_leaf(pqr_file *f, size_t leaf, pqr_entry **out, size_t *nout,
			   pqr_decompress_fn dec, void *ctx)
{
	const pqr_schema *s;
	size_t g, cap = 0, n = 0;
	pqr_entry *v = NULL, *dict = NULL;
	uint8_t *lv_rep = NULL, *lv_def = NULL;
	uint32_t *ix = NULL;
	*out = NULL;
	*nout = 0;
	if (leaf >= f->nleaves)
		return -1;
	s = &f->schema[f->leaves[leaf]];
	for (g = 0; g < f->ngroups; g++) {
		const pqr_chunk *c = &f->groups[g].chunks[leaf];
		uint64_t pos;
		int64_t left = c->num_values;
		size_t ndict = 0;
		int data_seen = 0;
		if (!c->have_meta || c->type != s->type || c->data_page_offset < 4 ||
		    (uint64_t)c->data_page_offset > f->len || c->comp_size < 0 ||
		    (uint64_t)c->comp_size > f->len || c->num_values < 0 ||
		    (c->dict_page_offset >= 0 &&
		     (c->dict_page_offset < 4 || c->dict_page_offset >= c->data_page_offset)))
			goto bad;
		pos = (uint64_t)(c->dict_page_offset >= 0 ? c->dict_page_offset
							  : c->data_page_offset);
		free(dict);
		dict = NULL;
		while (left > 0) {
			pqr_rd r, pr;
			int ptype, enc;
			int32_t us, cs, nv, k;
			const uint8_t *page;
			if (pos >= f->len)
				goto bad;
			r.p = f->data;
			r.len = f->len - 8;
			r.pos = (size_t)pos;
			r.bad = 0;
			if (r.pos > r.len || pqr_page_header(&r, &ptype, &us, &cs, &nv, &enc) ||
			    (size_t)cs > r.len - r.pos || (ptype == 0 && nv > left))
				goto bad;
			page = f->data + r.pos;
			pos = r.pos + (size_t)cs;
			if (c->codec != 0) {
				uint8_t *u = NULL;
				void **np;
				if (!dec || dec(ctx, c->codec, page, (size_t)cs, (size_t)us, &u))
					goto bad;
				np = realloc(f->pages, (f->npages + 1) * sizeof(void *));
				if (!np) {
					free(u);
					goto bad;
				}
				f->pages = np;
				f->pages[f->npages++] = u;
				page = u;
			} else if (us != cs) {
				goto bad;
			}
			pr.p = page;
			pr.len = (size_t)us;
			pr.pos = 0;
			pr.bad = 0;
			if (ptype == 2) {
				/* the dictionary: first, once, the data right after */
				/* (every PLAIN value takes 4 bytes at least: a count
				 * past that is damage, not an allocation to try) */
				if (dict || data_seen || (int64_t)pos != c->data_page_offset ||
				    (size_t)nv > pr.len / 4)
					goto bad;
				dict = calloc((size_t)nv + 1, sizeof(*dict));
				if (!dict)
					goto bad;
				for (k = 0; k < nv; k++)
					if (pqr_plain(&pr, s->type, &dict[k]))
						goto bad;
				if (pr.pos != pr.len)
					goto bad;
				ndict = (size_t)nv;
				continue;
			}
			data_seen = 1;
			if (enc != 0 && !dict)
				goto bad; /* indices without a dictionary */
			lv_rep = calloc((size_t)nv + 1, 1);
			lv_def = calloc((size_t)nv + 1, 1);
			ix = calloc((size_t)nv + 1, sizeof(*ix));
			if (!lv_rep || !lv_def || !ix)
				goto bad;
			if (s->max_rep || s->max_def) {
				int pass;
				for (pass = 0; pass < 2; pass++) {
					int maxl = pass ? s->max_def : s->max_rep;
					uint32_t l;
					pqr_rd sub;
					unsigned bw = 0;
					if (!maxl)
						continue;
					while ((1 << bw) <= maxl)
						bw++;
					if (pr.len - pr.pos < 4)
						goto bad;
					l = (uint32_t)pr.p[pr.pos] | (uint32_t)pr.p[pr.pos + 1] << 8 |
					    (uint32_t)pr.p[pr.pos + 2] << 16 |
					    (uint32_t)pr.p[pr.pos + 3] << 24;
					pr.pos += 4;
					if (l > pr.len - pr.pos)
						goto bad;
					sub.p = pr.p + pr.pos;
					sub.len = l;
					sub.pos = 0;
					sub.bad = 0;
					if (pqr_levels(&sub, bw, pass ? lv_def : lv_rep, (size_t)nv))
						goto bad;
					pr.pos += l;
				}
			}
			if (enc != 0) {
				/* a bit width byte, then the indices of the defined values */
				size_t ndef = 0;
				unsigned bw;
				for (k = 0; k < nv; k++)
					ndef += (int)lv_def[k] == s->max_def;
				bw = pqr_byte(&pr);
				if (pr.bad || pqr_hybrid(&pr, bw, NULL, ix, ndef))
					goto bad;
			}
			if (n + (size_t)nv > cap) {
				pqr_entry *nvp;
				cap = (n + (size_t)nv) * 2 + 16;
				nvp = realloc(v, cap * sizeof(*v));
				if (!nvp)
					goto bad;
				v = nvp;
			}
			{
				size_t d = 0;
				for (k = 0; k < nv; k++) {
					pqr_entry *e = &v[n++];
					memset(e, 0, sizeof(*e));
					e->rep = lv_rep[k];
					e->def = lv_def[k];
					if ((int)e->def > s->max_def || (int)e->rep > s->max_rep)
						goto bad;
					if ((int)e->def != s->max_def)
						continue;
					if (enc == 0) {
						if (pqr_plain(&pr, s->type, e))
							goto bad;
					} else {
						uint32_t x = ix[d++];
						if (x >= ndict)
							goto bad;
						*e = dict[x];
						e->rep = lv_rep[k];
						e->def = lv_def[k];
					}
				}
			}
			free(lv_rep);
			free(lv_def);
			free(ix);
			lv_rep = lv_def = NULL;
			ix = NULL;
			if (pr.pos != pr.len)
				goto bad;
			left -= nv;
		}
	}
	free(dict);
	*out = v;
	*nout = n;
	return 0;
bad:
	free(lv_rep);
	free(lv_def);
	free(ix);
	free(dict);
	free(v);
	f->error = "column data";
	return -1;
}

#endif /* TB_TESTS_PARQUET_READ_H */
