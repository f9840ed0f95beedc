/*
 * tmpfile.h — a C test's data file (a tier or file-system profile it
 * declares for itself): written to a file of its own that mkstemp makes
 * under /tmp, so that two builds testing at once never write one file, and
 * a file that cannot be made fails the test instead of crashing it.
 */
#ifndef TS_TEST_TMPFILE_H
#define TS_TEST_TMPFILE_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* @text written to a new file "/tmp/NAME.XXXXXX", whose name goes to
 * @path (@n bytes; 64 hold any short NAME). 0, or -1 with a line on
 * stderr. The caller unlinks @path. */
static inline int tc_write_tmp(char *path, size_t n, const char *name, const char *text)
{
	int w = snprintf(path, n, "/tmp/%s.XXXXXX", name);
	if (w < 0 || (size_t)w >= n) {
		fprintf(stderr, "tc_write_tmp: /tmp/%s.XXXXXX: name too long\n", name);
		return -1;
	}
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		perror(path);
		if (fd >= 0) {
			close(fd);
			unlink(path);
		}
		return -1;
	}
	int bad = fputs(text, f) < 0;
	if (fclose(f) || bad) {
		perror(path);
		unlink(path);
		return -1;
	}
	return 0;
}

#endif
