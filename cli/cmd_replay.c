/*
 * cmd_replay.c — `tiersim replay FILE ...`: what a recorded trace would
 * cost on other tiers (--virtual, through the tier model), or what it costs
 * against a real directory (--target), side by side with the recording.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


#include "cli/cmdline.h"
#include "cli/commands.h"
#include "core/opt.h"
#include "core/units.h"
#include "cost/price.h"
#include "pipeline/host.h"
#include "traces/replay/replay.h"
#include "traces/trace.h"

#define MAX_TIERS 16

/* --capacity, --mem, --seed and --floor stay text: they override the
 * recording's values through the tier model's own table (ts_tier_cfg_opts),
 * which parses and bounds them. */
struct replay_args {
	bool virtual_time, kernel_fs, keep_gaps, no_think, closed_loop, allow_writes, fill, json, no_wakes, cpu_model;
	struct ts_opt_list tiers;
	char *target, *profile, *wakes, *instance, *host;
	char *ops; /* --ops FILE: each op as replayed */
	char *wake_cost; /* DUR; NULL: --host's */
	char *fuse_cpu;	 /* DUR; NULL: --host's (--kernel-fs) */
	char *fuse_cpu_page; /* DUR; NULL: --host's, 0 with --fuse-cpu */
	char *fuse_cpu_lookup, *fuse_cpu_open; /* DUR; NULL: --host's, --fuse-cpu's with it */
	char *fuse_cpu_getattr;		       /* the same */
	char *page_wake; /* DUR; NULL: --host's (--kernel-fs) */
	char *lock_wakes; /* DUR; NULL: none */
	uint64_t lock_wakes_ns;
	char *dev_read_cpu; /* DUR; NULL: --host's (--kernel-fs) */
	char *fuse_size;    /* DUR; NULL: --host's (--kernel-fs) */
	char *fuse_ra;	    /* DUR; NULL: --host's, else the floor (--kernel-fs) */
	char *fuse_stretch; /* a ratio; NULL: --host's, else none (--kernel-fs) */
	char *fs_size;	    /* SIZE; NULL: the trace's geometry, else the tier's capacity */
	char *fs_tree;	    /* DIR the image was made from; NULL: files one run each */
	char *ra_kernel;    /* MAJOR.MINOR: the Linux whose readahead is modeled */
	unsigned ra_kernel_v; /* as major * 100 + minor */
	char *loop_issue; /* --kernel-fs: the block mode predicted, on|off|watch */
	char *over[TS_REPLAY_OVER_N]; /* as ts_replay_over_names[] */
	double speed;
	uint64_t band; /* --band N: parts; 0: none */
	struct ts_tier_ebs ebs; /* --instance's EBS limits */
	/* the host profiles --host's figures are read from: loaded at the
	 * first one asked, once for all of them (replay_hosts()) */
	struct ts_host_set *hosts;
};

