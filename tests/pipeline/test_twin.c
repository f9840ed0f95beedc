/*
 * test_twin.c — a seeded real run and its virtual twin make the same
 * decisions: the loader (threads, io_uring, real files) and the virtual
 * loader (event loop, a modeled disk) read the same samples in the same
 * order into the same batches, and in virtual time each sample is charged
 * the bytes the real source reads for it. One table of configurations:
 * every source with a virtual description, shuffled or not, decoded or not,
 * several queue depths and prefetch windows.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/opt.h"
#include "pipeline/dataset.h"
#include "pipeline/loader.h"
#include "pipeline/scheduler.h"
#include "pipeline/source.h"
#include "pipeline/vpipe.h"
#include "tests/tcheck.h"
#include "tests/pipeline/tp.h"

struct claim {
	uint64_t seq, id;
	uint32_t pos;
};

struct log {
	struct claim *c;
	size_t n, cap;
	uint64_t *taken;
	size_t ntaken, taken_cap;
};

static void on_event(void *ctx, enum ts_sched_ev ev, const struct ts_sched_pos *pos)
{
	struct log *l = ctx;
	if (ev == TS_SCHED_EV_CLAIM) {
		if (l->n == l->cap) {
			l->cap = l->cap ? 2 * l->cap : 256;
			l->c = realloc(l->c, l->cap * sizeof(*l->c));
		}
		l->c[l->n++] = (struct claim){ pos->seq, pos->id, pos->pos };
	} else if (ev == TS_SCHED_EV_TAKE) {
		if (l->ntaken == l->taken_cap) {
			l->taken_cap = l->taken_cap ? 2 * l->taken_cap : 64;
			l->taken = realloc(l->taken, l->taken_cap * sizeof(*l->taken));
		}
		l->taken[l->ntaken++] = pos->seq;
	}
}

/* A disk where every request takes a time from its size: enough to make
 * reads overlap and finish out of order. */
static uint64_t toy_disk(void *ctx, uint64_t now, const struct ts_vio *io)
{
	uint64_t *reqs = ctx;
	++*reqs;
	return now + 50000 + io->len * 3 + (io->file * 7919 % 13) * 10000;
}

struct twin_case {
	const char *kind, *input, *source;
	bool shuffle;
	const char *decode;
	unsigned batch, qd, prefetch, vcpus, epochs;
	unsigned per_file, transfer; /* npz, tfrecord: samples per file, transfer_size */
	unsigned first, count;	     /* a shard: samples [first, first + count) */
	bool fixed;		     /* npz, tfrecord: records of one size (plan_runs) */
};

static const struct twin_case cases[] = {
	{ "imagenet-jpeg", "train", "folder", true, "none", 8, 4, 2, 1, 2 },
	{ "imagenet-jpeg", "train", "folder", false, "modeled", 5, 16, 3, 3, 1 },
	{ "imagenet-jpeg", "train", "folder", true, "modeled", 16, 1, 1, 2, 2 },
	{ "imagenet-rec", "train.rec", "rec", true, "modeled", 8, 8, 2, 2, 2 },
	{ "imagenet-rec", "train.rec", "rec", false, "none", 7, 2, 4, 1, 1 },
	{ "imagenet-lmdb", "train_lmdb", "lmdb", false, "modeled", 8, 16, 2, 4, 2 },
	{ "npz", "train", "npz", true, "none", 7, 4, 2, 1, 2 },
	{ "tfrecord", "train", "tfrecord", true, "none", 6, 8, 3, 1, 2, 5, 20000 },
	{ "tfrecord", "train", "tfrecord", false, "none", 4, 2, 2, 1, 1, 1, 0 },
	/* an MPI rank's shard (workloads/dlio_mpi.h) */
	{ "npz", "train", "npz", true, "none", 3, 4, 2, 1, 2, 0, 0, 20, 21 },
	{ "tfrecord", "train", "tfrecord", true, "none", 4, 8, 3, 1, 2, 5, 20000, 13, 30 },
	/* records of one size: the source gives its reads as a rule */
	{ "tfrecord", "train", "tfrecord", true, "none", 6, 8, 3, 1, 2, 5, 20000, 0, 0, true },
	{ "tfrecord", "train", "tfrecord", true, "none", 4, 8, 3, 1, 2, 5, 20000, 13, 30, true },
};

