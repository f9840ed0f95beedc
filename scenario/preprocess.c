/*
 * preprocess.c — the preprocessing job (preprocess{}): Caffe's
 * convert_imageset from a JPEG tree to an LMDB on the same disk, for real
 * through a tierfs mount (scenario/convert.c) or in virtual time over the tier
 * model; both follow one sequence of steps (pipeline/convsteps.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/interrupt.h"
#include "scenario/convert.h"
#include "pipeline/convsteps.h"
#include "pipeline/datum.h"
#include "pipeline/host.h"
#include "pipeline/source.h"
#include "core/files.h"
#include "scenario/job.h"
#include "scenario/jobs.h"
#include "pipeline/vtier.h"

static void convert_progress(void *ctx, const char *what, uint64_t done, uint64_t total,
			     double ips, double el)
{
	ts_job_progress(ctx, what, done, total, ips, el);
}

/* Room for an LMDB of @dp's images resized to @side, on @lv's image: a raw
 * Datum (3 x side^2 and its header) and a page of keys and branch entries
 * per image, and 64 MiB for the meta pages and what a transaction frees
 * only at its commit (the bound convert.c gives LMDB's map, halved: one
 * copy). The images are the dataset's count where it has one, else the
 * files of its tree, counted by the walk that sizes the image. */
static void lmdb_room(const struct ts_dataset_place *dp, int side, struct live *lv)
{
	uint64_t per_image = 3 * (uint64_t)side * (uint64_t)side + 4096;
	lv->room = ((uint64_t)1 << 26) + (dp->have_meta ? dp->meta.count * per_image : 0);
	lv->room_per_file = dp->have_meta ? 0 : per_image;
}

/*
 * Why one long function: one sequence of set-up steps (dataset placed,
 * output folder, mount, the conversion, the row), each failure leaving
 * through the one cleanup (out:) that ends the mount and removes the output.
 */
static int preprocess_real(struct ts_job_env *env, const struct ts_job_args *a, struct ts_row *w,
			   char *err, size_t errlen)
{
	struct ts_scenario *s = a->s;
	const char *tier = a->tier;
	const struct ts_scn_run *run = a->run;
	struct ts_dataset_place dp;
	struct live lv;
	char host_out[PATH_MAX * 2] = ""; /* what the conversion wrote, on the host */
	memset(&lv, 0, sizeof(lv));
	int rc = ts_job_place(env, s, &dp, true, err, errlen);
	if (rc)
		return rc;
	if (strcmp(dp.source, "folder")) {
		snprintf(err, errlen, "preprocess{} converts JPEG folders: use dataset{kind = "
				      "\"imagenet-jpeg\"} (or dir = ..., source = \"folder\")");
		ts_job_place_free(&dp);
		return -EINVAL;
	}
	/* The output goes beside the input on the same (emulated) disk. */
	char outrel[PATH_MAX];
	if (dp.generated)
		snprintf(outrel, sizeof(outrel), "scratch/run-%d/convert-%u", (int)getpid(),
			 a->nrun);
	else
		snprintf(outrel, sizeof(outrel), ".tiersim-convert-%d-%u", (int)getpid(), a->nrun);
	if (ts_pathf(host_out, sizeof(host_out), "%s/%s", dp.backing, outrel)) {
		snprintf(err, errlen, "dataset path under %s is too long", dp.backing);
		rc = -ENAMETOOLONG;
		goto out;
	}
	/* The output's parent exists before the mount shows it. */
	char parent[PATH_MAX * 2];
	snprintf(parent, sizeof(parent), "%s", host_out);
	*strrchr(parent, '/') = 0;
	if ((rc = ts_mkdir_p(parent, 0755, NULL, 0))) {
		snprintf(err, errlen, "cannot create %s: %s", parent, ts_strerror(rc));
		host_out[0] = 0;
		goto out;
	}
	char mdesc[256];
	/* Block mode: the LMDB fits on the image beside its input (2x the
	 * input + 64 MiB leaves too little for raw Datums, which are larger
	 * than the JPEGs; a full ext4 made LMDB's writes short, an "I/O
	 * error" at commit). */
	if (s->mnt.fs && *s->mnt.fs)
		lmdb_room(&dp, run->resize, &lv);
	if ((rc = ts_job_live_mount(env, s, tier, &dp, &lv, mdesc, sizeof(mdesc), err, errlen)))
		goto out;

	struct ts_convert_cfg cc = {
		.resize = (unsigned)run->resize,
		.encoded = run->encoded,
		.txn = run->txn,
		.progress = convert_progress,
		.progress_ctx = env,
		.label = w->label,
		.stop = &ts_interrupted,
		.seed = s->ds.seed,
	};
	struct ts_decode_cal cpu;
	const char *host = *run->host ? run->host : s->pipe.host;
	if (ts_host_is_profile(host)) {
		if ((rc = ts_host_resolve(host, &cpu, err, errlen)))
			goto out;
		cc.cpu = &cpu;
	}
	char in[PATH_MAX * 2], out[PATH_MAX * 2];
	if (ts_pathf(in, sizeof(in), "%s%s%s/%s", lv.root, dp.rel[0] ? "/" : "", dp.rel, dp.input) ||
	    ts_pathf(out, sizeof(out), "%s/%s", lv.root, outrel)) {
		rc = -ENAMETOOLONG;
		snprintf(err, errlen, "dataset path under %s is too long", lv.root);
		goto out;
	}
	struct fs_counters c0, c1;
	ts_job_live_counters(&lv, &c0);
	struct ts_convert_stats cs;
	rc = ts_convert_imageset(in, out, &cc, &cs, err, errlen);
	ts_job_progress_end(env);
	if (!rc) {
		ts_job_live_counters(&lv, &c1);
		double secs = (double)cs.wall_ns / 1e9;
		w->iterations = cs.images;
		w->batch = 1;
		w->samples = cs.images;
		w->time_s = secs;
		w->samples_per_s = secs > 0 ? (double)cs.images / secs : NAN;
		w->stall_pct = secs > 0 ? 100.0 * (double)cs.io_ns / (double)cs.wall_ns : NAN;
		ts_job_row_io(w, &c0, &c1, secs);
		char parts[768];
		snprintf(parts, sizeof(parts), "%s, convert_imageset real (1 thread: read, "
					       "libjpeg-turbo decode, resize %ux%u, LMDB put%s%s), no GPU",
			 mdesc, cc.resize, cc.resize,
			 cc.cpu ? "; each decode and put lasting at least its cost on " : "",
			 cc.cpu ? cpu.cpu : "");
		rc = ts_row_set_str(&w->parts, parts);
	}
out:;
	int erc = ts_job_live_end(env, &lv, err, errlen);
	if (!rc)
		rc = erc;
	if (!env->keep && host_out[0])
		ts_remove_tree(host_out, 0);
	ts_job_place_free(&dp);
	return rc;
}

