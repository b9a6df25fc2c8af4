/*
 * tracebound: a trace session -- one capture, every event with its name,
 * fields and text.
 *
 * A session sits on top of the decoders.  It opens a trace.dat (every
 * buffer / instance) or a set of raw per-CPU trace_pipe_raw dumps with
 * their events directory's format texts, and gives both through one
 * interface: events of all CPUs of all buffers merged by time, each with
 * its cpu, timestamp (the file's clock, its OFFSET option applied), pid,
 * comm, id, system and name; typed field access by name; and three
 * renderings (print fmt text, trace-cmd's -R field listing, JSON).
 *
 * Memory.  The library never allocates: every byte the session uses
 * comes from the caller through a tb_mem (two callbacks).  The session
 * asks for each region once, with its exact size, as it learns it; the
 * caller never guesses a size and never retries:
 *
 *   container   the trace.dat's tables and, for compressed sections,
 *               their decompressed bytes (tb_dat storage, sized by the
 *               library's own retry rounds: the smaller rounds are given
 *               back before the next is asked for)
 *   formats     the format slots, the id index, the cmdline / kallsyms /
 *               printk tables (counted from their texts)
 *   streams     one cursor per CPU of each buffer, one decompressed
 *               chunk per CPU for compressed data (a read buffer of
 *               TB_DAT_READ_CHUNK per CPU for data read through
 *               tb_session_source.read)
 *   per format  on the first record of an id: its fields (the format is
 *               parsed then) and, on the first rendering, its print fmt
 *               program (a tb_render_prog, about 54 KB)
 *
 * So memory follows the formats a capture *uses*.  A caller without a
 * heap passes tb_arena_mem() over a static buffer; when the arena runs out
 * the call fails with TB_ERR_NO_SPACE and tb_arena.want says how many
 * bytes in all the arena would have needed to get past that point.
 *
 * Lifetimes.  The capture's bytes (and for raw dumps every text given in
 * the source) are borrowed: they must stay valid and unchanged until
 * tb_session_close().  Pointers in a tb_session_event stay valid until
 * the next tb_session_next() (record bytes can live in a decompressed
 * chunk, or a read buffer, that the next call overwrites); formats and strings from the
 * session's tables until tb_session_close().
 *
 * Errors.  Calls return a tb_status and fill a tb_error (offset: a byte
 * offset in the capture file, or for raw dumps in the CPU's dump).  A
 * damaged page stops nothing when TB_SESSION_SKIP_DAMAGED is set: it comes
 * out as an event of kind TB_SEV_DAMAGED in its place in the stream,
 * saying where and what; without the flag tb_session_next() returns the
 * error and the next call goes on after the page.  tb_session_error()
 * keeps the last error with its buffer, CPU and page.
 *
 * Not thread-safe: one session per thread (sessions share nothing); the
 * parts of one session (tb_session_part_open) each on a thread of its own.
 */
#ifndef TRACEBOUND_SESSION_H
#define TRACEBOUND_SESSION_H

#include "tracebound/status.h"
#include "tracebound/kbuf.h"
#include "tracebound/format.h"
#include "tracebound/render.h"
#include "tracebound/tracedat.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- caller memory ---- */

/* alloc: `size` bytes aligned for any object, or NULL when there are
 * none (the call that asked then fails with TB_ERR_NO_SPACE).  free may
 * be NULL (an arena that is dropped whole); it gets the pointer and the
 * size alloc was asked for. */
typedef struct tb_mem {
	void *(*alloc)(void *ctx, size_t size);
	void (*free)(void *ctx, void *p, size_t size);
	void *ctx;
} tb_mem;

/* A bump allocator over caller memory (freeing the newest block gives it
 * back; older blocks stay until the arena is dropped). */
typedef struct tb_arena {
	uint8_t *base;
	size_t cap;
	size_t used;   /* bytes in use now */
	size_t peak;   /* most bytes ever in use */
	size_t want;   /* after a failed alloc: bytes the arena would have needed */
} tb_arena;

TB_API void tb_arena_init(tb_arena *a, void *mem, size_t cap);
TB_API tb_mem tb_arena_mem(tb_arena *a);

/* ---- what to open ---- */

/* A text borrowed from the caller (pointer + length, no NUL needed). */
typedef struct tb_span {
	const char *ptr;
	size_t len;
} tb_span;

