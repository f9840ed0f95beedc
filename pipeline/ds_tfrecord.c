/*
 * ds_tfrecord.c — the tfrecord kind: DLIO's TFRecord dataset (MLPerf
 * Storage resnet50, cosmoflow; v0.5 bert): each file num_samples_per_file
 * records, each a tf.train.Example {"image": the sample's bytes, "size":
 * their count} framed as TensorFlow's record writer frames it (length,
 * masked CRC-32C of the length, data, masked CRC-32C of the data;
 * dliofmt.h).
 *
 * Its reader, the loader source "tfrecord", reads as DLIO's TensorFlow
 * reader does (tf.data.TFRecordDataset with buffer_size = transfer_size):
 * a record is read where it lies in its file in transfer_size requests
 * (option transfer_size; 0 = one request), and its frame and both
 * CRC-32Cs are checked as TensorFlow's record reader checks them. Files of
 * many records are opened once, when the source opens (a TFRecordDataset
 * keeps its file open); a file of one record is opened per read, as a
 * folder of files is, and read in one request (the io_uring chain opens,
 * reads and closes it at once). The code is ds_dlio.c's.
 */
#include <stdio.h>
#include <string.h>

#include "pipeline/dataset.h"
#include "pipeline/dliofmt.h"
#include "pipeline/ds_dlio.h"
#include "pipeline/ds_kind.h"

static int tfr_emit(const struct ts_dataset_meta *meta, uint64_t f, struct ts_dlio_sink *s);

static const struct ts_dlio_fmt tfr_fmt = {
	.ext = "tfrecord",
	.stored = ts_tfr_record_size,
	.emit = tfr_emit,
	.storage = "TFRecord frames of tf.train.Example image+size",
	.records = true,
	.find = ts_tfr_check,
};

static int tfr_emit(const struct ts_dataset_meta *meta, uint64_t f, struct ts_dlio_sink *s)
{
	for (uint64_t k = 0; k < meta->per_file; k++) {
		uint64_t j = f * meta->per_file + k;
		uint64_t n = ts_dlio_payload_len(&tfr_fmt, meta, j);
		uint8_t head[64], tail[64], frame[TS_TFR_HEAD];
		size_t hl, tl;
		ts_tfr_example(n, head, &hl, tail, &tl);
		ts_tfr_head(frame, hl + n + tl);
		uint32_t c = ts_crc32c(0, head, hl);
		int rc;
		if ((rc = s->put(s, frame, sizeof(frame))) || (rc = s->put(s, head, hl)) ||
		    (rc = ts_dlio_payload(meta, j, n, s, NULL, &c)))
			return rc;
		c = ts_crc32c(c, tail, tl);
		uint8_t m[TS_TFR_TAIL];
		uint32_t v = ts_crc32c_mask(c);
		for (int b = 0; b < 4; b++)
			m[b] = (uint8_t)(v >> (8 * b));
		if ((rc = s->put(s, tail, tl)) || (rc = s->put(s, m, sizeof(m))))
			return rc;
	}
	return 0;
}

const struct ts_dataset_ops ts_dataset_tfrecord = {
	.name = "tfrecord",
	.version = TS_DATASET_OPS_VERSION,
	.caps = 0,
	.help = "DLIO TFRecord files of tf.train.Example: MLPerf Storage resnet50, cosmoflow, bert",
	.opts = ts_dlio_dataset_opts,
	.opts_size = sizeof(struct ts_dlio_dataset_opts),
	/* MLPerf Storage v1.0 resnet50: num_files_train 1024 (storage-conf/workload/resnet50_h100.yaml) */
	.full_count = 1024,
	.unit = "files",
	.source = &ts_source_tfrecord,
	.input = TS_DLIO_DIR,
	.data = &tfr_fmt,
	.describe = ts_dlio_describe,
	.generate = ts_dlio_generate,
	.verify = ts_dlio_verify,
	.storage = ts_dlio_storage,
};

const struct ts_source_ops ts_source_tfrecord = {
	.name = "tfrecord",
	.data = &ts_dataset_tfrecord,
	TS_DLIO_READER_HOOKS,
};
