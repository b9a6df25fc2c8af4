/*
 * tracebound formats: list the event formats of a directory laid out like
 * /sys/kernel/tracing/events, every event with its fields.
 *
 *   tracebound formats [--json] DIR
 *
 * A format that fails to parse is reported on stderr (file, line, column,
 * why), the others are listed, and the exit status is 1.
 */
#include <string.h>

#include "cli.h"
#include "events.h"

int tb_cmd_formats(int argc, char **argv)
{
	tb_cli_events *ev;
	int json = 0, i = 1, rc = TB_EXIT_OK;
	if (i < argc && !strcmp(argv[i], "--json")) {
		json = 1;
		i++;
	}
	if (i + 1 != argc || argv[i][0] == '-') {
		fprintf(stderr, "usage: tracebound formats [--json] DIR\n");
		return TB_EXIT_USAGE;
	}
	if (!(ev = tb_cli_events_load(argv[i], (unsigned)sizeof(long))))
		return TB_EXIT_USAGE;
	tb_cli_events_list(ev, stdout, json);
	if (tb_cli_events_free(ev))
		rc = TB_EXIT_MALFORMED;
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "tracebound: error writing output\n");
		return TB_EXIT_USAGE;
	}
	return rc;
}
