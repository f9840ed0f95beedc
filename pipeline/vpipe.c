/*
 * vpipe.c — the loader in virtual time (see vpipe.h).
 *
 * The event loop. Three kinds of event, each at a virtual time: a read
 * completes (the disk said when), a decode worker finishes (the calibration
 * said how long), the consumer releases a batch (it said when). After every
 * event the reader and the workers are offered whatever the scheduler now
 * allows, at the event's time — which is what the real loader's threads do
 * when a completion, a finished decode or a release wakes them. Equal times
 * are taken in the order they were scheduled, so a run is deterministic.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/evq.h"
#include "pipeline/scheduler.h"
#include "pipeline/timeline.h"
#include "pipeline/vpipe.h"

enum { EV_READ, EV_DECODE, EV_RELEASE, EV_OPEN };

struct ev {
	uint8_t kind;
	int err;
	struct ts_sched_pos pos;
	struct ev *next_free;
};

struct ts_vpipe {
	const struct ts_source_ops *ops;
	struct ts_vsource vs;
	bool vs_open;
	struct ts_vdisk disk;
	struct ts_decode_cal cal;
	bool decode;
	uint64_t slot_size;
	struct ts_sched *sched;
	uint64_t batch, prefetch;
	uint64_t first; /* cfg's: the first sample used */
	uint64_t *cost; /* decode cost of each place in the window, set at claim */
	/* Samples planned before their claim, by claim count mod PLANNED:
	 * the next to claim (held back for want of a buffer, it is asked
	 * again at every event) and those prefetch_ahead planned AHEAD
	 * claims early, each planned once. id: the sample's, UINT64_MAX
	 * none. */
	struct planned {
		uint64_t id;
		struct ts_vsample s;
	} *planned;
	uint64_t claims;
	/* The reader's next claim fails for want of a read buffer (starved):
	 * until one frees, the reader names the same sample (only a claim
	 * moves it) and its claim fails again, so pump does not ask. A
	 * shuffled epoch's reader waits so at most events: of 3.6M claims
	 * the ImageNet speed case asked, 2.3M failed. */
	bool starved;

	/* Events, each queue's mostly pushed near their place in time: q[1]
	 * the decodes, q[0] the rest. One queue for all put a completion of
	 * a read behind the decodes in flight (milliseconds out, the reads a
	 * fraction of one), where the queue's search from the back gives up:
	 * a third of the pushes went to its heap. Popped in (time, tie)
	 * order across both, as from one queue. */
	struct ts_evq q[2];
	uint64_t tie;
	uint64_t now;
	uint64_t start;
	bool started; /* the first batch was asked for */
	struct ev *free_ev;
	struct ev **chunks;
	size_t nchunks;

	struct ts_vpipe_stats st;
	struct ts_tl_proc *tl; /* NULL: no timeline */
};

static struct ev *ev_get(struct ts_vpipe *v)
{
	if (!v->free_ev) {
		enum { CHUNK = 256 };
		struct ev **nc = realloc(v->chunks, (v->nchunks + 1) * sizeof(*nc));
		if (!nc)
			return NULL;
		v->chunks = nc;
		struct ev *c = calloc(CHUNK, sizeof(*c));
		if (!c)
			return NULL;
		v->chunks[v->nchunks++] = c;
		for (size_t i = 0; i < CHUNK; i++) {
			c[i].next_free = v->free_ev;
			v->free_ev = &c[i];
		}
	}
	struct ev *e = v->free_ev;
	v->free_ev = e->next_free;
	return e;
}

static int ev_push(struct ts_vpipe *v, uint64_t t, uint8_t kind, const struct ts_sched_pos *pos,
		   int err)
{
	struct ev *e = ev_get(v);
	if (!e)
		return -ENOMEM;
	e->kind = kind;
	e->err = err;
	e->pos = *pos;
	int rc = ts_evq_push(&v->q[kind == EV_DECODE], t, v->tie++, e);
	if (rc) {
		e->next_free = v->free_ev;
		v->free_ev = e;
	}
	return rc;
}

/* A request (or a run of sequential requests of io->chunk bytes) issued
 * at @t; returns when the last one completes. */
static uint64_t disk_io(struct ts_vpipe *v, uint64_t t, const struct ts_vio *io)
{
	if (io->op == TS_VIO_META) {
		v->st.meta_requests++;
		return v->disk.submit(v->disk.ctx, t, io);
	}
	if (!io->chunk || io->len <= io->chunk) {
		v->st.read_requests++;
		v->st.read_bytes += io->len;
		return v->disk.submit(v->disk.ctx, t, io);
	}
	struct ts_vio part = *io;
	for (uint64_t done = 0; done < io->len; done += part.len) {
		part.off = io->off + done;
		part.len = TS_MIN(io->chunk, io->len - done);
		v->st.read_requests++;
		v->st.read_bytes += part.len;
		t = v->disk.submit(v->disk.ctx, t, &part);
	}
	return t;
}

static uint64_t work_ns(const struct ts_vpipe *v, const struct ts_vsample *s)
{
	if (!v->decode)
		return 0;
	uint64_t fw = ts_decode_cal_sample_ns(&v->cal, s->len);
	switch (s->work) {
	case TS_VWORK_JPEG: return fw + ts_decode_cal_ns(&v->cal, s->width, s->height);
	case TS_VWORK_PIXELS: return fw + ts_decode_cal_xform_ns(&v->cal, s->width, s->height);
	default: return fw;
	}
}

