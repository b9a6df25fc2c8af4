#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#ifndef TB_SRCDIR
#define TB_SRCDIR "."
#endif

const char *tb_test_path(const char *relative)
{
	static char buf[4096];
	const char *root = getenv("TB_SRCDIR");
	snprintf(buf, sizeof(buf), "%s/%s", root ? root : TB_SRCDIR, relative);
	return buf;
}

uint8_t *tb_test_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long size;
	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET) != 0) {
		fclose(f);
		return NULL;
	}
	buf = malloc(size ? (size_t)size : 1);
	if (buf && size && fread(buf, 1, (size_t)size, f) != (size_t)size) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	*len = (size_t)size;
	return buf;
}

int tb_test_exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

uint8_t *tb_test_dup(const void *p, size_t n)
{
	uint8_t *b = malloc(n ? n : 1);
	if (b && n)
		memcpy(b, p, n);
	return b;
}
