/*
 * dlio_run.c — a DLIO workload run (dlio_run.h): the workload-to-loader
 * mapping, the accelerators' loop and its AU, the find-max search, the
 * dataset placed and mounted in real time.
 *
 * N accelerators
 * step together (DLIO's ranks meet in comm.barrier() after every step,
 * main.py `_train`), so in one process they share one loader that reads
 * N × batch_size samples per step with N × read_threads reads in flight,
 * through one tierfs mount (real time: the tier's caps are shared, as on
 * one drive) or one tier model (virtual time); under mpirun each rank has
 * its own loader and they meet at every step (dlio_mpi.h). The loader is the
 * project's own (pipeline/loader.h, vpipe.h) with the npz / tfrecord
 * source; nothing of it is rewritten here.
 *
 * Each epoch restarts the loader, as DLIO 2.0.0 does (main.py `_train`
 * iterates the loader anew each epoch: tf.data and torch both make a new
 * iterator, its buffers empty): nothing of epoch e + 1 is read before
 * epoch e's last step ends (under mpirun, before the ranks' barrier after
 * it). Per epoch, as DLIO 2.0.0's utils/statscounter.py: AU = the
 * computation_time of every step but the first over the time from the end
 * of the first step to the end of the last; samples/s = every step's
 * samples, the first included, over the whole epoch, from its loader's
 * start. AU, samples/s and MiB/s (samples/s × record_length / 2^20, as
 * MLPerf Storage reports "MB/s") are the means over epochs.
 *
 * The host's CPU (--host, a profile of pipeline/hosts.lua): the framework's
 * work per step on each accelerator's own loop (the workload's own figure
 * where the host has one), serial with its compute
 * (both clocks: busy CPU in real time, charged in virtual time), and its
 * work per sample in the readers (virtual time: charged on the loader's
 * workers, read_threads per accelerator, one under TensorFlow; real time:
 * busy CPU in DLIO's PyTorch loader's workers, a share after each request,
 * and what this host's reader costs on the other paths); under the PyTorch
 * loader in virtual time, its requests' CPU and the host's vcpus, which
 * workers and steps wait for (workloads/dlio_loader.h). workloads/DLIO.md
 * says where the costs come from.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/files.h"
#include "workloads/dlio_config.h"
#include "workloads/dlio_loader.h"
#include "workloads/dlio_mpi.h"
#include "workloads/dlio_run.h"
#include "fs/mount.h"
#include "core/interrupt.h"
#include "core/paths.h"
#include "pipeline/dataset.h"
#include "pipeline/host.h"
#include "pipeline/loader.h"
#include "pipeline/steploop.h"
#include "pipeline/vpipe.h"
#include "disk/cgroup.h"
#include "disk/disk.h"
#include "pipeline/vtier.h"
#include "tier/fsmeta.h"
#include "core/units.h"

#define OOFF(f) offsetof(struct ts_dlio_opts, f)
const struct ts_opt ts_dlio_run_opts[] = {
	{ "tier", TS_OPT_STR, OOFF(tier), NULL, 0, 0, "", "a tier profile (tiersim tiers)", "T",
	  't' },
	{ "accelerators", TS_OPT_U64, OOFF(accelerators), "1", 1, 4096, "",
	  "simulated accelerators", "N", 'n' },
	{ "find_max", TS_OPT_BOOL, OOFF(find_max), "false", 0, 0, "",
	  "the largest N whose AU meets metric.au (see --search)", NULL, 'f' },
	{ "search", TS_OPT_STR, OOFF(search), "bracket", 0, 0, "",
	  "--find-max's search: bracket (from the drive's bandwidth bound, a failing run "
	  "stopped once it cannot pass) or doubling (N doubles, then bisects, every run "
	  "whole); both answer the same while AU falls as N grows", "HOW", 0 },
	{ "virtual", TS_OPT_BOOL, OOFF(virtual_time), "false", 0, 0, "",
	  "predict in virtual time (the tier model; no bytes written)", NULL, 'v' },
	{ "mem", TS_OPT_SIZE, OOFF(mem), "0", 0, 0, "bytes",
	  "page cache modeled in front of the tier (0: none; MLPerf sizes the dataset to 5x "
	  "host memory so that reads miss)", NULL, 'm' },
	{ "capacity", TS_OPT_SIZE, OOFF(capacity), "0", 0, 0, "bytes",
	  "the disk's size (0: the tier's default)", NULL, 0 },
	{ "profile", TS_OPT_STR, OOFF(profile), NULL, 0, 0, "",
	  "add the tiers of a Lua profile file", "FILE", 0 },
	{ "dir", TS_OPT_STR, OOFF(dir), NULL, 0, 0, "",
	  "real time: where datasets are made (default $TIERSIM_WORKDIR/dlio, else "
	  "~/.cache/tiersim/dlio)", "DIR", 'd' },
	{ "host", TS_OPT_STR, OOFF(host), NULL, 0, 0, "",
	  "a host profile (tiersim hosts) whose framework costs are charged: per step on each "
	  "accelerator, per sample in the readers (default: none)", "H", 0 },
	{ "seed", TS_OPT_U64, OOFF(seed), "0", 0, 0, "",
	  "dataset and loader seed (0: the workload's train.seed)", "S", 0 },
	{ "trace", TS_OPT_STR, OOFF(trace), NULL, 0, 0, "",
	  "real time: tierfs records every request to FILE (tiersim trace dump FILE)", "FILE", 0 },
	{ "fs", TS_OPT_STR, OOFF(fs), NULL, 0, 0, "",
	  "real time, block mode: the dataset in an ext4 or xfs image (made once beside it), "
	  "mounted through a loop device over tierfs (tiersim disk); --mem is then the run's "
	  "memory cgroup, the kernel's page cache (needs root)", "FS", 0 },
	{ "quiet", TS_OPT_BOOL, OOFF(quiet), "false", 0, 0, "", "no progress lines", NULL, 'q' },
	{ NULL },
};


/* The dataset a workload reads: its kind's configuration. */
static void dataset_config(const struct ts_dlio_workload *w, uint64_t seed,
			   struct ts_dataset_config *dc)
{
	char err[256];
	memset(dc, 0, sizeof(*dc));
	if (ts_opt_defaults(ts_dataset_opts(), dc, err, sizeof(err)))
		abort(); /* the table's own defaults */
	dc->count = w->num_files_train;
	dc->seed = seed;
	const struct { const char *name; uint64_t v; } own[] = {
		{ "samples_per_file", w->num_samples_per_file },
		{ "record_length", (uint64_t)llround(w->record_length) },
		{ "record_stdev", (uint64_t)llround(w->record_length_stdev) },
	};
	for (size_t i = 0; i < TS_ARRAY_SIZE(own); i++) {
		char v[24];
		snprintf(v, sizeof(v), "%" PRIu64, own[i].v);
		if (ts_opt_set(ts_dataset_opts(), dc, own[i].name, v, err, sizeof(err)))
			abort(); /* options of both DLIO kinds, in the ranges dlio_config checks */
	}
}

/* The loader for N accelerators: N x batch per step, N x read_threads reads
 * in flight, and as many batches ahead as DLIO 2.0.0's tf.data pipeline
 * holds (reader/tf_reader.py: TFRecordDataset(num_parallel_reads =
 * read_threads) .batch(batch_size) .map(num_parallel_calls =
 * computation_threads) .prefetch(prefetch_size)): prefetch_size batches in
 * the prefetch buffer and computation_threads in the parallel map, for the
 * whole rank, not per read thread. (The PyTorch loader is
 * workloads/dlio_loader.c.) */
static int pipe_config(const struct ts_dlio_workload *w, uint64_t n, uint64_t seed,
		       const char *path, uint64_t workers, struct ts_pipe_cfg *pc, char *err,
		       size_t errlen)
{
	memset(pc, 0, sizeof(*pc));
	int rc = ts_opt_defaults(ts_pipe_opts, pc, err, errlen);
	if (rc)
		return rc;
	char v[64];
	uint64_t threads = w->read_threads ? w->read_threads : 1;
	uint64_t steps_ahead = TS_MAX(w->prefetch_size + w->computation_threads, 1);
	bool shuffle = strcmp(w->sample_shuffle, "off") || strcmp(w->file_shuffle, "off");
	struct {
		const char *k;
		uint64_t v;
		const char *s;
	} set[] = {
		{ "source", 0, w->format },
		{ "path", 0, path },
		{ "batch", w->batch_size * n, NULL },
		{ "qd", TS_MIN(threads * n, 4096u), NULL },
		{ "prefetch", TS_MIN(steps_ahead, 1024u), NULL },
		{ "epochs", w->epochs, NULL },
		{ "seed", seed, NULL },
		{ "transfer_size", w->transfer_size, NULL },
		{ "decode", 0, workers ? "modeled" : "none" },
		{ "vcpus", TS_MIN(workers ? workers : 1, 4096u), NULL },
		{ "shuffle", 0, shuffle ? "true" : "false" },
		{ "drop_last", 0, "true" },
		{ "restart", 0, "true" },
		{ "on_error", 0, "fatal" },
		{ "mem_limit", 0, "1TiB" },
	};
	for (size_t i = 0; i < TS_ARRAY_SIZE(set) && !rc; i++) {
		if (!set[i].s)
			snprintf(v, sizeof(v), "%" PRIu64, set[i].v);
		rc = ts_opt_set(ts_pipe_opts, pc, set[i].k, set[i].s ? set[i].s : v, err, errlen);
	}
	return rc;
}

/* ---- The host's CPU: the framework's work per step and per sample ---- */

/* What the framework costs a run (--host): 0 everywhere without one. */
struct cpu {
	uint64_t step_ns;	  /* per step, on each accelerator's loop */
	double sample_ns, per_mib; /* per sample in a reader worker */
	const char *sample_of;	   /* the format whose own reader's line they are, or NULL */
	double jpeg_per_mpix;	  /* more per jpeg sample, per megapixel of its image */
	uint64_t workers;	  /* reader workers per accelerator; 0: nothing charged */
	uint64_t vcpus;		  /* the host's (virtual time, PyTorch loader); 0: no limit */
	double req_ns, req_per_mib; /* per request of a sample's chain (same), per MiB read */
	double daemon_ns, daemon_per_mib; /* ... the file system daemon's, during the request */
	const char *step_of;	  /* the step cost's key (ts_host_dlio), NULL: the host's one */
	/* the PyTorch DataLoader's start per rank: the first epoch's (its
	 * read_threads workers forked), a later one's (resumed); 0 with no
	 * workers (the training process reads) */
	double start_ns, restart_ns;
	double gc_ns, gc_at; /* each worker's first full collection, its sample */
	bool gc_left;	     /* the host sets them, this format does not pay them */
	double spread;	     /* the workers' batches' ends: sd over mean */
	double spread_wait;  /* ... and over their worker's wait for a core */
	double cpu_alone;    /* a worker's CPU a sample with cores to spare (factor) */
	double slice_ns;     /* the cores' slice (dlio_core_slice_ns; 0: the loader's) */
	double wait_ns;	     /* per charged request, wall time (dlio_request_wait_ns) */
	double run_ns;	     /* per request, DLIO's own run's beyond the lines */
	double collate_ns;   /* per batch, a worker's collation and hand-over */
	double collate_fresh_ns; /* ... more in fresh memory (dlio_loader.h) */
};

/* Reader workers per accelerator that do a sample's framework work: DLIO's
 * PyTorch reader runs in read_threads DataLoader worker processes (in the
 * main one when 0); its TensorFlow reader maps parse_image through
 * tf.py_function (dlio_benchmark/reader/tf_reader.py), which holds the
 * rank's Python lock, so computation_threads parallel calls run one at a
 * time. */
static uint64_t reader_workers(const struct ts_dlio_workload *w)
{
	if (!strcmp(w->data_loader, "tensorflow"))
		return 1;
	return w->read_threads ? w->read_threads : 1;
}

/* DLIO's FormatReader.preprocess() sleeps preprocess_time per sample where
 * a reader calls it: the index-based readers (PyTorch, DALI) in
 * read_index(); the TensorFlow reader's parse_image() does not. */
static double preprocess_ns(const struct ts_dlio_workload *w)
{
	return strcmp(w->data_loader, "tensorflow") ? w->preprocess_time * 1e9 : 0;
}

/* Whether a workload's workers pay the first full collection
 * (dlio_worker_gc_*): DLIO's NPZReader's, as cpu_resolve says. */
static bool gc_charged(const struct ts_dlio_workload *w)
{
	return !strcmp(w->format, "npz");
}

static int cpu_resolve(const struct ts_dlio_opts *o, const struct ts_dlio_workload *w, struct cpu *c,
		       char *err, size_t errlen)
{
	memset(c, 0, sizeof(*c));
	struct ts_host_dlio hd = { 0 };
	if (o->host) {
		struct ts_host_set *hs = NULL;
		char sub[1024];
		int rc = ts_host_set_load_for(o->host, &hs, sub, sizeof(sub));
		if (!rc)
			rc = ts_host_dlio_costs(hs, o->host, w->model, w->format, TS_HOST_NOMINAL,
						&hd, sub, sizeof(sub));
		ts_host_set_free(hs);
		if (rc) {
			snprintf(err, errlen, "--host: %s", sub);
			return rc;
		}
	}
	c->step_ns = (uint64_t)llround(hd.step_ns);
	c->step_of = hd.step_of; /* a literal */
	c->vcpus = hd.vcpus;
	c->slice_ns = hd.core_slice_ns;
	c->req_ns = hd.request_ns;
	c->req_per_mib = hd.request_ns_per_mib;
	c->daemon_ns = hd.request_daemon_ns;
	c->daemon_per_mib = hd.request_daemon_ns_per_mib;
	c->wait_ns = hd.request_wait_ns;
	c->sample_ns = hd.sample_ns + preprocess_ns(w);
	/* what DLIO's own run spends per request beyond the lines, measured
	 * with PyTorch's DataLoader workers: charged with theirs alone */
	if (!strcmp(w->data_loader, "pytorch") && w->read_threads)
		c->run_ns = hd.run_request_ns;
	c->sample_of = hd.sample_of; /* a literal */
	c->per_mib = hd.sample_ns_per_mib;
	c->jpeg_per_mpix = strcmp(w->format, "jpeg") ? 0 : hd.jpeg_ns_per_mpix;
	if (w->read_threads) {
		c->start_ns = hd.start_ns + hd.start_ns_per_worker * (double)w->read_threads;
		c->restart_ns = hd.restart_ns + hd.restart_ns_per_worker * (double)w->read_threads;
		c->spread = hd.worker_spread;
		c->spread_wait = hd.worker_spread_wait;
		c->cpu_alone = hd.worker_cpu_alone;
		/* DLIO 2.0.0's worker hands over resized_image per sample: a
		 * square uint8 array of side int(sqrt(record_length_resize, or
		 * record_length)) (utils/config.py) */
		if (!strcmp(w->data_loader, "pytorch")) {
			double side = floor(sqrt(w->record_length_resize > 0 ? w->record_length_resize
									    : w->record_length));
			c->collate_ns = (double)w->batch_size *
					(hd.collate_ns + hd.collate_ns_per_mib * side * side / 1048576.0);
			c->collate_fresh_ns = (double)w->batch_size * hd.collate_fresh_ns_per_mib *
					      side * side / 1048576.0;
		}
	}
	/* The workers' first full collection comes with the sample
	 * dlio_worker_gc_samples names only for the reader it was found with:
	 * in DLIO's own runs of resnet50's shape (bench/dlio_worker_split.py,
	 * 8 workers of 1,000 samples each) every npz worker made one with its
	 * 463rd or 507th sample, while 5 of 8 jpeg workers and 7 of 8 hdf5
	 * workers made none, the rest only at a batch's end (workloads/DLIO.md,
	 * "The workers' garbage collector"). So it is charged to npz alone. */
	if (w->read_threads && gc_charged(w)) {
		c->gc_ns = hd.worker_gc_ns;
		c->gc_at = hd.worker_gc_samples;
	} else {
		c->gc_left = w->read_threads && hd.worker_gc_ns > 0 && hd.worker_gc_samples > 0;
	}
	if (c->sample_ns > 0 || c->per_mib > 0 || c->jpeg_per_mpix > 0)
		c->workers = reader_workers(w);
	if (!o->virtual_time && preprocess_ns(w) > 0) {
		snprintf(err, errlen, "reader.preprocess_time: real time does not sleep per sample in "
				      "the loader; predict it with --virtual");
		return -EINVAL;
	}
	return 0;
}

/* The least an epoch's last step can end at when its loader starts at
 * @start and its reads take the drive at least @t ns (tier_base.h's
 * guarantees to reads at the read caps, less their tolerance): its last
 * batch is read no sooner, and the last step's framework step (@step) and
 * compute (@ct) follow. 0 (no bound) when @t is not above 0. */
static double drive_floor(double start, double t, double step, double ct)
{
	if (!(t > 0))
		return 0;
	return start + t - TS_TIER_RATE_TOLERANCE_NS + step + ct;
}

