/*
 * cmd_advise.c — `tiersim advise SCRIPT.lua [--tiers ...] [--vcpus ...]
 * [--mem ...] [--tolerance 2%]`: the smallest instance that loses nothing
 * measurable for a scenario.
 *
 * The scenario runs once per point of the grid disk tier x vCPUs x memory
 * (vCPUs = pipeline.vcpus, the decode workers; memory = mount.mem, the
 * page-cache model's size), each point a command-line override of the
 * script, through the same runner as `tiersim run` (virtual time unless
 * --real). Every row the script produces belongs to a workload: the row's
 * configuration less the three grid keys. Per workload:
 *
 *   best         the highest samples/s on the grid;
 *   spread       the run-to-run spread at the best point, (max - min) / max
 *                over the grid's run and --repeats more runs with other
 *                seeds (mount.seed: the tier's latency draws; pipeline.seed:
 *                the shuffle) — the smallest difference that is measurable;
 *   tolerance    --tolerance, relative to the best, raised to the spread
 *                where the spread is larger;
 *   recommended  the cheapest point within the tolerance of the best.
 *
 * "Cheapest" there is an order by resources: fewer vCPUs, then less memory,
 * then the lower disk tier, tiers ordered by their caps at the scenario's
 * capacity (read MB/s, then read IOPS). With an instance (--instance, or
 * the grid of --instances, which replaces the vCPU and memory axes by whole
 * instances in that order) every row is priced (cost/), and advise says
 * beside it which point within the tolerance costs least per epoch (per
 * sample: the same order) and what the runner-up costs, and which point
 * gives the most samples/s per dollar anywhere. --deadline and --budget
 * (with --epochs) ask for the cheapest point that finishes that many
 * epochs in that time within that money, whatever its samples/s.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "core/interrupt.h"
#include "scenario/advise.h"
#include "scenario/runner.h"
#include "cli/script_args.h"
#include "core/units.h"

/* The command line. --vcpus, --mem and --tolerance are read by this file's
 * parsers (sorted, distinct axes; a percentage). */
struct advise_args {
	struct ts_opt_list tiers;
	char *vcpus, *mem, *tolerance, *instances, *budget, *deadline;
	uint64_t repeats, epochs;
	struct ts_script_out out;
	bool virtual_time, real, band;
};

#define AA(f) offsetof(struct advise_args, f)
static const struct ts_opt advise_opts[] = {
	{ "tiers", TS_OPT_LIST, AA(tiers), "nvme-local,ssd-cloud,ultra-cloud", 0,
	  TS_RUNNER_MAX_TIERS, "", "disk tiers (tiersim tiers lists them)" },
	{ "vcpus", TS_OPT_STR, AA(vcpus), NULL, 0, 0, "",
	  "vCPU counts (default 2,4,8,16 per GPU of the scenario)", "N,N,..." },
	{ "mem", TS_OPT_STR, AA(mem), NULL, 0, 0, "",
	  "memory sizes (default 4,16,30,60 GiB per GPU; gn5 gives a P100 30 or 60 GiB)",
	  "S,S,..." },
	{ "tolerance", TS_OPT_STR, AA(tolerance), "2%", 0, 0, "",
	  "how much below the best still counts as no loss; raised to the run-to-run spread "
	  "where that is larger", "P%" },
	{ "instances", TS_OPT_STR, AA(instances), NULL, 0, 0, "",
	  "instances of the price profiles (tiersim prices) as the grid's axis instead of "
	  "--vcpus and --mem: each brings its vCPUs, memory, GPUs and host, and prices its rows",
	  "A,B,..." },
	{ "budget", TS_OPT_STR, AA(budget), NULL, 0, 0, "",
	  "priced rows: the most --epochs may cost, in US dollars", "$" },
	{ "deadline", TS_OPT_STR, AA(deadline), NULL, 0, 0, "",
	  "priced rows: the time --epochs must finish in (2h, 90m, 3600s)", "TIME" },
	{ "epochs", TS_OPT_U64, AA(epochs), "1", 1, 100000, "epochs",
	  "epochs --budget and --deadline are for" },
	{ "repeats", TS_OPT_U64, AA(repeats), "3", 0, TS_ADVISE_REPEATS_MAX, "runs",
	  "reruns of each workload's best point with other seeds to measure the spread "
	  "(0 = do not measure)" },
	TS_SCRIPT_OUT_OPTS(struct advise_args, out,
			   "samples/s per tier x vCPU at each workload's recommended memory, with "
			   "gnuplot (.svg or .png)"),
	{ "virtual", TS_OPT_BOOL, AA(virtual_time), "false", 0, 0, "",
	  "predict in virtual time (the default)" },
	{ "real", TS_OPT_BOOL, AA(real), "false", 0, 0, "",
	  "run in real time through tierfs mounts (small grids)" },
	{ "band", TS_OPT_BOOL, AA(band), "false", 0, 0, "",
	  "also at both ends of every ranged tier, host and engine parameter (tiersim "
	  "tiers|hosts|engines --evidence): the recommendation is robust only when it is the same "
	  "at both" },
	{ NULL },
};

