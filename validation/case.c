/*
 * case.c — loading validation case files (case.h).
 *
 * jansson parses the file; it keeps no positions for values, so the line a
 * message names comes from locate(): a small scan of the raw text that
 * follows a path of keys and array indices ("figures.2.unit") to where its
 * value starts, or to the object that lacks the key.
 */
#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/files.h"
#include "validation/case.h"
#include "core/units.h"

/* ---- Where a field sits in the text -------------------------------------- */

struct scan {
	const char *p;
	int line;
};

static void ws(struct scan *s)
{
	while (*s->p && isspace((unsigned char)*s->p)) {
		if (*s->p == '\n')
			s->line++;
		s->p++;
	}
}

/* Skips a string at s->p (on its opening quote); copies up to n-1 bytes of
 * its raw contents into @buf when given. */
static void skip_string(struct scan *s, char *buf, size_t n)
{
	size_t k = 0;
	s->p++;
	while (*s->p && *s->p != '"') {
		if (*s->p == '\\' && s->p[1])
			s->p++;
		if (buf && k + 1 < n)
			buf[k++] = *s->p;
		if (*s->p == '\n')
			s->line++;
		s->p++;
	}
	if (*s->p)
		s->p++;
	if (buf)
		buf[k] = 0;
}

static void skip_value(struct scan *s)
{
	ws(s);
	if (*s->p == '"') {
		skip_string(s, NULL, 0);
		return;
	}
	if (*s->p == '{' || *s->p == '[') {
		int depth = 0;
		do {
			if (*s->p == '"') {
				skip_string(s, NULL, 0);
				continue;
			}
			if (*s->p == '{' || *s->p == '[')
				depth++;
			else if (*s->p == '}' || *s->p == ']')
				depth--;
			else if (*s->p == '\n')
				s->line++;
			s->p++;
		} while (*s->p && depth > 0);
		return;
	}
	while (*s->p && !strchr(",}] \t\r\n", *s->p))
		s->p++;
}

/* The line of the value at @path (dot-separated keys; numbers index
 * arrays), or of the innermost object or array on the way that lacks the
 * next step. */
static int locate(const char *text, const char *path)
{
	struct scan s = { text, 1 };
	char step[128];
	ws(&s);
	while (*path) {
		size_t len = strcspn(path, ".");
		snprintf(step, sizeof(step), "%.*s", (int)len, path);
		path += len + (path[len] == '.');
		int here = s.line;
		if (*s.p == '{') {
			s.p++;
			bool found = false;
			for (;;) {
				ws(&s);
				if (*s.p != '"')
					return here;
				char key[128];
				skip_string(&s, key, sizeof(key));
				ws(&s);
				if (*s.p == ':')
					s.p++;
				ws(&s);
				if (strcmp(key, step) == 0) {
					found = true;
					break;
				}
				skip_value(&s);
				ws(&s);
				if (*s.p != ',')
					return here;
				s.p++;
			}
			if (!found)
				return here;
		} else if (*s.p == '[') {
			long want = strtol(step, NULL, 10);
			s.p++;
			for (long i = 0; i < want; i++) {
				skip_value(&s);
				ws(&s);
				if (*s.p != ',')
					return here;
				s.p++;
			}
			ws(&s);
		} else {
			return here;
		}
	}
	return s.line;
}

/* ---- Reading fields ---------------------------------------------------------- */

struct ctx {
	const char *path, *text;
	char *err;
	size_t errlen;
};

TS_PRINTF(3, 4)
static int fail(struct ctx *c, const char *field, const char *fmt, ...)
{
	char msg[384];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(c->err, c->errlen, "%s:%d: field '%s': %s", c->path, locate(c->text, field), field,
		 msg);
	return TS_E_PARSE;
}

/* A required (or optional, @need false) non-empty string at @obj.@key;
 * @field is its full path for messages. */
static int get_str(struct ctx *c, json_t *obj, const char *key, const char *field, bool need,
		   char **out)
{
	json_t *v = json_object_get(obj, key);
	if (!v) {
		if (need)
			return fail(c, field, "missing (a string)");
		return 0;
	}
	if (!json_is_string(v) || !*json_string_value(v))
		return fail(c, field, "expected a non-empty string");
	if (!(*out = strdup(json_string_value(v))))
		return -ENOMEM;
	return 0;
}

static int get_num(struct ctx *c, json_t *obj, const char *key, const char *field, bool need,
		   double lo, double hi, double *out)
{
	json_t *v = json_object_get(obj, key);
	if (!v) {
		if (need)
			return fail(c, field, "missing (a number)");
		return 0;
	}
	if (!json_is_number(v) || !isfinite(json_number_value(v)) || json_number_value(v) < lo ||
	    json_number_value(v) > hi)
		return fail(c, field, "expected a number in [%g, %g]", lo, hi);
	*out = json_number_value(v);
	return 0;
}

static int get_obj(struct ctx *c, json_t *obj, const char *key, const char *field, json_t **out)
{
	*out = json_object_get(obj, key);
	if (!*out)
		return fail(c, field, "missing (an object)");
	if (!json_is_object(*out))
		return fail(c, field, "expected an object");
	return 0;
}

