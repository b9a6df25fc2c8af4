/* ftrace records as a Perfetto protobuf trace (see include/tracebound/perfetto.h). */
#include <string.h>

#include "tracebound/perfetto.h"
#include "internal.h"

/* Protobuf types of the schema's fields (the generated table uses them). */
enum tb_pf_type {
	TB_PF_T_INT32, TB_PF_T_INT64, TB_PF_T_UINT32, TB_PF_T_UINT64,
	TB_PF_T_SINT32, TB_PF_T_SINT64, TB_PF_T_BOOL, TB_PF_T_ENUM,
	TB_PF_T_FIXED32, TB_PF_T_FIXED64, TB_PF_T_SFIXED32, TB_PF_T_SFIXED64,
	TB_PF_T_FLOAT, TB_PF_T_DOUBLE, TB_PF_T_STRING, TB_PF_T_BYTES,
	TB_PF_T_MESSAGE
};

typedef struct tb_pf_field {
	const char *name;
	uint32_t num;      /* field number in the typed message */
	uint8_t type;      /* tb_pf_type */
	uint8_t repeated;
} tb_pf_field;

typedef struct tb_pf_event {
	const char *name;  /* FtraceEvent oneof member = the kernel's event name */
	const char *group; /* ftrace/<group>.proto = the kernel's event system */
	uint32_t num;      /* field number in FtraceEvent */
	uint32_t first;    /* its fields: tb_pf_fields[first .. first + nfields) */
	uint32_t nfields;
} tb_pf_event;

#include "perfetto_fields.h"

#define NO_FIELD 0xffffu
#define SEQ_ID 1u /* every packet on one trusted sequence */

/*
 * The events Perfetto builds its scheduling, process, CPU and marker views
 * from: typed even when the kernel added fields the schema lacks (those
 * fields are dropped and counted), unless TB_PF_LOSSLESS.
 */
static const char *const view_events[] = {
	"cpu_frequency", "cpu_idle", "irq_handler_entry", "irq_handler_exit",
	"print", "sched_process_exit", "sched_process_fork", "sched_process_free",
	"sched_switch", "sched_wakeup", "sched_wakeup_new", "sched_waking",
	"softirq_entry", "softirq_exit", "softirq_raise", "task_newtask",
	"task_rename", "workqueue_execute_end", "workqueue_execute_start",
};

/* strcmp order of s[0..n) against the NUL-terminated t (no libc strcmp). */
static int name_cmp(const char *s, size_t n, const char *t)
{
	size_t tl = strlen(t), k = n < tl ? n : tl;
	int c = k ? memcmp(s, t, k) : 0;
	if (c)
		return c;
	return n < tl ? -1 : n > tl;
}

static int32_t find_typed(const char *name, size_t n)
{
	size_t lo = 0, hi = TB_PF_NEVENTS;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = name_cmp(name, n, tb_pf_events[mid].name);
		if (c == 0)
			return (int32_t)mid;
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return -1;
}

static int is_view_event(const char *name, size_t n)
{
	size_t i;
	for (i = 0; i < TB_ARRAY_LEN(view_events); i++)
		if (name_cmp(name, n, view_events[i]) == 0)
			return 1;
	return 0;
}

static int is_scalar(const tb_field *f)
{
	return f->kind == TB_FIELD_INT || f->kind == TB_FIELD_LONG ||
	       f->kind == TB_FIELD_POINTER;
}

static int is_text(const tb_field *f)
{
	return f->kind == TB_FIELD_STRING ||
	       ((f->flags & TB_FIELD_TEXT) &&
		(f->kind == TB_FIELD_ARRAY || f->kind == TB_FIELD_DYNAMIC ||
		 f->kind == TB_FIELD_REST));
}

static int is_word(uint32_t n)
{
	return n == 1 || n == 2 || n == 4 || n == 8;
}

/* Numeric elements (arrays of integers): what repeated fields take. */
static int is_elems(const tb_field *f)
{
	return (f->kind == TB_FIELD_ARRAY || f->kind == TB_FIELD_DYNAMIC ||
		f->kind == TB_FIELD_REST) && !is_text(f) && is_word(f->elem_size);
}

/* Can the format field f fill the proto field p without losing its meaning? */
static int compatible(const tb_pf_field *p, const tb_field *f)
{
	switch (p->type) {
	case TB_PF_T_STRING:
		return !p->repeated && is_text(f);
	case TB_PF_T_BYTES:
		return !p->repeated && !is_scalar(f);
	case TB_PF_T_FLOAT:
	case TB_PF_T_DOUBLE:
	case TB_PF_T_MESSAGE:
		return 0;
	default:
		return p->repeated ? is_elems(f) : is_scalar(f);
	}
}

static int system_is(const tb_format *fmt, const char *group)
{
	return fmt->system && name_cmp(fmt->system, fmt->system_len, group) == 0;
}

