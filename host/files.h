/*
 * host/: the POSIX side of tracebound, once, for the CLI and the Python
 * module (the library does no I/O).  Files: paths, sorted directory
 * listings, whole small files, every <system>/<event>/format under a
 * directory laid out like /sys/kernel/tracing/events, whole inputs mapped
 * or read, and the read function through which a session reads a
 * capture's CPU data.  Plain C and POSIX:
 * no stdio output, errors are return values with errno set.
 */
#ifndef TB_HOST_FILES_H
#define TB_HOST_FILES_H

#include <stddef.h>
#include <stdint.h>

#include "tracebound/session.h"
#include "tracebound/source.h"

/* "a/b", malloc'd (NULL: out of memory). */
char *tb_path_join(const char *a, const char *b);
/* 1 when path is a directory. */
int tb_path_is_dir(const char *path);

/* Sorted names of dir's entries, dot files left out (dirs_only: its
 * subdirectories); NULL with errno when dir cannot be read or memory ran
 * out.  Free with tb_names_free. */
char **tb_dir_names(const char *dir, int dirs_only, size_t *count);
void tb_names_free(char **names, size_t n);

/* A whole input in memory: a regular file with bytes is mapped read-only
 * (not copied); anything else (a pipe, stdin, a tracefs file that says
 * size 0) is read to its end into the heap, with a NUL after its bytes. */
typedef struct tb_input {
	const uint8_t *data;
	size_t len;
	int mapped;  /* 1: munmap, 0: free */
	int fd1;     /* with keep_fd, a mapped file's descriptor plus one, for
			tb_file_pread (0: none, as in a zeroed tb_input) */
} tb_input;

/* path mapped, or read when it cannot be (at most max_read bytes: EFBIG
 * past them): 0, or -1 with errno (EISDIR for a directory).  keep_fd: a
 * mapped file's descriptor stays open (tb_input_fd) until tb_input_free. */
int tb_input_load(const char *path, tb_input *in, int keep_fd, size_t max_read);
/* fd mapped when it is a regular file with bytes: 0 (fd closed unless
 * keep_fd), 1 when it cannot be (fd left open, *in zeroed: read it), -1
 * with errno (fd closed). */
int tb_input_map(int fd, tb_input *in, int keep_fd);
/* fd (left open) read to its end, as above. */
int tb_input_read_fd(int fd, tb_input *in, size_t max_read);
/* The same after head[0..head_len) (bytes of fd already read, counted
 * in max_read): what cannot stream is read through this one. */
int tb_input_read_rest(int fd, const uint8_t *head, size_t head_len, tb_input *in,
		       size_t max_read);
/* The kept descriptor, or -1. */
static inline int tb_input_fd(const tb_input *in)
{
	return in->fd1 - 1;
}
/* Unmap or free, close a kept descriptor; *in is zeroed (freeing a zeroed
 * one does nothing). */
void tb_input_free(tb_input *in);

/* A whole file read to its end (tracefs reports size 0), malloc'd with a
 * NUL after its *len bytes; NULL with errno (EFBIG past TB_FMT_FILE_MAX). */
#define TB_FMT_FILE_MAX ((size_t)16 << 20)
char *tb_file_read(const char *path, size_t *len);

/* A tb_dat_read_fn (tracedat.h) over the file descriptor in ctx
 * ((void *)(intptr_t)fd): pread until len bytes are in; -1 when they
 * cannot be (an error, or the file ends first).  Safe from any thread. */
int tb_file_pread(void *ctx, uint64_t offset, void *buf, size_t len);

/* One format file: its text, its system's name and its path. */
typedef struct tb_fmt_file {
	char *path;
	char *system;
	char *text;
	size_t len;
} tb_fmt_file;

/* Every format file of a directory, and the same as a session's format
 * texts (pointing into files). */
typedef struct tb_fmt_dir {
	tb_fmt_file *files;
	tb_session_format_text *texts;
	size_t n;
} tb_fmt_dir;

/* Every DIR/<system>/<event>/format in name order (an event directory
 * without a readable format is passed over): 0, or -1 with errno when
 * DIR cannot be read or memory ran out.  Free d with tb_fmt_dir_free
 * either way. */
int tb_fmt_dir_read(tb_fmt_dir *d, const char *dir);
void tb_fmt_dir_free(tb_fmt_dir *d);

/* Large blocks of memory (n >= TB_HOST_BIG_BLOCK) as transparent huge
 * pages: fresh memory costs a page fault per 4 KiB page touched, and on a
 * KVM guest each is also filled in by the host, so a 2 MiB page costs one
 * fault where 512 did.  The block is its own mapping on 2 MiB boundaries;
 * NULL when there is no memory.  tb_host_big_free takes the same n. */
#define TB_HOST_BIG_BLOCK ((size_t)1 << 20)
void *tb_host_big_alloc(size_t n);
void tb_host_big_free(void *p, size_t n);

/* The C heap as a tb_mem, uncounted: for writers' own memory (a Perfetto
 * writer's bundles and scratch, cfg.mem), which their own headers bound. */
extern const tb_mem tb_host_heap;

/* ---- a capture through the library's sources (source.h) ---- */

/* The file access a tb_source reads through: every file it loads stays
 * mapped (or read) until tb_host_capture_close; the last two directories
 * listed are kept, sorted, for the next entries asked for (the source walks
 * events/ and one system's folder in turn: one listing each, not one of
 * events/ per system). */
typedef struct tb_host_listing {
	char *dir;               /* NULL: the slot is free */
	char **names;
	size_t nnames;
} tb_host_listing;

typedef struct tb_host_capture {
	tb_source source;        /* source.src: for tb_session_open_budget */
	tb_input *files;         /* every part loaded */
	size_t nfiles, cap;
	tb_host_listing listed[2];
	unsigned last;           /* the slot listed last */
	size_t max_read;         /* a part that cannot be mapped: read at most this */
	const char *keep_fd;     /* the path whose descriptor stays open (pread) */
	int err;                 /* errno of the last part that failed (0: none) */
} tb_host_capture;

/*
 * tb_source_open through the host (its lists from mem): a trace.dat's
 * CPU data is read with tb_file_pread on its kept descriptor, its
 * decompressor is left to the caller.  max_read: what a part that is a
 * pipe or a tracefs file may hold.  Close c either way.
 */
tb_status tb_host_capture_open(tb_host_capture *c, const tb_source_desc *d, const tb_mem *mem,
			       size_t max_read, tb_error *err);
void tb_host_capture_close(tb_host_capture *c);
/* "PART: what (errno text)" for a failed open, into buf. */
void tb_host_capture_message(const tb_host_capture *c, const tb_error *e, char *buf, size_t cap);

/* The session source of a whole capture in memory: a perf.data (a file or
 * a `perf record -o -` stream) by its magic, else a trace.dat, whose CPU
 * data is read with tb_file_pread on fd when fd >= 0 (reused buffers, not
 * the mapping: tracedat.h); its decompressor is codec.h's. */
void tb_host_source_bytes(tb_session_source *src, const uint8_t *data, size_t len, int fd);

#endif