/* Every key of @obj must be one of @known (NULL-terminated): a misspelt
 * field would otherwise fall back to its default without a word. */
static int check_keys(struct ctx *c, json_t *obj, const char *field, const char *const *known)
{
	const char *k;
	json_t *v;
	json_object_foreach(obj, k, v) {
		bool ok = false;
		for (const char *const *p = known; *p; p++)
			ok |= !strcmp(*p, k);
		if (!ok) {
			char f[160], list[256] = "";
			size_t used = 0;
			for (const char *const *p = known; *p && used < sizeof(list); p++)
				used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s",
							used ? ", " : "", *p);
			snprintf(f, sizeof(f), "%s%s%s", field, *field ? "." : "", k);
			return fail(c, f, "unknown field (known: %s)", list);
		}
	}
	return 0;
}

/* A size ("100GiB") or a duration ("10s") given as a string. */
static int get_size(struct ctx *c, json_t *obj, const char *key, const char *field, bool need,
		    uint64_t *out)
{
	json_t *v = json_object_get(obj, key);
	if (!v)
		return need ? fail(c, field, "missing (a size such as \"100GiB\")") : 0;
	if (!json_is_string(v) || ts_parse_size(json_string_value(v), out))
		return fail(c, field, "expected a size such as \"100GiB\"");
	return 0;
}

static int get_duration(struct ctx *c, json_t *obj, const char *key, const char *field,
			uint64_t *out)
{
	json_t *v = json_object_get(obj, key);
	if (!v)
		return 0;
	if (!json_is_string(v) || ts_parse_duration(json_string_value(v), TS_NS_PER_S, out))
		return fail(c, field, "expected a duration such as \"10s\"");
	return 0;
}

/* ---- Units --------------------------------------------------------------------- */

static const struct {
	const char *metric;
	enum ts_case_metric m;
} metrics[] = {
	{ "iops", TS_METRIC_IOPS },	    { "bandwidth", TS_METRIC_BW },
	{ "lat_mean", TS_METRIC_LAT_MEAN }, { "lat_p50", TS_METRIC_LAT_P50 },
	{ "lat_p99", TS_METRIC_LAT_P99 },	    { "lat_stdev", TS_METRIC_LAT_STDEV },
};

static const struct {
	const char *unit;
	enum ts_case_metric m; /* LAT_MEAN stands for every latency */
	double scale;
} units[] = {
	{ "IOPS", TS_METRIC_IOPS, 1 },	       { "MB/s", TS_METRIC_BW, 1e6 },
	{ "MiB/s", TS_METRIC_BW, 1048576.0 },  { "KiB/s", TS_METRIC_BW, 1024.0 },
	{ "ns", TS_METRIC_LAT_MEAN, 1 },       { "us", TS_METRIC_LAT_MEAN, 1e3 },
	{ "ms", TS_METRIC_LAT_MEAN, 1e6 },     { "s", TS_METRIC_LAT_MEAN, 1e9 },
};

/* Units a loader or workload figure may carry. */
static const char *const other_units[] = { "images/s", "samples/s", "%",  "MiB/s",
					   "MB/s",     "GB/s",	    "s",  "accelerators",
					   "x",	       NULL };

/* figures.N.window (optional, an iops figure of a fio job): [ FROM, TO ],
 * durations from the job's start, the part of the run the figure is the
 * mean IOPS of (fio's one-second IOPS log averaged over those seconds);
 * it becomes one of the job's windows (@job). */
static int conv_window(struct ctx *c, json_t *f, const char *base, struct ts_case_figure *out,
		       struct ts_fiojob *job)
{
	char fld[64];
	json_t *w = json_object_get(f, "window");
	out->window = -1;
	if (!w)
		return 0;
	snprintf(fld, sizeof(fld), "%s.window", base);
	uint64_t from, to;
	if (!json_is_array(w) || json_array_size(w) != 2 ||
	    !json_is_string(json_array_get(w, 0)) || !json_is_string(json_array_get(w, 1)) ||
	    ts_parse_duration(json_string_value(json_array_get(w, 0)), TS_NS_PER_S, &from) ||
	    ts_parse_duration(json_string_value(json_array_get(w, 1)), TS_NS_PER_S, &to))
		return fail(c, fld, "expected [ FROM, TO ], two durations such as \"1s\" from the "
				    "job's start");
	if (out->metric != TS_METRIC_IOPS)
		return fail(c, fld, "only an iops figure of a fio job reads a part of the run");
	if (from >= to || !job->runtime || to > job->runtime)
		return fail(c, fld, "needs FROM < TO <= config.workload.runtime");
	if (job->nwin == TS_FIOJOB_MAX_WIN)
		return fail(c, fld, "at most %d windows in one case", TS_FIOJOB_MAX_WIN);
	job->win_from[job->nwin] = from;
	job->win_to[job->nwin] = to;
	out->window = (int)job->nwin++;
	/* shown apart from the whole run's iops */
	char name[96];
	snprintf(name, sizeof(name), "iops %s-%s", json_string_value(json_array_get(w, 0)),
		 json_string_value(json_array_get(w, 1)));
	free(out->name);
	return (out->name = strdup(name)) ? 0 : -ENOMEM;
}

