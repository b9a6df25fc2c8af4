/*
 * tracebound: FreeBSD hwpmc(4) event logs ("pmclog" streams).
 *
 * What libpmc's pmclog_open / pmclog_feed / pmclog_read / pmclog_close do,
 * without allocating and without trusting the input.  The whole decoder
 * state lives in a caller-provided tb_pmclog (about 64 KiB: it holds one
 * reassembly buffer large enough for any record the 16-bit length field
 * can express).
 *
 * Streaming use:
 *
 *     tb_pmclog_init(p, NULL);            // NULL: detect everything
 *     for (;;) {
 *         st = tb_pmclog_next(p, &ev, &err);
 *         if (st == TB_OK)        { use ev; continue; }
 *         if (st == TB_NEED_MORE) { n = read(...);
 *                                   if (n == 0) tb_pmclog_close(p);
 *                                   else tb_pmclog_feed(p, buf, n);
 *                                   continue; }
 *         break;                  // TB_END, or an error in err
 *     }
 *
 * Results of tb_pmclog_next: TB_OK (an event), TB_NEED_MORE (feed more
 * bytes or close the input), TB_END (the input was closed at a record
 * boundary, or CLOSELOG was seen with TB_PMCLOG_STOP_AT_CLOSELOG), or an
 * error.  Errors are sticky: every later call returns the same error.  A
 * record cut short by the end of the input is TB_ERR_TRUNCATED at the
 * offset where that record starts.
 *
 * Both log generations are decoded: legacy (FreeBSD 6-11, 12-byte record
 * prefix with seconds/nanoseconds) and modern (12+, 16-byte prefix with a
 * TSC).  The generation, byte order and PROCEXEC layout come from the
 * INITIALIZE record that starts every kernel-written log; the address
 * width (4 or 8 bytes) is not recorded in the log and is guessed from it
 * (see tb_pmclog_options.addr_size) unless the caller says.
 */
#ifndef TRACEBOUND_PMCLOG_H
#define TRACEBOUND_PMCLOG_H

#include "tracebound/status.h"
#include "tracebound/text.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The largest record the 16-bit length field can express. */
#define TB_PMCLOG_MAX_RECORD 65535u
/* PMC_CALLCHAIN_DEPTH_MAX of modern kernels: the default PC limit. */
#define TB_PMCLOG_DEFAULT_MAX_PCS 512u
/* PATH_MAX of the writer: path-bearing records hold at most this much. */
#define TB_PMCLOG_PATH_MAX 1024u
/* Part entries in a multipart (AMD IBS) CALLCHAIN header. */
#define TB_PMCLOG_MAX_PARTS 4u

/* Record kinds, the same for both generations (raw numbers differ). */
typedef enum tb_pmclog_type {
	TB_PMCLOG_UNKNOWN = 0,   /* sound header, type this decoder does not know */
	TB_PMCLOG_CLOSELOG,
	TB_PMCLOG_DROPNOTIFY,
	TB_PMCLOG_INITIALIZE,
	TB_PMCLOG_PCSAMPLE,      /* legacy only */
	TB_PMCLOG_PMCALLOCATE,
	TB_PMCLOG_PMCATTACH,
	TB_PMCLOG_PMCDETACH,
	TB_PMCLOG_PROCCSW,
	TB_PMCLOG_PROCEXEC,
	TB_PMCLOG_PROCEXIT,
	TB_PMCLOG_PROCFORK,
	TB_PMCLOG_SYSEXIT,
	TB_PMCLOG_USERDATA,
	TB_PMCLOG_MAP_IN,
	TB_PMCLOG_MAP_OUT,
	TB_PMCLOG_CALLCHAIN,
	TB_PMCLOG_PMCALLOCATEDYN,
	TB_PMCLOG_THR_CREATE,    /* modern only */
	TB_PMCLOG_THR_EXIT,      /* modern only */
	TB_PMCLOG_PROC_CREATE,   /* modern only */
	TB_PMCLOG_PMCGROUPINHERITMISS, /* modern, AMD's FreeBSD fork */
	TB_PMCLOG_TYPE_COUNT_    /* not a type: one past the last */
} tb_pmclog_type;

