/*
 * dataset_main.c — runs `tiersim dataset` alone (the command's code from
 * cli/cmd_dataset.c), so the dataset tests do not depend on the rest of
 * the program being built.
 */
int ts_cmd_dataset(int argc, char **argv);

int main(int argc, char **argv)
{
	return ts_cmd_dataset(argc - 1, argv + 1);
}
