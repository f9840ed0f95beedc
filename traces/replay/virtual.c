/*
 * virtual.c — replay in virtual time: a discrete-event loop over the
 * trace's threads, ordered by their next issue time, that submits each op
 * to one tier model (the code tierfs runs) and moves each thread on by the
 * rules of rules.c (replay.h has the whole rule). Same trace, tier and
 * seed: same result, to the nanosecond. Each request's device latency is
 * drawn from its record's identity in the recording (rec_key), not from
 * the order the model serves requests in.
 */
#include <stdlib.h>
#include <string.h>

#include "core/heap.h"
#include "core/rng.h"
#include "core/units.h"
#include "tier/fsmeta.h"
#include "traces/replay/replay_int.h"
#include "traces/tier_rule.h"

/* One virtual replay: the threads, a cursor per thread, and the replayed
 * times the rules read. */
struct vrun {
	const struct ts_trace *t;
	const struct ts_replay_cfg *cfg;
	double speed;
	struct rthreads ps;
	struct ts_tier *tier;
	struct cursor *cur;	 /* per thread */
	struct ts_heap h;	 /* cursors that know their next issue */
	struct cursor **parked;	 /* cursors waiting for another thread */
	size_t nparked;
	/* Each parked cursor waits on one list: keyed by the record
	 * (0..nrecs-1) or the thread (nrecs + k) it waits for, or the last
	 * key (nrecs + np) when it said neither. A record that is issued or
	 * a thread that ends moves its list to the ready ones, which the next
	 * unpark() asks again: the others' answer cannot have changed. */
	size_t *wait_head;	 /* per key: its first cursor, SIZE_MAX = none */
	size_t *wait_prev, *wait_next; /* per cursor: its neighbours on its list */
	size_t *wait_key;	 /* per cursor: its list, SIZE_MAX = none */
	size_t *park_pos;	 /* per cursor: its place in parked */
	size_t *ready;		 /* cursors to ask again */
	size_t nready;
	uint64_t *ended;	 /* replayed end per thread, 0 = running */
	uint64_t *issued;	 /* replayed issue per record, 0 = not yet */
	uint64_t *completed;	 /* replayed completion per record */
	struct cpu_server cpu;	 /* the CPU model (cap 0: off) */
	uint64_t cpu_gaps;	 /* the gaps it served */
	uint64_t end;		 /* the latest completion so far */
	uint64_t first_io;	 /* the first request's issue (0: none yet) */
	struct ts_fsmeta *meta;	 /* the file system's metadata reads */
	/* --fs-tree: each file's data where the image holds it, by path id
	 * (NULL: not in the tree, one run) */
	struct ts_fsmeta_tree *tree;
	const struct ts_fsmeta_file **fmap;
	struct pnode *nodes;	 /* every path of the trace and its folders, sorted */
	size_t nnodes;
	/* a trace whose paths carry their inode numbers (version 11): the
	 * inodes in use it recorded (each path's number is then its pnode's
	 * ino); 0: the trace's paths are numbered by rank (pnode_cmp) */
	uint64_t recorded_inodes;
	size_t missing; /* > 0: pnode_stat's path of that length is not there */
	/* the wake file's advices (A lines) on the trace's files, by file id
	 * then time (advice_build); NULL: none */
	struct vadvice *adv;
	size_t nadv;
};

/* An advice on file @file from @t_ns (the wake file's clock) on. */
struct vadvice {
	uint32_t file;
	uint8_t advice; /* TS_TIER_ADV_* */
	uint64_t t_ns;
};

/*
 * A path as the file-system rule sees it. A trace of version 11 recorded
 * by tierfs carries each path's inode number on the emulated disk and a
 * folder's blocks there (@node: traces/trace.h, struct ts_trace_node), for
 * the paths its records name and every folder above them: tierfs numbered
 * the whole tree it served as mkfs.ext4 -d numbers the image it copies it
 * into, so a job that reads part of a larger tree gets the inode-table
 * blocks of where its files really are (an LMDB beside a folder of 4,000
 * JPEGs lies past the root's readahead window, and its inode read is a
 * request of its own, as block mode shows). Without them (an older trace,
 * an imported one, a bare mount) its rank in depth-first order
 * (pnode_cmp) among the trace's own paths stands for its inode number, and
 * a folder's blocks follow from the names the trace shows in it.
 */
struct pnode {
	const char *p;
	size_t len;
	uint64_t blocks;
	const struct ts_trace_node *node; /* version 11: as recorded, or NULL */
	uint32_t id;			  /* its path id (0: a folder only above one) */
	uint64_t ino;			  /* a trace with numbers: the number it gets */
};

/* A path a trace with numbers holds without one (tierfs met it before it
 * was made: a lookup that found nothing, then a create) takes the next
 * free number, in the order the trace first names them, as tierfs and
 * ext4 give a new name the next inode. */
static int unnumbered_cmp(const void *a, const void *b)
{
	const struct pnode *x = *(const struct pnode *const *)a, *y = *(const struct pnode *const *)b;
	uint32_t ix = x->id ? x->id : UINT32_MAX, iy = y->id ? y->id : UINT32_MAX;
	return ix != iy ? (ix > iy) - (ix < iy) : (x > y) - (x < y);
}

/* Depth first, each folder's names in byte order, as mkfs.ext4 -d numbers
 * a tree: '/' before every other byte, so that "/a/q" comes before "/a-b"
 * (all of a/ before the names after "a"), a folder before its names. */
