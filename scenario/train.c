/*
 * train.c — training and inference runs, in either clock.
 *
 * The step loop is the consumer's one (pipeline/steploop.h), for both
 * clocks: take a batch, let the engine run it, release the batch when the
 * step starts (the data has gone to the GPU), account the time. What
 * differs is only where batches come from — the real loader through a
 * tierfs mount, or the same loader's decisions in virtual time
 * (pipeline/vpipe.h) over the tier model — and where the IO counters are
 * read.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/interrupt.h"
#include "core/clock.h"
#include "core/files.h"
#include "core/hist.h"
#include "core/opt.h"
#include "pipeline/source.h"
#include "pipeline/steploop.h"
#include "pipeline/timeline.h"
#include "pipeline/vpipe.h"
#include "scenario/job.h"
#include "scenario/jobs.h"
#include "traces/stats.h"
#include "traces/trace.h"
#include "pipeline/vtier.h"

/* Iterations and epochs for a run: enough whole epochs to cover
 * warm-up + measured iterations. */
static int count_iterations(const struct ts_scn_run *run, uint64_t per_epoch, uint64_t *iters,
			    uint64_t *epochs, char *err, size_t errlen)
{
	if (!per_epoch) {
		snprintf(err, errlen, "the dataset holds less than one batch; use a larger "
				      "dataset{count=...} or a smaller engine{batch=...}");
		return -EINVAL;
	}
	*iters = run->epochs ? run->epochs * per_epoch : run->iterations;
	if (run->epochs && *iters > run->warmup)
		*iters -= run->warmup;
	*epochs = (*iters + run->warmup + per_epoch - 1) / per_epoch;
	return 0;
}

struct feed {
	bool virtual_time;
	int band_end;  /* virtual: the band end modeled (-1 slow, 0, +1 fast) */
	unsigned nrun; /* the configuration's number, for --timeline's names */
	/* real */
	struct live lv;
	/* the mount's counters before the loader started: a row without
	 * warm-up counts from here, or the loader's first reads, which may
	 * complete before the loop begins, would be left out */
	struct fs_counters c_start;
	/* virtual */
	struct ts_vpipe *vp;
	struct ts_vtier vt;
	struct ts_decode_cal cal;
	bool have_cal;
	/* --timeline: this row's tracks (NULL = none), origin t0 */
	struct ts_tl_proc *tl;
	uint64_t tl_t0;
	uint64_t end_ns; /* virtual: the last step's end */
};

static void feed_counters(struct feed *f, struct fs_counters *c)
{
	memset(c, 0, sizeof(*c));
	if (f->virtual_time)
		*c = (struct fs_counters){ true,
					   f->vt.read_bytes,
					   f->vt.write_bytes,
					   f->vt.read_bytes,
					   f->vt.hit_bytes,
					   f->vt.nowait_bytes,
					   f->vt.dev_read_bytes };
	else
		ts_job_live_counters(&f->lv, c);
}

static uint64_t feed_batches_per_epoch(const struct feed *f)
{
	return f->virtual_time ? ts_vpipe_batches_per_epoch(f->vp)
			       : ts_pipe_batches_per_epoch(f->lv.pipe);
}

/* Real time: the mount's request trace, now that the mount is stopped and
 * the trace closed, on the tier tracks in submit order. A trace that cannot
 * be read leaves the tracks out and says so (the row stands). Each slice
 * carries the reply's lateness behind the model's time (late_ns; -1 where
 * the trace has no sample for it): a slice's length less it is what the
 * tier model charged, the rest this host's tierfs waking late. */
