/*
 * corpus.h — the validation corpus as a whole, for what names tiers
 * outside `tiersim validate`: how many independent checks of the real
 * product each tier has (`tiersim tiers`, the reports), so that a tier no
 * measurement checks is labelled "unvalidated" wherever it is used.
 *
 * An independent check is a checking case (not a fit, not same-run) that
 * this build can run, on the tier (config.device.tier, or a workload's DLIO
 * tier). Whether it is inside its tolerance is `tiersim validate`'s
 * business, not this count's.
 */
#ifndef TS_CORPUS_H
#define TS_CORPUS_H

#include <stddef.h>
#include <stdio.h>

#include "validation/case.h"
#include "core/ts.h"

struct ts_corpus {
	struct ts_case **c;
	size_t n;
	char dir[4096]; /* where the cases were read */
};

/* Loads every case of @dir (NULL: the shipped validation/cases). A file
 * that is refused fails the load with its one line in @err. */
TS_WUR int ts_corpus_load(const char *dir, struct ts_corpus *k, char *err, size_t errlen);
/* The same, going on past refused files: each (and each case id seen
 * twice) is one "WHO: ..." line on @refusals, counted in *@nrefused; the
 * cases read are in @k. Fails only when @dir or its files cannot be found. */
TS_WUR int ts_corpus_load_all(const char *dir, struct ts_corpus *k, FILE *refusals,
			      const char *who, size_t *nrefused, char *err, size_t errlen);
void ts_corpus_free(struct ts_corpus *k);

/* Whether case @c can run in this build: NULL, or what it needs (@buf
 * holds the text where it is built). */
const char *ts_case_needs_of(const struct ts_case *c, char *buf, size_t len);

/* The tier a case measures: its device tier or its DLIO run's; NULL for a
 * loader case. */
const char *ts_case_tier(const struct ts_case *c);

/* Independent checks of @tier in @k; @ids (may be NULL) gets up to @max of
 * their ids. */
size_t ts_corpus_checks(const struct ts_corpus *k, const char *tier, const char **ids,
			size_t max);

#endif
