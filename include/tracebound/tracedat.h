/*
 * tracebound: trace-cmd trace.dat container (versions 6 and 7).
 *
 * tb_dat_open() validates a whole trace.dat held in caller memory and
 * fills a tb_dat with spans into it: the initial header, the header_page
 * and header_event texts, every ftrace/event format text (for the format
 * parser), kallsyms, printk formats, saved cmdlines, the options and,
 * per buffer (instance), each CPU's data range for the page walker.
 *
 * Nothing is allocated.  The caller passes a tb_dat_storage holding the
 * arrays the file needs (event texts, buffers, CPU ranges, cpustat texts)
 * and, for compressed v7 files, scratch bytes that decompressed sections
 * are written into.  When something is too small tb_dat_open() returns
 * TB_ERR_NO_SPACE and d->need says how much is needed (as far as it could
 * tell: grow to d->need and call again; with compressed sections the
 * counts inside them are only known once the scratch is big enough, so
 * a second retry may be needed).
 *
 * Compressed sections are handed to a decompressor the caller supplies;
 * the library checks that it produced exactly the declared size (a chunk
 * a cut file ends in: at most it, of which the whole pages are kept).
 */
#ifndef TRACEBOUND_TRACEDAT_H
#define TRACEBOUND_TRACEDAT_H

#include "tracebound/status.h"
#include "tracebound/kbuf.h"
#include "tracebound/merge.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- named limits ---- */
#define TB_DAT_MAX_CPUS 8192u          /* CPU ids must be below this */
#define TB_DAT_PAGE_MIN 32u            /* smallest sub-buffer size accepted */
#define TB_DAT_PAGE_MAX (1u << 20)     /* largest (the kernel's 1 MiB cap) */
#define TB_DAT_MAX_OPTION_SECTIONS 64u /* hops along the v7 options chain */
#define TB_DAT_MAX_SECTIONS 65536u     /* v7 sections walked in sequence */
#define TB_DAT_MAX_UNCOMPRESSED (1u << 30) /* one decompressed block */

/* v7 section / option ids (trace-cmd's numbering). */
enum tb_dat_option_id {
	TB_DAT_OPT_DONE = 0, /* as a section id: OPTIONS */
	TB_DAT_OPT_DATE = 1,
	TB_DAT_OPT_CPUSTAT = 2,
	TB_DAT_OPT_BUFFER = 3,
	TB_DAT_OPT_TRACECLOCK = 4,
	TB_DAT_OPT_UNAME = 5,
	TB_DAT_OPT_HOOK = 6,
	TB_DAT_OPT_OFFSET = 7,
	TB_DAT_OPT_CPUCOUNT = 8,
	TB_DAT_OPT_VERSION = 9,
	TB_DAT_OPT_PROCMAPS = 10,
	TB_DAT_OPT_TRACEID = 11,
	TB_DAT_OPT_TIME_SHIFT = 12,
	TB_DAT_OPT_GUEST = 13,
	TB_DAT_OPT_TSC2NSEC = 14,
	TB_DAT_OPT_STRINGS = 15,
	TB_DAT_OPT_HEADER_INFO = 16,
	TB_DAT_OPT_FTRACE_EVENTS = 17,
	TB_DAT_OPT_EVENT_FORMATS = 18,
	TB_DAT_OPT_KALLSYMS = 19,
	TB_DAT_OPT_PRINTK = 20,
	TB_DAT_OPT_CMDLINES = 21,
	TB_DAT_OPT_BUFFER_TEXT = 22,
	TB_DAT_OPT_BTF_FILE = 23,
	TB_DAT_OPT_LAST_BOOT_INFO = 24,
	TB_DAT_OPT_MODULES_FILE = 25,
	TB_DAT_OPT_COUNT_ = 26
};

/* A text (or byte) span: in the file, or in the caller's scratch when it
 * came out of a compressed section.  `offset` is where it starts in the
 * file (for decompressed text: the offset of its section header). */
typedef struct tb_dat_text {
	const char *ptr;
	size_t len;
	uint64_t offset;
} tb_dat_text;

/* One event format text and the system it belongs to ("ftrace" for the
 * ftrace events section). */
