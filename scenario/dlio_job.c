/*
 * dlio_job.c — the dlio job kind (jobs.h): a DLIO / MLPerf Storage
 * workload run through workloads/dlio_run.h in the runner's clock, one row
 * of the report. Its options are a dlio{} table's (struct ts_dlio_opts, in
 * a->opts); its figures also go to a->out (struct ts_dlio_job_out) for the
 * table dlio{} returns.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "scenario/jobs.h"
#include "workloads/dlio_run.h"

static int dlio_job_run(struct ts_job_env *env, const struct ts_job_args *a, struct ts_row *w,
			char *err, size_t errlen)
{
	if (!a->opts) {
		snprintf(err, errlen, "the dlio job needs a dlio{} table");
		return -EINVAL;
	}
	struct ts_dlio_opts o = *(const struct ts_dlio_opts *)a->opts;
	o.tier = (char *)a->tier;
	o.virtual_time = env->virtual_time;
	o.quiet = true;
	struct ts_dlio_outcome *oc = calloc(1, sizeof(*oc));
	if (!oc) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	int rc = ts_dlio_run(&o, oc, err, errlen);
	const struct ts_dlio_result *pick = rc ? NULL : ts_dlio_outcome_pick(&o, oc);
	struct ts_dlio_result r = pick ? *pick : (struct ts_dlio_result){ 0 };
	ts_dlio_outcome_free(oc);
	free(oc);
	if (rc)
		return rc;
	char label[300], parts[400];
	snprintf(label, sizeof(label), "%s %s%llu acc", o.workload, pick ? "" : "(none passes) ",
		 (unsigned long long)r.n);
	snprintf(parts, sizeof(parts), "DLIO workload %s, %s time (tiersim dlio; workloads/DLIO.md)",
		 o.workload, o.virtual_time ? "virtual" : "real");
	if (ts_row_set_str(&w->label, label) || ts_row_set_str(&w->parts, parts)) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	w->samples_per_s = r.samples_s;
	w->au_pct = 100 * r.au;
	w->read_mb_s = r.mib_s * 1048576.0 / 1e6;
	struct ts_dlio_job_out *out = a->out;
	if (out) {
		out->found = pick != NULL;
		out->r = r;
	}
	return 0;
}

const struct ts_job_ops ts_job_dlio = {
	.name = "dlio",
	.version = TS_JOB_VERSION,
	.run = dlio_job_run,
};