#define RA(f) offsetof(struct replay_args, f)
static const struct ts_opt replay_opts[] = {
	{ "virtual", TS_OPT_BOOL, RA(virtual_time), "false", 0, 0, "",
	  "predict through the tier model (virtual time; exact)" },
	{ "kernel_fs", TS_OPT_BOOL, RA(kernel_fs), "false", 0, 0, "",
	  "with --virtual: predict a FUSE-mode recording as the job on a kernel file system "
	  "over the disk (block mode): the recording's FUSE round trip comes off every gap, "
	  "and after a read its reply's size part (--fuse-size), "
	  "ops the kernel serves in memory cost nothing; a block-mode recording loses its "
	  "loop hop and its size and window parts too" },
	{ "keep_gaps", TS_OPT_BOOL, RA(keep_gaps), "false", 0, 0, "",
	  "with --kernel-fs: the gap after an op the kernel serves in memory keeps its recorded "
	  "length less the round trip, instead of the thread's time on a CPU and its own "
	  "sleeps in it (for a job recorded without a wake file that sleeps between its file "
	  "ops)" },
	{ "loop_issue", TS_OPT_STR, RA(loop_issue), "on", 0, 0, "",
	  "with --kernel-fs: the block mode predicted, as tiersim disk mount's --loop-issue: "
	  "on, each device request charged from the loop device's issue; off or watch, from "
	  "tierfs's receipt, the gap after a read the device served keeping the recording's "
	  "round trip and the read its lateness (the loop rule, traces/README.md)",
	  "on|off|watch" },
	{ "tier", TS_OPT_LIST, RA(tiers), NULL, 0, MAX_TIERS, "",
	  "a tier to predict (repeat for a side-by-side table)", "NAME" },
	{ "target", TS_OPT_STR, RA(target), NULL, 0, 0, "",
	  "replay in real time against DIR (a tierfs mount or any dir)", "DIR" },
	{ "capacity", TS_OPT_STR, RA(over[0]), NULL, 0, 0, "",
	  "emulated disk size (default: the recording's)", "SIZE" },
	{ "ra_kernel", TS_OPT_STR, RA(ra_kernel), "6.1", 0, 0, "",
	  "with --virtual: the Linux whose read() readahead the page-cache model follows: "
	  "before 6.17 (6.1, Debian 12's; the default) windows follow one another at their "
	  "ramped sizes; from 6.17 an async window's end is rounded down to its folios' size "
	  "(mm/readahead.c, \"Terminate async readahead on natural boundary\"), which "
	  "block mode shows on 6.18 at a stream's start, though not yet its large reads' "
	  "windows (tier/cache.c)",
	  "MAJOR.MINOR" },
	{ "fs_tree", TS_OPT_STR, RA(fs_tree), NULL, 0, 0, "",
	  "with --virtual --kernel-fs: the folder the recording served, as tiersim disk make "
	  "--from copied it into the image: each file's data placed where mkfs.ext4 -d puts "
	  "it, and a readahead window over a gap in its disk blocks (a superblock backup, "
	  "the journal) sent as two requests (tier/fsmeta.h; default: every file one run)",
	  "DIR" },
	{ "fs_size", TS_OPT_STR, RA(fs_size), NULL, 0, 0, "",
	  "with --virtual: the file system's size for its layout alone (where mke2fs puts "
	  "its inode tables, its block size: tier/fsmeta.h), e.g. a disk image's smaller than "
	  "the tier's smallest disk; the tier model keeps its capacity (default: the "
	  "geometry a block-mode trace carries, read from its image's superblock; else the "
	  "capacity)",
	  "SIZE" },
	{ "mem", TS_OPT_STR, RA(over[1]), NULL, 0, 0, "",
	  "page-cache size (default: the recording's)", "SIZE" },
	{ "seed", TS_OPT_STR, RA(over[2]), NULL, 0, 0, "",
	  "latency seed (default: the recording's, else 1)", "N" },
	{ "floor", TS_OPT_STR, RA(over[3]), NULL, 0, 0, "",
	  "FUSE round trip taken off modeled latency (default: the recording's measured one)",
	  "DUR" },
	{ "instance", TS_OPT_STR, RA(instance), NULL, 0, 0, "",
	  "the aws-* tiers run under this instance's EBS limits (tiersim prices) instead of "
	  "the recording's (the trace header's ebs_* fields)",
	  "NAME" },
	{ "profile", TS_OPT_STR, RA(profile), NULL, 0, 0, "",
	  "more tiers, added to the built-in ones", "FILE" },
	{ "speed", TS_OPT_DOUBLE, RA(speed), "1", 0, 0, "", "divide think times by X (> 0)" },
	{ "band", TS_OPT_U64, RA(band), "0", 0, TS_REPLAY_BAND_MAX, "",
	  "with --virtual: each tier's prediction also as a band from the recording's own "
	  "deviation: the intervals between its requests cut into N parts (4-64), each "
	  "part's pace its threads' own time (a wake file's, else the intervals), the "
	  "inner N - 2 taken as batches of one steady job, every gap but the threads' "
	  "pauses scaled by the 95% interval of their mean pace (traces/README.md)",
	  "N" },
	{ "no_think", TS_OPT_BOOL, RA(no_think), "false", 0, 0, "",
	  "drop think times (as fast as possible)" },
	{ "closed_loop", TS_OPT_BOOL, RA(closed_loop), "false", 0, 0, "",
	  "every gap is think time, waits included (as for fio)" },
	{ "wakes", TS_OPT_STR, RA(wakes), NULL, 0, 0, "",
	  "who woke whom, from tiersim record (default: FILE.wakes when it exists)", "FILE" },
	{ "no_wakes", TS_OPT_BOOL, RA(no_wakes), "false", 0, 0, "",
	  "ignore FILE.wakes: the CPU samples' wait rule" },
	{ "cpu_model", TS_OPT_BOOL, RA(cpu_model), "false", 0, 0, "",
	  "with a wake file: serve each gap's CPU time from the recorded host's CPUs, shared, "
	  "instead of keeping its recorded wait for a CPU (traces/README.md)" },
	{ "lock_wakes", TS_OPT_STR, RA(lock_wakes), NULL, 0, 0, "",
	  "with a wake file: a wake between two threads of one process that ended a sleep "
	  "shorter than this is taken for a lock's hand-off, not data, and not tied: the "
	  "wakee goes on on its own time (traces/README.md), 0 (off) to 1ms [default 50us]",
	  "DUR" },
	{ "wake_cost", TS_OPT_STR, RA(wake_cost), NULL, 0, 0, "",
	  "with a wake file, block mode: the gap after a request the command slept in "
	  "grows by this much per e-fold of the request's time against the recorded "
	  "(the wake-up rule, traces/README.md), 0 (off) to 10ms; default: --host's "
	  "replay_wake_cost_ns",
	  "DUR" },
	{ "fuse_cpu", TS_OPT_STR, RA(fuse_cpu), NULL, 0, 0, "",
	  "with --kernel-fs: a FUSE request's own CPU on the calling thread beyond a kernel "
	  "file system's, taken off the thread's time on a CPU after an op the kernel serves "
	  "in memory (the in-kernel rule, traces/README.md), 0 (off) to 10ms; default: "
	  "--host's replay_fuse_cpu_ns",
	  "DUR" },
	{ "fuse_cpu_page", TS_OPT_STR, RA(fuse_cpu_page), NULL, 0, 0, "",
	  "with --kernel-fs: the same for each page of a direct read's or write's buffer, "
	  "taken off with its request's, 0 (off) to 1ms; default: --host's "
	  "replay_fuse_cpu_page_ns, 0 when --fuse-cpu is given",
	  "DUR" },
	{ "fuse_cpu_lookup", TS_OPT_STR, RA(fuse_cpu_lookup), NULL, 0, 0, "",
	  "with --kernel-fs: the same for a GETATTR request that is a lookup (one of a name "
	  "the kernel held no valid entry of), 0 (off) to 10ms; default: --host's "
	  "replay_fuse_cpu_lookup_ns (its replay_fuse_cpu_ns where it has none), --fuse-cpu's "
	  "when that is given",
	  "DUR" },
	{ "fuse_cpu_getattr", TS_OPT_STR, RA(fuse_cpu_getattr), NULL, 0, 0, "",
	  "with --kernel-fs: the same for a GETATTR request that is a getattr (of a name the "
	  "kernel held: an fstat), 0 (off) to 10ms; default: --host's "
	  "replay_fuse_cpu_getattr_ns (its replay_fuse_cpu_ns where it has none), "
	  "--fuse-cpu's when that is given",
	  "DUR" },
	{ "fuse_cpu_open", TS_OPT_STR, RA(fuse_cpu_open), NULL, 0, 0, "",
	  "with --kernel-fs: the same for an OPEN request, 0 (off) to 10ms; default: --host's "
	  "replay_fuse_cpu_open_ns (its replay_fuse_cpu_ns where it has none), --fuse-cpu's "
	  "when that is given",
	  "DUR" },
	{ "page_wake", TS_OPT_STR, RA(page_wake), NULL, 0, 0, "",
	  "with --kernel-fs: the wake-up after a read that waited on the device (a sleep on a "
	  "page in flight, which the read's completion ends), added to the gap after it (the "
	  "page-lock wake-up, traces/README.md), 0 (off) to 1ms; default: --host's "
	  "replay_page_wake_ns",
	  "DUR" },
	{ "dev_read_cpu", TS_OPT_STR, RA(dev_read_cpu), NULL, 0, 0, "",
	  "with --kernel-fs: the reading thread's CPU for each device read its read sends "
	  "(the readahead's pages and request, its sleep and wake-up), added to the gap "
	  "after it (the IO path's CPU, traces/README.md), 0 (off) to 1ms; default: "
	  "--host's replay_dev_read_cpu_ns",
	  "DUR" },
	{ "fuse_size", TS_OPT_STR, RA(fuse_size), NULL, 0, 0, "",
	  "with --kernel-fs: how much longer a 128 KiB read's reply took the recording's FUSE "
	  "to deliver than a 4 KiB one's (the floor's), in proportion for other sizes, taken "
	  "off the gap after each read with the round trip (the reply's size part, "
	  "traces/README.md), 0 (off) to 1ms; default: --host's replay_fuse_size_ns",
	  "DUR" },
	{ "fuse_ra", TS_OPT_STR, RA(fuse_ra), NULL, 0, 0, "",
	  "with --kernel-fs: FUSE's part of the gap after a read the kernel's page cache "
	  "sent, at 4 KiB (the size part on top), taken off that gap in place of the "
	  "recording's floor (the page-cache read's FUSE part, traces/README.md), 0 (the "
	  "floor) to 1ms; default: --host's replay_fuse_ra_ns, the floor where it has none",
	  "DUR" },
	{ "fuse_stretch", TS_OPT_STR, RA(fuse_stretch), NULL, 0, 0, "",
	  "with --kernel-fs: how many times longer the job's own time after a read the "
	  "kernel's page cache sent ran through FUSE than on a kernel file system; the gap "
	  "after such a read, less --fuse-ra and the size part, is divided by it where the "
	  "next request is another such read of the same file (the "
	  "page-cache read's stretch, traces/README.md), 1 (none) to 4; default: --host's "
	  "replay_fuse_stretch, none where it has none or has no replay_fuse_ra_ns",
	  "X" },
	{ "host", TS_OPT_STR, RA(host), NULL, 0, 0, "",
	  "the host profile (tiersim hosts) that recorded: its replay_wake_cost_ns is the "
	  "default --wake-cost, its replay_fuse_cpu_ns --fuse-cpu's (default: "
	  TS_HOST_REPLAY_DEFAULT ")",
	  "NAME" },
	{ "allow_writes", TS_OPT_BOOL, RA(allow_writes), "false", 0, 0, "",
	  "let a --target replay write (and create missing files)" },
	{ "fill", TS_OPT_BOOL, RA(fill), "false", 0, 0, "",
	  "create missing files with data instead of sparse" },
	{ "json", TS_OPT_BOOL, RA(json), "false", 0, 0, "", "JSON instead of the table" },
	{ "ops", TS_OPT_STR, RA(ops), NULL, 0, 0, "",
	  "with --virtual: write each record as replayed on each --tier to FILE, one line a "
	  "record: what it is, its recorded and replayed issue and completion, and a wake's "
	  "wait (traces/README.md)",
	  "FILE" },
	{ NULL },
};