static const tb_pf_map_ *map_of(tb_pf_writer *w, const tb_format *fmt)
{
	tb_pf_map_ *m = &w->cache[fmt->id % TB_PF_CACHE];
	const tb_field *cf;
	uint32_t j, mapped = 0, own;
	int32_t ev;
	if (m->format == fmt)
		return m;
	m->format = fmt;
	m->event = -1;
	m->dropped = 0;
	for (j = 0; j < TB_PF_MAX_MAP; j++)
		m->field[j] = NO_FIELD;
	cf = tb_format_field(fmt, "common_flags");
	m->flags_field = cf && is_scalar(cf) ? cf->index : NO_FIELD;
	if (w->cfg.flags & TB_PF_ALL_GENERIC)
		return m;
	ev = find_typed(fmt->name, fmt->name_len);
	if (ev < 0 || !system_is(fmt, tb_pf_events[ev].group) ||
	    tb_pf_events[ev].nfields > TB_PF_MAX_MAP)
		return m;
	for (j = 0; j < tb_pf_events[ev].nfields; j++) {
		const tb_pf_field *p = &tb_pf_fields[tb_pf_events[ev].first + j];
		const tb_field *f = tb_format_field(fmt, p->name);
		if (!f || (f->flags & TB_FIELD_COMMON))
			continue;
		if (!compatible(p, f))
			return m; /* same name, other meaning: keep it generic */
		m->field[j] = f->index;
		mapped++;
	}
	own = fmt->nfields - fmt->ncommon;
	if (own > mapped && ((w->cfg.flags & TB_PF_LOSSLESS) ||
			     !is_view_event(fmt->name, fmt->name_len)))
		return m;
	m->event = ev;
	m->dropped = own - mapped;
	return m;
}

const char *tb_pf_typed_name(tb_pf_writer *w, const tb_format *f)
{
	const tb_pf_map_ *m;
	if (!w || !f)
		return NULL;
	m = map_of(w, f);
	return m->event < 0 ? NULL : tb_pf_events[m->event].name;
}

/* ---- values ---- */

/* A number as its proto type holds it (a 32-bit type keeps the low half,
 * sign-extended when signed), then written in the type's wire encoding. */
static void put_number(tb_pb *pb, uint32_t num, unsigned type, uint64_t v)
{
	switch (type) {
	case TB_PF_T_INT32:
	case TB_PF_T_ENUM:
	case TB_PF_T_SINT32:
		v = tb_extend(v & 0xffffffffu, 4, 1);
		break;
	case TB_PF_T_UINT32:
	case TB_PF_T_FIXED32:
	case TB_PF_T_SFIXED32:
		v &= 0xffffffffu;
		break;
	case TB_PF_T_BOOL:
		v = v != 0;
		break;
	default:
		break;
	}
	if (type == TB_PF_T_SINT32 || type == TB_PF_T_SINT64)
		tb_pb_sint(pb, num, (int64_t)v);
	else if (type == TB_PF_T_FIXED32 || type == TB_PF_T_SFIXED32)
		tb_pb_fixed32(pb, num, (uint32_t)v);
	else if (type == TB_PF_T_FIXED64 || type == TB_PF_T_SFIXED64)
		tb_pb_fixed64(pb, num, v);
	else /* varints: (u)int32/64, enum, bool */
		tb_pb_uint(pb, num, v);
}

/* Element i of a value's bytes, extended as the field says. */
static uint64_t elem(const tb_field_value *v, uint32_t size, int sign, size_t i, int be)
{
	uint64_t x = tb_load_n(v->data + i * size, size, be);
	return tb_extend(x, size, sign);
}

static size_t text_len(const tb_field_value *v)
{
	const uint8_t *nul = v->len ? memchr(v->data, 0, v->len) : NULL;
	return nul ? (size_t)(nul - v->data) : v->len;
}

/* Length of the well-formed UTF-8 sequence at p[0..n) (RFC 3629: no
 * overlongs, no surrogates, nothing past U+10FFFF), 0 when there is none.
 * Protobuf strings must be UTF-8 (protoc reports anything else). */
static size_t utf8_seq(const uint8_t *p, size_t n)
{
	uint8_t c = p[0], lo = 0x80, hi = 0xbf;
	size_t k, len;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2;
	else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		if (c == 0xe0)
			lo = 0xa0;
		else if (c == 0xed)
			hi = 0x9f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		if (c == 0xf0)
			lo = 0x90;
		else if (c == 0xf4)
			hi = 0x8f;
	} else
		return 0;
	if (len > n)
		return 0;
	for (k = 1; k < len; k++) {
		if (p[k] < lo || p[k] > hi)
			return 0;
		lo = 0x80;
		hi = 0xbf;
	}
	return len;
}

static int utf8_valid(const uint8_t *p, size_t n)
{
	size_t i = 0;
	while (i < n) {
		size_t k = utf8_seq(p + i, n - i);
		if (!k)
			return 0;
		i += k;
	}
	return 1;
}

/* Do the record's texts for this typed message all read as UTF-8?  If
 * not, the record goes out as a generic event (its texts as bytes). */