/* The Datum convert_imageset stores for image @img: the resized pixels
 * (raw), or — encoded — the image re-encoded at the resized side, taken as
 * the stored JPEG's bytes per pixel times the resized pixels (the JPEG is
 * not made in virtual time). */
static uint64_t datum_bytes(const struct ts_dataset_meta *m, uint64_t img, unsigned side,
			    bool encoded)
{
	struct ts_datum d;
	if (!encoded) {
		ts_datum_init_raw(&d, 3, (int)side, (int)side, NULL, m->label[img]);
		return ts_datum_encoded_size(&d);
	}
	double px = (double)m->width[img] * m->height[img];
	uint64_t jpeg = px > 0 ? (uint64_t)((double)m->bytes[img] * side * side / px) : 0;
	ts_datum_init_encoded(&d, NULL, jpeg, m->label[img]);
	return ts_datum_encoded_size(&d);
}

/* convert_imageset in virtual time: the same steps (pipeline/convsteps.h)
 * as the real conversion, each step charged — a read to the tier model
 * (open, then the whole file), a decode and resize to the calibration, a
 * put to the transaction's dirty bytes, a commit to a write of them and an
 * fdatasync. One thread, as convert_imageset. */
static int preprocess_virtual(struct ts_job_env *env, const struct ts_job_args *a,
			      struct ts_row *w, char *err, size_t errlen)
{
	struct ts_scenario *s = a->s;
	const struct ts_scn_run *run = a->run;
	struct ts_dataset_place dp;
	int rc = ts_job_place(env, s, &dp, false, err, errlen);
	if (rc)
		return rc;
	const struct ts_dataset_meta *m = &dp.meta;
	struct ts_vtier vt;
	struct ts_decode_cal cal;
	struct ts_convsteps steps = { 0 };
	memset(&vt, 0, sizeof(vt));
	if (!dp.have_meta || !dp.kind || dp.kind->source != &ts_source_folder) {
		snprintf(err, errlen, "preprocess{} --virtual converts generated JPEG folders: use "
				      "dataset{kind = \"imagenet-jpeg\"}");
		rc = -EINVAL;
		goto out;
	}
	if ((rc = ts_job_vtier(env, s, a->band_end, &vt, err, errlen)) ||
	    (rc = ts_vtier_load_cal(&cal, s->pipe.calibration,
				      *run->host ? run->host : s->pipe.host, a->band_end, err,
				      errlen)))
		goto out;
	if ((rc = ts_convsteps_init(&steps, m->count, s->ds.seed, run->txn)))
		goto out;
	/* mount{cache=warm|written}: the JPEG tree resident, in listing order,
	 * as tierfs warms it for the real conversion. */
	if (strcmp(s->mnt.cache, "cold"))
		for (uint64_t j = 0; j < m->count; j++)
			ts_tier_warm(vt.tier, 0, j + 2, 0, m->bytes[j], !strcmp(s->mnt.cache, "written"));
	const uint64_t out_file = 1; /* data.mdb */
	uint64_t now = 0, io = 0, out_off = 0, pending = 0;
	struct ts_conv_step st;
	while (ts_convsteps_next(&steps, &st) != TS_CONV_END) {
		if (ts_interrupted) {
			rc = -EINTR;
			goto out;
		}
		uint64_t t = now, j = st.img;
		switch (st.act) {
		case TS_CONV_READ:
			t = ts_vtier_submit(&vt, t, TS_TIER_META, j + 2, 0, 0, 0);
			t = ts_vtier_submit(&vt, t, TS_TIER_READ, j + 2, 0, m->bytes[j], m->bytes[j]);
			io += t - now;
			break;
		case TS_CONV_DECODE: t += ts_decode_cal_ns(&cal, m->width[j], m->height[j]); break;
		case TS_CONV_PUT:
			/* The CPU of making the Datum and the put (a host profile's
			 * lmdb_put_ns); its bytes go out at the commit. */
			t += (uint64_t)cal.put_ns;
			pending += datum_bytes(m, j, run->resize, run->encoded);
			break;
		case TS_CONV_COMMIT:
			t = ts_vtier_submit(&vt, t, TS_TIER_WRITE, out_file, out_off, pending, 0);
			t = ts_vtier_submit(&vt, t, TS_TIER_FDATASYNC, out_file, 0, 0, 0);
			io += t - now;
			out_off += pending;
			pending = 0;
			break;
		case TS_CONV_END: break;
		}
		now = t;
	}
	double secs = (double)now / 1e9;
	uint64_t n = m->count;
	w->iterations = n;
	w->batch = 1;
	w->samples = n;
	w->time_s = secs;
	w->samples_per_s = secs > 0 ? (double)n / secs : NAN;
	w->stall_pct = now ? 100.0 * (double)io / (double)now : NAN;
	w->bytes_read = vt.read_bytes;
	w->bytes_written = vt.write_bytes;
	w->read_mb_s = secs > 0 ? (double)vt.read_bytes / 1e6 / secs : NAN;
	w->write_mb_s = secs > 0 ? (double)vt.write_bytes / 1e6 / secs : NAN;
	w->cache_hit_pct = vt.read_bytes ? 100.0 * (double)vt.hit_bytes / (double)vt.read_bytes
					 : NAN;
	w->memory_pct = vt.read_bytes ? 100.0 * (double)vt.nowait_bytes / (double)vt.read_bytes
				      : NAN;
	w->dev_mb_s = secs > 0 ? (double)vt.dev_read_bytes / 1e6 / secs : NAN;
	char tdesc[256], parts[768];
	ts_job_tier_desc(s, "tier model virtual", tdesc, sizeof(tdesc));
	snprintf(parts, sizeof(parts), "%s, convert_imageset virtual (1 thread, the real "
				       "conversion's steps; decode + resize %llux%llu at the "
				       "calibrated %.0f images/s/core on %s, put %.0f us), no GPU",
		 tdesc, (unsigned long long)run->resize, (unsigned long long)run->resize,
		 cal.full_ips, cal.cpu, cal.put_ns / 1e3);
	rc = ts_row_set_str(&w->parts, parts);
out:
	ts_convsteps_free(&steps);
	ts_vtier_free(&vt);
	ts_job_place_free(&dp);
	return rc;
}

static int preprocess_run(struct ts_job_env *env, const struct ts_job_args *a, struct ts_row *w,
			  char *err, size_t errlen)
{
	return env->virtual_time ? preprocess_virtual(env, a, w, err, errlen)
				 : preprocess_real(env, a, w, err, errlen);
}

/* --band moves preprocess{host=}'s profile, else the pipeline's. */
static const char *preprocess_band_host(const struct ts_job_args *a)
{
	return a->run->host && *a->run->host ? a->run->host : a->s->pipe.host;
}

const struct ts_job_ops ts_job_preprocess = {
	.name = "preprocess",
	.version = TS_JOB_VERSION,
	.run = preprocess_run,
	.band_host = preprocess_band_host,
	.flags = TS_JOB_ONCE, /* its LMDB is written on the disk it reads */
};
