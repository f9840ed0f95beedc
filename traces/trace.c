/*
 * trace.c — the trace format: op names, the recording writer, the reader
 * and the exact encoder. The layout is in trace.h and traces/FORMAT.md.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/clock.h"
#include "traces/trace.h"

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the trace format is little-endian and stored as in memory; port the codec first"
#endif

static const char *const op_names[] = {
    [TS_OP_NONE] = "none",
    [TS_OP_READ] = "read",
    [TS_OP_WRITE] = "write",
    [TS_OP_OPEN] = "open",
    [TS_OP_CLOSE] = "close",
    [TS_OP_FSYNC] = "fsync",
    [TS_OP_FDATASYNC] = "fdatasync",
    [TS_OP_GETATTR] = "getattr",
    [TS_OP_READDIR] = "readdir",
    [TS_OP_CREATE] = "create",
    [TS_OP_UNLINK] = "unlink",
    [TS_OP_RENAME] = "rename",
    [TS_OP_TRUNCATE] = "truncate",
    [TS_OP_FALLOCATE] = "fallocate",
    [TS_OP_MMAP_READ] = "mmap-read",
    [TS_OP_MKDIR] = "mkdir",
    [TS_OP_RMDIR] = "rmdir",
    [TS_OP_OPENDIR] = "opendir",
    [TS_OP_RELEASEDIR] = "releasedir",
    [TS_OP_FLUSH] = "flush",
    [TS_OP_ACCESS] = "access",
    [TS_OP_STATFS] = "statfs",
    [TS_OP_READLINK] = "readlink",
    [TS_OP_SYMLINK] = "symlink",
    [TS_OP_LINK] = "link",
    [TS_OP_MKNOD] = "mknod",
    [TS_OP_CHMOD] = "chmod",
    [TS_OP_CHOWN] = "chown",
    [TS_OP_UTIMENS] = "utimens",
};

const char *ts_trace_op_name(unsigned op)
{
	if (op < TS_OP_IO_LAST && op_names[op])
		return op_names[op];
	switch (op) {
	case TS_ITEM_PATH:
		return "path";
	case TS_ITEM_DROPS:
		return "drops";
	case TS_ITEM_END:
		return "end";
	}
	return "?";
}

unsigned ts_trace_op_from_name(const char *name)
{
	for (unsigned i = 1; i < TS_OP_IO_LAST; i++)
		if (op_names[i] && !strcmp(op_names[i], name))
			return i;
	return TS_OP_NONE;
}

int ts_trace_bad(const struct ts_trace_where *w, const char *fmt, ...)
{
	va_list ap;
	int used = snprintf(w->err, w->errlen, "%s:%lu: ", w->name, w->lineno);
	if (used >= 0 && (size_t)used < w->errlen) {
		va_start(ap, fmt);
		vsnprintf(w->err + used, w->errlen - (size_t)used, fmt, ap);
		va_end(ap);
	}
	return TS_E_PARSE;
}

int ts_trace_parse_u64(const char *s, uint64_t max, uint64_t *out)
{
	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end || v > max)
		return -1;
	*out = v;
	return 0;
}

/* ---- on-disk header ---- */

/* The 1024-byte header. Version 1 and 2 end at host (888 bytes), 3 and 4
 * at mem_bps (936), 5 at ebs_burst_s (976), 6 at loop_hop_ns (984), 7 to
 * 11 at loop_window_ns (1000; 8 adds no field, only a model bit,
 * TS_TRACE_MODEL_IMAGE); 12 fills it with the disk image's geometry. */
struct disk_hdr {
	char magic[8];
	uint32_t version;
	uint32_t hdr_size;
	uint32_t rec_size;
	uint32_t flags;
	uint64_t start_wall_ns;
	uint64_t start_mono_ns;
	uint64_t capacity;
	uint64_t mem;
	char tier[64];
	char profile[192];
	char mount_opts[448];
	char host[128];
	/* version 3: the tier model's options (struct ts_trace_hdr) */
	uint32_t model; /* TS_TRACE_MODEL_* */
	uint32_t pad;
	uint64_t seed, floor_ns, dirty_limit, ra_max, mem_bps;
	/* version 5: the instance's EBS limits (TS_TRACE_MODEL_EBS) */
	double ebs_iops, ebs_max_iops, ebs_bps, ebs_max_bps, ebs_burst_s;
	/* version 6: block mode's loop hop (TS_TRACE_MODEL_LOOP_HOP) */
	uint64_t loop_hop_ns;
	/* version 7: its size and window parts (TS_TRACE_MODEL_LOOP_PARTS) */
	uint64_t loop_size_ns, loop_window_ns;
	/* version 12: the disk image's geometry (TS_TRACE_MODEL_FS) */
	uint64_t fs_blocks;
	uint32_t fs_bpg, fs_ipg;
	uint16_t fs_rsv_gdt, fs_inode_size;
	uint8_t fs_block_log, fs_flex_log, fs_desc_size, fs_pad;
};
_Static_assert(sizeof(struct disk_hdr) == TS_TRACE_HDR_SIZE, "header layout");
#define V2_HDR_END offsetof(struct disk_hdr, model) /* where version 2's reserved zeros began */
_Static_assert(V2_HDR_END == 888, "version 2 header layout");
#define V4_HDR_END offsetof(struct disk_hdr, ebs_iops) /* where version 4's reserved zeros began */
_Static_assert(V4_HDR_END == 936, "version 4 header layout");
#define V5_HDR_END offsetof(struct disk_hdr, loop_hop_ns) /* where version 5's reserved zeros began */
_Static_assert(V5_HDR_END == 976, "version 5 header layout");
#define V6_HDR_END offsetof(struct disk_hdr, loop_size_ns) /* where version 6's reserved zeros began */
_Static_assert(V6_HDR_END == 984, "version 6 header layout");
#define V11_HDR_END offsetof(struct disk_hdr, fs_blocks) /* where version 11's reserved zeros began */
_Static_assert(V11_HDR_END == 1000, "version 11 header layout");

/* Where @version's reserved zeros begin. */
static size_t hdr_end(uint32_t version)
{
	return version >= 12  ? offsetof(struct disk_hdr, fs_pad)
	       : version >= 7 ? V11_HDR_END
	       : version >= 6 ? V6_HDR_END
	       : version >= 5 ? V5_HDR_END
	       : version >= 3 ? V4_HDR_END
			      : V2_HDR_END;
}

/*
 * The disk image's geometry (version 12, TS_TRACE_MODEL_FS): the eight
 * fs_* fields, each at its offset in the file's header and in struct
 * ts_trace_hdr, of the same size in both. One table serves the three
 * copies (a header encoded, decoded, and a trace's geometry written in
 * place by ts_trace_set_fs), so that a field added is added once.
 */
#define FS_FIELD(f) { offsetof(struct disk_hdr, f), offsetof(struct ts_trace_hdr, f), \
		      sizeof(((struct disk_hdr *)0)->f) }
#define FS_SAME(f) _Static_assert(sizeof(((struct disk_hdr *)0)->f) == \
				  sizeof(((struct ts_trace_hdr *)0)->f), "fs field " #f)
FS_SAME(fs_blocks);
FS_SAME(fs_bpg);
FS_SAME(fs_ipg);
FS_SAME(fs_rsv_gdt);
FS_SAME(fs_inode_size);
FS_SAME(fs_block_log);
FS_SAME(fs_flex_log);
FS_SAME(fs_desc_size);
static const struct {
	size_t disk, hdr, len;
} fs_fields[] = {
	FS_FIELD(fs_blocks),	 FS_FIELD(fs_bpg),	  FS_FIELD(fs_ipg),
	FS_FIELD(fs_rsv_gdt),	 FS_FIELD(fs_inode_size), FS_FIELD(fs_block_log),
	FS_FIELD(fs_flex_log),	 FS_FIELD(fs_desc_size),
};
#undef FS_SAME
#undef FS_FIELD

/* The geometry copied from @src to @dst: a struct ts_trace_hdr into a
 * struct disk_hdr with @to_disk (its padding after them zeroed), else the
 * other way. */
static void fs_copy(void *dst, const void *src, bool to_disk)
{
	for (size_t i = 0; i < TS_ARRAY_SIZE(fs_fields); i++)
		memcpy((unsigned char *)dst + (to_disk ? fs_fields[i].disk : fs_fields[i].hdr),
		       (const unsigned char *)src + (to_disk ? fs_fields[i].hdr : fs_fields[i].disk),
		       fs_fields[i].len);
	if (to_disk)
		((struct disk_hdr *)dst)->fs_pad = 0;
}

static void hdr_encode(const struct ts_trace_hdr *h, unsigned char out[TS_TRACE_HDR_SIZE])
{
	struct disk_hdr d;

	memset(out, 0, TS_TRACE_HDR_SIZE);
	memset(&d, 0, sizeof(d));
	memcpy(d.magic, TS_TRACE_MAGIC, sizeof(d.magic));
	/* a trace read from an older file is written back in its version */
	d.version = h->version >= TS_TRACE_VERSION_MIN && h->version <= TS_TRACE_VERSION
			? h->version
			: TS_TRACE_VERSION;
	d.hdr_size = TS_TRACE_HDR_SIZE;
	d.rec_size = TS_TRACE_REC_SIZE;
	d.start_wall_ns = h->start_wall_ns;
	d.start_mono_ns = h->start_mono_ns;
	d.capacity = h->capacity;
	d.mem = h->mem;
	/* d is zeroed, so the encoding of a header is unique. */
	memcpy(d.tier, h->tier, strnlen(h->tier, sizeof(d.tier) - 1));
	memcpy(d.profile, h->profile, strnlen(h->profile, sizeof(d.profile) - 1));
	memcpy(d.mount_opts, h->mount_opts, strnlen(h->mount_opts, sizeof(d.mount_opts) - 1));
	memcpy(d.host, h->host, strnlen(h->host, sizeof(d.host) - 1));
	if (d.version >= 3) { /* older versions keep them in mount_opts */
		d.model = h->model & TS_TRACE_MODEL_OF(d.version);
		d.seed = d.model & TS_TRACE_MODEL_SEED ? h->seed : 0;
		d.floor_ns = d.model & TS_TRACE_MODEL_FLOOR ? h->floor_ns : 0;
		d.dirty_limit = d.model & TS_TRACE_MODEL_DIRTY_LIMIT ? h->dirty_limit : 0;
		d.ra_max = d.model & TS_TRACE_MODEL_RA_MAX ? h->ra_max : 0;
		d.mem_bps = d.model & TS_TRACE_MODEL_MEM_BPS ? h->mem_bps : 0;
	}
	if (d.model & TS_TRACE_MODEL_EBS) {
		d.ebs_iops = h->ebs_iops;
		d.ebs_max_iops = h->ebs_max_iops;
		d.ebs_bps = h->ebs_bps;
		d.ebs_max_bps = h->ebs_max_bps;
		d.ebs_burst_s = h->ebs_burst_s;
	}
	if (d.model & TS_TRACE_MODEL_LOOP_HOP)
		d.loop_hop_ns = h->loop_hop_ns;
	if (d.model & TS_TRACE_MODEL_LOOP_PARTS) {
		d.loop_size_ns = h->loop_size_ns;
		d.loop_window_ns = h->loop_window_ns;
	}
	if (d.model & TS_TRACE_MODEL_FS)
		fs_copy(&d, h, true);
	memcpy(out, &d, sizeof(d));
}

