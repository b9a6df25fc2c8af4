/*
 * The session's renderings (session_impl.h): report's line (trace-cmd's
 * and perf script's) and the JSON object of an event.
 */
#include "fieldloc.h"
#include "session_impl.h"

/* ---- renderings ---- */

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
	unsigned options = which == 1 ? TB_RENDER_FIELD_LIST
			 : s->info.is_perf && (s->opt.flags & TB_SESSION_PERF_TEXT) ? TB_RENDER_PERF_STYLE
			 : s->opt.render_options;
	*slot = tb_ss_take_small(s, sizeof(tb_render_prog), part_program);
	if (!*slot)
		return NULL;
	/* always usable: a print fmt that does not compile renders the
	 * [FAILED TO PARSE] listing (the -R listing: every field raw) */
	(void)tb_render_compile(*slot, f, s->info.long_size, s->info.big_endian, options, NULL);
	return *slot;
}

/* The program of format f (which: 0 its print fmt, 1 the -R listing),
 * compiled on first use. */
tb_render_prog *tb_ss_program(tb_session *s, const tb_format *f, unsigned which)
{
	fmt_entry *e = s->last_entry && s->last_entry->fmt == f ? s->last_entry : tb_ss_entry_of(s, f->id);
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

/* Per event: the program of the last event's entry when it has one (the
 * walk just set it; a part's programs are its own), else the lookup. */
static inline tb_render_prog *event_program(tb_session *s, const tb_format *f, unsigned which)
{
	const fmt_entry *e = s->last_entry;
	if (e && e->fmt == f && !s->pprog && e->prog[which])
		return e->prog[which];
	return tb_ss_program(s, f, which);
}

/* The event's payload text (print fmt or -R listing) appended to t.  The
 * listing remembers the char arrays it printed as ARRAY[], as trace-cmd
 * does over a file (tb_render_stateful). */
TB_ALWAYS_INLINE tb_status payload(tb_session *s, const tb_session_event *ev, unsigned which, tb_text *t)
{
	tb_render_prog *p = event_program(s, ev->format, which);
	tb_render_result r;
	char *at;
	size_t room;
	if (!p)
		return tb_ss_mem_status(s);
	at = tb_text_tail(t, &room);
	if (which == 1)
		(void)tb_render_stateful(p, &s->env_fields, ev->data, ev->len, at, room, &r);
	else
		(void)tb_render(p, &s->env, ev->data, ev->len, at, room, &r);
	if (at && r.len == r.needed) {
		/* whole (the usual case): tb_text_advance's, known to land */
		t->len += r.len;
		t->need = t->len;
		if (r.len)
			t->last = (unsigned char)at[r.len - 1];
		return TB_OK;
	}
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
	p = tb_put_cpu_col(p, cpu);
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
TB_ALWAYS_INLINE tb_status perf_line(tb_session *s, const tb_session_event *ev, unsigned how, tb_text *t)
{
	tb_status st = TB_OK;
	tb_sperf_line_head(s->perf, &s->pitem, ev->comm, ev->comm_len, &s->phead, t);
	if (ev->format)
		st = payload(s, ev, (how & TB_TEXT_KIND_MASK) == TB_TEXT_FIELDS, t);
	else if (ev->data)
		tb_text_puts(t, "[UNKNOWN EVENT]");
	if (tb_text_last(t) != '\n')
		tb_text_putc(t, '\n');
	tb_sperf_line_tail(s->perf, &s->pitem, &s->ks, t);
	return st;
}

/* trace-cmd's "%*s: " buffer column (instances): right-aligned. */
static void put_buffer_column(const tb_session *s, const tb_session_event *ev, tb_text *t)
{
	const tb_session_buffer_info *bi = tb_session_buffer(s, ev->buffer);
	if (!bi)
		return;
	if (bi->name.len) {
		tb_text_fill(t, ' ', s->maxname - bi->name.len);
		tb_text_put(t, bi->name.ptr, bi->name.len);
		tb_text_put(t, ": ", 2);
	} else {
		tb_text_fill(t, ' ', s->maxname + 2);
	}
}

/* What goes before an event's columns: the instance column, the drop
 * report (its own line).  1: the damage report, the whole line. */
static int line_start(const tb_session *s, const tb_session_event *ev, unsigned how, tb_text *t)
{
	if (s->maxname && !(how & TB_TEXT_NO_BUFFER))
		put_buffer_column(s, ev, t);
	if (ev->kind == TB_SEV_DAMAGED) {
		tb_text_puts(t, "CPU:");
		tb_text_u64(t, ev->cpu, 0, 0);
		tb_text_puts(t, " [PAGE ");
		tb_text_u64(t, ev->page_index, 0, 0);
		tb_text_puts(t, " DAMAGED: ");
		tb_text_puts(t, ev->damage.what ? ev->damage.what : "?");
		tb_text_puts(t, "]\n");
		return 1;
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
	return 0;
}

/* trace-cmd's line (after line_start). */
static tb_status dat_line(tb_session *s, const tb_session_event *ev, unsigned how, tb_text *t)
{
	const tb_session_buffer_info *bi;
	const tb_format *f = ev->format;
	tb_status st = TB_OK;
	if (!f) {
		tb_text_puts(t, "[UNKNOWN EVENT][UNKNOWN EVENT] (NULL):               "
				"[UNKNOWN EVENT]\n");
		return TB_OK;
	}
	bi = tb_session_buffer(s, ev->buffer);
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
		if (!tb_field_scalar_in(f, ev->data, ev->len, be, &v) &&
		    tb_field_int(f, ev->data, ev->len, be, &v, &e) != TB_OK)
			tb_text_puts(t, "null");
		else if (f->flags & TB_FIELD_SIGNED)
			tb_text_i64(t, (int64_t)v, 0, 0);
		else
			tb_text_u64(t, v, 0, 0);
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
		const uint8_t *d = NULL;
		size_t n = 0, i;
		int opaque = f->kind == TB_FIELD_OPAQUE;
		if ((opaque ? tb_field_bytes(f, ev->data, ev->len, be, &d, &n, &e)
			    : tb_field_count(f, ev->data, ev->len, be, &n, &e)) != TB_OK) {
			tb_text_puts(t, "null");
			return;
		}
		tb_text_putc(t, '[');
		for (i = 0; i < n; i++) {
			if (i)
				tb_text_putc(t, ',');
			if (opaque)
				tb_text_u64(t, d[i], 0, 0);
			else if (tb_field_elem(f, ev->data, ev->len, be, i, &v, &e) != TB_OK)
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
	const tb_render_prog *p = tb_ss_program(s, ev->format, 0);
	tb_render_result r;
	if (!p)
		return tb_ss_mem_status(s);
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
		tb_ss_mem_put(s, s->rbuf, s->rcap);
		s->rcap = r.needed + 1 > 4096 ? r.needed + 1 : 4096;
		s->rbuf = tb_ss_mem_get(s, s->rcap, part_render);
		if (!s->rbuf) {
			s->rcap = 0;
			return tb_ss_mem_status(s);
		}
	}
}

/* A JSON member's key (a literal: `,"name":`) and its number, one room
 * check for both (the bare number's 25 bytes, as tb_text_u64's). */
#define KEY_U64(t, key, v) key_num(t, key, sizeof(key) - 1, v, 0)
#define KEY_I64(t, key, v) key_num(t, key, sizeof(key) - 1, mag_of(v), (v) < 0)

/* |v| (two's complement: the bits flipped and one added when negative). */
static inline uint64_t mag_of(int64_t v)
{
	uint64_t neg = v < 0;
	return ((uint64_t)v ^ (0 - neg)) + neg;
}

TB_ALWAYS_INLINE void key_num(tb_text *t, const char *key, size_t n, uint64_t mag, int neg)
{
	if (t->len == t->need && t->cap - t->len >= n + 26) {
		char *p = t->buf + t->len;
		memcpy(p, key, n);
		p += n;
		*p = '-';
		p += neg;
		p += tb_dec_fast(p, mag);
		t->len = (size_t)(p - t->buf);
		t->need = t->len;
		t->last = (unsigned char)p[-1];
		return;
	}
	tb_text_put(t, key, n);
	tb_text_put(t, "-", (size_t)neg);
	tb_text_u64(t, mag, 0, 0);
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
	KEY_U64(t, "\"cpu\":", ev->cpu);
	KEY_U64(t, ",\"ts\":", ev->ts);
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
		KEY_I64(t, ",\"pid\":", ev->pid);
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
	if (ev->has_id)
		KEY_U64(t, ",\"id\":", ev->id);
	else
		tb_text_puts(t, ",\"id\":null");
	if (ev->missed) {
		tb_text_puts(t, ",\"missed\":");
		tb_text_i64(t, ev->missed, 0, 0);
	}
	KEY_U64(t, ",\"subbuf\":", ev->page_index);
	KEY_U64(t, ",\"offset\":", ev->offset);
	KEY_U64(t, ",\"size\":", ev->len);
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

/* A kind tb_session_text knows. */
static int known_kind(unsigned how)
{
	unsigned kind = how & TB_TEXT_KIND_MASK;
	return kind == TB_TEXT_JSON || kind == TB_TEXT_PRINT || kind == TB_TEXT_FIELDS;
}

/* ev's text (how: a known kind) appended to t. */
TB_ALWAYS_INLINE tb_status text_to(tb_session *s, const tb_session_event *ev, unsigned how, tb_text *t)
{
	unsigned kind = how & TB_TEXT_KIND_MASK;
	tb_status st;
	if (kind == TB_TEXT_JSON)
		return json_event(s, ev, how, t);
	if (!(how & TB_TEXT_LINE))
		return ev->kind == TB_SEV_EVENT && ev->format ? payload(s, ev, kind == TB_TEXT_FIELDS, t)
							      : TB_OK;
	/* most lines: no instance column, no report before them */
	if ((s->maxname || ev->kind == TB_SEV_DAMAGED || ev->missed) && line_start(s, ev, how, t))
		return TB_OK;
	st = s->perf ? perf_line(s, ev, how, t) : dat_line(s, ev, how, t);
	if ((how & TB_TEXT_TSDIFF) && st == TB_OK && t->len == t->need && ev->kind == TB_SEV_EVENT &&
	    ev->format) {
		s->prev_line_ts = s->pending_line_ts;
		s->have_prev_line = 1;
	}
	return st;
}

tb_status tb_session_text_to(tb_session *s, const tb_session_event *ev, unsigned how, tb_text *t)
{
	tb_status st;
	if (!s || !ev || !t || !known_kind(how))
		return TB_ERR_ARG;
	/* what a fresh sink knows of its last byte (a line whose text ends
	 * in its own newline is not given a second) */
	t->last = -1;
	st = text_to(s, ev, how, t);
	if (st == TB_OK && t->len < t->need)
		st = TB_ERR_NO_SPACE;
	return st;
}

tb_status tb_session_text(tb_session *s, const tb_session_event *ev, unsigned how, char *out,
			  size_t cap, tb_render_result *res)
{
	tb_text t;
	tb_status st;
	tb_text_init(&t, out, cap);
	if (res)
		memset(res, 0, sizeof(*res));
	if (!s || !ev || !known_kind(how))
		return TB_ERR_ARG;
	st = text_to(s, ev, how, &t);
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
