/*
 * wake_capture.c — the scheduler tracepoints of a recorded command
 * (wake_capture.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/files.h"
#include "traces/wake_capture.h"
#include "traces/wakes.h"

#define TRACEFS "/sys/kernel/tracing"

struct ts_wake_capture {
	char dir[PATH_MAX + 64];
	char mnt[PATH_MAX]; /* tracefs mounted for this capture alone, or "" */
	int pipe_fd;
	pthread_t reader;
	bool running;
	atomic_bool stop;
	struct ts_wakes_parser *parser;
	int err; /* the reader's: -ENOMEM */
	uint64_t busy0; /* /proc/stat's busy CPU time at the start, ns */
	uint32_t cpus;
};

static const char *const events[] = {"sched_switch", "sched_waking", "sched_process_fork",
				     "sched_process_exit", "sched_process_exec"};

static int put(const struct ts_wake_capture *c, const char *file, const char *val)
{
	char path[PATH_MAX + 160];
	snprintf(path, sizeof(path), "%s/%s", c->dir, file);
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ssize_t n = write(fd, val, strlen(val));
	int e = n < 0 ? -errno : 0;
	close(fd);
	return e;
}

/* Per-CPU ring buffer: 8 MiB (a few seconds of context switches of a
 * busy loader between two drains), or $TIERSIM_WAKES_BUFFER_KB. */
static const char *buffer_kb(void)
{
	const char *v = getenv("TIERSIM_WAKES_BUFFER_KB");
	return v && *v && strspn(v, "0123456789") == strlen(v) ? v : "8192";
}

/* All CPUs' busy time so far (/proc/stat: user, nice, system, irq,
 * softirq, steal), ns; 0 when unreadable. */
static uint64_t busy_ns(void)
{
	unsigned long long v[8] = {0};
	FILE *f = fopen("/proc/stat", "re");
	int n = f ? fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2],
			   &v[3], &v[4], &v[5], &v[6], &v[7])
		  : 0;
	if (f)
		fclose(f);
	long hz = sysconf(_SC_CLK_TCK);
	if (n < 8 || hz <= 0)
		return 0;
	/* v[3] idle and v[4] iowait are not busy */
	unsigned long long ticks = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
	return (uint64_t)(ticks * (1000000000ULL / (unsigned long long)hz));
}

static uint32_t tgid_of(uint32_t tid)
{
	char path[64], buf[512];
	snprintf(path, sizeof(path), "/proc/%u/status", tid);
	FILE *f = fopen(path, "re");
	uint32_t tgid = 0;
	if (!f)
		return 0;
	while (fgets(buf, sizeof(buf), f))
		if (sscanf(buf, "Tgid: %u", &tgid) == 1)
			break;
	fclose(f);
	return tgid;
}

static void remove_instance(struct ts_wake_capture *c)
{
	if (*c->dir) {
		(void)put(c, "tracing_on", "0");
		(void)rmdir(c->dir);
	}
	if (*c->mnt) {
		(void)umount2(c->mnt, MNT_DETACH);
		(void)rmdir(c->mnt);
	}
}

int ts_wake_capture_open(struct ts_wake_capture **out, const char *scratch, char *why,
			 size_t whylen)
{
	struct ts_wake_capture *c = calloc(1, sizeof(*c));
	const char *root = TRACEFS;
	struct stat st;
	int e;

	*out = NULL;
	if (!c)
		return -ENOMEM;
	c->pipe_fd = -1;
	if (stat(TRACEFS "/instances", &st)) {
		/* not mounted where it usually is: a mount of our own, in
		 * @scratch, that nobody else uses or unmounts under us */
		if (geteuid() != 0) {
			snprintf(why, whylen, "tracefs is not mounted at " TRACEFS
					      " and mounting it needs root");
			free(c);
			return -EACCES;
		}
		snprintf(c->mnt, sizeof(c->mnt), "%s/tracefs", scratch);
		if (mkdir(c->mnt, 0700) || mount("nodev", c->mnt, "tracefs", 0, NULL)) {
			e = -errno;
			snprintf(why, whylen, "mounting tracefs at %s: %s", c->mnt, strerror(errno));
			(void)rmdir(c->mnt);
			free(c);
			return e;
		}
		root = c->mnt;
	}
	snprintf(c->dir, sizeof(c->dir), "%s/instances/tiersim-record-%ld", root, (long)getpid());
	if (mkdir(c->dir, 0700)) {
		e = -errno;
		snprintf(why, whylen, "%s: %s", c->dir, strerror(errno));
		*c->dir = 0;
		remove_instance(c);
		free(c);
		return e;
	}
	/* a new instance traces from the start: off until the command's pid
	 * is the filter */
	const char *step = "tracing_on";
	if (!(e = put(c, "tracing_on", "0")) && !(e = put(c, "trace_clock", "mono")) &&
	    !(e = put(c, "buffer_size_kb", buffer_kb())) &&
	    !(e = put(c, "options/event-fork", "1"))) {
		for (size_t i = 0; i < TS_ARRAY_SIZE(events) && !e; i++) {
			char f[96];
			snprintf(f, sizeof(f), "events/sched/%s/enable", events[i]);
			step = events[i];
			e = put(c, f, "1");
		}
	}
	if (e) {
		snprintf(why, whylen, "%s: setting %s: %s", c->dir, step, strerror(-e));
		remove_instance(c);
		free(c);
		return e;
	}
	*out = c;
	return 0;
}

