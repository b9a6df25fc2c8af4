/*
 * tracebound: ftrace events as a Perfetto protobuf trace.
 *
 * A tb_pf_writer turns decoded ftrace records into the trace Perfetto's
 * UI and trace processor read natively (a `perfetto.protos.Trace`: a
 * stream of TracePackets).  Records go in one at a time, in any order
 * (a trace session gives them merged by time); each lands in the open
 * FtraceEventBundle of its CPU, and a bundle is written out as one
 * TracePacket when it is full, when its CPU reports a loss (the next
 * bundle then says lost_events), and at tb_pf_finish().
 *
 * What each record becomes (field numbers: lib/perfetto_fields.h,
 * generated from Perfetto's schema by ci/gen-perfetto-fields.py):
 *  - a typed event (SchedSwitchFtraceEvent, PrintFtraceEvent, ...) when
 *    the schema has one of the same name in the same group (the kernel's
 *    event system) and the record's fields fit it: every proto field is
 *    filled from the format field of the same name.  An event whose
 *    format has a field the typed message lacks stays lossless: it is
 *    written as a generic event instead, except for the events Perfetto
 *    builds its scheduling, process and CPU views from (sched_switch,
 *    sched_process_exit, ...: TB_PF_VIEW_EVENTS in lib/perfetto.c), which
 *    stay typed and drop only those fields (counted in stats.dropped_fields;
 *    TB_PF_LOSSLESS makes them generic too);
 *  - otherwise a GenericFtraceEvent: the event name and every event
 *    field, integers as int_value (signed) or uint_value, text as
 *    str_value (cut at its NUL), arrays and opaque bytes one Field per
 *    element named "name[i]";
 *  - a record without a format: a GenericFtraceEvent "tb_unknown_event"
 *    with its common_type and its bytes as "data[i]".
 * The record's pid goes in FtraceEvent.pid, its common_flags (when not
 * 0) in FtraceEvent.common_flags; other common fields are not written.
 *
 * Memory.  Nothing is allocated.  The caller gives bundle memory (slots
 * of tb_pf_config.bundle_size bytes, one per CPU it expects: a CPU
 * beyond the slots shares one, flushing when the CPU changes) and a
 * scratch buffer where each record is encoded before it is placed.  A
 * record whose encoding does not fit the scratch is refused with
 * TB_ERR_NO_SPACE and w->need says the scratch size that holds it: grow
 * (tb_pf_set_scratch) and add the record again; nothing was written.
 * Memory stays what the caller gave, however long the capture.  With
 * tb_pf_config.mem the writer itself grows the scratch through the
 * caller's allocator and calls again (never TB_ERR_NO_SPACE unless that
 * allocation fails): the retry rule in one place.
 *
 * Output goes through the write callback in whole TracePackets (each as
 * a Trace.packet field), so the file is valid after every packet.  Any
 * callback error is returned and sticky.
 *
 * Not thread-safe: one writer per thread.
 */
#ifndef TRACEBOUND_PERFETTO_H
#define TRACEBOUND_PERFETTO_H

#include "tracebound/status.h"
#include "tracebound/format.h"
#include "tracebound/protobuf.h"
#include "tracebound/tracedat.h"
#include "tracebound/session.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TB_PF_MAX_SLOTS 256u        /* bundle slots (CPUs buffered at once) */
#define TB_PF_MIN_BUNDLE 256u       /* smallest bundle_size accepted */
#define TB_PF_MAX_BUNDLE (1u << 26) /* largest bundle_size accepted */
#define TB_PF_CACHE 256u            /* formats whose typed mapping is remembered */
#define TB_PF_MAX_MAP 32u           /* fields of the largest typed message mapped */
#define TB_PF_DEFAULT_BUNDLE 16384u /* a good bundle_size */
#define TB_PF_DEFAULT_SCRATCH 8192u /* holds every event of a usual capture */

/* tb_pf_config.flags */
#define TB_PF_LOSSLESS    0x01u /* never drop a field: events that would are generic */
#define TB_PF_ALL_GENERIC 0x02u /* every event as a GenericFtraceEvent */

