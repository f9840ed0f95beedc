/*
 * wake_bpf.c — the user half of the BPF wake capture (wake_bpf.h): finds
 * in the kernel's BTF where the fields the programs read sit, loads
 * wake_bpf.bpf.c, names the tree's root to it, drains its ring into the
 * parser and, at the end, reads each thread's totals from its map.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <linux/btf.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "traces/wake_bpf.h"
#include "traces/wake_bpf_rec.h"
#include "traces/wake_bpf.skel.h" /* generated: traces/meson.build */

/* a slot of the programs' data is one cache line (wake_bpf_rec.h) */
_Static_assert(sizeof(struct ts_wake_bpf_state) == 64, "a thread's state is not 64 bytes");

struct ts_wake_bpf {
	struct wake_bpf *skel;
	struct ring_buffer *ring;
	struct ts_wakes_parser *parser;
	pthread_t reader;
	bool running;
	atomic_bool stop;
	int err; /* the reader's: -ENOMEM */
	struct bpf_link *links[16];
	size_t nlinks;
	bool no_handoffs; /* ts_wake_bpf_no_handoffs: the system call program unattached */
};

/* libbpf's own messages would be lines of their own: the reason a load
 * failed goes into @why instead */
static int quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

/*
 * The kernel's BTF (/sys/kernel/btf/vmlinux), read for the few offsets
 * the programs need: the file once into memory, an index of where each
 * type starts, and a look-up by name. libbpf's parser does far more (it
 * checks every type and builds its own tables: 12 ms of CPU here).
 */
struct kbtf {
	const char *types, *strs; /* the type section, the string section */
	uint32_t str_len;
	const struct btf_type **by_id; /* [id], id 0 = void */
	uint32_t n;
};

/* bytes after a type's struct btf_type; -1 for a kind not known */
static long type_extra(const struct btf_type *t)
{
	uint32_t vlen = BTF_INFO_VLEN(t->info);
	switch (BTF_INFO_KIND(t->info)) {
	case BTF_KIND_INT:
	case BTF_KIND_VAR:
	case BTF_KIND_DECL_TAG:
		return 4;
	case BTF_KIND_PTR:
	case BTF_KIND_FWD:
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_FUNC:
	case BTF_KIND_FLOAT:
	case BTF_KIND_TYPE_TAG:
		return 0;
	case BTF_KIND_ARRAY:
		return sizeof(struct btf_array);
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		return (long)vlen * (long)sizeof(struct btf_member);
	case BTF_KIND_ENUM:
		return (long)vlen * (long)sizeof(struct btf_enum);
	case BTF_KIND_FUNC_PROTO:
		return (long)vlen * (long)sizeof(struct btf_param);
	case BTF_KIND_DATASEC:
		return (long)vlen * (long)sizeof(struct btf_var_secinfo);
	case BTF_KIND_ENUM64:
		return (long)vlen * (long)sizeof(struct btf_enum64);
	}
	return -1;
}

static const char *btf_name(const struct kbtf *k, uint32_t off)
{
	return off < k->str_len ? k->strs + off : "";
}

/* Indexes @buf (@len bytes, the whole file); 0 or -EINVAL. */
static int kbtf_index(struct kbtf *k, const char *buf, size_t len)
{
	const struct btf_header *h = (const void *)buf;
	if (len < sizeof(*h) || h->magic != BTF_MAGIC || h->hdr_len > len ||
	    (uint64_t)h->hdr_len + h->type_off + h->type_len > len ||
	    (uint64_t)h->hdr_len + h->str_off + h->str_len > len || (h->type_off & 3))
		return -EINVAL;
	k->types = buf + h->hdr_len + h->type_off;
	k->strs = buf + h->hdr_len + h->str_off;
	k->str_len = h->str_len;
	size_t cap = 1 << 17;
	k->by_id = malloc(cap * sizeof(*k->by_id));
	if (!k->by_id)
		return -ENOMEM;
	k->by_id[0] = NULL;
	k->n = 1;
	for (size_t off = 0; off + sizeof(struct btf_type) <= h->type_len;) {
		const struct btf_type *t = (const void *)(k->types + off);
		long extra = type_extra(t);
		if (extra < 0 || off + sizeof(*t) + (size_t)extra > h->type_len)
			return -EINVAL;
		if (k->n == cap) {
			const struct btf_type **g = realloc(k->by_id, 2 * cap * sizeof(*g));
			if (!g)
				return -ENOMEM;
			k->by_id = g;
			cap *= 2;
		}
		k->by_id[k->n++] = t;
		off += sizeof(*t) + (size_t)extra;
	}
	return 0;
}

