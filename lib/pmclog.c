/*
 * FreeBSD hwpmc(4) log streams: a streaming, allocation-free decoder.
 *
 * Layouts and hazards: /work/shared/specs/pmclog-format.md (sections
 * 2-8).  Unlike libpmc, the header word is validated as soon as its four
 * bytes are known (magic, minimum and per-type length) and before a
 * single byte of the record is buffered, so no length can overrun the
 * reassembly buffer or make a field read stale bytes.
 */
#include <string.h>

#include "tracebound/pmclog.h"
#include "internal.h"
#include "pmclog_field.h"

#define MAGIC 0xEEu
#define PREFIX_MODERN 16u
#define PREFIX_LEGACY 12u
#define CPUID_LEN 64u    /* PMC_CPUID_LEN */
#define NAME_LEN 64u     /* PMC_NAME_MAX */

/* The record kind of a type byte, from the table's numbers.  Kinds are
 * numbered as modern logs number them, legacy ones mostly so or one less:
 * those two rows, taken by index, are tried first (once a record: the
 * kind goes from the header check to the decoding). */
static tb_pmclog_type map_type(const tb_pmclog *p, uint8_t raw)
{
	unsigned t;
	for (t = raw; t <= (unsigned)raw + 1u && t < (unsigned)TB_PMCLOG_TYPE_COUNT_; t++)
		if (t && tb_pmclog_rows_[t].raw[p->legacy] == raw)
			return (tb_pmclog_type)t;
	for (t = 1; t < (unsigned)TB_PMCLOG_TYPE_COUNT_; t++)
		if (tb_pmclog_rows_[t].raw[p->legacy] == raw)
			return (tb_pmclog_type)t;
	return TB_PMCLOG_UNKNOWN;
}

static unsigned prefix_len(const tb_pmclog *p)
{
	return p->legacy ? PREFIX_LEGACY : PREFIX_MODERN;
}

/* Modern logs of PMC_VERSION major 0x0A and later carry base+dyn in PROCEXEC. */
static int exec_has_dyn(const tb_pmclog *p)
{
	return !p->legacy && (p->version >> 24) >= 0x0Au;
}

/* Every error is sticky: remember it and report it on every later call. */
static tb_status stick(tb_pmclog *p, tb_error *err, tb_status st,
		       uint64_t off, const char *what)
{
	p->sticky = st;
	tb_fail(&p->err, st, off, what);
	return tb_fail(err, st, off, what);
}

TB_API void tb_pmclog_init(tb_pmclog *p, const tb_pmclog_options *opt)
{
	/* Everything but the reassembly buffer, which needs no clearing. */
	memset(p, 0, offsetof(tb_pmclog, buf));
	if (opt)
		p->opt = *opt;
	p->max_pcs = p->opt.max_pcs ? p->opt.max_pcs : TB_PMCLOG_DEFAULT_MAX_PCS;
	p->sticky = TB_OK;
	tb_error_clear(&p->err);
}

TB_API tb_status tb_pmclog_feed(tb_pmclog *p, const void *data, size_t len)
{
	return tb_feed_window_(p->closed, &p->in, &p->in_len, &p->in_pos, data, len);
}

TB_API void tb_pmclog_close(tb_pmclog *p)
{
	p->closed = 1;
}

TB_API tb_status tb_pmclog_open_buffer(tb_pmclog *p,
				       const tb_pmclog_options *opt,
				       const void *data, size_t len)
{
	tb_status st;
	tb_pmclog_init(p, opt);
	st = tb_pmclog_feed(p, data, len);
	tb_pmclog_close(p);
	return st;
}

/* ------------------------------------------------------------------ */
/* Settling the generation, byte order and address width.             */

static int valid_addr_size(unsigned a)
{
	return a == 4 || a == 8;
}

/*
 * The first header decides what nothing else records: byte order from
 * the position of the magic byte, generation from the INITIALIZE record
 * (type 2 and length 20 legacy; type 3 and length 104/112 modern).
 */
