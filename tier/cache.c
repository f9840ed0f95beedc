/*
 * cache.c — the page-cache model in front of the emulated disk: the memory
 * of the emulated server (`mem`), which serves hits at memory speed, reads
 * ahead for sequential readers, absorbs writes up to a dirty limit and
 * writes them back at the tier's write rate in model time.
 *
 * It models Linux's behaviour, not its code:
 *   - Readahead (mm/readahead.c, as Linux 6.18 does it), for requests
 *     that carry the file's size (it never runs past EOF), one stream per
 *     file: a read whose first page is missing opens a stream at the
 *     start of the file, right after the previous read, or when it is
 *     larger than the max; its first window starts at the read and holds
 *     its demand pages, one device request: the read rounded up to a
 *     power of two, x4 when small (<= max/32) or x2 (<= max/4), else the
 *     max (get_init_ra_size); a read larger than the max, its own size up
 *     to the device's largest request (io_max: the tier's max_sectors_kb,
 *     ractl_max_pages). Any other missing read is read as it is and leaves
 *     the stream alone. A window's marker is its first page (the first
 *     window's: the page after the read); a read that reaches it issues
 *     the next window after the last, x4 while < max/16, x2 while
 *     <= max/2, then the max (get_next_ra_size), the max being what the
 *     read has left past the marker when that is more (so a 248 KiB read
 *     past a 128 KiB window's marker with 144 KiB left issues 144 KiB);
 *     with ra_kernel 6.17 or later (ra_window; not the default) its end is
 *     then rounded down to its folios' size where that leaves it pages, the
 *     folios two orders above the last window's (the first window's order
 *     0) and the size at most the lowest set bit of the max in pages
 *     (mm/readahead.c, page_cache_async_ra; "mm/readahead: Terminate async
 *     readahead on natural boundary", Ryan Roberts; its v5 posted on
 *     2025-06-09, after 6.16-rc1, so first in 6.17): a stream whose first
 *     window ends at 48 KiB goes on as 48+16, 64+32, 96+32, 128+64,
 *     192+64, 256+128 KiB, as the RecordIO file's did in a block-mode
 *     trace on 6.18 (bench/README.md), where 6.1 sends 48+64, 112+128;
 *     but over that whole file it sends 578 requests for block mode's
 *     573 (the default 566: a large read's windows, sized by what the
 *     read has left, are aligned otherwise by the kernel), so the default
 *     stays the placement before 6.17;
 *     a read that reaches the new window's marker too issues the next, so
 *     a read is covered by windows, never sent in pieces of its own. The
 *     max defaults to 128 KiB, Linux's VM_READAHEAD_PAGES
 *     (include/linux/mm.h). Measured: the block-mode traces of
 *     bench/fs_fidelity.sh (ext4 on the loop device, read_ahead_kb 128)
 *     read each npz file in 19 requests, the model 19 (test_tier_cache's
 *     test_kernel_windows); the RecordIO file in 573, the model 569.
 *     The bytes of a read that its own windows brought count as device
 *     bytes, not hits.
 *     The order of reads in flight together does not count, as in Linux,
 *     whose state is the window (mm/readahead.c, page_cache_async_ra: a
 *     read that reaches the marker pushes the window on wherever the read
 *     before it ended) and which sends a window in several requests at
 *     once that a FUSE daemon or a device takes in any order: while a
 *     stream's reads are in flight, a read in its windows or adjacent
 *     moves it on past every marker before the read's end; a read past
 *     the windows, or right after such a read still in flight, is read
 *     as it is and counted, lowest first, once the windows reach it or a
 *     read below opens the stream (readahead, ra_absorb): every order of
 *     the same reads leaves the windows their offset order leaves
 *     (test_tier_cache's test_ra_out_of_order). Reads that do not overlap
 *     in time follow the rule above.
 *     The reader's posix_fadvise on the file (req->advice; the replay
     takes it from the wake file's A lines, traces/README.md) sets the
     file's max, spec, mm/fadvise.c (generic_fadvise) of Linux 6.1 and
     6.18 alike: POSIX_FADV_SEQUENTIAL twice the device's
     (f_ra.ra_pages = bdi->ra_pages * 2: a cat, which advises so, reads
     with 256 KiB windows for read_ahead_kb 128, as block mode's device
     trace shows), POSIX_FADV_RANDOM none (FMODE_RANDOM: page_cache_sync_ra
     reads the request's own pages, the model reads the read as it is),
     POSIX_FADV_NORMAL the device's again; WILLNEED, DONTNEED and NOREUSE
     are not modeled, nor the advice's effect on a map's faults.
     A read the kernel's page cache above sends (req->kernel_ra: FUSE
 *     mode, a file opened kernel-cached) has been read ahead by the kernel
 *     already: the model adds no window to it, so that one readahead
 *     stands between the reader and the device, as in block mode.
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
 * to the page. Its bookkeeping is kept per extent, a run of a file's
 * chunks that follow each other in LRU order (the lowest least recently
 * used, as a sequential read leaves them), all of whose inner chunks are
 * whole and clean: a file read in order is one extent however long, a
 * hit on it costs per extent, not per chunk, and reclaim takes its chunks
 * one by one from the front without a lookup. Extents are split when a chunk
 * inside one is touched, dirtied or partly dropped, joined when touched in
 * order again, and shrunk from the front by reclaim; each file's extents
 * sit in a tree (a treap by first chunk) under a file table. Dirty chunks
 * are extents of their own. At most mem / 32 KiB chunks are cached (2M for
 * mem = 64 GiB), so at most that many extents of 64 bytes, a cache line
 * each (the pool is allocated untouched and pages in as it fills; a dirty
 * extent's list links and time, 16 bytes, sit in a side table indexed
 * alike that a run with no writes never touches) and file records: 4 bytes
 * in a table indexed by the file's id for ids below 2^24 (64 MiB of
 * address space, paged in where files are: a virtual run's files are
 * numbered densely, and an index costs one memory access where a hash
 * probe cost several), 16 bytes in a hash table for the rest; an extent of more than two chunks keeps its chunks' ready times in an
 * array of 8 bytes a chunk. The chunk cap means a cache full of chunks
 * holding fewer than 8 pages each holds less than mem — the price of
 * bounded memory for a virtual ImageNet-scale run with a 64 GiB+ cache. A
 * chunk has one `ready` time (when its pages in flight have all arrived):
 * a hit on a page of a chunk still being read waits for the whole chunk,
 * except that a chunk filled by two reads keeps the first one's time for
 * the pages it brought (LATE slots, late_note): a readahead stream's
 * windows start inside chunks, and its reader must not wait for the
 * window after the one it reads (measured: bench/fs_fidelity.sh's RecordIO
 * reader on ssd-cloud ran 1.65x block mode through FUSE with one time per
 * chunk, 1.05x with two). A third read into such a chunk makes the
 * earlier pages wait for the second's time: later than they came, never
 * sooner.
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
 * the rule above; one readahead stream per file (16 streams at once);
 * large folios (ext4's since 6.16) are not modeled apart from their
 * effect on the windows' sizes, which the traces above measured.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "tier/tier_layer.h"

#define PAGE 4096ULL
#define CHUNK (128 * 1024ULL)
#define PPC 32 /* pages per chunk */
#define FULL UINT32_MAX /* every page of a chunk */
#define NIL UINT32_MAX
#define WB_SLOTS 32
#define NRA 16 /* ra_lru packs a slot in 4 bits: exactly 16 */
/* chunks whose pages in flight keep two ready times: a readahead stream
 * has at most two windows in flight and two chunks under each, so 64 slots
 * hold the 16 streams' with room for collisions (assumed; low 8, high any) */
#define LATE 64
#define RUN_ENTS 64 /* chunks one device request may span: 8 MiB */
#define DEFAULT_MEM_BPS 10e9
#define DEFAULT_RA_MAX (128 * 1024ULL)
#define DEFAULT_IO_MAX (1280 * 1024ULL) /* BLK_DEF_MAX_SECTORS_CAP */
#define EXPIRE_NS (30 * TS_NS_PER_S)
#define RIN 2 /* ready times an extent holds in itself */
#define DENSE (1ULL << 24) /* file ids below: the direct file table's */
/* reads readahead() keeps, of all files, for a stream to count reads in
 * flight that came out of order (ra_absorb): the requests two windows are
 * sent in at once (a FUSE daemon takes a 128 KiB window in requests of
 * max_pages, 32 pages by default; io_max's 1,280 KiB in 10) beside other
 * files' reads in flight (assumed; low 8, high any) */
#define NRECENT 32
/* chunks whose map-window marker pages the cache keeps (struct mkslot,
 * direct-mapped by file and chunk): the kernel flags one page of every
 * window it allocates (PG_readahead) and keeps the flag until the page is
 * touched or reclaimed, however many windows have been read; a chunk that
 * loses its slot to another forgets its flags (assumed; low 1,024: with
 * it test_mapped_random's 1,500 touches of a 384-chunk file send 4 fewer
 * requests than with all flags kept; high any: only memory, 24 bytes a
 * slot) */
#define NMK 4096
_Static_assert(NRA == 16, "ra_lru holds 16 slots of 4 bits");

/*
 * An extent: chunks [lo, lo + n) of one file that follow each other in LRU
 * order, lo the least recently used, so that the chunk-level LRU is the
 * extents' list read chunk by chunk. Every chunk between the first and
 * the last has all of its pages and none dirty; the first and the last
 * have their own masks (equal when n = 1). Only a one-chunk extent has
 * dirty pages (its list links and time: the cache's dl[], by index). Each
 * chunk keeps its own `ready` time, in the extent (RIN of them) or in an
 * array on the heap (struct rheap) that r.heap points to while r.in[1]
 * holds HEAP: a ready time is a virtual time in ns, never UINT64_MAX
 * (584 years), so the tag tells the two apart. 64 bytes: one cache line.
 */
struct ext {
	uint64_t file, lo;
	uint32_t n, first, last, dirty;
	uint32_t lprev, lnext; /* lnext links the free list too */
	uint32_t left, right;  /* the file's tree, by lo */
	union {
		uint64_t in[RIN]; /* in[1] == HEAP: the times are r.heap's */
		struct rheap *heap;
	} r;
};
#define HEAP UINT64_MAX
_Static_assert(sizeof(struct ext) == 64, "struct ext is one cache line");

/* An extent's ready times on the heap: chunk lo + j's is t[r0 + j]. */
struct rheap {
	uint32_t cap, r0;
	uint64_t t[];
};

/* A dirty extent's place in the dirty list, oldest first, and when it
 * turned dirty: set while its `dirty` mask is not 0. */
struct dlink {
	uint64_t dirtied;
	uint32_t dprev, dnext;
};

