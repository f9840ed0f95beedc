/*
 * cmd_validate.c — `tiersim validate`: runs the validation cases
 * (validation/cases/NAME.json, validation/README.md) and prints, for every
 * measured figure, what the model predicts, the error and whether it is
 * inside the case's tolerance, then a summary. The cases' runs and
 * verdicts are validation/run.h's; this selects, calls and prints.
 *
 * Before anything runs the corpus and the profiles' evidence labels (tier
 * and host profiles) are checked against each other: a fitted field names
 * its case, and that case is not a checking one.
 *
 * Exit status (validation/ratchet.h): 0 when at least as many of the cases
 * run are inside as the baseline (validation/baseline) lists among them,
 * every figure out of its tolerance carries its reason, every fit is
 * reproduced and every case ran; 1 otherwise or when a case, profile or
 * baseline file is refused; 2 for a bad command line; 130 when a signal
 * stopped it (every mount down, nothing judged). A known miss is a
 * miss: it is counted outside, with its reason.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmdline.h"
#include "cli/commands.h"
#include "pipeline/host.h"
#include "core/interrupt.h"
#include "core/opt.h"
#include "core/files.h"
#include "core/paths.h"
#include "scenario/runner.h"
#include "tier/tier.h"
#include "validation/case.h"
#include "validation/corpus.h"
#include "validation/report.h"
#include "validation/run.h"

/* A loader case's scenario (validation/run.h ts_validate_scenario_fn): the
 * script in virtual time, quietly, in a scratch folder of its own (virtual
 * time writes no dataset), and the samples/s of its one row. */
static int run_scenario(const char *script, char *const *kv, size_t nkv, double *samples_s,
			char *err, size_t errlen)
{
	struct ts_runner_opts o = { .script = script, .virtual_time = true, .quiet = true };
	char dir[] = "/tmp/tiersim-validate-XXXXXX";
	if (nkv > TS_RUNNER_MAX_OVERRIDES) {
		snprintf(err, errlen, "config.workload.scenario.params: at most %d",
			 TS_RUNNER_MAX_OVERRIDES);
		return -EINVAL;
	}
	if (!mkdtemp(dir)) {
		snprintf(err, errlen, "a scratch folder under /tmp: %s", strerror(errno));
		return -errno;
	}
	for (size_t i = 0; i < nkv; i++)
		o.kv[o.nkv++] = kv[i];
	o.workdir = dir;
	struct ts_runner R;
	bool usage;
	char sub[1024] = "";
	int rc = ts_runner_script(&R, &o, &usage, sub, sizeof(sub));
	if (rc) {
		snprintf(err, errlen, "scenario %s: %s", script,
			 *sub ? sub : "failed (its message above)");
	} else if (R.report.n != 1 || R.report.rows[0].error) {
		snprintf(err, errlen, "scenario %s: %s", script,
			 R.report.n != 1 ? "expected one row" : R.report.rows[0].error);
		rc = -EINVAL;
	} else {
		*samples_s = R.report.rows[0].samples_per_s;
	}
	ts_runner_free(&R);
	int rm = ts_remove_tree(dir, 0);
	if (rm && !rc) {
		snprintf(err, errlen, "removing %s: %s", dir, strerror(-rm));
		rc = rm;
	}
	return rc;
}

struct vcfg {
	bool json;
	struct ts_validate_cfg run;
	char *cases;	       /* folder of case files; NULL = validation/cases */
	char *skip_tag;	       /* cases with this tag are not selected */
	char *baseline;	       /* ratchet file; NULL = validation/baseline with the default corpus */
	bool record;	       /* --record-baseline: write the ratchet from this run */
};