typedef struct tb_pf_config {
	tb_pb_write_fn write;   /* receives the trace's bytes */
	void *ctx;
	void *bundles;          /* nslots * bundle_size bytes */
	size_t nslots;          /* 1 .. TB_PF_MAX_SLOTS: usually the CPU count */
	size_t bundle_size;     /* bytes per slot: TB_PF_MIN_BUNDLE .. TB_PF_MAX_BUNDLE */
	void *scratch;          /* one encoded event */
	size_t scratch_size;
	int big_endian;         /* of the traced machine */
	const char *clock;      /* the trace clock's name ("local", "boot"...), may be NULL */
	size_t clock_len;
	unsigned flags;         /* TB_PF_* */
	/* NULL: a record larger than the scratch is TB_ERR_NO_SPACE (below).
	 * Else the writer grows its scratch through mem (to w->need + 1 KiB)
	 * and goes on, and tb_pf_init takes bundles and scratch from mem when
	 * they are NULL (sizes 0: TB_PF_DEFAULT_BUNDLE, TB_PF_DEFAULT_SCRATCH);
	 * tb_pf_release gives back what the writer took. */
	const tb_mem *mem;
} tb_pf_config;

/* One record to convert. */
typedef struct tb_pf_record {
	uint32_t cpu;
	uint32_t buffer;        /* trace.dat buffer (instance) index; 0 for the top */
	uint64_t ts;            /* nanoseconds of the trace clock */
	int32_t pid;            /* common_pid */
	int64_t missed;         /* dropped just before it on its CPU: 0, -1 unknown, n */
	const tb_format *format;/* NULL: no format for its id */
	uint32_t id;            /* common_type (used when format is NULL) */
	const uint8_t *data;    /* the payload, from common_type on */
	uint32_t len;
} tb_pf_record;

typedef struct tb_pf_stats {
	uint64_t events, typed, generic, unknown;
	uint64_t dropped_fields;  /* fields with no place in their typed message */
	uint64_t bad_fields;      /* fields the record could not give (written without a value) */
	uint64_t packets, bytes, lost_bundles, threads;
} tb_pf_stats;

/* Private: one open bundle. */
typedef struct tb_pf_slot_ {
	size_t len;             /* bytes of the bundle body so far */
	uint64_t events;
	uint32_t cpu, buffer;
	int open, lost;
} tb_pf_slot_;

/* Private: the typed mapping of one format. */
typedef struct tb_pf_map_ {
	const tb_format *format;
	int32_t event;          /* index into the typed table, -1: generic */
	uint32_t dropped;       /* format fields without a typed place */
	uint16_t flags_field;   /* index of common_flags, 0xffff none */
	uint16_t field[TB_PF_MAX_MAP]; /* format field index per proto field, 0xffff none */
} tb_pf_map_;

typedef struct tb_pf_writer {
	tb_pf_config cfg;
	tb_pf_stats stats;
	size_t need;            /* after TB_ERR_NO_SPACE from tb_pf_add/encode: scratch bytes */
	tb_status status;       /* sticky output error */
	unsigned clock_kind;    /* FtraceClock value, 0: none written */
	uint64_t clock_ts;      /* the identity clock pair (see docs/perfetto.md) */
	int have_clock_ts;
	tb_pf_slot_ slots[TB_PF_MAX_SLOTS];
	tb_pf_map_ cache[TB_PF_CACHE];
	tb_field_value vals[TB_FORMAT_MAX_FIELDS];
	void *own_scratch_, *own_bundles_; /* private: taken from cfg.mem */
	size_t own_scratch_size_, own_bundles_size_;
} tb_pf_writer;

/*
 * Check the configuration and start an empty trace (nothing is written
 * yet).  TB_ERR_ARG for a missing callback or memory, a slot count or
 * bundle size out of range, or bundles smaller than nslots * bundle_size;
 * TB_ERR_NO_SPACE when cfg->mem gave no memory (nothing is kept).
 */
