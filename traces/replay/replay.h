/*
 * replay.h — replay a trace, closed loop per thread: in virtual time through
 * the tier model (a prediction), or in real time against a directory (a
 * measurement).
 *
 * The closed-loop rule. Each thread of the trace replays its ops in order.
 * When the recorded op i was submitted after every earlier op of its thread
 * had completed, it is issued at the replayed completion of those ops plus
 * the recorded think time (submit_i minus the latest recorded completion),
 * so a faster tier shortens the run as it would in reality. When it was
 * submitted while an earlier op was still in flight (async IO, the kernel's
 * readahead), it is issued the recorded distance after the latest completion
 * of the thread's ops before it, where one came after the previous submit
 * (the in-flight rule, rules.c); else it keeps its recorded distance from
 * the previous submit. Each thread starts at its
 * recorded first submit. --no-think drops the think times; --speed S divides
 * them (and the start offsets and async gaps) by S. Threads are independent
 * except where one was idle while others ended (a parent waiting for its
 * workers: join_apply() in rules.c); requests of thread id 0 come from the
 * kernel (release, writeback) and follow the workload request before them
 * (anchor_apply()).
 *
 * The wait rule. A trace with CPU samples (format version 2) splits each
 * think gap into work, which keeps its duration, and waiting, which is
 * elastic downwards: a late thread's wait ends at the moment recorded,
 * never before its own work is done, and no wait grows (wait_part() in
 * rules.c; traces/README.md defends it).
 * cfg.closed_loop, or a trace without samples, keeps the closed-loop rule
 * above for every gap, as fio-like traces (think time by sleeping) need.
 *
 * Virtual time: a discrete-event loop over threads ordered by their next
 * issue time submits each op to one ts_tier model (the code tierfs uses),
 * as the request tierfs makes (traces/tier_rule.h); ops the recording
 * tierfs did not submit to its model (TS_REC_F_NOTIER), or that the rule
 * does not charge, keep their recorded latency; with a CPU sample, an op completes no sooner
 * than its recorded syscall in tierfs took (tierfs replies at the later of
 * the two), plus the lateness tierfs's reply had when recorded. Same trace, tier and seed: same result, to
 * the nanosecond.
 */
#ifndef TS_REPLAY_H
#define TS_REPLAY_H

#include <stdbool.h>
#include <stdio.h>

#include <jansson.h>

#include "core/hist.h"
#include "tier/tier.h"
#include "traces/wakes.h"
#include "traces/trace.h"

struct ts_fsmeta_params;

