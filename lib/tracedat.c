/*
 * trace-cmd trace.dat reader (versions 6 and 7), over the whole file in
 * caller memory.  Every length, count and offset is checked against the
 * bytes that exist before it is used; texts are handed out as spans.
 */
#include "tracebound/tracedat.h"
#include "internal.h"

static const uint8_t dat_magic[10] = { 0x17, 0x08, 0x44, 't', 'r', 'a',
				       'c',  'i',  'n',  'g' };

/* A byte range being parsed: in the file, or decompressed in scratch. */
typedef struct body {
	tb_reader r;
	uint64_t base;  /* file offset of r.data[0] (or of the section) */
	int in_file;
} body;

typedef struct ctx {
	tb_dat *d;
	tb_reader f;    /* the whole file */
	tb_error *err;
	int no_space;   /* some storage was too small: finish counting */
	int no_scratch; /* scratch too small: compressed contents unseen */
	uint64_t sect_off[TB_DAT_OPT_COUNT_]; /* sections named by options */
	int have_clock_option;
} ctx;

static uint64_t body_off(const body *b, size_t pos)
{
	return b->in_file ? b->base + pos : b->base;
}

static uint64_t at(const body *b)
{
	return body_off(b, b->r.pos);
}

static tb_dat_text mk_text(const body *b, size_t pos, size_t len)
{
	tb_dat_text t;
	t.ptr = (const char *)(b->r.data + pos);
	t.len = len;
	t.offset = body_off(b, pos);
	return t;
}

static tb_status fail(ctx *c, tb_status s, uint64_t off, const char *what)
{
	return tb_fail(c->err, s, off, what);
}

/* ---- small checked reads at a body's cursor ---- */

static tb_status rd_u16(ctx *c, body *b, uint16_t *v, const char *what)
{
	if (!tb_rd_u16(&b->r, v))
		return fail(c, TB_ERR_TRUNCATED, at(b), what);
	return TB_OK;
}

static tb_status rd_u32(ctx *c, body *b, uint32_t *v, const char *what)
{
	if (!tb_rd_u32(&b->r, v))
		return fail(c, TB_ERR_TRUNCATED, at(b), what);
	return TB_OK;
}

static tb_status rd_u64(ctx *c, body *b, uint64_t *v, const char *what)
{
	if (!tb_rd_u64(&b->r, v))
		return fail(c, TB_ERR_TRUNCATED, at(b), what);
	return TB_OK;
}

static tb_status rd_cstr(ctx *c, body *b, tb_dat_text *t, const char *what)
{
	size_t pos = b->r.pos, n;
	const char *s;
	if (!tb_rd_cstr(&b->r, &s, &n))
		return fail(c, TB_ERR_TRUNCATED, at(b), what);
	*t = mk_text(b, pos, n);
	return TB_OK;
}

/* A u32 count of items of at least `min_size` bytes each: more than the
 * bytes left can hold is TB_ERR_LENGTH at the count. */
static tb_status rd_count(ctx *c, body *b, size_t min_size, uint32_t *n,
			  const char *truncated, const char *too_many)
{
	uint64_t cpos = at(b);
	tb_status st;
	if ((st = rd_u32(c, b, n, truncated)))
		return st;
	if (*n > tb_rd_left(&b->r) / min_size)
		return fail(c, TB_ERR_LENGTH, cpos, too_many);
	return TB_OK;
}

/* A size field of `width` bytes, then that many bytes of text. */
static tb_status rd_sized(ctx *c, body *b, unsigned width, tb_dat_text *t,
			  const char *what)
{
	uint64_t n;
	size_t szpos = b->r.pos;
	if (!tb_rd_uN(&b->r, width, &n))
		return fail(c, TB_ERR_TRUNCATED, at(b), what);
	if (n > tb_rd_left(&b->r)) {
		b->r.pos = szpos;
		return fail(c, TB_ERR_LENGTH, at(b), what);
	}
	*t = mk_text(b, b->r.pos, (size_t)n);
	b->r.pos += (size_t)n;
	return TB_OK;
}

static tb_status expect_tag(ctx *c, body *b, const char *tag, size_t n,
			    const char *what)
{
	const uint8_t *p;
	if (!tb_rd_ptr_at(&b->r, b->r.pos, n, &p))
		return fail(c, TB_ERR_TRUNCATED, at(b), what);
	if (memcmp(p, tag, n) != 0)
		return fail(c, TB_ERR_MAGIC, at(b), what);
	b->r.pos += n;
	return TB_OK;
}

static tb_status expect_end(ctx *c, body *b, const char *what)
{
	if (tb_rd_left(&b->r) != 0)
		return fail(c, TB_ERR_LENGTH, at(b), what);
	return TB_OK;
}

static int is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

static tb_status check_page_size(ctx *c, uint32_t ps, uint64_t off)
{
	if (!is_pow2(ps) || ps < TB_DAT_PAGE_MIN || ps > TB_DAT_PAGE_MAX)
		return fail(c, TB_ERR_VALUE, off,
			    "page size is not a power of two in range");
	return TB_OK;
}

/* ---- caller storage ---- */

static void push_event(ctx *c, tb_dat_text sys, tb_dat_text fmt)
{
	tb_dat *d = c->d;
	if (d->nevents < d->st_.events_cap) {
		d->events[d->nevents].system = sys;
		d->events[d->nevents].format = fmt;
	} else {
		c->no_space = 1;
	}
	d->nevents++;
	d->need.events = d->nevents;
}

static void push_cpustat(ctx *c, tb_dat_text t)
{
	tb_dat *d = c->d;
	if (d->ncpustats < d->st_.cpustats_cap)
		d->cpustats[d->ncpustats] = t;
	else
		c->no_space = 1;
	d->ncpustats++;
	d->need.cpustats = d->ncpustats;
}

/* A new buffer slot (NULL when storage is full; counted either way). */
static tb_dat_buffer *push_buffer(ctx *c)
{
	tb_dat *d = c->d;
	tb_dat_buffer *b = NULL;
	if (d->nbuffers < d->st_.buffers_cap) {
		b = &d->buffers[d->nbuffers];
		memset(b, 0, sizeof(*b));
	} else {
		c->no_space = 1;
	}
	d->nbuffers++;
	d->need.buffers = d->nbuffers;
	return b;
}

/* Room for n CPU ranges (NULL when full; counted either way). */
static tb_dat_cpu *take_cpus(ctx *c, size_t n)
{
	tb_dat *d = c->d;
	tb_dat_cpu *p = NULL;
	size_t used = d->need.cpus;
	if (n == 0)
		return NULL; /* nothing to hold (and no NULL + 0) */
	if (n <= d->st_.cpus_cap && used <= d->st_.cpus_cap - n)
		p = d->st_.cpus + used;
	else
		c->no_space = 1;
	d->need.cpus = used + n;
	return p;
}

