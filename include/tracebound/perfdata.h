/*
 * tracebound: Linux perf.data files and `perf record -o -` pipe streams.
 *
 * File mode: tb_perf_open() validates a whole perf.data held in caller
 * memory: the header (magic in either byte order), each perf_event_attr
 * of the declared attr_size with its sample ids, the data section and the
 * feature sections.  The attrs and an id -> attr table live in caller
 * storage (tb_perf_storage); when it is too small the open returns
 * TB_ERR_NO_SPACE and f->need says how much (grow and call again).
 * tb_perf_records_begin() / tb_perf_record_next() then walk the data
 * section in file order, each record typed and its SAMPLE fields (or
 * the sample_id_all trailer of other records) parsed by its attr.
 *
 * Pipe mode: tb_perf_stream is fed the stream in pieces of any size (as
 * tb_pmclog_feed) and gives the same records; the attrs come from
 * HEADER_ATTR records, the features from HEADER_FEATURE records, and
 * HEADER_TRACING_DATA's bytes (which follow that record) are collected
 * into caller storage.  tb_perf_open() on a pipe-mode buffer refuses it
 * with TB_ERR_UNSUPPORTED: use the stream, whose tb_perf_stream_open_buffer
 * takes a whole buffer.
 *
 * Nothing is allocated, nothing is read but the bytes given; every
 * length, count and offset is checked before use and every fault is an
 * error value with its byte offset (file offset, or stream offset counted
 * from the first byte of the 16-byte pipe header).
 */
#ifndef TRACEBOUND_PERFDATA_H
#define TRACEBOUND_PERFDATA_H

#include "tracebound/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- named limits ---- */
#define TB_PERF_HEADER_SIZE 104u       /* file header with its 256-bit bitmap */
#define TB_PERF_PIPE_HEADER_SIZE 16u   /* magic + size */
#define TB_PERF_ATTR_MIN 64u           /* PERF_ATTR_SIZE_VER0 */
#define TB_PERF_ATTR_MAX 4096u         /* largest perf_event_attr accepted */
#define TB_PERF_MAX_RECORD 65535u      /* a record's u16 size */
#define TB_PERF_FEAT_BITS 256u         /* the feature bitmap */
#define TB_PERF_MAX_REGS 64u           /* registers in a regs mask */
#define TB_PERF_MAX_LATE_ATTRS 64u     /* pipe: HEADER_ATTR records after the
					  ids were first looked up (each one
					  sorts the id table again) */

/* Record types (perf_event.h, then perf's own from 64). */
enum tb_perf_record_type {
	TB_PERF_RECORD_MMAP = 1,
	TB_PERF_RECORD_LOST = 2,
	TB_PERF_RECORD_COMM = 3,
	TB_PERF_RECORD_EXIT = 4,
	TB_PERF_RECORD_THROTTLE = 5,
	TB_PERF_RECORD_UNTHROTTLE = 6,
	TB_PERF_RECORD_FORK = 7,
	TB_PERF_RECORD_READ = 8,
	TB_PERF_RECORD_SAMPLE = 9,
	TB_PERF_RECORD_MMAP2 = 10,
	TB_PERF_RECORD_AUX = 11,
	TB_PERF_RECORD_ITRACE_START = 12,
	TB_PERF_RECORD_LOST_SAMPLES = 13,
	TB_PERF_RECORD_SWITCH = 14,
	TB_PERF_RECORD_SWITCH_CPU_WIDE = 15,
	TB_PERF_RECORD_NAMESPACES = 16,
	TB_PERF_RECORD_KSYMBOL = 17,
	TB_PERF_RECORD_BPF_EVENT = 18,
	TB_PERF_RECORD_CGROUP = 19,
	TB_PERF_RECORD_TEXT_POKE = 20,
	TB_PERF_RECORD_AUX_OUTPUT_HW_ID = 21,
	TB_PERF_RECORD_KERNEL_END_ = 22,   /* not a type: kernel types are below */
	TB_PERF_RECORD_HEADER_ATTR = 64,
	TB_PERF_RECORD_HEADER_EVENT_TYPE = 65,
	TB_PERF_RECORD_HEADER_TRACING_DATA = 66,
	TB_PERF_RECORD_HEADER_BUILD_ID = 67,
	TB_PERF_RECORD_FINISHED_ROUND = 68,
	TB_PERF_RECORD_ID_INDEX = 69,
	TB_PERF_RECORD_AUXTRACE_INFO = 70,
	TB_PERF_RECORD_AUXTRACE = 71,
	TB_PERF_RECORD_AUXTRACE_ERROR = 72,
	TB_PERF_RECORD_THREAD_MAP = 73,
	TB_PERF_RECORD_CPU_MAP = 74,
	TB_PERF_RECORD_STAT_CONFIG = 75,
	TB_PERF_RECORD_STAT = 76,
	TB_PERF_RECORD_STAT_ROUND = 77,
	TB_PERF_RECORD_EVENT_UPDATE = 78,
	TB_PERF_RECORD_TIME_CONV = 79,
	TB_PERF_RECORD_HEADER_FEATURE = 80,
	TB_PERF_RECORD_COMPRESSED = 81,
	TB_PERF_RECORD_FINISHED_INIT = 82,
	TB_PERF_RECORD_COMPRESSED2 = 83
};

