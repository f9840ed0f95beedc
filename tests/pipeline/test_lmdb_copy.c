/*
 * test_lmdb_copy.c — the lmdb source's copy= in virtual time: a reader that
 * copies each Datum out of LMDB's map with the C library's memcpy
 * (copy=memcpy) on a host whose memcpy touches a copy's last page first
 * (pipeline/hosts.lua copy_tail_first = 1: epyc-kvm-2vcpu) sends the tier
 * model mapped reads marked tail first (ts_vio.tail_first, through
 * ts_vtier_vio to ts_tier_req.tail_first), and the page-cache model's
 * read-around on the last page cuts the readahead windows: more device
 * requests than the page-order copy (copy=pages), exactly. On a host that
 * copies forward (xeon-e5-2682v4: ERMS), one without the field (epyc-zen4)
 * and this-machine without `tiersim hosts measure`'s file, the two copies
 * send the same requests. The host's map_window_ns (the reader's CPU a
 * readahead window) reaches the page-cache model: exact end times. A bad
 * copy= (either clock) and an unknown host with copy=memcpy are one line
 * naming the option. In real time the two
 * copies deliver the same bytes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/opt.h"
#include "pipeline/dataset.h"
#include "pipeline/loader.h"
#include "pipeline/source.h"
#include "pipeline/vpipe.h"
#include "pipeline/vtier.h"
#include "tests/tcheck.h"
#include "tests/pipeline/tp.h"
#include "tier/tier.h"

/* The model's requests for the 100 Datums below, each in its own 49
 * overflow pages of data.mdb as LMDB lays them out (20,078,592 bytes read,
 * 4,902 pages): in page order 154, 128 KiB windows read ahead of the
 * reader; tail first 275, the same bytes (test_tier_cache's
 * test_mapped_tail_first pins the rule itself on bench/mapped_copy.sh's
 * file, whose records lie as these do: 2.75 requests a record there too;
 * this pins that the lmdb source's plan reaches it). With the Datums
 * packed back to back (48.01 pages each) the plan sent 151 and 200. */
#define PAGES_READS 154
#define MEMCPY_READS 275

/* The reader's CPU a readahead window (the host profile's map_window_ns,
 * through ts_vio.map_window_ns to ts_tier_req.map_window_ns): the page
 * order copy on epyc-kvm-2vcpu (49 us a window) ends its last batch
 * 81 x 20 us after the same copy on xeon-e5-2682v4, which sets none (the
 * page cache's 29 us): of the 154 windows, 81 lie on the reader's path to
 * the end, the others' time overlaps a wait for the device. Before the
 * field both ended at XEON_PAGES_END. */
#define XEON_PAGES_END 87706692ULL
#define EPYC_PAGES_END (XEON_PAGES_END + 81 * (49000 - 29000))

static struct ts_tier_set *tiers;

struct vrun {
	int rc;
	uint64_t samples, dev_reads, dev_bytes;
	uint64_t end_ns; /* the last batch ready, virtual ns */
	char err[1024];
};

/* One epoch of the raw LMDB @meta through ssd-cloud's model (1 GiB of page
 * cache, cold), copied as @copy on host @host, no decode. */
static struct vrun run(const struct ts_dataset_meta *meta, const char *copy, const char *host)
{
	struct vrun r = { 0 };
	struct ts_pipe_cfg pc;
	char err[256];
	memset(&pc, 0, sizeof pc);
	CHECK(ts_opt_defaults(ts_pipe_opts, &pc, err, sizeof err) == 0);
	const char *kv[][2] = { { "source", "lmdb" }, { "path", "train_lmdb" },
				{ "shuffle", "false" }, { "decode", "none" },
				{ "batch", "8" },	{ "qd", "16" },
				{ "copy", copy },	{ "host", host } };
	for (size_t i = 0; i < sizeof kv / sizeof *kv; i++)
		if (ts_opt_set(ts_pipe_opts, &pc, kv[i][0], kv[i][1], err, sizeof err)) {
			fprintf(stderr, "option %s=%s: %s\n", kv[i][0], kv[i][1], err);
			tc_failures++;
		}
	struct ts_vtier vt;
	struct ts_tier_cfg tc = { .mem = TS_GiB, .seed = 1 };
	const struct ts_fsmeta_params *fs = NULL;
	CHECK(ts_tier_set_lookup(tiers, "ssd-cloud", &tc.profile, err, sizeof err) == 0);
	CHECK(ts_tier_set_fs_lookup(tiers, TS_FSMETA_NAME, &fs, err, sizeof err) == 0);
	if (ts_vtier_new(&vt, &tc, fs, 0, err, sizeof err)) {
		fprintf(stderr, "tier model: %s\n", err);
		tc_failures++;
		ts_opt_free(ts_pipe_opts, &pc);
		r.rc = -1;
		return r;
	}
	struct ts_vdisk disk = { ts_vtier_vio, &vt, ts_vtier_warm, NULL, fs };
	struct ts_vpipe *v;
	r.rc = ts_vpipe_new(&pc, meta, &disk, NULL, &v, r.err, sizeof r.err);
	if (!r.rc) {
		struct ts_vpipe_stats st;
		struct ts_vbatch vb;
		int rc;
		while ((rc = ts_vpipe_next_batch(v, &vb)) == 1) {
			r.end_ns = vb.ready_ns;
			if ((rc = ts_vpipe_release(v, vb.seq, vb.ready_ns)))
				break;
		}
		CHECK(rc == 0);
		ts_vpipe_stats(v, &st);
		r.samples = st.samples;
		ts_vpipe_free(v);
	}
	r.dev_reads = vt.dev_reads;
	r.dev_bytes = vt.dev_read_bytes;
	ts_vtier_free(&vt);
	ts_opt_free(ts_pipe_opts, &pc);
	return r;
}

