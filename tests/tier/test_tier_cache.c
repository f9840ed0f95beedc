/*
 * test_tier_cache.c — the page-cache model in virtual time: hits at memory
 * speed, readahead, dirty data absorbed then throttled to the write rate,
 * fsync waiting for the flush, expiry, LRU eviction with its callback, the
 * memory limit, forget, O_DIRECT bypassing the cache, and bounded
 * bookkeeping for a very large cache.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/tier/driver.h"
#include "tier/tier_json.h"
#include "tests/tcheck.h"

static struct ts_tier_set *set;

struct evictlog {
	uint64_t calls, bytes, file, bad;
};

static void on_evict(void *ctx, uint64_t file, uint64_t off, uint64_t len)
{
	struct evictlog *l = ctx;
	l->calls++;
	l->bytes += len;
	l->file = file;
	l->bad += off % (128 * 1024) != 0 || len != 128 * 1024;
}

static struct ts_tier *cached(const char *tier, uint64_t mem, struct ts_tier_cfg *over)
{
	char err[512];
	struct ts_tier_cfg cfg = { 0 };
	if (over)
		cfg = *over;
	cfg.profile = ts_tier_set_find(set, tier);
	cfg.mem = mem;
	if (!cfg.seed)
		cfg.seed = 1;
	struct ts_tier *t;
	if (!cfg.profile || ts_tier_new(&cfg, &t, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", tier, err);
		exit(1);
	}
	return t;
}

static json_t *cache_json(struct ts_tier *t, json_t **owner)
{
	*owner = ts_tier_stats_json(t);
	return json_object_get(*owner, "cache");
}

static uint64_t cache_num(struct ts_tier *t, const char *k)
{
	json_t *o;
	uint64_t v = (uint64_t)json_integer_value(json_object_get(cache_json(t, &o), k));
	json_decref(o);
	return v;
}

static uint64_t rd(struct ts_tier *t, uint64_t now, uint64_t file, uint64_t off, uint64_t len,
		   uint64_t size, struct ts_tier_done *done)
{
	struct ts_tier_req r = {
		.op = TS_TIER_READ, .file = file, .off = off, .len = len, .size = size
	};
	return ts_tier_submit(t, now, &r, done);
}

static uint64_t wr(struct ts_tier *t, uint64_t now, uint64_t file, uint64_t off, uint64_t len,
		   struct ts_tier_done *done)
{
	struct ts_tier_req r = { .op = TS_TIER_WRITE, .file = file, .off = off, .len = len };
	return ts_tier_submit(t, now, &r, done);
}

/* A hit costs bytes / mem_rate; a miss goes to the device. */
static void test_hits(void)
{
	struct ts_tier_cfg o = { .mem_bps = 1000000000 }; /* 1 GB/s: 1 ns per byte */
	struct ts_tier *t = cached("ssd-cloud", TS_GiB, &o);
	struct ts_tier_done d;
	/* Offsets away from 0 and from the previous read's end: no readahead. */
	const uint64_t base = 8 * TS_MiB;
	uint64_t end = rd(t, 0, 1, base, TS_MiB, 0, &d);
	CHECK_EQ_U64(d.hit_bytes, 0);
	CHECK_EQ_U64(d.dev_bytes, TS_MiB);
	CHECK(end >= TS_MiB * 1000000000ULL / (256 * TS_MiB)); /* its transfer at 256 MiB/s */
	uint64_t now = end + TS_NS_PER_S;
	end = rd(t, now, 1, base, TS_MiB, 0, &d);
	CHECK_EQ_U64(end - now, TS_MiB);
	CHECK_EQ_U64(d.hit_bytes, TS_MiB);
	CHECK_EQ_U64(d.dev_bytes, 0);
	CHECK(d.bound == TS_TIER_BOUND_MEMORY);
	/* Metadata of a cached file is free; of another file, it costs the
	 * tier's metadata latency. */
	struct ts_tier_req m = { .op = TS_TIER_META, .file = 1 };
	CHECK_EQ_U64(ts_tier_submit(t, now, &m, &d), now);
	m.file = 77;
	CHECK(ts_tier_submit(t, now, &m, &d) > now + 100 * TS_NS_PER_US);
	/* Unaligned: a 100-byte read in a cached page is a 100-byte hit. */
	end = rd(t, now, 1, base + 5000, 100, 0, &d);
	CHECK_EQ_U64(end - now, 100);
	CHECK_EQ_U64(d.hit_bytes, 100);
	/* Half cached: only the missing half goes to the device. */
	end = rd(t, now, 1, base + TS_MiB / 2, TS_MiB, 0, &d);
	CHECK_EQ_U64(d.hit_bytes, TS_MiB / 2);
	CHECK_EQ_U64(d.dev_bytes, TS_MiB / 2);
	json_t *s = ts_tier_stats_json(t);
	CHECK_NEAR(json_real_value(json_object_get(s, "cache_hit_ratio")),
		   (1.5 * TS_MiB + 100) / (3.0 * TS_MiB + 100), 1e-9);
	json_decref(s);
	ts_tier_free(t);
}

/* Count device reads of a sequential scan of @size bytes in @bs reads. */
static uint64_t scan(struct ts_tier *t, uint64_t size, uint64_t bs, bool tell_size,
		     uint64_t *dev_bytes, uint64_t *elapsed)
{
	struct ts_tier_done d;
	uint64_t now = 0, ios = 0, bytes = 0;
	for (uint64_t off = 0; off < size; off += bs) {
		now = rd(t, now, 7, off, bs, tell_size ? size : 0, &d);
		ios += d.dev_ios;
		bytes += d.dev_bytes;
	}
	if (dev_bytes)
		*dev_bytes = bytes;
	if (elapsed)
		*elapsed = now;
	return ios;
}

static void test_readahead(void)
{
	const uint64_t size = 64 * TS_MiB;
	struct ts_tier *t = cached("ssd-cloud", 0, NULL);
	uint64_t nocache_time, cache_time, bytes;
	uint64_t ios0 = scan(t, size, 4096, true, NULL, &nocache_time);
	ts_tier_free(t);
	t = cached("ssd-cloud", TS_GiB, NULL);
	uint64_t ios1 = scan(t, size, 4096, true, &bytes, &cache_time);
	fprintf(stderr,
		"64 MiB scan in 4 KiB reads: %llu device reads without cache, %llu with "
		"(readahead 128 KiB); %.2f s vs %.2f s\n",
		(unsigned long long)ios0, (unsigned long long)ios1, nocache_time / 1e9,
		cache_time / 1e9);
	CHECK_EQ_U64(ios0, size / 4096);
	/* Linux ramp with max 128 KiB: 4K demand, 16K, 64K, then 128 KiB windows. */
	CHECK(ios1 >= size / (128 * TS_KiB) && ios1 <= size / (128 * TS_KiB) + 4);
	CHECK_EQ_U64(bytes, size); /* the size bounds readahead: nothing read twice or past EOF */
	CHECK(cache_time * 10 < nocache_time);
	ts_tier_free(t);

	/* A larger max: windows grow to 1 MiB. */
	struct ts_tier_cfg o = { .ra_max = TS_MiB };
	t = cached("ssd-cloud", TS_GiB, &o);
	uint64_t ios2 = scan(t, size, 4096, true, NULL, NULL);
	CHECK(ios2 >= size / TS_MiB && ios2 <= size / TS_MiB + 8);
	ts_tier_free(t);

	/* Without the size, no readahead (it could run past EOF). */
	t = cached("ssd-cloud", TS_GiB, NULL);
	CHECK_EQ_U64(scan(t, TS_MiB, 4096, false, &bytes, NULL), TS_MiB / 4096);
	CHECK_EQ_U64(bytes, TS_MiB);
	ts_tier_free(t);

	/* Random reads get no readahead. */
	t = cached("ssd-cloud", TS_GiB, NULL);
	struct drv dr;
	drv_init(&dr, t, TS_TIER_READ, DRV_RANDOM, 4096, 4, 0);
	uint64_t dev = 0;
	for (int i = 0; i < 2000; i++) {
		struct ts_tier_done d = drv_step(&dr);
		dev += d.dev_bytes;
	}
	CHECK(dev <= 2000 * 4096);
	CHECK(dev > 1990 * 4096); /* a few offsets repeat: hits */
	ts_tier_free(t);
}

/*
 * The windows Linux 6.18 reads ahead for a file read as numpy's np.load
 * reads an .npz (the reads below, as tierfs recorded them for one file of
 * bench/fs_fidelity.sh's npz workload): its block-mode trace (ext4 over
 * the loop device, read_ahead_kb 128) read each of the 48 files in 19
 * requests, 513 pages: 16 KiB at 0 (the first read and its window), the
 * last page alone (a read far from the last: no window, the stream left
 * as it was), then 32, 64, 128, 144 and 128 KiB windows as the reads
 * reach each window's first page (144: the 248 KiB read had 36 pages
 * left at that window's marker, more than the max, and Linux lets a
 * window grow to what a read has left). The model read it in 20: the
 * first read and its window apart, and each read past the windows a
 * request of its own.
 */
static void test_kernel_windows(void)
{
	static const uint64_t npz[][2] = {
		{ 0, 4096 },	     { 2097588, 23 },	   { 2097610, 1 },	 { 2097568, 4096 },
		{ 2097486, 4096 },   { 0, 4096 },	   { 4096, 4096 },	 { 0, 4096 },
		{ 4096, 4096 },	     { 8192, 253952 },	   { 262144, 4096 },	 { 266240, 258048 },
		{ 524288, 4096 },    { 528384, 258048 },   { 786432, 4096 },	 { 790528, 258048 },
		{ 1048576, 4096 },   { 1052672, 258048 },  { 1310720, 4096 },	 { 1314816, 258048 },
		{ 1572864, 4096 },   { 1576960, 258048 },  { 1835008, 4096 },	 { 1839104, 258048 },
		{ 2097152, 4096 },
	};
	struct ts_tier *t = cached("ssd-cloud", TS_GiB, NULL);
	uint64_t now = 0, reqs = 0, bytes = 0, hit = 0, want = 0;
	for (size_t i = 0; i < sizeof(npz) / sizeof(npz[0]); i++) {
		struct ts_tier_done d = { 0 };
		uint64_t len = TS_MIN(npz[i][1], 2097610 - TS_MIN(npz[i][0], 2097610));
		now = rd(t, now, 9, npz[i][0], npz[i][1], 2097610, &d);
		if (i == 9) { /* 248 KiB at 8 KiB: the 64, 128, 144 and next 128 KiB
				 windows (the trace cannot tell whether Linux issued
				 the last in this read or the next) */
			CHECK_EQ_U64(d.dev_ios, 4);
			CHECK_EQ_U64(d.dev_bytes, (64 + 128 + 144 + 128) * TS_KiB);
		}
		reqs += d.dev_ios;
		bytes += d.dev_bytes;
		hit += d.hit_bytes;
		want += len;
	}
	CHECK_EQ_U64(reqs, 19);
	CHECK_EQ_U64(bytes, 513 * 4096);
	/* the bytes the reads waited for the device to bring are no hits:
	 * only the reads of pages there before them are */
	CHECK(hit < want);
	ts_tier_free(t);
}

