/*
 * cmd_run.c — `tiersim run SCRIPT.lua [key=value ...]` and `tiersim compare
 * SCRIPT.lua --tiers A,B,C`: run a scenario, print its table, write the
 * requested outputs. compare runs every configuration of the script once
 * per tier, in the order given, and names each row by its tier.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/interrupt.h"
#include "cli/commands.h"
#include "pipeline/timeline.h"
#include "scenario/runner.h"
#include "cli/script_args.h"

struct run_args {
	struct ts_opt_list tiers;
	struct ts_script_out out;
	bool virtual_time, keep, band;
	char *timeline;
	uint64_t timeline_max;
};

static const struct ts_opt run_opts[] = {
	{ "tiers", TS_OPT_LIST, offsetof(struct run_args, tiers), NULL, 0, TS_RUNNER_MAX_TIERS, "",
	  "run each configuration on these tiers (tiersim tiers lists them)" },
	TS_SCRIPT_OUT_OPTS(struct run_args, out,
			   "draw samples/s per configuration with gnuplot (.svg or .png)"),
	{ "virtual", TS_OPT_BOOL, offsetof(struct run_args, virtual_time), "false", 0, 0, "",
	  "predict in virtual time (tier model + engine profiles + decode calibration) "
	  "instead of running in real time" },
	{ "keep", TS_OPT_BOOL, offsetof(struct run_args, keep), "false", 0, 0, "",
	  "keep what the scenario wrote (converted LMDBs)" },
	{ "timeline", TS_OPT_STR, offsetof(struct run_args, timeline), NULL, 0, 0, "",
	  "write a timeline of every training/inference row as Chrome trace JSON "
	  "(ui.perfetto.dev, chrome://tracing): engine steps, batches, reads, decodes, tier "
	  "requests", "FILE" },
	/* Default cap, assumed: ~142 bytes a slice (measured: 777,777 slices of
	 * scripts/tier_training.lua --virtual iterations=3000 in 110.6 MB)
	 * makes 5M slices ~0.71 GB, about what a browser tab of ui.perfetto.dev
	 * or chrome://tracing still loads (low 1M, high 20M by the machine's
	 * memory). */
	{ "timeline_max", TS_OPT_U64, offsetof(struct run_args, timeline_max), "5000000", 0, 0,
	  "events", "with --timeline: slices written at most, then a notice (0 = no cap)", "N" },
	{ "band", TS_OPT_BOOL, offsetof(struct run_args, band), "false", 0, 0, "",
	  "with --virtual: run each row again at both ends of every ranged tier, host and engine "
	  "parameter (tiersim tiers|hosts|engines --evidence) and print the range of samples/s "
	  "and AU it makes" },
	{ NULL },
};

#define RUN_TAIL                                                                             \
	"exit status: 0 done, 1 the scenario failed (script error, mount failure),\n"         \
	"2 bad command line (unknown option, tier or key), 130 interrupted (every\n"          \
	"mount removed).\n"

static const struct ts_cmdline run_cmdline = {
	.name = "run",
	.synopsis = "SCRIPT.lua [key=value ...] [options]",
	.about = "Runs a Lua scenario (scripts/README.md describes the API) and prints its report.\n"
		 "name=value sets a parameter the script declares with params{}; section.key=value\n"
		 "(e.g. engine.batch=32, mount.mem=4GiB) overrides a configuration key everywhere.\n",
	.opts = run_opts,
	.tail = RUN_TAIL,
	.max_pos = -1,
};

static const struct ts_cmdline compare_cmdline = {
	.name = "compare",
	.synopsis = "SCRIPT.lua --tiers A,B[,...] [key=value ...] [options]",
	.about = "Runs every configuration of SCRIPT on each tier and prints them side by side,\n"
		 "relative to the best. Example:\n"
		 "  tiersim compare scripts/main.lua --tiers nvme-local,ssd-cloud,ultra-cloud\n",
	.opts = run_opts,
	.tail = RUN_TAIL,
	.max_pos = -1,
};

static int run_main(int argc, char **argv, bool compare)
{
	const struct ts_cmdline *cl = compare ? &compare_cmdline : &run_cmdline;
	struct ts_runner_opts o = { 0 };
	struct run_args args = { 0 };
	struct ts_opt_args a;
	int status = ts_cmdline_parse(cl, &args, argc, argv, &a);
	if (status >= 0)
		return status;
	status = ts_script_args(cl, &a, &args.out, TS_RUNNER_MAX_OVERRIDES,
				compare ? "tiersim compare scripts/main.lua --tiers "
					  "nvme-local,ssd-cloud,ultra-cloud"
					: "tiersim run scripts/main.lua",
				&o);
	if (status < 0 && args.band && !args.virtual_time)
		status = ts_cmdline_error(cl, "--band needs --virtual: it reruns every row at the "
					      "ends of each ranged parameter");
	if (status < 0 && compare && !args.tiers.n)
		status = ts_cmdline_error(cl, "--tiers A,B,... is required (tiersim tiers lists "
					      "them)");
	if (status >= 0) {
		ts_opt_free(run_opts, &args);
		return status;
	}
	for (size_t i = 0; i < args.tiers.n; i++)
		o.tiers[o.ntiers++] = args.tiers.v[i];
	o.virtual_time = args.virtual_time;
	o.keep = args.keep;
	o.band = args.band;

	/* The timeline file first: a path that cannot be written stops here,
	 * before anything runs. */
	char err[2048] = "";
	struct ts_timeline *tl = NULL;
	if (args.timeline &&
	    ts_timeline_open(args.timeline, o.virtual_time ? "virtual" : "real", args.timeline_max,
			     &tl, err, sizeof(err))) {
		fprintf(stderr, "tiersim %s: --timeline %s\n", cl->name, err);
		ts_opt_free(run_opts, &args);
		return TS_EXIT_FAIL;
	}
	o.timeline = tl;

	ts_interrupt_install();
	struct ts_runner R;
	bool usage;
	int rc = ts_runner_script(&R, &o, &usage, err, sizeof(err));
	status = rc ? ts_script_fail(cl->name, rc, usage, err) : TS_EXIT_OK;
	if (tl) {
		uint64_t n = ts_timeline_events(tl), dropped = ts_timeline_dropped(tl);
		bool capped = ts_timeline_capped(tl);
		if ((rc = ts_timeline_close(tl, err, sizeof(err)))) {
			fprintf(stderr, "tiersim %s: --timeline %s\n", cl->name, err);
			status = status ? status : TS_EXIT_FAIL;
		} else if (capped) {
			fprintf(stderr, "tiersim %s: --timeline %s: stopped at --timeline-max %llu "
					"events; %llu later ones left out (raise it, 0 = no cap)\n",
				cl->name, args.timeline, (unsigned long long)n,
				(unsigned long long)dropped);
		} else if (!args.out.quiet) {
			fprintf(stderr, "tiersim %s: timeline %s: %llu events\n", cl->name,
				args.timeline, (unsigned long long)n);
		}
	}
	/* Whatever ran is reported, also after a failure. */
	if (R.report.n) {
		ts_report_print(&R.report, ts_script_table_stream(&args.out));
		fflush(stdout);
		status = ts_script_write(cl, &R.report, &args.out, status);
		if (args.out.plot && (rc = ts_report_plot(&R.report, args.out.plot, err, sizeof(err)))) {
			fprintf(stderr, "tiersim %s: %s\n", cl->name, err);
			status = status ? status : TS_EXIT_FAIL;
		}
	}
	ts_runner_free(&R);
	ts_opt_free(run_opts, &args);
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
