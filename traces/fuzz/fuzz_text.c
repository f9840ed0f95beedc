/* fuzz_text.c — libFuzzer target for the text form's parser (undump); an
 * accepted text must dump to text that parses to the same trace. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "traces/text.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ts_trace t, u;
	char err[512];

	if (!size)
		return 0;
	FILE *in = fmemopen((void *)data, size, "r");
	if (!in)
		return 0;
	int ret = ts_trace_undump(in, "fuzz", &t, err, sizeof(err));
	fclose(in);
	if (ret)
		return 0;
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	if (m && !ts_trace_dump(m, &t) && !fclose(m)) {
		m = NULL;
		in = fmemopen(buf, len ? len : 1, "r");
		if (in && !ts_trace_undump(in, "again", &u, err, sizeof(err))) {
			if (u.nrecs != t.nrecs || u.npaths != t.npaths || u.nitems != t.nitems ||
			    (t.nrecs && memcmp(u.recs, t.recs, t.nrecs * sizeof(*t.recs))))
				abort(); /* the text form must round-trip */
			ts_trace_free(&u);
		} else if (in) {
			abort();
		}
		if (in)
			fclose(in);
	}
	if (m)
		fclose(m);
	free(buf);
	ts_trace_free(&t);
	return 0;
}