static int typed_texts_ok(const tb_pf_writer *w, const tb_pf_map_ *m)
{
	const tb_pf_event *ev = &tb_pf_events[m->event];
	uint32_t j;
	for (j = 0; j < ev->nfields; j++) {
		const tb_field_value *v;
		if (m->field[j] == NO_FIELD || tb_pf_fields[ev->first + j].type != TB_PF_T_STRING)
			continue;
		v = &w->vals[m->field[j]];
		if (v->status == TB_OK && !utf8_valid(v->data, text_len(v)))
			return 0;
	}
	return 1;
}

static void typed_body(tb_pf_writer *w, tb_pb *pb, const tb_pf_map_ *m,
		       const tb_format *fmt, uint32_t *bad)
{
	const tb_pf_event *ev = &tb_pf_events[m->event];
	uint32_t j;
	tb_pb_begin(pb, ev->num);
	for (j = 0; j < ev->nfields; j++) {
		const tb_pf_field *p = &tb_pf_fields[ev->first + j];
		const tb_field_value *v;
		const tb_field *f;
		if (m->field[j] == NO_FIELD)
			continue;
		f = &fmt->fields[m->field[j]];
		v = &w->vals[m->field[j]];
		if (v->status != TB_OK) {
			(*bad)++;
			continue;
		}
		if (p->type == TB_PF_T_STRING) {
			tb_pb_bytes(pb, p->num, v->data, text_len(v));
		} else if (p->type == TB_PF_T_BYTES) {
			tb_pb_bytes(pb, p->num, v->data, v->len);
		} else if (p->repeated) {
			size_t i, n = v->len / f->elem_size;
			for (i = 0; i < n; i++)
				put_number(pb, p->num, p->type,
					   elem(v, f->elem_size, (f->flags & TB_FIELD_SIGNED) != 0, i,
						w->cfg.big_endian));
		} else {
			put_number(pb, p->num, p->type, v->num);
		}
	}
	tb_pb_end(pb);
}

/* "name[i]" into buf (room for TB_FORMAT_MAX_NAME + 24 bytes). */
static size_t elem_name(char *buf, const tb_field *f, size_t i)
{
	char dig[24];
	size_t n = f->name_len < TB_FORMAT_MAX_NAME ? f->name_len : TB_FORMAT_MAX_NAME, k = 0;
	memcpy(buf, f->name, n);
	buf[n++] = '[';
	do {
		dig[k++] = (char)('0' + i % 10);
		i /= 10;
	} while (i);
	while (k)
		buf[n++] = dig[--k];
	buf[n++] = ']';
	return n;
}

static void generic_field(tb_pb *pb, const char *name, size_t name_len, int sign,
			  uint64_t v)
{
	tb_pb_begin(pb, TB_PF_GENERIC_FIELD);
	tb_pb_bytes(pb, TB_PF_FIELD_NAME, name, name_len);
	if (sign)
		tb_pb_int(pb, TB_PF_FIELD_INT, (int64_t)v);
	else
		tb_pb_uint(pb, TB_PF_FIELD_UINT, v);
	tb_pb_end(pb);
}

static void generic_body(tb_pf_writer *w, tb_pb *pb, const tb_format *fmt, uint32_t *bad)
{
	char nm[TB_FORMAT_MAX_NAME + 24];
	uint32_t i;
	tb_pb_begin(pb, TB_PF_EVENT_GENERIC);
	tb_pb_bytes(pb, TB_PF_GENERIC_EVENT_NAME, fmt->name, fmt->name_len);
	for (i = 0; i < fmt->nfields; i++) {
		const tb_field *f = &fmt->fields[i];
		const tb_field_value *v = &w->vals[i];
		if (f->flags & TB_FIELD_COMMON)
			continue;
		if (v->status != TB_OK) {
			(*bad)++;
			tb_pb_begin(pb, TB_PF_GENERIC_FIELD);
			tb_pb_bytes(pb, TB_PF_FIELD_NAME, f->name, f->name_len);
			tb_pb_end(pb);
		} else if (is_scalar(f)) {
			generic_field(pb, f->name, f->name_len, (f->flags & TB_FIELD_SIGNED) != 0,
				      v->num);
		} else if (is_text(f) && utf8_valid(v->data, text_len(v))) {
			tb_pb_begin(pb, TB_PF_GENERIC_FIELD);
			tb_pb_bytes(pb, TB_PF_FIELD_NAME, f->name, f->name_len);
			tb_pb_bytes(pb, TB_PF_FIELD_STR, v->data, text_len(v));
			tb_pb_end(pb);
		} else {
			/* integers of the element size; anything else (and text
			 * that is not UTF-8, up to its NUL) as bytes */
			int text = is_text(f);
			int as_int = !text && f->kind != TB_FIELD_OPAQUE && is_word(f->elem_size);
			uint32_t size = as_int ? f->elem_size : 1;
			int sign = as_int && (f->flags & TB_FIELD_SIGNED) != 0;
			size_t k, n = (text ? text_len(v) : v->len) / size;
			for (k = 0; k < n; k++)
				generic_field(pb, nm, elem_name(nm, f, k), sign,
					      elem(v, size, sign, k, w->cfg.big_endian));
		}
	}
	tb_pb_end(pb);
}