struct ts_replay_cfg {
	bool no_think;
	double speed; /* think-time scale divisor; 0 = 1 */
	/* With a wake file: the speed leaves each thread's pauses (a timer's
	 * sleep, a training step's) as recorded and scales the rest of its
	 * gaps (--band, band.c). */
	bool speed_keeps_pauses;
	/* Virtual time: each op as replayed, one line a record (--ops,
	 * ts_replay_ops_head() gives the columns); NULL: none. */
	FILE *ops;
	/* Taken off every recorded think gap: a real-time replay sets it to the
	 * recording's FUSE round trip, which the gaps tierfs saw include and
	 * which the replay's own syscalls pay again. */
	uint64_t think_less_ns;
	bool closed_loop; /* every gap is think time (no wait rule) */
	/* Virtual time: the FUSE-mode recording predicted as the same job on a
	 * kernel file system over the emulated disk (block mode, disk/README.md).
	 * The kernel serves in memory what tierfs was asked for through FUSE
	 * (open, getattr, flush, release...): those ops cost nothing, and the
	 * recording's FUSE round trip (its measured floor) comes off every
	 * think gap (think_less_ns), where it delivered the request and its
	 * reply; the device's requests pay the model's whole latency (the tier
	 * model's floor 0), as the loop device's do. The gap after an op the
	 * kernel serves without sleeping is the thread's time on a CPU in it,
	 * from the CPU samples (the in-kernel rule). */
	bool kernel_fs;
	/* kernel_fs: predict block mode charged from tierfs's receipt
	 * (`tiersim disk mount --loop-issue=off|watch`, or where the issue
	 * cannot be timed): the gap after a read the device served keeps the
	 * round trip (the loop rule, rules.c), and the read its recorded
	 * lateness (virtual.c). Off: block mode as `tiersim disk mount` runs
	 * it, each request charged from the loop device's issue, tierfs's
	 * mean hop and lateness taken off its reply. */
	bool loop_receipt;
	/* The recording's tierfs ran with carry= (its header's mount_opts
	 * say "carry=true"; not with kernel_fs, nor for a disk image's
	 * mount, where tierfs does not carry): a reply of the thread's that
	 * waits on the model goes as many round trips before the model's
	 * completion as the thread owes for its requests that did not wait
	 * (ts_tier_rule_carry(), traces/tier_rule.h), as tierfs replied. */
	bool carry;
	/* kernel_fs, the in-kernel rule: a FUSE request's own CPU on the
	 * calling thread beyond a kernel file system's for the same call
	 * (its hand-off to the daemon and the reply's delivery), which the
	 * recording's CPU samples hold once per request: fuse_cpu_ns a
	 * request and fuse_cpu_page_ns a page of a direct read's or write's
	 * buffer (FUSE pins and releases the buffer's pages for the daemon
	 * to copy into or from), taken off the thread's time on a CPU, what
	 * a gap cannot hold off the next (rules.c). Properties of the host
	 * that recorded (pipeline/hosts.lua's replay_fuse_cpu_ns and
	 * replay_fuse_cpu_page_ns); 0: off. A GETATTR request that is a
	 * lookup (the high-level API's getattr) takes fuse_cpu_lookup_ns, one
	 * that is a getattr (setup.c tells them apart) fuse_cpu_getattr_ns,
	 * and an OPEN fuse_cpu_open_ns, instead of fuse_cpu_ns (the host's
	 * replay_fuse_cpu_lookup_ns, _getattr_ns and _open_ns, measured by
	 * bench/close_cpu.sh; its replay_fuse_cpu_ns where it has none). */
	uint64_t fuse_cpu_ns, fuse_cpu_page_ns, fuse_cpu_lookup_ns, fuse_cpu_open_ns;
	uint64_t fuse_cpu_getattr_ns;
	/* kernel_fs, the page-lock wake-up (rules.c): a FUSE read that waited
	 * on the device is, on a kernel file system, a sleep on a page in
	 * flight, which the device's completion ends by unlocking the page
	 * and waking the thread; the gap after it grows by this much (the
	 * wake-up's own time: from the completion to the thread back on a
	 * CPU), which the FUSE round trip taken off it held through FUSE.
	 * A property of the host that recorded (pipeline/hosts.lua's
	 * replay_page_wake_ns, measured there in block mode); 0: off. */
	uint64_t page_wake_ns;
	/* kernel_fs, the IO path's CPU (rules.c): on a kernel file system
	 * the reading thread itself sends the device's reads its read asks
	 * for (the readahead: pages allocated and charged to its cgroup,
	 * added to the page cache, the request built and sent) and sleeps
	 * and wakes on them, CPU that through FUSE tierfs's model spent for
	 * it; this much a device read request the read sent, added to the
	 * gap after it. The host's (pipeline/hosts.lua's
	 * replay_dev_read_cpu_ns, measured in block mode); 0: off. */
	uint64_t dev_read_cpu_ns;
	/* kernel_fs, the reply's size part (rules.c): how much longer than
	 * a 4 KiB read's (the floor's) a 128 KiB read's reply took the
	 * recording's FUSE to deliver (the kernel's copy of its bytes), in
	 * proportion for other sizes; taken off the gap after a read with
	 * the round trip. The host's (pipeline/hosts.lua's
	 * replay_fuse_size_ns, measured by tiersim disk mount as the loop
	 * hop's size part); 0: off. */
	uint64_t fuse_size_ns;
	/* kernel_fs, the page-cache read's FUSE part (rules.c): what the gap
	 * after a read the kernel's page cache sent through FUSE
	 * (TS_REC_F_KERNEL_RA) held of FUSE's at 4 KiB, taken off in place of
	 * the recording's floor, the size part above on top: how much longer
	 * a job's distance from such a read's completion to its next request
	 * was through FUSE than in block mode, less the size part. The host's
	 * (pipeline/hosts.lua's replay_fuse_ra_ns); 0: the floor. */
	uint64_t fuse_ra_ns;
	/* kernel_fs with fuse_ra_ns, the page-cache read's stretch
	 * (rules.c): how many times longer the job's own time after such a
	 * read ran through FUSE than on a kernel file system (its CPU work
	 * slowed by the daemon's beside it); what is left of that gap once
	 * fuse_ra_ns and the size part are off is divided by it. The host's
	 * (pipeline/hosts.lua's replay_fuse_stretch); 0 or 1: none. */
	double fuse_stretch;
	/* kernel_fs without the in-kernel rule: those gaps keep their recorded
	 * length less the round trip (a job that sleeps between its ops). */
	bool keep_gaps;
	/* The recording's round trip (FUSE's, and in block mode the loop
	 * device's hop with it): off-CPU time in a gap up to it is the
	 * requests' own delivery, not waiting (the wait rule). */
	uint64_t rt_ns;
	/* Block mode's loop-device hop in tier.floor_ns beside FUSE's round
	 * trip, as tierfs ran its model (the trace header's loop_hop_ns):
	 * the file system's own reads (tier/fsmeta.h) are spaced by FUSE's
	 * alone, as tierfs spaces them. 0 under kernel_fs (both come off the
	 * gaps, think_less_ns) and for a FUSE-mode recording. */
	uint64_t loop_hop_ns;
	/* Its size and window parts (the header's loop_size_ns and
	 * loop_window_ns, bit 0x200), which tierfs took off each read's and
	 * write's reply (traces/tier_rule.h): a replay takes them off as it
	 * did, under kernel_fs off the gap after it (a VM's disk pays
	 * neither). 0 for any other recording. */
	uint64_t loop_size_ns, loop_window_ns;
	/* The recording is a loop device's requests (block mode with its hop
	 * taken off: the header's bit 0x100). Under kernel_fs the gaps after
	 * its device reads lose the round trip too: they are the loop
	 * device's own path, which a VM's disk does not have (no loop rule). */
	bool loop_recorded;
	/* The recording's mount served a disk image (block mode; the header's
	 * bit 0x400, or before trace format 8 its hop's 0x100): the image
	 * file's own lookups and extent leaves, which tierfs did not charge
	 * (fs/timing.c), are not charged here either. */
	bool image;
	/* Who woke whom (traces/wakes.h), recorded beside the trace: the wake
	 * rule (wake_apply() in rules.c) replaces the wait and join rules.
	 * Virtual time only. */
	const struct ts_wakes *wakes;
	/* With a wake file that knows the host's CPUs: each gap's work is
	 * served by those CPUs, shared (cpu.c), instead of
	 * keeping the recorded queueing. Off by default: on the loaders of
	 * bench/pytorch_replay.sh it did not predict better (traces/README.md). */
	bool cpu_model;
	/* The wake-up rule (rules.c): the gap after a request a thread of the
	 * command slept in (block mode, a wake file) grows by this much per
	 * e-fold of the request's time, replayed against recorded, each with
	 * the recording's round trip (rt_ns) added; 0 (or no rt_ns): off.
	 * A property of the host that recorded (pipeline/hosts.lua's
	 * replay_wake_cost_ns, measured there), at most
	 * TS_REPLAY_WAKE_COST_MAX_NS. */
	uint64_t wake_cost_ns;
	/* Virtual time: the file system's size for its layout alone (where
	 * mke2fs puts its inode tables and its block size for it:
	 * tier/fsmeta.h, ts_fsmeta_set_capacity), e.g. a disk image's, which
	 * may be below the tier's smallest disk; 0: the tier's capacity. */
	uint64_t fs_bytes;
	/* Virtual time, --kernel-fs: the folder the recording served, as
	 * tiersim disk make --from copied it into the image (tier/fsmeta.h,
	 * the data-layout rule: a readahead window over a gap in a file's
	 * disk blocks goes as two requests); NULL: each file one run. */
	const char *fs_tree;
	/* virtual */
	struct ts_tier_cfg tier; /* profile, capacity, mem, seed, floor ... */
	/* the file system lookups are charged with (tier/fsmeta.h: the tier
	 * profiles' ts_tier_set_fs) */
	const struct ts_fsmeta_params *fs;
	/* real */
	const char *target; /* directory */
	bool allow_writes;  /* writes, creates, unlinks... into target */
	bool fill;	    /* create missing files with data, not sparse */
	FILE *progress;	    /* setup progress lines, NULL = quiet */
};

