/* report.c — tables, JSON, CSV and plots of a scenario's rows (see report.h). */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "scenario/report.h"
#include "validation/corpus.h"

/* Whether a row's tier is checked by an independent measurement of the
 * real product (validation/corpus.h): "checked", "unvalidated", or NULL
 * when the row names no tier, the corpus cannot be read or a case that
 * may name the tier is refused. The case files are read once per process,
 * and only the cases that may name a row's tier are loaded, once per
 * tier. */
static const char *tier_check(const char *tier)
{
	static struct ts_corpus_texts k;
	static int loaded; /* 0 not yet, 1 read, -1 unreadable */
	char err[512];
	size_t n;
	if (!tier)
		return NULL;
	if (!loaded)
		loaded = ts_corpus_texts_read(NULL, &k, err, sizeof(err)) ? -1 : 1;
	if (loaded < 0 || ts_corpus_texts_checks(&k, tier, &n, err, sizeof(err)))
		return NULL;
	return n ? "checked" : "unvalidated";
}

/* One column of every output: name, unit, where it lives in the row. */
struct col {
	const char *head;  /* terminal heading */
	const char *key;   /* JSON / CSV key */
	const char *unit;
	int prec;
	double (*get)(const struct ts_row *row, double best);
};

static double g_sps(const struct ts_row *w, double b) { return w->samples_per_s; }
static double g_time(const struct ts_row *w, double b) { return w->time_s; }
static double g_au(const struct ts_row *w, double b) { return w->au_pct; }
static double g_stall(const struct ts_row *w, double b) { return w->stall_pct; }
static double g_hit(const struct ts_row *w, double b) { return w->cache_hit_pct; }
static double g_rd(const struct ts_row *w, double b) { return w->read_mb_s; }
static double g_mem(const struct ts_row *w, double b) { return w->memory_pct; }
static double g_dev(const struct ts_row *w, double b) { return w->dev_mb_s; }
static double g_wr(const struct ts_row *w, double b) { return w->write_mb_s; }
static double g_own(const struct ts_row *w, double b) { return w->own_mib; }
static double g_p50(const struct ts_row *w, double b) { return w->step_p50_ms; }
static double g_p99(const struct ts_row *w, double b) { return w->step_p99_ms; }
static double g_chour(const struct ts_row *w, double b) { return w->cost_hour.v; }
static double g_cepoch(const struct ts_row *w, double b) { return w->cost_epoch.v; }
static double g_cksteps(const struct ts_row *w, double b) { return w->cost_ksteps.v; }
static double g_cidle(const struct ts_row *w, double b) { return w->cost_idle.v; }
static double g_rel(const struct ts_row *w, double b)
{
	if (w->rel_to > 0)
		b = w->rel_to;
	return b > 0 && !isnan(w->samples_per_s) ? w->samples_per_s / b : NAN;
}

static const struct col cols[] = {
	{ "samples/s", "throughput", "samples/s", 1, g_sps },
	{ "time s", "time", "s", 2, g_time },
	{ "AU %", "accelerator_utilization", "%", 1, g_au },
	{ "IO stall %", "io_stall", "%", 1, g_stall },
	{ "cache hit %", "cache_hit", "%", 1, g_hit },
	{ "MB/s read", "read_rate", "MB/s", 1, g_rd },
	{ "MB/s write", "write_rate", "MB/s", 1, g_wr },
	{ "no-wait %", "served_from_memory", "%", 1, g_mem },
	{ "dev MB/s", "device_read_rate", "MB/s", 1, g_dev },
	{ "step p50 ms", "step_p50", "ms", 2, g_p50 },
	{ "step p99 ms", "step_p99", "ms", 2, g_p99 },
	{ "rel", "relative_to_best", "ratio", 2, g_rel },
	{ "$/hour", "cost_per_hour", "USD/h", 2, g_chour },
	{ "$/epoch", "cost_per_epoch", "USD", 2, g_cepoch },
	{ "$/1k steps", "cost_per_1000_steps", "USD", 3, g_cksteps },
	{ "idle $/h", "idle_cost_per_hour", "USD/h", 2, g_cidle },
	{ "own MiB", "own_memory", "MiB", 1, g_own },
};
/* The terminal shows the study's columns (and MB/s written when anything
 * was), and the costs where an instance is priced: per epoch where the
 * dataset's size is known, else per 1,000 steps; files carry all of them. */
