/* test_dlio_loader.c — DLIO's PyTorch loader in virtual time
 * (workloads/dlio_loader.h) over a disk that records every request and
 * answers each in 1 ms: each file's requests are numpy's chain for it
 * (pipeline/dliochain.h), one after the other; every sample is read once
 * an epoch across the ranks, each rank a contiguous slice of the global
 * list (unshuffled: the same slice every epoch; shuffled: a fresh one);
 * no request of an epoch is issued before the previous one ended (the
 * loader restarts); at most ranks x read_threads requests are in flight;
 * and with a prefetch_factor of 1 the first step waits for one whole batch
 * and each worker's batch for its previous one (batch i to worker i mod W).
 * On fewer cores than workers and ranks, their CPU waits for one, first
 * come first served, to the nanosecond, a share after each request. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tests/tcheck.h"
#include "core/opt.h"
#include "pipeline/dataset.h"
#include "pipeline/dliochain.h"
#include "pipeline/dliofmt.h"
#include "pipeline/ds_dlio.h"
#include "pipeline/loader.h"
#include "pipeline/scheduler.h"
#include "pipeline/vpipe.h"
#include "tier/fsmeta.h"
#include "workloads/dlio_loader.h"

#define LAT 1000000ull /* ns per request */
#define FILES 48
#define MAXREQ 200000

struct rec {
	uint64_t t, done, file, off, len;
	uint8_t op;
	uint64_t ino, dir, dir_ino;
	uint32_t dir_blocks, top_blocks;
};

static struct rec log_[MAXREQ];
static size_t nlog;

static uint64_t lat = LAT; /* the disk's answer */
/* File @late_file's lookups answered @late_ns later (a rank started late) */
static uint64_t late_file = UINT64_MAX, late_ns;

static uint64_t submit(void *ctx, uint64_t now, const struct ts_vio *io)
{
	(void)ctx;
	uint64_t done = now + lat;
	if (io->op == TS_VIO_META && io->file - 2 == late_file)
		done += late_ns;
	if (nlog < MAXREQ)
		log_[nlog++] = (struct rec){ now,	  done,		     io->file - 2,   io->off,
					     io->len,	  io->op,	     io->ino,	     io->dir,
					     io->dir_ino, io->dir_blocks, io->top_blocks };
	return done;
}

/* A dataset of @kind: @files files of @per samples of @len +- @stdev bytes. */
static void describe_kind(struct ts_dataset_meta *m, const struct ts_dataset_ops *kind,
			  uint64_t files, uint64_t seed, const char *per, const char *len,
			  const char *stdev)
{
	struct ts_dataset_config dc;
	char err[256];
	memset(&dc, 0, sizeof(dc));
	CHECK(ts_opt_defaults(ts_dataset_opts(), &dc, err, sizeof(err)) == 0);
	dc.count = files;
	dc.seed = seed;
	CHECK(ts_opt_set(ts_dataset_opts(), &dc, "samples_per_file", per, err, sizeof(err)) == 0);
	CHECK(ts_opt_set(ts_dataset_opts(), &dc, "record_length", len, err, sizeof(err)) == 0);
	CHECK(ts_opt_set(ts_dataset_opts(), &dc, "record_stdev", stdev, err, sizeof(err)) == 0);
	CHECK(ts_dataset_meta_describe(kind, &dc, m, err, sizeof(err)) == 0);
}

static void describe(struct ts_dataset_meta *m, const char *stdev)
{
	describe_kind(m, &ts_dataset_npz, FILES, 7, "1", "300000", stdev);
}

/* A TFRecord dataset of @files files of @per records. */
static void describe_tf(struct ts_dataset_meta *m, uint64_t files, const char *per)
{
	describe_kind(m, &ts_dataset_tfrecord, files, 11, per, "30000", "9000");
}

/* @c run over the recording disk, a fresh log: the PyTorch loader, or
 * with @tf the TensorFlow loader. */
static struct ts_dl_result run_cfg(const struct ts_dl_cfg *c, bool tf)
{
	struct ts_vdisk disk = { submit, NULL, NULL };
	struct ts_dl_result r;
	char err[256] = "";
	nlog = 0;
	int rc = tf ? ts_dl_run_tf_virtual(c, &disk, NULL, NULL, &r, err, sizeof(err))
		    : ts_dl_run_virtual(c, &disk, NULL, NULL, &r, err, sizeof(err));
	if (rc)
		fprintf(stderr, "run: %s\n", err);
	CHECK(rc == 0);
	CHECK(nlog < MAXREQ);
	return r;
}

static struct ts_dl_result run(const struct ts_dataset_meta *m, uint64_t ranks, bool shuffle,
			       uint64_t pf)
{
	struct ts_dl_cfg c = { .meta = m, .ranks = ranks, .world = ranks, .batch = 3, .workers = 2,
			       .prefetch_factor = pf, .epochs = 2, .shuffle = shuffle, .seed = 5,
			       .compute_ns = 10 * LAT };
	return run_cfg(&c, false);
}

/* The requests a chain charges (open and reads), in order. */
static size_t charged(const struct ts_dataset_meta *m, uint64_t f, struct ts_chain_req *out)
{
	static struct ts_chain_req all[512];
	struct ts_chain_file cf = { .size = m->files[f].bytes, .member = TS_NPZ_MEMBER };
	ts_npz_payload(cf.size, &cf.data_off, &cf.data_len);
	CHECK(cf.data_len == ts_dataset_sample_len(m, f) - (ts_npz_size(cf.data_len) - cf.data_len));
	size_t n = ts_chain_build(TS_CHAIN_NPZ, &cf, all, 512), k = 0;
	for (size_t i = 0; i < n; i++)
		if (all[i].op == TS_CHAIN_READ || all[i].op == TS_CHAIN_OPEN)
			out[k++] = all[i];
	return k;
}

static void check_run(const struct ts_dataset_meta *m, uint64_t ranks, bool shuffle)
{
	struct ts_dl_result r = run(m, ranks, shuffle, 1);
	uint64_t steps = FILES / (3 * ranks);
	CHECK_EQ_U64(r.steps, steps);
	CHECK_EQ_U64(r.epochs, 2);
	/* per epoch: which files, in which order of first request */
	static int seen[2][FILES];
	memset(seen, 0, sizeof(seen));
	static struct ts_chain_req want[512];
	for (uint64_t e = 0; e < 2; e++) {
		for (size_t i = 0; i < nlog; i++) {
			const struct rec *q = &log_[i];
			bool in = q->t >= r.ep[e].start && q->t < r.ep[e].end;
			if (!in)
				continue;
			CHECK(q->op == TS_VIO_META || q->op == TS_VIO_READ);
			if (q->op == TS_VIO_META)
				seen[e][q->file]++;
		}
		for (int f = 0; f < FILES; f++)
			CHECK(seen[e][f] == 1); /* every sample once an epoch */
		/* each file's requests: its chain, each issued when the last completed */
		for (uint64_t f = 0; f < FILES; f++) {
			size_t n = charged(m, f, want), k = 0;
			uint64_t prev_done = 0;
			for (size_t i = 0; i < nlog; i++) {
				const struct rec *q = &log_[i];
				if (q->file != f || q->t < r.ep[e].start || q->t >= r.ep[e].end)
					continue;
				CHECK(k < n);
				if (k >= n)
					break;
				CHECK(q->op == (want[k].op == TS_CHAIN_OPEN ? TS_VIO_META : TS_VIO_READ));
				if (want[k].op == TS_CHAIN_READ)
					CHECK(q->off == want[k].off && q->len == want[k].len);
				if (k)
					CHECK(q->t == prev_done);
				prev_done = q->done;
				k++;
			}
			CHECK_EQ_U64(k, n);
		}
	}
	/* nothing of epoch 2 before epoch 1's end; nothing after a run's end */
	for (size_t i = 0; i < nlog; i++)
		CHECK(log_[i].t < r.ep[0].end || log_[i].t >= r.ep[1].start);
	CHECK(r.ep[1].start == r.ep[0].end);
	/* in flight at most ranks x workers */
	for (size_t i = 0; i < nlog; i++) {
		uint64_t inflight = 0;
		for (size_t j = 0; j < nlog; j++)
			inflight += log_[j].t <= log_[i].t && log_[j].done > log_[i].t;
		CHECK(inflight <= ranks * 2);
	}
	ts_dl_result_free(&r);
}

