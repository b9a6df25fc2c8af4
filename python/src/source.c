/*
 * The input of a session: a trace.dat mapped read-only, or a raw dump
 * directory (cpuN.raw files mapped, header_page, subbuf_kb and the event
 * format texts read).  Runs without the GIL: plain C, no Python calls.
 */
#define _DEFAULT_SOURCE
#include "tbpy.h"
#include "dlcodec.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define TBPY_MAX_TEXT (64u << 20)   /* a format, table or header text */
#define TBPY_MAX_CPUS 8192u

int tbpy_map_file(const char *path, tbpy_map *m)
{
	return tb_input_load(path, m, 0, TBPY_MAX_TEXT);
}

int tbpy_map_capture(const char *path, tbpy_map *m)
{
	return tb_input_load(path, m, 1, TBPY_MAX_TEXT);
}

void tbpy_unmap(tbpy_map *m)
{
	tb_input_free(m);
}

/* ---- decompressors, loaded when present ---- */

static tb_dlcodec dl;

static void load_decompressors(void)
{
	/* Python's import lock serialises the first Trace of the module:
	 * this runs once before any thread decodes (see tbpy_input_open). */
	tb_dlcodec_load(&dl);
}

tb_status tbpy_decompress(void *ctx, const char *algo, const void *src,
			  size_t src_len, void *dst, size_t dst_cap,
			  size_t *produced)
{
	(void)ctx;
	return tb_dlcodec_decompress(&dl, algo, src, src_len, dst, dst_cap, produced);
}

/* ---- raw dump directories ---- */

/* Read dir/name when it exists: 0 (m empty when absent), -1 on an error. */
static int optional_text(const char *dir, const char *name, tbpy_map *m)
{
	char *p = tb_path_join(dir, name);
	struct stat st;
	int rc = 0;
	memset(m, 0, sizeof(*m));
	if (!p)
		return -1;
	if (stat(p, &st) == 0 && S_ISREG(st.st_mode))
		rc = tbpy_map_file(p, m);
	free(p);
	return rc;
}

/* The N of "cpuN" or "cpuN.raw", else -1. */
static long cpu_of(const char *name)
{
	long v = 0;
	int digits = 0;
	if (strncmp(name, "cpu", 3) != 0)
		return -1;
	for (name += 3; *name >= '0' && *name <= '9'; name++) {
		if (++digits > 5)
			return -1;
		v = v * 10 + (*name - '0');
	}
	if (!digits || (*name && strcmp(name, ".raw") != 0))
		return -1;
	return v;
}

static int fail(tbpy_input *in, const char *fmt, const char *a)
{
	int e = errno;
	snprintf(in->errmsg, sizeof(in->errmsg), fmt, a);
	errno = e;
	return -1;
}

/* Every events/<system>/<event>/format under dir. */
static int load_formats(tbpy_input *in, const char *dir)
{
	if (tb_fmt_dir_read(&in->fmts, dir) != 0) {
		if (errno == ENOMEM)
			return fail(in, "%s: out of memory", dir);
		return fail(in, "%s: cannot read the events directory", dir);
	}
	if (!in->fmts.n) {
		errno = ENOENT;
		return fail(in, "%s: no <system>/<event>/format files", dir);
	}
	return 0;
}

static int span_of(const tbpy_map *m, tb_span *s)
{
	s->ptr = (const char *)m->data;
	s->len = m->len;
	return 0;
}

static int host_big_endian(void)
{
	const uint16_t probe = 1;
	uint8_t first;
	memcpy(&first, &probe, 1);
	return first == 0;
}