enum { COL_WRITE = 6, COL_CHOUR = 12, COL_CEPOCH, COL_CKSTEPS, COL_CIDLE, COL_OWN };
static void terminal_columns(const struct ts_report *r, bool on[TS_ARRAY_SIZE(cols)])
{
	/* the job's bytes served without waiting (not the page cache's hits,
	 * which count pages still on their way) and the device's rate */
	static const bool base[TS_ARRAY_SIZE(cols)] = { 1, 1, 1, 1, 0, 1, 0, 1, 1, 0, 0, 1,
							 0, 0, 0, 0, 0 };
	memcpy(on, base, sizeof(base));
	for (size_t i = 0; i < r->n; i++) {
		const struct ts_row *w = &r->rows[i];
		if (w->error)
			continue;
		if (w->write_mb_s > 0.005)
			on[COL_WRITE] = true;
		if (!isnan(w->own_mib)) /* block mode's memory cgroup */
			on[COL_OWN] = true;
		if (!isnan(w->cost_hour.v))
			on[COL_CHOUR] = on[COL_CIDLE] = true;
		if (!isnan(w->cost_epoch.v))
			on[COL_CEPOCH] = true;
		else if (!isnan(w->cost_ksteps.v))
			on[COL_CKSTEPS] = true;
	}
}

/* The costs a row carries, with their JSON / CSV names. */
static const struct {
	const char *key, *unit;
	size_t off;
} costs[] = {
	{ "cost_per_hour", "USD/h", offsetof(struct ts_row, cost_hour) },
	{ "cost_per_epoch", "USD", offsetof(struct ts_row, cost_epoch) },
	{ "cost_per_1000_steps", "USD", offsetof(struct ts_row, cost_ksteps) },
	{ "idle_cost_per_hour", "USD/h", offsetof(struct ts_row, cost_idle) },
};

static const struct ts_cost_band *cost_at(const struct ts_row *w, size_t i)
{
	return (const struct ts_cost_band *)(const void *)((const char *)w + costs[i].off);
}

/* Whether any priced row's epoch (or 1,000 steps) cost is a range. */
static bool cost_banded(const struct ts_report *r)
{
	for (size_t i = 0; i < r->n; i++) {
		const struct ts_row *w = &r->rows[i];
		const struct ts_cost_band *b = isnan(w->cost_epoch.v) ? &w->cost_ksteps : &w->cost_epoch;
		if (!w->error && !isnan(b->v) && (b->low != b->v || b->high != b->v))
			return true;
	}
	return false;
}

void ts_report_init(struct ts_report *r)
{
	memset(r, 0, sizeof(*r));
}

static void row_free(struct ts_row *w)
{
	free(w->instance);
	free(w->band_params);
	free(w->label);
	free(w->tier);
	free(w->parts);
	free(w->error);
	for (size_t i = 0; i < w->nparams; i++) {
		free(w->pkey[i]);
		free(w->pval[i]);
	}
}

void ts_report_free(struct ts_report *r)
{
	for (size_t i = 0; i < r->n; i++)
		row_free(&r->rows[i]);
	free(r->rows);
	free(r->title);
	free(r->script);
	memset(r, 0, sizeof(*r));
}

struct ts_row *ts_report_add(struct ts_report *r)
{
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 8;
		struct ts_row *rows = realloc(r->rows, cap * sizeof(*rows));
		if (!rows)
			return NULL;
		r->rows = rows;
		r->cap = cap;
	}
	struct ts_row *w = &r->rows[r->n++];
	ts_row_init(w);
	w->virtual_time = r->virtual_time;
	return w;
}

void ts_row_init(struct ts_row *w)
{
	memset(w, 0, sizeof(*w));
	w->time_s = w->samples_per_s = w->au_pct = w->stall_pct = NAN;
	w->cache_hit_pct = w->read_mb_s = w->write_mb_s = w->memory_pct = w->dev_mb_s = NAN;
	w->own_mib = NAN;
	w->step_p50_ms = w->step_p99_ms = NAN;
	w->band_sps_lo = w->band_sps_hi = w->band_au_lo = w->band_au_hi = NAN;
	for (size_t i = 0; i < TS_ARRAY_SIZE(costs); i++) {
		struct ts_cost_band *b = (struct ts_cost_band *)(void *)((char *)w + costs[i].off);
		b->v = b->low = b->high = NAN;
	}
}

