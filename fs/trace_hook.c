/*
 * trace_hook.c — tierfs -o trace=FILE: every request tierfs counts goes to
 * a trace (traces/trace.h) once it has completed, from ts_fs_req_end().
 *
 * The writer is opened once the model has started (the FUSE round trip is
 * measured by then), so the header carries the model options the run really
 * used — floor included — and a virtual replay of the trace (tiersim replay
 * --virtual) drives the model exactly as tierfs did. put() never blocks a
 * request thread: a full ring goes on in a new segment (traces/trace.c,
 * the spill, up to 64 MiB over all rings), and past that drops the record
 * and counts it; the count is written into the trace and reported at
 * unmount, with the spills.
 *
 * Paths. libfuse passes no path to the ops on an open file (nullpath_ok),
 * so the hook remembers which path each inode was opened or created under
 * and names reads, writes, fsyncs and closes by it. A file renamed while
 * open keeps its old name in the trace.
 *
 * CPU samples. With every record goes the requesting thread's CPU clock
 * (traces/FORMAT.md, "CPU samples"): /proc/TID/schedstat, read while the
 * request is in tierfs, which is what it was when the request arrived,
 * since a thread blocked in a request does not run. That read is the one
 * syscall tracing adds to a request (0.4-0.7 us of the worker's CPU in a
 * loop here, bench/trace_clock), so it is made while
 * the tier model's latency elapses where there is one (ts_fs_trace_sample,
 * before the daemon sleeps), and it is left out where it can only say
 * little (below). -o trace_cpu=false leaves every one out.
 * The cheaper reads Linux offers give other figures (bench/trace_clock,
 * bench/README.md): a perf task-clock counter opened on the thread (about
 * 0.2 us a read) counts only while the thread runs, so it has no time
 * runnable, and its time on a CPU moved from schedstat's by -0.7% to +7%
 * on this guest (its clock is not the scheduler's); another process's
 * process CPU clock (clock_gettime, about 0.16 us) is schedstat's time on
 * a CPU only while that process has one thread, which cannot be known
 * without a read of its own, and has no time runnable either.
 *
 * Samples left unread (traces/FORMAT.md). Between its previous reply and
 * this request the thread used at most the gap between them on a CPU.
 * The clock is left unread where that gap is within a limit and the
 * record says so (TS_CPU_F_GAP); the reader estimates it from the read
 * ones around it. What a run of unread clocks can misplace is at most the
 * sum of its gaps, so that sum is kept within a budget. The unit is the
 * threshold, two FUSE round trips (the floor the mount measured), within
 * which the replay's wait rule takes a gap for delivery whatever its split
 * (traces/stats.c); a gap may stay unread up to 8 thresholds (assumed:
 * from 1, which reads a clock at every gap past the threshold and costs
 * 16 threads on 2 CPUs, whose gaps are mostly waits for a CPU, 0.91 of
 * untraced IOPS, to 32, the budget), the run's gaps up to 32 (assumed; at
 * most the 4.19 ms the slot's field holds). A clock read at a gap within
 * the limit is marked (TS_CPU_F_RUN): its interval has such gaps only,
 * and measures the thread's CPU share of them, which the reader gives
 * the unread ones. So that every thread has that share measured, not
 * only those whose runs spend the budget, each worker also reads one
 * such gap in 256 (assumed). Applied offline to a fio recording with
 * every clock read (4 KiB random reads at QD1 and QD16, 66,532 requests),
 * a threshold's limit and budget of 8 thresholds with one short gap in 32
 * read took 4.0% of the clocks, and 0.6% with a budget of 32 and one in
 * 256; bench/trace_sparse.sh replays a PyTorch loader's recording both
 * ways for each rule (traces/README.md). -o trace_cpu_every=true reads
 * every clock.
 * The gap is taken from a table shared by the workers
 * (a thread's successive requests go to any of them), one word per slot:
 * the thread id, the reply time and the run's gaps so far, both in
 * 1.024 us units; a slot another thread holds means no gap is known, and
 * the clock is read.
 *
 * One table of open schedstat files, keyed by tid, serves every worker (a
 * pread of a file kept open is one syscall, and no lock is taken; the
 * table's note is below). A thread's files are opened once for the mount,
 * by the first worker it reaches: when each worker kept its own, every
 * worker opened every thread's files (an open, a read of /proc/TID/status
 * and two closes each: 16 threads at QD16 reached 35 workers, 560 sets),
 * and again for each worker libfuse started after a lull. A dead thread's
 * file answers ESRCH, and the tid is then opened afresh (the kernel may
 * have reused it). Its process and parent are read once, from
 * /proc/TID/status, when the file is opened; a request whose clock stays
 * unread takes them from the table, with no syscall.
 *
 * Otherwise a read or write (an fh-only request) takes no lock and makes no
 * syscall: the record goes to the worker's own ring (traces/trace.c; a ring
 * half full wakes the writer, once per half ring), and the inode map that
 * names it is read without a lock. A request that carries a path (open,
 * getattr...) interns it under the string table's lock.
 */
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "core/units.h"
#include "fs/daemon.h"
#include "traces/trace.h"