static void tl_merge_trace(struct ts_job_env *env, struct feed *f, const char *path)
{
	struct ts_trace t;
	char msg[1024];
	ts_trace_init(&t);
	if (ts_trace_read(path, &t, msg, sizeof(msg))) {
		if (!env->quiet)
			fprintf(stderr, "tiersim: --timeline: no tier tracks for this row: %s\n", msg);
		ts_trace_free(&t);
		return;
	}
	size_t *ord = ts_trace_order(&t);
	for (size_t i = 0; ord && i < t.nrecs; i++) {
		const struct ts_trace_rec *r = &t.recs[ord[i]];
		const struct ts_trace_cpu *c = t.cpu && t.cpu[ord[i]].pid ? &t.cpu[ord[i]] : NULL;
		uint64_t a0 = t.hdr.start_mono_ns + r->submit_ns;
		if (a0 < f->tl_t0) /* a warm start's untimed run (runner.c) */
			continue;
		uint64_t a1 = t.hdr.start_mono_ns + TS_MAX(r->complete_ns, r->submit_ns);
		struct ts_tl_arg a[] = { { "file", r->file_id }, { "offset", (int64_t)r->offset },
					 { "bytes", (int64_t)r->length }, { "result", r->result },
					 { "thread", r->tid },
					 { "late_ns", c ? (int64_t)c->late_ns : -1 } };
		ts_tl_slice_lane(f->tl, TS_TL_TIER, ts_trace_op_name(r->op), a0, a1, a,
				 TS_ARRAY_SIZE(a));
	}
	free(ord);
	ts_trace_free(&t);
}

static int feed_end(struct ts_job_env *env, struct feed *f, char *err, size_t errlen)
{
	ts_vpipe_free(f->vp);
	f->vp = NULL;
	/* a warm start's untimed run (runner.c): its tier model, as it left
	 * it, is the timed run's (ts_job_vtier) */
	struct ts_vtier *keep = env->hold && f->vt.tier && !env->vheld ? malloc(sizeof(*keep))
									: NULL;
	if (env->hold && f->vt.tier && !keep) {
		ts_vtier_free(&f->vt);
		snprintf(err, errlen, "out of memory keeping the tier model for cache = 'warm'");
		return -ENOMEM;
	}
	if (keep) {
		f->vt.tl = NULL;
		ts_vtier_continue(&f->vt, f->end_ns);
		*keep = f->vt;
		env->vheld = keep;
		memset(&f->vt, 0, sizeof(f->vt));
	}
	ts_vtier_free(&f->vt);
	char trace[PATH_MAX];
	bool own = f->lv.own_trace;
	snprintf(trace, sizeof(trace), "%s", f->lv.trace);
	int rc = ts_job_live_end(env, &f->lv, err, errlen);
	if (f->tl && trace[0])
		tl_merge_trace(env, f, trace);
	if (own && trace[0])
		unlink(trace);
	return rc;
}

/* Where the batches come from: the dataset placed (and in real time
 * mounted), the loader made over it. *per_epoch: batches per epoch when the
 * dataset says (0: known once the loader is open).
 *
 * Why one long function: one sequence (dataset placed, mount in real time,
 * the loader's configuration, epochs) whose steps each use what the one
 * before found.
 */