static int conv_figure(struct ctx *c, json_t *f, size_t i, enum ts_case_level level,
		       double def_tol, const char *def_why, struct ts_case_figure *out,
		       struct ts_fiojob *job)
{
	char fld[64], base[32];
	int rc;
	snprintf(base, sizeof(base), "figures.%zu", i);
	out->window = -1;
	static const char *const keys[] = { "metric", "value", "unit", "tolerance", "why",
					    "known_miss", "window", NULL };
	if (!json_is_object(f))
		return fail(c, base, "expected an object { metric, value, unit }");
#define F(k) (snprintf(fld, sizeof(fld), "%s.%s", base, k), fld)
	if ((rc = check_keys(c, f, base, keys)) ||
	    (rc = get_str(c, f, "metric", F("metric"), true, &out->name)) ||
	    (rc = get_num(c, f, "value", F("value"), true, 0, 1e18, &out->value)) ||
	    (rc = get_str(c, f, "unit", F("unit"), true, &out->unit)) ||
	    (rc = get_str(c, f, "known_miss", F("known_miss"), false, &out->known_miss)))
		return rc;
	out->tolerance = def_tol;
	if ((rc = get_num(c, f, "tolerance", F("tolerance"), false, 1e-6, 10, &out->tolerance)))
		return rc;
	if (json_object_get(f, "tolerance")) {
		if ((rc = get_str(c, f, "why", F("why"), true, &out->why)))
			return rc;
	} else if (!(out->why = strdup(def_why))) {
		return -ENOMEM;
	}
	if (level != TS_CASE_DISK) {
		if (json_object_get(f, "window"))
			return fail(c, F("window"), "only an iops figure of a fio job reads a part "
						    "of the run");
		out->metric = TS_METRIC_OTHER;
		for (const char *const *u = other_units; *u; u++)
			if (strcmp(*u, out->unit) == 0)
				return 0;
		return fail(c, F("unit"), "unknown unit '%s' for a %s figure", out->unit,
			    ts_case_level_name(level));
	}
	size_t k = 0;
	while (k < TS_ARRAY_SIZE(metrics) && strcmp(metrics[k].metric, out->name))
		k++;
	if (k == TS_ARRAY_SIZE(metrics))
		return fail(c, F("metric"),
			    "unknown disk metric '%s' (known: iops, bandwidth, lat_mean, lat_p50, "
			    "lat_p99, lat_stdev)",
			    out->name);
	out->metric = metrics[k].m;
	enum ts_case_metric kind = out->metric >= TS_METRIC_LAT_MEAN ? TS_METRIC_LAT_MEAN
								     : out->metric;
	for (size_t u = 0; u < TS_ARRAY_SIZE(units); u++)
		if (units[u].m == kind && strcmp(units[u].unit, out->unit) == 0) {
			out->scale = units[u].scale;
			return conv_window(c, f, base, out, job);
		}
	return fail(c, F("unit"), "unit '%s' does not fit metric '%s' (%s)", out->unit, out->name,
		    kind == TS_METRIC_IOPS ? "IOPS"
		    : kind == TS_METRIC_BW ? "MB/s, MiB/s or KiB/s"
					   : "ns, us, ms or s");
#undef F
}

/* config.device.bucket (optional): { "start": FRACTION, "idle": DURATION,
 * "why": TEXT }: the burst bucket holds FRACTION (0..1) of its size when
 * the run before this one ended, DURATION before this one began. */
static int conv_bucket(struct ctx *c, json_t *b, struct ts_case *k)
{
	static const char *const keys[] = { "start", "idle", "why", NULL };
	if (!b)
		return 0;
	if (!json_is_object(b))
		return fail(c, "config.device.bucket",
			    "expected an object { start, idle, why }: the bucket's fill (0..1) when "
			    "the run before ended, the pause since, and why");
	double start = 0;
	int rc;
	if ((rc = check_keys(c, b, "config.device.bucket", keys)) ||
	    (rc = get_num(c, b, "start", "config.device.bucket.start", true, 0, 1, &start)) ||
	    (rc = get_duration(c, b, "idle", "config.device.bucket.idle", &k->job.idle_ns)) ||
	    (rc = get_str(c, b, "why", "config.device.bucket.why", true, &k->bucket_why)))
		return rc;
	k->job.bucket_set = true;
	k->job.bucket_fill = start;
	return 0;
}

