/* units.c — parsing and printing of sizes, rates and durations. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/units.h"

struct unit {
	const char *suffix;
	double mult;
};

static const struct unit size_units[] = {
	{ "", 1 },		{ "b", 1 },
	{ "k", 1024.0 },	{ "kib", 1024.0 },	{ "kb", 1e3 },
	{ "m", 1048576.0 },	{ "mib", 1048576.0 },	{ "mb", 1e6 },
	{ "g", 1073741824.0 },	{ "gib", 1073741824.0 },	{ "gb", 1e9 },
	{ "t", 1099511627776.0 }, { "tib", 1099511627776.0 }, { "tb", 1e12 },
};

static const struct unit time_units[] = {
	{ "ns", 1 },	 { "us", 1e3 },	    { "\xc2\xb5s", 1e3 }, { "ms", 1e6 },
	{ "s", 1e9 },	 { "sec", 1e9 },    { "min", 60e9 },	  { "h", 3600e9 },
};

/* The number, and the unit after it as rest[0..len) without surrounding
 * space. Units match case-insensitively: "KB" and "kb" are both decimal, "k"
 * alone is binary. */
static int parse_num(const char *s, double *v, const char **rest, size_t *len)
{
	char *end;
	while (isspace((unsigned char)*s))
		s++;
	if (!*s || *s == '-')
		return TS_E_PARSE;
	errno = 0;
	*v = strtod(s, &end);
	if (end == s || errno || !isfinite(*v) || *v < 0)
		return TS_E_PARSE;
	while (isspace((unsigned char)*end))
		end++;
	*rest = end;
	*len = strlen(end);
	while (*len && isspace((unsigned char)end[*len - 1]))
		(*len)--;
	return 0;
}

static int match_unit(const struct unit *u, size_t n, const char *suf, size_t len, double *mult)
{
	for (size_t i = 0; i < n; i++) {
		if (strlen(u[i].suffix) == len && strncasecmp(u[i].suffix, suf, len) == 0) {
			*mult = u[i].mult;
			return 0;
		}
	}
	return TS_E_PARSE;
}

static int to_u64(double v, uint64_t *out)
{
	if (v >= 18446744073709551615.0)
		return TS_E_PARSE;
	*out = (uint64_t)llround(v);
	return 0;
}

int ts_parse_size(const char *s, uint64_t *out)
{
	double v, mult;
	const char *rest;
	size_t len;
	if (parse_num(s, &v, &rest, &len) ||
	    match_unit(size_units, TS_ARRAY_SIZE(size_units), rest, len, &mult))
		return TS_E_PARSE;
	return to_u64(v * mult, out);
}

int ts_parse_rate(const char *s, uint64_t *bytes_per_s)
{
	double v, mult;
	const char *rest;
	size_t len;
	if (parse_num(s, &v, &rest, &len))
		return TS_E_PARSE;
	if (len >= 2 && rest[len - 2] == '/' && (rest[len - 1] == 's' || rest[len - 1] == 'S'))
		len -= 2;
	if (match_unit(size_units, TS_ARRAY_SIZE(size_units), rest, len, &mult))
		return TS_E_PARSE;
	return to_u64(v * mult, bytes_per_s);
}

int ts_parse_duration(const char *s, uint64_t bare_unit_ns, uint64_t *out_ns)
{
	double v, mult;
	const char *rest;
	size_t len;
	if (parse_num(s, &v, &rest, &len))
		return TS_E_PARSE;
	if (len == 0)
		mult = (double)bare_unit_ns;
	else if (match_unit(time_units, TS_ARRAY_SIZE(time_units), rest, len, &mult))
		return TS_E_PARSE;
	return to_u64(v * mult, out_ns);
}

char *ts_fmt_size(char *buf, size_t n, uint64_t bytes)
{
	static const char *const names[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	double v = (double)bytes;
	size_t i = 0;
	while (v >= 1024.0 && i + 1 < TS_ARRAY_SIZE(names)) {
		v /= 1024.0;
		i++;
	}
	if (i == 0)
		snprintf(buf, n, "%llu B", (unsigned long long)bytes);
	else
		snprintf(buf, n, "%.2f %s", v, names[i]);
	return buf;
}

char *ts_fmt_duration(char *buf, size_t n, uint64_t ns)
{
	if (ns < 1000)
		snprintf(buf, n, "%llu ns", (unsigned long long)ns);
	else if (ns < 1000000)
		snprintf(buf, n, "%.2f us", (double)ns / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, n, "%.2f ms", (double)ns / 1e6);
	else
		snprintf(buf, n, "%.2f s", (double)ns / 1e9);
	return buf;
}
