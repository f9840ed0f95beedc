/*
 * test_price.c — price profiles (cost/price.h): what a volume costs per
 * hour at a capacity and what its tier provisions (included IOPS and
 * MiB/s free, io2's stepped IOPS price), the band at both ends of every
 * range, a user's file replacing a built-in name, an unknown instance
 * listing the known ones, a name of another profile that does not exist,
 * and one table of bad files, each refused naming its file, line and field.
 * The built-in cost/prices.lua loads and checks against the built-in tier
 * and host profiles.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cost/cost.h"
#include "cost/price.h"
#include "tests/tcheck.h"

static char dir[] = "/tmp/tiersim-price-XXXXXX";

static const char *write_file(const char *name, const char *text)
{
	static char path[256];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f)) {
		perror(path);
		exit(1);
	}
	return path;
}

/* Prices chosen so every sum is exact in binary floating point. */
static const char good[] =
	"instance \"box\" { provider = \"p\", region = \"r\", shape = \"doc\",\n"
	"  vcpus = 8, mem_gib = 64, gpus = 2, gpu = \"G\", host = \"epyc-zen4\",\n"
	"  local_disk = { tier = \"nvme-local\", count = 2, gib = 100 },\n"
	"  hourly = { 4, \"assumed\", \"why\", date = \"2026-01\", low = 2, high = 8 } }\n"
	"volume \"flat\" { provider = \"p\", region = \"r\", tiers = { \"aws-gp2\" },\n"
	"  gib_month = { 0.25, \"spec\", \"list\", date = \"2026\" } }\n"
	"volume \"prov\" { provider = \"p\", region = \"r\", tiers = { \"aws-gp3\" },\n"
	"  gib_month = { 0.5, \"spec\", \"list\", date = \"2026\" },\n"
	"  iops_month = { 0.25, \"assumed\", \"why\", date = \"2026\", included = 3000,\n"
	"                 low = 0.125, high = 0.5 },\n"
	"  mibps_month = { 2, \"spec\", \"list\", date = \"2026\", included = 125 } }\n"
	"volume \"stepped\" { provider = \"p\", region = \"r\", tiers = { \"aws-io2\" },\n"
	"  gib_month = { 1, \"spec\", \"list\", date = \"2026-12-01\" },\n"
	"  iops_month = { 4, \"spec\", \"list\", date = \"2026\",\n"
	"                 steps = { { 100, 2 }, { 200, 1 } } } }\n";

static void costs(void)
{
	struct ts_price_set *s;
	char err[1024];
	CHECK(ts_price_set_load_default(&s, err, sizeof(err)) == 0);
	if (!s)
		return;
	size_t builtin = ts_price_volume_count(s);
	CHECK(ts_price_set_add_file(s, write_file("good.lua", good), err, sizeof(err)) == 0);
	CHECK(ts_price_volume_count(s) == builtin + 3);

	const struct ts_instance *in;
	CHECK(ts_price_instance(s, "box", &in, err, sizeof(err)) == 0);
	if (in) {
		CHECK(in->vcpus == 8 && in->mem_gib == 64 && in->gpus == 2);
		CHECK(!strcmp(in->host, "epyc-zen4") && !strcmp(in->disk_tier, "nvme-local"));
		CHECK(in->disk_count == 2 && in->disk_gib == 100);
		struct ts_cost_band b;
		ts_instance_hourly(in, &b);
		CHECK(b.v == 4 && b.low == 2 && b.high == 8);
	}

	/* flat: 730 GiB x $0.25 a month is $0.25 an hour; no IOPS charged. */
	const struct ts_volume *v = ts_price_volume_for_tier(s, "aws-gp2");
	CHECK(v && !strcmp(v->name, "flat"));
	struct ts_cost_band b;
	if (v) {
		ts_volume_hourly(v, 730, 1e6, 1e6, &b);
		CHECK(b.v == 0.25 && b.low == 0.25 && b.high == 0.25);
	}
	/* prov: 730 GiB x 0.5 + (3000+730 - 3000) IOPS x 0.25 + (125+73 - 125)
	 * MiB/s x 2, a month: 365 + 182.5 + 146 = 693.5, an hour 0.95; the IOPS
	 * part at its ends 0.125 and 0.5. Nothing above the included part is
	 * free of charge only up to it. */
	v = ts_price_volume_for_tier(s, "aws-gp3");
	CHECK(v && !strcmp(v->name, "prov"));
	if (v) {
		ts_volume_hourly(v, 730, 3730, 198, &b);
		CHECK_NEAR(b.v, 0.95, 1e-12);
		CHECK_NEAR(b.low, (365 + 91.25 + 146) / 730.0, 1e-12);
		CHECK_NEAR(b.high, (365 + 365 + 146) / 730.0, 1e-12);
		ts_volume_hourly(v, 730, 3000, 125, &b);
		CHECK(b.v == 0.5);
	}
	/* stepped: 4 up to 100 IOPS, 2 to 200, 1 above. */
	v = ts_price_volume_for_tier(s, "aws-io2");
	CHECK(v && !strcmp(v->name, "stepped"));
	if (v) {
		CHECK(ts_price_iops_month(&v->iops_month, 50, TS_PRICE_NOMINAL) == 200);
		CHECK(ts_price_iops_month(&v->iops_month, 150, TS_PRICE_NOMINAL) == 500);
		CHECK(ts_price_iops_month(&v->iops_month, 250, TS_PRICE_NOMINAL) == 650);
		ts_volume_hourly(v, 0, 250, 0, &b);
		CHECK_NEAR(b.v, 650 / 730.0, 1e-12);
	}
	CHECK(ts_price_volume_for_tier(s, "no-such-tier") == NULL);

	/* Unknown instance: the known ones are listed. */
	CHECK(ts_price_instance(s, "nope", &in, err, sizeof(err)) == -ENOENT);
	CHECK(strstr(err, "instance 'nope' has no price profile (known: ") != NULL);
	CHECK(strstr(err, "gn5-c8g1.2xlarge") != NULL && strstr(err, "box") != NULL);

	/* A user's volume of a built-in name replaces it. */
	CHECK(ts_price_set_add_file(s,
				    write_file("repl.lua",
					       "volume \"aws-gp2\" { provider = \"p\", region = \"r\",\n"
					       "  gib_month = { 9, \"spec\", \"l\", date = \"2026\" } }\n"),
				    err, sizeof(err)) == 0);
	CHECK(ts_price_volume_count(s) == builtin + 3);
	ts_price_set_free(s);
}

