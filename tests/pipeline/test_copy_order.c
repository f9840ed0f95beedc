/*
 * test_copy_order.c — ts_copy_in_page_order (pipeline/source.h): a copy out
 * of a memory map touches the source's pages in order, first to last, as
 * a forward `rep movsb` does, whatever the memcpy this CPU's glibc picks
 * (without ERMS it loads a source's last bytes first: disk/README.md, "The
 * mapped read's touch order"). The order is recorded by the touches
 * themselves: the source is mapped with no access, and each first touch
 * of a page faults into a handler that logs the page and opens it. Copies
 * of an LMDB raw Datum's size from 16 bytes into its first page (its
 * overflow page's header), to destinations at each alignment that makes
 * glibc choose a different path (4 KiB aliasing: a backward copy), and of
 * a record within one page; every byte arrives.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pipeline/source.h"
#include "tests/tcheck.h"

#define PG 4096UL
#define NPG 52

static unsigned char *src;
static size_t order[NPG * 2];
static volatile size_t touches;

static void on_fault(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	uintptr_t a = (uintptr_t)si->si_addr;
	if (a < (uintptr_t)src || a >= (uintptr_t)src + NPG * PG)
		abort(); /* not the source: a real fault */
	size_t p = (a - (uintptr_t)src) / PG;
	if (touches < NPG * 2)
		order[touches] = p;
	touches++;
	if (mprotect(src + p * PG, PG, PROT_READ))
		abort();
}

/* Copies @n bytes from src + @off to a buffer at @dalign past a page and
 * checks the pages were touched in order, each once, and the bytes. */
static void check_copy(size_t off, size_t n, size_t dalign)
{
	unsigned char *ref = malloc(NPG * PG), *buf = aligned_alloc(PG, (n + 2 * PG) / PG * PG);
	CHECK(ref && buf);
	if (!ref || !buf)
		return;
	CHECK(mprotect(src, NPG * PG, PROT_READ | PROT_WRITE) == 0);
	for (size_t i = 0; i < NPG * PG; i++)
		src[i] = (unsigned char)(i * 131 + i / PG);
	memcpy(ref, src, NPG * PG);
	CHECK(mprotect(src, NPG * PG, PROT_NONE) == 0);
	touches = 0;
	ts_copy_in_page_order(buf + dalign, src + off, n);
	size_t first = off / PG, last = (off + n - 1) / PG;
	CHECK_EQ_U64(touches, last - first + 1);
	for (size_t k = 0; k < touches && k < NPG * 2; k++)
		CHECK_EQ_U64(order[k], first + k);
	CHECK(memcmp(buf + dalign, ref + off, n) == 0);
	free(ref);
	free(buf);
}

int main(void)
{
	src = mmap(NULL, NPG * PG, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(src != MAP_FAILED);
	if (src == MAP_FAILED)
		return tc_exit();
	struct sigaction sa = { .sa_sigaction = on_fault, .sa_flags = SA_SIGINFO };
	sigemptyset(&sa.sa_mask);
	CHECK(sigaction(SIGSEGV, &sa, NULL) == 0);
	/* a raw 256x256 Datum (196,624 bytes) from its overflow page's
	 * header on: 49 pages; destinations 16 bytes in (4 KiB aliasing with
	 * the source: glibc copies backward), 2,048 and 0 bytes in */
	check_copy(16, 196624, 16);
	check_copy(16, 196624, 2048);
	check_copy(16, 196624, 0);
	/* starting mid-page, ending on a page's last byte */
	check_copy(PG + 100, 10 * PG - 100, 300);
	/* within one page, and one byte */
	check_copy(3 * PG + 8, 500, 8);
	check_copy(5 * PG, 1, 0);
	munmap(src, NPG * PG);
	return tc_exit();
}
