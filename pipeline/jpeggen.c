/*
 * jpeggen.c — synthetic photographs to an exact JPEG size (see jpeggen.h).
 */
#include "pipeline/jpeggen.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <turbojpeg.h>

#include "core/rng.h"
#include "pipeline/recordio.h"

#define MAX_SIDE 16384
#define GRAIN_MAX 8.0	/* grain amplitude ceiling of the search */
#define BAND 0.97	/* a file within [BAND * target, target] is padded up */
#define MAX_ENCODES 14

int ts_jpeggen_init(struct ts_jpeggen *g)
{
	memset(g, 0, sizeof(*g));
	g->tj = tjInitCompress();
	return g->tj ? 0 : -ENOMEM;
}

void ts_jpeggen_fini(struct ts_jpeggen *g)
{
	if (g->tj)
		tjDestroy(g->tj);
	free(g->base);
	free(g->grain);
	free(g->rgb);
	free(g->out);
	memset(g, 0, sizeof(*g));
}

static int reserve(struct ts_jpeggen *g, size_t bytes)
{
	if (bytes <= g->pix_cap)
		return 0;
	free(g->base);
	free(g->grain);
	free(g->rgb);
	g->base = malloc(bytes);
	g->grain = malloc(bytes);
	g->rgb = malloc(bytes);
	if (!g->base || !g->grain || !g->rgb) {
		g->pix_cap = 0;
		return -ENOMEM;
	}
	g->pix_cap = bytes;
	return 0;
}

static uint8_t clamp8(int v)
{
	return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
}

/* Nearest integer, ties away from zero (lrintf is a libm call here). */
static inline int round_f(float v)
{
	return (int)(v + (v >= 0.0f ? 0.5f : -0.5f));
}

static float smooth(float t)
{
	return t * t * (3.0f - 2.0f * t);
}

/* Where lattice coordinate @f falls among @n nodes: the node to its left
 * (at most n - 2) and the smoothstep weight of the next one. */
static void lattice_pos(float f, int n, int *i, float *t)
{
	int k = (int)f;
	if (k > n - 2)
		k = n - 2;
	*i = k;
	*t = smooth(f - (float)k);
}

struct shape {
	float cx, cy, rx, ry, cs, sn;	/* centre, radii, rotation */
	bool ellipse;
	float rgb[3], grad[3][2];	/* colour at the centre, d(colour)/d(u,v) */
	float grain;			/* grain multiplier inside */
	float tex;			/* mid-frequency texture amplitude inside */
};

