/* job.c — the registry of job kinds (job.h): one explicit array. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "scenario/jobs.h"

static const struct ts_job_ops *const jobs[] = {
	&ts_job_train,
	&ts_job_infer,
	&ts_job_preprocess,
	&ts_job_dlio,
};

const struct ts_job_ops *ts_job_find(const char *name)
{
	for (size_t i = 0; name && i < TS_ARRAY_SIZE(jobs); i++)
		if (!strcmp(jobs[i]->name, name))
			return jobs[i];
	return NULL;
}

int ts_job_check(const struct ts_job_ops *ops, char *err, size_t errlen)
{
	if (ops->version != TS_JOB_VERSION || !ops->run) {
		snprintf(err, errlen, "job '%s': %s", ops->name ? ops->name : "?",
			 ops->version != TS_JOB_VERSION ? "built for another job interface version"
							: "has no run hook");
		return -EINVAL;
	}
	return 0;
}
