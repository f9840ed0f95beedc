/*
 * convsteps.h — the preprocessing step's decisions, once, for either clock.
 *
 * Caffe's convert_imageset (tools/convert_imageset.cpp, run by
 * examples/imagenet/create_imagenet.sh with --shuffle) reads the image
 * list, shuffles it, and for each image reads the file, decodes and
 * resizes it, puts a Datum under the key "%08d_<file>", and commits the
 * transaction every `txn` puts (1000) and after the last. What happens
 * next is decided here; the real driver (scenario/convert.c) does it with
 * read(2), libjpeg-turbo and LMDB, the virtual one charges the tier model
 * and the decode calibration. Neither decides anything itself.
 *
 *   struct ts_convsteps c;
 *   ts_convsteps_init(&c, n, seed, txn);
 *   for (struct ts_conv_step st; ts_convsteps_next(&c, &st) != TS_CONV_END;)
 *       switch (st.act) { case TS_CONV_READ: ... st.img ...; ... }
 *   ts_convsteps_free(&c);
 */
#ifndef TS_PIPE_CONVSTEPS_H
#define TS_PIPE_CONVSTEPS_H

#include <stdbool.h>
#include <stdint.h>

#include "core/ts.h"

enum ts_conv_act {
	TS_CONV_READ,	/* read image st.img's file whole */
	TS_CONV_DECODE, /* decode and resize it */
	TS_CONV_PUT,	/* put its Datum as entry st.key */
	TS_CONV_COMMIT, /* commit the transaction (a new one begins at the next put) */
	TS_CONV_END,
};

struct ts_conv_step {
	enum ts_conv_act act;
	uint64_t img; /* image number in the sorted listing (dataset order) */
	uint64_t key; /* position in the converted order: the key's %08d */
};

struct ts_convsteps {
	uint32_t *order;
	uint64_t n, txn, k, since;
	enum ts_conv_act last;
};

/* @n images, shuffled with @seed (--shuffle), @txn puts per commit. */
TS_WUR int ts_convsteps_init(struct ts_convsteps *c, uint64_t n, uint64_t seed, uint64_t txn);
enum ts_conv_act ts_convsteps_next(struct ts_convsteps *c, struct ts_conv_step *st);
void ts_convsteps_free(struct ts_convsteps *c);

#endif
