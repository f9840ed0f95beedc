/*
 * rate.c — the caps of a tier: IOPS and bandwidth limits (combined and per
 * direction), the I/O accounting unit, and burst credit buckets.
 *
 * Rate limits: virtual scheduling (the GCRA of ATM traffic shaping). Each
 * limit keeps a theoretical arrival time `tat`: a request is admitted at
 * s = max(now, tat) and moves tat to s + cost/rate. Over any busy period
 * the admitted rate is exactly the cap, in any clock, with no tick and no
 * rounding drift (tat is kept in double nanoseconds and only the admission
 * time is rounded). A tolerance of TOLERANCE_NS lets requests that arrive
 * in a clump pass together (admit at max(now, tat - tolerance)), as a
 * hypervisor throttle that hands out tokens on a timer does; it is MODELED,
 * not published: it moves no long-run rate, lets at most 10 ms worth of the
 * cap through early after an idle spell (0.1% of a 10 s measurement), and
 * keeps a disk below its cap from adding waits to requests whose arrivals
 * happen to bunch up.
 *
 * Windows (the profile's cap_window_ns above 0): some disks release an
 * IOPS cap in windows rather than evenly (measured on Alibaba's disks:
 * 4 KiB writes at QD128 complete in steps of the window, validation cases
 * alicloud-*-randwrite-4k-qd128). Each IOPS limit then lets through
 * cap x window I/Os from the start of each window (windows are whole
 * multiples of the window from virtual time 0, as a throttle's timer
 * ticks) and holds the rest to the next window with budget, in arrival
 * order; a request costing more than is left is let through and its excess
 * is charged to the windows after it. Budget a window leaves unused is
 * lost. Over any busy period the rate is the cap, as with even spacing,
 * but requests that come early in a window pass at once and the rest wait
 * up to a whole window: the two modes and steps the disks show. Bandwidth
 * caps stay even (no run shows how a disk releases bytes), and so does a
 * tier with a burst bucket (none has a window). No tolerance applies to a
 * windowed limit: the window is its clumping.
 *
 * Transfer time: a request cannot complete before its bytes have moved at
 * the bandwidth cap, so completion = max(device completion, s + len/bw).
 * IOPS caps only delay admission: a lone 4 KiB read on an idle disk sees
 * the base latency, as a vendor's QD1 figure does.
 *
 * Burst buckets (AWS gp2 I/O credits, st1/sc1 throughput credits) are a
 * second, sustained-rate token bucket next to the peak-rate limit: credits
 * accrue at the baseline rate up to the bucket size; a request needs its
 * cost in credits, waiting (cost - level)/baseline when the bucket is short.
 * While credits last the peak limit (burst rate) binds; once they are gone
 * requests wait for credits, i.e. run at the baseline. This reproduces the
 * doc's burst duration = balance / (burst - baseline) and refill time =
 * size / baseline exactly.
 *
 * I/O accounting (AWS EBS, doc "I/O characteristics and monitoring"): one
 * I/O per io_unit (256 KiB on SSD volumes, 1 MiB on HDD volumes); a larger
 * request counts ceil(len/io_unit) I/Os; physically sequential small I/Os
 * are merged up to io_unit (merge_sequential), tracked over a few recent
 * streams; st1/sc1 charge every I/O as a whole unit (charge_full_unit).
 * A request merges into the I/O of the one before it only while that one
 * is still being served when it arrives (its completion not before the
 * arrival; back to back counts): an I/O that has completed was charged,
 * and nothing can join it. Random requests that happen to start where an
 * earlier, finished one ended are I/Os of their own.
 *
 * An instance's EBS limits (ts_tier_ebs_new) are two more of these layers
 * above the volume's, one for its IOPS and one for its throughput, each
 * with its own bucket as AWS keeps two (the EBSIOBalance% and
 * EBSByteBalance% metrics): the instance admits a request, then the volume.
 * A request they hold (admitted later, or its bytes moved later, than
 * without them) and the volume below does not hold longer is bound by
 * the instance (TS_TIER_BOUND_INSTANCE), not by an IOPS, bandwidth or burst
 * limit of the volume.
 *
 * Volumes attached to one instance (a RAID array's) share its limits
 * (struct ts_tier_instance): one IOPS and one throughput layer, which each
 * volume's model reaches through a layer of its own (shared_ops) that
 * admits under the instance's lock and then goes down its own volume's
 * stack. The instance counts I/Os per volume (its merge streams are keyed
 * by the volume too: two volumes' offsets never merge).
 */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "tier/tier_layer.h"