#define CLOCK_SLOTS 512 /* the clock table's slots (a power of two) */
#define CLOCK_PROBES 8	/* a tid sits within this many slots of its hash */

/* The gap table: 4096 slots of one word each (tid, reply time, the run's
 * gaps so far; see above). */
#define GAP_SLOTS 4096
#define GAP_TID_BITS 22 /* Linux's pid_max is at most 2^22 */
#define GAP_OWED_BITS 12
#define GAP_WHEN_BITS (64 - GAP_TID_BITS - GAP_OWED_BITS)
#define GAP_UNIT_SHIFT 10  /* 1.024 us */
#define GAP_LIMIT_RUNS 8   /* a gap left unread: up to 8 thresholds (assumed, above) */
#define GAP_BUDGET_RUNS 32 /* budget = 32 thresholds (assumed, above) */
#define GAP_LEARN 256	   /* one short gap in 256 read all the same (assumed, above) */

/*
 * The inode map: written under tr->lock (opens and creates), read without a
 * lock by every fh-only request. A slot's id is stored before its inode
 * (release), so a reader that finds the inode (acquire) finds an id with it;
 * a reopen under another name replaces the id in place. A full table is
 * copied into one twice its size and published; the old one stays allocated
 * until close, since a reader may still be probing it (together under twice
 * the final table's size).
 */
struct imap {
	struct imap *older; /* retired tables, freed at close */
	size_t cap;	    /* a power of two */
	size_t n;	    /* slots used (under tr->lock) */
	struct islot {
		_Atomic uint64_t ino; /* 0 = empty slot */
		_Atomic uint32_t id;
	} s[];
};

/*
 * The clock table: one open /proc/TID/schedstat per requesting thread,
 * shared by the workers. A slot is filled or refilled under tr->lock and
 * read without one, under a sequence count (even: stable; odd: being
 * changed): a reader that sees the count move across its read drops what
 * it read. A slot's file descriptor, once open, stays open until unmount
 * and keeps its number: a slot given to another thread gets that
 * thread's file through dup2(), which swaps the file under the number at
 * once, so a read racing the swap reads one file or the other, never a
 * descriptor closed and reused by an open elsewhere in the daemon.
 */
struct tclock {
	_Atomic uint32_t seq;
	_Atomic uint32_t tid; /* 0 = free */
	_Atomic int fd;	      /* /proc/TID/schedstat; -1: none yet */
	_Atomic uint32_t pid, ppid; /* from /proc/TID/status */
};

struct ts_fs_trace {
	struct ts_trace_writer *w;
	pthread_mutex_t lock; /* map writers; clock table writers */
	_Atomic(struct imap *) map;
	unsigned evict; /* under lock: the next victim when a tid's probes are full */
	uint64_t gap_units, budget_units; /* the limit, the budget; 0: every clock is read */
	_Atomic uint64_t gaps[GAP_SLOTS];
	struct tclock clocks[CLOCK_SLOTS];
};

/* A worker's count of gaps within the limit: one in GAP_LEARN is read. */
static _Thread_local unsigned shorts;

static size_t slot(uint64_t ino, size_t cap)
{
	return (size_t)((ino * 0x9E3779B97F4A7C15ULL) >> 17) & (cap - 1);
}

static void imap_put(struct imap *m, uint64_t ino, uint32_t id)
{
	size_t k = slot(ino, m->cap);
	uint64_t cur;
	while ((cur = atomic_load_explicit(&m->s[k].ino, memory_order_relaxed)) && cur != ino)
		k = (k + 1) & (m->cap - 1);
	atomic_store_explicit(&m->s[k].id, id, memory_order_relaxed);
	if (!cur) {
		atomic_store_explicit(&m->s[k].ino, ino, memory_order_release);
		m->n++;
	}
}

