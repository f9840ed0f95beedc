/*
 * trace_ab.c — 4 KiB random O_DIRECT reads against two or more files (the
 * same data behind differently configured tierfs mounts), alternated in
 * short slices, so that a shared host's disturbances (another VM taking
 * the CPU, a daemon waking) fall on every file alike.
 *
 *   trace_ab QD SLICE_MS ROUNDS FILE[:PID] FILE[:PID]...
 *
 * QD threads each issue one pread at a time (QD reads in flight); a slice
 * gives every thread the same file for SLICE_MS, then all stop. A round is
 * one slice per file, in the order given on even rounds and reversed on
 * odd ones (ABC CBA ...), so that no file always follows the same one.
 * With :PID, the CPU time of that process (the daemon serving the file,
 * all its threads) is read around each of its slices.
 *
 * Prints, per file, the median IOPS (min..max) and daemon CPU per read
 * over the rounds; then, for each file after the first, its IOPS and CPU per read
 * as a ratio of the first file's in the same round: median, quartiles and
 * min..max over the rounds, and the median's distribution-free interval
 * (order statistics holding it with at least 90%). A ratio is of slices
 * taken a few hundred milliseconds apart, not of whole runs minutes apart
 * (bench/overhead.sh's 2-second runs spread 0.4 to 1.7 on this shared
 * host).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#define MAXF 8
#define MAXQD 256

static int nf, qd;
static int fds[MAXF];
static uint64_t blocks[MAXF];
static atomic_int target = -1; /* file of the running slice; -1: parked */
static atomic_int parked;
static atomic_int quit;
static _Atomic uint64_t done[MAXQD];