static const struct btf_type *kbtf_type(const struct kbtf *k, uint32_t id)
{
	return id && id < k->n ? k->by_id[id] : NULL;
}

/* The first struct named @name with its members (a declaration has none). */
static const struct btf_type *kbtf_struct(const struct kbtf *k, const char *name)
{
	for (uint32_t id = 1; id < k->n; id++) {
		const struct btf_type *t = k->by_id[id];
		if (BTF_INFO_KIND(t->info) == BTF_KIND_STRUCT && BTF_INFO_VLEN(t->info) &&
		    !strcmp(btf_name(k, t->name_off), name))
			return t;
	}
	return NULL;
}

/* The byte offset of member @name of struct or union @t, found in an
 * anonymous struct or union inside it too; -1: none, or a bit field. */
static long kbtf_member(const struct kbtf *k, const struct btf_type *t, const char *name,
			int depth)
{
	int kind = t ? BTF_INFO_KIND(t->info) : 0;
	if ((kind != BTF_KIND_STRUCT && kind != BTF_KIND_UNION) || depth > 8)
		return -1;
	const struct btf_member *m = (const void *)(t + 1);
	for (uint32_t i = 0; i < BTF_INFO_VLEN(t->info); i++) {
		uint32_t bits = BTF_INFO_KFLAG(t->info) ? BTF_MEMBER_BIT_OFFSET(m[i].offset)
							: m[i].offset;
		bool field = BTF_INFO_KFLAG(t->info) && BTF_MEMBER_BITFIELD_SIZE(m[i].offset);
		if (m[i].name_off) {
			if (!strcmp(btf_name(k, m[i].name_off), name))
				return field || bits % 8 ? -1 : (long)(bits / 8);
			continue;
		}
		const struct btf_type *mt = kbtf_type(k, m[i].type);
		while (mt && (BTF_INFO_KIND(mt->info) == BTF_KIND_TYPEDEF ||
			      BTF_INFO_KIND(mt->info) == BTF_KIND_CONST ||
			      BTF_INFO_KIND(mt->info) == BTF_KIND_VOLATILE ||
			      BTF_INFO_KIND(mt->info) == BTF_KIND_TYPE_TAG))
			mt = kbtf_type(k, mt->type);
		long in = kbtf_member(k, mt, name, depth + 1);
		if (in >= 0 && bits % 8 == 0)
			return (long)(bits / 8) + in;
	}
	return -1;
}

/* Where per-CPU variable @name sits in the per-CPU section; -1: not there. */
static long kbtf_percpu(const struct kbtf *k, const char *name)
{
	for (uint32_t id = k->n; id-- > 1;) { /* the section comes last */
		const struct btf_type *t = k->by_id[id];
		if (BTF_INFO_KIND(t->info) != BTF_KIND_DATASEC ||
		    strcmp(btf_name(k, t->name_off), ".data..percpu"))
			continue;
		const struct btf_var_secinfo *v = (const void *)(t + 1);
		for (uint32_t i = 0; i < BTF_INFO_VLEN(t->info); i++) {
			const struct btf_type *var = kbtf_type(k, v[i].type);
			if (var && BTF_INFO_KIND(var->info) == BTF_KIND_VAR &&
			    !strcmp(btf_name(k, var->name_off), name))
				return v[i].offset;
		}
		return -1;
	}
	return -1;
}

/* What the programs need to know of the running kernel (wake_bpf.bpf.c). */
struct offsets {
	long long pid, tgid, exit_state, cfs_rq, cfs_rq_rq, rq_cpu, preempt;
	/* the hand-offs' (-1: one not found, hand-offs not captured) */
	long long files, fdt, fdt_fd, fdt_max, f_inode, f_private, i_mode;
	long long i_ino; /* the advices' (-1: not found, advices not captured) */
};

/*
 * The offsets are kept between recordings: the kernel's BTF cannot
 * change while it runs, so what one recording found holds for every
 * other until the next boot, and finding it (below) took 1.6 ms of CPU
 * of the 3.5 ms the BPF capture took to open. They live in
 * $XDG_CACHE_HOME/tiersim/wake_bpf_offsets (or ~/.cache/...), keyed by
 * the boot's id and the BTF's size; a file that is not the caller's
 * own, or that others may write, is neither read nor replaced.
 */
