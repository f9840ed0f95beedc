/*
 * dlio_loader.h — DLIO 2.0.0's PyTorch data loader (dlio_benchmark
 * data_loader/torch_data_loader.py over torch.utils.data.DataLoader), in
 * either clock, for N ranks stepping together:
 *
 *  - Order: every epoch the global list of samples is shuffled in place
 *    (when the workload shuffles; the list persists from epoch to epoch, as
 *    dlio_sampler's does) and rank r reads the contiguous slice
 *    [r x floor(T/N), (r+1) x floor(T/N)); an epoch has floor(T / (batch x
 *    N)) steps (main.py's max_steps).
 *  - Workers: each rank has read_threads workers; batch i goes to worker
 *    i mod read_threads, which reads its batch_size samples one after the
 *    other, each sample's requests one after the other
 *    (pipeline/dliochain.h), and hands the batch over whole.
 *  - Prefetch: read_threads x prefetch_factor batches are given to the
 *    workers when an epoch's loader starts, and one more each time the
 *    training loop takes a batch (DataLoader's _try_put_index);
 *    prefetch_factor = ceil(prefetch_size / read_threads), 2 when that is 0.
 *  - Epochs: the loader starts again every epoch (a new iterator over
 *    persistent workers): nothing of the next epoch is read before the
 *    training loop asks for its first batch, and then not before the
 *    iterator's start (start_ns the first epoch, restart_ns later ones).
 *  - Steps: a rank takes its batch, is busy for the step's CPU and
 *    computation_time, and meets the others (comm.barrier()).
 *  - Cores (virtual time, vcpus set): a worker's CPU per sample and a
 *    rank's CPU per step run on the host's vcpus, in the order they
 *    become runnable, a worker's in short slices in turn as the kernel
 *    shares the cores (dlio_loader.c, struct cores).
 *
 * Real time runs each worker as a thread issuing the chain's system calls
 * on the mounted dataset; virtual time runs the same workers as a
 * discrete-event simulation over the tier model, charging each worker's
 * requests one after the other (and the host's CPU per sample, after it).
 * Both report, per rank and epoch, when each step's batch was taken and
 * when its compute ended; workloads/dlio_run.c turns them into DLIO's
 * figures.
 */
#ifndef TS_DLIO_LOADER_H
#define TS_DLIO_LOADER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/ts.h"
#include "pipeline/dataset.h"
#include "pipeline/vpipe.h"

struct ts_fsmeta_params;

