/* A trace.dat opened for the CLI: container, formats, tables, layout. */
#ifndef TB_CLI_DATFILE_H
#define TB_CLI_DATFILE_H

#include <stdio.h>

#include "cli.h"

typedef struct tb_datfile {
	const char *path;
	tb_cli_file f;
	tb_dat d;
	tb_dat_storage st;
	tb_error err;            /* why opening failed */
	const char *stage;       /* where it failed ("container", "header_page"...) */
	tb_format_set set;
	tb_format *fmt_store;
	tb_field *field_store;
	uint32_t *index_store;
	size_t format_errors;    /* formats that did not parse (skipped) */
	int lazy;                /* formats parsed on first use */
	FILE *warn;
	struct tb_datfile_id { uint32_t id, event; } *ids; /* sorted by id */
	size_t nids;
	uint8_t *tried;          /* per event text: added (or failed) already */
	tb_kbuf_layout layout;
	int have_layout;
	tb_cmdlines cmd;
	tb_kallsyms ks;
	tb_printk_fmts pk;
	size_t table_errors;
} tb_datfile;

/* The decompressor the CLI hands the library (zstd and zlib when built
 * with them). */
tb_status tb_cli_decompress(void *ctx, const char *algo, const void *src,
			    size_t src_len, void *dst, size_t dst_cap,
			    size_t *produced);

/*
 * Open path as a trace.dat.  `lazy`: parse each event format when its
 * first record is met (report, stats) instead of all at open (check).  Returns 0 when usable, 1 when it cannot be
 * accepted (malformed, over a limit, or compressed with an algorithm this
 * build lacks; df->err, df->stage say why), 2 on I/O or memory errors.  `warn` (may be NULL)
 * receives one line per skipped format or table problem.
 */
int tb_datfile_open(tb_datfile *df, const char *path, FILE *warn, int lazy);
/* Same over bytes already in memory (not owned); *df must be zeroed. */
int tb_datfile_open_mem(tb_datfile *df, const char *name, const uint8_t *p,
			size_t n, FILE *warn, int lazy);

/* The format of a record (parsing it on first use when lazy), or NULL. */
const tb_format *tb_datfile_lookup(tb_datfile *df, const uint8_t *rec, size_t len);
void tb_datfile_close(tb_datfile *df);

/* The comm of pid as trace-cmd prints it: "<idle>" for 0, "<...>" unknown. */
const char *tb_datfile_comm(const tb_datfile *df, int32_t pid, size_t *len);

/* Print why df could not be opened: "tracebound: PATH: stage: what at offset N". */
void tb_datfile_perror(const tb_datfile *df);

/* One buffer's merged stream with the memory it needs. */
typedef struct tb_datbuf {
	const tb_dat_buffer *b;
	tb_dat_stream s;
	tb_dat_cursor *cur;
	uint8_t *chunks;
	tb_kbuf_layout layout;
} tb_datbuf;

/* Start buffer b's stream: 0, 1 when it cannot start (*st, *e say why),
 * 2 when memory ran out. */
int tb_datbuf_open(tb_datfile *df, const tb_dat_buffer *b, unsigned flags,
		   tb_datbuf *db, tb_status *st, tb_error *e);
void tb_datbuf_close(tb_datbuf *db);

/* Walk every event of buffer b, merged by time.  on_event gets the
 * event and its format (NULL when the id has none); on_error one line's
 * worth per bad page (the walk goes on).  Returns 0, or 2 when memory
 * ran out / the stream could not start (message printed). */
typedef struct tb_datwalk_ops {
	void (*on_event)(void *ctx, const tb_dat_event *ev, const tb_format *f);
	void (*on_error)(void *ctx, uint32_t cpu, uint64_t page, tb_status st,
			 const tb_error *e);
	void *ctx;
} tb_datwalk_ops;

int tb_datfile_walk(tb_datfile *df, const tb_dat_buffer *b, unsigned flags,
		    const tb_datwalk_ops *ops, tb_dat_stream *out_stats);

#endif
