/*
 * trace.dat, the reads that need no open state: the compressed chunk
 * framing of CPU data, the options walk for callers, salvage's scans
 * (v6 tags, CPU ranges found in the data) and the names.  tracedat.c
 * opens the file; this reads what it validated, or scans raw bytes.
 */
#include "tracebound/tracedat.h"
#include "internal.h"
#include "datwalk.h"

/* The v6 data tags, 10 bytes each with their NUL. */
static const char v6_tags[3][10] = { "options  ", "flyrecord", "latency  " };

/* The offset >= from of the next v6 tag among tags[first..2] (*which says
 * which), or SIZE_MAX.  Every tag ends in a NUL: texts hold none, so the
 * search runs through them at memchr speed. */
size_t tb_dat_find_v6_tag(const tb_reader *f, size_t from, unsigned first,
			  unsigned *which)
{
	size_t pos = from + 9;
	while (pos < f->len) {
		const uint8_t *p, *z, *t;
		unsigned i;
		if (!tb_rd_ptr_at(f, pos, f->len - pos, &p))
			return SIZE_MAX;
		z = memchr(p, 0, f->len - pos);
		if (!z)
			return SIZE_MAX;
		pos += (size_t)(z - p);
		if (tb_rd_ptr_at(f, pos - 9, 10, &t))
			for (i = first; i < 3; i++)
				if (!memcmp(t, v6_tags[i], 10)) {
					*which = i;
					return pos - 9;
				}
		pos++;
	}
	return SIZE_MAX;
}

/* Could a v6 data part have tag `which` at t, with n CPUs?  Options must
 * walk to their end and a flyrecord / latency tag; a flyrecord table must
 * list page-aligned data.  A cut before the proof counts as plausible. */
int tb_dat_v6_plausible(const tb_reader *f, uint32_t page_size, size_t t,
			unsigned which, uint32_t n)
{
	size_t pos = t + 10;
	uint32_t i;
	const uint8_t *tag;
	if (n > TB_DAT_MAX_CPUS)
		return 0;
	if (which == 0) {
		for (i = 0;; i++) {
			uint16_t id;
			uint32_t size;
			if (i >= TB_DAT_MAX_RESYNC_OPTIONS)
				return 0;
			if (!tb_rd_u16_at(f, pos, &id))
				return 1;
			if (id == 0)
				break;
			if (!tb_rd_u32_at(f, pos + 2, &size) ||
			    size > f->len - pos - 6)
				return 1;
			pos += 6 + (size_t)size;
		}
		pos += 2;
		if (!tb_rd_ptr_at(f, pos, 10, &tag))
			return 1;
		return !memcmp(tag, v6_tags[1], 10) || !memcmp(tag, v6_tags[2], 10);
	}
	if (which == 1)
		for (i = 0; i < n; i++) {
			uint64_t off, size;
			if (!tb_rd_u64_at(f, pos + 16 * (size_t)i, &off) ||
			    !tb_rd_u64_at(f, pos + 16 * (size_t)i + 8, &size))
				return 1;
			if (size && off % page_size)
				return 0;
		}
	return 1;
}

/*
 * The chunks of the framing whose count is at p (p + 4 <= hi): how many
 * lie whole before hi (*k) and where they end (returned); *tail: the
 * bytes of the next declared chunk when hi cuts it past its header
 * (else 0).
 */
uint64_t tb_dat_whole_chunks(const tb_reader *f, uint64_t p, uint64_t hi,
			     uint32_t count, uint32_t *k, uint64_t *tail)
{
	uint64_t q = p + 4;
	*k = 0;
	*tail = 0;
	while (*k < count) {
		uint32_t cs;
		if (hi - q < 8 || !tb_rd_u32_at(f, (size_t)q, &cs))
			break;
		if (cs > hi - q - 8) {
			*tail = hi - q;
			break;
		}
		q += 8 + (uint64_t)cs;
		(*k)++;
	}
	return q;
}

/*
 * Salvage: CPU ranges of a buffer section whose BUFFER option is lost,
 * from the data in [lo, hi).  Compressed data is framed (a chunk count,
 * then chunks) and each CPU starts on the next page boundary; plain pages
 * follow each other and a new CPU starts where the page timestamps fall
 * back.  At most max CPUs; stored in out when given.  Returns the count.
 */