#define OFF(f) offsetof(struct vcfg, f)
static const struct ts_opt vopts[] = {
	{ "json", TS_OPT_BOOL, OFF(json), "false", 0, 0, "", "print the results as JSON" },
	{ "real", TS_OPT_BOOL, OFF(run.real), "false", 0, 0, "",
	  "run disk cases with fio through a tierfs mount instead of in virtual time" },
	{ "cases", TS_OPT_STR, OFF(cases), NULL, 0, 0, "",
	  "folder of case files (default: validation/cases)", "DIR" },
	{ "real_runtime", TS_OPT_DURATION, OFF(run.real_runtime), "5s", 1e8, 3.6e12, "ns",
	  "with --real: the longest fio run per case" },
	{ "real_size", TS_OPT_SIZE, OFF(run.real_size), "64MiB", 4096, 0, "bytes",
	  "with --real: the largest file each fio job covers" },
	{ "jobs", TS_OPT_U64, OFF(run.jobs), "0", 0, 1024, "",
	  "cases run at once, each in its own process (virtual time; --real runs one at a "
	  "time); 0 = the CPUs online", "N" },
	{ "skip_tag", TS_OPT_STR, OFF(skip_tag), NULL, 0, 0, "",
	  "leave out the cases carrying this tag (\"slow\": the long workload runs)", "TAG" },
	{ "baseline", TS_OPT_STR, OFF(baseline), NULL, 0, 0, "",
	  "the ratchet: the cases inside at the last record; the run fails when fewer are "
	  "inside (default: validation/baseline with the shipped corpus, none with --cases)",
	  "FILE" },
	{ "record_baseline", TS_OPT_BOOL, OFF(record), "false", 0, 0, "",
	  "write the baseline from this run (every case run, none skipped)" },
	{ NULL },
};
#undef OFF

static const struct ts_cmdline validate_cmdline = {
	.name = "validate",
	.synopsis = "[CASE|GLOB|tag:TAG...] [--json] [--real] [--cases DIR] [--skip-tag TAG]\n"
		    "                [--jobs N] [--baseline FILE] [--record-baseline]",
	.about = "Runs the validation cases (real measurements of real systems) and prints\n"
		 "predicted vs measured, the error and whether it is inside the case's\n"
		 "tolerance, then cases inside and outside tolerance (known misses with their\n"
		 "reason), median |error|, the worst five and the checks per tier. Fails when\n"
		 "fewer cases are inside than the baseline (validation/baseline) lists.\n"
		 "CASE is a case id or file; GLOB matches ids (\"ebs-*\"); tag:TAG the cases\n"
		 "carrying TAG. Workload cases with a DLIO run predict it in virtual time.\n",
	.opts = vopts,
	.max_pos = -1,
};

/*
 * Why one long function: the command's one sequence (corpus, profiles,
 * ratchet, selection, runs, verdict, output), each step a library call from
 * validation/ with its message, all leaving through one cleanup (out:).
 */
