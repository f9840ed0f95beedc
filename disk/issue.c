/*
 * issue.c — block mode's request clock (issue.h): the running means and
 * the reply's arithmetic, and the user half of the BPF program
 * (issue_bpf.bpf.c) that times the loop device's requests.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/clock.h"
#include "disk/issue.h"
#include "disk/issue_rec.h"
#include "ts_config.h"

unsigned ts_issue_class(uint64_t bytes)
{
	unsigned c = 0;
	for (uint64_t b = 4096; b < bytes && c + 1 < TS_ISSUE_CLASSES; b <<= 1)
		c++;
	return c;
}

static void est_add(struct ts_issue_est *e, unsigned c, uint64_t v)
{
	uint64_t *slot = &e->s[c][e->n[c] % TS_ISSUE_WINDOW];
	if (e->n[c] >= TS_ISSUE_WINDOW)
		e->sum[c] -= *slot;
	*slot = v;
	e->sum[c] += v;
	e->n[c]++;
}

static uint64_t est_mean(const struct ts_issue_est *e, unsigned c)
{
	return e->sum[c] / (e->n[c] < TS_ISSUE_WINDOW ? e->n[c] : TS_ISSUE_WINDOW);
}

void ts_issue_est_hop(struct ts_issue_est *e, uint64_t bytes, uint64_t hop_ns)
{
	est_add(e, ts_issue_class(bytes), hop_ns);
}

void ts_issue_est_late(struct ts_issue_est *e, uint64_t late_ns)
{
	est_add(e, TS_ISSUE_CLASSES, late_ns);
}

bool ts_issue_est_get(const struct ts_issue_est *e, uint64_t bytes, uint64_t *off_ns)
{
	unsigned c = ts_issue_class(bytes);
	if (e->n[c] < TS_ISSUE_MIN || e->n[TS_ISSUE_CLASSES] < TS_ISSUE_MIN)
		return false;
	*off_ns = est_mean(e, c) + est_mean(e, TS_ISSUE_CLASSES);
	return true;
}

#if TS_HAVE_BPF
#include <bpf/libbpf.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <sys/mount.h>
#include <sys/syscall.h>

#include "disk/issue_bpf.skel.h" /* generated: disk/meson.build */

/* how often a request that finds no loop device looks for it (ns) */
#define SCAN_EVERY_NS 20000000ULL
/* completions whose distance from the model's the stats summarize */
#define RESID_KEEP 4096

struct ts_issue {
	struct issue_bpf *skel;
	struct bpf_link *links[2];
	char *under; /* "MOUNTPOINT/": the loop device's backing file lies beneath */
	uint64_t scanned_ns; /* the last look for the device */
	pthread_mutex_t lock; /* est, drained, scanned_ns */
	struct ts_issue_est est;
	uint64_t drained; /* hops taken from the ring (written under lock; atomic) */
	uint64_t off[TS_ISSUE_CLASSES]; /* ts_issue_est_get per class, 0 = not yet; atomics */
	uint32_t dev;			/* the loop device, 0 until found; atomic */
	uint64_t found, used, missed, lost; /* counts; atomics */
	/* the last RESID_KEEP completions' distance from the model's (under
	 * lock): what the clock leaves, for the stats */
	int64_t resid[RESID_KEEP];
	uint64_t nresid;
};

static int quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

/* Where tracefs is: /sys/kernel/tracing, else debugfs's tracing, else a
 * mount of our own in a scratch directory, for the moment the formats and
 * ids are read (@mnt: where, to undo with untracefs; "" if not ours).
 * Not every machine mounts tracefs at boot, and the tracepoints need it
 * only for those two reads: the programs are attached by id. */
