/* jobenv.c — the services a job uses (job.h): the dataset placed or
 * generated, the tier mounted through tierfs or modeled in virtual time,
 * the daemon's counters, the engine, the row's step figures, progress. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/files.h"
#include "core/interrupt.h"
#include "scenario/job.h"
#include "pipeline/vtier.h"
#include "tier/fsmeta.h"
#include "disk/cgroup.h"
#include "disk/disk.h"
#include "tier/stats_keys.h"
#include "tier/tier.h"
#include "core/units.h"

/* ---- Progress ------------------------------------------------------------ */

void ts_job_progress(struct ts_job_env *env, const char *what, uint64_t done, uint64_t total,
			double sps, double elapsed_s)
{
	if (!env->progress_tty)
		return;
	uint64_t now = ts_now_ns();
	if (done < total && now - env->progress_ns < 100 * TS_NS_PER_MS)
		return; /* ten updates a second are plenty */
	env->progress_ns = now;
	static const char *const spin = "|/-\\";
	double pct = total ? 100.0 * (double)done / (double)total : 0;
	double eta = done && total > done ? elapsed_s * (double)(total - done) / (double)done : 0;
	fprintf(stderr, "\r\033[K%c %s  %5.1f%%  %9.1f samples/s  ETA %5.0f s", spin[done % 4],
		what, pct, sps, eta);
	fflush(stderr);
}

void ts_job_progress_end(struct ts_job_env *env)
{
	if (env->progress_tty) {
		fprintf(stderr, "\r\033[K");
		fflush(stderr);
	}
}

