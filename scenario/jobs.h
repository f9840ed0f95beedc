/*
 * jobs.h — the job kinds (job.h's ops tables), one per file: training and
 * inference (train.c, one step loop), preprocessing (preprocess.c). The
 * registry (job.c) lists them.
 */
#ifndef TS_JOBS_H
#define TS_JOBS_H

#include "scenario/job.h"

extern const struct ts_job_ops ts_job_train;
extern const struct ts_job_ops ts_job_infer;
extern const struct ts_job_ops ts_job_preprocess;

#endif
