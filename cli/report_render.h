/*
 * The rendered payload of `tracebound report` (its default output): each
 * event through its print fmt, as the kernel prints it, with symbols and
 * printk strings from the trace.dat's kallsyms and printk tables.
 * CLI-side: programs are compiled on an event's first record and kept.
 */
#ifndef TB_CLI_REPORT_RENDER_H
#define TB_CLI_REPORT_RENDER_H

#include "datfile.h"
#include "outbuf.h"

typedef struct tb_report_render tb_report_render;

/* NULL when memory runs out.  options: TB_RENDER_* (0 gives trace-cmd's
 * renderings where the kernel prints with its own code). */
tb_report_render *tb_report_render_new(const tb_datfile *df, unsigned options);
void tb_report_render_free(tb_report_render *rr);

/* Append the rendered payload of one record of format f. */
void tb_report_render_event(tb_report_render *rr, tb_outbuf *line, const tb_format *f,
			    const uint8_t *rec, size_t len);

#endif
