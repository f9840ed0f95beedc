/*
 * dlio_measure.c — DLIO's own CPU on this machine (dlio_measure.h): the
 * files, the mount, DLIO's readers and tiersim's chain through it, round
 * after round, and the profile written from the medians.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "core/files.h"
#include "core/interrupt.h"
#include "core/paths.h"
#include "fs/mount.h"
#include "pipeline/dliochain.h"
#include "pipeline/dliofmt.h"
#include "pipeline/host.h"
#include "workloads/dlio_loader.h"
#include "workloads/dlio_measure.h"

/* The sets dlio_measure.py writes and reads, in its order. */
enum { S_NPZ_S, S_NPZ_L, S_JPEG, S_H5_S, S_H5_L, S_PNG_S, S_PNG_L, NSETS };
static const char *const set_name[NSETS] = { "npz-s", "npz-l", "jpeg", "hdf5-s", "hdf5-l",
					     "png-s", "png-l" };
static const char *const set_ext[NSETS] = { ".npz", ".npz", ".jpeg", ".hdf5", ".hdf5", ".png",
					    ".png" };
static const enum ts_chain_fmt set_fmt[NSETS] = { TS_CHAIN_NPZ, TS_CHAIN_NPZ, TS_CHAIN_JPEG,
						  TS_CHAIN_HDF5, TS_CHAIN_HDF5, TS_CHAIN_PNG,
						  TS_CHAIN_PNG };
/* The readers of each set at once: its read_threads in dlio_measure.py's
 * SETS (DLIO's DataLoader workers), so that tiersim's chains are read as
 * DLIO's loader and tiersim's own read them. */
static const unsigned set_readers[NSETS] = { 8, 4, 8, 8, 4, 8, 4 };
/* ... and the array each sample hands over, which its worker collates at
 * the batch's end: DLIO's resized_image, int(sqrt(record_length_resize))
 * squared, of the SETS' resize (150,528 and 2,097,152) */
static const double set_collate_bytes[NSETS] = { 387.0 * 387, 1448.0 * 1448, 387.0 * 387,
						 387.0 * 387, 1448.0 * 1448, 387.0 * 387,
						 1448.0 * 1448 };
#define MAXREADERS 64
#define MAXROUNDS 15
#define MAXSTARTS 8 /* the loaders timed starting, per round (dlio_measure.py) */

/* One round's figures of one set, per sample. */
struct round_set {
	double dlio_ns;		  /* DLIO's reader thread */
	double bytes, pixels;	  /* the sample's bytes (npz: x's, hdf5: the record's; images:
				   * the file's), the image's pixels */
	double data_off;	  /* hdf5: where the record lies in the file */
	double chain_ns, daemon_ns; /* tiersim's reader thread; the tierfs daemon */
	double requests, read_mib; /* the chain's requests and what it reads */
	double dreqs;		   /* ... of them those that reach the daemon */
	double readers;		   /* the chains read at once */
};

struct round {
	struct round_set s[NSETS];
	double step_unet3d, step_resnet50; /* ns per step */
	/* the DataLoader starting with start_w[i] workers: its first epoch
	 * (forked), its second (resumed), ns of wall time */
	double start_w[MAXSTARTS], start1[MAXSTARTS], start2[MAXSTARTS];
	unsigned nstart;
	double gc_ns, gc_objects; /* a forked worker's first full collection */
	/* a worker's end of a batch (default_collate and the copy into shared
	 * memory) at each COLLATES shape: ns per sample and the sample's MiB
	 * (0: not seen) */
	double collate_ns[2], collate_mib[2];
};

/* The worker's sample its first full collection comes with: DLIO 2.0.0's
 * and CPython's (the collector's counts when the training process forks,
 * the objects a sample leaves to it), not this machine's, so written as
 * found in DLIO's own run (bench/dlio_worker_split.py through tierfs on
 * ssd-cloud, 2026-12-03 08:04 UTC: resnet50's npz shape, 4,000 files,
 * batch 400, 8 workers, 1 rank, 2 epochs; seven workers at their 463rd
 * sample, one at its 507th; unet3d's 64 files of 8 MiB, 4 workers of 47
 * samples each: none). */
#define DLIO_GC_SAMPLES 463
#define DLIO_GC_SAMPLES_HIGH 507
/* dlio_worker_spread: bench/dlio_rank_spread.py --workers over DLIO 2.0.0's
 * traces of r50-1-ssd (bench/dlio_peer.sh, 9 runs: 2026-12-02 20:15-20:19
 * and 23:42-23:45, 2026-12-03 05:20-05:25), epochs 2 and 3: median, least,
 * most over the 18 epochs */
#define DLIO_SPREAD 0.0093
#define DLIO_SPREAD_LOW 0.0058
#define DLIO_SPREAD_HIGH 0.0155

struct ctx {
	const struct ts_dlio_measure_opts *o;
	char python[4096], script[4096], top[4096], data[4200], mnt[4200], log[4200];
	pid_t daemon;
	double base_ns; /* opts.from's npz work per sample at the small set's size */
	/* opts.from's dlio_run_request_ns, nominal, fast and slow ends: written
	 * as it is, not over the speed (write_profile) */
	double run_ns[3];
	int only; /* opts.probe's set, or -1: every set, the steps, the starts */
	char *err;
	size_t errlen;
};