/* config.device and config.workload of a disk-level case. */
static int conv_disk(struct ctx *c, json_t *dev, json_t *wl, struct ts_case *k)
{
	static const char *const dev_keys[] = { "tier", "capacity", "profile", "raid0", "spec",
						"bucket", "instance", NULL };
	static const char *const wl_keys[] = { "tool",	  "rw",	      "bs",	 "iodepth",
					       "numjobs", "size",     "io_size", "runtime",
					       "interval", "count",   "serial",	 "note",
					       NULL };
	int rc;
	double raid = 0, iodepth = 1, numjobs = 1, count = 0;
	char *rw = NULL;
	if ((rc = check_keys(c, dev, "config.device", dev_keys)) ||
	    (rc = check_keys(c, wl, "config.workload", wl_keys)) ||
	    (rc = get_str(c, dev, "tier", "config.device.tier", true, &k->tier)) ||
	    (rc = get_size(c, dev, "capacity", "config.device.capacity", true, &k->capacity)) ||
	    (rc = get_str(c, dev, "profile", "config.device.profile", false, &k->profile)) ||
	    (rc = get_num(c, dev, "raid0", "config.device.raid0", false, 1, 64, &raid)) ||
	    (rc = get_str(c, dev, "instance", "config.device.instance", false, &k->instance)) ||
	    (rc = get_str(c, wl, "tool", "config.workload.tool", true, &k->tool)) ||
	    (rc = get_str(c, wl, "rw", "config.workload.rw", true, &rw)))
		return rc;
	k->raid0 = (unsigned)raid;
	k->job.raid0 = k->raid0;
	static const char *const rws[] = { "read", "randread", "write", "randwrite" };
	size_t i = 0;
	while (i < TS_ARRAY_SIZE(rws) && strcmp(rws[i], rw))
		i++;
	free(rw);
	if (i == TS_ARRAY_SIZE(rws))
		return fail(c, "config.workload.rw", "expected read, randread, write or randwrite");
	k->job.random = i == 1 || i == 3;
	k->job.write = i >= 2;
	if ((rc = conv_bucket(c, json_object_get(dev, "bucket"), k)))
		return rc;
	if ((rc = get_size(c, wl, "bs", "config.workload.bs", true, &k->job.bs)) ||
	    (rc = get_num(c, wl, "iodepth", "config.workload.iodepth", true, 1, 4096, &iodepth)) ||
	    (rc = get_num(c, wl, "numjobs", "config.workload.numjobs", false, 1, 4096, &numjobs)) ||
	    (rc = get_size(c, wl, "size", "config.workload.size", true, &k->job.size)) ||
	    (rc = get_size(c, wl, "io_size", "config.workload.io_size", false, &k->job.io_limit)) ||
	    (rc = get_duration(c, wl, "runtime", "config.workload.runtime", &k->job.runtime)) ||
	    (rc = get_duration(c, wl, "interval", "config.workload.interval", &k->job.think_ns)) ||
	    (rc = get_num(c, wl, "count", "config.workload.count", false, 1, 1e12, &count)))
		return rc;
	json_t *ser = json_object_get(wl, "serial");
	if (ser && !json_is_boolean(ser))
		return fail(c, "config.workload.serial", "expected true or false");
	k->job.serial = ser && json_is_true(ser);
	k->job.iodepth = (unsigned)iodepth;
	k->job.numjobs = (unsigned)numjobs;
	k->job.count = (uint64_t)count;
	k->job.seed = 1;
	if (k->job.bs == 0 || k->job.size < k->job.bs)
		return fail(c, "config.workload.size", "needs size >= bs > 0");
	if (!k->job.runtime && !k->job.io_limit && !k->job.count)
		return fail(c, "config.workload",
			    "needs runtime, io_size or count (when does the job stop?)");
	return 0;
}

/* An array of non-empty strings at @obj.@key (optional). */
static int get_strs(struct ctx *c, json_t *obj, const char *key, const char *field, char ***out,
		    size_t *n)
{
	json_t *a = json_object_get(obj, key);
	if (!a)
		return 0;
	if (!json_is_array(a))
		return fail(c, field, "expected an array of strings");
	if (!(*out = calloc(json_array_size(a) + 1, sizeof(**out))))
		return -ENOMEM;
	for (size_t i = 0; i < json_array_size(a); i++) {
		json_t *e = json_array_get(a, i);
		char f[160];
		snprintf(f, sizeof(f), "%s.%zu", field, i);
		if (!json_is_string(e) || !*json_string_value(e))
			return fail(c, f, "expected a non-empty string");
		if (!((*out)[(*n)++] = strdup(json_string_value(e))))
			return -ENOMEM;
	}
	return 0;
}

/* config.workload.scenario of a loader case (case.h struct
 * ts_case_scenario): { "script": "FILE.lua", "params": { KEY: VALUE } }, the
 * values strings or numbers; its figures are samples/s (images/s). */
