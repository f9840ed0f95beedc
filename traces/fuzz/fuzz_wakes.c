/* fuzz_wakes.c — libFuzzer target for the wake file's reader and the
 * tracepoint-line parser that makes it: an accepted file must write out
 * and read back to the same wakes; any line fed to the parser is taken or
 * ignored, never a crash. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "traces/wakes.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ts_wakes s, r;
	char err[512];

	if (!ts_wakes_read_mem((const char *)data, size, "fuzz", &s, err, sizeof(err))) {
		char *buf = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&buf, &len);
		if (m && !ts_wakes_write(m, &s) && !fclose(m)) {
			if (ts_wakes_read_mem(buf, len, "fuzz", &r, err, sizeof(err)) ||
			    r.nwakes != s.nwakes || r.nthreads != s.nthreads)
				abort();
			ts_wakes_free(&r);
		}
		free(buf);
		ts_wakes_free(&s);
	}
	/* the same bytes as tracepoint lines */
	struct ts_wakes_parser *p;
	if (ts_wakes_parser_new(100, 1, &p))
		return 0;
	char *copy = malloc(size + 1);
	if (copy) {
		memcpy(copy, data, size);
		copy[size] = 0;
		for (char *save, *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
			if (ts_wakes_parser_line(p, l) < 0)
				break;
		free(copy);
	}
	if (!ts_wakes_parser_finish(p, UINT64_MAX / 2, &s))
		ts_wakes_free(&s);
	ts_wakes_parser_free(p);
	return 0;
}
