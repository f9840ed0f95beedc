/*
 * paths.h — where tiersim finds its data files (tier profiles, engine
 * profiles, scenarios). Looked up in order: $TIERSIM_DATADIR, the source tree
 * the binary was built from, the installed data directory.
 */
#ifndef TS_PATHS_H
#define TS_PATHS_H

#include <stddef.h>

#include "core/ts.h"

/* Fills @out with the first existing path for @rel ("tier/tiers.lua").
 * Returns 0, or -ENOENT naming nothing (the caller names @rel). */
TS_WUR int ts_data_find(const char *rel, char *out, size_t n);

#endif
