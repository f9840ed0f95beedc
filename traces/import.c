/* import.c — a trace from a fio iolog or blkparse's output (import.h). */
#include <errno.h>
#include <string.h>

#include "traces/blkparse.h"
#include "traces/import.h"
#include "traces/iolog.h"

int ts_trace_import(FILE *in, const char *name, const char *fmt, struct ts_trace *t,
		    uint64_t *ignored_waits, char *err, size_t errlen)
{
	*ignored_waits = 0;
	if (!fmt) {
		int c = getc(in);
		if (c != EOF)
			ungetc(c, in);
		fmt = c == 'f' ? "iolog" : "blkparse";
	}
	if (!strcmp(fmt, "iolog")) {
		struct ts_iolog_info info;
		int rc = ts_iolog_import(in, name, t, &info, err, errlen);
		if (!rc)
			*ignored_waits = info.ignored_waits;
		return rc;
	}
	if (!strcmp(fmt, "blkparse"))
		return ts_blkparse_import(in, name, t, err, errlen);
	snprintf(err, errlen, "--format %s: expected iolog or blkparse", fmt);
	return -ENOTSUP;
}