static int pnode_cmp(const void *a, const void *b)
{
	const struct pnode *x = a, *y = b;
	size_t n = TS_MIN(x->len, y->len);
	for (size_t i = 0; i < n; i++) {
		unsigned char cx = (unsigned char)x->p[i], cy = (unsigned char)y->p[i];
		if (cx != cy)
			return cx == '/' ? -1 : cy == '/' ? 1 : cx - cy;
	}
	return (x->len > y->len) - (x->len < y->len);
}

static int pnode_stat(void *ctx, const char *path, size_t len, struct ts_fsmeta_node *out)
{
	struct vrun *v = ctx;
	/* an op that failed with ENOENT: its last name is not there then,
	 * whatever the trace makes there later (serve) */
	if (v->missing && len == v->missing)
		return -ENOENT;
	struct pnode key = { path, len, 0, NULL, 0, 0 };
	struct pnode *n = bsearch(&key, v->nodes, v->nnodes, sizeof(key), pnode_cmp);
	if (!n)
		return -ENOENT;
	if (v->recorded_inodes) {
		out->ino = len == 1 ? v->cfg->fs->root_inode : n->ino;
		out->blocks = n->blocks;
		return 0;
	}
	/* the root has its own inode; the rest are numbered in that order
	 * on from the first one mkfs gives a file (ext4: the root 2, then
	 * lost+found 11 and the first path after the root 12) */
	const struct ts_fsmeta_params *fs = v->cfg->fs;
	out->ino = len == 1 ? fs->root_inode : fs->first_inode + (uint64_t)(n - v->nodes);
	out->blocks = n->blocks;
	return 0;
}

/* The sorted paths of the trace and every folder above them, with each
 * folder's blocks. */
TS_WUR static int nodes_build(struct vrun *v)
{
	const struct ts_trace *t = v->t;
	size_t cap = 1;
	for (uint32_t i = 1; i < t->npaths; i++)
		for (const char *c = t->paths[i]; c && *c; c++)
			cap += *c == '/';
	struct pnode *n = malloc(cap * sizeof(*n));
	/* a path whose every op failed with ENOENT is not there: not
	 * numbered, not a name in its folder (its folders are) */
	uint8_t *seen = calloc(t->npaths ? t->npaths : 1, 1);
	if (!n || !seen) {
		free(n);
		free(seen);
		return -ENOMEM;
	}
	for (size_t i = 0; i < t->nrecs; i++) {
		const struct ts_trace_rec *r = &t->recs[i];
		bool ok = r->result != -ENOENT;
		if (r->file_id < t->npaths)
			seen[r->file_id] |= ok ? 2 : 1;
		if ((r->op == TS_OP_RENAME || r->op == TS_OP_LINK) && r->aux < t->npaths)
			seen[r->aux] |= ok ? 2 : 1;
	}
	size_t k = 0;
	n[k++] = (struct pnode){ "/", 1, 0, NULL, 0, 0 };
	for (uint32_t i = 1; i < t->npaths; i++) {
		const char *p = t->paths[i];
		if (!p || p[0] != '/')
			continue;
		size_t len = strlen(p);
		while (len > 1 && p[len - 1] == '/')
			len--;
		bool gone = seen[i] == 1;
		for (size_t j = 1; j <= len && k < cap; j++)
			if ((j == len && !gone) || (j < len && p[j] == '/'))
				n[k++] = (struct pnode){ p, j, 0,
							 j == len ? ts_trace_node_of(t, i) : NULL,
							 j == len ? i : 0, 0 };
	}
	free(seen);
	qsort(n, k, sizeof(*n), pnode_cmp);
	size_t u = 0;
	uint64_t recorded = 0;
	for (size_t i = 0; i < k; i++) {
		if (n[i].node)
			recorded = TS_MAX(recorded, TS_MAX((uint64_t)n[i].node->inodes,
							   n[i].node->ino + 1));
		if (!u || pnode_cmp(&n[u - 1], &n[i]))
			n[u++] = n[i];
		else if (n[i].id && (!n[u - 1].id || (!n[u - 1].node && n[i].node))) {
			n[u - 1].node = n[i].node; /* a folder's own path item */
			n[u - 1].id = n[i].id;
		}
	}
	v->nodes = n;
	v->nnodes = u;
	/* each name counts in its folder: found by its prefix */
	uint64_t *names = calloc(u, sizeof(*names)), *bytes = calloc(u, sizeof(*bytes));
	if (!names || !bytes) {
		free(names);
		free(bytes);
		return -ENOMEM;
	}
	for (size_t i = 1; i < u; i++) {
		size_t cut = n[i].len;
		while (cut > 0 && n[i].p[cut - 1] != '/')
			cut--;
		struct pnode key = { n[i].p, cut > 1 ? cut - 1 : 1, 0, NULL, 0, 0 };
		struct pnode *d = bsearch(&key, n, u, sizeof(key), pnode_cmp);
		if (d) {
			names[d - n]++;
			bytes[d - n] += n[i].len - cut;
		}
	}
	for (size_t i = 0; i < u; i++)
		n[i].blocks = n[i].node && (n[i].node->flags & TS_NODE_F_DIR) ? n[i].node->blocks
			      : names[i] ? ts_fsmeta_dir_blocks(v->cfg->fs, names[i], bytes[i])
					 : 0;
	free(names);
	free(bytes);
	/* the inodes in use: the recorded tree's (and any path it did not
	 * number after them), else the trace's paths' */
	uint64_t used = recorded;
	if (recorded) {
		struct pnode **un = malloc(u * sizeof(*un));
		size_t m = 0;
		if (!un)
			return -ENOMEM;
		for (size_t i = 1; i < u; i++) {
			if (n[i].node)
				n[i].ino = n[i].node->ino;
			else
				un[m++] = &n[i];
		}
		qsort(un, m, sizeof(*un), unnumbered_cmp);
		for (size_t i = 0; i < m; i++)
			un[i]->ino = used++;
		free(un);
	}
	v->recorded_inodes = recorded;
	ts_fsmeta_set_inodes(v->meta, recorded ? used : v->cfg->fs->first_inode + u);
	return 0;
}

