/* host/ files: see files.h. */
#define _DEFAULT_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "files.h"

char *tb_path_join(const char *a, const char *b)
{
	size_t n = strlen(a) + strlen(b) + 2;
	char *p = malloc(n);
	if (p)
		snprintf(p, n, "%s/%s", a, b);
	return p;
}

int tb_path_is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void tb_names_free(char **names, size_t n)
{
	size_t i;
	for (i = 0; names && i < n; i++)
		free(names[i]);
	free(names);
}

char **tb_dir_names(const char *dir, int dirs_only, size_t *count)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **v = NULL;
	size_t n = 0, cap = 0;
	*count = 0;
	if (!d)
		return NULL;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		if (dirs_only) {
			char *p = tb_path_join(dir, de->d_name);
			int ok = p && tb_path_is_dir(p);
			free(p);
			if (!ok)
				continue;
		}
		if (n == cap) {
			char **nv = realloc(v, (cap ? cap * 2 : 64) * sizeof(*v));
			if (!nv)
				goto fail;
			v = nv;
			cap = cap ? cap * 2 : 64;
		}
		if (!(v[n] = strdup(de->d_name)))
			goto fail;
		n++;
	}
	closedir(d);
	if (n)
		qsort(v, n, sizeof(*v), by_name);
	*count = n;
	if (!v && !(v = calloc(1, sizeof(*v))))
		errno = ENOMEM;
	return v;
fail:
	closedir(d);
	tb_names_free(v, n);
	errno = ENOMEM;
	return NULL;
}

/* close(fd), keeping the errno of what failed before it. */
static void close_keeping_errno(int fd)
{
	int e = errno;
	close(fd);
	errno = e;
}

int tb_input_read_fd(int fd, tb_input *in, size_t max_read)
{
	return tb_input_read_rest(fd, NULL, 0, in, max_read);
}

int tb_input_read_rest(int fd, const uint8_t *head, size_t head_len, tb_input *in,
		       size_t max_read)
{
	/* head_len + 1 bytes at least: the head, and room to read on */
	size_t cap = head_len < 4096 ? 4096 : head_len <= SIZE_MAX / 2 ? head_len * 2 : 0;
	size_t n = head_len;
	uint8_t *buf = cap ? malloc(cap) : NULL;
	int e = 0;
	memset(in, 0, sizeof(*in));
	if (!buf)
		e = ENOMEM;
	else if (head_len)
		memcpy(buf, head, head_len);
	while (buf) {
		ssize_t got;
		if (n + 1 >= cap) { /* room for the NUL */
			uint8_t *nb = NULL;
			size_t ncap;
			if (n > max_read) {
				e = EFBIG;
				break;
			}
			/* doubled, never past max_read + 2 (the byte that tells
			 * the input is too long, and the NUL): more than cap,
			 * as n = cap - 1 <= max_read here */
			ncap = cap <= SIZE_MAX / 2 ? cap * 2 : 0;
			if (ncap && max_read < ncap - 2)
				ncap = max_read + 2;
			if (ncap)
				nb = realloc(buf, ncap);
			if (!nb) {
				e = ENOMEM;
				break;
			}
			buf = nb;
			cap = ncap;
		}
		got = read(fd, buf + n, cap - 1 - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			e = errno;
			break;
		}
		if (got == 0) {
			if (n > max_read) {
				e = EFBIG;
				break;
			}
			buf[n] = 0;
			in->data = buf;
			in->len = n;
			return 0;
		}
		n += (size_t)got;
	}
	free(buf);
	errno = e;
	return -1;
}

int tb_input_load(const char *path, tb_input *in, int keep_fd, size_t max_read)
{
	int rc, fd = open(path, O_RDONLY | O_CLOEXEC);
	memset(in, 0, sizeof(*in));
	if (fd < 0)
		return -1;
	rc = tb_input_map(fd, in, keep_fd);
	if (rc == 1) {
		rc = tb_input_read_fd(fd, in, max_read);
		close_keeping_errno(fd);
	}
	return rc;
}

