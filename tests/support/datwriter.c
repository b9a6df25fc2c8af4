/* A tiny trace.dat writer for tests (see tests/datwriter.h). */
#include "datwriter.h"
#include "pagewriter.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct w {
	dw_bytes b;
	char strings[512];
	size_t nstrings;
	size_t (*squeeze)(const void *src, size_t n, void *dst, size_t cap);
} w;

void dw_bytes_init(dw_bytes *b, uint8_t *p, size_t cap, int be)
{
	memset(b, 0, sizeof(*b));
	b->p = p;
	b->cap = cap;
	b->be = be;
}

void dw_put_raw(dw_bytes *b, const void *p, size_t n)
{
	if (b->overflow || n > b->cap - b->len) {
		b->overflow = 1;
		return;
	}
	if (n)
		memcpy(b->p + b->len, p, n);
	b->len += n;
}

void dw_store(uint8_t *p, uint64_t v, unsigned n, int be)
{
	unsigned i;
	for (i = 0; i < n; i++)
		p[be ? n - 1 - i : i] = (uint8_t)(v >> (8 * i));
}

void dw_put(dw_bytes *b, uint64_t v, unsigned n)
{
	uint8_t t[8];
	dw_store(t, v, n, b->be);
	dw_put_raw(b, t, n);
}

void dw_put_str(dw_bytes *b, const char *s)
{
	dw_put_raw(b, s, strlen(s) + 1);
}

static void put(w *o, const void *b, size_t n)
{
	dw_put_raw(&o->b, b, n);
}

static void put_n(w *o, uint64_t v, unsigned n)
{
	dw_put(&o->b, v, n);
}

static void patch_n(w *o, size_t at, uint64_t v, unsigned n)
{
	if (o->b.overflow || at + n > o->b.len)
		return;
	dw_store(o->b.p + at, v, n, o->b.be);
}

static void put_cstr(w *o, const char *s)
{
	put(o, s, strlen(s) + 1);
}

static void put_sized(w *o, const char *s, unsigned width)
{
	size_t n = s ? strlen(s) : 0;
	put_n(o, n, width);
	put(o, s, n);
}

static void pad_to(w *o, size_t align)
{
	static const uint8_t zero[64];
	while (!o->b.overflow && o->b.len % align)
		put(o, zero, align - o->b.len % align < sizeof(zero)
				     ? align - o->b.len % align : sizeof(zero));
}

static uint32_t str_id(w *o, const char *s)
{
	size_t n = strlen(s) + 1, at = o->nstrings;
	if (at + n > sizeof(o->strings))
		return 0;
	memcpy(o->strings + at, s, n);
	o->nstrings += n;
	return (uint32_t)at;
}

void dw_default(dw_spec *s, unsigned version)
{
	static uint8_t pages[2][4096];
	static const char hp[] =
		"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
		"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
		"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
		"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n";
	unsigned c;
	memset(s, 0, sizeof(*s));
	s->version = version;
	s->long_size = 8;
	s->page_size = 4096;
	s->header_page = hp;
	s->ftrace_format = "name: function\nID: 1\nformat:\n\tfield:unsigned "
			   "short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
			   "\nprint fmt: \"\"\n";
	s->system = "sched";
	s->event_format = "name: sched_wakeup\nID: 300\nformat:\n\tfield:"
			  "unsigned short common_type;\toffset:0;\tsize:2;"
			  "\tsigned:0;\n\nprint fmt: \"\"\n";
	s->kallsyms = "ffffffff81000000 T _stext\nffffffff81000100 t foo\n";
	s->printk = "0xffffffff8281a8ff : \"thaw_processes\"\n";
	s->cmdlines = "1 init\n42 bash\n";
	s->ncpus = 2;
	for (c = 0; c < 2; c++) {
		/* an empty but well-formed sub-buffer: timestamp, commit 0 */
		memset(pages[c], 0, sizeof(pages[c]));
		pages[c][0] = (uint8_t)(1 + c);
		s->cpu_data[c] = pages[c];
		s->cpu_size[c] = sizeof(pages[c]);
	}
}

