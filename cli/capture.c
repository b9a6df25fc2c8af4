/* Opening captures for the commands (see capture.h). */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "capture.h"
#include "codec.h"
#include "files.h"

/* report --kallsyms FILE: names for a perf.data's kernel frames */
tb_span tb_cli_perf_kallsyms;

/* CPU data read through pread (src.read).  The library reads only within
 * the length the file had when it was mapped, so a read that fails with
 * the file now shorter than that is a file cut while we read it: stopped
 * as the mapping's SIGBUS stops it (util.c), not a damaged page said for
 * every sub-buffer left. */
static int cli_pread(void *ctx, uint64_t offset, void *buf, size_t len)
{
	struct stat sb;
	if (tb_file_pread(ctx, offset, buf, len) == 0)
		return 0;
	if (len <= UINT64_MAX - offset && fstat((int)(intptr_t)ctx, &sb) == 0 &&
	    (uint64_t)sb.st_size < offset + len)
		tb_cli_input_shrank();
	return -1;
}

int tb_cli_capture_open_mem(tb_cli_capture *c, const char *path, const uint8_t *data,
			    size_t len, const tb_session_options *opt, FILE *warn, FILE *errs)
{
	tb_session_source src;
	tb_status st;
	tb_cli_file keep = c->f;
	memset(c, 0, sizeof(*c));
	c->f = keep;
	c->path = path;
	if (len == 0) { /* every command says it so, not the library's "shorter than the magic" */
		fprintf(errs, "%s%s: empty input (no trace.dat header)\n",
			errs == stderr ? "tracebound: " : "", path);
		return TB_EXIT_MALFORMED;
	}
	tb_host_source_bytes(&src, data, len,
			     c->f.mapped && data == c->f.data && len == c->f.len ? tb_input_fd(&c->f)
										: -1);
	if (src.read)
		src.read = cli_pread; /* a file cut while read: said once */
	if (src.perf)
		src.kallsyms = tb_cli_perf_kallsyms;
	if (data == c->f.data)
		tb_cli_budget_add_input(len); /* a file of its own (not one of check's) */
	st = tb_cli_session_open(&c->s, &src, opt, path, NULL, &c->err);
	if (st == TB_ERR_BUDGET) {
		char msg[256];
		(void)tb_cli_budget_message(msg, sizeof(msg));
		fprintf(errs, "%s%s: %s\n", errs == stderr ? "tracebound: " : "", path, msg);
		return TB_EXIT_BUDGET;
	}
	if (st != TB_OK) {
		fprintf(errs, "%s%s: %s at offset %llu (%s)%s\n", errs == stderr ? "tracebound: " : "",
			path, c->err.what,
			(unsigned long long)c->err.offset, tb_strerror(st),
			st == TB_ERR_UNSUPPORTED ? ": this tracebound lacks what it needs "
						   "(a decompressor?)" : "");
		return st == TB_ERR_NO_SPACE || st == TB_ERR_ARG ? TB_EXIT_USAGE : TB_EXIT_MALFORMED;
	}
	if (warn)
		tb_cli_print_damage(c, warn);
	/* a perf.data's COMPRESSED records through zstd (without it, each
	 * is an anomaly in its place) */
	st = src.perf ? tb_host_perf_zstd(c->s, &c->zs, &c->err) : TB_OK;
	if (st != TB_OK && st != TB_ERR_UNSUPPORTED)
		fprintf(stderr, "tracebound: %s: %s: COMPRESSED records are not read\n", c->path,
			c->err.what);
	return TB_EXIT_OK;
}

int tb_cli_capture_open_source(tb_cli_capture *c, const tb_source_desc *d,
			       const tb_session_options *opt, FILE *warn)
{
	const char *path = d->ndumps ? d->dumps[0] : d->path;
	char msg[TB_SOURCE_PATH_MAX + 256];
	tb_session_source *src;
	tb_status st;
	size_t i;
	memset(c, 0, sizeof(*c));
	c->path = path;
	if (!(c->host = malloc(sizeof(*c->host)))) {
		fprintf(stderr, "tracebound: out of memory\n");
		return TB_EXIT_USAGE;
	}
	st = tb_host_capture_open(c->host, d, &tb_cli_heap, tb_cli_budget_read_limit(), &c->err);
	if (st != TB_OK) {
		tb_host_capture_message(c->host, &c->err, msg, sizeof(msg));
		fprintf(stderr, "tracebound: %s\n", msg);
		tb_cli_capture_close(c);
		return tb_is_malformed(st) || st == TB_ERR_UNSUPPORTED ? TB_EXIT_MALFORMED
								       : TB_EXIT_USAGE;
	}
	src = &c->host->source.src;
	if (c->host->source.kind != TB_SOURCE_RAW) {
		/* a file: as tb_cli_capture_open has it */
		tb_host_capture_close(c->host);
		free(c->host);
		c->host = NULL;
		return tb_cli_capture_open(c, path, opt, warn);
	}
	c->raw_paths = c->host->source.dump_paths;
	c->raw = src->raw;
	c->nraw = src->nraw;
	for (i = 0; i < src->nraw; i++)
		tb_cli_budget_add_input(src->raw[i].len);
	st = tb_cli_session_open(&c->s, src, opt, path, NULL, &c->err);
	if (st == TB_ERR_BUDGET)
		return tb_cli_budget_fail();
	if (st != TB_OK) {
		fprintf(stderr, "tracebound: %s: %s at offset %llu (%s)\n", path, c->err.what,
			(unsigned long long)c->err.offset, tb_strerror(st));
		return st == TB_ERR_NO_SPACE || st == TB_ERR_ARG ? TB_EXIT_USAGE : TB_EXIT_MALFORMED;
	}
	if (warn)
		tb_cli_print_damage(c, warn);
	return TB_EXIT_OK;
}

