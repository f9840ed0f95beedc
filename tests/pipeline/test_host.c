/*
 * test_host.c — host profiles (pipeline/host.h): the costs a host and a
 * library come to (carried along a from = chain, a library's factor on the
 * decode's share or on the whole, the fast and slow ends of every range),
 * an unknown host or library listing the known ones, and a bad profile
 * refused naming its file, line and field. One table of bad files. A
 * library's factor measured on a host (library_factors) in place of the
 * library's own, carried along from =. DLIO's
 * per-workload step costs and a machine's vCPUs. A DataLoader worker's
 * own costs (loader_sample_ns, loader_batch_ns). The
 * built-in pipeline/hosts.lua loads and every host in it resolves.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pipeline/host.h"
#include "tests/tcheck.h"

static char dir[] = "/tmp/tiersim-host-XXXXXX";

static const char *write_file(const char *name, const char *text)
{
	static char path[256];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f)) {
		perror(path);
		exit(1);
	}
	return path;
}

/* Numbers chosen so every product is exact in binary floating point. */
static const char good[] =
	"host \"a\" { cpu = \"A\",\n"
	"  decode_base_ns = { 1000, \"measured\", \"m\" },\n"
	"  decode_ns_per_mpix = { 2000000, \"measured\", \"m\" },\n"
	"  decode_share = { 0.5, \"measured\", \"m\" },\n"
	"  datum_xform_ns = { 300, \"measured\", \"m\" },\n"
	"  datum_parse_ns = { 20, \"measured\", \"m\" },\n"
	"  lmdb_put_ns = { 400, \"measured\", \"m\", low = 200, high = 800 },\n"
	"}\n"
	"host \"b\" { cpu = \"B\", from = \"a\",\n"
	"  speed = { 0.5, \"assumed\", \"why\", low = 0.25, high = 1 } }\n"
	"host \"c\" { cpu = \"C\", from = \"b\", speed = { 2, \"spec\", \"table\" },\n"
	"  library = \"slow\" }\n"
	"host \"d\" { cpu = \"D\", from = \"a\", speed = { 1, \"spec\", \"t\" },\n"
	"  library_factors = { whole = { 3, \"measured\", \"w\", low = 2, high = 4 },\n"
	"                      slow = { 2, \"measured\", \"s\" } } }\n"
	"host \"e\" { cpu = \"E\", from = \"d\", speed = { 0.5, \"spec\", \"t\" } }\n"
	"host \"f\" { cpu = \"F\", from = \"d\", speed = { 1, \"spec\", \"t\" },\n"
	"  loader_sample_ns = { 500000, \"measured\", \"m\", low = 250000, high = 750000 },\n"
	"  loader_batch_ns = { 2000000, \"measured\", \"m\", low = 1000000, high = 4000000 } }\n"
	"host \"g\" { cpu = \"G\", from = \"f\", speed = { 0.5, \"spec\", \"t\" } }\n"
	"library \"libjpeg-turbo\" { decode = { 1, \"measured\", \"m\" } }\n"
	"library \"slow\" { decode = { 3, \"spec\", \"t\", low = 2, high = 4 } }\n"
	"library \"whole\" { transform = { 1.5, \"measured\", \"m\" } }\n";

