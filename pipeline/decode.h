/*
 * decode.h — what one decode/augment worker does to an image, as
 * torchvision's training transform does it: decode the JPEG (libjpeg-turbo),
 * resize so the shorter side is `resize` (bilinear), crop out×out (random
 * when augmenting, else the centre), flip horizontally with probability 1/2
 * when augmenting, and normalize to float CHW with the ImageNet mean and std.
 * Resize and crop are fused: only the cropped pixels are interpolated.
 *
 * The calibration (struct ts_decode_cal) is the measured cost of exactly that
 * work on this machine, fitted as base + per-megapixel, and is what modeled
 * mode charges per image instead of doing it.
 */
#ifndef TS_PIPE_DECODE_H
#define TS_PIPE_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/rng.h"
#include "core/ts.h"

struct ts_decoder;

TS_WUR int ts_decoder_new(unsigned out, unsigned resize, bool augment, struct ts_decoder **d);
void ts_decoder_free(struct ts_decoder *d);
/* Width and height from the JPEG header; TS_E_CORRUPT when it is not one. */
TS_WUR int ts_decode_header(struct ts_decoder *d, const uint8_t *jpeg, size_t len, int *w,
			    int *h);
/* Decode only, to RGB at full size (what decode benchmarks time). */
TS_WUR int ts_decode_rgb(struct ts_decoder *d, const uint8_t *jpeg, size_t len, int *w, int *h);
/* The whole transform into out[3 × out × out]. Errors: TS_E_CORRUPT with
 * libjpeg-turbo's message in ts_decoder_msg(). */
TS_WUR int ts_decode_jpeg(struct ts_decoder *d, const uint8_t *jpeg, size_t len,
			  struct ts_rng *rng, float *out);
/* The same transform from packed RGB pixels (h × w × 3) or BGR (Caffe's
 * Datum channel order, bgr = true), for sources that store raw pixels. */
void ts_decode_pixels(struct ts_decoder *d, const uint8_t *px, int w, int h, bool bgr,
		      struct ts_rng *rng, float *out);
/* The same from planes (3 × h × w), as Caffe's Datum stores raw pixels. */
void ts_decode_planes(struct ts_decoder *d, const uint8_t *chw, int w, int h, bool bgr,
		      struct ts_rng *rng, float *out);
const char *ts_decoder_msg(const struct ts_decoder *d);
/* The RGB pixels of the last ts_decode_rgb. */
const uint8_t *ts_decoder_rgb(const struct ts_decoder *d);

struct ts_decode_cal {
	double base_ns;	    /* fixed cost per image */
	double ns_per_mpix; /* plus this per megapixel of the source image */
	double decode_ips;  /* decode-only images/s on one core (for reports) */
	double full_ips;    /* decode + transform images/s on one core */
	double xform_ns;    /* the transform alone (raw pixels in), per image */
	double put_ns;	    /* making a Datum and putting it into an LMDB (0: not charged) */
	/* A framework's own work on every sample, whatever its kind (DLIO's
	 * reader path, pipeline/host.h TS_HF_DLIO_*): charged on a worker in
	 * virtual time; 0 in a calibration file. */
	double sample_ns, sample_ns_per_mib;
	/* A PyTorch DataLoader worker's own work besides the transform (a host
	 * profile's loader_sample_ns and loader_batch_ns): per sample, and per
	 * batch; 0 in a calibration file. Charged only where the source is
	 * read through a DataLoader (ts_decode_cal_for_source). */
	double loader_sample_ns, loader_batch_ns;
	uint64_t images;    /* images measured */
	char cpu[128];	    /* the host CPU it was measured on */
	uint64_t when;	    /* unix seconds */
	/* The instrumenting tool the measurement ran under ("": none), which
	 * slows decode many times over (valgrind: 17 images/s a core against
	 * 430 natively): such a calibration is used, never saved. Not in the
	 * file. */
	char tool[32];
};

/* Default decode calibration path: $XDG_CACHE_HOME or ~/.cache,
 * tiersim/decode.json (decode_cal.c). */
int ts_pipe_default_calibration(char *buf, size_t n);
TS_WUR int ts_decode_cal_load(const char *path, struct ts_decode_cal *c, char *err,
			      size_t errlen);
/* Writes @c to @path. A calibration measured under an instrumenting tool
 * (c->tool) is not written: it is kept in this process for @path, which
 * ts_decode_cal_load then returns while no file is there, and one line on
 * stderr says so; 0 both ways. */