enum { LIM_IOPS, LIM_RIOPS, LIM_WIOPS, LIM_BW, LIM_RBW, LIM_WBW, LIM_NR };

#define TOLERANCE_NS TS_TIER_RATE_TOLERANCE_NS
#define NSETS 64 /* merge streams: 64 sets x 8 ways, keyed by (file, next offset) */
#define NWAYS 8

/* A set of NWAYS streams, field by field: the search compares the
 * offsets a set expects next (one cache line) and reads a way's other
 * fields only where its offset matches; the LRU pick reads the stamps
 * (another). Per way w: */
struct sset {
	uint64_t end[NWAYS];   /* next sequential offset */
	uint64_t used[NWAYS];  /* LRU stamp; 0 = free */
	uint64_t file[NWAYS];
	uint64_t until[NWAYS]; /* its last request's completion (UINT64_MAX while below) */
	uint64_t fill[NWAYS];  /* bytes already in the current io_unit */
};

/* A stream: way @w of set @set (NULL: none). */
struct stream {
	struct sset *set;
	unsigned w;
};

/* The stream a layer's last request left, whose completion the stack's
 * answer sets (complete). */
struct pend {
	struct stream s;
	uint64_t stamp;
};

struct rate {
	struct ts_tier_layer l;
	struct pend pend;
	struct ts_tier_limits lim;
	bool merge, full_unit;
	unsigned unit_shift; /* log2 of io_unit when a power of two above 1, else 0 */
	bool counts;	    /* adds the request's I/Os and bytes to done (the volume's layer) */
	bool instance;	    /* an instance's EBS limit: what it holds is instance-bound */
	double tat[LIM_NR]; /* ns */
	double level;	    /* burst credits at level_t */
	double level_t;	    /* ns */
	/* Without a burst bucket the rates are fixed: per direction (0 write,
	 * 1 read) the limits that apply (rate > 0), and each one's last cost
	 * and its cost / rate x 1e9 (most requests repeat the last size; with
	 * a burst bucket the rate, which the bucket's kind picks, is kept
	 * beside them). */
	uint8_t act[2][LIM_NR], nact[2];
	double rate[LIM_NR], memo_cost[LIM_NR], memo_dt[LIM_NR];
	double memo_rate[LIM_NR]; /* with a burst bucket: the rate memo_dt was taken at */
	/* Windows (win > 0, IOPS limits only): per limit the start of the
	 * window its budget is being spent in, the I/Os charged from that
	 * window on (above the budget: charged to the windows after), and
	 * the budget, rate x win / 1e9. */
	double win, wstart[LIM_NR], wused[LIM_NR], budget[LIM_NR];
	struct sset st[NSETS];
	uint64_t tick;
	_Atomic uint64_t level_pub; /* bits of a double: credits at the last request */
	_Atomic uint64_t size_pub;  /* bits of a double: bucket size */
	_Atomic int kind_pub;	    /* enum ts_tier_burst_kind */
};

static void pub_double(_Atomic uint64_t *dst, double v)
{
	uint64_t bits;
	memcpy(&bits, &v, sizeof(bits));
	atomic_store_explicit(dst, bits, memory_order_relaxed);
}

static double load_double(_Atomic uint64_t *src)
{
	uint64_t bits = atomic_load_explicit(src, memory_order_relaxed);
	double v;
	memcpy(&v, &bits, sizeof(v));
	return v;
}

static struct sset *stream_set(struct rate *r, uint64_t file, uint64_t off)
{
	uint64_t x = (file * 0x9e3779b97f4a7c15ULL) ^ (off * 0xbf58476d1ce4e5b9ULL);
	return &r->st[x >> 58]; /* 6 bits: NSETS */
}

/* I/Os this request, arriving at the model at @now, costs under the
 * accounting unit.
 * Streams are found by the offset they expect next (one set of NWAYS to
 * search), so a request costs a few compares however many streams run; a
 * stream pushed out of a full set loses its merge, as a small merge window
 * would. The stream the request leaves is *@ns with LRU stamp *@stamp
 * (NULL without merging), for its completion to be set once known. */