static int conv_scenario(struct ctx *c, json_t *e, struct ts_case *k)
{
	static const char *const keys[] = { "script", "params", NULL };
	const char *F = "config.workload.scenario";
	char fld[128];
	if (!json_is_object(e))
		return fail(c, F, "expected an object { script, params }");
	struct ts_case_scenario *x = k->scenario = calloc(1, sizeof(*x));
	if (!x)
		return -ENOMEM;
	int rc;
	if ((rc = check_keys(c, e, F, keys)) ||
	    (rc = get_str(c, e, "script", "config.workload.scenario.script", true, &x->script)))
		return rc;
	json_t *pm = json_object_get(e, "params");
	if (pm && !json_is_object(pm))
		return fail(c, "config.workload.scenario.params",
			    "expected an object of names and values (strings or numbers)");
	if (pm && !(x->kv = calloc(json_object_size(pm) + 1, sizeof(*x->kv))))
		return -ENOMEM;
	const char *key;
	json_t *v;
	json_object_foreach(pm, key, v) {
		char val[64];
		snprintf(fld, sizeof(fld), "config.workload.scenario.params.%.64s", key);
		if (json_is_string(v) && json_string_length(v) < sizeof(val))
			snprintf(val, sizeof(val), "%s", json_string_value(v));
		else if (json_is_integer(v))
			snprintf(val, sizeof(val), "%lld", (long long)json_integer_value(v));
		else if (json_is_real(v) && isfinite(json_real_value(v)))
			snprintf(val, sizeof(val), "%.17g", json_real_value(v));
		else
			return fail(c, fld, "expected a string (under 64 characters) or a number");
		size_t n = strlen(key) + strlen(val) + 2;
		if (!(x->kv[x->nkv] = malloc(n)))
			return -ENOMEM;
		snprintf(x->kv[x->nkv++], n, "%s=%s", key, val);
	}
	for (size_t i = 0; i < k->nfig; i++) {
		const struct ts_case_figure *f = &k->fig[i];
		if (strcmp(f->name, "throughput") ||
		    (strcmp(f->unit, "samples/s") && strcmp(f->unit, "images/s"))) {
			snprintf(fld, sizeof(fld), "figures.%zu.metric", i);
			return fail(c, fld, "a loader case run by a scenario gives throughput in "
					    "samples/s (images/s), not %s in %s", f->name, f->unit);
		}
	}
	return 0;
}

/* config.workload.engine of an accelerator case (case.h struct
 * ts_case_engine); its figures are the step time or samples/s of one GPU. */
static int conv_engine(struct ctx *c, json_t *e, struct ts_case *k)
{
	static const char *const keys[] = { "framework", "model", "gpu", "mode", "precision",
					    "batch", "gpus", "hold_out", NULL };
	const char *F = "config.workload.engine";
	char fld[96];
#define D(key) (snprintf(fld, sizeof(fld), "%s.%s", F, key), fld)
	if (!json_is_object(e))
		return fail(c, F, "expected an object { framework, model, gpu, mode, precision, "
				  "batch, gpus, hold_out }");
	struct ts_case_engine *x = k->engine = calloc(1, sizeof(*x));
	if (!x)
		return -ENOMEM;
	double batch = 0, gpus = 1;
	int rc;
	if ((rc = check_keys(c, e, F, keys)) ||
	    (rc = get_str(c, e, "framework", D("framework"), true, &x->framework)) ||
	    (rc = get_str(c, e, "model", D("model"), true, &x->model)) ||
	    (rc = get_str(c, e, "gpu", D("gpu"), true, &x->gpu)) ||
	    (rc = get_str(c, e, "mode", D("mode"), true, &x->mode)) ||
	    (rc = get_str(c, e, "precision", D("precision"), true, &x->precision)) ||
	    (rc = get_str(c, e, "hold_out", D("hold_out"), false, &x->hold_out)) ||
	    (rc = get_num(c, e, "batch", D("batch"), true, 1, 65536, &batch)) ||
	    (rc = get_num(c, e, "gpus", D("gpus"), false, 1, 1024, &gpus)))
		return rc;
	if (batch != floor(batch))
		return fail(c, D("batch"), "expected a whole number");
	if (gpus != floor(gpus))
		return fail(c, D("gpus"), "expected a whole number");
	if (gpus > 1 && strcmp(x->mode, "train"))
		return fail(c, D("gpus"), "more than one GPU is data-parallel training: mode train");
	if (strcmp(x->mode, "train") && strcmp(x->mode, "infer"))
		return fail(c, D("mode"), "expected train or infer");
	if (x->hold_out && strcmp(x->hold_out, "batch") && strcmp(x->hold_out, "combination"))
		return fail(c, D("hold_out"), "expected batch or combination");
	x->batch = (uint64_t)batch;
	x->gpus = (uint64_t)gpus;
	for (size_t i = 0; i < k->nfig; i++) {
		const struct ts_case_figure *f = &k->fig[i];
		bool step = strcmp(f->name, "step_time") == 0 && strcmp(f->unit, "s") == 0;
		bool rate = strcmp(f->name, "throughput") == 0 &&
			    (strcmp(f->unit, "samples/s") == 0 || strcmp(f->unit, "images/s") == 0);
		bool scaling = strcmp(f->name, "scaling") == 0 && strcmp(f->unit, "x") == 0;
		if (!step && !rate && !scaling) {
			snprintf(fld, sizeof(fld), "figures.%zu.metric", i);
			return fail(c, fld, "an accelerator case gives step_time in s, throughput in "
					    "samples/s (images/s) or scaling in x, not %s in %s",
				    f->name, f->unit);
		}
		if (scaling && x->gpus < 2) {
			snprintf(fld, sizeof(fld), "figures.%zu.metric", i);
			return fail(c, fld, "scaling (n GPUs' samples/s over one's) needs "
					    "config.workload.engine.gpus of 2 or more");
		}
	}
	return 0;
#undef D
}

