/*
 * scenario.h — what a scenario configures, section by section. Each
 * section is a plain struct driven by an option table (core/opt.h), so the
 * Lua calls, command-line overrides ("engine.batch=32"), validation and the
 * report's configuration columns all come from one place. The pipeline and
 * engine sections are the loader's and the engine's own configurations
 * (ts_pipe_opts, ts_engine_opts); the runner fills in what follows from the
 * other sections (the loader's path and batch size).
 */
#ifndef TS_SCENARIO_H
#define TS_SCENARIO_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/engine.h"
#include "core/opt.h"
#include "pipeline/loader.h"
#include "tier/tier_base.h"

/* dataset{}: a generated look-alike or an existing directory. */
struct ts_scn_dataset {
	char *kind;	/* a dataset kind (ts_dataset_find: imagenet-jpeg, ...) */
	uint64_t count; /* samples, in the kind's unit (images, words) */
	uint64_t seed;
	char *dir;	/* an existing dataset instead of a generated one */
	char *source;	/* loader source for @dir: folder | rec | lmdb | text */
	bool encoded;	/* imagenet-lmdb: Datums hold the JPEG, not pixels */
};

/* mount{}: the tierfs mount the dataset is read through. */
struct ts_scn_mount {
	char *tier;	   /* a tier name (tiersim tiers), or "none" for no mount */
	uint64_t capacity; /* bytes; 0 = the tier's default */
	uint64_t mem;	   /* page-cache model size; 0 = tierfs's default */
	uint64_t own_mem;  /* of mem, what the job holds itself (not page cache) */
	char *trace;	   /* record a trace here ("" = none); %t = tier name */
	char *profile;	   /* extra tier profile file */
	uint64_t seed;
	char *cache;	   /* page-cache state at the start: cold | warm | written */
	char *fs;	   /* "" = FUSE mode; ext4 | xfs = block mode (disk/disk.h) */
	bool loop_hop;	   /* block mode: the loop device's hop measured and taken off */
	/* The instance's EBS limits (tier/tier_base.h, struct ts_tier_ebs), set
	 * by instance{}: an aws-* tier's traffic is capped by them in virtual
	 * time and, through tierfs's ebs_* options, on a real mount; 0 = none.
	 * MB/s are 10^6 bytes. */
	struct ts_tier_ebs_opts ebs;
};

/* The EBS limits mount{} puts on @tier (none unless it is an aws-* tier). */
void ts_scn_ebs(const struct ts_scn_mount *m, const struct ts_tier_profile *tier,
		struct ts_tier_ebs *out);

/* The page-cache model's size for @m: mem less the job's own memory (0 =
 * tierfs's default); -EINVAL with one line in @err when own_mem leaves
 * none. */
TS_WUR int ts_scn_page_cache(const struct ts_scn_mount *m, uint64_t *out, char *err,
			     size_t errlen);

/* run{}: how long to measure. */
struct ts_scn_run {
	uint64_t iterations; /* measured iterations */
	uint64_t epochs;     /* or whole epochs (overrides iterations) */
	uint64_t warmup;     /* iterations run first and left out of the figures */
	char *label;	     /* the row's name; "" = made from the swept keys */
	uint64_t resize;     /* preprocess{}: side of the square images stored */
	bool encoded;	     /* preprocess{}: store the JPEG bytes, not pixels */
	uint64_t txn;	     /* preprocess{}: puts per LMDB transaction */
	char *host;	     /* preprocess{}: host profile charged; "" = pipeline{}'s */
};

/* instance{}: the machine the run is priced as (cost/prices.lua). Setting
 * it sets the vCPUs, memory, GPUs and host profile from its profile. */
struct ts_scn_instance {
	char *name; /* an instance of tiersim prices; "" = none */
};

struct ts_scenario {
	struct ts_scn_instance inst;
	struct ts_scn_dataset ds;
	struct ts_scn_mount mnt;
	struct ts_pipe_cfg pipe;
	struct ts_engine_cfg eng;
};

extern const struct ts_opt ts_scn_dataset_opts[];
extern const struct ts_opt ts_scn_mount_opts[];
extern const struct ts_opt ts_scn_run_opts[];
extern const struct ts_opt ts_scn_instance_opts[];
extern const struct ts_opt ts_scn_preprocess_opts[];

/* A section by name ("instance", "dataset", "mount", "pipeline", "engine"): its table
 * and where it lives in @s. NULL when unknown. */
const struct ts_opt *ts_scn_section(struct ts_scenario *s, const char *name, void **base);

TS_WUR int ts_scn_defaults(struct ts_scenario *s, char *err, size_t errlen);
void ts_scn_free(struct ts_scenario *s);
/* Is @cache a page-cache state mount{cache=...} takes? */
bool ts_scn_cache_known(const char *cache);
struct ts_instance;
/* Sets what @in brings: pipeline.vcpus, mount.mem, engine.gpus and
 * engine.gpu, pipeline.host and mount.ebs_* (its EBS limits, 0 where it
 * publishes none). (A run on its local disk's tier is sized
 * as one of its disks by the runner.) */
TS_WUR int ts_scn_apply_instance(struct ts_scenario *s, const struct ts_instance *in, char *err,
				 size_t errlen);
/* Deep copy (strings duplicated); @dst must be free or zeroed. */
TS_WUR int ts_scn_copy(struct ts_scenario *dst, const struct ts_scenario *src);


#endif
