/*
 * trace-cmd trace.dat reader (versions 6 and 7), over the whole file in
 * caller memory.  Every length, count and offset is checked against the
 * bytes that exist before it is used; texts are handed out as spans.
 */
#include "tracebound/tracedat.h"
#include "internal.h"
#include "datwalk.h"

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
	int options_unseen; /* a compressed options section among them */
	uint64_t declared_scratch; /* v7: scratch every section could take */
	uint64_t sect_off[TB_DAT_OPT_COUNT_]; /* sections named by options */
	uint32_t met;       /* bit per option id met (TB_DAT_OPT_COUNT_ < 32) */
	int perf_steps;     /* perf tracing data: the v6 items it has (5 or 6) */
	/* salvage */
	int salvage;
	uint64_t walk_stop; /* v7: the section walk ends here (0: the end) */
	int chain_damaged;  /* v7: part of the options chain is lost */
	uint64_t cut_end;   /* declared file end of the item that ran past the
			       end of the file (0: none) */
	uint64_t walk_off[TB_DAT_OPT_COUNT_]; /* first section of each id */
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

/*
 * Salvage: turn the error just failed into a damage entry (kept while
 * storage lasts, counted always) and clear it.  `length`: bytes of the file
 * given up from the fault on; UINT64_MAX: to the end of the file.
 */
static tb_dat_damage *damage(ctx *c, unsigned part, uint64_t length)
{
	tb_dat *d = c->d;
	tb_dat_damage *g = NULL;
	uint64_t off = c->err->offset;
	if (off > c->f.len)
		off = c->f.len;
	if (length == UINT64_MAX || length > c->f.len - off)
		length = c->f.len - off;
	if (d->damage_total < d->damage_cap_) {
		g = &d->damage_st_[d->damage_total];
		memset(g, 0, sizeof(*g));
		g->part = part;
		g->error = *c->err;
		g->error.offset = off;
		g->length = length;
		g->missing = c->cut_end > c->f.len ? c->cut_end - c->f.len : 0;
		d->ndamage++;
	}
	d->damage_total++;
	d->need.damage = d->damage_total;
	c->cut_end = 0;
	tb_error_clear(c->err);
	return g;
}

