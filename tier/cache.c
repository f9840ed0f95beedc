/*
 * cache.c — the page-cache model in front of the emulated disk: the memory
 * of the emulated server (`mem`), which serves hits at memory speed, reads
 * ahead for sequential readers, absorbs writes up to a dirty limit and
 * writes them back at the tier's write rate in model time.
 *
 * It models Linux's behaviour, not its code:
 *   - Readahead (mm/readahead.c), for requests that carry the file's size
 *     (it never runs past EOF): a read at offset 0 or right after the
 *     previous one is sequential. The first window is the request rounded
 *     up to a power of two, x4 when small (<= max/32) or x2 (<= max/4);
 *     each next window x4 while < max/16, x2 while <= max/2, then max
 *     (get_init_ra_size / get_next_ra_size). A new window is issued, after
 *     the demand read and without delaying it, once less than one window
 *     remains ahead of the reader. The max defaults to 128 KiB, Linux's
 *     VM_READAHEAD_PAGES (include/linux/mm.h). Any other read resets it.
 *   - Dirty data: writes complete at memory speed while the dirty bytes
 *     (waiting + under writeback, as balance_dirty_pages counts them) stay
 *     under dirty_limit, default 20% of mem (vm.dirty_ratio = 20,
 *     Documentation/admin-guide/sysctl/vm.rst). Above it a write waits until
 *     writeback has brought the total back under. Background writeback
 *     starts when dirty data passes half the limit (vm.dirty_background_ratio
 *     = 10) or is older than 30 s (vm.dirty_expire_centisecs = 3000), oldest
 *     first, with WB_SLOTS chunk writes in flight, through the tier's rate
 *     limits like any other write.
 *   - fsync waits until the file's dirty data is written back, then pays the
 *     tier's sync latency.
 *   - O_DIRECT (req->direct) bypasses the cache, as the generic direct-IO
 *     paths do (mm/filemap.c: generic_file_read_iter, generic_file_direct_write
 *     via kiocb_write_and_wait and kiocb_invalidate_pages): dirty pages of
 *     the request's range are written back first and waited for, then a
 *     read goes to the device without filling the cache, without readahead
 *     and without a hit for pages it holds; a write drops the cached pages
 *     it overlaps (whole pages, as invalidate_inode_pages2_range) and
 *     completes when the device has it, never dirtying the cache.
 *   - Reclaim is LRU over chunks; the evict callback hears of each dropped
 *     chunk so tierfs can invalidate the kernel's copy (mmap'd files).
 *
 * Granularity: the cache tracks 128 KiB chunks, each with a 32-bit mask of
 * resident 4 KiB pages and one of dirty pages, so hits and misses are exact
 * to the page while the bookkeeping stays O(mem / chunk): at most
 * mem / 32 KiB entries of 64 bytes (2M entries, 128 MiB, for mem = 64 GiB;
 * the pool is allocated untouched and pages in as it fills), a 24-byte
 * per-file record per cached file (at most one per entry), and two 4-byte
 * hash heads per two entries. The entry cap means a cache full of chunks
 * holding fewer than 8 pages each holds less than mem — the price of
 * bounded memory for a virtual ImageNet-scale run with a 64 GiB+ cache. A
 * chunk has one `ready` time (when its pages in flight have all arrived):
 * a hit on a page of a chunk still being read waits for the whole chunk.
 *
 * Memory time: hits cost hit bytes / mem_bps. The default, 10 GB/s, was
 * measured on the development machine (AMD EPYC VM, one thread, memcpy of
 * 256 MiB in 4 KiB..1 MiB blocks, best of 5: 10.1-13.2 GB/s; the lower
 * figure); `bench/tier_submit` measures it again on any machine.
 *
 * Metadata: a META op on a file that has pages cached costs nothing (its
 * inode is in memory while its pages are); on any other file it reaches
 * the device and pays the tier's metadata latency.
 *
 * Left out: partial-page writes are not read first (Linux reads a page it
 * only partly overwrites); the dentry/inode cache is not modeled apart from
 * the rule above; one readahead stream per file.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "tier/tier_layer.h"

#define PAGE 4096ULL
#define CHUNK (128 * 1024ULL)
#define PPC 32 /* pages per chunk */
#define NIL UINT32_MAX
#define WB_SLOTS 32
#define NRA 16
#define RUN_ENTS 64 /* chunks one device request may span: 8 MiB */
#define DEFAULT_MEM_BPS 10e9
#define DEFAULT_RA_MAX (128 * 1024ULL)
#define EXPIRE_NS (30 * TS_NS_PER_S)

struct ent {
	uint64_t file, idx;
	uint64_t ready;	  /* pages in flight have arrived by then */
	uint64_t dirtied; /* when the chunk turned dirty */
	uint32_t present, dirty;
	uint32_t lprev, lnext, dprev, dnext; /* lnext links the free list too */
	uint64_t pad;
};

/*
 * The index: an open-addressing table (linear probing) whose slots carry
 * their key, so that finding a chunk reads one slot and the entry, and a
 * miss reads the slot alone. The 8 chunks of an aligned 1 MiB group of a
 * file hash to consecutive slots, so a large request reads its chunks'
 * slots a cache line at a time. ent is the entry + 1 (0: an empty slot);
 * idx_lo the chunk number's low 32 bits (the entry holds all of it).
 */
struct slot {
	uint64_t file;
	uint32_t idx_lo, ent;
};