int ts_cmd_validate(int argc, char **argv)
{
	struct vcfg v;
	char err[1024];
	int ret = TS_EXIT_USAGE;
	size_t nrows = 0, nadded = 0;
	struct ts_corpus corpus = { 0 };
	struct ts_case_row *rows = NULL;
	struct ts_tier_set *set = NULL;
	struct ts_host_set *hosts = NULL;
	char **added = NULL;
	bool have_ratchet = false;
	struct ts_ratchet ratchet = { 0 };
	char bpath[4200] = "";

	memset(&v, 0, sizeof(v));
	struct ts_opt_args a;
	int prc = ts_cmdline_parse(&validate_cmdline, &v, argc, argv, &a);
	if (prc >= 0)
		return prc; /* --help, or a usage error already said */
	char **sel = a.pos;
	size_t nsel = (size_t)a.npos;
	ret = TS_EXIT_FAIL;
	/* Every case (the fitted-vs-checking rule spans the corpus). */
	size_t refused = 0;
	if (ts_corpus_load_all(v.cases, &corpus, stderr, "tiersim validate", &refused, err,
			       sizeof(err))) {
		fprintf(stderr, "tiersim validate: %s%s\n", err,
			corpus.dir[0] ? "" : " or give --cases DIR");
		goto out;
	}
	struct ts_case **all = corpus.c;
	size_t nall = corpus.n;
	const char *dir = corpus.dir;
	if (ts_validate_load_profiles(all, nall, refused, stderr, "tiersim validate", &set, &hosts,
				      &added, &nadded))
		goto out;
	/* The ratchet: --baseline FILE, or validation/baseline beside the
	 * shipped corpus. */
	ts_validate_baseline_path(v.baseline, !v.cases, dir, bpath, sizeof(bpath));
	if (v.record && (nsel || v.skip_tag)) {
		fprintf(stderr, "tiersim validate: --record-baseline records the whole corpus: give no "
				"case, glob, tag or --skip-tag\n");
		ret = TS_EXIT_USAGE;
		goto out;
	}
	if (v.record && !*bpath) {
		fprintf(stderr, "tiersim validate: --record-baseline with --cases needs --baseline FILE\n");
		ret = TS_EXIT_USAGE;
		goto out;
	}
	if (*bpath && !v.record) {
		if (ts_validate_ratchet_load(bpath, !v.baseline, all, nall, stderr,
					     "tiersim validate", &ratchet))
			goto out;
		have_ratchet = ratchet.n > 0 || v.baseline;
	}
	const char *unmatched;
	if (ts_validate_select_rows(all, nall, sel, nsel, v.skip_tag, &rows, &nrows, &unmatched))
		goto out;
	if (unmatched) {
		fprintf(stderr, "tiersim validate: no case matches '%s' (ids are the file names in "
				"%s)\n", unmatched, dir);
		ret = TS_EXIT_USAGE;
		goto out;
	}
	/* A signal stops the run between cases (and a --real case's fio, and
	 * the cases running in child processes): every mount down, exit 130,
	 * no summary of a partial run. */
	ts_interrupt_install();
	v.run.scenario = run_scenario;
	(void)ts_case_run_all(rows, nrows, set, &v.run); /* failures are in the rows */
	if (ts_interrupted) {
		fprintf(stderr, "tiersim validate: interrupted by signal %d; nothing is judged\n",
			(int)ts_interrupted);
		ret = TS_EXIT_INTERRUPT;
		goto out;
	}

	struct ts_validate_judged j;
	if (ts_validate_judge(rows, nrows, have_ratchet ? &ratchet : NULL, &j))
		goto out;
	if (v.json) {
		if (ts_validate_print_json(stdout, rows, nrows, &j.s, v.run.real))
			fprintf(stderr, "tiersim validate: cannot write the JSON\n");
	} else {
		ts_validate_print(stdout, rows, nrows, &j.s, j.worst, j.nworst, v.run.real);
		ts_validate_print_verdict(stdout, rows, nrows, &j.s, have_ratchet ? &ratchet : NULL,
					  bpath, set);
	}
	ret = ts_validate_passed(&j.s) ? TS_EXIT_OK : TS_EXIT_FAIL;
	if (v.record) {
		if (ts_ratchet_save(bpath, j.o, nrows, err, sizeof(err))) {
			fprintf(stderr, "tiersim validate: %s\n", err);
			ret = TS_EXIT_FAIL;
		} else {
			fprintf(stderr, "tiersim validate: %s: recorded %zu cases inside\n", bpath,
				j.s.v.inside);
		}
	}
	ts_validate_judged_free(&j);
out:
	ts_corpus_free(&corpus);
	for (size_t i = 0; rows && i < nrows; i++)
		free(rows[i].f);
	for (size_t i = 0; i < nadded; i++)
		free(added[i]);
	free(added);
	free(rows);
	ts_tier_set_free(set);
	ts_host_set_free(hosts);
	ts_ratchet_free(&ratchet);
	ts_opt_free(vopts, &v);
	return ret;
}
