/*
 * main.c — the tiersim program: one binary, one subcommand per job. The
 * table below is the only place a subcommand is registered; every entry
 * answers --help and returns an exit status from commands.h.
 */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "ts_config.h"

struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
};

#ifndef TS_HAVE_RUNNER
#define TS_HAVE_RUNNER 0
#endif
#ifndef TS_HAVE_TIERS
#define TS_HAVE_TIERS 0
#endif
#ifndef TS_HAVE_DATASET
#define TS_HAVE_DATASET 0
#endif
#ifndef TS_HAVE_TRACE
#define TS_HAVE_TRACE 0
#endif
#ifndef TS_HAVE_REPLAY
#define TS_HAVE_REPLAY 0
#endif

/* The subcommands; a part's line sits under the part it needs. */
static const struct cmd cmds[] = {
#if TS_HAVE_RUNNER
	{ "run", ts_cmd_run, "run a Lua scenario and print its report" },
	{ "compare", ts_cmd_compare, "run one scenario on several tiers and compare them" },
	{ "advise", ts_cmd_advise, "the smallest tier x vCPU x memory that loses nothing measurable" },
	{ "dlio", ts_cmd_dlio, "DLIO / MLPerf Storage workloads: AU of N accelerators on a tier, --find-max" },
#endif
#if TS_HAVE_TIERS
	{ "tiers", ts_cmd_tiers, "list the tier profiles and their limits" },
#endif
#if TS_HAVE_DATASET
	{ "dataset", ts_cmd_dataset, "make the study's datasets (ImageNet JPEG/LMDB/RecordIO, PTB) or show their sizes" },
#endif
#if TS_HAVE_TRACE
	{ "trace", ts_cmd_trace, "inspect, convert, import and export IO traces" },
#endif
#if TS_HAVE_REPLAY
	{ "replay", ts_cmd_replay, "replay a trace on tiers (--virtual) or against a directory" },
#endif
	{ "calibrate", ts_cmd_calibrate, "measure decode cost or engine step times for profiles" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: tiersim [--version] [--help] SUBCOMMAND [ARGS...]\n\n"
		   "Emulates cloud disk tiers under a FUSE mount and runs deep-learning\n"
		   "scenarios (preprocessing, training, inference) against them.\n\n"
		   "subcommands:\n");
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		fprintf(f, "  %-10s %s\n", cmds[i].name, cmds[i].help);
	fprintf(f, "\n'tiersim SUBCOMMAND --help' describes one subcommand.\n"
		   "exit status: 0 done, 1 runtime failure, 2 usage error, 130 interrupted.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return TS_EXIT_USAGE;
	}
	const char *name = argv[1];
	if (!strcmp(name, "--version") || !strcmp(name, "-V")) {
		printf("tiersim %s (cuda backend %s)\n", TS_VERSION,
		       TS_HAVE_CUDA ? "built" : "not built");
		return TS_EXIT_OK;
	}
	if (!strcmp(name, "--help") || !strcmp(name, "-h") || !strcmp(name, "help")) {
		if (argc > 2 && strcmp(name, "help") == 0) {
			char *sub[] = { argv[2], "--help", NULL };
			for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
				if (!strcmp(cmds[i].name, argv[2]))
					return cmds[i].fn(2, sub);
		}
		usage(stdout);
		return TS_EXIT_OK;
	}
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(cmds[i].name, name))
			return cmds[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "tiersim: unknown subcommand '%s'; 'tiersim --help' lists them\n", name);
	return TS_EXIT_USAGE;
}