/*
 * The most the wake-up rule's cost may be, per e-fold of a request's time:
 * 10 ms. The cost is the wake-ups of three threads after a sleep (tens of
 * microseconds where measured, pipeline/hosts.lua); 10 ms is more than a
 * hundred times that and longer than a cloud disk's slowest requests, so a
 * larger figure is a unit slip (a bare number is seconds), not a host.
 */
#define TS_REPLAY_WAKE_COST_MAX_NS (10 * 1000 * 1000ull)

/* The sizes cfg->fs_bytes may take: mke2fs's smallest useful file system
 * (16 MiB) to 1 PiB, beyond any cloud disk. */
#define TS_REPLAY_FS_MIN (16ull << 20)
#define TS_REPLAY_FS_MAX (1ull << 50)

struct ts_replay_result {
	char what[96];			  /* "recorded", the tier name, or the target */
	uint64_t ops, bytes;		  /* all ops; bytes read or written */
	uint64_t total_ns;		  /* first issue to last completion */
	uint64_t io_ns;			  /* sum of per-op latencies */
	uint64_t think_ns;		  /* sum of think times kept */
	uint64_t waited_ns;		  /* of the recorded gaps, the waiting taken
					   * as elastic (the wait rule) */
	uint64_t errors;		  /* real: ops whose success differs from the recording;
					   * recorded: ops with result < 0 */
	uint64_t held;			  /* real: ops kept as recorded delays, not reissued
					   * (symlink, link, mknod, chmod, chown, utimens) */
	struct ts_hist lat[4];		  /* all, read, write, other */
	uint64_t bound[TS_TIER_BOUND_NR]; /* virtual: what bound each tiered op */
	double cpu_cap;			  /* virtual: the CPUs the CPU model gave the
					   * application (0: no model) */
	uint64_t cpu_gaps;		  /* virtual: the gaps the CPU model served
					   * (0 with a model: none had CPU samples) */
	uint64_t dev_read_bytes;	  /* virtual: bytes the device read (readahead
					   * and file-system metadata included) */
	uint64_t dev_reads;		  /* virtual: the device's read requests for them */
	uint64_t meta_reads;		  /* virtual: of those, the file system's metadata
					   * reads (tier/fsmeta.h) */
	uint64_t outside;		  /* with a wake file: the trace's requests
					   * outside the command's span, left out */
	uint64_t lead_ns;		  /* from the span's start to the first request:
					   * with a wake file, the command's start
					   * (Python's imports...), which no tier changes */
	uint64_t trail_ns;		  /* with a wake file: the span's end after the
					   * command's other threads ended (its exit:
					   * replay_trail_ns, rules.c), which no tier
					   * changes either */
	uint64_t tied;			  /* block mode with a wake file: requests tied
					   * to a wait of the command's (augment.c) */
	uint64_t from_issue;		  /* virtual, block mode: requests charged from
					   * their recorded issue (trace format 9) */
	/* --band: the prediction at the recording's fastest and slowest
	 * part's pace (band.c), whole and from the first request; 0: none */
	uint64_t band_lo_ns, band_hi_ns, band_lo_first_ns, band_hi_first_ns;
};
enum { TS_REPLAY_ALL, TS_REPLAY_READ, TS_REPLAY_WRITE, TS_REPLAY_OTHER };

