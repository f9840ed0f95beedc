/*
 * real.c — replay in real time against a directory (a tierfs mount or any
 * other): one thread per trace thread issues each op as the syscall the
 * recording saw, when the rules of rules.c say (replay.h); the workers
 * share the replayed ends and issues the join rule reads. setup() first
 * creates the files the trace reads, sized from the trace.
 */
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/files.h"
#include "core/units.h"
#include "traces/replay/replay_int.h"

static bool writes(unsigned op)
{
	switch (op) {
	case TS_OP_WRITE:
	case TS_OP_CREATE:
	case TS_OP_UNLINK:
	case TS_OP_RENAME:
	case TS_OP_TRUNCATE:
	case TS_OP_FALLOCATE:
	case TS_OP_MKDIR:
	case TS_OP_RMDIR:
	case TS_OP_SYMLINK:
	case TS_OP_LINK:
	case TS_OP_MKNOD:
	case TS_OP_CHMOD:
	case TS_OP_CHOWN:
	case TS_OP_UTIMENS:
		return true;
	}
	return false;
}

/* Largest byte any data op touches, per file: the size the real-time setup
 * makes it. */
static uint64_t *file_sizes(const struct ts_trace *t)
{
	uint64_t *sz = calloc((size_t)t->npaths + 1, sizeof(*sz));
	if (!sz)
		return NULL;
	for (size_t i = 0; i < t->nrecs; i++) {
		const struct ts_trace_rec *r = &t->recs[i];
		if (replay_lat_class(r->op) == TS_REPLAY_OTHER || r->file_id >= t->npaths)
			continue;
		uint64_t end = r->offset + r->length;
		if (end < r->offset)
			end = UINT64_MAX;
		sz[r->file_id] = TS_MAX(sz[r->file_id], end);
	}
	return sz;
}

/* DIR + trace path, refusing paths that climb out of DIR. */
static int join(char *buf, size_t n, const char *dir, const char *path)
{
	const char *p = path;
	while (*p) {
		while (*p == '/')
			p++;
		size_t l = strcspn(p, "/");
		if (l == 2 && p[0] == '.' && p[1] == '.')
			return -EPERM;
		p += l;
	}
	if ((size_t)snprintf(buf, n, "%s/%s", dir, path[0] == '/' ? path + 1 : path) >= n)
		return -ENAMETOOLONG;
	return 0;
}

/* The folders above @path (mkdir -p of its parent). */
static int mkdir_parent(const char *path)
{
	char dir[PATH_MAX];
	snprintf(dir, sizeof(dir), "%s", path);
	char *slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return 0;
	*slash = 0;
	return ts_mkdir_p(dir, 0755, NULL, 0);
}

/* What setup() has to make: per path id, 1 = the trace creates it, 2 = it
 * does not, 3 = missing or short here; and how much. */
struct needs {
	uint64_t *sizes; /* per path id: the bytes the trace touches */
	uint8_t *mark;
	uint64_t files, bytes, done_files, done_bytes;
	uint64_t last; /* the last progress line */
};

/* Marks the files the trace reads (those it does not create itself first)
 * that are missing or too short under the target; without allow_writes
 * the first one is refused. */
static int survey(const struct ts_trace *t, const struct ts_replay_cfg *cfg, struct needs *nd,
		  char *err, size_t errlen)
{
	char path[PATH_MAX];
	int ret;

	for (size_t i = 0; i < t->nrecs; i++) { /* first touch by create? */
		const struct ts_trace_rec *r = &t->recs[i];
		if (r->file_id < t->npaths && !nd->mark[r->file_id])
			nd->mark[r->file_id] = r->op == TS_OP_CREATE ? 1 : 2;
	}
	for (uint32_t f = 1; f < t->npaths; f++) {
		if (!nd->sizes[f] || nd->mark[f] == 1)
			continue;
		if ((ret = join(path, sizeof(path), cfg->target, ts_trace_path(t, f)))) {
			snprintf(err, errlen, "trace path \"%s\": %s", ts_trace_path(t, f),
				 ret == -EPERM ? "leaves the target directory" : ts_strerror(ret));
			return ret;
		}
		struct stat st;
		bool found = !stat(path, &st);
		if (found && (uint64_t)st.st_size >= nd->sizes[f])
			continue;
		if (!cfg->allow_writes) {
			char b[32];
			snprintf(err, errlen,
				 "%s: %s (the trace reads %s of it); rerun with --allow-writes to "
				 "create the files the trace needs",
				 path, found ? "too short" : "missing",
				 ts_fmt_size(b, sizeof(b), nd->sizes[f]));
			return -EPERM;
		}
		nd->mark[f] = 3;
		nd->files++;
		nd->bytes += nd->sizes[f];
	}
	return 0;
}