typedef struct tb_dat_event_text {
	tb_dat_text system;
	tb_dat_text format;
} tb_dat_event_text;

/* One CPU's data in a buffer: `size` bytes at file offset `offset`.
 * For a compressed buffer the range holds the chunk framing. */
typedef struct tb_dat_cpu {
	uint32_t cpu;
	uint64_t offset;
	uint64_t size;
	/* Salvage (TB_DAT_OPEN_SALVAGE) only; otherwise cut = 0 and
	 * declared = size.  A range running past the end of the file is
	 * clipped: `size` keeps the whole pages (compressed: the whole
	 * chunks, `chunks` of them) that exist, `declared` is what the
	 * table said (for an inferred buffer: up to its section's declared
	 * end), so declared - size bytes are lost.  A cut CPU whose data
	 * starts past the end keeps its declared offset, with size 0. */
	uint64_t declared;
	uint64_t table_offset;   /* the offset the table gives, even for an
				    empty CPU (whose `offset` is 0) */
	uint32_t chunks;
	int cut;
	/* Salvage, compressed and cut: the bytes present (its 8-byte header
	 * included) of the chunk the file ends in, after the `chunks` whole
	 * ones; 0 when the cut falls between chunks or in a chunk header.
	 * The chunk walk gives it as a cut chunk (tb_dat_chunk.cut). */
	uint64_t tail;
} tb_dat_cpu;

typedef struct tb_dat_buffer {
	tb_dat_text name;        /* "" for the top buffer */
	tb_dat_text clock;       /* v7 only; empty in v6 */
	uint64_t section_offset; /* v7: the BUFFER section; v6: flyrecord tag */
	uint32_t page_size;
	int latency;             /* text buffer (v6 latency / v7 BUFFER_TEXT) */
	int compressed;          /* per-CPU data uses the chunk framing */
	int inferred;            /* salvage: the CPU table was lost, the CPU
				    ranges were found from the data itself
				    (v7 chunk framing, or page timestamps:
				    a new CPU starts where they fall back) */
	tb_dat_text text;        /* latency text */
	const tb_dat_cpu *cpus;  /* into the caller's storage */
	size_t ncpus;
} tb_dat_buffer;

/* Decompress src[0..src_len) with algorithm `algo` ("zstd", "zlib") into
 * dst[0..dst_cap); store the bytes produced in *produced.  Return TB_OK,
 * TB_ERR_UNSUPPORTED for an algorithm it lacks, TB_ERR_VALUE for data
 * that does not decompress, or TB_ERR_TRUNCATED when src ends before the
 * compressed data does: then *produced says how much of dst it could
 * decode from what is there (a file cut inside a chunk keeps the chunk's
 * whole pages; a decompressor that cannot decode a cut input may return
 * TB_ERR_VALUE, and the chunk is lost).  The library keeps at most
 * dst_cap bytes either way and checks *produced against it. */
typedef tb_status (*tb_dat_decompress_fn)(void *ctx, const char *algo,
					  const void *src, size_t src_len,
					  void *dst, size_t dst_cap,
					  size_t *produced);

typedef struct tb_dat_decompressor {
	tb_dat_decompress_fn fn;
	void *ctx;
} tb_dat_decompressor;

/*
 * Optional: copy len bytes of the capture at file offset `offset` into
 * buf; 0, or -1 when they cannot be read.  With one set (tb_dat.read),
 * the CPU data of uncompressed buffers is read through it, a few pages at
 * a time into each cursor's buffer (tb_dat_chunk_max says its size),
 * instead of straight from the file in memory: a mapped file costs a page
 * fault, and under a hypervisor a page-table fill, the first time each of
 * its 4 KiB pages is touched, where a reused buffer stays in cache (on a
 * KVM guest, 386 MiB walked 10% faster).  Parts call it from several
 * threads at once (pread is such a function).  The bytes it gives must be
 * the file's.
 */
typedef int (*tb_dat_read_fn)(void *ctx, uint64_t offset, void *buf, size_t len);

/* The read buffer of each CPU: this much, a whole number of pages and at
 * least one; TB_DAT_READ_SMALL past TB_DAT_READ_MANY CPUs.  32 KiB, not
 * 64: on this project's KVM hosts the kernel copied 64 KiB reads at a
 * quarter of the speed (0.21-0.35 s of system time on the 396 MiB bench
 * capture, 0.07-0.12 s in 32 KiB reads), the records then read from cache. */
