/*
 * cgroup.h — an instance's memory as a memory cgroup: a job run in it has
 * the kernel's own page cache, readahead and reclaim of an instance of
 * that size. cgroup v2 where one is mounted with the memory controller,
 * else the v1 memory controller (memory.limit_in_bytes).
 */
#ifndef TS_CGROUP_H
#define TS_CGROUP_H

#include <stdint.h>
#include <sys/types.h>

#include "core/ts.h"

struct ts_cgroup {
	char *path; /* the cgroup's directory */
	char *home; /* the opener's own cgroup in that hierarchy (ts_cgroup_leave) */
	int version; /* 1 or 2 */
};

/* What the cgroup's memory.stat and counters say. */
struct ts_cgroup_stat {
	uint64_t limit;	  /* bytes */
	uint64_t usage;	  /* now */
	uint64_t peak;	  /* the most used since created (v2: memory.peak where the
			     kernel has it, else 0) */
	uint64_t file;	  /* page cache charged to it */
	uint64_t anon;
};

/* Opens (creating if needed) the memory cgroup @name under tiersim's own
 * (v1: MEMORY_ROOT/tiersim/NAME; v2: ROOT/tiersim/NAME) and sets its limit
 * to @limit bytes. A cgroup of the same name is reused: its page cache is
 * the warm state a previous run left. */
TS_WUR int ts_cgroup_open(struct ts_cgroup *cg, const char *name, uint64_t limit, char *err,
			  size_t errlen);

/* Moves @pid (0: the caller) into the cgroup. */
TS_WUR int ts_cgroup_enter(const struct ts_cgroup *cg, pid_t pid);

/* Moves the calling process (all its threads) back to the cgroup it was
 * in when @cg was opened: for a job run in-process (a loader's threads)
 * between ts_cgroup_enter(cg, 0) and this. Its page cache stays charged to
 * @cg. */
TS_WUR int ts_cgroup_leave(const struct ts_cgroup *cg);

TS_WUR int ts_cgroup_read(const struct ts_cgroup *cg, struct ts_cgroup_stat *st);

/* The most the cgroup holds besides its page cache (usage less file: the
 * job's own memory, anonymous and kernel), which memory.stat keeps no peak
 * of: 0 when it cannot be read. */
uint64_t ts_cgroup_own(const struct ts_cgroup *cg);

/* Samples ts_cgroup_own() every @interval_ns on a thread of its own, for a
 * job run in-process (a scenario's loader). */
struct ts_cgroup_sampler;
TS_WUR int ts_cgroup_sampler_start(const struct ts_cgroup *cg, uint64_t interval_ns,
				   struct ts_cgroup_sampler **out);
/* The most seen so far (a sample taken now included). */
uint64_t ts_cgroup_sampler_max(struct ts_cgroup_sampler *s);
/* Stops the thread and frees @s (NULL: nothing). */
void ts_cgroup_sampler_stop(struct ts_cgroup_sampler *s);

/* Removes the cgroup (its page cache goes to the parent) and frees @cg. */
void ts_cgroup_remove(struct ts_cgroup *cg);
void ts_cgroup_close(struct ts_cgroup *cg);

/* Removes the cgroup @name if it exists (no error when it does not). */
void ts_cgroup_remove_name(const char *name);

#endif