/* sample_type bits, in the order a SAMPLE lays them out where they differ. */
#define TB_PERF_SAMPLE_IP (1ull << 0)
#define TB_PERF_SAMPLE_TID (1ull << 1)
#define TB_PERF_SAMPLE_TIME (1ull << 2)
#define TB_PERF_SAMPLE_ADDR (1ull << 3)
#define TB_PERF_SAMPLE_READ (1ull << 4)
#define TB_PERF_SAMPLE_CALLCHAIN (1ull << 5)
#define TB_PERF_SAMPLE_ID (1ull << 6)
#define TB_PERF_SAMPLE_CPU (1ull << 7)
#define TB_PERF_SAMPLE_PERIOD (1ull << 8)
#define TB_PERF_SAMPLE_STREAM_ID (1ull << 9)
#define TB_PERF_SAMPLE_RAW (1ull << 10)
#define TB_PERF_SAMPLE_BRANCH_STACK (1ull << 11)
#define TB_PERF_SAMPLE_REGS_USER (1ull << 12)
#define TB_PERF_SAMPLE_STACK_USER (1ull << 13)
#define TB_PERF_SAMPLE_WEIGHT (1ull << 14)
#define TB_PERF_SAMPLE_DATA_SRC (1ull << 15)
#define TB_PERF_SAMPLE_IDENTIFIER (1ull << 16)
#define TB_PERF_SAMPLE_TRANSACTION (1ull << 17)
#define TB_PERF_SAMPLE_REGS_INTR (1ull << 18)
#define TB_PERF_SAMPLE_PHYS_ADDR (1ull << 19)
#define TB_PERF_SAMPLE_AUX (1ull << 20)
#define TB_PERF_SAMPLE_CGROUP (1ull << 21)
#define TB_PERF_SAMPLE_DATA_PAGE_SIZE (1ull << 22)
#define TB_PERF_SAMPLE_CODE_PAGE_SIZE (1ull << 23)
#define TB_PERF_SAMPLE_WEIGHT_STRUCT (1ull << 24)
#define TB_PERF_SAMPLE_KNOWN_ ((1ull << 25) - 1) /* every bit above */

/* read_format bits */
#define TB_PERF_FORMAT_TOTAL_TIME_ENABLED (1ull << 0)
#define TB_PERF_FORMAT_TOTAL_TIME_RUNNING (1ull << 1)
#define TB_PERF_FORMAT_ID (1ull << 2)
#define TB_PERF_FORMAT_GROUP (1ull << 3)
#define TB_PERF_FORMAT_LOST (1ull << 4)

/* branch_sample_type bits that change the BRANCH_STACK layout */
#define TB_PERF_BRANCH_HW_INDEX (1ull << 17)
#define TB_PERF_BRANCH_COUNTERS (1ull << 19)

/* attr flag bits (the u64 after read_format) */
#define TB_PERF_ATTR_FLAG_SAMPLE_ID_ALL (1ull << 18)
#define TB_PERF_ATTR_FLAG_USE_CLOCKID (1ull << 25)

/* misc bits */
#define TB_PERF_MISC_COMM_EXEC 0x2000u     /* COMM: the task exec'd */
#define TB_PERF_MISC_MMAP_BUILD_ID 0x4000u /* MMAP2 carries a build id */

