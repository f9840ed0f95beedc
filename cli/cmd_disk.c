/*
 * cmd_disk.c — `tiersim disk`: block mode (disk/disk.h). Each verb reads
 * its options, calls one library entry and prints what it returned.
 *
 *   tiersim disk make IMAGE --size S --fs ext4|xfs [--from DIR]
 *   tiersim disk mount IMAGE MOUNTPOINT --tier T [--capacity C] [--mem M] [--instance I]
 *                      [--trace F] [--rw] [--loop-hop=false]
 *                      [--loop-issue=on|off|watch]
 *   tiersim disk umount MOUNTPOINT
 *   tiersim disk list
 *   tiersim disk run MOUNTPOINT [--mem M] [--cache cold|warm] -- CMD ARGS...
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cmdline.h"
#include "cli/commands.h"
#include "disk/disk.h"
#include "fs/mount.h"
#include "fs/record.h"
#include "core/opt.h"
#include "core/units.h"
#include "cost/price.h"

struct disk_args {
	uint64_t size, capacity, mem;
	char *fs, *from, *tier, *trace, *profile, *cache, *instance;
	bool rw, loop_hop;
	char *loop_issue;
};

#define OFF(f) offsetof(struct disk_args, f)

static const struct ts_opt make_opts[] = {
	{ "size", TS_OPT_SIZE, OFF(size), NULL, 0, 0, "bytes",
	  "the image's size (sparse: only what the file system writes takes space)", NULL, 's' },
	{ "fs", TS_OPT_STR, OFF(fs), NULL, 0, 0, "", "the file system: ext4 or xfs", NULL, 0 },
	{ "from", TS_OPT_STR, OFF(from), NULL, 0, 0, "",
	  "copy this directory's tree in (offline: no tier cost)", "DIR", 0 },
	{ NULL },
};

static const struct ts_opt mount_opts[] = {
	{ "tier", TS_OPT_STR, OFF(tier), NULL, 0, 0, "", "the tier to emulate (tiersim tiers)",
	  NULL, 't' },
	{ "capacity", TS_OPT_SIZE, OFF(capacity), NULL, 0, 0, "bytes",
	  "the provisioned size the tier's formulas use (default: the tier's default)", NULL, 'c' },
	{ "mem", TS_OPT_SIZE, OFF(mem), NULL, 0, 0, "bytes",
	  "the instance's memory: the memory cgroup of jobs run with tiersim disk run", NULL, 'm' },
	{ "instance", TS_OPT_STR, OFF(instance), NULL, 0, 0, "",
	  "the instance the volume is attached to (tiersim prices): its EBS limits cap an aws-* "
	  "tier above the volume's own",
	  "NAME", 0 },
	{ "trace", TS_OPT_STR, OFF(trace), NULL, 0, 0, "",
	  "record every request the device serves (tiersim trace stats FILE)", "FILE", 0 },
	{ "profile", TS_OPT_STR, OFF(profile), NULL, 0, 0, "",
	  "a Lua file of more tiers", "FILE", 'p' },
	{ "rw", TS_OPT_BOOL, OFF(rw), "false", 0, 0, "",
	  "attach and mount read-write (default: read-only)", NULL, 0 },
	{ "loop_hop", TS_OPT_BOOL, OFF(loop_hop), "true", 0, 0, "",
	  "measure the hop the loop device adds to a request (a loop device over tierfs's "
	  ".tierfs/calib, 4 KiB direct reads through it and directly) and take it off the tier "
	  "model's latency with FUSE's round trip, as a cloud VM's disk has no loop worker "
	  "(--loop-hop=false: leave it in)",
	  NULL, 0 },
	{ "loop_issue", TS_OPT_STR, OFF(loop_issue), "on", 0, 0, "",
	  "on: charge each device request from the moment the loop device issued it (a BPF "
	  "program on block:block_rq_issue/complete), and take the measured hop from tierfs's "
	  "reply to the kernel's completion off, per request; where BPF is not there, the hop "
	  "measured at mount instead; off: that always; watch: as off, and tierfs's stats say "
	  "how far the kernel's completions fall from the model's counted from the issue",
	  "on|off|watch", 0 },
	{ NULL },
};

static const struct ts_opt none_opts[] = { { NULL } };

static const struct ts_opt run_opts[] = {
	{ "mem", TS_OPT_SIZE, OFF(mem), NULL, 0, 0, "bytes",
	  "the instance's memory, the job's cgroup limit (default: the mount's --mem)", NULL,
	  'm' },
	{ "cache", TS_OPT_STR, OFF(cache), "cold", 0, 0, "",
	  "cold (the file system unmounted and mounted again first: nothing cached) or warm "
	  "(what the previous run on this disk left cached)",
	  NULL, 0 },
	{ NULL },
};

static const struct ts_cmdline make_cl = {
	.name = "disk make",
	.synopsis = "IMAGE --size SIZE --fs ext4|xfs [--from DIR]",
	.about = "Makes a disk image: a sparse file, the real mkfs, DIR's tree copied in.\n",
	.opts = make_opts,
	.max_pos = 1,
};

static const struct ts_cmdline mount_cl = {
	.name = "disk mount",
	.synopsis = "IMAGE MOUNTPOINT --tier T [--capacity C] [--mem M] [--instance I] [--trace F] "
		    "[--rw] [--loop-hop=false] [--loop-issue=on|off|watch]",
	.about = "Block mode: tierfs serves IMAGE with the tier's model, a loop device with\n"
		 "direct I/O and the tier's queue limits is attached to it, and its file\n"
		 "system is mounted on MOUNTPOINT; the kernel's page cache and readahead sit\n"
		 "above the emulated disk. With --instance, an aws-* tier runs under the\n"
		 "instance's EBS limits as well (tierfs's ebs_* options). tierfs takes\n"
		 "its FUSE round trip and the loop device's hop, both measured at mount,\n"
		 "off the tier's latency (disk/README.md). Needs root.\n",
	.opts = mount_opts,
	.max_pos = 2,
};

static const struct ts_cmdline umount_cl = {
	.name = "disk umount",
	.synopsis = "MOUNTPOINT",
	.about = "Unmounts the file system, detaches the loop device, stops tierfs.\n",
	.opts = none_opts,
	.max_pos = 1,
};

static const struct ts_cmdline list_cl = {
	.name = "disk list",
	.synopsis = "",
	.about = "Lists the disks attached by tiersim disk mount.\n",
	.opts = none_opts,
	.max_pos = 0,
};

static const struct ts_cmdline run_cl = {
	.name = "disk run",
	.synopsis = "MOUNTPOINT [--mem M] [--cache cold|warm] -- CMD ARGS...",
	.about = "Runs CMD in a memory cgroup limited to the instance's memory and reports\n"
		 "the device's requests and the cgroup's page cache.\n",
	.opts = run_opts,
	.max_pos = 1,
};

static int fail(const char *verb, const char *err)
{
	fprintf(stderr, "tiersim disk %s: %s\n", verb, err);
	return TS_EXIT_FAIL;
}

static int need(const struct ts_cmdline *cl, const struct ts_opt_args *a, int n,
		const char *what)
{
	if (a->npos == n)
		return 0;
	return ts_cmdline_error(cl, "expected %s", what);
}

static int do_make(int argc, char **argv)
{
	struct disk_args o = { 0 };
	struct ts_opt_args a;
	char err[1024];
	int rc = ts_cmdline_parse(&make_cl, &o, argc, argv, &a);
	if (rc >= 0)
		return rc;
	if ((rc = need(&make_cl, &a, 1, "IMAGE")) || (!o.size && (rc = ts_cmdline_error(
								  &make_cl, "--size is required"))) ||
	    (!o.fs && (rc = ts_cmdline_error(&make_cl, "--fs ext4|xfs is required")))) {
		ts_opt_free(make_opts, &o);
		return rc;
	}
	if (ts_disk_fs_check(o.fs, err, sizeof(err))) {
		ts_opt_free(make_opts, &o);
		return ts_cmdline_error(&make_cl, "%s", err);
	}
	struct ts_disk_make_opts m = { .image = a.pos[0], .size = o.size, .fs = o.fs,
				       .from = o.from };
	rc = ts_disk_make(&m, err, sizeof(err)) ? fail("make", err) : TS_EXIT_OK;
	ts_opt_free(make_opts, &o);
	return rc;
}

static int do_mount(int argc, char **argv)
{
	struct disk_args o = { 0 };
	struct ts_opt_args a;
	struct ts_mounts ms;
	char err[1024];
	int rc = ts_cmdline_parse(&mount_cl, &o, argc, argv, &a);
	if (rc >= 0)
		return rc;
	if ((rc = need(&mount_cl, &a, 2, "IMAGE and MOUNTPOINT")) ||
	    (!o.tier && (rc = ts_cmdline_error(&mount_cl, "--tier is required (tiersim tiers "
							   "lists them)")))) {
		ts_opt_free(mount_opts, &o);
		return rc;
	}
	struct ts_tier_ebs ebs = { 0 };
	char ebs_opts[256] = "";
	if (o.instance) {
		struct ts_price_set *prices = NULL;
		const struct ts_instance *in = NULL;
		rc = ts_price_load_checked(NULL, NULL, &prices, err, sizeof(err));
		if (rc) {
			ts_opt_free(mount_opts, &o);
			return fail("mount", err);
		}
		rc = ts_price_instance(prices, o.instance, &in, err, sizeof(err));
		if (!rc)
			ts_instance_ebs(in, &ebs);
		ts_price_set_free(prices);
		/* prices.lua lets an entry leave ebs out: it would mount under none */
		if (!rc && !ebs.iops && !ebs.bps && !ebs.max_iops && !ebs.max_bps) {
			rc = ts_cmdline_error(&mount_cl, "--instance %s: no EBS limits in its price entry",
					      o.instance);
			ts_opt_free(mount_opts, &o);
			return rc;
		}
		if (!rc && ts_mount_ebs_opts(&ebs, ebs_opts, sizeof(ebs_opts)) >= sizeof(ebs_opts)) {
			snprintf(err, sizeof(err), "%s: its EBS limits do not fit tierfs's options",
				 o.instance);
			rc = -ENAMETOOLONG;
		}
		if (rc) {
			rc = ts_cmdline_error(&mount_cl, "--instance: %s", err);
			ts_opt_free(mount_opts, &o);
			return rc;
		}
	}
	if (strcmp(o.loop_issue, "on") && strcmp(o.loop_issue, "off") &&
	    strcmp(o.loop_issue, "watch")) {
		snprintf(err, sizeof(err), "--loop-issue: '%s' is not on, off or watch", o.loop_issue);
		ts_opt_free(mount_opts, &o);
		return fail("mount", err);
	}
	if (geteuid() != 0) {
		ts_opt_free(mount_opts, &o);
		return fail("mount", "block mode needs root (loop devices and mount(2))");
	}
	if (ts_mounts_init(&ms, err, sizeof(err))) {
		ts_opt_free(mount_opts, &o);
		return fail("mount", err);
	}
	struct ts_disk_mount_opts m = {
		.tierfs = ms.tierfs, .image = a.pos[0], .mountpoint = a.pos[1], .tier = o.tier,
		.profile = o.profile, .capacity = o.capacity, .mem = o.mem, .trace = o.trace,
		.rw = o.rw, .ebs_opts = ebs_opts, .no_loop_hop = !o.loop_hop,
		.loop_issue = o.loop_issue,
	};
	char note[256] = "";
	m.note = note;
	m.notelen = sizeof(note);
	rc = ts_disk_mount(&m, err, sizeof(err)) ? fail("mount", err) : TS_EXIT_OK;
	if (rc == TS_EXIT_OK && o.trace && ts_record_stamp_fs(o.trace, a.pos[0], err, sizeof(err)))
		fprintf(stderr, "tiersim disk mount: the image's geometry is not in the trace: %s\n",
			err);
	if (rc == TS_EXIT_OK && note[0])
		fprintf(stderr, "tiersim disk mount: %s\n", note);
	struct ts_disk d;
	if (rc == TS_EXIT_OK && !ts_disk_find(a.pos[1], &d, err, sizeof(err))) {
		char fl[32], hop[32], big[160] = "";
		if (d.loop_hop) {
			char b[32], w[32];
			snprintf(big, sizeof(big),
				 ", a 128 KiB request %s more (measured), a read's readahead "
				 "window %s more (measured)",
				 ts_fmt_duration(b, sizeof(b), d.loop_hop_big_ns),
				 ts_fmt_duration(w, sizeof(w), d.loop_hop_window_ns));
		}
		fprintf(stderr,
			"tiersim disk mount: %s on %s: taken off the tier model's latency: FUSE round "
			"trip %s (measured), loop device hop %s%s%s\n",
		       d.loop, d.mountpoint, ts_fmt_duration(fl, sizeof(fl), d.floor_ns),
		       d.loop_hop ? ts_fmt_duration(hop, sizeof(hop), d.loop_hop_ns) : "none",
		       d.loop_hop ? " (measured)" : " (--loop-hop=false)", big);
		if (d.loop_issue == TS_DISK_ISSUE_MEASURED)
			fprintf(stderr, "tiersim disk mount: %s: each request charged from the loop "
					"device's issue, less its reply's hop to the completion "
					"(measured per request)\n", d.loop);
		else if (d.loop_issue == TS_DISK_ISSUE_WATCHED)
			fprintf(stderr, "tiersim disk mount: %s: requests charged from tierfs's "
					"receipt, their completions compared with the model's from the "
					"loop device's issue (tierfs's stats)\n", d.loop);
		else if (d.loop_issue == TS_DISK_ISSUE_UNAVAILABLE)
			fprintf(stderr, "tiersim disk mount: %s: requests charged from tierfs's "
					"receipt: the loop device's issue cannot be timed (tierfs's log "
					"says why)\n", d.loop);
		ts_disk_clear(&d);
	}
	ts_mounts_free(&ms);
	ts_opt_free(mount_opts, &o);
	return rc;
}

