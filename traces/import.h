/*
 * import.h — a trace from another tool's text: a fio iolog (iolog.h) or
 * blkparse's output (blkparse.h), told apart when the format is not given.
 */
#ifndef TS_TRACE_IMPORT_H
#define TS_TRACE_IMPORT_H

#include <stdint.h>
#include <stdio.h>

#include "traces/trace.h"

/* Reads @in (named @name in messages) as @fmt, "iolog" or "blkparse"; NULL:
 * an iolog when its first byte is 'f' (fio iologs say so on their first
 * line), else blkparse. *@ignored_waits: the iolog's v3 wait lines, which
 * fio skips too. 0, -ENOTSUP for an unknown @fmt, or another code; one
 * line in @err. */
TS_WUR int ts_trace_import(FILE *in, const char *name, const char *fmt, struct ts_trace *t,
			   uint64_t *ignored_waits, char *err, size_t errlen);

#endif
