/* opt.c — table-driven options (see opt.h). */
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "opt.h"
#include "units.h"

const struct ts_opt *ts_opt_find(const struct ts_opt *tab, const char *name)
{
	for (const struct ts_opt *o = tab; o->name; o++)
		if (strcmp(o->name, name) == 0)
			return o;
	return NULL;
}

void ts_opt_known(const struct ts_opt *tab, char *buf, size_t n)
{
	size_t used = 0;
	buf[0] = 0;
	for (const struct ts_opt *o = tab; o->name && used + 1 < n; o++) {
		int w = snprintf(buf + used, n - used, "%s%s", used ? ", " : "", o->name);
		if (w < 0)
			break;
		used += (size_t)w;
	}
}

static int range_check(const struct ts_opt *o, double v, char *err, size_t errlen)
{
	if (o->min == 0 && o->max == 0)
		return 0;
	bool has_max = o->max > o->min;
	if (v < o->min || (has_max && v > o->max)) {
		if (has_max)
			snprintf(err, errlen, "option '%s': %g is out of range [%g, %g]", o->name,
				 v, o->min, o->max);
		else
			snprintf(err, errlen, "option '%s': %g is below the minimum %g", o->name, v,
				 o->min);
		return TS_E_PARSE;
	}
	return 0;
}

static int set_one(const struct ts_opt *o, void *base, const char *val, char *err, size_t errlen)
{
	char *p = (char *)base + o->off;
	uint64_t u;
	char *end;
	int rc = 0;

	switch (o->type) {
	case TS_OPT_BOOL:
		if (!strcasecmp(val, "1") || !strcasecmp(val, "true") || !strcasecmp(val, "yes") ||
		    !strcasecmp(val, "on"))
			*(bool *)p = true;
		else if (!strcasecmp(val, "0") || !strcasecmp(val, "false") ||
			 !strcasecmp(val, "no") || !strcasecmp(val, "off"))
			*(bool *)p = false;
		else
			rc = TS_E_PARSE;
		break;
	case TS_OPT_INT: {
		errno = 0;
		long long v = strtoll(val, &end, 0);
		if (errno || end == val || *end) {
			rc = TS_E_PARSE;
			break;
		}
		if ((rc = range_check(o, (double)v, err, errlen)))
			return rc;
		*(int64_t *)p = v;
		break;
	}
	case TS_OPT_U64:
		errno = 0;
		if (val[0] == '-') {
			rc = TS_E_PARSE;
			break;
		}
		u = strtoull(val, &end, 0);
		if (errno || end == val || *end) {
			rc = TS_E_PARSE;
			break;
		}
		if ((rc = range_check(o, (double)u, err, errlen)))
			return rc;
		*(uint64_t *)p = u;
		break;
	case TS_OPT_DOUBLE: {
		errno = 0;
		double d = strtod(val, &end);
		if (errno || end == val || *end || !isfinite(d)) {
			rc = TS_E_PARSE;
			break;
		}
		if ((rc = range_check(o, d, err, errlen)))
			return rc;
		*(double *)p = d;
		break;
	}
	case TS_OPT_SIZE:
	case TS_OPT_RATE:
	case TS_OPT_DURATION:
		if (o->type == TS_OPT_SIZE)
			rc = ts_parse_size(val, &u);
		else if (o->type == TS_OPT_RATE)
			rc = ts_parse_rate(val, &u);
		else
			rc = ts_parse_duration(val, TS_NS_PER_S, &u);
		if (rc)
			break;
		if ((rc = range_check(o, (double)u, err, errlen)))
			return rc;
		*(uint64_t *)p = u;
		break;
	case TS_OPT_STR: {
		char *dup = strdup(val);
		if (!dup)
			return -ENOMEM;
		free(*(char **)p);
		*(char **)p = dup;
		break;
	}
	}
	if (rc == TS_E_PARSE) {
		static const char *const what[] = {
			[TS_OPT_BOOL] = "true or false",
			[TS_OPT_INT] = "an integer",
			[TS_OPT_U64] = "a non-negative integer",
			[TS_OPT_DOUBLE] = "a number",
			[TS_OPT_SIZE] = "a size such as 4k, 1MiB, 500GiB",
			[TS_OPT_RATE] = "a rate such as 250MB/s",
			[TS_OPT_DURATION] = "a duration such as 2ms, 1.5s",
			[TS_OPT_STR] = "a string",
		};
		snprintf(err, errlen, "option '%s': cannot parse '%s' (expected %s)", o->name, val,
			 what[o->type]);
	}
	return rc;
}

int ts_opt_defaults(const struct ts_opt *tab, void *base, char *err, size_t errlen)
{
	for (const struct ts_opt *o = tab; o->name; o++) {
		char *p = (char *)base + o->off;
		if (!o->def) {
			switch (o->type) {
			case TS_OPT_BOOL: *(bool *)p = false; break;
			case TS_OPT_INT: *(int64_t *)p = 0; break;
			case TS_OPT_DOUBLE: *(double *)p = 0; break;
			case TS_OPT_STR: free(*(char **)p); *(char **)p = NULL; break;
			default: *(uint64_t *)p = 0; break;
			}
			continue;
		}
		int rc = set_one(o, base, o->def, err, errlen);
		if (rc)
			return rc;
	}
	return 0;
}

