/*
 * cmd_record.c — `tiersim record --data DIR [options] -- CMD ARGS...`: run an
 * application once through tierfs and say what other tiers would do to it.
 *
 * DIR is mounted through tierfs (-o tier=T,mem=M,trace=OUT) at a fresh
 * temporary mount point; the command runs with `{}` in its arguments
 * replaced by the mount point and TIERSIM_MOUNT set to it; when it ends the
 * mount comes down (the daemon writes the trace's trailer as it exits), and
 * the trace's summary is printed, with --predict the replay table per tier
 * (traces/replay: the wait rule, so an application that waits on its own
 * consumer is predicted as such).
 *
 * The mount is torn down on every path: the command failing, tiersim
 * getting SIGINT/SIGTERM/SIGHUP (Ctrl-C reaches the command through the
 * terminal; a signal sent to tiersim alone is passed on to it), the trace
 * being unreadable. The command's exit status is tiersim's (128 + N for a
 * command killed by signal N, as a shell reports it) unless recording
 * itself failed.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "cli/cmdline.h"
#include "core/interrupt.h"
#include "cli/commands.h"
#include "core/opt.h"
#include "disk/disk.h"
#include "fs/record.h"
#include "pipeline/host.h"
#include "traces/replay/replay.h"
#include "traces/trace.h"

#define MAX_TIERS 16

struct rec_cfg {
	char *data;
	char *tier;
	uint64_t mem;
	char *out;
	char *predict;
	char *profile;
	char *probe;
	bool json;
	bool no_wakes;
	bool no_handoffs;
	char *fs;
	int64_t repeat;
};

static const struct ts_opt rec_opts[] = {
    {"data", TS_OPT_STR, offsetof(struct rec_cfg, data), NULL, 0, 0, "",
     "the directory to mount through tierfs (required)"},
    {"tier", TS_OPT_STR, offsetof(struct rec_cfg, tier), "unlimited", 0, 0, "",
     "the tier to record on ('tiersim tiers' lists them)"},
    {"mem", TS_OPT_SIZE, offsetof(struct rec_cfg, mem), "0", 0, 0, "bytes",
     "emulated page cache of the mount (0: every read goes to the tier)"},
    {"out", TS_OPT_STR, offsetof(struct rec_cfg, out), "record.trace", 0, 0, "",
     "the trace file to write"},
    {"predict", TS_OPT_STR, offsetof(struct rec_cfg, predict), "", 0, 0, "",
     "tiers to predict, comma-separated (T1,T2,...)"},
    {"profile", TS_OPT_STR, offsetof(struct rec_cfg, profile), "", 0, 0, "",
     "a tier profile file with more tiers (as tierfs -o profile=)"},
    {"probe", TS_OPT_STR, offsetof(struct rec_cfg, probe), "", 0, 0, "",
     "run the command a second time on this tier (into OUT.probe) and predict each tier "
     "from both runs: the larger prediction"},
    {"json", TS_OPT_BOOL, offsetof(struct rec_cfg, json), "false", 0, 0, "",
     "the summary and predictions as one JSON object"},
    {"no_wakes", TS_OPT_BOOL, offsetof(struct rec_cfg, no_wakes), "false", 0, 0, "",
     "do not capture who woke whom (the wake file OUT.wakes; needs root and tracefs)"},
    {"no_handoffs", TS_OPT_BOOL, offsetof(struct rec_cfg, no_handoffs), "false", 0, 0, "",
     "a wake file without pipe hand-offs where nobody slept (its H lines): the BPF capture "
     "then runs no program on the host's system calls (their cost: traces/README.md)"},
    {"fs", TS_OPT_STR, offsetof(struct rec_cfg, fs), NULL, 0, 0, "",
     "block mode: DIR copied into an ext4 or xfs image, mounted through a loop device over "
     "tierfs (tiersim disk mount); --mem is then the command's memory cgroup (needs root)"},
    {"repeat", TS_OPT_INT, offsetof(struct rec_cfg, repeat), "1", 1, TS_RECORD_MAX_RUNS, "",
     "run the command this many times on --tier (OUT, OUT.2, ...): with --predict, "
     "the recordings' own spread and each tier's prediction over them (median, lowest - "
     "highest)"},
    {NULL},
};

static const struct ts_cmdline rec_cmdline = {
	.name = "record",
	.synopsis = "--data DIR [options] -- CMD ARGS...",
	.about = "Mounts DIR through tierfs at a temporary mount point (with --fs, a file system\n"
		 "image of DIR through a loop device over tierfs), runs CMD with '{}' in its\n"
		 "arguments (and TIERSIM_MOUNT in its environment) set to that mount point,\n"
		 "records every request into a trace, unmounts, and prints the trace's summary;\n"
		 "with --predict, what the recorded run would take on each tier (with --probe T,\n"
		 "from a second run on tier T too: for runs that were IO-bound).\n",
	.opts = rec_opts,
	.tail = "The exit status is CMD's (128+N when a signal N ended it).\n",
	.max_pos = 0,
};

/* The comma-separated tier list in @s, split in place. */
static int split_tiers(char *s, const char **tiers, size_t *n, char *err, size_t errlen)
{
	*n = 0;
	for (char *save, *t = strtok_r(s, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (*n == MAX_TIERS) {
			snprintf(err, errlen, "--predict: at most %d tiers", MAX_TIERS);
			return -EINVAL;
		}
		tiers[(*n)++] = t;
	}
	return 0;
}

/* The checks before anything is mounted: DIR, the command after "--"
 * (argv[@cmd]), the tiers to predict, and the trace path made absolute
 * into @out. 0, or the exit status with its line said. */
static int prepare(struct rec_cfg *c, char **argv, int argc, int cmd, const char **tiers,
		   size_t *ntiers, char *out)
{
	char err[1024];
	struct stat st;
	if (!c->data || !*c->data) {
		fprintf(stderr,
			"tiersim record: --data DIR is required (the directory to mount)\n");
		return TS_EXIT_USAGE;
	}
	if (cmd < 0 || cmd >= argc) {
		fprintf(stderr, "tiersim record: no command: give it after '--' (tiersim record "
				"--data DIR -- CMD ARGS...)\n");
		return TS_EXIT_USAGE;
	}
	if (stat(c->data, &st) || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "tiersim record: --data %s: %s\n", c->data,
			stat(c->data, &st) ? strerror(errno) : "not a directory");
		return TS_EXIT_USAGE;
	}
	if (c->fs && ts_disk_fs_check(c->fs, err, sizeof(err))) {
		fprintf(stderr, "tiersim record: %s\n", err);
		return TS_EXIT_USAGE;
	}
	if (c->fs && geteuid() != 0) {
		fprintf(stderr, "tiersim record: --fs: block mode needs root (loop devices, "
				"mount(2))\n");
		return TS_EXIT_USAGE;
	}
	int e = ts_record_find_command(argv[cmd]);
	if (e) {
		fprintf(stderr, "tiersim record: %s: command %s\n", argv[cmd],
			e == -ENOENT ? "not found" : strerror(-e));
		return TS_EXIT_USAGE;
	}
	if (split_tiers(c->predict, tiers, ntiers, err, sizeof(err))) {
		fprintf(stderr, "tiersim record: %s\n", err);
		return TS_EXIT_USAGE;
	}
	/* tierfs takes the trace path inside its -o list */
	if (strchr(c->out, ',') || strchr(c->data, ',')) {
		fprintf(stderr,
			"tiersim record: %s: a path with ',' cannot be passed to tierfs -o; "
			"rename it\n",
			strchr(c->out, ',') ? c->out : c->data);
		return TS_EXIT_USAGE;
	}
	/* the trace path absolute, as tierfs changes to / */
	if (c->out[0] == '/')
		snprintf(out, PATH_MAX, "%s", c->out);
	else if (!getcwd(out, PATH_MAX) || strlen(out) + strlen(c->out) + 2 > PATH_MAX ||
		 !strcat(strcat(out, "/"), c->out)) {
		fprintf(stderr, "tiersim record: --out %s: cannot make it absolute\n", c->out);
		return TS_EXIT_FAIL;
	}
	return 0;
}