static uint8_t *take_scratch(ctx *c, size_t n)
{
	tb_dat *d = c->d;
	uint8_t *p = NULL;
	if (d->st_.scratch && n <= d->st_.scratch_cap &&
	    d->scratch_used_ <= d->st_.scratch_cap - n) {
		p = d->st_.scratch + d->scratch_used_;
		d->scratch_used_ += n;
	} else {
		c->no_space = 1;
		c->no_scratch = 1;
	}
	d->need.scratch += n;
	return p;
}

/* ---- decompression ---- */

static tb_status inflate(ctx *c, const uint8_t *src, uint32_t csize,
			 uint32_t usize, uint8_t *dst, uint64_t off)
{
	const tb_dat *d = c->d;
	char algo[32];
	size_t produced = 0;
	tb_status s;
	if (!d->dc_.fn)
		return fail(c, TB_ERR_UNSUPPORTED, off,
			    "compressed section needs a decompressor");
	if (d->compression.len >= sizeof(algo))
		return fail(c, TB_ERR_UNSUPPORTED, off,
			    "unknown compression algorithm");
	memcpy(algo, d->compression.ptr, d->compression.len);
	algo[d->compression.len] = 0;
	s = d->dc_.fn(d->dc_.ctx, algo, src, csize, dst, usize, &produced);
	if (s == TB_ERR_UNSUPPORTED)
		return fail(c, s, off, "decompressor lacks this algorithm");
	if (s != TB_OK)
		return fail(c, TB_ERR_VALUE, off, "compressed data is corrupt");
	if (produced != usize)
		return fail(c, TB_ERR_LENGTH, off,
			    "decompressed size differs from the declared size");
	return TB_OK;
}

/* The 16-byte v7 section header at off. */
typedef struct sect {
	uint16_t id, flags;
	uint32_t name;
	uint64_t size;
	uint64_t off;       /* of the header */
} sect;

static tb_status read_sect(ctx *c, uint64_t off, sect *s)
{
	body b;
	tb_status st;
	if (off > c->f.len)
		return fail(c, TB_ERR_RANGE, off, "section offset outside the file");
	tb_rd_init(&b.r, c->f.data + off, c->f.len - (size_t)off, c->f.big_endian);
	b.base = off;
	b.in_file = 1;
	s->off = off;
	if ((st = rd_u16(c, &b, &s->id, "section header truncated")) ||
	    (st = rd_u16(c, &b, &s->flags, "section header truncated")) ||
	    (st = rd_u32(c, &b, &s->name, "section header truncated")) ||
	    (st = rd_u64(c, &b, &s->size, "section header truncated")))
		return st;
	if (s->flags & ~1u)
		return fail(c, TB_ERR_VALUE, off + 2, "unknown section flags");
	if (s->size > tb_rd_left(&b.r))
		return fail(c, TB_ERR_LENGTH, off + 8,
			    "section size runs past the end of the file");
	return TB_OK;
}

/*
 * The body of the section at off, whose id must be `id`: in the file, or
 * decompressed into scratch.  *skipped is set when scratch was too small
 * (the caller then leaves the contents uncounted and returns NO_SPACE).
 */
static tb_status open_sect(ctx *c, uint64_t off, unsigned id, body *out,
			   sect *s, int *skipped)
{
	tb_status st;
	*skipped = 0;
	if ((st = read_sect(c, off, s)))
		return st;
	if (s->id != id)
		return fail(c, TB_ERR_VALUE, off,
			    "section id differs from the one expected");
	out->in_file = 1;
	out->base = off + 16;
	tb_rd_init(&out->r, c->f.data + off + 16, (size_t)s->size,
		   c->f.big_endian);
	if (s->flags & 1u) {
		uint32_t csize, usize;
		const uint8_t *src;
		uint8_t *dst;
		body hdr = *out;
		if (tb_span_eq(c->d->compression.ptr, c->d->compression.len,
			       "none"))
			return fail(c, TB_ERR_VALUE, off,
				    "compressed section in an uncompressed file");
		if ((st = rd_u32(c, &hdr, &csize, "compressed header truncated")) ||
		    (st = rd_u32(c, &hdr, &usize, "compressed header truncated")))
			return st;
		if (csize != tb_rd_left(&hdr.r))
			return fail(c, TB_ERR_LENGTH, off + 16,
				    "compressed size differs from the section size");
		if (usize > TB_DAT_MAX_UNCOMPRESSED)
			return fail(c, TB_ERR_LIMIT, off + 20,
				    "declared uncompressed size over the limit");
		src = hdr.r.data + hdr.r.pos;
		dst = take_scratch(c, usize);
		if (!dst) {
			*skipped = 1;
			return TB_OK;
		}
		if ((st = inflate(c, src, csize, usize, dst, off)))
			return st;
		tb_rd_init(&out->r, dst, usize, c->f.big_endian);
		out->in_file = 0;
		out->base = off;
	}
	return TB_OK;
}

/* ---- the metadata items shared by v6 (in sequence) and v7 sections ---- */

static tb_status parse_headers(ctx *c, body *b)
{
	tb_status st;
	if ((st = expect_tag(c, b, "header_page", 12, "no header_page tag")) ||
	    (st = rd_sized(c, b, 8, &c->d->header_page,
			   "header_page size runs past the end")) ||
	    (st = expect_tag(c, b, "header_event", 13, "no header_event tag")) ||
	    (st = rd_sized(c, b, 8, &c->d->header_event,
			   "header_event size runs past the end")))
		return st;
	return TB_OK;
}

static tb_status parse_formats(ctx *c, body *b, tb_dat_text sys)
{
	uint32_t n, i;
	tb_status st;
	if ((st = rd_count(c, b, 8, &n, "event count truncated",
			   "event count exceeds the bytes left")))
		return st;
	for (i = 0; i < n; i++) {
		tb_dat_text t;
		if ((st = rd_sized(c, b, 8, &t,
				   "format size runs past the end")))
			return st;
		push_event(c, sys, t);
	}
	return TB_OK;
}

static tb_status parse_ftrace(ctx *c, body *b)
{
	tb_dat_text sys;
	size_t before = c->d->nevents;
	tb_status st;
	sys.ptr = "ftrace";
	sys.len = 6;
	sys.offset = at(b);
	st = parse_formats(c, b, sys);
	c->d->nftrace = c->d->nevents - before;
	return st;
}

