/*
 * The fields of an event as `trace-cmd report -R` prints them: for each
 * event field " name=value", the value printed with the conversion the
 * event's print fmt uses for exactly that field (when one matches, in the
 * order trace-cmd searches), else in libtraceevent's raw style.
 * CLI-side: it allocates per-event state lazily.
 */
#ifndef TB_CLI_RAWFIELDS_H
#define TB_CLI_RAWFIELDS_H

#include <stddef.h>
#include <stdint.h>

#include "tracebound/tracebound.h"

#include "outbuf.h"

/* The line being built: the library's bounded output buffer. */
typedef tb_outbuf rf_out;

/* printf into it (the rare conversions without a tb_ob_* helper). */
void rf_printf(rf_out *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Symbol lookups as libtraceevent does them. */
typedef struct rf_syms {
	const tb_ksym *ks;       /* sorted by address, equal addresses newest first */
	size_t nks;
	const char *ktext;       /* the kallsyms text the entries point into */
	const tb_printk_fmts *printk;
	unsigned long_size;
	int big_endian;
} rf_syms;

typedef struct rf_ctx rf_ctx;

/* State for nevents formats of a set (index = format - set->events). */
rf_ctx *rf_new(const tb_format_set *set, const rf_syms *syms);
void rf_free(rf_ctx *c);

/* Append the fields of one record of format fmt. */
void rf_fields(rf_ctx *c, rf_out *o, const tb_format *fmt, const uint8_t *rec,
	       size_t len);

/* Order kallsyms entries like libtraceevent and find like its bsearch. */
void rf_ksyms_prepare(tb_ksym *v, size_t n);
const tb_ksym *rf_find_func(const rf_syms *s, uint64_t addr);

#endif
