/*
 * engine.h — the GPU engine: what consumes the pipeline's batches and turns
 * an IO stall into lost accelerator time.
 *
 * An engine is created for a model, a GPU type, a GPU count, a batch size
 * per GPU, a mode (train = forward + backward + update, infer = forward) and
 * a framework profile. Backends plug in through struct ts_engine_ops:
 *
 *   null  fixed step time, for testing the core and the runners;
 *   sim   step times from published throughputs and a compute / memory /
 *         allreduce model (engine/profiles/ (Lua)), on every machine;
 *   cuda  the real networks with cuDNN and cuBLAS on a real GPU (built when
 *         nvcc is found; asks for a GPU at ts_engine_new()).
 *
 * The engine never reads a clock. Each step takes the time its batch became
 * ready and returns when the GPU started and finished it, so one runner can
 * drive it in virtual time (use st.end_ns as the next event) and in real
 * time (call ts_engine_hold(), which sleeps until st.end_ns without burning
 * a core):
 *
 *   struct ts_engine *e;
 *   if (ts_engine_new(&cfg, &e, err, sizeof(err)) < 0) ...   // OOM is here
 *   for (;;) {
 *       uint64_t ready = batch_ready_time;                    // virtual or ts_now_ns()
 *       struct ts_engine_step st;
 *       if (ts_engine_step(e, ready, 0, &st) < 0) ...
 *       if (real_time) ts_engine_hold(e, &st);
 *   }
 *   struct ts_engine_report rep;
 *   ts_engine_report(e, &rep);
 *   ts_engine_free(e);
 *
 * No process-wide state: an MPI rank is just another instance.
 */
#ifndef TS_ENGINE_H
#define TS_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/hist.h"
#include "core/opt.h"
#include "core/rng.h"
#include "core/ts.h"

struct json_t;

enum ts_engine_mode {
	TS_ENGINE_TRAIN, /* forward + backward + update */
	TS_ENGINE_INFER, /* forward only */
};

/* Configuration, filled by ts_engine_opts (command line and Lua alike). */
struct ts_engine_cfg {
	char *backend;	  /* "sim", "cuda", "null" */
	char *model;	  /* "resnet50", "alexnet", ... (engine/profiles/models.lua) */
	char *gpu;	  /* "P100-PCIe", "V100", ... (engine/profiles/gpus.lua) */
	uint64_t gpus;	  /* data-parallel GPU count */
	uint64_t batch;	  /* samples per GPU per step */
	char *mode;	  /* "train" | "infer" */
	char *framework;  /* "nvcaffe", "mxnet", "tensorflow-2017", "pytorch-2021" */
	char *precision;  /* "" = the framework's default; "fp32" | "tf32" | "amp" */
	char *link;	  /* "" = the GPU's default interconnect; "pcie3", "nvlink1", ... */
	char *profile;	  /* extra Lua profile file merged over the built-in ones */
	char *hold_out;	  /* sim: "" | "batch" | "combination": this run's own published
			   * figures left out of the fit (a held-out check) */
	int band_end;	  /* sim, set by the caller (not an option): -1 or +1, the profiles'
			   * ranged numbers at the slow or fast end (--band); 0 their values */
	uint64_t seed;	  /* step-time jitter */
	uint64_t step_ns; /* null backend: the fixed step time */
	bool data;	  /* cuda backend: preprocess real u8 batches on the GPU */
};

/* The option table for struct ts_engine_cfg. */
extern const struct ts_opt ts_engine_opts[];

/* Where a throughput figure comes from. */
enum ts_engine_basis {
	TS_BASIS_ANCHORED,     /* a published figure at this batch */
	TS_BASIS_INTERPOLATED, /* between published figures of this combination */
	TS_BASIS_MODELED,      /* compute model with a fitted efficiency */
	TS_BASIS_MEASURED,     /* timed on a real GPU (cuda backend) */
	TS_BASIS_FIXED,	       /* null backend */
};
const char *ts_engine_basis_name(enum ts_engine_basis b);

/* What the engine expects of one step before it runs (no jitter, no stall). */
struct ts_engine_info {
	char model[48], gpu[48], framework[48], link[48], precision[8];
	enum ts_engine_mode mode;
	uint64_t gpus, batch;
	enum ts_engine_basis basis;
	char source[1024];	    /* citation of the anchor, or how it was modeled */
	double samples_per_s_1gpu;  /* one GPU at this batch */
	double samples_per_s;	    /* all GPUs, compute + exposed communication */
	uint64_t compute_ns;	    /* nominal compute per step */
	uint64_t comm_ns;	    /* nominal exposed communication per step */
	uint64_t mem_bytes;	    /* GPU memory needed per GPU */
	uint64_t mem_capacity;	    /* GPU memory of one GPU */
	double jitter_p99;	    /* step-time p99 / p50 */
	char band[1024];	    /* at a band end: the ranged figures moved that this run
				     * reads ("googlenet b_half, ..."); "" none */
};

/* One step, all in the caller's clock (ns). */
struct ts_engine_step {
	uint64_t index;	     /* 0-based */
	uint64_t samples;    /* samples in this step, all GPUs */
	uint64_t ready_ns;   /* when the batch was ready */
	uint64_t start_ns;   /* max(ready, previous end): the GPU starts */
	uint64_t wait_ns;    /* GPU idle waiting for data: start - previous end */
	uint64_t compute_ns; /* forward (+ backward + update) */
	uint64_t comm_ns;    /* gradient exchange not hidden behind backward */
	uint64_t end_ns;     /* start + compute + comm */
};

