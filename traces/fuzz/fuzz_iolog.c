/* fuzz_iolog.c — libFuzzer target for the fio iolog importer and, for what
 * it accepts, the exporter. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "traces/iolog.h"

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
	int ret = ts_iolog_import(in, "fuzz", &t, NULL, err, sizeof(err));
	fclose(in);
	if (ret)
		return 0;
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	if (m) {
		(void)!ts_iolog_export(m, &t, NULL, NULL, err, sizeof(err));
		fclose(m);
	}
	free(buf);
	ts_trace_free(&t);
	return 0;
}
