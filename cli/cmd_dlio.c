/*
 * cmd_dlio.c — `tiersim dlio WORKLOAD [++workload.KEY=VALUE ...] --tier T
 * --accelerators N [--virtual] [--find-max]`: a DLIO workload (the MLPerf
 * Storage benchmark's; workloads/DLIO.md) on an emulated tier. The command
 * line and the printing; the run is workloads/dlio_run.h's.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmdline.h"
#include "cli/commands.h"
#include "core/interrupt.h"
#include "cost/price.h"
#include "workloads/dlio_cost.h"
#include "workloads/dlio_report.h"
#include "workloads/dlio_mpi.h"
#include "workloads/dlio_run.h"

/* The run's options (ts_dlio_run_opts) and the command's own. */
struct opts {
	struct ts_dlio_opts run; /* first: the run's table applies as it is */
	char *json, *cheapest, *instance;
	const char *kv[64]; /* the ++workload.KEY=VALUE words */
};

static int dlio_main(int argc, char **argv);

/* ts_dlio_run_opts and the command's own (--json, --cheapest, --instance), made once. */
static struct ts_opt dlio_opts[32];

static void opts_table(void)
{
	size_t n = 0;
	while (ts_dlio_run_opts[n].name)
		n++;
	if (dlio_opts[0].name || n + 4 > TS_ARRAY_SIZE(dlio_opts))
		return;
	memcpy(dlio_opts, ts_dlio_run_opts, n * sizeof(*dlio_opts));
	dlio_opts[n++] = (struct ts_opt){ "json", TS_OPT_STR, offsetof(struct opts, json), NULL,
					  0, 0, "", "the results as JSON", "FILE|-", 'j' };
	dlio_opts[n++] = (struct ts_opt){
		"cheapest", TS_OPT_STR, offsetof(struct opts, cheapest), NULL, 0, 0, "",
		"instead of --tier: run --accelerators on each of these tiers and name the cheapest "
		"volume that keeps the AU threshold (tiersim prices)", "A,B,...", 0 };
	dlio_opts[n++] = (struct ts_opt){
		"instance", TS_OPT_STR, offsetof(struct opts, instance), NULL, 0, 0, "",
		"run on this instance (tiersim prices): its EBS limits cap an aws-* tier in either "
		"clock, its host is charged unless --host is given, and with --cheapest its price "
		"is added", "NAME", 0 };
}

static const struct ts_cmdline dlio_cmdline = {
	.name = "dlio",
	.synopsis = "WORKLOAD [++workload.SECTION.KEY=VALUE ...] --tier T\n"
		    "                    [--accelerators N | --find-max] [--virtual] [options]",
	.about = "Runs a DLIO workload (MLPerf Storage: unet3d_a100, unet3d_h100, resnet50_a100,\n"
		 "resnet50_h100, cosmoflow_a100, cosmoflow_h100, unet3d_v100, bert_v100, or a\n"
		 "DLIO .yaml) with N simulated accelerators reading through tier T, and reports\n"
		 "AU, samples/s and MiB/s. Overrides take DLIO's (Hydra's) form,\n"
		 "++workload.reader.read_threads=8; 'tiersim dlio --help' ends with the keys.\n"
		 "--host H charges the framework's CPU work per step and per sample on host H.\n",
	.opts = dlio_opts,
	.tail = "Workload keys (workloads/DLIO.md): dataset.format, num_files_train,\n"
		"num_samples_per_file, record_length, record_length_stdev; reader.data_loader,\n"
		"batch_size, read_threads, computation_threads, prefetch_size, transfer_size,\n"
		"file_shuffle, sample_shuffle, shuffle_size, preprocess_time; train.epochs,\n"
		"computation_time, total_training_steps, seed; metric.au.\n"
		"Under mpirun (mpirun -np N [--allow-run-as-root] [--oversubscribe] --bind-to none\n"
		"tiersim dlio ...) each rank is one accelerator reading its shard through the one\n"
		"tierfs mount rank 0 makes; rank 0 reports. --virtual: rank 0 runs N accelerators\n"
		"on one tier model; --find-max needs --virtual there.\n"
		"exit status: 0 done, 1 runtime failure (a bad workload file, a dataset that does\n"
		"not fit), 2 usage error, 130 interrupted.\n",
	.max_pos = -1,
};

static int fail(int rc, const char *fmt, ...) TS_PRINTF(2, 3);
static int fail(int rc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "tiersim dlio: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	return rc;
}

/* --json: 0, or TS_EXIT_FAIL with its line said when FILE cannot be written
 * (the figures are then only on stdout, so the run does not pass). */