#define CACHE_MAGIC "tiersim-wake-bpf-offsets-3"

static bool cache_path(char *p, size_t n, bool dir)
{
	const char *x = getenv("XDG_CACHE_HOME"), *h = getenv("HOME");
	int len;
	if (x && *x == '/')
		len = snprintf(p, n, "%s/tiersim%s", x, dir ? "" : "/wake_bpf_offsets");
	else if (h && *h == '/')
		len = snprintf(p, n, "%s/.cache/tiersim%s", h, dir ? "" : "/wake_bpf_offsets");
	else
		return false;
	return len > 0 && (size_t)len < n;
}

/* This boot's id and the BTF's size, as one word; false: no id. */
static bool cache_key(char *key, size_t n, off_t btf_size)
{
	char id[64];
	int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
	ssize_t r = fd < 0 ? -1 : read(fd, id, sizeof(id) - 1);
	if (fd >= 0)
		close(fd);
	if (r < 32)
		return false;
	id[strcspn(id, "\n")] = 0;
	int len = snprintf(key, n, "%s/%lld", id, (long long)btf_size);
	return len > 0 && (size_t)len < n;
}

static bool cache_get(const char *key, struct offsets *o)
{
	char path[4096], buf[512], k[128];
	struct stat st;
	if (!cache_path(path, sizeof(path), false))
		return false;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return false;
	ssize_t n = -1;
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
	    !(st.st_mode & 022))
		n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = 0;
	return sscanf(buf,
		      CACHE_MAGIC " %127s %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld "
				  "%lld %lld %lld",
		      k, &o->pid, &o->tgid, &o->exit_state, &o->cfs_rq, &o->cfs_rq_rq, &o->rq_cpu,
		      &o->preempt, &o->files, &o->fdt, &o->fdt_fd, &o->fdt_max, &o->f_inode,
		      &o->f_private, &o->i_mode, &o->i_ino) == 16 &&
	       !strcmp(k, key);
}

/* Written whole under another name and renamed; a failure costs only the
 * next recording's parse. */
static void cache_put(const char *key, const struct offsets *o)
{
	char dir[4096], path[4096], tmp[4200];
	struct stat st;
	if (!cache_path(dir, sizeof(dir), true) || !cache_path(path, sizeof(path), false))
		return;
	char *slash = strrchr(dir, '/');
	*slash = 0; /* the cache folder itself, made if missing */
	(void)mkdir(dir, 0700);
	*slash = '/';
	if (mkdir(dir, 0700) && errno != EEXIST)
		return;
	if (lstat(dir, &st) || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 022))
		return;
	if (!lstat(path, &st) && (st.st_uid != geteuid() || !S_ISREG(st.st_mode)))
		return;
	snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path);
	int fd = mkstemp(tmp);
	if (fd < 0)
		return;
	FILE *f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		unlink(tmp);
		return;
	}
	fprintf(f,
		CACHE_MAGIC " %s %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld "
			    "%lld %lld\n",
		key, o->pid, o->tgid, o->exit_state, o->cfs_rq, o->cfs_rq_rq, o->rq_cpu,
		o->preempt, o->files, o->fdt, o->fdt_fd, o->fdt_max, o->f_inode, o->f_private,
		o->i_mode, o->i_ino);
	if (fclose(f) || rename(tmp, path))
		unlink(tmp);
}

