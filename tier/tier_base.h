/*
 * tier_base.h — what the tier model (tier.c, tier.h) and the parts below it
 * share: the profiles, the requests, the stats and the fault rules as
 * types, and the functions of the files that need no model: profile.c
 * (profiles: load, look up, effective limits, print), rate.c's read cap,
 * fault.c's rules in text, and names.c (names of ops, bounds). The layers (tier_layer.h) and
 * profile.c include this, not tier.h, so that no file below the model sees
 * the model's own functions: tier.c uses them, they never use tier.c
 * (tests/include_cycles.py). Everyone else includes tier/tier.h.
 */
#ifndef TS_TIER_BASE_H
#define TS_TIER_BASE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "core/ts.h"

#include "core/opt.h"

/* ---- Profiles ---------------------------------------------------------- */

/*
 * A capacity formula, as cloud vendors publish them:
 *     value(C) = max{floor, min{a + b*C, cap}}   (C in GiB; cap 0 = none)
 * or, when nsteps > 0, a step table: the value of the last step whose
 * from_gib <= C (AWS gp2 throughput: 128 MiB/s below 334 GiB, 250 above).
 * A formula that is not set (set == false) means "no limit".
 */
#define TS_TIER_MAX_STEPS 8
struct ts_tier_formula {
	bool set;
	double a, b, cap, floor;
	unsigned nsteps;
	struct {
		double from_gib, value;
	} step[TS_TIER_MAX_STEPS];
};

/* A latency distribution for one kind of operation. */
enum ts_tier_dist_kind {
	TS_TIER_DIST_NONE,	/* zero latency */
	TS_TIER_DIST_FIXED,	/* always p50 */
	TS_TIER_DIST_LOGNORMAL, /* median p50, 99th percentile p99 */
	TS_TIER_DIST_UNIFORM,	/* uniform in [lo, hi] */
};
struct ts_tier_dist {
	enum ts_tier_dist_kind kind;
	double p50_ns, p99_ns; /* LOGNORMAL, FIXED (p50 only) */
	double lo_ns, hi_ns;   /* UNIFORM */
	/* A stall: with probability stall_p a request takes a further
	 * uniform [stall_lo_ns, stall_hi_ns] on top of its draw (the rare
	 * long writes of a cloud volume, fitted where a measured distribution
	 * shows them as a second mode); stall_p 0 = none, and no draw. */
	double stall_p, stall_lo_ns, stall_hi_ns;
};

/* Burst credit buckets. Credits accrue at the baseline rate up to the
 * bucket size; while credits remain the device runs at the burst rate. */
enum ts_tier_burst_kind {
	TS_TIER_BURST_NONE,
	TS_TIER_BURST_IOPS,  /* credits are I/Os (AWS gp2) */
	TS_TIER_BURST_BYTES, /* credits are bytes (AWS st1/sc1) */
};

/*
 * Evidence: where each number of a profile comes from. `measured` names
 * the measurement it was fitted to (and, in fit_case, the validation case
 * that holds it, which then cannot also check it), `spec` a vendor table,
 * `assumed` neither. Labelled per field; tier/tiers.lua documents the form.
 */
