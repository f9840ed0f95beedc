/* scenario.c — the option tables of a scenario's sections (see scenario.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cost/price.h"
#include "scenario/scenario.h"

#define DS(f) offsetof(struct ts_scn_dataset, f)
const struct ts_opt ts_scn_dataset_opts[] = {
	{ "kind", TS_OPT_STR, DS(kind), "imagenet-jpeg", 0, 0, "",
	  "generated look-alike: a KIND of 'tiersim dataset make' (its --help lists them)" },
	{ "count", TS_OPT_U64, DS(count), "2000", 1, 0, "samples",
	  "samples to generate, in the kind's unit (images, words)" },
	{ "seed", TS_OPT_U64, DS(seed), "1", 0, 0, "", "generator seed" },
	{ "dir", TS_OPT_STR, DS(dir), "", 0, 0, "",
	  "an existing dataset directory (or .rec file) instead of a generated one" },
	{ "source", TS_OPT_STR, DS(source), "", 0, 0, "",
	  "loader source for dir: folder, rec, lmdb, text" },
	{ "encoded", TS_OPT_BOOL, DS(encoded), "false", 0, 0, "",
	  "store JPEG bytes in each Datum (convert_imageset --encoded)" },
	{ NULL },
};

#define MT(f) offsetof(struct ts_scn_mount, f)
const struct ts_opt ts_scn_mount_opts[] = {
	{ "tier", TS_OPT_STR, MT(tier), "ssd-cloud", 0, 0, "",
	  "tier profile (tiersim tiers), or none to read the dataset without tierfs" },
	{ "capacity", TS_OPT_SIZE, MT(capacity), "0", 0, 0, "bytes",
	  "disk size the tier's formulas use; 0 = the tier's default" },
	{ "mem", TS_OPT_SIZE, MT(mem), "0", 0, 0, "bytes",
	  "page-cache model size (the instance's memory for file data); 0 = tierfs default" },
	{ "own_mem", TS_OPT_SIZE, MT(own_mem), "0", 0, 0, "bytes",
	  "of mem, what the job holds itself (its process, buffers and batches, kernel memory: "
	  "'own' of tiersim disk run): the page-cache model gets mem less this; block mode's "
	  "cgroup is mem, and the kernel takes it out itself. 0 = assumed none" },
	{ "trace", TS_OPT_STR, MT(trace), "", 0, 0, "",
	  "record every request to this trace file (%t = tier name)" },
	{ "profile", TS_OPT_STR, MT(profile), "", 0, 0, "", "extra tier profile file" },
	{ "seed", TS_OPT_U64, MT(seed), "1", 0, 0, "", "tier model latency seed" },
	{ "cache", TS_OPT_STR, MT(cache), "cold", 0, 0, "",
	  "page-cache state when a run starts: cold (dropped, as MLPerf Storage's rules ask), "
	  "warm (the data the run reads resident up to mem, as a previous pass leaves it) or "
	  "written (resident and partly dirty, as a copy made just before leaves it)" },
	{ "fs", TS_OPT_STR, MT(fs), "", 0, 0, "",
	  "block mode in real time: ext4 or xfs, the dataset in an image of that file system on "
	  "a loop device over tierfs (tiersim disk), the loader in a memory cgroup of mem (needs "
	  "root); empty = tierfs over the dataset's folder" },
	{ "loop_hop", TS_OPT_BOOL, MT(loop_hop), "true", 0, 0, "",
	  "block mode: measure the loop device's hop at mount and take it off the tier model's "
	  "latency with FUSE's round trip, as a cloud VM's disk has no loop worker (tiersim disk "
	  "mount --loop-hop); false: leave it in" },
	TS_TIER_EBS_OPT_ROWS(MT),
	{ NULL },
};

void ts_scn_ebs(const struct ts_scn_mount *m, const struct ts_tier_profile *tier,
		struct ts_tier_ebs *out)
{
	memset(out, 0, sizeof(*out));
	if (!ts_tier_is_ebs(tier))
		return;
	ts_tier_ebs_of(&m->ebs, out);
}

#define RN(f) offsetof(struct ts_scn_run, f)
const struct ts_opt ts_scn_run_opts[] = {
	{ "iterations", TS_OPT_U64, RN(iterations), "20", 1, 0, "",
	  "measured iterations (batches)" },
	{ "epochs", TS_OPT_U64, RN(epochs), "0", 0, 0, "",
	  "whole epochs instead of iterations (0 = use iterations)" },
	{ "warmup", TS_OPT_U64, RN(warmup), "2", 0, 0, "",
	  "iterations run first and left out of the figures" },
	{ "label", TS_OPT_STR, RN(label), "", 0, 0, "", "row name in the report" },
	{ NULL },
};

const struct ts_opt ts_scn_preprocess_opts[] = {
	{ "resize", TS_OPT_U64, RN(resize), "256", 8, 4096, "pixels",
	  "images are stored resized to resize x resize (convert_imageset --resize_*)" },
	{ "encoded", TS_OPT_BOOL, RN(encoded), "false", 0, 0, "",
	  "store the re-encoded JPEG instead of raw pixels (convert_imageset --encoded)" },
	{ "txn", TS_OPT_U64, RN(txn), "1000", 1, 0, "", "puts per LMDB transaction" },
	{ "host", TS_OPT_STR, RN(host), "", 0, 0, "",
	  "host profile whose CPU costs --virtual charges: NAME or NAME/LIBRARY ('tiersim "
	  "hosts'); default pipeline{}'s host" },
	{ "label", TS_OPT_STR, RN(label), "", 0, 0, "", "row name in the report" },
	{ NULL },
};

const struct ts_opt ts_scn_instance_opts[] = {
	{ "name", TS_OPT_STR, offsetof(struct ts_scn_instance, name), "", 0, 0, "",
	  "instance the run is priced as, taking its vCPUs, memory, GPUs and host profile "
	  "(tiersim prices); \"\" = none" },
	{ NULL },
};

const struct ts_opt *ts_scn_section(struct ts_scenario *s, const char *name, void **base)
{
	if (!strcmp(name, "instance")) {
		*base = &s->inst;
		return ts_scn_instance_opts;
	}
	if (!strcmp(name, "dataset")) {
		*base = &s->ds;
		return ts_scn_dataset_opts;
	}
	if (!strcmp(name, "mount")) {
		*base = &s->mnt;
		return ts_scn_mount_opts;
	}
	if (!strcmp(name, "pipeline")) {
		*base = &s->pipe;
		return ts_pipe_opts;
	}
	if (!strcmp(name, "engine")) {
		*base = &s->eng;
		return ts_engine_opts;
	}
	return NULL;
}

static const char *const sections[] = { "instance", "dataset", "mount", "pipeline", "engine" };

int ts_scn_apply_instance(struct ts_scenario *s, const struct ts_instance *in, char *err,
			  size_t errlen)
{
	char v[64], mem[64];
	snprintf(v, sizeof(v), "%d", in->vcpus);
	snprintf(mem, sizeof(mem), "%.0fMiB", in->mem_gib * 1024);
	char gpus[16];
	snprintf(gpus, sizeof(gpus), "%d", in->gpus > 0 ? in->gpus : 1);
	struct ts_tier_ebs e;
	ts_instance_ebs(in, &e);
	char ebs[5][32];
	snprintf(ebs[0], sizeof(ebs[0]), "%.17g", e.iops);
	snprintf(ebs[1], sizeof(ebs[1]), "%.17g", e.max_iops);
	snprintf(ebs[2], sizeof(ebs[2]), "%.17g", e.bps / 1e6);
	snprintf(ebs[3], sizeof(ebs[3]), "%.17g", e.max_bps / 1e6);
	snprintf(ebs[4], sizeof(ebs[4]), "%.0fns", e.burst_s * 1e9);
	const struct {
		const char *sec, *key, *val;
	} set[] = {
		{ "pipeline", "vcpus", v },
		{ "mount", "mem", mem },
		{ "engine", "gpus", gpus },
		{ "engine", "gpu", in->gpu },
		{ "pipeline", "host", in->host },
		{ "mount", "ebs_iops", ebs[0] },
		{ "mount", "ebs_max_iops", ebs[1] },
		{ "mount", "ebs_mbps", ebs[2] },
		{ "mount", "ebs_max_mbps", ebs[3] },
		{ "mount", "ebs_burst", ebs[4] },
	};
	for (size_t i = 0; i < TS_ARRAY_SIZE(set); i++) {
		if (!set[i].val)
			continue;
		void *base;
		const struct ts_opt *tab = ts_scn_section(s, set[i].sec, &base);
		char sub[512];
		int rc = ts_opt_set(tab, base, set[i].key, set[i].val, sub, sizeof(sub));
		if (rc) {
			snprintf(err, errlen, "instance '%s' (%s): %s.%s: %s", in->name, in->where,
				 set[i].sec, set[i].key, sub);
			return rc;
		}
	}
	return 0;
}

int ts_scn_defaults(struct ts_scenario *s, char *err, size_t errlen)
{
	for (size_t i = 0; i < TS_ARRAY_SIZE(sections); i++) {
		void *base;
		const struct ts_opt *tab = ts_scn_section(s, sections[i], &base);
		int rc = ts_opt_defaults(tab, base, err, errlen);
		if (rc)
			return rc;
	}
	return 0;
}

void ts_scn_free(struct ts_scenario *s)
{
	for (size_t i = 0; i < TS_ARRAY_SIZE(sections); i++) {
		void *base;
		const struct ts_opt *tab = ts_scn_section(s, sections[i], &base);
		ts_opt_free(tab, base);
	}
}

int ts_scn_copy(struct ts_scenario *dst, const struct ts_scenario *src)
{
	memset(dst, 0, sizeof(*dst));
	struct ts_scenario *s = (struct ts_scenario *)src;
	for (size_t i = 0; i < TS_ARRAY_SIZE(sections); i++) {
		void *sb, *db;
		const struct ts_opt *tab = ts_scn_section(s, sections[i], &sb);
		ts_scn_section(dst, sections[i], &db);
		if (ts_opt_copy(tab, db, sb)) {
			ts_scn_free(dst);
			return -ENOMEM;
		}
	}
	return 0;
}

bool ts_scn_cache_known(const char *cache)
{
	return cache && (!strcmp(cache, "cold") || !strcmp(cache, "warm") ||
			 !strcmp(cache, "written"));
}

int ts_scn_page_cache(const struct ts_scn_mount *m, uint64_t *out, char *err, size_t errlen)
{
	*out = m->mem;
	if (!m->own_mem)
		return 0;
	if (!m->mem || m->own_mem >= m->mem) {
		snprintf(err, errlen,
			 "mount: own_mem = %llu bytes needs a larger mem (%llu bytes): it is the "
			 "part of mem the job holds itself, the page cache gets the rest",
			 (unsigned long long)m->own_mem, (unsigned long long)m->mem);
		return -EINVAL;
	}
	*out = m->mem - m->own_mem;
	return 0;
}