/* Sets @cfg (defaults already in it) to the tier-model options the
 * recording ran with: tierfs writes them into the header's model fields
 * (floor included), so a prediction drives the model as tierfs did. */
void ts_replay_tier_recorded(const struct ts_trace *t, struct ts_tier_cfg *cfg);

/* The trace's own figures, on the same definitions. */
TS_WUR int ts_replay_recorded(const struct ts_trace *t, struct ts_replay_result *res);
/* Same, with its wake file: the span runs to the last thread's end. */
TS_WUR int ts_replay_recorded_wakes(const struct ts_trace *t, const struct ts_wakes *wakes,
				    struct ts_replay_result *res);
/* Predicts @t on cfg->tier. */
TS_WUR int ts_replay_virtual(const struct ts_trace *t, const struct ts_replay_cfg *cfg,
			     struct ts_replay_result *res, char *err, size_t errlen);
/* The header line of cfg->ops: per record as replayed (virtual time), the
 * tier; the thread; the record (its index in the trace, the wake file's
 * records after the trace's own); what it is (io: a request of the
 * thread's own; moved: a block-mode request the thread slept in, moved to
 * it from the loop device's worker; wake: another thread of the command
 * ended a sleep of it; io-wake: a request's completion did; mark: the
 * thread's start or its end); its recorded issue and completion (from the
 * trace's first record) and its replayed ones (from the replay's first
 * issue), ns; for a wake, how long the thread waited past its own work
 * (the wake rule) and for what: the waking thread's id, or #RECORD. */
