/*
 * ds_image.c — what the image kinds share (see ds_image.h): the size model
 * every image is drawn from, the class tree, and the generation driver.
 * The figures and their sources are in pipeline/DATASETS.md.
 */
#include "pipeline/ds_image.h"

#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <turbojpeg.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/fmath.h"
#include "core/rng.h"
#include "core/units.h"
#include "pipeline/ds_kind.h"
#include "pipeline/recordio.h"


/* ------------------------------------------------------------------ */
/* The size model                                                      */
/* ------------------------------------------------------------------ */

/*
 * Mean stored bytes per image the model is solved for.
 * - JPEG: 140 GB of extracted train JPEGs / 1,281,167 images = 109,274 B
 *   (140 GB: BVLC/caffe pull request #2919, the size of ILSVRC2012 train).
 * - RecordIO frame: 93 GB / 1,281,167 = 72,590 B. 93 GB is the study
 *   article's figure for ImageNet as RecordIO; no other source for it was
 *   found, so it is the article's alone.
 */
#define JPEG_MEAN_BYTES 109274.0
#define REC_MEAN_BYTES 72590.0

/*
 * Resolutions. The average ImageNet image is 469x387 (image-net.org's
 * ILSVRC2014 page, as widely quoted); most files are 500 pixels on the
 * longer side, with small and camera-size outliers. The weights are
 * modeled to give that average (this table: 466x385, 59% of images at
 * 500x375, 375x500, 500x333 or 333x500).
 */
static const struct {
	uint16_t w, h;
	float weight;
} resolutions[] = {
	{ 500, 375, 300 }, { 500, 333, 140 }, { 500, 334, 20 }, { 500, 332, 15 },
	{ 500, 500, 40 },  { 500, 400, 25 },  { 500, 281, 15 }, { 500, 300, 15 },
	{ 500, 357, 15 },  { 500, 366, 15 },  { 500, 353, 10 }, { 375, 500, 90 },
	{ 333, 500, 40 },  { 400, 500, 15 },  { 334, 500, 10 }, { 281, 500, 5 },
	{ 400, 300, 30 },  { 450, 338, 15 },  { 480, 360, 15 }, { 320, 240, 20 },
	{ 300, 225, 15 },  { 256, 192, 10 },  { 200, 150, 12 }, { 150, 113, 6 },
	{ 100, 75, 3 },    { 240, 320, 8 },   { 300, 400, 8 },  { 500, 250, 6 },
	{ 500, 200, 3 },   { 500, 150, 1 },   { 640, 480, 14 }, { 800, 600, 8 },
	{ 1024, 768, 6 },  { 600, 450, 6 },   { 768, 1024, 2 }, { 480, 640, 3 },
	{ 1280, 960, 2 },  { 1600, 1200, 1 }, { 2048, 1536, 0.6f }, { 2592, 1944, 0.3f },
	{ 3264, 2448, 0.1f },
};

/*
 * Compression settings. Most ILSVRC2012 files are 4:4:4 (no chroma
 * subsampling) at quality 96, with minorities of other settings (M.
 * Ehrlich, "Compression in the ImageNet Dataset", 2021, a survey of every
 * file's quantization and sampling). The split below is modeled.
 */
static const struct {
	uint8_t quality;
	bool subsample;
	float weight;
	float max_bpp;	/* bigger files (per pixel) use the first setting */
} jpeg_settings[] = {
	{ 96, false, 80, 1e9f },
	{ 90, true, 12, 0.55f },
	{ 75, true, 8, 0.35f },
};

/*
 * Bytes per pixel: lognormal (sigma modeled), clipped to what the content
 * generator reaches. Its median is solved so that the mean file is the
 * target mean over the resolution mix.
 */
#define JPEG_BPP_SIGMA 0.55
#define JPEG_BPP_MIN 0.09
#define JPEG_BPP_MAX 2.0
#define JPEG_MIN_BYTES 1200 /* headers and tables: no target below this + 0.09 B/px */

/* im2rec --resize 480 --quality 90 (MXNet's "Large Scale Image
 * Classification" tutorial packs ImageNet so), OpenCV's default 4:2:0. */
#define REC_SHORT TS_REC_SHORT_SIDE
#define REC_QUALITY 90
#define REC_BPP_SIGMA 0.5
#define REC_BPP_MIN 0.06
#define REC_BPP_MAX 0.9

