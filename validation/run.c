/*
 * run.c — validation cases run and judged (run.h).
 *
 * Disk-level cases run as closed-loop fio jobs on the tier model in virtual
 * time (validation/fiojob.c); with --real the same job runs with fio through
 * a tierfs mount of the tier. Workload cases with a DLIO run
 * (config.workload.dlio) run the DLIO library in virtual time
 * (workloads/dlio_run.h): at the published accelerator count for AU,
 * samples/s and MiB/s, with find_max for the count. A loader case with a
 * scenario (config.workload.scenario) runs it in virtual time through the
 * caller's scenario runner (ts_validate_cfg.scenario). Other loader cases
 * and workload cases without a DLIO run need parts the virtual pipeline
 * does not have yet: they are listed and counted apart as "not runnable
 * yet", never as passing. A case with role fits set the profile fields it names:
 * it is shown (the profile must still reproduce it) but counted apart from
 * the checking cases; so is a same-run case (role same_run: the same
 * volume, session or run as a fit, a fitting case or "host NAME" for the
 * session that measured a host profile), which is shown and not scored. The
 * outcome of a run and its ratchet are ratchet.h's: a known miss is a miss.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/files.h"
#include "core/interrupt.h"
#include "validation/fiojob.h"
#include "fs/mount.h"
#include "validation/corpus.h"
#include "core/paths.h"
#include "validation/run.h"
#include "cost/price.h"
#include "engine/engine.h"
#include "workloads/dlio_run.h"

extern char **environ;

static const char *const fig_status_name[] = { "inside",  "OUTSIDE", "known miss",
					  "fit",     "FIT OFF", "inside (known miss recorded)",
					  "not judged: below the FUSE floor",
					  "same-run, inside (not scored)",
					  "same-run, outside (not scored)" };

const char *ts_fig_status_name(enum ts_fig_status st)
{
	return st < TS_ARRAY_SIZE(fig_status_name) ? fig_status_name[st] : "?";
}

const char *ts_case_needs(struct ts_case_row *r)
{
	return ts_case_needs_of(r->c, r->needs_buf, sizeof(r->needs_buf));
}

/* The model's (or the emulation's) value for a figure, in canonical units:
 * @window >= 0 reads that window's IOPS (struct ts_fiojob, win_from). */
static double pick(const struct ts_fiojob_result *res, enum ts_case_metric m, int window)
{
	switch (m) {
	case TS_METRIC_IOPS: return window >= 0 ? res->win_iops[window] : res->iops;
	case TS_METRIC_BW: return res->mbps * 1e6;
	case TS_METRIC_LAT_MEAN: return res->lat_mean_ns;
	case TS_METRIC_LAT_P50: return res->lat_p50_ns;
	case TS_METRIC_LAT_P99: return res->lat_p99_ns;
	case TS_METRIC_LAT_STDEV: return res->lat_stdev_ns;
	default: return 0;
	}
}

/* ---- Profiles and the fitted-vs-checking rule --------------------------- */

static const struct ts_case *case_by_id(struct ts_case **all, size_t n, const char *id)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(all[i]->id, id))
			return all[i];
	return NULL;
}

static bool lists(const struct ts_case *c, const char *tier, const char *field)
{
	char want[256], group[256];
	snprintf(want, sizeof(want), "%s.%s", tier, field);
	/* "tier.latency" stands for every latency field. */
	snprintf(group, sizeof(group), "%s.latency", tier);
	for (size_t i = 0; i < c->nfitted; i++)
		if (!strcmp(c->fitted[i], want) ||
		    (!strncmp(field, "latency.", 8) && !strcmp(c->fitted[i], group)))
			return true;
	return false;
}

struct host_fit {
	struct ts_case **all;
	size_t n;
	int bad;
	FILE *out;
};

/* A host field whose source names case @id: that case fits it. */
static int host_fit(void *ctx, const char *host, const char *field, const char *id)
{
	struct host_fit *h = ctx;
	const struct ts_case *c = case_by_id(h->all, h->n, id);
	const char *why = !c	     ? "which is not in the corpus"
			  : !c->fits ? "which is a checking case (a figure that fitted a parameter "
				       "cannot also check it)"
			  : !lists(c, host, field) ? "whose role.fits does not list the field"
						   : NULL;
	if (why) {
		fprintf(h->out, "tiersim validate: host '%s': %s names case '%s', %s\n", host, field,
			id, why);
		h->bad++;
	}
	return 0;
}

/* Every evidence label that names a case names a fitting case that lists
 * the field, and every fitting case's fields name it back. Prints each
 * violation; returns how many. */