/* Feature ids (bits of the header's bitmap). */
enum tb_perf_feature_id {
	TB_PERF_FEAT_TRACING_DATA = 1,
	TB_PERF_FEAT_BUILD_ID = 2,
	TB_PERF_FEAT_HOSTNAME = 3,
	TB_PERF_FEAT_OSRELEASE = 4,
	TB_PERF_FEAT_VERSION = 5,
	TB_PERF_FEAT_ARCH = 6,
	TB_PERF_FEAT_NRCPUS = 7,
	TB_PERF_FEAT_CPUDESC = 8,
	TB_PERF_FEAT_CPUID = 9,
	TB_PERF_FEAT_TOTAL_MEM = 10,
	TB_PERF_FEAT_CMDLINE = 11,
	TB_PERF_FEAT_EVENT_DESC = 12,
	TB_PERF_FEAT_CPU_TOPOLOGY = 13,
	TB_PERF_FEAT_NUMA_TOPOLOGY = 14,
	TB_PERF_FEAT_BRANCH_STACK = 15,
	TB_PERF_FEAT_PMU_MAPPINGS = 16,
	TB_PERF_FEAT_GROUP_DESC = 17,
	TB_PERF_FEAT_AUXTRACE = 18,
	TB_PERF_FEAT_STAT = 19,
	TB_PERF_FEAT_CACHE = 20,
	TB_PERF_FEAT_SAMPLE_TIME = 21,
	TB_PERF_FEAT_MEM_TOPOLOGY = 22,
	TB_PERF_FEAT_CLOCKID = 23,
	TB_PERF_FEAT_DIR_FORMAT = 24,
	TB_PERF_FEAT_BPF_PROG_INFO = 25,
	TB_PERF_FEAT_BPF_BTF = 26,
	TB_PERF_FEAT_COMPRESSED = 27,
	TB_PERF_FEAT_CPU_PMU_CAPS = 28,
	TB_PERF_FEAT_CLOCK_DATA = 29,
	TB_PERF_FEAT_HYBRID_TOPOLOGY = 30,
	TB_PERF_FEAT_PMU_CAPS = 31
};

/* A span of bytes: in the file, the caller's stream buffer or the
 * decoder's reassembly buffer (see each use for how long it lives). */
typedef struct tb_perf_bytes {
	const uint8_t *ptr;
	size_t len;
} tb_perf_bytes;

/* n u64 values in the input's byte order (read with tb_perf_u64_at). */
typedef struct tb_perf_u64s {
	const uint8_t *ptr;
	uint64_t n;
	int big_endian;
} tb_perf_u64s;

/* Value i of a, or 0 when i >= a->n. */
TB_API uint64_t tb_perf_u64_at(const tb_perf_u64s *a, uint64_t i);

/* One perf_event_attr: the fields its declared size holds (the rest 0). */
typedef struct tb_perf_attr {
	uint32_t type;           /* 2: tracepoint */
	uint32_t size;           /* as written (0 means 64) */
	uint64_t config;         /* tracepoint: the format's ID */
	uint64_t sample_period;
	uint64_t sample_type;
	uint64_t read_format;
	uint64_t flags;          /* the bit field word: TB_PERF_ATTR_FLAG_* */
	uint64_t branch_sample_type;
	uint64_t sample_regs_user;
	uint64_t sample_regs_intr;
	uint32_t sample_stack_user;
	int32_t clockid;         /* with TB_PERF_ATTR_FLAG_USE_CLOCKID */
	uint64_t offset;         /* where it was read (file or stream offset) */
	size_t nids;             /* ids listed for it (in tb_perf.ids) */
} tb_perf_attr;

/* One sample id and the attr it belongs to. */
typedef struct tb_perf_id {
	uint64_t id;
	uint32_t attr;           /* index in tb_perf.attrs */
} tb_perf_id;

typedef struct tb_perf_section {
	uint64_t offset, size;
} tb_perf_section;

/* One feature section (file mode) or HEADER_FEATURE record (pipe). */
typedef struct tb_perf_feature {
	uint32_t id;             /* enum tb_perf_feature_id, or unknown */
	uint64_t offset;         /* of its contents */
	tb_perf_bytes data;      /* its contents */
} tb_perf_feature;

/* CLOCK_DATA: the sample clock and one moment read on both clocks. */
typedef struct tb_perf_clock_data {
	uint32_t version;
	uint32_t clockid;
	uint64_t tod_ns;         /* time of day, ns since the epoch */
	uint64_t clock_ns;       /* the sample clock at that moment */
} tb_perf_clock_data;

