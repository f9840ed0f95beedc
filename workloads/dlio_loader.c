/*
 * dlio_loader.c — DLIO 2.0.0's PyTorch data loader in both clocks
 * (dlio_loader.h). The order, the workers' batches, the prefetch rule and
 * the per-sample chains are written once (the feed, below); the two clocks
 * differ only in who waits: threads on system calls, or events on the tier
 * model. The ranks' steps run on the consumer's step loop
 * (pipeline/steploop.h); what is this loader's is the rule by which a rank
 * takes its batch (v_take, r_take).
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/evq.h"
#include "core/interrupt.h"
#include "core/rng.h"
#include "workloads/dlio_loader.h"
#include "pipeline/dliochain.h"
#include "pipeline/dliofmt.h"
#include "pipeline/ds_dlio.h"
#include "pipeline/scheduler.h"
#include "pipeline/steploop.h"
#include "pipeline/vpipe.h"
#include "tier/fsmeta.h"

#define UNSET UINT64_MAX

/* ---- the feed: order, batches, chains ------------------------------------- */

struct feed {
	const struct ts_dl_cfg *c;
	enum ts_chain_fmt fmt; /* the reader's chain: NPZReader, HDF5Reader, ImageReader */
	uint64_t total, per_rank, steps;
	uint32_t *order; /* the global list, shuffled in place each epoch (NULL: perm) */
	struct ts_rng rng;
	/* From ts_sched_computed_from samples on (2^24), the list is not
	 * stored: after e shuffles by one permutation its place i holds
	 * perm^e(i), computed (ts_rng_perm) */
	struct ts_rng_perm perm;
	uint16_t *perm_tab;
	uint64_t shuffles;
	/* keep_open: [worker][file] bits, the files each worker (rank k's
	 * worker w is k x workers + w) holds open; row bytes a worker */
	uint8_t *held;
	size_t row;
};

uint64_t ts_dl_steps(const struct ts_dl_cfg *c)
{
	uint64_t t = c->meta ? c->meta->samples : 0;
	uint64_t s = c->batch && c->world ? t / (c->batch * c->world) : 0;
	return c->steps && c->steps < s ? c->steps : s;
}

uint64_t ts_dl_tf_steps(const struct ts_dl_cfg *c)
{
	const struct ts_dataset_meta *m = c->meta;
	if (!m || !c->batch || !c->world)
		return 0;
	/* tf_reader.py: floor(files / N / batch x per_file) batches per epoch */
	uint64_t s = (uint64_t)m->count / c->world * m->per_file / c->batch;
	return c->steps && c->steps < s ? c->steps : s;
}

static int feed_new(struct feed *p, const struct ts_dl_cfg *c, char *err, size_t errlen)
{
	memset(p, 0, sizeof(*p));
	p->c = c;
	const struct ts_dataset_meta *m = c->meta;
	if (!m || !m->samples || !m->per_file || ts_chain_fmt_find(m->kind->name, &p->fmt) ||
	    (m->per_file != 1 && p->fmt != TS_CHAIN_HDF5)) {
		snprintf(err, errlen, "DLIO's PyTorch loader reads npz, jpeg and png datasets of one "
				      "sample per file and hdf5 datasets");
		return -EINVAL;
	}
	if (!c->ranks || !c->world || c->rank0 + c->ranks > c->world || !c->batch || !c->workers ||
	    !c->prefetch_factor || m->samples > UINT32_MAX) {
		snprintf(err, errlen, "DLIO loader: ranks, batch, workers and prefetch must be set");
		return -EINVAL;
	}
	p->total = m->samples;
	p->per_rank = p->total / c->world;
	p->steps = ts_dl_steps(c);
	if (!p->steps) {
		snprintf(err, errlen, "%" PRIu64 " samples make no step of %" PRIu64 " samples on each "
				      "of %" PRIu64 " ranks; use more files "
				      "(++workload.dataset.num_files_train=...)", p->total, c->batch, c->world);
		return -EINVAL;
	}
	p->row = (p->total / m->per_file + 7) / 8;
	if (c->keep_open && !(p->held = calloc(c->ranks * c->workers, p->row)))
		return -ENOMEM;
	if (p->total >= ts_sched_computed_from())
		return (p->perm_tab = malloc(ts_rng_perm_entries(p->total) * sizeof(*p->perm_tab)))
			       ? 0 : -ENOMEM;
	if (!(p->order = malloc(p->total * sizeof(*p->order))))
		return -ENOMEM;
	for (uint64_t i = 0; i < p->total; i++)
		p->order[i] = (uint32_t)i;
	return 0;
}

/* dlio_sampler.__iter__: reseeded with the seed, the persisting list
 * shuffled again (Shuffle.SEED): in place below 2^24 samples; from
 * there on (the scheduler's rule, ts_sched_computed_from) by a computed
 * permutation of the same seed each epoch, applied once more, where the
 * list of 4 bytes a sample was written whole every epoch. */
static void feed_epoch(struct feed *p)
{
	if (!p->c->shuffle)
		return;
	ts_rng_seed(&p->rng, p->c->seed);
	if (!p->order) {
		ts_rng_perm_init(&p->perm, &p->rng, p->total, p->perm_tab);
		p->shuffles++;
		return;
	}
	ts_rng_shuffle_u32(&p->rng, p->order, p->total);
}

static uint64_t feed_sample(const struct feed *p, uint64_t k, uint64_t j, uint64_t pos)
{
	uint64_t i = (p->c->rank0 + k) * p->per_rank + j * p->c->batch + pos;
	if (p->order)
		return p->order[i];
	for (uint64_t e = 0; e < p->shuffles; e++) /* the list shuffled e times */
		i = ts_rng_perm_at(&p->perm, i);
	return i;
}

/* The file sample @i lies in: DLIO's global_index_map (sample i is record
 * i mod per_file of file i / per_file; one a file but for hdf5). */
static uint64_t file_of(const struct ts_dataset_meta *m, uint64_t i)
{
	return i / m->per_file;
}

/* Where sample @i's file of @p's format holds its array (npz: x's data;
 * hdf5: its record, 2048 + k records in; an image: the whole file, which
 * the decoder reads). */
static struct ts_chain_file feed_file(const struct feed *p, uint64_t i)
{
	const struct ts_dataset_meta *m = p->c->meta;
	struct ts_chain_file f = { .size = m->files[file_of(m, i)].bytes };
	if (p->fmt == TS_CHAIN_NPZ) {
		f.member = TS_NPZ_MEMBER;
		ts_npz_payload(f.size, &f.data_off, &f.data_len);
	} else if (p->fmt == TS_CHAIN_HDF5) {
		f.data_len = ts_dataset_sample_len(m, i);
		f.data_off = TS_HDF5_DATA + i % m->per_file * f.data_len;
	} else {
		f.data_len = f.size;
	}
	return f;
}

/* Whether worker @wk (k x workers + w) holds sample @i's file open
 * (keep_open), marked held from now on: it keeps what it reads. */
static bool feed_hold(struct feed *p, uint64_t wk, uint64_t i)
{
	uint64_t f = file_of(p->c->meta, i);
	uint8_t *b = &p->held[wk * p->row + f / 8], bit = (uint8_t)(1u << (f % 8));
	bool was = *b & bit;
	*b |= bit;
	return was;
}

/* The requests of a chain that reach the file system's daemon through a
 * FUSE mount with the kernel's attribute cache (tierfs's default, as in
 * DLIO's runs here): the open, the reads, the close; of the getattrs the
 * file's own lookup before its open (the folders' are cached) and a stat
 * after a read (the read invalidated the atime; a seek to the end asks
 * the cached size alone); no flush (read-only opens: FOPEN_NOFLUSH). So
 * DLIO's traces count them per file: npz 2 getattrs, hdf5 2, jpeg 1
 * (workloads/DLIO.md). dlio_run_request_ns was measured per such request
 * (15 a 112 KiB npz sample, 13 hdf5, 6 jpeg, against 21, 16 and 9 in the
 * chain). */
uint64_t ts_dl_chain_daemon_reqs(const struct ts_chain_req *r, size_t n)
{
	uint64_t k = 0;
	bool lookup = false, opened = false, read = false;
	for (size_t q = 0; q < n; q++) {
		switch (r[q].op) {
		case TS_CHAIN_OPEN:
			k += 1 + lookup;
			lookup = read = false;
			opened = true;
			break;
		case TS_CHAIN_READ:
			k++;
			read = true;
			break;
		case TS_CHAIN_CLOSE: k++; break;
		case TS_CHAIN_GETATTR:
			if (r[q].seek_end)
				break;
			if (read)
				k++;
			else if (!opened)
				lookup = true;
			read = false;
			break;
		default: break; /* the walk (inside its call), the flush */
		}
	}
	return k;
}

static size_t feed_build(const struct feed *p, const struct ts_chain_file *f, int held,
			 struct ts_chain_req *buf, size_t cap)
{
	return held < 0 ? ts_chain_build(p->fmt, f, buf, cap)
			: ts_chain_build_kept(p->fmt, f, held, buf, cap);
}

/* The chain of sample @i in worker @wk into *@buf (grown as needed): its
 * length (0: no request, a file the worker holds), or SIZE_MAX out of
 * memory; *@held (may be NULL): whether the worker held its file;
 * @cpu (may be NULL): the host's CPU for its requests in the reading
 * thread (request_ns per request of the whole chain, request_ns_per_mib
 * per MiB it reads; a walk over the path's folders is inside the open's or
 * the stat's cost, as request_ns was measured: tiersim hosts measure
 * counts it so too); @daemon (may be NULL): the file system daemon's
 * (request_daemon_ns and run_request_ns per request that reaches it,
 * ts_dl_chain_daemon_reqs: the figures were measured per request tierfs saw;
 * request_daemon_ns_per_mib per MiB read). */
