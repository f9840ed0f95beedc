/*
 * loader.c — the loader's threads and the buffers between them (see
 * loader.h for the API and the ordering rules).
 *
 * Threads: one reader (io_uring for extent sources, the source's own fetch
 * for copy sources) and `vcpus` decode workers; the consumer is the caller.
 * One mutex guards the shared state; every hand-off is a condition variable.
 *
 * Buffers and the memory bound. Batch k lives in ring[k % prefetch] from the
 * moment its first sample is issued until the consumer releases it, so at
 * most `prefetch` batches exist at once (the prefetch window). A sample's
 * bytes are read into one of `nslots` equal read slots (registered with
 * io_uring once); a sample larger than a slot gets a buffer of its own. The
 * slots a sample holds go back when it is decoded (or, when the batch
 * carries raw bytes, when the batch is released). Everything is allocated
 * at ts_pipe_new, checked against mem_limit there, and the bytes actually
 * held are tracked as the run goes (mem_peak).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <unistd.h>

#include <jansson.h>

#include "core/clock.h"
#include "core/rng.h"
#include "core/units.h"
#include "pipeline/decode.h"
#include "pipeline/host.h"
#include "pipeline/loader.h"
#include "pipeline/scheduler.h"
#include "pipeline/source.h"
#include "pipeline/timeline.h"
#include "pipeline/uring.h"

#define CFG_OFF(f) offsetof(struct ts_pipe_cfg, f)

const struct ts_opt ts_pipe_opts[] = {
	{ "source", TS_OPT_STR, CFG_OFF(source), "folder", 0, 0, "",
	  "dataset layout: folder (ImageFolder), rec (RecordIO .rec + .idx), lmdb, text, null" },
	{ "path", TS_OPT_STR, CFG_OFF(path), "", 0, 0, "",
	  "dataset folder, .rec file, LMDB folder or text file" },
	{ "count", TS_OPT_U64, CFG_OFF(count), "0", 0, 0, "samples",
	  "use the first COUNT samples of the dataset (0 = all; null source: how many)" },
	{ "first", TS_OPT_U64, CFG_OFF(first), "0", 0, 0, "samples",
	  "the samples used start at FIRST (an MPI rank's shard: [first, first+count))" },
	{ "sample_size", TS_OPT_SIZE, CFG_OFF(sample_size), "0", 0, 0, "bytes",
	  "null source: bytes per sample" },
	{ "batch", TS_OPT_U64, CFG_OFF(batch), "32", 1, 1 << 20, "samples", "batch size" },
	{ "vcpus", TS_OPT_U64, CFG_OFF(vcpus), "1", 1, 4096, "",
	  "decode workers: the emulated vCPU count" },
	{ "qd", TS_OPT_U64, CFG_OFF(qd), "16", 1, 4096, "", "io_uring queue depth (samples in flight)" },
	{ "prefetch", TS_OPT_U64, CFG_OFF(prefetch), "2", 1, 1024, "batches",
	  "batches prepared ahead of the consumer" },
	{ "shuffle", TS_OPT_BOOL, CFG_OFF(shuffle), "true", 0, 0, "",
	  "a fresh random order every epoch" },
	{ "seed", TS_OPT_U64, CFG_OFF(seed), "1", 0, 0, "", "seed of the shuffle and the augmentation" },
	{ "epochs", TS_OPT_U64, CFG_OFF(epochs), "1", 1, 1e9, "", "passes over the dataset" },
	{ "drop_last", TS_OPT_BOOL, CFG_OFF(drop_last), "false", 0, 0, "",
	  "drop the last batch of an epoch when it is short" },
	{ "restart", TS_OPT_BOOL, CFG_OFF(restart), "false", 0, 0, "",
	  "each epoch restarts the loader: nothing of the next is read before the consumer "
	  "opens it (a new iterator per epoch)" },
	{ "decode", TS_OPT_STR, CFG_OFF(decode), "auto", 0, 0, "",
	  "real (libjpeg-turbo), modeled (calibrated cost), none, or auto: real unless more "
	  "vCPUs are emulated than the host has cores" },
	{ "out_size", TS_OPT_U64, CFG_OFF(out_size), "224", 8, 4096, "pixels",
	  "model input side (the crop)" },
	{ "resize", TS_OPT_U64, CFG_OFF(resize), "256", 0, 8192, "pixels",
	  "shorter side before the crop; 0 = resize straight to out_size" },
	{ "augment", TS_OPT_BOOL, CFG_OFF(augment), "true", 0, 0, "",
	  "random crop and horizontal flip (else centre crop)" },
	{ "on_error", TS_OPT_STR, CFG_OFF(on_error), "skip", 0, 0, "",
	  "a sample that cannot be read or decoded: skip (and count) or fatal" },
	{ "mem_limit", TS_OPT_SIZE, CFG_OFF(mem_limit), "2GiB", 0, 0, "bytes",
	  "most memory the loader's buffers may take" },
	{ "slot_size", TS_OPT_SIZE, CFG_OFF(slot_size), "0", 0, 0, "bytes",
	  "read buffer per sample (0 = the largest sample, at most 1 MiB)" },
	{ "keep_raw", TS_OPT_BOOL, CFG_OFF(keep_raw), "false", 0, 0, "",
	  "keep the source bytes in batches after decoding" },
	{ "seq_len", TS_OPT_U64, CFG_OFF(seq_len), "35", 1, 1 << 20, "tokens",
	  "text source: tokens per sequence (PTB's num_steps)" },
	{ "transfer_size", TS_OPT_SIZE, CFG_OFF(transfer_size), "0", 0, 1u << 30, "bytes",
	  "tfrecord source: bytes per read request (DLIO's transfer_size); 0 = one request" },
	{ "copy", TS_OPT_STR, CFG_OFF(copy), "pages", 0, 0, "",
	  "lmdb source: how a Datum is copied out of LMDB's map: pages (a page at a time, in "
	  "order: an ERMS memcpy's touches) or memcpy (the C library's, as python3-lmdb or "
	  "Caffe's ParseFromString copy; in virtual time the host profile's copy_tail_first "
	  "gives its order)" },
	{ "calibration", TS_OPT_STR, CFG_OFF(calibration), "", 0, 0, "",
	  "decode calibration file (default ~/.cache/tiersim/decode.json)" },
	{ "host", TS_OPT_STR, CFG_OFF(host), "this-machine", 0, 0, "",
	  "host profile whose CPU costs modeled decode charges: NAME or NAME/LIBRARY "
	  "('tiersim hosts' lists them); this-machine charges the calibration" },
	{ "registered", TS_OPT_BOOL, CFG_OFF(registered), "true", 0, 0, "",
	  "register the read buffers with io_uring" },
	{ "open_uring", TS_OPT_BOOL, CFG_OFF(open_uring), "true", 0, 0, "",
	  "open sample files through io_uring (else openat(2) in the reader)" },
	{ "async_reads", TS_OPT_BOOL, CFG_OFF(async_reads), "false", 0, 0, "",
	  "hand reads to io_uring's worker threads at once (IOSQE_ASYNC) instead of trying "
	  "them inline first" },
	{ "async_opens", TS_OPT_BOOL, CFG_OFF(async_opens), "true", 0, 0, "",
	  "hand opens to io_uring's worker threads at once (IOSQE_ASYNC) instead of trying "
	  "them inline first, where an open through FUSE holds the reader for a round trip" },
	{ NULL },
};

#define SERIES_MAX (1u << 20)

/* A sample on its way through; it lives in its batch's items[]. */
struct item {
	uint64_t id;
	uint32_t len;	      /* bytes read */
	uint32_t poff, plen;  /* payload inside buf */
	int32_t label;
	bool pixels;	      /* raw C×H×W BGR pixels (a Caffe Datum), not a JPEG */
	uint16_t w, h, c;
	int slot;	      /* read slot, or -1 */
	uint32_t own_len;     /* size of an own buffer (slot -1) */
	uint8_t *buf;	      /* slot memory or an own buffer; NULL once freed */
	int err;
	struct rbatch *b;
	uint32_t pos;
	struct ts_sched_pos sp; /* its place, as the scheduler gave it */
	/* timeline: when it was claimed, its reader lane, where it was read */
	uint64_t tl_t0;
	unsigned tl_lane;
	int64_t tl_off;
};

