/*
 * host.h — host profiles: what the CPU side of a pipeline costs on a given
 * CPU with a given JPEG library, as the engine's GPU profiles say what a
 * step costs on a given GPU. A profile turns into the same struct
 * ts_decode_cal that `tiersim calibrate decode` measures on this machine,
 * so the loader (real and virtual time) and the conversion charge either
 * alike.
 *
 * Profiles are data: pipeline/hosts.lua (read with luadata/), declaring
 *
 *   host "NAME" { cpu = "...", ... }    -- costs measured on it, or
 *   host "NAME" { from = "HOST", speed = N, ... }   -- carried from HOST
 *   library "NAME" { decode = N | transform = N }   -- relative to libjpeg-turbo
 *
 * with every number { VALUE, "measured"|"spec"|"assumed", "source",
 * low = , high = } (low and high required for assumed ones). A host is
 * picked by "NAME" (its own library) or "NAME/LIBRARY"; "this-machine" is
 * today's calibration instead (~/.cache/tiersim/decode.json).
 */
#ifndef TS_PIPE_HOST_H
#define TS_PIPE_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/ts.h"
#include "pipeline/decode.h"

#define TS_HOST_THIS "this-machine"
/* The host a replay's wake-up rule takes its cost from when none is named
 * (tiersim replay --host): the one it was measured on. */
#define TS_HOST_REPLAY_DEFAULT "build-host"

enum ts_host_label { TS_HOST_NONE, TS_HOST_MEASURED, TS_HOST_SPEC, TS_HOST_ASSUMED };

/* One labelled number of a profile. */
struct ts_host_num {
	bool set;
	double v, low, high;
	enum ts_host_label label;
	char *what; /* the source: the measurement, the table, or why assumed */
};