/* COMPRESSED: how the COMPRESSED records were written. */
typedef struct tb_perf_compression {
	uint32_t version;
	uint32_t type;           /* 1: zstd */
	uint32_t level;
	uint32_t ratio;
	uint32_t mmap_len;
} tb_perf_compression;

/* The caller's storage.  Any pointer may be NULL with capacity 0. */
typedef struct tb_perf_storage {
	tb_perf_attr *attrs;
	size_t attrs_cap;
	tb_perf_id *ids;
	size_t ids_cap;
	uint8_t *tracing;        /* pipe mode: HEADER_TRACING_DATA's bytes */
	size_t tracing_cap;
} tb_perf_storage;

typedef struct tb_perf_needs {
	size_t attrs, ids, tracing;
} tb_perf_needs;

/* What the header and the features of a capture say. */
typedef struct tb_perf {
	const uint8_t *file;     /* file mode: the whole file */
	size_t len;
	int big_endian;
	int pipe;                /* 1: a pipe-mode stream */
	uint64_t header_size;    /* 104 (file) or 16 (pipe) */
	uint64_t attr_size;      /* file: each attrs entry (attr + ids section) */
	tb_perf_section attr_sec, data, event_types;
	uint64_t features[TB_PERF_FEAT_BITS / 64]; /* the bitmap */

	tb_perf_attr *attrs;     /* into the caller's storage */
	size_t nattrs;
	tb_perf_id *ids;         /* sorted by id, for tb_perf_find_attr */
	size_t nids;
	/* Where every attr keeps its sample id (all attrs agree): u64 index in
	 * a SAMPLE from its start, and from the end of an sample_id_all
	 * trailer; -1 when the attrs carry no id. */
	int id_pos, id_pos_end;

	/* features, as found (file: at open; pipe: as records arrive) */
	tb_perf_bytes tracing_data;   /* TRACING_DATA (see tb_dat_open_tracing) */
	uint64_t tracing_offset;
	tb_perf_bytes hostname, osrelease, version, arch, cpudesc, cpuid;
	uint32_t nr_cpus_online, nr_cpus_avail;
	int has_nrcpus;
	uint64_t clockid_res_ns;      /* CLOCKID: the clock's resolution */
	int has_clockid_res;
	tb_perf_clock_data clock;
	int has_clock_data;
	tb_perf_compression compression;
	int has_compression;
	int dir_format;               /* DIR_FORMAT: data in other files */

	tb_perf_needs need;

	/* private */
	tb_perf_storage st_;
	int ids_sorted_;
	unsigned late_attrs_;
	int samples_unparsed_;        /* the session parses SAMPLE fields itself */
} tb_perf;

/*
 * Validate the perf.data in file[0..len) and describe it in *f.  The file
 * and the storage must outlive *f.  TB_ERR_UNSUPPORTED for a pipe-mode
 * buffer (use tb_perf_stream) and for the directory layout of
 * `perf record --threads` (DIR_FORMAT: its samples are in other files).
 */
TB_API TB_MUST_CHECK tb_status tb_perf_open(tb_perf *f, const void *file,
					    size_t len,
					    const tb_perf_storage *st,
					    tb_error *err);

/* Does it start with a perf.data magic (either byte order)?  Never fails. */
TB_API int tb_perf_probe(const void *file, size_t len);

/* The attr of a sample id (TB_NOT_FOUND: no attr lists it).  With a single
 * attr that lists no ids, that attr for every id. */
TB_API tb_status tb_perf_find_attr(const tb_perf *f, uint64_t id,
				   const tb_perf_attr **out);

/* Is feature `id` present (file: its bit; pipe: its record was seen)? */
TB_API int tb_perf_has_feature(const tb_perf *f, unsigned id);

/* File mode: the section of feature `id`.  TB_NOT_FOUND when its bit is
 * clear; errors for a section table or section outside the file. */
TB_API TB_MUST_CHECK tb_status tb_perf_feature_get(const tb_perf *f, unsigned id,
						   tb_perf_feature *out,
						   tb_error *err);

/* Static name of a feature ("TRACING_DATA"...), "unknown" otherwise. */
TB_API const char *tb_perf_feature_name(unsigned id);
/* Static name of a record type as perf prints it ("SAMPLE", "ATTR" for
 * HEADER_ATTR...), "unknown" otherwise. */
