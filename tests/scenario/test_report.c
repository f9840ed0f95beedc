/* test_report.c — the report's outputs: relative-to-best, NaN as "-" and
 * null, CSV quoting, units on every JSON number, and the plot's refusal of
 * an unknown extension. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scenario/report.h"
#include "tests/tcheck.h"

static struct ts_row *add(struct ts_report *r, const char *label, double sps)
{
	struct ts_row *w = ts_report_add(r);
	CHECK(w != NULL);
	CHECK(ts_row_set_str(&w->label, label) == 0);
	CHECK(ts_row_set_str(&w->tier, "ssd-cloud") == 0);
	w->samples_per_s = sps;
	w->iterations = 10;
	w->batch = 4;
	w->samples = 40;
	w->time_s = 40 / sps;
	return w;
}

int main(void)
{
	struct ts_report r;
	ts_report_init(&r);
	CHECK(ts_row_set_str(&r.title, "t") == 0);
	struct ts_row *a = add(&r, "slow, \"quoted\"", 50);
	a->au_pct = 40;
	add(&r, "fast", 200);
	struct ts_row *c = add(&r, "oom", NAN);
	CHECK(ts_row_set_str(&c->error, "OOM: batch 512 needs 20 GiB") == 0);
	CHECK(ts_row_param(a, "engine.batch", "4") == 0);
	CHECK(ts_row_param(a, "engine.batch", "8") == 0); /* replaces */
	CHECK_EQ_U64(a->nparams, 1);
	CHECK_NEAR(ts_report_best(&r), 200, 1e-12);

	char dir[] = "/tmp/tiersim-report-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	char json[64], csv[64], txt[64];
	snprintf(json, sizeof(json), "%s/r.json", dir);
	snprintf(csv, sizeof(csv), "%s/r.csv", dir);
	snprintf(txt, sizeof(txt), "%s/r.txt", dir);

	FILE *f = fopen(txt, "w");
	CHECK(f != NULL);
	ts_report_print(&r, f);
	fclose(f);
	char buf[8192];
	f = fopen(txt, "r");
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	fclose(f);
	CHECK(strstr(buf, "OOM: batch 512") != NULL);
	CHECK(strstr(buf, "0.25") != NULL); /* 50 / 200 */
	CHECK(strstr(buf, "1.00") != NULL);

	CHECK(ts_report_write_json(&r, json) == 0);
	json_error_t je;
	json_t *root = json_load_file(json, 0, &je);
	CHECK(root != NULL);
	json_t *rows = json_object_get(root, "rows");
	CHECK_EQ_U64(json_array_size(rows), 3);
	json_t *r0 = json_array_get(rows, 0);
	CHECK(!strcmp(json_string_value(json_object_get(json_object_get(r0, "throughput"), "unit")),
		      "samples/s"));
	CHECK_NEAR(json_real_value(json_object_get(json_object_get(r0, "relative_to_best"), "value")),
		   0.25, 1e-12);
	/* Not measured: null, never a made-up number. */
	CHECK(json_is_null(json_object_get(json_object_get(r0, "cache_hit"), "value")));
	CHECK(!strcmp(json_string_value(json_object_get(json_object_get(r0, "config"),
							"engine.batch")), "8"));
	json_decref(root);

	CHECK(ts_report_write_csv(&r, csv) == 0);
	f = fopen(csv, "r");
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	fclose(f);
	CHECK(strstr(buf, "\"slow, \"\"quoted\"\"\"") != NULL);
	CHECK(strstr(buf, "throughput (samples/s)") != NULL);

	char err[256];
	CHECK(ts_report_plot(&r, "/tmp/x.pdf", err, sizeof(err)) == TS_E_PARSE);
	CHECK(strstr(err, ".svg or .png") != NULL);

	unlink(json);
	unlink(csv);
	unlink(txt);
	rmdir(dir);
	ts_report_free(&r);
	return tc_exit();
}
