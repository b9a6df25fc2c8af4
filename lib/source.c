/* Sources: a capture's parts found by one rule (see source.h). */
#include <string.h>

#include "tracebound/source.h"
#include "tracebound/tracedat.h"
#include "tracebound/perfdata.h"
#include "internal.h"

#define NAME_CAP 256 /* a directory entry's name (NAME_MAX 255) */

/* The region's lists are laid out twice: counted (base NULL), then filled. */
typedef struct bump {
	uint8_t *base;
	size_t used, cap;
} bump;

static void *take(bump *b, size_t n, size_t align)
{
	size_t at = (b->used + align - 1) & ~(align - 1);
	b->used = at + n;
	return b->base && b->used <= b->cap ? b->base + at : NULL;
}

/* A copy of s[0..n) and a NUL in the region (NULL when counting). */
static char *keep_str(bump *b, const char *s, size_t n)
{
	char *p = take(b, n + 1, 1);
	if (p) {
		memcpy(p, s, n);
		p[n] = 0;
	}
	return p;
}

static tb_status fail_at(tb_source *s, tb_error *err, tb_status st, uint64_t off,
			 const char *what, const char *part)
{
	if (!part) {
		s->part[0] = 0;
	} else if (part != s->part) {
		size_t n = 0;
		while (n < sizeof(s->part) - 1 && part[n])
			n++;
		memcpy(s->part, part, n);
		s->part[n] = 0;
	}
	return tb_fail(err, st, off, what);
}

/* "a/b" ("b" when a is "") into out[TB_SOURCE_PATH_MAX]: 0, or -1 when
 * it does not fit. */
static int join(char *out, const char *a, const char *b)
{
	size_t na = strlen(a), nb = strlen(b), sep = na > 0;
	if (na + sep + nb + 1 > TB_SOURCE_PATH_MAX)
		return -1;
	memmove(out, a, na + 1); /* a may be out; its NUL is overwritten below */
	if (sep)
		out[na] = '/';
	memcpy(out + na + sep, b, nb + 1);
	return 0;
}

/* The N of "cpuN" or "cpuN.raw" (N 1 to 5 digits, below the limit), else -1. */
static long cpu_of(const char *name)
{
	long v = 0;
	int digits = 0;
	if (name[0] != 'c' || name[1] != 'p' || name[2] != 'u')
		return -1;
	for (name += 3; *name >= '0' && *name <= '9'; name++) {
		if (++digits > 5)
			return -1;
		v = v * 10 + (*name - '0');
	}
	if (!digits || v >= (long)TB_SOURCE_MAX_CPUS)
		return -1;
	if (*name && !(name[0] == '.' && name[1] == 'r' && name[2] == 'a' && name[3] == 'w' &&
		       name[4] == 0))
		return -1;
	return v;
}

static const char *base_name(const char *path)
{
	const char *b = path, *p;
	for (p = path; *p; p++)
		if (*p == '/')
			b = p + 1;
	return b;
}

tb_source_kind tb_source_probe(const void *head, size_t len)
{
	if (tb_dat_probe(head, len))
		return TB_SOURCE_DAT;
	if (tb_perf_probe(head, len))
		return TB_SOURCE_PERF;
	return TB_SOURCE_NONE;
}

/* A commit word that is a length: the flags (bits 30, 31) aside, at most
 * 1 MiB, not 0, and nothing in the bits above. */
static int commit_fits(uint64_t raw)
{
	uint64_t len = raw & ((1u << 27) - 1u);
	return (raw >> 32) == 0 && (raw & 0x38000000u) == 0 && len && len <= (1u << 20);
}

int tb_source_detect_order(const void *subbuf, size_t len, unsigned long_size)
{
	const uint8_t *p = subbuf;
	uint64_t le = 0, be = 0;
	unsigned i, n = long_size == 4 ? 4 : 8;
	int l, b;
	if (!p || len < 8 + n)
		return -1;
	for (i = 0; i < n; i++) {
		le |= (uint64_t)p[8 + i] << (8 * i);
		be = be << 8 | p[8 + i];
	}
	l = commit_fits(le);
	b = commit_fits(be);
	return l == b ? -1 : b;
}

/* Load an optional part: TB_OK (span set), TB_NOT_FOUND (span empty), or an error. */
static tb_status optional(tb_source *s, const tb_source_io *io, const char *path, tb_span *out,
			  tb_error *err)
{
	const void *p = NULL;
	size_t n = 0;
	tb_status st = io->load(io->ctx, path, &p, &n);
	out->ptr = NULL;
	out->len = 0;
	if (st == TB_NOT_FOUND)
		return st;
	if (st != TB_OK)
		return fail_at(s, err, st, 0, "cannot be read", path);
	out->ptr = p;
	out->len = n;
	return TB_OK;
}