static tb_status parse_systems(ctx *c, body *b)
{
	uint32_t n, i;
	tb_status st;
	/* each system takes at least a NUL and a u32 count */
	if ((st = rd_count(c, b, 5, &n, "system count truncated",
			   "system count exceeds the bytes left")))
		return st;
	for (i = 0; i < n; i++) {
		tb_dat_text sys;
		if ((st = rd_cstr(c, b, &sys, "system name not terminated")) ||
		    (st = parse_formats(c, b, sys)))
			return st;
		c->d->nsystems++;
	}
	return TB_OK;
}

/* ---- options ---- */

/* A NUL-terminated text filling a payload (the NUL inside it). */
static tb_status opt_cstr(ctx *c, body *p, tb_dat_text *t, const char *what)
{
	tb_status st;
	if (tb_rd_left(&p->r) == 0)
		return fail(c, TB_ERR_LENGTH, at(p), what);
	if ((st = rd_cstr(c, p, t, what)))
		return st;
	p->r.pos = p->r.len; /* bytes after the NUL are ignored, as written */
	return TB_OK;
}

static tb_status opt_text(ctx *c, body *p, tb_dat_text *t, const char *what)
{
	if (tb_rd_left(&p->r) == 0)
		return fail(c, TB_ERR_LENGTH, at(p), what);
	*t = mk_text(p, p->r.pos, tb_rd_left(&p->r));
	/* a trailing NUL is not part of the text (len >= 1: checked above) */
	if (t->ptr[t->len - 1] == 0)
		t->len--;
	p->r.pos = p->r.len;
	return TB_OK;
}

/* CPU ranges: validated against the file and the enclosing section. */
static tb_status check_cpu_range(ctx *c, const tb_dat_buffer *bf,
				 uint64_t off, uint64_t size, uint64_t lo,
				 uint64_t hi, uint64_t where)
{
	uint64_t slack = bf->compressed ? 4 : 0;
	if (size == 0)
		return TB_OK;
	if (off > c->f.len || size > c->f.len - off)
		return fail(c, TB_ERR_RANGE, where,
			    "CPU data range runs past the end of the file");
	if (off < lo || off > hi || size > hi - off ||
	    (slack && size + slack > hi - off))
		return fail(c, TB_ERR_RANGE, where,
			    "CPU data range outside its buffer section");
	if (off % bf->page_size)
		return fail(c, TB_ERR_VALUE, where,
			    "CPU data offset not aligned to the page size");
	if (!bf->compressed && size % bf->page_size)
		return fail(c, TB_ERR_LENGTH, where,
			    "CPU data size not a whole number of pages");
	return TB_OK;
}

static tb_status buffer_name_unique(ctx *c, const tb_dat_text *name,
				    uint64_t where)
{
	size_t i, n = c->d->nbuffers - 1; /* the new one is last */
	/* Only called for a buffer kept in storage, so all before it are
	 * too; the clamp keeps the reads inside storage should that change. */
	if (n > c->d->st_.buffers_cap)
		n = c->d->st_.buffers_cap;
	for (i = 0; i < n; i++) {
		const tb_dat_text *o = &c->d->buffers[i].name;
		if (o->len == name->len && !memcmp(o->ptr, name->ptr, o->len))
			return fail(c, TB_ERR_DUPLICATE, where,
				    "two buffers with the same name");
	}
	return TB_OK;
}

/* A new buffer: in the caller's storage, or in *tmp when that is full
 * (validated all the same, not kept).  Names must be unique. */
static tb_status new_buffer(ctx *c, tb_dat_buffer *tmp, tb_dat_text name,
			    uint64_t section, uint64_t where, tb_dat_buffer **out)
{
	tb_dat_buffer *bf = push_buffer(c);
	if (!bf)
		bf = tmp;
	memset(bf, 0, sizeof(*bf));
	bf->name = name;
	bf->section_offset = section;
	bf->page_size = c->d->page_size;
	*out = bf;
	return bf != tmp ? buffer_name_unique(c, &name, where) : TB_OK;
}

/* v6 flyrecord table: `tag` "flyrecord\0", then count x {u64 off, u64 size}. */
static tb_status parse_v6_fly(ctx *c, body *b, tb_dat_buffer *bf)
{
	uint32_t i, n = c->d->cpu_count;
	tb_dat_cpu *cpus;
	tb_status st;
	uint64_t tpos = at(b);
	if (n > tb_rd_left(&b->r) / 16)
		return fail(c, TB_ERR_TRUNCATED, tpos,
			    "flyrecord CPU table runs past the end");
	cpus = take_cpus(c, n);
	for (i = 0; i < n; i++) {
		uint64_t off, size, where = at(b);
		if ((st = rd_u64(c, b, &off, "CPU offset truncated")) ||
		    (st = rd_u64(c, b, &size, "CPU size truncated")))
			return st;
		if ((st = check_cpu_range(c, bf, off, size, 0, c->f.len,
					   where)))
			return st;
		if (cpus) {
			cpus[i].cpu = i;
			cpus[i].offset = size ? off : 0;
			cpus[i].size = size;
		}
	}
	if (cpus) {
		bf->cpus = cpus;
		bf->ncpus = n;
	}
	return TB_OK;
}

static tb_status opt_buffer_v6(ctx *c, body *p, uint64_t where)
{
	uint64_t off;
	tb_dat_text name;
	tb_dat_buffer *bf, tmp;
	body fb;
	tb_status st;
	if ((st = rd_u64(c, p, &off, "BUFFER offset truncated")) ||
	    (st = opt_cstr(c, p, &name, "BUFFER name not terminated")))
		return st;
	if (off > c->f.len)
		return fail(c, TB_ERR_RANGE, where,
			    "BUFFER offset outside the file");
	if ((st = new_buffer(c, &tmp, name, off, where, &bf)))
		return st;
	fb.in_file = 1;
	fb.base = off;
	tb_rd_init(&fb.r, c->f.data + off, c->f.len - (size_t)off,
		   c->f.big_endian);
	if ((st = expect_tag(c, &fb, "flyrecord", 10,
			     "BUFFER offset does not lead to flyrecord")))
		return st;
	return parse_v6_fly(c, &fb, bf);
}

