/*
 * perf.data files and pipe streams: header, attrs, features, records.
 *
 * Layouts: /work/shared/specs/perfdata.md.  One record parser serves the
 * file walk and the stream; every field is read through lib/reader.h
 * within the record's own size, so a record can never make a read leave
 * it, and every count is checked against the bytes that hold it before
 * anything is done with it.
 */
#include <stddef.h>

#include "tracebound/perfdata.h"
#include "internal.h"

/* "PERFILE2" read as a little-endian u64, and byte-swapped. */
#define MAGIC_LE 0x32454c4946524550ull
#define MAGIC_BE 0x50455246494c4532ull
#define REC_HDR 8u
#define ATTR_REC_MIN (REC_HDR + TB_PERF_ATTR_MIN)

static tb_status fail(tb_error *err, tb_status s, uint64_t off, const char *what)
{
	return tb_fail(err, s, off, what);
}

/* ------------------------------------------------------------------ */
/* Names.                                                             */

static const char *const feat_names[] = {
	"RESERVED", "TRACING_DATA", "BUILD_ID", "HOSTNAME", "OSRELEASE",
	"VERSION", "ARCH", "NRCPUS", "CPUDESC", "CPUID", "TOTAL_MEM",
	"CMDLINE", "EVENT_DESC", "CPU_TOPOLOGY", "NUMA_TOPOLOGY",
	"BRANCH_STACK", "PMU_MAPPINGS", "GROUP_DESC", "AUXTRACE", "STAT",
	"CACHE", "SAMPLE_TIME", "MEM_TOPOLOGY", "CLOCKID", "DIR_FORMAT",
	"BPF_PROG_INFO", "BPF_BTF", "COMPRESSED", "CPU_PMU_CAPS",
	"CLOCK_DATA", "HYBRID_TOPOLOGY", "PMU_CAPS",
};

TB_API const char *tb_perf_feature_name(unsigned id)
{
	return id < TB_ARRAY_LEN(feat_names) ? feat_names[id] : "unknown";
}

static const char *const kernel_names[] = {
	"unknown", "MMAP", "LOST", "COMM", "EXIT", "THROTTLE", "UNTHROTTLE",
	"FORK", "READ", "SAMPLE", "MMAP2", "AUX", "ITRACE_START",
	"LOST_SAMPLES", "SWITCH", "SWITCH_CPU_WIDE", "NAMESPACES", "KSYMBOL",
	"BPF_EVENT", "CGROUP", "TEXT_POKE", "AUX_OUTPUT_HW_ID",
};

/* perf's own names (perf report -D prints them) */
static const char *const user_names[] = {
	"ATTR", "EVENT_TYPE", "TRACING_DATA", "BUILD_ID", "FINISHED_ROUND", "ID_INDEX", "AUXTRACE_INFO",
	"AUXTRACE", "AUXTRACE_ERROR", "THREAD_MAP", "CPU_MAP", "STAT_CONFIG",
	"STAT", "STAT_ROUND", "EVENT_UPDATE", "TIME_CONV", "FEATURE",
	"COMPRESSED", "FINISHED_INIT", "COMPRESSED2",
};

TB_API const char *tb_perf_record_name(uint32_t type)
{
	if (type < TB_ARRAY_LEN(kernel_names))
		return kernel_names[type];
	if (type >= TB_PERF_RECORD_HEADER_ATTR &&
	    type - TB_PERF_RECORD_HEADER_ATTR < TB_ARRAY_LEN(user_names))
		return user_names[type - TB_PERF_RECORD_HEADER_ATTR];
	return "unknown";
}

TB_API uint64_t tb_perf_u64_at(const tb_perf_u64s *a, uint64_t i)
{
	if (!a || !a->ptr || i >= a->n)
		return 0;
	return tb_load64(a->ptr + i * 8u, a->big_endian);
}

TB_API int tb_perf_probe(const void *file, size_t len)
{
	uint64_t m;
	if (!file || len < 8)
		return 0;
	m = tb_load64((const uint8_t *)file, 0);
	return m == MAGIC_LE || m == MAGIC_BE;
}

/* ------------------------------------------------------------------ */
/* Attrs and the id table.                                            */

/* C bit fields are allocated from the most significant bit on
 * big-endian hosts: reverse the word so the flag bits read the same. */
static uint64_t rev64(uint64_t v)
{
	uint64_t r = 0;
	unsigned i;
	for (i = 0; i < 64; i++)
		r |= ((v >> i) & 1u) << (63 - i);
	return r;
}

/* Bits set, branch-free (a builtin would call libgcc's __popcountdi2
 * where the target has no popcnt instruction: not on the allow-list). */
static unsigned popcount64(uint64_t v)
{
	v = v - ((v >> 1) & 0x5555555555555555u);
	v = (v & 0x3333333333333333u) + ((v >> 2) & 0x3333333333333333u);
	v = (v + (v >> 4)) & 0x0f0f0f0f0f0f0f0fu;
	return (unsigned)((v * 0x0101010101010101u) >> 56);
}

/* A field of the attr at off when its size reaches past it, else 0. */
static uint64_t attr_u64(const tb_reader *r, size_t asize, size_t off)
{
	uint64_t v = 0;
	if (off + 8 <= asize)
		(void)tb_rd_u64_at(r, off, &v);
	return v;
}

static uint32_t attr_u32(const tb_reader *r, size_t asize, size_t off)
{
	uint32_t v = 0;
	if (off + 4 <= asize)
		(void)tb_rd_u32_at(r, off, &v);
	return v;
}

/*
 * Read a perf_event_attr of `room` bytes at the reader's start (the
 * room its container gives it).  The attr's own size says which fields
 * it has (0: the first revision, 64 bytes); a size past the room, or
 * below 64, is an error.  *used is the size it claims.
 */
static tb_status read_attr(const tb_reader *r, size_t room, uint64_t off,
			   tb_perf_attr *a, size_t *used, tb_error *err)
{
	uint32_t sz = 0;
	size_t n;
	memset(a, 0, sizeof(*a));
	if (room < TB_PERF_ATTR_MIN || !tb_rd_has_at(r, 0, TB_PERF_ATTR_MIN))
		return fail(err, TB_ERR_TRUNCATED, off, "perf_event_attr shorter than 64 bytes");
	(void)tb_rd_u32_at(r, 0, &a->type);
	(void)tb_rd_u32_at(r, 4, &sz);
	a->size = sz;
	n = sz ? sz : TB_PERF_ATTR_MIN;
	if (n < TB_PERF_ATTR_MIN || n % 8u)
		return fail(err, TB_ERR_LENGTH, off + 4, "perf_event_attr size is not a multiple of 8 from 64");
	if (n > room || n > TB_PERF_ATTR_MAX)
		return fail(err, TB_ERR_LENGTH, off + 4, "perf_event_attr size runs past its room");
	a->config = attr_u64(r, n, 8);
	a->sample_period = attr_u64(r, n, 16);
	a->sample_type = attr_u64(r, n, 24);
	a->read_format = attr_u64(r, n, 32);
	a->flags = attr_u64(r, n, 40);
	if (r->big_endian)
		a->flags = rev64(a->flags);
	a->branch_sample_type = attr_u64(r, n, 72);
	a->sample_regs_user = attr_u64(r, n, 80);
	a->sample_stack_user = attr_u32(r, n, 88);
	a->clockid = (int32_t)attr_u32(r, n, 92);
	a->sample_regs_intr = attr_u64(r, n, 96);
	a->offset = off;
	*used = n;
	return TB_OK;
}

/* Where an attr keeps its id: in a SAMPLE (u64 index from the start,
 * after IP, TID, TIME and ADDR) and in an sample_id_all trailer (u64
 * index from the end, 1 = last, before CPU and STREAM_ID); -1: nowhere.
 * IDENTIFIER puts it first in one and last in the other. */
static void id_positions(uint64_t st, int *sample, int *trailer)
{
	if (st & TB_PERF_SAMPLE_IDENTIFIER) {
		*sample = 0;
		*trailer = 1;
	} else if (!(st & TB_PERF_SAMPLE_ID)) {
		*sample = *trailer = -1;
	} else {
		*sample = (int)popcount64(st & (TB_PERF_SAMPLE_IP | TB_PERF_SAMPLE_TID |
						TB_PERF_SAMPLE_TIME | TB_PERF_SAMPLE_ADDR));
		*trailer = 1 + (int)popcount64(st & (TB_PERF_SAMPLE_CPU | TB_PERF_SAMPLE_STREAM_ID));
	}
}

/* The sample_type bits a sample_id_all trailer holds, each one u64. */
#define TRAILER_BITS (TB_PERF_SAMPLE_TID | TB_PERF_SAMPLE_TIME | TB_PERF_SAMPLE_ID | \
		      TB_PERF_SAMPLE_STREAM_ID | TB_PERF_SAMPLE_CPU | TB_PERF_SAMPLE_IDENTIFIER)

/* Bytes of the sample_id_all trailer of an attr (0 without the flag). */
static size_t trailer_size(const tb_perf_attr *a)
{
	if (!(a->flags & TB_PERF_ATTR_FLAG_SAMPLE_ID_ALL))
		return 0;
	return (size_t)8 * popcount64(a->sample_type & TRAILER_BITS);
}

/* Add an attr to f's storage (counted in need when it does not fit).
 * Every attr must keep its id where the first one does. */