static uint64_t now_ns(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void *worker(void *arg)
{
	int id = (int)(intptr_t)arg;
	uint64_t x = 0x9E3779B97F4A7C15ull * (uint64_t)(id + 1);
	void *buf;

	if (posix_memalign(&buf, 4096, 4096))
		exit(1);
	for (;;) {
		int f = atomic_load(&target);
		if (f < 0) {
			atomic_fetch_add(&parked, 1);
			while ((f = atomic_load(&target)) < 0 && !atomic_load(&quit))
				usleep(50);
			atomic_fetch_sub(&parked, 1);
			if (atomic_load(&quit))
				break;
		}
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		off_t off = (off_t)(x % blocks[f]) * 4096;
		if (pread(fds[f], buf, 4096, off) != 4096) {
			perror("trace_ab: pread");
			exit(1);
		}
		atomic_fetch_add_explicit(&done[id], 1, memory_order_relaxed);
	}
	free(buf);
	return NULL;
}

static uint64_t total(void)
{
	uint64_t n = 0;
	for (int i = 0; i < qd; i++)
		n += atomic_load(&done[i]);
	return n;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The rank k (from 1) of the median's distribution-free interval over @n
 * values, [v(k), v(n+1-k)]: the largest k with P(Binomial(n, 1/2) < k) <=
 * 5%, so that it holds the median with at least 90% (bench/benchstat.py,
 * median_interval); its coverage in *@cover. 0: too few values. */
static int interval_rank(int n, double *cover)
{
	double p = 1, cdf = 0;
	int k = 0;
	for (int i = 0; i < n; i++)
		p *= 0.5; /* P(B = 0) */
	while (k + 1 <= (n + 1) / 2 && cdf + p <= 0.05) {
		cdf += p;
		p = p * (n - k) / (k + 1); /* P(B = k + 1) */
		k++;
	}
	*cover = 1 - 2 * cdf;
	return k;
}

/* sorts @v: median, quartiles, min..max, and the median's 90% interval */
static void spread(double *v, int n, char *out, size_t len)
{
	double cover;
	int k = interval_rank(n, &cover);
	qsort(v, (size_t)n, sizeof(*v), cmp);
	int used = snprintf(out, len, "%.3f (quartiles %.3f..%.3f, min..max %.3f..%.3f)", v[n / 2],
			    v[n / 4], v[(3 * n) / 4 < n ? (3 * n) / 4 : n - 1], v[0], v[n - 1]);
	if (k && used > 0 && (size_t)used < len)
		snprintf(out + used, len - (size_t)used, " [median within %.3f..%.3f, %.0f%%]",
			 v[k - 1], v[n - k], 100 * cover);
}

int main(int argc, char **argv)
{
	pid_t pid[MAXF] = {0};
	clockid_t clk[MAXF];

	if (argc < 6) {
		fprintf(stderr, "usage: trace_ab QD SLICE_MS ROUNDS FILE[:PID] FILE[:PID]...\n");
		return 2;
	}
	qd = atoi(argv[1]);
	int slice_ms = atoi(argv[2]), rounds = atoi(argv[3]);
	nf = argc - 4;
	if (qd < 1 || qd > MAXQD || slice_ms < 1 || rounds < 2 || nf > MAXF) {
		fprintf(stderr, "trace_ab: QD 1..%d, SLICE_MS >= 1, ROUNDS >= 2, at most %d files\n",
			MAXQD, MAXF);
		return 2;
	}
	for (int f = 0; f < nf; f++) {
		char *name = argv[4 + f], *colon = strrchr(name, ':');
		struct stat st;
		if (colon) {
			*colon = 0;
			pid[f] = (pid_t)atoi(colon + 1);
			if (clock_getcpuclockid(pid[f], &clk[f])) {
				fprintf(stderr, "trace_ab: no CPU clock for process %d\n", (int)pid[f]);
				return 1;
			}
		}
		if ((fds[f] = open(name, O_RDONLY | O_DIRECT)) < 0 || fstat(fds[f], &st) ||
		    st.st_size < 4096) {
			fprintf(stderr, "trace_ab: %s: %s\n", name,
				fds[f] < 0 ? strerror(errno) : "smaller than 4 KiB");
			return 1;
		}
		blocks[f] = (uint64_t)st.st_size / 4096;
	}
	pthread_t th[MAXQD];
	for (int i = 0; i < qd; i++)
		pthread_create(&th[i], NULL, worker, (void *)(intptr_t)i);

	double *iops = calloc((size_t)(nf * rounds), sizeof(double));
	double *cpu = calloc((size_t)(nf * rounds), sizeof(double));
	double *tmp = calloc((size_t)rounds, sizeof(double));
	if (!iops || !cpu || !tmp)
		return 1;
	for (int r = 0; r < rounds; r++) {
		for (int k = 0; k < nf; k++) {
			int f = r % 2 ? nf - 1 - k : k;
			while (atomic_load(&parked) < qd)
				usleep(50);
			uint64_t n0 = total(), c0 = pid[f] ? now_ns(clk[f]) : 0;
			uint64_t t0 = now_ns(CLOCK_MONOTONIC);
			atomic_store(&target, f);
			usleep((useconds_t)slice_ms * 1000);
			atomic_store(&target, -1);
			while (atomic_load(&parked) < qd)
				usleep(20);
			uint64_t t1 = now_ns(CLOCK_MONOTONIC), n = total() - n0;
			iops[f * rounds + r] = (double)n / ((double)(t1 - t0) / 1e9);
			cpu[f * rounds + r] =
			    pid[f] && n ? (double)(now_ns(clk[f]) - c0) / (double)n / 1000.0 : 0;
		}
	}
	atomic_store(&quit, 1);
	for (int i = 0; i < qd; i++)
		pthread_join(th[i], NULL);

	char s[240];
	printf("# QD %d, %d rounds of one %d ms slice per file (ABC CBA ...)\n", qd, rounds,
	       slice_ms);
	for (int f = 0; f < nf; f++) {
		memcpy(tmp, &iops[f * rounds], (size_t)rounds * sizeof(double));
		qsort(tmp, (size_t)rounds, sizeof(double), cmp);
		double mi = tmp[rounds / 2], lo = tmp[0], hi = tmp[rounds - 1];
		memcpy(tmp, &cpu[f * rounds], (size_t)rounds * sizeof(double));
		qsort(tmp, (size_t)rounds, sizeof(double), cmp);
		printf("file %d %-40s median IOPS %9.0f (%.0f..%.0f)  daemon cpu/read %6.2f us\n", f,
		       argv[4 + f], mi, lo, hi, tmp[rounds / 2]);
	}
	for (int f = 1; f < nf; f++) {
		for (int r = 0; r < rounds; r++)
			tmp[r] = iops[f * rounds + r] / iops[r];
		spread(tmp, rounds, s, sizeof(s));
		printf("file %d / file 0, IOPS per round: %s\n", f, s);
		if (pid[f] && pid[0]) {
			for (int r = 0; r < rounds; r++)
				tmp[r] = cpu[r] > 0 ? cpu[f * rounds + r] / cpu[r] : 0;
			spread(tmp, rounds, s, sizeof(s));
			printf("file %d / file 0, daemon cpu/read per round: %s\n", f, s);
		}
	}
	free(iops);
	free(cpu);
	free(tmp);
	return 0;
}