/* config.workload.dlio of a workload case (case.h struct ts_case_dlio). */
static int conv_dlio(struct ctx *c, json_t *wl, json_t *d, struct ts_case *k)
{
	static const char *const keys[] = { "workload", "overrides", "overrides_from", "tier",
					    "profile", "host", "mem", "files", "run_files", "run_epochs",
					    NULL };
	const char *F = "config.workload.dlio";
	char fld[96];
#define D(key) (snprintf(fld, sizeof(fld), "%s.%s", F, key), fld)
	if (!json_is_object(d))
		return fail(c, F, "expected an object { workload, tier, mem, files, run_files, ... }");
	struct ts_case_dlio *x = k->dlio = calloc(1, sizeof(*x));
	if (!x)
		return -ENOMEM;
	double files = 0, run = 0, acc = 0, epochs = 0;
	int rc;
	if ((rc = check_keys(c, d, F, keys)) ||
	    (rc = get_str(c, d, "workload", D("workload"), true, &x->workload)) ||
	    (rc = get_strs(c, d, "overrides", D("overrides"), &x->overrides, &x->noverrides)) ||
	    (rc = get_str(c, d, "tier", D("tier"), true, &x->tier)) ||
	    (rc = get_str(c, d, "profile", D("profile"), false, &x->profile)) ||
	    (rc = get_str(c, d, "host", D("host"), false, &x->host)) ||
	    (rc = get_size(c, d, "mem", D("mem"), true, &x->mem)) ||
	    (rc = get_num(c, d, "files", D("files"), true, 1, 1e12, &files)) ||
	    (rc = get_num(c, d, "run_files", D("run_files"), true, 1, 1e12, &run)) ||
	    (rc = get_num(c, d, "run_epochs", D("run_epochs"), false, 1, 1000, &epochs)) ||
	    (rc = get_num(c, wl, "accelerators", "config.workload.accelerators", true, 1, 4096,
			  &acc)))
		return rc;
	for (size_t i = 0; i < x->noverrides; i++) {
		char f[160];
		snprintf(f, sizeof(f), "%s.overrides.%zu", F, i);
		if (!strchr(x->overrides[i], '=') || !strstr(x->overrides[i], "workload."))
			return fail(c, f, "'%s' is not ++workload.SECTION.KEY=VALUE", x->overrides[i]);
	}
	if (run > files || files != floor(files) || run != floor(run))
		return fail(c, D("run_files"), "needs whole numbers, run_files <= files (%g > %g)",
			    run, files);
	if (acc != floor(acc))
		return fail(c, "config.workload.accelerators", "expected a whole number");
	x->files = (uint64_t)files;
	x->run_files = (uint64_t)run;
	if (epochs != floor(epochs))
		return fail(c, D("run_epochs"), "expected a whole number");
	x->run_epochs = (uint64_t)epochs;
	x->accelerators = (uint64_t)acc;
	return 0;
#undef D
}

/*
 * Why one long function: it reads one case file's keys in order (id, level,
 * role, source, config, tolerance, figures), each refused with its key's
 * path, some checked against keys read before (the id against the file name,
 * the figures against a DLIO run), on one cleanup path (out:) that frees the
 * strings read; split per key, each helper would need the half-built case
 * and those strings.
 */