/* The real reader over the LMDB under @dir with copy=@copy: the FNV-1a
 * hash of every delivered sample's bytes, in order; *@n the samples. */
static uint64_t real_hash(const char *dir, const char *copy, uint64_t *n)
{
	char path[600], err[1024];
	struct ts_pipe_cfg pc;
	struct ts_pipe *p;
	uint64_t h = 1469598103934665603ULL;
	*n = 0;
	snprintf(path, sizeof path, "%s/train_lmdb", dir);
	memset(&pc, 0, sizeof pc);
	CHECK(ts_opt_defaults(ts_pipe_opts, &pc, err, sizeof err) == 0);
	const char *kv[][2] = { { "source", "lmdb" }, { "path", path },	 { "shuffle", "false" },
				{ "decode", "none" }, { "keep_raw", "true" }, { "batch", "5" },
				{ "copy", copy } };
	for (size_t i = 0; i < sizeof kv / sizeof *kv; i++)
		CHECK(ts_opt_set(ts_pipe_opts, &pc, kv[i][0], kv[i][1], err, sizeof err) == 0);
	if (ts_pipe_new(&pc, &p, err, sizeof err)) {
		fprintf(stderr, "real, copy=%s: %s\n", copy, err);
		tc_failures++;
		ts_opt_free(ts_pipe_opts, &pc);
		return 0;
	}
	CHECK(ts_pipe_start(p) == 0);
	for (;;) {
		struct ts_batch *b;
		int64_t w = ts_pipe_next_batch(p, &b);
		CHECK(w >= 0);
		if (w < 0 || !b)
			break;
		for (uint32_t i = 0; i < b->n; i++, ++*n) {
			const unsigned char *c = b->s[i].raw;
			CHECK(c != NULL && b->s[i].len > 0);
			for (uint32_t k = 0; c && k < b->s[i].len; k++)
				h = (h ^ c[k]) * 1099511628211ULL;
		}
		ts_pipe_batch_release(p, b);
	}
	ts_pipe_free(p);
	ts_opt_free(ts_pipe_opts, &pc);
	return h;
}

static void show(const char *what, const struct vrun *r)
{
	fprintf(stderr, "%-32s %llu samples, %llu device reads, %llu bytes, end %llu ns%s%s\n",
		what, (unsigned long long)r->samples, (unsigned long long)r->dev_reads,
		(unsigned long long)r->dev_bytes, (unsigned long long)r->end_ns, r->rc ? ": " : "",
		r->rc ? r->err : "");
}

/* Both copies on @host: equal requests (the host copies in order). */
static void same_on(const struct ts_dataset_meta *m, const char *host, const struct vrun *pages)
{
	struct vrun p = run(m, "pages", host), c = run(m, "memcpy", host);
	show(host, &c);
	CHECK(p.rc == 0 && c.rc == 0);
	CHECK_EQ_U64(p.dev_reads, pages->dev_reads);
	CHECK_EQ_U64(c.dev_reads, pages->dev_reads);
	CHECK_EQ_U64(c.dev_bytes, pages->dev_bytes);
}