/* A record without a format: its id and bytes, so nothing is lost. */
static void unknown_body(tb_pb *pb, const tb_pf_record *r)
{
	static const tb_field data = { 0, 0, 1, 0, TB_FIELD_ARRAY, 0, 4, 0, 0, "data", "u8" };
	char nm[TB_FORMAT_MAX_NAME + 24];
	uint32_t k;
	tb_pb_begin(pb, TB_PF_EVENT_GENERIC);
	tb_pb_str(pb, TB_PF_GENERIC_EVENT_NAME, "tb_unknown_event");
	generic_field(pb, "common_type", 11, 0, r->id);
	for (k = 0; k < r->len; k++)
		generic_field(pb, nm, elem_name(nm, &data, k), 0, r->data[k]);
	tb_pb_end(pb);
}

/* ---- bundles and packets ---- */

static tb_status emit(tb_pf_writer *w, const void *p, size_t n)
{
	tb_status s;
	if (!n)
		return TB_OK;
	s = w->cfg.write(w->cfg.ctx, p, n);
	if (s != TB_OK && w->status == TB_OK)
		w->status = s;
	w->stats.bytes += n;
	return s;
}

/* One TracePacket {trusted_packet_sequence_id, ftrace_events {a, b}}. */
static tb_status emit_bundle(tb_pf_writer *w, const uint8_t *a, size_t alen,
			     const uint8_t *b, size_t blen)
{
	uint8_t h[4 * TB_PB_VARINT_MAX];
	size_t n = 0, bundle = alen + blen, packet;
	tb_status s;
	packet = 2 + 1 + tb_pb_varint_len(bundle) + bundle;
	n += tb_pb_put_varint(h + n, (uint64_t)TB_PF_TRACE_PACKET << 3 | TB_PB_LEN);
	n += tb_pb_put_varint(h + n, packet);
	n += tb_pb_put_varint(h + n, (uint64_t)TB_PF_PACKET_SEQUENCE_ID << 3); /* a varint */
	n += tb_pb_put_varint(h + n, SEQ_ID);
	n += tb_pb_put_varint(h + n, (uint64_t)TB_PF_PACKET_FTRACE_EVENTS << 3 | TB_PB_LEN);
	n += tb_pb_put_varint(h + n, bundle);
	w->stats.packets++;
	if ((s = emit(w, h, n)) != TB_OK || (s = emit(w, a, alen)) != TB_OK)
		return s;
	return emit(w, b, blen);
}

static uint8_t *slot_mem(tb_pf_writer *w, const tb_pf_slot_ *s)
{
	return (uint8_t *)w->cfg.bundles + (size_t)(s - w->slots) * w->cfg.bundle_size;
}

/* The bundle's own fields, first in its body. */
static void open_slot(tb_pf_writer *w, tb_pf_slot_ *s, uint32_t buffer, uint32_t cpu)
{
	tb_pb pb;
	tb_pb_init(&pb, slot_mem(w, s), w->cfg.bundle_size);
	tb_pb_uint(&pb, TB_PF_BUNDLE_CPU, cpu);
	if (s->lost)
		tb_pb_uint(&pb, TB_PF_BUNDLE_LOST_EVENTS, 1);
	if (w->clock_kind) {
		tb_pb_uint(&pb, TB_PF_BUNDLE_FTRACE_CLOCK, w->clock_kind);
		tb_pb_int(&pb, TB_PF_BUNDLE_FTRACE_TIMESTAMP, (int64_t)w->clock_ts);
		tb_pb_int(&pb, TB_PF_BUNDLE_BOOT_TIMESTAMP, (int64_t)w->clock_ts);
	}
	s->len = pb.len; /* at most ~40 bytes: bundle_size >= TB_PF_MIN_BUNDLE */
	s->events = 0;
	s->cpu = cpu;
	s->buffer = buffer;
	s->open = 1;
}

static tb_status flush_slot(tb_pf_writer *w, tb_pf_slot_ *s)
{
	tb_status st = TB_OK;
	if (s->open && (s->events || s->lost)) {
		w->stats.lost_bundles += s->lost != 0;
		st = emit_bundle(w, slot_mem(w, s), s->len, NULL, 0);
	}
	s->open = 0;
	s->lost = 0;
	s->events = 0;
	return st;
}

/* The slot of (buffer, cpu), emptied of any other CPU's bundle. */
static tb_status slot_for(tb_pf_writer *w, uint32_t buffer, uint32_t cpu, tb_pf_slot_ **out)
{
	tb_pf_slot_ *s = &w->slots[((size_t)cpu + (size_t)buffer * 31u) % w->cfg.nslots];
	tb_status st = TB_OK;
	if ((s->open || s->lost) && (s->cpu != cpu || s->buffer != buffer)) {
		if (!s->open)
			open_slot(w, s, s->buffer, s->cpu); /* an empty bundle saying lost */
		st = flush_slot(w, s);
	}
	s->cpu = cpu;
	s->buffer = buffer;
	*out = s;
	return st;
}