static const uint8_t *cpu_data(const dw_spec *s, unsigned c)
{
	return s->cpu_datav ? s->cpu_datav[c] : s->cpu_data[c];
}

static size_t cpu_size(const dw_spec *s, unsigned c)
{
	return s->cpu_sizev ? s->cpu_sizev[c] : s->cpu_size[c];
}

static void set_cpu_off(dw_layout *lay, unsigned c, size_t off)
{
	if (c < DW_MAX_CPUS)
		lay->cpu_off[c] = off;
}

static void put_headers(w *o, const dw_spec *s)
{
	put(o, "header_page", 12);
	put_sized(o, s->header_page, 8);
	put(o, "header_event", 13);
	put_sized(o, "# compressed entry header\n", 8);
}

static void put_ftrace(w *o, const dw_spec *s)
{
	put_n(o, s->ftrace_format ? 1 : 0, 4);
	if (s->ftrace_format)
		put_sized(o, s->ftrace_format, 8);
}

static void put_systems(w *o, const dw_spec *s, dw_layout *lay)
{
	lay->systems_count = o->b.len;
	put_n(o, s->system ? 1 : 0, 4);
	if (s->system) {
		unsigned k, n = 1;
		while (n <= DW_MAX_MORE && s->more_formats[n - 1])
			n++;
		put_cstr(o, s->system);
		put_n(o, n, 4);
		put_sized(o, s->event_format, 8);
		for (k = 1; k < n; k++)
			put_sized(o, s->more_formats[k - 1], 8);
	}
}

static void put_common_options(w *o, const dw_spec *s, dw_layout *lay)
{
	unsigned c;
	char stat[64];
	lay->clock_opt = o->b.len;
	put_n(o, TB_DAT_OPT_TRACECLOCK, 2);
	put_sized(o, "[local] global\n", 4);
	lay->uname_opt = o->b.len;
	put_n(o, TB_DAT_OPT_UNAME, 2);
	put_n(o, 11, 4);
	put(o, "Linux test", 11);
	put_n(o, TB_DAT_OPT_VERSION, 2);
	put_n(o, 6, 4);
	put(o, "3.1.6", 6);
	put_n(o, TB_DAT_OPT_TRACEID, 2);
	put_n(o, 8, 4);
	put_n(o, 0xD848CBCC0F220130ull, 8);
	for (c = 0; c < s->ncpus; c++) {
		size_t n;
		snprintf(stat, sizeof(stat), "CPU: %u\nentries: 0\n", c);
		n = strlen(stat) + 1;
		if (c == 0)
			lay->cpustat_opt = o->b.len;
		put_n(o, TB_DAT_OPT_CPUSTAT, 2);
		put_n(o, n, 4);
		put(o, stat, n);
	}
	lay->cpucount_opt = o->b.len;
	put_n(o, TB_DAT_OPT_CPUCOUNT, 2);
	put_n(o, 4, 4);
	put_n(o, s->ncpus, 4);
	for (c = 0; c < s->nopts && c < DW_MAX_OPTS; c++) {
		lay->opt[c] = o->b.len;
		put_n(o, s->opts[c].id, 2);
		put_n(o, s->opts[c].size, 4);
		put(o, s->opts[c].payload, s->opts[c].size);
	}
}

/* v7 section: header, then body (framed when compressed). Returns start. */
static size_t begin_sect(w *o, unsigned id, int compress, const char *desc)
{
	size_t at = o->b.len;
	put_n(o, id, 2);
	put_n(o, compress ? 1 : 0, 2);
	put_n(o, desc ? str_id(o, desc) : UINT32_MAX, 4);
	put_n(o, 0, 8); /* size, patched */
	if (compress) {
		put_n(o, 0, 4);
		put_n(o, 0, 4);
	}
	return at;
}