TS_WUR int ts_decode_cal_save(const char *path, const struct ts_decode_cal *c, char *err,
			      size_t errlen);
/* Whether this process runs under an instrumenting tool (valgrind,
 * DynamoRIO) that slows decode: its name into @name and 1, else 0. Reads
 * the memory map @maps (NULL: /proc/self/maps) for the libraries such a tool
 * puts into the process; with valgrind.h at build time and @maps NULL, asks
 * valgrind first. */
int ts_decode_cal_tool(const char *maps, char *name, size_t n);
/* Modeled cost of one image of w × h pixels. */
static inline uint64_t ts_decode_cal_ns(const struct ts_decode_cal *c, int w, int h)
{
	double ns = c->base_ns + c->ns_per_mpix * ((double)w * (double)h / 1e6);
	return ns > 0 ? (uint64_t)ns : 0;
}
/* What a calibration measured besides the fit. */
struct ts_decode_cal_detail {
	size_t distinct;   /* different images */
	double mean_mpix;  /* their mean size in megapixels */
	double mean_bytes; /* and in bytes */
	double cpu_s;	   /* CPU seconds spent measuring */
};

/* Times ts_decode_rgb (decode only) and ts_decode_jpeg (the whole
 * transform to out × out) on every image, in this thread's CPU time, in
 * passes until @min_ns of CPU time is spent (one pass at least), and fits
 * the transform's cost as base + per-megapixel into @cal. */
TS_WUR int ts_decode_calibrate(const uint8_t *const *jpeg, const size_t *len, size_t n,
			       unsigned out, unsigned resize, uint64_t min_ns,
			       struct ts_decode_cal *cal, struct ts_decode_cal_detail *det,
			       char *err, size_t errlen);
/* Reads up to @want files (0 = all) spread over the folder dataset @dir
 * (the folder source's order) into memory; the caller frees each and both
 * arrays. */
TS_WUR int ts_decode_load_dir(const char *dir, size_t want, uint8_t ***jpeg, size_t **len,
			      size_t *n, char *err, size_t errlen);
/* ts_decode_load_dir() and ts_decode_calibrate() on @count JPEGs of @dir,
 * or (@dir NULL) on @count made as tiersim dataset make imagenet-jpeg makes
 * them in a temporary folder under $TMPDIR, removed again. @seconds as
 * ts_decode_calibrate's. 0, or a code with one line in @err. */
/* `tiersim calibrate decode`'s defaults, which a run that needs a
 * calibration and has none measures with too: images, and CPU seconds. */
#define TS_DECODE_CAL_COUNT 200
#define TS_DECODE_CAL_SECONDS 3
TS_WUR int ts_decode_calibrate_set(const char *dir, uint64_t count, unsigned out, unsigned resize,
				   uint64_t seconds, struct ts_decode_cal *cal,
				   struct ts_decode_cal_detail *det, char *err, size_t errlen);
/* Modeled cost of transforming one image stored as raw pixels (no decode);
 * the whole cost when the calibration predates xform_ns. */
static inline uint64_t ts_decode_cal_xform_ns(const struct ts_decode_cal *c, int w, int h)
{
	return c->xform_ns > 0 ? (uint64_t)c->xform_ns : ts_decode_cal_ns(c, w, h);
}
/* The framework's cost of one sample of @len bytes (0 unless set). */
static inline uint64_t ts_decode_cal_sample_ns(const struct ts_decode_cal *c, uint64_t len)
{
	double ns = c->sample_ns + c->sample_ns_per_mib * ((double)len / 1048576.0);
	return ns > 0 ? (uint64_t)ns : 0;
}
/* @c for a source whose samples a PyTorch DataLoader's workers fetch
 * (@torch: TS_SRC_TORCH) in batches of @batch: its framework's work per
 * sample (sample_ns, charged with the decode in either clock) gains the
 * worker's own, loader_sample_ns plus loader_batch_ns spread over the
 * batch's samples (a worker collates and hands off a whole batch; spread,
 * the batch's cost is the same and each worker's rate too). Any other
 * source is charged neither. */
static inline void ts_decode_cal_for_source(struct ts_decode_cal *c, bool torch, uint64_t batch)
{
	if (torch)
		c->sample_ns += c->loader_sample_ns + c->loader_batch_ns / (double)(batch ? batch : 1);
}
/* The host CPU model name from /proc/cpuinfo ("" when unknown). */
void ts_cpu_model(char *buf, size_t n);

#endif
