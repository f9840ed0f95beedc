/*
 * passthrough.c — tierfs's FUSE operations: every request is passed through
 * to the backing directory, timed by the tier model on the way.
 *
 * The shape is libfuse's example/passthrough_fh.c (per-open state in fi->fh,
 * each op is the syscall and then `return -errno`), with two differences
 * that are the point of tierfs:
 *
 * Confinement. BACKING is opened once as an O_PATH descriptor (fs->root) and
 * no request ever names a path outside it. Whole paths are opened with
 * openat2(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS); operations on a name
 * (unlink, rename, chown, readlink...) resolve the parent directory that way
 * and then act on the last component with an *at() call that does not follow
 * a symlink there. So `..`, an absolute symlink (`d -> /etc`), a relative one
 * that climbs out (`d -> ../..`), or a directory swapped for such a symlink
 * behind the kernel's back all end in EXDEV/ELOOP instead of outside BACKING.
 * chmod without a handle is the one call with no *at() form that refuses
 * symlinks; it goes through the confined O_PATH descriptor's /proc/self/fd
 * entry, which names exactly the inode found beneath BACKING.
 *
 * Timing. Each op brackets its syscall with ts_fs_req_begin() (arrival, the
 * model's completion time) and ts_fs_req_end() (sleep until then, count).
 * When the model's fault layer fails the request (r.fault, tierfs's fault=
 * rules), the op returns that error without doing its syscall, as a device
 * reporting an error would leave the file as it was.
 */
#include <fcntl.h>
#include <limits.h>
#include <linux/falloc.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fs/daemon.h"

#define RESOLVE_CONFINED (RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS)

/* Open flags passed on to the backing file. O_DIRECT is dropped on purpose:
 * the backing store only holds the bytes, the tier model is the device, and
 * the FUSE side already runs in direct-IO mode (see timing.c). */
#define BACKING_FLAGS                                                                         \
	(O_ACCMODE | O_APPEND | O_TRUNC | O_CREAT | O_EXCL | O_NONBLOCK | O_DSYNC | O_SYNC | \
	 O_NOATIME | O_DIRECTORY | O_NOFOLLOW | O_LARGEFILE)

/* "/a/b" -> "a/b"; "/" -> ".". */
static const char *rel_path(const char *path)
{
	while (*path == '/')
		path++;
	return *path ? path : ".";
}

static int open_beneath(struct ts_fs *fs, const char *rel, int flags, mode_t mode)
{
	struct open_how how = {
		.flags = (uint64_t)(flags | O_CLOEXEC),
		.mode = (flags & O_CREAT) ? (mode & 07777) : 0, /* no file type bits */
		.resolve = RESOLVE_CONFINED,
	};
	long fd = syscall(SYS_openat2, fs->root, rel, &how, sizeof(how));
	return fd < 0 ? -errno : (int)fd;
}

/* The parent directory of a path, resolved beneath BACKING, and the last
 * component. The last component is never "..": libfuse does not send one,
 * and acting on it from the parent would leave BACKING. */
struct at {
	int dir;
	const char *name;
	bool owned;
};

static int at_get(struct ts_fs *fs, const char *path, struct at *a)
{
	const char *rel = rel_path(path);
	const char *slash = strrchr(rel, '/');

	a->owned = false;
	if (!slash) {
		a->dir = fs->root;
		a->name = rel;
	} else {
		char parent[PATH_MAX];
		size_t n = (size_t)(slash - rel);
		if (n >= sizeof(parent))
			return -ENAMETOOLONG;
		memcpy(parent, rel, n);
		parent[n] = 0;
		int fd = open_beneath(fs, parent, O_PATH | O_DIRECTORY, 0);
		if (fd < 0)
			return fd;
		a->dir = fd;
		a->owned = true;
		a->name = slash + 1;
	}
	if (strcmp(a->name, "..") == 0) {
		if (a->owned)
			close(a->dir);
		return -EPERM;
	}
	return 0;
}

static void at_put(struct at *a)
{
	if (a->owned)
		close(a->dir);
}

/* Names under /.tierfs are the daemon's own; nothing may create, remove or
 * rename them. */
static bool reserved(const char *path)
{
	return path && ts_fs_ctl_kind(path) != TS_FS_CTL_NONE;
}

/*
 * The caller's credentials. A root daemon serving other users (allow_other)
 * makes each request's syscalls as the caller: the worker thread takes on
 * the caller's fsuid, fsgid and supplementary groups for the length of the
 * syscall, so that the backing file system itself checks the permissions,
 * gives a new file its owner and group (a set-group-ID directory's group
 * included), and clears set-user-ID/set-group-ID on a write, truncate or
 * chown by someone without CAP_FSETID, exactly as for a local process.
 * Credentials are per thread only through the raw syscalls (glibc's
 * setgroups() changes every thread of the process). An fsuid other than 0
 * drops the file-system capabilities (CAP_DAC_OVERRIDE, CAP_CHOWN,
 * CAP_FOWNER, CAP_FSETID...); setting it back to 0 restores them.
 * getattr, readlink, statfs and the ops on an open descriptor (read,
 * fsync...) need no credentials: the kernel has checked the lookup
 * (default_permissions) and the descriptor was opened as the caller.
 */
struct creds {
	bool taken;
};

static int caller_groups(const struct fuse_context *ctx, gid_t *buf, int n, gid_t **out)
{
	int k = fuse_getgroups(n, buf);
	*out = buf;
	if (k > n) {
		gid_t *more = malloc((size_t)k * sizeof(*more));
		int m = more ? fuse_getgroups(k, more) : -ENOMEM;
		if (m < 0 || m > k) {
			free(more);
			return -ENOMEM;
		}
		*out = more;
		k = m;
	}
	/* No /proc entry (the caller is gone): its primary group alone. */
	if (k < 0) {
		buf[0] = ctx->gid;
		k = 1;
	}
	return k;
}

