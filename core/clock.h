/*
 * clock.h — the real clock. The tier model and the engine never read it
 * themselves (they are clock-agnostic); the daemon and the real-time
 * runners pass its readings in.
 */
#ifndef TS_CLOCK_H
#define TS_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t ts_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Sleep until the monotonic clock reads @t_ns (restarts after signals). */
void ts_sleep_until_ns(uint64_t t_ns);

/* Wall-clock time in ns since the epoch, for headers and logs. */
uint64_t ts_wall_ns(void);

#endif