/* Per cached file of an id >= DENSE: the root of its extents' tree (+ 1;
 * 0 = an empty slot of the file table). Keyed by file, linear probing. */
struct fslot {
	uint64_t file;
	uint32_t root1, pad;
};

struct wbslot {
	uint64_t free;	/* the slot's last write completes then */
	uint64_t bytes; /* bytes of that write */
	uint64_t file, idx; /* the chunk it writes */
};

/* A chunk whose pages came in two reads, the later one still ahead: the
 * chunk's `ready` is the later read's (late), and the pages it did not
 * bring were there by early. One slot per chunk, direct-mapped (LATE
 * slots): a chunk that lost its slot to another waits for its whole
 * `ready`, as without the slot. */
struct late {
	uint64_t file, idx;
	uint64_t early, late;
	uint32_t mask; /* the pages the later read brought */
};

/* A readahead stream: its file is the cache's ra_file[] of the same slot. */
struct ra {
	uint64_t prev;	 /* the end of the file's last read */
	uint64_t ra_end; /* the end of the newest window */
	uint64_t window; /* its size, 0 = no stream */
	uint64_t marker; /* the page that issues the next one when read */
	uint64_t busy;	 /* the reads that moved it are in flight until then */
	uint64_t seen;	 /* and its file's reads (ra_note) */
	int prev_r;	 /* the c->recent slot of the read that ended at prev */
	/* For a mapped read: marker is the page the kernel expects
	 * (ra->start + size - async_size), window 0 means no readahead
	 * state, and order is the folio order of its last window
	 * (ra->order). The windows' marker pages are the cache's mk[]. */
	unsigned order;
};

/* The marker pages (PG_readahead) of a map's windows in one chunk of a
 * file: bit p of mask for page p of the chunk (0: a free slot). */
struct mkslot {
	uint64_t file, idx;
	uint32_t mask;
};

/* A read readahead() saw, in flight until `until` (0: not known yet). */
struct recent {
	uint64_t file, p0, p1, end, until;
	int slot;    /* its file's stream slot */
	bool moved;  /* it moved the stream */
	bool parked; /* a miss read as it was, out of the stream's order */
};

struct cache {
	struct ts_tier_layer l;
	uint64_t mem, dirty_limit, bg_limit, ra_max;
	uint64_t io_max; /* the device's largest request: a large read's windows */
	/* read()'s async windows' ends rounded down to their folios' size
	 * (ra_kernel 6.17 on: ra_window; a map's windows are, always) */
	bool ra_align;
	double mem_bps;
	ts_tier_evict_fn evict;
	void *evict_ctx;
	ts_tier_brk_fn brk; /* a file's breaks in its disk blocks, or NULL */
	void *brk_ctx;

	struct ext *e;
	struct dlink *dl; /* per extent, as e */
	size_t e_len, dl_len, fs_len; /* bytes mapped for e, dl, fs */
	uint32_t nmax, nused, freelist;
	/* The root (+ 1, 0: none) of each file's tree: the file's entry of
	 * dense[] when its id is below DENSE (a virtual run numbers its files
	 * from 0 up), else its slot of fs[], a hash table at most 3/4 full
	 * that grows up to nslot_max > nmax. */
	uint32_t *dense;
	struct fslot *fs;
	uint64_t nslot, nslot_max, nfiles;
	uint64_t fmemo; /* the slot ffind found last */
	uint64_t entries, evicted; /* chunks */
	uint32_t lru_head, lru_tail;	 /* most / least recently used */
	uint32_t dirty_head, dirty_tail; /* oldest / newest dirty */
	uint64_t resident, dirty;	 /* bytes; dirty = not yet under writeback */
	struct wbslot wb[WB_SLOTS];
	uint64_t wb_last; /* the latest completion of any slot */
	/* The readahead streams: slot k follows ra_file[k] when bit k of
	 * ra_live is set, and byte k of ra_tag holds a tag of that file
	 * (ra_tagof), so that a request for a file with no stream, the usual
	 * one of a shuffled epoch, is told so by one word compare instead of
	 * NRA. ra_lru lists the slots least recently used first, a slot per
	 * 4 bits from the lowest (unused ones first, in slot order), so a
	 * new stream takes slot ra_lru & 15. */
	struct ra ra[NRA];
	uint64_t ra_file[NRA];
	uint32_t ra_live;
	uint64_t ra_lru;
	uint64_t ra_tag[NRA / 8];
	/* the latest reads readahead() saw (ra_recent), the next slot to
	 * take */
	struct recent recent[NRECENT];
	int recent_next;

