/*
 * cmd_calibrate.c — `tiersim calibrate decode|engine ...`: routes to the
 * part that owns each measurement. The decode calibration (pipeline) and
 * the engine calibration (engine) live in cli/calibrate_decode.c and
 * cli/calibrate_engine.c.
 */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: tiersim calibrate decode [ARGS...]   measure JPEG decode + resize cost per "
		   "image on this host\n"
		   "       tiersim calibrate engine [ARGS...]   measure step times and write an "
		   "engine profile\n"
		   "'tiersim calibrate decode --help' and 'tiersim calibrate engine --help' list "
		   "their arguments.\n");
}

int ts_cmd_calibrate(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return TS_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return TS_EXIT_OK;
	}
	if (!strcmp(argv[1], "decode")) {
		return ts_calibrate_decode(argc - 1, argv + 1);
	}
	if (!strcmp(argv[1], "engine")) {
		return ts_calibrate_engine(argc - 1, argv + 1);
	}
	fprintf(stderr, "tiersim calibrate: unknown target '%s' (known: decode, engine)\n", argv[1]);
	return TS_EXIT_USAGE;
}