static tb_status add_attr(tb_perf *f, const tb_perf_attr *a, tb_error *err)
{
	int ps, pt;
	id_positions(a->sample_type, &ps, &pt);
	if (f->need.attrs == 0) {
		f->id_pos = ps;
		f->id_pos_end = pt;
	} else if (ps != f->id_pos || pt != f->id_pos_end) {
		return fail(err, TB_ERR_VALUE, a->offset + 24,
			    "attrs disagree on where a sample keeps its id");
	}
	if (f->need.attrs < f->st_.attrs_cap) {
		f->attrs[f->need.attrs] = *a;
		f->nattrs = f->need.attrs + 1;
	}
	f->need.attrs++;
	return TB_OK;
}

/* Add attr `ai`'s ids from r[pos..pos+8n) to the id table. */
static void add_ids(tb_perf *f, const tb_reader *r, size_t pos, uint64_t n,
		    size_t ai)
{
	uint64_t i;
	for (i = 0; i < n; i++) {
		uint64_t id = 0;
		(void)tb_rd_u64_at(r, pos + (size_t)i * 8u, &id);
		if (f->need.ids < f->st_.ids_cap && ai < f->nattrs) {
			f->ids[f->need.ids].id = id;
			f->ids[f->need.ids].attr = (uint32_t)ai;
			f->nids = f->need.ids + 1;
			f->ids_sorted_ = 0;
		}
		f->need.ids++;
	}
	if (ai < f->nattrs)
		f->attrs[ai].nids = (size_t)n;
}

static int id_less(const void *a, const void *b)
{
	return ((const tb_perf_id *)a)->id < ((const tb_perf_id *)b)->id;
}

/* Sort the id table once its ids are all read; an id listed twice is an
 * error (its events could not be told apart). */
static tb_status sort_ids(tb_perf *f, tb_error *err)
{
	size_t i;
	if (f->ids_sorted_)
		return TB_OK;
	tb_heap_sort(f->ids, f->nids, sizeof(*f->ids), id_less);
	f->ids_sorted_ = 1;
	for (i = 1; i < f->nids; i++)
		if (f->ids[i].id == f->ids[i - 1].id)
			return fail(err, TB_ERR_DUPLICATE,
				    f->attrs[f->ids[i].attr].offset,
				    "a sample id is listed twice");
	return TB_OK;
}

/* tb_perf_find_attr's search, inlined in the per-record lookup. */
TB_ALWAYS_INLINE tb_status find_attr(const tb_perf *f, uint64_t id, const tb_perf_attr **out)
{
	size_t i;
	*out = NULL;
	if (f->ids_sorted_) {
		/* perf numbers a capture's ids in turn: an id is first looked
		 * for at its place in a table without gaps (the entry found
		 * there is the one: ids are unique), then searched for; per
		 * record: the search written out, not tb_lower_bound's call
		 * per step */
		uint64_t k = f->nids ? id - f->ids[0].id : UINT64_MAX;
		size_t lo = 0, hi = f->nids;
		if (k < f->nids && f->ids[k].id == id) {
			*out = &f->attrs[f->ids[k].attr];
			return TB_OK;
		}
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (f->ids[mid].id < id)
				lo = mid + 1;
			else
				hi = mid;
		}
		i = lo;
		if (i < f->nids && f->ids[i].id == id) {
			*out = &f->attrs[f->ids[i].attr];
			return TB_OK;
		}
	} else {
		for (i = 0; i < f->nids; i++)
			if (f->ids[i].id == id) {
				*out = &f->attrs[f->ids[i].attr];
				return TB_OK;
			}
	}
	if (f->nattrs == 1 && f->nids == 0) {
		*out = &f->attrs[0];
		return TB_OK;
	}
	return TB_NOT_FOUND;
}

TB_API tb_status tb_perf_find_attr(const tb_perf *f, uint64_t id,
				   const tb_perf_attr **out)
{
	if (!f || !out)
		return TB_ERR_ARG;
	return find_attr(f, id, out);
}

void tb_perf_samples_unparsed_(tb_perf *f)
{
	f->samples_unparsed_ = 1;
}

TB_API int tb_perf_has_feature(const tb_perf *f, unsigned id)
{
	return f && id < TB_PERF_FEAT_BITS && (f->features[id / 64] >> (id % 64) & 1u);
}

/* ------------------------------------------------------------------ */
/* Features.                                                          */

/* A perf string (u32 len, then len bytes, NUL padded) at *pos of r; the
 * span stops at the first NUL. */
static tb_status read_str(const tb_reader *r, size_t *pos, uint64_t base,
			  tb_perf_bytes *s, tb_error *err)
{
	uint32_t n;
	const uint8_t *p, *nul;
	if (!tb_rd_u32_at(r, *pos, &n))
		return fail(err, TB_ERR_TRUNCATED, base + *pos, "string length cut short");
	if (!tb_rd_ptr_at(r, *pos + 4, n, &p))
		return fail(err, TB_ERR_LENGTH, base + *pos, "string runs past its section");
	nul = n ? (const uint8_t *)memchr(p, 0, n) : NULL;
	s->ptr = p;
	s->len = nul ? (size_t)(nul - p) : n;
	*pos += 4u + (size_t)n;
	return TB_OK;
}

/* A feature of fixed fields: each one's offset, width (4 or 8) and where
 * it goes (a uint32_t or a uint64_t of tb_perf). */
typedef struct fixed_field {
	uint8_t off, width;
	void *dst;
} fixed_field;

/* The fields in order, then *has = 1; a field past the feature's bytes
 * is `short_what` (the fields before it are kept, as read). */
static tb_status read_fixed(const tb_reader *r, const fixed_field *v, size_t n, int *has,
			    uint64_t at, const char *short_what, tb_error *err)
{
	size_t i;
	for (i = 0; i < n; i++)
		if (!(v[i].width == 4 ? tb_rd_u32_at(r, v[i].off, (uint32_t *)v[i].dst)
				      : tb_rd_u64_at(r, v[i].off, (uint64_t *)v[i].dst)))
			return fail(err, TB_ERR_TRUNCATED, at, short_what);
	*has = 1;
	return TB_OK;
}

/* Take in what tb_perf keeps of one feature.  Strings are kept only when
 * the bytes stay (file mode). */
static tb_status apply_feature(tb_perf *f, const tb_perf_feature *ft,
			       int keep_strings, tb_error *err)
{
	tb_reader r;
	size_t pos = 0;
	tb_perf_bytes s, *dst = NULL;
	tb_status st;
	tb_rd_init(&r, ft->data.ptr, ft->data.len, f->big_endian);
	if (ft->id < TB_PERF_FEAT_BITS)
		f->features[ft->id / 64] |= 1ull << (ft->id % 64);
	switch (ft->id) {
	case TB_PERF_FEAT_TRACING_DATA:
		if (keep_strings) {
			f->tracing_data = ft->data;
			f->tracing_offset = ft->offset;
		}
		return TB_OK;
	case TB_PERF_FEAT_HOSTNAME: dst = &f->hostname; break;
	case TB_PERF_FEAT_OSRELEASE: dst = &f->osrelease; break;
	case TB_PERF_FEAT_VERSION: dst = &f->version; break;
	case TB_PERF_FEAT_ARCH: dst = &f->arch; break;
	case TB_PERF_FEAT_CPUDESC: dst = &f->cpudesc; break;
	case TB_PERF_FEAT_CPUID: dst = &f->cpuid; break;
	case TB_PERF_FEAT_NRCPUS: {
		const fixed_field v[] = { { 0, 4, &f->nr_cpus_avail }, { 4, 4, &f->nr_cpus_online } };
		return read_fixed(&r, v, 2, &f->has_nrcpus, ft->offset,
				  "NRCPUS shorter than 8 bytes", err);
	}
	case TB_PERF_FEAT_CLOCKID: {
		const fixed_field v[] = { { 0, 8, &f->clockid_res_ns } };
		return read_fixed(&r, v, 1, &f->has_clockid_res, ft->offset,
				  "CLOCKID shorter than 8 bytes", err);
	}
	case TB_PERF_FEAT_CLOCK_DATA: {
		const fixed_field v[] = { { 0, 4, &f->clock.version }, { 4, 4, &f->clock.clockid },
					  { 8, 8, &f->clock.tod_ns }, { 16, 8, &f->clock.clock_ns } };
		return read_fixed(&r, v, 4, &f->has_clock_data, ft->offset,
				  "CLOCK_DATA shorter than 24 bytes", err);
	}
	case TB_PERF_FEAT_COMPRESSED: {
		const fixed_field v[] = { { 0, 4, &f->compression.version },
					  { 4, 4, &f->compression.type },
					  { 8, 4, &f->compression.level },
					  { 12, 4, &f->compression.ratio },
					  { 16, 4, &f->compression.mmap_len } };
		return read_fixed(&r, v, 5, &f->has_compression, ft->offset,
				  "COMPRESSED shorter than 20 bytes", err);
	}
	case TB_PERF_FEAT_DIR_FORMAT:
		f->dir_format = 1;
		return TB_OK;
	default:
		return TB_OK; /* kept as bytes: tb_perf_feature_get */
	}
	if ((st = read_str(&r, &pos, ft->offset, &s, err)) != TB_OK)
		return st;
	if (keep_strings)
		*dst = s;
	return TB_OK;
}

/* The section table entry of feature id (its bit set): the entries follow
 * the data section, one per set bit, in bit order. */
static tb_status feature_entry(const tb_perf *f, unsigned id, tb_perf_feature *out,
			       tb_error *err)
{
	tb_reader r;
	uint64_t table = f->data.offset + f->data.size, pos, off, size;
	unsigned i, before = 0;
	const uint8_t *p;
	for (i = 0; i < id; i++)
		before += (unsigned)tb_perf_has_feature(f, i);
	pos = table + (uint64_t)16 * before;
	tb_rd_init(&r, f->file, f->len, f->big_endian);
	if (pos < table || !tb_rd_u64_at(&r, (size_t)pos, &off) ||
	    !tb_rd_u64_at(&r, (size_t)pos + 8, &size))
		return fail(err, TB_ERR_TRUNCATED, pos > f->len ? table : pos,
			    "feature section table cut short");
	if (off > f->len || size > f->len - off || !tb_rd_ptr_at(&r, (size_t)off, (size_t)size, &p))
		return fail(err, TB_ERR_RANGE, pos, "feature section lies outside the file");
	out->id = id;
	out->offset = off;
	out->data.ptr = p;
	out->data.len = (size_t)size;
	return TB_OK;
}

