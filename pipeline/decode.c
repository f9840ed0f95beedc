/* decode.c — JPEG decode and the training transform (see decode.h). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <turbojpeg.h>

#include "pipeline/decode.h"

/* ImageNet channel statistics used by torchvision's reference training
 * scripts (pytorch/vision references/classification/presets.py):
 * mean (0.485, 0.456, 0.406), std (0.229, 0.224, 0.225), RGB order. */
static const float mean_rgb[3] = { 0.485f, 0.456f, 0.406f };
static const float std_rgb[3] = { 0.229f, 0.224f, 0.225f };

struct ts_decoder {
	tjhandle tj;
	unsigned out, resize;
	bool augment;
	uint8_t *rgb;
	size_t rgb_cap;
	size_t *xa, *xe; /* per output column: the two source columns' offsets */
	float *xw;	 /* and the weight of the second */
	char msg[256];
};

int ts_decoder_new(unsigned out, unsigned resize, bool augment, struct ts_decoder **dp)
{
	struct ts_decoder *d = calloc(1, sizeof *d);
	if (!d)
		return -ENOMEM;
	d->tj = tjInitDecompress();
	if (!d->tj) {
		free(d);
		return -ENOMEM;
	}
	d->xa = malloc(out * sizeof *d->xa);
	d->xe = malloc(out * sizeof *d->xe);
	d->xw = malloc(out * sizeof *d->xw);
	if (!d->xa || !d->xe || !d->xw) {
		ts_decoder_free(d);
		return -ENOMEM;
	}
	d->out = out;
	d->resize = resize && resize < out ? out : resize;
	d->augment = augment;
	*dp = d;
	return 0;
}

void ts_decoder_free(struct ts_decoder *d)
{
	if (!d)
		return;
	tjDestroy(d->tj);
	free(d->rgb);
	free(d->xa);
	free(d->xe);
	free(d->xw);
	free(d);
}

const uint8_t *ts_decoder_rgb(const struct ts_decoder *d)
{
	return d->rgb;
}

const char *ts_decoder_msg(const struct ts_decoder *d)
{
	return d->msg;
}

static int tj_fail(struct ts_decoder *d)
{
	snprintf(d->msg, sizeof d->msg, "%s", tjGetErrorStr2(d->tj));
	return TS_E_CORRUPT;
}

int ts_decode_header(struct ts_decoder *d, const uint8_t *jpeg, size_t len, int *w, int *h)
{
	int sub, cs;
	if (len > ULONG_MAX || tjDecompressHeader3(d->tj, jpeg, (unsigned long)len, w, h, &sub, &cs))
		return tj_fail(d);
	return 0;
}

int ts_decode_rgb(struct ts_decoder *d, const uint8_t *jpeg, size_t len, int *w, int *h)
{
	int rc = ts_decode_header(d, jpeg, len, w, h);
	if (rc)
		return rc;
	size_t need = (size_t)*w * (size_t)*h * 3;
	if (need > d->rgb_cap) {
		uint8_t *n = realloc(d->rgb, need);
		if (!n)
			return -ENOMEM;
		d->rgb = n;
		d->rgb_cap = need;
	}
	/* Warnings (a truncated file, say) are errors: a loader must not pass
	 * half an image on as a whole one. */
	if (tjDecompress2(d->tj, jpeg, (unsigned long)len, d->rgb, *w, 0, *h, TJPF_RGB,
			  TJFLAG_STOPONWARNING))
		return tj_fail(d);
	return 0;
}

int ts_decode_jpeg(struct ts_decoder *d, const uint8_t *jpeg, size_t len, struct ts_rng *rng,
		   float *out)
{
	int w, h;
	int rc = ts_decode_rgb(d, jpeg, len, &w, &h);
	if (rc)
		return rc;
	ts_decode_pixels(d, d->rgb, w, h, false, rng, out);
	return 0;
}

