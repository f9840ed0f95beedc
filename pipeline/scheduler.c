/*
 * scheduler.c — the loader's decisions (see scheduler.h).
 *
 * The prefetch window. Batch k occupies ring[k % prefetch] from the moment
 * its first sample is claimed until the consumer releases it, so at most
 * `prefetch` batches exist at once. The window's front (`released`) moves
 * past every released batch at its head, in order: a batch released early
 * (out of order) frees its place only when those before it are released.
 *
 * Read buffers. `slots` buffers are shared by the samples in flight; a
 * sample holds one from its claim until it is decoded (or, with hold_raw,
 * until its batch is released), a failed sample gives it back at once.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "pipeline/scheduler.h"

/* The epochs' orders, kept across schedulers: a search runs one loader
 * after another over the same samples and seed, and shuffling a large
 * dataset costs more than a short run (156.8M samples: about a second).
 * An order depends on its key alone and is never written once made, so
 * schedulers share it; the most recent ORDERS_KEPT stay, in at most
 * ORDERS_BYTES but for the newest one. The list holds one reference to
 * each, every scheduler reading one another.
 * A large shuffled order (ORDER_EARLY samples or more) can be made on a
 * thread of its own ahead of its first claim (ts_sched_order_ahead: the
 * first epoch's, at its caller's word), while the run does what comes
 * before its first claim (a search's runs decided before their first step, their bounds'
 * walks): its first write (mostly the kernel clearing its pages) and its
 * shuffle took 2-3 s of a find-max's 4 for 156.8M samples. A scheduler
 * that wants it waits for it (making); the order is the same one. */
#define ORDERS_KEPT 8
#define ORDERS_BYTES (1ull << 30)

struct order_key {
	uint64_t n, seed, epoch;
	bool shuffle;
};

struct order_ent {
	struct order_ent *next;
	struct order_key k;
	unsigned refs;
	bool making; /* its thread still writes v: orders_cv once it is done */
	uint32_t *v;
};

static pthread_mutex_t orders_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t orders_cv = PTHREAD_COND_INITIALIZER;
static struct order_ent *orders; /* the most recent first */

static bool key_eq(const struct order_key *a, const struct order_key *b)
{
	return a->n == b->n && a->seed == b->seed && a->epoch == b->epoch &&
	       a->shuffle == b->shuffle;
}

static void ent_unref(struct order_ent *e) /* under orders_mu */
{
	if (--e->refs)
		return;
	free(e->v);
	free(e);
}

static void order_put(struct order_ent *e)
{
	if (!e)
		return;
	pthread_mutex_lock(&orders_mu);
	ent_unref(e);
	pthread_mutex_unlock(&orders_mu);
}

/* The kept order of @k, referenced, moved to the front, once made (one
 * being made is waited for); NULL if none. */
static struct order_ent *order_get(const struct order_key *k)
{
	pthread_mutex_lock(&orders_mu);
	struct order_ent **p = &orders, *e;
	while ((e = *p) && !key_eq(&e->k, k))
		p = &e->next;
	if (e) {
		*p = e->next;
		e->next = orders;
		orders = e;
		e->refs++;
		while (e->making)
			pthread_cond_wait(&orders_cv, &orders_mu);
	}
	pthread_mutex_unlock(&orders_mu);
	return e;
}

/* Keeps @v as @k's order (@making: not written yet); referenced; NULL
 * (nothing kept) without memory. */
static struct order_ent *order_keep(const struct order_key *k, uint32_t *v, bool making)
{
	struct order_ent *e = malloc(sizeof(*e));
	if (!e)
		return NULL;
	*e = (struct order_ent){ .k = *k, .refs = 2, .making = making, .v = v };
	pthread_mutex_lock(&orders_mu);
	e->next = orders;
	orders = e;
	unsigned kept = 0;
	uint64_t bytes = 0;
	for (struct order_ent **p = &orders, *o; (o = *p);) {
		bytes += o->k.n * sizeof(*o->v);
		if (o != e && (++kept >= ORDERS_KEPT || bytes > ORDERS_BYTES)) {
			*p = o->next;
			ent_unref(o);
		} else {
			p = &o->next;
		}
	}
	pthread_mutex_unlock(&orders_mu);
	return e;
}