/* Replace the n bytes written at `at` (the end of the output) by their
 * compressed form; its size, 0 when the compressor fails. */
static size_t squeeze_tail(w *o, size_t at)
{
	size_t n = o->b.len - at, cap = 2 * n + 1024, z = 0;
	uint8_t *t = malloc(cap);
	if (t && !o->b.overflow)
		z = o->squeeze(o->b.p + at, n, t, cap);
	o->b.len = at;
	if (z)
		put(o, t, z);
	else
		o->b.overflow = 1;
	free(t);
	return z;
}

static void end_sect(w *o, size_t at, int compress)
{
	size_t body = o->b.len - at - 16, usize = body - 8;
	if (compress && o->squeeze)
		body = squeeze_tail(o, at + 24) + 8;
	patch_n(o, at + 8, body, 8);
	if (compress) {
		patch_n(o, at + 16, body - 8, 4);
		patch_n(o, at + 20, usize, 4);
	}
}

static size_t write_v6(w *o, const dw_spec *s, dw_layout *lay)
{
	unsigned c;
	size_t fly_inst = 0, buf_off_field = 0;
	put_headers(o, s);
	put_ftrace(o, s);
	put_systems(o, s, lay);
	put_sized(o, s->kallsyms, 4);
	put_sized(o, s->printk, 4);
	put_sized(o, s->cmdlines, 8);
	lay->v6_cpus = o->b.len;
	put_n(o, s->ncpus, 4);
	if (!s->no_options) {
		put(o, "options  ", 10);
		put_common_options(o, s, lay);
	}
	if (s->instance && !s->no_options && !s->latency) {
		lay->buffer_opt = o->b.len;
		put_n(o, TB_DAT_OPT_BUFFER, 2);
		put_n(o, 8 + strlen(s->instance) + 1, 4);
		buf_off_field = o->b.len;
		put_n(o, 0, 8);
		put_cstr(o, s->instance);
	}
	if (!s->no_options) {
		lay->done_opt = o->b.len;
		put_n(o, 0, 2);
	}
	if (s->latency) {
		/* the rest of the file is the text of the trace file */
		put(o, "latency  ", 10);
		lay->latency_text = o->b.len;
		put(o, s->latency, strlen(s->latency));
		return o->b.len;
	}
	put(o, "flyrecord", 10);
	lay->v6_fly = o->b.len;
	for (c = 0; c < s->ncpus; c++) {
		put_n(o, 0, 8);
		put_n(o, cpu_size(s, c), 8);
	}
	lay->v6_clock = o->b.len;
	put_sized(o, "[local]", 8);
	if (s->instance) {
		fly_inst = o->b.len;
		patch_n(o, buf_off_field, fly_inst, 8);
		put(o, "flyrecord", 10);
		for (c = 0; c < s->ncpus; c++) {
			put_n(o, 0, 8);
			put_n(o, cpu_size(s, c), 8);
		}
	}
	for (c = 0; c < s->ncpus; c++) {
		pad_to(o, s->page_size);
		set_cpu_off(lay, c, o->b.len);
		patch_n(o, lay->v6_fly + 16 * c, o->b.len, 8);
		if (fly_inst)
			patch_n(o, fly_inst + 10 + 16 * c, o->b.len, 8);
		put(o, cpu_data(s, c), cpu_size(s, c));
	}
	return o->b.len;
}

/* BUFFER_TEXT: u64 section offset, name NUL, clock NUL (spec 3.3). */
static size_t put_buffer_text_option(w *o, const char *name)
{
	size_t field;
	put_n(o, TB_DAT_OPT_BUFFER_TEXT, 2);
	put_n(o, 8 + strlen(name) + 1 + 6, 4);
	field = o->b.len;
	put_n(o, 0, 8);
	put_cstr(o, name);
	put_cstr(o, "local");
	return field;
}

