/* Shared CLI helpers: loading inputs, JSON strings, cpu numbers, writes. */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "budget.h"
#include "cli.h"

/* An input is mapped, not copied: if its file is cut short while we read
 * it (an upload still being written, a log rotated), touching the lost
 * pages raises SIGBUS, and a read of its CPU data comes up short
 * (capture.c).  Either way: say so and stop with the damaged-input status,
 * instead of dying of a signal or naming every page that is gone.  Only
 * async-signal-safe calls here. */
void tb_cli_input_shrank(void)
{
	static const char msg[] =
		"tracebound: an input file shrank while it was being read: stopped\n";
	ssize_t n = write(2, msg, sizeof(msg) - 1);
	(void)n;
	_exit(TB_EXIT_MALFORMED);
}

static void input_shrank(int sig)
{
	(void)sig;
	tb_cli_input_shrank();
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
	tb_cli_input in;
	memset(f, 0, sizeof(*f));
	if (tb_cli_input_open(&in, path) != 0)
		return -1;
	return tb_cli_input_take(&in, tb_cli_budget_read_limit(), f);
}

void tb_cli_unload(tb_cli_file *f)
{
	tb_input_free(f);
}

/* Through the library's one JSON string writer (escapes, invalid UTF-8). */
void tb_cli_json_str(FILE *out, const char *s, size_t n)
{
	tb_cli_text o = { { NULL, 0, 0, 0, -1 }, NULL, 0 };
	TB_CLI_PRINT(&o, out, tb_json_str(&o.t, s, n));
	tb_cli_text_free(&o);
}

void tb_cli_text_begin(tb_cli_text *o)
{
	if (!o->buf && (o->buf = malloc(4096)) != NULL)
		o->cap = 4096;
	tb_text_init(&o->t, o->buf, o->cap);
}

/* 1: grown to the size the text said, write it again; 0: written. */
int tb_cli_text_again(tb_cli_text *o, FILE *out)
{
	char *p;
	if (tb_text_truncated(&o->t) && o->t.need < SIZE_MAX - 1 &&
	    (p = realloc(o->buf, o->t.need + 1)) != NULL) {
		o->buf = p;
		o->cap = o->t.need + 1;
		return 1;
	}
	if (o->t.len)
		fwrite(o->t.buf, 1, o->t.len, out);
	return 0;
}

void tb_cli_text_free(tb_cli_text *o)
{
	free(o->buf);
	o->buf = NULL;
	o->cap = 0;
}

int tb_cli_grow(void *ctx, char **buf, size_t *cap, size_t want)
{
	char *p = realloc(*buf, want);
	(void)ctx;
	if (!p)
		return -1;
	*buf = p;
	*cap = want;
	return 0;
}

int tb_cli_write_all(int fd, const void *p, size_t n)
{
	const char *b = p;
	while (n) {
		ssize_t k = write(fd, b, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			if (k == 0)
				errno = EIO;
			return -1;
		}
		b += k;
		n -= (size_t)k;
	}
	return 0;
}

/* fwrite copies every byte into stdio's buffer first: for report --jobs
 * that was 3.5% of all instructions, on the thread that writes. */
#define STDOUT_BLOCK_MIN ((size_t)16 << 10)

int tb_cli_stdout_block(const void *p, size_t n)
{
	if (n < STDOUT_BLOCK_MIN)
		return fwrite(p, 1, n, stdout) == n ? 0 : -1;
	if (fflush(stdout) != 0)
		return -1;
	return tb_cli_write_all(STDOUT_FILENO, p, n);
}