/* A file read in order with the reader's posix_fadvise (tier/cache.c, spec:
 * mm/fadvise.c): @adv on every read of a @size file in @len reads, one at
 * a time; the device's requests, their bytes and the largest one a read
 * sent (a read's windows: its dev_bytes / dev_ios). */
static void advised(uint8_t adv, uint64_t size, uint64_t len, uint64_t *reqs, uint64_t *bytes,
		    uint64_t *largest)
{
	struct ts_tier *t = cached("ssd-cloud", TS_GiB, NULL);
	uint64_t now = 0;
	*reqs = *bytes = *largest = 0;
	for (uint64_t off = 0; off < size; off += len) {
		struct ts_tier_done d = { 0 };
		struct ts_tier_req r = { .op = TS_TIER_READ, .file = 7, .off = off, .len = len,
					 .size = size, .advice = adv };
		now = ts_tier_submit(t, now, &r, &d);
		*reqs += d.dev_ios;
		*bytes += d.dev_bytes;
		if (d.dev_ios)
			*largest = TS_MAX(*largest, d.dev_bytes / d.dev_ios);
	}
	ts_tier_free(t);
}

/* POSIX_FADV_SEQUENTIAL doubles the readahead max: cat's 128 KiB reads of
 * a 4 MiB file go to the device as 16 windows of 256 KiB (block mode's
 * device trace of the memory sweep: 256 KiB requests for read_ahead_kb
 * 128), 32 of 128 KiB without it; POSIX_FADV_RANDOM reads none ahead:
 * 4 KiB reads of 1 MiB are 256 requests of 4 KiB, where the windows
 * (16, 64, 128 KiB...) send 10. */
static void test_fadvise(void)
{
	uint64_t reqs, bytes, largest;
	advised(TS_TIER_ADV_NORMAL, 4 * TS_MiB, 128 * TS_KiB, &reqs, &bytes, &largest);
	CHECK_EQ_U64(reqs, 32);
	CHECK_EQ_U64(bytes, 4 * TS_MiB);
	CHECK_EQ_U64(largest, 128 * TS_KiB);
	advised(TS_TIER_ADV_SEQUENTIAL, 4 * TS_MiB, 128 * TS_KiB, &reqs, &bytes, &largest);
	CHECK_EQ_U64(reqs, 16);
	CHECK_EQ_U64(bytes, 4 * TS_MiB);
	CHECK_EQ_U64(largest, 256 * TS_KiB);
	advised(TS_TIER_ADV_RANDOM, TS_MiB, 4 * TS_KiB, &reqs, &bytes, &largest);
	CHECK_EQ_U64(reqs, 256);
	CHECK_EQ_U64(bytes, TS_MiB);
	CHECK_EQ_U64(largest, 4 * TS_KiB);
	advised(TS_TIER_ADV_NORMAL, TS_MiB, 4 * TS_KiB, &reqs, &bytes, &largest);
	CHECK(reqs < 16);
	CHECK_EQ_U64(bytes, TS_MiB);
}

/* The "twor" tier: 1 ms a read, no rate limit (added to the set once). */
static bool twor_tier(void)
{
	static int added;
	if (!added)
		added = drv_add_tiers(set, "tier_cache_two_reads",
				      "tier \"twor\" { iops = 1000000, parallel = 64,\n"
				      "  latency = { read = { fixed = \"1ms\" } } }\n")
				? -1
				: 1;
	CHECK(added == 1);
	return added == 1;
}

/*
 * Reads that overlap in time, in any order (tests/fs/kernel_ra.sh's: the
 * four requests Linux's readahead sent tierfs for dd's first 64 KiB of a
 * kernel-cached file, 16, 32, 64 and 128 KiB, which the daemon took in
 * whatever order its threads picked them up). Replayed as a reader's own
 * reads, 1 us apart on the "twor" tier (1 ms a read: all four in flight
 * together), every order gets the windows the offset order gets: the
 * stream's state is its windows, not the last read's end. The offset
 * order's: 32 KiB at the first read (x2), 64 KiB and 128 KiB at the
 * second's markers, and a 128 KiB window at each later read's marker:
 * 480 KiB. The detector before this took a read that did not start where
 * the one before it ended for a random one: 480 KiB in the offset order
 * only, 352-432 KiB in 8 orders, and only what was asked (240 KiB) in 15.
 */
static uint64_t ra_order_run(const int *order, uint64_t gap, uint64_t *resident)
{
	static const uint64_t rq[4][2] = {
		{ 0, 16384 }, { 16384, 32768 }, { 49152, 65536 }, { 114688, 131072 }
	};
	struct ts_tier_cfg o = { .mem_bps = 1000000000 };
	struct ts_tier *t = cached("twor", TS_GiB, &o);
	uint64_t now = 0, dev = 0;
	for (int i = 0; i < 4; i++) {
		struct ts_tier_done d = { 0 };
		uint64_t end = rd(t, now, 5, rq[order[i]][0], rq[order[i]][1], 4 * TS_MiB, &d);
		dev += d.dev_bytes;
		now = gap ? end + gap : now + 1000;
	}
	*resident = cache_num(t, "resident_bytes");
	ts_tier_free(t);
	return dev;
}

static void test_ra_out_of_order(void)
{
	if (!twor_tier())
		return;
	/* serial, in offset order: the rule as it always was */
	static const int inorder[4] = { 0, 1, 2, 3 };
	uint64_t res0, res;
	uint64_t want = ra_order_run(inorder, 1, &res0);
	CHECK_EQ_U64(want, 480 * TS_KiB);
	CHECK_EQ_U64(res0, 480 * TS_KiB);
	/* all 24 orders, concurrent */
	int ord[4], n = 0;
	for (int a = 0; a < 4; a++)
		for (int b = 0; b < 4; b++)
			for (int c = 0; c < 4; c++) {
				int dd = 6 - a - b - c;
				if (a == b || a == c || b == c || dd < 0 || dd > 3 || dd == a ||
				    dd == b || dd == c)
					continue;
				ord[0] = a, ord[1] = b, ord[2] = c, ord[3] = dd;
				uint64_t dev = ra_order_run(ord, 0, &res);
				if (dev != want || res != res0)
					fprintf(stderr, "order %d%d%d%d: %llu device bytes, %llu resident\n",
						a, b, c, dd, (unsigned long long)dev,
						(unsigned long long)res);
				CHECK_EQ_U64(dev, want);
				CHECK_EQ_U64(res, res0);
				n++;
			}
	CHECK_EQ_U64(n, 24);
	/* The same reads in reverse offset order, each after the one before
	 * completed: a reader going backwards, no reads in flight together,
	 * is no stream (the read at 0 opens one, whose 32 KiB window holds
	 * what the next read asked for already). */
	static const int back[4] = { 3, 2, 1, 0 };
	CHECK_EQ_U64(ra_order_run(back, 1, &res), 240 * TS_KiB);

	/* Truly random reads, all in flight together (1 us apart), none
	 * adjacent to another (every third 16 KiB block, shuffled): no
	 * readahead, each read exactly what it asked. */
	struct ts_tier_cfg o = { .mem_bps = 1000000000 };
	struct ts_tier *t = cached("twor", TS_GiB, &o);
	static uint32_t blk[256];
	for (uint32_t k = 0; k < 256; k++)
		blk[k] = 1 + 3 * k;
	struct ts_rng r;
	ts_rng_seed(&r, 7);
	ts_rng_shuffle_u32(&r, blk, 256);
	uint64_t dev = 0, ios = 0;
	for (int i = 0; i < 256; i++) {
		struct ts_tier_done d = { 0 };
		rd(t, (uint64_t)i * 1000, 6, blk[i] * 16 * TS_KiB, 16 * TS_KiB, 64 * TS_MiB, &d);
		dev += d.dev_bytes;
		ios += d.dev_ios;
	}
	CHECK_EQ_U64(dev, 256 * 16 * TS_KiB);
	CHECK_EQ_U64(ios, 256);
	ts_tier_free(t);
}

/* A chunk filled by two reads: its pages from the first are there when the
 * first completes, not when the second does. A readahead window that
 * starts inside a chunk another window is still filling is such a read
 * (Linux's windows follow the reads, not the model's 128 KiB chunks): a
 * reader of the earlier window that waited for the later one would keep
 * no window ahead of it, and read one window per device latency. Exact in
 * virtual time: 1 ms reads, no rate limit, 1 ns per byte of a hit. */