struct rbatch {
	uint64_t seq;
	uint32_t size;
	struct item *items;
	struct ts_sample *s;
	float *data;
	struct ts_batch pub;
};

struct worker {
	struct ts_pipe *p;
	pthread_t th;
	unsigned idx;
	struct ts_decoder *dec;
	char msg[256]; /* why the last sample failed */
	uint64_t busy_ns, wait_in_ns, samples, bytes;
};

struct ts_pipe {
	struct ts_pipe_cfg cfg; /* copy; strings owned */
	const struct ts_source_ops *ops;
	void *src;
	enum ts_decode_mode mode;
	struct ts_decode_cal cal;
	bool fatal;
	bool raw_in_batch;

	/* What to read next, when, and when a batch is complete: every
	 * decision is the scheduler's (sched.h), called under mu. */
	struct ts_sched *sched;
	uint64_t n;		/* samples per epoch in the dataset (after count) */
	uint64_t nb;		/* batches per epoch */
	unsigned B, pf;
	size_t out_floats;	/* per sample */

	/* read slots */
	uint8_t *arena;
	size_t arena_len;
	size_t slot;
	unsigned nslots, nfree;
	int *free_slots;
	struct iovec *iov;

	struct rbatch *ring;

	pthread_mutex_t mu;
	pthread_cond_t c_reader, c_work, c_cons;
	pthread_t reader;
	bool started, stop, reader_done;
	int failed;
	char errmsg[1024];

	struct worker *w;
	unsigned nw;

	/* stats (under mu unless noted) */
	struct ts_uring *ring_io; /* owned by the reader thread */
	struct ts_uring_stats ust;
	uint64_t t_start, t_end;
	uint64_t rd_blocked_ns, rd_fetch_ns, rd_samples, rd_bytes;
	uint64_t samples, bytes, batches, errors;
	char first_error[1024];
	uint64_t ready, ready_max, ready_area, ready_t;
	uint64_t held, held_peak, reserved;
	bool fixed;
	struct ts_hist wait_hist;
	uint64_t wait_sum;
	uint64_t *series_t;
	uint32_t *series_ready;
	uint64_t series_n, series_cap;
	struct ts_tl_proc *tl; /* NULL: no timeline */
};

/* ---- setup ---------------------------------------------------------- */

static int copy_cfg(struct ts_pipe_cfg *dst, const struct ts_pipe_cfg *src)
{
	*dst = *src;
	char **strs[] = { &dst->source, &dst->path, &dst->decode, &dst->on_error,
			  &dst->calibration, &dst->host, &dst->copy };
	for (size_t i = 0; i < TS_ARRAY_SIZE(strs); i++)
		*strs[i] = NULL;
	const char *from[] = { src->source, src->path, src->decode, src->on_error,
			       src->calibration, src->host, src->copy };
	for (size_t i = 0; i < TS_ARRAY_SIZE(strs); i++)
		if (!(*strs[i] = strdup(from[i] ? from[i] : "")))
			return -ENOMEM;
	return 0;
}

static int pick_mode(struct ts_pipe *p, char *err, size_t errlen)
{
	int rc = ts_pipe_decode_mode(&p->cfg, p->ops, sysconf(_SC_NPROCESSORS_ONLN), &p->mode, err,
				     errlen);
	if (rc)
		return rc;
	if (p->mode != TS_DECODE_MODELED)
		return 0;
	char path[4096];
	if ((rc = ts_pipe_cal_load(p->cfg.calibration, p->cfg.host, TS_HOST_NOMINAL, &p->cal, path,
				   sizeof path, err, errlen)))
		return rc;
	ts_decode_cal_for_source(&p->cal, p->ops->caps & TS_SRC_TORCH, p->cfg.batch);
	if (path[0]) {
		free(p->cfg.calibration);
		if (!(p->cfg.calibration = strdup(path)))
			return -ENOMEM;
	}
	return 0;
}

/*
 * Why one long function: one sequence of set-up steps (options, source,
 * mode, buffers under the memory bound, threads' state), every failure
 * leaving through ts_pipe_free of what was made so far.
 */
