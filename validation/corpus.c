/* corpus.c — the validation corpus and its checks per tier (corpus.h). */
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "validation/corpus.h"
#include "core/paths.h"

int ts_corpus_load_all(const char *dir, struct ts_corpus *k, FILE *refusals, const char *who,
		       size_t *nrefused, char *err, size_t errlen)
{
	char pat[4200];
	memset(k, 0, sizeof(*k));
	if (nrefused)
		*nrefused = 0;
	if (dir)
		snprintf(k->dir, sizeof(k->dir), "%s", dir);
	else if (ts_data_find("validation/cases", k->dir, sizeof(k->dir))) {
		snprintf(err, errlen, "validation/cases not found; set TIERSIM_DATADIR to the "
				      "source tree");
		k->dir[0] = 0;
		return -ENOENT;
	}
	snprintf(pat, sizeof(pat), "%s/*.json", k->dir);
	glob_t g = { 0 };
	if (glob(pat, 0, NULL, &g) || !g.gl_pathc) {
		globfree(&g);
		snprintf(err, errlen, "no case files (*.json) in %s", k->dir);
		return -ENOENT;
	}
	int rc = 0;
	if (!(k->c = calloc(g.gl_pathc, sizeof(*k->c))))
		rc = -ENOMEM;
	for (size_t i = 0; !rc && i < g.gl_pathc; i++) {
		/* A refused file, or a case id seen twice: one line each with
		 * @refusals, else the first fails the load. */
		int e = ts_case_load(g.gl_pathv[i], &k->c[k->n], err, errlen);
		for (size_t j = 0; !e && j < k->n; j++)
			if (!strcmp(k->c[j]->id, k->c[k->n]->id)) {
				snprintf(err, errlen, "%s: case id '%s' again", g.gl_pathv[i],
					 k->c[k->n]->id);
				e = TS_E_PARSE;
			}
		if (!e || k->c[k->n])
			k->n++;
		if (e && refusals) {
			fprintf(refusals, "%s: %s\n", who, err);
			(*nrefused)++;
		} else {
			rc = e;
		}
	}
	globfree(&g);
	if (rc)
		ts_corpus_free(k);
	return rc;
}

int ts_corpus_load(const char *dir, struct ts_corpus *k, char *err, size_t errlen)
{
	return ts_corpus_load_all(dir, k, NULL, NULL, NULL, err, errlen);
}

void ts_corpus_free(struct ts_corpus *k)
{
	for (size_t i = 0; i < k->n; i++)
		ts_case_free(k->c[i]);
	free(k->c);
	memset(k, 0, sizeof(*k));
}

const char *ts_case_needs_of(const struct ts_case *c, char *buf, size_t len)
{
	if (c->level == TS_CASE_LOADER)
		return "the case's loader (FFCV, PyTorch DataLoader worker processes with Pillow) "
		       "as a source of the virtual pipeline, and a host profile of its CPU";
	if (c->level == TS_CASE_WORKLOAD)
		return c->dlio ? NULL
			       : "a DLIO run (config.workload.dlio: the workload, its overrides, "
				 "tier, memory)";
	if (c->level == TS_CASE_ACCELERATOR)
		return NULL;
	if (strcmp(c->tool, "fio") && strcmp(c->tool, "ioping")) {
		snprintf(buf, len, "a runner for the tool '%s'", c->tool);
		return buf;
	}
	return NULL;
}

const char *ts_case_tier(const struct ts_case *c)
{
	return c->dlio ? c->dlio->tier : c->tier; /* NULL for an accelerator case */
}

size_t ts_corpus_checks(const struct ts_corpus *k, const char *tier, const char **ids,
			size_t max)
{
	size_t n = 0;
	char buf[128];
	for (size_t i = 0; i < k->n; i++) {
		const struct ts_case *c = k->c[i];
		const char *t = ts_case_tier(c);
		if (c->fits || c->same_run || !t || strcmp(t, tier) ||
		    ts_case_needs_of(c, buf, sizeof(buf)))
			continue;
		if (ids && n < max)
			ids[n] = c->id;
		n++;
	}
	return n;
}