void ts_row_release(struct ts_row *w)
{
	row_free(w);
	ts_row_init(w);
}

void ts_report_drop_last(struct ts_report *r)
{
	if (r->n)
		row_free(&r->rows[--r->n]);
}

int ts_row_set_str(char **dst, const char *s)
{
	char *dup = s ? strdup(s) : NULL;
	if (s && !dup)
		return -ENOMEM;
	free(*dst);
	*dst = dup;
	return 0;
}

int ts_row_param(struct ts_row *w, const char *key, const char *val)
{
	for (size_t i = 0; i < w->nparams; i++)
		if (!strcmp(w->pkey[i], key))
			return ts_row_set_str(&w->pval[i], val);
	if (w->nparams == TS_REPORT_MAX_PARAMS)
		return -E2BIG;
	char *k = strdup(key), *v = strdup(val);
	if (!k || !v) {
		free(k);
		free(v);
		return -ENOMEM;
	}
	w->pkey[w->nparams] = k;
	w->pval[w->nparams++] = v;
	return 0;
}

double ts_report_best(const struct ts_report *r)
{
	double best = 0;
	for (size_t i = 0; i < r->n; i++)
		if (!r->rows[i].error && r->rows[i].samples_per_s > best)
			best = r->rows[i].samples_per_s;
	return best;
}

static void fmt_num(char *buf, size_t n, double v, int prec)
{
	if (isnan(v))
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "%.*f", prec, v);
}

static void print_band(FILE *f, const struct ts_row *w)
{
	char a[32], b[32], c[32], d[32], s1[72], s2[72];
	fmt_num(a, sizeof(a), w->band_sps_lo, 1);
	fmt_num(b, sizeof(b), w->band_sps_hi, 1);
	fmt_num(c, sizeof(c), w->band_au_lo, 1);
	fmt_num(d, sizeof(d), w->band_au_hi, 1);
	snprintf(s1, sizeof(s1), "%s-%s", a, b);
	snprintf(s2, sizeof(s2), "%s-%s", c, d);
	if (isnan(w->band_sps_lo) && isnan(w->band_sps_hi))
		snprintf(s1, sizeof(s1), "-");
	if (isnan(w->band_au_lo) && isnan(w->band_au_hi))
		snprintf(s2, sizeof(s2), "-");
	fprintf(f, "  %19s  %13s", w->band_params ? s1 : "", w->band_params ? s2 : "");
}

/*
 * Why one long function: it prints the table in the order it appears
 * (columns, header, rows, then the real/modeled notes, bands and the legend)
 * from the column widths found first; split, each part would need those
 * widths passed in.
 */
