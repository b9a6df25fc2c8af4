/* Helpers shared by the Check suites. */
#ifndef TB_TESTUTIL_H
#define TB_TESTUTIL_H

#include <stddef.h>
#include <stdint.h>

/* Absolute path of a file in the source tree (static buffer, per call). */
const char *tb_test_path(const char *relative);

/*
 * Read a whole file into a malloc'd buffer of exactly its size (so ASan
 * catches a one-byte over-read).  Returns NULL when it cannot be read;
 * *len receives the size.
 */
uint8_t *tb_test_read_file(const char *path, size_t *len);

/* tests/data/perf/NAME (or any file under the tree as DIR/NAME) read
 * whole, exact size; the test fails when it cannot be read. */
uint8_t *tb_test_load(const char *dir, const char *name, size_t *len);

/* Non-zero when the path exists (used to skip optional real-data tests). */
int tb_test_exists(const char *path);

/* Copy n bytes into a fresh exact-size heap buffer (for truncation tests). */
uint8_t *tb_test_dup(const void *p, size_t n);

/* Write n bytes to path (the test fails when it cannot). */
void tb_test_write_file(const char *path, const void *p, size_t n);

/* malloc and free as a tb_mem (no count kept). */
struct tb_mem;
extern const struct tb_mem tb_test_heap;

/* Damage a trace.dat in place as the --jobs suites need it: the commit
 * word of every 37th page of buffer 0's CPU 1, from page 3, set far past
 * its page.  Returns how many pages (the file must open as a session). */
size_t tb_test_damage_cpu1_pages(uint8_t *dat, size_t len);

struct tb_session;

/* A session over one CPU's raw dump (data, len) with one format text of
 * system "test"; the test fails when it does not open.  The session reads
 * data and text (which must outlive it) and its memory from malloc. */
struct tb_session *tb_test_raw_session(const uint8_t *data, size_t len, uint32_t cpu,
				       const char *format_text);

/* What a command run by tb_test_sh / tb_test_cli printed and returned. */
typedef struct tb_test_run {
	int status;             /* exit status; -1 when it did not exit normally */
	char *out, *err;        /* stdout and stderr, malloc'd, NUL-terminated */
	size_t out_len, err_len;
} tb_test_run;

/*
 * Run a shell command in the source root, with $CLI naming the built
 * tracebound (TB_CLI), capturing stdout and stderr (never NULL).  Free
 * with tb_test_run_free.
 */
void tb_test_sh(const char *cmd, tb_test_run *r);

/* Run the built CLI with `args` (shell words) the same way. */
void tb_test_cli(const char *args, tb_test_run *r);

void tb_test_run_free(tb_test_run *r);

/* Number of '\n' in a NUL-terminated text. */
size_t tb_test_count_lines(const char *s);

#endif
