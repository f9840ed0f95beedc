/*
 * ts.h — what every part of tiersim shares: error codes, attributes, small
 * helpers. Functions return 0 (or a count) on success and -errno on failure;
 * project-specific failures use the reserved range below TS_E_BASE so that
 * they never collide with an errno, and ts_strerror() names both.
 */
#ifndef TS_H
#define TS_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#define TS_WUR __attribute__((warn_unused_result))
#define TS_PRINTF(a, b) __attribute__((format(printf, a, b)))
/* A macro's value as a string literal: TS_STR(200) is "200". */
#define TS_XSTR(x) #x
#define TS_STR(x) TS_XSTR(x)
#define TS_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
/* Each evaluates one of its arguments twice: give them values, not calls
 * with side effects (a clock, a file read, a request). */
#define TS_MIN(a, b) ((a) < (b) ? (a) : (b))
#define TS_MAX(a, b) ((a) > (b) ? (a) : (b))

#define TS_NS_PER_US 1000ULL
#define TS_NS_PER_MS 1000000ULL
#define TS_NS_PER_S 1000000000ULL

#define TS_KiB 1024ULL
#define TS_MiB (1024ULL * 1024)
#define TS_GiB (1024ULL * 1024 * 1024)

/* Project error codes: all below -4095, so never an -errno. */
enum {
	TS_E_BASE = -10000,
	TS_E_PARSE = TS_E_BASE - 1,	/* malformed text: option, number, unit */
	TS_E_PROFILE = TS_E_BASE - 2,	/* a profile file is malformed */
	TS_E_FORMAT = TS_E_BASE - 3,	/* a binary file is not what it claims */
	TS_E_VERSION = TS_E_BASE - 4,	/* a file version this build does not know */
	TS_E_TRUNCATED = TS_E_BASE - 5, /* a file ends in the middle of a record */
	TS_E_GPU_OOM = TS_E_BASE - 6,	/* the batch does not fit the GPU memory */
	TS_E_NO_GPU = TS_E_BASE - 7,	/* a GPU run was asked for without a GPU */
	TS_E_LUA = TS_E_BASE - 8,	/* a Lua script raised an error */
	TS_E_UNKNOWN = TS_E_BASE - 9,	/* an unknown name: tier, model, key... */
	TS_E_CORRUPT = TS_E_BASE - 10,	/* data failed a check (JPEG, record) */
	TS_E_LAST = TS_E_BASE - 11,
};

/* Text for a -errno or a TS_E_* code. Never NULL. */
const char *ts_strerror(int err);

/* qsort()'s comparison of two uint64_t, ascending. */
int ts_cmp_u64(const void *a, const void *b);

/* malloc() for a large array read at random (a shuffled epoch's order, a
 * per-sample table): from 2 MiB up, aligned to and advised onto
 * transparent huge pages where the kernel allows them (madvise mode), so
 * that a read misses the TLB rarely, where with 4 KiB pages nearly every
 * one did and its page walk cost as much as the read. Freed with free(). */
void *ts_malloc_huge(size_t len);

#endif