/* The declared end of an item that ran past the end of the file. */
static void note_cut(ctx *c, uint64_t start, uint64_t size)
{
	c->cut_end = size > UINT64_MAX - start ? UINT64_MAX : start + size;
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
		if (b->in_file)
			note_cut(c, at(b), n);
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

/* Scratch for n bytes, counted in need.scratch whether it fits or not.
 * Once one did not fit, none does: the open is called again with need
 * anyway, so nothing more is decompressed in vain, and every later
 * section is still counted (one retry holds them all). */
static uint8_t *take_scratch(ctx *c, size_t n)
{
	tb_dat *d = c->d;
	uint8_t *p = NULL;
	if (!c->no_scratch && d->st_.scratch && n <= d->st_.scratch_cap &&
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

/* Decompress csize bytes into usize; *got is the bytes produced.  A cut
 * input (a chunk the file ends in) may give fewer: the decompressor says
 * TB_ERR_TRUNCATED ("copy", which cannot tell, TB_OK). */
static tb_status inflate(ctx *c, const uint8_t *src, uint32_t csize,
			 uint32_t usize, uint8_t *dst, uint64_t off, int cut,
			 size_t *got)
{
	const tb_dat *d = c->d;
	char algo[32];
	size_t produced = 0;
	tb_status s;
	*got = 0;
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
	if (cut && (s == TB_OK || s == TB_ERR_TRUNCATED)) {
		if (produced > usize)
			return fail(c, TB_ERR_LENGTH, off,
				    "decompressed size over the declared size");
		*got = produced;
		return TB_OK;
	}
	if (s != TB_OK)
		return fail(c, TB_ERR_VALUE, off, "compressed data is corrupt");
	if (produced != usize)
		return fail(c, TB_ERR_LENGTH, off,
			    "decompressed size differs from the declared size");
	*got = produced;
	return TB_OK;
}

/* The 16-byte v7 section header at off. */
typedef struct sect {
	uint16_t id, flags;
	uint32_t name;
	uint64_t size;
	uint64_t off;       /* of the header */
	uint64_t decl_end;  /* where the body ends as declared */
	int cut;            /* salvage: the body runs past the end, size clipped */
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
	if (tb_rd_left(&b.r) < 16)
		note_cut(c, off, 16);
	if ((st = rd_u16(c, &b, &s->id, "section header truncated")) ||
	    (st = rd_u16(c, &b, &s->flags, "section header truncated")) ||
	    (st = rd_u32(c, &b, &s->name, "section header truncated")) ||
	    (st = rd_u64(c, &b, &s->size, "section header truncated")))
		return st;
	if (s->flags & ~1u)
		return fail(c, TB_ERR_VALUE, off + 2, "unknown section flags");
	s->cut = 0;
	s->decl_end = s->size > UINT64_MAX - off - 16 ? UINT64_MAX
						      : off + 16 + s->size;
	if (s->size > tb_rd_left(&b.r)) {
		if (c->salvage) {
			/* the body's consumer reports what the cut costs */
			s->size = tb_rd_left(&b.r);
			s->cut = 1;
			return TB_OK;
		}
		return fail(c, TB_ERR_LENGTH, off + 8,
			    "section size runs past the end of the file");
	}
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
		size_t got;
		if ((st = inflate(c, src, csize, usize, dst, off, 0, &got)))
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

/*
 * Salvage: a CPU's data runs past the end of the file.  Keep the whole
 * pages that exist; compressed data keeps the whole chunks (walking the
 * count and chunk headers over the bytes present) and the part present
 * of the chunk the cut falls in (cpu->tail).
 */
static void clip_cpu(ctx *c, const tb_dat_buffer *bf, tb_dat_cpu *cpu)
{
	uint64_t off = cpu->offset, have = off < c->f.len ? c->f.len - off : 0;
	uint32_t count;
	cpu->cut = 1;
	cpu->chunks = 0;
	cpu->tail = 0;
	if (!bf->compressed) {
		cpu->size = have - have % bf->page_size;
		return;
	}
	cpu->size = 0;
	if (!tb_rd_u32_at(&c->f, (size_t)off, &count))
		return;
	cpu->size = tb_dat_whole_chunks(&c->f, off, c->f.len, count, &cpu->chunks, &cpu->tail) - off - 4;
}

/* CPU ranges: validated against the file and the enclosing section, and
 * stored in *out.  In salvage a range past the end of the file is clipped
 * (clip_cpu) instead of failing. */
static tb_status cpu_range(ctx *c, const tb_dat_buffer *bf, uint32_t id,
			   uint64_t off, uint64_t size, uint64_t lo,
			   uint64_t hi, uint64_t where, tb_dat_cpu *out)
{
	uint64_t slack = bf->compressed ? 4 : 0;
	memset(out, 0, sizeof(*out));
	out->cpu = id;
	out->offset = size ? off : 0;
	out->table_offset = off;
	out->size = out->declared = size;
	if (size == 0)
		return TB_OK;
	if (off > c->f.len || size > c->f.len - off ||
	    (c->salvage && slack && size + slack > c->f.len - off)) {
		if (!c->salvage)
			return fail(c, TB_ERR_RANGE, where,
				    "CPU data range runs past the end of the file");
		if (off % bf->page_size)
			return fail(c, TB_ERR_VALUE, where,
				    "CPU data offset not aligned to the page size");
		clip_cpu(c, bf, out);
		if (out->size == 0)
			return TB_OK;
		size = out->size;
	}
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

/* A CPU table entry of `entry` bytes: its range (cpu_range); in salvage
 * a bad one is damage, and the CPU is kept, empty. */
static tb_status table_cpu(ctx *c, const tb_dat_buffer *bf, uint32_t id,
			   uint64_t off, uint64_t size, uint64_t lo, uint64_t hi,
			   uint64_t where, unsigned entry, tb_dat_cpu *out)
{
	tb_status st = cpu_range(c, bf, id, off, size, lo, hi, where, out);
	if (!st || !c->salvage)
		return st;
	damage(c, TB_DAT_PART_BUFFER, entry); /* this CPU is lost */
	out->offset = out->size = out->declared = out->table_offset = 0;
	out->cut = 0;
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
	if (n > tb_rd_left(&b->r) / 16) {
		note_cut(c, tpos, (uint64_t)n * 16);
		return fail(c, TB_ERR_TRUNCATED, tpos,
			    "flyrecord CPU table runs past the end");
	}
	cpus = take_cpus(c, n);
	for (i = 0; i < n; i++) {
		uint64_t off, size, where = at(b);
		tb_dat_cpu one;
		if ((st = rd_u64(c, b, &off, "CPU offset truncated")) ||
		    (st = rd_u64(c, b, &size, "CPU size truncated")))
			return st;
		if ((st = table_cpu(c, bf, i, off, size, 0, c->f.len, where, 16,
				    &one)))
			return st;
		if (cpus)
			cpus[i] = one;
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
		tb_dat_cpu one;
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
		if ((st = table_cpu(c, bf, cpu, off, size, lo, hi, cw + 4, 20,
				    &one)))
			return st;
		if (cpus)
			cpus[i] = one;
	}
	if (cpus) { /* (kept in salvage when bytes follow) */
		bf->cpus = cpus;
		bf->ncpus = k;
	}
	return expect_end(c, p, "bytes after the BUFFER payload");
}

static tb_status opt_time_shift(ctx *c, body *p, unsigned oid, uint64_t opt_at)
{
	uint64_t id;
	uint32_t flags, ncpu, i, total = 0;
	tb_status st;
	uint64_t where = at(p);
	(void)oid;
	(void)opt_at;
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

static tb_status opt_guest(ctx *c, body *p, unsigned oid, uint64_t opt_at)
{
	tb_dat_text name;
	uint64_t id;
	uint32_t n;
	tb_status st;
	(void)oid;
	(void)opt_at;
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

static tb_status opt_cpustat(ctx *c, body *p, unsigned id, uint64_t where)
{
	tb_dat_text t;
	tb_status st;
	(void)id;
	(void)where;
	if ((st = opt_text(c, p, &t, "empty CPUSTAT option")))
		return st;
	push_cpustat(c, t);
	return TB_OK;
}

static tb_status opt_buffer(ctx *c, body *p, unsigned id, uint64_t where)
{
	if (c->d->version < 7)
		return opt_buffer_v6(c, p, where);
	return opt_buffer_v7(c, p, id, where);
}

static tb_status opt_cpucount(ctx *c, body *p, unsigned id, uint64_t where)
{
	tb_dat *d = c->d;
	tb_status st;
	(void)id;
	if ((st = rd_u32(c, p, &d->cpu_count, "CPUCOUNT truncated")))
		return st;
	if (d->cpu_count > TB_DAT_MAX_CPUS)
		return fail(c, TB_ERR_LIMIT, where + 6, "too many CPUs");
	d->has_cpu_count = 1;
	return TB_OK;
}

static tb_status opt_traceid(ctx *c, body *p, unsigned id, uint64_t where)
{
	(void)id;
	(void)where;
	c->d->has_trace_id = 1;
	return rd_u64(c, p, &c->d->trace_id, "TRACEID truncated");
}

static tb_status opt_tsc2nsec(ctx *c, body *p, unsigned id, uint64_t where)
{
	tb_dat *d = c->d;
	tb_status st;
	(void)id;
	(void)where;
	d->has_tsc2nsec = 1;
	if ((st = rd_u32(c, p, &d->tsc_mult, "TSC2NSEC truncated")) ||
	    (st = rd_u32(c, p, &d->tsc_shift, "TSC2NSEC truncated")) ||
	    (st = rd_u64(c, p, &d->tsc_offset, "TSC2NSEC truncated")))
		return st;
	return TB_OK;
}

/* v7: a u64 offset naming the section of this id (read in parse_v7_sections). */
static tb_status opt_section(ctx *c, body *p, unsigned id, uint64_t where)
{
	uint64_t off;
	tb_status st;
	if (p->r.len != 8)
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

/*
 * The options, one row per id (trace-cmd's numbering, spec 3.3): how the
 * payload is read, where it is kept, and for the v7 metadata sections how
 * their body is parsed and which damage part they are.  Every place that
 * deals with an option id (the v6 list, the v7 chain, the v6 items in
 * sequence, the section walk, the names) reads this table; an id without
 * a kind is skipped as trace-cmd skips a newer writer's options.
 */
enum opt_kind {
	OPT_UNKNOWN = 0,
	OPT_CSTR,    /* a NUL-terminated text (bytes after the NUL ignored) */
	OPT_TEXT,    /* the payload as text, not empty, a trailing NUL dropped */
	OPT_NUMBER,  /* OPT_CSTR holding a signed number (base auto) */
	OPT_SECTION, /* v7: u64 offset of a metadata section of the same id */
	OPT_OWN      /* read by row->opt (after `text` gets the whole payload) */
};
#define OPT_V7 0x01u   /* a v7 option: unknown in v6 */
#define OPT_SECT 0x02u /* a section id the v7 walk accepts (OPT_SECTION: all) */

typedef tb_status (*opt_fn)(ctx *c, body *p, unsigned id, uint64_t where);

typedef struct opt_row {
	const char *name;
	uint8_t kind, flags;
	uint8_t width;     /* section: a line table with a size field this wide */
	uint8_t part;      /* section: its damage part */
	uint8_t size;      /* OPT_OWN: the payload's only size (0: any); `what` says it */
	size_t text;       /* offsetof(tb_dat, the span kept), 0: none */
	const char *what;  /* the payload's error; a line table's size error */
	opt_fn opt;                             /* OPT_OWN */
	tb_status (*parse)(ctx *c, body *b);    /* section: parses its body */
} opt_row;

#define TXT(f) offsetof(tb_dat, f)
static const opt_row opt_rows[TB_DAT_OPT_COUNT_] = {
	[TB_DAT_OPT_DONE] = { "DONE", 0, OPT_SECT, 0, 0, 0, 0, NULL, NULL, NULL },
	[TB_DAT_OPT_DATE] = { "DATE", OPT_NUMBER, 0, 0, 0, 0, TXT(date),
			      "number text not terminated", NULL, NULL },
	[TB_DAT_OPT_CPUSTAT] = { "CPUSTAT", OPT_OWN, 0, 0, 0, 0, 0, NULL, opt_cpustat, NULL },
	[TB_DAT_OPT_BUFFER] = { "BUFFER", OPT_OWN, OPT_SECT, 0, 0, 0, 0, NULL, opt_buffer, NULL },
	[TB_DAT_OPT_TRACECLOCK] = { "TRACECLOCK", OPT_TEXT, 0, 0, 0, 0, TXT(trace_clock),
				    "empty TRACECLOCK option", NULL, NULL },
	[TB_DAT_OPT_UNAME] = { "UNAME", OPT_CSTR, 0, 0, 0, 0, TXT(uname),
			       "UNAME not terminated", NULL, NULL },
	[TB_DAT_OPT_HOOK] = { "HOOK", OPT_CSTR, 0, 0, 0, 0, TXT(hook),
			      "HOOK not terminated", NULL, NULL },
	[TB_DAT_OPT_OFFSET] = { "OFFSET", OPT_NUMBER, 0, 0, 0, 0, TXT(ts_offset),
				"number text not terminated", NULL, NULL },
	[TB_DAT_OPT_CPUCOUNT] = { "CPUCOUNT", OPT_OWN, 0, 0, 0, 4, 0, "CPUCOUNT size is not 4",
				opt_cpucount, NULL },
	[TB_DAT_OPT_VERSION] = { "VERSION", OPT_CSTR, 0, 0, 0, 0, TXT(tc_version),
				 "VERSION not terminated", NULL, NULL },
	[TB_DAT_OPT_PROCMAPS] = { "PROCMAPS", OPT_CSTR, 0, 0, 0, 0, TXT(procmaps),
				  "PROCMAPS not terminated", NULL, NULL },
	[TB_DAT_OPT_TRACEID] = { "TRACEID", OPT_OWN, 0, 0, 0, 8, 0, "TRACEID size is not 8",
			       opt_traceid, NULL },
	[TB_DAT_OPT_TIME_SHIFT] = { "TIME_SHIFT", OPT_OWN, 0, 0, 0, 0, TXT(time_shift), NULL,
				    opt_time_shift, NULL },
	[TB_DAT_OPT_GUEST] = { "GUEST", OPT_OWN, 0, 0, 0, 0, TXT(guest), NULL, opt_guest, NULL },
	[TB_DAT_OPT_TSC2NSEC] = { "TSC2NSEC", OPT_OWN, 0, 0, 0, 16, 0, "TSC2NSEC size is not 16",
				opt_tsc2nsec, NULL },
	[TB_DAT_OPT_STRINGS] = { "STRINGS", 0, OPT_SECT, 0, 0, 0, 0, NULL, NULL, NULL },
	[TB_DAT_OPT_HEADER_INFO] = { "HEADER_INFO", OPT_SECTION, OPT_V7, 0, TB_DAT_PART_HEADERS, 0,
				     0, NULL, NULL, parse_headers },
	[TB_DAT_OPT_FTRACE_EVENTS] = { "FTRACE_EVENTS", OPT_SECTION, OPT_V7, 0,
				       TB_DAT_PART_FTRACE_EVENTS, 0, 0, NULL, NULL, parse_ftrace },
	[TB_DAT_OPT_EVENT_FORMATS] = { "EVENT_FORMATS", OPT_SECTION, OPT_V7, 0,
				       TB_DAT_PART_EVENT_FORMATS, 0, 0, NULL, NULL, parse_systems },
	[TB_DAT_OPT_KALLSYMS] = { "KALLSYMS", OPT_SECTION, OPT_V7, 4, TB_DAT_PART_KALLSYMS, 0,
				  TXT(kallsyms), "kallsyms size runs past the end", NULL, NULL },
	[TB_DAT_OPT_PRINTK] = { "PRINTK", OPT_SECTION, OPT_V7, 4, TB_DAT_PART_PRINTK, 0,
				TXT(printk), "printk size runs past the end", NULL, NULL },
	[TB_DAT_OPT_CMDLINES] = { "CMDLINES", OPT_SECTION, OPT_V7, 8, TB_DAT_PART_CMDLINES, 0,
				  TXT(cmdlines), "cmdlines size runs past the end", NULL, NULL },
	[TB_DAT_OPT_BUFFER_TEXT] = { "BUFFER_TEXT", OPT_OWN, OPT_V7 | OPT_SECT, 0, 0, 0, 0, NULL,
				     opt_buffer_v7, NULL },
	[TB_DAT_OPT_BTF_FILE] = { "BTF_FILE", OPT_SECTION, OPT_V7, 0, TB_DAT_PART_SECTIONS, 0,
				  TXT(btf), NULL, NULL, NULL },
	[TB_DAT_OPT_LAST_BOOT_INFO] = { "LAST_BOOT_INFO", OPT_TEXT, 0, 0, 0, 0, TXT(last_boot_info),
					"empty LAST_BOOT_INFO option", NULL, NULL },
	[TB_DAT_OPT_MODULES_FILE] = { "MODULES_FILE", OPT_SECTION, OPT_V7, 0, TB_DAT_PART_SECTIONS, 0,
				      TXT(modules), NULL, NULL, NULL },
};
#undef TXT

static tb_dat_text *row_text(tb_dat *d, const opt_row *r)
{
	return (tb_dat_text *)(void *)((char *)d + r->text);
}

/* The row of a known id, else NULL. */
static const opt_row *opt_row_of(unsigned id)
{
	return id < TB_DAT_OPT_COUNT_ && opt_rows[id].name ? &opt_rows[id] : NULL;
}

static tb_status handle_option(ctx *c, unsigned id, body *p, uint64_t where)
{
	tb_dat *d = c->d;
	const opt_row *r = opt_row_of(id);
	tb_dat_text scratch, *t;
	tb_status st;
	memset(&scratch, 0, sizeof(scratch));
	d->noptions++;
	if (!r || !r->kind || ((r->flags & OPT_V7) && d->version < 7)) {
		/* unknown here: the writer's newer options are skipped, as
		 * trace-cmd does */
		d->nunknown_options++;
		p->r.pos = p->r.len;
		return TB_OK;
	}
	c->met |= 1u << id;
	t = r->text ? row_text(d, r) : &scratch; /* no member: read, not kept */
	switch (r->kind) {
	case OPT_CSTR:
		return opt_cstr(c, p, t, r->what);
	case OPT_TEXT:
		return opt_text(c, p, t, r->what);
	case OPT_NUMBER:
		if ((st = opt_cstr(c, p, t, r->what)))
			return st;
		if (!parse_i64_text(t))
			return fail(c, TB_ERR_SYNTAX, where + 6,
				    "option is not a number");
		return TB_OK;
	case OPT_SECTION:
		return opt_section(c, p, id, where);
	default:
		if (r->size && p->r.len != r->size)
			return fail(c, TB_ERR_LENGTH, where + 2, r->what);
		if (t)
			*t = mk_text(p, 0, p->r.len);
		return r->opt(c, p, id, where);
	}
}

/* One option at b's cursor: u16 id (already read), u32 size, payload. */
static tb_status read_option(ctx *c, body *b, unsigned id, uint64_t where,
			     body *payload)
{
	uint32_t size;
	tb_status st;
	if ((st = rd_u32(c, b, &size, "option size truncated")))
		return st;
	if (size > tb_rd_left(&b->r)) {
		if (b->in_file)
			note_cut(c, at(b), size);
		return fail(c, TB_ERR_LENGTH, where + 2,
			    "option size runs past the end");
	}
	(void)id;
	payload->in_file = b->in_file;
	payload->base = b->in_file ? b->base + b->r.pos : b->base;
	tb_rd_init(&payload->r, b->r.data + b->r.pos, size, b->r.big_endian);
	b->r.pos += size;
	return TB_OK;
}

/* One option's payload, handled; in salvage a bad option (whose size is
 * known) is damage, and the walk goes on after it. */
static tb_status one_option(ctx *c, unsigned id, body *p, uint64_t where)
{
	tb_status st = handle_option(c, id, p, where);
	if (!st && p->r.pos != p->r.len)
		st = fail(c, TB_ERR_LENGTH, at(p),
			  "bytes left over in an option");
	if (st && c->salvage) {
		damage(c, TB_DAT_PART_OPTIONS, 6 + (uint64_t)p->r.len);
		return TB_OK;
	}
	return st;
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
		    (st = one_option(c, id, &p, where)))
			return st;
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
		    (st = read_option(c, &b, id, where, &p))) {
			if (s.cut && !c->cut_end)
				note_cut(c, off, s.decl_end - off);
			return st;
		}
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
		if ((st = one_option(c, id, &p, where)))
			return st;
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
		/* (in salvage both end the chain: see parse_v7) */
		d->opt_seen_[hops++] = off;
		if ((st = parse_v7_options_section(c, off, &next, &skipped))) {
			if (!c->salvage)
				return st;
			/* the rest of the chain is out of reach */
			c->chain_damaged = 1;
			damage(c, TB_DAT_PART_OPTIONS,
			       c->cut_end ? UINT64_MAX : 0);
			return TB_OK;
		}
		if (skipped) {
			c->options_unseen = 1;
			return TB_OK; /* scratch too small; NO_SPACE follows */
		}
		off = next;
	}
	return TB_OK;
}

/* ---- v7 metadata sections ---- */

/*
 * Salvage: a line table (kallsyms, printk, cmdlines) whose size field at
 * b's szpos runs past the end of the file.  Keep its whole lines; the
 * damage starts at the first byte not kept.  Only for a text in the file
 * that reaches the file's end (a cut, not a lying size mid-file).
 */
static int keep_cut_text(ctx *c, body *b, size_t szpos, unsigned width,
			 tb_dat_text *t, unsigned part)
{
	size_t start = szpos + width, n;
	const uint8_t *p;
	if (!b->in_file || b->base + b->r.len != c->f.len ||
	    start > b->r.len || !tb_rd_ptr_at(&b->r, start, b->r.len - start, &p))
		return 0;
	n = b->r.len - start;
	while (n && p[n - 1] != '\n')
		n--;
	*t = mk_text(b, start, n);
	c->err->offset = t->offset + n;
	damage(c, part, UINT64_MAX);
	b->r.pos = b->r.len;
	return 1;
}

/* A line table: size field, text; salvaged when cut (keep_cut_text). */
static tb_status rd_table(ctx *c, body *b, unsigned width, tb_dat_text *t,
			  const char *what, unsigned part)
{
	size_t szpos = b->r.pos;
	tb_status st = rd_sized(c, b, width, t, what);
	if (st == TB_ERR_LENGTH && c->salvage &&
	    keep_cut_text(c, b, szpos, width, t, part))
		return TB_OK;
	return st;
}

/* One metadata item: a v7 section's body, or a v6 item in sequence (the
 * same encoding; keep_cut: a line table cut by the end of the file keeps
 * its whole lines, see keep_cut_text). */
static tb_status parse_item(ctx *c, unsigned id, body *b, int keep_cut)
{
	const opt_row *r = &opt_rows[id];
	if (r->parse)
		return r->parse(c, b);
	if (r->width && keep_cut)
		return rd_table(c, b, r->width, row_text(c->d, r), r->what, r->part);
	if (r->width)
		return rd_sized(c, b, r->width, row_text(c->d, r), r->what);
	*row_text(c->d, r) = mk_text(b, 0, b->r.len);
	b->r.pos = b->r.len;
	return TB_OK;
}

static tb_status parse_v7_sections(ctx *c)
{
	tb_dat *d = c->d;
	unsigned id;
	/* salvage: sections the lost part of the chain named are found by
	 * the walk over the sections (the first of each id) */
	if (c->salvage && c->chain_damaged)
		for (id = 0; id < TB_DAT_OPT_COUNT_; id++)
			if (opt_rows[id].kind == OPT_SECTION && !c->sect_off[id])
				c->sect_off[id] = c->walk_off[id];
	if (!c->sect_off[TB_DAT_OPT_HEADER_INFO]) {
		tb_status st = fail(c, TB_ERR_VALUE, d->first_options,
				    "no HEADER_INFO section named by the options");
		if (!c->salvage)
			return st;
		damage(c, TB_DAT_PART_HEADERS, 0);
	}
	for (id = 0; id < TB_DAT_OPT_COUNT_; id++) {
		uint64_t off = c->sect_off[id];
		body b;
		sect s;
		int skipped;
		tb_status st;
		size_t before = d->damage_total;
		if (opt_rows[id].kind != OPT_SECTION || !off)
			continue;
		s.cut = 0;
		s.size = 0;
		if ((st = open_sect(c, off, id, &b, &s, &skipped)) == TB_OK) {
			if (skipped)
				continue;
			st = parse_item(c, id, &b, c->salvage);
			if (!st && opt_rows[id].width && tb_rd_left(&b.r)) {
				/* trace-cmd can write a table's size smaller than
				 * the text it wrote after it (saved_cmdlines grew
				 * while it was read) and reads the declared size:
				 * so does this, and says how much it left */
				if (!d->slack_bytes)
					d->slack_offset = off;
				d->slack_bytes += tb_rd_left(&b.r);
				b.r.pos = b.r.len;
			}
			if (!st)
				st = expect_end(c, &b, "bytes left over in a section");
			if (!st && s.cut && d->damage_total == before)
				/* clipped and nothing noticed (BTF, modules) */
				st = fail(c, TB_ERR_TRUNCATED, off + 8,
					  "section cut short by the end of the file");
		}
		if (st) {
			if (!c->salvage)
				return st;
			if (s.cut && !c->cut_end)
				note_cut(c, off, s.decl_end - off);
			damage(c, opt_rows[id].part, s.cut ? UINT64_MAX : 16 + s.size);
		}
	}
	return TB_OK;
}

static int known_section_id(unsigned id)
{
	const opt_row *r = opt_row_of(id);
	return r && (r->kind == OPT_SECTION || (r->flags & OPT_SECT));
}

/*
 * Walk every section from the end of the header to the end of the file
 * (trace-cmd writes them back to back and finds the strings this way).
 * pass 0 counts and loads the strings; pass 1 checks description ids.
 */
/* The scratch a section can take when it is opened, as its header
 * declares: a compressed one its uncompressed size, STRINGS its body
 * (gathered); CPU data (BUFFER) is decompressed by chunk, elsewhere. */
static uint64_t sect_scratch(const ctx *c, const sect *s)
{
	uint32_t usize = 0;
	if (s->id == TB_DAT_OPT_BUFFER)
		return 0;
	if (!(s->flags & 1u))
		return s->id == TB_DAT_OPT_STRINGS ? s->size : 0;
	if (s->size < 8 || !tb_rd_u32_at(&c->f, (size_t)s->off + 20, &usize) ||
	    usize > TB_DAT_MAX_UNCOMPRESSED)
		return 0; /* opening it fails */
	return usize;
}

static tb_status walk_v7_sections(ctx *c, size_t start, int pass)
{
	tb_dat *d = c->d;
	uint64_t off = start;
	size_t nstr = 0, n = 0;
	tb_dat_text first = { NULL, 0, 0 };
	unsigned first_flags = 0;
	/* salvage: the walk ends at a section it cannot read (pass 0 reports
	 * it; the later passes stop there too) */
	uint64_t limit = c->walk_stop ? c->walk_stop : c->f.len;
	while (off < limit) {
		sect s;
		tb_status st;
		if (n >= TB_DAT_MAX_SECTIONS)
			st = fail(c, TB_ERR_LIMIT, off, "too many sections");
		else if ((st = read_sect(c, off, &s)) == TB_OK &&
			 !known_section_id(s.id))
			st = fail(c, TB_ERR_VALUE, off, "unknown section id");
		if (st) {
			if (!c->salvage)
				return st;
			damage(c, TB_DAT_PART_SECTIONS, UINT64_MAX);
			c->walk_stop = limit = off;
			break;
		}
		if (pass == 0 && s.id < TB_DAT_OPT_COUNT_ && !c->walk_off[s.id])
			c->walk_off[s.id] = off;
		if (pass == 0)
			c->declared_scratch += sect_scratch(c, &s);
		if (pass == 1) {
			/* (in salvage, lost strings are not each section's
			 * fault: descriptions are only names) */
			if (s.name != UINT32_MAX && s.name >= d->strings.len &&
			    !(c->salvage && !c->walk_off[TB_DAT_OPT_STRINGS])) {
				st = fail(c, TB_ERR_RANGE, off + 4,
					  "section description outside the strings");
				if (!c->salvage)
					return st;
				damage(c, TB_DAT_PART_SECTIONS, 16);
			}
		} else if (s.id == TB_DAT_OPT_STRINGS) {
			if (s.cut && !(s.flags & 1u)) {
				/* (a compressed one fails to open below) */
				note_cut(c, off, s.decl_end - off);
				(void)fail(c, TB_ERR_TRUNCATED, off + 8,
					   "strings section cut short by the end of the file");
				damage(c, TB_DAT_PART_SECTIONS, UINT64_MAX);
			}
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
		size_t total = 0;
		off = start;
		while (off < limit) {
			sect s;
			body b;
			int skipped;
			tb_status st;
			if ((st = read_sect(c, off, &s)))
				return st;
			if (s.id == TB_DAT_OPT_STRINGS) {
				if ((st = open_sect(c, off, s.id, &b, &s, &skipped))) {
					if (!c->salvage)
						return st;
					/* keep those gathered before it */
					damage(c, TB_DAT_PART_SECTIONS, 16 + s.size);
					break;
				}
				/* a section that does not fit is still counted
				 * (take_scratch): one retry holds them all */
				if (!skipped && b.in_file) {
					uint8_t *cp = take_scratch(c, b.r.len);
					if (cp && b.r.len)
						memcpy(cp, b.r.data, b.r.len);
					if (!dst)
						dst = cp;
				} else if (!skipped && !dst) {
					/* already in scratch: it is contiguous */
					dst = (uint8_t *)(uintptr_t)b.r.data;
				}
				total += b.r.len;
			}
			off += 16 + s.size;
		}
		if (c->no_scratch)
			total = 0; /* not all of them are there: call again */
		d->strings.ptr = total ? (const char *)dst : NULL;
		d->strings.len = total;
		d->strings.offset = start;
	}
	return TB_OK;
}

/* ---- the two layouts ---- */

/* Put the top buffer (kept last) first.  A kept top buffer implies all
 * buffers fit; the cap test keeps the writes inside storage regardless. */
static void top_first(ctx *c)
{
	tb_dat *d = c->d;
	if (d->nbuffers > 1 && d->nbuffers <= d->st_.buffers_cap) {
		tb_dat_buffer first = d->buffers[d->nbuffers - 1];
		size_t i;
		for (i = d->nbuffers - 1; i > 0; i--)
			d->buffers[i] = d->buffers[i - 1];
		d->buffers[0] = first;
	}
}

/* ---- v6 resync (salvage) ---- */

/*
 * Salvage, v6: the items from `from` on are out of reach (one of them
 * does not parse).  Find the next plausible data part: with_count, the
 * u32 CPU count and an options / flyrecord / latency tag (*at: the
 * count); else a flyrecord / latency tag after the options (*at: the tag).
 */
static int resync_v6(ctx *c, size_t from, int with_count, size_t *at_)
{
	unsigned tries, which = 0;
	size_t pos = from;
	for (tries = 0; tries < TB_DAT_MAX_RESYNC; tries++) {
		size_t t = tb_dat_find_v6_tag(&c->f, pos, with_count ? 0 : 1, &which);
		uint32_t n = c->d->cpu_count;
		if (t == SIZE_MAX)
			return 0;
		if (!with_count) {
			if (tb_dat_v6_plausible(&c->f, c->d->page_size, t, which, n)) {
				*at_ = t;
				return 1;
			}
		} else if (t >= from + 4 && tb_rd_u32_at(&c->f, t - 4, &n) &&
			   tb_dat_v6_plausible(&c->f, c->d->page_size, t, which, n)) {
			*at_ = t - 4;
			return 1;
		}
		pos = t + 1;
	}
	return 0;
}

/* Salvage: damage from the fault up to a resync point. */
static void damage_to(ctx *c, unsigned part, size_t to)
{
	uint64_t off = c->err->offset;
	damage(c, part, to > off ? to - off : 0);
}

/* v6 after the tables: CPU count, options, flyrecord or latency data. */
static tb_status parse_v6_data(ctx *c, body *b)
{
	tb_dat *d = c->d;
	tb_status st;
	uint64_t cpos;
	tb_dat_buffer *bf, tmp;
	tb_dat_text top;
	const uint8_t *tag;
	cpos = at(b);
	if ((st = rd_u32(c, b, &d->cpu_count, "CPU count truncated")))
		goto cut;
	if (d->cpu_count > TB_DAT_MAX_CPUS) {
		st = fail(c, TB_ERR_LIMIT, cpos, "too many CPUs");
		if (!c->salvage)
			return st;
		damage(c, TB_DAT_PART_BUFFER, 4);
		d->cpu_count = 0; /* a CPUCOUNT option may say */
	} else {
		d->has_cpu_count = 1;
	}
	if (!tb_rd_ptr_at(&b->r, b->r.pos, 10, &tag)) {
		note_cut(c, at(b), 10);
		st = fail(c, TB_ERR_TRUNCATED, at(b), "data tag truncated");
		goto cut;
	}
	if (!memcmp(tag, "options  ", 10)) {
		b->r.pos += 10;
		/* a CPUCOUNT option sets how many CPUs the flyrecord tables
		 * list, as trace-cmd reads them */
		if ((st = parse_v6_options(c, b))) {
			size_t t;
			if (!c->salvage)
				return st;
			if (!resync_v6(c, b->r.pos, 0, &t)) {
				damage(c, TB_DAT_PART_OPTIONS, UINT64_MAX);
				return TB_OK;
			}
			damage_to(c, TB_DAT_PART_OPTIONS, t);
			b->r.pos = t;
		}
		if (!tb_rd_ptr_at(&b->r, b->r.pos, 10, &tag)) {
			note_cut(c, at(b), 10);
			st = fail(c, TB_ERR_TRUNCATED, at(b),
				  "data tag truncated");
			goto cut;
		}
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
		if ((st = parse_v6_fly(c, b, bf))) {
			if (!c->salvage)
				return st;
			damage(c, TB_DAT_PART_BUFFER, UINT64_MAX);
		} else if (c->met & (1u << TB_DAT_OPT_TRACECLOCK)) {
			/* the trace clock follows when the writer knew it */
			body t = *b;
			if (rd_sized(c, &t, 8, &d->v6_clock, "clock") != TB_OK) {
				tb_error_clear(c->err); /* trace-cmd: use local */
				c->cut_end = 0;
			}
		}
	} else {
		st = fail(c, TB_ERR_MAGIC, at(b),
			  "neither flyrecord nor latency data");
		if (!c->salvage)
			return st;
		damage(c, TB_DAT_PART_BUFFER, UINT64_MAX);
		return TB_OK;
	}
	/* Move the top buffer first (instances came with the options). */
	if (bf != &tmp)
		top_first(c);
	return TB_OK;
cut:
	if (!c->salvage)
		return st;
	damage(c, TB_DAT_PART_BUFFER, UINT64_MAX);
	return TB_OK;
}

/* v6: the metadata items in sequence, in the order of their v7 section
 * ids (headers, ftrace events, event formats, kallsyms, printk, cmdlines;
 * perf's tracing data 0.5 stops before cmdlines), then the data part. */
static tb_status parse_v6(ctx *c, body *b)
{
	unsigned id, last = TB_DAT_OPT_HEADER_INFO + (c->perf_steps ? (unsigned)c->perf_steps : 6u);
	for (id = TB_DAT_OPT_HEADER_INFO; id < last; id++) {
		const opt_row *r = &opt_rows[id];
		size_t start = b->r.pos, t;
		tb_status st = parse_item(c, id, b, 0);
		if (!st)
			continue;
		if (!c->salvage)
			return st;
		/* The items follow each other: a fault loses the way to the
		 * next.  Skip to the data part if one is found past it. */
		if (resync_v6(c, start, 1, &t)) {
			damage_to(c, r->part, t);
			b->r.pos = t;
			break;
		}
		/* none: the file ends inside this item */
		if (r->width && st == TB_ERR_LENGTH &&
		    keep_cut_text(c, b, start, r->width, row_text(c->d, r), r->part))
			return TB_OK;
		damage(c, r->part, UINT64_MAX);
		return TB_OK;
	}
	return c->perf_steps ? TB_OK : parse_v6_data(c, b);
}

/*
 * Salvage: trace-cmd writes the top buffer's BUFFER option after its data,
 * so a cut file loses it.  With no top buffer, rebuild it from the first
 * BUFFER section the walk met that no option claimed.
 */
static tb_status infer_v7_buffer(ctx *c)
{
	tb_dat *d = c->d;
	uint64_t soff = c->walk_off[TB_DAT_OPT_BUFFER], lo, hi;
	tb_dat_buffer *bf, tmp;
	tb_dat_text top;
	tb_dat_cpu *cpus;
	size_t i, n, max;
	sect s;
	tb_status st;
	if (!soff)
		return TB_OK;
	for (i = 0; i < d->nbuffers && i < d->st_.buffers_cap; i++)
		if (d->buffers[i].name.len == 0 ||
		    d->buffers[i].section_offset == soff)
			return TB_OK;
	if ((st = read_sect(c, soff, &s)))
		return st; /* the walk read it: cannot happen */
	top.ptr = "";
	top.len = 0;
	top.offset = soff;
	if ((st = new_buffer(c, &tmp, top, soff, soff, &bf)))
		return st;
	bf->compressed = (s.flags & 1u) != 0;
	bf->inferred = 1;
	max = d->has_cpu_count && d->cpu_count ? d->cpu_count : TB_DAT_MAX_CPUS;
	lo = soff + 16;
	lo += (d->page_size - lo % d->page_size) % d->page_size;
	hi = soff + 16 + s.size;
	n = lo < hi ? tb_dat_split_cpus(&c->f, bf, lo, hi, max, NULL) : 0;
	cpus = take_cpus(c, n);
	if (cpus && n) {
		(void)tb_dat_split_cpus(&c->f, bf, lo, hi, max, cpus);
		if (s.cut) {
			/* the rest of the section is this CPU's as far as
			 * anyone can tell */
			cpus[n - 1].cut = 1;
			cpus[n - 1].declared = s.decl_end - cpus[n - 1].offset -
					       (bf->compressed ? 4 : 0);
		}
	}
	if (cpus) {
		bf->cpus = cpus;
		bf->ncpus = n;
	}
	if (bf != &tmp)
		top_first(c);
	(void)fail(c, TB_ERR_TRUNCATED, soff,
		   "BUFFER option lost: CPU ranges inferred from the data");
	if (s.cut && n == 0)
		note_cut(c, soff, s.decl_end - soff); /* no CPU says it */
	{
		tb_dat_damage *g = damage(c, TB_DAT_PART_BUFFER,
					  s.cut && n == 0 ? UINT64_MAX : 0);
		if (g)
			g->buffer = 0;
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
	if (d->first_options < start || d->first_options >= c->f.len) {
		st = fail(c, TB_ERR_RANGE, start - 8,
			  "options offset outside the file");
		if (!c->salvage)
			return st;
		damage(c, TB_DAT_PART_OPTIONS, 8);
		d->first_options = 0;
		c->chain_damaged = 1;
	}
	if ((st = walk_v7_sections(c, start, 0)))
		return st;
	/* the strings unseen (a call again follows), the descriptions are
	 * not checked; what the options declare is still counted */
	if (!c->no_scratch && (st = walk_v7_sections(c, start, 1)))
		return st;
	if ((st = parse_v7_options(c))) {
		if (!c->salvage)
			return st;
		c->chain_damaged = 1; /* a loop or too many sections */
		damage(c, TB_DAT_PART_OPTIONS, 0);
	}
	if (c->options_unseen) {
		/* a compressed options section is unseen, and with it the rest
		 * of the chain and the section offsets: ask for the scratch of
		 * every section the walk found, so the next call reads the
		 * whole chain (not one options section per call) */
		if (d->need.scratch < c->declared_scratch)
			d->need.scratch = c->declared_scratch > SIZE_MAX
						  ? SIZE_MAX
						  : (size_t)c->declared_scratch;
		return TB_OK;
	}
	if ((st = parse_v7_sections(c)))
		return st;
	if (c->salvage && c->chain_damaged)
		return infer_v7_buffer(c);
	return TB_OK;
}

int tb_dat_probe(const void *file, size_t len)
{
	return file && len >= sizeof(dat_magic) &&
	       memcmp(file, dat_magic, sizeof(dat_magic)) == 0;
}
/* Salvage: one damage entry per CPU whose data was cut. */
static void damage_cpus(ctx *c)
{
	tb_dat *d = c->d;
	size_t i, j;
	for (i = 0; i < d->nbuffers && i < d->st_.buffers_cap; i++) {
		const tb_dat_buffer *bf = &d->buffers[i];
		uint64_t fr = bf->compressed ? 4 : 0;
		for (j = 0; j < bf->ncpus; j++) {
			const tb_dat_cpu *cpu = &bf->cpus[j];
			uint64_t stop, units;
			tb_dat_damage *g;
			if (!cpu->cut)
				continue;
			/* where the decoded data stops: the first byte lost
			 * (compressed: after the chunk count, when present) */
			stop = cpu->offset + cpu->size;
			if (bf->compressed) {
				uint32_t count = 0;
				if (tb_rd_u32_at(&c->f, (size_t)cpu->offset, &count))
					stop += 4;
				units = count > cpu->chunks ? count - cpu->chunks : 0;
			} else {
				units = (cpu->declared - cpu->size + bf->page_size - 1) /
					bf->page_size;
			}
			(void)fail(c, TB_ERR_TRUNCATED, stop,
				   !bf->compressed ? "CPU data cut short: pages from here are lost"
				   : cpu->tail ? "CPU data cut short inside this chunk: its whole "
						 "pages present are read, the chunks after it lost"
					       : "CPU data cut short: chunks from here are lost");
			g = damage(c, TB_DAT_PART_CPU_DATA, UINT64_MAX);
			if (g) {
				/* the bytes of this CPU's data the file lacks */
				uint64_t end = cpu->offset + cpu->declared + fr;
				uint64_t from = cpu->offset > c->f.len ? cpu->offset
								       : c->f.len;
				g->missing = end > from ? end - from : 0;
				g->buffer = i;
				g->cpu = cpu->cpu;
				g->units = units;
			}
		}
	}
}

/* tb_dat_open_ex with an error record that is never NULL (salvage moves
 * errors into the damage list). */
static tb_status open_file(tb_dat *d, const void *file, size_t len,
			   const tb_dat_storage *st,
			   const tb_dat_decompressor *dc,
			   const tb_dat_open_opts *opt, tb_error *e)
{
	ctx c;
	body b;
	tb_dat_text ver;
	uint8_t endian, lsize;
	tb_status s;
	memset(&c, 0, sizeof(c));
	c.err = e;
	tb_error_clear(c.err);
	if (!d || (!file && len))
		return fail(&c, TB_ERR_ARG, 0, "NULL file or handle");
	memset(d, 0, sizeof(*d));
	d->flags = opt ? opt->flags : 0;
	c.salvage = (d->flags & TB_DAT_OPEN_SALVAGE) != 0;
	if (st)
		d->st_ = *st;
	d->st_.events_cap = tb_region_len(d->st_.events, d->st_.events_cap);
	d->st_.buffers_cap = tb_region_len(d->st_.buffers, d->st_.buffers_cap);
	d->st_.cpus_cap = tb_region_len(d->st_.cpus, d->st_.cpus_cap);
	d->st_.cpustats_cap = tb_region_len(d->st_.cpustats, d->st_.cpustats_cap);
	d->st_.scratch_cap = tb_region_len(d->st_.scratch, d->st_.scratch_cap);
	if (opt && opt->damage) {
		d->damage_st_ = opt->damage;
		d->damage_cap_ = opt->damage_cap;
	}
	d->damage = d->damage_st_;
	d->events = d->st_.events;
	d->buffers = d->st_.buffers;
	d->cpustats = d->st_.cpustats;
	if (dc)
		d->dc_ = *dc;
	d->file = (const uint8_t *)file;
	d->len = len;
	c.d = d;
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
	if (d->flags & TB_DAT_OPEN_PERF_TRACING) {
		/* perf's tracing data: the v6 items up to printk (0.5) or
		 * saved cmdlines (0.6) */
		if (tb_span_eq(ver.ptr, ver.len, "0.6"))
			c.perf_steps = 6;
		else if (tb_span_eq(ver.ptr, ver.len, "0.5"))
			c.perf_steps = 5;
		else
			return fail(&c, TB_ERR_VERSION, 10,
				    "perf tracing data version is not 0.5 or 0.6");
		d->version = 6;
	} else if (tb_span_eq(ver.ptr, ver.len, "6"))
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
	if (c.salvage)
		damage_cpus(&c);
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

tb_status tb_dat_open(tb_dat *d, const void *file, size_t len,
		      const tb_dat_storage *st, const tb_dat_decompressor *dc,
		      tb_error *err)
{
	return tb_dat_open_ex(d, file, len, st, dc, NULL, err);
}

tb_status tb_dat_open_ex(tb_dat *d, const void *file, size_t len,
			 const tb_dat_storage *st, const tb_dat_decompressor *dc,
			 const tb_dat_open_opts *opt, tb_error *err)
{
	tb_error e;
	tb_status s = open_file(d, file, len, st, dc, opt, &e);
	if (err)
		*err = e;
	return s;
}

tb_status tb_dat_chunk_inflate(const tb_dat *d, const tb_dat_buffer *b,
			       const tb_dat_chunk *ch, void *dst,
			       size_t dst_cap, size_t *len, tb_error *err)
{
	ctx c;
	size_t got;
	tb_status st;
	if (len)
		*len = 0;
	if (!d || !b || !ch || !len || (!dst && ch->usize))
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
	st = inflate(&c, ch->data, ch->csize, ch->usize, (uint8_t *)dst,
		     ch->offset, ch->cut, &got);
	if (st)
		return st;
	*len = got - got % b->page_size;
	if (*len < ch->usize)
		return tb_fail(err, TB_ERR_TRUNCATED, ch->offset,
			       "compressed chunk cut short: its pages from here are lost");
	return TB_OK;
}

const char *tb_dat_option_name(unsigned id)
{
	const opt_row *r = opt_row_of(id);
	return r ? r->name : "unknown";
}
