/* clock.c — absolute sleeps on CLOCK_MONOTONIC. */
#include <errno.h>

#include "core/clock.h"

void ts_sleep_until_ns(uint64_t t_ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(t_ns / 1000000000ULL),
		.tv_nsec = (long)(t_ns % 1000000000ULL),
	};
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

uint64_t ts_wall_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}