static uint64_t account(struct rate *r, const struct ts_tier_req *req, uint64_t file, uint64_t now,
			struct stream *ns, uint64_t *stamp)
{
	uint64_t unit = r->lim.io_unit, len = req->len;
	ns->set = NULL;
	if (!unit)
		return 1;
	/* a power-of-two unit (every shipped one) divides by a shift */
	unsigned sh = r->unit_shift;
	if (!r->merge)
		return sh ? (len + unit - 1) >> sh : (len + unit - 1) / unit;
	struct sset *set = stream_set(r, file, req->off);
	uint64_t rest = len, fill = 0;
	for (int w = 0; w < NWAYS; w++) {
		if (set->end[w] == req->off && set->used[w] && set->file[w] == file &&
		    set->until[w] >= now) {
			uint64_t room = unit - set->fill[w];
			if (rest <= room) {
				fill = set->fill[w] + rest;
				rest = 0;
			} else {
				rest -= room;
			}
			set->used[w] = 0;
			break;
		}
	}
	uint64_t ios, part;
	if (sh) {
		ios = (rest + unit - 1) >> sh;
		part = rest & (unit - 1);
	} else {
		ios = (rest + unit - 1) / unit;
		part = rest % unit;
	}
	if (rest)
		fill = part ? part : unit;
	set = stream_set(r, file, req->off + len);
	unsigned n = 0;
	for (unsigned w = 1; w < NWAYS && set->used[n]; w++)
		if (set->used[w] < set->used[n])
			n = w;
	set->used[n] = ++r->tick;
	set->file[n] = file;
	set->end[n] = req->off + len;
	set->fill[n] = fill;
	set->until[n] = UINT64_MAX;
	*ns = (struct stream){ set, n };
	*stamp = set->used[n];
	return ios;
}

/* Credits in the bucket at @t (>= level_t). */
static double level_at(const struct rate *r, double t)
{
	double v = r->level + r->lim.bucket_refill * (t - r->level_t) / 1e9;
	return v < r->lim.bucket_size ? v : r->lim.bucket_size;
}

/* The limits that apply without a bucket: rate_submit's rate[] of a read
 * (@rd) or a write, those above 0, in index order. */
static void set_active(struct rate *r)
{
	const struct ts_tier_limits *m = &r->lim;
	r->unit_shift = 0;
	if (m->io_unit > 1 && !(m->io_unit & (m->io_unit - 1)))
		r->unit_shift = (unsigned)__builtin_ctzll(m->io_unit);
	for (int rd = 0; rd < 2; rd++) {
		double rate[LIM_NR] = { m->iops, rd ? m->read_iops : 0, rd ? 0 : m->write_iops,
					m->bps,	 rd ? m->read_bps : 0,	rd ? 0 : m->write_bps };
		r->nact[rd] = 0;
		for (int i = 0; i < LIM_NR; i++)
			if (rate[i] > 0) {
				r->act[rd][r->nact[rd]++] = (uint8_t)i;
				r->rate[i] = rate[i];
			}
	}
	for (int i = 0; i < LIM_NR; i++) {
		r->memo_cost[i] = -1; /* a cost is never negative */
		r->budget[i] = r->win > 0 ? r->rate[i] * r->win / 1e9 : 0;
	}
}

/* The start of the window (a multiple of @w) that holds @s. */
static double window_of(double s, double w)
{
	double k = floor(s / w), ws = k * w;
	if (ws > s) /* the quotient rounded up over a boundary */
		ws = (k - 1) * w;
	else if (ws + w <= s)
		ws = (k + 1) * w;
	return ws;
}

/* Windowed limit @i: the I/Os charged to the window starting at @ws, or
 * later ones, from those charged from wstart on (@ws >= wstart: the
 * windows between spent a budget each, and what they left is lost). */
static double window_used(const struct rate *r, int i, double ws)
{
	if (ws <= r->wstart[i])
		return r->wused[i];
	double used = r->wused[i] - (ws - r->wstart[i]) / r->win * r->budget[i];
	return used > 0 ? used : 0;
}

/* Windowed limit @i: the earliest time from @s at which it has budget. */
static double window_admit(const struct rate *r, int i, double s)
{
	double ws = s < r->wstart[i] ? r->wstart[i] : window_of(s, r->win);
	double used = window_used(r, i, ws);
	if (used >= r->budget[i]) {
		/* every window up to the one the charges reach is spent */
		double n = floor(used / r->budget[i]);
		ws += n * r->win;
	}
	return ws > s ? ws : s;
}

/* Charges @cost I/Os of limit @i to the window holding @s (admitted by
 * window_admit, so not before wstart). */
