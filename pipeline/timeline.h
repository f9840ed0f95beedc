/*
 * timeline.h — a timeline of a run as Chrome trace event JSON (the format
 * ui.perfetto.dev and chrome://tracing open), written as it happens.
 *
 * One file per command; each configuration it runs (a report row) is one
 * process track group (struct ts_tl_proc) holding the same tracks in either
 * clock, so that a real and a virtual run of one scenario look alike:
 *
 *   engine            one slice per step (the GPU's compute + exchange)
 *   batch slot j      one slice per batch living in prefetch slot j, from
 *                     its first read to its release, with "complete" nested
 *                     from the moment its last sample was done
 *   reader lane k     one slice per read request in flight: lane k is the
 *                     k-th of at most queue-depth reads at once
 *   decode worker k   one slice per decoded sample
 *   tier lane k       one slice per request the tier saw (virtual: the tier
 *                     model's; real: the mount's own trace, merged at the end)
 *
 * Events are streamed through a buffered FILE under one mutex (the real
 * loader's reader thread and decode workers call in), so memory stays
 * bounded whatever the run's length; a cap on the number of events stops
 * writing them (and says so in the file and through ts_timeline_capped())
 * instead of growing the file without bound. It is written beside the
 * path (PATH.PID.tmp) and renamed onto it by ts_timeline_close(), which
 * every path of a command runs (errors and SIGINT included): PATH is then
 * a whole, valid JSON file, or what it was before when the writing failed
 * or no configuration ran. Callers hold a NULL struct ts_tl_proc * when there
 * is no timeline and test it before any call: that test is the whole cost
 * of a run without one.
 *
 * Times are in the caller's clock in ns, made relative to the group's
 * origin (real: the row's start on the monotonic clock; virtual: 0) and
 * written in µs with ns decimals.
 */
#ifndef TS_PIPE_TIMELINE_H
#define TS_PIPE_TIMELINE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/ts.h"

enum ts_tl_track {
	TS_TL_ENGINE,
	TS_TL_BATCH,
	TS_TL_READER,
	TS_TL_DECODE,
	TS_TL_TIER,
	TS_TL_NTRACKS,
};

/* Lanes (thread ids) per kind of track; a lane past the last shares it. */
#define TS_TL_LANES 10000

/* An integer argument of a slice; @key is a literal identifier. */
struct ts_tl_arg {
	const char *key;
	int64_t val;
};

struct ts_timeline;
struct ts_tl_proc;

/* Creates @path (an unwritable one fails here, before anything runs) and
 * writes the opening of the JSON. @clock: "real" or "virtual", said in the
 * file. @max_events: slices written at most (0: no cap). */
TS_WUR int ts_timeline_open(const char *path, const char *clock, uint64_t max_events,
			    struct ts_timeline **out, char *err, size_t errlen);
/* Closes the JSON, renames the file onto the path and frees everything
 * (also the groups). With @err set: -EIO (or the rename's error) when
 * anything could not be written and -ENODATA when no group was made, the
 * path left as it was; -ENOMEM when tracks were left out (the file is
 * written). NULL is a no-op. */
TS_WUR int ts_timeline_close(struct ts_timeline *tl, char *err, size_t errlen);
/* A new process track group named @name (any text), with time origin
 * @t0_ns; NULL when out of memory (the run goes on without it). */
struct ts_tl_proc *ts_timeline_proc(struct ts_timeline *tl, const char *name, uint64_t t0_ns);
/* Slices written, and those left out once the cap was reached. */
uint64_t ts_timeline_events(struct ts_timeline *tl);
uint64_t ts_timeline_dropped(struct ts_timeline *tl);
bool ts_timeline_capped(struct ts_timeline *tl);

/* A slice [@t0, @t1] on lane @lane of track @k. @name is a literal (or
 * made with printf from literals and numbers): written as it is. */
void ts_tl_slice(struct ts_tl_proc *p, enum ts_tl_track k, unsigned lane, const char *name,
		 uint64_t t0, uint64_t t1, const struct ts_tl_arg *a, unsigned na);
/* The lowest lane of @k free at @t0 (its last slice ended by then), now
 * busy until @t1; UINT64_MAX: until ts_tl_slice_end() on it. */
unsigned ts_tl_lane(struct ts_tl_proc *p, enum ts_tl_track k, uint64_t t0, uint64_t t1);
/* ts_tl_slice() on a lane taken with t1 = UINT64_MAX, which is free from
 * @t1 on. */
void ts_tl_slice_end(struct ts_tl_proc *p, enum ts_tl_track k, unsigned lane, const char *name,
		     uint64_t t0, uint64_t t1, const struct ts_tl_arg *a, unsigned na);
/* ts_tl_lane() and ts_tl_slice() at once, for a slice whose end is known. */
unsigned ts_tl_slice_lane(struct ts_tl_proc *p, enum ts_tl_track k, const char *name,
			  uint64_t t0, uint64_t t1, const struct ts_tl_arg *a, unsigned na);

/* A batch's life on its slot track (seq % @prefetch): its first sample was
 * claimed (open), its last was done (ready), the consumer took @samples of
 * it (take), let go of it (release, which writes its slices). */
void ts_tl_batch_open(struct ts_tl_proc *p, uint64_t seq, uint64_t epoch, uint64_t index,
		      uint64_t prefetch, uint64_t t);
void ts_tl_batch_ready(struct ts_tl_proc *p, uint64_t seq, uint64_t t);
void ts_tl_batch_take(struct ts_tl_proc *p, uint64_t seq, uint64_t samples);
void ts_tl_batch_release(struct ts_tl_proc *p, uint64_t seq, uint64_t t);

#endif
