/*
 * tracebound: a streaming Apache Parquet writer in caller memory.
 *
 * The writer turns rows of typed values into a Parquet file (format
 * version 1 data pages, PLAIN values or dictionary indices, RLE/bit-packed
 * hybrid levels, the Thrift compact protocol footer) and hands every byte to a write
 * callback: it never allocates, never seeks and never keeps more than one
 * row group.  Memory is what the caller gives, fixed at init:
 *
 *   per column   buf[0..cap): the column's part of the current row group
 *                (values from the front, one level byte per value from
 *                the back).  When a row does not fit in some column the
 *                row group is written out first (all columns), so memory
 *                stays constant however many rows follow.
 *   scratch      where one column's page is assembled at a flush: at least
 *                tb_pq_scratch_size(largest column cap) bytes.
 *   cscratch     (with a compressor) where the compressor writes; a page
 *                that does not fit or does not shrink is stored plain.
 *   dict         (with TB_PQ_DICT columns) where a flush finds a column
 *                chunk's distinct values: tb_pq_dict_size(largest cap of
 *                such a column) bytes.
 *   footer       the row groups' metadata, kept for the footer (about
 *                100 bytes + the name per column per row group): when it
 *                is full, the call that needed room returns
 *                TB_ERR_NO_SPACE before it wrote anything, w->footer_need
 *                says how many bytes are needed in all; give a larger
 *                buffer with tb_pq_writer_set_footer() and repeat the call.
 *
 * Several writers may share one scratch, cscratch and dict when they are not
 * used at the same time (a flush only uses them during the call).
 *
 * Columns.  INT: integers of 8, 16, 32 or 64 bits, signed or not, stored
 * as INT32 (up to 32 bits) or INT64 with the INTEGER logical type (and the
 * matching INT_n / UINT_n converted type), so a u64 stays unsigned.
 * BYTES: BYTE_ARRAY; with TB_PQ_TEXT the column is annotated STRING (UTF8)
 * when every value written to the file was valid UTF-8, else it is left a
 * plain BYTE_ARRAY: the schema is in the footer, so the choice is made at
 * tb_pq_finish() and no reader ever sees invalid UTF-8 in a STRING.
 * LIST: a list of integers (the standard three-level LIST: an optional or
 * required group, a repeated group "list", a required "element").
 * TB_PQ_NULLABLE makes a column optional (definition levels); a list
 * column can always hold an empty list.
 *
 * Dictionaries.  A BYTES column with TB_PQ_DICT is dictionary-encoded
 * chunk by chunk: at a flush the writer finds the chunk's distinct values;
 * when there are at most TB_PQ_DICT_MAX and the dictionary page plus the
 * packed indices are smaller than the values, the chunk is a dictionary
 * page (PLAIN) and a data page of RLE_DICTIONARY indices, else PLAIN as
 * always (PLAIN too when the values' hashes crowd one place of the table,
 * as only values crafted to collide do: the work stays linear).  For columns whose values repeat (names, comms) the file is
 * smaller, the compressor has less to do, and readers compare indices.
 * The choice depends on the chunk's values only, so it is the same for
 * the same rows whatever the memory given.
 *
 * Errors.  Every call returns a tb_status and fills a tb_error (offset:
 * bytes written so far).  An error from the write or compress callback,
 * or from a flush, is sticky: the file is incomplete and every later call
 * returns it.  TB_ERR_NO_SPACE for the footer, and the argument and value
 * errors of tb_pq_write_row (nothing is written then), are not.
 *
 * Not thread-safe: one writer per thread.
 */
#ifndef TRACEBOUND_PARQUET_H
#define TRACEBOUND_PARQUET_H

#include "tracebound/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- named limits ---- */
#define TB_PQ_MAX_COLUMNS 4096u           /* columns in one file */
#define TB_PQ_MAX_NAME 1024u              /* bytes of a column name */
#define TB_PQ_MAX_COLUMN_BUF (256u << 20) /* a column's buffer (pages stay < 2 GiB) */
#define TB_PQ_MIN_COLUMN_BUF 64u          /* the smallest column buffer accepted */
#define TB_PQ_MAX_KV 64u                  /* key/value metadata entries */
#define TB_PQ_DICT_MAX 16384u             /* distinct values of a dictionary chunk */

