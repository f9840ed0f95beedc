/*
 * cmd_run.c — `tiersim run SCRIPT.lua [key=value ...]` and `tiersim compare
 * SCRIPT.lua --tiers A,B,C`: run a scenario, print its table, write the
 * requested outputs. compare runs every configuration of the script once
 * per tier, in the order given, and names each row by its tier.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "runner.h"

static void usage(FILE *f, bool compare)
{
	if (compare)
		fprintf(f, "usage: tiersim compare SCRIPT.lua --tiers A,B[,...] [key=value ...] "
			   "[options]\n\n"
			   "Runs every configuration of SCRIPT on each tier and prints them side "
			   "by side,\nrelative to the best. Example:\n"
			   "  tiersim compare scripts/main.lua --tiers nvme-local,ssd-cloud,ultra-cloud\n\n");
	else
		fprintf(f, "usage: tiersim run SCRIPT.lua [key=value ...] [options]\n\n"
			   "Runs a Lua scenario (scripts/README.md describes the API) and prints "
			   "its report.\nname=value sets a parameter the script declares with "
			   "params{}; section.key=value\n(e.g. engine.batch=32, mount.mem=4GiB) "
			   "overrides a configuration key everywhere.\n\n");
	fprintf(f, "options:\n"
		   "  --tiers A,B,...   run each configuration on these tiers (tiersim tiers lists "
		   "them)\n"
		   "  --json FILE|-     write every number with its unit as JSON\n"
		   "  --csv FILE|-      write the rows as CSV (units in the header)\n"
		   "  --plot FILE       draw samples/s per configuration with gnuplot (.svg or "
		   ".png)\n"
		   "  --virtual         predict in virtual time (tier model + engine profiles + "
		   "decode\n"
		   "                    calibration) instead of running in real time\n"
		   "  --workdir DIR     datasets, mounts and scratch space (default "
		   "$TIERSIM_WORKDIR,\n"
		   "                    else ~/.cache/tiersim)\n"
		   "  --keep            keep what the scenario wrote (converted LMDBs)\n"
		   "  --quiet           no progress or per-configuration lines\n"
		   "  -h, --help        this text\n\n"
		   "exit status: 0 done, 1 the scenario failed (script error, mount failure),\n"
		   "2 bad command line (unknown option, tier or key), 130 interrupted (every "
		   "mount removed).\n");
}

static int split_tiers(char *list, struct ts_runner_opts *o)
{
	for (char *save, *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (!*t)
			continue;
		if (o->ntiers == TS_RUNNER_MAX_TIERS)
			return -E2BIG;
		o->tiers[o->ntiers++] = t;
	}
	return o->ntiers ? 0 : -EINVAL;
}

static int run_main(int argc, char **argv, bool compare)
{
	const char *name = compare ? "compare" : "run";
	static const struct option lo[] = {
		{ "tiers", required_argument, NULL, 't' },
		{ "json", required_argument, NULL, 'j' },
		{ "csv", required_argument, NULL, 'c' },
		{ "plot", required_argument, NULL, 'p' },
		{ "virtual", no_argument, NULL, 'v' },
		{ "workdir", required_argument, NULL, 'w' },
		{ "keep", no_argument, NULL, 'k' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct ts_runner_opts o;
	memset(&o, 0, sizeof(o));
	const char *json = NULL, *csv = NULL, *plot = NULL;
	char *tiers = NULL;
	int c;
	optind = 1;
	/* "+" would stop at the script; keep GNU permutation so options may
	 * follow it, as the usage line shows. */
	while ((c = getopt_long(argc, argv, "hq", lo, NULL)) != -1) {
		switch (c) {
		case 't': tiers = optarg; break;
		case 'j': json = optarg; break;
		case 'c': csv = optarg; break;
		case 'p': plot = optarg; break;
		case 'v': o.virtual_time = true; break;
		case 'w': o.workdir = optarg; break;
		case 'k': o.keep = true; break;
		case 'q': o.quiet = true; break;
		case 'h': usage(stdout, compare); return TS_EXIT_OK;
		default: usage(stderr, compare); return TS_EXIT_USAGE;
		}
	}
	for (int i = optind; i < argc; i++) {
		if (!o.script && !strchr(argv[i], '=')) {
			o.script = argv[i];
		} else if (strchr(argv[i], '=')) {
			if (o.nkv == TS_RUNNER_MAX_OVERRIDES) {
				fprintf(stderr, "tiersim %s: at most %d key=value arguments\n", name,
					TS_RUNNER_MAX_OVERRIDES);
				return TS_EXIT_USAGE;
			}
			o.kv[o.nkv++] = argv[i];
		} else {
			fprintf(stderr, "tiersim %s: unexpected argument '%s' (parameters are "
					"key=value)\n", name, argv[i]);
			return TS_EXIT_USAGE;
		}
	}
	if (!o.script) {
		fprintf(stderr, "tiersim %s: no scenario given (e.g. tiersim %s scripts/main.lua%s)\n",
			name, name, compare ? " --tiers nvme-local,ssd-cloud,ultra-cloud" : "");
		return TS_EXIT_USAGE;
	}
	char *tiers_copy = tiers ? strdup(tiers) : NULL;
	if (tiers && (!tiers_copy || split_tiers(tiers_copy, &o))) {
		fprintf(stderr, "tiersim %s: --tiers %s: expected a comma-separated list of at most "
				"%d tier names\n", name, tiers, TS_RUNNER_MAX_TIERS);
		free(tiers_copy);
		return TS_EXIT_USAGE;
	}
	if (compare && !o.ntiers) {
		fprintf(stderr, "tiersim compare: --tiers A,B,... is required (tiersim tiers lists "
				"them)\n");
		return TS_EXIT_USAGE;
	}
	if (plot) {
		const char *ext = strrchr(plot, '.');
		if (!ext || (strcasecmp(ext, ".svg") && strcasecmp(ext, ".png"))) {
			fprintf(stderr, "tiersim %s: --plot %s: the file must end in .svg or .png\n",
				name, plot);
			free(tiers_copy);
			return TS_EXIT_USAGE;
		}
	}

	ts_runner_signals();
	struct ts_runner R;
	char err[2048] = "";
	int status;
	int rc = ts_runner_main(&R, &o, name, &status);
	/* Whatever ran is reported, also after a failure. */
	if (R.report.n) {
		bool stdout_busy = (json && !strcmp(json, "-")) || (csv && !strcmp(csv, "-"));
		ts_report_print(&R.report, stdout_busy ? stderr : stdout);
		fflush(stdout);
		if (json && (rc = ts_report_write_json(&R.report, json))) {
			fprintf(stderr, "tiersim %s: --json %s: %s\n", name, json, ts_strerror(rc));
			status = status ? status : TS_EXIT_FAIL;
		}
		if (csv && (rc = ts_report_write_csv(&R.report, csv))) {
			fprintf(stderr, "tiersim %s: --csv %s: %s\n", name, csv, ts_strerror(rc));
			status = status ? status : TS_EXIT_FAIL;
		}
		if (plot && (rc = ts_report_plot(&R.report, plot, err, sizeof(err)))) {
			fprintf(stderr, "tiersim %s: %s\n", name, err);
			status = status ? status : TS_EXIT_FAIL;
		}
	}
	ts_runner_free(&R);
	free(tiers_copy);
	return status;
}

int ts_cmd_run(int argc, char **argv)
{
	return run_main(argc, argv, false);
}

int ts_cmd_compare(int argc, char **argv)
{
	return run_main(argc, argv, true);
}