static size_t feed_chain(struct feed *p, uint64_t wk, uint64_t i, struct ts_chain_req **buf,
			 size_t *cap, bool *was_held, uint64_t *cpu, uint64_t *daemon)
{
	struct ts_chain_file f = feed_file(p, i);
	int held = p->held ? feed_hold(p, wk, i) : -1;
	if (was_held)
		*was_held = held > 0;
	size_t n = feed_build(p, &f, held, *buf, *cap);
	if (n > *cap) {
		struct ts_chain_req *nb = realloc(*buf, n * sizeof(*nb));
		if (!nb)
			return SIZE_MAX;
		*buf = nb;
		*cap = n;
		n = feed_build(p, &f, held, *buf, *cap);
	}
	if (cpu || daemon) {
		uint64_t bytes = 0, reqs = 0;
		for (size_t q = 0; q < n; q++) {
			bytes += (*buf)[q].op == TS_CHAIN_READ ? (*buf)[q].len : 0;
			reqs += (*buf)[q].op != TS_CHAIN_WALK;
		}
		if (cpu)
			*cpu = reqs * p->c->request_ns +
			       (uint64_t)((double)bytes * p->c->request_ns_per_mib / 1048576.0);
		if (daemon)
			*daemon = ts_dl_chain_daemon_reqs(*buf, n) *
					  (p->c->request_daemon_ns + p->c->run_request_ns) +
				  (uint64_t)((double)bytes * p->c->request_daemon_ns_per_mib /
					     1048576.0);
	}
	if (!p->c->coalesce)
		return n;
	/* what the tier is charged (the open, the reads), contiguous reads as one */
	struct ts_chain_req *r = *buf;
	size_t k = 0;
	for (size_t q = 0; q < n; q++) {
		if (r[q].op != TS_CHAIN_READ && r[q].op != TS_CHAIN_OPEN)
			continue;
		if (k && r[q].op == TS_CHAIN_READ && r[k - 1].op == TS_CHAIN_READ &&
		    r[k - 1].off + r[k - 1].len == r[q].off)
			r[k - 1].len += r[q].len, r[k - 1].cpu += r[q].cpu;
		else
			r[k++] = r[q];
	}
	return k;
}

/* The bytes of the arrays of the samples an epoch's steps take
 * (feed_file's data_len). */
static uint64_t feed_payload(const struct feed *p)
{
	uint64_t sum = 0;
	for (uint64_t k = 0; k < p->c->ranks; k++)
		for (uint64_t j = 0; j < p->steps; j++)
			for (uint64_t q = 0; q < p->c->batch; q++)
				sum += feed_file(p, feed_sample(p, k, j, q)).data_len;
	return sum;
}

static uint64_t feed_window(const struct feed *p)
{
	return TS_MIN(p->c->workers * p->c->prefetch_factor, p->steps);
}

static int result_init(struct ts_dl_result *r, const struct feed *p)
{
	memset(r, 0, sizeof(*r));
	r->steps = p->steps;
	if (!(r->ep = calloc(p->c->epochs, sizeof(*r->ep))))
		return -ENOMEM;
	r->nep = p->c->epochs;
	for (uint64_t e = 0; e < p->c->epochs; e++)
		if (!(r->ep[e].first_end = calloc(p->c->ranks, sizeof(uint64_t))))
			return -ENOMEM;
	return 0;
}

void ts_dl_result_free(struct ts_dl_result *r)
{
	for (uint64_t e = 0; r->ep && e < r->nep; e++)
		free(r->ep[e].first_end);
	free(r->ep);
	memset(r, 0, sizeof(*r));
}

/* ---- virtual time ------------------------------------------------------- */

/*
 * The host's cores (cfg.vcpus): the workers' CPU per sample and the ranks'
 * CPU per step are work that waits for one of n cores, served first come
 * first served: a piece that becomes runnable at t starts on the core that
 * frees first (at t if one is idle) and holds it to its end (a worker's
 * piece: a slice of it, below). Pieces reach
 * cores_run in the order they become runnable (the loader's events are
 * taken in time order; v_take starts a rank's step no later than the next
 * event, and every step it starts in one pass at the same time, the later
 * of the barrier and the last event), so each one's end is known when it
 * arrives: the pieces before it are all placed.
 *
 * A worker's piece does not hold its core to its end: DLIO's own runs,
 * which the model is held against, leave its threads in Linux's fair
 * class (EEVDF since 6.6, CFS before it), and a worker is woken by its
 * file system's daemon (a FUSE reply from another process), not by a
 * timer of its own. With N such workers on C cores the kernel shares
 * the cores among the runnable ones, close to processor sharing, not first
 * come first served: bench/dlio_cfs_wait.py (N workers, each a process
 * asking a server process of its own through a pipe, 1 ms a request, then
 * a piece of CPU; 2 vCPUs of the AMD EPYC Zen 3 guest, q bench 2026-12-07
 * 02:15-02:17 UTC, 3 rounds) measured each piece's wait for a core
 * (schedstat) at 11.6, 22.0 and 133.8 us with 2, 4 and 8 workers of
 * 200 us pieces, 114.5 and 764.9 us with 4 and 8 of 500 us, where the
 * same closed loop first come first served (this model until 2026-12-07,
 * pieces under 1.5 ms whole) gives 10.6, 16.8, 54.6, 53.3 and 576.9 us
 * (Linux 1.09-2.45 times it) and processor sharing 10.6, 21.0, 95.2,
 * 102.0 and 659.9 (1.05-1.41 times); woken by their own timers instead
 * the same workers wait less than either (8 of 200 us: 34.5 us against 43.2
 * first come first served): the cross-process wake-up is what shares them.
 * So every piece of a worker's work runs in slices (the host's
 * dlio_core_slice_ns, else CORES_SHARE_NS), each queued again behind the
 * pieces already waiting (round robin), which at 50 us
 * in the same loop gives processor sharing's waits within 5% (91 against
 * 95 us at 8 x 200 us). A piece's total CPU is unchanged; only when it
 * ends moves. An iterator's start (forking or resuming a rank's workers)
 * is sliced the same way. The pieces placed at once (a rank's step, whose
 * end the step loop needs when it places it; the daemon's share beside a
 * request) still hold their core to their end. (Under bench/dlio_peer.sh
 * --chrt, SCHED_FIFO at one priority, DLIO's pieces run to their end
 * instead; the model follows the fair class.)
 */
struct cores {
	uint64_t n;	   /* 0: no limit (each worker and rank a core of its own) */
	uint64_t *free_at; /* [n]: when each core is next free */
};

/* The round robin's slice that stands for the fair class's sharing
 * (struct cores) where the host profile sets none (cfg.core_slice_ns,
 * dlio_core_slice_ns): short against a worker's pieces (DLIO's png
 * reader's 200 us shares, 1.2 ms a sample) so that it behaves as
 * processor sharing, long against the model's cost per event. Assumed:
 * 25 to 100 us give the same waits within 7% in bench/dlio_cfs_wait.py's
 * loop (low 25 us, high 100 us). A host profile's figure is measured by
 * the same loop (the times a worker's piece goes on a core beyond a
 * worker alone's: pipeline/hosts.lua). */
#define CORES_SHARE_NS 50000ULL

/* @ns of work runnable at @t: when it ends. */
static uint64_t cores_run(struct cores *cs, uint64_t t, uint64_t ns)
{
	if (!cs->n || !ns)
		return t + ns;
	uint64_t *c = &cs->free_at[0];
	for (uint64_t i = 1; i < cs->n; i++)
		if (cs->free_at[i] < *c)
			c = &cs->free_at[i];
	*c = TS_MAX(t, *c) + ns;
	return *c;
}

/* The share of a sample's CPU still to charge (@left, over @pieces
 * requests) that the request of chain weight @wq takes, both taken off:
 * its weight's part of @left where the chain has weights (@wleft, their
 * sum still to come; the last takes the rest), else an equal share. One
 * rule for both clocks (vw_event, r_sample). */
static uint64_t cpu_share(uint64_t *left, uint64_t *pieces, uint64_t *wleft, uint64_t wq)
{
	uint64_t ns = *left / (*pieces)--;
	if (*wleft) {
		ns = *pieces ? (uint64_t)((double)*left * (double)wq / (double)*wleft) : *left;
		*wleft -= wq;
	}
	*left -= ns;
	return ns;
}

struct vworker {
	uint64_t k, w;
	uint64_t next;	   /* its next batch this epoch */
	uint64_t batch;	   /* the batch it reads; UNSET: idle */
	uint64_t pos;	   /* sample in the batch */
	uint64_t sample;
	size_t req, nreq;  /* the sample's chain */
	/* The sample's CPU (its own and its requests' in the reading thread),
	 * not yet charged, in equal shares after each of its @pieces charged
	 * requests still to end. */
	uint64_t cpu_left, pieces;
	/* The chain's weights (ts_chain_req.cpu) of those pieces: each takes
	 * its weight's share of cpu_left; 0: equal shares. */
	uint64_t wleft;
	/* The daemon's CPU for the sample's requests, not yet charged, in
	 * equal shares beside each of its @dpieces charged requests still to
	 * start. */
	uint64_t daemon_left, dpieces;
	/* The piece it runs on the cores (a share, the chain's end, the
	 * collation), not yet run: a slice at a time (struct cores). */
	uint64_t run_left;
	/* Its rank's iterator starting (start_ns, restart_ns), run on the
	 * cores as this worker's piece: the rank's first batches go out at
	 * its end. Only a rank's first worker, before its first batch. */
	bool starting;
	bool owed;	   /* the request that ended owes its share */
	bool collated;	   /* its batch read, being collated (collate_ns) */
	uint64_t read;	   /* samples it has read this run (its epochs together) */
	/* Its pieces' waits for a core (beyond their slices' own time) since
	 * its batch began: the ranks' spread's wait term (spread_wait). */
	uint64_t waited;
	struct ts_chain_req *chain;
	size_t cap;
};

struct vrank {
	uint64_t dispatched;
	uint64_t *ready; /* [step] */
	uint64_t take;	 /* this step's; UNSET: not yet */
};

