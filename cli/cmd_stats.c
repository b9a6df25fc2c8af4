/* tracebound stats: placeholder until its decoder lands. */
#include "cli.h"

int tb_cmd_stats(int argc, char **argv)
{
	(void)argc;
	fprintf(stderr, "tracebound: '%s' is not implemented yet\n", argv[0]);
	return TB_EXIT_USAGE;
}
