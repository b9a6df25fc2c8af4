/*
 * A set of formats in caller storage.  The index is one power-of-two
 * table of slot numbers (event + 1, 0 = empty), split in two halves of
 * open addressing with linear probing: the lower half keyed by id, the
 * upper half by event name.  Each half stays at most half full, so a
 * probe sequence always meets an empty slot.
 */
#include "internal.h"
#include "tracebound/format.h"

static size_t half(const tb_format_set *set)
{
	return set->index_len / 2;
}

/* Ids are small and dense in practice: the id itself spreads them. */
static size_t id_slot(const tb_format_set *set, uint32_t id)
{
	return (size_t)id & (half(set) - 1);
}

static size_t name_slot(const tb_format_set *set, const char *s, size_t n)
{
	uint32_t h = 2166136261u; /* FNV-1a */
	size_t i;
	for (i = 0; i < n; i++)
		h = (h ^ (uint8_t)s[i]) * 16777619u;
	return half(set) + (h & (half(set) - 1));
}

TB_API size_t tb_format_index_len(size_t nevents)
{
	size_t n = 4;
	if (nevents > TB_FORMAT_MAX_EVENTS)
		nevents = TB_FORMAT_MAX_EVENTS;
	while (n < 4 * nevents)
		n *= 2;
	return n;
}

TB_API tb_status tb_format_set_init(tb_format_set *set, tb_format *events,
				    size_t events_cap, tb_field *fields,
				    size_t fields_cap, uint32_t *index,
				    size_t index_len, unsigned long_size)
{
	if (!set || !events || !fields || !index || index_len < 4 ||
	    (index_len & (index_len - 1)) != 0)
		return TB_ERR_ARG;
	if (long_size == 0)
		long_size = 8;
	if (long_size != 4 && long_size != 8)
		return TB_ERR_ARG;
	memset(set, 0, sizeof(*set));
	memset(index, 0, index_len * sizeof(*index));
	set->events = events;
	set->events_cap = events_cap;
	set->fields = fields;
	set->fields_cap = fields_cap;
	set->index = index;
	set->index_len = index_len;
	set->long_size = long_size;
	set->type_offset = 0;
	set->type_size = 0; /* taken from the first format with common_type */
	return TB_OK;
}

/* The id probe, shared by the lookups (inlined on the record path). */
static inline const tb_format *by_id(const tb_format_set *set, uint32_t id)
{
	size_t mask = half(set) - 1, h, probes;
	h = id_slot(set, id);
	for (probes = 0; probes <= mask; probes++) {
		uint32_t slot = set->index[h];
		if (slot == 0)
			return NULL;
		if (set->events[slot - 1].id == id)
			return &set->events[slot - 1];
		h = (h + 1) & mask;
	}
	return NULL;
}

TB_API const tb_format *tb_format_set_by_id(const tb_format_set *set, uint32_t id)
{
	if (!set || set->index_len < 4)
		return NULL;
	return by_id(set, id);
}

static int same_span(const char *a, size_t an, const char *b, size_t bn)
{
	return an == bn && (an == 0 || memcmp(a, b, an) == 0);
}

/* The first format named name (and in system, when system is given). */
static const tb_format *find_n(const tb_format_set *set, const char *system,
			       size_t system_len, const char *name, size_t name_len)
{
	size_t mask, h, probes, base;
	if (!set || set->index_len < 4 || !name)
		return NULL;
	mask = half(set) - 1;
	base = half(set);
	h = name_slot(set, name, name_len) - base;
	for (probes = 0; probes <= mask; probes++) {
		uint32_t slot = set->index[base + h];
		const tb_format *f;
		if (slot == 0)
			return NULL;
		f = &set->events[slot - 1];
		if (same_span(f->name, f->name_len, name, name_len) &&
		    (!system || same_span(f->system, f->system_len, system, system_len)))
			return f;
		h = (h + 1) & mask;
	}
	return NULL;
}

TB_API const tb_format *tb_format_set_find(const tb_format_set *set,
					   const char *system, const char *name)
{
	if (!name)
		return NULL;
	return find_n(set, system, system ? strlen(system) : 0, name, strlen(name));
}

/* A free slot from h on in the half starting at base. */
static size_t free_slot(const tb_format_set *set, size_t base, size_t h)
{
	size_t mask = half(set) - 1;
	while (set->index[base + h] != 0)
		h = (h + 1) & mask;
	return base + h;
}

