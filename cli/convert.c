/* convert.c — convert_imageset, for real (see convert.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <lmdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <turbojpeg.h>
#include <unistd.h>

#include "clock.h"
#include "convert.h"
#include "pipeline/datum.h"
#include "rng.h"

struct item {
	char *rel;	/* "<class>/<file>" */
	int32_t label;
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted entries of @dir that are directories (@dirs) or files. */
static int list_dir(const char *dir, bool dirs, char ***out, size_t *n)
{
	DIR *d = opendir(dir);
	if (!d)
		return -errno;
	char **v = NULL;
	size_t cnt = 0, cap = 0;
	struct dirent *e;
	int rc = 0;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		bool is_dir = e->d_type == DT_DIR;
		if (e->d_type == DT_UNKNOWN || e->d_type == DT_LNK) {
			struct stat st;
			char p[4096];
			snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
			is_dir = stat(p, &st) == 0 && S_ISDIR(st.st_mode);
		}
		if (is_dir != dirs)
			continue;
		if (cnt == cap) {
			cap = cap ? cap * 2 : 64;
			char **nv = realloc(v, cap * sizeof(*v));
			if (!nv) {
				rc = -ENOMEM;
				break;
			}
			v = nv;
		}
		if (!(v[cnt] = strdup(e->d_name))) {
			rc = -ENOMEM;
			break;
		}
		cnt++;
	}
	closedir(d);
	if (rc) {
		while (cnt)
			free(v[--cnt]);
		free(v);
		return rc;
	}
	qsort(v, cnt, sizeof(*v), cmp_str);
	*out = v;
	*n = cnt;
	return 0;
}

static void free_list(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
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
		free_list(files, nf);
	}
	free_list(classes, nc);
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

static int mdb_err(int rc, const char *what, const char *out, char *err, size_t errlen)
{
	snprintf(err, errlen, "preprocess: LMDB %s in %s: %s", what, out, mdb_strerror(rc));
	return rc > 0 ? -rc : TS_E_CORRUPT;
}

int ts_convert_imageset(const char *in, const char *out, const struct ts_convert_cfg *cfg,
			struct ts_convert_stats *st, char *err, size_t errlen)
{
	memset(st, 0, sizeof(*st));
	struct item *items;
	size_t n;
	int rc = collect(in, &items, &n, err, errlen);
	if (rc)
		return rc;
	/* convert_imageset --shuffle (create_imagenet.sh passes it). */
	uint32_t *order = malloc(n * sizeof(*order));
	const int side = (int)cfg->resize;
	size_t px = (size_t)side * side * 3;
	uint8_t *rs = malloc(px), *chw = malloc(px), *file = NULL, *rgb = NULL, *val = NULL;
	size_t file_cap = 0, rgb_cap = 0, val_cap = 0;
	tjhandle dec = tjInitDecompress(), enc = cfg->encoded ? tjInitCompress() : NULL;
	MDB_env *env = NULL;
	MDB_txn *txn = NULL;
	MDB_dbi dbi;
	uint64_t t0 = ts_now_ns();
	if (!order || !rs || !chw || !dec || (cfg->encoded && !enc)) {
		rc = -ENOMEM;
		goto out;
	}
	struct ts_rng rng;
	ts_rng_seed(&rng, cfg->seed);
	for (size_t i = 0; i < n; i++)
		order[i] = (uint32_t)i;
	ts_rng_shuffle_u32(&rng, order, n);