/* The timeline's read: from the claim (now) to when the last request of
 * the sample completes, @t. */
static void tl_read(struct ts_vpipe *v, const struct ts_sched_pos *pos, const struct ts_vsample *s,
		    uint64_t t)
{
	if (pos->pos == 0)
		ts_tl_batch_open(v->tl, pos->seq, pos->epoch, pos->index, v->prefetch, v->now);
	int64_t off = -1;
	for (unsigned i = 0; i < s->n && off < 0; i++)
		if (s->io[i].op == TS_VIO_READ)
			off = (int64_t)s->io[i].off;
	struct ts_tl_arg a[] = { { "sample", (int64_t)pos->id }, { "bytes", (int64_t)s->len },
				 { "batch", (int64_t)pos->seq }, { "offset", off } };
	ts_tl_slice_lane(v->tl, TS_TL_READER, "read", v->now, t, a,
			 TS_ARRAY_SIZE(a) - (off < 0));
}

/*
 * How far ahead of the reader the loop starts loading what the samples it
 * will claim read from memory: the source's per-sample data at 2 x AHEAD
 * claims, the disk model's records of the sample's requests at AHEAD
 * (planning it needs the source's data in cache by then). A shuffled
 * epoch over a large dataset finds each of them in memory at random, one
 * miss each, most of a claim's time without it; a claim costs a few
 * microseconds, so AHEAD claims cover a miss many times over while the
 * prefetched lines are few enough to stay in cache.
 */
#define AHEAD 8
#define PLANNED 16 /* > AHEAD: the next claim's plan is not overwritten */

/* The plan of the sample claimed as claim @c, @id: planned now unless
 * prefetch_ahead planned it (a source's plan is a function of the sample
 * alone, so either is the same). */
static struct ts_vsample *plan_at(struct ts_vpipe *v, uint64_t c, uint64_t id)
{
	struct planned *p = &v->planned[c % PLANNED];
	if (p->id != id) {
		v->ops->plan_sample(&v->vs, v->first + id, &p->s);
		p->id = id;
	}
	return &p->s;
}

/* After a claim: the next claim is number v->claims, the sample peek
 * finds AHEAD places on is claimed as number v->claims + AHEAD. */
static void prefetch_ahead(struct ts_vpipe *v)
{
	uint64_t id;
	if (v->ops->plan_prefetch && (id = ts_sched_peek(v->sched, 2 * AHEAD)) != UINT64_MAX)
		v->ops->plan_prefetch(&v->vs, v->first + id);
	if (v->disk.prefetch && (id = ts_sched_peek(v->sched, AHEAD)) != UINT64_MAX) {
		const struct ts_vsample *s = plan_at(v, v->claims + AHEAD, id);
		for (unsigned i = 0; i < s->n; i++)
			v->disk.prefetch(v->disk.ctx, &s->io[i]);
	}
}

/* Would the reader's next claim fail for want of a read buffer? Told
 * from the sample the scheduler will name and its plan (made once: the
 * claim takes the same), without naming it. */
static bool starved(struct ts_vpipe *v)
{
	if (ts_sched_slots_free(v->sched))
		return false;
	uint64_t id = ts_sched_peek(v->sched, 0);
	return id != UINT64_MAX && plan_at(v, v->claims, id)->len <= v->slot_size;
}

/* The reader and the workers take what the scheduler allows, now. */
static int pump(struct ts_vpipe *v)
{
	struct ts_sched_pos pos;
	int rc;
	if (v->starved && !ts_sched_slots_free(v->sched))
		goto decode;
	while (!(v->starved = starved(v)) && ts_sched_next(v->sched, &pos) == 1) {
		struct ts_vsample *sp = plan_at(v, v->claims, pos.id);
		if (!ts_sched_claim(v->sched, &pos, sp->len <= v->slot_size)) {
			v->starved = true;
			break;
		}
		v->claims++;
		/* sp stays put: prefetch_ahead plans AHEAD claims on, another
		 * of the PLANNED places: no copy of the ~200-byte plan */
		const struct ts_vsample *s = sp;
		prefetch_ahead(v);
		uint64_t t = v->now;
		for (unsigned i = 0; i < s->n; i++)
			t = disk_io(v, t, &s->io[i]);
		if (v->tl)
			tl_read(v, &pos, s, t);
		v->cost[pos.ring * v->batch + pos.pos] = work_ns(v, s);
		if ((rc = ev_push(v, t, EV_READ, &pos, 0)))
			return rc;
	}
decode:
	while (ts_sched_decode_take(v->sched, &pos)) {
		uint64_t ns = v->cost[pos.ring * v->batch + pos.pos];
		v->st.decode_busy_ns += ns;
		if (v->tl) {
			struct ts_tl_arg a[] = { { "sample", (int64_t)pos.id },
						 { "batch", (int64_t)pos.seq } };
			ts_tl_slice_lane(v->tl, TS_TL_DECODE, "decode", v->now, v->now + ns, a,
					 TS_ARRAY_SIZE(a));
		}
		if ((rc = ev_push(v, v->now + ns, EV_DECODE, &pos, 0)))
			return rc;
	}
	return 0;
}