/* A set-level failure: no position in the text. */
static tb_status set_fail(tb_format_error *err, tb_status st, const char *what)
{
	if (err) {
		(void)tb_fail(&err->error, st, 0, what);
		err->line = err->column = 0;
	}
	return st;
}

TB_API tb_status tb_format_set_add(tb_format_set *set, const char *text,
				   size_t len, const char *system,
				   size_t system_len, const tb_format **out,
				   tb_format_error *err)
{
	tb_format fmt;
	tb_field *fields;
	tb_status st;
	size_t i;

	if (out)
		*out = NULL;
	if (!set || set->index_len < 4 || (!system && system_len))
		return set_fail(err, TB_ERR_ARG, "NULL argument");
	if (system_len >= TB_FORMAT_MAX_NAME)
		return set_fail(err, TB_ERR_LIMIT, "system name too long");
	if (set->count >= TB_FORMAT_MAX_EVENTS)
		return set_fail(err, TB_ERR_LIMIT, "too many events in the set");
	if (set->count >= set->events_cap)
		return set_fail(err, TB_ERR_NO_SPACE, "event storage full");
	if (set->count + 1 > half(set) / 2)
		return set_fail(err, TB_ERR_NO_SPACE, "id index full");

	fields = set->fields + set->fields_used;
	st = tb_format_parse(text, len, fields, set->fields_cap - set->fields_used,
			     set->long_size, &fmt, err);
	if (st != TB_OK)
		return st;
	fmt.system = system;
	fmt.system_len = system ? system_len : 0;

	if (tb_format_set_by_id(set, fmt.id))
		return set_fail(err, TB_ERR_DUPLICATE, "event id already in the set");
	if (find_n(set, system ? system : "", fmt.system_len, fmt.name, fmt.name_len))
		return set_fail(err, TB_ERR_DUPLICATE, "event system:name already in the set");
	if (fmt.type_field >= 0) {
		const tb_field *tf = &fields[fmt.type_field];
		if (set->type_size == 0) {
			set->type_offset = tf->offset;
			set->type_size = tf->size;
		} else if (tf->offset != set->type_offset || tf->size != set->type_size) {
			return set_fail(err, TB_ERR_VALUE, "common_type layout differs from the set's");
		}
	}
	i = set->count++;
	set->fields_used += fmt.nfields;
	set->events[i] = fmt;
	set->index[free_slot(set, 0, id_slot(set, fmt.id))] = (uint32_t)(i + 1);
	set->index[free_slot(set, half(set),
			     name_slot(set, fmt.name, fmt.name_len) - half(set))] =
		(uint32_t)(i + 1);
	if (out)
		*out = &set->events[i];
	return TB_OK;
}

/* tb_format_set_lookup past its fast path: any common_type layout, the
 * probe sequence, and the errors. */
static TB_NOINLINE tb_status lookup_any(const tb_format_set *set, const void *rec,
					size_t len, int big_endian, const tb_format **out,
					tb_error *err)
{
	tb_reader r;
	uint64_t id;
	uint32_t off = set->type_offset, size = set->type_size ? set->type_size : 2;
	*out = NULL;
	tb_rd_init(&r, rec, len, big_endian);
	if (!tb_rd_uN_at(&r, off, size, &id))
		return tb_fail(err, TB_ERR_TRUNCATED, off,
			       "record too short for common_type");
	if (id > UINT32_MAX || set->index_len < 4 || !(*out = by_id(set, (uint32_t)id)))
		return tb_fail(err, TB_NOT_FOUND, off, "no format for this event id");
	return TB_OK;
}

TB_API tb_status tb_format_set_lookup(const tb_format_set *set, const void *rec,
				      size_t len, int big_endian,
				      const tb_format **out, tb_error *err)
{
	uint32_t off;
	if (!set || !out || (!rec && len))
		return tb_fail(err, TB_ERR_ARG, 0, "NULL argument");
	/* The usual case first, as one load and one probe: a 2-byte
	 * common_type inside the record whose id sits in its home slot.
	 * (A third of the instructions of a walk that read every numeric
	 * field went to the general path.) */
	off = set->type_offset;
	if (set->type_size == 2 && len >= 2 && off <= len - 2 && set->index_len >= 4) {
		uint16_t id = tb_load16((const uint8_t *)rec + off, big_endian);
		uint32_t slot = set->index[id & (set->index_len / 2 - 1)];
		if (slot && set->events[slot - 1].id == id) {
			*out = &set->events[slot - 1];
			return TB_OK;
		}
	}
	return lookup_any(set, rec, len, big_endian, out, err);
}
