/*
 * dliochain.c — the request chains of DLIO 2.0.0's readers (dliochain.h).
 *
 * Python reads a file through a BufferedReader of one block (4 KiB on
 * tierfs): a read that ends past what the buffer holds reads the whole
 * blocks it still needs straight into the caller's memory and then fills the
 * buffer with one more block (CPython Modules/_io/bufferedio.c,
 * _bufferedreader_read_generic); a read that hits EOF stops there and the
 * fill after it is issued at EOF. `struct buf` is that reader.
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pipeline/dliochain.h"

#define BLK 4096u		/* st_blksize on tierfs: Python's buffer */
#define NPY_PIECE 262144u	/* numpy.lib.format.BUFFER_SIZE */
#define ZIP_MIN_READ 4096u	/* zipfile.ZipExtFile.MIN_READ_SIZE */
#define ZIP_EOCD 22u		/* zip end of central directory record */
#define ZIP64_LOCATOR 20u	/* what zipfile looks for before it */
#define ZIP_CD 102u		/* numpy's central directory: two entries of 46 + 5 bytes */
#define FUSE_MAX 1048576u	/* the largest request the kernel sends tierfs */
#define H5_BUF_MISALIGN 16u	/* h5py's array buffer sits this far into a page */
#define H5_HELD_MISALIGN 2656u	/* ... reading a file it holds open (measured) */
#define JPEG_BLOCK 65536u	/* Pillow ImageFile.load: decodermaxblock */
#define PNG_IDAT 65536u		/* Pillow's IDAT chunks (ImageFile.MAXBLOCK) */
#define PNG_HEAD 33u		/* signature 8 + IHDR chunk 25 */
#define PNG_CHUNK 12u		/* a chunk's length, type and CRC */

struct out {
	struct ts_chain_req *r;
	size_t n, cap;
};

static void put(struct out *o, enum ts_chain_op op, uint64_t off, uint64_t len)
{
	if (o->n < o->cap)
		o->r[o->n] = (struct ts_chain_req){ .op = (uint8_t)op, .off = off, .len = len };
	o->n++;
}

/* A getattr that is the reader's lseek(fd, n, SEEK_END) (strace of
 * np.load: zipfile's seek(0, 2), seek(-22, 2) and seek(-42, 2)). */
static void put_seek_end(struct out *o)
{
	put(o, TS_CHAIN_GETATTR, 0, 0);
	if (o->n <= o->cap)
		o->r[o->n - 1].seek_end = 1;
}

/* Python's BufferedReader: the buffer holds the file up to @end. */
struct buf {
	uint64_t end, size;
};

static void buf_fill(struct out *o, struct buf *b, uint64_t at)
{
	put(o, TS_CHAIN_READ, at, BLK);
	b->end = TS_MIN(at + BLK, b->size);
}

/* A read through the buffer that needs the file up to @want. */
static void buf_want(struct out *o, struct buf *b, uint64_t want)
{
	if (want <= b->end)
		return;
	uint64_t raw = (want - b->end) / BLK * BLK;
	if (raw) {
		put(o, TS_CHAIN_READ, b->end, raw);
		b->end = TS_MIN(b->end + raw, b->size);
	}
	if (want > b->end)
		buf_fill(o, b, b->end);
}

/* open() from Python: the walk over the path's folders, the lookup's two
 * getattrs, the open, io.open's fstat. */
static void py_open(struct out *o)
{
	put(o, TS_CHAIN_WALK, 0, 0);
	put(o, TS_CHAIN_GETATTR, 0, 0);
	put(o, TS_CHAIN_GETATTR, 0, 0);
	put(o, TS_CHAIN_OPEN, 0, 0);
	put(o, TS_CHAIN_GETATTR, 0, 0);
}

static void py_close(struct out *o)
{
	put(o, TS_CHAIN_FLUSH, 0, 0);
	put(o, TS_CHAIN_CLOSE, 0, 0);
}

/* zipfile.ZipFile.open('x.npy'): the local header at 0 (a fresh buffer),
 * then the member's first read of at least ZIP_MIN_READ bytes. */
static void zip_member_open(struct out *o, struct buf *b, const struct ts_chain_file *f,
			    uint64_t *zend)
{
	uint64_t mend = f->data_off + f->data_len;
	buf_fill(o, b, 0);
	*zend = TS_MIN(f->member + ZIP_MIN_READ, mend);
	buf_want(o, b, *zend);
}

