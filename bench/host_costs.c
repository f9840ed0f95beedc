/*
 * host_costs.c — the CPU costs of a raw-Datum pipeline on this machine, the
 * figures pipeline/hosts.lua records as measured: what one core spends
 *   - transforming a 256x256 raw Datum (planes B, G, R) to the model input
 *     (crop 224, flip, normalize to float), as the loader's workers do;
 *   - parsing a Datum and copying its pixels out, as protobuf's
 *     ParseFromString does for Caffe's data reader;
 *   - making one Datum from a resized RGB image and putting it into an LMDB,
 *     as convert_imageset does (transactions of 1000, no fsync: the disk's
 *     part is the tier's).
 * Thread CPU time, so other load on a shared host does not inflate it.
 *
 *   build/bench/host_costs [DIR] [SECONDS]   (DIR: where the LMDB goes, /dev/shm)
 */
#include <lmdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/rng.h"
#include "pipeline/datum.h"
#include "pipeline/decode.h"

enum { SIDE = 256, OUT = 224, TXN = 1000 };

static int fail(int line)
{
	fprintf(stderr, "host_costs: the Datum round trip failed (line %d)\n", line);
	return 1;
}

static uint64_t cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/*
 * Why one long function: the three measurements in numbered steps, one after
 * the other over the same images and timer, each printing its own line.
 */
int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : "/dev/shm";
	double secs = argc > 2 ? atof(argv[2]) : 2.0;
	uint64_t budget = (uint64_t)(secs * 1e9);
	size_t px = (size_t)SIDE * SIDE * 3;
	uint8_t *rgb = malloc(px), *chw = malloc(px), *copy = malloc(px);
	float *out = malloc((size_t)OUT * OUT * 3 * sizeof(*out));
	struct ts_rng rng;
	ts_rng_seed(&rng, 1);
	for (size_t i = 0; i < px; i++)
		rgb[i] = (uint8_t)(ts_rng_u64(&rng) >> 56);
	ts_datum_rgb_to_chw_bgr(rgb, SIDE, SIDE, chw);
	struct ts_datum d;
	ts_datum_init_raw(&d, 3, SIDE, SIDE, chw, 7);
	size_t vlen = ts_datum_encoded_size(&d);
	uint8_t *val = malloc(vlen + 16); /* labels from 128 up take a byte more */
	struct ts_decoder *dec;
	if (!rgb || !chw || !copy || !out || !val || ts_decoder_new(OUT, SIDE, true, &dec)) {
		fprintf(stderr, "host_costs: out of memory\n");
		return 1;
	}
	if (ts_datum_encode(&d, val, vlen) != (ssize_t)vlen)
		return fail(__LINE__);

	/* 1. The transform of a raw Datum. */
	uint64_t n = 0, t0 = cpu_ns(), t;
	do {
		ts_decode_planes(dec, chw, SIDE, SIDE, true, &rng, out);
		n++;
	} while ((t = cpu_ns()) - t0 < budget);
	double xform = (double)(t - t0) / (double)n;
	uint64_t nx = n;

	/* 2. Parse and copy the pixels out. */
	n = 0;
	t0 = cpu_ns();
	do {
		struct ts_datum p;
		if (ts_datum_decode(&p, val, vlen) || p.data_len != px)
			return fail(__LINE__);
		memcpy(copy, p.data, p.data_len);
		n++;
	} while ((t = cpu_ns()) - t0 < budget);
	double parse = (double)(t - t0) / (double)n;
	uint64_t np = n;

	/* 3. Datum from RGB, serialized, put; a commit every TXN puts. */
	char path[4096];
	snprintf(path, sizeof(path), "%s/host_costs-XXXXXX", dir);
	if (!mkdtemp(path)) {
		perror(path);
		return 1;
	}
	MDB_env *env;
	MDB_txn *txn = NULL;
	MDB_dbi dbi;
	int rc = mdb_env_create(&env);
	if (!rc)
		rc = mdb_env_set_mapsize(env, (size_t)64 << 30);
	if (!rc)
		rc = mdb_env_open(env, path, MDB_NOSYNC, 0644);
	if (rc) {
		fprintf(stderr, "host_costs: %s: %s\n", path, mdb_strerror(rc));
		return 1;
	}
	n = 0;
	t0 = cpu_ns();
	uint64_t limit = (uint64_t)(2.0e9 / (double)vlen) + TXN; /* at most ~2 GB */
	do {
		if (!txn && ((rc = mdb_txn_begin(env, NULL, 0, &txn)) ||
			     (rc = mdb_dbi_open(txn, NULL, 0, &dbi))))
			break;
		ts_datum_rgb_to_chw_bgr(rgb, SIDE, SIDE, chw);
		ts_datum_init_raw(&d, 3, SIDE, SIDE, chw, (int32_t)(n % 1000));
		ssize_t got = ts_datum_encode(&d, val, vlen + 16);
		if (got <= 0)
			return fail(__LINE__);
		char key[64];
		int kl = snprintf(key, sizeof(key), "%08llu_n%08llu/x.JPEG", (unsigned long long)n,
				  (unsigned long long)(n % 1000));
		MDB_val k = { (size_t)kl, key }, v = { (size_t)got, val };
		if ((rc = mdb_put(txn, dbi, &k, &v, 0)))
			break;
		if (++n % TXN == 0) {
			if ((rc = mdb_txn_commit(txn)))
				break;
			txn = NULL;
		}
	} while (((t = cpu_ns()) - t0 < budget || n % TXN) && n < limit);
	if (!rc && txn)
		rc = mdb_txn_commit(txn);
	t = cpu_ns();
	mdb_env_close(env);
	char f[4200];
	snprintf(f, sizeof(f), "%s/data.mdb", path);
	unlink(f);
	snprintf(f, sizeof(f), "%s/lock.mdb", path);
	unlink(f);
	rmdir(path);
	if (rc) {
		fprintf(stderr, "host_costs: lmdb: %s\n", mdb_strerror(rc));
		return 1;
	}
	double put = (double)(t - t0) / (double)n;
	char cpu[128];
	ts_cpu_model(cpu, sizeof(cpu));
	printf("host_costs on %s (one core, thread CPU time)\n", cpu[0] ? cpu : "this host");
	printf("datum_xform_ns %.0f  (%llu transforms, 256x256 planes -> crop %d, flip, normalize)\n",
	       xform, (unsigned long long)nx, OUT);
	printf("datum_parse_ns %.0f  (%llu parses of %zu B + a copy of the pixels)\n", parse,
	       (unsigned long long)np, vlen);
	printf("lmdb_put_ns    %.0f  (%llu Datums made and put, %d per transaction, MDB_NOSYNC)\n",
	       put, (unsigned long long)n, TXN);
	ts_decoder_free(dec);
	free(rgb);
	free(chw);
	free(copy);
	free(out);
	free(val);
	return 0;
}
