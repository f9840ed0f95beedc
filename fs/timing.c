/*
 * timing.c — how tierfs drives the tier model (tier/tier.h) with the real
 * clock, and keeps the kernel's page cache from hiding requests from it.
 *
 * Every counted request is submitted at its arrival time; the daemon then
 * does the real syscall and sleeps until the completion time the model
 * returned (control.c). Requests that change or first read an inode or a
 * directory (open, create, opendir, readdir, mkdir, unlink, rename, link,
 * chmod, truncate...) are TS_TIER_META. getattr, access, readlink, statfs,
 * flush and release cost nothing: on a real server they are answered from
 * the inode cache or are local, and a stat() reaches the daemon whenever
 * the kernel's copy of the attributes is older than attr_timeout (tierfs.c)
 * or was invalidated (names.c), so charging them would bill the disk for
 * what the inode cache serves. In libfuse's high-level API a lookup is a
 * getattr, so the inode read of a cold file is the open's.
 *
 * Block mode (image=, set by tiersim disk mount): BACKING holds the disk
 * image a loop device reads, and the requests are the device's. A block
 * device has no path and no extent tree, so the image file's own lookups
 * (its open, at the loop device's attach) and extent leaves (an image over
 * 4 extents of 128 MiB) cost nothing; the file system on the device reads
 * its metadata through it, and those reads are charged as the device's.
 *
 * The kernel page cache. Files are opened with direct_io on the FUSE side,
 * so every read and write reaches the daemon and the model's page cache
 * (mem=) is the only one that decides hits and misses. libfuse 3.14 cannot
 * map a direct_io file shared (mmap fails with ENODEV; LMDB maps its data
 * file so), so the files matching cached= (default "*.mdb") are opened in
 * kernel-cached mode instead, with keep_cache. For them the model's memory
 * limit is kept true by invalidation: whenever the model's page cache drops
 * a range of such a file (its evict callback), the kernel's pages of that
 * file are invalidated (fuse_invalidate_path) from a separate thread, so the
 * kernel never holds what the model has evicted and the next access faults
 * back into the daemon, where it is charged as a miss. The high-level API
 * can only invalidate a whole file; that is safe (the kernel holds less,
 * not more, than the model, and refaults of pages the model still holds are
 * charged as hits) at the price of extra FUSE round trips. The call is made
 * off the request threads because invalidating pages waits for page locks
 * that an in-flight read of the same file holds.
 */
#include <dirent.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <linux/fs.h>
#include <linux/openat2.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <syslog.h>

#include "core/files.h"
#include "core/units.h"
#include "disk/issue.h"
#include "fs/daemon.h"
#include "tier/fsmeta.h"
#include "traces/tier_rule.h"
#include "traces/trace.h"

struct cached_file {
	uint64_t ino;
	char *path;
	unsigned refs; /* the open list's: handles open on it */
};

/* A table of 64-bit keys (numbering, below). */
struct num_tab {
	uint64_t *key;
	uint32_t *val;
	size_t cap, n;
};
#define DIR_FLAGS 1
#define DIR_LISTED 1U

struct ts_fs_model {
	struct ts_tier_set *set;
	const struct ts_tier_profile *profile;
	struct ts_tier *tier; /* published once, with release; NULL until started */
	struct ts_fsmeta *meta; /* the file system's metadata reads (tier/fsmeta.h) */
	const struct ts_fsmeta_params *fs; /* its layout, the set's */

	pthread_mutex_t lock; /* the cached-file table, the queue, ctl_err */
	pthread_cond_t wake;
	struct cached_file *files;
	size_t nfiles, cap_files;
	struct cached_file *opens; /* files cached per open, while a handle is open */
	size_t nopens, cap_opens;
	uint64_t *queue; /* inodes to invalidate */
	size_t nqueue, cap_queue;
	bool stop;
	pthread_t inval;
	bool inval_started;
	char ctl_err[256];
	pthread_mutex_t ctl; /* serializes control commands */

	/* The backing tree's inode numbers as the file system's metadata
	 * rule sees them (numbering, below), under nlock: path key -> inode
	 * (32 bits, as ext4's), folder key -> the names under it << DIR_FLAGS
	 * | DIR_LISTED once its names are numbered; new names numbered on from
	 * next_ino. nstate (NUM_*) moves on under nlock, ncond told. */
	pthread_mutex_t nlock;
	pthread_cond_t ncond;
	struct num_tab nums, dirs;
	uint64_t next_ino;
	int nstate;
	uint64_t nlooked; /* folders a lookup numbered before the walk */
	bool nstop, nthread_started;
	bool ngate; /* the walk waits for `numbering=walk` (number_start) */
	pthread_t nthread;
};

static struct ts_tier *model_of(struct ts_fs *fs)
{
	return fs->model ? __atomic_load_n(&fs->model->tier, __ATOMIC_ACQUIRE) : NULL;
}

static int load_set(const char *profile, struct ts_tier_set **set, char *err, size_t n)
{
	int rc = ts_tier_set_load_default(set, err, n);
	if (rc)
		return rc;
	if (profile && (rc = ts_tier_set_add_file(*set, profile, err, n))) {
		ts_tier_set_free(*set);
		*set = NULL;
	}
	return rc;
}

int ts_fs_list_tiers(FILE *out, const char *profile, uint64_t capacity, char *err, size_t n)
{
	struct ts_tier_set *set;
	int rc = load_set(profile, &set, err, n);
	if (rc)
		return rc;
	rc = ts_tier_print_table(out, set, capacity);
	if (rc)
		snprintf(err, n, "cannot print the tier table: %s", ts_strerror(rc));
	ts_tier_set_free(set);
	return rc;
}

/*
 * Fault rules in text: "RULE[;RULE...]" (ts_tier_fault_parse). Parses all
 * of @text into @out (at most @max; *nout counts them) or none; the
 * message names the rule, after @what (where it came from) unless NULL.
 */
static int parse_faults(const char *text, const char *what, struct ts_tier_fault *out,
			unsigned max, unsigned *nout, char *err, size_t n)
{
	char *copy = strdup(text), *save, *one;
	char why[256];
	int rc = 0;

	if (!copy)
		return -ENOMEM;
	*nout = 0;
	for (one = strtok_r(copy, ";", &save); one && !rc; one = strtok_r(NULL, ";", &save)) {
		if (*nout == max) {
			snprintf(why, sizeof(why), "more than %d fault rules (fault=clear drops them)",
				 TS_TIER_MAX_FAULTS);
			rc = -ENOSPC;
		} else {
			rc = ts_tier_fault_parse(one, &out[*nout], why, sizeof(why));
		}
		if (rc) {
			snprintf(err, n, "%s%s%s", what ? what : "", what ? ": " : "", why);
		} else {
			++*nout;
		}
	}
	free(copy);
	return rc;
}

/* The fault= mount option's rules, into @t. */
static int add_faults(struct ts_fs *fs, struct ts_tier *t, char *err, size_t n)
{
	struct ts_tier_fault f[TS_TIER_MAX_FAULTS];
	unsigned nf = 0;
	int rc = 0;

	if (fs->o.fault)
		rc = parse_faults(fs->o.fault, "option 'fault'", f, TS_TIER_MAX_FAULTS, &nf, err, n);
	for (unsigned i = 0; i < nf && !rc; i++)
		if ((rc = ts_tier_fault_add(t, &f[i])))
			snprintf(err, n, "option 'fault': cannot add a rule: %s", ts_strerror(rc));
	return rc;
}

/* The rules in force, ';'-separated in the form fault= takes ("" for
 * none), into @buf (FAULTS_TEXT_MAX bytes hold any set of rules). */
#define FAULTS_TEXT_MAX (TS_TIER_MAX_FAULTS * (TS_TIER_FAULT_PATH_MAX + 96))
static void faults_text(struct ts_tier *t, char *buf, size_t n)
{
	struct ts_tier_fault fl[TS_TIER_MAX_FAULTS];
	unsigned nf = ts_tier_fault_list(t, fl, TS_TIER_MAX_FAULTS);
	size_t used = 0;

	buf[0] = 0;
	for (unsigned i = 0; i < nf && used + 1 < n; i++) {
		if (i)
			buf[used++] = ';';
		int w = ts_tier_fault_format(&fl[i], buf + used, n - used);
		used = w < 0 ? n - 1 : TS_MIN(used + (size_t)w, n - 1);
	}
	buf[used] = 0;
}