int main(void)
{
	char err[1024];
	if (ts_tier_set_load_default(&tiers, err, sizeof err)) {
		fprintf(stderr, "tiers: %s\n", err);
		return 1;
	}
	/* this-machine's profile file: none (the built-in hosts only) */
	setenv("TIERSIM_HOST_FILE", "/nonexistent/tiersim-this-machine.lua", 1);

	/* 100 raw Datums (196,624 bytes: 49 pages each, one after the other) */
	struct ts_dataset_config dc;
	struct ts_dataset_meta meta;
	memset(&dc, 0, sizeof dc);
	CHECK(ts_opt_defaults(ts_dataset_opts(), &dc, err, sizeof err) == 0);
	dc.count = 100;
	dc.seed = 3;
	if (ts_dataset_meta_describe(&ts_dataset_imagenet_lmdb, &dc, &meta, err, sizeof err)) {
		fprintf(stderr, "describe: %s\n", err);
		return 1;
	}

	/* a tail-first host: more requests, the same bytes */
	struct vrun p = run(&meta, "pages", "epyc-kvm-2vcpu"),
		    c = run(&meta, "memcpy", "epyc-kvm-2vcpu");
	show("epyc-kvm-2vcpu, copy=pages", &p);
	show("epyc-kvm-2vcpu, copy=memcpy", &c);
	CHECK(p.rc == 0 && c.rc == 0);
	CHECK_EQ_U64(p.samples, 100);
	CHECK_EQ_U64(c.samples, 100);
	CHECK_EQ_U64(p.dev_reads, PAGES_READS);
	CHECK_EQ_U64(c.dev_reads, MEMCPY_READS);
	CHECK_EQ_U64(c.dev_bytes, p.dev_bytes);
	CHECK_EQ_U64(p.end_ns, EPYC_PAGES_END);
	struct vrun x = run(&meta, "pages", "xeon-e5-2682v4");
	CHECK(x.rc == 0);
	CHECK_EQ_U64(x.end_ns, XEON_PAGES_END);

	/* hosts that copy in order, or say nothing of it */
	same_on(&meta, "xeon-e5-2682v4", &p);
	same_on(&meta, "xeon-e5-2682v4/libjpeg-turbo", &p);
	same_on(&meta, "epyc-zen4", &p);
	same_on(&meta, "this-machine", &p);

	/* bad input: one line naming the option */
	struct vrun b = run(&meta, "rep-movsb", "epyc-kvm-2vcpu");
	CHECK(b.rc == -EINVAL && strstr(b.err, "option 'copy'") && strstr(b.err, "rep-movsb") &&
	      !strchr(b.err, '\n'));
	b = run(&meta, "memcpy", "no-such-host");
	CHECK(b.rc == -ENOENT && strstr(b.err, "option 'host'") && strstr(b.err, "no-such-host") &&
	      !strchr(b.err, '\n'));
	/* copy=pages reads a profile only for its map_window_ns */
	b = run(&meta, "pages", "no-such-host");
	CHECK(b.rc == 0);
	/* the real reader refuses it before opening anything */
	const struct ts_source_ops *ops = ts_source_find("lmdb", err, sizeof err);
	struct ts_pipe_cfg pc;
	memset(&pc, 0, sizeof pc);
	CHECK(ts_opt_defaults(ts_pipe_opts, &pc, err, sizeof err) == 0);
	CHECK(ts_opt_set(ts_pipe_opts, &pc, "path", "/nonexistent", err, sizeof err) == 0);
	CHECK(ts_opt_set(ts_pipe_opts, &pc, "copy", "bytes", err, sizeof err) == 0);
	void *st = NULL;
	err[0] = 0;
	CHECK(ops && ops->open(ops, &pc, &st, err, sizeof err) == -EINVAL && !st);
	CHECK(strstr(err, "option 'copy': 'bytes'") != NULL);
	ts_opt_free(ts_pipe_opts, &pc);

	/* real time: the C library's memcpy delivers the bytes the page-order
	 * copy does, sample for sample (12 raw Datums written by the kind) */
	char root[] = "/tmp/ts-lmdbcopy-XXXXXX";
	if (mkdtemp(root)) {
		struct ts_dataset_config rc_ = dc;
		struct ts_dataset_stats dst;
		rc_.count = 12;
		rc_.threads = 1;
		if (ts_dataset_make(&ts_dataset_imagenet_lmdb, &rc_, root, &dst, err, sizeof err)) {
			fprintf(stderr, "make: %s\n", err);
			tc_failures++;
		} else {
			uint64_t np = 0, nc = 0, hp = real_hash(root, "pages", &np),
				 hc = real_hash(root, "memcpy", &nc);
			CHECK_EQ_U64(np, 12);
			CHECK_EQ_U64(nc, 12);
			CHECK_EQ_U64(hc, hp);
		}
		tp_rmrf(root);
	} else {
		perror("mkdtemp");
		tc_failures++;
	}

	ts_dataset_meta_free(&meta);
	ts_tier_set_free(tiers);
	return tc_exit();
}