static void creds_take(struct creds *c)
{
	const struct fuse_context *ctx = fuse_get_context();
	const struct ts_fs *fs = ctx->private_data;
	gid_t buf[64], *groups;

	c->taken = false;
	if (!fs->as_caller || (ctx->uid == 0 && ctx->gid == 0))
		return;
	int n = caller_groups(ctx, buf, (int)TS_ARRAY_SIZE(buf), &groups);
	if (n >= 0)
		syscall(SYS_setgroups, (size_t)n, groups);
	if (groups != buf)
		free(groups);
	syscall(SYS_setfsgid, ctx->gid);
	syscall(SYS_setfsuid, ctx->uid);
	c->taken = true;
}

/* Back to the daemon's own; keeps errno. */
static void creds_drop(struct creds *c)
{
	const struct ts_fs *fs = ts_fs_get();
	int e = errno;

	if (!c->taken)
		return;
	syscall(SYS_setfsuid, 0);
	syscall(SYS_setfsgid, 0);
	syscall(SYS_setgroups, (size_t)fs->ngroups, fs->groups);
	c->taken = false;
	errno = e;
}

/* The common shape of an op acting on one name: resolve, act (both as the
 * caller), then @then if it succeeded, account. */
#define AT_OP_THEN(opcode, path, expr, then)                                    \
	do {                                                                    \
		struct ts_fs *fs_ = ts_fs_get();                                \
		struct ts_fs_req r_;                                            \
		struct creds c_;                                                \
		struct at a;                                                    \
		ts_fs_req_begin(fs_, &r_, (opcode), (path), NULL, 0, 0);        \
		int res_ = reserved(path) ? -EPERM : r_.fault;                  \
		if (res_ == 0) {                                                \
			creds_take(&c_);                                        \
			res_ = at_get(fs_, (path), &a);                         \
			if (res_ == 0) {                                        \
				res_ = (expr) ? -errno : 0;                     \
				at_put(&a);                                     \
			}                                                       \
			creds_drop(&c_);                                        \
		}                                                               \
		if (res_ == 0)                                                  \
			then;                                                   \
		return ts_fs_req_end(fs_, &r_, res_);                           \
	} while (0)
#define AT_OP(opcode, path, expr) AT_OP_THEN(opcode, path, expr, (void)0)

/* The same for an op on an open backing file's descriptor (f). */
#define FH_OP_THEN(opcode, path, fi, expr, then)                                \
	do {                                                                    \
		struct ts_fs *fs_ = ts_fs_get();                                \
		struct ts_fs_file *f = ts_fs_file_of(fi);                       \
		struct ts_fs_req r_;                                            \
		struct creds c_;                                                \
		if (f->kind != TS_FS_FILE)                                      \
			return -EPERM;                                          \
		ts_fs_req_begin(fs_, &r_, (opcode), (path), f, 0, 0);           \
		int res_ = r_.fault;                                            \
		if (res_ == 0) {                                                \
			creds_take(&c_);                                        \
			res_ = (expr) ? -errno : 0;                             \
			creds_drop(&c_);                                        \
		}                                                               \
		if (res_ == 0)                                                  \
			then;                                                   \
		return ts_fs_req_end(fs_, &r_, res_);                           \
	} while (0)
#define FH_OP(opcode, path, fi, expr) FH_OP_THEN(opcode, path, fi, expr, (void)0)

/*
 * The attributes of the file at @path (or open as @f) changed: its other
 * names the kernel holds are invalidated (names.c); the kernel refreshes
 * the one the op came through itself. Costs nothing while no file of more
 * than one name has been seen.
 */
static void attrs_changed(struct ts_fs *fs, const char *path, const struct ts_fs_file *f)
{
	struct stat st;
	struct at a;

	if (!ts_fs_names_any(fs))
		return;
	if (f) {
		ts_fs_names_changed(fs, f->ino, NULL, f->cached);
		return;
	}
	if (at_get(fs, path, &a))
		return;
	bool ok = fstatat(a.dir, a.name, &st, AT_SYMLINK_NOFOLLOW) == 0;
	at_put(&a);
	if (ok && !S_ISDIR(st.st_mode))
		ts_fs_names_changed(fs, (uint64_t)st.st_ino, path, false);
}

static void *pt_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
	struct ts_fs *fs = ts_fs_get();

	/* Every op on an open file uses its descriptor, never its path. An
	 * unlinked file that is still open stays as libfuse's .fuse_hidden*
	 * name until released (hard_remove would drop it at once, but then
	 * fstat() on the open file fails with ESTALE, since the kernel sends
	 * no handle with it). */
	cfg->nullpath_ok = 1;
	cfg->use_ino = 1; /* hard links show one inode number, as on disk */
	/* Let asynchronous direct IO (io_uring, libaio) reach the daemon at
	 * its full queue depth: the kernel holds back background requests
	 * beyond max_background (default 12). */
	conn->want |= FUSE_CAP_ASYNC_DIO;
	if (conn->max_background < 256)
		conn->max_background = 256;
	if (conn->congestion_threshold < 192)
		conn->congestion_threshold = 192;
	/* the kernel's readahead window on the mount (kernel_cache=small) */
	fs->ra_bytes = conn->max_readahead ? conn->max_readahead : 128 << 10;
	fs->fuse = fuse_get_context()->fuse;
	ts_fs_calib_start(fs);
	return fs;
}