/* Under lock. */
static void map_set(struct ts_fs_trace *tr, uint64_t ino, uint32_t id)
{
	struct imap *m = atomic_load_explicit(&tr->map, memory_order_relaxed);
	if (!m || (m->n + 1) * 2 >= m->cap) {
		size_t cap = m ? m->cap * 2 : 1024;
		struct imap *g = calloc(1, sizeof(*g) + cap * sizeof(g->s[0]));
		if (!g)
			return; /* the file's fh-only ops then carry no path */
		g->cap = cap;
		g->older = m;
		for (size_t i = 0; m && i < m->cap; i++) {
			uint64_t ino2 = atomic_load_explicit(&m->s[i].ino, memory_order_relaxed);
			if (ino2)
				imap_put(g, ino2,
					 atomic_load_explicit(&m->s[i].id, memory_order_relaxed));
		}
		atomic_store_explicit(&tr->map, g, memory_order_release);
		m = g;
	}
	imap_put(m, ino, id);
}

static uint32_t map_get(struct ts_fs_trace *tr, uint64_t ino)
{
	const struct imap *m = atomic_load_explicit(&tr->map, memory_order_acquire);
	if (!m)
		return 0;
	for (size_t k = slot(ino, m->cap);; k = (k + 1) & (m->cap - 1)) {
		uint64_t cur = atomic_load_explicit(&m->s[k].ino, memory_order_acquire);
		if (cur == ino)
			return atomic_load_explicit(&m->s[k].id, memory_order_relaxed);
		if (!cur)
			return 0;
	}
}