struct sbatch {
	uint64_t seq;
	bool live;	/* claimed and not released */
	uint32_t size, filled, failed;
	uint8_t *slot;	/* per place: holds a read buffer */
};

struct ts_sched {
	struct ts_sched_cfg cfg;
	uint64_t n, per_epoch, nb, total;
	uint32_t B;
	uint64_t pf;
	struct sbatch *ring;

	uint32_t *order; /* the epoch's: ent's, or own's when none */
	uint64_t order_epoch;
	struct order_ent *ent;
	uint32_t *own; /* reserved, touched only when an order cannot be kept */

	/* reader cursor: batch rd_seq, its epoch, index in it and place in
	 * the window (rd_seq / nb, % nb, % pf, kept as it moves: a division
	 * per sample cost more than the rest of a claim) */
	uint64_t rd_seq, rd_epoch, rd_index;
	uint32_t rd_pos, rd_ring;
	uint64_t inflight, slots_free;

	/* decode queue (FIFO of read samples) */
	struct ts_sched_pos *dq;
	uint64_t dq_cap, dq_head, dq_n, busy;

	/* consumer; next_ring = next_seq % pf */
	uint64_t next_seq, released, ready, next_ring;
	uint64_t opened; /* epochs the reader may read (cfg.restart) */

	ts_sched_log_fn log;
	void *log_ctx;
};

static void note(struct ts_sched *s, enum ts_sched_ev ev, const struct ts_sched_pos *pos)
{
	if (s->log)
		s->log(s->log_ctx, ev, pos);
}

int ts_sched_new(const struct ts_sched_cfg *cfg, struct ts_sched **out, char *err, size_t errlen)
{
	*out = NULL;
	if (!cfg->batch || !cfg->prefetch || !cfg->epochs || !cfg->qd || !cfg->slots) {
		snprintf(err, errlen, "batch, prefetch, epochs, qd and read buffers must be >= 1");
		return -EINVAL;
	}
	if (cfg->samples > UINT32_MAX || cfg->batch > UINT32_MAX) {
		snprintf(err, errlen, "%llu samples; at most 2^32 per loader",
			 (unsigned long long)cfg->samples);
		return -EFBIG;
	}
	uint64_t nb = cfg->drop_last ? cfg->samples / cfg->batch
				     : (cfg->samples + cfg->batch - 1) / cfg->batch;
	if (!nb) {
		snprintf(err, errlen, "%llu samples make no full batch of %llu",
			 (unsigned long long)cfg->samples, (unsigned long long)cfg->batch);
		return -EINVAL;
	}
	struct ts_sched *s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->cfg = *cfg;
	s->n = cfg->samples;
	s->B = (uint32_t)cfg->batch;
	s->pf = cfg->prefetch;
	s->nb = nb;
	s->per_epoch = cfg->drop_last ? nb * cfg->batch : cfg->samples;
	s->total = nb * cfg->epochs;
	s->slots_free = cfg->slots;
	s->dq_cap = s->pf * s->B;
	s->order_epoch = UINT64_MAX;
	s->opened = 1;
	s->ring = calloc(s->pf, sizeof(*s->ring));
	s->own = ts_malloc_huge((s->n ? s->n : 1) * sizeof(*s->own)); /* shuffled at random */
	s->dq = malloc(s->dq_cap * sizeof(*s->dq));
	bool ok = s->ring && s->own && s->dq;
	for (uint64_t i = 0; ok && i < s->pf; i++)
		ok = (s->ring[i].slot = calloc(s->B, 1)) != NULL;
	if (!ok) {
		ts_sched_free(s);
		return -ENOMEM;
	}
	*out = s;
	return 0;
}