enum ts_tier_ev_label { TS_EV_NONE, TS_EV_MEASURED, TS_EV_SPEC, TS_EV_ASSUMED };
enum ts_tier_ev_field {
	TS_EV_IOPS,
	TS_EV_READ_IOPS,
	TS_EV_WRITE_IOPS,
	TS_EV_MIBPS,
	TS_EV_READ_MIBPS,
	TS_EV_WRITE_MIBPS,
	TS_EV_BURST, /* burst rate and bucket */
	TS_EV_QUEUE, /* the block device's queue limits */
	TS_EV_CAP_WINDOW, /* the IOPS caps' release window */
	TS_EV_LAT_READ,
	TS_EV_LAT_WRITE,
	TS_EV_LAT_META,
	TS_EV_LAT_SYNC,
	TS_EV_NR,
};
struct ts_tier_profile;
struct ts_tier_evidence {
	enum ts_tier_ev_label label; /* NONE: the field is not set, or not labelled */
	char *what;		     /* the measurement or table, one line */
	char *fit_case;		     /* validation case id it was fitted to, or NULL */
	/* How far the value may be off: it lies in [value x lo, value x hi].
	 * Required for `assumed`, optional for the rest (a published range);
	 * has_range false: taken as exact. */
	bool has_range;
	double lo, hi;
};
/*
 * The uncertainty band. A copy of @p with every field that carries a range
 * moved to the end of it that makes the tier slower (@end < 0: caps x lo,
 * latencies x hi) or faster (@end > 0: caps x hi, latencies x lo); @end 0
 * copies it as it is. The copy shares @p's strings (free @p after it, never
 * the copy). @names gets the fields moved, ", "-separated ("" when none);
 * returns how many.
 */
unsigned ts_tier_profile_band(const struct ts_tier_profile *p, int end,
			      struct ts_tier_profile *out, char *names, size_t n);

/* "iops" ... "latency.sync"; "measured", "spec", "assumed" ("-" for NONE). */
const char *ts_tier_ev_field_name(enum ts_tier_ev_field f);
const char *ts_tier_ev_label_name(enum ts_tier_ev_label l);

struct ts_tier_profile {
	char *name;
	char *desc;	/* one line: what the tier is */
	char *source;	/* the public source of its numbers (short) */
	char *where;	/* "file:line" of its declaration */
	uint64_t cap_min, cap_max, cap_default; /* bytes */

	/* Caps. The combined ones bind reads and writes together; the
	 * directional ones bind one direction. Bandwidth formulas are in
	 * MiB/s, IOPS formulas in I/O per second. */
	struct ts_tier_formula iops, read_iops, write_iops;
	struct ts_tier_formula mibps, read_mibps, write_mibps;

	uint64_t io_unit;      /* accounting unit: a request costs ceil(len/io_unit) I/Os; 0 = 1 per request */
	bool merge_sequential; /* sequential small I/Os merge up to io_unit (EBS) */
	bool charge_full_unit; /* bandwidth charged per whole unit (st1: every I/O <= 1 MiB costs 1 MiB) */

	enum ts_tier_burst_kind burst;
	struct ts_tier_formula burst_iops, burst_mibps; /* the rate while credits last */
	struct ts_tier_formula bucket;	     /* size in credits (I/Os or GiB of credit) */
	double burst_below_gib; /* no burst at or above this capacity in GiB; 0 = no such bound */

	unsigned parallel; /* requests the device serves at once; 0 = unbounded */
	/* The IOPS caps' release window (tier/rate.c): 0, requests spaced
	 * evenly at the cap; above 0, cap x window I/Os let through at the
	 * start of each window of this many ns, the rest held to the next. */
	double cap_window_ns;
	/* The block device's queue as the instance's kernel reports it, which
	 * block mode (tiersim disk mount) gives the loop device: readahead,
	 * the largest request, the block sizes and the rotational flag.
	 * Without a queue table, Linux's defaults (tier/tiers.lua). */
	struct ts_tier_queue {
		unsigned read_ahead_kb, max_sectors_kb;
		unsigned logical_block, physical_block; /* bytes */
		bool rotational;
		bool set; /* the tier has a queue table */
	} queue;
	struct ts_tier_dist lat_read, lat_write, lat_meta, lat_sync;

	bool has_evidence; /* an evidence table was given: every set field is labelled */
	struct ts_tier_evidence ev[TS_EV_NR];
};

/* What a profile means at one capacity. Rates are per second; 0 = no cap. */
struct ts_tier_limits {
	uint64_t capacity; /* bytes */
	double iops, read_iops, write_iops;
	double bps, read_bps, write_bps; /* bytes/s */
	uint64_t io_unit;
	enum ts_tier_burst_kind burst;
	double burst_iops, burst_bps; /* rate while credits last */
	double bucket_size;	      /* credits (I/Os or bytes) */
	double bucket_refill;	      /* credits per second (the baseline) */
	unsigned parallel;
};