int ts_opt_set(const struct ts_opt *tab, void *base, const char *name, const char *val,
	       char *err, size_t errlen)
{
	const struct ts_opt *o = ts_opt_find(tab, name);
	if (!o) {
		char known[512];
		ts_opt_known(tab, known, sizeof(known));
		snprintf(err, errlen, "unknown option '%s' (known: %s)", name, known);
		return TS_E_UNKNOWN;
	}
	if (err && errlen)
		err[0] = 0;
	return set_one(o, base, val, err, errlen);
}

int ts_opt_set_kv(const struct ts_opt *tab, void *base, const char *kv, char *err, size_t errlen)
{
	const char *eq = strchr(kv, '=');
	if (!eq || eq == kv) {
		snprintf(err, errlen, "'%s': expected key=value", kv);
		return TS_E_PARSE;
	}
	char name[128];
	size_t len = (size_t)(eq - kv);
	if (len >= sizeof(name)) {
		snprintf(err, errlen, "'%.40s...': option name too long", kv);
		return TS_E_PARSE;
	}
	memcpy(name, kv, len);
	name[len] = 0;
	return ts_opt_set(tab, base, name, eq + 1, err, errlen);
}

int ts_opt_set_arg(const struct ts_opt *tab, void *base, int argc, char **argv, int *i,
		   char *err, size_t errlen)
{
	const char *a = argv[*i];
	if (strncmp(a, "--", 2) != 0) {
		snprintf(err, errlen, "unexpected argument '%s' (see --help)", a);
		return TS_E_PARSE;
	}
	char name[64];
	const char *eq = strchr(a + 2, '='), *val;
	size_t nl = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
	snprintf(name, sizeof(name), "%.*s", (int)nl, a + 2);
	for (char *p = name; *p; p++)
		if (*p == '-')
			*p = '_';
	const struct ts_opt *o = ts_opt_find(tab, name);
	if (eq) {
		val = eq + 1;
	} else if (o && o->type == TS_OPT_BOOL) {
		val = "true"; /* a bare flag */
	} else if (o && *i + 1 < argc) {
		val = argv[++*i];
	} else if (o) {
		snprintf(err, errlen, "option '--%s' needs a value", name);
		return TS_E_PARSE;
	} else {
		val = "";
	}
	return ts_opt_set(tab, base, name, val, err, errlen);
}

char *ts_opt_get(const struct ts_opt *o, const void *base, char *buf, size_t n)
{
	const char *p = (const char *)base + o->off;
	switch (o->type) {
	case TS_OPT_BOOL: snprintf(buf, n, "%s", *(const bool *)p ? "true" : "false"); break;
	case TS_OPT_INT: snprintf(buf, n, "%" PRId64, *(const int64_t *)p); break;
	case TS_OPT_DOUBLE: snprintf(buf, n, "%g", *(const double *)p); break;
	case TS_OPT_SIZE: ts_fmt_size(buf, n, *(const uint64_t *)p); break;
	case TS_OPT_DURATION: ts_fmt_duration(buf, n, *(const uint64_t *)p); break;
	case TS_OPT_STR: snprintf(buf, n, "%s", *(char *const *)p ? *(char *const *)p : ""); break;
	case TS_OPT_RATE: {
		char s[32];
		snprintf(buf, n, "%s/s", ts_fmt_size(s, sizeof(s), *(const uint64_t *)p));
		break;
	}
	default: snprintf(buf, n, "%" PRIu64, *(const uint64_t *)p); break;
	}
	return buf;
}

void ts_opt_help(FILE *f, const struct ts_opt *tab)
{
	for (const struct ts_opt *o = tab; o->name; o++)
		fprintf(f, "  %-18s %s%s%s%s\n", o->name, o->help ? o->help : "",
			o->def ? " [default " : "", o->def ? o->def : "", o->def ? "]" : "");
}

void ts_opt_free(const struct ts_opt *tab, void *base)
{
	for (const struct ts_opt *o = tab; o->name; o++)
		if (o->type == TS_OPT_STR) {
			char **p = (char **)((char *)base + o->off);
			free(*p);
			*p = NULL;
		}
}

int ts_opt_copy(const struct ts_opt *tab, void *dst, const void *src)
{
	for (const struct ts_opt *o = tab; o->name; o++) {
		size_t sz = o->type == TS_OPT_BOOL ? sizeof(bool)
			    : o->type == TS_OPT_STR ? sizeof(char *)
			    : o->type == TS_OPT_DOUBLE ? sizeof(double) : sizeof(uint64_t);
		const char *s = (const char *)src + o->off;
		char *d = (char *)dst + o->off;
		if (o->type == TS_OPT_STR) {
			const char *v = *(char *const *)s;
			char *dup = v ? strdup(v) : NULL;
			if (v && !dup)
				return -ENOMEM;
			*(char **)d = dup;
		} else {
			memcpy(d, s, sz);
		}
	}
	return 0;
}
