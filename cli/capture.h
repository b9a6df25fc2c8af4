/* A capture opened for a command: the file mapped, a library session over it. */
#ifndef TB_CLI_CAPTURE_H
#define TB_CLI_CAPTURE_H

#include "budget.h"
#include "cli.h"
#include "codec.h"
#include "parts.h"

typedef struct tb_cli_capture {
	const char *path;
	/* raw dumps: each CPU's file (raw[i].cpu is in raw_paths[i]), so
	 * that a message names the file of its CPU */
	const char *const *raw_paths;
	const tb_session_raw_cpu *raw;
	size_t nraw;
	tb_cli_file f;
	tb_host_capture *host;   /* opened through the library's source (host/) */
	tb_host_zstream zs;      /* a perf.data's COMPRESSED records (codec.h) */
	tb_session *s;
	tb_error err;            /* why opening failed */
} tb_cli_capture;

/*
 * Open path as a trace.dat session.  Returns TB_EXIT_OK, TB_EXIT_MALFORMED
 * (a file the library cannot accept: message printed) or TB_EXIT_USAGE
 * (I/O or memory).  Damage the session got past (tables, formats, buffers)
 * is listed on `warn` (may be NULL).
 */
int tb_cli_capture_open(tb_cli_capture *c, const char *path,
			const tb_session_options *opt, FILE *warn);
/* A capture the library's source rule finds (source.h): a raw-dump
 * folder, per-CPU dumps, or a file; the same results. */
int tb_cli_capture_open_source(tb_cli_capture *c, const tb_source_desc *d,
			       const tb_session_options *opt, FILE *warn);
/* The same over bytes in memory the caller keeps; the open error goes to errs. */
int tb_cli_capture_open_mem(tb_cli_capture *c, const char *path, const uint8_t *data,
			    size_t len, const tb_session_options *opt, FILE *warn, FILE *errs);
void tb_cli_capture_close(tb_cli_capture *c);

/* --kallsyms FILE's text (empty: none), handed to perf.data sessions. */
extern tb_span tb_cli_perf_kallsyms;

/* "tracebound: PATH: <where> ...: what at file offset N (status)" per damage entry. */
void tb_cli_print_damage(const tb_cli_capture *c, FILE *warn);
/* One entry of it (check prints them as its iterator meets them). */
void tb_cli_print_damage_one(const tb_cli_capture *c, const tb_session_damage *d, FILE *warn);

/* The file of a CPU's data: a raw dump's own, else the capture's. */
const char *tb_cli_capture_path(const tb_cli_capture *c, uint32_t cpu);

/* One line for a page error tb_session_next returned. */
void tb_cli_print_page_error(const tb_cli_capture *c, const tb_error *e);
/* The same line for a page the part cursor p could not read, in its place
 * among the part's output (host/parts.h); *bad raised to 1.  0 or -1. */
int tb_cli_parts_page_error(tb_parts_sink *k, const tb_cli_capture *c, const tb_session *p,
			    const tb_error *e, int *bad);

/* Render ev into *line (grown as needed, never cut).  0, or -1 when memory ran out. */
typedef struct tb_cli_line {
	char *p;
	size_t cap, len;
} tb_cli_line;
int tb_cli_render(tb_cli_capture *c, const tb_session_event *ev, unsigned how, tb_cli_line *line);
/* The same through any session (a part of the capture's, say). */
int tb_cli_render_in(tb_session *s, const tb_session_event *ev, unsigned how, tb_cli_line *line);
/* The line tb_cli_print_page_error prints for an error of s (c's session
 * or a part of it), into buf (snprintf's result). */
int tb_cli_format_page_error(char *buf, size_t cap, const tb_cli_capture *c, const tb_session *s,
			     const tb_error *e);

#endif