static void set(struct ts_pipe_cfg *pc, const char *k, const char *v)
{
	char err[256];
	if (ts_opt_set(ts_pipe_opts, pc, k, v, err, sizeof err)) {
		fprintf(stderr, "option %s=%s: %s\n", k, v, err);
		tc_failures++;
	}
}

static void setu(struct ts_pipe_cfg *pc, const char *k, unsigned v)
{
	char b[32];
	snprintf(b, sizeof b, "%u", v);
	set(pc, k, b);
}

static unsigned merging_cases; /* shuffled cases whose reads meet */

/* ts_vpipe_merge_count by its definition, over every pair of positions:
 * a read at position p counts a read ending where it starts and one
 * starting where it ends (each at most once) among the positions from
 * the block of @window before p's own to p. */
static void merges_brute(const struct ts_source_ops *ops, const struct ts_vsource *vs,
			 const struct ts_sched_order *order, uint64_t first, uint64_t window, uint64_t mark,
			 uint64_t end, uint64_t *below, uint64_t *all)
{
	struct ts_vsample *s = calloc(end ? end : 1, sizeof(*s));
	*below = *all = 0;
	for (uint64_t p = 0; p < end; p++)
		ops->plan_sample(vs, first + ts_sched_order_at(order, p), &s[p]);
	for (uint64_t p = 0; p < end; p++) {
		uint64_t lo = p / window ? (p / window - 1) * window : 0, meets = 0;
		for (unsigned i = 0; i < s[p].n; i++) {
			const struct ts_vio *io = &s[p].io[i];
			bool before = false, after = false;
			if (io->op != TS_VIO_READ)
				continue;
			for (uint64_t q = lo; q < p; q++)
				for (unsigned j = 0; j < s[q].n; j++) {
					const struct ts_vio *o = &s[q].io[j];
					if (o->op != TS_VIO_READ || o->file != io->file)
						continue;
					before |= o->off + o->len == io->off;
					after |= o->off == io->off + io->len;
				}
			meets += before + after;
		}
		*all += meets;
		*below += p < mark ? meets : 0;
	}
	free(s);
}

/* Whether samples [@first, @first + @n) are one read each, of a byte or
 * more, lying as stored: each starts no sooner than the one before ends,
 * or in a file numbered higher (what vpipe.c's listing needs). */
static bool as_stored(const struct ts_source_ops *ops, const struct ts_vsource *vs, uint64_t first,
		      uint64_t n)
{
	uint64_t file = 0, end = 0;
	for (uint64_t i = 0; i < n; i++) {
		struct ts_vsample s;
		const struct ts_vio *rd = NULL;
		unsigned reads = 0;
		ops->plan_sample(vs, first + i, &s);
		for (unsigned j = 0; j < s.n; j++)
			if (s.io[j].op == TS_VIO_READ)
				rd = &s.io[j], reads++;
		if (reads != 1 || !rd->len || (i && (rd->file < file || (rd->file == file && rd->off < end))))
			return false;
		file = rd->file;
		end = rd->off + rd->len;
	}
	return true;
}

static unsigned merges_listed; /* counts listed (ts_vpipe_merges_set_list) */
static unsigned reads_planned;	/* cases whose source answered plan_reads */
static unsigned runs_planned;	/* ... and plan_runs */
static unsigned runs_listed;	/* counts listed by plan_runs's rule and from the reads alike */

/* Where the source's plan_reads answers for samples [@first, @first +
 * @n), each read it names is the one read plan_sample plans, and that
 * read is all it plans (vpipe.c's listing takes one for the other). */