static tb_status settle(tb_pmclog *p, const uint8_t *hdr, tb_error *err)
{
	uint32_t w;
	unsigned type, len;
	if (p->opt.addr_size && !valid_addr_size(p->opt.addr_size))
		return stick(p, err, TB_ERR_ARG, 0, "address size must be 4 or 8");
	if (p->opt.byte_order > TB_PMCLOG_ORDER_BIG)
		return stick(p, err, TB_ERR_ARG, 0, "unknown byte order option");
	if (p->opt.byte_order == TB_PMCLOG_ORDER_LITTLE)
		p->big_endian = 0;
	else if (p->opt.byte_order == TB_PMCLOG_ORDER_BIG)
		p->big_endian = 1;
	else if (hdr[3] == MAGIC)
		p->big_endian = 0;
	else if (hdr[0] == MAGIC)
		p->big_endian = 1;
	else
		return stick(p, err, TB_ERR_MAGIC, p->offset,
			     "first record has no 0xEE magic byte in either byte order");
	w = tb_load32(hdr, p->big_endian);
	type = w >> 16 & 0xFFu;
	len = w & 0xFFFFu;
	p->addr_size = (uint8_t)(p->opt.addr_size ? p->opt.addr_size : 8u);
	if (p->opt.generation == TB_PMCLOG_GEN_LEGACY ||
	    p->opt.generation == TB_PMCLOG_GEN_MODERN) {
		p->legacy = p->opt.generation == TB_PMCLOG_GEN_LEGACY;
		p->version = p->opt.version ? p->opt.version
			     : p->legacy   ? 0x03010000u
					   : 0x0A000000u;
	} else if (p->opt.generation != TB_PMCLOG_GEN_AUTO) {
		return stick(p, err, TB_ERR_ARG, 0, "unknown generation option");
	} else if (w >> 24 == MAGIC && type == 2 && len == 20) {
		p->legacy = 1;
	} else if (w >> 24 == MAGIC && type == 3 && (len == 104 || len == 112)) {
		p->legacy = 0;
	} else if (w >> 24 == MAGIC) {
		return stick(p, err, TB_ERR_VERSION, p->offset,
			     "log does not start with an INITIALIZE record; "
			     "the generation must be given");
	}
	/* A 104-byte INITIALIZE has i386's 8-byte timespec. */
	if (!p->legacy && !p->opt.addr_size && w >> 24 == MAGIC && type == 3 &&
	    len == 104)
		p->addr_size = 4;
	/* A wrong magic is reported by the header check that follows. */
	p->known = 1;
	return TB_OK;
}

/* ------------------------------------------------------------------ */
/* Length rules, checked on the header word alone.                    */

/* Does the table's field f hold for this decoder's generation and layout
 * (before an event exists: the length checks)? */
static int field_in_log(const tb_pmclog *p, const tb_pmclog_field *f)
{
	if (!(f->gens & (p->legacy ? TB_PMCLOG_IN_LEGACY : TB_PMCLOG_IN_MODERN)))
		return 0;
	if (f->when == TB_PMCLOG_W_DYN)
		return exec_has_dyn(p);
	if (f->when == TB_PMCLOG_W_NODYN)
		return !exec_has_dyn(p);
	return 1;
}

/* A field's offset in the record. */
static unsigned field_at(const tb_pmclog *p, const tb_pmclog_field *f)
{
	return f->at[p->legacy] + f->at_a[p->legacy] * (unsigned)p->addr_size;
}

/* The path field of a path-bearing record, NULL for other types. */
static const tb_pmclog_field *path_field(const tb_pmclog *p, tb_pmclog_type t)
{
	const tb_pmclog_field *f = tb_pmclog_rows_[t].fields;
	for (; f->kind != TB_PMCLOG_F_END; f++)
		if (f->src == TB_PMCLOG_S_PATH && field_in_log(p, f))
			return f;
	return NULL;
}

