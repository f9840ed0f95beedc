/*
 * test_formats.c — Caffe Datum and MXNet RecordIO encode/decode against
 * bytes written out by hand from the formats' definitions.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pipeline/datum.h"
#include "pipeline/recordio.h"
#include "tests/tcheck.h"

static void datum_raw(void)
{
	uint8_t chw[2 * 3 * 4], rgb[2 * 3 * 4], back[2 * 3 * 4], buf[64];
	struct ts_datum d, r;

	for (unsigned i = 0; i < sizeof(rgb); i++)
		rgb[i] = (uint8_t)(i * 7 + 1);
	ts_datum_rgb_to_chw_bgr(rgb, 2, 4, chw);
	/* pixel (y=1, x=2) R,G,B is rgb[(1*4+2)*3 + 0..2]; B plane first */
	CHECK(chw[0 * 8 + 6] == rgb[6 * 3 + 2]);
	CHECK(chw[1 * 8 + 6] == rgb[6 * 3 + 1]);
	CHECK(chw[2 * 8 + 6] == rgb[6 * 3 + 0]);
	ts_datum_chw_bgr_to_rgb(chw, 2, 4, back);
	CHECK(memcmp(back, rgb, sizeof(rgb)) == 0);

	ts_datum_init_raw(&d, 3, 2, 4, chw, 300);
	ssize_t n = ts_datum_encode(&d, buf, sizeof(buf));
	CHECK_EQ_U64(n, ts_datum_encoded_size(&d));
	/* 08 03 | 10 02 | 18 04 | 22 18 <24 bytes> | 28 ac 02 | 38 00 */
	static const uint8_t head[] = { 0x08, 3, 0x10, 2, 0x18, 4, 0x22, 24 };
	static const uint8_t tail[] = { 0x28, 0xac, 0x02, 0x38, 0x00 };
	CHECK_EQ_U64(n, sizeof(head) + 24 + sizeof(tail));
	CHECK(memcmp(buf, head, sizeof(head)) == 0);
	CHECK(memcmp(buf + 8, chw, 24) == 0);
	CHECK(memcmp(buf + 32, tail, sizeof(tail)) == 0);
	CHECK(ts_datum_encode(&d, buf, (size_t)n - 1) == -ENOSPC);

	CHECK(ts_datum_decode(&r, buf, (size_t)n) == 0);
	CHECK(r.channels == 3 && r.height == 2 && r.width == 4 && r.label == 300);
	CHECK(!r.encoded && (r.has & TS_DATUM_HAS_ENCODED));
	CHECK(r.data == buf + 8 && r.data_len == 24);
	for (ssize_t cut = 0; cut < n; cut++) {
		int rc = ts_datum_decode(&r, buf, (size_t)cut);
		/* a cut on a field boundary is a valid shorter message */
		CHECK(rc == 0 || rc == TS_E_TRUNCATED);
		if (cut == 7 || cut == 20 || cut == 33)
			CHECK(rc == TS_E_TRUNCATED);
	}

	/* 256x256x3, as convert_imageset: 196,608 pixel bytes, 3-byte length */
	uint8_t *big = calloc(1, 196608), *enc = malloc(196700);
	ts_datum_init_raw(&d, 3, 256, 256, big, 999);
	CHECK_EQ_U64(ts_datum_encoded_size(&d), 2 + 3 + 3 + 4 + 196608 + 3 + 2);
	n = ts_datum_encode(&d, enc, 196700);
	CHECK(ts_datum_decode(&r, enc, (size_t)n) == 0);
	CHECK(r.data_len == 196608 && r.height == 256 && r.width == 256 && r.label == 999);
	free(big);
	free(enc);
}