struct ts_dl_cfg {
	const struct ts_dataset_meta *meta; /* npz, jpeg, png (one sample a file), hdf5 */
	uint64_t ranks;	     /* ranks stepping here (accelerators of this process) */
	uint64_t rank0;	     /* the first one's rank among all */
	uint64_t world;	     /* ranks in all (mpirun's size, or ranks) */
	uint64_t batch, workers, prefetch_factor, epochs;
	uint64_t steps;	     /* per epoch, at most (total_training_steps); 0: all */
	bool shuffle;
	uint64_t seed;
	uint64_t compute_ns; /* computation_time */
	uint64_t step_ns;    /* the rank's own CPU per step */
	/* Virtual time: the host's vCPUs, which every rank's workers (their CPU
	 * per sample) and the ranks' own steps (step_ns) share, each piece of
	 * work queueing for a core in the order it became runnable; 0, or as
	 * many as the ranks and their workers: each has a core of its own. */
	uint64_t vcpus;
	uint64_t sample_ns;  /* a worker's CPU per sample (+ per MiB below): charged in
			      * virtual time, spent busy in real time */
	double sample_ns_per_mib;
	double jpeg_ns_per_mpix; /* ... plus, for a jpeg sample, per megapixel decoded */
	/* Virtual time: the host's CPU for a sample's requests, per request of
	 * its chain and per MiB it reads (real time: the requests cost it).
	 * request_ns: the reading thread's (the system calls), charged with the
	 * sample's own after its requests; request_daemon_ns: the file
	 * system's server's (tierfs's daemon), per request that reaches it
	 * (ts_dl_chain_daemon_reqs: a getattr the kernel's attribute cache
	 * answers costs it nothing) and per MiB read, which serves a request while
	 * its latency runs: on a core (where vcpus count them) from the
	 * request's start, the request ending no sooner than it (a sample's
	 * part in equal shares over its charged requests). */
	uint64_t request_ns;
	double request_ns_per_mib;
	uint64_t request_daemon_ns;
	double request_daemon_ns_per_mib;
	/* Virtual time: what a worker waits per request it makes (each charged
	 * one: the open and the reads), wall time beyond the request's service
	 * and the CPU above, holding no core: on a host the reader and the
	 * file system's daemon are woken for each synchronous request (a
	 * sleeping vCPU's wake-up, the daemon's pick-up, the reply's). Real
	 * time: the host's own. 0: none. */
	uint64_t request_wait_ns;
	/* What DLIO's own run spends per request of a sample's chain that
	 * reaches its file system's daemon, beyond the lines above
	 * (dlio_run_request_ns, measured per such request: the open, the
	 * reads, the close, the file's lookup and a stat after a read; not the
	 * getattrs the kernel's attribute cache answers, nor the flush):
	 * virtual time charges it with request_daemon_ns; real time spends it busy in the reading worker with the
	 * sample's own CPU (in equal shares after its open and each read), as
	 * the real daemon's own CPU is the host's. 0: none. */
	uint64_t run_request_ns;
	/* The DataLoader's start each epoch, per rank, before its workers read
	 * (iter(): the first epoch forks them, a later one resumes them,
	 * persistent_workers): virtual time charges it from the epoch's start,
	 * on a core when vcpus bound them; real time spends it busy on the
	 * rank's first worker thread before the rank's first batches go out
	 * (each DLIO rank has its own DataLoader). It lies inside the
	 * epoch's first step, as in DLIO's figures. */
	uint64_t start_ns, restart_ns;
	/* Python's collector in each worker (a DataLoader's workers, fork):
	 * its first full collection, which copies and traverses the heap the
	 * worker inherited, worker_gc_ns of CPU charged with the worker's
	 * worker_gc_at-th sample of the run (counted over its epochs, its
	 * workers persisting) in both clocks; 0: none */
	uint64_t worker_gc_ns, worker_gc_at;
	/* A worker's batch, once its last sample is read: torch's
	 * default_collate stacks the batch's arrays (DLIO 2.0.0's
	 * resized_image each) and the worker's queue copies the result into
	 * shared memory to hand it over, collate_ns of CPU before the batch
	 * is ready, on a core where the host's cores are counted (virtual
	 * time), busy on the worker's thread (real time). Workers that end
	 * their batches together collate together: on a host with fewer cores
	 * than such workers the batches wait for each other there, where the
	 * same CPU spread over the samples would run beside the reads' waits.
	 * 0: none (then inside the per-sample figures) */
	uint64_t collate_ns;
	/* More CPU for that collation where the batch's new shared memory is
	 * fresh to the hypervisor: on a guest that reports freed memory to
	 * its host (virtio-balloon free page reporting), pages freed a while
	 * ago were handed back, and the kernel's first write to each one
	 * (clear_page under the shared memory's fault) waits for the host to
	 * fault it in again. Whether a run's batches get such pages is the
	 * guest's state, not DLIO's (workloads/DLIO.md, "The end of an
	 * epoch": in one run the collations of epochs 1 and 2 paid it, in
	 * another none of four epochs did); charged with every collation,
	 * in both clocks. 0: none */
	uint64_t collate_fresh_ns;
	/* The ranks' first batches of an epoch do not come together: DLIO's
	 * workers reading side by side end their batches spread about their
	 * mean (Python, the host's scheduling: a sample standard deviation of
	 * @spread times the mean), and the barrier after the first step waits
	 * for the last rank's. Rank r's first batch each epoch is handed over
	 * later by spread x (its time since the epoch's start) x (z_s - z_0),
	 * z_0 < ... < z_{world-1} the expected normal order statistics of
	 * world draws (Blom's rule), s = (r + epoch) mod world: the ranks
	 * take the slots in turn. Both clocks; 0 (or one rank in all): none. */
	double spread;
	/* ... and more where that batch's worker waited for a core:
	 * spread_wait x (the time the batch's worker waited for a core while
	 * it read and collated the batch) x (z_s - z_0) more. On the Xeon
	 * guest of xeon-emr-kvm-2vcpu DLIO's ranks drifted apart so in the runs whose
	 * collations were slow (fresh shared memory, collate_fresh_ns: the
	 * ranks' first steps 0.163 s apart on average on r50-2-essd, against
	 * 0.042 s in runs without; workloads/DLIO.md, "Where r50-2-essd's
	 * first epochs lose their AU"): the host's state, like
	 * collate_fresh_ns. Virtual time counts the worker's pieces' waits on
	 * the cores (vcpus; none on cores of their own), real time the worker
	 * thread's own wait on the run queue (/proc/thread-self/schedstat)
	 * over the batch. 0: none. */
	double spread_wait;
	/* A worker's CPU per sample while no more of the process's workers
	 * read a batch than the host has cores (vcpus): cpu_alone times its
	 * own (sample_ns and its lines; in virtual time its requests',
	 * request_ns, too). The per-sample figures are measured with a
	 * DataLoader's eight workers on the host's two vCPUs; DLIO's workers
	 * that read an epoch's last batches with the cores to spare spend
	 * less a sample (0.93 on xeon-emr-kvm-2vcpu: bench/dlio_tail_cpu.py,
	 * workloads/DLIO.md "The epoch's tail"). Counted as each piece of a
	 * sample's CPU runs (a worker reads from taking its batch to its
	 * collation's end), in both clocks; its collection is a piece too,
	 * the collation, the daemon's part and the iterator's start are not.
	 * 0 or 1 (or vcpus 0): none. */
	double cpu_alone;
	/* The slice the host's cores (vcpus) share the workers' pieces of CPU
	 * in, round robin (dlio_core_slice_ns; workloads/dlio_loader.c,
	 * struct cores). 0: the loader's default (CORES_SHARE_NS there). */
	uint64_t core_slice_ns;
	const char *dir;     /* real time: the mounted DIR/train */
	/* Virtual time with a page cache in front of the tier: a sample's
	 * contiguous reads are charged as one (the cache's readahead turns a
	 * reader's sequential reads into its own requests to the device, so
	 * what reaches the device is the same; the model is spared a lookup per
	 * 4 KiB fill: 8 requests instead of 1,140 for a 140 MB unet3d sample). */
	bool coalesce;
	/* reader.read_type given (DLIO 2.0.0 keeps files open then, whichever
	 * value: pipeline/dliochain.h, ts_chain_build_kept): each worker keeps
	 * every file it has read open for the run (its workers persist from
	 * epoch to epoch), and a sample of a file it holds costs the held
	 * chain (npz, jpeg, png: no request; hdf5: the record's read). */
	bool keep_open;
	/* The TensorFlow loader (ts_dl_run_tf_virtual): workers are its
	 * read_threads readers; a record is read in transfer_size requests;
	 * window batches may be read ahead of the one the rank takes
	 * (prefetch_size + computation_threads). */
	uint64_t transfer_size, window;
	/* Virtual time: the file system under the dataset (tier/fsmeta.h).
	 * An open (a sample's in the PyTorch loader, a file's in the
	 * TensorFlow loader's readers) is then the lookups tierfs charges the
	 * real reader's open: train/ in the dataset's folder, the file in
	 * train/, each reading a folder's blocks and the inode table's the
	 * first time and nothing after (the kernel keeps them). The layout is
	 * the DLIO source's plan's too (ts_dlio_fs_layout, pipeline/ds_dlio.h):
	 * the files' inodes follow the storage order after train/'s
	 * (first_inode: lost+found, dataset.json, train/), as the files were
	 * made. NULL: one metadata request per open. */
	const struct ts_fsmeta_params *fs;
};