static int feed_open(struct ts_job_env *env, struct ts_scenario *s, const char *tier,
		     const struct ts_scn_run *run, struct feed *f, struct ts_dataset_place *dp,
		     char *mdesc, size_t mdn, char *err, size_t errlen)
{
	bool synthetic = s->pipe.source && !strcmp(s->pipe.source, "null");
	int rc;
	if (synthetic) {
		snprintf(mdesc, mdn, "no storage (synthetic data, benchmark mode)");
	} else {
		if ((rc = ts_job_place(env, s, dp, !f->virtual_time, err, errlen)))
			return rc;
		if (f->virtual_time && !dp->have_meta) {
			snprintf(err, errlen, "--virtual predicts generated datasets "
					      "(dataset{kind=...}); an existing directory runs in "
					      "real time");
			return -EINVAL;
		}
		if (f->virtual_time) {
			if ((rc = ts_job_vtier(env, s, f->band_end, &f->vt, err, errlen)))
				return rc;
			f->vt.tl = f->tl;
			ts_job_tier_desc(s, "tier model virtual", mdesc, mdn);
		} else {
			f->lv.want_trace = f->tl != NULL;
			if ((rc = ts_job_live_mount(env, s, tier, dp, &f->lv, mdesc, mdn, err,
						       errlen)))
				return rc;
		}
	}

	/* The loader; batch = per-GPU batch x GPUs. */
	struct ts_pipe_cfg pc;
	memset(&pc, 0, sizeof(pc));
	if ((rc = ts_opt_copy(ts_pipe_opts, &pc, &s->pipe)))
		return rc;
	/* Where the loader reads: under the mount in real time; in virtual
	 * time nothing is opened, and the dataset's own folder names it. */
	const char *top = f->virtual_time ? dp->dir : f->lv.root;
	const char *rel = f->virtual_time ? "" : dp->rel;
	char path[PATH_MAX * 2] = "";
	if (!synthetic && ts_pathf(path, sizeof(path), "%s%s%s%s%s", top, rel[0] ? "/" : "",
					  rel, dp->input[0] ? "/" : "", dp->input)) {
		snprintf(err, errlen, "dataset path under %s is too long", top);
		ts_opt_free(ts_pipe_opts, &pc);
		return -ENAMETOOLONG;
	}
	uint64_t batch = s->eng.batch * s->eng.gpus;
	uint64_t per_epoch = dp->have_meta
				     ? (dp->kind->caps & TS_DS_IMAGES ? dp->meta.count / batch : 0)
				     : 0;
	if (synthetic) {
		/* Exactly the batches the run takes, in one epoch. */
		per_epoch = run->warmup + run->iterations;
		pc.count = per_epoch * batch;
	}
	char nb[32];
	snprintf(nb, sizeof(nb), "%llu", (unsigned long long)batch);
	char sub[512];
	if ((rc = ts_opt_set(ts_pipe_opts, &pc, "path", path, sub, sizeof(sub))) ||
	    (rc = ts_opt_set(ts_pipe_opts, &pc, "batch", nb, sub, sizeof(sub))) ||
	    (dp->source && (rc = ts_opt_set(ts_pipe_opts, &pc, "source", dp->source, sub,
					    sizeof(sub))))) {
		snprintf(err, errlen, "pipeline: %s", sub);
		ts_opt_free(ts_pipe_opts, &pc);
		return rc;
	}
	/* Epochs: enough for warm-up + measured iterations. The text source's
	 * batches per epoch are only known once it is open. */
	uint64_t iters, epochs = 1;
	if (per_epoch && !synthetic &&
	    (rc = count_iterations(run, per_epoch, &iters, &epochs, err, errlen))) {
		ts_opt_free(ts_pipe_opts, &pc);
		return rc;
	}
	pc.epochs = per_epoch ? epochs : 1000000;
	pc.drop_last = true;
	if (f->virtual_time) {
		enum ts_decode_mode mode = TS_DECODE_NONE;
		const struct ts_source_ops *ops = ts_source_find(pc.source, sub, sizeof(sub));
		if (ops && !ts_pipe_decode_mode(&pc, ops, 0, &mode, sub, sizeof(sub)) &&
		    mode != TS_DECODE_NONE) {
			if ((rc = ts_vtier_load_cal(&f->cal, pc.calibration, pc.host, f->band_end, err, errlen))) {
				ts_opt_free(ts_pipe_opts, &pc);
				return rc;
			}
			f->have_cal = true;
		}
		struct ts_vdisk disk = { ts_vtier_vio, &f->vt, ts_vtier_warm, ts_vtier_prefetch,
					 f->vt.fs };
		rc = ts_vpipe_new(&pc, synthetic ? NULL : &dp->meta, &disk,
				  f->have_cal ? &f->cal : NULL, &f->vp, err, errlen);
		/* "warm" is the state a run of the job before left: the
		 * runner runs it once untimed on this model first (runner.c,
		 * run_row; ts_job_vtier hands the model over) */
		if (!rc && !synthetic && !strcmp(s->mnt.cache, "written"))
			ts_vpipe_warm(f->vp, true);
		if (!rc && f->tl)
			ts_vpipe_set_timeline(f->vp, f->tl);
	} else {
		rc = ts_pipe_new(&pc, &f->lv.pipe, err, errlen);
		if (!rc && f->tl)
			ts_pipe_set_timeline(f->lv.pipe, f->tl);
	}
	ts_opt_free(ts_pipe_opts, &pc);
	if (rc)
		return rc;
	if (!f->virtual_time) {
		feed_counters(f, &f->c_start);
		if ((rc = ts_pipe_start(f->lv.pipe))) {
			snprintf(err, errlen, "pipeline: %s", ts_pipe_error(f->lv.pipe));
			return rc;
		}
	}
	return 0;
}

