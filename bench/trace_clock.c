/*
 * trace_clock.c — what reading another process's thread's CPU clock costs,
 * each way Linux offers, and whether each gives what a tierfs CPU sample
 * records (traces/FORMAT.md, "CPU samples": /proc/TID/schedstat's time on
 * a CPU and time runnable, both cumulative).
 *
 *   trace_clock [READS] [THREADS]
 *
 * A child process (THREADS threads, default 1) burns some CPU, then each
 * thread sleeps in read() on a pipe, as a FUSE client's thread sleeps while
 * its request is served. The parent reads one of them READS times (default
 * 200,000) each way and prints its own CPU time a read (its thread's CPU
 * clock, which is what a daemon worker spends) and the wall time:
 *
 *   schedstat     pread of /proc/TID/schedstat kept open, two numbers parsed
 *                 (what tierfs does; fs/trace_hook.c)
 *   stat          pread of /proc/TID/stat kept open (not parsed)
 *   task-clock    read() of a perf_event_open(PERF_COUNT_SW_TASK_CLOCK)
 *                 counter opened once on the thread
 *   process-clock clock_gettime() of the child's process CPU clock (Linux
 *                 allows another process's process clock, a thread clock
 *                 only within the caller's own thread group)
 *
 * Then whether the cheaper ways give the same figures: the child's thread
 * is woken 5 times to burn ~3 ms of CPU beside a spinner on the same CPU
 * (so that it also waits runnable), and after each it sleeps again; the
 * growth of schedstat's two fields is printed beside the task-clock
 * counter's count and its time enabled and running, and the process clock.
 * A task-clock counter counts only while its thread runs, its enabled and
 * running times with it: it has no figure for the time runnable.
 *
 * Run it under `q bench`. It needs perf_event_open on the child (root or
 * kernel.perf_event_paranoid <= 2); without it the task-clock lines say so.
 */
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CPUCLOCK_SCHED 2 /* the process CPU clock of a pid: ~pid << 3 | 2 */

static int go[2], tids[2], done[2];

