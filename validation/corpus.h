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

/*
 * One tier's checks without loading the whole corpus, for a report's tier
 * check column (loading all 99 cases cost a report ~70M instructions):
 * each case file's text is read once, and only the cases whose text may
 * name the tier asked about are loaded (a case checks a tier only where
 * its file has the tier's name as a string). Each tier's count is kept
 * once made.
 */
struct ts_corpus_texts {
	char dir[4096]; /* where the case files were read */
	char **path, **text;
	size_t n;
	struct {
		char *tier;
		size_t n;
	} *memo; /* each tier asked about so far and its count */
	size_t nmemo;
};

/* Reads the text of every case file of @dir (NULL: the shipped
 * validation/cases); fails where ts_corpus_load finds no cases. */
TS_WUR int ts_corpus_texts_read(const char *dir, struct ts_corpus_texts *t, char *err,
				size_t errlen);
/* In *@n, what ts_corpus_checks gives for @tier over the same files, loading
 * only the cases that may name it. A case among them that is refused
 * fails the count, with its line in @err, as it fails ts_corpus_load; a
 * refused file that cannot name @tier is not read further here (tiersim
 * validate and tiersim tiers load every case). */
TS_WUR int ts_corpus_texts_checks(struct ts_corpus_texts *t, const char *tier, size_t *n,
				  char *err, size_t errlen);
void ts_corpus_texts_free(struct ts_corpus_texts *t);

#endif