enum tb_pq_kind {
	TB_PQ_INT = 0,   /* INT32 / INT64 with the INTEGER logical type */
	TB_PQ_BYTES = 1, /* BYTE_ARRAY, STRING when TB_PQ_TEXT and all values are UTF-8 */
	TB_PQ_LIST = 2   /* LIST of integers (element as for TB_PQ_INT) */
};

/* tb_pq_column.flags */
#define TB_PQ_SIGNED   0x01u /* INT / LIST elements: signed */
#define TB_PQ_NULLABLE 0x02u /* the column may hold nulls (OPTIONAL) */
#define TB_PQ_TEXT     0x04u /* BYTES: annotate STRING unless a value is not UTF-8 */
#define TB_PQ_DICT     0x08u /* BYTES: dictionary-encode the chunks where it pays */

/* Parquet compression codec numbers (the CompressionCodec enum). */
enum tb_pq_codec {
	TB_PQ_UNCOMPRESSED = 0,
	TB_PQ_SNAPPY = 1,
	TB_PQ_GZIP = 2,
	TB_PQ_BROTLI = 4,
	TB_PQ_ZSTD = 6,
	TB_PQ_LZ4_RAW = 7
};

/* One column: the caller fills the first part, the writer keeps its
 * state in the rest (the array must stay in place until tb_pq_finish). */
typedef struct tb_pq_column {
	const char *name;     /* borrowed until tb_pq_finish; any bytes but NUL */
	size_t name_len;
	uint8_t kind;         /* tb_pq_kind */
	uint8_t bits;         /* INT, LIST: 8, 16, 32 or 64 */
	uint8_t flags;        /* TB_PQ_* */
	uint8_t *buf;         /* this column's row group storage */
	size_t cap;

	/* read-only state */
	uint64_t values;      /* values written (nulls and list entries included) */
	uint64_t nulls;
	uint64_t non_utf8;    /* TEXT columns: values that were not valid UTF-8 */
	/* private */
	size_t vlen_, nlev_;
	uint64_t chunk_values_;
	int lazy_;
	uint8_t md_, iw_;     /* set at init: the max definition level, a PLAIN int's bytes */
	uint64_t ibias_, imax_; /* set at init: v fits the bits when v + ibias_ <= imax_ */
} tb_pq_column;

/* One value of a row, for the column at the same index.  Unused members
 * may hold anything. */
typedef struct tb_pq_value {
	int is_null;           /* NULLABLE columns (a LIST column: a null list) */
	uint64_t i;            /* INT: the value (a signed value cast to uint64_t);
				  it must fit the column's bits */
	const void *p;         /* BYTES: n bytes; LIST: n elements of elem_size */
	size_t n;
	unsigned elem_size;    /* LIST: 1, 2, 4 or 8 bytes each, at most bits / 8 */
	int big_endian;        /* LIST: the elements' byte order */
} tb_pq_value;

/* Output: take n bytes (all of them) or return an error. */
typedef tb_status (*tb_pq_write_fn)(void *ctx, const void *p, size_t n);

/* Compress src[0..n) into dst[0..cap), *out the size: TB_OK, or
 * TB_ERR_NO_SPACE (the page is then stored uncompressed); any other
 * status fails the write. */
typedef tb_status (*tb_pq_compress_fn)(void *ctx, const void *src, size_t n,
				       void *dst, size_t cap, size_t *out);

/* A key/value pair for the footer's key_value_metadata (borrowed). */
typedef struct tb_pq_kv {
	const char *key;
	size_t key_len;
	const char *value;
	size_t value_len;
} tb_pq_kv;

typedef struct tb_pq_config {
	tb_pq_write_fn write;
	void *write_ctx;
	tb_pq_compress_fn compress;  /* NULL: uncompressed */
	void *compress_ctx;
	unsigned codec;              /* tb_pq_codec the compressor produces */
	uint8_t *scratch;
	size_t scratch_cap;
	uint8_t *cscratch;
	size_t cscratch_cap;
	uint8_t *dict;               /* needed with TB_PQ_DICT columns */
	size_t dict_cap;
	uint8_t *footer;
	size_t footer_cap;
	uint64_t max_group_rows;     /* 0: row groups end only when a column is full */
	const char *created_by;      /* NULL: "tracebound version X" */
} tb_pq_config;

