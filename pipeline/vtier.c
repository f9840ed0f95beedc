/* vtier.c — the tier model as a virtual run's disk (see vtier.h). */
#include <stdio.h>
#include <string.h>

#include "pipeline/host.h"
#include "pipeline/loader.h"
#include "pipeline/timeline.h"
#include "pipeline/vtier.h"

int ts_vtier_new(struct ts_vtier *m, const struct ts_tier_cfg *cfg, int band_end, char *err,
		 size_t errlen)
{
	memset(m, 0, sizeof(*m));
	m->profile = cfg->profile;
	struct ts_tier_cfg tc = *cfg;
	if (band_end) {
		ts_tier_profile_band(m->profile, band_end, &m->banded, NULL, 0);
		tc.profile = &m->banded;
	}
	return ts_tier_new(&tc, &m->tier, err, errlen);
}

uint64_t ts_vtier_submit(struct ts_vtier *m, uint64_t now, enum ts_tier_op op, uint64_t file,
			 uint64_t off, uint64_t len, uint64_t size)
{
	struct ts_tier_req rq = { .op = op, .file = file, .off = off, .len = len, .size = size };
	struct ts_tier_done d;
	memset(&d, 0, sizeof(d));
	uint64_t t = ts_tier_submit(m->tier, now, &rq, &d);
	if (op == TS_TIER_READ) {
		m->read_bytes += len;
		m->hit_bytes += d.hit_bytes;
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

uint64_t ts_vtier_vio(void *ctx, uint64_t now_ns, const struct ts_vio *io)
{
	enum ts_tier_op op = io->op == TS_VIO_META ? TS_TIER_META : TS_TIER_READ;
	return ts_vtier_submit(ctx, now_ns, op, io->file, io->off, io->len, io->size);
}

void ts_vtier_warm(void *ctx, const struct ts_vio *io, bool dirty)
{
	struct ts_vtier *m = ctx;
	ts_tier_warm(m->tier, 0, io->file, io->off, io->len, dirty);
}

void ts_vtier_free(struct ts_vtier *m)
{
	if (m->tier)
		ts_tier_free(m->tier);
	m->tier = NULL;
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
