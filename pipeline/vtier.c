/* vtier.c — the tier model as a virtual run's disk (see vtier.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline/host.h"
#include "pipeline/loader.h"
#include "pipeline/timeline.h"
#include "pipeline/vtier.h"
#include "tier/fsmeta.h"

/* A folder of struct ts_vtier's dirs: its request's fields the two
 * lookups depend on (meta_nodes); ino 0: an empty slot. */
struct ts_vtier_dir {
	uint64_t dir, ino;
	uint32_t blocks, top_blocks;
};
#define NDIRS 4096 /* slots (ImageNet has 1,000 folders; a collision only costs a lookup) */
_Static_assert(NDIRS == 1 << 12, "dir_slot takes the hash's top 12 bits");

int ts_vtier_new(struct ts_vtier *m, const struct ts_tier_cfg *cfg,
		 const struct ts_fsmeta_params *fs, int band_end, char *err, size_t errlen)
{
	memset(m, 0, sizeof(*m));
	m->profile = cfg->profile;
	m->fs = fs;
	struct ts_tier_cfg tc = *cfg;
	tc.serial = true; /* the run's one thread drives it */
	tc.no_qd = true;  /* nor does it read the queue depth */
	if (band_end) {
		ts_tier_profile_band(m->profile, band_end, &m->banded, NULL, 0);
		tc.profile = &m->banded;
	}
	int rc = ts_tier_new(&tc, &m->tier, err, errlen);
	if (!rc && ((rc = ts_fsmeta_new(fs, &m->meta)) ||
		    !(m->dirs = calloc(NDIRS, sizeof(*m->dirs))))) {
		rc = rc ? rc : -ENOMEM;
		snprintf(err, errlen, "tier model: out of memory");
		ts_vtier_free(m);
	} else if (!rc) {
		struct ts_tier_limits lim;
		ts_tier_limits(m->tier, &lim);
		ts_fsmeta_set_capacity(m->meta, lim.capacity); /* tier/fsmeta.h */
		ts_fsmeta_serial(m->meta);
	}
	return rc;
}

uint64_t ts_vtier_submit(struct ts_vtier *m, uint64_t now, enum ts_tier_op op, uint64_t file,
			 uint64_t off, uint64_t len, uint64_t size)
{
	return ts_vtier_submit_req(m, now, &(struct ts_tier_req){ .op = op, .file = file,
								 .off = off, .len = len,
								 .size = size });
}

uint64_t ts_vtier_submit_req(struct ts_vtier *m, uint64_t now, const struct ts_tier_req *req)
{
	/* metadata reads bypass the page-cache model: the file-system rule
	 * keeps them (tier/fsmeta.h); a copy only for them (a data read's
	 * copy, read right after its caller wrote it, stalled on the stores) */
	struct ts_tier_req rq;
	if (req->file == TS_FSMETA_FILE && !req->direct) {
		rq = *req;
		rq.direct = true;
		req = &rq;
	}
	enum ts_tier_op op = req->op;
	uint64_t file = req->file, off = req->off, len = req->len;
	struct ts_tier_done d; /* ts_tier_submit sets all of it */
	uint64_t t = ts_tier_submit(m->tier, now + m->base_ns, req, &d);
	m->end_ns = TS_MAX(m->end_ns, t);
	t -= m->base_ns;
	if (op == TS_TIER_READ) {
		m->dev_read_bytes += d.dev_bytes;
		m->dev_reads += d.dev_reqs;
	}
	if (op == TS_TIER_READ && file != TS_FSMETA_FILE) { /* the job's bytes */
		m->read_bytes += len;
		m->hit_bytes += d.hit_bytes;
		if (d.bound == TS_TIER_BOUND_MEMORY)
			m->nowait_bytes += len;
	} else if (op == TS_TIER_WRITE) {
		m->write_bytes += len;
	}
	if (m->tl) {
		struct ts_tl_arg a[] = { { "file", (int64_t)file }, { "offset", (int64_t)off },
					 { "bytes", (int64_t)len }, { "hit_bytes", (int64_t)d.hit_bytes } };
		ts_tl_slice_lane(m->tl, TS_TL_TIER, ts_tier_op_name(op), now, t, a,
				 TS_ARRAY_SIZE(a));
	}
	return t;
}

/* The metadata reads of @n lookups, one after the other, as a path walk
 * (a split read's requests at once; readahead sent with the read after
 * it and not waited for: tier/fsmeta.h). */
static uint64_t meta_reads(struct ts_vtier *m, uint64_t now, const struct ts_fsmeta_io *io,
			   unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		uint64_t each = io[i].split ? io[i].split : io[i].len, end = now;
		for (uint64_t o = 0; o < io[i].len; o += each) {
			uint64_t e = ts_vtier_submit(m, now, TS_TIER_READ, TS_FSMETA_FILE,
						     io[i].off + o, TS_MIN(each, io[i].len - o), 0);
			end = TS_MAX(end, e);
		}
		if (!io[i].ahead)
			now = end;
	}
	return now;
}