static int conv(struct ctx *c, json_t *root, struct ts_case *k)
{
	int rc;
	char *level = NULL, *url = NULL, *repo = NULL, *rpath = NULL, *what = NULL;
	json_t *src, *cfg, *dev, *host, *wl, *tol, *figs;
	double def_tol = 0;
	char *def_why = NULL;

	static const char *const keys[] = { "id",     "level",	   "role",    "source",
					    "measured", "config",  "tolerance", "figures",
					    "note",   "tags",	   NULL };
	static const char *const src_keys[] = { "url", "repo", "path", "what", NULL };
	if (!json_is_object(root))
		return fail(c, "", "expected an object at the top");
	if ((rc = check_keys(c, root, "", keys)) ||
	    (rc = get_str(c, root, "id", "id", true, &k->id)) ||
	    (rc = get_str(c, root, "level", "level", true, &level)))
		goto out;
	const char *base = strrchr(c->path, '/') ? strrchr(c->path, '/') + 1 : c->path;
	size_t blen = strlen(base);
	if (blen < 5 || strcmp(base + blen - 5, ".json") ||
	    strncmp(base, k->id, blen - 5) || strlen(k->id) != blen - 5) {
		rc = fail(c, "id", "'%s' must be the file's name without .json", k->id);
		goto out;
	}
	if (strcmp(level, "disk") == 0)
		k->level = TS_CASE_DISK;
	else if (strcmp(level, "loader") == 0)
		k->level = TS_CASE_LOADER;
	else if (strcmp(level, "workload") == 0)
		k->level = TS_CASE_WORKLOAD;
	else if (strcmp(level, "accelerator") == 0)
		k->level = TS_CASE_ACCELERATOR;
	else {
		rc = fail(c, "level", "expected disk, loader, workload or accelerator");
		goto out;
	}

	/* role: "checks", { "fits": [ "tier.field", ... ] } or
	 * { "same_run": "CASE-ID" | "host NAME", "why": "..." } */
	json_t *r = json_object_get(root, "role");
	static const char *const same_keys[] = { "same_run", "why", NULL };
	if (json_is_string(r) && strcmp(json_string_value(r), "checks") == 0) {
		k->fits = false;
	} else if (json_is_object(r) && json_object_get(r, "same_run")) {
		if ((rc = check_keys(c, r, "role", same_keys)) ||
		    (rc = get_str(c, r, "same_run", "role.same_run", true, &k->same_run)) ||
		    (rc = get_str(c, r, "why", "role.why", true, &k->same_run_why)))
			goto out;
	} else if (json_is_object(r) && json_is_array(json_object_get(r, "fits")) &&
		   json_array_size(json_object_get(r, "fits")) > 0) {
		json_t *fl = json_object_get(r, "fits");
		k->fits = true;
		k->fitted = calloc(json_array_size(fl), sizeof(*k->fitted));
		if (!k->fitted) {
			rc = -ENOMEM;
			goto out;
		}
		for (size_t i = 0; i < json_array_size(fl); i++) {
			json_t *e = json_array_get(fl, i);
			char fld[48];
			snprintf(fld, sizeof(fld), "role.fits.%zu", i);
			if (!json_is_string(e) || !strchr(json_string_value(e), '.')) {
				rc = fail(c, fld, "expected \"tier.field\" (aws-gp2.latency.read)");
				goto out;
			}
			if (!(k->fitted[k->nfitted++] = strdup(json_string_value(e)))) {
				rc = -ENOMEM;
				goto out;
			}
		}
	} else {
		rc = fail(c, "role",
			  r ? "expected \"checks\", { \"fits\": [ \"tier.field\", ... ] } or "
			      "{ \"same_run\": \"CASE-ID\", \"why\": \"...\" }"
			    : "missing (\"checks\", { \"fits\": [ \"tier.field\", ... ] } or "
			      "{ \"same_run\": \"CASE-ID\", \"why\": \"...\" })");
		goto out;
	}

	/* source: { url } or { repo, path }, and what was run */
	if ((rc = get_obj(c, root, "source", "source", &src)) ||
	    (rc = check_keys(c, src, "source", src_keys)) ||
	    (rc = get_str(c, src, "url", "source.url", false, &url)) ||
	    (rc = get_str(c, src, "repo", "source.repo", false, &repo)) ||
	    (rc = get_str(c, src, "path", "source.path", !!repo, &rpath)) ||
	    (rc = get_str(c, src, "what", "source.what", true, &what)))
		goto out;
	if (!url && !repo) {
		rc = fail(c, "source.url", "missing (a URL, or repo and path)");
		goto out;
	}
	size_t n = strlen(url ? url : "") + strlen(repo ? repo : "") + strlen(rpath ? rpath : "") +
		   strlen(what) + 8;
	if (!(k->source = malloc(n))) {
		rc = -ENOMEM;
		goto out;
	}
	if (url)
		snprintf(k->source, n, "%s; %s", url, what);
	else
		snprintf(k->source, n, "%s:%s; %s", repo, rpath, what);
	if ((rc = get_str(c, root, "measured", "measured", true, &k->measured)))
		goto out;

	/* config: the whole configuration */
	if ((rc = get_obj(c, root, "config", "config", &cfg)) ||
	    (rc = get_obj(c, cfg, "device", "config.device", &dev)) ||
	    (rc = get_obj(c, cfg, "host", "config.host", &host)) ||
	    (rc = get_obj(c, cfg, "workload", "config.workload", &wl)))
		goto out;
	if (!json_object_get(cfg, "software")) {
		rc = fail(c, "config.software", "missing (the software and versions that ran)");
		goto out;
	}
	if (!json_object_get(host, "instance") && !json_object_get(host, "cpu")) {
		rc = fail(c, "config.host", "needs instance or cpu");
		goto out;
	}
	if (k->level == TS_CASE_DISK && (rc = conv_disk(c, dev, wl, k)))
		goto out;
	json_t *dl = json_object_get(wl, "dlio");
	if (dl && k->level != TS_CASE_WORKLOAD) {
		rc = fail(c, "config.workload.dlio", "only a workload case runs a DLIO workload");
		goto out;
	}
	if (dl && (rc = conv_dlio(c, wl, dl, k)))
		goto out;
	if ((rc = get_strs(c, root, "tags", "tags", &k->tags, &k->ntags)))
		goto out;

	/* tolerance: { rel, why }, then the figures */
	if ((rc = get_obj(c, root, "tolerance", "tolerance", &tol)) ||
	    (rc = get_num(c, tol, "rel", "tolerance.rel", true, 1e-6, 10, &def_tol)) ||
	    (rc = get_str(c, tol, "why", "tolerance.why", true, &def_why)))
		goto out;
	figs = json_object_get(root, "figures");
	if (!json_is_array(figs) || json_array_size(figs) == 0) {
		rc = fail(c, "figures", "expected a non-empty array of { metric, value, unit }");
		goto out;
	}
	k->fig = calloc(json_array_size(figs), sizeof(*k->fig));
	if (!k->fig) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < json_array_size(figs); i++) {
		k->nfig++;
		if ((rc = conv_figure(c, json_array_get(figs, i), i, k->level, def_tol, def_why,
				      &k->fig[i], &k->job)))
			goto out;
	}
	json_t *en = json_object_get(wl, "engine");
	if (en && k->level != TS_CASE_ACCELERATOR) {
		rc = fail(c, "config.workload.engine", "only an accelerator case runs the engine");
		goto out;
	}
	if (k->level == TS_CASE_ACCELERATOR && !en) {
		rc = fail(c, "config.workload.engine",
			  "missing (an accelerator case names framework, model, gpu, mode, "
			  "precision and batch)");
		goto out;
	}
	if (en && (rc = conv_engine(c, en, k)))
		goto out;
	json_t *sc = json_object_get(wl, "scenario");
	if (sc && k->level != TS_CASE_LOADER) {
		rc = fail(c, "config.workload.scenario", "only a loader case runs a scenario");
		goto out;
	}
	if (sc && (rc = conv_scenario(c, sc, k)))
		goto out;
	/* What a DLIO run gives, in the units it gives them. */
	static const struct {
		const char *metric, *unit, *unit2;
	} dlio_figs[] = {
		{ "au", "%", NULL },
		{ "throughput", "samples/s", NULL },
		{ "read_bandwidth", "MiB/s", "MB/s" },
		{ "max_accelerators", "accelerators", NULL },
	};
	for (size_t i = 0; k->dlio && i < k->nfig; i++) {
		const struct ts_case_figure *f = &k->fig[i];
		size_t j = 0;
		while (j < TS_ARRAY_SIZE(dlio_figs) && strcmp(dlio_figs[j].metric, f->name))
			j++;
		char fld[64];
		if (j == TS_ARRAY_SIZE(dlio_figs)) {
			snprintf(fld, sizeof(fld), "figures.%zu.metric", i);
			rc = fail(c, fld, "'%s' is not a figure of a DLIO run (au, throughput, "
					  "read_bandwidth, max_accelerators)", f->name);
			goto out;
		}
		if (strcmp(f->unit, dlio_figs[j].unit) &&
		    (!dlio_figs[j].unit2 || strcmp(f->unit, dlio_figs[j].unit2))) {
			snprintf(fld, sizeof(fld), "figures.%zu.unit", i);
			rc = fail(c, fld, "a DLIO run gives %s in %s%s%s", f->name, dlio_figs[j].unit,
				  dlio_figs[j].unit2 ? " or " : "",
				  dlio_figs[j].unit2 ? dlio_figs[j].unit2 : "");
			goto out;
		}
	}