/* Thread cursors wait in a min-heap (core/heap.h) by next issue time, ties
 * in thread order, so that the tier model sees submissions in time order. */
TS_WUR static int push(struct vrun *v, struct cursor *c)
{
	return ts_heap_push(&v->h, c->next_issue, (uint64_t)(c->p - v->ps.p), c);
}

/* Parked cursor @i onto the list of what it last waited for. */
static void wait_on(struct vrun *v, size_t i)
{
	const struct cursor *c = &v->cur[i];
	size_t key = c->wait_rec != SIZE_MAX	    ? c->wait_rec
		     : c->wait_thread != SIZE_MAX ? v->t->nrecs + c->wait_thread
						  : v->t->nrecs + v->ps.n;
	v->wait_key[i] = key;
	v->wait_prev[i] = SIZE_MAX;
	v->wait_next[i] = v->wait_head[key];
	if (v->wait_head[key] != SIZE_MAX)
		v->wait_prev[v->wait_head[key]] = i;
	v->wait_head[key] = i;
}

/* Cursor @i off its list. */
static void wait_off(struct vrun *v, size_t i)
{
	size_t key = v->wait_key[i];
	if (key == SIZE_MAX)
		return;
	if (v->wait_prev[i] != SIZE_MAX)
		v->wait_next[v->wait_prev[i]] = v->wait_next[i];
	else
		v->wait_head[key] = v->wait_next[i];
	if (v->wait_next[i] != SIZE_MAX)
		v->wait_prev[v->wait_next[i]] = v->wait_prev[i];
	v->wait_key[i] = SIZE_MAX;
}

/* The cursors waiting on @key, to be asked again. */
static void wake(struct vrun *v, size_t key)
{
	for (size_t i = v->wait_head[key]; i != SIZE_MAX; i = v->wait_next[i]) {
		v->wait_key[i] = SIZE_MAX;
		v->ready[v->nready++] = i;
	}
	v->wait_head[key] = SIZE_MAX;
}

/* @c into the heap when its next issue is known, else parked until the
 * thread it waits for gets there. */
TS_WUR static int place(struct vrun *v, struct cursor *c)
{
	if (replay_schedule(&v->ps, v->t, c, v->ended, v->issued, v->completed, v->cfg, v->speed))
		return push(v, c);
	size_t i = (size_t)(c - v->cur);
	v->park_pos[i] = v->nparked;
	v->parked[v->nparked++] = c;
	wait_on(v, i);
	return 0;
}

/* Parked cursor @i out of the parked list, into the heap. */
TS_WUR static int unpark_one(struct vrun *v, size_t i)
{
	size_t k = v->park_pos[i];
	struct cursor *last = v->parked[--v->nparked];
	v->parked[k] = last;
	v->park_pos[last - v->cur] = k;
	return push(v, &v->cur[i]);
}

/* The parked threads whose wait is over go back to the heap: those whose
 * record or thread has moved since they were asked (the rest give the
 * same answer as before), and those that said neither. The heap orders
 * them by (next issue, thread), so the order they are asked in does not
 * matter. */
TS_WUR static int unpark(struct vrun *v)
{
	int ret;

	wake(v, v->t->nrecs + v->ps.n);
	while (v->nready) {
		size_t i = v->ready[--v->nready];
		if (replay_schedule(&v->ps, v->t, &v->cur[i], v->ended, v->issued, v->completed,
				    v->cfg, v->speed)) {
			if ((ret = unpark_one(v, i)))
				return ret;
		} else {
			wait_on(v, i);
		}
	}
	/* Threads whose recorded ends tie can wait on each other; let them go
	 * rather than stop. */
	if (!v->h.n && !v->cpu.n)
		while (v->nparked) {
			size_t i = (size_t)(v->parked[v->nparked - 1] - v->cur);
			wait_off(v, i);
			if ((ret = unpark_one(v, i)))
				return ret;
		}
	return 0;
}

/* The completion of record @r issued at @s, as tierfs would have served it
 * (traces/tier_rule.h): through the model, or with its recorded latency
 * when tierfs did not charge it. */
/* The device's reads of @d into @res. */
static void add_reads(struct ts_replay_result *res, const struct ts_tier_done *d)
{
	res->dev_read_bytes += d->dev_bytes;
	res->dev_reads += d->dev_reqs;
}

/* add_reads() of the file system's metadata reads (tier/fsmeta.h) */
static void add_meta_reads(struct ts_replay_result *res, const struct ts_tier_done *d)
{
	add_reads(res, d);
	res->meta_reads += d->dev_reqs;
}

/* tierfs replies at the later of the model's time @done and the end of
 * its own syscall, which the CPU sample @cs times, and as late behind it
 * as it was when recorded; @d's bound is counted. Under kernel_fs too: in
 * block mode the loop device's reads of the image are served by the same
 * daemon, which makes the same syscall behind each one (and, charged from
 * the loop device's issue, takes its mean lateness off: serve() passes no
 * lateness then). */
