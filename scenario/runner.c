/* runner.c — runs a scenario script and the configurations it asks for
 * (see runner.h). */
#include <dirent.h>
#include <fcntl.h>
#include <jansson.h>
#include <lauxlib.h>
#include <limits.h>
#include <lua.h>
#include <lualib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/interrupt.h"
#include "core/clock.h"
#include "scenario/convert.h"
#include "cost/cost.h"
#include "core/files.h"
#include "core/hist.h"
#include "core/opt.h"
#include "pipeline/decode.h"
#include "pipeline/host.h"
#include "tier/stats_keys.h"
#include "tier/tier.h"
#include "pipeline/dataset.h"
#include "scenario/runner.h"
#include "core/units.h"
#include "pipeline/vtier.h"

static char *dupf(const char *fmt, ...) TS_PRINTF(1, 2);
static char *dupf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	va_start(ap, fmt);
	int n = vasprintf(&s, fmt, ap);
	va_end(ap);
	return n < 0 ? NULL : s;
}

static int default_workdir(char *out, size_t n)
{
	const char *env = getenv("TIERSIM_WORKDIR");
	if (env && *env)
		return snprintf(out, n, "%s", env) < (int)n ? 0 : -ENAMETOOLONG;
	const char *xdg = getenv("XDG_CACHE_HOME");
	if (xdg && *xdg)
		return snprintf(out, n, "%s/tiersim", xdg) < (int)n ? 0 : -ENAMETOOLONG;
	const char *home = getenv("HOME");
	if (home && *home)
		return snprintf(out, n, "%s/.cache/tiersim", home) < (int)n ? 0 : -ENAMETOOLONG;
	return snprintf(out, n, "/tmp/tiersim-%u", (unsigned)getuid()) < (int)n ? 0
										 : -ENAMETOOLONG;
}

/* Splits "section.key=value"; false when @kv is not of that form. */
static bool split_dotted(const char *kv, char *sec, size_t secn, char *key, size_t keyn,
			 const char **val)
{
	const char *eq = strchr(kv, '=');
	const char *dot = strchr(kv, '.');
	if (!eq || !dot || dot > eq)
		return false;
	snprintf(sec, secn, "%.*s", (int)(dot - kv), kv);
	snprintf(key, keyn, "%.*s", (int)(eq - dot - 1), dot + 1);
	*val = eq + 1;
	return true;
}

/* Applies the command line's section.key=value overrides to @s. */
static int apply_overrides(const struct ts_runner *R, struct ts_scenario *s, char *err,
			   size_t errlen)
{
	for (size_t i = 0; i < R->o.nkv; i++) {
		char sec[64], key[128];
		const char *val;
		if (!split_dotted(R->o.kv[i], sec, sizeof(sec), key, sizeof(key), &val))
			continue;
		void *base;
		const struct ts_opt *tab = ts_scn_section(s, sec, &base);
		if (!tab) {
			snprintf(err, errlen, "%s: unknown section '%s' (known: dataset, mount, "
					      "pipeline, engine)", R->o.kv[i], sec);
			return TS_E_UNKNOWN;
		}
		char sub[512];
		int rc = ts_opt_set(tab, base, key, val, sub, sizeof(sub));
		if (rc) {
			snprintf(err, errlen, "%s: %s: %s", R->o.kv[i], sec, sub);
			return rc;
		}
	}
	return 0;
}