static bool reads_agree(const struct ts_source_ops *ops, const struct ts_vsource *vs,
			uint64_t first, uint64_t n)
{
	struct ts_vread rd[37]; /* blocks of an odd size: they straddle files */
	bool answered = false;
	for (uint64_t b = 0; ops->plan_reads && b < n; b += 37) {
		uint64_t len = TS_MIN(37, n - b);
		if (!ops->plan_reads(vs, first + b, len, rd)) {
			if (answered)
				return false; /* the same layout answers for all or none */
			break;
		}
		answered = true;
		for (uint64_t i = 0; i < len; i++) {
			struct ts_vsample s;
			ops->plan_sample(vs, first + b + i, &s);
			if (s.n != 1 || s.io[0].op != TS_VIO_READ || s.io[0].file != rd[i].file ||
			    s.io[0].off != rd[i].off || s.io[0].len != rd[i].len)
				return false;
		}
	}
	reads_planned += answered;
	/* where plan_runs answers, its rule names plan_reads's reads */
	uint64_t per = 0, rlen = 0;
	if (ops->plan_runs && ops->plan_runs(vs, &per, &rlen)) {
		if (!answered || !per || !rlen)
			return false;
		for (uint64_t b = 0; b < n; b += 37) {
			uint64_t len = TS_MIN(37, n - b);
			if (!ops->plan_reads(vs, first + b, len, rd))
				return false;
			for (uint64_t i = 0; i < len; i++) {
				uint64_t s = first + b + i;
				if (rd[i].file != 2 + s / per || rd[i].off != s % per * rlen ||
				    rd[i].len != rlen)
					return false;
			}
		}
		runs_planned++;
	}
	return true;
}

/* Of epoch 0's samples, those ts_vpipe_merge_count names with a window
 * over the whole epoch, in the order @shuffle makes (-1 on an error); on
 * the way, its counts with shorter windows and marks are those of its
 * definition (merges_brute). */
static int64_t merges_in(struct ts_pipe_cfg *pc, const struct ts_dataset_meta *meta,
			 const struct ts_decode_cal *cal, bool shuffle)
{
	char err[1024];
	uint64_t reqs = 0, below = 0, all = 0;
	struct ts_vdisk disk = { toy_disk, &reqs };
	struct ts_vpipe *v;
	set(pc, "shuffle", shuffle ? "true" : "false");
	if (ts_vpipe_new(pc, meta, &disk, cal, &v, err, sizeof err)) {
		fprintf(stderr, "merges: %s\n", err);
		return -1;
	}
	struct ts_vbatch vb;
	int64_t n = -1;
	/* the order is known once a batch of the epoch is named */
	if (ts_vpipe_next_batch(v, &vb) == 1) {
		uint64_t k = ts_sched_samples_per_epoch(ts_vpipe_sched(v));
		if (!ts_vpipe_merge_count(v, 0, k, k, k, &below, &all))
			n = below == all ? (int64_t)all : -1;
		const struct ts_source_ops *ops = ts_source_find(pc->source, err, sizeof err);
		struct ts_vsource vs = { .meta = meta, .cfg = pc };
		const struct ts_sched_order *order = ts_sched_order(ts_vpipe_sched(v), 0);
		bool open = ops && ops->plan_open(ops, &vs, err, sizeof err) == 0;
		CHECK(order && open);
		bool computed = order && !order->v && order->perm.n;
		bool listable = open && computed && as_stored(ops, &vs, pc->first, order->perm.n);
		CHECK(!open || reads_agree(ops, &vs, pc->first, k));
		const uint64_t windows[] = { 1, 2, 3, 5, 8, k / 3 + 1 };
		for (size_t i = 0; order && open && i < sizeof windows / sizeof *windows; i++) {
			uint64_t w = windows[i], mark = k / 2, end = k - k / 5, b0, a0, b1, a1;
			CHECK(ts_vpipe_merge_count(v, 0, w, mark, end, &b0, &a0) == 0);
			merges_brute(ops, &vs, order, pc->first, w, mark, end, &b1, &a1);
			if (b0 != b1 || a0 != a1)
				fprintf(stderr, "%s merges, window %llu: %llu/%llu, by definition "
						"%llu/%llu\n", pc->source, (unsigned long long)w,
					(unsigned long long)b0, (unsigned long long)a0,
					(unsigned long long)b1, (unsigned long long)a1);
			CHECK(b0 == b1 && a0 == a1);
			/* counted in steps of any size, the same sums; the
			 * second four again with every step over four windows
			 * or more split between two threads
			 * (ts_vpipe_merges_set_split); where the order is
			 * computed, the third four listed from their second
			 * step on (ts_vpipe_merges_set_list: the tables count
			 * the first) and the last four listed from the first,
			 * by two threads */
			const uint64_t parts[] = { 1, 7, end / 3 + 1, end, 1, 7, end / 3 + 1, end,
						   1, 7, end / 3 + 1, end, 1, 7, end / 3 + 1, end };
			for (size_t j = 0; j < sizeof parts / sizeof *parts; j++) {
				struct ts_vpipe_merges *m;
				uint64_t b2 = 0, a2 = 0, left = 1, done = 0;
				CHECK(ts_vpipe_merges_new(v, 0, w, mark, end, &m) == 0);
				if (m && j >= 4 && j < 8)
					ts_vpipe_merges_set_split(m, 1);
				if (m && j >= 12) {
					ts_vpipe_merges_set_split(m, 1);
					ts_vpipe_merges_set_list(m, 1);
				}
				while (m && left) {
					if (j >= 8 && j < 12 && done)
						ts_vpipe_merges_set_list(m, 1);
					CHECK(ts_vpipe_merges_more(v, m, done + parts[j]) == 0);
					uint64_t d = ts_vpipe_merges_done(m, &b2, &a2, &left);
					CHECK(d == TS_MIN(done + parts[j], end) && d + left == end);
					done = d;
				}
				/* listed where it can be: a computed shuffled order
				 * of samples that lie as stored, one read each */
				bool lists = (j >= 12 || (j >= 8 && parts[j] < end)) && computed && listable;
				CHECK(m && ts_vpipe_merges_listed(m) == lists);
				merges_listed += m && lists;
				if (m && b2 != b0)
					fprintf(stderr, "%s merges, window %llu, steps of %llu (%zu): "
							"%llu/%llu, counted whole %llu/%llu\n",
						pc->source, (unsigned long long)w,
						(unsigned long long)parts[j], j, (unsigned long long)b2,
						(unsigned long long)a2, (unsigned long long)b0,
						(unsigned long long)a0);
				CHECK(m && b2 == b0 && a2 == a0);
				ts_vpipe_merges_free(m);
				/* listed from the reads themselves, not plan_runs's
				 * rule: the same sums */
				if (j < 12 || !lists)
					continue;
				uint64_t b3 = 0, a3 = 0;
				CHECK(ts_vpipe_merges_new(v, 0, w, mark, end, &m) == 0);
				left = 1;
				done = 0;
				if (m) {
					ts_vpipe_merges_set_split(m, 1);
					ts_vpipe_merges_set_list(m, 1);
					ts_vpipe_merges_set_plain(m, true);
				}
				while (m && left) {
					CHECK(ts_vpipe_merges_more(v, m, done + parts[j]) == 0);
					done = ts_vpipe_merges_done(m, &b3, &a3, &left);
				}
				CHECK(m && ts_vpipe_merges_listed(m));
				CHECK(m && b3 == b0 && a3 == a0);
				runs_listed += m && b3 == b0 && a3 == a0;
				ts_vpipe_merges_free(m);
			}
		}
		if (open)
			ops->plan_close(&vs);
	}
	ts_vpipe_free(v);
	return n;
}

