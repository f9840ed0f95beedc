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

#include "clock.h"
#include "commands.h"
#include "convert.h"
#include "cost/cost.h"
#include "files.h"
#include "hist.h"
#include "opt.h"
#include "pipeline/decode.h"
#include "pipeline/host.h"
#include "tier/stats_keys.h"
#include "tier/tier.h"
#include "pipeline/dataset.h"
#include "runner.h"
#include "runner_int.h"
#include "units.h"

volatile sig_atomic_t ts_runner_interrupted;

/* The first signal asks for an orderly stop (unmount, report what ran); a
 * second one ends the program at once, and the daemons, which get SIGTERM
 * when tiersim dies, unmount themselves. */
static void on_signal(int sig)
{
	if (ts_runner_interrupted) {
		signal(sig, SIG_DFL);
		raise(sig);
		return;
	}
	ts_runner_interrupted = sig;
}

void ts_runner_signals(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal; /* no SA_RESTART: blocking waits return EINTR */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
}

/* snprintf for paths: -ENAMETOOLONG instead of a silently cut path. */
int ts_runner_pathf(char *buf, size_t n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int w = vsnprintf(buf, n, fmt, ap);
	va_end(ap);
	return w < 0 || (size_t)w >= n ? -ENAMETOOLONG : 0;
}

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
	R->progress_tty = !o->quiet && isatty(STDERR_FILENO);
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

	rc = ts_tier_set_load_default(&R->tiers, err, errlen);
	if (rc)
		return rc;
	for (size_t i = 0; i < o->ntiers; i++) {
		const struct ts_tier_profile *p;
		if (strcmp(o->tiers[i], "none") &&
		    (rc = ts_tier_set_lookup(R->tiers, o->tiers[i], &p, err, errlen)))
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
	R->workdir = strdup(real);
	R->datadir = dupf("%s/data", real);
	R->mntdir = dupf("%s/mnt", real);
	R->scratch = dupf("%s/data/scratch/run-%d", real, (int)getpid());
	if (!R->workdir || !R->datadir || !R->mntdir || !R->scratch)
		return -ENOMEM;
	const char *dirs[] = { R->datadir, R->mntdir };
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
	if (R->mounts_ready)
		ts_mounts_free(&R->mounts);
	if (R->scratch && !R->o.keep)
		ts_remove_tree(R->scratch, 0);
	ts_scn_free(&R->cfg);
	ts_report_free(&R->report);
	ts_tier_set_free(R->tiers);
	ts_price_set_free(R->prices);
	free(R->workdir);
	free(R->datadir);
	free(R->mntdir);
	free(R->scratch);
	memset(R, 0, sizeof(*R));
}

/* ---- Progress ------------------------------------------------------------ */

void ts_runner_progress(struct ts_runner *R, const char *what, uint64_t done, uint64_t total,
			double sps, double elapsed_s)
{
	if (!R->progress_tty)
		return;
	uint64_t now = ts_now_ns();
	if (done < total && now - R->progress_ns < 100 * TS_NS_PER_MS)
		return; /* ten updates a second are plenty */
	R->progress_ns = now;
	static const char *const spin = "|/-\\";
	double pct = total ? 100.0 * (double)done / (double)total : 0;
	double eta = done && total > done ? elapsed_s * (double)(total - done) / (double)done : 0;
	fprintf(stderr, "\r\033[K%c %s  %5.1f%%  %9.1f samples/s  ETA %5.0f s", spin[done % 4],
		what, pct, sps, eta);
	fflush(stderr);
}

void ts_runner_progress_end(struct ts_runner *R)
{
	if (R->progress_tty) {
		fprintf(stderr, "\r\033[K");
		fflush(stderr);
	}
}