int ts_pipe_new(const struct ts_pipe_cfg *cfg, struct ts_pipe **out, char *err, size_t errlen)
{
	struct ts_pipe *p = calloc(1, sizeof *p);
	if (!p)
		return -ENOMEM;
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->c_reader, NULL);
	pthread_cond_init(&p->c_work, NULL);
	pthread_cond_init(&p->c_cons, NULL);
	ts_hist_init(&p->wait_hist);
	int rc = copy_cfg(&p->cfg, cfg);
	if (rc)
		goto fail;
	if (!strcmp(p->cfg.on_error, "fatal"))
		p->fatal = true;
	else if (strcmp(p->cfg.on_error, "skip")) {
		snprintf(err, errlen, "option 'on_error': '%s' is not skip or fatal", p->cfg.on_error);
		rc = TS_E_PARSE;
		goto fail;
	}
	if (!p->cfg.batch || !p->cfg.vcpus || !p->cfg.qd || !p->cfg.prefetch || !p->cfg.epochs) {
		snprintf(err, errlen, "options batch, vcpus, qd, prefetch and epochs must be >= 1");
		rc = -EINVAL;
		goto fail;
	}
	if (!(p->ops = ts_source_find(p->cfg.source, err, errlen))) {
		rc = TS_E_UNKNOWN;
		goto fail;
	}
	if ((rc = ts_source_check(p->ops, err, errlen)))
		goto fail;
	if ((p->ops->caps & TS_SRC_SEQUENTIAL) && p->cfg.shuffle) {
		snprintf(err, errlen,
			 "option 'shuffle': source '%s' is read in its stored order (%s); set shuffle=false",
			 p->ops->name,
			 strcmp(p->ops->name, "lmdb") ? "sequence by sequence"
						      : "one cursor, as Caffe's data layer");
		rc = -EINVAL;
		goto fail;
	}
	if ((rc = pick_mode(p, err, errlen)))
		goto fail;
	if ((rc = p->ops->open(p->ops, &p->cfg, &p->src, err, errlen))) {
		p->src = NULL;
		goto fail;
	}

	if ((rc = ts_pipe_range(&p->cfg, p->ops, p->ops->count(p->src), &p->n, err, errlen)))
		goto fail;
	p->B = (unsigned)p->cfg.batch;
	p->pf = (unsigned)p->cfg.prefetch;
	p->raw_in_batch = p->mode == TS_DECODE_NONE || p->cfg.keep_raw;
	p->nw = p->mode == TS_DECODE_NONE ? 0 : (unsigned)p->cfg.vcpus;

	/* Buffers, and the memory bound. */
	struct ts_pipe_layout lay;
	ts_pipe_layout(&p->cfg, p->ops, p->n, p->ops->max_len(p->src), p->nw, &lay);
	struct ts_sched_cfg sc = lay.sched;
	char sub[256];
	if ((rc = ts_sched_new(&sc, &p->sched, sub, sizeof sub))) {
		snprintf(err, errlen, "%s: %s", p->cfg.path, sub);
		goto fail;
	}
	p->nb = ts_sched_batches_per_epoch(p->sched);
	uint64_t slot = lay.slot_size;
	p->slot = (size_t)slot;
	uint64_t nslots = sc.slots;
	p->nslots = (unsigned)nslots;
	p->out_floats = p->mode == TS_DECODE_REAL ? 3 * p->cfg.out_size * p->cfg.out_size : 0;
	uint64_t batch_bytes = (uint64_t)p->B * p->out_floats * sizeof(float);
	p->reserved = nslots * slot + p->pf * batch_bytes;
	if (p->reserved > p->cfg.mem_limit) {
		char a[32], b[32];
		ts_fmt_size(a, sizeof a, p->reserved);
		ts_fmt_size(b, sizeof b, p->cfg.mem_limit);
		snprintf(err, errlen,
			 "option 'mem_limit': %s is below the %s that prefetch=%u batches of %u "
			 "need (%u read slots of %zu B%s); raise mem_limit or lower prefetch/batch",
			 b, a, p->pf, p->B, p->nslots, p->slot,
			 batch_bytes ? " + decoded float batches" : "");
		rc = -ENOMEM;
		goto fail;
	}
	/* The slots are pinned when registered: transparent huge pages make
	 * that (and the first touch) a few hundred faults instead of one per
	 * 4 KiB page. */
	p->arena_len = (size_t)(nslots * slot);
	p->arena = mmap(NULL, p->arena_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			-1, 0);
	if (p->arena == MAP_FAILED)
		p->arena = NULL;
	else
		madvise(p->arena, p->arena_len, MADV_HUGEPAGE);
	p->free_slots = calloc(nslots, sizeof *p->free_slots);
	p->iov = calloc(nslots, sizeof *p->iov);
	p->ring = calloc(p->pf, sizeof *p->ring);
	if (!p->arena || !p->free_slots || !p->iov || !p->ring) {
		rc = -ENOMEM;
		snprintf(err, errlen, "out of memory for the loader's buffers");
		goto fail;
	}
	for (unsigned i = 0; i < p->nslots; i++) {
		p->free_slots[i] = (int)(p->nslots - 1 - i);
		p->iov[i].iov_base = p->arena + (size_t)i * slot;
		p->iov[i].iov_len = slot;
	}
	p->nfree = p->nslots;
	for (unsigned i = 0; i < p->pf; i++) {
		struct rbatch *b = &p->ring[i];
		b->items = calloc(p->B, sizeof *b->items);
		b->s = calloc(p->B, sizeof *b->s);
		if (batch_bytes)
			b->data = malloc(batch_bytes);
		if (!b->items || !b->s || (batch_bytes && !b->data)) {
			rc = -ENOMEM;
			snprintf(err, errlen, "out of memory for the loader's batches");
			goto fail;
		}
	}
	if (p->nw && !(p->w = calloc(p->nw, sizeof *p->w))) {
		rc = -ENOMEM;
		goto fail;
	}
	for (unsigned i = 0; i < p->nw; i++) {
		p->w[i].p = p;
		p->w[i].idx = i;
		if ((rc = ts_decoder_new((unsigned)p->cfg.out_size, (unsigned)p->cfg.resize,
					 p->cfg.augment, &p->w[i].dec))) {
			snprintf(err, errlen, "cannot start libjpeg-turbo: %s", ts_strerror(rc));
			goto fail;
		}
	}
	*out = p;
	return 0;
