/*
 * soak_client.c — the clients of bench/soak.sh that no packaged tool
 * plays: each runs until SECONDS have passed (or its mount goes away) and
 * prints one line of counts, "name=value" separated by spaces.
 *
 *   soak_client churn DIR SECONDS
 *       metadata churn: create a file with known bytes, rename it, read it
 *       back and compare, link and unlink the link, unlink it; every
 *       failure or wrong byte counted as an error
 *   soak_client probe DIR SECONDS
 *       4 KiB reads and writes of DIR/p0..p7, the files soak.sh's fault
 *       rules name: a read may fail with EIO and a write with ENOSPC only
 *       (the errnos of those rules); anything else, a short transfer
 *       included, is counted as unexpected
 *   soak_client durable DIR MANIFEST SECONDS
 *       writes files of known bytes, fsyncs every other one, closes it, and
 *       only then appends its name to MANIFEST (outside the mount): what
 *       MANIFEST names was fsync'd or closed when the daemon was killed
 *   soak_client check DIR MANIFEST
 *       every file MANIFEST names is in DIR with its bytes
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"

#define PROBE_FILES 8
#define PROBE_LEN 4096

/* The bytes of file number @n: a pattern no other file has. */
static void fill(uint8_t *buf, size_t len, uint64_t n)
{
	uint64_t x = n * 0x9e3779b97f4a7c15ULL + 1;
	for (size_t i = 0; i < len; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		buf[i] = (uint8_t)x;
	}
}

static size_t len_of(uint64_t n)
{
	return 1 + (size_t)((n * 7919) % (64 * 1024));
}

static bool gone(int e)
{
	return e == ENOTCONN || e == ECONNABORTED;
}

static int write_file(const char *p, uint64_t n, bool sync, uint8_t *buf)
{
	size_t len = len_of(n);
	int fd = open(p, O_CREAT | O_EXCL | O_WRONLY, 0644);
	if (fd < 0)
		return -errno;
	fill(buf, len, n);
	int rc = write(fd, buf, len) == (ssize_t)len ? 0 : -(errno ? errno : EIO);
	if (!rc && sync && fsync(fd))
		rc = -errno;
	if (close(fd) && !rc)
		rc = -errno;
	return rc;
}

/* 0 if @p holds file @n's bytes, 1 if not, -errno if it cannot be read. */
static int check_file(const char *p, uint64_t n, uint8_t *buf, uint8_t *want)
{
	size_t len = len_of(n);
	int fd = open(p, O_RDONLY);
	if (fd < 0)
		return -errno;
	ssize_t got = read(fd, buf, len + 1);
	int e = errno;
	close(fd);
	if (got < 0)
		return -e;
	fill(want, len, n);
	return (size_t)got == len && memcmp(buf, want, len) == 0 ? 0 : 1;
}

static int churn(const char *dir, double secs)
{
	uint8_t *buf = malloc(128 * 1024), *want = malloc(128 * 1024);
	uint64_t t0 = ts_now_ns(), n = 0, ops = 0, errors = 0, mismatches = 0;
	char a[4096], b[4096], c[4096];
	pid_t me = getpid();

	if (!buf || !want)
		return 1;
	while ((double)(ts_now_ns() - t0) / 1e9 < secs) {
		snprintf(a, sizeof(a), "%s/c%d.%llu.new", dir, (int)me, (unsigned long long)n);
		snprintf(b, sizeof(b), "%s/c%d.%llu", dir, (int)me, (unsigned long long)n);
		snprintf(c, sizeof(c), "%s/c%d.%llu.link", dir, (int)me, (unsigned long long)n);
		int rc = write_file(a, n, false, buf);
		if (!rc)
			rc = rename(a, b) ? -errno : 0;
		if (!rc)
			rc = link(b, c) ? -errno : 0;
		if (!rc)
			rc = unlink(c) ? -errno : 0;
		if (!rc) {
			rc = check_file(b, n, buf, want);
			if (rc == 1)
				mismatches++;
		}
		if (!rc || rc == 1)
			rc = unlink(b) ? -errno : 0;
		ops += 6;
		if (rc < 0) {
			if (gone(-rc))
				break;
			errors++;
			fprintf(stderr, "churn: file %llu: %s\n", (unsigned long long)n, strerror(-rc));
			unlink(a), unlink(b), unlink(c);
		}
		n++;
	}
	printf("churn files=%llu ops=%llu errors=%llu mismatches=%llu\n", (unsigned long long)n,
	       (unsigned long long)ops, (unsigned long long)errors, (unsigned long long)mismatches);
	free(buf);
	free(want);
	return errors || mismatches ? 1 : 0;
}