TB_API const char *tb_perf_record_name(uint32_t type);

/* ---- feature contents: strings, string lists, event descriptions ---- */

/* A one-string feature (HOSTNAME, OSRELEASE, VERSION, ARCH, CPUDESC,
 * CPUID): the string without its NUL padding. */
TB_API TB_MUST_CHECK tb_status tb_perf_feature_string(const tb_perf *f,
						      const tb_perf_feature *feat,
						      tb_perf_bytes *s,
						      tb_error *err);

/* CMDLINE (and any u32 count + strings list): the strings in turn. */
typedef struct tb_perf_str_iter {
	const tb_perf_feature *feat;
	int big_endian;
	uint32_t count, index;
	size_t pos;
} tb_perf_str_iter;

TB_API TB_MUST_CHECK tb_status tb_perf_strings_begin(tb_perf_str_iter *it,
						     const tb_perf *f,
						     const tb_perf_feature *feat,
						     tb_error *err);
/* The next string without its NUL padding: TB_OK, TB_END, or an error at
 * the string's offset. */
TB_API TB_MUST_CHECK tb_status tb_perf_strings_next(tb_perf_str_iter *it,
						    tb_perf_bytes *s,
						    tb_error *err);

/* EVENT_DESC: each event's name, attr and ids. */
typedef struct tb_perf_event_desc {
	tb_perf_attr attr;
	tb_perf_bytes name;
	tb_perf_u64s ids;
} tb_perf_event_desc;

/* (an EVENT_DESC walk is a list walk plus each entry's attr size) */
typedef struct tb_perf_desc_iter {
	tb_perf_str_iter list;
	uint32_t attr_size;
} tb_perf_desc_iter;

TB_API TB_MUST_CHECK tb_status tb_perf_event_desc_begin(tb_perf_desc_iter *it,
							const tb_perf *f,
							const tb_perf_feature *feat,
							tb_error *err);
TB_API TB_MUST_CHECK tb_status tb_perf_event_desc_next(tb_perf_desc_iter *it,
						       tb_perf_event_desc *out,
						       tb_error *err);

/* ---- COMPRESSED records ---- */

/*
 * The caller's streaming decompressor (zstd for perf).  The payloads of
 * all COMPRESSED / COMPRESSED2 records form one stream: ctx keeps its
 * state from call to call.  Consume up to src_len bytes of src, write up
 * to dst_cap bytes to dst, say how many in *consumed and *produced, and
 * return TB_OK (TB_ERR_VALUE for data that does not decompress).  It is
 * called with src_len 0 to flush what it holds; producing and consuming
 * nothing then means it has nothing more.
 */
typedef tb_status (*tb_perf_decompress_fn)(void *ctx, const uint8_t *src, size_t src_len,
					   size_t *consumed, uint8_t *dst, size_t dst_cap,
					   size_t *produced);

/* The smallest window: any record must fit whole (the records inside
 * straddle COMPRESSED records; the window holds the part not yet given). */
#define TB_PERF_WINDOW_MIN (TB_PERF_MAX_RECORD + 1u)

typedef struct tb_perf_decompressor {
	tb_perf_decompress_fn fn;
	void *ctx;
	uint8_t *window;         /* caller storage, at least TB_PERF_WINDOW_MIN */
	size_t window_cap;
} tb_perf_decompressor;

/* Draining COMPRESSED records (inside tb_perf_iter and tb_perf_stream). */
typedef struct tb_perf_inflate {
	tb_perf_decompressor dc;
	const uint8_t *src;      /* the payload not yet consumed */
	size_t src_left;
	uint64_t rec_off;        /* offset of the COMPRESSED record drained */
	size_t wpos, wend;       /* the window's bytes not yet given */
	uint64_t out_off;        /* decompressed-stream offset of window[0] */
	int active;              /* the decompressor may still give bytes */
	uint64_t records;        /* records given out of compressed data */
} tb_perf_inflate;

/* ---- records ---- */

/* The sample fields of a SAMPLE, or the sample_id_all trailer of another
 * record.  `present` holds the sample_type bits read; every other field
 * is 0 (spans empty). */
