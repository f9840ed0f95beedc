/*
 * cmd_validate.c — `tiersim validate`: runs the validation cases
 * (validation/cases/NAME.json, validation/README.md) and prints, for every
 * measured figure, what the model predicts, the error and whether it is
 * inside the case's tolerance, then a summary.
 *
 * Disk-level cases run as closed-loop fio jobs on the tier model in virtual
 * time (validation/fiojob.c); with --real the same job runs with fio through
 * a tierfs mount of the tier. Workload cases with a DLIO run
 * (config.workload.dlio) run `tiersim dlio`'s code in virtual time
 * (ts_dlio_run): at the published accelerator count for AU, samples/s and
 * MiB/s, with find_max for the count. Loader cases and workload cases
 * without a DLIO run need parts the virtual pipeline does not have yet:
 * they are listed and counted apart as "not runnable yet", never as
 * passing. A case with role fits set the
 * profile fields it names: it is shown (the profile must still reproduce
 * it) but counted apart from the checking cases. Before anything runs the
 * corpus and the profiles' evidence labels (tier and host profiles) are
 * checked against each other: a fitted field names its case, and that case
 * is not a checking one.
 *
 * Exit status: 0 when every checking figure is inside its tolerance or a
 * recorded known miss and every fit is reproduced; 1 otherwise or when a
 * case or profile file is refused; 2 for a bad command line.
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <glob.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmdline.h"
#include "commands.h"
#include "workloads/dlio_run.h"
#include "pipeline/host.h"
#include "opt.h"
#include "paths.h"
#include "units.h"
#include "tier/tier.h"
#include "validation/case.h"
#include "validation/fiojob.h"
#include "fs/mount.h"

extern char **environ;

struct vcfg {
	bool json, real;
	char *cases;	       /* folder of case files; NULL = validation/cases */
	char *skip_tag;	       /* cases with this tag are not selected */
	uint64_t real_runtime; /* ns: longest fio run per case with --real */
	uint64_t real_size;    /* bytes: largest file per fio job with --real */
};

#define OFF(f) offsetof(struct vcfg, f)
static const struct ts_opt vopts[] = {
	{ "json", TS_OPT_BOOL, OFF(json), "false", 0, 0, "", "print the results as JSON" },
	{ "real", TS_OPT_BOOL, OFF(real), "false", 0, 0, "",
	  "run disk cases with fio through a tierfs mount instead of in virtual time" },
	{ "cases", TS_OPT_STR, OFF(cases), NULL, 0, 0, "",
	  "folder of case files (default: validation/cases)", "DIR" },
	{ "real_runtime", TS_OPT_DURATION, OFF(real_runtime), "5s", 1e8, 3.6e12, "ns",
	  "with --real: the longest fio run per case" },
	{ "real_size", TS_OPT_SIZE, OFF(real_size), "64MiB", 4096, 0, "bytes",
	  "with --real: the largest file each fio job covers" },
	{ "skip_tag", TS_OPT_STR, OFF(skip_tag), NULL, 0, 0, "",
	  "leave out the cases carrying this tag (\"slow\": the long workload runs)", "TAG" },
	{ NULL },
};
#undef OFF

enum fstat { F_INSIDE, F_OUTSIDE, F_KNOWN, F_FIT, F_FIT_OFF, F_KNOWN_NOW_INSIDE, F_FLOOR };
static const char *const fstat_name[] = { "inside",  "OUTSIDE", "known miss",
					  "fit",     "FIT OFF", "inside (known miss recorded)",
					  "not judged: below the FUSE floor" };

struct frow {
	const struct ts_case_figure *fig;
	double predicted; /* in the figure's unit */
	double error;	  /* (predicted - measured) / measured */
	enum fstat st;
};

struct crow {
	struct ts_case *c;
	const char *needs; /* not runnable yet: what it needs; NULL = ran */
	char needs_buf[128];
	struct frow *f;
	bool failed; /* ran but could not be run (message printed) */
};

