/*
 * commands.h — the subcommands of the tiersim program. Each one is
 * `int fn(int argc, char **argv)` with argv[0] = the subcommand name; it
 * returns the process exit status (TS_EXIT_*). Each part keeps its
 * subcommand in cli/cmd_<name>.c and adds one line to the table in main.c.
 */
#ifndef TS_COMMANDS_H
#define TS_COMMANDS_H

/* Exit statuses of every subcommand (documented in tiersim(1)). */
enum {
	TS_EXIT_OK = 0,		/* done */
	TS_EXIT_FAIL = 1,	/* a runtime failure: a script error, a failed mount... */
	TS_EXIT_USAGE = 2,	/* bad command line: unknown option, tier or key */
	TS_EXIT_INTERRUPT = 130, /* stopped by SIGINT/SIGTERM after cleaning up */
};

int ts_cmd_run(int argc, char **argv);
int ts_cmd_compare(int argc, char **argv);
int ts_cmd_advise(int argc, char **argv);
int ts_cmd_tiers(int argc, char **argv);
int ts_cmd_hosts(int argc, char **argv); /* cli/cmd_hosts.c */
int ts_cmd_engines(int argc, char **argv); /* cli/cmd_engines.c */
int ts_cmd_prices(int argc, char **argv); /* cli/cmd_prices.c */
int ts_cmd_validate(int argc, char **argv); /* cli/cmd_validate.c */
int ts_cmd_calibrate(int argc, char **argv);
int ts_cmd_dataset(int argc, char **argv);
int ts_cmd_dlio(int argc, char **argv); /* cli/cmd_dlio.c */
int ts_cmd_disk(int argc, char **argv); /* cli/cmd_disk.c: block mode */

/* Other parts' subcommands. */
int ts_cmd_trace(int argc, char **argv);  /* cli/cmd_trace.c */
int ts_cmd_replay(int argc, char **argv); /* cli/cmd_replay.c */
int ts_cmd_record(int argc, char **argv); /* cli/cmd_record.c */

/* `tiersim calibrate decode|engine ...`, each written by the part it
 * calibrates (cli/calibrate_decode.c, cli/calibrate_engine.c). */
int ts_calibrate_decode(int argc, char **argv);
int ts_calibrate_engine(int argc, char **argv);

#endif
