/*
 * price.h — price profiles: what an instance and a volume cost per hour,
 * as the tier profiles say what a disk does and the host profiles what a
 * CPU does. Reports turn them into dollars per hour, per epoch and for the
 * accelerator's idle time; advise ranks configurations by them.
 *
 * Profiles are data: cost/prices.lua (read with luadata/), declaring
 *
 *   instance "NAME" { provider =, region =, shape = "source", vcpus =, mem_gib =,
 *                     gpus =, gpu =, host =, local_disk = { tier =, count =, gib = },
 *                     ebs = EBS, hourly = PRICE }
 *   volume "NAME"   { provider =, region =, tiers = { "TIER", ... },
 *                     gib_month = PRICE, iops_month = PRICE, mibps_month = PRICE }
 *
 * with every price { VALUE, "spec"|"assumed", "source", date = "YYYY[-MM[-DD]]",
 * low = , high = [, included = N] [, steps = { { FROM, PRICE }, ... }] } in
 * US dollars (low and high required for assumed ones). A volume charges
 * per GiB-month of capacity, and per IOPS- and MiB/s-month of what its tier
 * provisions above included = at that capacity; steps lower the IOPS price
 * from FROM IOPS up (io2).
 *
 * EBS is the instance's own limits on its traffic to network volumes (AWS
 * "Amazon EBS-optimized instances"): { iops = N, mbps = N, max_iops = N,
 * max_mbps = N, burst_s = N }, each number in the evidence's value form
 * { VALUE, LABEL, "source" } (luadata.h); iops and mbps (MB/s, 10^6 bytes)
 * are the baseline, max_* the most it runs at while its burst lasts
 * (burst_s seconds from full; tier_base.h's struct ts_tier_ebs).
 */
#ifndef TS_COST_PRICE_H
#define TS_COST_PRICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "core/ts.h"
#include "luadata/luadata.h"
#include "tier/tier_base.h"

/* Hours in a month, the unit per-month prices are divided by: the AWS
 * Pricing Calculator's and Azure's monthly figure (365 x 24 / 12 = 730). */
#define TS_HOURS_PER_MONTH 730.0

enum ts_price_label { TS_PRICE_NONE, TS_PRICE_SPEC, TS_PRICE_ASSUMED };

#define TS_PRICE_STEPS 4

/* One labelled price, in dollars per its unit. */
struct ts_price {
	bool set;
	double v, low, high;
	enum ts_price_label label;
	char *what; /* the source: the list and its address, or why assumed */
	char *date; /* when the price held: "YYYY", "YYYY-MM" or "YYYY-MM-DD" */
	double included; /* iops_month, mibps_month: free up to this */
	int nsteps;	 /* iops_month: cheaper from steps[i].from IOPS up */
	struct {
		double from, v;
	} steps[TS_PRICE_STEPS];
};

struct ts_instance {
	char *name, *provider, *region, *shape, *gpu, *host, *where; /* where: "FILE:LINE" */
	int vcpus, gpus;
	double mem_gib;
	char *disk_tier; /* the local disks it comes with; NULL = none */
	int disk_count;
	double disk_gib;
	struct ts_instance_ebs { /* not set: not published */
		struct ts_ebs_num {
			bool set;
			double v;
			enum ts_luadata_label label;
			char *what;
		} iops, mbps, max_iops, max_mbps, burst_s;
	} ebs;
	struct ts_price hourly;
};

/* The EBS limits @in puts on the network volumes attached to it, as the
 * tier model takes them (all 0 when it publishes none). */
void ts_instance_ebs(const struct ts_instance *in, struct ts_tier_ebs *out);

struct ts_volume {
	char *name, *provider, *region, *where;
	char **tiers; /* the tier profiles it prices */
	size_t ntiers;
	struct ts_price gib_month, iops_month, mibps_month;
};

/* Which end of every price range to take. */
enum ts_price_end { TS_PRICE_NOMINAL, TS_PRICE_LOW, TS_PRICE_HIGH };

/* A cost at the nominal prices and at both ends. */
struct ts_cost_band {
	double v, low, high;
};

struct ts_price_set;

/* An empty set (NULL when out of memory), to add files to. */
struct ts_price_set *ts_price_set_new(void);
/* The built-in cost/prices.lua (found like the tier profiles). */
TS_WUR int ts_price_set_load_default(struct ts_price_set **out, char *err, size_t errlen);
/* Adds the instances and volumes of @path; a name already known is
 * replaced. A bad file is TS_E_PROFILE naming the file, line and field. */
TS_WUR int ts_price_set_add_file(struct ts_price_set *s, const char *path, char *err,
				 size_t errlen);
void ts_price_set_free(struct ts_price_set *s);

size_t ts_price_instance_count(const struct ts_price_set *s);
const struct ts_instance *ts_price_instance_at(const struct ts_price_set *s, size_t i);
size_t ts_price_volume_count(const struct ts_price_set *s);
const struct ts_volume *ts_price_volume_at(const struct ts_price_set *s, size_t i);

/* Instance @name; -ENOENT naming the known ones when it is none. */
TS_WUR int ts_price_instance(const struct ts_price_set *s, const char *name,
			     const struct ts_instance **out, char *err, size_t errlen);
/* The volume that prices tier @tier (the one added last where several
 * do), or NULL. */
const struct ts_volume *ts_price_volume_for_tier(const struct ts_price_set *s, const char *tier);

/* Checks the names the profiles give other profiles: every tier (a volume's
 * tiers, an instance's local disk) must satisfy @has_tier, every host
 * @has_host (either may be NULL: not checked). TS_E_PROFILE naming the
 * file, line and field otherwise. */
TS_WUR int ts_price_set_check(const struct ts_price_set *s, bool (*has_tier)(void *, const char *),
			      bool (*has_host)(void *, const char *), void *ctx, char *err,
			      size_t errlen);

struct ts_tier_set;
/* The built-in prices plus @extra (a user's file; NULL = none), checked
 * against the tier profiles of @tiers (NULL = the built-in ones) and the
 * host profiles (cost/load.c). */
TS_WUR int ts_price_load_checked(const char *extra, const struct ts_tier_set *tiers,
				 struct ts_price_set **out, char *err, size_t errlen);

/* @p at @end of its range. */
double ts_price_at(const struct ts_price *p, enum ts_price_end end);
/* @p (per IOPS-month, with its steps and included part) for @iops, per
 * month, at @end. 0 when @p is not set. */
double ts_price_iops_month(const struct ts_price *p, double iops, enum ts_price_end end);

/* What volume @v costs per hour at @gib GiB provisioning @iops and @mibps
 * (what its tier gives at that capacity; 0 = not charged), as a band. */
void ts_volume_hourly(const struct ts_volume *v, double gib, double iops, double mibps,
		      struct ts_cost_band *out);
/* The instance's hourly price as a band. */
void ts_instance_hourly(const struct ts_instance *in, struct ts_cost_band *out);

/* `tiersim prices`: one line per instance and volume; --evidence: one per
 * price with its label, date and source. */
TS_WUR int ts_price_print_table(FILE *f, const struct ts_price_set *s);
TS_WUR int ts_price_print_evidence(FILE *f, const struct ts_price_set *s);

#endif
