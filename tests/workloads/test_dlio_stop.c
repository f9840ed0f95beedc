/* test_dlio_stop.c — a DLIO run stopped once it cannot reach metric.au
 * (workloads/dlio_run.h, stop_early): at the largest count that passes it
 * runs whole with the figures of a run without it; one more accelerator
 * stops, names an AU bound under the threshold, and that bound is at
 * least the AU the whole run has. Virtual time, a scaled-down unet3d. */
#include <string.h>

#include "tests/tcheck.h"
#include "workloads/dlio_run.h"

static const char *const ov[] = {
	"dataset.num_files_train=200", "dataset.record_length_bytes=1000000",
	"dataset.record_length_bytes_stdev=0", "reader.batch_size=2",
	"train.computation_time=0.02", "train.epochs=3",
};

static void run(uint64_t n, bool find_max, const char *search, bool stop,
		struct ts_dlio_outcome *oc)
{
	char err[1024] = "";
	struct ts_dlio_opts o = { .tier = "ssd-cloud", .accelerators = n, .virtual_time = true,
				  .find_max = find_max, .search = (char *)search,
				  .stop_early = stop, .quiet = true, .workload = "unet3d_h100",
				  .overrides = ov, .noverrides = sizeof(ov) / sizeof(ov[0]) };
	int rc = ts_dlio_run(&o, oc, err, sizeof(err));
	if (rc)
		fprintf(stderr, "dlio: %s\n", err);
	CHECK(rc == 0);
}

int main(void)
{
	static struct ts_dlio_outcome all, a, b, c, d;
	run(1, true, "doubling", false, &all);
	CHECK(all.best != NULL);
	if (!all.best)
		return tc_exit();
	uint64_t n = all.best->n;
	double thr = all.w.au;
	run(n, false, NULL, true, &a); /* passes: whole */
	CHECK(a.nr == 1 && !a.rs[0].stopped);
	CHECK(a.rs[0].au >= thr && a.rs[0].au == all.best->au);
	CHECK(a.rs[0].samples_s == all.best->samples_s && a.rs[0].epochs == all.best->epochs);
	run(n + 1, false, NULL, true, &b); /* misses: stopped, a bound under thr */
	run(n + 1, false, NULL, false, &c);
	CHECK(b.nr == 1 && b.rs[0].stopped && b.rs[0].au < thr);
	CHECK(!c.rs[0].stopped && c.rs[0].au < thr && c.rs[0].au <= b.rs[0].au + 1e-12);
	CHECK(b.rs[0].run_s <= c.rs[0].run_s);
	/* the bracket search names the same count, its best the same run */
	run(1, true, "bracket", false, &d);
	CHECK(d.best && d.best->n == n && d.best->au == all.best->au);
	ts_dlio_outcome_free(&all);
	ts_dlio_outcome_free(&a);
	ts_dlio_outcome_free(&b);
	ts_dlio_outcome_free(&c);
	ts_dlio_outcome_free(&d);
	return tc_exit();
}
