/*
 * ds_kind.h — what dataset.c lends the files of the dataset kinds
 * (pipeline/ds_*.c): one-line errors, the file list of a description, and
 * making directories. Nothing outside pipeline/ds_*.c includes it.
 */
#ifndef TS_DS_KIND_H
#define TS_DS_KIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/ts.h"
#include "pipeline/dataset.h"

/* Formats the message into @err (may be NULL) and returns @rc. */
int ts_ds_fail(char *err, size_t errlen, int rc, const char *fmt, ...) TS_PRINTF(4, 5);
/* Appends a file to meta->files and its bytes to meta->total_bytes. */
TS_WUR int ts_ds_add_file(struct ts_dataset_meta *meta, const char *path, uint64_t bytes,
			  bool estimated);
/* mkdir @path (0755); 0 when it already exists. */
TS_WUR int ts_ds_mkdir(const char *path);
/* Reads all of @path into a malloc'd buffer: 0, or -errno. */
TS_WUR int ts_ds_slurp(const char *path, uint8_t **buf, size_t *len);

#endif
