/*
 * mapped_copy.c — records copied out of a memory map, as an LMDB reader
 * copies its values (Caffe's cursor->value() builds a std::string: a
 * memcpy from the map): bench/mapped_copy.sh runs it on block mode's ext4
 * to show which order the copy touches the map's pages in, and what that
 * does to the kernel's readahead windows (disk/README.md, "The mapped
 * read").
 *
 * usage: mapped_copy FILE MODE [REC [STRIDE]]
 *   REC: bytes copied a record (default 196624, a raw 256x256 Datum);
 *   STRIDE: bytes from one record's start to the next (default 200704,
 *   the 49 pages of LMDB's overflow pages for it); each record is copied
 *   from 16 bytes into its stride (the overflow page's header).
 *   MODE: memcpy  glibc's memcpy (its choice for this CPU: with ERMS a
 *                 forward rep movsb, without it a vector loop that loads
 *                 the source's first and last 128 bytes before its
 *                 forward loop) to a buffer 2,048 bytes past a page;
 *         forward every page in order (ts_copy_in_page_order's way: a
 *                 memcpy a page of the source);
 *         tail    the record's first page, its last, then the rest in
 *                 order (what memcpy without ERMS does, made explicit).
 * Output: on stderr, the records, the time and a checksum.
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

/* [s, s+n) copied to d a page of the source at a time, in order */
static void copy_pages(unsigned char *d, const unsigned char *s, size_t n)
{
	while (n) {
		size_t k = PG - (uintptr_t)s % PG;
		if (k > n)
			k = n;
		memcpy(d, s, k);
		d += k;
		s += k;
		n -= k;
	}
}

static unsigned long arg(const char *s, const char *what)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);
	if (*end || !v) {
		fprintf(stderr, "mapped_copy: %s '%s' is not a positive number\n", what, s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	if (argc < 3 || argc > 5) {
		fprintf(stderr, "usage: mapped_copy FILE memcpy|forward|tail [REC [STRIDE]]\n");
		return 2;
	}
	const char *mode = argv[2];
	if (strcmp(mode, "memcpy") && strcmp(mode, "forward") && strcmp(mode, "tail")) {
		fprintf(stderr, "mapped_copy: MODE '%s' is not memcpy, forward or tail\n", mode);
		return 2;
	}
	size_t rec = argc > 3 ? arg(argv[3], "REC") : 196624;
	size_t stride = argc > 4 ? arg(argv[4], "STRIDE") : 200704;
	if (stride < rec + 16) {
		fprintf(stderr, "mapped_copy: STRIDE %zu is less than REC + 16\n", stride);
		return 2;
	}
	int fd = open(argv[1], O_RDONLY);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0 || st.st_size <= 0) {
		fprintf(stderr, "mapped_copy: %s: %s\n", argv[1], fd < 0 ? strerror(errno) : "empty");
		return 1;
	}
	size_t size = (size_t)st.st_size;
	const unsigned char *m = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
	/* the destination 2,048 bytes past a page: (dst - src) % 4096 is not
	 * below 256, so glibc copies forward (4 KiB aliasing turns it
	 * backward: test_copy_order) */
	unsigned char *page = aligned_alloc(PG, (rec + 2 * PG) / PG * PG), *buf = page + 2048;
	if (m == MAP_FAILED || !page) {
		fprintf(stderr, "mapped_copy: mmap: %s\n", strerror(errno));
		return 1;
	}
	unsigned sum = 0;
	size_t n = 0;
	uint64_t t0 = now_ns();
	for (size_t off = 0; off + 16 + rec <= size; off += stride, n++) {
		const unsigned char *s = m + off + 16;
		if (!strcmp(mode, "memcpy")) {
			memcpy(buf, s, rec);
		} else if (!strcmp(mode, "forward")) {
			copy_pages(buf, s, rec);
		} else {
			/* the first page (the copy's first load), the last, the rest */
			size_t first = PG - (uintptr_t)s % PG, last = (uintptr_t)(s + rec) % PG;
			if (!last)
				last = PG;
			if (first + last >= rec) {
				copy_pages(buf, s, rec);
			} else {
				memcpy(buf, s, first);
				memcpy(buf + rec - last, s + rec - last, last);
				copy_pages(buf + first, s + first, rec - first - last);
			}
		}
		sum += buf[0] + buf[rec - 1];
	}
	fprintf(stderr, "mapped_copy: %s: %zu records of %zu bytes, %.3f s, sum %u\n", mode, n, rec,
		(double)(now_ns() - t0) / 1e9, sum);
	return 0;
}
