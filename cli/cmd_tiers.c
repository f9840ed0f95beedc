/* cmd_tiers.c — `tiersim tiers`: the tier profiles and their limits. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "opt.h"
#include "tier/tier.h"
#include "units.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: tiersim tiers [--capacity SIZE] [--profile FILE] [--evidence]\n\n"
		   "Lists every tier profile with its effective IOPS and bandwidth caps,\n"
		   "latency, burst behaviour and the public source of its numbers.\n\n"
		   "  --capacity SIZE   evaluate each tier's formulas at this disk size\n"
		   "                    (default: each tier's default size)\n"
		   "  --profile FILE    add the tiers of a Lua profile file\n"
		   "  --evidence        list each field's label instead: measured (naming\n"
		   "                    the measurement), spec (vendor table) or assumed\n");
}

int ts_cmd_tiers(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "capacity", required_argument, NULL, 'c' },
		{ "profile", required_argument, NULL, 'p' },
		{ "evidence", no_argument, NULL, 'e' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t cap = 0;
	const char *profile = NULL;
	bool evidence = false;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "c:p:eh", lo, NULL)) != -1) {
		switch (c) {
		case 'c':
			if (ts_parse_size(optarg, &cap)) {
				fprintf(stderr, "tiersim tiers: --capacity %s: expected a size such as "
						"500GiB\n", optarg);
				return TS_EXIT_USAGE;
			}
			break;
		case 'p':
			profile = optarg;
			break;
		case 'e':
			evidence = true;
			break;
		case 'h':
			usage(stdout);
			return TS_EXIT_OK;
		default:
			usage(stderr);
			return TS_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "tiersim tiers: unexpected argument '%s'\n", argv[optind]);
		return TS_EXIT_USAGE;
	}
	struct ts_tier_set *set;
	char err[1024];
	if (ts_tier_set_load_default(&set, err, sizeof(err))) {
		fprintf(stderr, "tiersim tiers: %s\n", err);
		return TS_EXIT_FAIL;
	}
	if (profile && ts_tier_set_add_file(set, profile, err, sizeof(err))) {
		fprintf(stderr, "tiersim tiers: %s\n", err);
		ts_tier_set_free(set);
		return TS_EXIT_FAIL;
	}
	int rc = evidence ? ts_tier_print_evidence(stdout, set) : ts_tier_print_table(stdout, set, cap);
	ts_tier_set_free(set);
	if (rc) {
		fprintf(stderr, "tiersim tiers: %s\n", ts_strerror(rc));
		return TS_EXIT_FAIL;
	}
	return TS_EXIT_OK;
}
