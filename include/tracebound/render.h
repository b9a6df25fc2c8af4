/*
 * tracebound: render events through their `print fmt`, as the kernel does.
 *
 * Two steps.  tb_render_compile() turns one event's print fmt into a
 * bounded program held in a caller-owned tb_render_prog (no allocation;
 * every table has a named limit below).  tb_render() then runs that
 * program over one record and writes the text into a caller buffer: the
 * output is always NUL-terminated and never overflows; truncation is
 * reported.  A print fmt that cannot be compiled still yields a usable
 * program that renders trace-cmd's fallback, `[FAILED TO PARSE]` followed
 * by ` name=value` for every event field.
 *
 * The program refers to, and does not copy, the tb_format it was compiled
 * from (its text, its fields and its system name): keep them alive and
 * unchanged as long as the program is used.
 *
 * Record contents are untrusted: every value read from a record is bounded
 * by the record; a division by zero, a field outside the record or a
 * dynamic field pointing outside it renders a marker (see the TB_RENDER_M_*
 * strings) and sets a bit in tb_render_result.notes, never more.
 */
#ifndef TRACEBOUND_RENDER_H
#define TRACEBOUND_RENDER_H

#include "tracebound/status.h"
#include "tracebound/format.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- named limits ---- */
#define TB_RENDER_MAX_FMT    65536u /* print fmt bytes */
#define TB_RENDER_MAX_NODES  1536u  /* expression nodes per print fmt */
#define TB_RENDER_MAX_DIRS   128u   /* literal runs + conversions */
#define TB_RENDER_MAX_TEXT   12288u /* decoded string literal bytes */
#define TB_RENDER_MAX_DEPTH  64u    /* nesting of expressions */
#define TB_RENDER_MAX_WIDTH  1024   /* printf width / precision cap */

/* ---- markers written into the text for faults in a record ---- */
#define TB_RENDER_M_DIV0    "[DIV BY ZERO]"
#define TB_RENDER_M_OOR     "[OUT OF RECORD]"
#define TB_RENDER_FAILED    "[FAILED TO PARSE]"

/* The event a program renders (internal; filled from a tb_format). */
typedef struct tb_render_event_ {
	const char *system;
	size_t system_len;
	const char *name;
	size_t name_len;
	const char *print_fmt;
	size_t print_fmt_len;
	const tb_field *fields;
	size_t n_fields;
	unsigned long_size;
	int big_endian;
} tb_render_event_;

