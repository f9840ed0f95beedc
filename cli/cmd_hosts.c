/* cmd_hosts.c — `tiersim hosts`: the host profiles (CPU and JPEG library
 * costs); `tiersim hosts measure`: this machine's DLIO costs
 * (workloads/dlio_measure.h). */
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cmdline.h"
#include "cli/commands.h"
#include "core/opt.h"
#include "core/interrupt.h"
#include "pipeline/host.h"
#include "workloads/dlio_measure.h"

struct hosts_args {
	char *profile, *cpuinfo;
	bool evidence, this;
	uint64_t vcpus;
};

static const struct ts_opt hosts_opts[] = {
	{ "profile", TS_OPT_STR, offsetof(struct hosts_args, profile), NULL, 0, 0, "",
	  "add the hosts and libraries of a Lua profile file", "FILE", 'p' },
	{ "evidence", TS_OPT_BOOL, offsetof(struct hosts_args, evidence), "false", 0, 0, "",
	  "list every number with its label instead: measured (naming the measurement), spec "
	  "(a published table) or assumed (with its range)", NULL, 'e' },
	{ "this", TS_OPT_BOOL, offsetof(struct hosts_args, this), "false", 0, 0, "",
	  "print the name of this machine's own profile (its cpu line's vendor, KVM guest family "
	  "and model and vCPUs as /proc/cpuinfo and the CPUs this process may use say, with DLIO's "
	  "figures; of several the last) and exit 0; exit 1 where none matches",
	  NULL, 0 },
	{ "cpuinfo", TS_OPT_STR, offsetof(struct hosts_args, cpuinfo), "/proc/cpuinfo", 0, 0, "",
	  "with --this: read the CPU's vendor, family and model from FILE", "FILE", 0 },
	{ "vcpus", TS_OPT_U64, offsetof(struct hosts_args, vcpus), "0", 0, 4096, "",
	  "with --this: a machine of N CPUs (0: the CPUs this process may use)", "N", 0 },
	{ NULL },
};

static const struct ts_cmdline hosts_cmdline = {
	.name = "hosts",
	.synopsis = "[--profile FILE] [--evidence]\n"
		    "       tiersim hosts --this [--profile FILE] [--cpuinfo FILE] [--vcpus N]\n"
		    "       tiersim hosts measure --venv DIR [--out FILE] [--repeats N] [--from H]\n"
		    "       tiersim hosts at HOST [--end fast|slow|value] [--only F,...] [--out FILE]",
	.about = "Lists the host profiles: what JPEG decode + transform, a raw Datum's transform\n"
		 "and an LMDB put cost one core of each CPU, and the JPEG libraries' factors.\n"
		 "pipeline{ host = \"NAME\" } or \"NAME/LIBRARY\" (and preprocess{ host = }) charge\n"
		 "them; the default, this-machine, charges 'tiersim calibrate decode'.\n"
		 "'tiersim hosts measure' measures DLIO's own CPU on this machine (the host\n"
		 "this-machine of 'tiersim dlio --host this-machine'); --help after it says how.\n"
		 "'tiersim hosts at HOST' writes HOST's DLIO figures at one end of their ranges\n"
		 "as this-machine, to run a workload there (--help after it says how).\n"
		 "'tiersim hosts --this' names the profile of the machine it runs on, if any.\n",
	.opts = hosts_opts,
	.max_pos = 0,
};

struct measure_args {
	char *venv, *out, *dir, *tier, *from, *probe;
	uint64_t repeats, chain_readers;
	bool quiet;
};