/* One event format text and the system (directory) it came from. */
typedef struct tb_session_format_text {
	tb_span system;
	tb_span text;
} tb_session_format_text;

/* One CPU's raw trace_pipe_raw dump: whole sub-buffers back to back. */
typedef struct tb_session_raw_cpu {
	uint32_t cpu;
	const void *data;
	size_t len;
} tb_session_raw_cpu;

typedef struct tb_session_source {
	/* A trace.dat in memory ... */
	const void *dat;
	size_t dat_len;
	tb_dat_decompressor decompress;   /* fn NULL: compressed files fail */
	tb_dat_read_fn read;       /* optional: uncompressed CPU data read through
				      it (a few pages a time into the session's
				      buffers) instead of from dat: tracedat.h;
				      for a perf.data file (not a pipe stream,
				      no COMPRESSED records), its data section
				      into a buffer the walk uses again */
	void *read_ctx;
	const void *perf;          /* ... or a perf.data in memory (dat == NULL) */
	size_t perf_len;

	/* ... or raw dumps (dat == NULL). */
	const tb_session_raw_cpu *raw;
	size_t nraw;
	tb_span header_page;       /* events/header_page; empty: the layout below */
	uint32_t subbuf_size;      /* 0: from header_page (its data size), else 4096 */
	int big_endian;            /* of the traced machine */
	unsigned long_size;        /* 4 or 8; 0: 8 */
	const tb_session_format_text *formats;
	size_t nformats;
	tb_span cmdlines, kallsyms, printk; /* optional tables (saved_cmdlines...) */
	tb_span clock;             /* optional trace_clock text ("[local] global") */
} tb_session_source;

/* tb_session_options.flags */
#define TB_SESSION_SKIP_DAMAGED 0x01u /* damaged pages become TB_SEV_DAMAGED events */
#define TB_SESSION_TC_DROPS     0x02u /* drops reported as trace-cmd (kbuffer) does */
#define TB_SESSION_KSYM_ALIASES_NEWEST 0x04u /* of symbols at one address, the
					       last in the text names it (libtraceevent's
					       choice); default: the first */
#define TB_SESSION_NO_TS_OFFSET 0x08u /* ignore the file's OFFSET option */
#define TB_SESSION_PERF_TEXT    0x10u /* a perf.data's print fmts render as
					 perf script prints them
					 (TB_RENDER_PERF_STYLE), not by
					 render_options */

typedef struct tb_session_options {
	unsigned flags;            /* TB_SESSION_* */
	unsigned render_options;   /* TB_RENDER_* for the print fmt rendering */
} tb_session_options;

/* ---- the session ---- */

typedef struct tb_session tb_session; /* opaque: lives in caller memory */

/*
 * Open a capture.  A trace.dat is opened in tracedat.h's salvage mode: a
 * file cut short or with damaged metadata still gives every whole page
 * that exists, and tb_session_damage_at() lists what was lost (a sound
 * file opens exactly as without it).
 * *out is set on TB_OK only.  Errors: TB_ERR_NO_SPACE
 * when mem ran out (nothing is leaked: what was given is given back),
 * the container's errors for a trace.dat that cannot be read (its header,
 * its section chain), TB_ERR_ARG.  Damage that leaves events readable (a
 * table or a format that does not parse, an unusable buffer) does not
 * fail the open: tb_session_damage() lists it.
 */
TB_API TB_MUST_CHECK tb_status tb_session_open(tb_session **out,
					       const tb_session_source *src,
					       const tb_session_options *opt,
					       const tb_mem *mem,
					       tb_error *err);

/* ---- a memory budget ---- */

/*
 * What decoding a capture takes from mem, in bytes, part by part.  The
 * open computes each part from what the file declares (section sizes,
 * table lines, CPUs and their chunks) before it asks for it, and a part
 * that would take the session past its budget is never asked for: the
 * call fails with TB_ERR_BUDGET (err->what names the part) and refused /
 * asked say which part wanted how much.  Memory asked for later, where
 * nothing declares it (a format's fields on its first record, a print fmt
 * program on its first rendering, JSON's render buffer), is held to the
 * same budget as it is asked for.
 */
/* The bytes one walk may decompress per byte of memory budget (the
 * sections and every CPU chunk, as the file declares them). */
#define TB_SESSION_INFLATE_PER_BUDGET 16u

