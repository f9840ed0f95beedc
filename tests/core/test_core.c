/* test_core.c — units, division by a fixed divisor, histogram, generator, option tables and file helpers. */
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/tcheck.h"
#include "core/divu.h"
#include "core/files.h"
#include "core/evq.h"
#include "core/heap.h"
#include "core/hist.h"
#include "core/opt.h"
#include "core/rng.h"
#include "core/units.h"

static void test_units(void)
{
	uint64_t v;
	CHECK(ts_parse_size("4k", &v) == 0 && v == 4096);
	CHECK(ts_parse_size("4KiB", &v) == 0 && v == 4096);
	CHECK(ts_parse_size("4KB", &v) == 0 && v == 4000);
	CHECK(ts_parse_size("1.5GiB", &v) == 0 && v == 1610612736ULL);
	CHECK(ts_parse_size("500", &v) == 0 && v == 500);
	CHECK(ts_parse_size("12 parsecs", &v) == TS_E_PARSE);
	CHECK(ts_parse_size("-1k", &v) == TS_E_PARSE);
	CHECK(ts_parse_size("", &v) == TS_E_PARSE);
	CHECK(ts_parse_rate("250MB/s", &v) == 0 && v == 250000000ULL);
	CHECK(ts_parse_rate("1GiB/s", &v) == 0 && v == TS_GiB);
	CHECK(ts_parse_duration("2ms", 1, &v) == 0 && v == 2000000);
	CHECK(ts_parse_duration("0.2ms", 1, &v) == 0 && v == 200000);
	CHECK(ts_parse_duration("1.5", TS_NS_PER_S, &v) == 0 && v == 1500000000ULL);
	CHECK(ts_parse_duration("3 fortnights", 1, &v) == TS_E_PARSE);
	char b[32];
	CHECK(strcmp(ts_fmt_size(b, sizeof(b), 1536), "1.50 KiB") == 0);
	CHECK(strcmp(ts_fmt_duration(b, sizeof(b), 2500000), "2.50 ms") == 0);
}

/* One divisor against / and % over @n and the values around it. */
static uint64_t divu_bad(uint64_t d, uint64_t n)
{
	struct ts_divu v = ts_divu_init(d);
	uint64_t bad = 0;
	for (int e = -2; e <= 2; e++) {
		uint64_t x = n + (uint64_t)(int64_t)e, q, r;
		ts_divu_divmod(&v, x, &q, &r);
		bad += q != x / d || r != x % d || ts_divu_div(&v, x) != x / d;
	}
	return bad;
}

/* ts_divu: the same quotient and remainder as / and %, the 32-bit fast
 * path and the plain division both: every dividend below 2^16 and the
 * edges (multiples of d, 2^32, 2^64) for divisors small, large, powers
 * of two and their neighbours, and random ones. */
static void test_divu(void)
{
	uint64_t ds[4096], nd = 0, bad = 0, tried = 0;
	for (uint64_t d = 1; d <= 1024; d++)
		ds[nd++] = d;
	for (int b = 11; b <= 63; b++)
		for (int e = -1; e <= 1; e++)
			ds[nd++] = (UINT64_C(1) << b) + (uint64_t)(int64_t)e;
	ds[nd++] = UINT64_MAX;
	ds[nd++] = 313532; /* the bert dataset's samples per file */
	ds[nd++] = 156766000;
	struct ts_rng rng;
	ts_rng_seed(&rng, 22);
	while (nd < 4096) {
		uint64_t x = ts_rng_u64(&rng);
		ds[nd] = nd % 3 ? (x >> 32) | 1 : x % 2 ? x >> (x % 64) : x;
		nd++;
	}
	for (uint64_t k = 0; k < nd; k++) {
		uint64_t d = ds[k];
		if (!d)
			continue;
		uint64_t ns[] = { 2, d, 2 * d, UINT32_MAX, (uint64_t)UINT32_MAX + 1, UINT32_MAX / d * d,
				  (UINT32_MAX / d + 1) * d, UINT64_MAX - 2, UINT64_MAX / d * d };
		for (size_t j = 0; j < sizeof(ns) / sizeof(ns[0]); j++, tried++)
			bad += divu_bad(d, ns[j]);
		for (int j = 0; j < 64; j++, tried++) {
			uint64_t x = ts_rng_u64(&rng);
			bad += divu_bad(d, j % 2 ? x >> 32 : x);
			bad += divu_bad(d, (x >> 32) / d * d); /* a multiple below 2^32 */
		}
		if (k < 64 || d == 313532)
			for (uint64_t n = 2; n < 65536; n += 5, tried++)
				bad += divu_bad(d, n);
	}
	CHECK(tried > 400000);
	CHECK(bad == 0);
	struct ts_divu one = ts_divu_init(1), big = ts_divu_init((uint64_t)UINT32_MAX + 1);
	CHECK(ts_divu_div(&one, UINT32_MAX) == UINT32_MAX && ts_divu_div(&one, 7) == 7);
	CHECK(ts_divu_div(&big, UINT64_MAX) == UINT32_MAX);
}

