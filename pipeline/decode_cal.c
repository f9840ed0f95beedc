/*
 * decode_cal.c — the decode calibration: what decoding and transforming one
 * image costs a core of this machine, measured in thread CPU time (so other
 * load on a shared host does not inflate it), fitted as base + per-megapixel,
 * and kept in a small JSON file that modeled mode charges from.
 */
#include <errno.h>
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/files.h"
#include "pipeline/dataset.h"
#include "pipeline/decode.h"
#include "pipeline/host.h"
#include "pipeline/loader.h"
#include "pipeline/source.h"

/* valgrind's own answer where its header is there at build time; the
 * memory map's libraries otherwise (and for the other tools). */
#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#define TS_HAVE_VALGRIND_H 1
#endif
#endif

void ts_cpu_model(char *buf, size_t n)
{
	buf[0] = 0;
	FILE *f = fopen("/proc/cpuinfo", "r");
	if (!f)
		return;
	char line[512];
	while (fgets(line, sizeof line, f)) {
		if (!strncmp(line, "model name", 10)) {
			char *p = strchr(line, ':');
			if (p) {
				p += 1 + (p[1] == ' ');
				p[strcspn(p, "\n")] = 0;
				snprintf(buf, n, "%s", p);
			}
			break;
		}
	}
	fclose(f);
}

/* Libraries an instrumenting tool maps into the process it runs, by a part
 * of their file name: valgrind's core and every tool's preload
 * (vgpreload_core-amd64-linux.so, vgpreload_memcheck-...), DynamoRIO's
 * core. */
static const struct {
	const char *lib, *tool;
} tool_libs[] = {
	{ "vgpreload_", "valgrind" },
	{ "libdynamorio", "DynamoRIO" },
};

int ts_decode_cal_tool(const char *maps, char *name, size_t n)
{
#ifdef TS_HAVE_VALGRIND_H
	if (!maps && RUNNING_ON_VALGRIND) {
		snprintf(name, n, "valgrind");
		return 1;
	}
#endif
	FILE *f = fopen(maps ? maps : "/proc/self/maps", "r");
	if (!f)
		return 0;
	char line[4096];
	int found = 0;
	while (!found && fgets(line, sizeof line, f)) {
		const char *file = strrchr(line, '/');
		for (size_t i = 0; file && !found && i < sizeof tool_libs / sizeof *tool_libs; i++) {
			if (strstr(file, tool_libs[i].lib)) {
				snprintf(name, n, "%s", tool_libs[i].tool);
				found = 1;
			}
		}
	}
	fclose(f);
	return found;
}

/* A calibration measured under an instrumenting tool, kept for this process
 * in place of its file (ts_decode_cal_save). */
static pthread_mutex_t held_mu = PTHREAD_MUTEX_INITIALIZER;
static char held_path[4096];
static struct ts_decode_cal held;

static bool held_get(const char *path, struct ts_decode_cal *c)
{
	pthread_mutex_lock(&held_mu);
	bool ok = held_path[0] && !strcmp(held_path, path);
	if (ok)
		*c = held;
	pthread_mutex_unlock(&held_mu);
	return ok;
}

int ts_decode_cal_load(const char *path, struct ts_decode_cal *c, char *err, size_t errlen)
{
	json_error_t je;
	json_t *j = json_load_file(path, 0, &je);
	if (!j) {
		struct stat sb;
		if (stat(path, &sb)) {
			if (held_get(path, c))
				return 0;
			snprintf(err, errlen,
				 "%s: no decode calibration; run 'tiersim calibrate decode' first",
				 path);
			return -ENOENT;
		}
		snprintf(err, errlen, "%s:%d: %s", path, je.line, je.text);
		return TS_E_PARSE;
	}
	memset(c, 0, sizeof *c);
	const char *cpu = "";
	json_int_t images = 0, when = 0;
	int rc = json_unpack_ex(j, &je, 0, "{s:F, s:F, s:F, s:F, s:I, s?s, s?I, s?F}", "base_ns",
				&c->base_ns, "ns_per_mpix", &c->ns_per_mpix, "decode_ips",
				&c->decode_ips, "full_ips", &c->full_ips, "images", &images,
				"cpu", &cpu, "when", &when, "xform_ns", &c->xform_ns);
	if (rc || c->base_ns < 0 || images <= 0) {
		snprintf(err, errlen, "%s: not a decode calibration (%s); rerun 'tiersim calibrate decode'",
			 path, rc ? je.text : "bad values");
		json_decref(j);
		return TS_E_PARSE;
	}
	c->images = (uint64_t)images;
	c->when = (uint64_t)when;
	snprintf(c->cpu, sizeof c->cpu, "%s", cpu);
	json_decref(j);
	return 0;
}

