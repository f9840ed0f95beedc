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

/* One conversion's state: the decoders, the buffers that grow to the
 * largest image, and the LMDB environment with its open transaction. */
struct conv {
	const struct ts_convert_cfg *cfg;
	struct ts_convert_stats *st;
	const char *out;
	int side;		   /* cfg->resize */
	uint8_t *rs, *chw;	   /* side x side x 3: resized RGB, CHW BGR */
	uint8_t *file, *rgb, *val; /* the JPEG, its pixels, the Datum */
	size_t file_cap, rgb_cap, val_cap;
	tjhandle dec, enc;
	MDB_env *env;
	MDB_txn *txn;
	MDB_dbi dbi;
	char *err;
	size_t errlen;
};

static int grow(uint8_t **buf, size_t *cap, size_t need)
{
	if (need <= *cap)
		return 0;
	uint8_t *nb = realloc(*buf, need);
	if (!nb)
		return -ENOMEM;
	*buf = nb;
	*cap = need;
	return 0;
}

/* The output folder and its LMDB, sized for @n images. */
static int conv_open(struct conv *c, size_t n)
{
	int rc;
	if (mkdir(c->out, 0755) && errno != EEXIST) {
		rc = -errno;
		snprintf(c->err, c->errlen, "preprocess: cannot create %s: %s", c->out,
			 strerror(errno));
		return rc;
	}
	if ((rc = mdb_env_create(&c->env))) {
		c->env = NULL;
		return mdb_err(rc, "env_create", c->out, c->err, c->errlen);
	}
	/* Room for every image with generous page overhead. */
	size_t px = (size_t)c->side * c->side * 3;
	size_t mapsize = (size_t)n * (px + 4096) * 2 + ((size_t)1 << 26);
	if ((rc = mdb_env_set_mapsize(c->env, mapsize)) ||
	    (rc = mdb_env_open(c->env, c->out, 0, 0664)))
		return mdb_err(rc, "open", c->out, c->err, c->errlen);
	return 0;
}

/* Reads and decodes @path, resizes it to side x side and encodes its
 * Datum into c->val; *@vlen is the Datum's size. */
static int conv_datum(struct conv *c, const char *path, int32_t label, size_t *vlen)
{
	size_t len = 0;
	uint64_t a = ts_now_ns();
	int rc = slurp(path, &c->file, &c->file_cap, &len);
	c->st->io_ns += ts_now_ns() - a;
	if (rc) {
		snprintf(c->err, c->errlen, "preprocess: cannot read %s: %s", path,
			 ts_strerror(rc));
		return rc;
	}
	c->st->bytes_in += len;
	int w, h, sub, cs;
	if (tjDecompressHeader3(c->dec, c->file, (unsigned long)len, &w, &h, &sub, &cs)) {
		snprintf(c->err, c->errlen, "preprocess: %s: %s", path, tjGetErrorStr2(c->dec));
		return TS_E_CORRUPT;
	}
	if (grow(&c->rgb, &c->rgb_cap, (size_t)w * h * 3))
		return -ENOMEM;
	if (tjDecompress2(c->dec, c->file, (unsigned long)len, c->rgb, w, 0, h, TJPF_RGB, 0)) {
		snprintf(c->err, c->errlen, "preprocess: %s: %s", path, tjGetErrorStr2(c->dec));
		return TS_E_CORRUPT;
	}
	resize_rgb(c->rgb, w, h, c->rs, c->side, c->side);
	struct ts_datum d;
	unsigned char *jpg = NULL;
	unsigned long jlen = 0;
	if (c->cfg->encoded) {
		/* cv::imencode(".jpg") at OpenCV's default quality, 95. */
		if (tjCompress2(c->enc, c->rs, c->side, 0, c->side, TJPF_RGB, &jpg, &jlen,
				TJSAMP_420, 95, 0)) {
			snprintf(c->err, c->errlen, "preprocess: encode %s: %s", path,
				 tjGetErrorStr2(c->enc));
			return TS_E_CORRUPT;
		}
		ts_datum_init_encoded(&d, jpg, jlen, label);
	} else {
		ts_datum_rgb_to_chw_bgr(c->rs, c->side, c->side, c->chw);
		ts_datum_init_raw(&d, 3, c->side, c->side, c->chw, label);
	}
	if (grow(&c->val, &c->val_cap, ts_datum_encoded_size(&d))) {
		tjFree(jpg);
		return -ENOMEM;
	}
	ssize_t wl = ts_datum_encode(&d, c->val, c->val_cap);
	tjFree(jpg);
	if (wl < 0)
		return (int)wl;
	*vlen = (size_t)wl;
	return 0;
}