typedef struct tb_session_need {
	uint64_t budget;           /* the budget (0: none) */
	uint64_t container;        /* trace.dat tables and decompressed sections
				      (the last storage round; the smaller ones
				      were given back before it) */
	uint64_t sections;         /* of container: decompressed metadata
				      sections (STRINGS included), summed */
	uint64_t tables;           /* format list and index, cmdline / kallsyms /
				      printk tables (per line of their texts) */
	uint64_t streams;          /* per CPU: cursors, counts, chunk buffers
				      (each CPU its own largest chunk) */
	uint64_t formats;          /* fields and programs of the formats held now */
	uint64_t decompressed;     /* bytes decompression makes in one walk: the
				      sections and every CPU chunk, as declared;
				      over TB_SESSION_INFLATE_PER_BUDGET x budget
				      the open is refused before a chunk is
				      inflated (asked: the budget admitting it) */
	uint64_t held;             /* bytes held from mem now */
	uint64_t peak;             /* most bytes held at once */
	uint64_t total;            /* what decoding the capture needs: the peak,
				      or what is held plus both programs of every
				      format that had a record so far (after a
				      whole walk: what rendering it all takes) */
	const char *refused;       /* static: the part asked for past the budget,
				      NULL when none was */
	uint64_t asked;            /* bytes that part asked for */
} tb_session_need;

/*
 * tb_session_open with a budget: the session never holds more than
 * max_memory bytes from mem (0: no budget; parts of the session get what
 * it left: see tb_session_part_open).  need (may be NULL) is filled on
 * return, on failure too: over the budget, TB_ERR_BUDGET and need says
 * which part asked for how much, past what was held.
 */
TB_API TB_MUST_CHECK tb_status tb_session_open_budget(tb_session **out,
						      const tb_session_source *src,
						      const tb_session_options *opt,
						      const tb_mem *mem, uint64_t max_memory,
						      tb_session_need *need, tb_error *err);

/* The figures now (after a walk: total says what decoding needs). */
TB_API void tb_session_need_get(const tb_session *s, tb_session_need *out);

/* Give back every region (NULL is fine). */
TB_API void tb_session_close(tb_session *s);

/* ---- what the capture is ---- */

typedef struct tb_session_buffer_info {
	tb_span name;              /* "" for the top buffer */
	tb_span clock;             /* the clock's name ("local", "mono"...) */
	uint32_t ncpus;
	uint32_t page_size;
	int ns_clock;              /* 1: the clock counts nanoseconds */
} tb_session_buffer_info;

typedef struct tb_session_info {
	int is_dat;                /* 1: trace.dat, 0: raw dumps */
	unsigned dat_version;      /* 6 or 7 (trace.dat) */
	int big_endian;
	unsigned long_size;
	uint32_t ncpus;            /* trace-cmd's "cpus=" */
	size_t nbuffers;           /* buffers with events (latency buffers not counted) */
	size_t nformats;           /* format texts in the capture */
	tb_span uname, clock, tracer_version, compression;
	int64_t ts_offset;         /* applied to every timestamp */
	int is_perf;               /* 1: a perf.data (session_perf.h) */
} tb_session_info;

TB_API const tb_session_info *tb_session_get_info(const tb_session *s);
TB_API const tb_session_buffer_info *tb_session_buffer(const tb_session *s, size_t i);
/* The opened container (trace.dat only; NULL for raw dumps). */
TB_API const tb_dat *tb_session_dat(const tb_session *s);

/* Damage found outside the event data (tables, formats, buffers). */
typedef struct tb_session_damage {
	const char *where;         /* static: "kallsyms", "event format", "buffer",
				      "CPU data" (a cut: see cpu, units, missing)... */
	tb_error error;            /* offset: in the capture file */
	size_t index;              /* which format / buffer, when it applies */
	int cut;                   /* CPU data cut short: the pages that exist are read */
	uint32_t cpu;              /* "CPU data": the CPU */
	uint64_t length;           /* bytes of the file given up from error.offset */
	uint64_t missing;          /* bytes declared past the end of the file */
	uint64_t units;            /* "CPU data": pages (compressed: chunks) lost */
	uint64_t text_offset;      /* a format, table or header_page: the byte at fault
				      in its text.  error.offset is that byte's in the
				      file, or for a text decompressed from a v7
				      section (no byte of the file is the text's)
				      the section's */
} tb_session_damage;

