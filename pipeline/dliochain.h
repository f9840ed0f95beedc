/*
 * dliochain.h — the requests one sample costs under DLIO 2.0.0's readers,
 * as a file system (tierfs) sees them: their order, operations, offsets and
 * lengths, as a function of the file's size and layout. Written once here
 * and used by both clocks of the DLIO loader (workloads/dlio_loader.h):
 * real time issues each request as a system call, serially, in one worker;
 * virtual time charges the same requests to the tier model, serially.
 *
 * Measured through a tierfs trace of each real reader, DLIO 2.0.0's own
 * reader classes (bench/dlio_chains.sh, on files of DLIO's generators and,
 * for hdf5 and png, of tiersim's; the measurements are the files of
 * tests/workloads/chains/, with one hdf5 sample out of a whole DLIO run's
 * trace, bench/dlio_run_chain.py; tests/workloads/test_dlio_chain.c checks
 * every one against the model):
 *
 *  - npz, NPZReader: np.load(f, allow_pickle=True)['x'] (numpy 1.24, Python
 *    3.11's zipfile over a BufferedReader of the file's st_blksize, 4 KiB on
 *    tierfs). The zip's end record and central directory are read at the
 *    file's end, then the x member is opened twice (numpy checks its magic
 *    first) and its array read in 256 KiB pieces (numpy's BUFFER_SIZE), each
 *    a direct read of whole 4 KiB blocks and one 4 KiB buffer fill.
 *  - hdf5, HDF5Reader: h5py.File(f, 'r')['records'][i] (h5py 3.7, HDF5
 *    1.10): eight small reads of the superblock and object headers, with a
 *    stat() of the file by its path after the fourth (the folders' getattrs
 *    and the file's: DLIO's runs show 8 getattrs a sample, 4 of them on
 *    data_folder and train/, where an fstat would make 6), then the
 *    sample in one read, which the kernel splits into requests of at most
 *    1 MiB, the first ending where the user buffer's page does (16 bytes
 *    into a page: a buffer glibc mapped).
 *  - jpeg, ImageReader: np.asarray(Image.open(f)) (Pillow 9.4): the header
 *    in one 4 KiB fill, then 64 KiB reads from offset 0 (the decoder's
 *    block) until one ends at EOF, and a fill at EOF.
 *  - png, ImageReader: the header in one 4 KiB fill, then each IDAT chunk
 *    (64 KiB of data each, as Pillow writes them) read through the buffer,
 *    then the rest of the file. Pillow decodes a chunk once its data is
 *    read, so the reader's CPU comes in pieces: after the open, after the
 *    header's fill (Image.open), after each read that completes a chunk
 *    (its decode) and after the last read (the last chunk's decode and the
 *    array); the chain's requests carry them (cpu, measured in
 *    dliochain.c).
 *
 * Every format opens the file (the path's walk over its folders, two
 * getattrs from the lookup, the open, one from Python's fstat), reads,
 * flushes and closes it. tierfs charges the open as metadata and each read
 * as a read; getattr, flush and close are free (fs/timing.c). The fixtures
 * list the walk as "walk", the getattrs of the mount's root that the
 * reading thread made (the files lie there); the trace of a DLIO run shows
 * one getattr per folder of the path (data_folder and train/).
 *
 * These are the requests with every getattr reaching the daemon, as
 * tierfs mounted before 2026-12-03 (attr_timeout=0) and with -o
 * attr_timeout=0 now. Through today's tierfs with attr_timeout=0 every
 * format's reader (tests/workloads/chains/noflush_*, DLIO's reader classes
 * and fresh DLIO runs of npz and hdf5) makes its chain request for request,
 * getattrs and walk included, but for the flush: tierfs closes a read-only
 * file without one (FOPEN_NOFLUSH). With tierfs's default 1 s
 * attribute cache the kernel answers most getattrs: an npz sample reaches
 * the daemon as a getattr (the lookup), the open, the first read, one
 * getattr, the other 10 reads and the close (workloads/DLIO.md). Neither
 * moves the tier's time (getattr and flush are free); the host's CPU per
 * request (dlio_request_ns) is fitted by hosts measure over this model's
 * count and charged over it, so an npz sample's CPU is the measured one.
 */
#ifndef TS_PIPE_DLIOCHAIN_H
#define TS_PIPE_DLIOCHAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/ts.h"

/* TS_CHAIN_WALK: a lookup by the file's path, the getattrs of the folders
 * on the way (one per folder of the path below the mount; the GETATTRs
 * after it are the lookup's of the file itself). A GETATTR after the open
 * is an fstat, or, right after a WALK, a stat by path. */
