/* test_dlio_chain.c — the modeled request chain of each DLIO reader
 * (pipeline/dliochain.h) against the one measured through tierfs
 * (bench/dlio_chains.sh wrote tests/workloads/chains/, one file a sample,
 * read by DLIO 2.0.0's own reader classes; tiersim_*.txt are tiersim's own
 * hdf5, npz and png files; run_*_338.txt are one sample out of the trace of
 * a whole DLIO run, bench/dlio_run_chain.py; every noflush_ file measured
 * through today's tierfs with attr_timeout=0, which closes a read-only file
 * without a flush; the held_ and keep_ chains have no close): the same
 * operations, getattrs and walks included, offsets
 * and lengths in the same order, request for request; and where the loader takes each sample to
 * lie: hdf5's records (hdf5_338_3.txt: the middle of 3 records) and npz's
 * x member and array, which np.savez's files (npz_*.txt) and tiersim's
 * (tiersim_npz.txt) put at the same offsets.
 * Usage: test_dlio_chain DIR */
#include <dirent.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "tests/tcheck.h"
#include "pipeline/dliochain.h"
#include "pipeline/dliofmt.h"

#define MAX_REQ 4096

static int closing, noflush_files;

static void check_file(const char *dir, const char *name)
{
	char path[4096], fmt[16], op[16];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "r");
	CHECK(f != NULL);
	if (!f)
		return;
	struct ts_chain_file cf = { 0 };
	enum ts_chain_fmt cfmt = TS_CHAIN_NPZ;
	CHECK(fscanf(f, "# %15s %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64, fmt, &cf.size,
		     &cf.member, &cf.data_off, &cf.data_len) == 5);
	CHECK(ts_chain_fmt_find(fmt, &cfmt) == 0);
	/* h5py's records where the loader takes them to lie
	 * (workloads/dlio_loader.c): n records and n labels after the
	 * metadata block, record k at 2048 + k records */
	if (cfmt == TS_CHAIN_HDF5) {
		uint64_t each = cf.data_len + TS_HDF5_LABEL;
		CHECK(cf.data_len && (cf.size - TS_HDF5_DATA) % each == 0);
		CHECK(cf.data_off >= TS_HDF5_DATA && (cf.data_off - TS_HDF5_DATA) % cf.data_len == 0);
		CHECK((cf.data_off - TS_HDF5_DATA) / cf.data_len < (cf.size - TS_HDF5_DATA) / each);
	}
	/* npz: x's .npy after its local header (zip64 extra and all), its
	 * array where ts_npz_payload() finds it in a file of that size */
	if (cfmt == TS_CHAIN_NPZ) {
		uint64_t at = 0, len = 0;
		ts_npz_payload(cf.size, &at, &len);
		CHECK_EQ_U64(cf.member, TS_NPZ_MEMBER);
		CHECK_EQ_U64(cf.data_off, at);
		CHECK_EQ_U64(cf.data_len, len);
	}
	/* noflush_*: measured through a tierfs that closes a read-only file
	 * without a FUSE_FLUSH (FOPEN_NOFLUSH, fs/passthrough.c): the same
	 * chain, every getattr and the walk included, without the model's
	 * flush; keep_*: a sample read first by a reader that keeps its files
	 * open (reader.read_type given); held_*: one read after it from the
	 * file the reader holds (bench/dlio_held_chains.sh) */
	bool noflush = !strncmp(name, "noflush_", 8);
	noflush_files += noflush;
	const char *kind = noflush ? name + 8 : name;
	bool keep = !strncmp(kind, "keep_", 5), held = !strncmp(kind, "held_", 5);
	static struct ts_chain_req got[MAX_REQ];
	size_t n = keep || held ? ts_chain_build_kept(cfmt, &cf, held, got, MAX_REQ)
				: ts_chain_build(cfmt, &cf, got, MAX_REQ);
	CHECK(n <= MAX_REQ);
	if (noflush && n <= MAX_REQ) {
		size_t k = 0, flushes = 0;
		for (size_t j = 0; j < n; j++) {
			if (got[j].op == TS_CHAIN_FLUSH)
				flushes++;
			else
				got[k++] = got[j];
		}
		CHECK(flushes == 1); /* the model flushes once, at the close */
		n = k;
	}
	/* Where the kernel cuts a held hdf5 record depends on where numpy's
	 * allocator put the array (1,664, 1,824 and 2,656 bytes into a page in
	 * three runs): there the pieces follow one another from the record's
	 * start, the first ends within a page of 1 MiB, every other but the
	 * last is 1 MiB, their bytes are the record's, and there are as many
	 * as the model's (2,656 bytes in) or one fewer (under 1,792 bytes in,
	 * for this record of 8,386,816 bytes). */
	bool loose = held && cfmt == TS_CHAIN_HDF5;
	uint64_t next_off = cf.data_off, bytes = 0, last_len = 0;
	size_t i = 0;
	uint64_t off, len;
	int bad = 0;
	bool closes = false;
	while (fscanf(f, "%15s %" SCNu64 " %" SCNu64, op, &off, &len) == 3) {
		closes = closes || !strcmp(op, "close");
		bool differs = i >= n || strcmp(op, ts_chain_op_name(got[i].op));
		if (!differs && loose) {
			/* the piece before this one was not the last: 1 MiB */
			differs = off != next_off || (i > 1 && last_len != 1048576) ||
				  (i == 1 && (last_len > 1048576 || last_len + 4096 <= 1048576));
			next_off = off + len;
			bytes += len;
			last_len = len;
		} else if (!differs && got[i].op == TS_CHAIN_READ) {
			differs = got[i].off != off || got[i].len != len;
		}
		if (differs) {
			if (!bad++)
				fprintf(stderr, "%s: request %zu: measured %s %" PRIu64 " %" PRIu64
						", modeled %s %" PRIu64 " %" PRIu64 "\n", name, i, op,
					off, len, i < n ? ts_chain_op_name(got[i].op) : "(none)",
					i < n ? got[i].off : 0, i < n ? got[i].len : 0);
		}
		i++;
	}
	fclose(f);
	closing += closes;
	if (loose) {
		CHECK_EQ_U64(bytes, cf.data_len);
		n = i + 1 == n ? i : n;
	}
	if (i != n)
		fprintf(stderr, "%s: measured %zu requests, modeled %zu\n", name, i, n);
	CHECK(i == n);
	CHECK(bad == 0);
	printf("%-16s %5zu requests: %s\n", name, i, bad || i != n ? "DIFFERS" : "same");
}