static const struct ts_cmdline replay_cmdline = {
	.name = "replay",
	.synopsis = "FILE [FILE ...] --virtual --tier NAME [--tier NAME ...] [options]\n"
		    "       tiersim replay FILE --target DIR [--tier NAME ...] [options]",
	.about = "Replays a trace per thread: each thread issues its next op when the previous one\n"
		 "completed plus the work recorded between them; what it spent waiting (off the\n"
		 "CPU, per the trace's CPU samples) ends at the moment recorded, so a slower tier\n"
		 "is absorbed by the waits first. Traces without CPU samples replay closed loop.\n"
		 "With a wake file (FILE.wakes, written by tiersim record) a thread's wait on another\n"
		 "thread of the application ends when that thread, in its own replay, gets to\n"
		 "where it woke it (the wake rule; virtual time).\n"
		 "Several FILEs (recordings of one command, as tiersim record --repeat makes):\n"
		 "each is replayed, then their own spread around their median (the deviation a\n"
		 "prediction from one recording inherits) and each tier's prediction over them\n"
		 "as median, lowest - highest, each from its first request. With wake files,\n"
		 "then combined: each recording predicts from its own requests, the command's\n"
		 "start and its exit after its other threads (which no tier moves) taken as the\n"
		 "recordings' median, with a band of those two at their lowest and highest.\n",
	.opts = replay_opts,
	.max_pos = TS_RECORD_MAX_RUNS,
};

/* The host profiles into @o->hosts (--host's, else the default's), the
 * first time a figure of them is asked: 0, or the load's error in @err. */
static int replay_hosts(struct replay_args *o, char *err, size_t errlen)
{
	return o->hosts ? 0
			: ts_host_set_load_for(o->host ? o->host : TS_HOST_REPLAY_DEFAULT, &o->hosts,
					       err, errlen);
}

/* A figure of --kernel-fs's in-kernel rule, --@opt (@what; @val, NULL
 * where not given), 0 to 1ms, into @ns; not given, --host's (a host that
 * has none measured: 0, the rule off, unless named with --host). -1 to go
 * on, else the exit status. */
static int kfs_figure(const struct ts_cmdline *cl, struct replay_args *o, const char *val,
		      const char *opt, const char *what, const char *eg,
		      int (*from_host)(const struct ts_host_set *, const char *, uint64_t *, char *,
				       size_t),
		      uint64_t *ns)
{
	if (val && !o->kernel_fs)
		return ts_cmdline_error(cl, "--%s %s is --kernel-fs's (%s)", opt, val, what);
	if (val) {
		if (ts_parse_duration(val, TS_NS_PER_S, ns) || *ns > 1000 * 1000ull)
			return ts_cmdline_error(cl,
						"--%s %s: expected a duration, 0 to 1ms "
						"(%s; a bare number is seconds)",
						opt, val, eg);
	} else if (o->kernel_fs) {
		char err[512];
		int hrc = replay_hosts(o, err, sizeof(err));
		if (!hrc)
			hrc = from_host(o->hosts, o->host, ns, err, sizeof(err));
		if (hrc == -ENODATA && !o->host)
			*ns = 0;
		else if (hrc)
			return ts_cmdline_error(cl, "--host: %s", err);
	}
	return -1;
}

