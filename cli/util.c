/* Shared CLI helpers: loading inputs, JSON strings, cpu numbers. */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

static int read_all(int fd, const char *path, tb_cli_file *f)
{
	size_t cap = 1 << 16, len = 0;
	uint8_t *buf = malloc(cap);
	if (!buf)
		goto oom;
	for (;;) {
		ssize_t n;
		if (len == cap) {
			uint8_t *nb;
			if (cap > SIZE_MAX / 2)
				goto oom;
			nb = realloc(buf, cap * 2);
			if (!nb)
				goto oom;
			buf = nb;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "tracebound: %s: %s\n", path, strerror(errno));
			free(buf);
			return -1;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	f->data = buf;
	f->len = len;
	f->mapped = 0;
	return 0;
oom:
	free(buf);
	fprintf(stderr, "tracebound: %s: out of memory\n", path);
	return -1;
}

/* An input is mapped, not copied: if its file is cut short while we read
 * it (an upload still being written, a log rotated), touching the lost
 * pages raises SIGBUS.  Say so and stop with the damaged-input status
 * instead of dying of a signal.  Only async-signal-safe calls here. */
static void input_shrank(int sig)
{
	static const char msg[] =
		"tracebound: an input file shrank while it was being read: stopped\n";
	ssize_t n = write(2, msg, sizeof(msg) - 1);
	(void)n;
	(void)sig;
	_exit(TB_EXIT_MALFORMED);
}

void tb_cli_catch_shrinking_inputs(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = input_shrank;
	sigemptyset(&sa.sa_mask);
	(void)sigaction(SIGBUS, &sa, NULL);
}

int tb_cli_load(const char *path, tb_cli_file *f)
{
	struct stat st;
	int fd, rc;
	memset(f, 0, sizeof(*f));
	f->fd = -1;
	if (!strcmp(path, "-"))
		return read_all(0, "(stdin)", f);
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		fprintf(stderr, "tracebound: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
		void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (p != MAP_FAILED) {
			f->fd = fd; /* for tb_cli_pread */
			f->data = p;
			f->len = (size_t)st.st_size;
			f->mapped = 1;
			return 0;
		}
	}
	rc = read_all(fd, path, f);
	close(fd);
	return rc;
}

void tb_cli_unload(tb_cli_file *f)
{
	if (f->mapped)
		munmap((void *)(uintptr_t)f->data, f->len);
	else
		free((void *)(uintptr_t)f->data);
	if (f->mapped && f->fd >= 0)
		close(f->fd);
	memset(f, 0, sizeof(*f));
	f->fd = -1;
}

/* Through the library's one JSON string writer (escapes, invalid UTF-8). */
void tb_cli_json_str(FILE *out, const char *s, size_t n)
{
	char small[512], *buf = small;
	tb_text t;
	tb_text_init(&t, small, sizeof(small));
	tb_json_str(&t, s, n);
	if (tb_text_truncated(&t)) {
		size_t cap = t.need + 1;
		buf = malloc(cap);
		if (!buf) {
			fputs("null", out);
			return;
		}
		tb_text_init(&t, buf, cap);
		tb_json_str(&t, s, n);
	}
	fwrite(t.buf, 1, t.len, out);
	if (buf != small)
		free(buf);
}

int tb_cli_cpu_from_name(const char *path, int fallback)
{
	const char *base = strrchr(path, '/');
	long v = 0;
	int digits = 0;
	base = base ? base + 1 : path;
	if (strncmp(base, "cpu", 3) != 0)
		return fallback;
	for (base += 3; *base >= '0' && *base <= '9' && digits < 6; base++, digits++)
		v = v * 10 + (*base - '0');
	if (digits == 0 || (*base != '\0' && *base != '.'))
		return fallback;
	return (int)v;
}