int ts_runner_init(struct ts_runner *R, const struct ts_runner_opts *o, char *err, size_t errlen)
{
	memset(R, 0, sizeof(*R));
	R->o = *o;
	ts_report_init(&R->report);
	R->report.virtual_time = o->virtual_time;
	R->env.progress_tty = !o->quiet && isatty(STDERR_FILENO);
	R->env.virtual_time = o->virtual_time;
	R->env.quiet = o->quiet;
	R->env.keep = o->keep;
	R->env.timeline = o->timeline;
	if (ts_row_set_str(&R->report.script, o->script))
		return -ENOMEM;
	int rc = ts_scn_defaults(&R->cfg, err, errlen);
	if (rc)
		return rc;
	/* Check the command line's overrides before anything runs. */
	for (size_t i = 0; i < o->nkv; i++) {
		if (!strchr(o->kv[i], '=') || o->kv[i][0] == '=') {
			snprintf(err, errlen, "'%s': expected key=value", o->kv[i]);
			return TS_E_PARSE;
		}
	}
	struct ts_scenario probe;
	if (ts_scn_copy(&probe, &R->cfg))
		return -ENOMEM;
	rc = apply_overrides(R, &probe, err, errlen);
	ts_scn_free(&probe);
	if (rc)
		return rc;

	rc = ts_tier_set_load_default(&R->env.tiers, err, errlen);
	if (rc)
		return rc;
	for (size_t i = 0; i < o->ntiers; i++) {
		const struct ts_tier_profile *p;
		if (strcmp(o->tiers[i], "none") &&
		    (rc = ts_tier_set_lookup(R->env.tiers, o->tiers[i], &p, err, errlen)))
			return rc;
	}
	/* An instance of the command line names a price profile. */
	for (size_t i = 0; i < o->nkv; i++) {
		const struct ts_instance *in;
		char sub[1024];
		if (strncmp(o->kv[i], "instance.name=", 14) || !o->kv[i][14])
			continue;
		if ((rc = ts_runner_instance(R, o->kv[i] + 14, &in, sub, sizeof(sub)))) {
			snprintf(err, errlen, "option --instance (instance.name): %s", sub);
			return rc == -ENOENT ? TS_E_UNKNOWN : rc;
		}
	}

	char wd[PATH_MAX];
	if (o->workdir)
		rc = snprintf(wd, sizeof(wd), "%s", o->workdir) < (int)sizeof(wd) ? 0 : -ENAMETOOLONG;
	else
		rc = default_workdir(wd, sizeof(wd));
	if (!rc)
		rc = ts_mkdir_p(wd, 0755, NULL, 0);
	char real[PATH_MAX];
	if (!rc && !realpath(wd, real))
		rc = -errno;
	if (rc) {
		snprintf(err, errlen, "work directory %s: %s (choose another with --workdir DIR)",
			 wd, ts_strerror(rc));
		return rc;
	}
	R->env.workdir = strdup(real);
	R->env.datadir = dupf("%s/data", real);
	R->env.mntdir = dupf("%s/mnt", real);
	R->env.scratch = dupf("%s/data/scratch/run-%d", real, (int)getpid());
	if (!R->env.workdir || !R->env.datadir || !R->env.mntdir || !R->env.scratch)
		return -ENOMEM;
	const char *dirs[] = { R->env.datadir, R->env.mntdir };
	for (size_t i = 0; i < TS_ARRAY_SIZE(dirs); i++)
		if ((rc = ts_mkdir_p(dirs[i], 0755, NULL, 0))) {
			snprintf(err, errlen, "cannot create %s: %s", dirs[i], ts_strerror(rc));
			return rc;
		}
	return 0;
}

void ts_runner_free(struct ts_runner *R)
{
	if (R->L)
		lua_close(R->L);
	R->L = NULL;
	if (R->env.mounts_ready)
		ts_mounts_free(&R->env.mounts);
	if (R->env.scratch && !R->o.keep)
		ts_remove_tree(R->env.scratch, 0);
	ts_scn_free(&R->cfg);
	ts_report_free(&R->report);
	ts_tier_set_free(R->env.tiers);
	ts_price_set_free(R->prices);
	free(R->env.workdir);
	free(R->env.datadir);
	free(R->env.mntdir);
	free(R->env.scratch);
	memset(R, 0, sizeof(*R));
}


