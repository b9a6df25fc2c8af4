/*
 * Replay driver: runs a fuzz harness over files (or every file under a
 * directory) without libFuzzer.  Each input is copied into a heap buffer
 * of exactly its size, so ASan catches even a one-byte over-read.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf;
	long size;
	if (!f) {
		perror(path);
		return 1;
	}
	if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET) != 0) {
		fclose(f);
		return 1;
	}
	buf = malloc(size ? (size_t)size : 1);
	if (!buf || (size && fread(buf, 1, (size_t)size, f) != (size_t)size)) {
		fclose(f);
		free(buf);
		return 1;
	}
	fclose(f);
	/* An empty file is passed as a zero-length buffer of its own. */
	LLVMFuzzerTestOneInput(buf, (size_t)size);
	free(buf);
	return 0;
}

static int replay_path(const char *path, int depth)
{
	struct stat st;
	DIR *d;
	struct dirent *e;
	int rc = 0;
	if (stat(path, &st) != 0) {
		perror(path);
		return 1;
	}
	if (!S_ISDIR(st.st_mode))
		return replay_file(path);
	if (depth > 8)
		return 0;
	d = opendir(path);
	if (!d)
		return 1;
	while ((e = readdir(d)) != NULL) {
		char sub[4096];
		if (e->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name);
		rc |= replay_path(sub, depth + 1);
	}
	closedir(d);
	return rc;
}

int main(int argc, char **argv)
{
	int i, rc = 0;
	for (i = 1; i < argc; i++)
		rc |= replay_path(argv[i], 0);
	return rc;
}