/* The rate limits' guarantee to reads (tier/rate.c): reads that reach the
 * limits below the page cache (misses and readahead), issued at or after
 * t and charging B bytes in all, do not all complete before
 * t + B / ts_tier_read_cap() - TS_TIER_RATE_TOLERANCE_NS / 1e9 seconds.
 * 0: no bandwidth limit binds reads. */
#define TS_TIER_RATE_TOLERANCE_NS 10e6
double ts_tier_read_cap(const struct ts_tier_limits *lim);
/* The same for I/Os: reads that reach the limits, issued at or after t,
 * C of them each costing at least one I/O, do not all complete before
 * t + (C - 1) / ts_tier_read_iops_cap() - TS_TIER_RATE_TOLERANCE_NS / 1e9
 * seconds. 0: no IOPS limit binds reads, or a read may cost no I/O (@p
 * merges sequential reads into an io_unit), or @p releases its IOPS caps
 * in windows (cap_window_ns: two windows' worth may pass at once, more
 * than the tolerance lets through, so no such bound is claimed). */
double ts_tier_read_iops_cap(const struct ts_tier_profile *p, const struct ts_tier_limits *lim);
/* What bounds reads' I/Os whether or not they merge (tier/rate.c): reads
 * that reach the limits, issued at or after t, C of them each costing at
 * least one I/O, do not all complete before t + (C - 1) / peak -
 * TS_TIER_RATE_TOLERANCE_NS / 1e9 s (peak > 0), nor, each costing at most
 * bucket I/Os, before t + (C - bucket) / refill s (refill > 0: a burst
 * bucket of I/O credits, full at most, refilled at the baseline); peak is
 * 0 where @p releases its IOPS caps in windows (cap_window_ns). With
 * merges, a read costs no I/O only where it starts at the offset of its
 * file where an earlier read, still being served when it arrives, ended. */
struct ts_tier_read_ios {
	double peak, refill, bucket;
	bool merges;
};
void ts_tier_read_ios(const struct ts_tier_profile *p, const struct ts_tier_limits *lim,
		      struct ts_tier_read_ios *out);

struct ts_tier_set;

/* Loads one profile file into a new set. */
TS_WUR int ts_tier_set_load(const char *path, struct ts_tier_set **out, char *err, size_t errlen);
/* Loads the built-in tiers (tier/tiers.lua found through ts_data_find). */
TS_WUR int ts_tier_set_load_default(struct ts_tier_set **out, char *err, size_t errlen);
/* Adds the tiers of a user's file to @set; a tier of the same name
 * replaces the existing one. On error @set is unchanged. */
TS_WUR int ts_tier_set_add_file(struct ts_tier_set *set, const char *path, char *err,
				size_t errlen);
/* NULL when absent. */
const struct ts_tier_profile *ts_tier_set_find(const struct ts_tier_set *set, const char *name);
/* Like find, but an unknown name is TS_E_UNKNOWN with a message that lists
 * the known tiers. */
TS_WUR int ts_tier_set_lookup(const struct ts_tier_set *set, const char *name,
			      const struct ts_tier_profile **out, char *err, size_t errlen);
size_t ts_tier_set_count(const struct ts_tier_set *set);
/* Profiles in declaration order; NULL past the end. */
const struct ts_tier_profile *ts_tier_set_at(const struct ts_tier_set *set, size_t i);
void ts_tier_set_free(struct ts_tier_set *set);

/* Whether @p is a network volume of AWS (its name starts "aws-"), which an
 * instance's EBS limits (struct ts_tier_ebs) cap. */
bool ts_tier_is_ebs(const struct ts_tier_profile *p);

/* Effective limits of @p at @capacity bytes (0 = the profile's default).
 * A capacity outside the profile's range is -ERANGE with a message. */
TS_WUR int ts_tier_effective(const struct ts_tier_profile *p, uint64_t capacity,
			     struct ts_tier_limits *out, char *err, size_t errlen);