static int open_raw_dir(tbpy_input *in, const char *path, const char *events_dir)
{
	size_t n, i;
	char **names = tb_dir_names(path, 0, &n);
	char *evdir = NULL;
	tbpy_map kb;
	if (!names)
		return fail(in, "%s: cannot read the directory", path);
	in->cpus = calloc(n ? n : 1, sizeof(*in->cpus));
	in->raw = calloc(n ? n : 1, sizeof(*in->raw));
	if (!in->cpus || !in->raw) {
		tb_names_free(names, n);
		errno = ENOMEM;
		return fail(in, "%s: out of memory", path);
	}
	for (i = 0; i < n; i++) {
		long cpu = cpu_of(names[i]);
		char *p;
		if (cpu < 0 || cpu >= (long)TBPY_MAX_CPUS)
			continue;
		p = tb_path_join(path, names[i]);
		if (p && tb_path_is_dir(p)) { /* tracefs' per_cpu/cpuN directories */
			free(p);
			continue;
		}
		if (!p || tbpy_map_file(p, &in->cpus[in->nraw]) != 0) {
			int e = errno;
			free(p);
			tb_names_free(names, n);
			errno = e;
			return fail(in, "%s: cannot map a per-CPU dump", path);
		}
		free(p);
		in->raw[in->nraw].cpu = (uint32_t)cpu;
		in->raw[in->nraw].data = in->cpus[in->nraw].data;
		in->raw[in->nraw].len = in->cpus[in->nraw].len;
		in->nraw++;
	}
	tb_names_free(names, n);
	if (!in->nraw) {
		errno = ENOENT;
		return fail(in, "%s: no trace.dat and no cpuN.raw dumps", path);
	}
	if (events_dir) {
		evdir = strdup(events_dir);
	} else {
		evdir = tb_path_join(path, "events");
		if (evdir && !tb_path_is_dir(evdir)) {
			free(evdir);
			errno = ENOENT;
			return fail(in, "%s: raw dumps need their event formats: pass events=DIR "
					"(laid out like /sys/kernel/tracing/events)", path);
		}
	}
	if (!evdir) {
		errno = ENOMEM;
		return fail(in, "%s: out of memory", path);
	}
	if (load_formats(in, evdir) != 0) {
		free(evdir);
		return -1;
	}
	/* header_page beside the dumps, else in the events directory */
	if (optional_text(path, "header_page", &in->header_page) != 0 ||
	    (!in->header_page.data && optional_text(evdir, "header_page", &in->header_page) != 0)) {
		free(evdir);
		return fail(in, "%s: cannot read header_page", path);
	}
	free(evdir);
	if (optional_text(path, "subbuf_kb", &kb) != 0)
		return fail(in, "%s: cannot read subbuf_kb", path);
	if (kb.data) {
		char num[16];
		size_t k = kb.len < 15 ? kb.len : 15;
		char *end;
		unsigned long v;
		memcpy(num, kb.data, k);
		num[k] = 0;
		v = strtoul(num, &end, 10);
		while (*end == '\n' || *end == ' ' || *end == '\t' || *end == '\r')
			end++;
		tbpy_unmap(&kb);
		if (end == num || *end || v == 0 || v > 1024) {
			errno = EINVAL;
			return fail(in, "%s/subbuf_kb: not a sub-buffer size in KiB", path);
		}
		in->src.subbuf_size = (uint32_t)v * 1024u;
	}
	if (optional_text(path, "saved_cmdlines", &in->cmdlines) != 0 ||
	    optional_text(path, "kallsyms", &in->kallsyms) != 0 ||
	    optional_text(path, "printk_formats", &in->printk) != 0 ||
	    optional_text(path, "trace_clock", &in->clock) != 0)
		return fail(in, "%s: cannot read a table beside the dumps", path);
	in->src.raw = in->raw;
	in->src.nraw = in->nraw;
	span_of(&in->header_page, &in->src.header_page);
	in->src.big_endian = host_big_endian();
	in->src.long_size = 0;
	if (in->header_page.data) {
		tb_kbuf_layout l;
		tb_error e;
		if (tb_kbuf_layout_from_header_page((const char *)in->header_page.data,
						    in->header_page.len, in->src.big_endian, &l,
						    &e) == TB_OK)
			in->src.long_size = l.long_size;
	}
	if (!in->src.long_size)
		in->src.long_size = (unsigned)sizeof(long);
	in->src.formats = in->fmts.texts;
	in->src.nformats = in->fmts.n;
	span_of(&in->cmdlines, &in->src.cmdlines);
	span_of(&in->kallsyms, &in->src.kallsyms);
	span_of(&in->printk, &in->src.printk);
	span_of(&in->clock, &in->src.clock);
	return 0;
}

int tbpy_input_open(tbpy_input *in, const char *path, const char *events_dir)
{
	memset(in, 0, sizeof(*in));
	load_decompressors();
	if (tb_path_is_dir(path)) {
		int rc = open_raw_dir(in, path, events_dir);
		if (rc) {
			char msg[sizeof(in->errmsg)];
			int e = errno;
			memcpy(msg, in->errmsg, sizeof(msg));
			tbpy_input_close(in);
			memcpy(in->errmsg, msg, sizeof(msg));
			errno = e;
		}
		return rc;
	}
	if (tbpy_map_capture(path, &in->dat) != 0)
		return fail(in, "%s: cannot open", path);
	in->is_dat = 1;
	in->src.dat = in->dat.data;
	in->src.dat_len = in->dat.len;
	if (tb_perf_probe(in->dat.data, in->dat.len)) { /* a perf.data: the session reads it */
		in->src.dat = NULL;
		in->src.dat_len = 0;
		in->src.perf = in->dat.data;
		in->src.perf_len = in->dat.len;
	} else if (tb_input_fd(&in->dat) >= 0) {
		/* CPU data through reused buffers, not the mapping (tracedat.h) */
		in->src.read = tb_file_pread;
		in->src.read_ctx = (void *)(intptr_t)tb_input_fd(&in->dat);
	}
	in->src.decompress.fn = tbpy_decompress;
	in->src.decompress.ctx = NULL;
	return 0;
}

void tbpy_input_close(tbpy_input *in)
{
	size_t i;
	tbpy_unmap(&in->dat);
	for (i = 0; in->cpus && i < in->nraw; i++)
		tbpy_unmap(&in->cpus[i]);
	free(in->cpus);
	free(in->raw);
	tbpy_unmap(&in->header_page);
	tbpy_unmap(&in->cmdlines);
	tbpy_unmap(&in->kallsyms);
	tbpy_unmap(&in->printk);
	tbpy_unmap(&in->clock);
	tb_fmt_dir_free(&in->fmts);
	memset(in, 0, sizeof(*in));
}

void tbpy_input_decref(tbpy_input *in)
{
	if (in && --in->refs <= 0) {
		tbpy_input_close(in);
		free(in);
	}
}