/* ---- writer ---- */

/*
 * Rings. Each producing thread claims one ring (a thread-specific value)
 * and is its only producer; the writer thread is the only consumer. A
 * ring is a chain of segments of ring_records slots; head and tail count
 * a segment's slots from its start; tail - head is its fill. A thread that
 * exits marks its ring free and the next new thread reuses it, so libfuse's
 * coming and going worker threads do not grow the list. Rings are pushed
 * on a lock-free list the writer walks without a lock; a mutex serialises
 * only claiming (once per thread).
 *
 * The spill. A producer that finds its segment full (the writer thread
 * has not had a CPU since the half-full wake-up: 82 ms at 200k records/s
 * with a CPU sample each, 16,384 slots per ring and four rings) allocates
 * another segment, links it after the full one and goes on there; the
 * writer drains the full one, follows the link and frees it. That is an
 * allocation on the request path, but only where the old ring dropped;
 * the common case is unchanged (a copy and two atomic stores, no lock, no
 * syscall). The segments a writer's rings hold beyond their first are
 * bounded by spill_bytes (64 MiB unless set: 2.6 s without the writer at
 * 200k records/s with samples, against 82 ms before); past it a full
 * segment drops and counts, as a full ring did. Order within a thread is
 * kept: the writer finishes a segment before it follows the link.
 */
struct seg {
	_Alignas(64) _Atomic uint64_t tail; /* producer */
	_Alignas(64) _Atomic uint64_t head; /* consumer */
	_Atomic(struct seg *) next;	    /* set by the producer once it moved on */
	uint64_t ready; /* writer only: slots before this one are populated (populate_ahead) */
	/* side[k]: slot k's packed sample (TS_REC_F_PACKED: sys_ns in the
	 * low 32 bits, late_ns in the high), which the writer moves into a
	 * pack item; after the slots, in the same allocation */
	uint64_t *side;
	struct ts_trace_rec slot[];
};

struct ring {
	struct seg *prod; /* the producer's segment (the ring's producer only) */
	struct seg *cons; /* the writer's segment (the writer thread only) */
	_Atomic uint64_t dropped;
	_Atomic int in_use;
	struct ring *next;
};

/* The writer's output buffer: what the drain writes goes here and to the
 * file a write() at a time when full, at each period's end and at close. */
#define OBUF_SIZE (1u << 20)

struct ts_trace_writer {
	int fd;
	char *obuf; /* OBUF_SIZE bytes; olen of them queued */
	size_t olen;
	struct ts_trace_hdr hdr;
	uint32_t ring_records;
	uint32_t flush_us;
	uint64_t spill_max; /* segments the rings may hold beyond their first */
	void (*before_sleep)(void *arg);
	void *before_sleep_arg;
	pthread_key_t key;
	pthread_mutex_t claim_lock;
	_Atomic(struct ring *) rings;
	_Atomic uint64_t dropped_noring; /* drops when no ring could be had */
	_Atomic uint64_t spilled;	 /* segments beyond the first held now */
	_Atomic uint64_t spills;	 /* segments ever added by a full one */
	_Atomic int stop;
	_Atomic int kicked; /* a producer's ring is half full: the writer is being woken */
	pthread_t thread;
	pthread_mutex_t wake_lock; /* close() wakes an idle writer thread */
	pthread_cond_t wake;

	/* string table: open hash of ids, under path_lock */
	pthread_mutex_t path_lock;
	char **paths;	 /* paths[id] */
	struct ts_trace_node *nodes; /* nodes[id] (flags 0: none) */
	uint32_t npaths; /* next id */
	uint32_t path_cap;
	uint32_t *hash; /* 0 = empty, else id */
	uint32_t hash_cap;

	/* writer thread only */
	uint32_t paths_written;
	uint64_t recs_written;
	uint64_t drops_written;
	uint64_t lost_on_error; /* records not written after a write error */
	int err;
	long page_size;
};

static struct seg *seg_new(const struct ts_trace_writer *w)
{
	size_t sz = sizeof(struct seg) +
		    (size_t)w->ring_records * (sizeof(struct ts_trace_rec) + sizeof(uint64_t));
	struct seg *s = aligned_alloc(64, (sz + 63) & ~(size_t)63);
	if (s) {
		memset(s, 0, sizeof(*s));
		s->side = (uint64_t *)&s->slot[w->ring_records];
	}
	return s;
}

static void ring_release(void *p)
{
	struct ring *r = p;
	atomic_store_explicit(&r->in_use, 0, memory_order_release);
}

static struct ring *ring_claim(struct ts_trace_writer *w)
{
	struct ring *r;

	pthread_mutex_lock(&w->claim_lock);
	for (r = atomic_load_explicit(&w->rings, memory_order_acquire); r; r = r->next) {
		int expect = 0;
		if (atomic_compare_exchange_strong(&r->in_use, &expect, 1))
			break;
	}
	if (!r) {
		r = calloc(1, sizeof(*r));
		struct seg *s = r ? seg_new(w) : NULL;
		if (s) {
			r->prod = r->cons = s;
			atomic_store(&r->in_use, 1);
			r->next = atomic_load_explicit(&w->rings, memory_order_relaxed);
			atomic_store_explicit(&w->rings, r, memory_order_release);
		} else {
			free(r);
			r = NULL;
		}
	}
	pthread_mutex_unlock(&w->claim_lock);
	if (r && pthread_setspecific(w->key, r)) {
		ring_release(r);
		r = NULL;
	}
	return r;
}

/* Wakes the writer now rather than at its next period. One signal per
 * refill at most (the writer clears kicked when it wakes), so a producer
 * makes a syscall once per half ring, not per record. The signal is sent
 * under the writer's lock: the writer tests kicked and goes to sleep under
 * it, and a signal sent between the two would wake nobody, leaving kicked
 * set (no producer signals again) and the writer asleep for a whole
 * period while the rings fill. */
static void kick(struct ts_trace_writer *w)
{
	if (!atomic_load_explicit(&w->kicked, memory_order_relaxed) &&
	    !atomic_exchange_explicit(&w->kicked, 1, memory_order_acq_rel)) {
		pthread_mutex_lock(&w->wake_lock);
		pthread_cond_signal(&w->wake);
		pthread_mutex_unlock(&w->wake_lock);
	}
}

/* Ring @r's producer found segment @s full: a new segment linked after it
 * and made the producer's, or NULL (the spill's bound reached, or no
 * memory): the record is dropped. */
static struct seg *spill(struct ts_trace_writer *w, struct ring *r, struct seg *s)
{
	if (atomic_fetch_add_explicit(&w->spilled, 1, memory_order_relaxed) >= w->spill_max) {
		atomic_fetch_sub_explicit(&w->spilled, 1, memory_order_relaxed);
		return NULL;
	}
	struct seg *n = seg_new(w);
	if (!n) {
		atomic_fetch_sub_explicit(&w->spilled, 1, memory_order_relaxed);
		return NULL;
	}
	/* s's last tail store comes before this: the writer that sees the
	 * link sees every record put in s */
	atomic_store_explicit(&s->next, n, memory_order_release);
	r->prod = n;
	atomic_fetch_add_explicit(&w->spills, 1, memory_order_relaxed);
	kick(w);
	return n;
}

/* Whether CPU sample @cpu goes into a pack (version 10): a clock left
 * unread whose sys_ns and late_ns fit 32 bits each; any other keeps its
 * cpu item. */
static bool packs(const struct ts_trace_cpu *cpu)
{
	return cpu && (cpu->flags & TS_CPU_F_GAP) && cpu->sys_ns <= UINT32_MAX &&
	       cpu->late_ns <= UINT32_MAX;
}

/* The ring slots hold items as stored: a record, and with a CPU sample the
 * cpu item after it, then with a request clock the issue item, queued
 * together so the drain never splits them. A sample left unread takes no
 * slot: the record says so (TS_REC_F_PACKED) and its sys_ns and late_ns
 * go beside it (seg.side), for the writer's pack item (drain). */
