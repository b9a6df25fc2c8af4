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
	tb_cli_events *ev;
	static const tb_opt opts[] = {
		{ 1, "--json", NULL, NULL, "the formats as JSON" },
		{ 0, NULL, NULL, NULL, NULL },
	};
	int json = 0, rc = TB_EXIT_OK, id;
	tb_opts p;
	struct stat sb;
	const char *v, *dir = NULL;
	tb_opts_init(&p, "formats", "[--json] DIR", opts, argc, argv);
	while ((id = tb_opts_next(&p, &v)) != TB_OPTS_END) {
		if (id == TB_OPTS_HELP)
			return TB_EXIT_OK;
		if (id == TB_OPTS_ERROR)
			return TB_EXIT_USAGE;
		if (id == 1) {
			json = 1;
		} else if (dir) {
			return tb_opts_fail(&p, "a second directory '%s'", v);
		} else {
			dir = v;
		}
	}
	if (!dir)
		return tb_opts_usage(&p);
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
	tb_cli_events_list(ev, stdout, json);
	if (tb_cli_events_free(ev))
		rc = TB_EXIT_MALFORMED;
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "tracebound: error writing output\n");
		return TB_EXIT_USAGE;
	}
	return rc;
}