static void test_chunk_two_reads(void)
{
	if (!twor_tier())
		return;
	struct ts_tier_cfg o = { .mem_bps = 1000000000 };
	struct ts_tier *t = cached("twor", TS_GiB, &o);
	struct ts_tier_done d;
	/* no size: no readahead, each read as it is */
	CHECK_EQ_U64(rd(t, 0, 3, 0, 124 * TS_KiB, 0, &d), 1000000);
	CHECK_EQ_U64(rd(t, 500000, 3, 124 * TS_KiB, 4 * TS_KiB, 0, &d), 1500000);
	/* at 1.2 ms: the first read's pages are in, the second's are not */
	CHECK_EQ_U64(rd(t, 1200000, 3, 0, 16 * TS_KiB, 0, &d), 1200000 + 16 * TS_KiB);
	CHECK_EQ_U64(d.hit_bytes, 16 * TS_KiB);
	CHECK_EQ_U64(rd(t, 1200000, 3, 120 * TS_KiB, 8 * TS_KiB, 0, &d), 1500000);
	CHECK_EQ_U64(rd(t, 1200000, 3, 124 * TS_KiB, 4 * TS_KiB, 0, &d), 1500000);
	/* a third read into the chunk: the chunk keeps two times, so the
	 * first's pages are now told the second's (later than they came,
	 * never sooner), and the third's page its own */
	ts_tier_forget(t, 3, 64 * TS_KiB, 4 * TS_KiB);
	CHECK_EQ_U64(rd(t, 1300000, 3, 64 * TS_KiB, 4 * TS_KiB, 0, &d), 2300000);
	CHECK_EQ_U64(rd(t, 1300000, 3, 0, 16 * TS_KiB, 0, &d), 1500000);
	CHECK_EQ_U64(rd(t, 1300000, 3, 60 * TS_KiB, 8 * TS_KiB, 0, &d), 2300000);
	ts_tier_free(t);

	/* A sequential reader as Python's buffered reader reads a RecordIO
	 * file (bench/fs_fidelity.sh's rec workload, as tierfs recorded it):
	 * a record's 4 KiB header block, then the rest of the record, each
	 * read as soon as the last completed. Its windows start a page
	 * before the chunks (the first window ends at 16 KiB + 64 KiB...).
	 * Each window is issued when the reader reaches the one before it,
	 * so the device has two in flight: 64 windows of 128 KiB in 32 ms
	 * and the ramp's first ones, not 64 ms. */
	t = cached("twor", TS_GiB, &o);
	const uint64_t size = 8 * TS_MiB + 20000;
	uint64_t now = 0, off = 0, ios = 0;
	for (uint64_t k = 0; off < size; k++) {
		uint64_t rest = 4096 * (1 + k % 19);
		now = rd(t, now, 4, off, 4096, size, &d);
		ios += d.dev_ios;
		now = rd(t, now, 4, off + 4096, rest, size, &d);
		ios += d.dev_ios;
		off += 4096 + rest;
	}
	fprintf(stderr, "two reads: %llu device reads in %llu ns\n", (unsigned long long)ios,
		(unsigned long long)now);
	/* 67 requests: 16, 64 KiB (the ramp), then 128 KiB windows, the last
	 * cut at EOF; 36.9 ms (a model that made each reader wait for the
	 * window after its own took 71.0 ms) */
	CHECK_EQ_U64(ios, 67);
	CHECK_EQ_U64(now, 36911773);
	ts_tier_free(t);
}

static uint64_t mrd(struct ts_tier *t, uint64_t now, uint64_t file, uint64_t off, uint64_t len,
		    uint64_t size, struct ts_tier_done *done)
{
	struct ts_tier_req r = { .op = TS_TIER_READ, .file = file, .off = off, .len = len,
				 .size = size, .mapped = true };
	memset(done, 0, sizeof(*done));
	return ts_tier_submit(t, now, &r, done);
}

/* tests/tier/@name (under TS_SOURCE_ROOT), open past its lines of
 * comment (#); NULL, a failed check, when it cannot be opened. */
static FILE *fixture(const char *name)
{
	char path[4096];
	const char *dir = getenv("TS_SOURCE_ROOT");
	snprintf(path, sizeof(path), "%s/tests/tier/%s", dir ? dir : ".", name);
	FILE *f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "%s: cannot open\n", path);
		CHECK(0);
		return NULL;
	}
	int ch;
	while ((ch = getc(f)) == '#')
		while ((ch = getc(f)) != EOF && ch != '\n')
			;
	if (ch != EOF)
		ungetc(ch, f);
	return f;
}

/*
 * A mapped scan (block mode, ext4, ssd-cloud, read_ahead_kb 128: a 48 MiB
 * file, every page touched in order through a read-only shared map; the
 * pages resident after each touch, read with mincore(2), and the device's
 * trace): the fault on page 0 reads pages 0-31, the touch of page 24
 * issues pages 32-63, and from then on the touch of each window's first
 * page issues the next: 384 requests of 128 KiB. Read() readahead would
 * have issued the second window at page 0's read (its marker is the page
 * after the read) and every later one at its window's first page too.
 */
static void test_mapped_scan(void)
{
	const uint64_t size = 48 * TS_MiB, pages = size / 4096;
	struct ts_tier *t = cached("ssd-cloud", TS_GiB, NULL);
	struct ts_tier_done d;
	uint64_t now = 0, reqs = 0, bytes = 0, waits = 0, issued[5] = { 0 };
	unsigned n = 0;
	for (uint64_t pg = 0; pg < pages; pg++) {
		uint64_t end = mrd(t, now, 5, pg * 4096, 4096, size, &d);
		if (d.dev_ios && n < 5)
			issued[n++] = pg;
		if (d.dev_ios)
			CHECK_EQ_U64(d.dev_bytes, 128 * TS_KiB);
		reqs += d.dev_ios;
		bytes += d.dev_bytes;
		waits += d.bound != TS_TIER_BOUND_MEMORY;
		now = end;
	}
	CHECK_EQ_U64(issued[0], 0);
	CHECK_EQ_U64(issued[1], 24);
	CHECK_EQ_U64(issued[2], 32);
	CHECK_EQ_U64(issued[3], 64);
	CHECK_EQ_U64(issued[4], 96);
	CHECK_EQ_U64(reqs, 384);
	CHECK_EQ_U64(bytes, size);
	/* the reader waits on the device at page 0 and where it catches up
	 * with a window in flight; every other touch is served from memory */
	CHECK(waits >= 1 && waits < pages / 8);
	ts_tier_free(t);
}

/*
 * The check workload (block mode as above, the same file): 1,500 touches
 * at random pages (glibc's rand() after srand(7), modulo the file's 12,288
 * pages; the first six below). The trace: 463 device requests; the first
 * windows start 16 pages before their fault, and the eighth reads only
 * what the seventh left missing (the model's too). The pages touched are
 * the fixture tests/tier/mapped_rand.txt. The model sends the trace's 463
 * requests (11,441 pages): the kernel flags every window's marker page,
 * and a touch of an older window's marker issues a window of its own at
 * the next missing page (page_cache_async_ra, "a marked folio without
 * valid readahead state"); a model that kept only the newest marker sent
 * 452.
 */
static void test_mapped_random(void)
{
	const uint64_t size = 48 * TS_MiB;
	static const uint64_t first[][3] = { /* page touched, window start, pages read */
		{ 8181, 8165, 32 }, { 579, 563, 32 }, { 10043, 10027, 32 },
		{ 3247, 3231, 32 }, { 2669, 2653, 32 }, { 795, 779, 32 },
		{ 7034, 7018, 32 }, { 7057, 7050, 23 },
	};
	FILE *f = fixture("mapped_rand.txt");
	if (!f)
		return;
	struct ts_tier *t = cached("ssd-cloud", TS_GiB, NULL);
	struct ts_tier_done d;
	uint64_t now = 0, reqs = 0, bytes = 0, pg, i = 0;
	unsigned long long v;
	while (fscanf(f, "%llu", &v) == 1) {
		pg = v;
		uint64_t end = mrd(t, now, 6, pg * 4096, 4096, size, &d);
		if (i < TS_ARRAY_SIZE(first)) {
			CHECK_EQ_U64(pg, first[i][0]);
			CHECK_EQ_U64(d.dev_ios, 1);
			CHECK_EQ_U64(d.dev_bytes, first[i][2] * 4096);
		}
		reqs += d.dev_ios;
		bytes += d.dev_bytes;
		now = end;
		i++;
	}
	fclose(f);
	fprintf(stderr, "mapped random: %llu requests, %llu pages (block mode: 463, 11441)\n",
		(unsigned long long)reqs, (unsigned long long)(bytes / 4096));
	CHECK_EQ_U64(i, 1500);
	CHECK_EQ_U64(reqs, 463);
	CHECK_EQ_U64(bytes, 11441 * 4096);
	ts_tier_free(t);
}

/*
 * A mapped read of several pages that faults part-way: the pages it finds
 * in memory are hits and the rest come from the device, the faulting page
 * among them. Page 100 touched alone reads pages 84-115 (its window starts
 * ra/2 = 16 pages before it; the marker is page 108). A read of pages
 * 112-131 then finds 112-115 (4 pages) in memory and faults on 116, which
 * reads 100-131 (116-131 new, its marker 124, whose touch issues 132-163
 * ahead): 16 KiB of hits, at memory speed, exactly. A model that took the
 * faulting page off the hits twice gave 12 KiB.
 */
static void test_mapped_fault_hits(void)
{
	const uint64_t size = 48 * TS_MiB;
	struct ts_tier_cfg o = { .mem_bps = 1000000000 }; /* 1 ns per byte */
	struct ts_tier *t = cached("ssd-cloud", TS_GiB, &o);
	struct ts_tier_done d;
	uint64_t now = mrd(t, 0, 7, 100 * 4096, 4096, size, &d);
	CHECK_EQ_U64(d.dev_bytes, 32 * 4096);
	CHECK_EQ_U64(d.hit_bytes, 0);
	now += TS_NS_PER_S; /* the window in, long since */
	mrd(t, now, 7, 112 * 4096, 20 * 4096, size, &d);
	CHECK_EQ_U64(d.dev_ios, 2);
	CHECK_EQ_U64(d.dev_bytes, (16 + 32) * 4096);
	CHECK_EQ_U64(d.hit_bytes, 4 * 4096);
	/* the same pages again: all in memory, 20 pages at 1 ns a byte */
	now += TS_NS_PER_S;
	uint64_t end = mrd(t, now, 7, 112 * 4096, 20 * 4096, size, &d);
	CHECK_EQ_U64(d.dev_ios, 0);
	CHECK_EQ_U64(d.hit_bytes, 20 * 4096);
	CHECK_EQ_U64(end - now, 20 * 4096);
	ts_tier_free(t);
}

/*
 * The reader's time before each window a map issues (tier/cache.c,
 * MAP_WINDOW_NS, W below): a scan of a 512 KiB file (4 windows) through a
 * map, every page in order, on a tier of a fixed 1 ms (L) and no rate
 * limit, hits free. Page 0's fault sends [0, 32) at W (in at W+L); the
 * touch of page 24 sends [32, 64) at 2W+L (in at 2W+2L); page 32's sends
 * [64, 96) at 3W+L and waits for [32, 64) to 2W+2L; page 64's sends
 * [96, 128) at 3W+2L (in at 3W+3L) and waits for [64, 96) to 3W+2L; page
 * 96 issues none (the file ends) and waits for [96, 128): the scan ends
 * at 3W+3L, where a reader that costs nothing would end at 3L. W is
 * the request's map_window_ns (a host profile's, pipeline/hosts.lua:
 * epyc-kvm-2vcpu's 49 us), tier_base.h's figure where it names none.
 */
/* tier/cache.c's MAP_WINDOW_NS */
#define MAP_WINDOW_TEST_NS 29000ULL

static void mapped_window_cost(uint64_t req_w, uint64_t W);

static void test_mapped_window_cost(void)
{
	mapped_window_cost(0, MAP_WINDOW_TEST_NS);
	mapped_window_cost(49000, 49000);
}