/* Compile options (bit set). */
enum {
	/*
	 * Give enum names the kernel left unresolved in the format their
	 * stable ABI values (HRTIMER_MODE_*, TCP_* states, IOPRIO_CLASS_*),
	 * as the kernel itself prints them.  Any other unresolved name (and
	 * these, without the option) is 0 as trace-cmd has it, except that
	 * as a __print_flags mask it matches nothing (0 would match every
	 * value); lines that depend on one carry TB_RENDER_N_UNRESOLVED.
	 * The softirq and hrtimer-restart names libtraceevent knows are
	 * always known.
	 */
	TB_RENDER_KNOWN_ENUMS = 1u << 0,
	/* Render the way the kernel's `trace` file does for events it prints
	 * with its own code (syscalls, ftrace print/bprint/bputs) instead of
	 * through their print fmt. */
	TB_RENDER_KERNEL_STYLE = 1u << 1,
	/* __get_cpumask as a CPU list ("0-3,8") like libtraceevent; the
	 * kernel itself prints a hex bitmask like __get_bitmask. */
	TB_RENDER_CPUMASK_LIST = 1u << 2,
	/*
	 * Compile trace-cmd's field listing (`trace-cmd report -R`) instead
	 * of the print fmt: for every event field (not the common ones), in
	 * format order, " name=value".  A field prints with the conversion
	 * of the print fmt whose argument is exactly that field (under casts
	 * and parentheses; a cast to a 1, 2 or 4 byte C type masks the
	 * value), searched as libtraceevent searches: from just after the
	 * conversion the previous field used, wrapping round, and nothing
	 * more once the last item of the format was used; a literal ending
	 * in "0x" right before it prints too.  Numbers print as C's printf
	 * prints them, %ps/%pS as the symbol (+0x offset), %pM/%pm as a MAC
	 * address, %s of a long as its printk string.  Array and string
	 * fields, fields no conversion names, and every field when
	 * libtraceevent 1.7 could not parse the print fmt (a helper it does
	 * not know, a statement expression, a control byte in the format
	 * string...) print raw: text, ARRAY[hex bytes], or the number by
	 * the field's type.  prog->status says whether the print fmt was
	 * understood; the program is usable either way.  A char, u8 or s8
	 * array prints as text when every byte before its first NUL is
	 * printable or a space (an all-zero one too: empty text), else as
	 * ARRAY[]; an empty dynamic array prints the text its offset points
	 * to.  libtraceevent remembers a char array it printed as ARRAY[]
	 * and prints that field as ARRAY[] for the rest of the file:
	 * tb_render_stateful does too, tb_render renders each record alone
	 * (as if nothing was remembered).
	 * Other options do not apply.
	 */
	TB_RENDER_FIELD_LIST = 1u << 3,
	/*
	 * Print as perf script does (perf's copy of libtraceevent), where
	 * it differs from the kernel: a plain %p as C's printf prints it
	 * ("0xffff8881..." and "(nil)" for 0, not 16 zero-padded digits),
	 * and a __print_symbolic entry named by an enum name the kernel left
	 * unresolved matches no value (the value prints in hex, as
	 * "mode=0x0").  Meant alone: with TB_RENDER_KNOWN_ENUMS those names
	 * have values again, with TB_RENDER_KERNEL_STYLE syscalls print with
	 * the kernel's printer, which perf does not have.
	 */
	TB_RENDER_PERF_STYLE = 1u << 4
};

/* ---- internal representation (public only so callers can own it) ---- */
typedef struct tb_render_node_ {
	uint8_t op, ty;
	uint16_t depth;
	uint16_t a, b, c, next;
	uint64_t v;
} tb_render_node_;

typedef struct tb_render_dir_ {
	uint8_t kind, conv, flags, lenmod;
	char pext[8];          /* %p extension letters, NUL-padded */
	int32_t width, prec;   /* -1 none, -2 from an argument */
	uint16_t arg, warg, parg;
	uint16_t plan;         /* a conversion's shortcut: kind | size << 8 | flags (0 none) */
	uint32_t text_off;     /* a literal's text; a planned conversion's field offset */
	uint32_t text_len;     /* a literal's length; a planned conversion's types */
} tb_render_dir_;

/* One field of the -R listing, resolved when compiled (printfmt_fields.c
 * says how; the listing has no nodes, so these share their room). */
typedef struct tb_render_fop_ {
	const char *name;
	uint32_t offset;
	uint16_t name_len, field, conv;
	uint8_t tf, size, shape, width, sext, keep, kind;
} tb_render_fop_;

typedef struct tb_render_prog {
	tb_render_event_ ev;
	unsigned options;
	tb_status status;      /* TB_OK, or why the print fmt was refused */
	tb_error error;
	uint8_t mode;          /* print fmt, fallback, or a kernel printer */
	uint8_t pad_[3];
	uint32_t n_nodes, n_dirs, text_len, n_fops;
	/* what every event reads first, beside the header: a field listing's
	 * or a syscall printer's fields (fops) share the header's page */
	union {
		tb_render_node_ nodes[TB_RENDER_MAX_NODES];
		tb_render_fop_ fops[TB_FORMAT_MAX_FIELDS];
	};
	tb_render_dir_ dirs[TB_RENDER_MAX_DIRS];
	char text[TB_RENDER_MAX_TEXT];
} tb_render_prog;

/* ---- lookups the renderer asks the caller for (all optional) ---- */

/* kallsyms: the symbol containing addr.  Return 1 and fill name (not
 * NUL-terminated), its start address and optional module (NULL if none);
 * 0 when unknown. */
typedef int (*tb_render_sym_fn)(void *ctx, uint64_t addr, const char **name,
				size_t *name_len, uint64_t *start,
				const char **module, size_t *module_len);
