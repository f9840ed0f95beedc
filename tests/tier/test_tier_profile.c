/*
 * test_tier_profile.c — loading tier profiles: the built-in file, effective
 * limits from the vendors' formulas, and the errors a user sees for a
 * malformed file or an unknown tier.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/tcheck.h"
#include "tier/tier.h"

static struct ts_tier_set *builtin(void)
{
	struct ts_tier_set *s = NULL;
	char err[512];
	int rc = ts_tier_set_load_default(&s, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "load default: %s\n", err);
		exit(1);
	}
	return s;
}

static void effective(const struct ts_tier_set *s, const char *name, uint64_t gib,
		      struct ts_tier_limits *l)
{
	char err[256];
	const struct ts_tier_profile *p = ts_tier_set_find(s, name);
	CHECK(p != NULL);
	if (!p || ts_tier_effective(p, gib * TS_GiB, l, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", name, err);
		memset(l, 0, sizeof(*l));
	}
}

static void test_builtin(void)
{
	struct ts_tier_set *s = builtin();
	static const char *const need[] = { "nvme-local", "ssd-cloud", "ultra-cloud",
					    "ssd-cloud-2024", "ultra-cloud-2024", "essd-pl0",
					    "essd-pl1", "essd-pl2", "essd-pl3", "aws-gp2",
					    "aws-gp3", "aws-io2", "aws-st1", "unlimited" };
	for (size_t i = 0; i < TS_ARRAY_SIZE(need); i++) {
		const struct ts_tier_profile *p = ts_tier_set_find(s, need[i]);
		CHECK(p != NULL);
		if (p)
			CHECK(p->source && p->desc && p->where);
	}
	struct ts_tier_limits l;
	/* 2017 formulas at 500 GiB (developer.aliyun.com/article/548572). */
	effective(s, "ssd-cloud", 500, &l);
	CHECK_NEAR(l.iops, 15000, 1e-12);
	CHECK_NEAR(l.bps, 256.0 * TS_MiB, 1e-12);
	effective(s, "ultra-cloud", 500, &l);
	CHECK_NEAR(l.iops, 3000, 1e-12);
	CHECK_NEAR(l.bps, 80.0 * TS_MiB, 1e-12);
	effective(s, "ultra-cloud", 40, &l);
	CHECK_NEAR(l.iops, 1240, 1e-12);
	CHECK_NEAR(l.bps, 54.0 * TS_MiB, 1e-12);
	/* Current formulas at 500 GiB. */
	effective(s, "ssd-cloud-2024", 500, &l);
	CHECK_NEAR(l.iops, 16800, 1e-12);
	CHECK_NEAR(l.bps, 300.0 * TS_MiB, 1e-12);
	effective(s, "ultra-cloud-2024", 500, &l);
	CHECK_NEAR(l.iops, 5000, 1e-12);
	CHECK_NEAR(l.bps, 140.0 * TS_MiB, 1e-12);
	effective(s, "essd-pl1", 500, &l);
	CHECK_NEAR(l.iops, 26800, 1e-12);
	CHECK_NEAR(l.bps, 350.0 * TS_MiB, 1e-12);
	effective(s, "essd-pl3", 32768, &l);
	CHECK_NEAR(l.iops, 1000000, 1e-12);
	CHECK_NEAR(l.bps, 4000.0 * TS_MiB, 1e-12);
	/* gp2: baseline 3/GiB (min 100), burst 3000 below 1 TiB. */
	effective(s, "aws-gp2", 100, &l);
	CHECK_NEAR(l.iops, 300, 1e-12);
	CHECK(l.burst == TS_TIER_BURST_IOPS);
	CHECK_NEAR(l.burst_iops, 3000, 1e-12);
	CHECK_NEAR(l.bucket_size, 5.4e6, 1e-12);
	CHECK_NEAR(l.bps, 128.0 * TS_MiB, 1e-12);
	effective(s, "aws-gp2", 10, &l);
	CHECK_NEAR(l.iops, 100, 1e-12);
	effective(s, "aws-gp2", 250, &l);
	CHECK_NEAR(l.bps, 128.0 * TS_MiB, 1e-12);
	CHECK_NEAR(l.burst_bps, 250.0 * TS_MiB, 1e-12);
	effective(s, "aws-gp2", 1000, &l);
	CHECK(l.burst == TS_TIER_BURST_NONE);
	CHECK_NEAR(l.iops, 3000, 1e-12);
	CHECK_NEAR(l.bps, 250.0 * TS_MiB, 1e-12);
	effective(s, "aws-gp2", 8000, &l);
	CHECK_NEAR(l.iops, 16000, 1e-12);
	/* st1 at 2 TiB: 80 MiB/s baseline, 500 burst, 2 TiB of credits. */
	effective(s, "aws-st1", 2048, &l);
	CHECK_NEAR(l.bps, 80.0 * TS_MiB, 1e-12);
	CHECK_NEAR(l.burst_bps, 500.0 * TS_MiB, 1e-12);
	CHECK_NEAR(l.bucket_size, 2048.0 * TS_GiB, 1e-12);
	CHECK(l.burst == TS_TIER_BURST_BYTES);
	/* io2 Block Express: 1,000 IOPS and 256 MiB/s per GiB, caps 256,000
	 * and 4,000 MiB/s. */
	effective(s, "aws-io2", 4, &l);
	CHECK_NEAR(l.iops, 4000, 1e-12);
	CHECK_NEAR(l.bps, 1024.0 * TS_MiB, 1e-12);
	effective(s, "aws-io2", 500, &l);
	CHECK_NEAR(l.iops, 256000, 1e-12);
	CHECK_NEAR(l.bps, 4000.0 * TS_MiB, 1e-12);
	effective(s, "nvme-local", 440, &l);
	CHECK_NEAR(l.iops, 72600, 1e-12);
	CHECK_NEAR(l.read_bps, 616.0 * TS_MiB, 1e-9);
	CHECK_NEAR(l.write_bps, 374.0 * TS_MiB, 1e-9);

	/* Capacity out of range names the tier and its range. */
	char err[256] = "";
	const struct ts_tier_profile *pl3 = ts_tier_set_find(s, "essd-pl3");
	CHECK(ts_tier_effective(pl3, 500 * TS_GiB, &l, err, sizeof(err)) == -ERANGE);
	CHECK(strstr(err, "essd-pl3") && strstr(err, "range"));

	/* Unknown tier: the message lists the known ones. */
	const struct ts_tier_profile *p;
	CHECK(ts_tier_set_lookup(s, "ssd-clod", &p, err, sizeof(err)) == TS_E_UNKNOWN);
	CHECK(strstr(err, "ssd-clod") && strstr(err, "ssd-cloud") && strstr(err, "aws-gp2"));

	/* The --list-tiers table: one row per tier and a header. */
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	CHECK(ts_tier_print_table(f, s, 0) == 0);
	fclose(f);
	size_t rows = 0;
	for (size_t i = 0; i < len; i++)
		rows += buf[i] == '\n';
	CHECK_EQ_U64(rows, ts_tier_set_count(s) + 1);
	CHECK(strstr(buf, "15000") != NULL); /* ssd-cloud at 500 GiB */
	fputs(buf, stderr);
	free(buf);
	ts_tier_set_free(s);
}