/* The command line into @o and @cfg, the trace FILEs into @files (@nfiles);
 * -1 to go on, else the exit status. */
static int replay_args(struct replay_args *o, struct ts_replay_cfg *cfg, int argc, char **argv,
		       char ***files, size_t *nfiles)
{
	const struct ts_cmdline *cl = &replay_cmdline;
	struct ts_opt_args a;
	int rc = ts_cmdline_parse(cl, o, argc, argv, &a);
	if (rc >= 0)
		return rc;
	if (a.npos < 1)
		return ts_cmdline_error(cl, "needs a trace FILE (tiersim replay --help)");
	if (a.npos > 1 && (o->target || !o->virtual_time))
		return ts_cmdline_error(cl, "%d trace FILEs: several are combined in virtual time "
					    "only (--virtual, not --target)",
					a.npos);
	if (a.npos > 1 && o->wakes)
		return ts_cmdline_error(cl, "--wakes %s is one trace's: with several FILEs each "
					    "takes its own FILE.wakes",
					o->wakes);
	if (!(o->speed > 0))
		return ts_cmdline_error(cl, "--speed %g: expected a number > 0", o->speed);
	if (o->fs_size && (o->target || !o->virtual_time))
		return ts_cmdline_error(cl, "--fs-size %s lays the file system out in virtual time "
					    "only (--virtual, not --target)",
					o->fs_size);
	if (o->fs_tree && (o->target || !o->virtual_time || !o->kernel_fs))
		return ts_cmdline_error(cl, "--fs-tree %s places files in virtual time with "
					    "--kernel-fs only",
					o->fs_tree);
	cfg->fs_tree = o->fs_tree;
	if (o->fs_size && (ts_parse_size(o->fs_size, &cfg->fs_bytes) ||
			   cfg->fs_bytes < TS_REPLAY_FS_MIN || cfg->fs_bytes > TS_REPLAY_FS_MAX))
		return ts_cmdline_error(cl, "--fs-size %s: expected a size from 16MiB to 1PiB "
					    "(2GiB, 500GiB)",
					o->fs_size);
	unsigned maj, min;
	int used = 0;
	if (sscanf(o->ra_kernel, "%u.%u%n", &maj, &min, &used) != 2 ||
	    (size_t)used != strlen(o->ra_kernel) || maj < 2 || maj > 99 || min > 99)
		return ts_cmdline_error(cl, "--ra-kernel %s: expected a Linux version MAJOR.MINOR "
					    "(6.18, 6.1)",
					o->ra_kernel);
	o->ra_kernel_v = maj * 100 + min;
	if (o->kernel_fs && (o->target || !o->virtual_time))
		return ts_cmdline_error(cl, "--kernel-fs predicts in virtual time only (--virtual, "
					    "not --target)");
	if (o->band && o->band < 4)
		return ts_cmdline_error(cl, "--band %" PRIu64 ": give 4 to %d parts (the first and "
					    "the last are left out, and the band needs 2 more)",
					o->band, TS_REPLAY_BAND_MAX);
	if (o->band && (o->target || !o->virtual_time))
		return ts_cmdline_error(cl, "--band %" PRIu64 ": the band is predicted in virtual "
					    "time only (--virtual, not --target)",
					o->band);
	if (o->band && (o->no_think || o->cpu_model))
		return ts_cmdline_error(cl, "--band %" PRIu64 " scales the recorded gaps: not with "
					    "%s",
					o->band, o->no_think ? "--no-think" : "--cpu-model (which "
									"keeps them as recorded)");
	if (o->ops && (o->target || !o->virtual_time || a.npos > 1))
		return ts_cmdline_error(cl, "--ops %s: one trace's ops as replayed in virtual time "
					    "(--virtual, not --target, one FILE)",
					o->ops);
	if (o->keep_gaps && !o->kernel_fs)
		return ts_cmdline_error(cl, "--keep-gaps is --kernel-fs's (give both)");
	if (strcmp(o->loop_issue, "on") && strcmp(o->loop_issue, "off") &&
	    strcmp(o->loop_issue, "watch"))
		return ts_cmdline_error(cl, "--loop-issue: '%s' is not on, off or watch",
					o->loop_issue);
	if (strcmp(o->loop_issue, "on") && !o->kernel_fs)
		return ts_cmdline_error(cl, "--loop-issue=%s is --kernel-fs's (give both)",
					o->loop_issue);
	if (!o->target && !o->virtual_time)
		return ts_cmdline_error(cl, "give --virtual (with --tier) or --target DIR");
	if (o->virtual_time && !o->tiers.n)
		return ts_cmdline_error(cl, "--virtual needs at least one --tier NAME");
	if (o->wakes && (o->no_wakes || o->closed_loop || !o->virtual_time))
		return ts_cmdline_error(cl, "--wakes %s: the wake rule is virtual time's, and not "
					    "with --no-wakes or --closed-loop",
					o->wakes);
	/* the wake-up rule lives in the wake rule: where no wake file is read,
	 * a cost would be ignored */
	const char *no_rule = o->target	       ? "--target"
			      : !o->virtual_time ? "real time"
			      : o->no_wakes	       ? "--no-wakes"
			      : o->closed_loop	       ? "--closed-loop"
						       : NULL;
	if (o->fuse_cpu && !o->kernel_fs)
		return ts_cmdline_error(cl, "--fuse-cpu %s is --kernel-fs's (the in-kernel rule)",
					o->fuse_cpu);
	if (o->fuse_cpu_page && !o->kernel_fs)
		return ts_cmdline_error(cl,
					"--fuse-cpu-page %s is --kernel-fs's (the in-kernel rule)",
					o->fuse_cpu_page);
	if (o->kernel_fs && (!o->fuse_cpu || !o->fuse_cpu_page)) {
		/* a host that has none measured: 0 (the rule without it),
		 * unless named with --host */
		char err[512];
		uint64_t ns = 0, page_ns = 0;
		int frc = replay_hosts(o, err, sizeof(err));
		if (!frc)
			frc = ts_host_fuse_cpu(o->hosts, o->host, &ns, &page_ns, err, sizeof(err));
		if (frc == -ENODATA && !o->host)
			ns = page_ns = 0;
		else if (frc)
			return ts_cmdline_error(cl, "--host: %s", err);
		cfg->fuse_cpu_ns = ns;
		/* --fuse-cpu alone is the whole figure */
		cfg->fuse_cpu_page_ns = o->fuse_cpu ? 0 : page_ns;
	}
	if (o->fuse_cpu && (ts_parse_duration(o->fuse_cpu, TS_NS_PER_S, &cfg->fuse_cpu_ns) ||
			    cfg->fuse_cpu_ns > 10 * 1000 * 1000ull))
		return ts_cmdline_error(cl, "--fuse-cpu %s: expected a duration, 0 to 10ms "
					    "(8us, 0.01ms; a bare number is seconds)",
					o->fuse_cpu);
	if (o->fuse_cpu_page &&
	    (ts_parse_duration(o->fuse_cpu_page, TS_NS_PER_S, &cfg->fuse_cpu_page_ns) ||
	     cfg->fuse_cpu_page_ns > 1000 * 1000ull))
		return ts_cmdline_error(cl, "--fuse-cpu-page %s: expected a duration, 0 to 1ms "
					    "(100ns, 0.2us; a bare number is seconds)",
					o->fuse_cpu_page);
	if (o->fuse_cpu_lookup && !o->kernel_fs)
		return ts_cmdline_error(cl, "--fuse-cpu-lookup %s is --kernel-fs's (the in-kernel rule)",
					o->fuse_cpu_lookup);
	if (o->fuse_cpu_open && !o->kernel_fs)
		return ts_cmdline_error(cl, "--fuse-cpu-open %s is --kernel-fs's (the in-kernel rule)",
					o->fuse_cpu_open);
	if (o->fuse_cpu_getattr && !o->kernel_fs)
		return ts_cmdline_error(cl,
					"--fuse-cpu-getattr %s is --kernel-fs's (the in-kernel rule)",
					o->fuse_cpu_getattr);
	if (o->kernel_fs) {
		/* a lookup's and an open's: --fuse-cpu's when given (the
		 * whole figure, as for a page), else the host's */
		cfg->fuse_cpu_lookup_ns = cfg->fuse_cpu_open_ns = cfg->fuse_cpu_getattr_ns =
			cfg->fuse_cpu_ns;
		if (!o->fuse_cpu &&
		    (!o->fuse_cpu_lookup || !o->fuse_cpu_open || !o->fuse_cpu_getattr)) {
			char err[512];
			uint64_t l = 0, op = 0, g = 0;
			int frc = replay_hosts(o, err, sizeof(err));
			if (!frc)
				frc = ts_host_fuse_cpu_meta(o->hosts, o->host, &l, &op, &g, err,
							    sizeof(err));
			if (frc)
				return ts_cmdline_error(cl, "--host: %s", err);
			cfg->fuse_cpu_lookup_ns = l;
			cfg->fuse_cpu_open_ns = op;
			cfg->fuse_cpu_getattr_ns = g;
		}
	}
	struct {
		const char *val, *opt;
		uint64_t *ns;
	} meta[] = { { o->fuse_cpu_lookup, "fuse-cpu-lookup", &cfg->fuse_cpu_lookup_ns },
		     { o->fuse_cpu_open, "fuse-cpu-open", &cfg->fuse_cpu_open_ns },
		     { o->fuse_cpu_getattr, "fuse-cpu-getattr", &cfg->fuse_cpu_getattr_ns } };
	for (size_t i = 0; i < TS_ARRAY_SIZE(meta); i++)
		if (meta[i].val && (ts_parse_duration(meta[i].val, TS_NS_PER_S, meta[i].ns) ||
				    *meta[i].ns > 10 * 1000 * 1000ull))
			return ts_cmdline_error(cl, "--%s %s: expected a duration, 0 to 10ms "
						    "(8us, 0.01ms; a bare number is seconds)",
						meta[i].opt, meta[i].val);
	if ((rc = kfs_figure(cl, o, o->page_wake, "page-wake", "the page-lock wake-up",
			     "40us, 0.04ms", ts_host_page_wake, &cfg->page_wake_ns)) != -1 ||
	    (rc = kfs_figure(cl, o, o->dev_read_cpu, "dev-read-cpu", "the IO path's CPU",
			     "30us, 0.03ms", ts_host_dev_read_cpu, &cfg->dev_read_cpu_ns)) != -1 ||
	    (rc = kfs_figure(cl, o, o->fuse_size, "fuse-size", "the reply's size part",
			     "20us, 0.02ms", ts_host_fuse_size, &cfg->fuse_size_ns)) != -1)
		return rc;
	/* the page-cache read's FUSE part: the floor where the host has
	 * none (it refines the floor, no rule of its own) */
	if (!o->fuse_ra && o->kernel_fs) {
		char err[512];
		int hrc = replay_hosts(o, err, sizeof(err));
		if (!hrc)
			hrc = ts_host_fuse_ra(o->hosts, o->host, &cfg->fuse_ra_ns, err,
						 sizeof(err));
		if (hrc == -ENODATA)
			cfg->fuse_ra_ns = 0;
		else if (hrc)
			return ts_cmdline_error(cl, "--host: %s", err);
	} else if ((rc = kfs_figure(cl, o, o->fuse_ra, "fuse-ra",
				    "the page-cache read's FUSE part", "50us, 0.05ms",
				    ts_host_fuse_ra, &cfg->fuse_ra_ns)) != -1)
		return rc;
	/* the page-cache read's stretch: none where the host has none (it
	 * refines the FUSE part's constant, no rule of its own) */
	if (o->fuse_stretch) {
		char *end = NULL;
		double x = strtod(o->fuse_stretch, &end);
		if (!o->kernel_fs)
			return ts_cmdline_error(cl, "--fuse-stretch %s is --kernel-fs's (the "
						    "page-cache read's stretch)",
						o->fuse_stretch);
		if (end == o->fuse_stretch || *end || !(x >= 1 && x <= 4))
			return ts_cmdline_error(cl, "--fuse-stretch %s: expected a ratio from 1 "
						    "(none) to 4 (1.3)",
						o->fuse_stretch);
		cfg->fuse_stretch = x;
	} else if (o->kernel_fs) {
		char err[512];
		int hrc = replay_hosts(o, err, sizeof(err));
		if (!hrc)
			hrc = ts_host_fuse_stretch(o->hosts, o->host, &cfg->fuse_stretch, err,
						   sizeof(err));
		if (hrc == -ENODATA)
			cfg->fuse_stretch = 0;
		else if (hrc)
			return ts_cmdline_error(cl, "--host: %s", err);
	}
	/* --host also gives --kernel-fs its FUSE CPU, its page-lock wake-up
	 * its IO path's CPU and its reply's size part (above) */
	if ((o->wake_cost || (o->host && !o->kernel_fs)) && no_rule)
		return ts_cmdline_error(cl, "%s %s: the wake-up rule is the wake rule's (virtual "
					    "time, a wake file), not with %s",
					o->wake_cost ? "--wake-cost" : "--host",
					o->wake_cost ? o->wake_cost : o->host, no_rule);
	if (o->lock_wakes && no_rule)
		return ts_cmdline_error(cl, "--lock-wakes %s: the wake rule's (virtual time, a "
					    "wake file), not with %s",
					o->lock_wakes, no_rule);
	if (o->lock_wakes && (ts_parse_duration(o->lock_wakes, TS_NS_PER_S, &o->lock_wakes_ns) ||
			      o->lock_wakes_ns > 1000000))
		return ts_cmdline_error(cl, "--lock-wakes %s: expected a duration from 0 to 1ms "
					    "(50us)",
					o->lock_wakes);
	if (o->wake_cost) {
		if (ts_parse_duration(o->wake_cost, TS_NS_PER_S, &cfg->wake_cost_ns))
			return ts_cmdline_error(cl, "--wake-cost %s: expected a duration (34us, 0.1ms)",
						o->wake_cost);
		if (cfg->wake_cost_ns > TS_REPLAY_WAKE_COST_MAX_NS)
			return ts_cmdline_error(cl, "--wake-cost %s: at most 10ms per e-fold (measured "
						    "costs are tens of microseconds; a bare number is "
						    "seconds)",
						o->wake_cost);
	} else if (!no_rule) {
		char err[512];
		if (replay_hosts(o, err, sizeof(err)) ||
		    ts_host_replay_wake_cost(o->hosts, o->host, &cfg->wake_cost_ns, err, sizeof(err)))
			return ts_cmdline_error(cl, "--host: %s", err);
	}
	*files = a.pos;
	*nfiles = (size_t)a.npos;
	cfg->speed = o->speed;
	cfg->target = o->target;
	cfg->no_think = o->no_think;
	cfg->kernel_fs = o->kernel_fs;
	cfg->keep_gaps = o->keep_gaps;
	cfg->loop_receipt = strcmp(o->loop_issue, "on") != 0;
	cfg->closed_loop = o->closed_loop;
	cfg->cpu_model = o->cpu_model;
	cfg->allow_writes = o->allow_writes;
	cfg->fill = o->fill;
	return -1;
}

