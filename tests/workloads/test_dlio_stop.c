/* test_dlio_stop.c — a DLIO run stopped once it cannot reach metric.au
 * (workloads/dlio_run.h, stop_early): at the largest count that passes it
 * runs whole with the figures of a run without it; one more accelerator
 * stops, names an AU bound under the threshold, and that bound is at
 * least the AU the whole run has. The searches name the same count,
 * seeded with a count (find_from) or not, and a seeded search's first run
 * is that count's whole run. Virtual time, a scaled-down unet3d (and
 * resnet50 for the drive's share). */
#include <inttypes.h>
#include <string.h>

#include "tests/tcheck.h"
#include "workloads/dlio_run.h"

static const char *const ov[] = {
	"dataset.num_files_train=200", "dataset.record_length_bytes=1000000",
	"dataset.record_length_bytes_stdev=0", "reader.batch_size=2",
	"train.computation_time=0.02", "train.epochs=3",
};

static void run_from(uint64_t n, bool find_max, const char *search, bool stop, uint64_t from,
		     struct ts_dlio_outcome *oc)
{
	char err[1024] = "";
	struct ts_dlio_opts o = { .tier = "ssd-cloud", .accelerators = n, .virtual_time = true,
				  .find_max = find_max, .search = (char *)search, .find_from = from,
				  .stop_early = stop, .quiet = true, .workload = "unet3d_h100",
				  .overrides = ov, .noverrides = sizeof(ov) / sizeof(ov[0]) };
	int rc = ts_dlio_run(&o, oc, err, sizeof(err));
	if (rc)
		fprintf(stderr, "dlio: %s\n", err);
	CHECK(rc == 0);
}

static void run(uint64_t n, bool find_max, const char *search, bool stop,
		struct ts_dlio_outcome *oc)
{
	run_from(n, find_max, search, stop, 0, oc);
}

/* A search seeded with @from runs it first and whole, with the figures of
 * @alone (a run of that count by itself), names @n, and runs at most one
 * count more than the unseeded search's @runs. */
static void check_from(uint64_t from, const struct ts_dlio_result *alone, uint64_t n,
		       const struct ts_dlio_result *best, size_t runs)
{
	static struct ts_dlio_outcome e;
	run_from(1, true, NULL, false, from, &e);
	CHECK(e.nr >= 1 && e.rs[0].n == from && !e.rs[0].stopped);
	CHECK(e.nr <= runs + 1);
	CHECK(e.rs[0].au == alone->au && e.rs[0].samples_s == alone->samples_s &&
	      e.rs[0].mib_s == alone->mib_s && e.rs[0].epochs == alone->epochs);
	CHECK(e.best && e.best->n == n && e.best->au == best->au &&
	      e.best->samples_s == best->samples_s);
	ts_dlio_outcome_free(&e);
}

/* The drive's share of an epoch (its read cap, the page cache's size):
 * around the answer every stopped run is a whole run that misses, its
 * bound at least that run's AU, and a count the drive cannot feed (@over
 * more than the answer) stops within its first tenth; on one long epoch,
 * with a page cache over two, and (the project's loader) over five
 * without one. @workload with @base: DLIO's PyTorch loader (unet3d, npz)
 * or the project's loader under DLIO's TensorFlow one (resnet50,
 * tfrecord). The bracket search, stopping runs, names the same count. */