static tb_status opt_buffer_v7(ctx *c, body *p, unsigned id, uint64_t where)
{
	uint64_t soff;
	uint32_t ps = 0, k = 0, i;
	tb_dat_text name, clock;
	tb_dat_buffer *bf, tmp;
	tb_dat_cpu *cpus = NULL;
	uint8_t seen[TB_DAT_MAX_CPUS / 8];
	sect s;
	tb_status st;
	uint64_t lo, hi;
	if ((st = rd_u64(c, p, &soff, "BUFFER offset truncated")) ||
	    (st = rd_cstr(c, p, &name, "BUFFER name not terminated")) ||
	    (st = rd_cstr(c, p, &clock, "BUFFER clock not terminated")))
		return st;
	if (soff >= c->f.len)
		return fail(c, TB_ERR_RANGE, where + 6,
			    "BUFFER section offset outside the file");
	if ((st = read_sect(c, soff, &s)))
		return st;
	if (s.id != (id == TB_DAT_OPT_BUFFER ? TB_DAT_OPT_BUFFER
					     : TB_DAT_OPT_BUFFER_TEXT))
		return fail(c, TB_ERR_VALUE, soff,
			    "BUFFER offset does not lead to a buffer section");
	if ((st = new_buffer(c, &tmp, name, soff, where, &bf)))
		return st;
	bf->clock = clock;
	bf->compressed = (s.flags & 1u) != 0;
	if (id == TB_DAT_OPT_BUFFER_TEXT) {
		body tb;
		int skipped;
		if ((st = expect_end(c, p, "bytes after BUFFER_TEXT payload")) ||
		    (st = open_sect(c, soff, TB_DAT_OPT_BUFFER_TEXT, &tb, &s,
				    &skipped)))
			return st;
		bf->latency = 1;
		if (!skipped)
			bf->text = mk_text(&tb, 0, tb.r.len);
		return TB_OK;
	}
	{
		uint64_t pspos = at(p);
		if ((st = rd_u32(c, p, &ps, "BUFFER page size truncated")) ||
		    (st = check_page_size(c, ps, pspos)))
			return st;
	}
	bf->page_size = ps;
	{
		uint64_t kpos = at(p);
		if ((st = rd_count(c, p, 20, &k, "BUFFER CPU count truncated",
				   "BUFFER CPU count exceeds its payload")))
			return st;
		if (k > TB_DAT_MAX_CPUS)
			return fail(c, TB_ERR_LIMIT, kpos, "too many CPUs");
	}
	memset(seen, 0, sizeof(seen));
	cpus = take_cpus(c, k);
	lo = soff + 16;
	hi = lo + s.size;
	for (i = 0; i < k; i++) {
		uint32_t cpu;
		uint64_t off, size, cw = at(p);
		if ((st = rd_u32(c, p, &cpu, "BUFFER CPU truncated")) ||
		    (st = rd_u64(c, p, &off, "BUFFER CPU truncated")) ||
		    (st = rd_u64(c, p, &size, "BUFFER CPU truncated")))
			return st;
		if (cpu >= TB_DAT_MAX_CPUS)
			return fail(c, TB_ERR_RANGE, cw, "CPU id out of range");
		if (seen[cpu / 8] & (1u << (cpu % 8)))
			return fail(c, TB_ERR_DUPLICATE, cw,
				    "CPU listed twice in a buffer");
		seen[cpu / 8] = (uint8_t)(seen[cpu / 8] | (1u << (cpu % 8)));
		if ((st = check_cpu_range(c, bf, off, size, lo, hi, cw + 4)))
			return st;
		if (cpus) {
			cpus[i].cpu = cpu;
			cpus[i].offset = size ? off : 0;
			cpus[i].size = size;
		}
	}
	if ((st = expect_end(c, p, "bytes after the BUFFER payload")))
		return st;
	if (cpus) {
		bf->cpus = cpus;
		bf->ncpus = k;
	}
	return TB_OK;
}

static tb_status opt_time_shift(ctx *c, body *p)
{
	uint64_t id;
	uint32_t flags, ncpu, i, total = 0;
	tb_status st;
	uint64_t where = at(p);
	if ((st = rd_u64(c, p, &id, "TIME_SHIFT truncated")) ||
	    (st = rd_u32(c, p, &flags, "TIME_SHIFT truncated")) ||
	    (st = rd_u32(c, p, &ncpu, "TIME_SHIFT truncated")))
		return st;
	if (ncpu > TB_DAT_MAX_CPUS || ncpu > tb_rd_left(&p->r) / 4)
		return fail(c, TB_ERR_LENGTH, where + 12,
			    "TIME_SHIFT CPU count exceeds its payload");
	for (i = 0; i < ncpu; i++) {
		uint32_t n;
		if ((st = rd_count(c, p, 24, &n, "TIME_SHIFT count truncated",
				   "TIME_SHIFT sample count exceeds its payload")))
			return st;
		/* each sample takes 24 bytes of a payload of at most
		 * UINT32_MAX bytes, so the total cannot overflow */
		p->r.pos += (size_t)n * 24;
		total += n;
	}
	/* optional: per CPU, n fraction-bit values */
	if (tb_rd_left(&p->r) != 0 &&
	    tb_rd_left(&p->r) != (size_t)total * 8)
		return fail(c, TB_ERR_LENGTH, at(p),
			    "TIME_SHIFT fraction bits do not fill the payload");
	p->r.pos = p->r.len;
	return TB_OK;
}

static tb_status opt_guest(ctx *c, body *p)
{
	tb_dat_text name;
	uint64_t id;
	uint32_t n;
	tb_status st;
	if ((st = rd_cstr(c, p, &name, "GUEST name not terminated")) ||
	    (st = rd_u64(c, p, &id, "GUEST truncated")))
		return st;
	if ((st = rd_count(c, p, 8, &n, "GUEST CPU count truncated",
			   "GUEST CPU count exceeds its payload")))
		return st;
	p->r.pos += (size_t)n * 8;
	return expect_end(c, p, "bytes after the GUEST payload");
}

/* A signed number in text (base auto), as DATE and OFFSET carry. */
static int parse_i64_text(const tb_dat_text *t)
{
	const char *s = t->ptr;
	size_t n = t->len;
	uint64_t v;
	if (n && (s[0] == '-' || s[0] == '+')) {
		s++;
		n--;
	}
	return tb_parse_u64(s, n, &v);
}