/* Writes @text to a temporary file; returns its path (static buffer). */
static const char *tmpfile_with(const char *text)
{
	static char path[64];
	strcpy(path, "/tmp/tiertestXXXXXX.lua");
	int fd = mkstemps(path, 4);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text)) {
		perror("tmpfile");
		exit(1);
	}
	close(fd);
	return path;
}

struct bad {
	const char *text;
	const char *want[3]; /* substrings of the message */
};

static void test_malformed(void)
{
	static const struct bad cases[] = {
		{ "tier \"x\" {\n  iops = { b = 30, cap = 20000 },\n}\n"
		  "tier \"y\" {\n  iops = { b = 'lots' },\n}\n",
		  { ":4:", "tier 'y'", "iops.b" } },
		{ "\n\ntier \"z\" { latency = { read = { p50 = \"1 parsec\", p99 = \"2ms\" } } }\n",
		  { ":3:", "latency.read.p50", "duration" } },
		{ "tier \"z\" { lantency = {} }\n", { ":1:", "lantency", "unknown key" } },
		{ "tier \"z\" { latency = { read = { p50 = \"2ms\", p99 = \"1ms\" } } }\n",
		  { ":1:", "latency.read", "p50 <= p99" } },
		/* A stall rides on a set latency: p in 0..1, lo <= hi, all three. */
		{ "tier \"z\" { latency = { write = { fixed = \"1ms\", stall = { p = 2, lo = \"1ms\", hi = \"2ms\" } } } }\n",
		  { ":1:", "latency.write.stall", "p (0..1)" } },
		{ "tier \"z\" { latency = { write = { fixed = \"1ms\", stall = { p = 0.1, lo = \"3ms\", hi = \"2ms\" } } } }\n",
		  { ":1:", "latency.write.stall", "lo <= hi" } },
		{ "tier \"z\" { latency = { write = { fixed = \"1ms\", stall = { p = 0.1, lo = \"3ms\" } } } }\n",
		  { ":1:", "latency.write.stall" } },
		{ "tier \"z\" { latency = { write = { fixed = \"1ms\", stall = { p = 0.1, lo = \"1ms\", hi = \"2ms\", every = 3 } } } }\n",
		  { ":1:", "every", "unknown key" } },
		{ "tier \"z\" { capacity = { min = \"1TiB\", default = \"1GiB\" } }\n",
		  { ":1:", "capacity", "min <= default" } },
		{ "tier \"z\" { burst = { kind = \"tokens\", bucket = 1 } }\n",
		  { ":1:", "burst.kind", "tokens" } },
		{ "tier \"z\" { iops = 5 }\ntier \"z\" { iops = 6 }\n", { ":2:", "declared twice" } },
		{ "tier \"z\" { iops = 5 \n", { ":2:", "expected" } },
		{ "os.execute('true')\n", { ":1:", "os" } },
		{ "-- nothing\n", { "declares no tier" } },
		{ "tier \"z\" { io_unit = \"12 furlongs\" }\n", { ":1:", "io_unit", "size" } },
		{ "tier \"z\" { mibps = { steps = { {10, 5}, {5, 6} } } }\n",
		  { ":1:", "mibps.steps", "increasing" } },
		{ "local x = 0\nwhile true do x = x + 1 end\n", { ":2:", "instructions" } },
		{ "tier \"z\" { burst = { kind = \"iops\", iops = 10, bucket = 5 } }\n",
		  { ":1:", "burst.iops", "baseline" } },
		/* An assumed value carries its range; a range is LO <= 1 <= HI. */
		{ "tier \"z\" { iops = 5, evidence = { iops = { \"assumed\", \"a guess\" } } }\n",
		  { ":1:", "evidence.iops", "range" } },
		{ "tier \"z\" { iops = 5, evidence = { iops = { \"spec\", \"t\", range = { 2, 3 } } } }\n",
		  { ":1:", "'evidence.iops': range:", "LO <= 1 <= HI" } },
		/* The block device's queue. */
		{ "tier \"z\" { queue = { logical_block = 3000 } }\n",
		  { ":1:", "queue.logical_block", "512" } },
		{ "tier \"z\" { queue = { logical_block = 4096, physical_block = 512 } }\n",
		  { ":1:", "queue.physical_block", "logical_block" } },
		{ "tier \"z\" { queue = { read_ahead = 128 } }\n", { ":1:", "read_ahead", "unknown key" } },
		{ "tier \"z\" { queue = { max_sectors_kb = 2 } }\n", { ":1:", "queue.max_sectors_kb" } },
		/* A window releases IOPS caps: it needs one and no burst bucket. */
		{ "tier \"z\" { iops = 100, cap_window = \"soon\" }\n",
		  { ":1:", "cap_window", "duration" } },
		{ "tier \"z\" { mibps = 100, cap_window = \"10ms\" }\n",
		  { ":1:", "cap_window", "no" } },
		{ "tier \"z\" { iops = 100, cap_window = \"10ms\",\n"
		  "  burst = { kind = \"iops\", iops = 300, bucket = 1000 } }\n",
		  { ":1:", "cap_window", "burst" } },
		{ "tier \"z\" { iops = 5, cap_window = \"10ms\",\n"
		  "  evidence = { iops = { \"spec\", \"t\" } } }\n",
		  { "evidence.cap_window", "missing" } },
		{ "tier \"z\" { iops = 5, queue = { rotational = true },\n"
		  "  evidence = { iops = { \"spec\", \"t\" } } }\n",
		  { "evidence.queue", "missing" } },
	};
	for (size_t i = 0; i < TS_ARRAY_SIZE(cases); i++) {
		const char *path = tmpfile_with(cases[i].text);
		struct ts_tier_set *s = NULL;
		char err[512] = "";
		int rc = ts_tier_set_load(path, &s, err, sizeof(err));
		CHECK(rc == TS_E_PROFILE);
		CHECK(s == NULL);
		CHECK(strstr(err, path) != NULL);
		for (int k = 0; k < 3 && cases[i].want[k]; k++) {
			if (!strstr(err, cases[i].want[k])) {
				fprintf(stderr, "case %zu: '%s' not in: %s\n", i, cases[i].want[k], err);
				tc_failures++;
			}
		}
		unlink(path);
	}
	/* A missing file. */
	struct ts_tier_set *s = NULL;
	char err[512] = "";
	CHECK(ts_tier_set_load("/nonexistent/tiers.lua", &s, err, sizeof(err)) == -ENOENT);
	CHECK(strstr(err, "/nonexistent/tiers.lua") != NULL);
}

