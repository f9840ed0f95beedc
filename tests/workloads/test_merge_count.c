/*
 * test_merge_count.c — the merge count (pipeline/vpipe.c's
 * ts_vpipe_merge_count) on a seeded order, pinned: the counts of a small
 * tfrecord dataset of sizes that differ, read in its shuffled and in its
 * stored order, for windows from one position to a third of the epoch
 * (tables of 64 slots upward, so a key's slot is often taken and lookups
 * go on past it). The values are those of the count before its lookups
 * read two slots at once; a lookup that stops too early or looks too far
 * changes them. tests/pipeline/test_twin.c checks the count against its
 * definition; this one pins it, and with steps split between threads.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/opt.h"
#include "pipeline/dataset.h"
#include "pipeline/scheduler.h"
#include "pipeline/source.h"
#include "pipeline/vpipe.h"
#include "tests/tcheck.h"
#include "tests/pipeline/tp.h"

static void set(struct ts_pipe_cfg *pc, const char *k, const char *v)
{
	char err[256];
	if (ts_opt_set(ts_pipe_opts, pc, k, v, err, sizeof err)) {
		fprintf(stderr, "option %s=%s: %s\n", k, v, err);
		tc_failures++;
	}
}

static uint64_t toy_disk(void *ctx, uint64_t now, const struct ts_vio *io)
{
	(void)ctx;
	return now + 1000 + io->len;
}

static const uint64_t windows[] = { 1, 2, 3, 5, 8, 13, 21, 40, 97, 400 };

/* below and all, per window, in that order; shuffled then stored order */
static const uint64_t pinned[2][10][2] = {
	{ { 1, 2 }, { 1, 2 }, { 1, 5 }, { 3, 11 }, { 14, 23 }, { 20, 37 }, { 37, 60 }, { 69, 115 }, { 121, 229 }, { 303, 711 } },
	{ { 585, 1003 }, { 585, 1003 }, { 585, 1003 }, { 585, 1003 }, { 585, 1003 }, { 585, 1003 }, { 585, 1003 }, { 585, 1003 }, { 585, 1003 }, { 585, 1003 } },
};

static void count(const char *dir, bool shuffle, int which, bool print)
{
	char err[1024], path[600];
	struct ts_dataset_meta meta;
	if (ts_dataset_open(dir, &meta, err, sizeof err)) {
		fprintf(stderr, "%s: %s\n", dir, err);
		tc_failures++;
		return;
	}
	snprintf(path, sizeof path, "%s/train", dir);
	struct ts_pipe_cfg pc;
	memset(&pc, 0, sizeof pc);
	CHECK(ts_opt_defaults(ts_pipe_opts, &pc, err, sizeof err) == 0);
	set(&pc, "source", "tfrecord");
	set(&pc, "path", path);
	set(&pc, "shuffle", shuffle ? "true" : "false");
	set(&pc, "decode", "none");
	set(&pc, "seed", "5");
	set(&pc, "batch", "4");
	set(&pc, "transfer_size", "20000");
	struct ts_vdisk disk = { toy_disk, NULL };
	struct ts_vpipe *v;
	if (ts_vpipe_new(&pc, &meta, &disk, NULL, &v, err, sizeof err)) {
		fprintf(stderr, "virtual: %s\n", err);
		tc_failures++;
		ts_opt_free(ts_pipe_opts, &pc);
		ts_dataset_meta_free(&meta);
		return;
	}
	struct ts_vbatch vb;
	CHECK(ts_vpipe_next_batch(v, &vb) == 1); /* the order is made */
	uint64_t k = ts_sched_samples_per_epoch(ts_vpipe_sched(v));
	CHECK_EQ_U64(k, 1200);
	for (size_t i = 0; i < TS_ARRAY_SIZE(windows); i++) {
		uint64_t b = 0, a = 0, mark = k / 2, end = k - k / 7;
		CHECK(ts_vpipe_merge_count(v, 0, windows[i], mark, end, &b, &a) == 0);
		if (print)
			printf("\t{ %llu, %llu },\n", (unsigned long long)b, (unsigned long long)a);
		CHECK_EQ_U64(b, pinned[which][i][0]);
		CHECK_EQ_U64(a, pinned[which][i][1]);
		/* in steps, split between two threads: the same */
		struct ts_vpipe_merges *m;
		uint64_t b2 = 0, a2 = 0, left = 1, done = 0;
		CHECK(ts_vpipe_merges_new(v, 0, windows[i], mark, end, &m) == 0);
		if (m)
			ts_vpipe_merges_set_split(m, 1);
		while (m && left) {
			CHECK(ts_vpipe_merges_more(v, m, done + end / 3 + 1) == 0);
			done = ts_vpipe_merges_done(m, &b2, &a2, &left);
		}
		CHECK(b2 == b && a2 == a);
		ts_vpipe_merges_free(m);
	}
	ts_vpipe_free(v);
	ts_opt_free(ts_pipe_opts, &pc);
	ts_dataset_meta_free(&meta);
}

int main(int argc, char **argv)
{
	bool print = argc > 1 && !strcmp(argv[1], "--print");
	char root[] = "/tmp/ts-merges-XXXXXX", dir[600], err[1024];
	if (!mkdtemp(root)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(dir, sizeof dir, "%s/tfrecord", root);
	const struct ts_dataset_ops *kind = ts_dataset_find("tfrecord", err, sizeof err);
	struct ts_dataset_config dc;
	memset(&dc, 0, sizeof dc);
	dc.count = 30; /* files */
	dc.seed = 11;
	dc.threads = 2;
	CHECK(ts_opt_set(ts_dataset_opts(), &dc, "samples_per_file", "40", err, sizeof err) == 0);
	CHECK(ts_opt_set(ts_dataset_opts(), &dc, "record_stdev", "8192", err, sizeof err) == 0);
	struct ts_dataset_stats st;
	if (!kind || ts_dataset_make(kind, &dc, dir, &st, err, sizeof err)) {
		fprintf(stderr, "tfrecord: %s\n", kind ? err : "no kind");
		tp_rmrf(root);
		return 1;
	}
	count(dir, true, 0, print);
	count(dir, false, 1, print);
	tp_rmrf(root);
	return tc_exit();
}
