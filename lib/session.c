/*
 * The trace session (see include/tracebound/session.h): one capture,
 * every event merged by time with its format, comm and text.
 *
 * Everything lives in regions the caller's tb_mem hands out.  The
 * decoders do the byte work: tracedat.c (container, merged per-buffer
 * streams), kbuf.c (raw dumps), format.c/field.c (schemas, fields),
 * printfmt (rendering), dattables.c (cmdlines, kallsyms, printk).  This
 * file only ties them together.
 */
#include <string.h>

#include "tracebound/filter.h"
#include "tracebound/session.h"
#include "tracebound/text.h"
#include "tracebound/clock.h"

#include "internal.h"
#include "digits.h"
#include "merge.h"
#include "printfmt.h"
#include "session_perf.h"

#define TB_SESSION_MAX_DAMAGE 64u   /* damage entries kept (more are counted) */
#define TB_SESSION_DAT_ROUNDS 8u    /* tb_dat_open storage rounds */
#define TB_SESSION_MAX_BUFFERS 256u /* buffers (instances) merged */
#define NO_ENTRY UINT32_MAX
/* A walk may decompress at most this many bytes per byte of budget
 * (session.h: TB_SESSION_INFLATE_PER_BUDGET). */
#define INFLATE_PER_BUDGET TB_SESSION_INFLATE_PER_BUDGET

/* The parts of the memory budget (tb_session_need.refused names them). */
static const char part_session[] = "memory budget: the session itself";
static const char part_container[] = "memory budget: the trace.dat tables and decompressed sections";
static const char part_tables[] = "memory budget: the format index and symbol tables";
static const char part_streams[] = "memory budget: the per-CPU cursors and chunk buffers";
static const char part_format[] = "memory budget: an event format's fields";
static const char part_program[] = "memory budget: a print fmt program";
static const char part_render[] = "memory budget: the JSON text buffer";
static const char part_perf[] =
	"memory budget: the perf.data attrs, round queue and task names";
static const char part_inflate[] =
	"decompression budget: the bytes one walk decompresses (16 x the memory budget)";

/* ---- the arena ---- */

#define ALIGN_UP(n) (((n) + 15u) & ~(size_t)15u)

static void *arena_alloc(void *ctx, size_t size)
{
	tb_arena *a = ctx;
	size_t n = ALIGN_UP(size ? size : 1);
	void *p;
	if (n < size || n > a->cap - a->used) {
		size_t want = a->used + n;
		a->want = want < a->used ? SIZE_MAX : want;
		return NULL;
	}
	p = a->base + a->used;
	a->used += n;
	if (a->used > a->peak)
		a->peak = a->used;
	return p;
}

static void arena_free(void *ctx, void *p, size_t size)
{
	tb_arena *a = ctx;
	size_t n = ALIGN_UP(size ? size : 1);
	/* only the newest block can be given back */
	if (p && n <= a->used && (uint8_t *)p == a->base + (a->used - n))
		a->used -= n;
}

void tb_arena_init(tb_arena *a, void *mem, size_t cap)
{
	uintptr_t base = (uintptr_t)mem, adj = (16u - (base & 15u)) & 15u;
	a->base = mem;
	a->cap = mem ? cap : 0;
	if (a->cap >= adj) {
		a->base = (uint8_t *)mem + adj;
		a->cap -= adj;
	} else {
		a->cap = 0;
	}
	a->used = a->peak = a->want = 0;
}

tb_mem tb_arena_mem(tb_arena *a)
{
	tb_mem m;
	m.alloc = arena_alloc;
	m.free = arena_free;
	m.ctx = a;
	return m;
}

/* ---- the session ---- */

/* One format text: its id and, once used, its format and programs. */
/* A slot of the format index: the id beside its entry, so a lookup reads
 * one line of the index and only then its entry. */
typedef struct id_slot {
	uint32_t id, entry;          /* entry + 1, 0 empty */
} id_slot;

typedef struct fmt_entry {
	uint32_t id;
	uint32_t text;           /* index of its text */
	uint32_t nfields;        /* from the open-time parse */
	uint8_t ok;              /* parsed at open */
	uint8_t tried;           /* fields allocated / parse attempted */
	uint8_t prog_tried[2];   /* print, fields listing */
	uint8_t used;            /* a record of it was described (the session's walk) */
	uint32_t pid_off, pid_size;  /* its common_pid (size 0: none) */
	tb_format *fmt;
	tb_render_prog *prog[2];
} fmt_entry;

/* One CPU of a raw dump. */
typedef struct raw_cursor {
	const tb_session_raw_cpu *src;
	tb_kbuf_stream ks;
	tb_kbuf kb;
	tb_kbuf_record recs[TB_DAT_BATCH];
	size_t nrecs, irec;
	int64_t missed;
	int page_open, done;
	uint64_t page_index;
	tb_session_cpu_stats st;
	tb_merge_slot merge;         /* in s->raw_merge */
} raw_cursor;

/* One trace.dat buffer's merged stream. */
typedef struct dat_src {
	const tb_dat_buffer *b;
	tb_dat_stream s;
	tb_dat_cursor *cur;
	uint8_t *chunks;
	size_t chunks_len;
	size_t *caps;                /* per CPU: its part of chunks (tb_dat_chunk_caps) */
	tb_kbuf_layout layout;
	tb_dat_event head;
	int has_head, done;
	tb_session_cpu_stats *cst;   /* per CPU of b */
	tb_merge_slot merge;         /* in s->buf_merge */
} dat_src;

struct tb_session {
	tb_mem mem;
	uint64_t budget;             /* tb_session_open_budget (0: none) */
	uint64_t held, peak;         /* bytes from mem now, and at most */
	tb_session_need nd;          /* parts, refused / asked */
	tb_session_options opt;
	tb_session_source src;
	tb_session_info info;

	/* trace.dat */
	tb_dat d;
	void *dat_store;
	size_t dat_store_len;
	tb_kbuf_layout layout;       /* from header_page (or the raw source) */

	/* formats */
	size_t ntexts;
	tb_session_format_text *texts_; /* trace.dat: built from d.events */
	fmt_entry *fe;
	id_slot *index;              /* id hash: entry + 1, 0 empty */
	size_t index_len;
	tb_field *scratch_fields;    /* TB_FORMAT_MAX_FIELDS, for parsing */
	uint32_t type_off, type_size;
	uint32_t pid_off, pid_size;
	int have_type;

	/* tables */
	tb_cmdlines cmd;
	tb_kallsyms ks;
	tb_printk_fmts pk;
	tb_render_env env;
	tb_render_env env_fields;    /* the -R listing's (payload) */

	/* events */
	dat_src *bufs;
	size_t nbufs;
	tb_session_buffer_info *binfo;
	size_t maxname;              /* longest instance name (report lines) */
	raw_cursor *raw;
	size_t nraw;
	tb_merge buf_merge, raw_merge; /* the buffers, the raw CPUs by time (start_merges) */
	uint64_t last_ts;
	fmt_entry *last_entry;       /* the entry of the last event (rendering looks it up) */
#define LAST_SLOTS 4
	/* Per CPU (cpu % LAST_SLOTS): the last comm lookup, and the last
	 * line's "comm-pid [cpu] " (fast_prefix).  The merge alternates
	 * between CPUs, each in a run of one task's events: on a 2-CPU
	 * capture the task was the last line's for 60% of the lines, its
	 * CPU's last line's for 96%. */
	struct last_task {
		int32_t pid;
		int have, known;
		const char *comm;
		size_t comm_len;
		char pfx[64];
		size_t pfx_len;      /* 0: none */
		const char *pfx_comm; /* for this comm (the session's own), pid and CPU */
		int32_t pfx_pid;
		uint32_t pfx_cpu;
	} task[LAST_SLOTS];
	uint64_t tm_w0;              /* the last line's "%5u.%06u" time (put_time, */
	uint32_t tm_w1;              /* tb_time12's words) */
	uint64_t tm_lo, tm_hi;       /* for the timestamps [lo, hi) (hi 0: none) */
	uint64_t tm_us;
	uint64_t prev_line_ts;       /* TB_TEXT_TSDIFF: the previous line's shown time */
	uint64_t pending_line_ts;
	int have_prev_line;
	tb_span json_file;           /* tb_session_set_json_file (len 0: none) */
	uint64_t win_from, win_to;   /* tb_session_set_window */
	int win_on;
	const uint64_t *keep;        /* tb_session_keep_ids (NULL: every id) */
	size_t keep_words;
	const uint64_t *keep_cpus;   /* tb_session_keep_cpus (NULL: every CPU) */
	size_t keep_cpu_words;
	int leave_out;               /* any of the three: left_out() is asked */
	char *rbuf;                  /* one rendering, for JSON's "text" */
	size_t rcap, rlen;

	/* damage and errors */
	tb_session_damage damage[TB_SESSION_MAX_DAMAGE];
	size_t ndamage, damage_dropped;
	tb_session_error_info last;

	/* regions to give back on close */
	struct region { void *p; size_t n; } regions[16];
	size_t nregions;

	/* parts (the section "parts of a capture" below) */
	int prepared;                /* tb_session_prepare ran: formats are read-only */
	const tb_session *parent;    /* a part: the session it reads */
	struct part_prog *pprog;     /* a part: its own programs, per format text */
	tb_session_mark *start_marks; /* a part: one per CPU of each buffer */
	size_t nmarks;
	int has_from, has_to;
	uint64_t from_raw, to_raw;   /* file clock, before the ts offset */

	/* perf.data (session_perf.c) */
	tb_sperf *perf;
	tb_sperf_item pitem;         /* the sample behind the last event */
};

/* Every byte of the session comes through here: held to the budget
 * before mem is asked (a refusal names the part and says how much). */
static void *mem_get(tb_session *s, size_t n, const char *part)
{
	void *p;
	if (s->budget && (n > s->budget || s->held > s->budget - n)) {
		if (!s->nd.refused) {
			s->nd.refused = part;
			s->nd.asked = n;
		}
		return NULL;
	}
	p = s->mem.alloc(s->mem.ctx, n);
	if (p) {
		s->held += n;
		if (s->held > s->peak)
			s->peak = s->held;
	}
	return p;
}

static void mem_put(tb_session *s, void *p, size_t n)
{
	if (!p || !s->mem.free)
		return; /* an arena without free: held until dropped */
	s->mem.free(s->mem.ctx, p, n);
	s->held -= n;
}

/* The error for an allocation that failed: over the budget, or mem had none. */
static tb_status no_memory(const tb_session *s, tb_error *err, uint64_t off, const char *what)
{
	if (s->nd.refused)
		return tb_fail(err, TB_ERR_BUDGET, off, s->nd.refused);
	return tb_fail(err, TB_ERR_NO_SPACE, off, what);
}

/* What a call whose memory could not be had returns (no error record). */
static tb_status mem_status(const tb_session *s)
{
	return s->nd.refused ? TB_ERR_BUDGET : TB_ERR_NO_SPACE;
}

static void *take_raw(tb_session *s, size_t n, const char *part)
{
	void *p;
	if (s->nregions >= TB_ARRAY_LEN(s->regions))
		return NULL;
	p = mem_get(s, n, part);
	if (!p)
		return NULL;
	s->regions[s->nregions].p = p;
	s->regions[s->nregions].n = n;
	s->nregions++;
	if (part == part_tables)
		s->nd.tables += n;
	else if (part == part_streams)
		s->nd.streams += n;
	return p;
}

/* A zeroed region. */
static void *take(tb_session *s, size_t n, const char *part)
{
	void *p = take_raw(s, n, part);
	if (p)
		memset(p, 0, n);
	return p;
}

/* Give back the newest region (only valid for the one take() returned last). */
static void give_back_last(tb_session *s)
{
	if (!s->nregions)
		return;
	s->nregions--;
	mem_put(s, s->regions[s->nregions].p, s->regions[s->nregions].n);
}

/* Per-format memory is not a region: it is taken and kept separately
 * (not zeroed: every user fills what it reads). */
static void *take_small(tb_session *s, size_t n, const char *part)
{
	void *p = mem_get(s, n, part);
	if (p)
		s->nd.formats += n;
	return p;
}

/* Record damage; the entry (NULL once the list is full: then counted). */
static tb_session_damage *add_damage(tb_session *s, const char *where, tb_status st,
				     uint64_t off, const char *what, size_t index)
{
	tb_session_damage *d;
	if (s->ndamage >= TB_SESSION_MAX_DAMAGE) {
		s->damage_dropped++;
		return NULL;
	}
	d = &s->damage[s->ndamage++];
	memset(d, 0, sizeof(*d));
	d->where = where;
	d->error.status = st;
	d->error.offset = off;
	d->error.what = what;
	d->index = index;
	return d;
}

/* ---- memory of a trace.dat container ---- */

/*
 * The container in salvage mode (tb_dat_open_ex, TB_DAT_OPEN_SALVAGE): a
 * sound file opens exactly as without it, a cut or damaged one keeps what
 * is valid and lists the rest.  The storage rounds tracedat.c asks for
 * happen here, in one region given back before the next is taken.
 */
static tb_status open_container(tb_session *s, const void *data, size_t len, unsigned flags,
				tb_error *err)
{
	tb_dat_storage st;
	tb_dat_open_opts oo;
	const tb_dat_decompressor *dc = s->src.decompress.fn ? &s->src.decompress : NULL;
	unsigned round;
	tb_status r = TB_ERR_NO_SPACE;
	memset(&st, 0, sizeof(st));
	memset(&oo, 0, sizeof(oo));
	oo.flags = TB_DAT_OPEN_SALVAGE | flags;
	for (round = 0; round < TB_SESSION_DAT_ROUNDS; round++) {
		size_t sz[6], off[6], total = 0, i;
		uint8_t *p;
		r = tb_dat_open_ex(&s->d, data, len, &st, dc, &oo, err);
		/* again with room for the damage list when it did not fit (damage
		 * past the room is counted, not an error) */
		if (r != TB_ERR_NO_SPACE &&
		    !(r == TB_OK && s->d.ndamage < s->d.damage_total &&
		      oo.damage_cap < TB_SESSION_MAX_DAMAGE))
			break;
		if (s->d.need.damage < s->d.damage_total)
			s->d.need.damage = s->d.damage_total;
		sz[0] = s->d.need.events * sizeof(tb_dat_event_text);
		sz[1] = s->d.need.buffers * sizeof(tb_dat_buffer);
		sz[2] = s->d.need.cpus * sizeof(tb_dat_cpu);
		sz[3] = s->d.need.cpustats * sizeof(tb_dat_text);
		sz[4] = s->d.need.scratch;
		sz[5] = (s->d.need.damage < TB_SESSION_MAX_DAMAGE ? s->d.need.damage
								  : TB_SESSION_MAX_DAMAGE) *
			sizeof(tb_dat_damage);
		for (i = 0; i < 6; i++) {
			off[i] = total;
			if (sz[i] > SIZE_MAX / 4 || total > SIZE_MAX / 4) {
				if (s->budget && !s->nd.refused) { /* past any budget */
					s->nd.refused = part_container;
					s->nd.asked = UINT64_MAX;
				}
				return no_memory(s, err, 0, "trace.dat tables too large");
			}
			total += ALIGN_UP(sz[i]);
		}
		if (s->dat_store) {
			give_back_last(s);
			s->dat_store = NULL;
		}
		s->nd.sections = s->d.need.scratch;
		s->nd.container = total;
		p = take(s, total ? total : 1, part_container);
		if (!p)
			return no_memory(s, err, 0, "no memory for the trace.dat tables");
		s->dat_store = p;
		s->dat_store_len = total;
		st.events = (tb_dat_event_text *)(void *)(p + off[0]);
		st.events_cap = s->d.need.events;
		st.buffers = (tb_dat_buffer *)(void *)(p + off[1]);
		st.buffers_cap = s->d.need.buffers;
		st.cpus = (tb_dat_cpu *)(void *)(p + off[2]);
		st.cpus_cap = s->d.need.cpus;
		st.cpustats = (tb_dat_text *)(void *)(p + off[3]);
		st.cpustats_cap = s->d.need.cpustats;
		st.scratch = p + off[4];
		st.scratch_cap = s->d.need.scratch;
		oo.damage = (tb_dat_damage *)(void *)(p + off[5]);
		oo.damage_cap = sz[5] / sizeof(tb_dat_damage);
	}
	s->d.read = s->src.read;
	s->d.read_ctx = s->src.read_ctx;
	return r;
}