/* Per file: how many chunks it has cached and its highest chunk (saturated
 * at FMAX_SAT: larger), so that a truncate or unlink visits only that
 * file's chunks; n = 0 is an empty slot of the file table. The entries of
 * its first FHEAD chunks (+ 1, 0: none) sit here instead of in the chunk
 * table: a small file's open and read then find its record and chunks in
 * one slot. */
#define FHEAD 2
struct fslot {
	uint64_t file;
	uint32_t n, max_idx;
	uint32_t head[FHEAD];
};
#define FMAX_SAT UINT32_MAX

struct wbslot {
	uint64_t free;	/* the slot's last write completes then */
	uint64_t bytes; /* bytes of that write */
	uint64_t file, idx; /* the chunk it writes */
};

struct ra {
	uint64_t file, next, ra_end, window, used;
};

struct cache {
	struct ts_tier_layer l;
	uint64_t mem, dirty_limit, bg_limit, ra_max;
	double mem_bps;
	ts_tier_evict_fn evict;
	void *evict_ctx;

	struct ent *e;
	size_t e_len, slot_len, fs_len; /* bytes mapped for e, slot, fs */
	uint32_t nmax, nused, freelist;
	struct slot *slot; /* nslot > nmax: at most 3/4 full */
	struct fslot *fs;  /* as many slots: a file in the cache has a chunk */
	uint64_t nslot;
	uint64_t entries, evicted;
	uint32_t lru_head, lru_tail;	 /* most / least recently used */
	uint32_t dirty_head, dirty_tail; /* oldest / newest dirty */
	uint64_t resident, dirty;	 /* bytes; dirty = not yet under writeback */
	struct wbslot wb[WB_SLOTS];
	uint64_t wb_last; /* the latest completion of any slot */
	struct ra ra[NRA];
	uint64_t ratick;

	/* A device read being gathered over consecutive missing pages. */
	uint64_t run_file, run_off, run_len;
	uint32_t run_ent[RUN_ENTS];
	unsigned run_n;

	_Atomic uint64_t pub_resident, pub_dirty, pub_wb, pub_evicted, pub_entries;
};

static uint64_t mix(uint64_t file, uint64_t idx)
{
	uint64_t x = file * 0x9e3779b97f4a7c15ULL ^ (idx + 0x632be59bd9b4e019ULL);
	x ^= x >> 31;
	x *= 0xbf58476d1ce4e5b9ULL;
	return x ^ (x >> 29);
}

/* Slot @h of a table of n: the hash scaled to [0, n) (Lemire's reduction). */
static uint64_t reduce(uint64_t h, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)h * n) >> 64);
}

static uint64_t wrap(const struct cache *c, uint64_t s)
{
	return s >= c->nslot ? s - c->nslot : s;
}

/* The home slot of chunk @idx (its low 32 bits) of @file. */
static uint64_t home(const struct cache *c, uint64_t file, uint32_t idx_lo)
{
	return wrap(c, reduce(mix(file, idx_lo >> 3), c->nslot) + (idx_lo & 7));
}

/* The slot holding chunk @idx of @file, or the empty slot ending its probe. */
static uint64_t find(const struct cache *c, uint64_t file, uint64_t idx)
{
	uint32_t lo = (uint32_t)idx;
	uint64_t s = home(c, file, lo);
	for (;; s = wrap(c, s + 1)) {
		const struct slot *x = &c->slot[s];
		if (!x->ent || (x->file == file && x->idx_lo == lo && c->e[x->ent - 1].idx == idx))
			return s;
	}
}

/* Empties slot @s of a linear-probing table, moving back the entries after
 * it that could not sit in their home slot while it was taken. */
#define UNSLOT(c, tab, s, empty, homeof)                                              \
	do {                                                                          \
		uint64_t hole_ = (s);                                                 \
		for (uint64_t j_ = wrap(c, hole_ + 1); !(empty); j_ = wrap(c, j_ + 1)) { \
			uint64_t h_ = (homeof);                                       \
			if (wrap(c, j_ + c->nslot - h_) >= wrap(c, j_ + c->nslot - hole_)) { \
				(tab)[hole_] = (tab)[j_];                             \
				hole_ = j_;                                           \
			}                                                             \
		}                                                                     \
		memset(&(tab)[hole_], 0, sizeof((tab)[hole_]));                       \
	} while (0)

static void unslot(struct cache *c, uint64_t s)
{
	UNSLOT(c, c->slot, s, !c->slot[j_].ent, home(c, c->slot[j_].file, c->slot[j_].idx_lo));
}

static uint64_t fhome(const struct cache *c, uint64_t file)
{
	return reduce(mix(file, 0), c->nslot);
}

/* The file table's slot of @file, or the empty slot ending its probe. */
static uint64_t ffind(const struct cache *c, uint64_t file)
{
	uint64_t s = fhome(c, file);
	while (c->fs[s].n && c->fs[s].file != file)
		s = wrap(c, s + 1);
	return s;
}

/* The record of @file, NULL when none of its chunks is cached. */
static const struct fslot *fget(const struct cache *c, uint64_t file)
{
	const struct fslot *f = &c->fs[ffind(c, file)];
	return f->n ? f : NULL;
}

/* The highest chunk of file record @f (UINT64_MAX: past 2^32 - 2). */
static uint64_t file_max(const struct fslot *f)
{
	return f->max_idx == FMAX_SAT ? UINT64_MAX : f->max_idx;
}

