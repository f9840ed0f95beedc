/* cmd_tiers.c — `tiersim tiers`: the tier profiles and their limits. */
#include <stdio.h>
#include <string.h>

#include "cli/cmdline.h"
#include "cli/commands.h"
#include "core/opt.h"
#include "tier/tier.h"
#include "core/units.h"
#include "validation/corpus.h"

struct tiers_args {
	uint64_t capacity;
	char *profile;
	bool evidence;
};

static const struct ts_opt tiers_opts[] = {
	{ "capacity", TS_OPT_SIZE, offsetof(struct tiers_args, capacity), NULL, 0, 0, "bytes",
	  "evaluate each tier's formulas at this disk size (default: each tier's default "
	  "size)", NULL, 'c' },
	{ "profile", TS_OPT_STR, offsetof(struct tiers_args, profile), NULL, 0, 0, "",
	  "add the tiers of a Lua profile file", "FILE", 'p' },
	{ "evidence", TS_OPT_BOOL, offsetof(struct tiers_args, evidence), "false", 0, 0, "",
	  "list each field's label instead: measured (naming the measurement), spec (vendor "
	  "table) or assumed", NULL, 'e' },
	{ NULL },
};

static const struct ts_cmdline tiers_cmdline = {
	.name = "tiers",
	.synopsis = "[--capacity SIZE] [--profile FILE] [--evidence]",
	.about = "Lists every tier profile with its effective IOPS and bandwidth caps,\n"
		 "latency, burst behaviour and the public source of its numbers, then\n"
		 "the independent measurements of the real product that check each tier\n"
		 "(validation/cases); a tier none checks is labelled unvalidated.\n",
	.opts = tiers_opts,
	.max_pos = 0,
};

/* Each tier's independent checks in the corpus, or "unvalidated". */
static void print_checks(const struct ts_tier_set *set)
{
	struct ts_corpus k;
	char err[1024];
	if (ts_corpus_load(NULL, &k, err, sizeof(err))) {
		printf("\nvalidation: not known (%s)\n", err);
		return;
	}
	printf("\nvalidation: independent measurements of the real product that check each tier "
	       "(validation/cases; tiersim validate runs them)\n");
	for (size_t t = 0; t < ts_tier_set_count(set); t++) {
		const char *name = ts_tier_set_at(set, t)->name, *ids[4];
		size_t n = ts_corpus_checks(&k, name, ids, TS_ARRAY_SIZE(ids));
		printf("%-17s ", name);
		if (!n)
			printf("unvalidated");
		for (size_t i = 0; i < n && i < TS_ARRAY_SIZE(ids); i++)
			printf("%s%s", i ? ", " : "", ids[i]);
		if (n > TS_ARRAY_SIZE(ids))
			printf(" and %zu more", n - TS_ARRAY_SIZE(ids));
		printf("\n");
	}
	ts_corpus_free(&k);
}

int ts_cmd_tiers(int argc, char **argv)
{
	struct tiers_args o = { 0 };
	struct ts_opt_args a;
	int rc = ts_cmdline_parse(&tiers_cmdline, &o, argc, argv, &a);
	if (rc >= 0)
		return rc;
	const char *profile = o.profile;
	uint64_t cap = o.capacity;
	struct ts_tier_set *set;
	char err[1024];
	if (ts_tier_set_load_default(&set, err, sizeof(err))) {
		fprintf(stderr, "tiersim tiers: %s\n", err);
		ts_opt_free(tiers_opts, &o);
		return TS_EXIT_FAIL;
	}
	if (profile && ts_tier_set_add_file(set, profile, err, sizeof(err))) {
		fprintf(stderr, "tiersim tiers: %s\n", err);
		ts_tier_set_free(set);
		ts_opt_free(tiers_opts, &o);
		return TS_EXIT_FAIL;
	}
	rc = o.evidence ? ts_tier_print_evidence(stdout, set) : ts_tier_print_table(stdout, set, cap);
	if (!rc)
		print_checks(set);
	ts_tier_set_free(set);
	ts_opt_free(tiers_opts, &o);
	if (rc) {
		fprintf(stderr, "tiersim tiers: %s\n", ts_strerror(rc));
		return TS_EXIT_FAIL;
	}
	return TS_EXIT_OK;
}
