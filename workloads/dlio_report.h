/*
 * dlio_report.h — a DLIO run's results as tiersim dlio prints them: the
 * one line of a run or of find_max's search, the JSON of every run, and
 * --cheapest's table of tiers with their prices.
 */
#ifndef TS_DLIO_REPORT_H
#define TS_DLIO_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "cost/price.h"
#include "workloads/dlio_cost.h"
#include "workloads/dlio_run.h"

/* The run's line, or find_max's search that no count passed; @ranks the
 * MPI world (0: none). The virtual clock's events per host second go to
 * stderr unless o->quiet. */
void ts_dlio_print_outcome(FILE *f, const struct ts_dlio_opts *o, const struct ts_dlio_outcome *oc,
			   int ranks);
/* --instance NAME: whether its EBS limits applied (on an aws-* tier) and,
 * in virtual time, how many of the tier's requests they held
 * (instance-bound) against those the volume's own caps held. */
void ts_dlio_print_instance(FILE *f, const struct ts_dlio_opts *o,
			    const struct ts_dlio_outcome *oc, const char *name);
/* Every run of @oc as one JSON object; 0, or -EIO when @f failed. */
TS_WUR int ts_dlio_write_json(FILE *f, const struct ts_dlio_opts *o,
			      const struct ts_dlio_outcome *oc, int ranks);
/* --cheapest's table: each of @n tiers' run of o->accelerators and its
 * price, the cheapest (@best) and the runner-up (@next) marked
 * ((size_t)-1: none), then the verdict; @in the instance priced, or NULL. */
void ts_dlio_print_cheapest(FILE *f, const struct ts_dlio_opts *o, const char *tiers,
			    const struct ts_dlio_priced *got, size_t n, size_t best, size_t next,
			    const struct ts_instance *in);

#endif