/* What the row says it ran on. */
static int feed_parts(struct feed *f, const struct ts_scenario *s, bool synthetic,
		      const char *mdesc, const char *edesc, struct ts_row *w)
{
	char parts[1024], dn[400];
	if (f->virtual_time) {
		struct ts_vpipe_stats vs;
		ts_vpipe_stats(f->vp, &vs);
		if (f->have_cal) {
			/* what a sample's worker is charged besides the decode: a
			 * DataLoader worker's own work, or the framework's reader */
			char fw[112] = "";
			if (vs.sample_ns > 0)
				snprintf(fw, sizeof(fw), ", + %.0f us a sample %s", vs.sample_ns / 1e3,
					 vs.dataloader ? "for the DataLoader worker's own work"
						       : "for the framework's reader");
			else if (vs.dataloader)
				snprintf(fw, sizeof(fw), ", no DataLoader worker cost (none set for %.60s)",
					 f->cal.cpu);
			snprintf(dn, sizeof(dn), "decode modeled %llu workers = vCPUs (calibration: "
						 "%.0f JPEG images/s/core, %.0f us per raw image, "
						 "on %s%s)",
				 (unsigned long long)vs.decode_workers, f->cal.full_ips,
				 ts_decode_cal_xform_ns(&f->cal, 0, 0) / 1e3, f->cal.cpu, fw);
		} else
			snprintf(dn, sizeof(dn), "no decode");
		snprintf(parts, sizeof(parts), "%s, loader virtual QD %llu (%s), %s, %s", mdesc,
			 (unsigned long long)s->pipe.qd, vs.source, dn, edesc);
		return ts_row_set_str(&w->parts, parts);
	}
	struct ts_pipe_stats ps;
	ts_pipe_stats(f->lv.pipe, &ps);
	if (ps.decode_note[0])
		snprintf(dn, sizeof(dn), "decode %s", ps.decode_note);
	else
		snprintf(dn, sizeof(dn), "decode %s (%llu workers = vCPUs)",
			 ps.decode_mode ? ps.decode_mode : "?",
			 (unsigned long long)ps.decode_workers);
	if (synthetic)
		snprintf(parts, sizeof(parts), "%s, loader real (samples made in memory, no "
					       "reads, no decode), %s", mdesc, edesc);
	else
		snprintf(parts, sizeof(parts), "%s, reader real io_uring QD %llu (%s), %s, %s",
			 mdesc, (unsigned long long)s->pipe.qd, ps.source ? ps.source : "?", dn,
			 edesc);
	return ts_row_set_str(&w->parts, parts);
}

/* The training or inference step loop (pipeline/steploop.h): the engine
 * runs each step; the warm-up steps are left out of the row's figures. */
struct train_steps {
	struct ts_job_env *env;
	struct feed *f;
	struct ts_engine *eng;
	const struct ts_scenario *s;
	const struct ts_scn_run *run;
	struct ts_row *w;
	struct ts_engine_step st; /* the step in hand */
	struct fs_counters c0;
	struct ts_hist *ih;
	uint64_t batch, total, wall0, t_meas, prev_end;
	uint64_t busy, idle, samples;
};

static int train_step(void *self, const struct ts_take *b, uint64_t free_at,
		      struct ts_step_span *sp, char *err, size_t errlen)
{
	struct train_steps *T = self;
	(void)free_at; /* the engine starts a step at max(ready, its previous end) */
	uint64_t per_gpu = b->n / T->s->eng.gpus;
	int rc = ts_engine_step(T->eng, b->ready, per_gpu ? per_gpu : 1, &T->st);
	if (rc) {
		snprintf(err, errlen, "engine step %llu failed: %s", (unsigned long long)b->step,
			 ts_strerror(rc));
		return rc;
	}
	*sp = (struct ts_step_span){ T->st.start_ns, T->st.end_ns, &T->st };
	return 0;
}