static void say(const struct ctx *c, const char *fmt, ...) TS_PRINTF(2, 3);
static void say(const struct ctx *c, const char *fmt, ...)
{
	if (c->o->quiet)
		return;
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "tiersim hosts measure: ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/* Runs the script with @verb on @dir (and set @set, -1: none); its stdout
 * appended to @out (NULL: dropped), its stderr into the log. 0, or an error
 * naming the log's last line. */
static int py(struct ctx *c, const char *verb, const char *dir, int set, FILE *out)
{
	int lfd = open(c->log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (lfd < 0) {
		snprintf(c->err, c->errlen, "%s: %s", c->log, strerror(errno));
		return -errno;
	}
	fflush(out ? out : stdout);
	pid_t pid = fork();
	if (pid == 0) {
		int ofd = out ? fileno(out) : open("/dev/null", O_WRONLY);
		if (ofd < 0 || dup2(ofd, 1) < 0 || dup2(lfd, 2) < 0)
			_exit(127);
		char *argv[] = { c->python, c->script, (char *)verb, (char *)dir,
				 set >= 0 ? (char *)set_name[set] : NULL, NULL };
		execv(c->python, argv);
		_exit(127);
	}
	close(lfd);
	int st = 0;
	if (pid < 0) {
		snprintf(c->err, c->errlen, "cannot run %s: %s", c->python, strerror(errno));
		return -errno;
	}
	/* A stop (core/interrupt.h) ends the script too, and waits for it:
	 * the caller then unmounts and removes the folder it reads. */
	bool stopped = false;
	while (waitpid(pid, &st, 0) < 0) {
		if (errno != EINTR) {
			snprintf(c->err, c->errlen, "cannot run %s: %s", c->python, strerror(errno));
			return -errno;
		}
		if (ts_interrupted && !stopped) {
			kill(pid, SIGTERM);
			stopped = true;
		}
	}
	if (stopped || ts_interrupted) {
		snprintf(c->err, c->errlen, "interrupted");
		return -EINTR;
	}
	if (WIFEXITED(st) && !WEXITSTATUS(st))
		return 0;
	char last[512];
	ts_last_line(c->log, last, sizeof(last));
	snprintf(c->err, c->errlen, "%s %s %s failed (%s; %s): %.512s", c->python, c->script, verb,
		 WIFEXITED(st) ? "exit status" : "signal", c->log, last);
	return -ECHILD;
}

static uint64_t thread_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The CPU the daemon's threads have run (schedstat), ns. */
static double daemon_ns(pid_t pid)
{
	char p[64];
	snprintf(p, sizeof(p), "/proc/%d/task", (int)pid);
	DIR *d = opendir(p);
	double sum = 0;
	for (struct dirent *e; d && (e = readdir(d));) {
		if (e->d_name[0] == '.')
			continue;
		char f[128];
		snprintf(f, sizeof(f), "/proc/%d/task/%.32s/schedstat", (int)pid, e->d_name);
		FILE *fp = fopen(f, "r");
		unsigned long long ns;
		if (fp && fscanf(fp, "%llu", &ns) == 1)
			sum += (double)ns;
		if (fp)
			fclose(fp);
	}
	if (d)
		closedir(d);
	return sum;
}

/* One reader's share of tiersim's chains (struct chain_part), or its
 * failure: what it read and the CPU its thread spent. */
struct chain_part {
	int rc;
	double ns, files, reqs, dreqs, bytes;
};

/* Reader @p of @np: tiersim's chain of every @np-th file of set @k in
 * @dir (@names, from the @p-th), as the DLIO loader's real time issues it
 * (workloads/dlio_loader.c, r_sample), into *@cp. */
static void chain_part(const struct round_set *rs, int k, const char *dir, char **names, size_t n,
		       size_t p, size_t np, struct chain_part *cp, char *path, size_t pathlen)
{
	struct ts_chain_req *q = NULL;
	size_t cap = 0;
	uint8_t *buf = NULL;
	size_t bufcap = 0;
	int rc = 0;
	*cp = (struct chain_part){ 0 };
	uint64_t t0 = thread_ns();
	for (size_t i = p; i < n && !rc; i += np) {
		snprintf(path, pathlen, "%s/%s", dir, names[i]);
		struct stat st;
		if (stat(path, &st)) {
			rc = -errno;
			break;
		}
		struct ts_chain_file f = { .size = (uint64_t)st.st_size };
		enum ts_chain_fmt fmt = set_fmt[k];
		if (fmt == TS_CHAIN_NPZ) {
			f.member = TS_NPZ_LFH + TS_NPZ_NAME;
			ts_npz_payload(f.size, &f.data_off, &f.data_len);
		} else if (fmt == TS_CHAIN_HDF5) {
			f.data_off = (uint64_t)rs->data_off;
			f.data_len = (uint64_t)rs->bytes;
		} else {
			f.data_len = f.size;
		}
		size_t m = ts_chain_build(fmt, &f, q, cap);
		if (m > cap) {
			struct ts_chain_req *nq = realloc(q, m * sizeof(*nq));
			if (!nq) {
				rc = -ENOMEM;
				break;
			}
			q = nq;
			cap = m;
			m = ts_chain_build(fmt, &f, q, cap);
		}
		int fd = -1;
		bool walked = false;
		cp->dreqs += (double)ts_dl_chain_daemon_reqs(q, m);
		for (size_t j = 0; j < m && !rc; j++) {
			/* a walk is inside the call by path that follows it
			 * (workloads/dlio_loader.c counts it so) */
			cp->reqs += q[j].op != TS_CHAIN_WALK;
			switch (q[j].op) {
			case TS_CHAIN_WALK:
				walked = true;
				break;
			case TS_CHAIN_GETATTR: {
				uint64_t size;
				if (fd >= 0)
					rc = ts_chain_stat(&q[j], fd, path, walked, &size);
				walked = walked && fd < 0;
				break;
			}
			case TS_CHAIN_OPEN:
				if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
					rc = -errno;
				walked = false;
				break;
			case TS_CHAIN_READ:
				if (q[j].len > bufcap) {
					uint8_t *nb = realloc(buf, q[j].len);
					if (!nb) {
						rc = -ENOMEM;
						break;
					}
					buf = nb;
					bufcap = q[j].len;
				}
				if (pread(fd, buf, q[j].len, (off_t)q[j].off) < 0)
					rc = -errno;
				cp->bytes += (double)q[j].len;
				break;
			case TS_CHAIN_CLOSE:
				close(fd);
				fd = -1;
				break;
			default: break;
			}
		}
		if (fd >= 0)
			close(fd);
		cp->files++;
	}
	cp->ns = (double)(thread_ns() - t0);
	cp->rc = rc;
	free(q);
	free(buf);
}

/* tiersim's chains of set @k through the mount, read as DLIO's loader
 * reads the set: by set_readers[k] processes at once (the set's
 * read_threads, workloads/dlio_measure.py's SETS), each every
 * set_readers[k]-th file, one chain after another, released together;
 * the chain's CPU per file is the sum of the readers' threads' over the
 * files. One reader alone spent about half what each of eight at once
 * spends a request here (5.6 against 11 us, 2026-12-06): the system
 * calls of readers sharing two cores cost more than those of one. */
static int chains(struct ctx *c, int k, struct round_set *rs)
{
	char dir[4300], path[4400];
	snprintf(dir, sizeof(dir), "%s/%s", c->mnt, set_name[k]);
	char **names;
	size_t n, kept = 0;
	int rc = ts_dir_names(AT_FDCWD, dir, TS_DIR_NO_DOT, &names, &n);
	if (rc) {
		snprintf(c->err, c->errlen, "%s: %s", dir, strerror(-rc));
		return rc;
	}
	for (size_t i = 0; i < n; i++) { /* the set's files, in name order */
		size_t el = strlen(set_ext[k]), nl = strlen(names[i]);
		if (nl >= el && !strcmp(names[i] + nl - el, set_ext[k]))
			names[kept++] = names[i];
		else
			free(names[i]);
	}
	size_t np = TS_MIN(TS_MIN(c->o->chain_readers ? c->o->chain_readers : set_readers[k], kept),
			   MAXREADERS);
	struct chain_part sum = { 0 }, part;
	pid_t pid[MAXREADERS];
	int go[2] = { -1, -1 }, back[2] = { -1, -1 };
	size_t started = 0;
	double d0 = 0, d1 = 0;
	snprintf(path, sizeof(path), "%s", dir);
	if (!np) {
		rc = -ENOENT;
		goto out;
	}
	if (pipe2(go, O_CLOEXEC) || pipe2(back, O_CLOEXEC)) {
		rc = -errno;
		goto out;
	}
	for (; started < np; started++) {
		pid_t f = fork();
		if (f < 0) {
			rc = -errno;
			break;
		}
		if (!f) { /* a reader: waits for the others, reads its share, says it */
			char b;
			close(go[1]);
			close(back[0]);
			if (read(go[0], &b, 1) < 0)
				_exit(1);
			chain_part(rs, k, dir, names, kept, started, np, &part, path, sizeof(path));
			_exit(write(back[1], &part, sizeof(part)) == (ssize_t)sizeof(part) ? 0 : 1);
		}
		pid[started] = f;
	}
	close(back[1]);
	back[1] = -1;
	d0 = daemon_ns(c->daemon);
	close(go[1]); /* every reader starts */
	go[1] = -1;
	for (size_t i = 0; i < started; i++) {
		ssize_t got = read(back[0], &part, sizeof(part));
		if (got != (ssize_t)sizeof(part)) {
			rc = rc ? rc : -EPIPE;
			break;
		}
		if (part.rc && !rc)
			rc = part.rc;
		sum.ns += part.ns;
		sum.files += part.files;
		sum.reqs += part.reqs;
		sum.dreqs += part.dreqs;
		sum.bytes += part.bytes;
	}
	for (size_t i = 0; i < started; i++) {
		int st;
		while (waitpid(pid[i], &st, 0) < 0 && errno == EINTR)
			;
		if (!rc && !(WIFEXITED(st) && !WEXITSTATUS(st)))
			rc = -ECHILD;
	}
	d1 = daemon_ns(c->daemon);
out:
	for (int i = 0; i < 2; i++) {
		if (go[i] >= 0)
			close(go[i]);
		if (back[i] >= 0)
			close(back[i]);
	}
	ts_dir_names_free(names, kept);
	if (rc) {
		snprintf(c->err, c->errlen, "%s: %s", path, strerror(-rc));
		return rc;
	}
	if (!sum.files) {
		snprintf(c->err, c->errlen, "%s: no %s files", dir, set_ext[k]);
		return -ENOENT;
	}
	rs->chain_ns = sum.ns / sum.files;
	rs->daemon_ns = (d1 - d0) / sum.files;
	rs->requests = sum.reqs / sum.files;
	rs->dreqs = sum.dreqs / sum.files;
	rs->read_mib = sum.bytes / sum.files / 1048576.0;
	rs->readers = (double)np;
	return 0;
}

/* One round: DLIO's readers and steps (the script), then tiersim's chains.
 * Each set is read in a process of its own, as a probe reads its set: read
 * one after another in one process, hdf5-s and jpeg cost 1.2-1.3x what a
 * probe of them found minutes later (2026-12-05), and bench/dlio_peer.sh
 * holds its probes against the measurement's level. Then the steps, the
 * starts and the collection in one more. */
static int round_run(struct ctx *c, struct round *r)
{
	FILE *out = tmpfile();
	if (!out) {
		snprintf(c->err, c->errlen, "a temporary file: %s", strerror(errno));
		return -errno;
	}
	int rc = 0;
	for (int k = 0; k < NSETS && !rc; k++)
		if (c->only < 0 || k == c->only)
			rc = ts_interrupted ? -EINTR : py(c, "read", c->mnt, k, out);
	if (!rc && c->only < 0)
		rc = ts_interrupted ? -EINTR : py(c, "rest", c->mnt, -1, out);
	unsigned seen = 0;
	rewind(out);
	char line[512];
	while (!rc && fgets(line, sizeof(line), out)) {
		char name[32];
		double files, ns, bytes, pixels, off = 0, batch, resize, steps;
		if (sscanf(line, "sample %31s %lf %lf %lf %lf %lf", name, &files, &ns, &bytes, &pixels,
			   &off) >= 5) {
			for (int k = 0; k < NSETS; k++)
				if (!strcmp(name, set_name[k]) && files > 0) {
					r->s[k].dlio_ns = ns / files;
					r->s[k].bytes = bytes;
					r->s[k].pixels = pixels;
					r->s[k].data_off = off;
					seen |= 1u << k;
				}
		} else if (sscanf(line, "collate %31s %lf %lf %lf", name, &batch, &bytes, &ns) == 4 &&
			   batch > 0 && bytes > 0 && ns > 0) {
			/* dlio_measure.py's COLLATES: unet3d's few large
			 * samples, resnet50's many small ones */
			int m = !strcmp(name, "unet3d") ? 0 : !strcmp(name, "resnet50") ? 1 : -1;
			if (m >= 0) {
				r->collate_ns[m] = ns / batch;
				r->collate_mib[m] = bytes / 1048576.0;
			}
		} else if (sscanf(line, "gc %lf %lf", &ns, &files) == 2 && ns > 0) {
			r->gc_ns = ns;
			r->gc_objects = files;
			seen |= 4u << NSETS;
		} else if (sscanf(line, "start %lf %lf %lf", &batch, &ns, &resize) == 3 &&
			   batch >= 1) {
			if (r->nstart < MAXSTARTS) {
				r->start_w[r->nstart] = batch;
				r->start1[r->nstart] = ns;
				r->start2[r->nstart++] = resize;
			}
		} else if (sscanf(line, "step %31s %lf %lf %lf %lf", name, &batch, &resize, &steps,
				  &ns) == 5 && steps > 0) {
			if (!strcmp(name, "unet3d"))
				r->step_unet3d = ns / steps, seen |= 1u << NSETS;
			else if (!strcmp(name, "resnet50"))
				r->step_resnet50 = ns / steps, seen |= 2u << NSETS;
		}
	}
	fclose(out);
	if (!rc && c->only >= 0) { /* a probe: its set alone */
		if (seen != 1u << c->only) {
			snprintf(c->err, c->errlen, "%s read: its output lacks set %s (%s)", c->script,
				 set_name[c->only], c->log);
			return -EPROTO;
		}
		return chains(c, c->only, &r->s[c->only]);
	}
	/* a line through the starts needs two numbers of workers */
	bool two = false;
	for (unsigned i = 1; i < r->nstart; i++)
		two = two || r->start_w[i] != r->start_w[0];
	if (!rc && (seen != (1u << (NSETS + 3)) - 1 || !two)) {
		snprintf(c->err, c->errlen, "%s read: its output lacks a set, a step, the loader's "
			 "starts or the workers' collection (%s)", c->script, c->log);
		rc = -EPROTO;
	}
	for (int k = 0; k < NSETS && !rc; k++)
		rc = chains(c, k, &r->s[k]);
	return rc;
}

static int dcmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The median, least and most of @n values (clamped at 0: a cost). */
static struct ts_dlio_measured spread(double *v, unsigned n)
{
	qsort(v, n, sizeof(*v), dcmp);
	double med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	return (struct ts_dlio_measured){ .v = fmax(med, 0), .low = fmax(v[0], 0),
					  .high = fmax(v[n - 1], 0) };
}

void ts_dlio_measure_line(const double *x, const double *y, unsigned n, double *a, double *b)
{
	double sx = 0, sy = 0, sxx = 0, sxy = 0;
	for (unsigned i = 0; i < n; i++) {
		sx += x[i];
		sy += y[i];
		sxx += x[i] * x[i];
		sxy += x[i] * y[i];
	}
	*b = (n * sxy - sx * sy) / (n * sxx - sx * sx);
	*a = (sy - *b * sx) / n;
	if (*a < 0) {
		*a = 0;
		*b = sxy / sxx;
	}
}

/* A format's own line through its two sets (DLIO's reader less tiersim's
 * chain, per MiB of what .bytes counts): intercept *@a, slope *@b. */
static void own_line(const struct round_set *s, const struct round_set *l, double *a, double *b)
{
	const double x[2] = { s->bytes / 1048576.0, l->bytes / 1048576.0 };
	const double y[2] = { s->dlio_ns - s->chain_ns, l->dlio_ns - l->chain_ns };
	ts_dlio_measure_line(x, y, 2, a, b);
}

/* Each round's own fit, then the spread over rounds; with @base (the
 * carried-from host's npz work per sample at @base_mib MiB, ns; 0: none)
 * the speed against it, each round's. */
static void fit(const struct round *rd, unsigned n, double base, double base_mib,
		struct ts_dlio_measure_result *r)
{
	double sp[MAXROUNDS];
	double a[MAXROUNDS], b[MAXROUNDS], j[MAXROUNDS], q[MAXROUNDS], qm[MAXROUNDS],
		dq[MAXROUNDS], dqm[MAXROUNDS],
		su[MAXROUNDS], sr[MAXROUNDS], ha[MAXROUNDS], hb[MAXROUNDS], pa[MAXROUNDS],
		pb[MAXROUNDS], s1a[MAXROUNDS], s1b[MAXROUNDS], s2a[MAXROUNDS], s2b[MAXROUNDS],
		gcn[MAXROUNDS], go[MAXROUNDS], cs[MAXROUNDS], cm[MAXROUNDS];
	for (unsigned i = 0; i < n; i++) {
		/* each set's workers collated its batches (the resized images
		 * of set_collate_bytes): that part is the batch's, charged at its
		 * end (dlio_collate_ns + dlio_collate_ns_per_mib x the sample's
		 * MiB, a line through the two COLLATES shapes), not the sample's */
		struct round x = rd[i];
		const double *cn = x.collate_ns, *cb = x.collate_mib;
		if (cb[0] > 0 && cb[1] > 0 && cb[0] != cb[1]) {
			cm[i] = (cn[0] - cn[1]) / (cb[0] - cb[1]);
			cs[i] = cn[1] - cm[i] * cb[1];
			if (cs[i] < 0) { /* no constant to be seen: through 0 */
				cs[i] = 0;
				cm[i] = (cn[0] + cn[1]) / (cb[0] + cb[1]);
			}
		} else {
			cs[i] = cm[i] = 0;
		}
		for (int k = 0; k < NSETS; k++)
			x.s[k].dlio_ns -= cs[i] + cm[i] * set_collate_bytes[k] / 1048576.0;
		ts_dlio_measure_line(x.start_w, x.start1, x.nstart, &s1a[i], &s1b[i]);
		ts_dlio_measure_line(x.start_w, x.start2, x.nstart, &s2a[i], &s2b[i]);
		own_line(&x.s[S_H5_S], &x.s[S_H5_L], &ha[i], &hb[i]);
		own_line(&x.s[S_PNG_S], &x.s[S_PNG_L], &pa[i], &pb[i]);
		const struct round_set *s = &x.s[S_NPZ_S], *l = &x.s[S_NPZ_L],
				       *g = &x.s[S_JPEG];
		/* DLIO's own: its reader's thread less tiersim's on the same chain */
		own_line(s, l, &a[i], &b[i]);
		/* this round's npz work at the base's size against the base's,
		 * which holds the batch's collation per sample (measured so) */
		double here = a[i] + b[i] * base_mib + cs[i] +
			      cm[i] * set_collate_bytes[S_NPZ_S] / 1048576.0;
		sp[i] = base > 0 && here > 0 ? base / here : 0;
		double oj = g->dlio_ns - g->chain_ns - (a[i] + b[i] * g->bytes / 1048576.0);
		j[i] = g->pixels > 0 ? oj / (g->pixels / 1e6) : 0;
		/* the chain's cost to the host, requests x q + MiB read x qm:
		 * the reading thread's and the daemon's, each its own line */
		double det = s->requests * l->read_mib - l->requests * s->read_mib;
		q[i] = (s->chain_ns * l->read_mib - l->chain_ns * s->read_mib) / det;
		qm[i] = (s->requests * l->chain_ns - l->requests * s->chain_ns) / det;
		/* the daemon's per request that reaches it (as it is charged) */
		double dd = s->dreqs * l->read_mib - l->dreqs * s->read_mib;
		dq[i] = (s->daemon_ns * l->read_mib - l->daemon_ns * s->read_mib) / dd;
		dqm[i] = (s->dreqs * l->daemon_ns - l->dreqs * s->daemon_ns) / dd;
		gcn[i] = rd[i].gc_ns;
		go[i] = rd[i].gc_objects;
		su[i] = rd[i].step_unet3d;
		sr[i] = rd[i].step_resnet50;
	}
	r->sample_ns = spread(a, n);
	r->sample_ns_per_mib = spread(b, n);
	r->jpeg_ns_per_mpix = spread(j, n);
	r->request_ns = spread(q, n);
	r->request_ns_per_mib = spread(qm, n);
	r->request_daemon_ns = spread(dq, n);
	r->request_daemon_ns_per_mib = spread(dqm, n);
	r->step_unet3d = spread(su, n);
	r->step_resnet50 = spread(sr, n);
	r->hdf5_ns = spread(ha, n);
	r->hdf5_ns_per_mib = spread(hb, n);
	r->png_ns = spread(pa, n);
	r->png_ns_per_mib = spread(pb, n);
	r->start_ns = spread(s1a, n);
	r->start_ns_per_worker = spread(s1b, n);
	r->restart_ns = spread(s2a, n);
	r->restart_ns_per_worker = spread(s2b, n);
	r->worker_gc_ns = spread(gcn, n);
	r->gc_objects = spread(go, n).v;
	r->collate_ns = spread(cs, n);
	r->collate_ns_per_mib = spread(cm, n);
	if (base > 0)
		r->speed = spread(sp, n);
}

/* @s as a Lua string's body (quotes and backslashes escaped, no newline). */
static void lua_str(char *out, size_t n, const char *s)
{
	size_t k = 0;
	for (; *s && k + 2 < n; s++) {
		if (*s == '"' || *s == '\\')
			out[k++] = '\\';
		out[k++] = *s == '\n' ? ' ' : *s;
	}
	out[k] = 0;
}

static void cpu_model(char *out, size_t n)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512];
	snprintf(out, n, "unknown CPU");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "model name", 10) && strchr(line, ':')) {
			char *v = strchr(line, ':') + 1;
			v += strspn(v, " \t");
			v[strcspn(v, "\n")] = 0;
			snprintf(out, n, "%.200s", v);
			break;
		}
	if (f)
		fclose(f);
}

