/* dliofmt.c — npz, hdf5's metadata block and TFRecord, byte for byte (see dliofmt.h). */
#include "pipeline/dliofmt.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* ---- CRCs ----------------------------------------------------------------- */

/* Reflected table-driven CRCs, eight tables (slicing-by-8), built once. */
static uint32_t tab32[8][256], tab32c[8][256];
static pthread_once_t tabs_once = PTHREAD_ONCE_INIT;
#if defined(__x86_64__)
static bool have_sse42;
#endif

static void build(uint32_t t[8][256], uint32_t poly)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ poly : c >> 1;
		t[0][i] = c;
	}
	for (uint32_t i = 0; i < 256; i++)
		for (int k = 1; k < 8; k++)
			t[k][i] = (t[k - 1][i] >> 8) ^ t[0][t[k - 1][i] & 0xff];
}

static void build_tabs(void)
{
	build(tab32, 0xEDB88320u);  /* ISO-HDLC (zip) */
	build(tab32c, 0x82F63B78u); /* Castagnoli */
#if defined(__x86_64__)
	__builtin_cpu_init();
	have_sse42 = __builtin_cpu_supports("sse4.2");
#endif
}

static uint32_t slice8(uint32_t t[8][256], uint32_t crc, const uint8_t *p, size_t n)
{
	crc = ~crc;
	while (n >= 8) {
		uint32_t lo = crc ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
				     (uint32_t)p[3] << 24);
		uint32_t hi = (uint32_t)p[4] | (uint32_t)p[5] << 8 | (uint32_t)p[6] << 16 |
			      (uint32_t)p[7] << 24;
		crc = t[7][lo & 0xff] ^ t[6][(lo >> 8) & 0xff] ^ t[5][(lo >> 16) & 0xff] ^
		      t[4][lo >> 24] ^ t[3][hi & 0xff] ^ t[2][(hi >> 8) & 0xff] ^
		      t[1][(hi >> 16) & 0xff] ^ t[0][hi >> 24];
		p += 8;
		n -= 8;
	}
	while (n--)
		crc = (crc >> 8) ^ t[0][(crc ^ *p++) & 0xff];
	return ~crc;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) static uint32_t crc32c_hw(uint32_t crc, const uint8_t *p,
							      size_t n)
{
	uint64_t c = ~crc;
	while (n >= 8) {
		uint64_t v;
		memcpy(&v, p, 8);
		c = __builtin_ia32_crc32di(c, v);
		p += 8;
		n -= 8;
	}
	uint32_t c32 = (uint32_t)c;
	while (n--)
		c32 = __builtin_ia32_crc32qi(c32, *p++);
	return ~c32;
}
#endif

uint32_t ts_crc32(uint32_t crc, const void *buf, size_t n)
{
	pthread_once(&tabs_once, build_tabs);
	return slice8(tab32, crc, buf, n);
}

uint32_t ts_crc32c(uint32_t crc, const void *buf, size_t n)
{
	pthread_once(&tabs_once, build_tabs);
#if defined(__x86_64__)
	if (have_sse42)
		return crc32c_hw(crc, buf, n);
#endif
	return slice8(tab32c, crc, buf, n);
}

/* ---- little-endian helpers -------------------------------------------------- */

static size_t le16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	return 2;
}

static size_t le32(uint8_t *p, uint32_t v)
{
	le16(p, v & 0xffff);
	le16(p + 2, v >> 16);
	return 4;
}

static size_t le64(uint8_t *p, uint64_t v)
{
	le32(p, (uint32_t)v);
	le32(p + 4, (uint32_t)(v >> 32));
	return 8;
}