/* The highest mean AU a run can still reach, after @done epochs whose AUs
 * sum to @sum and @k steps of the current one, the last @k - 1 taking
 * @elapsed ns. A step takes at least @step + @ct (the next starts when the
 * previous ends), so an epoch's AU is at most c1 = ct / (ct + step). The
 * current epoch has @per_epoch steps (its callers' step limit counted), so
 * its AU is ((K - 1) ct) / (its last K - 1 steps' time) at K = @per_epoch,
 * and that time is at least elapsed + (K - k)(ct + step) and at least
 * @floor (0: none), what else they take at least at its end (the drive's
 * share, run_virtual). Without a floor that bound lies between the AU so
 * far and c1 (a mediant of the two); a floor only lowers it. Each epoch
 * still to come reaches at most @next (at most c1; c1 when nothing more
 * is known). The mean over @done + 1 + R epochs is largest at R = 0 or
 * R = @left (a mean moves monotonically as equal terms are added). */
static double au_reach(double sum, uint64_t done, uint64_t k, double elapsed, double ct,
		       double step, uint64_t per_epoch, uint64_t left, double floor, double next)
{
	double c1 = ct / (ct + step);
	double cur = (double)(k - 1) * ct / elapsed;
	if (k < per_epoch) /* at the epoch's end, with no time lost */
		cur = (double)(per_epoch - 1) * ct /
		      TS_MAX(elapsed + (double)(per_epoch - k) * (ct + step), floor);
	else
		cur = TS_MAX(cur, c1);
	double a0 = (sum + cur) / (double)(done + 1);
	double a1 = (sum + cur + (double)left * TS_MIN(next, c1)) / (double)(done + 1 + left);
	return TS_MAX(a0, a1);
}

/* accel_floor's answer (floor) for what it was computed from. */
struct floor_memo {
	uint64_t epoch, steps;
	double merged, tail, floor;
};

/* An own walk's draws with leaves (draws_end), kept across find-max's runs
 * for own_window: each run's tier starts its device's stream from the
 * same seed, and own_window's draws are that stream's first ones where
 * nothing drew before the epoch, so an earlier run's walk from the same
 * state drew its first n already; their largest is known. Whose draws
 * they are is the stream's state and the distribution: the same state
 * is the same place in xoshiro's sequence, the same draws after it. */
struct draws_memo {
	struct ts_rng from, to;	 /* the stream before the walk's draws, after */
	struct ts_tier_dist lat; /* their distribution (ex: pass_model_of's of it) */
	uint64_t n;		 /* the draws (0: none recorded) */
	double most;		 /* the largest of them (draw_lat_of) */
};

static bool same_dist(const struct ts_tier_dist *a, const struct ts_tier_dist *b)
{
	return a->kind == b->kind && a->p50_ns == b->p50_ns && a->p99_ns == b->p99_ns &&
	       a->lo_ns == b->lo_ns && a->hi_ns == b->hi_ns && a->stall_p == b->stall_p &&
	       a->stall_lo_ns == b->stall_lo_ns && a->stall_hi_ns == b->stall_hi_ns;
}

/* The accelerators over the project's loader, on the step loop
 * (pipeline/steploop.h): a step is the framework's step and the
 * computation; each epoch restarts the loader when its last step ends (in
 * real time after the ranks' barrier); AU and samples/s per epoch. */
struct accel {
	struct ts_steploop_pipe pipe; /* the loader, either clock */
	struct ts_steploop_src src;   /* it, behind DLIO's barrier and restart */
	const struct ts_dlio_workload *w;
	struct ts_dlio_result *r;
	uint64_t n, per_epoch, t0, ct, step_ns;
	double stop_below;
	bool open_next;	  /* real: the next epoch's loader starts after the barrier */
	uint64_t open_ns; /* when the last epoch's loader started */
	uint64_t prev_end, first_end, cur_epoch, in_epoch, ep_samples, ep_start;
	double au_sum, sps_sum;
	/* Virtual time, stop_below: what the drive must read (accel_floor). */
	uint64_t limit, steps, ep_step0; /* steps at most; done; done before this epoch */
	double cap, mem;		  /* the drive's read cap (0: none); the page cache */
	struct ts_tier_read_ios ios;	  /* what bounds its reads' I/Os (peak 0: nothing) */
	uint64_t io_unit;		  /* the drive's I/O unit (0: a request is one I/O) */
	/* A tier that merges: per epoch, how many of the samples the floor
	 * counts may merge (ts_vpipe_merges_new), counted for mg_epoch as far
	 * as a stop's decision needs (accel_stops); mg_fail: counting failed
	 * for mg_epoch otherwise than for want of its order (-ENOMEM,
	 * -E2BIG), and is not tried again that epoch */
	struct ts_vpipe_merges *mg;
	uint64_t mg_epoch, mg_extra; /* mg_extra: merges the count leaves out, at most */
	bool mg_fail;
	const struct sample_bytes *sb;	  /* the samples' stored bytes (NULL: no floor) */
	uint64_t window;		  /* the loader's prefetch window, batches */
	double next;			  /* accel_next: what an epoch to come reaches */
	/* accel_floor's last answers and what each was computed from, one
	 * without the IOPS bound (merged < 0) and one with: within an epoch
	 * (its first step ended) only the merge counts can change them, so the
	 * steps between two counts reuse them (epoch UINT64_MAX: none) */
	struct floor_memo fl[2];
	/* Find-max, virtual time: a run that can no longer miss stops
	 * (accel_passes); pass_ok when the model is one pass_bound holds for */
	struct pass_model {
		bool ok;
		struct ts_tier *tier;	/* its backlog now */
		uint64_t qd, pf, nreq;	/* reads in flight; window, batches; requests a sample */
		double lam, rho, delta; /* a request's latest end past admission; credit wait; cost */
		double delta_leaf;	/* an extent-tree leaf's cost */
		uint64_t leaves;	/* leaf reads the run can make at most */
		uint64_t next_check;	/* the step of the next check */
		double au_next;		/* a whole epoch to come at least (< 0: not yet) */
		/* pass_draws: the loader's claims one at a time (seq: its
		 * rules hold), with the device's latencies drawn ahead
		 * (draws: they can be), once an epoch (draws_epoch: the last
		 * one tried) */
		bool seq, draws;
		const struct ts_tier_dist *lat; /* a read's, the same as a lookup's */
		double ex[1600];		/* p50 exp(sigma (q / 64 - TS_RNG_ZIG_MAX)) */
		uint64_t rr0, tr0, or0;		/* the loader's reads, the tier's, its other ops, at the start */
		uint64_t draws_epoch;
		/* merges (accel_stops): a read joins one at most mwin samples
		 * before it in the order, but for those of the leaves' chains
		 * (merge_window; 0: not known) */
		uint64_t mwin;
		/* merge_reach's bandwidth cap and least bytes a read (cap 0:
		 * none); the device's stream when epoch ep_epoch began (a copy:
		 * ts_tier_lat_rng), for own_window */
		double mw_cap, mw_least;
		struct ts_rng ep_rng;
		uint64_t ep_epoch;
		/* the samples pass_draws's walks went through (the result's
		 * bound_samples: what deciding before a step cost) */
		uint64_t *walked;
		/* the last own walk's draws with leaves (draws_end), for
		 * own_window (NULL: none kept) */
		struct draws_memo *memo;
	} pm;
};

/* How far apart in the order two merging reads can lie (merge_window's
 * rule) where every request's service, admission to end, is at most @lam
 * ns: qd + C, C <= (lam + 1 + tolerance) cap / least. 0: not known. */
static uint64_t merge_reach(const struct pass_model *m, double lam)
{
	if (!(m->mw_cap > 0))
		return 0;
	double c = floor((lam + 1 + TS_TIER_RATE_TOLERANCE_NS) / 1e9 * m->mw_cap / m->mw_least) + 1;
	return c < 0x1p40 ? m->qd + (uint64_t)c : 0;
}

/* The stored bytes of a dataset's samples: their sum, least and most. */
struct sample_bytes {
	double all, min, max;
	uint64_t count;
};

static void sample_bytes_of(const struct ts_dataset_meta *m, struct sample_bytes *sb)
{
	*sb = (struct sample_bytes){ .min = m->samples ? INFINITY : 0, .count = m->samples };
	/* One size: the sum is exact as a product below 2^53, as the sum is */
	if (!m->bytes && (double)m->samples * m->fixed_bytes < 0x1p53) {
		sb->all = (double)(m->samples * m->fixed_bytes);
		sb->min = sb->max = m->samples ? m->fixed_bytes : 0;
		return;
	}
	for (uint64_t i = 0; i < m->samples; i++) {
		double b = (double)ts_dataset_sample_len(m, i);
		sb->all += b;
		sb->min = TS_MIN(sb->min, b);
		sb->max = TS_MAX(sb->max, b);
	}
}

/* The least the current epoch's last step can end at, @steps steps long:
 * its loader (restarted at the epoch's start, dlio_run.c's header) reads
 * each of its steps x n x batch samples whole, a read charging at least
 * the sample's stored bytes, after the epoch starts, but what the page
 * cache held then (at most its size; nothing before the first epoch). Which
 * samples an epoch leaves out (drop_last, shuffled) is not known here: its
 * samples hold at least as many bytes as the smallest would, and at least
 * all the dataset's bytes but as many of the largest as it leaves out. */
static double samples_bytes(const struct accel *A, double c)
{
	const struct sample_bytes *sb = A->sb;
	c = TS_MIN(TS_MAX(c, 0), (double)sb->count);
	return TS_MAX(c * sb->min, sb->all - ((double)sb->count - c) * sb->max);
}

/* An epoch's first @steps batches' samples (the dataset's at most) */
static double steps_samples(const struct accel *A, uint64_t steps)
{
	return TS_MIN((double)steps * (double)A->n * (double)A->w->batch_size,
		      (double)A->sb->count);
}

/* The least the reads of @steps steps take the drive from their issue,
 * ns, but @mem bytes of them: their bytes at the read cap, and without a
 * page cache their samples at the IOPS limits (each sample at least one
 * read of at least one I/O, the loader reading it whole from the drive,
 * but the @merged of them that may merge (tier_base.h's ts_tier_read_ios;
 * negative: not known, no IOPS bound): at the peak rate and, while no
 * read costs more I/Os than the burst bucket holds, at its refill after
 * its credits. 0: no bound. */
static double samples_read_ns(const struct accel *A, double samples, double mem, double merged)
{
	double need = samples_bytes(A, samples) - mem, t = 0;
	if (A->cap > 0 && need > 0)
		t = need / A->cap * 1e9;
	if (A->ios.peak > 0 && !A->mem && merged >= 0) {
		double c = TS_MIN(TS_MAX(samples, 0), (double)A->sb->count) - merged;
		t = TS_MAX(t, (c - 1) / A->ios.peak * 1e9);
		double most = A->io_unit ? ceil(A->sb->max / (double)A->io_unit) : 1;
		if (A->ios.refill > 0 && most <= A->ios.bucket)
			t = TS_MAX(t, (c - A->ios.bucket) / A->ios.refill * 1e9);
	}
	return t;
}

/* samples_read_ns of an epoch's first @steps batches */
static double steps_read_ns(const struct accel *A, uint64_t steps, double mem, double merged)
{
	return samples_read_ns(A, steps_samples(A, steps), mem, merged);
}

/* How many of an epoch's first @steps batches' samples the loader claims
 * (issues their reads) at or after its first step starts, R1, at least:
 * every batch past the prefetch window (accel_next's rule), and where
 * pass_model's rules hold (seq: a sample one read, issued at its claim,
 * fewer than qd in flight; no extent-tree leaf: every read reaches the
 * limits when claimed) all but the first batch and mwin more. The first
 * step starts once every read of batch 0 has ended (R1, steploop.c); let
 * i* be the one ending last. A sample j claimed by R1 after i* was
 * claimed with at most qd in flight, j among them; every other sample
 * between i* and j ended by c_j <= R1, so was admitted by then, after
 * i*'s admission a_i* (it reached the limits after i*, which admit in
 * arrival order), moving the bandwidth limit's tat by its bytes over at
 * most cap each: C of them are admitted no sooner than a_i* + C x least
 * / cap - tolerance (rate.c's GCRA), and R1 = e_i* <= a_i* + lam + 1
 * (pass_bound's rule). So j - i* <= qd + C, C as merge_window bounds it
 * (pm.mwin = qd + C), and i* < B: at most B + mwin samples are claimed
 * before R1. */
static double after_r1(const struct accel *A, uint64_t steps)
{
	double B = (double)A->n * (double)A->w->batch_size, all = steps_samples(A, steps);
	double c = steps > A->window ? all - (double)A->window * B : 0;
	if (A->pm.seq && !A->pm.leaves && A->pm.mwin)
		c = TS_MAX(c, all - B - (double)A->pm.mwin);
	return TS_MAX(c, 0);
}

/* The least the current epoch's last step can end at, @steps steps long,
 * when @merged of its samples may merge, @tail of them past the prefetch
 * window (negative: not known, no IOPS bound; 0 on a tier that does not
 * merge). The reads of a sample still in flight, or done at the instant
 * another is claimed, lie less than window + 1 batches before it: a
 * batch is claimed once the one window batches before it is released,
 * which its step does as it starts, after every read of it is done, and
 * steps take time. */
static double accel_floor(const struct accel *A, uint64_t steps, double merged, double tail)
{
	if (!A->sb)
		return 0;
	double t = steps_read_ns(A, steps, A->cur_epoch ? A->mem : 0, A->mem ? 0 : merged);
	double f = drive_floor((double)A->ep_start, t, (double)A->step_ns, (double)A->ct);
	/* and from its first step on, the window's share (accel_next) */
	double r1 = (double)A->first_end - (double)(A->step_ns + A->ct);
	if (!A->mem && steps > A->window) {
		double w = drive_floor(r1, steps_read_ns(A, steps - A->window, 0, tail),
				       (double)A->step_ns, (double)A->ct);
		f = TS_MAX(f, w);
	}
	/* and all but the first batch and mwin (after_r1), its merges not
	 * counted on a tier that merges */
	if (!A->mem) {
		double a = drive_floor(r1, samples_read_ns(A, after_r1(A, steps), 0,
							   A->ios.merges ? -1 : 0),
				       (double)A->step_ns, (double)A->ct);
		f = TS_MAX(f, a);
	}
	return f;
}

/* The highest mean AU the run can still reach (au_reach) at its current
 * step, the epoch @steps steps long, @left epochs to come, with
 * accel_floor's @merged and @tail. */
static double accel_reach(struct accel *A, uint64_t steps, uint64_t left, double merged,
			  double tail)
{
	/* accel_floor reads the epoch's start and first step's end, its
	 * number (whether the page cache may hold some of it) and the run's
	 * constants: the same for every step of an epoch after its first */
	struct floor_memo *c = &A->fl[merged < 0];
	if (c->epoch != A->cur_epoch || c->steps != steps || c->merged != merged || c->tail != tail)
		*c = (struct floor_memo){ A->cur_epoch, steps, merged, tail,
					  accel_floor(A, steps, merged, tail) };
	double floor = c->floor;
	return au_reach(A->au_sum, A->r->epochs, A->in_epoch,
			(double)(A->prev_end - A->first_end), (double)A->ct, (double)A->step_ns,
			steps, left, floor > 0 ? floor - (double)A->first_end : 0, A->next);
}

static uint64_t own_window(const struct accel *A, uint64_t steps, uint64_t cap);

/* Whether the run stops at its current step: the reach (*@reach) under
 * stop_below, less a margin for rounding (the bound must not pass a run
 * that fails). On a tier that merges, the samples of the epoch's steps
 * that may merge (ts_vpipe_merges_new, from its order) are counted only
 * as far as the decision needs: the reach rises with them (fewer I/Os, a
 * lower floor), so what is counted so far bounds it from below and no
 * IOPS bound at all from above. A reach at the count so far that passes
 * does not stop, one without the IOPS bound that fails stops (that is
 * the bound named); between the two the count goes on, in steps, and
 * whole it decides as itself. A step decides as the whole count would:
 * a run that passes counts nothing, one that fails on its bandwidth
 * alone does not wait for its count. */
static bool accel_stops(struct accel *A, uint64_t steps, uint64_t left, double *reach)
{
	double thr = A->stop_below - 1e-9;
	if (!A->ios.merges || A->mem || !A->sb) {
		*reach = accel_reach(A, steps, left, 0, 0);
		return *reach < thr;
	}
	uint64_t B = A->n * A->w->batch_size;
	if (A->mg_epoch != A->cur_epoch) {
		ts_vpipe_merges_free(A->mg);
		A->mg = NULL;
		A->mg_epoch = A->cur_epoch;
		/* the window's reach, or merge_window's where it is shorter:
		 * then the leaves' chains' merges on top */
		uint64_t win = (A->window + 1) * B;
		A->mg_extra = 0;
		if (A->pm.ok && A->pm.mwin) {
			uint64_t mw = A->pm.mwin, own = own_window(A, steps, TS_MIN(mw, win));
			if (own && own < mw)
				mw = own;
			if (mw < win)
				win = mw, A->mg_extra = 2 * A->pm.leaves;
		}
		A->mg_fail = ts_vpipe_merges_new(A->pipe.vp, A->cur_epoch, win, A->window * B,
						  steps * B, &A->mg) != 0;
	}
	double none = accel_reach(A, steps, left, -1, -1); /* no IOPS bound */
	if (A->mg_fail) {
		*reach = none;
		return none < thr;
	}
	for (;;) {
		uint64_t below, all, left_n, done = ts_vpipe_merges_done(A->mg, &below, &all, &left_n);
		*reach = accel_reach(A, steps, left, (double)(all + A->mg_extra),
				     (double)(all - below + A->mg_extra));
		if (!left_n || !(*reach < thr))
			return *reach < thr;
		if (none < thr) {
			*reach = none;
			return true;
		}
		int rc = ts_vpipe_merges_more(A->pipe.vp, A->mg, done + TS_MAX(done, 65536u));
		if (rc == -EAGAIN) { /* without the order: no IOPS bound; a later step retries */
			*reach = none;
			return false;
		}
	}
}

