/* ratchet.c — the verdict of a validation run and its ratchet (ratchet.h). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "validation/ratchet.h"

/* A case id is a file name without .json: letters, digits, '-', '_', '.'. */
static bool is_id(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '-' && *s != '_' && *s != '.')
			return false;
	return true;
}

int ts_ratchet_load(const char *path, bool missing_ok, struct ts_ratchet *r, char *err,
		    size_t errlen)
{
	memset(r, 0, sizeof(*r));
	FILE *f = fopen(path, "r");
	if (!f) {
		if (errno == ENOENT && missing_ok)
			return 0;
		int e = errno;
		snprintf(err, errlen, "%s: cannot read the baseline: %s", path, strerror(e));
		return -e;
	}
	char line[512];
	int rc = 0;
	for (unsigned no = 1; fgets(line, sizeof(line), f); no++) {
		size_t l = strlen(line);
		if (l && line[l - 1] != '\n' && !feof(f)) {
			snprintf(err, errlen, "%s:%u: line too long for a case id", path, no);
			rc = -EINVAL;
			break;
		}
		char *s = line, *e = line + l;
		while (*s == ' ' || *s == '\t')
			s++;
		while (e > s && isspace((unsigned char)e[-1]))
			*--e = 0;
		if (!*s || *s == '#')
			continue;
		if (!is_id(s)) {
			snprintf(err, errlen, "%s:%u: '%s' is not a case id (one id a line, '#' "
					      "comments)", path, no, s);
			rc = -EINVAL;
			break;
		}
		if (ts_ratchet_has(r, s))
			continue;
		char **nv = realloc(r->ids, (r->n + 1) * sizeof(*r->ids));
		if (!nv || !(nv[r->n] = strdup(s))) {
			if (nv)
				r->ids = nv;
			rc = -ENOMEM;
			snprintf(err, errlen, "%s: out of memory", path);
			break;
		}
		r->ids = nv;
		r->n++;
	}
	fclose(f);
	if (rc)
		ts_ratchet_free(r);
	return rc;
}

int ts_ratchet_save(const char *path, const struct ts_case_outcome *o, size_t n, char *err,
		    size_t errlen)
{
	char tmp[4200];
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	if (!f) {
		int e = errno;
		snprintf(err, errlen, "%s: cannot write the baseline: %s", tmp, strerror(e));
		return -e;
	}
	struct ts_verdict v;
	ts_verdict_judge(o, n, NULL, &v);
	fprintf(f, "# validation/baseline: the checking cases inside their tolerance when it was\n"
		   "# last recorded (tiersim validate --record-baseline). `tiersim validate`\n"
		   "# fails when fewer of the cases it ran are inside than this lists.\n"
		   "# %zu of %zu checking cases inside.\n",
		v.inside, v.checks);
	for (size_t i = 0; i < n; i++)
		if (o[i].outcome == TS_OUTCOME_INSIDE)
			fprintf(f, "%s\n", o[i].id);
	int rc = ferror(f) ? -EIO : 0;
	if (fclose(f) && !rc)
		rc = -errno;
	if (!rc && rename(tmp, path))
		rc = -errno;
	if (rc) {
		snprintf(err, errlen, "%s: cannot write the baseline: %s", path, strerror(-rc));
		remove(tmp);
	}
	return rc;
}

bool ts_ratchet_has(const struct ts_ratchet *r, const char *id)
{
	for (size_t i = 0; r && i < r->n; i++)
		if (!strcmp(r->ids[i], id))
			return true;
	return false;
}

void ts_ratchet_free(struct ts_ratchet *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->ids[i]);
	free(r->ids);
	memset(r, 0, sizeof(*r));
}

void ts_verdict_judge(const struct ts_case_outcome *o, size_t n, const struct ts_ratchet *r,
		      struct ts_verdict *v)
{
	memset(v, 0, sizeof(*v));
	for (size_t i = 0; i < n; i++) {
		bool listed = ts_ratchet_has(r, o[i].id);
		bool in = o[i].outcome == TS_OUTCOME_INSIDE;
		/* A listed case counts against the ratchet whatever it is now:
		 * turned into a fit, same-run or unrunnable, it left the score. */
		v->baseline += listed;
		v->fell += listed && !in;
		v->rose += in && r && !listed;
		switch (o[i].outcome) {
		case TS_OUTCOME_INSIDE: v->checks++, v->inside++; break;
		case TS_OUTCOME_KNOWN: v->checks++, v->known++; break;
		case TS_OUTCOME_OUTSIDE: v->checks++, v->outside++; break;
		case TS_OUTCOME_FIT: v->fits++; break;
		case TS_OUTCOME_FIT_OFF: v->fits++, v->fits_off++; break;
		case TS_OUTCOME_SAME_RUN: v->same_run++; break;
		case TS_OUTCOME_FAILED: v->failed++; break;
		case TS_OUTCOME_NOT_RUNNABLE: v->not_runnable++; break;
		}
	}
	v->pass = v->inside >= v->baseline && !v->outside && !v->fits_off && !v->failed;
}