/* What the container's salvage lost, and table slack, as session damage. */
static void container_damage(tb_session *s)
{
	size_t i;
	for (i = 0; i < s->d.ndamage; i++) {
		const tb_dat_damage *dm = &s->d.damage[i];
		tb_session_damage *d = add_damage(s, tb_dat_part_name(dm->part), dm->error.status,
						  dm->error.offset, dm->error.what, dm->buffer);
		if (d) {
			d->cpu = dm->cpu;
			d->length = dm->length;
			d->missing = dm->missing;
			d->units = dm->units;
			d->cut = dm->part == TB_DAT_PART_CPU_DATA;
		}
	}
	s->damage_dropped += s->d.damage_total - s->d.ndamage;
	if (s->d.slack_bytes) {
		tb_session_damage *d = add_damage(s, "table", TB_ERR_LENGTH, s->d.slack_offset,
						  "a table section holds bytes past its declared "
						  "size (ignored, as trace-cmd does)", 0);
		if (d)
			d->length = s->d.slack_bytes;
	}
}

/* ---- formats ---- */

static size_t pow2_at_least(size_t n)
{
	size_t p = 16;
	while (p < n && p < ((size_t)1 << 30))
		p <<= 1;
	return p;
}

static uint32_t id_hash(uint32_t id, size_t len)
{
	return (uint32_t)((id * 2654435761u) & (uint32_t)(len - 1));
}

static fmt_entry *entry_of(const tb_session *s, uint32_t id)
{
	size_t i, n;
	if (!s->index_len)
		return NULL;
	i = id_hash(id, s->index_len);
	for (n = 0; n < s->index_len; n++) {
		const id_slot *sl = &s->index[i];
		if (!sl->entry)
			return NULL;
		if (sl->id == id)
			return &s->fe[sl->entry - 1];
		i = (i + 1) & (s->index_len - 1);
	}
	return NULL;
}

/*
 * Damage at in_text in a text of the capture (a format, a table, the
 * header_page) starting at ptr, file_off as tracedat.h gives it.  The
 * error's offset is in the file: the faulty byte's when the text lies in
 * the file; a text decompressed from a v7 section has no bytes there, so
 * its section's offset stands for it.  text_offset keeps in_text either
 * way (raw dumps: the caller's texts, offsets in them).
 */
static void add_text_damage(tb_session *s, const char *where, tb_status st, const char *ptr,
			    uint64_t file_off, uint64_t in_text, const char *what, size_t index)
{
	uintptr_t p = (uintptr_t)ptr, f = (uintptr_t)s->d.file;
	uint64_t off = in_text;
	tb_session_damage *d;
	if (s->src.dat)
		off = p >= f && p - f <= s->d.len && in_text <= s->d.len - (p - f)
			      ? file_off + in_text : file_off;
	d = add_damage(s, where, st, off, what, index);
	if (d)
		d->text_offset = in_text;
}

static void add_format_damage(tb_session *s, tb_status st, size_t i, uint64_t in_text,
			      const char *what)
{
	const tb_dat_text *t = s->src.dat ? &s->d.events[i].format : NULL;
	add_text_damage(s, "event format", st, t ? t->ptr : NULL, t ? t->offset : 0, in_text,
			what, i);
}

static void index_entry(tb_session *s, uint32_t i)
{
	size_t h = id_hash(s->fe[i].id, s->index_len);
	while (s->index[h].entry)
		h = (h + 1) & (s->index_len - 1);
	s->index[h].id = s->fe[i].id;
	s->index[h].entry = i + 1;
}

/* The common_type and common_pid layout, from the first format that
 * parses whole (every format of a kernel shares the common fields). */
static void learn_common(tb_session *s, const tb_format *f)
{
	const tb_field *pf = tb_format_field(f, "common_pid");
	if (f->type_field >= 0) {
		s->type_off = f->fields[f->type_field].offset;
		s->type_size = f->fields[f->type_field].size;
	}
	if (pf) {
		s->pid_off = pf->offset;
		s->pid_size = pf->size;
	}
	s->have_type = 1;
}

/*
 * Index every format text by its ID without parsing its fields: the one
 * format parser reads the name: and ID: lines and stops at the first field
 * for want of room (tb_format_parse fills name and id before that), so the
 * ID is read by the same grammar that parses the format later, on the
 * first record of that id.
 */
static tb_status load_formats(tb_session *s, tb_error *err)
{
	size_t i, n = s->ntexts;
	s->fe = take(s, (n ? n : 1) * sizeof(fmt_entry), part_tables);
	s->index_len = pow2_at_least(2 * n + 1);
	s->index = s->fe ? take(s, s->index_len * sizeof(id_slot), part_tables) : NULL;
	s->scratch_fields = s->index ? take(s, TB_FORMAT_MAX_FIELDS * sizeof(tb_field),
					    part_tables) : NULL;
	if (!s->scratch_fields)
		return no_memory(s, err, 0, "no memory for the format index");
	s->type_off = 0;
	s->type_size = 2;
	s->pid_off = 4;
	s->pid_size = 4;
	for (i = 0; i < n; i++) {
		const tb_session_format_text *t = &s->texts_[i];
		fmt_entry *e = &s->fe[i];
		tb_format f;
		tb_format_error fe;
		tb_status st;
		memset(&f, 0, sizeof(f));
		e->text = (uint32_t)i;
		if (!s->have_type) {
			st = tb_format_parse(t->text.ptr, t->text.len, s->scratch_fields,
					     TB_FORMAT_MAX_FIELDS, s->info.long_size, &f, &fe);
			if (st == TB_OK)
				learn_common(s, &f);
		} else {
			st = tb_format_parse(t->text.ptr, t->text.len, NULL, 0, s->info.long_size,
					     &f, &fe);
		}
		if (st != TB_OK && !(st == TB_ERR_NO_SPACE && f.name)) {
			add_format_damage(s, st, i, fe.error.offset, fe.error.what);
			continue;
		}
		e->id = f.id;
		if (entry_of(s, f.id)) {
			add_format_damage(s, TB_ERR_DUPLICATE, i, 0,
					  "a second format with the same ID (the first is used)");
			continue;
		}
		e->ok = 1;
		index_entry(s, (uint32_t)i);
	}
	return TB_OK;
}

/* The parsed format of an entry (parsed into its own memory on first
 * use).  NULL when it does not parse (once: listed as damage) or when mem
 * refused its fields: then e->tried is 0 again (see format_refused), so
 * the next use asks again. */
static const tb_format *entry_format(tb_session *s, fmt_entry *e)
{
	const tb_session_format_text *t;
	tb_format_error fe;
	tb_format f, *out;
	tb_status st;
	uint8_t *p;
	size_t fsz = ALIGN_UP(sizeof(tb_format));
	if (e->tried)
		return e->fmt;
	e->tried = 1;
	t = &s->texts_[e->text];
	st = tb_format_parse(t->text.ptr, t->text.len, s->scratch_fields, TB_FORMAT_MAX_FIELDS,
			     s->info.long_size, &f, &fe);
	if (st != TB_OK) {
		add_format_damage(s, st, e->text, fe.error.offset, fe.error.what);
		return NULL;
	}
	e->nfields = f.nfields;
	p = take_small(s, fsz + (size_t)f.nfields * sizeof(tb_field), part_format);
	if (!p) {
		e->tried = 0;
		return NULL;
	}
	out = (tb_format *)(void *)p;
	*out = f;
	memcpy(p + fsz, s->scratch_fields, (size_t)f.nfields * sizeof(tb_field));
	out->fields = (const tb_field *)(void *)(p + fsz);
	out->system = t->system.ptr;
	out->system_len = t->system.len;
	e->fmt = out;
	{
		const tb_field *pf = tb_format_field(out, "common_pid");
		e->pid_off = pf ? pf->offset : s->pid_off;
		e->pid_size = pf ? pf->size : s->pid_size;
	}
	return out;
}

const tb_format *tb_session_format(tb_session *s, uint32_t id)
{
	fmt_entry *e = s ? entry_of(s, id) : NULL;
	return e ? entry_format(s, e) : NULL;
}

const tb_format *tb_session_find_format(tb_session *s, const char *system, const char *name)
{
	size_t i;
	if (!s || !name)
		return NULL;
	for (i = 0; i < s->ntexts; i++) {
		const tb_format *f;
		if (!s->fe[i].ok)
			continue;
		f = entry_format(s, &s->fe[i]);
		if (!f || !tb_span_eq(f->name, f->name_len, name))
			continue;
		if (system && !(f->system && tb_span_eq(f->system, f->system_len, system)))
			continue;
		return f;
	}
	return NULL;
}

int tb_session_format_at(const tb_session *s, size_t i, tb_span *system, tb_span *text,
			 uint32_t *id)
{
	if (!s || i >= s->ntexts)
		return 0;
	if (system)
		*system = s->texts_[i].system;
	if (text)
		*text = s->texts_[i].text;
	if (!s->fe[i].ok)
		return 0;
	if (id)
		*id = s->fe[i].id;
	return 1;
}

/* ---- tables ---- */

static int printk_lookup(void *ctx, uint64_t addr, const char **str, size_t *len)
{
	const tb_printk_fmt *p = tb_printk_find(ctx, addr);
	if (!p)
		return 0;
	*str = p->fmt;
	*len = p->fmt_len;
	return 1;
}

/* A table's parse error e (offset in its text t: for raw dumps the
 * caller's, with t zero) as damage. */
static void table_damage(tb_session *s, const char *where, const tb_dat_text *t,
			 const tb_error *e)
{
	add_text_damage(s, where, e->status, t->ptr, t->offset, e->offset, e->what, 0);
}

static tb_status load_tables(tb_session *s, const tb_span *cmd, const tb_span *ks,
			     const tb_span *pk, tb_error *err)
{
	tb_error e;
	s->cmd.cap = tb_cmdlines_count(cmd->ptr, cmd->len);
	s->ks.cap = tb_kallsyms_count(ks->ptr, ks->len);
	s->pk.cap = tb_printk_count(pk->ptr, pk->len);
	/* the parsers fill what they count: no need to zero */
	s->cmd.v = take_raw(s, (s->cmd.cap + 1) * sizeof(tb_cmdline), part_tables);
	s->ks.v = s->cmd.v ? take_raw(s, (s->ks.cap + 1) * sizeof(tb_ksym), part_tables) : NULL;
	s->pk.v = s->ks.v ? take_raw(s, (s->pk.cap + 1) * sizeof(tb_printk_fmt), part_tables)
			  : NULL;
	if (!s->pk.v)
		return no_memory(s, err, 0, "no memory for the symbol tables");
	if (cmd->len && tb_cmdlines_parse(&s->cmd, cmd->ptr, cmd->len, &e))
		table_damage(s, "saved cmdlines", &s->d.cmdlines, &e);
	if (ks->len && tb_kallsyms_parse(&s->ks, ks->ptr, ks->len, &e))
		table_damage(s, "kallsyms", &s->d.kallsyms, &e);
	if (pk->len && tb_printk_parse(&s->pk, pk->ptr, pk->len, &e))
		table_damage(s, "printk formats", &s->d.printk, &e);
	/* symbols from the table: the alias rule session.h documents, and
	 * sizes for the kernel's "%pS" (fn+0x10/0x2a0) */
	s->env.sym = NULL;
	s->env.ksyms = &s->ks;
	s->env.ksym_how = (s->opt.flags & TB_SESSION_KSYM_ALIASES_NEWEST) ? TB_KSYM_LAST
									: TB_KSYM_FIRST;
	s->env.printk = printk_lookup;
	s->env.printk_ctx = &s->pk;
	/* trace-cmd -R names symbols as libtraceevent finds them */
	s->env_fields = s->env;
	s->env_fields.ksym_how = TB_KSYM_TEP;
	return TB_OK;
}

const tb_cmdlines *tb_session_cmdlines(const tb_session *s) { return s ? &s->cmd : NULL; }
const tb_kallsyms *tb_session_kallsyms(const tb_session *s) { return s ? &s->ks : NULL; }
const tb_printk_fmts *tb_session_printk(const tb_session *s) { return s ? &s->pk : NULL; }

const char *tb_session_comm(const tb_session *s, int32_t pid, size_t *len, int *known)
{
	const tb_cmdline *c;
	if (known)
		*known = 0;
	if (pid == 0) {
		*len = 6;
		return "<idle>";
	}
	c = s ? tb_cmdlines_find(&s->cmd, pid) : NULL;
	if (!c) {
		*len = 5;
		return "<...>";
	}
	if (known)
		*known = 1;
	*len = c->comm_len;
	return c->comm;
}

/* ---- clocks ---- */

/* The OFFSET option: a decimal (or 0x) signed number of ns. */
static int64_t parse_ts_offset(const tb_dat_text *t)
{
	const char *p = t->ptr;
	size_t n = t->len, i = 0;
	uint64_t v = 0;
	int neg = 0;
	while (n && (p[n - 1] == '\0' || p[n - 1] == '\n' || p[n - 1] == ' '))
		n--;
	if (i < n && (p[i] == '-' || p[i] == '+'))
		neg = p[i++] == '-';
	if (i + 2 <= n && p[i] == '0' && (p[i + 1] == 'x' || p[i + 1] == 'X')) {
		if (!tb_parse_hex64(p + i + 2, n - i - 2, &v))
			return 0;
	} else if (!tb_parse_u64(p + i, n - i, &v)) {
		return 0;
	}
	if (v > (uint64_t)INT64_MAX)
		return 0;
	return neg ? -(int64_t)v : (int64_t)v;
}

/* ---- opening ---- */

/* (Re)start the merged stream of one buffer, its chunk memory laid out
 * as its CPUs hold it. */
static tb_status stream_start(const tb_session *s, dat_src *ds, tb_error *err)
{
	return tb_dat_stream_init_caps(&ds->s, &s->d, ds->b, &ds->layout, ds->cur, ds->b->ncpus,
				       ds->chunks, ds->caps, ds->s.flags, err);
}

