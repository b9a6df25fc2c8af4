/* Opening captures for the commands (see capture.h). */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#ifdef TB_HAVE_ZSTD
#include <zstd.h>
#endif
#ifdef TB_HAVE_ZLIB
#include <zlib.h>
#endif

#include "capture.h"
#include "fmtdir.h"

tb_status tb_cli_decompress(void *ctx, const char *algo, const void *src, size_t src_len,
			    void *dst, size_t dst_cap, size_t *produced)
{
	(void)ctx;
	(void)src;
	(void)src_len;
	(void)dst;
	(void)dst_cap;
	(void)produced;
#ifdef TB_HAVE_ZSTD
	if (!strcmp(algo, "zstd")) {
		size_t r = ZSTD_decompress(dst, dst_cap, src, src_len);
		if (ZSTD_isError(r))
			return TB_ERR_VALUE;
		*produced = r;
		return TB_OK;
	}
#endif
#ifdef TB_HAVE_ZLIB
	if (!strcmp(algo, "zlib")) {
		uLongf out = (uLongf)dst_cap;
		if (src_len > (uLong)-1 || uncompress(dst, &out, src, (uLong)src_len) != Z_OK)
			return TB_ERR_VALUE;
		*produced = out;
		return TB_OK;
	}
#endif
	(void)algo;
	return TB_ERR_UNSUPPORTED;
}


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
	memset(&src, 0, sizeof(src));
	src.dat = data;
	src.dat_len = len;
	src.decompress.fn = tb_cli_decompress;
	if (c->f.mapped && tb_input_fd(&c->f) >= 0 && data == c->f.data && len == c->f.len) {
		/* CPU data through reused buffers, not the mapping (tracedat.h) */
		src.read = cli_pread;
		src.read_ctx = (void *)(intptr_t)tb_input_fd(&c->f);
	}
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
	if (tb_cli_input_open(&in, path) != 0 || tb_cli_input_head(&in, DAT_HEAD, &head, &n) != 0) {
		tb_cli_input_close(&in);
		return TB_EXIT_USAGE;
	}
	if (n > 0 && !tb_dat_probe(head, n)) {
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
	if (c->f.len == 0) {
		fprintf(stderr, "tracebound: %s: empty input (no trace.dat header)\n", path);
		tb_cli_unload(&c->f);
		return TB_EXIT_MALFORMED;
	}
	rc = tb_cli_capture_open_mem(c, path, c->f.data, c->f.len, opt, warn, stderr);
	if (rc)
		tb_cli_unload(&c->f);
	return rc;
}

void tb_cli_capture_close(tb_cli_capture *c)
{
	tb_cli_budget_note_session(c->s, c->path);
	tb_session_close(c->s);
	if (c->f.data)
		tb_cli_unload(&c->f);
	memset(c, 0, sizeof(*c));
}

void tb_cli_print_damage(const tb_cli_capture *c, FILE *warn)
{
	size_t i, n = tb_session_ndamage(c->s);
	for (i = 0; i < n; i++) {
		const tb_session_damage *d = tb_session_damage_at(c->s, i);
		if (!strcmp(d->where, "event format")) {
			tb_span sys, text;
			(void)tb_session_format_at(c->s, d->index, &sys, &text, NULL);
			fprintf(warn, "tracebound: %s: event format %zu (%.*s) at file offset %llu: "
				      "%s (%s); its events are not decoded\n",
				c->path, d->index, (int)(sys.len < 64 ? sys.len : 64), sys.ptr,
				(unsigned long long)d->error.offset, d->error.what,
				tb_strerror(d->error.status));
		} else if (d->cut) {
			fprintf(warn, "tracebound: %s: CPU %u: data cut short at file offset %llu: "
				      "%llu %s lost (%llu bytes past the end of the file); the pages "
				      "before it are read\n",
				c->path, d->cpu, (unsigned long long)d->error.offset,
				(unsigned long long)d->units, d->units == 1 ? "page" : "pages",
				(unsigned long long)d->missing);
		} else {
			fprintf(warn, "tracebound: %s: %s: %s at file offset %llu (%s)\n", c->path,
				d->where, d->error.what, (unsigned long long)d->error.offset,
				tb_strerror(d->error.status));
		}
	}
}

int tb_cli_format_page_error(char *buf, size_t cap, const char *path, const tb_session *s,
			     const tb_error *e)
{
	const tb_session_error_info *ei = tb_session_error(s);
	const tb_session_buffer_info *b = tb_session_buffer(s, ei->buffer);
	return snprintf(buf, cap, "tracebound: %s: buffer \"%.*s\" CPU %u, sub-buffer %llu, file "
				  "offset %llu: %s (%s)\n",
			path, b ? (int)b->name.len : 0, b ? b->name.ptr : "", ei->cpu,
			(unsigned long long)ei->page, (unsigned long long)e->offset, e->what,
			tb_strerror(e->status));
}

void tb_cli_print_page_error(const tb_cli_capture *c, const tb_error *e)
{
	char msg[1024];
	(void)tb_cli_format_page_error(msg, sizeof(msg), c->path, c->s, e);
	fputs(msg, stderr);
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