fail:
	ts_pipe_free(p);
	return rc;
}

/* ---- shared state changes (called with mu held) ---------------------- */

static void held_add(struct ts_pipe *p, int64_t d)
{
	p->held = (uint64_t)((int64_t)p->held + d);
	if (p->held > p->held_peak)
		p->held_peak = p->held;
}

static void ready_change(struct ts_pipe *p, int d)
{
	uint64_t now = ts_now_ns();
	if (p->ready_t)
		p->ready_area += p->ready * (now - p->ready_t);
	p->ready_t = now;
	p->ready = (uint64_t)((int64_t)p->ready + d);
	if (p->ready > p->ready_max)
		p->ready_max = p->ready;
}

static void fail_locked(struct ts_pipe *p, int rc, const char *msg)
{
	if (!p->failed) {
		p->failed = rc ? rc : -EIO;
		snprintf(p->errmsg, sizeof p->errmsg, "%.1000s", msg);
	}
	p->stop = true;
	pthread_cond_broadcast(&p->c_reader);
	pthread_cond_broadcast(&p->c_work);
	pthread_cond_broadcast(&p->c_cons);
}

static void free_raw(struct ts_pipe *p, struct item *it)
{
	if (!it->buf)
		return;
	if (it->slot >= 0) {
		p->free_slots[p->nfree++] = it->slot;
		held_add(p, -(int64_t)p->slot);
	} else {
		free(it->buf);
		held_add(p, -(int64_t)it->own_len);
	}
	it->buf = NULL;
	it->slot = -1;
}

/* Stats of the batches ready and not taken, after a scheduler call that
 * may have completed one (or after a take). */
static void ready_sync(struct ts_pipe *p)
{
	struct ts_sched_state ss;
	ts_sched_state(p->sched, &ss);
	if (ss.ready != p->ready) {
		bool more = ss.ready > p->ready;
		ready_change(p, (int)((int64_t)ss.ready - (int64_t)p->ready));
		if (more)
			pthread_cond_broadcast(&p->c_cons);
	}
}

/* A sample failed: say so, and stop the run where the policy or the
 * failure says it must. The scheduler has already counted it. */
static void failed_locked(struct ts_pipe *p, struct item *it, const char *detail)
{
	char name[512], msg[1024];
	p->ops->describe(p->src, it->id, name, sizeof name);
	const char *why = it->err == TS_E_TRUNCATED ? "file ends before the sample does"
						    : ts_strerror(it->err);
	snprintf(msg, sizeof msg, "%s: %s%s%.200s%s", name, why, detail ? " (" : "",
		 detail ? detail : "", detail ? ")" : "");
	free_raw(p, it);
	pthread_cond_signal(&p->c_reader);
	p->errors++;
	if (!p->first_error[0])
		snprintf(p->first_error, sizeof p->first_error, "%.1000s", msg);
	if (it->err == -ENOTCONN) {
		/* The file system is gone (a FUSE daemon that died answers
		 * ENOTCONN to everything): no later sample can be read, and
		 * skipping them all would spin for ever on empty batches. */
		char fm[1024];
		snprintf(fm, sizeof fm, "%.900s (the mount's daemon is gone)", msg);
		fail_locked(p, it->err, fm);
	} else if (p->fatal) {
		char fm[1024];
		snprintf(fm, sizeof fm, "%.900s (on_error=fatal; on_error=skip skips such samples)",
			 msg);
		fail_locked(p, it->err, fm);
	}
}

/* ---- reader --------------------------------------------------------- */

static int own_buffer(struct ts_pipe *p, struct item *it, uint32_t len);

/* Claims the next sample (the scheduler names it) and its buffer. 1 with
 * *itp set, 0 when the window, the queue depth or the buffers are full and
 * !may_block, -1 at the end or on stop. An extent source's sample is
 * located first, into @x, so that one larger than a read slot takes memory
 * of its own instead of a slot; @x is NULL for any other source (its
 * reader, read_copy_source, has no extent to fill). */
static int claim(struct ts_pipe *p, bool may_block, struct ts_extent *x, struct item **itp)
{
	bool extents = x != NULL;
	pthread_mutex_lock(&p->mu);
	uint64_t t0 = 0;
	int rc, xerr = 0;
	struct ts_sched_pos pos;
	uint64_t need = 0;
	for (;;) {
		rc = p->stop ? -1 : ts_sched_next(p->sched, &pos);
		if (rc < 0)
			break;
		if (rc == 1) {
			need = p->ops->max_len(p->src);
			if (extents) {
				xerr = p->ops->extent(p->src, p->cfg.first + pos.id, x);
				need = xerr ? 0 : x->len;
			}
			/* A failed extent needs no buffer: it is done at once. */
			bool slot = !xerr && need <= p->slot;
			if (ts_sched_claim(p->sched, &pos, slot))
				break;
			rc = 0;
		}
		if (!may_block)
			break;
		if (!t0)
			t0 = ts_now_ns();
		pthread_cond_wait(&p->c_reader, &p->mu);
	}
	if (t0)
		p->rd_blocked_ns += ts_now_ns() - t0;
	if (rc != 1) {
		pthread_mutex_unlock(&p->mu);
		return rc < 0 ? -1 : 0; /* as ts_sched_next's (-1, 0): *itp is set only at 1 */
	}
	struct rbatch *b = &p->ring[pos.seq % p->pf];
	if (pos.pos == 0) {
		b->seq = pos.seq;
		b->size = (uint32_t)TS_MIN((uint64_t)p->B,
					   ts_sched_samples_per_epoch(p->sched) - pos.index * p->B);
		if (b->data)
			held_add(p, (int64_t)(p->B * p->out_floats * sizeof(float)));
	}
	struct item *it = &b->items[pos.pos];
	memset(it, 0, sizeof *it);
	it->b = b;
	it->pos = pos.pos;
	it->sp = pos;
	it->id = p->cfg.first + pos.id;
	it->slot = -1;
	it->err = xerr;
	it->tl_off = -1;
	if (p->tl) {
		it->tl_t0 = ts_now_ns();
		it->tl_lane = ts_tl_lane(p->tl, TS_TL_READER, it->tl_t0, UINT64_MAX);
		if (pos.pos == 0)
			ts_tl_batch_open(p->tl, pos.seq, pos.epoch, pos.index, p->pf, it->tl_t0);
	}
	if (pos.slot) {
		it->slot = p->free_slots[--p->nfree];
		it->buf = p->arena + (size_t)it->slot * p->slot;
		held_add(p, (int64_t)p->slot);
	}
	pthread_mutex_unlock(&p->mu);
	if (!xerr && !pos.slot)
		it->err = own_buffer(p, it, (uint32_t)TS_MIN(need, (uint64_t)UINT32_MAX));
	*itp = it;
	return 1;
}