static unsigned clock_kind(const char *c, size_t n)
{
	if (!c)
		return 0;
	if (name_cmp(c, n, "local") == 0)
		return TB_PF_CLOCK_LOCAL;
	if (name_cmp(c, n, "global") == 0)
		return TB_PF_CLOCK_GLOBAL;
	if (name_cmp(c, n, "mono_raw") == 0)
		return TB_PF_CLOCK_MONO_RAW;
	return 0; /* boot (Perfetto's default) and clocks its enum lacks */
}

/* n bytes from cfg.mem into *own (kept for tb_pf_release): 0, or -1. */
static int take(tb_pf_writer *w, size_t n, void **own, size_t *own_size)
{
	const tb_mem *mem = w->cfg.mem;
	if (!(*own = mem->alloc(mem->ctx, n ? n : 1)))
		return -1;
	*own_size = n ? n : 1;
	return 0;
}

tb_status tb_pf_init(tb_pf_writer *w, const tb_pf_config *cfg, tb_error *err)
{
	tb_pf_config c;
	if (!w || !cfg)
		return tb_fail(err, TB_ERR_ARG, 0, "perfetto writer: bad configuration");
	c = *cfg;
	if (c.mem && !c.bundle_size)
		c.bundle_size = TB_PF_DEFAULT_BUNDLE;
	if (c.mem && !c.scratch && !c.scratch_size)
		c.scratch_size = TB_PF_DEFAULT_SCRATCH;
	if (!c.write || (!c.mem && (!c.bundles || !c.scratch)) ||
	    c.nslots == 0 || c.nslots > TB_PF_MAX_SLOTS ||
	    c.bundle_size < TB_PF_MIN_BUNDLE || c.bundle_size > TB_PF_MAX_BUNDLE ||
	    c.bundle_size > SIZE_MAX / c.nslots)
		return tb_fail(err, TB_ERR_ARG, 0, "perfetto writer: bad configuration");
	memset(w, 0, sizeof(*w));
	w->cfg = c;
	w->clock_kind = clock_kind(c.clock, c.clock_len);
	if ((!c.bundles && take(w, c.nslots * c.bundle_size, &w->own_bundles_,
				&w->own_bundles_size_)) ||
	    (!c.scratch && take(w, c.scratch_size, &w->own_scratch_, &w->own_scratch_size_))) {
		tb_pf_release(w);
		return tb_fail(err, TB_ERR_NO_SPACE, 0, "perfetto writer: no memory");
	}
	if (!c.bundles)
		w->cfg.bundles = w->own_bundles_;
	if (!c.scratch)
		w->cfg.scratch = w->own_scratch_;
	tb_error_clear(err);
	return TB_OK;
}

void tb_pf_set_scratch(tb_pf_writer *w, void *scratch, size_t size)
{
	if (scratch) {
		w->cfg.scratch = scratch;
		w->cfg.scratch_size = size;
	}
}

static tb_status out_error(tb_pf_writer *w, tb_error *err)
{
	return tb_fail(err, w->status, w->stats.bytes, "perfetto writer: output failed");
}

static tb_status encode_once(tb_pf_writer *w, const tb_pf_record *r, tb_pf_encoded *out,
			     tb_error *err)
{
	const tb_pf_map_ *m = NULL;
	uint32_t bad = 0;
	int typed = 0;
	tb_pb pb;
	tb_error e;
	tb_status st;
	if (!w || !out)
		return tb_fail(err, TB_ERR_ARG, 0, "perfetto writer: no writer or result");
	if (w->status)
		return out_error(w, err);
	if (!r || (!r->data && r->len))
		return tb_fail(err, TB_ERR_ARG, 0, "perfetto writer: no record");
	tb_pb_init(&pb, w->cfg.scratch, w->cfg.scratch_size);
	tb_pb_begin(&pb, TB_PF_BUNDLE_EVENT);
	tb_pb_uint(&pb, TB_PF_EVENT_TIMESTAMP, r->ts);
	tb_pb_uint(&pb, TB_PF_EVENT_PID, (uint32_t)r->pid);
	if (r->format) {
		m = map_of(w, r->format);
		/* each field's own status says what could be read */
		st = tb_format_decode(r->format, r->data, r->len, w->cfg.big_endian,
				      w->vals, TB_FORMAT_MAX_FIELDS, &e);
		(void)st;
		if (m->flags_field != NO_FIELD && w->vals[m->flags_field].status == TB_OK &&
		    w->vals[m->flags_field].num)
			tb_pb_uint(&pb, TB_PF_EVENT_COMMON_FLAGS,
				   w->vals[m->flags_field].num & 0xffffffffu);
		typed = m->event >= 0 && typed_texts_ok(w, m);
		if (typed)
			typed_body(w, &pb, m, r->format, &bad);
		else
			generic_body(w, &pb, r->format, &bad);
	} else {
		unknown_body(&pb, r);
	}
	tb_pb_end(&pb);
	if ((st = tb_pb_status(&pb)) != TB_OK) {
		if (st == TB_ERR_NO_SPACE)
			w->need = pb.need;
		return tb_fail(err, st, 0, st == TB_ERR_NO_SPACE
				   ? "perfetto writer: event larger than the scratch buffer"
				   : "perfetto writer: event not encodable");
	}
	out->data = pb.buf;
	out->len = pb.len;
	out->ts = r->ts;
	out->missed = r->missed;
	out->cpu = r->cpu;
	out->buffer = r->buffer;
	out->kind = !r->format ? TB_PF_ENC_UNKNOWN : typed ? TB_PF_ENC_TYPED : TB_PF_ENC_GENERIC;
	out->dropped_fields = typed ? m->dropped : 0;
	out->bad_fields = bad;
	tb_error_clear(err);
	return TB_OK;
}