/* Thread @tid's process and parent, from /proc/TID/status; false: gone. */
static bool tid_status(uint32_t tid, uint32_t *pid, uint32_t *ppid)
{
	char path[64], buf[2048];

	snprintf(path, sizeof(path), "/proc/%u/status", tid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : pread(fd, buf, sizeof(buf) - 1, 0);
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return false;
	buf[n] = 0;
	const char *tg = strstr(buf, "\nTgid:"), *pp = strstr(buf, "\nPPid:");
	if (!tg || !pp)
		return false;
	*pid = (uint32_t)strtoul(tg + 6, NULL, 10);
	*ppid = (uint32_t)strtoul(pp + 6, NULL, 10);
	return *pid != 0;
}

/* A decimal number at *@p, and *@p past it and one space; false when none. */
static bool num(const char **p, uint64_t *v)
{
	const char *s = *p;
	uint64_t x = 0;
	if (*s < '0' || *s > '9')
		return false;
	for (; *s >= '0' && *s <= '9'; s++)
		x = x * 10 + (uint64_t)(*s - '0');
	*v = x;
	*p = *s == ' ' ? s + 1 : s;
	return true;
}

static uint32_t tid_hash(uint32_t tid)
{
	return (tid * 2654435761u) >> 16;
}

/* Under tr->lock: slot @c given to thread @tid, its files opened; left
 * free when they cannot be had. Its count is odd meanwhile. */
static void clock_fill(struct tclock *c, uint32_t tid)
{
	char path[64];
	uint32_t pid = 0, ppid = 0;
	int fd = -1;

	if (tid_status(tid, &pid, &ppid)) {
		snprintf(path, sizeof(path), "/proc/%u/schedstat", tid);
		fd = open(path, O_RDONLY | O_CLOEXEC);
	}
	uint32_t seq = atomic_load_explicit(&c->seq, memory_order_relaxed);
	atomic_store_explicit(&c->seq, seq + 1, memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
	int old = atomic_load_explicit(&c->fd, memory_order_relaxed);
	bool ok = fd >= 0;
	if (ok && old >= 0) { /* the new file under the slot's number */
		ok = dup2(fd, old) >= 0;
		close(fd);
		fd = old;
	}
	atomic_store_explicit(&c->fd, fd >= 0 ? fd : old, memory_order_relaxed);
	atomic_store_explicit(&c->pid, pid, memory_order_relaxed);
	atomic_store_explicit(&c->ppid, ppid, memory_order_relaxed);
	atomic_store_explicit(&c->tid, ok ? tid : 0, memory_order_relaxed);
	atomic_store_explicit(&c->seq, seq + 2, memory_order_release);
}

/* The slot holding thread @tid, without a lock; NULL: none. */
static struct tclock *clock_find(struct ts_fs_trace *tr, uint32_t tid)
{
	uint32_t h = tid_hash(tid);
	for (unsigned i = 0; i < CLOCK_PROBES; i++) {
		struct tclock *c = &tr->clocks[(h + i) & (CLOCK_SLOTS - 1)];
		if (atomic_load_explicit(&c->tid, memory_order_relaxed) == tid)
			return c;
	}
	return NULL;
}

/* The slot for thread @tid: found, or filled under the lock (a free slot
 * among its probes, else one of them in turn); NULL when its /proc files
 * cannot be had. With @stale, the slot that held it is refilled (its
 * file answered ESRCH: the thread is gone, or its tid was reused). */
static struct tclock *clock_slot(struct ts_fs_trace *tr, uint32_t tid, struct tclock *stale)
{
	struct tclock *c = stale ? NULL : clock_find(tr, tid);
	if (c)
		return c;
	pthread_mutex_lock(&tr->lock);
	c = clock_find(tr, tid);
	if (!c || c == stale) {
		uint32_t h = tid_hash(tid);
		for (unsigned i = 0; !c && i < CLOCK_PROBES; i++) {
			struct tclock *f = &tr->clocks[(h + i) & (CLOCK_SLOTS - 1)];
			if (!atomic_load_explicit(&f->tid, memory_order_relaxed))
				c = f;
		}
		if (!c)
			c = &tr->clocks[(h + tr->evict++ % CLOCK_PROBES) & (CLOCK_SLOTS - 1)];
		clock_fill(c, tid);
		if (atomic_load_explicit(&c->tid, memory_order_relaxed) != tid)
			c = NULL;
	}
	pthread_mutex_unlock(&tr->lock);
	return c;
}

/* Reads slot @c as thread @tid's: 1 with its clock in *@out (with
 * @clock) or only its process and parent; 0 when the slot changed
 * meanwhile; -1 when its file answered an error (the thread is gone). */
static int clock_read(struct tclock *c, uint32_t tid, bool clock, struct ts_trace_cpu *out)
{
	char buf[96];
	uint64_t on = 0, runq = 0;
	ssize_t n = 1;

	uint32_t seq = atomic_load_explicit(&c->seq, memory_order_acquire);
	if (seq & 1)
		return 0;
	uint32_t t = atomic_load_explicit(&c->tid, memory_order_relaxed);
	int fd = atomic_load_explicit(&c->fd, memory_order_relaxed);
	uint32_t pid = atomic_load_explicit(&c->pid, memory_order_relaxed);
	uint32_t ppid = atomic_load_explicit(&c->ppid, memory_order_relaxed);
	if (clock && t == tid)
		n = pread(fd, buf, sizeof(buf) - 1, 0);
	atomic_thread_fence(memory_order_acquire);
	if (t != tid || atomic_load_explicit(&c->seq, memory_order_relaxed) != seq)
		return 0;
	if (n <= 0)
		return -1;
	if (clock) {
		buf[n] = 0;
		const char *p = buf;
		if (!num(&p, &on) || !num(&p, &runq))
			return -1;
	}
	*out = (struct ts_trace_cpu){.on_ns = on, .runq_ns = runq, .pid = pid, .ppid = ppid};
	return 1;
}

/* Thread @tid's CPU sample (@clock) or only its process and parent;
 * false when it has none (it is gone, or /proc does not say). */
static bool tid_read(struct ts_fs_trace *tr, uint32_t tid, bool clock, struct ts_trace_cpu *out)
{
	struct tclock *stale = NULL;

	if (!tid)
		return false;
	for (int tries = 0; tries < 3; tries++) {
		struct tclock *c = clock_slot(tr, tid, stale);
		if (!c)
			return false;
		int rc = clock_read(c, tid, clock, out);
		if (rc > 0)
			return true;
		/* gone: its slot refilled once, in case the tid was reused */
		if (rc < 0 && stale)
			return false;
		stale = rc < 0 ? c : NULL;
	}
	return false;
}

static uint64_t mask(unsigned bits)
{
	return (UINT64_C(1) << bits) - 1;
}

static _Atomic uint64_t *gap_slot(struct ts_fs_trace *tr, uint32_t tid)
{
	return &tr->gaps[(tid * 2654435761u) >> 20 & (GAP_SLOTS - 1)];
}

/* Whether thread @tid's clock may stay unread for a request that arrived at
 * @submit_ns (the gap since its previous reply is within the limit, and
 * the run's within the budget); *@run: read at a gap within the limit (the
 * budget spent, or one in GAP_LEARN). */
static bool gap_skip(struct ts_fs_trace *tr, uint32_t tid, uint64_t submit_ns, bool *run,
		     uint64_t *owed_out)
{
	*run = false;
	if (!tr->gap_units || tid > mask(GAP_TID_BITS))
		return false;
	uint64_t v = atomic_load_explicit(gap_slot(tr, tid), memory_order_relaxed);
	if ((v & mask(GAP_TID_BITS)) != tid)
		return false;
	uint64_t owed = v >> GAP_TID_BITS & mask(GAP_OWED_BITS);
	uint64_t when = v >> (GAP_TID_BITS + GAP_OWED_BITS);
	uint64_t gap = ((submit_ns >> GAP_UNIT_SHIFT) - when) & mask(GAP_WHEN_BITS);
	if (gap > tr->gap_units) /* long, or before the reply (async) */
		return false;
	if (owed + gap > tr->budget_units || ++shorts % GAP_LEARN == 0) {
		*run = true;
		return false;
	}
	/* From this one load: another worker may rewrite the slot meanwhile. */
	*owed_out = owed + gap;
	return true;
}

/* Thread @tid's request replied at @complete_ns; @owed: the run's gaps
 * so far (0 after a read clock). */
static void gap_note(struct ts_fs_trace *tr, uint32_t tid, uint64_t complete_ns, uint64_t owed)
{
	if (!tr->gap_units || tid > mask(GAP_TID_BITS))
		return;
	uint64_t when = (complete_ns >> GAP_UNIT_SHIFT) & mask(GAP_WHEN_BITS);
	atomic_store_explicit(gap_slot(tr, tid),
			      tid | TS_MIN(owed, mask(GAP_OWED_BITS)) << GAP_TID_BITS |
				  when << (GAP_TID_BITS + GAP_OWED_BITS),
			      memory_order_relaxed);
}

void ts_fs_trace_sample(struct ts_fs *fs, struct ts_fs_req *r)
{
	struct ts_fs_trace *tr = __atomic_load_n(&fs->trace, __ATOMIC_ACQUIRE);
	bool run;
	uint64_t owed;

	r->cpu_state = TS_FS_CPU_NONE;
	if (!tr || !fs->o.trace_cpu || !r->tid)
		return;
	uint32_t tid = (uint32_t)r->tid;
	if (gap_skip(tr, tid, r->submit_ns, &run, &owed) && tid_read(tr, tid, false, &r->cpu)) {
		r->cpu_state = TS_FS_CPU_UNREAD;
		r->cpu_owed = owed;
		r->cpu.flags = TS_CPU_F_GAP;
		return;
	}
	if (tid_read(tr, tid, true, &r->cpu)) {
		r->cpu_state = TS_FS_CPU_READ;
		r->cpu.flags = run ? TS_CPU_F_RUN : 0;
	}
}

int ts_fs_trace_check(struct ts_fs *fs, char *err, size_t n)
{
	char dir[PATH_MAX], abs[PATH_MAX];
	const char *path = fs->o.trace;

	if (fs->o.bare) {
		snprintf(err, n,
			 "option 'trace' needs a tier: a bare mount models and records "
			 "nothing (use tier=unlimited to record without throttling)");
		return -EINVAL;
	}
	/* absolute, since the daemon changes to / */
	const char *slash = strrchr(path, '/');
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path) : 1,
		 slash ? (slash == path ? "/" : path) : ".");
	if (!realpath(dir, abs)) {
		snprintf(err, n, "trace=%s: directory %s: %s", path, dir, strerror(errno));
		return -errno;
	}
	size_t l = strlen(abs);
	if (snprintf(abs + l, sizeof(abs) - l, "/%s", slash ? slash + 1 : path) >=
	    (int)(sizeof(abs) - l)) {
		snprintf(err, n, "trace=%s: path too long", path);
		return -ENAMETOOLONG;
	}
	if (access(abs, F_OK) == 0 ? access(abs, W_OK) : access(dir, W_OK)) {
		snprintf(err, n, "trace=%s: cannot write it: %s", path, strerror(errno));
		return -errno;
	}
	char *copy = strdup(abs);
	if (!copy)
		return -ENOMEM;
	free(fs->o.trace);
	fs->o.trace = copy;
	return 0;
}

