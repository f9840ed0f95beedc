/* convsteps.c — convert_imageset's decisions (see convsteps.h). */
#include <stdlib.h>

#include "pipeline/convsteps.h"
#include "core/rng.h"

int ts_convsteps_init(struct ts_convsteps *c, uint64_t n, uint64_t seed, uint64_t txn)
{
	*c = (struct ts_convsteps){ .n = n, .txn = txn ? txn : 1, .last = TS_CONV_COMMIT };
	if (n > UINT32_MAX)
		return -EFBIG;
	if (!(c->order = malloc((n ? n : 1) * sizeof(*c->order))))
		return -ENOMEM;
	for (uint64_t i = 0; i < n; i++)
		c->order[i] = (uint32_t)i;
	struct ts_rng rng;
	ts_rng_seed(&rng, seed);
	ts_rng_shuffle_u32(&rng, c->order, n);
	return 0;
}

enum ts_conv_act ts_convsteps_next(struct ts_convsteps *c, struct ts_conv_step *st)
{
	enum ts_conv_act a;
	switch (c->last) {
	case TS_CONV_READ: a = TS_CONV_DECODE; break;
	case TS_CONV_DECODE: a = TS_CONV_PUT; break;
	case TS_CONV_PUT:
		c->k++;
		c->since++;
		a = c->since == c->txn || c->k == c->n ? TS_CONV_COMMIT : TS_CONV_READ;
		break;
	default: a = c->k < c->n ? TS_CONV_READ : TS_CONV_END; break;
	}
	if (a == TS_CONV_COMMIT)
		c->since = 0;
	/* A commit or the end names no image; the others name the k-th. */
	*st = (struct ts_conv_step){ .act = a, .key = c->k,
				     .img = c->k < c->n ? c->order[c->k] : UINT64_MAX };
	c->last = a;
	return a;
}

void ts_convsteps_free(struct ts_convsteps *c)
{
	free(c->order);
	c->order = NULL;
}