static void mapped_window_cost(uint64_t req_w, uint64_t W)
{
	if (drv_add_tiers(set, "tier_cache_mapped_cost",
			  "tier \"mapcost\" { iops = 1000000, parallel = 64,\n"
			  "  latency = { read = { fixed = \"1ms\" } } }\n")) {
		CHECK(0);
		return;
	}
	const uint64_t L = 1000000, size = 512 * TS_KiB;
	struct ts_tier_cfg o = { .mem_bps = 1000000000000000ULL }; /* hits: 0 ns */
	struct ts_tier *t = cached("mapcost", TS_GiB, &o);
	struct ts_tier_done d;
	uint64_t now = 0, at[4] = { 0 };
	for (uint64_t pg = 0; pg < size / 4096; pg++) {
		struct ts_tier_req r = { .op = TS_TIER_READ, .file = 8, .off = pg * 4096,
					 .len = 4096, .size = size, .mapped = true,
					 .map_window_ns = req_w };
		memset(&d, 0, sizeof(d));
		now = ts_tier_submit(t, now, &r, &d);
		if (pg == 0 || pg == 24 || pg == 32 || pg == 64)
			at[pg == 0 ? 0 : pg == 24 ? 1 : pg == 32 ? 2 : 3] = now;
		CHECK_EQ_U64(d.dev_ios, pg == 0 || pg == 24 || pg == 32 || pg == 64);
	}
	CHECK_EQ_U64(at[0], W + L);
	CHECK_EQ_U64(at[1], 2 * W + L);
	CHECK_EQ_U64(at[2], 2 * W + 2 * L);
	CHECK_EQ_U64(at[3], 3 * W + 2 * L);
	CHECK_EQ_U64(now, 3 * W + 3 * L);
	ts_tier_free(t);
}

/*
 * A reader that copies records out of a map with a memcpy that touches a
 * record's first page, its last, then the rest (req->tail_first: glibc's
 * memcpy without ERMS) against one that copies in page order:
 * bench/mapped_copy.sh's file, @n records of 196,624 bytes copied from 16
 * bytes into each 200,704 (49 pages: every page of the file is touched),
 * on ssd-cloud. In order: windows of 32 pages, each issued ahead of the
 * reader (613 requests, 612 of them whole windows). Tail first, the
 * kernel keeps a marker (PG_readahead) on a page of every window: record
 * 0 (pages 0-48) faults on 0 ([0, 32), marker 24) and 48 ([32, 64),
 * marker 56), and its touch of 24, a marker the kernel no longer expects,
 * finds no missing page within 32 after it: no window. Record 1 (49-97)
 * faults on 97 ([81, 113), marker 105); its touch of 56 starts a window at
 * the next missing page, 64, of order-2 folios: [64, 80) in one request,
 * then page 80 alone (the folio [80, 84) would take in the cached 81);
 * the touch of 64, the marker expected, issues [96, 128) (113-127 missing,
 * folios of order 4): 4 requests. Record 2 faults on 146 ([130, 162)),
 * its touch of 105 reads [128, 130), then 128's [162, 192): 3; record 3
 * faults on 195 (192-210): 1. The kernel's trace of the same copy
 * (tests/tier/mapped_tail_first.txt, from bench/ra_trace.sh around
 * bench/mapped_copy.sh's tail mode: requests and pages per record, by the
 * fault that issued them) is the model's, record by record: 1,100
 * requests, 276 of them whole windows (block mode's 1,106 reads less the
 * mount's own 6). A model with one marker a file sent 1,000 and took
 * 867,973,174 ns.
 */
struct tail_run {
	uint64_t reqs, bytes, end, differ;
};

static struct tail_run run_records(unsigned n, bool tail_first, FILE *want)
{
	const uint64_t rec = 200704, size = n * rec;
	struct ts_tier *t = cached("ssd-cloud", TS_GiB, NULL);
	struct ts_tier_done d;
	struct tail_run r = { 0 };
	for (unsigned i = 0; i < n; i++) {
		struct ts_tier_req q = { .op = TS_TIER_READ, .file = 9, .off = i * rec + 16,
					 .len = 196624, .size = size, .mapped = true,
					 .tail_first = tail_first };
		memset(&d, 0, sizeof(d));
		r.end = ts_tier_submit(t, r.end, &q, &d);
		r.reqs += d.dev_reqs;
		r.bytes += d.dev_bytes;
		unsigned long long at, nreq, pages;
		if (want && (fscanf(want, "%llu %llu %llu", &at, &nreq, &pages) != 3 || at != i ||
			     nreq != d.dev_reqs || pages * 4096 != d.dev_bytes)) {
			if (!r.differ)
				fprintf(stderr, "record %u: %llu requests, %llu pages; the kernel's: %llu, %llu\n",
					i, (unsigned long long)d.dev_reqs,
					(unsigned long long)(d.dev_bytes / 4096), nreq, pages);
			r.differ++;
		}
	}
	ts_tier_free(t);
	return r;
}

static void test_mapped_tail_first(void)
{
	FILE *want = fixture("mapped_tail_first.txt");
	if (!want)
		return;
	struct tail_run f = run_records(400, false, NULL), tf = run_records(400, true, want);
	fclose(want);
	fprintf(stderr,
		"mapped copy, 400 records: in order %llu requests, %llu ns; tail first %llu, %llu ns "
		"(block mode on this host: 613 and 1,100 reads of the file)\n",
		(unsigned long long)f.reqs, (unsigned long long)f.end,
		(unsigned long long)tf.reqs, (unsigned long long)tf.end);
	CHECK_EQ_U64(f.bytes, tf.bytes);
	CHECK_EQ_U64(f.bytes, 400 * 200704);
	CHECK_EQ_U64(f.reqs, 613);
	CHECK_EQ_U64(tf.reqs, 1100);
	CHECK_EQ_U64(tf.differ, 0);
	CHECK_EQ_U64(f.end, 346592492);
	CHECK_EQ_U64(tf.end, 765525559);
	/* two pages: the first, then the last, is the order itself */
	struct ts_tier *a = cached("ssd-cloud", TS_GiB, NULL), *b = cached("ssd-cloud", TS_GiB, NULL);
	struct ts_tier_done da, db;
	struct ts_tier_req ra = { .op = TS_TIER_READ, .file = 3, .off = 4000, .len = 200,
				  .size = TS_MiB, .mapped = true },
			   rb = ra;
	rb.tail_first = true;
	memset(&da, 0, sizeof(da));
	memset(&db, 0, sizeof(db));
	CHECK_EQ_U64(ts_tier_submit(a, 0, &ra, &da), ts_tier_submit(b, 0, &rb, &db));
	CHECK_EQ_U64(da.dev_reqs, db.dev_reqs);
	ts_tier_free(a);
	ts_tier_free(b);
}

/* Writes are absorbed at memory speed up to the dirty limit, then run at
 * the tier's write rate; the dirty total never passes the limit. */
static void test_dirty(void)
{
	const uint64_t mem = TS_GiB;
	struct ts_tier *t = cached("ssd-cloud", mem, NULL);
	const uint64_t limit = mem / 5; /* vm.dirty_ratio = 20 */
	CHECK_EQ_U64(cache_num(t, "dirty_limit_bytes"), limit);
	struct ts_tier_done d;
	uint64_t now = 0, written = 0, t_throttle = 0, w_throttle = 0, over = 0;
	uint64_t mem_time = TS_MiB * 1000000000ULL / 10000000000ULL; /* 10 GB/s default */
	while (written < 1200 * TS_MiB) {
		uint64_t end = wr(t, now, 3, written, TS_MiB, &d);
		if (written + TS_MiB <= limit / 2) {
			/* Below the background limit: memory speed, no device. */
			CHECK(end - now <= mem_time + 1);
			CHECK(d.bound == TS_TIER_BOUND_MEMORY);
		}
		if (d.bound == TS_TIER_BOUND_DIRTY && !t_throttle && written > limit / 2) {
			t_throttle = now;
			w_throttle = written;
		}
		over += cache_num(t, "dirty_bytes") + cache_num(t, "writeback_bytes") > limit;
		written += TS_MiB;
		now = end;
	}
	CHECK(t_throttle > 0);
	CHECK(w_throttle <= limit + 256 * TS_MiB / 4); /* throttled near the limit */
	double rate = (double)(written - w_throttle) / TS_MiB / ((double)(now - t_throttle) / 1e9);
	fprintf(stderr, "writes: throttled after %llu MiB, then %.2f MiB/s (ssd-cloud cap 256)\n",
		(unsigned long long)(w_throttle / TS_MiB), rate);
	CHECK_NEAR(rate, 256, 0.02);
	CHECK_EQ_U64(over, 0);
	ts_tier_free(t);
}

/* fsync waits until the file's dirty data is written back, at the write
 * rate, then pays the sync latency; other files do not wait for it. */
static void test_fsync(void)
{
	struct ts_tier *t = cached("ssd-cloud", TS_GiB, NULL);
	struct ts_tier_done d;
	uint64_t now = 0;
	for (uint64_t off = 0; off < 64 * TS_MiB; off += TS_MiB)
		now = wr(t, now, 1, off, TS_MiB, &d);
	CHECK(now < 10 * TS_NS_PER_MS); /* absorbed */
	CHECK_EQ_U64(cache_num(t, "dirty_bytes"), 64 * TS_MiB);

	struct ts_tier_req s = { .op = TS_TIER_FSYNC, .file = 2 };
	uint64_t end = ts_tier_submit(t, now, &s, &d);
	CHECK(end - now < 10 * TS_NS_PER_MS); /* file 2 has nothing dirty */
	CHECK(d.bound != TS_TIER_BOUND_FLUSH);
	s.file = 1;
	end = ts_tier_submit(t, now, &s, &d);
	double flush = (double)(end - now) / 1e9, need = 64.0 / 256;
	fprintf(stderr, "fsync of 64 MiB dirty on ssd-cloud: %.4f s (64 MiB at 256 MiB/s = %.4f s)\n",
		flush, need);
	CHECK(d.bound == TS_TIER_BOUND_FLUSH);
	CHECK(flush >= need - 0.010); /* the rate limit's 10 ms tolerance */
	CHECK(flush < need * 1.05 + 0.01);
	CHECK_EQ_U64(cache_num(t, "dirty_bytes"), 0);
	/* Nothing left: the next fsync is one sync latency. */
	uint64_t end2 = ts_tier_submit(t, end, &s, &d);
	CHECK(end2 - end < 10 * TS_NS_PER_MS);
	/* The data stays cached, clean: reads hit. */
	rd(t, end2, 1, 0, TS_MiB, 0, &d);
	CHECK_EQ_U64(d.hit_bytes, TS_MiB);
	ts_tier_free(t);

	/* Without a page cache, writes go to the device and fsync is one
	 * sync latency. */
	t = cached("ssd-cloud", 0, NULL);
	end = wr(t, 0, 1, 0, TS_MiB, &d);
	CHECK_EQ_U64(d.dev_bytes, TS_MiB);
	CHECK(ts_tier_submit(t, end, &s, &d) - end < 10 * TS_NS_PER_MS);
	ts_tier_free(t);
}