static int do_umount(int argc, char **argv)
{
	struct disk_args o = { 0 };
	struct ts_opt_args a;
	char err[1024];
	int rc = ts_cmdline_parse(&umount_cl, &o, argc, argv, &a);
	if (rc >= 0)
		return rc;
	if ((rc = need(&umount_cl, &a, 1, "MOUNTPOINT")))
		return rc;
	return ts_disk_umount(a.pos[0], err, sizeof(err)) ? fail("umount", err) : TS_EXIT_OK;
}

static int do_list(int argc, char **argv)
{
	struct disk_args o = { 0 };
	struct ts_opt_args a;
	struct ts_disk *d;
	size_t n;
	char err[1024], mem[32];
	int rc = ts_cmdline_parse(&list_cl, &o, argc, argv, &a);
	if (rc >= 0)
		return rc;
	if (ts_disk_list(&d, &n, err, sizeof(err)))
		return fail("list", err);
	/* loop hop, its size part (a 128 KiB request) and window part (a
	 * read): measured at mount and taken off the model's latency, or
	 * "off" (--loop-hop=false) */
	printf("%-28s %-12s %-5s %-14s %-6s %8s %10s %10s %10s  %s\n", "mountpoint", "device",
	       "fs", "tier", "mode", "mem", "loop hop", "128k part", "window", "image (tierfs pid)");
	for (size_t i = 0; i < n; i++) {
		char hop[32], big[32], win[32];
		printf("%-28s %-12s %-5s %-14s %-6s %8s %10s %10s %10s  %s (%ld%s)\n",
		       d[i].mountpoint, d[i].loop, d[i].fs, d[i].tier, d[i].rw ? "rw" : "ro",
		       d[i].mem ? ts_fmt_size(mem, sizeof(mem), d[i].mem) : "-",
		       d[i].loop_hop ? ts_fmt_duration(hop, sizeof(hop), d[i].loop_hop_ns) : "off",
		       d[i].loop_hop ? ts_fmt_duration(big, sizeof(big), d[i].loop_hop_big_ns) : "off",
		       d[i].loop_hop ? ts_fmt_duration(win, sizeof(win), d[i].loop_hop_window_ns)
				     : "off",
		       d[i].image, (long)d[i].tierfs_pid, ts_disk_alive(&d[i]) ? "" : ", gone");
	}
	ts_disk_list_free(d, n);
	return TS_EXIT_OK;
}