#define TB_DAT_READ_CHUNK ((size_t)32 << 10)
#define TB_DAT_READ_SMALL ((size_t)16 << 10)
#define TB_DAT_READ_MANY 32u

/* ---- salvage: damage found by tb_dat_open_ex(..., TB_DAT_OPEN_SALVAGE) ---- */

/* What was damaged. */
enum tb_dat_part {
	TB_DAT_PART_HEADERS = 0,   /* header_page / header_event (v7 HEADER_INFO) */
	TB_DAT_PART_FTRACE_EVENTS, /* the ftrace event formats */
	TB_DAT_PART_EVENT_FORMATS, /* the systems' event formats */
	TB_DAT_PART_KALLSYMS,
	TB_DAT_PART_PRINTK,
	TB_DAT_PART_CMDLINES,
	TB_DAT_PART_OPTIONS,       /* an option, the v6 list, a v7 options section */
	TB_DAT_PART_SECTIONS,      /* the v7 section sequence (strings, BTF...) */
	TB_DAT_PART_BUFFER,        /* a buffer or its CPU table (flyrecord, BUFFER) */
	TB_DAT_PART_CPU_DATA,      /* one CPU's data, cut: see cpu / units */
	TB_DAT_PART_COUNT_
};

typedef struct tb_dat_damage {
	unsigned part;           /* enum tb_dat_part */
	tb_error error;          /* status, FILE offset where it starts, what */
	uint64_t length;         /* bytes of the file given up from error.offset */
	uint64_t missing;        /* bytes it declares past the end of the file
				    (0: not a cut, or not known) */
	size_t buffer;           /* PART_BUFFER / PART_CPU_DATA: index in d->buffers */
	uint32_t cpu;            /* PART_CPU_DATA: the CPU */
	uint64_t units;          /* PART_CPU_DATA: pages (compressed: chunks; 0
				    when the chunk count itself is lost) lost */
} tb_dat_damage;

/* Static name of a part ("kallsyms", "CPU data"...), "unknown" otherwise. */
TB_API const char *tb_dat_part_name(unsigned part);

/* The caller's storage.  Any pointer may be NULL with capacity 0. */
typedef struct tb_dat_storage {
	tb_dat_event_text *events;
	size_t events_cap;
	tb_dat_buffer *buffers;
	size_t buffers_cap;
	tb_dat_cpu *cpus;        /* all buffers' CPU ranges */
	size_t cpus_cap;
	tb_dat_text *cpustats;
	size_t cpustats_cap;
	uint8_t *scratch;        /* decompressed sections */
	size_t scratch_cap;
} tb_dat_storage;

/* How much storage the file needs (filled on TB_OK and TB_ERR_NO_SPACE). */
typedef struct tb_dat_needs {
	size_t events, buffers, cpus, cpustats, scratch;
	size_t damage;           /* salvage: to keep every damage entry */
} tb_dat_needs;

