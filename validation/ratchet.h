/*
 * ratchet.h — the verdict of a validation run and the ratchet that keeps
 * it from sliding back.
 *
 * Every case that ran ends in one outcome. A checking case is inside (every
 * figure within its tolerance), a known miss (outside, each figure that is
 * out carrying its recorded reason) or outside (some figure out without
 * one); a known miss is a miss: it is counted outside, its reason beside
 * it. Fitting cases are reproduced or off; same-run checks are shown and not
 * scored.
 *
 * The ratchet (validation/baseline) lists the checking cases that were
 * inside when it was last recorded. A run fails when fewer of the selected
 * cases are inside than the baseline lists among them, so a change can keep
 * or raise the count, never lower it; it also fails on an outside figure
 * without a reason, a fit the profile no longer reproduces, or a case that
 * could not run. The file is text: '#' comments, then one case id a line.
 */
#ifndef TS_RATCHET_H
#define TS_RATCHET_H

#include <stdbool.h>
#include <stddef.h>

#include "core/ts.h"

enum ts_outcome {
	TS_OUTCOME_INSIDE,	 /* checking case, every figure inside */
	TS_OUTCOME_KNOWN,	 /* checking case, out only where a reason is recorded */
	TS_OUTCOME_OUTSIDE,	 /* checking case, out with no reason */
	TS_OUTCOME_FIT,		 /* fitting case its profile reproduces */
	TS_OUTCOME_FIT_OFF,	 /* fitting case its profile no longer reproduces */
	TS_OUTCOME_SAME_RUN,	 /* same-run check: shown, not scored */
	TS_OUTCOME_FAILED,	 /* could not be run */
	TS_OUTCOME_NOT_RUNNABLE, /* needs a part tiersim does not have yet */
};

struct ts_case_outcome {
	const char *id;
	enum ts_outcome outcome;
};

/* The case ids inside at the last record. */
struct ts_ratchet {
	char **ids;
	size_t n;
};

struct ts_verdict {
	size_t checks;	 /* checking cases that ran (scored) */
	size_t inside;	 /* of them inside */
	size_t known;	 /* outside with their reasons */
	size_t outside;	 /* outside without a reason */
	size_t fits, fits_off, same_run, failed, not_runnable;
	size_t baseline; /* selected cases the ratchet lists as inside */
	size_t fell;	 /* of those, not inside now */
	size_t rose;	 /* inside now, not in the ratchet */
	bool pass;
};

/* Reads a ratchet file; a missing file is an empty ratchet only when
 * @missing_ok. A line that is not a case id is refused as FILE:LINE. */
TS_WUR int ts_ratchet_load(const char *path, bool missing_ok, struct ts_ratchet *r, char *err,
			   size_t errlen);
/* Writes the ids of the cases of @o that are inside (with a header). */
TS_WUR int ts_ratchet_save(const char *path, const struct ts_case_outcome *o, size_t n,
			   char *err, size_t errlen);
bool ts_ratchet_has(const struct ts_ratchet *r, const char *id);
void ts_ratchet_free(struct ts_ratchet *r);

/* Counts @n outcomes and judges them against @r (NULL: no ratchet). */
void ts_verdict_judge(const struct ts_case_outcome *o, size_t n, const struct ts_ratchet *r,
		      struct ts_verdict *v);

#endif