/* Puts c->val under image @k's key in the open transaction (begun here
 * when there is none); commits after @commit. */
static int conv_put(struct conv *c, size_t k, const char *rel, size_t vlen, bool commit)
{
	int rc;
	if (!c->txn && ((rc = mdb_txn_begin(c->env, NULL, 0, &c->txn)) ||
			(rc = mdb_dbi_open(c->txn, NULL, 0, &c->dbi))))
		return mdb_err(rc, "txn_begin", c->out, c->err, c->errlen);
	char key[4200];
	int kl = snprintf(key, sizeof(key), "%08zu_%s", k, rel);
	MDB_val mk = {.mv_size = (size_t)kl, .mv_data = key};
	MDB_val mv = {.mv_size = vlen, .mv_data = c->val};
	if ((rc = mdb_put(c->txn, c->dbi, &mk, &mv, 0)))
		return mdb_err(rc, "put", c->out, c->err, c->errlen);
	c->st->bytes_out += vlen;
	c->st->images++;
	if (!commit)
		return 0;
	uint64_t a = ts_now_ns();
	rc = mdb_txn_commit(c->txn);
	c->txn = NULL;
	c->st->io_ns += ts_now_ns() - a;
	return rc ? mdb_err(rc, "commit", c->out, c->err, c->errlen) : 0;
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
	struct conv c = {.cfg = cfg,
			 .st = st,
			 .out = out,
			 .side = (int)cfg->resize,
			 .err = err,
			 .errlen = errlen};
	size_t px = (size_t)c.side * c.side * 3;
	/* convert_imageset --shuffle (create_imagenet.sh passes it). */
	uint32_t *order = malloc(n * sizeof(*order));
	c.rs = malloc(px);
	c.chw = malloc(px);
	c.dec = tjInitDecompress();
	c.enc = cfg->encoded ? tjInitCompress() : NULL;
	uint64_t t0 = ts_now_ns();
	if (!order || !c.rs || !c.chw || !c.dec || (cfg->encoded && !c.enc)) {
		rc = -ENOMEM;
		goto out;
	}
	struct ts_rng rng;
	ts_rng_seed(&rng, cfg->seed);
	for (size_t i = 0; i < n; i++)
		order[i] = (uint32_t)i;
	ts_rng_shuffle_u32(&rng, order, n);
	if ((rc = conv_open(&c, n)))
		goto out;
	uint64_t since = 0;
	for (size_t k = 0; k < n; k++) {
		if (cfg->stop && *cfg->stop) {
			rc = -EINTR;
			goto out;
		}
		const struct item *it = &items[order[k]];
		char path[4096];
		snprintf(path, sizeof(path), "%s/%s", in, it->rel);
		size_t vlen = 0;
		bool commit = ++since == cfg->txn || k + 1 == n;
		if ((rc = conv_datum(&c, path, it->label, &vlen)) ||
		    (rc = conv_put(&c, k, it->rel, vlen, commit)))
			goto out;
		if (commit)
			since = 0;
		if (cfg->progress) {
			double el = (double)(ts_now_ns() - t0) / 1e9;
			cfg->progress(cfg->progress_ctx, cfg->label, k + 1, n,
				      el > 0 ? (double)(k + 1) / el : 0, el);
		}
	}
	rc = 0;
out:
	if (c.txn)
		mdb_txn_abort(c.txn);
	if (c.env)
		mdb_env_close(c.env);
	st->wall_ns = ts_now_ns() - t0;
	if (c.dec)
		tjDestroy(c.dec);
	if (c.enc)
		tjDestroy(c.enc);
	for (size_t i = 0; i < n; i++)
		free(items[i].rel);
	free(items);
	free(order);
	free(c.rs);
	free(c.chw);
	free(c.file);
	free(c.rgb);
	free(c.val);
	return rc;
}