static tb_status open_dat_buffers(tb_session *s, tb_error *err)
{
	size_t i, n = 0;
	uint32_t maxcpus = 0;
	for (i = 0; i < s->d.nbuffers; i++)
		if (!s->d.buffers[i].latency && s->d.buffers[i].ncpus)
			n++;
	if (n > TB_SESSION_MAX_BUFFERS)
		return tb_fail(err, TB_ERR_LIMIT, 0, "more buffers than the session merges");
	s->bufs = take(s, (n ? n : 1) * sizeof(dat_src), part_streams);
	s->binfo = s->bufs ? take(s, (n ? n : 1) * sizeof(tb_session_buffer_info), part_streams)
			   : NULL;
	if (!s->binfo)
		return no_memory(s, err, 0, "no memory for the buffers");
	for (i = 0; i < s->d.nbuffers; i++) {
		const tb_dat_buffer *b = &s->d.buffers[i];
		dat_src *ds = &s->bufs[s->nbufs];
		tb_session_buffer_info *bi = &s->binfo[s->nbufs];
		size_t chunks = 0;
		tb_status st;
		tb_error e;
		if (b->latency || !b->ncpus)
			continue;
		ds->b = b;
		ds->layout = s->layout;
		if (b->page_size != s->layout.subbuf_size &&
		    tb_kbuf_layout_init_ex(&ds->layout, s->layout.big_endian, s->layout.long_size,
					   s->layout.header_size, b->page_size,
					   s->layout.flags) != TB_OK) {
			add_damage(s, "buffer", TB_ERR_VALUE, b->section_offset,
				   "buffer page size unusable for the sub-buffer walker", i);
			continue;
		}
		/* one region of cursors, counts and chunk sizes; then the
		 * chunks, each CPU's what it holds (known before they are
		 * taken) */
		ds->cur = take(s, ALIGN_UP(b->ncpus * sizeof(tb_dat_cursor)) +
					  ALIGN_UP(b->ncpus * sizeof(tb_session_cpu_stats)) +
					  b->ncpus * sizeof(size_t),
			       part_streams);
		if (!ds->cur)
			return no_memory(s, err, b->section_offset,
					 "no memory for the buffer's cursors");
		ds->cst = (tb_session_cpu_stats *)(void *)((uint8_t *)ds->cur +
							   ALIGN_UP(b->ncpus * sizeof(tb_dat_cursor)));
		ds->caps = (size_t *)(void *)((uint8_t *)ds->cst +
					      ALIGN_UP(b->ncpus * sizeof(tb_session_cpu_stats)));
		if ((st = tb_dat_chunk_caps(&s->d, b, ds->caps, &chunks, &e)) != TB_OK) {
			s->nd.streams -= s->regions[s->nregions - 1].n;
			give_back_last(s);
			add_damage(s, "buffer", st, e.offset, e.what, i);
			continue;
		}
		ds->chunks_len = chunks;
		ds->chunks = chunks ? take(s, chunks, part_streams) : NULL;
		if (chunks && !ds->chunks)
			return no_memory(s, err, b->section_offset,
					 "no memory for the buffer's chunks");
		ds->s.flags = (s->opt.flags & TB_SESSION_TC_DROPS) ? TB_DAT_STREAM_TC_DROPS : 0u;
		st = stream_start(s, ds, &e);
		if (st != TB_OK) {
			add_damage(s, "buffer", st, e.offset, e.what, i);
			continue;
		}
		bi->name.ptr = b->name.ptr;
		bi->name.len = b->name.len;
		if (b->clock.len) {
			bi->clock = tb_clock_parse(b->clock.ptr, b->clock.len);
		} else {
			const tb_dat_text *t = s->d.v6_clock.len ? &s->d.v6_clock : &s->d.trace_clock;
			bi->clock = tb_clock_parse(t->ptr, t->len);
		}
		bi->ncpus = (uint32_t)b->ncpus;
		bi->page_size = b->page_size;
		bi->ns_clock = tb_clock_counts_ns(bi->clock);
		if (bi->ncpus > maxcpus)
			maxcpus = bi->ncpus;
		if (b->name.len > s->maxname)
			s->maxname = b->name.len;
		s->nbufs++;
	}
	s->info.ncpus = s->d.version < 7 ? s->d.cpu_count : maxcpus;
	if (s->d.version >= 7 && s->d.has_cpu_count) {
		/* trace-cmd's count: the CPUCOUNT option, or past the top
		 * buffer's highest CPU (its table may skip empty CPUs) */
		uint32_t count = s->d.cpu_count;
		for (i = 0; i < s->d.nbuffers; i++) {
			const tb_dat_buffer *b = &s->d.buffers[i];
			size_t k;
			for (k = 0; !b->name.len && !b->latency && k < b->ncpus; k++)
				if (b->cpus[k].cpu >= count && b->cpus[k].cpu < UINT32_MAX)
					count = b->cpus[k].cpu + 1u;
		}
		s->info.ncpus = count;
	}
	s->info.nbuffers = s->nbufs;
	if (s->nbufs)
		s->info.clock = s->binfo[0].clock;
	return TB_OK;
}

/* The formats and tables of the container (a trace.dat's, or a
 * perf.data's tracing data). */
static tb_status dat_tables(tb_session *s, tb_error *err)
{
	tb_status st;
	tb_error e;
	size_t i;
	tb_span cmd, ks, pk;
	s->info.big_endian = s->d.big_endian;
	s->info.long_size = s->d.long_size;
	s->info.uname.ptr = s->d.uname.ptr;
	s->info.uname.len = s->d.uname.len;
	s->info.tracer_version.ptr = s->d.tc_version.ptr;
	s->info.tracer_version.len = s->d.tc_version.len;
	s->info.compression.ptr = s->d.compression.ptr;
	s->info.compression.len = s->d.compression.len;
	if (!(s->opt.flags & TB_SESSION_NO_TS_OFFSET) && s->d.ts_offset.len)
		s->info.ts_offset = parse_ts_offset(&s->d.ts_offset);
	st = tb_kbuf_layout_from_header_page(s->d.header_page.ptr, s->d.header_page.len,
					     s->d.big_endian, &s->layout, &e);
	if (st != TB_OK) {
		/* without a usable header_page: the layout every kernel writes for
		 * this long size and page size (the damage says why) */
		add_text_damage(s, "header_page", st, s->d.header_page.ptr, s->d.header_page.offset,
				e.offset <= s->d.header_page.len ? e.offset : 0, e.what, 0);
		st = tb_kbuf_layout_init(&s->layout, s->d.big_endian, s->d.long_size,
					 s->d.page_size, 0);
		if (st != TB_OK) /* the file's page size (under 4096): its value */
			return tb_fail(err, TB_ERR_VALUE, 0,
				       "no header_page and a page size no sub-buffer can have");
	}
	s->ntexts = s->d.nevents;
	s->texts_ = take(s, (s->ntexts ? s->ntexts : 1) * sizeof(tb_session_format_text),
			 part_tables);
	if (!s->texts_)
		return no_memory(s, err, 0, "no memory for the format list");
	for (i = 0; i < s->ntexts; i++) {
		s->texts_[i].system.ptr = s->d.events[i].system.ptr;
		s->texts_[i].system.len = s->d.events[i].system.len;
		s->texts_[i].text.ptr = s->d.events[i].format.ptr;
		s->texts_[i].text.len = s->d.events[i].format.len;
	}
	s->info.nformats = s->ntexts;
	if ((st = load_formats(s, err)) != TB_OK)
		return st;
	cmd.ptr = s->d.cmdlines.ptr;
	cmd.len = s->d.cmdlines.len;
	ks.ptr = s->d.kallsyms.ptr;
	ks.len = s->d.kallsyms.len;
	if (s->src.perf && s->src.kallsyms.len)
		ks = s->src.kallsyms; /* perf writes none: the caller's */
	pk.ptr = s->d.printk.ptr;
	pk.len = s->d.printk.len;
	return load_tables(s, &cmd, &ks, &pk, err);
}

static tb_status open_dat(tb_session *s, tb_error *err)
{
	tb_status st;
	if ((st = open_container(s, s->src.dat, s->src.dat_len, 0, err)) != TB_OK)
		return st;
	container_damage(s);
	s->info.is_dat = 1;
	s->info.dat_version = s->d.version;
	if ((st = dat_tables(s, err)) != TB_OK)
		return st;
	return open_dat_buffers(s, err);
}

/* ---- perf.data (session_perf.c does the walk) ---- */

static void *perf_get(void *ctx, size_t n)
{
	tb_session *s = ctx;
	void *p = mem_get(s, n, part_perf);
	if (p)
		s->nd.streams += n;
	return p;
}

static void perf_put(void *ctx, void *p, size_t n)
{
	tb_session *s = ctx;
	if (!p)
		return;
	mem_put(s, p, n);
	s->nd.streams -= n;
}

/* A tracepoint's system and name by its id, for the attrs' names. */
static int perf_format_name(void *ctx, uint64_t id, tb_span *sys, tb_span *name)
{
	const tb_format *f = id <= UINT32_MAX ? tb_session_format(ctx, (uint32_t)id) : NULL;
	if (!f || !f->system)
		return 0;
	sys->ptr = f->system;
	sys->len = f->system_len;
	name->ptr = f->name;
	name->len = f->name_len;
	return 1;
}

static tb_status open_perf(tb_session *s, tb_error *err)
{
	tb_sperf_mem m;
	const uint8_t *tr;
	size_t trn;
	tb_status st;
	tb_span none = { NULL, 0 };
	m.get = perf_get;
	m.put = perf_put;
	m.ctx = s;
	if ((st = tb_sperf_open(&s->perf, s->src.perf, s->src.perf_len, &m, &tr, &trn, err)) !=
	    TB_OK)
		return st;
	s->info.is_perf = 1;
	s->info.long_size = 8;
	if (trn) {
		if ((st = open_container(s, tr, trn, TB_DAT_OPEN_PERF_TRACING, err)) != TB_OK)
			return st;
		container_damage(s);
		if ((st = dat_tables(s, err)) != TB_OK)
			return st;
	} else {
		s->texts_ = take(s, sizeof(tb_session_format_text), part_tables);
		if (!s->texts_ || (st = load_formats(s, err)) != TB_OK ||
		    (st = load_tables(s, &none, &s->src.kallsyms, &none, err)) != TB_OK)
			return s->texts_ ? st : no_memory(s, err, 0, "no memory for the format list");
	}
	s->info.big_endian = tb_sperf_perf(s->perf)->big_endian;
	tb_sperf_name(s->perf, perf_format_name, s);
	s->binfo = take(s, sizeof(tb_session_buffer_info), part_streams);
	if (!s->binfo)
		return no_memory(s, err, 0, "no memory for the buffer");
	s->binfo->clock.ptr = "perf";
	s->binfo->clock.len = 4;
	s->binfo->ncpus = tb_sperf_ncpus(s->perf);
	s->binfo->ns_clock = 1;
	s->info.clock = s->binfo->clock;
	s->info.ncpus = s->binfo->ncpus;
	s->info.nbuffers = 1;
	return TB_OK;
}

static tb_status open_raw(tb_session *s, tb_error *err)
{
	const tb_session_source *src = &s->src;
	tb_status st;
	size_t i;
	uint32_t maxcpu = 0;
	unsigned ls = src->long_size ? src->long_size : 8;
	s->info.big_endian = src->big_endian ? 1 : 0;
	s->info.long_size = ls;
	if (src->header_page.len) {
		tb_error e;
		st = tb_kbuf_layout_from_header_page(src->header_page.ptr, src->header_page.len,
						     s->info.big_endian, &s->layout, &e);
		if (st != TB_OK)
			return tb_fail(err, st, e.offset, e.what);
		if (src->subbuf_size && src->subbuf_size != s->layout.subbuf_size &&
		    (st = tb_kbuf_layout_init_ex(&s->layout, s->layout.big_endian,
						 s->layout.long_size, s->layout.header_size,
						 src->subbuf_size, s->layout.flags)) != TB_OK)
			return tb_fail(err, st, 0, "sub-buffer size unusable with this header_page");
		s->info.long_size = s->layout.long_size;
	} else if ((st = tb_kbuf_layout_init(&s->layout, s->info.big_endian, ls,
					     src->subbuf_size ? src->subbuf_size : 4096u, 0)) !=
		   TB_OK) {
		return tb_fail(err, st, 0, "sub-buffer size is not a power of two in 4 KiB..1 MiB");
	}
	s->ntexts = src->nformats;
	s->texts_ = (tb_session_format_text *)(uintptr_t)src->formats; /* borrowed, read only */
	s->info.nformats = s->ntexts;
	if ((st = load_formats(s, err)) != TB_OK)
		return st;
	if ((st = load_tables(s, &src->cmdlines, &src->kallsyms, &src->printk, err)) != TB_OK)
		return st;
	s->nraw = src->nraw;
	s->raw = take(s, (s->nraw ? s->nraw : 1) * sizeof(raw_cursor), part_streams);
	s->binfo = s->raw ? take(s, sizeof(tb_session_buffer_info), part_streams) : NULL;
	if (!s->binfo)
		return no_memory(s, err, 0, "no memory for the raw cursors");
	for (i = 0; i < s->nraw; i++) {
		s->raw[i].src = &src->raw[i];
		tb_kbuf_stream_init(&s->raw[i].ks, &s->layout, src->raw[i].data, src->raw[i].len);
		if (src->raw[i].cpu + 1 > maxcpu)
			maxcpu = src->raw[i].cpu + 1;
	}
	s->binfo->clock = tb_clock_parse(src->clock.ptr, src->clock.len);
	s->binfo->ncpus = (uint32_t)s->nraw;
	s->binfo->page_size = s->layout.subbuf_size;
	s->binfo->ns_clock = tb_clock_counts_ns(s->binfo->clock);
	s->info.clock = s->binfo->clock;
	s->info.ncpus = maxcpu;
	s->info.nbuffers = 1;
	s->nbufs = 0;
	return TB_OK;
}

/* The merges of the buffers' and the raw CPUs' next events, from the
 * start (after open, rewind, and a part's positioning). */
static tb_status start_merges(tb_session *s, tb_error *err)
{
	if (tb_merge_init_(&s->buf_merge, s->nbufs ? &s->bufs[0].merge : NULL, sizeof(dat_src),
			   s->nbufs) != TB_OK ||
	    tb_merge_init_(&s->raw_merge, s->nraw ? &s->raw[0].merge : NULL, sizeof(raw_cursor),
			   s->nraw) != TB_OK)
		return tb_fail(err, TB_ERR_LIMIT, 0, "too many sources to merge");
	return TB_OK;
}

/* The bytes decompression makes in one walk: the sections, and every
 * chunk of compressed CPU data as its header declares it. */
static void count_decompressed(tb_session *s)
{
	size_t i, k;
	s->nd.decompressed = s->d.need.scratch;
	for (i = 0; i < s->nbufs; i++) {
		for (k = 0; s->bufs[i].b->compressed && k < s->bufs[i].b->ncpus; k++) {
			tb_session_cpu_data cd;
			tb_error e;
			if (tb_session_cpu_data_at(s, i, k, &cd, &e) == TB_OK)
				s->nd.decompressed += cd.data_size;
		}
	}
}

/* What one walk would decompress, held to its multiple of the budget
 * before a CPU chunk is inflated (the sections, inflated by the open,
 * were in granted memory).  asked: the budget that would admit it. */
static tb_status inflate_within_budget(tb_session *s, tb_error *err)
{
	uint64_t b = s->budget;
	if (!b || b > UINT64_MAX / INFLATE_PER_BUDGET ||
	    s->nd.decompressed <= b * INFLATE_PER_BUDGET)
		return TB_OK;
	s->nd.refused = part_inflate;
	s->nd.asked = s->nd.decompressed / INFLATE_PER_BUDGET + 1;
	return tb_fail(err, TB_ERR_BUDGET, 0, part_inflate);
}

