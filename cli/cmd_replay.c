/*
 * cmd_replay.c — `tiersim replay FILE ...`: what a recorded trace would
 * cost on other tiers (--virtual, through the tier model), or what it costs
 * against a real directory (--target), side by side with the recording.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


#include "cli/cmdline.h"
#include "cli/commands.h"
#include "core/opt.h"
#include "traces/replay/replay.h"
#include "traces/trace.h"

#define MAX_TIERS 16

/* --capacity, --mem, --seed and --floor stay text: they override the
 * recording's values through the tier model's own table (ts_tier_cfg_opts),
 * which parses and bounds them. */
struct replay_args {
	bool virtual_time, no_think, closed_loop, allow_writes, fill, json, no_wakes, cpu_model;
	struct ts_opt_list tiers;
	char *target, *profile, *wakes;
	char *over[TS_REPLAY_OVER_N]; /* as ts_replay_over_names[] */
	double speed;
};

#define RA(f) offsetof(struct replay_args, f)
static const struct ts_opt replay_opts[] = {
	{ "virtual", TS_OPT_BOOL, RA(virtual_time), "false", 0, 0, "",
	  "predict through the tier model (virtual time; exact)" },
	{ "tier", TS_OPT_LIST, RA(tiers), NULL, 0, MAX_TIERS, "",
	  "a tier to predict (repeat for a side-by-side table)", "NAME" },
	{ "target", TS_OPT_STR, RA(target), NULL, 0, 0, "",
	  "replay in real time against DIR (a tierfs mount or any dir)", "DIR" },
	{ "capacity", TS_OPT_STR, RA(over[0]), NULL, 0, 0, "",
	  "emulated disk size (default: the recording's)", "SIZE" },
	{ "mem", TS_OPT_STR, RA(over[1]), NULL, 0, 0, "",
	  "page-cache size (default: the recording's)", "SIZE" },
	{ "seed", TS_OPT_STR, RA(over[2]), NULL, 0, 0, "",
	  "latency seed (default: the recording's, else 1)", "N" },
	{ "floor", TS_OPT_STR, RA(over[3]), NULL, 0, 0, "",
	  "FUSE round trip taken off modeled latency (default: the recording's measured one)",
	  "DUR" },
	{ "profile", TS_OPT_STR, RA(profile), NULL, 0, 0, "",
	  "more tiers, added to the built-in ones", "FILE" },
	{ "speed", TS_OPT_DOUBLE, RA(speed), "1", 0, 0, "", "divide think times by X (> 0)" },
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
	{ "allow_writes", TS_OPT_BOOL, RA(allow_writes), "false", 0, 0, "",
	  "let a --target replay write (and create missing files)" },
	{ "fill", TS_OPT_BOOL, RA(fill), "false", 0, 0, "",
	  "create missing files with data instead of sparse" },
	{ "json", TS_OPT_BOOL, RA(json), "false", 0, 0, "", "JSON instead of the table" },
	{ NULL },
};

static const struct ts_cmdline replay_cmdline = {
	.name = "replay",
	.synopsis = "FILE --virtual --tier NAME [--tier NAME ...] [options]\n"
		    "       tiersim replay FILE --target DIR [--tier NAME ...] [options]",
	.about = "Replays a trace per thread: each thread issues its next op when the previous one\n"
		 "completed plus the work recorded between them; what it spent waiting (off the\n"
		 "CPU, per the trace's CPU samples) ends at the moment recorded, so a slower tier\n"
		 "is absorbed by the waits first. Traces without CPU samples replay closed loop.\n"
		 "With a wake file (FILE.wakes, written by tiersim record) a thread's wait on another\n"
		 "thread of the application ends when that thread, in its own replay, gets to\n"
		 "where it woke it (the wake rule; virtual time).\n",
	.opts = replay_opts,
	.max_pos = 1,
};

/* The command line into @o and @cfg; -1 to go on, else the exit status. */
static int replay_args(struct replay_args *o, struct ts_replay_cfg *cfg, int argc, char **argv,
		       const char **file)
{
	const struct ts_cmdline *cl = &replay_cmdline;
	struct ts_opt_args a;
	int rc = ts_cmdline_parse(cl, o, argc, argv, &a);
	if (rc >= 0)
		return rc;
	if (a.npos != 1)
		return ts_cmdline_error(cl, "needs a trace FILE (tiersim replay --help)");
	if (!(o->speed > 0))
		return ts_cmdline_error(cl, "--speed %g: expected a number > 0", o->speed);
	if (!o->target && !o->virtual_time)
		return ts_cmdline_error(cl, "give --virtual (with --tier) or --target DIR");
	if (o->virtual_time && !o->tiers.n)
		return ts_cmdline_error(cl, "--virtual needs at least one --tier NAME");
	if (o->wakes && (o->no_wakes || o->closed_loop || !o->virtual_time))
		return ts_cmdline_error(cl, "--wakes %s: the wake rule is virtual time's, and not "
					    "with --no-wakes or --closed-loop",
					o->wakes);
	*file = a.pos[0];
	cfg->speed = o->speed;
	cfg->target = o->target;
	cfg->no_think = o->no_think;
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
		 * trip, which the replay's own syscalls pay again */
		cfg->think_less_ns = rs->rec_floor;
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

int ts_cmd_replay(int argc, char **argv)
{
	struct replay_args o = { 0 };
	struct ts_replay_cfg cfg = { .speed = 1.0 };
	const char *file = NULL;
	char err[512];
	int rc = replay_args(&o, &cfg, argc, argv, &file);
	if (rc >= 0) {
		ts_opt_free(replay_opts, &o);
		return rc;
	}
	struct ts_replay_from from = {
		.trace = file, .wakes = o.wakes, .profile = o.profile, .tiers = o.tiers.n > 0,
		.no_wakes = o.no_wakes || o.closed_loop || !o.virtual_time || o.target,
	};
	memcpy(from.over, o.over, sizeof(from.over));
	struct ts_replay_set rs;
	struct ts_replay_result *res = NULL;
	size_t nres = 0;
	rc = ts_replay_open(&rs, &from, &cfg, err, sizeof(err));
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
	if (!(res = calloc(o.tiers.n + 2, sizeof(*res)))) {
		fprintf(stderr, "tiersim replay: out of memory\n");
		goto out;
	}
	if (replay_all(&o, &rs, res, &nres))
		goto out;
	if (o.json ? ts_replay_print_json(stdout, file, &rs.t, res, nres)
		   : (ts_replay_print_run(stdout, file, &rs, overridden(&o), res, nres), 0)) {
		fprintf(stderr, "tiersim replay: writing JSON failed\n");
		goto out;
	}
	rc = fflush(stdout) ? 1 : 0;
out:
	free(res);
	ts_replay_close(&rs);
	ts_opt_free(replay_opts, &o);
	return rc;
}
