/*
 * mount.h — starts and stops tierfs daemons for a scenario. Every mount
 * goes on its owner's list the moment the daemon is spawned, so whatever
 * ends the scenario (success, a Lua error, SIGINT/SIGTERM) tears all of
 * them down: unmount, then wait for the daemon, then kill it if it lingers.
 * Each daemon runs in its own process group (a terminal's Ctrl-C reaches
 * tiersim alone, which then unmounts in order) and gets SIGTERM from the
 * kernel if tiersim itself dies (PR_SET_PDEATHSIG), which makes libfuse
 * unmount on its way out.
 */
#ifndef TS_MOUNT_H
#define TS_MOUNT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "core/ts.h"

struct ts_mount {
	char *backing;
	char *mountpoint;
	char *log;	/* the daemon's stderr (removed after a clean stop) */
	pid_t pid;
	bool mounted;
	bool own_mountpoint; /* created by ts_mount_start: removed at stop */
	struct ts_mount *next;
};

struct ts_mounts {
	struct ts_mount *head;
	char *tierfs; /* the daemon's executable */
};

/* Finds the tierfs executable: $TIERSIM_TIERFS, next to this program
 * (installed), ../fs/tierfs from it (build tree), then $PATH. */
TS_WUR int ts_mounts_init(struct ts_mounts *ms, char *err, size_t errlen);

/* Spawns `tierfs -f -o OPTS BACKING MOUNTPOINT` and waits until the mount
 * is live (or the daemon exits, whose last log line becomes the error).
 * @opts is tierfs's -o list. A missing @mountpoint is created and later
 * removed. While mounted, the daemon's counters are MOUNTPOINT/.tierfs/stats. */
TS_WUR int ts_mount_start(struct ts_mounts *ms, const char *backing, const char *mountpoint,
			  const char *opts, struct ts_mount **out, char *err, size_t errlen);

/* tierfs's -o words for an instance's EBS limits (",ebs_iops=N,..."),
 * written to @buf of @n bytes; "" when @e sets none. The length, as
 * snprintf's (@n or more: it did not fit). */
struct ts_tier_ebs;
size_t ts_mount_ebs_opts(const struct ts_tier_ebs *e, char *buf, size_t n);

/* Unmounts, reaps the daemon, takes @m off the list and frees it. 0 when
 * the mount is gone. */
TS_WUR int ts_mount_stop(struct ts_mounts *ms, struct ts_mount *m, char *err, size_t errlen);

/* Stops every mount still on the list (cleanup path); returns how many
 * could not be unmounted. */
int ts_mounts_stop_all(struct ts_mounts *ms);
void ts_mounts_free(struct ts_mounts *ms);

/* True when @path is a mount point in this mount namespace. */
bool ts_is_mounted(const char *path);

#endif