size_t tb_dat_split_cpus(const tb_reader *f, const tb_dat_buffer *bf,
			 uint64_t lo, uint64_t hi, size_t max, tb_dat_cpu *out)
{
	uint32_t ps = bf->page_size;
	size_t n = 0;
	uint64_t p = lo, prev = 0;
	if (!bf->compressed) {
		for (; hi >= ps && p <= hi - ps; p += ps) {
			uint64_t ts;
			if (!tb_rd_u64_at(f, (size_t)p, &ts))
				break;
			if (n == 0 || (ts < prev && n < max)) {
				if (out) {
					memset(&out[n], 0, sizeof(out[n]));
					out[n].cpu = (uint32_t)n;
					out[n].offset = out[n].table_offset = p;
				}
				n++;
			}
			if (out) {
				out[n - 1].size += ps;
				out[n - 1].declared = out[n - 1].size;
			}
			prev = ts;
		}
		return n;
	}
	while (n < max && p < hi && hi - p >= 4) {
		uint32_t count, k;
		uint64_t q, tail;
		int cut;
		if (!tb_rd_u32_at(f, (size_t)p, &count))
			break;
		q = tb_dat_whole_chunks(f, p, hi, count, &k, &tail);
		cut = k < count;
		if (out) {
			memset(&out[n], 0, sizeof(out[n]));
			out[n].cpu = (uint32_t)n;
			out[n].offset = out[n].table_offset = p;
			out[n].size = out[n].declared = q - p - 4;
			out[n].chunks = k;
			out[n].cut = cut;
			out[n].tail = tail;
		}
		n++;
		if (cut)
			break;
		p = q + (ps - q % ps) % ps;
	}
	return n;
}

const char *tb_dat_part_name(unsigned part)
{
	static const char *const names[TB_DAT_PART_COUNT_] = {
		"headers", "ftrace event formats", "event formats", "kallsyms",
		"printk formats", "saved cmdlines", "options", "sections",
		"buffer", "CPU data"
	};
	return part < TB_DAT_PART_COUNT_ ? names[part] : "unknown";
}

const tb_dat_buffer *tb_dat_find_buffer(const tb_dat *d, const char *name)
{
	size_t i;
	if (!d || !name)
		return NULL;
	for (i = 0; i < d->nbuffers; i++)
		if (tb_span_eq(d->buffers[i].name.ptr, d->buffers[i].name.len,
			       name))
			return &d->buffers[i];
	return NULL;
}

const char *tb_dat_section_name(const tb_dat *d, uint32_t id)
{
	/* walk_v7_sections checked id < len; the string ends in a NUL? */
	if (!d || !d->strings.ptr || id >= d->strings.len)
		return NULL;
	if (!memchr(d->strings.ptr + id, 0, d->strings.len - id))
		return NULL;
	return d->strings.ptr + id;
}

/* ---- compressed per-CPU data ---- */

tb_status tb_dat_chunks_begin(tb_dat_chunk_iter *it, const tb_dat *d,
			      const tb_dat_buffer *b, const tb_dat_cpu *cpu,
			      tb_error *err)
{
	tb_reader f;
	uint32_t n;
	if (!it || !d || !b || !cpu || !b->compressed)
		return tb_fail(err, TB_ERR_ARG, 0, "not a compressed buffer");
	memset(it, 0, sizeof(*it));
	it->d = d;
	it->cpu = cpu;
	if (cpu->size == 0 && !cpu->tail) {
		it->end = it->pos = 0;
		return TB_OK;
	}
	if (cpu->cut) {
		/* salvage clipped it to its whole chunks and the cut one
		 * (checked at open) */
		it->count = cpu->chunks + (cpu->tail != 0);
		it->pos = cpu->offset + 4;
		it->end = cpu->offset + cpu->size + 4;
		if (cpu->tail > d->len || it->end > d->len - cpu->tail ||
		    it->pos > it->end)
			return tb_fail(err, TB_ERR_RANGE, cpu->offset,
				       "CPU range outside the file");
		it->end += cpu->tail;
		return TB_OK;
	}
	tb_rd_init(&f, d->file, d->len, d->big_endian);
	/* checked at open: offset + size (+4 of the count) lies in the file */
	if (!tb_rd_u32_at(&f, (size_t)cpu->offset, &n))
		return tb_fail(err, TB_ERR_TRUNCATED, cpu->offset,
			       "chunk count truncated");
	it->count = n;
	it->pos = cpu->offset + 4;
	it->end = cpu->offset + cpu->size + 4;
	if (it->end > d->len)
		it->end = d->len;
	if (n > (it->end - it->pos) / 8)
		return tb_fail(err, TB_ERR_LENGTH, cpu->offset,
			       "chunk count exceeds the CPU data");
	return TB_OK;
}