static int pt_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
	struct ts_fs *fs = ts_fs_get();
	struct ts_fs_file *f = fi ? ts_fs_file_of(fi) : NULL;
	struct ts_fs_req r;
	int res;

	if (!f && path) {
		enum ts_fs_ctl k = ts_fs_ctl_kind(path);
		if (k != TS_FS_CTL_NONE)
			return ts_fs_ctl_getattr(fs, k, st);
	}
	if (f && f->kind != TS_FS_FILE && f->kind != TS_FS_DIR)
		return path ? ts_fs_ctl_getattr(fs, ts_fs_ctl_kind(path), st) : -EBADF;
	ts_fs_req_begin(fs, &r, TS_FS_GETATTR, path, f, 0, 0);
	if (f) {
		res = fstat(f->kind == TS_FS_DIR ? dirfd(f->dir) : f->fd, st) ? -errno : 0;
	} else {
		struct at a;
		res = at_get(fs, path, &a);
		if (res == 0) {
			res = fstatat(a.dir, a.name, st, AT_SYMLINK_NOFOLLOW) ? -errno : 0;
			at_put(&a);
		}
		/* a lookup (the high-level API's is a getattr) or a refresh:
		 * the kernel now holds this name */
		if (res == 0)
			ts_fs_names_seen(fs, path, st);
	}
	return ts_fs_req_end(fs, &r, res);
}

static int pt_access(const char *path, int mask)
{
	if (ts_fs_ctl_kind(path) != TS_FS_CTL_NONE)
		return (mask & W_OK) && ts_fs_ctl_kind(path) != TS_FS_CTL_CONTROL ? -EACCES : 0;
	AT_OP(TS_FS_ACCESS, path, faccessat(a.dir, a.name, mask, AT_SYMLINK_NOFOLLOW));
}

static int pt_readlink(const char *path, char *buf, size_t size)
{
	struct ts_fs *fs = ts_fs_get();
	struct ts_fs_req r;
	struct at a;

	ts_fs_req_begin(fs, &r, TS_FS_READLINK, path, NULL, 0, size);
	int res = reserved(path) ? -EINVAL : at_get(fs, path, &a);
	if (res == 0) {
		ssize_t n = readlinkat(a.dir, a.name, buf, size - 1);
		res = n < 0 ? -errno : 0;
		if (n >= 0)
			buf[n] = 0;
		at_put(&a);
	}
	return ts_fs_req_end(fs, &r, res);
}

static int pt_mknod(const char *path, mode_t mode, dev_t rdev)
{
	AT_OP(TS_FS_MKNOD, path,
	      mknodat(a.dir, a.name, mode, rdev));
}

static int pt_mkdir(const char *path, mode_t mode)
{
	AT_OP(TS_FS_MKDIR, path,
	      mkdirat(a.dir, a.name, mode));
}

static int pt_unlink(const char *path)
{
	struct ts_fs *fs = ts_fs_get();
	struct ts_fs_req r;
	struct stat st;
	struct at a;

	struct creds c;
	bool linked = false;

	ts_fs_req_begin(fs, &r, TS_FS_UNLINK, path, NULL, 0, 0);
	int res = reserved(path) ? -EPERM : r.fault;
	if (res)
		return ts_fs_req_end(fs, &r, res);
	creds_take(&c);
	res = at_get(fs, path, &a);
	if (res == 0) {
		/* The last name of a file: its cached pages go with it. */
		bool known = fstatat(a.dir, a.name, &st, AT_SYMLINK_NOFOLLOW) == 0;
		bool last = known && S_ISREG(st.st_mode) && st.st_nlink == 1;
		res = unlinkat(a.dir, a.name, 0) ? -errno : 0;
		if (res == 0 && last)
			ts_fs_model_forget(fs, TS_FS_UNLINK, st.st_ino, 0, 0, 0);
		linked = known && res == 0 && st.st_nlink > 1;
		at_put(&a);
	}
	creds_drop(&c);
	/* the other names' link count and ctime */
	if (linked) {
		ts_fs_names_gone(fs, (uint64_t)st.st_ino, path);
		ts_fs_names_changed(fs, (uint64_t)st.st_ino, NULL, false);
	}
	return ts_fs_req_end(fs, &r, res);
}

static int pt_rmdir(const char *path)
{
	AT_OP(TS_FS_RMDIR, path, unlinkat(a.dir, a.name, AT_REMOVEDIR));
}

static int pt_symlink(const char *target, const char *path)
{
	AT_OP(TS_FS_SYMLINK, path,
	      symlinkat(target, a.dir, a.name));
}

static int pt_chown(const char *path, uid_t uid, gid_t gid, struct fuse_file_info *fi)
{
	if (fi)
		FH_OP_THEN(TS_FS_CHOWN, path, fi, fchown(f->fd, uid, gid),
			   attrs_changed(fs_, NULL, f));
	AT_OP_THEN(TS_FS_CHOWN, path, fchownat(a.dir, a.name, uid, gid, AT_SYMLINK_NOFOLLOW),
		   attrs_changed(fs_, path, NULL));
}

static int pt_utimens(const char *path, const struct timespec tv[2], struct fuse_file_info *fi)
{
	if (fi)
		FH_OP_THEN(TS_FS_UTIMENS, path, fi, futimens(f->fd, tv), attrs_changed(fs_, NULL, f));
	AT_OP_THEN(TS_FS_UTIMENS, path, utimensat(a.dir, a.name, tv, AT_SYMLINK_NOFOLLOW),
		   attrs_changed(fs_, path, NULL));
}