/* Dirty data older than 30 s is written back in the background. */
static void test_expire(void)
{
	struct ts_tier *t = cached("ssd-cloud", TS_GiB, NULL);
	struct ts_tier_done d;
	wr(t, 0, 1, 0, TS_MiB, &d);
	rd(t, 29 * TS_NS_PER_S, 2, 0, 4096, 0, &d);
	CHECK_EQ_U64(cache_num(t, "dirty_bytes"), TS_MiB);
	rd(t, 31 * TS_NS_PER_S, 2, 8192, 4096, 0, &d);
	CHECK_EQ_U64(cache_num(t, "dirty_bytes"), 0);
	json_t *o = ts_tier_stats_json(t);
	json_t *w = json_object_get(json_object_get(o, TS_STATS_KEY_OPS), "write");
	CHECK_EQ_U64(json_integer_value(json_object_get(w, "device_bytes")), 0);
	json_decref(o);
	ts_tier_free(t);
}

/* The memory limit holds; LRU eviction calls the callback for each chunk. */
static void test_evict(void)
{
	struct evictlog log = { 0 };
	struct ts_tier_cfg o = { .evict = on_evict, .evict_ctx = &log };
	const uint64_t mem = 16 * TS_MiB;
	struct ts_tier *t = cached("essd-pl1", mem, &o);
	struct ts_tier_done d;
	uint64_t now = 0, over = 0;
	/* A hot 1 MiB region (file 5) touched between reads of file 6. */
	for (uint64_t off = 0; off < 64 * TS_MiB; off += 256 * TS_KiB) {
		now = rd(t, now, 6, off, 256 * TS_KiB, 0, &d);
		now = rd(t, now, 5, (off / (256 * TS_KiB)) % 4 * 256 * TS_KiB, 256 * TS_KiB, 0, &d);
		over += cache_num(t, "resident_bytes") > mem;
	}
	CHECK_EQ_U64(over, 0);
	CHECK(log.calls > 0);
	CHECK_EQ_U64(log.bad, 0);
	CHECK_EQ_U64(log.file, 6);
	/* Everything read past the limit was evicted (readahead included). */
	CHECK(log.bytes >= 64 * TS_MiB + TS_MiB - mem);
	CHECK_EQ_U64(cache_num(t, "resident_bytes"), mem);
	/* The hot region survived. */
	rd(t, now, 5, 0, TS_MiB, 0, &d);
	CHECK_EQ_U64(d.hit_bytes, TS_MiB);
	/* Writes past the limit evict too, writing dirty chunks back first. */
	for (uint64_t off = 0; off < 64 * TS_MiB; off += TS_MiB)
		now = wr(t, now, 8, off, TS_MiB, &d);
	CHECK(cache_num(t, "resident_bytes") <= mem);
	ts_tier_free(t);

	/* The smallest cache, one chunk, and reads larger than it: the
	 * limit holds and each read still waits for all of its data. */
	t = cached("ssd-cloud", TS_TIER_MIN_MEM, &o);
	now = 0;
	for (int i = 0; i < 8; i++) {
		uint64_t start = now;
		now = rd(t, now, 9, (uint64_t)i * 4 * TS_MiB, 4 * TS_MiB, 0, &d);
		CHECK_EQ_U64(d.dev_bytes >= 4 * TS_MiB, 1);
		CHECK(now - start >= 4 * TS_MiB * 1000000000ULL / (256 * TS_MiB) - 10 * TS_NS_PER_MS);
		CHECK(cache_num(t, "resident_bytes") <= TS_TIER_MIN_MEM);
	}
	ts_tier_free(t);
}

/* A read into a full cache is one device request, as Linux sends one
 * while it reclaims: reclaim does not split it chunk by chunk. Only a
 * read larger than the cache is sent in parts, each before reclaim
 * would drop one of its chunks. */
static void test_full_cache_run(void)
{
	const uint64_t mem = TS_MiB;
	struct ts_tier *t = cached("ssd-cloud", mem, NULL);
	struct ts_tier_done d;
	/* File 1 fills the cache (no size: no readahead). */
	uint64_t now = rd(t, 0, 1, 0, mem, 0, &d);
	CHECK_EQ_U64(d.dev_reqs, 1);
	CHECK_EQ_U64(cache_num(t, "resident_bytes"), mem);
	/* 512 KiB of file 2 evict half of file 1 and are one request. */
	now = rd(t, now, 2, 0, 512 * TS_KiB, 0, &d);
	CHECK_EQ_U64(d.dev_reqs, 1);
	CHECK_EQ_U64(d.dev_bytes, 512 * TS_KiB);
	CHECK_EQ_U64(cache_num(t, "resident_bytes"), mem);
	rd(t, now, 1, 512 * TS_KiB, 512 * TS_KiB, 0, &d);
	CHECK_EQ_U64(d.hit_bytes, 512 * TS_KiB);
	/* 4 MiB through a 1 MiB cache: one request per cache's worth. */
	now = rd(t, now, 3, 0, 4 * TS_MiB, 0, &d);
	CHECK_EQ_U64(d.dev_reqs, 4);
	CHECK_EQ_U64(d.dev_bytes, 4 * TS_MiB);
	CHECK(cache_num(t, "resident_bytes") <= mem);
	ts_tier_free(t);
}

static void test_forget(void)
{
	struct ts_tier *t = cached("ssd-cloud", TS_GiB, NULL);
	struct ts_tier_done d;
	uint64_t now = rd(t, 0, 1, 0, 4 * TS_MiB, 0, &d);
	now = wr(t, now, 1, 4 * TS_MiB, TS_MiB, &d);
	rd(t, now, 2, 0, TS_MiB, TS_MiB, &d); /* the size stops readahead at EOF */
	CHECK_EQ_U64(cache_num(t, "dirty_bytes"), TS_MiB);
	/* Truncate file 1 to 64 KiB: what lies beyond is gone, dirty included. */
	ts_tier_forget(t, 1, 64 * TS_KiB, 0);
	CHECK_EQ_U64(cache_num(t, "dirty_bytes"), 0);
	rd(t, now, 1, 0, 64 * TS_KiB, 0, &d);
	CHECK_EQ_U64(d.hit_bytes, 64 * TS_KiB);
	rd(t, now, 1, TS_MiB, 4096, 0, &d);
	CHECK_EQ_U64(d.hit_bytes, 0);
	/* A hole in the middle of file 2. */
	ts_tier_forget(t, 2, 256 * TS_KiB, 256 * TS_KiB);
	rd(t, now, 2, 0, TS_MiB, TS_MiB, &d);
	CHECK_EQ_U64(d.hit_bytes, 768 * TS_KiB);
	/* Unlink: nothing of file 2 stays. */
	uint64_t before = cache_num(t, "resident_bytes");
	ts_tier_forget(t, 2, 0, 0);
	CHECK_EQ_U64(cache_num(t, "resident_bytes"), before - TS_MiB);
	ts_tier_free(t);

	/* Many small files in a large cache, each unlinked: every forget
	 * visits only its file's chunks, and the cache ends empty. */
	t = cached("unlimited", 64 * TS_GiB, NULL);
	for (uint64_t f = 1; f <= 100000; f++)
		rd(t, 0, f, 0, 110 * TS_KiB, 110 * TS_KiB, &d);
	CHECK_EQ_U64(cache_num(t, "chunks"), 100000);
	for (uint64_t f = 1; f <= 100000; f++)
		ts_tier_forget(t, f, 0, 0);
	CHECK_EQ_U64(cache_num(t, "chunks"), 0);
	CHECK_EQ_U64(cache_num(t, "resident_bytes"), 0);
	ts_tier_free(t);
}

/* One request of @op at @now: direct or through the cache. */
static uint64_t io(struct ts_tier *t, uint64_t now, enum ts_tier_op op, bool direct, uint64_t off,
		   uint64_t len, struct ts_tier_done *done)
{
	struct ts_tier_req r = {
		.op = op, .file = 1, .off = off, .len = len, .direct = direct
	}; /* no size: no readahead, every device request is the one the twin is given */
	return ts_tier_submit(t, now, &r, done);
}

/*
 * O_DIRECT bypasses the page cache. Each step is checked against a twin
 * model without a page cache (same tier, same seed) given the device
 * requests the cached model should make: the completions must be equal to
 * the nanosecond, so a direct request reaches the device exactly as it
 * would with no cache, after the writeback of its range's dirty pages.
 */
