/* cmd_engines.c — `tiersim engines`: the sim backend's profiles (GPUs,
 * frameworks, networks) and the published figures they are anchored on. */
#include <stdio.h>

#include "cli/cmdline.h"
#include "cli/commands.h"
#include "core/opt.h"
#include "engine/profile.h"

struct engines_args {
	char *profile;
	bool evidence;
};

static const struct ts_opt engines_opts[] = {
	{ "profile", TS_OPT_STR, offsetof(struct engines_args, profile), NULL, 0, 0, "",
	  "add the declarations of a Lua profile file (engine{ profile = FILE })", "FILE", 'p' },
	{ "evidence", TS_OPT_BOOL, offsetof(struct engines_args, evidence), "false", 0, 0, "",
	  "list every published figure with its label instead: measured (naming the "
	  "publication), spec or assumed (with its range)", NULL, 'e' },
	{ NULL },
};

static const struct ts_cmdline engines_cmdline = {
	.name = "engines",
	.synopsis = "[--profile FILE] [--evidence]",
	.about = "Lists the sim engine backend's GPUs, frameworks and networks (engine/profiles)\n"
		 "with the published throughputs that anchor their step times.\n",
	.opts = engines_opts,
	.max_pos = 0,
};

int ts_cmd_engines(int argc, char **argv)
{
	struct engines_args o = { 0 };
	struct ts_opt_args a;
	int rc = ts_cmdline_parse(&engines_cmdline, &o, argc, argv, &a);
	if (rc >= 0)
		return rc;
	struct ts_profiles *p;
	char err[1024];
	if ((rc = ts_profiles_load(o.profile, &p, err, sizeof(err)))) {
		fprintf(stderr, "tiersim engines: %s\n", err);
	} else {
		if ((rc = ts_profiles_print(stdout, p, o.evidence)))
			fprintf(stderr, "tiersim engines: %s\n", ts_strerror(rc));
		ts_profiles_free(p);
	}
	ts_opt_free(engines_opts, &o);
	return rc ? TS_EXIT_FAIL : TS_EXIT_OK;
}
