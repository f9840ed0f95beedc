/*
 * ds_imagenet_jpeg.c — the imagenet-jpeg kind: the ILSVRC2012 train tar
 * extracted, a class-per-folder tree of JPEG files (ImageFolder), with
 * --val N also val/<wnid>/ILSVRC2012_val_<8 digits>.JPEG sorted into class
 * folders. Sizes and settings: pipeline/DATASETS.md.
 *
 * Its reader, the loader source "folder": a file-per-sample dataset laid
 * out like torchvision's ImageFolder: ROOT/CLASS/.../FILE, classes numbered
 * in sorted name order, files in sorted order within each class. A root
 * with no class folders is read as one unlabeled set of files. Sizes come
 * from one stat per file at open, so every read is sized to its file.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/files.h"
#include "pipeline/dataset.h"
#include "pipeline/ds_image.h"
#include "pipeline/ds_kind.h"
#include "pipeline/loader.h"
#include "pipeline/source.h"
#include "tier/fsmeta.h"

static void jpeg_size(const struct ts_dataset_meta *meta, uint32_t img,
		      const struct ts_ds_image_spec *p, uint32_t *bytes, uint16_t *w, uint16_t *h)
{
	(void)meta;
	(void)img;
	*bytes = p->jpeg.target;
	*w = (uint16_t)p->w;
	*h = (uint16_t)p->h;
}

/* The image files are not listed (there may be 1.3M of them), only counted. */
static int jpeg_files(struct ts_dataset_meta *meta)
{
	meta->total_bytes += meta->sample_bytes;
	return 0;
}

static int jpeg_make(struct ts_jpeggen *jg, const struct ts_dataset_meta *meta, uint32_t img,
		     const struct ts_ds_image_spec *p, struct ts_ds_sample *s)
{
	const uint8_t *jpg;
	size_t len;
	int rc;

	(void)meta;
	(void)img;
	if ((rc = ts_jpeggen_make(jg, &p->jpeg, &jpg, &len, &s->jr)))
		return rc;
	s->requal = s->jr.quality != p->jpeg.quality;
	s->buf = malloc(len);
	if (!s->buf)
		return -ENOMEM;
	memcpy(s->buf, jpg, len);
	s->len = len;
	return 0;
}

struct tree {
	const struct ts_dataset_meta *meta;
	const char *dir;
};

static int tree_open(const struct ts_dataset_meta *meta, const char *dir, void **w, char *err,
		     size_t errlen)
{
	char path[4096], cls[10];
	int rc;

	for (int split = 0; split < 2; split++) {
		if (split == 1 && !meta->val)
			break;
		snprintf(path, sizeof(path), "%s/%s", dir, split ? "val" : "train");
		if ((rc = ts_ds_mkdir(path)))
			return ts_ds_fail(err, errlen, rc, "%s: %s", path, ts_strerror(rc));
		for (uint32_t c = 0; c < meta->classes; c++) {
			ts_dataset_class_name(c, cls);
			snprintf(path, sizeof(path), "%s/%s/%s", dir, split ? "val" : "train", cls);
			if ((rc = ts_ds_mkdir(path)))
				return ts_ds_fail(err, errlen, rc, "%s: %s", path, ts_strerror(rc));
		}
	}
	struct tree *t = malloc(sizeof(*t));
	if (!t)
		return ts_ds_fail(err, errlen, -ENOMEM, "out of memory");
	t->meta = meta;
	t->dir = dir;
	*w = t;
	return 0;
}

static int write_file(const char *path, const uint8_t *b, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	int rc;

	if (fd < 0)
		return -errno;
	rc = ts_write_all(fd, b, n);
	if (close(fd) && !rc)
		rc = -errno;
	return rc;
}

static int tree_put(void *w, uint64_t j, const uint8_t *b, size_t len, char *err,
		    size_t errlen)
{
	const struct tree *t = w;
	const struct ts_dataset_meta *meta = t->meta;
	char path[4096], rel[160];
	int rc;

	ts_dataset_sample_path(meta, meta->order[j], rel, sizeof(rel));
	snprintf(path, sizeof(path), "%s/%s", t->dir, rel);
	if (len != meta->bytes[j])
		return ts_ds_fail(err, errlen, TS_E_CORRUPT,
				  "%s: made %zu bytes where the model says %" PRIu32
				  " (generator bug)",
				  path, len, meta->bytes[j]);
	if ((rc = write_file(path, b, len)))
		return ts_ds_fail(err, errlen, rc, "%s: %s", path, ts_strerror(rc));
	return 0;
}

