/*
 * wake_load.c — a recorded command whose wakes are known, for
 * wake_bpf.sh: on one CPU,
 *   - threads "ping" and "pong" hand a token back and forth ROUNDS times
 *     through two pipes, each sleeping 3 ms before it hands it on, so that
 *     the other is asleep in its read by then: each wakes the other
 *     ROUNDS times (W lines, both ways);
 *   - thread "sleeper" (made before "spinner") sleeps 1 ms ROUNDS times
 *     while thread "spinner" holds the CPU: the timer's interrupt wakes
 *     it, on behalf of no thread though "spinner" is the one it
 *     interrupts (no W line);
 *   - thread "disk" reads FILE with O_DIRECT ROUNDS times: it waits for
 *     the device in state D and the device's completion wakes it from
 *     outside the command (S lines);
 *   - the main thread joins them all (W lines, by their exits).
 * Usage: wake_load FILE (at least 1 MiB, on a block device's file system).
 *        wake_load --threads N: N threads one after another, each joined
 *        before the next starts, and nothing else (a tree with more threads
 *        over its life than the BPF capture holds at once).
 */

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define ROUNDS 20

static int ab[2], ba[2];
static atomic_int spin = 1;
static atomic_int sleeper_up, spinning;
static const char *file;

static void nap(long us)
{
	struct timespec ts = {0, us * 1000};
	while (nanosleep(&ts, &ts))
		;
}

static void *ping(void *arg)
{
	char c = 0;
	(void)arg;
	pthread_setname_np(pthread_self(), "ping");
	for (int i = 0; i < ROUNDS; i++) {
		nap(3000);
		if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1)
			exit(1);
	}
	return NULL;
}

static void *pong(void *arg)
{
	char c;
	(void)arg;
	pthread_setname_np(pthread_self(), "pong");
	for (int i = 0; i < ROUNDS; i++) {
		if (read(ab[0], &c, 1) != 1)
			exit(1);
		nap(3000);
		if (write(ba[1], &c, 1) != 1)
			exit(1);
	}
	return NULL;
}

/* The sleeper is up (named, its nap's path taken once) before the
 * spinner is made, and naps only once the spinner spins: a thread that
 * starts while the other starts can wait on the other's start-up (a
 * sanitizer's runtime maps memory for each new thread), and the other's
 * wake would be a thread's. Until then each yields the one CPU, which is
 * no sleep. */
static void *sleeper(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "sleeper");
	nap(1);
	atomic_store(&sleeper_up, 1);
	while (!atomic_load(&spinning))
		sched_yield();
	for (int i = 0; i < ROUNDS; i++)
		nap(1000);
	return NULL;
}

static void *spinner(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "spinner");
	atomic_store(&spinning, 1);
	while (atomic_load(&spin))
		;
	return NULL;
}

static void *disk(void *arg)
{
	void *buf;
	(void)arg;
	pthread_setname_np(pthread_self(), "disk");
	int fd = open(file, O_RDONLY | O_DIRECT);
	if (fd < 0 || posix_memalign(&buf, 4096, 4096)) {
		perror(file);
		exit(1);
	}
	for (int i = 0; i < ROUNDS; i++)
		if (pread(fd, buf, 4096, (off_t)((i * 37) % 256) * 4096) != 4096) {
			perror(file);
			exit(1);
		}
	free(buf);
	close(fd);
	return NULL;
}

static void *idle(void *arg)
{
	return arg;
}

static void run(void *(*fn)(void *), pthread_t *t)
{
	if (pthread_create(t, NULL, fn, NULL)) {
		fprintf(stderr, "wake_load: pthread_create failed\n");
		exit(1);
	}
}

int main(int argc, char **argv)
{
	pthread_t t[3];
	cpu_set_t set;

	if (argc == 3 && !strcmp(argv[1], "--threads")) {
		long n = strtol(argv[2], NULL, 10);
		for (long i = 0; i < n; i++) {
			run(idle, &t[0]);
			pthread_join(t[0], NULL);
		}
		return 0;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: wake_load FILE | wake_load --threads N\n");
		return 2;
	}
	file = argv[1];
	/* one CPU: a thread runs only once the one before it is off it */
	if (!sched_getaffinity(0, sizeof(set), &set)) {
		int cpu = 0;
		while (cpu < CPU_SETSIZE && !CPU_ISSET(cpu, &set))
			cpu++;
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		(void)sched_setaffinity(0, sizeof(set), &set);
	}
	if (pipe(ab) || pipe(ba))
		return 1;
	run(ping, &t[0]);
	run(pong, &t[1]);
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	run(sleeper, &t[1]);
	while (!atomic_load(&sleeper_up))
		sched_yield();
	run(spinner, &t[0]);
	pthread_join(t[1], NULL);
	atomic_store(&spin, 0);
	pthread_join(t[0], NULL);
	run(disk, &t[2]);
	pthread_join(t[2], NULL);
	return 0;
}
