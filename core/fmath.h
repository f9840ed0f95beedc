/*
 * fmath.h — exp, ln and cos(2 pi u) from small tables libm fills once
 * (ts_fm) and short series, for draws that keep only what a value
 * decides: a compare, a clamp, a rounding. Each is within a few ulp of
 * libm's (each step: a table entry libm made, <= 1 ulp, and a series
 * whose remainder is below 1e-17; see the steps); the lognormal size
 * draw of pipeline/ds_image.c is within 4e-15 (relative) of libm's over
 * 2e8 draws with u1 down to 2^-53 and up to 1 - 2^-53 (191 instructions
 * of a draw in libm, 160 here: callgrind, the ImageNet describe).
 *
 * A caller keeps libm's answers to the byte: where the fast value lies
 * within TS_FM_GUARD (relative) of a point where what it decides flips
 * (ts_fm_near, ts_fm_near_half), it computes libm's value and uses that.
 * A value then takes the slow path with a chance of about 2 TS_FM_GUARD
 * x its size (1 in 50,000 at 1e5).
 */
#ifndef TS_FMATH_H
#define TS_FMATH_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define TS_FM_N 256 /* table entries per octave of exp, per turn of cos */
#define TS_FM_LN 182 /* log's buckets of 1/256 over [TS_FM_LN0, sqrt(2)) */
#define TS_FM_LN0 (1.0 - 75.5 / 256) /* bucket 75 is centred on 1 */
#define TS_FM_GUARD 1e-10

struct ts_fm {
	double lnc[TS_FM_LN], rc[TS_FM_LN]; /* ln c, 1 / c; c = TS_FM_LN0 + (j + 0.5) / 256 */
	double cs[TS_FM_N + 1][2];       /* cos, sin of 2 pi j / TS_FM_N */
	double e2[TS_FM_N];              /* 2^(j / TS_FM_N) */
};

/* The tables, built once (thread-safe). */
const struct ts_fm *ts_fm(void);

static inline double ts_fm_bits_double(uint64_t b)
{
	double d;
	memcpy(&d, &b, sizeof(d));
	return d;
}

/* ln u for u in (0, 1): u = m 2^e, m in [sqrt(1/2), sqrt(2)), then m =
 * c (1 + t) with c the centre of m's bucket, |t| < 1/360: ln u = e ln 2
 * + ln c + ln(1 + t), the series to t^6 (remainder < 2e-19). m - c is
 * exact (Sterbenz), and the bucket around 1 has c = 1 exactly, so u near
 * 1 keeps its relative accuracy (r = sqrt(-2 ln u) needs it). */
static inline double ts_fm_log(const struct ts_fm *t, double u)
{
	uint64_t b;
	memcpy(&b, &u, sizeof(b));
	int e = (int)(b >> 52) - 1023;
	double m = ts_fm_bits_double((b & ((1ULL << 52) - 1)) | (1023ULL << 52));
	int hi = m > M_SQRT2;
	m = hi ? m * 0.5 : m;
	e += hi;
	int j = (int)((m - TS_FM_LN0) * 256);
	double x = (m - (TS_FM_LN0 + (j + 0.5) / 256)) * t->rc[j];
	double p = x * (1 + x * (-1.0 / 2 + x * (1.0 / 3 + x * (-1.0 / 4 + x * (1.0 / 5 +
			x * (-1.0 / 6))))));
	return e * M_LN2 + (t->lnc[j] + p);
}

/* cos(2 pi u) for u in [0, 1): u = (j + f) / TS_FM_N, |f| <= 1/2 (both
 * exact), cos(a + b) from the table's cos a, sin a and the series of
 * cos b, sin b, |b| <= pi / 256 (remainders < 1e-17). */
static inline double ts_fm_cos2pi(const struct ts_fm *t, double u)
{
	double s = u * TS_FM_N;
	int j = (int)(s + 0.5);
	double b = (s - j) * (2 * M_PI / TS_FM_N), b2 = b * b;
	double cb = 1 + b2 * (-1.0 / 2 + b2 * (1.0 / 24 + b2 * (-1.0 / 720)));
	double sb = b * (1 + b2 * (-1.0 / 6 + b2 * (1.0 / 120)));
	return t->cs[j][0] * cb - t->cs[j][1] * sb;
}

/* exp(x), |x| < 700: x = (k + r') ln 2 / TS_FM_N, k whole, |r'| <= 1/2, so
 * exp(x) = 2^(k >> 8) 2^((k & 255) / TS_FM_N) exp(r), |r| <= ln 2 / 512, the
 * series to r^4 (remainder < 4e-17). */
static inline double ts_fm_exp(const struct ts_fm *t, double x)
{
	/* to the nearest whole number: 1.5 2^52 + v rounds v there, for
	 * |v| < 2^51 */
	double kd = (x * (TS_FM_N / M_LN2) + 0x1.8p52) - 0x1.8p52;
	double r = x - kd * (M_LN2 / TS_FM_N);
	int64_t k = (int64_t)kd;
	double p = 1 + r * (1 + r * (1.0 / 2 + r * (1.0 / 6 + r * (1.0 / 24))));
	double scale = ts_fm_bits_double((uint64_t)(1023 + (k >> 8)) << 52);
	return t->e2[k & (TS_FM_N - 1)] * scale * p;
}

/* Whether @c lies within TS_FM_GUARD (relative) of @v > 0. */
static inline bool ts_fm_near(double v, double c)
{
	return fabs(v - c) <= TS_FM_GUARD * v;
}

/* Whether a half-integer (where a rounding to the nearest whole number
 * changes) lies within TS_FM_GUARD (relative) of @y > 0, y < 2^52. */
static inline bool ts_fm_near_half(double y)
{
	return fabs(y - (double)(long long)y - 0.5) <= TS_FM_GUARD * y;
}

#endif