/* Offset of the path in a path-bearing record, 0 for other types. */
static unsigned path_offset(const tb_pmclog *p, tb_pmclog_type t)
{
	const tb_pmclog_field *f = path_field(p, t);
	return f ? field_at(p, f) : 0;
}

/* Offset of the first CALLCHAIN slot. */
static unsigned cc_offset(const tb_pmclog *p)
{
	return p->legacy ? 24u : 32u;
}

/* Exact size of a fixed-size type; 0 for variable-size types. */
static unsigned fixed_len(const tb_pmclog *p, tb_pmclog_type t, unsigned len)
{
	const tb_pmclog_record *r = &tb_pmclog_rows_[t];
	/* The two sizes the table cannot say: INITIALIZE's 112 (LP64 and
	 * 64-bit time_t) or 104 (i386's 8-byte timespec), and
	 * PMCALLOCATEDYN's PMC_NAME_MAX, 16 in early headers and 64 later. */
	if (t == TB_PMCLOG_INITIALIZE)
		return p->legacy ? 20u : len == 104 ? 104u : 112u;
	if (t == TB_PMCLOG_PMCALLOCATEDYN)
		return p->legacy ? (len == 40 ? 40u : 88u) : 96u;
	return r->size[p->legacy] + r->size_a[p->legacy] * (unsigned)p->addr_size;
}

static tb_status check_len(tb_pmclog *p, tb_pmclog_type t, unsigned len,
			   tb_error *err)
{
	unsigned fixed = fixed_len(p, t, len), path;
	uint64_t off = p->offset;
	if (fixed) {
		if (len != fixed)
			return stick(p, err, TB_ERR_LENGTH, off,
				     "record length differs from its type's fixed size");
		return TB_OK;
	}
	if (t == TB_PMCLOG_CALLCHAIN) { /* the common variable size first */
		unsigned base = cc_offset(p);
		if (len < base)
			return stick(p, err, TB_ERR_LENGTH, off,
				     "CALLCHAIN shorter than its fixed fields");
		if ((len - base) % p->addr_size)
			return stick(p, err, TB_ERR_LENGTH, off,
				     "CALLCHAIN PC area is not a whole number of "
				     "addresses (wrong address size?)");
		if ((len - base) / p->addr_size > p->max_pcs)
			return stick(p, err, TB_ERR_LIMIT, off,
				     "CALLCHAIN holds more PCs than the limit");
		return TB_OK;
	}
	path = path_offset(p, t);
	if (path) {
		/* strlen+1 bytes rounded up to 4, at most PATH_MAX. */
		if (len < path + 4u)
			return stick(p, err, TB_ERR_LENGTH, off,
				     "record too short for its path");
		if (len - path > TB_PMCLOG_PATH_MAX)
			return stick(p, err, TB_ERR_LENGTH, off,
				     "path longer than PATH_MAX");
	}
	return TB_OK; /* unknown types: the prefix check was enough */
}

/* Validate a header word; on success *raw, *type and *len describe the
 * record. */
static tb_status check_header(tb_pmclog *p, const uint8_t *hdr, uint8_t *raw,
			      tb_pmclog_type *type, unsigned *len, tb_error *err)
{
	uint32_t w;
	tb_status st;
	if (!p->known && (st = settle(p, hdr, err)) != TB_OK)
		return st;
	w = tb_load32(hdr, p->big_endian);
	if (w >> 24 != MAGIC)
		return stick(p, err, TB_ERR_MAGIC, p->offset,
			     "record header lacks the 0xEE magic");
	*raw = (uint8_t)(w >> 16);
	*len = w & 0xFFFFu;
	if (*len < prefix_len(p))
		return stick(p, err, TB_ERR_LENGTH, p->offset,
			     "record length shorter than the record prefix");
	if (*len % 4u)
		return stick(p, err, TB_ERR_LENGTH, p->offset,
			     "record length not a multiple of 4");
	*type = map_type(p, *raw);
	return check_len(p, *type, *len, err);
}

