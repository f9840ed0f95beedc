/*
 * loader.h — the data loader, built as a real framework's is:
 *
 *   source → shuffle → io_uring reader → decode/augment pool → batcher
 *          → bounded prefetch queue → consumer
 *
 * One struct ts_pipe is one loader instance with its own threads, rings,
 * buffers and generator; nothing is process-wide, so an MPI rank (or a test)
 * simply makes another one.
 *
 *   struct ts_pipe_cfg cfg = { 0 };
 *   ts_opt_defaults(ts_pipe_opts, &cfg, err, sizeof err);
 *   ts_opt_set(ts_pipe_opts, &cfg, "source", "folder", err, sizeof err);
 *   ts_opt_set(ts_pipe_opts, &cfg, "path", "/data/train", err, sizeof err);
 *   ts_pipe_new(&cfg, &p, err, sizeof err);
 *   ts_pipe_start(p);
 *   for (;;) {
 *       struct ts_batch *b;
 *       int64_t wait = ts_pipe_next_batch(p, &b);   // blocks
 *       if (wait < 0 || !b) break;                  // error / end of data
 *       ... use b ...
 *       ts_pipe_batch_release(p, b);
 *   }
 *   ts_pipe_stats(p, &st); ts_pipe_free(p); ts_opt_free(ts_pipe_opts, &cfg);
 *
 * Batches come out in order (like PyTorch's DataLoader with in_order=True):
 * batch k of an epoch holds positions [k*B, (k+1)*B) of that epoch's order,
 * each sample at its position. The order is a fresh permutation per epoch
 * when shuffle is on (seeded by seed and the epoch number), the dataset order
 * otherwise. drop_last drops the final short batch.
 */
#ifndef TS_PIPE_LOADER_H
#define TS_PIPE_LOADER_H

#include <stdbool.h>
#include <stdint.h>

#include "core/hist.h"
#include "core/opt.h"
#include "core/ts.h"
#include "pipeline/scheduler.h"

enum ts_decode_mode {
	TS_DECODE_NONE,	   /* deliver the source bytes as they are */
	TS_DECODE_REAL,	   /* libjpeg-turbo decode + resize + crop + flip + normalize */
	TS_DECODE_MODELED, /* charge the calibrated CPU cost per image instead */
};

struct ts_pipe_cfg {
	char *source;	     /* folder | rec | lmdb | text | null */
	char *path;	     /* dataset folder, .rec file, LMDB dir, text file */
	uint64_t count;	     /* use the first @count samples; 0 = all */
	uint64_t first;	     /* ... counted from sample @first (a rank's shard) */
	uint64_t sample_size; /* null source: bytes per sample */
	uint64_t batch;	     /* samples per batch */
	uint64_t vcpus;	     /* decode workers (the emulated vCPU count) */
	uint64_t qd;	     /* io_uring queue depth (files or records in flight) */
	uint64_t prefetch;   /* batches read ahead of the consumer */
	bool shuffle;
	uint64_t seed;
	uint64_t epochs;
	bool drop_last;
	bool restart;	     /* epochs restart the loader (ts_pipe_open_epoch) */
	char *decode;	     /* auto | real | modeled | none */
	uint64_t out_size;   /* model input side (224) */
	uint64_t resize;     /* shorter side before the crop (256); 0 = straight */
	bool augment;	     /* random crop + flip (else centre crop) */
	char *on_error;	     /* skip | fatal */
	uint64_t mem_limit;  /* bytes of read slots + batch buffers; a sample
			      * larger than a slot gets its own buffer on top */
	uint64_t slot_size;  /* registered read buffer per sample; 0 = auto */
	bool keep_raw;	     /* keep source bytes in batches after decoding */
	uint64_t seq_len;    /* text: tokens per sequence (35, as PTB) */
	uint64_t transfer_size; /* tfrecord: bytes per read request (DLIO's); 0 = one */
	char *copy;	     /* lmdb: how a value leaves the map: pages | memcpy */
	char *calibration;   /* decode calibration file; "" = default */
	char *host;	     /* host profile (pipeline/host.h) charged instead; "" = this machine */
	bool registered;     /* use registered (fixed) buffers */
	bool open_uring;     /* open files through io_uring (else openat(2)) */
	bool async_reads;    /* reads go to io_uring's workers (IOSQE_ASYNC) */
	bool async_opens;    /* opens go to io_uring's workers (IOSQE_ASYNC) */
};

extern const struct ts_opt ts_pipe_opts[];

/* One sample as delivered. */
struct ts_sample {
	uint64_t id;	 /* index in the dataset (source order) */
	int32_t label;	 /* class, -1 when the source has none */
	uint32_t len;	 /* bytes at raw */
	const void *raw; /* source payload; NULL once decoded unless keep_raw */
};

struct ts_batch {
	uint64_t seq;	   /* batch number across epochs, from 0 */
	uint32_t epoch;	   /* from 0 */
	uint32_t index;	   /* batch number within the epoch */
	uint32_t n;	   /* samples in s[] */
	uint32_t skipped;  /* samples of this batch dropped by errors */
	struct ts_sample *s;
	float *data;	   /* n × 3 × out × out floats, CHW, when decoded */
	uint64_t wait_ns;  /* how long the consumer waited for this batch */
};

/* What one stage did. busy: doing its own work; wait_in: starved (nothing
 * from upstream: for the reader, waiting on the storage's completions);
 * wait_out: blocked (downstream full: read slots or the prefetch window). */