static const struct ts_cmdline validate_cmdline = {
	.name = "validate",
	.synopsis = "[CASE|GLOB|tag:TAG...] [--json] [--real] [--cases DIR] [--skip-tag TAG]",
	.about = "Runs the validation cases (real measurements of real systems) and prints\n"
		 "predicted vs measured, the error and whether it is inside the case's\n"
		 "tolerance, then cases inside tolerance, median |error| and the worst five.\n"
		 "CASE is a case id or file; GLOB matches ids (\"ebs-*\"); tag:TAG the cases\n"
		 "carrying TAG. Workload cases with a DLIO run predict it in virtual time.\n",
	.opts = vopts,
	.max_pos = -1,
};

/* Whether case @c can run here, and if not what it needs. */
static const char *needs_of(struct crow *r)
{
	const struct ts_case *c = r->c;
	if (c->level == TS_CASE_LOADER)
		return "the case's loader (FFCV, PyTorch DataLoader worker processes with Pillow) "
		       "as a source of the virtual pipeline, and a host profile of its CPU";
	if (c->level == TS_CASE_WORKLOAD && !c->dlio)
		return "a DLIO run (config.workload.dlio: the workload, its overrides, tier, memory)";
	if (c->level == TS_CASE_WORKLOAD)
		return NULL;
	if (c->raid0 > 1) {
		snprintf(r->needs_buf, sizeof(r->needs_buf), "a RAID-0 of %u volumes of one tier",
			 c->raid0);
		return r->needs_buf;
	}
	if (strcmp(c->tool, "fio") && strcmp(c->tool, "ioping")) {
		snprintf(r->needs_buf, sizeof(r->needs_buf), "a runner for the tool '%s'", c->tool);
		return r->needs_buf;
	}
	return NULL;
}

/* The model's (or the emulation's) value for a figure, in canonical units. */
static double pick(const struct ts_fiojob_result *res, enum ts_case_metric m)
{
	switch (m) {
	case TS_METRIC_IOPS: return res->iops;
	case TS_METRIC_BW: return res->mbps * 1e6;
	case TS_METRIC_LAT_MEAN: return res->lat_mean_ns;
	case TS_METRIC_LAT_P50: return res->lat_p50_ns;
	case TS_METRIC_LAT_P99: return res->lat_p99_ns;
	default: return 0;
	}
}

/* ---- Profiles and the fitted-vs-checking rule --------------------------- */

/* Adds a case's extra profile file to @set once. */
static int add_profile(struct ts_tier_set *set, const char *rel, char ***added, size_t *nadded,
		       char *err, size_t errlen)
{
	for (size_t i = 0; i < *nadded; i++)
		if (!strcmp((*added)[i], rel))
			return 0;
	char path[4096];
	if (ts_data_find(rel, path, sizeof(path))) {
		snprintf(err, errlen, "profile file %s not found (set TIERSIM_DATADIR to the source "
				      "tree)", rel);
		return -ENOENT;
	}
	int rc = ts_tier_set_add_file(set, path, err, errlen);
	if (rc)
		return rc;
	char **nv = realloc(*added, (*nadded + 1) * sizeof(**added));
	if (!nv)
		return -ENOMEM;
	*added = nv;
	if (!(nv[*nadded] = strdup(rel)))
		return -ENOMEM;
	(*nadded)++;
	return 0;
}

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
		fprintf(stderr, "tiersim validate: host '%s': %s names case '%s', %s\n", host, field,
			id, why);
		h->bad++;
	}
	return 0;
}

/* Every evidence label that names a case names a fitting case that lists
 * the field, and every fitting case's fields name it back. Prints each
 * violation; returns how many. */