/* ------------------------------------------------------------------ */
/* Field extraction from a validated record.                          */

/* A record being decoded: every load is checked; a miss clears ok. */
typedef struct rec {
	tb_reader r;
	int ok;
	unsigned a;
} rec;

/* An n-byte host-order integer at off; a short record clears c->ok (0). */
TB_ALWAYS_INLINE uint64_t gn(rec *c, size_t off, size_t n)
{
	uint64_t v = 0;
	if (!tb_rd_uN_at(&c->r, off, n, &v))
		c->ok = 0;
	return v;
}

static uint32_t g32(rec *c, size_t off)
{
	return (uint32_t)gn(c, off, 4);
}

static int32_t gi32(rec *c, size_t off)
{
	uint32_t v = g32(c, off);
	return v > INT32_MAX ? -(int32_t)(~v) - 1 : (int32_t)v;
}

/* The kernel's 64-bit helper: two host-order words, low word first. */
static uint64_t g64w(rec *c, size_t off)
{
	uint64_t lo = g32(c, off), hi = g32(c, off + 4);
	return hi << 32 | lo;
}

/* A native 64-bit integer (header TSC, timespec seconds). */
static uint64_t g64n(rec *c, size_t off)
{
	return gn(c, off, 8);
}

static uint64_t gaddr(rec *c, size_t off)
{
	return c->a == 8 ? g64w(c, off) : g32(c, off);
}

/* A fixed-size name field: up to its first NUL, never past the field. */
static tb_pmclog_str gname(rec *c, size_t off, size_t n)
{
	tb_pmclog_str s = { "", 0 };
	const uint8_t *b, *nul;
	if (!tb_rd_ptr_at(&c->r, off, n, &b)) {
		c->ok = 0;
		return s;
	}
	nul = (const uint8_t *)memchr(b, 0, n);
	s.ptr = (const char *)b;
	s.len = nul ? (size_t)(nul - b) : n;
	return s;
}

/* Does the field look like a printable event name? */
static int looks_like_name(rec *c, size_t off, size_t n)
{
	tb_pmclog_str s = gname(c, off, n);
	size_t i;
	if (s.len == 0 || s.ptr[0] == ' ')
		return 0;
	for (i = 0; i < s.len; i++)
		if (s.ptr[i] < 0x20 || s.ptr[i] > 0x7e)
			return 0;
	return 1;
}

/* A path from off to the record end; it must hold its NUL. */
static int gpath(rec *c, size_t off, tb_pmclog_str *out)
{
	tb_reader sub;
	if (!tb_rd_sub(&c->r, off, c->r.len - off, &sub) ||
	    !tb_rd_cstr(&sub, &out->ptr, &out->len))
		return 0;
	return 1;
}

/* The part header of a multipart CALLCHAIN: bounded by the slots present. */
static tb_status decode_parts(tb_pmclog *p, rec *c, tb_pmclog_event *ev,
			      tb_error *err)
{
	const uint8_t *h;
	uint32_t hdr_slots = 8u / c->a, used, i;
	int pcs_found = 0;
	if (ev->u.cc.npc < hdr_slots || !tb_rd_ptr_at(&c->r, cc_offset(p), 8, &h))
		return stick(p, err, TB_ERR_LENGTH, ev->offset,
			     "multipart CALLCHAIN too short for its part header");
	used = hdr_slots;
	ev->u.cc.pc_first = hdr_slots;
	for (i = 0; i < TB_PMCLOG_MAX_PARTS && h[2 * i] != 0; i++) {
		tb_pmclog_part *pt = &ev->u.cc.parts[i];
		pt->type = h[2 * i];
		pt->nslots = h[2 * i + 1];
		pt->first = used;
		if (pt->nslots > ev->u.cc.npc - used)
			return stick(p, err, TB_ERR_RANGE,
				     ev->offset + cc_offset(p) + 2 * i,
				     "multipart part runs past the CALLCHAIN slots");
		used += pt->nslots;
		/* PCs start after the parts before the first CALLCHAIN part. */
		if (pt->type == TB_PMCLOG_PART_CALLCHAIN)
			pcs_found = 1;
		if (!pcs_found)
			ev->u.cc.pc_first = used;
		ev->u.cc.nparts = i + 1;
	}
	return TB_OK;
}

