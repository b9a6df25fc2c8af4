/*
 * tracebound: sources -- what a capture is made of, found by one rule.
 *
 * A capture is a trace.dat, a perf.data, or a folder of raw per-CPU
 * trace_pipe_raw dumps with the texts that describe them.  tb_source_open
 * is given a description (a path, or a list of dump files, and what the
 * user said) and reads every part through the caller's file access
 * (tb_source_io: the library does no I/O; host/ holds the POSIX side).
 * The result is a tb_session_source ready for tb_session_open_budget.
 *
 * The rule for raw dumps, the one every command and the Python module use:
 *
 *   dumps        the files given, else every `cpuN` or `cpuN.raw` entry of
 *                the folder that is not a directory (N: 1 to 5 digits,
 *                below TB_SOURCE_MAX_CPUS); a file given whose name does
 *                not say its CPU is CPU <its position>.  Two dumps of one
 *                CPU are an error.
 *   folder       the path given, else the directory of the first dump
 *                ("" for a dump named without one: its texts are then
 *                "header_page", "subbuf_kb"...)
 *   events       the directory given, else FOLDER/events (absent: no
 *                formats; tb_source.events_found says so)
 *   header_page  the file given, else FOLDER/header_page, else
 *                EVENTS/header_page
 *   sub-buffer   the header_page's (data offset + data size), else the
 *                size given, else FOLDER/subbuf_kb (1..1024 KiB; the size
 *                must be a power of two from 4 KiB), else 4096
 *   long size    the header_page's commit size, else the one given, else 8
 *   byte order   the one given, else from the dumps' first non-empty
 *                sub-buffer (the order in which its commit word is a
 *                length that fits the sub-buffer), else little-endian
 *   tables       FOLDER/saved_cmdlines, kallsyms, printk_formats,
 *                trace_clock (the clock text given comes first), optional
 *
 * Memory: the lists (dumps, their paths, the format texts' systems) come
 * from a tb_mem, asked for once with their exact size (the folder is
 * listed twice: once to count, once to fill).  The bytes the io callback
 * hands out are the caller's and must outlive the session.
 *
 * Errors are values: a tb_status, a tb_error (offset within the part) and
 * tb_source.part, the path of the part at fault.
 */
#ifndef TRACEBOUND_SOURCE_H
#define TRACEBOUND_SOURCE_H

#include "tracebound/status.h"
#include "tracebound/kbuf.h"
#include "tracebound/session.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TB_SOURCE_PATH_MAX 4096   /* longest path the library builds */
#define TB_SOURCE_MAX_CPUS 8192u  /* cpuN: N below this */
#define TB_SOURCE_MAX_FORMATS 65536u

/* The caller's file access.  Paths are as given, or joined by the library
 * as "DIR/NAME". */
typedef struct tb_source_io {
	/* The whole file at path: TB_OK with *data and *len (the caller keeps
	 * the bytes until its own close), TB_NOT_FOUND when there is no such
	 * file, an error status when it cannot be read (TB_ERR_ARG for a
	 * directory). */
	tb_status (*load)(void *ctx, const char *path, const void **data, size_t *len);
	/* Entry `index` of directory path in name order: TB_OK with its name
	 * (NUL-terminated, in name[0..cap)) and *is_dir, TB_END past the
	 * last, TB_NOT_FOUND when path is not a directory, an error else. */
	tb_status (*list)(void *ctx, const char *path, size_t index, char *name, size_t cap,
			  int *is_dir);
	void *ctx;
} tb_source_io;

/* tb_source_desc.byte_order */
#define TB_SOURCE_ORDER_DETECT 0
#define TB_SOURCE_ORDER_LITTLE 1
#define TB_SOURCE_ORDER_BIG    2

/* tb_source_desc.flags */
#define TB_SOURCE_NO_DUMPS 0x01u  /* resolve the layout, formats and tables
				     but load no dump (a caller that streams
				     them itself: tb_source_detect_order) */

