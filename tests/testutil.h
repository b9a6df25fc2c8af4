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

/* Non-zero when the path exists (used to skip optional real-data tests). */
int tb_test_exists(const char *path);

/* Copy n bytes into a fresh exact-size heap buffer (for truncation tests). */
uint8_t *tb_test_dup(const void *p, size_t n);

#endif