TB_API tb_status tb_perf_feature_get(const tb_perf *f, unsigned id,
				     tb_perf_feature *out, tb_error *err)
{
	if (!f || !out)
		return fail(err, TB_ERR_ARG, 0, "NULL handle");
	if (f->pipe)
		return fail(err, TB_ERR_ARG, 0, "pipe mode: features come as records");
	if (!tb_perf_has_feature(f, id))
		return TB_NOT_FOUND;
	return feature_entry(f, id, out, err);
}

TB_API tb_status tb_perf_feature_string(const tb_perf *f, const tb_perf_feature *feat,
					tb_perf_bytes *s, tb_error *err)
{
	tb_reader r;
	size_t pos = 0;
	if (!f || !feat || !s)
		return fail(err, TB_ERR_ARG, 0, "NULL argument");
	tb_rd_init(&r, feat->data.ptr, feat->data.len, f->big_endian);
	return read_str(&r, &pos, feat->offset, s, err);
}

/* The list features (strings, EVENT_DESC) open alike: a u32 count leads
 * them (`cut` when the bytes end before it). */
static tb_status list_begin(tb_perf_str_iter *it, const tb_perf *f, const tb_perf_feature *feat,
			    const char *cut, tb_error *err)
{
	if (!it || !f || !feat)
		return fail(err, TB_ERR_ARG, 0, "NULL argument");
	memset(it, 0, sizeof(*it));
	it->feat = feat;
	it->big_endian = f->big_endian;
	if (feat->data.len < 4)
		return fail(err, TB_ERR_TRUNCATED, feat->offset, cut);
	it->count = tb_load32(feat->data.ptr, f->big_endian);
	it->pos = 4;
	return TB_OK;
}

/* The reader over the list's bytes, or TB_END once all are read. */
static tb_status list_next(tb_perf_str_iter *it, const void *out, tb_reader *r, tb_error *err)
{
	if (!it || !it->feat || !out)
		return fail(err, TB_ERR_ARG, 0, "NULL argument");
	if (it->index >= it->count)
		return TB_END;
	tb_rd_init(r, it->feat->data.ptr, it->feat->data.len, it->big_endian);
	return TB_OK;
}

TB_API tb_status tb_perf_strings_begin(tb_perf_str_iter *it, const tb_perf *f,
				       const tb_perf_feature *feat, tb_error *err)
{
	tb_status st = list_begin(it, f, feat, "string list count cut short", err);
	/* each string takes at least its u32 length */
	if (st == TB_OK && it->count > (feat->data.len - 4) / 4)
		return fail(err, TB_ERR_LENGTH, feat->offset, "string list count exceeds its section");
	return st;
}

TB_API tb_status tb_perf_strings_next(tb_perf_str_iter *it, tb_perf_bytes *s,
				      tb_error *err)
{
	tb_reader r;
	tb_status st = list_next(it, s, &r, err);
	if (st != TB_OK)
		return st;
	it->index++;
	return read_str(&r, &it->pos, it->feat->offset, s, err);
}

TB_API tb_status tb_perf_event_desc_begin(tb_perf_desc_iter *it, const tb_perf *f,
					  const tb_perf_feature *feat, tb_error *err)
{
	tb_status st = list_begin(it ? &it->list : NULL, f, feat, "EVENT_DESC header cut short", err);
	if (st != TB_OK)
		return st;
	if (feat->data.len < 8)
		return fail(err, TB_ERR_TRUNCATED, feat->offset, "EVENT_DESC header cut short");
	it->attr_size = tb_load32(feat->data.ptr + 4, f->big_endian);
	if (it->attr_size < TB_PERF_ATTR_MIN || it->attr_size > TB_PERF_ATTR_MAX ||
	    it->attr_size % 8u)
		return fail(err, TB_ERR_LENGTH, feat->offset + 4, "EVENT_DESC attr size out of range");
	/* each event takes its attr, nr_ids and a name length */
	if (it->list.count > (feat->data.len - 8) / (it->attr_size + 8u))
		return fail(err, TB_ERR_LENGTH, feat->offset, "EVENT_DESC count exceeds its section");
	it->list.pos = 8;
	return TB_OK;
}

TB_API tb_status tb_perf_event_desc_next(tb_perf_desc_iter *it, tb_perf_event_desc *out,
					 tb_error *err)
{
	tb_reader r, sub;
	uint32_t nids;
	size_t used;
	uint64_t base;
	tb_status st;
	tb_perf_str_iter *l = it ? &it->list : NULL;
	if ((st = list_next(l, out, &r, err)) != TB_OK)
		return st;
	base = l->feat->offset;
	if (!tb_rd_sub(&r, l->pos, it->attr_size, &sub))
		return fail(err, TB_ERR_TRUNCATED, base + l->pos, "EVENT_DESC attr cut short");
	if ((st = read_attr(&sub, it->attr_size, base + l->pos, &out->attr, &used, err)))
		return st;
	l->pos += it->attr_size;
	if (!tb_rd_u32_at(&r, l->pos, &nids))
		return fail(err, TB_ERR_TRUNCATED, base + l->pos, "EVENT_DESC id count cut short");
	l->pos += 4;
	if ((st = read_str(&r, &l->pos, base, &out->name, err)))
		return st;
	if (nids > tb_rd_left(&r) / 8u || !tb_rd_ptr_at(&r, l->pos, (size_t)nids * 8u, &out->ids.ptr))
		return fail(err, TB_ERR_LENGTH, base + l->pos, "EVENT_DESC ids run past the section");
	out->ids.n = nids;
	out->ids.big_endian = l->big_endian;
	out->attr.nids = nids;
	l->pos += (size_t)nids * 8u;
	l->index++;
	return TB_OK;
}

/* ------------------------------------------------------------------ */
/* The file.                                                          */

static tb_status read_section(const tb_reader *r, size_t at, tb_perf_section *s,
			      const char *what, tb_error *err)
{
	(void)tb_rd_u64_at(r, at, &s->offset);
	(void)tb_rd_u64_at(r, at + 8, &s->size);
	if (s->offset > r->len || s->size > r->len - s->offset)
		return fail(err, TB_ERR_RANGE, at, what);
	return TB_OK;
}

static tb_status read_attrs(tb_perf *f, const tb_reader *r, tb_error *err)
{
	uint64_t n, i, entry = f->attr_size;
	tb_status st;
	if (entry < TB_PERF_ATTR_MIN + 16u || entry > TB_PERF_ATTR_MAX + 16u || entry % 8u)
		return fail(err, TB_ERR_LENGTH, 16, "attr_size out of range");
	if (f->attr_sec.size % entry)
		return fail(err, TB_ERR_LENGTH, 32, "attrs section is not a whole number of attrs");
	n = f->attr_sec.size / entry;
	for (i = 0; i < n; i++) {
		size_t at = (size_t)(f->attr_sec.offset + i * entry), used;
		tb_reader sub;
		tb_perf_attr a;
		tb_perf_section ids = { 0, 0 };
		if (!tb_rd_sub(r, at, (size_t)entry, &sub))
			return fail(err, TB_ERR_TRUNCATED, at, "attr cut short");
		if ((st = read_attr(&sub, (size_t)entry - 16u, at, &a, &used, err)))
			return st;
		if ((st = read_section(r, at + (size_t)entry - 16u, &ids,
				       "attr ids lie outside the file", err)))
			return st;
		if (ids.size % 8u)
			return fail(err, TB_ERR_LENGTH, at + entry - 8u,
				    "attr ids size is not a multiple of 8");
		a.nids = (size_t)(ids.size / 8u);
		if ((st = add_attr(f, &a, err)))
			return st;
		add_ids(f, r, (size_t)ids.offset, ids.size / 8u, (size_t)i);
	}
	return TB_OK;
}

static tb_status read_features(tb_perf *f, tb_error *err)
{
	unsigned id;
	tb_status st;
	for (id = 0; id < TB_PERF_FEAT_BITS; id++) {
		tb_perf_feature ft;
		if (!tb_perf_has_feature(f, id))
			continue;
		if ((st = feature_entry(f, id, &ft, err)) ||
		    (st = apply_feature(f, &ft, 1, err)))
			return st;
	}
	return TB_OK;
}

static void init_perf(tb_perf *f, const tb_perf_storage *st)
{
	memset(f, 0, sizeof(*f));
	if (st)
		f->st_ = *st;
	f->st_.attrs_cap = tb_region_len(f->st_.attrs, f->st_.attrs_cap);
	f->st_.ids_cap = tb_region_len(f->st_.ids, f->st_.ids_cap);
	f->st_.tracing_cap = tb_region_len(f->st_.tracing, f->st_.tracing_cap);
	f->attrs = f->st_.attrs;
	f->ids = f->st_.ids;
	f->id_pos = f->id_pos_end = -1;
	f->ids_sorted_ = 1;
}

/* Byte order from the magic; TB_ERR_MAGIC when it is neither. */
static tb_status read_magic(const uint8_t *p, int *be, tb_error *err)
{
	uint64_t m = tb_load64(p, 0);
	if (m == MAGIC_LE)
		*be = 0;
	else if (m == MAGIC_BE)
		*be = 1;
	else
		return fail(err, TB_ERR_MAGIC, 0, "not a perf.data file (magic)");
	return TB_OK;
}