tb_status tb_session_open_budget(tb_session **out, const tb_session_source *src,
				 const tb_session_options *opt, const tb_mem *mem,
				 uint64_t max_memory, tb_session_need *need, tb_error *err)
{
	tb_session *s;
	tb_status st;
	tb_error_clear(err);
	if (need) {
		memset(need, 0, sizeof(*need));
		need->budget = max_memory;
	}
	if (!out || !src || !mem || !mem->alloc)
		return tb_fail(err, TB_ERR_ARG, 0, "NULL argument");
	*out = NULL;
	if (!src->dat && !src->perf && src->nraw && !src->raw)
		return tb_fail(err, TB_ERR_ARG, 0, "raw dumps without their array");
	if (!src->dat && src->nformats && !src->formats)
		return tb_fail(err, TB_ERR_ARG, 0, "format texts without their array");
	if (max_memory && max_memory < sizeof(*s)) {
		if (need) {
			need->refused = part_session;
			need->asked = need->total = sizeof(*s);
		}
		return tb_fail(err, TB_ERR_BUDGET, 0, part_session);
	}
	s = mem->alloc(mem->ctx, sizeof(*s));
	if (!s)
		return tb_fail(err, TB_ERR_NO_SPACE, 0, "no memory for the session");
	memset(s, 0, sizeof(*s));
	s->mem = *mem;
	s->src = *src;
	s->budget = max_memory;
	s->held = s->peak = sizeof(*s);
	if (opt)
		s->opt = *opt;
	st = src->dat ? open_dat(s, err) : src->perf ? open_perf(s, err) : open_raw(s, err);
	if (st == TB_OK)
		st = start_merges(s, err);
	if (st == TB_OK && src->dat) {
		count_decompressed(s);
		st = inflate_within_budget(s, err);
	}
	if (need)
		tb_session_need_get(s, need);
	if (st != TB_OK) {
		tb_session_close(s);
		return st;
	}
	*out = s;
	return TB_OK;
}

tb_status tb_session_open(tb_session **out, const tb_session_source *src,
			  const tb_session_options *opt, const tb_mem *mem, tb_error *err)
{
	return tb_session_open_budget(out, src, opt, mem, 0, NULL, err);
}

void tb_session_need_get(const tb_session *s, tb_session_need *out)
{
	size_t i;
	uint64_t more = 0;
	if (!out)
		return;
	memset(out, 0, sizeof(*out));
	if (!s)
		return;
	*out = s->nd;
	out->budget = s->budget;
	out->held = s->held;
	out->peak = s->peak;
	/* the programs not made yet of the formats that had records */
	for (i = 0; s->fe && !s->parent && i < s->ntexts; i++) {
		const fmt_entry *e = &s->fe[i];
		if (e->used)
			more += (uint64_t)(!e->prog[0]) * sizeof(tb_render_prog) +
				(uint64_t)(!e->prog[1]) * sizeof(tb_render_prog);
	}
	out->total = s->held + more > s->peak ? s->held + more : s->peak;
	if (s->nd.refused && s->held + s->nd.asked > out->total)
		out->total = s->nd.asked > UINT64_MAX - s->held ? UINT64_MAX
								 : s->held + s->nd.asked;
}

static void part_close(tb_session *p);

void tb_session_close(tb_session *s)
{
	tb_mem m;
	if (!s)
		return;
	if (s->parent) {
		part_close(s);
		return;
	}
	tb_sperf_close(s->perf);
	m = s->mem;
	/* per-format blocks are not tracked: an arena drops them whole, and
	 * with a heap they are given back here */
	if (m.free) {
		size_t i;
		for (i = 0; s->fe && i < s->ntexts; i++) {
			fmt_entry *e = &s->fe[i];
			if (e->prog[1])
				m.free(m.ctx, e->prog[1], sizeof(tb_render_prog));
			if (e->prog[0])
				m.free(m.ctx, e->prog[0], sizeof(tb_render_prog));
			if (e->fmt)
				m.free(m.ctx, e->fmt,
				       ALIGN_UP(sizeof(tb_format)) + (size_t)e->nfields * sizeof(tb_field));
		}
		if (s->rbuf)
			m.free(m.ctx, s->rbuf, s->rcap);
		while (s->nregions) {
			s->nregions--;
			m.free(m.ctx, s->regions[s->nregions].p, s->regions[s->nregions].n);
		}
		m.free(m.ctx, s, sizeof(*s));
	}
}

const tb_session_info *tb_session_get_info(const tb_session *s) { return s ? &s->info : NULL; }

const tb_session_buffer_info *tb_session_buffer(const tb_session *s, size_t i)
{
	return s && i < s->info.nbuffers ? &s->binfo[i] : NULL;
}

const tb_dat *tb_session_dat(const tb_session *s) { return s && s->info.is_dat ? &s->d : NULL; }

size_t tb_session_ndamage(const tb_session *s) { return s ? s->ndamage : 0; }

const tb_session_damage *tb_session_damage_at(const tb_session *s, size_t i)
{
	return s && i < s->ndamage ? &s->damage[i] : NULL;
}

const tb_session_error_info *tb_session_error(const tb_session *s) { return s ? &s->last : NULL; }

/* ---- the walk ---- */

/* The record's event id (common_type) in *id: 0 when the record is too
 * short to hold one. */
TB_ALWAYS_INLINE int event_id(const tb_session *s, const tb_session_event *ev, uint32_t *id)
{
	int has = s->type_size <= ev->len && s->type_off <= ev->len - s->type_size &&
		  (s->type_size == 2 || s->type_size == 4 || s->type_size == 1);
	*id = has ? (uint32_t)tb_load_n(ev->data + s->type_off, s->type_size,
					s->info.big_endian) : 0;
	return has;
}

/* next_dat / next_raw: a record the window or the ids kept leave out
 * (read and counted, not described): tb_session_next reads on.  One past
 * the last status, so never one a stream returns. */
#define LEFT_OUT TB_STATUS_END_

/* Does the window, tb_session_keep_ids or tb_session_keep_cpus leave ev
 * (not yet described: its time without the offsets) out?  Both sets are
 * bit sets of the CPU lists' shape (filter.h's tb_cpu_list_has). */
TB_ALWAYS_INLINE int left_out(const tb_session *s, const tb_session_event *ev)
{
	uint32_t id;
	if (s->keep_cpus && !tb_cpu_list_has(s->keep_cpus, s->keep_cpu_words, ev->cpu))
		return 1;
	if (s->win_on) {
		uint64_t ts = ev->ts + (uint64_t)s->info.ts_offset; /* as fill_event adds it */
		if (ts < s->win_from || ts > s->win_to)
			return 1;
	}
	return s->keep && !(event_id(s, ev, &id) && tb_cpu_list_has(s->keep, s->keep_words, id));
}

/* Describe ev: TB_OK, or TB_ERR_NO_SPACE when mem refused its format's
 * fields (ev is then described without its format). */
static tb_status fill_event(tb_session *s, tb_session_event *ev)
{
	fmt_entry *e;
	const tb_format *f = NULL;
	uint32_t po = s->pid_off, ps = s->pid_size;
	int be = s->info.big_endian;
	struct last_task *lt;
	ev->kind = TB_SEV_EVENT;
	ev->ts += (uint64_t)s->info.ts_offset; /* modulo 2^64: no signed overflow */
	ev->has_id = event_id(s, ev, &ev->id);
	e = ev->has_id ? entry_of(s, ev->id) : NULL;
	if (e) {
		f = entry_format(s, e);
		if (f && !s->parent)
			e->used = 1; /* (a part's entries are the session's: read only) */
	}
	s->last_entry = e;
	ev->format = f;
	ev->system.ptr = ev->name.ptr = NULL;
	ev->system.len = ev->name.len = 0;
	if (f) {
		ev->system.ptr = f->system;
		ev->system.len = f->system ? f->system_len : 0;
		ev->name.ptr = f->name;
		ev->name.len = f->name_len;
		po = e->pid_off;
		ps = e->pid_size;
	}
	ev->pid = 0;
	ev->has_pid = 0;
	if (ps == 4 && po <= ev->len && ev->len - po >= 4) {
		ev->pid = (int32_t)tb_load32(ev->data + po, be);
		ev->has_pid = f || s->have_type;
	}
	lt = &s->task[ev->cpu % LAST_SLOTS];
	if (!lt->have || lt->pid != ev->pid) {
		lt->comm = tb_session_comm(s, ev->pid, &lt->comm_len, &lt->known);
		lt->pid = ev->pid;
		lt->have = 1;
	}
	ev->comm = lt->comm;
	ev->comm_len = lt->comm_len;
	ev->comm_known = lt->known;
	ev->damage.status = TB_OK;
	ev->damage.offset = 0;
	ev->damage.what = NULL;
	return e && !f && !e->tried ? mem_status(s) : TB_OK;
}

/* ev's format could not be had for want of memory: said as the error of
 * this call (where, as for a page: tb_session_error) instead of an event
 * quietly without its format.  ev stays as described. */
static tb_status format_refused(tb_session *s, const tb_session_event *ev, tb_error *err)
{
	const fmt_entry *e = s->last_entry;
	uint64_t off = s->src.dat ? s->d.events[e->text].format.offset : 0;
	s->last.error.status = mem_status(s);
	s->last.error.offset = off;
	s->last.error.what = s->nd.refused ? s->nd.refused : "no memory for the event's format";
	s->last.buffer = ev->buffer;
	s->last.cpu = ev->cpu;
	s->last.page = ev->page_index;
	s->last.valid = 1;
	return tb_fail(err, s->last.error.status, off, s->last.error.what);
}

static tb_status page_error(tb_session *s, tb_session_event *ev, uint32_t buffer, uint32_t cpu,
			    uint64_t page, tb_status st, const tb_error *e,
			    tb_session_cpu_stats *cs, tb_error *err)
{
	s->last.error = *e;
	s->last.error.status = st;
	s->last.buffer = buffer;
	s->last.cpu = cpu;
	s->last.page = page;
	s->last.valid = 1;
	if (cs)
		cs->damaged_pages++;
	if (!(s->opt.flags & TB_SESSION_SKIP_DAMAGED))
		return tb_fail(err, st, e->offset, e->what);
	memset(ev, 0, sizeof(*ev));
	ev->kind = TB_SEV_DAMAGED;
	ev->buffer = buffer;
	ev->cpu = cpu;
	ev->ts = s->last_ts;
	ev->page_index = page;
	ev->page_offset = e->offset;
	ev->damage = *e;
	ev->damage.status = st;
	ev->comm = "<...>";
	ev->comm_len = 5;
	return TB_OK;
}

/* Refill a buffer's head; a page error is returned (the stream goes on after it). */
static tb_status dat_refill(dat_src *ds, tb_error *e)
{
	tb_status st;
	if (ds->has_head || ds->done)
		return TB_OK;
	st = tb_dat_stream_next(&ds->s, &ds->head, e);
	if (st == TB_END) {
		ds->done = 1;
		return TB_OK;
	}
	if (st != TB_OK)
		return st;
	ds->has_head = 1;
	return TB_OK;
}

static size_t cpu_slot(const tb_dat_buffer *b, uint32_t cpu)
{
	size_t i;
	if (cpu < b->ncpus && b->cpus[cpu].cpu == cpu)
		return cpu; /* CPUs numbered as stored: per event, no scan */
	for (i = 0; i < b->ncpus; i++)
		if (b->cpus[i].cpu == cpu)
			return i;
	return SIZE_MAX;
}

/* A CPU's first and last event time (after fill_event: offsets applied). */
static void note_ts(tb_session_cpu_stats *cs, uint64_t ts)
{
	if (cs->events == 1)
		cs->first_ts = ts;
	cs->last_ts = ts;
}

/* The end of a walk's step: ev (counted on its CPU's cs, may be NULL)
 * left out, or described. */
static tb_status take_event(tb_session *s, tb_session_event *ev, tb_session_cpu_stats *cs,
			    tb_error *err)
{
	tb_status described;
	s->last_ts = ev->ts;
	if (s->leave_out && left_out(s, ev)) {
		if (cs)
			note_ts(cs, ev->ts + (uint64_t)s->info.ts_offset);
		return LEFT_OUT;
	}
	described = fill_event(s, ev);
	if (cs)
		note_ts(cs, ev->ts);
	return described == TB_OK ? TB_OK : format_refused(s, ev, err);
}

static tb_status next_dat(tb_session *s, tb_session_event *ev, tb_error *err)
{
	size_t i, best;
	dat_src *ds;
	tb_session_cpu_stats *cs = NULL;
	while ((i = tb_merge_want_(&s->buf_merge)) != SIZE_MAX) {
		tb_error e;
		tb_status st = dat_refill(&s->bufs[i], &e);
		if (st != TB_OK) {
			size_t k = cpu_slot(s->bufs[i].b, s->bufs[i].s.error_cpu);
			return page_error(s, ev, (uint32_t)i, s->bufs[i].s.error_cpu,
					  s->bufs[i].s.error_page, st, &e,
					  k != SIZE_MAX ? &s->bufs[i].cst[k] : NULL, err);
		}
		if (s->bufs[i].has_head)
			tb_merge_put_(&s->buf_merge, i, s->bufs[i].head.ts, 0);
		else
			tb_merge_end_(&s->buf_merge, i);
	}
	best = tb_merge_ready_top_(&s->buf_merge);
	if (best == SIZE_MAX)
		return TB_END;
	if (s->has_to && s->bufs[best].head.ts >= s->to_raw)
		return TB_END; /* a part: every head is at or past its end */
	tb_merge_take_(&s->buf_merge, best);
	ds = &s->bufs[best];
	ds->has_head = 0;
	ev->buffer = (uint32_t)best;
	ev->cpu = ds->head.cpu;
	ev->ts = ds->head.ts;
	ev->data = ds->head.data;
	ev->len = ds->head.len;
	ev->missed = ds->head.missed;
	ev->page_offset = ds->head.page_off;
	ev->page_index = ds->head.page_index;
	ev->offset = ds->head.offset;
	{
		size_t k = cpu_slot(ds->b, ev->cpu);
		if (k != SIZE_MAX) {
			cs = &ds->cst[k];
			cs->events++;
			cs->pages = ds->cur[k].page_index;
			if (ev->missed > 0)
				cs->dropped += (uint64_t)ev->missed;
			else if (ev->missed < 0)
				cs->drops_unknown++;
		}
	}
	return take_event(s, ev, cs, err);
}

/* Make a raw cursor's next record ready: 0 ready or done, else a page error. */
static tb_status raw_refill(raw_cursor *c, tb_error *e)
{
	tb_status st;
	while (!c->done && c->irec >= c->nrecs) {
		if (c->page_open) {
			c->nrecs = tb_kbuf_next_events(&c->kb, c->recs, TB_DAT_BATCH, &st);
			c->irec = 0;
			if (c->nrecs)
				return TB_OK;
			c->page_open = 0;
			if (st != TB_END) {
				*e = tb_kbuf_error(&c->kb);
				e->offset += c->ks.subbuf_offset; /* in the dump */
				return e->status ? e->status : st;
			}
			continue;
		}
		st = tb_kbuf_stream_next(&c->ks, &c->kb, e);
		if (st == TB_END) {
			c->done = 1;
			return TB_OK;
		}
		c->page_index = c->ks.subbuf_index;
		c->st.pages++;
		if (st != TB_OK)
			return st;
		c->page_open = 1;
		c->missed = tb_kbuf_missed(&c->kb);
	}
	return TB_OK;
}