/* The most AU an epoch still to come can reach, from the drive's share
 * of it past the prefetch window. Batch j of an epoch is claimed (its
 * reads issued) once batch j - window is released (scheduler.c), and
 * the first is released when the first step starts, at R1 (the step
 * loop releases a batch when its step starts): the reads of batches
 * window .. K - 1 are issued at or after R1 (where pass_model's rules
 * hold, all but batch 0 and mwin more: after_r1), so the last step ends at
 * least their read time (samples_read_ns, less the tolerance) plus step +
 * ct after R1, and the first ends step + ct after it. Without a page cache
 * only (one could hold bytes read ahead before R1) and without a step
 * limit (an epoch it cuts short has another K); c1 otherwise (1 here). */
static double accel_next(const struct accel *A)
{
	uint64_t K = A->per_epoch;
	if (!A->sb || A->mem || A->limit != UINT64_MAX || K < 2)
		return 1;
	/* an epoch to come has an order not made yet: a tier that merges
	 * gives it no IOPS bound */
	double t = samples_read_ns(A, after_r1(A, K), 0, A->ios.merges ? -1 : 0) -
		   TS_TIER_RATE_TOLERANCE_NS;
	double ct = (double)A->ct;
	return (double)(K - 1) * ct / TS_MAX(t, (double)(K - 1) * (ct + (double)A->step_ns));
}

/* ---- Find-max: a run that can no longer miss stops (virtual time) ----
 *
 * An upper bound on when the epoch's last step ends, from the model's
 * own rules (pass_model says where they hold: no page cache, no decode,
 * no device slots, no instance limits, no windows, a sample one read of
 * at most nreq chained parts): the tier admits a request arriving at a by
 * max(a, X) + rho (X: its limits' backlog, ts_tier_backlog_ns; rho: a
 * credit wait), moves X to at most max(X, a) + delta, and ends it at most
 * lam after its admission (lam: the device's longest draw, the ziggurat's
 * largest normal TS_RNG_ZIG_MAX, or its transfer at the bandwidth cap).
 * The loader claims a sample once its batch is inside the window (the
 * batch pf before it released, as its step starts) and fewer than qd
 * reads are in flight, in order; so the samples of a batch, qd at a time,
 * are claimed by the time the qd before them ended. Over a round of q
 * samples claimed by tau, every request ends by Y + S + c (lam + rho) +
 * lam + rho, Y = max(X, tau), S their costs, c the requests among them
 * that arrive at another's end (parts after the first, extent-tree
 * leaves: each can push X past the round's arrivals by its chain's end),
 * and X is then at most that less lam + rho. A step starts when its
 * batch is ready and the one before ended (steploop.c). By induction over
 * the rounds the bound holds for every draw the model can make. */
static double pass_bound(const struct accel *A, uint64_t k, uint64_t K, double now, double z0,
			 double x0)
{
	const struct pass_model *m = &A->pm;
	uint64_t B = A->n * A->w->batch_size;
	double st[1024]; /* the window's steps' starts (pipe_config: prefetch <= 1024) */
	double Z = z0, X = x0, E = now, step = (double)(A->step_ns + A->ct), ch = m->lam + m->rho;
	for (uint64_t j = k; j < K; j++) {
		double open = j >= k + m->pf ? st[(j - m->pf) % m->pf] : now;
		for (uint64_t rem = B; rem;) {
			uint64_t q = TS_MIN(rem, m->qd);
			rem -= q;
			double Y = TS_MAX(X, TS_MAX(Z, open));
			X = Y + (double)(q * m->nreq) * m->delta + (double)(q * (m->nreq - 1)) * ch;
			Z = X + ch;
		}
		double s0 = TS_MAX(Z, E);
		st[j % m->pf] = s0;
		E = s0 + step;
	}
	/* the extent-tree leaves, in whatever rounds they come: each adds its
	 * cost and a chain's end to one round, and every step above moves
	 * what follows by no more than what it adds (max and +) */
	return E + (double)m->leaves * (m->delta_leaf + ch);
}

/* The device's next latency draw from @r, as device.c's device_submit
 * draws it for pass_model's lat (a lognormal's normal from the ziggurat,
 * then its stall; a fixed one draws nothing), or more: the normal rounded
 * up to 1/64 (pass_model's ex, exp of each such step: exp rises), which
 * takes the same draws. */
/* ceil((x + TS_RNG_ZIG_MAX) * 64) for |x| <= TS_RNG_ZIG_MAX: y >= 0, so
 * its truncation is its floor, and one up where y is not whole (ceil
 * itself is a call or a long sequence on x86-64's baseline) */
static inline int zig_step(double x)
{
	double y = (x + TS_RNG_ZIG_MAX) * 64;
	int t = (int)y;
	return t + ((double)t < y);
}

static inline __attribute__((always_inline)) double
draw_lat_of(const struct ts_tier_dist *d, const double *ex, struct ts_rng *r, const struct ts_rng_zig *z)
{
	if (d->kind != TS_TIER_DIST_LOGNORMAL || !(d->p99_ns > d->p50_ns))
		return d->p50_ns;
	double x = ts_rng_normal_zig(r, z); /* |x| <= TS_RNG_ZIG_MAX */
	double lat = ex[zig_step(x)];
	if (d->stall_p > 0) {
		double u = ts_rng_double(r);
		if (u < d->stall_p)
			lat += d->stall_lo_ns + (d->stall_hi_ns - d->stall_lo_ns) * (u / d->stall_p);
	}
	return lat;
}

/* @n draws of draw_lat_of into @out, in order: where a draw is a
 * lognormal's normal alone (no stall), that loop holds no other test */
static void draws_fill(const struct ts_tier_dist *d, const double *ex, struct ts_rng *r,
		       const struct ts_rng_zig *z, double *out, unsigned n)
{
	if (d->kind == TS_TIER_DIST_LOGNORMAL && d->p99_ns > d->p50_ns && !(d->stall_p > 0)) {
		struct ts_rng s = *r;
		for (unsigned q = 0; q < n; q++)
			out[q] = ex[zig_step(ts_rng_normal_zig(&s, z))];
		*r = s;
		return;
	}
	for (unsigned q = 0; q < n; q++)
		out[q] = draw_lat_of(d, ex, r, z);
}

/* The largest of @n draws of draw_lat_of (0 for none), the stream left
 * @n draws on. Each draw is taken once into a local: TS_MAX evaluates
 * its winning argument twice, which drew a second latency where the
 * first was a new largest (not the largest of these n, and the stream
 * moved past them). Where a draw is a lognormal's normal alone, ex at the
 * largest normal's step: zig_step and ex both rise (never fall) with the
 * normal, so that is the largest draw, with one lookup, not @n. */
static double draws_max(const struct ts_tier_dist *d, const double *ex, struct ts_rng *r,
			const struct ts_rng_zig *z, uint64_t n)
{
	if (!n)
		return 0;
	if (d->kind == TS_TIER_DIST_LOGNORMAL && d->p99_ns > d->p50_ns && !(d->stall_p > 0)) {
		/* the largest normal of the n, as a loop of TS_MAX over them */
		return ex[zig_step(ts_rng_normal_zig_max(r, z, n, -TS_RNG_ZIG_MAX))];
	}
	double most = 0;
	for (uint64_t q = 0; q < n; q++) {
		double y = draw_lat_of(d, ex, r, z);
		most = TS_MAX(most, y);
	}
	return most;
}

/* What pass_draws takes for the device's draws: its own (DRAWS_OWN, from
 * the tier's stream), the longest any can take (DRAWS_MOST: an upper
 * bound as pass_bound's, for any draws, with no stream drawn), or none
 * (DRAWS_NONE: each request at its transfer; pass_draws is a max-plus
 * recurrence, nondecreasing in each draw, so no draws can end it later:
 * where it misses, DRAWS_OWN misses). */
enum draws { DRAWS_OWN, DRAWS_MOST, DRAWS_NONE };

/* pass_bound with the device's own draws for the requests to come, in
 * place of its longest, and the loader's claims one at a time in place of
 * rounds of qd (where each sample is one request, so the device's n-th
 * request from now is the n-th sample claimed from now, but for the @lv
 * extent-tree leaves that may still be read, which draw from the same
 * stream: sample i's draw lies among the draws i .. i + lv; pass_model_of
 * says where this holds). Sample i (in claim order from the epoch's step
 * k) is claimed once its batch is inside the window and fewer than qd
 * reads are in flight, which holds by the time every sample up to i - qd
 * has ended: by c_i <= max(c_{i-1}, open, M_{i-qd}), M the latest end so
 * far. It is admitted by Y + rho, Y = max(c_i, X), moves X to Y + delta
 * and ends by its admission plus the larger of its draw and its transfer
 * (delta), plus the rounding of each (rate.c's ceil_ns, device.c's
 * round_ns). While leaves may remain, any sample may be a leaf's chain
 * (the leaf, then the read at its end), so each ends by Y plus twice
 * that, with the most of the draws it may take; the leaves' own costs,
 * at most lv x delta_leaf in all, move what follows by no more than that
 * (max and + move their result by no more than their terms move). The
 * @ahead samples of these batches claimed already end by @z0 and drew
 * theirs. Every rule is a max or a sum of the ones before, so a later
 * claim or a dearer request only moves later what follows: an upper bound
 * on the epoch's last step's end, as pass_bound's, for these draws. */
#define DRAW_CHUNK 256u /* draws_end's own draws drawn ahead at a time */
static inline __attribute__((always_inline)) double
draws_end(const struct accel *A, uint64_t k, uint64_t K, double now, double z0, double x0,
	  uint64_t ahead, uint64_t lv, enum draws how, struct ts_rng *rs)
{
	const struct pass_model *m = &A->pm;
	uint64_t B = A->n * A->w->batch_size, i = 0, u = 0, g = 0, sj = 0;
	double st[1024], gate[4096]; /* pipe_config: prefetch <= 1024, qd <= 4096 */
	double c = now, X = x0, M = z0, E = now, step = (double)(A->step_ns + A->ct);
	double dd = TS_MAX(m->delta, m->delta_leaf), cur = 0, next = 0;
	/* a draw fixed for every request: the longest (pass_bound's lam,
	 * which holds its rounding too, so e takes no more) or none */
	double fixed = how == DRAWS_MOST ? m->lam - 2 : 0;
	struct ts_rng r;
	const struct ts_rng_zig *z = ts_rng_zig();
	/* the distribution in a local: the stores below cannot reach it, so
	 * its fields stay in registers instead of being read every draw */
	const struct ts_tier_dist dl = *m->lat;
	const double delta = m->delta, rho = m->rho;
	const uint64_t qd = m->qd, pf = m->pf;
	/* without leaves, the own draws are drawn DRAW_CHUNK at a time into
	 * dbuf, in the order the samples take them and no more than they
	 * take (want: the samples past @ahead), so the stream is left where
	 * one draw a sample leaves it: the draws' loop and the recurrence's
	 * each keep their values in registers */
	double dbuf[DRAW_CHUNK];
	uint64_t want = (K - k) * B > ahead ? (K - k) * B - ahead : 0;
	unsigned dn = 0, di = 0;
	/* with leaves: the stream as the walk began, its blocks drawn and
	 * their largest (m->memo) */
	struct ts_rng r0;
	uint64_t blocks = 0;
	double most = 0;
	if (how == DRAWS_OWN && rs)
		r = *rs;
	else if (how == DRAWS_OWN)
		ts_tier_lat_rng(m->tier, &r);
	for (uint64_t q = 0; q < qd; q++)
		gate[q] = z0;
	if (lv && how == DRAWS_OWN) { /* the draws in blocks of lv + 1: i .. i + lv lie in two */
		r0 = r;
		next = most = draws_max(&dl, m->ex, &r, z, lv + 1);
		blocks = 1;
	} else {
		cur = next = fixed;
	}
	for (uint64_t j = k; j < K; j++) {
		/* st[sj] is step j - pf's start once pf steps are in */
		double open = j >= k + pf ? st[sj] : now;
		for (uint64_t p = 0; p < B; p++, i++) {
			if (i >= ahead) {
				c = TS_MAX(c, TS_MAX(open, gate[g]));
				double Y = TS_MAX(X, c), e;
				X = Y + delta;
				if (!lv) {
					double d = fixed;
					if (how == DRAWS_OWN) {
						if (di == dn) {
							dn = (unsigned)TS_MIN(want, DRAW_CHUNK);
							want -= dn;
							draws_fill(&dl, m->ex, &r, z, dbuf, dn);
							di = 0;
						}
						d = dbuf[di++];
					}
					e = Y + rho + TS_MAX(d, delta) + 2;
				} else {
					if (how == DRAWS_OWN && u-- == 0) { /* every lv + 1 samples */
						u = lv;
						cur = next;
						next = draws_max(&dl, m->ex, &r, z, lv + 1);
						most = TS_MAX(most, next);
						blocks++;
					}
					e = Y + 2 * (rho + TS_MAX(TS_MAX(cur, next), dd) + 2);
				}
				M = TS_MAX(M, e);
			}
			gate[g] = M; /* g = i % qd */
			if (++g == qd)
				g = 0;
		}
		double s0 = TS_MAX(M, E);
		st[sj] = s0; /* sj = j % pf (j - k counts from 0 the same) */
		if (++sj == pf)
			sj = 0;
		E = s0 + step;
	}
	if (how == DRAWS_OWN && rs)
		*rs = r;
	if (how == DRAWS_OWN && lv && m->memo)
		*m->memo = (struct draws_memo){ r0, r, dl, blocks * (lv + 1), most };
	return E + (double)lv * m->delta_leaf;
}

/* merge_window's reach for the current epoch of @steps steps with the
 * device's own draws in place of its longest (lam): where pass_draws's
 * rules hold and no request but reads reached the tier since the run's
 * start (draws_now's test), every request of the epoch is a sample's read
 * or an extent-tree leaf's (each read once a run at most), each drawing
 * its latency once from the device's stream in the order they reach it,
 * from the stream as the epoch began (pm.ep_rng: nothing of it claimed
 * then). So each of them takes one of that stream's first steps x B +
 * leaves draws, and its service, admission to end, is at most the
 * largest of them (draw_lat_of: rounded up; + 2 as dist_max's) or its
 * transfer, + 2 (pass_bound's lam). 0: not known.
 *
 * The first of the n draws an earlier run's own walk took from the same
 * stream (E->dm) give their largest without drawing them; the rest are
 * drawn. The largest of all is the largest of the two parts': for a
 * lognormal alone draws_max is ex at the largest normal's step, and ex
 * and zig_step both rise, so that is the largest of ex at each part's.
 * The caller takes the least of this and @cap (a reach of 0 read as no
 * bound), so the draws stop once the reach so far is @cap or more, or 0:
 * the largest draw only rises with more draws, and the reach with it
 * (merge_reach: a floor of a rising line, 0 past its range), so the
 * caller's least is @cap however many are left. @cap 0 is no cap: every
 * draw is taken (accel_stops's cap, the least of mwin and the prefetch
 * window's positions, is never 0). The rest are drawn OWN_CHUNK at a time
 * for that test (the largest normal carried from chunk to chunk, as one
 * ts_rng_normal_zig_max call). The stream is a copy: where it stops
 * leaves nothing else changed. tests/workloads/test_own_window.c checks
 * the least against all n drawn, with the memo and without. */
#define OWN_CHUNK 65536u
static uint64_t own_reach(const struct pass_model *m, double d)
{
	return merge_reach(m, TS_MAX(TS_MAX(d + 2, m->delta), m->delta_leaf) + 2);
}

/* own_window's draws: the largest of @n draws from @r (@dm: an earlier
 * walk's first ones, NULL or not from @r: none), stopped at @cap */
static uint64_t own_window_of(const struct pass_model *m, struct ts_rng r, uint64_t n, uint64_t cap,
			      const struct draws_memo *dm)
{
	const struct ts_rng_zig *z = ts_rng_zig();
	/* the largest of the n draws, each taken once (draws_max) */
	double d = 0; /* no draws: draws_max's 0; each draw is 0 or more */
	if (dm && dm->n && dm->n <= n && !memcmp(&dm->from, &r, sizeof(r)) &&
	    same_dist(&dm->lat, m->lat)) {
		/* the same stream's first dm->n of them: their largest */
		d = dm->most;
		r = dm->to;
		n -= dm->n;
	}
	const struct ts_tier_dist *dl = m->lat;
	bool normal = dl->kind == TS_TIER_DIST_LOGNORMAL && dl->p99_ns > dl->p50_ns &&
		      !(dl->stall_p > 0);
	double x = -TS_RNG_ZIG_MAX;
	uint64_t own = own_reach(m, d);
	while (n && own && (!cap || own < cap)) {
		uint64_t c = TS_MIN(n, OWN_CHUNK);
		if (normal) { /* draws_max's fast path, its largest normal carried */
			x = ts_rng_normal_zig_max(&r, z, c, x);
			d = TS_MAX(d, m->ex[zig_step(x)]);
		} else {
			double dc = draws_max(dl, m->ex, &r, z, c);
			d = TS_MAX(d, dc);
		}
		n -= c;
		own = own_reach(m, d);
	}
	return own;
}

