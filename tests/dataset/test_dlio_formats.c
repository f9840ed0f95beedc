/*
 * test_dlio_formats.c — DLIO's on-disk formats (pipeline/dliofmt.h): the
 * CRCs against their published check values, the .npy header numpy
 * writes, an npz and a TFRecord made by the kinds parsed back field by
 * field, and a record whose data or length was altered refused by its CRC,
 * as TensorFlow's record reader refuses it; hdf5 and png files laid out as
 * h5py and Pillow lay them out. numpy itself reads the npz in
 * test_dlio_numpy.sh; h5py and Pillow compare the hdf5 and png files with
 * their own in test_dlio_libs.sh.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline/dataset.h"
#include "pipeline/dliofmt.h"
#include "tests/dataset/ds_config.h"
#include "tests/tcheck.h"
#include "tests/pipeline/tp.h"

static uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t rd64(const uint8_t *p)
{
	return rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

static uint32_t rd32be(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

int main(void)
{
	char root[] = "/tmp/ts-dliofmt-XXXXXX", dir[600], path[800], err[1024];
	if (!mkdtemp(root))
		return 1;

	/* "123456789": CRC-32 0xCBF43926, CRC-32C 0xE3069283 (the catalogue's check values) */
	CHECK_EQ_U64(ts_crc32(0, "123456789", 9), 0xCBF43926u);
	CHECK_EQ_U64(ts_crc32c(0, "123456789", 9), 0xE3069283u);
	/* continued in pieces: the same */
	CHECK_EQ_U64(ts_crc32c(ts_crc32c(0, "1234", 4), "56789", 5), 0xE3069283u);
	CHECK_EQ_U64(ts_crc32(ts_crc32(0, "12345678", 8), "9", 1), 0xCBF43926u);

	/* numpy.lib.format's v1.0 header for a 1-D uint8 array */
	char h[128];
	size_t hl = ts_npy_header(h, sizeof(h), "|u1", 146600628);
	CHECK(hl % 64 == 0 && hl == 128);
	CHECK(!memcmp(h, "\x93NUMPY\x01\x00", 8));
	CHECK_EQ_U64((uint8_t)h[8] | (uint8_t)h[9] << 8, hl - 10);
	CHECK(strstr(h + 10, "{'descr': '|u1', 'fortran_order': False, 'shape': (146600628,), }") ==
	      h + 10);
	CHECK(h[hl - 1] == '\n');

	/* ts_tfr_record_size, computed without writing, is what ts_tfr_example
	 * writes plus the frame, on both sides of every varint length step */
	for (uint64_t bits = 0; bits < 36; bits++)
		for (int64_t d = -2; d <= 2; d++) {
			uint64_t in = (1ULL << bits) + (uint64_t)d;
			if ((int64_t)(1ULL << bits) + d < 0)
				continue;
			uint8_t eh[64], et[64];
			size_t ehl, etl;
			ts_tfr_example(in, eh, &ehl, et, &etl);
			CHECK_EQ_U64(ts_tfr_record_size(in), TS_TFR_HEAD + ehl + in + etl + TS_TFR_TAIL);
		}

	/* an npz as the kind writes it */
	struct ts_dataset_config c = cfg_of(2, 3);
	cfg_set(&c, "record_length", "5000");
	cfg_set(&c, "record_stdev", "700");
	struct ts_dataset_stats st;
	snprintf(dir, sizeof(dir), "%s/npz", root);
	CHECK(ts_dataset_make(&ts_dataset_npz, &c, dir, &st, err, sizeof(err)) == 0);
	struct ts_dataset_meta m;
	CHECK(ts_dataset_open(dir, &m, err, sizeof(err)) == 0);
	CHECK_EQ_U64(m.samples, 2);
	CHECK(m.bytes[0] != m.bytes[1]); /* sizes spread by the stdev */
	snprintf(path, sizeof(path), "%s/%s", dir, m.files[1].path);
	size_t n = 0;
	uint8_t *b = tp_read_file(path, &n);
	CHECK(b && n == m.bytes[1]);
	uint64_t off = 0, len = 0;
	CHECK(b && ts_npz_find_x(b, n, &off, &len) == 0);
	CHECK_EQ_U64(n, ts_npz_size(len));
	if (b && off + len <= n) {
		/* the member's CRC covers its .npy header and data */
		CHECK_EQ_U64(rd32(b + 14), ts_crc32(0, b + TS_NPZ_MEMBER, off - TS_NPZ_MEMBER + len));
		/* the end of central directory names two entries */
		CHECK_EQ_U64(rd32(b + n - 22), 0x06054b50u);
		CHECK_EQ_U64(b[n - 22 + 10], 2);
		CHECK(ts_npz_find_x(b, off + len - 1, &off, &len) == TS_E_TRUNCATED);
		b[0] = 'X';
		CHECK(ts_npz_find_x(b, n, &off, &len) == TS_E_FORMAT);
	}
	free(b);
	ts_dataset_meta_free(&m);

	/* a TFRecord file of 4 records */
	c = cfg_of(1, 5);
	cfg_set(&c, "samples_per_file", "4");
	cfg_set(&c, "record_length", "3000");
	cfg_set(&c, "record_stdev", "100");
	snprintf(dir, sizeof(dir), "%s/tfr", root);
	CHECK(ts_dataset_make(&ts_dataset_tfrecord, &c, dir, &st, err, sizeof(err)) == 0);
	CHECK(ts_dataset_open(dir, &m, err, sizeof(err)) == 0);
	snprintf(path, sizeof(path), "%s/%s", dir, m.files[0].path);
	b = tp_read_file(path, &n);
	CHECK(b && n == m.files[0].bytes);
	size_t at = 0;
	for (unsigned k = 0; b && k < 4; k++) {
		uint64_t io, in;
		CHECK(ts_tfr_check(b + at, m.bytes[k], &io, &in) == 0);
		CHECK_EQ_U64(ts_tfr_record_size(in), m.bytes[k]);
		/* the frame: its length, then the data's masked CRC-32C at the end */
		uint64_t dl = rd32(b + at) | (uint64_t)rd32(b + at + 4) << 32;
		CHECK_EQ_U64(dl + 16, m.bytes[k]);
		CHECK_EQ_U64(rd32(b + at + 12 + dl), ts_crc32c_mask(ts_crc32c(0, b + at + 12, dl)));
		at += m.bytes[k];
	}
	CHECK_EQ_U64(at, n);
	if (b) {
		uint64_t io, in;
		b[200] ^= 1; /* a flipped bit in the image */
		CHECK(ts_tfr_check(b, m.bytes[0], &io, &in) == TS_E_CORRUPT);
		b[200] ^= 1;
		b[1] ^= 1; /* in the length */
		CHECK(ts_tfr_check(b, m.bytes[0], &io, &in) == TS_E_CORRUPT);
		b[1] ^= 1;
		CHECK(ts_tfr_check(b, m.bytes[0] - 1, &io, &in) == TS_E_TRUNCATED);
	}
	free(b);
	ts_dataset_meta_free(&m);

	/* no stdev: one size kept for all samples (no bytes[]), the records
	 * written back to back at that size, the source's extents at k x it */
	c = cfg_of(2, 5);
	cfg_set(&c, "samples_per_file", "4");
	cfg_set(&c, "record_length", "3000");
	snprintf(dir, sizeof(dir), "%s/tfr0", root);
	CHECK(ts_dataset_make(&ts_dataset_tfrecord, &c, dir, &st, err, sizeof(err)) == 0);
	CHECK(ts_dataset_open(dir, &m, err, sizeof(err)) == 0);
	CHECK(!m.bytes && m.fixed_bytes == ts_tfr_record_size(3000));
	CHECK_EQ_U64(m.sample_bytes, 8 * ts_tfr_record_size(3000));
	CHECK_EQ_U64(ts_dataset_sample_len(&m, 7), ts_tfr_record_size(3000));
	snprintf(path, sizeof(path), "%s/%s", dir, m.files[1].path);
	b = tp_read_file(path, &n);
	CHECK(b && n == m.files[1].bytes && n == 4 * m.fixed_bytes);
	for (unsigned k = 0; b && k < 4; k++) {
		uint64_t io, in;
		CHECK(ts_tfr_check(b + k * m.fixed_bytes, m.fixed_bytes, &io, &in) == 0);
		CHECK_EQ_U64(in, 3000);
	}
	free(b);
	CHECK(ts_dataset_verify(dir, err, sizeof(err)) == 0);
	ts_dataset_meta_free(&m);

	/* jpeg: one greyscale image a file, each side drawn apart around the
	 * record length's square root (100, sd 2000 / 2 / 100 = 10), the file
	 * exactly what the encoder made (SOI, JFIF, ... EOI), the same bytes
	 * again from the same seed */
	c = cfg_of(3, 9);
	cfg_set(&c, "record_length", "10000");
	cfg_set(&c, "record_stdev", "2000");
	snprintf(dir, sizeof(dir), "%s/jpg", root);
	CHECK(ts_dataset_make(&ts_dataset_jpeg, &c, dir, &st, err, sizeof(err)) == 0);
	CHECK(ts_dataset_open(dir, &m, err, sizeof(err)) == 0);
	CHECK_EQ_U64(m.samples, 3);
	for (unsigned k = 0; k < 3; k++) {
		CHECK(m.width && m.width[k] >= 60 && m.width[k] <= 140 && m.height[k] >= 60 &&
		      m.height[k] <= 140);
		snprintf(path, sizeof(path), "%s/%s", dir, m.files[k].path);
		b = tp_read_file(path, &n);
		CHECK(b && n == m.bytes[k] && n == m.files[k].bytes);
		CHECK(b && n > 600 && b[0] == 0xFF && b[1] == 0xD8 && !memcmp(b + 6, "JFIF", 5) &&
		      b[n - 2] == 0xFF && b[n - 1] == 0xD9);
		/* the frame's side (SOF0: height, width at its +5, +7) */
		for (size_t i = 2; b && i + 9 < n; i++)
			if (b[i] == 0xFF && b[i + 1] == 0xC0) {
				CHECK_EQ_U64((uint64_t)(b[i + 5] << 8 | b[i + 6]), m.height[k]);
				CHECK_EQ_U64((uint64_t)(b[i + 7] << 8 | b[i + 8]), m.width[k]);
				CHECK_EQ_U64(b[i + 9], 1); /* one component: greyscale */
				break;
			}
		free(b);
	}
	CHECK(ts_dataset_verify(dir, err, sizeof(err)) == 0);
	ts_dataset_meta_free(&m);

	/* jpeg sides as DLIO's generator draws them (data_generator.py
	 * get_dimension): each apart from N(int(sqrt(record_length)),
	 * record_length_stdev / (2 sqrt(record_length))), here N(338, 29.53);
	 * over 400 files the means within 3 standard errors (4.43), each
	 * side's spread within 15% of 29.53, the two uncorrelated (|r| under
	 * 3 / sqrt(400)) and nearly every image not square */
	c = cfg_of(400, 5);
	cfg_set(&c, "record_length", "114660");
	cfg_set(&c, "record_stdev", "20000");
	CHECK(ts_dataset_meta_describe(&ts_dataset_jpeg, &c, &m, err, sizeof(err)) == 0);
	{
		double sw = 0, sh = 0, sww = 0, shh = 0, swh = 0, sq = 0, nn = (double)m.samples;
		for (uint64_t k = 0; k < m.samples; k++) {
			double x = m.width[k], y = m.height[k];
			sw += x, sh += y, sww += x * x, shh += y * y, swh += x * y;
			sq += x == y;
		}
		double mw = sw / nn, mh = sh / nn, vw = sww / nn - mw * mw, vh = shh / nn - mh * mh;
		double r = (swh / nn - mw * mh) / sqrt(vw * vh), sd = 20000.0 / 2 / sqrt(114660.0);
		CHECK_EQ_U64(m.samples, 400);
		CHECK(fabs(mw - 338) < 4.43 && fabs(mh - 338) < 4.43);
		CHECK(fabs(sqrt(vw) / sd - 1) < 0.15 && fabs(sqrt(vh) / sd - 1) < 0.15);
		CHECK(fabs(r) < 0.15);
		CHECK(sq < 0.05 * nn);
	}
	ts_dataset_meta_free(&m);
	/* no stdev: every image square, of side int(sqrt(114660)) = 338 */
	c = cfg_of(4, 5);
	cfg_set(&c, "record_length", "114660");
	CHECK(ts_dataset_meta_describe(&ts_dataset_jpeg, &c, &m, err, sizeof(err)) == 0);
	for (uint64_t k = 0; k < m.samples; k++)
		CHECK(m.width[k] == 338 && m.height[k] == 338);
	ts_dataset_meta_free(&m);

	/* hdf5: h5py's layout of one record (ds_hdf5.c): the record's pixels
	 * at 2048, the label after them to the end, and the fields that
	 * follow the shape: end of file, dims and their maxima, the records'
	 * address and bytes, the label's address */
	c = cfg_of(3, 9);
	cfg_set(&c, "record_length", "10000");
	cfg_set(&c, "record_stdev", "2000");
	snprintf(dir, sizeof(dir), "%s/h5", root);
	CHECK(ts_dataset_make(&ts_dataset_hdf5, &c, dir, &st, err, sizeof(err)) == 0);
	CHECK(ts_dataset_open(dir, &m, err, sizeof(err)) == 0);
	for (unsigned k = 0; k < 3; k++) {
		uint64_t w = m.width[k], hh = m.height[k], px = w * hh;
		snprintf(path, sizeof(path), "%s/%s", dir, m.files[k].path);
		b = tp_read_file(path, &n);
		CHECK(b && n == TS_HDF5_DATA + px + TS_HDF5_LABEL && n == m.files[k].bytes);
		if (!b || n != TS_HDF5_DATA + px + TS_HDF5_LABEL)
			continue;
		CHECK(!memcmp(b, "\x89HDF\r\n\x1a\n", 8));
		CHECK_EQ_U64(rd64(b + 40), n);
		const uint64_t dims[] = { 1, w, hh, 1, w, hh };
		for (unsigned d = 0; d < 6; d++)
			CHECK_EQ_U64(rd64(b + 832 + 8 * d), dims[d]);
		CHECK_EQ_U64(rd64(b + 930), TS_HDF5_DATA);
		CHECK_EQ_U64(rd64(b + 938), px);
		CHECK_EQ_U64(rd64(b + 1498), TS_HDF5_DATA + px);
		CHECK_EQ_U64(rd64(b + n - TS_HDF5_LABEL), 0);
		/* DLIO's pixels, 0-254 */
		unsigned top = 0;
		for (uint64_t i = 0; i < px; i++)
			top = b[TS_HDF5_DATA + i] > top ? b[TS_HDF5_DATA + i] : top;
		CHECK_EQ_U64(top, 254);
		free(b);
	}
	CHECK(ts_dataset_verify(dir, err, sizeof(err)) == 0);
	ts_dataset_meta_free(&m);

	/* png: the signature, IHDR with the description's sides (depth 8,
	 * greyscale), IDAT chunks of at most 64 KiB, each CRC right, IEND */
	c = cfg_of(2, 9);
	cfg_set(&c, "record_length", "200000");
	cfg_set(&c, "record_stdev", "40000");
	snprintf(dir, sizeof(dir), "%s/png", root);
	CHECK(ts_dataset_make(&ts_dataset_png, &c, dir, &st, err, sizeof(err)) == 0);
	CHECK(ts_dataset_open(dir, &m, err, sizeof(err)) == 0);
	for (unsigned k = 0; k < 2; k++) {
		snprintf(path, sizeof(path), "%s/%s", dir, m.files[k].path);
		b = tp_read_file(path, &n);
		CHECK(b && n == m.files[k].bytes && n > 33 + 12);
		if (!b || n <= 33 + 12)
			continue;
		CHECK(!memcmp(b, "\x89PNG\r\n\x1a\n", 8) && !memcmp(b + 12, "IHDR", 4));
		CHECK_EQ_U64(rd32be(b + 16), m.width[k]);
		CHECK_EQ_U64(rd32be(b + 20), m.height[k]);
		CHECK(b[24] == 8 && b[25] == 0);
		size_t ck = 8, idats = 0;
		while (ck + 12 <= n) {
			uint32_t cl = rd32be(b + ck);
			CHECK(ck + 12 + cl <= n);
			if (ck + 12 + cl > n)
				break;
			CHECK_EQ_U64(rd32be(b + ck + 8 + cl), ts_crc32(0, b + ck + 4, 4 + cl));
			if (!memcmp(b + ck + 4, "IDAT", 4)) {
				CHECK(cl <= 65536);
				idats++;
			}
			ck += 12 + cl;
		}
		CHECK(ck == n && idats >= 2 && !memcmp(b + n - 8, "IEND", 4));
		free(b);
	}
	CHECK(ts_dataset_verify(dir, err, sizeof(err)) == 0);
	ts_dataset_meta_free(&m);
	/* wider than 16,384 pixels: Pillow's IDAT chunks would not be 64 KiB */
	c = cfg_of(1, 9);
	cfg_set(&c, "record_length", "300000000");
	CHECK(ts_dataset_meta_describe(&ts_dataset_png, &c, &m, err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "17320 x 17320") && strstr(err, "16384 pixels a side"));
	ts_dataset_meta_free(&m);

	/* hdf5 files of 3 records: one size a file, record k at 2048 + k
	 * records, the 3 labels after them */
	c = cfg_of(2, 9);
	cfg_set(&c, "record_length", "10000");
	cfg_set(&c, "record_stdev", "2000");
	cfg_set(&c, "samples_per_file", "3");
	snprintf(dir, sizeof(dir), "%s/h5x3", root);
	CHECK(ts_dataset_make(&ts_dataset_hdf5, &c, dir, &st, err, sizeof(err)) == 0);
	CHECK(ts_dataset_open(dir, &m, err, sizeof(err)) == 0);
	CHECK(m.samples == 6 && m.per_file == 3);
	for (unsigned k = 0; k < 6 && m.samples == 6; k++) {
		uint64_t px = (uint64_t)m.width[k] * m.height[k];
		CHECK(m.width[k] == m.width[k / 3 * 3] && m.height[k] == m.height[k / 3 * 3]);
		CHECK_EQ_U64(m.bytes[k], px);
		CHECK_EQ_U64(m.files[k / 3].bytes, TS_HDF5_DATA + 3 * (px + TS_HDF5_LABEL));
	}
	snprintf(path, sizeof(path), "%s/%s", dir, m.files[1].path);
	b = tp_read_file(path, &n);
	CHECK(b && n == m.files[1].bytes);
	if (b && n == m.files[1].bytes) {
		uint64_t px = m.bytes[3];
		CHECK_EQ_U64(rd64(b + 832), 3);
		CHECK_EQ_U64(rd64(b + 938), 3 * px);
		CHECK_EQ_U64(rd64(b + 1432), 3);
		CHECK_EQ_U64(rd64(b + 1498), TS_HDF5_DATA + 3 * px);
		CHECK_EQ_U64(rd64(b + 1506), 3 * TS_HDF5_LABEL);
		/* the header checked as a reader reads it: h5py's eight metadata
		 * reads (pipeline/dliochain.c) and a record, which it does not
		 * cover, pass; a byte of the shape or of the signature changed,
		 * or another shape expected, is found where it differs */
		static const uint64_t rd[][2] = { { 0, 8 },	  { 0, 16 },   { 16, 80 },
						  { 96, 512 },	  { 680, 512 }, { 136, 544 },
						  { 1072, 328 }, { 800, 512 }, { 2048, 4096 } };
		uint64_t where = 0, w = m.width[3], hh = m.height[3];
		for (size_t r = 0; r < TS_ARRAY_SIZE(rd); r++)
			CHECK(ts_hdf5_head_check(b + rd[r][0], rd[r][0], rd[r][1], 3, w, hh, &where) == 0);
		CHECK(ts_hdf5_head_check(b, 0, n, 3, w, hh, &where) == 0);
		CHECK(ts_hdf5_head_check(b + 800, 800, 512, 3, w + 1, hh, &where) == TS_E_FORMAT);
		CHECK_EQ_U64(where, 840);
		CHECK(ts_hdf5_head_check(b + 800, 800, 512, 2, w, hh, &where) == TS_E_FORMAT);
		CHECK_EQ_U64(where, 832);
		b[836] ^= 1;
		CHECK(ts_hdf5_head_check(b + 800, 800, 512, 3, w, hh, &where) == TS_E_FORMAT);
		CHECK_EQ_U64(where, 836);
		b[3] = 'X';
		CHECK(ts_hdf5_head_check(b, 0, 8, 3, w, hh, &where) == TS_E_FORMAT);
		CHECK_EQ_U64(where, 3);
		/* a read cut short is checked as far as it came */
		CHECK(ts_hdf5_head_check(b, 0, 3, 3, w, hh, &where) == 0);
	}
	free(b);
	CHECK(ts_dataset_verify(dir, err, sizeof(err)) == 0);
	ts_dataset_meta_free(&m);

	/* npz and png store one sample per file */
	c = cfg_of(2, 1);
	cfg_set(&c, "samples_per_file", "3");
	CHECK(ts_dataset_meta_describe(&ts_dataset_npz, &c, &m, err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "samples_per_file") != NULL);
	CHECK(ts_dataset_meta_describe(&ts_dataset_png, &c, &m, err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "samples_per_file") != NULL);
	tp_rmrf(root);
	return tc_exit();
}