static void check_floor(const char *tier, const char *workload, const char *const *base,
			uint64_t mem, const char *epochs, uint64_t over)
{
	const char *o1[9];
	size_t n1 = 0;
	while (base[n1] && n1 < TS_ARRAY_SIZE(o1) - 1) {
		o1[n1] = base[n1];
		n1++;
	}
	o1[n1++] = epochs;
	char err[1024] = "";
	struct ts_dlio_opts o = { .tier = (char *)tier, .virtual_time = true, .mem = mem,
				  .quiet = true, .workload = workload, .overrides = o1,
				  .noverrides = n1 };
	static struct ts_dlio_outcome mx, br, whole, stop;
	o.find_max = true;
	o.search = "doubling";
	CHECK(ts_dlio_run(&o, &mx, err, sizeof(err)) == 0);
	CHECK(mx.best != NULL);
	uint64_t n = mx.best ? mx.best->n : 1;
	o.search = NULL;
	CHECK(ts_dlio_run(&o, &br, err, sizeof(err)) == 0);
	/* the same run, or one decided early: its AU a lower bound of it */
	CHECK(br.best && br.best->n == n && mx.best &&
	      (br.best->passed ? br.best->au <= mx.best->au : br.best->au == mx.best->au));
	ts_dlio_outcome_free(&br);
	o.find_max = false;
	for (uint64_t k = n > 1 ? n - 1 : 1; k <= n + over; k++) {
		if (k > n + 1 && k < n + over)
			continue;
		o.accelerators = k;
		o.stop_early = false;
		CHECK(ts_dlio_run(&o, &whole, err, sizeof(err)) == 0);
		o.stop_early = true;
		CHECK(ts_dlio_run(&o, &stop, err, sizeof(err)) == 0);
		const struct ts_dlio_result *w = &whole.rs[0], *b = &stop.rs[0];
		bool pass = w->au >= whole.w.au;
		CHECK(pass == (k <= n));
		CHECK(b->stopped == !pass);
		CHECK(!b->stopped ? b->au == w->au : b->au < whole.w.au && b->au >= w->au - 1e-12);
		/* au_done (the search's hint): the mean AU of the epochs the stopped
		 * run ran whole, the same epochs as the whole run's first ones: each
		 * computation_time over its mean step on the project's loader; on
		 * DLIO's PyTorch one the mean over ranks of their own, at least that */
		if (b->stopped && b->epochs && b->epochs <= TS_DLIO_EPOCHS_KEPT) {
			double m = 0;
			for (uint64_t e = 0; e < b->epochs; e++)
				m += whole.w.computation_time / w->ep[e].step_s / (double)b->epochs;
			bool torch = !strcmp(whole.w.format, "npz");
			CHECK(b->au_done >= m - 1e-9 && (torch || b->au_done <= m + 1e-9));
		} else {
			CHECK(b->au_done == 0);
		}
		if (k == n + over) /* AU about 2/3: the drive's share rules it out at once */
			CHECK(b->stopped && b->run_s < 0.1 * w->run_s);
		ts_dlio_outcome_free(&whole);
		ts_dlio_outcome_free(&stop);
	}
	ts_dlio_outcome_free(&mx);
}

static const char *const unet3d_floor[] = {
	"dataset.num_files_train=2000", "dataset.record_length_bytes=1000000",
	"dataset.record_length_bytes_stdev=0", "reader.batch_size=2",
	"train.computation_time=0.02", NULL,
};
/* 2,000 samples of 1 MB in 40 TFRecord files */
static const char *const resnet50_floor[] = {
	"dataset.num_files_train=40", "dataset.num_samples_per_file=50",
	"dataset.record_length=1000000", "dataset.record_length_stdev=0",
	"reader.batch_size=2", "train.computation_time=0.02", NULL,
};
/* 10,000 samples of 4 KiB: the drive's IOPS cap (15,000 at ssd-cloud's
 * 500 GiB), not its bandwidth (at most 61 MB/s of its 268), binds */
static const char *const small_floor[] = {
	"dataset.num_files_train=200", "dataset.num_samples_per_file=50",
	"dataset.record_length=4096", "dataset.record_length_stdev=0",
	"reader.batch_size=2", "train.computation_time=0.001", NULL,
};

/* The same read in a shuffled order: few samples follow the one stored
 * before them closely enough to merge with it */
static const char *const small_shuffled[] = {
	"dataset.num_files_train=200", "dataset.num_samples_per_file=50",
	"dataset.record_length=4096", "dataset.record_length_stdev=0",
	"reader.batch_size=2", "train.computation_time=0.001",
	"reader.sample_shuffle=seed", NULL,
};

/* bert's shape: shuffled 2,500-byte records of 40 TFRecord files, one
 * epoch cut short by a step limit (train.total_training_steps) */
static const char *const bert_limited[] = {
	"dataset.num_files_train=40", "dataset.num_samples_per_file=20000",
	"reader.batch_size=4", "train.computation_time=0.05", NULL,
};

/* A search seeded with a count over the answer that misses, run whole
 * (as validate runs a published count): where the drive holds its pace
 * across counts, that run's AU names the answer (N x AU / metric.au, one
 * off at most), and the search runs the count it names and its neighbour
 * towards the answer, no bisection: the seed and two runs, the answer
 * among them, whole, and the same answer as the doubling search. On the
 * 2,000 1 MB samples of resnet50_floor over two epochs, the drive's
 * bandwidth binds; seeds 2 to 6 over the answer (the old search, from a
 * hint of samples/s counting each epoch's first step, ran four counts
 * at some). */