static void npz(struct out *o, const struct ts_chain_file *f)
{
	uint64_t s = f->size, mend = f->data_off + f->data_len, zend;
	struct buf b = { .size = s };
	py_open(o);
	buf_fill(o, &b, 0);				  /* np.load: the magic */
	put_seek_end(o);				  /* zipfile: seek(0, 2), */
	put_seek_end(o);				  /* seek(-22, 2), */
	put(o, TS_CHAIN_GETATTR, 0, 0);			  /* readall's fstat */
	put(o, TS_CHAIN_READ, s - ZIP_EOCD, ZIP_EOCD + 1); /* readall: the end record */
	put(o, TS_CHAIN_READ, s, 1);			  /* and EOF */
	put_seek_end(o);				  /* seek(-42, 2) */
	buf_fill(o, &b, s - ZIP_EOCD - ZIP64_LOCATOR);	  /* no zip64 locator */
	buf_fill(o, &b, s - ZIP_EOCD - ZIP_CD);		  /* the central directory */
	zip_member_open(o, &b, f, &zend);		  /* NpzFile: the magic */
	zip_member_open(o, &b, f, &zend);		  /* read_array */
	for (uint64_t at = f->data_off; at < mend; at += NPY_PIECE) {
		uint64_t piece_end = TS_MIN(at + NPY_PIECE, mend);
		if (piece_end <= zend)
			continue;
		/* ZipExtFile._read2: at least ZIP_MIN_READ, at most to the member's end */
		zend = TS_MIN(zend + TS_MAX(piece_end - zend, ZIP_MIN_READ), mend);
		buf_want(o, &b, zend);
	}
	py_close(o);
}

/* h5py: the superblock and the object headers of DLIO's one-sample files
 * (offset, length), as measured; then the sample. */
static const uint64_t h5_meta[][2] = { { 0, 8 }, { 0, 16 }, { 16, 80 }, { 96, 512 } };
static const uint64_t h5_meta2[][2] = { { 680, 512 }, { 136, 544 }, { 1072, 328 }, { 800, 512 } };

/* One pread of the sample into a buffer @misalign bytes into a page: the
 * kernel cuts it at the buffer's pages. */
static void h5_record(struct out *o, const struct ts_chain_file *f, uint64_t misalign)
{
	uint64_t at = f->data_off, left = f->data_len;
	uint64_t piece = FUSE_MAX - misalign;
	while (left) {
		uint64_t n = TS_MIN(piece, left);
		put(o, TS_CHAIN_READ, at, n);
		at += n;
		left -= n;
		piece = FUSE_MAX;
	}
}

/* h5py.File(f, 'r')['records'][i], the file left open when @keep. */
static void hdf5(struct out *o, const struct ts_chain_file *f, bool keep)
{
	py_open(o);
	for (size_t i = 0; i < TS_ARRAY_SIZE(h5_meta); i++)
		put(o, TS_CHAIN_READ, h5_meta[i][0], h5_meta[i][1]);
	put(o, TS_CHAIN_WALK, 0, 0); /* HDF5's stat() of the file by its name */
	put(o, TS_CHAIN_GETATTR, 0, 0);
	for (size_t i = 0; i < TS_ARRAY_SIZE(h5_meta2); i++)
		put(o, TS_CHAIN_READ, h5_meta2[i][0], h5_meta2[i][1]);
	h5_record(o, f, H5_BUF_MISALIGN);
	if (!keep)
		py_close(o);
}

static void jpeg(struct out *o, const struct ts_chain_file *f)
{
	struct buf b = { .size = f->size };
	py_open(o);
	buf_fill(o, &b, 0); /* Image.open: the header */
	for (uint64_t k = 1; k == 1 || b.end < f->size; k++)
		buf_want(o, &b, k * JPEG_BLOCK); /* load(): from offset 0 */
	py_close(o);
}

/*
 * Where ImageReader's CPU on a png goes (np.asarray(Image.open(f)), Pillow
 * 9.4): bench/dlio_png_split.py split, DLIO's reader in one thread through
 * a BufferedReader of 4 KiB whose raw reads are timed, the thread's CPU
 * between one read's return and the next read, 400 files of 338 x 338
 * (114,746 B: one full IDAT chunk and one of 49,141 B) from the page
 * cache, 3 rounds (q bench, 2026-12-06 22:40 UTC, load 7.0, the AMD EPYC
 * Zen 3 guest of epyc-zen3-kvm-2vcpu):
 * the median round 654.3 us a sample, reads excluded: 15.1 from the open
 * to the first read, 48.5 after the header's fill, 301.4 after the fill
 * that completes the first chunk (its 64 KiB decoded: 4.71 us a KiB), 1.6
 * and 1.4 after the two reads that complete none, 286.0 after the last
 * (the 48.0 KiB chunk's decode at that rate, 226.1, and 59.9 more: the
 * array). Rounds within 0.6 us. Weights (ns of that host), not charges:
 * the host profile's png line is what a sample costs, these say where in
 * its chain it is spent; the two reads' 3 us are left to the others.
 */
#define PNG_CPU_OPEN 15100u	 /* the open to the first read: io.open, Image.open's start */
#define PNG_CPU_HEAD 48500u	 /* after the header's fill: Image.open's plugins, IHDR */
#define PNG_CPU_IDAT_KIB 4710u	 /* after a chunk's data is read: its decode, per KiB */
#define PNG_CPU_END 59900u	 /* after the last read: the array, beside the last decode */

