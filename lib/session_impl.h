/*
 * The session's insides, shared by its four files: session.c (memory,
 * formats, tables, opening and closing), session_walk.c (the merged walk,
 * selection, fields), session_render.c (report lines and JSON) and
 * session_parts.c (parts of a capture for threads).  Not installed.
 */
#ifndef TB_SESSION_IMPL_H
#define TB_SESSION_IMPL_H

#include <string.h>

#include "tracebound/filter.h"
#include "tracebound/session.h"
#include "tracebound/text.h"
#include "tracebound/clock.h"

#include "internal.h"
#include "digits.h"
#include "merge.h"
#include "printfmt.h"
#include "session_perf.h"

#define TB_SESSION_MAX_DAMAGE 64u   /* damage entries kept (more are counted) */
#define TB_SESSION_DAT_ROUNDS 8u    /* tb_dat_open storage rounds */
#define TB_SESSION_MAX_BUFFERS 256u /* buffers (instances) merged */
#define NO_ENTRY UINT32_MAX
#define ALIGN_UP(n) (((n) + 15u) & ~(size_t)15u)
/* A walk may decompress at most this many bytes per byte of budget
 * (session.h: TB_SESSION_INFLATE_PER_BUDGET). */
#define INFLATE_PER_BUDGET TB_SESSION_INFLATE_PER_BUDGET

/* The parts of the memory budget (tb_session_need.refused names them). */
static const char part_session[] = "memory budget: the session itself";
static const char part_container[] = "memory budget: the trace.dat tables and decompressed sections";
static const char part_tables[] = "memory budget: the format index and symbol tables";
static const char part_streams[] = "memory budget: the per-CPU cursors and chunk buffers";
static const char part_format[] = "memory budget: an event format's fields";
static const char part_program[] = "memory budget: a print fmt program";
static const char part_render[] = "memory budget: the JSON text buffer";
static const char part_perf[] =
	"memory budget: the perf.data attrs, round queue and task names";
static const char part_inflate[] =
	"decompression budget: the bytes one walk decompresses (16 x the memory budget)";


/* ---- the session ---- */

/* One format text: its id and, once used, its format and programs. */
/* A slot of the format index: the id beside its entry, so a lookup reads
 * one line of the index and only then its entry. */
typedef struct id_slot {
	uint32_t id, entry;          /* entry + 1, 0 empty */
} id_slot;

typedef struct fmt_entry {
	uint32_t id;
	uint32_t text;           /* index of its text */
	uint32_t nfields;        /* from the open-time parse */
	uint8_t ok;              /* parsed at open */
	uint8_t tried;           /* fields allocated / parse attempted */
	uint8_t prog_tried[2];   /* print, fields listing */
	uint8_t used;            /* a record of it was described (the session's walk) */
	uint32_t pid_off, pid_size;  /* its common_pid (size 0: none) */
	tb_format *fmt;
	tb_render_prog *prog[2];
} fmt_entry;

/* One CPU of a raw dump. */
typedef struct raw_cursor {
	const tb_session_raw_cpu *src;
	tb_kbuf_stream ks;
	tb_kbuf kb;
	tb_kbuf_record recs[TB_DAT_BATCH];
	size_t nrecs, irec;
	int64_t missed;
	int page_open, done;
	uint64_t page_index;
	tb_session_cpu_stats st;
	tb_merge_slot merge;         /* in s->raw_merge */
} raw_cursor;

/* One trace.dat buffer's merged stream. */
typedef struct dat_src {
	const tb_dat_buffer *b;
	tb_dat_stream s;
	tb_dat_cursor *cur;
	uint8_t *chunks;
	size_t chunks_len;
	size_t *caps;                /* per CPU: its part of chunks (tb_dat_chunk_caps) */
	tb_kbuf_layout layout;
	tb_dat_event head;
	int has_head, done;
	tb_session_cpu_stats *cst;   /* per CPU of b */
	tb_merge_slot merge;         /* in s->buf_merge */
} dat_src;

struct tb_session {
	tb_mem mem;
	uint64_t budget;             /* tb_session_open_budget (0: none) */
	uint64_t held, peak;         /* bytes from mem now, and at most */
	tb_session_need nd;          /* parts, refused / asked */
	tb_session_options opt;
	tb_session_source src;
	tb_session_info info;

	/* trace.dat */
	tb_dat d;
	void *dat_store;
	size_t dat_store_len;
	tb_kbuf_layout layout;       /* from header_page (or the raw source) */

	/* formats */
	size_t ntexts;
	tb_session_format_text *texts_; /* trace.dat: built from d.events */
	fmt_entry *fe;
	id_slot *index;              /* id hash: entry + 1, 0 empty */
	size_t index_len;
	tb_field *scratch_fields;    /* TB_FORMAT_MAX_FIELDS, for parsing */
	uint32_t type_off, type_size;
	uint32_t pid_off, pid_size;
	int have_type;