static tb_status handle_option(ctx *c, unsigned id, body *p, uint64_t where)
{
	tb_dat *d = c->d;
	uint32_t size = (uint32_t)p->r.len;
	tb_status st = TB_OK;
	d->noptions++;
	switch (id) {
	case TB_DAT_OPT_DATE:
	case TB_DAT_OPT_OFFSET: {
		tb_dat_text *t = id == TB_DAT_OPT_DATE ? &d->date : &d->ts_offset;
		if ((st = opt_cstr(c, p, t, "number text not terminated")))
			return st;
		if (!parse_i64_text(t))
			return fail(c, TB_ERR_SYNTAX, where + 6,
				    "option is not a number");
		return TB_OK;
	}
	case TB_DAT_OPT_CPUSTAT: {
		tb_dat_text t;
		if ((st = opt_text(c, p, &t, "empty CPUSTAT option")))
			return st;
		push_cpustat(c, t);
		return TB_OK;
	}
	case TB_DAT_OPT_BUFFER:
		if (d->version < 7)
			return opt_buffer_v6(c, p, where);
		return opt_buffer_v7(c, p, id, where);
	case TB_DAT_OPT_BUFFER_TEXT:
		if (d->version < 7)
			break;
		return opt_buffer_v7(c, p, id, where);
	case TB_DAT_OPT_TRACECLOCK:
		c->have_clock_option = 1;
		return opt_text(c, p, &d->trace_clock, "empty TRACECLOCK option");
	case TB_DAT_OPT_UNAME:
		return opt_cstr(c, p, &d->uname, "UNAME not terminated");
	case TB_DAT_OPT_HOOK:
		return opt_cstr(c, p, &d->hook, "HOOK not terminated");
	case TB_DAT_OPT_VERSION:
		return opt_cstr(c, p, &d->tc_version, "VERSION not terminated");
	case TB_DAT_OPT_PROCMAPS:
		return opt_cstr(c, p, &d->procmaps, "PROCMAPS not terminated");
	case TB_DAT_OPT_LAST_BOOT_INFO:
		return opt_text(c, p, &d->last_boot_info,
				"empty LAST_BOOT_INFO option");
	case TB_DAT_OPT_CPUCOUNT:
		if (size != 4)
			return fail(c, TB_ERR_LENGTH, where + 2,
				    "CPUCOUNT size is not 4");
		if ((st = rd_u32(c, p, &d->cpu_count, "CPUCOUNT truncated")))
			return st;
		if (d->cpu_count > TB_DAT_MAX_CPUS)
			return fail(c, TB_ERR_LIMIT, where + 6, "too many CPUs");
		d->has_cpu_count = 1;
		return TB_OK;
	case TB_DAT_OPT_TRACEID:
		if (size != 8)
			return fail(c, TB_ERR_LENGTH, where + 2,
				    "TRACEID size is not 8");
		d->has_trace_id = 1;
		return rd_u64(c, p, &d->trace_id, "TRACEID truncated");
	case TB_DAT_OPT_TSC2NSEC:
		if (size != 16)
			return fail(c, TB_ERR_LENGTH, where + 2,
				    "TSC2NSEC size is not 16");
		d->has_tsc2nsec = 1;
		if ((st = rd_u32(c, p, &d->tsc_mult, "TSC2NSEC truncated")) ||
		    (st = rd_u32(c, p, &d->tsc_shift, "TSC2NSEC truncated")) ||
		    (st = rd_u64(c, p, &d->tsc_offset, "TSC2NSEC truncated")))
			return st;
		return TB_OK;
	case TB_DAT_OPT_TIME_SHIFT:
		d->time_shift = mk_text(p, 0, p->r.len);
		return opt_time_shift(c, p);
	case TB_DAT_OPT_GUEST:
		d->guest = mk_text(p, 0, p->r.len);
		return opt_guest(c, p);
	case TB_DAT_OPT_HEADER_INFO:
	case TB_DAT_OPT_FTRACE_EVENTS:
	case TB_DAT_OPT_EVENT_FORMATS:
	case TB_DAT_OPT_KALLSYMS:
	case TB_DAT_OPT_PRINTK:
	case TB_DAT_OPT_CMDLINES:
	case TB_DAT_OPT_BTF_FILE:
	case TB_DAT_OPT_MODULES_FILE: {
		uint64_t off;
		if (d->version < 7)
			break;
		if (size != 8)
			return fail(c, TB_ERR_LENGTH, where + 2,
				    "section offset option size is not 8");
		if ((st = rd_u64(c, p, &off, "section offset truncated")))
			return st;
		if (c->sect_off[id])
			return fail(c, TB_ERR_DUPLICATE, where,
				    "section named twice by the options");
		if (off == 0 || off >= c->f.len)
			return fail(c, TB_ERR_RANGE, where + 6,
				    "section offset outside the file");
		c->sect_off[id] = off;
		return TB_OK;
	}
	default:
		break;
	}
	/* unknown here: the writer's newer options are skipped, as trace-cmd does */
	d->nunknown_options++;
	p->r.pos = p->r.len;
	return TB_OK;
}

/* One option at b's cursor: u16 id (already read), u32 size, payload. */
static tb_status read_option(ctx *c, body *b, unsigned id, uint64_t where,
			     body *payload)
{
	uint32_t size;
	tb_status st;
	if ((st = rd_u32(c, b, &size, "option size truncated")))
		return st;
	if (size > tb_rd_left(&b->r))
		return fail(c, TB_ERR_LENGTH, where + 2,
			    "option size runs past the end");
	(void)id;
	payload->in_file = b->in_file;
	payload->base = b->in_file ? b->base + b->r.pos : b->base;
	tb_rd_init(&payload->r, b->r.data + b->r.pos, size, b->r.big_endian);
	b->r.pos += size;
	return TB_OK;
}

/* v6: options until id 0 (which has no size). */
static tb_status parse_v6_options(ctx *c, body *b)
{
	for (;;) {
		uint16_t id;
		uint64_t where = at(b);
		body p;
		tb_status st;
		if ((st = rd_u16(c, b, &id, "option id truncated")))
			return st;
		if (id == 0)
			return TB_OK;
		if ((st = read_option(c, b, id, where, &p)) ||
		    (st = handle_option(c, id, &p, where)))
			return st;
		if (p.r.pos != p.r.len)
			return fail(c, TB_ERR_LENGTH, at(&p),
				    "bytes left over in an option");
	}
}

/* v7: an options section; *next receives the DONE option's offset. */
static tb_status parse_v7_options_section(ctx *c, uint64_t off, uint64_t *next,
					  int *skipped)
{
	body b;
	sect s;
	tb_status st;
	if ((st = open_sect(c, off, TB_DAT_OPT_DONE, &b, &s, skipped)))
		return st;
	c->d->noption_sections++;
	if (*skipped)
		return TB_OK;
	for (;;) {
		uint16_t id;
		uint64_t where = at(&b);
		body p;
		if ((st = rd_u16(c, &b, &id, "options section without DONE")) ||
		    (st = read_option(c, &b, id, where, &p)))
			return st;
		if (id == TB_DAT_OPT_DONE) {
			if (p.r.len != 8)
				return fail(c, TB_ERR_LENGTH, where + 2,
					    "DONE option size is not 8");
			if ((st = rd_u64(c, &p, next, "DONE truncated")))
				return st;
			if (*next && (*next >= c->f.len))
				return fail(c, TB_ERR_RANGE, where + 6,
					    "next options section outside the file");
			return expect_end(c, &b, "bytes after the DONE option");
		}
		if ((st = handle_option(c, id, &p, where)))
			return st;
		if (p.r.pos != p.r.len)
			return fail(c, TB_ERR_LENGTH, at(&p),
				    "bytes left over in an option");
	}
}