/* The table `tierfs --list-tiers [--capacity SIZE]` prints: one row per
 * tier with its effective caps, latency p50/p99, burst and source.
 * @capacity 0 = each tier's default. Returns 0 or -errno. */
int ts_tier_print_table(FILE *f, const struct ts_tier_set *set, uint64_t capacity);

/* The file system's layout: tier/tiers.lua's  filesystem "NAME" { ... },
 * where every field is labelled with its evidence. */
struct ts_fsmeta_params {
	unsigned block;		  /* bytes */
	unsigned inode_size;	  /* bytes */
	unsigned inode_ra_blocks; /* inode-table blocks read at once */
	unsigned dir_ra_blocks;	  /* directory blocks read at once */
	unsigned dirent_base;	  /* bytes of a directory entry besides its name */
	uint64_t extent_bytes;	  /* the largest extent */
	unsigned inline_extents;  /* extents held in the inode itself */
	unsigned leaf_extents;	  /* extents per extent-tree leaf block */
	uint64_t root_inode;	  /* the root folder's inode */
	uint64_t first_inode;	  /* the first inode mkfs gives a file */
	uint64_t journal_commit_ns; /* the journal commits the blocks changed this often */
	uint64_t journal_request;   /* bytes of the journal's largest write request */
};

/* The file system every rule charges: the tier profiles' "ext4". */
#define TS_FSMETA_NAME "ext4"

/* File system @name of @set (the tier profiles: tiers.lua and the files
 * added to it; the metadata rule, tier/fsmeta.h, reads with its layout), or NULL when none is declared. Valid while @set lives. */
const struct ts_fsmeta_params *ts_tier_set_fs(const struct ts_tier_set *set, const char *name);
/* The same, an error naming the file to declare it in when missing. */
TS_WUR int ts_tier_set_fs_lookup(const struct ts_tier_set *set, const char *name,
				 const struct ts_fsmeta_params **out, char *err, size_t errlen);
/* One row per labelled field of every tier: tier, field, label, what it
 * was fitted to or taken from; then the page-cache model's own figures
 * (below). Returns 0 or -errno. */
int ts_tier_print_evidence(FILE *f, const struct ts_tier_set *set);

/* The page-cache model's reader time for each window a map's fault issues
 * (tier/cache.c, mapped_read): measured, bench/window_gap.sh (block mode,
 * ext4 on ssd-cloud, a 48 MiB file scanned through a map, the scan thread
 * under chrt; 3 runs, load 2.5-2.7, kernel 6.18.44, the Xeon build host):
 * from the reader's switch-in after a window's completion woke it to the
 * loop device taking the next window's request (block_rq_issue), the
 * median of the runs' medians, 26 + 3 us; neither FUSE nor the loop worker
 * is inside it. Low, the same scan on a loop device over tmpfs, where the
 * reader never waits (a hot reader's run through a window, submit
 * included); high, the slowest run. `tiersim tiers --evidence` lists it.
 * main.lua's LMDB reader takes ~16 us more a window (its cursor and the
 * pipeline's hand-off): per sample and the source's, not charged here
 * (disk/README.md, "The window-to-window path"). The figure of a request
 * that names none (ts_tier_req.map_window_ns 0): a host profile's
 * map_window_ns gives its own (pipeline/hosts.lua; xeon-kvm-2vcpu's is
 * this one). */
#define TS_TIER_MAP_WINDOW_NS 29000ULL
#define TS_TIER_MAP_WINDOW_LO_NS 12600ULL
#define TS_TIER_MAP_WINDOW_HI_NS 38000ULL

/* ---- The model --------------------------------------------------------- */

enum ts_tier_op {
	TS_TIER_READ,
	TS_TIER_WRITE,
	TS_TIER_FSYNC,	   /* data and metadata of one file */
	TS_TIER_FDATASYNC, /* data of one file */
	TS_TIER_META,	   /* open, getattr, create, unlink, rename...: metadata latency */
	TS_TIER_OP_NR,
};
const char *ts_tier_op_name(enum ts_tier_op op);

