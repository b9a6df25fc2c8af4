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
	const char *kallsyms, *printk, *cmdlines;
	unsigned ncpus;
	const uint8_t *cpu_data[DW_MAX_CPUS];
	size_t cpu_size[DW_MAX_CPUS]; /* whole pages */
	const char *instance;        /* a second buffer with the same data */
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
	size_t len;
} dw_layout;

/* A spec filled with small defaults (2 CPUs of one page each, made up). */
void dw_default(dw_spec *s, unsigned version);

/* Write the file into out (cap bytes); returns its length, 0 if too small. */
size_t dw_write(const dw_spec *s, uint8_t *out, size_t cap, dw_layout *lay);

/* The "copy" decompressor (and one that lies by `lie` bytes). */
tb_status dw_copy_decompress(void *ctx, const char *algo, const void *src,
			     size_t src_len, void *dst, size_t dst_cap,
			     size_t *produced);

#endif