static bool overridden(const struct replay_args *o)
{
	for (size_t i = 0; i < TS_REPLAY_OVER_N; i++)
		if (o->over[i])
			return true;
	return false;
}

/* --cpu-model that served no gap of any prediction: say why, so that
 * results equal to the recorded queueing's are not taken for the model's
 * (the recorded queueing is kept, as without it) */
static void cpu_model_notice(const struct replay_args *o, const char *file,
			     const struct ts_replay_result *res, size_t nres)
{
	bool cap = false;
	if (!o->cpu_model || nres < 2)
		return;
	for (size_t i = 1; i < nres; i++) {
		if (res[i].cpu_gaps)
			return;
		cap |= res[i].cpu_cap > 0;
	}
	fprintf(stderr,
		"tiersim replay: %s: notice: --cpu-model served no gap (%s): the recorded "
		"queueing is kept\n",
		file,
		!cap ? "no wake file with the host's CPUs beside the trace"
		     : "no thread's requests carry its own CPU samples: a block-mode recording's "
		       "requests are the kernel's, a trace_cpu=false one has none");
}

/* The recording, each --tier predicted, and the --target run, in @res. */
static int replay_all(const struct replay_args *o, struct ts_replay_set *rs,
		      struct ts_replay_result *res, size_t *nres)
{
	char err[512];
	struct ts_replay_cfg *cfg = &rs->cfg;
	if (ts_replay_recorded_wakes(&rs->t, cfg->wakes, &res[(*nres)++])) {
		fprintf(stderr, "tiersim replay: out of memory\n");
		return -ENOMEM;
	}
	for (size_t i = 0; i < o->tiers.n; i++) {
		const char *tier = o->tiers.v[i];
		if (ts_replay_predict(rs, tier, &res[*nres], err, sizeof(err))) {
			fprintf(stderr, "tiersim replay: %s: %s\n", tier, err);
			return -EINVAL;
		}
		if (cfg->target)
			snprintf(res[*nres].what, sizeof(res[*nres].what), "%s (virtual)", tier);
		(*nres)++;
	}
	if (cfg->target) {
		/* the recorded think gaps include the recording mount's FUSE round
		 * trip, which the replay's own syscalls pay again, and in block
		 * mode the loop device's hop, which they do not */
		cfg->think_less_ns = rs->rec_floor + rs->rec_hop;
		cfg->progress = stderr;
		cfg->wakes = NULL; /* real threads wait on each other for real */
		if (ts_replay_real(&rs->t, cfg, &res[*nres], err, sizeof(err))) {
			fprintf(stderr, "tiersim replay: %s\n", err);
			return -EIO;
		}
		snprintf(res[*nres].what, sizeof(res[*nres].what), "measured");
		(*nres)++;
	}
	return 0;
}

