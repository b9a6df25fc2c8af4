/*
 * tracebound: the pieces of a Parquet dataset of many uploads that are
 * not I/O (docs/parquet.md, "A dataset of uploads").
 *
 * SHA-256 (FIPS 180-4), and the trace id of an upload: the first 16
 * bytes of the SHA-256 of its bytes, as 32 lowercase hex digits.
 *   - a trace.dat: the file's bytes as stored (compressed or not);
 *   - raw dumps: a framed stream (tb_trace_id_part), so that no two
 *     different sets of files hash the same bytes: the tag "tracebound
 *     raw dumps 1", then per part a kind byte, the name's length (8 bytes,
 *     little-endian) and the name, the content's length and the content.
 *     The caller gives the parts in an order that does not depend on the
 *     command line (docs/parquet.md says which).
 * The same bytes give the same id on every host and every version.
 */
#ifndef TRACEBOUND_DATASET_H
#define TRACEBOUND_DATASET_H

#include "tracebound/session.h"
#include "tracebound/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TB_SHA256_SIZE 32u
#define TB_TRACE_ID_LEN 32u  /* hex digits of a trace id (16 bytes) */

typedef struct tb_sha256 {
	uint32_t h[8];
	uint8_t block[64];
	size_t fill;          /* bytes in block */
	uint64_t total;       /* bytes hashed */
} tb_sha256;

TB_API void tb_sha256_init(tb_sha256 *s);
TB_API void tb_sha256_update(tb_sha256 *s, const void *p, size_t n);
/* The digest; s must be initialised again before further use. */
TB_API void tb_sha256_final(tb_sha256 *s, uint8_t out[TB_SHA256_SIZE]);

/* The parts of raw dumps (the kind byte of a framed part). */
enum tb_trace_id_part_kind {
	TB_TRACE_ID_HEADER_PAGE = 1, /* the header_page text (name: "header_page") */
	TB_TRACE_ID_FORMAT = 2,      /* an event format text (name: SYSTEM/EVENT) */
	TB_TRACE_ID_CPU = 3          /* a CPU's dump (name: the CPU number in decimal) */
};

/* Start the id of raw dumps (the tag goes in first). */
TB_API void tb_trace_id_raw_begin(tb_sha256 *s);
TB_API void tb_trace_id_part(tb_sha256 *s, unsigned kind, const char *name, size_t name_len,
			     const void *data, size_t len);

/* The id of what s hashed, NUL-terminated, into out[TB_TRACE_ID_LEN + 1]. */
TB_API void tb_trace_id_final(tb_sha256 *s, char out[TB_TRACE_ID_LEN + 1]);

/* The id of what a session opens: src->dat's bytes when set, else the
 * raw dumps' (header page, formats, CPUs). */
TB_API void tb_trace_id_source(const tb_session_source *src, char out[TB_TRACE_ID_LEN + 1]);

/* The id of a trace.dat: its bytes. */
TB_API void tb_trace_id_dat(const void *data, size_t len, char out[TB_TRACE_ID_LEN + 1]);

/* The id of raw dumps: the header page (none when header_page_len is
 * 0), the format texts in the order given (the caller's: an events
 * directory's sorted paths), the CPUs' dumps by CPU number (ties: in the
 * order given). */
TB_API void tb_trace_id_raw(const void *header_page, size_t header_page_len,
			    const tb_session_format_text *formats, size_t nformats,
			    const tb_session_raw_cpu *cpus, size_t ncpus,
			    char out[TB_TRACE_ID_LEN + 1]);

#ifdef __cplusplus
}
#endif
#endif