static void record_params(struct ts_row *w, struct ts_scenario *s)
{
	static const char *const keys[][2] = {
		{ "mount", "tier" },	   { "mount", "capacity" }, { "mount", "mem" },
		{ "dataset", "kind" },	   { "dataset", "count" },  { "pipeline", "source" },
		{ "pipeline", "vcpus" },   { "pipeline", "qd" },    { "pipeline", "prefetch" },
		{ "pipeline", "decode" },  { "engine", "model" },   { "engine", "gpu" },
		{ "engine", "gpus" },	   { "engine", "batch" },   { "engine", "mode" },
		{ "engine", "framework" },
	};
	for (size_t i = 0; i < TS_ARRAY_SIZE(keys); i++) {
		void *base;
		const struct ts_opt *tab = ts_scn_section(s, keys[i][0], &base);
		const struct ts_opt *o = ts_opt_find(tab, keys[i][1]);
		if (!o)
			continue;
		char name[64], val[256];
		snprintf(name, sizeof(name), "%s.%s", keys[i][0], keys[i][1]);
		if (ts_row_param(w, name, ts_opt_get(o, base, val, sizeof(val))))
			return;
	}
}

/* ---- Decode calibration ------------------------------------------------------ */

/* Modeled decode (more vCPUs than the host has cores, decode = "modeled",
 * or --virtual) charges the cost per image measured on this host. When no
 * calibration exists yet, measure it once, as `tiersim calibrate decode`
 * does, on a small generated JPEG set, and save it where the loader looks. */
static int ensure_calibration(struct ts_runner *R, const struct ts_scenario *s, char *err,
			      size_t errlen)
{
	const char *src = s->pipe.source ? s->pipe.source : "";
	const char *dec = s->pipe.decode ? s->pipe.decode : "auto";
	const struct ts_dataset_ops *kind = s->ds.kind ? ts_dataset_find(s->ds.kind, NULL, 0) : NULL;
	if (!strcmp(dec, "none") || !strcmp(src, "null") || !strcmp(src, "text") ||
	    (kind && !(kind->caps & TS_DS_IMAGES)))
		return 0;
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	bool modeled = R->o.virtual_time || !strcmp(dec, "modeled") ||
		       (!strcmp(dec, "auto") &&
			ts_pipe_decode_auto_modeled(s->pipe.vcpus, s->pipe.host, cores));
	char path[PATH_MAX];
	if (!modeled || (s->pipe.calibration && *s->pipe.calibration) ||
	    ts_host_is_profile(s->pipe.host) ||
	    ts_pipe_default_calibration(path, sizeof(path)) || access(path, R_OK) == 0)
		return 0;

	/* The images `tiersim calibrate decode` makes, at its defaults, and
	 * the scenario's transform. */
	ts_job_note(&R->env, "no decode calibration yet: measuring libjpeg-turbo decode on this host once "
		"(tiersim calibrate decode), saved to %s", path);
	err[0] = 0;
	struct ts_decode_cal cal;
	struct ts_decode_cal_detail det;
	int rc = ts_decode_calibrate_set(NULL, TS_DECODE_CAL_COUNT, (unsigned)s->pipe.out_size,
					 (unsigned)s->pipe.resize, TS_DECODE_CAL_SECONDS * TS_NS_PER_S,
					 &cal, &det, err, errlen);
	if (!rc)
		rc = ts_decode_cal_save(path, &cal, err, errlen);
	if (rc && !err[0])
		snprintf(err, errlen, "decode calibration failed: %s", ts_strerror(rc));
	return rc;
}

/* ---- The public entry ------------------------------------------------------- */

static int row_label(struct ts_runner *R, struct ts_row *w, const char *tier, const char *label)
{
	char buf[600];
	bool many = R->o.ntiers > 1;
	if (label && *label)
		snprintf(buf, sizeof(buf), "%s%s%s", many ? tier : "", many ? " " : "", label);
	else
		snprintf(buf, sizeof(buf), "%s", tier);
	return ts_row_set_str(&w->label, buf);
}