void ts_report_print(const struct ts_report *r, FILE *f)
{
	double best = ts_report_best(r);
	bool on_terminal[TS_ARRAY_SIZE(cols)];
	terminal_columns(r, on_terminal);
	int lw = (int)strlen("configuration");
	for (size_t i = 0; i < r->n; i++) {
		int l = r->rows[i].label ? (int)strlen(r->rows[i].label) : 0;
		lw = l > lw ? l : lw;
	}
	if (r->title)
		fprintf(f, "%s%s\n", r->title, r->virtual_time ? " (virtual time)" : "");
	bool band = false, cband = cost_banded(r), checks = false;
	for (size_t i = 0; i < r->n; i++) {
		band |= r->rows[i].band_params != NULL;
		checks |= tier_check(r->rows[i].tier) != NULL;
	}
	fprintf(f, "%-*s", lw, "configuration");
	for (size_t c = 0; c < TS_ARRAY_SIZE(cols); c++)
		if (on_terminal[c])
			fprintf(f, "  %11s", cols[c].head);
	if (band)
		fprintf(f, "  %19s  %13s", "band samples/s", "band AU %");
	if (cband)
		fprintf(f, "  %19s", on_terminal[COL_CEPOCH] ? "band $/epoch" : "band $/1k steps");
	if (checks)
		fprintf(f, "  %-11s", "tier check");
	fputc('\n', f);
	for (size_t i = 0; i < r->n; i++) {
		const struct ts_row *w = &r->rows[i];
		fprintf(f, "%-*s", lw, w->label ? w->label : "?");
		if (w->error) {
			fprintf(f, "  %s\n", w->error);
			continue;
		}
		for (size_t c = 0; c < TS_ARRAY_SIZE(cols); c++) {
			if (!on_terminal[c])
				continue;
			char b[32];
			fmt_num(b, sizeof(b), cols[c].get(w, best), cols[c].prec);
			fprintf(f, "  %11s", b);
		}
		if (band)
			print_band(f, w);
		if (cband) {
			const struct ts_cost_band *cb =
				on_terminal[COL_CEPOCH] ? &w->cost_epoch : &w->cost_ksteps;
			char lo[32], hi[32], s[72] = "-";
			fmt_num(lo, sizeof(lo), cb->low, 2);
			fmt_num(hi, sizeof(hi), cb->high, 2);
			if (!isnan(cb->v))
				snprintf(s, sizeof(s), "%s-%s", lo, hi);
			fprintf(f, "  %19s", s);
		}
		if (checks && tier_check(w->tier))
			fprintf(f, "  %-11s", tier_check(w->tier));
		fputc('\n', f);
	}
	/* What was real and what was modeled, once per distinct description. */
	for (size_t i = 0; i < r->n; i++) {
		const char *p = r->rows[i].parts;
		bool seen = false;
		for (size_t j = 0; p && j < i; j++)
			seen |= r->rows[j].parts && !strcmp(r->rows[j].parts, p);
		if (p && !seen)
			fprintf(f, "%s %s\n", i ? "      " : "parts:", p);
	}
	if (band) {
		fprintf(f, "band = the row at the slow and the fast end of the ranged parameters "
			   "of its tier, host and engine (tiersim tiers|hosts|engines "
			   "--evidence):\n");
		/* Once per tier and distinct list of parameters. */
		for (size_t i = 0; i < r->n; i++) {
			const struct ts_row *w = &r->rows[i];
			bool seen = false;
			for (size_t j = 0; w->band_params && j < i; j++) {
				const struct ts_row *v = &r->rows[j];
				seen |= v->band_params && !strcmp(v->band_params, w->band_params) &&
					((!v->tier && !w->tier) ||
					 (v->tier && w->tier && !strcmp(v->tier, w->tier)));
			}
			if (w->band_params && !seen)
				fprintf(f, "  %s: %s\n", w->tier ? w->tier : w->label ? w->label : "?",
					*w->band_params ? w->band_params : "none ranged (exact)");
		}
	}
	for (size_t i = 0; i < r->n; i++)
		if (!isnan(r->rows[i].cost_hour.v)) {
			fprintf(f, "$ = US dollars of the instance (%s) and the volume of the row's tier "
				   "(tiersim prices --evidence);\n  idle $/h = (1 - AU) x the "
				   "instance's price%s\n",
				r->rows[i].instance ? r->rows[i].instance : "?",
				cband ? "; band $ = the low prices at the fast end to the high "
					"prices at the slow end" : "");
			break;
		}
	if (checks)
		fprintf(f, "tier check = whether an independent measurement of the real product checks "
			   "the row's tier (tiersim tiers; validation/README.md)\n");
	fprintf(f, "time = the measured part (iterations after warm-up, or the whole conversion); "
		   "AU = GPU busy / wall;\nIO stall = GPU waiting for input (preprocessing: time in "
		   "reads and commits); MB = 10^6 bytes; rel = samples/s / best row\n");
	fprintf(f, "no-wait = the job's read bytes served from memory without waiting on the "
		   "device; dev MB/s = what the device read (readahead, file-system metadata)\n");
	if (on_terminal[COL_OWN])
		fprintf(f, "own MiB = the most the job's memory cgroup held besides the page cache "
			   "(block mode, measured): mount{ own_mem = } for a virtual run of it\n");
}

static json_t *num(double v)
{
	return isnan(v) || isinf(v) ? json_null() : json_real(v);
}

static json_t *with_unit(double v, const char *unit)
{
	return json_pack("{s:o, s:s}", "value", num(v), "unit", unit);
}

