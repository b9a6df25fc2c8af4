/* Print a trace.dat the way `trace-cmd report` does: one rendered line per event. */
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
	tb_session_options opt = { TB_SESSION_SKIP_DAMAGED | TB_SESSION_TC_DROPS,
				   TB_RENDER_KNOWN_ENUMS | TB_RENDER_KERNEL_STYLE };
	tb_mem mem = { heap, unheap, NULL };
	tb_session *s;
	tb_session_event ev;
	tb_error err;
	if (!f || tb_session_open(&s, &src, &opt, &mem, &err) != TB_OK)
		return fprintf(stderr, "cannot open %s\n", argc > 1 ? argv[1] : "(no file)"), 1;
	printf("cpus=%u\n", tb_session_get_info(s)->ncpus);
	while (tb_session_next(s, &ev, &err) == TB_OK)
		if (tb_session_text(s, &ev, TB_TEXT_PRINT | TB_TEXT_LINE, line, sizeof(line), NULL)
		    == TB_OK)
			fputs(line, stdout);
	tb_session_close(s);
	return 0;
}
