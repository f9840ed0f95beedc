/*
 * perfetto.h — a trace as a timeline: Chrome trace event JSON, which
 * ui.perfetto.dev and chrome://tracing open (`tiersim trace export --format
 * perfetto`).
 *
 * One track per recording thread, grouped by process (the CPU samples name
 * it; without them each thread is its own). On a track, each request is a
 * slice named "OP PATH" with its offset, length and result, and each gap
 * between two requests a "work" slice (on a CPU or queued for one) followed
 * by a "waiting" slice (off the CPU beyond one FUSE round trip), split as the
 * replay's wait rule splits it; a trace without CPU samples marks its gaps
 * "think". The kernel's own requests (thread id 0) are one track of their own.
 */
#ifndef TS_TRACE_PERFETTO_H
#define TS_TRACE_PERFETTO_H

#include <stdint.h>
#include <stdio.h>

#include "traces/trace.h"

/* Writes @t to @f; *@events (may be NULL) gets the number of slices. 0 or
 * -errno with @err set. */
TS_WUR int ts_trace_export_perfetto(FILE *f, const struct ts_trace *t, uint64_t *events, char *err,
				    size_t errlen);

#endif
