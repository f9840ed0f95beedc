/* convert.c — convert_imageset, for real (see convert.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <lmdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <turbojpeg.h>
#include <unistd.h>

#include "core/clock.h"
#include "scenario/convert.h"
#include "core/files.h"
#include "pipeline/convsteps.h"
#include "pipeline/datum.h"

struct item {
	char *rel;	/* "<class>/<file>" */
	int32_t label;
};

/* Sorted entries of @dir that are directories (@dirs) or files (no dot
 * files). */
static int list_dir(const char *dir, bool dirs, char ***out, size_t *n)
{
	char **v;
	size_t cnt, k = 0;
	int rc = ts_dir_names(AT_FDCWD, dir, TS_DIR_NO_DOT, &v, &cnt);
	if (rc)
		return rc;
	for (size_t i = 0; i < cnt; i++) {
		struct stat st;
		char p[4096];
		snprintf(p, sizeof(p), "%s/%s", dir, v[i]);
		if ((stat(p, &st) == 0 && S_ISDIR(st.st_mode)) == dirs)
			v[k++] = v[i];
		else
			free(v[i]);
	}
	*out = v;
	*n = k;
	return 0;
}

static int collect(const char *in, struct item **items, size_t *nitems, char *err, size_t errlen)
{
	char **classes;
	size_t nc;
	int rc = list_dir(in, true, &classes, &nc);
	if (rc) {
		snprintf(err, errlen, "preprocess: cannot list %s: %s", in, ts_strerror(rc));
		return rc;
	}
	struct item *v = NULL;
	size_t n = 0, cap = 0;
	for (size_t c = 0; c < nc && !rc; c++) {
		char sub[4096];
		snprintf(sub, sizeof(sub), "%s/%s", in, classes[c]);
		char **files;
		size_t nf;
		if ((rc = list_dir(sub, false, &files, &nf))) {
			snprintf(err, errlen, "preprocess: cannot list %s: %s", sub, ts_strerror(rc));
			break;
		}
		for (size_t f = 0; f < nf && !rc; f++) {
			if (n == cap) {
				cap = cap ? cap * 2 : 1024;
				struct item *nv = realloc(v, cap * sizeof(*v));
				if (!nv) {
					rc = -ENOMEM;
					break;
				}
				v = nv;
			}
			if (asprintf(&v[n].rel, "%s/%s", classes[c], files[f]) < 0) {
				rc = -ENOMEM;
				break;
			}
			v[n++].label = (int32_t)c;
		}
		ts_dir_names_free(files, nf);
	}
	ts_dir_names_free(classes, nc);
	if (!rc && !n) {
		snprintf(err, errlen, "preprocess: %s holds no <class>/<image> files", in);
		rc = -ENOENT;
	}
	if (rc) {
		for (size_t i = 0; i < n; i++)
			free(v[i].rel);
		free(v);
		return rc;
	}
	*items = v;
	*nitems = n;
	return 0;
}

/* Bilinear resize of packed RGB, pixel centres aligned (OpenCV's
 * INTER_LINEAR, which convert_imageset's cv::resize uses). */
static void resize_rgb(const uint8_t *src, int sw, int sh, uint8_t *dst, int dw, int dh)
{
	double sx = (double)sw / dw, sy = (double)sh / dh;
	for (int y = 0; y < dh; y++) {
		double fy = (y + 0.5) * sy - 0.5;
		int y0 = fy < 0 ? 0 : (int)fy;
		int y1 = y0 + 1 < sh ? y0 + 1 : sh - 1;
		double wy = fy < 0 ? 0 : fy - y0;
		for (int x = 0; x < dw; x++) {
			double fx = (x + 0.5) * sx - 0.5;
			int x0 = fx < 0 ? 0 : (int)fx;
			int x1 = x0 + 1 < sw ? x0 + 1 : sw - 1;
			double wx = fx < 0 ? 0 : fx - x0;
			const uint8_t *a = src + ((size_t)y0 * sw + x0) * 3;
			const uint8_t *b = src + ((size_t)y0 * sw + x1) * 3;
			const uint8_t *c = src + ((size_t)y1 * sw + x0) * 3;
			const uint8_t *d = src + ((size_t)y1 * sw + x1) * 3;
			uint8_t *o = dst + ((size_t)y * dw + x) * 3;
			for (int k = 0; k < 3; k++) {
				double top = a[k] + (b[k] - a[k]) * wx;
				double bot = c[k] + (d[k] - c[k]) * wx;
				o[k] = (uint8_t)(top + (bot - top) * wy + 0.5);
			}
		}
	}
}

/* Reads a whole file; *buf grows as needed. */
static int slurp(const char *path, uint8_t **buf, size_t *cap, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	struct stat st;
	if (fstat(fd, &st)) {
		int e = errno;
		close(fd);
		return -e;
	}
	size_t want = (size_t)st.st_size;
	if (want > *cap) {
		uint8_t *nb = realloc(*buf, want);
		if (!nb) {
			close(fd);
			return -ENOMEM;
		}
		*buf = nb;
		*cap = want;
	}
	size_t got = 0;
	while (got < want) {
		ssize_t r = read(fd, *buf + got, want - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			int e = r < 0 ? errno : EIO;
			close(fd);
			return -e;
		}
		got += (size_t)r;
	}
	close(fd);
	*len = got;
	return 0;
}