TB_API tb_status tb_perf_open(tb_perf *f, const void *file, size_t len,
			      const tb_perf_storage *st, tb_error *err)
{
	tb_reader r;
	tb_status s;
	unsigned i;
	tb_error_clear(err);
	if (!f || (!file && len))
		return fail(err, TB_ERR_ARG, 0, "NULL file or handle");
	init_perf(f, st);
	f->file = (const uint8_t *)file;
	f->len = len;
	if (len < 16)
		return fail(err, TB_ERR_TRUNCATED, 0, "shorter than the perf.data header");
	if ((s = read_magic(f->file, &f->big_endian, err)))
		return s;
	tb_rd_init(&r, file, len, f->big_endian);
	(void)tb_rd_u64_at(&r, 8, &f->header_size);
	if (f->header_size == TB_PERF_PIPE_HEADER_SIZE) {
		f->pipe = 1;
		return fail(err, TB_ERR_UNSUPPORTED, 8,
			    "a pipe-mode stream: read it with tb_perf_stream");
	}
	if (f->header_size < TB_PERF_HEADER_SIZE)
		return fail(err, TB_ERR_VERSION, 8, "header size is neither 16 (pipe) nor 104 or more");
	if (f->header_size > len)
		return fail(err, TB_ERR_TRUNCATED, 8, "header runs past the end of the file");
	(void)tb_rd_u64_at(&r, 16, &f->attr_size);
	if ((s = read_section(&r, 24, &f->attr_sec, "attrs section lies outside the file", err)) ||
	    (s = read_section(&r, 40, &f->data, "data section lies outside the file", err)) ||
	    (s = read_section(&r, 56, &f->event_types, "event types section lies outside the file", err)))
		return s;
	for (i = 0; i < TB_PERF_FEAT_BITS / 64; i++)
		(void)tb_rd_u64_at(&r, 72 + 8u * i, &f->features[i]);
	if ((s = read_attrs(f, &r, err)))
		return s;
	if (f->need.attrs == 0 && f->data.size)
		return fail(err, TB_ERR_VALUE, 24, "records but no attrs");
	if ((s = read_features(f, err)))
		return s;
	if (f->dir_format)
		return fail(err, TB_ERR_UNSUPPORTED, 0,
			    "directory layout (perf record --threads): the samples are in "
			    "its data.N files, not read by this version");
	if (f->need.attrs > f->st_.attrs_cap || f->need.ids > f->st_.ids_cap)
		return fail(err, TB_ERR_NO_SPACE, 0, "caller storage too small (see need)");
	return sort_ids(f, err);
}

/* ------------------------------------------------------------------ */
/* Records.                                                           */

/* A record being parsed: a miss of any read sets bad. */
typedef struct cur {
	tb_reader r;
	size_t end;      /* fields stop here (the trailer starts) */
	int bad;
} cur;

TB_ALWAYS_INLINE uint64_t c64(cur *c)
{
	uint64_t v = 0;
	if (c->bad || c->end - c->r.pos < 8 || !tb_rd_u64(&c->r, &v))
		c->bad = 1;
	return v;
}

TB_ALWAYS_INLINE uint32_t c32(cur *c)
{
	uint32_t v = 0;
	if (c->bad || c->end - c->r.pos < 4 || !tb_rd_u32(&c->r, &v))
		c->bad = 1;
	return v;
}

/* n bytes at the cursor (checked against the fields' end). */
static const uint8_t *cbytes(cur *c, uint64_t n)
{
	const uint8_t *p = NULL;
	if (c->bad || n > c->end - c->r.pos || !tb_rd_bytes(&c->r, (size_t)n, &p)) {
		c->bad = 1;
		return NULL;
	}
	return p;
}

/* n u64 values at the cursor. */
static void cu64s(cur *c, uint64_t n, tb_perf_u64s *out)
{
	out->big_endian = c->r.big_endian;
	if (n > (c->end - c->r.pos) / 8u) {
		c->bad = 1;
		return;
	}
	out->ptr = cbytes(c, n * 8u);
	out->n = out->ptr ? n : 0;
}

/* The u64 values a READ field holds for read_format rf. */
static void read_values(cur *c, uint64_t rf, tb_perf_u64s *out)
{
	uint64_t per = 1u + (rf >> 2 & 1u) + (rf >> 4 & 1u);  /* value, ID, LOST */
	uint64_t times = (rf & 1u) + (rf >> 1 & 1u);          /* ENABLED, RUNNING */
	if (rf & TB_PERF_FORMAT_GROUP) {
		size_t start = c->r.pos;
		uint64_t nr = c64(c);
		if (c->bad || nr > (c->end - c->r.pos) / 8u / per) {
			c->bad = 1;
			return;
		}
		c->r.pos = start;
		cu64s(c, 1 + times + nr * per, out);
	} else {
		cu64s(c, per + times, out);
	}
}

static void regs(cur *c, uint64_t mask, uint64_t *abi, tb_perf_u64s *out)
{
	*abi = c64(c);
	out->big_endian = c->r.big_endian;
	if (*abi)
		cu64s(c, popcount64(mask), out);
}

/* TID and TIME, then ID, STREAM_ID and CPU: in this order in a SAMPLE
 * (ADDR between them) and in a trailer. */
static void tid_time(cur *c, uint64_t t, tb_perf_sample *s)
{
	if (t & TB_PERF_SAMPLE_TID) {
		s->pid = c32(c);
		s->tid = c32(c);
	}
	if (t & TB_PERF_SAMPLE_TIME)
		s->time = c64(c);
}

static void id_stream_cpu(cur *c, uint64_t t, tb_perf_sample *s)
{
	if (t & TB_PERF_SAMPLE_ID)
		s->id = c64(c);
	if (t & TB_PERF_SAMPLE_STREAM_ID)
		s->stream_id = c64(c);
	if (t & TB_PERF_SAMPLE_CPU) {
		s->cpu = c32(c);
		(void)c32(c);
	}
}

/* The fields of fixed size a SAMPLE starts with, IDENTIFIER to PERIOD
 * (TID and CPU are two u32 each): 8 bytes a bit. */
#define FIXED_BITS (TB_PERF_SAMPLE_IDENTIFIER | TB_PERF_SAMPLE_IP | TB_PERF_SAMPLE_TID | \
		    TB_PERF_SAMPLE_TIME | TB_PERF_SAMPLE_ADDR | TB_PERF_SAMPLE_ID | \
		    TB_PERF_SAMPLE_STREAM_ID | TB_PERF_SAMPLE_CPU | TB_PERF_SAMPLE_PERIOD)

/* Those fields read with one bounds check when the record holds them all
 * (every sample of a sane file): 0 when it does not, and the field by
 * field reads below find where it stops. */
static int fixed_fields(cur *c, uint64_t t, tb_perf_sample *s)
{
	size_t n = (size_t)8 * popcount64(t & FIXED_BITS);
	const uint8_t *p;
	int be = c->r.big_endian;
	if (c->bad || c->end - c->r.pos < n || !tb_rd_ptr_at(&c->r, c->r.pos, n, &p))
		return 0;
	c->r.pos += n;
#define FIXED_U64(bit, field)                      \
	if (t & (bit)) {                           \
		s->field = tb_load64(p, be);       \
		p += 8;                            \
	}
	FIXED_U64(TB_PERF_SAMPLE_IDENTIFIER, id)
	FIXED_U64(TB_PERF_SAMPLE_IP, ip)
	if (t & TB_PERF_SAMPLE_TID) {
		s->pid = tb_load32(p, be);
		s->tid = tb_load32(p + 4, be);
		p += 8;
	}
	FIXED_U64(TB_PERF_SAMPLE_TIME, time)
	FIXED_U64(TB_PERF_SAMPLE_ADDR, addr)
	FIXED_U64(TB_PERF_SAMPLE_ID, id)
	FIXED_U64(TB_PERF_SAMPLE_STREAM_ID, stream_id)
	if (t & TB_PERF_SAMPLE_CPU) {
		s->cpu = tb_load32(p, be);
		p += 8;
	}
	FIXED_U64(TB_PERF_SAMPLE_PERIOD, period)
#undef FIXED_U64
	return 1;
}