/* After TB_ERR_NO_SPACE, with cfg.mem: a scratch of w->need + 1 KiB in
 * place of the one grown before.  1: call again. */
static int grow(tb_pf_writer *w, tb_status st)
{
	void *p;
	size_t n;
	if (st != TB_ERR_NO_SPACE || !w->cfg.mem || w->need > SIZE_MAX - 1024 ||
	    take(w, w->need + 1024, &p, &n))
		return 0;
	if (w->own_scratch_)
		w->cfg.mem->free(w->cfg.mem->ctx, w->own_scratch_, w->own_scratch_size_);
	w->own_scratch_ = w->cfg.scratch = p;
	w->own_scratch_size_ = w->cfg.scratch_size = n;
	return 1;
}

void tb_pf_release(tb_pf_writer *w)
{
	const tb_mem *mem = w ? w->cfg.mem : NULL;
	if (!mem)
		return;
	if (w->own_scratch_)
		mem->free(mem->ctx, w->own_scratch_, w->own_scratch_size_);
	if (w->own_bundles_)
		mem->free(mem->ctx, w->own_bundles_, w->own_bundles_size_);
	if (w->cfg.scratch == w->own_scratch_)
		w->cfg.scratch = NULL;
	if (w->cfg.bundles == w->own_bundles_)
		w->cfg.bundles = NULL;
	w->own_scratch_ = w->own_bundles_ = NULL;
	w->own_scratch_size_ = w->own_bundles_size_ = 0;
}

tb_status tb_pf_encode(tb_pf_writer *w, const tb_pf_record *r, tb_pf_encoded *out,
			tb_error *err)
{
	tb_status st;
	while (grow(w, st = encode_once(w, r, out, err)))
		;
	return st;
}

tb_status tb_pf_place(tb_pf_writer *w, const tb_pf_encoded *r, tb_error *err)
{
	tb_pf_slot_ *s;
	tb_status st;
	if (!w || !r)
		return tb_fail(err, TB_ERR_ARG, 0, "perfetto writer: no writer or event");
	if (w->status)
		return out_error(w, err);
	if (!r->data || r->len == 0 || r->len > TB_PF_MAX_EVENT ||
	    r->kind < TB_PF_ENC_TYPED || r->kind > TB_PF_ENC_UNKNOWN)
		return tb_fail(err, TB_ERR_ARG, 0, "perfetto writer: not an encoded event");
	if (!w->have_clock_ts) {
		w->clock_ts = r->ts;
		w->have_clock_ts = 1;
	}
	w->stats.events++;
	if (r->kind == TB_PF_ENC_UNKNOWN)
		w->stats.unknown++;
	else if (r->kind == TB_PF_ENC_TYPED) {
		w->stats.typed++;
		w->stats.dropped_fields += r->dropped_fields;
	} else
		w->stats.generic++;
	w->stats.bad_fields += r->bad_fields;

	if (slot_for(w, r->buffer, r->cpu, &s) != TB_OK)
		return out_error(w, err);
	if (r->missed) {
		if (s->open && s->events && flush_slot(w, s) != TB_OK)
			return out_error(w, err);
		s->lost = 1;
		if (s->open)
			open_slot(w, s, r->buffer, r->cpu); /* header again, with lost_events */
	}
	if (!s->open)
		open_slot(w, s, r->buffer, r->cpu);
	if (r->len > w->cfg.bundle_size - s->len) {
		if (s->events) {
			if (flush_slot(w, s) != TB_OK)
				return out_error(w, err);
			open_slot(w, s, r->buffer, r->cpu);
		}
		if (r->len > w->cfg.bundle_size - s->len) {
			/* bigger than a bundle: a bundle of its own */
			w->stats.lost_bundles += s->lost != 0;
			st = emit_bundle(w, slot_mem(w, s), s->len, r->data, r->len);
			s->open = 0;
			s->lost = 0;
			return st ? out_error(w, err) : TB_OK;
		}
	}
	memcpy(slot_mem(w, s) + s->len, r->data, r->len);
	s->len += r->len;
	s->events++;
	tb_error_clear(err);
	return TB_OK;
}

tb_status tb_pf_add(tb_pf_writer *w, const tb_pf_record *r, tb_error *err)
{
	tb_pf_encoded enc;
	tb_status st;
	/* encode first: a record that does not fit changes nothing */
	if ((st = tb_pf_encode(w, r, &enc, err)) != TB_OK)
		return st;
	return tb_pf_place(w, &enc, err);
}