/* One quiet line per configuration when stderr is not a terminal. */
void ts_job_note(struct ts_job_env *env, const char *fmt, ...)
{
	if (env->quiet)
		return;
	va_list ap;
	va_start(ap, fmt);
	if (env->progress_tty)
		fprintf(stderr, "\r\033[K");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/* ---- Datasets ------------------------------------------------------------ */

/* Where the dataset lives, generating it on first use. Generated datasets
 * are kept under the work directory, keyed by kind, count and seed, so
 * every configuration and every later run reads the same bytes. */
/* Generates a dataset in a child process, so that Ctrl-C stops a long
 * generation at once: the child is killed and its partial output removed
 * by the caller. The child's one-line error comes back through a pipe. */
static int make_dataset(const struct ts_dataset_ops *kind, const struct ts_dataset_config *gc,
			const char *dir, char *err, size_t errlen)
{
	int fds[2];
	if (pipe2(fds, O_CLOEXEC))
		return -errno;
	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		close(fds[0]);
		close(fds[1]);
		return -e;
	}
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(1);
		signal(SIGINT, SIG_IGN); /* the parent decides */
		signal(SIGTERM, SIG_DFL);
		close(fds[0]);
		char msg[1024] = "";
		struct ts_dataset_stats st;
		int rc = ts_dataset_make(kind, gc, dir, &st, msg, sizeof(msg));
		if (rc) {
			if (!msg[0])
				snprintf(msg, sizeof(msg), "generating %.900s: %s", dir, ts_strerror(rc));
			ssize_t w = write(fds[1], msg, strlen(msg));
			(void)w;
		}
		_exit(rc ? 1 : 0);
	}
	close(fds[1]);
	int st = 0, rc = 0;
	for (;;) {
		pid_t r = waitpid(pid, &st, WNOHANG);
		if (r == pid)
			break;
		if (r < 0 && errno != EINTR) {
			rc = -errno;
			break;
		}
		if (ts_interrupted) {
			kill(pid, SIGKILL);
			while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
				;
			rc = -EINTR;
			break;
		}
		struct timespec ts = { 0, 50 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
	if (!rc && !(WIFEXITED(st) && WEXITSTATUS(st) == 0)) {
		ssize_t n = read(fds[0], err, errlen - 1);
		err[n > 0 ? n : 0] = 0;
		if (!err[0])
			snprintf(err, errlen, "generating %s failed (%s %d)", dir,
				 WIFEXITED(st) ? "exit" : "signal",
				 WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
		rc = -EIO;
	}
	close(fds[0]);
	return rc;
}

/*
 * Why one long function: one sequence for placing a dataset (a given folder,
 * or one generated into a temporary name, written back and renamed), each
 * step's failure said once and cleaned up before the return.
 */
int ts_job_place(struct ts_job_env *env, const struct ts_scenario *s,
		     struct ts_dataset_place *dp, bool need_bytes, char *err, size_t errlen)
{
	memset(dp, 0, sizeof(*dp));
	const struct ts_scn_dataset *d = &s->ds;
	int rc;
	if (d->dir && *d->dir) {
		if (!d->source || !*d->source) {
			snprintf(err, errlen, "dataset{dir=%s}: also give source = folder, rec, lmdb "
					      "or text", d->dir);
			return TS_E_PARSE;
		}
		char real[PATH_MAX];
		if (!realpath(d->dir, real)) {
			rc = -errno;
			snprintf(err, errlen, "dataset{dir=%s}: %s", d->dir, strerror(errno));
			return rc;
		}
		struct stat st;
		if (stat(real, &st)) {
			snprintf(err, errlen, "dataset{dir=%s}: %s", d->dir, strerror(errno));
			return -errno;
		}
		/* A file (a .rec) is read through a mount of its directory. */
		snprintf(dp->dir, sizeof(dp->dir), "%s", real);
		if (S_ISDIR(st.st_mode)) {
			snprintf(dp->backing, sizeof(dp->backing), "%s", real);
		} else {
			char *slash = strrchr(real, '/');
			snprintf(dp->input, sizeof(dp->input), "%s", slash + 1);
			*slash = 0;
			snprintf(dp->backing, sizeof(dp->backing), "%s", real[0] ? real : "/");
		}
		dp->source = d->source;
		return 0;
	}
	char why[256];
	if (!(dp->kind = ts_dataset_find(d->kind, why, sizeof(why)))) {
		snprintf(err, errlen, "dataset: %s", why);
		return TS_E_UNKNOWN;
	}
	dp->source = dp->kind->source->name;
	snprintf(dp->input, sizeof(dp->input), "%s", dp->kind->input);
	snprintf(dp->backing, sizeof(dp->backing), "%s", env->datadir);
	snprintf(dp->rel, sizeof(dp->rel), "datasets/%s-%llu-s%llu%s", d->kind,
		 (unsigned long long)d->count, (unsigned long long)d->seed,
		 s->ds.encoded ? "-enc" : "");
	if (ts_pathf(dp->dir, sizeof(dp->dir), "%s/%s", env->datadir, dp->rel)) {
		snprintf(err, errlen, "work directory %s: path too long", env->datadir);
		return -ENAMETOOLONG;
	}
	dp->generated = true;

	struct ts_dataset_config gc;
	memset(&gc, 0, sizeof(gc));
	if ((rc = ts_opt_defaults(ts_dataset_opts(), &gc, err, errlen)))
		return rc;
	gc.count = d->count;
	gc.seed = d->seed;
	if (s->ds.encoded &&
	    (rc = ts_opt_set(ts_dataset_opts(), &gc, "encoded", "true", err, errlen)))
		return rc;
	gc.progress = env->progress_tty;
	if (!need_bytes) { /* virtual time: sizes only, nothing written */
		rc = ts_dataset_meta_describe(dp->kind, &gc, &dp->meta, err, errlen);
		dp->have_meta = rc == 0;
		ts_opt_free(ts_dataset_opts(), &gc);
		return rc;
	}
	if (ts_dataset_open(dp->dir, &dp->meta, err, errlen) == 0) {
		dp->have_meta = true;
		ts_opt_free(ts_dataset_opts(), &gc);
		return 0;
	}
	/* Generate into a temporary name, then rename: an interrupted
	 * generation never passes for a complete dataset. */
	char tmp[PATH_MAX + 16];
	snprintf(tmp, sizeof(tmp), "%s.tmp-%d", dp->dir, (int)getpid());
	ts_remove_tree(tmp, 0);
	char parent[PATH_MAX];
	snprintf(parent, sizeof(parent), "%s/datasets", env->datadir);
	if ((rc = ts_mkdir_p(parent, 0755, NULL, 0))) {
		snprintf(err, errlen, "cannot create %s: %s", parent, ts_strerror(rc));
		ts_opt_free(ts_dataset_opts(), &gc);
		return rc;
	}
	ts_job_note(env, "generating dataset %s (%llu samples) in %s", d->kind,
	     (unsigned long long)d->count, dp->dir);
	rc = make_dataset(dp->kind, &gc, tmp, err, errlen);
	ts_opt_free(ts_dataset_opts(), &gc);
	/* Written back before anything is measured, so the first
	 * configuration does not compete with the kernel's writeback. */
	if (rc == 0) {
		int fd = open(tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd >= 0) {
			syncfs(fd);
			close(fd);
		}
	}
	if (rc == 0 && rename(tmp, dp->dir)) {
		rc = -errno;
		snprintf(err, errlen, "cannot rename %s to %s: %s", tmp, dp->dir, strerror(errno));
	}
	if (rc) {
		ts_remove_tree(tmp, 0);
		return rc;
	}
	rc = ts_dataset_open(dp->dir, &dp->meta, err, errlen);
	dp->have_meta = rc == 0;
	return rc;
}

void ts_job_place_free(struct ts_dataset_place *dp)
{
	if (dp->have_meta)
		ts_dataset_meta_free(&dp->meta);
	dp->have_meta = false;
}

/* ---- Mounts -------------------------------------------------------------- */

/* tierfs's -o list for @s on @tier (@ebs: the instance's limits on it). */
static char *mount_opts(const struct ts_scenario *s, uint64_t mem, const char *tier,
			const struct ts_tier_ebs *ebs, const char *trace, const char *warm_path,
			bool cold)
{
	char buf[2048];
	size_t n = (size_t)snprintf(buf, sizeof(buf), "tier=%s,seed=%llu", tier,
				    (unsigned long long)s->mnt.seed);
	if (s->mnt.capacity)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, ",capacity=%llu",
				      (unsigned long long)s->mnt.capacity);
	if (mem)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, ",mem=%llu", (unsigned long long)mem);
	if (s->mnt.profile && *s->mnt.profile)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, ",profile=%s", s->mnt.profile);
	if (trace && *trace)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, ",trace=%s", trace);
	/* A written start (or a warm one of a job that cannot run twice,
	 * TS_JOB_ONCE) warms what the run reads, not the rest of the backing
	 * (other datasets, scratch); @cold: a warm start's untimed run, which
	 * warms it by reading (runner.c, run_row). */
	if (!cold && s->mnt.cache && strcmp(s->mnt.cache, "cold"))
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, ",cache=%s%s%s", s->mnt.cache,
				      warm_path && *warm_path ? ",warm_path=" : "",
				      warm_path ? warm_path : "");
	if (n < sizeof(buf))
		n += ts_mount_ebs_opts(ebs, buf + n, sizeof(buf) - n);
	/* LMDB's *.mdb files need no option: tierfs opens them in kernel-cached
	 * mode by default (a direct_io file cannot be mapped shared). */
	return n < sizeof(buf) ? strdup(buf) : NULL;
}