/* One quiet line per configuration when stderr is not a terminal. */
static void note(struct ts_runner *R, const char *fmt, ...) TS_PRINTF(2, 3);
static void note(struct ts_runner *R, const char *fmt, ...)
{
	if (R->o.quiet)
		return;
	va_list ap;
	va_start(ap, fmt);
	if (R->progress_tty)
		fprintf(stderr, "\r\033[K");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/* ---- Datasets ------------------------------------------------------------ */

/* Where the dataset lives, generating it on first use. Generated datasets
 * are kept under the work directory, keyed by kind, count and seed, so
 * every configuration and every later run reads the same bytes. */
/* Generates a dataset in a child process, so that Ctrl-C stops a long
 * generation at once: the child is killed and its partial output removed
 * by the caller. The child's one-line error comes back through a pipe. */
static int make_dataset(const struct ts_dataset_ops *kind, const struct ts_dataset_config *gc,
			const char *dir, char *err, size_t errlen)
{
	int fds[2];
	if (pipe2(fds, O_CLOEXEC))
		return -errno;
	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		close(fds[0]);
		close(fds[1]);
		return -e;
	}
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(1);
		signal(SIGINT, SIG_IGN); /* the parent decides */
		signal(SIGTERM, SIG_DFL);
		close(fds[0]);
		char msg[1024] = "";
		struct ts_dataset_stats st;
		int rc = ts_dataset_make(kind, gc, dir, &st, msg, sizeof(msg));
		if (rc) {
			if (!msg[0])
				snprintf(msg, sizeof(msg), "generating %.900s: %s", dir, ts_strerror(rc));
			ssize_t w = write(fds[1], msg, strlen(msg));
			(void)w;
		}
		_exit(rc ? 1 : 0);
	}
	close(fds[1]);
	int st = 0, rc = 0;
	for (;;) {
		pid_t r = waitpid(pid, &st, WNOHANG);
		if (r == pid)
			break;
		if (r < 0 && errno != EINTR) {
			rc = -errno;
			break;
		}
		if (ts_runner_interrupted) {
			kill(pid, SIGKILL);
			while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
				;
			rc = -EINTR;
			break;
		}
		struct timespec ts = { 0, 50 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
	if (!rc && !(WIFEXITED(st) && WEXITSTATUS(st) == 0)) {
		ssize_t n = read(fds[0], err, errlen - 1);
		err[n > 0 ? n : 0] = 0;
		if (!err[0])
			snprintf(err, errlen, "generating %s failed (%s %d)", dir,
				 WIFEXITED(st) ? "exit" : "signal",
				 WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
		rc = -EIO;
	}
	close(fds[0]);
	return rc;
}

int ts_runner_place(struct ts_runner *R, const struct ts_scenario *s,
		     struct ts_dataset_place *dp, bool need_bytes, char *err, size_t errlen)
{
	memset(dp, 0, sizeof(*dp));
	const struct ts_scn_dataset *d = &s->ds;
	int rc;
	if (d->dir && *d->dir) {
		if (!d->source || !*d->source) {
			snprintf(err, errlen, "dataset{dir=%s}: also give source = folder, rec, lmdb "
					      "or text", d->dir);
			return TS_E_PARSE;
		}
		char real[PATH_MAX];
		if (!realpath(d->dir, real)) {
			rc = -errno;
			snprintf(err, errlen, "dataset{dir=%s}: %s", d->dir, strerror(errno));
			return rc;
		}
		struct stat st;
		if (stat(real, &st)) {
			snprintf(err, errlen, "dataset{dir=%s}: %s", d->dir, strerror(errno));
			return -errno;
		}
		/* A file (a .rec) is read through a mount of its directory. */
		snprintf(dp->dir, sizeof(dp->dir), "%s", real);
		if (S_ISDIR(st.st_mode)) {
			snprintf(dp->backing, sizeof(dp->backing), "%s", real);
		} else {
			char *slash = strrchr(real, '/');
			snprintf(dp->input, sizeof(dp->input), "%s", slash + 1);
			*slash = 0;
			snprintf(dp->backing, sizeof(dp->backing), "%s", real[0] ? real : "/");
		}
		dp->source = d->source;
		return 0;
	}
	char why[256];
	if (!(dp->kind = ts_dataset_find(d->kind, why, sizeof(why)))) {
		snprintf(err, errlen, "dataset: %s", why);
		return TS_E_UNKNOWN;
	}
	dp->source = dp->kind->source;
	snprintf(dp->input, sizeof(dp->input), "%s", dp->kind->input);
	snprintf(dp->backing, sizeof(dp->backing), "%s", R->datadir);
	snprintf(dp->rel, sizeof(dp->rel), "datasets/%s-%llu-s%llu%s", d->kind,
		 (unsigned long long)d->count, (unsigned long long)d->seed,
		 s->ds.encoded ? "-enc" : "");
	if (ts_runner_pathf(dp->dir, sizeof(dp->dir), "%s/%s", R->datadir, dp->rel)) {
		snprintf(err, errlen, "work directory %s: path too long", R->datadir);
		return -ENAMETOOLONG;
	}
	dp->generated = true;

	struct ts_dataset_config gc;
	memset(&gc, 0, sizeof(gc));
	if ((rc = ts_opt_defaults(ts_dataset_opts, &gc, err, errlen)))
		return rc;
	gc.count = d->count;
	gc.seed = d->seed;
	gc.encoded = s->ds.encoded;
	gc.progress = R->progress_tty;
	if (!need_bytes) { /* virtual time: sizes only, nothing written */
		rc = ts_dataset_meta_describe(dp->kind, &gc, &dp->meta, err, errlen);
		dp->have_meta = rc == 0;
		ts_opt_free(ts_dataset_opts, &gc);
		return rc;
	}
	if (ts_dataset_open(dp->dir, &dp->meta, err, errlen) == 0) {
		dp->have_meta = true;
		ts_opt_free(ts_dataset_opts, &gc);
		return 0;
	}
	/* Generate into a temporary name, then rename: an interrupted
	 * generation never passes for a complete dataset. */
	char tmp[PATH_MAX + 16];
	snprintf(tmp, sizeof(tmp), "%s.tmp-%d", dp->dir, (int)getpid());
	ts_remove_tree(tmp, 0);
	char parent[PATH_MAX];
	snprintf(parent, sizeof(parent), "%s/datasets", R->datadir);
	if ((rc = ts_mkdir_p(parent, 0755, NULL, 0))) {
		snprintf(err, errlen, "cannot create %s: %s", parent, ts_strerror(rc));
		ts_opt_free(ts_dataset_opts, &gc);
		return rc;
	}
	note(R, "generating dataset %s (%llu samples) in %s", d->kind,
	     (unsigned long long)d->count, dp->dir);
	rc = make_dataset(dp->kind, &gc, tmp, err, errlen);
	ts_opt_free(ts_dataset_opts, &gc);
	/* Written back before anything is measured, so the first
	 * configuration does not compete with the kernel's writeback. */
	if (rc == 0) {
		int fd = open(tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd >= 0) {
			syncfs(fd);
			close(fd);
		}
	}
	if (rc == 0 && rename(tmp, dp->dir)) {
		rc = -errno;
		snprintf(err, errlen, "cannot rename %s to %s: %s", tmp, dp->dir, strerror(errno));
	}
	if (rc) {
		ts_remove_tree(tmp, 0);
		return rc;
	}
	rc = ts_dataset_open(dp->dir, &dp->meta, err, errlen);
	dp->have_meta = rc == 0;
	return rc;
}

void ts_runner_place_free(struct ts_dataset_place *dp)
{
	if (dp->have_meta)
		ts_dataset_meta_free(&dp->meta);
	dp->have_meta = false;
}

/* ---- Mounts -------------------------------------------------------------- */

/* tierfs's -o list for @s on @tier. */
static char *mount_opts(const struct ts_scenario *s, const char *tier, const char *trace,
			const char *warm_path)
{
	char buf[2048];
	size_t n = (size_t)snprintf(buf, sizeof(buf), "tier=%s,seed=%llu", tier,
				    (unsigned long long)s->mnt.seed);
	if (s->mnt.capacity)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, ",capacity=%llu",
				      (unsigned long long)s->mnt.capacity);
	if (s->mnt.mem)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, ",mem=%llu",
				      (unsigned long long)s->mnt.mem);
	if (s->mnt.profile && *s->mnt.profile)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, ",profile=%s", s->mnt.profile);
	if (trace && *trace)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, ",trace=%s", trace);
	/* A warm or written start warms what the run reads, not the rest of
	 * the backing (other datasets, scratch). */
	if (s->mnt.cache && strcmp(s->mnt.cache, "cold"))
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, ",cache=%s%s%s", s->mnt.cache,
				      warm_path && *warm_path ? ",warm_path=" : "",
				      warm_path ? warm_path : "");
	/* LMDB's *.mdb files need no option: tierfs opens them in kernel-cached
	 * mode by default (a direct_io file cannot be mapped shared). */
	return n < sizeof(buf) ? strdup(buf) : NULL;
}

