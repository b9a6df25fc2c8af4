#include "testutil.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tracebound/tracebound.h"

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

/* Read a captured stream back as a NUL-terminated string, then remove it. */
static char *take_text(const char *path, size_t *len)
{
	char *t = (char *)tb_test_read_file(path, len);
	char *grown;
	if (!t) {
		*len = 0;
		t = malloc(1);
	} else if ((grown = realloc(t, *len + 1)) != NULL) {
		t = grown;
	} else {
		free(t);
		*len = 0;
		t = malloc(1);
	}
	if (!t)
		abort(); /* out of memory in a test: nothing sensible to report */
	t[*len] = '\0';
	unlink(path);
	return t;
}

void tb_test_sh(const char *cmd, tb_test_run *r)
{
	char dir[] = "/tmp/tb-test-run-XXXXXX", o[64], e[64];
	const char *root = getenv("TB_SRCDIR");
	const char *cli = getenv("TB_CLI");
	size_t n = strlen(cmd) + 256;
	char *full = malloc(n);
	int st;
	memset(r, 0, sizeof(*r));
	r->status = -1;
	if (!full || !mkdtemp(dir)) {
		free(full);
		return;
	}
	snprintf(o, sizeof(o), "%s/out", dir);
	snprintf(e, sizeof(e), "%s/err", dir);
	setenv("CLI", cli ? cli : "build/tracebound", 1);
	snprintf(full, n, "cd '%s' && { %s\n} >'%s' 2>'%s'", root ? root : TB_SRCDIR, cmd,
		 o, e);
	st = system(full);
	free(full);
	if (st != -1 && WIFEXITED(st))
		r->status = WEXITSTATUS(st);
	r->out = take_text(o, &r->out_len);
	r->err = take_text(e, &r->err_len);
	rmdir(dir);
}

void tb_test_cli(const char *args, tb_test_run *r)
{
	size_t n = strlen(args) + 16;
	char *cmd = malloc(n);
	if (!cmd) {
		memset(r, 0, sizeof(*r));
		r->status = -1;
		return;
	}
	snprintf(cmd, n, "\"$CLI\" %s", args);
	tb_test_sh(cmd, r);
	free(cmd);
}

void tb_test_run_free(tb_test_run *r)
{
	free(r->out);
	free(r->err);
	r->out = r->err = NULL;
}

size_t tb_test_count_lines(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += *s == '\n';
	return n;
}

uint8_t *tb_test_load(const char *dir, const char *name, size_t *len)
{
	char rel[512];
	uint8_t *b;
	snprintf(rel, sizeof(rel), "%s/%s", dir, name);
	b = tb_test_read_file(tb_test_path(rel), len);
	ck_assert_msg(b != NULL, "cannot read %s", rel);
	return b;
}

void tb_test_write_file(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(p, 1, n, f), n);
	ck_assert_int_eq(fclose(f), 0);
}

size_t tb_test_damage_cpu1_pages(uint8_t *dat, size_t len)
{
	static uint8_t arena_mem[64 << 20];
	tb_session_source src;
	tb_session *s;
	tb_error err;
	tb_arena a;
	tb_mem m;
	const tb_dat_cpu *cpu;
	size_t pg, n = 0;
	tb_arena_init(&a, arena_mem, sizeof(arena_mem));
	m = tb_arena_mem(&a);
	memset(&src, 0, sizeof(src));
	src.dat = dat;
	src.dat_len = len;
	ck_assert_int_eq(tb_session_open(&s, &src, NULL, &m, &err), TB_OK);
	cpu = &tb_session_dat(s)->buffers[0].cpus[1];
	for (pg = 3; pg * 4096 < cpu->size; pg += 37, n++)
		memset(dat + cpu->offset + pg * 4096 + 8, 0xff, 4);
	tb_session_close(s);
	return n;
}

static void *test_heap_alloc(void *ctx, size_t n)
{
	(void)ctx;
	return malloc(n);
}

static void test_heap_free(void *ctx, void *p, size_t n)
{
	(void)ctx;
	(void)n;
	free(p);
}

const tb_mem tb_test_heap = { test_heap_alloc, test_heap_free, NULL };

struct tb_session *tb_test_raw_session(const uint8_t *data, size_t len, uint32_t cpu,
				       const char *format_text)
{
	/* the session keeps pointers to the descriptions: one at a time */
	static tb_session_format_text ft;
	static tb_session_raw_cpu raw;
	tb_session_source src;
	tb_session *s = NULL;
	tb_error err;
	ft.system.ptr = "test";
	ft.system.len = 4;
	ft.text.ptr = format_text;
	ft.text.len = strlen(format_text);
	raw.cpu = cpu;
	raw.data = data;
	raw.len = len;
	memset(&src, 0, sizeof(src));
	src.raw = &raw;
	src.nraw = 1;
	src.formats = &ft;
	src.nformats = 1;
	ck_assert_int_eq(tb_session_open(&s, &src, NULL, &tb_test_heap, &err), TB_OK);
	return s;
}