/* Rank k's files in epoch e: contiguous slices of one list; unshuffled,
 * the list is the files' order. */
static void check_slices(const struct ts_dataset_meta *m, bool shuffle)
{
	uint64_t ranks = 2;
	struct ts_dl_result r = run(m, ranks, shuffle, 1);
	/* the first file each worker opens: batch 0 of rank k starts with sample
	 * k x 24 of the list (unshuffled: file k x 24) */
	int first[2] = { -1, -1 };
	for (size_t i = 0; i < nlog && (first[0] < 0 || first[1] < 0); i++)
		if (log_[i].op == TS_VIO_META && log_[i].t == 0) {
			int k = log_[i].file >= 24;
			if (!shuffle && first[k] < 0)
				first[k] = (int)log_[i].file;
		}
	if (!shuffle)
		CHECK(first[0] == 0 && first[1] == 24);
	/* which files the first epoch read early (step 0's batches) differ
	 * between the epochs only when shuffled */
	int same = 1;
	for (size_t i = 0; i < nlog; i++) {
		if (log_[i].op != TS_VIO_META || log_[i].t != 0)
			continue;
		bool again = false;
		for (size_t j = 0; j < nlog; j++)
			again |= log_[j].op == TS_VIO_META && log_[j].t == r.ep[1].start &&
				 log_[j].file == log_[i].file;
		same &= again;
	}
	CHECK(same == !shuffle);
	ts_dl_result_free(&r);
}

/* One epoch of @files samples of batch 1 on @workers workers, a disk that
 * answers at once, each sample @cpu of a worker's CPU and each step @step
 * of the rank's, no computation, on @vcpus cores: the epoch's length. */
static uint64_t req_ns; /* and per request of a chain, per MiB read: */
static double req_ns_per_mib;

static uint64_t cpu_epoch(const struct ts_dataset_meta *m, uint64_t workers, uint64_t pf,
			  uint64_t cpu, uint64_t step, uint64_t vcpus, uint64_t *first_end)
{
	struct ts_dl_cfg c = { .meta = m, .ranks = 1, .world = 1, .batch = 1, .workers = workers,
			       .prefetch_factor = pf, .epochs = 1, .steps = 16, .sample_ns = cpu,
			       .step_ns = step, .vcpus = vcpus, .request_ns = req_ns,
			       .request_ns_per_mib = req_ns_per_mib };
	struct ts_vdisk disk = { submit, NULL, NULL };
	struct ts_dl_result r;
	char err[256] = "";
	nlog = 0;
	lat = 0;
	int rc = ts_dl_run_virtual(&c, &disk, NULL, NULL, &r, err, sizeof(err));
	lat = LAT;
	if (rc)
		fprintf(stderr, "cpu_epoch: %s\n", err);
	CHECK(rc == 0 && r.epochs == 1 && r.steps == 16);
	uint64_t len = rc ? 0 : r.ep[0].end - r.ep[0].start;
	if (first_end)
		*first_end = rc ? 0 : r.ep[0].first_end[0];
	ts_dl_result_free(&r);
	return len;
}

/* Workers and the rank's steps waiting for the host's cores, first come
 * first served (dlio_loader.c, struct cores), in exact virtual time, on
 * samples of one size: each has p charged requests (its open and reads)
 * and 1 ms of CPU, a share d = 1 ms / p after each request. */
static void check_cores(void)
{
	struct ts_dataset_meta m;
	describe(&m, "0");
	static struct ts_chain_req q[512];
	const uint64_t p = charged(&m, 0, q), d = 125000, ms = p * d; /* "1 ms" */
	CHECK(p > 2 && ts_dataset_sample_len(&m, 0) == ts_dataset_sample_len(&m, FILES - 1));
	uint64_t first;
	/* 8 workers x 1 ms of CPU on 2 vCPUs: 4 ms a round of 8 samples; the
	 * disk answers at once, so 2 cores are always busy: 16 samples in 8 ms
	 * (each worker on a core of its own: 2 ms, two rounds of 1 ms). Each
	 * share runs in slices of 50 us (the round robin that stands for the
	 * kernel's sharing): 50, 50 and 25 us, and the workers' k-th slices
	 * queue in turn, the k-th round of 8, two at a time, each round as
	 * long as 4 of its slices. Worker 0's sample, batch 0, ends with its
	 * last slice, the first pair of the last round: 4 ms less 3 of that
	 * round's 25 us slices. */
	CHECK(d == 125000);
	CHECK_EQ_U64(cpu_epoch(&m, 8, 1, ms, 0, 2, &first), 8 * ms);
	CHECK_EQ_U64(first, 4 * ms - 3 * 25000);
	CHECK_EQ_U64(cpu_epoch(&m, 8, 1, ms, 0, 1, NULL), 16 * ms);
	CHECK_EQ_U64(cpu_epoch(&m, 8, 1, ms, 0, 0, &first), 2 * ms);
	CHECK_EQ_U64(first, ms);
	/* 4 cores: 4 ms of work each at least, idle ones at the end */
	uint64_t four = cpu_epoch(&m, 8, 1, ms, 0, 4, NULL);
	CHECK(four >= 4 * ms && four < 5 * ms);
	/* as many cores as workers and rank, or more: no limit, no wait */
	CHECK_EQ_U64(cpu_epoch(&m, 8, 1, ms, 0, 9, NULL), 2 * ms);
	CHECK_EQ_U64(cpu_epoch(&m, 8, 1, ms, 0, 8, NULL), 2 * ms);
	/* The rank's step takes a core too. One worker, two batches out, 1 ms
	 * per sample and 1 ms per step on 1 core: the step takes batch j at its
	 * ready time, before the worker's next sample (which became runnable
	 * then too, after it): worker and rank alternate, 2 ms a step, the
	 * last step ending at 32 ms. On 2 cores, or none given, each has its
	 * own: batch j is ready at j + 1 ms, its step ends 1 ms later: 17 ms. */
	CHECK_EQ_U64(cpu_epoch(&m, 1, 2, ms, ms, 1, &first), 32 * ms);
	CHECK_EQ_U64(first, 2 * ms);
	CHECK_EQ_U64(cpu_epoch(&m, 1, 2, ms, ms, 2, &first), 17 * ms);
	CHECK_EQ_U64(first, 2 * ms);
	CHECK_EQ_U64(cpu_epoch(&m, 1, 2, ms, ms, 0, NULL), 17 * ms);
	/* nothing charged: nothing waits */
	CHECK_EQ_U64(cpu_epoch(&m, 8, 1, 0, 0, 1, NULL), 0);
	ts_dataset_meta_free(&m);
}

/* The requests' CPU: request_ns for every request of a sample's chain (its
 * getattrs, flush and close too), request_ns_per_mib for what it reads.
 * One worker, one batch at a time: the epoch is the sum over its samples. */
static void check_request_cpu(const struct ts_dataset_meta *m)
{
	static struct ts_chain_req all[512];
	uint64_t want = 0;
	for (uint64_t f = 0; f < 16; f++) {
		struct ts_chain_file cf = { .size = m->files[f].bytes,
					    .member = TS_NPZ_MEMBER };
		ts_npz_payload(cf.size, &cf.data_off, &cf.data_len);
		size_t n = ts_chain_build(TS_CHAIN_NPZ, &cf, all, 512);
		for (size_t i = 0; i < n; i++) {
			want += all[i].op == TS_CHAIN_WALK ? 0 : 1000; /* the walk: its call's */
			want += all[i].op == TS_CHAIN_READ ? all[i].len : 0; /* 1 ns a byte */
		}
	}
	req_ns = 1000;
	req_ns_per_mib = 1048576;
	CHECK_EQ_U64(cpu_epoch(m, 1, 1, 0, 0, 0, NULL), want);
	CHECK_EQ_U64(cpu_epoch(m, 1, 1, 0, 0, 1, NULL), want); /* one thread, no one waits */
	req_ns = 0;
	req_ns_per_mib = 0;
}

/* The wait per request (request_wait_ns): one worker, batch 1, the disk
 * answering in LAT, no CPU: each charged request goes out exactly @wait
 * after the one before it completed (the sample's next, or the next
 * sample's open), and the epoch is longer by exactly @wait per charged
 * request. */