static uint64_t own_window(const struct accel *A, uint64_t steps, uint64_t cap)
{
	const struct pass_model *m = &A->pm;
	if (!m->seq || !m->draws || m->ep_epoch != A->cur_epoch || !(m->mw_cap > 0))
		return 0;
	struct ts_tier_stats ts;
	ts_tier_stats(m->tier, &ts);
	if (ts.op[TS_TIER_META].count + ts.op[TS_TIER_WRITE].count != m->or0)
		return 0;
	uint64_t n = steps * A->n * A->w->batch_size + m->leaves;
	return own_window_of(m, m->ep_rng, n, cap, m->memo);
}

/* The device's stream as epoch @e begins (own_window), where nothing of
 * it is claimed yet: the loader's claims are every sample of the steps
 * before */
static void own_epoch_start(struct accel *A, uint64_t e)
{
	struct pass_model *m = &A->pm;
	m->ep_epoch = UINT64_MAX;
	if (!m->seq || !m->draws)
		return;
	struct ts_vpipe_stats vs;
	ts_vpipe_stats(A->pipe.vp, &vs);
	if (vs.read_requests - m->rr0 != A->steps * A->n * A->w->batch_size)
		return;
	ts_tier_lat_rng(m->tier, &m->ep_rng);
	m->ep_epoch = e;
}

/* draws_end compiled for each @how: its loop holds no test of it */
static double pass_draws(const struct accel *A, uint64_t k, uint64_t K, double now, double z0,
			 double x0, uint64_t ahead, uint64_t lv, enum draws how)
{
	if (A->pm.walked && K > k)
		*A->pm.walked += (K - k) * A->n * A->w->batch_size;
	switch (how) {
	case DRAWS_MOST: return draws_end(A, k, K, now, z0, x0, ahead, lv, DRAWS_MOST, NULL);
	case DRAWS_NONE: return draws_end(A, k, K, now, z0, x0, ahead, lv, DRAWS_NONE, NULL);
	case DRAWS_OWN: break;
	}
	return draws_end(A, k, K, now, z0, x0, ahead, lv, DRAWS_OWN, NULL);
}

/* pass_draws's DRAWS_MOST and DRAWS_NONE in one walk (*@most, *@none):
 * neither draws, so the two recurrences are draws_end's for each, lane by
 * lane, the same operations in the same order (the same doubles), and
 * being independent they overlap on the core: about one walk's time, not
 * two. The samples are walked once. */
static void pass_draws_fixed(const struct accel *A, uint64_t k, uint64_t K, double now,
			     double z0, double x0, uint64_t ahead, uint64_t lv, double *most,
			     double *none)
{
	const struct pass_model *m = &A->pm;
	if (m->walked && K > k)
		*m->walked += (K - k) * A->n * A->w->batch_size;
	uint64_t B = A->n * A->w->batch_size, i = 0, g = 0, sj = 0;
	/* the two lanes' entries side by side ([g][l]): a lane's store and the
	 * other's load of its own array 32 KiB away share their low 12 bits,
	 * and the load waited on the store (4K aliasing) */
	double st[1024][2], gate[4096][2]; /* pipe_config: prefetch <= 1024, qd <= 4096 */
	double step = (double)(A->step_ns + A->ct), dd = TS_MAX(m->delta, m->delta_leaf);
	const double fixed[2] = { m->lam - 2, 0 };
	/* each lane's sample end past Y: draws_end's e less Y, its terms
	 * added as there (Y + rho + max(d, delta) + 2 without leaves, Y + 2
	 * (rho + max(cur, next, dd) + 2) with, cur = next = the fixed draw) */
	double c[2] = { now, now }, X[2] = { x0, x0 }, M[2] = { z0, z0 }, E[2] = { now, now };
	double late[2];
	for (int l = 0; l < 2; l++)
		late[l] = 2 * (m->rho + TS_MAX(TS_MAX(fixed[l], fixed[l]), dd) + 2);
	for (uint64_t q = 0; q < m->qd; q++)
		gate[q][0] = gate[q][1] = z0;
	for (uint64_t j = k; j < K; j++) {
		bool in = j >= k + m->pf;
		for (uint64_t p = 0; p < B; p++, i++) {
			for (int l = 0; l < 2; l++) {
				if (i >= ahead) {
					double open = in ? st[sj][l] : now;
					c[l] = TS_MAX(c[l], TS_MAX(open, gate[g][l]));
					double Y = TS_MAX(X[l], c[l]), e;
					X[l] = Y + m->delta;
					if (!lv)
						e = Y + m->rho + TS_MAX(fixed[l], m->delta) + 2;
					else
						e = Y + late[l];
					M[l] = TS_MAX(M[l], e);
				}
				gate[g][l] = M[l];
			}
			if (++g == m->qd)
				g = 0;
		}
		for (int l = 0; l < 2; l++) {
			double s0 = TS_MAX(M[l], E[l]);
			st[sj][l] = s0;
			E[l] = s0 + step;
		}
		if (++sj == m->pf)
			sj = 0;
	}
	*most = E[0] + (double)lv * m->delta_leaf;
	*none = E[1] + (double)lv * m->delta_leaf;
}

/* pass_draws's DRAWS_OWN from the stream @r, left where the walk ends it
 * (one draw a sample: no extent-tree leaf) */
static double pass_draws_from(const struct accel *A, uint64_t K, double now, double z0, double x0,
			      struct ts_rng *r)
{
	if (A->pm.walked)
		*A->pm.walked += K * A->n * A->w->batch_size;
	return draws_end(A, 0, K, now, z0, x0, 0, 0, DRAWS_OWN, r);
}

/* What an epoch's AU must reach for the run's mean to meet stop_below:
 * the mean of @sum (the AUs of the epochs before, and the bound of those
 * to come) and this epoch's, (@steps - 1) ct over its last step's end
 * less @first, over @n epochs. */
struct pass_goal {
	double sum, first, n;
	uint64_t steps;
};

static double goal_au(const struct accel *A, const struct pass_goal *g, double end)
{
	return (g->sum + (double)(g->steps - 1) * (double)A->ct / (end - g->first)) / g->n;
}

/* pass_draws's bound on the epoch's last step's end for @g, with as few
 * draws as decide it. Where the longest draw ends before the tier has
 * admitted the qd - 1 reads after it (paced: the claims do not wait on
 * the draws), the draws move the end little: the longest draws (no
 * stream drawn) where they pass, else the device's own where no draws at
 * all would not miss (DRAWS_NONE: no draws end it sooner), else the
 * longest's. Elsewhere the device's own (the longest where it has none:
 * a latency no generator replays). */
static double seq_end(const struct accel *A, const struct pass_goal *g, uint64_t k, uint64_t K,
		      double now, double z0, double x0, uint64_t ahead, uint64_t lv)
{
	const struct pass_model *m = &A->pm;
	double thr = A->stop_below + 1e-9, e = INFINITY;
	/* No draws can bring pass_draws's end under x0 + (its samples) x delta
	 * + step + lv x delta_leaf: each sample moves X to Y + delta, Y >= X,
	 * and ends by at least that X (e >= Y + delta), the last step starts
	 * no sooner and lasts step (ct included), the leaves add theirs. Where
	 * even that misses, no mode of it can pass: INFINITY (no bound), and
	 * no sample of the recurrence is walked. */
	uint64_t B = A->n * A->w->batch_size, all = (K - k) * B;
	double least = x0 + (double)(all > ahead ? all - ahead : 0) * m->delta +
		       (double)(A->step_ns + A->ct) + (double)lv * m->delta_leaf;
	if (all > ahead && least > g->first && !(goal_au(A, g, least) >= thr))
		return INFINITY;
	bool paced = m->lam + m->rho + 2 < (double)(m->qd - 1) * m->delta;
	if (paced && m->draws) { /* the longest and none in one walk */
		double none;
		pass_draws_fixed(A, k, K, now, z0, x0, ahead, lv, &e, &none);
		if (goal_au(A, g, e) >= thr || !(goal_au(A, g, none) >= thr))
			return e;
	} else if (!m->draws) {
		return pass_draws(A, k, K, now, z0, x0, ahead, lv, DRAWS_MOST);
	}
	/* one walk: TS_MIN would evaluate a call that wins twice */
	double own = pass_draws(A, k, K, now, z0, x0, ahead, lv, DRAWS_OWN);
	return TS_MIN(e, own);
}

/* How many samples of the epoch's steps from the current one on the
 * loader has claimed (*@ahead) and how many extent-tree leaves it may
 * still read (*@lv: the tier's reads past the loader's are the leaves',
 * each read once a run at most), where pass_draws applies now: once an
 * epoch, nothing but reads reached the tier. */
static bool draws_now(struct accel *A, uint64_t *ahead, uint64_t *lv)
{
	struct pass_model *m = &A->pm;
	if (!m->seq || m->draws_epoch == A->cur_epoch)
		return false;
	struct ts_vpipe_stats vs;
	struct ts_tier_stats ts;
	ts_vpipe_stats(A->pipe.vp, &vs);
	ts_tier_stats(m->tier, &ts);
	uint64_t claims = vs.read_requests - m->rr0, reads = ts.op[TS_TIER_READ].count - m->tr0;
	uint64_t B = A->n * A->w->batch_size;
	if (ts.op[TS_TIER_META].count + ts.op[TS_TIER_WRITE].count != m->or0 || reads < claims ||
	    reads - claims > m->leaves || claims < A->steps * B)
		return false;
	m->draws_epoch = A->cur_epoch;
	*ahead = claims - A->steps * B;
	*lv = m->leaves - (reads - claims);
	return true;
}

/* Whether the run passes whatever its remaining draws (pass_bound), at
 * its current step of an epoch of @steps steps, @left epochs to come: the
 * mean AU's lower bound (*@au) meets stop_below. Checked at steps 2, 4,
 * 8, ...: a check costs a round per qd samples to the epoch's end. */
static bool accel_passes(struct accel *A, uint64_t steps, uint64_t left, double *au)
{
	struct pass_model *m = &A->pm;
	if (!m->ok || A->steps < m->next_check || A->in_epoch < 2)
		return false;
	m->next_check = 2 * A->steps;
	if (left && A->limit != UINT64_MAX) /* a step limit may cut an epoch to come short */
		return false;
	double ct = (double)A->ct, now = (double)A->prev_end, ch = m->lam + m->rho;
	double backlog = ts_tier_backlog_ns(m->tier), x = TS_MAX(backlog, 0);
	/* what is in flight: its parts admitted by max(now, x) + rho each */
	double z0 = TS_MAX(now, x) + (double)(m->nreq + 1) * ch;
	double e = pass_bound(A, A->in_epoch, steps, now, z0, x);
	double cur = (double)(steps - 1) * ct / (e - (double)A->first_end);
	if (left && m->au_next < 0) {
		/* an epoch to come starts with every read done (its last batch
		 * was before the last step) and X at most a request's cost past
		 * its start; its first step ends step + ct after it at least */
		double e1 = pass_bound(A, 0, A->per_epoch, 0, 0, TS_MAX(m->delta, m->delta_leaf));
		m->au_next = (double)(A->per_epoch - 1) * ct / (e1 - (double)(A->step_ns + A->ct));
	}
	double rest = (double)left * (left ? m->au_next : 0), n = (double)(A->r->epochs + 1 + left);
	*au = (A->au_sum + cur + rest) / n;
	/* the longest draws in rounds miss, an epoch of AU 1 would not: the
	 * claims one at a time for this epoch's requests (seq_end), once an
	 * epoch */
	uint64_t ahead, lv;
	if (!(*au >= A->stop_below + 1e-9) && (A->au_sum + 1 + rest) / n >= A->stop_below + 1e-9 &&
	    draws_now(A, &ahead, &lv)) {
		struct pass_goal g = { A->au_sum + rest, (double)A->first_end, n, steps };
		double ed = seq_end(A, &g, A->in_epoch, steps, now, z0, x, ahead, lv);
		if (ed < e)
			*au = goal_au(A, &g, ed);
	}
	return *au >= A->stop_below + 1e-9;
}

/* Whether the run passes before its first step (find-max, virtual time):
 * every epoch bounded as accel_passes bounds an epoch to come, the first
 * from the loader's start t0 with the tier's backlog then and nothing in
 * flight (the source's opening reads ended by t0, ts_vpipe_new), its first
 * step ending no sooner than its batch's reads take the drive
 * (steps_read_ns, less the rate's tolerance) plus step + ct after t0 (a
 * step starts once its batch is read): 1. Where the worst draws miss and
 * the reads of its first epoch past the prefetch window (accel_next's
 * rule) say it cannot reach stop_below, it misses (-1, *@au that reach);
 * else its first epoch with the loader's claims one at a time (seq_end:
 * the longest draws, then the device's own where they can pass), then
 * every epoch with the device's own draws: 1 or 0, undecided. A run
 * decided here never claims a sample, so its epoch order (made at the
 * first claim, scheduler.c's make_order) is never drawn. A step limit
 * inside the first epoch makes the run that epoch, cut short; one in a
 * later epoch is not bounded here. */
static int accel_passes_at_start(struct accel *A, double *au)
{
	struct pass_model *m = &A->pm;
	uint64_t K = A->per_epoch, epochs = A->w->epochs;
	if (A->limit < K) /* the run is one epoch, cut short there */
		K = A->limit, epochs = 1;
	else if (A->limit != UINT64_MAX && A->limit / K < epochs)
		return false;
	if (!m->ok || K < 2 || !epochs || !A->ct)
		return false;
	double ct = (double)A->ct, t0 = (double)A->t0, step = (double)(A->step_ns + A->ct);
	double thr = A->stop_below + 1e-9, merged = A->ios.merges ? -1 : 0;
	double first = steps_read_ns(A, 1, 0, merged) - TS_TIER_RATE_TOLERANCE_NS;
	double f0 = t0 + TS_MAX(first, 0) + step;
	double backlog = ts_tier_backlog_ns(m->tier), x = TS_MAX(backlog, t0);
	double e0 = pass_bound(A, 0, K, t0, t0, x);
	if (epochs > 1) {
		double e1 = pass_bound(A, 0, K, 0, 0, TS_MAX(m->delta, m->delta_leaf));
		m->au_next = (double)(K - 1) * ct / (e1 - step);
	}
	double rest = (double)(epochs - 1) * (epochs > 1 ? m->au_next : 0);
	*au = ((double)(K - 1) * ct / (e0 - f0) + rest) / (double)epochs;
	if (*au >= thr)
		return 1;
	/* the most it reaches: its first epoch's reads past the prefetch
	 * window (after_r1's) are read after its first step starts
	 * (accel_next's rule), an epoch to come's AU is at most A->next */
	double most = samples_read_ns(A, after_r1(A, K), 0, merged) - TS_TIER_RATE_TOLERANCE_NS;
	double reach = ((double)(K - 1) * ct / TS_MAX(most, (double)(K - 1) * step) +
			(double)(epochs - 1) * A->next) / (double)epochs;
	if (reach < A->stop_below - 1e-9) {
		*au = reach;
		return -1;
	}
	if (!m->seq)
		return 0;
	struct pass_goal g = { rest, f0, (double)epochs, K };
	double ed = seq_end(A, &g, 0, K, t0, t0, x, 0, m->leaves);
	if (ed < e0)
		*au = goal_au(A, &g, ed);
	if (*au >= thr || epochs < 2 || !m->draws || m->leaves)
		return *au >= thr;
	/* The epochs to come bounded as the first, with the device's own
	 * draws where the longest miss. Where only the loader's reads reach
	 * the tier (pass_draws's rules) and none an extent-tree leaf's, each
	 * draws one latency as it reaches the device, in claim order, and
	 * epoch e's claims start once every read of epoch e - 1 ended
	 * (accel_passes's rule for an epoch to come): epoch e's K x B reads
	 * draw the stream's draws e K B .. (e + 1) K B - 1 from the run's
	 * start, and each walk leaves the stream where the next epoch's
	 * begins. Its first step ends no sooner than its batch's reads take
	 * the drive plus step + ct after its start, as the first epoch's
	 * (f0 - t0: nothing of it was read before its claims began). An
	 * epoch's AU is at least the larger of the two bounds'; the walk
	 * stops where even AU 1 for the epochs left cannot pass. */
	struct ts_rng r;
	ts_tier_lat_rng(m->tier, &r);
	double own0 = pass_draws_from(A, K, t0, t0, x, &r);
	double sum = (double)(K - 1) * ct / (TS_MIN(TS_MIN(e0, ed), own0) - f0);
	for (uint64_t e = 1; e < epochs; e++) {
		if ((sum + (double)(epochs - e)) / (double)epochs < thr)
			return false;
		double en = pass_draws_from(A, K, 0, 0, TS_MAX(m->delta, m->delta_leaf), &r);
		sum += TS_MAX(m->au_next, (double)(K - 1) * ct / (en - (f0 - t0)));
	}
	if (sum / (double)epochs >= thr)
		*au = sum / (double)epochs;
	return *au >= thr;
}

/* Real time: DLIO's barrier between the ranks' steps, then, at an epoch's
 * start, its loader (main.py: the epoch's loop makes a new iterator). */