/* Returns where CPU 0's {cpu, offset, size} entry is (20 bytes each). */
static size_t put_buffer_option(w *o, const dw_spec *s, const char *name, size_t sect)
{
	unsigned c;
	size_t first;
	put_n(o, TB_DAT_OPT_BUFFER, 2);
	put_n(o, 8 + strlen(name) + 1 + 6 + 4 + 4 + 20 * s->ncpus, 4);
	put_n(o, sect, 8);
	put_cstr(o, name);
	put_cstr(o, "local");
	put_n(o, s->page_size, 4);
	put_n(o, s->ncpus, 4);
	first = o->b.len;
	for (c = 0; c < s->ncpus; c++) {
		put_n(o, c, 4);
		put_n(o, 0, 8);
		put_n(o, 0, 8);
	}
	return first;
}

static void put_buffer_section(w *o, const dw_spec *s, size_t opt_sect,
			       size_t cpu_fields, dw_layout *lay, int top)
{
	unsigned c;
	size_t at = o->b.len;
	put_n(o, TB_DAT_OPT_BUFFER, 2);
	put_n(o, s->compress ? 1 : 0, 2);
	put_n(o, str_id(o, "buffer flyrecord"), 4);
	put_n(o, 0, 8);
	(void)opt_sect;
	for (c = 0; c < s->ncpus; c++) {
		size_t start, size;
		pad_to(o, s->page_size);
		start = o->b.len;
		if (s->compress && o->squeeze) {
			/* chunks of chunk_pages pages, each compressed */
			size_t step = s->chunk_pages ? (size_t)s->chunk_pages * s->page_size
						     : cpu_size(s, c), k;
			put_n(o, step ? (cpu_size(s, c) + step - 1) / step : 0, 4);
			for (k = 0; k < cpu_size(s, c); k += step) {
				size_t u = cpu_size(s, c) - k < step ? cpu_size(s, c) - k : step;
				size_t hdr = o->b.len;
				put_n(o, 0, 8);
				put(o, cpu_data(s, c) + k, u);
				patch_n(o, hdr, squeeze_tail(o, hdr + 8), 4);
				patch_n(o, hdr + 4, u, 4);
			}
		} else if (s->compress) {
			put_n(o, 1, 4);
			put_n(o, cpu_size(s, c), 4);
			put_n(o, cpu_size(s, c), 4);
			put(o, cpu_data(s, c), cpu_size(s, c));
		} else {
			put(o, cpu_data(s, c), cpu_size(s, c));
		}
		size = o->b.len - start - (s->compress ? 4 : 0);
		if (top)
			set_cpu_off(lay, c, start);
		patch_n(o, cpu_fields + 20 * c + 4, start, 8);
		patch_n(o, cpu_fields + 20 * c + 12, size, 8);
	}
	patch_n(o, at + 8, o->b.len - at - 16, 8);
}