TB_API size_t tb_session_ndamage(const tb_session *s);
TB_API const tb_session_damage *tb_session_damage_at(const tb_session *s, size_t i);

/* ---- events ---- */

enum tb_session_event_kind {
	TB_SEV_EVENT = 0,          /* a record */
	TB_SEV_DAMAGED = 1         /* a page skipped (SKIP_DAMAGED): see .damage */
};

typedef struct tb_session_event {
	unsigned kind;             /* tb_session_event_kind */
	uint32_t cpu;
	uint32_t buffer;           /* index for tb_session_buffer() */
	uint64_t ts;               /* the file's clock units, ts offset applied */
	int32_t pid;               /* common_pid (0 when the record has none) */
	uint32_t id;               /* common_type */
	int has_id;                /* 0: the record is too short for common_type */
	const tb_format *format;   /* NULL: no format for this id */
	tb_span system, name;      /* the format's (empty without one; not NUL-terminated) */
	const char *comm;          /* trace-cmd's: "<idle>" for pid 0, "<...>" unknown */
	size_t comm_len;
	int comm_known;            /* 1: from the saved cmdlines */
	const uint8_t *data;       /* the record payload, from common_type on */
	uint32_t len;
	int64_t missed;            /* dropped just before on its CPU: 0, -1 unknown, n */
	uint64_t page_offset;      /* file offset of its page */
	uint64_t page_index;       /* page number on its CPU, from 0 */
	uint32_t offset;           /* record offset in its page */
	tb_error damage;           /* TB_SEV_DAMAGED: what was wrong (offset in the file) */
	int has_pid;               /* 1: pid read from the record where the formats
				      put common_pid (0: no format says where, or
				      the record is too short) */
} tb_session_event;

/* The next event by time (ties: lower buffer, then lower CPU).  TB_OK,
 * TB_END, or an error for one page (see the top of this file).
 * TB_ERR_NO_SPACE when mem refused the fields of the event's format (it is
 * asked for on the first event of an id): ev is then that event without
 * its format (format NULL, no name), err->offset the format's text in the
 * file, tb_session_error() says where.  The next call goes on after it;
 * nothing is kept of the refusal, so the format is asked for again on the
 * next event of that id (and by tb_session_describe of this one), and a
 * tb_mem that has room by then describes them. */
TB_API TB_MUST_CHECK tb_status tb_session_next(tb_session *s, tb_session_event *ev,
					       tb_error *err);

/*
 * Describe a record the caller walked itself (a raw page it read with
 * tb_kbuf_*, say) as an event of this session: its format, pid, comm and
 * name, ready for tb_session_field and tb_session_text.  ts as given (the
 * file's offset applied), page_index / offset 0 for the caller to set.
 * The record is borrowed until the next call.  TB_ERR_NO_SPACE as for
 * tb_session_next (ev described without its format).
 */
TB_API TB_MUST_CHECK tb_status tb_session_describe(tb_session *s, uint32_t cpu, uint64_t ts,
						   const void *rec, size_t len,
						   tb_session_event *ev);

/* Back to the first event (tables and parsed formats are kept). */
TB_API TB_MUST_CHECK tb_status tb_session_rewind(tb_session *s, tb_error *err);

/* The last error with where it was. */
typedef struct tb_session_error_info {
	tb_error error;
	uint32_t buffer, cpu;
	uint64_t page;
	int valid;                 /* 0: no error yet */
} tb_session_error_info;

TB_API const tb_session_error_info *tb_session_error(const tb_session *s);

/* Counts so far (during or after the walk). */
typedef struct tb_session_cpu_stats {
	uint64_t events, pages;
	uint64_t dropped;          /* known drop counts added up */
	uint64_t drops_unknown;    /* drops reported without a count */
	uint64_t damaged_pages;
	uint64_t first_ts, last_ts; /* events > 0: the ts of its first and last
				       event (offsets applied; trace-cmd's
				       --first-event / --last-event) */
} tb_session_cpu_stats;

TB_API TB_MUST_CHECK tb_status tb_session_cpu_stats_get(const tb_session *s, size_t buffer,
						      uint32_t cpu,
						      tb_session_cpu_stats *out);