/* The dumps: counted (b->base NULL: s->src.nraw is the count), then
 * filled, never past that count (a folder may change between the passes). */
static tb_status gather_dumps(tb_source *s, const tb_source_desc *d, const tb_source_io *io,
			      bump *b, tb_error *err)
{
	char name[NAME_CAP];
	size_t i, n = 0, cap = s->src.nraw;
	tb_session_raw_cpu *raw = NULL;
	const char **paths = NULL;
	tb_status st;
	int is_dir;
	if (b->base) {
		raw = take(b, (cap ? cap : 1) * sizeof(*raw), sizeof(uint64_t));
		paths = take(b, (cap ? cap : 1) * sizeof(*paths), sizeof(void *));
		s->src.raw = raw;
		s->dump_paths = paths;
	}
	for (i = 0;; i++) {
		const char *path;
		long cpu;
		if (d->ndumps) {
			if (i == d->ndumps)
				break;
			if (!(path = d->dumps[i]))
				return fail_at(s, err, TB_ERR_ARG, 0, "no path for a dump", "");
			if ((cpu = cpu_of(base_name(path))) < 0)
				cpu = (long)i;
		} else {
			st = io->list(io->ctx, s->folder_, i, name, sizeof(name), &is_dir);
			if (st == TB_END)
				break;
			if (st != TB_OK)
				return fail_at(s, err, st, 0, "cannot list the folder", s->folder_);
			if (is_dir || (cpu = cpu_of(name)) < 0)
				continue;
			if (join(s->scratch_, s->folder_, name) != 0)
				return fail_at(s, err, TB_ERR_LIMIT, 0, "path too long", name);
			path = keep_str(b, s->scratch_, strlen(s->scratch_));
			if (b->base && !path) /* longer names than counted */
				return fail_at(s, err, TB_ERR_ARG, 0,
					       "the folder changed while it was read", s->folder_);
		}
		if (!raw) {
			if (++n > TB_SOURCE_MAX_CPUS)
				return fail_at(s, err, TB_ERR_LIMIT, 0,
					       "more dumps than CPUs the library takes", s->folder_);
			continue;
		}
		if (n == cap)
			break;
		raw[n].cpu = (uint32_t)cpu;
		raw[n].data = NULL;
		raw[n].len = 0;
		paths[n] = path;
		if (!(d->flags & TB_SOURCE_NO_DUMPS)) {
			st = io->load(io->ctx, path, &raw[n].data, &raw[n].len);
			if (st != TB_OK)
				return fail_at(s, err, st, 0, st == TB_NOT_FOUND ? "no such dump"
									: "cannot read the dump", path);
		}
		n++;
	}
	s->src.nraw = n;
	if (!raw) { /* the arrays the fill takes first, with room for their alignment */
		(void)take(b, (n ? n : 1) * sizeof(*raw) + sizeof(uint64_t), 1);
		(void)take(b, (n ? n : 1) * sizeof(*paths) + sizeof(void *), 1);
	}
	/* a folder's dumps in CPU order, and one dump per CPU */
	for (i = 1; raw && !d->ndumps && i < n; i++) {
		tb_session_raw_cpu r = raw[i];
		const char *p = paths[i];
		size_t j = i;
		for (; j > 0 && raw[j - 1].cpu > r.cpu; j--) {
			raw[j] = raw[j - 1];
			paths[j] = paths[j - 1];
		}
		raw[j] = r;
		paths[j] = p;
		if (j > 0 && raw[j - 1].cpu == r.cpu)
			return fail_at(s, err, TB_ERR_DUPLICATE, 0, "a second dump of this CPU", p);
	}
	return TB_OK;
}

/* Every EVENTS/<system>/<event>/format: counted or filled (an event
 * directory without a format is passed over). */