/* One line naming the rules in force, to the log. */
static void log_faults(struct ts_fs *fs, struct ts_tier *t)
{
	char *text = malloc(FAULTS_TEXT_MAX);

	if (!text)
		return;
	faults_text(t, text, FAULTS_TEXT_MAX);
	if (text[0])
		ts_fs_log(fs, LOG_INFO, "tierfs: fault rules: %s", text);
	else
		ts_fs_log(fs, LOG_INFO, "tierfs: fault rules cleared");
	free(text);
}

int ts_fs_model_open(struct ts_fs *fs, char *err, size_t n)
{
	struct ts_fs_model *m = calloc(1, sizeof(*m));
	struct ts_tier_limits lim;
	int rc;

	if (!m)
		return -ENOMEM;
	pthread_mutex_init(&m->lock, NULL);
	pthread_mutex_init(&m->ctl, NULL);
	pthread_mutex_init(&m->nlock, NULL);
	pthread_cond_init(&m->ncond, NULL);
	pthread_cond_init(&m->wake, NULL);
	fs->model = m;
	rc = load_set(fs->o.profile, &m->set, err, n);
	if (!rc)
		rc = ts_tier_set_lookup(m->set, fs->o.tier, &m->profile, err, n);
	if (!rc)
		rc = ts_tier_set_fs_lookup(m->set, TS_FSMETA_NAME, &m->fs, err, n);
	if (!rc)
		rc = ts_tier_effective(m->profile, fs->cfg.capacity, &lim, err, n);
	if (!rc && ts_tier_ebs_any(&fs->cfg.ebs) && !ts_tier_is_ebs(m->profile)) {
		snprintf(err, n, "options ebs_*: an instance's EBS limits cap an EBS volume (an aws-* "
				 "tier); tier %s is not one", m->profile->name);
		rc = -EINVAL;
	}
	if (!rc) {
		/* A trial model checks the rest of the options (mem, fault...). */
		struct ts_tier_cfg cfg = fs->cfg;
		struct ts_tier *t;
		cfg.profile = m->profile;
		rc = ts_tier_new(&cfg, &t, err, n);
		if (!rc) {
			rc = add_faults(fs, t, err, n);
			ts_tier_free(t);
		}
	}
	return rc;
}

static void evicted(void *ctx, uint64_t file, uint64_t off, uint64_t len);
static void *inval_main(void *arg);

/* One line when the tier's read or write p50 latency is below the floor. */
static void warn_floor(struct ts_fs *fs, const struct ts_tier_profile *p)
{
	const struct {
		const char *what;
		const struct ts_tier_dist *d;
	} lat[] = { { "read", &p->lat_read }, { "write", &p->lat_write } };
	char list[160] = "", v[32], fl[32];
	size_t used = 0;

	for (size_t i = 0; i < TS_ARRAY_SIZE(lat); i++) {
		const struct ts_tier_dist *d = lat[i].d;
		double p50 = d->kind == TS_TIER_DIST_UNIFORM ? d->lo_ns : d->p50_ns;
		if (d->kind == TS_TIER_DIST_NONE || p50 >= (double)(fs->floor_ns + fs->loop_hop_ns))
			continue;
		int w = snprintf(list + used, sizeof(list) - used, "%s%s p50 %s", used ? ", " : "",
				 lat[i].what, ts_fmt_duration(v, sizeof(v), (uint64_t)p50));
		if (w > 0 && (size_t)w < sizeof(list) - used)
			used += (size_t)w;
	}
	if (used && fs->loop_hop_ns)
		ts_fs_log(fs, LOG_WARNING,
			  "tierfs: warning: %s's latency (%s) is below the FUSE round trip %s and the "
			  "loop device hop %s; such requests take at least both",
			  p->name, list, ts_fmt_duration(fl, sizeof(fl), fs->floor_ns),
			  ts_fmt_duration(v, sizeof(v), fs->loop_hop_ns));
	else if (used)
		ts_fs_log(fs, LOG_WARNING,
			  "tierfs: warning: %s's latency (%s) is below the FUSE round trip %s; such requests "
			  "take at least that",
			  p->name, list, ts_fmt_duration(fl, sizeof(fl), fs->floor_ns));
}

/* ---- the backing tree's inode numbers ---- */

/*
 * The file system's metadata rule (tier/fsmeta.h) reads a file's inode
 * with the inode-table window it lies in, up to the last inode in use:
 * which files share a window, and how much of the last one is read, follow
 * from their numbers. The backing file system's own numbers are not the
 * emulated disk's (a dataset written on the host is numbered wherever the
 * host's allocator put it, among every other file there): so the tree is
 * numbered here as mkfs.ext4 -d numbers the image it copies it into
 * (tiersim disk make): the root its own inode, then every name under it
 * depth first, each folder's names in byte order (e2fsprogs 1.47 scans a
 * folder sorted and copies a subfolder before the names after it), from
 * the filesystem's first_inode on; the inodes in use end with the last.
 * That is the numbering a replay of a trace gives the same paths
 * (traces/replay/virtual.c), so both charge the same reads for the same
 * files. A name made after the mount takes the next number, as ext4 gives
 * a new inode the first free one.
 *
 * The mount does not wait for it. A thread of its own first counts the
 * names under every folder (an unsorted listing, no stat but where the
 * listing does not give the type), which gives the inodes in use; then
 * numbers the tree folder by folder, depth first. A folder's names are
 * numbered all at once, from the folder's own number and the counts of
 * the subfolders before each: name i of a folder numbered f is
 * f + i + (the names under its subfolders before it) + 1 (the root's
 * names from first_inode + 1). So a lookup that comes before the walk has
 * numbered its folder numbers the folders on its path itself the same
 * way, and gets the number the whole walk gives. Until the count is done
 * an op that needs a number waits for it (the count is the cheap part);
 * an op that changes names (create, unlink, rename...) waits for the
 * whole walk, so that the tree it numbers is the one mounted. With
 * cache=warm|written over the whole backing, the warm's sorted walk
 * numbers the tree as it goes (one walk), before the mount is ready.
 * Beyond NUMBER_MAX names (or when the tree cannot be read) the backing
 * inode numbers are used as before, with a warning; names made past it
 * keep theirs too. The table costs 16-32 bytes a name (1.28M names:
 * 20-40 MiB), the counts 16-32 bytes a folder.
 */
#define NUMBER_MAX (1ULL << 24)
#define NUMBER_DEPTH 64 /* folders deeper are not entered (as mkfs.ext4 -d's recursion) */

enum { NUM_OFF, NUM_COUNTING, NUM_LISTING, NUM_DONE, NUM_FAILED };

/* FNV-1a of @s[0..n) on from @h: tier/fsmeta.c keys a path the same way,
 * so that "/a/b" is the FNV of "/a" continued with "/b". */
static uint64_t fnv_on(uint64_t h, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ULL;
	return h;
}
#define FNV_BASIS 0xcbf29ce484222325ULL

static uint64_t child_key(uint64_t h, const char *name)
{
	return fnv_on(fnv_on(h, "/", 1), name, strlen(name));
}

/* Open addressing on a 64-bit key (0 empty, taken as 1), 3/4 full at most. */
static size_t tab_slot(const struct num_tab *t, uint64_t key)
{
	size_t i = (size_t)(key * 0x9e3779b97f4a7c15ULL >> 20) & (t->cap - 1);
	while (t->key[i] && t->key[i] != key)
		i = (i + 1) & (t->cap - 1);
	return i;
}

/* The value of @key, or NULL. */
static uint32_t *tab_get(const struct num_tab *t, uint64_t key)
{
	key += !key;
	if (!t->cap)
		return NULL;
	size_t i = tab_slot(t, key);
	return t->key[i] ? &t->val[i] : NULL;
}

TS_WUR static int tab_put(struct num_tab *t, uint64_t key, uint32_t val)
{
	key += !key;
	if (4 * (t->n + 1) > 3 * t->cap) {
		struct num_tab g = { .cap = t->cap ? 2 * t->cap : 1024 };
		g.key = calloc(g.cap, sizeof(*g.key));
		g.val = malloc(g.cap * sizeof(*g.val));
		if (!g.key || !g.val) {
			free(g.key);
			free(g.val);
			return -ENOMEM;
		}
		for (size_t i = 0; i < t->cap; i++)
			if (t->key[i]) {
				size_t s = tab_slot(&g, t->key[i]);
				g.key[s] = t->key[i];
				g.val[s] = t->val[i];
			}
		g.n = t->n;
		free(t->key);
		free(t->val);
		*t = g;
	}
	size_t s = tab_slot(t, key);
	if (!t->key[s])
		t->n++;
	t->key[s] = key;
	t->val[s] = val;
	return 0;
}

