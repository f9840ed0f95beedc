/*
 * datum.c — Caffe Datum protobuf encode/decode (see datum.h for the message
 * and why it is written by hand).
 */
#include "pipeline/datum.h"

#include <string.h>

/* Protobuf wire types. */
enum { WT_VARINT = 0, WT_I64 = 1, WT_LEN = 2, WT_I32 = 5 };

#define TAG(field, wt) (((field) << 3) | (wt))

void ts_datum_init_raw(struct ts_datum *d, int channels, int height, int width,
		       const uint8_t *chw, int32_t label)
{
	memset(d, 0, sizeof(*d));
	d->has = TS_DATUM_HAS_CHANNELS | TS_DATUM_HAS_HEIGHT | TS_DATUM_HAS_WIDTH |
		 TS_DATUM_HAS_DATA | TS_DATUM_HAS_LABEL | TS_DATUM_HAS_ENCODED;
	d->channels = channels;
	d->height = height;
	d->width = width;
	d->data = chw;
	d->data_len = (size_t)channels * (size_t)height * (size_t)width;
	d->label = label;
	d->encoded = false;
}

void ts_datum_init_encoded(struct ts_datum *d, const uint8_t *file, size_t len, int32_t label)
{
	memset(d, 0, sizeof(*d));
	d->has = TS_DATUM_HAS_DATA | TS_DATUM_HAS_LABEL | TS_DATUM_HAS_ENCODED;
	d->data = file;
	d->data_len = len;
	d->label = label;
	d->encoded = true;
}