/* The timeline's read of @it: from its claim to now, on its lane. */
static void tl_read(struct ts_pipe *p, const struct item *it)
{
	struct ts_tl_arg a[5] = { { "sample", (int64_t)it->id },
				  { "bytes", it->err ? 0 : it->len },
				  { "batch", (int64_t)it->sp.seq } };
	unsigned na = 3;
	if (it->tl_off >= 0)
		a[na++] = (struct ts_tl_arg){ "offset", it->tl_off };
	if (it->err)
		a[na++] = (struct ts_tl_arg){ "error", it->err };
	ts_tl_slice_end(p->tl, TS_TL_READER, it->tl_lane, it->err ? "read failed" : "read",
			it->tl_t0, ts_now_ns(), a, na);
}

/* The sample's bytes are in (or it failed): decode it or finish it. */
static void deliver(struct ts_pipe *p, struct item *it)
{
	pthread_mutex_lock(&p->mu);
	if (!it->err) {
		p->rd_samples++;
		p->rd_bytes += it->len;
	}
	if (p->tl)
		tl_read(p, it);
	ts_sched_read_done(p->sched, &it->sp, it->err);
	if (p->tl && ts_sched_complete(p->sched, it->sp.seq))
		ts_tl_batch_ready(p->tl, it->sp.seq, ts_now_ns());
	if (it->err)
		failed_locked(p, it, NULL);
	else if (p->nw)
		pthread_cond_signal(&p->c_work);
	ready_sync(p);
	pthread_mutex_unlock(&p->mu);
}

static int own_buffer(struct ts_pipe *p, struct item *it, uint32_t len)
{
	if (it->buf)
		return 0;
	if (!(it->buf = malloc(len ? len : 1)))
		return -ENOMEM;
	it->len = len;
	it->own_len = len;
	pthread_mutex_lock(&p->mu);
	held_add(p, len);
	pthread_mutex_unlock(&p->mu);
	return 0;
}

static void unwrap(struct ts_pipe *p, struct item *it)
{
	if (it->err || !p->ops->unwrap)
		return;
	struct ts_payload pl = { .off = 0, .len = it->len, .label = it->label };
	it->err = p->ops->unwrap(p->src, it->id, it->buf, it->len, &pl);
	it->poff = pl.off;
	it->plen = pl.len;
	it->label = pl.label;
	it->pixels = pl.pixels;
	it->w = pl.width;
	it->h = pl.height;
	it->c = pl.channels;
}

static int rd_next(void *ctx, struct ts_uring_io *io, bool may_block)
{
	struct ts_pipe *p = ctx;
	for (;;) {
		struct item *it;
		struct ts_extent x;
		memset(&x, 0, sizeof(x));
		int rc = claim(p, may_block, &x, &it);
		if (rc <= 0)
			return rc;
		if (!it->err) {
			it->label = x.label;
			it->len = x.len;
			it->plen = x.len;
		}
		if (it->err) {
			deliver(p, it);
			continue;
		}
		io->dirfd = x.dirfd;
		io->rel = x.rel;
		io->fd = x.fd;
		io->off = x.off;
		io->len = x.len;
		io->chunk = x.chunk;
		it->tl_off = (int64_t)x.off;
		io->buf = it->buf;
		io->buf_index = it->slot;
		io->user = it;
		return 1;
	}
}

static void rd_done(void *ctx, struct ts_uring_io *io)
{
	struct ts_pipe *p = ctx;
	struct item *it = io->user;
	it->err = io->res;
	unwrap(p, it);
	deliver(p, it);
}

static const struct ts_uring_ops rd_ops = { .next = rd_next, .done = rd_done };

static void read_copy_source(struct ts_pipe *p)
{
	struct item *it;
	while (claim(p, true, NULL, &it) > 0) {
		uint32_t cap = it->slot >= 0 ? (uint32_t)p->slot : it->len;
		uint64_t t0 = ts_now_ns();
		if (!it->err)
			it->err = p->ops->fetch(p->src, it->id, it->buf, cap, &it->len, &it->label);
		if (it->err == -ENOBUFS && it->len > cap) {
			/* Larger than its slot: a buffer of its own, and again. */
			uint32_t want = it->len;
			pthread_mutex_lock(&p->mu);
			free_raw(p, it);
			ts_sched_slot_free(p->sched, &it->sp);
			pthread_cond_signal(&p->c_reader);
			pthread_mutex_unlock(&p->mu);
			it->err = own_buffer(p, it, want);
			if (!it->err)
				it->err = p->ops->fetch(p->src, it->id, it->buf, want, &it->len,
							&it->label);
		}
		it->plen = it->len;
		unwrap(p, it);
		pthread_mutex_lock(&p->mu);
		p->rd_fetch_ns += ts_now_ns() - t0;
		pthread_mutex_unlock(&p->mu);
		deliver(p, it);
	}
}

unsigned ts_pipe_uring_flags(const struct ts_pipe_cfg *cfg)
{
	return (cfg->open_uring ? TS_URING_OPEN : 0) | (cfg->async_reads ? TS_URING_ASYNC : 0) |
	       (cfg->async_opens ? TS_URING_ASYNC_OPEN : 0);
}