static const struct ts_opt measure_opts[] = {
	{ "venv", TS_OPT_STR, offsetof(struct measure_args, venv), NULL, 0, 0, "",
	  "a virtual environment with DLIO 2.0.0 (dlio_benchmark) and torch (env DLIO_VENV)", "DIR",
	  0 },
	{ "out", TS_OPT_STR, offsetof(struct measure_args, out), NULL, 0, 0, "",
	  "write the profile there (default $TIERSIM_HOST_FILE, else "
	  "~/.cache/tiersim/this-machine.lua, where --host this-machine reads it)", "FILE", 'o' },
	{ "tier", TS_OPT_STR, offsetof(struct measure_args, tier), "nvme-local", 0, 0, "",
	  "the tier the mount emulates (the requests' waits, between which DLIO's readers work, "
	  "as in the runs to be predicted)", "T", 't' },
	{ "dir", TS_OPT_STR, offsetof(struct measure_args, dir), NULL, 0, 0, "",
	  "keep the sample files and the mount there (default: a new folder, removed after); "
	  "files a measurement wrote there before are read again, not written", "DIR",
	  0 },
	{ "repeats", TS_OPT_U64, offsetof(struct measure_args, repeats), "3", 1, 15, "",
	  "interleaved rounds; each figure is their median, its range their least and most", "N",
	  'r' },
	{ "quiet", TS_OPT_BOOL, offsetof(struct measure_args, quiet), "false", 0, 0, "",
	  "no progress lines", NULL, 'q' },
	{ "from", TS_OPT_STR, offsetof(struct measure_args, from), NULL, 0, 0, "",
	  "carry what this does not measure from host profile H (the profile's from =): a DLIO "
	  "run's wait per request as much slower or faster as DLIO's npz work per sample is here "
	  "than there (its measured speed), its daemon's CPU per request as H has it", "H", 0 },
	{ "probe", TS_OPT_STR, offsetof(struct measure_args, probe), NULL, 0, 0, "",
	  "measure set SET alone (npz-s, npz-l, jpeg, hdf5-s, hdf5-l, png-s, png-l): DLIO's "
	  "reader per sample less tiersim's chain, as a full round has it, and print it; no "
	  "steps, starts or profile (a measurement short enough to repeat between runs)",
	  "SET", 0 },
	{ "chain_readers", TS_OPT_U64, offsetof(struct measure_args, chain_readers), "0", 0, 64, "",
	  "tiersim's chains of a set read by N processes at once (0: the set's read_threads, "
	  "8 for the 112 KiB sets, 4 for the large ones, as DLIO's loader reads them; 1: one "
	  "chain at a time)", "N", 0 },
	{ NULL },
};

static const struct ts_cmdline measure_cmdline = {
	.name = "hosts measure",
	.synopsis = "--venv DIR [--out FILE] [--tier T] [--dir DIR] [--repeats N] [--from H]\n"
		    "       [--chain-readers N]\n"
		    "       tiersim hosts measure --venv DIR --probe SET [--tier T] [--repeats N]",
	.about = "Measures DLIO's own CPU on this machine and writes it as the host profile\n"
		 "this-machine ('tiersim dlio --host this-machine'): DLIO 2.0.0's NPZReader and\n"
		 "ImageReader (run with the venv's python) read 112 KiB and 8 MiB npz and\n"
		 "338 x 338 jpeg files through a tierfs mount, less what tiersim's reader spends\n"
		 "on the same requests (per sample, per MiB, per jpeg megapixel); HDF5Reader\n"
		 "338 x 338 and 2896 x 2896 hdf5 records and ImageReader 338 x 338 and\n"
		 "1024 x 1024 png files, the same way (each format's own line); those requests'\n"
		 "CPU, the reader's and the daemon's (per request, per MiB); a torch DataLoader's\n"
		 "main thread per step for unet3d's and resnet50's batches; DLIO's DataLoader\n"
		 "starting, iter() to its first batch with 1, 2, 4 and 8 workers (forked the\n"
		 "first epoch, resumed a later one); the CPUs this process may use (vcpus).\n"
		 "Takes about a minute a round; run it on a quiet host. --probe SET measures\n"
		 "one set alone (DLIO's own work per sample, printed, no profile written).\n",
	.opts = measure_opts,
	.max_pos = 0,
};