void ts_replay_ops_head(FILE *f);
/* Prepares cfg->target (creates the files the trace reads, sized from the
 * trace) and replays @t against it with one thread per trace thread. */
TS_WUR int ts_replay_real(const struct ts_trace *t, const struct ts_replay_cfg *cfg,
			  struct ts_replay_result *res, char *err, size_t errlen);

/* The wake file beside @trace (TRACE.wakes): 1 read into @s, 0 there
 * is none, or -errno / TS_E_FORMAT with one line in @err. */
TS_WUR int ts_replay_wakes_beside(const char *trace, struct ts_wakes *s, char *err,
				  size_t errlen);

/* A replay set up from a trace (setup.c), the one way every command that
 * predicts a recording does it. */
#define TS_REPLAY_OVER_N 4
/* The tier model's options a replay may set over the recording's. */
extern const char *const ts_replay_over_names[TS_REPLAY_OVER_N]; /* capacity, mem, seed, floor */
/* --lock-wakes's default (traces/README.md, "A lock tied as data"): on
 * the kept PyTorch recordings (72, two loaders, three tiers) 50 us made
 * 9 of the 144 recording/tier pairs better by more than half a point,
 * none worse by more than 0.33, and changed nothing toward faster tiers. */
#define TS_REPLAY_LOCK_WAKES_NS 50000
struct ts_replay_from {
	const char *trace;
	const char *wakes; /* a wake file; NULL: TRACE.wakes where there is one */
	bool no_wakes;	   /* read none: the CPU samples' wait rule */
	/* wakes between two threads of one process after a sleep shorter
	 * than this are dropped (ts_wakes_drop_short); 0: none. Commands
	 * pass TS_REPLAY_LOCK_WAKES_NS unless told. */
	uint64_t lock_wakes_ns;
	bool tiers;	   /* load the tier profiles (to predict) */
	const char *profile; /* a profile file with more tiers, or NULL */
	const char *over[TS_REPLAY_OVER_N]; /* as text, over the recording's; NULL: kept */
	/* An instance's EBS limits over the recording's (tiersim replay
	 * --instance); NULL: the recording's, from its header. */
	const struct ts_tier_ebs *ebs;
};
struct ts_replay_set {
	struct ts_trace t;
	struct ts_wakes wk;
	struct ts_tier_set *set; /* NULL unless from->tiers */
	/* The caller's rules, with: the tier model as the recording ran it
	 * (overridden), rt_ns its floor, wakes the wake file when read, and
	 * closed_loop for a trace without CPU samples (no_cpu). */
	struct ts_replay_cfg cfg;
	uint64_t rec_floor; /* the recording's FUSE round trip */
	uint64_t rec_hop;   /* its loop hop (block mode; header loop_hop_ns), else 0 */
	/* The instance's EBS limits (the recording's or the caller's): each
	 * prediction on an aws-* tier runs under them, on another tier
	 * without (they cap EBS volumes only). */
	struct ts_tier_ebs ebs;
	bool ebs_given; /* the caller's, not the recording's */
	bool no_cpu;	    /* closed loop because the trace has no CPU samples */
	char warn[256];	    /* the trace's drops or cut end, or "" */
	bool bad_override;  /* the failure is an override's value */
	bool opened, tier_opts;
};
/* Reads @from into @s with @cfg's rules. 0, or a code with one line in
 * @err (s->bad_override: an override's value was wrong). ts_replay_close()
 * in every case. */