static void check_request_wait(const struct ts_dataset_meta *m)
{
	uint64_t len[2], n = 0;
	const uint64_t waits[2] = { 0, 250000 };
	for (int k = 0; k < 2; k++) {
		struct ts_dl_cfg c = { .meta = m, .ranks = 1, .world = 1, .batch = 1,
				       .workers = 1, .prefetch_factor = 1, .epochs = 1,
				       .steps = 16, .request_wait_ns = waits[k] };
		struct ts_vdisk disk = { submit, NULL, NULL };
		struct ts_dl_result r;
		char err[256] = "";
		nlog = 0;
		CHECK(ts_dl_run_virtual(&c, &disk, NULL, NULL, &r, err, sizeof(err)) == 0);
		CHECK(r.epochs == 1 && nlog > 16 && nlog < MAXREQ);
		for (size_t i = 1; i < nlog; i++)
			CHECK_EQ_U64(log_[i].t, log_[i - 1].done + waits[k]);
		len[k] = r.ep[0].end - r.ep[0].start;
		n = nlog;
		ts_dl_result_free(&r);
	}
	CHECK_EQ_U64(len[1] - len[0], n * waits[1]);
}

/* ext4's layout (tier/tiers.lua's filesystem "ext4"). */
static const struct ts_fsmeta_params fs = { .block = 4096, .inode_size = 256,
					    .inode_ra_blocks = 32, .dir_ra_blocks = 8,
					    .dirent_base = 8, .extent_bytes = 128ull << 20,
					    .inline_extents = 4, .leaf_extents = 340,
					    .root_inode = 2, .first_inode = 11 };

/* Names of train/'s files, in all. */
static uint64_t name_bytes(const struct ts_dataset_meta *m)
{
	uint64_t names = 0;
	for (size_t f = 0; f < m->nfiles; f++)
		names += strlen(strrchr(m->files[f].path, '/') + 1);
	return names;
}

/* The logged open at @i, charged by the file-system rule @fm: the reads
 * it costs (the folder in the dataset's, then the file in the folder). */
static unsigned open_charge(struct ts_fsmeta *fm, const struct rec *q,
			    struct ts_fsmeta_io io[TS_FSMETA_MAX_IO])
{
	struct ts_fsmeta_node root = { UINT64_MAX, 2, q->top_blocks },
			      dir = { q->dir, q->dir_ino, q->dir_blocks },
			      file = { q->file + 2, q->ino, 0 };
	unsigned n = ts_fsmeta_lookup(fm, &root, &dir, io, TS_FSMETA_MAX_IO);
	return n + ts_fsmeta_lookup(fm, &dir, &file, io + n, TS_FSMETA_MAX_IO - n);
}

/* An open logged with c->fs: train/ (inode 13, after lost+found and
 * dataset.json) in the dataset's folder (one block), the file after it in
 * storage order, train/'s blocks from its @nf names of @names bytes; the
 * rule @fm charges reads for the run's first open (*@opens counts them)
 * and none for any later one. */
static void check_open_fields(struct ts_fsmeta *fm, const struct rec *q, uint64_t nf,
			      uint64_t names, uint64_t *opens)
{
	CHECK_EQ_U64(q->ino, 13 + 1 + q->file);
	CHECK_EQ_U64(q->dir_ino, 13);
	CHECK_EQ_U64(q->dir, UINT64_MAX - 2);
	CHECK_EQ_U64(q->dir_blocks, ts_fsmeta_dir_blocks(&fs, nf, names));
	CHECK_EQ_U64(q->top_blocks, 1);
	struct ts_fsmeta_io io[TS_FSMETA_MAX_IO];
	unsigned n = open_charge(fm, q, io);
	CHECK((*opens)++ ? n == 0 : n > 0);
}

/* An open with a file system under the dataset (c->fs): the lookups
 * tierfs charges the real reader's open, train/ (inode first_inode + 2,
 * after lost+found and dataset.json) in the dataset's folder, the file in
 * train/ (its inode after train/'s in storage order), with the folders'
 * blocks from their names; a read carries no lookup. Through the
 * file-system rule only the first open reads (the folders' blocks and the
 * inode table's window, 48 inodes in one), every later one nothing, where
 * without c->fs every open is a metadata request of its own (ino 0). */
static void check_open_lookup(const struct ts_dataset_meta *m)
{
	uint64_t names = name_bytes(m);
	for (int with = 0; with < 2; with++) {
		struct ts_dl_cfg c = { .meta = m, .ranks = 1, .world = 1, .batch = 1,
				       .workers = 1, .prefetch_factor = 1, .epochs = 1,
				       .fs = with ? &fs : NULL };
		struct ts_vdisk disk = { submit, NULL, NULL };
		struct ts_dl_result r;
		char err[256] = "";
		nlog = 0;
		CHECK(ts_dl_run_virtual(&c, &disk, NULL, NULL, &r, err, sizeof(err)) == 0);
		struct ts_fsmeta *fm;
		CHECK(ts_fsmeta_new(&fs, &fm) == 0);
		uint64_t opens = 0;
		for (size_t i = 0; i < nlog; i++) {
			const struct rec *q = &log_[i];
			if (q->op != TS_VIO_META || !with) {
				CHECK_EQ_U64(q->ino, 0);
				continue;
			}
			check_open_fields(fm, q, FILES, names, &opens);
		}
		CHECK_EQ_U64(opens, with ? FILES : 0);
		CHECK_EQ_U64(r.meta_requests, FILES);
		ts_fsmeta_free(fm);
		ts_dl_result_free(&r);
	}
}

/* DLIO's TensorFlow reader opens each file it takes once a pass over the
 * list, before its first record (TFRecordDataset's iterator,
 * dlio_loader.c): per epoch one open a file, the file's first record read
 * when the open completes (1 ms later here), to the nanosecond; with one
 * record a file (cosmoflow) every record is opened. With c->fs the open
 * names the dataset's layout: train/ (inode 13, after lost+found and
 * dataset.json) in the dataset's folder, the file after it in storage
 * order; through the rule the run's first open reads the folders' blocks
 * and the inode table's window, every later one (of this epoch or the
 * next) nothing. Without c->fs each open is a bare metadata request. */
static void check_tf_opens(void)
{
	const char *pers[] = { "20", "1" };
	const uint64_t files[] = { 10, 40 };
	for (int v = 0; v < 2; v++) {
		struct ts_dataset_meta m;
		describe_tf(&m, files[v], pers[v]);
		uint64_t per = m.per_file, names = name_bytes(&m);
		for (int with = 0; with < 2; with++) {
			struct ts_dl_cfg c = { .meta = &m, .ranks = 2, .world = 2, .batch = 4,
					       .workers = 3, .window = 2, .epochs = 2,
					       .compute_ns = LAT, .fs = with ? &fs : NULL };
			struct ts_dl_result r = run_cfg(&c, true);
			CHECK_EQ_U64(r.epochs, 2);
			uint64_t nf = m.nfiles, reads = 2 * nf * per;
			CHECK_EQ_U64(r.meta_requests, 2 * nf);
			CHECK_EQ_U64(nlog, reads + 2 * nf);
			struct ts_fsmeta *fm;
			CHECK(ts_fsmeta_new(&fs, &fm) == 0);
			static int opened[2][64];
			memset(opened, 0, sizeof(opened));
			uint64_t opens = 0;
			for (size_t i = 0; i < nlog; i++) {
				const struct rec *q = &log_[i];
				if (q->op != TS_VIO_META)
					continue;
				uint64_t e = q->t >= r.ep[1].start;
				CHECK(q->file < nf);
				opened[e][q->file]++;
				/* the file's first record, read when the open is done */
				size_t j = i + 1;
				while (j < nlog && !(log_[j].op == TS_VIO_READ && log_[j].file == q->file))
					j++;
				CHECK(j < nlog && log_[j].off == 0 && log_[j].t == q->done);
				if (!with) {
					CHECK_EQ_U64(q->ino, 0);
					continue;
				}
				check_open_fields(fm, q, nf, names, &opens);
			}
			for (int e = 0; e < 2; e++)
				for (uint64_t f = 0; f < nf; f++)
					CHECK(opened[e][f] == 1);
			ts_fsmeta_free(fm);
			ts_dl_result_free(&r);
		}
		ts_dataset_meta_free(&m);
	}
}

/* The opens of @m's files as the project's loader plans them over a disk
 * holding file system @f (the DLIO source's plan, as tiersim dlio's
 * pipeline path runs it), file by file into @out (ino UINT64_MAX: not
 * opened). */