static void window_charge(struct rate *r, int i, double s, double cost)
{
	double ws = window_of(s, r->win);
	if (ws < r->wstart[i])
		ws = r->wstart[i];
	r->wused[i] = window_used(r, i, ws) + cost;
	r->wstart[i] = ws;
}

/* The admission and transfer of rate_submit's loops, for a tier without a
 * burst bucket: the same operations on the same figures, over only the
 * limits that apply, a repeated cost's division memoized. Windowed IOPS
 * limits come after the even ones: they only move the admission later,
 * which every even limit allows, and a later windowed limit's move lands
 * in a window the earlier one has not charged yet (all share the window). */
static double admit_fixed(struct rate *r, bool rd, uint64_t ios, double bytes, double *s,
			  enum ts_tier_bound *bound)
{
	const uint8_t *a = r->act[rd];
	bool win = r->win > 0;
	for (unsigned k = 0; k < r->nact[rd]; k++) {
		int i = a[k];
		double cost = i < LIM_BW ? (double)ios : bytes;
		if (win && i < LIM_BW)
			continue;
		if (cost > 0 && r->tat[i] - TOLERANCE_NS > *s) {
			*s = r->tat[i] - TOLERANCE_NS;
			*bound = i < LIM_BW ? TS_TIER_BOUND_IOPS : TS_TIER_BOUND_BW;
		}
	}
	if (win && ios > 0) {
		for (unsigned k = 0; k < r->nact[rd]; k++) {
			int i = a[k];
			if (i >= LIM_BW)
				continue;
			double at = window_admit(r, i, *s);
			if (at > *s) {
				*s = at;
				*bound = TS_TIER_BOUND_IOPS;
			}
		}
		for (unsigned k = 0; k < r->nact[rd]; k++)
			if (a[k] < LIM_BW)
				window_charge(r, a[k], *s, (double)ios);
	}
	double xfer = 0;
	for (unsigned k = 0; k < r->nact[rd]; k++) {
		int i = a[k];
		double cost = i < LIM_BW ? (double)ios : bytes;
		if (!(cost > 0) || (win && i < LIM_BW))
			continue;
		if (cost != r->memo_cost[i]) {
			r->memo_cost[i] = cost;
			r->memo_dt[i] = cost / r->rate[i] * 1e9;
		}
		double dt = r->memo_dt[i];
		r->tat[i] = TS_MAX(r->tat[i], *s) + dt;
		if (i >= LIM_BW && dt > xfer)
			xfer = dt;
	}
	return xfer;
}

/* The same with a burst bucket: its kind picks the peak rates, and a
 * request short of credits waits for them. */
static double admit_burst(struct rate *r, bool rd, uint64_t ios, double bytes, double t, double *s,
			  enum ts_tier_bound *bound)
{
	const struct ts_tier_limits *m = &r->lim;
	/* Per-limit cost and rate; the burst kind picks the peak rates. */
	double rate[LIM_NR] = { m->iops, rd ? m->read_iops : 0, rd ? 0 : m->write_iops,
				m->bps,	 rd ? m->read_bps : 0,	rd ? 0 : m->write_bps };
	double cost[LIM_NR] = { (double)ios, (double)ios, (double)ios, bytes, bytes, bytes };
	double bcost = 0;
	if (m->burst == TS_TIER_BURST_IOPS) {
		rate[LIM_IOPS] = m->burst_iops;
		bcost = (double)ios;
		/* gp2 170-334 GiB: the higher throughput holds while credits last. */
		if (m->burst_bps > 0 && level_at(r, TS_MAX(t, r->level_t)) > 0)
			rate[LIM_BW] = m->burst_bps;
	} else if (m->burst == TS_TIER_BURST_BYTES) {
		rate[LIM_BW] = m->burst_bps;
		bcost = bytes;
	}

	for (int i = 0; i < LIM_NR; i++) {
		if (rate[i] > 0 && cost[i] > 0 && r->tat[i] - TOLERANCE_NS > *s) {
			*s = r->tat[i] - TOLERANCE_NS;
			*bound = i < LIM_BW ? TS_TIER_BOUND_IOPS : TS_TIER_BOUND_BW;
		}
	}
	if (bcost > 0) {
		double t0 = TS_MAX(*s, r->level_t);
		double have = level_at(r, t0);
		double need = TS_MIN(bcost, m->bucket_size);
		if (have < need) {
			double ok = t0 + (need - have) / m->bucket_refill * 1e9;
			if (ok > *s) {
				*s = ok;
				*bound = TS_TIER_BOUND_BURST;
			}
		}
		double t1 = TS_MAX(*s, r->level_t);
		r->level = level_at(r, t1) - bcost;
		r->level_t = t1;
		pub_double(&r->level_pub, r->level);
	}