/* "%t" in a trace path becomes the tier name. */
static void expand_trace(const char *pat, const char *tier, char *out, size_t n)
{
	size_t o = 0;
	for (const char *p = pat; *p && o + 1 < n; p++) {
		if (p[0] == '%' && p[1] == 't') {
			o += (size_t)snprintf(out + o, n - o, "%s", tier);
			p++;
		} else {
			out[o++] = *p;
		}
		if (o >= n)
			o = n - 1;
	}
	out[o] = 0;
}


static uint64_t jget_u64(json_t *root, const char *const *path)
{
	json_t *v = root;
	for (; *path && v; path++)
		v = json_object_get(v, *path);
	if (json_is_integer(v))
		return (uint64_t)json_integer_value(v);
	if (json_is_real(v))
		return (uint64_t)json_real_value(v);
	return 0;
}

void ts_runner_read_counters(const char *mountpoint, struct fs_counters *c)
{
	memset(c, 0, sizeof(*c));
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/.tierfs/stats", mountpoint);
	json_error_t jerr;
	json_t *root = json_load_file(path, 0, &jerr);
	if (!root)
		return;
	static const char *const rd[] = { TS_STATS_KEY_OPS, TS_STATS_KEY_READ, TS_STATS_KEY_BYTES,
					  NULL };
	static const char *const wr[] = { TS_STATS_KEY_OPS, TS_STATS_KEY_WRITE, TS_STATS_KEY_BYTES,
					  NULL };
	static const char *const mrd[] = { TS_STATS_KEY_MODEL, TS_STATS_KEY_OPS, TS_STATS_KEY_READ,
					   TS_STATS_KEY_BYTES, NULL };
	static const char *const mhit[] = { TS_STATS_KEY_MODEL, TS_STATS_KEY_OPS, TS_STATS_KEY_READ,
					    TS_STATS_KEY_CACHE_HIT_BYTES, NULL };
	c->read_bytes = jget_u64(root, rd);
	c->write_bytes = jget_u64(root, wr);
	c->model_read_bytes = jget_u64(root, mrd);
	c->model_hit_bytes = jget_u64(root, mhit);
	c->ok = true;
	json_decref(root);
}