#define TS_TIER_ADV_NORMAL 0
#define TS_TIER_ADV_RANDOM 1
#define TS_TIER_ADV_SEQUENTIAL 2

struct ts_tier_req {
	enum ts_tier_op op;
	uint64_t file; /* any stable id of the file (an inode number) */
	uint64_t off, len;
	uint64_t size; /* file size; 0 = unknown, which turns readahead off for the request */
	/* O_DIRECT: the page cache is bypassed. A direct read waits for dirty
	 * pages of its range to be written back, then reads the device and
	 * leaves the cache as it was; a direct write does the same, drops the
	 * cached pages it overlaps and completes when the device has the
	 * data (mm/filemap.c: kiocb_write_and_wait, kiocb_invalidate_pages). */
	bool direct;
	/* A read the kernel's own page cache sends (FUSE mode: a file tierfs
	 * opens kernel-cached, see fs/README.md): the kernel above has read
	 * ahead already and this is its request, sized by its readahead, so
	 * the model reads no window of its own on top (it still serves and
	 * fills its cache: the instance's memory). */
	bool kernel_ra;
	/* A read through a memory map (the page faults of a reader that
	 * touches [off, off+len) in order, as liblmdb's callers do): the
	 * kernel's read-around for faults instead of read()'s readahead (see
	 * tier/cache.c). Ignored with kernel_ra or direct. */
	bool mapped;
	/* With mapped: the reader copies [off, off+len) out of the map with a
	 * memcpy that touches its first page, then its last, then the rest
	 * in order (glibc's __memmove_avx_unaligned on a CPU without ERMS:
	 * its first vector and its last four before the forward loop; a host
	 * profile's copy_tail_first, pipeline/hosts.lua). The fault on the
	 * last page reads around it and cuts the windows the forward faults
	 * would read (disk/README.md, "The mapped read's touch order"). */
	bool tail_first;
	/* The reader's posix_fadvise on the file (TS_TIER_ADV_*, Linux's
	 * POSIX_FADV_* numbers): SEQUENTIAL doubles the readahead max,
	 * RANDOM turns readahead off (tier/cache.c). 0: NORMAL. */
	uint8_t advice;
	/* With mapped: the reader's CPU for each readahead window the map
	 * issues, before it is sent (tier/cache.c, mapped_read): its run
	 * through the window's pages and the fault that sends the next; a
	 * host profile's map_window_ns (pipeline/hosts.lua). 0:
	 * TS_TIER_MAP_WINDOW_NS. */
	uint64_t map_window_ns;
	/* When the request reached the model (ts_tier_submit sets it): a
	 * layer below sees it later when layers above held it. 0: the
	 * layer's own arrival time. */
	uint64_t arrival;
	/* The file's name, for fault rules with a path glob; NULL = unknown
	 * (no such rule matches then). Only read during the call. */
	const char *path;
};

/* What bound a request's completion time. */
enum ts_tier_bound {
	TS_TIER_BOUND_LATENCY, /* base latency only: no cap was in the way */
	TS_TIER_BOUND_MEMORY,  /* served from the page cache */
	TS_TIER_BOUND_IOPS,    /* an IOPS cap */
	TS_TIER_BOUND_BW,      /* a bandwidth cap */
	TS_TIER_BOUND_BURST,   /* the baseline rate after the burst credits ran out */
	TS_TIER_BOUND_SLOTS,   /* all of the device's parallel slots were busy */
	TS_TIER_BOUND_DIRTY,   /* a write waited for writeback below the dirty limit */
	TS_TIER_BOUND_FLUSH,   /* an fsync or a direct IO waited for dirty data to be written back */
	TS_TIER_BOUND_INSTANCE, /* the instance's EBS limits (struct ts_tier_ebs), not the volume's */
	TS_TIER_BOUND_NR,
};
const char *ts_tier_bound_name(enum ts_tier_bound b);