/* The costs a measured host sets (a carried one may override any). */
enum ts_host_field {
	TS_HF_DECODE_BASE,   /* decode_base_ns: JPEG decode + transform, per image */
	TS_HF_DECODE_MPIX,   /* decode_ns_per_mpix: ... plus per megapixel */
	TS_HF_DECODE_SHARE,  /* decode_share: the decode's part of that cost */
	TS_HF_DATUM_XFORM,   /* datum_xform_ns: raw 256x256 Datum -> model input */
	TS_HF_DATUM_PARSE,   /* datum_parse_ns: parse a Datum, copy its pixels */
	TS_HF_LMDB_PUT,	     /* lmdb_put_ns: make a Datum, put it (no fsync) */
	TS_HF_REQUIRED,	     /* the fields above: a measured host sets every one */
	/* DLIO's framework path (workloads/DLIO.md), optional: 0 where no host on the
	 * from = chain sets them. */
	TS_HF_DLIO_SAMPLE = TS_HF_REQUIRED, /* dlio_sample_ns: per sample, in a reader worker */
	TS_HF_DLIO_MIB,	     /* dlio_sample_ns_per_mib: ... plus per MiB of the sample */
	TS_HF_DLIO_STEP,     /* dlio_step_ns: per step, on the accelerator's own loop */
	TS_HF_DLIO_JPEG,     /* dlio_jpeg_ns_per_mpix: a jpeg sample's decode, per megapixel */
	TS_HF_DLIO_REQ,	     /* dlio_request_ns: a reader's file request, the host's CPU for it
			      * in the reading thread (serial with the request) */
	TS_HF_DLIO_REQ_MIB,  /* dlio_request_ns_per_mib: ... plus per MiB it reads */
	TS_HF_DLIO_REQ_D,    /* dlio_request_daemon_ns: the file system's server (the FUSE
			      * daemon) per request, while the request's latency runs */
	TS_HF_DLIO_REQ_D_MIB, /* dlio_request_daemon_ns_per_mib: ... plus per MiB read */
	/* a format's own reader, in place of dlio_sample_ns and _per_mib */
	TS_HF_DLIO_HDF5,     /* dlio_hdf5_sample_ns: HDF5Reader (h5py) per sample */
	TS_HF_DLIO_HDF5_MIB, /* dlio_hdf5_sample_ns_per_mib: ... plus per MiB of the sample */
	TS_HF_DLIO_PNG,	     /* dlio_png_sample_ns: ImageReader on a png (Pillow) per sample */
	TS_HF_DLIO_PNG_MIB,  /* dlio_png_sample_ns_per_mib: ... plus per MiB of the file */
	/* PyTorch's DataLoader starting (iter()) before a rank's first batch,
	 * wall time: the first epoch forks the workers, a later one resumes
	 * them (persistent_workers); each is a line in read_threads */
	TS_HF_DLIO_START,     /* dlio_loader_start_ns: the first epoch's, per rank */
	TS_HF_DLIO_START_W,   /* dlio_loader_start_ns_per_worker: ... plus per worker */
	TS_HF_DLIO_RESTART,   /* dlio_loader_restart_ns: a later epoch's, per rank */
	TS_HF_DLIO_RESTART_W, /* dlio_loader_restart_ns_per_worker: ... plus per worker */
	/* Python's collector in a DataLoader worker: its first full
	 * collection traverses the heap the worker inherited from the training
	 * process (copy-on-write: every page of it copied), once per worker */
	TS_HF_DLIO_GC,	      /* dlio_worker_gc_ns: that collection's CPU */
	TS_HF_DLIO_GC_AT,     /* dlio_worker_gc_samples: the worker's sample it comes in */
	/* the workers reading side by side at an epoch's start: the sample
	 * standard deviation of their batches' ends over the mean (a share) */
	TS_HF_DLIO_SPREAD,    /* dlio_worker_spread */
	/* a reader's synchronous request: what its worker waits beyond the
	 * request's service and the CPU (the reader and the file system's
	 * daemon woken on the host's cores), wall time, per request */
	TS_HF_DLIO_WAIT,      /* dlio_request_wait_ns */
	/* DLIO's own run, per request of a sample's chain its DataLoader
	 * workers make: the CPU its file system's daemon spends beyond what it
	 * spends on the same requests of tiersim's real loader (measured side
	 * by side), on top of dlio_request_daemon_ns */
	TS_HF_DLIO_RUN,	      /* dlio_run_request_ns */
	/* A PyTorch DataLoader worker's own work besides the transform, charged
	 * by the sources read through one (TS_SRC_TORCH: the folder source, as
	 * torchvision's ImageFolder) in either clock: reading the file in
	 * Python, the fetcher, default_collate's copy into shared memory, the
	 * hand-off through the worker's queue */
	TS_HF_LOADER_SAMPLE,  /* loader_sample_ns: per sample */
	TS_HF_LOADER_BATCH,   /* loader_batch_ns: ... plus per batch */
	/* a DLIO DataLoader worker at its batch's end: default_collate of the
	 * batch's samples (DLIO 2.0.0's resized images) and the copy into
	 * shared memory that hands it over: per sample, plus per MiB of the
	 * batch */
	TS_HF_DLIO_COLLATE,   /* dlio_collate_ns_per_mib */
	TS_HF_DLIO_COLLATE_S, /* dlio_collate_ns */
	/* ... more per MiB of the batch where its shared memory is fresh to
	 * the hypervisor (freed pages reported to it and reclaimed: the
	 * kernel's first write to each page, faulted in at the host) */
	TS_HF_DLIO_COLLATE_FRESH, /* dlio_collate_fresh_ns_per_mib */
	/* the ranks' first batches further apart per time their worker
	 * waited for a core over the batch (a share; workloads/dlio_loader.h,
	 * spread_wait) */
	TS_HF_DLIO_SPREAD_WAIT, /* dlio_worker_spread_wait */
	/* a worker's CPU per sample with the host's cores to spare, over the
	 * figures' (a factor; workloads/dlio_loader.h, cpu_alone) */
	TS_HF_DLIO_CPU_ALONE, /* dlio_worker_cpu_alone */
	/* the host's scheduler sharing its cores among DLIO's workers: the
	 * slice a worker's piece of CPU runs in before the next runnable one
	 * gets the core, wall time (workloads/dlio_loader.c struct cores) */
	TS_HF_DLIO_SLICE,     /* dlio_core_slice_ns */
	TS_HF_NR,
};

/* Which end of every range to use: the value, or the fast or slow end. */
enum ts_host_end { TS_HOST_NOMINAL, TS_HOST_FAST, TS_HOST_SLOW };

struct ts_host_set;

/* The built-in pipeline/hosts.lua (found like the tier profiles). */
TS_WUR int ts_host_set_load_default(struct ts_host_set **out, char *err, size_t errlen);
/* Adds the hosts and libraries of @path; a name already known is replaced. */
TS_WUR int ts_host_set_add_file(struct ts_host_set *s, const char *path, char *err,
				size_t errlen);
void ts_host_set_free(struct ts_host_set *s);
/* Where `tiersim hosts measure` keeps this machine's DLIO costs (a host
 * named "this-machine" of DLIO's fields and vcpus only): $TIERSIM_HOST_FILE,
 * else $XDG_CACHE_HOME/tiersim/this-machine.lua, else
 * ~/.cache/tiersim/this-machine.lua. -ENOENT without a HOME. */
