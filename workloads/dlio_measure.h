/*
 * dlio_measure.h — DLIO's own CPU on this machine, measured, as the host
 * profile "this-machine" (`tiersim hosts measure`, `tiersim dlio --host
 * this-machine`; pipeline/host.h).
 *
 * The figures are those of a measured host in pipeline/hosts.lua, taken the
 * same way build-host's were, in one command: DLIO 2.0.0's own PyTorch
 * loader (a DLIO virtual environment's python runs workloads/dlio_measure.py:
 * TorchDataset, dlio_sampler and the reader classes in a torch DataLoader
 * with DLIO's arguments and the workload's workers) reads files of its
 * generators' kinds through a tierfs mount, and its workers' CPU per
 * sample (schedstat, over a second pass: not their start) less what tiersim's
 * own reader spends on the same chain of requests through the same mount
 * (pipeline/dliochain.h) is DLIO's own work: dlio_sample_ns and _per_mib
 * the line through a 112 KiB and an 8 MiB npz sample, dlio_jpeg_ns_per_mpix
 * what a 338 x 338 jpeg costs above that line per megapixel;
 * dlio_hdf5_sample_ns and _per_mib the same line of HDF5Reader through a
 * 338 x 338 and a 2896 x 2896 record (h5py, files as DLIO's generator
 * writes them), dlio_png_sample_ns and _per_mib ImageReader's through
 * 338 x 338 and 1024 x 1024 png files (per MiB of the file). What the
 * chain costs the host, per request and per MiB read, each a line through
 * the two npz chains: tiersim's reading thread (its CPU clock: the system
 * calls, the kernel's FUSE path) is dlio_request_ns and _per_mib, the
 * tierfs daemon's threads (schedstat) dlio_request_daemon_ns and _per_mib
 * (the daemon serves a request while its latency runs). Per step, a torch
 * DataLoader as DLIO builds it hands over batches of unet3d's and
 * resnet50's shape: the training process's main thread per step after the
 * first is dlio_workload_step_ns[unet3d] and [resnet50], and unet3d's is
 * dlio_step_ns too. The DataLoader's start, wall time from iter() to its
 * first batch (DLIO's TorchDataset and worker_init, no file read, batches
 * of one) with 1, 2, 4 and 8 workers: the line through the first epoch's
 * (the workers forked) is dlio_loader_start_ns and _per_worker, through
 * the second's (resumed) dlio_loader_restart_ns and _per_worker. Python's
 * first full collection in a process forked from one that holds DLIO's
 * modules, as each DataLoader worker pays it once (copying and traversing
 * the heap it inherited): its thread's CPU is dlio_worker_gc_ns;
 * dlio_worker_gc_samples, the worker's sample it comes with, is DLIO's
 * and Python's rather than the machine's, and is written as
 * bench/dlio_worker_split.py found it in DLIO's own run (DLIO_GC_SAMPLES).
 * dlio_worker_spread, how far apart DLIO's workers reading side by side
 * end their batches (workloads/dlio_loader.h's spread), is written as
 * bench/dlio_rank_spread.py found it in DLIO's traces (DLIO_SPREAD).
 * vcpus is the CPUs this process may run on. With a host to carry from
 * (opts.from), the profile names it (from = ) and the speed against it:
 * that host's npz line at the 112 KiB sample over this measurement's, so
 * the wait per request measured elsewhere (dlio_request_wait_ns, from a
 * DLIO run's traces) comes from it as much slower or faster as DLIO's own
 * work is here today; dlio_run_request_ns (DLIO's daemon per request
 * beyond tiersim's) is written as that host's, not over the speed, as it
 * did not follow DLIO's work on a slower day (workloads/DLIO.md). Each figure
 * is the median of @repeats interleaved rounds; low and high their least and
 * most. One hold carries its hour (DLIO's own work moved ~10% from hour to
 * hour on a shared guest): bench/dlio_host_holds.sh measures in several
 * separate holds and combines them (the median of the holds' medians, low
 * and high the least and most round of any hold).
 */
#ifndef TS_DLIO_MEASURE_H
#define TS_DLIO_MEASURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/ts.h"