typedef struct tb_dat {
	/* initial header */
	const uint8_t *file;
	size_t len;
	unsigned version;        /* 6 or 7 */
	int big_endian;
	unsigned long_size;      /* 4 or 8, as the header says */
	uint32_t page_size;
	tb_dat_text compression; /* v7: "none", "zstd", "zlib"... */
	tb_dat_text compression_version;
	uint64_t first_options;  /* v7: offset of the first options section */

	/* metadata */
	tb_dat_text header_page, header_event;
	tb_dat_event_text *events; /* ftrace events first, then each system's */
	size_t nevents, nftrace, nsystems;
	tb_dat_text kallsyms, printk, cmdlines;
	tb_dat_text strings;     /* v7 section description strings */

	/* options */
	uint32_t cpu_count;      /* v6 CPU count, or the CPUCOUNT option */
	int has_cpu_count;
	tb_dat_text uname, tc_version, trace_clock, hook, procmaps, date,
		ts_offset, last_boot_info, btf, modules, time_shift, guest;
	tb_dat_text v6_clock;    /* v6: the trace_clock text after flyrecord */
	uint64_t trace_id;
	int has_trace_id;
	uint32_t tsc_mult, tsc_shift;
	uint64_t tsc_offset;
	int has_tsc2nsec;
	tb_dat_text *cpustats;
	size_t ncpustats;
	size_t noptions, nunknown_options, noption_sections, nsections;

	/* trace data */
	tb_dat_buffer *buffers;  /* the top buffer (name "") first if present */
	size_t nbuffers;

	tb_dat_needs need;

	/* salvage (TB_DAT_OPEN_SALVAGE): damage in order of discovery, the
	 * first min(damage_total, damage_cap) kept */
	unsigned flags;          /* as given to tb_dat_open_ex */
	const tb_dat_damage *damage;
	size_t ndamage;          /* kept in damage[] */
	size_t damage_total;     /* found: 0 means the file is whole */
	/* v7 kallsyms / printk / cmdlines sections holding more than their
	 * declared size (trace-cmd reads the declared size, and so does
	 * this): bytes past it in all, and the first such section */
	uint64_t slack_bytes, slack_offset;

	/* Set by the caller after opening (NULL: CPU data is read from
	 * `file`): see tb_dat_read_fn. */
	tb_dat_read_fn read;
	void *read_ctx;

	/* private */
	tb_dat_storage st_;
	tb_dat_decompressor dc_;
	tb_dat_damage *damage_st_;
	size_t damage_cap_;
	size_t scratch_used_;
	uint64_t opt_seen_[TB_DAT_MAX_OPTION_SECTIONS];
	unsigned sect_seen_;     /* bit per section id met via an option */
} tb_dat;

/*
 * Validate the trace.dat in file[0..len) and describe it in *d.  `dc` may
 * be NULL (compressed sections then give TB_ERR_UNSUPPORTED).  The file
 * and the storage must outlive *d.
 */
TB_API TB_MUST_CHECK tb_status tb_dat_open(tb_dat *d, const void *file,
					   size_t len,
					   const tb_dat_storage *st,
					   const tb_dat_decompressor *dc,
					   tb_error *err);

/* tb_dat_open_opts.flags */
#define TB_DAT_OPEN_SALVAGE 0x01u /* keep everything valid of a cut or damaged
				     file; record the rest as damage */
/* The bytes are perf's tracing data (perf.data's TRACING_DATA feature or
 * a pipe's HEADER_TRACING_DATA): the v6 header pieces under version
 * "0.6" (or "0.5", without saved cmdlines) and nothing after them, so
 * d gets the header_page, header_event, formats, kallsyms, printk and
 * cmdlines texts and no buffers.  d->version is then 6. */
#define TB_DAT_OPEN_PERF_TRACING 0x02u

typedef struct tb_dat_open_opts {
	unsigned flags;          /* TB_DAT_OPEN_* */
	tb_dat_damage *damage;   /* salvage: the damage list, caller storage
				    (more than fits is counted, not an error:
				    d->damage_total, d->need.damage) */
	size_t damage_cap;
} tb_dat_open_opts;
/* Resync candidates a damaged v6 file is searched for (options /
 * flyrecord / latency tags tried past a fault). */
#define TB_DAT_MAX_RESYNC 64u
/* Options a resync candidate's list is walked through at most. */
#define TB_DAT_MAX_RESYNC_OPTIONS 4096u

/*
 * tb_dat_open with flags.  With TB_DAT_OPEN_SALVAGE only the initial header
 * (magic, version, endianness, long and page size; v7: compression and the
 * first options offset) must be sound.  Everything after it that is cut
 * short or does not parse becomes an entry of d->damage (and d->damage_total
 * counts it) instead of an error, and the open goes on with what is valid:
 * - CPU data ranges that run past the end are clipped to the whole pages
 *   (compressed: whole chunks) present: tb_dat_cpu.cut, .declared, and one
 *   TB_DAT_PART_CPU_DATA entry per cut CPU with the pages / chunks lost;
 * - texts cut short (kallsyms, printk, cmdlines) keep their whole lines;
 *   formats before a fault are kept;
 * - a bad option is skipped (its size is known); a bad v6 item is skipped
 *   to the next options / flyrecord tag found past it; a bad v7 section
 *   loses that section only; v7 metadata sections the options no longer
 *   name (the chain was cut) are found by walking the sections;
 * - a v7 buffer whose BUFFER option is lost (it follows the data, so a cut
 *   file loses it) is rebuilt from its section: tb_dat_buffer.inferred.
 * TB_ERR_NO_SPACE and the need counts work as in tb_dat_open.  With
 * opt NULL or without the flag, tb_dat_open_ex is tb_dat_open.
 */