static int accel_take(void *self, uint64_t free_at, struct ts_take *b, char *err, size_t errlen)
{
	struct accel *A = self;
	if (A->pipe.pipe) {
		int rc = ts_dlio_mpi_step(err, errlen);
		if (rc)
			return rc;
		if (A->open_next) {
			A->open_next = false;
			A->open_ns = ts_now_ns();
			ts_pipe_open_epoch(A->pipe.pipe);
		}
	}
	return A->pipe.src.take(A->pipe.src.self, free_at, b, err, errlen);
}

static int accel_release(void *self, const struct ts_take *b, uint64_t t, char *err, size_t errlen)
{
	struct accel *A = self;
	return A->pipe.src.release(A->pipe.src.self, b, t, err, errlen);
}

/* AU as DLIO reports it, @busy ns of computation over the @span ns its
 * steps took: 0 where there is no computation (computation_time 0; its
 * steps may then take no time at all, and 0 / 0 is no AU). */
static double au_of(double busy, double span)
{
	return busy > 0 ? busy / span : 0;
}

/* An epoch closes when the next begins (or the run ends). */
static void accel_epoch_close(struct accel *A)
{
	struct ts_dlio_result *r = A->r;
	if (A->cur_epoch == UINT64_MAX || A->in_epoch <= 1)
		return;
	double secs = (double)(A->prev_end - A->first_end) / 1e9;
	double au = au_of((double)(A->in_epoch - 1) * (double)A->ct / 1e9, secs);
	A->au_sum += au;
	A->sps_sum += (double)A->ep_samples / ((double)(A->prev_end - A->ep_start) / 1e9);
	r->au_min = TS_MIN(r->au_min, au);
	r->au_max = TS_MAX(r->au_max, au);
	if (r->epochs < TS_DLIO_EPOCHS_KEPT)
		r->ep[r->epochs] = (struct ts_dlio_epoch){
			.first_s = (double)(A->first_end - A->ep_start) / 1e9,
			.step_s = secs / (double)(A->in_epoch - 1),
			.steps = A->in_epoch,
			.samples = A->ep_samples,
		};
	r->epochs++;
}

/* With stop_below > 0, a run that can no longer reach a mean AU of
 * stop_below stops there (1), r->stopped set and r->au the bound. */
static int accel_step_end(void *self, const struct ts_take *b, const struct ts_step_span *sp,
			  uint64_t end, char *err, size_t errlen)
{
	struct accel *A = self;
	struct ts_dlio_result *r = A->r;
	int rc;
	(void)sp;
	if (b->epoch != A->cur_epoch) {
		accel_epoch_close(A);
		A->cur_epoch = b->epoch;
		A->in_epoch = 0;
		A->ep_samples = 0;
		A->ep_start = A->cur_epoch ? A->open_ns : A->t0;
		A->ep_step0 = A->steps;
	}
	A->steps++;
	if (A->in_epoch == 0)
		A->first_end = end;
	A->ep_samples += b->n;
	A->in_epoch++;
	if (A->in_epoch == A->per_epoch) { /* the epoch's loader ends; the next starts */
		if (A->pipe.pipe) {
			A->open_next = true; /* after the ranks' barrier (accel_take) */
		} else {
			own_epoch_start(A, b->epoch + 1);
			if ((rc = ts_vpipe_open_epoch(A->pipe.vp, end))) {
				snprintf(err, errlen, "virtual loader: %s", ts_strerror(rc));
				return rc;
			}
			A->open_ns = end;
		}
	}
	r->samples += b->n;
	A->prev_end = end;
	if (A->stop_below > 0 && A->in_epoch > 1 && A->ct) {
		const struct ts_dlio_workload *w = A->w;
		uint64_t left = w->epochs > r->epochs + 1 ? w->epochs - r->epochs - 1 : 0;
		/* the epoch's steps: the step limit may end it early */
		uint64_t steps = TS_MIN(A->per_epoch, A->limit - A->ep_step0);
		double reach;
		if (accel_stops(A, steps, left, &reach)) {
			r->n = A->n;
			r->au = reach;
			r->stopped = true;
			if (!r->epochs) /* no epoch's own figure yet */
				r->au_min = r->au_max = reach;
			else
				r->au_done = A->au_sum / (double)r->epochs;
			r->steps = A->per_epoch;
			r->run_s = (double)(A->prev_end - A->t0) / 1e9;
			return 1;
		}
		if (accel_passes(A, steps, left, &reach)) {
			r->n = A->n;
			r->au = r->au_min = r->au_max = reach;
			r->passed = true;
			r->pass_step = A->steps;
			r->steps = A->per_epoch;
			r->run_s = (double)(A->prev_end - A->t0) / 1e9;
			return 1;
		}
	}
	return 0;
}

/* The accelerators' loop over A->pipe (either clock): take, the
 * framework's step, compute, next; the DLIO figures per epoch. */
static int accelerate(struct accel *A, const struct ts_dlio_workload *w, uint64_t n,
		      uint64_t per_epoch, uint64_t t0, uint64_t step_ns, double stop_below,
		      struct ts_dlio_result *r, char *err, size_t errlen)
{
	A->w = w;
	A->r = r;
	A->n = n;
	A->per_epoch = per_epoch;
	A->pm.walked = &r->bound_samples;
	A->t0 = A->prev_end = A->ep_start = t0;
	A->ct = (uint64_t)llround(w->computation_time * 1e9);
	A->step_ns = step_ns;
	A->stop_below = stop_below;
	A->cur_epoch = A->mg_epoch = A->fl[0].epoch = A->fl[1].epoch = UINT64_MAX;
	A->limit = w->total_training_steps >= 0 ? (uint64_t)w->total_training_steps : UINT64_MAX;
	A->next = accel_next(A);
	r->au_min = INFINITY;
	r->au_max = 0;
	double au0;
	int at0 = stop_below > 0 ? accel_passes_at_start(A, &au0) : 0;
	if (at0) { /* decided before its first step: passed, or stopped */
		r->n = n;
		r->au = r->au_min = r->au_max = au0;
		r->passed = at0 > 0;
		r->stopped = at0 < 0;
		r->pass_step = 0;
		r->steps = per_epoch;
		return 0;
	}
	ts_steploop_pipe_init(&A->pipe);
	A->src = (struct ts_steploop_src){ accel_take, accel_release, A };
	struct ts_steploop_ops ops = { .step_end = accel_step_end, .self = A };
	struct ts_steploop L = {
		.src = &A->src, .ops = &ops, .t0 = t0, .real = !A->pipe.vp,
		.limit = A->limit,
		.step_ns = step_ns + A->ct, .spin_ns = step_ns,
	};
	int rc = ts_steploop_run(&L, err, errlen);
	if (rc < 0)
		return rc;
	if (r->stopped || r->passed)
		return 0;
	accel_epoch_close(A);
	if (!r->epochs) {
		snprintf(err, errlen, "every epoch has fewer than 2 steps (%" PRIu64 " per epoch with %"
				      PRIu64 " accelerators): AU leaves the first step out; use more "
				      "files (++workload.dataset.num_files_train=...)",
			 per_epoch, n);
		return -EINVAL;
	}
	r->n = n;
	r->au = A->au_sum / (double)r->epochs;
	r->samples_s = A->sps_sum / (double)r->epochs;
	r->mib_s = r->samples_s * w->record_length / 1048576.0;
	r->steps = per_epoch;
	r->run_s = (double)(A->prev_end - t0) / 1e9;
	return 0;
}

struct env {
	const struct ts_dlio_opts *o;
	const struct ts_dlio_workload *w;
	struct ts_dataset_meta meta; /* virtual: described; real: as on disk */
	struct ts_tier_set *tiers;
	struct ts_mounts ms;
	bool ms_ready;
	char data[4096];	      /* real: the dataset directory */
	char mnt[4096];
	uint64_t seed;
	struct cpu cpu;
	struct sample_bytes sb; /* virtual: the samples' stored bytes, once sb_ready */
	bool sb_ready;
	struct ts_tier_ebs ebs; /* the instance's EBS limits on the tier (all 0: none) */
	bool searching; /* find-max's search: its runs may stop once they cannot miss */
	struct draws_memo dm; /* virtual: the last run's own walk with leaves */
};

/* The limits of the run's drive (its tier at --capacity). */
static int drive_limits(const struct env *E, struct ts_tier_limits *lim)
{
	const struct ts_tier_profile *prof;
	struct ts_tier *t = NULL;
	char err[256];
	int rc = ts_tier_set_lookup(E->tiers, E->o->tier, &prof, err, sizeof(err));
	if (rc)
		return rc;
	struct ts_tier_cfg tc = { .profile = prof, .capacity = E->o->capacity, .seed = 1 };
	if ((rc = ts_tier_new(&tc, &t, err, sizeof(err))))
		return rc;
	ts_tier_limits(t, lim);
	ts_tier_free(t);
	return 0;
}

/* ---- DLIO's PyTorch loader (workloads/dlio_loader.h) ---------------------- */

/* Whether a workload runs on DLIO's PyTorch loader: npz (what unet3d is),
 * jpeg or png files of one sample, or hdf5 files, read by data_loader
 * pytorch. The rest runs on the project's loader, as above. */
static bool torch_loader(const struct ts_dlio_workload *w)
{
	return !strcmp(w->data_loader, "pytorch") && strcmp(w->format, "tfrecord") &&
	       (w->num_samples_per_file == 1 || !strcmp(w->format, "hdf5"));
}

/* Whether a workload runs on DLIO's TensorFlow loader as dlio_loader.h
 * models it (virtual time, TFRecord files, on a host whose vcpus bound its
 * readers, parse and steps); without vcpus the project's loader reads it. */
static bool tf_cores(const struct env *E)
{
	const struct ts_dlio_workload *w = E->w;
	return E->o->virtual_time && E->cpu.vcpus && !strcmp(w->data_loader, "tensorflow") &&
	       !strcmp(w->format, "tfrecord");
}

/* torch_data_loader.py: prefetch_factor = ceil(prefetch_size / read_threads)
 * (prefetch_size itself with no workers), 2 when that is 0. */
static uint64_t torch_prefetch(const struct ts_dlio_workload *w)
{
	uint64_t t = w->read_threads;
	uint64_t pf = t ? (w->prefetch_size + t - 1) / t : w->prefetch_size;
	return pf ? pf : 2;
}

static void dl_config(const struct env *E, uint64_t ranks, uint64_t rank0, uint64_t world,
		      struct ts_dl_cfg *c)
{
	const struct ts_dlio_workload *w = E->w;
	*c = (struct ts_dl_cfg){
		.meta = &E->meta, .ranks = ranks, .rank0 = rank0, .world = world,
		.batch = w->batch_size,
		/* no workers: the training process reads, one batch at a time */
		.workers = w->read_threads ? w->read_threads : 1,
		.prefetch_factor = w->read_threads ? torch_prefetch(w) : 1,
		.epochs = w->epochs,
		.steps = w->total_training_steps >= 0 ? (uint64_t)w->total_training_steps : 0,
		.shuffle = strcmp(w->sample_shuffle, "off") || strcmp(w->file_shuffle, "off"),
		.seed = E->seed,
		.compute_ns = (uint64_t)llround(w->computation_time * 1e9),
		.step_ns = E->cpu.step_ns,
		.sample_ns = (uint64_t)llround(E->cpu.sample_ns),
		.sample_ns_per_mib = E->cpu.per_mib,
		.jpeg_ns_per_mpix = E->cpu.jpeg_per_mpix,
		.vcpus = E->cpu.vcpus,
		.request_ns = (uint64_t)llround(E->cpu.req_ns),
		.request_ns_per_mib = E->cpu.req_per_mib,
		.request_daemon_ns = (uint64_t)llround(E->cpu.daemon_ns),
		.request_daemon_ns_per_mib = E->cpu.daemon_per_mib,
		.request_wait_ns = (uint64_t)llround(E->cpu.wait_ns),
		.run_request_ns = (uint64_t)llround(E->cpu.run_ns),
		.start_ns = (uint64_t)llround(E->cpu.start_ns),
		.restart_ns = (uint64_t)llround(E->cpu.restart_ns),
		.worker_gc_ns = (uint64_t)llround(E->cpu.gc_ns),
		.worker_gc_at = (uint64_t)llround(E->cpu.gc_at),
		.collate_ns = (uint64_t)llround(E->cpu.collate_ns),
		.collate_fresh_ns = (uint64_t)llround(E->cpu.collate_fresh_ns),
		.spread = E->cpu.spread,
		.spread_wait = E->cpu.spread_wait,
		.cpu_alone = E->cpu.cpu_alone,
		.core_slice_ns = (uint64_t)llround(E->cpu.slice_ns),
		/* DLIO 2.0.0: either value given keeps files open (dlio_loader.h) */
		.keep_open = w->read_type && *w->read_type,
	};
}

/* DLIO 2.0.0's figures (utils/statscounter.py): per rank and epoch, AU =
 * the compute of every step but the first over the epoch's time less the
 * first step's (from the loader's start to the end of that step's compute),
 * samples/s = every step's samples over the whole epoch's time (the first
 * step included); the epoch's AU is the mean over ranks and its samples/s
 * the sum; the run's, the means over epochs. */
static int dl_figures(const struct ts_dl_result *d, const struct ts_dlio_workload *w,
		      uint64_t ranks, uint64_t n, struct ts_dlio_result *r, char *err, size_t errlen)
{
	double ct = w->computation_time * 1e9;
	double au_sum = 0, sps_sum = 0;
	if (d->steps < 2) {
		snprintf(err, errlen, "every epoch has fewer than 2 steps (%" PRIu64 " per epoch with %"
				      PRIu64 " accelerators): AU leaves the first step out; use more "
				      "files (++workload.dataset.num_files_train=...)", d->steps, n);
		return -EINVAL;
	}
	r->au_min = INFINITY;
	r->au_max = 0;
	for (uint64_t e = 0; e < d->epochs; e++) {
		const struct ts_dl_epoch *ep = &d->ep[e];
		double ea = 0;
		for (uint64_t k = 0; k < ranks; k++) {
			double au = au_of((double)(d->steps - 1) * ct, (double)(ep->end - ep->first_end[k]));
			ea += au;
			r->au_min = TS_MIN(r->au_min, au);
			r->au_max = TS_MAX(r->au_max, au);
		}
		au_sum += ea / (double)ranks;
		sps_sum += (double)ranks * (double)(d->steps * w->batch_size) /
			   ((double)(ep->end - ep->start) / 1e9);
		if (e < TS_DLIO_EPOCHS_KEPT) { /* the ranks' mean first step */
			double first = 0;
			for (uint64_t k = 0; k < ranks; k++)
				first += (double)(ep->first_end[k] - ep->start) / (double)ranks;
			r->ep[e] = (struct ts_dlio_epoch){
				.first_s = first / 1e9,
				.step_s = ((double)(ep->end - ep->start) - first) /
					  (double)(d->steps - 1) / 1e9,
				.steps = d->steps,
				.samples = ranks * d->steps * w->batch_size,
			};
		}
	}
	r->n = n;
	r->epochs = d->epochs;
	r->steps = d->steps;
	r->au = d->epochs ? au_sum / (double)d->epochs : 0;
	r->samples_s = d->epochs ? sps_sum / (double)d->epochs : 0;
	r->mib_s = r->samples_s * w->record_length / 1048576.0;
	r->samples = d->samples;
	r->read_bytes = d->read_bytes;
	r->read_requests = d->read_requests + d->meta_requests;
	r->events = d->events;
	if (d->epochs)
		r->run_s = (double)(d->ep[d->epochs - 1].end - d->ep[0].start) / 1e9;
	return 0;
}

/* Virtual time: a run that can no longer reach metric.au stops (stop_early). */
struct dl_stop {
	const struct ts_dlio_workload *w;
	uint64_t ranks, steps, step_ns;
	double cap;  /* the drive's read cap, bytes/s (ts_tier_read_cap; 0: none) */
	double mem;  /* the page cache's bytes */
	double below, sum, reach;
};

/* The least an epoch's last step can end at: the loader reads its
 * payload after its start (dlio_loader.h), from the drive but for what
 * the page cache held then (at most its size; nothing before the first
 * epoch: a run's cache starts empty), at the rate limits' pace
 * (tier.h), and the last step computes after its batch is read. */
static double dl_epoch_floor(const struct dl_stop *s, uint64_t e, const struct ts_dl_epoch *ep,
			     double ct)
{
	double need = (double)ep->payload - (e ? s->mem : 0);
	return drive_floor((double)ep->start, s->cap > 0 && need > 0 ? need / s->cap * 1e9 : 0,
			   (double)s->step_ns, ct);
}

static int dl_stop_fn(void *ctx, uint64_t e, uint64_t j, const struct ts_dl_epoch *ep,
		      uint64_t bar)
{
	struct dl_stop *s = ctx;
	const uint64_t *fe = ep->first_end;
	double ct = s->w->computation_time * 1e9;
	uint64_t fmax = 0;
	for (uint64_t k = 0; k < s->ranks; k++)
		fmax = TS_MAX(fmax, fe[k]);
	if (j >= 1 && ct > 0) {
		/* every rank's AU is at most the one whose first step ended last */
		uint64_t left = s->w->epochs > e + 1 ? s->w->epochs - e - 1 : 0;
		double floor = dl_epoch_floor(s, e, ep, ct) - (double)fmax;
		double reach = au_reach(s->sum, e, j + 1, (double)(bar - fmax), ct,
					(double)s->step_ns, s->steps, left, floor, 1);
		if (reach < s->below - 1e-9) {
			s->reach = reach;
			return 1;
		}
	}
	if (j + 1 == s->steps) {
		double ea = 0;
		for (uint64_t k = 0; k < s->ranks; k++)
			ea += (double)(s->steps - 1) * ct / (double)(bar - fe[k]);
		s->sum += ea / (double)s->ranks;
	}
	return 0;
}