/* The nodes a META request looks up: the folder in the one above it, then
 * the file in it. */
static void meta_nodes(const struct ts_vio *io, struct ts_fsmeta_node n[3])
{
	n[0] = (struct ts_fsmeta_node){ UINT64_MAX, 2, io->top_blocks };
	n[1] = (struct ts_fsmeta_node){ io->dir, io->dir_ino, io->dir_blocks };
	n[2] = (struct ts_fsmeta_node){ io->file, io->ino, 0 };
}

/* The slot of @io's folder in m->dirs, and whether it holds that folder
 * (every field the two lookups read of it: meta_nodes). */
static struct ts_vtier_dir *dir_slot(const struct ts_vtier *m, const struct ts_vio *io)
{
	return &m->dirs[(io->dir * 0x9e3779b97f4a7c15ULL) >> 52];
}

static bool dir_seen(const struct ts_vtier_dir *d, const struct ts_vio *io)
{
	return d->ino && d->dir == io->dir && d->ino == io->dir_ino &&
	       d->blocks == io->dir_blocks && d->top_blocks == io->top_blocks;
}

uint64_t ts_vtier_vio(void *ctx, uint64_t now_ns, const struct ts_vio *io)
{
	struct ts_vtier *m = ctx;
	struct ts_fsmeta_io mio[TS_FSMETA_MAX_IO];
	unsigned n = 0;

	if (io->op == TS_VIO_META && io->ino && m->meta) {
		struct ts_vtier_dir *d = dir_slot(m, io);
		if (dir_seen(d, io)) {
			struct ts_fsmeta_node f = { io->file, io->ino, 0, false };
			n = ts_fsmeta_inode(m->meta, &f, mio, TS_FSMETA_MAX_IO);
		} else {
			struct ts_fsmeta_node nd[3];
			meta_nodes(io, nd);
			n = ts_fsmeta_lookup(m->meta, &nd[0], &nd[1], mio, TS_FSMETA_MAX_IO);
			n += ts_fsmeta_lookup(m->meta, &nd[1], &nd[2], mio + n,
					      TS_FSMETA_MAX_IO - n);
			if (io->dir_ino)
				*d = (struct ts_vtier_dir){ io->dir, io->dir_ino, io->dir_blocks,
							    io->top_blocks };
		}
		return n ? meta_reads(m, now_ns, mio, n) : now_ns;
	}
	if (io->op == TS_VIO_META)
		return ts_vtier_submit(m, now_ns, TS_TIER_META, io->file, io->off, io->len, io->size);
	if (m->meta && (n = ts_fsmeta_extent(m->meta, io->file, io->size, io->off, mio,
					     TS_FSMETA_MAX_IO)))
		now_ns = meta_reads(m, now_ns, mio, n);
	return ts_vtier_submit_req(m, now_ns,
				   &(struct ts_tier_req){ .op = TS_TIER_READ, .file = io->file,
							  .off = io->off, .len = io->len,
							  .size = io->size, .mapped = io->mapped,
							  .tail_first = io->tail_first,
							  .map_window_ns = io->map_window_ns });
}

void ts_vtier_prefetch(void *ctx, const struct ts_vio *io)
{
	struct ts_vtier *m = ctx;
	if (io->op == TS_VIO_META && io->ino && m->meta) {
		/* The folder's own lookup in the one above is shared by all of
		 * its files: in cache; the file's in the folder is not. */
		struct ts_fsmeta_node nd[3];
		meta_nodes(io, nd);
		ts_fsmeta_prefetch(m->meta, dir_seen(dir_slot(m, io), io) ? NULL : &nd[1], &nd[2]);
	} else {
		ts_tier_prefetch(m->tier, io->file, io->off);
	}
}

void ts_vtier_warm(void *ctx, const struct ts_vio *io, bool dirty)
{
	struct ts_vtier *m = ctx;
	ts_tier_warm(m->tier, 0, io->file, io->off, io->len, dirty);
}

void ts_vtier_continue(struct ts_vtier *m, uint64_t run_end_ns)
{
	m->base_ns = TS_MAX(m->base_ns + run_end_ns, m->end_ns);
}

void ts_vtier_free(struct ts_vtier *m)
{
	if (m->tier)
		ts_tier_free(m->tier);
	m->tier = NULL;
	ts_fsmeta_free(m->meta);
	m->meta = NULL;
	free(m->dirs);
	m->dirs = NULL;
}

int ts_vtier_load_cal(struct ts_decode_cal *cal, const char *want, const char *host,
		      int band_end, char *err, size_t errlen)
{
	/* --band: a host profile's ranged costs at the same end as the
	 * tier's (slow: the slow end of every range). */
	enum ts_host_end end = band_end < 0 ? TS_HOST_SLOW
			       : band_end > 0 ? TS_HOST_FAST
					      : TS_HOST_NOMINAL;
	char sub[768];
	int rc = ts_pipe_cal_load(want, host, end, cal, NULL, 0, sub, sizeof(sub));
	if (rc)
		snprintf(err, errlen, "--virtual charges the decode cost per image: %s", sub);
	return rc;
}
