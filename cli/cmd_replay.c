/*
 * cmd_replay.c — `tiersim replay FILE ...`: what a recorded trace would
 * cost on other tiers (--virtual, through the tier model), or what it costs
 * against a real directory (--target), side by side with the recording.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "commands.h"
#include "core/opt.h"
#include "core/units.h"
#include "replay.h"
#include "traces/trace.h"

#define MAX_TIERS 16

static void usage(FILE *f)
{
	fputs("usage: tiersim replay FILE --virtual --tier NAME [--tier NAME ...] [options]\n"
	      "       tiersim replay FILE --target DIR [--tier NAME ...] [options]\n"
	      "Replays a trace per thread: each thread issues its next op when the previous one\n"
	      "completed plus the work recorded between them; what it spent waiting (off the\n"
	      "CPU, per the trace's CPU samples) ends at the moment recorded, so a slower tier\n"
	      "is absorbed by the waits first. Traces without CPU samples replay closed loop.\n"
	      "  --virtual          predict through the tier model (virtual time; exact)\n"
	      "  --tier NAME        a tier to predict (repeat for a side-by-side table)\n"
	      "  --target DIR       replay in real time against DIR (a tierfs mount or any dir)\n"
	      "  --capacity SIZE    emulated disk size (default: the recording's)\n"
	      "  --mem SIZE         page-cache size (default: the recording's)\n"
	      "  --seed N           latency seed (default: the recording's, else 1)\n"
	      "  --floor DUR        FUSE round trip taken off modeled latency (default: the\n"
	      "                     recording's measured one)\n"
	      "  --profile FILE     more tiers, added to the built-in ones\n"
	      "  --speed X          divide think times by X (default 1)\n"
	      "  --no-think         drop think times (as fast as possible)\n"
	      "  --closed-loop      every gap is think time, waits included (as for fio)\n"
	      "  --allow-writes     let a --target replay write (and create missing files)\n"
	      "  --fill             create missing files with data instead of sparse\n"
	      "  --json             JSON instead of the table\n",
	      f);
}

int ts_cmd_replay(int argc, char **argv)
{
	static const struct option lo[] = {
	    {"virtual", no_argument, NULL, 'v'},
	    {"tier", required_argument, NULL, 't'},
	    {"target", required_argument, NULL, 'T'},
	    {"capacity", required_argument, NULL, 'c'},
	    {"mem", required_argument, NULL, 'm'},
	    {"seed", required_argument, NULL, 's'},
	    {"floor", required_argument, NULL, 'f'},
	    {"profile", required_argument, NULL, 'p'},
	    {"speed", required_argument, NULL, 'S'},
	    {"no-think", no_argument, NULL, 'n'},
	    {"closed-loop", no_argument, NULL, 'L'},
	    {"allow-writes", no_argument, NULL, 'w'},
	    {"fill", no_argument, NULL, 'F'},
	    {"json", no_argument, NULL, 'j'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const char *tiers[MAX_TIERS], *profile = NULL;
	struct {
		const char *name, *val;
	} over[4];
	size_t ntiers = 0, nover = 0;
	bool virt = false, json = false;
	struct ts_replay_cfg cfg = {.speed = 1.0};
	char err[512];
	int c, rc = 1;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'v':
			virt = true;
			break;
		case 't':
			if (ntiers == MAX_TIERS) {
				fprintf(stderr, "tiersim replay: at most %d --tier\n", MAX_TIERS);
				return 2;
			}
			tiers[ntiers++] = optarg;
			break;
		case 'T':
			cfg.target = optarg;
			break;
		case 'c':
		case 'm':
		case 's':
		case 'f':
			over[nover++] = (typeof(over[0])){c == 'c'   ? "capacity"
							  : c == 'm' ? "mem"
							  : c == 's' ? "seed"
								     : "floor",
							  optarg};
			break;
		case 'p':
			profile = optarg;
			break;
		case 'S': {
			char *end;
			cfg.speed = strtod(optarg, &end);
			if (*end || !(cfg.speed > 0)) {
				fprintf(stderr,
					"tiersim replay: --speed %s: expected a number > 0\n",
					optarg);
				return 2;
			}
			break;
		}
		case 'n':
			cfg.no_think = true;
			break;
		case 'L':
			cfg.closed_loop = true;
			break;
		case 'w':
			cfg.allow_writes = true;
			break;
		case 'F':
			cfg.fill = true;
			break;
		case 'j':
			json = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		return 2;
	}
	if (!cfg.target && !virt) {
		fprintf(stderr, "tiersim replay: give --virtual (with --tier) or --target DIR\n");
		return 2;
	}
	if (virt && !ntiers) {
		fprintf(stderr, "tiersim replay: --virtual needs at least one --tier NAME\n");
		return 2;
	}
	const char *file = argv[optind];
	struct ts_trace t;
	if ((rc = ts_trace_read(file, &t, err, sizeof(err)))) {
		fprintf(stderr, "tiersim replay: %s\n", err);
		return 1;
	}
	rc = 1;
	char warn[256];
	if (ts_trace_warning(&t, warn, sizeof(warn)))
		fprintf(stderr, "tiersim replay: %s: warning: %s\n", file, warn);
	if (!t.cpu && !cfg.closed_loop && !cfg.no_think) {
		fprintf(stderr,
			"tiersim replay: %s: notice: no CPU samples (trace format version %u%s): "
			"replaying closed loop, every gap as think time\n",
			file, t.hdr.version,
			t.hdr.version >= 2 ? ", imported or not from tierfs" : "");
		cfg.closed_loop = true;
	}

	struct ts_tier_set *set = NULL;
	struct ts_replay_result *res = calloc(ntiers + 2, sizeof(*res));
	size_t nres = 0;
	if (!res) {
		fprintf(stderr, "tiersim replay: out of memory\n");
		goto out;
	}
	if (ntiers) {
		if (ts_tier_set_load_default(&set, err, sizeof(err)) ||
		    (profile && ts_tier_set_add_file(set, profile, err, sizeof(err)))) {
			fprintf(stderr, "tiersim replay: %s\n", err);
			goto out;
		}
	}
	if (ts_opt_defaults(ts_tier_cfg_opts, &cfg.tier, err, sizeof(err))) {
		fprintf(stderr, "tiersim replay: %s\n", err);
		goto out;
	}
	ts_replay_tier_recorded(&t, &cfg.tier);
	uint64_t rec_floor = cfg.tier.floor_ns;
	cfg.rt_ns = rec_floor;
	for (size_t i = 0; i < nover; i++) {
		if (ts_opt_set(ts_tier_cfg_opts, &cfg.tier, over[i].name, over[i].val, err,
			       sizeof(err))) {
			fprintf(stderr, "tiersim replay: --%s: %s\n", over[i].name, err);
			rc = 2;
			goto out;
		}
	}
	if (ts_replay_recorded(&t, &res[nres++])) {
		fprintf(stderr, "tiersim replay: out of memory\n");
		goto out;
	}
	for (size_t i = 0; i < ntiers; i++) {
		if (ts_tier_set_lookup(set, tiers[i], &cfg.tier.profile, err, sizeof(err)) ||
		    ts_replay_virtual(&t, &cfg, &res[nres], err, sizeof(err))) {
			fprintf(stderr, "tiersim replay: %s: %s\n", tiers[i], err);
			goto out;
		}
		snprintf(res[nres].what, sizeof(res[nres].what), "%s%s", tiers[i],
			 cfg.target ? " (virtual)" : "");
		nres++;
	}
	if (cfg.target) {
		/* the recorded think gaps include the recording mount's FUSE round
		 * trip, which the replay's own syscalls pay again */
		cfg.think_less_ns = rec_floor;
		cfg.progress = stderr;
		if (ts_replay_real(&t, &cfg, &res[nres], err, sizeof(err))) {
			fprintf(stderr, "tiersim replay: %s\n", err);
			goto out;
		}
		snprintf(res[nres].what, sizeof(res[nres].what), "measured");
		nres++;
	}
	if (json) {
		json_t *o = json_pack("{ss ss sI sb so}", "trace", file, "recorded_tier",
				      t.hdr.tier, "dropped", (json_int_t)t.dropped, "truncated",
				      t.truncated, "results", ts_replay_json(res, nres));
		if (!o || json_dumpf(o, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(10))) {
			json_decref(o);
			fprintf(stderr, "tiersim replay: writing JSON failed\n");
			goto out;
		}
		fputc('\n', stdout);
		json_decref(o);
	} else {
		char b1[32], b2[32];
		printf("trace %s: %zu ops, recorded on %s (capacity %s, mem %s)", file, t.nrecs,
		       t.hdr.tier[0] ? t.hdr.tier : "a plain directory",
		       t.hdr.capacity ? ts_fmt_size(b1, sizeof(b1), t.hdr.capacity) : "-",
		       t.hdr.mem ? ts_fmt_size(b2, sizeof(b2), t.hdr.mem) : "none");
		if (nover) /* --capacity/--mem: say what the tiers ran with instead */
			printf("; replayed with capacity %s, mem %s",
			       ts_fmt_size(b1, sizeof(b1), cfg.tier.capacity),
			       cfg.tier.mem ? ts_fmt_size(b2, sizeof(b2), cfg.tier.mem) : "none");
		putchar('\n');
		printf("%s; %s%s; virtual columns: modeled (tier profiles), "
		       "measured: real time\n\n",
		       cfg.closed_loop ? "closed loop per thread"
				       : "per thread, work kept and waiting elastic",
		       cfg.no_think ? "no think time" : "recorded think time",
		       cfg.speed != 1.0 ? " scaled by --speed" : "");
		ts_replay_print(stdout, res, nres);
		if (rec_floor || cfg.tier.floor_ns) {
			char fb[32], ob[32];
			/* Recorded and virtual latencies are what tierfs held each
			 * request; the application also paid the FUSE round trip. */
			printf("\nlatencies of the recorded and virtual columns are the time tierfs "
			       "holds a request; the application also pays the FUSE round trip "
			       "(%s, the recording's floor%s%s), so a tier faster than that shows "
			       "near 0\n",
			       ts_fmt_duration(fb, sizeof(fb), rec_floor),
			       cfg.tier.floor_ns != rec_floor ? "; virtual columns: --floor " : "",
			       cfg.tier.floor_ns != rec_floor
				   ? ts_fmt_duration(ob, sizeof(ob), cfg.tier.floor_ns)
				   : "");
		}
	}
	rc = fflush(stdout) ? 1 : 0;
out:
	free(res);
	ts_tier_set_free(set);
	ts_opt_free(ts_tier_cfg_opts, &cfg.tier);
	ts_trace_free(&t);
	return rc;
}
