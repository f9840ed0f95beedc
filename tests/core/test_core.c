/* test_core.c — units, histogram, generator, option tables and file helpers. */
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../tcheck.h"
#include "files.h"
#include "hist.h"
#include "opt.h"
#include "rng.h"
#include "units.h"

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
}

struct cfg {
	int64_t prio;
	uint64_t qd;
	uint64_t bs;
	uint64_t lat;
	char *tier;
	bool direct;
};

static const struct ts_opt cfg_opts[] = {
	{ "prio", TS_OPT_INT, offsetof(struct cfg, prio), "0", -20, 19, "", "priority" },
	{ "qd", TS_OPT_U64, offsetof(struct cfg, qd), "32", 1, 4096, "", "queue depth" },
	{ "bs", TS_OPT_SIZE, offsetof(struct cfg, bs), "4k", 512, 0, "bytes", "IO size" },
	{ "lat", TS_OPT_DURATION, offsetof(struct cfg, lat), "1ms", 0, 0, "ns", "latency" },
	{ "tier", TS_OPT_STR, offsetof(struct cfg, tier), "ssd-cloud", 0, 0, "", "tier" },
	{ "direct", TS_OPT_BOOL, offsetof(struct cfg, direct), "true", 0, 0, "", "O_DIRECT" },
	{ NULL },
};

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

	/* Command-line form: --name=value, --name value, a bare boolean flag,
	 * dashes for underscores; unknown names and missing values refused. */
	char *argv[] = { "x", "--qd=4", "--bs", "64k", "--direct", "--qd", "--qdd=1", "pos" };
	int i = 1;
	CHECK(ts_opt_set_arg(cfg_opts, &c, 8, argv, &i, err, sizeof(err)) == 0 && c.qd == 4 && i == 1);
	i = 2;
	CHECK(ts_opt_set_arg(cfg_opts, &c, 8, argv, &i, err, sizeof(err)) == 0 && c.bs == 65536 && i == 3);
	c.direct = false;
	i = 4;
	CHECK(ts_opt_set_arg(cfg_opts, &c, 8, argv, &i, err, sizeof(err)) == 0 && c.direct && i == 4);
	i = 6;
	CHECK(ts_opt_set_arg(cfg_opts, &c, 8, argv, &i, err, sizeof(err)) == TS_E_UNKNOWN);
	i = 7;
	CHECK(ts_opt_set_arg(cfg_opts, &c, 8, argv, &i, err, sizeof(err)) == TS_E_PARSE);
	CHECK(strstr(err, "unexpected argument 'pos'") != NULL);
	i = 5;
	CHECK(ts_opt_set_arg(cfg_opts, &c, 6, argv, &i, err, sizeof(err)) == TS_E_PARSE);
	CHECK(strstr(err, "'--qd' needs a value") != NULL);
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

int main(void)
{
	test_units();
	test_hist();
	test_rng();
	test_opt();
	test_files();
	return tc_exit();
}