static void put(struct ts_trace_writer *w, const struct ts_trace_rec *rec,
		const struct ts_trace_cpu *cpu, const struct ts_trace_issue *issue)
{
	struct ring *r = pthread_getspecific(w->key);
	uint64_t base = w->hdr.start_mono_ns;
	if (issue && issue->issue_ns <= base)
		issue = NULL; /* before the trace began: cannot be stored */
	bool packed = packs(cpu);
	uint64_t need = 1 + (cpu && !packed) + (issue != NULL), cap = w->ring_records,
		 mask = cap - 1;

	if (!r && !(r = ring_claim(w))) {
		atomic_fetch_add_explicit(&w->dropped_noring, 1, memory_order_relaxed);
		return;
	}
	struct seg *g = r->prod;
	uint64_t t = atomic_load_explicit(&g->tail, memory_order_relaxed);
	uint64_t h = atomic_load_explicit(&g->head, memory_order_acquire);
	if (t - h + need > cap) {
		if (need > cap || !(g = spill(w, r, g))) {
			atomic_fetch_add_explicit(&r->dropped, 1, memory_order_relaxed);
			return;
		}
		t = h = 0;
	}
	struct ts_trace_rec *s = &g->slot[t & mask];
	*s = *rec;
	s->submit_ns = rec->submit_ns > base ? rec->submit_ns - base : 0;
	s->complete_ns = rec->complete_ns > base ? rec->complete_ns - base : 0;
	uint64_t k = t + 1;
	s->flags = (uint16_t)((rec->flags & ~TS_REC_F_PACKED) | (packed ? TS_REC_F_PACKED : 0));
	if (packed)
		g->side[t & mask] = cpu->sys_ns | cpu->late_ns << 32;
	else if (cpu)
		g->slot[k++ & mask] = (struct ts_trace_rec){
		    .offset = cpu->flags & TS_CPU_F_GAP ? 0 : cpu->on_ns,
		    .length = cpu->flags & TS_CPU_F_GAP ? 0 : cpu->runq_ns,
		    .size = cpu->sys_ns,
		    .complete_ns = cpu->late_ns,
		    .file_id = cpu->pid,
		    .aux = cpu->ppid,
		    .tid = rec->tid,
		    .op = TS_ITEM_CPU,
		    .flags = cpu->flags,
		};
	if (issue)
		g->slot[k++ & mask] = (struct ts_trace_rec){
		    .submit_ns = issue->issue_ns - base,
		    .complete_ns = issue->end_ns > base ? issue->end_ns - base : 0,
		    .offset = issue->watched ? 0 : issue->off_ns,
		    .tid = rec->tid,
		    .op = TS_ITEM_ISSUE,
		    .flags = issue->watched ? TS_ISSUE_F_WATCHED : 0,
		};
	atomic_store_explicit(&g->tail, t + need, memory_order_release);
	/* half full: wake the writer (kick) */
	if (t + need - h > cap / 2)
		kick(w);
}

void ts_trace_writer_put(struct ts_trace_writer *w, const struct ts_trace_rec *rec)
{
	put(w, rec, NULL, NULL);
}

void ts_trace_writer_put_cpu(struct ts_trace_writer *w, const struct ts_trace_rec *rec,
			     const struct ts_trace_cpu *cpu)
{
	put(w, rec, cpu && cpu->pid ? cpu : NULL, NULL);
}

void ts_trace_writer_put_issue(struct ts_trace_writer *w, const struct ts_trace_rec *rec,
			       const struct ts_trace_cpu *cpu, const struct ts_trace_issue *issue)
{
	put(w, rec, cpu && cpu->pid ? cpu : NULL, issue);
}

uint64_t ts_trace_writer_dropped(const struct ts_trace_writer *w)
{
	uint64_t n = atomic_load_explicit(&w->dropped_noring, memory_order_relaxed);
	for (struct ring *r = atomic_load_explicit(&w->rings, memory_order_acquire); r; r = r->next)
		n += atomic_load_explicit(&r->dropped, memory_order_relaxed);
	return n + w->lost_on_error;
}

uint64_t ts_trace_writer_spills(const struct ts_trace_writer *w)
{
	return atomic_load_explicit(&w->spills, memory_order_relaxed);
}