/* The entry of chunk @idx of @file, NIL when it is not cached. */
static uint32_t lookup(const struct cache *c, uint64_t file, uint64_t idx)
{
	if (idx < FHEAD) {
		const struct fslot *f = fget(c, file);
		return f ? f->head[idx] - 1 : NIL;
	}
	return c->slot[find(c, file, idx)].ent - 1; /* NIL when empty */
}

/* Indexes entry @i, chunk @idx of @file, which is not cached yet. */
static void index_add(struct cache *c, uint64_t file, uint64_t idx, uint32_t i)
{
	struct fslot *f = &c->fs[ffind(c, file)];
	if (!f->n)
		*f = (struct fslot){ .file = file };
	f->n++;
	f->max_idx = (uint32_t)TS_MAX(f->max_idx, TS_MIN(idx, FMAX_SAT));
	if (idx < FHEAD)
		f->head[idx] = i + 1;
	else
		c->slot[find(c, file, idx)] = (struct slot){ file, (uint32_t)idx, i + 1 };
}

/* Takes chunk @idx of @file out of the index. */
static void index_del(struct cache *c, uint64_t file, uint64_t idx)
{
	if (idx >= FHEAD)
		unslot(c, find(c, file, idx));
	uint64_t s = ffind(c, file);
	if (idx < FHEAD)
		c->fs[s].head[idx] = 0;
	if (--c->fs[s].n)
		return;
	UNSLOT(c, c->fs, s, !c->fs[j_].n, fhome(c, c->fs[j_].file));
}

static void lru_unlink(struct cache *c, uint32_t i)
{
	struct ent *e = &c->e[i];
	if (e->lprev != NIL)
		c->e[e->lprev].lnext = e->lnext;
	else
		c->lru_head = e->lnext;
	if (e->lnext != NIL)
		c->e[e->lnext].lprev = e->lprev;
	else
		c->lru_tail = e->lprev;
}

static void lru_front(struct cache *c, uint32_t i)
{
	struct ent *e = &c->e[i];
	e->lprev = NIL;
	e->lnext = c->lru_head;
	if (c->lru_head != NIL)
		c->e[c->lru_head].lprev = i;
	c->lru_head = i;
	if (c->lru_tail == NIL)
		c->lru_tail = i;
}

static void touch(struct cache *c, uint32_t i)
{
	if (c->lru_head != i) {
		lru_unlink(c, i);
		lru_front(c, i);
	}
}

static void dirty_unlink(struct cache *c, uint32_t i)
{
	struct ent *e = &c->e[i];
	if (e->dprev != NIL)
		c->e[e->dprev].dnext = e->dnext;
	else
		c->dirty_head = e->dnext;
	if (e->dnext != NIL)
		c->e[e->dnext].dprev = e->dprev;
	else
		c->dirty_tail = e->dprev;
	e->dprev = e->dnext = NIL;
}

static void dirty_back(struct cache *c, uint32_t i)
{
	struct ent *e = &c->e[i];
	e->dnext = NIL;
	e->dprev = c->dirty_tail;
	if (c->dirty_tail != NIL)
		c->e[c->dirty_tail].dnext = i;
	c->dirty_tail = i;
	if (c->dirty_head == NIL)
		c->dirty_head = i;
}

/* The end (exclusive) of the run of set bits of @m that starts at bit @p. */
static int run_end(uint32_t m, int p)
{
	uint32_t rest = ~(m >> p); /* the run's bits cleared */
	return rest ? p + __builtin_ctz(rest) : PPC;
}

static void publish(struct cache *c)
{
	atomic_store_explicit(&c->pub_resident, c->resident, memory_order_relaxed);
	atomic_store_explicit(&c->pub_dirty, c->dirty, memory_order_relaxed);
	atomic_store_explicit(&c->pub_entries, c->entries, memory_order_relaxed);
	atomic_store_explicit(&c->pub_evicted, c->evicted, memory_order_relaxed);
}

static void ent_remove(struct cache *c, uint32_t i)
{
	struct ent *e = &c->e[i];
	index_del(c, e->file, e->idx);
	lru_unlink(c, i);
	if (e->dirty)
		dirty_unlink(c, i);
	c->resident -= (uint64_t)__builtin_popcount(e->present) * PAGE;
	c->dirty -= (uint64_t)__builtin_popcount(e->dirty) * PAGE;
	e->lnext = c->freelist;
	c->freelist = i;
	c->entries--;
}

/* ---- Writeback ---------------------------------------------------------- */

static uint64_t inflight_at(const struct cache *c, uint64_t t)
{
	if (t >= c->wb_last)
		return 0; /* every write back has completed (or none began) */
	uint64_t b = 0;
	for (int k = 0; k < WB_SLOTS; k++)
		if (c->wb[k].free > t)
			b += c->wb[k].bytes;
	return b;
}

static int slot_min(const struct cache *c)
{
	int m = 0;
	for (int k = 1; k < WB_SLOTS; k++)
		if (c->wb[k].free < c->wb[m].free)
			m = k;
	return m;
}

/* Writes entry @i's dirty pages in @mask at @t in slot @k; returns the
 * completion. */