static int check_fit_rule(const struct ts_tier_set *set, const struct ts_host_set *hosts,
			  struct ts_case **all, size_t n)
{
	int bad = 0;
	struct host_fit hf = { all, n, 0 };
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
				fprintf(stderr, "tiersim validate: %s: tier '%s': evidence.%s names "
						"case '%s', %s\n",
					p->where, p->name, ts_tier_ev_field_name(f), id, why);
				bad++;
			}
		}
	}
	for (size_t k = 0; k < n; k++) {
		const struct ts_case *c = all[k];
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
					fprintf(stderr, "tiersim validate: %s: role.fits '%s' %s\n",
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
				fprintf(stderr, "tiersim validate: %s: role.fits '%s' %s\n", c->path,
					c->fitted[i], why);
				bad++;
			}
		}
	}
	return bad;
}

/* ---- Running one case ------------------------------------------------------ */

/* Runs the case's job with fio through a tierfs mount of its tier. */
static int run_real(const struct ts_case *c, const struct vcfg *v, const char *profile_path,
		    struct ts_fiojob_result *res, double *floor_ns, char *err, size_t errlen)
{
	char work[] = "/tmp/tiersim-validate.XXXXXX", backing[64], mnt[64], out[80];
	if (!mkdtemp(work)) {
		snprintf(err, errlen, "cannot make a scratch folder in /tmp: %s", strerror(errno));
		return -errno;
	}
	snprintf(backing, sizeof(backing), "%s/backing", work);
	snprintf(mnt, sizeof(mnt), "%s/mnt", work);
	snprintf(out, sizeof(out), "%s/fio.json", work);
	uint64_t size = TS_MIN(c->job.size, v->real_size);
	size -= size % c->job.bs;
	int rc = mkdir(backing, 0755) || mkdir(mnt, 0755) ? -errno : 0;
	for (unsigned j = 0; !rc && j < c->job.numjobs; j++) {
		char f[96];
		snprintf(f, sizeof(f), "%s/f.%u", backing, j);
		/* Sparse files: the tier model, not the backing disk, sets the pace. */
		FILE *fp = fopen(f, "w");
		if (!fp || ftruncate(fileno(fp), (off_t)size))
			rc = -errno;
		if (fp)
			fclose(fp);
	}
	if (rc) {
		snprintf(err, errlen, "cannot lay out the fio files in %s: %s", work, strerror(-rc));
		goto rm;
	}
	struct ts_mounts ms;
	struct ts_mount *m = NULL;
	char opts[4608];
	snprintf(opts, sizeof(opts), "tier=%s,capacity=%llu%s%s", c->tier,
		 (unsigned long long)c->capacity, profile_path ? ",profile=" : "",
		 profile_path ? profile_path : "");
	if ((rc = ts_mounts_init(&ms, err, errlen)))
		goto rm;
	if ((rc = ts_mount_start(&ms, backing, mnt, opts, &m, err, errlen))) {
		ts_mounts_free(&ms);
		goto rm;
	}
	uint64_t rt = c->job.runtime ? TS_MIN(c->job.runtime, v->real_runtime) : v->real_runtime;
	static const char *const rws[] = { "read", "randread", "write", "randwrite" };
	char a_dir[80], a_rw[32], a_bs[48], a_qd[32], a_nj[32], a_size[48], a_rt[48], a_out[96],
		a_think[48];
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
	char *argv[] = { "fio", "--name=validate", a_dir, "--filename_format=f.$jobnum",
			 "--direct=1", "--ioengine=io_uring", "--thread", a_rw, a_bs, a_qd,
			 a_nj, a_size, a_rt, "--time_based", "--group_reporting",
			 "--output-format=json", a_out, a_think, NULL };
	pid_t pid;
	int st = 0;
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
	rc = posix_spawnp(&pid, "fio", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc) {
		snprintf(err, errlen, "cannot run fio: %s", strerror(rc));
		rc = -rc;
	} else if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) {
		snprintf(err, errlen, "fio failed on the tierfs mount of %s", c->tier);
		rc = -EIO;
	}
	/* The FUSE round trip tierfs measured at mount: a latency below it
	 * cannot be emulated on this host. */
	char stats[96];
	snprintf(stats, sizeof(stats), "%s/.tierfs/stats", mnt);
	json_t *sj = json_load_file(stats, 0, NULL);
	*floor_ns = (double)json_integer_value(json_object_get(sj, "floor_ns"));
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
			snprintf(err, errlen, "fio wrote no %s results to %s", c->job.write ? "write" : "read", out);
			rc = -EIO;
		} else {
			*res = (struct ts_fiojob_result){
				.iops = json_number_value(json_object_get(side, "iops")),
				.mbps = json_number_value(json_object_get(side, "bw_bytes")) / 1e6,
				.lat_mean_ns = json_number_value(json_object_get(clat, "mean")),
				.lat_p50_ns = json_number_value(json_object_get(pct, "50.000000")),
				.lat_p99_ns = json_number_value(json_object_get(pct, "99.000000")),
			};
		}
		json_decref(j);
	}