int ts_cmd_record(int argc, char **argv)
{
	struct rec_cfg c = {0};
	struct ts_record r = {0};
	struct ts_record_runs runs = {0};
	const char *tiers[MAX_TIERS];
	size_t ntiers = 0;
	char err[1024], out[PATH_MAX];
	int rc, e, cmd = -1;
	uint64_t wake_cost = 0;

	/* Our options end at "--"; the command and its own options follow. */
	for (int i = 1; i < argc && cmd < 0; i++)
		if (!strcmp(argv[i], "--"))
			cmd = i + 1;
	struct ts_opt_args a;
	int prc = ts_cmdline_parse(&rec_cmdline, &c, cmd < 0 ? argc : cmd - 1, argv, &a);
	if (prc >= 0)
		return prc; /* --help, or a usage error already said */
	if ((rc = prepare(&c, argv, argc, cmd, tiers, &ntiers, out)))
		goto out;
	rc = TS_EXIT_FAIL;
	/* the predictions' wake-up rule: the default host profile's cost
	 * (TS_HOST_REPLAY_DEFAULT), known before the command runs */
	if (ntiers && ts_host_wake_cost(NULL, &wake_cost, err, sizeof(err))) {
		fprintf(stderr, "tiersim record: %s\n", err);
		goto out;
	}
	runs = (struct ts_record_runs){ .tier = c.tier, .out = out, .probe = c.probe,
					.repeat = c.repeat };
	r = (struct ts_record){ .data = c.data, .profile = c.profile, .fs = c.fs, .mem = c.mem,
				.no_wakes = c.no_wakes, .no_handoffs = c.no_handoffs };
	if (ts_record_begin(&r, err, sizeof(err))) {
		fprintf(stderr, "tiersim record: %s\n", err);
		goto out;
	}
	ts_interrupt_install();
	if ((e = ts_record_runs(&r, &runs, argv + cmd, argc - cmd))) {
		rc = e == -EINTR ? TS_EXIT_INTERRUPT
		   : e == -ECANCELED ? (ts_interrupted ? TS_EXIT_INTERRUPT : runs.code)
				     : TS_EXIT_FAIL;
		goto out;
	}
	json_t *j = NULL;
	struct ts_record_report rr = {
	    .data = c.data,
	    .trace = out,
	    .probe = runs.probe_out,
	    .profile = c.profile,
	    .tiers = tiers,
	    .ntiers = ntiers,
	    .exit_status = runs.code,
	    .repeats = (const char *const *)runs.repeats,
	    .nrepeats = runs.nrepeats,
	    .wake_cost_ns = wake_cost,
	};
	int rerr = ts_record_report(&rr, stdout, c.json ? &j : NULL, err, sizeof(err));
	if (rerr) {
		fprintf(stderr, "tiersim record: %s\n", err);
		goto out;
	}
	if (j) {
		int w = json_dumpf(j, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
		json_decref(j);
		if (w || fputc('\n', stdout) == EOF) {
			fprintf(stderr, "tiersim record: writing JSON failed\n");
			goto out;
		}
	}
	rc = fflush(stdout) ? TS_EXIT_FAIL : runs.code;
out:
	ts_record_runs_free(&runs);
	ts_record_end(&r);
	ts_opt_free(rec_opts, &c);
	return rc;
}