static tb_status next_raw(tb_session *s, tb_session_event *ev, tb_error *err)
{
	size_t i, best;
	raw_cursor *c;
	const tb_kbuf_record *r;
	while ((i = tb_merge_want_(&s->raw_merge)) != SIZE_MAX) {
		tb_error e;
		tb_status st = raw_refill(&s->raw[i], &e);
		if (st != TB_OK)
			return page_error(s, ev, 0, s->raw[i].src->cpu, s->raw[i].page_index, st, &e,
					  &s->raw[i].st, err);
		if (s->raw[i].irec < s->raw[i].nrecs)
			tb_merge_put_(&s->raw_merge, i, s->raw[i].recs[s->raw[i].irec].ts, 0);
		else
			tb_merge_end_(&s->raw_merge, i);
	}
	best = tb_merge_ready_top_(&s->raw_merge);
	if (best == SIZE_MAX)
		return TB_END;
	tb_merge_take_(&s->raw_merge, best);
	c = &s->raw[best];
	r = &c->recs[c->irec++];
	ev->buffer = 0;
	ev->cpu = c->src->cpu;
	ev->ts = r->ts;
	ev->data = r->payload;
	ev->len = r->payload_len;
	ev->missed = c->missed;
	c->missed = 0;
	ev->page_offset = c->ks.subbuf_offset;
	ev->page_index = c->page_index;
	ev->offset = r->offset;
	c->st.events++;
	if (ev->missed > 0)
		c->st.dropped += (uint64_t)ev->missed;
	else if (ev->missed < 0)
		c->st.drops_unknown++;
	return take_event(s, ev, &c->st, err);
}

/* The next perf sample (session_perf.c orders them), described as the
 * others with its task and name from perf. */
static tb_status next_perf(tb_session *s, tb_session_event *ev, tb_error *err)
{
	tb_sperf_item *it = &s->pitem;
	tb_session_cpu_stats *cs;
	tb_error e;
	tb_status st = tb_sperf_next(s->perf, it, &e);
	if (st == TB_END)
		return TB_END;
	if (st == TB_ERR_NO_SPACE)
		return no_memory(s, err, e.offset, e.what);
	if (st != TB_OK)
		return page_error(s, ev, 0, 0, e.offset, st, &e, NULL, err);
	memset(ev, 0, sizeof(*ev));
	ev->cpu = it->cpu;
	ev->ts = it->ts;
	ev->data = it->raw;
	ev->len = it->raw_len;
	ev->missed = it->missed;
	ev->page_offset = it->ps.offset;
	if ((cs = tb_sperf_stats(s->perf, ev->cpu)) != NULL) {
		cs->events++;
		if (ev->missed > 0)
			cs->dropped += (uint64_t)ev->missed;
	}
	if ((st = take_event(s, ev, cs, err)) == LEFT_OUT)
		return st;
	/* perf's task, and the name of an event without a format */
	ev->pid = it->ps.tid;
	ev->comm = it->comm;
	ev->comm_len = it->comm_len;
	ev->comm_known = it->comm_known;
	if (!ev->format) {
		ev->system = it->ps.system;
		ev->name = it->ps.name;
	}
	return st;
}

tb_status tb_session_perf_decompress(tb_session *s, const tb_session_perf_inflater *z,
				    tb_error *err)
{
	tb_status st;
	tb_error e;
	tb_error_clear(err);
	if (!s || !s->perf || s->parent)
		return tb_fail(err, TB_ERR_ARG, 0, "not a perf.data session");
	st = tb_sperf_decompress(s->perf, z, &e);
	if (st == TB_ERR_NO_SPACE)
		return no_memory(s, err, 0, e.what);
	return st == TB_OK ? TB_OK : tb_fail(err, st, e.offset, e.what);
}

const tb_perf *tb_session_perf(const tb_session *s)
{
	return s && s->perf ? tb_sperf_perf(s->perf) : NULL;
}

tb_status tb_session_perf_sample_get(const tb_session *s, const tb_session_event *ev,
				     tb_session_perf_sample *out)
{
	if (!s || !ev || !out)
		return TB_ERR_ARG;
	if (!s->perf || ev->kind != TB_SEV_EVENT || ev->page_offset != s->pitem.ps.offset)
		return TB_NOT_FOUND;
	*out = s->pitem.ps;
	return TB_OK;
}

tb_status tb_session_describe(tb_session *s, uint32_t cpu, uint64_t ts, const void *rec,
			      size_t len, tb_session_event *ev)
{
	if (!s || !ev || (!rec && len) || len > UINT32_MAX)
		return TB_ERR_ARG;
	memset(ev, 0, sizeof(*ev));
	ev->cpu = cpu;
	ev->ts = ts;
	ev->data = rec;
	ev->len = (uint32_t)len;
	return fill_event(s, ev);
}

tb_status tb_session_next(tb_session *s, tb_session_event *ev, tb_error *err)
{
	tb_error_clear(err);
	if (!s || !ev)
		return tb_fail(err, TB_ERR_ARG, 0, "NULL argument");
	for (;;) {
		tb_status st = s->perf ? next_perf(s, ev, err)
			       : s->info.is_dat ? next_dat(s, ev, err) : next_raw(s, ev, err);
		if (st != LEFT_OUT)
			return st;
	}
}

/* Whether any of the window and the keep sets is on (the walk's one
 * test), after one of them changed. */
static void selection_changed(tb_session *s)
{
	s->leave_out = s->win_on || s->keep || s->keep_cpus;
}

/* Set one of the keep sets (NULL or 0 words: none). */
static void set_keep(tb_session *s, const uint64_t **set, size_t *set_words,
		     const uint64_t *keep, size_t words)
{
	int on = keep && words;
	*set = on ? keep : NULL;
	*set_words = on ? words : 0;
	selection_changed(s);
}

void tb_session_keep_ids(tb_session *s, const uint64_t *keep, size_t words)
{
	if (s)
		set_keep(s, &s->keep, &s->keep_words, keep, words);
}

void tb_session_keep_cpus(tb_session *s, const uint64_t *keep, size_t words)
{
	if (s)
		set_keep(s, &s->keep_cpus, &s->keep_cpu_words, keep, words);
}

tb_status tb_session_set_window(tb_session *s, uint64_t from, uint64_t to)
{
	if (!s || to < from)
		return TB_ERR_ARG;
	s->win_from = from;
	s->win_to = to;
	s->win_on = from != 0 || to != UINT64_MAX;
	selection_changed(s);
	return TB_OK;
}

uint64_t tb_session_tsdiff_prev(const tb_session *s)
{
	return s && s->have_prev_line ? s->prev_line_ts : 0;
}

void tb_session_set_json_file(tb_session *s, const char *name, size_t len)
{
	if (s) {
		s->json_file.ptr = name;
		s->json_file.len = name ? len : 0;
	}
}

void tb_session_set_tsdiff_prev(tb_session *s, uint64_t shown)
{
	if (s) {
		s->prev_line_ts = shown;
		s->have_prev_line = shown != 0;
	}
}

void tb_session_add_ts_offset(tb_session *s, int64_t ns)
{
	if (s)
		s->info.ts_offset = (int64_t)((uint64_t)s->info.ts_offset + (uint64_t)ns);
}

tb_status tb_session_cpu_data_at(const tb_session *s, size_t buffer, size_t i,
				 tb_session_cpu_data *out, tb_error *err)
{
	const tb_dat_buffer *b;
	const tb_dat_cpu *c;
	tb_error_clear(err);
	if (!s || !out)
		return tb_fail(err, TB_ERR_ARG, 0, "NULL argument");
	memset(out, 0, sizeof(*out));
	if (!s->info.is_dat) {
		if (buffer != 0 || i >= s->nraw)
			return TB_NOT_FOUND;
		out->cpu = s->raw[i].src->cpu;
		out->size = out->data_size = s->raw[i].src->len;
		return TB_OK;
	}
	if (buffer >= s->nbufs || i >= s->bufs[buffer].b->ncpus)
		return TB_NOT_FOUND;
	b = s->bufs[buffer].b;
	c = &b->cpus[i];
	out->cpu = c->cpu;
	out->offset = c->table_offset;
	out->size = c->declared;
	out->data_size = c->declared;
	out->compressed = b->compressed;
	if (b->compressed) {
		tb_dat_chunk_iter it;
		tb_dat_chunk ch;
		tb_status st;
		out->data_size = 0;
		if (!c->size && !c->tail)
			return TB_OK;
		if ((st = tb_dat_chunks_begin(&it, &s->d, b, c, err)) != TB_OK)
			return st;
		while ((st = tb_dat_chunk_next(&it, &ch, err)) == TB_OK)
			out->data_size += ch.usize;
		if (st != TB_END)
			return st;
		tb_error_clear(err);
	}
	return TB_OK;
}

/* n decimal digits at p (n >= 1) into *v: 0, or -1 past UINT64_MAX. */
tb_status tb_session_time_parse(const char *text, size_t len, int is_end, uint64_t *ns,
				tb_error *err)
{
	static const uint64_t pow10[10] = { 1u, 10u, 100u, 1000u, 10000u, 100000u, 1000000u,
					    10000000u, 100000000u, 1000000000u };
	size_t i, dot = SIZE_MAX, frac;
	uint64_t sec, f = 0, v;
	tb_error_clear(err);
	if (!text || !ns)
		return tb_fail(err, TB_ERR_ARG, 0, "NULL argument");
	for (i = 0; i < len; i++) {
		if (text[i] == '.' && dot == SIZE_MAX && i > 0)
			dot = i;
		else if (text[i] < '0' || text[i] > '9')
			return tb_fail(err, TB_ERR_VALUE, i,
				       "not a time (nanoseconds, or seconds.fraction)");
	}
	if (len == 0)
		return tb_fail(err, TB_ERR_VALUE, 0, "an empty time");
	if (dot == SIZE_MAX) {
		if (!tb_parse_u64(text, len, &v))
			return tb_fail(err, TB_ERR_LIMIT, 0, "more nanoseconds than 64 bits hold");
		*ns = v;
		return TB_OK;
	}
	frac = len - dot - 1;
	if (frac == 0 || frac > 9)
		return tb_fail(err, TB_ERR_VALUE, dot + 1 + (frac > 9 ? 9 : 0),
			       "the fraction of a second takes 1 to 9 digits");
	if (!tb_parse_u64(text, dot, &sec) || sec > UINT64_MAX / 1000000000u)
		return tb_fail(err, TB_ERR_LIMIT, 0, "more nanoseconds than 64 bits hold");
	(void)tb_parse_u64(text + dot + 1, frac, &f); /* 1 to 9 digits */
	v = sec * 1000000000u;
	f *= pow10[9 - frac];
	if (v > UINT64_MAX - f)
		return tb_fail(err, TB_ERR_LIMIT, 0, "more nanoseconds than 64 bits hold");
	v += f;
	if (frac == 6) {
		/* the microsecond a line prints: (ts + 500) / 1000 */
		if (!is_end)
			v = v >= 500u ? v - 500u : 0;
		else if (v > UINT64_MAX - 499u)
			return tb_fail(err, TB_ERR_LIMIT, 0, "more nanoseconds than 64 bits hold");
		else
			v += 499u;
	}
	*ns = v;
	return TB_OK;
}

static tb_status part_position(tb_session *p, tb_error *err);

tb_status tb_session_rewind(tb_session *s, tb_error *err)
{
	size_t i;
	tb_error_clear(err);
	if (!s)
		return tb_fail(err, TB_ERR_ARG, 0, "NULL argument");
	if (s->parent)
		return part_position(s, err);
	if (s->perf && tb_sperf_rewind(s->perf) != TB_OK)
		return tb_fail(err, TB_ERR_VALUE, 0, "the perf.data walk does not restart");
	for (i = 0; i < s->nbufs; i++) {
		dat_src *ds = &s->bufs[i];
		tb_status st = stream_start(s, ds, err);
		if (st != TB_OK)
			return st;
		ds->has_head = ds->done = 0;
		memset(ds->cst, 0, ds->b->ncpus * sizeof(*ds->cst));
	}
	for (i = 0; i < s->nraw; i++) {
		raw_cursor *c = &s->raw[i];
		const tb_session_raw_cpu *src = c->src;
		memset(c, 0, sizeof(*c));
		c->src = src;
		tb_kbuf_stream_init(&c->ks, &s->layout, src->data, src->len);
	}
	s->last_ts = 0;
	memset(&s->last, 0, sizeof(s->last));
	return start_merges(s, err);
}

tb_status tb_session_cpu_stats_get(const tb_session *s, size_t buffer, uint32_t cpu,
				   tb_session_cpu_stats *out)
{
	size_t i;
	if (!s || !out)
		return TB_ERR_ARG;
	memset(out, 0, sizeof(*out));
	if (s->perf) {
		const tb_session_cpu_stats *cs = tb_sperf_stats(s->perf, cpu);
		if (buffer != 0 || !cs)
			return TB_NOT_FOUND;
		*out = *cs;
		return TB_OK;
	}
	if (s->info.is_dat) {
		size_t k;
		if (buffer >= s->nbufs)
			return TB_NOT_FOUND;
		k = cpu_slot(s->bufs[buffer].b, cpu);
		if (k == SIZE_MAX)
			return TB_NOT_FOUND;
		*out = s->bufs[buffer].cst[k];
		out->pages = s->bufs[buffer].cur[k].page_index;
		return TB_OK;
	}
	if (buffer != 0)
		return TB_NOT_FOUND;
	for (i = 0; i < s->nraw; i++)
		if (s->raw[i].src->cpu == cpu) {
			*out = s->raw[i].st;
			return TB_OK;
		}
	return TB_NOT_FOUND;
}

/* ---- fields ---- */

tb_status tb_session_field(const tb_session *s, const tb_session_event *ev, const char *name,
			   tb_field_value *val, const tb_field **field, tb_error *err)
{
	const tb_field *f;
	tb_status st;
	tb_error_clear(err);
	if (!s || !ev || !name || !val)
		return tb_fail(err, TB_ERR_ARG, 0, "NULL argument");
	memset(val, 0, sizeof(*val));
	if (field)
		*field = NULL;
	if (!ev->format || !(f = tb_format_field(ev->format, name)))
		return TB_NOT_FOUND;
	if (field)
		*field = f;
	st = tb_field_bytes(f, ev->data, ev->len, s->info.big_endian, &val->data, &val->len, err);
	if (st == TB_OK && (f->kind == TB_FIELD_INT || f->kind == TB_FIELD_LONG ||
			    f->kind == TB_FIELD_POINTER))
		st = tb_field_int(f, ev->data, ev->len, s->info.big_endian, &val->num, err);
	val->status = st;
	return st;
}

/* ---- renderings ---- */

/* A part's own programs, by entry (parts below). */
typedef struct part_prog {
	tb_render_prog *p[2];
	uint8_t tried[2];
} part_prog;

/* The program of entry e, compiled now (the first event of its format):
 * in the part's own memory for a part. */