static int hosts_measure(int argc, char **argv)
{
	struct measure_args o = { 0 };
	struct ts_opt_args a;
	int rc = ts_cmdline_parse(&measure_cmdline, &o, argc, argv, &a);
	if (rc >= 0)
		return rc;
	const char *venv = o.venv ? o.venv : getenv("DLIO_VENV");
	if (!venv || !*venv) {
		ts_opt_free(measure_opts, &o);
		return ts_cmdline_error(&measure_cmdline, "--venv DIR is required (a virtual "
					"environment with dlio_benchmark; or set DLIO_VENV)");
	}
	if (o.probe && o.out) {
		ts_opt_free(measure_opts, &o);
		return ts_cmdline_error(&measure_cmdline, "--probe writes no profile: drop --out");
	}
	ts_interrupt_install();
	struct ts_dlio_measure_opts mo = { .venv = venv, .out = o.out, .dir = o.dir,
					   .tier = o.tier, .repeats = (unsigned)o.repeats, .quiet = o.quiet,
					   .from = o.from, .probe = o.probe,
					   .chain_readers = (unsigned)o.chain_readers };
	struct ts_dlio_measure_result r;
	char err[2048];
	rc = ts_dlio_measure(&mo, &r, err, sizeof(err));
	if (rc) {
		ts_opt_free(measure_opts, &o);
		fprintf(stderr, "tiersim hosts measure: %s\n", err);
		return rc == -EINTR ? TS_EXIT_INTERRUPT : TS_EXIT_FAIL;
	}
	if (o.probe) {
		/* one line: the bench reads it (bench/dlio_peer.sh --measure-around) */
		printf("probe %s: DLIO own %.1f us [%.1f..%.1f] a sample of %.0f B (DLIO's workers "
		       "%.1f us, tiersim's chain %.1f us), %llu round(s) on %s\n",
		       o.probe, r.probe_own.v / 1e3, r.probe_own.low / 1e3, r.probe_own.high / 1e3,
		       r.probe_bytes, r.probe_dlio.v / 1e3, r.probe_chain.v / 1e3,
		       (unsigned long long)o.repeats, o.tier ? o.tier : "nvme-local");
		ts_opt_free(measure_opts, &o);
		return TS_EXIT_OK;
	}
	printf("%s: host \"%s\", %llu vCPUs\n"
	       "  DLIO per sample  %.1f us + %.1f us/MiB (jpeg + %.1f us/Mpixel)\n"
	       "  hdf5 per sample  %.1f us + %.1f us/MiB; png %.1f us + %.1f us/MiB of the file\n"
	       "  per request      %.1f us + %.1f us/MiB read (the reader), %.1f us + %.1f us/MiB "
	       "(the daemon)\n"
	       "  per step         unet3d %.1f us, resnet50 %.1f us\n"
	       "  loader start     %.1f ms + %.1f ms/worker; later epochs %.1f ms + %.1f ms/worker\n"
	       "  worker's collection %.1f ms (%.0f objects), once a worker\n",
	       r.path, TS_HOST_THIS, (unsigned long long)r.vcpus, r.sample_ns.v / 1e3,
	       r.sample_ns_per_mib.v / 1e3, r.jpeg_ns_per_mpix.v / 1e3, r.hdf5_ns.v / 1e3,
	       r.hdf5_ns_per_mib.v / 1e3, r.png_ns.v / 1e3, r.png_ns_per_mib.v / 1e3,
	       r.request_ns.v / 1e3, r.request_ns_per_mib.v / 1e3, r.request_daemon_ns.v / 1e3,
	       r.request_daemon_ns_per_mib.v / 1e3, r.step_unet3d.v / 1e3, r.step_resnet50.v / 1e3,
	       r.start_ns.v / 1e6, r.start_ns_per_worker.v / 1e6, r.restart_ns.v / 1e6,
	       r.restart_ns_per_worker.v / 1e6, r.worker_gc_ns.v / 1e6, r.gc_objects);
	if (o.from)
		printf("  carried from     %s at speed %.3f [%.3f..%.3f] (its npz work per sample "
		       "over this machine's)\n",
		       o.from, r.speed.v, r.speed.low, r.speed.high);
	ts_opt_free(measure_opts, &o);
	return TS_EXIT_OK;
}

/* `tiersim hosts at`: a host's DLIO figures with some or all at one end of
 * their ranges, written as a this-machine profile, so that
 * TIERSIM_HOST_FILE=FILE tiersim dlio --host this-machine runs a workload
 * at that end: what a figure's range does to the answer. */
struct at_args {
	char *end, *only, *out;
};

static const struct ts_opt at_opts[] = {
	{ "end", TS_OPT_STR, offsetof(struct at_args, end), "slow", 0, 0, "",
	  "fast (each cost at its low, the speed at its high), slow (the reverse) or value", "E",
	  'e' },
	{ "only", TS_OPT_STR, offsetof(struct at_args, only), NULL, 0, 0, "",
	  "move only these figures (comma-separated names, as 'tiersim hosts --evidence' lists "
	  "them; dlio_workload_step_ns moves every workload's step); the rest stay at their value",
	  "F,..", 0 },
	{ "out", TS_OPT_STR, offsetof(struct at_args, out), NULL, 0, 0, "",
	  "the file written (default: standard output)", "FILE", 'o' },
	{ NULL },
};

