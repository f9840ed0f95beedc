/* opt.c — table-driven options (see opt.h). */
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/opt.h"
#include "core/units.h"

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

/* "--out-size" for "out_size": the option as a command line spells it. */
static const char *dashed(const char *name, char *buf, size_t n)
{
	snprintf(buf, n, "--%s", name);
	for (char *p = buf + 2; *p; p++)
		if (*p == '_')
			*p = '-';
	return buf;
}

/* A bound or a default in the option's own terms: "4.00 KiB", "2.00 ms". */
static const char *fmt_value(const struct ts_opt *o, double v, char *buf, size_t n)
{
	char s[32];
	switch (o->type) {
	case TS_OPT_SIZE: return ts_fmt_size(buf, n, (uint64_t)v);
	case TS_OPT_DURATION: return ts_fmt_duration(buf, n, (uint64_t)v);
	case TS_OPT_RATE:
		snprintf(buf, n, "%s/s", ts_fmt_size(s, sizeof(s), (uint64_t)v));
		return buf;
	default: snprintf(buf, n, "%.15g", v); return buf;
	}
}

/* "1 to 4096", "at least 512 B", "" without bounds. */
static const char *range_text(const struct ts_opt *o, char *buf, size_t n)
{
	char a[32], b[32];
	buf[0] = 0;
	if (o->min == 0 && o->max == 0)
		return buf;
	if (o->type == TS_OPT_LIST)
		snprintf(buf, n, "at most %.15g", o->max);
	else if (o->max > o->min)
		snprintf(buf, n, "%s to %s", fmt_value(o, o->min, a, sizeof(a)),
			 fmt_value(o, o->max, b, sizeof(b)));
	else
		snprintf(buf, n, "at least %s", fmt_value(o, o->min, a, sizeof(a)));
	return buf;
}

/* @cl: the value came from a command line, and the message says
 * "--name value: ..." the way the user wrote it. */
static int range_check(const struct ts_opt *o, const char *val, double v, bool cl, char *err,
		       size_t errlen)
{
	if (o->min == 0 && o->max == 0)
		return 0;
	bool has_max = o->max > o->min;
	if (v < o->min || (has_max && v > o->max)) {
		char d[80], r[80], m[80];
		if (cl)
			snprintf(err, errlen, "%s %s: expected %s", dashed(o->name, d, sizeof(d)), val,
				 range_text(o, r, sizeof(r)));
		else if (has_max)
			snprintf(err, errlen, "option '%s': %s is out of range [%s, %s]", o->name,
				 v < 0 ? val : fmt_value(o, v, d, sizeof(d)),
				 fmt_value(o, o->min, r, sizeof(r)),
				 fmt_value(o, o->max, m, sizeof(m)));
		else
			snprintf(err, errlen, "option '%s': %s is below the minimum %s", o->name,
				 v < 0 ? val : fmt_value(o, v, d, sizeof(d)),
				 fmt_value(o, o->min, r, sizeof(r)));
		return TS_E_PARSE;
	}
	return 0;
}

/* Appends the comma-separated words of @val; an explicit value replaces the
 * default first. */
static int list_add(const struct ts_opt *o, struct ts_opt_list *l, const char *val, bool dflt,
		    char *err, size_t errlen)
{
	if (!l->given) {
		for (size_t i = 0; i < l->n; i++)
			free(l->v[i]);
		l->n = 0;
	}
	l->given = !dflt;
	for (const char *p = val; *p;) {
		size_t len = strcspn(p, ",");
		if (len && o->max > 0 && (double)l->n >= o->max) {
			snprintf(err, errlen, "option '%s': at most %.15g values", o->name, o->max);
			return -E2BIG;
		}
		if (len) {
			char **nv = realloc(l->v, (l->n + 1) * sizeof(*nv));
			if (!nv)
				return -ENOMEM;
			l->v = nv;
			if (!(l->v[l->n] = strndup(p, len)))
				return -ENOMEM;
			l->n++;
		}
		p += len + (p[len] == ',');
	}
	if (!l->n && !dflt)
		return TS_E_PARSE;
	return 0;
}

/*
 * Why one long function: one switch with a case per option type, each
 * parsing and range-checking its value; its length is the number of types.
 */