/*
 * One CPU's data as the capture stores it (trace-cmd report --stat): i
 * counts the entries of buffer's CPU table in file order (i <
 * tb_session_buffer(s, buffer)->ncpus).  For a raw dump: the dump.
 */
typedef struct tb_session_cpu_data {
	uint32_t cpu;
	uint64_t offset;           /* file offset of the data as the table gives
				      it, for an empty CPU too (raw dump: 0) */
	uint64_t size;             /* bytes the table declares (whole pages, or
				      the compressed chunk framing) */
	uint64_t data_size;        /* bytes of pages: size, or for compressed
				      data the chunks' uncompressed sizes added */
	int compressed;
} tb_session_cpu_data;

/* TB_OK, TB_NOT_FOUND past the last entry, or the chunk table's error
 * (compressed data: its chunk headers are read, nothing is decompressed). */
TB_API TB_MUST_CHECK tb_status tb_session_cpu_data_at(const tb_session *s, size_t buffer,
						    size_t i, tb_session_cpu_data *out,
						    tb_error *err);

/* Add ns to every timestamp from here on (trace-cmd --ts-offset; on top
 * of the file's own OFFSET option).  Call it before the walk. */
TB_API void tb_session_add_ts_offset(tb_session *s, int64_t ns);

/* ---- a time window ---- */

/*
 * Only events with from <= ts <= to (both ends included; ts as events
 * carry it, offsets applied) come out of tb_session_next() from the next
 * call on; TB_SEV_DAMAGED events still do (a gap stays marked).  Every
 * event is still read (a CPU's times may go back), so drop counts and
 * tb_session_cpu_stats cover the whole capture.  from = 0, to =
 * UINT64_MAX: no window.  TB_ERR_ARG when to < from.
 */
TB_API TB_MUST_CHECK tb_status tb_session_set_window(tb_session *s, uint64_t from,
						   uint64_t to);

/*
 * Only events whose id (common_type) has its bit set in keep (bit id % 64
 * of keep[id / 64]) come out of tb_session_next() from the next call on:
 * ids from 64 * words up are not kept, nor records too short to hold an
 * id.  The others are read and counted (tb_session_cpu_stats, drops) but
 * never described, so a program that shows some events pays no name,
 * field or comm lookup for the rest (report --events and -F).  Like a
 * filter of trace-cmd, a record left out takes its drop report (missed)
 * with it; TB_SEV_DAMAGED events still come out.  keep stays the
 * caller's: it is read until the session and its parts (which keep it)
 * are closed or the next call.  NULL or words 0: every event (the
 * default).
 */
TB_API void tb_session_keep_ids(tb_session *s, const uint64_t *keep, size_t words);
/* Words enough for every id a 2-byte common_type holds (every trace.dat
 * seen).  A format whose ID: line reads past that (a damaged or hostile
 * file) is better served by no set than by a set sized from it. */
#define TB_SESSION_KEEP_ID_WORDS 1024u

/* The same by CPU number (bit cpu % 64 of keep[cpu / 64]; report --cpu):
 * every CPU's pages are still read, so damage on the others still comes
 * out in its place. */
TB_API void tb_session_keep_cpus(tb_session *s, const uint64_t *keep, size_t words);

/*
 * A time as a person types it, for a window: nanoseconds ("193379737000")
 * or seconds with a fraction of 1 to 9 digits ("193.379737",
 * "193.379737123", "193.5").  Six digits are the microsecond a report line
 * prints (rounded from the nanoseconds): as the start of a window
 * (is_end 0) it stands for the first nanosecond printed so (193.3797365 s),
 * as the end (is_end 1) for the last one (193.3797374999 s), so that
 * "--from X --to X" holds exactly the lines printed at X.  Other forms are
 * exact.  TB_ERR_VALUE (err->offset: the byte at fault) for anything else,
 * TB_ERR_LIMIT past UINT64_MAX ns.
 */
TB_API TB_MUST_CHECK tb_status tb_session_time_parse(const char *text, size_t len, int is_end,
						   uint64_t *ns, tb_error *err);

/* ---- formats and fields ---- */

/* The format of id (parsed on first use), or NULL. */
TB_API const tb_format *tb_session_format(tb_session *s, uint32_t id);
/* The format called system:name (system NULL: any), parsed if need be, or NULL. */
TB_API const tb_format *tb_session_find_format(tb_session *s, const char *system,
					       const char *name);