/* INITIALIZE beyond the table's words: the wall time and cpuid (their
 * places depend on time_t), the width guess, the version check. */
static tb_status decode_init(tb_pmclog *p, rec *c, tb_pmclog_event *ev,
			     tb_error *err)
{
	unsigned cpuid_off;
	uint32_t major;
	if (!p->legacy) {
		/* ARMv7 kernels are 32-bit (pmc_cputype 0x5xx). */
		if (ev->count == 1 && !p->opt.addr_size &&
		    (ev->u.i.arch & 0xFF00u) == 0x500u)
			p->addr_size = 4;
		if (ev->len == 104) { /* i386: 32-bit time_t and long */
			ev->u.i.ts_sec = gi32(c, 32);
			ev->u.i.ts_nsec = gi32(c, 36);
			cpuid_off = 40;
		} else {
			ev->u.i.ts_sec = (int64_t)g64n(c, 32);
			ev->u.i.ts_nsec = p->addr_size == 8 ? (int64_t)g64n(c, 40)
							    : gi32(c, 40);
			cpuid_off = 48;
		}
		ev->u.i.cpuid = gname(c, cpuid_off, CPUID_LEN);
	}
	major = ev->u.i.version >> 24;
	if (p->legacy ? (major < 1 || major > 3) : major < 9)
		return stick(p, err, TB_ERR_VERSION, ev->offset + (p->legacy ? 12u : 16u),
			     "INITIALIZE version does not match the record layout");
	if (!p->have_init) {
		p->have_init = 1;
		if (!p->opt.version)
			p->version = ev->u.i.version;
		p->init_tsc = ev->tsc;
		p->tsc_freq = ev->u.i.tsc_freq;
		p->wall_sec = ev->u.i.ts_sec;
		p->wall_nsec = ev->u.i.ts_nsec;
	}
	return TB_OK;
}

/* PMCALLOCATEDYN's name: the modern structure puts it at 32; the kernel
 * writes a reload count there and the name at 40 (spec 4.1). */
static void decode_dyn_name(const tb_pmclog *p, rec *c, tb_pmclog_event *ev)
{
	if (p->legacy) {
		ev->u.ad.evname = gname(c, 24, (size_t)ev->len - 24);
	} else if (!looks_like_name(c, 32, NAME_LEN) && looks_like_name(c, 40, 56)) {
		ev->u.ad.name_at_40 = 1;
		ev->u.ad.rate = g64w(c, 32);
		ev->u.ad.evname = gname(c, 40, 56);
	} else {
		ev->u.ad.evname = gname(c, 32, NAME_LEN);
	}
}

/* The fields the table places (lib/pmclog_table.c); returns the path
 * field, read later (after INITIALIZE may have settled the width), or
 * NULL.  One pass over the row. */