static int json_out(const struct opts *o, const struct ts_dlio_opts *run,
		    const struct ts_dlio_outcome *oc)
{
	FILE *f = strcmp(o->json, "-") ? fopen(o->json, "w") : stdout;
	if (!f)
		return fail(TS_EXIT_FAIL, "--json %s: %s", o->json, strerror(errno));
	bool bad = ts_dlio_write_json(f, run, oc, ts_dlio_mpi_ranks()) != 0;
	bad = (f == stdout ? fflush(f) : fclose(f)) != 0 || bad;
	return bad ? fail(TS_EXIT_FAIL, "--json %s: %s", o->json, strerror(errno ? errno : EIO))
		   : 0;
}

/* Under mpirun: one accelerator per rank, and which runs are possible. */
static int ranks_begin(struct opts *o)
{
	uint64_t ranks = (uint64_t)ts_dlio_mpi_ranks();
	if (!ranks)
		return 0;
	if (o->run.accelerators != 1 && o->run.accelerators != ranks)
		return ts_cmdline_error(&dlio_cmdline, "--accelerators %" PRIu64 ": under mpirun "
					"each rank is one accelerator (%" PRIu64 " ranks); leave it out",
					o->run.accelerators, ranks);
	if (o->run.find_max && !o->run.virtual_time)
		return ts_cmdline_error(&dlio_cmdline, "--find-max: under mpirun the accelerator "
					"count is the world size (%" PRIu64 "); add --virtual, or run "
					"without mpirun", ranks);
	o->run.accelerators = ranks;
	/* Real time: every rank steps; virtual time: rank 0 alone runs the
	 * whole world's accelerators on one tier model. */
	ts_dlio_mpi_lockstep(!o->run.virtual_time);
	return 0;
}

int ts_cmd_dlio(int argc, char **argv)
{
	char err[8192] = "";
	opts_table();
	ts_interrupt_install();
	if (ts_dlio_mpi_init(&ts_interrupted, err, sizeof(err)))
		return err[0] ? fail(TS_EXIT_USAGE, "%s", err) : TS_EXIT_USAGE;
	int status = dlio_main(argc, argv);
	ts_dlio_mpi_end();
	return status;
}

/* What running on @in (NULL: none) sets: its host unless --host names
 * one, and its EBS limits (applied on an aws-* tier by the run). */
static void on_instance(struct ts_dlio_opts *run, const struct ts_instance *in)
{
	if (!in)
		return;
	if (!run->host && in->host)
		run->host = (char *)in->host;
	ts_instance_ebs(in, &run->ebs);
}

/* --instance NAME without --cheapest: @run on it, the price set kept in
 * *@prices (its strings are the run's) until the run ends. 0 or the
 * command's exit status, said. */
static int instance_main(const struct opts *o, struct ts_dlio_opts *run,
			 struct ts_price_set **prices)
{
	char err[8192] = "";
	const struct ts_instance *in = NULL;
	if (ts_price_load_checked(run->profile, NULL, prices, err, sizeof(err)))
		return fail(TS_EXIT_FAIL, "%s", err);
	if (ts_price_instance(*prices, o->instance, &in, err, sizeof(err)))
		return ts_cmdline_error(&dlio_cmdline, "--instance: %s", err);
	on_instance(run, in);
	return 0;
}

/* --cheapest A,B,...: each tier's run of --accelerators and its price. */
static int dlio_cheapest_main(struct opts *o)
{
	char err[8192] = "", *list = strdup(o->cheapest);
	const char *tiers[32];
	size_t nt = 0;
	for (char *save, *t = list ? strtok_r(list, ",", &save) : NULL; t && nt < 32;
	     t = strtok_r(NULL, ",", &save))
		tiers[nt++] = t;
	struct ts_price_set *prices = NULL;
	const struct ts_instance *in = NULL;
	int status = !list ? fail(TS_EXIT_FAIL, "out of memory")
		     : !nt ? ts_cmdline_error(&dlio_cmdline, "--cheapest: expected tiers A,B,...")
			   : 0;
	if (!status && ts_price_load_checked(o->run.profile, NULL, &prices, err, sizeof(err)))
		status = fail(TS_EXIT_FAIL, "%s", err);
	if (!status && o->instance && ts_price_instance(prices, o->instance, &in, err, sizeof(err)))
		status = ts_cmdline_error(&dlio_cmdline, "--instance: %s", err);
	struct ts_dlio_opts run = o->run;
	on_instance(&run, in);
	struct ts_dlio_priced got[32];
	size_t best = (size_t)-1, next = (size_t)-1;
	bool bad = false;
	int rc = status ? 0 : ts_dlio_cheapest(&run, tiers, nt, prices, in, got, &best, &next,
					       &bad, err, sizeof(err));
	if (rc)
		status = fail(rc == -EINTR ? TS_EXIT_INTERRUPT : bad ? TS_EXIT_USAGE : TS_EXIT_FAIL,
			      "%s", err);
	if (!status)
		ts_dlio_print_cheapest(stdout, &o->run, o->cheapest, got, nt, best, next, in);
	ts_price_set_free(prices);
	free(list);
	return status;
}