static size_t write_v7(w *o, const dw_spec *s, dw_layout *lay)
{
	size_t first_field, sects[8], opt1, opt2, done1, strings_at;
	unsigned sect_ids[8];
	size_t top_cpu = 0, inst_cpu = 0;
	size_t top_field = 0, inst_field = 0;
	int z = s->compress, zo = z && s->compress_options;
	unsigned i, nsects = 6;
	put_cstr(o, z ? (s->algo ? s->algo : "copy") : "none");
	put_cstr(o, z ? "1" : "");
	first_field = o->b.len;
	put_n(o, 0, 8);

	lay->header_sect = sects[0] = begin_sect(o, TB_DAT_OPT_HEADER_INFO, z, "headers");
	put_headers(o, s);
	end_sect(o, sects[0], z);
	sects[1] = begin_sect(o, TB_DAT_OPT_FTRACE_EVENTS, z, "ftrace events");
	put_ftrace(o, s);
	end_sect(o, sects[1], z);
	sects[2] = begin_sect(o, TB_DAT_OPT_EVENT_FORMATS, z, "events format");
	put_systems(o, s, lay);
	if (z)
		lay->systems_count = 0; /* inside compressed bytes */
	end_sect(o, sects[2], z);
	sects[3] = begin_sect(o, TB_DAT_OPT_KALLSYMS, z, "kallsyms");
	put_sized(o, s->kallsyms, 4);
	end_sect(o, sects[3], z);
	sects[4] = begin_sect(o, TB_DAT_OPT_PRINTK, z, "printk");
	put_sized(o, s->printk, 4);
	end_sect(o, sects[4], z);
	sects[5] = begin_sect(o, TB_DAT_OPT_CMDLINES, z, "command lines");
	put_sized(o, s->cmdlines, 8);
	end_sect(o, sects[5], z);
	if (s->btf) {
		/* BTF_FILE: the blob as the section body */
		sect_ids[nsects] = TB_DAT_OPT_BTF_FILE;
		lay->btf_sect = sects[nsects] = begin_sect(o, TB_DAT_OPT_BTF_FILE, z, "BTF");
		put(o, s->btf, s->btf_len);
		end_sect(o, sects[nsects++], z);
	}
	if (s->modules) {
		/* MODULES_FILE: /proc/modules as the section body */
		sect_ids[nsects] = TB_DAT_OPT_MODULES_FILE;
		lay->modules_sect = sects[nsects] =
			begin_sect(o, TB_DAT_OPT_MODULES_FILE, z, "modules");
		put(o, s->modules, s->modules_len);
		end_sect(o, sects[nsects++], z);
	}

	/* first options section: general options and the section offsets */
	lay->options_first = opt1 = begin_sect(o, TB_DAT_OPT_DONE, zo, "options");
	patch_n(o, first_field, opt1, 8);
	put_common_options(o, s, lay);
	for (i = 0; i < nsects; i++) {
		put_n(o, i < 6 ? TB_DAT_OPT_HEADER_INFO + i : sect_ids[i], 2);
		put_n(o, 8, 4);
		put_n(o, sects[i], 8);
	}
	lay->done_opt = done1 = o->b.len;
	put_n(o, TB_DAT_OPT_DONE, 2);
	put_n(o, 8, 4);
	put_n(o, 0, 8);
	end_sect(o, opt1, zo);

	/* second options section: the buffers */
	opt2 = begin_sect(o, TB_DAT_OPT_DONE, zo, "options");
	patch_n(o, done1 + 6, opt2, 8);
	lay->buffer_opt = o->b.len;
	top_field = o->b.len + 6;
	if (s->latency)
		top_field = put_buffer_text_option(o, "");
	else
		top_cpu = put_buffer_option(o, s, "", 0);
	lay->buffer_cpu0 = top_cpu;
	if (s->instance) {
		inst_field = o->b.len + 6;
		inst_cpu = put_buffer_option(o, s, s->instance, 0);
	}
	lay->done_opt2 = o->b.len;
	put_n(o, TB_DAT_OPT_DONE, 2);
	put_n(o, 8, 4);
	put_n(o, 0, 8);
	end_sect(o, opt2, zo);

	patch_n(o, top_field, o->b.len, 8);
	lay->buffer_sect = o->b.len;
	if (s->latency) {
		size_t at = begin_sect(o, TB_DAT_OPT_BUFFER_TEXT, z, "buffer latency");
		lay->latency_text = o->b.len;
		put(o, s->latency, strlen(s->latency));
		end_sect(o, at, z);
	} else {
		put_buffer_section(o, s, opt2, top_cpu, lay, 1);
	}
	if (s->instance) {
		patch_n(o, inst_field, o->b.len, 8);
		put_buffer_section(o, s, opt2, inst_cpu, lay, 0);
	}
	/* the strings: patch "strings" in first so the id exists */
	str_id(o, "strings");
	lay->strings_sect = strings_at = o->b.len;
	put_n(o, TB_DAT_OPT_STRINGS, 2);
	put_n(o, 0, 2);
	put_n(o, o->nstrings - 8, 4);
	put_n(o, o->nstrings, 8);
	put(o, o->strings, o->nstrings);
	(void)strings_at;
	return o->b.len;
}

