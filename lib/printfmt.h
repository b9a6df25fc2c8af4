/*
 * The print fmt program shared by the compiler (printfmt_parse.c) and the
 * evaluator (printfmt_eval.c): node kinds, value types and helper ids.
 *
 * Internal header: not installed, not part of the API.
 */
#ifndef TB_LIB_PRINTFMT_H
#define TB_LIB_PRINTFMT_H

#include "tracebound/render.h"
#include "internal.h"
#include "render_out.h"
#include "fieldloc.h"

/* How a field's bytes lie in a record, from its tb_field. */
enum {
	TB_RF_SCALAR = 0,   /* an integer (or pointer, or opaque bytes) */
	TB_RF_ARRAY,        /* a fixed array of size/elem_size elements */
	TB_RF_DATA_LOC,     /* u32 (len << 16 | offset from record start) */
	TB_RF_REL_LOC,      /* u32 (len << 16 | offset from the field's end) */
	TB_RF_DATA_LOC16,   /* legacy u16 offset; data runs to the record end */
	TB_RF_REST          /* size-0 array: the rest of the record */
};

static inline unsigned tb_pf_kind(const tb_field *f)
{
	switch (f->kind) {
	case TB_FIELD_ARRAY:
	case TB_FIELD_STRING:
		return TB_RF_ARRAY;
	case TB_FIELD_DYNAMIC:
		return (f->flags & TB_FIELD_REL) ? TB_RF_REL_LOC
		     : (f->flags & TB_FIELD_LEGACY) ? TB_RF_DATA_LOC16 : TB_RF_DATA_LOC;
	case TB_FIELD_REST:
		return TB_RF_REST;
	default:
		return TB_RF_SCALAR;
	}
}

static inline int tb_pf_signed(const tb_field *f)
{
	return (f->flags & TB_FIELD_SIGNED) != 0;
}

static inline int tb_pf_common(const tb_field *f)
{
	return (f->flags & TB_FIELD_COMMON) != 0;
}

static inline int tb_pf_text(const tb_field *f)
{
	return f->kind == TB_FIELD_STRING || (f->flags & TB_FIELD_TEXT);
}

/* The type names a long (long, long long): hex in the fallback listing. */
static inline int tb_pf_long(const tb_field *f)
{
	if (f->kind == TB_FIELD_LONG)
		return 1;
	for (size_t i = 0; f->type && i + 4 <= f->type_len; i++)
		if (f->type[i] == 'l' && f->type[i + 1] == 'o' &&
		    f->type[i + 2] == 'n' && f->type[i + 3] == 'g')
			return 1;
	return 0;
}

/* Node kinds (tb_render_node_.op).  Node 0 is never used: 0 means "none". */
enum {
	TB_N_NONE = 0,
	TB_N_NUM,     /* v: the value (already normalised to ty) */
	TB_N_STR,     /* v: text offset << 32 | length in prog->text */
	TB_N_REC,     /* the record itself: only valid before "->" */
	TB_N_FIELD,   /* v: field index */
	TB_N_INDEX,   /* a[b] */
	TB_N_UNARY,   /* v: '-', '~', '!' ; a */
	TB_N_BIN,     /* v: TB_OP_*; a, b */
	TB_N_TERN,    /* a ? b : c */
	TB_N_CAST,    /* (ty) a ; v: TB_CAST_* */
	TB_N_ADDR,    /* &a: the bytes of a field or element */
	TB_N_CALL,    /* v: helper id | field index << 8 ; a: first argument */
	TB_N_PAIR     /* { a, b } of __print_flags / __print_symbolic */
};

/* Binary operators, by C precedence groups. */
enum {
	TB_OP_MUL = 1, TB_OP_DIV, TB_OP_MOD, TB_OP_ADD, TB_OP_SUB, TB_OP_SHL,
	TB_OP_SHR, TB_OP_LT, TB_OP_GT, TB_OP_LE, TB_OP_GE, TB_OP_EQ, TB_OP_NE,
	TB_OP_BAND, TB_OP_XOR, TB_OP_BOR, TB_OP_LAND, TB_OP_LOR
};

/* Value types (ty): width in bytes in the low 4 bits, unsigned bit. */
#define TB_TY_W(ty)      ((unsigned)(ty) & 0x0fu)
#define TB_TY_UNSIGNED   0x10u
#define TB_TY_UNKNOWN    0x20u  /* a constant built from an unresolved name */
#define TB_TY_INT        4u
#define TB_TY_UINT       (4u | TB_TY_UNSIGNED)
#define TB_TY_LONG       8u
#define TB_TY_ULONG      (8u | TB_TY_UNSIGNED)

