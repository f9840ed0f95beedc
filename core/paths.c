/* paths.c — data-file lookup (see paths.h). */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "core/paths.h"

int ts_data_find(const char *rel, char *out, size_t n)
{
	const char *dirs[] = { getenv("TIERSIM_DATADIR"), TS_SRCDIR, TS_DATADIR };
	for (size_t i = 0; i < TS_ARRAY_SIZE(dirs); i++) {
		if (!dirs[i] || !*dirs[i])
			continue;
		int w = snprintf(out, n, "%s/%s", dirs[i], rel);
		if (w < 0 || (size_t)w >= n)
			continue;
		if (access(out, R_OK) == 0)
			return 0;
	}
	return -ENOENT;
}