size_t dw_write(const dw_spec *s, uint8_t *out, size_t cap, dw_layout *lay)
{
	w o;
	dw_layout tmp;
	size_t n;
	if (!lay)
		lay = &tmp;
	memset(lay, 0, sizeof(*lay));
	memset(&o, 0, sizeof(o));
	o.squeeze = s->squeeze;
	dw_bytes_init(&o.b, out, cap, s->big_endian);
	put(&o, "\x17\x08\x44tracing", 10);
	put_cstr(&o, s->version == 6 ? "6" : "7");
	lay->endian = o.b.len;
	put_n(&o, s->big_endian ? 1 : 0, 1);
	lay->long_size = o.b.len;
	put_n(&o, s->long_size, 1);
	lay->page_size = o.b.len;
	put_n(&o, s->page_size, 4);
	if (s->version == 6) {
		lay->header_page_size = o.b.len + 12;
		n = write_v6(&o, s, lay);
	} else {
		n = write_v7(&o, s, lay);
	}
	lay->len = n;
	return o.b.overflow ? 0 : n;
}

size_t dw_append_sect(uint8_t *out, size_t len, size_t cap, int be,
		      unsigned id, unsigned flags, uint32_t name,
		      const void *body, size_t n)
{
	dw_bytes b;
	dw_bytes_init(&b, out, cap, be);
	b.len = len <= cap ? len : cap;
	dw_put(&b, id, 2);
	dw_put(&b, flags, 2);
	dw_put(&b, name, 4);
	dw_put(&b, n + ((flags & 1u) ? 8 : 0), 8);
	if (flags & 1u) {
		dw_put(&b, n, 4);
		dw_put(&b, n, 4);
	}
	dw_put_raw(&b, body, n);
	return b.overflow || len > cap ? 0 : b.len;
}

tb_status dw_copy_decompress(void *ctx, const char *algo, const void *src,
			     size_t src_len, void *dst, size_t dst_cap,
			     size_t *produced)
{
	long lie = ctx ? *(const long *)ctx : 0;
	if (strcmp(algo, "copy") != 0)
		return TB_ERR_UNSUPPORTED;
	if (src_len > dst_cap)
		return TB_ERR_VALUE;
	if (src_len) /* an empty chunk may come with no memory at all */
		memcpy(dst, src, src_len);
	*produced = (size_t)((long)src_len + lie);
	return TB_OK;
}

/* Two CPUs of six spec-built pages, 20 events each, where CPU 0's clock
 * goes back (its third page starts before its second ended): the file
 * the parts and --jobs tests split where parts cannot tile. */
static uint8_t back_pages[2][6][4096];

size_t dw_clock_back_file(uint8_t *out, size_t cap)
{
	static const uint64_t t0[6] = { 1000, 2000, 1500, 3000, 4000, 5000 };
	static const uint64_t t1[6] = { 1100, 2100, 2600, 3100, 4100, 5100 };
	dw_spec spec;
	size_t c, p, e;
	for (c = 0; c < 2; c++)
		for (p = 0; p < 6; p++) {
			tbt_pw pw;
			tbt_pw_init(&pw, back_pages[c][p], 4096, 0, 8, c ? t1[p] : t0[p]);
			for (e = 0; e < 20; e++) {
				uint8_t payload[8] = { 1, 0, 0, 0, (uint8_t)(c * 100 + p * 20 + e) };
				(void)tbt_pw_data(&pw, e ? 40 : 0, payload, sizeof(payload), 0);
			}
			tbt_pw_finish(&pw, 0, 0, 0);
		}
	dw_default(&spec, 7);
	spec.cpu_data[0] = back_pages[0][0];
	spec.cpu_size[0] = sizeof(back_pages[0]);
	spec.cpu_data[1] = back_pages[1][0];
	spec.cpu_size[1] = sizeof(back_pages[1]);
	return dw_write(&spec, out, cap, NULL);
}