static void costs(void)
{
	struct ts_host_set *s;
	char err[1024];
	CHECK(ts_host_set_load_default(&s, err, sizeof(err)) == 0);
	if (!s)
		return;
	/* The user's file replaces nothing built in here: names are new. */
	CHECK(ts_host_set_add_file(s, write_file("good.lua", good), err, sizeof(err)) == 0);
	struct ts_decode_cal c;
	CHECK(ts_host_cal(s, "a", TS_HOST_NOMINAL, &c, err, sizeof(err)) == 0);
	CHECK(c.base_ns == 1000 && c.ns_per_mpix == 2e6);
	CHECK(c.xform_ns == 320 && c.put_ns == 400); /* transform + parse */
	CHECK_NEAR(c.full_ips, 1e9 / (1000 + 2e6 * 469.0 * 387.0 / 1e6), 1e-12);
	CHECK(ts_host_cal(s, "b", TS_HOST_NOMINAL, &c, err, sizeof(err)) == 0);
	CHECK(c.base_ns == 2000 && c.ns_per_mpix == 4e6 && c.xform_ns == 640 && c.put_ns == 800);
	/* c: carried from b (x2) from a (x0.5), with its own library: the
	 * decode share (0.5) costs 3x, the rest 1x. */
	CHECK(ts_host_cal(s, "c", TS_HOST_NOMINAL, &c, err, sizeof(err)) == 0);
	CHECK(c.base_ns == 2000 && c.ns_per_mpix == 4e6 && c.xform_ns == 320);
	CHECK(ts_host_cal(s, "c/libjpeg-turbo", TS_HOST_NOMINAL, &c, err, sizeof(err)) == 0);
	CHECK(c.base_ns == 1000);
	CHECK(ts_host_cal(s, "a/whole", TS_HOST_NOMINAL, &c, err, sizeof(err)) == 0);
	CHECK(c.base_ns == 1500 && c.xform_ns == 320); /* no library enters a Datum */
	/* The ends: fast takes the high speed and the low factor and cost. */
	CHECK(ts_host_cal(s, "b/slow", TS_HOST_FAST, &c, err, sizeof(err)) == 0);
	CHECK(c.base_ns == 1000 * 1.5 && c.put_ns == 200);
	CHECK(strstr(c.cpu, "fast end") != NULL);
	CHECK(ts_host_cal(s, "b/slow", TS_HOST_SLOW, &c, err, sizeof(err)) == 0);
	CHECK(c.base_ns == 4000 * 2.5 && c.put_ns == 800 * 4);
	/* A host's own factor for a library replaces the library's, of the
	 * library's kind (whole: 3 on all; slow: the decode share 0.5 at 2),
	 * at its own ends, and the hosts carried from it take it (the speed
	 * scales the costs, never the factor); a library it did not measure
	 * keeps the library's factor. */
	CHECK(ts_host_cal(s, "d/whole", TS_HOST_NOMINAL, &c, err, sizeof(err)) == 0);
	CHECK(c.base_ns == 3000 && c.ns_per_mpix == 6e6 && c.xform_ns == 320);
	CHECK(ts_host_cal(s, "d/slow", TS_HOST_NOMINAL, &c, err, sizeof(err)) == 0);
	CHECK(c.base_ns == 1500);
	CHECK(ts_host_cal(s, "d/whole", TS_HOST_FAST, &c, err, sizeof(err)) == 0);
	CHECK(c.base_ns == 2000);
	CHECK(ts_host_cal(s, "d/whole", TS_HOST_SLOW, &c, err, sizeof(err)) == 0);
	CHECK(c.base_ns == 4000);
	CHECK(ts_host_cal(s, "e/whole", TS_HOST_NOMINAL, &c, err, sizeof(err)) == 0);
	CHECK(c.base_ns == 6000 && c.xform_ns == 640);
	CHECK(ts_host_cal(s, "a/whole", TS_HOST_NOMINAL, &c, err, sizeof(err)) == 0);
	CHECK(c.base_ns == 1500);
	/* A DataLoader worker's own costs: the host's, at its ends, carried
	 * by from = and scaled by the speed, never by a library's factor;
	 * none where no host on the chain measured them. */
	CHECK(ts_host_cal(s, "f/whole", TS_HOST_NOMINAL, &c, err, sizeof(err)) == 0);
	CHECK(c.base_ns == 3000 && c.loader_sample_ns == 500000 && c.loader_batch_ns == 2e6);
	CHECK(c.sample_ns == 0); /* charged only by a DataLoader's source */
	CHECK(ts_host_cal(s, "f", TS_HOST_SLOW, &c, err, sizeof(err)) == 0);
	CHECK(c.loader_sample_ns == 750000 && c.loader_batch_ns == 4e6);
	CHECK(ts_host_cal(s, "g/whole", TS_HOST_FAST, &c, err, sizeof(err)) == 0);
	CHECK(c.loader_sample_ns == 250000 / 0.5 && c.loader_batch_ns == 1e6 / 0.5);
	CHECK(ts_host_cal(s, "e/whole", TS_HOST_NOMINAL, &c, err, sizeof(err)) == 0);
	CHECK(c.loader_sample_ns == 0 && c.loader_batch_ns == 0);
	/* spread over a batch of 4 for a DataLoader's source, nothing else */
	CHECK(ts_host_cal(s, "f", TS_HOST_NOMINAL, &c, err, sizeof(err)) == 0);
	struct ts_decode_cal t = c;
	ts_decode_cal_for_source(&t, true, 4);
	CHECK(t.sample_ns == 500000 + 2e6 / 4 && t.base_ns == c.base_ns);
	CHECK_EQ_U64(ts_decode_cal_sample_ns(&t, 123456), 1000000);
	t = c;
	ts_decode_cal_for_source(&t, false, 4);
	CHECK(t.sample_ns == 0);
	/* Unknown names list the known ones. */
	CHECK(ts_host_cal(s, "nope", TS_HOST_NOMINAL, &c, err, sizeof(err)) == -ENOENT);
	CHECK(strstr(err, "'nope'") && strstr(err, TS_HOST_THIS) && strstr(err, "xeon-e5-2682v4") &&
	      strstr(err, ", b,"));
	CHECK(ts_host_cal(s, "a/nolib", TS_HOST_NOMINAL, &c, err, sizeof(err)) == -ENOENT);
	CHECK(strstr(err, "'nolib'") && strstr(err, "whole") && strstr(err, "pillow"));
	/* Every built-in host resolves, and the 2017 Xeon is slower than the
	 * core its costs were measured on. */
	struct ts_decode_cal z, x;
	CHECK(ts_host_cal(s, "epyc-zen4", TS_HOST_NOMINAL, &z, err, sizeof(err)) == 0);
	CHECK(ts_host_cal(s, "xeon-e5-2682v4", TS_HOST_NOMINAL, &x, err, sizeof(err)) == 0);
	CHECK(x.xform_ns > z.xform_ns && x.ns_per_mpix > z.ns_per_mpix && x.put_ns > z.put_ns);
	/* a DataLoader worker's own work is carried to every built-in host from
	 * the Zen 4's (assumed from the two hosts that measured it), by the
	 * speed like any cost */
	CHECK(z.loader_sample_ns > 0 && z.loader_batch_ns > 0);
	CHECK(fabs(x.loader_sample_ns - z.loader_sample_ns / 0.41) < 1e-3 &&
	      fabs(x.loader_batch_ns - z.loader_batch_ns / 0.41) < 1e-3);
	static const char *const carried[] = { "build-host", "epyc-zen5", "xeon-emr", "xeon-8375c",
					       "epyc-74f3", "epyc-7713", "epyc-9654" };
	for (size_t i = 0; i < TS_ARRAY_SIZE(carried); i++) {
		struct ts_decode_cal h;
		CHECK(ts_host_cal(s, carried[i], TS_HOST_NOMINAL, &h, err, sizeof(err)) == 0);
		CHECK(h.loader_sample_ns > 0 && h.loader_batch_ns > 0);
	}
	FILE *devnull = fopen("/dev/null", "w");
	CHECK(ts_host_print_table(devnull, s) == 0);
	fclose(devnull);
	/* the evidence lists a host's own factors, with their ranges */
	FILE *f = tmpfile();
	CHECK(f && ts_host_print_evidence(f, s) == 0);
	char line[1024];
	int seen = 0;
	rewind(f);
	while (f && fgets(line, sizeof(line), f))
		seen += !strncmp(line, "d ", 2) && strstr(line, "library_factors[whole]") &&
			strstr(line, "[2..4]");
	CHECK(seen == 1);
	if (f)
		fclose(f);
	ts_host_set_free(s);

	CHECK(!ts_host_is_profile("") && !ts_host_is_profile(NULL) &&
	      !ts_host_is_profile(TS_HOST_THIS) && ts_host_is_profile("a"));
}