int ts_fs_trace_open(struct ts_fs *fs, char *err, size_t n)
{
	struct ts_trace_hdr h = {0};
	struct ts_trace_writer *w;
	struct ts_tier_cfg cfg = fs->cfg;
	char v[64];
	size_t len = 0;

	cfg.floor_ns = fs->floor_ns;
	snprintf(h.tier, sizeof(h.tier), "%s", ts_fs_model_tier(fs));
	snprintf(h.profile, sizeof(h.profile), "%s", fs->o.profile ? fs->o.profile : "");
	json_t *st = ts_fs_model_stats(fs);
	json_t *cap = st ? json_object_get(json_object_get(st, "limits"), "capacity_bytes") : NULL;
	h.capacity = json_is_integer(cap) ? (uint64_t)json_integer_value(cap) : cfg.capacity;
	json_decref(st);
	h.mem = cfg.mem;
	/* the model options as used, floor as measured, so that tiersim
	 * replay drives the same model */
	h.model = TS_TRACE_MODEL_ALL;
	h.seed = cfg.seed;
	h.floor_ns = cfg.floor_ns;
	h.dirty_limit = cfg.dirty_limit;
	h.ra_max = cfg.ra_max;
	h.mem_bps = cfg.mem_bps;
	h.ebs_iops = cfg.ebs.iops;
	h.ebs_max_iops = cfg.ebs.max_iops;
	h.ebs_bps = cfg.ebs.bps;
	h.ebs_max_bps = cfg.ebs.max_bps;
	h.ebs_burst_s = cfg.ebs.burst_s;
	/* block mode's loop hop, taken off with the floor; the bit clear
	 * where none was (FUSE mode, loop_hop=off) */
	h.loop_hop_ns = fs->loop_hop_ns;
	if (!fs->loop_hop_label || !strcmp(fs->loop_hop_label, "off")) {
		h.model &= ~(uint32_t)TS_TRACE_MODEL_LOOP_HOP;
		h.loop_hop_ns = 0;
	}
	/* and its size and window parts, where the mount measured them */
	h.loop_size_ns = fs->loop_hop_big_ns;
	h.loop_window_ns = fs->loop_hop_window_ns;
	if (!fs->loop_hop_label || strcmp(fs->loop_hop_label, "measured")) {
		h.model &= ~(uint32_t)TS_TRACE_MODEL_LOOP_PARTS;
		h.loop_size_ns = h.loop_window_ns = 0;
	}
	/* block mode's image (the image option): its own lookups and extent
	 * leaves were not charged (timing.c), nor will a replay's be */
	if (!fs->o.image)
		h.model &= ~(uint32_t)TS_TRACE_MODEL_IMAGE;
	/* and as text, for people reading the dump (no rounded units) */
	cfg.capacity = h.capacity;
	len += (size_t)snprintf(h.mount_opts, sizeof(h.mount_opts), "tier=%s", h.tier);
	for (const struct ts_opt *o = ts_tier_cfg_opts; o->name && len < sizeof(h.mount_opts);
	     o++) {
		const char *val = v;
		uint64_t x;
		switch (o->type) {
		case TS_OPT_SIZE:
		case TS_OPT_RATE:
		case TS_OPT_U64:
		case TS_OPT_DURATION:
			memcpy(&x, (const char *)&cfg + o->off, sizeof(x));
			snprintf(v, sizeof(v), "%llu%s", (unsigned long long)x,
				 o->type == TS_OPT_DURATION ? "ns" : "");
			break;
		default:
			val = ts_opt_get(o, &cfg, v, sizeof(v));
		}
		len += (size_t)snprintf(h.mount_opts + len, sizeof(h.mount_opts) - len, ",%s=%s",
					o->name, val);
	}
	/* block mode's loop-device hop, taken off with the floor (floor_ns
	 * stays FUSE's round trip, which a replay takes off the gaps) */
	if (len < sizeof(h.mount_opts))
		len += (size_t)snprintf(h.mount_opts + len, sizeof(h.mount_opts) - len,
					",loop_hop=%lluns(%s)", (unsigned long long)fs->loop_hop_ns,
					fs->loop_hop_label ? fs->loop_hop_label : "off");
	/* and its size and window parts, where measured */
	if (h.model & TS_TRACE_MODEL_LOOP_PARTS && len < sizeof(h.mount_opts))
		len += (size_t)snprintf(h.mount_opts + len, sizeof(h.mount_opts) - len,
					",loop_hop_128k=%lluns(measured),loop_hop_window=%lluns(measured)",
					(unsigned long long)h.loop_size_ns,
					(unsigned long long)h.loop_window_ns);
	/* block mode's request clock (disk/issue.h), where asked for */
	if (strcmp(fs->o.loop_issue, "off") && len < sizeof(h.mount_opts))
		len += (size_t)snprintf(h.mount_opts + len, sizeof(h.mount_opts) - len,
					",loop_issue=%s", fs->loop_issue_label);
	/* carry=, where tierfs carries: a virtual replay then carries as it
	 * did (traces/tier_rule.h); the header's bit says so, the text is
	 * for people */
	if (fs->o.carry && !fs->o.image) {
		h.model |= TS_TRACE_MODEL_CARRY;
		if (len < sizeof(h.mount_opts))
			snprintf(h.mount_opts + len, sizeof(h.mount_opts) - len, ",carry=true");
	}
	struct ts_fs_trace *tr = calloc(1, sizeof(*tr));
	if (!tr)
		return -ENOMEM;
	for (unsigned i = 0; i < CLOCK_SLOTS; i++)
		atomic_init(&tr->clocks[i].fd, -1);
	int rc = ts_trace_writer_open(fs->o.trace, &h, &w);
	if (rc) {
		snprintf(err, n, "trace=%s: %s", fs->o.trace, ts_strerror(rc));
		free(tr);
		return rc;
	}
	tr->w = w;
	if (fs->o.trace_cpu && !fs->o.trace_cpu_every) {
		/* the threshold is two round trips; a gap up to 8 of them, a
		 * run of unread clocks within 32 (the units and the field's
		 * width bound it: 4.19 ms) */
		uint64_t thr = 2 * fs->floor_ns >> GAP_UNIT_SHIFT;
		tr->budget_units = TS_MIN(GAP_BUDGET_RUNS * thr, mask(GAP_OWED_BITS));
		tr->gap_units = TS_MIN(GAP_LIMIT_RUNS * thr, tr->budget_units);
	}
	pthread_mutex_init(&tr->lock, NULL);
	__atomic_store_n(&fs->trace, tr, __ATOMIC_RELEASE);
	return 0;
}