static void vpipe_opens(const struct ts_dataset_meta *m, const char *source,
			const struct ts_fsmeta_params *f, struct rec *out)
{
	struct ts_pipe_cfg pc;
	char err[256] = "";
	memset(&pc, 0, sizeof(pc));
	CHECK(ts_opt_defaults(ts_pipe_opts, &pc, err, sizeof(err)) == 0);
	const char *set[][2] = { { "source", source }, { "batch", "4" }, { "qd", "2" },
				 { "epochs", "1" }, { "decode", "none" }, { "shuffle", "true" },
				 { "drop_last", "true" } };
	for (size_t i = 0; i < sizeof(set) / sizeof(*set); i++)
		CHECK(ts_opt_set(ts_pipe_opts, &pc, set[i][0], set[i][1], err, sizeof(err)) == 0);
	struct ts_vdisk disk = { submit, NULL, NULL, .fs = f };
	struct ts_vpipe *v = NULL;
	nlog = 0;
	int rc = ts_vpipe_new(&pc, m, &disk, NULL, &v, err, sizeof(err));
	if (rc)
		fprintf(stderr, "vpipe: %s\n", err);
	CHECK(rc == 0);
	struct ts_vbatch b;
	while (v && ts_vpipe_next_batch(v, &b) == 1)
		CHECK(ts_vpipe_release(v, b.seq, b.ready_ns) == 0);
	for (size_t f2 = 0; f2 < m->nfiles; f2++)
		out[f2].ino = UINT64_MAX;
	for (size_t i = 0; i < nlog; i++)
		if (log_[i].op == TS_VIO_META && log_[i].file < m->nfiles)
			out[log_[i].file] = log_[i];
	ts_vpipe_free(v);
	ts_opt_free(ts_pipe_opts, &pc);
}

/* One dataset's opens cost the same whichever virtual reader makes them:
 * the project's loader (the DLIO source's plan, tiersim dlio's pipeline
 * path) names the same nodes for each file as DLIO's PyTorch loader
 * (npz, a file a sample) and its TensorFlow loader (TFRecord, a record a
 * file), and the rule charges them the same reads, file by file. Before,
 * the plan's opens carried no file system (ino 0: a bare metadata
 * request of the tier each, ~1 ms on ssd-cloud, where tierfs charges
 * nothing after the first). */
static void check_same_opens(const struct ts_dataset_meta *npz)
{
	struct ts_dataset_meta tf;
	describe_tf(&tf, 40, "1");
	const struct ts_dataset_meta *ms[] = { npz, &tf };
	const char *src[] = { "npz", "tfrecord" };
	static struct rec plan[64], dl[64];
	for (int k = 0; k < 2; k++) {
		const struct ts_dataset_meta *m = ms[k];
		CHECK(m->nfiles <= 64);
		vpipe_opens(m, src[k], &fs, plan);
		struct ts_dl_cfg c = { .meta = m, .ranks = 1, .world = 1, .batch = 1, .workers = 2,
				       .prefetch_factor = 1, .window = 2, .epochs = 1, .fs = &fs };
		struct ts_dl_result r = run_cfg(&c, k == 1);
		for (size_t f = 0; f < m->nfiles; f++)
			dl[f].ino = UINT64_MAX;
		for (size_t i = 0; i < nlog; i++)
			if (log_[i].op == TS_VIO_META)
				dl[log_[i].file] = log_[i];
		ts_dl_result_free(&r);
		struct ts_fsmeta *a, *b;
		CHECK(ts_fsmeta_new(&fs, &a) == 0 && ts_fsmeta_new(&fs, &b) == 0);
		uint64_t reads = 0;
		for (size_t f = 0; f < m->nfiles; f++) {
			const struct rec *p = &plan[f], *d = &dl[f];
			CHECK(p->ino != UINT64_MAX && d->ino != UINT64_MAX); /* both opened it */
			CHECK(p->ino != 0);
			CHECK_EQ_U64(p->ino, d->ino);
			CHECK_EQ_U64(p->dir, d->dir);
			CHECK_EQ_U64(p->dir_ino, d->dir_ino);
			CHECK_EQ_U64(p->dir_blocks, d->dir_blocks);
			CHECK_EQ_U64(p->top_blocks, d->top_blocks);
			struct ts_fsmeta_io ia[TS_FSMETA_MAX_IO], ib[TS_FSMETA_MAX_IO];
			unsigned na = open_charge(a, p, ia), nb = open_charge(b, d, ib);
			CHECK_EQ_U64(na, nb);
			for (unsigned j = 0; j < na && j < nb; j++)
				CHECK(ia[j].off == ib[j].off && ia[j].len == ib[j].len);
			reads += na;
		}
		CHECK(reads > 0);
		ts_fsmeta_free(a);
		ts_fsmeta_free(b);
	}
	ts_dataset_meta_free(&tf);
}

/* One epoch of 16 samples of batch 1 on @workers workers, no compute, a
 * disk answering in @disk_lat, @cpu of a worker's CPU per sample, the
 * daemon @daemon per request that reaches it and the reader @reader, on @vcpus
 * cores: the epoch's length. */
static uint64_t daemon_epoch(const struct ts_dataset_meta *m, uint64_t workers, uint64_t vcpus,
			     uint64_t disk_lat, uint64_t cpu, uint64_t reader, uint64_t daemon)
{
	struct ts_dl_cfg c = { .meta = m, .ranks = 1, .world = 1, .batch = 1, .workers = workers,
			       .prefetch_factor = 1, .epochs = 1, .steps = 16, .sample_ns = cpu,
			       .vcpus = vcpus, .request_ns = reader, .request_daemon_ns = daemon };
	struct ts_vdisk disk = { submit, NULL, NULL };
	struct ts_dl_result r;
	char err[256] = "";
	nlog = 0;
	lat = disk_lat;
	int rc = ts_dl_run_virtual(&c, &disk, NULL, NULL, &r, err, sizeof(err));
	lat = LAT;
	if (rc)
		fprintf(stderr, "daemon_epoch: %s\n", err);
	CHECK(rc == 0 && r.epochs == 1 && r.steps == 16);
	uint64_t len = rc ? 0 : r.ep[0].end - r.ep[0].start;
	ts_dl_result_free(&r);
	return len;
}

/* The daemon's CPU per request (request_daemon_ns) runs while the
 * request's latency does: a sample's part, in equal shares over its p
 * charged requests (open, reads), each on a core from the request's start,
 * the request ending when the disk answers or its share ends, whichever is
 * later; the reader's (request_ns) follows the request. Samples of one
 * size, each a chain of a requests (getattrs and close included), d of
 * them reaching the daemon (the daemon's CPU is charged per those). */
static void check_request_daemon(void)
{
	struct ts_dataset_meta m;
	describe(&m, "0");
	static struct ts_chain_req q[512], all[512];
	const uint64_t p = charged(&m, 0, q);
	struct ts_chain_file cf = { .size = m.files[0].bytes, .member = TS_NPZ_MEMBER };
	ts_npz_payload(cf.size, &cf.data_off, &cf.data_len);
	size_t n = ts_chain_build(TS_CHAIN_NPZ, &cf, all, 512);
	uint64_t a = 0;
	for (size_t i = 0; i < n; i++)
		a += all[i].op != TS_CHAIN_WALK;
	const uint64_t d = ts_dl_chain_daemon_reqs(all, n);
	CHECK(p > 2 && a > p && d > p && d < a &&
	      ts_dataset_sample_len(&m, 0) == ts_dataset_sample_len(&m, FILES - 1));
	/* one worker, a share (d x D / p) under the disk's 1 ms: hidden, the
	 * epoch as without it, 16 samples of p requests; on one core too */
	const uint64_t D = LAT / 10 / (a / p + 1);
	CHECK(d * D / p + 1 < LAT);
	for (uint64_t vcpus = 0; vcpus < 2; vcpus++) {
		CHECK_EQ_U64(daemon_epoch(&m, 1, vcpus, LAT, 0, 0, 0), 16 * p * LAT);
		CHECK_EQ_U64(daemon_epoch(&m, 1, vcpus, LAT, 0, 0, D), 16 * p * LAT);
		/* the reader's part is not hidden: a x D more a sample */
		CHECK_EQ_U64(daemon_epoch(&m, 1, vcpus, LAT, 0, D, 0), 16 * (p * LAT + a * D));
	}
	/* a share longer than the disk's answer sets each request's length:
	 * the whole sample's d x 10 ms (the shares sum to it) */
	const uint64_t B = 10 * LAT;
	CHECK_EQ_U64(daemon_epoch(&m, 1, 0, LAT, 0, 0, B), 16 * d * B);
	/* the daemon holds a core: two workers, a disk that answers at once,
	 * on one core their requests take turns (the core always busy: all of
	 * it, 16 x d x D'), on cores of their own they run side by side (8
	 * samples each) */
	const uint64_t E = 1000;
	CHECK_EQ_U64(daemon_epoch(&m, 2, 1, 0, 0, 0, E), 16 * d * E);
	CHECK_EQ_U64(daemon_epoch(&m, 2, 0, 0, 0, 0, E), 8 * d * E);
	/* ... and the worker's own CPU waits behind it (and it behind that):
	 * on one core, all of both, one after the other */
	CHECK_EQ_U64(daemon_epoch(&m, 2, 1, 0, p * E, 0, E), 16 * (d * E + p * E));
	ts_dataset_meta_free(&m);
}