static const struct ts_cmdline at_cmdline = {
	.name = "hosts at",
	.synopsis = "HOST [--end fast|slow|value] [--only F,...] [--out FILE]",
	.about = "Writes host profile HOST's DLIO figures (tiersim dlio --host HOST charges them)\n"
		 "as a host named this-machine, with the figures --only names (default: all) at\n"
		 "one end of their ranges and the rest at their values, each resolved as a run\n"
		 "charges it (a figure carried along from = at its end and the speeds' ends on the\n"
		 "way). Then TIERSIM_HOST_FILE=FILE tiersim dlio ... --host this-machine runs at\n"
		 "that end: what the figures' low and high do to a workload's AU and samples/s.\n",
	.opts = at_opts,
	.max_pos = 1,
};

/* The DLIO figures ts_host_dlio_costs resolves one for one. @unset0: a
 * factor whose 0 means "not set" and which a file may not hold as 0 (the
 * loader wants it above 0): left out of the file there. */
static const struct {
	const char *name;
	size_t off;
	bool unset0;
} at_plain[] = {
	{ "dlio_sample_ns", offsetof(struct ts_host_dlio, sample_ns) },
	{ "dlio_sample_ns_per_mib", offsetof(struct ts_host_dlio, sample_ns_per_mib) },
	{ "dlio_jpeg_ns_per_mpix", offsetof(struct ts_host_dlio, jpeg_ns_per_mpix) },
	{ "dlio_request_ns", offsetof(struct ts_host_dlio, request_ns) },
	{ "dlio_request_ns_per_mib", offsetof(struct ts_host_dlio, request_ns_per_mib) },
	{ "dlio_request_daemon_ns", offsetof(struct ts_host_dlio, request_daemon_ns) },
	{ "dlio_request_daemon_ns_per_mib", offsetof(struct ts_host_dlio, request_daemon_ns_per_mib) },
	{ "dlio_request_wait_ns", offsetof(struct ts_host_dlio, request_wait_ns) },
	{ "dlio_run_request_ns", offsetof(struct ts_host_dlio, run_request_ns) },
	{ "dlio_step_ns", offsetof(struct ts_host_dlio, step_ns) },
	{ "dlio_loader_start_ns", offsetof(struct ts_host_dlio, start_ns) },
	{ "dlio_loader_start_ns_per_worker", offsetof(struct ts_host_dlio, start_ns_per_worker) },
	{ "dlio_loader_restart_ns", offsetof(struct ts_host_dlio, restart_ns) },
	{ "dlio_loader_restart_ns_per_worker", offsetof(struct ts_host_dlio, restart_ns_per_worker) },
	{ "dlio_worker_gc_ns", offsetof(struct ts_host_dlio, worker_gc_ns) },
	{ "dlio_worker_gc_samples", offsetof(struct ts_host_dlio, worker_gc_samples) },
	{ "dlio_worker_spread", offsetof(struct ts_host_dlio, worker_spread) },
	{ "dlio_collate_ns", offsetof(struct ts_host_dlio, collate_ns) },
	{ "dlio_collate_ns_per_mib", offsetof(struct ts_host_dlio, collate_ns_per_mib) },
	{ "dlio_collate_fresh_ns_per_mib", offsetof(struct ts_host_dlio, collate_fresh_ns_per_mib) },
	{ "dlio_worker_spread_wait", offsetof(struct ts_host_dlio, worker_spread_wait) },
	{ "dlio_worker_cpu_alone", offsetof(struct ts_host_dlio, worker_cpu_alone), true },
	{ "dlio_core_slice_ns", offsetof(struct ts_host_dlio, core_slice_ns) },
};
/* The formats with a reader line of their own, and the workloads' models
 * and formats whose own step a profile may set (workloads/dlio/). */
static const char *const at_own[] = { "hdf5", "png" };
static const char *const at_models[] = { "unet3d", "resnet50", "cosmoflow", "bert" };
static const char *const at_formats[] = { "npz", "jpeg", "png", "hdf5", "tfrecord" };

/* Whether @name is in the comma-separated @list (NULL: every name). */
static bool at_moves(const char *list, const char *name)
{
	if (!list)
		return true;
	size_t n = strlen(name);
	for (const char *p = list; *p;) {
		size_t k = strcspn(p, ",");
		if (k == n && !strncmp(p, name, n))
			return true;
		p += k + (p[k] == ',');
	}
	return false;
}