static void run_case(const struct twin_case *c, const char *root, const char *cal_path,
		     const struct ts_decode_cal *cal)
{
	char dir[512], path[600], err[1024];
	snprintf(dir, sizeof dir, "%s/%s-%u%s", root, c->kind, c->per_file, c->fixed ? "-fixed" : "");
	struct ts_dataset_meta meta;
	if (access(dir, F_OK)) {
		const struct ts_dataset_ops *kind = ts_dataset_find(c->kind, err, sizeof err);
		struct ts_dataset_config dc;
		memset(&dc, 0, sizeof dc);
		dc.count = 61;
		dc.seed = 11;
		dc.threads = 2;
		char per[24];
		snprintf(per, sizeof per, "%u", c->per_file);
		CHECK(ts_opt_set(ts_dataset_opts(), &dc, "samples_per_file", per, err,
				 sizeof err) == 0);
		/* DLIO's kinds: sizes that differ, so that reading the wrong
		 * samples shows in the bytes */
		if ((!strcmp(c->kind, "npz") || !strcmp(c->kind, "tfrecord")) && !c->fixed)
			CHECK(ts_opt_set(ts_dataset_opts(), &dc, "record_stdev", "8192", err,
					 sizeof err) == 0);
		CHECK(kind != NULL);
		if (!kind)
			return;
		/* The table says what the kind's ops say reads it. */
		CHECK(!strcmp(kind->source->name, c->source) && !strcmp(kind->input, c->input));
		struct ts_dataset_stats st;
		if (ts_dataset_make(kind, &dc, dir, &st, err, sizeof err)) {
			fprintf(stderr, "%s: %s\n", c->kind, err);
			tc_failures++;
			return;
		}
	}
	if (ts_dataset_open(dir, &meta, err, sizeof err)) {
		fprintf(stderr, "%s: %s\n", dir, err);
		tc_failures++;
		return;
	}
	snprintf(path, sizeof path, "%s/%s", dir, c->input);

	struct ts_pipe_cfg pc;
	memset(&pc, 0, sizeof pc);
	CHECK(ts_opt_defaults(ts_pipe_opts, &pc, err, sizeof err) == 0);
	set(&pc, "source", c->source);
	set(&pc, "path", path);
	set(&pc, "shuffle", c->shuffle ? "true" : "false");
	set(&pc, "decode", c->decode);
	set(&pc, "calibration", cal_path);
	set(&pc, "seed", "5");
	setu(&pc, "batch", c->batch);
	setu(&pc, "qd", c->qd);
	setu(&pc, "prefetch", c->prefetch);
	setu(&pc, "vcpus", c->vcpus);
	setu(&pc, "epochs", c->epochs);
	setu(&pc, "transfer_size", c->transfer);
	setu(&pc, "first", c->first);
	setu(&pc, "count", c->count);

	/* Real: threads, io_uring, the files. */
	struct log real = { 0 }, virt = { 0 };
	struct ts_pipe *p;
	uint64_t *real_ids = NULL, *real_len = NULL;
	size_t nreal = 0;
	if (ts_pipe_new(&pc, &p, err, sizeof err)) {
		fprintf(stderr, "%s: %s\n", c->kind, err);
		tc_failures++;
		goto out;
	}
	ts_pipe_set_log(p, on_event, &real);
	CHECK(ts_pipe_start(p) == 0);
	size_t cap = ts_pipe_samples_per_epoch(p) * c->epochs;
	real_ids = calloc(cap, sizeof *real_ids);
	real_len = calloc(cap, sizeof *real_len);
	for (;;) {
		struct ts_batch *b;
		int64_t w = ts_pipe_next_batch(p, &b);
		CHECK(w >= 0);
		if (w < 0 || !b)
			break;
		for (uint32_t i = 0; i < b->n && nreal < cap; i++, nreal++) {
			real_ids[nreal] = b->s[i].id;
			real_len[nreal] = b->s[i].len;
		}
		ts_pipe_batch_release(p, b);
	}
	struct ts_pipe_stats ps;
	ts_pipe_stats(p, &ps);
	ts_pipe_free(p);

	/* Virtual: the event loop, a toy disk, the same meta. */
	uint64_t reqs = 0;
	struct ts_vdisk disk = { toy_disk, &reqs };
	struct ts_vpipe *v;
	if (ts_vpipe_new(&pc, &meta, &disk, cal, &v, err, sizeof err)) {
		fprintf(stderr, "%s virtual: %s\n", c->kind, err);
		tc_failures++;
		goto out;
	}
	ts_sched_set_log(ts_vpipe_sched(v), on_event, &virt);
	struct ts_vpipe_stats vs;
	uint64_t t = 0, nvirt = 0;
	struct ts_vbatch vb;
	int rc;
	while ((rc = ts_vpipe_next_batch(v, &vb)) == 1) {
		t = (vb.ready_ns > t ? vb.ready_ns : t) + 120000; /* a consumer step */
		nvirt += vb.n;
		CHECK(ts_vpipe_release(v, vb.seq, t) == 0);
	}
	CHECK(rc == 0);
	ts_vpipe_stats(v, &vs);
	CHECK_EQ_U64(nvirt, nreal);
	CHECK_EQ_U64(vs.samples, nreal);
	CHECK(reqs > 0);

	/* Same takes, in order. */
	CHECK_EQ_U64(virt.ntaken, real.ntaken);
	for (size_t i = 0; i < real.ntaken && i < virt.ntaken; i++)
		CHECK_EQ_U64(virt.taken[i], real.taken[i]);
	/* Same claims, in the same order. */
	CHECK_EQ_U64(virt.n, real.n);
	for (size_t i = 0; i < virt.n && i < real.n; i++) {
		const struct claim *a = &real.c[i], *b = &virt.c[i];
		if (a->seq != b->seq || a->pos != b->pos || a->id != b->id) {
			fprintf(stderr, "%s claim %zu: real (%llu,%u,%llu) virtual (%llu,%u,%llu)\n",
				c->kind, i, (unsigned long long)a->seq, a->pos,
				(unsigned long long)a->id, (unsigned long long)b->seq, b->pos,
				(unsigned long long)b->id);
			tc_failures++;
			break;
		}
	}
	/* Same batch composition: the delivered ids are the claimed ids,
	 * counted from the shard's first sample. */
	CHECK_EQ_U64(real.n, nreal);
	for (size_t i = 0; i < nreal && i < real.n; i++) {
		CHECK_EQ_U64(real_ids[i], c->first + real.c[i].id);
		CHECK(real_ids[i] >= c->first && (!c->count || real_ids[i] < c->first + c->count));
	}
	/* The virtual source charges what the real one reads: for a file
	 * per sample, the file's bytes, delivered whole without a decode. */
	if (!strcmp(c->source, "folder") && !strcmp(c->decode, "none")) {
		const struct ts_source_ops *ops = ts_source_find(c->source, err, sizeof err);
		struct ts_vsource vsrc = { .meta = &meta, .cfg = &pc };
		CHECK(ops && ops->plan_open(ops, &vsrc, err, sizeof err) == 0);
		for (size_t i = 0; i < nreal; i++) {
			struct ts_vsample s;
			ops->plan_sample(&vsrc, real_ids[i], &s);
			CHECK_EQ_U64(s.len, real_len[i]);
			CHECK_EQ_U64(s.io[s.n - 1].len, real_len[i]);
		}
		ops->plan_close(&vsrc);
	}
	/* DLIO's readers: virtual time requests the bytes the real reader
	 * read, in as many requests as transfer_size makes. */
	if (!strcmp(c->source, "npz") || !strcmp(c->source, "tfrecord")) {
		CHECK_EQ_U64(vs.read_bytes, ps.reader.bytes);
		CHECK_EQ_U64(ps.errors, 0);
		uint64_t want = 0;
		for (size_t i = 0; i < nreal; i++) {
			uint64_t b = ts_dataset_sample_len(&meta, real_ids[i]);
			want += c->transfer && c->per_file > 1 ? (b + c->transfer - 1) / c->transfer : 1;
		}
		CHECK_EQ_U64(vs.read_requests, want);
	}
	/* Samples that may merge, with a window over the whole epoch: every
	 * two reads that meet (one ends where the other starts) counted once,
	 * whichever comes first in the order. A shuffled order puts some
	 * samples before the one stored just before them (the tier merges by
	 * arrival, and the later in the order may arrive first): it counts
	 * the same as the storage order. */
	if (c->shuffle) {
		int64_t sh = merges_in(&pc, &meta, cal, true), st = merges_in(&pc, &meta, cal, false);
		CHECK(sh >= 0 && st >= 0);
		if (sh != st)
			fprintf(stderr, "%s merges: shuffled %lld, storage order %lld\n", c->kind,
				(long long)sh, (long long)st);
		CHECK(sh == st);
		merging_cases += st > 0;
	}
	ts_vpipe_free(v);
out:
	free(real.c);
	free(real.taken);
	free(virt.c);
	free(virt.taken);
	free(real_ids);
	free(real_len);
	ts_dataset_meta_free(&meta);
	ts_opt_free(ts_pipe_opts, &pc);
}

