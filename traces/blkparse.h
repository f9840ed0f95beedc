/*
 * blkparse.h — import `blkparse` text output in its default format
 * (`blkparse -i TRACE`, or `-f` without an override), as blktrace's
 * blkparse_fmt.c prints it:
 *
 *   "%3d,%-3d %2d %8d %5d.%09lu %5u %2s %3s " then, per action,
 *   D (issue):    "SECTOR + NSECT [COMM]"  or "[COMM]" (no data: a flush)
 *   C (complete): "SECTOR + NSECT [ERR]"   or "SECTOR [ERR]" (a flush)
 *   (with -t, an elapsed "(%8llu)" sits before the bracket).
 *
 * One record per request issued to the driver (D), completed by its C
 * event (matched by device, sector and size; flushes in order). Reads and
 * writes by RWBS ('R', 'W'); 'D' (discard) becomes a punch-hole fallocate;
 * a data-less 'F' request an fsync. Offsets are sectors x 512 on the file
 * "/dev/MAJ,MIN". The issuing pid becomes the thread. Q/G/I/M/P/U/A/X
 * events and the summary blkparse prints at the end are skipped; a D or C
 * line that does not parse is an error naming the line and the field.
 */
#ifndef TS_TRACE_BLKPARSE_H
#define TS_TRACE_BLKPARSE_H

#include <stdio.h>

#include "traces/trace.h"

TS_WUR int ts_blkparse_import(FILE *in, const char *name, struct ts_trace *t, char *err,
			      size_t errlen);

#endif