int ts_report_write_json(const struct ts_report *r, const char *path)
{
	double best = ts_report_best(r);
	json_t *root = json_pack("{s:s, s:s, s:s?, s:s?, s:s}", "tool", "tiersim", "version",
				 TS_VERSION, "title", r->title, "script", r->script, "clock",
				 r->virtual_time ? "virtual" : "real");
	json_t *rows = json_array();
	if (!root || !rows) {
		json_decref(root);
		json_decref(rows);
		return -ENOMEM;
	}
	for (size_t i = 0; i < r->n; i++) {
		const struct ts_row *w = &r->rows[i];
		json_t *o = json_pack("{s:s?, s:s?, s:s?, s:s?, s:o, s:o, s:o}", "label", w->label,
				      "tier", w->tier, "parts", w->parts, "error", w->error,
				      "iterations", with_unit((double)w->iterations, "iterations"),
				      "batch", with_unit((double)w->batch, "samples"), "samples",
				      with_unit((double)w->samples, "samples"));
		if (tier_check(w->tier))
			json_object_set_new(o, "tier_check", json_string(tier_check(w->tier)));
		json_t *cfg = json_object();
		for (size_t k = 0; k < w->nparams; k++)
			json_object_set_new(cfg, w->pkey[k], json_string(w->pval[k]));
		json_object_set_new(o, "config", cfg);
		for (size_t c = 0; c < TS_ARRAY_SIZE(cols); c++)
			json_object_set_new(o, cols[c].key, with_unit(cols[c].get(w, best), cols[c].unit));
		json_object_set_new(o, "bytes_read", with_unit((double)w->bytes_read, "bytes"));
		json_object_set_new(o, "bytes_written", with_unit((double)w->bytes_written, "bytes"));
		if (w->band_params)
			json_object_set_new(
				o, "band",
				json_pack("{s:s, s:{s:o, s:o, s:s}, s:{s:o, s:o, s:s}}", "parameters",
					  w->band_params, "throughput", "low", num(w->band_sps_lo),
					  "high", num(w->band_sps_hi), "unit", "samples/s",
					  "accelerator_utilization", "low", num(w->band_au_lo), "high",
					  num(w->band_au_hi), "unit", "%"));
		if (w->instance) {
			json_t *cb = json_object();
			json_object_set_new(cb, "instance", json_string(w->instance));
			for (size_t k = 0; k < TS_ARRAY_SIZE(costs); k++) {
				const struct ts_cost_band *b = cost_at(w, k);
				json_object_set_new(cb, costs[k].key,
						    json_pack("{s:o, s:o, s:s}", "low", num(b->low),
							      "high", num(b->high), "unit", costs[k].unit));
			}
			json_object_set_new(o, "cost_band", cb);
		}
		json_array_append_new(rows, o);
	}
	json_object_set_new(root, "rows", rows);
	int rc;
	if (!strcmp(path, "-")) {
		rc = json_dumpf(root, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(10)) ? -EIO : 0;
		fputc('\n', stdout);
	} else {
		rc = json_dump_file(root, path, JSON_INDENT(2) | JSON_REAL_PRECISION(10)) ? -errno : 0;
		if (rc == 0 && errno == 0)
			rc = 0;
	}
	json_decref(root);
	return rc < 0 ? rc : 0;
}

/* Quotes a CSV field when it holds a comma, quote or newline. */
static void csv_str(FILE *f, const char *s)
{
	if (!s)
		return;
	if (!strpbrk(s, ",\"\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

int ts_report_write_csv(const struct ts_report *r, const char *path)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "w") : stdout;
	if (!f)
		return -errno;
	double best = ts_report_best(r);
	fprintf(f, "label,tier,iterations,batch (samples),samples");
	for (size_t c = 0; c < TS_ARRAY_SIZE(cols); c++)
		fprintf(f, ",%s (%s)", cols[c].key, cols[c].unit);
	for (size_t k = 0; k < TS_ARRAY_SIZE(costs); k++)
		fprintf(f, ",%s_low (%s),%s_high (%s)", costs[k].key, costs[k].unit, costs[k].key,
			costs[k].unit);
	fprintf(f, ",instance,bytes_read (bytes),bytes_written (bytes),clock,parts,error,tier check\n");
	for (size_t i = 0; i < r->n; i++) {
		const struct ts_row *w = &r->rows[i];
		csv_str(f, w->label);
		fputc(',', f);
		csv_str(f, w->tier);
		fprintf(f, ",%llu,%llu,%llu", (unsigned long long)w->iterations,
			(unsigned long long)w->batch, (unsigned long long)w->samples);
		for (size_t c = 0; c < TS_ARRAY_SIZE(cols); c++) {
			double v = cols[c].get(w, best);
			if (isnan(v))
				fputc(',', f);
			else
				fprintf(f, ",%.6g", v);
		}
		for (size_t k = 0; k < TS_ARRAY_SIZE(costs); k++) {
			const struct ts_cost_band *b = cost_at(w, k);
			if (isnan(b->v))
				fputs(",,", f);
			else
				fprintf(f, ",%.6g,%.6g", b->low, b->high);
		}
		fputc(',', f);
		csv_str(f, w->instance);
		fprintf(f, ",%llu,%llu,%s,", (unsigned long long)w->bytes_read,
			(unsigned long long)w->bytes_written, w->virtual_time ? "virtual" : "real");
		csv_str(f, w->parts);
		fputc(',', f);
		csv_str(f, w->error);
		fputc(',', f);
		csv_str(f, tier_check(w->tier));
		fputc('\n', f);
	}
	int rc = ferror(f) ? -EIO : 0;
	if (f != stdout && fclose(f))
		rc = rc ? rc : -errno;
	return rc;
}

/* gnuplot reads its data inline ("$d << EOD"); labels are quoted, so a
 * label's own quotes are replaced to keep the script well formed. */
static void plot_label(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++)
		fputc(*s == '"' || *s == '\\' ? '\'' : *s, f);
	fputc('"', f);
}