/* @name's value at the chosen end (it is in --only) or at its value. */
static double at_pick(const struct at_args *o, const char *name, double at_value, double at_end)
{
	return at_moves(o->only, name) ? at_end : at_value;
}

static void at_num(FILE *f, const char *indent, const char *key, double v, const char *host,
		   const char *how)
{
	/* every digit: at its value, the file charges what the host does.
	 * Labelled assumed, its range the one value: the run fixes it there
	 * (the host's own label and range are in tiersim hosts --evidence). */
	fprintf(f,
		"%s%s = { %.17g, \"assumed\", \"%s's, %s, fixed for this run (tiersim hosts at)\", "
		"low = %.17g, high = %.17g },\n",
		indent, key, v, host, how, v, v);
}

static int hosts_at(int argc, char **argv)
{
	struct at_args o = { 0 };
	struct ts_opt_args a;
	int rc = ts_cmdline_parse(&at_cmdline, &o, argc, argv, &a);
	if (rc >= 0)
		return rc;
	enum ts_host_end end;
	if (!strcmp(o.end, "fast"))
		end = TS_HOST_FAST;
	else if (!strcmp(o.end, "slow"))
		end = TS_HOST_SLOW;
	else if (!strcmp(o.end, "value"))
		end = TS_HOST_NOMINAL;
	else {
		ts_opt_free(at_opts, &o);
		return ts_cmdline_error(&at_cmdline, "--end: fast, slow or value");
	}
	if (a.npos != 1) {
		ts_opt_free(at_opts, &o);
		return ts_cmdline_error(&at_cmdline, "name one host profile");
	}
	const char *host = a.pos[0];
	for (const char *p = o.only; p && *p;) { /* each name one the file can hold */
		size_t k = strcspn(p, ","), i;
		bool ok = k == strlen("dlio_workload_step_ns") &&
			  !strncmp(p, "dlio_workload_step_ns", k);
		for (i = 0; !ok && i < TS_ARRAY_SIZE(at_plain); i++)
			ok = strlen(at_plain[i].name) == k && !strncmp(p, at_plain[i].name, k);
		static const char *const own_names[] = { "dlio_hdf5_sample_ns",
							 "dlio_hdf5_sample_ns_per_mib",
							 "dlio_png_sample_ns",
							 "dlio_png_sample_ns_per_mib" };
		for (i = 0; !ok && i < TS_ARRAY_SIZE(own_names); i++)
			ok = strlen(own_names[i]) == k && !strncmp(p, own_names[i], k);
		if (!ok) {
			char msg[160];
			snprintf(msg, sizeof(msg), "--only: '%.*s' is no DLIO figure", (int)TS_MIN(k, 64),
				 p);
			ts_opt_free(at_opts, &o);
			return ts_cmdline_error(&at_cmdline, "%s", msg);
		}
		p += k + (p[k] == ',');
	}
	struct ts_host_set *set = NULL;
	char err[1024];
	rc = ts_host_set_load_for(host, &set, err, sizeof(err));
	struct ts_host_dlio v = { 0 }, e = { 0 };
	if (!rc)
		rc = ts_host_dlio_costs(set, host, NULL, NULL, TS_HOST_NOMINAL, &v, err, sizeof(err));
	if (!rc)
		rc = ts_host_dlio_costs(set, host, NULL, NULL, end, &e, err, sizeof(err));
	FILE *f = NULL;
	char tmp[4200] = "";
	if (!rc && o.out) {
		snprintf(tmp, sizeof(tmp), "%s.tmp", o.out);
		if (!(f = fopen(tmp, "w"))) {
			rc = -errno;
			snprintf(err, sizeof(err), "%s: %s", tmp, strerror(-rc));
		}
	} else if (!rc) {
		f = stdout;
	}
	if (rc) {
		fprintf(stderr, "tiersim hosts at: %s\n", err);
		ts_host_set_free(set);
		ts_opt_free(at_opts, &o);
		return TS_EXIT_FAIL;
	}
	char how[128];
	snprintf(how, sizeof(how), "at its %s", end == TS_HOST_FAST ? "fast end" :
						 end == TS_HOST_SLOW ? "slow end" : "value");
	fprintf(f, "-- %s: host %s's DLIO figures, %s at the %s end of their ranges and the rest at "
		   "their values\n-- (tiersim hosts at %s --end %s%s%s)\n"
		   "host \"%s\" {\n  desc = \"%s's DLIO figures (tiersim hosts at)\",\n"
		   "  cpu = \"%s's\",\n",
		TS_HOST_THIS, host, o.only ? o.only : "all", o.end, host, o.end,
		o.only ? " --only " : "", o.only ? o.only : "", TS_HOST_THIS, host, host);
	for (size_t i = 0; i < TS_ARRAY_SIZE(at_plain); i++) {
		double x = *(const double *)((const char *)&v + at_plain[i].off);
		double y = *(const double *)((const char *)&e + at_plain[i].off);
		bool moved = at_moves(o.only, at_plain[i].name);
		double w = at_pick(&o, at_plain[i].name, x, y);
		if (w == 0 && at_plain[i].unset0) /* the host does not set it */
			continue;
		at_num(f, "  ", at_plain[i].name, w, host, moved ? how : "at its value");
	}
	for (size_t i = 0; !rc && i < TS_ARRAY_SIZE(at_own); i++) {
		struct ts_host_dlio ov = { 0 }, oe = { 0 };
		rc = ts_host_dlio_costs(set, host, NULL, at_own[i], TS_HOST_NOMINAL, &ov, err,
					sizeof(err));
		if (!rc)
			rc = ts_host_dlio_costs(set, host, NULL, at_own[i], end, &oe, err, sizeof(err));
		if (rc || !ov.sample_of)
			continue;
		char k1[64], k2[80];
		snprintf(k1, sizeof(k1), "dlio_%s_sample_ns", at_own[i]);
		snprintf(k2, sizeof(k2), "dlio_%s_sample_ns_per_mib", at_own[i]);
		at_num(f, "  ", k1, at_pick(&o, k1, ov.sample_ns, oe.sample_ns), host,
		       at_moves(o.only, k1) ? how : "at its value");
		at_num(f, "  ", k2, at_pick(&o, k2, ov.sample_ns_per_mib, oe.sample_ns_per_mib), host,
		       at_moves(o.only, k2) ? how : "at its value");
	}
	/* each workload's own step, where the host's chain sets one */
	bool open = false, ws = at_moves(o.only, "dlio_workload_step_ns");
	for (size_t m = 0; !rc && m < TS_ARRAY_SIZE(at_models); m++)
		for (size_t k = 0; !rc && k <= TS_ARRAY_SIZE(at_formats); k++) {
			const char *fmt = k ? at_formats[k - 1] : NULL;
			struct ts_host_dlio sv = { 0 }, se = { 0 };
			rc = ts_host_dlio_costs(set, host, at_models[m], fmt, TS_HOST_NOMINAL, &sv, err,
						sizeof(err));
			if (!rc)
				rc = ts_host_dlio_costs(set, host, at_models[m], fmt, end, &se, err,
							sizeof(err));
			/* "model" entries once (no format), "model/format" ones
			 * where the format has its own */
			if (rc || !sv.step_of || (fmt != NULL) != !strcmp(sv.step_of, "model/format"))
				continue;
			char key[96];
			if (fmt)
				snprintf(key, sizeof(key), "[\"%s/%s\"]", at_models[m], fmt);
			else
				snprintf(key, sizeof(key), "%s", at_models[m]);
			if (!open)
				fprintf(f, "  dlio_workload_step_ns = {\n");
			open = true;
			at_num(f, "    ", key, ws ? se.step_ns : sv.step_ns, host,
			       ws ? how : "at its value");
		}
	if (open)
		fprintf(f, "  },\n");
	if (v.vcpus)
		fprintf(f, "  vcpus = { %llu, \"measured\", \"%s's\" },\n",
			(unsigned long long)v.vcpus, host);
	fprintf(f, "}\n");
	ts_host_set_free(set);
	/* a write that failed (a full disk) fails the command: the error
	 * indicator first, then the close's flush, then the rename */
	bool bad = ferror(f);
	if (f == stdout ? fflush(f) || bad
			: (fclose(f) || bad || (!rc && rename(tmp, o.out)))) {
		snprintf(err, sizeof(err), "%s: %s", o.out ? o.out : "standard output",
			 errno ? strerror(errno) : "write failed");
		rc = rc ? rc : -EIO;
	}
	if (rc) {
		fprintf(stderr, "tiersim hosts at: %s\n", err);
		if (tmp[0])
			unlink(tmp);
		ts_opt_free(at_opts, &o);
		return TS_EXIT_FAIL;
	}
	ts_opt_free(at_opts, &o);
	return TS_EXIT_OK;
}

