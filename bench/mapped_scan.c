/*
 * mapped_scan.c — a scan through a memory map, each touch timed:
 * bench/mapped_scan.sh runs it on block mode's ext4 beside the block
 * layer's bio trace (which thread queued which bio, when) to find which
 * touch issued each readahead window (disk/README.md, "The mapped read").
 *
 * usage: mapped_scan FILE [PRE_BYTES]
 *   PRE_BYTES: pread(2) that many bytes at offset 0 first (LMDB reads its
 *   meta pages so at open, before it maps the file); default 0.
 * FILE is mapped read-only, shared, and every 4 KiB page touched in order,
 * one load a page. Output: one line a touch, "PAGE START_NS END_NS"
 * (CLOCK_MONOTONIC, the clock tracefs's "mono" trace_clock reads), after
 * the scan so that printing never lies between two touches.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define PG 4096UL

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: mapped_scan FILE [PRE_BYTES]\n");
		return 2;
	}
	int fd = open(argv[1], O_RDONLY);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0 || st.st_size <= 0) {
		fprintf(stderr, "mapped_scan: %s: %s\n", argv[1], fd < 0 ? strerror(errno) : "empty");
		return 1;
	}
	char *end;
	unsigned long pre = argc == 3 ? strtoul(argv[2], &end, 10) : 0;
	if (argc == 3 && (*end || pre > (unsigned long)st.st_size)) {
		fprintf(stderr, "mapped_scan: PRE_BYTES '%s' is not a size within the file\n", argv[2]);
		return 2;
	}
	if (pre) {
		char *b = malloc(pre);
		if (!b || pread(fd, b, pre, 0) != (ssize_t)pre) {
			fprintf(stderr, "mapped_scan: pread %lu bytes: %s\n", pre, strerror(errno));
			return 1;
		}
		free(b);
	}
	size_t n = ((size_t)st.st_size + PG - 1) / PG;
	volatile unsigned char *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	uint64_t *t = malloc(2 * n * sizeof *t);
	if (m == MAP_FAILED || !t) {
		fprintf(stderr, "mapped_scan: mmap: %s\n", strerror(errno));
		return 1;
	}
	unsigned sum = 0;
	for (size_t p = 0; p < n; p++) {
		t[2 * p] = now_ns();
		sum += m[p * PG];
		t[2 * p + 1] = now_ns();
	}
	for (size_t p = 0; p < n; p++)
		printf("%zu %llu %llu\n", p, (unsigned long long)t[2 * p], (unsigned long long)t[2 * p + 1]);
	fprintf(stderr, "mapped_scan: %zu pages, %.3f s, sum %u\n", n,
		(double)(t[2 * n - 1] - t[0]) / 1e9, sum);
	return 0;
}