/* One 64-bit xorshift step: the per-sample grain needs speed, not quality. */
static inline uint64_t xs64(uint64_t *s)
{
	uint64_t x = *s;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

/* Approximate N(0, 1): Irwin-Hall of four 16-bit uniforms. */
static inline float gauss4(uint64_t r)
{
	float s = (float)(r & 0xffff) + (float)((r >> 16) & 0xffff) +
		  (float)((r >> 32) & 0xffff) + (float)(r >> 48);
	return (s / 65536.0f - 2.0f) * 1.7320508f; /* var of the sum = 4/12 */
}

/*
 * Grain draws come from a table of 65,536 normal deviates (built once, the
 * same for every image) indexed by 16-bit random numbers: one xorshift step
 * gives a pixel's four draws, luminance and three channels.
 */
#define NORM_TABLE 65536
static float norm_table[NORM_TABLE];
static pthread_once_t norm_once = PTHREAD_ONCE_INIT;

static void norm_build(void)
{
	uint64_t xs = 0x677261696e ^ 0x9e3779b97f4a7c15ULL;
	for (size_t i = 0; i < NORM_TABLE; i++)
		norm_table[i] = gauss4(xs64(&xs));
}

/*
 * Builds g->base (grainless picture) and g->grain for picture @seed. The
 * picture: a smooth background from a coarse colour lattice (with a
 * top-down light falloff), 3-12 objects (ellipses, rotated rectangles) with
 * colour gradients and hard or 1-px soft edges, a mid-frequency value-noise
 * texture whose strength differs per object, and fine grain (partly shared
 * by the three channels, as luminance noise is) whose strength too differs
 * per object.
 *
 * Why one long function: one pass that paints the picture layer by layer
 * (background, texture, objects, grain) from the same seeded stream; the
 * layers share the pixel buffer and its locals (not the struct's fields, so
 * that byte stores cannot alias them), and the order of draws fixes the
 * output.
 */
static int synth(struct ts_jpeggen *g, uint64_t seed, uint32_t w, uint32_t h)
{
	struct ts_rng r;
	size_t npix = (size_t)w * h;
	int err;

	if ((err = reserve(g, npix * 3)))
		return err;
	/* locals: a uint8_t store could alias the struct's pointers */
	uint8_t *restrict base = g->base;
	int8_t *restrict grain = g->grain;
	ts_rng_seed(&r, seed);

	/* background lattice: (gx+1) x (gy+1) colours */
	int gx = 2 + (int)ts_rng_below(&r, 4), gy = 2 + (int)ts_rng_below(&r, 3);
	float bg[8 * 8 * 3];
	float hue[3];
	for (int c = 0; c < 3; c++)
		hue[c] = 40.0f + 170.0f * (float)ts_rng_double(&r);
	for (int y = 0; y <= gy; y++)
		for (int x = 0; x <= gx; x++)
			for (int c = 0; c < 3; c++)
				bg[((size_t)y * (gx + 1) + x) * 3 + c] =
					hue[c] + 45.0f * (float)ts_rng_normal(&r) +
					30.0f * (0.5f - (float)y / (float)gy);

	/* mid-frequency texture lattice, cell of 5-24 px */
	float cell = 5.0f + 19.0f * (float)ts_rng_double(&r);
	int tx = (int)((float)w / cell) + 2, ty = (int)((float)h / cell) + 2;
	float *tex = malloc((size_t)tx * ty * sizeof(float));
	float *field = malloc(npix * sizeof(float));	/* texture at every pixel */
	float *gmul = malloc(npix * sizeof(float));	/* grain multiplier per pixel */
	int *xi = malloc(2 * (size_t)w * sizeof(int));	/* lattice column left of x */
	float *xt = malloc(2 * (size_t)w * sizeof(float)); /* smoothstep weight */
	float *row = malloc(((size_t)tx + 3 * 8) * sizeof(float));
	if (!tex || !field || !gmul || !xi || !xt || !row) {
		err = -ENOMEM;
		goto out;
	}
	for (int i = 0; i < tx * ty; i++)
		tex[i] = (float)ts_rng_normal(&r);
	float bg_tex = 2.0f + 10.0f * (float)ts_rng_double(&r);
	float bg_grain = 0.4f + 0.8f * (float)ts_rng_double(&r);

	/* the lattices are separable: weights per column once, then per row
	 * interpolate the lattice rows and per pixel only along x */
	for (uint32_t x = 0; x < w; x++) {
		lattice_pos((float)x / cell, tx, &xi[x], &xt[x]);
		lattice_pos((float)x * (float)gx / (float)(w > 1 ? w - 1 : 1), gx + 1, &xi[w + x],
			    &xt[w + x]);
	}
	float *brow = row + tx;
	for (uint32_t y = 0; y < h; y++) {
		int it, ib;
		float wt, wb;
		lattice_pos((float)y / cell, ty, &it, &wt);
		lattice_pos((float)y * (float)gy / (float)(h > 1 ? h - 1 : 1), gy + 1, &ib, &wb);
		const float *t0 = tex + (size_t)it * tx, *t1 = t0 + tx;
		for (int k = 0; k < tx; k++)
			row[k] = t0[k] + (t1[k] - t0[k]) * wt;
		const float *b0 = bg + (size_t)ib * (gx + 1) * 3, *b1 = b0 + (gx + 1) * 3;
		for (int k = 0; k < (gx + 1) * 3; k++)
			brow[k] = b0[k] + (b1[k] - b0[k]) * wb;
		float *f = field + (size_t)y * w;
		uint8_t *p = base + (size_t)y * w * 3;
		for (uint32_t x = 0; x < w; x++) {
			int a = xi[x], b = xi[w + x];
			f[x] = row[a] + (row[a + 1] - row[a]) * xt[x];
			float t = bg_tex * f[x], u = xt[w + x];
			const float *c0 = brow + b * 3, *c1 = c0 + 3;
			for (int c = 0; c < 3; c++)
				p[3 * x + c] = clamp8(round_f(c0[c] + (c1[c] - c0[c]) * u + t));
			gmul[(size_t)y * w + x] = bg_grain;
		}
	}

	/* objects, painted back to front */
	int nobj = 3 + (int)ts_rng_below(&r, 10);
	float mind = (float)(w < h ? w : h);
	for (int k = 0; k < nobj; k++) {
		struct shape s;
		float ang = (float)(M_PI * ts_rng_double(&r));
		s.cx = (float)(ts_rng_double(&r) * w);
		s.cy = (float)(ts_rng_double(&r) * h);
		s.rx = mind * (0.05f + 0.4f * (float)ts_rng_double(&r));
		s.ry = s.rx * (0.3f + 1.2f * (float)ts_rng_double(&r));
		s.cs = cosf(ang);
		s.sn = sinf(ang);
		s.ellipse = ts_rng_below(&r, 3) != 0;
		for (int c = 0; c < 3; c++) {
			s.rgb[c] = 20.0f + 215.0f * (float)ts_rng_double(&r);
			s.grad[c][0] = 60.0f * (float)ts_rng_normal(&r);
			s.grad[c][1] = 60.0f * (float)ts_rng_normal(&r);
		}
		s.grain = 0.3f + 1.4f * (float)ts_rng_double(&r);
		s.tex = 16.0f * (float)ts_rng_double(&r);
		bool soft = ts_rng_below(&r, 2);

		float ext = (s.rx > s.ry ? s.rx : s.ry) + 2.0f;
		int x0 = (int)(s.cx - ext), x1 = (int)(s.cx + ext) + 1;
		int y0 = (int)(s.cy - ext), y1 = (int)(s.cy + ext) + 1;
		x0 = x0 < 0 ? 0 : x0;
		y0 = y0 < 0 ? 0 : y0;
		x1 = x1 > (int)w ? (int)w : x1;
		y1 = y1 > (int)h ? (int)h : y1;
		for (int y = y0; y < y1; y++) {
			for (int x = x0; x < x1; x++) {
				float dx = (float)x - s.cx, dy = (float)y - s.cy;
				float u = (dx * s.cs + dy * s.sn) / s.rx;
				float v = (-dx * s.sn + dy * s.cs) / s.ry;
				/* d < 0 inside; ~pixels outside the edge */
				float d = s.ellipse ? (sqrtf(u * u + v * v) - 1.0f) * s.rx
						    : (fmaxf(fabsf(u), fabsf(v)) - 1.0f) * s.rx;
				float alpha = soft ? 0.5f - d : (d <= 0.0f ? 1.0f : 0.0f);
				if (alpha <= 0.0f)
					continue;
				if (alpha > 1.0f)
					alpha = 1.0f;
				float t = s.tex * field[(size_t)y * w + x];
				uint8_t *p = base + ((size_t)y * w + x) * 3;
				for (int c = 0; c < 3; c++) {
					float col = s.rgb[c] + s.grad[c][0] * u + s.grad[c][1] * v + t;
					p[c] = clamp8(round_f(alpha * col + (1.0f - alpha) * p[c]));
				}
				gmul[(size_t)y * w + x] = s.grain;
			}
		}
	}

	/* grain: 70% luminance, 30% per channel; std 12 * multiplier */
	uint64_t xs = ts_rng_u64(&r) | 1;
	pthread_once(&norm_once, norm_build);
	for (size_t i = 0; i < npix; i++) {
		float m = 12.0f * gmul[i];
		uint64_t k = xs64(&xs);
		float l = 0.84f * norm_table[k & 0xffff];
		for (int c = 0; c < 3; c++) {
			k >>= 16;
			float v = m * (l + 0.55f * norm_table[k & 0xffff]);
			grain[i * 3 + c] = (int8_t)(v < -127 ? -127 : v > 127 ? 127 : round_f(v));
		}
	}
out:
	free(tex);
	free(field);
	free(gmul);
	free(xi);
	free(xt);
	free(row);
	return err;
}

/* out = base + amplitude (8.8 fixed point) * grain; restrict parameters
 * let the compiler vectorize it. */
static void mix_samples(uint8_t *restrict out, const uint8_t *restrict base,
			const int8_t *restrict grain, size_t n, int a)
{
	size_t i = 0;
	/* blocks of a fixed 16 samples: compilers vectorize them at -O2 */
	for (; i + 16 <= n; i += 16)
		for (size_t k = 0; k < 16; k++)
			out[i + k] = clamp8(base[i + k] + ((a * grain[i + k] + 128) >> 8));
	for (; i < n; i++)
		out[i] = clamp8(base[i] + ((a * grain[i] + 128) >> 8));
}

/* g->rgb = base + amplitude * grain. */
static void mix(struct ts_jpeggen *g, size_t n, double amp)
{
	mix_samples(g->rgb, g->base, g->grain, n, (int)lrint(amp * 256.0));
}

int ts_jpeggen_pixels(struct ts_jpeggen *g, uint64_t seed, uint32_t width, uint32_t height,
		      double grain)
{
	int err;

	if (!width || !height || width > MAX_SIDE || height > MAX_SIDE)
		return -EINVAL;
	if ((err = synth(g, seed, width, height)))
		return err;
	mix(g, (size_t)width * height * 3, grain);
	return 0;
}

static int encode(struct ts_jpeggen *g, const struct ts_jpeg_params *p, int q, size_t *len)
{
	unsigned long n = (unsigned long)g->out_cap;
	unsigned char *buf = g->out;

	if (tjCompress2(g->tj, g->rgb, (int)p->width, 0, (int)p->height, TJPF_RGB, &buf, &n,
			p->subsample ? TJSAMP_420 : TJSAMP_444, q, TJFLAG_NOREALLOC) != 0)
		return TS_E_CORRUPT;
	*len = n;
	return 0;
}

long ts_jpeg_pad(uint8_t *jpg, size_t len, size_t cap, size_t pad)
{
	size_t pos = 2;

	if (len < 4 || jpg[0] != 0xff || jpg[1] != 0xd8)
		return TS_E_CORRUPT;
	if (pad == 0)
		return (long)len;
	if (len + pad > cap)
		return -ENOSPC;
	/* JFIF wants APP0 right after SOI: insert after it */
	if (jpg[2] == 0xff && jpg[3] == 0xe0) {
		if (len < 6)
			return TS_E_CORRUPT;
		pos = 4 + ((size_t)jpg[4] << 8 | jpg[5]);
		if (pos + 2 > len || jpg[pos] != 0xff)
			return TS_E_CORRUPT;
	}
	memmove(jpg + pos + pad, jpg + pos, len - pos);
	uint8_t *o = jpg + pos;
	if (pad < 4) {
		memset(o, 0xff, pad); /* fill bytes before the next marker */
		return (long)(len + pad);
	}
	static const char text[] = "tiersim synthetic image; padding to the target size. ";
	size_t left = pad;
	while (left) {
		size_t seg = left > 65537 ? 65537 : left;
		if (left - seg > 0 && left - seg < 4)
			seg -= 4;
		size_t body = seg - 4;
		o[0] = 0xff;
		o[1] = 0xfe;
		o[2] = (uint8_t)((body + 2) >> 8);
		o[3] = (uint8_t)(body + 2);
		for (size_t i = 0; i < body; i++)
			o[4 + i] = (uint8_t)text[i % (sizeof(text) - 1)];
		o += seg;
		left -= seg;
	}
	return (long)(len + pad);
}

/*
 * Pads the encoded file (*@n bytes) by @pad. Where a RecordIO magic must be
 * avoided (the IRHeader before the file is 24 bytes, so file offsets keep
 * their alignment inside the record), up to 3 of the padding bytes move to
 * just before EOI as fill bytes, which shifts the entropy-coded data by 1-3
 * bytes against the 4-byte grid; a magic word that survives all four shifts
 * is -ERANGE.
 */
static int pad_file(struct ts_jpeggen *g, const struct ts_jpeg_params *p, size_t *n, size_t pad)
{
	uint8_t *orig = NULL;
	size_t n0 = *n;
	int err = -ERANGE;

	if (p->no_rec_magic) {
		orig = malloc(n0 ? n0 : 1);
		if (!orig)
			return -ENOMEM;
		memcpy(orig, g->out, n0);
	}
	for (size_t tail = 0; tail < 4 && tail <= pad; tail++) {
		if (tail)
			memcpy(g->out, orig, n0);
		long m = ts_jpeg_pad(g->out, n0, g->out_cap, pad - tail);
		if (m < 0) {
			err = (int)m;
			break;
		}
		size_t len = (size_t)m;
		if (tail) {
			/* fill bytes before the closing FF D9 */
			if (len < 2 || g->out[len - 2] != 0xff || g->out[len - 1] != 0xd9) {
				err = TS_E_CORRUPT;
				break;
			}
			memset(g->out + len - 2, 0xff, tail);
			g->out[len - 2 + tail] = 0xff;
			g->out[len - 1 + tail] = 0xd9;
			len += tail;
		}
		if (!p->no_rec_magic || ts_rec_magic_count(g->out, len) == 0) {
			*n = len;
			err = 0;
			break;
		}
	}
	free(orig);
	return err;
}

/*
 * Bytes per pixel that one unit of grain adds, to aim the first step of
 * the search (measured on this generator: about 0.7 at quality 96 4:4:4,
 * half that with 4:2:0, falling with quality; only a starting point).
 */
static double grain_slope(int q, bool subsample)
{
	double k = 0.7 * (subsample ? 0.5 : 1.0);
	return k * (q >= 90 ? 1.0 : q >= 70 ? 0.6 : 0.35);
}

struct search {
	struct ts_jpeggen *g;
	const struct ts_jpeg_params *p;
	size_t nsamp;
	unsigned encodes;
	double last_a;	/* the file now in g->out was encoded at last_a, last_q */
	int last_q;
};

static int try_enc(struct search *S, double a, int q, size_t *n)
{
	mix(S->g, S->nsamp, a);
	S->encodes++;
	S->last_a = a;
	S->last_q = q;
	return encode(S->g, S->p, q, n);
}

/*
 * Why one long function: one search in two numbered steps (quality, then
 * grain amplitude) over the same encoder state and bracket; split, the
 * bracket and the best file so far would have to pass between the steps.
 */
int ts_jpeggen_make(struct ts_jpeggen *g, const struct ts_jpeg_params *p, const uint8_t **out,
		    size_t *len, struct ts_jpeg_result *res)
{
	struct ts_jpeg_result rr = { .quality = p->quality };
	struct search S = { .g = g, .p = p };
	size_t n, need;
	int err;

	if (!p->width || !p->height || p->width > MAX_SIDE || p->height > MAX_SIDE ||
	    p->quality < 1 || p->quality > 100)
		return -EINVAL;
	need = tjBufSize((int)p->width, (int)p->height, p->subsample ? TJSAMP_420 : TJSAMP_444);
	if (need < (size_t)p->target + 16)
		need = (size_t)p->target + 16;
	if (need > g->out_cap) {
		uint8_t *nb = realloc(g->out, need);
		if (!nb)
			return -ENOMEM;
		g->out = nb;
		g->out_cap = need;
	}
	if ((err = synth(g, p->seed, p->width, p->height)))
		return err;
	S.nsamp = (size_t)p->width * p->height * 3;

	if (p->target == 0) {
		if ((err = try_enc(&S, 1.0, p->quality, &n)))
			return err;
		rr.grain = 1.0;
		rr.encodes = S.encodes;
		goto done;
	}

	/*
	 * 1. The grainless picture at the file's quality. If even that is too
	 *    big, binary-search the highest quality at which it fits (a
	 *    heavily compressed file, as some of ImageNet's are).
	 */
	double T = p->target, lo_s, a;
	int q = p->quality;
	if ((err = try_enc(&S, 0.0, q, &n)))
		return err;
	lo_s = (double)n;
	if (lo_s > T) {
		int qlo = 0, qhi = q, step = 4; /* qhi is too big; qlo fits */
		double s_qlo = 0;
		while (!qlo) { /* step down, doubling, until it fits */
			int t = qhi - step > 1 ? qhi - step : 1;
			if ((err = try_enc(&S, 0.0, t, &n)))
				return err;
			if ((double)n <= T) {
				qlo = t;
				s_qlo = (double)n;
			} else if (t == 1) {
				return -ERANGE;
			} else {
				qhi = t;
				step *= 2;
			}
		}
		while (qhi - qlo > 1) {
			int mid = (qlo + qhi) / 2;
			if ((err = try_enc(&S, 0.0, mid, &n)))
				return err;
			if ((double)n <= T) {
				qlo = mid;
				s_qlo = (double)n;
			} else {
				qhi = mid;
			}
		}
		q = qlo;
		lo_s = s_qlo;
	}

	/*
	 * 2. The grain: lo is the largest amplitude known to fit, hi the
	 *    smallest known too big; secant steps aimed at the middle of the
	 *    band, Illinois-damped when one end sticks. At the ceiling the
	 *    file is as big as the content gets and padding makes up the rest.
	 */
	double lo = 0.0, hi = -1, want = T * (1.0 + BAND) / 2.0;
	double flo = lo_s, fhi = 0; /* sizes the secant uses (Illinois-damped) */
	int side = 0;
	a = (want - lo_s) / (grain_slope(q, p->subsample) * p->width * p->height);
	while (lo_s < BAND * T) {
		if (a > GRAIN_MAX)
			a = GRAIN_MAX;
		if ((err = try_enc(&S, a, q, &n)))
			return err;
		double s = (double)n;
		if (s <= T) {
			lo = a;
			lo_s = flo = s;
			if (side == -1)
				fhi = want + (fhi - want) / 2.0;
			side = -1;
			if (s >= BAND * T)
				break;
		} else {
			hi = a;
			fhi = s;
			if (side == 1)
				flo = want - (want - flo) / 2.0;
			side = 1;
		}
		if (S.encodes >= MAX_ENCODES || (lo >= GRAIN_MAX && hi < 0) ||
		    (hi >= 0 && hi - lo < 1e-3))
			break;
		if (hi < 0) {
			/* not bracketed yet: step up, at least doubling */
			a = lo * 2.0 + 0.05;
		} else {
			double t = (want - flo) / (fhi - flo);
			a = lo + (t > 0.05 ? (t < 0.95 ? t : 0.95) : 0.05) * (hi - lo);
		}
	}
	if (S.last_a != lo || S.last_q != q) {
		if ((err = try_enc(&S, lo, q, &n)))
			return err;
		if ((double)n > T)
			return -ERANGE; /* cannot happen: lo fitted when it was tried */
	}
	rr.quality = q;
	rr.grain = lo;
	rr.encodes = S.encodes;
	rr.pad = (uint32_t)(p->target - n);
	if ((err = pad_file(g, p, &n, rr.pad)))
		return err;
done:
	*out = g->out;
	*len = n;
	if (res)
		*res = rr;
	return 0;
}
