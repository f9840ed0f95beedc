/*
 * main.c — the tiersim program: one binary, one subcommand per job. The
 * table below is the only place a subcommand is registered; every entry
 * answers --help and returns an exit status from commands.h.
 */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "core/opt.h"
#include "ts_config.h"

struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
};

/* The subcommands. */
static const struct cmd cmds[] = {
	{ "run", ts_cmd_run, "run a Lua scenario and print its report" },
	{ "compare", ts_cmd_compare, "run one scenario on several tiers and compare them" },
	{ "advise", ts_cmd_advise, "the smallest tier x vCPU x memory that loses nothing measurable" },
	{ "dlio", ts_cmd_dlio, "DLIO / MLPerf Storage workloads: AU of N accelerators on a tier, --find-max" },
	{ "tiers", ts_cmd_tiers, "list the tier profiles and their limits" },
	{ "hosts", ts_cmd_hosts, "list the host CPU profiles and their costs" },
	{ "engines", ts_cmd_engines, "list the GPU engine profiles and their published figures" },
	{ "prices", ts_cmd_prices, "list the instance and volume prices with their sources" },
	{ "validate", ts_cmd_validate, "run the validation cases: predicted vs measured on real systems" },
	{ "dataset", ts_cmd_dataset, "make the study's datasets (ImageNet JPEG/LMDB/RecordIO, PTB) or show their sizes" },
	{ "trace", ts_cmd_trace, "inspect, convert, import and export IO traces" },
	{ "replay", ts_cmd_replay, "replay a trace on tiers (--virtual) or against a directory" },
	{ "record", ts_cmd_record, "run a command on a tierfs mount, record it, predict other tiers" },
	{ "disk", ts_cmd_disk, "block mode: a disk image on a tier through a loop device, ext4/xfs mounted" },
	{ "calibrate", ts_cmd_calibrate, "measure decode cost or engine step times for profiles" },
};

struct main_args {
	bool version;
};

static const struct ts_opt main_opts[] = {
	{ "version", TS_OPT_BOOL, offsetof(struct main_args, version), "false", 0, 0, "",
	  "the version, and whether the cuda backend is built", NULL, 'V' },
	{ NULL },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: tiersim [--version] [--help] SUBCOMMAND [ARGS...]\n\n"
		   "Emulates cloud disk tiers under a FUSE mount and runs deep-learning\n"
		   "scenarios (preprocessing, training, inference) against them.\n\n"
		   "options:\n");
	ts_opt_help_args(f, main_opts);
	fprintf(f, "\nsubcommands:\n");
	for (size_t i = 0; i < TS_ARRAY_SIZE(cmds); i++)
		fprintf(f, "  %-10s %s\n", cmds[i].name, cmds[i].help);
	fprintf(f, "\n'tiersim SUBCOMMAND --help' (or 'tiersim help SUBCOMMAND') describes one "
		   "subcommand.\n"
		   "exit status: 0 done, 1 runtime failure, 2 usage error, 130 interrupted.\n");
}

static const struct cmd *find_cmd(const char *name)
{
	for (size_t i = 0; i < TS_ARRAY_SIZE(cmds); i++)
		if (!strcmp(cmds[i].name, name))
			return &cmds[i];
	return NULL;
}

int main(int argc, char **argv)
{
	struct main_args o = { 0 };
	struct ts_opt_args a;
	char err[256];
	if (argc < 2) {
		usage(stderr);
		return TS_EXIT_USAGE;
	}
	/* Options up to the subcommand are the program's; the rest are its. */
	if (ts_opt_parse_args(main_opts, &o, argc, argv, TS_OPT_ARGS_FIRST, &a, err, sizeof(err))) {
		fprintf(stderr, "tiersim: %s; 'tiersim --help' lists the options and subcommands\n",
			err);
		return TS_EXIT_USAGE;
	}
	if (o.version) {
		printf("tiersim %s (cuda backend %s)\n", TS_VERSION,
		       TS_HAVE_CUDA ? "built" : "not built");
		return TS_EXIT_OK;
	}
	const struct cmd *c = a.npos ? find_cmd(a.pos[0]) : NULL;
	if (a.help || (a.npos && !strcmp(a.pos[0], "help"))) {
		c = a.npos > 1 && !a.help ? find_cmd(a.pos[1]) : NULL;
		if (c) {
			char *sub[] = { a.pos[1], "--help", NULL };
			return c->fn(2, sub);
		}
		usage(stdout);
		return TS_EXIT_OK;
	}
	if (c)
		return c->fn(a.npos, a.pos);
	if (!a.npos) {
		usage(stderr);
		return TS_EXIT_USAGE;
	}
	fprintf(stderr, "tiersim: unknown subcommand '%s'; 'tiersim --help' lists them\n",
		a.pos[0]);
	return TS_EXIT_USAGE;
}
