/* vsim.c — configurations predicted in virtual time (see vsim.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opt.h"
#include "tier/tier.h"
#include "hist.h"
#include "pipeline/decode.h"
#include "rng.h"
#include "units.h"
#include "vsim.h"

/* A min-heap of times: the earliest free read slot or decode worker. */
struct slots {
	uint64_t *t;
	size_t n;
};

static int slots_new(struct slots *s, size_t n)
{
	s->t = calloc(n ? n : 1, sizeof(*s->t));
	s->n = n ? n : 1;
	return s->t ? 0 : -ENOMEM;
}

/* Takes the earliest slot; returns its free time. */
static uint64_t slots_peek(const struct slots *s)
{
	return s->t[0];
}

/* Replaces the earliest slot's free time with @t (>= the old) and sifts. */
static void slots_push_top(struct slots *s, uint64_t t)
{
	size_t i = 0;
	s->t[0] = t;
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < s->n && s->t[l] < s->t[m])
			m = l;
		if (r < s->n && s->t[r] < s->t[m])
			m = r;
		if (m == i)
			break;
		uint64_t x = s->t[i];
		s->t[i] = s->t[m];
		s->t[m] = x;
		i = m;
	}
}

struct model {
	struct ts_tier *tier;
	const struct ts_tier_profile *profile;
	uint64_t read_bytes, hit_bytes, write_bytes;
	uint64_t io_wait_ns; /* preprocess: time spent waiting on the tier */
};

static int model_new(struct ts_runner *R, const struct ts_scenario *s, struct model *m,
		     char *err, size_t errlen)
{
	memset(m, 0, sizeof(*m));
	if (!strcmp(s->mnt.tier, "none")) {
		snprintf(err, errlen, "--virtual needs a tier to model; mount{tier=\"none\"} runs "
				      "only in real time");
		return -EINVAL;
	}
	int rc = ts_tier_set_lookup(R->tiers, s->mnt.tier, &m->profile, err, errlen);
	if (rc)
		return rc;
	struct ts_tier_cfg tc;
	memset(&tc, 0, sizeof(tc));
	tc.profile = m->profile;
	tc.capacity = s->mnt.capacity;
	tc.mem = s->mnt.mem;
	tc.seed = s->mnt.seed;
	return ts_tier_new(&tc, &m->tier, err, errlen);
}

static uint64_t submit(struct model *m, uint64_t now, enum ts_tier_op op, uint64_t file,
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
	return t;
}

static int load_cal(struct ts_decode_cal *cal, const char *want, char *err, size_t errlen)
{
	char path[4096];
	if (want && *want)
		snprintf(path, sizeof(path), "%s", want);
	else if (ts_pipe_default_calibration(path, sizeof(path)))
		path[0] = 0;
	char sub[512] = "";
	if (path[0] && ts_decode_cal_load(path, cal, sub, sizeof(sub)) == 0)
		return 0;
	snprintf(err, errlen, "--virtual charges the measured decode cost per image, and there "
			      "is no calibration%s%s: run 'tiersim calibrate decode' once (or set "
			      "pipeline{decode = \"none\"})", sub[0] ? ": " : "", sub);
	return -ENOENT;
}

/* Where sample j of the storage order sits in a packed file. */
static uint64_t *prefix_offsets(const struct ts_dataset_meta *meta)
{
	uint64_t *off = malloc((meta->samples + 1) * sizeof(*off));
	if (!off)
		return NULL;
	off[0] = 0;
	for (uint64_t j = 0; j < meta->samples; j++)
		off[j + 1] = off[j] + meta->bytes[j];
	return off;
}