/* --this: the profile whose cpu line names this machine (ts_host_find_cpu),
 * from @cpuinfo's first processor and @vcpus (0: the CPUs this process may
 * use). */
static int hosts_this(const struct ts_host_set *set, const char *cpuinfo, uint64_t vcpus)
{
	FILE *f = fopen(cpuinfo, "r");
	if (!f) {
		fprintf(stderr, "tiersim hosts: --this: %s: %s\n", cpuinfo, strerror(errno));
		return TS_EXIT_FAIL;
	}
	char line[512], vendor[64] = "", *p;
	long family = -1, model = -1;
	/* the first processor's "key<tabs>: value" lines */
	while (fgets(line, sizeof(line), f) && (!*vendor || family < 0 || model < 0)) {
		if (!(p = strchr(line, ':')))
			continue;
		char *k = p;
		*p++ = '\0';
		while (k > line && (k[-1] == ' ' || k[-1] == '\t'))
			*--k = '\0';
		if (!strcmp(line, "vendor_id") && !*vendor)
			sscanf(p, " %63s", vendor);
		else if (!strcmp(line, "cpu family") && family < 0)
			family = strtol(p, NULL, 10);
		else if (!strcmp(line, "model") && model < 0)
			model = strtol(p, NULL, 10);
	}
	fclose(f);
	const char *v = !strcmp(vendor, "AuthenticAMD") ? "AMD"
			: !strcmp(vendor, "GenuineIntel") ? "Intel"
							  : vendor;
	if (!vcpus) {
		cpu_set_t cs;
		vcpus = sched_getaffinity(0, sizeof(cs), &cs) ? (uint64_t)sysconf(_SC_NPROCESSORS_ONLN)
							       : (uint64_t)CPU_COUNT(&cs);
	}
	if (!*v || family < 0 || model < 0) {
		fprintf(stderr, "tiersim hosts: --this: %s names no vendor_id, cpu family and model\n",
			cpuinfo);
		return TS_EXIT_FAIL;
	}
	const char *name = ts_host_find_cpu(set, v, (unsigned)family, (unsigned)model,
					    (unsigned)vcpus);
	if (!name) {
		fprintf(stderr,
			"tiersim hosts: --this: no host profile names this machine (%s, KVM guest "
			"family %ld model %ld, %" PRIu64 " vCPUs, with DLIO's figures)\n",
			v, family, model, vcpus);
		return TS_EXIT_FAIL;
	}
	printf("%s\n", name);
	return TS_EXIT_OK;
}