void ts_sched_free(struct ts_sched *s)
{
	if (!s)
		return;
	for (uint64_t i = 0; s->ring && i < s->pf; i++)
		free(s->ring[i].slot);
	free(s->ring);
	order_put(s->ent);
	free(s->own);
	free(s->dq);
	free(s);
}

void ts_sched_set_log(struct ts_sched *s, ts_sched_log_fn fn, void *ctx)
{
	s->log = fn;
	s->log_ctx = ctx;
}

uint64_t ts_sched_batches_per_epoch(const struct ts_sched *s)
{
	return s->nb;
}

uint64_t ts_sched_samples_per_epoch(const struct ts_sched *s)
{
	return s->per_epoch;
}

uint64_t ts_sched_total_batches(const struct ts_sched *s)
{
	return s->total;
}

struct fill_part {
	uint32_t *v;
	uint64_t from, end;
};

static void *fill_part(void *arg)
{
	const struct fill_part *f = arg;
	for (uint64_t i = f->from; i < f->end; i++)
		f->v[i] = (uint32_t)i;
	return NULL;
}

/* An order of this many samples or more is first written by two threads,
 * a half each: most of that time is the kernel's, clearing each page the
 * write touches first (1.3-2 s for 156.8M samples, 627 MB), which then
 * runs on both CPUs. The same values. */
#define FILL_SPLIT (1u << 24)

/* The order of @k: the dataset order, or a permutation seeded by the
 * seed and the epoch (the same for every driver and every run). */
static void fill_order(const struct order_key *k, uint32_t *v)
{
	struct fill_part lo = { v, 0, k->n }, hi = { v, k->n / 2, k->n };
	pthread_t th;
	bool two = k->n >= FILL_SPLIT && pthread_create(&th, NULL, fill_part, &hi) == 0;
	if (two)
		lo.end = hi.from;
	fill_part(&lo);
	if (two)
		pthread_join(th, NULL);
	if (k->shuffle) {
		struct ts_rng r;
		ts_rng_seed(&r, k->seed * 0x9E3779B97F4A7C15ULL + k->epoch + 1);
		ts_rng_shuffle_u32(&r, v, k->n);
	}
}

/* A shuffled order of this many samples or more is made ahead where its
 * caller asks (ts_sched_order_ahead). */
#define ORDER_EARLY FILL_SPLIT

/* The thread making order @arg (making, one reference its own). */
static void *order_make(void *arg)
{
	struct order_ent *e = arg;
	fill_order(&e->k, e->v);
	pthread_mutex_lock(&orders_mu);
	e->making = false;
	pthread_cond_broadcast(&orders_cv);
	ent_unref(e);
	pthread_mutex_unlock(&orders_mu);
	return NULL;
}

/* Starts making the first epoch's order of a large shuffled scheduler
 * on a thread of its own, unless it is kept (or being made) already; a
 * scheduler made at the same moment by another thread may start it too
 * (the work twice, the same order). Nothing where memory or a thread
 * is short: make_order makes it then. */
void ts_sched_order_ahead(const struct ts_sched *s)
{
	struct order_key k = { s->n, s->cfg.seed, 0, true };
	if (!s->cfg.shuffle || s->n < ORDER_EARLY)
		return;
	pthread_mutex_lock(&orders_mu);
	const struct order_ent *o = orders;
	while (o && !key_eq(&o->k, &k))
		o = o->next;
	pthread_mutex_unlock(&orders_mu);
	uint32_t *v = o ? NULL : ts_malloc_huge(s->n * sizeof(*v));
	struct order_ent *e = v ? order_keep(&k, v, true) : NULL;
	if (!e) {
		free(v);
		return;
	}
	pthread_attr_t a;
	pthread_t th;
	bool started = !pthread_attr_init(&a);
	if (started) {
		started = !pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED) &&
			  !pthread_create(&th, &a, order_make, e);
		pthread_attr_destroy(&a);
	}
	if (!started)
		order_make(e); /* here, then */
}

/* Out of line: once an epoch, and inlined it made ts_sched_next, called
 * a few times per sample, save and restore six registers every time. */