int ts_validate_fit_rule(const struct ts_tier_set *set, const struct ts_host_set *hosts,
			 struct ts_case **all, size_t n, FILE *out)
{
	int bad = 0;
	struct host_fit hf = { all, n, 0, out };
	(void)ts_host_each_fit(hosts, host_fit, &hf);
	bad += hf.bad;
	for (size_t i = 0; i < ts_tier_set_count(set); i++) {
		const struct ts_tier_profile *p = ts_tier_set_at(set, i);
		for (int f = 0; f < TS_EV_NR; f++) {
			const char *id = p->ev[f].fit_case;
			if (!id)
				continue;
			const struct ts_case *c = case_by_id(all, n, id);
			const char *why = !c	       ? "which is not in the corpus"
					  : !c->fits   ? "which is a checking case (a figure that "
							 "fitted a parameter cannot also check it)"
					  : !lists(c, p->name, ts_tier_ev_field_name(f))
						       ? "whose role.fits does not list the field"
						       : NULL;
			if (why) {
				fprintf(out, "tiersim validate: %s: tier '%s': evidence.%s names "
						"case '%s', %s\n",
					p->where, p->name, ts_tier_ev_field_name(f), id, why);
				bad++;
			}
		}
	}
	for (size_t k = 0; k < n; k++) {
		const struct ts_case *c = all[k];
		/* "host NAME": the session that measured host NAME's fields
		 * (pipeline/hosts.lua), which no case of the corpus fitted. */
		const char *host = c->same_run && !strncmp(c->same_run, "host ", 5) ?
			c->same_run + 5 : NULL;
		const struct ts_case *of = c->same_run && !host ?
			case_by_id(all, n, c->same_run) : NULL;
		if (host) {
			if (ts_host_field_names(hosts, host, "speed", c->id) == -ENOENT) {
				fprintf(out, "tiersim validate: %s: role.same_run names host '%s', "
						"which is not a host profile\n", c->path, host);
				bad++;
			}
		} else if (c->same_run && (!of || !of->fits)) {
			fprintf(out, "tiersim validate: %s: role.same_run names '%s', %s\n", c->path,
				c->same_run, of ? "which is not a fitting case" : "which is not in the corpus");
			bad++;
		}
		for (size_t i = 0; c->fits && i < c->nfitted; i++) {
			char tier[128];
			const char *dot = strchr(c->fitted[i], '.');
			snprintf(tier, sizeof(tier), "%.*s", (int)(dot - c->fitted[i]), c->fitted[i]);
			const char *field = dot + 1;
			const struct ts_tier_profile *p = ts_tier_set_find(set, tier);
			if (!p) {
				/* A host profile's field (pipeline/hosts.lua). */
				int hn = ts_host_field_names(hosts, tier, field, c->id);
				const char *hwhy = hn == -ENOENT ? "names neither a tier nor a host"
						   : hn == -EINVAL ? "is not a field of host profiles"
						   : hn == 0 ? "but the host's evidence does not name "
							       "this case"
							     : NULL;
				if (hwhy) {
					fprintf(out, "tiersim validate: %s: role.fits '%s' %s\n",
						c->path, c->fitted[i], hwhy);
					bad++;
				}
				continue;
			}
			bool named = false, known = false;
			for (int f = 0; p && f < TS_EV_NR; f++) {
				const char *fn = ts_tier_ev_field_name(f);
				bool match = !strcmp(fn, field) ||
					     (!strcmp(field, "latency") && !strncmp(fn, "latency.", 8));
				if (!match)
					continue;
				known = true;
				named |= p->ev[f].fit_case && !strcmp(p->ev[f].fit_case, c->id);
			}
			/* A tier without an evidence table is unlabelled: nothing to
			 * hold the case against (tiersim tiers --evidence shows it). */
			const char *why = !known || !p->has_evidence
						   ? NULL /* not an evidence field: see the profile comment */
					  : !named ? "but the tier's evidence does not name this case"
						   : NULL;
			if (why) {
				fprintf(out, "tiersim validate: %s: role.fits '%s' %s\n", c->path,
					c->fitted[i], why);
				bad++;
			}
		}
	}
	return bad;
}

/* ---- Running one case ------------------------------------------------------ */

/* Runs the case's job with fio through a tierfs mount of its tier.
 *
 * Why one long function: one case's real run as one sequence (scratch
 * folder, files, mount, fio, the mount's floor, the results, teardown), each
 * failure leaving through the teardown in reverse (rm:).
 */