	double xfer = 0;
	for (int i = 0; i < LIM_NR; i++) {
		if (rate[i] > 0 && cost[i] > 0) {
			if (cost[i] != r->memo_cost[i] || rate[i] != r->memo_rate[i]) {
				r->memo_cost[i] = cost[i];
				r->memo_rate[i] = rate[i];
				r->memo_dt[i] = cost[i] / rate[i] * 1e9;
			}
			double dt = r->memo_dt[i];
			r->tat[i] = TS_MAX(r->tat[i], *s) + dt;
			if (i >= LIM_BW && dt > xfer)
				xfer = dt;
		}
	}
	return xfer;
}

/* @req through @r's limits, then down @l's stack: @l is @r's own layer,
 * or a volume's layer onto an instance's shared @r, whose lock @mu (NULL:
 * none) is held while @r's state moves and @file keys its merge streams. */
/* (uint64_t)ceil(@x) without the call (the baseline ISA has no rounding
 * instruction): for 0 <= x < 2^63 the truncation is the floor, exact as
 * a double, one less than the ceiling when x has a fraction. */
static inline uint64_t ceil_ns(double x)
{
	if (!(x >= 0 && x < 0x1p63))
		return (uint64_t)ceil(x);
	uint64_t i = (uint64_t)x;
	return i + ((double)i < x);
}

static uint64_t rate_do(struct rate *r, pthread_mutex_t *mu, uint64_t file, struct pend *pd,
			struct ts_tier_layer *l, uint64_t now, const struct ts_tier_req *req,
			struct ts_tier_done *done)
{
	const struct ts_tier_limits *m = &r->lim;
	pd->s.set = NULL;
	if ((req->op != TS_TIER_READ && req->op != TS_TIER_WRITE) || !req->len)
		return ts_tier_layer_next(l, now, req, done);

	bool rd = req->op == TS_TIER_READ;
	double t = (double)now;
	double s = t, xfer;
	enum ts_tier_bound bound = TS_TIER_BOUND_LATENCY;
	struct stream ns;
	uint64_t stamp = 0;
	if (mu)
		pthread_mutex_lock(mu);
	uint64_t ios = account(r, req, file, req->arrival ? req->arrival : now, &ns, &stamp);
	double bytes = r->full_unit ? (double)(ios * m->io_unit) : (double)req->len;
	if (m->burst == TS_TIER_BURST_NONE)
		xfer = admit_fixed(r, rd, ios, bytes, &s, &bound);
	else
		xfer = admit_burst(r, rd, ios, bytes, t, &s, &bound);
	if (mu)
		pthread_mutex_unlock(mu);
	uint64_t adm = ceil_ns(s);
	if (bound != TS_TIER_BOUND_LATENCY)
		done->bound = r->instance ? TS_TIER_BOUND_INSTANCE : bound;
	if (r->counts) {
		done->dev_ios += ios;
		done->dev_reqs++;
		done->dev_bytes += req->len;
	}
	uint64_t end = ts_tier_layer_next(l, adm, req, done);
	uint64_t xend = ceil_ns(s + xfer);
	if (xend > end) {
		end = xend;
		if (r->instance)
			done->bound = TS_TIER_BOUND_INSTANCE;
		else if (done->bound == TS_TIER_BOUND_LATENCY ||
			 done->bound == TS_TIER_BOUND_INSTANCE) /* the volume's bytes took longer */
			done->bound = TS_TIER_BOUND_BW;
	}
	/* The stream's last request is served until this layer's stack
	 * answers it; a layer above that passed on the request itself (the
	 * one that reached the model) may answer later still (complete). A
	 * layer above can send several requests down in one submit (a page
	 * cache writing back runs of pages): each one's stream ends with its
	 * own I/O, never with the answer to what came from above. */
	if (ns.set) {
		if (mu)
			pthread_mutex_lock(mu);
		if (ns.set->used[ns.w] == stamp)
			ns.set->until[ns.w] = end;
		if (mu)
			pthread_mutex_unlock(mu);
		if (req->arrival)
			*pd = (struct pend){ ns, stamp };
	}
	return end;
}