int ts_vpipe_new(const struct ts_pipe_cfg *cfg, const struct ts_dataset_meta *meta,
		 const struct ts_vdisk *disk, const struct ts_decode_cal *cal,
		 struct ts_vpipe **out, char *err, size_t errlen)
{
	*out = NULL;
	const struct ts_source_ops *ops = ts_source_find(cfg->source, err, errlen);
	if (!ops)
		return TS_E_UNKNOWN;
	int rc = ts_source_check(ops, err, errlen);
	if (rc)
		return rc;
	if (!ops->plan_open) {
		snprintf(err, errlen, "source '%s' runs only in real time", ops->name);
		return -EINVAL;
	}
	if ((ops->caps & TS_SRC_SEQUENTIAL) && cfg->shuffle) {
		snprintf(err, errlen, "option 'shuffle': source '%s' is read in its stored order; "
				      "set shuffle=false", ops->name);
		return -EINVAL;
	}
	enum ts_decode_mode mode;
	/* Virtual time has no cores to run out of: a decode is charged. */
	if ((rc = ts_pipe_decode_mode(cfg, ops, 0, &mode, err, errlen)))
		return rc;
	bool decode = mode != TS_DECODE_NONE;
	if (decode && !cal) {
		snprintf(err, errlen, "option 'decode': virtual time charges the calibrated decode "
				      "cost, and none was given");
		return -EINVAL;
	}
	struct ts_vpipe *v = calloc(1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	v->ops = ops;
	v->disk = *disk;
	v->decode = decode;
	if (cal) {
		v->cal = *cal;
		ts_decode_cal_for_source(&v->cal, ops->caps & TS_SRC_TORCH, cfg->batch);
	}
	v->vs.meta = meta;
	v->vs.cfg = cfg;
	v->vs.fs = disk->fs;
	if ((rc = ops->plan_open(ops, &v->vs, err, errlen)))
		goto fail;
	v->vs_open = true;
	uint64_t n;
	if ((rc = ts_pipe_range(cfg, ops, v->vs.count, &n, err, errlen)))
		goto fail;
	struct ts_pipe_layout lay;
	ts_pipe_layout(cfg, ops, n, v->vs.max_len, decode ? (unsigned)cfg->vcpus : 0, &lay);
	v->slot_size = lay.slot_size;
	if ((rc = ts_sched_new(&lay.sched, &v->sched, err, errlen)))
		goto fail;
	v->batch = cfg->batch;
	v->prefetch = cfg->prefetch;
	v->first = cfg->first;
	if (!(v->cost = calloc(v->batch * v->prefetch, sizeof(*v->cost))) ||
	    !(v->planned = malloc(PLANNED * sizeof(*v->planned)))) {
		rc = -ENOMEM;
		goto fail;
	}
	for (unsigned i = 0; i < PLANNED; i++)
		v->planned[i].id = UINT64_MAX;
	v->st.source = ops->name;
	v->st.decode_mode = decode ? "modeled" : "none";
	v->st.decode_workers = decode ? cfg->vcpus : 0;
	v->st.sample_ns = decode && cal ? v->cal.sample_ns : 0;
	v->st.dataloader = ops->caps & TS_SRC_TORCH;
	/* What the source reads when it opens, before the first batch. */
	for (unsigned i = 0; i < v->vs.at_open.n; i++)
		v->start = disk_io(v, v->start, &v->vs.at_open.io[i]);
	v->st.open_ns = v->start;
	v->now = v->start;
	*out = v;
	return 0;
fail:
	ts_vpipe_free(v);
	return rc;
}

void ts_vpipe_set_timeline(struct ts_vpipe *v, struct ts_tl_proc *tl)
{
	v->tl = tl;
}

/* Where a read ends (@start false) or starts, in (file, offset), as a
 * key; 0 is an empty slot, and two keys that meet count as a merge (a
 * bound may count too many, never too few). */
static inline uint64_t span_key(uint64_t file, uint64_t off, bool start)
{
	uint64_t x = (file + 1) * 0x9e3779b97f4a7c15ULL ^ off * 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 31;
	return (x | 1) ^ (start ? 2 : 0);
}

/* Whether @k is in @t, looked for from slot @at & @mask on */
static bool span_has(const uint64_t *t, uint64_t mask, uint64_t at, uint64_t k)
{
	for (uint64_t i = at & mask; t[i]; i = (i + 1) & mask)
		if (t[i] == k)
			return true;
	return false;
}

/* @k put in @t: in the first slot from its own that is empty or holds
 * it. The one past its own is chosen without a branch (its own is
 * empty most of the time, at random); a loop only where that one is
 * full of another key too. */
static void span_put(uint64_t *t, uint64_t mask, uint64_t k)
{
	uint64_t i = k & mask, t0 = t[i];
	i = (i + (t0 && t0 != k)) & mask;
	while (t[i] && t[i] != k)
		i = (i + 1) & mask;
	t[i] = k;
}

/* Whether @k is in @cur or @old: the same answer as span_has on each,
 * with the two slots from k's own looked at in both tables at once and
 * no branch but where both are full. A slot is never emptied but with
 * its whole table, so k past an empty slot from its own is not there:
 * k one past its own means its own was full when k was put, and still
 * is. The tables are at most half full, mostly far less: a lookup that
 * goes on past two slots is rare, while a branch on each slot's being
 * empty was taken at random, and mispredicted. */
static bool span_in(const uint64_t *cur, const uint64_t *old, uint64_t mask, uint64_t k)
{
	uint64_t i = k & mask, j = (i + 1) & mask;
	uint64_t c0 = cur[i], c1 = cur[j], o0 = old[i], o1 = old[j];
	if ((c0 == k) | (c1 == k) | (o0 == k) | (o1 == k))
		return true;
	return (c0 && c1 && span_has(cur, mask, j + 1, k)) ||
	       (o0 && o1 && span_has(old, mask, j + 1, k));
}

/* The starts and ends of the reads of positions [(g - 1) window,
 * (g + 1) window) live in two tables, one per block of @window positions
 * (the older cleared as a block starts): a lookup sees at least the
 * @window positions before its own.
 * The tier merges by arrival, not by order: a read joins one in flight
 * that ends where it starts, and a sample later in the order may reach
 * the tier first. So every pair of reads of the window that meet (one
 * ends where the other starts, either before the other in the order) is
 * counted once, by the later of the two in the order: a read joins at
 * most one other and is joined by at most one, so no more samples than
 * such pairs read without an I/O of their own.
 * The count goes on from where it stopped (ts_vpipe_merges_more): a
 * position's count depends on the tables only, which hold the same
 * whatever the steps it was counted in. */
#define MERGE_AHEAD 8u
#define MERGE_IDS 256u /* over 2 MERGE_AHEAD */
struct ts_vpipe_merges {
	uint64_t epoch, window, mark, end;
	uint64_t done, below, all;
	uint64_t size, mask;
	uint64_t *tab;	   /* two tables of size slots */
	uint64_t *tab2;	   /* the second thread's two (NULL: not yet made) */
	uint64_t split;	   /* a step of this many positions or more splits */
	bool split_failed; /* tab2 could not be made: one thread */
	/* Listed (merges_list): the positions [done, end) count at, once
	 * each time they count, ascending, at[next..nat) those not yet
	 * added; list: a step of this many positions or more lists them */
	uint32_t *at;
	uint64_t nat, next, list;
	bool listed, list_failed;
	bool plain; /* listed from the reads, not the source's plan_runs */
};

/* A step of the count of at least this many positions, over four blocks
 * or more, is split in two at a block's start and counted by two threads
 * (the second with tables of its own, filled first with the block before
 * its part: what a lookup there sees). Each position counts what it
 * counts on one thread, so the sums are the same. */
#define MERGE_SPLIT (1u << 20)

/* merges_list's */
#define MERGE_LIST_DIV 64u	      /* a step of an epoch's 1/64 or more lists ... */
#define MERGE_LIST_LEAST (1u << 20)   /* ... if it is this long */
#define MERGE_LIST_MOST (1u << 24)    /* positions listed at most (64 MiB) */
/* ... and only where the rest of the count is a quarter of the samples or
 * more: listing passes over every sample, the tables over the positions
 * counted, each at four times the cost (bert_v100's 156.8M samples: 15 ns
 * a sample listed, about 60 ns a position counted) */
#define MERGE_LIST_REST 4u
#define MERGE_LIST_BLOCK 256u

int ts_vpipe_merges_new(struct ts_vpipe *v, uint64_t epoch, uint64_t window, uint64_t mark,
			uint64_t end, struct ts_vpipe_merges **out)
{
	*out = NULL;
	window = TS_MAX(window, 1);
	if (window > (1u << 22))
		return -E2BIG;
	struct ts_vpipe_merges *m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	*m = (struct ts_vpipe_merges){ .epoch = epoch, .window = window, .mark = mark,
				       .end = TS_MIN(end, ts_sched_samples_per_epoch(v->sched)),
				       .split = MERGE_SPLIT,
				       .list = TS_MAX(ts_sched_samples_per_epoch(v->sched) / MERGE_LIST_DIV,
						      MERGE_LIST_LEAST) };
	/* two keys a read, the table at most half full */
	m->size = 64;
	while (m->size < 4 * window * TS_VIO_MAX)
		m->size *= 2;
	m->mask = m->size - 1;
	/* huge pages: a probe lands anywhere in the tables */
	if (!(m->tab = ts_malloc_huge(2 * m->size * sizeof(*m->tab)))) {
		free(m);
		return -ENOMEM;
	}
	memset(m->tab + m->size, 0, m->size * sizeof(*m->tab)); /* the first block's old */
	*out = m;
	return 0;
}

void ts_vpipe_merges_set_split(struct ts_vpipe_merges *m, uint64_t least)
{
	m->split = least;
}

void ts_vpipe_merges_set_list(struct ts_vpipe_merges *m, uint64_t least)
{
	m->list = least;
}

void ts_vpipe_merges_set_plain(struct ts_vpipe_merges *m, bool plain)
{
	m->plain = plain;
}

bool ts_vpipe_merges_listed(const struct ts_vpipe_merges *m)
{
	return m->listed;
}

/* One thread's part of a step: positions [from, end) of @order, those
 * from @count on counted into *@below and *@all (those before only
 * entered: the tables then hold what they hold had they been counted),
 * on the two tables @tab, which hold the state at @from. */
struct merge_part {
	struct ts_vpipe *v;
	const struct ts_sched_order *order;
	uint64_t *tab, size, window, mark;
	uint64_t from, count, end;
	uint64_t below, all;
};

static void merges_part(struct merge_part *mp)
{
	struct ts_vpipe *v = mp->v;
	const struct ts_sched_order *order = mp->order;
	uint64_t *tab = mp->tab, size = mp->size, mask = size - 1, window = mp->window;
	uint64_t from = mp->from, end = mp->end, count = mp->count, mark = mp->mark;
	uint64_t all = 0, below = 0;
	/* Samples are planned MERGE_AHEAD positions before they are counted
	 * and the slots their keys hash to fetched meanwhile (in both
	 * tables): the tables are far larger than a cache, and a probe's miss
	 * is most of a position's cost. What is counted is as without it. */
	struct ts_vsample ring[2 * MERGE_AHEAD]; /* position c's slot is not p's */
	/* each read's span_key of where it starts and of where it ends, both
	 * with start false (with start true a key differs in bit 1 only:
	 * span_key), hashed once, as the read is planned (reads only: the
	 * rest are never counted) */
	uint64_t keys[2 * MERGE_AHEAD][TS_VIO_MAX][2];
	/* the ids of positions [p, filled), looked up MERGE_IDS at a time:
	 * a computed order's lookups then overlap, where one at a time each
	 * waited on its tables (the count's own fetches evict them) */
	uint32_t ids[2 * MERGE_IDS];
	uint64_t filled = from;
	/* p's and c's blocks' parities and places in them, kept as they
	 * move on (a 64-bit division each was a tenth of the count) */
	uint64_t pb = from / window % 2, pr = from % window, cb = pb, cr = pr;
	for (uint64_t p = from; p < end + MERGE_AHEAD; p++) {
		uint64_t q = p + 2 * MERGE_AHEAD;
		while (q >= filled && filled < end) {
			/* [p, q] kept: q - p < MERGE_IDS; a block, not across the ring's end */
			uint64_t to = TS_MIN(filled + MERGE_IDS - filled % MERGE_IDS, end);
			ts_sched_order_fill(order, filled, to - filled, &ids[filled % (2 * MERGE_IDS)]);
			filled = to;
		}
		if (q < end && v->ops->plan_prefetch)
			v->ops->plan_prefetch(&v->vs, v->first + ids[q % (2 * MERGE_IDS)]);
		if (p < end) { /* plan p, fetch what its probes will touch */
			struct ts_vsample *a = &ring[p % (2 * MERGE_AHEAD)];
			uint64_t(*ka)[2] = keys[p % (2 * MERGE_AHEAD)];
			v->ops->plan_sample(&v->vs, v->first + ids[p % (2 * MERGE_IDS)], a);
			const uint64_t *pc = tab + pb * size;
			for (unsigned i = 0; i < a->n; i++) {
				const struct ts_vio *io = &a->io[i];
				if (io->op != TS_VIO_READ)
					continue; /* never counted: no keys */
				uint64_t k0 = ka[i][0] = span_key(io->file, io->off, false);
				uint64_t k1 = ka[i][1] = span_key(io->file, io->off + io->len, false);
				__builtin_prefetch(&tab[k0 & mask]);
				__builtin_prefetch(&tab[size + (k0 & mask)]);
				__builtin_prefetch(&tab[(k1 ^ 2) & mask]);
				__builtin_prefetch(&tab[size + ((k1 ^ 2) & mask)]);
				__builtin_prefetch(&pc[k1 & mask], 1);
				__builtin_prefetch(&pc[(k0 ^ 2) & mask], 1);
			}
		}
		if (++pr == window)
			pr = 0, pb ^= 1;
		if (p < from + MERGE_AHEAD)
			continue;
		uint64_t c = p - MERGE_AHEAD; /* the position counted */
		uint64_t *cur = tab + cb * size, *old = tab + (cb ? 0 : size);
		if (cr == 0)
			memset(cur, 0, size * sizeof(*cur));
		if (++cr == window)
			cr = 0, cb ^= 1;
		const struct ts_vsample *s = &ring[c % (2 * MERGE_AHEAD)];
		const uint64_t(*ks)[2] = keys[c % (2 * MERGE_AHEAD)];
		uint64_t meets = 0;
		for (unsigned i = 0; i < s->n; i++) {
			if (s->io[i].op != TS_VIO_READ)
				continue;
			/* it joins one that ends where it starts, or one that
			 * starts where it ends joins it */
			meets += span_in(cur, old, mask, ks[i][0]);
			meets += span_in(cur, old, mask, ks[i][1] ^ 2);
		}
		for (unsigned i = 0; i < s->n; i++) {
			if (s->io[i].op != TS_VIO_READ)
				continue;
			span_put(cur, mask, ks[i][1]);
			span_put(cur, mask, ks[i][0] ^ 2);
		}
		meets = c < count ? 0 : meets;
		all += meets;
		below += c < mark ? meets : 0;
	}
	mp->all = all;
	mp->below = below;
}

static void *merges_part_thread(void *arg)
{
	merges_part(arg);
	return NULL;
}

/* ---- The count listed, the samples in their stored order ----
 *
 * Where every sample is one read of a byte or more and the reads lie as
 * the dataset stores them, file after file (in the loader's range, each
 * sample's read starts no sooner than the one's before it ends, or in a
 * file numbered higher), a read meets no read but those of the samples
 * stored just before and just after it: a read that ends where it starts
 * lies before it in its file, and of those only the one just before can
 * end there (the one before that ends no later than where that one
 * starts, before its end); the same after it. So the count at position
 * c, of the sample s read there, is [s - 1 ends where s starts and sits
 * among the positions c's lookups see] + [the same for s + 1], those
 * positions being [lo(c), c), lo(c) the start of the block before c's
 * (the tables' reach, merges_part); summed, the pairs (s, s + 1) that
 * meet, each at the later of its two positions, where the earlier is at
 * lo of it or past. The positions are the order's inverse
 * (ts_rng_perm_pos), taken in the stored order with the source's plans:
 * no table and no lookup at random, where the tables' count spent most
 * of its time waiting on its probes. Both counts are the definition's
 * (tests/pipeline/test_twin.c's merges_brute); the tables' may name more
 * only where two reads' span_key of 62 bits collide.
 *
 * Listed once for all positions from where the count stands to its end,
 * ascending: each ts_vpipe_merges_more then takes those below its end,
 * the same sums the tables give over the same steps. Listing costs a
 * whole pass over the samples, whatever is left to count, so a step
 * lists only where it is long (ts_vpipe_merges_set_list) and what is
 * left to count is (MERGE_LIST_REST). */

/* One thread's part of a listing: the pairs (s, s + 1), s in [s0, s1) */
struct list_part {
	const struct ts_vpipe *v;
	const struct ts_rng_perm *perm;
	uint64_t s0, s1, window, from, end;
	uint64_t per; /* the source's plan_runs: records of one size, per a file (0: none) */
	uint32_t *at;
	uint64_t nat, cap;
	bool bad; /* the samples do not lie as the listing needs, or no memory */
};

static bool list_put(struct list_part *lp, uint64_t c)
{
	if (lp->nat == lp->cap) {
		uint64_t cap = lp->cap ? 2 * lp->cap : 4096;
		uint32_t *at = cap <= MERGE_LIST_MOST ? realloc(lp->at, cap * sizeof(*at)) : NULL;
		if (!at)
			return false;
		lp->at = at;
		lp->cap = cap;
	}
	lp->at[lp->nat++] = (uint32_t)c;
	return true;
}

/* Samples [@b, @b + @len)'s reads into @rd: the source's plan_reads,
 * else from their plans; false where one is not a sample's one read. */
static bool list_reads(const struct ts_vpipe *v, uint64_t b, unsigned len, struct ts_vread *rd)
{
	if (v->ops->plan_reads && v->ops->plan_reads(&v->vs, v->first + b, len, rd))
		return true;
	struct ts_vsample smp;
	for (unsigned i = 0; i < len; i++) {
		v->ops->plan_sample(&v->vs, v->first + b + i, &smp);
		bool one = false;
		for (unsigned j = 0; j < smp.n; j++) {
			if (smp.io[j].op != TS_VIO_READ)
				continue;
			if (one) /* two reads: not one a sample */
				return false;
			one = true;
			rd[i] = (struct ts_vread){ smp.io[j].file, smp.io[j].off, smp.io[j].len };
		}
		if (!one)
			return false;
	}
	return true;
}

/* list_part where the source's reads follow plan_runs's rule: sample s
 * and s + 1 meet exactly where they share a file (read s ends at (k + 1)
 * x len, where read s + 1 of the same file starts), and the rule's reads
 * never break the stored order (a read of len >= 1 at or past the one
 * before's end in its file, or in a file numbered higher), so the
 * listing's tests on the reads answer alike without listing them: the
 * same positions, in the same order. */
static void list_part_runs(struct list_part *lp)
{
	const struct ts_vpipe *v = lp->v;
	const uint64_t w2 = 2 * lp->window, w = lp->window, from = lp->from, end = lp->end;
	uint64_t k = (v->first + lp->s0) % lp->per; /* sample s's place in its file */
	uint32_t pos[MERGE_LIST_BLOCK], last = 0;
	for (uint64_t b = lp->s0; b <= lp->s1; b += MERGE_LIST_BLOCK) {
		unsigned len = (unsigned)TS_MIN(MERGE_LIST_BLOCK, lp->s1 + 1 - b);
		ts_rng_perm_pos_fill(lp->perm, b, len, pos);
		for (unsigned i = 0; i < len; i++) {
			uint32_t p = pos[i];
			/* s - 1 in s's file (not s's first record) met s */
			if (k && b + i > lp->s0) {
				uint64_t c = TS_MAX(last, p), o = TS_MIN(last, p);
				if (c - o < w2 && c / w - o / w <= 1 && c >= from && c < end &&
				    !list_put(lp, c)) {
					lp->bad = true;
					return;
				}
			}
			last = p;
			if (++k == lp->per)
				k = 0;
		}
	}
}

static void list_part(struct list_part *lp)
{
	if (lp->per) {
		list_part_runs(lp);
		return;
	}
	const struct ts_vpipe *v = lp->v;
	uint64_t w = lp->window, file = 0, last_end = 0, last_pos = 0;
	uint32_t pos[MERGE_LIST_BLOCK];
	struct ts_vread rds[MERGE_LIST_BLOCK];
	for (uint64_t b = lp->s0; b <= lp->s1; b += MERGE_LIST_BLOCK) {
		unsigned len = (unsigned)TS_MIN(MERGE_LIST_BLOCK, lp->s1 + 1 - b);
		if (!list_reads(v, b, len, rds)) {
			lp->bad = true;
			return;
		}
		ts_rng_perm_pos_fill(lp->perm, b, len, pos);
		for (unsigned i = 0; i < len; i++) {
			const struct ts_vread *rd = &rds[i];
			if (!rd->len) {
				lp->bad = true;
				return;
			}
			if (b + i > lp->s0) {
				if (rd->file < file || (rd->file == file && rd->off < last_end)) {
					lp->bad = true; /* not as stored */
					return;
				}
				if (rd->file == file && rd->off == last_end) { /* they meet */
					/* o in c's block or the one before: c - o < 2w
					 * first (most pairs lie farther apart), then
					 * the blocks (a division) */
					uint64_t c = TS_MAX(last_pos, pos[i]), o = TS_MIN(last_pos, pos[i]);
					if (c - o < 2 * w && c / w - o / w <= 1 && c >= lp->from &&
					    c < lp->end && !list_put(lp, c)) {
						lp->bad = true;
						return;
					}
				}
			}
			file = rd->file;
			last_end = rd->off + rd->len;
			last_pos = pos[i];
		}
	}
}

static void *list_part_thread(void *arg)
{
	list_part(arg);
	return NULL;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

/* @m's positions [@from, end) listed (m->at), over the permutation
 * @perm; the two halves of the samples by two threads where the count
 * would split (m->split). -EINVAL where the samples do not lie as the
 * listing needs, -ENOMEM. */
static int merges_list(struct ts_vpipe *v, struct ts_vpipe_merges *m, const struct ts_rng_perm *perm,
		       uint64_t from)
{
	uint64_t n = perm->n;
	if (n < 2 || n - 1 > UINT32_MAX)
		return -EINVAL;
	uint64_t per = 0, len = 0;
	if (!v->ops->plan_runs || !v->ops->plan_runs(&v->vs, &per, &len) || !per || !len ||
	    m->plain)
		per = 0;
	struct list_part a = { .v = v, .perm = perm, .s0 = 0, .s1 = n - 1, .window = m->window,
			       .from = from, .end = m->end, .per = per };
	struct list_part b = a;
	pthread_t th;
	bool two = n >= m->split && n >= 4;
	if (two) {
		a.s1 = b.s0 = n / 2;
		two = pthread_create(&th, NULL, list_part_thread, &b) == 0;
		if (!two)
			a.s1 = n - 1;
	}
	list_part(&a);
	if (two)
		pthread_join(th, NULL);
	int rc = 0;
	if (a.bad || (two && b.bad)) {
		rc = -EINVAL;
	} else if (two && b.nat) {
		uint32_t *at = a.nat + b.nat <= MERGE_LIST_MOST
				       ? realloc(a.at, (a.nat + b.nat) * sizeof(*at)) : NULL;
		if (at) {
			memcpy(at + a.nat, b.at, b.nat * sizeof(*at));
			a.at = at;
			a.nat += b.nat;
		} else {
			rc = -ENOMEM;
		}
	}
	free(b.at);
	if (rc) {
		free(a.at);
		return rc;
	}
	if (a.nat) /* none may leave a.at NULL, which qsort may not take */
		qsort(a.at, a.nat, sizeof(*a.at), cmp_u32);
	m->at = a.at;
	m->nat = a.nat;
	m->next = 0;
	return 0;
}

int ts_vpipe_merges_more(struct ts_vpipe *v, struct ts_vpipe_merges *m, uint64_t upto)
{
	const struct ts_sched_order *order = ts_sched_order(v->sched, m->epoch);
	if (!order)
		return -EAGAIN;
	uint64_t end = TS_MIN(upto, m->end), from = m->done, window = m->window;
	if (end <= from)
		return 0;
	if (!m->listed && !m->list_failed && end - from >= m->list && !order->v && order->perm.n &&
	    m->end - from >= order->perm.n / MERGE_LIST_REST) {
		/* counted as the tables count where it lists, else by them */
		m->listed = merges_list(v, m, &order->perm, from) == 0;
		m->list_failed = !m->listed;
	}
	if (m->listed) {
		for (; m->next < m->nat && m->at[m->next] < end; m->next++) {
			m->all++;
			m->below += m->at[m->next] < m->mark;
		}
		m->done = end;
		return 0;
	}
	struct merge_part a = { .v = v, .order = order, .tab = m->tab, .size = m->size,
				.window = window, .mark = m->mark, .from = from, .count = from,
				.end = end };
	/* the second thread's part: from a block's start near the middle */
	uint64_t mid = (from + (end - from) / 2) / window * window;
	bool two = end - from >= m->split && mid > from && mid < end && end - from >= 4 * window;
	if (two && !m->tab2 && !m->split_failed) {
		m->tab2 = ts_malloc_huge(2 * m->size * sizeof(*m->tab2));
		m->split_failed = !m->tab2;
	}
	pthread_t th;
	struct merge_part b = a;
	b.tab = m->tab2;
	b.from = mid - window; /* its block before, entered only */
	b.count = mid;
	if (two && m->tab2) {
		/* the block before's old table is never looked at by a
		 * counted position, but is read: zeroed, not left undefined */
		memset(b.tab + (b.from / window % 2 ? 0 : m->size), 0, m->size * sizeof(*b.tab));
		a.end = mid;
		two = pthread_create(&th, NULL, merges_part_thread, &b) == 0;
		if (!two)
			a.end = end;
	} else {
		two = false;
	}
	merges_part(&a);
	if (two) {
		pthread_join(th, NULL);
		/* the tables as at end are the second thread's */
		uint64_t *t = m->tab;
		m->tab = m->tab2;
		m->tab2 = t;
	}
	m->all += a.all + (two ? b.all : 0);
	m->below += a.below + (two ? b.below : 0);
	m->done = end;
	return 0;
}

uint64_t ts_vpipe_merges_done(const struct ts_vpipe_merges *m, uint64_t *below, uint64_t *all,
			      uint64_t *left)
{
	*below = m->below;
	*all = m->all;
	*left = m->end - m->done;
	return m->done;
}

void ts_vpipe_merges_free(struct ts_vpipe_merges *m)
{
	if (!m)
		return;
	free(m->tab);
	free(m->tab2);
	free(m->at);
	free(m);
}

int ts_vpipe_merge_count(struct ts_vpipe *v, uint64_t epoch, uint64_t window, uint64_t mark,
			 uint64_t end, uint64_t *below, uint64_t *all)
{
	*below = *all = 0;
	if (!ts_sched_order(v->sched, epoch))
		return -EAGAIN;
	struct ts_vpipe_merges *m;
	int rc = ts_vpipe_merges_new(v, epoch, window, mark, end, &m);
	uint64_t left;
	if (!rc && !(rc = ts_vpipe_merges_more(v, m, end)))
		ts_vpipe_merges_done(m, below, all, &left);
	ts_vpipe_merges_free(m);
	return rc;
}

struct ts_sched *ts_vpipe_sched(struct ts_vpipe *v)
{
	return v->sched;
}

void ts_vpipe_plan(struct ts_vpipe *v, uint64_t id, struct ts_vsample *out)
{
	v->ops->plan_sample(&v->vs, v->first + id, out);
}

uint64_t ts_vpipe_batches_per_epoch(const struct ts_vpipe *v)
{
	return ts_sched_batches_per_epoch(v->sched);
}

uint64_t ts_vpipe_start_ns(const struct ts_vpipe *v)
{
	return v->start;
}

static void warm_sample(struct ts_vpipe *v, const struct ts_vsample *s, bool dirty)
{
	for (unsigned i = 0; i < s->n; i++)
		if (s->io[i].op == TS_VIO_READ)
			v->disk.warm(v->disk.ctx, &s->io[i], dirty);
}

void ts_vpipe_warm(struct ts_vpipe *v, bool dirty)
{
	if (!v->disk.warm)
		return;
	warm_sample(v, &v->vs.at_open, dirty);
	for (uint64_t i = 0; i < v->vs.count; i++) {
		struct ts_vsample s;
		v->ops->plan_sample(&v->vs, i, &s);
		warm_sample(v, &s, dirty);
	}
}

static size_t ev_len(const struct ts_vpipe *v)
{
	return ts_evq_len(&v->q[0]) + ts_evq_len(&v->q[1]);
}

/* The earliest event of the two queues (ties by push order). */
static struct ts_heap_item ev_pop(struct ts_vpipe *v)
{
	if (!ts_evq_len(&v->q[1]))
		return ts_evq_pop(&v->q[0]);
	if (!ts_evq_len(&v->q[0]))
		return ts_evq_pop(&v->q[1]);
	const struct ts_heap_item *a = ts_evq_top(&v->q[0]), *b = ts_evq_top(&v->q[1]);
	return ts_evq_pop(&v->q[a->key < b->key || (a->key == b->key && a->tie < b->tie) ? 0 : 1]);
}

static int step(struct ts_vpipe *v)
{
	struct ts_heap_item it = ev_pop(v);
	struct ev *e = it.p;
	v->now = it.key;
	switch (e->kind) {
	case EV_READ: ts_sched_read_done(v->sched, &e->pos, e->err); break;
	case EV_DECODE: ts_sched_decode_done(v->sched, &e->pos, e->err); break;
	case EV_RELEASE: ts_sched_release(v->sched, e->pos.seq); break;
	case EV_OPEN: ts_sched_open_epoch(v->sched); break;
	}
	if (v->tl && e->kind != EV_RELEASE && e->kind != EV_OPEN && ts_sched_complete(v->sched, e->pos.seq))
		ts_tl_batch_ready(v->tl, e->pos.seq, v->now);
	e->next_free = v->free_ev;
	v->free_ev = e;
	return pump(v);
}

int ts_vpipe_next_batch(struct ts_vpipe *v, struct ts_vbatch *b)
{
	struct ts_sched_batch sb;
	int rc;
	if (!v->started) {
		v->started = true;
		if ((rc = pump(v)))
			return rc;
	}
	while (!(rc = ts_sched_take(v->sched, &sb))) {
		if (!ev_len(v))
			return -EDEADLK; /* nothing in flight and nothing ready: a bug */
		if ((rc = step(v)))
			return rc;
	}
	if (rc < 0)
		return 0;
	*b = (struct ts_vbatch){ .seq = sb.seq, .epoch = sb.epoch, .index = sb.index,
				 .n = sb.size - sb.failed, .ready_ns = v->now };
	v->st.batches++;
	v->st.samples += b->n;
	if (v->tl)
		ts_tl_batch_take(v->tl, b->seq, b->n);
	return 1;
}

int ts_vpipe_release(struct ts_vpipe *v, uint64_t seq, uint64_t t_ns)
{
	struct ts_sched_pos pos = { .seq = seq };
	if (v->tl)
		ts_tl_batch_release(v->tl, seq, TS_MAX(t_ns, v->now));
	return ev_push(v, TS_MAX(t_ns, v->now), EV_RELEASE, &pos, 0);
}

int ts_vpipe_open_epoch(struct ts_vpipe *v, uint64_t t_ns)
{
	struct ts_sched_pos pos = { 0 };
	return ev_push(v, TS_MAX(t_ns, v->now), EV_OPEN, &pos, 0);
}

void ts_vpipe_stats(const struct ts_vpipe *v, struct ts_vpipe_stats *st)
{
	*st = v->st;
}

void ts_vpipe_free(struct ts_vpipe *v)
{
	if (!v)
		return;
	if (v->vs_open)
		v->ops->plan_close(&v->vs);
	ts_sched_free(v->sched);
	free(v->cost);
	free(v->planned);
	ts_evq_free(&v->q[0]);
	ts_evq_free(&v->q[1]);
	for (size_t i = 0; i < v->nchunks; i++)
		free(v->chunks[i]);
	free(v->chunks);
	free(v);
}
