/*
 * tracebound convert --to TARGET OUT INPUT...: one capture in another
 * tool's format.  Each target is one row here and one file
 * (cli/convert_TARGET.c) that does the work.
 */
#include <string.h>

#include "cli.h"

static const struct {
	const char *name;
	int (*run)(const char *target, int argc, char **argv);
	const char *help;
} targets[] = {
	{ "perfetto", tb_convert_perfetto, "a Perfetto protobuf trace (docs/perfetto.md)" },
};

static int usage(void)
{
	size_t i;
	fprintf(stderr, "usage: tracebound convert --to TARGET [OPTIONS] OUT INPUT...\ntargets:\n");
	for (i = 0; i < sizeof(targets) / sizeof(targets[0]); i++)
		fprintf(stderr, "  %-10s %s\n", targets[i].name, targets[i].help);
	return TB_EXIT_USAGE;
}

int tb_cmd_convert(int argc, char **argv)
{
	const char *to = NULL;
	size_t i;
	if (argc >= 3 && !strcmp(argv[1], "--to"))
		to = argv[2];
	else if (argc >= 2 && !strncmp(argv[1], "--to=", 5))
		to = argv[1] + 5;
	if (!to)
		return usage();
	/* argv[0] of the target: the word before its own options */
	if (to == argv[2]) {
		argc -= 2;
		argv += 2;
	} else {
		argc -= 1;
		argv += 1;
	}
	for (i = 0; i < sizeof(targets) / sizeof(targets[0]); i++)
		if (!strcmp(to, targets[i].name))
			return targets[i].run(to, argc, argv);
	fprintf(stderr, "tracebound: convert: unknown target '%s'\n", to);
	return usage();
}