static int exec_train(struct ts_runner *R, struct ts_scenario *s, const struct ts_scn_run *run,
		      struct ts_row *w, const struct ts_dataset_place *dp, char *err,
		      size_t errlen)
{
	const bool synthetic = dp == NULL; /* benchmark mode: nothing is read */
	const struct ts_dataset_meta *meta = synthetic ? NULL : &dp->meta;
	struct model m;
	memset(&m, 0, sizeof(m));
	struct ts_engine *eng = NULL;
	struct slots rd = { 0 }, dec = { 0 };
	uint64_t *off = NULL, *consumed = NULL;
	uint32_t *perm = NULL;
	struct ts_hist *ih = NULL;
	char edesc[256];
	struct ts_decode_cal cal;
	memset(&cal, 0, sizeof(cal));
	bool decode = !synthetic && strcmp(s->pipe.decode ? s->pipe.decode : "auto", "none") &&
		      dp->kind != TS_DS_PTB_TEXT;

	int rc = ts_runner_engine(s, w, &eng, err, errlen);
	if (rc || !eng)
		return rc;
	if (!(eng->ops->flags & TS_ENGINE_VIRTUAL)) {
		snprintf(err, errlen, "--virtual needs a modeled engine backend; '%s' runs only in "
				      "real time (use engine{backend = \"sim\"})", eng->ops->name);
		ts_engine_free(eng);
		return -EINVAL;
	}
	ts_engine_describe(eng, edesc, sizeof(edesc));
	if (!synthetic && (rc = model_new(R, s, &m, err, errlen))) {
		ts_engine_free(eng);
		return rc;
	}
	if (decode && (rc = load_cal(&cal, s->pipe.calibration, err, errlen)))
		goto out;

	uint64_t batch = s->eng.batch * s->eng.gpus;
	bool text = !synthetic && dp->kind == TS_DS_PTB_TEXT;
	uint64_t seq = s->pipe.seq_len ? s->pipe.seq_len : 35;
	/* ptb-text: batches of sequences of seq tokens, read in order. */
	uint64_t nsamp = synthetic ? (run->warmup + run->iterations) * batch
			 : text	    ? meta->count / seq
				    : meta->count;
	uint64_t per_epoch = nsamp / batch;
	uint64_t iters, epochs;
	if (!per_epoch) {
		snprintf(err, errlen, "the dataset holds less than one batch; use a larger "
				      "dataset{count=...} or a smaller engine{batch=...}");
		rc = -EINVAL;
		goto out;
	}
	iters = run->epochs ? run->epochs * per_epoch : run->iterations;
	if (run->epochs && iters > run->warmup)
		iters -= run->warmup;
	epochs = (iters + run->warmup + per_epoch - 1) / per_epoch;
	(void)epochs;
	uint64_t total = run->warmup + iters;
	uint64_t prefetch = s->pipe.prefetch ? s->pipe.prefetch : 1;

	off = text || synthetic ? NULL : prefix_offsets(meta);
	perm = malloc((nsamp ? nsamp : 1) * sizeof(*perm));
	consumed = calloc(total, sizeof(*consumed));
	ih = malloc(sizeof(*ih));
	if ((!text && !synthetic && !off) || !perm || !consumed || !ih || slots_new(&rd, s->pipe.qd) ||
	    slots_new(&dec, s->pipe.vcpus)) {
		rc = -ENOMEM;
		goto out;
	}
	ts_hist_init(ih);
	struct ts_rng rng;
	ts_rng_seed(&rng, s->pipe.seed);
	const char *source = synthetic ? "null" : dp->source;
	/* The loader shuffles sample files and records; a cursor (LMDB) and
	 * a text stream are read in order. */
	const bool shuffle = s->pipe.shuffle && (!strcmp(source, "folder") || !strcmp(source, "rec"));
	uint64_t text_bytes = text ? meta->total_bytes : 0;

	uint64_t t_meas = 0, prev_end = 0, busy = 0, idle = 0, samples = 0;
	uint64_t r0 = 0, h0 = 0;
	ts_engine_begin(eng, 0);
	for (uint64_t k = 0; k < total; k++) {
		if (ts_runner_interrupted) {
			rc = -EINTR;
			goto out;
		}
		uint64_t ep = k / per_epoch, bi = k % per_epoch;
		if (bi == 0) {
			for (uint64_t j = 0; j < nsamp; j++)
				perm[j] = (uint32_t)j;
			if (shuffle) {
				ts_rng_seed(&rng, s->pipe.seed + ep);
				ts_rng_shuffle_u32(&rng, perm, nsamp);
			}
		}
		/* No read for batch k before batch k - prefetch was taken. */
		uint64_t admit = k >= prefetch ? consumed[k - prefetch] : 0;
		uint64_t ready = k ? consumed[k - 1] : 0; /* batches come out in order */
		for (uint64_t i = 0; i < batch; i++) {
			uint64_t j = perm[bi * batch + i];
			uint64_t issue = slots_peek(&rd) > admit ? slots_peek(&rd) : admit;
			uint64_t done;
			if (synthetic) {
				done = issue;
			} else if (text) {
				uint64_t len = text_bytes / nsamp;
				done = submit(&m, issue, TS_TIER_READ, 1, j * len, len, text_bytes);
			} else if (!strcmp(source, "folder")) {
				/* A file per sample: open (metadata), then the whole file. */
				uint64_t t = submit(&m, issue, TS_TIER_META, j + 2, 0, 0, 0);
				done = submit(&m, t, TS_TIER_READ, j + 2, 0, meta->bytes[j],
					      meta->bytes[j]);
			} else {
				/* A record of a packed file (rec, LMDB value). */
				done = submit(&m, issue, TS_TIER_READ, 1, off[j], meta->bytes[j],
					      off[meta->samples]);
			}
			slots_push_top(&rd, done);
			uint64_t t_dec = done;
			if (decode) {
				uint64_t start = slots_peek(&dec) > done ? slots_peek(&dec) : done;
				t_dec = start + ts_decode_cal_ns(&cal, meta->width[j], meta->height[j]);
				slots_push_top(&dec, t_dec);
			}
			ready = t_dec > ready ? t_dec : ready;
		}
		struct ts_engine_step st;
		if ((rc = ts_engine_step(eng, ready, s->eng.batch, &st))) {
			snprintf(err, errlen, "engine step %llu failed: %s", (unsigned long long)k,
				 ts_strerror(rc));
			goto out;
		}
		consumed[k] = st.start_ns;
		if (k + 1 == run->warmup) {
			t_meas = st.end_ns;
			r0 = m.read_bytes;
			h0 = m.hit_bytes;
		} else if (k + 1 > run->warmup) {
			busy += st.compute_ns + st.comm_ns;
			idle += st.wait_ns;
			samples += st.samples;
			ts_hist_add(ih, st.end_ns - prev_end);
		}
		prev_end = st.end_ns;
	}
	struct ts_step_sums sums = { iters, batch, samples, prev_end - t_meas, busy, idle, ih };
	ts_runner_row_steps(w, &sums);
	double secs = w->time_s;
	w->bytes_read = m.read_bytes - r0;
	w->read_mb_s = secs > 0 ? (double)w->bytes_read / 1e6 / secs : NAN;
	w->write_mb_s = 0;
	w->cache_hit_pct = w->bytes_read ? 100.0 * (double)(m.hit_bytes - h0) / (double)w->bytes_read
					 : NAN; /* no reads: no ratio */
	char tdesc[256], parts[1024], dnote[256] = "";
	if (synthetic)
		snprintf(tdesc, sizeof(tdesc), "no storage (synthetic data, benchmark mode)");
	else
		ts_runner_tier_desc(s, "tier model virtual", tdesc, sizeof(tdesc));
	if (decode)
		snprintf(dnote, sizeof(dnote), "decode modeled %llu workers = vCPUs (calibration: "
					       "%.0f images/s/core on %s)",
			 (unsigned long long)s->pipe.vcpus, cal.full_ips, cal.cpu);
	else
		snprintf(dnote, sizeof(dnote), "no decode");
	snprintf(parts, sizeof(parts), "%s, reader modeled QD %llu (%s), %s, %s", tdesc,
		 (unsigned long long)s->pipe.qd, source, dnote, edesc);
	rc = ts_row_set_str(&w->parts, parts);
out:
	free(rd.t);
	free(dec.t);
	free(off);
	free(perm);
	free(consumed);
	free(ih);
	ts_engine_free(eng);
	if (m.tier)
		ts_tier_free(m.tier);
	return rc;
}

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
	struct model m;
	struct ts_decode_cal cal;
	int rc = model_new(R, s, &m, err, errlen);
	if (rc)
		return rc;
	if ((rc = load_cal(&cal, s->pipe.calibration, err, errlen))) {
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
		uint64_t t = submit(&m, now, TS_TIER_META, j + 2, 0, 0, 0);
		t = submit(&m, t, TS_TIER_READ, j + 2, 0, meta->bytes[j], meta->bytes[j]);
		io += t - now;
		now = t + ts_decode_cal_ns(&cal, meta->width[j], meta->height[j]);
		pending += datum;
		if (++since == run->txn || k + 1 == n) {
			uint64_t c = submit(&m, now, TS_TIER_WRITE, out_file, out_off, pending, 0);
			c = submit(&m, c, TS_TIER_FDATASYNC, out_file, 0, 0, 0);
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
	if (act == TS_ACT_RUN && s->pipe.source && !strcmp(s->pipe.source, "null"))
		return exec_train(R, s, run, w, NULL, err, errlen);
	int rc = ts_runner_place(R, s, &dp, false, err, errlen);
	if (rc)
		return rc;
	if (!dp.have_meta) {
		snprintf(err, errlen, "--virtual predicts generated datasets (dataset{kind=...}); "
				      "an existing directory runs in real time");
		ts_runner_place_free(&dp);
		return -EINVAL;
	}
	rc = act == TS_ACT_RUN ? exec_train(R, s, run, w, &dp, err, errlen)
			       : exec_preprocess(R, s, run, w, &dp, err, errlen);
	ts_runner_place_free(&dp);
	return rc;
}