void ts_runner_row_io(struct ts_row *w, const struct fs_counters *a, const struct fs_counters *b,
		   double secs)
{
	if (!a->ok || !b->ok || secs <= 0)
		return;
	w->bytes_read = b->read_bytes - a->read_bytes;
	w->bytes_written = b->write_bytes - a->write_bytes;
	w->read_mb_s = (double)w->bytes_read / 1e6 / secs;
	w->write_mb_s = (double)w->bytes_written / 1e6 / secs;
	uint64_t rd = b->model_read_bytes - a->model_read_bytes;
	uint64_t hit = b->model_hit_bytes - a->model_hit_bytes;
	w->cache_hit_pct = rd ? 100.0 * (double)hit / (double)rd : NAN; /* no reads: no ratio */
}

/* ---- One configuration in real time ---------------------------------------- */


int ts_runner_live_end(struct ts_runner *R, struct live *lv, char *err, size_t errlen)
{
	int rc = 0;
	if (lv->pipe)
		ts_pipe_free(lv->pipe);
	if (lv->eng)
		ts_engine_free(lv->eng);
	if (lv->mount) {
		char e[512] = "";
		rc = ts_mount_stop(&R->mounts, lv->mount, e, sizeof(e));
		if (rc && err && !err[0]) {
			snprintf(err, errlen, "%s", e);
		} else if (rc && err) {
			/* The mount's failure is the likelier cause: name it first. */
			char was[512];
			snprintf(was, sizeof(was), "%s", err);
			snprintf(err, errlen, "%s; then: %s", e, was);
		}
	}
	memset(lv, 0, sizeof(*lv));
	return rc;
}

