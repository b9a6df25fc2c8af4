/*
 * A gzip'd tar file read into memory for tests and benchmarks: the
 * formats-6.18 sample is kept compressed in tests/data and walked here
 * (gzip -dc through popen, then the ustar headers), so no temporary
 * directory is needed.  Header-only so bench/ can use it too.
 */
#ifndef TB_TARBALL_H
#define TB_TARBALL_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct tb_tar_entry {
	char path[272];       /* "events/sched/sched_switch/format" */
	const char *data;     /* into tb_tarball.buf */
	size_t len;
} tb_tar_entry;

typedef struct tb_tarball {
	char *buf;
	size_t len;
	tb_tar_entry *entries; /* regular files only, in archive order */
	size_t count;
} tb_tarball;

static inline size_t tb_tar_octal(const char *p, size_t n)
{
	size_t v = 0, i;
	for (i = 0; i < n && p[i] >= '0' && p[i] <= '7'; i++)
		v = v * 8 + (size_t)(p[i] - '0');
	return v;
}

/* 0 on success.  Free with tb_tarball_free. */
static inline int tb_tarball_load(const char *path, tb_tarball *t)
{
	char cmd[1200];
	FILE *p;
	size_t cap = 1 << 22, off, n;
	memset(t, 0, sizeof(*t));
	snprintf(cmd, sizeof(cmd), "gzip -dc '%s'", path);
	if (!(p = popen(cmd, "r")))
		return -1;
	t->buf = (char *)malloc(cap);
	while (t->buf && (n = fread(t->buf + t->len, 1, cap - t->len, p)) > 0) {
		t->len += n;
		if (t->len == cap) {
			char *nb = (char *)realloc(t->buf, cap *= 2);
			if (!nb) {
				free(t->buf);
				t->buf = NULL;
			}
			t->buf = nb;
		}
	}
	if (pclose(p) != 0 || !t->buf)
		return -1;
	t->entries = (tb_tar_entry *)calloc(t->len / 512 + 1, sizeof(tb_tar_entry));
	if (!t->entries)
		return -1;
	for (off = 0; off + 512 <= t->len;) {
		const char *h = t->buf + off;
		size_t size = tb_tar_octal(h + 124, 12);
		if (h[0] == 0)
			break;
		if ((h[156] == '0' || h[156] == 0) && off + 512 + size <= t->len) {
			tb_tar_entry *e = &t->entries[t->count++];
			if (h[345])
				snprintf(e->path, sizeof(e->path), "%.155s/%.100s", h + 345, h);
			else
				snprintf(e->path, sizeof(e->path), "%.100s", h);
			e->data = h + 512;
			e->len = size;
		}
		off += 512 + (size + 511) / 512 * 512;
	}
	return 0;
}

/* Append one file to t (growing buf; entries re-pointed afterwards). */
static inline int tb_tar_add_file(tb_tarball *t, size_t *cap, size_t *ecap,
				  const char *path, const char *name)
{
	FILE *f = fopen(path, "rb");
	size_t n;
	if (!f)
		return 0;
	if (t->count == *ecap) {
		tb_tar_entry *ne = (tb_tar_entry *)realloc(t->entries,
							   (*ecap = *ecap ? *ecap * 2 : 256) *
								   sizeof(*ne));
		if (!ne) {
			fclose(f);
			return -1;
		}
		t->entries = ne;
	}
	t->entries[t->count].len = 0;
	for (;;) {
		if (t->len + 4096 > *cap) {
			char *nb = (char *)realloc(t->buf, *cap = *cap ? *cap * 2 : 1 << 20);
			if (!nb) {
				fclose(f);
				return -1;
			}
			t->buf = nb;
		}
		n = fread(t->buf + t->len, 1, 4096, f);
		if (n == 0)
			break;
		t->len += n;
		t->entries[t->count].len += n;
	}
	fclose(f);
	snprintf(t->entries[t->count].path, sizeof(t->entries[0].path), "%s", name);
	t->count++;
	return 0;
}

/*
 * The same from a directory laid out like /sys/kernel/tracing/events
 * (DIR/<system>/<event>/format): entries named "events/SYS/EV/format".
 * Returns 0 on success (even with no format found).
 */
static inline int tb_tarball_from_dir(const char *dir, tb_tarball *t)
{
	size_t cap = 0, ecap = 0, off = 0, i;
	DIR *d = opendir(dir);
	struct dirent *sys;
	memset(t, 0, sizeof(*t));
	if (!d)
		return -1;
	while ((sys = readdir(d)) != NULL) {
		char sdir[1024];
		DIR *sd;
		struct dirent *ev;
		if (sys->d_name[0] == '.')
			continue;
		snprintf(sdir, sizeof(sdir), "%s/%s", dir, sys->d_name);
		if (!(sd = opendir(sdir)))
			continue;
		while ((ev = readdir(sd)) != NULL) {
			char path[2048], name[240];
			if (ev->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s/format", sdir, ev->d_name);
			snprintf(name, sizeof(name), "events/%.100s/%.100s/format", sys->d_name,
				 ev->d_name);
			if (tb_tar_add_file(t, &cap, &ecap, path, name) != 0) {
				closedir(sd);
				closedir(d);
				return -1;
			}
		}
		closedir(sd);
	}
	closedir(d);
	for (i = 0; i < t->count; i++) { /* buf may have moved: point now */
		t->entries[i].data = t->buf + off;
		off += t->entries[i].len;
	}
	return 0;
}

static inline void tb_tarball_free(tb_tarball *t)
{
	free(t->buf);
	free(t->entries);
	memset(t, 0, sizeof(*t));
}

/* Does the entry's path end with "/format"?  Then *sys / *ev name it. */
static inline int tb_tar_is_format(const tb_tar_entry *e, char *sys, size_t sysn,
				   char *ev, size_t evn)
{
	const char *s = e->path, *p1, *p2;
	size_t n = strlen(s);
	if (n < 7 || strcmp(s + n - 7, "/format") != 0)
		return 0;
	if (strncmp(s, "events/", 7) == 0)
		s += 7;
	p1 = strchr(s, '/');
	if (!p1)
		return 0;
	p2 = strchr(p1 + 1, '/');
	if (!p2 || (size_t)(p1 - s) >= sysn || (size_t)(p2 - p1 - 1) >= evn)
		return 0;
	memcpy(sys, s, (size_t)(p1 - s));
	sys[p1 - s] = 0;
	memcpy(ev, p1 + 1, (size_t)(p2 - p1 - 1));
	ev[p2 - p1 - 1] = 0;
	return 1;
}

#endif
