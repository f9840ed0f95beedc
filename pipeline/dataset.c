/*
 * dataset.c — the dataset kinds: their size model (what describe promises),
 * the generation driver (a small thread pool feeding one ordered writer)
 * and the dataset.json manifest. See dataset.h and pipeline/DATASETS.md.
 */
#include "pipeline/dataset.h"

#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <limits.h>
#include <lmdb.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/files.h"
#include "core/rng.h"
#include "core/units.h"
#include "pipeline/datum.h"
#include "pipeline/jpeggen.h"
#include "pipeline/recordio.h"
#include "pipeline/textgen.h"

#define MANIFEST "dataset.json"
#define MANIFEST_VERSION 1

static const char *const kind_names[TS_DS_NKINDS] = {
	[TS_DS_IMAGENET_JPEG] = "imagenet-jpeg",
	[TS_DS_IMAGENET_LMDB] = "imagenet-lmdb",
	[TS_DS_IMAGENET_REC] = "imagenet-rec",
	[TS_DS_PTB_TEXT] = "ptb-text",
};

const char *ts_dataset_kind_name(enum ts_dataset_kind k)
{
	return (unsigned)k < TS_DS_NKINDS ? kind_names[k] : "?";
}

int ts_dataset_kind_parse(const char *name, enum ts_dataset_kind *out)
{
	for (unsigned k = 0; k < TS_DS_NKINDS; k++) {
		if (strcmp(name, kind_names[k]) == 0) {
			*out = (enum ts_dataset_kind)k;
			return 0;
		}
	}
	return TS_E_UNKNOWN;
}

const struct ts_opt ts_dataset_opts[] = {
	{ "count", TS_OPT_U64, offsetof(struct ts_dataset_config, count), "0", 0, 1e9, "",
	  "train images (words for ptb-text); 0 = full size (1281167 / 887521)" },
	{ "val", TS_OPT_U64, offsetof(struct ts_dataset_config, val), "0", 0, 1e8, "",
	  "imagenet-jpeg: validation images under val/" },
	{ "seed", TS_OPT_U64, offsetof(struct ts_dataset_config, seed), "1", 0, 0, "",
	  "generator seed: same seed, same bytes" },
	{ "classes", TS_OPT_U64, offsetof(struct ts_dataset_config, classes), "0", 0,
	  TS_IMAGENET_CLASSES, "", "image classes; 0 = min(1000, ceil(count / 10))" },
	{ "encoded", TS_OPT_BOOL, offsetof(struct ts_dataset_config, encoded), "false", 0, 0, "",
	  "imagenet-lmdb: store the JPEG file in the Datum (convert_imageset --encoded)" },
	{ "threads", TS_OPT_U64, offsetof(struct ts_dataset_config, threads), "0", 0, 256, "",
	  "generator threads; 0 = one per online CPU" },
	{ "progress", TS_OPT_BOOL, offsetof(struct ts_dataset_config, progress), "false", 0, 0, "",
	  "progress on stderr (a live line on a terminal, a line per 10% otherwise)" },
	{ NULL },
};

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

struct model {
	double res_cdf[TS_ARRAY_SIZE(resolutions)];
	double set_cdf[TS_ARRAY_SIZE(jpeg_settings)];
	double jpeg_mu, rec_mu;
};