static int chmod_confined(struct ts_fs *fs, const char *path, mode_t mode)
{
	int fd = open_beneath(fs, rel_path(path), O_PATH | O_NOFOLLOW, 0);
	struct stat st;
	char proc[64];
	int res;

	if (fd < 0)
		return fd;
	if (fstat(fd, &st)) {
		res = -errno;
	} else if (S_ISLNK(st.st_mode)) {
		res = -EOPNOTSUPP; /* what Linux answers for a symlink's mode */
	} else {
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
		res = chmod(proc, mode) ? -errno : 0;
	}
	close(fd);
	return res;
}

/* Whether @mode is the file's mode with only S_ISUID/S_ISGID taken off. */
static bool kills_only(struct ts_fs *fs, const struct ts_fs_file *f, const char *path, mode_t mode)
{
	struct stat st;
	struct at a;
	bool ok = false;

	if (f) {
		ok = fstat(f->fd, &st) == 0;
	} else if (at_get(fs, path, &a) == 0) {
		ok = fstatat(a.dir, a.name, &st, AT_SYMLINK_NOFOLLOW) == 0;
		at_put(&a);
	}
	mode_t had = st.st_mode & 07777, want = mode & 07777;
	return ok && had != want && (had & ~(mode_t)(S_ISUID | S_ISGID)) == want;
}

static int pt_chmod(const char *path, mode_t mode, struct fuse_file_info *fi)
{
	struct ts_fs *fs = ts_fs_get();
	struct ts_fs_file *f = fi ? ts_fs_file_of(fi) : NULL;
	struct ts_fs_req r;
	struct creds c;
	int res;

	if ((f && f->kind != TS_FS_FILE) || (!f && reserved(path)))
		return -EPERM;
	ts_fs_req_begin(fs, &r, TS_FS_CHMOD, path, f, 0, 0);
	if (r.fault)
		return ts_fs_req_end(fs, &r, r.fault);
	creds_take(&c);
	bool as_caller = c.taken;
	res = f ? (fchmod(f->fd, mode) ? -errno : 0) : chmod_confined(fs, path, mode);
	creds_drop(&c);
	/* The kernel clears set-user-ID/set-group-ID before a truncate or
	 * chown by someone else as a chmod of its own (ATTR_FORCE: no owner
	 * check), which the caller may not make: one that only takes those
	 * bits off is made as the daemon. Any other chmod has passed the
	 * kernel's owner check (default_permissions) and is the caller's. */
	if (res == -EPERM && as_caller && kills_only(fs, f, path, mode))
		res = f ? (fchmod(f->fd, mode) ? -errno : 0) : chmod_confined(fs, path, mode);
	if (res == 0)
		attrs_changed(fs, path, f);
	return ts_fs_req_end(fs, &r, res);
}

static int pt_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
	struct ts_fs *fs = ts_fs_get();
	struct ts_fs_file *f = fi ? ts_fs_file_of(fi) : NULL;
	struct ts_fs_req r;
	int res;

	/* `echo cmd > .tierfs/control` truncates first: nothing to do. */
	if (f && f->kind == TS_FS_CONTROL)
		return 0;
	if (!f && path && ts_fs_ctl_kind(path) == TS_FS_CTL_CONTROL)
		return 0;
	if ((f && f->kind != TS_FS_FILE) || (!f && reserved(path)))
		return -EPERM;
	ts_fs_req_begin(fs, &r, TS_FS_TRUNCATE, path, f, (uint64_t)size, 0);
	if (r.fault)
		return ts_fs_req_end(fs, &r, r.fault);
	struct creds c;
	creds_take(&c);
	int fd = f ? f->fd : open_beneath(fs, rel_path(path), O_WRONLY | O_NONBLOCK | O_NOFOLLOW, 0);
	struct stat st;
	res = fd < 0 ? fd : ftruncate(fd, size) ? -errno : 0;
	creds_drop(&c);
	if (res == 0 && f)
		__atomic_store_n(&f->size, (uint64_t)size, __ATOMIC_RELAXED);
	if (res == 0 && fstat(fd, &st) == 0) {
		ts_fs_model_forget(fs, TS_FS_TRUNCATE, st.st_ino, (uint64_t)size, 0, 0);
		ts_fs_names_changed(fs, (uint64_t)st.st_ino, f ? NULL : path, f && f->cached);
	}
	if (!f && fd >= 0)
		close(fd);
	return ts_fs_req_end(fs, &r, res);
}

static int do_rename(struct ts_fs *fs, struct at *a, struct at *b, const char *from,
		     const char *to, unsigned int flags)
{
	struct stat st, moved, replaced;

	/* What the rename changes, while hard-linked files are about: the
	 * moved file's ctime and the replaced one's link count, on their
	 * other names. */
	bool linked = ts_fs_names_any(fs);
	bool has_moved = linked && fstatat(a->dir, a->name, &moved, AT_SYMLINK_NOFOLLOW) == 0 &&
			 !S_ISDIR(moved.st_mode);
	bool has_replaced = linked &&
			    fstatat(b->dir, b->name, &replaced, AT_SYMLINK_NOFOLLOW) == 0 &&
			    !S_ISDIR(replaced.st_mode);
	if (renameat2(a->dir, a->name, b->dir, b->name, flags))
		return -errno;
	/* A kernel-cached file must stay reachable for invalidation under its
	 * new name. */
	if ((ts_fs_want_cached(fs, to) || ts_fs_want_cached(fs, from)) &&
	    fstatat(b->dir, b->name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode))
		ts_fs_cached_track(fs, st.st_ino, to);
	else if (ts_fs_may_cache(fs, to) &&
		 fstatat(b->dir, b->name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode))
		ts_fs_open_renamed(fs, st.st_ino, to);
	bool exchange = (flags & RENAME_EXCHANGE) != 0;
	ts_fs_names_renamed(fs, from, to, exchange);
	if (has_moved)
		ts_fs_names_changed(fs, (uint64_t)moved.st_ino, to, false);
	if (has_replaced)
		ts_fs_names_changed(fs, (uint64_t)replaced.st_ino, exchange ? from : NULL, false);
	return 0;
}