/* LMDB answers a short write (a full disk) with EIO and no errno: where
 * the output's file system has no room left, that is said. */
static int mdb_err(int rc, const char *what, const char *out, char *err, size_t errlen)
{
	struct statvfs v;
	if (rc == EIO && statvfs(out, &v) == 0 &&
	    (uint64_t)v.f_bavail * v.f_frsize < ((uint64_t)1 << 20)) {
		snprintf(err, errlen, "preprocess: LMDB %s in %s: %s", what, out,
			 strerror(ENOSPC));
		return -ENOSPC;
	}
	snprintf(err, errlen, "preprocess: LMDB %s in %s: %s", what, out, mdb_strerror(rc));
	return rc > 0 ? -rc : TS_E_CORRUPT;
}

/* One conversion's state: what the steps act on. */
struct conv {
	const char *in, *out;
	const struct ts_convert_cfg *cfg;
	struct ts_convert_stats *st;
	char *err;
	size_t errlen;
	struct item *items;
	size_t n;
	int side;
	uint8_t *rs, *chw, *file, *rgb, *val;
	size_t file_cap, rgb_cap, val_cap, len;
	tjhandle dec, enc;
	MDB_env *env;
	MDB_txn *txn;
	MDB_dbi dbi;
	char path[4096];
	int w, h; /* of the image last decoded */
};

static int conv_open(struct conv *c)
{
	size_t px = (size_t)c->side * c->side * 3;
	c->rs = malloc(px);
	c->chw = malloc(px);
	c->dec = tjInitDecompress();
	c->enc = c->cfg->encoded ? tjInitCompress() : NULL;
	if (!c->rs || !c->chw || !c->dec || (c->cfg->encoded && !c->enc))
		return -ENOMEM;
	if (mkdir(c->out, 0755) && errno != EEXIST) {
		int rc = -errno;
		snprintf(c->err, c->errlen, "preprocess: cannot create %s: %s", c->out,
			 strerror(errno));
		return rc;
	}
	int rc = mdb_env_create(&c->env);
	if (rc) {
		c->env = NULL;
		return mdb_err(rc, "env_create", c->out, c->err, c->errlen);
	}
	/* Room for every image with generous page overhead. */
	size_t mapsize = c->n * (px + 4096) * 2 + ((size_t)1 << 26);
	if ((rc = mdb_env_set_mapsize(c->env, mapsize)) || (rc = mdb_env_open(c->env, c->out, 0, 0664)))
		return mdb_err(rc, "open", c->out, c->err, c->errlen);
	return 0;
}

static int conv_read(struct conv *c, uint64_t img)
{
	snprintf(c->path, sizeof(c->path), "%s/%s", c->in, c->items[img].rel);
	uint64_t a = ts_now_ns();
	int rc = slurp(c->path, &c->file, &c->file_cap, &c->len);
	c->st->io_ns += ts_now_ns() - a;
	if (rc) {
		snprintf(c->err, c->errlen, "preprocess: cannot read %s: %s", c->path,
			 ts_strerror(rc));
		return rc;
	}
	c->st->bytes_in += c->len;
	return 0;
}

/* Decode, and resize to the square side (into c->rs). */
static int conv_decode(struct conv *c)
{
	int w, h, sub, cs;
	if (tjDecompressHeader3(c->dec, c->file, (unsigned long)c->len, &w, &h, &sub, &cs)) {
		snprintf(c->err, c->errlen, "preprocess: %s: %s", c->path, tjGetErrorStr2(c->dec));
		return TS_E_CORRUPT;
	}
	size_t need = (size_t)w * h * 3;
	if (need > c->rgb_cap) {
		uint8_t *nb = realloc(c->rgb, need);
		if (!nb)
			return -ENOMEM;
		c->rgb = nb;
		c->rgb_cap = need;
	}
	if (tjDecompress2(c->dec, c->file, (unsigned long)c->len, c->rgb, w, 0, h, TJPF_RGB, 0)) {
		snprintf(c->err, c->errlen, "preprocess: %s: %s", c->path, tjGetErrorStr2(c->dec));
		return TS_E_CORRUPT;
	}
	resize_rgb(c->rgb, w, h, c->rs, c->side, c->side);
	c->w = w;
	c->h = h;
	return 0;
}

