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

/*
 * Why one long function: one sequence of checks and runs (arguments, the
 * mount, the run, the probe run, the --repeat runs, the report), each
 * failure leaving through the one cleanup (out:) that takes the mount down.
 */
int ts_cmd_record(int argc, char **argv)
{
	struct rec_cfg c = {0};
	struct ts_record r = {0};
	const char *tiers[MAX_TIERS];
	size_t ntiers = 0;
	char err[1024], out[PATH_MAX], probe_out[PATH_MAX + 8];
	int rc = TS_EXIT_USAGE, cmd = -1;

	/* Our options end at "--"; the command and its own options follow. */
	for (int i = 1; i < argc && cmd < 0; i++)
		if (!strcmp(argv[i], "--"))
			cmd = i + 1;
	struct ts_opt_args a;
	int prc = ts_cmdline_parse(&rec_cmdline, &c, cmd < 0 ? argc : cmd - 1, argv, &a);
	if (prc >= 0)
		return prc; /* --help, or a usage error already said */
	struct stat st;
	if (!c.data || !*c.data) {
		fprintf(stderr,
			"tiersim record: --data DIR is required (the directory to mount)\n");
		goto out;
	}
	if (cmd < 0 || cmd >= argc) {
		fprintf(stderr, "tiersim record: no command: give it after '--' (tiersim record "
				"--data DIR -- CMD ARGS...)\n");
		goto out;
	}
	if (stat(c.data, &st) || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "tiersim record: --data %s: %s\n", c.data,
			stat(c.data, &st) ? strerror(errno) : "not a directory");
		goto out;
	}
	if (c.fs && ts_disk_fs_check(c.fs, err, sizeof(err))) {
		fprintf(stderr, "tiersim record: %s\n", err);
		goto out;
	}
	if (c.fs && geteuid() != 0) {
		fprintf(stderr, "tiersim record: --fs: block mode needs root (loop devices, "
				"mount(2))\n");
		goto out;
	}
	int e = ts_record_find_command(argv[cmd]);
	if (e) {
		fprintf(stderr, "tiersim record: %s: command %s\n", argv[cmd],
			e == -ENOENT ? "not found" : strerror(-e));
		goto out;
	}
	if (split_tiers(c.predict, tiers, &ntiers, err, sizeof(err))) {
		fprintf(stderr, "tiersim record: %s\n", err);
		goto out;
	}
	/* tierfs takes the trace path inside its -o list */
	if (strchr(c.out, ',') || strchr(c.data, ',')) {
		fprintf(stderr,
			"tiersim record: %s: a path with ',' cannot be passed to tierfs -o; "
			"rename it\n",
			strchr(c.out, ',') ? c.out : c.data);
		goto out;
	}
	rc = TS_EXIT_FAIL;
	/* the trace path absolute, as tierfs changes to / */
	if (c.out[0] == '/')
		snprintf(out, sizeof(out), "%s", c.out);
	else if (!getcwd(out, sizeof(out)) || strlen(out) + strlen(c.out) + 2 > sizeof(out) ||
		 !strcat(strcat(out, "/"), c.out)) {
		fprintf(stderr, "tiersim record: --out %s: cannot make it absolute\n", c.out);
		goto out;
	}
	if (*c.probe &&
	    (size_t)snprintf(probe_out, sizeof(probe_out), "%s.probe", out) >= sizeof(probe_out)) {
		fprintf(stderr, "tiersim record: --out %s: too long\n", out);
		goto out;
	}
	r.data = c.data;
	r.profile = c.profile;
	r.fs = c.fs;
	r.mem = c.mem;
	r.no_wakes = c.no_wakes;
	if (ts_record_begin(&r, err, sizeof(err))) {
		fprintf(stderr, "tiersim record: %s\n", err);
		goto out;
	}
	ts_interrupt_install();
	int status = 0, pstatus = 0;
	if ((e = ts_record_run(&r, c.tier, out, argv + cmd, argc - cmd, &status))) {
		rc = e == -EINTR ? TS_EXIT_INTERRUPT : TS_EXIT_FAIL;
		goto out;
	}
	int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	if (*c.probe) {
		/* the probe is the same run again: only after a clean first one */
		if (code || ts_interrupted) {
			fprintf(stderr, "tiersim record: no probe run: the command %s\n",
				ts_interrupted ? "was interrupted" : "failed");
			rc = ts_interrupted ? TS_EXIT_INTERRUPT : code;
			goto out;
		}
		if ((e = ts_record_run(&r, c.probe, probe_out, argv + cmd, argc - cmd, &pstatus))) {
			rc = e == -EINTR ? TS_EXIT_INTERRUPT : TS_EXIT_FAIL;
			goto out;
		}
		if (pstatus) {
			fprintf(stderr, "tiersim record: the probe run on %s failed (%s %d)\n",
				c.probe, WIFEXITED(pstatus) ? "exit status" : "signal",
				WIFEXITED(pstatus) ? WEXITSTATUS(pstatus) : WTERMSIG(pstatus));
			rc = TS_EXIT_FAIL;
			goto out;
		}
	}
	/* --repeat: the same run again, each into its own trace, while the
	 * runs before it were clean */
	char (*more)[PATH_MAX + 8] = NULL;
	const char *more_p[TS_RECORD_MAX_RUNS];
	size_t nmore = 0;
	if (c.repeat > 1 && !(more = calloc((size_t)c.repeat, sizeof(*more)))) {
		fprintf(stderr, "tiersim record: out of memory\n");
		goto out;
	}
	for (int64_t run = 2; run <= c.repeat; run++) {
		if (code || ts_interrupted) {
			fprintf(stderr, "tiersim record: no run %lld of --repeat: the command %s\n",
				(long long)run, ts_interrupted ? "was interrupted" : "failed");
			rc = ts_interrupted ? TS_EXIT_INTERRUPT : code;
			free(more);
			goto out;
		}
		if ((size_t)snprintf(more[nmore], sizeof(more[nmore]), "%s.%lld", out,
				     (long long)run) >= sizeof(more[nmore])) {
			fprintf(stderr, "tiersim record: --out %s: too long\n", out);
			free(more);
			goto out;
		}
		if ((e = ts_record_run(&r, c.tier, more[nmore], argv + cmd, argc - cmd, &status))) {
			rc = e == -EINTR ? TS_EXIT_INTERRUPT : TS_EXIT_FAIL;
			free(more);
			goto out;
		}
		code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
		more_p[nmore] = more[nmore];
		nmore++;
	}
	json_t *j = NULL;
	struct ts_record_report rr = {
	    .data = c.data,
	    .trace = out,
	    .probe = *c.probe ? probe_out : NULL,
	    .profile = c.profile,
	    .tiers = tiers,
	    .ntiers = ntiers,
	    .exit_status = code,
	    .repeats = more_p,
	    .nrepeats = nmore,
	};
	int rerr = ts_record_report(&rr, stdout, c.json ? &j : NULL, err, sizeof(err));
	free(more);
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
	rc = fflush(stdout) ? TS_EXIT_FAIL : code;
out:
	ts_record_end(&r);
	ts_opt_free(rec_opts, &c);
	return rc;
}