rm:;
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", work);
	if (system(cmd) != 0)
		fprintf(stderr, "tiersim validate: could not remove %s\n", work);
	return rc;
}

/* One DLIO run of a workload case in virtual time: at the published count,
 * or @find_max. The dataset is scaled to run_files and the page cache with
 * it, so that the share of the dataset memory holds stays the run's. */
static int dlio_once(const struct ts_case *c, bool find_max, struct ts_dlio_result *out,
		     bool *found, char *err, size_t errlen)
{
	const struct ts_case_dlio *d = c->dlio;
	char prof[4096], files[96];
	struct ts_dlio_opts o;
	memset(&o, 0, sizeof(o));
	int rc = ts_opt_defaults(ts_dlio_run_opts, &o, err, errlen);
	if (rc)
		return rc;
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
	o.find_max = find_max;
	o.accelerators = find_max ? 1 : d->accelerators;
	o.virtual_time = true;
	o.quiet = true;
	const char **ov = calloc(d->noverrides + 1, sizeof(*ov));
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
	o.overrides = ov;
	rc = ts_dlio_run(&o, oc, err, errlen);
	const struct ts_dlio_result *r = rc ? NULL : ts_dlio_outcome_pick(&o, oc);
	*found = r != NULL;
	if (r)
		*out = *r;
	ts_dlio_outcome_free(oc);
	free(oc);
	free(ov);
	return rc;
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
	bool o_found = false, mx_found = false;
	int rc = 0;
	if (at && !(rc = dlio_once(c, false, &o, &o_found, err, errlen)) && !o_found) {
		snprintf(err, errlen, "the DLIO run at %" PRIu64 " accelerators gave no figures",
			 c->dlio->accelerators);
		rc = -EIO;
	}
	if (!rc && max)
		rc = dlio_once(c, true, &mx, &mx_found, err, errlen);
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

static int run_case(struct crow *r, const struct ts_tier_set *set, const struct vcfg *v)
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
	} else if (!(rc = ts_tier_set_lookup(set, c->tier, &p, err, sizeof(err))) && v->real) {
		char path[4096];
		bool has = c->profile && !ts_data_find(c->profile, path, sizeof(path));
		rc = run_real(c, v, has ? path : NULL, &res, &floor_ns, err, sizeof(err));
		/* What the model targets, to tell which latencies the host can emulate. */
		if (!rc)
			rc = ts_fiojob_run(p, c->capacity, &c->job, &model, err, sizeof(err));
	} else if (!rc) {
		rc = ts_fiojob_run(p, c->capacity, &c->job, &res, err, sizeof(err));
	}
	if (rc) {
		fprintf(stderr, "tiersim validate: %s: %s\n", c->path, err);
		r->failed = true;
		free(pred);
		return rc;
	}
	for (size_t i = 0; i < c->nfig; i++) {
		const struct ts_case_figure *f = &c->fig[i];
		struct frow *fr = &r->f[i];
		fr->fig = f;
		fr->predicted = c->dlio ? pred[i] : pick(&res, f->metric) / f->scale;
		fr->error = f->value > 0 ? (fr->predicted - f->value) / f->value : 0;
		bool in = fabs(fr->error) <= f->tolerance;
		if (v->real && f->metric >= TS_METRIC_LAT_MEAN && f->metric <= TS_METRIC_LAT_P99 &&
		    pick(&model, f->metric) < floor_ns)
			fr->st = F_FLOOR;
		else if (c->fits)
			fr->st = in ? F_FIT : F_FIT_OFF;
		else if (f->known_miss)
			fr->st = in ? F_KNOWN_NOW_INSIDE : F_KNOWN;
		else
			fr->st = in ? F_INSIDE : F_OUTSIDE;
	}
	free(pred);
	return 0;
}