/* The built-in file checks against the built-in tiers and hosts; a name of
 * a tier or host that does not exist is refused naming file and line. */
static void checked(void)
{
	struct ts_price_set *s;
	char err[1024];
	CHECK(ts_price_load_checked(NULL, NULL, &s, err, sizeof(err)) == 0);
	if (!s)
		fprintf(stderr, "built-in prices: %s\n", err);
	/* Every study instance and today's anchors are there, each volume of
	 * a built-in tier is priced. */
	static const char *const need[] = { "gn5-c8g1.2xlarge", "gn5-c8g1.14xlarge", "p4d.24xlarge",
					    "p5.48xlarge" };
	for (size_t i = 0; s && i < TS_ARRAY_SIZE(need); i++) {
		const struct ts_instance *in;
		CHECK(ts_price_instance(s, need[i], &in, err, sizeof(err)) == 0);
	}
	/* A t3.medium's EBS limits, as AWS's table gives them, in bytes/s. */
	const struct ts_instance *t3;
	CHECK(s && ts_price_instance(s, "t3.medium", &t3, err, sizeof(err)) == 0);
	if (s && t3) {
		struct ts_tier_ebs e;
		ts_instance_ebs(t3, &e);
		CHECK(e.iops == 2000 && e.max_iops == 11800 && e.burst_s == 1800);
		CHECK(e.bps == 43.43e6 && e.max_bps == 260.57e6);
		CHECK(t3->ebs.max_iops.label == TS_LUADATA_SPEC && t3->ebs.max_iops.what &&
		      strstr(t3->ebs.max_iops.what, "11,800"));
	}
	static const char *const tiers[] = { "nvme-local", "ssd-cloud",	 "ultra-cloud", "essd-pl0",
					     "essd-pl1",   "essd-pl2",	 "essd-pl3",	"aws-gp2",
					     "aws-gp3",	   "aws-io2",	 "aws-st1",	"aws-sc1" };
	for (size_t i = 0; s && i < TS_ARRAY_SIZE(tiers); i++)
		if (!ts_price_volume_for_tier(s, tiers[i])) {
			fprintf(stderr, "no price for tier %s\n", tiers[i]);
			tc_failures++;
		}
	ts_price_set_free(s);

	CHECK(ts_price_load_checked(write_file("badtier.lua",
					       "\nvolume \"v\" { provider = \"p\", region = \"r\",\n"
					       "  tiers = { \"aws-gp9\" },\n"
					       "  gib_month = { 1, \"spec\", \"l\", date = \"2026\" } }\n"),
				    NULL, &s, err, sizeof(err)) == TS_E_PROFILE);
	CHECK(s == NULL);
	CHECK(strstr(err, "badtier.lua:2: volume 'v': tiers: 'aws-gp9' is not a tier profile") !=
	      NULL);
	CHECK(ts_price_load_checked(write_file("badhost.lua",
					       "instance \"i\" { provider = \"p\", region = \"r\",\n"
					       "  shape = \"d\", vcpus = 1, mem_gib = 1, host = \"z80\",\n"
					       "  hourly = { 1, \"spec\", \"l\", date = \"2026\" } }\n"),
				    NULL, &s, err, sizeof(err)) == TS_E_PROFILE);
	CHECK(strstr(err, "badhost.lua:1: instance 'i': host: 'z80' is not a host profile") != NULL);
}