static void set_rodata(struct wake_bpf *skel, const struct offsets *o)
{
	skel->rodata->task_pid = (uint32_t)o->pid;
	skel->rodata->task_tgid = (uint32_t)o->tgid;
	skel->rodata->task_exit_state = (uint32_t)o->exit_state;
	skel->rodata->task_cfs_rq = (uint32_t)o->cfs_rq;
	skel->rodata->cfs_rq_rq = (uint32_t)o->cfs_rq_rq;
	skel->rodata->rq_cpu = (uint32_t)o->rq_cpu;
	skel->rodata->rq_preempt_count = (int64_t)o->preempt;
	bool h = o->files >= 0 && o->fdt >= 0 && o->fdt_fd >= 0 && o->fdt_max >= 0 &&
		 o->f_inode >= 0 && o->f_private >= 0 && o->i_mode >= 0;
	skel->rodata->handoffs = h;
	skel->rodata->task_files = h ? (uint32_t)o->files : 0;
	skel->rodata->files_fdt = h ? (uint32_t)o->fdt : 0;
	skel->rodata->fdt_fd = h ? (uint32_t)o->fdt_fd : 0;
	skel->rodata->fdt_max = h ? (uint32_t)o->fdt_max : 0;
	skel->rodata->file_inode = h ? (uint32_t)o->f_inode : 0;
	skel->rodata->file_private = h ? (uint32_t)o->f_private : 0;
	skel->rodata->inode_mode = h ? (uint32_t)o->i_mode : 0;
	/* the advices read the fd's file as the hand-offs do, then its inode's
	 * number */
	bool a = h && o->i_ino >= 0;
	skel->rodata->advices = a;
	skel->rodata->inode_ino = a ? (uint32_t)o->i_ino : 0;
}

/* Sets the programs' offsets (wake_bpf.bpf.c) from the cache, or from the
 * kernel's BTF; 0, or -errno with the reason in @why. */
static int set_offsets(struct wake_bpf *skel, char *why, size_t whylen)
{
	const char *path = "/sys/kernel/btf/vmlinux";
	struct stat st;
	struct kbtf k = {0};
	struct offsets o;
	char *buf = MAP_FAILED, key[128];
	size_t len = 0;
	int e = 0, fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st))
		e = -errno;
	else if (st.st_size <= 0)
		e = -EINVAL; /* a BTF of no size: nothing to read the offsets from */
	if (e) {
		snprintf(why, whylen, "%s: %s", path, strerror(-e));
		goto out;
	}
	bool keyed = cache_key(key, sizeof(key), st.st_size);
	if (keyed && cache_get(key, &o)) {
		set_rodata(skel, &o);
		goto out;
	}
	/* The file mapped where the kernel lets it be (6.16 and later): read(),
	 * which sysfs serves a page per call (1,347 calls for this kernel's
	 * 5.5 MB), took 4.7 ms of the 7.6 ms CPU this function took; the
	 * mapping 0.1 ms. Elsewhere, read into memory of sysfs's size. */
	buf = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (buf != MAP_FAILED)
		len = (size_t)st.st_size;
	else
		buf = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (buf == MAP_FAILED) {
		e = -errno;
		snprintf(why, whylen, "%s: %s", path, strerror(errno));
		goto out;
	}
	while (len < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + len, (size_t)st.st_size - len);
		if (n <= 0) {
			e = n ? -errno : -EIO;
			snprintf(why, whylen, "%s: %s", path, n ? strerror(errno) : "short read");
			goto out;
		}
		len += (size_t)n;
	}
	if ((e = kbtf_index(&k, buf, len))) {
		snprintf(why, whylen, "%s: %s", path,
			 e == -ENOMEM ? strerror(ENOMEM) : "not BTF this program reads");
		goto out;
	}
	const struct btf_type *task = kbtf_struct(&k, "task_struct");
	const struct btf_type *se = kbtf_struct(&k, "sched_entity");
	const struct btf_type *cfs_rq = kbtf_struct(&k, "cfs_rq");
	const struct btf_type *rq = kbtf_struct(&k, "rq");
	long pid = kbtf_member(&k, task, "pid", 0), tgid = kbtf_member(&k, task, "tgid", 0);
	long exit_state = kbtf_member(&k, task, "exit_state", 0);
	long se_off = kbtf_member(&k, task, "se", 0), se_cfs_rq = kbtf_member(&k, se, "cfs_rq", 0);
	long rq_of = kbtf_member(&k, cfs_rq, "rq", 0), cpu = kbtf_member(&k, rq, "cpu", 0);
	long rqs = kbtf_percpu(&k, "runqueues"), pc = kbtf_percpu(&k, "__preempt_count");
	const struct btf_type *files = kbtf_struct(&k, "files_struct");
	const struct btf_type *fdt = kbtf_struct(&k, "fdtable");
	const struct btf_type *file = kbtf_struct(&k, "file");
	if (pc < 0) { /* 6.2 to 6.14: in struct pcpu_hot */
		long hot = kbtf_percpu(&k, "pcpu_hot");
		long in = kbtf_member(&k, kbtf_struct(&k, "pcpu_hot"), "preempt_count", 0);
		pc = hot >= 0 && in >= 0 ? hot + in : -1;
	}
	const char *missing = pid < 0		 ? "task_struct.pid"
			      : tgid < 0	 ? "task_struct.tgid"
			      : exit_state < 0	 ? "task_struct.exit_state"
			      : se_off < 0	 ? "task_struct.se"
			      : se_cfs_rq < 0	 ? "sched_entity.cfs_rq (CONFIG_FAIR_GROUP_SCHED)"
			      : rq_of < 0	 ? "cfs_rq.rq"
			      : cpu < 0		 ? "rq.cpu"
			      : rqs < 0		 ? "the per-CPU runqueues"
			      : pc < 0		 ? "the per-CPU preempt count"
						 : NULL;
	if (missing) {
		e = -ENOENT;
		snprintf(why, whylen, "%s: no %s", path, missing);
		goto out;
	}
	o = (struct offsets){.pid = pid,
			     .tgid = tgid,
			     .exit_state = exit_state,
			     .cfs_rq = se_off + se_cfs_rq,
			     .cfs_rq_rq = rq_of,
			     .rq_cpu = cpu,
			     .preempt = (long long)pc - (long long)rqs,
			     .files = kbtf_member(&k, task, "files", 0),
			     .fdt = kbtf_member(&k, files, "fdt", 0),
			     .fdt_fd = kbtf_member(&k, fdt, "fd", 0),
			     .fdt_max = kbtf_member(&k, fdt, "max_fds", 0),
			     .f_inode = kbtf_member(&k, file, "f_inode", 0),
			     .f_private = kbtf_member(&k, file, "private_data", 0),
			     .i_mode = kbtf_member(&k, kbtf_struct(&k, "inode"), "i_mode", 0),
			     .i_ino = kbtf_member(&k, kbtf_struct(&k, "inode"), "i_ino", 0)};
	set_rodata(skel, &o);
	if (keyed)
		cache_put(key, &o);