typedef struct tb_pq_writer {
	tb_pq_column *cols;
	size_t ncols;
	tb_pq_config cfg;
	uint8_t *footer;
	size_t footer_cap, footer_len;
	size_t footer_need;          /* after TB_ERR_NO_SPACE: bytes needed in all */
	uint64_t offset;             /* bytes written */
	uint64_t rows;               /* rows in flushed row groups and the current one */
	uint64_t group_rows;         /* rows in the current row group */
	uint64_t groups;             /* row groups written */
	uint64_t dict_chunks;        /* column chunks written with a dictionary */
	const tb_pq_kv *kv;
	size_t nkv;
	tb_status sticky;
	tb_error sticky_err;
	int finished;
} tb_pq_writer;

/* Scratch bytes a flush needs for a column buffer of cap bytes. */
TB_API size_t tb_pq_scratch_size(size_t cap);

/* Dictionary bytes a flush needs for a TB_PQ_DICT column of cap bytes. */
TB_API size_t tb_pq_dict_size(size_t cap);

/*
 * Check the columns and the storage, write the leading magic.
 * TB_ERR_ARG (a bad column, storage too small for its column, a NULL
 * callback), TB_ERR_LIMIT (the TB_PQ_MAX_* limits), or the write
 * callback's error.
 */
TB_API TB_MUST_CHECK tb_status tb_pq_writer_init(tb_pq_writer *w, tb_pq_column *cols,
						 size_t ncols, const tb_pq_config *cfg,
						 tb_error *err);

/* Footer key/value pairs (borrowed until tb_pq_finish); TB_ERR_LIMIT
 * past TB_PQ_MAX_KV. */
TB_API TB_MUST_CHECK tb_status tb_pq_writer_set_kv(tb_pq_writer *w, const tb_pq_kv *kv,
						   size_t nkv, tb_error *err);

/* Move the footer into buf[0..cap) (cap >= w->footer_len; the old
 * buffer is not used again). */
TB_API TB_MUST_CHECK tb_status tb_pq_writer_set_footer(tb_pq_writer *w, uint8_t *buf,
						       size_t cap, tb_error *err);

/*
 * Append one row: vals[0..ncols).  Writes the row group out first when
 * the row does not fit.  TB_ERR_VALUE (a null in a column that is not
 * nullable, an integer outside the column's bits, a list element too
 * wide), TB_ERR_LIMIT (the row does not fit in an empty column buffer),
 * TB_ERR_NO_SPACE (footer: see the top), a callback's error.
 */
TB_API TB_MUST_CHECK tb_status tb_pq_write_row(tb_pq_writer *w, const tb_pq_value *vals,
					       tb_error *err);

/*
 * Move column i to another buffer (what it holds of the current row
 * group is copied), e.g. to grow a busy table's buffers after a row
 * group went out and keep a quiet one's small.  buf must not overlap the
 * old buffer, which is not used again.  TB_ERR_ARG when buf is the old
 * buffer or cannot take what the column holds, cap is below
 * TB_PQ_MIN_COLUMN_BUF or needs more scratch (or dict) than was given;
 * TB_ERR_LIMIT past TB_PQ_MAX_COLUMN_BUF.
 */
TB_API TB_MUST_CHECK tb_status tb_pq_column_resize(tb_pq_writer *w, size_t i, uint8_t *buf,
						   size_t cap, tb_error *err);

/* End the current row group now (nothing happens without rows). */
TB_API TB_MUST_CHECK tb_status tb_pq_flush(tb_pq_writer *w, tb_error *err);

/* Write the last row group, the footer and the trailing magic.  After
 * TB_OK the writer takes no more rows. */
TB_API TB_MUST_CHECK tb_status tb_pq_finish(tb_pq_writer *w, tb_error *err);

/* Is s[0..n) valid UTF-8 (no overlong forms, no surrogates, <= U+10FFFF)? */
TB_API int tb_pq_utf8_valid(const void *s, size_t n);

#ifdef __cplusplus
}
#endif

#endif /* TRACEBOUND_PARQUET_H */
