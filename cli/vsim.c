/* vsim.c — configurations predicted in virtual time (see vsim.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"
#include "vsim.h"
#include "vtier.h"

/* convert_imageset in virtual time: one thread reads each JPEG (open +
 * read), decodes and resizes it (the calibrated cost), puts the Datum, and
 * every txn puts commits: the dirty pages are written and synced. */
static int exec_preprocess(struct ts_runner *R, struct ts_scenario *s,
			   const struct ts_scn_run *run, struct ts_row *w,
			   const struct ts_dataset_place *dp, char *err, size_t errlen)
{
	const struct ts_dataset_meta *meta = &dp->meta;
	if (dp->kind != TS_DS_IMAGENET_JPEG) {
		snprintf(err, errlen, "preprocess{} converts JPEG folders: use dataset{kind = "
				      "\"imagenet-jpeg\"}");
		return -EINVAL;
	}
	struct ts_vtier m;
	struct ts_decode_cal cal;
	int rc = ts_vtier_new(R, s, &m, err, errlen);
	if (rc)
		return rc;
	if ((rc = ts_vtier_load_cal(&cal, s->pipe.calibration, err, errlen))) {
		ts_tier_free(m.tier);
		return rc;
	}
	const uint64_t out_file = 1; /* data.mdb */
	uint64_t datum = (uint64_t)run->resize * run->resize * 3 + 32; /* pixels + fields */
	uint64_t now = 0, io = 0, out_off = 0, pending = 0, since = 0;
	struct ts_rng rng;
	ts_rng_seed(&rng, s->mnt.seed);
	uint64_t n = meta->count;
	for (uint64_t k = 0; k < n; k++) {
		if (ts_runner_interrupted) {
			ts_tier_free(m.tier);
			return -EINTR;
		}
		uint64_t j = ts_rng_below(&rng, n); /* --shuffle: any order reads alike */
		uint64_t t = ts_vtier_submit(&m, now, TS_TIER_META, j + 2, 0, 0, 0);
		t = ts_vtier_submit(&m, t, TS_TIER_READ, j + 2, 0, meta->bytes[j], meta->bytes[j]);
		io += t - now;
		now = t + ts_decode_cal_ns(&cal, meta->width[j], meta->height[j]);
		pending += datum;
		if (++since == run->txn || k + 1 == n) {
			uint64_t c = ts_vtier_submit(&m, now, TS_TIER_WRITE, out_file, out_off, pending, 0);
			c = ts_vtier_submit(&m, c, TS_TIER_FDATASYNC, out_file, 0, 0, 0);
			io += c - now;
			now = c;
			out_off += pending;
			pending = 0;
			since = 0;
		}
	}
	double secs = (double)now / 1e9;
	w->iterations = n;
	w->batch = 1;
	w->samples = n;
	w->time_s = secs;
	w->samples_per_s = secs > 0 ? (double)n / secs : NAN;
	w->stall_pct = now ? 100.0 * (double)io / (double)now : NAN;
	w->bytes_read = m.read_bytes;
	w->bytes_written = m.write_bytes;
	w->read_mb_s = secs > 0 ? (double)m.read_bytes / 1e6 / secs : NAN;
	w->write_mb_s = secs > 0 ? (double)m.write_bytes / 1e6 / secs : NAN;
	w->cache_hit_pct = m.read_bytes ? 100.0 * (double)m.hit_bytes / (double)m.read_bytes : NAN;
	char tdesc[256], parts[768];
	ts_runner_tier_desc(s, "tier model virtual", tdesc, sizeof(tdesc));
	snprintf(parts, sizeof(parts), "%s, convert_imageset modeled (1 thread; decode + resize "
				       "%llux%llu at the calibrated %.0f images/s/core on %s), no GPU",
		 tdesc, (unsigned long long)run->resize, (unsigned long long)run->resize,
		 cal.full_ips, cal.cpu);
	ts_tier_free(m.tier);
	return ts_row_set_str(&w->parts, parts);
}

int ts_vsim_exec(struct ts_runner *R, struct ts_scenario *s, enum ts_action act,
		 const struct ts_scn_run *run, struct ts_row *w, char *err, size_t errlen)
{
	struct ts_dataset_place dp;
	memset(&dp, 0, sizeof(dp));
	int rc = ts_runner_place(R, s, &dp, false, err, errlen);
	if (rc)
		return rc;
	if (!dp.have_meta) {
		snprintf(err, errlen, "--virtual predicts generated datasets (dataset{kind=...}); "
				      "an existing directory runs in real time");
		ts_runner_place_free(&dp);
		return -EINVAL;
	}
	rc = exec_preprocess(R, s, run, w, &dp, err, errlen);
	ts_runner_place_free(&dp);
	return rc;
}
