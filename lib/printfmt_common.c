/*
 * Pieces of the print fmt renderer both the compiler and the evaluator
 * use: C arithmetic on typed values, the table of well-known enum names,
 * and the decoder of one printf conversion.
 */
#include "printfmt.h"
#include "tracebound/tracedat.h"

/* ---------------------------------------------------- symbol lookups */

int tb_pf_sym(const tb_render_env *env, uint64_t addr, const char **name,
	      size_t *nlen, uint64_t *start, uint64_t *size, const char **mod,
	      size_t *mlen)
{
	const tb_ksym *k;
	*size = 0;
	*mod = NULL;
	*mlen = 0;
	if (env && env->sym)
		return env->sym(env->sym_ctx, addr, name, nlen, start, mod, mlen) &&
		       *name && *start <= addr;
	if (!env || !env->ksyms)
		return -1;
	k = tb_kallsyms_find_as(env->ksyms, addr, env->ksym_how);
	if (!k)
		return 0;
	*name = tb_ksym_name(env->ksyms, k);
	*nlen = k->name_len;
	*start = k->addr;
	*size = tb_kallsyms_size(env->ksyms, k);
	*mod = tb_ksym_module(env->ksyms, k);
	*mlen = k->module_len;
	return 1;
}

/* ---------------------------------------------------- C arithmetic */

int tb_pf_binop(unsigned op, uint64_t a, unsigned ta, uint64_t b,
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

int tb_pf_enum_value(const char *s, size_t n, unsigned options, uint64_t *out)
{
	*out = 0;
	for (size_t i = 0; i < TB_ARRAY_LEN(known_enums); i++) {
		const struct known_enum *k = &known_enums[i];
		if (!k->always && !(options & TB_RENDER_KNOWN_ENUMS))
			continue;
		if (tb_span_eq(s, n, k->name)) {
			*out = k->value;
			return 1;
		}
	}
	return 0;
}

static int tb_pf_read_int(const char *s, uint32_t n, uint32_t *i, int32_t *out)
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
int tb_pf_decode_spec(const char *s, uint32_t len, uint32_t *pi,
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
	if (i < len && (s[i] == 'h' || s[i] == 'l')) {
		/* h, hh, l, ll: the letter once or twice */
		char c = s[i++];
		int twice = i < len && s[i] == c;
		i += (uint32_t)twice;
		d->lenmod = (uint8_t)(c == 'h' ? (twice ? TB_L_HH : TB_L_H) : (twice ? TB_L_LL : TB_L_L));
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

/* ------------------------------------------- addresses, as the kernel */

static const char hexdig[] = "0123456789abcdef";

void tb_pf_put_byte_hex(tb_out *o, uint8_t b)
{
	tb_out_putc(o, hexdig[b >> 4]);
	tb_out_putc(o, hexdig[b & 15]);
}

void tb_pf_put_ip4(tb_out *o, const uint8_t *a, int leading_zeros)
{
	for (int i = 0; i < 4; i++) {
		if (i)
			tb_out_putc(o, '.');
		tb_out_number(o, a[i], 10, leading_zeros ? TB_NF_ZEROPAD : 0,
			      leading_zeros ? 3 : -1, -1);
	}
}

void tb_pf_put_ip6_full(tb_out *o, const uint8_t *a, int colons)
{
	for (int i = 0; i < 16; i++) {
		if (colons && i && !(i & 1))
			tb_out_putc(o, ':');
		tb_pf_put_byte_hex(o, a[i]);
	}
}

/* RFC 5952 compressed form, as the kernel's ip6_compressed_string(). */
void tb_pf_put_ip6_compressed(tb_out *o, const uint8_t *a)
{
	unsigned words[8], range = 8, longest = 0, i;
	int colonpos = -1, needcolon = 0, v4 = 0;
	for (i = 0; i < 8; i++)
		words[i] = tb_load16(a + (size_t)i * 2u, 1);
	/* v4-mapped ::ffff:a.b.c.d and ISATAP x:x:x:x:0:5efe:a.b.c.d */
	if ((!words[0] && !words[1] && !words[2] && !words[3] && !words[4] &&
	     words[5] == 0xffff) ||
	    ((words[4] | 0x0200) == 0x0200 && words[5] == 0x5efe))
		v4 = 1;
	if (v4)
		range = 6;
	for (i = 0; i < range; i++) {
		unsigned z = 0;
		while (i + z < range && !words[i + z])
			z++;
		if (z > longest) {
			longest = z;
			colonpos = (int)i;
		}
	}
	if (longest <= 1)
		colonpos = -1;
	for (i = 0; i < range; i++) {
		if ((int)i == colonpos) {
			if (needcolon || i == 0)
				tb_out_putc(o, ':');
			tb_out_putc(o, ':');
			needcolon = 0;
			i += longest - 1;
			continue;
		}
		if (needcolon)
			tb_out_putc(o, ':');
		tb_out_number(o, words[i], 16, 0, -1, -1);
		needcolon = 1;
	}
	if (v4) {
		if (needcolon)
			tb_out_putc(o, ':');
		tb_pf_put_ip4(o, a + 12, 0);
	}
}

/* A UUID of 16 bytes: variant 'b' / 'B' (0 too) in byte order, 'l' /
 * 'L' little-endian first fields; upper case for 'B' and 'L'. */
void tb_pf_put_uuid(tb_out *o, const uint8_t *b16, char variant)
{
	static const uint8_t be[16] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 };
	static const uint8_t le[16] = { 3, 2, 1, 0, 5, 4, 7, 6, 8, 9, 10, 11, 12, 13, 14, 15 };
	const uint8_t *idx = (variant == 'l' || variant == 'L') ? le : be;
	int upper = variant == 'B' || variant == 'L';
	for (int i = 0; i < 16; i++) {
		uint8_t b = b16[idx[i]];
		if (i == 4 || i == 6 || i == 8 || i == 10)
			tb_out_putc(o, '-');
		if (upper)
			tb_out_number(o, b, 16, TB_NF_ZEROPAD | TB_NF_UPPER, 2, -1);
		else
			tb_pf_put_byte_hex(o, b);
	}
}