int ts_decode_cal_save(const char *path, const struct ts_decode_cal *c, char *err, size_t errlen)
{
	if (c->tool[0]) {
		pthread_mutex_lock(&held_mu);
		snprintf(held_path, sizeof held_path, "%s", path);
		held = *c;
		pthread_mutex_unlock(&held_mu);
		fprintf(stderr,
			"tiersim: the decode calibration was measured under %s (%.0f images/s a "
			"core), which slows decode: used for this run only, not saved to %s; run once "
			"without %s to save one\n",
			c->tool, c->full_ips, path, c->tool);
		return 0;
	}
	/* Make the folder (one level of ~/.cache/tiersim is enough). */
	char dir[4096];
	snprintf(dir, sizeof dir, "%s", path);
	char *slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = 0;
		char *up = strrchr(dir, '/');
		if (up && up != dir) {
			*up = 0;
			mkdir(dir, 0755);
			*up = '/';
		}
		mkdir(dir, 0755);
	}
	json_t *j = json_pack("{s:s, s:f, s:f, s:f, s:f, s:f, s:I, s:s, s:I, s:s}", "what",
			      "tiersim decode calibration: ns per image = base_ns + "
			      "ns_per_mpix * megapixels (decode + resize + crop + flip + normalize, "
			      "one core)",
			      "base_ns", c->base_ns, "ns_per_mpix", c->ns_per_mpix, "decode_ips",
			      c->decode_ips, "full_ips", c->full_ips, "xform_ns", c->xform_ns, "images",
			      (json_int_t)c->images, "cpu", c->cpu, "when", (json_int_t)c->when,
			      "version", "1");
	if (!j)
		return -ENOMEM;
	char tmp[4200];
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	int rc = json_dump_file(j, tmp, JSON_INDENT(2));
	json_decref(j);
	if (rc || rename(tmp, path)) {
		rc = -errno;
		snprintf(err, errlen, "%s: cannot write the calibration: %s", path,
			 ts_strerror(rc ? rc : -EIO));
		unlink(tmp);
		return rc ? rc : -EIO;
	}
	return 0;
}

static uint64_t cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