/* A user file adds tiers and overrides built-ins; the override's line is
 * where it was declared. */
static void test_user_override(void)
{
	struct ts_tier_set *s = builtin();
	size_t n0 = ts_tier_set_count(s);
	const struct ts_tier_profile *old = ts_tier_set_find(s, "ssd-cloud");
	const char *path = tmpfile_with("-- mine\n"
					"tier \"ssd-cloud\" { iops = 1234, source = \"me\" }\n"
					"tier \"my-disk\" { mibps = { a = 10, b = 1, cap = 99 },\n"
					"  iops = { b = 1 }, burst = { kind = \"iops\", iops = 500,\n"
					"  bucket = 1e5, below_gib = 200 } }\n");
	char err[512] = "";
	CHECK(ts_tier_set_add_file(s, path, err, sizeof(err)) == 0);
	CHECK_EQ_U64(ts_tier_set_count(s), n0 + 1);
	const struct ts_tier_profile *p = ts_tier_set_find(s, "ssd-cloud");
	CHECK(p && p != old && strcmp(p->source, "me") == 0);
	CHECK(p && strstr(p->where, ":2") != NULL);
	/* The replaced profile stays valid for a model still using it. */
	CHECK(strcmp(old->name, "ssd-cloud") == 0);
	struct ts_tier_limits l;
	effective(s, "my-disk", 50, &l);
	CHECK_NEAR(l.bps, 60.0 * TS_MiB, 1e-12);
	CHECK(l.burst == TS_TIER_BURST_IOPS);
	CHECK_NEAR(l.burst_iops, 500, 1e-12);
	effective(s, "my-disk", 200, &l);
	CHECK(l.burst == TS_TIER_BURST_NONE); /* below_gib */
	CHECK_NEAR(l.iops, 200, 1e-12);
	/* A tier without queue has Linux's defaults; one with it, its own
	 * values and the defaults for the rest. */
	CHECK(p && !p->queue.set && p->queue.read_ahead_kb == 128 &&
	      p->queue.max_sectors_kb == 1280 && p->queue.logical_block == 512 &&
	      p->queue.physical_block == 512 && !p->queue.rotational);
	unlink(path);
	path = tmpfile_with("tier \"hdd\" { queue = { read_ahead_kb = 4096, physical_block = "
			    "\"4KiB\", rotational = true } }\n");
	CHECK(ts_tier_set_add_file(s, path, err, sizeof(err)) == 0);
	const struct ts_tier_profile *h = ts_tier_set_find(s, "hdd");
	CHECK(h && h->queue.set && h->queue.read_ahead_kb == 4096 &&
	      h->queue.max_sectors_kb == 1280 && h->queue.logical_block == 512 &&
	      h->queue.physical_block == 4096 && h->queue.rotational);
	/* A bad user file leaves the set as it was. */
	unlink(path);
	path = tmpfile_with("tier \"ssd-cloud\" { iops = -1 }\n");
	CHECK(ts_tier_set_add_file(s, path, err, sizeof(err)) == TS_E_PROFILE);
	CHECK(ts_tier_set_find(s, "ssd-cloud") == p);
	unlink(path);
	ts_tier_set_free(s);
}