static const char *tracefs(char *mnt, size_t n)
{
	static const char *const at[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	char path[96];

	mnt[0] = 0;
	for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
		snprintf(path, sizeof(path), "%s/events/block", at[i]);
		if (!access(path, R_OK))
			return at[i];
	}
	const char *tmp = getenv("TMPDIR");
	snprintf(mnt, n, "%s/tiersim-tracefs-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(mnt)) {
		mnt[0] = 0;
		return NULL;
	}
	if (mount("nodev", mnt, "tracefs", 0, NULL)) {
		(void)rmdir(mnt);
		mnt[0] = 0;
		return NULL;
	}
	return mnt;
}

static void untracefs(const char *mnt)
{
	if (mnt[0]) {
		(void)umount2(mnt, MNT_DETACH);
		(void)rmdir(mnt);
	}
}

/* Whether the running kernel's record of tracepoint block/@name (under
 * tracefs @root) has dev, sector and nr_sector where the program reads
 * them. */
static bool layout_ok(const char *root, const char *name)
{
	static const struct {
		const char *field;
		unsigned off;
	} want[] = { { "dev_t dev;", TS_ISSUE_TP_DEV },
		     { "sector_t sector;", TS_ISSUE_TP_SECTOR },
		     { "unsigned int nr_sector;", TS_ISSUE_TP_NR } };
	char path[256], line[256];
	unsigned ok = 0;

	snprintf(path, sizeof(path), "%s/events/block/%s/format", root, name);
	FILE *f = fopen(path, "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
			const char *p = strstr(line, want[i].field);
			unsigned off;
			if (p && sscanf(p + strlen(want[i].field), " offset:%u;", &off) == 1 &&
			    off == want[i].off)
				ok |= 1u << i;
		}
	fclose(f);
	return ok == 7;
}

/* Tracepoint block/@name's id under tracefs @root, or -1. */
static long tp_id(const char *root, const char *name)
{
	char path[256];
	long id = -1;

	snprintf(path, sizeof(path), "%s/events/block/%s/id", root, name);
	FILE *f = fopen(path, "re");
	if (!f)
		return -1;
	if (fscanf(f, "%ld", &id) != 1)
		id = -1;
	fclose(f);
	return id;
}

/* @prog attached to the tracepoint with @id (a perf event of its own,
 * which the link owns), or NULL with errno. */