/* The id of @path, interned with its node (version 11) when new. */
static uint32_t node_id(struct ts_fs *fs, struct ts_trace_writer *w, const char *path)
{
	uint32_t id = ts_trace_writer_file_find(w, path);
	if (id)
		return id;
	struct ts_trace_node nd;
	return ts_trace_writer_file_node(w, path, ts_fs_model_node(fs, path, &nd) ? NULL : &nd);
}

/*
 * The id of @path. Where the model numbers the tree (FUSE mode with a
 * tier: fs/timing.c), a new path is interned with its node, after the root
 * and every folder above it with theirs (path items no record names): a
 * replay then finds each component's inode number and a folder's blocks
 * as the emulated disk holds them (traces/FORMAT.md, "Inode numbers").
 */
static uint32_t path_id(struct ts_fs *fs, struct ts_trace_writer *w, const char *path)
{
	uint32_t id = ts_trace_writer_file_find(w, path);
	size_t len = strlen(path);
	if (id || !fs->model || fs->o.image || path[0] != '/' || len > TS_TRACE_PATH_MAX)
		return id ? id : ts_trace_writer_file_id(w, path);
	char buf[TS_TRACE_PATH_MAX + 1];
	memcpy(buf, path, len + 1);
	node_id(fs, w, "/");
	for (size_t i = 1; i < len; i++)
		if (buf[i] == '/') {
			buf[i] = 0;
			node_id(fs, w, buf);
			buf[i] = '/';
		}
	return node_id(fs, w, buf);
}

