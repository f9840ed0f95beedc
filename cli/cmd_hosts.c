/* cmd_hosts.c — `tiersim hosts`: the host profiles (CPU and JPEG library
 * costs); `tiersim hosts measure`: this machine's DLIO costs
 * (workloads/dlio_measure.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmdline.h"
#include "cli/commands.h"
#include "core/opt.h"
#include "core/interrupt.h"
#include "pipeline/host.h"
#include "workloads/dlio_measure.h"

struct hosts_args {
	char *profile;
	bool evidence;
};

static const struct ts_opt hosts_opts[] = {
	{ "profile", TS_OPT_STR, offsetof(struct hosts_args, profile), NULL, 0, 0, "",
	  "add the hosts and libraries of a Lua profile file", "FILE", 'p' },
	{ "evidence", TS_OPT_BOOL, offsetof(struct hosts_args, evidence), "false", 0, 0, "",
	  "list every number with its label instead: measured (naming the measurement), spec "
	  "(a published table) or assumed (with its range)", NULL, 'e' },
	{ NULL },
};

static const struct ts_cmdline hosts_cmdline = {
	.name = "hosts",
	.synopsis = "[--profile FILE] [--evidence]\n"
		    "       tiersim hosts measure --venv DIR [--out FILE] [--repeats N] [--from H]",
	.about = "Lists the host profiles: what JPEG decode + transform, a raw Datum's transform\n"
		 "and an LMDB put cost one core of each CPU, and the JPEG libraries' factors.\n"
		 "pipeline{ host = \"NAME\" } or \"NAME/LIBRARY\" (and preprocess{ host = }) charge\n"
		 "them; the default, this-machine, charges 'tiersim calibrate decode'.\n"
		 "'tiersim hosts measure' measures DLIO's own CPU on this machine (the host\n"
		 "this-machine of 'tiersim dlio --host this-machine'); --help after it says how.\n",
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
	  "keep the sample files and the mount there (default: a new folder, removed after)", "DIR",
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

int ts_cmd_hosts(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "measure"))
		return hosts_measure(argc - 1, argv + 1);
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
	rc = o.evidence ? ts_host_print_evidence(stdout, set) : ts_host_print_table(stdout, set);
	ts_host_set_free(set);
	ts_opt_free(hosts_opts, &o);
	if (rc) {
		fprintf(stderr, "tiersim hosts: %s\n", ts_strerror(rc));
		return TS_EXIT_FAIL;
	}
	return TS_EXIT_OK;
}