tb_status tb_pf_lost(tb_pf_writer *w, uint32_t buffer, uint32_t cpu, tb_error *err)
{
	tb_pf_slot_ *s;
	if (w->status || slot_for(w, buffer, cpu, &s) != TB_OK)
		return out_error(w, err);
	if (s->open && s->events && flush_slot(w, s) != TB_OK)
		return out_error(w, err);
	s->lost = 1;
	if (s->open)
		open_slot(w, s, buffer, cpu);
	return TB_OK;
}

/* A text as a string field: bytes that are not UTF-8 become the text "\\xNN". */
static void put_text(tb_pb *pb, uint32_t field, const uint8_t *p, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	size_t i, out = 0;
	if (utf8_valid(p, n)) {
		tb_pb_bytes(pb, field, p, n);
		return;
	}
	for (i = 0; i < n;) {
		size_t k = utf8_seq(p + i, n - i);
		out += k ? k : 4;
		i += k ? k : 1;
	}
	{
		uint8_t tag[2 * TB_PB_VARINT_MAX];
		size_t t = tb_pb_put_varint(tag, (uint64_t)field << 3 | TB_PB_LEN);
		t += tb_pb_put_varint(tag + t, out);
		tb_pb_raw(pb, tag, t);
	}
	for (i = 0; i < n;) {
		size_t k = utf8_seq(p + i, n - i);
		if (k) {
			tb_pb_raw(pb, p + i, k);
			i += k;
		} else {
			char e[4] = { '\\', 'x', hex[p[i] >> 4], hex[p[i] & 15] };
			tb_pb_raw(pb, e, 4);
			i++;
		}
	}
}

/* The next space-separated word of s[*i..n), or an empty one. */
/* pb's message written as one TracePacket (the sticky output error). */
static tb_status packet_out(tb_pf_writer *w, tb_pb *pb, tb_error *err)
{
	size_t n = pb->len;
	tb_status st = tb_pb_flush(pb, TB_PF_TRACE_PACKET, w->cfg.write, w->cfg.ctx);
	if (st != TB_OK) {
		if (w->status == TB_OK)
			w->status = st;
		return out_error(w, err);
	}
	w->stats.packets++;
	w->stats.bytes += 1 + tb_pb_varint_len(n) + n;
	return TB_OK;
}

static size_t word(const char *s, size_t n, size_t *i, const char **w)
{
	size_t k;
	while (*i < n && (s[*i] == ' ' || s[*i] == '\n' || s[*i] == '\t'))
		(*i)++;
	*w = s + *i;
	for (k = *i; k < n && s[k] != ' ' && s[k] != '\n' && s[k] != '\t'; k++)
		;
	k -= *i;
	*i += k;
	return k;
}

static tb_status system_info_once(tb_pf_writer *w, const char *uname, size_t len,
				  tb_error *err)
{
	const char *sys, *node, *rel, *last = NULL, *vers = NULL, *wd;
	size_t i = 0, nsys, nnode, nrel, nlast = 0, nvers = 0, k;
	tb_pb pb;
	if (w->status)
		return out_error(w, err);
	if (!uname || !len)
		return TB_OK;
	if (len > (w->cfg.scratch_size - 64) / 4 || w->cfg.scratch_size < 64) {
		w->need = 4 * len + 64;
		return tb_fail(err, TB_ERR_NO_SPACE, 0,
			       "perfetto writer: uname larger than the scratch buffer");
	}
	/* trace-cmd's UNAME option: "sysname nodename release [version...] machine" */
	nsys = word(uname, len, &i, &sys);
	nnode = word(uname, len, &i, &node);
	(void)nnode;
	nrel = word(uname, len, &i, &rel);
	while ((k = word(uname, len, &i, &wd)) != 0) {
		if (last) {
			if (!vers)
				vers = last;
			nvers = (size_t)(last + nlast - vers);
		}
		last = wd;
		nlast = k;
	}
	tb_pb_init(&pb, w->cfg.scratch, w->cfg.scratch_size);
	tb_pb_uint(&pb, TB_PF_PACKET_SEQUENCE_ID, SEQ_ID);
	tb_pb_begin(&pb, TB_PF_PACKET_SYSTEM_INFO);
	tb_pb_begin(&pb, TB_PF_SYSINFO_UTSNAME);
	if (nsys)
		put_text(&pb, TB_PF_UTSNAME_SYSNAME, (const uint8_t *)sys, nsys);
	if (nvers)
		put_text(&pb, TB_PF_UTSNAME_VERSION, (const uint8_t *)vers, nvers);
	if (nrel)
		put_text(&pb, TB_PF_UTSNAME_RELEASE, (const uint8_t *)rel, nrel);
	if (nlast)
		put_text(&pb, TB_PF_UTSNAME_MACHINE, (const uint8_t *)last, nlast);
	tb_pb_end(&pb);
	tb_pb_end(&pb);
	return packet_out(w, &pb, err);
}

tb_status tb_pf_system_info(tb_pf_writer *w, const char *uname, size_t len, tb_error *err)
{
	tb_status st;
	while (grow(w, st = system_info_once(w, uname, len, err)))
		;
	return st;
}