static size_t varint_len(uint64_t v)
{
	size_t n = 1;
	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

/* int32 fields are sign-extended to 64 bits on the wire (10 bytes if < 0). */
static uint64_t i32_wire(int32_t v)
{
	return (uint64_t)(int64_t)v;
}

static uint8_t *put_varint(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

size_t ts_datum_encoded_size(const struct ts_datum *d)
{
	size_t n = 0;

	if (d->has & TS_DATUM_HAS_CHANNELS)
		n += 1 + varint_len(i32_wire(d->channels));
	if (d->has & TS_DATUM_HAS_HEIGHT)
		n += 1 + varint_len(i32_wire(d->height));
	if (d->has & TS_DATUM_HAS_WIDTH)
		n += 1 + varint_len(i32_wire(d->width));
	if (d->has & TS_DATUM_HAS_DATA)
		n += 1 + varint_len(d->data_len) + d->data_len;
	if (d->has & TS_DATUM_HAS_LABEL)
		n += 1 + varint_len(i32_wire(d->label));
	if (d->has & TS_DATUM_HAS_ENCODED)
		n += 2;
	return n;
}

ssize_t ts_datum_encode(const struct ts_datum *d, uint8_t *buf, size_t cap)
{
	size_t need = ts_datum_encoded_size(d);
	uint8_t *p = buf;

	if (need > cap)
		return -ENOSPC;
	if (d->has & TS_DATUM_HAS_CHANNELS) {
		*p++ = TAG(1, WT_VARINT);
		p = put_varint(p, i32_wire(d->channels));
	}
	if (d->has & TS_DATUM_HAS_HEIGHT) {
		*p++ = TAG(2, WT_VARINT);
		p = put_varint(p, i32_wire(d->height));
	}
	if (d->has & TS_DATUM_HAS_WIDTH) {
		*p++ = TAG(3, WT_VARINT);
		p = put_varint(p, i32_wire(d->width));
	}
	if (d->has & TS_DATUM_HAS_DATA) {
		*p++ = TAG(4, WT_LEN);
		p = put_varint(p, d->data_len);
		if (d->data_len)
			memcpy(p, d->data, d->data_len);
		p += d->data_len;
	}
	if (d->has & TS_DATUM_HAS_LABEL) {
		*p++ = TAG(5, WT_VARINT);
		p = put_varint(p, i32_wire(d->label));
	}
	if (d->has & TS_DATUM_HAS_ENCODED) {
		*p++ = TAG(7, WT_VARINT);
		*p++ = d->encoded ? 1 : 0;
	}
	return (ssize_t)(p - buf);
}

/* Reads a varint at *pp; 0, TS_E_TRUNCATED or TS_E_CORRUPT (> 10 bytes). */
static int get_varint(const uint8_t **pp, const uint8_t *end, uint64_t *out)
{
	const uint8_t *p = *pp;
	uint64_t v = 0;

	for (unsigned shift = 0; shift < 70; shift += 7) {
		if (p == end)
			return TS_E_TRUNCATED;
		uint8_t b = *p++;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*pp = p;
			*out = v;
			return 0;
		}
	}
	return TS_E_CORRUPT;
}

/* Skips @n bytes; TS_E_TRUNCATED if they are not all there. */
static int skip(const uint8_t **pp, const uint8_t *end, uint64_t n)
{
	if (n > (uint64_t)(end - *pp))
		return TS_E_TRUNCATED;
	*pp += n;
	return 0;
}

int ts_datum_decode(struct ts_datum *d, const uint8_t *buf, size_t len)
{
	const uint8_t *p = buf, *end = buf + len;
	int err;

	memset(d, 0, sizeof(*d));
	while (p < end) {
		uint64_t key, v;

		if ((err = get_varint(&p, end, &key)))
			return err;
		uint64_t field = key >> 3;
		unsigned wt = key & 7;
		if (field == 0 || field > UINT32_MAX >> 3)
			return TS_E_CORRUPT;
		switch (wt) {
		case WT_VARINT:
			if ((err = get_varint(&p, end, &v)))
				return err;
			switch (field) {
			case 1: d->channels = (int32_t)v; d->has |= TS_DATUM_HAS_CHANNELS; break;
			case 2: d->height = (int32_t)v; d->has |= TS_DATUM_HAS_HEIGHT; break;
			case 3: d->width = (int32_t)v; d->has |= TS_DATUM_HAS_WIDTH; break;
			case 5: d->label = (int32_t)v; d->has |= TS_DATUM_HAS_LABEL; break;
			case 7: d->encoded = v != 0; d->has |= TS_DATUM_HAS_ENCODED; break;
			default: break;
			}
			break;
		case WT_I64:
			if ((err = skip(&p, end, 8)))
				return err;
			break;
		case WT_I32:
			if ((err = skip(&p, end, 4)))
				return err;
			if (field == 6)
				d->float_count++;
			break;
		case WT_LEN:
			if ((err = get_varint(&p, end, &v)))
				return err;
			if (v > (uint64_t)(end - p))
				return TS_E_TRUNCATED;
			if (field == 4) {
				d->data = p;
				d->data_len = v;
				d->has |= TS_DATUM_HAS_DATA;
			} else if (field == 6) {
				if (v % 4)
					return TS_E_CORRUPT;
				d->float_count += v / 4; /* packed float_data */
			}
			p += v;
			break;
		default: /* groups (3, 4) and 6, 7 are not valid here */
			return TS_E_CORRUPT;
		}
	}
	return 0;
}

void ts_datum_rgb_to_chw_bgr(const uint8_t *rgb, int height, int width, uint8_t *chw)
{
	size_t plane = (size_t)height * (size_t)width;

	for (size_t i = 0; i < plane; i++) {
		chw[i] = rgb[3 * i + 2];
		chw[plane + i] = rgb[3 * i + 1];
		chw[2 * plane + i] = rgb[3 * i];
	}
}

void ts_datum_chw_bgr_to_rgb(const uint8_t *chw, int height, int width, uint8_t *rgb)
{
	size_t plane = (size_t)height * (size_t)width;

	for (size_t i = 0; i < plane; i++) {
		rgb[3 * i] = chw[2 * plane + i];
		rgb[3 * i + 1] = chw[plane + i];
		rgb[3 * i + 2] = chw[i];
	}
}