/* ts_sched_peek names the samples the next claims take, as far ahead as
 * asked, and nothing past the end of the epoch being read. */
static void test_peek(bool drop_last)
{
	enum { N = 37, B = 5, EPOCHS = 3, AH = 12 };
	struct ts_sched_cfg sc = { .samples = N, .batch = B, .prefetch = 3, .epochs = EPOCHS,
				   .drop_last = drop_last, .shuffle = true, .seed = 11, .qd = 4,
				   .slots = 8 };
	struct ts_sched *s;
	char err[256];
	CHECK(ts_sched_new(&sc, &s, err, sizeof err) == 0);
	uint64_t ids[N * EPOCHS], epoch[N * EPOCHS], peek[N * EPOCHS][AH];
	size_t n = 0;
	struct ts_sched_pos pos;
	struct ts_sched_batch b;
	for (;;) {
		int r = ts_sched_next(s, &pos);
		if (r == 1) {
			for (int a = 0; a < AH; a++)
				peek[n][a] = ts_sched_peek(s, (uint64_t)a);
			CHECK(ts_sched_claim(s, &pos, true) == 1);
			ids[n] = pos.id;
			epoch[n++] = pos.epoch;
			ts_sched_read_done(s, &pos, 0);
		} else if (ts_sched_take(s, &b) == 1) {
			ts_sched_release(s, b.seq);
		} else {
			break;
		}
	}
	CHECK_EQ_U64(n, (drop_last ? N / B * B : N) * EPOCHS);
	for (size_t g = 0; g < n; g++) {
		CHECK_EQ_U64(peek[g][0], ids[g]);
		for (size_t a = 0; a < AH; a++) {
			bool same = g + a < n && epoch[g + a] == epoch[g];
			CHECK_EQ_U64(peek[g][a], same ? ids[g + a] : UINT64_MAX);
		}
	}
	CHECK_EQ_U64(ts_sched_peek(s, 0), UINT64_MAX);
	ts_sched_free(s);
}

