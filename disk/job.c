/*
 * job.c — a job run on a mounted disk in a memory cgroup of the instance's
 * size (disk.h, ts_disk_job_run). The device's figures are tierfs's own
 * counters (MOUNT's tierfs at STATE/NAME.fuse/.tierfs/stats), read before
 * and after: the requests the block layer sent, as the trace records them.
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "disk/cgroup.h"
#include "core/clock.h"
#include "disk/disk.h"

struct dev_counts {
	uint64_t reads, read_bytes, writes, write_bytes;
};

static int dev_counts(const struct ts_disk *d, struct dev_counts *c, char *err, size_t errlen)
{
	char path[PATH_MAX];
	json_error_t je;
	snprintf(path, sizeof(path), "%s/.tierfs/stats", d->fuse_dir);
	json_t *st = json_load_file(path, 0, &je);
	if (!st) {
		snprintf(err, errlen, "cannot read the device's counters %s: %s (is tierfs still "
				      "running? tiersim disk list)",
			 path, je.text);
		return -EIO;
	}
	json_t *ops = json_object_get(st, "ops");
	json_t *rd = json_object_get(ops, "read"), *wr = json_object_get(ops, "write");
	c->reads = (uint64_t)json_integer_value(json_object_get(rd, "count"));
	c->read_bytes = (uint64_t)json_integer_value(json_object_get(rd, "bytes"));
	c->writes = (uint64_t)json_integer_value(json_object_get(wr, "count"));
	c->write_bytes = (uint64_t)json_integer_value(json_object_get(wr, "bytes"));
	json_decref(st);
	return 0;
}

int ts_disk_job_run(const struct ts_disk *d, const struct ts_disk_job_opts *o,
		    struct ts_disk_job_result *r, char *err, size_t errlen)
{
	const char *cache = o->cache ? o->cache : "cold";
	struct ts_cgroup cg;
	struct dev_counts c0, c1;
	int rc;

	memset(r, 0, sizeof(*r));
	r->mem = o->mem ? o->mem : d->mem;
	if (!r->mem) {
		snprintf(err, errlen, "--mem: the instance's memory is needed (give it here or at "
				      "tiersim disk mount)");
		return -EINVAL;
	}
	if (strcmp(cache, "cold") && strcmp(cache, "warm")) {
		snprintf(err, errlen, "--cache: '%s' is not cold or warm", cache);
		return -EINVAL;
	}
	if (!ts_disk_alive(d)) {
		snprintf(err, errlen, "the tierfs serving %s (pid %ld) is gone: tiersim disk umount "
				      "%s, then mount it again",
			 d->image, (long)d->tierfs_pid, d->mountpoint);
		return -EIO;
	}
	if (!strcmp(cache, "cold") && (rc = ts_disk_drop_cache(d, err, errlen)))
		return rc;
	if ((rc = ts_cgroup_open(&cg, d->name, r->mem, err, errlen)))
		return rc;
	r->cgroup_version = cg.version;
	if ((rc = dev_counts(d, &c0, err, errlen)))
		goto out;
	int sync_pipe[2];
	if (pipe2(sync_pipe, O_CLOEXEC)) {
		rc = -errno;
		goto out;
	}
	uint64_t t0 = ts_now_ns();
	pid_t pid = fork();
	if (pid < 0) {
		rc = -errno;
		close(sync_pipe[0]);
		close(sync_pipe[1]);
		goto out;
	}
	if (pid == 0) {
		/* In the cgroup before the command's first page is charged. */
		char ok = ts_cgroup_enter(&cg, 0) == 0;
		if (write(sync_pipe[1], &ok, 1) != 1 || !ok)
			_exit(126);
		execvp(o->argv[0], o->argv);
		fprintf(stderr, "tiersim disk run: %s: %s\n", o->argv[0], strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	close(sync_pipe[1]);
	char ok = 0;
	ssize_t got = read(sync_pipe[0], &ok, 1);
	close(sync_pipe[0]);
	int st = 0;
	for (;;) { /* the job's own memory, sampled until it ends */
		uint64_t own = ts_cgroup_own(&cg); /* read once: TS_MAX evaluates twice */
		r->own = TS_MAX(r->own, own);
		pid_t w = waitpid(pid, &st, WNOHANG);
		if (w == pid || (w < 0 && errno != EINTR))
			break;
		ts_sleep_until_ns(ts_now_ns() + TS_DISK_OWN_SAMPLE_NS);
	}
	r->wall_s = (double)(ts_now_ns() - t0) / 1e9;
	r->status = st;
	if (got != 1 || !ok) {
		rc = -EPERM;
		snprintf(err, errlen, "cannot move the job into the memory cgroup %s", cg.path);
		goto out;
	}
	if ((rc = dev_counts(d, &c1, err, errlen)))
		goto out;
	r->dev_reads = c1.reads - c0.reads;
	r->dev_read_bytes = c1.read_bytes - c0.read_bytes;
	r->dev_writes = c1.writes - c0.writes;
	r->dev_write_bytes = c1.write_bytes - c0.write_bytes;
	struct ts_cgroup_stat cs;
	if (ts_cgroup_read(&cg, &cs) == 0) {
		r->peak = cs.peak;
		r->file = cs.file;
	}
out:
	ts_cgroup_close(&cg);
	return rc;
}
