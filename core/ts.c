/* ts.c — ts_strerror() for errno values and the project's own range;
 * ts_malloc_huge(). */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "core/ts.h"

static const char *const ts_errs[] = {
	[-(TS_E_PARSE - TS_E_BASE)] = "malformed value",
	[-(TS_E_PROFILE - TS_E_BASE)] = "malformed profile",
	[-(TS_E_FORMAT - TS_E_BASE)] = "not a file of the expected format",
	[-(TS_E_VERSION - TS_E_BASE)] = "unsupported format version",
	[-(TS_E_TRUNCATED - TS_E_BASE)] = "file cut short",
	[-(TS_E_GPU_OOM - TS_E_BASE)] = "out of GPU memory",
	[-(TS_E_NO_GPU - TS_E_BASE)] = "no GPU present",
	[-(TS_E_LUA - TS_E_BASE)] = "Lua error",
	[-(TS_E_UNKNOWN - TS_E_BASE)] = "unknown name",
	[-(TS_E_CORRUPT - TS_E_BASE)] = "corrupt data",
};

const char *ts_strerror(int err)
{
	if (err < TS_E_BASE && err > TS_E_LAST) {
		const char *s = ts_errs[-(err - TS_E_BASE)];
		return s ? s : "unknown tiersim error";
	}
	if (err < 0)
		err = -err;
	return strerror(err);
}

int ts_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

void *ts_malloc_huge(size_t len)
{
	const size_t huge = 2u << 20;
	if (len < huge)
		return malloc(len ? len : 1);
	if (len > SIZE_MAX - huge)
		return NULL;
	size_t n = (len + huge - 1) / huge * huge;
	void *p = aligned_alloc(huge, n);
	if (p)
		(void)madvise(p, n, MADV_HUGEPAGE); /* advice only: fine to be refused */
	return p;
}