static uint64_t reply(struct ts_replay_result *res, const struct ts_trace_cpu *cs, uint64_t s,
		      uint64_t done, const struct ts_tier_done *d, uint64_t *owed, uint64_t floor)
{
	uint64_t sys = cs && cs->pid ? cs->sys_ns : 0;
	if (owed) /* carry= (traces/tier_rule.h) */
		done = ts_tier_rule_carry(owed, floor, done, s + sys);
	if (cs && cs->pid)
		done = TS_MAX(done, s + sys) + cs->late_ns;
	if (d->bound < TS_TIER_BOUND_NR)
		res->bound[d->bound]++;
	return done;
}

/* A reply that did not wait on the model (a request tierfs answered
 * without it, or one it charged nothing): with carry=, the thread owes its
 * round trip (@owed NULL: no carry). Returns @done. */
static uint64_t unwaited(uint64_t *owed, uint64_t floor, uint64_t done)
{
	if (owed)
		(void)ts_tier_rule_carry(owed, floor, 0, 0);
	return done;
}

/* The key of the device draws for record @r (ts_tier_draw_keyed): its
 * identity in the recording, who asked, when, for what and where, which a
 * record added or removed elsewhere in the trace does not change (its
 * index would). The device requests one record makes (a read's misses and
 * readahead windows, the file system's metadata reads, a journal commit)
 * are told apart by their own op, file and offset (tier/device.c), so a
 * rule that adds or drops one of them moves none of the others' draws. */
static uint64_t rec_key(const struct ts_trace_rec *r)
{
	uint64_t k = ts_rng_key(r->tid, r->submit_ns);
	k = ts_rng_key(k, r->op);
	k = ts_rng_key(k, r->file_id);
	k = ts_rng_key(k, r->offset);
	return ts_rng_key(k, r->length);
}

static int vadvice_cmp(const void *a, const void *b)
{
	const struct vadvice *x = a, *y = b;
	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	return (x->t_ns > y->t_ns) - (x->t_ns < y->t_ns);
}

/*
 * The wake file's advices (traces/wakes.h, the A lines) as the page-cache
 * model takes them (tier/cache.c): each names its file by inode number,
 * which in a FUSE recording is the backing file's st_ino (tierfs mounts
 * with use_ino), the backing_ino of a version-11 path item's node; every
 * path of the trace with that number takes the advice from its time on.
 * POSIX_FADV_NORMAL, RANDOM and SEQUENTIAL are kept (the readahead
 * ones); WILLNEED, DONTNEED and NOREUSE are not modeled. An advice on a
 * file no node names (a trace without nodes, a file outside the mount)
 * is not applied.
 */
static int ino_cmp(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b; /* (backing_ino, id) pairs */
	return x[0] != y[0] ? (x[0] > y[0]) - (x[0] < y[0]) : (x[1] > y[1]) - (x[1] < y[1]);
}

TS_WUR static int advice_build(struct vrun *v)
{
	const struct ts_wakes *w = v->cfg->wakes;
	if (!w || !w->nadvices || !v->t->nodes)
		return 0;
	/* the files' numbers, sorted: (backing_ino, id) */
	uint64_t *ino = malloc(2 * (v->t->npaths + 1) * sizeof(*ino));
	if (!ino)
		return -ENOMEM;
	size_t ni = 0;
	for (uint32_t id = 1; id < v->t->npaths; id++) {
		const struct ts_trace_node *nd = ts_trace_node_of(v->t, id);
		if (nd && nd->backing_ino && !(nd->flags & TS_NODE_F_DIR)) {
			ino[2 * ni] = nd->backing_ino;
			ino[2 * ni++ + 1] = id;
		}
	}
	qsort(ino, ni, 2 * sizeof(*ino), ino_cmp);
	size_t n = 0;
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < w->nadvices; i++) {
			const struct ts_advice *a = &w->advices[i];
			if (a->advice > TS_TIER_ADV_SEQUENTIAL)
				continue;
			size_t lo = 0, hi = ni; /* the first pair of a->ino */
			while (lo < hi) {
				size_t m = lo + (hi - lo) / 2;
				if (ino[2 * m] < a->ino)
					lo = m + 1;
				else
					hi = m;
			}
			for (; lo < ni && ino[2 * lo] == a->ino; lo++, n++)
				if (pass)
					v->adv[n] = (struct vadvice){.file = (uint32_t)ino[2 * lo + 1],
								     .advice = (uint8_t)a->advice,
								     .t_ns = a->t_ns};
		}
		if (!pass) {
			if (!n)
				break;
			if (!(v->adv = calloc(n, sizeof(*v->adv)))) {
				free(ino);
				return -ENOMEM;
			}
			v->nadv = n;
			n = 0;
		}
	}
	free(ino);
	if (v->nadv)
		qsort(v->adv, v->nadv, sizeof(*v->adv), vadvice_cmp);
	return 0;
}

/* The advice on record @r's file when it was recorded (the latest one
 * before it; TS_TIER_ADV_NORMAL when none). */
static uint8_t advice_of(const struct vrun *v, const struct ts_trace_rec *r)
{
	if (!v->nadv || (r->flags & TS_REC_F_NOFILE))
		return TS_TIER_ADV_NORMAL;
	uint64_t t = v->t->hdr.start_mono_ns + r->submit_ns;
	size_t lo = 0, hi = v->nadv; /* the first entry past (file, t) */
	while (lo < hi) {
		size_t m = lo + (hi - lo) / 2;
		const struct vadvice *x = &v->adv[m];
		if (x->file < r->file_id || (x->file == r->file_id && x->t_ns <= t))
			lo = m + 1;
		else
			hi = m;
	}
	return lo && v->adv[lo - 1].file == r->file_id ? v->adv[lo - 1].advice
						       : TS_TIER_ADV_NORMAL;
}