static uint32_t str_hash(const char *s)
{
	uint32_t h = 2166136261u; /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

static int hash_grow(struct ts_trace_writer *w)
{
	uint32_t cap = w->hash_cap ? w->hash_cap * 2 : 1024;
	uint32_t *nh = calloc(cap, sizeof(*nh));
	if (!nh)
		return -ENOMEM;
	for (uint32_t id = 1; id < w->npaths; id++) {
		uint32_t i = str_hash(w->paths[id]) & (cap - 1);
		while (nh[i])
			i = (i + 1) & (cap - 1);
		nh[i] = id;
	}
	free(w->hash);
	w->hash = nh;
	w->hash_cap = cap;
	return 0;
}

/* The id of @path, interned with @node (may be NULL) when new; with
 * @find, 0 instead of interning it. */
static uint32_t file_id(struct ts_trace_writer *w, const char *path,
			const struct ts_trace_node *node, bool find)
{
	uint32_t id = 0;

	if (strlen(path) > TS_TRACE_PATH_MAX)
		return 0;
	pthread_mutex_lock(&w->path_lock);
	if ((uint64_t)w->npaths * 2 >= w->hash_cap && hash_grow(w))
		goto out;
	uint32_t i = str_hash(path) & (w->hash_cap - 1);
	for (; w->hash[i]; i = (i + 1) & (w->hash_cap - 1)) {
		if (!strcmp(w->paths[w->hash[i]], path)) {
			id = w->hash[i];
			goto out;
		}
	}
	if (find)
		goto out;
	if (w->npaths == w->path_cap) {
		uint32_t cap = w->path_cap * 2;
		char **np = realloc(w->paths, cap * sizeof(*np));
		if (!np)
			goto out;
		w->paths = np;
		struct ts_trace_node *nn = realloc(w->nodes, cap * sizeof(*nn));
		if (!nn)
			goto out;
		w->nodes = nn;
		w->path_cap = cap;
	}
	char *dup = strdup(path);
	if (!dup)
		goto out;
	id = w->npaths++;
	w->paths[id] = dup;
	w->nodes[id] = node && (node->flags & TS_NODE_F_SET) && node->ino
			       ? *node
			       : (struct ts_trace_node){ 0 };
	w->hash[i] = id;
out:
	pthread_mutex_unlock(&w->path_lock);
	return id;
}

uint32_t ts_trace_writer_file_id(struct ts_trace_writer *w, const char *path)
{
	return file_id(w, path, NULL, false);
}

uint32_t ts_trace_writer_file_node(struct ts_trace_writer *w, const char *path,
				   const struct ts_trace_node *node)
{
	return file_id(w, path, node, false);
}

uint32_t ts_trace_writer_file_find(struct ts_trace_writer *w, const char *path)
{
	return file_id(w, path, NULL, true);
}

/* @n bytes at @p to the file, whole; a write error is kept in w->err. */
static void out_write(struct ts_trace_writer *w, const char *p, size_t n)
{
	while (n && !w->err) {
		ssize_t k = write(w->fd, p, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			w->err = k < 0 ? -errno : -EIO;
			break;
		}
		p += k;
		n -= (size_t)k;
	}
}

/* What the buffer holds, to the file. */
static void obuf_flush(struct ts_trace_writer *w)
{
	out_write(w, w->obuf, w->olen);
	w->olen = 0;
}

/*
 * The output is the writer thread's alone once it runs (before it, and
 * after it is joined, open and close use it from one thread), so it is a
 * buffer of its own rather than a stdio stream: the drain writes a run of
 * slots and a pack item per six packed records, and a stream's call with
 * its lock cost more per call than the copy of those bytes (bench/
 * trace_writer, the "writer" figure a record). One copy, into the buffer.
 */
static void put_bytes(struct ts_trace_writer *w, const void *p, size_t n)
{
	if (w->err)
		return;
	if (w->olen + n > OBUF_SIZE) {
		obuf_flush(w);
		if (n > OBUF_SIZE) {
			out_write(w, p, n);
			return;
		}
	}
	memcpy(w->obuf + w->olen, p, n);
	w->olen += n;
}

static void put_item(struct ts_trace_writer *w, unsigned op, uint32_t id, uint64_t off,
		     uint64_t len, uint64_t t_ns)
{
	struct ts_trace_rec it = {
	    .submit_ns = t_ns,
	    .offset = off,
	    .length = len,
	    .file_id = id,
	    .op = (uint16_t)op,
	};
	put_bytes(w, &it, sizeof(it));
}

/* The path item of id @id, @len bytes, with its node (version 11; flags
 * 0: none, the item as before). */
static struct ts_trace_rec path_item(uint32_t id, size_t len, const struct ts_trace_node *nd)
{
	struct ts_trace_rec it = { .length = len, .file_id = id, .op = TS_ITEM_PATH };
	if (nd && nd->flags) {
		it.offset = nd->ino;
		it.result = (int64_t)nd->blocks;
		it.size = nd->backing_ino;
		it.aux = nd->inodes;
		it.flags = nd->flags;
	}
	return it;
}

/* Path items for every id interned so far. Called after the records about
 * to be written were taken from their rings, so every id they name (interned
 * before the record was queued) is already in the table. */
static void write_new_paths(struct ts_trace_writer *w)
{
	static const char zero[8];

	pthread_mutex_lock(&w->path_lock);
	uint32_t n = w->npaths;
	pthread_mutex_unlock(&w->path_lock);
	/* paths[id] for id < n never change once set; the array itself may be
	 * reallocated, so read each pointer under the lock. */
	for (uint32_t id = w->paths_written; id < n; id++) {
		pthread_mutex_lock(&w->path_lock);
		const char *p = w->paths[id];
		struct ts_trace_node nd = w->nodes[id];
		pthread_mutex_unlock(&w->path_lock);
		size_t len = strlen(p);
		struct ts_trace_rec it = path_item(id, len, &nd);
		put_bytes(w, &it, sizeof(it));
		put_bytes(w, p, len);
		put_bytes(w, zero, (8 - len % 8) % 8);
	}
	w->paths_written = n;
}

/* Whether @it is a request record (not an item queued with one). */
static bool is_rec(const struct ts_trace_rec *it)
{
	return it->op != TS_ITEM_CPU && it->op != TS_ITEM_ISSUE;
}

/* The packed samples of the records written since the last pack item. */
struct pack {
	uint64_t v[TS_TRACE_PACK_MAX];
	unsigned n;
};

static void pack_flush(struct ts_trace_writer *w, struct pack *pk)
{
	if (!pk->n)
		return;
	struct ts_trace_rec it = {.submit_ns = pk->v[0],
				  .complete_ns = pk->n > 1 ? pk->v[1] : 0,
				  .offset = pk->n > 2 ? pk->v[2] : 0,
				  .length = pk->n > 3 ? pk->v[3] : 0,
				  .result = pk->n > 4 ? (int64_t)pk->v[4] : 0,
				  .size = pk->n > 5 ? pk->v[5] : 0,
				  .file_id = pk->n,
				  .op = TS_ITEM_PACK};
	put_bytes(w, &it, sizeof(it));
	pk->n = 0;
}

/* Writes slots [i, i + n) of @g, a pack item before a packed record that
 * would be the pack's seventh (never between a record and its items);
 * returns the records among them. */
static uint64_t write_slots(struct ts_trace_writer *w, const struct seg *g, uint64_t i,
			    uint64_t n, struct pack *pk)
{
	uint64_t from = i, nrec = 0;
	for (uint64_t k = i; k < i + n; k++) {
		const struct ts_trace_rec *s = &g->slot[k];
		if (!is_rec(s))
			continue;
		nrec++;
		if (!(s->flags & TS_REC_F_PACKED))
			continue;
		if (pk->n == TS_TRACE_PACK_MAX) {
			put_bytes(w, &g->slot[from], (k - from) * sizeof(g->slot[0]));
			from = k;
			pack_flush(w, pk);
		}
		pk->v[pk->n++] = g->side[k];
	}
	put_bytes(w, &g->slot[from], (i + n - from) * sizeof(g->slot[0]));
	return nrec;
}

/*
 * The pages a producer writes next, made present by the writer thread. A
 * segment is fresh memory: each of its pages faulted in on first write, on
 * the request path (one fault per 32 requests with CPU samples, about 2 us
 * each here, through a segment's first pass: a short recording's every
 * request, and 16 worker threads' first 256k). The writer populates the
 * half segment past its producer's tail at each drain (a producer is
 * kicked at half full, so it stays within it), without writing to it:
 * the producer may be filling those slots meanwhile. A kernel without
 * MADV_POPULATE_WRITE (before 5.14) leaves the faults where they were.
 */
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
static void populate_ahead(struct ts_trace_writer *w, struct seg *g, uint64_t t)
{
	uint64_t want = TS_MIN(t + w->ring_records / 2, (uint64_t)w->ring_records);
	if (g->ready >= want)
		return;
	uintptr_t pg = (uintptr_t)w->page_size;
	uintptr_t a = ((uintptr_t)&g->slot[g->ready] + pg - 1) & ~(pg - 1);
	uintptr_t b = (uintptr_t)&g->slot[want] & ~(pg - 1);
	uintptr_t c = ((uintptr_t)&g->side[g->ready] + pg - 1) & ~(pg - 1);
	uintptr_t d = (uintptr_t)&g->side[want] & ~(pg - 1);
	if ((b > a && madvise((void *)a, b - a, MADV_POPULATE_WRITE) && errno == EINVAL) ||
	    (d > c && madvise((void *)c, d - c, MADV_POPULATE_WRITE) && errno == EINVAL))
		want = w->ring_records; /* not this kernel: give up on this segment */
	g->ready = want;
}

/* Moves every queued record to the file; returns how many slots. A ring's
 * segment that its producer left for another (the spill) is drained to
 * its end, then freed. The slots go to the file from the ring itself, and
 * are given back to the producer once written. */
static size_t drain(struct ts_trace_writer *w)
{
	size_t total = 0;

	for (struct ring *r = atomic_load_explicit(&w->rings, memory_order_acquire); r;
	     r = r->next) {
		struct seg *g = r->cons;
		uint64_t cap = w->ring_records, mask = cap - 1;
		for (;;) {
			uint64_t h = atomic_load_explicit(&g->head, memory_order_relaxed);
			uint64_t t = atomic_load_explicit(&g->tail, memory_order_acquire);
			if (!atomic_load_explicit(&g->next, memory_order_relaxed) &&
			    !atomic_load_explicit(&w->stop, memory_order_relaxed))
				populate_ahead(w, g, t);
			if (h != t) {
				/* every id these records name was interned
				 * before they were queued */
				write_new_paths(w);
				struct pack pk = {.n = 0};
				while (h != t) { /* up to the ring's end, then from its start */
					uint64_t i = h & mask, n = TS_MIN(t - h, cap - i);
					bool failed = w->err != 0;
					uint64_t nrec = write_slots(w, g, i, n, &pk);
					if (failed)
						w->lost_on_error += nrec;
					else if (!w->err)
						w->recs_written += nrec;
					h += n;
					total += n;
				}
				/* the chunk's packed records end with their pack */
				pack_flush(w, &pk);
				atomic_store_explicit(&g->head, h, memory_order_release);
			}
			struct seg *next = atomic_load_explicit(&g->next, memory_order_acquire);
			if (!next)
				break;
			/* the producer has left g: its tail is final */
			if (atomic_load_explicit(&g->tail, memory_order_acquire) != h)
				continue;
			r->cons = next;
			free(g);
			atomic_fetch_sub_explicit(&w->spilled, 1, memory_order_relaxed);
			g = next;
		}
	}
	uint64_t d = ts_trace_writer_dropped(w);
	if (d != w->drops_written) {
		put_item(w, TS_ITEM_DROPS, 0, d, 0, ts_now_ns() - w->hdr.start_mono_ns);
		w->drops_written = d;
	}
	return total;
}

static void *writer_main(void *arg)
{
	struct ts_trace_writer *w = arg;

	/* One drain per period (or per kick), whatever it finds: draining again
	 * at once while producers are busy would take their records a few at a
	 * time, and cost a pass over every ring (and a wake-up) per handful. */
	while (!atomic_load_explicit(&w->stop, memory_order_acquire)) {
		atomic_store_explicit(&w->kicked, 0, memory_order_release);
		drain(w);
		/* hand what we have to the kernel, so a crash loses at most one
		 * period's worth of records */
		obuf_flush(w);
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		uint64_t ns = (uint64_t)ts.tv_nsec + (uint64_t)w->flush_us * 1000;
		ts.tv_sec += (time_t)(ns / TS_NS_PER_S);
		ts.tv_nsec = (long)(ns % TS_NS_PER_S);
		pthread_mutex_lock(&w->wake_lock);
		if (!atomic_load_explicit(&w->stop, memory_order_acquire) &&
		    !atomic_load_explicit(&w->kicked, memory_order_acquire)) {
			if (w->before_sleep)
				w->before_sleep(w->before_sleep_arg);
			pthread_cond_timedwait(&w->wake, &w->wake_lock, &ts);
		}
		pthread_mutex_unlock(&w->wake_lock);
	}
	while (drain(w))
		;
	return NULL;
}

static void writer_free(struct ts_trace_writer *w)
{
	struct ring *r = atomic_load(&w->rings);
	while (r) {
		struct ring *n = r->next;
		for (struct seg *g = r->cons, *gn; g; g = gn) {
			gn = atomic_load(&g->next);
			free(g);
		}
		free(r);
		r = n;
	}
	for (uint32_t i = 1; i < w->npaths; i++)
		free(w->paths[i]);
	free(w->paths);
	free(w->nodes);
	free(w->hash);
	free(w->obuf);
	free(w);
}

int ts_trace_writer_open_cfg(const char *path, const struct ts_trace_hdr *hdr,
			     const struct ts_trace_writer_cfg *cfg, struct ts_trace_writer **out)
{
	unsigned char buf[TS_TRACE_HDR_SIZE];
	struct ts_trace_writer *w = calloc(1, sizeof(*w));
	int ret;

	*out = NULL;
	if (!w)
		return -ENOMEM;
	w->ring_records = cfg && cfg->ring_records ? cfg->ring_records : 16384;
	w->flush_us = cfg && cfg->flush_us ? cfg->flush_us : 50000;
	uint64_t spill = cfg && cfg->spill_bytes ? cfg->spill_bytes : TS_TRACE_SPILL_DEFAULT;
	w->spill_max = spill == TS_TRACE_SPILL_NONE
			   ? 0
			   : spill / ((uint64_t)w->ring_records * sizeof(struct ts_trace_rec));
	if (cfg) {
		w->before_sleep = cfg->before_sleep;
		w->before_sleep_arg = cfg->before_sleep_arg;
	}
	if (w->ring_records & (w->ring_records - 1)) {
		free(w);
		return -EINVAL;
	}
	w->hdr = *hdr;
	w->hdr.version = TS_TRACE_VERSION;
	if (!w->hdr.start_wall_ns)
		w->hdr.start_wall_ns = ts_wall_ns();
	if (!w->hdr.start_mono_ns)
		w->hdr.start_mono_ns = ts_now_ns();
	if (!w->hdr.host[0])
		gethostname(w->hdr.host, sizeof(w->hdr.host) - 1);
	w->path_cap = 256;
	w->npaths = 1; /* id 0 = no path */
	w->paths_written = 1;
	w->paths = calloc(w->path_cap, sizeof(*w->paths));
	w->nodes = calloc(w->path_cap, sizeof(*w->nodes));
	w->page_size = sysconf(_SC_PAGESIZE);
	if (!w->paths || !w->nodes || hash_grow(w)) {
		writer_free(w);
		return -ENOMEM;
	}
	pthread_mutex_init(&w->path_lock, NULL);
	pthread_mutex_init(&w->claim_lock, NULL);
	pthread_mutex_init(&w->wake_lock, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&w->wake, &ca);
	pthread_condattr_destroy(&ca);
	if ((ret = pthread_key_create(&w->key, ring_release))) {
		writer_free(w);
		return -ret;
	}
	/* as fopen(path, "wbe") makes it: 0666 less the umask */
	w->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	w->obuf = w->fd >= 0 ? malloc(OBUF_SIZE) : NULL;
	if (!w->obuf) {
		ret = w->fd < 0 ? -errno : -ENOMEM;
		if (w->fd >= 0)
			close(w->fd);
		pthread_key_delete(w->key);
		writer_free(w);
		return ret;
	}
	hdr_encode(&w->hdr, buf);
	put_bytes(w, buf, sizeof(buf));
	obuf_flush(w);
	if (w->err || (ret = -pthread_create(&w->thread, NULL, writer_main, w))) {
		ret = w->err ? w->err : ret;
		close(w->fd);
		pthread_key_delete(w->key);
		writer_free(w);
		return ret;
	}
	*out = w;
	return 0;
}

int ts_trace_writer_open(const char *path, const struct ts_trace_hdr *hdr,
			 struct ts_trace_writer **out)
{
	return ts_trace_writer_open_cfg(path, hdr, NULL, out);
}

int ts_trace_writer_close(struct ts_trace_writer *w, uint64_t *dropped)
{
	int ret;

	pthread_mutex_lock(&w->wake_lock);
	atomic_store_explicit(&w->stop, 1, memory_order_release);
	pthread_cond_signal(&w->wake);
	pthread_mutex_unlock(&w->wake_lock);
	pthread_join(w->thread, NULL);
	write_new_paths(w); /* ids interned but never used by a record */
	uint64_t d = ts_trace_writer_dropped(w);
	put_item(w, TS_ITEM_END, 0, d, w->recs_written, ts_now_ns() - w->hdr.start_mono_ns);
	obuf_flush(w);
	ret = w->err;
	if (fsync(w->fd) && !ret && errno != EINVAL)
		ret = -errno;
	if (close(w->fd) && !ret)
		ret = -errno;
	if (dropped)
		*dropped = d;
	pthread_key_delete(w->key);
	pthread_mutex_destroy(&w->path_lock);
	pthread_mutex_destroy(&w->claim_lock);
	pthread_mutex_destroy(&w->wake_lock);
	pthread_cond_destroy(&w->wake);
	writer_free(w);
	return ret;
}

/* ---- reader ---- */

#define FAIL(code, ...)                                                                            \
	do {                                                                                       \
		if (err)                                                                           \
			snprintf(err, errlen, __VA_ARGS__);                                        \
		ret = (code);                                                                      \
		goto fail;                                                                         \
	} while (0)

static void hdr_decode(const struct disk_hdr *d, struct ts_trace_hdr *h)
{
	memset(h, 0, sizeof(*h));
	h->start_wall_ns = d->start_wall_ns;
	h->start_mono_ns = d->start_mono_ns;
	h->capacity = d->capacity;
	h->mem = d->mem;
	h->version = d->version;
	h->rec_size = d->rec_size;
	memcpy(h->tier, d->tier, sizeof(h->tier) - 1);
	memcpy(h->profile, d->profile, sizeof(h->profile) - 1);
	memcpy(h->mount_opts, d->mount_opts, sizeof(h->mount_opts) - 1);
	memcpy(h->host, d->host, sizeof(h->host) - 1);
	h->model = d->model;
	h->seed = d->seed;
	h->floor_ns = d->floor_ns;
	h->dirty_limit = d->dirty_limit;
	h->ra_max = d->ra_max;
	h->mem_bps = d->mem_bps;
	h->ebs_iops = d->ebs_iops;
	h->ebs_max_iops = d->ebs_max_iops;
	h->ebs_bps = d->ebs_bps;
	h->ebs_max_bps = d->ebs_max_bps;
	h->ebs_burst_s = d->ebs_burst_s;
	h->loop_hop_ns = d->loop_hop_ns;
	h->loop_size_ns = d->loop_size_ns;
	h->loop_window_ns = d->loop_window_ns;
	fs_copy(h, d, false);
}

int ts_trace_hdr_fs_check(const struct ts_trace_hdr *h, char *why, size_t n)
{
	if (!(h->model & TS_TRACE_MODEL_FS)) {
		if (h->fs_blocks || h->fs_bpg || h->fs_ipg || h->fs_rsv_gdt || h->fs_inode_size ||
		    h->fs_block_log || h->fs_flex_log || h->fs_desc_size) {
			snprintf(why, n, "a geometry field (fs_*) without its bit (0x1000)");
			return -EINVAL;
		}
		return 0;
	}
	uint64_t bs = h->fs_block_log >= 10 && h->fs_block_log <= 16 ? 1ULL << h->fs_block_log : 0;
	const char *bad = !bs					       ? "fs_block (1-64 KiB)"
			  : !h->fs_blocks			       ? "fs_blocks (> 0)"
			  : !h->fs_bpg || h->fs_bpg % 8 || h->fs_bpg > 8 * bs ? "fs_bpg"
			  : !h->fs_ipg || h->fs_ipg % 8 || h->fs_ipg > 8 * bs ? "fs_ipg"
			  : h->fs_inode_size < 128 || h->fs_inode_size > bs ||
				    (h->fs_inode_size & (h->fs_inode_size - 1))
			      ? "fs_inode (a power of two, 128 bytes to a block)"
			  : h->fs_desc_size != 32 && h->fs_desc_size != 64 ? "fs_desc (32 or 64)"
			  : h->fs_flex_log > 31					  ? "fs_flex (2^0 to 2^31)"
			  : h->fs_rsv_gdt > bs / 4 ? "fs_rsv_gdt (at most a block's / 4)"
						   : NULL;
	if (bad) {
		snprintf(why, n, "geometry field %s out of range", bad);
		return -EINVAL;
	}
	return 0;
}

/* Version 3's model fields: known bits, and zero where no bit sets them;
 * version 5's EBS limits finite and >= 0, all +0.0 without their bit. */
static bool model_ok(const struct disk_hdr *d)
{
	const uint32_t m = d->model;
	const double ebs[] = { d->ebs_iops, d->ebs_max_iops, d->ebs_bps, d->ebs_max_bps,
			       d->ebs_burst_s };
	for (size_t i = 0; i < TS_ARRAY_SIZE(ebs); i++) {
		uint64_t bits;
		memcpy(&bits, &ebs[i], sizeof(bits));
		if (m & TS_TRACE_MODEL_EBS ? !(ebs[i] >= 0 && ebs[i] <= DBL_MAX) : bits)
			return false;
	}
	return !(m & ~(uint32_t)TS_TRACE_MODEL_OF(d->version)) && !d->pad &&
	       (m & TS_TRACE_MODEL_SEED || !d->seed) && (m & TS_TRACE_MODEL_FLOOR || !d->floor_ns) &&
	       (m & TS_TRACE_MODEL_DIRTY_LIMIT || !d->dirty_limit) &&
	       (m & TS_TRACE_MODEL_RA_MAX || !d->ra_max) &&
	       (m & TS_TRACE_MODEL_MEM_BPS || !d->mem_bps) &&
	       (m & TS_TRACE_MODEL_LOOP_HOP || !d->loop_hop_ns) &&
	       (m & TS_TRACE_MODEL_LOOP_PARTS ? m & TS_TRACE_MODEL_LOOP_HOP
					      : !d->loop_size_ns && !d->loop_window_ns);
}

int ts_trace_set_fs(const char *path, const struct ts_trace_hdr *h, char *err, size_t errlen)
{
	unsigned char buf[TS_TRACE_HDR_SIZE];
	struct disk_hdr d;
	char why[160];
	struct ts_trace_hdr g = *h;
	g.model |= TS_TRACE_MODEL_FS;
	if (ts_trace_hdr_fs_check(&g, why, sizeof(why))) {
		snprintf(err, errlen, "%s: %s", path, why);
		return -EINVAL;
	}
	int fd = open(path, O_RDWR | O_CLOEXEC), ret = 0;
	if (fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return ret;
	}
	ssize_t got = pread(fd, buf, sizeof(buf), 0);
	if (got != (ssize_t)sizeof(buf) || memcmp(buf, TS_TRACE_MAGIC, sizeof(d.magic))) {
		snprintf(err, errlen, "%s: no trace header to write the geometry into", path);
		close(fd);
		return TS_E_FORMAT;
	}
	memcpy(&d, buf, sizeof(d));
	if (d.version < 12) {
		snprintf(err, errlen, "%s: a version %u trace has no geometry fields (version 12's)",
			 path, d.version);
		close(fd);
		return TS_E_VERSION;
	}
	d.model |= TS_TRACE_MODEL_FS;
	fs_copy(&d, &g, true);
	/* the header alone: the writer wrote it at open and appends after it */
	if (pwrite(fd, &d, sizeof(d), 0) != (ssize_t)sizeof(d)) {
		ret = errno ? -errno : -EIO;
		snprintf(err, errlen, "%s: writing the geometry: %s", path, strerror(-ret));
	}
	if (close(fd) && !ret) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
	}
	return ret;
}