static uint64_t wb_pages(struct cache *c, int k, uint32_t i, uint64_t t, uint32_t mask)
{
	struct ent *e = &c->e[i];
	struct ts_tier_done scratch = { 0 };
	uint32_t m = e->dirty & mask;
	uint64_t end = t, bytes = 0;
	while (m) {
		int p = __builtin_ctz(m);
		int q = run_end(m, p);
		struct ts_tier_req w = { .op = TS_TIER_WRITE,
					 .file = e->file,
					 .off = e->idx * CHUNK + (uint64_t)p * PAGE,
					 .len = (uint64_t)(q - p) * PAGE };
		uint64_t d = ts_tier_layer_next(&c->l, t, &w, &scratch);
		end = TS_MAX(end, d);
		bytes += w.len;
		m &= q < PPC ? ~((1U << q) - 1) : 0;
	}
	e->dirty &= ~mask;
	if (!e->dirty)
		dirty_unlink(c, i);
	c->dirty -= bytes;
	c->wb[k].free = end;
	c->wb_last = TS_MAX(c->wb_last, end);
	c->wb[k].bytes = bytes;
	c->wb[k].file = e->file;
	c->wb[k].idx = e->idx;
	return end;
}

/* Writes all of entry @i's dirty pages. */
static uint64_t wb_entry(struct cache *c, int k, uint32_t i, uint64_t t)
{
	return wb_pages(c, k, i, t, UINT32_MAX);
}

/* Background writeback up to @until: oldest first, when over the background
 * limit or expired, each write starting when a slot frees. */
static void wb_background(struct cache *c, uint64_t until)
{
	while (c->dirty_head != NIL) {
		int k = slot_min(c);
		struct ent *h = &c->e[c->dirty_head];
		uint64_t t = TS_MAX(c->wb[k].free, h->dirtied);
		if (c->dirty + inflight_at(c, t) <= c->bg_limit)
			t = TS_MAX(t, h->dirtied + EXPIRE_NS);
		if (t > until)
			break;
		wb_entry(c, k, c->dirty_head, t);
	}
	atomic_store_explicit(&c->pub_wb, inflight_at(c, until), memory_order_relaxed);
}

/* The earliest time >= now at which @add more dirty bytes fit under the
 * dirty limit, pushing writeback as hard as the slots allow. */
static uint64_t wb_throttle(struct cache *c, uint64_t now, uint64_t add)
{
	uint64_t t = now;
	for (;;) {
		for (int k = 0; k < WB_SLOTS && c->dirty_head != NIL; k++)
			if (c->wb[k].free <= t)
				wb_entry(c, k, c->dirty_head, t);
		if (c->dirty + inflight_at(c, t) + add <= c->dirty_limit)
			return t;
		uint64_t next = UINT64_MAX;
		for (int k = 0; k < WB_SLOTS; k++)
			if (c->wb[k].free > t && c->wb[k].free < next)
				next = c->wb[k].free;
		if (next == UINT64_MAX) {
			if (c->dirty_head != NIL)
				continue; /* writes took no time: issue more at t */
			return t; /* nothing left to wait for: @add alone exceeds the limit */
		}
		t = next;
	}
}

/* Writes back every dirty chunk of @file; returns when all of the file's
 * data (including writes already in flight) is on the device. */
static uint64_t wb_file(struct cache *c, uint64_t now, uint64_t file)
{
	uint64_t end = now;
	for (int k = 0; k < WB_SLOTS; k++)
		if (c->wb[k].file == file && c->wb[k].free > end)
			end = c->wb[k].free;
	uint32_t i = c->dirty_head;
	while (i != NIL) {
		uint32_t next = c->e[i].dnext;
		if (c->e[i].file == file) {
			int k = slot_min(c);
			uint64_t d = wb_entry(c, k, i, TS_MAX(now, c->wb[k].free));
			end = TS_MAX(end, d);
		}
		i = next;
	}
	return end;
}

/* ---- Residency ---------------------------------------------------------- */

static void evict_one(struct cache *c, uint64_t now)
{
	uint32_t v = c->lru_tail;
	if (v == NIL)
		return;
	struct ent *e = &c->e[v];
	if (e->dirty) {
		/* Reclaim writes dirty pages first, when a writeback slot frees. */
		int k = slot_min(c);
		wb_entry(c, k, v, TS_MAX(now, c->wb[k].free));
	}
	if (c->evict)
		c->evict(c->evict_ctx, e->file, e->idx * CHUNK, CHUNK);
	ent_remove(c, v);
	c->evicted++;
	/* The next victim's entry is at hand (lru_unlink wrote it); fetch what
	 * evicting it will read while the caller does other work: reclaim
	 * walks entries the run has not touched for long, each read from
	 * memory otherwise. */
	uint32_t t = c->lru_tail;
	if (t != NIL) {
		const struct ent *n = &c->e[t];
		if (n->idx >= FHEAD)
			__builtin_prefetch(&c->slot[home(c, n->file, (uint32_t)n->idx)], 1);
		__builtin_prefetch(&c->fs[fhome(c, n->file)], 1);
		if (n->lprev != NIL)
			__builtin_prefetch(&c->e[n->lprev], 1);
	}
}

/* Would bringing @add_pages pages into entry @i (NIL: a new one) evict? */
static bool must_evict(const struct cache *c, uint32_t i, unsigned add_pages)
{
	return c->resident + add_pages * PAGE > c->mem ||
	       (i == NIL && c->freelist == NIL && c->nused == c->nmax);
}

/* The entry of chunk @idx of @file, made room for @add_pages new pages;
 * @i is the chunk's entry as the caller just looked it up (NIL: none). */