static int do_run(int argc, char **argv)
{
	struct disk_args o = { 0 };
	struct ts_opt_args a;
	struct ts_disk d;
	struct ts_disk_job_result r;
	char err[1024], b1[32], b2[32], b3[32], b4[32], b5[32];
	int cmd = -1;

	for (int i = 1; i < argc && cmd < 0; i++)
		if (!strcmp(argv[i], "--"))
			cmd = i + 1;
	int rc = ts_cmdline_parse(&run_cl, &o, cmd < 0 ? argc : cmd - 1, argv, &a);
	if (rc >= 0)
		return rc;
	if ((rc = need(&run_cl, &a, 1, "MOUNTPOINT")) ||
	    ((cmd < 0 || cmd >= argc) &&
	     (rc = ts_cmdline_error(&run_cl, "no command: give it after '--'")))) {
		ts_opt_free(run_opts, &o);
		return rc;
	}
	if (ts_disk_find(a.pos[0], &d, err, sizeof(err))) {
		ts_opt_free(run_opts, &o);
		return fail("run", err);
	}
	struct ts_disk_job_opts jo = { .mem = o.mem, .cache = o.cache, .argv = argv + cmd };
	rc = ts_disk_job_run(&d, &jo, &r, err, sizeof(err));
	ts_disk_clear(&d);
	ts_opt_free(run_opts, &o);
	if (rc)
		return fail("run", err);
	fprintf(stderr,
		"tiersim disk run: %.3f s; device: %llu reads, %s; %llu writes, %s; cgroup v%d "
		"limit %s: peak %s, page cache at the end %s, the job's own memory at most %s\n",
		r.wall_s, (unsigned long long)r.dev_reads, ts_fmt_size(b1, sizeof(b1), r.dev_read_bytes),
		(unsigned long long)r.dev_writes, ts_fmt_size(b2, sizeof(b2), r.dev_write_bytes),
		r.cgroup_version, ts_fmt_size(b3, sizeof(b3), r.mem),
		ts_fmt_size(b4, sizeof(b4), r.peak), ts_fmt_size(err, sizeof(err), r.file),
		ts_fmt_size(b5, sizeof(b5), r.own));
	printf("wall_s=%.6f dev_reads=%llu dev_read_bytes=%llu dev_writes=%llu "
	       "dev_write_bytes=%llu mem=%llu peak=%llu file=%llu own=%llu\n",
	       r.wall_s, (unsigned long long)r.dev_reads, (unsigned long long)r.dev_read_bytes,
	       (unsigned long long)r.dev_writes, (unsigned long long)r.dev_write_bytes,
	       (unsigned long long)r.mem, (unsigned long long)r.peak, (unsigned long long)r.file,
	       (unsigned long long)r.own);
	if (WIFEXITED(r.status))
		return WEXITSTATUS(r.status);
	return 128 + (WIFSIGNALED(r.status) ? WTERMSIG(r.status) : 0);
}

