/*
 * workers.h — tierfs's multi-threaded request loop, on libfuse's public
 * session API (fuse_session_receive_buf / fuse_session_process_buf), in
 * place of libfuse's fuse_loop_mt.
 *
 * At most max_idle idle workers wait on the device (a blocking read, as
 * libfuse's loop); a worker done with a request while that many wait is
 * parked, and one parked for idle_ns ends. A request that takes the last
 * waiting worker sends the last-parked one back, or starts one (up to
 * max_threads), so a depth that jitters starts and ends no threads.
 */
#ifndef TS_FS_WORKERS_H
#define TS_FS_WORKERS_H

#include <stdint.h>

#include "core/ts.h"

struct fuse;
struct ts_fs;

struct ts_fs_workers_cfg {
	const struct ts_fs *fs; /* for ts_fs_log */
	unsigned max_threads;	/* 1 or more: the most workers at once */
	int max_idle;		/* the most idle workers waiting on the device (0: one);
				 * -1: every idle worker, none parked or ended */
	uint64_t idle_ns;	/* how long a parked worker waits before it ends */
};

/*
 * Serves @f's session until it exits (an unmount, fuse_session_exit from a
 * signal handler, or a read error on the device): 0 after an unmount or an
 * exit, -errno after an error (said on stderr/syslog by libfuse, or by the
 * caller). Every worker has ended (joined, its thread-local state given
 * back) when it returns. Starts and stops libfuse's cleanup thread for
 * remember= as fuse_loop_mt does. The caller's thread only waits.
 */
TS_WUR int ts_fs_workers_run(struct fuse *f, const struct ts_fs_workers_cfg *cfg);

#endif