	if (mkdir(out, 0755) && errno != EEXIST) {
		rc = -errno;
		snprintf(err, errlen, "preprocess: cannot create %s: %s", out, strerror(errno));
		goto out;
	}
	if ((rc = mdb_env_create(&env))) {
		rc = mdb_err(rc, "env_create", out, err, errlen);
		env = NULL;
		goto out;
	}
	/* Room for every image with generous page overhead. */
	size_t mapsize = (size_t)n * (px + 4096) * 2 + ((size_t)1 << 26);
	if ((rc = mdb_env_set_mapsize(env, mapsize)) || (rc = mdb_env_open(env, out, 0, 0664))) {
		rc = mdb_err(rc, "open", out, err, errlen);
		goto out;
	}
	uint64_t since = 0;
	for (size_t k = 0; k < n; k++) {
		if (cfg->stop && *cfg->stop) {
			rc = -EINTR;
			goto out;
		}
		const struct item *it = &items[order[k]];
		if (!txn) {
			if ((rc = mdb_txn_begin(env, NULL, 0, &txn)) ||
			    (rc = mdb_dbi_open(txn, NULL, 0, &dbi))) {
				rc = mdb_err(rc, "txn_begin", out, err, errlen);
				goto out;
			}
		}
		char path[4096];
		snprintf(path, sizeof(path), "%s/%s", in, it->rel);
		size_t len = 0;
		uint64_t a = ts_now_ns();
		rc = slurp(path, &file, &file_cap, &len);
		st->io_ns += ts_now_ns() - a;
		if (rc) {
			snprintf(err, errlen, "preprocess: cannot read %s: %s", path, ts_strerror(rc));
			goto out;
		}
		st->bytes_in += len;
		int w, h, sub, cs;
		if (tjDecompressHeader3(dec, file, (unsigned long)len, &w, &h, &sub, &cs)) {
			snprintf(err, errlen, "preprocess: %s: %s", path, tjGetErrorStr2(dec));
			rc = TS_E_CORRUPT;
			goto out;
		}
		size_t need = (size_t)w * h * 3;
		if (need > rgb_cap) {
			uint8_t *nb = realloc(rgb, need);
			if (!nb) {
				rc = -ENOMEM;
				goto out;
			}
			rgb = nb;
			rgb_cap = need;
		}
		if (tjDecompress2(dec, file, (unsigned long)len, rgb, w, 0, h, TJPF_RGB, 0)) {
			snprintf(err, errlen, "preprocess: %s: %s", path, tjGetErrorStr2(dec));
			rc = TS_E_CORRUPT;
			goto out;
		}
		resize_rgb(rgb, w, h, rs, side, side);
		struct ts_datum d;
		unsigned char *jpg = NULL;
		unsigned long jlen = 0;
		if (cfg->encoded) {
			/* cv::imencode(".jpg") at OpenCV's default quality, 95. */
			if (tjCompress2(enc, rs, side, 0, side, TJPF_RGB, &jpg, &jlen, TJSAMP_420, 95,
					0)) {
				snprintf(err, errlen, "preprocess: encode %s: %s", path,
					 tjGetErrorStr2(enc));
				rc = TS_E_CORRUPT;
				goto out;
			}
			ts_datum_init_encoded(&d, jpg, jlen, it->label);
		} else {
			ts_datum_rgb_to_chw_bgr(rs, side, side, chw);
			ts_datum_init_raw(&d, 3, side, side, chw, it->label);
		}
		size_t vl = ts_datum_encoded_size(&d);
		if (vl > val_cap) {
			uint8_t *nb = realloc(val, vl);
			if (!nb) {
				tjFree(jpg);
				rc = -ENOMEM;
				goto out;
			}
			val = nb;
			val_cap = vl;
		}
		ssize_t wl = ts_datum_encode(&d, val, val_cap);
		tjFree(jpg);
		if (wl < 0) {
			rc = (int)wl;
			goto out;
		}
		char key[4200];
		int kl = snprintf(key, sizeof(key), "%08zu_%s", k, it->rel);
		MDB_val mk = { .mv_size = (size_t)kl, .mv_data = key };
		MDB_val mv = { .mv_size = (size_t)wl, .mv_data = val };
		if ((rc = mdb_put(txn, dbi, &mk, &mv, 0))) {
			rc = mdb_err(rc, "put", out, err, errlen);
			goto out;
		}
		st->bytes_out += (uint64_t)wl;
		st->images++;
		if (++since == cfg->txn || k + 1 == n) {
			a = ts_now_ns();
			rc = mdb_txn_commit(txn);
			txn = NULL;
			st->io_ns += ts_now_ns() - a;
			if (rc) {
				rc = mdb_err(rc, "commit", out, err, errlen);
				goto out;
			}
			since = 0;
		}
		if (cfg->progress) {
			double el = (double)(ts_now_ns() - t0) / 1e9;
			cfg->progress(cfg->progress_ctx, cfg->label, k + 1, n,
				      el > 0 ? (double)(k + 1) / el : 0, el);
		}
	}
	rc = 0;
out:
	if (txn)
		mdb_txn_abort(txn);
	if (env)
		mdb_env_close(env);
	st->wall_ns = ts_now_ns() - t0;
	if (dec)
		tjDestroy(dec);
	if (enc)
		tjDestroy(enc);
	for (size_t i = 0; i < n; i++)
		free(items[i].rel);
	free(items);
	free(order);
	free(rs);
	free(chw);
	free(file);
	free(rgb);
	free(val);
	return rc;
}