static __attribute__((noinline)) void make_order(struct ts_sched *s, uint64_t epoch)
{
	/* unshuffled, every epoch's order is the same one */
	struct order_key k = { s->n, s->cfg.seed, s->cfg.shuffle ? epoch : 0, s->cfg.shuffle };
	order_put(s->ent);
	s->ent = order_get(&k);
	if (!s->ent) {
		uint32_t *v = ts_malloc_huge((s->n ? s->n : 1) * sizeof(*v));
		if (v)
			fill_order(&k, v);
		if (v && !(s->ent = order_keep(&k, v, false)))
			free(v);
	}
	s->order = s->ent ? s->ent->v : s->own;
	if (!s->ent)
		fill_order(&k, s->own);
	s->order_epoch = epoch;
}

int ts_sched_next(struct ts_sched *s, struct ts_sched_pos *pos)
{
	if (s->rd_seq >= s->total)
		return -1;
	if (s->rd_seq >= s->released + s->pf || s->inflight >= s->cfg.qd)
		return 0;
	uint64_t epoch = s->rd_epoch;
	if (s->cfg.restart && epoch >= s->opened)
		return 0;
	if (s->order_epoch != epoch)
		make_order(s, epoch);
	*pos = (struct ts_sched_pos){ .seq = s->rd_seq, .epoch = epoch, .index = s->rd_index,
				      .pos = s->rd_pos, .ring = s->rd_ring };
	pos->id = s->order[pos->index * s->B + s->rd_pos];
	return 1;
}

uint64_t ts_sched_peek(const struct ts_sched *s, uint64_t ahead)
{
	if (s->rd_seq >= s->total || s->order_epoch != s->rd_epoch)
		return UINT64_MAX;
	uint64_t k = s->rd_index * s->B + s->rd_pos + ahead;
	return k < s->per_epoch ? s->order[k] : UINT64_MAX;
}

const uint32_t *ts_sched_order(const struct ts_sched *s, uint64_t epoch)
{
	return s->order_epoch == epoch ? s->order : NULL;
}

void ts_sched_open_epoch(struct ts_sched *s)
{
	s->opened++;
}

/* Batch @b's first claim, @pos: out of line, once a batch (as with
 * make_order: its memset call cost every claim a register save). */
static __attribute__((noinline)) void batch_open(const struct ts_sched *s, struct sbatch *b,
						 const struct ts_sched_pos *pos)
{
	b->seq = pos->seq;
	b->live = true;
	b->filled = b->failed = 0;
	b->size = (uint32_t)TS_MIN((uint64_t)s->B, s->per_epoch - pos->index * s->B);
	memset(b->slot, 0, s->B);
}

int ts_sched_claim(struct ts_sched *s, struct ts_sched_pos *pos, bool slot)
{
	if (slot && !s->slots_free)
		return 0;
	struct sbatch *b = &s->ring[pos->ring];
	if (pos->pos == 0)
		batch_open(s, b, pos);
	pos->slot = slot;
	b->slot[pos->pos] = slot;
	if (slot)
		s->slots_free--;
	s->inflight++;
	if (++s->rd_pos == b->size) {
		s->rd_pos = 0;
		s->rd_seq++;
		s->rd_ring = s->rd_ring + 1 == s->pf ? 0 : s->rd_ring + 1;
		if (++s->rd_index == s->nb) {
			s->rd_index = 0;
			s->rd_epoch++;
		}
	}
	note(s, TS_SCHED_EV_CLAIM, pos);
	return 1;
}

uint64_t ts_sched_slots_free(const struct ts_sched *s)
{
	return s->slots_free;
}

static void give_slot(struct ts_sched *s, const struct ts_sched_pos *pos)
{
	uint8_t *held = &s->ring[pos->ring].slot[pos->pos];
	if (*held) {
		*held = 0;
		s->slots_free++;
	}
}

void ts_sched_slot_free(struct ts_sched *s, struct ts_sched_pos *pos)
{
	give_slot(s, pos);
	pos->slot = false;
}