int ts_decode_calibrate(const uint8_t *const *jpeg, const size_t *len, size_t n, unsigned out,
			unsigned resize, uint64_t min_ns, struct ts_decode_cal *cal,
			struct ts_decode_cal_detail *det, char *err, size_t errlen)
{
	struct ts_decoder *d;
	float *buf = malloc((size_t)out * out * 3 * sizeof *buf);
	int rc = buf ? ts_decoder_new(out, resize, true, &d) : -ENOMEM;
	if (rc) {
		free(buf);
		snprintf(err, errlen, "cannot start libjpeg-turbo: %s", ts_strerror(rc));
		return rc;
	}
	struct ts_rng rng;
	ts_rng_seed(&rng, 1);
	/* Least squares of full-transform ns on megapixels. */
	double sx = 0, sy = 0, sxx = 0, sxy = 0, dec_ns = 0, full_ns = 0, pix = 0, bytes = 0;
	double xf_ns = 0;
	uint64_t images = 0, spent = 0;
	do {
		for (size_t i = 0; i < n; i++) {
			int w, h;
			uint64_t t0 = cpu_ns();
			rc = ts_decode_rgb(d, jpeg[i], len[i], &w, &h);
			uint64_t t1 = cpu_ns();
			if (!rc)
				rc = ts_decode_jpeg(d, jpeg[i], len[i], &rng, buf);
			uint64_t t2 = cpu_ns();
			if (!rc)
				ts_decode_pixels(d, ts_decoder_rgb(d), w, h, false, &rng, buf);
			uint64_t t3 = cpu_ns();
			if (rc) {
				snprintf(err, errlen, "image %zu: %s", i, ts_decoder_msg(d));
				goto out;
			}
			double x = (double)w * h / 1e6, y = (double)(t2 - t1);
			sx += x;
			sy += y;
			sxx += x * x;
			sxy += x * y;
			dec_ns += (double)(t1 - t0);
			xf_ns += (double)(t3 - t2);
			full_ns += y;
			pix += x;
			bytes += (double)len[i];
			images++;
			spent += t3 - t0;
		}
	} while (spent < min_ns);
	double k = (double)images, var = sxx - sx * sx / k;
	double slope = var > 1e-12 * k ? (sxy - sx * sy / k) / var : 0;
	if (slope < 0)
		slope = 0;
	memset(cal, 0, sizeof *cal);
	cal->ns_per_mpix = slope;
	cal->base_ns = (sy - slope * sx) / k;
	if (cal->base_ns < 0) {
		/* Keep the mean exact when the line would cross zero. */
		cal->base_ns = 0;
		cal->ns_per_mpix = sy / sx;
	}
	cal->decode_ips = 1e9 * k / dec_ns;
	cal->full_ips = 1e9 * k / full_ns;
	cal->xform_ns = xf_ns / k;
	cal->images = images;
	ts_cpu_model(cal->cpu, sizeof cal->cpu);
	cal->when = (uint64_t)time(NULL);
	ts_decode_cal_tool(NULL, cal->tool, sizeof cal->tool);
	if (det) {
		det->distinct = n;
		det->mean_mpix = pix / k;
		det->mean_bytes = bytes / k;
		det->cpu_s = (double)spent / 1e9;
	}
out:
	free(buf);
	ts_decoder_free(d);
	return rc;
}

int ts_decode_load_dir(const char *dir, size_t want, uint8_t ***jpeg, size_t **len, size_t *n,
		       char *err, size_t errlen)
{
	struct ts_pipe_cfg cfg = { .path = (char *)dir };
	void *st;
	int rc = ts_source_folder.open(&ts_source_folder, &cfg, &st, err, errlen);
	if (rc)
		return rc;
	uint64_t all = ts_source_folder.count(st);
	size_t k = want && want < all ? want : (size_t)all;
	uint8_t **v = calloc(k, sizeof *v);
	size_t *l = calloc(k, sizeof *l);
	if (!v || !l) {
		rc = -ENOMEM;
		goto fail;
	}
	/* Spread the picks over the whole set (every class, every size). */
	for (size_t i = 0; i < k; i++) {
		uint64_t idx = (uint64_t)i * all / k;
		struct ts_extent x;
		char name[4096];
		ts_source_folder.describe(st, idx, name, sizeof name);
		if ((rc = ts_source_folder.extent(st, idx, &x))) {
			snprintf(err, errlen, "%s: %s", name, ts_strerror(rc));
			goto fail;
		}
		FILE *f = fopen(name, "rb");
		if (!f || !(v[i] = malloc(x.len ? x.len : 1)) || fread(v[i], 1, x.len, f) != x.len) {
			rc = f ? -EIO : -errno;
			snprintf(err, errlen, "%s: cannot read: %s", name, ts_strerror(rc));
			if (f)
				fclose(f);
			goto fail;
		}
		fclose(f);
		l[i] = x.len;
	}
	ts_source_folder.close(st);
	*jpeg = v;
	*len = l;
	*n = k;
	return 0;
fail:
	for (size_t i = 0; v && i < k; i++)
		free(v[i]);
	free(v);
	free(l);
	ts_source_folder.close(st);
	return rc;
}