static int tree_close(void *w, bool ok, char *err, size_t errlen)
{
	(void)ok;
	(void)err;
	(void)errlen;
	free(w);
	return 0;
}

static const struct ts_ds_image_kind jpeg_images = {
	.size = jpeg_size,
	.files = jpeg_files,
	.make = jpeg_make,
	.open = tree_open,
	.put = tree_put,
	.close = tree_close,
};

/* Every file: there, its size, a JPEG of the described dimensions. */
static int jpeg_verify(const struct ts_dataset_meta *meta, const char *dir, char *err,
		       size_t errlen)
{
	char path[4096], rel[160];

	for (uint64_t j = 0; j < meta->samples; j++) {
		uint8_t *b;
		size_t len;
		uint32_t w, h;
		ts_dataset_sample_path(meta, meta->order[j], rel, sizeof(rel));
		snprintf(path, sizeof(path), "%s/%s", dir, rel);
		int rc = ts_ds_slurp(path, &b, &len);
		if (rc)
			return ts_ds_fail(err, errlen, rc, "%s: %s", path, ts_strerror(rc));
		if (len != meta->bytes[j])
			rc = ts_ds_fail(err, errlen, TS_E_TRUNCATED,
					"%s: %zu bytes where the description says %" PRIu32, path,
					len, meta->bytes[j]);
		else if (ts_ds_jpeg_dims(b, len, &w, &h) || w != meta->width[j] ||
			 h != meta->height[j])
			rc = ts_ds_fail(err, errlen, TS_E_CORRUPT,
					"%s: not a %ux%u JPEG as described", path, meta->width[j],
					meta->height[j]);
		free(b);
		if (rc)
			return rc;
	}
	return 0;
}

static void jpeg_sample_name(const struct ts_dataset_meta *meta, uint64_t j, char *out,
			     size_t n)
{
	ts_dataset_sample_path(meta, meta->order[j], out, n);
}

static void jpeg_storage(const struct ts_dataset_meta *meta, char *out, size_t n)
{
	(void)meta;
	snprintf(out, n, "one JPEG file per image, a folder per class (ImageFolder)");
}

static const struct ts_opt jpeg_opts[] = {
	{ "val", TS_OPT_U64, offsetof(struct ts_ds_image_opts, val), "0", 0, 1e8, "",
	  "validation images under val/" },
	TS_DS_IMAGE_OPT_CLASSES,
	{ NULL },
};


/* ---- the reader: source "folder" --------------------------------------- */

#define MAX_DEPTH 16

struct entry {
	uint64_t name;	/* offset in names */
	uint32_t len;	/* file size */
	int32_t label;
	int err;	/* -errno from stat: reported when the sample is read */
};

struct folder {
	int rootfd;
	char *path;
	char *names;
	size_t names_len, names_cap;
	struct entry *e;
	size_t n, cap;
	uint64_t max_len;
};

/* Sorted names of @rel's entries (no dot files). */
static int list_dir(struct folder *f, const char *rel, char ***out, size_t *nout)
{
	return ts_dir_names(f->rootfd, rel, TS_DIR_NO_DOT, out, nout);
}

static int add_entry(struct folder *f, const char *rel, const struct stat *sb, int err,
		     int32_t label)
{
	size_t l = strlen(rel) + 1;
	if (f->names_len + l > f->names_cap) {
		size_t cap = f->names_cap ? f->names_cap * 2 : 1 << 16;
		while (cap < f->names_len + l)
			cap *= 2;
		char *nn = realloc(f->names, cap);
		if (!nn)
			return -ENOMEM;
		f->names = nn;
		f->names_cap = cap;
	}
	if (f->n == f->cap) {
		size_t cap = f->cap ? f->cap * 2 : 1024;
		struct entry *ne = realloc(f->e, cap * sizeof *ne);
		if (!ne)
			return -ENOMEM;
		f->e = ne;
		f->cap = cap;
	}
	memcpy(f->names + f->names_len, rel, l);
	struct entry *e = &f->e[f->n++];
	e->name = f->names_len;
	e->label = label;
	e->err = err;
	e->len = 0;
	f->names_len += l;
	if (!err) {
		if (sb->st_size > UINT32_MAX)
			e->err = -EFBIG;
		else
			e->len = (uint32_t)sb->st_size;
		if (e->len > f->max_len)
			f->max_len = e->len;
	}
	return 0;
}