static void test_hist(void)
{
	static struct ts_hist h;
	ts_hist_init(&h);
	CHECK(ts_hist_percentile(&h, 50) == 0);
	/* Bucket mapping is monotone and exact below 128. */
	for (uint64_t v = 0; v < 128; v++)
		CHECK(ts_hist_value(ts_hist_index(v)) == v);
	unsigned prev = 0;
	for (uint64_t v = 1; v < (1ULL << 33); v = v * 3 / 2 + 1) {
		unsigned i = ts_hist_index(v);
		CHECK(i >= prev);
		prev = i;
		double rel = fabs((double)ts_hist_value(i) - (double)v) / (double)v;
		CHECK(rel <= 1.0 / 128 + 1e-9);
	}
	for (uint64_t v = 1; v <= 100000; v++)
		ts_hist_add(&h, v * 1000);
	CHECK_EQ_U64(h.count, 100000);
	CHECK_NEAR(ts_hist_percentile(&h, 50), 50000000.0, 0.008);
	CHECK_NEAR(ts_hist_percentile(&h, 99), 99000000.0, 0.008);
	CHECK_EQ_U64(h.min, 1000);
	CHECK_EQ_U64(h.max, 100000000);
	CHECK_NEAR(ts_hist_mean(&h), 50000500.0, 1e-9);
	/* the single-writer add keeps the same histogram */
	static struct ts_hist a, b;
	ts_hist_init(&a);
	ts_hist_init(&b);
	for (uint64_t v = 0; v < 200000; v++) {
		uint64_t x = (v * 2654435761u) % 5000000 + (v % 7 == 0 ? 0 : 3);
		ts_hist_add(&a, x);
		ts_hist_add_serial(&b, x);
	}
	CHECK(!memcmp(&a, &b, sizeof(a)));
}