static void finish(struct ts_sched *s, const struct ts_sched_pos *pos, int err)
{
	struct sbatch *b = &s->ring[pos->ring];
	if (err) {
		b->failed++;
		give_slot(s, pos);
	} else if (!s->cfg.hold_raw) {
		give_slot(s, pos);
	}
	note(s, TS_SCHED_EV_DONE, pos);
	if (++b->filled == b->size)
		s->ready++;
}

void ts_sched_read_done(struct ts_sched *s, const struct ts_sched_pos *pos, int err)
{
	s->inflight--;
	note(s, TS_SCHED_EV_READ_DONE, pos);
	if (err || !s->cfg.workers) {
		finish(s, pos, err);
		return;
	}
	uint64_t k = s->dq_head + s->dq_n++; /* both below dq_cap */
	s->dq[k >= s->dq_cap ? k - s->dq_cap : k] = *pos;
}

int ts_sched_decode_take(struct ts_sched *s, struct ts_sched_pos *pos)
{
	if (!s->dq_n || s->busy >= s->cfg.workers)
		return 0;
	*pos = s->dq[s->dq_head];
	s->dq_head = s->dq_head + 1 == s->dq_cap ? 0 : s->dq_head + 1;
	s->dq_n--;
	s->busy++;
	note(s, TS_SCHED_EV_DECODE_START, pos);
	return 1;
}

void ts_sched_decode_done(struct ts_sched *s, const struct ts_sched_pos *pos, int err)
{
	s->busy--;
	finish(s, pos, err);
}

bool ts_sched_ready(const struct ts_sched *s)
{
	if (s->next_seq >= s->total)
		return false;
	const struct sbatch *b = &s->ring[s->next_ring];
	return b->live && b->seq == s->next_seq && b->filled == b->size;
}

int ts_sched_take(struct ts_sched *s, struct ts_sched_batch *out)
{
	if (s->next_seq >= s->total)
		return -1;
	if (!ts_sched_ready(s))
		return 0;
	const struct sbatch *b = &s->ring[s->next_ring];
	*out = (struct ts_sched_batch){ .seq = b->seq, .epoch = b->seq / s->nb,
					.index = b->seq % s->nb, .size = b->size,
					.failed = b->failed };
	s->next_seq++;
	s->next_ring = s->next_ring + 1 == s->pf ? 0 : s->next_ring + 1;
	s->ready--;
	struct ts_sched_pos p = { .seq = out->seq, .epoch = out->epoch, .index = out->index };
	note(s, TS_SCHED_EV_TAKE, &p);
	return 1;
}

void ts_sched_release(struct ts_sched *s, uint64_t seq)
{
	struct sbatch *b = &s->ring[seq % s->pf];
	if (!b->live || b->seq != seq)
		return;
	for (uint32_t i = 0; i < b->size; i++)
		if (b->slot[i]) {
			b->slot[i] = 0;
			s->slots_free++;
		}
	b->live = false;
	while (s->released < s->next_seq && !s->ring[s->released % s->pf].live)
		s->released++;
	struct ts_sched_pos p = { .seq = seq, .epoch = seq / s->nb, .index = seq % s->nb };
	note(s, TS_SCHED_EV_RELEASE, &p);
}

bool ts_sched_complete(const struct ts_sched *s, uint64_t seq)
{
	const struct sbatch *b = &s->ring[seq % s->pf];
	return b->live && b->seq == seq && b->filled == b->size;
}

bool ts_sched_finished(const struct ts_sched *s)
{
	return s->next_seq >= s->total;
}

void ts_sched_state(const struct ts_sched *s, struct ts_sched_state *st)
{
	*st = (struct ts_sched_state){ .inflight = s->inflight, .slots_free = s->slots_free,
				       .decode_queue = s->dq_n, .workers_busy = s->busy,
				       .ready = s->ready, .claimed_batches = s->rd_seq,
				       .taken = s->next_seq, .released = s->released };
}