static int do_link(struct ts_fs *fs, struct at *a, struct at *b, const char *from,
		   const char *to, unsigned int flags)
{
	struct stat st;

	(void)flags;
	if (linkat(a->dir, a->name, b->dir, b->name, 0))
		return -errno;
	/* Both names are the file's now; the kernel keeps the old name's
	 * link count (a separate inode to it) unless told. */
	if (fstatat(b->dir, b->name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		ts_fs_names_seen(fs, from, &st);
		ts_fs_names_seen(fs, to, &st);
		ts_fs_names_changed(fs, (uint64_t)st.st_ino, to, false);
	}
	return 0;
}

/* An op on two names, both resolved beneath BACKING. */
static int two_names(enum ts_fs_op op, const char *from, const char *to, unsigned int flags,
		     int (*act)(struct ts_fs *, struct at *, struct at *, const char *,
				const char *, unsigned int))
{
	struct ts_fs *fs = ts_fs_get();
	struct ts_fs_req r;
	struct creds c;
	struct at a, b;
	int res;

	/* the new name is the model's too (a rename into another folder) */
	ts_fs_req_begin2(fs, &r, op, from, to, NULL, 0, 0);
	if (reserved(from) || reserved(to))
		return ts_fs_req_end(fs, &r, -EPERM);
	if (r.fault)
		return ts_fs_req_end(fs, &r, r.fault);
	creds_take(&c);
	res = at_get(fs, from, &a);
	if (res == 0) {
		res = at_get(fs, to, &b);
		if (res == 0) {
			res = act(fs, &a, &b, from, to, flags);
			at_put(&b);
		}
		at_put(&a);
	}
	creds_drop(&c);
	return ts_fs_req_end(fs, &r, res);
}

static int pt_rename(const char *from, const char *to, unsigned int flags)
{
	return two_names(TS_FS_RENAME, from, to, flags, do_rename);
}

static int pt_link(const char *from, const char *to)
{
	return two_names(TS_FS_LINK, from, to, 0, do_link);
}

/* Open a file of the control directory and put it on the open list. */
static int ctl_open(struct ts_fs *fs, enum ts_fs_ctl k, struct fuse_file_info *fi)
{
	int res = ts_fs_ctl_open(fs, k, fi);

	if (res == 0)
		ts_fs_file_track(fs, ts_fs_file_of(fi), fi);
	return res;
}

/* Set up fi for a backing file just opened on @fd. */
static int file_attach(struct ts_fs *fs, const char *path, int fd, struct fuse_file_info *fi)
{
	struct ts_fs_file *f = calloc(1, sizeof(*f));
	struct stat st;

	if (!f || !(f->path = strdup(path)) || fstat(fd, &st)) {
		int res = f && f->path ? -errno : -ENOMEM;
		if (f)
			free(f->path);
		free(f);
		close(fd);
		return res;
	}
	f->kind = TS_FS_FILE;
	f->fd = fd;
	f->ino = st.st_ino;
	f->size = (uint64_t)st.st_size;
	/* The application's O_DIRECT (which the backing file is not given,
	 * see BACKING_FLAGS) tells the model to bypass its page cache. */
	f->direct = (fi->flags & O_DIRECT) != 0;
	/* Direct IO on the FUSE side so the kernel page cache never answers
	 * a read the model should see; the cached= files (mmap'd ones, LMDB's
	 * *.mdb by default) are the exception, kept honest by invalidation
	 * (timing.c). */
	bool kept = S_ISREG(st.st_mode) && ts_fs_want_cached(fs, path);
	/* With a page-cache model, a regular file cached= does not name is
	 * read through the kernel's page cache too (kernel_cache=, timing.c:
	 * by default one the kernel's first readahead window reads whole),
	 * for this open: the kernel answers a read of the pages this handle has
	 * already read, and a read at the end of the file, without a round
	 * trip, as a kernel file system does, and sends the rest as its
	 * readahead's reads (marked so in the trace, flag 16); without
	 * keep_cache it drops the file's pages at each open, so each open's
	 * reads reach the model. Without a model page cache (mem=0) every
	 * read goes to the tier, so direct IO stays. */
	f->per_open = !kept && S_ISREG(st.st_mode) && ts_fs_cache_per_open(fs, (uint64_t)st.st_size);
	f->cached = kept || f->per_open;
	fi->direct_io = !f->cached;
	fi->keep_cache = kept;
	/*
	 * A file opened read-only has nothing for a flush to write: its
	 * writes are refused, so neither this daemon (no per-descriptor
	 * state beyond the descriptor) nor the kernel (no dirty page of a
	 * mapping made through it) holds any, and the model charges a flush
	 * nothing (traces/tier_rule.c). The kernel then closes it without the
	 * FUSE_FLUSH round trip a close() would wait for (FOPEN_NOFLUSH),
	 * as ext4's close of a file it only read costs no I/O; a reader of
	 * one file per sample saves one waited round trip per file. A file
	 * opened for writing keeps its flush: the kernel writes a cached=
	 * file's dirty mapped pages before it, and the backing file system
	 * may report a write error at close (NFS). Setting the flag for
	 * every file (or answering flush with ENOSYS, which stops flushes on
	 * the whole mount) would lose both. Opens stay a round trip: each is
	 * charged the file system's lookup (traces/tier_rule.c), chooses
	 * direct IO or the kernel cache per file and handles O_TRUNC, which
	 * a zero-message open (FUSE_CAP_NO_OPEN_SUPPORT) would leave to the
	 * kernel for every file of the mount.
	 */
	fi->noflush = (fi->flags & O_ACCMODE) == O_RDONLY;
	if (kept)
		ts_fs_cached_track(fs, f->ino, path);
	else if (f->per_open)
		ts_fs_open_track(fs, f->ino, path);
	ts_fs_file_track(fs, f, fi);
	return 0;
}

static int pt_open(const char *path, struct fuse_file_info *fi)
{
	struct ts_fs *fs = ts_fs_get();
	enum ts_fs_ctl k = ts_fs_ctl_kind(path);
	struct ts_fs_req r;
	int res;

	if (k != TS_FS_CTL_NONE)
		return ctl_open(fs, k, fi);
	ts_fs_req_begin(fs, &r, TS_FS_OPEN, path, NULL, 0, 0);
	res = r.fault;
	if (res == 0) {
		struct creds c;
		creds_take(&c);
		res = open_beneath(fs, rel_path(path), fi->flags & BACKING_FLAGS, 0);
		creds_drop(&c);
	}
	if (res >= 0)
		res = file_attach(fs, path, res, fi);
	r.ino = res >= 0 ? ts_fs_file_of(fi)->ino : 0;
	if (res >= 0 && (fi->flags & O_TRUNC))
		ts_fs_names_changed(fs, r.ino, path, false);
	return ts_fs_req_end(fs, &r, res);
}

static int pt_create(const char *path, mode_t mode, struct fuse_file_info *fi)
{
	struct ts_fs *fs = ts_fs_get();
	struct ts_fs_req r;
	int res;

	ts_fs_req_begin(fs, &r, TS_FS_CREATE, path, NULL, 0, 0);
	if (reserved(path))
		return ts_fs_req_end(fs, &r, -EPERM);
	if (r.fault)
		return ts_fs_req_end(fs, &r, r.fault);
	int flags = (fi->flags & BACKING_FLAGS) | O_CREAT;
	struct creds c;
	creds_take(&c);
	res = open_beneath(fs, rel_path(path), flags, mode);
	creds_drop(&c);
	if (res >= 0)
		res = file_attach(fs, path, res, fi);
	r.ino = res >= 0 ? ts_fs_file_of(fi)->ino : 0;
	if (res >= 0 && (fi->flags & O_TRUNC))
		ts_fs_names_changed(fs, r.ino, path, false);
	return ts_fs_req_end(fs, &r, res);
}

/* pread until @size bytes or end of file. */
static ssize_t pread_full(int fd, char *buf, size_t size, off_t off)
{
	size_t done = 0;
	while (done < size) {
		ssize_t n = pread(fd, buf + done, size - done, off + (off_t)done);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return done ? (ssize_t)done : -errno;
		}
		if (n == 0)
			break;
		done += (size_t)n;
	}
	return (ssize_t)done;
}