struct ts_dlio_measure_opts {
	const char *venv; /* a virtual environment with dlio_benchmark and torch */
	const char *out;  /* the profile written (NULL: ts_host_this_path) */
	const char *tier; /* the mount's tier (NULL: nvme-local) */
	const char *dir;  /* where the files and the mount go (NULL: a new one in
			   * $TIERSIM_WORKDIR or /tmp, removed after); files a
			   * measurement wrote there before are read again */
	unsigned repeats; /* rounds (0: 3) */
	bool quiet;	  /* no progress lines on stderr */
	/* a host profile the written one is carried from (from = ; NULL:
	 * none): what this command does not measure comes from it,
	 * dlio_request_wait_ns divided by the speed measured against it
	 * (ts_dlio_measure_result.speed), dlio_run_request_ns as it is */
	const char *from;
	/* a probe (NULL: none): one set of dlio_measure.py's (npz-s, npz-l,
	 * jpeg, hdf5-s, hdf5-l, png-s, png-l) alone, generated, read by DLIO's
	 * reader and by tiersim's chain through the mount as a full
	 * measurement reads it, @repeats rounds; no steps, starts or
	 * collection, no profile written (ts_dlio_measure_result.probe_*): a
	 * measurement short enough to repeat around each side of a run */
	const char *probe;
	/* tiersim's chains of a set read at once, each by a process of its
	 * own (0: the set's read_threads, as DLIO's loader reads it; 1: one
	 * chain at a time, as before 2026-12-06) */
	unsigned chain_readers;
};

/* One figure: the median over the rounds, and their least and most. */
struct ts_dlio_measured {
	double v, low, high;
};

struct ts_dlio_measure_result {
	struct ts_dlio_measured sample_ns, sample_ns_per_mib, jpeg_ns_per_mpix;
	struct ts_dlio_measured request_ns, request_ns_per_mib; /* the reading thread */
	struct ts_dlio_measured request_daemon_ns, request_daemon_ns_per_mib; /* tierfs's daemon */
	struct ts_dlio_measured step_unet3d, step_resnet50;
	/* hdf5's (HDF5Reader) and png's (ImageReader) own lines, as npz's */
	struct ts_dlio_measured hdf5_ns, hdf5_ns_per_mib, png_ns, png_ns_per_mib;
	/* the DataLoader's start: the first epoch's and a later one's lines */
	struct ts_dlio_measured start_ns, start_ns_per_worker, restart_ns, restart_ns_per_worker;
	/* a forked worker's first full collection, ns; the objects tracked */
	struct ts_dlio_measured worker_gc_ns;
	/* a worker's end of a batch per sample and per MiB of it
	 * (dlio_collate_ns, dlio_collate_ns_per_mib) */
	struct ts_dlio_measured collate_ns, collate_ns_per_mib;
	double gc_objects;
	/* with opts.from: this machine's per-core speed against that host,
	 * its DLIO npz work per sample at the 112 KiB sample's size
	 * (dlio_sample_ns + _per_mib) over this measurement's, each round's;
	 * 0 without it */
	struct ts_dlio_measured speed;
	/* with opts.probe: its set's DLIO workers per sample less tiersim's
	 * chain of the same requests (DLIO's own work, as a full round's
	 * per-set figure), the workers', the chain's, ns; the sample's bytes
	 * (npz, hdf5: the array's; images: the file's) */
	struct ts_dlio_measured probe_own, probe_dlio, probe_chain;
	double probe_bytes;
	uint64_t vcpus;
	char path[4096]; /* the profile written ("" for a probe) */
};

/* The least-squares line through (@x[i], @y[i]), i < @n, as every measured
 * line is fitted (a cost per sample, per MiB, per worker): intercept *@a,
 * slope *@b. A cost has no negative constant: where the free line's
 * intercept would be below 0, the least-squares line through the origin
 * instead (*@a = 0, *@b = sum(x y) / sum(x x)) -- not the free line's slope
 * with its intercept cut to 0, which would charge every point more than it
 * measured. @x must hold two distinct values. */
void ts_dlio_measure_line(const double *x, const double *y, unsigned n, double *a, double *b);

/* Measures and writes the profile. 0, or -errno with one line in @err. */
TS_WUR int ts_dlio_measure(const struct ts_dlio_measure_opts *o,
			   struct ts_dlio_measure_result *r, char *err, size_t errlen);

#endif
