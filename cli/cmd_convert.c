/*
 * tracebound convert --to FORMAT ...: one dispatcher, one file per output
 * format (convert_parquet.c, ...).  Each converter gets argv from its own
 * options on (argv[0] is "convert").
 */
#include <string.h>

#include "cli.h"

static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
} converters[] = {
	{ "parquet", tb_convert_parquet },
	{ "perfetto", tb_convert_perfetto },
};

int tb_cmd_convert(int argc, char **argv)
{
	size_t i;
	const char *to = NULL;
	if (argc >= 3 && !strcmp(argv[1], "--to"))
		to = argv[2];
	else if (argc >= 2 && !strncmp(argv[1], "--to=", 5))
		to = argv[1] + 5;
	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("usage: tracebound convert --to FORMAT [OPTIONS] OUTPUT FILE...\nformats:");
		for (i = 0; i < sizeof(converters) / sizeof(converters[0]); i++)
			printf(" %s", converters[i].name);
		printf("\n(tracebound convert --to FORMAT --help lists its options)\n");
		return TB_EXIT_OK;
	}
	if (to)
		for (i = 0; i < sizeof(converters) / sizeof(converters[0]); i++)
			if (!strcmp(to, converters[i].name))
				return converters[i].run(argc - (argv[1][4] ? 1 : 2),
							 argv + (argv[1][4] ? 1 : 2));
	if (to)
		fprintf(stderr, "tracebound convert: unknown format '%s'\n", to);
	fprintf(stderr, "usage: tracebound convert --to FORMAT OUTPUT FILE...\nformats:");
	for (i = 0; i < sizeof(converters) / sizeof(converters[0]); i++)
		fprintf(stderr, " %s", converters[i].name);
	fprintf(stderr, "\n");
	return TB_EXIT_USAGE;
}