int ts_runner_live_mount(struct ts_runner *R, const struct ts_scenario *s, const char *tier,
		      const struct ts_dataset_place *dp, struct live *lv,
		      char *mdesc, size_t mdn, char *err, size_t errlen)
{
	if (!strcmp(tier, "none")) {
		snprintf(lv->root, sizeof(lv->root), "%s", dp->backing);
		snprintf(mdesc, mdn, "no tierfs (host disk, page cache real)");
		return 0;
	}
	if (!R->mounts_ready) {
		int rc = ts_mounts_init(&R->mounts, err, errlen);
		if (rc)
			return rc;
		R->mounts_ready = true;
	}
	char trace[PATH_MAX] = "";
	if (s->mnt.trace && *s->mnt.trace) {
		expand_trace(s->mnt.trace, tier, trace, sizeof(trace));
	} else if (lv->want_trace) {
		/* --timeline's tier tracks in real time are what the mount
		 * records: record it, next to the mounts, for this row. */
		snprintf(trace, sizeof(trace), "%s/timeline-%d-%u.trace", R->workdir, (int)getpid(),
			 R->nmounts);
		lv->own_trace = true;
	}
	snprintf(lv->trace, sizeof(lv->trace), "%s", trace);
	char warm[PATH_MAX * 2];
	snprintf(warm, sizeof(warm), "%s%s%s", dp->rel, dp->rel[0] && dp->input[0] ? "/" : "",
		 dp->input);
	char *opts = mount_opts(s, tier, trace, warm);
	char mp[PATH_MAX];
	snprintf(mp, sizeof(mp), "%s/m%d-%u", R->mntdir, (int)getpid(), R->nmounts++);
	int rc = opts ? ts_mount_start(&R->mounts, dp->backing, mp, opts, &lv->mount, err, errlen)
		      : -ENOMEM;
	free(opts);
	if (rc) {
		lv->trace[0] = '\0';
		lv->own_trace = false;
		return rc;
	}
	snprintf(lv->root, sizeof(lv->root), "%s", mp);
	ts_runner_tier_desc(s, "tierfs real", mdesc, mdn);
	return 0;
}

int ts_runner_engine(struct ts_scenario *s, struct ts_row *w, struct ts_engine **out, char *err,
		     size_t errlen)
{
	char msg[512];
	*out = NULL;
	int rc = ts_engine_new(&s->eng, out, msg, sizeof(msg));
	if (rc == TS_E_GPU_OOM) {
		char e[600];
		snprintf(e, sizeof(e), "OOM: %s", msg);
		return ts_row_set_str(&w->error, e);
	}
	if (rc)
		snprintf(err, errlen, "engine: %s", msg);
	return rc;
}

void ts_runner_tier_desc(const struct ts_scenario *s, const char *what, char *buf, size_t n)
{
	char cap[32] = "the tier's default", mem[32] = "default size";
	if (s->mnt.capacity)
		ts_fmt_size(cap, sizeof(cap), s->mnt.capacity);
	if (s->mnt.mem)
		ts_fmt_size(mem, sizeof(mem), s->mnt.mem);
	snprintf(buf, n, "%s (tier per row; capacity %s; page-cache model %s)", what, cap, mem);
}

