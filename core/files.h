/*
 * files.h — the file-system chores several parts share: make a directory
 * and its parents, remove a tree, write a whole buffer, read a whole
 * stream. Each returns 0 or
 * -errno.
 */
#ifndef TS_FILES_H
#define TS_FILES_H

#include <dirent.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "core/ts.h"

/* mkdir -p: makes @path and the parents it lacks with @mode (existing
 * ones are fine). @made (may be NULL) gets the topmost directory this call
 * created, or "" when it created none, so that a caller can undo exactly
 * what it made with ts_remove_tree(made, 0). */
TS_WUR int ts_mkdir_p(const char *path, mode_t mode, char *made, size_t madelen);

/* ts_remove_tree(): also keep @path itself, removing only what it holds. */
#define TS_RM_KEEP_TOP 1u

/* rm -r of @path (a file, a link or a directory; a missing @path is 0).
 * Stays on @path's file system: a directory on another one (a mount
 * inside the tree) is neither entered nor removed. Goes on past failures
 * and returns the first (cleanup that must not mask another error may
 * ignore it). */
int ts_remove_tree(const char *path, unsigned flags);

/* snprintf for paths: 0, or -ENAMETOOLONG instead of a silently cut path. */
TS_WUR int ts_pathf(char *buf, size_t n, const char *fmt, ...) TS_PRINTF(3, 4);

/* Writes all @n bytes of @buf at the file position (EINTR and short
 * writes retried). */
TS_WUR int ts_write_all(int fd, const void *buf, size_t n);
/* The same at offset @off (pwrite). */
TS_WUR int ts_pwrite_all(int fd, const void *buf, size_t n, off_t off);

/* Opens directory @rel under @dirfd (AT_FDCWD for a plain path; "" or
 * NULL: @dirfd itself, through a new descriptor) for readdir: 0 with *@out
 * set (closedir it), or -errno. */
TS_WUR int ts_opendir_at(int dirfd, const char *rel, DIR **out);

/* ts_dir_names(): leave out names that start with a dot. */
#define TS_DIR_NO_DOT 1u

/* The names in directory @rel under @dirfd (AT_FDCWD for a plain path),
 * sorted by strcmp, without "." and "..". *out is an array of *n strings
 * (free with ts_dir_names_free). */
TS_WUR int ts_dir_names(int dirfd, const char *rel, unsigned flags, char ***out, size_t *n);
void ts_dir_names_free(char **v, size_t n);

/* Whether something is mounted at the absolute path @abs (as
 * /proc/self/mountinfo names it, escapes undone); @what (may be NULL)
 * gets "FSTYPE from SOURCE". */
bool ts_mounted_at(const char *abs, char *what, size_t n);

/* The first line of the text file @path without its newline, cut to
 * @n - 1 bytes, in @buf ("" when the file is empty): a sysfs or procfs
 * attribute. 0, or -errno when the file cannot be opened. */
int ts_first_line(const char *path, char *buf, size_t n);

/* The last non-empty line of the text file @path, cut to @n - 1 bytes, in
 * @out ("" when there is none or the file cannot be read): a child's last
 * message, for an error line. */
void ts_last_line(const char *path, char *out, size_t n);

/* Reads @f to its end into a malloc'd buffer (*@buf, NUL-terminated,
 * *@len bytes before the NUL), in blocks. On error *@buf is NULL and the
 * return is -ENOMEM or the read's -errno (-EIO where it set none). */
TS_WUR int ts_read_stream(FILE *f, char **buf, size_t *len);

#endif