static uint64_t now(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void burn_ns(uint64_t ns)
{
	uint64_t t = now(CLOCK_THREAD_CPUTIME_ID);
	while (now(CLOCK_THREAD_CPUTIME_ID) - t < ns)
		;
}

/* A client thread: its tid to the parent, then asleep in read(); each byte
 * read, ~3 ms of CPU burnt and a byte back. */
static void *client(void *first)
{
	pid_t tid = (pid_t)syscall(SYS_gettid);
	char c;

	if (write(tids[1], &tid, sizeof(tid)) != sizeof(tid))
		return NULL;
	if (!first) { /* the others only sleep */
		pause();
		return NULL;
	}
	while (read(go[0], &c, 1) == 1) {
		burn_ns(3000000);
		if (write(done[1], &c, 1) != 1)
			break;
	}
	return NULL;
}

/* schedstat's two first fields; 0 on error */
static uint64_t schedstat(int fd, uint64_t *runq)
{
	char b[96];
	ssize_t n = pread(fd, b, sizeof(b) - 1, 0);
	if (n <= 0)
		return 0;
	b[n] = 0;
	char *e;
	uint64_t on = strtoull(b, &e, 10);
	*runq = strtoull(e, NULL, 10);
	return on;
}

int main(int argc, char **argv)
{
	long reads = argc > 1 ? atol(argv[1]) : 200000;
	int threads = argc > 2 ? atoi(argv[2]) : 1;
	char path[64];

	if (reads < 1 || threads < 1 || threads > 64 || pipe(go) || pipe(tids) || pipe(done)) {
		fprintf(stderr, "usage: trace_clock [READS] [THREADS (1-64)]\n");
		return 2;
	}
	pid_t child = fork();
	if (!child) {
		cpu_set_t s;
		CPU_ZERO(&s);
		CPU_SET(0, &s);
		sched_setaffinity(0, sizeof(s), &s); /* beside the spinner below */
		burn_ns(20000000);
		pthread_t th;
		for (int i = 1; i < threads; i++)
			pthread_create(&th, NULL, client, NULL);
		client((void *)1);
		_exit(0);
	}
	pid_t tid = 0;
	for (int i = 0; i < threads; i++)
		if (read(tids[0], &tid, sizeof(tid)) != sizeof(tid))
			return 1;
	tid = child;	/* the main thread: the one read, and woken below */
	usleep(100000); /* asleep in read() by now */

	snprintf(path, sizeof(path), "/proc/%d/schedstat", tid);
	int sfd = open(path, O_RDONLY | O_CLOEXEC);
	snprintf(path, sizeof(path), "/proc/%d/stat", tid);
	int stfd = open(path, O_RDONLY | O_CLOEXEC);
	if (sfd < 0 || stfd < 0) {
		perror("trace_clock: /proc");
		kill(child, SIGKILL);
		return 1;
	}
	struct perf_event_attr at = {.type = PERF_TYPE_SOFTWARE,
				     .size = sizeof(at),
				     .config = PERF_COUNT_SW_TASK_CLOCK,
				     .read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
						    PERF_FORMAT_TOTAL_TIME_RUNNING};
	uint64_t rq0, on0 = schedstat(sfd, &rq0);
	int pe = (int)syscall(SYS_perf_event_open, &at, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (pe < 0)
		perror("trace_clock: perf_event_open (task-clock lines left out)");
	clockid_t pclk = (clockid_t)((~(unsigned)child << 3) | CPUCLOCK_SCHED);

	printf("# reading thread %d of process %d (%d thread%s), %ld reads a way, 3 rounds\n", tid,
	       child, threads, threads > 1 ? "s" : "", reads);
	static const char *const way[] = {"schedstat", "stat", "task-clock", "process-clock"};
	uint64_t sink = 0;
	for (int round = 0; round < 3; round++)
		for (int m = 0; m < 4; m++) {
			if (m == 2 && pe < 0)
				continue;
			uint64_t w0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_THREAD_CPUTIME_ID);
			for (long i = 0; i < reads; i++) {
				char b[512];
				uint64_t v[3] = {0}, x = 0;
				switch (m) {
				case 0:
					sink += schedstat(sfd, &x) + x;
					break;
				case 1:
					sink += (uint64_t)pread(stfd, b, sizeof(b), 0);
					break;
				case 2:
					sink += (uint64_t)read(pe, v, sizeof(v)) + v[0];
					break;
				default:
					sink += now(pclk);
					break;
				}
			}
			uint64_t c = now(CLOCK_THREAD_CPUTIME_ID) - c0,
				 w = now(CLOCK_MONOTONIC) - w0;
			printf("%-14s cpu %7.1f ns a read, wall %7.1f ns\n", way[m],
			       (double)c / (double)reads, (double)w / (double)reads);
		}

	/* the figures, beside a spinner on the child's CPU */
	pid_t spin = fork();
	if (!spin) {
		cpu_set_t s;
		CPU_ZERO(&s);
		CPU_SET(0, &s);
		sched_setaffinity(0, sizeof(s), &s);
		for (;;)
			;
	}
	printf("# after each of 5 bursts of ~3 ms CPU (the thread asleep again), ns since the "
	       "counter opened:\n#   schedstat on, runq | task-clock count, enabled, running | "
	       "process clock\n");
	uint64_t pc0 = now(pclk);
	for (int i = 0; i < 5; i++) {
		char c = 1;
		uint64_t v[3] = {0}, rq;
		if (write(go[1], &c, 1) != 1 || read(done[0], &c, 1) != 1)
			break;
		usleep(20000);
		if (pe >= 0 && read(pe, v, sizeof(v)) != sizeof(v))
			v[0] = v[1] = v[2] = 0;
		uint64_t on = schedstat(sfd, &rq);
		printf("  %10llu %10llu | %10llu %10llu %10llu | %10llu\n",
		       (unsigned long long)(on - on0), (unsigned long long)(rq - rq0),
		       (unsigned long long)v[0], (unsigned long long)v[1], (unsigned long long)v[2],
		       (unsigned long long)(now(pclk) - pc0));
	}
	kill(spin, SIGKILL);
	kill(child, SIGKILL);
	waitpid(spin, NULL, 0);
	waitpid(child, NULL, 0);
	fprintf(stderr, "%llu\n", (unsigned long long)sink);
	return 0;
}