void ts_fs_trace_put(struct ts_fs *fs, struct ts_fs_req *r)
{
	struct ts_fs_trace *tr = __atomic_load_n(&fs->trace, __ATOMIC_ACQUIRE);

	if (!tr || (unsigned)r->op >= TS_FS_OP_NR)
		return;
	struct ts_trace_writer *w = tr->w;
	uint32_t id = 0;
	if (r->path) {
		id = path_id(fs, w, r->path);
		if (r->ino && id) {
			pthread_mutex_lock(&tr->lock);
			map_set(tr, r->ino, id);
			pthread_mutex_unlock(&tr->lock);
		}
	} else if (r->file_id) {
		id = map_get(tr, r->file_id);
	}
	struct ts_trace_rec rec = {
	    .submit_ns = r->submit_ns,
	    .complete_ns = r->complete_ns,
	    .offset = r->off,
	    .length = r->len,
	    .result = r->result,
	    .size = r->file_size,
	    .file_id = id,
	    .tid = (uint32_t)r->tid,
	    .aux = r->path2 ? path_id(fs, w, r->path2) : r->mode,
	    .op = (uint16_t)ts_fs_trace_op(r->op),
	    .flags = (uint16_t)((r->due_ns ? 0 : TS_REC_F_NOTIER) |
				(r->due_ns && !r->file_id ? TS_REC_F_NOFILE : 0) |
				(r->direct ? TS_REC_F_DIRECT : 0) |
				(r->kernel_ra ? TS_REC_F_KERNEL_RA : 0)),
	};
	/* block mode's request clock, where it scheduled the request
	 * (disk/issue.h): a virtual replay charges it as tierfs did; with
	 * loop_issue=watch, where it found the issue, the model's time as if
	 * from it, marked watched (no reader charges from it) */
	bool watched = !r->issue_used && fs->issue_watch && r->issue_ns && r->due_ns &&
		       r->issue_ns <= r->submit_ns && r->issue_end_ns >= r->issue_ns;
	const struct ts_trace_issue issue = {.issue_ns = r->issue_ns,
					     .end_ns = r->issue_end_ns,
					     .off_ns = watched ? 0 : r->issue_off_ns,
					     .watched = watched};
	const struct ts_trace_issue *is = (r->issue_used && r->due_ns) || watched ? &issue : NULL;
	if (r->cpu_state == TS_FS_CPU_UNDECIDED)
		ts_fs_trace_sample(fs, r);
	if (r->cpu_state == TS_FS_CPU_NONE) {
		ts_trace_writer_put_issue(w, &rec, NULL, is);
		return;
	}
	struct ts_trace_cpu cpu = r->cpu;
	uint64_t ready = TS_MAX(r->due_ns, r->sys_ns);
	cpu.sys_ns = r->sys_ns > r->submit_ns ? r->sys_ns - r->submit_ns : 0;
	cpu.late_ns = r->complete_ns > ready ? r->complete_ns - ready : 0;
	ts_trace_writer_put_issue(w, &rec, &cpu, is);
	gap_note(tr, rec.tid, r->complete_ns,
		 r->cpu_state == TS_FS_CPU_UNREAD ? r->cpu_owed : 0);
}