static void test_rng(void)
{
	struct ts_rng a, b;
	ts_rng_seed(&a, 42);
	ts_rng_seed(&b, 42);
	for (int i = 0; i < 1000; i++)
		CHECK(ts_rng_u64(&a) == ts_rng_u64(&b));
	/* Lognormal quantiles match the parameters they were built from. */
	static struct ts_hist h;
	ts_hist_init(&h);
	for (int i = 0; i < 200000; i++)
		ts_hist_add(&h, (uint64_t)ts_rng_lognormal(&a, 500000, 2000000));
	CHECK_NEAR(ts_hist_percentile(&h, 50), 500000, 0.02);
	CHECK_NEAR(ts_hist_percentile(&h, 99), 2000000, 0.04);
	uint32_t v[100];
	for (uint32_t i = 0; i < 100; i++)
		v[i] = i;
	ts_rng_shuffle_u32(&a, v, 100);
	bool seen[100] = { false };
	for (int i = 0; i < 100; i++)
		seen[v[i]] = true;
	for (int i = 0; i < 100; i++)
		CHECK(seen[i]);
	/* The shuffle draws ahead: the same permutation and the same draws
	 * after it as one ts_rng_below per swap, at every length. */
	static uint32_t w[5000], ref[5000];
	const uint64_t lens[] = { 0, 1, 2, 15, 16, 17, 33, 4999 };
	for (size_t k = 0; k < sizeof(lens) / sizeof(lens[0]); k++) {
		uint64_t n = lens[k];
		for (uint32_t i = 0; i < n; i++)
			w[i] = ref[i] = i * 7 + 1;
		ts_rng_seed(&a, 1000 + k);
		ts_rng_seed(&b, 1000 + k);
		ts_rng_shuffle_u32(&a, w, n);
		for (uint64_t i = n; i > 1; i--) {
			uint64_t j = ts_rng_below(&b, i);
			uint32_t t = ref[i - 1];
			ref[i - 1] = ref[j];
			ref[j] = t;
		}
		CHECK(!memcmp(w, ref, n * sizeof(*w)));
		CHECK(ts_rng_u64(&a) == ts_rng_u64(&b));
	}
	/* ts_rng_below rejects under 2^64 mod n: n = 2^63 + 1 rejects half */
	ts_rng_seed(&a, 7);
	ts_rng_seed(&b, 7);
	for (int i = 0; i < 1000; i++) {
		uint64_t n = (1ull << 63) + 1, lim = -n % n, x;
		do
			x = ts_rng_u64(&b);
		while (x < lim);
		CHECK(ts_rng_below(&a, n) == x % n);
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The ziggurat's normals: N(0, 1) as a whole (Kolmogorov-Smirnov over a
 * million draws), in the tail past its base layer's r = 3.654 (the slow
 * path's exponential draws: 2.58e-4 of draws expected) and at its layers'
 * wedges (the 90th and 99th percentiles fall in wedges). */
static void test_rng_zig(void)
{
	enum { N = 1000000 };
	double *z = malloc(N * sizeof(*z));
	CHECK(z != NULL);
	if (!z)
		return;
	const struct ts_rng_zig *zig = ts_rng_zig();
	CHECK(zig == ts_rng_zig() && zig->x[1] == 3.6541528853610088 && zig->x[256] == 0);
	struct ts_rng a, b;
	ts_rng_seed(&a, 3);
	ts_rng_seed(&b, 3);
	double sum = 0, sq = 0;
	unsigned tail = 0, far = 0, neg = 0;
	uint64_t h = 0xcbf29ce484222325ULL; /* each draw's bits hashed */
	for (int i = 0; i < N; i++) {
		z[i] = ts_rng_normal_zig(&a, zig);
		CHECK(z[i] == ts_rng_normal_zig(&b, zig)); /* the seed gives the draws */
		uint64_t bits;
		memcpy(&bits, &z[i], sizeof(bits));
		h = (h ^ bits) * 0x100000001b3ULL;
		h ^= h >> 32; /* so that a sign bit reaches the others */
		sum += z[i];
		sq += z[i] * z[i];
		tail += fabs(z[i]) > 3.6541528853610088;
		far += fabs(z[i]) > 4.5;
		neg += z[i] < 0;
	}
	CHECK(fabs(sum / N) < 0.005);		  /* sd 0.001 */
	CHECK(fabs(sq / N - 1) < 0.007);	  /* sd 0.0014 */
	CHECK(neg > N / 2 - 2500 && neg < N / 2 + 2500); /* sd 500 */
	CHECK(tail >= 200 && tail <= 320);		  /* 258, sd 16 */
	CHECK(far >= 1 && far <= 20);			  /* 6.8 */
	/* the very draws (and where the stream is left) that every modeled
	 * latency of a lognormal device was drawn from so far: a faster draw
	 * must give the same */
	CHECK(h == 0x24e465c5b7cd607eULL && a.s[0] == 0x7a684c2e62a1e695ULL);
	qsort(z, N, sizeof(*z), cmp_double);
	double d = 0;
	for (int i = 0; i < N; i++) {
		double cdf = 0.5 * erfc(-z[i] / M_SQRT2);
		d = fmax(d, fmax(fabs(cdf - (double)i / N), fabs(cdf - (double)(i + 1) / N)));
	}
	CHECK(d < 1.63 / 1000.0); /* KS at 1%: 1.63 / sqrt(N) */
	CHECK(fabs(z[N * 9 / 10] - 1.2815515655446004) < 0.006);
	CHECK(fabs(z[N * 99 / 100] - 2.3263478740408408) < 0.015);
	free(z);
}

struct cfg {
	int64_t prio;
	uint64_t qd;
	uint64_t bs;
	uint64_t lat;
	char *tier;
	bool direct;
	struct ts_opt_list tiers;
};

static const struct ts_opt cfg_opts[] = {
	{ "prio", TS_OPT_INT, offsetof(struct cfg, prio), "0", -20, 19, "", "priority" },
	{ "qd", TS_OPT_U64, offsetof(struct cfg, qd), "32", 1, 4096, "", "queue depth", NULL, 'q' },
	{ "bs", TS_OPT_SIZE, offsetof(struct cfg, bs), "4k", 512, 0, "bytes", "IO size" },
	{ "lat", TS_OPT_DURATION, offsetof(struct cfg, lat), "1ms", 0, 0, "ns", "latency" },
	{ "tier", TS_OPT_STR, offsetof(struct cfg, tier), "ssd-cloud", 0, 0, "", "tier" },
	{ "direct", TS_OPT_BOOL, offsetof(struct cfg, direct), "true", 0, 0, "", "O_DIRECT", NULL, 'd' },
	{ "tiers", TS_OPT_LIST, offsetof(struct cfg, tiers), "x,y", 0, 3, "", "tiers to run on" },
	{ NULL },
};

/* ts_rng_normal_zig_max is a loop of TS_MAX over ts_rng_normal_zig: the
 * same largest and the stream left in the same place, for runs of each
 * length from 0 to 300 from a few seeds (a largest under x[1] throughout,
 * or past it early) and two long runs from a start past x[1]; and k[i] is
 * the rectangle's test (x < x[i + 1]) at its edge and one below. */
static void test_rng_zig_max(void)
{
	const struct ts_rng_zig *zig = ts_rng_zig();
	for (int i = 0; i < 256; i++) {
		uint64_t k = zig->k[i];
		CHECK(k <= (1ull << 53));
		if (k < (1ull << 53))
			CHECK(!((double)k * 0x1.0p-53 * zig->x[i] < zig->x[i + 1]));
		if (k > 0)
			CHECK((double)(k - 1) * 0x1.0p-53 * zig->x[i] < zig->x[i + 1]);
	}
	CHECK(zig->k[255] == 0); /* x[256] = 0: no draw inside */
	for (uint64_t seed = 1; seed <= 6; seed++) {
		for (uint64_t n = 0; n <= 300; n++) {
			for (int from = 0; from < 2; from++) {
				double x0 = from ? 4.0 : -TS_RNG_ZIG_MAX, x = x0;
				struct ts_rng a, b;
				ts_rng_seed(&a, seed * 1000 + n);
				b = a;
				for (uint64_t q = 0; q < n; q++) {
					double y = ts_rng_normal_zig(&a, zig);
					x = TS_MAX(x, y);
				}
				CHECK(ts_rng_normal_zig_max(&b, zig, n, x0) == x);
				CHECK(memcmp(&a, &b, sizeof(a)) == 0);
			}
		}
	}
	unsigned past = 0; /* long runs whose largest passes x[1] on the way */
	for (uint64_t seed = 7; seed <= 8; seed++) {
		struct ts_rng a, b;
		ts_rng_seed(&a, seed);
		b = a;
		double x = -TS_RNG_ZIG_MAX;
		for (int q = 0; q < 2000000; q++) {
			double y = ts_rng_normal_zig(&a, zig);
			x = TS_MAX(x, y);
		}
		past += x > zig->x[1];
		CHECK(ts_rng_normal_zig_max(&b, zig, 2000000, -TS_RNG_ZIG_MAX) == x);
		CHECK(memcmp(&a, &b, sizeof(a)) == 0);
	}
	CHECK(past == 2); /* 2e6 draws: about 260 past r, half of them positive */
}

static void test_opt(void)
{
	struct cfg c = { 0 };
	char err[256];
	CHECK(ts_opt_defaults(cfg_opts, &c, err, sizeof(err)) == 0);
	CHECK(c.qd == 32 && c.bs == 4096 && c.lat == 1000000 && c.direct);
	CHECK(strcmp(c.tier, "ssd-cloud") == 0);
	CHECK(ts_opt_set_kv(cfg_opts, &c, "qd=64", err, sizeof(err)) == 0 && c.qd == 64);
	CHECK(ts_opt_set_kv(cfg_opts, &c, "qd=0", err, sizeof(err)) == TS_E_PARSE);
	CHECK(strstr(err, "'qd'") != NULL);
	CHECK(ts_opt_set_kv(cfg_opts, &c, "qdd=1", err, sizeof(err)) == TS_E_UNKNOWN);
	CHECK(strstr(err, "qdd") && strstr(err, "known: prio, qd, bs"));
	/* Signed options: in range, out of range, not a number. */
	CHECK(ts_opt_set_kv(cfg_opts, &c, "prio=-5", err, sizeof(err)) == 0 && c.prio == -5);
	CHECK(ts_opt_set_kv(cfg_opts, &c, "prio=40", err, sizeof(err)) == TS_E_PARSE);
	CHECK(strstr(err, "out of range [-20, 19]") != NULL && c.prio == -5);
	CHECK(ts_opt_set_kv(cfg_opts, &c, "prio=x", err, sizeof(err)) == TS_E_PARSE);
	CHECK(strstr(err, "expected an integer") != NULL);
	CHECK(ts_opt_set_kv(cfg_opts, &c, "bs=256", err, sizeof(err)) == TS_E_PARSE);
	CHECK(strstr(err, "below the minimum 512") != NULL);

	/* A deep copy: strings duplicated, the rest as it is. */
	struct cfg d = { 0 };
	CHECK(ts_opt_copy(cfg_opts, &d, &c) == 0);
	CHECK(d.qd == c.qd && d.bs == c.bs && d.prio == -5 && d.direct == c.direct);
	CHECK(d.tier && d.tier != c.tier && strcmp(d.tier, c.tier) == 0);
	ts_opt_free(cfg_opts, &d);

	/* A list: comma-separated, repeating appends, the first explicit value
	 * replaces the default, at most max words. */
	CHECK(c.tiers.n == 2 && !strcmp(c.tiers.v[1], "y") && !c.tiers.given);
	CHECK(ts_opt_set_kv(cfg_opts, &c, "tiers=a,,b", err, sizeof(err)) == 0 && c.tiers.n == 2 &&
	      !strcmp(c.tiers.v[0], "a") && !strcmp(c.tiers.v[1], "b"));
	CHECK(ts_opt_set_kv(cfg_opts, &c, "tiers=c", err, sizeof(err)) == 0 && c.tiers.n == 3);
	CHECK(ts_opt_set_kv(cfg_opts, &c, "tiers=d", err, sizeof(err)) == TS_E_PARSE);
	CHECK(strstr(err, "at most 3") != NULL);
	char got[64];
	CHECK(!strcmp(ts_opt_get(ts_opt_find(cfg_opts, "tiers"), &c, got, sizeof(got)), "a,b,c"));
	/* Defaults again: the default list, not appended to what was set. */
	CHECK(ts_opt_defaults(cfg_opts, &c, err, sizeof(err)) == 0 && c.tiers.n == 2 &&
	      !strcmp(c.tiers.v[0], "x") && !c.tiers.given);
	ts_opt_free(cfg_opts, &c);
}

/* The command-line form: GNU order, aliases, "--", --help, and one-line
 * errors naming the option as written. */
static void test_opt_args(void)
{
	struct cfg c = { 0 };
	struct ts_opt_args a;
	char err[256];
	CHECK(ts_opt_defaults(cfg_opts, &c, err, sizeof(err)) == 0);
	char *v1[] = { "x", "p1", "--qd=4", "--bs", "64k", "--no-such=1", NULL };
	CHECK(ts_opt_parse_args(cfg_opts, &c, 6, v1, 0, &a, err, sizeof(err)) == TS_E_UNKNOWN);
	CHECK(strcmp(err, "unknown option '--no-such'") == 0);
	char *v2[] = { "x", "p1", "--qd=4", "--bs", "64k", "-d", "p2", "--tiers", "a,b",
		       "--tiers=c", "-q8", "--", "--qd", NULL };
	c.direct = false;
	CHECK(ts_opt_parse_args(cfg_opts, &c, 13, v2, 0, &a, err, sizeof(err)) == 0);
	CHECK(c.qd == 8 && c.bs == 65536 && c.direct && !a.help);
	CHECK(c.tiers.n == 3 && !strcmp(c.tiers.v[0], "a") && !strcmp(c.tiers.v[2], "c"));
	CHECK(a.npos == 3 && a.pos == v2 + 1 && !strcmp(a.pos[0], "p1") &&
	      !strcmp(a.pos[1], "p2") && !strcmp(a.pos[2], "--qd"));
	/* TS_OPT_ARGS_FIRST: the first positional word ends the options. */
	char *v3[] = { "x", "-d", "sub", "--qd", "5", NULL };
	CHECK(ts_opt_parse_args(cfg_opts, &c, 5, v3, TS_OPT_ARGS_FIRST, &a, err, sizeof(err)) == 0);
	CHECK(c.qd == 8 && a.npos == 3 && !strcmp(a.pos[0], "sub") && !strcmp(a.pos[1], "--qd"));
	/* --help wins over an earlier bad option; a subcommand's own -h is
	 * not the program's. */
	char *v4[] = { "x", "--qd=zz", "-h", NULL };
	CHECK(ts_opt_parse_args(cfg_opts, &c, 3, v4, 0, &a, err, sizeof(err)) == 0 && a.help);
	char *v5[] = { "x", "sub", "-h", NULL };
	CHECK(ts_opt_parse_args(cfg_opts, &c, 3, v5, TS_OPT_ARGS_FIRST, &a, err, sizeof(err)) == 0 &&
	      !a.help && a.npos == 2);
	/* Errors: one line naming the option as typed. */
	char *v6[] = { "x", "--qd", "ten", NULL };
	CHECK(ts_opt_parse_args(cfg_opts, &c, 3, v6, 0, &a, err, sizeof(err)) == TS_E_PARSE);
	CHECK(strcmp(err, "--qd ten: expected a non-negative integer") == 0);
	char *v7[] = { "x", "--qd", "0", NULL };
	CHECK(ts_opt_parse_args(cfg_opts, &c, 3, v7, 0, &a, err, sizeof(err)) == TS_E_PARSE);
	CHECK(strcmp(err, "--qd 0: expected 1 to 4096") == 0);
	char *v8[] = { "x", "--qd", NULL };
	CHECK(ts_opt_parse_args(cfg_opts, &c, 2, v8, 0, &a, err, sizeof(err)) == TS_E_PARSE);
	CHECK(strcmp(err, "option '--qd' needs a value") == 0);
	char *v9[] = { "x", "-dq", NULL };
	CHECK(ts_opt_parse_args(cfg_opts, &c, 2, v9, 0, &a, err, sizeof(err)) == TS_E_UNKNOWN);
	CHECK(strcmp(err, "unknown option '-dq'") == 0);
	char *v10[] = { "x", "--tiers", "a,b,c,d", NULL };
	CHECK(ts_opt_parse_args(cfg_opts, &c, 3, v10, 0, &a, err, sizeof(err)) == TS_E_PARSE);
	CHECK(strcmp(err, "--tiers a,b,c,d: at most 3 values") == 0);
	char *v11[] = { "x", "--bs=256", NULL };
	CHECK(ts_opt_parse_args(cfg_opts, &c, 2, v11, 0, &a, err, sizeof(err)) == TS_E_PARSE);
	CHECK(strncmp(err, "--bs 256: expected at least 512", 31) == 0);

	/* --help from the same table: alias, placeholder, default, range, unit. */
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	ts_opt_help_args(f, cfg_opts);
	fclose(f);
	CHECK(strstr(text, "\n  -q, --qd N            queue depth [default 32; 1 to 4096]\n"));
	CHECK(strstr(text, "\n  --bs SIZE             IO size [default 4k; at least 512"));
	CHECK(strstr(text, "\n  -d, --direct          O_DIRECT [default true]\n"));
	CHECK(strstr(text, "\n  --tiers A,B,...       tiers to run on [default x,y; at most 3]\n"));
	CHECK(strstr(text, "\n  -h, --help            this text\n"));
	free(text);
	ts_opt_free(cfg_opts, &c);
}

static bool exists(const char *dir, const char *rel)
{
	char p[PATH_MAX];
	struct stat st;
	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	return lstat(p, &st) == 0;
}

/* mkdir -p names what it made, rm -r removes it (or only what is below),
 * write-all writes everything at the position or at an offset. */
static void test_files(void)
{
	char top[] = "/tmp/tiersim-core-XXXXXX", p[PATH_MAX], made[PATH_MAX];
	CHECK(mkdtemp(top) != NULL);
	snprintf(p, sizeof(p), "%s/a/b/c", top);
	CHECK(ts_mkdir_p(p, 0755, made, sizeof(made)) == 0);
	CHECK(exists(top, "a/b/c") && strstr(made, "/a") && strcmp(strrchr(made, '/'), "/a") == 0);
	CHECK(ts_mkdir_p(p, 0755, made, sizeof(made)) == 0 && made[0] == 0);
	snprintf(p, sizeof(p), "%s/a/b/f", top);
	int fd = open(p, O_RDWR | O_CREAT | O_TRUNC, 0644);
	CHECK(fd >= 0);
	CHECK(ts_write_all(fd, "hello", 5) == 0 && ts_pwrite_all(fd, "J", 1, 0) == 0);
	char buf[8] = "";
	CHECK(pread(fd, buf, sizeof(buf), 0) == 5 && memcmp(buf, "Jello", 5) == 0);
	close(fd);
	CHECK(ts_write_all(-1, "x", 1) == -EBADF);
	/* a file where a folder should be */
	snprintf(p, sizeof(p), "%s/a/b/f/g", top);
	CHECK(ts_mkdir_p(p, 0755, NULL, 0) == -ENOTDIR);
	CHECK(symlink("/", (snprintf(p, sizeof(p), "%s/a/root", top), p)) == 0);
	snprintf(p, sizeof(p), "%s/a", top);
	CHECK(ts_remove_tree(p, TS_RM_KEEP_TOP) == 0);
	CHECK(exists(top, "a") && !exists(top, "a/b") && !exists(top, "a/root"));
	CHECK(ts_remove_tree(top, 0) == 0 && !exists(top, ""));
	CHECK(ts_remove_tree(top, 0) == 0); /* gone already */
}

/* The heap against a plain array kept sorted: random pushes, pops and
 * top replacements with many equal keys; every pop is the smallest
 * (key, tie) and carries its own pointer. */
static int item_cmp(const void *a, const void *b)
{
	const struct ts_heap_item *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->tie < y->tie ? -1 : x->tie > y->tie;
}

static void test_heap(void)
{
	enum { N = 300 };
	static struct ts_heap_item ref[N];
	static int tag[N];
	size_t nref = 0;
	struct ts_heap h = { 0 };
	struct ts_rng r;
	ts_rng_seed(&r, 7);
	for (int step = 0; step < 20000; step++) {
		uint64_t op = ts_rng_below(&r, 10);
		if (nref < N && (op < 5 || !nref)) {
			uint64_t k = ts_rng_below(&r, 50), tie = (uint64_t)step;
			tag[nref] = step;
			struct ts_heap_item it = { k, tie, &tag[nref] };
			CHECK(ts_heap_push(&h, k, tie, it.p) == 0);
			ref[nref++] = it;
		} else if (op < 8) {
			qsort(ref, nref, sizeof(ref[0]), item_cmp);
			struct ts_heap_item got = ts_heap_pop(&h);
			CHECK_EQ_U64(got.key, ref[0].key);
			CHECK_EQ_U64(got.tie, ref[0].tie);
			CHECK(got.p == ref[0].p);
			memmove(ref, ref + 1, --nref * sizeof(ref[0]));
		} else {
			qsort(ref, nref, sizeof(ref[0]), item_cmp);
			CHECK(ts_heap_top(&h)->p == ref[0].p);
			uint64_t k = ref[0].key + ts_rng_below(&r, 60);
			ts_heap_replace_top(&h, k, ref[0].tie);
			ref[0].key = k;
		}
		CHECK_EQ_U64(h.n, nref);
	}
	while (nref) {
		qsort(ref, nref, sizeof(ref[0]), item_cmp);
		struct ts_heap_item got = ts_heap_pop(&h);
		CHECK(got.key == ref[0].key && got.tie == ref[0].tie && got.p == ref[0].p);
		memmove(ref, ref + 1, --nref * sizeof(ref[0]));
	}
	ts_heap_free(&h);
}

/* The sorted event queue against the binary heap: the same pushes (keys
 * mostly near the back, some far forward, many equal, ties as a loop's
 * sequence), the same pops, each with its own pointer. */
static void test_evq(void)
{
	enum { N = 2000 };
	static int tag[N];
	struct ts_heap h = { 0 };
	struct ts_evq q = { 0 };
	struct ts_rng r;
	uint64_t now = 0, seq = 0;
	ts_rng_seed(&r, 11);
	for (int step = 0; step < 200000; step++) {
		uint64_t op = ts_rng_below(&r, 10);
		if (h.n < N && (op < 5 || !h.n)) {
			uint64_t far = ts_rng_below(&r, 8) == 0 ? ts_rng_below(&r, 100000) : 0;
			uint64_t k = now + ts_rng_below(&r, 40) + far;
			int *p = &tag[step % N];
			CHECK(ts_heap_push(&h, k, seq, p) == 0);
			CHECK(ts_evq_push(&q, k, seq, p) == 0);
			seq++;
		} else {
			struct ts_heap_item a = ts_heap_pop(&h);
			CHECK(ts_evq_top(&q)->tie == a.tie);
			struct ts_heap_item b = ts_evq_pop(&q);
			CHECK(a.key == b.key && a.tie == b.tie && a.p == b.p);
			now = a.key;
		}
		CHECK_EQ_U64(ts_evq_len(&q), h.n);
	}
	while (h.n) {
		struct ts_heap_item a = ts_heap_pop(&h), b = ts_evq_pop(&q);
		CHECK(a.key == b.key && a.tie == b.tie && a.p == b.p);
	}
	CHECK_EQ_U64(ts_evq_len(&q), 0);
	/* pushes out of any order, equal keys by tie: still the heap's pops */
	for (uint64_t i = 0; i < 3000; i++) {
		uint64_t k = ts_rng_below(&r, 300);
		CHECK(ts_heap_push(&h, k, 5000 - i, NULL) == 0 && ts_evq_push(&q, k, 5000 - i, NULL) == 0);
	}
	while (h.n) {
		struct ts_heap_item a = ts_heap_pop(&h), b = ts_evq_pop(&q);
		CHECK(a.key == b.key && a.tie == b.tie);
	}
	ts_heap_free(&h);
	ts_evq_free(&q);
}

int main(void)
{
	test_units();
	test_divu();
	test_hist();
	test_rng();
	test_rng_zig();
	test_rng_zig_max();
	test_opt();
	test_files();
	test_opt_args();
	test_heap();
	test_evq();
	return tc_exit();
}