TB_API TB_MUST_CHECK tb_status tb_dat_open_ex(tb_dat *d, const void *file,
					      size_t len,
					      const tb_dat_storage *st,
					      const tb_dat_decompressor *dc,
					      const tb_dat_open_opts *opt,
					      tb_error *err);

/* The buffer called `name` ("" = top buffer), or NULL. */
TB_API const tb_dat_buffer *tb_dat_find_buffer(const tb_dat *d,
					       const char *name);

/* The description string of a v7 section (id into the strings), or NULL. */
TB_API const char *tb_dat_section_name(const tb_dat *d, uint32_t id);

/* Is this a trace.dat (magic and "tracing")?  Never fails. */
TB_API int tb_dat_probe(const void *file, size_t len);

/* ---- compressed per-CPU data ---- */

typedef struct tb_dat_chunk {
	const uint8_t *data;     /* compressed bytes, in the file */
	uint32_t csize;          /* (cut: the bytes present) */
	uint32_t usize;          /* declared uncompressed size */
	uint64_t offset;         /* file offset of the chunk header */
	int cut;                 /* salvage: the file ends inside this chunk,
				    the last of its CPU (tb_dat_cpu.tail) */
} tb_dat_chunk;

typedef struct tb_dat_chunk_iter {
	const tb_dat *d;
	const tb_dat_cpu *cpu;
	uint32_t count, index;
	uint64_t pos;            /* file offset of the next chunk header */
	uint64_t end;
} tb_dat_chunk_iter;

/* Start walking the chunks of one CPU of a compressed buffer. */
TB_API TB_MUST_CHECK tb_status tb_dat_chunks_begin(tb_dat_chunk_iter *it,
						   const tb_dat *d,
						   const tb_dat_buffer *b,
						   const tb_dat_cpu *cpu,
						   tb_error *err);
/* Next chunk: TB_OK, TB_END after the last, or an error. */
TB_API TB_MUST_CHECK tb_status tb_dat_chunk_next(tb_dat_chunk_iter *it,
						 tb_dat_chunk *out,
						 tb_error *err);
/* Decompress one chunk into dst (usize bytes, a whole number of pages);
 * *len is the bytes of dst holding pages: usize, or for a cut chunk the
 * whole pages decoded from the bytes present.  A cut chunk that gave
 * fewer than usize bytes returns TB_ERR_TRUNCATED with *len (maybe 0)
 * set and err->offset at its header: its pages from *len on are lost.
 * Any other error sets *len to 0. */
TB_API TB_MUST_CHECK tb_status tb_dat_chunk_inflate(const tb_dat *d,
						    const tb_dat_buffer *b,
						    const tb_dat_chunk *c,
						    void *dst, size_t dst_cap,
						    size_t *len, tb_error *err);

/* ---- the events of a buffer, all CPUs merged by time ---- */

#define TB_DAT_BATCH 32u

/* Flags for tb_dat_stream_init. */
#define TB_DAT_STREAM_TC_DROPS 0x01u /* report a page's drops only when its
					first record is an event at data
					offset 0, as trace-cmd (kbuffer) does */