enum tb_pmclog_generation {
	TB_PMCLOG_GEN_AUTO = 0,  /* from the INITIALIZE record that starts the log */
	TB_PMCLOG_GEN_LEGACY,    /* FreeBSD 6-11: 12-byte prefix */
	TB_PMCLOG_GEN_MODERN     /* FreeBSD 12+: 16-byte prefix, TSC */
};

enum tb_pmclog_order {
	TB_PMCLOG_ORDER_AUTO = 0, /* from where the 0xEE magic byte sits */
	TB_PMCLOG_ORDER_LITTLE,
	TB_PMCLOG_ORDER_BIG
};

/* tb_pmclog_options.flags */
#define TB_PMCLOG_STOP_AT_CLOSELOG 0x1u /* TB_END after CLOSELOG (libpmc); by
					   default decoding goes on, because
					   12+ kernels flush other CPUs'
					   buffers after it */

typedef struct tb_pmclog_options {
	/* Address width: 0 = guess (4 when INITIALIZE is i386-sized or the
	 * CPU type is ARMv7, else 8), or 4 or 8. */
	unsigned addr_size;
	unsigned generation;   /* enum tb_pmclog_generation */
	unsigned byte_order;   /* enum tb_pmclog_order */
	/* PMC_VERSION to assume when the log does not start with INITIALIZE
	 * (a fragment); selects the PROCEXEC layout.  0: 0x0A000000 for
	 * modern, 0x03010000 for legacy.  Only used with a set generation. */
	uint32_t version;
	/* Most CALLCHAIN slots accepted (0 = TB_PMCLOG_DEFAULT_MAX_PCS). */
	uint32_t max_pcs;
	unsigned flags;
} tb_pmclog_options;

/* A byte span inside the record (not NUL-terminated; len excludes any NUL). */
typedef struct tb_pmclog_str {
	const char *ptr;
	size_t len;
} tb_pmclog_str;

/* One part of a multipart CALLCHAIN: `nslots` slots from slot `first`. */
typedef struct tb_pmclog_part {
	uint8_t type;   /* 1 CALLCHAIN, 2 IBS_FETCH, 3 IBS_OP, other: opaque */
	uint8_t nslots;
	uint32_t first;
} tb_pmclog_part;

#define TB_PMCLOG_PART_CALLCHAIN 1u
#define TB_PMCLOG_PART_IBS_FETCH 2u
#define TB_PMCLOG_PART_IBS_OP 3u
#define TB_PMCLOG_CC_USERSPACE 0x1u /* pl_cpuflags: sample hit user mode */
#define TB_PMCLOG_CC_MULTIPART 0x2u /* pl_cpuflags: IBS multipart payload */

/*
 * One decoded record.  Member names follow libpmc's event structures
 * without the pl_ prefix.  Pointers (data, strings, PCs) point into the
 * record: into the caller's fed buffer when the record lay whole in one
 * feed, else into the decoder's reassembly buffer.  They stay valid until
 * the next tb_pmclog_next or tb_pmclog_feed call.
 */