static uint64_t train_hold(void *self, const struct ts_step_span *sp, uint64_t end)
{
	struct train_steps *T = self;
	ts_engine_hold(T->eng, sp->detail);
	return end;
}

static int train_step_end(void *self, const struct ts_take *b, const struct ts_step_span *sp,
			  uint64_t end, char *err, size_t errlen)
{
	struct train_steps *T = self;
	const struct ts_engine_step *st = sp->detail;
	const struct ts_scn_run *run = T->run;
	uint64_t done = b->step;
	(void)end, (void)err, (void)errlen;
	if (T->f->tl) {
		struct ts_tl_arg a[] = { { "step", (int64_t)done },
					 { "samples", (int64_t)st->samples },
					 { "batch", (int64_t)b->seq },
					 { "wait_ns", (int64_t)st->wait_ns },
					 { "compute_ns", (int64_t)st->compute_ns },
					 { "comm_ns", (int64_t)st->comm_ns },
					 { "warmup", done < run->warmup } };
		ts_tl_slice(T->f->tl, TS_TL_ENGINE, 0, done < run->warmup ? "warm-up step" : "step",
			    st->start_ns, st->end_ns, a, TS_ARRAY_SIZE(a));
	}
	done++;
	if (done == run->warmup) {
		T->t_meas = st->end_ns;
		feed_counters(T->f, &T->c0);
	} else if (done > run->warmup) {
		T->busy += st->compute_ns + st->comm_ns;
		T->idle += st->wait_ns;
		T->samples += st->samples;
		ts_hist_add(T->ih, st->end_ns - T->prev_end);
	}
	T->prev_end = st->end_ns;
	double el = (double)(ts_now_ns() - T->wall0) / 1e9;
	ts_job_progress(T->env, T->w->label, done, T->total,
			el > 0 ? (double)(done * T->batch) / el : 0, el);
	return 0;
}

/* The measured loop over the feed's batches. */
static int train_loop(struct ts_job_env *env, struct feed *f, struct ts_engine *eng,
		      const struct ts_scenario *s, const struct ts_scn_run *run, uint64_t iters,
		      struct ts_row *w, char *err, size_t errlen)
{
	struct train_steps T = { .env = env, .f = f, .eng = eng, .s = s, .run = run, .w = w };
	if (!(T.ih = malloc(sizeof(*T.ih))))
		return -ENOMEM;
	ts_hist_init(T.ih);
	T.batch = s->eng.batch * s->eng.gpus;
	T.total = run->warmup + iters;
	T.wall0 = ts_now_ns();
	uint64_t t0 = f->virtual_time ? ts_vpipe_start_ns(f->vp) : T.wall0;
	T.t_meas = T.prev_end = t0;
	ts_engine_begin(eng, t0);
	if (!run->warmup) { /* real time: from before the loader started */
		if (f->virtual_time)
			feed_counters(f, &T.c0);
		else
			T.c0 = f->c_start;
	}
	struct ts_steploop_pipe pipe = { .pipe = f->lv.pipe, .vp = f->vp };
	ts_steploop_pipe_init(&pipe);
	struct ts_steploop_ops ops = { .run = train_step, .hold = train_hold,
				       .step_end = train_step_end, .self = &T };
	struct ts_steploop L = { .src = &pipe.src, .ops = &ops, .limit = T.total, .t0 = t0,
				 .real = !f->virtual_time };
	int rc = ts_steploop_run(&L, err, errlen);
	f->end_ns = T.prev_end;
	ts_job_progress_end(env);
	if (!rc && L.steps < T.total) {
		snprintf(err, errlen, "the loader ran out of data after %llu of %llu iterations",
			 (unsigned long long)L.steps, (unsigned long long)T.total);
		rc = -ENODATA;
	}
	if (!rc) {
		struct fs_counters c1;
		feed_counters(f, &c1);
		struct ts_step_sums sums = { iters, T.batch, T.samples, T.prev_end - T.t_meas,
					     T.busy, T.idle, T.ih };
		ts_job_row_steps(w, &sums);
		ts_job_row_io(w, &T.c0, &c1, w->time_s);
	}
	free(T.ih);
	return rc;
}