/* What a run did, per epoch and rank: the times are ns from the run's
 * start (virtual) or CLOCK_MONOTONIC (real). */
struct ts_dl_epoch {
	uint64_t start, end; /* the loader started; the last step's barrier passed */
	uint64_t *first_end; /* [rank]: the first step's compute ended */
	/* Virtual time: the bytes of the arrays (the npz members' data) of the
	 * samples the epoch's steps take. The loader reads every one of them
	 * between start and end, each byte at least once. */
	uint64_t payload;
};

struct ts_dl_result {
	uint64_t steps; /* per epoch */
	struct ts_dl_epoch *ep;
	uint64_t epochs; /* run (a run stopped early has fewer) */
	uint64_t nep;	 /* ep[] holds this many */
	uint64_t read_requests, meta_requests, read_bytes, samples, events;
};

/* Called after every step with the epoch's figures so far (virtual time:
 * a caller may stop a run that cannot pass): nonzero stops the run. */
typedef int (*ts_dl_step_fn)(void *ctx, uint64_t epoch, uint64_t step,
			     const struct ts_dl_epoch *ep, uint64_t barrier);

/* Steps per epoch for @c (0: fewer samples than one step of every rank). */
uint64_t ts_dl_steps(const struct ts_dl_cfg *c);
/* ... with the TensorFlow loader (ts_dl_run_tf_virtual): each rank reads
 * floor(files / ranks) files whole. */
uint64_t ts_dl_tf_steps(const struct ts_dl_cfg *c);

struct ts_chain_req;
/* The requests of chain @r (@n requests) that reach the file system's
 * daemon through a FUSE mount with the kernel's attribute cache: what
 * request_daemon_ns and run_request_ns are charged per (both measured
 * per request tierfs saw). */
uint64_t ts_dl_chain_daemon_reqs(const struct ts_chain_req *r, size_t n);

/* Runs @c in virtual time over @disk: 0, 1 when @fn stopped it (the
 * epoch it stopped in counted in r->epochs, its end the last barrier), or
 * -errno with @err. */
TS_WUR int ts_dl_run_virtual(const struct ts_dl_cfg *c, const struct ts_vdisk *disk,
			     ts_dl_step_fn fn, void *ctx, struct ts_dl_result *r, char *err,
			     size_t errlen);
/* Runs @c in real time on c->dir; @between (may be NULL) is called before
 * each step's batches are taken (ranks: DLIO's barrier). A Ctrl-C
 * (ts_interrupted) ends it with -EINTR. */
TS_WUR int ts_dl_run_real(const struct ts_dl_cfg *c, int (*between)(char *err, size_t errlen),
			  struct ts_dl_result *r, char *err, size_t errlen);
/* DLIO 2.0.0's TensorFlow loader over a TFRecord dataset in virtual time
 * (dlio_loader.c says how: readers, the parse under the rank's Python lock,
 * the steps, on c->vcpus cores), one process's c->ranks = c->world ranks,
 * each reading its shard of the files. Returns as ts_dl_run_virtual. */
TS_WUR int ts_dl_run_tf_virtual(const struct ts_dl_cfg *c, const struct ts_vdisk *disk,
				ts_dl_step_fn fn, void *ctx, struct ts_dl_result *r, char *err,
				size_t errlen);
void ts_dl_result_free(struct ts_dl_result *r);

#endif