static void datum_encoded_and_foreign(void)
{
	static const uint8_t jpg[] = { 0xff, 0xd8, 0xff, 0xd9 };
	uint8_t buf[32];
	struct ts_datum d, r;

	ts_datum_init_encoded(&d, jpg, sizeof(jpg), -1);
	ssize_t n = ts_datum_encode(&d, buf, sizeof(buf));
	/* 22 04 ff d8 ff d9 | 28 ff ff ff ff ff ff ff ff ff 01 | 38 01 */
	CHECK_EQ_U64(n, 6 + 11 + 2);
	CHECK(buf[6] == 0x28 && buf[15] == 0xff && buf[16] == 0x01 && buf[17] == 0x38);
	CHECK(ts_datum_decode(&r, buf, (size_t)n) == 0);
	CHECK(r.encoded && r.label == -1 && r.data_len == 4 && !(r.has & TS_DATUM_HAS_WIDTH));

	/* unknown fields, unpacked and packed float_data, out of order */
	static const uint8_t foreign[] = {
		0x38, 0x01,			/* encoded = true */
		0x35, 0, 0, 0x80, 0x3f,		/* float_data 1.0 */
		0x32, 8, 0, 0, 0, 0, 0, 0, 0, 0, /* packed float_data x2 */
		0x48, 0x05,			/* field 9 varint: skipped */
		0x08, 0x01,			/* channels = 1 */
	};
	CHECK(ts_datum_decode(&r, foreign, sizeof(foreign)) == 0);
	CHECK(r.encoded && r.channels == 1 && r.float_count == 3);

	static const uint8_t badwt[] = { 0x0b, 0x00 };	/* wire type 3 */
	CHECK(ts_datum_decode(&r, badwt, sizeof(badwt)) == TS_E_CORRUPT);
	static const uint8_t longlen[] = { 0x22, 0x10, 1, 2 };
	CHECK(ts_datum_decode(&r, longlen, sizeof(longlen)) == TS_E_TRUNCATED);
	static const uint8_t field0[] = { 0x00, 0x00 };
	CHECK(ts_datum_decode(&r, field0, sizeof(field0)) == TS_E_CORRUPT);
}

static void rec_frames(void)
{
	uint8_t payload[23], out[64], back[64];
	size_t used;

	for (unsigned i = 0; i < sizeof(payload); i++)
		payload[i] = (uint8_t)i;
	ssize_t n = ts_rec_encode(payload, sizeof(payload), out, sizeof(out));
	CHECK_EQ_U64(n, 8 + 24);
	CHECK_EQ_U64(ts_rec_frame_size(23), 32);
	static const uint8_t head[] = { 0x0a, 0x23, 0xd7, 0xce, 23, 0, 0, 0 };
	CHECK(memcmp(out, head, 8) == 0);
	CHECK(out[8 + 23] == 0);
	CHECK(ts_rec_decode(out, (size_t)n, back, sizeof(back), &used) == 23);
	CHECK_EQ_U64(used, 32);
	CHECK(memcmp(back, payload, 23) == 0);
	CHECK(ts_rec_decode(out, (size_t)n - 1, back, sizeof(back), &used) == TS_E_TRUNCATED);
	CHECK(ts_rec_decode(out + 4, (size_t)n - 4, back, sizeof(back), &used) == TS_E_FORMAT);

	/* the magic at aligned offsets 4 and 12 splits the payload in three;
	 * at offset 17 (unaligned) it stays */
	static const uint8_t magic[] = { 0x0a, 0x23, 0xd7, 0xce };
	memcpy(payload + 4, magic, 4);
	memcpy(payload + 12, magic, 4);
	memcpy(payload + 17, magic, 4);
	CHECK_EQ_U64(ts_rec_magic_count(payload, 23), 2);
	n = ts_rec_encode(payload, sizeof(payload), out, sizeof(out));
	CHECK_EQ_U64(n, ts_rec_encoded_size(payload, 23));
	CHECK_EQ_U64(n, 8 + 4 + 8 + 4 + 8 + 8); /* parts of 4, 4, 7(+1 pad) */
	CHECK(out[7] >> 5 == TS_REC_FIRST && out[4] == 4);
	CHECK(out[12 + 7] >> 5 == TS_REC_MIDDLE && out[12 + 4] == 4);
	CHECK(out[24 + 7] >> 5 == TS_REC_LAST && out[24 + 4] == 7);
	CHECK(ts_rec_decode(out, (size_t)n, back, sizeof(back), &used) == 23);
	CHECK_EQ_U64(used, (size_t)n);
	CHECK(memcmp(back, payload, 23) == 0);
	/* in place */
	CHECK(ts_rec_decode(out, (size_t)n, out, sizeof(out), &used) == 23);
	CHECK(memcmp(out, payload, 23) == 0);
	/* a record that starts with the magic: first part is empty */
	memcpy(payload, magic, 4);
	memset(payload + 4, 0x5a, 4);
	n = ts_rec_encode(payload, 8, out, sizeof(out));
	CHECK_EQ_U64(n, 8 + 8 + 4);
	CHECK(ts_rec_decode(out, (size_t)n, back, sizeof(back), &used) == 8);
	CHECK(memcmp(back, payload, 8) == 0);
	CHECK(ts_rec_decode(out + 8, (size_t)n - 8, back, sizeof(back), &used) == TS_E_FORMAT);
}

