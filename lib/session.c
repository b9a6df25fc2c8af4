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
#include "session_impl.h"

/* ---- the arena ---- */


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

/* Every byte of the session comes through here: held to the budget
 * before mem is asked (a refusal names the part and says how much). */
void *tb_ss_mem_get(tb_session *s, size_t n, const char *part)
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

void tb_ss_mem_put(tb_session *s, void *p, size_t n)
{
	if (!p || !s->mem.free)
		return; /* an arena without free: held until dropped */
	s->mem.free(s->mem.ctx, p, n);
	s->held -= n;
}

/* The error for an allocation that failed: over the budget, or mem had none. */
tb_status tb_ss_no_memory(const tb_session *s, tb_error *err, uint64_t off, const char *what)
{
	if (s->nd.refused)
		return tb_fail(err, TB_ERR_BUDGET, off, s->nd.refused);
	return tb_fail(err, TB_ERR_NO_SPACE, off, what);
}

/* What a call whose memory could not be had returns (no error record). */
tb_status tb_ss_mem_status(const tb_session *s)
{
	return s->nd.refused ? TB_ERR_BUDGET : TB_ERR_NO_SPACE;
}

static void *take_raw(tb_session *s, size_t n, const char *part)
{
	void *p;
	if (s->nregions >= TB_ARRAY_LEN(s->regions))
		return NULL;
	p = tb_ss_mem_get(s, n, part);
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
void *tb_ss_take(tb_session *s, size_t n, const char *part)
{
	void *p = take_raw(s, n, part);
	if (p)
		memset(p, 0, n);
	return p;
}

/* Give back the newest region (only valid for the one tb_ss_take() returned last). */
static void give_back_last(tb_session *s)
{
	if (!s->nregions)
		return;
	s->nregions--;
	tb_ss_mem_put(s, s->regions[s->nregions].p, s->regions[s->nregions].n);
}

/* Per-format memory is not a region: it is taken and kept separately
 * (not zeroed: every user fills what it reads). */
void *tb_ss_take_small(tb_session *s, size_t n, const char *part)
{
	void *p = tb_ss_mem_get(s, n, part);
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
				return tb_ss_no_memory(s, err, 0, "trace.dat tables too large");
			}
			total += ALIGN_UP(sz[i]);
		}
		if (s->dat_store) {
			give_back_last(s);
			s->dat_store = NULL;
		}
		s->nd.sections = s->d.need.scratch;
		s->nd.container = total;
		p = tb_ss_take(s, total ? total : 1, part_container);
		if (!p)
			return tb_ss_no_memory(s, err, 0, "no memory for the trace.dat tables");
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