static tb_status parse_v7_options(ctx *c)
{
	tb_dat *d = c->d;
	uint64_t off = d->first_options;
	unsigned hops = 0, i;
	while (off) {
		uint64_t next = 0;
		int skipped;
		tb_status st;
		for (i = 0; i < hops; i++)
			if (d->opt_seen_[i] == off)
				return fail(c, TB_ERR_CYCLE, off,
					    "options chain loops");
		if (hops >= TB_DAT_MAX_OPTION_SECTIONS)
			return fail(c, TB_ERR_LIMIT, off,
				    "too many options sections");
		d->opt_seen_[hops++] = off;
		if ((st = parse_v7_options_section(c, off, &next, &skipped)))
			return st;
		if (skipped)
			return TB_OK; /* scratch too small; NO_SPACE follows */
		off = next;
	}
	return TB_OK;
}

/* ---- v7 metadata sections ---- */

static tb_status parse_v7_sections(ctx *c)
{
	static const unsigned ids[] = {
		TB_DAT_OPT_HEADER_INFO, TB_DAT_OPT_FTRACE_EVENTS,
		TB_DAT_OPT_EVENT_FORMATS, TB_DAT_OPT_KALLSYMS,
		TB_DAT_OPT_PRINTK, TB_DAT_OPT_CMDLINES,
		TB_DAT_OPT_BTF_FILE, TB_DAT_OPT_MODULES_FILE
	};
	tb_dat *d = c->d;
	size_t i;
	if (!c->sect_off[TB_DAT_OPT_HEADER_INFO])
		return fail(c, TB_ERR_VALUE, d->first_options,
			    "no HEADER_INFO section named by the options");
	for (i = 0; i < TB_ARRAY_LEN(ids); i++) {
		unsigned id = ids[i];
		uint64_t off = c->sect_off[id];
		body b;
		sect s;
		int skipped;
		tb_status st;
		if (!off)
			continue;
		if ((st = open_sect(c, off, id, &b, &s, &skipped)))
			return st;
		if (skipped)
			continue;
		switch (id) {
		case TB_DAT_OPT_HEADER_INFO:
			st = parse_headers(c, &b);
			break;
		case TB_DAT_OPT_FTRACE_EVENTS:
			st = parse_ftrace(c, &b);
			break;
		case TB_DAT_OPT_EVENT_FORMATS:
			st = parse_systems(c, &b);
			break;
		case TB_DAT_OPT_KALLSYMS:
			st = rd_sized(c, &b, 4, &d->kallsyms,
				      "kallsyms size runs past the end");
			break;
		case TB_DAT_OPT_PRINTK:
			st = rd_sized(c, &b, 4, &d->printk,
				      "printk size runs past the end");
			break;
		case TB_DAT_OPT_CMDLINES:
			st = rd_sized(c, &b, 8, &d->cmdlines,
				      "cmdlines size runs past the end");
			break;
		case TB_DAT_OPT_BTF_FILE:
			d->btf = mk_text(&b, 0, b.r.len);
			b.r.pos = b.r.len;
			break;
		default:
			d->modules = mk_text(&b, 0, b.r.len);
			b.r.pos = b.r.len;
			break;
		}
		if (st || (st = expect_end(c, &b, "bytes left over in a section")))
			return st;
	}
	return TB_OK;
}

static int known_section_id(unsigned id)
{
	switch (id) {
	case TB_DAT_OPT_DONE:
	case TB_DAT_OPT_BUFFER:
	case TB_DAT_OPT_STRINGS:
	case TB_DAT_OPT_HEADER_INFO:
	case TB_DAT_OPT_FTRACE_EVENTS:
	case TB_DAT_OPT_EVENT_FORMATS:
	case TB_DAT_OPT_KALLSYMS:
	case TB_DAT_OPT_PRINTK:
	case TB_DAT_OPT_CMDLINES:
	case TB_DAT_OPT_BUFFER_TEXT:
	case TB_DAT_OPT_BTF_FILE:
	case TB_DAT_OPT_MODULES_FILE:
		return 1;
	default:
		return 0;
	}
}

/*
 * Walk every section from the end of the header to the end of the file
 * (trace-cmd writes them back to back and finds the strings this way).
 * pass 0 counts and loads the strings; pass 1 checks description ids.
 */
static tb_status walk_v7_sections(ctx *c, size_t start, int pass)
{
	tb_dat *d = c->d;
	uint64_t off = start;
	size_t nstr = 0, n = 0;
	tb_dat_text first = { NULL, 0, 0 };
	unsigned first_flags = 0;
	while (off < c->f.len) {
		sect s;
		tb_status st;
		if (n >= TB_DAT_MAX_SECTIONS)
			return fail(c, TB_ERR_LIMIT, off, "too many sections");
		if ((st = read_sect(c, off, &s)))
			return st;
		if (!known_section_id(s.id))
			return fail(c, TB_ERR_VALUE, off, "unknown section id");
		if (pass == 1) {
			if (s.name != UINT32_MAX && s.name >= d->strings.len)
				return fail(c, TB_ERR_RANGE, off + 4,
					    "section description outside the strings");
		} else if (s.id == TB_DAT_OPT_STRINGS) {
			if (nstr == 0) {
				first.ptr = (const char *)(c->f.data + off + 16);
				first.len = (size_t)s.size;
				first.offset = off + 16;
				first_flags = s.flags;
			}
			nstr++;
		}
		n++;
		off += 16 + s.size;
	}
	if (pass == 1)
		return TB_OK;
	d->nsections = n;
	if (nstr == 1 && !(first_flags & 1u)) {
		d->strings = first;
	} else if (nstr > 0) {
		/* several (or compressed): gather them into scratch */
		uint8_t *dst = NULL;
		size_t total = 0, pos = 0;
		off = start;
		while (off < c->f.len) {
			sect s;
			body b;
			int skipped;
			tb_status st;
			if ((st = read_sect(c, off, &s)))
				return st;
			if (s.id == TB_DAT_OPT_STRINGS) {
				if ((st = open_sect(c, off, s.id, &b, &s, &skipped)))
					return st;
				if (skipped)
					return TB_OK;
				total += b.r.len;
				if (!b.in_file) {
					/* already in scratch: it is contiguous */
					if (!dst)
						dst = (uint8_t *)(uintptr_t)b.r.data;
				} else {
					uint8_t *cp = take_scratch(c, b.r.len);
					if (!cp)
						return TB_OK;
					if (!dst)
						dst = cp;
					if (b.r.len)
						memcpy(cp, b.r.data, b.r.len);
				}
				pos += b.r.len;
			}
			off += 16 + s.size;
		}
		d->strings.ptr = (const char *)dst;
		d->strings.len = total;
		d->strings.offset = start;
		(void)pos;
	}
	return TB_OK;
}