static TB_NOINLINE tb_render_prog *compile_program(tb_session *s, fmt_entry *e,
						   const tb_format *f, unsigned which)
{
	tb_render_prog **slot;
	if (s->pprog) {
		part_prog *pp = &s->pprog[e - s->fe];
		pp->tried[which] = 1;
		slot = &pp->p[which];
	} else {
		e->prog_tried[which] = 1;
		slot = &e->prog[which];
	}
	*slot = take_small(s, sizeof(tb_render_prog), part_program);
	if (!*slot)
		return NULL;
	/* always usable: a print fmt that does not compile renders the
	 * [FAILED TO PARSE] listing (the -R listing: every field raw) */
	(void)tb_render_compile(*slot, f, s->info.long_size, s->info.big_endian,
				which == 1 ? TB_RENDER_FIELD_LIST : s->opt.render_options, NULL);
	return *slot;
}

/* The program of format f (which: 0 its print fmt, 1 the -R listing),
 * compiled on first use.  Per event: the last event's entry first. */
static tb_render_prog *program(tb_session *s, const tb_format *f, unsigned which)
{
	fmt_entry *e = s->last_entry && s->last_entry->fmt == f ? s->last_entry : entry_of(s, f->id);
	if (!e || e->fmt != f)
		return NULL;
	if (s->pprog) {
		const part_prog *pp = &s->pprog[e - s->fe];
		if (pp->tried[which])
			return pp->p[which];
	} else if (e->prog_tried[which]) {
		return e->prog[which];
	}
	return compile_program(s, e, f, which);
}

/* The event's payload text (print fmt or -R listing) appended to t.  The
 * listing remembers the char arrays it printed as ARRAY[], as trace-cmd
 * does over a file (tb_render_stateful). */
static tb_status payload(tb_session *s, const tb_session_event *ev, unsigned which, tb_text *t)
{
	tb_render_prog *p = program(s, ev->format, which);
	tb_render_result r;
	char *at;
	size_t room;
	if (!p)
		return mem_status(s);
	at = tb_text_tail(t, &room);
	if (which == 1)
		(void)tb_render_stateful(p, &s->env_fields, ev->data, ev->len, at, room, &r);
	else
		(void)tb_render(p, &s->env, ev->data, ev->len, at, room, &r);
	tb_text_advance(t, r.len, r.needed);
	return TB_OK;
}

/* The time as trace-cmd shows it: microseconds (rounded) for the clocks
 * that count nanoseconds, all nine digits with -t, raw counts otherwise.
 * Returns the value shown, in its own unit, for --ts-diff. */
static uint64_t put_time(tb_session *s, tb_text *t, uint64_t ts, int ns_clock, int nsecs)
{
	if (!ns_clock) {
		tb_text_u64(t, ts, 12, 0);
		return ts;
	}
	if (nsecs) {
		tb_text_u64(t, ts / 1000000000u, 5, 0);
		tb_text_putc(t, '.');
		tb_text_u64(t, ts % 1000000000u, 9, TB_TEXT_ZERO);
		return ts;
	}
	if (ts >= s->tm_lo && ts < s->tm_hi && t->len == t->need && t->cap - t->len >= 16) {
		/* the microsecond of the last line (events come in bursts) */
		tb_put_le64(t->buf + t->len, s->tm_w0);
		tb_put_le32(t->buf + t->len + 8, s->tm_w1);
		t->len += 12;
		t->need = t->len;
		t->last = (unsigned char)(s->tm_w1 >> 24);
		return s->tm_us;
	}
	{
		uint64_t us = ts / 1000 + (ts % 1000 >= 500), sec = us / 1000000u;
		uint32_t frac = (uint32_t)(us % 1000000u);
		if (sec < 100000u && t->len == t->need && t->cap - t->len >= 16) {
			/* "%5u.%06u" straight into the sink, and kept for every
			 * ts rounding to this microsecond */
			tb_time12((uint32_t)sec, frac, &s->tm_w0, &s->tm_w1);
			tb_put_le64(t->buf + t->len, s->tm_w0);
			tb_put_le32(t->buf + t->len + 8, s->tm_w1);
			t->len += 12;
			t->need = t->len;
			t->last = (unsigned char)(s->tm_w1 >> 24);
			s->tm_us = us;
			s->tm_lo = us ? us * 1000 - 500 : 0;
			s->tm_hi = us * 1000 + 500;
			return us;
		}
		tb_text_u64(t, sec, 5, 0);
		tb_text_putc(t, '.');
		tb_text_u64(t, frac, 6, TB_TEXT_ZERO);
		return us;
	}
}

/* 40 bytes in five 8-byte moves: a memcpy of 40 compiled to rep movsl,
 * whose start-up was a fifth of tb_session_text's time in report. */
static void copy40(char *d, const char *s)
{
	uint64_t a, b, c, e, f;
	memcpy(&a, s, 8);
	memcpy(&b, s + 8, 8);
	memcpy(&c, s + 16, 8);
	memcpy(&e, s + 24, 8);
	memcpy(&f, s + 32, 8);
	memcpy(d, &a, 8);
	memcpy(d + 8, &b, 8);
	memcpy(d + 16, &c, 8);
	memcpy(d + 24, &e, 8);
	memcpy(d + 32, &f, 8);
}

/*
 * "            comm-pid   [cpu] " straight into the sink when it surely
 * fits: the line every report prints, so it skips the general number
 * path (what the slow path below prints, byte for byte).
 */
static int fast_prefix(tb_session *s, tb_text *t, const tb_session_event *ev)
{
	char *p, *q;
	uint32_t pid, cpu = ev->cpu;
	size_t n = ev->comm_len;
	struct last_task *lt = &s->task[cpu % LAST_SLOTS];
	if (ev->pid < 0 || cpu > 999 || n > 16 || t->len != t->need || t->cap - t->len < 96)
		return 0;
	p = t->buf + t->len;
	if (lt->pfx_len && ev->comm == lt->pfx_comm && ev->pid == lt->pfx_pid && cpu == lt->pfx_cpu) {
		/* the same task on the same CPU as the last line (a run of
		 * its events): the same bytes, copied whole (the room holds
		 * 40; what passes the prefix is written over next) */
		copy40(p, lt->pfx);
		t->len += lt->pfx_len;
		t->need = t->len;
		t->last = ' ';
		return 1;
	}
	memset(p, ' ', 16); /* then the comm over its end */
	p += 16 - n;
	tb_copy16(p, ev->comm, n);
	p += n;
	*p++ = '-';
	pid = (uint32_t)ev->pid;
	q = p;
	{
		p += tb_dec_len(pid); /* 10 at most: the room holds it */
		(void)tb_dec_digits(p, pid);
	}
	while (p - q < 5)
		*p++ = ' ';
	p[0] = ' ';
	p[1] = '[';
	p[2] = (char)('0' + cpu / 100u);
	p[3] = (char)('0' + cpu / 10u % 10u);
	p[4] = (char)('0' + cpu % 10u);
	p[5] = ']';
	p[6] = ' ';
	p += 7;
	/* kept for the next line when the comm is the session's own (its
	 * tables do not change): at most 16 + 1 + 10 + 7 = 34 bytes */
	lt->pfx_len = 0;
	if (ev->comm == lt->comm) {
		lt->pfx_len = (size_t)(p - (t->buf + t->len));
		memcpy(lt->pfx, t->buf + t->len, lt->pfx_len);
		lt->pfx_comm = ev->comm;
		lt->pfx_pid = ev->pid;
		lt->pfx_cpu = cpu;
	}
	t->len = (size_t)(p - t->buf);
	t->need = t->len;
	t->last = ' ';
	return 1;
}

/* A common u8 field of the record (0 when absent). */
static unsigned common_u8(const tb_session *s, const tb_session_event *ev, const char *name)
{
	const tb_field *f = tb_format_field(ev->format, name);
	uint64_t v = 0;
	tb_error e;
	if (!f || tb_field_int(f, ev->data, ev->len, s->info.big_endian, &v, &e) != TB_OK)
		return 0;
	return (unsigned)(v & 0xffu);
}

/* The kernel's trace flags in common_flags. */
enum {
	TF_IRQS_OFF = 0x01, TF_IRQS_NOSUPPORT = 0x02, TF_NEED_RESCHED = 0x04, TF_HARDIRQ = 0x08,
	TF_SOFTIRQ = 0x10, TF_PREEMPT_RESCHED = 0x20, TF_NMI = 0x40
};

/* -l: irqs-off, need-resched, hardirq/softirq, preempt and migrate depth. */
static void put_latency(tb_text *t, const tb_session *s, const tb_session_event *ev)
{
	static const char hex[] = "0123456789abcdef";
	unsigned fl = common_u8(s, ev, "common_flags");
	unsigned pc = common_u8(s, ev, "common_preempt_count");
	int hard = (fl & TF_HARDIRQ) != 0, soft = (fl & TF_SOFTIRQ) != 0, nmi = (fl & TF_NMI) != 0;
	char c[5];
	c[0] = (char)((fl & TF_IRQS_OFF) ? 'd' : (fl & TF_IRQS_NOSUPPORT) ? 'X' : '.');
	if ((fl & TF_NEED_RESCHED) && (fl & TF_PREEMPT_RESCHED))
		c[1] = 'N';
	else if (fl & TF_NEED_RESCHED)
		c[1] = 'n';
	else
		c[1] = (char)((fl & TF_PREEMPT_RESCHED) ? 'p' : '.');
	if (nmi)
		c[2] = (char)(hard ? 'Z' : 'z');
	else if (hard)
		c[2] = (char)(soft ? 'H' : 'h');
	else
		c[2] = (char)(soft ? 's' : '.');
	c[3] = (char)((pc & 15u) ? hex[pc & 15u] : '.');
	c[4] = (char)((pc >> 4) ? hex[pc >> 4] : '.');
	tb_text_put(t, c, 5);
}

/* perf script's line: its columns, the text, the callchain. */
static tb_status perf_line(tb_session *s, const tb_session_event *ev, unsigned how, tb_text *t)
{
	tb_status st = TB_OK;
	tb_sperf_line_head(s->perf, &s->pitem, ev->comm, ev->comm_len, t);
	if (ev->format)
		st = payload(s, ev, (how & TB_TEXT_KIND_MASK) == TB_TEXT_FIELDS, t);
	else if (ev->data)
		tb_text_puts(t, "[UNKNOWN EVENT]");
	if (tb_text_last(t) != '\n')
		tb_text_putc(t, '\n');
	tb_sperf_line_tail(s->perf, &s->pitem, &s->ks, t);
	return st;
}

static tb_status report_line(tb_session *s, const tb_session_event *ev, unsigned how, tb_text *t)
{
	const tb_session_buffer_info *bi = tb_session_buffer(s, ev->buffer);
	const tb_format *f = ev->format;
	tb_status st = TB_OK;
	if (s->maxname && bi && !(how & TB_TEXT_NO_BUFFER)) {
		if (bi->name.len) {
			/* trace-cmd's "%*s: ": right-aligned */
			tb_text_fill(t, ' ', s->maxname - bi->name.len);
			tb_text_put(t, bi->name.ptr, bi->name.len);
			tb_text_put(t, ": ", 2);
		} else {
			tb_text_fill(t, ' ', s->maxname + 2);
		}
	}
	if (ev->kind == TB_SEV_DAMAGED) {
		tb_text_puts(t, "CPU:");
		tb_text_u64(t, ev->cpu, 0, 0);
		tb_text_puts(t, " [PAGE ");
		tb_text_u64(t, ev->page_index, 0, 0);
		tb_text_puts(t, " DAMAGED: ");
		tb_text_puts(t, ev->damage.what ? ev->damage.what : "?");
		tb_text_puts(t, "]\n");
		return TB_OK;
	}
	if (ev->missed > 0) {
		tb_text_puts(t, "CPU:");
		tb_text_u64(t, ev->cpu, 0, 0);
		tb_text_puts(t, " [");
		tb_text_u64(t, (uint64_t)ev->missed, 0, 0);
		tb_text_puts(t, " EVENTS DROPPED]\n");
	} else if (ev->missed < 0) {
		tb_text_puts(t, "CPU:");
		tb_text_u64(t, ev->cpu, 0, 0);
		tb_text_puts(t, " [EVENTS DROPPED]\n");
	}
	if (s->perf)
		return perf_line(s, ev, how, t);
	if (!f) {
		tb_text_puts(t, "[UNKNOWN EVENT][UNKNOWN EVENT] (NULL):               "
				"[UNKNOWN EVENT]\n");
		return TB_OK;
	}
	if (how & TB_TEXT_LATENCY) {
		size_t n = ev->comm_len < 8 ? ev->comm_len : 8;
		tb_text_fill(t, ' ', 8 - n);
		tb_text_put(t, ev->comm, n);
		tb_text_putc(t, '-');
		tb_text_i64(t, ev->pid, 5, TB_TEXT_LEFT);
		tb_text_putc(t, ' ');
		tb_text_u64(t, ev->cpu, 3, 0);
		if ((how & TB_TEXT_KIND_MASK) == TB_TEXT_FIELDS) {
			/* trace-cmd -R -l: the flags byte in hex, no depths */
			tb_text_put(t, "-0x", 3);
			tb_text_hex(t, common_u8(s, ev, "common_flags"), 0, 0);
		} else {
			put_latency(t, s, ev);
		}
		tb_text_putc(t, ' ');
	} else if (!fast_prefix(s, t, ev)) {
		if (ev->comm_len < 16)
			tb_text_fill(t, ' ', 16 - ev->comm_len);
		tb_text_put(t, ev->comm, ev->comm_len);
		tb_text_putc(t, '-');
		tb_text_i64(t, ev->pid, 5, TB_TEXT_LEFT);
		tb_text_put(t, " [", 2);
		tb_text_u64(t, ev->cpu, 3, TB_TEXT_ZERO);
		tb_text_put(t, "] ", 2);
	}
	{
		uint64_t shown = put_time(s, t, ev->ts, bi ? bi->ns_clock : 1,
					  (how & TB_TEXT_NSECS) != 0);
		tb_text_put(t, ": ", 2);
		if (how & TB_TEXT_TSDIFF) {
			/* trace-cmd --ts-diff: "(+N)" in a 9-column slot */
			size_t mark = t->need;
			/* trace-cmd shows no delta after a line shown at time 0 */
			if (s->have_prev_line && s->prev_line_ts) {
				tb_text_put(t, "(+", 2);
				tb_text_u64(t, shown - s->prev_line_ts, 0, 0);
				tb_text_putc(t, ')');
			}
			tb_text_fill(t, ' ', t->need - mark < 9 ? 9 - (t->need - mark) : 1);
			s->pending_line_ts = shown; /* kept once the line is whole */
		}
	}
	if (t->len == t->need && t->cap - t->len >= (size_t)f->name_len + 33) {
		/* "name:" padded to 22 columns, straight into the sink (the
		 * pad written 32 bytes long: what passes it is written over) */
		char *p = t->buf + t->len;
		size_t pad = f->name_len < 20 ? 21 - f->name_len : 1;
		tb_copy_short(p, f->name, f->name_len);
		p += f->name_len;
		*p++ = ':';
		memset(p, ' ', 32);
		t->len += f->name_len + 1 + pad;
		t->need = t->len;
		t->last = ' ';
	} else {
		tb_text_put(t, f->name, f->name_len);
		tb_text_putc(t, ':');
		tb_text_fill(t, ' ', f->name_len < 20 ? 21 - f->name_len : 1);
	}
	st = payload(s, ev, (how & TB_TEXT_KIND_MASK) == TB_TEXT_FIELDS, t);
	/* trace-cmd ends the line only when the text did not (a string
	 * field can end in a newline) */
	if (tb_text_last(t) != '\n')
		tb_text_putc(t, '\n');
	return st;
}