void ts_runner_row_steps(struct ts_row *w, const struct ts_step_sums *m)
{
	double secs = (double)m->wall_ns / 1e9;
	w->iterations = m->iterations;
	w->batch = m->batch;
	w->samples = m->samples;
	w->time_s = secs;
	w->samples_per_s = secs > 0 ? (double)m->samples / secs : NAN;
	w->au_pct = secs > 0 ? 100.0 * (double)m->busy_ns / (double)m->wall_ns : NAN;
	w->stall_pct = secs > 0 ? 100.0 * (double)m->idle_ns / (double)m->wall_ns : NAN;
	w->step_p50_ms = (double)ts_hist_percentile(m->iter, 50) / 1e6;
	w->step_p99_ms = (double)ts_hist_percentile(m->iter, 99) / 1e6;
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
		       (!strcmp(dec, "auto") && cores > 0 && s->pipe.vcpus > (uint64_t)cores);
	char path[PATH_MAX];
	if (!modeled || (s->pipe.calibration && *s->pipe.calibration) ||
	    ts_host_is_profile(s->pipe.host) ||
	    ts_pipe_default_calibration(path, sizeof(path)) || access(path, R_OK) == 0)
		return 0;

	struct ts_scenario c;
	if (ts_scn_copy(&c, s))
		return -ENOMEM;
	char sub[256];
	int rc = ts_opt_set(ts_scn_dataset_opts, &c.ds, "kind", TS_DS_IMAGENET_JPEG->name, sub,
			    sizeof(sub));
	if (!rc)
		rc = ts_opt_set(ts_scn_dataset_opts, &c.ds, "dir", "", sub, sizeof(sub));
	c.ds.count = 200;
	c.ds.seed = 1;
	bool virt = R->o.virtual_time;
	R->o.virtual_time = false;
	struct ts_dataset_place dp;
	memset(&dp, 0, sizeof(dp));
	if (!rc)
		rc = ts_runner_place(R, &c, &dp, true, err, errlen);
	R->o.virtual_time = virt;
	note(R, "no decode calibration yet: measuring libjpeg-turbo decode on this host once "
		"(tiersim calibrate decode), saved to %s", path);
	char dir[PATH_MAX * 2];
	uint8_t **jpeg = NULL;
	size_t *len = NULL, n = 0;
	if (!rc && ts_runner_pathf(dir, sizeof(dir), "%s/%s", dp.dir, dp.input))
		rc = -ENAMETOOLONG;
	if (!rc)
		rc = ts_decode_load_dir(dir, 200, &jpeg, &len, &n, err, errlen);
	struct ts_decode_cal cal;
	struct ts_decode_cal_detail det;
	if (!rc)
		rc = ts_decode_calibrate((const uint8_t *const *)jpeg, len, n,
					 (unsigned)c.pipe.out_size, (unsigned)c.pipe.resize,
					 3 * TS_NS_PER_S, &cal, &det, err, errlen);
	if (!rc)
		rc = ts_decode_cal_save(path, &cal, err, errlen);
	for (size_t i = 0; i < n; i++)
		free(jpeg[i]);
	free(jpeg);
	free(len);
	ts_runner_place_free(&dp);
	ts_scn_free(&c);
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

static int run_job(struct ts_runner *R, enum ts_action act, struct ts_scenario *s,
		   const char *tier, const struct ts_scn_run *run, struct ts_row *w, char *err,
		   size_t errlen)
{
	return act == TS_ACT_RUN ? ts_runner_train(R, s, tier, run, w, err, errlen)
				 : ts_runner_preprocess(R, s, tier, run, w, err, errlen);
}

/* --band: the row again at the slow and the fast end of its tier's ranged
 * parameters (ts_tier_profile_band), into rows of its own; the range of
 * samples/s and AU they make goes on @w. */
static int run_band(struct ts_runner *R, enum ts_action act, struct ts_scenario *s,
		    const char *tier, const struct ts_scn_run *run, struct ts_row *w, char *err,
		    size_t errlen)
{
	const struct ts_tier_profile *p;
	char names[512] = "";
	if (ts_tier_set_lookup(R->tiers, tier, &p, err, errlen))
		return TS_E_UNKNOWN;
	struct ts_tier_profile banded;
	ts_tier_profile_band(p, -1, &banded, names, sizeof(names));
	/* A host profile's ranged costs move with the tier's. */
	const char *host = act == TS_ACT_PREPROCESS && run->host && *run->host ? run->host
										: s->pipe.host;
	if (ts_host_is_profile(host)) {
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
		R->band_end = k ? 1 : -1;
		if (!rc)
			rc = run_job(R, act, s, tier, run, &b, err, errlen);
		R->band_end = 0;
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
		int rc = ts_price_load_checked(NULL, R->tiers, &R->prices, err, errlen);
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
		note(R, "instance '%s': its %.0f GiB local disk is larger than tier '%s' models; "
			"run at %.0f GiB", in->name, in->disk_gib, tier->name, (double)c / (1 << 30));
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
		note(R, "%s: not priced: %s", w->label, err);
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

int ts_runner_exec(struct ts_runner *R, enum ts_action act, const struct ts_scn_run *run,
		   size_t *first, char *err, size_t errlen)
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
		if (ts_runner_interrupted)
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
		struct ts_tier_set *builtin = R->tiers, *own = NULL;
		if (!rc && s.mnt.profile && *s.mnt.profile &&
		    !(rc = ts_tier_set_load_default(&own, err, errlen)) &&
		    !(rc = ts_tier_set_add_file(own, s.mnt.profile, err, errlen)))
			R->tiers = own;
		const char *tier = R->o.ntiers ? R->o.tiers[t] : s.mnt.tier;
		char sub[512];
		if (!rc && R->o.ntiers)
			rc = ts_opt_set(ts_scn_mount_opts, &s.mnt, "tier", tier, sub, sizeof(sub));
		tier = s.mnt.tier;
		const struct ts_tier_profile *p = NULL;
		if (!rc && strcmp(tier, "none"))
			rc = ts_tier_set_lookup(R->tiers, tier, &p, err, errlen);
		if (!rc)
			rc = instance_disk(R, &s, p, err, errlen);
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
			rc = run_job(R, act, &s, tier, run, w, err, errlen);
			if (!rc && R->o.band && R->o.virtual_time && !w->error)
				rc = run_band(R, act, &s, tier, run, w, err, errlen);
			if (!rc)
				rc = row_cost(R, &s, p, w);
			if (!rc)
				note(R, "[%u] %s: %s in %.1f s", R->nruns, w->label,
				     w->error ? w->error : "done",
				     (double)(ts_now_ns() - t0) / 1e9);
		}
		if (rc && w)
			ts_report_drop_last(&R->report); /* not a result */
		R->tiers = builtin;
		ts_tier_set_free(own);
		ts_scn_free(&s);
		if (rc)
			return rc;
	}
	return 0;
}