static const struct {
	const char *verb;
	int (*fn)(int, char **);
	const char *about;
} verbs[] = {
	{ "make", do_make, "make an image: sparse file, real mkfs, a tree copied in" },
	{ "mount", do_mount, "attach an image through tierfs and a loop device, mount it" },
	{ "umount", do_umount, "undo a mount: file system, loop device, tierfs" },
	{ "list", do_list, "list the attached disks" },
	{ "run", do_run, "run a command in a memory cgroup of the instance's size" },
};

int ts_cmd_disk(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		FILE *f = argc < 2 ? stderr : stdout;
		fprintf(f, "usage: tiersim disk VERB [ARGS...]\n\nBlock mode: an emulated disk as a "
			   "real block device under ext4 or xfs.\n\n");
		for (size_t i = 0; i < TS_ARRAY_SIZE(verbs); i++)
			fprintf(f, "  %-8s %s\n", verbs[i].verb, verbs[i].about);
		fprintf(f, "\n'tiersim disk VERB --help' describes one.\n");
		return argc < 2 ? TS_EXIT_USAGE : TS_EXIT_OK;
	}
	for (size_t i = 0; i < TS_ARRAY_SIZE(verbs); i++)
		if (!strcmp(argv[1], verbs[i].verb))
			return verbs[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "tiersim disk: unknown verb '%s' (make, mount, umount, list, run)\n",
		argv[1]);
	return TS_EXIT_USAGE;
}