/* ---- the two layouts ---- */

static tb_status parse_v6(ctx *c, body *b)
{
	tb_dat *d = c->d;
	tb_status st;
	uint64_t cpos;
	tb_dat_buffer *bf, tmp;
	tb_dat_text top;
	const uint8_t *tag;
	if ((st = parse_headers(c, b)) || (st = parse_ftrace(c, b)) ||
	    (st = parse_systems(c, b)) ||
	    (st = rd_sized(c, b, 4, &d->kallsyms,
			   "kallsyms size runs past the end")) ||
	    (st = rd_sized(c, b, 4, &d->printk,
			   "printk size runs past the end")) ||
	    (st = rd_sized(c, b, 8, &d->cmdlines,
			   "cmdlines size runs past the end")))
		return st;
	cpos = at(b);
	if ((st = rd_u32(c, b, &d->cpu_count, "CPU count truncated")))
		return st;
	if (d->cpu_count > TB_DAT_MAX_CPUS)
		return fail(c, TB_ERR_LIMIT, cpos, "too many CPUs");
	d->has_cpu_count = 1;
	if (!tb_rd_ptr_at(&b->r, b->r.pos, 10, &tag))
		return fail(c, TB_ERR_TRUNCATED, at(b), "data tag truncated");
	if (!memcmp(tag, "options  ", 10)) {
		b->r.pos += 10;
		/* a CPUCOUNT option sets how many CPUs the flyrecord tables
		 * list, as trace-cmd reads them */
		if ((st = parse_v6_options(c, b)))
			return st;
		if (!tb_rd_ptr_at(&b->r, b->r.pos, 10, &tag))
			return fail(c, TB_ERR_TRUNCATED, at(b),
				    "data tag truncated");
	}
	/* the top buffer goes first: shift instance buffers if any */
	bf = NULL;
	top.ptr = "";
	top.len = 0;
	top.offset = at(b);
	if (!memcmp(tag, "latency  ", 10)) {
		if ((st = new_buffer(c, &tmp, top, at(b), at(b), &bf)))
			return st;
		b->r.pos += 10;
		bf->latency = 1;
		bf->text = mk_text(b, b->r.pos, tb_rd_left(&b->r));
		b->r.pos = b->r.len;
	} else if (!memcmp(tag, "flyrecord", 10)) {
		if ((st = new_buffer(c, &tmp, top, at(b), at(b), &bf)))
			return st;
		b->r.pos += 10;
		if ((st = parse_v6_fly(c, b, bf)))
			return st;
		/* the trace clock follows when the writer knew it */
		if (c->have_clock_option) {
			body t = *b;
			if (rd_sized(c, &t, 8, &d->v6_clock, "clock") != TB_OK)
				tb_error_clear(c->err); /* trace-cmd: use local */
		}
	} else {
		return fail(c, TB_ERR_MAGIC, at(b),
			    "neither flyrecord nor latency data");
	}
	/* Move the top buffer first (instances came with the options).  A
	 * kept top buffer implies all buffers fit; the cap test keeps the
	 * writes inside storage regardless. */
	if (bf != &tmp && d->nbuffers > 1 && d->nbuffers <= d->st_.buffers_cap) {
		tb_dat_buffer first = d->buffers[d->nbuffers - 1];
		size_t i;
		for (i = d->nbuffers - 1; i > 0; i--)
			d->buffers[i] = d->buffers[i - 1];
		d->buffers[0] = first;
	}
	return TB_OK;
}

static tb_status parse_v7(ctx *c, body *b)
{
	tb_dat *d = c->d;
	tb_status st;
	size_t start;
	if ((st = rd_cstr(c, b, &d->compression,
			  "compression name not terminated")) ||
	    (st = rd_cstr(c, b, &d->compression_version,
			  "compression version not terminated")) ||
	    (st = rd_u64(c, b, &d->first_options,
			 "options offset truncated")))
		return st;
	if (d->compression.len == 0)
		return fail(c, TB_ERR_VALUE, d->compression.offset,
			    "empty compression name");
	start = b->r.pos;
	if (d->first_options < start || d->first_options >= c->f.len)
		return fail(c, TB_ERR_RANGE, start - 8,
			    "options offset outside the file");
	if ((st = walk_v7_sections(c, start, 0)))
		return st;
	if (c->no_scratch)
		return TB_OK; /* the strings are unseen: call again */
	if ((st = walk_v7_sections(c, start, 1)) || (st = parse_v7_options(c)))
		return st;
	if (c->no_scratch)
		return TB_OK; /* a compressed options section is unseen, and with
				 it the section offsets: call again */
	return parse_v7_sections(c);
}

int tb_dat_probe(const void *file, size_t len)
{
	return file && len >= sizeof(dat_magic) &&
	       memcmp(file, dat_magic, sizeof(dat_magic)) == 0;
}