static void check_near(void)
{
	const char *o1[8];
	size_t n1 = 0;
	while (resnet50_floor[n1])
		o1[n1] = resnet50_floor[n1], n1++;
	o1[n1++] = "train.epochs=2";
	char err[1024] = "";
	struct ts_dlio_opts o = { .tier = "ssd-cloud", .virtual_time = true, .quiet = true,
				  .workload = "resnet50_h100", .overrides = o1, .noverrides = n1,
				  .find_max = true, .search = "doubling" };
	static struct ts_dlio_outcome mx, e;
	CHECK(ts_dlio_run(&o, &mx, err, sizeof(err)) == 0);
	CHECK(mx.best != NULL);
	if (!mx.best)
		return;
	uint64_t n = mx.best->n;
	o.search = NULL;
	for (uint64_t over = 2; over <= 6; over++) {
		o.find_from = n + over;
		CHECK(ts_dlio_run(&o, &e, err, sizeof(err)) == 0);
		CHECK(e.nr >= 1 && e.rs[0].n == n + over && !e.rs[0].stopped &&
		      e.rs[0].au < e.w.au);
		CHECK(e.best && e.best->n == n && e.best->au == mx.best->au && !e.best->stopped);
		CHECK(e.nr <= 3);
		if (e.nr > 3 || !e.best || e.best->n != n) {
			fprintf(stderr, "seeded at %" PRIu64 " (answer %" PRIu64 "):", n + over, n);
			for (size_t i = 0; i < e.nr; i++)
				fprintf(stderr, " %" PRIu64 "%s", e.rs[i].n, e.rs[i].stopped ? "s" : "");
			fprintf(stderr, "\n");
		}
		ts_dlio_outcome_free(&e);
	}
	ts_dlio_outcome_free(&mx);
}

/* A run's later epoch decided by its own drive's share: with a page cache
 * the epochs to come have no bound (accel_next), so at a threshold of 0.5
 * over three epochs the first cannot rule a run out ((AU + 2) / 3 > 2/3),
 * and a count four times the answer (AU about 1/8 an epoch) is ruled out
 * in the second: its floor (the drive's share of that epoch, from that
 * epoch's start) bounds it after two steps, within its first tenth. Its
 * bound is at least its whole run's AU. Fails when a floor of one epoch
 * is kept for the next (that one then has none, and is ruled out only
 * near its end). */
static void check_later_epoch(void)
{
	static const char *const later[] = {
		"dataset.num_files_train=40", "dataset.num_samples_per_file=50",
		"dataset.record_length=1000000", "dataset.record_length_stdev=0",
		"reader.batch_size=2", "train.computation_time=0.02", "train.epochs=3",
		"metric.au=0.5",
	};
	char err[1024] = "";
	struct ts_dlio_opts o = { .tier = "ssd-cloud", .virtual_time = true, .mem = 200000000,
				  .quiet = true, .workload = "resnet50_h100", .overrides = later,
				  .noverrides = sizeof(later) / sizeof(later[0]) };
	static struct ts_dlio_outcome mx, whole, stop;
	o.find_max = true;
	CHECK(ts_dlio_run(&o, &mx, err, sizeof(err)) == 0);
	CHECK(mx.best != NULL);
	o.find_max = false;
	o.accelerators = 4 * (mx.best ? mx.best->n : 1);
	CHECK(ts_dlio_run(&o, &whole, err, sizeof(err)) == 0);
	o.stop_early = true;
	CHECK(ts_dlio_run(&o, &stop, err, sizeof(err)) == 0);
	if (*err)
		fprintf(stderr, "dlio: %s\n", err);
	const struct ts_dlio_result *w = &whole.rs[0], *b = &stop.rs[0];
	CHECK(w->epochs == 3 && w->au < 0.25);
	double d0 = w->ep[0].first_s + w->ep[0].step_s * (double)(w->ep[0].steps - 1);
	double d1 = w->ep[1].first_s + w->ep[1].step_s * (double)(w->ep[1].steps - 1);
	CHECK(b->stopped && b->epochs == 1 && b->au < 0.5 && b->au >= w->au - 1e-12);
	CHECK(b->run_s > d0 && b->run_s < d0 + 0.1 * d1);
	if (!(b->run_s < d0 + 0.1 * d1))
		fprintf(stderr, "stopped at %.3f s, epoch 1 %.3f-%.3f s\n", b->run_s, d0, d0 + d1);
	ts_dlio_outcome_free(&mx);
	ts_dlio_outcome_free(&whole);
	ts_dlio_outcome_free(&stop);
}