/* One CPU's position in the stream (caller storage, one per CPU). */
typedef struct tb_dat_cursor {
	const tb_dat_cpu *cpu;
	uint64_t next;           /* uncompressed: file offset of the next page */
	uint64_t end;
	tb_dat_chunk_iter chunks;
	uint8_t *chunk;          /* compressed: one decompressed chunk */
	size_t chunk_cap, chunk_len, chunk_next;
	uint64_t chunk_off;
	uint64_t page_off;       /* file offset of the page (or of its chunk) */
	uint32_t page_in_chunk;  /* byte offset of the page in its chunk */
	uint64_t page_index;     /* pages opened so far on this CPU */
	tb_kbuf kb;
	size_t nrecs, irec;
	tb_status batch_status;  /* how the last batch ended */
	int chunk_cut;           /* the chunk is cut: its lost pages are
				    reported after its last whole one */
	int64_t missed;          /* drops waiting for this CPU's next event */
	int first_in_page;
	int done;
	tb_merge_slot merge;     /* the stream's merge of the CPUs */
	/* last, apart from what every event reads: the first pass decodes
	 * one record a CPU, so that an idle CPU's recs are never touched */
	tb_kbuf_record recs[TB_DAT_BATCH];
} tb_dat_cursor;

typedef struct tb_dat_stream {
	const tb_dat *d;
	const tb_dat_buffer *b;
	tb_kbuf_layout layout;
	tb_dat_cursor *cur;
	size_t ncur;
	unsigned flags;
	uint32_t error_cpu;      /* the CPU of the last error returned */
	uint64_t error_page;     /* and its page number on that CPU, from 0 */
	uint64_t events, pages, dropped_known, drops_unknown;
	uint64_t decoded;        /* records decoded so far (events and others) */
	tb_merge merge;          /* the CPUs by time, in the cursors' slots */
} tb_dat_stream;

/* One event of the merged stream. */
typedef struct tb_dat_event {
	const uint8_t *data;     /* the record payload (in the file or a chunk) */
	uint32_t len;
	uint32_t cpu;
	uint64_t ts;
	int64_t missed;          /* dropped just before it on its CPU: 0, -1 unknown, n */
	uint64_t page_off;       /* file offset of its page (compressed: its chunk) */
	uint64_t page_index;     /* page number on its CPU, from 0 */
	uint32_t offset;         /* record offset in its page (from the page's
				    first byte, compressed or not) */
} tb_dat_event;

/* The chunk memory tb_dat_stream_init needs per CPU: the largest
 * decompressed chunk of any CPU of a compressed b; for an uncompressed b
 * the read buffer when d->read is set (TB_DAT_READ_CHUNK), else 0. */
TB_API TB_MUST_CHECK tb_status tb_dat_chunk_max(const tb_dat *d,
						const tb_dat_buffer *b,
						size_t *max, tb_error *err);

/*
 * Start the merged stream of buffer b: cursors[0..b->ncpus) and, for a
 * compressed buffer or one read through d->read, chunk_mem of
 * b->ncpus * per_cpu bytes (per_cpu from tb_dat_chunk_max; NULL when
 * that is 0, as for a cut file with no chunk left).  The layout comes
 * from the file's header_page.
 */
TB_API TB_MUST_CHECK tb_status tb_dat_stream_init(tb_dat_stream *s,
						  const tb_dat *d,
						  const tb_dat_buffer *b,
						  const tb_kbuf_layout *layout,
						  tb_dat_cursor *cursors,
						  size_t ncursors,
						  uint8_t *chunk_mem,
						  size_t per_cpu,
						  unsigned flags,
						  tb_error *err);

/*
 * Chunk memory that follows what each CPU holds: caps[i] (b->ncpus
 * entries) for b->cpus[i]: 0 for an empty CPU, else its own largest
 * decompressed chunk (compressed b) or a read buffer of TB_DAT_READ_CHUNK
 * at most, no larger than its pages (d->read set), else 0; *total is
 * their sum.  Chunk headers are read, nothing is decompressed.  Errors:
 * the chunk table's, TB_ERR_LIMIT when the sum passes SIZE_MAX / 2.
 */
TB_API TB_MUST_CHECK tb_status tb_dat_chunk_caps(const tb_dat *d, const tb_dat_buffer *b,
						 size_t *caps, size_t *total, tb_error *err);

/* tb_dat_stream_init with chunk_mem laid out by caps (tb_dat_chunk_caps):
 * cursor i's caps[i] bytes follow those of the cursors before it. */
TB_API TB_MUST_CHECK tb_status tb_dat_stream_init_caps(tb_dat_stream *s, const tb_dat *d,
						       const tb_dat_buffer *b,
						       const tb_kbuf_layout *layout,
						       tb_dat_cursor *cursors, size_t ncursors,
						       uint8_t *chunk_mem, const size_t *caps,
						       unsigned flags, tb_error *err);