/* ---- Output ---------------------------------------------------------------- */

static int cmp_abs(const void *a, const void *b)
{
	double x = fabs(*(const double *)a), y = fabs(*(const double *)b);
	return (x > y) - (x < y);
}

static int cmp_worst(const void *a, const void *b)
{
	const struct frow *x = *(const struct frow *const *)a, *y = *(const struct frow *const *)b;
	double ex = fabs(x->error), ey = fabs(y->error);
	return (ex < ey) - (ex > ey);
}

static void fmt_val(char *buf, size_t n, double v)
{
	if (v >= 100)
		snprintf(buf, n, "%.0f", v);
	else if (v >= 10)
		snprintf(buf, n, "%.1f", v);
	else
		snprintf(buf, n, "%.3g", v);
}

struct summary {
	size_t checks, checks_inside, known, outside, fits, fits_ok, not_runnable, failed;
	size_t floor; /* --real: figures whose target latency is below the FUSE floor */
	size_t nerr;
	double median;
};

static void summarize(struct crow *rows, size_t n, struct summary *s, double *errs,
		      struct frow **worst, size_t *nworst)
{
	memset(s, 0, sizeof(*s));
	*nworst = 0;
	for (size_t i = 0; i < n; i++) {
		struct crow *r = &rows[i];
		if (r->needs) {
			s->not_runnable++;
			continue;
		}
		if (r->failed) {
			s->failed++;
			continue;
		}
		bool in = true, known = false;
		for (size_t k = 0; k < r->c->nfig; k++) {
			enum fstat st = r->f[k].st;
			if (st == F_FLOOR) {
				s->floor++;
				continue;
			}
			in &= st == F_INSIDE || st == F_FIT || st == F_KNOWN_NOW_INSIDE;
			known |= st == F_KNOWN;
			if (!r->c->fits) {
				errs[s->nerr++] = r->f[k].error;
				worst[(*nworst)++] = &r->f[k];
			}
		}
		if (r->c->fits) {
			s->fits++;
			s->fits_ok += in;
		} else {
			s->checks++;
			s->checks_inside += in;
			s->known += !in && known;
			s->outside += !in && !known;
			/* A case with a known miss and an unexpected one counts as outside. */
			for (size_t k = 0; k < r->c->nfig && !in && known; k++)
				if (r->f[k].st == F_OUTSIDE) {
					s->known--;
					s->outside++;
					break;
				}
		}
	}
	qsort(errs, s->nerr, sizeof(*errs), cmp_abs);
	s->median = !s->nerr ? 0
		    : s->nerr % 2 ? fabs(errs[s->nerr / 2])
				  : (fabs(errs[s->nerr / 2 - 1]) + fabs(errs[s->nerr / 2])) / 2;
	qsort(worst, *nworst, sizeof(*worst), cmp_worst);
}

static const struct crow *row_of(struct crow *rows, size_t n, const struct frow *f)
{
	for (size_t i = 0; i < n; i++)
		if (rows[i].f && f >= rows[i].f && f < rows[i].f + rows[i].c->nfig)
			return &rows[i];
	return NULL;
}