/* With restart, the reader stops at an epoch's end, whatever the window
 * allows, until the consumer opens the next epoch: every batch of epoch e
 * is taken before any sample of epoch e + 1 is claimed. */
static void test_restart(void)
{
	enum { N = 20, B = 4, EPOCHS = 3 };
	struct ts_sched_cfg sc = { .samples = N, .batch = B, .prefetch = 8, .epochs = EPOCHS,
				   .drop_last = true, .qd = 16, .slots = 32, .restart = true };
	struct ts_sched *s;
	char err[256];
	CHECK(ts_sched_new(&sc, &s, err, sizeof err) == 0);
	struct ts_sched_pos pos;
	struct ts_sched_batch b;
	uint64_t claimed = 0, taken = 0, opened = 1;
	for (;;) {
		int r = ts_sched_next(s, &pos);
		if (r == 1) {
			CHECK(pos.epoch < opened);
			CHECK_EQ_U64(taken, pos.epoch * (N / B)); /* the epoch before is all taken */
			CHECK(ts_sched_claim(s, &pos, true) == 1);
			ts_sched_read_done(s, &pos, 0);
			claimed++;
		} else if (ts_sched_take(s, &b) == 1) {
			ts_sched_release(s, b.seq);
			taken++;
		} else if (r == 0 && taken == opened * (N / B)) {
			/* held back at the epoch's end, the window free: open */
			CHECK(ts_sched_next(s, &pos) == 0);
			ts_sched_open_epoch(s);
			opened++;
		} else {
			break;
		}
	}
	CHECK_EQ_U64(claimed, N * EPOCHS);
	CHECK_EQ_U64(taken, N / B * EPOCHS);
	CHECK_EQ_U64(opened, EPOCHS);
	ts_sched_free(s);
}