/* The two source samples (and the second's weight) under output position i
 * of the resized image, pixel centres aligned, edges clamped. */
static void taps(unsigned i, double scale, int n, int *i0, int *i1, float *wt)
{
	double f = (i + 0.5) * scale - 0.5;
	if (f < 0)
		f = 0;
	int a = (int)f;
	if (a > n - 1)
		a = n - 1;
	*i0 = a;
	*i1 = a + 1 < n ? a + 1 : n - 1;
	*wt = (float)(f - a);
}

/* Pixel (x, y) channel c lies at px[(y * w + x) * xs + c * cs]. */
static void transform(struct ts_decoder *d, const uint8_t *px, int w, int h, size_t xs, size_t cs,
		      bool bgr, struct ts_rng *rng, float *out)
{
	const unsigned S = d->out;
	/* Size of the resized image and where the crop sits in it. */
	double rw, rh;
	if (d->resize) {
		double scale = (double)d->resize / (w < h ? w : h);
		rw = w * scale;
		rh = h * scale;
		if (rw < S)
			rw = S;
		if (rh < S)
			rh = S;
	} else {
		rw = rh = S;
	}
	unsigned cx = 0, cy = 0;
	unsigned spare_x = (unsigned)rw - S, spare_y = (unsigned)rh - S;
	bool flip = false;
	if (d->augment) {
		cx = spare_x ? (unsigned)ts_rng_below(rng, spare_x + 1) : 0;
		cy = spare_y ? (unsigned)ts_rng_below(rng, spare_y + 1) : 0;
		flip = ts_rng_below(rng, 2);
	} else {
		cx = spare_x / 2;
		cy = spare_y / 2;
	}
	const double sx = w / rw, sy = h / rh;
	const size_t plane = (size_t)S * S;
	float k[3], b[3];
	for (int c = 0; c < 3; c++) {
		k[c] = 1.0f / (255.0f * std_rgb[c]);
		b[c] = -mean_rgb[c] / std_rgb[c];
	}
	const size_t so[3] = { (size_t)(bgr ? 2 : 0) * cs, cs, (size_t)(bgr ? 0 : 2) * cs };
	/* Columns once per image (in output order, so the flip is free). */
	for (unsigned x = 0; x < S; x++) {
		int x0, x1;
		float wx;
		taps(x + cx, sx, w, &x0, &x1, &wx);
		unsigned ox = flip ? S - 1 - x : x;
		d->xa[ox] = (size_t)x0 * xs;
		d->xe[ox] = (size_t)x1 * xs;
		d->xw[ox] = wx;
	}
	for (unsigned y = 0; y < S; y++) {
		int y0, y1;
		float wy;
		taps(y + cy, sy, h, &y0, &y1, &wy);
		const uint8_t *r0 = px + (size_t)y0 * w * xs, *r1 = px + (size_t)y1 * w * xs;
		for (int c = 0; c < 3; c++) {
			const uint8_t *t = r0 + so[c], *u = r1 + so[c];
			float *o = out + c * plane + (size_t)y * S;
			for (unsigned x = 0; x < S; x++) {
				const size_t a = d->xa[x], e = d->xe[x];
				const float wx = d->xw[x];
				float top = t[a] + wx * (t[e] - t[a]);
				float bot = u[a] + wx * (u[e] - u[a]);
				o[x] = (top + wy * (bot - top)) * k[c] + b[c];
			}
		}
	}
}

void ts_decode_pixels(struct ts_decoder *d, const uint8_t *px, int w, int h, bool bgr,
		      struct ts_rng *rng, float *out)
{
	transform(d, px, w, h, 3, 1, bgr, rng, out);
}

void ts_decode_planes(struct ts_decoder *d, const uint8_t *chw, int w, int h, bool bgr,
		      struct ts_rng *rng, float *out)
{
	transform(d, chw, w, h, 1, (size_t)w * h, bgr, rng, out);
}