static int feed(struct ts_wake_capture *c, char *buf, size_t *len)
{
	char *p = buf, *nl;
	while ((nl = memchr(p, '\n', (size_t)(buf + *len - p)))) {
		*nl = 0;
		if (ts_wakes_parser_line(c->parser, p) < 0)
			return -ENOMEM;
		p = nl + 1;
	}
	*len = (size_t)(buf + *len - p);
	memmove(buf, p, *len);
	if (*len > 4096) /* a line longer than any tracepoint's: drop it */
		*len = 0;
	return 0;
}

/* Drains trace_pipe while the command runs, and once more after it. */
static void *reader_main(void *arg)
{
	struct ts_wake_capture *c = arg;
	char buf[65536];
	size_t len = 0;

	for (;;) {
		bool stopping = atomic_load(&c->stop);
		ssize_t n = read(c->pipe_fd, buf + len, sizeof(buf) - 1 - len);
		if (n > 0) {
			len += (size_t)n;
			if ((c->err = feed(c, buf, &len)))
				break;
			continue;
		}
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			break;
		if (stopping)
			break;
		/* empty: trace_pipe's poll says readable even then, so wait
		 * here; the per-CPU buffers hold far more than 20 ms of events */
		struct timespec ts = {0, 20 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	return NULL;
}

int ts_wake_capture_start(struct ts_wake_capture *c, pid_t pid, char *why, size_t whylen)
{
	char v[32], path[PATH_MAX + 96];
	int e;

	snprintf(v, sizeof(v), "%ld", (long)pid);
	if ((e = ts_wakes_parser_new((uint32_t)pid, ts_now_ns(), &c->parser))) {
		snprintf(why, whylen, "out of memory");
		return e;
	}
	ts_wakes_parser_tgid(c->parser, tgid_of);
	cpu_set_t set;
	c->cpus = sched_getaffinity(pid, sizeof(set), &set) ? 0 : (uint32_t)CPU_COUNT(&set);
	c->busy0 = busy_ns();
	snprintf(path, sizeof(path), "%s/trace_pipe", c->dir);
	if ((c->pipe_fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0 ||
	    (e = put(c, "set_event_pid", v)) || (e = put(c, "tracing_on", "1"))) {
		e = c->pipe_fd < 0 ? -errno : e;
		snprintf(why, whylen, "%s: %s", c->dir, strerror(-e));
		return e;
	}
	if ((e = -pthread_create(&c->reader, NULL, reader_main, c))) {
		snprintf(why, whylen, "starting the scheduler reader: %s", strerror(-e));
		return e;
	}
	c->running = true;
	return 0;
}

/* Events the instance's ring buffers lost (overwritten before they were
 * read, or dropped): per_cpu/cpuN/stats. */
static uint64_t lost_events(const struct ts_wake_capture *c)
{
	uint64_t lost = 0;
	for (int cpu = 0;; cpu++) {
		char path[PATH_MAX + 160], line[128];
		snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/stats", c->dir, cpu);
		FILE *f = fopen(path, "re");
		if (!f)
			break;
		while (fgets(line, sizeof(line), f)) {
			unsigned long long v;
			if (sscanf(line, "overrun: %llu", &v) == 1 ||
			    sscanf(line, "dropped events: %llu", &v) == 1)
				lost += v;
		}
		fclose(f);
	}
	return lost;
}

int ts_wake_capture_close(struct ts_wake_capture *c, const char *path, char *why,
			  size_t whylen)
{
	struct ts_wakes s = {0};
	int e = 0;

	if (!c)
		return 0;
	uint64_t end = ts_now_ns();
	(void)put(c, "tracing_on", "0");
	if (c->running) {
		atomic_store(&c->stop, true);
		pthread_join(c->reader, NULL);
	}
	if (c->pipe_fd >= 0)
		close(c->pipe_fd);
	uint64_t lost = path ? lost_events(c) : 0;
	if (c->err) {
		e = c->err;
		snprintf(why, whylen, "reading the scheduler events: %s", strerror(-e));
	} else if (lost) {
		/* a wake file with holes would order the replay wrongly and
		 * say nothing: none at all, and the reason */
		e = -ENOBUFS;
		snprintf(why, whylen,
			 "the kernel lost %llu scheduler events (its buffers filled faster than "
			 "they were read); none written",
			 (unsigned long long)lost);
	} else if (path && c->parser) {
		(void)!ts_wakes_parser_finish(c->parser, end, &s);
		/* what the host's CPUs did for others meanwhile: the replay's
		 * CPU model leaves it to them */
		uint64_t busy1 = busy_ns(), mine = 0;
		for (size_t i = 0; i < s.nthreads; i++)
			mine += s.threads[i].oncpu_ns;
		if (c->busy0 && busy1 > c->busy0 && c->cpus) {
			s.cpus = c->cpus;
			s.others_ns = busy1 - c->busy0 > mine ? busy1 - c->busy0 - mine : 0;
		}
		char tmp[PATH_MAX + 16];
		snprintf(tmp, sizeof(tmp), "%s.tmp", path);
		FILE *f = fopen(tmp, "we");
		if (!f) {
			e = -errno;
		} else {
			e = ts_wakes_write(f, &s);
			if (fclose(f) && !e)
				e = -errno;
		}
		if (e) {
			snprintf(why, whylen, "%s: %s", tmp, strerror(-e));
			unlink(tmp);
		} else if (rename(tmp, path)) {
			e = -errno;
			snprintf(why, whylen, "%s: %s", path, strerror(errno));
			unlink(tmp);
		}
		ts_wakes_free(&s);
	}
	ts_wakes_parser_free(c->parser);
	remove_instance(c);
	free(c);
	return e;
}