out:
	free(k.by_id);
	if (buf != MAP_FAILED)
		munmap(buf, (size_t)st.st_size);
	if (fd >= 0)
		close(fd);
	return e;
}

int ts_wake_bpf_open(struct ts_wake_bpf **out, size_t ring_kb, char *why, size_t whylen)
{
	struct ts_wake_bpf *b = calloc(1, sizeof(*b));
	int e;

	*out = NULL;
	if (!b)
		return -ENOMEM;
	libbpf_set_print(quiet);
	b->skel = wake_bpf__open();
	if (!b->skel) {
		e = -errno;
		snprintf(why, whylen, "opening the BPF programs: %s", strerror(errno));
		free(b);
		return e ? e : -EINVAL;
	}
	/* a power of two of pages, as the kernel's ring wants */
	size_t ring = (size_t)sysconf(_SC_PAGESIZE);
	while (ring < ring_kb * 1024 && ring < (1UL << 30))
		ring *= 2;
	if ((e = set_offsets(b->skel, why, whylen))) {
		ts_wake_bpf_free(b);
		return e;
	}
	if ((e = bpf_map__set_max_entries(b->skel->maps.recs, (uint32_t)ring)) ||
	    (e = wake_bpf__load(b->skel))) {
		snprintf(why, whylen, "loading the BPF programs: %s%s", strerror(-e),
			 e == -EPERM ? " (needs CAP_BPF and CAP_PERFMON)" : "");
		ts_wake_bpf_free(b);
		return e;
	}
	*out = b;
	return 0;
}

static bool handoffs_on(const struct ts_wake_bpf *b)
{
	return (b->skel->rodata->handoffs || b->skel->rodata->advices) && !b->no_handoffs;
}

void ts_wake_bpf_no_handoffs(struct ts_wake_bpf *b)
{
	b->no_handoffs = true;
}

static int attach(struct ts_wake_bpf *b)
{
	struct bpf_program *p;
	bpf_object__for_each_program(p, b->skel->obj)
	{
		/* the hand-offs' program (on every system call of the host)
		 * only where they are asked for and their offsets are known */
		if (p == b->skel->progs.on_sys_exit && !handoffs_on(b))
			continue;
		if (b->nlinks == TS_ARRAY_SIZE(b->links))
			return -E2BIG;
		struct bpf_link *k = bpf_program__attach(p);
		if (!k)
			return -errno;
		b->links[b->nlinks++] = k;
	}
	return 0;
}

