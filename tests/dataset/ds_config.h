/* ds_config.h — the dataset tests' configuration: defaults, then @count
 * samples of seed @seed on two generator threads; a kind's own options by
 * name. */
#ifndef TS_TEST_DS_CONFIG_H
#define TS_TEST_DS_CONFIG_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline/dataset.h"

static inline struct ts_dataset_config cfg_of(uint64_t count, uint64_t seed)
{
	struct ts_dataset_config c;
	char err[256];

	memset(&c, 0, sizeof(c));
	if (ts_opt_defaults(ts_dataset_opts(), &c, err, sizeof(err)))
		abort();
	c.count = count;
	c.seed = seed;
	c.threads = 2;
	return c;
}

/* A kind's own option, set by name as the command line sets it. */
static inline void cfg_set(struct ts_dataset_config *c, const char *name, const char *val)
{
	char err[256];

	if (ts_opt_set(ts_dataset_opts(), c, name, val, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		abort();
	}
}

#endif