/* reader.read_type given (keep_open): each worker keeps the files it read
 * open for the run (DLIO 2.0.0's reader_handler.py read_index() and the
 * DataLoader's persistent workers). Unshuffled, batch i goes to worker
 * i mod W in every epoch, so epoch 2's workers hold every file they are
 * given: epoch 1 is the run without it, request for request and to the
 * nanosecond, and epoch 2 makes no request at all: each step takes its
 * batch as it starts, the epoch lasts its steps' compute exactly. One
 * worker, shuffled: it held the whole list after epoch 1, the same. */
static void check_keep_open(const struct ts_dataset_meta *m)
{
	static struct rec plain[MAXREQ];
	for (int shuffle = 0; shuffle < 2; shuffle++) {
		uint64_t workers = shuffle ? 1 : 2;
		struct ts_dl_cfg c = { .meta = m, .ranks = 1, .world = 1, .batch = 3,
				       .workers = workers, .prefetch_factor = 1, .epochs = 2,
				       .shuffle = shuffle, .seed = 5, .compute_ns = 10 * LAT };
		struct ts_vdisk disk = { submit, NULL, NULL };
		struct ts_dl_result r0, r;
		char err[256] = "";
		nlog = 0;
		CHECK(ts_dl_run_virtual(&c, &disk, NULL, NULL, &r0, err, sizeof(err)) == 0);
		size_t n0 = 0;
		for (size_t i = 0; i < nlog; i++)
			if (log_[i].t < r0.ep[0].end)
				plain[n0++] = log_[i];
		CHECK(n0 < nlog); /* without it, epoch 2 reads again */
		c.keep_open = true;
		nlog = 0;
		CHECK(ts_dl_run_virtual(&c, &disk, NULL, NULL, &r, err, sizeof(err)) == 0);
		CHECK_EQ_U64(nlog, n0);
		for (size_t i = 0; i < nlog && i < n0; i++)
			CHECK(log_[i].t == plain[i].t && log_[i].file == plain[i].file &&
			      log_[i].off == plain[i].off && log_[i].len == plain[i].len &&
			      log_[i].op == plain[i].op);
		CHECK_EQ_U64(r.ep[0].end, r0.ep[0].end);
		CHECK_EQ_U64(r.ep[1].end - r.ep[1].start, r.steps * 10 * LAT);
		CHECK_EQ_U64(r.ep[1].first_end[0] - r.ep[1].start, 10 * LAT);
		CHECK_EQ_U64(r.samples, r0.samples);
		ts_dl_result_free(&r0);
		ts_dl_result_free(&r);
	}
}

/* hdf5 files of 3 records, one worker, batch 3, unshuffled: with
 * keep_open each file is opened once, by its first record, and its next
 * two records are the held chain (the record's read alone); without it
 * each record opens the file. */
static void check_keep_hdf5(void)
{
	struct ts_dataset_meta m;
	struct ts_dataset_config dc;
	char err[256];
	memset(&dc, 0, sizeof(dc));
	CHECK(ts_opt_defaults(ts_dataset_opts(), &dc, err, sizeof(err)) == 0);
	dc.count = 8;
	dc.seed = 7;
	CHECK(ts_opt_set(ts_dataset_opts(), &dc, "samples_per_file", "3", err, sizeof(err)) == 0);
	CHECK(ts_opt_set(ts_dataset_opts(), &dc, "record_length", "3000000", err, sizeof(err)) == 0);
	CHECK(ts_dataset_meta_describe(&ts_dataset_hdf5, &dc, &m, err, sizeof(err)) == 0);
	for (int keep = 0; keep < 2; keep++) {
		struct ts_dl_cfg c = { .meta = &m, .ranks = 1, .world = 1, .batch = 3, .workers = 1,
				       .prefetch_factor = 1, .epochs = 1, .keep_open = keep,
				       .compute_ns = 10 * LAT };
		struct ts_vdisk disk = { submit, NULL, NULL };
		struct ts_dl_result r;
		nlog = 0;
		CHECK(ts_dl_run_virtual(&c, &disk, NULL, NULL, &r, err, sizeof(err)) == 0);
		CHECK_EQ_U64(r.samples, 24);
		for (uint64_t f = 0; f < 8; f++) {
			static struct ts_chain_req want[512], part[512];
			size_t n = 0;
			for (uint64_t k = 0; k < 3; k++) {
				uint64_t i = f * 3 + k, len = ts_dataset_sample_len(&m, i);
				struct ts_chain_file cf = { .size = m.files[f].bytes, .data_len = len,
							    .data_off = TS_HDF5_DATA + k * len };
				size_t np = keep ? ts_chain_build_kept(TS_CHAIN_HDF5, &cf, k > 0, part, 512)
						 : ts_chain_build(TS_CHAIN_HDF5, &cf, part, 512);
				CHECK(!keep || !k || np == (len + 2656 + 1048575) / 1048576);
				for (size_t q = 0; q < np; q++)
					if (part[q].op == TS_CHAIN_READ || part[q].op == TS_CHAIN_OPEN)
						want[n++] = part[q];
			}
			size_t got = 0, opens = 0;
			for (size_t i = 0; i < nlog; i++) {
				if (log_[i].file != f)
					continue;
				CHECK(got < n);
				if (got >= n)
					break;
				opens += log_[i].op == TS_VIO_META;
				CHECK(log_[i].op == (want[got].op == TS_CHAIN_OPEN ? TS_VIO_META
										 : TS_VIO_READ));
				CHECK(want[got].op == TS_CHAIN_OPEN ||
				      (log_[i].off == want[got].off && log_[i].len == want[got].len));
				got++;
			}
			CHECK_EQ_U64(got, n);
			CHECK_EQ_U64(opens, keep ? 1 : 3);
		}
		ts_dl_result_free(&r);
	}
	ts_dataset_meta_free(&m);
}

/* DLIO's TensorFlow loader (ts_dl_run_tf_virtual) over TFRecord files of
 * 20 records of drawn sizes, 2 ranks of 3 readers: each request lies
 * where its record does (the sizes of the records before it in its file,
 * summed here the long way), and every record of a rank's shard is read
 * once an epoch. */
static void check_tf_offsets(void)
{
	struct ts_dataset_meta m;
	char err[256];
	describe_tf(&m, 10, "20");
	CHECK(m.bytes != NULL); /* sizes drawn, not one fixed size */
	struct ts_dl_cfg c = { .meta = &m, .ranks = 2, .world = 2, .batch = 4, .workers = 3,
			       .window = 2, .epochs = 2, .compute_ns = LAT };
	struct ts_vdisk disk = { submit, NULL, NULL };
	struct ts_dl_result r;
	nlog = 0;
	int rc = ts_dl_run_tf_virtual(&c, &disk, NULL, NULL, &r, err, sizeof(err));
	if (rc)
		fprintf(stderr, "tf: %s\n", err);
	CHECK(rc == 0);
	/* 5 files a rank, 100 records, 25 batches of 4 */
	CHECK_EQ_U64(r.steps, 25);
	CHECK_EQ_U64(nlog, 2 * 2 * 100 + 2 * 10); /* and an open a file an epoch (check_tf_opens) */
	static int seen[2][200];
	memset(seen, 0, sizeof(seen));
	for (size_t i = 0; i < nlog; i++) {
		const struct rec *q = &log_[i];
		uint64_t e = q->t >= r.ep[1].start, k = 0, off = 0;
		if (q->op == TS_VIO_META)
			continue;
		CHECK(q->op == TS_VIO_READ && q->file < 10);
		for (k = 0; k < 20; k++) {
			if (off == q->off)
				break;
			off += ts_dataset_sample_len(&m, q->file * 20 + k);
		}
		CHECK(k < 20); /* at a record's start */
		CHECK_EQ_U64(q->len, ts_dataset_sample_len(&m, q->file * 20 + k));
		seen[e][q->file * 20 + k]++;
	}
	for (int e = 0; e < 2; e++)
		for (int j = 0; j < 200; j++)
			CHECK(seen[e][j] == 1);
	ts_dl_result_free(&r);
	ts_dataset_meta_free(&m);
}