/*
 * The next event by time (ties: the lower CPU first, as trace-cmd).
 * TB_OK, TB_END, or an error for one page (err->offset is a file offset,
 * s->error_cpu and s->error_page say which); the stream then goes on with
 * that CPU's next page, so calling again after an error continues.  In a
 * compressed buffer a fault inside a decompressed page has no file offset
 * of its own: err->offset is then the file offset of the header of the
 * chunk holding the page (always inside the file).
 */
TB_API TB_MUST_CHECK tb_status tb_dat_stream_next(tb_dat_stream *s,
						  tb_dat_event *ev,
						  tb_error *err);

/*
 * Seeking one CPU of a stream (what session.h's parts of a capture use).
 * Uncompressed buffers only: a compressed CPU gives TB_ERR_UNSUPPORTED.
 * tb_dat_stream_pages: the CPU's pages (slot: its index in b->cpus).
 * tb_dat_stream_page_ts: a page's header timestamp (TB_NOT_FOUND past the
 * last page or for a last page shorter than its header; a damaged page's
 * is whatever its first 8 bytes say).
 * tb_dat_stream_seek: the CPU's next page is `page` (past the last: the
 * CPU is done); drops pending before it are forgotten.
 * tb_dat_stream_skip_before: consume the CPU's records with a timestamp
 * below ts, as tb_dat_stream_next would but without giving them (bad
 * pages among them are skipped silently), so that its next record is the
 * first at or after ts; *skipped counts them.
 */
TB_API TB_MUST_CHECK tb_status tb_dat_stream_pages(const tb_dat_stream *s, size_t slot,
						   uint64_t *npages);
TB_API TB_MUST_CHECK tb_status tb_dat_stream_page_ts(const tb_dat_stream *s, size_t slot,
						     uint64_t page, uint64_t *ts);
TB_API TB_MUST_CHECK tb_status tb_dat_stream_seek(tb_dat_stream *s, size_t slot,
						  uint64_t page, tb_error *err);
TB_API TB_MUST_CHECK tb_status tb_dat_stream_skip_before(tb_dat_stream *s, size_t slot,
							 uint64_t ts, uint64_t *skipped);

/* ---- options, re-walked on demand ---- */

/* Called for every option in file order; non-zero return stops the walk. */
typedef int (*tb_dat_option_fn)(void *ctx, unsigned id, const uint8_t *payload,
				uint32_t size, uint64_t offset);
/* Walk the options of an opened file (v6 list or v7 chain). */
TB_API tb_status tb_dat_foreach_option(const tb_dat *d, tb_dat_option_fn fn,
				       void *ctx, tb_error *err);
/* Static name of an option id ("UNAME"...), "unknown" otherwise. */
TB_API const char *tb_dat_option_name(unsigned id);

/* ---- tables built from the texts, in caller storage ---- */

/* saved_cmdlines: "<pid> <comm>" lines. */
typedef struct tb_cmdline {
	int32_t pid;
	const char *comm;
	size_t comm_len;
} tb_cmdline;

typedef struct tb_cmdlines {
	tb_cmdline *v;           /* sorted by pid */
	size_t n, cap;
} tb_cmdlines;

/* kallsyms: "<hex addr> <type> <name>[\t[module]]" lines.  Entries are
 * 24 bytes (a kernel has ~100k symbols): names are offsets into the text,
 * read them with tb_ksym_name / tb_ksym_module. */
#define TB_KSYM_NAME_MAX 65535u /* longer names (and modules) are an error */

typedef struct tb_ksym {
	uint64_t addr;
	uint32_t name;           /* offset of the name in the text */
	uint32_t module;         /* offset of the module name (module_len > 0) */
	uint16_t name_len;
	uint16_t module_len;     /* 0: no module */
	char type;
} tb_ksym;

/* Every well-formed line becomes an entry (nothing is skipped, so
 * tb_kallsyms_count is exactly what a sound text needs).  v holds first
 * the symbols tb_kallsyms_find looks up, sorted by address, then the
 * absolute ('A', 'a') and '$' mapping symbols (arm's $a, $d, $x), sorted
 * by address too: trace-cmd never resolves an address to those. */
