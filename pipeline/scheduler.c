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

/* An epoch's order: stored or computed.
 *
 * A shuffled order of fewer than COMPUTED_FROM samples is stored: the
 * indices 0 .. n - 1 shuffled by Fisher-Yates (ts_rng_shuffle_u32) with
 * a generator seeded by the seed and the epoch. One of COMPUTED_FROM or
 * more is computed a position at a time by a keyed pseudo-random
 * permutation drawn from that generator (ts_rng_perm: 100 KiB of
 * tables for bert, made in under a millisecond): stored, 156.8M samples
 * (bert) took 627 MB written whole (about a second of the kernel clearing
 * its pages) and shuffled (0.8 s, waiting on memory) before the first
 * sample of the epoch was known, of a find-max of 3 s. Either is a
 * uniformly random permutation as far as a model of DLIO's shuffle can
 * tell (tiersim's generator is not numpy's, so neither is DLIO's own
 * order); only datasets of COMPUTED_FROM samples or more have the second.
 * An unshuffled order (the dataset's) is computed at every size.
 *
 * The stored orders are kept across schedulers: a search runs one loader
 * after another over the same samples and seed. An order depends on its
 * key alone and is never written once made, so schedulers share it; the
 * most recent ORDERS_KEPT stay, in at most ORDERS_BYTES but for the
 * newest one. The list holds one reference to each, every scheduler
 * reading one another. */
#define COMPUTED_FROM (1u << 24)
#define ORDERS_KEPT 8
#define ORDERS_BYTES (1ull << 30)
/* A computed order is looked up ORDER_BLOCK positions at a time: the
 * lookups then overlap, where one a claim waited on its tables, evicted
 * by the run between two claims. ts_sched_peek's look ahead (the
 * virtual loader's: 16) within PEEK_NEAR finds them looked up. */
#define ORDER_BLOCK 1024u
#define PEEK_NEAR 32u

static uint64_t computed_from = COMPUTED_FROM;

void ts_sched_set_computed_from(uint64_t n)
{
	__atomic_store_n(&computed_from, n ? n : COMPUTED_FROM, __ATOMIC_RELAXED);
}

uint64_t ts_sched_computed_from(void)
{
	return __atomic_load_n(&computed_from, __ATOMIC_RELAXED);
}

struct order_key { /* a stored order's */
	uint64_t n, seed, epoch;
};

struct order_ent {
	struct order_ent *next;
	struct order_key k;
	unsigned refs;
	uint32_t *v;
};

static pthread_mutex_t orders_mu = PTHREAD_MUTEX_INITIALIZER;
static struct order_ent *orders; /* the most recent first */

static bool key_eq(const struct order_key *a, const struct order_key *b)
{
	return a->n == b->n && a->seed == b->seed && a->epoch == b->epoch;
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

/* The kept order of @k, referenced, moved to the front; NULL if none. */
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
	}
	pthread_mutex_unlock(&orders_mu);
	return e;
}

/* Keeps @v as @k's order; referenced; NULL (nothing kept) without
 * memory. */
static struct order_ent *order_keep(const struct order_key *k, uint32_t *v)
{
	struct order_ent *e = malloc(sizeof(*e));
	if (!e)
		return NULL;
	*e = (struct order_ent){ .k = *k, .refs = 2, .v = v };
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