static void json_field(tb_session *s, const tb_session_event *ev, const tb_field *f, tb_text *t)
{
	int be = s->info.big_endian;
	tb_error e;
	uint64_t v;
	switch (f->kind) {
	case TB_FIELD_INT:
	case TB_FIELD_LONG:
	case TB_FIELD_POINTER:
		if (tb_field_int(f, ev->data, ev->len, be, &v, &e) != TB_OK) {
			tb_text_puts(t, "null");
		} else if (f->flags & TB_FIELD_SIGNED) {
			tb_text_i64(t, (int64_t)v, 0, 0);
		} else {
			tb_text_u64(t, v, 0, 0);
		}
		return;
	case TB_FIELD_STRING:
	case TB_FIELD_DYNAMIC:
	case TB_FIELD_REST:
		if (f->flags & TB_FIELD_TEXT) {
			const char *str;
			size_t n;
			if (tb_field_str(f, ev->data, ev->len, be, &str, &n, &e) != TB_OK)
				tb_text_puts(t, "null");
			else
				tb_json_str(t, str, n);
			return;
		}
		break;
	default:
		break;
	}
	{
		/* arrays (and opaque bytes): their elements as numbers */
		size_t n = 0, i;
		if (f->kind == TB_FIELD_OPAQUE) {
			const uint8_t *d;
			if (tb_field_bytes(f, ev->data, ev->len, be, &d, &n, &e) != TB_OK) {
				tb_text_puts(t, "null");
				return;
			}
			tb_text_putc(t, '[');
			for (i = 0; i < n; i++) {
				if (i)
					tb_text_putc(t, ',');
				tb_text_u64(t, d[i], 0, 0);
			}
			tb_text_putc(t, ']');
			return;
		}
		if (tb_field_count(f, ev->data, ev->len, be, &n, &e) != TB_OK) {
			tb_text_puts(t, "null");
			return;
		}
		tb_text_putc(t, '[');
		for (i = 0; i < n; i++) {
			if (i)
				tb_text_putc(t, ',');
			if (tb_field_elem(f, ev->data, ev->len, be, i, &v, &e) != TB_OK)
				tb_text_puts(t, "null");
			else if (f->flags & TB_FIELD_SIGNED)
				tb_text_i64(t, (int64_t)v, 0, 0);
			else
				tb_text_u64(t, v, 0, 0);
		}
		tb_text_putc(t, ']');
	}
}

/* The print fmt text of ev, whole, in the session's render buffer. */
static tb_status render_scratch(tb_session *s, const tb_session_event *ev)
{
	const tb_render_prog *p = program(s, ev->format, 0);
	tb_render_result r;
	if (!p)
		return mem_status(s);
	for (;;) {
		if (s->rbuf)
			(void)tb_render(p, &s->env, ev->data, ev->len, s->rbuf, s->rcap, &r);
		else
			r.needed = 4095;
		if (s->rbuf && r.len == r.needed) {
			s->rlen = r.len;
			return TB_OK;
		}
		if (r.needed >= SIZE_MAX / 2)
			return TB_ERR_NO_SPACE;
		mem_put(s, s->rbuf, s->rcap);
		s->rcap = r.needed + 1 > 4096 ? r.needed + 1 : 4096;
		s->rbuf = mem_get(s, s->rcap, part_render);
		if (!s->rbuf) {
			s->rcap = 0;
			return mem_status(s);
		}
	}
}

static tb_status json_event(tb_session *s, const tb_session_event *ev, unsigned how, tb_text *t)
{
	const tb_format *f = ev->format;
	const tb_session_buffer_info *bi = tb_session_buffer(s, ev->buffer);
	tb_status st = TB_OK;
	uint32_t i;
	tb_text_putc(t, '{');
	if (s->json_file.len) {
		tb_text_puts(t, "\"file\":");
		tb_json_str(t, s->json_file.ptr, s->json_file.len);
		tb_text_putc(t, ',');
	}
	tb_text_puts(t, "\"cpu\":");
	tb_text_u64(t, ev->cpu, 0, 0);
	tb_text_puts(t, ",\"ts\":");
	tb_text_u64(t, ev->ts, 0, 0);
	if (bi && bi->name.len) {
		tb_text_puts(t, ",\"buffer\":");
		tb_json_str(t, bi->name.ptr, bi->name.len);
	}
	if (ev->kind == TB_SEV_DAMAGED) {
		tb_text_puts(t, ",\"damaged\":{\"page\":");
		tb_text_u64(t, ev->page_index, 0, 0);
		tb_text_puts(t, ",\"offset\":");
		tb_text_u64(t, ev->damage.offset, 0, 0);
		tb_text_puts(t, ",\"status\":");
		tb_json_str(t, tb_strerror(ev->damage.status), strlen(tb_strerror(ev->damage.status)));
		tb_text_puts(t, ",\"what\":");
		tb_json_str(t, ev->damage.what ? ev->damage.what : "",
			    ev->damage.what ? strlen(ev->damage.what) : 0);
		tb_text_puts(t, "}}");
		return TB_OK;
	}
	if (!ev->has_pid) {
		/* no format says where common_pid is, or the record is too short */
		tb_text_puts(t, ",\"pid\":null,\"comm\":null");
	} else {
		tb_text_puts(t, ",\"pid\":");
		tb_text_i64(t, ev->pid, 0, 0);
		tb_text_puts(t, ",\"comm\":");
		if (ev->comm_known)
			tb_json_str(t, ev->comm, ev->comm_len);
		else
			tb_text_puts(t, ev->pid == 0 ? "\"<idle>\"" : "null");
	}
	tb_text_puts(t, ",\"system\":");
	if (f && f->system)
		tb_json_str(t, f->system, f->system_len);
	else
		tb_text_puts(t, "null");
	tb_text_puts(t, ",\"name\":");
	if (f)
		tb_json_str(t, f->name, f->name_len);
	else
		tb_text_puts(t, "null");
	tb_text_puts(t, ",\"id\":");
	if (ev->has_id)
		tb_text_u64(t, ev->id, 0, 0);
	else
		tb_text_puts(t, "null");
	if (ev->missed) {
		tb_text_puts(t, ",\"missed\":");
		tb_text_i64(t, ev->missed, 0, 0);
	}
	tb_text_puts(t, ",\"subbuf\":");
	tb_text_u64(t, ev->page_index, 0, 0);
	tb_text_puts(t, ",\"offset\":");
	tb_text_u64(t, ev->offset, 0, 0);
	tb_text_puts(t, ",\"size\":");
	tb_text_u64(t, ev->len, 0, 0);
	if (s->perf && ev->kind == TB_SEV_EVENT)
		tb_sperf_json(&s->pitem, t);
	if (f) {
		tb_text_puts(t, ",\"fields\":{");
		for (i = 0; i < f->nfields; i++) {
			const tb_field *fl = &f->fields[i];
			if (i)
				tb_text_putc(t, ',');
			tb_json_str(t, fl->name, fl->name_len);
			tb_text_putc(t, ':');
			json_field(s, ev, fl, t);
		}
		tb_text_putc(t, '}');
		if (how & TB_TEXT_WITH_PRINT) {
			tb_text_puts(t, ",\"text\":");
			if ((st = render_scratch(s, ev)) != TB_OK) {
				tb_text_puts(t, "null");
			} else {
				tb_json_str(t, s->rbuf, s->rlen);
			}
		}
	}
	tb_text_putc(t, '}');
	return st;
}

tb_status tb_session_text(tb_session *s, const tb_session_event *ev, unsigned how, char *out,
			  size_t cap, tb_render_result *res)
{
	tb_text t;
	tb_status st = TB_OK;
	unsigned kind = how & TB_TEXT_KIND_MASK;
	tb_text_init(&t, out, cap);
	if (res)
		memset(res, 0, sizeof(*res));
	if (!s || !ev)
		return TB_ERR_ARG;
	if (kind == TB_TEXT_JSON) {
		st = json_event(s, ev, how, &t);
	} else if (kind == TB_TEXT_PRINT || kind == TB_TEXT_FIELDS) {
		if (how & TB_TEXT_LINE) {
			st = report_line(s, ev, how, &t);
			if ((how & TB_TEXT_TSDIFF) && st == TB_OK && t.len == t.need &&
			    ev->kind == TB_SEV_EVENT && ev->format) {
				s->prev_line_ts = s->pending_line_ts;
				s->have_prev_line = 1;
			}
		}
		else if (ev->kind == TB_SEV_EVENT && ev->format)
			st = payload(s, ev, kind == TB_TEXT_FIELDS, &t);
	} else {
		return TB_ERR_ARG;
	}
	tb_text_finish(&t);
	if (res) {
		res->len = t.len;
		res->needed = t.need;
		res->notes = t.len < t.need ? TB_RENDER_N_TRUNCATED : 0;
	}
	if (st == TB_OK && t.len < t.need)
		st = TB_ERR_NO_SPACE;
	return st;
}

/* ---- parts of a capture (session.h: tb_session_prepare / _plan / _part_*) ----
 *
 * A part is a tb_session of its own: a shallow copy of the session (the
 * container, formats, tables and buffer infos are read through it, never
 * written: tb_session_prepare parsed every format, so no lazy cache of
 * the session is filled later), with its own cursors, stats, comm cache,
 * line state, JSON scratch and print fmt programs, all in the part's own
 * memory.  Its streams are seeked per CPU: a binary search over the page
 * headers' timestamps finds the last page that starts before `from`, and
 * the records before `from` are consumed there (tb_dat_stream_skip_before);
 * next_dat stops once every head is at or past `to`. */

tb_status tb_session_prepare(tb_session *s, tb_error *err)
{
	size_t i;
	tb_error_clear(err);
	if (!s || s->parent)
		return tb_fail(err, TB_ERR_ARG, 0, "NULL argument or a part");
	for (i = 0; i < s->ntexts; i++)
		if (s->fe[i].ok && !entry_format(s, &s->fe[i]) && !s->fe[i].tried)
			return no_memory(s, err, 0, "no memory for an event's format");
	s->prepared = 1;
	return TB_OK;
}

/* The first of the CPU's pages [lo, hi) whose header time is >= t (pages
 * past a header that cannot be read count as later): hi when none is. */