static void tab_free(struct num_tab *t)
{
	free(t->key);
	free(t->val);
	*t = (struct num_tab){ 0 };
}

/* A folder's entries as the walk takes them: its names, and whether each
 * is a folder (the listing's type; a name it gives no type for is asked,
 * and left out when it cannot be: gone since the listing). */
struct ent {
	char *name;
	bool dir;
};

static int ent_cmp(const void *a, const void *b)
{
	return strcmp(((const struct ent *)a)->name, ((const struct ent *)b)->name);
}

static void ents_free(struct ent *e, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(e[i].name);
	free(e);
}

/* The next entry of @d but "." and "..", with whether it is a folder (the
 * listing's type, or asked where it gives none; a name that cannot be
 * asked, gone since the listing, is left out); NULL at the end. */
static struct dirent *next_ent(DIR *d, bool *dir)
{
	struct dirent *de;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (de->d_type != DT_UNKNOWN) {
			*dir = de->d_type == DT_DIR;
			return de;
		}
		struct stat st;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW))
			continue;
		*dir = S_ISDIR(st.st_mode);
		return de;
	}
	return NULL;
}

/* The entries of folder @fd in byte order (strcmp, as mkfs.ext4 -d's scan
 * in the C locale, which tiersim disk make runs it in). */
TS_WUR static int read_folder(int fd, struct ent **out, size_t *nout)
{
	DIR *d;
	int orc = ts_opendir_at(fd, NULL, &d);
	if (orc)
		return orc;
	struct ent *v = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;
	struct dirent *de;
	bool dir;
	while ((de = next_ent(d, &dir))) {
		const char *nm = de->d_name;
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			struct ent *nv = realloc(v, cap * sizeof(*v));
			if (!nv) {
				rc = -ENOMEM;
				break;
			}
			v = nv;
		}
		if (!(v[n].name = strdup(nm))) {
			rc = -ENOMEM;
			break;
		}
		v[n++].dir = dir;
	}
	closedir(d);
	if (rc) {
		ents_free(v, n);
		return rc;
	}
	if (n > 1)
		qsort(v, n, sizeof(*v), ent_cmp);
	*out = v;
	*nout = n;
	return 0;
}

/* Counts the names under folder @fd (key @key, its names at @depth), each
 * folder entered into m->dirs with its count; *@total counts them all. */