int ts_cmd_hosts(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "measure"))
		return hosts_measure(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "at"))
		return hosts_at(argc - 1, argv + 1);
	struct hosts_args o = { 0 };
	struct ts_opt_args a;
	int rc = ts_cmdline_parse(&hosts_cmdline, &o, argc, argv, &a);
	if (rc >= 0)
		return rc;
	struct ts_host_set *set;
	char err[1024];
	rc = ts_host_set_load_default(&set, err, sizeof(err));
	/* this machine's file is listed where it reads; a broken one is
	 * named, and the rest listed */
	if (!rc && ts_host_set_add_this(set, err, sizeof(err)))
		fprintf(stderr, "tiersim hosts: warning: %s (not listed)\n", err);
	if (!rc && o.profile && (rc = ts_host_set_add_file(set, o.profile, err, sizeof(err))))
		ts_host_set_free(set);
	if (rc) {
		fprintf(stderr, "tiersim hosts: %s\n", err);
		ts_opt_free(hosts_opts, &o);
		return TS_EXIT_FAIL;
	}
	if (o.this) {
		rc = hosts_this(set, o.cpuinfo, o.vcpus);
		ts_host_set_free(set);
		ts_opt_free(hosts_opts, &o);
		return rc;
	}
	rc = o.evidence ? ts_host_print_evidence(stdout, set) : ts_host_print_table(stdout, set);
	ts_host_set_free(set);
	ts_opt_free(hosts_opts, &o);
	if (rc) {
		fprintf(stderr, "tiersim hosts: %s\n", ts_strerror(rc));
		return TS_EXIT_FAIL;
	}
	return TS_EXIT_OK;
}
