/*
 * dliofmt.h — on-disk formats of DLIO's datasets (the MLPerf
 * Storage workloads), written and read byte for byte as their libraries do:
 *
 *  - npz: numpy.savez(path, x=..., y=...): a zip archive whose members are
 *    stored (not deflated) .npy files: "x.npy" (the sample's bytes, dtype
 *    |u1) and "y.npy" (its label, <i8). numpy's .npy v1.0: "\x93NUMPY",
 *    1, 0, a little-endian u16 header length, then a Python dict literal
 *    padded with spaces and ended by '\n' so that the data starts at a
 *    multiple of 64 bytes. Zip: PKWARE APPNOTE local file header (30 bytes
 *    + name + a 20-byte zip64 extra field holding both sizes: np.savez
 *    opens each member with force_zip64=True), central directory header
 *    (46 + name, no extra, made by Unix 2.0, external attributes 0600 <<
 *    16 as Python's zipfile sets them), end of central directory (22);
 *    CRC-32 of each member (ISO-HDLC, as zlib's crc32). Samples stay under
 *    2 GiB (ds_dlio.c), so the headers' own 32-bit sizes hold them too.
 *  - TFRecord (tensorflow/core/lib/io/record_writer.cc): per record a
 *    little-endian u64 length, the masked CRC-32C of those 8 bytes, the
 *    data, the masked CRC-32C of the data; masked(c) = ((c >> 15) |
 *    (c << 17)) + 0xa282ead8. DLIO's TF generator writes each record as a
 *    tf.train.Example with features "image" (bytes) and "size" (int64).
 */
#ifndef TS_PIPE_DLIOFMT_H
#define TS_PIPE_DLIOFMT_H

#include <stddef.h>
#include <stdint.h>

#include "core/ts.h"

/* CRC-32 (zip, zlib) and CRC-32C (Castagnoli, TFRecord), continued from
 * @crc (0 to start). */
uint32_t ts_crc32(uint32_t crc, const void *buf, size_t n);
uint32_t ts_crc32c(uint32_t crc, const void *buf, size_t n);
static inline uint32_t ts_crc32c_mask(uint32_t c)
{
	return ((c >> 15) | (c << 17)) + 0xa282ead8u;
}

/* ---- npz ---------------------------------------------------------------- */

#define TS_NPZ_LFH 30u	/* local file header, without the name or extra */
#define TS_NPZ_ZIP64 20u /* its extra field: numpy opens members force_zip64 */
#define TS_NPZ_CDH 46u	/* central directory header, without the name */
#define TS_NPZ_EOCD 22u
#define TS_NPZ_NAME 5u	/* "x.npy", "y.npy" */
#define TS_NPZ_LABEL 8u /* y: one <i8 */
/* Where the x member's .npy starts: after x's local header. */
#define TS_NPZ_MEMBER (TS_NPZ_LFH + TS_NPZ_NAME + TS_NPZ_ZIP64)

/* The .npy header (magic to '\n') of a 1-D array of @n elements of numpy
 * dtype @descr ("|u1", "<i8") into @out (>= 128 bytes); its length. */
size_t ts_npy_header(char *out, size_t cap, const char *descr, uint64_t n);
/* Bytes of an npz of @n sample bytes (x) and one label (y). */
uint64_t ts_npz_size(uint64_t n);
/* Where x's data starts in an npz of @file_bytes (one ts_npz_size made)
 * and how many bytes it has. */
void ts_npz_payload(uint64_t file_bytes, uint64_t *data_off, uint64_t *n);
/* Where x's data lies in an npz read whole: 0 with *off and *len_out, or
 * TS_E_FORMAT / TS_E_TRUNCATED. */
TS_WUR int ts_npz_find_x(const uint8_t *buf, size_t len, uint64_t *off, uint64_t *len_out);

/* Zip headers, little-endian, into @p; each returns the bytes written. */
size_t ts_zip_local(uint8_t *p, const char *name, uint32_t crc, uint32_t size);
size_t ts_zip_central(uint8_t *p, const char *name, uint32_t crc, uint32_t size, uint32_t at);
size_t ts_zip_end(uint8_t *p, unsigned entries, uint32_t cd_size, uint32_t cd_at);

/* ---- hdf5 ---------------------------------------------------------------- */

/* An h5py file of DLIO's records (pipeline/ds_hdf5.c): the records start
 * after HDF5's 2,048-byte metadata block, one after the other, and their
 * labels (an i64 each) follow them to the end. */
#define TS_HDF5_DATA 2048u
#define TS_HDF5_LABEL 8u

/* The metadata block (TS_HDF5_DATA bytes) of such a file of @n records of
 * dim1 x dim2 pixels, as h5py 3.7 over HDF5 1.10 writes it (the layout is
 * in ds_hdf5.c). */
void ts_hdf5_head(uint8_t out[TS_HDF5_DATA], uint64_t n, uint64_t dim1, uint64_t dim2);
/* The @len bytes read at @off of a file the dataset describes as @n records
 * of dim1 x dim2, checked against that block where they overlap it (h5py
 * checks the superblock's signature, the object headers and the shape as it
 * opens the file): 0, or TS_E_FORMAT with *@at the first byte that
 * differs. */
TS_WUR int ts_hdf5_head_check(const uint8_t *buf, uint64_t off, size_t len, uint64_t n,
			      uint64_t dim1, uint64_t dim2, uint64_t *at);

/* ---- TFRecord ------------------------------------------------------------ */

#define TS_TFR_HEAD 12u /* length + its CRC */
#define TS_TFR_TAIL 4u	/* the data's CRC */

/* A tf.train.Example {"image": bytes of @n, "size": int64 n} is
 * head + the n image bytes + tail: both written here (each < 64 bytes). */
void ts_tfr_example(uint64_t n, uint8_t *head, size_t *head_len, uint8_t *tail,
		    size_t *tail_len);
/* Bytes of the record framing an Example of @n image bytes. */
uint64_t ts_tfr_record_size(uint64_t n);
/* The record's 12-byte head for @len data bytes. */
void ts_tfr_head(uint8_t out[TS_TFR_HEAD], uint64_t len);
/* Checks a record read whole (frame and both CRCs) and finds the image in
 * it: 0 with *off and *n, TS_E_CORRUPT (a CRC), TS_E_FORMAT, TS_E_TRUNCATED. */
TS_WUR int ts_tfr_check(const uint8_t *buf, size_t len, uint64_t *off, uint64_t *n);

#endif