/* "%t" in a trace path becomes the tier name. */
static void expand_trace(const char *pat, const char *tier, char *out, size_t n)
{
	size_t o = 0;
	for (const char *p = pat; *p && o + 1 < n; p++) {
		if (p[0] == '%' && p[1] == 't') {
			o += (size_t)snprintf(out + o, n - o, "%s", tier);
			p++;
		} else {
			out[o++] = *p;
		}
		if (o >= n)
			o = n - 1;
	}
	out[o] = 0;
}


static uint64_t jget_u64(json_t *root, const char *const *path)
{
	json_t *v = root;
	for (; *path && v; path++)
		v = json_object_get(v, *path);
	if (json_is_integer(v))
		return (uint64_t)json_integer_value(v);
	if (json_is_real(v))
		return (uint64_t)json_real_value(v);
	return 0;
}

void ts_job_read_counters(const char *mountpoint, struct fs_counters *c)
{
	memset(c, 0, sizeof(*c));
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/.tierfs/stats", mountpoint);
	json_error_t jerr;
	json_t *root = json_load_file(path, 0, &jerr);
	if (!root)
		return;
	static const char *const rd[] = { TS_STATS_KEY_OPS, TS_STATS_KEY_READ, TS_STATS_KEY_BYTES,
					  NULL };
	static const char *const wr[] = { TS_STATS_KEY_OPS, TS_STATS_KEY_WRITE, TS_STATS_KEY_BYTES,
					  NULL };
	static const char *const mrd[] = { TS_STATS_KEY_MODEL, TS_STATS_KEY_OPS, TS_STATS_KEY_READ,
					   TS_STATS_KEY_BYTES, NULL };
	static const char *const mhit[] = { TS_STATS_KEY_MODEL, TS_STATS_KEY_OPS, TS_STATS_KEY_READ,
					    TS_STATS_KEY_CACHE_HIT_BYTES, NULL };
	c->read_bytes = jget_u64(root, rd);
	c->write_bytes = jget_u64(root, wr);
	c->model_read_bytes = jget_u64(root, mrd);
	c->model_hit_bytes = jget_u64(root, mhit);
	static const char *const mnw[] = { TS_STATS_KEY_MODEL, TS_STATS_KEY_OPS, TS_STATS_KEY_READ,
					   TS_STATS_KEY_NOWAIT_BYTES, NULL };
	static const char *const mdev[] = { TS_STATS_KEY_MODEL, TS_STATS_KEY_OPS, TS_STATS_KEY_READ,
					    TS_STATS_KEY_DEVICE_BYTES, NULL };
	c->model_nowait_bytes = jget_u64(root, mnw);
	c->model_dev_bytes = jget_u64(root, mdev);
	c->ok = true;
	json_decref(root);
}