/* @owed: with carry= (cfg->carry), what the thread owes (NULL: no carry;
 * ts_tier_rule_carry() in traces/tier_rule.h). @mem: set when the request never left memory on a kernel file system
 * (kernel_fs): a read the page cache served without waiting on the device,
 * so that no thread slept in it (the memory-served rule, rules.c). @kern:
 * set when the kernel serves the op without the thread sleeping, that read
 * or a metadata op answered in memory (the in-kernel rule, rules.c). @dev:
 * set for a read the device served there (the loop rule, rules.c). @reqs:
 * there, the device's read requests a read sent (the IO path's CPU,
 * rules.c). */
static uint64_t serve(struct vrun *v, const struct ts_trace_rec *r, size_t idx, uint64_t s,
		      struct ts_replay_result *res, uint64_t *owed, bool *mem, bool *kern, bool *dev,
		      uint64_t *reqs)
{
	/* exactly the request tierfs makes, with the file size it knew */
	struct ts_tier_req q = {
	    .file = r->flags & TS_REC_F_NOFILE ? 0 : r->file_id,
	    .off = r->offset,
	    .len = r->length,
	    .size = r->size,
	    .direct = (r->flags & TS_REC_F_DIRECT) != 0,
	    .kernel_ra = (r->flags & TS_REC_F_KERNEL_RA) != 0,
	    .advice = advice_of(v, r),
	};
	const struct ts_trace_cpu *cs = v->t->cpu ? &v->t->cpu[idx] : NULL;
	enum ts_tier_rule_fs kind = ts_tier_rule_fs(r->op);
	struct ts_fsmeta_io io[TS_FSMETA_MAX_IO];
	unsigned nio = 0;
	/* what tierfs spaces the file system's own reads by: FUSE's round
	 * trip, without block mode's hop (its model's floor holds both) */
	uint64_t floor = v->cfg->tier.floor_ns - TS_MIN(v->cfg->tier.floor_ns, v->cfg->loop_hop_ns);
	struct ts_tier_done d = {0};
	uint64_t done;
	const uint64_t arrive = s; /* when the request came, as tierfs has it */
	ts_tier_draw_key(v->tier, rec_key(r));
	/* the journal's commit when due, as tierfs charges it: an fsync
	 * waits for it (a request tierfs did not give its model neither
	 * charges nor waits for one there: fs/timing.c) */
	if (!(r->flags & TS_REC_F_NOTIER))
		s = ts_tier_rule_journal(v->meta, v->tier, r->op, s, floor, NULL);
	if (!(r->flags & TS_REC_F_NOTIER) && ts_tier_rule_fs_walks(kind)) {
		/* the file system's reads for the path, as tierfs charges them */
		const char *path = r->file_id < v->t->npaths ? v->t->paths[r->file_id] : NULL;
		enum ts_fsmeta_change what;
		/* a block-mode recording's file is the image, which tierfs
		 * charged no lookup (fs/timing.c): a block device has none */
		if (path && !v->cfg->image) {
			/* a lookup that found no such name scans its folder for
			 * it (tier/fsmeta.h), as tierfs charged it */
			size_t len = strlen(path);
			while (len > 1 && path[len - 1] == '/')
				len--;
			v->missing = r->result == -ENOENT && kind == TS_RULE_FS_LOOKUP ? len : 0;
			nio = ts_tier_rule_fs_path(v->meta, kind, path, pnode_stat, v, io,
						   TS_FSMETA_MAX_IO);
			v->missing = 0;
			const char *to = r->op == TS_OP_RENAME || r->op == TS_OP_LINK
						 ? ts_trace_path(v->t, r->aux) : NULL;
			if (ts_tier_rule_fs_change(r->op, &what))
				ts_fsmeta_dirty(v->meta, s, what, path, to, pnode_stat, v);
		}
		/* nothing from the disk: the op's own time (an op charged
		 * nothing when recorded took its recorded time) */
		if (!nio && v->cfg->kernel_fs) {
			done = s; /* the kernel's caches: no FUSE request */
			*kern = true;
		} else if (!nio && ts_tier_rule_op(r->op) == TS_TIER_OP_NR) {
			done = unwaited(owed, floor,
					s + (TS_MAX(r->complete_ns, r->submit_ns) - r->submit_ns));
		} else if (!nio) {
			done = unwaited(owed, floor,
					s + (cs && cs->pid ? cs->sys_ns + cs->late_ns : floor));
		} else {
			done = ts_fsmeta_charge(v->tier, s, floor, io, nio, &d);
			add_meta_reads(res, &d);
			done = reply(res, cs, s, done, &d, owed, floor);
		}
		goto forget; /* unlink walks its path and drops the file */
	}
	/* A kernel file system serves in memory the metadata requests tierfs
	 * answered without its model (getattr, flush, release, an open of a
	 * known file): no request, no time */
	if (v->cfg->kernel_fs && (r->flags & TS_REC_F_NOTIER) &&
	    (ts_tier_rule_op(r->op) == TS_TIER_OP_NR || ts_tier_rule_op(r->op) == TS_TIER_META)) {
		*kern = true;
		return s;
	}
	if (!(r->flags & TS_REC_F_NOTIER) && v->cfg->kernel_fs && !ts_tier_rule_req(r->op, &q)) {
		*kern = true;
		return s; /* flush, release...: the kernel's own, no FUSE request */
	}
	if ((r->flags & TS_REC_F_NOTIER) || !ts_tier_rule_req(r->op, &q))
		return unwaited(owed, floor,
				s + (TS_MAX(r->complete_ns, r->submit_ns) - r->submit_ns));
	if (kind == TS_RULE_FS_READ && r->size && !v->cfg->image)
		nio = ts_fsmeta_extent(v->meta, r->file_id, r->size, r->offset, io,
				       TS_FSMETA_MAX_IO);
	if (nio) {
		struct ts_tier_done md = {0};
		s = ts_fsmeta_charge(v->tier, s, floor, io, nio, &md) + floor;
		add_meta_reads(res, &md);
	}
	/* block mode's request clock (trace format 9): tierfs charged the
	 * request from the loop device's issue, its recorded lead before the
	 * receipt, and replied the recorded hop and lateness means before the
	 * model's completion (fs/timing.c); else from the receipt, the
	 * mount's floor and hop in the model's floor */
	const struct ts_trace_issue *is = ts_trace_issue_of(v->t, idx);
	bool from_issue = is && !v->cfg->kernel_fs && s == arrive &&
			  (q.op == TS_TIER_READ || q.op == TS_TIER_WRITE);
	uint64_t at = from_issue ? s - TS_MIN(s, r->submit_ns - is->issue_ns) : s;
	done = ts_tier_submit(v->tier, at, &q, &d);
	if (from_issue) {
		done = ts_tier_rule_issue_reply(arrive, d.end_ns, is->off_ns);
		res->from_issue++;
	}
	if (q.op == TS_TIER_READ)
		add_reads(res, &d);
	if (v->cfg->kernel_fs && q.op == TS_TIER_READ)
		*reqs = d.dev_reqs; /* the IO path's CPU (rules.c) */
	if (v->cfg->kernel_fs && q.op == TS_TIER_READ && d.bound == TS_TIER_BOUND_MEMORY) {
		/* the kernel copies from its page cache: the model's memory
		 * time, no daemon's syscall or wake-up behind it */
		res->bound[d.bound]++;
		*mem = *kern = true;
		goto forget;
	}
	*dev = v->cfg->kernel_fs && q.op == TS_TIER_READ;
	/* block mode: the loop device's size and window parts off the
	 * reply, as tierfs took them (fs/timing.c; 0 for any other
	 * recording); under kernel_fs they come off the gap after it
	 * instead (rules.c) */
	if (!v->cfg->kernel_fs && !from_issue)
		done = ts_tier_rule_loop_reply(v->cfg->loop_size_ns, v->cfg->loop_window_ns, q.op,
					       q.len, arrive, done);
	/* block mode as tiersim disk mount runs it (loop_issue=on): tierfs
	 * replies early by its own mean lateness too, so that the kernel
	 * completes the read at the model's time; the recording's lateness
	 * is not paid there (its syscall still bounds the reply) */
	struct ts_trace_cpu on_time;
	if (*dev && cs && !v->cfg->loop_receipt && !v->cfg->loop_recorded) {
		on_time = *cs;
		on_time.late_ns = 0;
		cs = &on_time;
	}
	done = reply(res, cs, s, done, &d, owed, floor);
forget:;
	/* what tierfs drops from the model after the syscall */
	uint64_t off = r->offset, len = r->length;
	if (r->result == 0 && ts_tier_rule_forget(r->op, r->aux, &off, &len))
		ts_tier_forget(v->tier, r->file_id, off, len);
	return done;
}