/* DLIO's TensorFlow loader on a host's cores: each of N ranks reads
 * floor(files / N) files whole, 26 files of 6 records at batch 3 on 3
 * ranks 16 steps an epoch (not 156 / 9 = 17). On a tier that costs
 * nothing the run passes: stopping early it runs whole, every epoch
 * counted, with the figures of the run without it (AU about 0.86 on
 * build-host, whose parse and step hold the rank's Python lock). */
static void check_tf_steps(void)
{
	static const char *const tf[] = {
		"dataset.num_files_train=26", "dataset.num_samples_per_file=6",
		"dataset.record_length=4096", "dataset.record_length_stdev=0",
		"reader.batch_size=3", "reader.read_threads=2", "train.computation_time=0.1",
		"train.epochs=3",
	};
	char err[1024] = "";
	struct ts_dlio_opts o = { .tier = "unlimited", .accelerators = 3, .virtual_time = true,
				  .host = "build-host", .quiet = true, .workload = "cosmoflow_h100",
				  .overrides = tf, .noverrides = sizeof(tf) / sizeof(tf[0]) };
	static struct ts_dlio_outcome whole, stop;
	CHECK(ts_dlio_run(&o, &whole, err, sizeof(err)) == 0);
	o.stop_early = true;
	CHECK(ts_dlio_run(&o, &stop, err, sizeof(err)) == 0);
	if (*err)
		fprintf(stderr, "dlio: %s\n", err);
	const struct ts_dlio_result *w = &whole.rs[0], *b = &stop.rs[0];
	CHECK(whole.nr == 1 && stop.nr == 1 && w->steps == 16 && w->au >= whole.w.au);
	CHECK(!b->stopped && b->au == w->au && b->samples_s == w->samples_s &&
	      b->epochs == w->epochs);
	ts_dlio_outcome_free(&whole);
	ts_dlio_outcome_free(&stop);
}

int main(void)
{
	check_tf_steps();
	check_later_epoch();
	check_near();
	check_floor("ssd-cloud", "unet3d_h100", unet3d_floor, 0, "train.epochs=1", 2);
	check_floor("ssd-cloud", "unet3d_h100", unet3d_floor, 200000000, "train.epochs=2", 2);
	check_floor("ssd-cloud", "resnet50_h100", resnet50_floor, 0, "train.epochs=1", 2);
	check_floor("ssd-cloud", "resnet50_h100", resnet50_floor, 200000000, "train.epochs=2", 2);
	/* five epochs: the four to come bounded past the prefetch window */
	check_floor("ssd-cloud", "resnet50_h100", resnet50_floor, 0, "train.epochs=5", 2);
	/* the IOPS cap's share: twice the answer's count stops at once */
	check_floor("ssd-cloud", "resnet50_h100", small_floor, 0, "train.epochs=1", 8);
	check_floor("ssd-cloud", "resnet50_h100", small_floor, 0, "train.epochs=5", 8);
	/* on a tier that merges sequential reads, the samples of the
	 * shuffled order that cannot merge, at its IOPS cap and past its
	 * burst credits: one count over the answer stops at once (one
	 * epoch: those to come have orders not made yet) */
	check_floor("aws-gp3", "resnet50_h100", small_shuffled, 0, "train.epochs=1", 1);
	/* the same on bert's shape: one count over the answer keeps the
	 * compute's pace while the burst credits last, and its epoch's known
	 * length with the drive's share past them rules it out at once */
	check_floor("aws-gp3", "bert_v100", bert_limited, 0, "train.total_training_steps=2000", 1);
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
	/* seeded with a count that misses, one that passes, and the answer */
	check_from(n + 1, &c.rs[0], n, all.best, d.nr);
	check_from(n, &a.rs[0], n, all.best, d.nr);
	if (n > 1) {
		static struct ts_dlio_outcome lo;
		run(n - 1, false, NULL, false, &lo);
		check_from(n - 1, &lo.rs[0], n, all.best, d.nr);
		ts_dlio_outcome_free(&lo);
	}
	ts_dlio_outcome_free(&all);
	ts_dlio_outcome_free(&a);
	ts_dlio_outcome_free(&b);
	ts_dlio_outcome_free(&c);
	ts_dlio_outcome_free(&d);
	return tc_exit();
}