/* printk_formats: the string stored at addr (bprint formats, bputs/print
 * strings).  Return 1 and fill it, 0 when unknown. */
typedef int (*tb_render_str_fn)(void *ctx, uint64_t addr, const char **str,
				size_t *len);

struct tb_kallsyms; /* tracedat.h */

typedef struct tb_render_env {
	tb_render_sym_fn sym;
	void *sym_ctx;
	tb_render_str_fn printk;
	void *printk_ctx;
	/* Without a sym callback: symbols from this table (borrowed for the
	 * call), found by rule ksym_how (TB_KSYM_LAST, _FIRST, _TEP of
	 * tracedat.h).  The table also gives symbol sizes, which
	 * TB_RENDER_KERNEL_STYLE prints as the kernel does: %pS "fn+0x10/0x2a0". */
	const struct tb_kallsyms *ksyms;
	unsigned ksym_how;
} tb_render_env;

/* What happened while rendering one record. */
enum {
	TB_RENDER_N_TRUNCATED = 1u << 0, /* the output buffer was too small */
	TB_RENDER_N_OOR = 1u << 1,       /* a field/array lay outside the record */
	TB_RENDER_N_DIV0 = 1u << 2,      /* division or modulo by zero */
	TB_RENDER_N_CLAMPED = 1u << 3,   /* a width/precision/count was capped */
	TB_RENDER_N_FALLBACK = 1u << 4,  /* the [FAILED TO PARSE] listing */
	TB_RENDER_N_NOLOOKUP = 1u << 5,  /* a symbol/printk lookup was missing */
	/* a __print_flags/__print_symbolic table holds enum names the kernel
	 * left unresolved and the value fell on them, or a number printed is
	 * computed from such a name (a kernel variable like jiffies): the
	 * kernel, knowing their values, may print something else */
	TB_RENDER_N_UNRESOLVED = 1u << 6
};

typedef struct tb_render_result {
	size_t len;       /* bytes written (without the NUL) */
	size_t needed;    /* bytes the full text would take (>= len) */
	unsigned notes;   /* TB_RENDER_N_* */
} tb_render_result;

/*
 * Compile the print fmt of a parsed format into *prog, for records of a
 * kernel whose long is long_size bytes (4 or 8; 0 unknown: sizeof(long)
 * then fails) in the given byte order.  Always leaves *prog usable: on an
 * error (TB_ERR_SYNTAX, TB_ERR_LIMIT, TB_ERR_UNSUPPORTED, ...) the program
 * renders the [FAILED TO PARSE] field listing and prog->error says why.
 * TB_ERR_ARG only for NULL prog/fmt (prog unusable).  The format (its text
 * and its fields) must outlive the program.
 */
TB_API tb_status tb_render_compile(tb_render_prog *prog, const tb_format *fmt,
				   unsigned long_size, int big_endian,
				   unsigned options, tb_error *err);

/*
 * Render one record (the event payload from common_type on) into
 * out[0..cap).  The text is NUL-terminated when cap > 0.  Returns TB_OK,
 * or TB_ERR_NO_SPACE when it was truncated (res->len < res->needed).
 * env may be NULL (no symbol or printk lookups).
 */
TB_API tb_status tb_render(const tb_render_prog *prog,
			   const tb_render_env *env, const void *record,
			   size_t record_len, char *out, size_t cap,
			   tb_render_result *res);

/*
 * tb_render for records rendered in file order, the way trace-cmd prints
 * a whole file: a TB_RENDER_FIELD_LIST program remembers in *prog each
 * char array it printed as ARRAY[] and prints it as ARRAY[] in every
 * later record (libtraceevent's rule); other programs render as
 * tb_render does.  The program is written to: one thread at a time.
 */
TB_API tb_status tb_render_stateful(tb_render_prog *prog,
				    const tb_render_env *env, const void *record,
				    size_t record_len, char *out, size_t cap,
				    tb_render_result *res);

/* Did the print fmt compile (0: the program renders the fallback)? */
static inline int tb_render_ok(const tb_render_prog *prog)
{
	return prog->status == TB_OK;
}

#ifdef __cplusplus
}
#endif

#endif /* TRACEBOUND_RENDER_H */
