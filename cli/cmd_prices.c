/* cmd_prices.c — `tiersim prices`: the price profiles (instances and volumes). */
#include <stdio.h>

#include "cli/cmdline.h"
#include "cli/commands.h"
#include "cost/price.h"
#include "core/opt.h"

struct prices_args {
	char *profile;
	bool evidence;
};

static const struct ts_opt prices_opts[] = {
	{ "profile", TS_OPT_STR, offsetof(struct prices_args, profile), NULL, 0, 0, "",
	  "add the instances and volumes of a Lua price file", "FILE", 'p' },
	{ "evidence", TS_OPT_BOOL, offsetof(struct prices_args, evidence), "false", 0, 0, "",
	  "list every price with its label (spec: a published list; assumed: with its range), "
	  "the date it held and its source", NULL, 'e' },
	{ NULL },
};

static const struct ts_cmdline prices_cmdline = {
	.name = "prices",
	.synopsis = "[--profile FILE] [--evidence]",
	.about = "Lists the price profiles: each instance's hourly price, vCPUs, memory, GPUs,\n"
		 "local disks and host profile, and each volume's price per GiB-month and per\n"
		 "provisioned IOPS and MiB/s, with the tier profiles it prices.\n",
	.opts = prices_opts,
	.max_pos = 0,
};

int ts_cmd_prices(int argc, char **argv)
{
	struct prices_args o = { 0 };
	struct ts_opt_args a;
	int rc = ts_cmdline_parse(&prices_cmdline, &o, argc, argv, &a);
	if (rc >= 0)
		return rc;
	struct ts_price_set *set = NULL;
	char err[1024];
	rc = ts_price_load_checked(o.profile, NULL, &set, err, sizeof(err));
	if (!rc)
		rc = o.evidence ? ts_price_print_evidence(stdout, set)
				: ts_price_print_table(stdout, set);
	ts_price_set_free(set);
	ts_opt_free(prices_opts, &o);
	if (rc) {
		fprintf(stderr, "tiersim prices: %s\n", rc == -EIO ? ts_strerror(rc) : err);
		return TS_EXIT_FAIL;
	}
	return TS_EXIT_OK;
}
