/*
 * datum.h — Caffe's Datum message, the value convert_imageset stores under
 * each LMDB key, encoded and decoded by hand (it is a tiny protobuf message
 * and a protobuf runtime would be the largest dependency of the project).
 *
 * The message (BVLC/caffe src/caffe/proto/caffe.proto):
 *
 *   message Datum {
 *     optional int32 channels = 1;
 *     optional int32 height = 2;
 *     optional int32 width = 3;
 *     optional bytes data = 4;        // uint8 pixels, C x H x W, BGR order
 *     optional int32 label = 5;
 *     repeated float float_data = 6;  // unused by convert_imageset
 *     optional bool encoded = 7 [default = false];  // data is a JPEG/PNG file
 *   }
 *
 * Wire layout written here is byte-for-byte what protobuf's proto2 serializer
 * writes for the fields convert_imageset sets, in field-number order:
 *   raw:     channels, height, width, data, label, encoded=false
 *            (CVMatToDatum sets all of them, then ReadImageToDatum the label)
 *   encoded: data, label, encoded=true (ReadFileToDatum / the imencode path)
 * The decoder accepts any field order, packed or unpacked float_data, and
 * skips unknown fields, as protobuf does.
 */
#ifndef TS_DATUM_H
#define TS_DATUM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/ts.h"

/* Which optional fields are present (has_* bits of the message). */
enum {
	TS_DATUM_HAS_CHANNELS = 1u << 0,
	TS_DATUM_HAS_HEIGHT = 1u << 1,
	TS_DATUM_HAS_WIDTH = 1u << 2,
	TS_DATUM_HAS_DATA = 1u << 3,
	TS_DATUM_HAS_LABEL = 1u << 4,
	TS_DATUM_HAS_ENCODED = 1u << 6,
};

struct ts_datum {
	unsigned has;		/* TS_DATUM_HAS_* */
	int32_t channels;
	int32_t height;
	int32_t width;
	const uint8_t *data;	/* not owned; on decode, points into the input */
	size_t data_len;
	int32_t label;
	bool encoded;
	size_t float_count;	/* float_data elements seen (decode only) */
};

/* A raw Datum as convert_imageset writes it: c x h x w pixels, label. */
void ts_datum_init_raw(struct ts_datum *d, int channels, int height, int width,
		       const uint8_t *chw, int32_t label);
/* An encoded Datum (convert_imageset --encoded): the file bytes, label. */
void ts_datum_init_encoded(struct ts_datum *d, const uint8_t *file, size_t len, int32_t label);

/* Bytes ts_datum_encode() will write for @d. */
size_t ts_datum_encoded_size(const struct ts_datum *d);
/* Serializes @d into @buf; returns the byte count or -ENOSPC. */
TS_WUR ssize_t ts_datum_encode(const struct ts_datum *d, uint8_t *buf, size_t cap);
/*
 * Parses @len bytes; d->data points into @buf afterwards. Returns 0,
 * TS_E_TRUNCATED when a field runs past the end, TS_E_CORRUPT for an
 * impossible wire type, varint or length.
 */
TS_WUR int ts_datum_decode(struct ts_datum *d, const uint8_t *buf, size_t len);

/*
 * Pixel layout as Caffe's CVMatToDatum stores it: an OpenCV (BGR, HWC) image
 * becomes planes B, G, R, each H x W. These convert from/to the RGB HWC
 * layout that turbojpeg (TJPF_RGB) reads and writes.
 */
void ts_datum_rgb_to_chw_bgr(const uint8_t *rgb, int height, int width, uint8_t *chw);
void ts_datum_chw_bgr_to_rgb(const uint8_t *chw, int height, int width, uint8_t *rgb);

#endif
