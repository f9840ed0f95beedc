/*
 * convert.h — the preprocessing step of the study: Caffe's convert_imageset
 * turning an ImageNet JPEG tree into an LMDB (read each JPEG, decode, resize
 * to a square, store a Datum, commit every N puts), done for real against
 * whatever directory it is given — in scenarios, a tierfs mount, so that
 * both the reads and the LMDB writes (and its fsyncs) pay the emulated tier.
 * Like convert_imageset it is one thread; the time it spends in read(2) and
 * in LMDB commits is reported apart from the decode and resize work.
 */
#ifndef TS_CONVERT_H
#define TS_CONVERT_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "pipeline/decode.h"
#include "core/ts.h"

struct ts_convert_cfg {
	unsigned resize; /* square side, as --resize_height = --resize_width */
	bool encoded;	 /* --encoded: store the resized image re-encoded as JPEG */
	uint64_t txn;	 /* puts per transaction (convert_imageset: 1000) */
	uint64_t seed;	 /* --shuffle order */
	void (*progress)(void *ctx, const char *what, uint64_t done, uint64_t total,
			 double images_per_s, double elapsed_s);
	void *progress_ctx;
	const char *label;
	volatile sig_atomic_t *stop; /* non-zero: stop with -EINTR */
	/* A host profile's costs (pipeline/host.h), or NULL: each decode +
	 * resize and each put then lasts at least what it costs that CPU (a
	 * slower CPU than this one is emulated; a faster one is not). */
	const struct ts_decode_cal *cpu;
};

struct ts_convert_stats {
	uint64_t images;
	uint64_t bytes_in;  /* JPEG bytes read */
	uint64_t bytes_out; /* Datum bytes stored */
	uint64_t wall_ns;
	uint64_t io_ns;	    /* in read(2) and LMDB commits */
};

/* Converts the class-per-folder tree @in (<class>/<file>.JPEG) into a new
 * LMDB directory @out. Labels are class folders in sorted order; keys are
 * "%08d_<class>/<file>" as convert_imageset writes them. */
TS_WUR int ts_convert_imageset(const char *in, const char *out, const struct ts_convert_cfg *cfg,
			       struct ts_convert_stats *st, char *err, size_t errlen);

#endif