static int run_real(const struct ts_case *c, const struct ts_validate_cfg *v, const char *profile_path,
		    const struct ts_tier_ebs *ebs, struct ts_fiojob_result *res, double *floor_ns,
		    char *err, size_t errlen)
{
	if (c->raid0 > 1) {
		snprintf(err, errlen, "config.device.raid0: --real mounts one volume; an array of %u "
			 "needs a RAID-0 over %u tierfs mounts (run this case without --real)", c->raid0,
			 c->raid0);
		return -ENOTSUP;
	}
	if (c->job.serial) {
		snprintf(err, errlen, "config.workload.serial: --real runs fio with io_uring, whose "
			 "requests reach the tier together; this case needs them one at a time (run "
			 "it without --real)");
		return -ENOTSUP;
	}
	if (c->job.bucket_set) {
		snprintf(err, errlen, "config.device.bucket: --real mounts a fresh tier, whose bucket "
			 "is full; this case needs it as the run before left it (run it without --real)");
		return -ENOTSUP;
	}
	if (c->job.nwin) {
		snprintf(err, errlen, "figures: a window of the run needs fio's IOPS log, which "
			 "--real does not read (run this case without --real)");
		return -ENOTSUP;
	}
	char work[PATH_MAX], backing[PATH_MAX + 16], mnt[PATH_MAX + 16], out[PATH_MAX + 16];
	const char *tmp = getenv("TMPDIR");
	tmp = tmp && *tmp ? tmp : "/tmp";
	snprintf(work, sizeof(work), "%s/tiersim-validate.XXXXXX", tmp);
	if (!mkdtemp(work)) {
		int e = -errno;
		snprintf(err, errlen, "cannot make a scratch folder in %s: %s", tmp, strerror(-e));
		return e;
	}
	snprintf(backing, sizeof(backing), "%s/backing", work);
	snprintf(mnt, sizeof(mnt), "%s/mnt", work);
	snprintf(out, sizeof(out), "%s/fio.json", work);
	uint64_t size = TS_MIN(c->job.size, v->real_size);
	size -= size % c->job.bs;
	int rc = mkdir(backing, 0755) || mkdir(mnt, 0755) ? -errno : 0;
	for (unsigned j = 0; !rc && j < c->job.numjobs; j++) {
		char f[PATH_MAX + 48];
		snprintf(f, sizeof(f), "%s/f.%u", backing, j);
		/* Sparse files: the tier model, not the backing disk, sets the pace. */
		FILE *fp = fopen(f, "w");
		if (!fp || ftruncate(fileno(fp), (off_t)size))
			rc = -errno;
		if (fp)
			fclose(fp);
	}
	if (rc) {
		snprintf(err, errlen, "cannot lay out the fio files in %.512s: %s", work, strerror(-rc));
		goto rm;
	}
	struct ts_mounts ms;
	struct ts_mount *m = NULL;
	char opts[4608];
	int on = snprintf(opts, sizeof(opts), "tier=%s,capacity=%llu%s%s", c->tier,
			  (unsigned long long)c->capacity, profile_path ? ",profile=" : "",
			  profile_path ? profile_path : "");
	/* the instance's EBS limits (config.device.instance), as tierfs options */
	if (on < 0 || (size_t)on >= sizeof(opts) ||
	    ts_mount_ebs_opts(ebs, opts + on, sizeof(opts) - (size_t)on) >= sizeof(opts) - (size_t)on) {
		snprintf(err, errlen, "tierfs options too long");
		rc = -ENAMETOOLONG;
		goto rm;
	}
	if ((rc = ts_mounts_init(&ms, err, errlen)))
		goto rm;
	if ((rc = ts_mount_start(&ms, backing, mnt, opts, &m, err, errlen))) {
		ts_mounts_free(&ms);
		goto rm;
	}
	uint64_t rt = c->job.runtime ? TS_MIN(c->job.runtime, v->real_runtime) : v->real_runtime;
	static const char *const rws[] = { "read", "randread", "write", "randwrite" };
	char a_dir[PATH_MAX + 32], a_rw[32], a_bs[48], a_qd[32], a_nj[32], a_size[48], a_rt[48],
		a_out[PATH_MAX + 32], a_think[48];
	snprintf(a_dir, sizeof(a_dir), "--directory=%s", mnt);
	snprintf(a_rw, sizeof(a_rw), "--rw=%s", rws[c->job.write * 2 + c->job.random]);
	snprintf(a_bs, sizeof(a_bs), "--bs=%llu", (unsigned long long)c->job.bs);
	snprintf(a_qd, sizeof(a_qd), "--iodepth=%u", c->job.iodepth);
	snprintf(a_nj, sizeof(a_nj), "--numjobs=%u", c->job.numjobs);
	snprintf(a_size, sizeof(a_size), "--size=%llu", (unsigned long long)size);
	snprintf(a_rt, sizeof(a_rt), "--runtime=%.3f", (double)rt / 1e9);
	snprintf(a_out, sizeof(a_out), "--output=%s", out);
	snprintf(a_think, sizeof(a_think), "--thinktime=%lluus",
		 (unsigned long long)(c->job.think_ns / 1000));
	/* Random offsets drawn as the virtual job draws them, with
	 * replacement: fio's random map on a file cut to --real-size would
	 * cycle through it and, late in each pass, take the next free block
	 * after a used one, reads adjacent to recent ones that the case's run
	 * on its full file did not make (and that merge into one EBS I/O). */
	char *argv[] = { "fio", "--name=validate", a_dir, "--filename_format=f.$jobnum",
			 "--direct=1", "--ioengine=io_uring", "--thread", a_rw, a_bs, a_qd,
			 a_nj, a_size, a_rt, "--time_based", "--group_reporting",
			 "--output-format=json", a_out, a_think,
			 c->job.random ? "--norandommap" : NULL, NULL };
	pid_t pid;
	int st = 0;
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
	/* The one interrupt path (core/interrupt.h): a signal sent to tiersim
	 * alone is passed on to fio, which stops; the mount comes down below
	 * and the caller ends with 130. */
	rc = ts_interrupted ? -EINTR : posix_spawnp(&pid, "fio", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc > 0) {
		snprintf(err, errlen, "cannot run fio: %s", strerror(rc));
		rc = -rc;
	} else if (!rc) {
		ts_interrupt_forward(pid);
		if (ts_interrupted) /* came before the pid was known */
			kill(pid, ts_interrupted);
		int w;
		while ((w = waitpid(pid, &st, 0)) < 0 && errno == EINTR)
			;
		ts_interrupt_forward(0);
		if (ts_interrupted)
			rc = -EINTR;
		else if (w < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
			rc = -EIO;
	}
	if (rc == -EINTR)
		snprintf(err, errlen, "interrupted by signal %d", (int)ts_interrupted);
	else if (rc == -EIO)
		snprintf(err, errlen, "fio failed on the tierfs mount of %s", c->tier);
	/* The FUSE round trip tierfs measured at mount: a latency below it
	 * cannot be emulated on this host. Without it no latency can be
	 * judged, so an unreadable figure fails the case. */
	char stats[PATH_MAX + 32];
	snprintf(stats, sizeof(stats), "%s/.tierfs/stats", mnt);
	json_error_t sje;
	json_t *sj = json_load_file(stats, 0, &sje);
	json_t *fl = json_object_get(sj, "floor_ns");
	if (!rc && !json_is_integer(fl)) {
		snprintf(err, errlen, "%.512s: %s", stats,
			 sj ? "no integer floor_ns (the FUSE round trip tierfs measured)" : sje.text);
		rc = -EIO;
	}
	*floor_ns = (double)json_integer_value(fl);
	json_decref(sj);
	char merr[256];
	if (ts_mount_stop(&ms, m, merr, sizeof(merr)) && !rc) {
		snprintf(err, errlen, "%s", merr);
		rc = -EIO;
	}
	ts_mounts_free(&ms);
	if (!rc) {
		json_error_t je;
		json_t *j = json_load_file(out, 0, &je);
		json_t *side = json_object_get(json_array_get(json_object_get(j, "jobs"), 0),
					       c->job.write ? "write" : "read");
		json_t *clat = json_object_get(side, "clat_ns");
		json_t *pct = json_object_get(clat, "percentile");
		if (!side || !clat) {
			snprintf(err, errlen, "fio wrote no %s results to %.512s", c->job.write ? "write" : "read", out);
			rc = -EIO;
		} else {
			*res = (struct ts_fiojob_result){
				.iops = json_number_value(json_object_get(side, "iops")),
				.mbps = json_number_value(json_object_get(side, "bw_bytes")) / 1e6,
				.lat_mean_ns = json_number_value(json_object_get(clat, "mean")),
				.lat_p50_ns = json_number_value(json_object_get(pct, "50.000000")),
				.lat_p99_ns = json_number_value(json_object_get(pct, "99.000000")),
				.lat_stdev_ns = json_number_value(json_object_get(clat, "stddev")),
			};
		}
		json_decref(j);
	}
rm:;
	/* the scratch folder held the mount: ts_remove_tree does not cross
	 * into a file system still mounted there */
	int rrc = ts_remove_tree(work, 0);
	if (rrc)
		fprintf(stderr, "tiersim validate: could not remove %s: %s\n", work,
			ts_strerror(rrc));
	return rc;
}

/* A workload case's DLIO runs in virtual time, in one search where it has
 * both kinds of figure: with @at the run at the published count (into
 * @at_r), with @max the largest count that keeps the threshold (into
 * @max_r, *found false when none does). The search runs the published
 * count first and whole (ts_dlio_opts.find_from): those are the figures at
 * that count, and it brackets the answer. The dataset is scaled to
 * run_files and the page cache with it, so that the share of the dataset
 * memory holds stays the run's. */
static int dlio_runs(const struct ts_case *c, bool at, bool max, struct ts_dlio_result *at_r,
		     struct ts_dlio_result *max_r, bool *found, char *err, size_t errlen)
{
	const struct ts_case_dlio *d = c->dlio;
	char prof[4096], files[96];
	struct ts_dlio_opts o;
	memset(&o, 0, sizeof(o));
	*found = false;
	int rc = ts_opt_defaults(ts_dlio_run_opts, &o, err, errlen);
	if (rc)
		return rc;
	/* The only default the table allocates; NULL is the same search, and
	 * every other field here is borrowed from the case. */
	free(o.search);
	o.search = NULL;
	o.workload = d->workload;
	o.tier = d->tier;
	o.host = d->host;
	if (d->profile) {
		if (ts_data_find(d->profile, prof, sizeof(prof))) {
			snprintf(err, errlen, "profile file %s not found (set TIERSIM_DATADIR to the "
					      "source tree)", d->profile);
			return -ENOENT;
		}
		o.profile = prof;
	}
	o.mem = (uint64_t)((unsigned __int128)d->mem * d->run_files / d->files);
	o.find_max = max;
	o.find_from = max && at ? d->accelerators : 0;
	o.accelerators = max ? 1 : d->accelerators;
	o.virtual_time = true;
	o.quiet = true;
	const char **ov = calloc(d->noverrides + 2, sizeof(*ov));
	struct ts_dlio_outcome *oc = calloc(1, sizeof(*oc));
	if (!ov || !oc) {
		free(ov);
		free(oc);
		return -ENOMEM;
	}
	for (size_t i = 0; i < d->noverrides; i++)
		if (!strstr(d->overrides[i], "num_files_train"))
			ov[o.noverrides++] = d->overrides[i];
	snprintf(files, sizeof(files), "++workload.dataset.num_files_train=%" PRIu64, d->run_files);
	ov[o.noverrides++] = files;
	char epochs[64];
	if (d->run_epochs) {
		snprintf(epochs, sizeof(epochs), "++workload.train.epochs=%" PRIu64, d->run_epochs);
		ov[o.noverrides++] = epochs;
	}
	o.overrides = ov;
	rc = ts_dlio_run(&o, oc, err, errlen);
	if (!rc && at && (!oc->nr || oc->rs[0].n != d->accelerators || oc->rs[0].stopped)) {
		snprintf(err, errlen, "the DLIO run at %" PRIu64 " accelerators gave no figures",
			 d->accelerators);
		rc = -EIO;
	}
	if (!rc && at)
		*at_r = oc->rs[0];
	const struct ts_dlio_result *best = rc || !max ? NULL : ts_dlio_outcome_pick(&o, oc);
	if (best) {
		*found = true;
		*max_r = *best;
	}
	ts_dlio_outcome_free(oc);
	free(oc);
	free(ov);
	return rc;
}

/* The published run's samples/s and MiB/s from a run of run_files of its
 * files. DLIO counts an epoch's first step in its samples/s, and that step
 * (the loader filling its prefetch before any batch is taken) lasts as long
 * whatever the dataset's size, while the other steps grow in number with
 * it: per epoch, T(F) = c + k F, with c = first_s - step_s and k F the
 * steps at F files times step_s. So each epoch's samples/s at the
 * published count of files is samples x / (first_s + (steps x - 1)
 * step_s), x = files / run_files, and the figure is their mean over epochs,
 * as DLIO's. On a run of the whole dataset (x = 1) it is the run's own. */
static int whole_dataset(const struct ts_case_dlio *d, struct ts_dlio_result *r, char *err,
			 size_t errlen)
{
	if (d->run_files == d->files || !r->epochs)
		return 0;
	if (r->epochs > TS_DLIO_EPOCHS_KEPT) {
		snprintf(err, errlen, "the run kept the steps of %d of its %" PRIu64 " epochs; "
				      "run at most %d (run_epochs)", TS_DLIO_EPOCHS_KEPT, r->epochs,
			 TS_DLIO_EPOCHS_KEPT);
		return -EINVAL;
	}
	double x = (double)d->files / (double)d->run_files, sum = 0;
	for (uint64_t e = 0; e < r->epochs; e++) {
		const struct ts_dlio_epoch *ep = &r->ep[e];
		sum += (double)ep->samples * x /
		       (ep->first_s + ((double)ep->steps * x - 1) * ep->step_s);
	}
	double sps = sum / (double)r->epochs;
	r->mib_s *= r->samples_s > 0 ? sps / r->samples_s : 0;
	r->samples_s = sps;
	return 0;
}

/* A workload case's figures from its DLIO runs (case.c checked the names
 * and units: au %, throughput samples/s, read_bandwidth MiB/s or MB/s,
 * max_accelerators). */
static int run_dlio_case(const struct ts_case *c, double *pred, char *err, size_t errlen)
{
	bool at = false, max = false;
	for (size_t i = 0; i < c->nfig; i++)
		*(strcmp(c->fig[i].name, "max_accelerators") ? &at : &max) = true;
	struct ts_dlio_result o = { 0 }, mx = { 0 };
	bool mx_found = false;
	int rc = dlio_runs(c, at, max, &o, &mx, &mx_found, err, errlen);
	if (!rc && at)
		rc = whole_dataset(c->dlio, &o, err, errlen);
	for (size_t i = 0; !rc && i < c->nfig; i++) {
		const struct ts_case_figure *f = &c->fig[i];
		pred[i] = !strcmp(f->name, "au")	       ? 100 * o.au
			  : !strcmp(f->name, "throughput") ? o.samples_s
			  : !strcmp(f->name, "max_accelerators")
				  ? (mx_found ? (double)mx.n : 0)
			  : !strcmp(f->unit, "MB/s") ? o.mib_s * 1.048576
						     : o.mib_s;
	}
	return rc;
}

/* An accelerator case's figures from the engine's sim backend: one GPU (or
 * the case's data-parallel gpus) at the case's batch, without jitter
 * (ts_engine_estimate). A checking figure the
 * profiles publish themselves must be held out (hold_out), or the check
 * would read back its own anchor: such a case is refused, not scored. */
static int run_engine_case(const struct ts_case *c, double *pred, char *err, size_t errlen)
{
	const struct ts_case_engine *x = c->engine;
	struct ts_engine_cfg cfg;
	struct ts_engine_info info;
	int rc = ts_engine_cfg_defaults(&cfg, err, errlen);
	char *set[] = { "sim", x->framework, x->model, x->gpu, x->mode, x->precision,
			x->hold_out ? x->hold_out : "" };
	char **field[] = { &cfg.backend, &cfg.framework, &cfg.model, &cfg.gpu,
			   &cfg.mode, &cfg.precision, &cfg.hold_out };
	for (size_t i = 0; rc == 0 && i < TS_ARRAY_SIZE(set); i++) {
		free(*field[i]);
		if (!(*field[i] = strdup(set[i])))
			rc = -ENOMEM;
	}
	cfg.batch = x->batch;
	cfg.gpus = x->gpus;
	if (rc == 0)
		rc = ts_engine_estimate(&cfg, &info, err, errlen);
	ts_engine_cfg_free(&cfg);
	if (rc == 0 && !c->fits && info.basis == TS_BASIS_ANCHORED) {
		snprintf(err, errlen, "the figure is a published anchor of the engine profiles (%.800s): "
				      "a checking case holds it out (config.workload.engine.hold_out)",
			 info.source);
		rc = -EINVAL;
	}
	/* One GPU: its samples/s; n GPUs: all of theirs, the exchange included
	 * (a step then takes batch x n / samples_per_s); scaling: n GPUs'
	 * samples/s over one's at the same batch, the exchange alone. */
	double rate = x->gpus > 1 ? info.samples_per_s : info.samples_per_s_1gpu;
	for (size_t i = 0; rc == 0 && i < c->nfig; i++)
		pred[i] = strcmp(c->fig[i].name, "step_time") == 0
				  ? (double)(x->batch * x->gpus) / rate
			  : strcmp(c->fig[i].name, "scaling") == 0
				  ? info.samples_per_s / info.samples_per_s_1gpu
				  : rate;
	return rc;
}

/* A loader case's figure: its scenario in virtual time (v->scenario), the
 * one row's samples/s for each figure (all are throughput: case.c). */
static int run_scenario_case(const struct ts_case *c, const struct ts_validate_cfg *v,
			     double *pred, char *err, size_t errlen)
{
	char path[4096];
	double sps = 0;
	if (!v->scenario) {
		snprintf(err, errlen, "config.workload.scenario: this program has no scenario runner "
				      "(tiersim validate runs loader cases)");
		return -ENOTSUP;
	}
	if (ts_data_find(c->scenario->script, path, sizeof(path))) {
		snprintf(err, errlen, "config.workload.scenario.script: %.900s: not found",
			 c->scenario->script);
		return -ENOENT;
	}
	int rc = v->scenario(path, c->scenario->kv, c->scenario->nkv, &sps, err, errlen);
	for (size_t i = 0; rc == 0 && i < c->nfig; i++)
		pred[i] = sps;
	return rc;
}

enum ts_fig_status ts_fig_verdict(const struct ts_case *c, const struct ts_case_figure *f,
				  double predicted, bool below_floor, double *error)
{
	*error = f->value > 0 ? (predicted - f->value) / f->value : 0;
	bool in = fabs(*error) <= f->tolerance;
	if (below_floor)
		return TS_FIG_FLOOR;
	if (c->fits)
		return in ? TS_FIG_FIT : TS_FIG_FIT_OFF;
	if (c->same_run)
		return in ? TS_FIG_SAME_IN : TS_FIG_SAME_OUT;
	if (f->known_miss)
		return in ? TS_FIG_KNOWN_NOW_INSIDE : TS_FIG_KNOWN;
	return in ? TS_FIG_INSIDE : TS_FIG_OUTSIDE;
}

/* The EBS limits of the instance a disk case names (config.device.instance)
 * into @job. */
static int case_ebs(const struct ts_case *c, const struct ts_tier_profile *p, struct ts_fiojob *job,
		    char *err, size_t errlen)
{
	if (!c->instance)
		return 0;
	/* as a scenario's instance (ts_scn_ebs): its limits bind EBS volumes only */
	if (!ts_tier_is_ebs(p)) {
		snprintf(err, errlen, "config.device.instance: tier '%s' is not an EBS volume (aws-*), "
				      "which the instance's EBS limits apply to", c->tier);
		return -EINVAL;
	}
	struct ts_price_set *prices;
	const struct ts_instance *in;
	char sub[512];
	int rc = ts_price_set_load_default(&prices, sub, sizeof(sub));
	if (!rc) {
		rc = ts_price_instance(prices, c->instance, &in, sub, sizeof(sub));
		if (!rc)
			ts_instance_ebs(in, &job->ebs);
		ts_price_set_free(prices);
	}
	if (rc)
		snprintf(err, errlen, "config.device.instance: %s", sub);
	return rc;
}

int ts_case_run(struct ts_case_row *r, const struct ts_tier_set *set,
		const struct ts_validate_cfg *v)
{
	const struct ts_case *c = r->c;
	char err[1024];
	struct ts_fiojob_result res = { 0 }, model = { 0 };
	const struct ts_tier_profile *p;
	double floor_ns = 0, *pred = calloc(c->nfig, sizeof(*pred));
	if (!pred)
		return -ENOMEM;
	int rc = 0;
	if (c->dlio) {
		rc = run_dlio_case(c, pred, err, sizeof(err));
	} else if (c->engine) {
		rc = run_engine_case(c, pred, err, sizeof(err));
	} else if (c->scenario) {
		rc = run_scenario_case(c, v, pred, err, sizeof(err));
	} else if (!(rc = ts_tier_set_lookup(set, c->tier, &p, err, sizeof(err))) && v->real) {
		char path[4096];
		bool has = c->profile && !ts_data_find(c->profile, path, sizeof(path));
		struct ts_fiojob job = c->job;
		if (!(rc = case_ebs(c, p, &job, err, sizeof(err))))
			rc = run_real(c, v, has ? path : NULL, &job.ebs, &res, &floor_ns, err,
				      sizeof(err));
		/* What the model targets, to tell which latencies the host can emulate. */
		if (!rc)
			rc = ts_fiojob_run(p, c->capacity, &job, &model, err, sizeof(err));
	} else if (!rc) {
		struct ts_fiojob job = c->job;
		if (!(rc = case_ebs(c, p, &job, err, sizeof(err))))
			rc = ts_fiojob_run(p, c->capacity, &job, &res, err, sizeof(err));
	}
	if (rc) {
		fprintf(stderr, "tiersim validate: %s: %s\n", c->path, err);
		r->failed = true;
		free(pred);
		return rc;
	}
	for (size_t i = 0; i < c->nfig; i++) {
		const struct ts_case_figure *f = &c->fig[i];
		struct ts_fig_row *fr = &r->f[i];
		fr->fig = f;
		fr->predicted = c->dlio || c->engine || c->scenario ? pred[i]
						     : pick(&res, f->metric, f->window) / f->scale;
		bool floor = v->real && f->metric >= TS_METRIC_LAT_MEAN &&
			     f->metric <= TS_METRIC_LAT_P99 && pick(&model, f->metric, -1) < floor_ns;
		fr->st = ts_fig_verdict(c, f, fr->predicted, floor, &fr->error);
	}
	free(pred);
	return 0;
}

/* What a child sends back for its row: the figures' rows, then failed. */
static int send_row(int fd, const struct ts_case_row *r)
{
	size_t len = r->c->nfig * sizeof(*r->f);
	const char *p = (const char *)r->f;
	while (len) {
		ssize_t k = write(fd, p, len);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -errno;
		p += k;
		len -= (size_t)k;
	}
	unsigned char failed = r->failed;
	return write(fd, &failed, 1) == 1 ? 0 : -EIO;
}

static int recv_row(int fd, struct ts_case_row *r)
{
	size_t len = r->c->nfig * sizeof(*r->f), got = 0;
	char *p = (char *)r->f;
	unsigned char failed = 1;
	while (got < len + 1) {
		ssize_t k = read(fd, got < len ? p + got : (char *)&failed, got < len ? len - got : 1);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -EIO;
		got += (size_t)k;
	}
	r->failed = failed;
	return 0;
}

struct child {
	pid_t pid;
	int fd;
	size_t row;
};

/* Waits for one of the @n children, takes its row (failed if the child
 * died) and closes it; -errno only when there is nothing to wait for. */
static int reap(struct ts_case_row *rows, bool *reaped, struct child *ch, size_t *n)
{
	int status;
	pid_t pid;
	while ((pid = waitpid(-1, &status, 0)) < 0 && errno == EINTR)
		if (ts_interrupted) /* the children stop too (a kill(1) of tiersim alone) */
			for (size_t k = 0; k < *n; k++)
				kill(ch[k].pid, ts_interrupted);
	if (pid < 0)
		return -errno;
	for (size_t k = 0; k < *n; k++) {
		if (ch[k].pid != pid)
			continue;
		struct ts_case_row *r = &rows[ch[k].row];
		int rc = WIFEXITED(status) && WEXITSTATUS(status) == 0 ? recv_row(ch[k].fd, r) : -EIO;
		close(ch[k].fd);
		if (rc) { /* the row fails; the others go on */
			fprintf(stderr, "tiersim validate: %s: its run died (%s %d)\n", r->c->path,
				WIFSIGNALED(status) ? "signal" : "exit status",
				WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
			r->failed = true;
		}
		reaped[ch[k].row] = true;
		ch[k] = ch[--*n];
		return 0;
	}
	return 0; /* not one of ours */
}

/* What a DLIO case's runs cost, in CPU seconds, as far as the workload
 * tells before they run: per sample read and per byte, over the epochs
 * run, twice for a search (its count's run and one more about as long).
 * The weights are the corpus's own (measured: the resnet50 rows spent
 * about 2 us per sample, the unet3d rows about 4 s per TB, page cache
 * included); only the order they give matters. 0 when the workload does
 * not load (the case then fails in its run, with the reason). */
static double dlio_cost(const struct ts_case *c)
{
	const struct ts_case_dlio *d = c->dlio;
	struct ts_dlio_workload w;
	char path[4096], err[256];
	memset(&w, 0, sizeof(w));
	if (ts_dlio_find(d->workload, path, sizeof(path), err, sizeof(err)) ||
	    ts_dlio_load(path, &w, NULL, err, sizeof(err))) {
		ts_dlio_free(&w);
		return 0;
	}
	for (size_t i = 0; i < d->noverrides; i++)
		if (ts_dlio_override(&w, d->overrides[i], err, sizeof(err)))
			break;
	bool max = false;
	for (size_t i = 0; i < c->nfig; i++)
		max |= !strcmp(c->fig[i].name, "max_accelerators");
	double samples = (double)d->run_files * (double)w.num_samples_per_file;
	double epochs = (double)(d->run_epochs ? d->run_epochs : w.epochs);
	double cost = epochs * samples * (2e-6 + w.record_length * 4e-12) * (max ? 2 : 1);
	ts_dlio_free(&w);
	return cost;
}

/* @order's @n rows, the costliest first (ties in their order). */
static void sort_by_cost(size_t *order, size_t n, const double *cost)
{
	for (size_t i = 1; i < n; i++) {
		size_t x = order[i], j = i;
		for (; j > 0 && cost[order[j - 1]] < cost[x]; j--)
			order[j] = order[j - 1];
		order[j] = x;
	}
}

int ts_case_run_all(struct ts_case_row *rows, size_t n, const struct ts_tier_set *set,
		    const struct ts_validate_cfg *v)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	size_t jobs = v->jobs ? (size_t)v->jobs : cpus > 0 ? (size_t)cpus : 1;
	if (v->real || jobs < 2) {
		for (size_t i = 0; i < n && !ts_interrupted; i++)
			if (!rows[i].needs)
				ts_case_run(&rows[i], set, v);
		return 0;
	}
	size_t *order = malloc((n + 1) * sizeof(*order)), norder = 0;
	struct child *ch = calloc(jobs, sizeof(*ch));
	bool *reaped = calloc(n + 1, sizeof(*reaped));
	if (!order || !ch || !reaped) {
		free(order);
		free(ch);
		free(reaped);
		return -ENOMEM;
	}
	/* DLIO runs take seconds each, the rest milliseconds: start them first,
	 * the longest first, so that the last to finish is a short one. */
	double *cost = calloc(n + 1, sizeof(*cost));
	if (!cost) {
		free(order);
		free(ch);
		free(reaped);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		if (!rows[i].needs && rows[i].c->dlio) {
			cost[i] = dlio_cost(rows[i].c);
			order[norder++] = i;
		}
	sort_by_cost(order, norder, cost);
	for (size_t i = 0; i < n; i++)
		if (!rows[i].needs && !rows[i].c->dlio)
			order[norder++] = i;
	free(cost);
	int ret = 0;
	size_t nch = 0;
	fflush(stdout);
	fflush(stderr);
	for (size_t k = 0; k < norder || nch;) {
		if (k < norder && nch < jobs && !ts_interrupted) {
			struct ts_case_row *r = &rows[order[k]];
			int fd[2];
			if (pipe2(fd, O_CLOEXEC)) {
				ret = -errno;
				break;
			}
			pid_t pid = fork();
			if (pid == 0) {
				close(fd[0]);
				ts_case_run(r, set, v);
				fflush(stderr);
				_exit(send_row(fd[1], r) ? 1 : 0);
			}
			close(fd[1]);
			if (pid < 0) {
				close(fd[0]);
				ret = -errno;
				break;
			}
			ch[nch++] = (struct child){ pid, fd[0], order[k] };
			k++;
			continue;
		}
		if (!nch)
			break; /* interrupted: nothing more starts */
		int rc = reap(rows, reaped, ch, &nch);
		if (rc && !ret)
			ret = rc;
	}
	/* After a failed start: the children running finish, the rest of the
	 * rows fail. */
	while (nch) {
		int rc = reap(rows, reaped, ch, &nch);
		if (rc == -ECHILD)
			break;
	}
	if (ret) {
		fprintf(stderr, "tiersim validate: cannot run the cases in parallel: %s\n",
			strerror(-ret));
		for (size_t i = 0; i < n; i++)
			if (!rows[i].needs && !reaped[i])
				rows[i].failed = true;
	}
	free(order);
	free(ch);
	free(reaped);
	return ret;
}

static int cmp_abs(const void *a, const void *b)
{
	double x = fabs(*(const double *)a), y = fabs(*(const double *)b);
	return (x > y) - (x < y);
}

static int cmp_worst(const void *a, const void *b)
{
	const struct ts_fig_row *x = *(const struct ts_fig_row *const *)a, *y = *(const struct ts_fig_row *const *)b;
	double ex = fabs(x->error), ey = fabs(y->error);
	return (ex < ey) - (ex > ey);
}

enum ts_outcome ts_case_outcome_of(const struct ts_case_row *r)
{
	if (r->needs)
		return TS_OUTCOME_NOT_RUNNABLE;
	if (r->failed)
		return TS_OUTCOME_FAILED;
	bool in = true, unexplained = false;
	for (size_t k = 0; k < r->c->nfig; k++) {
		enum ts_fig_status st = r->f[k].st;
		if (st == TS_FIG_FLOOR)
			continue;
		in &= st == TS_FIG_INSIDE || st == TS_FIG_FIT || st == TS_FIG_KNOWN_NOW_INSIDE ||
		      st == TS_FIG_SAME_IN;
		unexplained |= st == TS_FIG_OUTSIDE;
	}
	if (r->c->fits)
		return in ? TS_OUTCOME_FIT : TS_OUTCOME_FIT_OFF;
	if (r->c->same_run)
		return TS_OUTCOME_SAME_RUN;
	return in ? TS_OUTCOME_INSIDE : unexplained ? TS_OUTCOME_OUTSIDE : TS_OUTCOME_KNOWN;
}

void ts_validate_summarize(struct ts_case_row *rows, size_t n, const struct ts_ratchet *ratchet,
			   struct ts_case_outcome *o, struct ts_validate_summary *s,
			   double *errs, struct ts_fig_row **worst, size_t *nworst)
{
	memset(s, 0, sizeof(*s));
	*nworst = 0;
	for (size_t i = 0; i < n; i++) {
		struct ts_case_row *r = &rows[i];
		o[i] = r->outcome = (struct ts_case_outcome){ r->c->id, ts_case_outcome_of(r) };
		if (r->needs || r->failed)
			continue;
		bool same_in = true;
		for (size_t k = 0; k < r->c->nfig; k++) {
			enum ts_fig_status st = r->f[k].st;
			if (st == TS_FIG_FLOOR) {
				s->floor++;
				continue;
			}
			same_in &= st == TS_FIG_SAME_IN;
			if (!r->c->fits && !r->c->same_run) {
				errs[s->nerr++] = r->f[k].error;
				worst[(*nworst)++] = &r->f[k];
			}
		}
		s->same_inside += r->c->same_run && same_in;
	}
	ts_verdict_judge(o, n, ratchet, &s->v);
	qsort(errs, s->nerr, sizeof(*errs), cmp_abs);
	s->median = !s->nerr ? 0
		    : s->nerr % 2 ? fabs(errs[s->nerr / 2])
				  : (fabs(errs[s->nerr / 2 - 1]) + fabs(errs[s->nerr / 2])) / 2;
	qsort(worst, *nworst, sizeof(*worst), cmp_worst);
}

bool ts_validate_passed(const struct ts_validate_summary *s)
{
	return s->v.pass;
}