/*
 * Reads land in a memory buffer before the sleep, so the copy out of the
 * backing store happens inside the emulated latency rather than after it
 * (splicing the backing fd would do the copy after the reply is due), and
 * the byte count is known to the trace hook.
 */
static int pt_read_buf(const char *path, struct fuse_bufvec **bufp, size_t size, off_t off,
		       struct fuse_file_info *fi)
{
	struct ts_fs *fs = ts_fs_get();
	struct ts_fs_file *f = ts_fs_file_of(fi);
	struct fuse_bufvec *bv = malloc(sizeof(*bv));
	char *mem = malloc(size ? size : 1);
	struct ts_fs_req r;
	ssize_t n;

	if (!bv || !mem) {
		free(bv);
		free(mem);
		return -ENOMEM;
	}
	if (f->kind == TS_FS_FILE) {
		/* The file's flags as they are now (fcntl F_SETFL may change
		 * O_DIRECT): the kernel sends them with every read and write. */
		__atomic_store_n(&f->direct, (fi->flags & O_DIRECT) != 0, __ATOMIC_RELAXED);
		ts_fs_req_begin(fs, &r, TS_FS_READ, path, f, (uint64_t)off, size);
		n = r.fault ? r.fault : pread_full(f->fd, mem, size, off);
		n = ts_fs_req_end(fs, &r, n);
	} else {
		n = ts_fs_ctl_read(fs, f, mem, size, off);
	}
	if (n < 0) {
		free(bv);
		free(mem);
		return (int)n;
	}
	*bv = (struct fuse_bufvec)FUSE_BUFVEC_INIT((size_t)n);
	bv->buf[0].mem = mem;
	*bufp = bv;
	return 0;
}

static int pt_write_buf(const char *path, struct fuse_bufvec *buf, off_t off,
			struct fuse_file_info *fi)
{
	struct ts_fs *fs = ts_fs_get();
	struct ts_fs_file *f = ts_fs_file_of(fi);
	size_t size = fuse_buf_size(buf);
	struct ts_fs_req r;