TS_WUR int ts_replay_open(struct ts_replay_set *s, const struct ts_replay_from *from,
			  const struct ts_replay_cfg *cfg, char *err, size_t errlen);
/* @s predicted on @tier (res->what the tier's name). */
TS_WUR int ts_replay_predict(struct ts_replay_set *s, const char *tier,
			     struct ts_replay_result *res, char *err, size_t errlen);
/* The probe rule: with a second recording @probe (on another tier; NULL:
 * none), @tier's prediction is the larger of the two ("TIER (probe)" when
 * it is the probe's). */
TS_WUR int ts_replay_predict_probe(struct ts_replay_set *s, struct ts_replay_set *probe,
				   const char *tier, struct ts_replay_result *res, char *err,
				   size_t errlen);
void ts_replay_close(struct ts_replay_set *s);

/* The most parts --band cuts a recording into. */
#define TS_REPLAY_BAND_MAX 64
/* One recording's own deviation, measured on it (band.c): the pace of
 * each of @parts parts of the intervals between its requests in the
 * command's span (@w's threads; NULL: the whole trace), against the
 * whole's; the batch means of the inner parts give the band. */
/* the least range a phase without requests is given (band.c) */
#define TS_REPLAY_BAND_ALONE_MIN 0.353
struct ts_replay_band {
	unsigned parts;
	double pace[TS_REPLAY_BAND_MAX];
	/* the paces are the command's threads' own time (a wake file's),
	 * else the intervals between the requests */
	bool own_time;
	/* the inner parts, from..parts - 2: the first and the last are the
	 * job's start and end, and so is each next part a thread of the
	 * command starts in (own time only; at least 3 inner parts kept) */
	unsigned from;
	double mean, sd; /* of the inner parts' paces */
	double half;	 /* t(0.975, K - 1) * sd / sqrt(K) / mean, K inner parts */
	double low, high; /* 1 - half (at least 0), 1 + half */
	/* the command's threads' own time before its first request and
	 * after its last (0 without a wake file), phases no part holds; each
	 * is taken as one more part, its pace anywhere in the parts' scatter
	 * about their mean: +-alone, t(0.975, K - 1) * sd / mean, at least
	 * TS_REPLAY_BAND_ALONE_MIN */
	uint64_t head_ns, tail_ns;
	double alone;
};
/* 0, or -EINVAL with one line in @err (fewer than 2 intervals a part,
 * requests all at once). @parts: 4 to TS_REPLAY_BAND_MAX. */
TS_WUR int ts_replay_band_pace(const struct ts_trace *t, const struct ts_wakes *w,
			       unsigned parts, struct ts_replay_band *band, char *err,
			       size_t errlen);
/* @tier predicted with every recorded gap @band's low and high times as
 * long (the --speed rule), each end then further out by @band's phases
 * without requests (their own time times alone, in quadrature; from the
 * first request, the tail's alone), into @res's band_* fields. @res holds
 * @tier's prediction (ts_replay_predict's); s->cfg is left as it was. */
