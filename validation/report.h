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
/* The tier profiles the corpus @all needs (the defaults and each case's
 * extra file, as ts_validate_add_profile) in *@set, the host profiles in
 * *@hosts, then the evidence rule between them and the corpus
 * (ts_validate_fit_rule). @refused counts the files refused before (the
 * corpus's); any refusal stops it. Each failure is said on @f as
 * "WHO: ..."; returns 0 or -1. */
TS_WUR int ts_validate_load_profiles(struct ts_case **all, size_t n, size_t refused, FILE *f,
				     const char *who, struct ts_tier_set **set,
				     struct ts_host_set **hosts, char ***added, size_t *nadded);
/* Whether case @id is among @all. */
bool ts_validate_in_corpus(struct ts_case *const *all, size_t n, const char *id);
/* Whether @c is selected by @sel (ids or files, globs on ids, "tag:TAG";
 * none: every case), never when it carries @skip_tag; used[i] is set for
 * each selector that matched. */
bool ts_validate_selected(const struct ts_case *c, char *const *sel, size_t nsel, bool *used,
			  const char *skip_tag);

/* The ratchet file in @buf: @given (--baseline), else validation/baseline
 * beside the corpus folder @dir when it is the shipped one (@shipped),
 * else "" (none). */
void ts_validate_baseline_path(const char *given, bool shipped, const char *dir, char *buf,
			       size_t len);
/* ts_ratchet_load of @path, then every case it lists must be among @all;
 * each failure is said on @f as "WHO: ..."; 0 or -1. */
TS_WUR int ts_validate_ratchet_load(const char *path, bool missing_ok, struct ts_case *const *all,
				    size_t n, FILE *f, const char *who, struct ts_ratchet *r);

/* The run judged: each figure's error, the worst ones, each case's
 * outcome (for the ratchet) and the summary. */
struct ts_validate_judged {
	double *errs;
	struct ts_fig_row **worst;
	size_t nworst;
	struct ts_case_outcome *o;
	struct ts_validate_summary s;
};
/* ts_validate_summarize of the @n @rows against @ratchet (may be NULL)
 * into @j; 0 or -ENOMEM (then nothing to free). */
TS_WUR int ts_validate_judge(struct ts_case_row *rows, size_t n, const struct ts_ratchet *ratchet,
			     struct ts_validate_judged *j);
void ts_validate_judged_free(struct ts_validate_judged *j);

/* The rows (calloc'd into *@rows, *@nrows of them) of the cases of @all
 * that @sel selects (ts_validate_selected), each with what it still needs
 * (ts_case_needs) or room for its figures; *@unmatched is the first
 * selector that matched no case, or NULL. 0 or -ENOMEM (the rows made so
 * far are the caller's to free). */
TS_WUR int ts_validate_select_rows(struct ts_case **all, size_t n, char *const *sel, size_t nsel,
				   const char *skip_tag, struct ts_case_row **rows, size_t *nrows,
				   const char **unmatched);
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