typedef struct tb_perf_sample {
	uint64_t present;
	uint64_t id;             /* IDENTIFIER or ID */
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time;
	uint64_t addr;
	uint64_t stream_id;
	uint32_t cpu;
	uint64_t period;
	tb_perf_u64s read;       /* READ: every u64 of the read_format */
	tb_perf_u64s callchain;  /* CALLCHAIN: the ips, context markers kept */
	tb_perf_bytes raw;       /* RAW: the tracepoint record, size as written */
	uint64_t branch_nr, branch_hw_idx;
	tb_perf_u64s branches;   /* BRANCH_STACK: 3 u64 per entry (from, to,
				    flags); then `branch_nr` counters with
				    TB_PERF_BRANCH_COUNTERS, in branch_counters */
	tb_perf_u64s branch_counters;
	uint64_t regs_user_abi;
	tb_perf_u64s regs_user;
	uint64_t stack_user_size, stack_user_dyn_size;
	tb_perf_bytes stack_user;
	uint64_t weight;         /* WEIGHT, or WEIGHT_STRUCT's whole u64 */
	uint64_t data_src;
	uint64_t transaction;
	uint64_t regs_intr_abi;
	tb_perf_u64s regs_intr;
	uint64_t phys_addr;
	uint64_t cgroup;
	uint64_t data_page_size, code_page_size;
	tb_perf_bytes aux;
} tb_perf_sample;

/*
 * One record.  Pointers point into the file (file mode) or into the
 * stream's bytes (pipe mode: valid until the next feed or next call).
 */
typedef struct tb_perf_record {
	uint32_t type;           /* enum tb_perf_record_type, or unknown */
	uint16_t misc;
	uint16_t size;           /* as written, header included */
	uint64_t offset;         /* file / stream offset of its first byte */
	tb_perf_bytes data;      /* the whole record (size bytes) */
	/* Bytes that follow the record and belong to it: AUXTRACE's trace
	 * data, HEADER_TRACING_DATA's tracing data (pipe mode: in the
	 * storage's tracing buffer; AUXTRACE data of a stream is skipped and
	 * only counted in extra_len). */
	tb_perf_bytes extra;
	uint64_t extra_len;
	/* Out of COMPRESSED records: offset is then the file / stream offset
	 * of the COMPRESSED record that completed it, and stream_offset its
	 * offset in the decompressed bytes; its pointers point into the
	 * decompressor's window (valid until the next call). */
	int decompressed;
	uint64_t stream_offset;
	const tb_perf_attr *attr; /* SAMPLE and records with a trailer: the
				     event's attr (NULL: not found) */
	int has_sample;          /* s holds a SAMPLE or a trailer */
	tb_perf_sample s;
	union {
		struct { uint32_t pid, tid; tb_perf_bytes comm; } comm;
		struct { uint32_t pid, ppid, tid, ptid; uint64_t time; } fork; /* FORK, EXIT */
		struct { uint64_t id, lost; } lost;
		struct { uint64_t lost; } lost_samples;
		struct { uint32_t pid, tid; uint64_t addr, len, pgoff;
			 uint32_t maj, min; uint64_t ino, ino_generation;
			 tb_perf_bytes build_id;   /* MMAP2 with MISC_MMAP_BUILD_ID */
			 uint32_t prot, flags;
			 tb_perf_bytes filename; } mmap; /* MMAP, MMAP2 */
		struct { uint64_t size, offset, reference;
			 uint32_t idx, tid, cpu; } auxtrace;
		tb_perf_attr attr;       /* HEADER_ATTR (its ids: tb_perf) */
		tb_perf_feature feature; /* HEADER_FEATURE */
	} u;
} tb_perf_record;

/* The data section, record by record. */
typedef struct tb_perf_iter {
	const tb_perf *f;
	uint64_t pos, end;
	uint64_t count;          /* records given */
	tb_status sticky;
	tb_error err;
	tb_perf_inflate z;
} tb_perf_iter;

TB_API TB_MUST_CHECK tb_status tb_perf_records_begin(tb_perf_iter *it,
						     const tb_perf *f,
						     tb_error *err);
