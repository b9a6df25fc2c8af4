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
	TB_M_BPUTS         /* ftrace bputs: ip and a printk string */
};

/*
 * Span comparisons by byte loops: clang turns memcmp(...) == 0 into bcmp,
 * which the library's symbol gate does not allow.
 */
static inline int tb_pf_eq_n(const char *a, size_t an, const char *b, size_t bn)
{
	if (an != bn)
		return 0;
	for (size_t i = 0; i < an; i++)
		if (a[i] != b[i])
			return 0;
	return 1;
}

static inline int tb_pf_eq(const char *s, size_t n, const char *lit)
{
	return tb_pf_eq_n(s, n, lit, strlen(lit));
}

static inline int tb_pf_starts(const char *s, size_t n, const char *lit)
{
	size_t m = strlen(lit);
	return n >= m && tb_pf_eq_n(s, m, lit, m);
}

/* Normalise v to type ty: truncate to the width, then sign- or
 * zero-extend to 64 bits. */
static inline uint64_t tb_ty_norm(uint64_t v, unsigned ty)
{
	unsigned w = TB_TY_W(ty);
	unsigned bits;
	if (w >= 8 || w == 0)
		return v;
	bits = w * 8;
	v &= (UINT64_C(1) << bits) - 1;
	if (!(ty & TB_TY_UNSIGNED) && (v >> (bits - 1)) & 1)
		v |= ~((UINT64_C(1) << bits) - 1);
	return v;
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

/* ---------------------------------------------------- C arithmetic */

/* Apply a binary operator in C's semantics.  Returns 0 on a division
 * or modulo by zero (*out untouched), else 1. */
static inline int tb_pf_binop(unsigned op, uint64_t a, unsigned ta, uint64_t b,
		unsigned tb, uint64_t *out, unsigned *tout)
{
	unsigned ty = tb_ty_arith(ta, tb);
	int uns = (ty & TB_TY_UNSIGNED) != 0;
	uint64_t r = 0;
	unsigned bits;
	/* operands converted to the common type */
	uint64_t x = tb_ty_norm(a, ty), y = tb_ty_norm(b, ty);
	switch (op) {
	case TB_OP_MUL: r = x * y; break;
	case TB_OP_DIV:
	case TB_OP_MOD:
		if (y == 0)
			return 0;
		if (uns)
			r = op == TB_OP_DIV ? x / y : x % y;
		else if ((int64_t)y == -1)
			r = op == TB_OP_DIV ? 0 - x : 0; /* no INT_MIN / -1 trap */
		else
			r = op == TB_OP_DIV ? (uint64_t)((int64_t)x / (int64_t)y)
					    : (uint64_t)((int64_t)x % (int64_t)y);
		break;
	case TB_OP_ADD: r = x + y; break;
	case TB_OP_SUB: r = x - y; break;
	case TB_OP_SHL:
	case TB_OP_SHR:
		/* the type is the promoted left operand; a count past the
		 * width gives 0 (or the sign) instead of C's undefined */
		ty = tb_ty_promote(ta);
		x = tb_ty_norm(a, ty);
		bits = TB_TY_W(ty) * 8;
		if (b >= bits) {
			r = (op == TB_OP_SHR && !(ty & TB_TY_UNSIGNED) &&
			     (int64_t)x < 0) ? UINT64_MAX : 0;
		} else if (op == TB_OP_SHL) {
			r = x << b;
		} else if (ty & TB_TY_UNSIGNED) {
			r = x >> b;
		} else {
			r = (int64_t)x < 0 ? ~(~x >> b) : x >> b;
		}
		break;
	case TB_OP_LT: case TB_OP_GT: case TB_OP_LE: case TB_OP_GE: {
		int lt = uns ? x < y : (int64_t)x < (int64_t)y;
		int eq = x == y;
		int res = op == TB_OP_LT ? lt : op == TB_OP_GT ? (!lt && !eq)
			  : op == TB_OP_LE ? (lt || eq) : !lt;
		r = (uint64_t)res;
		ty = TB_TY_INT;
		break;
	}
	case TB_OP_EQ: r = x == y; ty = TB_TY_INT; break;
	case TB_OP_NE: r = x != y; ty = TB_TY_INT; break;
	case TB_OP_BAND: r = x & y; break;
	case TB_OP_XOR: r = x ^ y; break;
	case TB_OP_BOR: r = x | y; break;
	case TB_OP_LAND: r = a != 0 && b != 0; ty = TB_TY_INT; break;
	case TB_OP_LOR: r = a != 0 || b != 0; ty = TB_TY_INT; break;
	default: return 0;
	}
	*out = tb_ty_norm(r, ty);
	*tout = ty;
	return 1;
}

/* ------------------------------------------------ unresolved enum names */

static const struct known_enum {
	const char *name;
	uint8_t value;
	uint8_t always; /* libtraceevent knows it too */
} known_enums[] = {
	/* softirq vectors and hrtimer restart values (libtraceevent's table) */
	{ "HI_SOFTIRQ", 0, 1 }, { "TIMER_SOFTIRQ", 1, 1 },
	{ "NET_TX_SOFTIRQ", 2, 1 }, { "NET_RX_SOFTIRQ", 3, 1 },
	{ "BLOCK_SOFTIRQ", 4, 1 }, { "IRQ_POLL_SOFTIRQ", 5, 1 },
	{ "TASKLET_SOFTIRQ", 6, 1 }, { "SCHED_SOFTIRQ", 7, 1 },
	{ "HRTIMER_SOFTIRQ", 8, 1 }, { "RCU_SOFTIRQ", 9, 1 },
	{ "HRTIMER_NORESTART", 0, 1 }, { "HRTIMER_RESTART", 1, 1 },
	/* hrtimer modes (bits ABS 0, REL 1, PINNED 2, SOFT 4, HARD 8) */
	{ "HRTIMER_MODE_ABS", 0, 0 }, { "HRTIMER_MODE_REL", 1, 0 },
	{ "HRTIMER_MODE_PINNED", 2, 0 }, { "HRTIMER_MODE_SOFT", 4, 0 },
	{ "HRTIMER_MODE_HARD", 8, 0 }, { "HRTIMER_MODE_ABS_PINNED", 2, 0 },
	{ "HRTIMER_MODE_REL_PINNED", 3, 0 }, { "HRTIMER_MODE_ABS_SOFT", 4, 0 },
	{ "HRTIMER_MODE_REL_SOFT", 5, 0 },
	{ "HRTIMER_MODE_ABS_PINNED_SOFT", 6, 0 },
	{ "HRTIMER_MODE_REL_PINNED_SOFT", 7, 0 },
	{ "HRTIMER_MODE_ABS_HARD", 8, 0 }, { "HRTIMER_MODE_REL_HARD", 9, 0 },
	{ "HRTIMER_MODE_ABS_PINNED_HARD", 10, 0 },
	{ "HRTIMER_MODE_REL_PINNED_HARD", 11, 0 },
	/* TCP states (include/net/tcp_states.h, stable ABI) */
	{ "TCP_ESTABLISHED", 1, 0 }, { "TCP_SYN_SENT", 2, 0 },
	{ "TCP_SYN_RECV", 3, 0 }, { "TCP_FIN_WAIT1", 4, 0 },
	{ "TCP_FIN_WAIT2", 5, 0 }, { "TCP_TIME_WAIT", 6, 0 },
	{ "TCP_CLOSE", 7, 0 }, { "TCP_CLOSE_WAIT", 8, 0 },
	{ "TCP_LAST_ACK", 9, 0 }, { "TCP_LISTEN", 10, 0 },
	{ "TCP_CLOSING", 11, 0 }, { "TCP_NEW_SYN_RECV", 12, 0 },
	{ "TCP_BOUND_INACTIVE", 13, 0 },
	/* I/O priority classes (uapi linux/ioprio.h) */
	{ "IOPRIO_CLASS_NONE", 0, 0 }, { "IOPRIO_CLASS_RT", 1, 0 },
	{ "IOPRIO_CLASS_BE", 2, 0 }, { "IOPRIO_CLASS_IDLE", 3, 0 },
	{ "IOPRIO_CLASS_INVALID", 7, 0 },
};

/* The stable value of a well-known enum name the kernel left unresolved
 * (options select the table); 1 when known. */
static inline int tb_pf_enum_value(const char *s, size_t n, unsigned options, uint64_t *out)
{
	*out = 0;
	for (size_t i = 0; i < TB_ARRAY_LEN(known_enums); i++) {
		const struct known_enum *k = &known_enums[i];
		if (!k->always && !(options & TB_RENDER_KNOWN_ENUMS))
			continue;
		if (tb_pf_eq(s, n, k->name)) {
			*out = k->value;
			return 1;
		}
	}
	return 0;
}

static inline int tb_pf_read_int(const char *s, uint32_t n, uint32_t *i, int32_t *out)
{
	int32_t v = 0;
	while (*i < n && s[*i] >= '0' && s[*i] <= '9') {
		if (v < 100000000)
			v = v * 10 + (s[*i] - '0');
		(*i)++;
	}
	*out = v > TB_RENDER_MAX_WIDTH ? TB_RENDER_MAX_WIDTH : v;
	return 1;
}

/*
 * Decode one conversion after its '%' at s[*i] into d, the way the
 * kernel's format_decode() reads it.  Returns 1, 0 when the text ends
 * inside it, -1 for a conversion the kernel lacks.
 */
static inline int tb_pf_decode_spec(const char *s, uint32_t len, uint32_t *pi,
		      tb_render_dir_ *d)
{
	uint32_t i = *pi;
	d->kind = TB_D_CONV;
	d->width = -1;
	d->prec = -1;
	for (; i < len; i++) {
		if (s[i] == '-') d->flags |= TB_NF_LEFT;
		else if (s[i] == '+') d->flags |= TB_NF_PLUS;
		else if (s[i] == ' ') d->flags |= TB_NF_SPACE;
		else if (s[i] == '#') d->flags |= TB_NF_SPECIAL;
		else if (s[i] == '0') d->flags |= TB_NF_ZEROPAD;
		else break;
	}
	if (i < len && s[i] == '*') {
		d->width = -2;
		i++;
	} else if (i < len && s[i] >= '0' && s[i] <= '9') {
		tb_pf_read_int(s, len, &i, &d->width);
	}
	if (i < len && s[i] == '.') {
		i++;
		if (i < len && s[i] == '*') {
			d->prec = -2;
			i++;
		} else {
			tb_pf_read_int(s, len, &i, &d->prec);
		}
	}
	if (i < len && s[i] == 'h') {
		i++;
		d->lenmod = TB_L_H;
		if (i < len && s[i] == 'h') {
			i++;
			d->lenmod = TB_L_HH;
		}
	} else if (i < len && s[i] == 'l') {
		i++;
		d->lenmod = TB_L_L;
		if (i < len && s[i] == 'l') {
			i++;
			d->lenmod = TB_L_LL;
		}
	} else if (i < len && s[i] == 'L') {
		i++;
		d->lenmod = TB_L_LL;
	} else if (i < len && (s[i] == 'z' || s[i] == 'Z')) {
		i++;
		d->lenmod = TB_L_Z;
	} else if (i < len && s[i] == 't') {
		i++;
		d->lenmod = TB_L_T;
	}
	*pi = i;
	if (i >= len)
		return 0;
	switch (s[i]) {
	case 'd': case 'i': case 'u': case 'x': case 'X': case 'o':
	case 'c': case 's':
		d->conv = (uint8_t)s[i++];
		break;
	case 'p': {
		size_t k = 0;
		d->conv = 'p';
		i++;
		/* the kernel takes every alphanumeric after %p as its
		 * extension */
		while (i < len && ((s[i] >= 'a' && s[i] <= 'z') ||
				   (s[i] >= 'A' && s[i] <= 'Z') ||
				   (s[i] >= '0' && s[i] <= '9'))) {
			if (k + 1 < sizeof(d->pext))
				d->pext[k++] = s[i];
			i++;
		}
		break;
	}
	default:
		return -1;
	}
	*pi = i;
	return 1;
}

#endif /* TB_LIB_PRINTFMT_H */