/* A configuration's dollars: an hour of instance + volume; an epoch and
 * 1,000 steps at samples/s; the idle share; the band from the low prices
 * at the fast end to the high prices at the slow end. */
static void config_cost(void)
{
	struct ts_cost_in in = { .inst_hour = { 4, 2, 8 }, .vol_hour = { 1, 1, 2 },
				 .sps = 100, .sps_lo = 50, .sps_hi = 200, .au = 75, .au_lo = 50,
				 .au_hi = 100, .batch = 10, .epoch_samples = 360000 };
	struct ts_cost c;
	ts_cost_compute(&in, &c);
	CHECK(c.hour.v == 5 && c.hour.low == 3 && c.hour.high == 10);
	CHECK(c.epoch.v == 5 && c.epoch.low == 1.5 && c.epoch.high == 20); /* 1 h, 0.5 h, 2 h */
	CHECK_NEAR(c.ksteps.v, 5 * 100.0 / 3600, 1e-12);
	CHECK(c.idle_hour.v == 1 && c.idle_hour.low == 0 && c.idle_hour.high == 4);
	/* No band, no epoch size, no AU: the figures that need them are NaN. */
	in.sps_lo = in.sps_hi = in.au = NAN;
	in.epoch_samples = 0;
	ts_cost_compute(&in, &c);
	CHECK(isnan(c.epoch.v) && isnan(c.idle_hour.v));
	CHECK_NEAR(c.ksteps.low, c.ksteps.v * 3 / 5, 1e-12);
	in.sps = NAN;
	ts_cost_compute(&in, &c);
	CHECK(isnan(c.ksteps.v) && c.hour.v == 5);
}