static int set_one(const struct ts_opt *o, void *base, const char *val, bool cl, char *err,
		   size_t errlen)
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
		if ((rc = range_check(o, val, (double)v, cl, err, errlen)))
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
		if ((rc = range_check(o, val, (double)u, cl, err, errlen)))
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
		if ((rc = range_check(o, val, d, cl, err, errlen)))
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
		if ((rc = range_check(o, val, (double)u, cl, err, errlen)))
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
	case TS_OPT_LIST:
		rc = list_add(o, (struct ts_opt_list *)p, val, false, err, errlen);
		if (rc == -E2BIG) {
			if (cl) {
				char d[80];
				snprintf(err, errlen, "%s %s: at most %.15g values",
					 dashed(o->name, d, sizeof(d)), val, o->max);
			}
			return TS_E_PARSE;
		}
		break;
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
			[TS_OPT_LIST] = "a comma-separated list",
		};
		char d[80];
		if (cl)
			snprintf(err, errlen, "%s %s: expected %s", dashed(o->name, d, sizeof(d)), val,
				 what[o->type]);
		else
			snprintf(err, errlen, "option '%s': cannot parse '%s' (expected %s)", o->name,
				 val, what[o->type]);
	}
	return rc;
}

static void free_one(const struct ts_opt *o, void *base)
{
	char *p = (char *)base + o->off;
	if (o->type == TS_OPT_STR) {
		free(*(char **)p);
		*(char **)p = NULL;
	} else if (o->type == TS_OPT_LIST) {
		struct ts_opt_list *l = (struct ts_opt_list *)p;
		for (size_t i = 0; i < l->n; i++)
			free(l->v[i]);
		free(l->v);
		*l = (struct ts_opt_list){ 0 };
	}
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
			case TS_OPT_LIST: free_one(o, base); break;
			default: *(uint64_t *)p = 0; break;
			}
			continue;
		}
		if (o->type == TS_OPT_LIST)
			free_one(o, base); /* the default replaces whatever was set */
		int rc = o->type == TS_OPT_LIST
				 ? list_add(o, (struct ts_opt_list *)p, o->def, true, err, errlen)
				 : set_one(o, base, o->def, false, err, errlen);
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
	return set_one(o, base, val, false, err, errlen);
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

static const struct ts_opt *find_alias(const struct ts_opt *tab, char c)
{
	for (const struct ts_opt *o = tab; o->name; o++)
		if (o->alias && o->alias == c)
			return o;
	return NULL;
}

/* One option at argv[*i]; advances *i past a value it takes from the next
 * word. */
static int parse_one(const struct ts_opt *tab, void *base, int argc, char **argv, int *i,
		     char *err, size_t errlen)
{
	const char *a = argv[*i], *val = NULL;
	const struct ts_opt *o;
	char d[80];
	if (a[1] == '-') {
		char name[64];
		const char *eq = strchr(a + 2, '=');
		size_t nl = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
		snprintf(name, sizeof(name), "%.*s", (int)nl, a + 2);
		for (char *p = name; *p; p++)
			if (*p == '-')
				*p = '_';
		o = nl < sizeof(name) ? ts_opt_find(tab, name) : NULL;
		if (!o) {
			snprintf(err, errlen, "unknown option '%.*s'", (int)(nl + 2), a);
			return TS_E_UNKNOWN;
		}
		if (eq)
			val = eq + 1;
	} else {
		o = find_alias(tab, a[1]);
		if (!o || (o->type == TS_OPT_BOOL && a[2])) {
			snprintf(err, errlen, "unknown option '%s'", a);
			return TS_E_UNKNOWN;
		}
		if (a[2])
			val = a + 2;
	}
	if (!val && o->type == TS_OPT_BOOL) {
		val = "true"; /* a bare flag */
	} else if (!val) {
		if (*i + 1 >= argc) {
			snprintf(err, errlen, "option '%s' needs a value", dashed(o->name, d, sizeof(d)));
			return TS_E_PARSE;
		}
		val = argv[++*i];
	}
	return set_one(o, base, val, true, err, errlen);
}

int ts_opt_parse_args(const struct ts_opt *tab, void *base, int argc, char **argv,
		      unsigned flags, struct ts_opt_args *out, char *err, size_t errlen)
{
	bool first = flags & TS_OPT_ARGS_FIRST;
	*out = (struct ts_opt_args){ .pos = argv + 1 };
	if (err && errlen)
		err[0] = 0;
	/* --help wins wherever it stands among the options. */
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			out->help = true;
			return 0;
		}
		if (first && (argv[i][0] != '-' || !argv[i][1]))
			break;
	}
	bool opts = true;
	for (int i = 1; i < argc; i++) {
		char *a = argv[i];
		if (opts && !strcmp(a, "--")) {
			opts = false;
		} else if (!opts || a[0] != '-' || !a[1]) {
			argv[1 + out->npos++] = a; /* never ahead of i: nothing unread moves */
			opts = opts && !first;
		} else {
			int rc = parse_one(tab, base, argc, argv, &i, err, errlen);
			if (rc)
				return rc;
		}
	}
	argv[1 + out->npos] = NULL; /* as argv[argc] */
	return 0;
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
	case TS_OPT_LIST: {
		const struct ts_opt_list *l = (const struct ts_opt_list *)p;
		size_t used = 0;
		buf[0] = 0;
		for (size_t i = 0; i < l->n && used < n; i++)
			used += (size_t)snprintf(buf + used, n - used, "%s%s", i ? "," : "", l->v[i]);
		break;
	}
	case TS_OPT_RATE: {
		char s[32];
		snprintf(buf, n, "%s/s", ts_fmt_size(s, sizeof(s), *(const uint64_t *)p));
		break;
	}
	default: snprintf(buf, n, "%" PRIu64, *(const uint64_t *)p); break;
	}
	return buf;
}