enum ts_chain_op {
	TS_CHAIN_GETATTR,
	TS_CHAIN_OPEN,
	TS_CHAIN_READ,
	TS_CHAIN_FLUSH,
	TS_CHAIN_CLOSE,
	TS_CHAIN_WALK
};

struct ts_chain_req {
	uint8_t op;	   /* TS_CHAIN_* */
	/* TS_CHAIN_GETATTR after the open: the reader's lseek(SEEK_END)
	 * (Python's seek(n, 2)), not an fstat. Both are a getattr where the
	 * kernel does not cache attributes (attr_timeout=0, the fixtures);
	 * through FUSE's attribute cache an lseek asks for the size alone
	 * (fuse_file_llseek: fuse_update_attributes(STATX_SIZE)), so a read's
	 * atime invalidation does not send it where an fstat's would. */
	uint8_t seek_end;
	/* The reader's own work after this request ends, before its next
	 * (the one after the last request: to the sample's end), as a weight:
	 * ns of the reader measured on one host (dliochain.c), whose shares
	 * of a chain's total split the host's CPU per sample (its profile's
	 * dlio_*_sample_ns line) over the chain. 0 in every request: the
	 * reader's work is not placed (equal shares after each charged
	 * request). Set for png, whose decode runs in pieces. */
	uint32_t cpu;
	uint64_t off, len; /* TS_CHAIN_READ: as the request reaches the file system */
};

enum ts_chain_fmt { TS_CHAIN_NPZ, TS_CHAIN_HDF5, TS_CHAIN_JPEG, TS_CHAIN_PNG };

/* What the chain depends on. */
struct ts_chain_file {
	uint64_t size;	   /* the file's bytes */
	uint64_t member;   /* npz: where the x member's data (its .npy) starts */
	uint64_t data_off; /* npz, hdf5: where the sample's bytes start */
	uint64_t data_len; /* npz, hdf5: the sample's bytes */
};

/* The chain of a sample of format @fmt in file @f into @out (room for @cap);
 * returns how many requests it has (more than @cap: call again with room
 * for that many). */
size_t ts_chain_build(enum ts_chain_fmt fmt, const struct ts_chain_file *f,
		      struct ts_chain_req *out, size_t cap);
/*
 * The same, for a reader that keeps its files open: DLIO 2.0.0 with
 * reader.read_type in the workload (utils/config.py stores the file's
 * string, and reader_handler.py's read_index() compares it with
 * ReadType.ON_DEMAND by identity, so any value given, on_demand too, keeps
 * each file in the reader's open_file_map, unclosed, for the worker's life).
 * @held: the reader opened the file before. Measured through tierfs
 * (bench/dlio_held_probe.py; tests/workloads/chains/held_*.txt):
 *  - npz, jpeg, png: the first read is the chain above; a held file costs
 *    no request (open_file_map keeps the array np.load or Pillow made).
 *  - hdf5: the first read is the chain above without its flush and close
 *    (h5py.File stays open); a held file costs the record's read alone, cut
 *    by the kernel as above, the first piece ending where h5py's buffer's
 *    page does: 2,656 bytes into a page here, not 16 (measured, record 1
 *    of a held 3-record file of 2896 x 2896; where numpy's allocator puts
 *    the array varies from run to run: 1,664 and 1,824 in two more runs,
 *    one request fewer for that record). Records under 64 KiB
 *    are read through HDF5's sieve buffer (from the record to the end of
 *    the records, at most 64 KiB; measured on 64 x 64 records), which
 *    this chain does not model: it reads the record alone.
 */
size_t ts_chain_build_kept(enum ts_chain_fmt fmt, const struct ts_chain_file *f, bool held,
			   struct ts_chain_req *out, size_t cap);
/* A GETATTR of a chain, as the reader's system call makes it on the file
 * open as @fd (@path its path): an lseek to the end where @r->seek_end, a
 * stat() by @path after a walk (@walked), else an fstat. The file's size
 * to *@size; 0, or -errno. */
TS_WUR int ts_chain_stat(const struct ts_chain_req *r, int fd, const char *path, bool walked,
			 uint64_t *size);
/* "npz", "hdf5", "jpeg", "png": 0 with *fmt, or -EINVAL. */
TS_WUR int ts_chain_fmt_find(const char *name, enum ts_chain_fmt *fmt);
/* The trace's name of an op: "getattr", "open", "read", "flush", "close",
 * "walk". */
const char *ts_chain_op_name(enum ts_chain_op op);

#endif