static tb_status gather_formats(tb_source *s, const tb_source_io *io, bump *b, tb_error *err)
{
	const char *events = s->events_;
	char sys[NAME_CAP], ev[NAME_CAP], *sysdir = s->dir_;
	size_t i, j, n = 0, cap = 0;
	tb_session_format_text *texts = NULL;
	tb_status st;
	int is_dir;
	if (b->base) {
		cap = s->src.nformats; /* the count of the first pass */
		texts = take(b, (cap ? cap : 1) * sizeof(*texts), sizeof(void *));
		s->src.formats = texts;
		s->src.nformats = 0;
	} else {
		s->src.nformats = 0;
	}
	for (i = 0; (st = io->list(io->ctx, events, i, sys, sizeof(sys), &is_dir)) == TB_OK; i++) {
		const char *sysname = NULL;
		if (!is_dir)
			continue;
		if (join(sysdir, events, sys) != 0)
			return fail_at(s, err, TB_ERR_LIMIT, 0, "path too long", sys);
		for (j = 0; (st = io->list(io->ctx, sysdir, j, ev, sizeof(ev), &is_dir)) == TB_OK;
		     j++) {
			tb_span text;
			if (!is_dir)
				continue;
			if (!texts) { /* counting */
				if (++n > TB_SOURCE_MAX_FORMATS)
					return fail_at(s, err, TB_ERR_LIMIT, 0,
						       "more event formats than the library takes",
						       events);
				continue;
			}
			if (join(s->scratch_, sysdir, ev) != 0 ||
			    join(s->scratch_, s->scratch_, "format") != 0)
				return fail_at(s, err, TB_ERR_LIMIT, 0, "path too long", ev);
			st = optional(s, io, s->scratch_, &text, err);
			if (st == TB_NOT_FOUND)
				continue;
			if (st != TB_OK)
				return st;
			if (n == cap)
				break; /* more than counted: the folder changed */
			if (!sysname && !(sysname = keep_str(b, sys, strlen(sys))))
				return fail_at(s, err, TB_ERR_ARG, 0,
					       "the folder changed while it was read", events);
			texts[n].system.ptr = sysname;
			texts[n].system.len = strlen(sys);
			texts[n].text = text;
			n++;
		}
		if (st != TB_END && st != TB_OK)
			return fail_at(s, err, st, 0, "cannot list the events directory", sysdir);
		if (!texts)
			(void)keep_str(b, sys, strlen(sys));
	}
	if (st != TB_END)
		return fail_at(s, err, st, 0, "cannot list the events directory", events);
	s->src.nformats = n;
	if (!texts) /* the array the fill takes first */
		(void)take(b, (n ? n : 1) * sizeof(*texts) + sizeof(void *), 1);
	return TB_OK;
}

/* Digits (KiB) and trailing white space: the size in bytes, else 0. */
static uint32_t parse_kb(const char *t, size_t n)
{
	size_t i = 0;
	uint32_t v = 0;
	while (i < n && t[i] >= '0' && t[i] <= '9' && v <= 1024)
		v = v * 10 + (uint32_t)(t[i++] - '0');
	if (i == 0 || v == 0 || v > 1024)
		return 0;
	for (; i < n; i++)
		if (t[i] != ' ' && t[i] != '\n' && t[i] != '\t' && t[i] != '\r')
			return 0;
	v *= 1024;
	return v >= 4096 && (v & (v - 1)) == 0 ? v : 0;
}

/* dir/name into s->scratch_: 0, or the error naming dir. */
static tb_status beside(tb_source *s, const char *dir, const char *name, tb_error *err)
{
	if (join(s->scratch_, dir, name) != 0)
		return fail_at(s, err, TB_ERR_LIMIT, 0, "path too long", dir);
	return TB_OK;
}

/* The header_page: given, beside the dumps, in the events directory. */
static tb_status find_header_page(tb_source *s, const tb_source_desc *d, const tb_source_io *io,
				  tb_span *hp, tb_error *err)
{
	const char *where[2];
	tb_status st;
	size_t i, n;
	if (d->header_page) {
		if ((st = optional(s, io, d->header_page, hp, err)) == TB_NOT_FOUND)
			return fail_at(s, err, st, 0, "no such header_page", d->header_page);
		s->header_page = d->header_page;
		return st;
	}
	where[0] = s->folder_;
	where[1] = s->events_;
	for (i = 0; i < 2; i++) {
		if ((st = beside(s, where[i], "header_page", err)) != TB_OK)
			return st;
		if ((st = optional(s, io, s->scratch_, hp, err)) == TB_NOT_FOUND)
			continue;
		if (st != TB_OK)
			return st;
		n = strlen(s->scratch_);
		memcpy(s->hp_path_, s->scratch_, n + 1);
		s->header_page = s->hp_path_;
		return TB_OK;
	}
	return TB_OK;
}