/* Grows *@p (of *@cap elements of @size) to hold @need elements. */
static int grow(void **p, size_t *cap, size_t need, size_t size, size_t first)
{
	if (need <= *cap)
		return 0;
	size_t nc = *cap ? *cap : first;
	while (nc < need)
		nc *= 2;
	void *np = realloc(*p, nc * size);
	if (!np)
		return -ENOMEM;
	*p = np;
	*cap = nc;
	return 0;
}

static int push_item(struct ts_trace *t, unsigned op, uint64_t val, uint64_t t_ns)
{
	if (grow((void **)&t->items, &t->item_cap, t->nitems + 1, sizeof(*t->items), 16))
		return -ENOMEM;
	t->items[t->nitems++] = (struct ts_trace_item){
	    .at_rec = t->nrecs,
	    .val = val,
	    .t_ns = t_ns,
	    .op = (uint16_t)op,
	};
	return 0;
}

/* The CPU samples, once there is one, are kept parallel to the records. */
static int cpu_fit(struct ts_trace *t)
{
	struct ts_trace_cpu *c = realloc(t->cpu, (t->rec_cap ? t->rec_cap : 1) * sizeof(*c));
	if (!c)
		return -ENOMEM;
	t->cpu = c;
	return 0;
}

/* So are the request clocks (version 9). */
static int issue_fit(struct ts_trace *t)
{
	struct ts_trace_issue *c = realloc(t->issue, (t->rec_cap ? t->rec_cap : 1) * sizeof(*c));
	if (!c)
		return -ENOMEM;
	t->issue = c;
	return 0;
}

static int push_rec(struct ts_trace *t, const struct ts_trace_rec *r)
{
	size_t cap = t->rec_cap;
	if (grow((void **)&t->recs, &t->rec_cap, t->nrecs + 1, sizeof(*t->recs), 1024))
		return -ENOMEM;
	if (cap != t->rec_cap && ((t->cpu && cpu_fit(t)) || (t->issue && issue_fit(t)))) {
		t->rec_cap = cap; /* recs is larger than needed; harmless */
		return -ENOMEM;
	}
	if (t->cpu)
		memset(&t->cpu[t->nrecs], 0, sizeof(*t->cpu));
	if (t->issue)
		memset(&t->issue[t->nrecs], 0, sizeof(*t->issue));
	t->recs[t->nrecs++] = *r;
	return 0;
}