static uint32_t get_ent(struct cache *c, uint32_t i, uint64_t file, uint64_t idx,
			unsigned add_pages, uint64_t now)
{
	if (i != NIL)
		touch(c, i);
	/* Keep the entry we fill off the LRU tail while making room. */
	while (c->resident + add_pages * PAGE > c->mem && c->lru_tail != NIL && c->lru_tail != i)
		evict_one(c, now);
	if (i != NIL)
		return i;
	if (c->freelist == NIL && c->nused == c->nmax)
		evict_one(c, now);
	if (c->freelist != NIL) {
		i = c->freelist;
		c->freelist = c->e[i].lnext;
	} else {
		i = c->nused++;
	}
	struct ent *e = &c->e[i];
	memset(e, 0, sizeof(*e));
	e->file = file;
	e->idx = idx;
	e->dprev = e->dnext = NIL;
	index_add(c, file, idx, i);
	lru_front(c, i);
	c->entries++;
	return i;
}

static uint32_t page_mask(uint64_t pfirst, uint64_t plast, uint64_t idx)
{
	uint64_t a = TS_MAX(pfirst, idx * PPC) - idx * PPC;
	uint64_t b = TS_MIN(plast, idx * PPC + PPC) - idx * PPC; /* exclusive */
	uint64_t m = (b - a == 32 ? 0xffffffffULL : ((1ULL << (b - a)) - 1)) << a;
	return (uint32_t)m;
}

/* Drops pages [p0, p1) of @file, dirty ones included; p1 past the file's
 * last cached chunk means to its end. */
static void drop_pages(struct cache *c, uint64_t file, uint64_t p0, uint64_t p1)
{
	const struct fslot *f = fget(c, file);
	if (!f)
		return; /* nothing of the file is cached */
	if (f->max_idx != FMAX_SAT)
		p1 = TS_MIN(p1, ((uint64_t)f->max_idx + 1) * PPC);
	if (p1 <= p0)
		return;
	bool scan = (p1 - p0) / PPC > c->nused;
	uint64_t first = p0 / PPC, last = (p1 - 1) / PPC;
	uint32_t n = scan ? c->nused : (uint32_t)(last - first + 1);
	for (uint32_t j = 0; j < n; j++) {
		uint32_t i;
		if (scan) {
			i = j;
			/* Free entries are off every list; their file cannot match
			 * once cleared, so test membership through the hash. */
			if (lookup(c, c->e[i].file, c->e[i].idx) != i || c->e[i].file != file ||
			    c->e[i].idx < first || c->e[i].idx > last)
				continue;
		} else if ((i = lookup(c, file, first + j)) == NIL) {
			continue;
		}
		struct ent *e = &c->e[i];
		uint32_t m = page_mask(p0, p1, e->idx);
		uint32_t drop = e->present & m, dd = e->dirty & m;
		c->resident -= (uint64_t)__builtin_popcount(drop) * PAGE;
		c->dirty -= (uint64_t)__builtin_popcount(dd) * PAGE;
		e->present &= ~m;
		e->dirty &= ~m;
		if (!e->dirty && dd)
			dirty_unlink(c, i);
		if (!e->present) {
			/* ent_remove recounts present/dirty: both are 0 now. */
			if (e->dirty)
				dirty_unlink(c, i);
			e->dirty = 0;
			ent_remove(c, i);
		}
	}
}

/* ---- Reads -------------------------------------------------------------- */

/* Sends the gathered run to the device; its chunks are ready at completion. */
static uint64_t run_flush(struct cache *c, uint64_t now, struct ts_tier_done *done)
{
	if (!c->run_len)
		return now;
	struct ts_tier_req r = {
		.op = TS_TIER_READ, .file = c->run_file, .off = c->run_off, .len = c->run_len
	};
	uint64_t d = ts_tier_layer_next(&c->l, now, &r, done);
	for (unsigned j = 0; j < c->run_n; j++)
		c->e[c->run_ent[j]].ready = TS_MAX(c->e[c->run_ent[j]].ready, d);
	c->run_len = 0;
	c->run_n = 0;
	return d;
}

/* Brings pages [p0, p1) of @file in, reading what is missing at @now.
 * Returns the time all of them are there; adds the bytes of
 * [off, off+len) already resident to *hit. */
static uint64_t fill(struct cache *c, uint64_t now, uint64_t file, uint64_t p0, uint64_t p1,
		     uint64_t off, uint64_t len, uint64_t *hit, struct ts_tier_done *done)
{
	uint64_t ready = now;
	c->run_len = 0;
	c->run_n = 0;
	for (uint64_t idx = p0 / PPC; idx * PPC < p1; idx++) {
		uint32_t want = page_mask(p0, p1, idx);
		uint32_t i = lookup(c, file, idx);
		uint32_t miss = i == NIL ? want : want & ~c->e[i].present;
		/* Send the gathered run before reclaim could drop one of its
		 * chunks (a read larger than the cache). */
		if (c->run_len && must_evict(c, i, (unsigned)__builtin_popcount(miss))) {
			uint64_t d = run_flush(c, now, done);
			ready = TS_MAX(ready, d);
		}
		i = get_ent(c, i, file, idx, (unsigned)__builtin_popcount(miss), now);
		struct ent *e = &c->e[i];
		uint32_t have = want & ~miss;
		if (have && hit) {
			if (e->ready > now)
				ready = TS_MAX(ready, e->ready);
			for (uint32_t m = have; m; m &= m - 1) {
				uint64_t pg = idx * PPC + (uint64_t)__builtin_ctz(m);
				uint64_t a = TS_MAX(off, pg * PAGE), b = TS_MIN(off + len, pg * PAGE + PAGE);
				*hit += b > a ? b - a : 0;
			}
		} else if (have && e->ready > now) {
			ready = TS_MAX(ready, e->ready);
		}
		/* Missing pages: extend the run or start a new one. */
		for (uint32_t m = miss; m;) {
			int p = __builtin_ctz(m), q = run_end(m, p);
			uint64_t o = (idx * PPC + (uint64_t)p) * PAGE, l = (uint64_t)(q - p) * PAGE;
			if (!c->run_len || c->run_off + c->run_len != o || c->run_n == RUN_ENTS) {
				uint64_t d = run_flush(c, now, done);
				ready = TS_MAX(ready, d);
				c->run_file = file;
				c->run_off = o;
			}
			c->run_len += l;
			if (!c->run_n || c->run_ent[c->run_n - 1] != i)
				c->run_ent[c->run_n++] = i;
			m &= q < PPC ? ~((1U << q) - 1) : 0;
		}
		e->present |= miss;
		c->resident += (uint64_t)__builtin_popcount(miss) * PAGE;
	}
	uint64_t d = run_flush(c, now, done);
	return TS_MAX(ready, d);
}