TB_API TB_MUST_CHECK tb_status tb_pf_init(tb_pf_writer *w, const tb_pf_config *cfg,
					  tb_error *err);

/* Swap in a bigger scratch buffer (after TB_ERR_NO_SPACE). */
TB_API void tb_pf_set_scratch(tb_pf_writer *w, void *scratch, size_t size);

/*
 * Write the thread names of a saved cmdlines table as ProcessTree
 * packets (threads: tid and name; the table knows no tgids).
 */
TB_API TB_MUST_CHECK tb_status tb_pf_threads(tb_pf_writer *w, const tb_cmdlines *c,
					     tb_error *err);

/*
 * Write the traced machine's uname as a SystemInfo packet (Perfetto reads
 * the kernel release from it, e.g. to decode sched_switch's prev_state).
 * `uname` is trace-cmd's UNAME text: "sysname nodename release [version]
 * machine" (the node name is not written).  Empty: nothing is written.
 * TB_ERR_NO_SPACE when the scratch cannot hold it (w->need).
 */
TB_API TB_MUST_CHECK tb_status tb_pf_system_info(tb_pf_writer *w, const char *uname,
						 size_t len, tb_error *err);

/*
 * Convert one record.  TB_OK; TB_ERR_NO_SPACE when its encoding needs a
 * scratch of w->need bytes (nothing written: grow and call again); the
 * callback's error (sticky).  A record whose fields cannot all be read
 * is still written (the fields it lacks without a value; stats.bad_fields).
 */
TB_API TB_MUST_CHECK tb_status tb_pf_add(tb_pf_writer *w, const tb_pf_record *r,
					 tb_error *err);

/*
 * tb_pf_add in two steps, for callers that encode records on several
 * threads (each with a writer of its own, same flags) and place them in
 * order into one writer: tb_pf_encode + tb_pf_place on the same record is
 * tb_pf_add, byte for byte and stat for stat.
 *
 * tb_pf_encode writes the record's FtraceEvent (the bundle's event field,
 * tag included) into w's scratch and says in *out what it adds to the
 * stats; it touches neither bundles nor stats (only w's typed-mapping
 * cache), so the writer's output and bundles may be unused.  TB_OK;
 * TB_ERR_NO_SPACE with w->need as tb_pf_add; TB_ERR_ARG for a NULL
 * argument or a record without data; w's sticky output error.  out->data
 * points into the scratch: valid until the next call on w.
 */
#define TB_PF_ENC_TYPED   1u
#define TB_PF_ENC_GENERIC 2u
#define TB_PF_ENC_UNKNOWN 3u /* no format: a tb_unknown_event */

typedef struct tb_pf_encoded {
	const uint8_t *data;    /* the encoded FtraceEvent field */
	size_t len;
	uint64_t ts;            /* the record's: the clock pair's first */
	int64_t missed;         /* the record's */
	uint32_t cpu, buffer;   /* the record's */
	unsigned kind;          /* TB_PF_ENC_*: stats.typed, generic or unknown */
	uint32_t dropped_fields;/* added to stats.dropped_fields (typed only) */
	uint32_t bad_fields;    /* added to stats.bad_fields */
} tb_pf_encoded;

TB_API TB_MUST_CHECK tb_status tb_pf_encode(tb_pf_writer *w, const tb_pf_record *r,
					    tb_pf_encoded *out, tb_error *err);

/*
 * Place an encoded record into w: its CPU's bundle (a loss before it,
 * bundles flushed as tb_pf_add does) and its stats.  e->data may live
 * anywhere (another writer's scratch, a copy); e->len at most
 * TB_PF_MAX_EVENT.  TB_OK; TB_ERR_ARG for NULL arguments, data missing,
 * a length out of range or a kind not TB_PF_ENC_*; the callback's error
 * (sticky).
 */
#define TB_PF_MAX_EVENT (1u << 30)
TB_API TB_MUST_CHECK tb_status tb_pf_place(tb_pf_writer *w, const tb_pf_encoded *e,
					   tb_error *err);