/* The row's track group, named after the row, its tier and its clock. */
static void tl_group(struct ts_job_env *env, const struct ts_scenario *s, struct feed *f,
		     const struct ts_row *w)
{
	char name[1024];
	const char *band = f->band_end < 0 ? ", band slow end" : f->band_end > 0 ? ", band fast end"
										   : "";
	const char *label = w->label ? w->label : "?";
	bool same = !strcmp(label, s->mnt.tier);
	snprintf(name, sizeof(name), "[%u] %s%s%s: %s %s batch %llu x %llu GPU, %s time%s",
		 f->nrun, label, same ? "" : " on ", same ? "" : s->mnt.tier, s->eng.model,
		 s->eng.mode,
		 (unsigned long long)s->eng.batch, (unsigned long long)s->eng.gpus,
		 f->virtual_time ? "virtual" : "real", band);
	f->tl_t0 = f->virtual_time ? 0 : ts_now_ns();
	f->tl = ts_timeline_proc(env->timeline, name, f->tl_t0);
}

/* Training and inference: the engine's mode says which, the step loop is
 * one. */
static int train_run(struct ts_job_env *env, const struct ts_job_args *a, struct ts_row *w,
		     char *err, size_t errlen)
{
	struct ts_scenario *s = a->s;
	const char *tier = a->tier;
	const struct ts_scn_run *run = a->run;
	struct ts_dataset_place dp;
	struct feed f;
	memset(&f, 0, sizeof(f));
	memset(&dp, 0, sizeof(dp));
	f.band_end = a->band_end;
	f.nrun = a->nrun;
	f.virtual_time = env->virtual_time;
	struct ts_engine *eng;
	char mdesc[256], edesc[256];

	/* The engine first: a batch that does not fit is a row, not a failure. */
	int rc = ts_job_engine(s, f.band_end, w, &eng, err, errlen);
	if (rc || !eng)
		return rc;
	if (f.band_end && eng->info.band[0]) {
		char moved[sizeof(eng->info.band) + 16];
		snprintf(moved, sizeof(moved), "engine %s", eng->info.band);
		if ((rc = ts_row_set_str(&w->band_params, moved))) {
			ts_engine_free(eng);
			return rc;
		}
	}
	if (f.virtual_time && !(eng->ops->flags & TS_ENGINE_VIRTUAL)) {
		snprintf(err, errlen, "--virtual needs a modeled engine backend; '%s' runs only in "
				      "real time (use engine{backend = \"sim\"})", eng->ops->name);
		ts_engine_free(eng);
		return -EINVAL;
	}
	ts_engine_describe(eng, edesc, sizeof(edesc));
	if (env->timeline)
		tl_group(env, s, &f, w);
	bool synthetic = s->pipe.source && !strcmp(s->pipe.source, "null");
	if ((rc = feed_open(env, s, tier, run, &f, &dp, mdesc, sizeof(mdesc), err, errlen)))
		goto out;
	uint64_t iters, epochs;
	if (synthetic)
		iters = run->iterations;
	else if ((rc = count_iterations(run, feed_batches_per_epoch(&f), &iters, &epochs, err,
				       errlen)))
		goto out;
	if (!(rc = train_loop(env, &f, eng, s, run, iters, w, err, errlen)))
		rc = feed_parts(&f, s, synthetic, mdesc, edesc, w);
out:;
	ts_engine_free(eng);
	int erc = feed_end(env, &f, err, errlen);
	if (!rc)
		rc = erc;
	ts_job_place_free(&dp);
	return rc;
}

/* --band moves the pipeline's host profile with the tier. */
static const char *train_band_host(const struct ts_job_args *a)
{
	return a->s->pipe.host;
}

const struct ts_job_ops ts_job_train = {
	.name = "train",
	.version = TS_JOB_VERSION,
	.run = train_run,
	.band_host = train_band_host,
};

const struct ts_job_ops ts_job_infer = {
	.name = "infer",
	.version = TS_JOB_VERSION,
	.run = train_run,
	.band_host = train_band_host,
};