tb_status tb_pf_session_record(const tb_session_event *ev, tb_pf_record *r, tb_error *err)
{
	if (!ev || !r || ev->kind == TB_SEV_DAMAGED)
		return tb_fail(err, TB_ERR_ARG, 0, "perfetto writer: no event record");
	r->cpu = ev->cpu;
	r->buffer = ev->buffer;
	r->ts = ev->ts;
	r->pid = ev->pid;
	r->missed = ev->missed;
	r->format = ev->format;
	r->id = ev->has_id ? ev->id : 0;
	r->data = ev->data;
	r->len = ev->len;
	tb_error_clear(err);
	return TB_OK;
}

tb_status tb_pf_session_event(tb_pf_writer *w, const tb_session_event *ev, tb_error *err)
{
	tb_pf_record r;
	tb_status st;
	if (!ev)
		return tb_fail(err, TB_ERR_ARG, 0, "perfetto writer: no event");
	if (ev->kind == TB_SEV_DAMAGED)
		return tb_pf_lost(w, ev->buffer, ev->cpu, err);
	if ((st = tb_pf_session_record(ev, &r, err)) != TB_OK)
		return st;
	return tb_pf_add(w, &r, err);
}

static tb_status threads_once(tb_pf_writer *w, const tb_cmdlines *c, tb_error *err)
{
	tb_pb pb;
	size_t i, room = w->cfg.scratch_size;
	tb_status st;
	if (w->status)
		return out_error(w, err);
	if (!c || !c->n)
		return TB_OK;
	/* a thread takes at most its name (x4 escaped) + 32 bytes, the packet
	 * header 16: check the longest first, so nothing is half written */
	for (i = 0; i < c->n; i++) {
		size_t worst = 4 * c->v[i].comm_len + 32;
		if (worst > room || room - worst < 16) {
			w->need = worst + 16;
			return tb_fail(err, TB_ERR_NO_SPACE, 0,
				       "perfetto writer: thread name larger than the scratch buffer");
		}
	}
	tb_pb_init(&pb, w->cfg.scratch, w->cfg.scratch_size);
	for (i = 0; i < c->n; i++) {
		const tb_cmdline *t = &c->v[i];
		if (pb.len == 0) {
			tb_pb_uint(&pb, TB_PF_PACKET_SEQUENCE_ID, SEQ_ID);
			tb_pb_begin(&pb, TB_PF_PACKET_PROCESS_TREE);
		}
		tb_pb_begin(&pb, TB_PF_TREE_THREADS);
		tb_pb_int(&pb, TB_PF_THREAD_TID, t->pid);
		put_text(&pb, TB_PF_THREAD_NAME, (const uint8_t *)t->comm, t->comm_len);
		tb_pb_end(&pb);
		w->stats.threads++;
		if (i + 1 == c->n || room - pb.len < 4 * c->v[i + 1].comm_len + 32 + 8) {
			tb_pb_end(&pb);
			if ((st = packet_out(w, &pb, err)) != TB_OK)
				return st;
		}
	}
	return TB_OK;
}

tb_status tb_pf_threads(tb_pf_writer *w, const tb_cmdlines *c, tb_error *err)
{
	tb_status st;
	while (grow(w, st = threads_once(w, c, err)))
		;
	return st;
}

/* *to += b (sign 1) or -= b (sign -1), field by field (all uint64_t). */
static void stats_fold(tb_pf_stats *to, const tb_pf_stats *b, int sign)
{
	uint64_t x[sizeof(tb_pf_stats) / sizeof(uint64_t)], y[sizeof(x) / sizeof(x[0])];
	size_t i;
	memcpy(x, to, sizeof(x));
	memcpy(y, b, sizeof(y));
	for (i = 0; i < sizeof(x) / sizeof(x[0]); i++)
		x[i] = sign > 0 ? x[i] + y[i] : x[i] - y[i];
	memcpy(to, x, sizeof(x));
}

void tb_pf_stats_add(tb_pf_stats *to, const tb_pf_stats *add)
{
	stats_fold(to, add, 1);
}

void tb_pf_stats_sub(tb_pf_stats *to, const tb_pf_stats *sub)
{
	stats_fold(to, sub, -1);
}

tb_status tb_pf_finish(tb_pf_writer *w, tb_error *err)
{
	return tb_pf_flush(w, err);
}

void tb_pf_set_clock(tb_pf_writer *w, uint64_t ts)
{
	if (!w)
		return;
	w->clock_ts = ts;
	w->have_clock_ts = 1;
}

tb_status tb_pf_flush(tb_pf_writer *w, tb_error *err)
{
	size_t i;
	if (!w)
		return tb_fail(err, TB_ERR_ARG, 0, "perfetto writer: no writer");
	if (w->status)
		return out_error(w, err);
	for (i = 0; i < w->cfg.nslots; i++) {
		tb_pf_slot_ *s = &w->slots[i];
		if (s->lost && !s->open)
			open_slot(w, s, s->buffer, s->cpu);
		if (flush_slot(w, s) != TB_OK)
			return out_error(w, err);
	}
	return TB_OK;
}