void ts_job_row_io(struct ts_row *w, const struct fs_counters *a, const struct fs_counters *b,
		   double secs)
{
	if (!a->ok || !b->ok || secs <= 0)
		return;
	w->bytes_read = b->read_bytes - a->read_bytes;
	w->bytes_written = b->write_bytes - a->write_bytes;
	w->read_mb_s = (double)w->bytes_read / 1e6 / secs;
	w->write_mb_s = (double)w->bytes_written / 1e6 / secs;
	uint64_t rd = b->model_read_bytes - a->model_read_bytes;
	uint64_t hit = b->model_hit_bytes - a->model_hit_bytes;
	w->cache_hit_pct = rd ? 100.0 * (double)hit / (double)rd : NAN; /* no reads: no ratio */
	uint64_t nw = b->model_nowait_bytes - a->model_nowait_bytes;
	w->memory_pct = rd ? 100.0 * (double)nw / (double)rd : NAN;
	w->dev_mb_s = (double)(b->model_dev_bytes - a->model_dev_bytes) / 1e6 / secs;
	if (b->own_peak)
		w->own_mib = (double)b->own_peak / (1024.0 * 1024.0);
}

/* ---- One configuration in real time ---------------------------------------- */


void ts_job_live_counters(const struct live *lv, struct fs_counters *c)
{
	memset(c, 0, sizeof(*c));
	if (lv->mount || lv->disk)
		ts_job_read_counters(lv->disk ? lv->stats : lv->root, c);
	c->own_peak = ts_cgroup_sampler_max(lv->own);
}

/* Undoes live_disk(): the cgroup left and removed, the disk unmounted,
 * its image and mount point removed. */
static int disk_end(struct live *lv, char *err, size_t errlen)
{
	int rc = 0;
	ts_cgroup_sampler_stop(lv->own);
	lv->own = NULL;
	if (lv->cg) {
		if (ts_cgroup_leave(lv->cg) && err && !err[0])
			snprintf(err, errlen, "cannot leave the memory cgroup %s", lv->cg->path);
		ts_cgroup_remove(lv->cg);
		free(lv->cg);
		lv->cg = NULL;
	}
	if (lv->disk) {
		char e[512] = "";
		rc = ts_disk_umount(lv->root, e, sizeof(e));
		if (rc && err && !err[0])
			snprintf(err, errlen, "%s", e);
		if (!rc)
			rmdir(lv->root);
	}
	if (lv->image[0]) {
		unlink(lv->image);
		char *slash = strrchr(lv->image, '/');
		if (slash) { /* its own folder, which tierfs served */
			*slash = '\0';
			rmdir(lv->image);
		}
	}
	return rc;
}

/* Copies the regular file @from to @to, ordinary buffered writes; the
 * source's pages are dropped as they are read, so that they take no room
 * from the written ones in the memory cgroup. */
static int copy_file(const char *from, const char *to, mode_t mode, char *buf, size_t bufn,
		     char *err, size_t errlen)
{
	int in = open(from, O_RDONLY | O_CLOEXEC);
	if (in < 0) {
		snprintf(err, errlen, "cache = written: cannot read %s: %s", from, strerror(errno));
		return -errno;
	}
	int out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode & 07777);
	if (out < 0) {
		int e = errno;
		snprintf(err, errlen, "cache = written: cannot create %s: %s", to, strerror(e));
		close(in);
		return -e;
	}
	int rc = 0;
	off_t off = 0;
	for (;;) {
		ssize_t n = read(in, buf, bufn);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = -errno;
			snprintf(err, errlen, "cache = written: reading %s: %s", from, strerror(errno));
			break;
		}
		if (n == 0)
			break;
		if ((rc = ts_write_all(out, buf, (size_t)n))) {
			snprintf(err, errlen, "cache = written: writing %s: %s", to, strerror(-rc));
			break;
		}
		posix_fadvise(in, off, n, POSIX_FADV_DONTNEED);
		off += n;
	}
	close(in);
	if (close(out) && !rc) {
		rc = -errno;
		snprintf(err, errlen, "cache = written: writing %s: %s", to, strerror(errno));
	}
	return rc;
}

/* Whether @path is @dir or under it. */
static bool under(const char *path, const char *dir)
{
	size_t n = strlen(dir);
	return !strncmp(path, dir, n) && (path[n] == '/' || path[n] == '\0');
}

/* cache = "written": @from's tree copied into the mounted file system at
 * @to by this process (in the row's memory cgroup), as a copy onto a
 * fresh volume does: ordinary buffered writes and no sync, so the run
 * starts with the kernel's dirty pages and their writeback to do. @only
 * (or NULL: all): the files copied are those under it, the row's dataset;
 * every folder is made (a job's output goes in one), no other dataset of
 * the work directory takes the cgroup's memory. */