TS_WUR int ts_host_this_path(char *buf, size_t n);
/* Adds that file to @s where it exists (0 where it does not): the host
 * "this-machine" alone; any other host or library in it is refused naming
 * the file, and @s is left as it was on any error. */
TS_WUR int ts_host_set_add_this(struct ts_host_set *s, char *err, size_t errlen);
/* The built-in set, with that file where @spec ("NAME" or "NAME/LIBRARY")
 * names "this-machine": no other host reads it, so a stale or broken file
 * stays out of their runs. */
TS_WUR int ts_host_set_load_for(const char *spec, struct ts_host_set **out, char *err,
				size_t errlen);

/* The costs of @spec ("NAME" or "NAME/LIBRARY") as a calibration. An
 * unknown name is -ENOENT with the known ones in @err. */
TS_WUR int ts_host_cal(const struct ts_host_set *s, const char *spec, enum ts_host_end end,
		       struct ts_decode_cal *cal, char *err, size_t errlen);
/* Loads the built-in set and fills @cal for @spec, in one call. */
TS_WUR int ts_host_resolve(const char *spec, struct ts_decode_cal *cal, char *err, size_t errlen);
/* The same at one end of every range (--band). */
TS_WUR int ts_host_resolve_at(const char *spec, enum ts_host_end end, struct ts_decode_cal *cal,
			      char *err, size_t errlen);
/* The decode cost a modeled decode charges, in either clock: host profile
 * @host at @end of its ranges when it names one, else the calibration file
 * @calibration (or the default, ts_pipe_default_calibration), whose path
 * goes to @path. Errors say how to make one. The one place that chooses
 * (decode_cal.c): the loader, the virtual tier and the runner ask it. */
TS_WUR int ts_pipe_cal_load(const char *calibration, const char *host, enum ts_host_end end,
			    struct ts_decode_cal *cal, char *path, size_t pathlen, char *err,
			    size_t errlen);

/* DLIO's framework costs on a host (TS_HF_DLIO_*), ns. */
struct ts_host_dlio {
	double sample_ns, sample_ns_per_mib, step_ns;
	/* the format whose own reader's line sample_ns and sample_ns_per_mib
	 * are ("hdf5", "png"), NULL: dlio_sample_ns's (npz's reader) */
	const char *sample_of;
	double jpeg_ns_per_mpix; /* more per jpeg sample: its image's decode */
	double request_ns, request_ns_per_mib; /* per file request of a reader, per MiB read */
	/* ... and the file system's daemon per request and per MiB, which runs
	 * during the request (0: none apart, all of it in request_ns) */
	double request_daemon_ns, request_daemon_ns_per_mib;
	/* where step_ns came from: "model/format" or "model" (the workload's own,
	 * dlio_workload_step_ns), NULL: dlio_step_ns */
	const char *step_of;
	uint64_t vcpus; /* the host's own vcpus (0: not given, no limit) */
	/* the loader's start per rank, wall time: the first epoch's (the
	 * workers forked) and a later one's (resumed), each + per worker */
	double start_ns, start_ns_per_worker, restart_ns, restart_ns_per_worker;
	/* each worker's first full collection: its CPU, and the worker's
	 * sample (counted from 1 over the run) that pays it (0: none) */
	double worker_gc_ns, worker_gc_samples;
	/* the spread of the batches' ends of workers reading side by side,
	 * over their mean (0: none) */
	double worker_spread;
	/* per request a reader waits on, wall time beyond its service and
	 * the CPU (0: none) */
	double request_wait_ns;
	/* per request of a DataLoader worker's chain, the daemon's CPU in
	 * DLIO's own run beyond request_daemon_ns (0: none) */
	double run_request_ns;
	/* a worker at its batch's end, per sample and per MiB of the batch's
	 * samples as DLIO collates them (0: none apart, inside the per-sample
	 * lines) */
	double collate_ns, collate_ns_per_mib;
	/* ... more per MiB of the batch in fresh memory (0: none) */
	double collate_fresh_ns_per_mib;
	/* the ranks' first batches' spread per time the batch's worker waited
	 * for a core (0: none) */
	double worker_spread_wait;
	/* a worker's CPU per sample with the host's cores to spare, over the
	 * per-sample figures (0: the figures as they are) */
	double worker_cpu_alone;
	/* the slice the host's cores share the workers' CPU in (0: not set,
	 * the loader's default) */
	double core_slice_ns;
};
/* @spec's DLIO costs at @end of their ranges for a workload of @model
 * and dataset @format (either may be NULL): its step cost is
 * dlio_workload_step_ns["MODEL/FORMAT"], else ["MODEL"], else dlio_step_ns,
 * the first a host on the from = chain sets; its sample cost the format's
 * own (dlio_hdf5_sample_ns, dlio_png_sample_ns and their _per_mib) where
 * the chain sets it, else dlio_sample_ns and _per_mib. -ENOENT naming the known hosts
 * when @spec is none. */