/* One trace: opened, replayed, printed (text), or its JSON object in
 * *@j; its results stay in @res (o->tiers.n + 2) for the combination.
 * 0, else the exit status. */
/* What the file system's layout was taken from (tier/fsmeta.h). */
static const char *fs_layout(const struct replay_args *o, const struct ts_replay_set *rs)
{
	return o->fs_size ? "--fs-size"
	       : rs->t.hdr.model & TS_TRACE_MODEL_FS ? "the recording's image (its geometry)"
						      : "the tier's capacity";
}

static int replay_one(const struct replay_args *o, const struct ts_replay_cfg *cfg0,
		      const char *file, struct ts_replay_result *res, char *tier, size_t tierlen,
		      json_t **j)
{
	struct ts_replay_cfg cfg = *cfg0;
	char err[512];
	struct ts_replay_from from = {
		.trace = file, .wakes = o->wakes, .profile = o->profile, .tiers = o->tiers.n > 0,
		.no_wakes = o->no_wakes || o->closed_loop || !o->virtual_time || o->target,
		.lock_wakes_ns = o->lock_wakes ? o->lock_wakes_ns : TS_REPLAY_LOCK_WAKES_NS,
	};
	memcpy(from.over, o->over, sizeof(from.over));
	if (o->instance)
		from.ebs = &o->ebs;
	struct ts_replay_set rs;
	size_t nres = 0;
	int rc = ts_replay_open(&rs, &from, &cfg, err, sizeof(err));
	rs.cfg.tier.ra_kernel = o->ra_kernel_v; /* the kernel predicted, not the recording's */
	if (rs.warn[0])
		fprintf(stderr, "tiersim replay: %s: warning: %s\n", file, rs.warn);
	if (rs.no_cpu)
		fprintf(stderr,
			"tiersim replay: %s: notice: no CPU samples (trace format version %u%s): "
			"replaying closed loop, every gap as think time\n",
			file, rs.t.hdr.version,
			rs.t.hdr.version >= 2 ? ", imported or not from tierfs" : "");
	if (rc) {
		fprintf(stderr, "tiersim replay: %s\n", err);
		rc = rs.bad_override ? 2 : 1;
		goto out;
	}
	rc = 1;
	snprintf(tier, tierlen, "%s", rs.t.hdr.tier[0] ? rs.t.hdr.tier : "a plain directory");
	if (replay_all(o, &rs, res, &nres))
		goto out;
	cpu_model_notice(o, file, res, nres);
	rs.cfg.ops = NULL; /* the band's predictions are not the op's own */
	struct ts_replay_band band;
	unsigned parts = (unsigned)o->band;
	if (parts) {
		if (ts_replay_band_pace(&rs.t, rs.cfg.wakes, parts, &band, err, sizeof(err))) {
			fprintf(stderr, "tiersim replay: %s: %s\n", file, err);
			goto out;
		}
		for (size_t i = 0; i < o->tiers.n; i++)
			if (ts_replay_predict_band(&rs, o->tiers.v[i], &band, &res[i + 1], err,
						   sizeof(err))) {
				fprintf(stderr, "tiersim replay: %s: %s\n", o->tiers.v[i], err);
				goto out;
			}
	}
	if (j || o->json) {
		json_t *o1 = json_pack("{ss ss sI sb so ss ss}", "trace", file, "recorded_tier",
				       rs.t.hdr.tier, "dropped", (json_int_t)rs.t.dropped,
				       "truncated", rs.t.truncated, "results",
				       ts_replay_json(res, nres), "ra_kernel", o->ra_kernel,
				       "fs_layout", fs_layout(o, &rs));
		json_t *pj = parts ? json_array() : NULL;
		for (unsigned k = 0; pj && k < parts; k++)
			json_array_append_new(pj, json_real(band.pace[k]));
		if (o1 && parts)
			json_object_set_new(
			    o1, "band",
			    json_pack("{sI sb sI so sf sf sf sf sf sI sI sf}", "parts",
				      (json_int_t)parts, "own_time", band.own_time, "from",
				      (json_int_t)band.from, "pace", pj ? pj : json_null(), "mean",
				      band.mean, "sd", band.sd, "half", band.half, "low", band.low,
				      "high", band.high, "head_ns", (json_int_t)band.head_ns,
				      "tail_ns", (json_int_t)band.tail_ns, "alone", band.alone));
		if (!o1) {
			fprintf(stderr, "tiersim replay: out of memory\n");
			goto out;
		}
		if (j) {
			*j = o1;
		} else {
			int bad = json_dumpf(o1, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(10)) ||
				  fputc('\n', stdout) == EOF;
			json_decref(o1);
			if (bad) {
				fprintf(stderr, "tiersim replay: writing JSON failed\n");
				goto out;
			}
		}
	} else {
		ts_replay_print_run(stdout, file, &rs, overridden(o), res, nres);
		if (o->virtual_time)
			printf("readahead as Linux %s's (--ra-kernel); file system laid out for %s\n",
			       o->ra_kernel, fs_layout(o, &rs));
		if (parts) {
			if (band.own_time)
				printf("\nband: the recording's pace over %u parts of the intervals "
				       "between its requests (each part's own time of the command's "
				       "threads a request, their time on a CPU or waiting for one, "
				       "against the whole's):",
				       parts);
			else
				printf("\nband: the recording's pace over %u parts of the intervals "
				       "between its requests (each part's mean interval against the "
				       "whole's):",
				       parts);
			for (unsigned k = 0; k < parts; k++)
				printf(" %.3f", band.pace[k]);
			if (band.from > 1)
				printf("\nparts 1-%u hold the job's start (its threads starting), "
				       "the last its end; the inner %u",
				       band.from, parts - 1 - band.from);
			else
				printf(
				    "\nthe inner %u (the first and last hold the job's start and "
				    "end)",
				    parts - 2);
			printf(
			    ": mean %.3f, sd %.3f; the mean's 95%% interval +-%.1f%%\n"
			    "band low / high: each tier predicted with every recorded gap %.3f / "
			    "%.3f times as long%s\n",
			    band.mean, band.sd, 100 * band.half, band.low, band.high,
			    rs.cfg.wakes && rs.cfg.wakes->npauses
				? " (the threads' pauses, a timer's sleep, as recorded)"
				: "");
			char hb[32], tb[32];
			if (band.head_ns || band.tail_ns)
				printf("the phases without requests, each one part of unknown "
				       "pace (+-%.1f%%, %s): the threads' own time before the "
				       "first request %s, after the last %s; each end that much "
				       "further out, in quadrature\n",
				       100 * band.alone,
				       band.alone > TS_REPLAY_BAND_ALONE_MIN
					   ? "t * sd"
					   : "the least, above t * sd",
				       ts_fmt_duration(hb, sizeof(hb), band.head_ns),
				       ts_fmt_duration(tb, sizeof(tb), band.tail_ns));
		}
	}
	rc = 0;
out:
	ts_replay_close(&rs);
	return rc;
}