/* The stack's answer to @pd's request (the one that reached the model),
 * @end: its stream's last request is in flight until then, if that is
 * later than the layers below answered. */
static void pend_done(struct pend *pd, pthread_mutex_t *mu, uint64_t end)
{
	struct sset *set = pd->s.set;
	unsigned w = pd->s.w;
	if (!set)
		return;
	if (mu)
		pthread_mutex_lock(mu);
	if (set->used[w] == pd->stamp && end > set->until[w])
		set->until[w] = end;
	if (mu)
		pthread_mutex_unlock(mu);
	pd->s.set = NULL;
}

static void rate_complete(struct ts_tier_layer *l, uint64_t end)
{
	struct rate *r = (struct rate *)l;
	pend_done(&r->pend, NULL, end);
}

static uint64_t rate_submit(struct ts_tier_layer *l, uint64_t now, const struct ts_tier_req *req,
			    struct ts_tier_done *done)
{
	struct rate *r = (struct rate *)l;
	return rate_do(r, NULL, req->file, &r->pend, l, now, req, done);
}

/* Each bandwidth limit a read is charged to (LIM_BW, LIM_RBW) keeps its
 * tat at least the bytes charged since t over its rate past t, admits no
 * read before tat - TOLERANCE_NS and completes none before its admission
 * plus its bytes over the rate: the slowest such limit bounds them all.
 * LIM_BW runs at the burst rate while credits last, so that rate counts. */
double ts_tier_read_cap(const struct ts_tier_limits *m)
{
	double bw = m->bps;
	if (m->burst == TS_TIER_BURST_BYTES)
		bw = m->burst_bps;
	else if (m->burst == TS_TIER_BURST_IOPS && m->burst_bps > 0)
		bw = bw > 0 ? TS_MAX(bw, m->burst_bps) : 0;
	if (m->read_bps > 0 && (!(bw > 0) || m->read_bps < bw))
		bw = m->read_bps;
	return bw > 0 ? bw : 0;
}

/* Each IOPS limit a read is charged to (LIM_IOPS, LIM_RIOPS) admits it no
 * sooner than tat - TOLERANCE_NS and moves tat on by its I/Os over the
 * rate (at least 1 / rate when account() gives it one I/O or more, which
 * it does unless sequential reads merge): the C-th such read since t is
 * admitted no sooner than t + (C - 1) / rate - TOLERANCE_NS, and the
 * slowest limit bounds them all. LIM_IOPS runs at the burst rate while
 * credits last, so that rate counts. */
double ts_tier_read_iops_cap(const struct ts_tier_profile *p, const struct ts_tier_limits *m)
{
	if ((p->merge_sequential && m->io_unit) || p->cap_window_ns > 0)
		return 0;
	double r = m->burst == TS_TIER_BURST_IOPS ? m->burst_iops : m->iops;
	if (m->read_iops > 0 && (!(r > 0) || m->read_iops < r))
		r = m->read_iops;
	return r > 0 ? r : 0;
}

/* The limits' backlog, ns (-INFINITY: none): the most of each limit's
 * tat - TOLERANCE_NS, which admit_fixed and admit_burst admit no request
 * after unless it arrives later, and with a burst bucket the time its
 * credits were last at zero as a fluid (level_t - level / refill), which a
 * request short of credits waits for plus its need over the refill. Each
 * only grows as requests come: a request arriving at a is admitted by
 * max(a, backlog) + min(cost, bucket) / refill, and moves the backlog to
 * at most max(a, backlog) + its largest cost over its limit's rate. */
double ts_tier_rate_backlog(const struct ts_tier_layer *l)
{
	const struct rate *r = (const struct rate *)l;
	double x = -INFINITY;
	for (int i = 0; i < LIM_NR; i++)
		if (r->tat[i] > 0)
			x = TS_MAX(x, r->tat[i] - TOLERANCE_NS);
	if (r->lim.burst != TS_TIER_BURST_NONE && r->lim.bucket_refill > 0)
		x = TS_MAX(x, r->level_t - r->level / r->lim.bucket_refill * 1e9);
	return x;
}

/* A read short of credits waits until the bucket holds its cost (at most
 * the bucket's size), so a read of at most bucket I/Os leaves the level at
 * 0 or more; the level starts at most full and grows at most refill a
 * second: C I/Os admitted since t leave the last admitted no sooner than
 * t + (C - bucket) / refill. The peak rate is ts_tier_read_iops_cap's
 * bound before merging. */