static void *reader_main(void *arg)
{
	struct ts_pipe *p = arg;
	int rc = 0;
	char err[256] = "";
	if (p->ops->caps & TS_SRC_EXTENTS) {
		struct ts_uring *u;
		rc = ts_uring_new((unsigned)p->cfg.qd, p->iov, p->cfg.registered ? p->nslots : 0,
				  ts_pipe_uring_flags(&p->cfg), &u, err, sizeof err);
		if (!rc) {
			pthread_mutex_lock(&p->mu);
			p->ring_io = u;
			p->fixed = ts_uring_fixed_bufs(u);
			pthread_mutex_unlock(&p->mu);
			rc = ts_uring_run(u, &rd_ops, p);
			if (rc)
				snprintf(err, sizeof err, "io_uring: %s", ts_strerror(rc));
			pthread_mutex_lock(&p->mu);
			ts_uring_stats(u, &p->ust);
			pthread_mutex_unlock(&p->mu);
		}
	} else {
		read_copy_source(p);
	}
	pthread_mutex_lock(&p->mu);
	if (rc)
		fail_locked(p, rc, err);
	p->reader_done = true;
	pthread_cond_broadcast(&p->c_work);
	pthread_cond_broadcast(&p->c_cons);
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

/* ---- decode workers ------------------------------------------------- */

static int decode_one(struct worker *w, struct item *it)
{
	struct ts_pipe *p = w->p;
	const uint8_t *pl = it->buf + it->poff;
	struct ts_rng rng;
	ts_rng_seed(&rng, p->cfg.seed ^ (it->b->seq * 0x100000001B3ULL + it->pos) * 0xD1B54A32D192ED03ULL);
	if (it->pixels) {
		/* Raw pixels (a Caffe Datum): the transform without a decode. */
		if (it->c != 3 || (uint64_t)it->w * it->h * 3 != it->plen) {
			snprintf(w->msg, sizeof w->msg, "%ux%ux%u pixels in %u bytes", it->c, it->h,
				 it->w, it->plen);
			return TS_E_CORRUPT;
		}
		if (p->mode == TS_DECODE_REAL)
			ts_decode_planes(w->dec, pl, it->w, it->h, true, &rng,
					 it->b->data + (size_t)it->pos * p->out_floats);
		else
			ts_sleep_until_ns(ts_now_ns() + ts_decode_cal_sample_ns(&p->cal, it->len) +
					  ts_decode_cal_xform_ns(&p->cal, it->w, it->h));
		return 0;
	}
	if (p->mode == TS_DECODE_REAL) {
		float *out = it->b->data + (size_t)it->pos * p->out_floats;
		int rc = ts_decode_jpeg(w->dec, pl, it->plen, &rng, out);
		if (rc)
			snprintf(w->msg, sizeof w->msg, "%s", ts_decoder_msg(w->dec));
		return rc;
	}
	/* Modeled: the header says how big the image is; the calibration says
	 * what decoding and transforming it would cost one core; the worker
	 * is that core, busy for that long. */
	int iw, ih;
	int rc = ts_decode_header(w->dec, pl, it->plen, &iw, &ih);
	if (rc)
		snprintf(w->msg, sizeof w->msg, "%s", ts_decoder_msg(w->dec));
	else
		ts_sleep_until_ns(ts_now_ns() + ts_decode_cal_sample_ns(&p->cal, it->len) +
				  ts_decode_cal_ns(&p->cal, iw, ih));
	return rc;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct ts_pipe *p = w->p;
	pthread_mutex_lock(&p->mu);
	for (;;) {
		uint64_t t0 = ts_now_ns();
		struct ts_sched_pos pos;
		int got;
		while (!(got = ts_sched_decode_take(p->sched, &pos)) && !p->stop && !p->reader_done)
			pthread_cond_wait(&p->c_work, &p->mu);
		w->wait_in_ns += ts_now_ns() - t0;
		if (p->stop || !got)
			break;
		struct item *it = &p->ring[pos.seq % p->pf].items[pos.pos];
		pthread_mutex_unlock(&p->mu);

		uint64_t t1 = ts_now_ns();
		int rc = decode_one(w, it);
		uint64_t t2 = ts_now_ns();

		pthread_mutex_lock(&p->mu);
		w->busy_ns += t2 - t1;
		if (rc) {
			it->err = rc;
		} else {
			w->samples++;
			w->bytes += it->plen;
		}
		ts_sched_decode_done(p->sched, &it->sp, rc);
		if (p->tl) {
			struct ts_tl_arg a[] = { { "sample", (int64_t)it->id },
						 { "batch", (int64_t)it->sp.seq }, { "error", rc } };
			ts_tl_slice(p->tl, TS_TL_DECODE, w->idx, rc ? "decode failed" : "decode", t1,
				    t2, a, TS_ARRAY_SIZE(a) - !rc);
			if (ts_sched_complete(p->sched, it->sp.seq))
				ts_tl_batch_ready(p->tl, it->sp.seq, t2);
		}
		if (rc) {
			failed_locked(p, it, rc == TS_E_CORRUPT ? w->msg : NULL);
		} else if (!p->raw_in_batch) {
			free_raw(p, it);
			pthread_cond_signal(&p->c_reader);
		}
		ready_sync(p);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

void ts_pipe_set_timeline(struct ts_pipe *p, struct ts_tl_proc *tl)
{
	p->tl = tl;
}

void ts_pipe_set_log(struct ts_pipe *p, ts_sched_log_fn fn, void *ctx)
{
	ts_sched_set_log(p->sched, fn, ctx);
}

int ts_pipe_start(struct ts_pipe *p)
{
	if (p->started)
		return -EALREADY;
	p->t_start = ts_now_ns();
	p->ready_t = p->t_start;
	unsigned i;
	int rc = 0;
	for (i = 0; i < p->nw && !rc; i++)
		rc = -pthread_create(&p->w[i].th, NULL, worker_main, &p->w[i]);
	if (rc) {
		pthread_mutex_lock(&p->mu);
		fail_locked(p, rc, "cannot start the decode workers");
		pthread_mutex_unlock(&p->mu);
		for (unsigned k = 0; k + 1 < i; k++)
			pthread_join(p->w[k].th, NULL);
		p->nw = 0;
		return rc;
	}
	rc = -pthread_create(&p->reader, NULL, reader_main, p);
	if (rc) {
		pthread_mutex_lock(&p->mu);
		fail_locked(p, rc, "cannot start the reader thread");
		pthread_mutex_unlock(&p->mu);
		for (i = 0; i < p->nw; i++)
			pthread_join(p->w[i].th, NULL);
		p->nw = 0;
		return rc;
	}
	p->started = true;
	return 0;
}

/* ---- consumer ------------------------------------------------------- */

int64_t ts_pipe_next_batch(struct ts_pipe *p, struct ts_batch **out)
{
	*out = NULL;
	if (!p->started)
		return -EINVAL;
	uint64_t t0 = ts_now_ns();
	pthread_mutex_lock(&p->mu);
	uint32_t ready_now = (uint32_t)p->ready;
	struct ts_sched_batch sb;
	int got;
	while (!p->failed && !(got = ts_sched_take(p->sched, &sb))) {
		struct ts_sched_state ss;
		ts_sched_state(p->sched, &ss);
		if (p->reader_done && ss.claimed_batches <= ss.taken) {
			fail_locked(p, -EIO, "the reader stopped before the last batch");
			break;
		}
		pthread_cond_wait(&p->c_cons, &p->mu);
	}
	if (p->failed) {
		int rc = p->failed;
		pthread_mutex_unlock(&p->mu);
		return rc;
	}
	if (got < 0) {
		if (!p->t_end)
			p->t_end = t0;
		pthread_mutex_unlock(&p->mu);
		return 0;
	}
	uint64_t seq = sb.seq;
	struct rbatch *b = &p->ring[seq % p->pf];
	uint64_t now = ts_now_ns(), wait = now - t0;
	ready_sync(p);
	/* Compact the delivered samples (skipped ones leave holes). */
	uint32_t n = 0;
	for (uint32_t i = 0; i < b->size; i++) {
		struct item *it = &b->items[i];
		if (it->err)
			continue;
		b->s[n] = (struct ts_sample){ .id = it->id, .label = it->label, .len = it->plen,
					      .raw = it->buf ? it->buf + it->poff : NULL };
		if (b->data && n != i)
			memmove(b->data + (size_t)n * p->out_floats,
				b->data + (size_t)i * p->out_floats, p->out_floats * sizeof(float));
		p->bytes += it->plen;
		n++;
	}
	p->samples += n;
	p->batches++;
	b->pub = (struct ts_batch){ .seq = seq, .epoch = (uint32_t)sb.epoch,
				    .index = (uint32_t)sb.index, .n = n, .skipped = sb.failed,
				    .s = b->s, .data = b->data, .wait_ns = wait };
	p->wait_sum += wait;
	if (p->tl)
		ts_tl_batch_take(p->tl, seq, n);
	if (p->series_n < SERIES_MAX) {
		if (p->series_n == p->series_cap) {
			uint64_t cap = p->series_cap ? p->series_cap * 2 : 256;
			uint64_t *t = realloc(p->series_t, cap * sizeof *t);
			if (t)
				p->series_t = t;
			uint32_t *r = realloc(p->series_ready, cap * sizeof *r);
			if (r)
				p->series_ready = r;
			if (!t || !r)
				goto nostore;
			p->series_cap = cap;
		}
		p->series_t[p->series_n] = t0 - p->t_start;
		p->series_ready[p->series_n++] = ready_now;
	}
nostore:
	if (ts_sched_finished(p->sched))
		p->t_end = now;
	pthread_mutex_unlock(&p->mu);
	ts_hist_add(&p->wait_hist, wait);
	*out = &b->pub;
	return (int64_t)wait;
}

void ts_pipe_open_epoch(struct ts_pipe *p)
{
	pthread_mutex_lock(&p->mu);
	ts_sched_open_epoch(p->sched);
	pthread_cond_broadcast(&p->c_reader);
	pthread_mutex_unlock(&p->mu);
}

void ts_pipe_batch_release(struct ts_pipe *p, struct ts_batch *pub)
{
	if (!pub)
		return;
	pthread_mutex_lock(&p->mu);
	struct rbatch *b = &p->ring[pub->seq % p->pf];
	for (uint32_t i = 0; i < b->size; i++)
		free_raw(p, &b->items[i]);
	if (b->data)
		held_add(p, -(int64_t)(p->B * p->out_floats * sizeof(float)));
	if (p->tl)
		ts_tl_batch_release(p->tl, pub->seq, ts_now_ns());
	ts_sched_release(p->sched, pub->seq);
	pthread_cond_broadcast(&p->c_reader);
	pthread_mutex_unlock(&p->mu);
}

/* ---- reports -------------------------------------------------------- */

uint64_t ts_pipe_samples_per_epoch(const struct ts_pipe *p)
{
	return ts_sched_samples_per_epoch(p->sched);
}

uint64_t ts_pipe_batches_per_epoch(const struct ts_pipe *p)
{
	return p->nb;
}

const char *ts_pipe_error(const struct ts_pipe *p)
{
	return p->errmsg;
}

const char *ts_pipe_word(const struct ts_pipe *p, uint32_t id)
{
	return p->ops->word ? p->ops->word(p->src, id) : NULL;
}

static const char *mode_name(enum ts_decode_mode m)
{
	return m == TS_DECODE_REAL ? "real" : m == TS_DECODE_MODELED ? "modeled" : "none";
}

void ts_pipe_stats(struct ts_pipe *p, struct ts_pipe_stats *st)
{
	memset(st, 0, sizeof *st);
	st->source = p->ops->name;
	st->decode_mode = mode_name(p->mode);
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	if (p->mode == TS_DECODE_MODELED)
		snprintf(st->decode_note, sizeof st->decode_note,
			 "modeled: %llu workers each charge %.0f ns + %.0f ns/Mpixel per JPEG, "
			 "%.0f us per raw image, %.0f ns more per sample (%s %s, %s); %ld host cores",
			 (unsigned long long)p->nw, p->cal.base_ns, p->cal.ns_per_mpix,
			 (double)ts_decode_cal_xform_ns(&p->cal, 0, 0) / 1e3, p->cal.sample_ns,
			 ts_host_is_profile(p->cfg.host) ? "host profile" : "calibration",
			 ts_host_is_profile(p->cfg.host) ? p->cfg.host : p->cfg.calibration,
			 p->cal.cpu[0] ? p->cal.cpu : "unknown CPU", cores);
	else if (p->mode == TS_DECODE_REAL)
		snprintf(st->decode_note, sizeof st->decode_note,
			 "real: %u libjpeg-turbo workers on %ld host cores", p->nw, cores);
	else
		snprintf(st->decode_note, sizeof st->decode_note, "none: source bytes delivered");
	pthread_mutex_lock(&p->mu);
	uint64_t now = ts_now_ns();
	uint64_t end = p->t_end ? p->t_end : now;
	st->wall_ns = p->t_start ? end - p->t_start : 0;
	st->samples = p->samples;
	st->batches = p->batches;
	st->bytes = p->bytes;
	st->errors = p->errors;
	snprintf(st->first_error, sizeof st->first_error, "%s", p->first_error);
	st->reader.samples = p->rd_samples;
	st->reader.bytes = p->rd_bytes;
	st->reader.wait_out_ns = p->rd_blocked_ns;
	if (p->ops->caps & TS_SRC_EXTENTS) {
		struct ts_uring_stats u = p->ust;
		if (p->ring_io && !p->reader_done)
			ts_uring_stats(p->ring_io, &u);
		st->reader.wait_in_ns = u.wait_ns;
		uint64_t other = u.wait_ns + p->rd_blocked_ns;
		st->reader.busy_ns = u.run_ns > other ? u.run_ns - other : 0;
		st->reader_inflight_mean = u.run_ns ? (double)u.inflight_ns / (double)u.run_ns : 0;
	} else {
		st->reader.busy_ns = p->rd_fetch_ns;
	}
	st->decode_workers = p->nw;
	for (unsigned i = 0; i < p->nw; i++) {
		st->decode.busy_ns += p->w[i].busy_ns;
		st->decode.wait_in_ns += p->w[i].wait_in_ns;
		st->decode.samples += p->w[i].samples;
		st->decode.bytes += p->w[i].bytes;
	}
	uint64_t area = p->ready_area + (p->ready_t ? p->ready * (end - TS_MIN(end, p->ready_t)) : 0);
	st->queue_ready_mean = st->wall_ns ? (double)area / (double)st->wall_ns : 0;
	st->queue_ready_max = p->ready_max;
	st->mem_reserved = p->reserved;
	st->mem_peak = p->held_peak;
	st->fixed_buffers = p->fixed;
	st->consumer_wait_ns = p->wait_sum;
	st->series_n = p->series_n;
	st->series_t_ns = p->series_t;
	st->series_ready = p->series_ready;
	pthread_mutex_unlock(&p->mu);
	ts_hist_snapshot(&p->wait_hist, &st->consumer_wait);
}

static json_t *stage_json(const struct ts_stage_stats *s)
{
	return json_pack("{s:I, s:I, s:I, s:I, s:I}", "busy_ns", (json_int_t)s->busy_ns,
			 "wait_in_ns", (json_int_t)s->wait_in_ns, "wait_out_ns",
			 (json_int_t)s->wait_out_ns, "samples", (json_int_t)s->samples, "bytes",
			 (json_int_t)s->bytes);
}

char *ts_pipe_stats_json(const struct ts_pipe_stats *st)
{
	const struct ts_hist *h = &st->consumer_wait;
	json_t *series = json_array();
	for (uint64_t i = 0; series && i < st->series_n; i++)
		json_array_append_new(series, json_pack("[I, i]", (json_int_t)st->series_t_ns[i],
							(int)st->series_ready[i]));
	json_t *j = json_pack(
		"{s:s, s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:s, s:o, s:o, s:I, s:f, s:f, s:I, s:I, "
		"s:I, s:b, s:{s:I, s:I, s:I, s:I, s:I, s:I}, s:o}",
		"source", st->source, "decode", st->decode_mode, "decode_note", st->decode_note,
		"wall_ns", (json_int_t)st->wall_ns, "samples", (json_int_t)st->samples, "batches",
		(json_int_t)st->batches, "bytes", (json_int_t)st->bytes, "errors",
		(json_int_t)st->errors, "first_error", st->first_error, "reader",
		stage_json(&st->reader), "decode_stage", stage_json(&st->decode), "decode_workers",
		(json_int_t)st->decode_workers, "reader_inflight_mean", st->reader_inflight_mean,
		"queue_ready_mean", st->queue_ready_mean, "queue_ready_max",
		(json_int_t)st->queue_ready_max, "mem_reserved", (json_int_t)st->mem_reserved,
		"mem_peak", (json_int_t)st->mem_peak, "fixed_buffers", st->fixed_buffers,
		"consumer_wait", "total_ns", (json_int_t)st->consumer_wait_ns, "count",
		(json_int_t)h->count, "mean_ns", (json_int_t)ts_hist_mean(h), "p50_ns",
		(json_int_t)ts_hist_percentile(h, 50), "p99_ns",
		(json_int_t)ts_hist_percentile(h, 99), "max_ns", (json_int_t)(h->count ? h->max : 0),
		"queue_series", series ? series : json_null());
	if (!j)
		return NULL;
	char *s = json_dumps(j, JSON_COMPACT);
	json_decref(j);
	return s;
}

void ts_pipe_free(struct ts_pipe *p)
{
	if (!p)
		return;
	if (p->started) {
		pthread_mutex_lock(&p->mu);
		p->stop = true;
		pthread_cond_broadcast(&p->c_reader);
		pthread_cond_broadcast(&p->c_work);
		pthread_cond_broadcast(&p->c_cons);
		pthread_mutex_unlock(&p->mu);
		pthread_join(p->reader, NULL);
		for (unsigned i = 0; i < p->nw; i++)
			pthread_join(p->w[i].th, NULL);
	}
	ts_uring_free(p->ring_io);
	if (p->ring) {
		for (unsigned i = 0; i < p->pf; i++) {
			struct rbatch *b = &p->ring[i];
			for (uint32_t k = 0; b->items && k < p->B; k++)
				if (b->items[k].buf && b->items[k].slot < 0)
					free(b->items[k].buf);
			free(b->items);
			free(b->s);
			free(b->data);
		}
		free(p->ring);
	}
	if (p->w)
		for (unsigned i = 0; i < (unsigned)p->cfg.vcpus; i++)
			ts_decoder_free(p->w[i].dec);
	free(p->w);
	if (p->src)
		p->ops->close(p->src);
	if (p->arena)
		munmap(p->arena, p->arena_len);
	free(p->free_slots);
	free(p->iov);
	ts_sched_free(p->sched);
	free(p->series_t);
	free(p->series_ready);
	ts_opt_free(ts_pipe_opts, &p->cfg);
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->c_reader);
	pthread_cond_destroy(&p->c_work);
	pthread_cond_destroy(&p->c_cons);
	free(p);
}