static unsigned long long pow2_up(uint64_t x)
{
	uint64_t p = PAGE;
	while (p < x)
		p <<= 1;
	return p;
}

/* Linux's readahead window ramp (see the top of the file). */
static uint64_t ra_init(uint64_t req, uint64_t max)
{
	uint64_t n = pow2_up(req);
	if (n <= max / 32)
		n *= 4;
	else if (n <= max / 4)
		n *= 2;
	else
		n = max;
	return TS_MIN(n, max);
}

static uint64_t ra_next(uint64_t cur, uint64_t max)
{
	if (cur < max / 16)
		return 4 * cur;
	if (cur <= max / 2)
		return 2 * cur;
	return max;
}

static void readahead(struct cache *c, uint64_t now, const struct ts_tier_req *req,
		      struct ts_tier_done *done)
{
	struct ra *s = NULL, *lru = &c->ra[0];
	for (int i = 0; i < NRA; i++) {
		if (c->ra[i].used && c->ra[i].file == req->file) {
			s = &c->ra[i];
			break;
		}
		if (c->ra[i].used < lru->used)
			lru = &c->ra[i];
	}
	uint64_t end = req->off + req->len;
	/* Without the file's size the model cannot tell where it ends, and
	 * Linux never reads ahead past EOF: no readahead then. */
	if (!req->size)
		return;
	bool seq = req->off == 0 || (s && s->next == req->off);
	if (!s) {
		s = lru;
		memset(s, 0, sizeof(*s));
		s->file = req->file;
	}
	s->used = ++c->ratick;
	s->next = end;
	if (!seq) {
		s->window = 0;
		s->ra_end = 0;
		return;
	}
	uint64_t start = TS_MAX(s->ra_end, end);
	if (s->window && s->ra_end >= end + s->window)
		return; /* more than a window is still ahead */
	s->window = s->window ? ra_next(s->window, c->ra_max) : ra_init(req->len, c->ra_max);
	uint64_t stop = TS_MIN(start + s->window, (req->size + PAGE - 1) / PAGE * PAGE);
	s->ra_end = TS_MAX(s->ra_end, stop);
	if (stop <= start)
		return;
	struct ts_tier_done scratch = { 0 };
	fill(c, now, req->file, start / PAGE, (stop + PAGE - 1) / PAGE, 0, 0, NULL, &scratch);
	done->dev_bytes += scratch.dev_bytes;
	done->dev_ios += scratch.dev_ios;
}

static uint64_t cache_read(struct cache *c, uint64_t now, const struct ts_tier_req *req,
			   struct ts_tier_done *done)
{
	uint64_t p0 = req->off / PAGE, p1 = (req->off + req->len + PAGE - 1) / PAGE;
	uint64_t hit = 0;
	enum ts_tier_bound b0 = done->bound;
	uint64_t dev0 = done->dev_ios;
	uint64_t end = fill(c, now, req->file, p0, p1, req->off, req->len, &hit, done);
	bool went_to_device = done->dev_ios != dev0;
	readahead(c, now, req, done);
	done->hit_bytes += hit;
	uint64_t mem_end = now + (uint64_t)((double)hit / c->mem_bps * 1e9);
	if (!went_to_device) {
		done->bound = b0 == TS_TIER_BOUND_LATENCY ? TS_TIER_BOUND_MEMORY : b0;
		/* A wait for pages in flight (readahead) is the device's doing. */
		if (end > mem_end)
			done->bound = TS_TIER_BOUND_LATENCY;
	}
	return TS_MAX(end, mem_end);
}

/* ---- Writes ------------------------------------------------------------- */

