/*
 * case.h — validation cases: one JSON file per real measurement of a real
 * system (validation/cases/NAME.json, the format in validation/README.md).
 *
 * A case names its source, what was measured, the whole configuration
 * (device or tier, host, software, workload), the measured figures with
 * units, and a tolerance with the reason for it. Its role is "checks" (the
 * figure tests the model) or fits = [ "tier.field", ... ] (the figure set
 * those profile fields, so it cannot also test them) or same_run (a check
 * from the same volume, session or run as a fitting case, not counted in
 * the score). Loading refuses a
 * file with a missing or malformed field with one line naming the file,
 * the line and the field.
 */
#ifndef TS_CASE_H
#define TS_CASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/ts.h"

#include "validation/fiojob.h"

enum ts_case_level { TS_CASE_DISK, TS_CASE_LOADER, TS_CASE_WORKLOAD, TS_CASE_ACCELERATOR };

/* What a disk-level figure is a measurement of. */
enum ts_case_metric {
	TS_METRIC_IOPS,
	TS_METRIC_BW,	    /* bytes/s */
	TS_METRIC_LAT_MEAN, /* completion latency, ns */
	TS_METRIC_LAT_P50,
	TS_METRIC_LAT_P99,
	TS_METRIC_LAT_STDEV, /* the completion latencies' standard deviation (ioping's mdev) */
	TS_METRIC_OTHER, /* loader / workload figures: images/s, AU... */
};

struct ts_case_figure {
	char *name;	  /* as written: "iops", "lat_mean", "images_per_s@12cores" */
	enum ts_case_metric metric;
	double value;	  /* as written, in unit */
	char *unit;
	double scale;	  /* value * scale = canonical (IOPS, bytes/s, ns); 0 for OTHER */
	double tolerance; /* relative, e.g. 0.15 */
	char *why;	  /* why that tolerance */
	char *known_miss; /* NULL, or why the model misses this figure */
	/* An iops figure of a part of the run ("window": [FROM, TO]): the
	 * index of the job's window (struct ts_fiojob, win_from) it reads;
	 * -1 = the whole run. */
	int window;
};

/* A workload case's DLIO run (config.workload.dlio): `tiersim dlio
 * WORKLOAD OVERRIDES --tier T [--profile P] [--host H] --mem M --virtual`,
 * the dataset scaled from @files to @run_files files and the page cache
 * with it (mem x run_files / files). */
struct ts_case_dlio {
	char *workload;	     /* a shipped workload (workloads/dlio/) or a path */
	char **overrides;    /* "++workload.SECTION.KEY=VALUE" as the run gave them */
	size_t noverrides;
	char *tier, *profile, *host; /* profile, host: NULL = none */
	uint64_t mem;	     /* the host's memory, bytes */
	uint64_t files, run_files;
	/* 0 = the workload's epochs; else the run's (the figures are means per
	 * epoch, so a full-size dataset may run fewer epochs than published) */
	uint64_t run_epochs;
	uint64_t accelerators; /* config.workload.accelerators: the count published */
};

/* An accelerator case's engine (config.workload.engine): one GPU's step
 * time or samples/s as the sim backend predicts it (engine/engine.h), with
 * the case's own figure held out of the profiles when it is published
 * there too (engine option hold_out). */
struct ts_case_engine {
	char *framework, *model, *gpu, *mode, *precision, *hold_out;
	uint64_t batch; /* per GPU */
	uint64_t gpus;	/* data-parallel GPUs (1 unless the case says); its figures
			 * are then all GPUs' samples/s, or the step time */
};

/* config.workload.scenario of a loader case: a Lua scenario (a data file,
 * found as the profiles are: core/paths.h) run in virtual time with its
 * params as key=value; its figure is the one row's samples/s. */
struct ts_case_scenario {
	char *script;
	char **kv; /* "key=value" */
	size_t nkv;
};

struct ts_case {
	char *path, *id;
	enum ts_case_level level;
	bool fits;	/* role: fits (else checks) */
	char **fitted;	/* "tier.field" the figures set */
	size_t nfitted;
	/* role same_run: a check from the same volume, session or run as the
	 * fitting case it names, shown but not counted in the score; NULL =
	 * an independent check (or a fitting case). */
	char *same_run, *same_run_why;
	char *source;	/* one line: URL or repo:path, and what was run */
	char *measured; /* what was measured */
	/* The device (disk level). */
	char *tier;	    /* tier profile name */
	char *profile;	    /* extra profile file, relative to the source tree; NULL = none */
	uint64_t capacity;  /* bytes */
	unsigned raid0;	    /* volumes striped together; 0/1 = one */
	/* config.device.bucket: the burst bucket as the run before left it
	 * (job.bucket_set, bucket_fill, idle_ns) and why; NULL = full. */
	char *bucket_why;
	/* config.device.instance: the instance (cost/prices.lua) whose EBS limits
	 * cap the job above the volume's own (ts_case_run sets job.ebs); NULL = none. */
	char *instance;
	char *tool;	    /* fio, ioping, ... */
	struct ts_fiojob job;
	struct ts_case_figure *fig;
	size_t nfig;
	struct ts_case_dlio *dlio; /* workload level; NULL = none */
	struct ts_case_engine *engine; /* accelerator level */
	struct ts_case_scenario *scenario; /* loader level: what runs it (NULL: not runnable) */
	char **tags;		   /* "slow", ...: what `validate tag:NAME` selects */
	size_t ntags;
};

/* Loads and checks one case file. */
TS_WUR int ts_case_load(const char *path, struct ts_case **out, char *err, size_t errlen);
void ts_case_free(struct ts_case *c);

const char *ts_case_level_name(enum ts_case_level l);

#endif