static int run_job(struct ts_runner *R, const struct ts_job_ops *job, struct ts_scenario *s,
		   const char *tier, const struct ts_scn_run *run, int band_end, struct ts_row *w,
		   char *err, size_t errlen)
{
	const struct ts_job_args a = { .s = s, .tier = tier, .run = run, .band_end = band_end,
				       .nrun = R->nruns };
	return job->run(&R->env, &a, w, err, errlen);
}

/* cache = "warm": the state the previous run of the same job leaves, in
 * every mode. The row's job runs once untimed (the same loader, order, seed
 * and reads, into a row of its own that is dropped), then timed from what
 * it left:
 * - block mode: on the disk it mounts, in the row's memory cgroup; the
 *   disk is kept mounted and the cgroup entered (env.hold), so the kernel
 *   keeps what its LRU kept of those reads up to the cgroup's limit;
 * - FUSE mode: on its tierfs mount (mounted cold), kept running, so
 *   tierfs's page-cache model holds what that run left;
 * - virtual time: on the tier model, kept (env.vheld), whose clock goes on
 *   from the untimed run's end (ts_vtier_continue): its page-cache model,
 *   queues, burst and throughput credits and the metadata it read carry
 *   over, as they do on a disk kept mounted.
 * The row's figures are the timed run's: its counters are differences
 * taken during it, the own-memory sampler starts again with it, and its
 * trace records are those submitted from its start (live.timed_from_ns).
 * A job that writes on its disk (TS_JOB_ONCE: preprocess) cannot run
 * twice: real block mode refuses it; FUSE mode and virtual time warm its input
 * in storage order instead (tierfs's cache=warm of the input path, the
 * job's own warm), which is what a run of it before read. Everything else
 * (cold, written, synthetic data, tier "none") runs once. */
static int run_row(struct ts_runner *R, const struct ts_job_ops *job, struct ts_scenario *s,
		   const char *tier, const struct ts_scn_run *run, int band_end, struct ts_row *w,
		   char *err, size_t errlen)
{
	bool block = s->mnt.fs && *s->mnt.fs;
	if (!s->mnt.cache || strcmp(s->mnt.cache, "warm") || !strcmp(tier, "none") ||
	    (s->pipe.source && !strcmp(s->pipe.source, "null")) ||
	    ((!block || R->o.virtual_time) && (job->flags & TS_JOB_ONCE)))
		return run_job(R, job, s, tier, run, band_end, w, err, errlen);
	if (job->flags & TS_JOB_ONCE) {
		snprintf(err, errlen, "%s: mount{ fs = '%s', cache = 'warm' } runs the job once untimed "
				      "on its disk first, and %s writes its output there: use cache "
				      "= 'cold' or 'written'",
			 job->name, s->mnt.fs, job->name);
		return -EINVAL;
	}
	struct ts_row pre;
	ts_row_init(&pre);
	int rc = ts_row_set_str(&pre.label, w->label);
	struct ts_timeline *tl = R->env.timeline;
	R->env.timeline = NULL; /* the untimed run draws nothing */
	R->env.hold = true;
	R->env.hold_trace = tl != NULL;
	uint64_t t0 = ts_now_ns();
	if (!rc)
		rc = run_job(R, job, s, tier, run, band_end, &pre, err, errlen);
	R->env.timeline = tl;
	R->env.hold = R->env.hold_trace = false;
	if (!rc && pre.error) { /* a batch that does not fit: the timed run's row too */
		rc = ts_row_set_str(&w->error, pre.error);
	} else if (!rc) {
		ts_job_note(&R->env, "%s: warmed by one untimed run of the job (%.1f s)", w->label,
			    (double)(ts_now_ns() - t0) / 1e9);
		rc = run_job(R, job, s, tier, run, band_end, w, err, errlen);
	}
	ts_row_release(&pre);
	char e[512] = "";
	int erc = ts_job_hold_end(&R->env, e, sizeof(e));
	if (erc && !rc) {
		snprintf(err, errlen, "%s", e);
		rc = erc;
	}
	return rc;
}