/* The i-th format text of the capture (i < info->nformats): its system
 * and, when its ID: line reads, its id (else *id is untouched, returns 0). */
TB_API int tb_session_format_at(const tb_session *s, size_t i, tb_span *system,
				tb_span *text, uint32_t *id);

/* A field of an event by name (common fields too): TB_OK with the value,
 * TB_NOT_FOUND without such a field, or the record's error for it. */
TB_API TB_MUST_CHECK tb_status tb_session_field(const tb_session *s,
						const tb_session_event *ev,
						const char *name, tb_field_value *val,
						const tb_field **field, tb_error *err);

/* ---- tables ---- */

TB_API const tb_cmdlines *tb_session_cmdlines(const tb_session *s);
TB_API const tb_kallsyms *tb_session_kallsyms(const tb_session *s);
TB_API const tb_printk_fmts *tb_session_printk(const tb_session *s);
/* comm of pid as trace-cmd prints it ("<idle>", "<...>"); *known = 1 when found. */
TB_API const char *tb_session_comm(const tb_session *s, int32_t pid, size_t *len,
				   int *known);

/* ---- renderings ---- */

enum tb_session_text_kind {
	TB_TEXT_PRINT = 0,    /* the print fmt, as the kernel renders it */
	TB_TEXT_FIELDS = 1,   /* trace-cmd -R: " name=value" for each event field */
	TB_TEXT_JSON = 2,     /* one JSON object (schema: docs/json.md), no newline */
	TB_TEXT_KIND_MASK = 0x0f
};
/* Modifiers for PRINT and FIELDS (or-ed with the kind): */
#define TB_TEXT_LINE   0x100u /* the whole trace-cmd report line: buffer name,
				 drop report, comm-pid, [cpu], time, name:, text, '\n' */
#define TB_TEXT_NSECS  0x200u /* LINE: nanosecond time (trace-cmd -t) */
#define TB_TEXT_LATENCY 0x800u /* LINE: trace-cmd -l columns: comm cut to 8, pid, cpu,
				  irqs-off, need-resched, hardirq/softirq, preempt
				  depth, migrate-disable depth; with FIELDS, as
				  trace-cmd -R -l: cpu, "-0x", common_flags in hex */
#define TB_TEXT_TSDIFF 0x1000u /* LINE: "(+delta)" since the previous line rendered
				  with this flag (trace-cmd --ts-diff) */
#define TB_TEXT_NO_BUFFER 0x2000u /* LINE: without the buffer-name column (a
				    caller merging several captures prints
				    its own) */
/* Modifier for JSON: */
#define TB_TEXT_WITH_PRINT 0x400u /* add "text": the print fmt rendering */

/*
 * Render ev into out[0..cap) (NUL-terminated when cap > 0).  TB_OK, or
 * TB_ERR_NO_SPACE when truncated: res->needed is the full length, so a
 * buffer of needed + 1 bytes holds it.  TB_ERR_NO_SPACE also when mem
 * could not give the event's print fmt program (res->needed is then 0),
 * TB_ERR_BUDGET when the session's budget could not (tb_session_need).
 * res may be NULL.
 */
TB_API tb_status tb_session_text(tb_session *s, const tb_session_event *ev,
				 unsigned how, char *out, size_t cap,
				 tb_render_result *res);

/*
 * The same text appended to t (tracebound/text.h), no NUL: for a caller
 * that renders many events into one buffer (report's output block).
 * TB_OK; TB_ERR_NO_SPACE when t is cut (t->need is then the whole length:
 * the caller takes its length before the call back, t->len = t->need =
 * that, and renders again with more room), or when mem could not give
 * the event's print fmt program (t->need did not move for a text that
 * is only the payload); TB_ERR_BUDGET, TB_ERR_ARG as tb_session_text.
 */
struct tb_text;
TB_API tb_status tb_session_text_to(tb_session *s, const tb_session_event *ev, unsigned how,
				    struct tb_text *t);

/*
 * The size query and the retry rule, once: grow *buf (of *cap bytes) to
 * at least `want` bytes and update both; 0 on success, non-zero when it
 * cannot (the caller's memory, its limits).  *buf may be replaced.
 */
typedef int (*tb_grow_fn)(void *ctx, char **buf, size_t *cap, size_t want);

