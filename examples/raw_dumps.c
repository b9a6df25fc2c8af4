/*
 * Read raw trace_pipe_raw dumps (one file per CPU, named cpuN.raw) with the
 * formats of an events directory (/sys/kernel/tracing/events or a copy):
 *   raw_dumps EVENTS_DIR cpu0.raw cpu1.raw ...
 * and print each event's time, CPU, name and fields as JSON.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracebound/tracebound.h>

static void *heap(void *ctx, size_t n) { (void)ctx; return malloc(n); }
static void unheap(void *ctx, void *p, size_t n) { (void)ctx; (void)n; free(p); }

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *p = NULL;
	size_t cap = 0, n = 0, r;
	if (!f)
		return NULL;
	do {
		if (n == cap && !(p = realloc(p, cap = cap ? 2 * cap : 65536)))
			break;
		n += r = fread(p + n, 1, cap - n, f);
	} while (r > 0);
	fclose(f);
	*len = n;
	return p;
}

int main(int argc, char **argv)
{
	static tb_session_format_text fmts[8192];
	static tb_session_raw_cpu cpus[256];
	static char line[1 << 16], path[4096];
	tb_session_source src = { 0 };
	tb_mem mem = { heap, unheap, NULL };
	tb_session *s;
	tb_session_event ev;
	tb_error err;
	DIR *top, *sys;
	struct dirent *a, *b;
	int i;
	if (argc < 3 || !(top = opendir(argv[1])))
		return fprintf(stderr, "usage: raw_dumps EVENTS_DIR cpuN.raw...\n"), 2;
	while ((a = readdir(top)) && src.nformats < 8192) {
		snprintf(path, sizeof(path), "%s/%s", argv[1], a->d_name);
		if (a->d_name[0] == '.' || !(sys = opendir(path)))
			continue;
		while ((b = readdir(sys)) && src.nformats < 8192) {
			tb_session_format_text *t = &fmts[src.nformats];
			snprintf(path, sizeof(path), "%s/%s/%s/format", argv[1], a->d_name, b->d_name);
			if (b->d_name[0] == '.' || !(t->text.ptr = slurp(path, &t->text.len)))
				continue;
			t->system.ptr = strdup(a->d_name);
			t->system.len = strlen(a->d_name);
			src.nformats++;
		}
		closedir(sys);
	}
	closedir(top);
	snprintf(path, sizeof(path), "%s/header_page", argv[1]);
	src.header_page.ptr = slurp(path, &src.header_page.len);
	for (i = 2; i < argc && i - 2 < 256; i++) {
		const char *base = strrchr(argv[i], '/');
		cpus[i - 2].cpu = (uint32_t)atoi((base ? base + 1 : argv[i]) + 3); /* "cpuN" */
		cpus[i - 2].data = slurp(argv[i], &cpus[i - 2].len);
		if (!cpus[i - 2].data)
			return fprintf(stderr, "cannot read %s\n", argv[i]), 1;
	}
	src.raw = cpus;
	src.nraw = (size_t)(i - 2);
	src.formats = fmts;
	src.long_size = 8;
	if (tb_session_open(&s, &src, NULL, &mem, &err) != TB_OK)
		return fprintf(stderr, "%s at %llu\n", err.what, (unsigned long long)err.offset), 1;
	while (tb_session_next(s, &ev, &err) == TB_OK)
		if (tb_session_text(s, &ev, TB_TEXT_JSON, line, sizeof(line), NULL) == TB_OK)
			puts(line);
	tb_session_close(s);
	return 0;
}