/* --band: the row again at the slow and the fast end of its tier's ranged
 * parameters (ts_tier_profile_band), its host profile's and its engine
 * profiles' (engine/profile.c), into rows of its own; the range of samples/s
 * and AU they make goes on @w, and the parameters moved on its band_params. */
static int run_band(struct ts_runner *R, const struct ts_job_ops *job, struct ts_scenario *s,
		    const char *tier, const struct ts_scn_run *run, struct ts_row *w, char *err,
		    size_t errlen)
{
	const struct ts_tier_profile *p;
	char names[2048] = "";
	if (ts_tier_set_lookup(R->env.tiers, tier, &p, err, errlen))
		return TS_E_UNKNOWN;
	struct ts_tier_profile banded;
	ts_tier_profile_band(p, -1, &banded, names, sizeof(names));
	/* A host profile's ranged costs move with the tier's. */
	const struct ts_job_args ja = { .s = s, .tier = tier, .run = run };
	const char *host = job->band_host ? job->band_host(&ja) : NULL;
	if (host && ts_host_is_profile(host)) {
		size_t u = strlen(names);
		snprintf(names + u, sizeof(names) - u, "%shost %s's ranged costs", u ? "; " : "",
			 host);
	}
	double sps[2], au[2];
	int rc = 0;
	for (int k = 0; k < 2 && !rc; k++) {
		struct ts_row b;
		ts_row_init(&b);
		b.virtual_time = true;
		rc = ts_row_set_str(&b.label, w->label);
		if (!rc)
			rc = run_row(R, job, s, tier, run, k ? 1 : -1, &b, err, errlen);
		/* what the job moved of its own: the same list at both ends */
		if (!rc && !k && b.band_params && *b.band_params) {
			size_t u = strlen(names);
			snprintf(names + u, sizeof(names) - u, "%s%s", u ? "; " : "",
				 b.band_params);
		}
		sps[k] = b.error ? NAN : b.samples_per_s;
		au[k] = b.error ? NAN : b.au_pct;
		ts_row_release(&b);
	}
	if (rc)
		return rc;
	w->band_sps_lo = fmin(sps[0], sps[1]);
	w->band_sps_hi = fmax(sps[0], sps[1]);
	w->band_au_lo = fmin(au[0], au[1]);
	w->band_au_hi = fmax(au[0], au[1]);
	return ts_row_set_str(&w->band_params, names);
}

int ts_runner_instance(struct ts_runner *R, const char *name, const struct ts_instance **out,
		       char *err, size_t errlen)
{
	if (!R->prices) {
		int rc = ts_price_load_checked(NULL, R->env.tiers, &R->prices, err, errlen);
		if (rc)
			return rc;
	}
	return ts_price_instance(R->prices, name, out, err, errlen);
}

/* Whether the command line sets @key ("section.key"). */
static bool kv_sets(const struct ts_runner *R, const char *key)
{
	size_t n = strlen(key);
	for (size_t i = 0; i < R->o.nkv; i++)
		if (!strncmp(R->o.kv[i], key, n) && R->o.kv[i][n] == '=')
			return true;
	return false;
}

/* The instance of the command line (instance.name=, --instance) sets its
 * shape over the script's; the other overrides stay on top. An instance of
 * the script set its shape when the script named it. */
static int instance_shape(struct ts_runner *R, struct ts_scenario *s, char *err, size_t errlen)
{
	if (!s->inst.name || !*s->inst.name || !kv_sets(R, "instance.name"))
		return 0;
	const struct ts_instance *in;
	int rc = ts_runner_instance(R, s->inst.name, &in, err, errlen);
	if (!rc)
		rc = ts_scn_apply_instance(s, in, err, errlen);
	if (!rc)
		rc = apply_overrides(R, s, err, errlen);
	if (rc)
		R->usage_error = true;
	return rc;
}