TB_API tb_status tb_perf_parse_sample(const tb_perf *f, const tb_perf_attr *a,
				      const uint8_t *rec, size_t len, uint64_t offset,
				      tb_perf_sample *s, tb_error *err)
{
	cur c;
	uint64_t t;
	if (!f || !a || !s || (!rec && len))
		return fail(err, TB_ERR_ARG, offset, "NULL argument");
	memset(s, 0, sizeof(*s));
	t = a->sample_type;
	if (t & ~TB_PERF_SAMPLE_KNOWN_)
		return fail(err, TB_ERR_UNSUPPORTED, offset,
			    "SAMPLE of an attr whose sample_type has bits this decoder "
			    "does not know");
	tb_rd_init(&c.r, rec, len, f->big_endian);
	c.r.pos = REC_HDR;
	c.end = len;
	c.bad = len < REC_HDR;
	s->present = t;
	if (!fixed_fields(&c, t, s)) {
		if (t & TB_PERF_SAMPLE_IDENTIFIER)
			s->id = c64(&c);
		if (t & TB_PERF_SAMPLE_IP)
			s->ip = c64(&c);
		tid_time(&c, t, s);
		if (t & TB_PERF_SAMPLE_ADDR)
			s->addr = c64(&c);
		id_stream_cpu(&c, t, s);
		if (t & TB_PERF_SAMPLE_PERIOD)
			s->period = c64(&c);
	}
	if (t & TB_PERF_SAMPLE_READ)
		read_values(&c, a->read_format, &s->read);
	if (t & TB_PERF_SAMPLE_CALLCHAIN)
		cu64s(&c, c64(&c), &s->callchain);
	if (t & TB_PERF_SAMPLE_RAW) {
		uint32_t n = c32(&c);
		s->raw.ptr = cbytes(&c, n);
		s->raw.len = s->raw.ptr ? n : 0;
	}
	if (t & TB_PERF_SAMPLE_BRANCH_STACK) {
		s->branch_nr = c64(&c);
		if (a->branch_sample_type & TB_PERF_BRANCH_HW_INDEX)
			s->branch_hw_idx = c64(&c);
		if (!c.bad && s->branch_nr > (c.end - c.r.pos) / 24u)
			c.bad = 1;
		cu64s(&c, c.bad ? 0 : s->branch_nr * 3u, &s->branches);
		if (a->branch_sample_type & TB_PERF_BRANCH_COUNTERS)
			cu64s(&c, c.bad ? 0 : s->branch_nr, &s->branch_counters);
	}
	if (t & TB_PERF_SAMPLE_REGS_USER)
		regs(&c, a->sample_regs_user, &s->regs_user_abi, &s->regs_user);
	if (t & TB_PERF_SAMPLE_STACK_USER) {
		s->stack_user_size = c64(&c);
		if (s->stack_user_size) {
			s->stack_user.ptr = cbytes(&c, s->stack_user_size);
			s->stack_user.len = s->stack_user.ptr ? (size_t)s->stack_user_size : 0;
			s->stack_user_dyn_size = c64(&c);
		}
	}
	if (t & (TB_PERF_SAMPLE_WEIGHT | TB_PERF_SAMPLE_WEIGHT_STRUCT))
		s->weight = c64(&c);
	if (t & TB_PERF_SAMPLE_DATA_SRC)
		s->data_src = c64(&c);
	if (t & TB_PERF_SAMPLE_TRANSACTION)
		s->transaction = c64(&c);
	if (t & TB_PERF_SAMPLE_REGS_INTR)
		regs(&c, a->sample_regs_intr, &s->regs_intr_abi, &s->regs_intr);
	if (t & TB_PERF_SAMPLE_PHYS_ADDR)
		s->phys_addr = c64(&c);
	if (t & TB_PERF_SAMPLE_CGROUP)
		s->cgroup = c64(&c);
	if (t & TB_PERF_SAMPLE_DATA_PAGE_SIZE)
		s->data_page_size = c64(&c);
	if (t & TB_PERF_SAMPLE_CODE_PAGE_SIZE)
		s->code_page_size = c64(&c);
	if (t & TB_PERF_SAMPLE_AUX) {
		uint64_t n = c64(&c);
		s->aux.ptr = cbytes(&c, n);
		s->aux.len = s->aux.ptr ? (size_t)n : 0;
	}
	if (c.bad)
		return fail(err, TB_ERR_LENGTH, offset + (c.r.pos < len ? c.r.pos : 0),
			    "SAMPLE fields run past the record's size");
	return TB_OK;
}

/* The sample_id_all trailer at the end of a record's fields. */
static void parse_trailer(const tb_perf_attr *a, cur *c, size_t start, tb_perf_sample *s)
{
	uint64_t t = a->sample_type;
	size_t end = c->end;
	c->r.pos = start;
	c->end = c->r.len;
	s->present = t & TRAILER_BITS;
	tid_time(c, t, s);
	id_stream_cpu(c, t, s);
	if (t & TB_PERF_SAMPLE_IDENTIFIER)
		s->id = c64(c);
	c->end = end;
}

/* The id of a record: at id_pos of a SAMPLE, or id_pos_end u64s from the
 * end of a trailer.  0 when the record is too short to hold it. */
TB_ALWAYS_INLINE int record_id(const tb_perf *f, const tb_reader *r, int sample, uint64_t *id)
{
	size_t at;
	if (sample) {
		if (f->id_pos < 0)
			return 0;
		at = REC_HDR + 8u * (size_t)f->id_pos;
	} else {
		size_t back = 8u * (size_t)f->id_pos_end;
		if (f->id_pos_end < 0 || r->len < REC_HDR + back)
			return 0;
		at = r->len - back;
	}
	return tb_rd_u64_at(r, at, id);
}

/* The attr a record belongs to (NULL: not found).  Per record: inline. */
TB_ALWAYS_INLINE const tb_perf_attr *record_attr(const tb_perf *f, const tb_reader *r, int sample)
{
	uint64_t id;
	const tb_perf_attr *a = NULL;
	if (f->nattrs == 1)
		return &f->attrs[0];
	if (!record_id(f, r, sample, &id))
		return NULL;
	(void)find_attr(f, id, &a);
	return a;
}

/* A NUL-terminated name filling [pos, end) of c: the span before the NUL. */
static int cname(cur *c, tb_perf_bytes *out)
{
	const uint8_t *p, *nul;
	size_t n = c->end > c->r.pos ? c->end - c->r.pos : 0;
	if (c->bad || !tb_rd_ptr_at(&c->r, c->r.pos, n, &p))
		return 0;
	nul = n ? (const uint8_t *)memchr(p, 0, n) : NULL;
	if (!nul)
		return 0;
	out->ptr = p;
	out->len = (size_t)(nul - p);
	return 1;
}

static int has_trailer_type(uint32_t type)
{
	return type >= TB_PERF_RECORD_MMAP && type < TB_PERF_RECORD_KERNEL_END_ &&
	       type != TB_PERF_RECORD_SAMPLE;
}

/* The fields of a kernel record other than SAMPLE, before its trailer. */
static int parse_kernel(cur *c, tb_perf_record *rec)
{
	switch (rec->type) {
	case TB_PERF_RECORD_COMM:
		rec->u.comm.pid = c32(c);
		rec->u.comm.tid = c32(c);
		return cname(c, &rec->u.comm.comm);
	case TB_PERF_RECORD_FORK:
	case TB_PERF_RECORD_EXIT:
		rec->u.fork.pid = c32(c);
		rec->u.fork.ppid = c32(c);
		rec->u.fork.tid = c32(c);
		rec->u.fork.ptid = c32(c);
		rec->u.fork.time = c64(c);
		return 1;
	case TB_PERF_RECORD_LOST:
		rec->u.lost.id = c64(c);
		rec->u.lost.lost = c64(c);
		return 1;
	case TB_PERF_RECORD_LOST_SAMPLES:
		rec->u.lost_samples.lost = c64(c);
		return 1;
	case TB_PERF_RECORD_MMAP:
	case TB_PERF_RECORD_MMAP2:
		rec->u.mmap.pid = c32(c);
		rec->u.mmap.tid = c32(c);
		rec->u.mmap.addr = c64(c);
		rec->u.mmap.len = c64(c);
		rec->u.mmap.pgoff = c64(c);
		if (rec->type == TB_PERF_RECORD_MMAP2) {
			if (rec->misc & TB_PERF_MISC_MMAP_BUILD_ID) {
				const uint8_t *b = cbytes(c, 4);
				const uint8_t *id = cbytes(c, 20);
				if (!b || !id || b[0] > 20)
					return 0;
				rec->u.mmap.build_id.ptr = id;
				rec->u.mmap.build_id.len = b[0];
			} else {
				rec->u.mmap.maj = c32(c);
				rec->u.mmap.min = c32(c);
				rec->u.mmap.ino = c64(c);
				rec->u.mmap.ino_generation = c64(c);
			}
			rec->u.mmap.prot = c32(c);
			rec->u.mmap.flags = c32(c);
		}
		return cname(c, &rec->u.mmap.filename);
	default:
		return 1; /* its fields are not read: its size steps over it */
	}
}

/* A record's header (the caller read it: len >= 8), every other field
 * before s cleared. */
TB_ALWAYS_INLINE void rec_head(const tb_perf *f, const uint8_t *data, size_t len,
			       uint64_t offset, tb_perf_record *rec)
{
	/* each field stored (per record: no memset of the head) */
	rec->type = tb_load32(data, f->big_endian);
	rec->misc = tb_load16(data + 4, f->big_endian);
	rec->size = tb_load16(data + 6, f->big_endian);
	rec->offset = offset;
	rec->data.ptr = data;
	rec->data.len = len;
	rec->extra.ptr = NULL;
	rec->extra.len = 0;
	rec->extra_len = 0;
	rec->decompressed = 0;
	rec->stream_offset = 0;
	rec->attr = NULL;
	rec->has_sample = 0;
}

/* A SAMPLE's header and attr (all the session's walk asks: see
 * tb_perf_samples_unparsed_); s and u are left for the caller. */
TB_ALWAYS_INLINE tb_status sample_head(const tb_perf *f, const uint8_t *data, size_t len,
				       uint64_t offset, tb_perf_record *rec, tb_error *err)
{
	tb_reader r;
	rec_head(f, data, len, offset, rec);
	tb_rd_init(&r, data, len, f->big_endian);
	rec->attr = record_attr(f, &r, 1);
	if (!rec->attr) {
		memset(&rec->u, 0, sizeof(rec->u));
		memset(&rec->s, 0, sizeof(rec->s));
		return fail(err, TB_ERR_VALUE, offset, "SAMPLE of no known attr (id not listed)");
	}
	return TB_OK;
}

/* Is data (len >= 8) a SAMPLE the caller parses itself? */
TB_ALWAYS_INLINE int sample_unparsed(const tb_perf *f, const uint8_t *data)
{
	return f->samples_unparsed_ &&
	       tb_load32(data, f->big_endian) == TB_PERF_RECORD_SAMPLE;
}