	struct ts_sched_order ord; /* the epoch's */
	uint64_t order_epoch;
	bool computed;	 /* the orders are computed (else stored) */
	uint16_t *perm;	 /* computed and shuffled: ord.perm's tables */
	struct order_ent *ent;
	uint32_t *own; /* stored: reserved, touched only when an order cannot be kept */
	/* computed: the ids of positions [c0, cend) of the epoch, looked up
	 * a block at a time (id_at) */
	uint64_t c0, cend;
	uint32_t cids[ORDER_BLOCK];

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
	s->computed = !cfg->shuffle || s->n >= __atomic_load_n(&computed_from, __ATOMIC_RELAXED);
	if (!s->computed)
		s->own = ts_malloc_huge(s->n * sizeof(*s->own)); /* shuffled at random */
	else if (cfg->shuffle)
		s->perm = malloc(ts_rng_perm_entries(s->n) * sizeof(*s->perm));
	s->dq = malloc(s->dq_cap * sizeof(*s->dq));
	bool ok = s->ring && (s->computed ? !cfg->shuffle || s->perm : s->own != NULL) && s->dq;
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
	free(s->perm);
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

/* A stored order of @k: a permutation of the dataset order seeded by
 * the seed and the epoch (the same for every driver and every run). */
static void fill_order(const struct order_key *k, uint32_t *v)
{
	for (uint64_t i = 0; i < k->n; i++)
		v[i] = (uint32_t)i;
	struct ts_rng r;
	ts_rng_seed(&r, k->seed * 0x9E3779B97F4A7C15ULL + k->epoch + 1);
	ts_rng_shuffle_u32(&r, v, k->n);
}

/* Out of line: once an epoch, and inlined it made ts_sched_next, called
 * a few times per sample, save and restore six registers every time. */
static __attribute__((noinline)) void make_order(struct ts_sched *s, uint64_t epoch)
{
	s->order_epoch = epoch;
	s->c0 = s->cend = 0;
	if (s->computed) {
		s->ord = (struct ts_sched_order){ 0 }; /* unshuffled: the dataset order */
		if (s->cfg.shuffle) {
			struct ts_rng r; /* seeded as a stored order's */
			ts_rng_seed(&r, s->cfg.seed * 0x9E3779B97F4A7C15ULL + epoch + 1);
			ts_rng_perm_init(&s->ord.perm, &r, s->n, s->perm);
		}
		return;
	}
	struct order_key k = { s->n, s->cfg.seed, epoch };
	order_put(s->ent);
	s->ent = order_get(&k);
	if (!s->ent) {
		uint32_t *v = ts_malloc_huge(s->n * sizeof(*v));
		if (v)
			fill_order(&k, v);
		if (v && !(s->ent = order_keep(&k, v)))
			free(v);
	}
	s->ord = (struct ts_sched_order){ .v = s->ent ? s->ent->v : s->own };
	if (!s->ent)
		fill_order(&k, s->own);
}

/* A computed order's positions [k, k + ORDER_BLOCK) looked up. */
static __attribute__((noinline)) void ids_fill(struct ts_sched *s, uint64_t k)
{
	s->c0 = k;
	s->cend = TS_MIN(k + ORDER_BLOCK, s->per_epoch);
	ts_sched_order_fill(&s->ord, k, s->cend - k, s->cids);
}

/* Position @k's id, the order's memory or what ids_fill looked up, the
 * next PEEK_NEAR too. */
static inline uint64_t id_at(struct ts_sched *s, uint64_t k)
{
	if (s->ord.v)
		return s->ord.v[k];
	if (k < s->c0 || (k + PEEK_NEAR > s->cend && s->cend < s->per_epoch))
		ids_fill(s, k);
	return s->cids[k - s->c0];
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
	pos->id = id_at(s, pos->index * s->B + s->rd_pos);
	return 1;
}

uint64_t ts_sched_peek(const struct ts_sched *s, uint64_t ahead)
{
	if (s->rd_seq >= s->total || s->order_epoch != s->rd_epoch)
		return UINT64_MAX;
	uint64_t k = s->rd_index * s->B + s->rd_pos + ahead;
	if (k >= s->per_epoch)
		return UINT64_MAX;
	return k >= s->c0 && k < s->cend ? s->cids[k - s->c0] : ts_sched_order_at(&s->ord, k);
}

const struct ts_sched_order *ts_sched_order(const struct ts_sched *s, uint64_t epoch)
{
	return s->order_epoch == epoch ? &s->ord : NULL;
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