/* The reader's work after the requests of a png's chain: PNG_CPU_*, the
 * decode of each IDAT chunk after the read that completes its data. */
static void png_cpu(struct out *o, const struct ts_chain_file *f, size_t first)
{
	size_t n = TS_MIN(o->n, o->cap), last = n;
	uint64_t done = 0; /* the chunks decoded */
	for (size_t q = first; q < n; q++)
		if (o->r[q].op == TS_CHAIN_READ)
			last = q;
	for (size_t q = first; q < n; q++) {
		struct ts_chain_req *r = &o->r[q];
		uint64_t ns = 0;
		if (r->op == TS_CHAIN_OPEN)
			ns = PNG_CPU_OPEN;
		if (r->op != TS_CHAIN_READ) {
			r->cpu = (uint32_t)ns;
			continue;
		}
		if (!r->off)
			ns += PNG_CPU_HEAD;
		uint64_t bytes = 0;
		if (q == last) { /* every chunk not yet decoded, the last one's to IEND */
			uint64_t at = PNG_HEAD + done * (PNG_IDAT + PNG_CHUNK) + 8, tail = PNG_CHUNK + 4;
			bytes = f->size > at + tail ? f->size - at - tail : 0;
			ns += PNG_CPU_END;
		} else {
			for (uint64_t e; (e = PNG_HEAD + (done + 1) * (PNG_IDAT + PNG_CHUNK) - 4) <
					 f->size && e <= r->off + r->len;
			     done++)
				bytes += PNG_IDAT;
		}
		ns += bytes * PNG_CPU_IDAT_KIB / 1024;
		r->cpu = (uint32_t)TS_MIN(ns, (uint64_t)UINT32_MAX);
	}
}

static void png(struct out *o, const struct ts_chain_file *f)
{
	struct buf b = { .size = f->size };
	size_t first = o->n;
	py_open(o);
	buf_fill(o, &b, 0);
	/* IDAT k's data ends at PNG_HEAD + k chunks of PNG_IDAT + PNG_CHUNK, less its CRC */
	for (uint64_t k = 1;; k++) {
		uint64_t e = PNG_HEAD + k * (PNG_IDAT + PNG_CHUNK) - 4;
		if (e >= f->size)
			break;
		buf_want(o, &b, e);
	}
	buf_want(o, &b, f->size);
	py_close(o);
	png_cpu(o, f, first);
}

size_t ts_chain_build(enum ts_chain_fmt fmt, const struct ts_chain_file *f,
		      struct ts_chain_req *out, size_t cap)
{
	struct out o = { .r = out, .cap = cap };
	switch (fmt) {
	case TS_CHAIN_NPZ: npz(&o, f); break;
	case TS_CHAIN_HDF5: hdf5(&o, f, false); break;
	case TS_CHAIN_JPEG: jpeg(&o, f); break;
	case TS_CHAIN_PNG: png(&o, f); break;
	}
	return o.n;
}

size_t ts_chain_build_kept(enum ts_chain_fmt fmt, const struct ts_chain_file *f, bool held,
			   struct ts_chain_req *out, size_t cap)
{
	struct out o = { .r = out, .cap = cap };
	if (fmt != TS_CHAIN_HDF5)
		return held ? 0 : ts_chain_build(fmt, f, out, cap);
	if (held)
		h5_record(&o, f, H5_HELD_MISALIGN);
	else
		hdf5(&o, f, true);
	return o.n;
}

static const char *const fmt_names[] = {
	[TS_CHAIN_NPZ] = "npz", [TS_CHAIN_HDF5] = "hdf5", [TS_CHAIN_JPEG] = "jpeg", [TS_CHAIN_PNG] = "png"
};

int ts_chain_fmt_find(const char *name, enum ts_chain_fmt *fmt)
{
	for (size_t i = 0; i < TS_ARRAY_SIZE(fmt_names); i++)
		if (name && !strcmp(name, fmt_names[i])) {
			*fmt = (enum ts_chain_fmt)i;
			return 0;
		}
	return -EINVAL;
}

const char *ts_chain_op_name(enum ts_chain_op op)
{
	static const char *const n[] = { [TS_CHAIN_GETATTR] = "getattr", [TS_CHAIN_OPEN] = "open",
					 [TS_CHAIN_READ] = "read", [TS_CHAIN_FLUSH] = "flush",
					 [TS_CHAIN_CLOSE] = "close", [TS_CHAIN_WALK] = "walk" };
	return (unsigned)op < TS_ARRAY_SIZE(n) ? n[op] : "?";
}

int ts_chain_stat(const struct ts_chain_req *r, int fd, const char *path, bool walked,
		  uint64_t *size)
{
	struct stat st;
	if (r->seek_end && !walked) {
		off_t end = lseek(fd, 0, SEEK_END);
		if (end < 0)
			return -errno;
		*size = (uint64_t)end;
		return 0;
	}
	if (walked ? stat(path, &st) : fstat(fd, &st))
		return -errno;
	*size = (uint64_t)st.st_size;
	return 0;
}