static void test_direct(void)
{
	const uint64_t base = 8 * TS_MiB;
	struct ts_tier *t = cached("ssd-cloud", TS_GiB, NULL);
	struct ts_tier *twin = cached("ssd-cloud", 0, NULL);
	struct ts_tier_done d, dt;
	uint64_t now, end;

	/* A buffered read fills the cache. */
	io(t, 0, TS_TIER_READ, false, base, TS_MiB, &d);
	io(twin, 0, TS_TIER_READ, false, base, TS_MiB, &dt);
	CHECK_EQ_U64(d.dev_bytes, TS_MiB);
	uint64_t resident = cache_num(t, "resident_bytes");
	CHECK_EQ_U64(resident, TS_MiB);

	/* A direct read of cached pages: no hit, the device, nothing added. */
	now = TS_NS_PER_S;
	end = io(t, now, TS_TIER_READ, true, base, TS_MiB, &d);
	CHECK_EQ_U64(d.hit_bytes, 0);
	CHECK_EQ_U64(d.dev_bytes, TS_MiB);
	CHECK(d.bound != TS_TIER_BOUND_MEMORY);
	CHECK_EQ_U64(end, io(twin, now, TS_TIER_READ, false, base, TS_MiB, &dt));
	/* A direct read of uncached pages: not inserted, no readahead. */
	now = 2 * TS_NS_PER_S;
	end = io(t, now, TS_TIER_READ, true, 32 * TS_MiB, 256 * TS_KiB, &d);
	CHECK_EQ_U64(d.dev_bytes, 256 * TS_KiB);
	CHECK_EQ_U64(end, io(twin, now, TS_TIER_READ, false, 32 * TS_MiB, 256 * TS_KiB, &dt));
	CHECK_EQ_U64(cache_num(t, "resident_bytes"), resident);
	/* The cache is as it was: buffered reads hit what was there, and miss
	 * what the direct read did not bring in. */
	now = 3 * TS_NS_PER_S;
	io(t, now, TS_TIER_READ, false, base, TS_MiB, &d);
	CHECK_EQ_U64(d.hit_bytes, TS_MiB);
	io(t, now, TS_TIER_READ, false, 32 * TS_MiB + 128 * TS_KiB, 4096, &d);
	CHECK_EQ_U64(d.hit_bytes, 0);
	CHECK_EQ_U64(d.dev_bytes, 4096);
	io(twin, now, TS_TIER_READ, false, 32 * TS_MiB + 128 * TS_KiB, 4096, &dt);
	resident = cache_num(t, "resident_bytes");

	/* A direct read waits for the dirty pages of its range (only those)
	 * to be written back: one 4 KiB device write, then the read. */
	now = 4 * TS_NS_PER_S;
	end = io(t, now, TS_TIER_WRITE, false, 16 * TS_MiB, TS_MiB, &d);
	CHECK(d.bound == TS_TIER_BOUND_MEMORY);
	CHECK_EQ_U64(cache_num(t, "dirty_bytes"), TS_MiB);
	resident += TS_MiB;
	now = end;
	end = io(t, now, TS_TIER_READ, true, 16 * TS_MiB + 8192, 4096, &d);
	CHECK(d.bound == TS_TIER_BOUND_FLUSH);
	CHECK_EQ_U64(d.hit_bytes, 0);
	uint64_t w = io(twin, now, TS_TIER_WRITE, false, 16 * TS_MiB + 8192, 4096, &dt);
	CHECK(w > now);
	CHECK_EQ_U64(end, io(twin, w, TS_TIER_READ, false, 16 * TS_MiB + 8192, 4096, &dt));
	CHECK_EQ_U64(cache_num(t, "dirty_bytes"), TS_MiB - 4096);
	CHECK_EQ_U64(cache_num(t, "resident_bytes"), resident);

	/* A direct write over dirty pages: their writeback first, then the
	 * write; the pages leave the cache, nothing is dirty. */
	now = end;
	end = io(t, now, TS_TIER_WRITE, true, 16 * TS_MiB, 64 * TS_KiB, &d);
	CHECK(d.bound == TS_TIER_BOUND_FLUSH);
	CHECK_EQ_U64(d.hit_bytes, 0);
	CHECK_EQ_U64(d.dev_bytes, 64 * TS_KiB);
	/* Pages 0-1 and 3-15 of the range were dirty: two runs. */
	w = io(twin, now, TS_TIER_WRITE, false, 16 * TS_MiB, 8192, &dt);
	uint64_t w2 = io(twin, now, TS_TIER_WRITE, false, 16 * TS_MiB + 12288, 52 * TS_KiB, &dt);
	w = TS_MAX(w, w2);
	CHECK_EQ_U64(end, io(twin, w, TS_TIER_WRITE, false, 16 * TS_MiB, 64 * TS_KiB, &dt));
	CHECK_EQ_U64(cache_num(t, "dirty_bytes"), TS_MiB - 64 * TS_KiB);
	CHECK_EQ_U64(cache_num(t, "resident_bytes"), resident - 64 * TS_KiB);
	resident -= 64 * TS_KiB;

	/* A direct write over clean cached pages, unaligned: every page it
	 * touches is dropped (here 3: 100 bytes into page 1, 8 KiB long). */
	now = end + TS_NS_PER_S;
	end = io(t, now, TS_TIER_WRITE, true, base + 4096 + 100, 8192, &d);
	CHECK(d.bound != TS_TIER_BOUND_FLUSH);
	CHECK_EQ_U64(end, io(twin, now, TS_TIER_WRITE, false, base + 4096 + 100, 8192, &dt));
	CHECK_EQ_U64(cache_num(t, "resident_bytes"), resident - 3 * 4096);
	io(t, end, TS_TIER_READ, false, base, TS_MiB, &d);
	CHECK_EQ_U64(d.hit_bytes, TS_MiB - 3 * 4096);
	CHECK_EQ_U64(d.dev_bytes, 3 * 4096);

	/* The model's stats: direct reads count no hit bytes. */
	json_t *o = ts_tier_stats_json(t);
	json_t *r = json_object_get(json_object_get(o, TS_STATS_KEY_OPS), "read");
	CHECK_EQ_U64(json_integer_value(json_object_get(r, TS_STATS_KEY_CACHE_HIT_BYTES)),
		     2 * TS_MiB - 3 * 4096);
	json_decref(o);
	ts_tier_free(t);
	ts_tier_free(twin);
}

static long rss_kib(void)
{
	FILE *f = fopen("/proc/self/statm", "r");
	long pages = 0, res = 0;
	if (f) {
		if (fscanf(f, "%ld %ld", &pages, &res) != 2)
			res = 0;
		fclose(f);
	}
	return res * (sysconf(_SC_PAGESIZE) / 1024);
}

/* A 64 GiB page cache (a virtual ImageNet-scale run) keeps its bookkeeping
 * small: random 4 KiB reads over 1 TiB make entries, not memory. */
static void test_big(void)
{
	long before = rss_kib();
	struct ts_tier *t = cached("unlimited", 64 * TS_GiB, NULL);
	struct drv d;
	drv_init(&d, t, TS_TIER_READ, DRV_RANDOM, 4096, 16, 0);
	d.span = 1024 * TS_GiB;
	for (int i = 0; i < 300000; i++)
		drv_step(&d);
	/* Whole files: 110 KiB reads as ImageNet's average JPEG. */
	drv_init(&d, t, TS_TIER_READ, DRV_RANDOM, 110 * TS_KiB, 16, drv_now(&d));
	d.span = 140 * TS_GiB;
	for (int i = 0; i < 300000; i++)
		drv_step(&d);
	long grown = rss_kib() - before;
	fprintf(stderr, "64 GiB cache model: RSS grew by %ld KiB for %llu chunks\n", grown,
		(unsigned long long)cache_num(t, "chunks"));
	CHECK(grown < 256 * 1024);
	CHECK(cache_num(t, "resident_bytes") <= 64 * TS_GiB);
	ts_tier_free(t);
}

/* The order in which chunks leave, through extents split by a touch in
 * their middle, joined by reads in order, and cut by a forget: exactly
 * the order of LRU over chunks. */
struct evorder {
	uint64_t n, at[64];
};

static void on_evict_order(void *ctx, uint64_t file, uint64_t off, uint64_t len)
{
	struct evorder *o = ctx;
	if (o->n < 64 && len == 128 * 1024)
		o->at[o->n++] = file * 1000 + off / (128 * 1024);
}

static void test_extent_edges(void)
{
	const uint64_t K = 128 * 1024;
	struct evorder o = { 0 };
	struct ts_tier_cfg over = { .evict = on_evict_order, .evict_ctx = &o };
	struct ts_tier *t = cached("ssd-cloud", 8 * K, &over); /* 8 chunks */
	struct ts_tier_done d;
	rd(t, 0, 1, 0, 8 * K, 0, &d); /* chunks 0-7 of file 1, no readahead */
	CHECK_EQ_U64(cache_num(t, "chunks"), 8);
	rd(t, TS_NS_PER_S, 1, 3 * K, K, 0, &d); /* chunk 3 leaves the middle */
	CHECK_EQ_U64(d.hit_bytes, K);
	rd(t, TS_NS_PER_S, 2, 0, 3 * K, 0, &d); /* three new chunks: 0, 1, 2 go */
	CHECK_EQ_U64(o.n, 3);
	rd(t, TS_NS_PER_S, 1, 4 * K + 4096, K, 0, &d); /* chunks 4-5 to the front */
	CHECK_EQ_U64(d.hit_bytes, K);
	/* A page of chunk 6 and all of chunk 7 forgotten: 6 stays, in place. */
	ts_tier_forget(t, 1, 6 * K + 8192, 4096);
	ts_tier_forget(t, 1, 7 * K, K);
	CHECK_EQ_U64(cache_num(t, "chunks"), 7);
	CHECK_EQ_U64(cache_num(t, "resident_bytes"), 7 * K - 4096);
	for (uint64_t f = 3; f < 9; f++)
		rd(t, 2 * TS_NS_PER_S, f, 0, K, 0, &d);
	/* File 3 fits in what chunk 7 left; files 4-8 take 6, 3 and file 2. */
	static const uint64_t want[] = { 1000, 1001, 1002, 1006, 1003, 2000, 2001, 2002 };
	CHECK_EQ_U64(o.n, TS_ARRAY_SIZE(want));
	for (size_t i = 0; i < TS_ARRAY_SIZE(want) && i < o.n; i++)
		CHECK_EQ_U64(o.at[i], want[i]);
	/* Chunks 4-5 are the oldest now; a read of 4-6 touches them before
	 * chunk 6 needs room, so file 3 goes instead. */
	rd(t, 3 * TS_NS_PER_S, 1, 4 * K, 3 * K, 0, &d);
	CHECK_EQ_U64(d.hit_bytes, 2 * K);
	CHECK_EQ_U64(d.dev_bytes, K);
	CHECK_EQ_U64(o.n, TS_ARRAY_SIZE(want) + 1);
	CHECK_EQ_U64(o.at[o.n - 1], 3000);
	ts_tier_free(t);
}

/* Same seed, same completions, with the cache in the stack. */
/* Page-cache state as an input: warm leaves ranges resident at no device
 * time, the most recent ones when more than mem is warmed; written also
 * leaves them dirty, up to the dirty limit, for a flush to write. */