/* The DataLoader's start each epoch (start_ns the first, restart_ns a
 * later one): on a disk answering every request in 1 ms and no CPU
 * charged, every request, step and end of epoch 1 comes start_ns later
 * and of epoch 2 start_ns + restart_ns later, to the nanosecond, the
 * epoch's first step holding its start. On one vCPU the ranks' starts
 * take the core in turn: rank 1's first request waits for both. */
static void check_start(const struct ts_dataset_meta *m)
{
	const uint64_t S = 7 * LAT + 123, R = 3 * LAT + 45;
	static struct rec plain[MAXREQ];
	for (uint64_t vcpus = 0; vcpus < 2; vcpus++) {
		struct ts_dl_cfg c = { .meta = m, .ranks = 2, .world = 2, .batch = 3, .workers = 2,
				       .prefetch_factor = 1, .epochs = 2, .seed = 5,
				       .compute_ns = 10 * LAT, .vcpus = vcpus };
		struct ts_vdisk disk = { submit, NULL, NULL };
		struct ts_dl_result r0, r;
		char err[256] = "";
		nlog = 0;
		CHECK(ts_dl_run_virtual(&c, &disk, NULL, NULL, &r0, err, sizeof(err)) == 0);
		size_t n0 = nlog;
		memcpy(plain, log_, nlog * sizeof(*log_));
		c.start_ns = S;
		c.restart_ns = R;
		nlog = 0;
		CHECK(ts_dl_run_virtual(&c, &disk, NULL, NULL, &r, err, sizeof(err)) == 0);
		CHECK_EQ_U64(nlog, n0);
		CHECK(r.epochs == 2 && r0.epochs == 2);
		/* the first request of each rank in epoch 1 */
		uint64_t first[2] = { UINT64_MAX, UINT64_MAX };
		for (size_t i = 0; i < nlog; i++)
			if (log_[i].t < r.ep[0].end) {
				uint64_t k = log_[i].file >= FILES / 2;
				first[k] = TS_MIN(first[k], log_[i].t);
			}
		/* on one vCPU the two starts share it in slices of 50 us, in
		 * turn: rank 0's ends with its last (123 ns, after 140 whole
		 * slices each), just before rank 1's last (2 S) */
		CHECK_EQ_U64(first[0], vcpus ? 2 * S - 123 : S);
		CHECK_EQ_U64(first[1], vcpus ? 2 * S : S);
		if (vcpus)
			goto next;
		for (size_t i = 0; i < nlog && i < n0; i++) {
			uint64_t sh = plain[i].t < r0.ep[0].end ? S : S + R;
			CHECK(log_[i].t == plain[i].t + sh && log_[i].file == plain[i].file &&
			      log_[i].off == plain[i].off && log_[i].op == plain[i].op);
		}
		CHECK_EQ_U64(r.ep[1].start, r0.ep[1].start + S);
		for (uint64_t e = 0; e < 2; e++) {
			uint64_t sh = e ? R : S;
			CHECK_EQ_U64(r.ep[e].end - r.ep[e].start, r0.ep[e].end - r0.ep[e].start + sh);
			for (uint64_t k = 0; k < 2; k++)
				CHECK_EQ_U64(r.ep[e].first_end[k] - r.ep[e].start,
					     r0.ep[e].first_end[k] - r0.ep[e].start + sh);
		}
next:
		ts_dl_result_free(&r0);
		ts_dl_result_free(&r);
	}
}

/* Each worker's first full collection (worker_gc_ns with its
 * worker_gc_at-th sample of the run, counted over the epochs): one rank,
 * one worker reading every file in order, slower than the steps, so the
 * worker's CPU sets the pace. With the 53rd sample (epoch 2's file 4) it
 * costs G: epoch 1 and the requests before file 4's end are as without it,
 * every request after comes G later, to the nanosecond, and so does the
 * run's end; with worker_gc_at 0, or beyond the run's 96 samples, nothing
 * moves. */
static void check_worker_gc(const struct ts_dataset_meta *m)
{
	const uint64_t G = 3 * LAT + 77;
	static struct rec plain[MAXREQ];
	struct ts_dl_cfg c = { .meta = m, .ranks = 1, .world = 1, .batch = 3, .workers = 1,
			       .prefetch_factor = 1, .epochs = 2, .seed = 5, .compute_ns = 10 * LAT };
	struct ts_vdisk disk = { submit, NULL, NULL };
	struct ts_dl_result r0, r;
	char err[256] = "";
	nlog = 0;
	CHECK(ts_dl_run_virtual(&c, &disk, NULL, NULL, &r0, err, sizeof(err)) == 0);
	size_t n0 = nlog;
	memcpy(plain, log_, nlog * sizeof(*log_));
	const uint64_t at[] = { 0, 2 * FILES + 1, FILES + 5 };
	for (size_t a = 0; a < TS_ARRAY_SIZE(at); a++) {
		c.worker_gc_ns = G;
		c.worker_gc_at = at[a];
		nlog = 0;
		CHECK(ts_dl_run_virtual(&c, &disk, NULL, NULL, &r, err, sizeof(err)) == 0);
		CHECK_EQ_U64(nlog, n0);
		CHECK(r.epochs == 2);
		uint64_t sh = a < 2 ? 0 : G;
		CHECK_EQ_U64(r.ep[1].end, r0.ep[1].end + sh);
		CHECK_EQ_U64(r.ep[0].end, r0.ep[0].end);
		bool after = false; /* past file 4 in epoch 2 */
		for (size_t i = 0; i < nlog; i++) {
			CHECK(log_[i].file == plain[i].file && log_[i].off == plain[i].off &&
			      log_[i].op == plain[i].op);
			bool e2 = plain[i].t >= r0.ep[1].start;
			after = after || (e2 && log_[i].file > 4);
			if (!e2 || log_[i].file < 4)
				CHECK_EQ_U64(log_[i].t, plain[i].t);
			else if (after)
				CHECK_EQ_U64(log_[i].t, plain[i].t + sh);
		}
		CHECK(after);
		ts_dl_result_free(&r);
	}
	ts_dl_result_free(&r0);
}

/* The ranks' spread (spread in dlio_loader.h): 2 ranks, each its first
 * batch of an epoch handed over later by spread x (its time since the
 * epoch's start) x (z_s - z_0), the slots' Blom scores +-0.58946 (the
 * normal's quantile at 13/18 and 5/18: Python's statistics.NormalDist).
 * Epoch 1: rank 0 takes slot 0 and its first step ends as without the
 * spread; rank 1's ends later by that much, to the nanosecond (rounding:
 * 1 ns). Epoch 2 (a later start, the barrier waited for rank 1): the
 * slots turn, rank 0's first step is the later one. The workers read as
 * many requests either way. 4 ranks in one process: slot 3 = rank 3 in
 * epoch 1 waits (z_3 - z_0) = 2 x 1.04913 of its time. */