static const tb_pmclog_field *decode_fields(const tb_pmclog *p, rec *c, tb_pmclog_event *ev)
{
	const tb_pmclog_field *f = tb_pmclog_rows_[ev->type].fields, *path = NULL;
	unsigned gen = p->legacy ? TB_PMCLOG_IN_LEGACY : TB_PMCLOG_IN_MODERN;
	unsigned skip = exec_has_dyn(p) ? TB_PMCLOG_W_NODYN : TB_PMCLOG_W_DYN;
	if (ev->type == TB_PMCLOG_PROCEXEC) /* which PROCEXEC fields exist */
		ev->u.x.has_dyn = (uint8_t)exec_has_dyn(p);
	for (; f->kind != TB_PMCLOG_F_END; f++) {
		char *m = (char *)ev + f->member;
		size_t at;
		union { uint32_t u32; int32_t i32; uint64_t u64; tb_pmclog_str s; } v;
		if (f->src == TB_PMCLOG_S_CODE || !(f->gens & gen) || f->when == skip)
			continue;
		at = field_at(p, f);
		switch (f->src) {
		case TB_PMCLOG_S_U32: v.u32 = g32(c, at); memcpy(m, &v.u32, 4); break;
		case TB_PMCLOG_S_I32: v.i32 = gi32(c, at); memcpy(m, &v.i32, 4); break;
		case TB_PMCLOG_S_U64W: v.u64 = g64w(c, at); memcpy(m, &v.u64, 8); break;
		case TB_PMCLOG_S_ADDR: v.u64 = gaddr(c, at); memcpy(m, &v.u64, 8); break;
		case TB_PMCLOG_S_PATH: path = f; break;
		default: v.s = gname(c, at, f->size); memcpy(m, &v.s, sizeof(v.s)); break;
		}
	}
	if (ev->type == TB_PMCLOG_PMCALLOCATEDYN)
		decode_dyn_name(p, c, ev);
	return path;
}

/* Decode one whole record whose header check_header accepted. */
static tb_status decode(tb_pmclog *p, const uint8_t *data, unsigned len,
			uint8_t raw, tb_pmclog_type type, tb_pmclog_event *ev, tb_error *err)
{
	rec c;
	tb_status st = TB_OK;
	const tb_pmclog_field *pf;
	memset(ev, 0, sizeof(*ev));
	tb_rd_init(&c.r, data, len, p->big_endian);
	c.ok = 1;
	c.a = p->addr_size;
	ev->raw_type = raw;
	ev->type = type;
	ev->legacy = p->legacy;
	ev->big_endian = p->big_endian;
	ev->len = (uint16_t)len;
	ev->offset = p->offset;
	ev->count = p->count + 1;
	ev->data = data;
	if (p->legacy) {
		ev->ts_sec = g32(&c, 4);
		ev->ts_nsec = g32(&c, 8);
	} else {
		ev->tsc = g64n(&c, 8);
	}
	pf = decode_fields(p, &c, ev);
	if (ev->type == TB_PMCLOG_INITIALIZE)
		st = decode_init(p, &c, ev, err);
	/* The address width may have been settled by INITIALIZE just now. */
	ev->addr_size = p->addr_size;
	if (st != TB_OK)
		return st;
	if (pf) {
		tb_pmclog_str path;
		if (!gpath(&c, field_at(p, pf), &path))
			return stick(p, err, TB_ERR_VALUE, ev->offset + field_at(p, pf),
				     "path is not NUL-terminated inside its record");
		memcpy((char *)ev + pf->member, &path, sizeof(path));
	}
	if (ev->type == TB_PMCLOG_CALLCHAIN) {
		unsigned base = cc_offset(p);
		ev->u.cc.npc = (uint32_t)((len - base) / c.a);
		if (!tb_rd_ptr_at(&c.r, base, (size_t)len - base, &ev->u.cc.pc))
			c.ok = 0;
		if (ev->u.cc.cpuflags & TB_PMCLOG_CC_MULTIPART) {
			st = decode_parts(p, &c, ev, err);
			if (st != TB_OK)
				return st;
		}
	}
	if (!c.ok) /* cannot happen after check_len; kept as a last guard */
		return stick(p, err, TB_ERR_TRUNCATED, ev->offset,
			     "record shorter than its fields");
	p->offset += len;
	p->count++;
	if (ev->type == TB_PMCLOG_CLOSELOG &&
	    (p->opt.flags & TB_PMCLOG_STOP_AT_CLOSELOG))
		p->done = 1;
	return TB_OK;
}