/*
 * Parse one whole record r (data[0..len), len >= 8 and equal to its size
 * field) at `offset`.  Only the contents are checked here: the caller
 * checked the header and keeps the walk going after an error.
 */
static tb_status parse_record(const tb_perf *f, const uint8_t *data, size_t len,
			      uint64_t offset, tb_perf_record *rec, tb_error *err)
{
	cur c;
	tb_status st;
	if (tb_load32(data, f->big_endian) == TB_PERF_RECORD_SAMPLE) {
		if ((st = sample_head(f, data, len, offset, rec, err)) != TB_OK ||
		    f->samples_unparsed_)
			return st; /* (unparsed: the caller parses) */
		/* s cleared by tb_perf_parse_sample (most of the record's
		 * size: cleared once) */
		memset(&rec->u, 0, sizeof(rec->u));
		if ((st = tb_perf_parse_sample(f, rec->attr, data, len, offset, &rec->s, err)))
			return st;
		rec->has_sample = 1;
		return TB_OK;
	}
	rec_head(f, data, len, offset, rec);
	tb_rd_init(&c.r, data, len, f->big_endian);
	c.end = len;
	c.bad = 0;
	c.r.pos = REC_HDR;
	memset(&rec->u, 0, sizeof(rec->u));
	memset(&rec->s, 0, sizeof(rec->s));
	if (has_trailer_type(rec->type)) {
		size_t tsz;
		rec->attr = record_attr(f, &c.r, 0);
		tsz = rec->attr ? trailer_size(rec->attr) : 0;
		if (tsz > len - REC_HDR)
			return fail(err, TB_ERR_LENGTH, offset,
				    "record shorter than its sample_id_all trailer");
		if (tsz) {
			parse_trailer(rec->attr, &c, len - tsz, &rec->s);
			rec->has_sample = 1;
			c.r.pos = REC_HDR;
			c.end = len - tsz;
		}
		if (!parse_kernel(&c, rec) || c.bad)
			return fail(err, TB_ERR_LENGTH, offset + 8,
				    "record fields run past its size (or a name lacks its NUL)");
		return TB_OK;
	}
	switch (rec->type) {
	case TB_PERF_RECORD_AUXTRACE:
		rec->u.auxtrace.size = c64(&c);
		rec->u.auxtrace.offset = c64(&c);
		rec->u.auxtrace.reference = c64(&c);
		rec->u.auxtrace.idx = c32(&c);
		rec->u.auxtrace.tid = c32(&c);
		rec->u.auxtrace.cpu = c32(&c);
		rec->extra_len = rec->u.auxtrace.size;
		break;
	case TB_PERF_RECORD_HEADER_TRACING_DATA:
		rec->extra_len = c32(&c);
		break;
	case TB_PERF_RECORD_HEADER_ATTR: {
		size_t used = 0;
		tb_reader sub;
		tb_rd_init(&sub, NULL, 0, 0);
		(void)tb_rd_sub(&c.r, REC_HDR, len - REC_HDR, &sub);
		if ((st = read_attr(&sub, len - REC_HDR, offset + REC_HDR, &rec->u.attr, &used, err)))
			return st;
		if ((len - REC_HDR - used) % 8u)
			return fail(err, TB_ERR_LENGTH, offset + 6,
				    "HEADER_ATTR ids are not a whole number of u64");
		rec->u.attr.nids = (len - REC_HDR - used) / 8u;
		break;
	}
	case TB_PERF_RECORD_HEADER_FEATURE:
		rec->u.feature.id = (uint32_t)c64(&c);
		rec->u.feature.offset = offset + 16;
		rec->u.feature.data.ptr = cbytes(&c, len - c.r.pos);
		rec->u.feature.data.len = rec->u.feature.data.ptr ? len - 16 : 0;
		break;
	default:
		break;
	}
	if (c.bad)
		return fail(err, TB_ERR_LENGTH, offset + 8, "record fields run past its size");
	return TB_OK;
}

/* Records whose size does not count the bytes that follow them. */
static int follows_data(uint32_t type)
{
	return type == TB_PERF_RECORD_AUXTRACE || type == TB_PERF_RECORD_HEADER_TRACING_DATA;
}

/* The record header at off of r: its size checked against min and room. */
TB_ALWAYS_INLINE tb_status check_header(const tb_reader *r, size_t off, uint64_t where, size_t room,
			      uint16_t *size, tb_error *err)
{
	if (room < REC_HDR || !tb_rd_u16_at(r, off + 6, size))
		return fail(err, TB_ERR_TRUNCATED, where, "record header cut short");
	if (*size < REC_HDR)
		return fail(err, TB_ERR_LENGTH, where + 6, "record size below its 8-byte header");
	if (*size > room)
		return fail(err, TB_ERR_TRUNCATED, where, "record runs past the end of its section");
	return TB_OK;
}

/* ------------------------------------------------------------------ */
/* COMPRESSED records: one decompressed stream, drained record by      */
/* record through the caller's window.                                */

static int is_compressed(uint32_t type)
{
	return type == TB_PERF_RECORD_COMPRESSED || type == TB_PERF_RECORD_COMPRESSED2;
}

static tb_status set_decompressor(tb_perf_inflate *z, const tb_perf_decompressor *dc)
{
	if (!dc || !dc->fn || !dc->window || dc->window_cap < TB_PERF_WINDOW_MIN)
		return TB_ERR_ARG;
	memset(z, 0, sizeof(*z));
	z->dc = *dc;
	return TB_OK;
}

/* Start draining a COMPRESSED record's payload. */
static tb_status inflate_start(const tb_perf *f, tb_perf_inflate *z, const tb_perf_record *rec,
			       tb_error *err)
{
	tb_reader r;
	uint64_t n;
	tb_rd_init(&r, rec->data.ptr, rec->data.len, f->big_endian);
	if (rec->type == TB_PERF_RECORD_COMPRESSED2) {
		/* an explicit size: the record may be padded past it */
		if (!tb_rd_u64_at(&r, REC_HDR, &n) || n > rec->data.len - 16u)
			return fail(err, TB_ERR_LENGTH, rec->offset + REC_HDR,
				    "COMPRESSED2 data size runs past the record");
		z->src = rec->data.ptr + 16;
	} else {
		n = rec->data.len - REC_HDR;
		z->src = rec->data.ptr + REC_HDR;
	}
	z->src_left = (size_t)n;
	z->rec_off = rec->offset;
	z->active = 1;
	return TB_OK;
}

/*
 * The next record out of the decompressed bytes: TB_OK, TB_END when the
 * COMPRESSED records drained so far hold no further whole record (read
 * the next record of the input), or an error (*sticky: the walk cannot
 * go on).  Errors are at the offset of the COMPRESSED record drained.
 */
static tb_status inflate_next(const tb_perf *f, tb_perf_inflate *z, tb_perf_record *rec,
			      int *sticky, tb_error *err)
{
	*sticky = 1;
	for (;;) {
		size_t have = z->wend - z->wpos, consumed = 0, produced = 0;
		tb_status st;
		if (have >= REC_HDR) {
			const uint8_t *h = z->dc.window + z->wpos;
			uint16_t size = tb_load16(h + 6, f->big_endian);
			uint32_t type = tb_load32(h, f->big_endian);
			if (size < REC_HDR)
				return fail(err, TB_ERR_LENGTH, z->rec_off,
					    "record inside compressed data: size below its header");
			if (size <= have) {
				uint64_t at = z->out_off + z->wpos;
				z->wpos += size;
				if (follows_data(type) || is_compressed(type))
					return fail(err, TB_ERR_UNSUPPORTED, z->rec_off,
						    "record inside compressed data that this version "
						    "does not read there");
				*sticky = 0;
				z->records++;
				st = parse_record(f, h, size, z->rec_off, rec, err);
				rec->decompressed = 1;
				rec->stream_offset = at;
				return st;
			}
		}
		if (!z->active)
			return TB_END;
		if (z->wpos) { /* room for more: what is left to the front */
			memmove(z->dc.window, z->dc.window + z->wpos, have);
			z->out_off += z->wpos;
			z->wend = have;
			z->wpos = 0;
		}
		st = z->dc.fn(z->dc.ctx, z->src, z->src_left, &consumed,
			      z->dc.window + z->wend, z->dc.window_cap - z->wend, &produced);
		if (st != TB_OK)
			return fail(err, tb_is_error(st) ? st : TB_ERR_VALUE, z->rec_off,
				    "COMPRESSED record does not decompress");
		if (consumed > z->src_left || produced > z->dc.window_cap - z->wend)
			return fail(err, TB_ERR_ARG, z->rec_off,
				    "decompressor claims more bytes than it was given");
		z->src += consumed;
		z->src_left -= consumed;
		z->wend += produced;
		if (consumed == 0 && produced == 0) {
			if (z->src_left)
				return fail(err, TB_ERR_VALUE, z->rec_off,
					    "decompressor makes no progress");
			z->active = 0; /* this record's data is all out */
		}
	}
}

/* Bytes of decompressed data that no whole record took. */
static size_t inflate_left(const tb_perf_inflate *z)
{
	return z->wend - z->wpos;
}

TB_API tb_status tb_perf_records_decompress(tb_perf_iter *it, const tb_perf_decompressor *dc)
{
	return it ? set_decompressor(&it->z, dc) : TB_ERR_ARG;
}

TB_API tb_status tb_perf_records_begin(tb_perf_iter *it, const tb_perf *f, tb_error *err)
{
	if (!it || !f)
		return fail(err, TB_ERR_ARG, 0, "NULL argument");
	memset(it, 0, sizeof(*it));
	if (f->pipe || !f->file)
		return fail(err, TB_ERR_ARG, 0, "not an opened perf.data file");
	it->f = f;
	it->pos = f->data.offset;
	it->end = f->data.offset + f->data.size;
	it->sticky = TB_OK;
	return TB_OK;
}