/* The Datum of the resized image, put as entry @key. */
static int conv_put(struct conv *c, uint64_t img, uint64_t key)
{
	int rc;
	if (!c->txn && ((rc = mdb_txn_begin(c->env, NULL, 0, &c->txn)) ||
			(rc = mdb_dbi_open(c->txn, NULL, 0, &c->dbi))))
		return mdb_err(rc, "txn_begin", c->out, c->err, c->errlen);
	const struct item *it = &c->items[img];
	struct ts_datum d;
	unsigned char *jpg = NULL;
	unsigned long jlen = 0;
	if (c->cfg->encoded) {
		/* cv::imencode(".jpg") at OpenCV's default quality, 95. */
		if (tjCompress2(c->enc, c->rs, c->side, 0, c->side, TJPF_RGB, &jpg, &jlen,
				TJSAMP_420, 95, 0)) {
			snprintf(c->err, c->errlen, "preprocess: encode %s: %s", c->path,
				 tjGetErrorStr2(c->enc));
			return TS_E_CORRUPT;
		}
		ts_datum_init_encoded(&d, jpg, jlen, it->label);
	} else {
		ts_datum_rgb_to_chw_bgr(c->rs, c->side, c->side, c->chw);
		ts_datum_init_raw(&d, 3, c->side, c->side, c->chw, it->label);
	}
	size_t vl = ts_datum_encoded_size(&d);
	if (vl > c->val_cap) {
		uint8_t *nb = realloc(c->val, vl);
		if (!nb) {
			tjFree(jpg);
			return -ENOMEM;
		}
		c->val = nb;
		c->val_cap = vl;
	}
	ssize_t wl = ts_datum_encode(&d, c->val, c->val_cap);
	tjFree(jpg);
	if (wl < 0)
		return (int)wl;
	char k[4200];
	int kl = snprintf(k, sizeof(k), "%08" PRIu64 "_%s", key, it->rel);
	MDB_val mk = { .mv_size = (size_t)kl, .mv_data = k };
	MDB_val mv = { .mv_size = (size_t)wl, .mv_data = c->val };
	if ((rc = mdb_put(c->txn, c->dbi, &mk, &mv, 0)))
		return mdb_err(rc, "put", c->out, c->err, c->errlen);
	c->st->bytes_out += (uint64_t)wl;
	c->st->images++;
	return 0;
}

static int conv_commit(struct conv *c)
{
	uint64_t a = ts_now_ns();
	int rc = c->txn ? mdb_txn_commit(c->txn) : 0;
	c->txn = NULL;
	c->st->io_ns += ts_now_ns() - a;
	return rc ? mdb_err(rc, "commit", c->out, c->err, c->errlen) : 0;
}

static void conv_close(struct conv *c)
{
	if (c->txn)
		mdb_txn_abort(c->txn);
	if (c->env)
		mdb_env_close(c->env);
	if (c->dec)
		tjDestroy(c->dec);
	if (c->enc)
		tjDestroy(c->enc);
	for (size_t i = 0; i < c->n; i++)
		free(c->items[i].rel);
	free(c->items);
	free(c->rs);
	free(c->chw);
	free(c->file);
	free(c->rgb);
	free(c->val);
}

int ts_convert_imageset(const char *in, const char *out, const struct ts_convert_cfg *cfg,
			struct ts_convert_stats *st, char *err, size_t errlen)
{
	memset(st, 0, sizeof(*st));
	struct conv c = { .in = in, .out = out, .cfg = cfg, .st = st, .err = err,
			  .errlen = errlen, .side = (int)cfg->resize };
	int rc = collect(in, &c.items, &c.n, err, errlen);
	if (rc)
		return rc;
	uint64_t t0 = ts_now_ns();
	/* The order and the commits are the steps' (pipeline/convsteps.h),
	 * the same in virtual time. */
	struct ts_convsteps steps;
	if ((rc = ts_convsteps_init(&steps, c.n, cfg->seed, cfg->txn)) || (rc = conv_open(&c)))
		goto out;
	struct ts_conv_step s;
	while (!rc && ts_convsteps_next(&steps, &s) != TS_CONV_END) {
		if (cfg->stop && *cfg->stop) {
			rc = -EINTR;
			break;
		}
		uint64_t a = ts_now_ns();
		switch (s.act) {
		case TS_CONV_READ: rc = conv_read(&c, s.img); break;
		case TS_CONV_DECODE: rc = conv_decode(&c); break;
		case TS_CONV_PUT: rc = conv_put(&c, s.img, s.key); break;
		case TS_CONV_COMMIT: rc = conv_commit(&c); break;
		case TS_CONV_END: break;
		}
		/* Emulating a host profile's CPU: the step lasts what it costs there. */
		uint64_t cost = !cfg->cpu || rc		? 0
				: s.act == TS_CONV_DECODE ? ts_decode_cal_ns(cfg->cpu, c.w, c.h)
				: s.act == TS_CONV_PUT	  ? (uint64_t)cfg->cpu->put_ns
							  : 0;
		if (cost)
			ts_sleep_until_ns(a + cost);
		if (!rc && s.act == TS_CONV_PUT && cfg->progress) {
			double el = (double)(ts_now_ns() - t0) / 1e9;
			cfg->progress(cfg->progress_ctx, cfg->label, s.key + 1, c.n,
				      el > 0 ? (double)(s.key + 1) / el : 0, el);
		}
	}
out:
	ts_convsteps_free(&steps);
	conv_close(&c);
	st->wall_ns = ts_now_ns() - t0;
	return rc;
}
