/*
 * log.c — the daemon's one line to the user (daemon.h): syslog once
 * daemonized, stderr before that and while the parent still waits for the
 * mount to be ready. A file of its own so that the parts tierfs.c starts
 * (timing.c, calib.c, trace_hook.c) can say something without needing the
 * daemon's life cycle.
 */
#include <stdarg.h>
#include <stdio.h>
#include <syslog.h>

#include "fs/daemon.h"

void ts_fs_log(const struct ts_fs *fs, int prio, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (fs->daemonized)
		syslog(prio, "%s", line);
	if (!fs->daemonized || fs->ready_fd >= 0)
		fprintf(stderr, "%s\n", line);
}