TS_WUR static int count_tree(struct ts_fs_model *m, int fd, uint64_t key, unsigned depth,
			     uint64_t *total)
{
	DIR *d;
	int orc = ts_opendir_at(fd, NULL, &d);
	if (orc)
		return orc;
	uint64_t n = 0;
	int rc = 0;
	struct dirent *de;
	bool dir;
	while (!rc && (de = next_ent(d, &dir))) {
		const char *nm = de->d_name;
		n++;
		if (++*total > NUMBER_MAX) {
			rc = -E2BIG;
		} else if (__atomic_load_n(&m->nstop, __ATOMIC_RELAXED)) {
			rc = -ECANCELED;
		} else if (dir && depth < NUMBER_DEPTH) {
			int sub = openat(dirfd(d), nm, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (sub >= 0) {
				uint64_t before = *total;
				rc = count_tree(m, sub, child_key(key, nm), depth + 1, total);
				n += *total - before;
				close(sub);
			}
		}
	}
	closedir(d);
	if (!rc) {
		pthread_mutex_lock(&m->nlock);
		rc = tab_put(&m->dirs, key, (uint32_t)n << DIR_FLAGS);
		pthread_mutex_unlock(&m->nlock);
	}
	return rc;
}

/* Numbers the entries @e[0..n) of folder @key, itself numbered @self
 * (the root: first_inode), unless done already; @early: by a lookup
 * (counted). Takes nlock. */
TS_WUR static int number_folder(struct ts_fs_model *m, uint64_t key, uint64_t self,
				const struct ent *e, size_t n, bool early)
{
	int rc = 0;
	pthread_mutex_lock(&m->nlock);
	uint32_t *f = tab_get(&m->dirs, key);
	if (f && !(*f & DIR_LISTED)) {
		uint64_t ino = self;
		for (size_t i = 0; i < n && !rc; i++) {
			uint64_t k = child_key(key, e[i].name);
			rc = tab_put(&m->nums, k, (uint32_t)++ino);
			uint32_t *sub = e[i].dir ? tab_get(&m->dirs, k) : NULL;
			if (sub)
				ino += *sub >> DIR_FLAGS;
		}
		f = tab_get(&m->dirs, key);
		if (!rc && f)
			*f |= DIR_LISTED;
		m->nlooked += !rc && early;
	}
	pthread_mutex_unlock(&m->nlock);
	return rc;
}

/* The number the walk gives the name of key @key (0: none yet). */
static uint64_t number_known(struct ts_fs_model *m, uint64_t key)
{
	uint32_t *v = tab_get(&m->nums, key);
	return v ? *v : 0;
}

/* What walk_tree's @visit gets: each name under the folder walked, in
 * order, with its folder's fd. */
typedef int walk_fn(void *ctx, int dirfd, const struct ent *e);

/* Walks the tree under folder @fd (key @key, numbered @self; its names at
 * @depth) depth first in byte order, numbering each folder's names (with
 * @number) and giving each to @visit (when not NULL). */
TS_WUR static int walk_tree(struct ts_fs_model *m, int fd, uint64_t key, uint64_t self,
			    unsigned depth, bool number, walk_fn *visit, void *ctx)
{
	struct ent *e;
	size_t n;
	int rc = read_folder(fd, &e, &n);
	if (rc)
		return rc;
	if (number)
		rc = number_folder(m, key, self, e, n, false);
	for (size_t i = 0; i < n && !rc; i++) {
		if (__atomic_load_n(&m->nstop, __ATOMIC_RELAXED)) {
			rc = -ECANCELED;
			break;
		}
		if (visit && (rc = visit(ctx, fd, &e[i])))
			break;
		if (!e[i].dir || depth >= NUMBER_DEPTH)
			continue;
		int sub = openat(fd, e[i].name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0)
			continue;
		uint64_t k = child_key(key, e[i].name), ino = 0;
		if (number) {
			pthread_mutex_lock(&m->nlock);
			ino = number_known(m, k);
			pthread_mutex_unlock(&m->nlock);
		}
		rc = walk_tree(m, sub, k, ino, depth + 1, number && ino, visit, ctx);
		close(sub);
	}
	ents_free(e, n);
	return rc;
}

static void number_state(struct ts_fs_model *m, int state)
{
	pthread_mutex_lock(&m->nlock);
	m->nstate = state;
	pthread_cond_broadcast(&m->ncond);
	pthread_mutex_unlock(&m->nlock);
}

static void number_failed(struct ts_fs *fs, int rc)
{
	struct ts_fs_model *m = fs->model;
	if (rc != -ECANCELED)
		ts_fs_log(fs, LOG_WARNING,
			  "tierfs: warning: cannot number %s's files as the emulated file system "
			  "would (%s); its metadata reads follow the backing inode numbers",
			  fs->backing, rc == -E2BIG ? "more than 16M names" : ts_strerror(rc));
	pthread_mutex_lock(&m->nlock);
	tab_free(&m->nums);
	tab_free(&m->dirs);
	m->nstate = NUM_FAILED;
	pthread_cond_broadcast(&m->ncond);
	pthread_mutex_unlock(&m->nlock);
}

/* The count (above): the inodes in use follow. */
TS_WUR static int number_count(struct ts_fs *fs)
{
	struct ts_fs_model *m = fs->model;
	int fd = openat(fs->root, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	uint64_t total = 0;
	int rc = count_tree(m, fd, FNV_BASIS, 0, &total);
	close(fd);
	if (rc)
		return rc;
	pthread_mutex_lock(&m->nlock);
	m->next_ino = m->fs->first_inode + 1 + total;
	pthread_mutex_unlock(&m->nlock);
	ts_fsmeta_set_inodes(m->meta, m->next_ino);
	number_state(m, NUM_LISTING);
	return 0;
}

/* The numbering thread: the count, then the walk. */
static void *number_main(void *arg)
{
	struct ts_fs *fs = arg;
	struct ts_fs_model *m = fs->model;
	int rc = number_count(fs);
	/* held at the gate (TIERFS_NUMBER_GATE) until a control write of
	 * `numbering=walk` or the unmount */
	pthread_mutex_lock(&m->nlock);
	while (!rc && m->ngate && !__atomic_load_n(&m->nstop, __ATOMIC_RELAXED))
		pthread_cond_wait(&m->ncond, &m->nlock);
	pthread_mutex_unlock(&m->nlock);
	if (!rc) {
		int fd = openat(fs->root, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		rc = fd < 0 ? -errno : 0;
		if (!rc) {
			rc = walk_tree(m, fd, FNV_BASIS, m->fs->first_inode, 0, true, NULL, NULL);
			close(fd);
		}
	}
	if (rc)
		number_failed(fs, rc);
	else
		number_state(m, NUM_DONE);
	return NULL;
}

/* Whether cache= warms the whole backing tree (ts_fs_model_warm). */
static bool warm_whole(const struct ts_fs *fs)
{
	const char *w = fs->o.warm_path;
	return fs->o.cache && strcmp(fs->o.cache, "cold") && (!w || !*w || !strcmp(w, "."));
}

/* Starts numbering the backing tree (above): in a thread of its own, or
 * with @now (the warm walks it, ts_fs_model_warm) only the count, here. */
static void number_start(struct ts_fs *fs, bool now)
{
	struct ts_fs_model *m = fs->model;
	m->nstate = NUM_COUNTING;
	if (now) {
		int rc = number_count(fs);
		if (rc)
			number_failed(fs, rc);
		return;
	}
	/* TIERFS_NUMBER_GATE=1: the walk waits after the count until a
	 * control write of `numbering=walk` (tests make lookups come before
	 * the walk, tests/fs/fsrace.sh) */
	const char *gate = getenv("TIERFS_NUMBER_GATE");
	m->ngate = gate && !strcmp(gate, "1");
	if (pthread_create(&m->nthread, NULL, number_main, fs) == 0)
		m->nthread_started = true;
	else
		number_failed(fs, -EAGAIN);
}

/* Waits until the numbering reaches @state (or failed). */
static void number_wait(struct ts_fs_model *m, int state)
{
	if (__atomic_load_n(&m->nstate, __ATOMIC_ACQUIRE) >= state)
		return;
	pthread_mutex_lock(&m->nlock);
	while (m->nstate < state)
		pthread_cond_wait(&m->ncond, &m->nlock);
	pthread_mutex_unlock(&m->nlock);
}

/* Numbers the names of the folders on the way to @rel[0..len) (relative
 * to the root, no leading '/') that the walk has not numbered yet, from
 * the root down: the number of @rel itself is then known, if the walk
 * gives it one. */
static void number_path(struct ts_fs *fs, const char *rel, size_t len)
{
	struct ts_fs_model *m = fs->model;
	/* the folder @rel is in: the deepest first, the usual case */
	size_t cut = len;
	while (cut && rel[cut - 1] != '/')
		cut--;
	uint64_t pkey = cut ? fnv_on(fnv_on(FNV_BASIS, "/", 1), rel, cut - 1) : FNV_BASIS;
	pthread_mutex_lock(&m->nlock);
	uint32_t *f = tab_get(&m->dirs, pkey);
	bool need = f && !(*f & DIR_LISTED);
	pthread_mutex_unlock(&m->nlock);
	if (!need)
		return;
	char path[4096];
	if (cut >= sizeof(path))
		return;
	/* each folder from the root down to @rel's */
	for (size_t end = 0;;) {
		uint64_t key = end ? fnv_on(fnv_on(FNV_BASIS, "/", 1), rel, end) : FNV_BASIS;
		uint64_t self;
		pthread_mutex_lock(&m->nlock);
		f = tab_get(&m->dirs, key);
		bool listed = f && (*f & DIR_LISTED);
		self = end ? number_known(m, key) : m->fs->first_inode;
		pthread_mutex_unlock(&m->nlock);
		if (!f || !self)
			return; /* not entered by the count, or not numbered: a new name */
		if (!listed) {
			memcpy(path, end ? rel : ".", end ? end : 1);
			path[end ? end : 1] = 0;
			int fd = openat(fs->root, path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			struct ent *e;
			size_t n;
			if (fd < 0)
				return;
			int rc = read_folder(fd, &e, &n);
			close(fd);
			if (rc)
				return;
			rc = number_folder(m, key, self, e, n, true);
			ents_free(e, n);
			if (rc)
				return;
		}
		if (end == (cut ? cut - 1 : 0))
			return;
		/* the next component */
		size_t j = end ? end + 1 : 0;
		while (j < cut - 1 && rel[j] != '/')
			j++;
		end = j;
	}
}

/* The inode the rule gives @rel[0..len) (relative to the root; NULL: the
 * root), or 0 when the tree is not numbered; a name not seen yet takes the
 * next one. */
static uint64_t number_of(struct ts_fs *fs, const char *rel, size_t len)
{
	struct ts_fs_model *m = fs->model;
	if (!m || m->nstate == NUM_OFF)
		return 0;
	number_wait(m, NUM_LISTING);
	if (__atomic_load_n(&m->nstate, __ATOMIC_ACQUIRE) == NUM_FAILED)
		return 0;
	if (!rel)
		return m->fs->root_inode;
	uint64_t key = fnv_on(fnv_on(FNV_BASIS, "/", 1), rel, len);
	pthread_mutex_lock(&m->nlock);
	uint64_t ino = number_known(m, key);
	pthread_mutex_unlock(&m->nlock);
	if (!ino) {
		number_path(fs, rel, len);
		pthread_mutex_lock(&m->nlock);
		ino = number_known(m, key);
		if (!ino && m->nums.n < NUMBER_MAX && !tab_put(&m->nums, key, (uint32_t)m->next_ino))
			ino = m->next_ino++;
		pthread_mutex_unlock(&m->nlock);
	}
	return ino;
}

/* Before an op on @path (absolute) that charges the names on it: waits for
 * the count, numbers its folders now if the walk has not (outside the
 * rule's lock), and with @change (the op makes, removes or renames a name)
 * waits for the whole walk. */
static void number_ready(struct ts_fs *fs, const char *path, bool change)
{
	struct ts_fs_model *m = fs->model;
	if (m->nstate == NUM_OFF)
		return;
	number_wait(m, change ? NUM_DONE : NUM_LISTING);
	if (__atomic_load_n(&m->nstate, __ATOMIC_ACQUIRE) != NUM_LISTING)
		return;
	while (*path == '/')
		path++;
	size_t len = strlen(path);
	while (len && path[len - 1] == '/')
		len--;
	if (len)
		number_path(fs, path, len);
}

int ts_fs_model_start(struct ts_fs *fs, char *err, size_t n)
{
	struct ts_fs_model *m = fs->model;
	struct ts_tier_cfg cfg = fs->cfg;
	struct ts_tier *t;
	int rc;

	cfg.profile = m->profile;
	/* what the caller pays besides the model: FUSE's round trip and, in
	 * block mode, the loop device's hop (calib.c) */
	cfg.floor_ns = fs->floor_ns + fs->loop_hop_ns;
	cfg.evict = evicted;
	cfg.evict_ctx = fs;
	rc = ts_tier_new(&cfg, &t, err, n);
	if (rc)
		return rc;
	if ((rc = add_faults(fs, t, err, n))) {
		ts_tier_free(t);
		return rc;
	}
	if ((rc = ts_fsmeta_new(m->fs, &m->meta))) {
		snprintf(err, n, "tier model: out of memory");
		ts_tier_free(t);
		return rc;
	}
	{ /* the inode tables where mke2fs puts them on a disk of this size */
		struct ts_tier_limits lim;
		ts_tier_limits(t, &lim);
		ts_fsmeta_set_capacity(m->meta, lim.capacity);
	}
	/* block mode charges no names (ts_fs_model_submit); a warm of the
	 * whole tree numbers it as it walks it */
	if (!fs->o.image)
		number_start(fs, warm_whole(fs));
	if (pthread_create(&m->inval, NULL, inval_main, fs) == 0) {
		m->inval_started = true;
	} else {
		snprintf(err, n, "cannot start the page-invalidation thread");
		ts_tier_free(t);
		return -EAGAIN;
	}
	warn_floor(fs, m->profile);
	if (fs->o.fault)
		log_faults(fs, t);
	__atomic_store_n(&m->tier, t, __ATOMIC_RELEASE);
	return 0;
}

void ts_fs_model_close(struct ts_fs *fs)
{
	struct ts_fs_model *m = fs->model;

	if (!m)
		return;
	if (m->inval_started) {
		pthread_mutex_lock(&m->lock);
		m->stop = true;
		pthread_cond_signal(&m->wake);
		pthread_mutex_unlock(&m->lock);
		pthread_join(m->inval, NULL);
	}
	if (m->nthread_started) {
		pthread_mutex_lock(&m->nlock);
		__atomic_store_n(&m->nstop, true, __ATOMIC_RELAXED);
		pthread_cond_broadcast(&m->ncond);
		pthread_mutex_unlock(&m->nlock);
		pthread_join(m->nthread, NULL);
	}
	ts_tier_free(m->tier);
	ts_fsmeta_free(m->meta);
	ts_tier_set_free(m->set);
	for (size_t i = 0; i < m->nfiles; i++)
		free(m->files[i].path);
	free(m->files);
	for (size_t i = 0; i < m->nopens; i++)
		free(m->opens[i].path);
	free(m->opens);
	free(m->queue);
	tab_free(&m->nums);
	tab_free(&m->dirs);
	pthread_cond_destroy(&m->ncond);
	pthread_cond_destroy(&m->wake);
	pthread_mutex_destroy(&m->lock);
	pthread_mutex_destroy(&m->ctl);
	pthread_mutex_destroy(&m->nlock);
	free(m);
	fs->model = NULL;
}

/* How tierfs names its ops in a trace, and to the tier-request rule. */
static const uint16_t op_map[TS_FS_OP_NR] = {
    [TS_FS_GETATTR] = TS_OP_GETATTR,	 [TS_FS_READLINK] = TS_OP_READLINK,
    [TS_FS_MKNOD] = TS_OP_MKNOD,	 [TS_FS_MKDIR] = TS_OP_MKDIR,
    [TS_FS_UNLINK] = TS_OP_UNLINK,	 [TS_FS_RMDIR] = TS_OP_RMDIR,
    [TS_FS_SYMLINK] = TS_OP_SYMLINK,	 [TS_FS_RENAME] = TS_OP_RENAME,
    [TS_FS_LINK] = TS_OP_LINK,		 [TS_FS_CHMOD] = TS_OP_CHMOD,
    [TS_FS_CHOWN] = TS_OP_CHOWN,	 [TS_FS_TRUNCATE] = TS_OP_TRUNCATE,
    [TS_FS_OPEN] = TS_OP_OPEN,		 [TS_FS_CREATE] = TS_OP_CREATE,
    [TS_FS_READ] = TS_OP_READ,		 [TS_FS_WRITE] = TS_OP_WRITE,
    [TS_FS_STATFS] = TS_OP_STATFS,	 [TS_FS_FLUSH] = TS_OP_FLUSH,
    [TS_FS_RELEASE] = TS_OP_CLOSE,	 [TS_FS_FSYNC] = TS_OP_FSYNC,
    [TS_FS_FDATASYNC] = TS_OP_FDATASYNC, [TS_FS_OPENDIR] = TS_OP_OPENDIR,
    [TS_FS_READDIR] = TS_OP_READDIR,	 [TS_FS_RELEASEDIR] = TS_OP_RELEASEDIR,
    [TS_FS_ACCESS] = TS_OP_ACCESS,	 [TS_FS_UTIMENS] = TS_OP_UTIMENS,
    [TS_FS_FALLOCATE] = TS_OP_FALLOCATE,
};

unsigned ts_fs_trace_op(enum ts_fs_op op)
{
	return (unsigned)op < TS_FS_OP_NR ? op_map[op] : TS_OP_NONE;
}

/* What each request asks of the model is the rule replay follows too
 * (traces/tier_rule.h), by the op's name in the trace. */
bool ts_fs_model_charges(enum ts_fs_op op)
{
	return ts_tier_rule_op(ts_fs_trace_op(op)) != TS_TIER_OP_NR;
}

/* The blocks of backing folder @rel as mkfs.ext4 -d (tiersim disk make)
 * makes the folder: linear however large, its names one after the other
 * (ts_fsmeta_dir_blocks), as a replay and the virtual loader size it; not
 * the backing folder's own size and form, which on a host ext4 is often
 * an htree of other blocks (a folder of 2,000 names: 12 blocks hashed on
 * the host, 8 linear on the image). 1 when it cannot be listed. */
static uint64_t backing_dir_blocks(struct ts_fs *fs, const char *rel)
{
	DIR *d;
	if (ts_opendir_at(fs->root, rel, &d))
		return 1;
	uint64_t n = 0, bytes = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		n++;
		bytes += strlen(de->d_name);
	}
	closedir(d);
	return TS_MAX(1, ts_fsmeta_dir_blocks(fs->model->fs, n, bytes));
}

/* What the file system knows of a path: its inode number (the numbering
 * above; else the backing file's), a directory's blocks (tier/fsmeta.h). */
/* @path's first @len bytes, its leading slashes dropped, as @rel (the
 * root: "."), and its stat in the backing tree; *@path and *@len as
 * @rel names it. */
static int backing_rel_stat(const struct ts_fs *fs, const char **path, size_t *len, char *rel,
			    size_t size, struct stat *st)
{
	while (*len && **path == '/')
		(*path)++, (*len)--;
	if (*len >= size)
		return -ENAMETOOLONG;
	memcpy(rel, *len ? *path : ".", *len ? *len : 1);
	rel[*len ? *len : 1] = 0;
	if (fstatat(fs->root, rel, st, AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
		return -errno;
	return 0;
}

static int backing_stat(void *ctx, const char *path, size_t len, struct ts_fsmeta_node *out)
{
	struct ts_fs *fs = ctx;
	char rel[4096];
	struct stat st;
	int rc = backing_rel_stat(fs, &path, &len, rel, sizeof(rel), &st);

	if (rc)
		return rc;
	out->ino = number_of(fs, len ? path : NULL, len);
	if (!out->ino)
		out->ino = (uint64_t)st.st_ino;
	out->blocks = S_ISDIR(st.st_mode) ? backing_dir_blocks(fs, rel) : 0;
	out->htree = false;
	return 0;
}

int ts_fs_model_node(struct ts_fs *fs, const char *path, struct ts_trace_node *out)
{
	struct ts_fs_model *m = fs->model;
	char rel[4096];
	struct stat st;

	if (!m || fs->o.image || m->nstate == NUM_OFF)
		return -ENOENT;
	size_t len = strlen(path);
	while (len && path[len - 1] == '/')
		len--;
	int rc = backing_rel_stat(fs, &path, &len, rel, sizeof(rel), &st);
	if (rc)
		return rc;
	uint64_t ino = number_of(fs, len ? path : NULL, len);
	if (!ino || __atomic_load_n(&m->nstate, __ATOMIC_ACQUIRE) == NUM_FAILED)
		return -ENOENT; /* the backing numbers: not the emulated disk's */
	pthread_mutex_lock(&m->nlock);
	uint64_t used = m->next_ino;
	pthread_mutex_unlock(&m->nlock);
	bool dir = S_ISDIR(st.st_mode);
	*out = (struct ts_trace_node){
	    .ino = ino,
	    .blocks = dir ? backing_dir_blocks(fs, rel) : 0,
	    .backing_ino = (uint64_t)st.st_ino,
	    .inodes = (uint32_t)TS_MIN(used, (uint64_t)UINT32_MAX),
	    .flags = (uint16_t)(TS_NODE_F_SET | (dir ? TS_NODE_F_DIR : 0)),
	};
	return 0;
}

uint64_t ts_fs_model_submit(struct ts_fs *fs, struct ts_fs_req *r)
{
	struct ts_tier *t = model_of(fs);
	unsigned op = ts_fs_trace_op(r->op);
	struct ts_tier_req q = {
		.file = r->file_id,
		.off = r->off,
		.len = r->len,
		.size = r->file_size,
		.direct = r->direct,
		.kernel_ra = r->kernel_ra,
		.path = r->model_path,
	};
	struct ts_fsmeta_io io[TS_FSMETA_MAX_IO];
	unsigned nio = 0;

	r->fault = 0;
	if (!t)
		return 0;
	/* the journal's commit when due (traces/tier_rule.h): an fsync waits
	 * for it, any other op lets it go in the background */
	uint64_t at = ts_tier_rule_journal(fs->model->meta, t, op, r->submit_ns, fs->floor_ns,
					   NULL);
	enum ts_tier_rule_fs kind = ts_tier_rule_fs(op);
	if (ts_tier_rule_fs_walks(kind)) {
		const char *path = r->path ? r->path : r->model_path;
		/* ops that used to be a metadata request still fail as the
		 * fault rules for metadata say */
		if (ts_tier_rule_op(op) == TS_TIER_META) {
			q.op = TS_TIER_META;
			if ((r->fault = ts_tier_fault_check(t, &q)))
				return 0;
		}
		enum ts_fsmeta_change what;
		bool change = ts_tier_rule_fs_change(op, &what);
		if (path && !fs->o.image)
			number_ready(fs, path, change);
		/* block mode: the image is the device, which has no names to
		 * look up or change (the file system on it reads its own
		 * metadata, and those reads come here as the image's) */
		if (path && !fs->o.image) {
			nio = ts_tier_rule_fs_path(fs->model->meta, kind, path, backing_stat, fs,
						   io, TS_FSMETA_MAX_IO);
			if (change)
				ts_fsmeta_dirty(fs->model->meta, r->submit_ns, what, path,
						r->path2, backing_stat, fs);
		}
		return nio ? ts_fsmeta_charge(t, r->submit_ns, fs->floor_ns, io, nio, NULL) : 0;
	}
	if (!ts_tier_rule_req(op, &q))
		return 0;
	/* block mode's request clock (disk/issue.h): a device request is
	 * charged from the loop device's issue, and replied to earlier by
	 * the measured hop from a reply to the kernel's completion and
	 * tierfs's lateness, where its issue is known and both are measured;
	 * else from its receipt, less the mount's hop, as below */
	uint64_t issue_off = 0;
	if (fs->issue && (q.op == TS_TIER_READ || q.op == TS_TIER_WRITE)) {
		r->issue_ns = ts_issue_lookup(fs->issue, r->off, r->len, r->submit_ns);
		if (!r->issue_ns)
			ts_issue_missed(fs->issue);
		if (r->issue_ns && at == r->submit_ns && !fs->issue_watch &&
		    ts_issue_off(fs->issue, r->len, &issue_off))
			at = r->issue_ns;
	}
	if (kind == TS_RULE_FS_READ && r->file_size && !fs->o.image)
		nio = ts_fsmeta_extent(fs->model->meta, r->file_id, r->file_size, r->off, io,
				       TS_FSMETA_MAX_IO);
	if (nio)
		at = ts_fsmeta_charge(t, at, fs->floor_ns, io, nio, NULL) + fs->floor_ns;
	struct ts_tier_done done;
	uint64_t due = ts_tier_submit(t, at, &q, &done);
	r->fault = done.err;
	if (r->issue_ns && at == r->issue_ns) {
		r->issue_end_ns = done.end_ns;
		r->issue_used = true;
		r->issue_off_ns = issue_off;
		return ts_tier_rule_issue_reply(r->submit_ns, done.end_ns, issue_off);
	}
	/* watch: the model's time as if from the issue, to compare only */
	if (r->issue_ns && fs->issue_watch)
		r->issue_end_ns = r->issue_ns + (done.end_ns - at);
	/* block mode: what the request's bytes past 4 KiB and a read's
	 * window cost the loop device's path (calib.c), off its reply too */
	return ts_tier_rule_loop_reply(fs->loop_hop_big_ns, fs->loop_hop_window_ns, q.op, q.len,
				       r->submit_ns, due);
}

void ts_fs_model_forget(struct ts_fs *fs, enum ts_fs_op op, uint64_t ino, uint64_t off,
			uint64_t len, uint32_t mode)
{
	struct ts_tier *t = model_of(fs);
	if (t && ino && ts_tier_rule_forget(ts_fs_trace_op(op), mode, &off, &len))
		ts_tier_forget(t, ino, off, len);
}

/* ---- page-cache state at mount ---- */

struct warm_ctx {
	struct ts_tier *t;
	bool dirty;
	uint64_t *files, *bytes;
};

/* walk_tree's visit: warms each file in turn. */
static int warm_one(void *ctx, int dirfd, const struct ent *e)
{
	struct warm_ctx *w = ctx;
	struct stat st;
	if (!e->dir && !fstatat(dirfd, e->name, &st, AT_SYMLINK_NOFOLLOW) && S_ISREG(st.st_mode)) {
		ts_tier_warm(w->t, 0, st.st_ino, 0, (uint64_t)st.st_size, w->dirty);
		++*w->files;
		*w->bytes += (uint64_t)st.st_size;
	}
	return 0;
}

int ts_fs_model_warm(struct ts_fs *fs, bool dirty, uint64_t *files, uint64_t *bytes, char *err,
		     size_t n)
{
	struct ts_tier *t = model_of(fs);
	*files = *bytes = 0;
	if (!t)
		return 0;
	const char *rel = fs->o.warm_path && *fs->o.warm_path ? fs->o.warm_path : ".";
	/* Beneath the backing only, as every other path tierfs opens. */
	struct open_how how = { .flags = O_RDONLY | O_CLOEXEC | O_NOFOLLOW,
				.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS };
	int fd = (int)syscall(SYS_openat2, fs->root, rel, &how, sizeof(how));
	struct stat st;
	int rc = fd < 0 ? -errno : fstat(fd, &st) ? -errno : 0;
	if (!rc && S_ISREG(st.st_mode)) {
		ts_tier_warm(t, 0, st.st_ino, 0, (uint64_t)st.st_size, dirty);
		*files = 1;
		*bytes = (uint64_t)st.st_size;
		close(fd);
	} else if (!rc && S_ISDIR(st.st_mode)) {
		/* the whole tree: numbered as it is walked (number_start) */
		struct ts_fs_model *m = fs->model;
		bool number = warm_whole(fs) && m->nstate == NUM_LISTING && !m->nthread_started;
		rc = walk_tree(m, fd, FNV_BASIS, m->fs->first_inode, 0, number, warm_one,
			       &(struct warm_ctx){ t, dirty, files, bytes });
		close(fd);
		if (number) /* names it left out are numbered when looked up */
			number_state(m, NUM_DONE);
	} else {
		if (fd >= 0)
			close(fd);
		if (!rc)
			rc = -EINVAL;
	}
	if (rc)
		snprintf(err, n, "cache=%s: cannot read %s/%s: %s", fs->o.cache, fs->backing, rel,
			 rc == -EINVAL	 ? "neither a file nor a folder"
			 : rc == -EXDEV ? "outside the backing directory (warm_path is relative to it)"
					 : ts_strerror(rc));
	return rc;
}

/* ---- kernel-cached files ---- */

bool ts_fs_want_cached(const struct ts_fs *fs, const char *path)
{
	const char *globs = fs->o.cached;
	char one[256];

	if (!globs || !*globs || !path)
		return false;
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	while (*globs) {
		size_t n = strcspn(globs, ":");
		if (n > 0 && n < sizeof(one)) {
			memcpy(one, globs, n);
			one[n] = 0;
			bool has_slash = strchr(one, '/') != NULL;
			if (fnmatch(one, has_slash ? path : base, has_slash ? FNM_PATHNAME : 0) == 0)
				return true;
		}
		globs += n;
		if (*globs == ':')
			globs++;
	}
	return false;
}

void ts_fs_cached_track(struct ts_fs *fs, uint64_t ino, const char *path)
{
	struct ts_fs_model *m = fs->model;
	char *copy;

	if (!m || !path || !(copy = strdup(path)))
		return;
	pthread_mutex_lock(&m->lock);
	for (size_t i = 0; i < m->nfiles; i++)
		if (m->files[i].ino == ino) {
			free(m->files[i].path);
			m->files[i].path = copy;
			copy = NULL;
			break;
		}
	if (copy && m->nfiles == m->cap_files) {
		size_t cap = m->cap_files ? 2 * m->cap_files : 16;
		struct cached_file *nf = realloc(m->files, cap * sizeof(*nf));
		if (nf) {
			m->files = nf;
			m->cap_files = cap;
		}
	}
	if (copy && m->nfiles < m->cap_files) {
		m->files[m->nfiles++] = (struct cached_file){ ino, copy };
		copy = NULL;
	}
	pthread_mutex_unlock(&m->lock);
	free(copy);
}

/* kernel_cache= is in force: a page-cache model, not block mode */
static bool per_open_on(const struct ts_fs *fs)
{
	return fs->o.kernel_cache && strcmp(fs->o.kernel_cache, "off") && fs->cfg.mem > 0 &&
	       !fs->o.bare && !fs->o.image;
}

/*
 * Which files: `all`, or (`small`, the default) a file the kernel's first
 * readahead window reads whole (the window the mount's FUSE_INIT gave,
 * 128 KiB). A larger read of a kernel-cached file goes out as one window
 * after another, each waited for (FUSE's readahead has no larger I/O size
 * than its window, where a block device's has max_sectors_kb): a 240 KiB
 * JPEG read whole took two reads in turn, where direct IO sends the
 * application's read as one and a block device's file system one bio
 * (bench/README.md, issue 18's fs_fidelity rows). A small file loses
 * nothing so: the kernel's one read is the application's, page-rounded.
 */
bool ts_fs_cache_per_open(const struct ts_fs *fs, uint64_t size)
{
	if (!per_open_on(fs))
		return false;
	return !strcmp(fs->o.kernel_cache, "all") || size <= fs->ra_bytes;
}

bool ts_fs_may_cache(const struct ts_fs *fs, const char *path)
{
	return per_open_on(fs) || ts_fs_want_cached(fs, path);
}

/*
 * The files cached per open (kernel_cache=) are opened without keep_cache:
 * the kernel drops a file's pages at each open, so every open's first
 * read of a page reaches the model, and its page cache sees the file's
 * accesses in the order of the opens, as it would every read's. While a
 * handle is open (a mapping holds one), the model's evictions invalidate
 * the file as they do a cached= file's; the list holds only the files
 * open now, not every file ever opened.
 */
void ts_fs_open_track(struct ts_fs *fs, uint64_t ino, const char *path)
{
	struct ts_fs_model *m = fs->model;
	char *copy = NULL;

	if (!m || !path)
		return;
	pthread_mutex_lock(&m->lock);
	for (size_t i = 0; i < m->nopens; i++)
		if (m->opens[i].ino == ino) {
			m->opens[i].refs++;
			pthread_mutex_unlock(&m->lock);
			return;
		}
	if (m->nopens == m->cap_opens) {
		size_t cap = m->cap_opens ? 2 * m->cap_opens : 16;
		struct cached_file *no = realloc(m->opens, cap * sizeof(*no));
		if (no) {
			m->opens = no;
			m->cap_opens = cap;
		}
	}
	if (m->nopens < m->cap_opens && (copy = strdup(path)))
		m->opens[m->nopens++] = (struct cached_file){ ino, copy, 1 };
	pthread_mutex_unlock(&m->lock);
}

void ts_fs_open_untrack(struct ts_fs *fs, uint64_t ino)
{
	struct ts_fs_model *m = fs->model;

	if (!m)
		return;
	pthread_mutex_lock(&m->lock);
	for (size_t i = 0; i < m->nopens; i++)
		if (m->opens[i].ino == ino) {
			if (--m->opens[i].refs == 0) {
				free(m->opens[i].path);
				m->opens[i] = m->opens[--m->nopens];
			}
			break;
		}
	pthread_mutex_unlock(&m->lock);
}

void ts_fs_open_renamed(struct ts_fs *fs, uint64_t ino, const char *path)
{
	struct ts_fs_model *m = fs->model;

	if (!m || !path)
		return;
	pthread_mutex_lock(&m->lock);
	for (size_t i = 0; i < m->nopens; i++)
		if (m->opens[i].ino == ino) {
			char *copy = strdup(path);
			if (copy) {
				free(m->opens[i].path);
				m->opens[i].path = copy;
			}
			break;
		}
	pthread_mutex_unlock(&m->lock);
}

/* The model's evict callback: runs under the model's lock, so it only
 * queues the inode for inval_main(). Files not opened cached have no
 * kernel pages and are skipped. */
static void evicted(void *ctx, uint64_t file, uint64_t off, uint64_t len)
{
	struct ts_fs *fs = ctx;
	struct ts_fs_model *m = fs->model;

	(void)off;
	(void)len;
	pthread_mutex_lock(&m->lock);
	bool tracked = false;
	for (size_t i = 0; i < m->nfiles && !tracked; i++)
		tracked = m->files[i].ino == file;
	for (size_t i = 0; i < m->nopens && !tracked; i++)
		tracked = m->opens[i].ino == file;
	for (size_t i = 0; i < m->nqueue && tracked; i++)
		if (m->queue[i] == file)
			tracked = false; /* already queued */
	if (tracked && m->nqueue == m->cap_queue) {
		size_t cap = m->cap_queue ? 2 * m->cap_queue : 16;
		uint64_t *nq = realloc(m->queue, cap * sizeof(*nq));
		if (nq) {
			m->queue = nq;
			m->cap_queue = cap;
		}
	}
	if (tracked && m->nqueue < m->cap_queue) {
		m->queue[m->nqueue++] = file;
		pthread_cond_signal(&m->wake);
	}
	pthread_mutex_unlock(&m->lock);
}

static void *inval_main(void *arg)
{
	struct ts_fs *fs = arg;
	struct ts_fs_model *m = fs->model;

	pthread_mutex_lock(&m->lock);
	for (;;) {
		while (!m->stop && m->nqueue == 0)
			pthread_cond_wait(&m->wake, &m->lock);
		if (m->stop)
			break;
		uint64_t ino = m->queue[--m->nqueue];
		char *path = NULL;
		for (size_t i = 0; i < m->nfiles && !path; i++)
			if (m->files[i].ino == ino)
				path = strdup(m->files[i].path);
		for (size_t i = 0; i < m->nopens && !path; i++)
			if (m->opens[i].ino == ino)
				path = strdup(m->opens[i].path);
		pthread_mutex_unlock(&m->lock);
		if (path && fs->fuse) {
			int rc = fuse_invalidate_path(fs->fuse, path);
			if (rc == 0)
				__atomic_add_fetch(&fs->invalidations, 1, __ATOMIC_RELAXED);
			/* -ENOENT: the kernel holds no inode for it, so no
			 * pages either; -ENOTCONN/-ENODEV: unmounted, likewise. */
			if (rc && rc != -ENOENT && rc != -ENOTCONN && rc != -ENODEV)
				ts_fs_log(fs, LOG_WARNING,
					  "tierfs: warning: cannot drop the kernel's cached pages "
					  "of %s: %s",
					  path, strerror(-rc));
		}
		free(path);
		pthread_mutex_lock(&m->lock);
	}
	pthread_mutex_unlock(&m->lock);
	return NULL;
}

/* ---- stats and control ---- */

json_t *ts_fs_model_stats(struct ts_fs *fs)
{
	struct ts_tier *t = model_of(fs);
	json_t *st = t ? ts_tier_stats_json(t) : NULL;
	struct ts_fs_model *m = fs->model;
	if (st && !fs->o.image) {
		static const char *const state[] = { "off", "counting", "walking", "done",
						     "failed" };
		pthread_mutex_lock(&m->nlock);
		json_t *o = json_pack("{s:s, s:I, s:I}", "state", state[m->nstate], "names",
				      (json_int_t)m->nums.n, "folders_by_lookup",
				      (json_int_t)m->nlooked);
		pthread_mutex_unlock(&m->nlock);
		if (o)
			json_object_set_new(st, "numbering", o);
	}
	return st;
}

const char *ts_fs_model_tier(struct ts_fs *fs)
{
	struct ts_tier *t = model_of(fs);
	if (t)
		return ts_tier_profile(t)->name;
	return fs->model && fs->model->profile ? fs->model->profile->name : "";
}

void ts_fs_model_last_error(struct ts_fs *fs, char *buf, size_t n)
{
	buf[0] = 0;
	if (!fs->model)
		return;
	pthread_mutex_lock(&fs->model->lock);
	snprintf(buf, n, "%s", fs->model->ctl_err);
	pthread_mutex_unlock(&fs->model->lock);
}

char *ts_fs_model_describe(struct ts_fs *fs)
{
	struct ts_tier *t = model_of(fs);
	struct ts_tier_limits lim;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	char v[64];

	if (!f)
		return NULL;
	if (!t) {
		fprintf(f, "tier=%s\n", fs->o.bare ? "" : ts_fs_model_tier(fs));
	} else {
		ts_tier_limits(t, &lim);
		fprintf(f, "tier=%s\n", ts_tier_profile(t)->name);
		fprintf(f, "capacity=%s\n", ts_fmt_size(v, sizeof(v), lim.capacity));
	}
	for (const struct ts_opt *o = ts_tier_cfg_opts; o->name; o++)
		if (strcmp(o->name, "capacity") != 0 && strcmp(o->name, "floor") != 0)
			fprintf(f, "%s=%s\n", o->name, ts_opt_get(o, &fs->cfg, v, sizeof(v)));
	fprintf(f, "floor=%s\n", ts_fmt_duration(v, sizeof(v), fs->floor_ns));
	fprintf(f, "loop_hop=%s (%s)\n", ts_fmt_duration(v, sizeof(v), fs->loop_hop_ns),
		fs->loop_hop_label ? fs->loop_hop_label : "off");
	fprintf(f, "loop_hop_128k=%s (%s)\n", ts_fmt_duration(v, sizeof(v), fs->loop_hop_big_ns),
		fs->loop_hop_big_ns ? "measured" : "off");
	fprintf(f, "loop_hop_window=%s (%s)\n",
		ts_fmt_duration(v, sizeof(v), fs->loop_hop_window_ns),
		fs->loop_hop_window_ns ? "measured" : "off");
	for (const struct ts_opt *o = ts_fs_opt_table; o->name; o++)
		if (!strncmp(o->name, "ebs_", 4))
			fprintf(f, "%s=%s\n", o->name, ts_opt_get(o, &fs->o, v, sizeof(v)));
	fprintf(f, "bare=%s\n", fs->o.bare ? "true" : "false");
	fprintf(f, "image=%s\n", fs->o.image ? "true" : "false");
	fprintf(f, "cached=%s\n", fs->o.cached ? fs->o.cached : "");
	fprintf(f, "kernel_cache=%s\n", per_open_on(fs) ? fs->o.kernel_cache : "off");
	char *faults = t ? malloc(FAULTS_TEXT_MAX) : NULL;
	if (faults)
		faults_text(t, faults, FAULTS_TEXT_MAX);
	fprintf(f, "fault=%s\n", faults ? faults : "");
	free(faults);
	if (fclose(f)) {
		free(text);
		return NULL;
	}
	return text;
}

static int command(struct ts_fs *fs, char *cmd, char *err, size_t n)
{
	struct ts_fs_model *m = fs->model;
	struct ts_tier *t = model_of(fs);
	const struct ts_tier_profile *p = NULL;
	struct ts_tier_limits lim;
	struct ts_tier_fault add[TS_TIER_MAX_FAULTS], cur[TS_TIER_MAX_FAULTS];
	unsigned nadd = 0;
	uint64_t capacity = 0;
	bool have_cap = false, clear = false, faults = false, walk = false;
	char *save;

	if (!t) {
		snprintf(err, n, "no tier model is running (bare mount, or not calibrated yet)");
		return -EINVAL;
	}
	ts_tier_limits(t, &lim);
	/* Everything is checked before anything changes. */
	for (char *kv = strtok_r(cmd, " \t\r\n,", &save); kv; kv = strtok_r(NULL, " \t\r\n,", &save)) {
		char *val = strchr(kv, '=');
		if (!val) {
			snprintf(err, n, "'%s': expected key=value (tier=NAME, capacity=SIZE, fault=RULE)",
				 kv);
			return TS_E_PARSE;
		}
		*val++ = 0;
		if (strcmp(kv, "tier") == 0) {
			int rc = ts_tier_set_lookup(m->set, val, &p, err, n);
			if (rc)
				return rc;
		} else if (strcmp(kv, "capacity") == 0) {
			int rc = ts_parse_size(val, &capacity);
			if (rc) {
				snprintf(err, n, "capacity: cannot parse '%s' (a size such as 500GiB)",
					 val);
				return rc;
			}
			have_cap = true;
		} else if (strcmp(kv, "fault") == 0) {
			faults = true;
			if (strcmp(val, "clear") == 0) {
				clear = true;
				nadd = 0;
				continue;
			}
			unsigned k;
			int rc = parse_faults(val, NULL, add + nadd, TS_TIER_MAX_FAULTS - nadd, &k,
					      err, n);
			if (rc)
				return rc;
			nadd += k;
		} else if (strcmp(kv, "numbering") == 0) {
			/* a walk held at the gate goes on (number_main) */
			if (strcmp(val, "walk") != 0) {
				snprintf(err, n, "numbering: expected walk, not '%s'", val);
				return TS_E_PARSE;
			}
			walk = true;
		} else if (ts_opt_find(ts_fs_opt_table, kv) || ts_opt_find(ts_tier_cfg_opts, kv)) {
			snprintf(err, n,
				 "'%s' cannot be changed while mounted (only tier, capacity, fault)", kv);
			return TS_E_UNKNOWN;
		} else {
			snprintf(err, n, "unknown key '%s' (control takes tier, capacity, fault)", kv);
			return TS_E_UNKNOWN;
		}
	}
	unsigned have = clear ? 0 : ts_tier_fault_list(t, cur, TS_TIER_MAX_FAULTS);
	if (have + nadd > TS_TIER_MAX_FAULTS) {
		snprintf(err, n, "fault: %u rules in force and %u more exceed the %d allowed "
			 "(fault=clear drops them)", have, nadd, TS_TIER_MAX_FAULTS);
		return -ENOSPC;
	}
	if (p && ts_tier_ebs_any(&fs->cfg.ebs) && !ts_tier_is_ebs(p)) {
		snprintf(err, n, "tier=%s: this mount caps an EBS volume by its instance's limits "
				 "(ebs_*), and %s is not one (an aws-* tier)", p->name, p->name);
		return -EINVAL;
	}
	if (p || have_cap) {
		if (!p)
			p = ts_tier_profile(t);
		/* A new tier without a capacity takes its own default. */
		if (!have_cap)
			capacity = p == ts_tier_profile(t) ? lim.capacity : 0;
		int rc = ts_tier_switch(t, p, capacity, err, n);
		if (rc)
			return rc;
		ts_tier_limits(t, &lim);
		/* the inode tables where mke2fs puts them at the new size */
		if (m->meta)
			ts_fsmeta_set_capacity(m->meta, lim.capacity);
		char c[32];
		ts_fs_log(fs, LOG_INFO, "tierfs: tier switched to %s at %s", p->name,
			  ts_fmt_size(c, sizeof(c), lim.capacity));
		warn_floor(fs, p);
	}
	if (clear)
		ts_tier_fault_clear(t);
	for (unsigned i = 0; i < nadd; i++) {
		/* Checked above: only a rule the layer refuses can fail here. */
		int rc = ts_tier_fault_add(t, &add[i]);
		if (rc) {
			snprintf(err, n, "fault: cannot add a rule: %s", ts_strerror(rc));
			return rc;
		}
	}
	if (faults)
		log_faults(fs, t);
	if (walk) {
		pthread_mutex_lock(&m->nlock);
		m->ngate = false;
		pthread_cond_broadcast(&m->ncond);
		pthread_mutex_unlock(&m->nlock);
	}
	return 0;
}

int ts_fs_model_command(struct ts_fs *fs, const char *cmd, char *err, size_t n)
{
	struct ts_fs_model *m = fs->model;
	char *copy = strdup(cmd);
	int rc;

	err[0] = 0;
	if (!copy)
		return -ENOMEM;
	if (!m) {
		snprintf(err, n, "bare mount: there is no tier to switch");
		free(copy);
		rc = -EINVAL;
	} else {
		pthread_mutex_lock(&m->ctl);
		rc = command(fs, copy, err, n);
		pthread_mutex_unlock(&m->ctl);
		free(copy);
		pthread_mutex_lock(&m->lock);
		snprintf(m->ctl_err, sizeof(m->ctl_err), "%s", rc ? err : "");
		pthread_mutex_unlock(&m->lock);
	}
	return rc;
}