static int dlio_main(int argc, char **argv)
{
	struct opts o;
	memset(&o, 0, sizeof(o));
	struct ts_opt_args a;
	int prc = ts_cmdline_parse(&dlio_cmdline, &o, argc, argv, &a);
	if (prc >= 0)
		return ts_dlio_mpi_status(prc, NULL, 0);
	for (int i = 0; i < a.npos; i++) {
		if (!o.run.workload && !strchr(a.pos[i], '='))
			o.run.workload = a.pos[i];
		else if (strchr(a.pos[i], '=') && o.run.noverrides < TS_ARRAY_SIZE(o.kv))
			o.kv[o.run.noverrides++] = a.pos[i];
		else {
			ts_opt_free(dlio_opts, &o);
			int urc = strchr(a.pos[i], '=')
				? ts_cmdline_error(&dlio_cmdline, "'%s': at most %zu overrides; put "
						   "the rest in a workload .yaml", a.pos[i],
						   TS_ARRAY_SIZE(o.kv))
				: ts_cmdline_error(&dlio_cmdline, "unexpected argument '%s'",
						   a.pos[i]);
			return ts_dlio_mpi_status(urc, NULL, 0);
		}
	}
	o.run.overrides = o.kv;
	if (o.run.workload && o.cheapest) {
		int st = o.run.tier || o.run.find_max || o.json || ts_dlio_mpi_ranks() > 1
				 ? ts_cmdline_error(&dlio_cmdline, "--cheapest runs its own tiers, in one "
						   "process, without --tier, --find-max or --json")
				 : dlio_cheapest_main(&o);
		ts_opt_free(dlio_opts, &o);
		return st;
	}
	if (!o.run.workload || !o.run.tier) {
		ts_opt_free(dlio_opts, &o);
		return ts_dlio_mpi_status(ts_cmdline_error(&dlio_cmdline, !o.run.workload
				? "no workload given (e.g. tiersim dlio unet3d_h100 --tier nvme-local "
				  "--virtual)"
				: "--tier is required ('tiersim tiers' lists them)"), NULL, 0);
	}
	if ((prc = ranks_begin(&o))) {
		ts_opt_free(dlio_opts, &o);
		return ts_dlio_mpi_status(prc, NULL, 0);
	}
	char err[8192] = "";
	struct ts_price_set *prices = NULL;
	struct ts_dlio_opts run = o.run; /* with the instance's host and limits */
	if (o.instance && (prc = instance_main(&o, &run, &prices))) {
		ts_price_set_free(prices);
		ts_opt_free(dlio_opts, &o);
		return ts_dlio_mpi_status(prc, NULL, 0);
	}
	struct ts_dlio_outcome *oc = calloc(1, sizeof(*oc));
	if (!oc) {
		ts_price_set_free(prices);
		ts_opt_free(dlio_opts, &o);
		return ts_dlio_mpi_status(fail(TS_EXIT_FAIL, "out of memory"), NULL, 0);
	}
	/* Under mpirun in virtual time, rank 0 alone runs (workloads/DLIO.md). */
	int rc = ts_dlio_mpi_owner() || !o.run.virtual_time ? ts_dlio_run(&run, oc, err, sizeof(err))
							     : 0;
	int status = rc == -EINTR ? TS_EXIT_INTERRUPT
		     : oc->bad_request ? TS_EXIT_USAGE
		     : rc	       ? TS_EXIT_FAIL
				       : TS_EXIT_OK;
	status = ts_dlio_mpi_status(status, err, sizeof(err));
	if (!ts_dlio_mpi_owner()) {
		/* rank 0 reports */
	} else if (status) {
		fail(status, "%s", err);
	} else {
		ts_dlio_print_outcome(stdout, &run, oc, ts_dlio_mpi_ranks());
		if (o.instance)
			ts_dlio_print_instance(stdout, &run, oc, o.instance);
	}
	if (!status && o.json && ts_dlio_mpi_owner())
		status = json_out(&o, &run, oc);
	ts_dlio_outcome_free(oc);
	free(oc);
	ts_price_set_free(prices);
	ts_opt_free(dlio_opts, &o);
	return status;
}