static int probe(const char *dir, double secs)
{
	uint64_t t0 = ts_now_ns(), reads = 0, writes = 0, eio = 0, enospc = 0, unexpected = 0;
	char buf[PROBE_LEN], p[4096];
	int fd[PROBE_FILES];

	for (int i = 0; i < PROBE_FILES; i++) {
		snprintf(p, sizeof(p), "%s/p%d", dir, i);
		fd[i] = open(p, O_RDWR);
		if (fd[i] < 0) {
			perror(p);
			return 1;
		}
	}
	memset(buf, 'p', sizeof(buf));
	for (uint64_t k = 0; (double)(ts_now_ns() - t0) / 1e9 < secs; k++) {
		int i = (int)(k % PROBE_FILES);
		bool rd = (k / PROBE_FILES) % 2 == 0;
		ssize_t n = rd ? pread(fd[i], buf, PROBE_LEN, 0) : pwrite(fd[i], buf, PROBE_LEN, 0);
		int e = errno;
		rd ? reads++ : writes++;
		if (n == PROBE_LEN)
			continue;
		if (n < 0 && gone(e))
			break;
		if (n < 0 && rd && e == EIO)
			eio++;
		else if (n < 0 && !rd && e == ENOSPC)
			enospc++;
		else {
			unexpected++;
			fprintf(stderr, "probe: %s of p%d: %zd (%s)\n", rd ? "read" : "write", i, n,
				n < 0 ? strerror(e) : "short");
		}
	}
	for (int i = 0; i < PROBE_FILES; i++)
		close(fd[i]);
	printf("probe reads=%llu writes=%llu read_eio=%llu write_enospc=%llu unexpected=%llu\n",
	       (unsigned long long)reads, (unsigned long long)writes, (unsigned long long)eio,
	       (unsigned long long)enospc, (unsigned long long)unexpected);
	return unexpected ? 1 : 0;
}

static int durable(const char *dir, const char *manifest, double secs)
{
	uint8_t *buf = malloc(128 * 1024);
	uint64_t t0 = ts_now_ns(), n = 0;
	char p[4096];
	FILE *m = fopen(manifest, "a");

	if (!buf || !m)
		return 1;
	setvbuf(m, NULL, _IOLBF, 0);
	while ((double)(ts_now_ns() - t0) / 1e9 < secs) {
		snprintf(p, sizeof(p), "%s/d%llu", dir, (unsigned long long)n);
		int rc = write_file(p, n, n % 2 == 0, buf);
		if (rc) {
			if (!gone(-rc))
				fprintf(stderr, "durable: %s: %s\n", p, strerror(-rc));
			break;
		}
		fprintf(m, "%llu\n", (unsigned long long)n);
		n++;
	}
	fclose(m);
	free(buf);
	printf("durable files=%llu\n", (unsigned long long)n);
	return 0;
}

static int check(const char *dir, const char *manifest)
{
	uint8_t *buf = malloc(128 * 1024), *want = malloc(128 * 1024);
	unsigned long long n, files = 0, bad = 0, bytes = 0;
	char p[4096];
	FILE *m = fopen(manifest, "r");

	if (!buf || !want || !m)
		return 1;
	while (fscanf(m, "%llu", &n) == 1) {
		snprintf(p, sizeof(p), "%s/d%llu", dir, n);
		int rc = check_file(p, n, buf, want);
		files++;
		bytes += len_of(n);
		if (rc) {
			bad++;
			fprintf(stderr, "check: %s: %s\n", p, rc < 0 ? strerror(-rc) : "wrong bytes");
		}
	}
	fclose(m);
	printf("check files=%llu bytes=%llu lost_or_wrong=%llu\n", files, bytes, bad);
	free(buf);
	free(want);
	return bad ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && strcmp(argv[1], "churn") == 0)
		return churn(argv[2], atof(argv[3]));
	if (argc == 4 && strcmp(argv[1], "probe") == 0)
		return probe(argv[2], atof(argv[3]));
	if (argc == 5 && strcmp(argv[1], "durable") == 0)
		return durable(argv[2], argv[3], atof(argv[4]));
	if (argc == 4 && strcmp(argv[1], "check") == 0)
		return check(argv[2], argv[3]);
	fprintf(stderr, "usage: soak_client churn DIR SECONDS | probe DIR SECONDS | durable DIR "
			"MANIFEST SECONDS | check DIR MANIFEST\n");
	return 2;
}
