/*
 * cli_main.c — runs the trace and replay subcommands without the full tiersim program,
 * so their tests need only the traces part: `trace_cli trace dump FILE`
 * behaves as `tiersim trace dump FILE`.
 */
#include <stdio.h>
#include <string.h>

int cmd_trace(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int main(int argc, char **argv);

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "trace"))
		return cmd_trace(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "replay"))
		return cmd_replay(argc - 1, argv + 1);
	fprintf(stderr, "usage: trace_cli trace|replay ...\n");
	return 2;
}
