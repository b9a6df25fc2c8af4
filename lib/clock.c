/*
 * Clock names (clock.h): the one reading of a trace_clock text.
 */
#include "internal.h"
#include "tracebound/clock.h"

static int is_space(char c)
{
	return c == ' ' || c == '\n' || c == '\t' || c == '\r';
}

tb_span tb_clock_parse(const char *text, size_t len)
{
	tb_span r = { "local", 5 };
	const char *open = text && len ? memchr(text, '[', len) : NULL;
	if (!text)
		len = 0;
	const char *close = open ? memchr(open, ']', len - (size_t)(open - text)) : NULL;
	size_t i = 0, n = 0;
	if (open && close) {
		if (close > open + 1) {
			r.ptr = open + 1;
			r.len = (size_t)(close - open - 1);
		}
		return r;
	}
	while (i < len && is_space(text[i]))
		i++;
	while (i + n < len && !is_space(text[i + n]))
		n++;
	if (n) {
		r.ptr = text + i;
		r.len = n;
	}
	return r;
}

int tb_clock_counts_ns(tb_span c)
{
	return !c.len || tb_span_eq(c.ptr, c.len, "local") ||
	       tb_span_eq(c.ptr, c.len, "global") || tb_span_eq(c.ptr, c.len, "uptime") ||
	       tb_span_eq(c.ptr, c.len, "perf") || tb_span_starts(c.ptr, c.len, "mono") ||
	       tb_span_eq(c.ptr, c.len, "tsc2nsec") || tb_span_eq(c.ptr, c.len, "boot") ||
	       tb_span_eq(c.ptr, c.len, "tai");
}