/* Adds every regular file under @rel (recursively) with @label. */
static int scan(struct folder *f, const char *rel, int32_t label, int depth, char *err,
		size_t errlen)
{
	char **v;
	size_t n;
	int rc = list_dir(f, rel, &v, &n);
	if (rc) {
		snprintf(err, errlen, "%s/%s: cannot list: %s", f->path, rel, ts_strerror(rc));
		return rc;
	}
	char sub[4096];
	for (size_t i = 0; i < n && !rc; i++) {
		int w = snprintf(sub, sizeof sub, "%s%s%s", rel, rel[0] ? "/" : "", v[i]);
		if (w < 0 || (size_t)w >= sizeof sub) {
			snprintf(err, errlen, "%s/%s/%s: path too long", f->path, rel, v[i]);
			rc = -ENAMETOOLONG;
			break;
		}
		struct stat sb;
		int serr = fstatat(f->rootfd, sub, &sb, 0) ? -errno : 0;
		if (!serr && S_ISDIR(sb.st_mode)) {
			if (depth >= MAX_DEPTH) {
				snprintf(err, errlen, "%s/%s: folders nested deeper than %d", f->path,
					 sub, MAX_DEPTH);
				rc = -ELOOP;
			} else {
				rc = scan(f, sub, label, depth + 1, err, errlen);
			}
		} else if (serr || S_ISREG(sb.st_mode)) {
			if ((rc = add_entry(f, sub, &sb, serr, label)))
				snprintf(err, errlen, "%s: out of memory listing files", f->path);
		}
	}
	ts_dir_names_free(v, n);
	return rc;
}

static void folder_close(void *st)
{
	struct folder *f = st;
	if (!f)
		return;
	if (f->rootfd >= 0)
		close(f->rootfd);
	free(f->path);
	free(f->names);
	free(f->e);
	free(f);
}