/* Creates or extends @path to @size bytes: sparse, or with @buf's bytes
 * (1 MiB) when filling. */
static int make_file(const char *path, uint64_t size, const char *buf,
		     const struct ts_replay_cfg *cfg, struct needs *nd)
{
	struct stat st;
	int ret, fd = -1;

	if ((ret = mkdir_parent(path)) || (fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644)) < 0)
		return ret ? ret : -errno;
	uint64_t off = fstat(fd, &st) ? 0 : (uint64_t)st.st_size;
	while (buf && off < size) {
		size_t n = (size_t)TS_MIN(TS_MiB, size - off);
		if ((ret = ts_pwrite_all(fd, buf, n, (off_t)off)))
			break;
		off += n;
		nd->done_bytes += n;
		if (cfg->progress && ts_now_ns() - nd->last > TS_NS_PER_S / 2) {
			nd->last = ts_now_ns();
			char b1[32], b2[32];
			fprintf(cfg->progress, "setup: %" PRIu64 "/%" PRIu64 " files, %s of %s\n",
				nd->done_files, nd->files, ts_fmt_size(b1, 32, nd->done_bytes),
				ts_fmt_size(b2, 32, nd->bytes));
		}
	}
	if (!ret && ftruncate(fd, (off_t)size))
		ret = -errno;
	if (close(fd) && !ret)
		ret = -errno;
	return ret;
}

/* Creates or extends the files the trace reads (those it does not create
 * itself first), sized from the trace. */