/* Several traces: each replayed and shown, then the combination. */
static int replay_many(const struct replay_args *o, const struct ts_replay_cfg *cfg,
		       char **files, size_t nfiles)
{
	size_t nt = o->tiers.n;
	struct ts_replay_result *res = calloc(nt + 2, sizeof(*res)), *first = NULL;
	struct ts_replay_runs rp = {.runs = nfiles, .ntiers = nt};
	json_t *all = o->json ? json_array() : NULL, *j = NULL;
	char tier0[96] = "", tier[96];
	bool one_tier = true;
	int rc = 1;
	int alloc = ts_replay_runs_alloc(&rp);
	first = calloc(nt + 2, sizeof(*first));
	if (!res || !first || alloc || (o->json && !all)) {
		fprintf(stderr, "tiersim replay: out of memory\n");
		goto out;
	}
	for (size_t k = 0; k < nfiles; k++) {
		memset(res, 0, (nt + 2) * sizeof(*res));
		if (k && !o->json)
			fputc('\n', stdout);
		if ((rc = replay_one(o, cfg, files[k], res, tier, sizeof(tier), all ? &j : NULL)))
			goto out;
		rc = 1;
		if (all && json_array_append_new(all, j)) {
			fprintf(stderr, "tiersim replay: out of memory\n");
			goto out;
		}
		if (!k) {
			memcpy(first, res, (nt + 2) * sizeof(*res));
			snprintf(tier0, sizeof(tier0), "%s", tier);
		}
		one_tier = one_tier && !strcmp(tier, tier0);
		for (size_t i = 0; i <= nt; i++)
			ts_replay_runs_put(&rp, k, i, &res[i]);
	}
	if (all) {
		json_t *c = ts_replay_runs_json(&rp, first), *top;
		if (!c) {
			fprintf(stderr, "tiersim replay: out of memory\n");
			goto out;
		}
		json_object_set_new(c, "one_tier", json_boolean(one_tier));
		top = json_pack("{so so}", "traces", all, "combined", c); /* takes both */
		all = NULL;
		if (!top || json_dumpf(top, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(10)) ||
		    fputc('\n', stdout) == EOF) {
			json_decref(top);
			fprintf(stderr, "tiersim replay: writing JSON failed\n");
			goto out;
		}
		json_decref(top);
	} else {
		ts_replay_runs_print(stdout, &rp, one_tier ? tier0 : NULL, first);
	}
	rc = fflush(stdout) ? 1 : 0;
out:
	json_decref(all);
	ts_replay_runs_free(&rp);
	free(first);
	free(res);
	return rc;
}

