/*
 * vtier.h — the tier model as the disk of a virtual-time run: the same
 * model tierfs drives with the real clock (tier/tier.h), fed the virtual
 * loader's requests (struct ts_vdisk) or a virtual conversion's, counting
 * what was read, hit and written. Scenarios (mount{}) and DLIO runs build
 * their virtual disks with it.
 */
#ifndef TS_VTIER_H
#define TS_VTIER_H

#include "tier/tier.h"
#include "pipeline/decode.h"
#include "pipeline/vpipe.h"

struct ts_vtier {
	struct ts_tier *tier;
	const struct ts_tier_profile *profile;
	struct ts_tier_profile banded; /* at a band end (--band), when one is asked for */
	uint64_t read_bytes, hit_bytes, write_bytes;
	uint64_t nowait_bytes;	 /* read bytes served from memory without waiting on the device */
	uint64_t dev_read_bytes; /* bytes the device read (readahead and metadata included) */
	uint64_t dev_reads;	 /* the device's read requests for them */
	struct ts_tl_proc *tl; /* every request on the tier tracks (timeline.h); NULL = none */
	struct ts_fsmeta *meta; /* the file system's metadata reads (tier/fsmeta.h) */
	const struct ts_fsmeta_params *fs; /* its layout (ts_tier_set_fs) */
	/* Folders a file was looked up in (a META request's two lookups,
	 * the folder's and the file's, made once in full), direct-mapped
	 * by folder id: every later lookup in one is the file's inode alone
	 * (ts_fsmeta_inode; the metadata model only ever adds what it
	 * has read, so the folder's part reads nothing again). */
	struct ts_vtier_dir *dirs;
	/* The model's clock less the run's: a run starts at 0 on its own
	 * clock; a model kept from a run before it (a scenario's cache =
	 * "warm", scenario/runner.c) goes on from where that run left it,
	 * base_ns on. end_ns: the latest completion the model returned, on
	 * its own clock. */
	uint64_t base_ns, end_ns;
};

/* The model of @cfg (its profile, capacity, page-cache size and seed)
 * holding file system @fs (tier/fsmeta.h; must outlive the model); with
 * @band_end -1 or +1 (--band), the profile at the slow or fast end of its
 * ranges. */
struct ts_fsmeta_params;
TS_WUR int ts_vtier_new(struct ts_vtier *m, const struct ts_tier_cfg *cfg,
			const struct ts_fsmeta_params *fs, int band_end, char *err,
			size_t errlen);
uint64_t ts_vtier_submit(struct ts_vtier *m, uint64_t now, enum ts_tier_op op, uint64_t file,
			 uint64_t off, uint64_t len, uint64_t size);
/* The same for a request of any kind (a mapped read: req->mapped). */
uint64_t ts_vtier_submit_req(struct ts_vtier *m, uint64_t now, const struct ts_tier_req *req);
/* struct ts_vdisk's submit and warm, @ctx a struct ts_vtier. */
uint64_t ts_vtier_vio(void *ctx, uint64_t now_ns, const struct ts_vio *io);
void ts_vtier_warm(void *ctx, const struct ts_vio *io, bool dirty);
/* struct ts_vdisk's prefetch: the page-cache model's and the metadata
 * rule's records of what @io will look up. */
void ts_vtier_prefetch(void *ctx, const struct ts_vio *io);
void ts_vtier_free(struct ts_vtier *m);
/* The model kept for a next run that starts on its own clock at 0: its
 * clock goes on from the later of the run's end (@run_end_ns, on the
 * run's clock) and the last completion it returned; its state (page-cache
 * model, queues, burst credits, metadata read) stays as the run left it. */
void ts_vtier_continue(struct ts_vtier *m, uint64_t run_end_ns);

/* The decode calibration a virtual run charges: the host profile @host
 * (pipeline/host.h) when it names one, else @want or the default file; a
 * missing one says how to make it. */
TS_WUR int ts_vtier_load_cal(struct ts_decode_cal *cal, const char *want, const char *host,
			     int band_end, char *err, size_t errlen);

#endif