tb_status tb_dat_chunk_next(tb_dat_chunk_iter *it, tb_dat_chunk *out,
			    tb_error *err)
{
	tb_reader f;
	uint32_t cs, us;
	const tb_dat *d;
	if (!it || !out || !it->d)
		return tb_fail(err, TB_ERR_ARG, 0, "NULL iterator");
	d = it->d;
	if (it->index >= it->count) {
		/* the framing must fill the CPU range (as trace-cmd writes it:
		 * the range's size excludes the 4-byte count, so allow both) */
		if (it->count && it->pos != it->end && it->pos != it->end - 4)
			return tb_fail(err, TB_ERR_LENGTH, it->pos,
				       "bytes after the last chunk");
		return TB_END;
	}
	tb_rd_init(&f, d->file, (size_t)it->end, d->big_endian);
	if (!tb_rd_u32_at(&f, (size_t)it->pos, &cs) ||
	    !tb_rd_u32_at(&f, (size_t)it->pos + 4, &us))
		return tb_fail(err, TB_ERR_TRUNCATED, it->pos,
			       "chunk header truncated");
	out->cut = 0;
	if (cs > it->end - it->pos - 8) {
		/* the chunk a cut file ends in: what is there of it */
		if (!it->cpu->cut || !it->cpu->tail || it->index + 1 != it->count)
			return tb_fail(err, TB_ERR_LENGTH, it->pos,
				       "chunk runs past the CPU data");
		cs = (uint32_t)(it->end - it->pos - 8);
		out->cut = 1;
	}
	if (us > TB_DAT_MAX_UNCOMPRESSED)
		return tb_fail(err, TB_ERR_LIMIT, it->pos + 4,
			       "declared uncompressed size over the limit");
	out->offset = it->pos;
	out->data = d->file + it->pos + 8;
	out->csize = cs;
	out->usize = us;
	it->pos += 8 + (uint64_t)cs;
	it->index++;
	return TB_OK;
}

/* ---- options walk for callers ---- */

typedef struct walk {
	tb_dat_option_fn fn;
	void *ctx;
	int stop;
} walk;

/* The options in r (whose byte 0 is at file offset base); -1 when they
 * no longer parse (r->pos: where). */
static int walk_list(walk *w, tb_reader *r, uint64_t base, int v7,
		     uint64_t *next)
{
	*next = 0;
	while (!w->stop) {
		uint16_t id;
		uint32_t size;
		uint64_t where = base + r->pos;
		if (!tb_rd_u16(r, &id))
			return -1;
		if (!v7 && id == 0)
			return 0;
		if (!tb_rd_u32(r, &size) || size > tb_rd_left(r))
			return -1;
		if (v7 && id == 0) {
			if (size != 8 || !tb_rd_u64_at(r, r->pos, next))
				return -1;
			return 0;
		}
		if (w->fn(w->ctx, id, r->data + r->pos, size, where))
			w->stop = 1;
		r->pos += size;
	}
	return 0;
}

tb_status tb_dat_foreach_option(const tb_dat *d, tb_dat_option_fn fn,
				void *user, tb_error *err)
{
	walk w;
	tb_reader b;
	if (!d || !fn || !d->file)
		return tb_fail(err, TB_ERR_ARG, 0, "NULL argument");
	w.fn = fn;
	w.ctx = user;
	w.stop = 0;
	if (d->version == 6) {
		/* re-find the options tag: it follows the CPU count, which
		 * follows the cmdlines text */
		size_t pos = (size_t)(d->cmdlines.offset + d->cmdlines.len) + 4;
		tb_rd_init(&b, d->file, d->len, d->big_endian);
		if (pos > d->len || d->len - pos < 10 ||
		    memcmp(d->file + pos, "options  ", 10) != 0)
			return TB_OK;
		b.pos = pos + 10;
		{
			uint64_t nx;
			if (walk_list(&w, &b, 0, 0, &nx))
				return tb_fail(err, TB_ERR_TRUNCATED, b.pos,
					       "options changed since open");
		}
		return TB_OK;
	} else {
		unsigned i;
		for (i = 0; i < d->noption_sections &&
			    i < TB_DAT_MAX_OPTION_SECTIONS && !w.stop; i++) {
			uint64_t off = d->opt_seen_[i], next, size;
			uint16_t flags;
			tb_reader f;
			tb_rd_init(&f, d->file, d->len, d->big_endian);
			if (!tb_rd_u16_at(&f, (size_t)off + 2, &flags) ||
			    !tb_rd_u64_at(&f, (size_t)off + 8, &size) ||
			    size > d->len - off - 16)
				return tb_fail(err, TB_ERR_TRUNCATED, off,
					       "options changed since open");
			if (flags & 1u)
				return tb_fail(err, TB_ERR_UNSUPPORTED, off,
					       "compressed options section");
			tb_rd_init(&b, d->file + off + 16, (size_t)size,
				   d->big_endian);
			if (walk_list(&w, &b, off + 16, 1, &next))
				return tb_fail(err, TB_ERR_TRUNCATED, off + 16 + b.pos,
					       "options changed since open");
		}
	}
	return TB_OK;
}