/* What to open: path, or dumps (ndumps > 0).  Every field may be zero. */
typedef struct tb_source_desc {
	const char *path;          /* a trace.dat, a perf.data, or a dump folder */
	const char *const *dumps;  /* or these per-CPU dump files */
	size_t ndumps;
	const char *events;        /* the events directory (NULL: FOLDER/events) */
	const char *header_page;   /* NULL: FOLDER/header_page, EVENTS/header_page */
	uint32_t subbuf_size;      /* 0: see the rule */
	unsigned long_size;        /* 0: see the rule */
	int byte_order;            /* TB_SOURCE_ORDER_* */
	tb_span clock;             /* a trace_clock text given (empty: FOLDER's) */
	unsigned flags;            /* TB_SOURCE_* */
} tb_source_desc;

typedef enum tb_source_kind {
	TB_SOURCE_NONE = 0,
	TB_SOURCE_DAT,             /* src.dat */
	TB_SOURCE_PERF,            /* src.perf */
	TB_SOURCE_RAW              /* src.raw and the texts */
} tb_source_kind;

/* Where the sub-buffer size came from (tb_source.subbuf_from). */
#define TB_SOURCE_FROM_DEFAULT     0
#define TB_SOURCE_FROM_HEADER_PAGE 1
#define TB_SOURCE_FROM_GIVEN       2
#define TB_SOURCE_FROM_SUBBUF_KB   3

/* An open source, in caller memory (about 24 KiB: its path buffers; not
 * for a small stack). */
typedef struct tb_source {
	tb_session_source src;     /* for tb_session_open_budget; a trace.dat's
				      decompress / read are the caller's to set */
	tb_source_kind kind;
	/* raw dumps */
	tb_kbuf_layout layout;     /* what the rule chose */
	const char *const *dump_paths; /* the file of src.raw[i] */
	const char *header_page;   /* the header_page's path (NULL: none) */
	int subbuf_from;           /* TB_SOURCE_FROM_* */
	int order_detected;        /* 1: the byte order came from the dumps */
	uint32_t subbuf_kb;        /* FOLDER/subbuf_kb in bytes (0: none) */
	int subbuf_kb_bad;         /* 1: FOLDER/subbuf_kb is not a size */
	int events_found;          /* 1: the events directory exists */
	/* errors: the part at fault ("" when none) */
	char part[TB_SOURCE_PATH_MAX];
	/* private */
	tb_mem mem_;
	void *region_;
	size_t region_len_;
	char folder_[TB_SOURCE_PATH_MAX], events_[TB_SOURCE_PATH_MAX];
	char dir_[TB_SOURCE_PATH_MAX], scratch_[TB_SOURCE_PATH_MAX];
	char hp_path_[TB_SOURCE_PATH_MAX];
} tb_source;

/* 1 trace.dat, 2 perf.data (either byte order) from a file's first bytes,
 * else 0 (as tb_source_kind). */
TB_API tb_source_kind tb_source_probe(const void *head, size_t len);

/* The byte order a raw dump's first sub-buffer says (1 big, 0 little),
 * or -1 when it does not tell (empty, or both or neither fit). */
TB_API int tb_source_detect_order(const void *subbuf, size_t len, unsigned long_size);

/*
 * Open what d describes.  TB_ERR_ARG for a bad description; the io
 * callback's status for a part it could not read (TB_NOT_FOUND: a part
 * named in d that is not there); TB_ERR_MAGIC for a file that is not a
 * capture; TB_ERR_DUPLICATE for two dumps of a CPU; TB_NOT_FOUND for a
 * folder with no dumps; the layout's errors for a header_page or a size
 * that cannot be used; TB_ERR_NO_SPACE when mem ran out.  s->part names
 * the part on failure.  Close s either way.
 */
TB_API TB_MUST_CHECK tb_status tb_source_open(tb_source *s, const tb_source_desc *d,
					      const tb_source_io *io, const tb_mem *mem,
					      tb_error *err);

/* Give back the lists (not the bytes the io handed out). */
TB_API void tb_source_close(tb_source *s);

#ifdef __cplusplus
}
#endif

#endif