struct ts_stage_stats {
	uint64_t busy_ns, wait_in_ns, wait_out_ns;
	uint64_t samples, bytes;
};

struct ts_pipe_stats {
	const char *source;
	const char *decode_mode;  /* the mode that ran: real | modeled | none */
	char decode_note[384];	  /* modeled: the calibration or host profile used */
	uint64_t wall_ns;	  /* start to now (or to the end) */
	uint64_t samples, batches, bytes;
	uint64_t errors;	  /* samples skipped (skip policy) */
	char first_error[1024];
	struct ts_stage_stats reader, decode;
	uint64_t decode_workers;
	double reader_inflight_mean; /* time-weighted reads in flight */
	double queue_ready_mean;     /* time-weighted batches ready, not taken */
	uint64_t queue_ready_max;
	uint64_t mem_reserved;	     /* bytes allocated for buffers */
	uint64_t mem_peak;	     /* peak bytes held by samples and batches */
	bool fixed_buffers;	     /* registered buffers in use */
	struct ts_hist consumer_wait; /* per batch, ns */
	uint64_t consumer_wait_ns;   /* sum */
	/* Batches ready in the queue when the consumer asked, one per batch:
	 * occupancy over time, with the consumer's timestamps. */
	uint64_t series_n;
	const uint64_t *series_t_ns;
	const uint32_t *series_ready;
};

struct ts_pipe;

TS_WUR int ts_pipe_new(const struct ts_pipe_cfg *cfg, struct ts_pipe **out, char *err,
		       size_t errlen);
/* A log of the scheduler's decisions (scheduler.h), called under the
 * loader's lock from its threads; set before ts_pipe_start. */
void ts_pipe_set_log(struct ts_pipe *p, ts_sched_log_fn fn, void *ctx);
/* Record the reads, decodes and batches on @tl (timeline.h), in
 * ts_now_ns() time; set before ts_pipe_start. */
struct ts_tl_proc;
void ts_pipe_set_timeline(struct ts_pipe *p, struct ts_tl_proc *tl);
TS_WUR int ts_pipe_start(struct ts_pipe *p);
/* Blocks until the next batch is ready. Returns the wait in ns (>= 0) with
 * *out set, or with *out = NULL after the last batch; a negative code when
 * the loader failed (message in ts_pipe_error()). */
int64_t ts_pipe_next_batch(struct ts_pipe *p, struct ts_batch **out);
void ts_pipe_batch_release(struct ts_pipe *p, struct ts_batch *b);
/* With restart: the consumer starts the next epoch's reading (scheduler.h,
 * ts_sched_open_epoch); until then the loader reads nothing of it. */
void ts_pipe_open_epoch(struct ts_pipe *p);
/* Samples per epoch and batches per epoch as configured. */
uint64_t ts_pipe_samples_per_epoch(const struct ts_pipe *p);
uint64_t ts_pipe_batches_per_epoch(const struct ts_pipe *p);
/* The failure message ("" when none). */
const char *ts_pipe_error(const struct ts_pipe *p);
/* A copy of the counters. The series pointers stay valid until the next
 * ts_pipe_next_batch (or ts_pipe_free). */
void ts_pipe_stats(struct ts_pipe *p, struct ts_pipe_stats *st);
/* The stats as a JSON object (caller frees), NULL on allocation failure. */
char *ts_pipe_stats_json(const struct ts_pipe_stats *st);
/* Text source: the word for a token id, NULL when not a text source. */
const char *ts_pipe_word(const struct ts_pipe *p, uint32_t id);
/* Stops the threads and frees everything. */
void ts_pipe_free(struct ts_pipe *p);

/* How a loader under @cfg is laid out, for either driver (the real loader
 * and the virtual one, vpipe.h): the scheduler's configuration (queue
 * depth 1 for a source read by its own fetch, the read buffers the memory
 * budget gives) and the read slot size. @n: samples per epoch; @max_len: the
 * largest sample; @workers: decode workers (0 when nothing is decoded). */
struct ts_source_ops;
struct ts_pipe_layout {
	struct ts_sched_cfg sched;
	uint64_t slot_size;
};
void ts_pipe_layout(const struct ts_pipe_cfg *cfg, const struct ts_source_ops *ops, uint64_t n,
		    uint64_t max_len, unsigned workers, struct ts_pipe_layout *out);

/* The samples per epoch @cfg uses of a source of @total: [first,
 * first+count), count 0 meaning to the end. A start past the end, or one
 * on a source read in its own order only, is refused naming the option. */
TS_WUR int ts_pipe_range(const struct ts_pipe_cfg *cfg, const struct ts_source_ops *ops,
			 uint64_t total, uint64_t *n, char *err, size_t errlen);

/* decode=auto's rule for a source with images: modeled when more vCPUs
 * are emulated than the host has @cores, or @host is a host profile (another
 * CPU, charged, never run here); real otherwise. The runner asks it too,
 * to know whether a decode calibration is needed before the run. */
bool ts_pipe_decode_auto_modeled(uint64_t vcpus, const char *host, long cores);
/* The decode mode @cfg asks for (decode=auto: ts_pipe_decode_auto_modeled;
 * none for sources without images). */
TS_WUR int ts_pipe_decode_mode(const struct ts_pipe_cfg *cfg, const struct ts_source_ops *ops,
			       long cores, enum ts_decode_mode *out, char *err, size_t errlen);

/* The TS_URING_* flags (pipeline/uring.h) the reader runs its io_uring
 * with under @cfg. */
unsigned ts_pipe_uring_flags(const struct ts_pipe_cfg *cfg);

#endif