static void test_warm(void)
{
	const uint64_t mem = 16 * TS_MiB;
	struct ts_tier *t = cached("ssd-cloud", mem, NULL), *fresh = cached("ssd-cloud", mem, NULL);
	struct ts_tier_done d, df;
	ts_tier_warm(t, 0, 1, 0, 8 * TS_MiB, false);
	CHECK_EQ_U64(cache_num(t, "resident_bytes"), 8 * TS_MiB);
	CHECK_EQ_U64(cache_num(t, "dirty_bytes"), 0);
	/* No device time spent: another file's read costs what it does on a
	 * model that was never warmed, to the nanosecond. */
	CHECK_EQ_U64(rd(t, 0, 2, 0, TS_MiB, 0, &d), rd(fresh, 0, 2, 0, TS_MiB, 0, &df));
	CHECK_EQ_U64(d.dev_bytes, df.dev_bytes);
	uint64_t hit = 0, dev = 0;
	for (uint64_t off = 0; off < 8 * TS_MiB; off += TS_MiB) {
		rd(t, TS_NS_PER_S, 1, off, TS_MiB, 0, &d);
		hit += d.hit_bytes;
		dev += d.dev_bytes;
	}
	CHECK_EQ_U64(hit, 8 * TS_MiB);
	CHECK_EQ_U64(dev, 0);
	ts_tier_free(t);
	ts_tier_free(fresh);

	/* More than mem: what was warmed last stays. */
	t = cached("ssd-cloud", mem, NULL);
	ts_tier_warm(t, 0, 3, 0, 32 * TS_MiB, false);
	CHECK(cache_num(t, "resident_bytes") <= mem);
	rd(t, 0, 3, 31 * TS_MiB, TS_MiB, 0, &d);
	CHECK_EQ_U64(d.hit_bytes, TS_MiB);
	rd(t, 0, 3, 0, TS_MiB, 0, &d);
	CHECK_EQ_U64(d.hit_bytes, 0);
	ts_tier_free(t);

	/* Written: dirty up to the limit (20% of mem), the newest pages; a
	 * flush has that much to write, a clean warm file nothing. */
	t = cached("ssd-cloud", mem, NULL);
	ts_tier_warm(t, 0, 4, 0, 12 * TS_MiB, true);
	ts_tier_warm(t, 0, 5, 0, TS_MiB, false);
	uint64_t dirty = cache_num(t, "dirty_bytes");
	CHECK(dirty > 0 && dirty <= mem / 5);
	CHECK(dirty + 128 * 1024 > mem / 5); /* filled to the limit, within a chunk */
	struct ts_tier_req s = { .op = TS_TIER_FSYNC, .file = 5 };
	uint64_t clean_sync = ts_tier_submit(t, 0, &s, &d);
	s.file = 4;
	uint64_t end = ts_tier_submit(t, 0, &s, &d);
	CHECK(d.bound == TS_TIER_BOUND_FLUSH);
	/* At ssd-cloud's 256 MiB/s, less the rate limit's 10 ms tolerance. */
	CHECK(end >= (uint64_t)((double)dirty / (256.0 * TS_MiB) * 1e9) - 10 * TS_NS_PER_MS);
	CHECK(end > clean_sync);
	CHECK_EQ_U64(cache_num(t, "dirty_bytes"), 0);
	/* The clean part of the copy is resident: its first MiB hits. */
	rd(t, end, 4, 0, TS_MiB, 0, &d);
	CHECK_EQ_U64(d.hit_bytes, TS_MiB);
	ts_tier_free(t);

	/* No page cache: nothing to warm. */
	t = cached("ssd-cloud", 0, NULL);
	ts_tier_warm(t, 0, 1, 0, TS_MiB, false);
	rd(t, 0, 1, 0, TS_MiB, 0, &d);
	CHECK_EQ_U64(d.hit_bytes, 0);
	ts_tier_free(t);
}

/* A read past the end of a file of known size moves only the file's bytes;
 * one at or after the end costs no device time at all. */
static void test_eof(void)
{
	struct ts_tier *t = cached("ssd-cloud", 0, NULL), *u = cached("ssd-cloud", 0, NULL);
	struct ts_tier_done d, e;
	/* 1 MiB asked at 512 KiB of a 1 MiB file = the same as 512 KiB asked. */
	CHECK_EQ_U64(rd(t, 0, 1, 512 * 1024, TS_MiB, TS_MiB, &d),
		     rd(u, 0, 1, 512 * 1024, 512 * 1024, TS_MiB, &e));
	CHECK_EQ_U64(d.dev_bytes, 512 * 1024);
	CHECK_EQ_U64(d.dev_bytes, e.dev_bytes);
	uint64_t now = 10 * TS_NS_PER_S;
	CHECK_EQ_U64(rd(t, now, 1, TS_MiB, TS_MiB, TS_MiB, &d), now);
	CHECK_EQ_U64(d.dev_bytes, 0);
	/* Unknown size (0): charged as asked. */
	rd(t, now, 2, 0, TS_MiB, 0, &d);
	CHECK_EQ_U64(d.dev_bytes, TS_MiB);
	ts_tier_free(t);
	ts_tier_free(u);
}

static void test_determinism(void)
{
	uint64_t h[2] = { 0 };
	for (int k = 0; k < 2; k++) {
		struct ts_tier *t = cached("essd-pl0", 64 * TS_MiB, NULL);
		struct drv r, w;
		drv_init(&r, t, TS_TIER_READ, DRV_RANDOM, 16384, 4, 0);
		drv_init(&w, t, TS_TIER_WRITE, DRV_SEQ, 65536, 2, 0);
		r.span = w.span = 256 * TS_MiB;
		for (int i = 0; i < 20000; i++) {
			struct drv *x = drv_now(&r) <= drv_now(&w) ? &r : &w;
			drv_step(x);
			h[k] = h[k] * 1000003 ^ x->next[0];
		}
		ts_tier_free(t);
	}
	CHECK(h[0] == h[1]);
}

/*
 * The page-cache model's answers on fixed access patterns, as a digest of
 * every completion time, every field of each request's ts_tier_done, every
 * eviction callback and the cache's counters after each request.
 */
struct digest {
	uint64_t h, n;
};

static void dg(struct digest *d, uint64_t v)
{
	d->h = (d->h ^ v) * 0x100000001b3ULL;
	d->n++;
}

static void on_evict_dg(void *ctx, uint64_t file, uint64_t off, uint64_t len)
{
	struct digest *d = ctx;
	dg(d, 0xe1c7);
	dg(d, file);
	dg(d, off);
	dg(d, len);
}

enum pat {
	PAT_FILES, PAT_SEQ, PAT_RAND4K, PAT_MIXED, PAT_CAP, PAT_STREAM, PAT_EDGES, PAT_EPOCH,
	PAT_NR
};

/* PAT_EPOCH's files: EPOCH_FILES of them, each read whole once an epoch in
 * shuffled order (as a virtual loader reads a folder of images), half with
 * ids past the cache's direct file table (its hashed one). */
#define EPOCH_FILES 10000
static uint64_t epoch_file(uint32_t k)
{
	return k % 2 ? (1ULL << 24) + 3 * k : 2 + k;
}

/* Its size: a few pages to a few chunks, one in 16 of 1-2 MiB (windows
 * that grow past the readahead max), from the file's id. */
static uint64_t epoch_size(uint64_t file)
{
	uint64_t x = file * 0x9e3779b97f4a7c15ULL;
	x ^= x >> 29;
	return x % 16 ? 3000 + x % (400 * TS_KiB) : TS_MiB + x % TS_MiB;
}

static uint64_t run_pattern(enum pat p, uint64_t *count)
{
	struct digest d = { 0xcbf29ce484222325ULL, 0 };
	struct ts_tier_cfg over = { .evict = on_evict_dg, .evict_ctx = &d, .seed = 7 + p };
	uint64_t mem = p == PAT_CAP ? 4 * TS_MiB : p == PAT_STREAM ? 24 * TS_MiB : 32 * TS_MiB;
	if (p == PAT_EPOCH)
		mem = 256 * TS_MiB; /* a sixth of the files: some hits in later epochs */
	if (p == PAT_MIXED || p == PAT_EDGES)
		over.dirty_limit = 2 * TS_MiB;
	struct ts_tier *t = cached("ssd-cloud", mem, &over);
	struct ts_rng r;
	ts_rng_seed(&r, 1000 + p);
	uint64_t now = 0, seqoff[8] = { 0 };
	static uint32_t perm[EPOCH_FILES];
	for (uint32_t k = 0; k < EPOCH_FILES; k++)
		perm[k] = k;
	for (int i = 0; i < 30000; i++) {
		struct ts_tier_req q = { .op = TS_TIER_READ };
		struct ts_tier_done done = { 0 };
		uint64_t k = ts_rng_below(&r, 100);
		switch (p) {
		case PAT_FILES: /* whole small files, opened first */
			q.file = 10 + ts_rng_below(&r, 2000);
			q.size = 8 * TS_KiB + ts_rng_below(&r, 400 * TS_KiB);
			q.len = q.size;
			if (k < 50) {
				struct ts_tier_req m = { .op = TS_TIER_META, .file = q.file };
				dg(&d, ts_tier_submit(t, now, &m, &done));
			}
			break;
		case PAT_SEQ: { /* sequential streams over large files, readahead on */
			unsigned s = (unsigned)ts_rng_below(&r, 8);
			q.file = 100 + s;
			q.size = 64 * TS_MiB;
			q.len = (1 + ts_rng_below(&r, 64)) * 4096 - (k < 20 ? 100 : 0);
			q.off = seqoff[s];
			seqoff[s] = (seqoff[s] + q.len) % q.size;
			break;
		}
		case PAT_RAND4K: /* random unaligned reads of a few large files */
			q.file = 200 + ts_rng_below(&r, 3);
			q.off = ts_rng_below(&r, 256 * TS_MiB);
			q.len = 1 + ts_rng_below(&r, 3 * 4096);
			q.size = k < 50 ? 256 * TS_MiB + 4096 : 0;
			break;
		case PAT_MIXED: /* writes, reads, syncs, direct IO, forget and warm */
			q.file = 300 + ts_rng_below(&r, 6);
			q.off = ts_rng_below(&r, 24 * TS_MiB);
			q.len = 1 + ts_rng_below(&r, 256 * TS_KiB);
			q.size = 24 * TS_MiB + 256 * TS_KiB;
			if (k < 35)
				q.op = TS_TIER_WRITE;
			else if (k < 40)
				q.op = TS_TIER_FSYNC;
			else if (k < 45)
				q.direct = true;
			else if (k < 50) {
				q.direct = true;
				q.op = TS_TIER_WRITE;
			} else if (k < 52) {
				ts_tier_forget(t, q.file, q.off, k == 50 ? 0 : q.len);
				q.op = TS_TIER_META;
			} else if (k < 54) {
				ts_tier_warm(t, now, q.file, q.off, q.len, k == 52);
				q.op = TS_TIER_META;
			}
			break;
		case PAT_CAP: /* one page in each of many chunks: the entry cap binds */
			q.file = 400 + ts_rng_below(&r, 4);
			q.off = ts_rng_below(&r, 64 * TS_MiB / 4096) * 4096;
			q.len = 4096;
			q.op = k < 10 ? TS_TIER_WRITE : TS_TIER_READ;
			break;
		case PAT_STREAM: /* large files read whole through a full cache */
			q.file = 500 + ts_rng_below(&r, 5);
			q.size = 40 * TS_MiB + ts_rng_below(&r, 3) * 40000;
			q.len = k < 70 ? 4 * TS_MiB : (1 + ts_rng_below(&r, 48)) * 32768;
			q.off = k < 70 ? seqoff[q.file - 500] : ts_rng_below(&r, q.size);
			if (k < 70)
				seqoff[q.file - 500] = (q.off + q.len) % q.size;
			if (k >= 97)
				q.op = TS_TIER_WRITE;
			break;
		case PAT_EDGES: { /* requests starting and ending at chunk edges +- a page */
			q.file = 600 + ts_rng_below(&r, 2);
			q.size = 16 * TS_MiB;
			int64_t a = (int64_t)ts_rng_below(&r, 128) * 128 * 1024 +
				    ((int64_t)ts_rng_below(&r, 3) - 1) * 4096;
			q.off = a < 0 ? 0 : (uint64_t)a;
			q.len = ts_rng_below(&r, 12) * 128 * 1024 +
				((uint64_t)ts_rng_below(&r, 3)) * 4096 + (k < 5 ? 100 : 0);
			if (!q.len)
				q.len = 4096;
			if (k < 12)
				q.op = TS_TIER_WRITE;
			else if (k < 14)
				q.op = TS_TIER_FSYNC;
			else if (k < 17)
				q.direct = true;
			else if (k < 19) {
				q.direct = true;
				q.op = TS_TIER_WRITE;
			} else if (k < 22) {
				ts_tier_forget(t, q.file, q.off, k == 19 ? 0 : q.len);
				q.op = TS_TIER_META;
			} else if (k < 25) {
				ts_tier_warm(t, now, q.file, q.off, q.len, k == 22);
				q.op = TS_TIER_META;
			}
			break;
		}
		case PAT_EPOCH: /* files read whole once an epoch, shuffled */
			if (i % EPOCH_FILES == 0)
				ts_rng_shuffle_u32(&r, perm, EPOCH_FILES);
			q.file = epoch_file(perm[i % EPOCH_FILES]);
			q.size = epoch_size(q.file);
			q.len = q.size;
			if (k < 3) /* a few read in two parts */
				q.len = q.size / 2;
			break;
		default:
			break;
		}
		/* A prefetch hint (the virtual loader's, ahead of each
		 * request) changes no answer. */
		if (k % 2)
			ts_tier_prefetch(t, q.file + k % 3, q.off);
		uint64_t end = ts_tier_submit(t, now, &q, &done);
		dg(&d, end);
		dg(&d, done.hit_bytes);
		dg(&d, done.dev_bytes);
		dg(&d, done.dev_ios);
		dg(&d, done.qd);
		dg(&d, (uint64_t)done.bound);
		dg(&d, (uint64_t)done.err);
		const char *keys[] = { "resident_bytes", "dirty_bytes", "writeback_bytes", "chunks",
				       "evicted_chunks" };
		if (i % 64 == 0)
			for (size_t j = 0; j < sizeof(keys) / sizeof(*keys); j++)
				dg(&d, cache_num(t, keys[j]));
		/* Mostly overlapping requests, sometimes waiting for the last. */
		now += k < 10 ? (end > now ? end - now : 0) : ts_rng_below(&r, 200000);
	}
	ts_tier_free(t);
	*count = d.n;
	return d.h;
}