/* The band: ranged fields at the slow end (caps x lo, latencies x hi) and
 * the fast end, the rest as they are; exact. */
static void test_band(void)
{
	const char *path = tmpfile_with(
		"tier \"b\" {\n"
		"  iops = { cap = 1000 }, mibps = { cap = 100 },\n"
		"  latency = { read = { p50 = \"1ms\", p99 = \"2ms\" }, write = { p50 = \"3ms\", p99 = \"4ms\" } },\n"
		"  cap_window = \"100ms\",\n"
		"  evidence = { iops = { \"assumed\", \"a guess\", range = { 0.5, 1 } },\n"
		"               cap_window = { \"assumed\", \"a sibling's\", range = { 0.5, 2 } },\n"
		"               mibps = { \"spec\", \"a table\" },\n"
		"               latency = { read = { \"spec\", \"0.5-2 ms\", range = { 0.5, 2 } },\n"
		"                           write = { \"measured\", \"fio\" } } },\n"
		"}\n");
	struct ts_tier_set *s = NULL;
	char err[512] = "", names[128];
	CHECK(ts_tier_set_load(path, &s, err, sizeof(err)) == 0);
	unlink(path);
	const struct ts_tier_profile *p = s ? ts_tier_set_find(s, "b") : NULL;
	CHECK(p != NULL);
	if (!p) {
		fprintf(stderr, "%s\n", err);
		return;
	}
	struct ts_tier_profile slow, fast, same;
	CHECK(ts_tier_profile_band(p, -1, &slow, names, sizeof(names)) == 3);
	CHECK(!strcmp(names, "iops, cap_window, latency.read"));
	CHECK(ts_tier_profile_band(p, 1, &fast, NULL, 0) == 3);
	CHECK_NEAR(slow.cap_window_ns, 200e6, 1e-12); /* slower: a longer window */
	CHECK_NEAR(fast.cap_window_ns, 50e6, 1e-12);
	CHECK(ts_tier_profile_band(p, 0, &same, names, sizeof(names)) == 0 && !names[0]);
	CHECK_NEAR(slow.iops.cap, 500, 1e-12);
	CHECK_NEAR(fast.iops.cap, 1000, 1e-12);
	CHECK_NEAR(slow.mibps.cap, 100, 1e-12);
	CHECK_NEAR(fast.mibps.cap, 100, 1e-12);
	CHECK_NEAR(slow.lat_read.p50_ns, 2e6, 1e-12);
	CHECK_NEAR(slow.lat_read.p99_ns, 4e6, 1e-12);
	CHECK_NEAR(fast.lat_read.p50_ns, 0.5e6, 1e-12);
	CHECK_NEAR(slow.lat_write.p50_ns, 3e6, 1e-12);
	CHECK_NEAR(same.lat_read.p50_ns, 1e6, 1e-12);
	CHECK_NEAR(same.cap_window_ns, 100e6, 1e-12);
	ts_tier_set_free(s);
}

int main(void)
{
	test_builtin();
	test_malformed();
	test_band();
	test_user_override();
	return tc_exit();
}