int ts_report_plot(const struct ts_report *r, const char *path, char *err, size_t errlen)
{
	const char *ext = strrchr(path, '.');
	const char *term;
	if (ext && !strcasecmp(ext, ".svg"))
		term = "svg size 900,500 dynamic background rgb 'white'";
	else if (ext && !strcasecmp(ext, ".png"))
		term = "pngcairo size 900,500";
	else {
		snprintf(err, errlen, "--plot %s: the file must end in .svg or .png", path);
		return TS_E_PARSE;
	}
	char script[] = "/tmp/tiersim-plot-XXXXXX";
	int fd = mkstemp(script);
	if (fd < 0) {
		snprintf(err, errlen, "--plot: cannot create a temporary file: %s", strerror(errno));
		return -errno;
	}
	FILE *f = fdopen(fd, "w");
	if (!f) {
		int e = errno;
		close(fd);
		unlink(script);
		return -e;
	}
	fprintf(f, "set terminal %s\nset output ", term);
	plot_label(f, path);
	char title[512];
	snprintf(title, sizeof(title), "%s%s", r->title ? r->title : "tiersim",
		 r->virtual_time ? " (virtual time)" : "");
	fprintf(f, "\nset title ");
	plot_label(f, title);
	fprintf(f, "\nset style fill solid 0.8 border -1\nset boxwidth 0.6\n"
		   "set ylabel 'samples/s'\nset yrange [0:*]\nset xrange [-0.6:%zu.6]\n"
		   "set xtics rotate by -30 nomirror\nset bmargin 8\nset rmargin 12\nset grid ytics\n"
		   "unset key\n$d << EOD\n",
		   r->n ? r->n - 1 : 0);
	size_t good = 0;
	for (size_t i = 0; i < r->n; i++) {
		const struct ts_row *w = &r->rows[i];
		plot_label(f, w->label);
		fprintf(f, " %.6g\n", w->error || isnan(w->samples_per_s) ? 0.0 : w->samples_per_s);
		good += !w->error;
	}
	fprintf(f, "EOD\nplot $d using 0:2:xtic(1) with boxes linecolor rgb '#4477aa', "
		   "'' using 0:2:(sprintf('%%.0f', $2)) with labels offset 0,0.7\n");
	if (fclose(f)) {
		unlink(script);
		return -EIO;
	}
	if (!good) {
		unlink(script);
		snprintf(err, errlen, "--plot %s: no row has a result to draw", path);
		return -ENODATA;
	}
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		unlink(script);
		return -e;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY);
		if (null >= 0)
			dup2(null, 0);
		execlp("gnuplot", "gnuplot", script, (char *)NULL);
		_exit(127);
	}
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	unlink(script);
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		snprintf(err, errlen, "--plot %s: gnuplot %s (is gnuplot installed?)", path,
			 WIFEXITED(st) && WEXITSTATUS(st) == 127 ? "was not found" : "failed");
		return -EIO;
	}
	return 0;
}