/* The model gives the answers the chunk-hash model gave (tier/cache.c with
 * an entry and a hash slot per chunk, before extents), but for one change
 * of rule since: a read into a full cache is one device request, no longer
 * one per chunk reclaim made room for (test_full_cache_run). That moved
 * completion times, I/O counts and queue depths only: with times left out
 * of the digest, the hits, device bytes and evictions of every pattern
 * are the chunk-hash model's. The digests below are those of Linux's
 * readahead as test_kernel_windows has it (a miss that opens a stream
 * reads its window with it, a read past the window is covered by the
 * windows it reaches, a large read's windows grow to what it has left,
 * a random miss leaves the stream alone): every pattern but the one that
 * never reads ahead (PAT_CAP) moved. Since, a chunk's pages from two reads
 * are there at their own read's time (test_chunk_two_reads): the times of
 * PAT_SEQ, PAT_MIXED, PAT_STREAM and PAT_EDGES moved with it. Since, the
 * device draws its lognormal's normal by a ziggurat (core/rng.h): the
 * same distribution by other draws, so every pattern's device times, and
 * the digest with them, moved. Since, the order of reads in flight
 * together does not count (test_ra_out_of_order): a read in a stream's
 * windows while its reads are in flight moves it on, and one right after
 * a read in flight past the windows opens none. The patterns whose reads
 * overlap in time moved: PAT_MIXED's, PAT_STREAM's and PAT_EDGES's
 * device bytes by +1.4%, +3.3% and +1.2% (reads that fell in a window
 * while the reads before them were in flight), PAT_RAND4K's by -16 KiB
 * (a stream no longer opened after a random read). */
static void test_same_answers(void)
{
	static const uint64_t want[PAT_NR][2] = {
		{ 0x4364b120e07f7717ULL, 468328 }, /* PAT_FILES */
		{ 0x9c351c8639a100ebULL, 332997 }, /* PAT_SEQ */
		{ 0xf0a085e9be9f9852ULL, 313553 }, /* PAT_RAND4K */
		{ 0x3e8c76ddc50895c1ULL, 331909 }, /* PAT_MIXED */
		{ 0x45ce06aa584c8a51ULL, 324281 }, /* PAT_CAP */
		{ 0x89df0f1e1256df3bULL, 3536297 }, /* PAT_STREAM */
		{ 0xaed1d361862bafc4ULL, 214345 }, /* PAT_EDGES */
		{ 0x1c7e396beff0f884ULL, 531485 }, /* PAT_EPOCH */
	};
	for (int p = 0; p < PAT_NR; p++) {
		uint64_t n, h = run_pattern((enum pat)p, &n);
		if (getenv("TS_PRINT_DIGESTS"))
			printf("\t\t{ 0x%016llxULL, %llu },\n", (unsigned long long)h,
			       (unsigned long long)n);
		CHECK_EQ_U64(h, want[p][0]);
		CHECK_EQ_U64(n, want[p][1]);
	}
}

/* File 7's disk blocks break at 64 KiB (two extents with a gap between:
 * tier/fsmeta.h, the data-layout rule); every other file is one run. */
static uint64_t brk_at_64k(void *ctx, uint64_t file, uint64_t off, uint64_t end)
{
	unsigned *calls = ctx;
	(*calls)++;
	return file == 7 && off < 64 * TS_KiB && end > 64 * TS_KiB ? 64 * TS_KiB : end;
}

/* A read over a break in its file's disk blocks goes to the device as two
 * requests sent at once, as the kernel ends a bio at an extent's gap: in
 * virtual time exactly the two pieces read at the same instant, the same
 * bytes; a readahead window over the break is split the same way, and a
 * file without one is sent as before. */
static void test_extent_break(void)
{
	unsigned calls = 0;
	struct ts_tier_cfg o = { .brk = brk_at_64k, .brk_ctx = &calls };
	struct ts_tier *a = cached("ssd-cloud", 64 * TS_MiB, &o);
	struct ts_tier *b = cached("ssd-cloud", 64 * TS_MiB, NULL);
	struct ts_tier_done da = { 0 }, d1 = { 0 }, d2 = { 0 };
	uint64_t ta = rd(a, 1000, 7, 0, 80 * TS_KiB, 0, &da);
	CHECK_EQ_U64(da.dev_reqs, 2);
	CHECK_EQ_U64(da.dev_bytes, 80 * TS_KiB);
	CHECK(calls > 0);
	uint64_t t1 = rd(b, 1000, 8, 0, 64 * TS_KiB, 0, &d1);
	uint64_t t2 = rd(b, 1000, 9, 64 * TS_KiB, 16 * TS_KiB, 0, &d2);
	CHECK_EQ_U64(ta, TS_MAX(t1, t2));
	CHECK_EQ_U64(d1.dev_reqs + d2.dev_reqs, 2);
	/* the same read on a file without a break: one request */
	rd(a, ta, 3, 0, 80 * TS_KiB, 0, &da);
	CHECK_EQ_U64(da.dev_reqs, 1);
	ts_tier_free(a);
	ts_tier_free(b);
	/* readahead: a 4 KiB read at the start of a 1 MiB file and its
	 * window over 64 KiB, against the same without the break */
	a = cached("ssd-cloud", 64 * TS_MiB, &o);
	b = cached("ssd-cloud", 64 * TS_MiB, NULL);
	struct ts_tier_done ra, rb;
	uint64_t now_a = 0, now_b = 0, reqs_a = 0, reqs_b = 0, bytes_a = 0, bytes_b = 0;
	for (uint64_t off = 0; off < 256 * TS_KiB; off += 4 * TS_KiB) {
		now_a = rd(a, now_a, 7, off, 4 * TS_KiB, TS_MiB, &ra);
		now_b = rd(b, now_b, 7, off, 4 * TS_KiB, TS_MiB, &rb);
		reqs_a += ra.dev_reqs;
		reqs_b += rb.dev_reqs;
		bytes_a += ra.dev_bytes;
		bytes_b += rb.dev_bytes;
	}
	CHECK_EQ_U64(bytes_a, bytes_b);
	CHECK_EQ_U64(reqs_a, reqs_b + 1);
	ts_tier_free(a);
	ts_tier_free(b);
}

int main(int argc, char **argv)
{
	char err[512];
	if (ts_tier_set_load_default(&set, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	const char *only = argc > 1 ? argv[1] : NULL;
#define RUN(f)                                      \
	do {                                        \
		if (!only || strcmp(only, #f) == 0) \
			f();                        \
	} while (0)
	RUN(test_hits);
	RUN(test_readahead);
	RUN(test_kernel_windows);
	RUN(test_fadvise);
	RUN(test_chunk_two_reads);
	RUN(test_ra_out_of_order);
	RUN(test_mapped_scan);
	RUN(test_mapped_random);
	RUN(test_mapped_fault_hits);
	RUN(test_mapped_window_cost);
	RUN(test_mapped_tail_first);
	RUN(test_dirty);
	RUN(test_fsync);
	RUN(test_expire);
	RUN(test_evict);
	RUN(test_full_cache_run);
	RUN(test_extent_break);
	RUN(test_forget);
	RUN(test_direct);
	RUN(test_big);
	RUN(test_warm);
	RUN(test_extent_edges);
	RUN(test_eof);
	RUN(test_determinism);
	RUN(test_same_answers);
	ts_tier_set_free(set);
	return tc_exit();
}