static int push_path(struct ts_trace *t, const char *s, size_t len,
		     const struct ts_trace_node *nd)
{
	if (grow((void **)&t->paths, &t->path_cap, (size_t)t->npaths + 1, sizeof(*t->paths), 16))
		return -ENOMEM;
	t->paths[0] = NULL;
	/* nodes once a path has one, zero for the paths before it */
	if (nd || t->nodes) {
		size_t cap = t->node_cap;
		if (grow((void **)&t->nodes, &t->node_cap, (size_t)t->npaths + 1, sizeof(*t->nodes),
			 16))
			return -ENOMEM;
		memset(t->nodes + cap, 0, (t->node_cap - cap) * sizeof(*t->nodes));
		t->nodes[t->npaths] = nd ? *nd : (struct ts_trace_node){ 0 };
	}
	if (!(t->paths[t->npaths] = strndup(s, len)))
		return -ENOMEM;
	t->npaths++;
	return push_item(t, TS_ITEM_PATH, t->npaths - 1, 0);
}

/* Whether @nd may be a path item's node in a trace of @version. */
static bool node_ok(const struct ts_trace_node *nd, uint32_t version)
{
	return version >= 11 && nd->flags & TS_NODE_F_SET &&
	       !(nd->flags & ~(TS_NODE_F_SET | TS_NODE_F_DIR)) && nd->ino &&
	       nd->blocks <= INT64_MAX && (nd->blocks == 0 || nd->flags & TS_NODE_F_DIR);
}

void ts_trace_init(struct ts_trace *t)
{
	memset(t, 0, sizeof(*t));
	t->hdr.version = TS_TRACE_VERSION;
	t->hdr.rec_size = TS_TRACE_REC_SIZE;
	t->npaths = 1;
	t->truncated = true; /* until an end item is added */
}

int ts_trace_add_path(struct ts_trace *t, const char *path, uint32_t *id)
{
	size_t len = strlen(path);
	if (len > TS_TRACE_PATH_MAX)
		return -ENAMETOOLONG;
	if (!t->truncated || t->npacked)
		return -EINVAL;
	int ret = push_path(t, path, len, NULL);
	if (!ret && id)
		*id = t->npaths - 1;
	return ret;
}

int ts_trace_add_path_node(struct ts_trace *t, const char *path,
			   const struct ts_trace_node *node, uint32_t *id)
{
	size_t len = strlen(path);
	if (len > TS_TRACE_PATH_MAX)
		return -ENAMETOOLONG;
	if (!t->truncated || t->npacked || !node_ok(node, t->hdr.version))
		return -EINVAL;
	int ret = push_path(t, path, len, node);
	if (!ret && id)
		*id = t->npaths - 1;
	return ret;
}

int ts_trace_intern(struct ts_trace *t, const char *path, uint32_t *id)
{
	for (uint32_t i = t->npaths; i-- > 1;) {
		if (!strcmp(t->paths[i], path)) {
			*id = i;
			return 0;
		}
	}
	return ts_trace_add_path(t, path, id);
}

/* Whether record @r may come next: a packed one only in version 10, at
 * most TS_TRACE_PACK_MAX before their pack. */
static bool packed_ok(const struct ts_trace *t, const struct ts_trace_rec *r)
{
	return !(r->flags & TS_REC_F_PACKED) ||
	       (t->hdr.version >= 10 && t->npacked < TS_TRACE_PACK_MAX);
}

/* Record @r pushed; a packed one noted for its pack. */
static int push_rec_packed(struct ts_trace *t, const struct ts_trace_rec *r)
{
	int ret = push_rec(t, r);
	if (!ret && (r->flags & TS_REC_F_PACKED))
		t->packed_at[t->npacked++] = t->nrecs - 1;
	return ret;
}

int ts_trace_add_rec(struct ts_trace *t, const struct ts_trace_rec *r)
{
	if (!t->truncated || r->op == TS_OP_NONE || r->op >= TS_OP_IO_LAST || !packed_ok(t, r))
		return -EINVAL;
	return push_rec_packed(t, r);
}

int ts_trace_add_pack(struct ts_trace *t)
{
	if (!t->truncated || !t->npacked || t->hdr.version < 10)
		return -EINVAL;
	for (size_t j = 0; j < t->npacked; j++) {
		const struct ts_trace_cpu *c = t->cpu ? &t->cpu[t->packed_at[j]] : NULL;
		if (!c || !c->pid)
			return -EINVAL; /* each has its sample (the text form's cpu line) */
	}
	if (push_item(t, TS_ITEM_PACK, t->npacked, 0))
		return -ENOMEM;
	t->npacked = 0;
	return 0;
}

/* A CPU item's flags: version 4's, one at a time, and an unread clock
 * stored as 0. */
static bool cpu_flags_ok(const struct ts_trace *t, const struct ts_trace_rec *r)
{
	if (!r->flags)
		return true;
	if (t->hdr.version < 4 || (r->flags != TS_CPU_F_GAP && r->flags != TS_CPU_F_RUN))
		return false;
	return r->flags != TS_CPU_F_GAP || (!r->offset && !r->length);
}

int ts_trace_add_cpu(struct ts_trace *t, const struct ts_trace_cpu *cpu)
{
	const struct ts_trace_rec as_item = {
	    .offset = cpu->on_ns, .length = cpu->runq_ns, .flags = cpu->flags};
	if (!t->truncated || t->hdr.version < 2 || !t->nrecs || !cpu->pid ||
	    !cpu_flags_ok(t, &as_item))
		return -EINVAL;
	if (t->nitems && t->items[t->nitems - 1].at_rec == t->nrecs)
		return -EINVAL; /* an item came between the record and its sample */
	if (!t->cpu) {
		if (cpu_fit(t))
			return -ENOMEM;
		memset(t->cpu, 0, t->nrecs * sizeof(*t->cpu));
	}
	struct ts_trace_cpu *c = &t->cpu[t->nrecs - 1];
	if (c->pid || (t->issue && t->issue[t->nrecs - 1].set))
		return -EINVAL; /* one sample a record, before its request clock */
	/* a packed record's: its clock unread, what its pack holds */
	if ((t->recs[t->nrecs - 1].flags & TS_REC_F_PACKED) &&
	    (cpu->flags != TS_CPU_F_GAP || cpu->sys_ns > UINT32_MAX || cpu->late_ns > UINT32_MAX))
		return -EINVAL;
	*c = *cpu;
	t->ncpu++;
	return 0;
}

/* Whether the last record may take request clock @is: a read or write the
 * model charged, without one yet, nothing between them but its CPU sample,
 * and the clock's times in order. */
static bool issue_ok(const struct ts_trace *t, const struct ts_trace_issue *is)
{
	if (!t->truncated || t->hdr.version < 9 || !t->nrecs)
		return false;
	const struct ts_trace_rec *r = &t->recs[t->nrecs - 1];
	if (t->nitems && t->items[t->nitems - 1].at_rec == t->nrecs)
		return false; /* an item came between the record and its clock */
	if (t->issue && t->issue[t->nrecs - 1].set)
		return false;
	if (is->watched && (t->hdr.version < 10 || is->off_ns))
		return false; /* version 10's, and nothing was taken off */
	return (r->op == TS_OP_READ || r->op == TS_OP_WRITE) && !(r->flags & TS_REC_F_NOTIER) &&
	       is->issue_ns <= r->submit_ns && is->issue_ns <= is->end_ns;
}

int ts_trace_add_issue(struct ts_trace *t, const struct ts_trace_issue *is)
{
	if (!issue_ok(t, is))
		return -EINVAL;
	if (!t->issue) {
		if (issue_fit(t))
			return -ENOMEM;
		memset(t->issue, 0, t->nrecs * sizeof(*t->issue));
	}
	t->issue[t->nrecs - 1] = *is;
	t->issue[t->nrecs - 1].set = true;
	if (is->watched)
		t->nwatched++;
	else
		t->nissue++;
	return 0;
}

int ts_trace_add_drops(struct ts_trace *t, uint64_t drops, uint64_t t_ns)
{
	if (!t->truncated || t->npacked)
		return -EINVAL;
	t->dropped = drops;
	return push_item(t, TS_ITEM_DROPS, drops, t_ns);
}

int ts_trace_add_end(struct ts_trace *t, uint64_t drops, uint64_t records, uint64_t t_ns)
{
	if (!t->truncated || t->npacked)
		return -EINVAL;
	memset(&t->end, 0, sizeof(t->end));
	t->end.op = TS_ITEM_END;
	t->end.offset = drops;
	t->end.length = records;
	t->end.submit_ns = t_ns;
	t->dropped = drops;
	t->truncated = false;
	return push_item(t, TS_ITEM_END, 0, t_ns);
}

/* A header string field must be NUL-terminated and zero after the NUL, so
 * that decoding and re-encoding give the same bytes. */
static bool field_ok(const char *s, size_t n)
{
	size_t l = strnlen(s, n);
	if (l == n)
		return false;
	for (size_t i = l; i < n; i++)
		if (s[i])
			return false;
	return true;
}

/*
 * Why one long function: the reader is the trace format's one validator
 * (FORMAT.md), and it reads as the format is laid out — the header (magic,
 * version, sizes, the string fields, the v3 model fields, zero padding),
 * then one loop over fixed-size records where each stream item (path,
 * drops, end, CPU sample) checks the fields it leaves zero and where a cut
 * inside a record or a path is counted as trailing bytes, not refused.
 * Split into helpers, each check would need the offset, the header and the
 * cut state passed around, and the order of the checks, which decides
 * which of two faults a damaged file reports, would no longer be visible
 * in one place. The fuzzer (traces/fuzz) drives this function.
 */
