/* tp.h — small helpers the loader's tests share. */
#ifndef TS_TESTS_PIPELINE_TP_H
#define TS_TESTS_PIPELINE_TP_H

#include <stdio.h>

/* Writes @n bytes to @path (created or truncated); 0 or -1. */
static inline int tp_write_file(const char *path, const void *buf, size_t n)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		return -1;
	size_t w = fwrite(buf, 1, n, f);
	return fclose(f) || w != n ? -1 : 0;
}

#endif
