/*
 * names.c — the kernel's attribute cache kept true for hard links.
 *
 * tierfs lets the kernel cache a file's attributes for attr_timeout (1 s by
 * default, tierfs.c), as a kernel file system keeps its inodes: a stat()
 * within that time is answered without a FUSE round trip. The kernel
 * updates or drops what it holds of the inode an op came through (the
 * attributes a setattr returns, the size a write extends, the link count
 * an unlink drops, the folders a name is made or removed in). What it
 * cannot know: libfuse's high-level API gives each NAME its own kernel
 * inode, so the other names of a hard-linked file keep the link count,
 * size, times and mode they had, although the backing inode changed. So
 * every name of a file with more than one link is remembered here when the
 * kernel looks it up (getattr) or makes it (link), and an op that changes
 * such a file's attributes (unlink, link, rename, write, truncate, chmod,
 * chown, utimens, fallocate, an open with O_TRUNC) invalidates its other
 * names (fuse_invalidate_path); their next stat() fetches them again.
 *
 * fuse_invalidate_path() also drops the name's kernel pages, and that waits
 * for each page's lock (a read in flight holds it) and writeback. So the
 * calls are made on a thread of their own. The op waits for them before it
 * replies (the application sees the change on every name once its call
 * returns) when that cannot deadlock: when other worker threads can serve
 * the reads an invalidation waits on (not with -s or max_threads=1), when
 * the op holds no pages of the file itself (its handle is not kernel-cached)
 * and when none of the names is (cached=, or any file with kernel_cache=:
 * no dirty pages behind a truncate's hold on writeback). Otherwise the op replies at once and the
 * names are invalidated a moment later.
 *
 * Files changed in BACKING behind the mount, as under any FUSE file system
 * with cached attributes, show the change within attr_timeout.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>

#include "fs/daemon.h"

struct name {
	uint64_t ino;
	char *path;
	struct name *next;
};

struct ts_fs_names {
	pthread_mutex_t lock; /* the table and the queue */
	struct name **bucket;
	size_t nbucket, count; /* count: read unlocked as a hint (relaxed) */
	/* the invalidation thread's queue of paths */
	pthread_cond_t wake, done;
	char **queue;
	size_t nqueue, cap_queue;
	uint64_t queued, finished; /* paths queued and invalidated, ever */
	pthread_t thread;
	bool started, stop;
	bool wait_ok; /* more than one worker thread */
};

static size_t slot(const struct ts_fs_names *n, uint64_t ino)
{
	return (size_t)((ino * 0x9E3779B97F4A7C15ULL) >> 32) & (n->nbucket - 1);
}

static bool is_under(const char *path, const char *dir)
{
	size_t k = strlen(dir);
	return strncmp(path, dir, k) == 0 && path[k] == '/';
}

/* Doubles the buckets once there are as many names as buckets. */
static void grow(struct ts_fs_names *n)
{
	size_t nb = n->nbucket * 2;
	struct name **b = calloc(nb, sizeof(*b));
	if (!b)
		return; /* longer chains, still right */
	struct name **old = n->bucket;
	size_t on = n->nbucket;
	n->bucket = b;
	n->nbucket = nb;
	for (size_t i = 0; i < on; i++)
		for (struct name *e = old[i], *next; e; e = next) {
			next = e->next;
			size_t s = slot(n, e->ino);
			e->next = b[s];
			b[s] = e;
		}
	free(old);
}

/* Under the lock. */
static void add(struct ts_fs_names *n, uint64_t ino, const char *path)
{
	size_t s = slot(n, ino);
	for (struct name *e = n->bucket[s]; e; e = e->next)
		if (e->ino == ino && strcmp(e->path, path) == 0)
			return;
	struct name *e = malloc(sizeof(*e));
	if (!e || !(e->path = strdup(path))) {
		free(e);
		return;
	}
	e->ino = ino;
	e->next = n->bucket[s];
	n->bucket[s] = e;
	__atomic_store_n(&n->count, n->count + 1, __ATOMIC_RELAXED);
	if (n->count > n->nbucket)
		grow(n);
}

static void drop(struct ts_fs_names *n, struct name **link)
{
	struct name *e = *link;
	*link = e->next;
	free(e->path);
	free(e);
	__atomic_store_n(&n->count, n->count - 1, __ATOMIC_RELAXED);
}

static void *inval_main(void *arg)
{
	struct ts_fs *fs = arg;
	struct ts_fs_names *n = fs->names;

	pthread_mutex_lock(&n->lock);
	for (;;) {
		while (!n->stop && n->nqueue == 0)
			pthread_cond_wait(&n->wake, &n->lock);
		if (n->stop)
			break;
		char *path = n->queue[0];
		memmove(n->queue, n->queue + 1, --n->nqueue * sizeof(*n->queue));
		pthread_mutex_unlock(&n->lock);
		int rc = fuse_invalidate_path(fs->fuse, path);
		if (rc == 0)
			__atomic_add_fetch(&fs->attr_invalidations, 1, __ATOMIC_RELAXED);
		/* -ENOENT: neither libfuse nor the kernel holds the name (never
		 * looked up, or forgotten); -ENOTCONN/-ENODEV: unmounted. */
		if (rc && rc != -ENOENT && rc != -ENOTCONN && rc != -ENODEV)
			ts_fs_log(fs, LOG_WARNING,
				  "tierfs: warning: cannot drop the kernel's attributes of %s: %s",
				  path, strerror(-rc));
		free(path);
		pthread_mutex_lock(&n->lock);
		n->finished++;
		pthread_cond_broadcast(&n->done);
	}
	pthread_mutex_unlock(&n->lock);
	return NULL;
}