/* copy_tail_first: the profiles' CPUs (the EPYC guest without ERMS, the
 * Broadwell Xeon with it), none where a host sets none, never carried. */
static void copy_order(void)
{
	struct ts_host_set *s;
	char err[1024];
	CHECK(ts_host_set_load_default(&s, err, sizeof(err)) == 0);
	if (!s)
		return;
	bool tf = false;
	CHECK(ts_host_copy_tail_first(s, "epyc-kvm-2vcpu", &tf, err, sizeof(err)) == 0 && tf);
	CHECK(ts_host_copy_tail_first(s, "xeon-e5-2682v4", &tf, err, sizeof(err)) == 0 && !tf);
	/* epyc-kvm-2vcpu's from = epyc-zen4 sets none: the CPU's own */
	CHECK(ts_host_copy_tail_first(s, "epyc-zen4", &tf, err, sizeof(err)) == -ENODATA &&
	      strstr(err, "no copy_tail_first"));
	CHECK(ts_host_copy_tail_first(s, "nope", &tf, err, sizeof(err)) == -ENOENT);
	/* map_window_ns: the machine's own (tier/tier_base.h) */
	uint64_t mw = 0;
	CHECK(ts_host_map_window(s, "epyc-kvm-2vcpu", &mw, err, sizeof(err)) == 0);
	CHECK_EQ_U64(mw, 49000);
	CHECK(ts_host_map_window(s, "xeon-kvm-2vcpu", &mw, err, sizeof(err)) == 0);
	CHECK_EQ_U64(mw, 29000);
	CHECK(ts_host_map_window(s, "epyc-zen4", &mw, err, sizeof(err)) == -ENODATA &&
	      strstr(err, "no map_window_ns"));
	CHECK(ts_host_map_window(s, "nope", &mw, err, sizeof(err)) == -ENOENT);
	ts_host_set_free(s);
}

