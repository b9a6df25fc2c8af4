/* Inputs read as far as their format needs (cli.h's tb_cli_input). */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "budget.h"
#include "cli.h"

/* Said once, as tb_cli_load says it; -1. */
static int input_error(const tb_cli_input *in, int e)
{
	fprintf(stderr, "tracebound: %s: %s\n", in->name,
		e == ENOMEM ? "out of memory" : strerror(e));
	return -1;
}

int tb_cli_input_open(tb_cli_input *in, const char *path)
{
	int fd, rc;
	memset(in, 0, sizeof(*in));
	in->fd = -1;
	in->name = strcmp(path, "-") ? path : "(stdin)";
	/* stdin through a copy of it: closing the input never closes fd 0 */
	fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : fcntl(0, F_DUPFD_CLOEXEC, 3);
	if (fd < 0)
		return input_error(in, errno);
	rc = tb_input_map(fd, &in->f, 1);
	if (rc < 0)
		return input_error(in, errno);
	if (rc == 1)
		in->fd = fd;
	return 0;
}

/* Bytes [pos, have) of buf kept, moved to its start, and read on until
 * there are n (or the input ends): 0, or -1 said. */
static int fill(tb_cli_input *in, size_t n)
{
	size_t keep = in->have - in->pos;
	if (in->cap < n) {
		uint8_t *nb = malloc(n);
		if (!nb)
			return input_error(in, ENOMEM);
		if (keep)
			memcpy(nb, in->buf + in->pos, keep);
		free(in->buf);
		in->buf = nb;
		in->cap = n;
	} else if (in->pos && keep) {
		memmove(in->buf, in->buf + in->pos, keep);
	}
	in->have = keep;
	in->pos = 0;
	while (in->have < n && !in->eof) {
		ssize_t got = read(in->fd, in->buf + in->have, n - in->have);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return input_error(in, errno);
		in->eof = got == 0;
		in->have += (size_t)got;
	}
	return 0;
}

/* The bytes read and not handed out (none before the first read). */
static const uint8_t *left(const tb_cli_input *in)
{
	return in->buf ? in->buf + in->pos : NULL;
}

int tb_cli_input_head(tb_cli_input *in, size_t n, const uint8_t **p, size_t *len)
{
	if (in->fd < 0) {
		*p = in->f.data;
		*len = in->f.len;
		return 0;
	}
	if (in->have - in->pos < n && fill(in, n) != 0)
		return -1;
	*p = left(in);
	*len = in->have - in->pos;
	return 0;
}

int tb_cli_input_piece(tb_cli_input *in, size_t n, const uint8_t **p, size_t *len)
{
	if (in->fd < 0) {
		/* a mapping: what is left of it, at once */
		*p = in->f.data ? in->f.data + in->f_pos : NULL;
		*len = in->f.len - in->f_pos;
		in->f_pos = in->f.len;
		return 0;
	}
	if (tb_cli_input_head(in, n, p, len) != 0)
		return -1;
	if (*len > n)
		*len = n;
	in->pos += *len;
	return 0;
}

int tb_cli_input_take(tb_cli_input *in, size_t max, tb_cli_file *f)
{
	int rc = 0;
	if (in->fd >= 0 &&
	    tb_input_read_rest(in->fd, left(in), in->have - in->pos, &in->f, max) != 0) {
		if (errno == EFBIG) {
			char msg[256];
			tb_cli_budget_note((uint64_t)max + 1, in->name);
			(void)tb_cli_budget_message(msg, sizeof(msg));
			fprintf(stderr, "tracebound: %s: %s (reading it whole)\n", in->name, msg);
			rc = -2;
		} else {
			(void)input_error(in, errno);
			rc = -1;
		}
	}
	*f = in->f;
	memset(&in->f, 0, sizeof(in->f));
	tb_cli_input_close(in);
	return rc;
}

int tb_cli_input_subbuf(tb_cli_input *in, tb_kbuf_stream *s, tb_kbuf *kb, tb_error *e,
			tb_status *st)
{
	while ((*st = tb_kbuf_stream_next(s, kb, e)) == TB_END) {
		const uint8_t *p;
		size_t n;
		if (tb_cli_input_piece(in, s->layout.subbuf_size, &p, &n) != 0)
			return -1;
		if (n == 0)
			break;
		tb_kbuf_stream_feed(s, p, n);
	}
	return 0;
}

void tb_cli_input_close(tb_cli_input *in)
{
	tb_input_free(&in->f);
	free(in->buf);
	if (in->fd >= 0)
		(void)close(in->fd);
	memset(in, 0, sizeof(*in));
	in->fd = -1;
}