/*
 * tb_session_text into *buf, grown through `grow` to res->needed + 1 when
 * the text did not fit, and rendered again: what callers used to write
 * as their own loop.  Returns what the last tb_session_text returned:
 * TB_ERR_NO_SPACE still when grow refused (or is NULL), or when the
 * session gave no program (res->needed 0, which no size helps).  The
 * text is the same whatever the room, so one retry suffices; a grow that
 * gave less than asked is not called again.
 */
TB_API tb_status tb_session_text_grow(tb_session *s, const tb_session_event *ev,
				      unsigned how, char **buf, size_t *cap,
				      tb_grow_fn grow, void *ctx,
				      tb_render_result *res);

/* ---- parts of a capture: independent cursors (one per thread) ---- */

/*
 * The library has no threads; it offers what lets a program walk one
 * capture on several: a session split into parts by time, each walked by
 * its own cursor (a part session) in its own memory, so that the parts'
 * events, one after the other, are the session's own events, item for
 * item (docs/session.md, "Parts").
 *
 * A part [from, to) holds, on each CPU of each buffer, the records from
 * the first with ts >= from up to (without) the first with ts >= to, and
 * the damaged-page marks that follow them, merged exactly as
 * tb_session_next merges.  Records with equal timestamps are never split:
 * all of them are in the part whose range holds that time.  Times are
 * event times (the file's offset applied), bounds from tb_session_plan.
 */

/* Make every format of the capture ready (parsed whole), so that parts
 * only read what they share with the session.  Call once before
 * tb_session_part_open; formats that do not parse are listed as damage.
 * TB_ERR_NO_SPACE when mem refused a format's fields: no part opens until
 * a later call (with room) succeeds. */
TB_API TB_MUST_CHECK tb_status tb_session_prepare(tb_session *s, tb_error *err);

/*
 * Up to k - 1 increasing split times that cut the capture into k parts of
 * about the same number of pages (from the pages' header timestamps: no
 * record is read).  *nbounds says how many (fewer when the capture has
 * fewer distinct page times; 0 when it cannot be split: raw dumps,
 * compressed CPU data, one page, or an offset that carries some of the
 * times past 2^64).  Part i is [bounds[i-1], bounds[i]), the first from
 * the start and the last to the end.  Parts keep the session's window
 * (tb_session_set_window) and added offset (tb_session_add_ts_offset):
 * set them before tb_session_prepare.  When every CPU's page times are in
 * order, bound i is exactly the least time past bound i-1 before which
 * the share i/k of the pages start (total/k*i + total%k*i/k of them): the
 * want-th smallest page time plus one.
 */
TB_API TB_MUST_CHECK tb_status tb_session_plan(const tb_session *s, size_t k,
					       uint64_t *bounds, size_t *nbounds,
					       tb_error *err);

/*
 * tb_session_plan giving each split time to each(ctx, i, bound) as soon as
 * it is found, in order, so that a program can start on part i while the
 * later times are still being worked out (each bound costs a few dozen
 * page-header reads per CPU).  each returns 0 to go on, anything else to stop:
 * *nbounds then counts the bounds given before.  The bounds are
 * tb_session_plan's.
 */
TB_API TB_MUST_CHECK tb_status tb_session_plan_each(const tb_session *s, size_t k,
						    int (*each)(void *ctx, size_t i,
								uint64_t bound),
						    void *ctx, size_t *nbounds,
						    tb_error *err);

/*
 * A cursor over the part [*from, *to) of prepared session s (from NULL:
 * from the start; to NULL: to the end), in memory from mem (the cursors of
 * each CPU and, on first use, its own print fmt programs).  The part is a
 * tb_session: tb_session_next, _text, _field, _error, _cpu_stats_get and
 * _close work on it; it reads s's formats, tables and capture, which must
 * outlive it and stay untouched (no tb_session_next on s) while parts
 * are open.  Parts of one session share nothing they write: each may be
 * used on its own thread.  A session with a budget gives each part the
 * budget less what the session holds (parts open at once together may
 * take more: a caller running k of them divides it further, as the CLI
 * does).  Errors: TB_ERR_ARG (s not prepared, or itself a part),
 * TB_ERR_UNSUPPORTED (from given for raw dumps or compressed CPU data),
 * TB_ERR_NO_SPACE, TB_ERR_BUDGET.
 */