TS_WUR int ts_host_dlio_costs(const struct ts_host_set *s, const char *spec, const char *model,
			      const char *format, enum ts_host_end end, struct ts_host_dlio *out,
			      char *err, size_t errlen);
/* Whether host @name has field @field (a TS_HF_* name) whose source text
 * names @id: a profile's evidence that case @id fitted it. -ENOENT when
 * @name is no host, -EINVAL when @field is no field; else 0 or 1. */
int ts_host_field_names(const struct ts_host_set *s, const char *name, const char *field,
			const char *id);

/* Calls @fn for every host field whose source says "case ID" (a case of
 * validation/cases that fitted it); stops at and returns @fn's first
 * non-zero. */
int ts_host_each_fit(const struct ts_host_set *s,
		     int (*fn)(void *ctx, const char *host, const char *field, const char *id),
		     void *ctx);

/* Host @name's replay_wake_cost_ns (the replay's wake-up rule, per e-fold
 * of a request's time; traces/replay/replay.h), its value, in *@ns; NULL:
 * TS_HOST_REPLAY_DEFAULT's. -ENOENT naming the known hosts when @name is
 * none, -ENODATA when it sets none (the machine's own: never carried by
 * from =), with one line in @err. Loads the host set for it;
 * ts_host_replay_wake_cost() reads it from a set loaded already. */
TS_WUR int ts_host_wake_cost(const char *name, uint64_t *ns, char *err, size_t errlen);

/* The replay's host figures below read from @s, a set loaded once
 * (ts_host_set_load_for(@name), NULL for TS_HOST_REPLAY_DEFAULT) for all
 * of them: a replay's figures then come from one load of the profiles. */

/* ts_host_wake_cost()'s figure, from @s. */
TS_WUR int ts_host_replay_wake_cost(const struct ts_host_set *s, const char *name, uint64_t *ns,
				    char *err, size_t errlen);

/* Host @name's replay_fuse_cpu_ns (the kernel-fs replay's in-kernel rule:
 * a FUSE request's CPU on the calling thread beyond a kernel file system's
 * for the same call; traces/replay/replay.h, fuse_cpu_ns) in *@ns, and its
 * replay_fuse_cpu_page_ns (a page of a direct read's or write's buffer;
 * fuse_cpu_page_ns) in *@page_ns, 0 where it has none; NULL:
 * TS_HOST_REPLAY_DEFAULT's. -ENOENT, -ENODATA (no replay_fuse_cpu_ns) or
 * -EINVAL (not 0 to 10 ms, a page's not 0 to 1 ms), with one line in
 * @err. */
TS_WUR int ts_host_fuse_cpu(const struct ts_host_set *s, const char *name, uint64_t *ns,
			    uint64_t *page_ns, char *err, size_t errlen);

/* Host @name's replay_fuse_cpu_lookup_ns (the in-kernel rule's figure for
 * a GETATTR request that is a lookup, the high-level API's getattr) in
 * *@lookup_ns, replay_fuse_cpu_open_ns (an OPEN's) in *@open_ns and
 * replay_fuse_cpu_getattr_ns (a GETATTR that is a getattr: an fstat) in
 * *@getattr_ns; each replay_fuse_cpu_ns where the host has none of its
 * own, 0 where it has neither; NULL: TS_HOST_REPLAY_DEFAULT's. -ENOENT or
 * -EINVAL (not 0 to 10 ms), with one line in @err. */
TS_WUR int ts_host_fuse_cpu_meta(const struct ts_host_set *s, const char *name,
				 uint64_t *lookup_ns, uint64_t *open_ns, uint64_t *getattr_ns,
				 char *err, size_t errlen);

/* Host @name's replay_page_wake_ns (the kernel-fs replay's page-lock
 * wake-up: the wake-up after a sleep on a page in flight, from the
 * device's completion to the thread running; traces/replay/replay.h,
 * page_wake_ns) in *@ns; NULL: TS_HOST_REPLAY_DEFAULT's. -ENOENT, -ENODATA
 * (none measured) or -EINVAL (not 0 to 1 ms), with one line in @err. */
TS_WUR int ts_host_page_wake(const struct ts_host_set *s, const char *name, uint64_t *ns,
			     char *err, size_t errlen);