/* ------------------------------------------------------------------ */
/* The stream.                                                        */

/* Out of bytes: wait for more, or end cleanly or with a truncation. */
static tb_status out_of_input(tb_pmclog *p, tb_error *err)
{
	if (!p->closed)
		return TB_NEED_MORE;
	if (p->saved == 0) {
		p->done = 1;
		return TB_END;
	}
	return stick(p, err, TB_ERR_TRUNCATED, p->offset,
		     p->saved < 4 ? "record header cut short by the end of the input"
				  : "record cut short by the end of the input");
}

/* Move up to `want` bytes of the current feed into the reassembly buffer. */
static void save_input(tb_pmclog *p, size_t want)
{
	tb_reader in;
	const uint8_t *src;
	size_t n = p->in_len - p->in_pos;
	if (n > want)
		n = want;
	if (n > sizeof(p->buf) - p->saved)
		n = sizeof(p->buf) - p->saved; /* unreachable: want is bounded */
	tb_rd_init(&in, p->in, p->in_len, 0);
	if (n && tb_rd_ptr_at(&in, p->in_pos, n, &src)) {
		memcpy(p->buf + p->saved, src, n);
		p->saved += n;
		p->in_pos += n;
	}
}

TB_API tb_status tb_pmclog_next(tb_pmclog *p, tb_pmclog_event *ev,
				tb_error *err)
{
	const uint8_t *data;
	unsigned len;
	uint8_t raw;
	tb_pmclog_type type;
	tb_status st;
	if (p->sticky != TB_OK) {
		if (err)
			*err = p->err;
		return p->sticky;
	}
	if (p->done)
		return TB_END;
	if (p->saved == 0 && p->in_len - p->in_pos >= 4) {
		/* Fast path: the header, and usually the record, in this feed. */
		tb_reader in;
		tb_rd_init(&in, p->in, p->in_len, 0);
		if (!tb_rd_ptr_at(&in, p->in_pos, 4, &data))
			return stick(p, err, TB_ERR_ARG, p->offset, "bad input state");
		st = check_header(p, data, &raw, &type, &len, err);
		if (st != TB_OK)
			return st;
		if (tb_rd_ptr_at(&in, p->in_pos, len, &data)) {
			p->in_pos += len;
			return decode(p, data, len, raw, type, ev, err);
		}
		save_input(p, len);
		return out_of_input(p, err);
	}
	/* Slow path: assemble the record in buf across feeds. */
	if (p->saved < 4) {
		save_input(p, 4 - p->saved);
		if (p->saved < 4)
			return out_of_input(p, err);
	}
	st = check_header(p, p->buf, &raw, &type, &len, err);
	if (st != TB_OK)
		return st;
	save_input(p, len - p->saved);
	if (p->saved < len)
		return out_of_input(p, err);
	p->saved = 0;
	return decode(p, p->buf, len, raw, type, ev, err);
}

/* Slot i of a CALLCHAIN, i < npc checked by the caller: the PC area was
 * bounded to npc slots inside the record when the event was made. */
static uint64_t slot_at(const tb_pmclog_event *ev, uint32_t i)
{
	const uint8_t *s = ev->u.cc.pc + (size_t)i * ev->addr_size;
	if (ev->addr_size == 8)
		return (uint64_t)tb_load32(s + 4, ev->big_endian) << 32 |
		       tb_load32(s, ev->big_endian);
	return tb_load32(s, ev->big_endian);
}

static int is_callchain(const tb_pmclog_event *ev)
{
	return ev && ev->type == TB_PMCLOG_CALLCHAIN && ev->u.cc.pc &&
	       valid_addr_size(ev->addr_size);
}