/* Cast flags (TB_N_CAST v). */
enum {
	TB_CAST_KEEP = 1,    /* an unknown type or struct: value unchanged */
	TB_CAST_BOOL = 2,    /* (bool): 0 or 1 */
	TB_CAST_PTR = 4      /* a pointer: pointee size in bits 8..15 (0
			      * unknown), pointee signed in bit 16 */
};

/* Helpers (TB_N_CALL v & 0xff). */
enum {
	TB_H_GET_STR = 1, TB_H_GET_DYN, TB_H_GET_DYN_LEN, TB_H_GET_BITMASK,
	TB_H_GET_CPUMASK, TB_H_GET_SOCKADDR, TB_H_PRINT_FLAGS,
	TB_H_PRINT_FLAGS_U64, TB_H_PRINT_SYMBOLIC, TB_H_PRINT_SYMBOLIC_U64,
	TB_H_PRINT_HEX, TB_H_PRINT_HEX_STR, TB_H_PRINT_ARRAY,
	TB_H_PRINT_DYN_ARRAY
};

/* Directive kinds (tb_render_dir_.kind). */
enum { TB_D_LIT = 1, TB_D_CONV };

/* Length modifiers. */
enum { TB_L_NONE = 0, TB_L_HH, TB_L_H, TB_L_L, TB_L_LL, TB_L_Z, TB_L_T };

/* Program modes (prog->mode). */
enum {
	TB_M_PRINTFMT = 0,
	TB_M_FALLBACK,     /* [FAILED TO PARSE] + fields */
	TB_M_SYS_ENTER,    /* kernel printer: sys_X(arg: 0x.., ...) */
	TB_M_SYS_EXIT,     /* kernel printer: sys_X -> 0x.. */
	TB_M_BPRINT,       /* ftrace bprint: printk format + binary args */
	TB_M_BPUTS,        /* ftrace bputs: ip and a printk string */
	TB_M_FIELDS        /* trace-cmd -R field listing (TB_RENDER_FIELD_LIST) */
};

/*
 * The -R field listing's program (TB_M_FIELDS, printfmt_parse.c builds
 * it, printfmt_fields.c runs it).  prog->text starts with 3 bytes per
 * event field i: text[3i] its TB_TF_* flags, text[3i+1..3i+2] (little
 * endian) 0 to print it raw, else the conversion that prints it, k + 1
 * for tb_pf_fm_get(p, k), with TB_FM_0X when a literal "0x" comes right
 * before it.  The n_dirs conversions follow in text at offset text_len
 * (8-aligned), copied in and out (text is bytes): a listing keeps all it
 * has in the first page of the 54 KB, and uses no nodes (n_nodes 0).
 * A conversion's dir holds: conv, flags (TB_NF_*), lenmod (TB_L_NONE,
 * _HH, _H, _L, _LL), width and prec (-1 none, -2 from the field warg - 1),
 * pext[0] for %p ('s' 'S' 'f' 'F' 'M' 'm'), arg = field index + 1, parg
 * the mask a cast puts on the value (1, 2 or 4 bytes; 0 none).  Kind
 * TB_D_WIDE: a conversion printed raw (a width over the limit, or a spec
 * printf would not read).
 */
enum { TB_D_WIDE = 3 };

static inline void tb_pf_fm_get(const tb_render_prog *p, unsigned k, tb_render_dir_ *d)
{
	memcpy(d, p->text + p->text_len + (size_t)k * sizeof(*d), sizeof(*d));
}
#define TB_FM_0X 0x8000u
#define TB_FM_ENTRY 3u

/* libtraceevent's reading of a field's type text (TB_M_FIELDS). */
enum {
	TB_TF_ARRAY = 1,   /* brackets in the type or after the name */
	TB_TF_STRING = 2,  /* an array of char / u8 / s8 */
	TB_TF_POINTER = 4, /* '*' in the type */
	TB_TF_LONG = 8,    /* "long" in the type */
	TB_TF_DYNAMIC = 16,/* __data_loc / __rel_loc */
	TB_TF_SIGNED = 32
};

/* Bytes and addresses as the kernel's vsprintf prints them. */
void tb_pf_put_byte_hex(tb_out *o, uint8_t b);
void tb_pf_put_ip4(tb_out *o, const uint8_t *a, int leading_zeros);
void tb_pf_put_ip6_full(tb_out *o, const uint8_t *a, int colons);
void tb_pf_put_ip6_compressed(tb_out *o, const uint8_t *a);
void tb_pf_put_uuid(tb_out *o, const uint8_t *b16, char variant);