static void num(FILE *f, const char *key, const struct ts_dlio_measured *m, const char *what,
		const char *src)
{
	fprintf(f, "  %s = { %.0f, \"measured\", \"%s: %s (median of the rounds; low, high: their "
		   "least and most)\", low = %.0f, high = %.0f },\n",
		key, m->v, src, what, m->low, m->high);
}

static int write_profile(const struct ctx *c, const struct round *rd, unsigned n,
			 struct ts_dlio_measure_result *r)
{
	char cpu[256], qcpu[600], venv[1200], src[2048], stamp[32], tmp[4200];
	time_t now = time(NULL);
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	cpu_model(cpu, sizeof(cpu));
	lua_str(qcpu, sizeof(qcpu), cpu);
	lua_str(venv, sizeof(venv), c->o->venv);
	snprintf(src, sizeof(src), "tiersim hosts measure %s, DLIO at %.1000s, tierfs on %.64s, %u "
		 "rounds", stamp, venv, c->o->tier ? c->o->tier : "nvme-local", n);
	char made[4096];
	char *slash = strrchr(r->path, '/');
	if (slash && slash != r->path) {
		*slash = 0;
		int rc = ts_mkdir_p(r->path, 0755, made, sizeof(made));
		*slash = '/';
		if (rc) {
			snprintf(c->err, c->errlen, "%s: %s", r->path, strerror(-rc));
			return rc;
		}
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp", r->path);
	FILE *f = fopen(tmp, "w");
	if (!f) {
		snprintf(c->err, c->errlen, "%s: %s", tmp, strerror(errno));
		return -errno;
	}
	const struct round_set *s = &rd[0].s[S_NPZ_S], *l = &rd[0].s[S_NPZ_L], *g = &rd[0].s[S_JPEG];
	fprintf(f, "-- %s: this machine's DLIO costs, written by `tiersim hosts measure` (%s).\n"
		   "-- `tiersim dlio --host this-machine` charges them (pipeline/host.h,\n"
		   "-- workloads/dlio_measure.h says how each was measured).\n",
		TS_HOST_THIS, stamp);
	fprintf(f, "host \"%s\" {\n  desc = \"this machine, DLIO 2.0.0's own CPU as %s measured "
		   "it\",\n  cpu = \"%s (%" PRIu64 " CPUs)\",\n",
		TS_HOST_THIS, "tiersim hosts measure", qcpu, r->vcpus);
	if (c->o->from) {
		char qfrom[256];
		lua_str(qfrom, sizeof(qfrom), c->o->from);
		/* what is not measured here comes from it (pipeline/host.h's
		 * from = chain), each cost over this speed */
		fprintf(f, "  from = \"%s\",\n  speed = { %.4f, \"measured\", \"%s: %s's DLIO npz "
			   "work per sample at %.0f B (dlio_sample_ns + dlio_sample_ns_per_mib, %.0f ns) "
			   "over this measurement's at the same size with the batch's collation per "
			   "sample added back (as %s's line holds it), each round's (median of the "
			   "rounds; low, high: their least and most)\", low = %.4f, high = %.4f },\n",
			qfrom, r->speed.v, src, qfrom, s->bytes, c->base_ns, qfrom, r->speed.low,
			r->speed.high);
		/* DLIO's daemon's CPU per request beyond tiersim's did not grow
		 * with the host's slowdown (workloads/DLIO.md, 2026-12-05: 16-190
		 * us a sample more than tiersim's daemon while DLIO's own work
		 * was 1.5-2.4x its 2026-12-04 figure): the carried-from host's,
		 * as it is */
		if (c->run_ns[0] > 0)
			fprintf(f, "  dlio_run_request_ns = { %.0f, \"measured\", \"%s's "
				   "dlio_run_request_ns, as it is (not over the speed: DLIO's daemon's "
				   "CPU per request beyond tiersim's does not move with DLIO's own work, "
				   "workloads/DLIO.md 2026-12-05)\", low = %.0f, high = %.0f },\n",
				c->run_ns[0], qfrom, c->run_ns[1], c->run_ns[2]);
	}
	char what[512];
	snprintf(what, sizeof(what), "DLIO's DataLoader workers (TorchDataset, NPZReader) per sample "
		 "through tierfs less tiersim's chain of the same requests, %.0f B (%.0f requests) and %.0f B (%.0f): "
		 "the line's intercept", s->bytes, s->requests, l->bytes, l->requests);
	num(f, "dlio_sample_ns", &r->sample_ns, what, src);
	num(f, "dlio_sample_ns_per_mib", &r->sample_ns_per_mib,
	    "the same line's slope, per MiB of the sample", src);
	snprintf(what, sizeof(what), "DLIO's workers (ImageReader) on a %.0f-pixel jpeg of "
		 "%.0f B (Pillow) less tiersim's chain and the npz line at its size, per Mpixel",
		 g->pixels, g->bytes);
	num(f, "dlio_jpeg_ns_per_mpix", &r->jpeg_ns_per_mpix, what, src);
	const struct round_set *hs = &rd[0].s[S_H5_S], *hl = &rd[0].s[S_H5_L];
	snprintf(what, sizeof(what), "DLIO's workers (HDF5Reader, h5py) per sample through tierfs "
		 "less tiersim's chain of the same requests, records of %.0f B (%.0f requests) and "
		 "%.0f B (%.0f): the line's intercept", hs->bytes, hs->requests, hl->bytes,
		 hl->requests);
	num(f, "dlio_hdf5_sample_ns", &r->hdf5_ns, what, src);
	num(f, "dlio_hdf5_sample_ns_per_mib", &r->hdf5_ns_per_mib,
	    "the same line's slope, per MiB of the record", src);
	const struct round_set *ps = &rd[0].s[S_PNG_S], *pl = &rd[0].s[S_PNG_L];
	snprintf(what, sizeof(what), "DLIO's workers (ImageReader, Pillow) per png sample through "
		 "tierfs less tiersim's chain of the same requests, files of %.0f B (%.0f requests) "
		 "and %.0f B (%.0f): the line's intercept", ps->bytes, ps->requests, pl->bytes,
		 pl->requests);
	num(f, "dlio_png_sample_ns", &r->png_ns, what, src);
	num(f, "dlio_png_sample_ns_per_mib", &r->png_ns_per_mib,
	    "the same line's slope, per MiB of the file", src);
	char chw[400];
	snprintf(chw, sizeof(chw),
		 "tiersim's chain of the two npz samples through tierfs, read as DLIO's loader reads "
		 "them (%.0f and %.0f readers at once, processes of their own), the reading threads' "
		 "CPU (CLOCK_THREAD_CPUTIME_ID, the system calls) over the files: the line's per "
		 "request", rd[0].s[S_NPZ_S].readers, rd[0].s[S_NPZ_L].readers);
	num(f, "dlio_request_ns", &r->request_ns, chw, src);
	num(f, "dlio_request_ns_per_mib", &r->request_ns_per_mib, "the same: per MiB read", src);
	num(f, "dlio_request_daemon_ns", &r->request_daemon_ns,
	    "the same chains, the tierfs daemon's threads' CPU (schedstat), which serve a request "
	    "while its latency runs: the line's per request that reaches the daemon (no getattr "
	    "the kernel's attribute cache answers)", src);
	num(f, "dlio_request_daemon_ns_per_mib", &r->request_daemon_ns_per_mib,
	    "the same: per MiB read", src);
	num(f, "dlio_step_ns", &r->step_unet3d,
	    "a torch DataLoader as DLIO builds it (pin_memory, 4 persistent workers), batches of 7 "
	    "x 2896 x 2896 (8 MiB: DLIO 2.0.0 reads no unet3d resize): the main thread per step "
	    "after the first (unet3d's shape)", src);
	fprintf(f, "  dlio_workload_step_ns = {\n  ");
	num(f, "unet3d", &r->step_unet3d, "the same, unet3d's batch of 7 x 8 MiB", src);
	fprintf(f, "  ");
	num(f, "resnet50", &r->step_resnet50,
	    "the same with 8 workers, resnet50's batch of 400 x 387 x 387", src);
	fprintf(f, "  },\n");
	char ws[64] = "";
	for (unsigned i = 0; i < rd[0].nstart; i++)
		snprintf(ws + strlen(ws), sizeof(ws) - strlen(ws), "%s%.0f", i ? ", " : "",
			 rd[0].start_w[i]);
	snprintf(what, sizeof(what), "DLIO's DataLoader (TorchDataset's worker_init, fork, "
		 "pin_memory, persistent workers) from iter() to its first batch of one (no file "
		 "read), wall time, with %s workers: the first epoch's (the workers forked), the "
		 "line's intercept", ws);
	num(f, "dlio_loader_start_ns", &r->start_ns, what, src);
	num(f, "dlio_loader_start_ns_per_worker", &r->start_ns_per_worker,
	    "the same line's slope, per worker", src);
	num(f, "dlio_loader_restart_ns", &r->restart_ns,
	    "the same loaders' second epoch (the workers resumed): the line's intercept", src);
	num(f, "dlio_loader_restart_ns_per_worker", &r->restart_ns_per_worker,
	    "the same line's slope, per worker", src);
	snprintf(what, sizeof(what), "Python's first full collection in a process forked from one "
		 "holding DLIO's modules (dlio_benchmark.main; %.0f objects tracked), its thread's "
		 "CPU: each DataLoader worker's once, copying and traversing the heap it inherited",
		 r->gc_objects);
	num(f, "dlio_worker_gc_ns", &r->worker_gc_ns, what, src);
	if (r->collate_ns_per_mib.v > 0) {
		num(f, "dlio_collate_ns", &r->collate_ns,
		    "a DataLoader worker's end of a batch, default_collate of the resized images and "
		    "ForkingPickler's copy into shared memory, the thread's CPU per sample of the "
		    "batch besides dlio_collate_ns_per_mib: the line through unet3d's 7 x 2896 x 2896 "
		    "and resnet50's 400 x 387 x 387; the sets' per-sample figures are without it",
		    src);
		num(f, "dlio_collate_ns_per_mib", &r->collate_ns_per_mib,
		    "the same line's slope, per MiB of the batch", src);
	}
	fprintf(f, "  dlio_worker_gc_samples = { %d, \"measured\", \"bench/dlio_worker_split.py in "
		   "DLIO 2.0.0's own run through tierfs (2026-12-03, resnet50's npz shape: 4,000 "
		   "files, batch 400, 8 workers, 1 rank): each worker's first full collection came "
		   "with its sample number %d, one's with number %d; unet3d's 4 workers of 47 samples "
		   "had none. DLIO's and Python's (the collector's counts at the fork, the objects "
		   "a sample leaves), not this machine's\", low = %d, high = %d },\n",
		DLIO_GC_SAMPLES, DLIO_GC_SAMPLES, DLIO_GC_SAMPLES_HIGH, DLIO_GC_SAMPLES,
		DLIO_GC_SAMPLES_HIGH);
	fprintf(f, "  dlio_worker_spread = { %.4f, \"measured\", \"bench/dlio_rank_spread.py "
		   "--workers over DLIO 2.0.0's tierfs traces of bench/dlio_peer.sh's r50-1-ssd "
		   "(resnet50 npz, 1 rank, 8 workers; 9 runs, 2026-12-02/03): the ends of the "
		   "batches of the workers reading side by side from an epoch's start, their "
		   "sample standard deviation over their mean, median (least, most) of 18 epochs. "
		   "DLIO's Python workers on this host's scheduling, not measured here\", "
		   "low = %.4f, high = %.4f },\n",
		DLIO_SPREAD, DLIO_SPREAD_LOW, DLIO_SPREAD_HIGH);
#if defined(__x86_64__) || defined(__i386__)
	/* glibc's memcpy between 8 KiB and the non-temporal threshold: a
	 * forward rep movsb with ERMS (CPUID leaf 7, EBX bit 9), else its
	 * vector copy, which loads the source's last 128 bytes first */
	unsigned ea, eb = 0, ec, ed;
	if (__get_cpuid_count(7, 0, &ea, &eb, &ec, &ed))
		fprintf(f, "  copy_tail_first = { %d, \"measured\", \"CPUID leaf 7 EBX bit 9 (ERMS) "
			   "of tiersim hosts measure, %s: %s\" },\n",
			!(eb & (1u << 9)), stamp,
			eb & (1u << 9) ? "set: glibc's memcpy copies forward (rep movsb)"
				       : "clear: glibc's vector memcpy loads a copy's tail first");
#endif
	fprintf(f, "  vcpus = { %" PRIu64 ", \"measured\", \"sched_getaffinity of tiersim "
		   "hosts measure, %s: %" PRIu64 " CPUs\" },\n}\n",
		r->vcpus, stamp, r->vcpus);
	if (fclose(f) || rename(tmp, r->path)) {
		snprintf(c->err, c->errlen, "%s: %s", r->path, strerror(errno));
		unlink(tmp);
		return -EIO;
	}
	return 0;
}

int ts_dlio_measure(const struct ts_dlio_measure_opts *o, struct ts_dlio_measure_result *r,
		    char *err, size_t errlen)
{
	struct ctx c = { .o = o, .only = -1, .err = err, .errlen = errlen };
	unsigned n = o->repeats ? o->repeats : 3;
	memset(r, 0, sizeof(*r));
	if (o->probe) {
		for (int k = 0; k < NSETS; k++)
			if (!strcmp(o->probe, set_name[k]))
				c.only = k;
		if (c.only < 0) {
			snprintf(err, errlen, "--probe %.64s: not a set (npz-s, npz-l, jpeg, hdf5-s, "
					      "hdf5-l, png-s, png-l)", o->probe);
			return -EINVAL;
		}
		if (o->from) {
			snprintf(err, errlen, "--probe writes no profile: --from has nothing to carry "
					      "into");
			return -EINVAL;
		}
	}
	if (n > MAXROUNDS) {
		snprintf(err, errlen, "--repeats %u: at most %d", n, MAXROUNDS);
		return -EINVAL;
	}
	if (!o->venv || (size_t)snprintf(c.python, sizeof(c.python), "%s/bin/python", o->venv) >=
				sizeof(c.python) ||
	    access(c.python, X_OK)) {
		snprintf(err, errlen, "--venv %.1024s: no bin/python there (a virtual environment "
				      "with dlio_benchmark, as ../shared/peers/dlio/install.sh makes)",
			 o->venv ? o->venv : "(none)");
		return -ENOENT;
	}
	if (ts_data_find("workloads/dlio_measure.py", c.script, sizeof(c.script))) {
		snprintf(err, errlen, "workloads/dlio_measure.py not found; set TIERSIM_DATADIR to "
				      "the folder that holds it");
		return -ENOENT;
	}
	if (o->out)
		snprintf(r->path, sizeof(r->path), "%s", o->out);
	else if (c.only >= 0)
		r->path[0] = 0; /* a probe writes no profile */
	else if (ts_host_this_path(r->path, sizeof(r->path))) {
		snprintf(err, errlen, "no HOME to keep the profile in; give --out FILE");
		return -ENOENT;
	}
	/* the host to carry from, checked before anything is measured: it
	 * must have DLIO's npz line (dlio_sample_ns), which the speed is of */
	struct ts_host_dlio base = { 0 };
	if (o->from) {
		struct ts_host_set *hs = NULL;
		int frc = ts_host_set_load_default(&hs, err, errlen);
		if (!frc)
			frc = ts_host_dlio_costs(hs, o->from, NULL, "npz", TS_HOST_NOMINAL, &base, err,
						 errlen);
		for (int e = 0; !frc && e < 3; e++) {
			struct ts_host_dlio at = { 0 };
			frc = ts_host_dlio_costs(hs, o->from, NULL, "npz", (enum ts_host_end)e, &at,
						 err, errlen);
			c.run_ns[e] = at.run_request_ns;
		}
		ts_host_set_free(hs);
		if (frc)
			return frc;
		if (!(base.sample_ns + base.sample_ns_per_mib > 0)) {
			snprintf(err, errlen, "--from %.200s: that host has no DLIO npz line "
					      "(dlio_sample_ns) to measure a speed against", o->from);
			return -EINVAL;
		}
	}
	cpu_set_t cs;
	r->vcpus = sched_getaffinity(0, sizeof(cs), &cs) ? (uint64_t)sysconf(_SC_NPROCESSORS_ONLN)
							 : (uint64_t)CPU_COUNT(&cs);
	int rc = 0;
	if (o->dir) {
		snprintf(c.top, sizeof(c.top), "%s", o->dir);
		rc = ts_mkdir_p(c.top, 0755, NULL, 0);
	} else {
		const char *w = getenv("TIERSIM_WORKDIR");
		snprintf(c.top, sizeof(c.top), "%s/tiersim-measure-XXXXXX", w && *w ? w : "/tmp");
		rc = ts_mkdir_p(w && *w ? w : "/tmp", 0755, NULL, 0);
		if (!rc && !mkdtemp(c.top))
			rc = -errno;
	}
	if (rc) {
		snprintf(err, errlen, "%s: %s", c.top, strerror(-rc));
		return rc;
	}
	snprintf(c.data, sizeof(c.data), "%s/data", c.top);
	snprintf(c.mnt, sizeof(c.mnt), "%s/mnt", c.top);
	snprintf(c.log, sizeof(c.log), "%s/python.log", c.top);
	struct ts_mounts ms = { 0 };
	struct ts_mount *m = NULL;
	struct round rd[MAXROUNDS];
	memset(rd, 0, sizeof(rd));
	say(&c, "writing the sample files (%s)", c.data);
	rc = ts_mkdir_p(c.data, 0755, NULL, 0);
	if (rc) {
		snprintf(err, errlen, "%.1024s: %s", c.data, strerror(-rc));
		if (!o->dir)
			(void)ts_remove_tree(c.top, 0);
		return rc;
	}
	rc = py(&c, "gen", c.data, c.only, NULL);
	if (!rc && !(rc = ts_mounts_init(&ms, err, errlen)))
	{
		char mo[256];
		snprintf(mo, sizeof(mo), "tier=%.200s,mem=0", o->tier ? o->tier : "nvme-local");
		rc = ts_mount_start(&ms, c.data, c.mnt, mo, &m, err, errlen);
	}
	if (!rc)
		c.daemon = m->pid;
	for (unsigned i = 0; i < n && !rc; i++) {
		say(&c, "round %u of %u", i + 1, n);
		rc = ts_interrupted ? -EINTR : round_run(&c, &rd[i]);
		if (rc == -EINTR)
			snprintf(err, errlen, "interrupted");
		/* what the round measured, per sample: DLIO's workers, and
		 * tiersim's chain of the same requests that comes off them */
		char line[512];
		size_t at = 0;
		for (int k = 0; !rc && k < NSETS && at < sizeof(line); k++)
			if (c.only < 0 || k == c.only)
				at += (size_t)snprintf(line + at, sizeof(line) - at, "%s%s %.0f/%.0f",
						       at ? ", " : "", set_name[k], rd[i].s[k].dlio_ns / 1e3,
					       rd[i].s[k].chain_ns / 1e3);
		if (!rc)
			say(&c, "round %u: per sample, us, DLIO's workers/tiersim's chain: %s", i + 1,
			    line);
	}
	if (m) {
		char sub[512];
		int src = ts_mount_stop(&ms, m, sub, sizeof(sub));
		if (src && !rc) {
			snprintf(err, errlen, "%s", sub);
			rc = src;
		}
	}
	if (ms.tierfs)
		ts_mounts_free(&ms);
	if (!rc && o->from) {
		/* the carried-from host's npz line at the size this measured */
		double mib = rd[0].s[S_NPZ_S].bytes / 1048576.0;
		c.base_ns = base.sample_ns + base.sample_ns_per_mib * mib;
	}
	if (!rc && c.only >= 0) {
		/* a probe: its set's DLIO work per sample, the full measurement's
		 * figure (fit) for that set alone; no profile */
		double own[MAXROUNDS], dl[MAXROUNDS], ch[MAXROUNDS];
		for (unsigned i = 0; i < n; i++) {
			const struct round_set *p = &rd[i].s[c.only];
			own[i] = p->dlio_ns - p->chain_ns;
			dl[i] = p->dlio_ns;
			ch[i] = p->chain_ns;
		}
		r->probe_own = spread(own, n);
		r->probe_dlio = spread(dl, n);
		r->probe_chain = spread(ch, n);
		r->probe_bytes = rd[0].s[c.only].bytes;
	} else if (!rc) {
		fit(rd, n, c.base_ns, rd[0].s[S_NPZ_S].bytes / 1048576.0, r);
		rc = write_profile(&c, rd, n, r);
	}
	if (!o->dir && (!rc || !access(c.log, F_OK)))
		(void)ts_remove_tree(rc ? c.data : c.top, 0); /* a failure keeps its log */
	return rc;
}