	if (f->kind == TS_FS_CONTROL) {
		char cmd[4096];
		struct fuse_bufvec dst = FUSE_BUFVEC_INIT(TS_MIN(size, sizeof(cmd) - 1));
		if (size >= sizeof(cmd))
			return -EFBIG;
		dst.buf[0].mem = cmd;
		ssize_t n = fuse_buf_copy(&dst, buf, 0);
		if (n < 0)
			return (int)n;
		return ts_fs_ctl_write(fs, f, cmd, (size_t)n);
	}
	if (f->kind != TS_FS_FILE)
		return -EBADF;
	__atomic_store_n(&f->direct, (fi->flags & O_DIRECT) != 0, __ATOMIC_RELAXED);
	ts_fs_req_begin(fs, &r, TS_FS_WRITE, path, f, (uint64_t)off, size);
	struct fuse_bufvec dst = FUSE_BUFVEC_INIT(size);
	dst.buf[0].flags = FUSE_BUF_IS_FD | FUSE_BUF_FD_SEEK;
	dst.buf[0].fd = f->fd;
	dst.buf[0].pos = off;
	/* A set-user-ID or set-group-ID file is written as the caller, so
	 * that the backing file system clears those bits as it would for a
	 * local writer without CAP_FSETID (the kernel leaves that to the
	 * daemon for direct_io files). Other writes need no
	 * credentials and save the switch. */
	struct creds c = { 0 };
	struct stat st;
	if (!r.fault && fs->as_caller && fstat(f->fd, &st) == 0 &&
	    (st.st_mode & (S_ISUID | S_ISGID)))
		creds_take(&c);
	ssize_t n = r.fault ? r.fault : fuse_buf_copy(&dst, buf, FUSE_BUF_SPLICE_NONBLOCK);
	creds_drop(&c);
	if (n > 0 && !fs->o.bare) {
		uint64_t end = (uint64_t)off + (uint64_t)n;
		uint64_t cur = __atomic_load_n(&f->size, __ATOMIC_RELAXED);
		while (end > cur && !__atomic_compare_exchange_n(&f->size, &cur, end, true,
								 __ATOMIC_RELAXED, __ATOMIC_RELAXED))
			;
	}
	if (n > 0) /* size and mtime, on the file's other names */
		ts_fs_names_changed(fs, f->ino, NULL, f->cached);
	return (int)ts_fs_req_end(fs, &r, n);
}

static int pt_statfs(const char *path, struct statvfs *sv)
{
	struct ts_fs *fs = ts_fs_get();
	struct ts_fs_req r;

	ts_fs_req_begin(fs, &r, TS_FS_STATFS, path, NULL, 0, 0);
	return ts_fs_req_end(fs, &r, fstatvfs(fs->root, sv) ? -errno : 0);
}

static int pt_flush(const char *path, struct fuse_file_info *fi)
{
	struct ts_fs *fs = ts_fs_get();
	struct ts_fs_file *f = ts_fs_file_of(fi);
	struct ts_fs_req r;
	int res;

	if (f->kind != TS_FS_FILE)
		return 0;
	/* Closing a duplicate gives the backing file system the close it
	 * may act on (NFS flushes there) without giving up the handle, which
	 * a later flush or an mmap may still use. */
	ts_fs_req_begin(fs, &r, TS_FS_FLUSH, path, f, 0, 0);
	res = dup(f->fd);
	if (res >= 0)
		res = close(res) ? -errno : 0;
	else
		res = -errno;
	return ts_fs_req_end(fs, &r, res);
}

static int pt_release(const char *path, struct fuse_file_info *fi)
{
	struct ts_fs *fs = ts_fs_get();
	struct ts_fs_file *f = ts_fs_file_of(fi);
	struct ts_fs_req r;

	if (f->kind == TS_FS_FILE) {
		ts_fs_req_begin(fs, &r, TS_FS_RELEASE, path, f, 0, 0);
		close(f->fd);
		f->fd = -1;
		if (f->per_open)
			ts_fs_open_untrack(fs, f->ino);
		ts_fs_req_end(fs, &r, 0);
	}
	ts_fs_file_release(fs, f);
	return 0;
}

static int pt_fsync(const char *path, int datasync, struct fuse_file_info *fi)
{
	struct ts_fs *fs = ts_fs_get();
	struct ts_fs_file *f = ts_fs_file_of(fi);
	struct ts_fs_req r;

	if (f->kind != TS_FS_FILE)
		return 0;
	ts_fs_req_begin(fs, &r, datasync ? TS_FS_FDATASYNC : TS_FS_FSYNC, path, f, 0, 0);
	int res = r.fault				   ? r.fault
		  : (datasync ? fdatasync(f->fd) : fsync(f->fd)) ? -errno
								   : 0;
	return ts_fs_req_end(fs, &r, res);
}

static int pt_fallocate(const char *path, int mode, off_t off, off_t len,
			struct fuse_file_info *fi)
{
	struct ts_fs *fs = ts_fs_get();
	struct ts_fs_file *f = ts_fs_file_of(fi);
	struct ts_fs_req r;

	if (f->kind != TS_FS_FILE)
		return -EBADF;
	ts_fs_req_begin(fs, &r, TS_FS_FALLOCATE, path, f, (uint64_t)off, (uint64_t)len);
	r.mode = (uint32_t)mode;
	int res = r.fault;
	if (res == 0) {
		struct creds c;
		creds_take(&c);
		res = fallocate(f->fd, mode, off, len) ? -errno : 0;
		creds_drop(&c);
	}
	if (res == 0) {
		ts_fs_model_forget(fs, TS_FS_FALLOCATE, f->ino, (uint64_t)off, (uint64_t)len,
				   (uint32_t)mode);
		ts_fs_names_changed(fs, f->ino, NULL, f->cached);
	}
	return ts_fs_req_end(fs, &r, res);
}