typedef struct tb_pmclog_event {
	tb_pmclog_type type;
	uint8_t raw_type;        /* the type byte as written */
	uint8_t legacy;          /* 1: legacy generation */
	uint8_t big_endian;
	uint8_t addr_size;       /* 4 or 8 */
	uint16_t len;            /* record length (header included) */
	uint64_t offset;         /* stream offset of the record's first byte */
	uint64_t count;          /* 1-based serial number of this record */
	uint64_t tsc;            /* modern: header TSC; legacy: 0 */
	uint32_t ts_sec;         /* legacy: header seconds; modern: 0 */
	uint32_t ts_nsec;        /* legacy: header nanoseconds; modern: 0 */
	const uint8_t *data;     /* the whole record, len bytes */
	union {
		struct { uint32_t version, arch; uint64_t tsc_freq;
			 int64_t ts_sec, ts_nsec; /* wall time at log start */
			 tb_pmclog_str cpuid; } i;         /* INITIALIZE */
		struct { uint32_t pmcid, event, flags; uint64_t rate; } a;
		struct { uint32_t pmcid, event, flags;
			 uint64_t rate;        /* from the writer quirk, else 0 */
			 uint8_t name_at_40;   /* 1: kernel writer layout (spec 4.1) */
			 tb_pmclog_str evname; } ad;      /* PMCALLOCATEDYN */
		struct { uint32_t pmcid; int32_t pid;
			 tb_pmclog_str pathname; } t;     /* PMCATTACH */
		struct { uint32_t pmcid; int32_t pid; } d;   /* PMCDETACH,
							PMCGROUPINHERITMISS */
		struct { uint32_t pmcid; int32_t pid, tid;
			 uint64_t value; } c;             /* PROCCSW (tid: modern) */
		struct { int32_t pid; uint32_t pmcid;
			 uint8_t has_dyn;      /* 1: version >= 0x0A layout */
			 uint64_t entryaddr;   /* single-address layouts */
			 uint64_t baseaddr, dynaddr;   /* base+dyn layout */
			 tb_pmclog_str pathname; } x;     /* PROCEXEC */
		struct { uint32_t pmcid; int32_t pid;
			 uint64_t value; } e;             /* PROCEXIT */
		struct { int32_t oldpid, newpid; } f;   /* PROCFORK */
		struct { int32_t pid; } se;             /* SYSEXIT */
		struct { uint32_t userdata; } u;        /* USERDATA */
		struct { int32_t pid; uint64_t start;
			 tb_pmclog_str pathname; } mi;    /* MAP_IN */
		struct { int32_t pid; uint64_t start, end; } mo; /* MAP_OUT */
		struct { int32_t pid, tid; uint32_t pmcid, cpuflags;
			 uint32_t npc;         /* slots, as libpmc's pl_npc */
			 const uint8_t *pc;    /* npc slots of addr_size bytes
						  (8: two 32-bit words, low
						  first, as the kernel writes) */
			 uint32_t pc_first;    /* first real PC slot (multipart) */
			 uint32_t nparts;
			 tb_pmclog_part parts[TB_PMCLOG_MAX_PARTS]; } cc;
		struct { int32_t pid; uint64_t pc; uint32_t pmcid,
			 usermode; } s;                   /* PCSAMPLE */
		struct { int32_t tid, pid; uint32_t flags;
			 tb_pmclog_str tdname; } tc;      /* THR_CREATE */
		struct { int32_t tid; } te;             /* THR_EXIT */
		struct { int32_t pid; uint32_t flags;
			 tb_pmclog_str pcomm; } pc;       /* PROC_CREATE */
	} u;
} tb_pmclog_event;

/* The decoder.  Opaque in spirit: read it only through the functions. */
typedef struct tb_pmclog {
	tb_pmclog_options opt;
	uint8_t known;           /* generation, order and width settled */
	uint8_t legacy, big_endian, addr_size;
	uint8_t have_init;       /* an INITIALIZE record was decoded */
	uint8_t closed;          /* the caller closed the input */
	uint8_t done;            /* TB_END reached */
	uint32_t version;        /* PMC_VERSION in force */
	uint32_t max_pcs;
	/* the clock of the first INITIALIZE (tb_pmclog_tsc_to_ns) */
	uint64_t init_tsc, tsc_freq;
	int64_t wall_sec, wall_nsec;
	/* input not yet consumed */
	const uint8_t *in;
	size_t in_len, in_pos;
	uint64_t offset;         /* stream offset of the next record */
	uint64_t count;          /* records delivered */
	tb_status sticky;        /* TB_OK, or the error every call repeats */
	tb_error err;
	size_t saved;            /* bytes of a straddling record in buf */
	uint8_t buf[TB_PMCLOG_MAX_RECORD + 1];
} tb_pmclog;

/* Start a decoder.  opt may be NULL (everything detected). */
TB_API void tb_pmclog_init(tb_pmclog *p, const tb_pmclog_options *opt);

/*
 * Give the decoder the next bytes of the stream (no copy: they must stay
 * valid until tb_pmclog_next returns TB_NEED_MORE or an end).  Allowed
 * only when the previous feed is used up (tb_pmclog_next said
 * TB_NEED_MORE); TB_ERR_ARG otherwise or after tb_pmclog_close.
 * len 0 is accepted and changes nothing.
 */
TB_API tb_status tb_pmclog_feed(tb_pmclog *p, const void *data, size_t len);

/* No more input will come: a partial record becomes TB_ERR_TRUNCATED. */
TB_API void tb_pmclog_close(tb_pmclog *p);

/* One-shot mode: init, feed the whole buffer and close. */
TB_API tb_status tb_pmclog_open_buffer(tb_pmclog *p,
				       const tb_pmclog_options *opt,
				       const void *data, size_t len);

