/*
 * cmd_calibrate.c — `tiersim calibrate decode|engine ...`: routes to the
 * part that owns each measurement. The decode calibration (pipeline) and
 * the engine calibration (engine) are compiled in when their sources are
 * present in cli/; a build without one says so and fails.
 */
#include <stdio.h>
#include <string.h>

#include "commands.h"

#ifndef TS_HAVE_CALIBRATE_DECODE
#define TS_HAVE_CALIBRATE_DECODE 0
#endif
#ifndef TS_HAVE_CALIBRATE_ENGINE
#define TS_HAVE_CALIBRATE_ENGINE 0
#endif

static void usage(FILE *f)
{
	fprintf(f, "usage: tiersim calibrate decode [ARGS...]   measure JPEG decode + resize cost per "
		   "image on this host\n"
		   "       tiersim calibrate engine [ARGS...]   measure step times and write an "
		   "engine profile\n"
		   "'tiersim calibrate decode --help' and 'tiersim calibrate engine --help' list "
		   "their arguments.\n");
}

#if !TS_HAVE_CALIBRATE_DECODE || !TS_HAVE_CALIBRATE_ENGINE
static int missing(const char *what, const char *part)
{
	fprintf(stderr, "tiersim calibrate %s: this build has no %s calibration (the %s sources "
			"were not present when it was configured); rebuild from a complete tree\n",
		what, what, part);
	return TS_EXIT_FAIL;
}
#endif

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
#if TS_HAVE_CALIBRATE_DECODE
		return ts_calibrate_decode(argc - 1, argv + 1);
#else
		return missing("decode", "pipeline");
#endif
	}
	if (!strcmp(argv[1], "engine")) {
#if TS_HAVE_CALIBRATE_ENGINE
		return ts_calibrate_engine(argc - 1, argv + 1);
#else
		return missing("engine", "engine");
#endif
	}
	fprintf(stderr, "tiersim calibrate: unknown target '%s' (known: decode, engine)\n", argv[1]);
	return TS_EXIT_USAGE;
}