/* Host @name's replay_dev_read_cpu_ns (the kernel-fs replay's IO path's
 * CPU: the reading thread's CPU a device read its read sends; replay.h,
 * dev_read_cpu_ns) in *@ns; NULL: TS_HOST_REPLAY_DEFAULT's. -ENOENT,
 * -ENODATA (none measured) or -EINVAL (not 0 to 1 ms), with one line in
 * @err. */
TS_WUR int ts_host_dev_read_cpu(const struct ts_host_set *s, const char *name, uint64_t *ns,
				char *err, size_t errlen);

/* Host @name's replay_fuse_size_ns (the kernel-fs replay's reply size
 * part: how much longer a 128 KiB read's reply takes FUSE to deliver than
 * a 4 KiB one's; replay.h, fuse_size_ns) in *@ns; NULL:
 * TS_HOST_REPLAY_DEFAULT's. -ENOENT, -ENODATA (none measured) or -EINVAL
 * (not 0 to 1 ms), with one line in @err. */
TS_WUR int ts_host_fuse_size(const struct ts_host_set *s, const char *name, uint64_t *ns,
			     char *err, size_t errlen);

/* Host @name's replay_fuse_ra_ns (the kernel-fs replay's page-cache
 * read's round trip: what FUSE's delivery of a read the kernel's page
 * cache sent, and of its reply, adds to a job's gap at 4 KiB; replay.h,
 * fuse_ra_ns) in *@ns; NULL: TS_HOST_REPLAY_DEFAULT's. -ENOENT,
 * -ENODATA (none measured) or -EINVAL (not 0 to 1 ms), with one line in
 * @err. */
TS_WUR int ts_host_fuse_ra(const struct ts_host_set *s, const char *name, uint64_t *ns, char *err,
			   size_t errlen);

/* Host @name's replay_fuse_stretch (the kernel-fs replay's page-cache
 * read's stretch: how many times longer a job's own time after such a
 * read ran through FUSE than on a kernel file system; replay.h,
 * fuse_stretch) in *@x; NULL: TS_HOST_REPLAY_DEFAULT's. -ENOENT,
 * -ENODATA (none measured) or -EINVAL (not 1 to 4), with one line in
 * @err. */
TS_WUR int ts_host_fuse_stretch(const struct ts_host_set *s, const char *name, double *x,
				char *err, size_t errlen);

/* Host @name's copy_tail_first in *@out: whether glibc's memcpy on its CPU
 * touches a large copy's last page before the rest (no ERMS: the vector
 * copy loads the source's last 128 bytes before its forward loop), which a
 * reader copying records out of a memory map makes the kernel read around
 * (tier/tier_base.h, ts_tier_req.tail_first). The CPU's own, not carried
 * by from =. -ENOENT naming the known hosts when @name is none, -ENODATA
 * when it sets none, with one line in @err. */
TS_WUR int ts_host_copy_tail_first(const struct ts_host_set *s, const char *name, bool *out,
				   char *err, size_t errlen);

/* Host @name's map_window_ns in *@ns: the CPU a reader spends on each
 * readahead window of a memory map, from its run through the window's
 * pages to the fault that sends the next (tier/tier_base.h,
 * ts_tier_req.map_window_ns). The machine's own, not carried by from =.
 * -ENOENT naming the known hosts when @name is none, -ENODATA when it
 * sets none (the caller then uses TS_TIER_MAP_WINDOW_NS), with one line
 * in @err. */
TS_WUR int ts_host_map_window(const struct ts_host_set *s, const char *name, uint64_t *ns,
			      char *err, size_t errlen);

/* The profile of a machine of @vendor ("AMD", "Intel"), cpu family
 * @family and model @model (/proc/cpuinfo) with @vcpus CPUs: the host whose
 * cpu line starts with "VENDOR ", holds "(KVM guest; family F model M"
 * followed by ',' or ')' and ends with ", N vCPUs", and which sets DLIO's
 * figures itself (dlio_sample_ns); of several, the last in the set (a
 * file's newest). NULL: none. */
const char *ts_host_find_cpu(const struct ts_host_set *s, const char *vendor, unsigned family,
			     unsigned model, unsigned vcpus);

/* Whether @spec names a profile (not empty, not "this-machine"). */
bool ts_host_is_profile(const char *spec);

/* `tiersim hosts`: one line per host and library; --evidence: one per number. */
TS_WUR int ts_host_print_table(FILE *f, const struct ts_host_set *s);
TS_WUR int ts_host_print_evidence(FILE *f, const struct ts_host_set *s);

#endif