int ts_trace_read_mem(const void *buf, size_t len, const char *name, struct ts_trace *t, char *err,
		      size_t errlen)
{
	const unsigned char *p = buf;
	struct disk_hdr d;
	size_t off;
	int ret;

	memset(t, 0, sizeof(*t));
	if (len < sizeof(d.magic) || memcmp(p, TS_TRACE_MAGIC, sizeof(d.magic)))
		FAIL(TS_E_FORMAT, "%s: not a tiersim trace (no \"%s\" magic at byte 0)", name,
		     TS_TRACE_MAGIC);
	if (len < sizeof(d))
		FAIL(TS_E_TRUNCATED, "%s: cut short inside the header (%zu bytes)", name, len);
	memcpy(&d, p, sizeof(d));
	if (d.version < TS_TRACE_VERSION_MIN || d.version > TS_TRACE_VERSION)
		FAIL(TS_E_VERSION,
		     "%s: trace format version %u; this tiersim reads versions %u to %u — use "
		     "the tiersim that wrote it, or a newer one",
		     name, d.version, TS_TRACE_VERSION_MIN, TS_TRACE_VERSION);
	if (d.hdr_size != TS_TRACE_HDR_SIZE || d.rec_size != TS_TRACE_REC_SIZE || d.flags)
		FAIL(TS_E_CORRUPT,
		     "%s: version %u header with header size %u, record size %u, flags %u "
		     "(expected %u, %u, 0)",
		     name, d.version, d.hdr_size, d.rec_size, d.flags, TS_TRACE_HDR_SIZE,
		     TS_TRACE_REC_SIZE);
	if (!field_ok(d.tier, sizeof(d.tier)) || !field_ok(d.profile, sizeof(d.profile)) ||
	    !field_ok(d.mount_opts, sizeof(d.mount_opts)) || !field_ok(d.host, sizeof(d.host)))
		FAIL(TS_E_CORRUPT, "%s: header string field not NUL-terminated and zero-padded",
		     name);
	if (len < TS_TRACE_HDR_SIZE)
		FAIL(TS_E_TRUNCATED, "%s: cut short inside the header (%zu bytes)", name, len);
	for (size_t i = hdr_end(d.version); i < TS_TRACE_HDR_SIZE; i++)
		if (p[i])
			FAIL(TS_E_CORRUPT, "%s: byte %zu of the reserved header area is not zero",
			     name, i);
	if (d.version >= 3 && !model_ok(&d))
		FAIL(TS_E_CORRUPT,
		     "%s: header model options 0x%x: unknown bits, or a value without its bit",
		     name, d.model);
	ts_trace_init(t);
	hdr_decode(&d, &t->hdr);
	char why[256];
	if (ts_trace_hdr_fs_check(&t->hdr, why, sizeof(why)))
		FAIL(TS_E_CORRUPT, "%s: header: %s", name, why);
	if (ts_trace_hdr_legacy(&t->hdr, why, sizeof(why)))
		FAIL(TS_E_CORRUPT, "%s: header mount_opts: %s", name, why);

	for (off = TS_TRACE_HDR_SIZE; off + TS_TRACE_REC_SIZE <= len;) {
		struct ts_trace_rec r;
		memcpy(&r, p + off, sizeof(r));
		if (!t->truncated)
			FAIL(TS_E_CORRUPT, "%s: byte %zu: data after the trailer", name, off);
		if (r.op > TS_OP_NONE && r.op < TS_OP_IO_LAST) {
			if (!packed_ok(t, &r))
				FAIL(TS_E_CORRUPT,
				     "%s: byte %zu: packed record (flag 0x%x) %s", name, off,
				     TS_REC_F_PACKED,
				     t->hdr.version < 10 ? "in a trace before version 10"
							 : "past a pack's size before its pack");
			if (push_rec_packed(t, &r))
				FAIL(-ENOMEM, "%s: out of memory", name);
			/* its sample: the clock unread, sys_ns and late_ns from its
			 * pack, its process from its thread's (ts_trace_cpu_fill) */
			if (r.flags & TS_REC_F_PACKED) {
				if (!t->cpu) {
					if (cpu_fit(t))
						FAIL(-ENOMEM, "%s: out of memory", name);
					memset(t->cpu, 0, t->nrecs * sizeof(*t->cpu));
				}
				t->cpu[t->nrecs - 1] = (struct ts_trace_cpu){.flags = TS_CPU_F_GAP};
			}
			off += sizeof(r);
			continue;
		}
		/* Stream items: every field they do not use is zero. */
		bool extra = r.complete_ns || r.result || r.size || r.aux || r.tid || r.flags;
		if (t->npacked && (r.op == TS_ITEM_PATH || r.op == TS_ITEM_DROPS ||
				   r.op == TS_ITEM_END))
			FAIL(TS_E_CORRUPT, "%s: byte %zu: packed records before it without their pack",
			     name, off);
		switch (r.op) {
		case TS_ITEM_PATH: {
			size_t plen = (size_t)r.length, padded = (plen + 7) & ~(size_t)7;
			/* version 11: the node in offset, result, size, aux, flags */
			struct ts_trace_node nd = {.ino = r.offset,
						   .blocks = (uint64_t)r.result,
						   .backing_ino = r.size,
						   .inodes = r.aux,
						   .flags = r.flags};
			bool has = r.flags || r.offset || r.result || r.size || r.aux;
			if (r.complete_ns || r.tid || r.submit_ns || (has && !node_ok(&nd, d.version)))
				FAIL(TS_E_CORRUPT, "%s: byte %zu: path item with stray fields%s",
				     name, off,
				     has && d.version < 11 ? " (a node is version 11's)" : "");
			if (r.file_id != t->npaths)
				FAIL(TS_E_CORRUPT,
				     "%s: byte %zu: path id %u out of order (expected %u)", name,
				     off, r.file_id, t->npaths);
			if (r.length > TS_TRACE_PATH_MAX)
				FAIL(TS_E_CORRUPT, "%s: byte %zu: path length %llu exceeds %u",
				     name, off, (unsigned long long)r.length, TS_TRACE_PATH_MAX);
			if (off + sizeof(r) + padded > len) {
				goto cut; /* cut inside the path: counts as trailing */
			}
			const char *s = (const char *)p + off + sizeof(r);
			if (memchr(s, 0, plen))
				FAIL(TS_E_CORRUPT, "%s: byte %zu: NUL inside path %u", name, off,
				     r.file_id);
			for (size_t i = plen; i < padded; i++)
				if (s[i])
					FAIL(TS_E_CORRUPT, "%s: byte %zu: path padding not zero",
					     name, off);
			if (push_path(t, s, plen, has ? &nd : NULL))
				FAIL(-ENOMEM, "%s: out of memory", name);
			off += sizeof(r) + padded;
			continue;
		}
		case TS_ITEM_DROPS:
			if (extra || r.file_id || r.length)
				FAIL(TS_E_CORRUPT, "%s: byte %zu: drop item with stray fields",
				     name, off);
			if (ts_trace_add_drops(t, r.offset, r.submit_ns))
				FAIL(-ENOMEM, "%s: out of memory", name);
			break;
		case TS_ITEM_END:
			if (extra || r.file_id)
				FAIL(TS_E_CORRUPT, "%s: byte %zu: trailer with stray fields", name,
				     off);
			if (ts_trace_add_end(t, r.offset, r.length, r.submit_ns))
				FAIL(-ENOMEM, "%s: out of memory", name);
			break;
		case TS_ITEM_CPU: {
			if (t->hdr.version < 2)
				FAIL(TS_E_CORRUPT, "%s: byte %zu: CPU sample in a version %u trace",
				     name, off, t->hdr.version);
			if (r.submit_ns || r.result || !r.file_id || !cpu_flags_ok(t, &r))
				FAIL(TS_E_CORRUPT, "%s: byte %zu: CPU sample with stray fields",
				     name, off);
			if (!t->nrecs ||
			    (t->nitems && t->items[t->nitems - 1].at_rec == t->nrecs) ||
			    (t->recs[t->nrecs - 1].flags & TS_REC_F_PACKED) ||
			    (t->cpu && t->cpu[t->nrecs - 1].pid) ||
			    (t->issue && t->issue[t->nrecs - 1].set) ||
			    t->recs[t->nrecs - 1].tid != r.tid)
				FAIL(TS_E_CORRUPT,
				     "%s: byte %zu: CPU sample not right after a record of thread "
				     "%u",
				     name, off, r.tid);
			struct ts_trace_cpu c = {.on_ns = r.offset,
						 .runq_ns = r.length,
						 .sys_ns = r.size,
						 .late_ns = r.complete_ns,
						 .pid = r.file_id,
						 .ppid = r.aux,
						 .flags = r.flags};
			int e = ts_trace_add_cpu(t, &c);
			if (e)
				FAIL(e, "%s: out of memory", name);
			break;
		}
		case TS_ITEM_ISSUE: {
			if (t->hdr.version < 9)
				FAIL(TS_E_CORRUPT,
				     "%s: byte %zu: request clock in a version %u trace (version "
				     "9's)",
				     name, off, t->hdr.version);
			if (r.length || r.result || r.size || r.file_id || r.aux ||
			    (r.flags & ~TS_ISSUE_F_WATCHED) || (r.flags && t->hdr.version < 10))
				FAIL(TS_E_CORRUPT, "%s: byte %zu: request clock with stray fields",
				     name, off);
			struct ts_trace_issue is = {.issue_ns = r.submit_ns,
						    .end_ns = r.complete_ns,
						    .off_ns = r.offset,
						    .watched = r.flags & TS_ISSUE_F_WATCHED};
			if (!t->nrecs || t->recs[t->nrecs - 1].tid != r.tid || !issue_ok(t, &is))
				FAIL(TS_E_CORRUPT,
				     "%s: byte %zu: request clock not right after a modeled read "
				     "or write of thread %u (and its CPU sample), or issued after "
				     "it came or after the model's completion",
				     name, off, r.tid);
			int e = ts_trace_add_issue(t, &is);
			if (e)
				FAIL(e, "%s: out of memory", name);
			break;
		}
		case TS_ITEM_PACK: {
			const uint64_t v[TS_TRACE_PACK_MAX] = {r.submit_ns, r.complete_ns, r.offset,
							       r.length, (uint64_t)r.result, r.size};
			bool stray = t->hdr.version < 10 || r.aux || r.tid || r.flags ||
				     !r.file_id || r.file_id != t->npacked;
			for (size_t j = r.file_id; j < TS_TRACE_PACK_MAX && !stray; j++)
				stray = v[j] != 0;
			if (stray)
				FAIL(TS_E_CORRUPT,
				     "%s: byte %zu: pack item of %u samples after %zu packed records, "
				     "or with stray fields",
				     name, off, r.file_id, t->npacked);
			for (size_t j = 0; j < t->npacked; j++) {
				struct ts_trace_cpu *c = &t->cpu[t->packed_at[j]];
				c->sys_ns = v[j] & UINT32_MAX;
				c->late_ns = v[j] >> 32;
			}
			if (push_item(t, TS_ITEM_PACK, t->npacked, 0))
				FAIL(-ENOMEM, "%s: out of memory", name);
			t->npacked = 0;
			break;
		}
		default:
			FAIL(TS_E_CORRUPT, "%s: byte %zu: unknown op %u", name, off, r.op);
		}
		off += sizeof(r);
	}
cut:
	t->trailing_bytes = len - off;
	if (!t->truncated && t->trailing_bytes)
		FAIL(TS_E_CORRUPT, "%s: %llu stray bytes after the trailer", name,
		     (unsigned long long)t->trailing_bytes);
	if (!t->paths && grow((void **)&t->paths, &t->path_cap, 1, sizeof(*t->paths), 16))
		FAIL(-ENOMEM, "%s: out of memory", name);
	t->paths[0] = NULL;
	if (ts_trace_cpu_fill(t))
		FAIL(-ENOMEM, "%s: out of memory", name);
	return 0;
fail:
	ts_trace_free(t);
	return ret;
}

