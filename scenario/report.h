/*
 * report.h — the result of a scenario: one row per configuration run, as
 * the study printed them (samples/s, time, accelerator utilization, IO
 * stall, cache hits, MB/s read, relative to the best row), rendered as a
 * terminal table, JSON, CSV and a gnuplot bar chart. Every number carries
 * its unit in every output; a number nobody measured is NaN and prints "-".
 */
#ifndef TS_REPORT_H
#define TS_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cost/price.h"
#include "core/ts.h"

#define TS_REPORT_MAX_PARAMS 24

struct ts_row {
	char *label;		/* the configuration, "ssd-cloud 4vCPU 8GiB" */
	char *tier;		/* tier name, for grouping in compare */
	char *parts;		/* what was real and what modeled */
	char *error;		/* non-NULL: the row failed (e.g. GPU OOM) */
	size_t nparams;
	char *pkey[TS_REPORT_MAX_PARAMS]; /* configuration keys ("pipeline.vcpus") */
	char *pval[TS_REPORT_MAX_PARAMS];

	uint64_t iterations;	/* measured iterations (warm-up excluded) */
	uint64_t batch;		/* samples per iteration, all GPUs */
	uint64_t samples;	/* samples counted in the measured part */
	double time_s;		/* wall (or virtual) time of the measured part */
	double samples_per_s;
	double au_pct;		/* accelerator utilization: compute / wall */
	double stall_pct;	/* consumer waiting on input / wall */
	double cache_hit_pct;	/* page-cache model hits / reads at the mount (pages
				 * readahead had asked for but not brought count too) */
	double memory_pct;	/* the job's read bytes served from memory without
				 * waiting on the device / the job's read bytes */
	double dev_mb_s;	/* 10^6 bytes/s the device read (readahead, metadata) */
	double own_mib;		/* block mode: the most the job's memory cgroup held
				 * besides the page cache, MiB (measured: what
				 * mount{ own_mem = } takes out of the page-cache
				 * model in a virtual run); NaN elsewhere */
	double read_mb_s;	/* 10^6 bytes/s read through the mount */
	double write_mb_s;	/* 10^6 bytes/s written through the mount */
	uint64_t bytes_read, bytes_written;
	double step_p50_ms, step_p99_ms; /* iteration time percentiles */
	double rel_to;		/* samples/s that rel compares with; 0 = the best row */
	bool virtual_time;
	/* --band: the row at the slow and the fast end of its ranged tier,
	 * host and engine parameters (band_params names them; NULL: no band). */
	char *band_params;
	double band_sps_lo, band_sps_hi, band_au_lo, band_au_hi;
	/* What the configuration costs (cost/), in dollars, each as a band over
	 * the ranged prices and the band above; NaN where no instance is priced
	 * (an epoch: where the dataset's size is not known). */
	char *instance;
	struct ts_cost_band cost_hour;	 /* instance + volume, per hour */
	struct ts_cost_band cost_epoch;	 /* per pass over the dataset */
	struct ts_cost_band cost_ksteps; /* per 1,000 steps */
	struct ts_cost_band cost_idle;	 /* (1 - AU) x the instance's price, per hour */
};

struct ts_report {
	char *title;
	char *script;
	bool virtual_time;
	struct ts_row *rows;
	size_t n, cap;
};

void ts_report_init(struct ts_report *r);
void ts_report_free(struct ts_report *r);
/* Appends a zeroed row with every optional number NaN; NULL on ENOMEM. */
struct ts_row *ts_report_add(struct ts_report *r);
/* Removes the last row (a configuration that produced no result). */
void ts_report_drop_last(struct ts_report *r);
/* A row outside any report (every optional number NaN), and its release. */
void ts_row_init(struct ts_row *w);
void ts_row_release(struct ts_row *w);
TS_WUR int ts_row_param(struct ts_row *row, const char *key, const char *val);
TS_WUR int ts_row_set_str(char **dst, const char *s);

/* Best row's samples/s (rows in error excluded); 0 when none. */
double ts_report_best(const struct ts_report *r);

void ts_report_print(const struct ts_report *r, FILE *f);
TS_WUR int ts_report_write_json(const struct ts_report *r, const char *path);
TS_WUR int ts_report_write_csv(const struct ts_report *r, const char *path);
/* Bar chart of samples/s per configuration, through gnuplot; the terminal
 * follows the file's extension (.svg or .png). */
TS_WUR int ts_report_plot(const struct ts_report *r, const char *path, char *err, size_t errlen);

#endif
