/* The tracebound command-line tool: shared helpers and the commands. */
#ifndef TB_CLI_H
#define TB_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tracebound/tracebound.h"
#include "files.h"

/* Exit statuses every command uses. */
enum { TB_EXIT_OK = 0, TB_EXIT_MALFORMED = 1, TB_EXIT_USAGE = 2, TB_EXIT_BUDGET = 3 };

/* A whole input file in memory (host/files.h's tb_input): mapped when it is a
 * regular file (its descriptor kept for tb_file_pread), read into the heap
 * when it is a pipe or "-" (standard input). */
typedef tb_input tb_cli_file;

/* 0 on success; on failure prints "tracebound: PATH: reason" and returns -1. */
int tb_cli_load(const char *path, tb_cli_file *f);
void tb_cli_unload(tb_cli_file *f);
/*
 * An input read as far as its format needs: a regular file is mapped
 * whole; anything else (a pipe, "-") is read on demand, its first bytes to
 * tell what it is, then pieces of it for the formats that stream (raw
 * sub-buffers, pmclog), or the rest into memory, up to a byte limit, for
 * those that cannot (trace.dat).  Every call says its failure on stderr
 * ("tracebound: NAME: reason") and returns -1.
 */
typedef struct tb_cli_input {
	const char *name;   /* the path; "(stdin)" for "-" */
	tb_cli_file f;      /* the mapping (fd < 0) */
	size_t f_pos;       /* the mapping's bytes handed out as pieces */
	int fd;             /* not mapped: read from (a copy of stdin's), else -1 */
	uint8_t *buf;       /* not mapped: bytes read, [pos, have) not handed out */
	size_t cap, have, pos;
	int eof;
} tb_cli_input;

int tb_cli_input_open(tb_cli_input *in, const char *path);
/* The first bytes, not handed out: at least n of them unless the input is
 * shorter (a mapping: all of it). */
int tb_cli_input_head(tb_cli_input *in, size_t n, const uint8_t **p, size_t *len);
/* The next piece: n bytes (fewer only at the end; *len 0 there), or all
 * that is left of a mapping.  Valid until the next call. */
int tb_cli_input_piece(tb_cli_input *in, size_t n, const uint8_t **p, size_t *len);
/* All of the input into *f (free with tb_cli_unload), at most max bytes
 * read (a mapping is not read): the one way in for what cannot stream.
 * Before any piece; closes in, whatever the result.  -2 (said on stderr as
 * over the budget) when there were more than max bytes, -1 on a failed read. */
int tb_cli_input_take(tb_cli_input *in, size_t max, tb_cli_file *f);
/* tb_kbuf_stream_next over a raw dump read from in (s initialised with no
 * data), fed a sub-buffer at a time: its result in *st (TB_END at the
 * input's end); -1 when a read failed. */
int tb_cli_input_subbuf(tb_cli_input *in, tb_kbuf_stream *s, tb_kbuf *kb, tb_error *e,
			tb_status *st);
void tb_cli_input_close(tb_cli_input *in);
/* No limit on what tb_cli_input_take reads (tb_cli_budget_read_limit). */
#define TB_CLI_NO_LIMIT SIZE_MAX

/* SIGBUS from a mapped input cut short: a message and exit 1. */
void tb_cli_catch_shrinking_inputs(void);
/* An input file shrank while it was read: said on stderr, exit 1. */
_Noreturn void tb_cli_input_shrank(void);


/* Write s[0..n) as a JSON string literal (quotes included). */
void tb_cli_json_str(FILE *out, const char *s, size_t n);
/*
 * The library's listings and renderings (tracebound/listing.h, text.h)
 * to a FILE: TB_CLI_PRINT(o, out, call) makes `call` write into o->t,
 * again into room enough when it did not fit, then writes the text to
 * out (what fits when memory ran out).  o starts zeroed; the room is kept
 * for the next text until tb_cli_text_free.
 */
typedef struct tb_cli_text {
	tb_text t;
	char *buf;
	size_t cap;
} tb_cli_text;
void tb_cli_text_begin(tb_cli_text *o);
int tb_cli_text_again(tb_cli_text *o, FILE *out);
void tb_cli_text_free(tb_cli_text *o);
#define TB_CLI_PRINT(o, out, call) \
	do { \
		tb_cli_text_begin(o); \
		call; \
	} while (tb_cli_text_again(o, out))

/* tb_grow_fn over realloc (ctx unused): *buf grown to want bytes. */
int tb_cli_grow(void *ctx, char **buf, size_t *cap, size_t want);

/* All of p[0..n) to the file descriptor fd with write(2), through EINTR
 * and short writes: 0, or -1 with errno set (EIO when write said 0). */
int tb_cli_write_all(int fd, const void *p, size_t n);

/* Large blocks to stdout without stdio's copy into its buffer: what
 * stdio holds goes first (fflush), then p[0..n) with write(2); a block
 * under a few KiB goes through stdio, to be gathered.  0, or -1 with
 * errno set. */
int tb_cli_stdout_block(const void *p, size_t n);

/* The commands: argv[0] is the command name. */
int tb_cmd_raw(int argc, char **argv);
int tb_cmd_formats(int argc, char **argv);
int tb_cmd_pmclog(int argc, char **argv);
int tb_cmd_report(int argc, char **argv);
int tb_cmd_check(int argc, char **argv);
int tb_cmd_stats(int argc, char **argv);
int tb_cmd_convert(int argc, char **argv);

/* The converters of `convert --to FORMAT` (argv[0]: the first argument
 * after the format's name is argv[1]). */
int tb_convert_parquet(int argc, char **argv);
int tb_convert_perfetto(int argc, char **argv);

#endif