struct ts_tier_done {
	uint64_t hit_bytes;  /* served from the page cache */
	uint64_t dev_bytes;  /* moved to or from the device (readahead included) */
	uint64_t dev_ios;    /* device I/Os charged (io_unit accounting) */
	uint64_t dev_reqs;   /* requests the device served, whatever their size */
	uint32_t qd;	     /* device requests in flight (issued, not completed) when this one arrived */
	enum ts_tier_bound bound;
	int err; /* 0, or a -errno the request should fail with (fault layer) */
	uint64_t end_ns; /* the model's completion, before the caller's floor is taken off */
};

/* Called (under the model's lock, so keep it short and never call back
 * into the model) when the page cache drops a range; tierfs uses it to
 * invalidate the kernel's pages of a file opened in cached mode. */
typedef void (*ts_tier_evict_fn)(void *ctx, uint64_t file, uint64_t off, uint64_t len);
/* Where @file's disk blocks stop following each other first in (@off,
 * @end), else @end (tier/fsmeta.h, the data-layout rule): the page cache
 * ends a device request there, as the kernel ends a bio where a file's
 * extents leave a gap. Same calling rules as ts_tier_evict_fn. */
typedef uint64_t (*ts_tier_brk_fn)(void *ctx, uint64_t file, uint64_t off, uint64_t end);

/* The smallest page cache the model keeps, one 128 KiB chunk (mem = 0
 * means none). */
#define TS_TIER_MIN_MEM (128 * TS_KiB)

/*
 * The EBS limits of the instance a network volume is attached to (AWS
 * "Amazon EBS-optimized instances": baseline and maximum IOPS and
 * throughput per instance type). They cap the instance's traffic to the
 * volume above the volume's own caps. Rates per second; a rate of 0 sets
 * no limit. With burst_s > 0 and a maximum above the baseline, the
 * instance runs at its maximum from a bucket holding burst_s seconds of
 * (maximum - baseline), filled at the baseline and starting full, as a
 * volume's credits do ("maximum performance for 30 minutes at least once
 * every 24 hours"); I/Os are counted as the volume counts them (io_unit,
 * merge_sequential). All 0: no instance limit.
 */
struct ts_tier_ebs {
	double iops, bps;	  /* baseline */
	double max_iops, max_bps; /* while the bucket lasts; below the baseline: the baseline */
	double burst_s;		  /* seconds at the maximum from a full bucket; 0 = no burst */
};

/* The instance's EBS limits as options, the same in a scenario's mount{}
 * (scenario/scenario.c) and tierfs's -o (fs/tierfs.c): the struct, its
 * option rows (TS_TIER_EBS_OPT_ROWS(OFF), OFF(f) the offset of member f of
 * the table's struct, struct ts_tier_ebs_opts ebs in it) and the limits
 * they give (ts_tier_ebs_of). */
struct ts_tier_ebs_opts {
	double iops, max_iops, mbps, max_mbps; /* MB/s: 10^6 bytes */
	uint64_t burst_ns;		       /* at the maximum from a full bucket */
};
#define TS_TIER_EBS_OPT_ROWS(OFF)                                                                \
	{ "ebs_iops", TS_OPT_DOUBLE, OFF(ebs.iops), "0", 0, 1e9, "IOPS",                        \
	  "the instance's baseline EBS IOPS, above an aws-* tier's own caps (tiersim prices "  \
	  "lists each instance's); 0 = no limit" },                                             \
	{ "ebs_max_iops", TS_OPT_DOUBLE, OFF(ebs.max_iops), "0", 0, 1e9, "IOPS",                \
	  "the instance's EBS IOPS while its burst lasts (ebs_burst); 0 = the baseline" },      \
	{ "ebs_mbps", TS_OPT_DOUBLE, OFF(ebs.mbps), "0", 0, 1e9, "MB/s",                        \
	  "the instance's baseline EBS throughput in MB/s (10^6 bytes); 0 = no limit" },       \
	{ "ebs_max_mbps", TS_OPT_DOUBLE, OFF(ebs.max_mbps), "0", 0, 1e9, "MB/s",                \
	  "the instance's EBS throughput while its burst lasts; 0 = the baseline" },            \
	{ "ebs_burst", TS_OPT_DURATION, OFF(ebs.burst_ns), "0", 0, 0, "ns",                     \
	  "how long the instance holds its EBS maximum from a full bucket (AWS: 30 minutes "  \
	  "for the smaller types); 0 = no burst" }