TB_API uint64_t tb_pmclog_cc_slot(const tb_pmclog_event *ev, uint32_t i)
{
	if (!is_callchain(ev) || i >= ev->u.cc.npc)
		return 0;
	return slot_at(ev, i);
}

TB_API uint32_t tb_pmclog_cc_copy(const tb_pmclog_event *ev, uint32_t first,
				  uint64_t *out, uint32_t max)
{
	uint32_t n, i;
	if (!is_callchain(ev) || first >= ev->u.cc.npc || !out)
		return 0;
	n = ev->u.cc.npc - first;
	if (n > max)
		n = max;
	if (ev->addr_size == 8 && !ev->big_endian) {
		/* the usual log (amd64, arm64): one loop without the
		 * per-slot tests of slot_at */
		const uint8_t *s = ev->u.cc.pc + (size_t)first * 8u;
		for (i = 0; i < n; i++)
			out[i] = tb_load64(s + (size_t)i * 8u, 0);
		return n;
	}
	for (i = 0; i < n; i++)
		out[i] = slot_at(ev, first + i);
	return n;
}

/* ------------------------------------------------------------------ */
/* Time.                                                              */

/* floor(a * b / d) for a < d, by doubling and adding (no 128-bit type). */
static uint64_t mul_div_small(uint64_t a, uint64_t b, uint64_t d)
{
	uint64_t q = 0, r = 0;
	int bit;
	/* Invariant: a * (bits of b seen so far) == q * d + r, r < d. */
	for (bit = 63; bit >= 0; bit--) {
		q <<= 1;
		if (r >= d - r) {
			r -= d - r;
			q++;
		} else {
			r += r;
		}
		if (b >> bit & 1u) {
			if (r >= d - a) {
				r -= d - a;
				q++;
			} else {
				r += a;
			}
		}
	}
	return q;
}

#define NS_PER_S 1000000000u

TB_API tb_status tb_pmclog_tsc_delta_ns(uint64_t delta, uint64_t freq,
					uint64_t *ns)
{
	uint64_t whole, frac;
	if (freq == 0)
		return TB_ERR_VALUE;
	whole = delta / freq; /* seconds */
	if (whole > UINT64_MAX / NS_PER_S)
		return TB_ERR_RANGE;
	frac = mul_div_small(delta % freq, NS_PER_S, freq);
	if (frac > UINT64_MAX - whole * NS_PER_S)
		return TB_ERR_RANGE;
	*ns = whole * NS_PER_S + frac;
	return TB_OK;
}

TB_API tb_status tb_pmclog_tsc_to_ns(const tb_pmclog *p, uint64_t tsc,
				     int64_t *ns)
{
	int64_t base;
	uint64_t d;
	tb_status st;
	if (!p->have_init || p->legacy)
		return TB_NOT_FOUND;
	if (p->tsc_freq == 0 || p->wall_nsec < 0 || p->wall_nsec >= NS_PER_S)
		return TB_ERR_VALUE;
	if (p->wall_sec > INT64_MAX / NS_PER_S - 1 ||
	    p->wall_sec < INT64_MIN / NS_PER_S + 1)
		return TB_ERR_RANGE;
	base = p->wall_sec * (int64_t)NS_PER_S + p->wall_nsec;
	st = tb_pmclog_tsc_delta_ns(tsc >= p->init_tsc ? tsc - p->init_tsc
						       : p->init_tsc - tsc,
				    p->tsc_freq, &d);
	if (st != TB_OK)
		return st;
	if (d > (uint64_t)INT64_MAX)
		return TB_ERR_RANGE;
	if (tsc >= p->init_tsc) {
		if (base > INT64_MAX - (int64_t)d)
			return TB_ERR_RANGE;
		*ns = base + (int64_t)d;
	} else {
		if (base < INT64_MIN + (int64_t)d)
			return TB_ERR_RANGE;
		*ns = base - (int64_t)d;
	}
	return TB_OK;
}
