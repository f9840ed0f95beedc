/* tp.h — small functions the loader's tests share. */
#ifndef TS_TESTS_PIPELINE_TP_H
#define TS_TESTS_PIPELINE_TP_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "pipeline/vpipe.h"

/* Runs virtual pipeline @v to its end, each batch released when it is
 * ready, and gives its figures in *@st: 0, or the first error of
 * ts_vpipe_next_batch or ts_vpipe_release. */
static inline int tp_vpipe_drain(struct ts_vpipe *v, struct ts_vpipe_stats *st)
{
	struct ts_vbatch vb;
	int rc;
	while ((rc = ts_vpipe_next_batch(v, &vb)) == 1)
		if ((rc = ts_vpipe_release(v, vb.seq, vb.ready_ns)))
			return rc;
	ts_vpipe_stats(v, st);
	return rc;
}

/* Writes @n bytes to @path (created or truncated); 0 or -1. */
static inline int tp_write_file(const char *path, const void *buf, size_t n)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		return -1;
	size_t w = fwrite(buf, 1, n, f);
	return fclose(f) || w != n ? -1 : 0;
}

/* All of @path in a malloc'd buffer, *n its length; NULL when unreadable. */
static inline uint8_t *tp_read_file(const char *path, size_t *n)
{
	*n = 0;
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long sz = ftell(f);
	rewind(f);
	uint8_t *b = malloc((size_t)sz + 1);
	*n = b ? fread(b, 1, (size_t)sz, f) : 0;
	fclose(f);
	return b;
}

/* Removes the test's folder tree; says so when it cannot. */
static inline void tp_rmrf(const char *dir)
{
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd))
		fprintf(stderr, "could not remove %s\n", dir);
}

#endif