static void print_text(struct crow *rows, size_t n, const struct summary *s,
		       struct frow **worst, size_t nworst, bool real)
{
	printf("%-44s %-7s %-9s %12s %12s %-6s %8s %6s  %s\n", "case", "role", "figure", "measured",
	       real ? "emulated" : "predicted", "unit", "error", "tol", "status");
	for (size_t i = 0; i < n; i++) {
		struct crow *r = &rows[i];
		if (r->needs || r->failed)
			continue;
		for (size_t k = 0; k < r->c->nfig; k++) {
			struct frow *f = &r->f[k];
			char m[32], p[32], e[16], t[16];
			fmt_val(m, sizeof(m), f->fig->value);
			fmt_val(p, sizeof(p), f->predicted);
			snprintf(e, sizeof(e), "%+.1f%%", 100 * f->error);
			snprintf(t, sizeof(t), "%.0f%%", 100 * f->fig->tolerance);
			printf("%-44s %-7s %-9s %12s %12s %-6s %8s %6s  %s\n", k ? "" : r->c->id,
			       k ? "" : r->c->fits ? "fits" : "checks", f->fig->name, m, p,
			       f->fig->unit, e, t, fstat_name[f->st]);
		}
	}
	if (s->not_runnable) {
		printf("\nnot runnable yet (counted apart, never as passing):\n");
		for (size_t i = 0; i < n; i++)
			if (rows[i].needs)
				printf("  %-40s %-8s not runnable yet: needs %s\n", rows[i].c->id,
				       ts_case_level_name(rows[i].c->level), rows[i].needs);
	}
	printf("\nsummary: %zu checking cases ran, %zu inside tolerance, %zu known misses, %zu "
	       "outside tolerance; median |error| %.1f%% over %zu figures\n",
	       s->checks, s->checks_inside, s->known, s->outside, 100 * s->median, s->nerr);
	printf("         %zu fitting cases (%zu reproduced by their profile), %zu not runnable "
	       "yet, %zu failed to run\n",
	       s->fits, s->fits_ok, s->not_runnable, s->failed);
	if (s->floor)
		printf("         %zu latency figures not judged: the model's target is below the "
		       "FUSE round trip this host adds\n",
		       s->floor);
	if (nworst) {
		printf("worst %s:\n", nworst < 5 ? "figures" : "five");
		for (size_t i = 0; i < nworst && i < 5; i++) {
			const struct crow *r = row_of(rows, n, worst[i]);
			printf("  %-40s %-9s %+7.1f%%  %s\n", r ? r->c->id : "?", worst[i]->fig->name,
			       100 * worst[i]->error,
			       worst[i]->fig->known_miss ? worst[i]->fig->known_miss
			       : worst[i]->st == F_INSIDE ? "inside its tolerance"
							  : "no reason recorded");
		}
	}
}

static int print_json(struct crow *rows, size_t n, const struct summary *s, bool real)
{
	json_t *cases = json_array();
	for (size_t i = 0; i < n; i++) {
		struct crow *r = &rows[i];
		json_t *c = json_pack("{s:s, s:s, s:s, s:s}", "id", r->c->id, "level",
				      ts_case_level_name(r->c->level), "role",
				      r->c->fits ? "fits" : "checks", "source", r->c->source);
		if (r->needs) {
			json_object_set_new(c, "status", json_string("not runnable yet"));
			json_object_set_new(c, "needs", json_string(r->needs));
		} else if (r->failed) {
			json_object_set_new(c, "status", json_string("failed to run"));
		} else {
			json_t *figs = json_array();
			for (size_t k = 0; k < r->c->nfig; k++) {
				struct frow *f = &r->f[k];
				json_t *o = json_pack("{s:s, s:f, s:f, s:s, s:f, s:f, s:s}", "metric",
						      f->fig->name, "measured", f->fig->value,
						      real ? "emulated" : "predicted", f->predicted,
						      "unit", f->fig->unit, "error", f->error,
						      "tolerance", f->fig->tolerance, "status",
						      fstat_name[f->st]);
				if (f->fig->known_miss)
					json_object_set_new(o, "known_miss",
							    json_string(f->fig->known_miss));
				json_array_append_new(figs, o);
			}
			json_object_set_new(c, "figures", figs);
		}
		json_array_append_new(cases, c);
	}
	json_t *root = json_pack(
		"{s:o, s:{s:I, s:I, s:I, s:I, s:f, s:I, s:I, s:I, s:I}}", "cases", cases, "summary",
		"checking_cases", (json_int_t)s->checks, "inside_tolerance",
		(json_int_t)s->checks_inside, "known_misses", (json_int_t)s->known,
		"outside_tolerance", (json_int_t)s->outside, "median_abs_error", s->median,
		"fitting_cases", (json_int_t)s->fits, "fits_reproduced", (json_int_t)s->fits_ok,
		"not_runnable", (json_int_t)s->not_runnable, "failed", (json_int_t)s->failed);
	if (!root)
		return -ENOMEM;
	int rc = json_dumpf(root, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(6)) ? -EIO : 0;
	putchar('\n');
	json_decref(root);
	return rc;
}