/* The run's tier model, freed: what bound its requests, into @r. */
static void vtier_end(struct ts_vtier *vt, struct ts_dlio_result *r)
{
	struct ts_tier_stats st;
	ts_tier_stats(vt->tier, &st);
	memcpy(r->bound, st.bound, sizeof(r->bound));
	ts_vtier_free(vt);
}

/* The longest a device draw of @d can take, ns (device.c: a lognormal's
 * normal comes from the ziggurat, at most TS_RNG_ZIG_MAX; a stall adds at
 * most its top), with room for the rounding of exp and of the draw. */
static double dist_max_ns(const struct ts_tier_dist *d)
{
	double v = 0;
	switch (d->kind) {
	case TS_TIER_DIST_FIXED: v = d->p50_ns; break;
	case TS_TIER_DIST_LOGNORMAL:
		v = d->p99_ns > d->p50_ns
			    ? d->p50_ns * exp(log(d->p99_ns / d->p50_ns) / TS_Z99 * TS_RNG_ZIG_MAX)
			    : d->p50_ns;
		break;
	case TS_TIER_DIST_UNIFORM: v = TS_MAX(d->lo_ns, d->hi_ns); break;
	case TS_TIER_DIST_NONE: break;
	}
	if (d->stall_p > 0)
		v += TS_MAX(d->stall_lo_ns, d->stall_hi_ns);
	return v * (1 + 1e-9) + 2;
}

/* A read of @len bytes' cost on the slowest rate each limit of @m runs
 * at (rate.c's admit_fixed and admit_burst), ns, and its credits (*@bcost). */
static double read_cost_ns(const struct ts_tier_profile *p, const struct ts_tier_limits *m,
			   double len, double *bcost)
{
	double ios = m->io_unit ? ceil(len / (double)m->io_unit) : 1;
	double bytes = p->charge_full_unit && m->io_unit ? ios * (double)m->io_unit : len;
	double iops = m->burst == TS_TIER_BURST_IOPS ? m->burst_iops : m->iops, bw = m->bps;
	if (m->burst == TS_TIER_BURST_BYTES)
		bw = m->burst_bps;
	else if (m->burst == TS_TIER_BURST_IOPS && m->burst_bps > 0)
		bw = bw > 0 ? TS_MIN(bw, m->burst_bps) : m->burst_bps;
	double d = 0;
	const double r[4] = { iops, m->read_iops, bw, m->read_bps }, c[4] = { ios, ios, bytes, bytes };
	for (int i = 0; i < 4; i++)
		if (r[i] > 0)
			d = TS_MAX(d, c[i] / r[i] * 1e9);
	*bcost = m->burst == TS_TIER_BURST_IOPS ? ios : m->burst == TS_TIER_BURST_BYTES ? bytes : 0;
	if (*bcost > 0 && m->bucket_refill > 0)
		d = TS_MAX(d, *bcost / m->bucket_refill * 1e9);
	return d;
}

/* How far apart in the order two samples' reads that merge can lie, where
 * pass_draws's rules hold (a sample one read, issued when the loader
 * claims it, at most qd in flight), on a tier that charges a read its
 * bytes (not charge_full_unit) under a bandwidth limit: at most @cap bytes/s
 * (ts_tier_read_cap), reads of at least @least bytes; 0: no bound.
 * Read j joins read i's stream only while i is served (rate.c: until, its
 * completion e_i), so j, and every sample between, was claimed by e_i,
 * and when j was claimed at most qd of them were in flight: the rest
 * completed by e_i. Those were claimed after i, so where i's chain has no
 * extent-tree leaf their reads reached the limits after i's: each moved
 * the limit's tat by its bytes over at most @cap, and the last of C of
 * them was admitted no sooner than tat - TS_TIER_RATE_TOLERANCE_NS, at
 * least C x @least / @cap - tolerance after i's admission a_i (rate.c's
 * GCRA), and by e_i <= a_i + lam (pass_bound's rule; a_i rounded up by
 * one ns at most). So j lies at most qd + C after i, C <= (lam + 1 +
 * tolerance) @cap / @least. A chain with a leaf may arrive later than
 * the samples claimed after it; each such read joins at most one read
 * and is joined by at most one (rate.c: a stream is taken once), so at
 * most 2 x leaves merges lie farther apart. */
static uint64_t merge_window(struct pass_model *m, const struct ts_tier_profile *p, double cap,
			     double least)
{
	if (!m->seq || p->charge_full_unit || !(cap > 0) || !(least >= 1))
		return 0;
	m->mw_cap = cap;
	m->mw_least = least;
	return merge_reach(m, m->lam);
}

/* Find-max's early pass (accel_passes): where pass_bound's rules hold for
 * this run, the figures it needs into @A->pm (ok false elsewhere). */
static void pass_model_of(const struct env *E, struct accel *A, const struct ts_tier_profile *p,
			  const struct ts_tier_limits *lim, const struct ts_fsmeta_params *fs,
			  struct ts_vtier *vt, uint64_t qd, uint64_t workers)
{
	struct pass_model *m = &A->pm;
	*m = (struct pass_model){ .next_check = 2, .au_next = -1 };
	if (!E->searching || E->o->mem || workers || lim->parallel || p->cap_window_ns > 0 ||
	    ts_tier_ebs_any(&E->ebs) || !A->pipe.vp || !qd || !A->window || A->window > 1024 ||
	    !E->meta.samples)
		return;
	struct ts_vsample sm;
	ts_vpipe_plan(A->pipe.vp, 0, &sm);
	if (sm.n != 1 || sm.io[0].op != TS_VIO_READ)
		return; /* an open's lookups, more than one read: not what the bound knows */
	double maxlen = E->sb_ready ? E->sb.max : -1;
	if (!(maxlen >= 0))
		return;
	uint64_t chunk = sm.io[0].chunk;
	m->nreq = chunk && maxlen > (double)chunk ? (uint64_t)ceil(maxlen / (double)chunk) : 1;
	double part = chunk ? TS_MIN(maxlen, (double)chunk) : maxlen, bcost, bleaf;
	m->delta = read_cost_ns(p, lim, part, &bcost);
	m->delta_leaf = fs ? read_cost_ns(p, lim, (double)fs->block, &bleaf) : 0;
	if (lim->burst != TS_TIER_BURST_NONE && lim->bucket_refill > 0)
		m->rho = TS_MAX(TS_MIN(TS_MAX(bcost, fs ? bleaf : 0), lim->bucket_size), 0) /
			 lim->bucket_refill * 1e9;
	/* a credit wait past the tolerance moves X by it too (rate.c) */
	double extra = TS_MAX(m->rho - TS_TIER_RATE_TOLERANCE_NS, 0);
	m->delta += extra;
	m->delta_leaf += extra;
	double lam_read = dist_max_ns(&p->lat_read), lam_meta = dist_max_ns(&p->lat_meta);
	m->lam = TS_MAX(TS_MAX(lam_read, lam_meta), TS_MAX(m->delta, m->delta_leaf)) + 2;
	if (fs && fs->extent_bytes && fs->leaf_extents)
		for (size_t f = 0; f < E->meta.nfiles; f++) {
			double b = (double)E->meta.files[f].bytes;
			if (b > (double)fs->extent_bytes * fs->inline_extents)
				m->leaves += (uint64_t)ceil(b / ((double)fs->extent_bytes *
								 fs->leaf_extents));
		}
	m->tier = vt->tier;
	m->qd = qd;
	m->pf = A->window;
	m->ok = true;
	/* pass_draws: a sample one request of some bytes (each reaches the
	 * device); its own draws where device.c draws the latency as
	 * draw_lat_of does */
	const struct ts_tier_dist *d = &p->lat_read;
	bool logn = d->kind == TS_TIER_DIST_LOGNORMAL && d->p99_ns > d->p50_ns;
	if (m->nreq == 1 && E->sb.min >= 1) {
		struct ts_vpipe_stats vs;
		struct ts_tier_stats ts;
		ts_vpipe_stats(A->pipe.vp, &vs);
		ts_tier_stats(vt->tier, &ts);
		m->seq = true;
		m->draws = logn || (d->kind == TS_TIER_DIST_FIXED && !(d->stall_p > 0));
		m->lat = d;
		double sigma = logn ? log(d->p99_ns / d->p50_ns) / TS_Z99 : 0;
		for (int q = 0; m->draws && q < (int)TS_ARRAY_SIZE(m->ex); q++) /* exp's rounding: 1e-9 up */
			m->ex[q] = d->p50_ns * exp(sigma * (q / 64.0 - TS_RNG_ZIG_MAX)) * (1 + 1e-9);
		m->rr0 = vs.read_requests;
		m->tr0 = ts.op[TS_TIER_READ].count;
		m->or0 = ts.op[TS_TIER_META].count + ts.op[TS_TIER_WRITE].count;
		m->draws_epoch = UINT64_MAX;
		m->ep_epoch = UINT64_MAX;
		m->mwin = merge_window(m, p, ts_tier_read_cap(lim), E->sb.min);
		if (m->draws) { /* the run's first epoch: nothing claimed yet */
			ts_tier_lat_rng(vt->tier, &m->ep_rng);
			m->ep_epoch = 0;
		}
	}
}

static int run_virtual(struct env *E, uint64_t n, double stop_below, struct ts_dlio_result *r,
		       char *err, size_t errlen)
{
	struct ts_vtier vt;
	memset(r, 0, sizeof(*r));
	/* the run reads what bound the model's requests, not their latencies */
	struct ts_tier_cfg tc = { .capacity = E->o->capacity, .mem = E->o->mem, .seed = E->seed,
				  .ebs = E->ebs, .no_lat = true };
	const struct ts_fsmeta_params *fs;
	int rc = ts_tier_set_lookup(E->tiers, E->o->tier, &tc.profile, err, errlen);
	if (!rc)
		rc = ts_tier_set_fs_lookup(E->tiers, TS_FSMETA_NAME, &fs, err, errlen);
	if (rc)
		return rc;
	if ((rc = ts_vtier_new(&vt, &tc, fs, 0, err, errlen)))
		return rc;
	bool tf = tf_cores(E);
	if (torch_loader(E->w) || tf) {
		uint64_t w0 = ts_now_ns();
		struct ts_dl_cfg c;
		struct ts_dl_result d;
		struct ts_vdisk disk = { ts_vtier_vio, &vt, NULL };
		struct dl_stop st = { .w = E->w, .ranks = n, .steps = 0, .step_ns = E->cpu.step_ns,
				      .mem = (double)E->o->mem, .below = stop_below };
		struct ts_tier_limits lim;
		if (stop_below > 0 && !drive_limits(E, &lim))
			st.cap = ts_tier_read_cap(&lim);
		dl_config(E, n, 0, n, &c);
		c.coalesce = E->o->mem > 0;
		c.fs = fs; /* its opens as tierfs charges them (dlio_loader.h) */
		st.steps = tf ? ts_dl_tf_steps(&c) : ts_dl_steps(&c);
		if (tf) { /* tf_reader.py: its read threads, window and requests */
			c.workers = E->w->read_threads ? E->w->read_threads : 1;
			c.window = TS_MAX(E->w->prefetch_size + E->w->computation_threads, 1);
			c.transfer_size = E->w->transfer_size;
		}
		rc = tf ? ts_dl_run_tf_virtual(&c, &disk, stop_below > 0 ? dl_stop_fn : NULL, &st, &d,
					       err, errlen)
			: ts_dl_run_virtual(&c, &disk, stop_below > 0 ? dl_stop_fn : NULL, &st, &d,
					    err, errlen);
		if (rc == 1) { /* stopped: its AU is the bound */
			r->n = n;
			r->au = r->au_min = r->au_max = st.reach;
			r->stopped = true;
			r->steps = d.steps;
			r->epochs = d.epochs ? d.epochs - 1 : 0;
			r->au_done = r->epochs ? st.sum / (double)r->epochs : 0;
			r->run_s = (double)d.ep[d.epochs - 1].end / 1e9;
			r->read_requests = d.read_requests + d.meta_requests;
			r->read_bytes = d.read_bytes;
			r->samples = d.samples; /* read by then: throughput_hint's */
			r->events = d.events;
			rc = 0;
		} else if (!rc) {
			rc = dl_figures(&d, E->w, n, n, r, err, errlen);
		}
		ts_dl_result_free(&d);
		r->wall_s = (double)(ts_now_ns() - w0) / 1e9;
		vtier_end(&vt, r);
		return rc;
	}
	struct ts_pipe_cfg pc;
	struct accel f = { 0 };
	uint64_t w0 = ts_now_ns();
	uint64_t workers = E->cpu.workers * n;
	struct ts_decode_cal cal = { .sample_ns = E->cpu.sample_ns,
				     .sample_ns_per_mib = E->cpu.per_mib };
	snprintf(cal.cpu, sizeof(cal.cpu), "host %s", E->o->host ? E->o->host : "-");
	if (!(rc = pipe_config(E->w, n, E->seed, "", workers, &pc, err, errlen))) {
		/* its opens through the file system's rule, as the loaders' (ds_dlio.h) */
		struct ts_vdisk disk = { ts_vtier_vio, &vt, .fs = fs };
		rc = ts_vpipe_new(&pc, &E->meta, &disk, workers ? &cal : NULL, &f.pipe.vp, err, errlen);
	}
	struct ts_tier_limits lim;
	struct ts_tier_read_ios ios = { 0 };
	bool lim_ok = !rc && stop_below > 0 && !drive_limits(E, &lim);
	if (lim_ok)
		ts_tier_read_ios(tc.profile, &lim, &ios);
	if (lim_ok && (ts_tier_read_cap(&lim) > 0 || ios.peak > 0)) {
		if (!E->sb_ready)
			sample_bytes_of(&E->meta, &E->sb);
		E->sb_ready = true;
		f.cap = ts_tier_read_cap(&lim);
		/* a sample of no bytes reads nothing */
		if (E->sb.min >= 1)
			f.ios = ios;
		f.io_unit = lim.io_unit;
		f.mem = (double)E->o->mem;
		f.sb = &E->sb;
		f.window = pc.prefetch;
		pass_model_of(E, &f, tc.profile, &lim, fs, &vt, pc.qd, workers);
		f.pm.memo = &E->dm;
	}
	if (!rc)
		rc = accelerate(&f, E->w, n, ts_vpipe_batches_per_epoch(f.pipe.vp),
				ts_vpipe_start_ns(f.pipe.vp), E->cpu.step_ns, stop_below, r, err, errlen);
	if (f.pipe.vp) {
		struct ts_vpipe_stats vs;
		ts_vpipe_stats(f.pipe.vp, &vs);
		r->read_bytes = vs.read_bytes;
		r->read_requests = vs.read_requests + vs.meta_requests;
		r->events = vs.samples + 2 * vs.batches; /* read done, take, release */
	}
	r->wall_s = (double)(ts_now_ns() - w0) / 1e9;
	ts_vpipe_merges_free(f.mg);
	ts_vpipe_free(f.pipe.vp);
	ts_opt_free(ts_pipe_opts, &pc);
	vtier_end(&vt, r);
	return rc;
}

/* Under mpirun: this rank's shard of the samples (workloads/dlio_mpi.h). */
static int ranks_shard(const struct ts_dlio_workload *w, struct ts_pipe_cfg *pc, char *err,
		       size_t errlen)
{
	if (!ts_dlio_mpi_ranks())
		return 0;
	return ts_dlio_mpi_shard(w->num_files_train * w->num_samples_per_file, w->batch_size,
				 &pc->first, &pc->count, err, errlen);
}

/* Under mpirun: the ranks' figures as DLIO reduces them (statscounter.py's
 * end_run: AU the mean over ranks, samples/s the sum), so that every rank
 * holds the run's; also the barrier before rank 0 unmounts. */
static int ranks_reduce(int rc, struct ts_dlio_result *r, const struct ts_dlio_workload *w, uint64_t n,
			char *err, size_t errlen)
{
	if (!ts_dlio_mpi_ranks())
		return rc;
	struct ts_dlio_mpi_vals v = {
		.sum = { r->au, r->samples_s, (double)r->samples, (double)r->read_bytes,
			 (double)r->read_requests, (double)r->events },
		.max = { r->au_max, r->wall_s, r->run_s, (double)r->epochs },
		.min = { r->au_min, (double)r->epochs },
	};
	if ((rc = ts_dlio_mpi_sync(rc, &v, err, errlen)))
		return rc;
	if (v.max[3] != v.min[1]) {
		snprintf(err, errlen, "the ranks ran %.0f to %.0f epochs", v.min[1], v.max[3]);
		return -EPROTO;
	}
	r->n = n;
	r->au = v.sum[0] / ts_dlio_mpi_ranks();
	r->samples_s = v.sum[1];
	r->mib_s = r->samples_s * w->record_length / 1048576.0;
	r->samples = (uint64_t)v.sum[2];
	r->read_bytes = (uint64_t)v.sum[3];
	r->read_requests = (uint64_t)v.sum[4];
	r->events = (uint64_t)v.sum[5];
	r->au_max = v.max[0]; /* the range over ranks and epochs */
	r->au_min = v.min[0];
	r->wall_s = v.max[1];
	r->run_s = v.max[2];
	return 0;
}