static uint32_t rd16(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

static uint32_t rd32(const uint8_t *p)
{
	return rd16(p) | rd16(p + 2) << 16;
}

static uint64_t rd64(const uint8_t *p)
{
	return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

/* ---- npz -------------------------------------------------------------------- */

/* numpy.lib.format: ARRAY_ALIGN = 64; header v1.0 while it fits a u16. */
size_t ts_npy_header(char *out, size_t cap, const char *descr, uint64_t n)
{
	char dict[96];
	int d = snprintf(dict, sizeof(dict), "{'descr': '%s', 'fortran_order': False, 'shape': (%llu,), }",
			 descr, (unsigned long long)n);
	size_t total = 10 + (size_t)d + 1; /* magic, version, u16, dict, '\n' */
	total = (total + 63) / 64 * 64;
	if (total > cap)
		return 0;
	memcpy(out, "\x93NUMPY\x01\x00", 8);
	le16((uint8_t *)out + 8, (uint32_t)(total - 10));
	memcpy(out + 10, dict, (size_t)d);
	memset(out + 10 + d, ' ', total - 10 - (size_t)d - 1);
	out[total - 1] = '\n';
	return total;
}

uint64_t ts_npz_size(uint64_t n)
{
	char h[128];
	uint64_t x = ts_npy_header(h, sizeof(h), "|u1", n) + n;
	uint64_t y = ts_npy_header(h, sizeof(h), "<i8", 1) + TS_NPZ_LABEL;
	return 2 * TS_NPZ_MEMBER + x + y + 2 * (TS_NPZ_CDH + TS_NPZ_NAME) + TS_NPZ_EOCD;
}

void ts_npz_payload(uint64_t file_bytes, uint64_t *data_off, uint64_t *n)
{
	char h[128];
	uint64_t x = file_bytes - (ts_npz_size(file_bytes) - file_bytes);
	for (int i = 0; i < 4 && ts_npz_size(x) != file_bytes; i++) /* the header's length may differ */
		x = file_bytes - (ts_npz_size(x) - x);
	*n = x;
	*data_off = TS_NPZ_MEMBER + ts_npy_header(h, sizeof(h), "|u1", x);
}

static size_t zip_common(uint8_t *p, uint32_t crc, uint32_t size)
{
	size_t o = 0;
	o += le16(p + o, 20);	 /* version needed: 2.0 */
	o += le16(p + o, 0);	 /* flags */
	o += le16(p + o, 0);	 /* stored */
	o += le16(p + o, 0);	 /* time 00:00:00 */
	o += le16(p + o, 0x21);	 /* date 1980-01-01, as zipfile's default */
	o += le32(p + o, crc);
	o += le32(p + o, size); /* compressed = uncompressed: stored */
	o += le32(p + o, size);
	return o;
}

size_t ts_zip_local(uint8_t *p, const char *name, uint32_t crc, uint32_t size)
{
	size_t o = le32(p, 0x04034b50u);
	o += zip_common(p + o, crc, size);
	o += le16(p + o, (uint32_t)strlen(name));
	o += le16(p + o, TS_NPZ_ZIP64); /* extra */
	memcpy(p + o, name, strlen(name));
	o += strlen(name);
	/* zipfile.ZipInfo.FileHeader(zip64=True): tag 1, 16 bytes, both sizes */
	o += le16(p + o, 1);
	o += le16(p + o, 16);
	o += le64(p + o, size);
	o += le64(p + o, size);
	return o;
}

size_t ts_zip_central(uint8_t *p, const char *name, uint32_t crc, uint32_t size, uint32_t at)
{
	size_t o = le32(p, 0x02014b50u);
	o += le16(p + o, 0x0314); /* made by: Unix, 2.0 */
	o += zip_common(p + o, crc, size);
	o += le16(p + o, (uint32_t)strlen(name));
	o += le16(p + o, 0); /* extra */
	o += le16(p + o, 0); /* comment */
	o += le16(p + o, 0); /* disk */
	o += le16(p + o, 0); /* internal attributes */
	o += le32(p + o, 0600u << 16); /* external attributes: rw------- */
	o += le32(p + o, at);
	memcpy(p + o, name, strlen(name));
	return o + strlen(name);
}

size_t ts_zip_end(uint8_t *p, unsigned entries, uint32_t cd_size, uint32_t cd_at)
{
	size_t o = le32(p, 0x06054b50u);
	o += le16(p + o, 0);
	o += le16(p + o, 0);
	o += le16(p + o, entries);
	o += le16(p + o, entries);
	o += le32(p + o, cd_size);
	o += le32(p + o, cd_at);
	o += le16(p + o, 0); /* comment */
	return o;
}

int ts_npz_find_x(const uint8_t *buf, size_t len, uint64_t *off, uint64_t *len_out)
{
	if (len < TS_NPZ_LFH)
		return TS_E_TRUNCATED;
	if (rd32(buf) != 0x04034b50u || rd16(buf + 8) != 0)
		return TS_E_FORMAT; /* not a stored zip member */
	uint64_t size = rd32(buf + 18);
	uint32_t nl = rd16(buf + 26), el = rd16(buf + 28);
	if (TS_NPZ_LFH + (size_t)nl + el > len)
		return TS_E_TRUNCATED;
	if (nl != TS_NPZ_NAME || memcmp(buf + TS_NPZ_LFH, "x.npy", TS_NPZ_NAME))
		return TS_E_FORMAT;
	/* zip64 (numpy >= 1.25 opens members with force_zip64): sizes in extra 0x0001 */
	for (size_t e = TS_NPZ_LFH + nl; size == 0xffffffffu && e + 4 <= TS_NPZ_LFH + nl + el;) {
		uint32_t id = rd16(buf + e), sz = rd16(buf + e + 2);
		if (id == 1 && sz >= 16 && e + 4 + 16 <= len)
			size = rd64(buf + e + 4 + 8);
		e += 4 + sz;
	}
	size_t npy = TS_NPZ_LFH + nl + el;
	if (npy + 12 > len)
		return TS_E_TRUNCATED;
	if (memcmp(buf + npy, "\x93NUMPY", 6))
		return TS_E_FORMAT;
	uint64_t hl = buf[npy + 6] == 1 ? 10 + rd16(buf + npy + 8) : 12 + rd32(buf + npy + 8);
	if (hl > size || npy + size > len)
		return npy + size > len ? TS_E_TRUNCATED : TS_E_FORMAT;
	*off = npy + hl;
	*len_out = size - hl;
	return 0;
}

/* ---- hdf5 ------------------------------------------------------------------- */

/* The fields of the metadata block that follow the shape. */
enum {
	H5_EOF = 40,
	H5_DIMS = 832, /* records: samples, dim1, dim2; then their maxima */
	H5_REC_ADDR = 930,
	H5_REC_BYTES = 938,
	H5_LAB_DIM = 1432, /* labels: samples; then its maximum */
	H5_LAB_ADDR = 1498,
	H5_LAB_BYTES = 1506,
};

/* What is not zero in the block, besides the fields. */
static const struct {
	uint16_t off, len;
	const uint8_t *b;
} h5_block[] = {
	{ 0, 19, (const uint8_t[]){
		  0x89, 0x48, 0x44, 0x46, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x00,
		  0x00, 0x08, 0x08, 0x00, 0x04, 0x00, 0x10 } },
	{ 32, 8, (const uint8_t[]){ 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff } },
	{ 48, 8, (const uint8_t[]){ 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff } },
	{ 64, 96, (const uint8_t[]){
		  0x60, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
		  0x00, 0x00, 0x00, 0x00, 0x88, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		  0xa8, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00,
		  0x01, 0x00, 0x00, 0x00, 0x18, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		  0x11, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x88, 0x00, 0x00, 0x00,
		  0x00, 0x00, 0x00, 0x00, 0xa8, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		  0x54, 0x52, 0x45, 0x45, 0x00, 0x00, 0x01, 0x00, 0xff, 0xff, 0xff, 0xff,
		  0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff } },
	{ 168, 9, (const uint8_t[]){ 0x30, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x08 } },
	{ 680, 26, (const uint8_t[]){
		  0x48, 0x45, 0x41, 0x50, 0x00, 0x00, 0x00, 0x00, 0x58, 0x00, 0x00, 0x00,
		  0x00, 0x00, 0x00, 0x00, 0x18, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		  0xc8, 0x02 } },
	{ 720, 25, (const uint8_t[]){
		  0x72, 0x65, 0x63, 0x6f, 0x72, 0x64, 0x73, 0x00, 0x6c, 0x61, 0x62, 0x65,
		  0x6c, 0x73, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		  0x40 } },
	{ 800, 27, (const uint8_t[]){
		  0x01, 0x00, 0x05, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00,
		  0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x38, 0x00, 0x00, 0x00, 0x00, 0x00,
		  0x01, 0x03, 0x01 } },
	{ 880, 52, (const uint8_t[]){
		  0x03, 0x00, 0x10, 0x00, 0x01, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00,
		  0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00,
		  0x05, 0x00, 0x08, 0x00, 0x01, 0x00, 0x00, 0x00, 0x02, 0x02, 0x02, 0x01,
		  0x00, 0x00, 0x00, 0x00, 0x08, 0x00, 0x18, 0x00, 0x00, 0x00, 0x00, 0x00,
		  0x03, 0x01, 0x00, 0x08 } },
	{ 954, 1, (const uint8_t[]){ 0x70 } },
	{ 1072, 18, (const uint8_t[]){
		  0x53, 0x4e, 0x4f, 0x44, 0x01, 0x00, 0x02, 0x00, 0x10, 0x00, 0x00, 0x00,
		  0x00, 0x00, 0x00, 0x00, 0x78, 0x05 } },
	{ 1120, 10, (const uint8_t[]){ 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x20, 0x03 } },
	{ 1400, 27, (const uint8_t[]){
		  0x01, 0x00, 0x05, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00,
		  0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x18, 0x00, 0x00, 0x00, 0x00, 0x00,
		  0x01, 0x01, 0x01 } },
	{ 1448, 50, (const uint8_t[]){
		  0x03, 0x00, 0x10, 0x00, 0x01, 0x00, 0x00, 0x00, 0x10, 0x08, 0x00, 0x00,
		  0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x40, 0x00, 0x00, 0x00, 0x00, 0x00,
		  0x05, 0x00, 0x08, 0x00, 0x01, 0x00, 0x00, 0x00, 0x02, 0x02, 0x02, 0x01,
		  0x00, 0x00, 0x00, 0x00, 0x08, 0x00, 0x18, 0x00, 0x00, 0x00, 0x00, 0x00,
		  0x03, 0x01 } },
	{ 1522, 1, (const uint8_t[]){ 0x90 } },
};

void ts_hdf5_head(uint8_t out[TS_HDF5_DATA], uint64_t n, uint64_t dim1, uint64_t dim2)
{
	uint64_t rec = n * dim1 * dim2;
	memset(out, 0, TS_HDF5_DATA);
	for (size_t i = 0; i < TS_ARRAY_SIZE(h5_block); i++)
		memcpy(out + h5_block[i].off, h5_block[i].b, h5_block[i].len);
	le64(out + H5_EOF, TS_HDF5_DATA + rec + n * TS_HDF5_LABEL);
	const uint64_t dims[] = {n, dim1, dim2};
	for (int m = 0; m < 2; m++) /* the size, then the maximum */
		for (int d = 0; d < 3; d++)
			le64(out + H5_DIMS + 8 * (3 * m + d), dims[d]);
	le64(out + H5_REC_ADDR, TS_HDF5_DATA);
	le64(out + H5_REC_BYTES, rec);
	le64(out + H5_LAB_DIM, n);
	le64(out + H5_LAB_DIM + 8, n);
	le64(out + H5_LAB_ADDR, TS_HDF5_DATA + rec);
	le64(out + H5_LAB_BYTES, n * TS_HDF5_LABEL);
}

int ts_hdf5_head_check(const uint8_t *buf, uint64_t off, size_t len, uint64_t n, uint64_t dim1,
		       uint64_t dim2, uint64_t *at)
{
	if (off >= TS_HDF5_DATA)
		return 0;
	uint8_t want[TS_HDF5_DATA];
	ts_hdf5_head(want, n, dim1, dim2);
	size_t end = (size_t)TS_MIN(off + len, (uint64_t)TS_HDF5_DATA);
	for (size_t i = (size_t)off; i < end; i++)
		if (buf[i - off] != want[i]) {
			*at = i;
			return TS_E_FORMAT;
		}
	return 0;
}

/* ---- TFRecord --------------------------------------------------------------- */

static size_t varint(uint8_t *p, uint64_t v)
{
	size_t n = 0;
	do {
		p[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	return n;
}

/* The bytes varint() writes for @v: one per 7 bits, at least one. */
static size_t vlen(uint64_t v)
{
	return (size_t)(64 - __builtin_clzll(v | 1) + 6) / 7;
}

/* Example { features: Features { feature: { "image": Feature { bytes_list {
 * value: IMAGE } }, "size": Feature { int64_list { value: n } } } } },
 * proto3 wire format, map entries in that order (key 1, value 2). */
void ts_tfr_example(uint64_t n, uint8_t *head, size_t *head_len, uint8_t *tail,
		    size_t *tail_len)
{
	uint64_t bl = 1 + vlen(n) + n;		      /* BytesList */
	uint64_t f1 = 1 + vlen(bl) + bl;	      /* Feature */
	uint64_t e1 = 2 + 5 + 1 + vlen(f1) + f1;      /* map entry "image" */
	uint64_t il = 1 + 1 + vlen(n);		      /* Int64List, packed */
	uint64_t f2 = 1 + vlen(il) + il;
	uint64_t e2 = 2 + 4 + 1 + vlen(f2) + f2;      /* map entry "size" */
	uint64_t fs = 1 + vlen(e1) + e1 + 1 + vlen(e2) + e2; /* Features */
	size_t o = 0;
	head[o++] = 0x0a; /* Example.features */
	o += varint(head + o, fs);
	head[o++] = 0x0a; /* Features.feature entry */
	o += varint(head + o, e1);
	head[o++] = 0x0a; /* key */
	head[o++] = 5;
	memcpy(head + o, "image", 5);
	o += 5;
	head[o++] = 0x12; /* value */
	o += varint(head + o, f1);
	head[o++] = 0x0a; /* Feature.bytes_list */
	o += varint(head + o, bl);
	head[o++] = 0x0a; /* BytesList.value */
	o += varint(head + o, n);
	*head_len = o;
	o = 0;
	tail[o++] = 0x0a;
	o += varint(tail + o, e2);
	tail[o++] = 0x0a;
	tail[o++] = 4;
	memcpy(tail + o, "size", 4);
	o += 4;
	tail[o++] = 0x12;
	o += varint(tail + o, f2);
	tail[o++] = 0x1a; /* Feature.int64_list */
	o += varint(tail + o, il);
	tail[o++] = 0x0a; /* Int64List.value, packed */
	o += varint(tail + o, vlen(n));
	o += varint(tail + o, n);
	*tail_len = o;
}

/* The lengths ts_tfr_example() writes, without writing them: a virtual
 * dataset describes millions of records. */
uint64_t ts_tfr_record_size(uint64_t n)
{
	uint64_t bl = 1 + vlen(n) + n, f1 = 1 + vlen(bl) + bl, e1 = 2 + 5 + 1 + vlen(f1) + f1;
	uint64_t il = 1 + 1 + vlen(n), f2 = 1 + vlen(il) + il, e2 = 2 + 4 + 1 + vlen(f2) + f2;
	uint64_t fs = 1 + vlen(e1) + e1 + 1 + vlen(e2) + e2;
	uint64_t hl = 1 + vlen(fs) + 1 + vlen(e1) + 2 + 5 + 1 + vlen(f1) + 1 + vlen(bl) + 1 + vlen(n);
	uint64_t tl = 1 + vlen(e2) + 2 + 4 + 1 + vlen(f2) + 1 + vlen(il) + 1 + vlen(vlen(n)) + vlen(n);
	return TS_TFR_HEAD + hl + n + tl + TS_TFR_TAIL;
}

void ts_tfr_head(uint8_t out[TS_TFR_HEAD], uint64_t len)
{
	le64(out, len);
	le32(out + 8, ts_crc32c_mask(ts_crc32c(0, out, 8)));
}

/* A varint at *o of buf[0..end): its value, or -1. */
static int64_t rd_varint(const uint8_t *buf, size_t end, size_t *o)
{
	uint64_t v = 0;
	for (unsigned s = 0; s < 64 && *o < end; s += 7) {
		uint8_t b = buf[(*o)++];
		v |= (uint64_t)(b & 0x7f) << s;
		if (!(b & 0x80))
			return (int64_t)v;
	}
	return -1;
}

int ts_tfr_check(const uint8_t *buf, size_t len, uint64_t *off, uint64_t *n)
{
	if (len < TS_TFR_HEAD + TS_TFR_TAIL)
		return TS_E_TRUNCATED;
	uint64_t dl = rd64(buf);
	if (rd32(buf + 8) != ts_crc32c_mask(ts_crc32c(0, buf, 8)))
		return TS_E_CORRUPT;
	if (dl > len - TS_TFR_HEAD - TS_TFR_TAIL)
		return TS_E_TRUNCATED;
	const uint8_t *d = buf + TS_TFR_HEAD;
	if (rd32(d + dl) != ts_crc32c_mask(ts_crc32c(0, d, dl)))
		return TS_E_CORRUPT;
	/* Example.features -> the first entry -> "image" -> bytes_list -> value */
	size_t o = 0;
	int64_t v;
	static const uint8_t key[] = { 0x0a, 5, 'i', 'm', 'a', 'g', 'e' };
	if (dl < 2 || d[o++] != 0x0a || rd_varint(d, dl, &o) < 0 || o >= dl || d[o++] != 0x0a ||
	    rd_varint(d, dl, &o) < 0 || o + sizeof(key) > dl || memcmp(d + o, key, sizeof(key)))
		return TS_E_FORMAT;
	o += sizeof(key);
	for (int k = 0; k < 3; k++) { /* entry value, Feature.bytes_list, BytesList.value */
		static const uint8_t tag[3] = { 0x12, 0x0a, 0x0a };
		if (o >= dl || d[o++] != tag[k] || (v = rd_varint(d, dl, &o)) < 0)
			return TS_E_FORMAT;
	}
	if ((uint64_t)v > dl - o)
		return TS_E_FORMAT;
	*off = TS_TFR_HEAD + o;
	*n = (uint64_t)v;
	return 0;
}