/* The ranks' steps (pipeline/steploop.h), in either clock: a step is the
 * rank's CPU and the computation from when it took its batch; the first
 * step's end is kept, the epoch's end is the last barrier. The loader's
 * own state (struct vl, struct rl) begins with this. */
struct dl_steps {
	const struct ts_dl_cfg *c;
	struct ts_dl_result *r;
	ts_dl_step_fn fn; /* virtual time: after every step (NULL: none) */
	void *ctx;
	uint64_t e;    /* the epoch; UNSET before the first */
	uint64_t step; /* the step the ranks are taking, in the epoch */
	uint64_t taken; /* ranks that took their batch of it */
};

static int dl_taken(void *self, const struct ts_take *b, const struct ts_step_span *sp, char *err,
		    size_t errlen)
{
	struct dl_steps *d = self;
	(void)err, (void)errlen;
	if (d->step == 0)
		d->r->ep[d->e].first_end[b->rank] = sp->end;
	return 0;
}

static int dl_step_end(void *self, const struct ts_take *b, const struct ts_step_span *sp,
		       uint64_t end, char *err, size_t errlen)
{
	struct dl_steps *d = self;
	(void)b, (void)sp, (void)err, (void)errlen;
	struct ts_dl_epoch *ep = &d->r->ep[d->e];
	if (!d->fn || !d->fn(d->ctx, d->e, d->step, ep, end))
		return 0;
	ep->end = end;
	d->r->epochs = d->e + 1;
	return 1;
}

enum dl_next { DL_END, DL_SAME_STEP, DL_NEW_STEP, DL_NEW_EPOCH };

/* Where the next take falls: in the step being taken, a new step
 * (d->step), a new epoch (d->e, its step 0), or past the last epoch. An
 * epoch closes at @bar, the last step's end. */
static enum dl_next dl_next_step(struct dl_steps *d, uint64_t bar)
{
	if (d->e != UNSET && d->taken < d->c->ranks)
		return DL_SAME_STEP;
	d->taken = 0;
	if (d->e != UNSET && ++d->step < d->r->steps)
		return DL_NEW_STEP;
	if (d->e != UNSET) {
		d->r->ep[d->e].end = bar;
		d->r->epochs = d->e + 1;
	}
	d->e = d->e == UNSET ? 0 : d->e + 1;
	d->step = 0;
	return d->e < d->c->epochs ? DL_NEW_EPOCH : DL_END;
}

/* @run: what a step is (NULL: the rank's CPU and the computation, a fixed
 * time; steploop.h). */
static int dl_run(struct dl_steps *d, const struct ts_steploop_src *src,
		  int (*run)(void *, const struct ts_take *, uint64_t, struct ts_step_span *, char *,
			     size_t),
		  bool real, uint64_t t0, char *err, size_t errlen)
{
	const struct ts_dl_cfg *c = d->c;
	d->e = UNSET;
	struct ts_steploop_ops ops = { .run = run, .taken = dl_taken, .step_end = dl_step_end,
				       .self = d };
	struct ts_steploop L = { .src = src, .ops = &ops, .ranks = c->ranks, .limit = UINT64_MAX,
				 .t0 = t0, .real = real, .step_ns = c->step_ns + c->compute_ns,
				 .spin_ns = c->step_ns };
	return ts_steploop_run(&L, err, errlen);
}

struct vl {
	struct dl_steps d;
	struct feed p;
	const struct ts_dl_cfg *c;
	const struct ts_vdisk *disk;
	struct vworker *wk;
	struct vrank *rk;
	struct ts_evq q; /* the workers' next events, mostly pushed near the back */
	uint64_t tie;
	uint64_t *pending; /* ranks whose batch of this step is ready */
	uint64_t npending;
	/* The pass over the pending ranks: each whose start is no later than
	 * the loader's next event (@top, as the pass began) takes its batch;
	 * a pass that took none lets that event happen. */
	bool in_pass, took;
	uint64_t pass_i, top;
	struct ts_dl_result *r;
	struct cores cores;
	struct ts_dlio_fs fs; /* c->fs: the files' lookups (pipeline/ds_dlio.h) */
	uint64_t reading; /* workers reading a batch (cpu_alone) */
};

/* The host's CPU for sample @i in a worker (its profile's dlio_sample_ns,
 * per MiB, and for a jpeg per megapixel of its image): charged in virtual
 * time, spent as busy CPU in real time. */
static uint64_t cpu_ns(const struct ts_dl_cfg *c, uint64_t i)
{
	const struct ts_dataset_meta *m = c->meta;
	double ns = (double)ts_dataset_sample_len(m, i) * c->sample_ns_per_mib / 1048576.0;
	if (c->jpeg_ns_per_mpix > 0 && m->width && m->height)
		ns += (double)m->width[i] * m->height[i] * c->jpeg_ns_per_mpix / 1e6;
	return c->sample_ns + (uint64_t)ns;
}

/* @ns of a worker's own CPU for a sample (a share of it), run while
 * @reading workers of the process read a batch, itself among them:
 * cpu_alone times it where they are no more than the host's cores. */
static uint64_t alone_ns(const struct ts_dl_cfg *c, uint64_t reading, uint64_t ns)
{
	if (!(c->cpu_alone > 0) || c->cpu_alone == 1 || !c->vcpus || reading > c->vcpus)
		return ns;
	return (uint64_t)llround((double)ns * c->cpu_alone);
}

/* The worker's collection (worker_gc_ns) where @read, its samples so far
 * this run with this one, reaches worker_gc_at. */
static uint64_t gc_ns(const struct ts_dl_cfg *c, uint64_t read)
{
	return c->worker_gc_at && read == c->worker_gc_at ? c->worker_gc_ns : 0;
}

/* A worker's collation of a batch: collate_ns, and collate_fresh_ns more
 * (its shared memory fresh to the hypervisor; dlio_loader.h). */
static uint64_t collate_ns(const struct ts_dl_cfg *c)
{
	return c->collate_ns + c->collate_fresh_ns;
}

/* The standard normal's quantile at @p (0 < p < 1), by bisection on
 * its distribution function. */