/* Block mode: the dataset's image (made once, at DATA.FS/data.FS) mounted
 * on E->mnt by tiersim disk mount; with --mem, the process moved into a
 * memory cgroup of that size for the run (its loader's threads read
 * through the kernel's page cache of an instance of that memory). */
static int disk_up(struct env *E, struct ts_cgroup *cg, char *err, size_t errlen)
{
	char dir[4200], image[4300];
	uint64_t size;
	int rc;
	snprintf(dir, sizeof(dir), "%s.%s", E->data, E->o->fs);
	snprintf(image, sizeof(image), "%s/data.%s", dir, E->o->fs);
	if (access(image, F_OK)) {
		struct ts_disk_make_opts mk = { .image = image, .fs = E->o->fs, .from = E->data };
		if ((rc = ts_mkdir_p(dir, 0755, NULL, 0))) {
			snprintf(err, errlen, "--fs: cannot make %s: %s", dir, strerror(-rc));
			return rc;
		}
		if ((rc = ts_disk_size_for(E->data, E->o->fs, &size, NULL, err, errlen)))
			return rc;
		mk.size = size;
		if ((rc = ts_disk_make(&mk, err, errlen)))
			return rc;
	}
	if (mkdir(E->mnt, 0755) && errno != EEXIST) {
		snprintf(err, errlen, "cannot make %s: %s", E->mnt, strerror(errno));
		return -errno;
	}
	struct ts_disk_mount_opts m = {
		.tierfs = E->ms.tierfs, .image = image, .mountpoint = E->mnt, .tier = E->o->tier,
		.profile = E->o->profile, .capacity = E->o->capacity, .mem = E->o->mem,
		.trace = E->o->trace,
	};
	if ((rc = ts_disk_mount(&m, err, errlen))) {
		rmdir(E->mnt);
		return rc;
	}
	if (E->o->mem) {
		char name[64];
		snprintf(name, sizeof(name), "dlio-%ld", (long)getpid());
		if ((rc = ts_cgroup_open(cg, name, E->o->mem, err, errlen)) ||
		    (rc = ts_cgroup_enter(cg, 0))) {
			if (rc != -ENODEV && !err[0])
				snprintf(err, errlen, "cannot enter the memory cgroup: %s",
					 strerror(-rc));
			char ignore[256];
			ts_cgroup_remove(cg);
			(void)!ts_disk_umount(E->mnt, ignore, sizeof(ignore));
			rmdir(E->mnt);
			return rc;
		}
	}
	return 0;
}

static int disk_down(struct env *E, struct ts_cgroup *cg, char *err, size_t errlen)
{
	int rc = 0;
	if (cg->path) {
		if (ts_cgroup_leave(cg)) {
			/* still removed below once empty; the run is over */
		}
		ts_cgroup_remove(cg);
	}
	rc = ts_disk_umount(E->mnt, err, errlen);
	rmdir(E->mnt);
	return rc;
}

static int run_real(struct env *E, uint64_t n, struct ts_dlio_result *r, char *err, size_t errlen)
{
	memset(r, 0, sizeof(*r));
	char opts[512], path[4200], sub[1024];
	snprintf(opts, sizeof(opts), "tier=%s,seed=%" PRIu64 ",mem=%" PRIu64 "%s", E->o->tier,
		 E->seed, E->o->mem, E->o->capacity ? ",capacity=" : "");
	if (E->o->capacity) {
		size_t l = strlen(opts);
		snprintf(opts + l, sizeof(opts) - l, "%" PRIu64, E->o->capacity);
	}
	if (E->o->trace) {
		size_t l = strlen(opts);
		snprintf(opts + l, sizeof(opts) - l, ",trace=%s", E->o->trace);
	}
	size_t l = strlen(opts);
	if (ts_mount_ebs_opts(&E->ebs, opts + l, sizeof(opts) - l) >= sizeof(opts) - l) {
		snprintf(err, errlen, "tierfs options too long");
		return -ENAMETOOLONG;
	}
	/* Under mpirun rank 0 mounts for all, each rank is one accelerator
	 * reading its shard (workloads/dlio_mpi.h); the mount stays until all are done. */
	struct ts_mount *m = NULL;
	struct ts_cgroup cg = { 0 };
	int rc = E->o->fs		 ? disk_up(E, &cg, err, errlen)
		 : ts_dlio_mpi_owner() ? ts_mount_start(&E->ms, E->data, E->mnt, opts, &m, err, errlen)
					 : 0;
	if ((rc = ts_dlio_mpi_sync(rc, NULL, err, errlen)))
		return rc;
	uint64_t local = ts_dlio_mpi_ranks() ? 1 : n;
	struct ts_pipe_cfg pc = { 0 };
	struct accel f = { 0 };
	snprintf(path, sizeof(path), "%s/train", E->mnt);
	uint64_t w0 = ts_now_ns();
	if (torch_loader(E->w)) {
		struct ts_dl_cfg c;
		struct ts_dl_result d;
		uint64_t world = ts_dlio_mpi_ranks() ? (uint64_t)ts_dlio_mpi_ranks() : n;
		dl_config(E, local, (uint64_t)ts_dlio_mpi_rank(), world, &c);
		c.dir = path;
		/* ranks but 0: the description from the mount, as a source reads it */
		if (!E->meta.samples)
			rc = ts_dataset_open(E->mnt, &E->meta, err, errlen);
		if (!rc)
			rc = ts_dl_run_real(&c, ts_dlio_mpi_step, &d, err, errlen);
		else
			memset(&d, 0, sizeof(d));
		if (!rc)
			rc = dl_figures(&d, E->w, local, n, r, err, errlen);
		ts_dl_result_free(&d);
	} else if (!(rc = pipe_config(E->w, local, E->seed, path, 0, &pc, err, errlen)) &&
	    !(rc = ranks_shard(E->w, &pc, err, errlen)) &&
	    !(rc = ts_pipe_new(&pc, &f.pipe.pipe, err, errlen)) && (rc = ts_pipe_start(f.pipe.pipe)))
		snprintf(err, errlen, "loader: %s", ts_pipe_error(f.pipe.pipe));
	if (!rc && f.pipe.pipe)
		rc = accelerate(&f, E->w, local, ts_pipe_batches_per_epoch(f.pipe.pipe), ts_now_ns(),
				E->cpu.step_ns, 0, r, err, errlen);
	if (f.pipe.pipe) {
		struct ts_pipe_stats ps;
		ts_pipe_stats(f.pipe.pipe, &ps);
		r->read_bytes = ps.reader.bytes;
		ts_pipe_free(f.pipe.pipe);
	}
	r->wall_s = (double)(ts_now_ns() - w0) / 1e9;
	ts_opt_free(ts_pipe_opts, &pc);
	rc = ranks_reduce(rc, r, E->w, n, err, errlen);
	int src = E->o->fs ? disk_down(E, &cg, sub, sizeof(sub))
		  : m	      ? ts_mount_stop(&E->ms, m, sub, sizeof(sub))
			      : 0;
	if (src && !rc) {
		snprintf(err, errlen, "%s", sub);
		rc = src;
	}
	return rc;
}

static int run_one(struct env *E, uint64_t n, double stop_below, struct ts_dlio_result *r, char *err,
		   size_t errlen)
{
	int rc = E->o->virtual_time ? run_virtual(E, n, stop_below, r, err, errlen)
				    : run_real(E, n, r, err, errlen);
	if (!rc && !E->o->quiet && r->stopped)
		fprintf(stderr, "  %" PRIu64 " accelerator%s: AU at most %.2f%% after %.1f s "
				"modeled: stopped\n", n, n == 1 ? "" : "s", 100 * r->au, r->run_s);
	else if (!rc && !E->o->quiet)
		fprintf(stderr, "  %" PRIu64 " accelerator%s: AU %.2f%%, %.1f samples/s, %.1f MiB/s "
				"(%.1f s %s)\n", n, n == 1 ? "" : "s", 100 * r->au, r->samples_s,
			r->mib_s, E->o->virtual_time ? r->run_s : r->wall_s,
			E->o->virtual_time ? "modeled" : "run");
	return rc;
}

#define MAX_ACCEL 4096 /* --accelerators' upper end: the searches stop there */

/* --find-max as submitters search, every run whole: grow N until AU falls
 * under the threshold, then bisect between the last pass and the first
 * miss (--search doubling). */
static int find_max_doubling(struct env *E, struct ts_dlio_outcome *oc, char *err, size_t errlen)
{
	int rc = 0;
	uint64_t lo_n = 0, hi_n = 0, n = 1;
	while (oc->nr < TS_ARRAY_SIZE(oc->rs) &&
	       !(rc = run_one(E, n, 0, &oc->rs[oc->nr], err, errlen))) {
		if (oc->rs[oc->nr].au >= E->w->au)
			lo_n = n, oc->best = &oc->rs[oc->nr];
		else
			hi_n = n;
		oc->nr++;
		if (!hi_n && n >= MAX_ACCEL)
			break;
		if (hi_n && hi_n - lo_n <= 1)
			break;
		n = hi_n ? lo_n + (hi_n - lo_n) / 2 : 2 * n;
	}
	return rc;
}

/* The most accelerators a hint names: each epoch needs two steps for an
 * AU (the first is left out), and the doubling search never goes past a
 * count that has them unless every smaller one passed. */
static uint64_t hint_cap(const struct ts_dlio_workload *w)
{
	uint64_t samples = w->num_files_train * w->num_samples_per_file;
	uint64_t cap = w->batch_size ? samples / (2 * w->batch_size) : MAX_ACCEL;
	return TS_MAX(TS_MIN(cap, MAX_ACCEL), 1);
}

/* How long a run of @n accelerators lasts at the threshold, seconds: its
 * steps (every epoch's full batches, at most total_training_steps) at
 * computation_time / metric.au each. 0 when that is not known. */
static double run_secs(const struct ts_dlio_workload *w, double n)
{
	double samples = (double)w->num_files_train * (double)w->num_samples_per_file;
	double per_epoch = n >= 1 && w->batch_size
				   ? floor(samples / (floor(n) * (double)w->batch_size)) : 0;
	double steps = per_epoch * (double)w->epochs;
	if (w->total_training_steps >= 0)
		steps = TS_MIN(steps, (double)w->total_training_steps);
	return w->au > 0 ? steps * w->computation_time / w->au : 0;
}

/* Accelerators the drive's bandwidth and its IOPS can feed at the
 * threshold: each takes batch_size x record_length bytes, in
 * ceil(record_length / transfer_size) reads of ceil(read / io_unit) I/Os
 * (read in the stored order, on a tier that merges sequential reads:
 * record_length / io_unit), per computation_time at AU 1. An estimate to
 * start from (the runs decide), 0 when the tier sets neither limit. */
static uint64_t bandwidth_hint(const struct env *E)
{
	const struct ts_dlio_workload *w = E->w;
	struct ts_tier_limits lim;
	if (drive_limits(E, &lim))
		return 0;
	double bps = lim.read_bps > 0 ? lim.read_bps : lim.bps;
	if (lim.burst == TS_TIER_BURST_BYTES && lim.burst_bps > bps)
		bps = lim.burst_bps;
	double iops = lim.burst == TS_TIER_BURST_IOPS ? TS_MAX(lim.burst_iops, lim.iops) : lim.iops;
	double rec = TS_MAX(w->record_length, 1);
	double reads = w->transfer_size ? ceil(rec / (double)w->transfer_size) : 1;
	double ios = reads * (lim.io_unit ? ceil(rec / reads / (double)lim.io_unit) : 1);
	/* samples read in their stored order merge into whole units */
	const struct ts_tier_profile *prof;
	char sub[256];
	if (lim.io_unit && !ts_tier_set_lookup(E->tiers, E->o->tier, &prof, sub, sizeof(sub)) &&
	    prof->merge_sequential && !strcmp(w->sample_shuffle, "off") &&
	    !strcmp(w->file_shuffle, "off"))
		ios = rec / (double)lim.io_unit;
	double per_io = w->au * (double)w->batch_size * ios / w->computation_time;
	/* An IOPS burst lasts while its bucket does: over a run of T seconds
	 * (its steps at the threshold, at the count the baseline feeds) it
	 * adds at most bucket / T I/Os a second to the baseline. */
	double t = per_io > 0 ? run_secs(w, lim.iops / per_io) : 0;
	if (lim.burst == TS_TIER_BURST_IOPS && lim.iops > 0 && lim.bucket_size > 0 && t > 0)
		iops = TS_MIN(iops, lim.iops + lim.bucket_size / t);
	if (lim.read_iops > 0 && (!(iops > 0) || lim.read_iops < iops))
		iops = lim.read_iops;
	double per = w->au * (double)w->batch_size * w->record_length / w->computation_time;
	double n = INFINITY;
	if (bps > 0 && per > 0)
		n = bps / per;
	if (iops > 0 && per_io > 0)
		n = TS_MIN(n, iops / per_io);
	if (!(n < INFINITY))
		return 0;
	double cap = (double)hint_cap(w);
	return (uint64_t)TS_MIN(n, cap);
}

/* The count a run of @r's throughput would keep at the threshold: a run
 * held back by the drive delivers about the same samples/s at any larger
 * N, and N accelerators at AU a take N x batch_size x a / computation_time.
 * A whole run's AU is that share over its steps but the first, which
 * samples/s also counts (the loader filling its prefetch, as long at any
 * N): N x AU / metric.au. A stopped run's AU is only a bound: its samples
 * over its time. *@near: the count is a whole run's (one off at most
 * where the drive's rate holds across counts). */
static uint64_t throughput_hint(const struct env *E, const struct ts_dlio_result *r, bool *near)
{
	double n;
	*near = !r->stopped && r->au > 0;
	if (*near)
		n = (double)r->n * r->au / E->w->au;
	else if (!(r->run_s > 0)) /* stopped before its first step: its AU's bound */
		n = (double)r->n * r->au / E->w->au;
	else
		n = (r->run_s > 0 ? (double)r->samples / r->run_s : 0) * E->w->computation_time /
		    (E->w->au * (double)E->w->batch_size);
	double cap = (double)hint_cap(E->w);
	return n >= 1 ? (uint64_t)TS_MIN(n, cap) : 1;
}

/* After a stopped miss at r->n and no pass yet: where a line from AU
 * c1 = computation / (computation + step) (au_reach's most, what few
 * accelerators approach) through the AU of the epochs it ran whole meets
 * the threshold, rounded down; 0 where it ran none whole or they pass.
 * Where AU falls slowly with N (unet3d_v100 on the Micron drives: 86% over
 * the whole epochs of 11 on the 9400, 91% at 7, 96% at 5) a stopped run's
 * throughput lands well under the answer (5 there) and costs a whole
 * passing run more; the line lands next to it (7). */
static uint64_t line_hint(const struct env *E, const struct ts_dlio_result *r)
{
	double ct = E->w->computation_time * 1e9;
	double c1 = ct > 0 ? ct / (ct + (double)E->cpu.step_ns) : 0;
	double am = r->au_done, thr = E->w->au;
	if (!r->stopped || !(am > 0) || !(am < thr) || !(c1 > thr))
		return 0;
	double x = (double)r->n * (c1 - thr) / (c1 - am);
	double cap = (double)hint_cap(E->w);
	return x >= 1 ? (uint64_t)TS_MIN(x, cap) : 0;
}

/* The next count between a pass at @lo (@p, whole) and a miss at @hi
 * (@m): where a line through their AUs (a stopped miss's: its whole
 * epochs') meets the threshold, rounded down. Where AU falls slowly with
 * N (unet3d's, whose few steps an epoch leave its reads a large share
 * that no count changes) a throughput hint lands far above the answer
 * and bisection takes a whole passing run at each halving; the line
 * lands next to it. Kept within the interval's middle half, so that the
 * interval shrinks by a quarter at least (bisection's half when the AUs
 * say nothing). */
static uint64_t between(const struct env *E, const struct ts_dlio_result *p,
			const struct ts_dlio_result *m, uint64_t lo, uint64_t hi)
{
	double am = m ? (m->stopped ? m->au_done : m->au) : 0;
	if (!p || !(am > 0) || !(p->au > am) || !(p->au >= E->w->au))
		return lo + (hi - lo) / 2;
	double x = (double)lo + (p->au - E->w->au) / (p->au - am) * (double)(hi - lo);
	uint64_t q = (hi - lo) / 4, n = x < (double)hi ? (uint64_t)x : hi;
	return TS_MIN(TS_MAX(n, lo + q), hi - q);
}

/* --find-max (--search bracket): the same answer as the doubling search
 * wherever AU does not rise with N (what both rely on), with fewer and
 * shorter runs. It starts from the drive's bandwidth bound (or from
 * find_from, run whole, and on to that bound if it passes), moves to what
 * a missing run's throughput says the drive can feed, widens the step
 * while runs keep passing (or missing), then bisects. A count named by a
 * hint that lands near the answer (the bandwidth bound, a whole run's AU)
 * is followed by its neighbour towards the answer, then as above: the
 * answer is a pass and its neighbour a miss, so a hint one off costs one
 * run, not a bisection's. A run that can no longer reach the threshold
 * stops there (run_one's @stop_below): only passing runs, and the last
 * count's, run whole. */