void ts_tier_read_ios(const struct ts_tier_profile *p, const struct ts_tier_limits *m,
		      struct ts_tier_read_ios *out)
{
	*out = (struct ts_tier_read_ios){ .merges = p->merge_sequential && m->io_unit };
	double r = m->burst == TS_TIER_BURST_IOPS ? m->burst_iops : m->iops;
	if (m->read_iops > 0 && (!(r > 0) || m->read_iops < r))
		r = m->read_iops;
	out->peak = r > 0 && !(p->cap_window_ns > 0) ? r : 0;
	if (m->burst == TS_TIER_BURST_IOPS && m->bucket_refill > 0 && m->bucket_size >= 1) {
		out->refill = m->bucket_refill;
		out->bucket = m->bucket_size;
	}
}

static void set_limits(struct rate *r, const struct ts_tier_profile *p,
		       const struct ts_tier_limits *lim)
{
	double frac = r->lim.bucket_size > 0 ? r->level / r->lim.bucket_size : 1;
	r->lim = *lim;
	r->merge = p->merge_sequential;
	r->full_unit = p->charge_full_unit;
	/* Windows for a tier without a burst bucket (the profile refuses
	 * both); a new window starts its budgets afresh from now on. */
	double win = lim->burst == TS_TIER_BURST_NONE && p->cap_window_ns > 0 ? p->cap_window_ns : 0;
	if (win != r->win)
		for (int i = 0; i < LIM_NR; i++)
			r->wstart[i] = r->wused[i] = 0;
	r->win = win;
	/* A new bucket keeps the fraction of credits the old one held
	 * (a fresh tier starts full, as AWS volumes do). */
	r->level = frac * lim->bucket_size;
	pub_double(&r->level_pub, r->level);
	pub_double(&r->size_pub, lim->bucket_size);
	atomic_store_explicit(&r->kind_pub, (int)lim->burst, memory_order_relaxed);
	set_active(r);
}

static void rate_reconfigure(struct ts_tier_layer *l, const struct ts_tier_profile *p,
			     const struct ts_tier_limits *lim)
{
	set_limits((struct rate *)l, p, lim);
}

static void rate_bucket_set(struct ts_tier_layer *l, uint64_t now, double fraction)
{
	struct rate *r = (struct rate *)l;
	if (r->lim.burst == TS_TIER_BURST_NONE)
		return;
	double f = fraction > 0 ? (fraction < 1 ? fraction : 1) : 0; /* NaN: 0 */
	r->level = f * r->lim.bucket_size;
	r->level_t = (double)now;
	pub_double(&r->level_pub, r->level);
}

static void rate_stats(struct ts_tier_layer *l, struct ts_tier_stats *out)
{
	struct rate *r = (struct rate *)l;
	int kind = atomic_load_explicit(&r->kind_pub, memory_order_relaxed);
	if (kind == TS_TIER_BURST_NONE)
		return;
	double v = load_double(&r->level_pub);
	out->has_bucket = true;
	out->bucket.kind = (enum ts_tier_burst_kind)kind;
	out->bucket.credits = v > 0 ? v : 0;
	out->bucket.size = load_double(&r->size_pub);
}

static void rate_free(struct ts_tier_layer *l)
{
	free(l);
}

static const struct ts_tier_layer_ops rate_ops = {
	.name = "rate",
	.submit = rate_submit,
	.complete = rate_complete,
	.reconfigure = rate_reconfigure,
	.bucket_set = rate_bucket_set,
	.stats = rate_stats,
	.free = rate_free,
};

struct ts_tier_layer *ts_tier_rate_new(const struct ts_tier_profile *p,
				       const struct ts_tier_limits *lim)
{
	struct rate *r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->l.ops = &rate_ops;
	r->counts = true;
	set_limits(r, p, lim);
	return &r->l;
}

/* The instance's limits stay when the volume changes: no reconfigure, no
 * bucket_set (that is the volume's bucket) and no stats (the stats' bucket
 * is the volume's). */
static const struct ts_tier_layer_ops ebs_ops = {
	.name = "ebs",
	.submit = rate_submit,
	.complete = rate_complete,
	.free = rate_free,
};

