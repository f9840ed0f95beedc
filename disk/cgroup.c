/*
 * cgroup.c — memory cgroups for block mode's instance memory (cgroup.h).
 *
 * The v2 hierarchy is used where a cgroup2 file system lists "memory" in
 * its cgroup.controllers (/sys/fs/cgroup on a unified host, or
 * /sys/fs/cgroup/unified on a hybrid one, where memory usually stays v1);
 * otherwise the v1 memory controller's mount. The limit is memory.max (v2)
 * or memory.limit_in_bytes (v1); page-cache figures come from memory.stat
 * ("file" in v2, "cache" in v1).
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/clock.h"
#include "disk/cgroup.h"

static const char *const v2_roots[] = { "/sys/fs/cgroup", "/sys/fs/cgroup/unified" };
static const char *const v1_root = "/sys/fs/cgroup/memory";

static int put(const char *dir, const char *file, const char *text)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	FILE *f = fopen(path, "we");
	if (!f)
		return -errno;
	int rc = fputs(text, f) < 0 ? -EIO : 0;
	if (fclose(f) && !rc)
		rc = -errno;
	return rc;
}

static bool has_word(const char *path, const char *word)
{
	FILE *f = fopen(path, "re");
	char buf[512];
	bool found = false;
	if (!f)
		return false;
	if (fgets(buf, sizeof(buf), f))
		for (char *save, *t = strtok_r(buf, " \n", &save); t && !found;
		     t = strtok_r(NULL, " \n", &save))
			found = strcmp(t, word) == 0;
	fclose(f);
	return found;
}

/* The v2 root with the memory controller, or NULL. */
static const char *v2_root(void)
{
	char p[PATH_MAX];
	for (size_t i = 0; i < TS_ARRAY_SIZE(v2_roots); i++) {
		snprintf(p, sizeof(p), "%s/cgroup.controllers", v2_roots[i]);
		if (has_word(p, "memory"))
			return v2_roots[i];
	}
	return NULL;
}

static int dir_path(int version, const char *root, const char *name, char *out, size_t n)
{
	int w = name ? snprintf(out, n, "%s/tiersim/%s", root, name)
		     : snprintf(out, n, "%s/tiersim", root);
	(void)version;
	return w < 0 || (size_t)w >= n ? -ENAMETOOLONG : 0;
}

/* The caller's cgroup directory under @root, from /proc/self/cgroup:
 * "0::/PATH" for v2, "N:...memory...:/PATH" for v1. */
static char *own_cgroup(int version, const char *root)
{
	FILE *f = fopen("/proc/self/cgroup", "re");
	char line[PATH_MAX + 64], *out = NULL;
	if (!f)
		return NULL;
	while (!out && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (!c2)
			continue;
		*c2 = 0;
		const char *ctl = c1 + 1, *rel = c2 + 1;
		bool match = version == 2 ? strcmp(line, "0") == 0 && !*ctl : false;
		for (char *save, *t = version == 1 ? strtok_r((char *)ctl, ",", &save) : NULL;
		     t && !match; t = strtok_r(NULL, ",", &save))
			match = strcmp(t, "memory") == 0;
		if (match && asprintf(&out, "%s%s", root, strcmp(rel, "/") ? rel : "") < 0)
			out = NULL;
	}
	fclose(f);
	return out;
}

int ts_cgroup_open(struct ts_cgroup *cg, const char *name, uint64_t limit, char *err,
		   size_t errlen)
{
	const char *root = v2_root();
	char top[PATH_MAX], dir[PATH_MAX], val[32];
	int rc;

	cg->path = cg->home = NULL;
	cg->version = root ? 2 : 1;
	if (!root) {
		struct stat st;
		if (stat(v1_root, &st) || !S_ISDIR(st.st_mode)) {
			snprintf(err, errlen, "no memory cgroup: neither a cgroup2 with the memory "
					      "controller nor %s is mounted",
				 v1_root);
			return -ENODEV;
		}
		root = v1_root;
	}
	if ((rc = dir_path(cg->version, root, NULL, top, sizeof(top))) ||
	    (rc = dir_path(cg->version, root, name, dir, sizeof(dir))))
		return rc;
	if (mkdir(top, 0755) && errno != EEXIST) {
		rc = -errno;
		snprintf(err, errlen, "cannot create the memory cgroup %s: %s", top, strerror(errno));
		return rc;
	}
	if (cg->version == 2) {
		/* The memory controller for the children of the root and of
		 * tiersim's cgroup. */
		if ((rc = put(root, "cgroup.subtree_control", "+memory")) ||
		    (rc = put(top, "cgroup.subtree_control", "+memory"))) {
			snprintf(err, errlen, "cannot enable the memory controller under %s: %s",
				 root, strerror(-rc));
			return rc;
		}
	}
	if (mkdir(dir, 0755) && errno != EEXIST) {
		rc = -errno;
		snprintf(err, errlen, "cannot create the memory cgroup %s: %s", dir, strerror(errno));
		return rc;
	}
	snprintf(val, sizeof(val), "%llu", (unsigned long long)limit);
	rc = put(dir, cg->version == 2 ? "memory.max" : "memory.limit_in_bytes", val);
	if (rc == 0 && cg->version == 2)
		(void)put(dir, "memory.swap.max", "0"); /* absent without swap accounting */
	if (rc) {
		snprintf(err, errlen, "cannot limit the memory cgroup %s to %s bytes: %s%s", dir, val,
			 strerror(-rc),
			 rc == -EBUSY ? " (it holds more than that now: drop its cache first)" : "");
		return rc;
	}
	if (cg->version == 1) {
		/* Memory over the limit is reclaimed, not swapped (no swap
		 * on the instance). */
		if (put(dir, "memory.swappiness", "0")) {
			/* optional: absent on kernels without swap accounting */
		}
	}
	cg->path = strdup(dir);
	cg->home = own_cgroup(cg->version, root);
	return cg->path ? 0 : -ENOMEM;
}