/* A record check_header passed (size bytes at d, data-section offset
 * `offset`, `after` bytes of the section after it), as the walk gives it:
 * *sticky set when its fault ends the walk. */
TB_ALWAYS_INLINE tb_status walk_record(const tb_perf *f, const uint8_t *d, uint16_t size,
				       uint64_t offset, uint64_t after, tb_perf_record *rec,
				       int *sticky, tb_error *err)
{
	/* the session's samples, the most records by far: inline */
	tb_status st = sample_unparsed(f, d) ? sample_head(f, d, size, offset, rec, err)
					     : parse_record(f, d, size, offset, rec, err);
	*sticky = 1;
	if (st && follows_data(rec->type)) /* where the next record starts is unknown */
		return fail(err, st, offset, "record with data after it is too short to say how much");
	if (st == TB_OK && rec->extra_len > after) /* AUXTRACE's data, HEADER_TRACING_DATA's bytes */
		return fail(err, TB_ERR_TRUNCATED, offset,
			    "data following the record runs past the data section");
	*sticky = 0;
	return st;
}

/* The next record of the data section itself. */
static tb_status file_record(tb_perf_iter *it, tb_perf_record *rec, tb_error *err)
{
	tb_reader r;
	uint16_t size;
	tb_status st;
	tb_error e;
	int sticky;
	const uint8_t *p;
	tb_rd_init(&r, it->f->file, it->f->len, it->f->big_endian);
	st = check_header(&r, (size_t)it->pos, it->pos, (size_t)(it->end - it->pos), &size, &it->err);
	if (st) {
		it->sticky = st;
		if (err)
			*err = it->err;
		return st;
	}
	p = it->f->file + (size_t)it->pos; /* check_header bounded it inside the file */
	st = walk_record(it->f, p, size, it->pos, it->end - it->pos - size, rec, &sticky, &e);
	if (st != TB_OK && err)
		*err = e;
	if (sticky) {
		it->sticky = st;
		it->err = e;
		return st;
	}
	it->pos += size;
	it->count++;
	if (st == TB_OK && rec->extra_len) {
		(void)tb_rd_ptr_at(&r, (size_t)it->pos, (size_t)rec->extra_len, &rec->extra.ptr);
		rec->extra.len = (size_t)rec->extra_len;
		it->pos += rec->extra_len;
	}
	return st;
}

size_t tb_perf_scan_buffer_(const tb_perf *f, const uint8_t *d, size_t len, uint64_t offset,
			    tb_perf_sample_ref_ *out, size_t max, size_t *used)
{
	int be = f->big_endian;
	size_t n = 0, pos = 0;
	while (n < max && len - pos >= REC_HDR) {
		const uint8_t *h = d + pos;
		uint16_t size = tb_load16(h + 6, be);
		const tb_perf_attr *a;
		tb_reader r;
		if (tb_load32(h, be) != TB_PERF_RECORD_SAMPLE || size < REC_HDR || size > len - pos)
			break;
		tb_rd_init(&r, h, size, be);
		if (!(a = record_attr(f, &r, 1)))
			break;
		out[n].offset = offset + pos;
		out[n].attr = (uint32_t)(a - f->attrs);
		out[n].size = size;
		n++;
		pos += size;
	}
	*used = pos;
	return n;
}

size_t tb_perf_scan_samples_(tb_perf_iter *it, tb_perf_sample_ref_ *out, size_t max)
{
	const tb_perf *f = it->f;
	size_t n, used;
	if (it->sticky != TB_OK || it->z.active || inflate_left(&it->z) || it->pos >= it->end)
		return 0; /* (decompressed bytes come first) */
	/* (read_section bounded the data section inside the file) */
	n = tb_perf_scan_buffer_(f, f->file + (size_t)it->pos, (size_t)(it->end - it->pos), it->pos,
				 out, max, &used);
	it->pos += used;
	it->count += n;
	return n;
}

tb_status tb_perf_buffer_header_(const tb_perf *f, const uint8_t *d, size_t have,
				 uint64_t offset, uint64_t room, uint16_t *size, tb_error *err)
{
	tb_reader r;
	tb_rd_init(&r, d, have, f->big_endian);
	return check_header(&r, 0, offset, room < SIZE_MAX ? (size_t)room : SIZE_MAX, size, err);
}

tb_status tb_perf_buffer_record_(const tb_perf *f, const uint8_t *d, uint16_t size,
				 uint64_t offset, uint64_t after, tb_perf_record *rec, int *sticky,
				 tb_error *err)
{
	return walk_record(f, d, size, offset, after, rec, sticky, err);
}

/* The next record out of the COMPRESSED ones drained (TB_END: none).
 * Out of line: its locals would cost every record's call a stack guard. */
static TB_NOINLINE tb_status iter_inflated(tb_perf_iter *it, tb_perf_record *rec, tb_error *err)
{
	tb_error e;
	int sticky;
	tb_status st = inflate_next(it->f, &it->z, rec, &sticky, &e);
	if (st != TB_END) {
		if (st != TB_OK && sticky) {
			it->sticky = st;
			it->err = e;
		}
		if (err && st != TB_OK)
			*err = e;
	}
	return st;
}

TB_API tb_status tb_perf_record_next(tb_perf_iter *it, tb_perf_record *rec, tb_error *err)
{
	tb_status st;
	if (!it || !it->f || !rec)
		return fail(err, TB_ERR_ARG, 0, "NULL argument");
	for (;;) {
		if (it->sticky != TB_OK) {
			if (err)
				*err = it->err;
			return it->sticky;
		}
		if (it->z.dc.fn && (st = iter_inflated(it, rec, err)) != TB_END)
			return st;
		if (it->pos >= it->end) {
			if (inflate_left(&it->z)) {
				it->sticky = fail(&it->err, TB_ERR_TRUNCATED, it->end,
						  "compressed data ends inside a record");
				continue;
			}
			return TB_END;
		}
		st = file_record(it, rec, err);
		if (st != TB_OK || !is_compressed(rec->type))
			return st;
		if (!it->z.dc.fn)
			return fail(err, TB_ERR_UNSUPPORTED, rec->offset,
				    "COMPRESSED record and no decompressor given");
		if ((st = inflate_start(it->f, &it->z, rec, err)) != TB_OK)
			return st;
	}
}

/* ------------------------------------------------------------------ */
/* Pipe mode.                                                         */

static tb_status stick(tb_perf_stream *p, tb_error *err, tb_status st, uint64_t off,
		       const char *what)
{
	p->sticky = st;
	tb_fail(&p->err, st, off, what);
	return tb_fail(err, st, off, what);
}

TB_API void tb_perf_stream_init(tb_perf_stream *p, const tb_perf_storage *st)
{
	memset(p, 0, offsetof(tb_perf_stream, buf));
	init_perf(&p->f, st);
	p->f.pipe = 1;
	p->f.header_size = TB_PERF_PIPE_HEADER_SIZE;
	p->sticky = TB_OK;
	tb_error_clear(&p->err);
}

TB_API tb_status tb_perf_stream_decompress(tb_perf_stream *p, const tb_perf_decompressor *dc)
{
	return p ? set_decompressor(&p->z, dc) : TB_ERR_ARG;
}

TB_API tb_status tb_perf_stream_feed(tb_perf_stream *p, const void *data, size_t len)
{
	return p ? tb_feed_window_(p->closed, &p->in, &p->in_len, &p->in_pos, data, len)
		 : TB_ERR_ARG;
}

TB_API void tb_perf_stream_close(tb_perf_stream *p)
{
	if (p)
		p->closed = 1;
}

TB_API tb_status tb_perf_stream_open_buffer(tb_perf_stream *p, const tb_perf_storage *st,
					    const void *data, size_t len)
{
	tb_status s;
	tb_perf_stream_init(p, st);
	s = tb_perf_stream_feed(p, data, len);
	tb_perf_stream_close(p);
	return s;
}

/* Out of input: wait for more, or end (at a record boundary) or fail. */
static tb_status out_of_input(tb_perf_stream *p, tb_error *err)
{
	if (!p->closed)
		return TB_NEED_MORE;
	if (inflate_left(&p->z) && p->saved == 0 && !p->pending && p->extra_left == 0)
		return stick(p, err, TB_ERR_TRUNCATED, p->offset,
			     "compressed data ends inside a record");
	if (p->saved == 0 && !p->pending && p->extra_left == 0 && p->header_done) {
		p->done = 1;
		return TB_END;
	}
	if (!p->header_done)
		return stick(p, err, TB_ERR_TRUNCATED, 0, "pipe header cut short");
	if (p->pending || p->extra_left)
		return stick(p, err, TB_ERR_TRUNCATED, p->extra_rec_off,
			     "data following the record cut short by the end of the input");
	return stick(p, err, TB_ERR_TRUNCATED, p->offset,
		     p->saved < REC_HDR ? "record header cut short by the end of the input"
					: "record cut short by the end of the input");
}

/* Up to want bytes of the feed into dst (NULL: skipped); returns how many. */
static size_t take_input(tb_perf_stream *p, uint8_t *dst, size_t want)
{
	tb_reader in;
	const uint8_t *src;
	size_t n = p->in_len - p->in_pos;
	if (n > want)
		n = want;
	tb_rd_init(&in, p->in, p->in_len, 0);
	if (n == 0 || !tb_rd_ptr_at(&in, p->in_pos, n, &src))
		return 0;
	if (dst)
		memcpy(dst, src, n);
	p->in_pos += n;
	return n;
}