out:
	free(level);
	free(url);
	free(repo);
	free(rpath);
	free(what);
	free(def_why);
	return rc;
}

int ts_case_load(const char *path, struct ts_case **out, char *err, size_t errlen)
{
	json_error_t je;
	FILE *f = fopen(path, "r");
	if (!f) {
		int e = errno;
		snprintf(err, errlen, "%s: cannot open the case file (%s)", path, strerror(e));
		return -e;
	}
	/* the whole text (locate() reads it for messages) */
	char *text;
	size_t len;
	int rrc = ts_read_stream(f, &text, &len);
	fclose(f);
	if (rrc) {
		snprintf(err, errlen, "%s: cannot read the case file (%s)", path, strerror(-rrc));
		return rrc;
	}
	json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
	if (!root) {
		snprintf(err, errlen, "%s:%d: not valid JSON: %s", path, je.line, je.text);
		free(text);
		return TS_E_PARSE;
	}
	struct ts_case *k = calloc(1, sizeof(*k));
	int rc = k && (k->path = strdup(path)) ? 0 : -ENOMEM;
	struct ctx c = { path, text, err, errlen };
	if (!rc)
		rc = conv(&c, root, k);
	if (rc == -ENOMEM)
		snprintf(err, errlen, "%s: out of memory", path);
	json_decref(root);
	free(text);
	if (rc) {
		ts_case_free(k);
		return rc;
	}
	*out = k;
	return 0;
}

void ts_case_free(struct ts_case *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nfig; i++) {
		free(c->fig[i].name);
		free(c->fig[i].unit);
		free(c->fig[i].why);
		free(c->fig[i].known_miss);
	}
	for (size_t i = 0; i < c->nfitted; i++)
		free(c->fitted[i]);
	free(c->fitted);
	free(c->same_run);
	free(c->same_run_why);
	free(c->fig);
	free(c->path);
	free(c->id);
	free(c->source);
	free(c->measured);
	free(c->tier);
	free(c->profile);
	free(c->bucket_why);
	free(c->instance);
	free(c->tool);
	if (c->engine) {
		free(c->engine->framework);
		free(c->engine->model);
		free(c->engine->gpu);
		free(c->engine->mode);
		free(c->engine->precision);
		free(c->engine->hold_out);
		free(c->engine);
	}
	if (c->scenario) {
		for (size_t i = 0; i < c->scenario->nkv; i++)
			free(c->scenario->kv[i]);
		free(c->scenario->kv);
		free(c->scenario->script);
		free(c->scenario);
	}
	if (c->dlio) {
		for (size_t i = 0; i < c->dlio->noverrides; i++)
			free(c->dlio->overrides[i]);
		free(c->dlio->overrides);
		free(c->dlio->workload);
		free(c->dlio->tier);
		free(c->dlio->profile);
		free(c->dlio->host);
		free(c->dlio);
	}
	for (size_t i = 0; i < c->ntags; i++)
		free(c->tags[i]);
	free(c->tags);
	free(c);
}

const char *ts_case_level_name(enum ts_case_level l)
{
	static const char *const n[] = { "disk", "loader", "workload", "accelerator" };
	return n[l];
}