/* ---- The script ------------------------------------------------------------- */

static int traceback(lua_State *L)
{
	const char *msg = lua_tostring(L, 1);
	if (!msg)
		msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
	luaL_traceback(L, L, msg, 1);
	return 1;
}

/* Lets a long-running script notice Ctrl-C between configurations. */
static void interrupt_hook(lua_State *L, lua_Debug *ar)
{
	(void)ar;
	if (ts_runner_interrupted)
		luaL_error(L, "interrupted");
}

int ts_runner_run(struct ts_runner *R, char *err, size_t errlen)
{
	R->L = luaL_newstate();
	if (!R->L)
		return -ENOMEM;
	lua_State *L = R->L;
	luaL_openlibs(L);
	ts_lua_open_scenario(L, R);
	ts_lua_open_tiers(L, R);
	lua_sethook(L, interrupt_hook, LUA_MASKCOUNT, 10000);

	lua_pushcfunction(L, traceback);
	int h = lua_gettop(L);
	int rc = luaL_loadfile(L, R->o.script);
	if (rc == LUA_OK)
		rc = lua_pcall(L, 0, 0, h);
	if (rc != LUA_OK) {
		if (ts_runner_interrupted)
			return -EINTR;
		const char *msg = lua_tostring(L, -1);
		/* The first line names SCRIPT:LINE; the traceback follows. */
		fprintf(stderr, "tiersim: %s\n", msg ? msg : "error");
		return TS_E_LUA;
	}
	if (!R->report.n) {
		snprintf(err, errlen, "%s ran no configuration (call run{}, preprocess{} or sweep{})",
			 R->o.script);
		return -ENODATA;
	}
	return 0;
}

int ts_runner_main(struct ts_runner *R, const struct ts_runner_opts *o, const char *cmd,
		   int *status)
{
	char err[2048] = "";
	*status = TS_EXIT_OK;
	int rc = ts_runner_init(R, o, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "tiersim %s: %s\n", cmd, err[0] ? err : ts_strerror(rc));
		*status = rc == TS_E_UNKNOWN || rc == TS_E_PARSE ? TS_EXIT_USAGE : TS_EXIT_FAIL;
		return rc;
	}
	rc = ts_runner_run(R, err, sizeof(err));
	if (rc == -EINTR || ts_runner_interrupted) {
		fprintf(stderr, "tiersim %s: interrupted by signal %d; stopping and unmounting\n",
			cmd, (int)ts_runner_interrupted);
		*status = TS_EXIT_INTERRUPT;
		return -EINTR;
	}
	if (rc == TS_E_LUA) {
		/* The message and traceback are printed. */
		*status = R->usage_error ? TS_EXIT_USAGE : TS_EXIT_FAIL;
	} else if (rc) {
		fprintf(stderr, "tiersim %s: %s\n", cmd, err[0] ? err : ts_strerror(rc));
		*status = TS_EXIT_FAIL;
	}
	return rc;
}