static void detach(struct ts_wake_bpf *b)
{
	/* in the reverse order */
	while (b->nlinks)
		bpf_link__destroy(b->links[--b->nlinks]);
}

static int on_rec(void *ctx, void *data, size_t len)
{
	struct ts_wake_bpf *b = ctx;
	const struct ts_wake_bpf_rec *r = data;
	struct ts_wakes_event ev = {.t_ns = r->t_ns, .a = r->a, .b = r->b};
	int e = 0;

	if (len < sizeof(*r))
		return 0;
	switch (r->type) {
	case TS_WAKE_BPF_WAKE: {
		struct ts_wake w = {
		    .t_ns = r->t_ns, .since_ns = r->since_ns, .wakee = r->a, .waker = r->b};
		e = ts_wakes_parser_wake(b->parser, &w);
		break;
	}
	case TS_WAKE_BPF_SLEEP: {
		struct ts_sleep z = {
		    .t_ns = r->t_ns, .since_ns = r->since_ns, .tid = r->a, .waker = r->b};
		e = ts_wakes_parser_sleep(b->parser, &z);
		break;
	}
	case TS_WAKE_BPF_PAUSE: {
		struct ts_sleep z = {.t_ns = r->t_ns, .since_ns = r->since_ns, .tid = r->a};
		e = ts_wakes_parser_pause(b->parser, &z);
		break;
	}
	case TS_WAKE_BPF_FORK:
		ev.type = TS_WAKES_FORK;
		ev.cur = r->a;
		ev.tgid = r->c;
		ev.str = r->comm;
		ev.len = strnlen(r->comm, sizeof(r->comm));
		e = ts_wakes_parser_event(b->parser, &ev);
		break;
	case TS_WAKE_BPF_EXEC:
		ev.type = TS_WAKES_EXEC;
		ev.cur = r->a;
		ev.str = r->comm;
		ev.len = strnlen(r->comm, sizeof(r->comm));
		e = ts_wakes_parser_event(b->parser, &ev);
		break;
	case TS_WAKE_BPF_EXIT:
		ev.type = TS_WAKES_EXIT;
		ev.cur = r->a;
		e = ts_wakes_parser_event(b->parser, &ev);
		break;
	case TS_WAKE_BPF_GONE: /* its totals, final */
		e = ts_wakes_parser_times(b->parser, r->a, r->times[0], r->times[1]);
		break;
	case TS_WAKE_BPF_PIPE_W:
	case TS_WAKE_BPF_PIPE_R:
		e = ts_wakes_parser_pipe(b->parser, r->type == TS_WAKE_BPF_PIPE_W, r->t_ns, r->a,
					 r->b | (uint64_t)r->c << 32, r->since_ns);
		break;
	case TS_WAKE_BPF_ADVICE: {
		struct ts_advice a = {.t_ns = r->t_ns,
				      .ino = r->since_ns,
				      .off = r->times[0],
				      .len = r->times[1],
				      .tid = r->a,
				      .fd = r->b,
				      .advice = r->c};
		e = ts_wakes_parser_advice(b->parser, &a);
		break;
	}
	}
	if (e < 0) {
		b->err = e;
		return e; /* stops the drain */
	}
	return 0;
}

/* Drains the ring while the command runs: the programs wake nobody per
 * record (BPF_RB_NO_WAKEUP), so the reader looks every 20 ms, far less
 * than the ring takes to fill. */