/* Fop op starts as field i of the event, f: its name and offset. */
static inline void tb_pf_fop_start(tb_render_fop_ *op, const tb_field *f, size_t i)
{
	memset(op, 0, sizeof(*op));
	op->name = f->name;
	op->name_len = f->name_len;
	op->offset = f->offset;
	op->field = (uint16_t)i;
}

/* Resolve a TB_M_FIELDS program's fields into p->fops (its conversions
 * bound): the compiler's last step. */
void tb_pf_plan_fields(tb_render_prog *p);

/* Resolve a kernel syscall printer's fields into p->fops (replacing the
 * nodes, which that mode does not run). */
void tb_pf_plan_syscall(tb_render_prog *p, int enter);

/* The bytes a length modifier gives an integer conversion (lsz: the
 * long size, 4 or 8). */
static inline unsigned tb_pf_lenmod_width(unsigned lenmod, unsigned lsz)
{
	switch (lenmod) {
	case TB_L_HH: return 1;
	case TB_L_H: return 2;
	case TB_L_L: case TB_L_Z: case TB_L_T: return lsz;
	case TB_L_LL: return 8;
	default: return 4;
	}
}

/* Plan the shortcuts of a TB_M_PRINTFMT program's plain conversions
 * (dir->plan): the compiler's last step. */
void tb_pf_plan_dirs(tb_render_prog *p);

/* Fop k of p: a char array that p, a TB_M_FIELDS program run through
 * tb_render_stateful, now prints as ARRAY[] for having printed it so? */
int tb_pf_forgot_text(const tb_render_prog *p, uint32_t k);

/* Run a TB_M_FIELDS program over the record into o (notes: TB_RENDER_N_*).
 * keep: NULL, or p itself, which then remembers each char array it
 * printed as ARRAY[] (tb_render_stateful). */
void tb_pf_run_fields(const tb_render_prog *p, tb_render_prog *keep,
		      const tb_render_env *env, const tb_reader *rec, tb_out *o,
		      unsigned *notes);

/* The symbol containing addr through env (its callback, else its table
 * with env->ksym_how).  1 and the name, start and size (0 unknown) and
 * module (NULL none); 0 when unknown or there is no lookup. */
int tb_pf_sym(const tb_render_env *env, uint64_t addr, const char **name,
	      size_t *nlen, uint64_t *start, uint64_t *size, const char **mod,
	      size_t *mlen);

/* Normalise v to type ty: truncate to the width, then sign- or
 * zero-extend to 64 bits. */
static inline uint64_t tb_ty_norm(uint64_t v, unsigned ty)
{
	unsigned w = TB_TY_W(ty);
	uint64_t m;
	if (w >= 8 || w == 0)
		return v;
	/* m the sign bit: (v ^ m) - m extends it, no branch on the value */
	m = UINT64_C(1) << (w * 8 - 1);
	v &= (m << 1) - 1;
	return (ty & TB_TY_UNSIGNED) ? v : (v ^ m) - m;
}

/* The C type an expression of type ty has after integer promotion. */
static inline unsigned tb_ty_promote(unsigned ty)
{
	ty &= ~TB_TY_UNKNOWN;
	return TB_TY_W(ty) < 4 ? TB_TY_INT : ty;
}

/* The usual arithmetic conversions of a binary operator. */
static inline unsigned tb_ty_arith(unsigned a, unsigned b)
{
	a = tb_ty_promote(a);
	b = tb_ty_promote(b);
	if (TB_TY_W(a) == TB_TY_W(b))
		return TB_TY_W(a) | ((a | b) & TB_TY_UNSIGNED);
	return TB_TY_W(a) > TB_TY_W(b) ? a : b;
}

/* Apply a binary operator in C's semantics.  Returns 0 on a division
 * or modulo by zero (*out untouched), else 1. */
int tb_pf_binop(unsigned op, uint64_t a, unsigned ta, uint64_t b,
		unsigned tb, uint64_t *out, unsigned *tout);

/* The stable value of a well-known enum name the kernel left unresolved
 * (options select the table); 1 when known. */
int tb_pf_enum_value(const char *s, size_t n, unsigned options, uint64_t *out);

/* Decode one printf conversion after its '%' at s[*pi] into d, the way
 * the kernel's format_decode() reads it: 1 done, 0 cut short, -1 a
 * conversion the kernel lacks. */
int tb_pf_decode_spec(const char *s, uint32_t len, uint32_t *pi,
		      tb_render_dir_ *d);

#endif /* TB_LIB_PRINTFMT_H */