static int setup(const struct ts_trace *t, const struct ts_replay_cfg *cfg, char *err,
		 size_t errlen)
{
	struct needs nd = {.sizes = file_sizes(t), .mark = calloc((size_t)t->npaths + 1, 1)};
	char path[PATH_MAX];
	char *buf = NULL;
	int ret;

	if (!nd.sizes || !nd.mark || (cfg->fill && !(buf = malloc(TS_MiB)))) {
		ret = -ENOMEM;
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	if ((ret = survey(t, cfg, &nd, err, errlen)) || !nd.files)
		goto out;
	if (buf)
		for (size_t i = 0; i < TS_MiB; i++)
			buf[i] = (char)(i * 2654435761u >> 24);
	nd.last = ts_now_ns();
	for (uint32_t f = 1; f < t->npaths; f++) {
		if (nd.mark[f] != 3)
			continue;
		(void)join(path, sizeof(path), cfg->target, ts_trace_path(t, f)); /* survey() checked it */
		if ((ret = make_file(path, nd.sizes[f], buf, cfg, &nd))) {
			snprintf(err, errlen, "%s: %s", path, ts_strerror(ret));
			goto out;
		}
		nd.done_files++;
	}
	if (cfg->progress) {
		char b[32];
		fprintf(cfg->progress, "setup: created %" PRIu64 " files (%s, %s) under %s\n",
			nd.done_files, ts_fmt_size(b, 32, nd.bytes), cfg->fill ? "filled" : "sparse",
			cfg->target);
	}
out:
	free(nd.sizes);
	free(nd.mark);
	free(buf);
	return ret;
}

/* What the real-time workers share for the join rule. */
struct joins {
	const struct rthreads *ps;
	uint64_t *ended;  /* replayed end per thread (real clock), 0 = running */
	uint64_t *issued; /* replayed issue per record, 0 = not yet */
	uint64_t *completed; /* replayed completion per record: each thread
			      * writes and reads its own (the in-flight rule) */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned waiting; /* threads in cond_wait */
};

struct worker {
	const struct ts_trace *t;
	const struct ts_replay_cfg *cfg;
	struct joins *j;
	const struct rthread *p;
	uint64_t t0, base;
	double speed;
	struct ts_replay_result res; /* this thread's part */
	uint64_t end;
	int *fd; /* per file id, -1 = closed */
	char *buf;
	size_t buflen;
	pthread_t th;
};

static int fd_of(struct worker *w, uint32_t id, int *out)
{
	char path[PATH_MAX];
	if (id >= w->t->npaths || !id)
		return -EBADF;
	if (w->fd[id] >= 0) {
		*out = w->fd[id];
		return 0;
	}
	int r = join(path, sizeof(path), w->cfg->target, ts_trace_path(w->t, id));
	if (r)
		return r;
	int fd = open(path, (w->cfg->allow_writes ? O_RDWR : O_RDONLY) | O_CLOEXEC);
	if (fd < 0 && errno == EISDIR)
		fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	*out = w->fd[id] = fd;
	return 0;
}

#define HELD INT64_MIN /* not reissued: the trace lacks what the syscall needs */

/* An op on a path of the trace, as a syscall (do_op() below). */
static int64_t path_op(struct worker *w, const struct ts_trace_rec *r)
{
	char path[PATH_MAX], path2[PATH_MAX];
	int fd, e;

	if ((e = join(path, sizeof(path), w->cfg->target, ts_trace_path(w->t, r->file_id))))
		return e;
	switch (r->op) {
	case TS_OP_GETATTR: {
		struct stat st;
		return stat(path, &st) ? -errno : 0;
	}
	case TS_OP_ACCESS:
		return access(path, F_OK) ? -errno : 0;
	case TS_OP_STATFS: {
		struct statvfs sv;
		return statvfs(path, &sv) ? -errno : 0;
	}
	case TS_OP_READLINK:
		return readlink(path, path2, sizeof(path2)) < 0 ? -errno : 0;
	case TS_OP_OPENDIR:
		fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		close(fd);
		return 0;
	case TS_OP_READDIR: {
		DIR *d = opendir(path);
		if (!d)
			return -errno;
		while (readdir(d))
			continue;
		closedir(d);
		return 0;
	}
	case TS_OP_CREATE:
		fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
		if (fd < 0)
			return -errno;
		if (r->file_id < w->t->npaths) {
			if (w->fd[r->file_id] >= 0)
				close(w->fd[r->file_id]);
			w->fd[r->file_id] = fd;
		} else {
			close(fd);
		}
		return 0;
	case TS_OP_UNLINK:
		return unlink(path) ? -errno : 0;
	case TS_OP_MKDIR:
		return mkdir(path, 0755) ? -errno : 0;
	case TS_OP_RMDIR:
		return rmdir(path) ? -errno : 0;
	case TS_OP_TRUNCATE:
		return truncate(path, (off_t)r->offset) ? -errno : 0;
	case TS_OP_RENAME:
	case TS_OP_LINK:
		if (!r->aux)
			break;
		if ((e = join(path2, sizeof(path2), w->cfg->target, ts_trace_path(w->t, r->aux))))
			return e;
		if (r->op == TS_OP_RENAME)
			return rename(path, path2) ? -errno : 0;
		return link(path, path2) ? -errno : 0;
	}
	/* symlink, link, mknod, chmod, chown, utimens: the trace has no
	 * target, mode, owner or times to reissue them with */
	return HELD;
}

/* One op, as a syscall; returns bytes or 0, -errno, or HELD. */
static int64_t do_op(struct worker *w, const struct ts_trace_rec *r)
{
	int fd, e;
	int64_t n = 0;

	switch (r->op) {
	case TS_OP_READ:
	case TS_OP_MMAP_READ:
	case TS_OP_WRITE:
		if ((e = fd_of(w, r->file_id, &fd)))
			return e;
		while ((uint64_t)n < r->length) {
			size_t len = (size_t)TS_MIN((uint64_t)w->buflen, r->length - (uint64_t)n);
			ssize_t k = r->op == TS_OP_WRITE
					? pwrite(fd, w->buf, len, (off_t)(r->offset + (uint64_t)n))
					: pread(fd, w->buf, len, (off_t)(r->offset + (uint64_t)n));
			if (k < 0)
				return -errno;
			if (k == 0)
				break;
			n += k;
		}
		return n;
	case TS_OP_OPEN:
		return fd_of(w, r->file_id, &fd);
	case TS_OP_FLUSH:
	case TS_OP_RELEASEDIR:
		return 0; /* nothing reaches the filesystem but a round trip */
	case TS_OP_CLOSE:
		if (r->file_id < w->t->npaths && w->fd[r->file_id] >= 0) {
			close(w->fd[r->file_id]);
			w->fd[r->file_id] = -1;
		}
		return 0;
	case TS_OP_FSYNC:
	case TS_OP_FDATASYNC:
		if ((e = fd_of(w, r->file_id, &fd)))
			return e;
		return (r->op == TS_OP_FSYNC ? fsync(fd) : fdatasync(fd)) ? -errno : 0;
	case TS_OP_FALLOCATE:
		if ((e = fd_of(w, r->file_id, &fd)))
			return e;
		return fallocate(fd, (int)r->aux, (off_t)r->offset, (off_t)r->length) ? -errno : 0;
	default:
		return path_op(w, r);
	}
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct cursor c;

	/* sleeps end on time, not up to 50 us late (the default slack) */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	replay_cursor_start(&c, w->p, w->t, w->t0, w->base, w->speed);
	c.completed = w->j->completed;
	do {
		const struct ts_trace_rec *r = &w->t->recs[c.p->idx[c.i]];
		uint64_t own = c.next_issue;
		pthread_mutex_lock(&w->j->lock);
		while (c.next_issue = own,
		       !replay_schedule(w->j->ps, w->t, &c, w->j->ended, w->j->issued, NULL, w->cfg, w->speed)) {
			w->j->waiting++;
			pthread_cond_wait(&w->j->cond, &w->j->lock);
			w->j->waiting--;
		}
		pthread_mutex_unlock(&w->j->lock);
		ts_sleep_until_ns(c.next_issue);
		uint64_t s = ts_now_ns();
		pthread_mutex_lock(&w->j->lock);
		w->j->issued[c.p->idx[c.i]] = s;
		if (w->j->waiting)
			pthread_cond_broadcast(&w->j->cond);
		pthread_mutex_unlock(&w->j->lock);
		int64_t got = do_op(w, r);
		if (got == HELD) { /* keep its place in time, as recorded */
			ts_sleep_until_ns(s +
					  (TS_MAX(r->complete_ns, r->submit_ns) - r->submit_ns));
			w->res.held++;
			got = r->result < 0 ? r->result : 0;
		}
		uint64_t done = ts_now_ns();
		/* an op that failed although the recording succeeded (or the
		 * other way round) is a replay error */
		if ((got < 0) != (r->result < 0))
			w->res.errors++;
		replay_result_add(&w->res, r->op, done - s, got > 0 ? (uint64_t)got : 0);
		w->end = TS_MAX(w->end, done);
		w->j->completed[c.p->idx[c.i]] = done;
		if (!replay_cursor_advance(&c, w->t, s, done, w->cfg, w->speed))
			break;
	} while (1);
	w->res.think_ns = c.think_ns;
	w->res.waited_ns = c.waited_ns;
	pthread_mutex_lock(&w->j->lock);
	w->j->ended[w->p - w->j->ps->p] = TS_MAX(c.done_max, 1);
	pthread_cond_broadcast(&w->j->cond);
	pthread_mutex_unlock(&w->j->lock);
	return NULL;
}

/* A target that is an existing directory; a trace with writes only when
 * they are allowed. */
static int check_target(const struct ts_trace *t, const struct ts_replay_cfg *cfg, char *err,
			size_t errlen)
{
	struct stat tst;
	if (stat(cfg->target, &tst) || !S_ISDIR(tst.st_mode)) {
		/* Never create it: a mistyped mount point would replay onto
		 * whatever disk holds its parent, and report that as measured. */
		int ret = stat(cfg->target, &tst) ? -errno : -ENOTDIR;
		snprintf(err, errlen, "--target %s: %s (give an existing directory, e.g. a "
				      "tierfs mount)", cfg->target, ts_strerror(ret));
		return ret;
	}
	for (size_t i = 0; !cfg->allow_writes && i < t->nrecs; i++) {
		if (writes(t->recs[i].op)) {
			snprintf(err, errlen,
				 "the trace has %s ops (the first at record %zu, on %s); "
				 "replaying them writes into %s: rerun with --allow-writes",
				 ts_trace_op_name(t->recs[i].op), i,
				 ts_trace_path(t, t->recs[i].file_id), cfg->target);
			return -EPERM;
		}
	}
	return 0;
}

/* Worker @w for thread @p, starting at @base: its file table and a buffer
 * for the largest transfer (@buflen). */
static int worker_init(struct worker *w, const struct rthread *p, struct joins *j,
		       const struct ts_trace *t, const struct ts_replay_cfg *cfg, uint64_t base,
		       size_t buflen)
{
	*w = (struct worker){.t = t,
			     .cfg = cfg,
			     .j = j,
			     .p = p,
			     .t0 = j->ps->t0,
			     .base = base,
			     .speed = cfg->speed > 0 ? cfg->speed : 1.0,
			     .buflen = buflen};
	replay_result_init(&w->res, "");
	w->fd = malloc(((size_t)t->npaths + 1) * sizeof(int));
	for (uint32_t f = 0; w->fd && f <= t->npaths; f++)
		w->fd[f] = -1;
	w->buf = aligned_alloc(4096, buflen);
	if (!w->fd || !w->buf)
		return -ENOMEM;
	memset(w->buf, 0x5a, buflen);
	return 0;
}

/* Waits for the @n workers started and adds their parts into @res; the
 * last completion, at least @base. */
static uint64_t workers_join(struct worker *w, size_t n, struct ts_replay_result *res,
			     uint64_t base)
{
	uint64_t end = base;
	for (size_t k = 0; k < n; k++) {
		pthread_join(w[k].th, NULL);
		struct ts_replay_result *r = &w[k].res;
		res->ops += r->ops;
		res->bytes += r->bytes;
		res->io_ns += r->io_ns;
		res->think_ns += r->think_ns;
		res->waited_ns += r->waited_ns;
		res->errors += r->errors;
		res->held += r->held;
		for (unsigned i = 0; i < TS_ARRAY_SIZE(res->lat); i++)
			ts_hist_merge(&res->lat[i], &r->lat[i]);
		end = TS_MAX(end, w[k].end);
	}
	return end;
}

int ts_replay_real(const struct ts_trace *t, const struct ts_replay_cfg *cfg,
		   struct ts_replay_result *res, char *err, size_t errlen)
{
	struct rthreads ps;
	struct worker *w = NULL;
	size_t started = 0;
	int ret;

	replay_result_init(res, cfg->target);
	if ((ret = check_target(t, cfg, err, errlen)) || (ret = setup(t, cfg, err, errlen)))
		return ret;
	if ((ret = replay_rthreads_build(t, &ps))) {
		snprintf(err, errlen, "out of memory");
		return ret;
	}
	uint64_t maxlen = 4096;
	for (size_t i = 0; i < t->nrecs; i++)
		if (replay_lat_class(t->recs[i].op) != TS_REPLAY_OTHER)
			maxlen = TS_MAX(maxlen, t->recs[i].length);
	maxlen = TS_MIN(maxlen, 16 * TS_MiB);
	struct joins j = {.ps = &ps};
	pthread_mutex_init(&j.lock, NULL);
	pthread_cond_init(&j.cond, NULL);
	w = calloc(ps.n ? ps.n : 1, sizeof(*w));
	j.ended = calloc(ps.n ? ps.n : 1, sizeof(*j.ended));
	j.issued = calloc(t->nrecs ? t->nrecs : 1, sizeof(*j.issued));
	j.completed = calloc(t->nrecs ? t->nrecs : 1, sizeof(*j.completed));
	if (!w || !j.ended || !j.issued || !j.completed) {
		ret = -ENOMEM;
		goto out;
	}
	/* Start everyone 20 ms from now: thread creation stays out of the run. */
	uint64_t base = ts_now_ns() + 20 * TS_NS_PER_MS;
	for (size_t k = 0; k < ps.n && !ret; k++)
		ret = worker_init(&w[k], &ps.p[k], &j, t, cfg, base, (size_t)maxlen);
	if (ret)
		goto out;
	for (; started < ps.n; started++) {
		if ((ret = -pthread_create(&w[started].th, NULL, worker_main, &w[started])))
			break;
	}
	if (ret) { /* the threads that never started end now for the others */
		pthread_mutex_lock(&j.lock);
		for (size_t k = started; k < ps.n; k++) {
			j.ended[k] = 1;
			for (size_t i = 0; i < ps.p[k].n; i++)
				j.issued[ps.p[k].idx[i]] = 1;
		}
		pthread_cond_broadcast(&j.cond);
		pthread_mutex_unlock(&j.lock);
	}
	uint64_t end = workers_join(w, started, res, base);
	if (ret)
		snprintf(err, errlen, "starting a replay thread: %s", ts_strerror(ret));
	/* from the first issue: the earliest thread starts at base */
	res->total_ns = end - base;
out:
	if (ret == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	for (size_t k = 0; w && k < ps.n; k++) {
		for (uint32_t f = 0; w[k].fd && f <= t->npaths; f++)
			if (w[k].fd[f] >= 0)
				close(w[k].fd[f]);
		free(w[k].fd);
		free(w[k].buf);
	}
	free(w);
	free(j.ended);
	free(j.issued);
	free(j.completed);
	pthread_mutex_destroy(&j.lock);
	pthread_cond_destroy(&j.cond);
	replay_rthreads_free(&ps);
	return ret;
}