static void rec_irheader(void)
{
	struct ts_rec_irheader h = { .flag = 0, .label = 417.0f, .id = 12345, .id2 = 0 }, g;
	uint8_t b[TS_REC_IRHEADER_SIZE + 8];
	size_t off;

	ts_rec_irheader_pack(&h, b);
	/* 417.0f = 0x43d08000 */
	static const uint8_t want[] = { 0, 0, 0, 0, 0x00, 0x80, 0xd0, 0x43, 0x39, 0x30, 0, 0 };
	CHECK(memcmp(b, want, sizeof(want)) == 0);
	CHECK(ts_rec_irheader_unpack(&g, b, 24, &off) == 0);
	CHECK(g.label == 417.0f && g.id == 12345 && off == 24);
	CHECK(ts_rec_irheader_unpack(&g, b, 23, &off) == TS_E_TRUNCATED);
	h.flag = 2;
	ts_rec_irheader_pack(&h, b);
	CHECK(ts_rec_irheader_unpack(&g, b, 32, &off) == 0 && off == 32);
	CHECK(ts_rec_irheader_unpack(&g, b, 31, &off) == TS_E_TRUNCATED);
}

static void rec_files(void)
{
	char dir[] = "/tmp/ts_formats_XXXXXX", rec[64], idx[64], err[256];
	struct ts_rec_writer w;
	struct ts_rec_index ix;
	uint8_t payload[300];

	CHECK(mkdtemp(dir) != NULL);
	snprintf(rec, sizeof(rec), "%s/a.rec", dir);
	snprintf(idx, sizeof(idx), "%s/a.idx", dir);
	CHECK(ts_rec_writer_open(&w, rec, idx) == 0);
	for (unsigned i = 0; i < 5; i++) {
		memset(payload, (int)i, sizeof(payload));
		CHECK(ts_rec_writer_add(&w, 100 + i, payload, 50 + 61 * i) == 0);
	}
	uint64_t size = w.offset;
	CHECK(ts_rec_writer_close(&w) == 0);
	CHECK(ts_rec_index_load(&ix, idx, size, err, sizeof(err)) == 0);
	CHECK_EQ_U64(ix.count, 5);
	uint64_t off = 0;
	for (unsigned i = 0; i < ix.count; i++) {
		CHECK_EQ_U64(ix.key[i], 100 + i);
		CHECK_EQ_U64(ix.offset[i], off);
		CHECK_EQ_U64(ix.length[i], ts_rec_frame_size(50 + 61 * i));
		off += ts_rec_frame_size(50 + 61 * i);
	}
	CHECK_EQ_U64(off, size);
	ts_rec_index_free(&ix);
	/* a .rec shorter than the index says */
	CHECK(ts_rec_index_load(&ix, idx, 200, err, sizeof(err)) == TS_E_FORMAT);
	CHECK(strstr(err, "a.idx:") != NULL);
	FILE *f = fopen(idx, "a");
	fputs("7 oops\n", f);
	fclose(f);
	CHECK(ts_rec_index_load(&ix, idx, size, err, sizeof(err)) == TS_E_PARSE);
	CHECK(strstr(err, "a.idx:6:") != NULL);
	unlink(rec);
	unlink(idx);
	CHECK(ts_rec_index_load(&ix, idx, size, err, sizeof(err)) == -ENOENT);
	rmdir(dir);
}

int main(void)
{
	datum_raw();
	datum_encoded_and_foreign();
	rec_frames();
	rec_irheader();
	rec_files();
	return tc_exit();
}
