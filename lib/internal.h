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

#define TB_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* Out of line: a rare path kept apart from a hot caller (whose every call
 * would otherwise save and restore the registers the rare path needs), or
 * a step whose large locals must not share one stack frame. */
#if defined(__GNUC__)
#define TB_NOINLINE __attribute__((noinline))
#else
#define TB_NOINLINE
#endif

#endif /* TB_LIB_INTERNAL_H */