void ts_fs_trace_close(struct ts_fs *fs)
{
	struct ts_fs_trace *tr = __atomic_exchange_n(&fs->trace, NULL, __ATOMIC_ACQ_REL);
	uint64_t dropped = 0;

	if (!tr)
		return;
	uint64_t spills = ts_trace_writer_spills(tr->w);
	int rc = ts_trace_writer_close(tr->w, &dropped);
	/* the workers are joined (libfuse's loop has ended) */
	for (unsigned i = 0; i < CLOCK_SLOTS; i++)
		if (atomic_load(&tr->clocks[i].fd) >= 0)
			close(atomic_load(&tr->clocks[i].fd));
	pthread_mutex_destroy(&tr->lock);
	for (struct imap *m = atomic_load(&tr->map), *o; m; m = o) {
		o = m->older;
		free(m);
	}
	free(tr);
	if (rc)
		ts_fs_log(fs, LOG_ERR, "tierfs: trace %s: %s; the trace is incomplete", fs->o.trace,
			  ts_strerror(rc));
	else if (dropped)
		ts_fs_log(fs, LOG_WARNING,
			  "tierfs: trace %s: %llu records dropped (the disk holding the trace did "
			  "not keep up; %llu ring segments spilled); the count is in the trace",
			  fs->o.trace, (unsigned long long)dropped, (unsigned long long)spills);
	else if (spills)
		ts_fs_log(fs, LOG_INFO,
			  "tierfs: trace %s written, no records dropped (%llu ring segments "
			  "spilled: the writer thread was late)",
			  fs->o.trace, (unsigned long long)spills);
	else
		ts_fs_log(fs, LOG_INFO, "tierfs: trace %s written, no records dropped",
			  fs->o.trace);
}
