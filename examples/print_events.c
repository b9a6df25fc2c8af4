/* Print every event of a trace.dat: time, CPU, comm, name and fields as JSON. */
#include <stdio.h>
#include <stdlib.h>
#include <tracebound/tracebound.h>

static void *heap(void *ctx, size_t n) { (void)ctx; return malloc(n); }
static void unheap(void *ctx, void *p, size_t n) { (void)ctx; (void)n; free(p); }

int main(int argc, char **argv)
{
	static char file[1 << 26], line[1 << 16];
	FILE *f = argc > 1 ? fopen(argv[1], "rb") : NULL;
	tb_session_source src = { .dat = file, .dat_len = f ? fread(file, 1, sizeof(file), f) : 0 };
	tb_mem mem = { heap, unheap, NULL };
	tb_session *s;
	tb_session_event ev;
	tb_error err;
	tb_status st;
	if (!f || tb_session_open(&s, &src, NULL, &mem, &err) != TB_OK)
		return fprintf(stderr, "cannot open %s\n", argc > 1 ? argv[1] : "(no file)"), 1;
	while ((st = tb_session_next(s, &ev, &err)) == TB_OK) {
		(void)tb_session_text(s, &ev, TB_TEXT_JSON, line, sizeof(line), NULL);
		printf("%llu %u %.*s %.*s %s\n", (unsigned long long)ev.ts, ev.cpu, (int)ev.comm_len,
		       ev.comm, (int)ev.name.len, ev.name.ptr, line);
	}
	tb_session_close(s);
	return st == TB_END ? 0 : (fprintf(stderr, "%s at %llu\n", err.what,
					   (unsigned long long)err.offset), 1);
}