static uint64_t cache_write(struct cache *c, uint64_t now, const struct ts_tier_req *req,
			    struct ts_tier_done *done)
{
	uint64_t p0 = req->off / PAGE, p1 = (req->off + req->len + PAGE - 1) / PAGE;
	uint64_t add = 0;
	for (uint64_t idx = p0 / PPC; idx * PPC < p1; idx++) {
		uint32_t i = lookup(c, req->file, idx);
		uint32_t m = page_mask(p0, p1, idx) & ~(i == NIL ? 0 : c->e[i].dirty);
		add += (uint64_t)__builtin_popcount(m) * PAGE;
	}
	uint64_t t = now;
	if (c->dirty + inflight_at(c, now) + add > c->dirty_limit) {
		t = wb_throttle(c, now, add);
		if (t > now)
			done->bound = TS_TIER_BOUND_DIRTY;
	}
	for (uint64_t idx = p0 / PPC; idx * PPC < p1; idx++) {
		uint32_t want = page_mask(p0, p1, idx);
		uint32_t i = lookup(c, req->file, idx);
		uint32_t miss = i == NIL ? want : want & ~c->e[i].present;
		i = get_ent(c, i, req->file, idx, (unsigned)__builtin_popcount(miss), t);
		struct ent *e = &c->e[i];
		uint32_t newd = want & ~e->dirty;
		if (!e->dirty && newd) {
			e->dirtied = t;
			dirty_back(c, i);
		}
		e->present |= want;
		e->dirty |= want;
		c->resident += (uint64_t)__builtin_popcount(miss) * PAGE;
		c->dirty += (uint64_t)__builtin_popcount(newd) * PAGE;
	}
	if (done->bound == TS_TIER_BOUND_LATENCY)
		done->bound = TS_TIER_BOUND_MEMORY;
	done->hit_bytes += req->len;
	return t + (uint64_t)((double)req->len / c->mem_bps * 1e9);
}

/* ---- Direct IO ---------------------------------------------------------- */

/* Writes back the dirty pages of [p0, p1) of @file and returns when they,
 * and writeback already in flight on the range's chunks, are on the device. */
static uint64_t wb_range(struct cache *c, uint64_t now, uint64_t file, uint64_t p0, uint64_t p1)
{
	uint64_t first = p0 / PPC, last = (p1 - 1) / PPC, end = now;
	for (int k = 0; k < WB_SLOTS; k++)
		if (c->wb[k].free > end && c->wb[k].file == file && c->wb[k].idx >= first &&
		    c->wb[k].idx <= last)
			end = c->wb[k].free;
	const struct fslot *f = fget(c, file);
	if (!f)
		return end;
	last = TS_MIN(last, file_max(f));
	for (uint64_t idx = first; idx <= last; idx++) {
		uint32_t i = lookup(c, file, idx);
		uint32_t m = page_mask(p0, p1, idx);
		if (i == NIL || !(c->e[i].dirty & m))
			continue;
		int k = slot_min(c);
		uint64_t d = wb_pages(c, k, i, TS_MAX(now, c->wb[k].free), m);
		end = TS_MAX(end, d);
	}
	return end;
}

static uint64_t cache_direct(struct cache *c, uint64_t now, const struct ts_tier_req *req,
			     struct ts_tier_done *done)
{
	uint64_t p0 = req->off / PAGE, p1 = (req->off + req->len + PAGE - 1) / PAGE;
	uint64_t t = wb_range(c, now, req->file, p0, p1);
	if (req->op == TS_TIER_WRITE)
		drop_pages(c, req->file, p0, p1);
	uint64_t end = ts_tier_layer_next(&c->l, t, req, done);
	if (t > now)
		done->bound = TS_TIER_BOUND_FLUSH;
	return end;
}

static uint64_t cache_submit(struct ts_tier_layer *l, uint64_t now, const struct ts_tier_req *req,
			     struct ts_tier_done *done)
{
	struct cache *c = (struct cache *)l;
	uint64_t end;
	wb_background(c, now);
	switch (req->op) {
	case TS_TIER_READ:
	case TS_TIER_WRITE:
		if (!req->len)
			end = now;
		else if (req->direct)
			end = cache_direct(c, now, req, done);
		else if (req->op == TS_TIER_READ)
			end = cache_read(c, now, req, done);
		else
			end = cache_write(c, now, req, done);
		break;
	case TS_TIER_FSYNC:
	case TS_TIER_FDATASYNC: {
		uint64_t t = wb_file(c, now, req->file);
		end = ts_tier_layer_next(l, t, req, done);
		if (t > now)
			done->bound = TS_TIER_BOUND_FLUSH;
		break;
	}
	default:
		/* Metadata of a file with pages in the cache is in memory too
		 * (its inode and dentry are pinned by those pages). */
		if (fget(c, req->file)) {
			done->bound = TS_TIER_BOUND_MEMORY;
			end = now;
		} else {
			end = ts_tier_layer_next(l, now, req, done);
		}
		break;
	}
	publish(c);
	return end;
}

/* A page-cache state set up front. Pages become present (and dirty, for a
 * copy just made) chunk by chunk in the order given, evicting the least
 * recently warmed when mem is full. Dirty pages are kept to the dirty
 * limit: the oldest beyond it have already been written back, so they
 * turn clean, and an eviction never has writeback to do — no device time
 * is spent. Writeback of what stays dirty starts at the first request, by
 * the usual thresholds (the background limit, or 30 s after `now`). */