struct ts_tier_layer *ts_tier_ebs_new(const struct ts_tier_ebs *e, bool bytes,
				      const struct ts_tier_profile *p,
				      const struct ts_tier_limits *vol)
{
	struct rate *r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->l.ops = &ebs_ops;
	r->instance = true;
	double base = bytes ? e->bps : e->iops, max = bytes ? e->max_bps : e->max_iops;
	struct ts_tier_limits *m = &r->lim;
	m->capacity = vol->capacity;
	if (bytes) {
		m->bps = base;
	} else {
		m->iops = base;
		m->io_unit = vol->io_unit;
		r->merge = p->merge_sequential;
	}
	if (e->burst_s > 0 && max > base) {
		m->burst = bytes ? TS_TIER_BURST_BYTES : TS_TIER_BURST_IOPS;
		*(bytes ? &m->burst_bps : &m->burst_iops) = max;
		m->bucket_size = e->burst_s * (max - base);
		m->bucket_refill = base;
		r->level = m->bucket_size;
	}
	set_active(r);
	return &r->l;
}

/* ---- An instance's limits shared by its volumes ------------------------ */

struct ts_tier_instance {
	pthread_mutex_t mu;
	struct rate *io, *bw; /* its IOPS and throughput limits; NULL: not set */
	unsigned nvol;	      /* volume models made with it so far */
};

struct shared {
	struct ts_tier_layer l;
	struct ts_tier_instance *in;
	struct rate *r;
	uint64_t salt; /* the volume's: its merge streams are its own */
	struct pend pend;
};

static uint64_t shared_submit(struct ts_tier_layer *l, uint64_t now, const struct ts_tier_req *req,
			      struct ts_tier_done *done)
{
	struct shared *sh = (struct shared *)l;
	return rate_do(sh->r, &sh->in->mu, req->file ^ sh->salt, &sh->pend, l, now, req, done);
}

static void shared_complete(struct ts_tier_layer *l, uint64_t end)
{
	struct shared *sh = (struct shared *)l;
	pend_done(&sh->pend, &sh->in->mu, end);
}

static const struct ts_tier_layer_ops shared_ops = {
	.name = "ebs-shared",
	.submit = shared_submit,
	.complete = shared_complete,
	.free = rate_free,
};

int ts_tier_instance_new(const struct ts_tier_ebs *e, const struct ts_tier_profile *p,
			 uint64_t capacity, struct ts_tier_instance **out, char *err,
			 size_t errlen)
{
	struct ts_tier_limits lim;
	int rc = ts_tier_effective(p, capacity, &lim, err, errlen);
	if (rc)
		return rc;
	if (!(e->iops >= 0 && e->bps >= 0 && e->max_iops >= 0 && e->max_bps >= 0 &&
	      e->burst_s >= 0)) {
		snprintf(err, errlen, "instance: the EBS limits must be rates >= 0 and a burst of "
				      ">= 0 s");
		return -EINVAL;
	}
	struct ts_tier_instance *in = calloc(1, sizeof(*in));
	if (!in)
		return -ENOMEM;
	if (e->iops > 0)
		in->io = (struct rate *)ts_tier_ebs_new(e, false, p, &lim);
	if (e->bps > 0)
		in->bw = (struct rate *)ts_tier_ebs_new(e, true, p, &lim);
	if ((e->iops > 0 && !in->io) || (e->bps > 0 && !in->bw) ||
	    pthread_mutex_init(&in->mu, NULL)) {
		free(in->io);
		free(in->bw);
		free(in);
		snprintf(err, errlen, "instance: out of memory");
		return -ENOMEM;
	}
	*out = in;
	return 0;
}

void ts_tier_instance_free(struct ts_tier_instance *in)
{
	if (!in)
		return;
	free(in->io);
	free(in->bw);
	pthread_mutex_destroy(&in->mu);
	free(in);
}

int ts_tier_instance_layers(struct ts_tier_instance *in, struct ts_tier_layer **io,
			    struct ts_tier_layer **bw)
{
	pthread_mutex_lock(&in->mu);
	uint64_t vol = in->nvol++;
	pthread_mutex_unlock(&in->mu);
	struct rate *r[2] = { in->io, in->bw };
	struct ts_tier_layer **out[2] = { io, bw };
	for (int i = 0; i < 2; i++) {
		*out[i] = NULL;
		if (!r[i])
			continue;
		struct shared *sh = calloc(1, sizeof(*sh));
		if (!sh) {
			free(*out[0]);
			*out[0] = NULL;
			return -ENOMEM;
		}
		sh->l.ops = &shared_ops;
		sh->in = in;
		sh->r = r[i];
		sh->salt = vol * 0x9e3779b97f4a7c15ull;
		*out[i] = &sh->l;
	}
	return 0;
}