static const struct ts_cmdline advise_cmdline = {
	.name = "advise",
	.synopsis = "SCRIPT.lua [key=value ...] [--tiers A,B,...] [--vcpus 2,4,...]\n"
		    "                      [--mem 4GiB,16GiB,...] [--tolerance 2%] [options]",
	.about = "Runs every configuration of SCRIPT on the grid disk tier x vCPUs x memory and\n"
		 "recommends, per workload, the cheapest grid point whose samples/s is within the\n"
		 "tolerance of the best. vCPUs are the decode workers (pipeline.vcpus), memory\n"
		 "the page-cache model (mount.mem). With --real and mount.fs=ext4 (or xfs) each\n"
		 "point runs in block mode, memory then the job's memory cgroup. Example:\n"
		 "  tiersim advise scripts/main.lua --vcpus 2,4,8 --mem 4GiB,16GiB,60GiB\n",
	.opts = advise_opts,
	.tail = "Cheapest = fewer vCPUs, then less memory, then the tier with the lower caps\n"
		"(read MB/s, then IOPS): an order by resources. With --instance or --instances\n"
		"the rows are priced and advise also names the point within the tolerance that\n"
		"costs least per epoch, its runner-up, and the most samples/s per dollar.\n"
		"exit status: 0 done, 1 the scenario failed, 2 bad command line, 130 interrupted.\n",
	.max_pos = -1,
};

/* The command line into @A and @args. Returns -1 to go on, or the exit
 * status after --help or one line. */
static int advise_args(struct ts_advise *A, struct advise_args *args, int argc, char **argv)
{
	const struct ts_cmdline *cl = &advise_cmdline;
	struct ts_opt_args a;
	char err[1024] = "";
	int rc = ts_cmdline_parse(cl, args, argc, argv, &a);
	if (rc >= 0)
		return rc;
	if (args->real && args->virtual_time)
		return ts_cmdline_error(cl, "give --virtual or --real, not both");
	A->base.virtual_time = !args->real;
	if (args->band && args->real)
		return ts_cmdline_error(cl, "--band runs in virtual time; it cannot go with --real");
	A->base.band = args->band;
	A->repeats = (unsigned)args->repeats;
	A->epochs = (unsigned)args->epochs;
	/* The grid's overrides and the seeds take 8 of the runner's key=value. */
	if ((rc = ts_script_args(cl, &a, &args->out, TS_RUNNER_MAX_OVERRIDES - 8,
				 "tiersim advise scripts/main.lua", &A->base)) >= 0)
		return rc;
	/* The grid keys belong to the grid. */
	for (size_t i = 0; i < A->base.nkv; i++) {
		const char *kv = A->base.kv[i];
		size_t kl = strcspn(kv, "=");
		if ((kl == 14 && !strncmp(kv, "pipeline.vcpus", kl)) ||
		    (kl == 9 && !strncmp(kv, "mount.mem", kl)) ||
		    (kl == 10 && !strncmp(kv, "mount.tier", kl)))
			return ts_cmdline_error(cl, "%.*s is a grid axis; give it as --%s", (int)kl,
						kv, kl == 14 ? "vcpus" : kl == 9 ? "mem" : "tiers");
	}
	if (args->instances && (args->vcpus || args->mem || args->out.instance))
		return ts_cmdline_error(cl, "--instances is the grid's axis instead of --vcpus, "
					    "--mem and --instance; give one of them");
	if ((args->budget || args->deadline) && !args->instances && !args->out.instance)
		return ts_cmdline_error(cl, "--budget and --deadline need prices: give --instance "
					    "NAME or --instances A,B,...");
	if ((args->vcpus && ts_advise_grid_vcpus(&A->g, args->vcpus, err, sizeof(err))) ||
	    (args->mem && ts_advise_grid_mem(&A->g, args->mem, err, sizeof(err))) ||
	    ts_advise_tolerance(args->tolerance, &A->tolerance_pct, err, sizeof(err)) ||
	    ts_advise_money(A, args->budget, args->deadline, err, sizeof(err)))
		return ts_cmdline_error(cl, "%s", err);
	if (args->instances &&
	    (rc = ts_advise_grid_instances(A, args->instances, err, sizeof(err))))
		return rc == TS_E_PARSE ? ts_cmdline_error(cl, "%s", err)
					: (fprintf(stderr, "tiersim advise: %s\n", err), TS_EXIT_FAIL);
	rc = ts_advise_grid_tiers(A, (const char *const *)args->tiers.v, args->tiers.n, err,
				  sizeof(err));
	if (rc)
		return rc == TS_E_PARSE ? ts_cmdline_error(cl, "%s", err)
					: (fprintf(stderr, "tiersim advise: %s\n", err), TS_EXIT_FAIL);
	if ((rc = ts_advise_check(A, err, sizeof(err)))) {
		A->usage_error = rc == TS_E_UNKNOWN || rc == TS_E_PARSE;
		return ts_script_fail("advise", rc, A->usage_error, err);
	}
	return -1;
}

int ts_cmd_advise(int argc, char **argv)
{
	static struct ts_advise A; /* large (the runner options); one per process */
	struct advise_args args = { 0 };
	char err[1024] = "";
	memset(&A, 0, sizeof(A));
	int status = advise_args(&A, &args, argc, argv);
	if (status >= 0)
		goto out;
	int rc = ts_advise_run(&A, err, sizeof(err));
	if (rc) {
		status = ts_script_fail("advise", rc, A.usage_error, err);
		goto out;
	}
	ts_advise_print(&A, ts_script_table_stream(&args.out));
	fflush(stdout);
	status = ts_script_write(&advise_cmdline, &A.rep, &args.out, TS_EXIT_OK);
	if (args.out.plot && ts_advise_plot(&A, args.out.plot, err, sizeof(err))) {
		fprintf(stderr, "tiersim advise: %s\n", err);
		status = TS_EXIT_FAIL;
	}
out:
	ts_advise_free(&A);
	ts_opt_free(advise_opts, &args);
	return status;
}