static void save_input(tb_perf_stream *p, size_t want)
{
	if (want > sizeof(p->buf) - p->saved)
		want = sizeof(p->buf) - p->saved; /* unreachable: want is bounded */
	p->saved += take_input(p, p->buf + p->saved, want);
}

static tb_status stream_header(tb_perf_stream *p, tb_error *err)
{
	uint64_t size;
	tb_status st;
	save_input(p, TB_PERF_PIPE_HEADER_SIZE - p->saved);
	if (p->saved < TB_PERF_PIPE_HEADER_SIZE)
		return out_of_input(p, err);
	if ((st = read_magic(p->buf, &p->f.big_endian, &p->err)))
		return stick(p, err, st, 0, p->err.what);
	size = tb_load64(p->buf + 8, p->f.big_endian);
	if (size != TB_PERF_PIPE_HEADER_SIZE)
		return stick(p, err, size >= TB_PERF_HEADER_SIZE ? TB_ERR_UNSUPPORTED : TB_ERR_VERSION,
			     8, size >= TB_PERF_HEADER_SIZE
					? "a perf.data file, not a pipe stream: read it with tb_perf_open"
					: "pipe header size is not 16");
	p->header_done = 1;
	p->saved = 0;
	p->offset = TB_PERF_PIPE_HEADER_SIZE;
	return TB_OK;
}

/* What a whole record means to the stream's own state. */
/* keep: rec lies in the caller's bytes (its feature strings may be kept). */
static tb_status stream_apply(tb_perf_stream *p, const tb_perf_record *rec, int keep,
			      tb_error *err)
{
	tb_perf *f = &p->f;
	tb_status st;
	switch (rec->type) {
	case TB_PERF_RECORD_HEADER_ATTR: {
		tb_reader r;
		size_t ai = f->need.attrs, used = rec->size - REC_HDR - 8u * rec->u.attr.nids;
		if ((st = add_attr(f, &rec->u.attr, err)))
			return st;
		tb_rd_init(&r, rec->data.ptr, rec->data.len, f->big_endian);
		add_ids(f, &r, REC_HDR + used, rec->u.attr.nids, ai);
		if (f->need.attrs > f->st_.attrs_cap || f->need.ids > f->st_.ids_cap)
			return stick(p, err, TB_ERR_NO_SPACE, rec->offset,
				     "caller storage too small for the attrs (see need)");
		return TB_OK;
	}
	case TB_PERF_RECORD_HEADER_FEATURE:
		return apply_feature(f, &rec->u.feature, keep, err);
	case TB_PERF_RECORD_FINISHED_INIT:
		p->init_done = 1;
		return TB_OK;
	default:
		return TB_OK;
	}
}

/* Before a record that looks its attr up: the id table sorted (again,
 * after a late HEADER_ATTR, a bounded number of times). */
static tb_status resort_ids(tb_perf_stream *p, tb_error *err)
{
	tb_status st;
	if (p->f.ids_sorted_)
		return TB_OK;
	if (p->f.late_attrs_++ > TB_PERF_MAX_LATE_ATTRS)
		return stick(p, err, TB_ERR_LIMIT, p->offset,
			     "too many HEADER_ATTR records after the first sample");
	if ((st = sort_ids(&p->f, &p->err)))
		return stick(p, err, st, p->err.offset, p->err.what);
	return TB_OK;
}

static tb_status stream_ids(tb_perf_stream *p, const uint8_t *data, size_t len, tb_error *err)
{
	uint32_t type;
	if (p->f.ids_sorted_ || len < 4)
		return TB_OK;
	type = tb_load32(data, p->f.big_endian);
	if (type != TB_PERF_RECORD_SAMPLE && !has_trailer_type(type))
		return TB_OK;
	return resort_ids(p, err);
}

/* A whole record at data: parse it, or start collecting what follows it. */
static tb_status stream_record(tb_perf_stream *p, const uint8_t *data, size_t len,
			       tb_perf_record *rec, tb_error *err)
{
	tb_status st;
	uint64_t off = p->offset;
	if ((st = stream_ids(p, data, len, err)))
		return st;
	p->offset += len;
	p->count++;
	st = parse_record(&p->f, data, len, off, rec, err);
	if (st && follows_data(rec->type))
		return stick(p, err, st, off, "record with data after it is too short to say how much");
	if (st)
		return st;
	if (rec->type == TB_PERF_RECORD_HEADER_TRACING_DATA) {
		p->f.need.tracing = (size_t)rec->extra_len;
		if (rec->extra_len > p->f.st_.tracing_cap)
			return stick(p, err, TB_ERR_NO_SPACE, off,
				     "caller storage too small for the tracing data (see need)");
		if (data != p->buf)
			memcpy(p->buf, data, len);
		p->saved = len; /* the record waits in buf for its bytes */
		p->pending = 1;
		p->extra_left = rec->extra_len;
		p->tracing_got = 0;
		p->extra_rec_off = off;
		return TB_NEED_MORE; /* not a result: the caller loops */
	}
	if (rec->type == TB_PERF_RECORD_AUXTRACE && rec->extra_len) {
		p->extra_left = rec->extra_len; /* skipped on the next call */
		p->extra_rec_off = off;
	}
	/* strings point into the record: kept where it lies in the caller's
	 * bytes, not in the stream's copy of a record split across feeds */
	if ((st = stream_apply(p, rec, data != p->buf, err)))
		return st;
	if (!is_compressed(rec->type))
		return TB_OK;
	if (!p->z.dc.fn)
		return fail(err, TB_ERR_UNSUPPORTED, off, "COMPRESSED record and no decompressor given");
	/* the records inside look their attrs up */
	if ((st = resort_ids(p, err)) || (st = inflate_start(&p->f, &p->z, rec, err)))
		return st;
	return TB_NEED_MORE; /* not a result: the caller loops to drain it */
}

/* HEADER_TRACING_DATA: collect its bytes, then give the record. */
static tb_status stream_tracing(tb_perf_stream *p, tb_perf_record *rec, tb_error *err)
{
	tb_status st;
	/* no storage is fine for no bytes (and NULL + 0 is undefined) */
	uint8_t *dst = p->f.st_.tracing ? p->f.st_.tracing + p->tracing_got : NULL;
	size_t got = take_input(p, dst, (size_t)p->extra_left);
	uint64_t off = p->extra_rec_off;
	p->tracing_got += got;
	p->extra_left -= got;
	p->offset += got;
	if (p->extra_left)
		return out_of_input(p, err);
	p->pending = 0;
	st = parse_record(&p->f, p->buf, p->saved, off, rec, err);
	p->saved = 0;
	if (st)
		return st;
	rec->extra.ptr = p->f.st_.tracing;
	rec->extra.len = p->tracing_got;
	p->f.tracing_data = rec->extra;
	p->f.tracing_offset = off + rec->size;
	p->f.features[0] |= 1ull << TB_PERF_FEAT_TRACING_DATA;
	return TB_OK;
}

TB_API tb_status tb_perf_stream_next(tb_perf_stream *p, tb_perf_record *rec, tb_error *err)
{
	const uint8_t *data;
	uint16_t size;
	tb_reader in;
	tb_status st;
	if (!p || !rec)
		return fail(err, TB_ERR_ARG, 0, "NULL argument");
	for (;;) {
		if (p->sticky != TB_OK) {
			if (err)
				*err = p->err;
			return p->sticky;
		}
		if (p->done)
			return TB_END;
		if (!p->header_done) {
			if ((st = stream_header(p, err)))
				return st;
			continue;
		}
		if (p->z.dc.fn) {
			int sticky;
			tb_error e;
			st = inflate_next(&p->f, &p->z, rec, &sticky, &e);
			if (st == TB_OK)
				return stream_apply(p, rec, 0, err); /* (overwritten next) */
			if (st != TB_END)
				return sticky ? stick(p, err, st, e.offset, e.what)
					      : fail(err, st, e.offset, e.what);
		}
		if (p->pending)
			return stream_tracing(p, rec, err);
		if (p->extra_left) { /* AUXTRACE data: skipped */
			size_t got = take_input(p, NULL, p->extra_left > SIZE_MAX
								 ? SIZE_MAX : (size_t)p->extra_left);
			p->extra_left -= got;
			p->offset += got;
			if (p->extra_left)
				return out_of_input(p, err);
			continue;
		}
		tb_rd_init(&in, p->in, p->in_len, p->f.big_endian);
		if (p->saved == 0 && p->in_len - p->in_pos >= REC_HDR) {
			/* the header, and usually the record, in this feed */
			if ((st = check_header(&in, p->in_pos, p->offset, SIZE_MAX, &size, &p->err)))
				return stick(p, err, st, p->err.offset, p->err.what);
			if (tb_rd_ptr_at(&in, p->in_pos, size, &data)) {
				p->in_pos += size;
				st = stream_record(p, data, size, rec, err);
				if (st == TB_NEED_MORE && (p->pending || p->z.active))
					continue;
				return st;
			}
			save_input(p, size);
			return out_of_input(p, err);
		}
		if (p->saved < REC_HDR) {
			save_input(p, REC_HDR - p->saved);
			if (p->saved < REC_HDR)
				return out_of_input(p, err);
		}
		tb_rd_init(&in, p->buf, p->saved, p->f.big_endian);
		if ((st = check_header(&in, 0, p->offset, SIZE_MAX, &size, &p->err)))
			return stick(p, err, st, p->err.offset, p->err.what);
		save_input(p, size - p->saved);
		if (p->saved < size)
			return out_of_input(p, err);
		p->saved = 0;
		st = stream_record(p, p->buf, size, rec, err);
		if (st == TB_NEED_MORE && (p->pending || p->z.active))
			continue;
		return st;
	}
}