/* One line of --ops for record @idx of c's thread, issued at @s and done
 * at @done (ts_replay_ops_head() names the columns): what it is, its
 * recorded and replayed times, and for a wake the time the thread waited
 * past its own work (the wake rule) and what it waited for. */
static void ops_line(const struct vrun *v, const struct cursor *c, size_t idx, uint64_t s,
		     uint64_t done)
{
	const struct ts_trace_rec *r = &v->t->recs[idx];
	const struct wake_edge *e = v->ps.edge ? &v->ps.edge[idx] : NULL;
	const char *what = r->flags & REC_F_MOVED ? "moved" : "io";
	char by[32] = "-";
	uint64_t wait = 0, t0 = v->ps.t0, base = TS_NS_PER_S;
	if (r->flags & REC_F_WAKE) {
		what = "mark"; /* a thread's start or its end */
		if (e && e->start) { /* forked: no work of its own before */
			if (e->waker != SIZE_MAX)
				snprintf(by, sizeof(by), "%u", v->ps.p[e->waker].tid);
		} else if (e && e->rec != SIZE_MAX) {
			what = "io-wake";
			snprintf(by, sizeof(by), "#%zu", e->rec);
		} else if (e && e->waker != SIZE_MAX) {
			what = e->handoff ? "handoff" : "wake";
			snprintf(by, sizeof(by), "%u", v->ps.p[e->waker].tid);
		}
		if (strcmp(what, "mark"))
			wait = s - TS_MIN(s, c->own_issue);
	}
	fprintf(v->cfg->ops, "%s %u %zu %s %llu %llu %llu %llu %llu %s\n",
		v->cfg->tier.profile ? v->cfg->tier.profile->name : "?", r->tid, idx, what,
		(unsigned long long)(r->submit_ns - TS_MIN(t0, r->submit_ns)),
		(unsigned long long)(TS_MAX(r->complete_ns, r->submit_ns) - TS_MIN(t0, r->submit_ns)),
		(unsigned long long)(s - base), (unsigned long long)(done - base),
		(unsigned long long)wait, by);
}

void ts_replay_ops_head(FILE *f)
{
	fprintf(f, "# tier tid record what rec_issue_ns rec_done_ns issue_ns done_ns wait_ns by\n");
}

/* Issues c's next op, now due; the thread goes on to the CPUs, the heap
 * or the parked list, or ends. */