/* Raw LMDB pixels: grain amplitude drawn per image (content only). */
#define LMDB_GRAIN_P50 0.5
#define LMDB_GRAIN_P99 1.5

/* Share of classes with the full 1,300 training images (the rest have
 * 732-1,300, ILSVRC2012's range); modeled. */
#define FULL_CLASS_SHARE 0.88

static double phi(double x)
{
	return 0.5 * erfc(-x / M_SQRT2);
}

/* E[min(max(X, a), b)] for X = exp(N(mu, s^2)). */
static double clipped_lognormal_mean(double mu, double s, double a, double b)
{
	double la = log(a), lb = log(b);
	return a * phi((la - mu) / s) +
	       exp(mu + s * s / 2) * (phi((lb - mu - s * s) / s) - phi((la - mu - s * s) / s)) +
	       b * (1.0 - phi((lb - mu) / s));
}

/* mu such that the clipped mean is @mean (bisection; the mean grows with mu). */
static double solve_mu(double mean, double s, double a, double b)
{
	double lo = log(a) - 5 * s, hi = log(b) + 5 * s;
	for (int i = 0; i < 200; i++) {
		double mid = (lo + hi) / 2;
		if (clipped_lognormal_mean(mid, s, a, b) < mean)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

static void rec_dims(uint32_t w, uint32_t h, uint32_t *rw, uint32_t *rh)
{
	/* im2rec: the shorter side becomes REC_SHORT, the other scales with
	 * integer division (img.shape[0] * resize // img.shape[1]) */
	if (h > w) {
		*rw = REC_SHORT;
		*rh = h * REC_SHORT / w;
	} else {
		*rh = REC_SHORT;
		*rw = w * REC_SHORT / h;
	}
}

/* res_guide's buckets of [0, 1): 1024, so that the scan of most draws
 * ends at its first compare, a branch the CPU predicts: 1.8% of draws go
 * on past it (26% with 64 buckets, at random: a mispredicted branch each) */
#define GUIDE 1024

/*
 * The lognormal's draw, fast: exp(mu + sigma z) with Box-Muller's z =
 * sqrt(-2 ln u1) cos(2 pi u2), as ts_rng_normal gives it, from
 * core/fmath.h's tables and series instead of libm's log, cos and exp.
 * The draw only keeps what a value decides: a clamp, a compare with a
 * threshold and a rounding to whole bytes. Where the fast value lies
 * within TS_FM_GUARD (relative) of a point where one of them flips, the
 * draw computes libm's value and uses it: so every size is libm's, to the
 * byte (tests/dataset/test_dataset.c's digests of every image).
 */
static double fm_lognormal(const struct ts_fm *t, double mu, double sigma, double u1, double u2)
{
	return ts_fm_exp(t, mu + sigma * (sqrt(-2.0 * ts_fm_log(t, u1)) * ts_fm_cos2pi(t, u2)));
}

struct model {
	const struct ts_fm *fm;
	double res_cdf[TS_ARRAY_SIZE(resolutions)];
	double set_cdf[TS_ARRAY_SIZE(jpeg_settings)];
	/* Where pick's scan of res_cdf may start for a u in [g, g + 1) / GUIDE:
	 * the first resolution whose cdf is above g / GUIDE (those before it
	 * are at most u, which never picks them) — a few compares a draw
	 * instead of a scan from the first of 41. */
	uint8_t res_guide[GUIDE];
	double jpeg_mu, rec_mu;
};

static void model_init(struct model *m)
{
	double sw = 0, acc = 0, px = 0, rpx = 0;

	m->fm = ts_fm();
	for (size_t i = 0; i < TS_ARRAY_SIZE(resolutions); i++)
		sw += resolutions[i].weight;
	for (size_t i = 0; i < TS_ARRAY_SIZE(resolutions); i++) {
		double p = resolutions[i].weight / sw;
		uint32_t rw, rh;
		acc += p;
		m->res_cdf[i] = acc;
		px += p * resolutions[i].w * resolutions[i].h;
		rec_dims(resolutions[i].w, resolutions[i].h, &rw, &rh);
		rpx += p * rw * rh;
	}
	m->res_cdf[TS_ARRAY_SIZE(resolutions) - 1] = 1.0;
	for (size_t g = 0, i = 0; g < GUIDE; g++) {
		while (i < TS_ARRAY_SIZE(resolutions) - 1 && !(m->res_cdf[i] > (double)g / GUIDE))
			i++;
		m->res_guide[g] = (uint8_t)i;
	}
	sw = acc = 0;
	for (size_t i = 0; i < TS_ARRAY_SIZE(jpeg_settings); i++)
		sw += jpeg_settings[i].weight;
	for (size_t i = 0; i < TS_ARRAY_SIZE(jpeg_settings); i++) {
		acc += jpeg_settings[i].weight / sw;
		m->set_cdf[i] = acc;
	}
	m->set_cdf[TS_ARRAY_SIZE(jpeg_settings) - 1] = 1.0;
	/*
	 * Size = pixels x bytes-per-pixel, the two independent, so the mean
	 * bytes-per-pixel is the mean size over the mean pixel count (the
	 * small floor of JPEG_MIN_BYTES and the record framing are ignored:
	 * < 0.1% of the mean).
	 */
	m->jpeg_mu = solve_mu(JPEG_MEAN_BYTES / px, JPEG_BPP_SIGMA, JPEG_BPP_MIN, JPEG_BPP_MAX);
	m->rec_mu = solve_mu((REC_MEAN_BYTES - 8 - TS_REC_IRHEADER_SIZE - 1.5) / rpx,
			     REC_BPP_SIGMA, REC_BPP_MIN, REC_BPP_MAX);
}

/* The first i whose cdf[i] is above @u (n - 1 when none), scanning from
 * @from: every cdf before it is at most u. */
static size_t pick(const double *cdf, size_t n, double u, size_t from)
{
	for (size_t i = from; i < n; i++)
		if (u < cdf[i])
			return i;
	return n - 1;
}

/* The resolution of a draw @u in [0, 1): pick's over res_cdf from the
 * start, as u x GUIDE is exact and u >= its floor / GUIDE. */
static size_t pick_res(const struct model *m, double u)
{
	return pick(m->res_cdf, TS_ARRAY_SIZE(resolutions), u, m->res_guide[(size_t)(u * GUIDE)]);
}

/* (double)llround(x) for 0 <= x < 2^63, and the larger of it and @floor
 * (fmax): inline, as libm's calls were a tenth of a whole-dataset
 * describe. x - trunc(x) is exact there, so the halfway test is. */
/* pick's over set_cdf from the start, as a count: the first i whose cdf
 * is above @u is the number of cdfs at most u (they grow, the last is 1),
 * without a branch on the draw. */
static size_t pick_set(const struct model *m, double u)
{
	_Static_assert(TS_ARRAY_SIZE(jpeg_settings) == 3, "pick_set counts two bounds");
	return (size_t)(m->set_cdf[0] <= u) + (size_t)(m->set_cdf[1] <= u);
}

static double round_at_least(double x, double floor)
{
	double t = (double)(long long)x;
	/* t + 0 or t + 1, both exact: no branch on a fraction the CPU
	 * cannot predict */
	double r = t + (double)(x - t >= 0.5);
	return r >= floor ? r : floor;
}

static double clampd(double v, double lo, double hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* ts_rng_normal's two uniforms, drawn as it draws them. */
static inline void normal_uniforms(struct ts_rng *r, double *u1, double *u2)
{
	do
		*u1 = ts_rng_double(r);
	while (*u1 <= 0.0);
	*u2 = ts_rng_double(r);
}

/* size_bpp's libm value, the expression ts_rng_normal and exp make; out
 * of line (rare: 29 of ImageNet's 1,281,167 draws), so that the fast
 * path inlines into draw. */
static __attribute__((noinline)) double size_bpp_libm(double mu, double sigma, double lo,
						      double hi, double u1, double u2)
{
	return clampd(exp(mu + sigma * (sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2))), lo, hi);
}

/*
 * Bytes per pixel clamp(exp(mu + sigma z), lo, hi), z = ts_rng_normal's
 * of @u1, @u2, as the size of an image of @px pixels uses it: compared
 * with @thr and rounded as px bpp. The fast value (core/fmath.h) where it
 * decides all three as libm's does, else libm's value (size_bpp_libm).
 */
static inline double size_bpp(const struct model *m, double mu, double sigma, double lo,
			      double hi, double thr, double px, double u1, double u2)
{
	double v = fm_lognormal(m->fm, mu, sigma, u1, u2);
	double bpp = clampd(v, lo, hi);
	if (!ts_fm_near(v, lo) && !ts_fm_near(v, hi) && !ts_fm_near(bpp, thr) &&
	    (bpp != v || !ts_fm_near_half(px * bpp)))
		return bpp;
	return size_bpp_libm(mu, sigma, lo, hi, u1, u2);
}

/* Image @img's draws in order, each from the image's own stream, up to
 * @upto: its size (resolution, settings, bytes per pixel), then the
 * im2rec copy's size, then the rest (the picture's seed, the LMDB grain).
 * A later draw never changes an earlier one, so sizes drawn alone are
 * those of the whole spec; fields past @upto are left zero. */
enum draw { DRAW_JPEG, DRAW_REC, DRAW_ALL };

static void draw(const struct model *m, uint64_t seed, uint64_t img, enum draw upto,
		 struct ts_ds_image_spec *p)
{
	struct ts_rng r;

	*p = (struct ts_ds_image_spec){ 0 };
	ts_rng_seed(&r, seed * 0x9e3779b97f4a7c15ULL + img * 0xd1b54a32d192ed03ULL + 0x1234567);
	size_t ri = pick_res(m, ts_rng_double(&r));
	size_t si = pick_set(m, ts_rng_double(&r));
	double u1, u2;
	normal_uniforms(&r, &u1, &u2);
	double px = (double)resolutions[ri].w * resolutions[ri].h;
	double bpp = size_bpp(m, m->jpeg_mu, JPEG_BPP_SIGMA, JPEG_BPP_MIN, JPEG_BPP_MAX,
			      jpeg_settings[si].max_bpp, px, u1, u2);

	if (bpp > jpeg_settings[si].max_bpp)
		si = 0; /* a heavily compressed file is a small one */
	p->w = resolutions[ri].w;
	p->h = resolutions[ri].h;
	p->jpeg = (struct ts_jpeg_params){
		.width = p->w,
		.height = p->h,
		.target = (uint32_t)round_at_least(px * bpp, JPEG_MIN_BYTES + JPEG_BPP_MIN * px),
		.quality = jpeg_settings[si].quality,
		.subsample = jpeg_settings[si].subsample,
	};
	if (upto == DRAW_JPEG)
		return;
	uint32_t rw, rh;
	rec_dims(p->w, p->h, &rw, &rh);
	double rpx = (double)rw * rh;
	normal_uniforms(&r, &u1, &u2);
	double rbpp = size_bpp(m, m->rec_mu, REC_BPP_SIGMA, REC_BPP_MIN, REC_BPP_MAX, INFINITY,
			       rpx, u1, u2);
	p->rec = (struct ts_jpeg_params){
		.width = rw,
		.height = rh,
		.target = (uint32_t)round_at_least(rpx * rbpp, JPEG_MIN_BYTES + REC_BPP_MIN * rpx),
		.quality = REC_QUALITY,
		.subsample = true,
		.no_rec_magic = true,
	};
	if (upto == DRAW_REC)
		return;
	uint64_t picture = ts_rng_u64(&r);
	p->jpeg.seed = picture;
	p->rec.seed = picture;
	p->lmdb_grain = ts_rng_lognormal(&r, LMDB_GRAIN_P50, LMDB_GRAIN_P99);
}

static void draw_spec(const struct model *m, uint64_t seed, uint64_t img,
		      struct ts_ds_image_spec *p)
{
	draw(m, seed, img, DRAW_ALL, p);
}

/* ------------------------------------------------------------------ */
/* Names and layout                                                    */
/* ------------------------------------------------------------------ */

static uint32_t wnid[TS_IMAGENET_CLASSES];
static pthread_once_t wnid_once = PTHREAD_ONCE_INIT;

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* 1000 distinct sorted WordNet-offset-like numbers in ILSVRC2012's range
 * (n01440764 .. n15075141); the first is the real first class. */
#define WNID_END 15075141
_Static_assert(WNID_END <= 100000000, "a wnid prints in 8 digits (path lengths)");
static void wnid_build(void)
{
	struct ts_rng r;
	ts_rng_seed(&r, 0x776e6964);
	wnid[0] = 1440764;
	for (uint32_t i = 1; i < TS_IMAGENET_CLASSES;) {
		uint32_t v = 1440765 + (uint32_t)ts_rng_below(&r, WNID_END - 1440765);
		bool dup = false;
		for (uint32_t k = 0; k < i; k++)
			dup |= wnid[k] == v;
		if (!dup)
			wnid[i++] = v;
	}
	qsort(wnid, TS_IMAGENET_CLASSES, sizeof(wnid[0]), cmp_u32);
}

void ts_dataset_class_name(uint32_t c, char out[10])
{
	pthread_once(&wnid_once, wnid_build);
	snprintf(out, 10, "n%08" PRIu32, wnid[c % TS_IMAGENET_CLASSES]);
}

void ts_dataset_sample_path(const struct ts_dataset_meta *meta, uint64_t img, char *out,
			    size_t n)
{
	char cls[10];

	ts_dataset_class_name(meta->img_label[img], cls);
	if (img < meta->count)
		snprintf(out, n, "train/%s/%s_%" PRIu32 ".JPEG", cls, cls, meta->img_fileno[img]);
	else
		snprintf(out, n, "val/%s/ILSVRC2012_val_%08" PRIu32 ".JPEG", cls,
			 meta->img_fileno[img]);
}

/* Decimal digits of @v: compares, four digits a step (a listing asks
 * for a 5-digit number once per image). */
static size_t ndigits(uint64_t v)
{
	size_t n = 1;
	for (; v >= 10000; v /= 10000)
		n += 4;
	return n + (v >= 10) + (v >= 100) + (v >= 1000);
}

size_t ts_dataset_sample_path_len(const struct ts_dataset_meta *meta, uint64_t img)
{
	/* "n%08": every wnid has 8 digits, as wnid_build draws them below
	 * WNID_END: no table to build or read, once per image of a
	 * whole-dataset listing */
	size_t cls = 1 + 8;
	size_t no = ndigits(meta->img_fileno[img]);
	if (img < meta->count) /* train/CLS/CLS_NO.JPEG */
		return 6 + cls + 1 + cls + 1 + no + 5;
	return 4 + cls + 1 + 15 + TS_MAX(no, 8) + 5; /* val/CLS/ILSVRC2012_val_NO.JPEG */
}

static uint32_t default_classes(uint64_t count)
{
	uint64_t c = (count + 9) / 10;
	return (uint32_t)(c < 1 ? 1 : c > TS_IMAGENET_CLASSES ? TS_IMAGENET_CLASSES : c);
}

/*
 * Splits @total images over @classes: train by per-class weights (most
 * classes full, some between 732 and 1,300 images), val evenly; every
 * class gets at least one image when there are enough. Largest remainder.
 */
static void split_classes(struct ts_rng *r, uint64_t total, uint32_t classes, bool even,
			  uint64_t *n)
{
	double *wt = malloc(classes * sizeof(*wt)), sw = 0;
	uint64_t given = 0;

	for (uint32_t c = 0; c < classes; c++) {
		wt[c] = even || ts_rng_double(r) < FULL_CLASS_SHARE
				? 1300.0
				: 732.0 + 568.0 * ts_rng_double(r);
		sw += wt[c];
	}
	uint64_t base = total >= classes ? 1 : 0;
	uint64_t rest = total - base * classes;
	double *frac = malloc(classes * sizeof(*frac));
	for (uint32_t c = 0; c < classes; c++) {
		double exact = (double)rest * wt[c] / sw;
		n[c] = base + (uint64_t)exact;
		frac[c] = exact - floor(exact);
		given += n[c];
	}
	while (given < total) { /* largest remainders first */
		uint32_t best = 0;
		for (uint32_t c = 1; c < classes; c++)
			if (frac[c] > frac[best])
				best = c;
		n[best]++;
		frac[best] = -1.0;
		given++;
	}
	free(wt);
	free(frac);
}

/* Fills img_label / img_fileno for train and val images. */
static int layout(struct ts_dataset_meta *meta)
{
	uint32_t C = meta->classes;
	uint64_t *n = malloc(C * sizeof(*n));
	struct ts_rng r;

	if (!n)
		return -ENOMEM;
	ts_rng_seed(&r, meta->seed ^ 0x6c61796f7574ULL);
	split_classes(&r, meta->count, C, false, n);
	uint64_t i = 0;
	for (uint32_t c = 0; c < C; c++) {
		uint32_t k = 10000 + (uint32_t)ts_rng_below(&r, 1000);
		for (uint64_t j = 0; j < n[c]; j++, i++) {
			/* 5-digit numbers: sorted by name is sorted by number */
			k += 1 + (uint32_t)ts_rng_below(&r, 60000 / (n[c] + 1) > 1 ? 60000 / (n[c] + 1) : 1);
			meta->img_label[i] = (uint16_t)c;
			meta->img_fileno[i] = k;
		}
	}
	if (meta->val) {
		uint32_t *ids = malloc(meta->val * sizeof(*ids));
		if (!ids) {
			free(n);
			return -ENOMEM;
		}
		for (uint64_t v = 0; v < meta->val; v++)
			ids[v] = (uint32_t)v + 1;
		ts_rng_shuffle_u32(&r, ids, meta->val);
		split_classes(&r, meta->val, C, true, n);
		uint64_t v = 0;
		for (uint32_t c = 0; c < C; c++) {
			qsort(ids + v, n[c], sizeof(*ids), cmp_u32);
			for (uint64_t j = 0; j < n[c]; j++, v++, i++) {
				meta->img_label[i] = (uint16_t)c;
				meta->img_fileno[i] = ids[v];
			}
		}
		free(ids);
	}
	free(n);
	return 0;
}


/* ------------------------------------------------------------------ */
/* Describe                                                            */
/* ------------------------------------------------------------------ */

int ts_ds_image_describe(const struct ts_dataset_config *cfg, struct ts_dataset_meta *meta,
			 char *err, size_t errlen)
{
	const struct ts_ds_image_kind *k = meta->kind->data;
	struct model m;
	int rc;

	if (!k || !meta->own) /* generate runs on a meta this one filled */
		return ts_ds_fail(err, errlen, -EINVAL,
				  "dataset kind '%s': no image storage (its ops' data) or no "
				  "options",
				  meta->kind->name);
	struct ts_ds_image_opts *o = meta->own;
	(void)cfg;
	meta->val = o->val;
	meta->classes = o->classes ? (uint32_t)o->classes : default_classes(meta->count);
	o->classes = meta->classes;
	if (meta->classes > TS_IMAGENET_CLASSES || meta->classes > meta->count)
		return ts_ds_fail(err, errlen, -EINVAL,
				  "--classes %" PRIu32 " must be between 1 and min(1000, count %" PRIu64
				  ")",
				  meta->classes, meta->count);
	uint64_t nimg = meta->count + meta->val;
	meta->samples = nimg;
	meta->img_label = malloc(nimg * sizeof(*meta->img_label));
	meta->img_fileno = malloc(nimg * sizeof(*meta->img_fileno));
	meta->bytes = malloc(nimg * sizeof(*meta->bytes));
	meta->width = malloc(nimg * sizeof(*meta->width));
	meta->height = malloc(nimg * sizeof(*meta->height));
	meta->label = malloc(nimg * sizeof(*meta->label));
	meta->order = malloc(nimg * sizeof(*meta->order));
	if (!meta->img_label || !meta->img_fileno || !meta->bytes || !meta->width ||
	    !meta->height || !meta->label || !meta->order || (rc = layout(meta)))
		return ts_ds_fail(err, errlen, -ENOMEM, "describing %s: %s", meta->kind->name,
				  ts_strerror(-ENOMEM));
	for (uint64_t i = 0; i < nimg; i++)
		meta->order[i] = (uint32_t)i;
	if (meta->kind->caps & TS_DS_SHUFFLED) {
		struct ts_rng r;
		ts_rng_seed(&r, meta->seed ^ 0x73687566666c65ULL);
		ts_rng_shuffle_u32(&r, meta->order, nimg);
	}
	model_init(&m);
	for (uint64_t j = 0; j < nimg; j++) {
		struct ts_ds_image_spec p;
		uint32_t img = meta->order[j];
		draw(&m, meta->seed, img, k->size_rec ? DRAW_REC : DRAW_JPEG, &p);
		meta->label[j] = meta->img_label[img];
		k->size(meta, img, &p, &meta->bytes[j], &meta->width[j], &meta->height[j]);
		meta->sample_bytes += meta->bytes[j];
	}
	if ((rc = k->files(meta)))
		return ts_ds_fail(err, errlen, rc, "describing %s: %s", meta->kind->name,
				  ts_strerror(rc));
	return 0;
}

int ts_ds_jpeg_dims(const uint8_t *jpg, size_t len, uint32_t *w, uint32_t *h)
{
	tjhandle tj = tjInitDecompress();
	int iw = 0, ih = 0, sub, cs;

	if (!tj)
		return -ENOMEM;
	int rc = tjDecompressHeader3(tj, jpg, (unsigned long)len, &iw, &ih, &sub, &cs);
	tjDestroy(tj);
	if (rc || iw <= 0 || ih <= 0)
		return TS_E_CORRUPT;
	*w = (uint32_t)iw;
	*h = (uint32_t)ih;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Generation                                                          */
/* ------------------------------------------------------------------ */

/*
 * Workers make samples in storage order into a window of slots; the
 * calling thread writes them out strictly in order (LMDB and RecordIO are
 * sequential files; the JPEG tree is written in the same way so that one
 * thread owns every file descriptor and error message). The window bounds
 * the memory held to a few samples per worker.
 */
struct slot {
	bool ready;
	int err;
	struct ts_ds_sample s;
};

struct gen {
	const struct ts_ds_image_kind *k;
	const struct ts_dataset_meta *meta;
	struct model m;
	uint64_t n;
	size_t window;
	struct slot *slots;
	pthread_mutex_t mu;
	pthread_cond_t space, ready;
	uint64_t next, consumed;
	bool abort;
	int dead;	/* a worker could not start: its error */
};

static void *worker(void *arg)
{
	struct gen *g = arg;
	struct ts_jpeggen jg;
	int rc = ts_jpeggen_init(&jg);

	pthread_mutex_lock(&g->mu);
	if (rc) {
		g->dead = rc;
		pthread_cond_broadcast(&g->ready);
		pthread_mutex_unlock(&g->mu);
		return NULL;
	}
	for (;;) {
		while (!g->abort && g->next < g->n && g->next >= g->consumed + g->window)
			pthread_cond_wait(&g->space, &g->mu);
		if (g->abort || g->next >= g->n)
			break;
		uint64_t j = g->next++;
		pthread_mutex_unlock(&g->mu);

		struct slot s = { 0 };
		struct ts_ds_image_spec p;
		uint32_t img = g->meta->order[j];
		draw_spec(&g->m, g->meta->seed, img, &p);
		s.err = g->k->make(&jg, g->meta, img, &p, &s.s);

		pthread_mutex_lock(&g->mu);
		s.ready = true;
		g->slots[j % g->window] = s;
		pthread_cond_broadcast(&g->ready);
	}
	pthread_mutex_unlock(&g->mu);
	ts_jpeggen_fini(&jg);
	return NULL;
}

struct progress {
	const char *what;
	uint64_t total, done, bytes, t0, last;
	bool tty, on;
	int decile;
};

static void progress(struct progress *pr, bool final)
{
	uint64_t now = ts_now_ns();
	char sz[32], eta[32];

	if (!pr->on)
		return;
	double secs = (double)(now - pr->t0) / 1e9;
	double rate = secs > 0 ? (double)pr->done / secs : 0;
	int pct = pr->total ? (int)(100 * pr->done / pr->total) : 100;
	ts_fmt_size(sz, sizeof(sz), pr->bytes);
	if (pr->tty) {
		if (!final && now - pr->last < 200 * TS_NS_PER_MS)
			return;
		pr->last = now;
		double left = rate > 0 ? (double)(pr->total - pr->done) / rate : 0;
		ts_fmt_duration(eta, sizeof(eta), (uint64_t)(left * 1e9));
		fprintf(stderr, "\r%s: %" PRIu64 "/%" PRIu64 " (%3d%%) %.0f/s %s, %s left\033[K%s",
			pr->what, pr->done, pr->total, pct, rate, sz, eta, final ? "\n" : "");
	} else if (pct / 10 > pr->decile || final) {
		if (pct / 10 > pr->decile || pr->decile < 10)
			fprintf(stderr, "%s: %" PRIu64 "/%" PRIu64 " (%d%%) %.0f/s %s\n", pr->what,
				pr->done, pr->total, pct, rate, sz);
		pr->decile = final ? 10 : pct / 10;
	}
}

static unsigned online_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (unsigned)n : 1;
}

/*
 * Why one long function: the producer/consumer loop and its set-up and
 * teardown (threads, slots, writer) in one place, so that every exit joins
 * the threads and frees the slots in the one order that is safe (out:).
 */
int ts_ds_image_generate(const struct ts_dataset_meta *meta, const struct ts_dataset_config *cfg,
			 const char *dir, struct ts_dataset_stats *st, char *err, size_t errlen)
{
	const struct ts_ds_image_kind *k = meta->kind->data;
	struct gen g = { .k = k, .meta = meta, .n = meta->samples };
	struct progress pr = { .what = meta->kind->name, .total = meta->samples,
			       .tty = isatty(2), .on = cfg->progress, .t0 = ts_now_ns() };
	unsigned nthr = cfg->threads ? (unsigned)cfg->threads : online_cpus();
	pthread_t *thr = NULL;
	unsigned started = 0;
	void *w = NULL;
	int rc;

	st->threads = nthr;
	model_init(&g.m);
	g.window = 4 * (size_t)nthr;
	g.slots = calloc(g.window, sizeof(*g.slots));
	thr = calloc(nthr, sizeof(*thr));
	if (!g.slots || !thr) {
		free(g.slots);
		free(thr);
		return ts_ds_fail(err, errlen, -ENOMEM, "out of memory");
	}
	pthread_mutex_init(&g.mu, NULL);
	pthread_cond_init(&g.space, NULL);
	pthread_cond_init(&g.ready, NULL);
	if ((rc = k->open(meta, dir, &w, err, errlen)))
		goto out;
	for (; started < nthr; started++) {
		if ((rc = -pthread_create(&thr[started], NULL, worker, &g))) {
			ts_ds_fail(err, errlen, rc, "starting generator threads: %s",
				   ts_strerror(rc));
			break;
		}
	}
	for (uint64_t j = 0; !rc && j < g.n; j++) {
		struct slot *sl = &g.slots[j % g.window];
		if (cfg->stop && *cfg->stop) {
			rc = ts_ds_fail(err, errlen, -EINTR,
					"%s: interrupted after %" PRIu64 " of %" PRIu64
					" samples; the directory is incomplete",
					dir, j, g.n);
			break;
		}
		pthread_mutex_lock(&g.mu);
		while (!sl->ready && !g.dead && started)
			pthread_cond_wait(&g.ready, &g.mu);
		if (!sl->ready) {
			rc = g.dead ? g.dead : -ECHILD;
			pthread_mutex_unlock(&g.mu);
			ts_ds_fail(err, errlen, rc, "generator thread: %s", ts_strerror(rc));
			break;
		}
		struct slot s = *sl;
		memset(sl, 0, sizeof(*sl));
		g.consumed = j + 1;
		pthread_cond_broadcast(&g.space);
		pthread_mutex_unlock(&g.mu);
		if (s.err) {
			char name[192];
			rc = s.err;
			meta->kind->sample_name(meta, j, name, sizeof(name));
			ts_ds_fail(err, errlen, rc, "%s: %s %s: generating image %" PRIu32 ": %s", dir,
				   meta->kind->sample_column, name, meta->order[j], ts_strerror(rc));
		} else {
			rc = k->put(w, j, s.s.buf, s.s.len, err, errlen);
		}
		free(s.s.buf);
		if (rc)
			break;
		st->samples++;
		st->pad_bytes += s.s.jr.pad;
		st->encodes += s.s.jr.encodes;
		st->requality += s.s.requal;
		pr.done++;
		pr.bytes += meta->bytes[j];
		progress(&pr, false);
	}
out:
	pthread_mutex_lock(&g.mu);
	g.abort = true;
	pthread_cond_broadcast(&g.space);
	pthread_mutex_unlock(&g.mu);
	for (unsigned i = 0; i < started; i++)
		pthread_join(thr[i], NULL);
	for (size_t i = 0; i < g.window; i++)
		free(g.slots[i].s.buf);
	if (w) {
		int rc2 = k->close(w, rc == 0, rc ? NULL : err, errlen);
		if (!rc)
			rc = rc2;
	}
	if (!rc)
		progress(&pr, true);
	else if (pr.on && pr.tty && pr.done)
		fputc('\n', stderr);
	pthread_mutex_destroy(&g.mu);
	pthread_cond_destroy(&g.space);
	pthread_cond_destroy(&g.ready);
	free(g.slots);
	free(thr);
	return rc;
}
