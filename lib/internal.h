/*
 * Shared internals of the library: the reader and the error helper.
 * Internal header: not installed, not part of the API.
 */
#ifndef TB_LIB_INTERNAL_H
#define TB_LIB_INTERNAL_H

#include "tracebound/status.h"
#include "reader.h"

/* Record a failure in *err (when given) and return its status. */
static inline tb_status tb_fail(tb_error *err, tb_status status,
				uint64_t offset, const char *what)
{
	if (err) {
		err->status = status;
		err->offset = offset;
		err->what = what;
	}
	return status;
}

/* Clear *err (when given) to "no error". */
static inline void tb_error_clear(tb_error *err)
{
	if (err) {
		err->status = TB_OK;
		err->offset = 0;
		err->what = "no error";
	}
}

/* Sorting and searching tables in caller storage (lib/dattables.c). */
#define TB_SORT_ELEM_MAX 64 /* tb_heap_sort's swap step (any entry size sorts) */
typedef int (*tb_less_fn)(const void *a, const void *b);
/* Heapsort of n entries of `size` bytes: O(n log n), no recursion; a
 * sorted table is recognised in O(n).  Entries of any size (they were
 * once left unsorted past 64 bytes, silently). */
void tb_heap_sort(void *base, size_t n, size_t size, tb_less_fn less);
/* The first of n sorted entries whose key_of() is >= key (n if none). */
size_t tb_lower_bound(const void *base, size_t n, size_t size, uint64_t key,
		      uint64_t (*key_of)(const void *));

/* A caller's region (storage, a string): its capacity or length, or 0
 * when it has no memory (a count never vouches for memory not there). */
static inline size_t tb_region_len(const void *p, size_t n)
{
	return p ? n : 0;
}

#define TB_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* perfdata.c, for the session (session_perf.c): from now on until f is
 * opened again, a SAMPLE record is given with its header and attr only
 * (has_sample 0, its s and u as they were): the session reads the
 * fields it keeps itself, or calls tb_perf_parse_sample. */
struct tb_perf;
void tb_perf_samples_unparsed_(struct tb_perf *f);

/* perfdata.c, for the session's walk of a file: the SAMPLE records from
 * the iterator's place on, read straight (no record struct, no call
 * each), up to max of them: each one's offset, size and attr index.  It
 * stops before any other record, a sample whose attr it does not find or
 * whose header is unsound, the section's end, a sticky error or a
 * decompressor's bytes: tb_perf_record_next takes that one, with its
 * checks and errors.  Returns how many it read (the iterator is past
 * them). */
typedef struct tb_perf_sample_ref_ {
	uint64_t offset;
	uint32_t attr;
	uint16_t size;
} tb_perf_sample_ref_;
struct tb_perf_iter;
size_t tb_perf_scan_samples_(struct tb_perf_iter *it, tb_perf_sample_ref_ *out, size_t max);
/* The same over the whole records in d[0..len), the bytes at `offset` of
 * the data section: *used, the bytes they take. */
size_t tb_perf_scan_buffer_(const struct tb_perf *f, const uint8_t *d, size_t len,
			    uint64_t offset, tb_perf_sample_ref_ *out, size_t max, size_t *used);

/* perfdata.c, for the session's walk of a file read through a buffer,
 * with tb_perf_record_next's checks and errors: the header of the record
 * at data-section offset `offset` (have bytes of it at d, room bytes of
 * the section from it on) and its size; then the record (its size bytes
 * at d, `after` bytes of the section after it), *sticky set when its
 * fault ends the walk. */
tb_status tb_perf_buffer_header_(const struct tb_perf *f, const uint8_t *d, size_t have,
				 uint64_t offset, uint64_t room, uint16_t *size, tb_error *err);
struct tb_perf_record;
tb_status tb_perf_buffer_record_(const struct tb_perf *f, const uint8_t *d, uint16_t size,
				 uint64_t offset, uint64_t after, struct tb_perf_record *rec,
				 int *sticky, tb_error *err);

/* The feed rule of the pull decoders (pmclog, perf.data streams): new
 * bytes only once the last ones are used up, never after close; the
 * caller's buffer is read in place. */
static inline tb_status tb_feed_window_(int closed, const uint8_t **in, size_t *in_len,
					size_t *in_pos, const void *data, size_t len)
{
	if (closed || *in_pos != *in_len || (!data && len))
		return TB_ERR_ARG;
	*in = (const uint8_t *)data;
	*in_len = len;
	*in_pos = 0;
	return TB_OK;
}

/* Out of line: a rare path kept apart from a hot caller (whose every call
 * would otherwise save and restore the registers the rare path needs), or
 * a step whose large locals must not share one stack frame. */
#if defined(__GNUC__)
#define TB_NOINLINE __attribute__((noinline))
#else
#define TB_NOINLINE
#endif

#endif /* TB_LIB_INTERNAL_H */