int tb_input_map(int fd, tb_input *in, int keep_fd)
{
	struct stat st;
	void *p;
	memset(in, 0, sizeof(*in));
	if (fstat(fd, &st) != 0) {
		close_keeping_errno(fd);
		return -1;
	}
	if (S_ISDIR(st.st_mode)) {
		close(fd);
		errno = EISDIR;
		return -1;
	}
	if (!S_ISREG(st.st_mode) || st.st_size <= 0)
		return 1;
	if ((uint64_t)st.st_size > (uint64_t)SIZE_MAX) {
		close(fd);
		errno = EFBIG;
		return -1;
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		return 1;
	if (keep_fd)
		in->fd1 = fd + 1;
	else
		close(fd);
	in->data = p;
	in->len = (size_t)st.st_size;
	in->mapped = 1;
	return 0;
}

void tb_input_free(tb_input *in)
{
	if (in->fd1 > 0)
		close(in->fd1 - 1);
	if (in->data) {
		if (in->mapped)
			munmap((void *)(uintptr_t)in->data, in->len);
		else
			free((void *)(uintptr_t)in->data);
	}
	memset(in, 0, sizeof(*in));
}

char *tb_file_read(const char *path, size_t *len)
{
	tb_input in;
	int rc, fd = open(path, O_RDONLY | O_CLOEXEC);
	*len = 0;
	if (fd < 0)
		return NULL;
	rc = tb_input_read_fd(fd, &in, TB_FMT_FILE_MAX);
	close_keeping_errno(fd);
	if (rc)
		return NULL;
	*len = in.len;
	return (char *)(uintptr_t)in.data; /* heap, NUL-terminated */
}

void tb_fmt_dir_free(tb_fmt_dir *d)
{
	size_t i;
	for (i = 0; d->files && i < d->n; i++) {
		free(d->files[i].path);
		free(d->files[i].system);
		free(d->files[i].text);
	}
	free(d->files);
	free(d->texts);
	memset(d, 0, sizeof(*d));
}

/* One event directory's format onto the list: 0 (also when it has no
 * readable format), -1 when memory ran out. */
static int add_file(tb_fmt_dir *d, size_t *cap, const char *edir, const char *system)
{
	tb_fmt_file *f;
	char *path = tb_path_join(edir, "format");
	size_t len;
	char *text = path ? tb_file_read(path, &len) : NULL;
	if (!text) {
		free(path);
		return path ? 0 : -1;
	}
	if (d->n == *cap) {
		size_t nc = *cap ? *cap * 2 : 1024;
		tb_fmt_file *nf = realloc(d->files, nc * sizeof(*nf));
		if (!nf) {
			free(text);
			free(path);
			return -1;
		}
		d->files = nf;
		*cap = nc;
	}
	f = &d->files[d->n++];
	f->path = path;
	f->text = text;
	f->len = len;
	f->system = strdup(system);
	return f->system ? 0 : -1;
}

int tb_fmt_dir_read(tb_fmt_dir *d, const char *dir)
{
	size_t nsys, s, i, cap = 0;
	char **systems = tb_dir_names(dir, 1, &nsys);
	int rc = 0;
	memset(d, 0, sizeof(*d));
	if (!systems)
		return -1;
	for (s = 0; s < nsys && rc == 0; s++) {
		char *sdir = tb_path_join(dir, systems[s]);
		size_t nev = 0, k;
		char **evs = sdir ? tb_dir_names(sdir, 1, &nev) : NULL;
		if (!sdir || (!evs && errno == ENOMEM))
			rc = -1;
		for (k = 0; evs && k < nev && rc == 0; k++) {
			char *edir = tb_path_join(sdir, evs[k]);
			rc = edir ? add_file(d, &cap, edir, systems[s]) : -1;
			free(edir);
		}
		tb_names_free(evs, nev);
		free(sdir);
	}
	tb_names_free(systems, nsys);
	if (rc == 0 && !(d->texts = calloc(d->n ? d->n : 1, sizeof(*d->texts))))
		rc = -1;
	for (i = 0; rc == 0 && i < d->n; i++) {
		d->texts[i].system.ptr = d->files[i].system;
		d->texts[i].system.len = strlen(d->files[i].system);
		d->texts[i].text.ptr = d->files[i].text;
		d->texts[i].text.len = d->files[i].len;
	}
	if (rc)
		errno = ENOMEM;
	return rc;
}

int tb_file_pread(void *ctx, uint64_t offset, void *buf, size_t len)
{
	int fd = (int)(intptr_t)ctx;
	uint8_t *to = buf;
	while (len) {
		ssize_t n;
		if ((uint64_t)len > (uint64_t)INT64_MAX || offset > (uint64_t)INT64_MAX - len)
			return -1; /* past what off_t holds */
		n = pread(fd, to, len, (off_t)offset);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1; /* an error, or the file shrank */
		to += n;
		len -= (size_t)n;
		offset += (uint64_t)n;
	}
	return 0;
}

#define HUGE_PAGE ((size_t)2 << 20)

/* n rounded up to whole huge pages; 0 for sizes no mapping could hold */
static size_t big_len(size_t n)
{
	return n > SIZE_MAX / 2 ? 0 : (n + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
}

void *tb_host_big_alloc(size_t n)
{
	size_t len = big_len(n), head;
	uint8_t *m, *at;
	if (!len)
		return NULL;
	/* a huge page more than asked, then the ends trimmed, to start on 2 MiB */
	m = mmap(NULL, len + HUGE_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return NULL;
	at = (uint8_t *)(((uintptr_t)m + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
	head = (size_t)(at - m); /* < HUGE_PAGE: the tail is never empty */
	if (head)
		(void)munmap(m, head);
	(void)munmap(at + len, HUGE_PAGE - head);
#ifdef MADV_HUGEPAGE
	(void)madvise(at, len, MADV_HUGEPAGE); /* a hint: without it, small pages */
#endif
	return at;
}

void tb_host_big_free(void *p, size_t n)
{
	if (p)
		(void)munmap(p, big_len(n));
}

static void *heap_alloc(void *ctx, size_t n)
{
	(void)ctx;
	return malloc(n ? n : 1);
}

static void heap_free(void *ctx, void *p, size_t n)
{
	(void)ctx;
	(void)n;
	free(p);
}

const tb_mem tb_host_heap = { heap_alloc, heap_free, NULL };
