/*
 * ds_dlio.h — what the two DLIO dataset kinds (ds_npz.c, ds_tfrecord.c)
 * share: DLIO's dataset section (num_files_train files of
 * num_samples_per_file samples of record_length ± record_length_stdev
 * bytes) planned, generated and verified the same way, each kind saying
 * only how a file's bytes are laid out (its struct ts_dlio_fmt, the
 * kind's ops data): the hooks below are the kinds' own, taking the format
 * from meta->kind. Nothing outside pipeline/ds_*.c
 * and source_dlio.c includes it.
 */
#ifndef TS_DS_DLIO_H
#define TS_DS_DLIO_H

#include <stddef.h>
#include <stdint.h>

#include "pipeline/dataset.h"

/* Where a file's bytes go as they are made: written, or compared. */
struct ts_dlio_sink {
	int (*put)(struct ts_dlio_sink *s, const void *buf, size_t n);
};

struct ts_dlio_fmt {
	const char *ext; /* file name extension: "npz", "tfrecord" */
	/* Bytes a sample of @payload bytes occupies (what a read of it covers). */
	uint64_t (*stored)(uint64_t payload);
	/* Emits file @f of @meta into @s, sample payloads from ts_dlio_payload. */
	int (*emit)(const struct ts_dataset_meta *meta, uint64_t f, struct ts_dlio_sink *s);
	const char *storage; /* how samples are stored, for `tiersim dataset info` */
};

/* record_length when none is given: DLIO's default (64 KiB, its
 * ConfigArguments.record_length). */
#define TS_DLIO_RECORD_LENGTH 65536u

/* The folder every file lies in (DLIO's data_folder/train). */
#define TS_DLIO_DIR "train"

/* The plan, generate, verify and storage hooks of struct ts_dataset_ops. */
TS_WUR int ts_dlio_plan(const struct ts_dataset_config *cfg, struct ts_dataset_meta *meta,
			char *err, size_t errlen);
TS_WUR int ts_dlio_generate(const struct ts_dataset_meta *meta, const struct ts_dataset_config *cfg,
			    const char *dir, struct ts_dataset_stats *st, char *err, size_t errlen);
TS_WUR int ts_dlio_verify(const struct ts_dataset_meta *meta, const char *dir, char *err,
			  size_t errlen);
void ts_dlio_storage(const struct ts_dataset_meta *meta, char *out, size_t n);
/* "train/img_007_of_168.npz", DLIO's name: the index zero-padded to the
 * digits of the file count. */
void ts_dlio_file_name(const struct ts_dataset_meta *meta, const char *ext, uint64_t f,
		       char *out, size_t n);
/* Payload bytes of sample @j (from its stored size). */
uint64_t ts_dlio_payload_len(const struct ts_dlio_fmt *fmt, const struct ts_dataset_meta *meta,
			     uint64_t j);
/* Emits the @n payload bytes of sample @j into @s, and adds them to a
 * running CRC when @crc32 / @crc32c are not NULL. */
TS_WUR int ts_dlio_payload(const struct ts_dataset_meta *meta, uint64_t j, uint64_t n,
			   struct ts_dlio_sink *s, uint32_t *crc32, uint32_t *crc32c);

#endif