/* ---- which decode cost a run charges: the one owner of that choice ---- */

int ts_pipe_default_calibration(char *buf, size_t n)
{
	const char *x = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	int w;
	if (x && *x)
		w = snprintf(buf, n, "%s/tiersim/decode.json", x);
	else if (home && *home)
		w = snprintf(buf, n, "%s/.cache/tiersim/decode.json", home);
	else
		return -ENOENT;
	return w < 0 || (size_t)w >= n ? -ENAMETOOLONG : 0;
}

int ts_pipe_cal_load(const char *calibration, const char *host, enum ts_host_end end,
		     struct ts_decode_cal *cal, char *path, size_t pathlen, char *err, size_t errlen)
{
	if (pathlen)
		path[0] = 0;
	if (ts_host_is_profile(host))
		return ts_host_resolve_at(host, end, cal, err, errlen);
	char p[4096];
	if (calibration && *calibration)
		snprintf(p, sizeof p, "%s", calibration);
	else if (ts_pipe_default_calibration(p, sizeof p)) {
		snprintf(err, errlen, "option 'calibration': no HOME to find decode.json; set it "
				      "(or run 'tiersim calibrate decode --out FILE')");
		return -ENOENT;
	}
	char sub[512];
	int rc = ts_decode_cal_load(p, cal, sub, sizeof sub);
	if (rc) {
		snprintf(err, errlen, "%s (or set decode=none)", sub);
		return rc;
	}
	if (pathlen)
		snprintf(path, pathlen, "%s", p);
	return 0;
}

int ts_decode_calibrate_set(const char *dir, uint64_t count, unsigned out, unsigned resize,
			    uint64_t seconds, struct ts_decode_cal *cal,
			    struct ts_decode_cal_detail *det, char *err, size_t errlen)
{
	char made[4096] = "", from[4200], sub[1024];
	int rc;
	if (!dir) {
		/* COUNT ImageNet-like JPEGs, made as 'tiersim dataset make
		 * imagenet-jpeg' makes them, in a new folder under $TMPDIR */
		struct ts_dataset_config dc = { 0 };
		struct ts_dataset_stats st;
		const char *tmp = getenv("TMPDIR");
		snprintf(made, sizeof(made), "%s/tiersim-calibrate-XXXXXX", tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(made)) {
			rc = -errno;
			snprintf(err, errlen, "%s: cannot make a temporary folder: %s (set TMPDIR, or "
					      "give --dir)", made, ts_strerror(rc));
			return rc;
		}
		rc = ts_opt_defaults(ts_dataset_opts(), &dc, sub, sizeof(sub));
		dc.count = count;
		if (!rc)
			rc = ts_dataset_make(TS_DS_IMAGENET_JPEG, &dc, made, &st, sub, sizeof(sub));
		ts_opt_free(ts_dataset_opts(), &dc);
		if (rc) {
			snprintf(err, errlen, "making %llu test images: %s", (unsigned long long)count,
				 sub);
			ts_remove_tree(made, 0); /* best effort: a temporary folder */
			return rc;
		}
	}
	snprintf(from, sizeof(from), "%s%s", dir ? dir : made, dir ? "" : "/train");
	uint8_t **jpeg;
	size_t *len, n;
	rc = ts_decode_load_dir(from, count, &jpeg, &len, &n, err, errlen);
	if (made[0])
		ts_remove_tree(made, 0);
	if (rc)
		return rc;
	rc = ts_decode_calibrate((const uint8_t *const *)jpeg, len, n, out, resize, seconds, cal,
				 det, sub, sizeof(sub));
	for (size_t i = 0; i < n; i++)
		free(jpeg[i]);
	free(jpeg);
	free(len);
	if (rc)
		snprintf(err, errlen, "%s: %s", from, sub);
	return rc;
}