/* What tells a trace.dat from anything else: its 10-byte magic (tracedat.h). */
#define DAT_HEAD 10

int tb_cli_capture_open(tb_cli_capture *c, const char *path, const tb_session_options *opt,
			FILE *warn)
{
	tb_cli_input in;
	const uint8_t *head;
	size_t n;
	int rc;
	memset(c, 0, sizeof(*c));
	if (strcmp(path, "-") && tb_path_is_dir(path)) { /* a raw-dump folder */
		tb_source_desc d;
		memset(&d, 0, sizeof(d));
		d.path = path;
		return tb_cli_capture_open_source(c, &d, opt, warn);
	}
	if (tb_cli_input_open(&in, path) != 0 || tb_cli_input_head(&in, DAT_HEAD, &head, &n) != 0) {
		tb_cli_input_close(&in);
		return TB_EXIT_USAGE;
	}
	if (n > 0 && !tb_dat_probe(head, n) && !tb_perf_probe(head, n)) {
		/* not a trace.dat: refused from its first bytes, as the
		 * library refuses the whole file, before a pipe is read on */
		rc = tb_cli_capture_open_mem(c, path, head, n, opt, warn, stderr);
		tb_cli_input_close(&in);
		if (rc == TB_EXIT_OK) {
			tb_cli_capture_close(c);
			rc = TB_EXIT_MALFORMED;
		}
		return rc;
	}
	rc = tb_cli_input_take(&in, tb_cli_budget_read_limit(), &c->f);
	if (rc != 0)
		return rc == -2 ? TB_EXIT_BUDGET : TB_EXIT_USAGE;
	rc = tb_cli_capture_open_mem(c, path, c->f.data, c->f.len, opt, warn, stderr);
	if (rc)
		tb_cli_unload(&c->f);
	return rc;
}

void tb_cli_capture_close(tb_cli_capture *c)
{
	tb_cli_budget_note_session(c->s, c->path);
	tb_session_close(c->s);
	tb_host_zstream_free(&c->zs);
	if (c->f.data)
		tb_cli_unload(&c->f);
	if (c->host)
		tb_host_capture_close(c->host);
	free(c->host);
	memset(c, 0, sizeof(*c));
}

void tb_cli_print_damage(const tb_cli_capture *c, FILE *warn)
{
	size_t i, n = tb_session_ndamage(c->s);
	for (i = 0; i < n; i++)
		tb_cli_print_damage_one(c, tb_session_damage_at(c->s, i), warn);
}

void tb_cli_print_damage_one(const tb_cli_capture *c, const tb_session_damage *d, FILE *warn)
{
	tb_cli_text o = { { NULL, 0, 0, 0, -1 }, NULL, 0 };
	fprintf(warn, "tracebound: %s: ", c->path);
	TB_CLI_PRINT(&o, warn, tb_check_damage_text(&o.t, d, c->s));
	putc('\n', warn);
	tb_cli_text_free(&o);
}

const char *tb_cli_capture_path(const tb_cli_capture *c, uint32_t cpu)
{
	size_t i;
	for (i = 0; c->raw_paths && i < c->nraw; i++)
		if (c->raw[i].cpu == cpu)
			return c->raw_paths[i];
	return c->path;
}

int tb_cli_format_page_error(char *buf, size_t cap, const tb_cli_capture *c, const tb_session *s,
			     const tb_error *e)
{
	const tb_session_error_info *ei = tb_session_error(s);
	const tb_session_buffer_info *b = tb_session_buffer(s, ei->buffer);
	return snprintf(buf, cap, "tracebound: %s: buffer \"%.*s\" CPU %u, sub-buffer %llu, file "
				  "offset %llu: %s (%s)\n",
			tb_cli_capture_path(c, ei->cpu), b ? (int)b->name.len : 0,
			b ? b->name.ptr : "", ei->cpu,
			(unsigned long long)ei->page, (unsigned long long)e->offset, e->what,
			tb_strerror(e->status));
}

void tb_cli_print_page_error(const tb_cli_capture *c, const tb_error *e)
{
	char msg[1024];
	(void)tb_cli_format_page_error(msg, sizeof(msg), c, c->s, e);
	fputs(msg, stderr);
}

int tb_cli_parts_page_error(tb_parts_sink *k, const tb_cli_capture *c, const tb_session *p,
			    const tb_error *e, int *bad)
{
	char msg[1024];
	(void)tb_cli_format_page_error(msg, sizeof(msg), c, p, e);
	if (*bad < 1)
		*bad = 1;
	return tb_parts_msg(k, msg);
}

int tb_cli_render(tb_cli_capture *c, const tb_session_event *ev, unsigned how, tb_cli_line *line)
{
	return tb_cli_render_in(c->s, ev, how, line);
}

int tb_cli_render_in(tb_session *s, const tb_session_event *ev, unsigned how, tb_cli_line *line)
{
	for (;;) {
		tb_render_result r;
		tb_status st = tb_session_text(s, ev, how, line->p, line->cap, &r);
		if (st == TB_ERR_BUDGET) {
			tb_cli_budget_note_session(s, NULL);
			return -1;
		}
		if (st == TB_OK || (st == TB_ERR_NO_SPACE && r.needed == 0)) {
			line->len = r.len;
			return 0;
		}
		if (st != TB_ERR_NO_SPACE || r.needed + 2 <= line->cap) {
			line->len = r.len;
			return 0;
		}
		free(line->p);
		line->cap = r.needed + 2;
		line->p = malloc(line->cap);
		if (!line->p) {
			line->cap = 0;
			return -1;
		}
	}
}