static uint64_t first_page_in(const tb_dat_stream *st, size_t slot, uint64_t lo, uint64_t hi,
			      uint64_t t)
{
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2, ts;
		if (tb_dat_stream_page_ts(st, slot, mid, &ts) == TB_OK && ts < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static uint64_t first_page_at(const tb_dat_stream *st, size_t slot, uint64_t npages, uint64_t t)
{
	return first_page_in(st, slot, 0, npages, t);
}

static int splittable(const tb_session *s)
{
	size_t i;
	if (!s->info.is_dat || !s->nbufs)
		return 0;
	for (i = 0; i < s->nbufs; i++)
		if (s->bufs[i].b->compressed)
			return 0;
	return 1;
}

/* The plan's search keeps, for each CPU of the first PLAN_NARROW, the
 * range of page counts its answer can take: each probe then searches only
 * that range, instead of about 64 x log2(pages) page headers per CPU, each
 * a page of the capture touched for the first time (0.07 s of a 386 MiB
 * capture's serial start before the threads could run).  The probes are
 * aimed (plan_aim) rather than halving the time range, and once every
 * range is one page wide the answer is read off those pages
 * (plan_finish): 4,421 header reads for 46 bounds of that capture, where
 * halving read 11,307.  The bounds are those of the unnarrowed bisection
 * on every capture whose CPUs' pages are in time order: any probe inside
 * the range keeps the bisection's answer. */
#define PLAN_NARROW 128
/* After this many aimed probes in a row that did not halve the time range,
 * the next one halves it: a bound never takes many more probes than the
 * bisection would. */
#define PLAN_AIM_MISSES 3

typedef struct plan_range {
	uint64_t lo, hi;
} plan_range;

/* Pages of every CPU whose header time is below t, each CPU searched in
 * its range r[j] (NULL: all its pages), its count put in at[j]. */
static uint64_t pages_before_in(const tb_session *s, uint64_t t, const plan_range *r,
				uint64_t *at)
{
	uint64_t sum = 0;
	size_t i, k, j = 0;
	for (i = 0; i < s->nbufs; i++) {
		const tb_dat_stream *st = &s->bufs[i].s;
		for (k = 0; k < st->ncur; k++, j++) {
			uint64_t n = 0, c;
			if (tb_dat_stream_pages(st, k, &n) != TB_OK)
				n = 0;
			c = r ? first_page_in(st, k, r[j].lo, r[j].hi, t) : first_page_at(st, k, n, t);
			if (at)
				at[j] = c;
			sum += c;
		}
	}
	return sum;
}

/* About span * num / den (num <= den, den > 0), at most span, in 64 bits:
 * den and num are cut to 32 bits first so that r * num cannot overflow. */
static uint64_t plan_scale(uint64_t span, uint64_t num, uint64_t den)
{
	uint64_t q, r;
	while (den > UINT32_MAX) {
		den >>= 1;
		num >>= 1;
	}
	q = span / den;
	r = span % den;
	return q * num + r * num / den;
}

/*
 * The next probe in [a, b) (a < b) for the share `want`, with sum_lo and
 * sum_hi the sums of the ranges' ends: where the pages' times would put it
 * if they came at an even rate between a and b, aimed `over` pages past
 * the share when the probes so far all fell short (or before it when they
 * all overshot), so that the next one lands on the other side and closes
 * the range from both ends.
 */
static uint64_t plan_aim(uint64_t a, uint64_t b, uint64_t want, uint64_t sum_lo,
			 uint64_t sum_hi, uint64_t over, int side)
{
	uint64_t target = want;
	if (sum_hi <= sum_lo || want <= sum_lo || want > sum_hi)
		return a + (b - a) / 2;
	if (side < 0)
		target = over - 1 < sum_hi - want ? want + (over - 1) : sum_hi;
	else if (side > 0)
		target = want - sum_lo > over ? want - over : sum_lo + 1;
	return a + plan_scale(b - 1 - a, target - sum_lo, sum_hi - sum_lo);
}

/*
 * Every range at most one page wide: the least t in [a, b) whose pages
 * before it reach want, read off the one page each range still holds (at[j]
 * takes its time; UINT64_MAX, never before any t, when the range is empty
 * or its header cannot be read, which counts as later as in
 * first_page_in), else b.  The ranges' lower ends move to the counts at t.
 */
static uint64_t plan_finish(const tb_session *s, plan_range *r, uint64_t *at, size_t ncur,
			    uint64_t a, uint64_t b, uint64_t want)
{
	uint64_t below = 0, t = b, v = 0, seen = 0;
	size_t i, k, j = 0;
	for (i = 0; i < s->nbufs; i++) {
		const tb_dat_stream *st = &s->bufs[i].s;
		for (k = 0; k < st->ncur; k++, j++) {
			below += r[j].lo;
			if (r[j].hi <= r[j].lo || tb_dat_stream_page_ts(st, k, r[j].lo, &at[j]) != TB_OK)
				at[j] = UINT64_MAX;
		}
	}
	if (below >= want) {
		t = a;
	} else {
		/* the (want - below)-th smallest time, found value by value
		 * (at most ncur of them) */
		int first = 1;
		while (seen < want - below) {
			uint64_t next = UINT64_MAX;
			for (j = 0; j < ncur; j++)
				if (at[j] < next && (first || at[j] > v))
					next = at[j];
			if (next == UINT64_MAX)
				break; /* fewer pages than the share: b */
			for (j = 0; j < ncur; j++)
				seen += at[j] == next;
			v = next;
			first = 0;
		}
		if (seen >= want - below)
			t = v + 1 > a ? v + 1 : a;
		if (t > b)
			t = b;
	}
	for (j = 0; j < ncur; j++)
		if (at[j] < t)
			r[j].lo++;
	return t;
}

/* Each range's upper end back to all its CPU's pages. */
static void plan_ranges_top(const tb_session *s, plan_range *r)
{
	size_t i, k, j = 0;
	for (i = 0; i < s->nbufs; i++) {
		const tb_dat_stream *st = &s->bufs[i].s;
		for (k = 0; k < st->ncur; k++, j++) {
			uint64_t n = 0;
			r[j].hi = tb_dat_stream_pages(st, k, &n) == TB_OK ? n : 0;
			if (r[j].lo > r[j].hi)
				r[j].lo = r[j].hi;
		}
	}
}

static int plan_store(void *ctx, size_t i, uint64_t bound)
{
	((uint64_t *)ctx)[i] = bound;
	return 0;
}

tb_status tb_session_plan(const tb_session *s, size_t k, uint64_t *bounds, size_t *nbounds,
			  tb_error *err)
{
	tb_error_clear(err);
	if (!s || !nbounds || (k > 1 && !bounds))
		return tb_fail(err, TB_ERR_ARG, 0, "NULL argument");
	return tb_session_plan_each(s, k, plan_store, bounds, nbounds, err);
}

tb_status tb_session_plan_each(const tb_session *s, size_t k,
			       int (*each)(void *ctx, size_t i, uint64_t bound), void *ctx,
			       size_t *nbounds, tb_error *err)
{
	uint64_t total = 0, lo = UINT64_MAX, hi = 0, prev;
	uint64_t at[PLAN_NARROW] = { 0 }; /* each probe's counts (rp: filled by pages_before_in) */
	plan_range r[PLAN_NARROW], *rp = NULL;
	size_t i, j, n = 0, ncur = 0;
	tb_error_clear(err);
	if (!s || !nbounds || !each)
		return tb_fail(err, TB_ERR_ARG, 0, "NULL argument");
	*nbounds = 0;
	if (k < 2 || !splittable(s))
		return TB_OK;
	/* the pages and the time range their headers span */
	for (i = 0; i < s->nbufs; i++) {
		const tb_dat_stream *st = &s->bufs[i].s;
		for (j = 0; j < st->ncur; j++, ncur++) {
			uint64_t np = 0, ts;
			if (ncur < PLAN_NARROW)
				r[ncur].lo = 0;
			if (tb_dat_stream_pages(st, j, &np) != TB_OK || !np)
				continue;
			total += np;
			if (tb_dat_stream_page_ts(st, j, 0, &ts) == TB_OK && ts < lo)
				lo = ts;
			if (tb_dat_stream_page_ts(st, j, np - 1, &ts) == TB_OK && ts > hi)
				hi = ts;
		}
	}
	if (ncur <= PLAN_NARROW) {
		rp = r;
		plan_ranges_top(s, r);
	}
	if (total < 2 || lo >= hi)
		return TB_OK;
	/* an offset that carries some times past 2^64 and not others leaves
	 * no increasing split times: one part */
	if (hi + (uint64_t)s->info.ts_offset < lo + (uint64_t)s->info.ts_offset)
		return TB_OK;
	prev = lo;
	for (i = 1; i < k; i++) {
		/* the least t > prev with the share i/k of the pages starting before it */
		uint64_t want = total / k * i + total % k * i / k, a = prev + 1, b = hi + 1;
		uint64_t over1 = ncur ? ncur : 1, over = over1; /* one page a CPU */
		int side = 0, misses = 0;
		while (a < b) {
			uint64_t mid = a + (b - a) / 2, sum_lo = 0, sum_hi = 0, span = b - a;
			int enough, wide = 0, aimed = 0;
			for (j = 0; rp && j < ncur; j++) {
				sum_lo += r[j].lo;
				sum_hi += r[j].hi;
				wide |= r[j].hi - r[j].lo > 1;
			}
			if (rp && !wide) {
				a = plan_finish(s, r, at, ncur, a, b, want);
				break;
			}
			if (rp && misses < PLAN_AIM_MISSES && want <= sum_hi) {
				mid = plan_aim(a, b, want, sum_lo, sum_hi, over, side);
				aimed = 1;
			}
			enough = pages_before_in(s, mid, rp, rp ? at : NULL) >= want;
			if (enough)
				b = mid;
			else
				a = mid + 1;
			/* a probe on the same side as the last aims further past
			 * the share; the first on the other side starts over */
			if (side == (enough ? 1 : -1))
				over = over <= UINT64_MAX / 2 ? over * 2 : over;
			else
				over = over1;
			side = enough ? 1 : -1;
			misses = aimed && b - a > span / 2 ? misses + 1 : 0;
			/* the counts at mid bound those of the times left:
			 * from above when the answer is at or below mid, from
			 * below when it is past mid */
			for (j = 0; rp && j < ncur; j++) {
				if (enough)
					r[j].hi = at[j];
				else
					r[j].lo = at[j];
			}
		}
		if (a > hi || each(ctx, n, a + (uint64_t)s->info.ts_offset) != 0)
			break;
		*nbounds = ++n;
		prev = a;
		/* the next search starts past a: its counts are at least the
		 * lower bounds found; the upper ones start over */
		if (rp)
			plan_ranges_top(s, r);
	}
	return TB_OK;
}

/* A CPU cursor's position as a mark (its next record, if it has one). */
static tb_session_mark cursor_mark(const tb_dat_stream *st, const tb_dat_cursor *c)
{
	tb_session_mark m;
	memset(&m, 0, sizeof(m));
	if (c->irec < c->nrecs) {
		const tb_kbuf_record *r = &c->recs[c->irec];
		m.state = 1;
		m.page = c->page_index ? c->page_index - 1 : 0;
		m.offset = r->offset;
		if (c->missed && (!(st->flags & TB_DAT_STREAM_TC_DROPS) || r->index == 0))
			m.missed = (uint64_t)c->missed;
	} else if (!c->done) {
		m.state = 2; /* not positioned yet: the CPU's first page */
	}
	return m;
}

static tb_status part_position(tb_session *p, tb_error *err)
{
	size_t i, k, m = 0;
	for (i = 0; i < p->nbufs; i++) {
		dat_src *ds = &p->bufs[i];
		tb_status st;
		ds->s.flags = p->parent->bufs[i].s.flags;
		if ((st = stream_start(p, ds, err)) != TB_OK)
			return st;
		ds->has_head = ds->done = 0;
		memset(ds->cst, 0, ds->b->ncpus * sizeof(*ds->cst));
		for (k = 0; k < ds->s.ncur; k++) {
			if (p->has_from) {
				uint64_t np = 0, pg;
				if ((st = tb_dat_stream_pages(&ds->s, k, &np)) != TB_OK)
					return tb_fail(err, st, ds->b->section_offset,
						       "a part of compressed CPU data");
				pg = first_page_at(&ds->s, k, np, p->from_raw);
				/* the page before may still hold records at or past from */
				if ((st = tb_dat_stream_seek(&ds->s, k, pg ? pg - 1 : 0, err)) != TB_OK)
					return st;
				if ((st = tb_dat_stream_skip_before(&ds->s, k, p->from_raw, NULL)) !=
				    TB_OK)
					return tb_fail(err, st, 0, "skipping to the part's start");
			}
			p->start_marks[m++] = cursor_mark(&ds->s, &ds->cur[k]);
		}
	}
	p->last_ts = 0;
	p->last_entry = NULL;
	memset(p->task, 0, sizeof(p->task));
	p->prev_line_ts = p->pending_line_ts = 0;
	p->have_prev_line = 0;
	memset(&p->last, 0, sizeof(p->last));
	return start_merges(p, err);
}

tb_status tb_session_part_seek(tb_session *p, const uint64_t *from, const uint64_t *to,
			       tb_error *err)
{
	uint64_t off;
	tb_error_clear(err);
	if (!p || !p->parent)
		return tb_fail(err, TB_ERR_ARG, 0, "not a part");
	if (from && !splittable(p->parent))
		return tb_fail(err, TB_ERR_UNSUPPORTED, 0,
			       "a part that does not start at the start of compressed CPU data");
	off = (uint64_t)p->info.ts_offset;
	p->has_from = from != NULL;
	p->from_raw = from ? *from - off : 0;
	p->has_to = to != NULL;
	p->to_raw = to ? *to - off : 0;
	return part_position(p, err);
}

static void part_close(tb_session *p)
{
	tb_mem m = p->mem;
	size_t i;
	if (m.free) {
		for (i = 0; p->pprog && i < p->ntexts; i++) {
			if (p->pprog[i].p[1])
				m.free(m.ctx, p->pprog[i].p[1], sizeof(tb_render_prog));
			if (p->pprog[i].p[0])
				m.free(m.ctx, p->pprog[i].p[0], sizeof(tb_render_prog));
		}
		if (p->rbuf)
			m.free(m.ctx, p->rbuf, p->rcap);
		while (p->nregions) {
			p->nregions--;
			m.free(m.ctx, p->regions[p->nregions].p, p->regions[p->nregions].n);
		}
		m.free(m.ctx, p, sizeof(*p));
	}
}

tb_status tb_session_part_open(tb_session **out, const tb_session *s, const tb_mem *mem,
			       const uint64_t *from, const uint64_t *to, tb_error *err)
{
	tb_session *p;
	size_t i, total = 0, ncpu = 0, at;
	uint8_t *base;
	tb_status st;
	tb_error_clear(err);
	if (!out || !s || !mem || !mem->alloc)
		return tb_fail(err, TB_ERR_ARG, 0, "NULL argument");
	*out = NULL;
	if (s->parent || !s->prepared)
		return tb_fail(err, TB_ERR_ARG, 0,
			       "parts are opened on a session after tb_session_prepare");
	if (!s->info.is_dat)
		return tb_fail(err, TB_ERR_UNSUPPORTED, 0, "parts of raw dumps");
	if (from && !splittable(s))
		return tb_fail(err, TB_ERR_UNSUPPORTED, 0,
			       "a part that does not start at the start of compressed CPU data");
	/* one region: buffers, per buffer its cursors, stats and chunks, the
	 * start marks, the program table */
	total = ALIGN_UP((s->nbufs ? s->nbufs : 1) * sizeof(dat_src));
	for (i = 0; i < s->nbufs; i++) {
		size_t nc = s->bufs[i].b->ncpus;
		total += ALIGN_UP(nc * sizeof(tb_dat_cursor)) +
			 ALIGN_UP(nc * sizeof(tb_session_cpu_stats)) +
			 ALIGN_UP(s->bufs[i].chunks_len);
		ncpu += nc;
	}
	total += ALIGN_UP((ncpu ? ncpu : 1) * sizeof(tb_session_mark)) +
		 ALIGN_UP((s->ntexts ? s->ntexts : 1) * sizeof(part_prog));
	if (s->budget && (s->held >= s->budget || sizeof(*p) > s->budget - s->held))
		return tb_fail(err, TB_ERR_BUDGET, 0, part_session);
	p = mem->alloc(mem->ctx, sizeof(*p));
	if (!p)
		return tb_fail(err, TB_ERR_NO_SPACE, 0, "no memory for the part");
	*p = *s;
	p->mem = *mem;
	p->parent = s;
	/* what the session left of its budget */
	p->budget = s->budget ? s->budget - s->held : 0;
	p->held = p->peak = sizeof(*p);
	memset(&p->nd, 0, sizeof(p->nd));
	p->nregions = 0;
	p->rbuf = NULL;
	p->rcap = p->rlen = 0;
	p->raw = NULL;
	p->nraw = 0;
	p->pprog = NULL;
	base = take(p, total, part_streams);
	if (!base) {
		st = no_memory(p, err, 0, "no memory for the part's cursors");
		part_close(p);
		return st;
	}
	at = 0;
	p->bufs = (dat_src *)(void *)base;
	at += ALIGN_UP((s->nbufs ? s->nbufs : 1) * sizeof(dat_src));
	for (i = 0; i < s->nbufs; i++) {
		dat_src *ds = &p->bufs[i];
		size_t nc = s->bufs[i].b->ncpus;
		ds->b = s->bufs[i].b;
		ds->layout = s->bufs[i].layout;
		ds->cur = (tb_dat_cursor *)(void *)(base + at);
		at += ALIGN_UP(nc * sizeof(tb_dat_cursor));
		ds->cst = (tb_session_cpu_stats *)(void *)(base + at);
		at += ALIGN_UP(nc * sizeof(tb_session_cpu_stats));
		ds->chunks_len = s->bufs[i].chunks_len;
		ds->caps = s->bufs[i].caps; /* read only */
		ds->chunks = ds->chunks_len ? base + at : NULL;
		at += ALIGN_UP(ds->chunks_len);
	}
	p->start_marks = (tb_session_mark *)(void *)(base + at);
	p->nmarks = ncpu;
	at += ALIGN_UP((ncpu ? ncpu : 1) * sizeof(tb_session_mark));
	p->pprog = (part_prog *)(void *)(base + at);
	if ((st = tb_session_part_seek(p, from, to, err)) != TB_OK) {
		part_close(p);
		return st;
	}
	*out = p;
	return TB_OK;
}

size_t tb_session_part_marks(const tb_session *p, unsigned which, tb_session_mark *out,
			     size_t cap)
{
	size_t i, k, m = 0;
	if (!p || !p->parent)
		return 0;
	if (which == TB_SESSION_MARK_START) {
		for (i = 0; out && i < p->nmarks && i < cap; i++)
			out[i] = p->start_marks[i];
		return p->nmarks;
	}
	for (i = 0; i < p->nbufs; i++) {
		const dat_src *ds = &p->bufs[i];
		for (k = 0; k < ds->s.ncur; k++, m++) {
			tb_session_mark mk = cursor_mark(&ds->s, &ds->cur[k]);
			if (ds->has_head && ds->head.cpu == ds->cur[k].cpu->cpu) {
				/* the buffer's next event, taken from its cursor already */
				memset(&mk, 0, sizeof(mk));
				mk.state = 1;
				mk.page = ds->head.page_index;
				mk.offset = ds->head.offset;
				mk.missed = (uint64_t)ds->head.missed;
			}
			if (out && m < cap)
				out[m] = mk;
		}
	}
	return m;
}

size_t tb_session_listing_memory(const tb_session *s, uint64_t *out, size_t cap)
{
	size_t n = 0;
	for (size_t i = 0; s && s->fe && i < s->ntexts; i++) {
		const tb_render_prog *p = s->pprog ? s->pprog[i].p[1] : s->fe[i].prog[1];
		for (uint32_t k = 0; p && k < p->n_fops; k++) {
			if (!tb_pf_forgot_text(p, k))
				continue;
			if (out && n < cap)
				out[n] = (uint64_t)i << 16 | p->fops[k].field;
			n++;
		}
	}
	return n;
}

void tb_session_line_state_get(const tb_session *s, tb_session_line_state *out)
{
	if (!s || !out)
		return;
	out->prev_shown = s->prev_line_ts;
	out->have_prev = s->have_prev_line;
}

void tb_session_line_state_set(tb_session *s, const tb_session_line_state *in)
{
	if (!s || !in)
		return;
	s->prev_line_ts = in->prev_shown;
	s->have_prev_line = in->have_prev != 0;
}