static struct bpf_link *attach_tp(struct bpf_program *prog, long id)
{
	struct perf_event_attr a = { .type = PERF_TYPE_TRACEPOINT,
				     .size = sizeof(a),
				     .config = (uint64_t)id,
				     .sample_period = 1,
				     .wakeup_events = 1 };
	int fd = (int)syscall(SYS_perf_event_open, &a, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return NULL;
	struct bpf_link *l = bpf_program__attach_perf_event(prog, fd);
	if (!l) {
		int e = errno;
		close(fd);
		errno = e;
	}
	return l;
}

int ts_issue_open(struct ts_issue **out, const char *mountpoint, char *err, size_t n)
{
	struct ts_issue *is = calloc(1, sizeof(*is));
	int rc = 0;

	*out = NULL;
	if (!is || asprintf(&is->under, "%s/", mountpoint) < 0) {
		free(is);
		snprintf(err, n, "out of memory");
		return -ENOMEM;
	}
	pthread_mutex_init(&is->lock, NULL);
	char mnt[PATH_MAX];
	const char *root = tracefs(mnt, sizeof(mnt));
	long ids[2] = { -1, -1 };
	bool laid = root && layout_ok(root, "block_rq_issue") && layout_ok(root, "block_rq_complete");
	if (laid) {
		ids[0] = tp_id(root, "block_rq_issue");
		ids[1] = tp_id(root, "block_rq_complete");
	}
	untracefs(mnt);
	if (!root) {
		snprintf(err, n, "tracefs is not mounted and mounting it failed (root only): the "
				 "tracepoints block:block_rq_issue/block_rq_complete cannot be found");
		rc = -ENOTSUP;
		goto fail;
	}
	if (!laid || ids[0] < 0 || ids[1] < 0) {
		snprintf(err, n, "the tracepoints block:block_rq_issue/block_rq_complete are not "
				 "there or lay out dev, sector and nr_sector elsewhere");
		rc = -ENOTSUP;
		goto fail;
	}
	libbpf_set_print(quiet);
	is->skel = issue_bpf__open_and_load();
	if (!is->skel) {
		rc = -errno;
		snprintf(err, n, "cannot load its BPF program: %s", strerror(-rc));
		goto fail;
	}
	is->links[0] = attach_tp(is->skel->progs.on_issue, ids[0]);
	is->links[1] = is->links[0] ? attach_tp(is->skel->progs.on_complete, ids[1]) : NULL;
	if (!is->links[1]) {
		rc = -errno;
		snprintf(err, n, "cannot attach to block:block_rq_issue/block_rq_complete: %s",
			 strerror(-rc));
		goto fail;
	}
	*out = is;
	return 0;
fail:
	ts_issue_close(is);
	return rc ? rc : -EINVAL;
}

void ts_issue_close(struct ts_issue *is)
{
	if (!is)
		return;
	for (int i = 0; i < 2; i++)
		bpf_link__destroy(is->links[i]);
	issue_bpf__destroy(is->skel);
	pthread_mutex_destroy(&is->lock);
	free(is->under);
	free(is);
}

/* The loop device whose backing file lies under the mount point (not
 * under .tierfs, the calibration's), as the kernel's dev_t; 0 if none. */
static uint32_t find_dev(const char *under)
{
	DIR *d = opendir("/sys/block");
	struct dirent *e;
	uint32_t dev = 0;
	size_t len = strlen(under);

	if (!d)
		return 0;
	while (!dev && (e = readdir(d))) {
		char path[320], back[4200];
		unsigned maj, min;
		if (strncmp(e->d_name, "loop", 4))
			continue;
		snprintf(path, sizeof(path), "/sys/block/%s/loop/backing_file", e->d_name);
		FILE *f = fopen(path, "re");
		if (!f)
			continue;
		bool mine = fgets(back, sizeof(back), f) && !strncmp(back, under, len) &&
			    strncmp(back + len, ".tierfs/", 8);
		fclose(f);
		snprintf(path, sizeof(path), "/sys/block/%s/dev", e->d_name);
		if (mine && (f = fopen(path, "re"))) {
			if (fscanf(f, "%u:%u", &maj, &min) == 2)
				dev = maj << 20 | (min & 0xfffff);
			fclose(f);
		}
	}
	closedir(d);
	return dev;
}

uint64_t ts_issue_lookup(struct ts_issue *is, uint64_t off, uint64_t len, uint64_t arrive_ns)
{
	if (!__atomic_load_n(&is->dev, __ATOMIC_ACQUIRE)) {
		pthread_mutex_lock(&is->lock);
		if (!is->dev && arrive_ns - is->scanned_ns > SCAN_EVERY_NS) {
			is->scanned_ns = arrive_ns;
			uint32_t dev = find_dev(is->under);
			if (dev) {
				is->skel->bss->dev = dev;
				__atomic_store_n(&is->dev, dev, __ATOMIC_RELEASE);
			}
		}
		pthread_mutex_unlock(&is->lock);
		return 0; /* this request was issued before the program looked */
	}
	if (off & 511)
		return 0;
	uint64_t sector = off >> 9;
	struct ts_issue_slot *s = &is->skel->bss->slot[TS_ISSUE_SLOT(sector)];
	uint64_t issue = __atomic_load_n(&s->issue_ns, __ATOMIC_ACQUIRE);
	/* the slot is this request's (a request of the same place and
	 * length, issued before it came and within a second) */
	if (__atomic_load_n(&s->sector, __ATOMIC_ACQUIRE) != sector ||
	    (uint64_t)__atomic_load_n(&s->sectors, __ATOMIC_RELAXED) << 9 != len || !issue ||
	    issue > arrive_ns || arrive_ns - issue > 1000000000ULL ||
	    __atomic_load_n(&s->issue_ns, __ATOMIC_ACQUIRE) != issue)
		return 0;
	__atomic_add_fetch(&is->found, 1, __ATOMIC_RELAXED);
	return issue;
}

/* Takes in the hops completed since the last call (the caller holds
 * the lock). */
static void drain(struct ts_issue *is)
{
	uint64_t end = __atomic_load_n(&is->skel->bss->nhops, __ATOMIC_ACQUIRE);
	uint64_t i = is->drained;
	if (end - i > TS_ISSUE_HOPS) {
		is->lost += end - i - TS_ISSUE_HOPS;
		i = end - TS_ISSUE_HOPS;
	}
	for (; i < end; i++) {
		uint64_t h = __atomic_load_n(&is->skel->bss->hops[i & (TS_ISSUE_HOPS - 1)],
					     __ATOMIC_RELAXED);
		int64_t d = __atomic_load_n(&is->skel->bss->resid[i & (TS_ISSUE_HOPS - 1)],
					    __ATOMIC_RELAXED);
		ts_issue_est_hop(&is->est, (h >> 32) << 9, h & 0xffffffffULL);
		if (d)
			is->resid[is->nresid++ % RESID_KEEP] = d;
	}
	__atomic_store_n(&is->drained, end, __ATOMIC_RELAXED);
	for (unsigned c = 0; c < TS_ISSUE_CLASSES; c++) {
		uint64_t off = 0;
		if (!ts_issue_est_get(&is->est, 4096ULL << c, &off))
			off = 0;
		__atomic_store_n(&is->off[c], off, __ATOMIC_RELAXED);
	}
}

bool ts_issue_off(struct ts_issue *is, uint64_t len, uint64_t *off_ns)
{
	if (__atomic_load_n(&is->skel->bss->nhops, __ATOMIC_RELAXED) !=
		    __atomic_load_n(&is->drained, __ATOMIC_RELAXED) &&
	    !pthread_mutex_trylock(&is->lock)) {
		drain(is);
		pthread_mutex_unlock(&is->lock);
	}
	*off_ns = __atomic_load_n(&is->off[ts_issue_class(len)], __ATOMIC_RELAXED);
	return *off_ns != 0;
}

void ts_issue_replied(struct ts_issue *is, uint64_t off, uint64_t issue_ns, uint64_t end_ns,
		      bool used, uint64_t due_ns, uint64_t sys_ns, uint64_t reply_ns)
{
	uint64_t sector = off >> 9;
	struct ts_issue_slot *s = &is->skel->bss->slot[TS_ISSUE_SLOT(sector)];
	if (__atomic_load_n(&s->sector, __ATOMIC_ACQUIRE) == sector &&
	    __atomic_load_n(&s->issue_ns, __ATOMIC_ACQUIRE) == issue_ns) {
		__atomic_store_n(&s->model_ns, end_ns, __ATOMIC_RELAXED);
		__atomic_store_n(&s->reply_ns, reply_ns, __ATOMIC_RELEASE);
	}
	if (used)
		__atomic_add_fetch(&is->used, 1, __ATOMIC_RELAXED);
	/* lateness behind the later of the model's time and the syscall's
	 * end, as the trace's late_ns */
	uint64_t ready = due_ns > sys_ns ? due_ns : sys_ns;
	if (due_ns && reply_ns >= ready) {
		pthread_mutex_lock(&is->lock);
		ts_issue_est_late(&is->est, reply_ns - ready);
		pthread_mutex_unlock(&is->lock);
	}
}

void ts_issue_missed(struct ts_issue *is)
{
	__atomic_add_fetch(&is->missed, 1, __ATOMIC_RELAXED);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

json_t *ts_issue_stats_json(struct ts_issue *is)
{
	json_t *o = json_object(), *hop = json_object();
	char k[16];

	pthread_mutex_lock(&is->lock);
	drain(is); /* where no request took the hops in (watch) */
	json_object_set_new(o, "dev", json_integer(is->dev ? (json_int_t)(is->dev >> 20) : -1));
	json_object_set_new(o, "dev_minor", json_integer((json_int_t)(is->dev & 0xfffff)));
	json_object_set_new(o, "found", json_integer((json_int_t)is->found));
	json_object_set_new(o, "used", json_integer((json_int_t)is->used));
	json_object_set_new(o, "missed", json_integer((json_int_t)is->missed));
	json_object_set_new(o, "hops", json_integer((json_int_t)is->drained));
	json_object_set_new(o, "hops_lost", json_integer((json_int_t)is->lost));
	for (unsigned c = 0; c < TS_ISSUE_CLASSES; c++)
		if (is->est.n[c] >= TS_ISSUE_MIN) {
			snprintf(k, sizeof(k), "%lluk", (unsigned long long)(4ULL << c));
			json_object_set_new(hop, k, json_integer((json_int_t)est_mean(&is->est, c)));
		}
	json_object_set_new(o, "reply_hop_ns", hop);
	/* the kernel's completion less the model's (issue + its time), over
	 * the last RESID_KEEP requests scheduled from their issue */
	size_t nk = is->nresid < RESID_KEEP ? (size_t)is->nresid : RESID_KEEP;
	int64_t *v = nk ? malloc(nk * sizeof(*v)) : NULL;
	if (v) {
		memcpy(v, is->resid, nk * sizeof(*v));
		qsort(v, nk, sizeof(*v), cmp_i64);
		json_t *r = json_object();
		json_object_set_new(r, "n", json_integer((json_int_t)nk));
		json_object_set_new(r, "p25", json_integer(v[nk / 4]));
		json_object_set_new(r, "median", json_integer(v[(nk - 1) / 2]));
		json_object_set_new(r, "p75", json_integer(v[3 * nk / 4]));
		double sum = 0;
		for (size_t i = 0; i < nk; i++)
			sum += (double)v[i];
		json_object_set_new(r, "mean", json_integer((json_int_t)(sum / (double)nk)));
		json_object_set_new(o, "completion_less_model_ns", r);
		free(v);
	}
	json_object_set_new(o, "late_ns",
			    is->est.n[TS_ISSUE_CLASSES] >= TS_ISSUE_MIN
				    ? json_integer((json_int_t)est_mean(&is->est, TS_ISSUE_CLASSES))
				    : json_null());
	pthread_mutex_unlock(&is->lock);
	return o;
}

#else /* no BPF in this build */

struct ts_issue {
	int none;
};

int ts_issue_open(struct ts_issue **out, const char *mountpoint, char *err, size_t n)
{
	(void)mountpoint;
	*out = NULL;
	snprintf(err, n, "this build has no BPF (meson -Dbpf=enabled needs libbpf, clang and "
			 "bpftool)");
	return -ENOTSUP;
}

void ts_issue_close(struct ts_issue *is)
{
	free(is);
}

uint64_t ts_issue_lookup(struct ts_issue *is, uint64_t off, uint64_t len, uint64_t arrive_ns)
{
	(void)is, (void)off, (void)len, (void)arrive_ns;
	return 0;
}

bool ts_issue_off(struct ts_issue *is, uint64_t len, uint64_t *off_ns)
{
	(void)is, (void)len;
	*off_ns = 0;
	return false;
}

void ts_issue_replied(struct ts_issue *is, uint64_t off, uint64_t issue_ns, uint64_t end_ns,
		      bool used, uint64_t due_ns, uint64_t sys_ns, uint64_t reply_ns)
{
	(void)is, (void)off, (void)issue_ns, (void)end_ns, (void)used, (void)due_ns, (void)sys_ns;
	(void)reply_ns;
}

void ts_issue_missed(struct ts_issue *is)
{
	(void)is;
}

json_t *ts_issue_stats_json(struct ts_issue *is)
{
	(void)is;
	return json_object();
}
#endif