int ts_cmd_replay(int argc, char **argv)
{
	struct replay_args o = { 0 };
	struct ts_replay_cfg cfg = { .speed = 1.0 };
	char **files = NULL;
	size_t nfiles = 0;
	char tier[96];
	int rc = replay_args(&o, &cfg, argc, argv, &files, &nfiles);
	ts_host_set_free(o.hosts); /* every figure of it is in @cfg */
	o.hosts = NULL;
	if (rc < 0 && o.instance) {
		struct ts_price_set *prices = NULL;
		const struct ts_instance *in = NULL;
		char err[512];
		if (ts_price_load_checked(NULL, NULL, &prices, err, sizeof(err))) {
			fprintf(stderr, "tiersim replay: %s\n", err);
			rc = 1;
		} else if (ts_price_instance(prices, o.instance, &in, err, sizeof(err))) {
			rc = ts_cmdline_error(&replay_cmdline, "--instance: %s", err);
		} else {
			ts_instance_ebs(in, &o.ebs);
			/* prices.lua lets an entry leave ebs out: running under no
			 * limits would silently drop the trace's own */
			if (!o.ebs.iops && !o.ebs.bps && !o.ebs.max_iops && !o.ebs.max_bps)
				rc = ts_cmdline_error(&replay_cmdline,
						      "--instance %s: no EBS limits in its price entry",
						      o.instance);
		}
		ts_price_set_free(prices);
	}
	if (rc >= 0) {
		ts_opt_free(replay_opts, &o);
		return rc;
	}
	if (o.ops) {
		cfg.ops = fopen(o.ops, "w");
		if (!cfg.ops) {
			fprintf(stderr, "tiersim replay: --ops %s: %s\n", o.ops, strerror(errno));
			ts_opt_free(replay_opts, &o);
			return 1;
		}
		ts_replay_ops_head(cfg.ops);
	}
	if (nfiles > 1) {
		rc = replay_many(&o, &cfg, files, nfiles);
	} else {
		struct ts_replay_result *res = calloc(o.tiers.n + 2, sizeof(*res));
		if (!res) {
			fprintf(stderr, "tiersim replay: out of memory\n");
			rc = 1;
		} else {
			rc = replay_one(&o, &cfg, files[0], res, tier, sizeof(tier), NULL);
			if (!rc)
				rc = fflush(stdout) ? 1 : 0;
		}
		free(res);
	}
	if (cfg.ops && fclose(cfg.ops) && !rc) {
		fprintf(stderr, "tiersim replay: --ops %s: %s\n", o.ops, strerror(errno));
		rc = 1;
	}
	ts_opt_free(replay_opts, &o);
	return rc;
}
