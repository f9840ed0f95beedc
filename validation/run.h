/*
 * run.h — running validation cases and judging their figures: what a case
 * needs that this build lacks, the run of one case (a closed-loop fio job
 * on the tier model in virtual time, or with fio through a tierfs mount;
 * a DLIO run for a workload case), the verdict on each figure, the
 * corpus-wide rule that a fitted figure never also checks, and the
 * summary. report.h selects the cases and prints the results; `tiersim
 * validate` (cli/cmd_validate.c) reads the command line and calls both.
 * With --real, a signal stops fio and the case (core/interrupt.h).
 */
#ifndef TS_VALIDATE_RUN_H
#define TS_VALIDATE_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "validation/case.h"
#include "pipeline/host.h"
#include "validation/ratchet.h"
#include "tier/tier.h"
#include "core/ts.h"

/* A figure's verdict. */
enum ts_fig_status {
	TS_FIG_INSIDE,		 /* a checking figure inside its tolerance */
	TS_FIG_OUTSIDE,		 /* a checking figure outside it */
	TS_FIG_KNOWN,		 /* outside, a known miss the case records */
	TS_FIG_FIT,		 /* a fitting case's figure, reproduced */
	TS_FIG_FIT_OFF,		 /* a fitting case's figure, no longer reproduced */
	TS_FIG_KNOWN_NOW_INSIDE, /* a recorded known miss that is now inside */
	TS_FIG_FLOOR,		 /* --real: a latency below the FUSE floor, not judged */
	TS_FIG_SAME_IN,		 /* a same-run case's figure inside its tolerance (not scored) */
	TS_FIG_SAME_OUT,	 /* a same-run case's figure outside it (not scored) */
};
const char *ts_fig_status_name(enum ts_fig_status st);

struct ts_fig_row {
	const struct ts_case_figure *fig;
	double predicted; /* in the figure's unit */
	double error;	  /* (predicted - measured) / measured */
	enum ts_fig_status st;
};

struct ts_case_row {
	struct ts_case *c;
	const char *needs; /* not runnable yet: what it needs; NULL = ran */
	char needs_buf[128];
	struct ts_fig_row *f; /* c->nfig of them */
	bool failed;	      /* ran but could not be run (message printed) */
	struct ts_case_outcome outcome; /* set by ts_validate_summarize */
};

/* How cases run. */
/* Runs the Lua scenario @script (a path) with @nkv key=value params in
 * virtual time and gives its one row's samples/s: a loader case's run
 * (config.workload.scenario). The scenario engine sits above this library
 * (its report reads the corpus), so the program that has it passes it in
 * (tiersim validate: cli/cmd_validate.c). Returns 0, or an error with one
 * line in @err. */
typedef int (*ts_validate_scenario_fn)(const char *script, char *const *kv, size_t nkv,
				       double *samples_s, char *err, size_t errlen);

struct ts_validate_cfg {
	bool real;	       /* disk cases with fio through a tierfs mount */
	uint64_t real_runtime; /* ns: longest fio run per case with @real */
	uint64_t real_size;    /* bytes: largest file per fio job with @real */
	uint64_t jobs;	       /* cases run at once (virtual time only); 0 = the CPUs online */
	ts_validate_scenario_fn scenario; /* loader cases; NULL: they fail to run */
};

/* Whether the case of @r can run here: NULL, or what it needs. */
const char *ts_case_needs(struct ts_case_row *r);

/*
 * The verdict on figure @f of case @c predicted as @predicted (in the
 * figure's unit): its relative @error is set; @below_floor says the
 * emulation cannot reach the figure's latency on this host.
 */
enum ts_fig_status ts_fig_verdict(const struct ts_case *c, const struct ts_case_figure *f,
				  double predicted, bool below_floor, double *error);

/* Runs the case of @r (r->f allocated, c->nfig rows) and judges each
 * figure. A failure is one line on stderr and r->failed (what the caller
 * reads: the return value repeats it). */
int ts_case_run(struct ts_case_row *r, const struct ts_tier_set *set,
		       const struct ts_validate_cfg *v);

/* ts_case_run on each of the @n rows that can run (r->needs NULL), up to
 * v->jobs at once in child processes (in virtual time; --real runs one at
 * a time, as its mounts and timings need the machine to themselves), the
 * longest kinds first (DLIO runs, then the rest). The rows come out as
 * ts_case_run leaves them, in their order; -errno when a child could not
 * be started or died (its row is then failed). */
int ts_case_run_all(struct ts_case_row *rows, size_t n, const struct ts_tier_set *set,
		    const struct ts_validate_cfg *v);

/* Every evidence label that names a case names a fitting case that lists
 * the field, and every fitting case's fields name it back. Prints each
 * violation on @f; returns how many. */
int ts_validate_fit_rule(const struct ts_tier_set *set, const struct ts_host_set *hosts,
			 struct ts_case **all, size_t n, FILE *f);

struct ts_validate_summary {
	struct ts_verdict v;  /* the counts and the verdict (ratchet.h) */
	size_t same_inside;   /* same-run cases inside (shown, not scored) */
	size_t floor; /* --real: figures whose target latency is below the FUSE floor */
	size_t nerr;
	double median;
};

/* The outcome of the case of @r from its figures' verdicts (ratchet.h): a
 * checking case is inside, a known miss when every figure out carries its
 * reason, else outside. */
enum ts_outcome ts_case_outcome_of(const struct ts_case_row *r);

/* Counts @rows by outcome and judges them against @ratchet (NULL: none);
 * @o (room for @n) gets each row's outcome; @errs (room for every figure)
 * gets the checking figures' errors sorted by size, @worst the same figures
 * worst first. */
void ts_validate_summarize(struct ts_case_row *rows, size_t n, const struct ts_ratchet *ratchet,
			   struct ts_case_outcome *o, struct ts_validate_summary *s,
			   double *errs, struct ts_fig_row **worst, size_t *nworst);
/* Whether the run passes (ratchet.h): no fewer cases inside than the
 * ratchet lists among them, no miss without a reason, no case failed,
 * every fit reproduced. A known miss is a miss: it is counted outside. */
bool ts_validate_passed(const struct ts_validate_summary *s);

#endif