int main(int argc, char **argv)
{
	CHECK(argc == 2);
	if (argc != 2)
		return tc_exit();
	DIR *d = opendir(argv[1]);
	CHECK(d != NULL);
	if (!d)
		return tc_exit();
	int files = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);
		if (l > 4 && !strcmp(e->d_name + l - 4, ".txt")) {
			check_file(argv[1], e->d_name);
			files++;
		}
	}
	closedir(d);
	CHECK(files >= 4); /* every format measured */
	/* every chain that closes its file was measured without a flush */
	CHECK(closing == noflush_files);
	/* a chain longer than the room given says how long it is */
	struct ts_chain_req few[4];
	struct ts_chain_file npz = { .size = 114742, .member = TS_NPZ_MEMBER, .data_off = 183,
				     .data_len = 114244 };
	CHECK(ts_chain_build(TS_CHAIN_NPZ, &npz, few, 4) == 22);
	/* a chain cut short by its room places no work past it */
	struct ts_chain_file p338 = { .size = 114746 };
	CHECK(ts_chain_build(TS_CHAIN_PNG, &p338, few, 4) == 12);
	CHECK(few[3].op == TS_CHAIN_OPEN && few[3].cpu == 15100);
	/* the png reader's work in its chain (dliochain.c's PNG_CPU_*): the
	 * open, the header's fill, the fill completing the first IDAT chunk
	 * (64 KiB decoded), the last read (the last chunk's 49,141 B and the
	 * array); no other request carries any, nor any npz request */
	static struct ts_chain_req r[MAX_REQ];
	size_t n = ts_chain_build(TS_CHAIN_PNG, &p338, r, MAX_REQ);
	CHECK(n == 12);
	uint64_t at[12] = { [3] = 15100, [5] = 48500, [7] = 64 * 4710,
			    [9] = 59900 + 49141 * 4710 / 1024 };
	for (size_t q = 0; q < n && q < 12; q++)
		CHECK_EQ_U64(r[q].cpu, at[q]);
	CHECK(r[7].op == TS_CHAIN_READ && r[7].off == 65536 && r[9].off == 114688);
	/* a 1,024 x 1,024 file (16 full chunks and 2,268 B): a decode after
	 * each read that completes one of the first 15, the 16th's data
	 * (with its length, type and CRC) and the last chunk's at the end */
	struct ts_chain_file p1024 = { .size = 1051093 };
	n = ts_chain_build(TS_CHAIN_PNG, &p1024, r, MAX_REQ);
	CHECK(n <= MAX_REQ);
	uint64_t decodes = 0, last = 0;
	for (size_t q = 0; q < n && q < MAX_REQ; q++) {
		decodes += r[q].cpu == 64 * 4710;
		last = r[q].op == TS_CHAIN_READ ? r[q].cpu : last;
	}
	CHECK_EQ_U64(decodes, 15);
	CHECK_EQ_U64(last, 59900 + (65536 + 12 + 2268) * 4710 / 1024);
	n = ts_chain_build(TS_CHAIN_NPZ, &npz, r, MAX_REQ);
	for (size_t q = 0; q < n && q < MAX_REQ; q++)
		CHECK_EQ_U64(r[q].cpu, 0);
	return tc_exit();
}
