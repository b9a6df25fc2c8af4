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
#include <sys/stat.h>

#include "cli.h"
#include "events.h"
#include "opts.h"

int tb_cmd_formats(int argc, char **argv)
{
	static const tb_opt opts[] = {
		{ TB_OPT_JSON, "--json", NULL, NULL, "the formats as JSON" },
		{ 0, NULL, NULL, NULL, NULL },
	};
	tb_cli_events *ev;
	tb_opts p;
	struct stat sb;
	const char *dir;
	int rc;
	tb_opts_init(&p, "formats", "[--json] DIR", opts, argc, argv);
	if ((rc = tb_opts_parse(&p, "directory")) >= 0)
		return rc;
	dir = argv[1];
	if (stat(dir, &sb) == 0 && !S_ISDIR(sb.st_mode)) {
		/* a file is input that is not formats (status 1, as the other
		 * commands say of theirs), not a path that cannot be read */
		fprintf(stderr, "tracebound: %s: %s\n", dir,
			sb.st_size ? "not a directory of <system>/<event>/format files"
				   : "empty input (no <system>/<event>/format files)");
		return TB_EXIT_MALFORMED;
	}
	if (!(ev = tb_cli_events_load(dir, (unsigned)sizeof(long))))
		return TB_EXIT_USAGE;
	tb_cli_events_list(ev, stdout, p.v.json);
	rc = tb_cli_events_free(ev) ? TB_EXIT_MALFORMED : TB_EXIT_OK;
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "tracebound: error writing output\n");
		return TB_EXIT_USAGE;
	}
	return rc;
}