int ts_trace_read(const char *path, struct ts_trace *t, char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret;
	struct stat st;
	char *buf = NULL;

	memset(t, 0, sizeof(*t));
	if (fd < 0 || fstat(fd, &st)) {
		ret = -errno;
		if (err)
			snprintf(err, errlen, "%s: %s", path, strerror(-ret));
		if (fd >= 0)
			close(fd);
		return ret;
	}
	size_t len = (size_t)st.st_size, got = 0;
	buf = malloc(len ? len : 1);
	if (!buf) {
		close(fd);
		if (err)
			snprintf(err, errlen, "%s: out of memory reading %zu bytes", path, len);
		return -ENOMEM;
	}
	while (got < len) {
		ssize_t n = read(fd, buf + got, len - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			ret = n < 0 ? -errno : -EIO;
			if (err)
				snprintf(err, errlen, "%s: read: %s", path, strerror(-ret));
			free(buf);
			close(fd);
			return ret;
		}
		got += (size_t)n;
	}
	close(fd);
	ret = ts_trace_read_mem(buf, len, path, t, err, errlen);
	free(buf);
	return ret;
}

void ts_trace_free(struct ts_trace *t)
{
	if (t->paths)
		for (uint32_t i = 1; i < t->npaths; i++)
			free(t->paths[i]);
	free(t->paths);
	free(t->nodes);
	free(t->recs);
	free(t->cpu);
	free(t->issue);
	free(t->items);
	memset(t, 0, sizeof(*t));
}

static int write_all(FILE *f, const void *p, size_t n)
{
	return fwrite(p, 1, n, f) == n ? 0 : (errno ? -errno : -EIO);
}

static int write_recs(FILE *f, const struct ts_trace *t, size_t from, size_t to)
{
	if (!t->cpu && !t->issue)
		return from < to ? write_all(f, t->recs + from, (to - from) * sizeof(*t->recs)) : 0;
	for (size_t i = from; i < to; i++) {
		int ret = write_all(f, &t->recs[i], sizeof(t->recs[i]));
		const struct ts_trace_cpu *c = t->cpu ? &t->cpu[i] : NULL;
		const struct ts_trace_issue *is = t->issue ? &t->issue[i] : NULL;
		if (ret)
			return ret;
		/* a packed record's sample goes into its pack */
		if (c && c->pid && !(t->recs[i].flags & TS_REC_F_PACKED)) {
			/* an unread clock holds the reader's estimate: 0 in the file */
			bool unread = c->flags & TS_CPU_F_GAP;
			struct ts_trace_rec it = {.offset = unread ? 0 : c->on_ns,
						  .length = unread ? 0 : c->runq_ns,
						  .size = c->sys_ns,
						  .complete_ns = c->late_ns,
						  .file_id = c->pid,
						  .aux = c->ppid,
						  .tid = t->recs[i].tid,
						  .op = TS_ITEM_CPU,
						  .flags = c->flags};
			if ((ret = write_all(f, &it, sizeof(it))))
				return ret;
		}
		if (is && is->set) {
			struct ts_trace_rec it = {.submit_ns = is->issue_ns,
						  .complete_ns = is->end_ns,
						  .offset = is->off_ns,
						  .tid = t->recs[i].tid,
						  .op = TS_ITEM_ISSUE,
						  .flags = is->watched ? TS_ISSUE_F_WATCHED : 0};
			if ((ret = write_all(f, &it, sizeof(it))))
				return ret;
		}
	}
	return 0;
}

/* mkostemp() creates 0600: a trace replacing a file keeps that file's mode;
 * a new one gets what fopen() would give it (0666 less the umask, read by
 * setting it back at once — the writers are the single-threaded tools). */
static int keep_mode(const char *tmp, const char *path)
{
	struct stat st;
	if (stat(path, &st) == 0)
		return chmod(tmp, st.st_mode & 07777);
	mode_t um = umask(0);
	umask(um);
	return chmod(tmp, 0666 & ~um);
}

static int write_trace(FILE *f, const struct ts_trace *t)
{
	static const char zero[8];
	unsigned char hdr[TS_TRACE_HDR_SIZE];
	size_t done = 0;
	int ret;

	setvbuf(f, NULL, _IOFBF, 1 << 20);
	hdr_encode(&t->hdr, hdr);
	ret = write_all(f, hdr, sizeof(hdr));
	for (size_t i = 0; i < t->nitems && !ret; i++) {
		const struct ts_trace_item *it = &t->items[i];
		size_t at = TS_MIN((size_t)it->at_rec, t->nrecs);
		struct ts_trace_rec r = {.op = it->op};
		ret = write_recs(f, t, done, at);
		done = TS_MAX(done, at);
		if (ret)
			break;
		switch (it->op) {
		case TS_ITEM_PATH: {
			const char *p = ts_trace_path(t, (uint32_t)it->val);
			size_t len = strlen(p);
			r = path_item((uint32_t)it->val, len, ts_trace_node_of(t, (uint32_t)it->val));
			ret = write_all(f, &r, sizeof(r));
			if (!ret)
				ret = write_all(f, p, len);
			if (!ret)
				ret = write_all(f, zero, (8 - len % 8) % 8);
			break;
		}
		case TS_ITEM_DROPS:
			r.offset = it->val;
			r.submit_ns = it->t_ns;
			ret = write_all(f, &r, sizeof(r));
			break;
		case TS_ITEM_END:
			ret = write_all(f, &t->end, sizeof(t->end));
			break;
		case TS_ITEM_PACK: {
			/* the samples of the last val packed records before it */
			uint64_t v[TS_TRACE_PACK_MAX] = {0};
			size_t n = (size_t)TS_MIN(it->val, (uint64_t)TS_TRACE_PACK_MAX), j = n;
			for (size_t k = at; k-- > 0 && j;)
				if (t->recs[k].flags & TS_REC_F_PACKED && t->cpu)
					v[--j] = t->cpu[k].sys_ns | t->cpu[k].late_ns << 32;
			r = (struct ts_trace_rec){.submit_ns = v[0],
						  .complete_ns = v[1],
						  .offset = v[2],
						  .length = v[3],
						  .result = (int64_t)v[4],
						  .size = v[5],
						  .file_id = (uint32_t)n,
						  .op = TS_ITEM_PACK};
			ret = write_all(f, &r, sizeof(r));
			break;
		}
		}
	}
	if (!ret)
		ret = write_recs(f, t, done, t->nrecs);
	return ret;
}

/*
 * A regular file (or a new one) is written beside its final name and renamed
 * over it only when complete, so a failed write (full disk) never destroys
 * the trace that was there nor leaves a short one that reads as "cut short".
 * Anything else (/dev/null, a pipe) is written in place.
 */
int ts_trace_write(const struct ts_trace *t, const char *path)
{
	struct stat st;
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		FILE *f = fopen(path, "wbe");
		if (!f)
			return -errno;
		int ret = write_trace(f, t);
		if (fclose(f) && !ret)
			ret = -errno;
		return ret;
	}
	size_t n = strlen(path) + sizeof(".XXXXXX");
	char *tmp = malloc(n);
	if (!tmp)
		return -ENOMEM;
	snprintf(tmp, n, "%s.XXXXXX", path);
	int fd = mkostemp(tmp, O_CLOEXEC);
	FILE *f = fd < 0 ? NULL : fdopen(fd, "wb");
	int ret = f ? write_trace(f, t) : -errno;
	if (f && fclose(f) && !ret)
		ret = -errno;
	else if (!f && fd >= 0)
		close(fd);
	if (!ret && (keep_mode(tmp, path) || rename(tmp, path)))
		ret = -errno;
	if (ret && fd >= 0)
		unlink(tmp);
	free(tmp);
	return ret;
}

const char *ts_trace_path(const struct ts_trace *t, uint32_t id)
{
	return id && id < t->npaths && t->paths[id] ? t->paths[id] : "";
}

const char *ts_trace_warning(const struct ts_trace *t, char *buf, size_t n)
{
	if (t->truncated)
		snprintf(buf, n,
			 "trace cut short (no trailer; %llu trailing bytes): read up to its last "
			 "complete record; %llu records dropped while recording",
			 (unsigned long long)t->trailing_bytes, (unsigned long long)t->dropped);
	else if (t->dropped)
		snprintf(buf, n, "%llu records dropped while recording (the trace is incomplete)",
			 (unsigned long long)t->dropped);
	else
		return NULL;
	return buf;
}