	/* A device read being gathered over consecutive missing pages of
	 * run_n chunks, the last of them run_last. */
	uint64_t run_file, run_off, run_len, run_last;
	unsigned run_n;
	/* The extent that held run_last when it joined the run (NIL: none):
	 * run_flush finds the run's chunks there without a lookup while it
	 * still holds them (a freed extent holds none: n = 0). */
	uint32_t run_ext;
	struct late late[LATE];
	struct mkslot mk[NMK];
	/* What the last fill left, when it brought pages [fresh_p0, fresh_p1)
	 * of fresh_file in whole: none of their chunks cached before, one
	 * device request for all of them, all in the extent at the front of
	 * the LRU list, all ready at fresh_ready (its answer). A fill of the
	 * same pages right after it (a read after the readahead window that
	 * holds it) would only find them there, ready then: fresh tells it
	 * so. fresh_ok is cleared by every fill and every request. */
	uint64_t fresh_file, fresh_p0, fresh_p1, fresh_ready;
	bool fresh_ok;

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

static uint64_t fhome(const struct cache *c, uint64_t file)
{
	return reduce(mix(file, 0), c->nslot);
}

/* The file table's slot of @file, or the empty slot ending its probe. A
 * request looks its file up several times: the last slot found is tried
 * first (a file has one slot, so a match is it). */
static uint64_t ffind(struct cache *c, uint64_t file)
{
	uint64_t s = c->fmemo;
	if (s < c->nslot && c->fs[s].root1 && c->fs[s].file == file)
		return s;
	for (s = fhome(c, file); c->fs[s].root1 && c->fs[s].file != file;)
		s = wrap(c, s + 1);
	c->fmemo = s;
	return s;
}

/* The root extent of @file's tree, NIL when none of its chunks is cached. */
static uint32_t froot(struct cache *c, uint64_t file)
{
	if (file < DENSE)
		return c->dense[file] - 1;
	return c->fs[ffind(c, file)].root1 - 1;
}

/* Where @file's entry of the file table is (its home slot, for a hashed
 * id): what to load ahead of a lookup. The caller prefetches it itself:
 * GCC takes a function that only prefetches for one without effects and
 * drops its calls. */
static const void *fentry(const struct cache *c, uint64_t file)
{
	return file < DENSE ? (const void *)&c->dense[file] : (const void *)&c->fs[fhome(c, file)];
}

static void *table_new(size_t len);
static void table_free(void *p, size_t len);

/* Doubles the file table (up to nslot_max), so that it stays at most 3/4
 * full: it grows with the files cached, not with mem. Out of memory it
 * aborts, as rdy_reserve does: a table that cannot grow fills up, and a
 * full table's probe (ffind) would never end. */
static void ftable_grow(struct cache *c)
{
	uint64_t n = TS_MIN(2 * c->nslot, c->nslot_max);
	if (n == c->nslot)
		return;
	struct fslot *fs = table_new(n * sizeof(*fs)), *old = c->fs;
	if (!fs)
		abort(); /* 16 bytes per cached file: not recoverable */
	uint64_t on = c->nslot;
	c->fs = fs;
	c->nslot = n;
	for (uint64_t j = 0; j < on; j++) {
		if (!old[j].root1)
			continue;
		uint64_t s = fhome(c, old[j].file);
		while (fs[s].root1)
			s = wrap(c, s + 1);
		fs[s] = old[j];
	}
	table_free(old, c->fs_len);
	c->fs_len = n * sizeof(*fs);
}

/* ---- The per-file tree (a treap on lo; priorities hash the index) ------ */

static uint32_t prio(uint32_t i)
{
	return (uint32_t)mix(i, 0x7f4a7c15);
}

static uint32_t tr_insert(struct cache *c, uint32_t t, uint32_t x)
{
	if (t == NIL)
		return x;
	struct ext *n = &c->e[t];
	if (c->e[x].lo < n->lo) {
		n->left = tr_insert(c, n->left, x);
		if (prio(n->left) > prio(t)) {
			uint32_t l = n->left;
			n->left = c->e[l].right;
			c->e[l].right = t;
			return l;
		}
	} else {
		n->right = tr_insert(c, n->right, x);
		if (prio(n->right) > prio(t)) {
			uint32_t r = n->right;
			n->right = c->e[r].left;
			c->e[r].left = t;
			return r;
		}
	}
	return t;
}

/* Joins trees @a and @b, every key of @a below every key of @b. */
static uint32_t tr_join(struct cache *c, uint32_t a, uint32_t b)
{
	if (a == NIL)
		return b;
	if (b == NIL)
		return a;
	if (prio(a) > prio(b)) {
		c->e[a].right = tr_join(c, c->e[a].right, b);
		return a;
	}
	c->e[b].left = tr_join(c, a, c->e[b].left);
	return b;
}

static uint32_t tr_delete(struct cache *c, uint32_t t, uint32_t x)
{
	if (t == x)
		return tr_join(c, c->e[x].left, c->e[x].right);
	struct ext *n = &c->e[t];
	if (c->e[x].lo < n->lo)
		n->left = tr_delete(c, n->left, x);
	else
		n->right = tr_delete(c, n->right, x);
	return t;
}

static void index_add(struct cache *c, uint32_t x)
{
	uint64_t file = c->e[x].file;
	c->e[x].left = c->e[x].right = NIL;
	if (file < DENSE) {
		c->dense[file] = tr_insert(c, c->dense[file] - 1, x) + 1;
		return;
	}
	uint64_t s = ffind(c, file);
	if (!c->fs[s].root1 && 4 * (c->nfiles + 1) > 3 * c->nslot && c->nslot < c->nslot_max) {
		ftable_grow(c);
		s = ffind(c, c->e[x].file);
	}
	struct fslot *f = &c->fs[s];
	if (!f->root1) {
		*f = (struct fslot){ .file = c->e[x].file };
		c->nfiles++;
	}
	f->root1 = tr_insert(c, f->root1 - 1, x) + 1;
}

/* Empties slot @s of a linear-probing table, moving back the entries after
 * it that could not sit in their home slot while it was taken. */
static void funslot(struct cache *c, uint64_t s)
{
	uint64_t hole = s;
	for (uint64_t j = wrap(c, hole + 1); c->fs[j].root1; j = wrap(c, j + 1)) {
		uint64_t h = fhome(c, c->fs[j].file);
		if (wrap(c, j + c->nslot - h) >= wrap(c, j + c->nslot - hole)) {
			c->fs[hole] = c->fs[j];
			hole = j;
		}
	}
	memset(&c->fs[hole], 0, sizeof(c->fs[hole]));
	c->nfiles--;
}

static void index_del(struct cache *c, uint32_t x)
{
	uint64_t file = c->e[x].file;
	if (file < DENSE) {
		c->dense[file] = tr_delete(c, c->dense[file] - 1, x) + 1;
		return;
	}
	uint64_t s = ffind(c, file);
	uint32_t r = tr_delete(c, c->fs[s].root1 - 1, x);
	if (r == NIL)
		funslot(c, s);
	else
		c->fs[s].root1 = r + 1;
}

/* The extent of @file holding chunk @idx, NIL when it is not cached; then
 * *next is the first chunk after @idx that is (UINT64_MAX: none). */
static uint32_t ext_at(struct cache *c, uint64_t file, uint64_t idx, uint64_t *next)
{
	uint32_t t = froot(c, file), below = NIL;
	uint64_t nx = UINT64_MAX;
	while (t != NIL) {
		const struct ext *x = &c->e[t];
		if (x->lo <= idx) {
			below = t;
			t = x->right;
		} else {
			nx = x->lo;
			t = x->left;
		}
	}
	if (below != NIL && idx < c->e[below].lo + c->e[below].n)
		return below;
	if (next)
		*next = nx;
	return NIL;
}

/* The highest cached chunk of @file (its tree's rightmost extent). */
static uint64_t file_max(const struct cache *c, uint32_t t)
{
	while (c->e[t].right != NIL)
		t = c->e[t].right;
	return c->e[t].lo + c->e[t].n - 1;
}

/* ---- Ready times ------------------------------------------------------- */

static bool on_heap(const struct ext *x)
{
	return x->r.in[1] == HEAP;
}

static uint64_t *rdy(struct ext *x)
{
	return on_heap(x) ? x->r.heap->t + x->r.heap->r0 : x->r.in;
}

/* A heap array for @cap ready times, r0 = 0. */
static struct rheap *rheap_new(uint32_t cap)
{
	struct rheap *h = malloc(sizeof(*h) + cap * sizeof(h->t[0]));
	if (!h)
		abort(); /* a few bytes per cached chunk: not recoverable */
	h->cap = cap;
	h->r0 = 0;
	return h;
}

/* @x's times are @h's from its r0 on. */
static void rdy_set_heap(struct ext *x, struct rheap *h)
{
	x->r.heap = h;
	x->r.in[1] = HEAP;
}

/* Room for @n ready times from the extent's first chunk. */
static void rdy_reserve(struct ext *x, uint32_t n)
{
	if (!on_heap(x)) {
		if (n <= RIN)
			return;
		struct rheap *h = rheap_new(TS_MAX(2 * n, 8));
		memcpy(h->t, x->r.in, x->n * sizeof(h->t[0]));
		rdy_set_heap(x, h);
		return;
	}
	struct rheap *h = x->r.heap;
	if (h->r0 + n <= h->cap)
		return;
	memmove(h->t, h->t + h->r0, x->n * sizeof(h->t[0]));
	h->r0 = 0;
	if (n <= h->cap)
		return;
	uint32_t cap = TS_MAX(2 * n, 8);
	if (!(h = realloc(h, sizeof(*h) + cap * sizeof(h->t[0]))))
		abort();
	h->cap = cap;
	x->r.heap = h;
}

static void rdy_free(struct ext *x)
{
	if (on_heap(x))
		free(x->r.heap);
	x->r.in[0] = x->r.in[1] = 0;
}

/* Back to the extent itself once its chunks fit there. */
static void rdy_shrink(struct ext *x)
{
	if (on_heap(x) && x->n <= RIN) {
		struct rheap *h = x->r.heap;
		uint64_t v[RIN] = { 0, 0 };
		memcpy(v, h->t + h->r0, x->n * sizeof(*v));
		free(h);
		memcpy(x->r.in, v, sizeof(v));
	}
}

/* Appends @n ready times (@v) after the extent's chunks (not counted yet). */
static void rdy_append(struct ext *x, const uint64_t *v, uint32_t n)
{
	rdy_reserve(x, x->n + n);
	memcpy(rdy(x) + x->n, v, n * sizeof(*v));
}

/* ---- LRU and dirty lists ----------------------------------------------- */

static void lru_unlink(struct cache *c, uint32_t i)
{
	struct ext *e = &c->e[i];
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
	struct ext *e = &c->e[i];
	e->lprev = NIL;
	e->lnext = c->lru_head;
	if (c->lru_head != NIL)
		c->e[c->lru_head].lprev = i;
	c->lru_head = i;
	if (c->lru_tail == NIL)
		c->lru_tail = i;
}

/* Puts @x in the LRU list just more recent than @at. */
static void lru_after(struct cache *c, uint32_t at, uint32_t x)
{
	struct ext *a = &c->e[at], *e = &c->e[x];
	e->lnext = at;
	e->lprev = a->lprev;
	if (a->lprev != NIL)
		c->e[a->lprev].lnext = x;
	else
		c->lru_head = x;
	a->lprev = x;
}

static void dirty_unlink(struct cache *c, uint32_t i)
{
	struct dlink *e = &c->dl[i];
	if (e->dprev != NIL)
		c->dl[e->dprev].dnext = e->dnext;
	else
		c->dirty_head = e->dnext;
	if (e->dnext != NIL)
		c->dl[e->dnext].dprev = e->dprev;
	else
		c->dirty_tail = e->dprev;
	e->dprev = e->dnext = NIL;
}

/* Extent @i, dirty since @t, to the back of the dirty list. */
static void dirty_back(struct cache *c, uint32_t i, uint64_t t)
{
	struct dlink *e = &c->dl[i];
	e->dirtied = t;
	e->dnext = NIL;
	e->dprev = c->dirty_tail;
	if (c->dirty_tail != NIL)
		c->dl[c->dirty_tail].dnext = i;
	c->dirty_tail = i;
	if (c->dirty_head == NIL)
		c->dirty_head = i;
}

/* The bits set in @m (without a popcount instruction in the baseline ISA,
 * __builtin_popcount is a library call). */
static inline uint64_t pc32(uint32_t m)
{
	m = m - ((m >> 1) & 0x55555555U);
	m = (m & 0x33333333U) + ((m >> 2) & 0x33333333U);
	m = (m + (m >> 4)) & 0x0f0f0f0fU;
	return (m * 0x01010101U) >> 24;
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

/* ---- Extents ------------------------------------------------------------ */

/* The present pages of chunk @idx of extent @x. */
static uint32_t mask_of(const struct ext *x, uint64_t idx)
{
	return idx == x->lo ? x->first : idx == x->lo + x->n - 1 ? x->last : FULL;
}

static uint64_t ext_pages(const struct ext *x)
{
	uint64_t p = (uint64_t)pc32(x->first);
	if (x->n > 1)
		p += (uint64_t)pc32(x->last) + (uint64_t)(x->n - 2) * PPC;
	return p;
}

static uint32_t ext_alloc(struct cache *c)
{
	uint32_t i;
	if (c->freelist != NIL) {
		i = c->freelist;
		c->freelist = c->e[i].lnext;
	} else {
		i = c->nused++;
	}
	/* Field by field: a memset of the 64 bytes was a `rep stos`, whose
	 * start-up cost more than the stores (one new extent per file a
	 * shuffled epoch reads). dl[i] is set when it turns dirty. */
	_Static_assert(sizeof(struct ext) == 64, "a field added to struct ext: set it here");
	struct ext *e = &c->e[i];
	e->file = e->lo = 0;
	e->n = e->first = e->last = e->dirty = 0;
	e->lprev = e->lnext = e->left = e->right = 0;
	e->r.in[0] = e->r.in[1] = 0;
	return i;
}

static void ext_release(struct cache *c, uint32_t i)
{
	rdy_free(&c->e[i]);
	c->e[i].file = 0;
	c->e[i].n = 0;
	c->e[i].lnext = c->freelist;
	c->freelist = i;
}

/* Takes extent @i and its chunks out of the cache. */
static void ext_remove(struct cache *c, uint32_t i)
{
	struct ext *e = &c->e[i];
	index_del(c, i);
	lru_unlink(c, i);
	if (e->dirty) {
		dirty_unlink(c, i);
		c->dirty -= (uint64_t)pc32(e->dirty) * PAGE;
	}
	c->resident -= ext_pages(e) * PAGE;
	c->entries -= e->n;
	ext_release(c, i);
}

/* Splits clean extent @i before chunk @at (lo < at < lo + n): @i keeps the
 * chunks below, the new extent returned the rest, just more recent in the
 * LRU list. The larger part keeps the ready array; the smaller is copied. */
static uint32_t ext_split(struct cache *c, uint32_t i, uint64_t at)
{
	uint32_t j = ext_alloc(c);
	struct ext *e = &c->e[i], *f = &c->e[j];
	uint32_t k = (uint32_t)(at - e->lo), n = e->n;
	f->file = e->file;
	f->lo = at;
	f->last = e->last;
	f->first = n - k == 1 ? e->last : FULL;
	if (k >= n - k || !on_heap(e)) {
		rdy_append(f, rdy(e) + k, n - k);
		e->n = k;
	} else {
		/* The upper part takes the array; the lower part is copied. */
		uint64_t v[RIN] = { 0, 0 }, *src = rdy(e);
		struct rheap *low = NULL, *h = e->r.heap;
		if (k <= RIN) {
			memcpy(v, src, k * sizeof(*v));
		} else {
			low = rheap_new(k);
			memcpy(low->t, src, k * sizeof(*src));
		}
		h->r0 += k;
		rdy_set_heap(f, h);
		e->n = k;
		if (low)
			rdy_set_heap(e, low);
		else
			memcpy(e->r.in, v, sizeof(v));
	}
	f->n = n - k;
	e->last = k == 1 ? e->first : FULL;
	rdy_shrink(e);
	rdy_shrink(f);
	index_add(c, j);
	lru_after(c, i, j);
	return j;
}

/* Can clean extent @b, just more recent than @a, join it? */
static bool can_join(const struct ext *a, const struct ext *b)
{
	return a->file == b->file && a->lo + a->n == b->lo && !a->dirty && !b->dirty &&
	       (a->n == 1 || a->last == FULL) && (b->n == 1 || b->first == FULL);
}

/* Joins extent @b into @a (can_join); returns @a. */
static uint32_t ext_join(struct cache *c, uint32_t a, uint32_t b)
{
	struct ext *x = &c->e[a], *y = &c->e[b];
	rdy_append(x, rdy(y), y->n);
	x->n += y->n;
	x->last = y->last;
	index_del(c, b);
	lru_unlink(c, b);
	ext_release(c, b);
	return a;
}

/* Chunks [a, b] of extent @i to the front of the LRU list, in order, as
 * touching each in turn does; joined to the extent that was at the front
 * when @join allows. Returns the extent that holds them. */
static uint32_t touch_range(struct cache *c, uint32_t i, uint64_t a, uint64_t b, bool join)
{
	struct ext *e = &c->e[i];
	if (c->lru_head == i && b == e->lo + e->n - 1)
		return i; /* already the most recent, in that order */
	if (a > e->lo)
		i = ext_split(c, i, a);
	if (b < c->e[i].lo + c->e[i].n - 1)
		ext_split(c, i, b + 1);
	lru_unlink(c, i);
	uint32_t h = c->lru_head;
	lru_front(c, i);
	/* @h is now just behind @i: @i joins it, which takes its place. */
	if (join && h != NIL && can_join(&c->e[h], &c->e[i]))
		i = ext_join(c, h, i);
	return i;
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
	struct ext *e = &c->e[i];
	struct ts_tier_done scratch = { 0 };
	uint32_t m = e->dirty & mask;
	uint64_t end = t, bytes = 0;
	while (m) {
		int p = __builtin_ctz(m);
		int q = run_end(m, p);
		struct ts_tier_req w = { .op = TS_TIER_WRITE,
					 .file = e->file,
					 .off = e->lo * CHUNK + (uint64_t)p * PAGE,
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
	c->wb[k].idx = e->lo;
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
		const struct dlink *h = &c->dl[c->dirty_head];
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
		uint32_t next = c->dl[i].dnext;
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

/* Drops the least recently used chunk: the first of the LRU tail extent. */
static void evict_one(struct cache *c, uint64_t now)
{
	uint32_t v = c->lru_tail;
	if (v == NIL)
		return;
	struct ext *e = &c->e[v];
	if (e->dirty) {
		/* Reclaim writes dirty pages first, when a writeback slot frees. */
		int k = slot_min(c);
		wb_entry(c, k, v, TS_MAX(now, c->wb[k].free));
	}
	if (c->evict)
		c->evict(c->evict_ctx, e->file, e->lo * CHUNK, CHUNK);
	c->evicted++;
	if (e->n == 1) {
		ext_remove(c, v);
		/* The next victim's extent is at hand (lru_unlink wrote it);
		 * fetch what evicting it will read while the caller does other
		 * work: reclaim walks extents the run has not touched for long,
		 * each read from memory otherwise. */
		uint32_t t = c->lru_tail;
		if (t != NIL) {
			const struct ext *n = &c->e[t];
			__builtin_prefetch(fentry(c, n->file), 1);
			if (n->lprev != NIL)
				__builtin_prefetch(&c->e[n->lprev], 1);
		}
		return;
	}
	c->resident -= (uint64_t)pc32(e->first) * PAGE;
	c->entries--;
	e->lo++;
	e->n--;
	e->first = e->n == 1 ? e->last : FULL;
	if (on_heap(e))
		e->r.heap->r0++;
	else
		e->r.in[0] = e->r.in[1];
	rdy_shrink(e);
}

/* Would bringing @add_pages pages into a chunk (@absent: not cached) evict? */
static bool must_evict(const struct cache *c, bool absent, unsigned add_pages)
{
	return c->resident + add_pages * PAGE > c->mem || (absent && c->entries == c->nmax);
}

/* Chunk @idx of @file, held by extent @i (NIL: not cached), touched and
 * made room for @add_pages new pages: returns the extent, at the front of
 * the LRU list, whose last chunk it is (its only one unless @join). */
static uint32_t get_chunk(struct cache *c, uint32_t i, uint64_t file, uint64_t idx,
			  unsigned add_pages, uint64_t now, bool join)
{
	if (i != NIL)
		i = touch_range(c, i, idx, idx, join);
	/* Keep the chunk we fill off the LRU tail while making room. */
	while (c->resident + add_pages * PAGE > c->mem && c->lru_tail != NIL &&
	       (i == NIL || c->e[c->lru_tail].lo != idx || c->e[c->lru_tail].file != file))
		evict_one(c, now);
	if (i != NIL)
		return i;
	if (c->entries == c->nmax)
		evict_one(c, now);
	c->entries++;
	uint32_t h = c->lru_head;
	if (join && h != NIL) {
		struct ext *x = &c->e[h];
		if (x->file == file && x->lo + x->n == idx && !x->dirty &&
		    (x->n == 1 || x->last == FULL)) {
			rdy_reserve(x, x->n + 1);
			rdy(x)[x->n++] = 0;
			x->last = 0;
			return h;
		}
	}
	i = ext_alloc(c);
	struct ext *e = &c->e[i];
	e->file = file;
	e->lo = idx;
	e->n = 1;
	index_add(c, i);
	lru_front(c, i);
	return i;
}

static uint32_t page_mask(uint64_t pfirst, uint64_t plast, uint64_t idx)
{
	uint64_t base = idx * PPC;
	uint64_t a = pfirst > base ? pfirst - base : 0;
	uint64_t b = plast < base + PPC ? plast - base : PPC; /* exclusive, <= 32 */
	return (uint32_t)(((1ULL << b) - 1) & ~((1ULL << a) - 1));
}

/* Sets the present pages of chunk @idx, the last of extent @x. */
static void set_last(struct ext *x, uint32_t m)
{
	x->last = m;
	if (x->n == 1)
		x->first = m;
}

/* Extent @i cut down to its chunks in [a, b] (which it holds some of),
 * the rest split off in place. */
static uint32_t ext_cut(struct cache *c, uint32_t i, uint64_t a, uint64_t b)
{
	if (a > c->e[i].lo)
		i = ext_split(c, i, a);
	if (b < c->e[i].lo + c->e[i].n - 1)
		ext_split(c, i, b + 1);
	return i;
}

/* Drops pages [p0, p1) of @file, dirty ones included; p1 past the file's
 * last cached chunk means to its end. */
static void drop_pages(struct cache *c, uint64_t file, uint64_t p0, uint64_t p1)
{
	uint32_t r = froot(c, file);
	if (r == NIL)
		return; /* nothing of the file is cached */
	uint64_t fmax = file_max(c, r);
	if (fmax < UINT64_MAX / PPC)
		p1 = TS_MIN(p1, (fmax + 1) * PPC);
	if (p1 <= p0)
		return;
	uint64_t idx = p0 / PPC, last = (p1 - 1) / PPC;
	while (idx <= last) {
		uint64_t next = UINT64_MAX;
		uint32_t i = ext_at(c, file, idx, &next);
		if (i == NIL) {
			idx = next;
			continue;
		}
		uint64_t hi = TS_MIN(last, c->e[i].lo + c->e[i].n - 1);
		/* The range's chunks whose pages all go, and those in part. */
		uint32_t m = page_mask(p0, p1, idx);
		if (m == FULL) {
			uint64_t b = page_mask(p0, p1, hi) == FULL ? hi : hi - 1;
			if (b >= idx) {
				ext_remove(c, ext_cut(c, i, idx, b));
				idx = b + 1;
				continue;
			}
		}
		i = ext_cut(c, i, idx, idx);
		struct ext *e = &c->e[i];
		uint32_t drop = e->first & m, dd = e->dirty & m;
		c->resident -= (uint64_t)pc32(drop) * PAGE;
		c->dirty -= (uint64_t)pc32(dd) * PAGE;
		set_last(e, e->first & ~m);
		e->dirty &= ~m;
		if (!e->dirty && dd)
			dirty_unlink(c, i);
		if (!e->first)
			ext_remove(c, i);
		idx++;
	}
}

/* ---- Reads -------------------------------------------------------------- */

static struct late *late_slot(struct cache *c, uint64_t file, uint64_t idx)
{
	return &c->late[reduce(mix(file, idx), LATE)];
}

/* A read of pages @mine of chunk @idx completes at @d; the chunk's other
 * pages, @before, are there by @old, its ready time so far. When @d comes
 * later, the chunk's slot remembers @old for them, so that a read of those
 * pages alone does not wait for this one: a readahead window that starts
 * inside a chunk another window is still filling (Linux's windows are not
 * aligned to the model's chunks) would otherwise make the reader of the
 * earlier window wait for the later, and a stream that keeps one window
 * ahead of its reader would read one window per device latency. */
static void late_note(struct cache *c, uint64_t file, uint64_t idx, uint32_t before,
		      uint32_t mine, uint64_t old, uint64_t d)
{
	struct late *s = late_slot(c, file, idx);
	bool same = s->file == file && s->idx == idx && s->late;
	if (d > old && before) {
		/* pages of an earlier second read (same) came by old too */
		*s = (struct late){ .file = file, .idx = idx, .early = old, .late = d, .mask = mine };
	} else if (same && d > old) {
		s->late = 0; /* every page is this read's: the chunk's time is theirs */
	} else if (same && s->late == old && d > s->early) {
		s->mask |= mine; /* by d <= late: told late, never too early */
	}
}

/* When pages @want of chunk @idx, ready at @t, are there: sooner than @t
 * when they all came before the chunk's latest read. */
static uint64_t late_ready(struct cache *c, uint64_t file, uint64_t idx, uint32_t want, uint64_t t)
{
	const struct late *s = late_slot(c, file, idx);
	if (s->late && s->late == t && s->file == file && s->idx == idx && !(want & s->mask))
		return s->early;
	return t;
}

/* Sends the gathered run to the device; its chunks are ready at completion.
 * A run over a break in its file's disk blocks (c->brk: two extents with
 * a gap, tier/fsmeta.h) goes as one request per piece, all sent at @now
 * (mpage_readahead submits the bio it built at the gap and goes on with
 * a new one), the run ready when the last completes. */
static uint64_t run_flush(struct cache *c, uint64_t now, struct ts_tier_done *done)
{
	if (!c->run_len)
		return now;
	uint64_t d = now, end = c->run_off + c->run_len;
	for (uint64_t at = c->run_off; at < end;) {
		uint64_t b = c->brk ? c->brk(c->brk_ctx, c->run_file, at, end) : end;
		b = b > at && b < end ? b : end;
		struct ts_tier_req r = {
			.op = TS_TIER_READ, .file = c->run_file, .off = at, .len = b - at
		};
		/* @done adds up every request, as over fill()'s runs */
		uint64_t t = ts_tier_layer_next(&c->l, now, &r, done);
		d = TS_MAX(d, t);
		at = b;
	}
	/* Its chunks are all cached: the run is sent before any eviction. */
	uint64_t idx = c->run_off / CHUNK, last = (c->run_off + c->run_len - 1) / CHUNK;
	uint64_t p0 = c->run_off / PAGE, p1 = (c->run_off + c->run_len) / PAGE;
	while (idx <= last) {
		uint32_t i = c->run_ext;
		if (i == NIL || c->e[i].file != c->run_file || c->e[i].lo > idx ||
		    idx - c->e[i].lo >= c->e[i].n)
			i = ext_at(c, c->run_file, idx, NULL);
		struct ext *e = &c->e[i];
		uint64_t *rv = rdy(e), hi = TS_MIN(last, e->lo + e->n - 1);
		for (; idx <= hi; idx++) {
			uint32_t mine = page_mask(p0, p1, idx);
			late_note(c, c->run_file, idx, mask_of(e, idx) & ~mine, mine,
				  rv[idx - e->lo], d);
			rv[idx - e->lo] = TS_MAX(rv[idx - e->lo], d);
		}
	}
	c->run_len = 0;
	c->run_n = 0;
	return d;
}

/* Bytes of [off, off+len) in pages [pa, pb). */
static uint64_t overlap(uint64_t off, uint64_t len, uint64_t pa, uint64_t pb)
{
	uint64_t a = TS_MAX(off, pa * PAGE), b = TS_MIN(off + len, pb * PAGE);
	return b > a ? b - a : 0;
}

/* Brings pages [p0, p1) of @file in, reading what is missing at @now.
 * Returns the time all of them are there; adds the bytes of
 * [off, off+len) already resident to *hit. Chunks with nothing missing
 * are taken a cached extent's worth at a time: touched in order, as one. */
static uint64_t fill(struct cache *c, uint64_t now, uint64_t file, uint64_t p0, uint64_t p1,
		     uint64_t off, uint64_t len, uint64_t *hit, struct ts_tier_done *done)
{
	/* Chunks [idx, gap) are not cached: only the chunk being filled is
	 * added, and evictions only take chunks away. */
	uint64_t ready = now, last = (p1 - 1) / PPC, gap = 0;
	uint32_t i = NIL;
	bool fresh = true; /* every chunk new, one device request so far */
	c->fresh_ok = false;
	c->run_len = 0;
	c->run_n = 0;
	for (uint64_t idx = p0 / PPC; idx <= last;) {
		uint32_t want = page_mask(p0, p1, idx);
		i = idx < gap ? NIL : ext_at(c, file, idx, &gap);
		uint32_t miss = i == NIL ? want : want & ~mask_of(&c->e[i], idx);
		fresh &= i == NIL;
		if (!miss) {
			struct ext *e = &c->e[i];
			uint64_t hi = TS_MIN(last, e->lo + e->n - 1);
			if (hi > idx && hi == e->lo + e->n - 1 && (page_mask(p0, p1, hi) & ~e->last))
				hi--; /* the extent's last chunk misses pages */
			const uint64_t *r = rdy(e);
			for (uint64_t j = idx; j <= hi; j++) {
				uint64_t t = r[j - e->lo];
				if (t > ready)
					t = late_ready(c, file, j, page_mask(p0, p1, j), t);
				ready = TS_MAX(ready, t);
			}
			if (hit)
				*hit += overlap(off, len, TS_MAX(p0, idx * PPC), TS_MIN(p1, (hi + 1) * PPC));
			touch_range(c, i, idx, hi, true);
			idx = hi + 1;
			continue;
		}
		/* Make the room get_chunk would, in its order (the LRU tail
		 * first), so that the run goes on through a full cache: Linux
		 * reclaims and still sends one request. The run is sent first
		 * only when reclaim reaches one of its own chunks (a read
		 * larger than the cache) or the chunk being filled. */
		unsigned nmiss = (unsigned)pc32(miss); /* counted once: no popcnt */
		while (c->run_len && must_evict(c, i == NIL, nmiss)) {
			const struct ext *t = c->lru_tail == NIL ? NULL : &c->e[c->lru_tail];
			if (!t)
				break;
			if ((t->file == c->run_file && t->lo >= c->run_off / CHUNK &&
			     t->lo <= c->run_last) ||
			    (i != NIL && t->file == file && t->lo == idx)) {
				uint64_t d = run_flush(c, now, done);
				ready = TS_MAX(ready, d);
				fresh = false;
				break;
			}
			evict_one(c, now);
		}
		i = get_chunk(c, i, file, idx, nmiss, now, true);
		struct ext *e = &c->e[i];
		uint32_t have = want & ~miss;
		if (have) {
			uint64_t r = late_ready(c, file, idx, have, rdy(e)[e->n - 1]);
			if (r > now)
				ready = TS_MAX(ready, r);
			/* by runs of pages: [off, off + len)'s bytes in a run
			 * are the sum of its pages' */
			for (uint32_t m = hit ? have : 0; m;) {
				int p = __builtin_ctz(m), q = run_end(m, p);
				*hit += overlap(off, len, idx * PPC + (uint64_t)p, idx * PPC + (uint64_t)q);
				m &= q < PPC ? ~((1U << q) - 1) : 0;
			}
		}
		/* Missing pages: extend the run or start a new one. */
		for (uint32_t m = miss; m;) {
			int p = __builtin_ctz(m), q = run_end(m, p);
			uint64_t o = (idx * PPC + (uint64_t)p) * PAGE, l = (uint64_t)(q - p) * PAGE;
			if (!c->run_len || c->run_off + c->run_len != o || c->run_n == RUN_ENTS) {
				if (c->run_len) { /* an empty run sends nothing */
					fresh = false;
					uint64_t d = run_flush(c, now, done);
					ready = TS_MAX(ready, d);
				}
				c->run_file = file;
				c->run_off = o;
			}
			c->run_len += l;
			if (!c->run_n || c->run_last != idx) {
				c->run_n++;
				c->run_last = idx;
			}
			c->run_ext = i;
			m &= q < PPC ? ~((1U << q) - 1) : 0;
		}
		e = &c->e[i];
		set_last(e, e->last | miss);
		c->resident += (uint64_t)nmiss * PAGE;
		idx++;
	}
	uint64_t d = run_flush(c, now, done);
	ready = TS_MAX(ready, d);
	/* i holds the last chunk; joined, the extent holds them all */
	if (fresh && i != NIL && c->lru_head == i && c->e[i].lo <= p0 / PPC &&
	    c->e[i].lo + c->e[i].n - 1 == last) {
		c->fresh_file = file;
		c->fresh_p0 = p0;
		c->fresh_p1 = p1;
		c->fresh_ready = ready;
		c->fresh_ok = true;
	}
	return ready;
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

/* The tag of @file in ra_tag: a byte of its id's hash. */
static uint64_t ra_tagof(uint64_t file)
{
	return (file * 0x9e3779b97f4a7c15ULL) >> 56;
}

/* The readahead stream of @file, -1 when none: the slots whose tag is
 * @file's, by bytes of ra_tag that equal it (a word's zero bytes, the
 * lowest exact: those above it may be false, and each candidate is
 * checked), then ra_file compared for those only. */
static int ra_find(const struct cache *c, uint64_t file)
{
	const uint64_t lo = 0x0101010101010101ULL, hi = 0x8080808080808080ULL;
	uint64_t rep = ra_tagof(file) * lo;
	for (int w = 0; w < NRA / 8; w++) {
		uint64_t x = c->ra_tag[w] ^ rep;
		for (uint64_t z = (x - lo) & ~x & hi; z; z &= z - 1) {
			int k = w * 8 + __builtin_ctzll(z) / 8;
			if (c->ra_file[k] == file && (c->ra_live >> k & 1))
				return k;
		}
	}
	return -1;
}

/* Slot @k becomes the most recently used: its 4 bits move to the top. */
static void ra_touch(struct cache *c, int k)
{
	uint64_t l = c->ra_lru, x = l ^ ((uint64_t)k * 0x1111111111111111ULL);
	/* the lowest zero nibble of x: where k is (it is there once) */
	uint64_t z = (x - 0x1111111111111111ULL) & ~x & 0x8888888888888888ULL;
	int sh = __builtin_ctzll(z) & ~3;
	uint64_t below = l & ((1ULL << sh) - 1);
	uint64_t above = sh < 60 ? (l >> (sh + 4)) << sh : 0;
	c->ra_lru = below | above | (uint64_t)k << 60;
}

/* Slot @k follows @file from now on, as a new stream. */
static void ra_take(struct cache *c, int k, uint64_t file)
{
	memset(&c->ra[k], 0, sizeof(c->ra[k]));
	c->ra_file[k] = file;
	c->ra_live |= 1U << k;
	uint64_t *w = &c->ra_tag[k / 8];
	int sh = (k % 8) * 8;
	*w = (*w & ~(0xffULL << sh)) | ra_tagof(file) << sh;
}

/* The stream slot of @file, made the most recently used; a new stream
 * (ra_take) in the least recently used slot when it has none. That slot
 * is ra_lru's lowest 4 bits: it moves to the top by a shift (what
 * ra_touch computes for it). */
static int ra_slot(struct cache *c, uint64_t file)
{
	int k = ra_find(c, file);
	if (k >= 0) {
		ra_touch(c, k);
		return k;
	}
	k = (int)(c->ra_lru & 15);
	ra_take(c, k, file);
	c->ra_lru = c->ra_lru >> 4 | (uint64_t)k << 60;
	return k;
}

/* The largest window for a read with @left bytes still to read: more than
 * the readahead max lets it grow to that, up to the device's largest
 * request (Linux's ractl_max_pages). */
static uint64_t ra_cap(const struct cache *c, uint64_t max, uint64_t left)
{
	return left > max && c->io_max > max ? TS_MIN(left, c->io_max) : max;
}

/* The readahead max of @req's file (its reader's advice, see the top of
 * the file): twice the device's after POSIX_FADV_SEQUENTIAL, 0 (none)
 * after POSIX_FADV_RANDOM, the device's otherwise. */
static uint64_t ra_max_of(const struct cache *c, const struct ts_tier_req *req)
{
	if (req->advice == TS_TIER_ADV_SEQUENTIAL)
		return 2 * c->ra_max;
	return req->advice == TS_TIER_ADV_RANDOM ? 0 : c->ra_max;
}

/* Is page @pg of @file cached (in flight or read)? */
static bool cached_page(struct cache *c, uint64_t file, uint64_t pg)
{
	uint32_t i = ext_at(c, file, pg / PPC, NULL);
	return i != NIL && (mask_of(&c->e[i], pg / PPC) >> (pg % PPC) & 1);
}

/* Stream @s's next window, after its last one, issued at @at: its size
 * ramped up (ra_next) and, from Linux 6.17 (c->ra_align), its end rounded
 * down to its folios' size when that leaves it any pages (see the top of
 * the file). Reads it; its marker is its first page. Returns when it is
 * in, 0 when the file ends before it; adds to @dem the bytes of the
 * request's [off, off+len) it read. */
static uint64_t ra_window(struct cache *c, uint64_t at, struct ra *s, const struct ts_tier_req *req,
			  uint64_t max, uint64_t eof, struct ts_tier_done *done, uint64_t *dem)
{
	uint64_t start = s->ra_end;
	if (start >= eof)
		return 0;
	s->window = ra_next(s->window, max);
	if (c->ra_align) {
		/* page_cache_async_ra: its folios two orders above the last
		 * window's, the alignment at most the lowest set bit of the
		 * window's max in pages (1 << min(order, ffs(max_pages) - 1)) */
		uint64_t mp = TS_MAX(max / PAGE, 1);
		s->order = TS_MIN(s->order + 2, (unsigned)__builtin_ctzll(mp));
		uint64_t align = PAGE << s->order, end = start + s->window;
		if (end / align * align > start)
			s->window -= end % align;
	}
	uint64_t stop = TS_MIN(start + s->window, eof);
	s->marker = start;
	s->ra_end = stop;
	uint64_t had = 0;
	uint64_t r = fill(c, at, req->file, start / PAGE, stop / PAGE, req->off, req->len, &had, done);
	*dem += overlap(req->off, req->len, start / PAGE, stop / PAGE) - had;
	return r;
}

/* Records a read of pages [@p0, @p1) (ending at byte @end) of stream
 * slot @k's file in c->recent, in flight until ra_note tells it; @how:
 * 'm' it moved the stream, 'p' a miss read as it was (parked), 'h' a hit
 * that did neither. Returns its slot. */
static int ra_recent(struct cache *c, int k, uint64_t p0, uint64_t p1, uint64_t end, char how)
{
	int r = c->recent_next;
	c->recent_next = (r + 1) % NRECENT;
	c->recent[r] = (struct recent){
		.file = c->ra_file[k], .p0 = p0, .p1 = p1, .end = end, .slot = k,
		.moved = how == 'm', .parked = how == 'p'
	};
	c->ra[k].prev_r = r;
	return r;
}

/* Was stream @s's last read (its prev) one read as it was, out of order,
 * and is it still in flight at @now? */
static bool prev_ahead(const struct cache *c, const struct ra *s, uint64_t file, uint64_t now)
{
	const struct recent *y = &c->recent[s->prev_r];
	return y->file == file && y->end == s->prev && y->parked && y->until > now;
}

/* Issues stream @s's windows for a read of pages [@p0, @p1) at @now,
 * each once the reader has the pages before it (@last: when it has the
 * read's first window): every window whose marker the read reaches, and,
 * with @passed, every one whose marker lies before the read too (a read
 * that came in out of order, after reads that passed the marker). A
 * window grows to what the read has left past its marker, or past the
 * read's start when the marker lies before it (ra_cap). */
static void ra_advance(struct cache *c, uint64_t now, uint64_t last, struct ra *s,
		       const struct ts_tier_req *req, uint64_t p0, uint64_t p1, bool passed,
		       uint64_t eof, struct ts_tier_done *done, uint64_t *dem)
{
	uint64_t before = now, fmax = ra_max_of(c, req);
	while (s->window && s->marker < p1 * PAGE && (passed || s->marker >= p0 * PAGE)) {
		uint64_t max = ra_cap(c, fmax, p1 * PAGE - TS_MAX(s->marker, p0 * PAGE));
		uint64_t r = ra_window(c, before, s, req, max, eof, done, dem);
		if (!r) {
			s->window = 0;
			break;
		}
		before = last;
		last = r;
	}
}

/* Stream @s counts again, lowest first, the reads of its file still in
 * flight at @now (c->recent) that its windows now reach (in them or
 * adjacent) and whose end lies past its marker: each moves it on as a
 * read that came in order (ra_advance; its pages are cached already) and
 * may bring the next in reach. So once the lowest of the reads in flight
 * together has come, the stream is where those reads in offset order
 * would have left it, whatever order they came in. */
static void ra_absorb(struct cache *c, uint64_t now, struct ra *s, const struct ts_tier_req *req,
		      uint64_t eof, struct ts_tier_done *done, uint64_t *dem)
{
	while (now < s->seen && s->window) {
		int best = -1;
		for (int k = 0; k < NRECENT; k++) {
			const struct recent *y = &c->recent[k];
			if (y->file == req->file && y->until > now && y->p0 <= s->ra_end / PAGE + 1 &&
			    y->p1 * PAGE > s->marker && (best < 0 || y->p0 < c->recent[best].p0))
				best = k;
		}
		if (best < 0)
			return;
		const struct recent *y = &c->recent[best];
		s->prev = TS_MAX(s->prev, y->end);
		s->busy = TS_MAX(s->busy, y->until);
		ra_advance(c, now, now, s, req, y->p0, y->p1, true, eof, done, dem);
	}
}

/* Linux's readahead for a read of @req (see the top of the file), before
 * the read itself: the windows it issues, with the demand pages of a
 * window that starts at the read. Adds to *@dem the bytes of the read
 * that its windows brought in (they are not hits). Returns the read's
 * slot of c->recent, for ra_note once it completes (-1: none).
 *
 * The order of reads that overlap in time does not count: Linux's
 * readahead state is the window, not the last read (mm/readahead.c,
 * page_cache_async_ra: a read that reaches the marker page pushes the
 * window on, wherever the read before it ended), and it sends a window's
 * pages in several requests at once, which a FUSE daemon or a device may
 * take in any order. While a stream's reads are in flight (busy), a read
 * in its windows or adjacent to them moves it on, issuing every window
 * whose marker lies before the read's end; a read past them is read as
 * it is, as one after a read still in flight that was (not sequential
 * by page_cache_sync_ra's index - prev_index <= 1 alone: the reads before
 * it may still come), and the stream counts it once its windows reach it
 * (ra_absorb); a read that opens a stream below reads in flight (the
 * file's start, come last) counts them the same way. A read that comes
 * when the file's reads have completed follows the rule above. */
static int readahead(struct cache *c, uint64_t now, const struct ts_tier_req *req,
		     struct ts_tier_done *done, uint64_t *dem)
{
	/* Without the file's size the model cannot tell where it ends, and
	 * Linux never reads ahead past EOF: no readahead then. */
	if (!req->size)
		return -1;
	/* POSIX_FADV_RANDOM: the read is read as it is (mm/readahead.c,
	 * page_cache_sync_ra: FMODE_RANDOM forces the request's own pages) */
	uint64_t fmax = ra_max_of(c, req);
	if (!fmax)
		return -1;
	int k = ra_slot(c, req->file);
	struct ra *s = &c->ra[k];
	uint64_t end = req->off + req->len, eof = (req->size + PAGE - 1) / PAGE * PAGE;
	uint64_t p0 = req->off / PAGE, p1 = (end + PAGE - 1) / PAGE, prev = s->prev / PAGE;
	bool prev_out = prev_ahead(c, s, req->file, now);
	s->prev = end;
	if (p0 * PAGE >= eof)
		return -1;
	bool busy = s->window && s->busy > now;
	/* in the stream's windows or adjacent, its reads in flight */
	bool near = busy && p0 <= s->ra_end / PAGE + 1;
	uint64_t last = now;
	uint64_t req_b = (p1 - p0) * PAGE;
	if (!cached_page(c, req->file, p0)) {
		/* A miss: the start of the file, a read larger than the
		 * max or right after the previous one opens a stream at
		 * the read, its demand pages its first window's (right
		 * after one out of order, past the windows of a stream in
		 * flight, it does not); one near the stream moves it on;
		 * any other is read as it is and leaves the stream alone. */
		bool after = p0 - prev <= 1 && !prev_out && !(busy && !near);
		if (p0 && req_b <= fmax && !after) {
			if (!near)
				return ra_recent(c, k, p0, p1, end, 'p');
		} else {
			s->window = req_b > fmax ? ra_cap(c, fmax, req_b) : ra_init(req_b, fmax);
			s->order = 0; /* the sync window's folios (page_cache_sync_ra) */
			s->ra_end = TS_MIN(p0 * PAGE + s->window, eof);
			/* the marker: the first page after the request, or
			 * the window's first when the request fills it */
			s->marker = s->window > req_b ? p1 * PAGE : p0 * PAGE;
			uint64_t had = 0;
			last = fill(c, now, req->file, p0, s->ra_end / PAGE, req->off, req->len, &had,
				    done);
			*dem += overlap(req->off, req->len, p0, s->ra_end / PAGE) - had;
			near = false;
		}
	} else if (!s->window || s->marker >= p1 * PAGE || (s->marker < p0 * PAGE && !near)) {
		return ra_recent(c, k, p0, p1, end, 'h'); /* no marker in the read */
	}
	/* The read reaches its stream's marker (or, near, passed it): the
	 * next window, and one more each time it reaches the newest one's,
	 * each once the reader has the pages before it. */
	ra_advance(c, now, last, s, req, p0, p1, near, eof, done, dem);
	ra_absorb(c, now, s, req, eof, done, dem);
	return ra_recent(c, k, p0, p1, end, 'm');
}

/* The read of recent slot @r (readahead's answer) completes at @t: it is
 * in flight until then, and so are its stream's reads. */
static void ra_note(struct cache *c, int r, uint64_t t)
{
	struct recent *y = &c->recent[r];
	struct ra *s = &c->ra[y->slot];
	y->until = t;
	if (c->ra_file[y->slot] != y->file || !(c->ra_live >> y->slot & 1))
		return; /* its stream's slot went to another file since */
	s->seen = TS_MAX(s->seen, t);
	if (y->moved)
		s->busy = TS_MAX(s->busy, t);
}

/* The stream of @file, a new one (no window) when it has none. */
static struct ra *ra_stream(struct cache *c, uint64_t file)
{
	return &c->ra[ra_slot(c, file)];
}

/* The marker slot of chunk @idx of @file. */
static struct mkslot *mk_slot(struct cache *c, uint64_t file, uint64_t idx)
{
	return &c->mk[reduce(mix(file, idx), NMK)];
}

/* Flags page @pg of @file as a map window's marker. */
static void mk_set(struct cache *c, uint64_t file, uint64_t pg)
{
	struct mkslot *m = mk_slot(c, file, pg / PPC);
	if (m->file != file || m->idx != pg / PPC)
		*m = (struct mkslot){ .file = file, .idx = pg / PPC };
	m->mask |= 1U << (pg % PPC);
}

/* The lowest marker page of @file in [@a, @b), @b when none. */
static uint64_t mk_first(struct cache *c, uint64_t file, uint64_t a, uint64_t b)
{
	for (uint64_t idx = a / PPC; a < b && idx <= (b - 1) / PPC; idx++) {
		const struct mkslot *m = mk_slot(c, file, idx);
		uint32_t f = m->file == file && m->idx == idx ? m->mask & page_mask(a, b, idx) : 0;
		if (f)
			return idx * PPC + (uint64_t)__builtin_ctz(f);
	}
	return b;
}

/* Page @pg of @file is touched: its flag goes. */
static void mk_clear(struct cache *c, uint64_t file, uint64_t pg)
{
	struct mkslot *m = mk_slot(c, file, pg / PPC);
	if (m->file == file && m->idx == pg / PPC)
		m->mask &= ~(1U << (pg % PPC));
}

/* The first page at or after @pg, before @end, that is cached. */
static uint64_t first_cached(struct cache *c, uint64_t file, uint64_t pg, uint64_t end)
{
	while (pg < end) {
		uint32_t i = ext_at(c, file, pg / PPC, NULL);
		uint32_t m = i == NIL ? 0 : mask_of(&c->e[i], pg / PPC) >> (pg % PPC);
		if (m)
			return TS_MIN(end, pg + (uint64_t)__builtin_ctz(m));
		pg = (pg / PPC + 1) * PPC;
	}
	return end;
}

/* The first page at or after @pg, before @end, that is not cached. */
static uint64_t first_missing(struct cache *c, uint64_t file, uint64_t pg, uint64_t end)
{
	while (pg < end) {
		uint32_t i = ext_at(c, file, pg / PPC, NULL);
		if (i == NIL)
			return pg;
		uint32_t m = mask_of(&c->e[i], pg / PPC) >> (pg % PPC);
		if (~m & 1)
			return pg;
		/* the run of cached pages from pg within this chunk */
		uint64_t run = ~m ? (uint64_t)__builtin_ctz(~m) : PPC - pg % PPC;
		pg += TS_MIN(run, PPC - pg % PPC);
	}
	return end;
}

/* A map's window, pages [@start, @stop) of @req's file, sent at @t as
 * page_cache_ra_order allocates it: folios of @order (smaller where @start
 * is not aligned to it), while each one's pages are all missing, in one
 * device request; from the first folio that would take in a cached page,
 * the rest page by page (page_cache_ra_unbounded), a request a run of
 * missing pages. So a run of missing pages is two requests where a large
 * folio did not fit before the cached page that ends it. Adds to *@dem
 * the bytes of the request's range it read. */
static void map_window(struct cache *c, uint64_t t, const struct ts_tier_req *req, uint64_t start,
		       uint64_t stop, unsigned order, struct ts_tier_done *done, uint64_t *dem)
{
	uint64_t fc = first_cached(c, req->file, start, stop), x = start, had = 0;
	while (x < fc) {
		unsigned o = order;
		if (x & ((1ULL << o) - 1))
			o = (unsigned)__builtin_ctzll(x);
		while (o && x + (1ULL << o) > stop)
			o--;
		if (x + (1ULL << o) > fc)
			break;
		x += 1ULL << o;
	}
	uint64_t from = start;
	if (x > start && x < fc) {
		fill(c, t, req->file, start, x, req->off, req->len, &had, done);
		from = x;
	}
	fill(c, t, req->file, from, stop, req->off, req->len, &had, done);
	*dem += overlap(req->off, req->len, start, stop) - had;
}

/*
 * A read through a memory map (req->mapped): the reader touches the pages
 * of [off, off+len) in order (as an ERMS memcpy does, and the LMDB source
 * copies on any host: pipeline/source.h, ts_copy_in_page_order), or with
 * req->tail_first its first page, its last, then the pages between in
 * order (glibc's memcpy without ERMS: the fault on the last page reads
 * around it, and those pages cut the windows the forward faults read:
 * disk/README.md, "The mapped read's touch order"; its backward copy, when
 * the destination aliases the source's page offset, is not modeled), and
 * the kernel serves each fault as
 * mm/filemap.c does (filemap_fault) with the file's readahead state (one
 * a file: the newest window, the page it expects, its folio order) and a
 * marker page (PG_readahead) for every window, kept until touched
 * (c->mk, NMK):
 *   - a fault on a page not in memory reads around it, synchronously
 *     (do_sync_mmap_readahead): a window of ra pages (read_ahead_kb) from
 *     ra/2 pages before the fault (not before the file's start, not past
 *     its end), only its missing pages (one device request per run of
 *     them), in order-0 folios; the state expects the page ra/4 before
 *     its end, flagged when the window read it (the kernel flags only
 *     pages it allocates);
 *   - a touch of a marker (do_async_mmap_readahead) issues a window
 *     without waiting for it (page_cache_async_ra): the marker expected
 *     one right after the newest window (get_next_ra_size), any other the
 *     max from the first missing page within ra pages after the marker
 *     (none when there is none: "a marked folio without valid readahead
 *     state"); its folios two orders above the last window's (at most
 *     ra's: 0, 2, 4, 5 for 32 pages) and its end rounded down to their
 *     size; it is sent in one request while its folios, aligned, find all
 *     their pages missing, and from the first that does not, a request a
 *     run of missing pages (page_cache_ra_order, then
 *     page_cache_ra_unbounded: map_window); its marker its first page;
 *   - every other touch is served from memory (or waits for its page in
 *     flight).
 * Measured (block mode: ext4 on the loop device over tierfs, ssd-cloud,
 * read_ahead_kb 128, kernel 6.18; a 48 MiB file, the device trace):
 * fitted on a scan of every page in order: windows of 32 pages at pages 0,
 * 32, 64..., the second issued by the touch of page 24, each later one by
 * the touch of the newest window's first page (384 requests of 128 KiB,
 * 3 runs); each window tied to the touch that queued its bios in 2 more
 * (bench/mapped_scan.sh: the scan thread's block_bio_queue events beside
 * its timed touches); checked on 1,500 touches at random pages
 * (glibc rand, seed 7): each window starts 16 pages before its fault and
 * reads only its missing pages: 463 requests, the model's in
 * test_tier_cache; the model's requests are the trace's, 463 (one marker a
 * file sent 452). Checked too on a tail-first copy
 * (bench/mapped_copy.sh's tail mode, traced): the same 1,100 requests,
 * record by record (test_mapped_tail_first). Left out: a flag on a page
 * reclaimed (and read again) stays; the kernel's mmap_miss count
 * (read-around stops after 100 faults more than fault-around's mapped
 * pages; the checks never came near it); fault-around itself (it maps
 * cached pages and reads none); a touch inside a flagged large folio past
 * its first page (the model flags the page only); madvise hints
 * (VM_RAND_READ: no read-around; VM_SEQ_READ: read()'s rules); a map
 * continuing a read()'s window (a pread of the first pages before the
 * map: windows of 4, 8, 4, 8, 8, 16, 16 pages first).
 *
 * The reader's time: a window is sent only once the reader has faulted its
 * way to the touch that issues it. Each window the map issues (the async
 * marker's or a fault's read-around) costs the reader
 * req->map_window_ns (the host profile's map_window_ns; 0:
 * TS_TIER_MAP_WINDOW_NS) before it is sent, and the reader goes on after it: its run through a window's
 * pages (the fault-around faults on pages already in) and the fault that
 * allocates the next window's pages and submits it. A cloud VM pays it as
 * the reader's own CPU time; the memory copy of the pages read is the
 * hits' charge (mem_bps), not this.
 */
static uint64_t mapped_read(struct cache *c, uint64_t now, const struct ts_tier_req *req,
			    struct ts_tier_done *done)
{
	uint64_t p0 = req->off / PAGE, p1 = (req->off + req->len + PAGE - 1) / PAGE;
	uint64_t eof = req->size ? (req->size + PAGE - 1) / PAGE : p1;
	uint64_t ra = c->ra_max / PAGE, hit = 0, dem = 0, t = now;
	struct ra *s = ra_stream(c, req->file);
	enum ts_tier_bound b0 = done->bound;
	bool waited = false;
	/* the reader's CPU a window: the host's (ts_tier_req.map_window_ns) */
	uint64_t mw = req->map_window_ns ? req->map_window_ns : TS_TIER_MAP_WINDOW_NS;
	/* the touch order: [p0, p1) in order, or (tail_first) the first page,
	 * the last, then the pages between */
	uint64_t seg[3][2] = { { p0, p1 } };
	unsigned nseg = 1;
	if (req->tail_first && p1 - p0 > 2) { /* two pages: that is in order */
		uint64_t tf[3][2] = { { p0, p0 + 1 }, { p1 - 1, p1 }, { p0 + 1, p1 - 1 } };
		memcpy(seg, tf, sizeof(seg));
		nseg = 3;
	}
	for (unsigned sg = 0; sg < nseg; sg++) {
		uint64_t s1 = seg[sg][1];
		for (uint64_t pos = seg[sg][0]; pos < s1;) {
			uint64_t miss = first_missing(c, req->file, pos, s1);
			uint64_t q = mk_first(c, req->file, pos, miss);
			if (q > pos) { /* cached pages, touched in order */
				uint64_t r = fill(c, t, req->file, pos, q, req->off, req->len, &hit, done);
				if (r > t) {
					t = r;
					waited = true;
				}
				pos = q;
				continue;
			}
			uint64_t start, stop;
			if (q != miss) { /* a window's marker, cached: the next window */
				mk_clear(c, req->file, q);
				uint64_t size;
				if (s->window && q == s->marker / PAGE) {
					/* the one expected: right after the newest */
					start = s->ra_end / PAGE;
					size = TS_MAX(s->window, ra_next(s->window, c->ra_max)) / PAGE;
				} else {
					/* another window's: the next one starts at the
					 * first missing page within ra after it */
					uint64_t lim = TS_MIN(q + 1 + ra, eof);
					start = q + 1 < lim ? first_missing(c, req->file, q + 1, lim) : lim;
					if (start == lim)
						start = eof;
					size = ra;
				}
				if (start < eof) {
					/* its folios 2 orders up; its end on their
					 * boundary (at most ra's) */
					s->order = TS_MIN(s->order + 2, (unsigned)__builtin_ctzll(ra));
					uint64_t align = 1ULL << s->order, end = start + size;
					if (end / align * align > start)
						size -= end % align;
					stop = TS_MIN(start + size, eof);
					if (!cached_page(c, req->file, start))
						mk_set(c, req->file, start);
					s->ra_end = (start + size) * PAGE;
					s->window = size * PAGE;
					s->marker = start * PAGE; /* async_size = size */
					t += mw; /* the reader's way to the submit */
					map_window(c, t, req, start, stop, s->order, done, &dem);
				}
				/* touch q as a cached page */
				uint64_t r = fill(c, t, req->file, q, q + 1, req->off, req->len, &hit, done);
				if (r > t) {
					t = r;
					waited = true;
				}
				pos = q + 1;
				continue;
			}
			/* a fault on a missing page: read around it, and wait */
			start = q > ra / 2 ? q - ra / 2 : 0;
			stop = TS_MIN(start + ra, eof);
			if (stop <= q) /* a read past the size the request gave */
				stop = q + 1;
			/* its marker, ra/4 pages before its end, flagged when
			 * the window reads it; the state expects it either way */
			uint64_t mk = start + ra - ra / 4;
			if (mk < stop && mk > q && !cached_page(c, req->file, mk))
				mk_set(c, req->file, mk);
			t += mw; /* the fault's way to the submit */
			uint64_t had = 0;
			uint64_t r = fill(c, t, req->file, start, stop, req->off, req->len, &had, done);
			/* the window's pages the reader touches next count as hits and
			 * come off them; q itself, missing, never counted as one */
			dem += overlap(req->off, req->len, start, stop) - had -
			       overlap(req->off, req->len, q, q + 1);
			s->ra_end = (start + ra) * PAGE;
			s->window = ra * PAGE;
			s->marker = mk * PAGE;
			s->order = 0;
			t = TS_MAX(t, r);
			waited = true;
			pos = q + 1;
		}
	}
	s->prev = req->off + req->len;
	hit -= TS_MIN(hit, dem);
	done->hit_bytes += hit;
	uint64_t mem_end = t + (uint64_t)((double)hit / c->mem_bps * 1e9);
	/* windows issued ahead of the reader do not make it wait */
	if (!waited)
		done->bound = b0 == TS_TIER_BOUND_LATENCY ? TS_TIER_BOUND_MEMORY : b0;
	return mem_end;
}

static uint64_t cache_read(struct cache *c, uint64_t now, const struct ts_tier_req *req,
			   struct ts_tier_done *done)
{
	uint64_t p0 = req->off / PAGE, p1 = (req->off + req->len + PAGE - 1) / PAGE;
	uint64_t hit = 0, dem = 0;
	enum ts_tier_bound b0 = done->bound;
	c->fresh_ok = false;
	int ra = req->kernel_ra ? -1 : readahead(c, now, req, done, &dem);
	uint64_t dev0 = done->dev_ios, end;
	if (c->fresh_ok && c->fresh_file == req->file && c->fresh_p0 == p0 && c->fresh_p1 == p1) {
		/* The window just read is the read: what fill would find, at
		 * the front of the LRU list already (touch_range: nothing to
		 * do), each chunk ready when the one request is (late_note
		 * left no earlier time for pages that were not there). */
		hit += overlap(req->off, req->len, p0, p1);
		end = TS_MAX(now, c->fresh_ready);
	} else {
		end = fill(c, now, req->file, p0, p1, req->off, req->len, &hit, done);
	}
	/* windows past the read alone do not make it wait on the device */
	bool went_to_device = done->dev_ios != dev0 || dem;
	hit -= TS_MIN(hit, dem); /* what this read's own windows brought */
	done->hit_bytes += hit;
	/* No hit, no memory time: every read of a shuffled epoch larger than
	 * the cache misses, and the conversion (a division) took a quarter
	 * of the samples perf gave cache_submit, where this is inlined. */
	uint64_t mem_end = hit ? now + (uint64_t)((double)hit / c->mem_bps * 1e9) : now;
	if (ra >= 0)
		ra_note(c, ra, end);
	if (!went_to_device) {
		done->bound = b0 == TS_TIER_BOUND_LATENCY ? TS_TIER_BOUND_MEMORY : b0;
		/* A wait for pages in flight (readahead) is the device's doing. */
		if (end > mem_end)
			done->bound = TS_TIER_BOUND_LATENCY;
	}
	return TS_MAX(end, mem_end);
}

/* ---- Writes ------------------------------------------------------------- */

/* Chunk @idx of @file as get_chunk gives it, in an extent of its own (it
 * is to turn dirty). */
static uint32_t get_alone(struct cache *c, uint32_t i, uint64_t file, uint64_t idx,
			  unsigned add_pages, uint64_t now)
{
	i = get_chunk(c, i, file, idx, add_pages, now, false);
	return c->e[i].n > 1 ? ext_split(c, i, idx) : i;
}

/* Pages of [p0, p1) of @file that are not dirty. */
static uint64_t clean_pages(struct cache *c, uint64_t file, uint64_t p0, uint64_t p1)
{
	uint64_t n = p1 - p0, last = (p1 - 1) / PPC;
	for (uint64_t idx = p0 / PPC; idx <= last;) {
		uint64_t next = UINT64_MAX;
		uint32_t i = ext_at(c, file, idx, &next);
		if (i == NIL) {
			idx = next;
			continue;
		}
		const struct ext *e = &c->e[i];
		n -= (uint64_t)pc32(page_mask(p0, p1, idx) & e->dirty);
		idx = e->lo + e->n;
	}
	return n;
}

/* Makes pages @want of chunk @idx (extent @i, NIL: not cached) present and
 * dirty at @t, with room made for the @miss pages it lacks. Returns its
 * extent. */
static uint32_t dirty_chunk(struct cache *c, uint32_t i, uint64_t file, uint64_t idx,
			    uint32_t want, uint32_t miss, uint64_t t)
{
	i = get_alone(c, i, file, idx, (unsigned)pc32(miss), t);
	struct ext *e = &c->e[i];
	uint32_t newd = want & ~e->dirty;
	if (!e->dirty && newd)
		dirty_back(c, i, t);
	set_last(e, e->first | want);
	e->dirty |= want;
	c->resident += (uint64_t)pc32(miss) * PAGE;
	c->dirty += (uint64_t)pc32(newd) * PAGE;
	return i;
}

static uint64_t cache_write(struct cache *c, uint64_t now, const struct ts_tier_req *req,
			    struct ts_tier_done *done)
{
	uint64_t p0 = req->off / PAGE, p1 = (req->off + req->len + PAGE - 1) / PAGE;
	uint64_t add = clean_pages(c, req->file, p0, p1) * PAGE;
	uint64_t t = now;
	if (c->dirty + inflight_at(c, now) + add > c->dirty_limit) {
		t = wb_throttle(c, now, add);
		if (t > now)
			done->bound = TS_TIER_BOUND_DIRTY;
	}
	for (uint64_t idx = p0 / PPC; idx * PPC < p1; idx++) {
		uint32_t want = page_mask(p0, p1, idx);
		uint32_t i = ext_at(c, req->file, idx, NULL);
		uint32_t miss = i == NIL ? want : want & ~mask_of(&c->e[i], idx);
		dirty_chunk(c, i, req->file, idx, want, miss, t);
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
	for (uint64_t idx = first; idx <= last;) {
		uint64_t next = UINT64_MAX;
		uint32_t i = ext_at(c, file, idx, &next);
		if (i == NIL) {
			idx = next;
			continue;
		}
		uint32_t m = page_mask(p0, p1, idx);
		if (c->e[i].dirty & m) { /* a dirty extent has one chunk */
			int k = slot_min(c);
			uint64_t d = wb_pages(c, k, i, TS_MAX(now, c->wb[k].free), m);
			end = TS_MAX(end, d);
		}
		idx = c->e[i].lo + c->e[i].n;
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
		else if (req->op == TS_TIER_READ && req->mapped && !req->kernel_ra)
			end = mapped_read(c, now, req, done);
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
		if (froot(c, req->file) != NIL) {
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
		uint32_t i = ext_at(c, file, idx, NULL);
		uint32_t miss = i == NIL ? want : want & ~mask_of(&c->e[i], idx);
		if (!dirty) {
			i = get_chunk(c, i, file, idx, (unsigned)pc32(miss), now, true);
			set_last(&c->e[i], c->e[i].last | want);
			c->resident += (uint64_t)pc32(miss) * PAGE;
			continue;
		}
		i = dirty_chunk(c, i, file, idx, want, miss, now);
		while (c->dirty > c->dirty_limit && c->dirty_head != NIL && c->dirty_head != i) {
			uint32_t o = c->dirty_head;
			c->dirty -= (uint64_t)pc32(c->e[o].dirty) * PAGE;
			c->e[o].dirty = 0;
			dirty_unlink(c, o);
		}
	}
	publish(c);
}

/* The file's record: a miss otherwise, as reads come in random order. */
static void cache_prefetch(struct ts_tier_layer *l, uint64_t file, uint64_t off)
{
	const struct cache *c = (const struct cache *)l;
	(void)off;
	__builtin_prefetch(fentry(c, file), 1);
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
 * The pool and the file table: zeroed pages mapped untouched (RSS grows
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
	if (c->e)
		for (uint32_t i = 0; i < c->nused; i++)
			rdy_free(&c->e[i]);
	table_free(c->e, c->e_len);
	table_free(c->dl, c->dl_len);
	table_free(c->fs, c->fs_len);
	table_free(c->dense, DENSE * sizeof(*c->dense));
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
	c->io_max = cfg->io_max ? TS_MAX(cfg->io_max, PAGE) : DEFAULT_IO_MAX;
	c->ra_align = cfg->ra_kernel >= TS_TIER_RA_ALIGNED_SINCE;
	c->mem_bps = cfg->mem_bps ? (double)cfg->mem_bps : DEFAULT_MEM_BPS;
	c->evict = cfg->evict;
	c->evict_ctx = cfg->evict_ctx;
	c->brk = cfg->brk;
	c->brk_ctx = cfg->brk_ctx;
	uint64_t n = TS_MAX(cfg->mem / (CHUNK / 4), 4);
	if (n > UINT32_MAX - 1)
		n = UINT32_MAX - 1;
	c->nmax = (uint32_t)n;
	c->nslot_max = n + n / 3 + 8; /* at most 3/4 full: short probes */
	c->nslot = TS_MIN(c->nslot_max, 4096);
	c->e_len = n * sizeof(*c->e);
	c->dl_len = n * sizeof(*c->dl);
	c->fs_len = c->nslot * sizeof(*c->fs);
	c->e = table_new(c->e_len);
	c->dl = table_new(c->dl_len);
	c->fs = table_new(c->fs_len);
	c->dense = table_new(DENSE * sizeof(*c->dense));
	if (!c->e || !c->dl || !c->fs || !c->dense) {
		cache_free(&c->l);
		return NULL;
	}
	c->freelist = NIL;
	c->run_ext = NIL;
	c->lru_head = c->lru_tail = c->dirty_head = c->dirty_tail = NIL;
	for (int k = 0; k < NRA; k++)
		c->ra_lru |= (uint64_t)k << (4 * k);
	return &c->l;
}