/* "[default 200; 1 to 10000000 images]": what the table says beyond the help. */
static void help_bracket(const struct ts_opt *o, char *buf, size_t n)
{
	char r[96];
	bool unit = o->unit && *o->unit && o->type != TS_OPT_SIZE && o->type != TS_OPT_RATE &&
		    o->type != TS_OPT_DURATION && o->type != TS_OPT_STR && o->type != TS_OPT_LIST &&
		    o->type != TS_OPT_BOOL;
	bool def = o->def && *o->def && !(o->type == TS_OPT_BOOL && !strcmp(o->def, "false"));
	range_text(o, r, sizeof(r));
	buf[0] = 0;
	if (!def && !r[0])
		return;
	snprintf(buf, n, " [%s%s%s%s%s%s]", def ? "default " : "", def ? o->def : "",
		 def && r[0] ? "; " : "", r, unit ? " " : "", unit ? o->unit : "");
}

/* Prints @text after a @lead column of @col characters, wrapped at 79. */
static void help_wrapped(FILE *f, const char *lead, int col, const char *text)
{
	int at = fprintf(f, "%s", lead);
	if (at >= col) {
		fputc('\n', f);
		at = 0;
	}
	at += fprintf(f, "%*s", col - at, "");
	for (const char *p = text; *p;) {
		while (*p == ' ')
			p++;
		int w = (int)strcspn(p, " ");
		if (!w)
			break;
		if (at > col && at + 1 + w > 79)
			at = fprintf(f, "\n%*s", col, "") - 1;
		at += fprintf(f, "%s%.*s", at > col ? " " : "", w, p);
		p += w;
	}
	fputc('\n', f);
}

static void help_line(FILE *f, const struct ts_opt *o, bool cl)
{
	static const char *const meta[] = {
		[TS_OPT_BOOL] = "", [TS_OPT_INT] = "N", [TS_OPT_U64] = "N",
		[TS_OPT_DOUBLE] = "X", [TS_OPT_SIZE] = "SIZE", [TS_OPT_RATE] = "RATE",
		[TS_OPT_DURATION] = "TIME", [TS_OPT_STR] = "TEXT", [TS_OPT_LIST] = "A,B,...",
	};
	char lead[96], d[80], text[1024], br[192];
	const char *m = o->meta ? o->meta : meta[o->type];
	if (cl)
		snprintf(lead, sizeof(lead), "  %s%s%s%s%s", o->alias ? "-" : "",
			 o->alias ? (char[]){ o->alias, ',', ' ', 0 } : "",
			 dashed(o->name, d, sizeof(d)), *m ? " " : "", m);
	else
		snprintf(lead, sizeof(lead), "  %s", o->name);
	help_bracket(o, br, sizeof(br));
	snprintf(text, sizeof(text), "%s%s", o->help ? o->help : "", br);
	help_wrapped(f, lead, cl ? 24 : 21, text);
}

void ts_opt_help(FILE *f, const struct ts_opt *tab)
{
	for (const struct ts_opt *o = tab; o->name; o++)
		help_line(f, o, false);
}

void ts_opt_help_args(FILE *f, const struct ts_opt *tab)
{
	for (const struct ts_opt *o = tab; o->name; o++)
		help_line(f, o, true);
	help_wrapped(f, "  -h, --help", 24, "this text");
}

void ts_opt_free(const struct ts_opt *tab, void *base)
{
	for (const struct ts_opt *o = tab; o && o->name; o++)
		free_one(o, base);
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
		} else if (o->type == TS_OPT_LIST) {
			const struct ts_opt_list *from = (const struct ts_opt_list *)s;
			struct ts_opt_list *to = (struct ts_opt_list *)d;
			*to = (struct ts_opt_list){ .given = from->given };
			if (!from->n)
				continue;
			if (!(to->v = calloc(from->n, sizeof(*to->v))))
				return -ENOMEM;
			for (; to->n < from->n; to->n++)
				if (!(to->v[to->n] = strdup(from->v[to->n])))
					return -ENOMEM;
		} else {
			memcpy(d, s, sz);
		}
	}
	return 0;
}