static int find_max_bracket(struct env *E, struct ts_dlio_outcome *oc, char *err, size_t errlen)
{
	double thr = E->w->au;
	uint64_t lo = 0, hi = MAX_ACCEL + 1; /* passes at lo (0: none yet); misses at hi */
	uint64_t from = TS_MIN(E->o->find_from, MAX_ACCEL);
	uint64_t n = from ? from : bandwidth_hint(E), step = 1;
	n = TS_MAX(n, 1);
	bool last_pass = false, near = false; /* near: n is a hint's, thought near the answer */
	E->searching = true; /* a run that cannot miss stops: only the answer's AU is needed to pass */
	const struct ts_dlio_result *miss = NULL; /* the run at hi */
	int rc = 0;
	for (int k = 0; hi - lo > 1; k++) {
		if (oc->nr == TS_ARRAY_SIZE(oc->rs)) {
			snprintf(err, errlen, "--find-max: no answer after %zu runs", oc->nr);
			return -ERANGE;
		}
		struct ts_dlio_result *r = &oc->rs[oc->nr];
		if ((rc = run_one(E, n, k == 0 && from ? 0 : thr, r, err, errlen)))
			return rc;
		oc->nr++;
		bool pass = r->passed || (!r->stopped && r->au >= thr);
		if (pass) {
			lo = n, oc->best = r;
		} else {
			hi = n, miss = r;
		}
		if (hi - lo <= 1)
			break;
		/* the next count: widen while on the same side, else bisect */
		step = k && pass == last_pass ? 2 * step : 1;
		last_pass = pass;
		bool was_near = near;
		near = false;
		uint64_t next;
		if (!pass && lo == 0) {
			next = throughput_hint(E, r, &near);
			uint64_t l = line_hint(E, r);
			if (l > next && l < n) /* the higher: either is below the miss */
				next = l, near = false;
			if (next >= n) {
				next = n > step ? n - step : 1;
				near = false;
			}
		} else if (was_near) {
			next = pass ? n + 1 : n - 1;
			step = 1;
		} else if (pass && hi == MAX_ACCEL + 1) {
			next = n + step;
			if (k == 0 && from) { /* a seed that passed: on from where a search starts */
				uint64_t b = bandwidth_hint(E);
				near = b > next;
				next = TS_MAX(next, b);
			}
		} else {
			next = between(E, oc->best, miss, lo, hi);
		}
		n = TS_MIN(TS_MAX(next, lo + 1), hi - 1);
	}
	return 0;
}

/* --find-max: the largest count whose AU meets the threshold; when none
 * does, a whole run of 1 accelerator says how far it is. */
static int find_max(struct env *E, struct ts_dlio_outcome *oc, char *err, size_t errlen)
{
	int rc = E->o->search && !strcmp(E->o->search, "doubling")
		? find_max_doubling(E, oc, err, errlen) : find_max_bracket(E, oc, err, errlen);
	if (rc || oc->best)
		return rc;
	for (size_t i = 0; i < oc->nr; i++)
		if (oc->rs[i].n == 1 && !oc->rs[i].stopped)
			return 0;
	if (oc->nr == TS_ARRAY_SIZE(oc->rs))
		oc->nr--;
	if (!(rc = run_one(E, 1, 0, &oc->rs[oc->nr], err, errlen)))
		oc->nr++;
	return rc;
}

/* Real time: the dataset on disk, made once under the work directory (or
 * --dir), checked against the space its directory has. */
static int place(struct env *E, const struct ts_dataset_config *dc, char *err, size_t errlen)
{
	char base[4096];
	if (E->o->dir) {
		snprintf(base, sizeof(base), "%s", E->o->dir);
	} else {
		const char *wd = getenv("TIERSIM_WORKDIR"), *home = getenv("HOME");
		if (wd && *wd)
			snprintf(base, sizeof(base), "%s/dlio", wd);
		else
			snprintf(base, sizeof(base), "%s/.cache/tiersim/dlio", home ? home : "/tmp");
	}
	if (ts_pathf(E->data, sizeof(E->data), "%s/%s-%s-%" PRIu64 "x%" PRIu64 "-%" PRIu64
			    "-s%" PRIu64, base, E->w->model, E->w->format, dc->count,
			    E->w->num_samples_per_file, (uint64_t)llround(E->w->record_length),
			    dc->seed) ||
	    ts_pathf(E->mnt, sizeof(E->mnt), "%s.mnt-%d", E->data, (int)getpid())) {
		snprintf(err, errlen, "--dir: path too long");
		return -ENAMETOOLONG;
	}
	char manifest[4200];
	snprintf(manifest, sizeof(manifest), "%s/dataset.json", E->data);
	if (!access(manifest, F_OK))
		return ts_dataset_open(E->data, &E->meta, err, errlen);
	/* does it fit? */
	struct ts_dataset_meta desc;
	int rc = ts_dataset_meta_describe(ts_dataset_find(E->w->format, NULL, 0), dc, &desc, err,
					  errlen);
	if (rc)
		return rc;
	uint64_t need = desc.total_bytes;
	ts_dataset_meta_free(&desc);
	char probe[4096];
	snprintf(probe, sizeof(probe), "%s", base);
	char made[4096] = "";
	if ((rc = ts_mkdir_p(probe, 0755, made, sizeof(made)))) {
		snprintf(err, errlen, "%s: cannot create: %s", base, ts_strerror(rc));
		return rc;
	}
	struct statvfs sv;
	if (!statvfs(base, &sv) && (uint64_t)sv.f_bavail * sv.f_frsize < need) {
		if (made[0])
			ts_remove_tree(made, 0); /* leave nothing behind */
		char a[32], b[32];
		snprintf(err, errlen, "%s: the dataset needs %s and the directory's filesystem has %s "
				      "free; scale it down (++workload.dataset.num_files_train=...) "
				      "or give --dir", base, ts_fmt_size(a, sizeof(a), need),
			 ts_fmt_size(b, sizeof(b), (uint64_t)sv.f_bavail * sv.f_frsize));
		return -ENOSPC;
	}
	struct ts_dataset_config gc = *dc;
	gc.stop = &ts_interrupted;
	struct ts_dataset_stats st;
	if (!E->o->quiet)
		fprintf(stderr, "tiersim dlio: writing the dataset into %s\n", E->data);
	rc = ts_dataset_make(ts_dataset_find(E->w->format, NULL, 0), &gc, E->data, &st, err, errlen);
	if (rc)
		return rc;
	return ts_dataset_open(E->data, &E->meta, err, errlen);
}


/* The workload read, overridden and checked: 0, or an error with
 * oc->bad_request set unless the file itself failed to read. */
static int workload_read(const struct ts_dlio_opts *o, struct ts_dlio_outcome *oc, char *err,
			 size_t errlen)
{
	char path[4096];
	struct ts_dlio_workload *w = &oc->w;
	oc->bad_request = true;
	if (!o->workload || !o->tier) {
		snprintf(err, errlen, "a DLIO run needs a workload and a tier");
		return -EINVAL;
	}
	if (o->search && strcmp(o->search, "bracket") && strcmp(o->search, "doubling")) {
		snprintf(err, errlen, "--search %s: expected bracket or doubling", o->search);
		return -EINVAL;
	}
	int rc = ts_dlio_find(o->workload, path, sizeof(path), err, errlen);
	if (rc)
		return rc;
	if ((rc = ts_dlio_load(path, w, stderr, err, errlen))) {
		oc->bad_request = rc == -ENOENT;
		return rc;
	}
	for (size_t i = 0; !rc && i < o->noverrides; i++)
		rc = ts_dlio_override(w, o->overrides[i], err, errlen);
	if (!rc)
		rc = ts_dlio_check(w, path, err, errlen);
	if (!rc)
		oc->bad_request = false;
	return rc;
}

int ts_dlio_run(const struct ts_dlio_opts *o, struct ts_dlio_outcome *oc, char *err,
		size_t errlen)
{
	memset(oc, 0, sizeof(*oc));
	const struct ts_dlio_workload *w = &oc->w;
	int rc = workload_read(o, oc, err, errlen);
	if (rc)
		return rc;
	struct env E = { .o = o, .w = w };
	E.seed = o->seed ? o->seed : w->seed;
	if ((rc = cpu_resolve(o, w, &E.cpu, err, errlen))) {
		oc->bad_request = true;
		return rc;
	}
	oc->host = (struct ts_dlio_host_used){
		.sample_ns = E.cpu.sample_ns, .per_mib = E.cpu.per_mib,
		.jpeg_per_mpix = E.cpu.jpeg_per_mpix, .step_ns = (double)E.cpu.step_ns,
		.request_ns = E.cpu.req_ns, .daemon_ns = E.cpu.daemon_ns, .wait_ns = E.cpu.wait_ns,
		.run_ns = E.cpu.run_ns, .start_ns = E.cpu.start_ns, .restart_ns = E.cpu.restart_ns,
		.collate_ns = E.cpu.collate_ns,
		.vcpus = E.cpu.vcpus };
	if (o->host && !strncmp(o->host, TS_HOST_THIS, strcspn(o->host, "/")) &&
	    strcspn(o->host, "/") == strlen(TS_HOST_THIS) &&
	    ts_host_this_path(oc->host.host_file, sizeof(oc->host.host_file)))
		oc->host.host_file[0] = 0;
	struct ts_dataset_config dc;
	dataset_config(w, E.seed, &dc);
	const struct ts_tier_profile *prof;
	if ((rc = ts_tier_set_load_default(&E.tiers, err, errlen)) ||
	    (o->profile && (rc = ts_tier_set_add_file(E.tiers, o->profile, err, errlen))))
		goto out;
	if ((rc = ts_tier_set_lookup(E.tiers, o->tier, &prof, err, errlen))) {
		oc->bad_request = true;
		goto out;
	}
	/* The instance's limits cap an EBS volume, as in scenarios (a local
	 * disk or another cloud's volume runs without them). */
	if (ts_tier_ebs_any(&o->ebs) && ts_tier_is_ebs(prof)) {
		E.ebs = o->ebs;
		oc->ebs = true;
	}
	if (oc->ebs && o->fs && !o->virtual_time) {
		snprintf(err, errlen, "--fs: block mode's loop device over tierfs does not carry the "
				      "instance's EBS limits yet; run without --fs (tierfs applies them) "
				      "or with --virtual");
		oc->bad_request = true;
		rc = -EINVAL;
		goto out;
	}
	if (o->fs && ((rc = ts_disk_fs_check(o->fs, err, errlen)) ||
		      (o->virtual_time && (rc = -EINVAL)) || (ts_dlio_mpi_ranks() && (rc = -EINVAL)))) {
		if (rc == -EINVAL && o->virtual_time)
			snprintf(err, errlen, "--fs is block mode, a real mount: not with --virtual");
		else if (rc == -EINVAL && !err[0])
			snprintf(err, errlen, "--fs: block mode under mpirun is not supported (run "
					      "the accelerators in one process)");
		oc->bad_request = true;
		goto out;
	}
	if (o->virtual_time)
		rc = ts_dataset_meta_describe(ts_dataset_find(w->format, NULL, 0), &dc, &E.meta, err,
					      errlen);
	else if (!(rc = ts_mounts_init(&E.ms, err, errlen)))
		E.ms_ready = true, rc = ts_dlio_mpi_owner() ? place(&E, &dc, err, errlen) : 0;
	if (!o->virtual_time) /* ranks: rank 0 placed it, all read its mount */
		rc = ts_dlio_mpi_share(rc, E.mnt, sizeof(E.mnt), err, errlen);
	if (rc)
		goto out;
	if (!o->quiet)
		fprintf(stderr, "tiersim dlio: %s (%s) on %s, %s time: %" PRIu64 " files x %" PRIu64
				" samples, batch %" PRIu64 ", %" PRIu64 " read threads, computation %.4g "
				"s, %" PRIu64 " epochs, AU >= %.0f%%\n",
			o->workload, w->format, o->tier, o->virtual_time ? "virtual" : "real",
			w->num_files_train, w->num_samples_per_file, w->batch_size, w->read_threads,
			w->computation_time, w->epochs, 100 * w->au);
	char jpg[64] = "";
	if (E.cpu.jpeg_per_mpix > 0)
		snprintf(jpg, sizeof(jpg), " + %.1f us/Mpixel decoded", E.cpu.jpeg_per_mpix / 1e3);
	else if (E.cpu.sample_of)
		snprintf(jpg, sizeof(jpg), " (%s's own reader)", E.cpu.sample_of);
	else if (!strcmp(w->format, "png") || !strcmp(w->format, "hdf5"))
		snprintf(jpg, sizeof(jpg), " (npz's: no %s reader's cost measured)", w->format);
	/* virtual time, DLIO's PyTorch loader: its requests' CPU, all on the host's cores */
	char cores[288] = "";
	bool on_cores = torch_loader(w) || tf_cores(&E);
	if (o->virtual_time && on_cores && (E.cpu.req_ns > 0 || E.cpu.req_per_mib > 0))
		snprintf(cores, sizeof(cores), "; its requests %.1f us each + %.1f us/MiB read",
			 E.cpu.req_ns / 1e3, E.cpu.req_per_mib / 1e3);
	if (o->virtual_time && on_cores && (E.cpu.daemon_ns > 0 || E.cpu.daemon_per_mib > 0))
		snprintf(cores + strlen(cores), sizeof(cores) - strlen(cores),
			 "%s the file system's daemon %.1f us + %.1f us/MiB during each",
			 *cores ? "," : "; its requests:", E.cpu.daemon_ns / 1e3,
			 E.cpu.daemon_per_mib / 1e3);
	if (o->virtual_time && on_cores && E.cpu.vcpus)
		snprintf(cores + strlen(cores), sizeof(cores) - strlen(cores),
			 "; %s and steps on %" PRIu64 " vCPU%s",
			 tf_cores(&E) ? "readers, the parse (one at a time a rank)" : "workers",
			 E.cpu.vcpus, E.cpu.vcpus == 1 ? "" : "s");
	if (!o->quiet && o->host)
		fprintf(stderr, "tiersim dlio: host %s: %.1f us per step (%s) on each accelerator; "
				"%.1f us + %.1f us/MiB%s per sample on %" PRIu64 " reader worker%s per "
				"accelerator%s%s\n",
			o->host, (double)E.cpu.step_ns / 1e3,
			E.cpu.step_of ? "this workload's" : "dlio_step_ns",
			E.cpu.sample_ns / 1e3, E.cpu.per_mib / 1e3, jpg, E.cpu.workers,
			E.cpu.workers == 1 ? "" : "s",
			o->virtual_time || !E.cpu.workers || torch_loader(w)
				? ""
				: " (real time: this host's reader instead)",
			cores);
	if (!o->quiet && o->host && torch_loader(w) && (E.cpu.start_ns > 0 || E.cpu.restart_ns > 0))
		fprintf(stderr, "tiersim dlio: host %s: the DataLoader's start, %.1f ms the first "
				"epoch (%" PRIu64 " workers forked), %.1f ms a later one (resumed), on "
				"each accelerator\n",
			o->host, E.cpu.start_ns / 1e6, w->read_threads, E.cpu.restart_ns / 1e6);
	if (!o->quiet && o->host && E.cpu.run_ns > 0)
		fprintf(stderr, "tiersim dlio: host %s: %.1f us more per request of a sample, DLIO's "
				"own run's (dlio_run_request_ns): %s\n",
			o->host, E.cpu.run_ns / 1e3,
			o->virtual_time ? "the file system's daemon's during each"
					: "the reading worker's after each open and read");
	if (!o->quiet && o->host && torch_loader(w) && E.cpu.gc_ns > 0 && E.cpu.gc_at > 0)
		fprintf(stderr, "tiersim dlio: host %s: each worker's first full collection, %.1f ms "
				"of its CPU with its sample %.0f of the run\n",
			o->host, E.cpu.gc_ns / 1e6, E.cpu.gc_at);
	else if (!o->quiet && o->host && torch_loader(w) && E.cpu.gc_left)
		fprintf(stderr, "tiersim dlio: host %s: the workers' first full collection not "
				"charged: found with npz's reader, not %s's\n",
			o->host, w->format);

	if (!o->find_max) {
		double stop = o->stop_early && o->virtual_time ? w->au : 0;
		if (!(rc = run_one(&E, o->accelerators, stop, &oc->rs[0], err, errlen)))
			oc->nr = 1;
	} else {
		rc = find_max(&E, oc, err, errlen);
	}
out:
	if (E.ms_ready) {
		ts_mounts_stop_all(&E.ms);
		ts_mounts_free(&E.ms);
	}
	if (E.mnt[0] && ts_dlio_mpi_owner())
		rmdir(E.mnt);
	ts_dataset_meta_free(&E.meta);
	if (E.tiers)
		ts_tier_set_free(E.tiers);
	return rc;
}

const struct ts_dlio_result *ts_dlio_outcome_pick(const struct ts_dlio_opts *o,
						  const struct ts_dlio_outcome *oc)
{
	return o->find_max ? oc->best : oc->nr ? &oc->rs[0] : NULL;
}

void ts_dlio_outcome_free(struct ts_dlio_outcome *oc)
{
	ts_dlio_free(&oc->w);
}
