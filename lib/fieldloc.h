/*
 * The one decoder of a dynamic field's loc word (spec 2, "Dynamic
 * fields"), shared by the field reader (field.c) and the print path
 * (printfmt_eval.c, printfmt_fields.c).
 *
 * Internal header: not installed, not part of the API.
 */
#ifndef TB_LIB_FIELDLOC_H
#define TB_LIB_FIELDLOC_H

#include "tracebound/format.h"
#include "reader.h"

/*
 * Where the data of DYNAMIC field f lies in record r: *off and *len.
 *   __data_loc  u32: len << 16 | offset from the record start;
 *   __rel_loc   the same, the offset counted from the end of the 4-byte
 *               loc word (the kernel adds the u32's size, not whatever
 *               size a tb_field declares);
 *   legacy      u16 offset; the data runs to the record end (*len 0 when
 *               the offset lies past it).
 * *off may lie past the record: the caller refuses it.  0 when the loc
 * word itself is not inside the record.
 */
static inline int tb_field_loc(const tb_field *f, const tb_reader *r,
			       uint64_t *off, uint64_t *len)
{
	uint32_t w;
	uint16_t w16;
	if (f->flags & TB_FIELD_LEGACY) {
		if (!tb_rd_u16_at(r, f->offset, &w16))
			return 0;
		*off = w16;
		*len = w16 <= r->len ? r->len - w16 : 0;
		return 1;
	}
	if (!tb_rd_u32_at(r, f->offset, &w))
		return 0;
	*off = (w & 0xffffu) + ((f->flags & TB_FIELD_REL) ? (uint64_t)f->offset + 4 : 0);
	*len = w >> 16;
	return 1;
}

/*
 * A scalar field (INT, LONG, POINTER) of 1, 2, 4 or 8 bytes lying whole
 * in rec[0..len), as every field of a sound record does: its value, sign
 * extended as declared, in *out; 0 for any other (tb_field_int then says
 * why).  Inline for the per-field paths (JSON, tb_field_int); the test is
 * one (& keeps its parts from being branches).
 */
static inline int tb_field_scalar_in(const tb_field *f, const uint8_t *rec, size_t len, int be,
				     uint64_t *out)
{
	uint32_t sz = f->size;
	int whole = (f->kind == TB_FIELD_INT || f->kind == TB_FIELD_LONG ||
		     f->kind == TB_FIELD_POINTER) &
		    (sz <= 8) & (int)((0x116u >> (sz & 15u)) & 1u) & (f->offset <= len) &
		    (sz <= len - f->offset);
	if (whole)
		*out = tb_extend(tb_load_n(rec + f->offset, sz, be), sz,
				 (f->flags & TB_FIELD_SIGNED) != 0);
	return whole;
}

#endif
