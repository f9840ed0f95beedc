/* corpus.c — the validation corpus and its checks per tier (corpus.h). */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "validation/corpus.h"
#include "core/paths.h"

/* The case files of @dir (NULL: the shipped validation/cases, its path
 * in @found) in @g, sorted; at least one. */
static int case_files(const char *dir, char *found, size_t foundlen, glob_t *g, char *err,
		      size_t errlen)
{
	char pat[4200];
	if (dir)
		snprintf(found, foundlen, "%s", dir);
	else if (ts_data_find("validation/cases", found, foundlen)) {
		snprintf(err, errlen, "validation/cases not found; set TIERSIM_DATADIR to the "
				      "source tree");
		found[0] = 0;
		return -ENOENT;
	}
	snprintf(pat, sizeof(pat), "%s/*.json", found);
	memset(g, 0, sizeof(*g));
	if (glob(pat, 0, NULL, g) || !g->gl_pathc) {
		globfree(g);
		snprintf(err, errlen, "no case files (*.json) in %s", found);
		return -ENOENT;
	}
	return 0;
}

int ts_corpus_load_all(const char *dir, struct ts_corpus *k, FILE *refusals, const char *who,
		       size_t *nrefused, char *err, size_t errlen)
{
	memset(k, 0, sizeof(*k));
	if (nrefused)
		*nrefused = 0;
	glob_t g;
	int rc = case_files(dir, k->dir, sizeof(k->dir), &g, err, errlen);
	if (rc)
		return rc;
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
		return c->scenario ? NULL
				   : "a scenario that runs the case's loader in virtual time "
				     "(config.workload.scenario), and a host profile of its CPU "
				     "measured elsewhere than the case";
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

/* Whether @c is an independent check of @tier that this build can run. */
static bool checks(const struct ts_case *c, const char *tier)
{
	char buf[128];
	const char *t = ts_case_tier(c);
	return !c->fits && !c->same_run && t && !strcmp(t, tier) &&
	       !ts_case_needs_of(c, buf, sizeof(buf));
}

size_t ts_corpus_checks(const struct ts_corpus *k, const char *tier, const char **ids,
			size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < k->n; i++) {
		if (!checks(k->c[i], tier))
			continue;
		if (ids && n < max)
			ids[n] = k->c[i]->id;
		n++;
	}
	return n;
}

/* The whole of file @path, NUL-terminated, in *@text. */
static int read_text(const char *path, char **text, char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	int e = 0;
	*text = NULL;
	if (fd < 0 || fstat(fd, &st)) {
		e = errno;
	} else if (!(*text = malloc((size_t)st.st_size + 1))) {
		e = ENOMEM;
	} else {
		size_t got = 0;
		while (got < (size_t)st.st_size) {
			ssize_t r = read(fd, *text + got, (size_t)st.st_size - got);
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0) {
				e = r < 0 ? errno : 0;
				break;
			}
			got += (size_t)r;
		}
		(*text)[got] = 0;
	}
	if (fd >= 0)
		close(fd);
	if (e) {
		free(*text);
		*text = NULL;
		snprintf(err, errlen, "%s: cannot read the case file (%s)", path, strerror(e));
	}
	return -e;
}

int ts_corpus_texts_read(const char *dir, struct ts_corpus_texts *t, char *err, size_t errlen)
{
	memset(t, 0, sizeof(*t));
	glob_t g;
	int rc = case_files(dir, t->dir, sizeof(t->dir), &g, err, errlen);
	if (rc)
		return rc;
	if (!(t->path = calloc(g.gl_pathc, sizeof(*t->path))) ||
	    !(t->text = calloc(g.gl_pathc, sizeof(*t->text))))
		rc = -ENOMEM;
	for (size_t i = 0; !rc && i < g.gl_pathc; i++) {
		if (!(t->path[i] = strdup(g.gl_pathv[i]))) {
			rc = -ENOMEM;
			break;
		}
		t->n++;
		rc = read_text(t->path[i], &t->text[i], err, errlen);
	}
	if (rc == -ENOMEM)
		snprintf(err, errlen, "reading the case files of %s: out of memory", t->dir);
	globfree(&g);
	if (rc)
		ts_corpus_texts_free(t);
	return rc;
}

/* Whether a JSON text can hold the string @tier as a value: it has it
 * quoted, or it writes characters as escapes that could spell it (\u,
 * \/; a name with a quote, a backslash or a control character: any). */
static bool may_name(const char *text, const char *tier, size_t tlen)
{
	for (size_t i = 0; i < tlen; i++)
		if (tier[i] == '"' || tier[i] == '\\' || (unsigned char)tier[i] < 0x20)
			return true;
	if (strstr(text, "\\u") || strstr(text, "\\/"))
		return true;
	for (const char *p = text; (p = strstr(p, tier)); p++)
		if (p > text && p[-1] == '"' && p[tlen] == '"')
			return true;
	return false;
}

int ts_corpus_texts_checks(struct ts_corpus_texts *t, const char *tier, size_t *n, char *err,
			   size_t errlen)
{
	for (size_t i = 0; i < t->nmemo; i++)
		if (!strcmp(t->memo[i].tier, tier)) {
			*n = t->memo[i].n;
			return 0;
		}
	size_t tlen = strlen(tier), count = 0;
	for (size_t i = 0; i < t->n; i++) {
		if (!may_name(t->text[i], tier, tlen))
			continue;
		struct ts_case *c;
		int rc = ts_case_load(t->path[i], &c, err, errlen);
		if (rc)
			return rc;
		count += checks(c, tier);
		ts_case_free(c);
	}
	void *m = realloc(t->memo, (t->nmemo + 1) * sizeof(*t->memo));
	if (m) {
		t->memo = m;
		if ((t->memo[t->nmemo].tier = strdup(tier)))
			t->memo[t->nmemo++].n = count;
	}
	*n = count;
	return 0;
}

void ts_corpus_texts_free(struct ts_corpus_texts *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->path[i]);
		free(t->text[i]);
	}
	for (size_t i = 0; i < t->nmemo; i++)
		free(t->memo[i].tier);
	free(t->path);
	free(t->text);
	free(t->memo);
	memset(t, 0, sizeof(*t));
}