static int folder_open(const struct ts_source_ops *self, const struct ts_pipe_cfg *cfg,
		       void **st, char *err, size_t errlen)
{
	(void)self;
	if (!cfg->path || !*cfg->path) {
		snprintf(err, errlen, "source 'folder' needs option 'path' (a dataset folder)");
		return -EINVAL;
	}
	struct folder *f = calloc(1, sizeof *f);
	if (!f)
		return -ENOMEM;
	f->rootfd = open(cfg->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (f->rootfd < 0 || !(f->path = strdup(cfg->path))) {
		int rc = f->rootfd < 0 ? -errno : -ENOMEM;
		snprintf(err, errlen, "%s: cannot open dataset folder: %s", cfg->path,
			 ts_strerror(rc));
		folder_close(f);
		return rc;
	}
	char **v;
	size_t n;
	int rc = list_dir(f, "", &v, &n);
	if (rc) {
		snprintf(err, errlen, "%s: cannot list: %s", cfg->path, ts_strerror(rc));
		folder_close(f);
		return rc;
	}
	/* Classes are the sub-folders, in sorted order (ImageFolder's rule). */
	int32_t classes = 0;
	for (size_t i = 0; i < n && !rc; i++) {
		struct stat sb;
		if (fstatat(f->rootfd, v[i], &sb, 0) == 0 && S_ISDIR(sb.st_mode))
			rc = scan(f, v[i], classes++, 1, err, errlen);
	}
	if (!rc && classes == 0)
		rc = scan(f, "", -1, 1, err, errlen);
	ts_dir_names_free(v, n);
	if (!rc && f->n == 0) {
		snprintf(err, errlen, "%s: no sample files in the dataset folder", cfg->path);
		rc = -ENOENT;
	}
	if (rc) {
		folder_close(f);
		return rc;
	}
	*st = f;
	return 0;
}

static uint64_t folder_count(void *st)
{
	return ((struct folder *)st)->n;
}

static uint64_t folder_max_len(void *st)
{
	return ((struct folder *)st)->max_len;
}

static int folder_extent(void *st, uint64_t i, struct ts_extent *x)
{
	struct folder *f = st;
	const struct entry *e = &f->e[i];
	if (e->err)
		return e->err;
	x->dirfd = f->rootfd;
	x->rel = f->names + e->name;
	x->fd = -1;
	x->off = 0;
	x->len = e->len;
	x->label = e->label;
	return 0;
}

static void folder_describe(void *st, uint64_t i, char *buf, size_t n)
{
	struct folder *f = st;
	snprintf(buf, n, "%s/%s", f->path, f->names + f->e[i].name);
}

/* Virtual: a file per sample, opened and read whole. The open is a lookup
 * for the file-system rule (tier/fsmeta.h): the class folder in train/,
 * then the file in its folder, each reading the folder's blocks and the
 * inode-table blocks the first time. Inode ranks follow the tree depth
 * first, as mkfs.ext4 -d numbers it: the root, then from first_inode
 * lost+found, dataset.json, train/, then each class folder and its files
 * (ext4: the root 2, lost+found 11, train/ 13, the first folder 14). A
 * disk with no file system (vs->fs NULL) gets one metadata request per
 * open (ino 0).
 * The generator names files so that sorted order is its numbering, so
 * sample i of the listing is image i of the meta. */
struct folder_plan {
	/* Per sample, what planning it reads, together: a shuffled epoch
	 * reads them at random, one memory miss for the four. */
	struct folder_sample {
		uint32_t bytes;
		uint16_t width, height, cls;
	} *s;
	uint64_t classes;
	uint32_t top_blocks;
	uint32_t *dir_blocks; /* per class */
	uint64_t *dir_ino;    /* per class */
	uint64_t *first;      /* per class: its first sample (storage order) */
	uint64_t first_ino;   /* the first class folder's inode; 0: no file system */
	bool contiguous;      /* every class's samples lie together */
};

static void plan_free(struct ts_vsource *vs)
{
	struct folder_plan *p = vs->st;
	if (p) {
		free(p->s);
		free(p->dir_blocks);
		free(p->dir_ino);
		free(p->first);
		free(p);
	}
	vs->st = NULL;
}

static int folder_plan_open(const struct ts_source_ops *self, struct ts_vsource *vs,
		            char *err, size_t errlen)
{
	(void)self;
	int rc = ts_vsource_images(vs, false, err, errlen);
	if (rc)
		return rc;
	const struct ts_dataset_meta *m = vs->meta;
	uint64_t nc = m->classes ? m->classes : 1;
	struct folder_plan *p = calloc(1, sizeof(*p));
	uint64_t *count = calloc(nc, sizeof(*count)), *names = calloc(nc, sizeof(*names));
	if (!p || !count || !names || !(p->dir_blocks = calloc(nc, sizeof(uint32_t))) ||
	    !(p->dir_ino = calloc(nc, sizeof(uint64_t))) ||
	    !(p->first = calloc(nc, sizeof(uint64_t))) ||
	    !(p->s = ts_malloc_huge(TS_MAX(vs->count, 1) * sizeof(*p->s)))) {
		free(count);
		free(names);
		vs->st = p;
		plan_free(vs);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	vs->st = p;
	p->classes = nc;
	p->contiguous = true;
	for (uint64_t i = 0; i < vs->count; i++) {
		uint64_t c = m->label ? TS_MIN((uint64_t)m->label[i], nc - 1) : 0;
		p->s[i] = (struct folder_sample){ .bytes = m->bytes[i], .width = m->width[i],
						  .height = m->height[i], .cls = (uint16_t)c };
		if (!count[c])
			p->first[c] = i;
		else if (m->label && m->label[i - 1] != c)
			p->contiguous = false;
		count[c]++;
		/* "train/<wnid>/" is 16 bytes before the file's name */
		size_t len = ts_dataset_sample_path_len(m, m->order ? m->order[i] : i);
		names[c] += len > 16 ? len - 16 : len;
	}
	/* after lost+found, dataset.json and train/ */
	p->first_ino = vs->fs ? vs->fs->first_inode + 3 : 0;
	uint64_t ino = p->first_ino, used = 0;
	for (uint64_t c = 0; c < nc && vs->fs; c++) {
		if (!count[c])
			continue;
		p->dir_ino[c] = ino;
		p->dir_blocks[c] = (uint32_t)ts_fsmeta_dir_blocks(vs->fs, count[c], names[c]);
		ino += count[c] + 1;
		used++;
	}
	if (vs->fs) /* train/: a 9-byte wnid per class */
		p->top_blocks = (uint32_t)ts_fsmeta_dir_blocks(vs->fs, used, 9 * used);
	free(count);
	free(names);
	return 0;
}

static void folder_plan_sample(const struct ts_vsource *vs, uint64_t i, struct ts_vsample *out)
{
	const struct folder_plan *p = vs->st;
	const struct folder_sample *x = &p->s[i];
	uint64_t c = x->cls;
	ts_vsample_start(out, TS_VWORK_JPEG, x->width, x->height, x->bytes);
	out->n = 2;
	uint64_t ino = !p->first_ino	 ? 0
		       : p->contiguous ? p->dir_ino[c] + 1 + (i - p->first[c])
				       : p->first_ino + i + c;
	/* Field by field: as compound literals each vio's zeroing was a
	 * `rep stos`, whose start-up cost more than the rest of the plan. */
	_Static_assert(sizeof(struct ts_vio) == 88, "a field added to struct ts_vio: set it here");
	struct ts_vio *m = &out->io[0], *r = &out->io[1];
	m->op = TS_VIO_META;
	m->file = i + 2;
	m->off = m->len = m->size = m->chunk = 0;
	m->mapped = m->tail_first = false;
	m->map_window_ns = 0;
	m->ino = ino;
	m->dir = UINT64_MAX - 2 - c;
	m->dir_ino = p->dir_ino[c];
	m->dir_blocks = p->dir_blocks[c];
	m->top_blocks = p->top_blocks;
	r->op = TS_VIO_READ;
	r->file = i + 2;
	r->off = r->chunk = 0;
	r->len = r->size = x->bytes;
	r->mapped = r->tail_first = false;
	r->map_window_ns = 0;
	r->ino = r->dir = r->dir_ino = 0;
	r->dir_blocks = r->top_blocks = 0;
}

/* Sample i's record: a shuffled epoch reads it at random. */
static void folder_plan_prefetch(const struct ts_vsource *vs, uint64_t i)
{
	const struct folder_plan *p = vs->st;
	__builtin_prefetch(&p->s[i]);
}

const struct ts_source_ops ts_source_folder = {
	.name = "folder",
	.version = TS_SOURCE_VERSION,
	.caps = TS_SRC_EXTENTS | TS_SRC_TORCH,
	.open = folder_open,
	.count = folder_count,
	.max_len = folder_max_len,
	.extent = folder_extent,
	.describe = folder_describe,
	.close = folder_close,
	.plan_open = folder_plan_open,
	.plan_sample = folder_plan_sample,
	.plan_close = plan_free,
	.plan_prefetch = folder_plan_prefetch,
};

const struct ts_dataset_ops ts_dataset_imagenet_jpeg = {
	.name = "imagenet-jpeg",
	.version = TS_DATASET_OPS_VERSION,
	.caps = TS_DS_IMAGES,
	.help = "class-per-folder tree of JPEG files (train/, val/ with --val)",
	.opts = jpeg_opts,
	.opts_size = sizeof(struct ts_ds_image_opts),
	.full_count = TS_IMAGENET_TRAIN,
	.unit = "images",
	.source = &ts_source_folder,
	.input = "train",
	.sample_column = "path",
	.data = &jpeg_images,
	.describe = ts_ds_image_describe,
	.generate = ts_ds_image_generate,
	.verify = jpeg_verify,
	.sample_name = jpeg_sample_name,
	.storage = jpeg_storage,
};
