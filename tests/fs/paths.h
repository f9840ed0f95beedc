/*
 * paths.h — a file system test's paths under its mount point: the last
 * eight stay valid at once, enough for any one call's arguments.
 */
#ifndef TS_TEST_FS_PATHS_H
#define TS_TEST_FS_PATHS_H

#include <stdio.h>

/* "@dir/@rel" in one of eight rotating buffers. */
static inline char *tc_under(const char *dir, const char *rel)
{
	static char buf[8][4096];
	static int i;
	i = (i + 1) % 8;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", dir, rel);
	return buf[i];
}

#endif