static void check_rank_spread(const struct ts_dataset_meta *m)
{
	const double S = 0.05;
	for (uint64_t n = 2; n <= 4; n += 2) {
		struct ts_dl_cfg c = { .meta = m, .ranks = n, .world = n, .batch = 3, .workers = 2,
				       .prefetch_factor = 1, .epochs = 2, .seed = 5,
				       .compute_ns = 10 * LAT };
		struct ts_vdisk disk = { submit, NULL, NULL };
		struct ts_dl_result r0, r;
		char err[256] = "";
		nlog = 0;
		CHECK(ts_dl_run_virtual(&c, &disk, NULL, NULL, &r0, err, sizeof(err)) == 0);
		size_t n0 = nlog;
		c.spread = S;
		nlog = 0;
		CHECK(ts_dl_run_virtual(&c, &disk, NULL, NULL, &r, err, sizeof(err)) == 0);
		CHECK_EQ_U64(nlog, n0);
		CHECK(r.epochs == 2);
		double dz = n == 2 ? 1.178911595699557 : 2 * 1.0491313979639711;
		uint64_t last = n - 1; /* slot n - 1 in epoch 1 */
		uint64_t took = r0.ep[0].first_end[last] - c.compute_ns - r0.ep[0].start;
		uint64_t want = r0.ep[0].first_end[last] + (uint64_t)llround(S * (double)took * dz);
		CHECK(r.ep[0].first_end[last] + 1 >= want && r.ep[0].first_end[last] <= want + 1);
		CHECK_EQ_U64(r.ep[0].first_end[0], r0.ep[0].first_end[0]);
		CHECK(r.ep[0].end > r0.ep[0].end);
		/* epoch 2: rank 0 in the last slot, rank 1 in slot 0 */
		CHECK(r.ep[1].first_end[0] - r.ep[1].start > r0.ep[1].first_end[0] - r0.ep[1].start);
		if (n == 2)
			CHECK_EQ_U64(r.ep[1].first_end[1] - r.ep[1].start,
				     r0.ep[1].first_end[1] - r0.ep[1].start);
		ts_dl_result_free(&r0);
		ts_dl_result_free(&r);
	}
	/* one rank in all: no one to wait for */
	struct ts_dl_cfg c = { .meta = m, .ranks = 1, .world = 1, .batch = 3, .workers = 2,
			       .prefetch_factor = 1, .epochs = 2, .seed = 5, .compute_ns = 10 * LAT,
			       .spread = S };
	struct ts_vdisk disk = { submit, NULL, NULL };
	struct ts_dl_result r0, r;
	char err[256] = "";
	CHECK(ts_dl_run_virtual(&c, &disk, NULL, NULL, &r, err, sizeof(err)) == 0);
	c.spread = 0;
	CHECK(ts_dl_run_virtual(&c, &disk, NULL, NULL, &r0, err, sizeof(err)) == 0);
	CHECK_EQ_U64(r.ep[1].end, r0.ep[1].end);
	ts_dl_result_free(&r0);
	ts_dl_result_free(&r);
}

/* The ranks' spread per wait for a core (spread_wait in dlio_loader.h):
 * 2 ranks of 1 worker, batch 1, on 1 vCPU. Both workers end their reads
 * together and collate for C (one slice of the cores' round robin, 50
 * us, so whole), so one collation waits C for the core, in each epoch. The rank in the late
 * slot (rank 1 in epoch 1, rank 0 in epoch 2) hands its first batch over
 * later by W x (its worker's wait) x (z_1 - z_0) = W x C x 1.17891...
 * where its worker waited and by nothing where it did not; the other rank
 * not at all. With spread set as well the two add up. On cores of their
 * own no one waits: the run is the one without W. */
static void check_spread_wait(void)
{
	struct ts_dataset_meta m;
	describe(&m, "0");
	const uint64_t C = 50000;
	const double W = 0.25, dz = 1.178911595699557;
	struct ts_dl_cfg c = { .meta = &m, .ranks = 2, .world = 2, .batch = 1, .workers = 1,
			       .prefetch_factor = 1, .epochs = 2, .steps = 1, .seed = 5,
			       .compute_ns = 10 * LAT, .vcpus = 1, .collate_ns = C };
	struct ts_dl_result r0 = run_cfg(&c, false);
	size_t n0 = nlog;
	c.spread_wait = W;
	struct ts_dl_result r = run_cfg(&c, false);
	CHECK_EQ_U64(nlog, n0);
	CHECK(r0.epochs == 2 && r.epochs == 2);
	uint64_t waited = 0; /* epochs whose late rank's worker waited */
	for (uint64_t e = 0; e < 2; e++) {
		uint64_t late = (1 + e) % 2, early = 1 - late;
		uint64_t b0 = r0.ep[e].first_end[late] - r0.ep[e].start;
		uint64_t b = r.ep[e].first_end[late] - r.ep[e].start;
		/* the late rank's worker waited when its batch came last */
		bool w = r0.ep[e].first_end[late] > r0.ep[e].first_end[early];
		CHECK_EQ_U64(b, b0 + (w ? (uint64_t)llround(W * (double)C * dz) : 0));
		CHECK_EQ_U64(r.ep[e].first_end[early] - r.ep[e].start,
			     r0.ep[e].first_end[early] - r0.ep[e].start);
		waited += w;
	}
	CHECK(waited == 1); /* the same worker waits each epoch: rank 1's */
	/* with spread too: both terms */
	const double S = 0.01;
	c.spread = S;
	struct ts_dl_result rs = run_cfg(&c, false);
	uint64_t took = r0.ep[0].first_end[1] - c.compute_ns - r0.ep[0].start;
	CHECK_EQ_U64(rs.ep[0].first_end[1] - rs.ep[0].start,
		     r0.ep[0].first_end[1] - r0.ep[0].start +
			     (uint64_t)llround((S * (double)took + W * (double)C) * dz));
	ts_dl_result_free(&rs);
	ts_dl_result_free(&r);
	ts_dl_result_free(&r0);
	/* cores of their own: no wait, nothing later */
	c.vcpus = 0;
	c.spread = 0;
	c.spread_wait = 0;
	r0 = run_cfg(&c, false);
	c.spread_wait = W;
	r = run_cfg(&c, false);
	for (uint64_t e = 0; e < 2; e++)
		for (uint64_t k = 0; k < 2; k++)
			CHECK_EQ_U64(r.ep[e].first_end[k], r0.ep[e].first_end[k]);
	CHECK_EQ_U64(r.ep[1].end, r0.ep[1].end);
	ts_dl_result_free(&r);
	ts_dl_result_free(&r0);
	ts_dataset_meta_free(&m);
}

/* A worker's CPU with the cores to spare (cpu_alone in dlio_loader.h).
 * Two workers on 2 vCPUs never read more than the cores: every share of
 * every sample is charged at F x its figure, so the run is the one of a
 * figure F times as large, request for request (X is 2 ns a share per
 * charged request of a sample: F = 0.5 halves each exactly). Four
 * workers on 2 vCPUs: batch 0 is read while all four read, its time
 * unchanged to the nanosecond; the last two batches (6 steps) are read
 * by two workers alone, so the epoch ends sooner. */
static void check_cpu_alone(void)
{
	struct ts_dataset_meta lm, *m = &lm;
	describe(m, "0");
	static struct ts_chain_req q[512];
	static struct rec base[MAXREQ];
	const uint64_t p = charged(m, 0, q), s = 200000, X = p * s;
	CHECK(p > 2);
	for (uint64_t f = 0; f < FILES; f++)
		CHECK(charged(m, f, q) == p);
	struct ts_dl_cfg c = { .meta = m, .ranks = 1, .world = 1, .batch = 2, .workers = 2,
			       .prefetch_factor = 1, .epochs = 1, .steps = 4, .seed = 5,
			       .compute_ns = 10 * LAT, .vcpus = 2, .sample_ns = X / 2 };
	struct ts_dl_result r0 = run_cfg(&c, false);
	size_t n = nlog;
	memcpy(base, log_, n * sizeof(*log_));
	c.sample_ns = X;
	c.cpu_alone = 0.5;
	struct ts_dl_result r = run_cfg(&c, false);
	CHECK_EQ_U64(nlog, n);
	for (size_t i = 0; i < n && i < nlog; i++)
		CHECK(log_[i].t == base[i].t && log_[i].done == base[i].done &&
		      log_[i].file == base[i].file && log_[i].off == base[i].off);
	CHECK_EQ_U64(r.ep[0].first_end[0], r0.ep[0].first_end[0]);
	CHECK_EQ_U64(r.ep[0].end, r0.ep[0].end);
	ts_dl_result_free(&r0);
	ts_dl_result_free(&r);
	/* four workers, 2 vCPUs, batch 1, 6 steps */
	c.workers = 4;
	c.batch = 1;
	c.steps = 6;
	c.sample_ns = 20 * X;
	c.cpu_alone = 0;
	r0 = run_cfg(&c, false);
	c.cpu_alone = 0.5;
	r = run_cfg(&c, false);
	CHECK(r0.epochs == 1 && r.epochs == 1 && r.steps == 6);
	CHECK_EQ_U64(r.ep[0].first_end[0], r0.ep[0].first_end[0]);
	CHECK(r.ep[0].end < r0.ep[0].end);
	/* on cores of their own (no vcpus): the factor is not applied */
	c.vcpus = 0;
	c.cpu_alone = 0;
	struct ts_dl_result o0 = run_cfg(&c, false);
	c.cpu_alone = 0.5;
	struct ts_dl_result o = run_cfg(&c, false);
	CHECK_EQ_U64(o.ep[0].end, o0.ep[0].end);
	ts_dl_result_free(&o0);
	ts_dl_result_free(&o);
	ts_dl_result_free(&r0);
	ts_dl_result_free(&r);
	ts_dataset_meta_free(&lm);
}