/* The decode workers' busy time of a virtual run of @source over @dir
 * (batch 4, 1 worker, one epoch), *@n its samples, *@st its stats. */
static uint64_t busy_of(const char *source, const char *dir, const char *input,
			const char *cal_path, const struct ts_decode_cal *cal, uint64_t *n,
			struct ts_vpipe_stats *st)
{
	char path[600], err[1024];
	struct ts_dataset_meta meta;
	*n = 0;
	memset(st, 0, sizeof *st);
	if (ts_dataset_open(dir, &meta, err, sizeof err)) {
		fprintf(stderr, "%s: %s\n", dir, err);
		tc_failures++;
		return 0;
	}
	snprintf(path, sizeof path, "%s/%s", dir, input);
	struct ts_pipe_cfg pc;
	memset(&pc, 0, sizeof pc);
	CHECK(ts_opt_defaults(ts_pipe_opts, &pc, err, sizeof err) == 0);
	set(&pc, "source", source);
	set(&pc, "path", path);
	set(&pc, "decode", "modeled");
	set(&pc, "calibration", cal_path);
	setu(&pc, "batch", 4);
	setu(&pc, "vcpus", 1);
	setu(&pc, "epochs", 1);
	uint64_t reqs = 0, busy = 0;
	struct ts_vdisk disk = { toy_disk, &reqs };
	struct ts_vpipe *v;
	if (ts_vpipe_new(&pc, &meta, &disk, cal, &v, err, sizeof err)) {
		fprintf(stderr, "%s virtual: %s\n", source, err);
		tc_failures++;
	} else {
		struct ts_vpipe_stats vs;
		CHECK(tp_vpipe_drain(v, &vs) == 0);
		busy = vs.decode_busy_ns;
		*n = vs.samples;
		*st = vs;
		ts_vpipe_free(v);
	}
	ts_dataset_meta_free(&meta);
	ts_opt_free(ts_pipe_opts, &pc);
	return busy;
}