/* Per run. AU follows DLIO / MLPerf Storage: the first step is excluded,
 * and communication counts as accelerator time (DLIO folds it into its
 * computation_time):
 *   AU = sum(compute + comm, steps 2..n) / (end_n - end_1).
 * samples_per_s is over the same window. */
struct ts_engine_report {
	uint64_t steps, samples;
	uint64_t wall_ns;			  /* end_n - end_1 */
	uint64_t wait_ns, compute_ns, comm_ns;	  /* sums over steps 2..n */
	uint64_t first_step_ns;			  /* wait + compute + comm of step 1 */
	double samples_per_s;
	double au;				  /* 0..1; 0 with fewer than 2 steps */
	double au_compute;			  /* the same without communication */
	uint64_t step_p50_ns, step_p90_ns, step_p99_ns, step_max_ns; /* compute + comm */
	uint64_t wait_p50_ns, wait_p99_ns;
	struct ts_engine_info info;
};

struct ts_engine;

/*
 * The backend contract. Hooks run on the consumer's thread.
 *  init     build the backend state from e->cfg; may fail with TS_E_GPU_OOM,
 *           TS_E_NO_GPU, TS_E_UNKNOWN, TS_E_PROFILE with a message in err.
 *           Must fill e->info.
 *  step     run or model one step of @samples samples per GPU; fill
 *           *compute_ns and *comm_ns. A real backend blocks for the step.
 *  cleanup  free the backend state (also after a failed init).
 */
#define TS_ENGINE_OPS_VERSION 1
enum {
	TS_ENGINE_VIRTUAL = 1 << 0, /* durations are modeled: usable in virtual time */
	TS_ENGINE_NEEDS_GPU = 1 << 1,
};

struct ts_engine_ops {
	const char *name;
	unsigned version;
	unsigned flags;
	const char *help;
	TS_WUR int (*init)(struct ts_engine *e, char *err, size_t errlen);
	TS_WUR int (*step)(struct ts_engine *e, uint64_t samples, uint64_t *compute_ns,
			   uint64_t *comm_ns);
	void (*cleanup)(struct ts_engine *e);
};

/* Shared by the core and the backends; callers use the functions below. */
struct ts_engine {
	const struct ts_engine_ops *ops;
	struct ts_engine_cfg cfg;
	enum ts_engine_mode mode;
	struct ts_engine_info info;
	struct ts_rng rng;
	void *priv; /* backend state */

	uint64_t steps, samples;
	bool begun;
	uint64_t t0_ns, last_end_ns, first_end_ns;
	uint64_t first_step_ns;
	uint64_t wait_ns, compute_ns, comm_ns; /* steps 2..n */
	struct ts_hist *step_hist, *wait_hist;
};

/* Registry: NULL-terminated array of every backend built in. */
const struct ts_engine_ops *const *ts_engine_backends(void);
const struct ts_engine_ops *ts_engine_backend_find(const char *name);
/* Check an ops table: version, name, hooks. 0 or TS_E_VERSION/-EINVAL. */
TS_WUR int ts_engine_ops_check(const struct ts_engine_ops *ops, char *err, size_t errlen);

/* Defaults for every field (ts_opt_defaults over ts_engine_opts). */
TS_WUR int ts_engine_cfg_defaults(struct ts_engine_cfg *cfg, char *err, size_t errlen);
void ts_engine_cfg_free(struct ts_engine_cfg *cfg);

/* Create an engine; copies @cfg. A batch that does not fit the GPU fails
 * here with TS_E_GPU_OOM, a cuda run without a GPU with TS_E_NO_GPU. */
TS_WUR int ts_engine_new(const struct ts_engine_cfg *cfg, struct ts_engine **out, char *err,
			 size_t errlen);
void ts_engine_free(struct ts_engine *e);

/* Optional: the time the run starts (the first step's wait counts from
 * here); without it, from the first batch's ready time. */
void ts_engine_begin(struct ts_engine *e, uint64_t t0_ns);

/* One step on a batch ready at @batch_ready_ns; @samples per GPU, 0 = a
 * full batch (a short last batch passes fewer). */
TS_WUR int ts_engine_step(struct ts_engine *e, uint64_t batch_ready_ns, uint64_t samples,
			  struct ts_engine_step *st);
/* Real time: sleep until st->end_ns on the monotonic clock (no-op for a
 * backend that already blocked for the step). */
void ts_engine_hold(struct ts_engine *e, const struct ts_engine_step *st);

const struct ts_engine_info *ts_engine_get_info(const struct ts_engine *e);
void ts_engine_report(const struct ts_engine *e, struct ts_engine_report *rep);
/* The report as a JSON object (new reference), NULL on allocation failure. */
struct json_t *ts_engine_report_json(const struct ts_engine_report *rep);
/* "engine sim P100-PCIe x8 (profile nvcaffe) GoogLeNet train b32, anchored" */
char *ts_engine_describe(const struct ts_engine *e, char *buf, size_t n);

/* Modeling queries that need no instance (sweeps, advice, OOM tables):
 * fill @info for @cfg as ts_engine_new() would, without jitter state.
 * Returns TS_E_GPU_OOM (info still filled) when the batch does not fit. */
TS_WUR int ts_engine_estimate(const struct ts_engine_cfg *cfg, struct ts_engine_info *info,
			      char *err, size_t errlen);

#endif