tb_status tb_dat_open(tb_dat *d, const void *file, size_t len,
		      const tb_dat_storage *st, const tb_dat_decompressor *dc,
		      tb_error *err)
{
	ctx c;
	body b;
	tb_dat_text ver;
	uint8_t endian, lsize;
	tb_status s;
	if (!d || (!file && len))
		return tb_fail(err, TB_ERR_ARG, 0, "NULL file or handle");
	tb_error_clear(err);
	memset(d, 0, sizeof(*d));
	memset(&c, 0, sizeof(c));
	if (st)
		d->st_ = *st;
	if (!d->st_.events)
		d->st_.events_cap = 0;
	if (!d->st_.buffers)
		d->st_.buffers_cap = 0;
	if (!d->st_.cpus)
		d->st_.cpus_cap = 0;
	if (!d->st_.cpustats)
		d->st_.cpustats_cap = 0;
	if (!d->st_.scratch)
		d->st_.scratch_cap = 0;
	d->events = d->st_.events;
	d->buffers = d->st_.buffers;
	d->cpustats = d->st_.cpustats;
	if (dc)
		d->dc_ = *dc;
	d->file = (const uint8_t *)file;
	d->len = len;
	c.d = d;
	c.err = err;
	tb_rd_init(&c.f, file, len, 0);
	b.r = c.f;
	b.base = 0;
	b.in_file = 1;

	if (len < sizeof(dat_magic))
		return fail(&c, TB_ERR_TRUNCATED, 0, "shorter than the magic");
	if (memcmp(file, dat_magic, 3) != 0)
		return fail(&c, TB_ERR_MAGIC, 0, "not a trace.dat (magic)");
	if (memcmp(d->file + 3, dat_magic + 3, 7) != 0)
		return fail(&c, TB_ERR_MAGIC, 3, "not a trace.dat (\"tracing\")");
	b.r.pos = 10;
	if ((s = rd_cstr(&c, &b, &ver, "version not terminated")))
		return s;
	if (tb_span_eq(ver.ptr, ver.len, "6"))
		d->version = 6;
	else if (tb_span_eq(ver.ptr, ver.len, "7"))
		d->version = 7;
	else
		return fail(&c, TB_ERR_VERSION, 10, "version is not 6 or 7");
	if (!tb_rd_u8(&b.r, &endian) || !tb_rd_u8(&b.r, &lsize))
		return fail(&c, TB_ERR_TRUNCATED, at(&b), "header truncated");
	if (endian > 1)
		return fail(&c, TB_ERR_VALUE, b.r.pos - 2,
			    "endian byte is not 0 or 1");
	if (lsize != 4 && lsize != 8)
		return fail(&c, TB_ERR_VALUE, b.r.pos - 1,
			    "long size is not 4 or 8");
	d->big_endian = endian;
	d->long_size = lsize;
	c.f.big_endian = endian;
	b.r.big_endian = endian;
	{
		uint64_t pspos = at(&b);
		if ((s = rd_u32(&c, &b, &d->page_size, "page size truncated")) ||
		    (s = check_page_size(&c, d->page_size, pspos)))
			return s;
	}
	s = d->version == 6 ? parse_v6(&c, &b) : parse_v7(&c, &b);
	/* Once storage ran short, some checks were skipped (the names of
	 * buffers not kept, the contents of sections not decompressed), so a
	 * later fault may not be the file's first: grow to need and retry,
	 * and the error is the same whatever the storage. */
	if (s && c.no_space && s != TB_ERR_NO_SPACE)
		return fail(&c, TB_ERR_NO_SPACE, 0,
			    "caller storage too small (see need)");
	if (s)
		return s;
	/* Every push_* / take_* that outgrows its storage sets no_space; the
	 * comparisons make sure TB_OK never goes with counts past storage. */
	if (c.no_space || d->need.events > d->st_.events_cap ||
	    d->need.buffers > d->st_.buffers_cap ||
	    d->need.cpus > d->st_.cpus_cap ||
	    d->need.cpustats > d->st_.cpustats_cap ||
	    d->need.scratch > d->st_.scratch_cap)
		return fail(&c, TB_ERR_NO_SPACE, 0,
			    "caller storage too small (see need)");
	return TB_OK;
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
	if (cpu->size == 0) {
		it->end = it->pos = 0;
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
	if (cs > it->end - it->pos - 8)
		return tb_fail(err, TB_ERR_LENGTH, it->pos,
			       "chunk runs past the CPU data");
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

tb_status tb_dat_chunk_inflate(const tb_dat *d, const tb_dat_buffer *b,
			       const tb_dat_chunk *ch, void *dst,
			       size_t dst_cap, tb_error *err)
{
	ctx c;
	if (!d || !b || !ch || (!dst && ch->usize))
		return tb_fail(err, TB_ERR_ARG, 0, "NULL argument");
	if (ch->usize > dst_cap)
		return tb_fail(err, TB_ERR_NO_SPACE, ch->offset,
			       "chunk larger than the destination");
	if (b->page_size == 0 || ch->usize % b->page_size)
		return tb_fail(err, TB_ERR_LENGTH, ch->offset + 4,
			       "chunk size not a whole number of pages");
	memset(&c, 0, sizeof(c));
	c.d = (tb_dat *)(uintptr_t)d;
	c.err = err;
	return inflate(&c, ch->data, ch->csize, ch->usize, (uint8_t *)dst,
		       ch->offset);
}

/* ---- options walk for callers ---- */

typedef struct walk {
	tb_dat_option_fn fn;
	void *ctx;
	int stop;
} walk;

static int walk_list(walk *w, body *b, int v7, uint64_t *next)
{
	*next = 0;
	while (!w->stop) {
		uint16_t id;
		uint32_t size;
		uint64_t where = at(b);
		if (!tb_rd_u16(&b->r, &id))
			return -1;
		if (!v7 && id == 0)
			return 0;
		if (!tb_rd_u32(&b->r, &size) || size > tb_rd_left(&b->r))
			return -1;
		if (v7 && id == 0) {
			if (size != 8 || !tb_rd_u64_at(&b->r, b->r.pos, next))
				return -1;
			return 0;
		}
		if (w->fn(w->ctx, id, b->r.data + b->r.pos, size, where))
			w->stop = 1;
		b->r.pos += size;
	}
	return 0;
}

tb_status tb_dat_foreach_option(const tb_dat *d, tb_dat_option_fn fn,
				void *user, tb_error *err)
{
	walk w;
	body b;
	if (!d || !fn || !d->file)
		return tb_fail(err, TB_ERR_ARG, 0, "NULL argument");
	w.fn = fn;
	w.ctx = user;
	w.stop = 0;
	if (d->version == 6) {
		/* re-find the options tag: it follows the CPU count, which
		 * follows the cmdlines text */
		size_t pos = (size_t)(d->cmdlines.offset + d->cmdlines.len) + 4;
		tb_rd_init(&b.r, d->file, d->len, d->big_endian);
		b.base = 0;
		b.in_file = 1;
		if (pos > d->len || d->len - pos < 10 ||
		    memcmp(d->file + pos, "options  ", 10) != 0)
			return TB_OK;
		b.r.pos = pos + 10;
		{
			uint64_t nx;
			if (walk_list(&w, &b, 0, &nx))
				return tb_fail(err, TB_ERR_TRUNCATED, at(&b),
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
			tb_rd_init(&b.r, d->file + off + 16, (size_t)size,
				   d->big_endian);
			b.base = off + 16;
			b.in_file = 1;
			if (walk_list(&w, &b, 1, &next))
				return tb_fail(err, TB_ERR_TRUNCATED, at(&b),
					       "options changed since open");
		}
	}
	return TB_OK;
}

const char *tb_dat_option_name(unsigned id)
{
	static const char *const names[TB_DAT_OPT_COUNT_] = {
		"DONE", "DATE", "CPUSTAT", "BUFFER", "TRACECLOCK", "UNAME",
		"HOOK", "OFFSET", "CPUCOUNT", "VERSION", "PROCMAPS", "TRACEID",
		"TIME_SHIFT", "GUEST", "TSC2NSEC", "STRINGS", "HEADER_INFO",
		"FTRACE_EVENTS", "EVENT_FORMATS", "KALLSYMS", "PRINTK",
		"CMDLINES", "BUFFER_TEXT", "BTF_FILE", "LAST_BOOT_INFO",
		"MODULES_FILE"
	};
	return id < TB_DAT_OPT_COUNT_ ? names[id] : "unknown";
}