/* Two CPUs of four 128 KiB pages; each page holds a short event, one
 * whose line is long (nstrings fields naming the same 60,000 letters: two
 * make 120 KB, eighty 4.8 MB), and another short one: --jobs's lines
 * longer than a worker's staging buffer, or than a chunk. */
static uint8_t long_pages[2][4][128 << 10];

size_t dw_long_lines_file(uint8_t *out, size_t cap, unsigned nstrings)
{
	static const char hp[] =
		"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
		"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
		"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
		"\tfield: char data;\toffset:16;\tsize:131056;\tsigned:0;\n";
	static uint8_t payload[4 + 4 * 80 + 60001];
	static char format[80 * 96 + 512];
	size_t at, f, c, p, e, i, str;
	dw_spec spec;
	if (nstrings < 1 || nstrings > 80)
		return 0;
	str = 4 + 4 * (size_t)nstrings;
	for (i = 0; i < 60000; i++)
		payload[str + i] = (uint8_t)('a' + i % 26);
	for (c = 0; c < 2; c++)
		for (p = 0; p < 4; p++) {
			tbt_pw pw;
			tbt_pw_init(&pw, long_pages[c][p], sizeof(long_pages[c][p]), 0, 8,
				    1000000 * (p + 1) + 1000 * c);
			for (e = 0; e < 3; e++) {
				uint32_t n = e == 1 ? 60000 : 5 + (uint32_t)(c * 4 + p);
				payload[0] = 44; /* common_type 300 */
				payload[1] = 1;
				/* every string field: the same n letters */
				for (f = 0; f < nstrings; f++) {
					payload[4 + 4 * f] = (uint8_t)(str & 0xff);
					payload[5 + 4 * f] = (uint8_t)(str >> 8);
					payload[6 + 4 * f] = (uint8_t)((n + 1) & 0xff);
					payload[7 + 4 * f] = (uint8_t)((n + 1) >> 8);
				}
				payload[str + n] = 0;
				(void)tbt_pw_data(&pw, e ? 500 : 0, payload, str + n + 1, 0);
				payload[str + n] = (uint8_t)('a' + n % 26);
			}
			tbt_pw_finish(&pw, 0, 0, 0);
		}
	at = (size_t)snprintf(format, sizeof(format),
			      "name: sched_wakeup\nID: 300\nformat:\n\tfield:unsigned short "
			      "common_type;\toffset:0;\tsize:2;\tsigned:0;\n\n");
	for (f = 0; f < nstrings; f++)
		at += (size_t)snprintf(format + at, sizeof(format) - at,
				       "\tfield:__data_loc char[] s%zu;\toffset:%zu;\tsize:4;"
				       "\tsigned:0;\n", f, 4 + 4 * f);
	at += (size_t)snprintf(format + at, sizeof(format) - at, "\nprint fmt: \"");
	for (f = 0; f < nstrings; f++)
		at += (size_t)snprintf(format + at, sizeof(format) - at, "%s%%s", f ? " " : "");
	at += (size_t)snprintf(format + at, sizeof(format) - at, "\"");
	for (f = 0; f < nstrings; f++)
		at += (size_t)snprintf(format + at, sizeof(format) - at, ", __get_str(s%zu)", f);
	(void)snprintf(format + at, sizeof(format) - at, "\n");
	dw_default(&spec, 7);
	spec.page_size = 128 << 10;
	spec.header_page = hp;
	spec.event_format = format;
	for (c = 0; c < 2; c++) {
		spec.cpu_data[c] = long_pages[c][0];
		spec.cpu_size[c] = sizeof(long_pages[c]);
	}
	return dw_write(&spec, out, cap, NULL);
}