typedef struct tb_kallsyms {
	tb_ksym *v;              /* see above: two parts, each by address */
	size_t n, cap;
	const char *text;        /* set by tb_kallsyms_parse */
} tb_kallsyms;

static inline const char *tb_ksym_name(const tb_kallsyms *t, const tb_ksym *k)
{
	return t->text + k->name;
}

static inline const char *tb_ksym_module(const tb_kallsyms *t, const tb_ksym *k)
{
	return k->module_len ? t->text + k->module : NULL;
}

/* printk_formats: "0x<addr> : \"<format>\"" lines. */
typedef struct tb_printk_fmt {
	uint64_t addr;
	const char *fmt;         /* without the quotes */
	size_t fmt_len;
} tb_printk_fmt;

typedef struct tb_printk_fmts {
	tb_printk_fmt *v;        /* sorted by address */
	size_t n, cap;
} tb_printk_fmts;

/* Count the entries a text will need: its non-blank lines, each of which
 * parses into one entry or fails. */
TB_API size_t tb_cmdlines_count(const char *text, size_t len);
TB_API size_t tb_kallsyms_count(const char *text, size_t len);
TB_API size_t tb_printk_count(const char *text, size_t len);

/*
 * Parse a text into t->v[0..t->cap).  A malformed line fails with
 * TB_ERR_SYNTAX (TB_ERR_LIMIT for a name over TB_KSYM_NAME_MAX), too many
 * entries with TB_ERR_NO_SPACE; err->offset is then the byte offset in the
 * text of the line's first character.  Entries before that line are kept
 * (sorted).  The entries point into the text.
 */
TB_API TB_MUST_CHECK tb_status tb_cmdlines_parse(tb_cmdlines *t,
						 const char *text, size_t len,
						 tb_error *err);
TB_API TB_MUST_CHECK tb_status tb_kallsyms_parse(tb_kallsyms *t,
						 const char *text, size_t len,
						 tb_error *err);
TB_API TB_MUST_CHECK tb_status tb_printk_parse(tb_printk_fmts *t,
					       const char *text, size_t len,
					       tb_error *err);

/* The comm of pid, or NULL. */
TB_API const tb_cmdline *tb_cmdlines_find(const tb_cmdlines *t, int32_t pid);
/* The symbol at or below addr (the last of equal addresses), or NULL;
 * absolute and '$' mapping symbols are never returned. */
TB_API const tb_ksym *tb_kallsyms_find(const tb_kallsyms *t, uint64_t addr);
/*
 * Which symbol names an address, for tb_kallsyms_find_as.  Of several
 * symbols at one address (aliases) the table keeps text order.
 *   TB_KSYM_LAST   tb_kallsyms_find: the symbol at or below addr; of
 *                  aliases, the last in the text.
 *   TB_KSYM_FIRST  the same, but of aliases the first in the text.
 *   TB_KSYM_TEP    what libtraceevent (trace-cmd report) finds: addr is a
 *                  symbol's address or lies below the next symbol's (past
 *                  the last symbol: NULL).  Of aliases, inside a symbol
 *                  the first in the text; at the address itself the one
 *                  its binary search over newest-first order meets (it
 *                  depends on the table's size, so any of them).
 * Like tb_kallsyms_find, none of them returns an absolute or '$' mapping
 * symbol.  The table itself is never reordered.
 */
#define TB_KSYM_LAST  0u
#define TB_KSYM_FIRST 1u
#define TB_KSYM_TEP   2u
TB_API const tb_ksym *tb_kallsyms_find_as(const tb_kallsyms *t, uint64_t addr,
					  unsigned how);
/* Bytes from k's address to the next higher symbol address (the kernel's
 * symbol size for "%pS"); 0 for the last address or a NULL argument. */
TB_API uint64_t tb_kallsyms_size(const tb_kallsyms *t, const tb_ksym *k);
/* The format at exactly addr, or NULL. */
TB_API const tb_printk_fmt *tb_printk_find(const tb_printk_fmts *t,
					   uint64_t addr);

#ifdef __cplusplus
}
#endif

#endif /* TRACEBOUND_TRACEDAT_H */