TS_WUR int ts_replay_predict_band(struct ts_replay_set *s, const char *tier,
				  const struct ts_replay_band *band, struct ts_replay_result *res,
				  char *err, size_t errlen);

/* tiersim replay's output: the trace and the rules it was replayed with,
 * then the table of @nres results (@overridden: the tier model's options
 * were set over the recording's). */
void ts_replay_print_run(FILE *f, const char *file, const struct ts_replay_set *s,
			 bool overridden, const struct ts_replay_result *res, size_t nres);

/* tiersim record's report (record.c): the summary of the trace @trace of
 * @data's run (the command exited @exit_status), its waits, and each of
 * @tiers predicted (with @probe, by the probe rule). */
/* The most runs `tiersim record --repeat` makes. */
#define TS_RECORD_MAX_RUNS 64

struct ts_record_report {
	const char *data, *trace;
	const char *probe;   /* the probe run's trace, or NULL */
	const char *profile; /* more tiers, or NULL */
	const char *const *tiers;
	size_t ntiers;
	int exit_status;
	/* more runs of the same command on the same tier (--repeat): each
	 * predicts every tier too, and the report gives the recordings' own
	 * spread and each tier's prediction as a band over them */
	const char *const *repeats;
	size_t nrepeats;
	/* the wake-up rule's cost (struct ts_replay_cfg's wake_cost_ns): the
	 * recording host's, from its profile */
	uint64_t wake_cost_ns;
};
/* As text on @f, or as one JSON object in *@json when @json is not NULL.
 * 0, or a code with one line in @err. */
TS_WUR int ts_record_report(const struct ts_record_report *r, FILE *f, json_t **json, char *err,
			    size_t errlen);

/* Several recordings of one command (record --repeat, or replay given
 * several traces): per recording its span and what it predicts for each
 * tier, each from its first request (the command's start before it is the
 * same on every tier, and the noisiest part of a run). */
struct ts_replay_runs {
	size_t runs, ntiers;
	uint64_t *rec;	/* [runs] */
	uint64_t *pred; /* [runs * ntiers] */
	/* each result's start before its first request and its exit after
	 * the command's other threads (lead_ns, trail_ns): [runs * (1 +
	 * ntiers)], a run's recording in column 0, its tiers after it; NULL
	 * where not kept (no combination then) */
	uint64_t *lead, *trail;
};
/* The arrays of @rp for its runs and ntiers, zeroed; 0 or -ENOMEM.
 * ts_replay_runs_free frees them (also after a failed alloc). */
TS_WUR int ts_replay_runs_alloc(struct ts_replay_runs *rp);
void ts_replay_runs_free(struct ts_replay_runs *rp);
/* Run @run's result in column @col (0 the recording, 1 + i tier i). */
void ts_replay_runs_put(struct ts_replay_runs *rp, size_t run, size_t col,
			const struct ts_replay_result *r);
/* A result's span from its first request. */
uint64_t ts_replay_from_first(const struct ts_replay_result *r);
/* The recordings' own spread around their median on @tier (left out when
 * @tier is NULL: recordings of several tiers have no common median), then
 * each tier's prediction as median, lowest and highest; tier names from
 * @res[1..ntiers]. Where the runs have a start or an exit (lead, trail),
 * then the combination: each run's prediction from its own requests, the
 * start and the exit (which no tier moves, and which vary from run to
 * run) the runs' median on that tier, with the band of those two at their
 * lowest and highest over the runs (traces/README.md). */
void ts_replay_runs_print(FILE *f, const struct ts_replay_runs *rp, const char *tier,
			  const struct ts_replay_result *res);
json_t *ts_replay_runs_json(const struct ts_replay_runs *rp, const struct ts_replay_result *res);

/* Side-by-side table of @n results (the first is usually "recorded"). */
void ts_replay_print(FILE *f, const struct ts_replay_result *res, size_t n);
json_t *ts_replay_json(const struct ts_replay_result *res, size_t n);

#endif
