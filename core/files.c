/* files.c — mkdir -p, rm -r, write-all, mountinfo and last-line lookups (see files.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/files.h"

int ts_mkdir_p(const char *path, mode_t mode, char *made, size_t madelen)
{
	char buf[PATH_MAX];
	size_t n = strlen(path);
	if (made && madelen)
		made[0] = 0;
	if (n == 0)
		return -ENOENT;
	if (n >= sizeof(buf))
		return -ENAMETOOLONG;
	memcpy(buf, path, n + 1);
	for (size_t i = 1; i <= n; i++) {
		if (buf[i] != '/' && buf[i])
			continue;
		char c = buf[i];
		buf[i] = 0;
		bool fresh = mkdir(buf, mode) == 0;
		int rc = fresh || errno == EEXIST ? 0 : -errno;
		if (fresh && made && madelen && !made[0])
			snprintf(made, madelen, "%s", buf);
		buf[i] = c;
		if (rc)
			return rc;
	}
	return 0;
}

/* Removes what directory @fd (on device @dev) holds; closes @fd. */
static int remove_below(int fd, dev_t dev)
{
	DIR *d = fdopendir(fd);
	int first = 0;
	if (!d) {
		first = -errno;
		close(fd);
		return first;
	}
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		struct stat st;
		int rc = 0;
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW)) {
			rc = -errno;
		} else if (!S_ISDIR(st.st_mode)) {
			rc = unlinkat(dirfd(d), e->d_name, 0) ? -errno : 0;
		} else if (st.st_dev == dev) {
			int sub = openat(dirfd(d), e->d_name,
					 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			rc = sub < 0 ? -errno : remove_below(sub, dev);
			if (unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR) && !rc)
				rc = -errno;
		}
		if (rc && !first)
			first = rc;
	}
	closedir(d);
	return first;
}

int ts_remove_tree(const char *path, unsigned flags)
{
	struct stat st;
	if (lstat(path, &st))
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISDIR(st.st_mode))
		return flags & TS_RM_KEEP_TOP ? 0 : unlink(path) ? -errno : 0;
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	int rc = fd < 0 ? -errno : remove_below(fd, st.st_dev);
	if (!(flags & TS_RM_KEEP_TOP) && rmdir(path) && !rc)
		rc = -errno;
	return rc;
}

int ts_pathf(char *buf, size_t n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int w = vsnprintf(buf, n, fmt, ap);
	va_end(ap);
	return w < 0 || (size_t)w >= n ? -ENAMETOOLONG : 0;
}

static int write_loop(int fd, const char *p, size_t n, off_t off, bool at)
{
	while (n) {
		ssize_t w = at ? pwrite(fd, p, n, off) : write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		if (w == 0)
			return -EIO;
		p += w;
		n -= (size_t)w;
		off += w;
	}
	return 0;
}

int ts_write_all(int fd, const void *buf, size_t n)
{
	return write_loop(fd, buf, n, 0, false);
}

int ts_pwrite_all(int fd, const void *buf, size_t n, off_t off)
{
	return write_loop(fd, buf, n, off, true);
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void ts_dir_names_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

int ts_opendir_at(int dirfd, const char *rel, DIR **out)
{
	int fd = openat(dirfd, rel && *rel ? rel : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	DIR *d = fdopendir(fd);
	if (!d) {
		int rc = -errno;
		close(fd);
		return rc;
	}
	*out = d;
	return 0;
}

int ts_dir_names(int dirfd, const char *rel, unsigned flags, char ***out, size_t *nout)
{
	DIR *d;
	int orc = ts_opendir_at(dirfd, rel, &d);
	if (orc)
		return orc;
	char **v = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		const char *nm = de->d_name;
		if (!strcmp(nm, ".") || !strcmp(nm, "..") || ((flags & TS_DIR_NO_DOT) && nm[0] == '.'))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			char **nv = realloc(v, cap * sizeof(*v));
			if (!nv) {
				rc = -ENOMEM;
				break;
			}
			v = nv;
		}
		if (!(v[n] = strdup(nm))) {
			rc = -ENOMEM;
			break;
		}
		n++;
	}
	closedir(d);
	if (rc) {
		ts_dir_names_free(v, n);
		return rc;
	}
	if (n > 1) /* an empty folder has no array to sort */
		qsort(v, n, sizeof(*v), cmp_name);
	*out = v;
	*nout = n;
	return 0;
}

/* /proc/self/mountinfo writes space, tab, newline and backslash as \ooo. */
static void unescape(char *s)
{
	char *w = s;
	for (char *r = s; *r; r++) {
		if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] && r[3]) {
			*w++ = (char)((r[1] - '0') * 64 + (r[2] - '0') * 8 + (r[3] - '0'));
			r += 3;
		} else {
			*w++ = *r;
		}
	}
	*w = 0;
}

bool ts_mounted_at(const char *abs, char *what, size_t n)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char *line = NULL;
	size_t cap = 0;
	bool found = false;

	if (!f)
		return false;
	while (!found && getline(&line, &cap, f) > 0) {
		char *save, *tok, *mp = NULL, *fstype = NULL, *src = NULL;
		bool dash = false;
		int i = 0;
		for (tok = strtok_r(line, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save), i++) {
			if (i == 4)
				mp = tok;
			else if (!dash && strcmp(tok, "-") == 0)
				dash = true;
			else if (dash && !fstype)
				fstype = tok;
			else if (dash && !src)
				src = tok;
		}
		if (!mp)
			continue;
		unescape(mp);
		if (strcmp(mp, abs) == 0) {
			found = true;
			if (src)
				unescape(src);
			if (what)
				snprintf(what, n, "%s from %s", fstype ? fstype : "?", src ? src : "?");
		}
	}
	free(line);
	fclose(f);
	return found;
}

int ts_first_line(const char *path, char *buf, size_t n)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return -errno;
	if (!fgets(buf, (int)n, f))
		buf[0] = 0;
	buf[strcspn(buf, "\n")] = 0;
	fclose(f);
	return 0;
}

void ts_last_line(const char *path, char *out, size_t n)
{
	FILE *f = fopen(path, "re");
	char line[512];

	out[0] = 0;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		size_t l = strlen(line);
		if (l) {
			l = l < n ? l : n - 1;
			memcpy(out, line, l);
			out[l] = 0;
		}
	}
	fclose(f);
}

int ts_read_stream(FILE *f, char **buf, size_t *len)
{
	char *b = NULL;
	size_t n = 0, cap = 0, got;
	*buf = NULL;
	*len = 0;
	do {
		if (cap - n < 4096) {
			char *t = realloc(b, cap = cap ? 2 * cap : 16384);
			if (!t) {
				free(b);
				return -ENOMEM;
			}
			b = t;
		}
		got = fread(b + n, 1, cap - n - 1, f);
		n += got;
	} while (got);
	if (ferror(f)) {
		int e = errno ? errno : EIO;
		free(b);
		return -e;
	}
	b[n] = '\0';
	*buf = b;
	*len = n;
	return 0;
}
