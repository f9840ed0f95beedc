/*
 * report.h — tiersim validate's selection and output: the cases a command
 * line names, the tier profiles the cases bring, and the results (run.h's
 * rows and summary) as text or JSON.
 */
#ifndef TS_VALIDATE_REPORT_H
#define TS_VALIDATE_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "tier/tier.h"
#include "validation/case.h"
#include "validation/ratchet.h"
#include "validation/run.h"

/* Adds a case's extra profile file @rel (found as ts_data_find does) to
 * @set once; @added lists the ones added (malloc'd strings). */
TS_WUR int ts_validate_add_profile(struct ts_tier_set *set, const char *rel, char ***added,
				   size_t *nadded, char *err, size_t errlen);
/* Whether case @id is among @all. */
bool ts_validate_in_corpus(struct ts_case *const *all, size_t n, const char *id);
/* Whether @c is selected by @sel (ids or files, globs on ids, "tag:TAG";
 * none: every case), never when it carries @skip_tag; used[i] is set for
 * each selector that matched. */
bool ts_validate_selected(const struct ts_case *c, char *const *sel, size_t nsel, bool *used,
			  const char *skip_tag);

/* The table of every figure, the cases not runnable yet, the summary and
 * the worst five (@real: the figures were emulated, not predicted). */
void ts_validate_print(FILE *out, struct ts_case_row *rows, size_t n,
		       const struct ts_validate_summary *s, struct ts_fig_row **worst,
		       size_t nworst, bool real);
/* The checks per tier of @set and the ratchet against @baseline. */
void ts_validate_print_verdict(FILE *out, const struct ts_case_row *rows, size_t n,
			       const struct ts_validate_summary *s,
			       const struct ts_ratchet *ratchet, const char *baseline,
			       const struct ts_tier_set *set);
/* The cases and the summary as one JSON object; 0, -ENOMEM or -EIO. */
TS_WUR int ts_validate_print_json(FILE *out, struct ts_case_row *rows, size_t n,
				  const struct ts_validate_summary *s, bool real);

#endif