static void model_init(struct model *m)
{
	double sw = 0, acc = 0, px = 0, rpx = 0;

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

static size_t pick(const double *cdf, size_t n, double u)
{
	for (size_t i = 0; i < n; i++)
		if (u < cdf[i])
			return i;
	return n - 1;
}

/* Everything about image @img (tree numbering), drawn from its own stream. */
struct plan {
	uint32_t w, h;
	struct ts_jpeg_params jpeg;	/* the original file */
	struct ts_jpeg_params rec;	/* the RecordIO copy */
	double lmdb_grain;
};

static double clampd(double v, double lo, double hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

static void plan_image(const struct model *m, uint64_t seed, uint64_t img, struct plan *p)
{
	struct ts_rng r;

	ts_rng_seed(&r, seed * 0x9e3779b97f4a7c15ULL + img * 0xd1b54a32d192ed03ULL + 0x1234567);
	size_t ri = pick(m->res_cdf, TS_ARRAY_SIZE(resolutions), ts_rng_double(&r));
	size_t si = pick(m->set_cdf, TS_ARRAY_SIZE(jpeg_settings), ts_rng_double(&r));
	double bpp = clampd(exp(m->jpeg_mu + JPEG_BPP_SIGMA * ts_rng_normal(&r)), JPEG_BPP_MIN,
			    JPEG_BPP_MAX);
	double rbpp = clampd(exp(m->rec_mu + REC_BPP_SIGMA * ts_rng_normal(&r)), REC_BPP_MIN,
			     REC_BPP_MAX);
	uint64_t picture = ts_rng_u64(&r);

	if (bpp > jpeg_settings[si].max_bpp)
		si = 0; /* a heavily compressed file is a small one */
	p->w = resolutions[ri].w;
	p->h = resolutions[ri].h;
	double px = (double)p->w * p->h;
	p->jpeg = (struct ts_jpeg_params){
		.width = p->w,
		.height = p->h,
		.target = (uint32_t)fmax(llround(px * bpp), JPEG_MIN_BYTES + JPEG_BPP_MIN * px),
		.quality = jpeg_settings[si].quality,
		.subsample = jpeg_settings[si].subsample,
		.seed = picture,
	};
	uint32_t rw, rh;
	rec_dims(p->w, p->h, &rw, &rh);
	double rpx = (double)rw * rh;
	p->rec = (struct ts_jpeg_params){
		.width = rw,
		.height = rh,
		.target = (uint32_t)fmax(llround(rpx * rbpp), JPEG_MIN_BYTES + REC_BPP_MIN * rpx),
		.quality = REC_QUALITY,
		.subsample = true,
		.no_rec_magic = true,
		.seed = picture,
	};
	p->lmdb_grain = ts_rng_lognormal(&r, LMDB_GRAIN_P50, LMDB_GRAIN_P99);
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
static void wnid_build(void)
{
	struct ts_rng r;
	ts_rng_seed(&r, 0x776e6964);
	wnid[0] = 1440764;
	for (uint32_t i = 1; i < TS_IMAGENET_CLASSES;) {
		uint32_t v = 1440765 + (uint32_t)ts_rng_below(&r, 15075141 - 1440765);
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

void ts_dataset_lmdb_key(const struct ts_dataset_meta *meta, uint64_t j, char *out, size_t n)
{
	char rel[96];

	/* convert_imageset lists "<wnid>/<file>" relative to the train root */
	ts_dataset_sample_path(meta, meta->order[j], rel, sizeof(rel));
	snprintf(out, n, "%08" PRIu64 "_%s", j, rel + strlen("train/"));
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

static int fail(char *err, size_t errlen, int rc, const char *fmt, ...) TS_PRINTF(4, 5);
static int fail(char *err, size_t errlen, int rc, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return rc;
}

static int add_file(struct ts_dataset_meta *meta, const char *path, uint64_t bytes, bool est)
{
	struct ts_dataset_file *f = realloc(meta->files, (meta->nfiles + 1) * sizeof(*f));

	if (!f)
		return -ENOMEM;
	meta->files = f;
	f[meta->nfiles].path = strdup(path);
	if (!f[meta->nfiles].path)
		return -ENOMEM;
	f[meta->nfiles].bytes = bytes;
	f[meta->nfiles].estimated = est;
	meta->nfiles++;
	meta->total_bytes += bytes;
	return 0;
}

static size_t datum_size(size_t data_len, int32_t label, bool encoded)
{
	struct ts_datum d;

	if (encoded)
		ts_datum_init_encoded(&d, NULL, data_len, label);
	else
		ts_datum_init_raw(&d, 3, TS_LMDB_SIDE, TS_LMDB_SIDE, NULL, label);
	return ts_datum_encoded_size(&d);
}

/*
 * LMDB's data.mdb for keys appended in order (convert_imageset's keys
 * start with the zero-padded entry number): 2 meta pages, each value over
 * a page's quarter in its own run of overflow pages (16-byte page header),
 * leaf nodes of 8-byte header + key + 8-byte overflow page number + 2-byte
 * index, leaves split when full, a branch level above. Transactions of
 * 1000 copy-on-write their leaf path; LMDB reuses those pages, so a few
 * spare pages per commit are allowed for. An estimate, flagged as such.
 */
#define LMDB_PAGE 4096
static uint64_t lmdb_estimate(const struct ts_dataset_meta *meta, uint64_t keybytes)
{
	uint64_t pages = 2, leaf_bytes = 0;

	for (uint64_t j = 0; j < meta->samples; j++) {
		uint64_t v = meta->bytes[j];
		if (v > LMDB_PAGE / 4)
			pages += (v + 16 + LMDB_PAGE - 1) / LMDB_PAGE;
	}
	leaf_bytes = keybytes + meta->samples * (8 + 8 + 2);
	uint64_t leaves = (leaf_bytes + (LMDB_PAGE - 16) - 1) / (LMDB_PAGE - 16);
	uint64_t branches = leaves / 100 + 1;
	uint64_t commits = meta->samples / 1000 + 1;
	pages += leaves + branches + 2 * commits / 8 + 4;
	return pages * LMDB_PAGE;
}

int ts_dataset_meta_describe(enum ts_dataset_kind kind, const struct ts_dataset_config *cfg,
			     struct ts_dataset_meta *meta, char *err, size_t errlen)
{
	struct model m;
	int rc = -ENOMEM;

	memset(meta, 0, sizeof(*meta));
	if ((unsigned)kind >= TS_DS_NKINDS)
		return fail(err, errlen, TS_E_UNKNOWN, "unknown dataset kind %d", (int)kind);
	meta->kind = kind;
	meta->seed = cfg->seed;
	meta->encoded = cfg->encoded;
	if (kind == TS_DS_PTB_TEXT) {
		static const uint64_t full[3] = { TS_PTB_TRAIN_WORDS, TS_PTB_VALID_WORDS,
						  TS_PTB_TEST_WORDS };
		static const char *const names[3] = { "ptb.train.txt", "ptb.valid.txt",
						      "ptb.test.txt" };
		struct ts_vocab v;
		if (cfg->val || cfg->classes || cfg->encoded)
			return fail(err, errlen, -EINVAL,
				    "ptb-text takes no --val, --classes or --encoded");
		meta->count = cfg->count ? cfg->count : TS_PTB_TRAIN_WORDS;
		if ((rc = ts_vocab_init(&v, TS_PTB_VOCAB)))
			return fail(err, errlen, rc, "vocabulary: %s", ts_strerror(rc));
		for (int s = 0; s < 3; s++) {
			struct ts_text_counts c;
			/* valid and test keep the real corpus's proportions */
			uint64_t words = s == 0 ? meta->count
						: (meta->count * full[s] + full[0] / 2) / full[0];
			if (words == 0)
				words = 1;
			rc = ts_text_write(NULL, &v, meta->seed, (unsigned)s, words, &c);
			if (!rc)
				rc = add_file(meta, names[s], c.bytes, false);
			if (rc)
				break;
			meta->words[s] = c.words;
			meta->lines[s] = c.lines;
		}
		ts_vocab_free(&v);
		if (rc)
			goto fail;
		return 0;
	}

	meta->count = cfg->count ? cfg->count : TS_IMAGENET_TRAIN;
	meta->val = cfg->val;
	if (kind != TS_DS_IMAGENET_JPEG && cfg->val)
		return fail(err, errlen, -EINVAL,
			    "--val is for imagenet-jpeg; %s holds the train set only",
			    kind_names[kind]);
	if (kind != TS_DS_IMAGENET_LMDB && cfg->encoded)
		return fail(err, errlen, -EINVAL, "--encoded is for imagenet-lmdb only");
	meta->classes = cfg->classes ? (uint32_t)cfg->classes : default_classes(meta->count);
	if (meta->classes > TS_IMAGENET_CLASSES || meta->classes > meta->count)
		return fail(err, errlen, -EINVAL,
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
	    !meta->height || !meta->label || !meta->order)
		goto fail;
	if ((rc = layout(meta)))
		goto fail;
	for (uint64_t i = 0; i < nimg; i++)
		meta->order[i] = (uint32_t)i;
	if (kind != TS_DS_IMAGENET_JPEG) {
		/* convert_imageset --shuffle / im2rec's shuffled list */
		struct ts_rng r;
		ts_rng_seed(&r, meta->seed ^ 0x73687566666c65ULL);
		ts_rng_shuffle_u32(&r, meta->order, nimg);
	}
	model_init(&m);
	uint64_t keybytes = 0, idxbytes = 0;
	for (uint64_t j = 0; j < nimg; j++) {
		struct plan p;
		uint32_t img = meta->order[j];
		uint16_t label = meta->img_label[img];
		plan_image(&m, meta->seed, img, &p);
		meta->label[j] = label;
		switch (kind) {
		case TS_DS_IMAGENET_JPEG:
			meta->bytes[j] = p.jpeg.target;
			meta->width[j] = (uint16_t)p.w;
			meta->height[j] = (uint16_t)p.h;
			break;
		case TS_DS_IMAGENET_LMDB: {
			char key[128];
			meta->bytes[j] = (uint32_t)datum_size(meta->encoded ? p.jpeg.target : 0, label,
							      meta->encoded);
			meta->width[j] = (uint16_t)(meta->encoded ? p.w : TS_LMDB_SIDE);
			meta->height[j] = (uint16_t)(meta->encoded ? p.h : TS_LMDB_SIDE);
			ts_dataset_lmdb_key(meta, j, key, sizeof(key));
			keybytes += strlen(key);
			break;
		}
		case TS_DS_IMAGENET_REC: {
			char line[48];
			meta->bytes[j] = (uint32_t)ts_rec_frame_size(TS_REC_IRHEADER_SIZE + p.rec.target);
			meta->width[j] = (uint16_t)p.rec.width;
			meta->height[j] = (uint16_t)p.rec.height;
			idxbytes += (uint64_t)snprintf(line, sizeof(line), "%" PRIu32 "\t%" PRIu64 "\n",
						       img, meta->sample_bytes);
			break;
		}
		default:
			break;
		}
		meta->sample_bytes += meta->bytes[j];
	}
	switch (kind) {
	case TS_DS_IMAGENET_JPEG:
		meta->total_bytes = meta->sample_bytes;
		break;
	case TS_DS_IMAGENET_LMDB:
		/* lock.mdb: a reader table of 126 slots, 8 KiB on 64-bit Linux */
		if ((rc = add_file(meta, "train_lmdb/data.mdb", lmdb_estimate(meta, keybytes), true)) ||
		    (rc = add_file(meta, "train_lmdb/lock.mdb", 8192, true)))
			goto fail;
		break;
	case TS_DS_IMAGENET_REC:
		if ((rc = add_file(meta, "train.rec", meta->sample_bytes, false)) ||
		    (rc = add_file(meta, "train.idx", idxbytes, false)))
			goto fail;
		break;
	default:
		break;
	}
	return 0;
fail:
	ts_dataset_meta_free(meta);
	return fail(err, errlen, rc, "describing %s: %s", kind_names[kind], ts_strerror(rc));
}

void ts_dataset_meta_free(struct ts_dataset_meta *meta)
{
	free(meta->bytes);
	free(meta->width);
	free(meta->height);
	free(meta->label);
	free(meta->order);
	free(meta->img_label);
	free(meta->img_fileno);
	for (size_t i = 0; i < meta->nfiles; i++)
		free(meta->files[i].path);
	free(meta->files);
	memset(meta, 0, sizeof(*meta));
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
	bool requal;	/* the quality had to be lowered to fit the size */
	int err;
	uint8_t *buf;
	size_t len;
	struct ts_jpeg_result jr;
};

struct gen {
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

static int produce(struct gen *g, struct ts_jpeggen *jg, uint64_t j, struct slot *s)
{
	const struct ts_dataset_meta *meta = g->meta;
	uint32_t img = meta->order[j];
	const uint8_t *jpg;
	size_t jlen;
	struct plan p;
	struct ts_datum d;
	int rc;

	plan_image(&g->m, meta->seed, img, &p);
	switch (meta->kind) {
	case TS_DS_IMAGENET_JPEG:
		if ((rc = ts_jpeggen_make(jg, &p.jpeg, &jpg, &jlen, &s->jr)))
			return rc;
		s->requal = s->jr.quality != p.jpeg.quality;
		s->buf = malloc(jlen);
		if (!s->buf)
			return -ENOMEM;
		memcpy(s->buf, jpg, jlen);
		s->len = jlen;
		return 0;
	case TS_DS_IMAGENET_LMDB: {
		uint8_t *chw = NULL;
		if (meta->encoded) {
			if ((rc = ts_jpeggen_make(jg, &p.jpeg, &jpg, &jlen, &s->jr)))
				return rc;
			s->requal = s->jr.quality != p.jpeg.quality;
			ts_datum_init_encoded(&d, jpg, jlen, meta->img_label[img]);
		} else {
			/* convert_imageset --resize_height=256 --resize_width=256: the
			 * picture is drawn at 256x256 directly */
			if ((rc = ts_jpeggen_pixels(jg, p.jpeg.seed, TS_LMDB_SIDE, TS_LMDB_SIDE,
						    p.lmdb_grain)))
				return rc;
			chw = malloc(TS_LMDB_PIXELS);
			if (!chw)
				return -ENOMEM;
			ts_datum_rgb_to_chw_bgr(jg->rgb, TS_LMDB_SIDE, TS_LMDB_SIDE, chw);
			ts_datum_init_raw(&d, 3, TS_LMDB_SIDE, TS_LMDB_SIDE, chw,
					  meta->img_label[img]);
		}
		s->len = ts_datum_encoded_size(&d);
		s->buf = malloc(s->len);
		ssize_t n = s->buf ? ts_datum_encode(&d, s->buf, s->len) : -ENOMEM;
		free(chw);
		return n < 0 ? (int)n : 0;
	}
	case TS_DS_IMAGENET_REC: {
		struct ts_rec_irheader h = {
			.flag = 0, .label = (float)meta->img_label[img], .id = img, .id2 = 0
		};
		if ((rc = ts_jpeggen_make(jg, &p.rec, &jpg, &jlen, &s->jr)))
			return rc;
		s->requal = s->jr.quality != p.rec.quality;
		s->len = TS_REC_IRHEADER_SIZE + jlen;
		s->buf = malloc(s->len);
		if (!s->buf)
			return -ENOMEM;
		ts_rec_irheader_pack(&h, s->buf);
		memcpy(s->buf + TS_REC_IRHEADER_SIZE, jpg, jlen);
		return 0;
	}
	default:
		return -EINVAL;
	}
}

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
		s.err = produce(g, &jg, j, &s);

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

static int write_file(const char *path, const uint8_t *b, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	int rc;

	if (fd < 0)
		return -errno;
	rc = ts_write_all(fd, b, n);
	if (close(fd) && !rc)
		rc = -errno;
	return rc;
}

static int mkdir_one(const char *path)
{
	return mkdir(path, 0755) && errno != EEXIST ? -errno : 0;
}

/* Undoes a failed make: what it wrote into @dir (empty before), and the
 * directories it created for it (@made, from ts_mkdir_p). */
static void unmake_dir(const char *dir, const char *made)
{
	/* best effort: the error being reported matters more */
	if (made[0])
		ts_remove_tree(made, 0);
	else
		ts_remove_tree(dir, TS_RM_KEEP_TOP);
}

/* 0 if @dir is empty (or missing: then it is created, and @made says from where). */
static int prepare_dir(const char *dir, char *made, char *err, size_t errlen)
{
	int rc = ts_mkdir_p(dir, 0755, made, PATH_MAX);
	if (rc)
		return fail(err, errlen, rc, "%s: cannot create: %s", dir, ts_strerror(rc));
	DIR *d = opendir(dir);
	if (!d)
		return fail(err, errlen, -errno, "%s: %s", dir, ts_strerror(-errno));
	struct dirent *e;
	while ((e = readdir(d))) {
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			fail(err, errlen, -EEXIST,
			     "%s is not empty (holds %s); remove it or choose another --out", dir,
			     e->d_name);
			closedir(d); /* frees e */
			return -EEXIST;
		}
	}
	closedir(d);
	return 0;
}

struct sink {
	const struct ts_dataset_meta *meta;
	const char *dir;
	/* LMDB */
	MDB_env *env;
	MDB_txn *txn;
	MDB_dbi dbi;
	/* RecordIO */
	struct ts_rec_writer rec;
	bool rec_open;
};

static int lmdb_fail(char *err, size_t errlen, const char *path, int rc, const char *what)
{
	return fail(err, errlen, -EIO, "%s: LMDB %s: %s", path, what, mdb_strerror(rc));
}

static int sink_open(struct sink *k, char *err, size_t errlen)
{
	const struct ts_dataset_meta *meta = k->meta;
	char path[4096], cls[10];
	int rc;

	switch (meta->kind) {
	case TS_DS_IMAGENET_JPEG:
		for (int split = 0; split < 2; split++) {
			if (split == 1 && !meta->val)
				break;
			snprintf(path, sizeof(path), "%s/%s", k->dir, split ? "val" : "train");
			if ((rc = mkdir_one(path)))
				return fail(err, errlen, rc, "%s: %s", path, ts_strerror(rc));
			for (uint32_t c = 0; c < meta->classes; c++) {
				ts_dataset_class_name(c, cls);
				snprintf(path, sizeof(path), "%s/%s/%s", k->dir,
					 split ? "val" : "train", cls);
				if ((rc = mkdir_one(path)))
					return fail(err, errlen, rc, "%s: %s", path,
						    ts_strerror(rc));
			}
		}
		return 0;
	case TS_DS_IMAGENET_LMDB: {
		snprintf(path, sizeof(path), "%s/train_lmdb", k->dir);
		if ((rc = mkdir_one(path)))
			return fail(err, errlen, rc, "%s: %s", path, ts_strerror(rc));
		/* the map is address space, not disk: leave room over the estimate */
		uint64_t map = meta->files[0].bytes + meta->files[0].bytes / 2 + 64 * TS_MiB;
		map = (map + LMDB_PAGE - 1) / LMDB_PAGE * LMDB_PAGE;
		if ((rc = mdb_env_create(&k->env)))
			return lmdb_fail(err, errlen, path, rc, "env_create");
		if ((rc = mdb_env_set_mapsize(k->env, map)) ||
		    (rc = mdb_env_open(k->env, path, 0, 0664)))
			return lmdb_fail(err, errlen, path, rc, "open");
		return 0;
	}
	case TS_DS_IMAGENET_REC: {
		char idx[4096];
		snprintf(path, sizeof(path), "%s/train.rec", k->dir);
		snprintf(idx, sizeof(idx), "%s/train.idx", k->dir);
		if ((rc = ts_rec_writer_open(&k->rec, path, idx)))
			return fail(err, errlen, rc, "%s: %s", path, ts_strerror(rc));
		k->rec_open = true;
		return 0;
	}
	default:
		return -EINVAL;
	}
}

static int sink_put(struct sink *k, uint64_t j, const uint8_t *b, size_t len, char *err,
		    size_t errlen)
{
	const struct ts_dataset_meta *meta = k->meta;
	char path[4096], rel[160];
	int rc;

	switch (meta->kind) {
	case TS_DS_IMAGENET_JPEG:
		ts_dataset_sample_path(meta, meta->order[j], rel, sizeof(rel));
		snprintf(path, sizeof(path), "%s/%s", k->dir, rel);
		if (len != meta->bytes[j])
			return fail(err, errlen, TS_E_CORRUPT,
				    "%s: made %zu bytes where the model says %" PRIu32
				    " (generator bug)",
				    path, len, meta->bytes[j]);
		if ((rc = write_file(path, b, len)))
			return fail(err, errlen, rc, "%s: %s", path, ts_strerror(rc));
		return 0;
	case TS_DS_IMAGENET_LMDB: {
		MDB_val key, val;
		snprintf(path, sizeof(path), "%s/train_lmdb", k->dir);
		if (len != meta->bytes[j])
			return fail(err, errlen, TS_E_CORRUPT,
				    "%s: entry %" PRIu64 " is %zu bytes where the model says %" PRIu32
				    " (generator bug)",
				    path, j, len, meta->bytes[j]);
		/* convert_imageset commits every 1000 puts */
		if (!k->txn) {
			if ((rc = mdb_txn_begin(k->env, NULL, 0, &k->txn)))
				return lmdb_fail(err, errlen, path, rc, "txn_begin");
			if ((rc = mdb_dbi_open(k->txn, NULL, 0, &k->dbi)))
				return lmdb_fail(err, errlen, path, rc, "dbi_open");
		}
		ts_dataset_lmdb_key(meta, j, rel, sizeof(rel));
		key.mv_data = rel;
		key.mv_size = strlen(rel);
		val.mv_data = (void *)b;
		val.mv_size = len;
		if ((rc = mdb_put(k->txn, k->dbi, &key, &val, 0)))
			return lmdb_fail(err, errlen, path, rc, "put");
		if ((j + 1) % 1000 == 0) {
			rc = mdb_txn_commit(k->txn);
			k->txn = NULL;
			if (rc)
				return lmdb_fail(err, errlen, path, rc, "commit");
		}
		return 0;
	}
	case TS_DS_IMAGENET_REC: {
		uint64_t before = k->rec.offset;
		snprintf(path, sizeof(path), "%s/train.rec", k->dir);
		if ((rc = ts_rec_writer_add(&k->rec, meta->order[j], b, len)))
			return fail(err, errlen, rc, "%s: %s", path, ts_strerror(rc));
		if (k->rec.offset - before != meta->bytes[j])
			return fail(err, errlen, TS_E_CORRUPT,
				    "%s: record %" PRIu64 " is %" PRIu64
				    " bytes where the model says %" PRIu32 " (generator bug)",
				    path, j, k->rec.offset - before, meta->bytes[j]);
		return 0;
	}
	default:
		return -EINVAL;
	}
}

static int sink_close(struct sink *k, bool ok, char *err, size_t errlen)
{
	char path[4096];
	int rc = 0;

	if (k->txn) {
		if (ok) {
			rc = mdb_txn_commit(k->txn);
			if (rc) {
				snprintf(path, sizeof(path), "%s/train_lmdb", k->dir);
				rc = lmdb_fail(err, errlen, path, rc, "commit");
			}
		} else {
			mdb_txn_abort(k->txn);
		}
		k->txn = NULL;
	}
	if (k->env) {
		mdb_env_close(k->env);
		k->env = NULL;
	}
	if (k->rec_open) {
		int r2 = ts_rec_writer_close(&k->rec);
		k->rec_open = false;
		if (r2 && !rc && ok) {
			snprintf(path, sizeof(path), "%s/train.rec", k->dir);
			rc = fail(err, errlen, r2, "%s: %s", path, ts_strerror(r2));
		}
	}
	return rc;
}

static unsigned online_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (unsigned)n : 1;
}

static int make_images(const struct ts_dataset_meta *meta, const struct ts_dataset_config *cfg,
		       const char *dir, struct ts_dataset_stats *st, char *err, size_t errlen)
{
	struct gen g = { .meta = meta, .n = meta->samples };
	struct sink k = { .meta = meta, .dir = dir };
	struct progress pr = { .what = kind_names[meta->kind], .total = meta->samples,
			       .tty = isatty(2), .on = cfg->progress, .t0 = ts_now_ns() };
	unsigned nthr = cfg->threads ? (unsigned)cfg->threads : online_cpus();
	pthread_t *thr = NULL;
	unsigned started = 0;
	int rc;

	st->threads = nthr;
	model_init(&g.m);
	g.window = 4 * (size_t)nthr;
	g.slots = calloc(g.window, sizeof(*g.slots));
	thr = calloc(nthr, sizeof(*thr));
	if (!g.slots || !thr) {
		free(g.slots);
		free(thr);
		return fail(err, errlen, -ENOMEM, "out of memory");
	}
	pthread_mutex_init(&g.mu, NULL);
	pthread_cond_init(&g.space, NULL);
	pthread_cond_init(&g.ready, NULL);
	if ((rc = sink_open(&k, err, errlen)))
		goto out;
	for (; started < nthr; started++) {
		if ((rc = -pthread_create(&thr[started], NULL, worker, &g))) {
			fail(err, errlen, rc, "starting generator threads: %s", ts_strerror(rc));
			break;
		}
	}
	for (uint64_t j = 0; !rc && j < g.n; j++) {
		struct slot *sl = &g.slots[j % g.window];
		if (cfg->stop && *cfg->stop) {
			rc = fail(err, errlen, -EINTR, "%s: interrupted after %" PRIu64
				  " of %" PRIu64 " samples; the directory is incomplete", dir, j, g.n);
			break;
		}
		pthread_mutex_lock(&g.mu);
		while (!sl->ready && !g.dead && started)
			pthread_cond_wait(&g.ready, &g.mu);
		if (!sl->ready) {
			rc = g.dead ? g.dead : -ECHILD;
			pthread_mutex_unlock(&g.mu);
			fail(err, errlen, rc, "generator thread: %s", ts_strerror(rc));
			break;
		}
		struct slot s = *sl;
		memset(sl, 0, sizeof(*sl));
		g.consumed = j + 1;
		pthread_cond_broadcast(&g.space);
		pthread_mutex_unlock(&g.mu);
		if (s.err) {
			char rel[160];
			rc = s.err;
			if (meta->kind == TS_DS_IMAGENET_JPEG)
				ts_dataset_sample_path(meta, meta->order[j], rel, sizeof(rel));
			else
				snprintf(rel, sizeof(rel), "record %" PRIu64, j);
			fail(err, errlen, rc, "%s/%s: generating image %" PRIu32 ": %s", dir, rel,
			     meta->order[j], ts_strerror(rc));
		} else {
			rc = sink_put(&k, j, s.buf, s.len, err, errlen);
		}
		free(s.buf);
		if (rc)
			break;
		st->samples++;
		st->pad_bytes += s.jr.pad;
		st->encodes += s.jr.encodes;
		st->requality += s.requal;
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
		free(g.slots[i].buf);
	int rc2 = sink_close(&k, rc == 0, err, errlen);
	if (!rc)
		rc = rc2;
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

static int make_text(const struct ts_dataset_meta *meta, const char *dir,
		     struct ts_dataset_stats *st, char *err, size_t errlen)
{
	struct ts_vocab v;
	char path[4096];
	int rc;

	if ((rc = ts_vocab_init(&v, TS_PTB_VOCAB)))
		return fail(err, errlen, rc, "vocabulary: %s", ts_strerror(rc));
	for (unsigned s = 0; s < 3 && !rc; s++) {
		struct ts_text_counts c;
		snprintf(path, sizeof(path), "%s/%s", dir, meta->files[s].path);
		FILE *f = fopen(path, "wx");
		if (!f) {
			rc = fail(err, errlen, -errno, "%s: %s", path, ts_strerror(-errno));
			break;
		}
		rc = ts_text_write(f, &v, meta->seed, s, meta->words[s], &c);
		if (fclose(f) && !rc)
			rc = -errno;
		if (rc) {
			fail(err, errlen, rc, "%s: %s", path, ts_strerror(rc));
			break;
		}
		if (c.bytes != meta->files[s].bytes)
			rc = fail(err, errlen, TS_E_CORRUPT,
				  "%s: wrote %" PRIu64 " bytes where the model says %" PRIu64
				  " (generator bug)",
				  path, c.bytes, meta->files[s].bytes);
		if (s == 0)
			st->samples = c.words; /* train words, as --count */
	}
	st->threads = 1;
	ts_vocab_free(&v);
	return rc;
}

static json_t *json_u64(uint64_t v)
{
	return v <= INT64_MAX ? json_integer((json_int_t)v) : json_real((double)v);
}

static int get_u64(json_t *o, const char *key, uint64_t *out)
{
	json_t *v = json_object_get(o, key);
	if (json_is_integer(v) && json_integer_value(v) >= 0) {
		*out = (uint64_t)json_integer_value(v);
		return 0;
	}
	if (json_is_string(v)) { /* seeds above 2^63 */
		char *end;
		errno = 0;
		*out = strtoull(json_string_value(v), &end, 10);
		return *end || errno ? TS_E_FORMAT : 0;
	}
	return TS_E_FORMAT;
}

static int write_manifest(const struct ts_dataset_meta *meta, const char *dir,
			  struct ts_dataset_stats *st, char *err, size_t errlen)
{
	char path[4096], seed[24];
	json_t *root = json_object(), *files = json_array(), *gen = json_object();
	uint64_t total = 0;
	int rc = 0;

	snprintf(seed, sizeof(seed), "%" PRIu64, meta->seed);
	json_object_set_new(root, "format", json_string("tiersim-dataset"));
	json_object_set_new(root, "version", json_integer(MANIFEST_VERSION));
	json_object_set_new(root, "tool", json_string("tiersim " TS_VERSION));
	json_object_set_new(root, "kind", json_string(kind_names[meta->kind]));
	json_object_set_new(root, "count", json_u64(meta->count));
	json_object_set_new(root, "seed", meta->seed <= INT64_MAX ? json_integer((json_int_t)meta->seed)
								   : json_string(seed));
	if (meta->kind == TS_DS_PTB_TEXT) {
		json_object_set_new(root, "vocabulary", json_integer(TS_PTB_VOCAB));
	} else {
		json_object_set_new(root, "val", json_u64(meta->val));
		json_object_set_new(root, "classes", json_integer(meta->classes));
		json_object_set_new(root, "encoded", json_boolean(meta->encoded));
		json_object_set_new(root, "sample_bytes", json_u64(meta->sample_bytes));
		total = meta->kind == TS_DS_IMAGENET_JPEG ? meta->sample_bytes : 0;
	}
	for (size_t i = 0; i < meta->nfiles; i++) {
		struct stat sb;
		snprintf(path, sizeof(path), "%s/%s", dir, meta->files[i].path);
		if (stat(path, &sb)) {
			rc = fail(err, errlen, -errno, "%s: %s", path, ts_strerror(-errno));
			goto out;
		}
		json_t *f = json_object();
		json_object_set_new(f, "path", json_string(meta->files[i].path));
		json_object_set_new(f, "bytes", json_u64((uint64_t)sb.st_size));
		json_array_append_new(files, f);
		total += (uint64_t)sb.st_size;
	}
	json_object_set_new(root, "files", files);
	files = NULL;
	json_object_set_new(root, "total_bytes", json_u64(total));
	st->bytes = total; /* as written (LMDB's differ from the estimate) */
	double secs = (double)st->ns / 1e9;
	json_object_set_new(gen, "threads", json_integer(st->threads));
	json_object_set_new(gen, "seconds", json_real(secs));
	json_object_set_new(gen, "samples_per_s", json_real(secs > 0 ? st->samples / secs : 0));
	json_object_set_new(gen, "jpeg_pad_bytes", json_u64(st->pad_bytes));
	json_object_set_new(gen, "jpeg_encodes", json_u64(st->encodes));
	json_object_set_new(gen, "jpeg_quality_lowered", json_u64(st->requality));
	json_object_set_new(root, "generated", gen);
	gen = NULL;
	snprintf(path, sizeof(path), "%s/" MANIFEST, dir);
	if (json_dump_file(root, path, JSON_INDENT(2)))
		rc = fail(err, errlen, -EIO, "%s: cannot write", path);
out:
	json_decref(files);
	json_decref(gen);
	json_decref(root);
	return rc;
}

int ts_dataset_make(enum ts_dataset_kind kind, const struct ts_dataset_config *cfg,
		    const char *dir, struct ts_dataset_stats *st, char *err, size_t errlen)
{
	struct ts_dataset_meta meta;
	uint64_t t0 = ts_now_ns();
	char made[PATH_MAX];
	int rc;

	memset(st, 0, sizeof(*st));
	if ((rc = ts_dataset_meta_describe(kind, cfg, &meta, err, errlen)))
		return rc;
	if ((rc = prepare_dir(dir, made, err, errlen)))
		goto out;
	if (kind == TS_DS_PTB_TEXT)
		rc = make_text(&meta, dir, st, err, errlen);
	else
		rc = make_images(&meta, cfg, dir, st, err, errlen);
	st->ns = ts_now_ns() - t0;
	st->bytes = meta.total_bytes;
	if (!rc)
		rc = write_manifest(&meta, dir, st, err, errlen);
	/* a failure (a full disk) leaves nothing half-made; an interrupted make
	 * is kept, and its message says it is incomplete */
	if (rc && rc != -EINTR) {
		unmake_dir(dir, made);
		size_t n = strlen(err);
		snprintf(err + n, errlen - n, "; removed what was written");
	}
out:
	ts_dataset_meta_free(&meta);
	return rc;
}

int ts_dataset_open(const char *dir, struct ts_dataset_meta *meta, char *err, size_t errlen)
{
	struct ts_dataset_config cfg = { 0 };
	enum ts_dataset_kind kind;
	char path[4096];
	json_error_t je;
	json_t *root, *v;
	uint64_t total, version = 0;
	int rc;

	memset(meta, 0, sizeof(*meta));
	snprintf(path, sizeof(path), "%s/" MANIFEST, dir);
	root = json_load_file(path, 0, &je);
	if (!root) {
		if (access(path, F_OK))
			return fail(err, errlen, -ENOENT,
				    "%s: no such file; is %s a dataset made by `tiersim dataset make`?",
				    path, dir);
		return fail(err, errlen, TS_E_PARSE, "%s:%d: %s", path, je.line, je.text);
	}
	v = json_object_get(root, "format");
	if (!json_is_string(v) || strcmp(json_string_value(v), "tiersim-dataset")) {
		rc = fail(err, errlen, TS_E_FORMAT, "%s: not a tiersim dataset manifest", path);
		goto out;
	}
	if (get_u64(root, "version", &version) || version != MANIFEST_VERSION) {
		rc = fail(err, errlen, TS_E_VERSION,
			  "%s: manifest version %" PRIu64 " is not %d; regenerate the dataset",
			  path, version, MANIFEST_VERSION);
		goto out;
	}
	v = json_object_get(root, "kind");
	if (!json_is_string(v) || ts_dataset_kind_parse(json_string_value(v), &kind)) {
		rc = fail(err, errlen, TS_E_FORMAT, "%s: unknown \"kind\"", path);
		goto out;
	}
	if (get_u64(root, "count", &cfg.count) || get_u64(root, "seed", &cfg.seed) ||
	    get_u64(root, "total_bytes", &total)) {
		rc = fail(err, errlen, TS_E_FORMAT, "%s: \"count\", \"seed\" or \"total_bytes\" is missing or not a number", path);
		goto out;
	}
	if (kind != TS_DS_PTB_TEXT) {
		if (get_u64(root, "val", &cfg.val) || get_u64(root, "classes", &cfg.classes)) {
			rc = fail(err, errlen, TS_E_FORMAT, "%s: \"val\" or \"classes\" is missing", path);
			goto out;
		}
		cfg.encoded = json_is_true(json_object_get(root, "encoded"));
	}
	if ((rc = ts_dataset_meta_describe(kind, &cfg, meta, err, errlen)))
		goto out;
	/* the files as they are on disk (LMDB's are only estimated by describe) */
	json_t *files = json_object_get(root, "files");
	size_t i;
	json_t *f;
	json_array_foreach(files, i, f) {
		const char *p = json_string_value(json_object_get(f, "path"));
		uint64_t bytes;
		if (!p || get_u64(f, "bytes", &bytes))
			continue;
		for (size_t k = 0; k < meta->nfiles; k++) {
			if (strcmp(meta->files[k].path, p) == 0 && meta->files[k].estimated) {
				meta->total_bytes += bytes - meta->files[k].bytes;
				meta->files[k].bytes = bytes;
				meta->files[k].estimated = false;
			}
		}
	}
	if (meta->total_bytes != total) {
		rc = fail(err, errlen, TS_E_FORMAT,
			  "%s: total_bytes %" PRIu64 " differs from the %" PRIu64
			  " this tiersim would make; regenerate it with this version",
			  path, total, meta->total_bytes);
		ts_dataset_meta_free(meta);
	}
out:
	json_decref(root);
	return rc;
}
