/*
 * source_folder.c — a file-per-sample dataset laid out like torchvision's
 * ImageFolder: ROOT/CLASS/.../FILE, classes numbered in sorted name order,
 * files in sorted order within each class. A root with no class folders is
 * read as one unlabeled set of files. Sizes come from one stat per file at
 * open, so every read is sized to its file.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/files.h"
#include "pipeline/dataset.h"
#include "pipeline/loader.h"
#include "pipeline/source.h"
#include "tier/fsmeta.h"

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

static int folder_open(const struct ts_pipe_cfg *cfg, void **st, char *err, size_t errlen)
{
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
 * first, as mkfs.ext4 -d numbers it: the root 2, lost+found 11,
 * dataset.json 12, train/ 13, then each class folder and its files.
 * The generator names files so that sorted order is its numbering, so
 * sample i of the listing is image i of the meta. */
struct folder_plan {
	uint64_t classes;
	uint32_t top_blocks;
	uint32_t *dir_blocks; /* per class */
	uint64_t *dir_ino;    /* per class */
	uint64_t *first;      /* per class: its first sample (storage order) */
	bool contiguous;      /* every class's samples lie together */
};

static void plan_free(struct ts_vsource *vs)
{
	struct folder_plan *p = vs->st;
	if (p) {
		free(p->dir_blocks);
		free(p->dir_ino);
		free(p->first);
		free(p);
	}
	vs->st = NULL;
}

static int folder_plan_open(struct ts_vsource *vs, char *err, size_t errlen)
{
	int rc = ts_vsource_images(vs, false, err, errlen);
	if (rc)
		return rc;
	const struct ts_dataset_meta *m = vs->meta;
	uint64_t nc = m->classes ? m->classes : 1;
	struct folder_plan *p = calloc(1, sizeof(*p));
	uint64_t *count = calloc(nc, sizeof(*count)), *names = calloc(nc, sizeof(*names));
	if (!p || !count || !names || !(p->dir_blocks = calloc(nc, sizeof(uint32_t))) ||
	    !(p->dir_ino = calloc(nc, sizeof(uint64_t))) ||
	    !(p->first = calloc(nc, sizeof(uint64_t)))) {
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
		if (!count[c])
			p->first[c] = i;
		else if (m->label && m->label[i - 1] != c)
			p->contiguous = false;
		count[c]++;
		/* "train/<wnid>/" is 16 bytes before the file's name */
		size_t len = ts_dataset_sample_path_len(m, m->order ? m->order[i] : i);
		names[c] += len > 16 ? len - 16 : len;
	}
	uint64_t ino = 14, used = 0;
	for (uint64_t c = 0; c < nc; c++) {
		if (!count[c])
			continue;
		p->dir_ino[c] = ino;
		p->dir_blocks[c] = (uint32_t)ts_fsmeta_dir_blocks(&ts_fsmeta_ext4, count[c], names[c]);
		ino += count[c] + 1;
		used++;
	}
	p->top_blocks = (uint32_t)ts_fsmeta_dir_blocks(&ts_fsmeta_ext4, used, 9 * used);
	free(count);
	free(names);
	return 0;
}

static void folder_plan_sample(const struct ts_vsource *vs, uint64_t i, struct ts_vsample *out)
{
	const struct ts_dataset_meta *m = vs->meta;
	const struct folder_plan *p = vs->st;
	uint64_t c = m->label ? TS_MIN((uint64_t)m->label[i], p->classes - 1) : 0;
	*out = (struct ts_vsample){ .n = 2, .work = TS_VWORK_JPEG, .width = m->width[i],
				    .height = m->height[i], .len = m->bytes[i] };
	out->io[0] = (struct ts_vio){ .op = TS_VIO_META, .file = i + 2,
				      .ino = p->contiguous ? p->dir_ino[c] + 1 + (i - p->first[c])
							   : 14 + i + c,
				      .dir = UINT64_MAX - 2 - c, .dir_ino = p->dir_ino[c],
				      .dir_blocks = p->dir_blocks[c], .top_blocks = p->top_blocks };
	out->io[1] = (struct ts_vio){ .op = TS_VIO_READ, .file = i + 2, .len = m->bytes[i],
				      .size = m->bytes[i] };
}

/* Sample i's entries of the per-image arrays: a shuffled epoch reads them
 * at random, one memory miss each. */
static void folder_plan_prefetch(const struct ts_vsource *vs, uint64_t i)
{
	const struct ts_dataset_meta *m = vs->meta;
	if (m->label)
		__builtin_prefetch(&m->label[i]);
	__builtin_prefetch(&m->width[i]);
	__builtin_prefetch(&m->height[i]);
	__builtin_prefetch(&m->bytes[i]);
}

const struct ts_source_ops ts_source_folder = {
	.name = "folder",
	.version = TS_SOURCE_VERSION,
	.caps = TS_SRC_EXTENTS,
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