static int copy_tree(const char *from, const char *to, const char *only, char *err,
		     size_t errlen)
{
	static const size_t bufn = 1 << 20;
	char *buf = malloc(bufn);
	DIR *d = opendir(from);
	int rc = 0;
	if (!buf || !d) {
		rc = buf ? -errno : -ENOMEM;
		snprintf(err, errlen, "cache = written: cannot list %s: %s", from, strerror(-rc));
		goto out;
	}
	struct dirent *e;
	while (!rc && (errno = 0, e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		char src[PATH_MAX], dst[PATH_MAX];
		struct stat st;
		if (ts_pathf(src, sizeof(src), "%s/%s", from, e->d_name) ||
		    ts_pathf(dst, sizeof(dst), "%s/%s", to, e->d_name)) {
			snprintf(err, errlen, "cache = written: a path under %s is too long", from);
			rc = -ENAMETOOLONG;
		} else if (lstat(src, &st)) {
			rc = -errno;
			snprintf(err, errlen, "cache = written: %s: %s", src, strerror(errno));
		} else if (S_ISDIR(st.st_mode)) {
			if (mkdir(dst, st.st_mode & 07777) && errno != EEXIST) {
				rc = -errno;
				snprintf(err, errlen, "cache = written: cannot make %s: %s", dst,
					 strerror(errno));
			} else {
				rc = copy_tree(src, dst, only, err, errlen);
			}
		} else if (only && !under(src, only)) {
			continue;
		} else if (S_ISREG(st.st_mode)) {
			rc = copy_file(src, dst, st.st_mode, buf, bufn, err, errlen);
		} else if (S_ISLNK(st.st_mode)) {
			char link[PATH_MAX];
			ssize_t n = readlink(src, link, sizeof(link) - 1);
			if (n >= 0)
				link[n] = '\0';
			if (n < 0 || symlink(link, dst)) {
				rc = -errno;
				snprintf(err, errlen, "cache = written: cannot copy the link %s: %s",
					 src, strerror(errno));
			}
		} /* the image made with mkfs -d copies no other kind either */
	}
	if (!rc && errno) {
		rc = -errno;
		snprintf(err, errlen, "cache = written: cannot list %s: %s", from, strerror(errno));
	}
out:
	if (d)
		closedir(d);
	free(buf);
	return rc;
}

/* Block mode: the dataset's backing copied into a fresh image of
 * mount.fs (at no tier cost), mounted read-write through a loop device
 * over tierfs on @tier (disk/disk.h), and this process (the loader's
 * threads) moved into a memory cgroup of mount.mem when one is given:
 * the kernel's file system, readahead and page cache of an instance of
 * that size above the tier model. */
static int live_disk(struct ts_job_env *env, const struct ts_scenario *s, const char *tier,
		     const struct ts_dataset_place *dp, struct live *lv, const char *trace,
		     char *err, size_t errlen)
{
	uint64_t size, files;
	int rc = ts_disk_fs_check(s->mnt.fs, err, errlen);
	if (rc)
		return rc;
	/* "written": an empty file system, the dataset written into it below */
	bool written = s->mnt.cache && !strcmp(s->mnt.cache, "written");
	unsigned k = env->nmounts++;
	/* in a folder of its own: tierfs serves the image's folder */
	snprintf(lv->image, sizeof(lv->image), "%s/disk-%d-%u", env->workdir, (int)getpid(), k);
	if (mkdir(lv->image, 0755) && errno != EEXIST) {
		rc = -errno;
		snprintf(err, errlen, "cannot make %s: %s", lv->image, strerror(errno));
		lv->image[0] = '\0';
		return rc;
	}
	size_t dl = strlen(lv->image);
	snprintf(lv->image + dl, sizeof(lv->image) - dl, "/data.%s", s->mnt.fs);
	snprintf(lv->root, sizeof(lv->root), "%s/d%d-%u", env->mntdir, (int)getpid(), k);
	struct ts_disk_make_opts mk = { .image = lv->image, .fs = s->mnt.fs,
					.from = written ? NULL : dp->backing };
	if ((rc = ts_disk_size_for(dp->backing, s->mnt.fs, &size, &files, err, errlen)))
		goto fail;
	mk.size = size + lv->room + files * lv->room_per_file;
	if ((rc = ts_disk_make(&mk, err, errlen)))
		goto fail; /* the image is gone; its folder goes in disk_end */
	if (mkdir(lv->root, 0755) && errno != EEXIST) {
		rc = -errno;
		snprintf(err, errlen, "cannot make %s: %s", lv->root, strerror(errno));
		goto fail;
	}
	struct ts_disk_mount_opts mo = {
		.tierfs = env->mounts.tierfs, .image = lv->image, .mountpoint = lv->root,
		.tier = tier, .profile = s->mnt.profile && *s->mnt.profile ? s->mnt.profile : NULL,
		.capacity = s->mnt.capacity, .mem = s->mnt.mem, .trace = *trace ? trace : NULL,
		.rw = true, .no_loop_hop = !s->mnt.loop_hop,
	};
	if ((rc = ts_disk_mount(&mo, err, errlen))) {
		rmdir(lv->root);
		goto fail;
	}
	lv->disk = true;
	struct ts_disk d;
	if ((rc = ts_disk_find(lv->root, &d, err, errlen)))
		goto fail;
	snprintf(lv->stats, sizeof(lv->stats), "%s", d.fuse_dir);
	if (s->mnt.mem) {
		char name[64];
		snprintf(name, sizeof(name), "scenario-%d-%u", (int)getpid(), k);
		struct ts_cgroup *cg = calloc(1, sizeof(*cg));
		rc = cg ? ts_cgroup_open(cg, name, s->mnt.mem, err, errlen) : -ENOMEM;
		if (!rc && (rc = ts_cgroup_enter(cg, 0))) {
			snprintf(err, errlen, "cannot enter the memory cgroup %s: %s", cg->path,
				 strerror(-rc));
			ts_cgroup_remove(cg);
		}
		if (rc) {
			free(cg);
			ts_disk_clear(&d);
			goto fail;
		}
		lv->cg = cg;
		/* the job's own memory, for its row (the own_mem a virtual
		 * run of it takes out of the page-cache model) */
		if ((rc = ts_cgroup_sampler_start(cg, TS_DISK_OWN_SAMPLE_NS, &lv->own))) {
			snprintf(err, errlen, "cannot sample the memory cgroup %s: %s", cg->path,
				 strerror(-rc));
			ts_disk_clear(&d);
			goto fail;
		}
	}
	ts_disk_clear(&d);
	if (written) {
		ts_job_note(env, "%s: writing the dataset into the %s file system (cache = written, "
			    "untimed)", tier, s->mnt.fs);
		if ((rc = copy_tree(dp->backing, lv->root, dp->generated ? dp->dir : NULL, err,
				    errlen)))
			goto fail;
	}
	return 0;
fail:
	disk_end(lv, NULL, 0);
	lv->disk = false;
	return rc;
}

/* A warm start's untimed run: the disk just mounted kept in env->held
 * (its trace too), lent to @lv until its job ends. */
static int hold_disk(struct ts_job_env *env, struct live *lv)
{
	struct live *h = malloc(sizeof(*h));
	if (!h)
		return -ENOMEM;
	*h = *lv;
	env->held = h;
	lv->lent = true;
	lv->own_trace = false; /* the held disk's, removed with it */
	return 0;
}

/* The timed run takes env->held over: the disk, its cgroup (entered
 * still), its trace; the sampler of the job's own memory started again,
 * so that the row's peak is the timed run's. */
static int take_held(struct ts_job_env *env, struct live *lv, char *err, size_t errlen)
{
	struct live *h = env->held;
	bool want = lv->want_trace;
	uint64_t room = lv->room, per_file = lv->room_per_file;
	env->held = NULL;
	*lv = *h;
	free(h);
	lv->want_trace = want;
	lv->room = room;
	lv->room_per_file = per_file;
	lv->lent = false;
	lv->timed_from_ns = ts_now_ns();
	if (lv->trace[0] && !lv->own_trace)
		ts_job_note(env, "trace %s: the untimed run's requests come first; the timed "
			    "run's are those submitted from CLOCK_MONOTONIC %llu ns (the trace's "
			    "start_mono_ns + submit_ns)",
			    lv->trace, (unsigned long long)lv->timed_from_ns);
	if (!lv->cg)
		return 0;
	ts_cgroup_sampler_stop(lv->own);
	lv->own = NULL;
	int rc = ts_cgroup_sampler_start(lv->cg, TS_DISK_OWN_SAMPLE_NS, &lv->own);
	if (rc)
		snprintf(err, errlen, "cannot sample the memory cgroup %s: %s", lv->cg->path,
			 strerror(-rc));
	return rc; /* the disk is @lv's: its end undoes it */
}

int ts_job_live_end(struct ts_job_env *env, struct live *lv, char *err, size_t errlen)
{
	int rc = 0;
	if (lv->pipe)
		ts_pipe_free(lv->pipe);
	if (lv->eng)
		ts_engine_free(lv->eng);
	if (!lv->lent && (lv->disk || lv->cg || lv->image[0]))
		rc = disk_end(lv, err, errlen);
	if (lv->mount && !lv->lent) { /* lent: env->held's, stopped by its end */
		char e[512] = "";
		rc = ts_mount_stop(&env->mounts, lv->mount, e, sizeof(e));
		if (rc && err && !err[0]) {
			snprintf(err, errlen, "%s", e);
		} else if (rc && err) {
			/* The mount's failure is the likelier cause: name it first. */
			char was[512];
			snprintf(was, sizeof(was), "%s", err);
			snprintf(err, errlen, "%s; then: %s", e, was);
		}
	}
	memset(lv, 0, sizeof(*lv));
	return rc;
}

int ts_job_hold_end(struct ts_job_env *env, char *err, size_t errlen)
{
	if (env->vheld) {
		ts_vtier_free(env->vheld);
		free(env->vheld);
		env->vheld = NULL;
	}
	struct live *h = env->held;
	if (!h)
		return 0;
	env->held = NULL;
	char trace[PATH_MAX];
	bool own = h->own_trace;
	snprintf(trace, sizeof(trace), "%s", h->trace);
	h->lent = false;
	int rc = ts_job_live_end(env, h, err, errlen);
	if (own && trace[0])
		unlink(trace);
	free(h);
	return rc;
}

int ts_job_live_mount(struct ts_job_env *env, const struct ts_scenario *s, const char *tier,
		      const struct ts_dataset_place *dp, struct live *lv,
		      char *mdesc, size_t mdn, char *err, size_t errlen)
{
	if (!strcmp(tier, "none")) {
		snprintf(lv->root, sizeof(lv->root), "%s", dp->backing);
		snprintf(mdesc, mdn, "no tierfs (host disk, page cache real)");
		return 0;
	}
	if (!env->mounts_ready) {
		int rc = ts_mounts_init(&env->mounts, err, errlen);
		if (rc)
			return rc;
		env->mounts_ready = true;
	}
	char trace[PATH_MAX] = "";
	if (s->mnt.trace && *s->mnt.trace) {
		expand_trace(s->mnt.trace, tier, trace, sizeof(trace));
	} else if (lv->want_trace || env->hold_trace) {
		/* --timeline's tier tracks in real time are what the mount
		 * records: record it, next to the mounts, for this row. */
		snprintf(trace, sizeof(trace), "%s/timeline-%d-%u.trace", env->workdir, (int)getpid(),
			 env->nmounts);
		lv->own_trace = true;
	}
	snprintf(lv->trace, sizeof(lv->trace), "%s", trace);
	if (s->mnt.fs && *s->mnt.fs) {
		/* a warm start: the untimed run's disk (env->hold), then the
		 * timed run on it (env->held) */
		int rc = env->held ? take_held(env, lv, err, errlen)
				   : live_disk(env, s, tier, dp, lv, trace, err, errlen);
		if (!rc && env->hold)
			rc = hold_disk(env, lv);
		if (rc && lv->disk) /* a held disk taken over: the job's end undoes it */
			return rc;
		if (rc) {
			lv->trace[0] = '\0';
			lv->own_trace = false;
			return rc;
		}
		struct ts_tier_ebs e;
		ts_scn_ebs(&s->mnt, ts_tier_set_find(env->tiers, tier), &e);
		if (ts_tier_ebs_any(&e))
			ts_job_note(env, "%s: block mode's loop device over tierfs runs without the "
				    "instance's EBS limits (FUSE mode and virtual time apply them)",
				    tier);
		char d[256];
		const char *c = s->mnt.cache ? s->mnt.cache : "cold";
		snprintf(d, sizeof(d), "%s on a loop device over tierfs real, block mode, cache %s%s",
			 s->mnt.fs, c,
			 !strcmp(c, "warm")	   ? " (the job run once untimed first)"
			 : !strcmp(c, "written") ? " (the dataset written in, dirty)"
						 : " (a fresh image)");
		ts_job_tier_desc(s, d, mdesc, mdn);
		return 0;
	}
	if (env->held) { /* a warm start's timed run on the untimed run's mount */
		int rc = take_held(env, lv, err, errlen);
		if (!rc)
			ts_job_tier_desc(s, "tierfs real, cache warm (the job run once untimed "
					 "first)", mdesc, mdn);
		return rc;
	}
	char warm[PATH_MAX * 2];
	snprintf(warm, sizeof(warm), "%s%s%s", dp->rel, dp->rel[0] && dp->input[0] ? "/" : "",
		 dp->input);
	uint64_t mem;
	if (ts_scn_page_cache(&s->mnt, &mem, err, errlen)) {
		lv->trace[0] = '\0';
		lv->own_trace = false;
		return -EINVAL;
	}
	struct ts_tier_ebs e;
	ts_scn_ebs(&s->mnt, ts_tier_set_find(env->tiers, tier), &e);
	/* a warm start's untimed run starts cold: the job's own reads warm it */
	char *opts = mount_opts(s, mem, tier, &e, trace, warm, env->hold);
	char mp[PATH_MAX];
	snprintf(mp, sizeof(mp), "%s/m%d-%u", env->mntdir, (int)getpid(), env->nmounts++);
	int rc = opts ? ts_mount_start(&env->mounts, dp->backing, mp, opts, &lv->mount, err, errlen)
		      : -ENOMEM;
	free(opts);
	if (rc) {
		lv->trace[0] = '\0';
		lv->own_trace = false;
		return rc;
	}
	snprintf(lv->root, sizeof(lv->root), "%s", mp);
	ts_job_tier_desc(s, "tierfs real", mdesc, mdn);
	if (env->hold && (rc = hold_disk(env, lv)))
		return rc; /* the mount is @lv's: its end stops it */
	return 0;
}

int ts_job_engine(struct ts_scenario *s, int band_end, struct ts_row *w, struct ts_engine **out,
		  char *err, size_t errlen)
{
	char msg[512];
	struct ts_engine_cfg cfg = s->eng; /* ts_engine_new copies it */
	cfg.band_end = band_end;
	*out = NULL;
	int rc = ts_engine_new(&cfg, out, msg, sizeof(msg));
	if (rc == TS_E_GPU_OOM) {
		char e[600];
		snprintf(e, sizeof(e), "OOM: %s", msg);
		return ts_row_set_str(&w->error, e);
	}
	if (rc)
		snprintf(err, errlen, "engine: %s", msg);
	return rc;
}

void ts_job_tier_desc(const struct ts_scenario *s, const char *what, char *buf, size_t n)
{
	char cap[32] = "the tier's default", mem[80] = "default size", own[32];
	if (s->mnt.capacity)
		ts_fmt_size(cap, sizeof(cap), s->mnt.capacity);
	if (s->mnt.mem)
		ts_fmt_size(mem, sizeof(mem), s->mnt.mem);
	if (s->mnt.own_mem && !(s->mnt.fs && *s->mnt.fs)) { /* block mode: the kernel's */
		size_t k = strlen(mem);
		snprintf(mem + k, sizeof(mem) - k, " less the job's own %s",
			 ts_fmt_size(own, sizeof(own), s->mnt.own_mem));
	}
	snprintf(buf, n, "%s (tier per row; capacity %s; %s %s)", what, cap,
		 s->mnt.fs && *s->mnt.fs ? "memory cgroup" : "page-cache model",
		 s->mnt.fs && *s->mnt.fs && !s->mnt.mem ? "none" : mem);
}

void ts_job_row_steps(struct ts_row *w, const struct ts_step_sums *m)
{
	double secs = (double)m->wall_ns / 1e9;
	w->iterations = m->iterations;
	w->batch = m->batch;
	w->samples = m->samples;
	w->time_s = secs;
	w->samples_per_s = secs > 0 ? (double)m->samples / secs : NAN;
	w->au_pct = secs > 0 ? 100.0 * (double)m->busy_ns / (double)m->wall_ns : NAN;
	w->stall_pct = secs > 0 ? 100.0 * (double)m->idle_ns / (double)m->wall_ns : NAN;
	w->step_p50_ms = (double)ts_hist_percentile(m->iter, 50) / 1e6;
	w->step_p99_ms = (double)ts_hist_percentile(m->iter, 99) / 1e6;
}

int ts_job_vtier(struct ts_job_env *env, const struct ts_scenario *s, int band_end,
		 struct ts_vtier *m, char *err, size_t errlen)
{
	if (env->vheld) { /* a warm start's timed run: the untimed run's model */
		*m = *env->vheld;
		free(env->vheld);
		env->vheld = NULL;
		return 0;
	}
	memset(m, 0, sizeof(*m));
	if (!strcmp(s->mnt.tier, "none")) {
		snprintf(err, errlen, "--virtual needs a tier to model; mount{tier=\"none\"} runs "
				      "only in real time");
		return -EINVAL;
	}
	struct ts_tier_cfg tc = { .capacity = s->mnt.capacity, .seed = s->mnt.seed };
	const struct ts_fsmeta_params *fs;
	int rc = ts_scn_page_cache(&s->mnt, &tc.mem, err, errlen);
	if (!rc)
		rc = ts_tier_set_lookup(env->tiers, s->mnt.tier, &tc.profile, err, errlen);
	if (!rc)
		rc = ts_tier_set_fs_lookup(env->tiers, TS_FSMETA_NAME, &fs, err, errlen);
	if (rc)
		return rc;
	ts_scn_ebs(&s->mnt, tc.profile, &tc.ebs);
	return ts_vtier_new(m, &tc, fs, band_end, err, errlen);
}

