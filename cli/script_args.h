/*
 * script_args.h — the command line that run, compare and advise share: the
 * words SCRIPT.lua [name=value | section.key=value ...], the options every
 * one of them has (--json, --csv, --plot, --workdir, --quiet), the check of
 * --plot's file type before anything runs, and writing the outputs.
 */
#ifndef TS_SCRIPT_ARGS_H
#define TS_SCRIPT_ARGS_H

#include <stddef.h>
#include <stdio.h>

#include "cli/cmdline.h"
#include "scenario/report.h"
#include "scenario/runner.h"

/* The options of a scenario command that are not its own. */
struct ts_script_out {
	char *json, *csv, *plot, *workdir, *instance;
	bool quiet;
};

/* Their table entries for a struct holding a struct ts_script_out @member;
 * @plot_help says what the command's plot shows. */
#define TS_SCRIPT_OUT_OPTS(type, member, plot_help)                                          \
	{ "json", TS_OPT_STR, offsetof(type, member.json), NULL, 0, 0, "",                   \
	  "write every number with its unit as JSON", "FILE|-" },                            \
	{ "csv", TS_OPT_STR, offsetof(type, member.csv), NULL, 0, 0, "",                     \
	  "write the rows as CSV (units in the header)", "FILE|-" },                         \
	{ "plot", TS_OPT_STR, offsetof(type, member.plot), NULL, 0, 0, "", plot_help,        \
	  "FILE" },                                                                          \
	{ "workdir", TS_OPT_STR, offsetof(type, member.workdir), NULL, 0, 0, "",             \
	  "datasets, mounts and scratch space (default $TIERSIM_WORKDIR, else "              \
	  "~/.cache/tiersim)", "DIR" },                                                      \
	{ "quiet", TS_OPT_BOOL, offsetof(type, member.quiet), "false", 0, 0, "",             \
	  "no progress or per-configuration lines", NULL, 'q' },                             \
	{ "instance", TS_OPT_STR, offsetof(type, member.instance), NULL, 0, 0, "",           \
	  "run as this instance (tiersim prices): its vCPUs, memory, GPUs and host, and "    \
	  "each row's cost in dollars (instance.name=NAME)", "NAME" }

/* Reads the positional words into o->script and o->kv (at most @max_kv
 * name=value words) and checks --plot. Returns -1 to go on, or
 * TS_EXIT_USAGE after one line; @example is the command line the message
 * for a missing script suggests. */
TS_WUR int ts_script_args(const struct ts_cmdline *c, const struct ts_opt_args *a,
			  const struct ts_script_out *out, size_t max_kv, const char *example,
			  struct ts_runner_opts *o);
/* Where the table goes: stdout, unless --json - or --csv - write there. */
FILE *ts_script_table_stream(const struct ts_script_out *out);
/* Writes --json and --csv of @r; a failure is one line and makes a @status
 * of 0 TS_EXIT_FAIL. Returns the status. */
int ts_script_write(const struct ts_cmdline *c, const struct ts_report *r,
		    const struct ts_script_out *out, int status);

/* A scenario library's failure @rc (ts_runner_script, ts_advise_run) as
 * the exit status of the command @cmd ("run", "advise"...), after its one
 * "tiersim CMD: ..." line (none for TS_E_LUA: printed already). */
int ts_script_fail(const char *cmd, int rc, bool usage, const char *err);

#endif
