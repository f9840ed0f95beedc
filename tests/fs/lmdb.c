/*
 * lmdb.c — an LMDB environment written and read back through a tierfs
 * mount, as Caffe's convert_imageset writes and its data layer reads one.
 *
 *   lmdb MOUNTPOINT SHADOW BACKING [RECORDS]
 *
 * LMDB maps data.mdb shared (read-only by default, read/write with
 * MDB_WRITEMAP) and lock.mdb shared read/write, so this only works because
 * tierfs opens *.mdb in kernel-cached mode. Both modes are written, the
 * environment closed and reopened read-only, and every record checked;
 * then the same file is read again through BACKING directly.
 */
#include <lmdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/ts.h"
#include "tests/tcheck.h"

#define PER_TXN 400
static unsigned nrec = 4000;

static size_t value_len(unsigned i)
{
	return 16 + (i * 2654435761u) % 3000;
}

static void value_fill(unsigned i, char *v, size_t n)
{
	for (size_t k = 0; k < n; k++)
		v[k] = (char)(i * 31 + k * 7);
}

#define MDB_CHECK(call)                                                                     \
	do {                                                                                \
		int rc_ = (call);                                                           \
		if (rc_) {                                                                  \
			fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,      \
				mdb_strerror(rc_));                                         \
			tc_failures++;                                                      \
			return;                                                             \
		}                                                                           \
	} while (0)

static void write_env(const char *dir, unsigned flags)
{
	MDB_env *env;
	MDB_txn *txn;
	MDB_dbi dbi;
	char key[32], val[4096];

	MDB_CHECK(mdb_env_create(&env));
	MDB_CHECK(mdb_env_set_mapsize(env, 256u << 20));
	MDB_CHECK(mdb_env_open(env, dir, flags, 0644));
	for (unsigned i = 0; i < nrec; i += PER_TXN) {
		MDB_CHECK(mdb_txn_begin(env, NULL, 0, &txn));
		MDB_CHECK(mdb_dbi_open(txn, NULL, 0, &dbi));
		for (unsigned j = i; j < i + PER_TXN; j++) {
			snprintf(key, sizeof(key), "%08u", j);
			size_t n = value_len(j);
			value_fill(j, val, n);
			MDB_val k = { strlen(key), key }, v = { n, val };
			MDB_CHECK(mdb_put(txn, dbi, &k, &v, 0));
		}
		MDB_CHECK(mdb_txn_commit(txn));
	}
	mdb_env_close(env);
}

static void read_env(const char *dir, unsigned flags)
{
	MDB_env *env;
	MDB_txn *txn;
	MDB_dbi dbi;
	MDB_cursor *cur;
	MDB_val k, v;
	char want[4096];
	unsigned n = 0;

	MDB_CHECK(mdb_env_create(&env));
	MDB_CHECK(mdb_env_set_mapsize(env, 256u << 20));
	MDB_CHECK(mdb_env_open(env, dir, flags, 0644));
	MDB_CHECK(mdb_txn_begin(env, NULL, MDB_RDONLY, &txn));
	MDB_CHECK(mdb_dbi_open(txn, NULL, 0, &dbi));
	MDB_CHECK(mdb_cursor_open(txn, dbi, &cur));
	while (mdb_cursor_get(cur, &k, &v, n ? MDB_NEXT : MDB_FIRST) == 0) {
		char key[32];
		snprintf(key, sizeof(key), "%08u", n);
		size_t len = value_len(n);
		value_fill(n, want, len);
		if (k.mv_size != strlen(key) || memcmp(k.mv_data, key, k.mv_size) ||
		    v.mv_size != len || memcmp(v.mv_data, want, len)) {
			fprintf(stderr, "%s: record %u differs\n", dir, n);
			tc_failures++;
			break;
		}
		n++;
	}
	CHECK_EQ_U64(n, nrec);
	mdb_cursor_close(cur);
	mdb_txn_abort(txn);
	mdb_env_close(env);
}

int main(int argc, char **argv)
{
	char dir[4096];

	if (argc < 4) {
		fprintf(stderr, "usage: lmdb MOUNTPOINT SHADOW BACKING [RECORDS]\n");
		return 2;
	}
	if (argc > 4)
		nrec = (unsigned)atoi(argv[4]) / PER_TXN * PER_TXN;
	const struct {
		const char *name;
		unsigned flags;
	} modes[] = { { "db", 0 }, { "db-writemap", MDB_WRITEMAP } };
	for (size_t i = 0; i < TS_ARRAY_SIZE(modes); i++) {
		snprintf(dir, sizeof(dir), "%s/%s", argv[1], modes[i].name);
		CHECK(mkdir(dir, 0755) == 0);
		write_env(dir, modes[i].flags);
		read_env(dir, MDB_RDONLY);
		read_env(dir, modes[i].flags); /* read/write open, lock.mdb mapped */
		snprintf(dir, sizeof(dir), "%s/%s", argv[3], modes[i].name);
		read_env(dir, MDB_RDONLY | MDB_NOLOCK);
	}
	/* With a page-cache model smaller than the data, the kernel's copy of
	 * the mapped files must have been invalidated on the way. */
	if (argc > 5 && strcmp(argv[5], "expect-invalidations") == 0) {
		char stats[1 << 16], *p;
		snprintf(dir, sizeof(dir), "%s/.tierfs/stats", argv[1]);
		FILE *f = fopen(dir, "r");
		size_t n = f ? fread(stats, 1, sizeof(stats) - 1, f) : 0;
		if (f)
			fclose(f);
		stats[n] = 0;
		p = strstr(stats, "\"invalidations\": ");
		CHECK(p && atol(p + 17) > 0);
		if (p)
			printf("kernel page-cache invalidations: %ld\n", atol(p + 17));
	}
	return tc_exit();
}