/* A host's DataLoader costs (loader_sample_ns, loader_batch_ns): the
 * folder source, read as a PyTorch DataLoader reads it, charges every
 * sample the per-sample cost and its share of the per-batch one on its
 * worker, exactly, besides the decode, and its stats say what (the row's
 * text); a source read another way (MXNet's RecordIO) is charged neither. */
static void test_loader_cost(const char *root, const char *cal_path, const struct ts_decode_cal *cal)
{
	struct ts_decode_cal with = *cal;
	with.loader_sample_ns = 300000;
	with.loader_batch_ns = 200000; /* over batches of 4: 50,000 a sample */
	char dir[512];
	uint64_t n0, n1;
	struct ts_vpipe_stats s0, s1;
	snprintf(dir, sizeof dir, "%s/imagenet-jpeg-0", root);
	uint64_t b0 = busy_of("folder", dir, "train", cal_path, cal, &n0, &s0);
	uint64_t b1 = busy_of("folder", dir, "train", cal_path, &with, &n1, &s1);
	CHECK(n0 > 0 && n1 == n0 && b0 > 0);
	CHECK_EQ_U64(b1 - b0, n0 * 350000);
	CHECK(s0.dataloader && s1.dataloader && s0.sample_ns == 0 && s1.sample_ns == 350000);
	snprintf(dir, sizeof dir, "%s/imagenet-rec-0", root);
	b0 = busy_of("rec", dir, "train.rec", cal_path, cal, &n0, &s0);
	b1 = busy_of("rec", dir, "train.rec", cal_path, &with, &n1, &s1);
	CHECK(n0 > 0 && n1 == n0 && b0 > 0);
	CHECK_EQ_U64(b1, b0);
	CHECK(!s1.dataloader && s1.sample_ns == 0);
}

int main(void)
{
	test_peek(false);
	test_peek(true);
	test_restart();
	/* the same with the orders computed (scheduler.c: 2^24 samples or
	 * more), below */
	ts_sched_set_computed_from(1);
	test_peek(false);
	test_peek(true);
	ts_sched_set_computed_from(0);
	char root[] = "/tmp/ts-twin-XXXXXX", cal_path[300], err[512];
	if (!mkdtemp(root)) {
		perror("mkdtemp");
		return 1;
	}
	struct ts_decode_cal cal = { .base_ns = 40000, .ns_per_mpix = 90000, .decode_ips = 1,
				     .full_ips = 1, .xform_ns = 20000, .images = 1 };
	snprintf(cal.cpu, sizeof cal.cpu, "test");
	snprintf(cal_path, sizeof cal_path, "%s/decode.json", root);
	CHECK(ts_decode_cal_save(cal_path, &cal, err, sizeof err) == 0);
	for (size_t i = 0; i < TS_ARRAY_SIZE(cases); i++)
		run_case(&cases[i], root, cal_path, &cal);
	CHECK(merging_cases > 0); /* the merge check above saw reads that meet */
	/* the shuffled cases again, with computed orders: the real loader and
	 * its twin read them alike, the merge count over one is as defined */
	unsigned stored = merging_cases;
	ts_sched_set_computed_from(1);
	for (size_t i = 0; i < TS_ARRAY_SIZE(cases); i++)
		if (cases[i].shuffle)
			run_case(&cases[i], root, cal_path, &cal);
	ts_sched_set_computed_from(0);
	CHECK(merging_cases > stored);
	CHECK(merges_listed > 0); /* and listed (vpipe.c's merges_list) */
	CHECK(reads_planned > 0); /* a source's reads alone (plan_reads) */
	CHECK(runs_planned > 0);  /* ... as a rule (plan_runs) */
	CHECK(runs_listed > 0);
	test_loader_cost(root, cal_path, &cal);
	tp_rmrf(root);
	return tc_exit();
}