int ts_cgroup_leave(const struct ts_cgroup *cg)
{
	char v[32];
	if (!cg->home)
		return -ENOENT;
	snprintf(v, sizeof(v), "%ld", (long)getpid());
	return put(cg->home, "cgroup.procs", v);
}

int ts_cgroup_enter(const struct ts_cgroup *cg, pid_t pid)
{
	char v[32];
	snprintf(v, sizeof(v), "%ld", (long)(pid ? pid : getpid()));
	return put(cg->path, "cgroup.procs", v);
}

static uint64_t read_u64(const char *dir, const char *file)
{
	char path[PATH_MAX], buf[64];
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	FILE *f = fopen(path, "re");
	uint64_t v = 0;
	if (!f)
		return 0;
	if (fgets(buf, sizeof(buf), f))
		v = strncmp(buf, "max", 3) == 0 ? UINT64_MAX : strtoull(buf, NULL, 10);
	fclose(f);
	return v;
}

int ts_cgroup_read(const struct ts_cgroup *cg, struct ts_cgroup_stat *st)
{
	bool v2 = cg->version == 2;
	memset(st, 0, sizeof(*st));
	st->limit = read_u64(cg->path, v2 ? "memory.max" : "memory.limit_in_bytes");
	st->usage = read_u64(cg->path, v2 ? "memory.current" : "memory.usage_in_bytes");
	st->peak = read_u64(cg->path, v2 ? "memory.peak" : "memory.max_usage_in_bytes");
	char path[PATH_MAX], line[256];
	snprintf(path, sizeof(path), "%s/memory.stat", cg->path);
	FILE *f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char key[64];
		unsigned long long v;
		if (sscanf(line, "%63s %llu", key, &v) != 2)
			continue;
		if (!strcmp(key, v2 ? "file" : "cache"))
			st->file = v;
		else if (!strcmp(key, v2 ? "anon" : "rss"))
			st->anon = v;
	}
	fclose(f);
	return 0;
}

uint64_t ts_cgroup_own(const struct ts_cgroup *cg)
{
	struct ts_cgroup_stat cs;
	return ts_cgroup_read(cg, &cs) == 0 && cs.usage > cs.file ? cs.usage - cs.file : 0;
}

struct ts_cgroup_sampler {
	const struct ts_cgroup *cg;
	uint64_t interval_ns;
	pthread_t th;
	bool stop; /* atomic */
	uint64_t max; /* atomic */
};

static void note(struct ts_cgroup_sampler *s)
{
	uint64_t v = ts_cgroup_own(s->cg), m = __atomic_load_n(&s->max, __ATOMIC_RELAXED);
	while (v > m && !__atomic_compare_exchange_n(&s->max, &m, v, true, __ATOMIC_RELAXED,
						     __ATOMIC_RELAXED))
		;
}

static void *sampler_main(void *arg)
{
	struct ts_cgroup_sampler *s = arg;
	while (!__atomic_load_n(&s->stop, __ATOMIC_RELAXED)) {
		note(s);
		ts_sleep_until_ns(ts_now_ns() + s->interval_ns);
	}
	return NULL;
}

int ts_cgroup_sampler_start(const struct ts_cgroup *cg, uint64_t interval_ns,
			    struct ts_cgroup_sampler **out)
{
	struct ts_cgroup_sampler *s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->cg = cg;
	s->interval_ns = interval_ns;
	int rc = pthread_create(&s->th, NULL, sampler_main, s);
	if (rc) {
		free(s);
		return -rc;
	}
	*out = s;
	return 0;
}

uint64_t ts_cgroup_sampler_max(struct ts_cgroup_sampler *s)
{
	if (!s)
		return 0;
	note(s);
	return __atomic_load_n(&s->max, __ATOMIC_RELAXED);
}

void ts_cgroup_sampler_stop(struct ts_cgroup_sampler *s)
{
	if (!s)
		return;
	__atomic_store_n(&s->stop, true, __ATOMIC_RELAXED);
	pthread_join(s->th, NULL);
	free(s);
}

void ts_cgroup_close(struct ts_cgroup *cg)
{
	free(cg->path);
	free(cg->home);
	cg->path = cg->home = NULL;
}

void ts_cgroup_remove(struct ts_cgroup *cg)
{
	if (cg->path)
		rmdir(cg->path);
	ts_cgroup_close(cg);
}

void ts_cgroup_remove_name(const char *name)
{
	const char *root = v2_root();
	char dir[PATH_MAX];
	if (dir_path(root ? 2 : 1, root ? root : v1_root, name, dir, sizeof(dir)) == 0)
		rmdir(dir);
}
