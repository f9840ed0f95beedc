/*
 * iolog.h — fio iolog import (versions 2 and 3) and export (version 3), so
 * that `fio --read_iolog=FILE` replays a tiersim trace and fio's
 * `--write_iolog` output becomes one.
 *
 * Syntax as fio's iolog.c reads it (read_iolog(), init_iolog_read()):
 * - the first line starts with "fio version 2 iolog" or "fio version 3 iolog";
 * - v2 lines: "FILE ACTION" (add, open, close) or "FILE ACTION OFFSET LENGTH"
 *   (read, write, sync, datasync, trim, wait); v3 lines carry a leading
 *   timestamp in microseconds since the start: "USEC FILE ACTION [OFF LEN]";
 * - a v2 `wait` sleeps until OFFSET *milliseconds* after the job started
 *   (fio sleeps (delay - mtime_since_genesis()) * 1000 us), although fio's
 *   HOWTO describes it as microseconds relative to the previous wait; we
 *   follow the code, which is what a replay does. v3 ignores `wait` (fio
 *   logs an error and skips the line); so do we, counting it;
 * - names are read with %256s (at most 256 bytes, no white space), lengths
 *   with %u (below 4 GiB), offsets with %llu; anything after the last field
 *   fio reads is ignored, as sscanf() ignores it.
 * Where fio skips a malformed line with a message, we stop with an error
 * naming the file, the line and the field: a trace silently missing ops
 * would predict the wrong thing.
 *
 * Imported ops carry no completion time (complete = submit); fio's trim
 * becomes a fallocate with aux = FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE.
 * Relative names become mount-relative paths ("data/x" -> "/data/x").
 */
#ifndef TS_TRACE_IOLOG_H
#define TS_TRACE_IOLOG_H

#include <stdio.h>

#include "traces/trace.h"

#define TS_IOLOG_PUNCH 0x3 /* aux of a fallocate that came from a trim */

struct ts_iolog_info {
	unsigned version; /* 2 or 3 */
	uint64_t lines, ops;
	uint64_t ignored_waits; /* v3 `wait` lines, skipped as fio skips them */
};

TS_WUR int ts_iolog_import(FILE *in, const char *name, struct ts_trace *t,
			   struct ts_iolog_info *info, char *err, size_t errlen);

/* Writes a v3 iolog of @t's data and sync ops, in submit order, with times
 * in microseconds. Each file is added at the start, opened before its first
 * op and closed at the end (fio opens files only on an `open` line).
 * Names are @prefix (NULL or "" = none) followed by the trace path; with no
 * prefix the leading '/' is dropped, so the names are relative and fio
 * resolves them against its working directory (fio does not apply
 * --directory to iolog names). Paths fio cannot read back (white space,
 * longer than 256 bytes) are an error naming the path. @ops (may be NULL)
 * gets the number of IO lines written. */
TS_WUR int ts_iolog_export(FILE *out, const struct ts_trace *t, const char *prefix, uint64_t *ops,
			   char *err, size_t errlen);

#endif