/* The byte order the first dump that tells says, else `dflt`. */
static int dumps_order(tb_source *s, unsigned long_size, int dflt)
{
	size_t i;
	for (i = 0; i < s->src.nraw; i++) {
		int o = tb_source_detect_order(s->src.raw[i].data, s->src.raw[i].len, long_size);
		if (o >= 0) {
			s->order_detected = 1;
			return o;
		}
	}
	return dflt;
}

/* The texts beside the dumps, the layout, the byte order. */
static tb_status resolve(tb_source *s, const tb_source_desc *d, const tb_source_io *io,
			 tb_error *err)
{
	static const struct {
		const char *name;
		size_t off;
	} tables[] = {
		{ "saved_cmdlines", offsetof(tb_session_source, cmdlines) },
		{ "kallsyms", offsetof(tb_session_source, kallsyms) },
		{ "printk_formats", offsetof(tb_session_source, printk) },
		{ "trace_clock", offsetof(tb_session_source, clock) },
	};
	tb_span hp = { NULL, 0 }, kb;
	tb_kbuf_layout l;
	tb_error e;
	tb_status st;
	size_t i;
	int be = d->byte_order == TB_SOURCE_ORDER_BIG;
	unsigned ls = d->long_size ? d->long_size : 8;
	if ((st = find_header_page(s, d, io, &hp, err)) != TB_OK)
		return st;
	if ((st = beside(s, s->folder_, "subbuf_kb", err)) != TB_OK)
		return st;
	if ((st = optional(s, io, s->scratch_, &kb, err)) == TB_OK) {
		s->subbuf_kb = parse_kb(kb.ptr, kb.len);
		s->subbuf_kb_bad = !s->subbuf_kb;
	} else if (st != TB_NOT_FOUND) {
		return st;
	}
	if (hp.ptr) {
		/* its commit's width, whatever the order */
		if ((st = tb_kbuf_layout_from_header_page(hp.ptr, hp.len, 0, &l, &e)) != TB_OK)
			return fail_at(s, err, st, e.offset, e.what, s->header_page);
		ls = l.long_size;
	}
	if (d->byte_order == TB_SOURCE_ORDER_DETECT)
		be = dumps_order(s, ls, 0);
	if (hp.ptr) {
		if ((st = tb_kbuf_layout_from_header_page(hp.ptr, hp.len, be, &s->layout, &e)) != TB_OK)
			return fail_at(s, err, st, e.offset, e.what, s->header_page);
		s->subbuf_from = TB_SOURCE_FROM_HEADER_PAGE;
	} else {
		uint32_t size = 4096;
		const char *from = "";
		if (d->subbuf_size) {
			size = d->subbuf_size;
			s->subbuf_from = TB_SOURCE_FROM_GIVEN;
		} else if (s->subbuf_kb || s->subbuf_kb_bad) {
			if ((st = beside(s, s->folder_, "subbuf_kb", err)) != TB_OK)
				return st;
			if (s->subbuf_kb_bad)
				return fail_at(s, err, TB_ERR_VALUE, 0,
					       "not a sub-buffer size in KiB (a power of two, 4 to 1024)",
					       s->scratch_);
			size = s->subbuf_kb;
			s->subbuf_from = TB_SOURCE_FROM_SUBBUF_KB;
			from = s->scratch_;
		}
		if ((st = tb_kbuf_layout_init(&s->layout, be, ls, size, 0)) != TB_OK)
			return fail_at(s, err, st, 0,
				       "sub-buffer size is not a power of two from 4 KiB to 1 MiB", from);
	}
	s->src.header_page = hp;
	s->src.subbuf_size = s->layout.subbuf_size;
	s->src.big_endian = s->layout.big_endian;
	s->src.long_size = s->layout.long_size;
	for (i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
		tb_span *t = (tb_span *)(void *)((char *)&s->src + tables[i].off);
		if ((st = beside(s, s->folder_, tables[i].name, err)) != TB_OK)
			return st;
		st = optional(s, io, s->scratch_, t, err);
		if (st != TB_OK && st != TB_NOT_FOUND)
			return st;
	}
	if (d->clock.len)
		s->src.clock = d->clock;
	return TB_OK;
}

/* A path into one of s's buffers: 0, or the error naming it. */
static tb_status copy_path(tb_source *s, char *to, const char *from, size_t n, tb_error *err)
{
	if (n >= TB_SOURCE_PATH_MAX)
		return fail_at(s, err, TB_ERR_LIMIT, 0, "path too long", from);
	memcpy(to, from, n);
	to[n] = 0;
	return TB_OK;
}