/* DLIO's costs: a workload's own step cost (MODEL/FORMAT, then MODEL, then
 * dlio_step_ns), carried along from = as a cost; vcpus the host's own. */
static void dlio(void)
{
	struct ts_host_set *s;
	char err[1024];
	CHECK(ts_host_set_load_default(&s, err, sizeof(err)) == 0);
	if (!s)
		return;
	const char *p = write_file(
		"dlio.lua",
		"host \"m\" { cpu = \"M\", from = \"epyc-zen4\", speed = { 1, \"spec\", \"t\" },\n"
		"  vcpus = { 4, \"spec\", \"the instance's\" },\n"
		"  dlio_step_ns = { 1000, \"measured\", \"m\" },\n"
		"  dlio_sample_ns = { 100, \"measured\", \"m\" },\n"
		"  dlio_sample_ns_per_mib = { 10, \"measured\", \"m\" },\n"
		"  dlio_hdf5_sample_ns = { 200, \"measured\", \"h\" },\n"
		"  dlio_hdf5_sample_ns_per_mib = { 20, \"measured\", \"h\" },\n"
		"  dlio_png_sample_ns = { 300, \"measured\", \"p\", low = 250, high = 350 },\n"
		"  dlio_png_sample_ns_per_mib = { 30, \"measured\", \"p\" },\n"
		"  dlio_loader_start_ns = { 4000, \"measured\", \"s\", low = 3000, high = 5000 },\n"
		"  dlio_loader_start_ns_per_worker = { 400, \"measured\", \"s\" },\n"
		"  dlio_loader_restart_ns = { 60, \"measured\", \"s\" },\n"
		"  dlio_loader_restart_ns_per_worker = { 6, \"measured\", \"s\" },\n"
		"  dlio_worker_gc_ns = { 7000, \"measured\", \"g\", low = 6000, high = 8000 },\n"
		"  dlio_worker_gc_samples = { 400, \"measured\", \"g\", low = 300, high = 500 },\n"
		"  dlio_worker_spread = { 0.01, \"measured\", \"w\", low = 0.005, high = 0.02 },\n"
		"  dlio_request_wait_ns = { 600, \"measured\", \"a\", low = 400, high = 900 },\n"
		"  dlio_run_request_ns = { 260, \"measured\", \"x\", low = 100, high = 400 },\n"
		"  dlio_request_ns = { 50, \"measured\", \"q\" },\n"
		"  dlio_request_ns_per_mib = { 5, \"measured\", \"q\" },\n"
		"  dlio_request_daemon_ns = { 80, \"measured\", \"d\", low = 70, high = 90 },\n"
		"  dlio_request_daemon_ns_per_mib = { 8, \"measured\", \"d\" },\n"
		"  dlio_workload_step_ns = {\n"
		"    unet3d = { 3000, \"measured\", \"u\", low = 2000, high = 4000 },\n"
		"    [\"resnet50/jpeg\"] = { 5000, \"measured\", \"j\" },\n"
		"    resnet50 = { 6000, \"measured\", \"r\" } } }\n"
		"host \"n\" { cpu = \"N\", from = \"m\", speed = { 2, \"spec\", \"t\" } }\n"
		"host \"o\" { cpu = \"O\", from = \"m\", speed = { 2, \"spec\", \"t\" },\n"
		"  dlio_step_ns = { 700, \"measured\", \"o\" } }\n"
		"host \"r\" { cpu = \"R\", from = \"m\", speed = { 2, \"spec\", \"t\" },\n"
		"  dlio_sample_ns = { 40, \"measured\", \"r\" } }\n"
		"host \"q\" { cpu = \"Q\", from = \"m\", speed = { 2, \"spec\", \"t\" },\n"
		"  dlio_workload_step_ns = { resnet50 = { 800, \"measured\", \"q\" } } }\n");
	CHECK(ts_host_set_add_file(s, p, err, sizeof(err)) == 0);
	struct ts_host_dlio d;
	CHECK(ts_host_dlio_costs(s, "m", "resnet50", "jpeg", TS_HOST_NOMINAL, &d, err,
				 sizeof(err)) == 0);
	CHECK(d.step_ns == 5000 && d.step_of && !strcmp(d.step_of, "model/format") && d.vcpus == 4);
	CHECK(ts_host_dlio_costs(s, "m", "resnet50", "npz", TS_HOST_NOMINAL, &d, err, sizeof(err)) ==
	      0);
	CHECK(d.step_ns == 6000 && d.step_of && !strcmp(d.step_of, "model"));
	CHECK(ts_host_dlio_costs(s, "m", "unet3d", "npz", TS_HOST_SLOW, &d, err, sizeof(err)) == 0);
	CHECK(d.step_ns == 4000);
	CHECK(ts_host_dlio_costs(s, "m", "cosmoflow", "tfrecord", TS_HOST_NOMINAL, &d, err,
				 sizeof(err)) == 0);
	CHECK(d.step_ns == 1000 && !d.step_of);
	CHECK(ts_host_dlio_costs(s, "m", NULL, NULL, TS_HOST_NOMINAL, &d, err, sizeof(err)) == 0);
	CHECK(d.step_ns == 1000 && !d.step_of);
	/* carried: twice as fast; a machine's vCPUs are not carried */
	CHECK(ts_host_dlio_costs(s, "n", "unet3d", "npz", TS_HOST_NOMINAL, &d, err, sizeof(err)) ==
	      0);
	CHECK(d.step_ns == 1500 && d.vcpus == 0);
	/* the loader's start: both lines carried as costs; at the slow end the
	 * range's high */
	CHECK(d.start_ns == 2000 && d.start_ns_per_worker == 200 && d.restart_ns == 30 &&
	      d.restart_ns_per_worker == 3);
	/* the workers' collection a cost; the sample it comes with a count, not
	 * carried by the speed */
	CHECK(d.worker_gc_ns == 3500 && d.worker_gc_samples == 400);
	/* the workers' spread a share of a batch's time: not carried by the
	 * speed either */
	CHECK(d.worker_spread == 0.01);
	/* the requests' CPU, the reader's and the daemon's apart, carried too */
	CHECK(d.request_ns == 25 && d.request_ns_per_mib == 2.5 && d.request_daemon_ns == 40 &&
	      d.request_daemon_ns_per_mib == 4);
	/* the wait per request (the host's wake-ups) carried as a cost */
	CHECK(d.request_wait_ns == 300);
	/* DLIO's own run's CPU beyond the lines, a cost: carried too */
	CHECK(d.run_request_ns == 130);
	CHECK(ts_host_dlio_costs(s, "m", "unet3d", "npz", TS_HOST_SLOW, &d, err, sizeof(err)) == 0);
	CHECK(d.start_ns == 5000 && d.start_ns_per_worker == 400 && d.request_daemon_ns == 90);
	CHECK(d.worker_gc_ns == 8000 && d.worker_gc_samples == 500);
	CHECK(d.worker_spread == 0.02); /* the slow end: the wider spread */
	CHECK(d.request_wait_ns == 900);
	CHECK(d.run_request_ns == 400);
	CHECK(ts_host_dlio_costs(s, "epyc-zen4", "unet3d", "npz", TS_HOST_NOMINAL, &d, err,
				 sizeof(err)) == 0);
	CHECK(d.start_ns == 0 && d.restart_ns == 0); /* set by no host on its chain */
	CHECK(d.worker_gc_ns == 0 && d.worker_gc_samples == 0 && d.worker_spread == 0 &&
	      d.request_wait_ns == 0 && d.run_request_ns == 0);
	/* the nearest host decides: a host's own dlio_step_ns beats what the
	 * host it is carried from says of the workload, its own MODEL entry
	 * that one's MODEL/FORMAT */
	CHECK(ts_host_dlio_costs(s, "o", "unet3d", "npz", TS_HOST_NOMINAL, &d, err, sizeof(err)) ==
	      0);
	CHECK(d.step_ns == 700 && !d.step_of);
	CHECK(ts_host_dlio_costs(s, "q", "resnet50", "jpeg", TS_HOST_NOMINAL, &d, err,
				 sizeof(err)) == 0);
	CHECK(d.step_ns == 800 && d.step_of && !strcmp(d.step_of, "model"));
	/* a format's own reader's line where the host measured it (hdf5, png),
	 * npz's reader's (dlio_sample_ns) for the others; carried as a cost,
	 * the nearest host that measured the format's line deciding */
	CHECK(ts_host_dlio_costs(s, "m", "resnet50", "npz", TS_HOST_NOMINAL, &d, err, sizeof(err)) ==
	      0);
	CHECK(d.sample_ns == 100 && d.sample_ns_per_mib == 10 && !d.sample_of);
	CHECK(ts_host_dlio_costs(s, "m", "resnet50", "hdf5", TS_HOST_NOMINAL, &d, err,
				 sizeof(err)) == 0);
	CHECK(d.sample_ns == 200 && d.sample_ns_per_mib == 20 && d.sample_of &&
	      !strcmp(d.sample_of, "hdf5"));
	CHECK(ts_host_dlio_costs(s, "m", "resnet50", "png", TS_HOST_SLOW, &d, err, sizeof(err)) ==
	      0);
	CHECK(d.sample_ns == 350 && d.sample_ns_per_mib == 30 && d.sample_of &&
	      !strcmp(d.sample_of, "png"));
	CHECK(ts_host_dlio_costs(s, "m", "resnet50", "jpeg", TS_HOST_NOMINAL, &d, err,
				 sizeof(err)) == 0);
	CHECK(d.sample_ns == 100 && !d.sample_of);
	CHECK(ts_host_dlio_costs(s, "r", "resnet50", "png", TS_HOST_NOMINAL, &d, err,
				 sizeof(err)) == 0);
	CHECK(d.sample_ns == 150 && d.sample_ns_per_mib == 15 && d.sample_of);
	CHECK(ts_host_dlio_costs(s, "r", "resnet50", "npz", TS_HOST_NOMINAL, &d, err,
				 sizeof(err)) == 0);
	CHECK(d.sample_ns == 40 && d.sample_ns_per_mib == 5 && !d.sample_of);
	/* none set: no limit, the built-in hosts' step cost */
	CHECK(ts_host_dlio_costs(s, "epyc-zen4", "unet3d", "npz", TS_HOST_NOMINAL, &d, err,
				 sizeof(err)) == 0);
	CHECK(d.step_ns == 0 && d.vcpus == 0 && !d.step_of);
	FILE *f = tmpfile();
	CHECK(f && ts_host_print_evidence(f, s) == 0);
	char line[1024];
	int seen = 0;
	rewind(f);
	while (f && fgets(line, sizeof(line), f))
		seen += (!strncmp(line, "m ", 2) && strstr(line, "vcpus") && strstr(line, " 4 ")) +
			(!strncmp(line, "m ", 2) && strstr(line, "dlio_workload_step_ns[unet3d]") &&
			 strstr(line, "[2000..4000]"));
	CHECK(seen == 2);
	if (f)
		fclose(f);
	ts_host_set_free(s);
}