/* A run on the instance's local disk is one of its disks in size (the
 * tier's largest where it models none that large, with a note). */
static int instance_disk(struct ts_runner *R, struct ts_scenario *s,
			 const struct ts_tier_profile *tier, char *err, size_t errlen)
{
	const struct ts_instance *in;
	if (!tier || !s->inst.name || !*s->inst.name || kv_sets(R, "mount.capacity"))
		return 0;
	int rc = ts_runner_instance(R, s->inst.name, &in, err, errlen);
	bool clamped;
	uint64_t c = rc ? 0 : ts_cost_local_disk(in, tier, &clamped);
	if (!c)
		return rc;
	if (clamped)
		ts_job_note(&R->env, "instance '%s': its %.0f GiB local disk is larger than tier "
			    "'%s' models; run at %.0f GiB", in->name, in->disk_gib, tier->name,
			    (double)c / (1 << 30));
	char sub[256], bytes[64];
	snprintf(bytes, sizeof(bytes), "%llu", (unsigned long long)c);
	rc = ts_opt_set(ts_scn_mount_opts, &s->mnt, "capacity", bytes, sub, sizeof(sub));
	if (rc)
		snprintf(err, errlen, "instance '%s': local disk: %s", in->name, sub);
	return rc;
}

/* The row's cost: the instance and the volume of its tier per hour, per
 * epoch (a generated image set's size), per 1,000 steps and the
 * accelerators' idle time. A tier no volume prices leaves the row unpriced
 * with a note. */
static int row_cost(struct ts_runner *R, const struct ts_scenario *s,
		    const struct ts_tier_profile *tier, struct ts_row *w)
{
	const struct ts_instance *in;
	char err[512];
	if (!s->inst.name || !*s->inst.name || w->error ||
	    ts_runner_instance(R, s->inst.name, &in, err, sizeof(err)))
		return 0;
	struct ts_cost_in ci = { .sps = w->samples_per_s, .sps_lo = w->band_sps_lo,
				 .sps_hi = w->band_sps_hi, .au = w->au_pct, .au_lo = w->band_au_lo,
				 .au_hi = w->band_au_hi, .batch = w->batch };
	ts_instance_hourly(in, &ci.inst_hour);
	if (tier && ts_cost_volume(R->prices, tier, s->mnt.capacity, &ci.vol_hour, err,
				   sizeof(err))) {
		ts_job_note(&R->env, "%s: not priced: %s", w->label, err);
		return 0;
	}
	if ((!s->ds.dir || !*s->ds.dir) && s->ds.kind && !strncmp(s->ds.kind, "imagenet", 8))
		ci.epoch_samples = s->ds.count;
	struct ts_cost c;
	ts_cost_compute(&ci, &c);
	w->cost_hour = c.hour;
	w->cost_epoch = c.epoch;
	w->cost_ksteps = c.ksteps;
	w->cost_idle = c.idle_hour;
	return ts_row_set_str(&w->instance, in->name);
}

