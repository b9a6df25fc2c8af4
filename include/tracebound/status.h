/*
 * tracebound: status values and the error record every decoder returns.
 *
 * Errors are values.  A decoder never aborts, never prints and never
 * allocates; on failure it returns a tb_status and, where it has one,
 * fills a tb_error with the byte offset of the fault and a static,
 * human-readable description (never NULL, never freed).
 */
#ifndef TRACEBOUND_STATUS_H
#define TRACEBOUND_STATUS_H

#include <stddef.h>
#include <stdint.h>

#if defined(TB_BUILDING_LIBRARY) && defined(__GNUC__)
#define TB_API __attribute__((visibility("default")))
#else
#define TB_API
#endif

#if defined(__GNUC__)
#define TB_MUST_CHECK __attribute__((warn_unused_result))
#else
#define TB_MUST_CHECK
#endif

#define TB_VERSION_MAJOR 0
#define TB_VERSION_MINOR 1
#define TB_VERSION_PATCH 0
#define TB_VERSION_STRING "0.1.0"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Results.  Values below TB_ERR_FIRST are not errors: they steer the
 * caller (go on, stop, feed more, look elsewhere).  Every value from
 * TB_ERR_FIRST on is an error; the malformed-input kinds come first, then
 * the limits, the caller's storage and the caller's arguments, then the
 * caller's budget (a capture that needs more memory than allowed).
 */
typedef enum tb_status {
	TB_OK = 0,          /* done; a result is available */
	TB_END,             /* no more records: normal end of data */
	TB_NEED_MORE,       /* a stream needs more input bytes */
	TB_NOT_FOUND,       /* a lookup found nothing (not an error in the input) */

	TB_ERR_FIRST = 16,
	TB_ERR_TRUNCATED = TB_ERR_FIRST, /* a structure runs past the bytes present */
	TB_ERR_LENGTH,      /* a length or size field holds an impossible value */
	TB_ERR_RANGE,       /* an offset or index points outside its container */
	TB_ERR_MAGIC,       /* the magic number or signature is wrong */
	TB_ERR_VERSION,     /* an unknown or inconsistent format version */
	TB_ERR_SYNTAX,      /* text does not follow its grammar */
	TB_ERR_VALUE,       /* a field holds a value its format does not allow */
	TB_ERR_DUPLICATE,   /* something that must be unique appears twice */
	TB_ERR_CYCLE,       /* a chain of offsets loops or goes backwards */
	TB_ERR_UNSUPPORTED, /* well formed, but a feature this build lacks */
	TB_ERR_LIMIT,       /* a named limit of the library was exceeded */
	TB_ERR_NO_SPACE,    /* caller-provided storage is too small */
	TB_ERR_ARG,         /* the caller passed an invalid argument */
	TB_ERR_BUDGET,      /* sound as far as read, but decoding it needs more
			       memory than the caller's budget allows (nothing
			       was asked for past it: see tb_session_need) */
	TB_STATUS_END_      /* not a status: one past the last value */
} tb_status;

/* Where and why decoding failed.  `what` points to a static string. */
typedef struct tb_error {
	tb_status status;
	uint64_t offset;    /* byte offset of the fault in the decoder's input */
	const char *what;   /* static description of this particular fault */
} tb_error;

/* Static name of a status, e.g. "truncated input".  Never NULL. */
TB_API const char *tb_strerror(tb_status status);

/* Non-zero when `status` is an error (not OK/END/NEED_MORE/NOT_FOUND). */
static inline int tb_is_error(tb_status status)
{
	return (int)status >= (int)TB_ERR_FIRST;
}

/* Non-zero when `status` says the input itself is malformed. */
static inline int tb_is_malformed(tb_status status)
{
	return (int)status >= (int)TB_ERR_TRUNCATED &&
	       (int)status <= (int)TB_ERR_CYCLE;
}

/* The library's version string, e.g. "0.1.0". */
TB_API const char *tb_version(void);

#ifdef __cplusplus
}
#endif

#endif /* TRACEBOUND_STATUS_H */
