/*
 * fault.c — the fault-injection layer: fails chosen requests with a chosen
 * -errno, so that tests can drive the IO error paths of tierfs, the loader
 * and the replayer (the role of SQLite's test_vfs.c). With no rule it only
 * passes requests on. The text form of a rule (tierfs's fault= option and
 * control command) is parsed and printed here too.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tier/tier_layer.h"
#include "core/units.h"

struct fault {
	struct ts_tier_layer l;
	struct ts_tier_fault rule[TS_TIER_MAX_FAULTS];
	unsigned n;
	struct ts_rng rng;
	_Atomic uint64_t pub_rules, pub_injected;
};

static bool path_matches(const char *glob, const char *path)
{
	if (!glob[0])
		return true;
	if (!path)
		return false;
	if (strchr(glob, '/'))
		return fnmatch(glob, path, 0) == 0;
	const char *base = strrchr(path, '/');
	return fnmatch(glob, base ? base + 1 : path, 0) == 0;
}

static bool matches(const struct ts_tier_fault *f, const struct ts_tier_req *req)
{
	if (f->op != TS_TIER_OP_NR && f->op != req->op)
		return false;
	if (f->file != UINT64_MAX && f->file != req->file)
		return false;
	if (f->len && (req->off >= f->off + f->len || req->off + req->len <= f->off))
		return false;
	return path_matches(f->path, req->path);
}

static uint64_t fault_submit(struct ts_tier_layer *l, uint64_t now, const struct ts_tier_req *req,
			     struct ts_tier_done *done)
{
	struct fault *f = (struct fault *)l;
	for (unsigned i = 0; i < f->n; i++) {
		if (!matches(&f->rule[i], req))
			continue;
		if (f->rule[i].probability >= 1 || ts_rng_double(&f->rng) < f->rule[i].probability) {
			done->err = f->rule[i].err;
			atomic_fetch_add_explicit(&f->pub_injected, 1, memory_order_relaxed);
			return now; /* fails at once, as a device reporting an error */
		}
	}
	return ts_tier_layer_next(l, now, req, done);
}

int ts_tier_fault_layer_check(struct ts_tier_layer *l, const struct ts_tier_req *req)
{
	struct ts_tier_done d = { 0 };
	struct ts_tier_layer *next = l->next;
	l->next = NULL; /* the rules only: nothing below is charged */
	fault_submit(l, 0, req, &d);
	l->next = next;
	return d.err;
}

static void fault_stats(struct ts_tier_layer *l, struct ts_tier_stats *out)
{
	struct fault *f = (struct fault *)l;
	out->has_faults = true;
	out->faults.rules = atomic_load_explicit(&f->pub_rules, memory_order_relaxed);
	out->faults.injected = atomic_load_explicit(&f->pub_injected, memory_order_relaxed);
}

static void fault_free(struct ts_tier_layer *l)
{
	free(l);
}

static const struct ts_tier_layer_ops fault_ops = {
	.name = "fault",
	.submit = fault_submit,
	.stats = fault_stats,
	.free = fault_free,
};

struct ts_tier_layer *ts_tier_fault_new(uint64_t seed)
{
	struct fault *f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->l.ops = &fault_ops;
	/* Its own stream, so that adding a rule does not shift latency samples. */
	ts_rng_seed(&f->rng, seed ^ 0x6661756c74ULL);
	return &f->l;
}

int ts_tier_fault_layer_add(struct ts_tier_layer *l, const struct ts_tier_fault *rule)
{
	struct fault *f = (struct fault *)l;
	if (rule->err >= 0 || rule->op > TS_TIER_OP_NR || !(rule->probability >= 0) ||
	    rule->probability > 1 || !memchr(rule->path, 0, sizeof(rule->path)))
		return -EINVAL;
	if (f->n == TS_TIER_MAX_FAULTS)
		return -ENOSPC;
	f->rule[f->n++] = *rule;
	atomic_store_explicit(&f->pub_rules, f->n, memory_order_relaxed);
	return 0;
}

void ts_tier_fault_layer_clear(struct ts_tier_layer *l)
{
	struct fault *f = (struct fault *)l;
	f->n = 0;
	atomic_store_explicit(&f->pub_rules, 0, memory_order_relaxed);
}

unsigned ts_tier_fault_layer_list(struct ts_tier_layer *l, struct ts_tier_fault *out, unsigned max)
{
	struct fault *f = (struct fault *)l;
	unsigned n = TS_MIN(f->n, max);
	memcpy(out, f->rule, n * sizeof(*out));
	return n;
}

/* ---- The text form ------------------------------------------------------ */

/* The largest errno glibc names (EHWPOISON is 133 on Linux). */
#define ERRNO_MAX 200

static int parse_errno(const char *s, int *out)
{
	char *end;
	long v = strtol(s, &end, 10);
	if (end != s && !*end) {
		if (v <= 0 || v > ERRNO_MAX)
			return -1;
		*out = (int)v;
		return 0;
	}
	for (int e = 1; e <= ERRNO_MAX; e++) {
		const char *name = strerrorname_np(e);
		if (name && strcmp(name, s) == 0) {
			*out = e;
			return 0;
		}
	}
	return -1;
}