static void *reader_main(void *arg)
{
	struct ts_wake_bpf *b = arg;
	while (!atomic_load(&b->stop) && !b->err) {
		if (ring_buffer__consume(b->ring) < 0 && !b->err)
			b->err = -EIO;
		struct timespec ts = {0, 20 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	return NULL;
}

int ts_wake_bpf_start(struct ts_wake_bpf *b, pid_t pid, struct ts_wakes_parser *p, char *why,
		      size_t whylen)
{
	uint32_t root = (uint32_t)pid;
	int e;

	b->parser = p;
	b->ring = ring_buffer__new(bpf_map__fd(b->skel->maps.recs), on_rec, b, NULL);
	if (!b->ring) {
		e = -errno;
		snprintf(why, whylen, "the BPF ring: %s", strerror(errno));
		return e ? e : -ENOMEM;
	}
	/* the root, by its id until a program meets it (wake_bpf.bpf.c) */
	b->skel->bss->root_tid = root;
	if ((e = attach(b))) {
		detach(b);
		snprintf(why, whylen, "attaching the BPF programs: %s", strerror(-e));
		return e;
	}
	if ((e = -pthread_create(&b->reader, NULL, reader_main, b))) {
		detach(b);
		snprintf(why, whylen, "starting the scheduler reader: %s", strerror(-e));
		return e;
	}
	b->running = true;
	return 0;
}

/* TIERSIM_WAKE_BPF_STATS set: each program's runs and the kernel's time in
 * them, to stderr (what the capture costs the scheduler per event; the
 * kernel counts the time only while kernel.bpf_stats_enabled is 1). */
static void print_stats(const struct ts_wake_bpf *b)
{
	const char *env = getenv("TIERSIM_WAKE_BPF_STATS");
	struct bpf_program *p;
	if (!env || !*env)
		return;
	bpf_object__for_each_program(p, b->skel->obj)
	{
		struct bpf_prog_info info;
		uint32_t len = sizeof(info);
		memset(&info, 0, sizeof(info));
		if (bpf_obj_get_info_by_fd(bpf_program__fd(p), &info, &len))
			continue;
		fprintf(stderr, "wake capture BPF: %s %llu runs %llu ns\n", bpf_program__name(p),
			(unsigned long long)info.run_cnt, (unsigned long long)info.run_time_ns);
	}
}

/* A thread's totals to the parser; one still on a CPU, to @end_ns. */
static void thread_times(struct ts_wake_bpf *b, const struct ts_wake_bpf_state *st,
			 uint64_t end_ns)
{
	uint64_t on = st->oncpu_ns;
	if (st->on_since && end_ns > st->on_since)
		on += end_ns - st->on_since;
	(void)ts_wakes_parser_times(b->parser, (uint32_t)st->tid, on, st->runq_ns);
}

int ts_wake_bpf_stop(struct ts_wake_bpf *b, uint64_t end_ns, uint64_t *lost, char *why,
		     size_t whylen)
{
	*lost = 0;
	detach(b);
	print_stats(b);
	if (b->running) {
		atomic_store(&b->stop, true);
		pthread_join(b->reader, NULL);
		b->running = false;
	}
	if (!b->err && b->ring && ring_buffer__consume(b->ring) < 0 && !b->err)
		b->err = -EIO;
	if (b->err) {
		snprintf(why, whylen, "reading the scheduler records: %s", strerror(-b->err));
		return b->err;
	}
	*lost = b->skel->bss->lost;
	if (!b->no_handoffs && !b->skel->rodata->handoffs)
		fprintf(stderr, "tiersim record: notice: the kernel's BTF does not place the fields the pipe "
				"hand-offs read; the wake file has none\n");
	else if (b->skel->bss->pipes_lost)
		fprintf(stderr,
			"tiersim record: notice: %llu pipe calls on pipes past the capture's 4,096; their "
			"hand-offs are missing\n",
			(unsigned long long)b->skel->bss->pipes_lost);
	if (b->skel->bss->blind) {
		snprintf(why, whylen,
			 "%llu wakes in a context the BPF programs could not tell (the current "
			 "task's run queue was not its CPU's); none written",
			 (unsigned long long)b->skel->bss->blind);
		return -EPROTO;
	}
	/* each living thread's totals (a dead one's came with its GONE
	 * record), from its slot or the map; one still on a CPU at the end,
	 * to the end */
	for (size_t i = 0; i < TS_WAKE_BPF_SLOTS; i++)
		if (b->skel->bss->slot[i].task)
			thread_times(b, &b->skel->bss->slot[i], end_ns);
	int fd = bpf_map__fd(b->skel->maps.tasks);
	uint64_t key, next;
	uint64_t *prev = NULL;
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		struct ts_wake_bpf_state st;
		key = next;
		prev = &key;
		if (!bpf_map_lookup_elem(fd, &key, &st))
			thread_times(b, &st, end_ns);
	}
	return 0;
}

void ts_wake_bpf_free(struct ts_wake_bpf *b)
{
	if (!b)
		return;
	if (b->running) {
		atomic_store(&b->stop, true);
		pthread_join(b->reader, NULL);
	}
	detach(b);
	ring_buffer__free(b->ring);
	wake_bpf__destroy(b->skel);
	free(b);
}
