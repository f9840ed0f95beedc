/*
 * test_decode.c — the transform puts the right values in the right places:
 * a flat colour normalizes to (v/255 - mean)/std in every pixel of each
 * plane (RGB, and BGR planes as a Caffe Datum stores them); a left-dark /
 * right-bright picture stays so after a centre crop and reads mirrored when
 * flipped; the crop is out × out whatever the aspect.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <turbojpeg.h>

#include "core/rng.h"
#include "pipeline/decode.h"
#include "tests/tcheck.h"

#define S 16

static const float mean_rgb[3] = { 0.485f, 0.456f, 0.406f };
static const float std_rgb[3] = { 0.229f, 0.224f, 0.225f };

static float norm(int c, double v)
{
	return (float)((v / 255.0 - mean_rgb[c]) / std_rgb[c]);
}

int main(void)
{
	struct ts_decoder *d;
	struct ts_rng rng;
	ts_rng_seed(&rng, 3);
	CHECK(ts_decoder_new(S, 20, false, &d) == 0);
	float out[3 * S * S];

	/* Flat colour through a real JPEG (4:4:4, quality 100: exact enough). */
	const int W = 48, H = 30;
	uint8_t rgb[48 * 30 * 3];
	for (int i = 0; i < W * H; i++) {
		rgb[i * 3] = 200;
		rgb[i * 3 + 1] = 100;
		rgb[i * 3 + 2] = 30;
	}
	tjhandle tj = tjInitCompress();
	uint8_t *jpg = NULL;
	unsigned long len = 0;
	CHECK(tjCompress2(tj, rgb, W, 0, H, TJPF_RGB, &jpg, &len, TJSAMP_444, 100, 0) == 0);
	CHECK(ts_decode_jpeg(d, jpg, len, &rng, out) == 0);
	const double want[3] = { 200, 100, 30 };
	for (int c = 0; c < 3; c++) {
		double worst = 0;
		for (int i = 0; i < S * S; i++)
			worst = fmax(worst, fabs(out[c * S * S + i] - norm(c, want[c])));
		CHECK(worst < 2.0 / 255 / std_rgb[c]);
	}
	int w, h;
	CHECK(ts_decode_header(d, jpg, len, &w, &h) == 0);
	CHECK(w == W && h == H);
	/* A cut file is an error with libjpeg-turbo's reason. */
	CHECK(ts_decode_jpeg(d, jpg, len / 2, &rng, out) == TS_E_CORRUPT);
	CHECK(strlen(ts_decoder_msg(d)) > 0);
	tjFree(jpg);
	tjDestroy(tj);

	/* BGR planes (Caffe's raw Datum): same values. */
	uint8_t planes[3 * 30 * 48];
	for (int i = 0; i < W * H; i++) {
		planes[i] = 30;		     /* B */
		planes[W * H + i] = 100;     /* G */
		planes[2 * W * H + i] = 200; /* R */
	}
	ts_decode_planes(d, planes, W, H, true, &rng, out);
	for (int c = 0; c < 3; c++)
		CHECK_NEAR(out[c * S * S + 5 * S + 7], norm(c, want[c]), 1e-5);

	/* resize=0: straight to out × out, the whole picture (no crop). */
	struct ts_decoder *st;
	CHECK(ts_decoder_new(S, 0, false, &st) == 0);
	for (int y = 0; y < H; y++)
		for (int x = 0; x < W; x++)
			for (int c = 0; c < 3; c++)
				rgb[(y * W + x) * 3 + c] = x < 2 ? 0 : x >= W - 2 ? 255 : 128;
	ts_decode_pixels(st, rgb, W, H, false, &rng, out);
	/* The outermost columns see the dark and bright edges; the middle is grey. */
	CHECK(out[0] < norm(0, 128) && out[S - 1] > norm(0, 128));
	CHECK_NEAR(out[S / 2], norm(0, 128), 1e-5);
	ts_decoder_free(st);

	/* Left dark, right bright: centre crop keeps the sides; flip swaps. */
	for (int y = 0; y < H; y++)
		for (int x = 0; x < W; x++)
			for (int c = 0; c < 3; c++)
				rgb[(y * W + x) * 3 + c] = x < W / 2 ? 10 : 240;
	ts_decode_pixels(d, rgb, W, H, false, &rng, out);
	CHECK(out[3 * S] < 0 && out[3 * S + S - 1] > 0);
	struct ts_decoder *aug;
	CHECK(ts_decoder_new(S, 20, true, &aug) == 0);
	int flipped = 0, plain = 0;
	for (int t = 0; t < 64; t++) {
		ts_decode_pixels(aug, rgb, W, H, false, &rng, out);
		float l = out[3 * S], r = out[3 * S + S - 1];
		flipped += l > 0 && r < 0;
		plain += l < 0 && r > 0;
	}
	/* Both orientations happen: a crop straddling the edge reads bright on
	 * the left only when flipped. The generator is seeded, so this is the
	 * same every run. */
	CHECK(flipped > 0 && plain > 0);
	ts_decoder_free(aug);
	ts_decoder_free(d);
	return tc_exit();
}