static int parse_op(const char *s, enum ts_tier_op *out)
{
	if (strcmp(s, "any") == 0) {
		*out = TS_TIER_OP_NR;
		return 0;
	}
	for (int op = 0; op < TS_TIER_OP_NR; op++)
		if (strcmp(s, ts_tier_op_name(op)) == 0) {
			*out = op;
			return 0;
		}
	return -1;
}

/* "START-END", sizes with units, END > START. */
static int parse_range(char *s, uint64_t *off, uint64_t *len)
{
	char *dash = strchr(s, '-');
	uint64_t a, b;
	if (!dash)
		return -1;
	*dash = 0;
	int rc = ts_parse_size(s, &a) || ts_parse_size(dash + 1, &b) || b <= a;
	*dash = '-';
	if (rc)
		return -1;
	*off = a;
	*len = b - a;
	return 0;
}

int ts_tier_fault_parse(const char *spec, struct ts_tier_fault *out, char *err, size_t errlen)
{
	struct ts_tier_fault f = { .file = UINT64_MAX, .probability = 1 };
	char buf[512];
	char *save, *field;
	int k = 0;
	bool have_p = false, have_path = false, have_off = false;

	if (snprintf(buf, sizeof(buf), "%s", spec) >= (int)sizeof(buf)) {
		snprintf(err, errlen, "fault rule '%.40s...': too long", spec);
		return TS_E_PARSE;
	}
	for (field = strtok_r(buf, ":", &save); field; field = strtok_r(NULL, ":", &save), k++) {
		if (k == 0) {
			if (parse_op(field, &f.op)) {
				snprintf(err, errlen,
					 "fault rule '%s': op '%s' is not read, write, fsync, fdatasync, "
					 "meta or any",
					 spec, field);
				return TS_E_PARSE;
			}
		} else if (k == 1) {
			int e;
			if (parse_errno(field, &e)) {
				snprintf(err, errlen,
					 "fault rule '%s': '%s' is not an errno name (EIO, ENOSPC...) or "
					 "number",
					 spec, field);
				return TS_E_PARSE;
			}
			f.err = -e;
		} else if (strncmp(field, "path=", 5) == 0 && !have_path) {
			if (!field[5] || strlen(field + 5) >= sizeof(f.path)) {
				snprintf(err, errlen, "fault rule '%s': path= needs a glob of 1 to %d bytes",
					 spec, TS_TIER_FAULT_PATH_MAX - 1);
				return TS_E_PARSE;
			}
			strcpy(f.path, field + 5);
			have_path = true;
		} else if (strncmp(field, "off=", 4) == 0 && !have_off) {
			if (parse_range(field + 4, &f.off, &f.len)) {
				snprintf(err, errlen,
					 "fault rule '%s': '%s' is not a byte range START-END (off=0-4k)",
					 spec, field);
				return TS_E_PARSE;
			}
			have_off = true;
		} else if (!have_p && !strchr(field, '=')) {
			char *end;
			f.probability = strtod(field, &end);
			if (end == field || *end || !(f.probability >= 0 && f.probability <= 1)) {
				snprintf(err, errlen,
					 "fault rule '%s': probability '%s' is not a number in [0, 1]", spec,
					 field);
				return TS_E_PARSE;
			}
			have_p = true;
		} else {
			snprintf(err, errlen,
				 "fault rule '%s': unexpected '%s' (expected OP:ERRNO[:PROBABILITY]"
				 "[:path=GLOB][:off=START-END], each once)",
				 spec, field);
			return TS_E_PARSE;
		}
	}
	if (k < 2) {
		snprintf(err, errlen,
			 "fault rule '%s': expected OP:ERRNO[:PROBABILITY][:path=GLOB][:off=START-END] "
			 "(read:EIO:0.01)",
			 spec);
		return TS_E_PARSE;
	}
	*out = f;
	return 0;
}

int ts_tier_fault_format(const struct ts_tier_fault *f, char *buf, size_t n)
{
	const char *name = f->err < 0 ? strerrorname_np(-f->err) : NULL;
	char e[16];
	if (!name) {
		snprintf(e, sizeof(e), "%d", -f->err);
		name = e;
	}
	/* The shortest probability that reads back the same double. */
	char p[32];
	snprintf(p, sizeof(p), "%.15g", f->probability);
	if (strtod(p, NULL) != f->probability)
		snprintf(p, sizeof(p), "%.17g", f->probability);
	int w = snprintf(buf, n, "%s:%s:%s", f->op == TS_TIER_OP_NR ? "any" : ts_tier_op_name(f->op),
			 name, p);
	if (w >= 0 && f->path[0])
		w += snprintf(buf + TS_MIN((size_t)w, n), n - TS_MIN((size_t)w, n), ":path=%s",
			      f->path);
	if (w >= 0 && f->len)
		w += snprintf(buf + TS_MIN((size_t)w, n), n - TS_MIN((size_t)w, n),
			      ":off=%llu-%llu", (unsigned long long)f->off,
			      (unsigned long long)(f->off + f->len));
	return w;
}
