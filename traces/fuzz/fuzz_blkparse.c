/* fuzz_blkparse.c — libFuzzer target for the blkparse text importer. */
#include <stdint.h>
#include <stdio.h>

#include "traces/blkparse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ts_trace t;
	char err[512];

	if (!size)
		return 0;
	FILE *in = fmemopen((void *)data, size, "r");
	if (!in)
		return 0;
	if (!ts_blkparse_import(in, "fuzz", &t, err, sizeof(err)))
		ts_trace_free(&t);
	fclose(in);
	return 0;
}