	/* tables */
	tb_cmdlines cmd;
	tb_kallsyms ks;
	tb_printk_fmts pk;
	tb_render_env env;
	tb_render_env env_fields;    /* the -R listing's (payload) */

	/* events */
	dat_src *bufs;
	size_t nbufs;
	tb_session_buffer_info *binfo;
	size_t maxname;              /* longest instance name (report lines) */
	raw_cursor *raw;
	size_t nraw;
	tb_merge buf_merge, raw_merge; /* the buffers, the raw CPUs by time (start_merges) */
	uint64_t last_ts;
	fmt_entry *last_entry;       /* the entry of the last event (rendering looks it up) */
	fmt_entry *ecache[8];        /* by id % 8: the last entry found for such an id */
#define LAST_SLOTS 4
	/* Per CPU (cpu % LAST_SLOTS): the last comm lookup, and the last
	 * line's "comm-pid [cpu] " (fast_prefix).  The merge alternates
	 * between CPUs, each in a run of one task's events: on a 2-CPU
	 * capture the task was the last line's for 60% of the lines, its
	 * CPU's last line's for 96%. */
	struct last_task {
		int32_t pid;
		int have, known;
		const char *comm;
		size_t comm_len;
		char pfx[64];
		size_t pfx_len;      /* 0: none */
		const char *pfx_comm; /* for this comm (the session's own), pid and CPU */
		int32_t pfx_pid;
		uint32_t pfx_cpu;
	} task[LAST_SLOTS];
	uint64_t tm_w0;              /* the last line's "%5u.%06u" time (put_time, */
	uint32_t tm_w1;              /* tb_time12's words) */
	uint64_t tm_lo, tm_hi;       /* for the timestamps [lo, hi) (hi 0: none) */
	uint64_t tm_us;
	uint64_t prev_line_ts;       /* TB_TEXT_TSDIFF: the previous line's shown time */
	uint64_t pending_line_ts;
	int have_prev_line;
	tb_span json_file;           /* tb_session_set_json_file (len 0: none) */
	uint64_t win_from, win_to;   /* tb_session_set_window */
	int win_on;
	const uint64_t *keep;        /* tb_session_keep_ids (NULL: every id) */
	size_t keep_words;
	const uint64_t *keep_cpus;   /* tb_session_keep_cpus (NULL: every CPU) */
	size_t keep_cpu_words;
	int leave_out;               /* any of the three: left_out() is asked */
	char *rbuf;                  /* one rendering, for JSON's "text" */
	size_t rcap, rlen;

	/* damage and errors */
	tb_session_damage damage[TB_SESSION_MAX_DAMAGE];
	size_t ndamage, damage_dropped;
	tb_session_error_info last;

	/* regions to give back on close */
	struct region { void *p; size_t n; } regions[16];
	size_t nregions;

	/* parts (the section "parts of a capture" below) */
	int prepared;                /* tb_session_prepare ran: formats are read-only */
	const tb_session *parent;    /* a part: the session it reads */
	struct part_prog *pprog;     /* a part: its own programs, per format text */
	tb_session_mark *start_marks; /* a part: one per CPU of each buffer */
	size_t nmarks;
	int has_from, has_to;
	uint64_t from_raw, to_raw;   /* file clock, before the ts offset */

	/* perf.data (session_perf.c) */
	tb_sperf *perf;
	tb_sperf_item pitem;         /* the sample behind the last event */
	tb_sperf_head phead;         /* the line head's from the last lines */
};


/* A part's own programs, by entry (session_parts.c). */
typedef struct part_prog {
	tb_render_prog *p[2];
	uint8_t tried[2];
} part_prog;

/* ---- shared between the session's files ---- */

void *tb_ss_mem_get(tb_session *s, size_t n, const char *part);
void tb_ss_mem_put(tb_session *s, void *p, size_t n);
tb_status tb_ss_no_memory(const tb_session *s, tb_error *err, uint64_t off, const char *what);
tb_status tb_ss_mem_status(const tb_session *s);
void *tb_ss_take(tb_session *s, size_t n, const char *part);
void *tb_ss_take_small(tb_session *s, size_t n, const char *part);
fmt_entry *tb_ss_entry_of(const tb_session *s, uint32_t id);
const tb_format *tb_ss_entry_format(tb_session *s, fmt_entry *e);
tb_status tb_ss_stream_start(const tb_session *s, dat_src *ds, tb_error *err);
tb_status tb_ss_start_merges(tb_session *s, tb_error *err);
tb_status tb_ss_format_refused(tb_session *s, const tb_session_event *ev, tb_error *err);
tb_status tb_ss_next_dat(tb_session *s, tb_session_event *ev, tb_error *err);
tb_render_prog *tb_ss_program(tb_session *s, const tb_format *f, unsigned which);
tb_status tb_ss_part_position(tb_session *p, tb_error *err);
void tb_ss_part_close(tb_session *p);
void tb_ss_free_progs(tb_mem m, tb_render_prog *const p[2]);
void tb_ss_free_last(tb_session *s, tb_mem m);

#endif