/* A from = chain that loops is found when the host is used. */
static void loops(void)
{
	struct ts_host_set *s;
	char err[1024];
	CHECK(ts_host_set_load_default(&s, err, sizeof(err)) == 0);
	if (!s)
		return;
	const char *p = write_file("loop.lua",
				   "host \"x\" { cpu = \"X\", from = \"y\", speed = { 1, \"spec\", \"t\" } }\n"
				   "host \"y\" { cpu = \"Y\", from = \"x\", speed = { 1, \"spec\", \"t\" } }\n");
	CHECK(ts_host_set_add_file(s, p, err, sizeof(err)) == 0);
	struct ts_decode_cal c;
	CHECK(ts_host_cal(s, "x", TS_HOST_NOMINAL, &c, err, sizeof(err)) == -ELOOP);
	CHECK(strstr(err, "loop.lua:") && strstr(err, "loops"));
	ts_host_set_free(s);
}

static const struct {
	const char *text;
	const char *want; /* in the error, after "bad.lua:LINE:" */
	int line;
} bad[] = {
	{ "host \"h\" { cpu = \"H\", from = \"epyc-zen4\",\n  speed = { 0.5, \"guessed\", \"x\" } }\n",
	  "missing its label", 1 },
	{ "host \"h\" { cpu = \"H\", from = \"epyc-zen4\",\n  speed = { 0.5, \"spec\" } }\n",
	  "missing its source", 1 },
	{ "host \"h\" { cpu = \"H\", from = \"epyc-zen4\",\n  speed = { \"fast\", \"spec\", \"t\" } }\n",
	  "missing its value", 1 },
	{ "host \"h\" { cpu = \"H\", from = \"epyc-zen4\",\n  speed = { 0.5, \"assumed\", \"why\" } }\n",
	  "needs low = and high =", 1 },
	{ "\nhost \"h\" { cpu = \"H\", from = \"epyc-zen4\", speed = { 0.5, \"spec\", \"t\", low = 0.6 } }\n",
	  "low <= value", 2 },
	{ "host \"h\" { cpu = \"H\", from = \"epyc-zen4\" }\n", "missing speed", 1 },
	{ "host \"h\" { from = \"epyc-zen4\", speed = { 1, \"spec\", \"t\" } }\n", "missing cpu", 1 },
	{ "host \"h\" { cpu = \"H\",\n  decode_base_ns = { 1, \"measured\", \"m\" } }\n",
	  "missing decode_ns_per_mpix", 1 },
	{ "host \"h\" { cpu = \"H\", from = \"epyc-zen4\", speed = { 1, \"spec\", \"t\" },\n"
	  "  clock_ghz = 3 }\n",
	  "unknown key 'clock_ghz'", 2 },
	{ "host \"h\" { cpu = \"H\", from = \"epyc-zen4\", speed = { 1, \"spec\", \"t\" },\n"
	  "  vcpus = { 2.5, \"spec\", \"t\" } }\n",
	  "vcpus: the machine's vCPUs, a whole number", 1 },
	{ "host \"h\" { cpu = \"H\", from = \"epyc-zen4\", speed = { 1, \"spec\", \"t\" },\n"
	  "  copy_tail_first = { 2, \"spec\", \"t\" } }\n",
	  "copy_tail_first: 1 (memcpy touches a copy's last page first", 1 },
	{ "host \"h\" { cpu = \"H\", from = \"epyc-zen4\", speed = { 1, \"spec\", \"t\" },\n"
	  "  vcpus = { 0, \"spec\", \"t\" } }\n",
	  "vcpus: the machine's vCPUs, a whole number of at least 1", 1 },
	{ "host \"h\" { cpu = \"H\", from = \"epyc-zen4\", speed = { 1, \"spec\", \"t\" },\n"
	  "  dlio_workload_step_ns = { unet3d = { 1, \"assumed\", \"why\" } } }\n",
	  "needs low = and high =", 1 },
	{ "host \"h\" { cpu = \"H\", from = \"epyc-zen4\", speed = { 1, \"spec\", \"t\" },\n"
	  "  dlio_workload_step_ns = { { 1, \"spec\", \"t\" } } }\n",
	  "a value without a workload's name", 1 },
	{ "host \"h\" { cpu = \"H\", from = \"epyc-zen4\", speed = { 1, \"spec\", \"t\" },\n"
	  "  dlio_workload_step_ns = 5 }\n",
	  "dlio_workload_step_ns: expected", 1 },
	{ "host \"h\" { cpu = \"H\", from = \"epyc-zen4\", speed = { 1, \"spec\", \"t\" },\n"
	  "  dlio_hdf5_sample_ns = { 1, \"measured\", \"m\" } }\n",
	  "host 'h': dlio_hdf5_sample_ns without dlio_hdf5_sample_ns_per_mib", 1 },
	{ "host \"h\" { cpu = \"H\",\n"
	  "  dlio_png_sample_ns_per_mib = { 1, \"measured\", \"m\" } }\n",
	  "host 'h': dlio_png_sample_ns_per_mib without dlio_png_sample_ns", 1 },
	{ "host \"h\" { cpu = \"H\",\n"
	  "  dlio_request_daemon_ns = { 1, \"measured\", \"m\" } }\n",
	  "host 'h': dlio_request_daemon_ns without dlio_request_daemon_ns_per_mib", 1 },
	{ "host \"h\" { cpu = \"H\",\n"
	  "  dlio_loader_start_ns = { 1, \"measured\", \"m\" } }\n",
	  "host 'h': dlio_loader_start_ns without dlio_loader_start_ns_per_worker", 1 },
	{ "host \"h\" { cpu = \"H\",\n"
	  "  dlio_loader_restart_ns_per_worker = { 1, \"measured\", \"m\" } }\n",
	  "host 'h': dlio_loader_restart_ns_per_worker without dlio_loader_restart_ns", 1 },
	{ "host \"h\" { cpu = \"H\",\n"
	  "  loader_batch_ns = { 1, \"measured\", \"m\" } }\n",
	  "host 'h': loader_batch_ns without loader_sample_ns", 1 },
	{ "host \"h\" { cpu = \"H\",\n"
	  "  dlio_worker_gc_ns = { 1, \"measured\", \"m\" } }\n",
	  "host 'h': dlio_worker_gc_ns without dlio_worker_gc_samples", 1 },
	{ "host \"h\" { cpu = \"H\",\n"
	  "  dlio_worker_spread = { 0.5, \"measured\", \"m\", low = 0.1, high = 1 } }\n",
	  "dlio_worker_spread is a share of a batch's time, from 0 to under 1", 1 },
	{ "host \"h\" { cpu = \"H\", from = \"epyc-zen4\", speed = { 1, \"spec\", \"t\" },\n"
	  "  library_factors = { pillow = { 0, \"measured\", \"m\" } } }\n",
	  "library_factors[\"pillow\"]: a factor on libjpeg-turbo's cost, above 0", 1 },
	{ "host \"h\" { cpu = \"H\", from = \"epyc-zen4\", speed = { 1, \"spec\", \"t\" },\n"
	  "  library_factors = 2 }\n",
	  "library_factors: expected", 1 },
	{ "host \"h\" { cpu = \"H\", from = \"epyc-zen4\", speed = { 1, \"spec\", \"t\" },\n"
	  "  library_factors = { { 2, \"spec\", \"t\" } } }\n",
	  "library_factors: a value without a library's name", 1 },
	{ "host \"h\" { cpu = \"H\", from = \"epyc-zen4\", speed = { 1, \"spec\", \"t\" },\n"
	  "  library_factors = { pillow = { 2, \"assumed\", \"why\" } } }\n",
	  "needs low = and high =", 1 },
	{ "library \"l\" { desc = \"both\", decode = { 2, \"spec\", \"t\" },\n"
	  "  transform = { 2, \"spec\", \"t\" } }\n",
	  "set one of decode", 1 },
};

static void refused(void)
{
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct ts_host_set *s;
		char err[1024] = "", at[64];
		CHECK(ts_host_set_load_default(&s, err, sizeof(err)) == 0);
		if (!s)
			continue;
		const char *p = write_file("bad.lua", bad[i].text);
		int rc = ts_host_set_add_file(s, p, err, sizeof(err));
		snprintf(at, sizeof(at), "bad.lua:%d:", bad[i].line);
		if (rc != TS_E_PROFILE || !strstr(err, at) || !strstr(err, bad[i].want)) {
			fprintf(stderr, "case %zu: rc %d, error '%s', expected '%s' ... '%s'\n", i, rc,
				err, at, bad[i].want);
			tc_failures++;
		}
		ts_host_set_free(s);
	}
}

int main(void)
{
	if (!mkdtemp(dir)) {
		perror(dir);
		return 1;
	}
	costs();
	dlio();
	copy_order();
	loops();
	refused();
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		fprintf(stderr, "could not remove %s\n", dir);
	return tc_exit();
}