fmt_entry *tb_ss_entry_of(const tb_session *s, uint32_t id)
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
	s->fe = tb_ss_take(s, (n ? n : 1) * sizeof(fmt_entry), part_tables);
	s->index_len = pow2_at_least(2 * n + 1);
	s->index = s->fe ? tb_ss_take(s, s->index_len * sizeof(id_slot), part_tables) : NULL;
	s->scratch_fields = s->index ? tb_ss_take(s, TB_FORMAT_MAX_FIELDS * sizeof(tb_field),
					    part_tables) : NULL;
	if (!s->scratch_fields)
		return tb_ss_no_memory(s, err, 0, "no memory for the format index");
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
		if (tb_ss_entry_of(s, f.id)) {
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
const tb_format *tb_ss_entry_format(tb_session *s, fmt_entry *e)
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
	p = tb_ss_take_small(s, fsz + (size_t)f.nfields * sizeof(tb_field), part_format);
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
	fmt_entry *e = s ? tb_ss_entry_of(s, id) : NULL;
	return e ? tb_ss_entry_format(s, e) : NULL;
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
		f = tb_ss_entry_format(s, &s->fe[i]);
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
		return tb_ss_no_memory(s, err, 0, "no memory for the symbol tables");
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
tb_status tb_ss_stream_start(const tb_session *s, dat_src *ds, tb_error *err)
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
	s->bufs = tb_ss_take(s, (n ? n : 1) * sizeof(dat_src), part_streams);
	s->binfo = s->bufs ? tb_ss_take(s, (n ? n : 1) * sizeof(tb_session_buffer_info), part_streams)
			   : NULL;
	if (!s->binfo)
		return tb_ss_no_memory(s, err, 0, "no memory for the buffers");
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
		ds->cur = tb_ss_take(s, ALIGN_UP(b->ncpus * sizeof(tb_dat_cursor)) +
					  ALIGN_UP(b->ncpus * sizeof(tb_session_cpu_stats)) +
					  b->ncpus * sizeof(size_t),
			       part_streams);
		if (!ds->cur)
			return tb_ss_no_memory(s, err, b->section_offset,
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
		ds->chunks = chunks ? tb_ss_take(s, chunks, part_streams) : NULL;
		if (chunks && !ds->chunks)
			return tb_ss_no_memory(s, err, b->section_offset,
					 "no memory for the buffer's chunks");
		ds->s.flags = (s->opt.flags & TB_SESSION_TC_DROPS) ? TB_DAT_STREAM_TC_DROPS : 0u;
		st = tb_ss_stream_start(s, ds, &e);
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
	s->texts_ = tb_ss_take(s, (s->ntexts ? s->ntexts : 1) * sizeof(tb_session_format_text),
			 part_tables);
	if (!s->texts_)
		return tb_ss_no_memory(s, err, 0, "no memory for the format list");
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
	void *p = tb_ss_mem_get(s, n, part_perf);
	if (p)
		s->nd.streams += n;
	return p;
}

static void perf_put(void *ctx, void *p, size_t n)
{
	tb_session *s = ctx;
	if (!p)
		return;
	tb_ss_mem_put(s, p, n);
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
	if (s->src.read)
		tb_sperf_read_through(s->perf, s->src.read, s->src.read_ctx);
	s->info.is_perf = 1;
	s->info.long_size = 8;
	if (trn) {
		if ((st = open_container(s, tr, trn, TB_DAT_OPEN_PERF_TRACING, err)) != TB_OK)
			return st;
		container_damage(s);
		if ((st = dat_tables(s, err)) != TB_OK)
			return st;
	} else {
		s->texts_ = tb_ss_take(s, sizeof(tb_session_format_text), part_tables);
		if (!s->texts_ || (st = load_formats(s, err)) != TB_OK ||
		    (st = load_tables(s, &none, &s->src.kallsyms, &none, err)) != TB_OK)
			return s->texts_ ? st : tb_ss_no_memory(s, err, 0, "no memory for the format list");
	}
	s->info.big_endian = tb_sperf_perf(s->perf)->big_endian;
	tb_sperf_name(s->perf, perf_format_name, s);
	s->binfo = tb_ss_take(s, sizeof(tb_session_buffer_info), part_streams);
	if (!s->binfo)
		return tb_ss_no_memory(s, err, 0, "no memory for the buffer");
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
	s->raw = tb_ss_take(s, (s->nraw ? s->nraw : 1) * sizeof(raw_cursor), part_streams);
	s->binfo = s->raw ? tb_ss_take(s, sizeof(tb_session_buffer_info), part_streams) : NULL;
	if (!s->binfo)
		return tb_ss_no_memory(s, err, 0, "no memory for the raw cursors");
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
tb_status tb_ss_start_merges(tb_session *s, tb_error *err)
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
		st = tb_ss_start_merges(s, err);
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


/* A format's two render programs, either of them missing (m.free set). */
void tb_ss_free_progs(tb_mem m, tb_render_prog *const p[2])
{
	if (p[1])
		m.free(m.ctx, p[1], sizeof(tb_render_prog));
	if (p[0])
		m.free(m.ctx, p[0], sizeof(tb_render_prog));
}

/* What a session and a part both give back last (m.free set): the
 * rendering buffer, the regions, the handle itself. */
void tb_ss_free_last(tb_session *s, tb_mem m)
{
	if (s->rbuf)
		m.free(m.ctx, s->rbuf, s->rcap);
	while (s->nregions) {
		s->nregions--;
		m.free(m.ctx, s->regions[s->nregions].p, s->regions[s->nregions].n);
	}
	m.free(m.ctx, s, sizeof(*s));
}

void tb_session_close(tb_session *s)
{
	tb_mem m;
	if (!s)
		return;
	if (s->parent) {
		tb_ss_part_close(s);
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
			tb_ss_free_progs(m, e->prog);
			if (e->fmt)
				m.free(m.ctx, e->fmt,
				       ALIGN_UP(sizeof(tb_format)) + (size_t)e->nfields * sizeof(tb_field));
		}
		tb_ss_free_last(s, m);
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