/* ---- The command ------------------------------------------------------------ */

static bool has_tag(const struct ts_case *c, const char *tag)
{
	for (size_t i = 0; tag && i < c->ntags; i++)
		if (!strcmp(c->tags[i], tag))
			return true;
	return false;
}

static bool selected(const struct ts_case *c, char **sel, size_t nsel, bool *used,
		     const char *skip_tag)
{
	if (has_tag(c, skip_tag))
		return false;
	if (!nsel)
		return true;
	bool any = false;
	for (size_t i = 0; i < nsel; i++) {
		if (!strncmp(sel[i], "tag:", 4)) {
			if (has_tag(c, sel[i] + 4))
				any = used[i] = true;
			continue;
		}
		const char *b = strrchr(sel[i], '/') ? strrchr(sel[i], '/') + 1 : sel[i];
		char id[256];
		snprintf(id, sizeof(id), "%s", b);
		size_t l = strlen(id);
		if (l > 5 && !strcmp(id + l - 5, ".json"))
			id[l - 5] = 0;
		if (!fnmatch(id, c->id, 0)) {
			used[i] = true;
			any = true;
		}
	}
	return any;
}

int ts_cmd_validate(int argc, char **argv)
{
	struct vcfg v;
	char err[1024];
	int ret = TS_EXIT_USAGE;
	char **sel = calloc((size_t)argc, sizeof(*sel));
	bool *used = calloc((size_t)argc, sizeof(*used));
	size_t nsel = 0, nall = 0, nrows = 0, nadded = 0;
	struct ts_case **all = NULL;
	struct crow *rows = NULL;
	struct ts_tier_set *set = NULL;
	struct ts_host_set *hosts = NULL;
	char **added = NULL;
	glob_t g = { 0 };
	bool have_glob = false;

	memset(&v, 0, sizeof(v));
	if (!sel || !used) {
		fprintf(stderr, "tiersim validate: out of memory\n");
		goto out;
	}
	struct ts_opt_args a;
	int prc = ts_cmdline_parse(&validate_cmdline, &v, argc, argv, &a);
	if (prc >= 0) {
		free(sel);
		free(used);
		return prc; /* --help, or a usage error already said */
	}
	for (int i = 0; i < a.npos; i++)
		sel[nsel++] = a.pos[i];
	ret = TS_EXIT_FAIL;
	char dir[4096], pat[4200];
	if (v.cases)
		snprintf(dir, sizeof(dir), "%s", v.cases);
	else if (ts_data_find("validation/cases", dir, sizeof(dir))) {
		fprintf(stderr, "tiersim validate: validation/cases not found; set TIERSIM_DATADIR "
				"to the source tree or give --cases DIR\n");
		goto out;
	}
	snprintf(pat, sizeof(pat), "%s/*.json", dir);
	if (glob(pat, 0, NULL, &g) || g.gl_pathc == 0) {
		fprintf(stderr, "tiersim validate: no case files (*.json) in %s\n", dir);
		goto out;
	}
	have_glob = true;

	/* Load every case (the fitted-vs-checking rule spans the corpus). */
	all = calloc(g.gl_pathc, sizeof(*all));
	rows = calloc(g.gl_pathc, sizeof(*rows));
	if (!all || !rows)
		goto out;
	int refused = 0;
	for (size_t i = 0; i < g.gl_pathc; i++) {
		if (ts_case_load(g.gl_pathv[i], &all[nall], err, sizeof(err))) {
			fprintf(stderr, "tiersim validate: %s\n", err);
			refused++;
			continue;
		}
		for (size_t k = 0; k < nall; k++)
			if (!strcmp(all[k]->id, all[nall]->id)) {
				fprintf(stderr, "tiersim validate: %s: case id '%s' again\n",
					g.gl_pathv[i], all[nall]->id);
				refused++;
			}
		nall++;
	}
	if (ts_tier_set_load_default(&set, err, sizeof(err))) {
		fprintf(stderr, "tiersim validate: %s\n", err);
		goto out;
	}
	for (size_t i = 0; i < nall; i++)
		if (all[i]->profile &&
		    add_profile(set, all[i]->profile, &added, &nadded, err, sizeof(err))) {
			fprintf(stderr, "tiersim validate: %s: %s\n", all[i]->path, err);
			refused++;
		}
	if (refused) {
		fprintf(stderr, "tiersim validate: %d file%s refused; nothing was run\n", refused,
			refused > 1 ? "s" : "");
		goto out;
	}
	if (ts_host_set_load_default(&hosts, err, sizeof(err))) {
		fprintf(stderr, "tiersim validate: %s\n", err);
		goto out;
	}
	if (check_fit_rule(set, hosts, all, nall)) {
		fprintf(stderr, "tiersim validate: the corpus and the profiles' evidence disagree "
				"(above); nothing was run\n");
		goto out;
	}
	for (size_t i = 0; i < nall; i++) {
		if (!selected(all[i], sel, nsel, used, v.skip_tag))
			continue;
		struct crow *r = &rows[nrows++];
		r->c = all[i];
		r->needs = needs_of(r);
		if (!r->needs && !(r->f = calloc(all[i]->nfig, sizeof(*r->f))))
			goto out;
	}
	for (size_t i = 0; i < nsel; i++)
		if (!used[i]) {
			fprintf(stderr, "tiersim validate: no case matches '%s' (ids are the file "
					"names in %s)\n", sel[i], dir);
			ret = TS_EXIT_USAGE;
			goto out;
		}
	for (size_t i = 0; i < nrows; i++)
		if (!rows[i].needs)
			(void)run_case(&rows[i], set, &v);

	size_t nfig = 0;
	for (size_t i = 0; i < nrows; i++)
		nfig += rows[i].c->nfig;
	double *errs = calloc(nfig + 1, sizeof(*errs));
	struct frow **worst = calloc(nfig + 1, sizeof(*worst));
	struct summary s;
	size_t nworst;
	if (!errs || !worst) {
		free(errs);
		free(worst);
		goto out;
	}
	summarize(rows, nrows, &s, errs, worst, &nworst);
	if (v.json) {
		if (print_json(rows, nrows, &s, v.real))
			fprintf(stderr, "tiersim validate: cannot write the JSON\n");
	} else {
		print_text(rows, nrows, &s, worst, nworst, v.real);
	}
	free(errs);
	free(worst);
	ret = s.outside || s.failed || s.fits_ok < s.fits ? TS_EXIT_FAIL : TS_EXIT_OK;
out:
	for (size_t i = 0; i < nall; i++)
		ts_case_free(all[i]);
	for (size_t i = 0; rows && i < nrows; i++)
		free(rows[i].f);
	for (size_t i = 0; i < nadded; i++)
		free(added[i]);
	free(added);
	free(all);
	free(rows);
	free(sel);
	free(used);
	ts_tier_set_free(set);
	ts_host_set_free(hosts);
	if (have_glob)
		globfree(&g);
	ts_opt_free(vopts, &v);
	return ret;
}
