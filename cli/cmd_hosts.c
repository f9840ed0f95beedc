/* cmd_hosts.c — `tiersim hosts`: the host profiles (CPU and JPEG library costs). */
#include <stdio.h>

#include "cli/cmdline.h"
#include "cli/commands.h"
#include "core/opt.h"
#include "pipeline/host.h"

struct hosts_args {
	char *profile;
	bool evidence;
};

static const struct ts_opt hosts_opts[] = {
	{ "profile", TS_OPT_STR, offsetof(struct hosts_args, profile), NULL, 0, 0, "",
	  "add the hosts and libraries of a Lua profile file", "FILE", 'p' },
	{ "evidence", TS_OPT_BOOL, offsetof(struct hosts_args, evidence), "false", 0, 0, "",
	  "list every number with its label instead: measured (naming the measurement), spec "
	  "(a published table) or assumed (with its range)", NULL, 'e' },
	{ NULL },
};

static const struct ts_cmdline hosts_cmdline = {
	.name = "hosts",
	.synopsis = "[--profile FILE] [--evidence]",
	.about = "Lists the host profiles: what JPEG decode + transform, a raw Datum's transform\n"
		 "and an LMDB put cost one core of each CPU, and the JPEG libraries' factors.\n"
		 "pipeline{ host = \"NAME\" } or \"NAME/LIBRARY\" (and preprocess{ host = }) charge\n"
		 "them; the default, this-machine, charges 'tiersim calibrate decode'.\n",
	.opts = hosts_opts,
	.max_pos = 0,
};

int ts_cmd_hosts(int argc, char **argv)
{
	struct hosts_args o = { 0 };
	struct ts_opt_args a;
	int rc = ts_cmdline_parse(&hosts_cmdline, &o, argc, argv, &a);
	if (rc >= 0)
		return rc;
	struct ts_host_set *set;
	char err[1024];
	rc = ts_host_set_load_default(&set, err, sizeof(err));
	if (!rc && o.profile && (rc = ts_host_set_add_file(set, o.profile, err, sizeof(err))))
		ts_host_set_free(set);
	if (rc) {
		fprintf(stderr, "tiersim hosts: %s\n", err);
		ts_opt_free(hosts_opts, &o);
		return TS_EXIT_FAIL;
	}
	rc = o.evidence ? ts_host_print_evidence(stdout, set) : ts_host_print_table(stdout, set);
	ts_host_set_free(set);
	ts_opt_free(hosts_opts, &o);
	if (rc) {
		fprintf(stderr, "tiersim hosts: %s\n", ts_strerror(rc));
		return TS_EXIT_FAIL;
	}
	return TS_EXIT_OK;
}