/* The next record (see the results above).  err may be NULL. */
TB_API TB_MUST_CHECK tb_status tb_pmclog_next(tb_pmclog *p,
					      tb_pmclog_event *ev,
					      tb_error *err);

/* Slot i of a CALLCHAIN event (0 <= i < npc; 0 outside or for other types). */
TB_API uint64_t tb_pmclog_cc_slot(const tb_pmclog_event *ev, uint32_t i);

/* Copy slots first.. of a CALLCHAIN event into out[0..max); returns how
 * many were copied (0 for other types or first >= npc). */
TB_API uint32_t tb_pmclog_cc_copy(const tb_pmclog_event *ev, uint32_t first,
				  uint64_t *out, uint32_t max);

/* Lowercase libpmc type name: "callchain", "map_in", ..., "unknown". */
TB_API const char *tb_pmclog_type_name(tb_pmclog_type type);

/*
 * Nanoseconds for a TSC delta at `freq` Hz, exactly (floor), without
 * 128-bit arithmetic.  TB_ERR_VALUE when freq is 0, TB_ERR_RANGE when the
 * result does not fit in 64 bits.
 */
TB_API tb_status tb_pmclog_tsc_delta_ns(uint64_t delta, uint64_t freq,
					uint64_t *ns);

/*
 * Wall-clock nanoseconds since the epoch of a modern record's TSC, from
 * the first INITIALIZE's TSC frequency, wall time and own TSC.
 * TB_NOT_FOUND before any INITIALIZE (or on legacy logs), TB_ERR_VALUE
 * when the log gives no TSC frequency (non-x86) or an invalid wall time,
 * TB_ERR_RANGE on overflow.
 */
TB_API tb_status tb_pmclog_tsc_to_ns(const tb_pmclog *p, uint64_t tsc,
				     int64_t *ns);

/*
 * The record table: one row per record kind says its names, its type
 * numbers, its fixed size and, for each field, the key, the kind of
 * value, where it sits in the record and in tb_pmclog_event, the
 * generations that have it and its place in pmcstat's line.  The
 * decoder reads fields through it, tb_pmclog_text / tb_pmclog_json render
 * from it, and the Python module builds its dicts from it: a new record
 * kind is one row (lib/pmclog_table.c).
 */

/* tb_pmclog_field.kind: the value's type in tb_pmclog_event. */
enum tb_pmclog_kind {
	TB_PMCLOG_F_END = 0,  /* ends a row's fields */
	TB_PMCLOG_F_U8,
	TB_PMCLOG_F_U16,
	TB_PMCLOG_F_U32,
	TB_PMCLOG_F_I32,      /* pid, tid: signed */
	TB_PMCLOG_F_U64,      /* counts, rates and addresses */
	TB_PMCLOG_F_STR,      /* tb_pmclog_str */
	TB_PMCLOG_F_TIMESPEC, /* two int64_t: {"tv_sec": s, "tv_nsec": ns} */
	TB_PMCLOG_F_PCS,      /* the CALLCHAIN slots: a list of numbers */
	TB_PMCLOG_F_PARTS     /* multipart parts: [{"type","first","nslots"}] */
};

/* tb_pmclog_field.gens */
#define TB_PMCLOG_IN_MODERN 0x1u
#define TB_PMCLOG_IN_LEGACY 0x2u
#define TB_PMCLOG_IN_BOTH 0x3u

/* tb_pmclog_field.when: a condition on the event besides the generation. */
enum tb_pmclog_when {
	TB_PMCLOG_W_ALWAYS = 0,
	TB_PMCLOG_W_DYN,       /* PROCEXEC with base + dyn addresses */
	TB_PMCLOG_W_NODYN,     /* PROCEXEC with one entry address */
	TB_PMCLOG_W_NAME40,    /* PMCALLOCATEDYN in the kernel writer's layout */
	TB_PMCLOG_W_MULTIPART  /* CALLCHAIN with the multipart flag */
};

