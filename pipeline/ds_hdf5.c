/*
 * ds_hdf5.c — the hdf5 kind: DLIO's HDF5 dataset, num_samples_per_file
 * records a file as DLIO 2.0.0's generator writes it (data_generator/hdf5_generator.py:
 * h5py.File(f, 'w'), create_dataset('records', (num_samples_per_file,
 * dim1, dim2), dtype=uint8) with no chunking and no compression, the
 * records written, then create_dataset('labels', data=[0] * samples)),
 * byte for byte as h5py 3.7 over HDF5 1.10.8 writes such a file with its
 * defaults (libver 'earliest', no times tracked):
 *
 *   0     superblock, version 0 (end-of-file address at 40)
 *   96    the root group's object header (v1): its symbol table message
 *   136   the root group's B-tree ("TREE", v1, one leaf)
 *   680   its local heap ("HEAP"), the names "records" and "labels" at 720
 *   800   records' object header: dataspace (n, dim1, dim2) at 832 (its
 *         maximum the same at 856), datatype u8, fill value, layout:
 *         contiguous at 2048 (address at 930, bytes at 938)
 *   1072  the symbol table node ("SNOD") naming both
 *   1392  labels' object header: dataspace (n) at 1432 (maximum at 1440),
 *         datatype little-endian i64, layout: contiguous right after the
 *         records (address at 1498, bytes at 1506)
 *   2048  the n records: dim1 x dim2 pixels each
 *   then  the n labels, each an i64 0
 *
 * The metadata block is HDF5's first metadata aggregator (2,048 bytes,
 * written by ts_hdf5_head() in dliofmt.c, which also checks it on read);
 * everything in it but the fields named above is the same in every such
 * file (checked over shapes 1 x 1 to 70,000 x 3 and 3 samples a file).
 * tests/dataset/test_dlio_libs.sh compares a file with h5py's own for
 * the same shape and reads it with h5py.
 *
 * Images: DLIO's hdf5 records are images of its random pixels, their
 * sides drawn as the image kinds draw them (ds_dlio.c), once a file (all
 * of a file's records share them, as DLIO's dataset shape does): dim1 the
 * first draw, dim2 the second. Each record is its own sample's pixels
 * (DLIO's generator repeats one buffer of generation_buffer_size bytes;
 * the bytes do not change what is read).
 *
 * Its reader, the loader source "hdf5", reads each record where it lies
 * (2048 + k x dim1 x dim2). DLIO's HDF5Reader
 * (h5py.File(f, 'r')['records'][i]) and the requests it makes are
 * pipeline/dliochain.h's, which DLIO's PyTorch loader here issues
 * (workloads/dlio_loader.h).
 */
#include <errno.h>
#include <string.h>

#include "pipeline/dataset.h"
#include "pipeline/dliofmt.h"
#include "pipeline/ds_dlio.h"
#include "pipeline/ds_kind.h"

static uint64_t hdf5_stored(uint64_t n)
{
	return n;
}

/* File @f's bytes; *@sample: a record's. */
static uint64_t hdf5_bytes(const struct ts_dataset_meta *meta, uint64_t f, uint64_t *sample)
{
	uint64_t n = meta->per_file, j = f * n;
	*sample = (uint64_t)meta->width[j] * meta->height[j];
	return TS_HDF5_DATA + n * (*sample + TS_HDF5_LABEL);
}

/* Record k of its file at 2048 + k records. */
static uint64_t hdf5_sample_off(const struct ts_dataset_meta *meta, uint64_t j)
{
	return TS_HDF5_DATA + j % meta->per_file * (uint64_t)meta->width[j] * meta->height[j];
}

static int hdf5_emit(const struct ts_dataset_meta *meta, uint64_t f, struct ts_dlio_sink *s)
{
	uint64_t n = meta->per_file, j = f * n;
	uint8_t head[TS_HDF5_DATA], label[TS_HDF5_LABEL] = {0};
	ts_hdf5_head(head, n, meta->width[j], meta->height[j]);
	int rc = s->put(s, head, sizeof(head));
	for (uint64_t k = 0; !rc && k < n; k++)
		rc = ts_dlio_pixels(meta, j + k, s);
	for (uint64_t k = 0; !rc && k < n; k++)
		rc = s->put(s, label, sizeof(label));
	return rc;
}

/* A record read where it lies is all pixels: nothing to unwrap. */
static int hdf5_find(const uint8_t *buf, size_t len, uint64_t *off, uint64_t *n)
{
	(void)buf;
	if (!len)
		return TS_E_TRUNCATED;
	*off = 0;
	*n = len;
	return 0;
}

static const struct ts_dlio_fmt hdf5_fmt = {
	.ext = "hdf5",
	.stored = hdf5_stored,
	.emit = hdf5_emit,
	.storage = "h5py file: contiguous uint8 'records' (n, dim1, dim2) and i64 'labels'",
	.max_per_file = 0,
	.records = false,
	.find = hdf5_find,
	.side_max = 65535,
	.side_why = "the sides a dataset's description holds",
	.image_bytes = hdf5_bytes,
	.sample_off = hdf5_sample_off,
};

const struct ts_dataset_ops ts_dataset_hdf5 = {
	.name = "hdf5",
	.version = TS_DATASET_OPS_VERSION,
	.caps = 0,
	.help = "DLIO HDF5 files (h5py), one record of random pixels each",
	.opts = ts_dlio_dataset_opts,
	.opts_size = sizeof(struct ts_dlio_dataset_opts),
	/* DLIO's default num_files_train (utils/config.py ConfigArguments) */
	.full_count = 8,
	.unit = "files",
	.source = &ts_source_hdf5,
	.input = TS_DLIO_DIR,
	.data = &hdf5_fmt,
	.describe = ts_dlio_image_describe,
	.generate = ts_dlio_generate,
	.verify = ts_dlio_verify,
	.storage = ts_dlio_storage,
};

const struct ts_source_ops ts_source_hdf5 = {
	.name = "hdf5",
	.data = &ts_dataset_hdf5,
	TS_DLIO_READER_HOOKS,
};
