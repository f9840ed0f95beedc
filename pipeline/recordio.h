/*
 * recordio.h — MXNet's packed record file: a .rec of framed records and a
 * text .idx of "key\toffset\n" lines, as dmlc-core's RecordIOWriter and
 * MXNet's MXIndexedRecordIO / tools/im2rec.py write them.
 *
 * A record on disk (dmlc-core include/dmlc/recordio.h):
 *
 *   uint32 magic = 0xced7230a      little-endian, as written on x86
 *   uint32 lrecord = cflag << 29 | length
 *   length bytes of payload, then zero padding to a multiple of 4
 *
 * cflag 0 is a whole record. A payload that contains the magic word at a
 * 4-byte aligned offset is split there, the magic itself dropped: parts
 * carry cflag 1 (first), 2 (middle), 3 (last), and a reader puts the magic
 * back between them. Lengths of the leading parts are multiples of 4, so
 * only the last part is padded.
 *
 * The payload im2rec packs (python/mxnet/recordio.py, pack/unpack, struct
 * format 'IfQQ'): a 24-byte IRHeader {uint32 flag, float label, uint64 id,
 * uint64 id2} and then the encoded image. flag > 0 means flag float labels
 * follow the header instead of the scalar label (multi-label; not written
 * here but read).
 *
 * The .idx is text: for each record "key\toffset\n", offset the byte
 * position of the record's first magic in the .rec (MXIndexedRecordIO
 * write_idx). im2rec uses the image index as the key.
 */
#ifndef TS_RECORDIO_H
#define TS_RECORDIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "core/ts.h"

#define TS_REC_MAGIC 0xced7230aU
#define TS_REC_MAX_LEN ((1U << 29) - 1) /* length field is 29 bits */
#define TS_REC_IRHEADER_SIZE 24

enum { TS_REC_WHOLE = 0, TS_REC_FIRST = 1, TS_REC_MIDDLE = 2, TS_REC_LAST = 3 };

struct ts_rec_irheader {
	uint32_t flag;	/* 0: scalar label; n > 0: n float labels follow */
	float label;
	uint64_t id;	/* im2rec: the image's index in the list */
	uint64_t id2;	/* im2rec: 0 */
};

/* Writes/reads the 24-byte header (little-endian, no padding). */
void ts_rec_irheader_pack(const struct ts_rec_irheader *h, uint8_t out[TS_REC_IRHEADER_SIZE]);
/* Returns 0 or TS_E_TRUNCATED if @len < 24 (or the flag labels do not fit);
 * *@img_off is where the image starts in the payload. */
TS_WUR int ts_rec_irheader_unpack(struct ts_rec_irheader *h, const uint8_t *payload, size_t len,
				  size_t *img_off);

/* On-disk bytes of a record holding @len payload bytes (no magic inside). */
static inline size_t ts_rec_frame_size(size_t len)
{
	return 8 + ((len + 3) & ~(size_t)3);
}

/* Aligned magic words inside @payload: each one adds 4 bytes on disk. */
size_t ts_rec_magic_count(const uint8_t *payload, size_t len);

/* Exact on-disk bytes for @payload: ts_rec_frame_size + 4 per magic. */
size_t ts_rec_encoded_size(const uint8_t *payload, size_t len);

/* Frames @payload into @out; returns the bytes written (== encoded_size),
 * -ENOSPC if @cap is short, -EMSGSIZE above TS_REC_MAX_LEN. */
TS_WUR ssize_t ts_rec_encode(const uint8_t *payload, size_t len, uint8_t *out, size_t cap);

/*
 * Reassembles the record starting at @frame (@avail bytes readable there)
 * into @out (which may be @frame itself: the payload never outruns the
 * frame). Returns the payload length and sets *@used to the frame bytes
 * consumed, padding included (the next record starts there). Errors:
 * TS_E_FORMAT (no magic where a record should start, or a part out of
 * order), TS_E_TRUNCATED (the record runs past @avail), -ENOSPC.
 */
TS_WUR ssize_t ts_rec_decode(const uint8_t *frame, size_t avail, uint8_t *out, size_t cap,
			     size_t *used);

/* Writer of a .rec + .idx pair. */
struct ts_rec_writer {
	FILE *rec, *idx;
	uint64_t offset;	/* bytes written to the .rec */
	uint64_t count;		/* records written */
	uint8_t *buf;		/* framing scratch */
	size_t cap;
};

/* Creates (truncates) @rec_path and @idx_path. */
TS_WUR int ts_rec_writer_open(struct ts_rec_writer *w, const char *rec_path,
			      const char *idx_path);
/* Appends one record and its "key\toffset" line. */
TS_WUR int ts_rec_writer_add(struct ts_rec_writer *w, uint64_t key, const uint8_t *payload,
			     size_t len);
/* Flushes and closes both files; returns the first error met. Safe to call
 * on a writer whose open failed. */
TS_WUR int ts_rec_writer_close(struct ts_rec_writer *w);

/* A loaded .idx, in file order, with each record's extent in the .rec. */
struct ts_rec_index {
	size_t count;
	uint64_t *key;
	uint64_t *offset;
	uint64_t *length;	/* bytes up to the next record's offset (or EOF) */
};

/*
 * Reads @idx_path; @rec_size is the .rec's size (the last record ends there).
 * Offsets must be increasing and inside the file. Errors name nothing; a
 * message with the line is written to @err when it is not NULL:
 * TS_E_PARSE (malformed line), TS_E_FORMAT (offsets out of order or past
 * @rec_size), -errno from the file.
 */
TS_WUR int ts_rec_index_load(struct ts_rec_index *ix, const char *idx_path, uint64_t rec_size,
			     char *err, size_t errlen);
void ts_rec_index_free(struct ts_rec_index *ix);

#endif