/* tb_pmclog_field.text: how pmcstat's line shows the field. */
enum tb_pmclog_textform {
	TB_PMCLOG_T_NONE = 0,
	TB_PMCLOG_T_HEX,       /* 0x%x */
	TB_PMCLOG_T_DEC,
	TB_PMCLOG_T_STR,       /* quoted, \x%02x for unprintable bytes */
	TB_PMCLOG_T_USER,      /* 'u' when not 0, else 's' */
	TB_PMCLOG_T_CPU,       /* the CPU in cpuflags' high half */
	TB_PMCLOG_T_CCUSER,    /* 'u' or 's' from cpuflags' USERSPACE bit */
	TB_PMCLOG_T_DEPTH,     /* the PCs after the parts */
	TB_PMCLOG_T_LINES      /* parts and PCs, one line each */
};

/* tb_pmclog_field.src: how the decoder reads the field from the record. */
enum tb_pmclog_src {
	TB_PMCLOG_S_CODE = 0,  /* decoded by code (layouts that move) */
	TB_PMCLOG_S_U32,
	TB_PMCLOG_S_I32,
	TB_PMCLOG_S_U64W,      /* two 32-bit words, low first */
	TB_PMCLOG_S_ADDR,      /* an address of the log's width */
	TB_PMCLOG_S_NAME,      /* a NUL-padded name of `size` bytes */
	TB_PMCLOG_S_PATH       /* NUL-terminated, to the record's end */
};

typedef struct tb_pmclog_field {
	const char *key;      /* JSON and Python key; NULL: text only */
	uint16_t member;      /* offsetof(tb_pmclog_event, ...) */
	uint8_t kind;         /* enum tb_pmclog_kind */
	uint8_t gens;         /* TB_PMCLOG_IN_* */
	uint8_t when;         /* enum tb_pmclog_when */
	uint8_t text;         /* enum tb_pmclog_textform */
	uint8_t text_pos;     /* 1-based place in the text line; 0: none */
	uint8_t src;          /* enum tb_pmclog_src */
	uint8_t at[2];        /* record offset, [0] modern, [1] legacy: */
	uint8_t at_a[2];      /*   at + at_a * address width */
	uint8_t size;         /* TB_PMCLOG_S_NAME: the field's bytes */
	uint8_t key_len;      /* strlen(key); 0 when key is NULL */
} tb_pmclog_field;

typedef struct tb_pmclog_record {
	const char *name;     /* lowercase libpmc name: "callchain" */
	const char *libpmc;   /* "PMCLOG_TYPE_CALLCHAIN" */
	const char *pmcstat;  /* pmcstat -R's name: "callchain" */
	const tb_pmclog_field *fields; /* nfields, then one TB_PMCLOG_F_END */
	tb_pmclog_type type;
	int16_t raw[2];       /* type byte, [0] modern, [1] legacy; -1: none */
	uint8_t size[2];      /* fixed length: size + size_a * address width; */
	uint8_t size_a[2];    /*   0: variable (or decided by code) */
	uint8_t nfields;
	uint8_t name_len;     /* strlen(name) */
	uint8_t pmcstat_len;  /* strlen(pmcstat) */
} tb_pmclog_record;

/* The row of a type (UNKNOWN's for any type out of range); never NULL. */
TB_API const tb_pmclog_record *tb_pmclog_record_of(tb_pmclog_type type);

/* 1 when the event has field f (its generation and condition hold). */
TB_API int tb_pmclog_field_on(const tb_pmclog_field *f, const tb_pmclog_event *ev);

/* A field's value.  Numbers: u (unsigned kinds), i[0] (I32), i[0..1]
 * (TIMESPEC); STR: s.  PCS and PARTS: read ev->u.cc. */
typedef struct tb_pmclog_value {
	uint64_t u;
	int64_t i[2];
	tb_pmclog_str s;
} tb_pmclog_value;

TB_API void tb_pmclog_field_get(const tb_pmclog_field *f, const tb_pmclog_event *ev,
				tb_pmclog_value *v);

/*
 * One record as a line of text, named as `pmcstat -R` names it, or as one
 * JSON object ({"offset", "type", "tsc" or "ts", "fields"}), each ending
 * with '\n', appended to t.  Strings in JSON are tb_json_str's.  A record
 * that does not fit is counted in t->need, as the sink does.
 */
TB_API void tb_pmclog_text(tb_text *t, const tb_pmclog_event *ev);
TB_API void tb_pmclog_json(tb_text *t, const tb_pmclog_event *ev);

#ifdef __cplusplus
}
#endif

#endif /* TRACEBOUND_PMCLOG_H */