/* A long piece runs in the round robin's slices (dlio_loader.c, struct
 * cores): 3 ranks of 1 worker on 2 vCPUs, batch 1, one step. Rank 2
 * starts 10 ms late (its file's lookup answered 10 ms later), so its
 * worker is still reading when the first two collate their batches (40
 * ms each, 800 slices of 50 us). Its CPU per request (a 100 us share) waits for a core: behind a
 * whole collation when cores are first come first served, so its next
 * read goes out after rank 0's batch is ready; a slice when the
 * collations are cut, so it reads on while they run. The slice is the
 * host's (core_slice_ns, dlio_core_slice_ns): unset, the loader's 50 us;
 * 50 us given, the same run; as long as a collation, a collation runs
 * whole. */
static void check_core_slices(void)
{
	const uint64_t C = 40 * LAT;
	const uint64_t slices[] = { 0, 50000, C };
	for (size_t k = 0; k < TS_ARRAY_SIZE(slices); k++) {
		struct ts_dataset_meta m;
		describe(&m, "0");
		static struct ts_chain_req q[512];
		const uint64_t p = charged(&m, 2, q), d = 100000;
		CHECK(p > 3);
		struct ts_dl_cfg c = { .meta = &m, .ranks = 3, .world = 3, .batch = 1, .workers = 1,
				       .prefetch_factor = 1, .epochs = 1, .steps = 1, .sample_ns = p * d,
				       .vcpus = 2, .collate_ns = C, .core_slice_ns = slices[k] };
		late_file = 32;
		late_ns = 10 * LAT;
		struct ts_dl_result r = run_cfg(&c, false);
		late_file = UINT64_MAX;
		CHECK(r.epochs == 1 && r.steps == 1);
		/* rank 0's batch ready, its collation's end */
		uint64_t ready0 = r.ep[0].first_end[0], sent = 0, after = 0, last0 = 0;
		CHECK(nlog == 3 * p);
		const uint64_t f0 = log_[0].file, f2 = log_[nlog - 1].file; /* rank 2's, the last */
		CHECK_EQ_U64(f2, 32);
		for (size_t i = 0; i < nlog; i++)
			if (log_[i].file == f0 && log_[i].done > last0)
				last0 = log_[i].done;
		for (size_t i = 0; i < nlog; i++) {
			if (log_[i].file == f2) {
				sent += log_[i].t > last0 && log_[i].t < ready0;
				after += log_[i].t >= ready0;
			}
		}
		/* rank 0 read its file from 0, its collation ran from its last
		 * request's share, C of CPU and more while shared */
		CHECK(last0 > 10 * LAT && ready0 > last0 + C);
		/* rank 2's worker read on during rank 0's collation: every request
		 * of its chain sent by then, none waiting for the collation's end: 9
		 * of its 14 after rank 0's last read (whole collations: 1, and 8 after) */
		if (slices[k] < C) {
			CHECK_EQ_U64(after, 0);
			CHECK_EQ_U64(sent, 9);
		} else {
			CHECK_EQ_U64(after, 8);
			CHECK_EQ_U64(sent, 1);
		}
		ts_dl_result_free(&r);
		ts_dataset_meta_free(&m);
	}
}

/* A collation in fresh memory (collate_fresh_ns): F more on every batch's
 * collation, in every epoch: the run is the one with collate_ns C + F and
 * no fresh charge, request for request and epoch end for epoch end, on 2
 * vCPUs and on cores of their own; on cores of their own the first step
 * ends F later, to the nanosecond. */
static void check_collate_fresh(const struct ts_dataset_meta *m)
{
	const uint64_t C = 4 * LAT + 7, F = 9 * LAT + 11;
	static struct rec base[MAXREQ];
	for (uint64_t vcpus = 0; vcpus <= 2; vcpus += 2) {
		struct ts_dl_cfg c = { .meta = m, .ranks = 2, .world = 2, .batch = 3, .workers = 2,
				       .prefetch_factor = 1, .epochs = 2, .seed = 5,
				       .compute_ns = 10 * LAT, .sample_ns = LAT / 2,
				       .vcpus = vcpus, .collate_ns = C };
		struct ts_dl_result r0 = run_cfg(&c, false);
		c.collate_fresh_ns = F;
		struct ts_dl_result r = run_cfg(&c, false);
		size_t n = nlog;
		memcpy(base, log_, n * sizeof(*log_));
		c.collate_ns = C + F;
		c.collate_fresh_ns = 0;
		struct ts_dl_result r2 = run_cfg(&c, false);
		CHECK_EQ_U64(nlog, n);
		for (size_t i = 0; i < n && i < nlog; i++)
			CHECK(log_[i].t == base[i].t && log_[i].file == base[i].file &&
			      log_[i].off == base[i].off);
		for (uint64_t e = 0; e < 2; e++)
			CHECK_EQ_U64(r.ep[e].end, r2.ep[e].end);
		/* on cores of their own, one collation later; on 2 vCPUs the
		 * 4 workers' collations share them */
		if (!vcpus)
			CHECK_EQ_U64(r.ep[0].first_end[0], r0.ep[0].first_end[0] + F);
		CHECK(r.ep[1].end > r0.ep[1].end);
		ts_dl_result_free(&r0);
		ts_dl_result_free(&r);
		ts_dl_result_free(&r2);
	}
}

int main(void)
{
	struct ts_dataset_meta m;
	describe(&m, "50000");
	check_run(&m, 1, false);
	check_run(&m, 2, true);
	check_slices(&m, false);
	check_slices(&m, true);
	/* the same where the list is computed (ts_rng_perm: 2^24 samples
	 * and more, here every count) */
	ts_sched_set_computed_from(1);
	check_run(&m, 2, true);
	check_slices(&m, true);
	ts_sched_set_computed_from(0);
	check_cores();
	check_core_slices();
	check_collate_fresh(&m);
	check_request_cpu(&m);
	check_request_daemon();
	check_request_wait(&m);
	check_open_lookup(&m);
	check_keep_open(&m);
	check_start(&m);
	check_worker_gc(&m);
	check_rank_spread(&m);
	check_spread_wait();
	check_cpu_alone();
	check_keep_hdf5();
	check_tf_offsets();
	check_tf_opens();
	check_same_opens(&m);

	/* prefetch_factor 1, 2 workers, 1 rank: batch j + 2 goes out when batch j
	 * is taken; a batch is 3 files read one after the other */
	struct ts_dl_result r = run(&m, 1, false, 1);
	uint64_t per_file[FILES] = { 0 };
	for (size_t i = 0; i < nlog; i++)
		if (log_[i].t < r.ep[0].end)
			per_file[log_[i].file]++;
	/* batch j's files are 3j..3j+2: its worker opens file 3j + p when file
	 * 3j + p - 1's last request completes */
	for (uint64_t f = 0; f < FILES; f++) {
		if (f % 3 == 0)
			continue;
		uint64_t last_done = 0, open_at = UINT64_MAX;
		for (size_t i = 0; i < nlog; i++) {
			if (log_[i].t >= r.ep[0].end)
				continue;
			if (log_[i].file == f - 1)
				last_done = TS_MAX(last_done, log_[i].done);
			if (log_[i].file == f && log_[i].op == TS_VIO_META)
				open_at = log_[i].t;
		}
		CHECK(open_at == last_done);
	}
	/* the first step: batch 0 whole (3 files), then the compute */
	uint64_t b0 = 0;
	for (size_t i = 0; i < nlog; i++)
		if (log_[i].file < 3 && log_[i].t < r.ep[0].end)
			b0 = TS_MAX(b0, log_[i].done);
	CHECK_EQ_U64(r.ep[0].first_end[0], b0 + 10 * LAT);
	ts_dl_result_free(&r);
	ts_dataset_meta_free(&m);
	return tc_exit();
}