static int pt_opendir(const char *path, struct fuse_file_info *fi)
{
	struct ts_fs *fs = ts_fs_get();
	enum ts_fs_ctl k = ts_fs_ctl_kind(path);
	struct ts_fs_req r;
	int res;

	if (k == TS_FS_CTL_DIR)
		return ctl_open(fs, k, fi);
	if (k != TS_FS_CTL_NONE)
		return k == TS_FS_CTL_MISSING ? -ENOENT : -ENOTDIR;
	ts_fs_req_begin(fs, &r, TS_FS_OPENDIR, path, NULL, 0, 0);
	struct ts_fs_file *f = calloc(1, sizeof(*f));
	res = !f ? -ENOMEM : r.fault;
	if (res == 0) {
		struct creds c;
		creds_take(&c);
		res = open_beneath(fs, rel_path(path), O_RDONLY | O_DIRECTORY, 0);
		creds_drop(&c);
	}
	if (res >= 0) {
		f->kind = TS_FS_DIR;
		f->dir = fdopendir(res);
		if (!f->dir) {
			int fd = res;
			res = -errno;
			close(fd);
		} else {
			res = 0;
			ts_fs_file_track(fs, f, fi);
		}
	}
	if (res < 0)
		free(f);
	return ts_fs_req_end(fs, &r, res);
}

static int pt_readdir(const char *path, void *buf, fuse_fill_dir_t filler, off_t off,
		      struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
	struct ts_fs *fs = ts_fs_get();
	struct ts_fs_file *f = ts_fs_file_of(fi);
	struct ts_fs_req r;
	bool root = path && strcmp(path, "/") == 0;

	if (f->kind == TS_FS_CTLDIR)
		return ts_fs_ctl_readdir(buf, filler);
	ts_fs_req_begin(fs, &r, TS_FS_READDIR, path, NULL, (uint64_t)off, 0);
	if (r.fault)
		return ts_fs_req_end(fs, &r, r.fault);
	if (off != f->dir_off) {
		seekdir(f->dir, off);
		f->next = NULL;
		f->dir_off = off;
	}
	for (;;) {
		if (!f->next) {
			errno = 0;
			f->next = readdir(f->dir);
			if (!f->next) {
				if (errno)
					return ts_fs_req_end(fs, &r, -errno);
				break;
			}
		}
		/* A .tierfs in BACKING's root is shadowed by the control
		 * directory, which itself stays out of listings so that
		 * copies and finds over the mount never pick it up. */
		if (root && strcmp(f->next->d_name, TS_FS_CTL_NAME) == 0) {
			f->next = NULL;
			f->dir_off = telldir(f->dir);
			continue;
		}
		struct stat st = {
			.st_ino = f->next->d_ino,
			.st_mode = (mode_t)f->next->d_type << 12,
		};
		off_t next_off = telldir(f->dir);
		if (filler(buf, f->next->d_name, &st, next_off, 0))
			break;
		f->next = NULL;
		f->dir_off = next_off;
	}
	return ts_fs_req_end(fs, &r, 0);
}

static int pt_releasedir(const char *path, struct fuse_file_info *fi)
{
	(void)path;
	ts_fs_file_release(ts_fs_get(), ts_fs_file_of(fi));
	return 0;
}

void ts_fs_file_track(struct ts_fs *fs, struct ts_fs_file *f, struct fuse_file_info *fi)
{
	pthread_mutex_lock(&fs->open_lock);
	f->open_prev = NULL;
	f->open_next = fs->open_files;
	if (f->open_next)
		f->open_next->open_prev = f;
	fs->open_files = f;
	pthread_mutex_unlock(&fs->open_lock);
	fi->fh = (uintptr_t)f;
}

/* Free what @f holds; it is already off the open list. */
static void file_free(struct ts_fs_file *f)
{
	if (f->dir)
		closedir(f->dir);
	else if (f->kind == TS_FS_FILE && f->fd >= 0)
		close(f->fd);
	free(f->buf);
	free(f->path);
	free(f);
}

void ts_fs_file_release(struct ts_fs *fs, struct ts_fs_file *f)
{
	pthread_mutex_lock(&fs->open_lock);
	if (f->open_prev)
		f->open_prev->open_next = f->open_next;
	else
		fs->open_files = f->open_next;
	if (f->open_next)
		f->open_next->open_prev = f->open_prev;
	pthread_mutex_unlock(&fs->open_lock);
	file_free(f);
}

void ts_fs_files_free(struct ts_fs *fs)
{
	pthread_mutex_lock(&fs->open_lock);
	struct ts_fs_file *f = fs->open_files;
	fs->open_files = NULL;
	pthread_mutex_unlock(&fs->open_lock);
	while (f) {
		struct ts_fs_file *next = f->open_next;
		file_free(f);
		f = next;
	}
}

static void pt_destroy(void *data)
{
	(void)data;
}

const struct fuse_operations ts_fs_fuse_ops = {
	.init = pt_init,
	.destroy = pt_destroy,
	.getattr = pt_getattr,
	.access = pt_access,
	.readlink = pt_readlink,
	.mknod = pt_mknod,
	.mkdir = pt_mkdir,
	.unlink = pt_unlink,
	.rmdir = pt_rmdir,
	.symlink = pt_symlink,
	.rename = pt_rename,
	.link = pt_link,
	.chmod = pt_chmod,
	.chown = pt_chown,
	.truncate = pt_truncate,
	.utimens = pt_utimens,
	.open = pt_open,
	.create = pt_create,
	.read_buf = pt_read_buf,
	.write_buf = pt_write_buf,
	.statfs = pt_statfs,
	.flush = pt_flush,
	.release = pt_release,
	.fsync = pt_fsync,
	.fallocate = pt_fallocate,
	.opendir = pt_opendir,
	.readdir = pt_readdir,
	.releasedir = pt_releasedir,
};
