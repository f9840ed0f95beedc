/*
 * runner_int.h — what the runner's jobs share (runner.c hosts the script,
 * places datasets and mounts tiers; train.c runs training and inference,
 * preprocess.c the conversion), not for other parts.
 */
#ifndef TS_RUNNER_INT_H
#define TS_RUNNER_INT_H

#include <limits.h>

#include "engine/engine.h"
#include "pipeline/loader.h"
#include "runner.h"

/* Counters read from the daemon's .tierfs/stats. */
struct fs_counters {
	bool ok;
	uint64_t read_bytes, write_bytes; /* served by tierfs */
	uint64_t model_read_bytes, model_hit_bytes;
};
void ts_runner_read_counters(const char *mountpoint, struct fs_counters *c);
void ts_runner_row_io(struct ts_row *w, const struct fs_counters *a, const struct fs_counters *b,
		      double secs);

/* One configuration in real time: its mount, loader and engine. */
struct live {
	struct ts_mount *mount;
	struct ts_pipe *pipe;
	struct ts_engine *eng;
	char root[PATH_MAX]; /* where the dataset's backing appears */
	/* the mount's request trace ("" = none); own: made for --timeline
	 * only, removed once merged */
	char trace[PATH_MAX];
	bool own_trace;
	bool want_trace; /* set before ts_runner_live_mount: record one if the scenario does not */
};
/* Mounts the dataset's backing on @tier (or, for "none", uses it as it is);
 * @mdesc says which. */
TS_WUR int ts_runner_live_mount(struct ts_runner *R, const struct ts_scenario *s,
				const char *tier, const struct ts_dataset_place *dp,
				struct live *lv, char *mdesc, size_t mdn, char *err,
				size_t errlen);
/* Frees the loader and the engine and stops the mount; a failure to stop
 * is added to @err. */
int ts_runner_live_end(struct ts_runner *R, struct live *lv, char *err, size_t errlen);

void ts_runner_progress_end(struct ts_runner *R);
/* The mount{}'s tier as a virtual run's disk (--band: at the end of its
 * ranges the runner is modeling). */
struct ts_vtier;
TS_WUR int ts_runner_vtier(struct ts_runner *R, const struct ts_scenario *s, struct ts_vtier *m,
			   char *err, size_t errlen);

/* The jobs: one row for the current configuration on @tier, in the
 * runner's clock (R->o.virtual_time). */
TS_WUR int ts_runner_train(struct ts_runner *R, struct ts_scenario *s, const char *tier,
			   const struct ts_scn_run *run, struct ts_row *w, char *err,
			   size_t errlen);
TS_WUR int ts_runner_preprocess(struct ts_runner *R, struct ts_scenario *s, const char *tier,
				const struct ts_scn_run *run, struct ts_row *w, char *err,
				size_t errlen);

#endif