/*
 * The next record: TB_OK, TB_END after the last, or an error.  A record
 * whose header is unsound (size below 8, or past the data section) ends
 * the walk: that error is sticky.  A record whose contents do not fit
 * its size (a SAMPLE's fields past its end...) is an error for that
 * record only: the walk goes on with the next record when called again.
 * A COMPRESSED or COMPRESSED2 record is, without a decompressor,
 * TB_ERR_UNSUPPORTED (for that record only: the walk goes on); with one
 * (tb_perf_records_decompress) it is not given: the records inside it
 * are, in order, before the record that follows it.  Decompressed data
 * ending inside a record at the end of the data section is
 * TB_ERR_TRUNCATED.  Inside compressed data, records with bytes after
 * them (AUXTRACE, HEADER_TRACING_DATA) and COMPRESSED records again are
 * refused (TB_ERR_UNSUPPORTED, the walk ends).
 */
TB_API TB_MUST_CHECK tb_status tb_perf_record_next(tb_perf_iter *it,
						   tb_perf_record *rec,
						   tb_error *err);

/* Decompress COMPRESSED records with dc from now on (after
 * tb_perf_records_begin / tb_perf_stream_init).  TB_ERR_ARG for a window
 * below TB_PERF_WINDOW_MIN or no function. */
TB_API tb_status tb_perf_records_decompress(tb_perf_iter *it,
					    const tb_perf_decompressor *dc);

/*
 * Parse a SAMPLE's fields by attr a (rec->data must hold the record).
 * What tb_perf_record_next does; exposed for records found elsewhere.
 */
TB_API TB_MUST_CHECK tb_status tb_perf_parse_sample(const tb_perf *f,
						    const tb_perf_attr *a,
						    const uint8_t *rec, size_t len,
						    uint64_t offset,
						    tb_perf_sample *s,
						    tb_error *err);

/* ---- pipe mode ---- */

typedef struct tb_perf_stream {
	tb_perf f;               /* attrs, ids and features as they come */
	const uint8_t *in;
	size_t in_len, in_pos;
	uint64_t offset;         /* stream offset of the next unread byte */
	uint64_t count;          /* records given */
	uint64_t extra_left;     /* bytes still to skip or collect after a record */
	size_t tracing_got;      /* HEADER_TRACING_DATA bytes collected */
	uint64_t extra_rec_off;  /* offset of the record they follow */
	uint8_t header_done;
	uint8_t closed;
	uint8_t done;
	uint8_t init_done;       /* FINISHED_INIT seen */
	uint8_t pending;         /* a record waits for its extra bytes */
	tb_status sticky;
	tb_error err;
	tb_perf_inflate z;
	size_t saved;            /* bytes of a straddling record in buf */
	uint8_t buf[TB_PERF_MAX_RECORD + 1];
} tb_perf_stream;

/* Start a stream decoder with storage for attrs, ids and tracing data. */
TB_API void tb_perf_stream_init(tb_perf_stream *p, const tb_perf_storage *st);
/* As tb_perf_records_decompress, for a stream. */
TB_API tb_status tb_perf_stream_decompress(tb_perf_stream *p,
					   const tb_perf_decompressor *dc);
/* The next bytes (no copy: valid until the next call says TB_NEED_MORE).
 * Only when the previous feed is used up; TB_ERR_ARG otherwise. */
TB_API tb_status tb_perf_stream_feed(tb_perf_stream *p, const void *data,
				     size_t len);
/* No more input: a partial record becomes TB_ERR_TRUNCATED. */
TB_API void tb_perf_stream_close(tb_perf_stream *p);
/* init, feed the whole buffer and close. */
TB_API tb_status tb_perf_stream_open_buffer(tb_perf_stream *p,
					    const tb_perf_storage *st,
					    const void *data, size_t len);
/*
 * The next record: TB_OK, TB_NEED_MORE (feed more or close), TB_END (closed
 * at a record boundary), or an error (sticky).  HEADER_ATTR records add
 * their attr and ids to p->f (TB_ERR_NO_SPACE with p->f.need when the
 * storage is too small: the stream must then be decoded again with more);
 * HEADER_FEATURE records set p->f's feature fields.  Its strings
 * (hostname, osrelease, version, arch, cpudesc, cpuid) point into the bytes
 * fed, valid while those are: set when the record lies whole in one feed
 * (always with tb_perf_stream_open_buffer), left as they were when the
 * stream had to copy it (split across feeds, or decompressed); the record's
 * own u.feature is there either way, until the next call.
 */
TB_API TB_MUST_CHECK tb_status tb_perf_stream_next(tb_perf_stream *p,
						   tb_perf_record *rec,
						   tb_error *err);

#ifdef __cplusplus
}
#endif

#endif /* TRACEBOUND_PERFDATA_H */