static double normal_quantile(double p)
{
	double lo = -10, hi = 10;
	for (int i = 0; i < 80; i++) {
		double mid = (lo + hi) / 2;
		if (0.5 * erfc(-mid / 1.4142135623730951) < p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

/* How much later rank @k (of this process) hands over its first batch of
 * epoch @e, @elapsed after the epoch's loader started, its worker having
 * waited @waited for a core over the batch (spread and spread_wait in
 * dlio_loader.h): Blom's scores z_i = quantile((i + 1 - 3/8) / (N + 1/4)). */
static uint64_t first_delay(const struct ts_dl_cfg *c, uint64_t k, uint64_t e, uint64_t elapsed,
			    uint64_t waited)
{
	uint64_t n = c->world ? c->world : c->ranks;
	if (!(c->spread > 0 || c->spread_wait > 0) || n < 2)
		return 0;
	uint64_t slot = (c->rank0 + k + e) % n;
	double z0 = normal_quantile((1 - 0.375) / ((double)n + 0.25));
	double zs = normal_quantile(((double)slot + 1 - 0.375) / ((double)n + 0.25));
	double sd = (c->spread > 0 ? c->spread * (double)elapsed : 0) +
		    (c->spread_wait > 0 ? c->spread_wait * (double)waited : 0);
	return (uint64_t)llround(sd * (zs - z0));
}

static int vw_sample(struct vl *v, struct vworker *w)
{
	w->sample = feed_sample(&v->p, w->k, w->batch, w->pos);
	uint64_t req_cpu = 0, daemon = 0;
	w->nreq = feed_chain(&v->p, w->k * v->c->workers + w->w, w->sample, &w->chain, &w->cap,
			     NULL, &req_cpu, &daemon);
	if (w->nreq == SIZE_MAX)
		return -ENOMEM;
	w->req = 0;
	w->cpu_left = cpu_ns(v->c, w->sample) + gc_ns(v->c, ++w->read) + req_cpu;
	w->dpieces = 0;
	for (size_t q = 0; q < w->nreq; q++)
		w->dpieces += w->chain[q].op == TS_CHAIN_READ || w->chain[q].op == TS_CHAIN_OPEN;
	/* on cores of their own no one waits for a share: all after the chain */
	w->pieces = v->cores.n ? w->dpieces : 0;
	w->wleft = 0;
	for (size_t q = 0; w->pieces && q < w->nreq; q++)
		w->wleft += w->chain[q].op == TS_CHAIN_READ || w->chain[q].op == TS_CHAIN_OPEN
				    ? w->chain[q].cpu : 0;
	/* a chain with nothing charged to the tier (getattrs alone): its
	 * daemon's part runs with the reader's, after it */
	w->daemon_left = w->dpieces ? daemon : 0;
	w->cpu_left += w->dpieces ? 0 : daemon;
	w->owed = false;
	return 0;
}

static int vw_start(struct vl *v, struct vworker *w, uint64_t t)
{
	w->batch = w->next;
	v->reading++;
	w->pos = 0;
	int rc = vw_sample(v, w);
	return rc ? rc : ts_evq_push(&v->q, t, v->tie++, w);
}

/* The training loop took a batch of rank @k at @t: one more goes out. */
static int v_dispatch(struct vl *v, uint64_t k, uint64_t t)
{
	struct vrank *r = &v->rk[k];
	if (r->dispatched >= v->p.steps)
		return 0;
	uint64_t d = r->dispatched++;
	struct vworker *w = &v->wk[k * v->c->workers + d % v->c->workers];
	return w->batch == UNSET && w->next == d ? vw_start(v, w, t) : 0;
}

/* Worker @w runs @ns on the cores from @t: its first slice queued (all of
 * it where the cores are not counted), the rest at its events. */
static int vw_run(struct vl *v, struct vworker *w, uint64_t t, uint64_t ns)
{
	uint64_t s = !v->cores.n ? ns : v->c->core_slice_ns ? v->c->core_slice_ns : CORES_SHARE_NS;
	if (ns > s) {
		w->run_left = ns - s;
		ns = s;
	}
	uint64_t end = cores_run(&v->cores, t, ns);
	w->waited += end - t - ns;
	return ts_evq_push(&v->q, end, v->tie++, w);
}

/* Worker @w's event at @t: its share of the sample's CPU after a request,
 * its next request (with the daemon's share beside it: the request ends
 * when the tier answers, or when the daemon's share does if later), its
 * batch. On the host's cores (cores.n) the CPU of a
 * sample (DLIO's reader working between its reads, the system calls) is
 * spread over its requests: a core is held for a share after each one
 * ends, so that a rank's step or another worker waiting for a core waits a
 * share, not a whole sample. On cores of their own nothing waits, and all
 * of it is charged after the chain. */
static int vw_event(struct vl *v, struct vworker *w, uint64_t t)
{
	if (w->run_left) { /* its slice ended: the next, behind those waiting */
		uint64_t ns = w->run_left;
		w->run_left = 0;
		return vw_run(v, w, t, ns);
	}
	if (w->starting) { /* its rank's iterator started */
		int rc = 0;
		w->starting = false;
		for (uint64_t d = 0; !rc && d < feed_window(&v->p); d++)
			rc = v_dispatch(v, w->k, t);
		return rc;
	}
	for (;;) {
		if (w->owed) {
			uint64_t ns = cpu_share(&w->cpu_left, &w->pieces, &w->wleft,
						w->chain[w->req - 1].cpu);
			w->owed = false;
			ns = alone_ns(v->c, v->reading, ns);
			if (ns)
				return vw_run(v, w, t, ns);
		}
		if (w->req < w->nreq) {
			const struct ts_chain_req *q = &w->chain[w->req++];
			if (q->op != TS_CHAIN_READ && q->op != TS_CHAIN_OPEN)
				continue; /* getattr, flush, close: free (fs/timing.c) */
			uint64_t f = file_of(v->c->meta, w->sample);
			struct ts_vio io = q->op == TS_CHAIN_OPEN /* the lookups (c->fs) */
					? ts_dlio_fs_open(&v->fs, f)
					: (struct ts_vio){ .op = TS_VIO_READ, .file = f + 2,
							   .off = q->off, .len = q->len,
							   .size = v->c->meta->files[f].bytes };
			if (q->op == TS_CHAIN_READ) {
				v->r->read_requests++;
				v->r->read_bytes += q->len;
			} else {
				v->r->meta_requests++;
			}
			w->owed = w->pieces > 0;
			uint64_t done = v->disk->submit(v->disk->ctx, t, &io);
			if (w->daemon_left) { /* the daemon serves it while it waits */
				uint64_t ns = w->daemon_left / w->dpieces;
				w->daemon_left -= ns;
				uint64_t served = cores_run(&v->cores, t, ns);
				done = TS_MAX(done, served);
			}
			done += v->c->request_wait_ns; /* waking the reader (dlio_loader.h) */
			w->dpieces--;
			return ts_evq_push(&v->q, done, v->tie++, w);
		}
		if (w->cpu_left) { /* not in shares: all of it at the chain's end */
			uint64_t ns = alone_ns(v->c, v->reading, w->cpu_left);
			w->cpu_left = 0;
			return vw_run(v, w, t, ns);
		}
		if (!w->collated) {
			v->r->samples++;
			if (++w->pos < v->c->batch) {
				int rc = vw_sample(v, w);
				if (rc)
					return rc;
				continue;
			}
			/* the batch collated and handed over (collate_ns) */
			w->collated = true;
			uint64_t cns = collate_ns(v->c);
			if (cns)
				return vw_run(v, w, t, cns);
		}
		w->collated = false;
		struct vrank *r = &v->rk[w->k];
		r->ready[w->batch] = t;
		if (w->batch == 0) /* the epoch's first: later by the ranks' spread */
			r->ready[0] += first_delay(v->c, w->k, v->d.e, t - v->r->ep[v->d.e].start,
						   w->waited);
		if (w->batch == v->d.step)
			v->pending[v->npending++] = w->k;
		w->batch = UNSET;
		v->reading--;
		w->waited = 0;
		w->next += v->c->workers;
		if (w->next >= r->dispatched)
			return 0;
		w->batch = w->next;
		v->reading++;
		w->pos = 0;
		int rc = vw_sample(v, w);
		if (rc)
			return rc;
	}
}

/* Epoch d.e's loader starts at @t: nothing in flight, the workers idle,
 * each rank's first batches given out. */
static int v_epoch(struct vl *v, uint64_t t)
{
	const struct ts_dl_cfg *c = v->c;
	struct ts_dl_epoch *ep = &v->r->ep[v->d.e];
	uint64_t nw = c->ranks * c->workers, S = v->p.steps;
	int rc = 0;
	while (ts_evq_len(&v->q)) /* nothing is in flight at an epoch's end */
		(void)ts_evq_pop(&v->q);
	feed_epoch(&v->p);
	ep->start = t;
	if (v->d.fn)
		ep->payload = feed_payload(&v->p);
	v->npending = 0;
	v->reading = 0;
	for (uint64_t i = 0; i < nw; i++)
		v->wk[i] = (struct vworker){ .k = i / c->workers, .w = i % c->workers,
					     .next = i % c->workers, .batch = UNSET,
					     .read = v->wk[i].read, .chain = v->wk[i].chain,
					     .cap = v->wk[i].cap };
	/* each rank's iterator starts first (forking or resuming its workers),
	 * its own work: where the host's cores are counted, a piece on them in
	 * slices as a worker's (run as its first worker's, which is idle until
	 * then), its first batches given out at its end */
	uint64_t start = v->d.e ? c->restart_ns : c->start_ns;
	for (uint64_t k = 0; !rc && k < c->ranks; k++) {
		v->rk[k].dispatched = 0;
		for (uint64_t j = 0; j < S; j++)
			v->rk[k].ready[j] = UNSET;
		if (v->cores.n && start) {
			struct vworker *w = &v->wk[k * c->workers];
			w->starting = true;
			rc = vw_run(v, w, t, start);
			continue;
		}
		for (uint64_t d = 0; !rc && d < feed_window(&v->p); d++)
			rc = v_dispatch(v, k, t + start);
	}
	return rc;
}

/* Virtual time on a host's cores: a rank's step is its CPU, queued for a
 * core from when it takes its batch, then the computation. */
static int v_step(void *self, const struct ts_take *b, uint64_t free_at, struct ts_step_span *sp,
		  char *err, size_t errlen)
{
	struct vl *v = self; /* its dl_steps, the step loop's self, comes first */
	(void)err, (void)errlen;
	sp->start = TS_MAX(b->ready, free_at);
	sp->end = cores_run(&v->cores, sp->start, v->c->step_ns) + v->c->compute_ns;
	return 0;
}

/* The step loop's take (pipeline/steploop.h): the ranks whose batch of
 * this step is ready, in passes; a rank takes its batch when the step
 * can start it (max(ready, @bar)) no later than the loader's next event;
 * else the next event happens. */
static int v_take(void *self, uint64_t bar, struct ts_take *b, char *err, size_t errlen)
{
	struct vl *v = self;
	const struct ts_dl_cfg *c = v->c;
	uint64_t j;
	int rc;
	switch (dl_next_step(&v->d, bar)) {
	case DL_END:
		return 0;
	case DL_NEW_EPOCH:
		if ((rc = v_epoch(v, bar)))
			return rc;
		__attribute__((fallthrough));
	case DL_NEW_STEP:
		j = v->d.step;
		v->npending = 0;
		for (uint64_t k = 0; k < c->ranks; k++) {
			v->rk[k].take = UNSET;
			if (v->rk[k].ready[j] != UNSET)
				v->pending[v->npending++] = k;
		}
		v->in_pass = false;
		break;
	case DL_SAME_STEP:
		break;
	}
	j = v->d.step;
	for (;;) {
		if (!v->in_pass) {
			v->top = ts_evq_len(&v->q) ? ts_evq_top(&v->q)->key : UNSET;
			v->pass_i = 0;
			v->took = false;
			v->in_pass = true;
		}
		while (v->pass_i < v->npending) {
			uint64_t k = v->pending[v->pass_i];
			if (TS_MAX(v->rk[k].ready[j], bar) > v->top) {
				v->pass_i++;
				continue;
			}
			v->pending[v->pass_i] = v->pending[--v->npending];
			v->rk[k].take = TS_MAX(v->rk[k].ready[j], bar);
			v->d.taken++;
			v->took = true;
			*b = (struct ts_take){ .rank = k, .epoch = v->d.e, .seq = j,
					       .ready = v->rk[k].ready[j], .n = (uint32_t)c->batch };
			return 1;
		}
		v->in_pass = false;
		if (v->took)
			continue;
		if (!ts_evq_len(&v->q)) {
			snprintf(err, errlen, "DLIO loader: step %" PRIu64 " waits for nothing in "
					      "flight", j);
			return -EDEADLK;
		}
		struct ts_heap_item it = ts_evq_pop(&v->q);
		v->r->events++;
		if ((rc = vw_event(v, it.p, it.key)))
			return rc;
	}
}

static int v_release(void *self, const struct ts_take *b, uint64_t t, char *err, size_t errlen)
{
	(void)err, (void)errlen;
	return v_dispatch(self, b->rank, t);
}

static void vl_free(struct vl *v)
{
	if (v->wk)
		for (uint64_t i = 0; i < v->c->ranks * v->c->workers; i++)
			free(v->wk[i].chain);
	if (v->rk)
		for (uint64_t k = 0; k < v->c->ranks; k++)
			free(v->rk[k].ready);
	free(v->wk);
	free(v->rk);
	free(v->pending);
	free(v->p.order);
	free(v->p.perm_tab);
	free(v->p.held);
	free(v->cores.free_at);
	ts_evq_free(&v->q);
}

int ts_dl_run_virtual(const struct ts_dl_cfg *c, const struct ts_vdisk *disk, ts_dl_step_fn fn,
		      void *ctx, struct ts_dl_result *r, char *err, size_t errlen)
{
	struct vl v = { .d = { .c = c, .r = r, .fn = fn, .ctx = ctx }, .c = c, .disk = disk, .r = r };
	memset(r, 0, sizeof(*r));
	int rc = feed_new(&v.p, c, err, errlen);
	if (!rc)
		rc = result_init(r, &v.p);
	uint64_t nw = c->ranks * c->workers, S = v.p.steps;
	if (!rc && (!(v.wk = calloc(nw, sizeof(*v.wk))) || !(v.rk = calloc(c->ranks, sizeof(*v.rk))) ||
		    !(v.pending = calloc(c->ranks, sizeof(*v.pending)))))
		rc = -ENOMEM;
	for (uint64_t k = 0; !rc && k < c->ranks; k++)
		if (!(v.rk[k].ready = malloc(S * sizeof(uint64_t))))
			rc = -ENOMEM;
	/* fewer cores than the ranks and their workers: they wait for one */
	if (!rc && c->vcpus && c->vcpus < nw + c->ranks &&
	    !(v.cores.free_at = calloc(v.cores.n = c->vcpus, sizeof(uint64_t))))
		rc = -ENOMEM;
	struct ts_steploop_src src = { v_take, v_release, &v };
	ts_dlio_fs_layout(c->fs, c->meta, &v.fs);
	if (!rc)
		rc = dl_run(&v.d, &src, v.cores.n ? v_step : NULL, false, 0, err, errlen);
	if (rc == -ENOMEM)
		snprintf(err, errlen, "DLIO loader: out of memory");
	vl_free(&v);
	return rc;
}

/* ---- DLIO 2.0.0's TensorFlow loader, virtual time ------------------------ */

/*
 * reader/tf_reader.py over TFRecord files, per rank: its files (the
 * list's k, k + N, ...: filenames.shard(N, k)) read by
 * TFRecordDataset(num_parallel_reads = read_threads), a deterministic
 * parallel interleave: read_threads files open at once, one reader each,
 * records taken from them in turn (block_length 1), a file that ends
 * replaced by the next of the list; .batch(batch_size); .map(
 * tf.py_function(_parse_image), num_parallel_calls = computation_threads);
 * .prefetch(prefetch_size). Each epoch iterates the dataset anew (the
 * readers start from the first file, nothing buffered).
 *
 *  - Opens: a reader opens each file it takes, once a pass over the list
 *    (an epoch), before its first record: TFRecordDataset's iterator
 *    opens the next file with Env::NewRandomAccessFile, the POSIX file
 *    system's open(O_RDONLY), and reads it with pread, asking no size
 *    (tensorflow/core/kernels/data/tf_record_dataset_op.cc,
 *    SetupStreamsLocked; tsl/platform/default/posix_file_system.cc). The
 *    open is one metadata request of the disk, its lookups those of the
 *    dataset's file-system layout (c->fs, ts_dlio_fs_open in
 *    pipeline/ds_dlio.h: the folders and inode-table windows the first
 *    time, nothing after), as the PyTorch loader's and the project's
 *    loader's opens; with one record per file (cosmoflow) every record
 *    opens its file. What tf.data.Dataset.list_files does to match the
 *    names before the pass is not charged: not measured (TensorFlow is
 *    not installed beside DLIO here), and the rule charges a name once,
 *    whichever looks it up first.
 *  - Readers: each reads its file's records one after the other, a record
 *    where it lies (transfer_size requests, the project's TFRecord reader),
 *    one request outstanding; each request's CPU (request_ns + per MiB)
 *    runs on a core after it completes (TensorFlow's C++ threads: no
 *    Python lock), the file system daemon's (request_daemon_ns + per MiB)
 *    on a core from its start, the record ending no sooner. A record of
 *    batch j is read once batch j - window has been taken (window =
 *    prefetch_size + computation_threads batches ahead, as the project's
 *    loader holds them).
 *  - Parse: a batch whose records are all read is parsed in batch order:
 *    tf.py_function holds the rank's Python lock (GIL), so its
 *    computation_threads calls run one at a time, each batch_size x
 *    (sample_ns + per MiB of the record) on a core while holding the lock.
 *  - Steps: the training loop is Python too: a step's CPU (step_ns) waits
 *    for the rank's lock, then a core; the computation (a sleep) holds
 *    neither.
 * Cores are the PyTorch loader's (struct cores, first come first served);
 * the lock is one per rank, granted in the order it is asked for; a piece
 * that holds it asks for a core from when it got it.
 */
enum { TF_READ, TF_READ_CPU, TF_PARSED };

struct tfev {
	uint8_t kind; /* TF_* */
	uint64_t k;   /* the rank */
	uint64_t s;   /* the reader (TF_READ*), or the batch (TF_PARSE*) */
};

struct tfslot {
	struct tfev ev;
	bool busy;
	uint64_t next; /* the sequence number of its next record this epoch */
	/* The sample it read last and where in its file that lies: a reader
	 * reads its file's records in order, so the next one's offset is one
	 * addition away (UNSET: none yet this epoch). */
	uint64_t last, last_off;
};

struct tfrank {
	uint64_t taken;	    /* batches taken this epoch */
	uint64_t *got;	    /* [step]: records of batch j read */
	uint64_t *ready;    /* [step]: batch j parsed */
	uint64_t parse_next; /* the next batch to parse, in order */
	bool parsing;
	uint64_t gil;	    /* when the rank's Python lock is next free */
	struct tfev pev;    /* its parse events */
	struct tfslot *slot; /* [read_threads] */
};

struct tl {
	struct dl_steps d;
	const struct ts_dl_cfg *c;
	const struct ts_vdisk *disk;
	uint64_t steps, nfiles, per, R, W;
	struct tfrank *rk;
	struct ts_evq q;
	uint64_t tie;
	uint64_t *pending, npending;
	bool in_pass, took;
	uint64_t pass_i, top;
	struct ts_dl_result *r;
	struct cores cores;
	struct ts_dlio_fs fs; /* c->fs: the files' lookups (pipeline/ds_dlio.h) */
};

/* The rank's @q-th record of an epoch (interleave order): its sample.
 * Files are taken R at a time (cycle_length), each of per records. */
static uint64_t tf_sample(const struct tl *t, uint64_t k, uint64_t q)
{
	uint64_t g = q / (t->R * t->per), first = g * t->R;
	uint64_t files_k = t->nfiles; /* the rank's */
	uint64_t rg = TS_MIN(t->R, files_k - first);
	uint64_t qq = q - g * t->R * t->per;
	uint64_t f = first + qq % rg, rec = qq / rg; /* the rank's f-th file */
	uint64_t file = k + f * t->c->world;
	return file * t->per + rec;
}

/* Reader @s of rank @k: the sequence numbers it reads are those of its
 * slot in each group of R files: the first of them at or after @from. */
static uint64_t tf_slot_next(const struct tl *t, uint64_t s, uint64_t from)
{
	uint64_t grp = t->R * t->per;
	for (uint64_t g = from / grp;; g++) {
		uint64_t first = g * t->R;
		if (first >= t->nfiles)
			return UINT64_MAX;
		uint64_t rg = TS_MIN(t->R, t->nfiles - first);
		if (s >= rg)
			continue;
		/* in the group, slot s's records sit at s, s + rg, s + 2 rg, ... */
		uint64_t base = g * grp, lo = from > base ? from - base : 0;
		uint64_t i = lo <= s ? 0 : (lo - s + rg - 1) / rg;
		if (i < t->per)
			return base + s + i * rg;
	}
}

/* Where sample @i lies in its file: the records before it in the file,
 * summed. A reader takes its file's records in order (tf_slot_next), so
 * this is the offset of the record @sl read last plus its length; the sum
 * is taken whole only where that does not hold. */
static uint64_t tf_offset(const struct tl *t, struct tfslot *sl, uint64_t i)
{
	const struct ts_dataset_meta *m = t->c->meta;
	uint64_t first = i / t->per * t->per, off = 0;
	if (!m->bytes)
		off = (i - first) * m->fixed_bytes;
	else if (sl->last != UNSET && sl->last + 1 == i && sl->last >= first)
		off = sl->last_off + ts_dataset_sample_len(m, sl->last);
	else
		for (uint64_t j = first; j < i; j++)
			off += ts_dataset_sample_len(m, j);
	sl->last = i;
	sl->last_off = off;
	return off;
}

/* Reader @sl of rank @k starts its next record at @t, if the window lets it. */
static int tf_read(struct tl *t, uint64_t k, struct tfslot *sl, uint64_t now)
{
	struct tfrank *r = &t->rk[k];
	uint64_t B = t->c->batch, q = sl->next;
	if (sl->busy || q == UINT64_MAX || q >= t->steps * B || q / B >= r->taken + t->W)
		return 0;
	const struct ts_dataset_meta *m = t->c->meta;
	uint64_t i = tf_sample(t, k, q), f = i / t->per, len = ts_dataset_sample_len(m, i);
	uint64_t off = tf_offset(t, sl, i);
	struct ts_vio io = { .op = TS_VIO_READ, .file = f + 2, .off = off, .len = len,
			     .size = m->files[f].bytes, .chunk = t->c->transfer_size };
	uint64_t n = t->c->transfer_size ? (len + t->c->transfer_size - 1) / t->c->transfer_size : 1;
	t->r->read_requests += n;
	t->r->read_bytes += len;
	sl->busy = true;
	sl->ev.kind = TF_READ;
	uint64_t at = now;
	if (i % t->per == 0) { /* the file's first record: the reader opens it first */
		struct ts_vio op = ts_dlio_fs_open(&t->fs, f);
		t->r->meta_requests++;
		at = t->disk->submit(t->disk->ctx, now, &op);
	}
	uint64_t done = t->disk->submit(t->disk->ctx, at, &io);
	/* the file system's daemon serves the record's requests while they wait */
	uint64_t d = n * t->c->request_daemon_ns +
		     (uint64_t)((double)len * t->c->request_daemon_ns_per_mib / 1048576.0);
	if (d) {
		uint64_t served = cores_run(&t->cores, at, d);
		done = TS_MAX(done, served);
	}
	return ts_evq_push(&t->q, done, t->tie++, &sl->ev);
}

/* The rank's next batch to parse, if all its records are read: it asks
 * for the lock at @now and, holding it, for a core; the lock is granted in
 * the order asked, and the core asked for when the lock is (cores_run
 * takes the piece in the order it is called, from its start). */
static int tf_parse(struct tl *t, uint64_t k, uint64_t now)
{
	struct tfrank *r = &t->rk[k];
	uint64_t j = r->parse_next;
	if (r->parsing || j >= t->steps || r->got[j] < t->c->batch)
		return 0;
	uint64_t ns = 0;
	for (uint64_t p = 0; p < t->c->batch; p++)
		ns += cpu_ns(t->c, tf_sample(t, k, j * t->c->batch + p));
	uint64_t end = cores_run(&t->cores, TS_MAX(now, r->gil), ns);
	if (ns)
		r->gil = end;
	r->parsing = true;
	r->pev = (struct tfev){ .kind = TF_PARSED, .k = k, .s = j };
	return ts_evq_push(&t->q, end, t->tie++, &r->pev);
}

static int tf_event(struct tl *t, struct tfev *ev, uint64_t now)
{
	const struct ts_dl_cfg *c = t->c;
	struct tfrank *r = &t->rk[ev->k];
	if (ev->kind == TF_READ || ev->kind == TF_READ_CPU) {
		struct tfslot *sl = (struct tfslot *)ev;
		uint64_t q = sl->next, i = tf_sample(t, ev->k, q);
		uint64_t len = ts_dataset_sample_len(c->meta, i);
		if (ev->kind == TF_READ) { /* the request's CPU, on a core */
			uint64_t n = c->transfer_size ? (len + c->transfer_size - 1) / c->transfer_size : 1;
			uint64_t ns = n * c->request_ns +
				      (uint64_t)((double)len * c->request_ns_per_mib / 1048576.0);
			if (ns) {
				ev->kind = TF_READ_CPU;
				return ts_evq_push(&t->q, cores_run(&t->cores, now, ns), t->tie++, ev);
			}
		}
		sl->busy = false;
		t->r->samples++;
		r->got[q / c->batch]++;
		sl->next = tf_slot_next(t, ev->s, q + 1);
		int rc = tf_read(t, ev->k, sl, now);
		return rc ? rc : tf_parse(t, ev->k, now);
	}
	/* TF_PARSED */
	r->ready[ev->s] = now;
	if (ev->s == t->d.step)
		t->pending[t->npending++] = ev->k;
	r->parsing = false;
	r->parse_next++;
	return tf_parse(t, ev->k, now);
}

static int tf_epoch(struct tl *t, uint64_t now)
{
	const struct ts_dl_cfg *c = t->c;
	struct ts_dl_epoch *ep = &t->r->ep[t->d.e];
	int rc = 0;
	while (ts_evq_len(&t->q))
		(void)ts_evq_pop(&t->q);
	ep->start = now;
	t->npending = 0;
	for (uint64_t k = 0; k < c->ranks; k++) {
		struct tfrank *r = &t->rk[k];
		r->taken = r->parse_next = 0;
		r->parsing = false;
		for (uint64_t j = 0; j < t->steps; j++) {
			r->got[j] = 0;
			r->ready[j] = UNSET;
		}
		if (t->d.fn)
			for (uint64_t q = 0; q < t->steps * c->batch; q++)
				ep->payload += ts_dataset_sample_len(c->meta, tf_sample(t, k, q));
	}
	for (uint64_t k = 0; k < c->ranks && !rc; k++)
		for (uint64_t s = 0; s < t->R && !rc; s++) {
			struct tfslot *sl = &t->rk[k].slot[s];
			*sl = (struct tfslot){ .ev = { .kind = TF_READ, .k = k, .s = s },
					       .next = tf_slot_next(t, s, 0), .last = UNSET };
			rc = tf_read(t, k, sl, now);
		}
	return rc;
}

/* A step: its CPU waits for the rank's lock, then a core; then the computation. */
static int tf_step(void *self, const struct ts_take *b, uint64_t free_at, struct ts_step_span *sp,
		   char *err, size_t errlen)
{
	struct tl *t = self;
	(void)err, (void)errlen;
	struct tfrank *r = &t->rk[b->rank];
	sp->start = TS_MAX(b->ready, free_at);
	uint64_t end = cores_run(&t->cores, TS_MAX(sp->start, r->gil), t->c->step_ns);
	if (t->c->step_ns)
		r->gil = end;
	sp->end = end + t->c->compute_ns;
	return 0;
}

/* The step loop's take: as v_take, over the parsed batches. */
static int tf_take(void *self, uint64_t bar, struct ts_take *b, char *err, size_t errlen)
{
	struct tl *t = self;
	const struct ts_dl_cfg *c = t->c;
	uint64_t j;
	int rc;
	switch (dl_next_step(&t->d, bar)) {
	case DL_END:
		return 0;
	case DL_NEW_EPOCH:
		if ((rc = tf_epoch(t, bar)))
			return rc;
		__attribute__((fallthrough));
	case DL_NEW_STEP:
		j = t->d.step;
		t->npending = 0;
		for (uint64_t k = 0; k < c->ranks; k++)
			if (t->rk[k].ready[j] != UNSET)
				t->pending[t->npending++] = k;
		t->in_pass = false;
		break;
	case DL_SAME_STEP:
		break;
	}
	j = t->d.step;
	for (;;) {
		if (!t->in_pass) {
			t->top = ts_evq_len(&t->q) ? ts_evq_top(&t->q)->key : UNSET;
			t->pass_i = 0;
			t->took = false;
			t->in_pass = true;
		}
		while (t->pass_i < t->npending) {
			uint64_t k = t->pending[t->pass_i];
			if (TS_MAX(t->rk[k].ready[j], bar) > t->top) {
				t->pass_i++;
				continue;
			}
			t->pending[t->pass_i] = t->pending[--t->npending];
			t->d.taken++;
			t->took = true;
			*b = (struct ts_take){ .rank = k, .epoch = t->d.e, .seq = j,
					       .ready = t->rk[k].ready[j], .n = (uint32_t)c->batch };
			return 1;
		}
		t->in_pass = false;
		if (t->took)
			continue;
		if (!ts_evq_len(&t->q)) {
			snprintf(err, errlen, "DLIO TensorFlow loader: step %" PRIu64 " waits for "
					      "nothing in flight", j);
			return -EDEADLK;
		}
		struct ts_heap_item it = ts_evq_pop(&t->q);
		t->r->events++;
		if ((rc = tf_event(t, it.p, it.key)))
			return rc;
	}
}

/* A batch taken at @now: the window moves on one batch. */
static int tf_release(void *self, const struct ts_take *b, uint64_t now, char *err, size_t errlen)
{
	struct tl *t = self;
	(void)err, (void)errlen;
	struct tfrank *r = &t->rk[b->rank];
	r->taken++;
	int rc = 0;
	for (uint64_t s = 0; s < t->R && !rc; s++)
		rc = tf_read(t, b->rank, &r->slot[s], now);
	return rc;
}

int ts_dl_run_tf_virtual(const struct ts_dl_cfg *c, const struct ts_vdisk *disk, ts_dl_step_fn fn,
			 void *ctx, struct ts_dl_result *r, char *err, size_t errlen)
{
	struct tl t = { .d = { .c = c, .r = r, .fn = fn, .ctx = ctx }, .c = c, .disk = disk, .r = r };
	memset(r, 0, sizeof(*r));
	const struct ts_dataset_meta *m = c->meta;
	if (!m || !m->samples || !m->per_file || !c->ranks || c->rank0 || c->ranks != c->world ||
	    !c->batch || !c->workers || !c->window) {
		snprintf(err, errlen, "DLIO TensorFlow loader: a dataset, ranks, batch, read threads "
				      "and a window must be set");
		return -EINVAL;
	}
	if (m->count < c->world) {
		snprintf(err, errlen, "DLIO TensorFlow loader: %" PRIu64 " files for %" PRIu64 " ranks: "
				      "DLIO 2.0.0 then shards records, not files; use at least as "
				      "many files as accelerators", (uint64_t)m->count, c->world);
		return -EINVAL;
	}
	t.per = m->per_file;
	t.nfiles = m->count / c->world; /* each rank's (shard of the list; the rest unread) */
	t.R = TS_MIN(c->workers, t.nfiles);
	t.W = c->window;
	t.steps = ts_dl_tf_steps(c);
	if (!t.steps) {
		snprintf(err, errlen, "%" PRIu64 " records a rank make no batch of %" PRIu64 "; use more "
				      "files", t.nfiles * t.per, c->batch);
		return -EINVAL;
	}
	int rc = 0;
	r->steps = t.steps;
	if (!(r->ep = calloc(c->epochs, sizeof(*r->ep))))
		rc = -ENOMEM;
	r->nep = c->epochs;
	for (uint64_t e = 0; !rc && e < c->epochs; e++)
		if (!(r->ep[e].first_end = calloc(c->ranks, sizeof(uint64_t))))
			rc = -ENOMEM;
	if (!rc && (!(t.rk = calloc(c->ranks, sizeof(*t.rk))) ||
		    !(t.pending = calloc(c->ranks, sizeof(*t.pending)))))
		rc = -ENOMEM;
	for (uint64_t k = 0; !rc && k < c->ranks; k++)
		if (!(t.rk[k].got = calloc(t.steps, sizeof(uint64_t))) ||
		    !(t.rk[k].ready = calloc(t.steps, sizeof(uint64_t))) ||
		    !(t.rk[k].slot = calloc(t.R, sizeof(struct tfslot))))
			rc = -ENOMEM;
	/* fewer cores than each rank's readers, its parse and its loop */
	if (!rc && c->vcpus && c->vcpus < c->ranks * (t.R + 2) &&
	    !(t.cores.free_at = calloc(t.cores.n = c->vcpus, sizeof(uint64_t))))
		rc = -ENOMEM;
	struct ts_steploop_src src = { tf_take, tf_release, &t };
	ts_dlio_fs_layout(c->fs, m, &t.fs);
	if (!rc)
		rc = dl_run(&t.d, &src, tf_step, false, 0, err, errlen);
	if (rc == -ENOMEM)
		snprintf(err, errlen, "DLIO TensorFlow loader: out of memory");
	for (uint64_t k = 0; t.rk && k < c->ranks; k++) {
		free(t.rk[k].got);
		free(t.rk[k].ready);
		free(t.rk[k].slot);
	}
	free(t.rk);
	free(t.pending);
	free(t.cores.free_at);
	ts_evq_free(&t.q);
	return rc;
}

/* ---- real time ---------------------------------------------------------- */

struct rworker {
	struct rl *L;
	uint64_t k, w;
	pthread_t th;
	bool started;
	struct ts_chain_req *chain;
	size_t cap;
	uint8_t *buf;
	size_t bufcap;
	int *fds; /* keep_open, hdf5: [file] the descriptor it holds, or -1 */
	uint64_t read; /* samples it has read this run */
};

struct rl {
	struct dl_steps d;
	int (*between)(char *err, size_t errlen);
	struct feed p;
	const struct ts_dl_cfg *c;
	int dirfd;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	uint64_t epoch; /* UNSET: none started */
	bool stop;
	int err;
	char msg[512];
	struct vrank *rk;
	struct rworker *wk;
	uint64_t read_requests, meta_requests, read_bytes, samples;
	uint64_t reading; /* workers reading a batch (cpu_alone); atomic */
};

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * TS_NS_PER_S + (uint64_t)ts.tv_nsec;
}

/* @ns of this thread's own CPU, busy: a worker that waits for a core the
 * host's other threads hold takes longer, as DLIO's Python worker does. */
/* The calling thread's time waiting on a run queue so far (the second
 * field of /proc/thread-self/schedstat), ns; 0 where it cannot be read. */
static uint64_t runq_ns(void)
{
	FILE *f = fopen("/proc/thread-self/schedstat", "re");
	unsigned long long on = 0, wait = 0;
	if (!f)
		return 0;
	if (fscanf(f, "%llu %llu", &on, &wait) != 2)
		wait = 0;
	fclose(f);
	return (uint64_t)wait;
}

static void spend_cpu(uint64_t ns)
{
	volatile uint64_t x = 0;
	uint64_t end = thread_cpu_ns() + ns;
	while (thread_cpu_ns() < end && !ts_interrupted)
		x++;
}

static int r_sample(struct rworker *w, uint64_t i)
{
	struct rl *L = w->L;
	bool held = false;
	size_t n = feed_chain(&L->p, w->k * L->c->workers + w->w, i, &w->chain, &w->cap, &held,
			      NULL, NULL);
	if (n == SIZE_MAX)
		return -ENOMEM;
	const struct ts_dataset_meta *m = L->c->meta;
	const char *rel = m->files[file_of(m, i)].path + strlen(TS_DLIO_DIR "/");
	char path[PATH_MAX];
	/* a file the worker holds open (keep_open, hdf5): its descriptor */
	int *kept = w->fds ? &w->fds[file_of(m, i)] : NULL;
	int fd = kept && held ? *kept : -1, rc = 0;
	bool checked = false, walked = false;
	uint64_t reads = 0, metas = 0, bytes = 0, h5_at = 0;
	/* the sample's CPU, in equal shares after its open and each read, as
	 * virtual time charges it (vw_event) */
	uint64_t cpu_left = cpu_ns(L->c, i) + gc_ns(L->c, ++w->read), pieces = 0, wleft = 0;
	for (size_t q = 0; q < n; q++)
		if (w->chain[q].op == TS_CHAIN_READ || w->chain[q].op == TS_CHAIN_OPEN)
			pieces++, wleft += w->chain[q].cpu;
	/* DLIO's own run's per request that reaches its daemon (dlio_loader.h),
	 * as virtual time counts them (feed_chain) */
	cpu_left += ts_dl_chain_daemon_reqs(w->chain, n) * L->c->run_request_ns;
	for (size_t q = 0; q < n && !rc; q++) {
		const struct ts_chain_req *r = &w->chain[q];
		uint64_t size = 0;
		if (q && pieces && (w->chain[q - 1].op == TS_CHAIN_READ ||
				    w->chain[q - 1].op == TS_CHAIN_OPEN)) {
			uint64_t ns = cpu_share(&cpu_left, &pieces, &wleft, w->chain[q - 1].cpu);
			ns = alone_ns(L->c, __atomic_load_n(&L->reading, __ATOMIC_RELAXED), ns);
			if (ns)
				spend_cpu(ns);
		}
		switch (r->op) {
		case TS_CHAIN_WALK: /* the folders' getattrs: the next call by path's */
			walked = true;
			break;
		case TS_CHAIN_GETATTR: /* before the open: the open's own lookup */
			/* after it: an fstat, an lseek to the end (zipfile's
			 * seek(n, 2): the file's size alone, which the kernel's
			 * attribute cache answers after a read where an fstat
			 * goes to the daemon), or after a walk a stat by path
			 * (h5py) */
			if (fd >= 0)
				rc = ts_chain_stat(r, fd, path, walked, &size);
			/* numpy refuses a zip cut short: so does this reader */
			if (!rc && fd >= 0 && !checked && (checked = true) &&
			    size < m->files[file_of(m, i)].bytes)
				rc = TS_E_TRUNCATED;
			walked = walked && fd < 0;
			break;
		case TS_CHAIN_OPEN:
			/* by its whole path, as DLIO names it (data_folder/train/
			 * file): the walk checks each folder of the mount on the
			 * way, a getattr of its root and of train/ per open that
			 * an open relative to train/ would not make */
			if ((size_t)snprintf(path, sizeof(path), "%s/%s", L->c->dir, rel) >=
			    sizeof(path))
				rc = -ENAMETOOLONG;
			else if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
				rc = -errno;
			metas++;
			walked = false;
			break;
		case TS_CHAIN_READ:
			if (r->len > w->bufcap) {
				uint8_t *nb = realloc(w->buf, r->len);
				if (!nb) {
					rc = -ENOMEM;
					break;
				}
				w->buf = nb;
				w->bufcap = r->len;
			}
			ssize_t got = pread(fd, w->buf, r->len, (off_t)r->off);
			if (got < 0)
				rc = -errno;
			/* h5py refuses a file whose superblock and headers are not
			 * an HDF5 file's: so does this reader, with the bytes
			 * those reads brought */
			else if (L->p.fmt == TS_CHAIN_HDF5 &&
				 ts_hdf5_head_check(w->buf, r->off, (size_t)got, m->per_file,
						    m->width[file_of(m, i) * m->per_file],
						    m->height[file_of(m, i) * m->per_file], &h5_at))
				rc = TS_E_FORMAT;
			reads++;
			bytes += r->len;
			break;
		case TS_CHAIN_CLOSE:
			close(fd);
			fd = -1;
			break;
		default: break; /* flush: close's */
		}
	}
	if (kept && fd >= 0)
		*kept = fd; /* held open for the run, as h5py.File in the reader's map */
	else if (fd >= 0)
		close(fd);
	if (!rc && cpu_left) /* the last request's share (all of it if none was charged) */
		spend_cpu(alone_ns(L->c, __atomic_load_n(&L->reading, __ATOMIC_RELAXED), cpu_left));
	pthread_mutex_lock(&L->mu);
	if (rc && !L->err) {
		L->err = rc;
		if (rc == TS_E_FORMAT) /* the one format checked: hdf5 */
			snprintf(L->msg, sizeof(L->msg), "%s/%s: not the hdf5 file the dataset "
				 "describes (byte %" PRIu64 " of its header differs from h5py's for "
				 "%" PRIu64 " record%s of %u x %u); make the dataset again", L->c->dir,
				 rel, h5_at, m->per_file, m->per_file == 1 ? "" : "s", m->width[file_of(m, i) * m->per_file],
				 m->height[file_of(m, i) * m->per_file]);
		else
			snprintf(L->msg, sizeof(L->msg), "%s/%s: %s", L->c->dir, rel,
				 rc == TS_E_TRUNCATED ? "file ends before the sample does" :
							ts_strerror(rc));
	}
	L->read_requests += reads;
	L->meta_requests += metas;
	L->read_bytes += bytes;
	L->samples++;
	pthread_mutex_unlock(&L->mu);
	return rc;
}

static void *r_worker(void *arg)
{
	struct rworker *w = arg;
	struct rl *L = w->L;
	uint64_t ep = UNSET, next = 0;
	pthread_mutex_lock(&L->mu);
	for (;;) {
		while (!L->stop && (L->epoch == UNSET ||
				    (ep == L->epoch && next >= L->rk[w->k].dispatched)))
			pthread_cond_wait(&L->cv, &L->mu);
		if (L->stop)
			break;
		if (ep != L->epoch) {
			ep = L->epoch;
			next = w->w;
			/* the rank's iterator starts (forking or resuming its
			 * workers), each rank its own, as each of DLIO's ranks
			 * has its own DataLoader: busy on the rank's first
			 * worker, then the rank's first batches go out */
			uint64_t start = ep ? L->c->restart_ns : L->c->start_ns;
			if (start && !w->w) {
				pthread_mutex_unlock(&L->mu);
				spend_cpu(start);
				pthread_mutex_lock(&L->mu);
				L->rk[w->k].dispatched = feed_window(&L->p);
				pthread_cond_broadcast(&L->cv);
			}
			continue;
		}
		uint64_t j = next;
		__atomic_add_fetch(&L->reading, 1, __ATOMIC_RELAXED);
		pthread_mutex_unlock(&L->mu);
		int rc = 0;
		uint64_t rq0 = j || !(L->c->spread_wait > 0) ? 0 : runq_ns();
		for (uint64_t pos = 0; !rc && pos < L->c->batch; pos++)
			rc = r_sample(w, feed_sample(&L->p, w->k, j, pos));
		uint64_t cns = collate_ns(L->c);
		if (!rc && cns) /* the batch collated and handed over */
			spend_cpu(cns);
		__atomic_sub_fetch(&L->reading, 1, __ATOMIC_RELAXED);
		pthread_mutex_lock(&L->mu);
		if (rc) {
			L->stop = true;
			pthread_cond_broadcast(&L->cv);
			break;
		}
		uint64_t now = ts_now_ns();
		/* the epoch's first batch: handed over later by the ranks'
		 * spread (r_take waits for it), the worker goes on reading */
		uint64_t rq = j || !(L->c->spread_wait > 0) ? 0 : runq_ns();
		L->rk[w->k].ready[j] =
			now + (j ? 0 : first_delay(L->c, w->k, ep, now - L->d.r->ep[ep].start,
						   rq > rq0 ? rq - rq0 : 0));
		next += L->c->workers;
		pthread_cond_broadcast(&L->cv);
	}
	pthread_mutex_unlock(&L->mu);
	return NULL;
}

static void r_dispatch(struct rl *L, uint64_t k)
{
	if (L->rk[k].dispatched < L->p.steps)
		L->rk[k].dispatched++;
}

/* The step loop's take (pipeline/steploop.h): a rank whose batch of this
 * step is ready, taken now; the wait is on the workers' hand-overs, woken
 * at least every 50 ms to see a Ctrl-C. */
static int r_take(void *self, uint64_t bar, struct ts_take *b, char *err, size_t errlen)
{
	struct rl *L = self;
	const struct ts_dl_cfg *c = L->c;
	int rc = 0;
	enum dl_next nx = dl_next_step(&L->d, bar);
	if (nx == DL_END || nx == DL_NEW_EPOCH) {
		/* The ranks meet before an epoch's loader starts and after its
		 * last step, as DLIO 2.0.0's do (main.py: initialize() ends in
		 * comm.barrier(), and _train() in one after each step and two
		 * after its loop; the next epoch's iterator starts after them):
		 * no rank reads an epoch ahead of another, however late one
		 * came to it (under mpirun rank 0 mounts and describes the
		 * dataset for all, the others read the description after), and
		 * an epoch ends, as DLIO's end_block() stamps it, once every
		 * rank has ended it (in one process @bar is that already). */
		if (L->between && (rc = L->between(err, errlen)))
			return rc;
		if (L->d.e)
			L->d.r->ep[L->d.e - 1].end = TS_MAX(bar, ts_now_ns());
	}
	switch (nx) {
	case DL_END:
		return 0;
	case DL_NEW_EPOCH: {
		/* with a start to spend, each rank's first worker spends it and
		 * then sends the rank's first batches out (r_worker); inside the
		 * epoch */
		uint64_t start = L->d.e ? c->restart_ns : c->start_ns;
		pthread_mutex_lock(&L->mu);
		feed_epoch(&L->p); /* every worker is idle: the last epoch's batches were all taken */
		for (uint64_t k = 0; k < c->ranks; k++) {
			L->rk[k].dispatched = start ? 0 : feed_window(&L->p);
			for (uint64_t j = 0; j < L->p.steps; j++)
				L->rk[k].ready[j] = UNSET;
		}
		L->epoch = L->d.e;
		L->d.r->ep[L->d.e].start = ts_now_ns();
		for (uint64_t k = 0; k < c->ranks; k++)
			L->rk[k].take = UNSET;
		pthread_cond_broadcast(&L->cv);
		pthread_mutex_unlock(&L->mu);
		break;
	}
	case DL_NEW_STEP:
		if (L->between && (rc = L->between(err, errlen)))
			return rc;
		pthread_mutex_lock(&L->mu);
		for (uint64_t k = 0; k < c->ranks; k++)
			L->rk[k].take = UNSET;
		pthread_mutex_unlock(&L->mu);
		break;
	case DL_SAME_STEP:
		break;
	}
	uint64_t j = L->d.step;
	pthread_mutex_lock(&L->mu);
	while (!L->stop && !ts_interrupted) {
		uint64_t now = ts_now_ns(), wake = now + 50 * 1000000ull;
		for (uint64_t k = 0; k < c->ranks; k++) {
			if (L->rk[k].take != UNSET || L->rk[k].ready[j] == UNSET)
				continue;
			if (L->rk[k].ready[j] > now) { /* handed over later (spread) */
				wake = TS_MIN(wake, L->rk[k].ready[j]);
				continue;
			}
			L->rk[k].take = now;
			L->d.taken++;
			pthread_mutex_unlock(&L->mu);
			*b = (struct ts_take){ .rank = k, .epoch = L->d.e, .seq = j, .ready = now,
					       .n = (uint32_t)c->batch };
			return 1;
		}
		struct timespec ts;
		ts.tv_sec = (time_t)(wake / TS_NS_PER_S);
		ts.tv_nsec = (long)(wake % TS_NS_PER_S);
		pthread_cond_timedwait(&L->cv, &L->mu, &ts);
	}
	if (L->err) {
		rc = L->err;
		snprintf(err, errlen, "loader: %s", L->msg);
	} else {
		rc = -EINTR;
		snprintf(err, errlen, "interrupted at step %" PRIu64 " of epoch %" PRIu64, j + 1,
			 L->d.e + 1);
	}
	pthread_mutex_unlock(&L->mu);
	return rc;
}

static int r_release(void *self, const struct ts_take *b, uint64_t t, char *err, size_t errlen)
{
	struct rl *L = self;
	(void)t, (void)err, (void)errlen;
	pthread_mutex_lock(&L->mu);
	r_dispatch(L, b->rank);
	pthread_cond_broadcast(&L->cv);
	pthread_mutex_unlock(&L->mu);
	return 0;
}

int ts_dl_run_real(const struct ts_dl_cfg *c, int (*between)(char *err, size_t errlen),
		   struct ts_dl_result *r, char *err, size_t errlen)
{
	struct rl L = { .d = { .c = c, .r = r }, .between = between, .c = c, .dirfd = -1,
			.epoch = UNSET };
	memset(r, 0, sizeof(*r));
	pthread_mutex_init(&L.mu, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&L.cv, &ca);
	pthread_condattr_destroy(&ca);
	int rc = feed_new(&L.p, c, err, errlen);
	if (!rc)
		rc = result_init(r, &L.p);
	uint64_t nw = c->ranks * c->workers, S = L.p.steps;
	if (!rc && (L.dirfd = open(c->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", c->dir, ts_strerror(rc));
	}
	if (!rc && (!(L.wk = calloc(nw, sizeof(*L.wk))) || !(L.rk = calloc(c->ranks, sizeof(*L.rk)))))
		rc = -ENOMEM;
	for (uint64_t k = 0; !rc && k < c->ranks; k++)
		if (!(L.rk[k].ready = malloc(S * sizeof(uint64_t))))
			rc = -ENOMEM;
	/* keep_open over hdf5: every worker may hold every file open */
	bool fds = c->keep_open && L.p.fmt == TS_CHAIN_HDF5;
	uint64_t nfiles = fds ? L.p.total / c->meta->per_file : 0;
	if (!rc && fds && nfiles * nw + 64 > 1024) {
		struct rlimit rl;
		if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
			rl.rlim_cur = rl.rlim_max;
			(void)setrlimit(RLIMIT_NOFILE, &rl); /* else EMFILE names the file */
		}
	}
	for (uint64_t i = 0; !rc && i < nw; i++) {
		L.wk[i] = (struct rworker){ .L = &L, .k = i / c->workers, .w = i % c->workers };
		if (fds && !(L.wk[i].fds = malloc(nfiles * sizeof(int)))) {
			rc = -ENOMEM;
			break;
		}
		for (uint64_t f = 0; f < nfiles; f++)
			L.wk[i].fds[f] = -1;
		if ((rc = -pthread_create(&L.wk[i].th, NULL, r_worker, &L.wk[i])))
			snprintf(err, errlen, "DLIO loader: cannot start a worker: %s", strerror(-rc));
		else
			L.wk[i].started = true;
	}
	struct ts_steploop_src src = { r_take, r_release, &L };
	if (!rc)
		rc = dl_run(&L.d, &src, NULL, true, ts_now_ns(), err, errlen);
	pthread_mutex_lock(&L.mu);
	L.stop = true;
	pthread_cond_broadcast(&L.cv);
	pthread_mutex_unlock(&L.mu);
	for (uint64_t i = 0; L.wk && i < nw; i++) {
		if (L.wk[i].started)
			pthread_join(L.wk[i].th, NULL);
		free(L.wk[i].chain);
		free(L.wk[i].buf);
		for (uint64_t f = 0; L.wk[i].fds && f < nfiles; f++)
			if (L.wk[i].fds[f] >= 0)
				close(L.wk[i].fds[f]);
		free(L.wk[i].fds);
	}
	r->read_requests = L.read_requests;
	r->meta_requests = L.meta_requests;
	r->read_bytes = L.read_bytes;
	r->samples = L.samples;
	if (rc == -ENOMEM)
		snprintf(err, errlen, "DLIO loader: out of memory");
	if (L.dirfd >= 0)
		close(L.dirfd);
	if (L.rk)
		for (uint64_t k = 0; k < c->ranks; k++)
			free(L.rk[k].ready);
	free(L.rk);
	free(L.wk);
	free(L.p.order);
	free(L.p.perm_tab);
	free(L.p.held);
	pthread_cond_destroy(&L.cv);
	pthread_mutex_destroy(&L.mu);
	return rc;
}
