/*
 * jobs.h — the job kinds (job.h's ops tables), one per file: training and
 * inference (train.c, one step loop), preprocessing (preprocess.c), DLIO
 * workloads (dlio_job.c). The registry (job.c) lists them.
 */
#ifndef TS_JOBS_H
#define TS_JOBS_H

#include <stdbool.h>

#include "scenario/job.h"
#include "workloads/dlio_run.h"

extern const struct ts_job_ops ts_job_train;
extern const struct ts_job_ops ts_job_infer;
extern const struct ts_job_ops ts_job_preprocess;
extern const struct ts_job_ops ts_job_dlio;

/* What the dlio job found, for the table dlio{} returns (a->out). */
struct ts_dlio_job_out {
	bool found; /* find_max: a count passed */
	struct ts_dlio_result r;
};

#endif