void ts_tier_ebs_of(const struct ts_tier_ebs_opts *o, struct ts_tier_ebs *out);
/* Whether @e sets a limit. */
bool ts_tier_ebs_any(const struct ts_tier_ebs *e);

/* One instance's EBS limits shared by the volumes attached to it (a RAID
 * array's): its IOPS and throughput limiters, made once, which every volume
 * model made with it (cfg.instance) submits through, so that the instance
 * caps the volumes' sum, as AWS's does. Made for volumes of one profile at
 * one capacity (their I/O unit and merge rule count the instance's I/Os);
 * it must outlive the models. */
struct ts_tier_instance;
TS_WUR int ts_tier_instance_new(const struct ts_tier_ebs *e, const struct ts_tier_profile *p,
				uint64_t capacity, struct ts_tier_instance **out, char *err,
				size_t errlen);
void ts_tier_instance_free(struct ts_tier_instance *in);

struct ts_tier_cfg {
	const struct ts_tier_profile *profile; /* must outlive the model */
	uint64_t capacity;     /* bytes; 0 = the profile's default */
	uint64_t mem;	       /* page-cache bytes; 0 = no page cache */
	uint64_t seed;	       /* latency samples are reproducible from it */
	uint64_t floor_ns;     /* per-request overhead already paid by the caller (FUSE round trip) */
	uint64_t dirty_limit;  /* bytes of dirty data before writes throttle; 0 = 20% of mem */
	uint64_t ra_max;       /* largest readahead window in bytes; 0 = 128 KiB (Linux's default) */
	uint64_t mem_bps;      /* page-cache copy rate in bytes/s; 0 = the built-in figure */
	/* The Linux whose read() readahead the page-cache model follows, as
	 * major * 100 + minor (618: 6.18; 0: the default, windows placed as
	 * before 6.17). From TS_TIER_RA_ALIGNED_SINCE an async window's end
	 * is rounded down to its folios' size (tier/cache.c, ra_window);
	 * before, windows follow one another at their ramped sizes alone.
	 * Not a tierfs option: a replay's setting (tiersim replay
	 * --ra-kernel), for the kernel it predicts. */
	unsigned ra_kernel;
	ts_tier_evict_fn evict;
	void *evict_ctx;
	ts_tier_brk_fn brk; /* NULL: every file one run of disk blocks */
	void *brk_ctx;
	struct ts_tier_ebs ebs; /* the instance's EBS limits (all 0: none) */
	struct ts_tier_instance *instance; /* or those shared with other volumes (ebs then 0) */
	/* Every call comes from one thread at a time, the stats readers
	 * aside (a virtual run): the model takes no lock. */
	bool serial;
	/* No one reads the device's queue depth (done->qd, the stats'
	 * queue_depth; a virtual run prints neither): the device keeps no
	 * heap of the ends of the requests in flight, which is all it is
	 * for. Timing is the same either way. */
	bool no_qd;
	/* No one reads the requests' latency histograms (the stats' per-op
	 * lat; a DLIO virtual run reads only what bound them): none is kept,
	 * a bucket's index and add less per request. Timing is the same. */
	bool no_lat;
};
/* From this kernel on windows' ends are aligned (mm/readahead.c,
 * page_cache_async_ra: "mm/readahead: Terminate async readahead on
 * natural boundary", Ryan Roberts; its v5 posted on 2025-06-09, after
 * 6.16-rc1, so first in Linux 6.17). */
#define TS_TIER_RA_ALIGNED_SINCE 617u
/* Options for the numeric fields of struct ts_tier_cfg (capacity, mem, seed,
 * floor, dirty_limit, ra_max, mem_bps), for tierfs -o and Lua setters. */