/* Bad files: each refused, the message naming the file, line and field. */
static const struct {
	const char *text, *want;
} bad[] = {
	{ "volume \"v\" { provider = \"p\", region = \"r\",\n"
	  "  gib_month = { 1, \"spec\", date = \"2026\" } }\n",
	  ":1: volume 'v': gib_month: missing its source" },
	{ "volume \"v\" { provider = \"p\", region = \"r\",\n"
	  "  gib_month = { 1, \"spec\", \"l\" } }\n",
	  ":1: volume 'v': gib_month: missing its date" },
	{ "\n\nvolume \"v\" { provider = \"p\", region = \"r\",\n"
	  "  gib_month = { 1, \"spec\", \"l\", date = \"last year\" } }\n",
	  ":3: volume 'v': gib_month: date = \"last year\" is not YYYY" },
	{ "volume \"v\" { provider = \"p\", region = \"r\",\n"
	  "  gib_month = { 1, \"assumed\", \"why\", date = \"2026\" } }\n",
	  "gib_month: an assumed price needs low = and high =" },
	{ "volume \"v\" { provider = \"p\", region = \"r\",\n"
	  "  gib_month = { \"1\", \"spec\", \"l\", date = \"2026\" } }\n",
	  "gib_month: missing its value" },
	{ "volume \"v\" { provider = \"p\", region = \"r\",\n"
	  "  gib_month = { 1, \"quoted\", \"l\", date = \"2026\" } }\n",
	  "gib_month: missing its label" },
	{ "volume \"v\" { provider = \"p\", region = \"r\",\n"
	  "  gib_month = { 1, \"spec\", \"l\", date = \"2026\", low = 2 } }\n",
	  "gib_month: needs low <= value <= high" },
	{ "volume \"v\" { provider = \"p\", region = \"r\", gib_month = 0.1 }\n",
	  "volume 'v': gib_month: expected { VALUE" },
	{ "volume \"v\" { provider = \"p\", region = \"r\" }\n",
	  "volume 'v': missing gib_month" },
	{ "volume \"v\" { provider = \"p\", region = \"r\",\n"
	  "  gib_month = { 1, \"spec\", \"l\", date = \"2026\", per = \"GB\" } }\n",
	  "gib_month: unknown key 'per'" },
	{ "volume \"v\" { provider = \"p\", region = \"r\", tiers = \"aws-gp3\",\n"
	  "  gib_month = { 1, \"spec\", \"l\", date = \"2026\" } }\n",
	  "volume 'v': tiers: expected { \"TIER\", ... }" },
	{ "volume \"v\" { provider = \"p\", region = \"r\",\n"
	  "  gib_month = { 1, \"spec\", \"l\", date = \"2026\" },\n"
	  "  iops_month = { 1, \"spec\", \"l\", date = \"2026\", steps = { { 100, 1 }, { 50, 1 } } } }\n",
	  "iops_month.steps[2]: expected { FROM, PRICE }" },
	{ "instance \"i\" { provider = \"p\", region = \"r\", shape = \"d\", vcpus = \"8\",\n"
	  "  mem_gib = 1, hourly = { 1, \"spec\", \"l\", date = \"2026\" } }\n",
	  ":1: instance 'i': vcpus is a string, not a number" },
	{ "instance \"i\" { provider = \"p\", region = \"r\", vcpus = 8, mem_gib = 1,\n"
	  "  hourly = { 1, \"spec\", \"l\", date = \"2026\" } }\n",
	  "instance 'i': missing shape" },
	{ "instance \"i\" { provider = \"p\", region = \"r\", shape = \"d\", vcpus = 8,\n"
	  "  mem_gib = 1, gpus = 2, hourly = { 1, \"spec\", \"l\", date = \"2026\" } }\n",
	  "instance 'i': missing gpu" },
	{ "instance \"i\" { provider = \"p\", region = \"r\", shape = \"d\", vcpus = 8,\n"
	  "  mem_gib = 1, local_disk = { tier = \"nvme-local\", gib = 10, size = 3 },\n"
	  "  hourly = { 1, \"spec\", \"l\", date = \"2026\" } }\n",
	  "instance 'i'" },
	{ "instance \"i\" { provider = \"p\", region = \"r\", shape = \"d\", vcpus = 8,\n"
	  "  mem_gib = 1, hourly = { 1, \"spec\", \"l\", date = \"2026\" }, price = 3 }\n",
	  "price" },
	{ "instance \"i\" { provider = \"p\", region = \"r\", shape = \"d\", vcpus = 8,\n"
	  "  mem_gib = 1, hourly = { 1, \"spec\", \"l\", date = \"2026\" },\n"
	  "  ebs = { iops = 2000 } }\n",
	  "instance 'i': ebs.iops" },
	{ "instance \"i\" { provider = \"p\", region = \"r\", shape = \"d\", vcpus = 8,\n"
	  "  mem_gib = 1, hourly = { 1, \"spec\", \"l\", date = \"2026\" },\n"
	  "  ebs = { iops = { 2000, \"spec\", \"t\" }, max_iops = { 1000, \"spec\", \"t\" },\n"
	  "          burst_s = { 60, \"spec\", \"t\" } } }\n",
	  "max_iops and max_mbps must not be below" },
	{ "instance \"i\" { provider = \"p\", region = \"r\", shape = \"d\", vcpus = 8,\n"
	  "  mem_gib = 1, hourly = { 1, \"spec\", \"l\", date = \"2026\" },\n"
	  "  ebs = { iops = { 2000, \"spec\", \"t\" }, max_iops = { 9000, \"spec\", \"t\" } } }\n",
	  "burst_s = goes with max_iops" },
	{ "instance \"i\" { provider = \"p\", region = \"r\", shape = \"d\", vcpus = 8,\n"
	  "  mem_gib = 1, hourly = { 1, \"spec\", \"l\", date = \"2026\" },\n"
	  "  ebs = { iops = { 2000, \"spec\", \"t\" }, gbps = 3 } }\n",
	  "unknown key 'ebs.gbps'" },
};

static void bad_files(void)
{
	for (size_t i = 0; i < TS_ARRAY_SIZE(bad); i++) {
		char name[32], err[1024] = "";
		snprintf(name, sizeof(name), "bad%zu.lua", i);
		struct ts_price_set *s = ts_price_set_new();
		const char *path = write_file(name, bad[i].text);
		int rc = ts_price_set_add_file(s, path, err, sizeof(err));
		if (rc != TS_E_PROFILE || !strstr(err, name) || !strstr(err, bad[i].want)) {
			fprintf(stderr, "bad file %zu: rc %d, '%s', want '%s'\n", i, rc, err,
				bad[i].want);
			tc_failures++;
		}
		ts_price_set_free(s);
	}
}

int main(void)
{
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	costs();
	config_cost();
	checked();
	bad_files();
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		fprintf(stderr, "could not remove %s\n", dir);
	return tc_exit();
}