static tb_status open_raw(tb_source *s, const tb_source_desc *d, const tb_source_io *io,
			  tb_error *err)
{
	char name[NAME_CAP];
	bump b = { NULL, 0, 0 };
	tb_status st;
	int is_dir, pass;
	/* the folder: the path, or the first dump's directory ("": names
	 * beside a dump without one are its own, as "subbuf_kb") */
	if (!d->ndumps) {
		st = copy_path(s, s->folder_, d->path, strlen(d->path), err);
	} else {
		const char *first = d->dumps[0] ? d->dumps[0] : "";
		size_t n = (size_t)(base_name(first) - first);
		st = n == 0 ? copy_path(s, s->folder_, "", 0, err)
			    : copy_path(s, s->folder_, first, n > 1 ? n - 1 : n, err);
	}
	if (st != TB_OK)
		return st;
	if (d->events)
		st = copy_path(s, s->events_, d->events, strlen(d->events), err);
	else if (join(s->events_, s->folder_, "events") != 0)
		st = fail_at(s, err, TB_ERR_LIMIT, 0, "path too long", s->folder_);
	if (st != TB_OK)
		return st;
	st = io->list(io->ctx, s->events_, 0, name, sizeof(name), &is_dir);
	s->events_found = st == TB_OK || st == TB_END;
	if (d->events && !s->events_found)
		return fail_at(s, err, st, 0, "not an events directory", d->events);
	/* count, take the region, fill */
	for (pass = 0; pass < 2; pass++) {
		b.used = 0;
		if ((st = gather_dumps(s, d, io, &b, err)) != TB_OK)
			return st;
		if (s->events_found && (st = gather_formats(s, io, &b, err)) != TB_OK)
			return st;
		if (pass == 0) {
			b.cap = b.used;
			if (!(b.base = s->mem_.alloc(s->mem_.ctx, b.cap ? b.cap : 1)))
				return fail_at(s, err, TB_ERR_NO_SPACE, 0,
					       "no memory for the list of parts", s->folder_);
			s->region_ = b.base;
			s->region_len_ = b.cap ? b.cap : 1;
		}
	}
	if (!s->src.nraw && !(d->flags & TB_SOURCE_NO_DUMPS))
		return fail_at(s, err, TB_NOT_FOUND, 0, "no trace.dat and no cpuN / cpuN.raw dumps",
			       s->folder_);
	if ((st = resolve(s, d, io, err)) != TB_OK)
		return st;
	s->kind = TB_SOURCE_RAW;
	return TB_OK;
}

tb_status tb_source_open(tb_source *s, const tb_source_desc *d, const tb_source_io *io,
			 const tb_mem *mem, tb_error *err)
{
	char name[NAME_CAP];
	const void *p = NULL;
	size_t n = 0;
	tb_status st;
	int is_dir;
	tb_error_clear(err);
	if (!s)
		return tb_fail(err, TB_ERR_ARG, 0, "no source given");
	memset(s, 0, sizeof(*s));
	if (!d || !io || !io->load || !io->list || !mem || !mem->alloc ||
	    (!d->ndumps && !d->path) || (d->ndumps && !d->dumps))
		return tb_fail(err, TB_ERR_ARG, 0, "incomplete source description");
	s->mem_ = *mem;
	if (d->ndumps)
		return open_raw(s, d, io, err);
	st = io->list(io->ctx, d->path, 0, name, sizeof(name), &is_dir);
	if (st == TB_OK || st == TB_END)
		return open_raw(s, d, io, err);
	if (st != TB_NOT_FOUND)
		return fail_at(s, err, st, 0, "cannot be read", d->path);
	st = io->load(io->ctx, d->path, &p, &n);
	if (st != TB_OK)
		return fail_at(s, err, st, 0, st == TB_NOT_FOUND ? "no such file" : "cannot be read",
			       d->path);
	s->kind = tb_source_probe(p, n);
	if (s->kind == TB_SOURCE_DAT) {
		s->src.dat = p;
		s->src.dat_len = n;
	} else if (s->kind == TB_SOURCE_PERF) {
		s->src.perf = p;
		s->src.perf_len = n;
	} else {
		return fail_at(s, err, TB_ERR_MAGIC, 0,
			       "not a trace.dat, a perf.data or a folder of raw dumps", d->path);
	}
	return TB_OK;
}

void tb_source_close(tb_source *s)
{
	if (!s)
		return;
	if (s->region_ && s->mem_.free)
		s->mem_.free(s->mem_.ctx, s->region_, s->region_len_);
	memset(s, 0, sizeof(*s));
}
