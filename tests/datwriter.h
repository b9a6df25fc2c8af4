/*
 * A tiny trace.dat writer for tests: small, valid v6/v7 files whose
 * fields the tests then patch, truncate and mutate.  Test-only; follows
 * the layout of spec 3 (ftrace-formats.md).  "copy" compression stores
 * the bytes unchanged so the compressed paths run without a codec.
 */
#ifndef TB_TEST_DATWRITER_H
#define TB_TEST_DATWRITER_H

#include <stddef.h>
#include <stdint.h>

#include "tracebound/tracedat.h"

#define DW_MAX_CPUS 4
#define DW_MAX_OPTS 8
#define DW_MAX_MORE 3

/* An extra option {id, size, payload} the writer appends after its common
 * options (v6 list, v7 first options section). */
typedef struct dw_option {
	unsigned id;
	const uint8_t *payload;
	size_t size;
} dw_option;

/* Bytes built in a file's byte order (option payloads, section bodies). */
typedef struct dw_bytes {
	uint8_t *p;
	size_t cap, len;
	int be, overflow;
} dw_bytes;

void dw_bytes_init(dw_bytes *b, uint8_t *p, size_t cap, int be);
void dw_put(dw_bytes *b, uint64_t v, unsigned n);   /* n-byte number */
void dw_put_raw(dw_bytes *b, const void *p, size_t n);
void dw_put_str(dw_bytes *b, const char *s);        /* with its NUL */
/* Store v in n bytes at p (patching a written file). */
void dw_store(uint8_t *p, uint64_t v, unsigned n, int be);

typedef struct dw_spec {
	unsigned version;        /* 6 or 7 */
	int big_endian;
	unsigned long_size;
	uint32_t page_size;
	int compress;            /* v7: metadata sections and CPU data, "copy" */
	const char *header_page;
	const char *ftrace_format;   /* one ftrace event (or NULL) */
	const char *system;          /* one system with one event */
	const char *event_format;
	const char *more_formats[DW_MAX_MORE]; /* more events of the system */
	const char *kallsyms, *printk, *cmdlines;
	unsigned ncpus;
	const uint8_t *cpu_data[DW_MAX_CPUS];
	size_t cpu_size[DW_MAX_CPUS]; /* whole pages */
	/* Any number of CPUs (ncpus of them, for merges of many): when set,
	 * CPU c's data is cpu_datav[c], cpu_sizev[c] bytes (cpu_data and
	 * cpu_size are unused; the layout's cpu_off holds the first
	 * DW_MAX_CPUS). */
	const uint8_t *const *cpu_datav;
	const size_t *cpu_sizev;
	const char *instance;        /* a second buffer with the same data */
	const char *algo;            /* compressed v7: the name (default "copy") */
	int compress_options;        /* v7 + compress: options sections too */
	const char *latency;         /* the top buffer is this text: v6 "latency"
					data, v7 a BUFFER_TEXT option + section */
	const uint8_t *btf;          /* v7: a BTF_FILE section of btf_len bytes */
	size_t btf_len;
	const uint8_t *modules;      /* v7: a MODULES_FILE section of modules_len bytes */
	size_t modules_len;
	int no_options;              /* v6: no options tag at all */
	dw_option opts[DW_MAX_OPTS]; /* extra options */
	unsigned nopts;
	/* compressed v7: a real compressor for `algo` (compressed size, 0 when
	 * it fails) instead of "copy" framing, and the CPU data in chunks of
	 * chunk_pages pages (0: one chunk per CPU), as trace-cmd writes it */
	size_t (*squeeze)(const void *src, size_t n, void *dst, size_t cap);
	unsigned chunk_pages;
} dw_spec;

/* Where the writer put things (file offsets), for patching. */
typedef struct dw_layout {
	size_t endian, long_size, page_size, header_page_size, systems_count;
	size_t uname_opt, cpustat_opt, cpucount_opt, done_opt, buffer_opt;
	size_t buffer_cpu0;      /* v7: the first {cpu, offset, size} entry */
	size_t v6_fly;           /* v6: the first {offset, size} pair */
	size_t options_first;    /* v7: first options section */
	size_t strings_sect;     /* v7 */
	size_t header_sect;      /* v7: the HEADER_INFO section */
	size_t cpu_off[DW_MAX_CPUS];
	size_t clock_opt;        /* the TRACECLOCK option */
	size_t v6_cpus;          /* v6: the header's u32 CPU count */
	size_t v6_clock;         /* v6: the u64 size of the clock text after
				    the flyrecord table */
	size_t done_opt2;        /* v7: the DONE option of the last section */
	size_t buffer_sect;      /* v7: the top BUFFER / BUFFER_TEXT section */
	size_t btf_sect;         /* v7: the BTF_FILE section */
	size_t modules_sect;     /* v7: the MODULES_FILE section */
	size_t latency_text;     /* where the latency text starts (in the file;
				    v7 compressed: 8 bytes after the body) */
	size_t opt[DW_MAX_OPTS]; /* each extra option */
	size_t len;
} dw_layout;

/* A spec filled with small defaults (2 CPUs of one page each, made up). */
void dw_default(dw_spec *s, unsigned version);

/* Write the file into out (cap bytes); returns its length, 0 if too small. */
size_t dw_write(const dw_spec *s, uint8_t *out, size_t cap, dw_layout *lay);

/* A v7 file whose CPU 0 clock goes back (tests of parts and --jobs). */
size_t dw_clock_back_file(uint8_t *out, size_t cap);

/* A v7 file of 128 KiB pages with long lines among short ones: each
 * names the same 60,000 letters nstrings times (1 to 80; --jobs tests:
 * lines longer than a worker's staging buffer, or than a chunk). */
size_t dw_long_lines_file(uint8_t *out, size_t cap, unsigned nstrings);

/* Append a v7 section (16-byte header, then body; flags bit 0 adds the
 * compressed framing with "copy" sizes) to out[0..len); returns the new
 * length, 0 if it does not fit in cap. */
size_t dw_append_sect(uint8_t *out, size_t len, size_t cap, int be,
		      unsigned id, unsigned flags, uint32_t name,
		      const void *body, size_t n);

/* The "copy" decompressor (and one that lies by `lie` bytes). */
tb_status dw_copy_decompress(void *ctx, const char *algo, const void *src,
			     size_t src_len, void *dst, size_t dst_cap,
			     size_t *produced);

#endif