extern const struct ts_opt ts_tier_cfg_opts[];


/* What the model has done so far, per op. Bytes count reads and writes. */
struct ts_tier_op_stats {
	uint64_t count, bytes, hit_bytes, dev_bytes, dev_ios, errors;
	/* bytes of requests served from memory without waiting for the device
	 * (hit_bytes also counts hits on pages readahead has not brought yet) */
	uint64_t nowait_bytes;
	double lat_mean_ns; /* arrival to completion, as returned */
	uint64_t lat_p50_ns, lat_p99_ns, lat_p999_ns, lat_max_ns;
};

/* A snapshot of the model's counters and of each layer's state (tier_json.h
 * gives it as JSON). Taken without the model's lock from relaxed atomics,
 * so the fields are each exact but not taken at one instant. */
struct ts_tier_stats {
	const struct ts_tier_profile *profile;
	struct ts_tier_limits limits;
	uint64_t floor_ns, mem;
	struct ts_tier_op_stats op[TS_TIER_OP_NR];
	uint64_t bound[TS_TIER_BOUND_NR]; /* requests whose completion each bound set */
	bool has_faults;		  /* the fault layer (always there) */
	struct {
		uint64_t rules, injected;
	} faults;
	bool has_cache; /* mem > 0 */
	struct {
		uint64_t mem, resident, dirty, writeback, dirty_limit, evicted_chunks, chunks,
			chunk_bytes;
	} cache;
	bool has_bucket; /* a burst bucket in force */
	struct {
		enum ts_tier_burst_kind kind;
		double credits, size;
	} bucket;
	uint32_t queue_depth; /* device requests in flight at the last request */
};

/* ---- Fault injection (for tests of IO error paths) --------------------- */

/* Fail requests of @op (TS_TIER_OP_NR = any) that touch [off, off+len)
 * of @file (UINT64_MAX = any file; len 0 = any offset) and whose path
 * matches @path (below; "" = any path) with @err (a -errno), each with
 * @probability in [0, 1] drawn from the model's seed. At most
 * TS_TIER_MAX_FAULTS rules; a request fails with the first rule that
 * matches and draws a failure. A failed request completes at once, with
 * no device time, and leaves the cache as it was.
 *
 * @path is a glob (fnmatch(3)) on the request's path (struct ts_tier_req;
 * a request without one never matches a rule with a glob). A glob without
 * a '/' matches the file's last component ("s017.jpg", "*.rec"); one with
 * a '/' matches the whole path, '*' crossing '/' as in find -path
 * ("/train/n0144*" matches /train/n01440764/x.JPEG). */
#define TS_TIER_MAX_FAULTS 16
#define TS_TIER_FAULT_PATH_MAX 256
struct ts_tier_fault {
	enum ts_tier_op op;
	uint64_t file, off, len;
	double probability;
	int err;
	char path[TS_TIER_FAULT_PATH_MAX];
};

/*
 * One rule in text, as tierfs's fault= option and control command take it:
 *
 *     OP:ERRNO[:PROBABILITY][:path=GLOB][:off=START-END]
 *
 * OP is read, write, fsync, fdatasync, meta or any; ERRNO a name (EIO,
 * ENOSPC...) or a number; PROBABILITY in [0, 1] (default 1); START-END a
 * byte range, END exclusive, sizes with units (off=4k-8k). Fields after
 * ERRNO come in any order; GLOB cannot hold ':'. The rule applies to
 * every file (file = UINT64_MAX). Returns 0, or TS_E_PARSE with one line
 * in @err naming the field.
 */
TS_WUR int ts_tier_fault_parse(const char *spec, struct ts_tier_fault *out, char *err,
			       size_t errlen);
/* The text form of @f (parsing it gives @f back, file aside) into @buf;
 * returns what snprintf returns. */
int ts_tier_fault_format(const struct ts_tier_fault *f, char *buf, size_t n);

#endif