TS_WUR static int issue(struct vrun *v, struct cursor *c, struct ts_replay_result *res)
{
	size_t idx = c->p->idx[c->i];
	const struct ts_trace_rec *r = &v->t->recs[idx];
	uint64_t s = c->next_issue;

	v->issued[idx] = s;
	wake(v, idx);
	c->mem_served = c->in_kernel = c->dev_read = false;
	c->dev_reqs = 0;
	/* carry= as tierfs ran it: per thread of the workload (tierfs keeps
	 * it per requesting thread; the kernel's own requests, tid 0, and
	 * the wake records are none) */
	uint64_t *owed = v->cfg->carry && c->p->tid && !(r->flags & REC_F_WAKE) ? &c->carry_owed
										 : NULL;
	uint64_t done =
	    serve(v, r, idx, s, res, owed, &c->mem_served, &c->in_kernel, &c->dev_read,
		  &c->dev_reqs);
	v->completed[idx] = done;
	if (v->cfg->ops)
		ops_line(v, c, idx, s, done);
	if (!(r->flags & REC_F_WAKE)) {
		replay_result_add(res, r->op, done - s, replay_rec_bytes(r));
		v->first_io = v->first_io ? TS_MIN(v->first_io, s) : s;
	}
	v->end = TS_MAX(v->end, done);
	if (!replay_cursor_advance(c, v->t, s, done, v->cfg, v->speed)) {
		res->think_ns += c->think_ns;
		res->waited_ns += c->waited_ns;
		v->ended[c->p - v->ps.p] = TS_MAX(c->done_max, 1);
		wake(v, v->t->nrecs + (size_t)(c->p - v->ps.p));
		return 0;
	}
	uint64_t think = c->last_think;
	replay_cpu_gap(&v->ps, v->t, c, v->cfg, v->speed);
	if (c->cpu_pending) { /* to the CPUs first */
		v->cpu_gaps++;
		c->think_ns -= TS_MIN(c->think_ns, think);
		return push(v, c);
	}
	return place(v, c);
}

/* The CPUs have served the threads due by @tc: each goes on after its
 * own sleep. */
TS_WUR static int cpu_done(struct vrun *v, uint64_t tc)
{
	int ret;

	replay_cpu_advance(&v->cpu, tc);
	for (struct cursor *c; (c = replay_cpu_take(&v->cpu));) {
		c->cpu_pending = false;
		c->closed_issue = c->own_issue = c->next_issue = tc + c->cpu_rest;
		c->think_ns += c->next_issue - c->done_max;
		c->last_think = c->next_issue - c->done_max;
		if ((ret = place(v, c)))
			return ret;
	}
	return 0;
}

/* The event loop: the CPUs serve a thread before the next issue that is
 * not earlier; a thread popped with CPU work pending joins the CPUs. */
TS_WUR static int run(struct vrun *v, struct ts_replay_result *res)
{
	int ret = 0;

	while (!ret && (v->h.n || v->cpu.n)) {
		uint64_t tc = replay_cpu_next(&v->cpu);
		if (v->cpu.n && (!v->h.n || tc <= ts_heap_top(&v->h)->key)) {
			ret = cpu_done(v, tc);
			continue;
		}
		struct cursor *c = ts_heap_pop(&v->h).p;
		if (c->cpu_pending) { /* it wants a CPU now */
			ret = replay_cpu_add(&v->cpu, c, c->next_issue);
			continue;
		}
		if (!(ret = issue(v, c, res)))
			ret = unpark(v);
	}
	return ret;
}

static void vrun_free(struct vrun *v)
{
	free(v->cpu.job);
	ts_tier_free(v->tier);
	ts_fsmeta_free(v->meta);
	ts_fsmeta_tree_free(v->tree);
	free(v->fmap);
	free(v->nodes);
	free(v->adv);
	free(v->cur);
	ts_heap_free(&v->h);
	free(v->parked);
	free(v->wait_head);
	free(v->wait_prev);
	free(v->wait_next);
	free(v->wait_key);
	free(v->park_pos);
	free(v->ready);
	free(v->ended);
	free(v->issued);
	free(v->completed);
	replay_rthreads_free(&v->ps);
}

/* The page cache's ts_tier_brk_fn: where file @file's disk blocks break. */
static uint64_t file_break(void *ctx, uint64_t file, uint64_t off, uint64_t end)
{
	const struct vrun *v = ctx;
	const struct ts_fsmeta_file *f = v->fmap && file < v->t->npaths ? v->fmap[file] : NULL;
	return f ? ts_fsmeta_file_break(f, v->tree->block, off, end) : end;
}

