/* A Parquet dataset of uploads: folders, staging, publishing (dataset.h,
 * docs/parquet.md). */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "dataset.h"

static char *part_dir(const char *root, const char *id)
{
	char *p = malloc(strlen(root) + TB_TRACE_ID_LEN + 16);
	if (p)
		sprintf(p, "%s/trace_id=%s", root, id);
	return p;
}

char *tb_ds_abspath(const char *path)
{
	return realpath(path, NULL);
}

int tb_ds_present(const char *root, const char *id)
{
	struct stat sb;
	char *p = part_dir(root, id);
	int r = p && stat(p, &sb) == 0;
	free(p);
	return r;
}

int tb_ds_stage_begin(tb_ds_stage *st, const char *root, const char *id)
{
	memset(st, 0, sizeof(*st));
	memcpy(st->id, id, TB_TRACE_ID_LEN + 1);
	st->root = strdup(root);
	st->final = part_dir(root, id);
	st->dir = malloc(strlen(root) + TB_TRACE_ID_LEN + 32);
	if (!st->root || !st->final || !st->dir) {
		fprintf(stderr, "tracebound: out of memory\n");
		tb_ds_stage_end(st);
		return -1;
	}
	sprintf(st->dir, "%s/.tb-stage-%s-XXXXXX", root, id);
	if (!mkdtemp(st->dir)) {
		fprintf(stderr, "tracebound: %s: cannot create: %s\n", st->dir, strerror(errno));
		free(st->dir);
		st->dir = NULL;
		tb_ds_stage_end(st);
		return -1;
	}
	/* mkdtemp makes it 0700: the partition gets the mode a mkdir would */
	{
		mode_t um = umask(0);
		umask(um);
		(void)chmod(st->dir, 0777 & ~um);
	}
	return 0;
}

static int rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)ftw;
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

/* The tree at dir, removed (depth first, symlinks not followed). */
static void rm_tree(const char *dir)
{
	(void)nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

int tb_ds_stage_publish(tb_ds_stage *st)
{
	if (rename(st->dir, st->final) == 0) {
		free(st->dir);
		st->dir = NULL;
		return 0;
	}
	if (errno == EEXIST || errno == ENOTEMPTY)
		return 1; /* another convert of the same upload was first */
	fprintf(stderr, "tracebound: %s: cannot rename to %s: %s\n", st->dir, st->final,
		strerror(errno));
	return -1;
}

void tb_ds_stage_end(tb_ds_stage *st)
{
	if (st->dir)
		rm_tree(st->dir);
	free(st->dir);
	free(st->final);
	free(st->root);
	memset(st, 0, sizeof(*st));
}

static int mkdir_one(const char *dir)
{
	struct stat sb;
	if (mkdir(dir, 0777) == 0 || (errno == EEXIST && stat(dir, &sb) == 0 && S_ISDIR(sb.st_mode)))
		return 0;
	return -1;
}

int tb_ds_mkdir_p(const char *dir)
{
	char *p = strdup(dir), *s;
	int rc;
	if (!p)
		return -1;
	for (s = p + 1; *s; s++)
		if (*s == '/') {
			*s = 0;
			if (mkdir_one(p)) {
				free(p);
				return -1;
			}
			*s = '/';
		}
	rc = mkdir_one(p);
	free(p);
	return rc;
}