static void cache_warm(struct ts_tier_layer *l, uint64_t now, uint64_t file, uint64_t off,
		       uint64_t len, bool dirty)
{
	struct cache *c = (struct cache *)l;
	if (!c->mem || !len)
		return;
	uint64_t p0 = off / PAGE, p1 = (off + len + PAGE - 1) / PAGE;
	for (uint64_t idx = p0 / PPC; idx * PPC < p1; idx++) {
		uint32_t want = page_mask(p0, p1, idx);
		uint32_t i = lookup(c, file, idx);
		uint32_t miss = i == NIL ? want : want & ~c->e[i].present;
		i = get_ent(c, i, file, idx, (unsigned)__builtin_popcount(miss), now);
		struct ent *e = &c->e[i];
		e->present |= want;
		c->resident += (uint64_t)__builtin_popcount(miss) * PAGE;
		if (!dirty)
			continue;
		uint32_t newd = want & ~e->dirty;
		if (!e->dirty && newd) {
			e->dirtied = now;
			dirty_back(c, i);
		}
		e->dirty |= want;
		c->dirty += (uint64_t)__builtin_popcount(newd) * PAGE;
		while (c->dirty > c->dirty_limit && c->dirty_head != NIL && c->dirty_head != i) {
			uint32_t o = c->dirty_head;
			c->dirty -= (uint64_t)__builtin_popcount(c->e[o].dirty) * PAGE;
			c->e[o].dirty = 0;
			dirty_unlink(c, o);
		}
	}
	publish(c);
}

/* The file's record and, past its first chunks, the home slot of the chunk
 * at @off: a miss each otherwise, as reads come in random order. */
static void cache_prefetch(struct ts_tier_layer *l, uint64_t file, uint64_t off)
{
	const struct cache *c = (const struct cache *)l;
	uint64_t idx = off / CHUNK;
	__builtin_prefetch(&c->fs[fhome(c, file)]);
	if (idx >= FHEAD)
		__builtin_prefetch(&c->slot[home(c, file, (uint32_t)idx)]);
}

static void cache_forget(struct ts_tier_layer *l, uint64_t file, uint64_t off, uint64_t len)
{
	struct cache *c = (struct cache *)l;
	uint64_t p0 = (off + PAGE - 1) / PAGE; /* a partly kept page stays */
	uint64_t p1 = len && off + len >= off ? (off + len) / PAGE : UINT64_MAX;
	drop_pages(c, file, p0, p1);
	publish(c);
}

static void cache_stats(struct ts_tier_layer *l, struct ts_tier_stats *out)
{
	struct cache *c = (struct cache *)l;
#define LD(x) atomic_load_explicit(&c->x, memory_order_relaxed)
	out->has_cache = true;
	out->cache.mem = c->mem;
	out->cache.resident = LD(pub_resident);
	out->cache.dirty = LD(pub_dirty);
	out->cache.writeback = LD(pub_wb);
	out->cache.dirty_limit = c->dirty_limit;
	out->cache.evicted_chunks = LD(pub_evicted);
	out->cache.chunks = LD(pub_entries);
	out->cache.chunk_bytes = CHUNK;
#undef LD
}

/*
 * The pool and the two tables: zeroed pages mapped untouched (RSS grows
 * as they fill), on transparent huge pages where the kernel allows them
 * (madvise mode). Reads of them land anywhere in up to a few hundred MiB,
 * one per request and eviction: with 4 KiB pages most of them also missed
 * the TLB, and the page walk cost as much as the read. NULL when out of
 * memory.
 */
static void *table_new(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	(void)madvise(p, len, MADV_HUGEPAGE); /* advice only: fine to be refused */
	return p;
}

static void table_free(void *p, size_t len)
{
	if (p)
		munmap(p, len);
}

static void cache_free(struct ts_tier_layer *l)
{
	struct cache *c = (struct cache *)l;
	table_free(c->e, c->e_len);
	table_free(c->slot, c->slot_len);
	table_free(c->fs, c->fs_len);
	free(c);
}

static const struct ts_tier_layer_ops cache_ops = {
	.name = "cache",
	.submit = cache_submit,
	.warm = cache_warm,
	.forget = cache_forget,
	.prefetch = cache_prefetch,
	.stats = cache_stats,
	.free = cache_free,
};

struct ts_tier_layer *ts_tier_cache_new(const struct ts_tier_cache_cfg *cfg)
{
	if (cfg->mem < TS_TIER_MIN_MEM)
		return NULL;
	/* At least a few entries, so that a chunk being filled never has to
	 * evict itself. */
	struct cache *c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->l.ops = &cache_ops;
	c->mem = cfg->mem;
	c->dirty_limit = cfg->dirty_limit ? TS_MIN(cfg->dirty_limit, cfg->mem) : cfg->mem / 5;
	c->bg_limit = c->dirty_limit / 2;
	c->ra_max = cfg->ra_max ? TS_MAX(cfg->ra_max, PAGE) : DEFAULT_RA_MAX;
	c->mem_bps = cfg->mem_bps ? (double)cfg->mem_bps : DEFAULT_MEM_BPS;
	c->evict = cfg->evict;
	c->evict_ctx = cfg->evict_ctx;
	uint64_t n = TS_MAX(cfg->mem / (CHUNK / 4), 4);
	if (n > UINT32_MAX - 1)
		n = UINT32_MAX - 1;
	c->nmax = (uint32_t)n;
	c->nslot = n + n / 3 + 8; /* at most 3/4 full: short probes */
	c->e_len = n * sizeof(*c->e);
	c->slot_len = c->nslot * sizeof(*c->slot);
	c->fs_len = c->nslot * sizeof(*c->fs);
	c->e = table_new(c->e_len);
	c->slot = table_new(c->slot_len);
	c->fs = table_new(c->fs_len);
	if (!c->e || !c->slot || !c->fs) {
		cache_free(&c->l);
		return NULL;
	}
	c->freelist = NIL;
	c->lru_head = c->lru_tail = c->dirty_head = c->dirty_tail = NIL;
	return &c->l;
}