/* The model and the per-thread and per-record arrays for @v->ps. */
TS_WUR static int vrun_alloc(struct vrun *v, char *err, size_t errlen)
{
	size_t np = v->ps.n ? v->ps.n : 1, nr = v->t->nrecs ? v->t->nrecs : 1;
	int ret;

	if (!v->cfg->fs) {
		snprintf(err, errlen, "replay: no file system to charge lookups with (tier/fsmeta.h)");
		return -EINVAL;
	}
	struct ts_tier_cfg tc = v->cfg->tier;
	if (v->cfg->fs_tree) {
		tc.brk = file_break;
		tc.brk_ctx = v;
	}
	if ((ret = ts_tier_new(&tc, &v->tier, err, errlen)))
		return ret;
	ts_tier_draw_keyed(v->tier, true);
	if ((ret = ts_fsmeta_new(v->cfg->fs, &v->meta))) {
		snprintf(err, errlen, "out of memory");
		return ret;
	}
	/* the inode tables where mke2fs puts them on a disk of the file
	 * system's own size where given (--fs-size: a disk image's), else
	 * as the recording's image lies (the geometry a block-mode trace
	 * carries, version 12), else on a disk of the tier's capacity
	 * (tier/fsmeta.h) */
	const struct ts_trace_hdr *h = &v->t->hdr;
	if (!v->cfg->fs_bytes && h->model & TS_TRACE_MODEL_FS) {
		struct ts_fsmeta_geom g = {
			.blocks = h->fs_blocks, .block = 1U << h->fs_block_log, .bpg = h->fs_bpg,
			.ipg = h->fs_ipg, .inode_size = h->fs_inode_size, .rsv_gdt = h->fs_rsv_gdt,
			.desc_size = h->fs_desc_size, .flex = 1U << h->fs_flex_log,
		};
		ts_fsmeta_set_geom(v->meta, &g);
	} else {
		struct ts_tier_limits lim;
		ts_tier_limits(v->tier, &lim);
		ts_fsmeta_set_capacity(v->meta, v->cfg->fs_bytes ? v->cfg->fs_bytes : lim.capacity);
	}
	if ((ret = nodes_build(v)) || (ret = advice_build(v))) {
		snprintf(err, errlen, "out of memory");
		return ret;
	}
	if (v->cfg->fs_tree) { /* the files' data as the image holds it */
		if ((ret = ts_fsmeta_tree_new(v->meta, v->cfg->fs_tree, &v->tree, err, errlen)))
			return ret;
		if (!(v->fmap = calloc(v->t->npaths ? v->t->npaths : 1, sizeof(*v->fmap)))) {
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
		for (uint32_t i = 1; i < v->t->npaths; i++)
			v->fmap[i] = ts_fsmeta_tree_find(v->tree, v->t->paths[i]);
	}
	v->cur = calloc(np, sizeof(*v->cur));
	v->parked = calloc(np, sizeof(*v->parked));
	v->wait_head = malloc((nr + np + 1) * sizeof(*v->wait_head));
	v->wait_prev = calloc(np, sizeof(*v->wait_prev));
	v->wait_next = calloc(np, sizeof(*v->wait_next));
	v->wait_key = malloc(np * sizeof(*v->wait_key));
	v->park_pos = calloc(np, sizeof(*v->park_pos));
	v->ready = calloc(np, sizeof(*v->ready));
	v->ended = calloc(np, sizeof(*v->ended));
	v->issued = calloc(nr, sizeof(*v->issued));
	v->completed = calloc(nr, sizeof(*v->completed));
	if (!v->cur || !v->parked || !v->wait_head || !v->wait_prev || !v->wait_next ||
	    !v->wait_key || !v->park_pos || !v->ready || !v->ended || !v->issued || !v->completed ||
	    ts_heap_reserve(&v->h, np)) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < nr + np + 1; i++)
		v->wait_head[i] = SIZE_MAX;
	for (size_t i = 0; i < np; i++)
		v->wait_key[i] = SIZE_MAX;
	return 0;
}

int ts_replay_virtual(const struct ts_trace *tr, const struct ts_replay_cfg *cfg_in,
		      struct ts_replay_result *res, char *err, size_t errlen)
{
	struct ts_replay_cfg cfg_wake;
	struct augmented aug = {0};
	struct vrun v = {.t = tr, .cfg = cfg_in};
	int ret;

	v.speed = cfg_in->speed > 0 ? cfg_in->speed : 1.0;
	replay_result_init(res, cfg_in->tier.profile ? cfg_in->tier.profile->name : "?");
	if (cfg_in->wakes) {
		if ((ret = replay_augment(tr, cfg_in->wakes, &aug))) {
			snprintf(err, errlen, "out of memory");
			return ret;
		}
		v.t = &aug.t;
		res->outside = aug.outside;
		res->tied = aug.moved + aug.tied;
		cfg_wake = *cfg_in;
		cfg_wake.closed_loop = true; /* the wake rule knows what the wait rule guesses */
		v.cfg = &cfg_wake;
	}
	if ((ret = replay_rthreads_build(v.t, &v.ps))) {
		snprintf(err, errlen, "out of memory");
		replay_augmented_free(&aug);
		return ret;
	}
	if (v.cfg->wakes && ((ret = replay_augment_resolve(&aug, &v.ps)) ||
			     (ret = replay_rthreads_pauses(&v.ps, v.cfg->wakes)))) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	if (!v.cfg->cpu_model)
		v.ps.cpu_cap = 0;
	if ((ret = vrun_alloc(&v, err, errlen)))
		goto out;
	/* The virtual clock starts at 1 s, so that no time is ever 0. */
	const uint64_t base = TS_NS_PER_S;
	for (size_t k = 0; k < v.ps.n && !ret; k++) {
		replay_cursor_start(&v.cur[k], &v.ps.p[k], v.t, v.ps.t0, base, v.speed);
		v.cur[k].completed = v.completed;
		ret = place(&v, &v.cur[k]);
	}
	v.end = base;
	v.cpu.cap = v.ps.cpu_cap;
	if (!ret)
		ret = run(&v, res);
	if (ret) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	res->total_ns = v.end - base; /* from the first issue, which is at base */
	res->lead_ns = v.first_io ? v.first_io - base : 0;
	res->trail_ns = replay_trail_ns(&v.ps, v.t, v.cfg->wakes, v.ended, v.completed);
	res->cpu_cap = v.ps.cpu_cap;
	res->cpu_gaps = v.cpu_gaps;
out:
	vrun_free(&v);
	replay_augmented_free(&aug);
	return ret;
}