int ts_runner_exec(struct ts_runner *R, const struct ts_job_ops *job,
		   const struct ts_scn_run *run, size_t *first, char *err, size_t errlen)
{
	*first = R->report.n;
	/* name=value given on the command line but no params{} to take it. */
	for (size_t i = 0; !R->params_seen && i < R->o.nkv; i++) {
		char sec[64], key[128];
		const char *val;
		if (split_dotted(R->o.kv[i], sec, sizeof(sec), key, sizeof(key), &val))
			continue;
		snprintf(err, errlen, "%s: this script declares no parameters (params{...}); "
				      "configuration keys are section.key=value", R->o.kv[i]);
		R->usage_error = true;
		return TS_E_UNKNOWN;
	}
	size_t ntiers = R->o.ntiers ? R->o.ntiers : 1;
	for (size_t t = 0; t < ntiers; t++) {
		if (ts_interrupted)
			return -EINTR;
		struct ts_scenario s;
		if (ts_scn_copy(&s, &R->cfg))
			return -ENOMEM;
		int rc = apply_overrides(R, &s, err, errlen);
		if (!rc)
			rc = instance_shape(R, &s, err, errlen);
		if (!rc && !ts_scn_cache_known(s.mnt.cache)) {
			snprintf(err, errlen, "mount: cache '%s' is not cold, warm or written",
				 s.mnt.cache);
			R->usage_error = true; /* a command-line override: a usage error */
			rc = -EINVAL;
		}
		/* mount{ profile = FILE } adds tiers for this run only, as it
		 * does for the tierfs that the run mounts. */
		struct ts_tier_set *builtin = R->env.tiers, *own = NULL;
		if (!rc && s.mnt.profile && *s.mnt.profile &&
		    !(rc = ts_tier_set_load_default(&own, err, errlen)) &&
		    !(rc = ts_tier_set_add_file(own, s.mnt.profile, err, errlen)))
			R->env.tiers = own;
		const char *tier = R->o.ntiers ? R->o.tiers[t] : s.mnt.tier;
		char sub[512];
		if (!rc && R->o.ntiers)
			rc = ts_opt_set(ts_scn_mount_opts, &s.mnt, "tier", tier, sub, sizeof(sub));
		tier = s.mnt.tier;
		const struct ts_tier_profile *p = NULL;
		if (!rc && strcmp(tier, "none"))
			rc = ts_tier_set_lookup(R->env.tiers, tier, &p, err, errlen);
		if (!rc)
			rc = instance_disk(R, &s, p, err, errlen);
		/* run{}: the job the engine's mode names, after the overrides */
		const struct ts_job_ops *use = job ? job : ts_job_find(s.eng.mode);
		if (!rc && !use) {
			snprintf(err, errlen, "engine: mode '%s' names no job (train, infer)",
				 s.eng.mode);
			rc = -EINVAL;
		}
		if (!rc)
			rc = ts_job_check(use, err, errlen);
		if (!rc)
			rc = ensure_calibration(R, &s, err, errlen);
		struct ts_row *w = rc ? NULL : ts_report_add(&R->report);
		if (!rc && !w)
			rc = -ENOMEM;
		if (!rc && !(rc = row_label(R, w, tier, run->label)) &&
		    !(rc = ts_row_set_str(&w->tier, tier))) {
			record_params(w, &s);
			R->nruns++;
			uint64_t t0 = ts_now_ns();
			rc = run_row(R, use, &s, tier, run, 0, w, err, errlen);
			if (!rc && R->o.band && R->o.virtual_time && !w->error)
				rc = run_band(R, use, &s, tier, run, w, err, errlen);
			if (!rc)
				rc = row_cost(R, &s, p, w);
			if (!rc)
				ts_job_note(&R->env, "[%u] %s: %s in %.1f s", R->nruns, w->label,
				     w->error ? w->error : "done",
				     (double)(ts_now_ns() - t0) / 1e9);
		}
		if (rc && w)
			ts_report_drop_last(&R->report); /* not a result */
		R->env.tiers = builtin;
		ts_tier_set_free(own);
		ts_scn_free(&s);
		if (rc)
			return rc;
	}
	return 0;
}

int ts_runner_job(struct ts_runner *R, const struct ts_job_ops *job, const char *tier,
		  const void *opts, void *out, char *err, size_t errlen)
{
	int rc = ts_job_check(job, err, errlen);
	if (rc)
		return rc;
	if (ts_interrupted)
		return -EINTR;
	struct ts_row *w = ts_report_add(&R->report);
	if (!w)
		return -ENOMEM;
	w->virtual_time = R->o.virtual_time;
	struct ts_job_args a = { .tier = tier, .nrun = R->nruns, .opts = opts, .out = out };
	if (!(rc = ts_row_set_str(&w->tier, tier)))
		rc = job->run(&R->env, &a, w, err, errlen);
	if (rc)
		ts_report_drop_last(&R->report); /* not a result */
	return rc;
}