TB_API TB_MUST_CHECK tb_status tb_session_part_open(tb_session **out, const tb_session *s,
						    const tb_mem *mem, const uint64_t *from,
						    const uint64_t *to, tb_error *err);
/*
 * What decoding needs on `jobs` parts open at once (a --jobs run), into
 * out: tb_session_need_get's figures, with total raised by what each part
 * takes beside the session (tb_session_part_open's part and region, and
 * both print fmt programs of every format that had a record in the
 * session's walk so far: after a whole walk, every format a part can
 * meet).  jobs 0 or 1, a part, or a capture that cannot be split (raw
 * dumps, compressed CPU data: walked on one cursor): the session's own
 * need.  Memory a part asks for as it renders beyond that (JSON's render
 * buffer) is not in it.
 */
TB_API void tb_session_need_jobs(const tb_session *s, size_t jobs, tb_session_need *out);
/* The most parts, jobs at most, whose tb_session_need_jobs fits in room
 * bytes (the caller's budget less its other sessions'), s prepared here.
 * Only when every format rendered on every part would not fit, the
 * formats that have records are learnt by a walk of s, then rewound.
 * jobs itself when it fits, when s is not split (raw dumps, compressed CPU
 * data), or when not even one cursor fits (the open's refusal stands). */
TB_API size_t tb_session_jobs_within(tb_session *s, size_t jobs, uint64_t room);
/* The same part cursor moved to [*from, *to), its programs kept. */
TB_API TB_MUST_CHECK tb_status tb_session_part_seek(tb_session *part, const uint64_t *from,
						    const uint64_t *to, tb_error *err);

/*
 * Where a part starts and stops on each CPU, for checking that parts
 * tile the capture: part j+1 goes on exactly where part j stopped when
 * part j's stop marks (read after its tb_session_next returned TB_END)
 * equal part j+1's start marks.  Guaranteed when each CPU's timestamps
 * never go back; a capture whose clock went back can break it, and then
 * the parts are not the session's events (walk it whole instead).
 * Copies up to cap marks, returns how many the part has (one per CPU of
 * each buffer).
 */
typedef struct tb_session_mark {
	uint64_t page;             /* page index on the CPU */
	uint64_t missed;           /* drops the next record carries (as int64) */
	uint32_t offset;           /* record offset in the page */
	uint32_t state;            /* 0: CPU finished, 1: at page/offset */
} tb_session_mark;

#define TB_SESSION_MARK_START 0u
#define TB_SESSION_MARK_STOP  1u
TB_API size_t tb_session_part_marks(const tb_session *part, unsigned which,
				    tb_session_mark *out, size_t cap);

/*
 * The -R listing's memory (tb_render_stateful): the char array fields the
 * cursor's listing now prints as ARRAY[] for having printed them so, as
 * keys (format's index << 16 | field index) in increasing order, the same
 * for a session and its parts.  Up to cap into out (may be NULL); returns
 * how many there are.  A part starts without any: its output equals the
 * one walk's when its memory at its start holds every key that the parts
 * before it end with (report --jobs checks that, else walks on one
 * cursor).
 */
TB_API size_t tb_session_listing_memory(const tb_session *s, uint64_t *out, size_t cap);

/*
 * The --ts-diff state of report lines (TB_TEXT_TSDIFF): the time shown on
 * the previous line rendered with it, in that line's unit.  A part starts
 * without one; a program that knows the line before a part's first one
 * sets it (or renders that first line again with it set).
 */
typedef struct tb_session_line_state {
	uint64_t prev_shown;
	int have_prev;
} tb_session_line_state;

TB_API void tb_session_line_state_get(const tb_session *s, tb_session_line_state *out);
TB_API void tb_session_line_state_set(tb_session *s, const tb_session_line_state *in);
/* TB_TEXT_TSDIFF's memory: the time the previous such line showed, in its
 * own unit (0: none, and trace-cmd shows no delta after a line at 0).  A
 * caller merging several sessions' lines carries it from one to the next. */
TB_API uint64_t tb_session_tsdiff_prev(const tb_session *s);
TB_API void tb_session_set_tsdiff_prev(tb_session *s, uint64_t shown);
/* TB_TEXT_JSON objects open with "file": name (which capture, when lines
 * of several are merged); name is borrowed, NULL or len 0 for none. */
TB_API void tb_session_set_json_file(tb_session *s, const char *name, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* TRACEBOUND_SESSION_H */
