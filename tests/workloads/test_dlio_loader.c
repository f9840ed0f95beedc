/* test_dlio_loader.c — DLIO's PyTorch loader in virtual time
 * (workloads/dlio_loader.h) over a disk that records every request and
 * answers each in 1 ms: each file's requests are numpy's chain for it
 * (pipeline/dliochain.h), one after the other; every sample is read once
 * an epoch across the ranks, each rank a contiguous slice of the global
 * list (unshuffled: the same slice every epoch; shuffled: a fresh one);
 * no request of an epoch is issued before the previous one ended (the
 * loader restarts); at most ranks x read_threads requests are in flight;
 * and with a prefetch_factor of 1 the first step waits for one whole batch
 * and each worker's batch for its previous one (batch i to worker i mod W). */
#include <stdlib.h>
#include <string.h>

#include "tests/tcheck.h"
#include "core/opt.h"
#include "pipeline/dataset.h"
#include "pipeline/dliochain.h"
#include "pipeline/dliofmt.h"
#include "workloads/dlio_loader.h"

#define LAT 1000000ull /* ns per request */
#define FILES 48
#define MAXREQ 200000

struct rec {
	uint64_t t, done, file, off, len;
	uint8_t op;
};

static struct rec log_[MAXREQ];
static size_t nlog;

static uint64_t submit(void *ctx, uint64_t now, const struct ts_vio *io)
{
	(void)ctx;
	if (nlog < MAXREQ)
		log_[nlog++] = (struct rec){ now, now + LAT, io->file - 2, io->off, io->len, io->op };
	return now + LAT;
}

static void describe(struct ts_dataset_meta *m)
{
	struct ts_dataset_config dc;
	char err[256];
	memset(&dc, 0, sizeof(dc));
	CHECK(ts_opt_defaults(ts_dataset_opts(), &dc, err, sizeof(err)) == 0);
	dc.count = FILES;
	dc.seed = 7;
	CHECK(ts_opt_set(ts_dataset_opts(), &dc, "samples_per_file", "1", err, sizeof(err)) == 0);
	CHECK(ts_opt_set(ts_dataset_opts(), &dc, "record_length", "300000", err, sizeof(err)) == 0);
	CHECK(ts_opt_set(ts_dataset_opts(), &dc, "record_stdev", "50000", err, sizeof(err)) == 0);
	CHECK(ts_dataset_meta_describe(&ts_dataset_npz, &dc, m, err, sizeof(err)) == 0);
}

static struct ts_dl_result run(const struct ts_dataset_meta *m, uint64_t ranks, bool shuffle,
			       uint64_t pf)
{
	struct ts_dl_cfg c = { .meta = m, .ranks = ranks, .world = ranks, .batch = 3, .workers = 2,
			       .prefetch_factor = pf, .epochs = 2, .shuffle = shuffle, .seed = 5,
			       .compute_ns = 10 * LAT };
	struct ts_vdisk disk = { submit, NULL, NULL };
	struct ts_dl_result r;
	char err[256] = "";
	nlog = 0;
	int rc = ts_dl_run_virtual(&c, &disk, NULL, NULL, &r, err, sizeof(err));
	if (rc)
		fprintf(stderr, "run: %s\n", err);
	CHECK(rc == 0);
	CHECK(nlog < MAXREQ);
	return r;
}

/* The requests a chain charges (open and reads), in order. */
static size_t charged(const struct ts_dataset_meta *m, uint64_t f, struct ts_chain_req *out)
{
	static struct ts_chain_req all[512];
	struct ts_chain_file cf = { .size = m->files[f].bytes, .member = TS_NPZ_LFH + TS_NPZ_NAME };
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

int main(void)
{
	struct ts_dataset_meta m;
	describe(&m);
	check_run(&m, 1, false);
	check_run(&m, 2, true);
	check_slices(&m, false);
	check_slices(&m, true);

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
