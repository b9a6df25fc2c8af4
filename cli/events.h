/*
 * Event formats for the CLI: load a directory laid out like
 * /sys/kernel/tracing/events (header_page, <system>/<event>/format) into a
 * tb_format_set, and print decoded events as text or JSON.
 */
#ifndef TB_CLI_EVENTS_H
#define TB_CLI_EVENTS_H

#include <stdint.h>
#include <stdio.h>

#include "tracebound/tracebound.h"

typedef struct tb_cli_events tb_cli_events;

/*
 * Load every DIR/<system>/<event>/format.  A format that fails to parse is
 * reported on stderr (file, line, column, why) and the others are used.
 * long_size: the traced kernel's long (4 or 8).  NULL (after a message)
 * when DIR cannot be read or holds no format at all.
 */
tb_cli_events *tb_cli_events_load(const char *dir, unsigned long_size);

/* The loaded format texts, for a library session (NULL when memory ran out;
 * valid until tb_cli_events_free). */
const tb_session_format_text *tb_cli_events_texts(tb_cli_events *ev, size_t *n);
/* Count a record that does not fit its format (said at tb_cli_events_free). */
void tb_cli_events_count_bad(tb_cli_events *ev);

/*
 * Print one event record decoded through its format: 1 when printed, 0
 * when no format has the record's id (the caller prints it raw).  A record
 * its format does not fit is still printed (the fields that read, null
 * for the others) and counted.
 */
int tb_cli_events_print(tb_cli_events *ev, FILE *out, int cpu,
			uint64_t ts, const uint8_t *rec, size_t len, int big_endian);

/* Every loaded format and its fields (tracebound formats), text or JSON lines. */
void tb_cli_events_list(tb_cli_events *ev, FILE *out, int json);

/*
 * Free everything; first say on stderr how many formats failed to parse
 * and how many records did not fit their format.  Returns that number of
 * problems (0: all sound).
 */
size_t tb_cli_events_free(tb_cli_events *ev);

#endif