/* Note data lost on a CPU outside any record (a damaged page skipped):
 * its next bundle says lost_events. */
TB_API TB_MUST_CHECK tb_status tb_pf_lost(tb_pf_writer *w, uint32_t buffer, uint32_t cpu,
					  tb_error *err);

/*
 * Convert one event of a trace session (tb_session_next): a record as
 * tb_pf_add does, a damaged page (TB_SEV_DAMAGED) as a loss on its CPU.
 * Same results as tb_pf_add.
 */
TB_API TB_MUST_CHECK tb_status tb_pf_session_event(tb_pf_writer *w,
						   const tb_session_event *ev,
						   tb_error *err);

/* The record of a session event (TB_SEV_EVENT) as tb_pf_session_event
 * converts it: for tb_pf_encode.  TB_ERR_ARG for NULL or a damaged page. */
TB_API TB_MUST_CHECK tb_status tb_pf_session_record(const tb_session_event *ev,
						    tb_pf_record *r, tb_error *err);

/* Write every open bundle.  The trace is complete after TB_OK. */
TB_API TB_MUST_CHECK tb_status tb_pf_finish(tb_pf_writer *w, tb_error *err);

/*
 * Write every open bundle now, in slot order, and go on: the next records
 * open new bundles (a loss still pending is said by an empty bundle).
 * Writers that each take a run of the capture and flush at its end give,
 * one after the other, the bytes of one writer that flushes at the same
 * points (with tb_pf_set_clock).  tb_pf_finish is a flush.
 */
TB_API TB_MUST_CHECK tb_status tb_pf_flush(tb_pf_writer *w, tb_error *err);

/* The time of the clock pair written in each bundle (docs/perfetto.md),
 * which is otherwise the first placed record's: for a writer that starts
 * inside the capture. */
TB_API void tb_pf_set_clock(tb_pf_writer *w, uint64_t ts);

/* Give back what the writer took from cfg.mem (its bundles and scratch
 * when tb_pf_init took them, a scratch grown): the writer is done. */
TB_API void tb_pf_release(tb_pf_writer *w);

/* *to += add, field by field: the stats of writers that each took a run
 * of one capture (tb_pf_flush), as one writer's. */
TB_API void tb_pf_stats_add(tb_pf_stats *to, const tb_pf_stats *add);
/* *to -= sub, field by field: what a writer added since a copy of its stats. */
TB_API void tb_pf_stats_sub(tb_pf_stats *to, const tb_pf_stats *sub);

/* ---- a session's capture (lib/perfetto_session.c) ---- */

/*
 * What the session says of the trace, into cfg (the other fields are
 * left as they are): nslots the most CPUs of a buffer (at most
 * TB_PF_MAX_SLOTS), big_endian, and clock the first buffer's trace clock
 * (else the capture's).  NULL arguments: nothing.
 */
TB_API void tb_pf_session_config(tb_pf_config *cfg, const tb_session *s);

/*
 * The trace's first packets: the machine (tb_pf_system_info of the
 * session's uname) and the thread names (tb_pf_threads of its cmdlines).
 * Results as those.
 */
TB_API TB_MUST_CHECK tb_status tb_pf_session_begin(tb_pf_writer *w, const tb_session *s,
						   tb_error *err);

/*
 * The clock pair of every bundle at the session's first event
 * (tb_pf_set_clock), read ahead and the session rewound: so that writers
 * that each take a run of the capture, or a writer that flushes before
 * its first record, write the clock pair one writer would.  *have (may
 * be NULL) 1 when the session has an event, else 0 and the clock is left
 * as it was.  The rewind's status.
 */
TB_API TB_MUST_CHECK tb_status tb_pf_session_clock(tb_pf_writer *w, tb_session *s, int *have,
						   tb_error *err);

/* The typed message a format maps to ("sched_switch"), or NULL when its
 * records are written as generic events (or not at all mapped yet). */
TB_API const char *tb_pf_typed_name(tb_pf_writer *w, const tb_format *f);

#ifdef __cplusplus
}
#endif

#endif /* TRACEBOUND_PERFETTO_H */