int ts_fs_names_start(struct ts_fs *fs, bool wait_ok)
{
	struct ts_fs_names *n = calloc(1, sizeof(*n));

	if (!n || !(n->bucket = calloc(64, sizeof(*n->bucket)))) {
		free(n);
		return -ENOMEM;
	}
	n->nbucket = 64;
	n->wait_ok = wait_ok;
	pthread_mutex_init(&n->lock, NULL);
	pthread_cond_init(&n->wake, NULL);
	pthread_cond_init(&n->done, NULL);
	fs->names = n;
	if (pthread_create(&n->thread, NULL, inval_main, fs)) {
		fs->names = NULL;
		free(n->bucket);
		free(n);
		return -EAGAIN;
	}
	n->started = true;
	return 0;
}

void ts_fs_names_stop(struct ts_fs *fs)
{
	struct ts_fs_names *n = fs->names;

	if (!n)
		return;
	pthread_mutex_lock(&n->lock);
	n->stop = true;
	pthread_cond_broadcast(&n->wake);
	pthread_cond_broadcast(&n->done);
	pthread_mutex_unlock(&n->lock);
	if (n->started)
		pthread_join(n->thread, NULL);
	for (size_t i = 0; i < n->nbucket; i++)
		while (n->bucket[i])
			drop(n, &n->bucket[i]);
	for (size_t i = 0; i < n->nqueue; i++)
		free(n->queue[i]);
	free(n->queue);
	free(n->bucket);
	pthread_cond_destroy(&n->wake);
	pthread_cond_destroy(&n->done);
	pthread_mutex_destroy(&n->lock);
	fs->names = NULL;
	free(n);
}

void ts_fs_names_seen(struct ts_fs *fs, const char *path, const struct stat *st)
{
	struct ts_fs_names *n = fs->names;

	if (!n || !path || S_ISDIR(st->st_mode) || st->st_nlink < 2)
		return;
	pthread_mutex_lock(&n->lock);
	add(n, (uint64_t)st->st_ino, path);
	pthread_mutex_unlock(&n->lock);
}

bool ts_fs_names_any(const struct ts_fs *fs)
{
	return fs->names && __atomic_load_n(&fs->names->count, __ATOMIC_RELAXED) > 0;
}

void ts_fs_names_gone(struct ts_fs *fs, uint64_t ino, const char *path)
{
	struct ts_fs_names *n = fs->names;

	if (!ts_fs_names_any(fs))
		return;
	pthread_mutex_lock(&n->lock);
	for (struct name **l = &n->bucket[slot(n, ino)]; *l;) {
		if ((*l)->ino == ino && strcmp((*l)->path, path) == 0)
			drop(n, l);
		else
			l = &(*l)->next;
	}
	pthread_mutex_unlock(&n->lock);
}

/* @path renamed: to @to if it is @from or under it (a folder moved). */
static char *moved(const char *path, const char *from, const char *to)
{
	char *out = NULL;
	if (strcmp(path, from) == 0)
		return strdup(to);
	if (is_under(path, from) && asprintf(&out, "%s%s", to, path + strlen(from)) < 0)
		return NULL;
	return out;
}

void ts_fs_names_renamed(struct ts_fs *fs, const char *from, const char *to, bool exchange)
{
	struct ts_fs_names *n = fs->names;

	if (!ts_fs_names_any(fs))
		return;
	pthread_mutex_lock(&n->lock);
	for (size_t i = 0; i < n->nbucket; i++) {
		for (struct name **l = &n->bucket[i]; *l;) {
			struct name *e = *l;
			bool was_from = strcmp(e->path, from) == 0 || is_under(e->path, from);
			bool was_to = strcmp(e->path, to) == 0 || is_under(e->path, to);
			char *p = NULL;
			if (was_from)
				p = moved(e->path, from, to);
			else if (was_to && exchange)
				p = moved(e->path, to, from);
			else if (was_to) { /* replaced */
				drop(n, l);
				continue;
			}
			if (p) {
				free(e->path);
				e->path = p;
			} else if (was_from || was_to) { /* out of memory: forget it */
				drop(n, l);
				continue;
			}
			l = &e->next;
		}
	}
	pthread_mutex_unlock(&n->lock);
}

void ts_fs_names_changed(struct ts_fs *fs, uint64_t ino, const char *except, bool holds_pages)
{
	struct ts_fs_names *n = fs->names;

	if (!ts_fs_names_any(fs))
		return;
	pthread_mutex_lock(&n->lock);
	bool any_cached = false;
	for (struct name *e = n->bucket[slot(n, ino)]; e; e = e->next) {
		if (e->ino != ino || (except && strcmp(e->path, except) == 0))
			continue;
		if (n->nqueue == n->cap_queue) {
			size_t cap = n->cap_queue ? 2 * n->cap_queue : 16;
			char **q = realloc(n->queue, cap * sizeof(*q));
			if (!q)
				break;
			n->queue = q;
			n->cap_queue = cap;
		}
		char *p = strdup(e->path);
		if (!p)
			break;
		any_cached = any_cached || ts_fs_may_cache(fs, p);
		n->queue[n->nqueue++] = p;
		n->queued++;
	}
	uint64_t ticket = n->queued;
	pthread_cond_signal(&n->wake);
	if (n->wait_ok && !holds_pages && !any_cached)
		while (!n->stop && n->finished < ticket)
			pthread_cond_wait(&n->done, &n->lock);
	pthread_mutex_unlock(&n->lock);
}
