/*
 * recordio.c — MXNet RecordIO framing, IRHeader and .idx (see recordio.h).
 */
#include "pipeline/recordio.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)v);
	put32(p + 4, (uint32_t)(v >> 32));
}

static uint64_t get64(const uint8_t *p)
{
	return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
}

void ts_rec_irheader_pack(const struct ts_rec_irheader *h, uint8_t out[TS_REC_IRHEADER_SIZE])
{
	uint32_t lbits;

	memcpy(&lbits, &h->label, 4);
	put32(out, h->flag);
	put32(out + 4, lbits);
	put64(out + 8, h->id);
	put64(out + 16, h->id2);
}

int ts_rec_irheader_unpack(struct ts_rec_irheader *h, const uint8_t *payload, size_t len,
			   size_t *img_off)
{
	uint32_t lbits;

	if (len < TS_REC_IRHEADER_SIZE)
		return TS_E_TRUNCATED;
	h->flag = get32(payload);
	lbits = get32(payload + 4);
	memcpy(&h->label, &lbits, 4);
	h->id = get64(payload + 8);
	h->id2 = get64(payload + 16);
	/* flag > 0: flag float labels follow the header (recordio.py unpack). */
	size_t off = TS_REC_IRHEADER_SIZE + (size_t)h->flag * 4;
	if (off > len)
		return TS_E_TRUNCATED;
	*img_off = off;
	return 0;
}

static bool magic_at(const uint8_t *p)
{
	return get32(p) == TS_REC_MAGIC;
}

size_t ts_rec_magic_count(const uint8_t *payload, size_t len)
{
	size_t n = 0;

	for (size_t i = 0; i + 4 <= len; i += 4)
		n += magic_at(payload + i);
	return n;
}

size_t ts_rec_encoded_size(const uint8_t *payload, size_t len)
{
	return ts_rec_frame_size(len) + 4 * ts_rec_magic_count(payload, len);
}

static uint8_t *put_head(uint8_t *o, unsigned cflag, size_t len)
{
	put32(o, TS_REC_MAGIC);
	put32(o + 4, (uint32_t)cflag << 29 | (uint32_t)len);
	return o + 8;
}

/* The shape of dmlc-core's RecordIOWriter::WriteRecord. */
ssize_t ts_rec_encode(const uint8_t *payload, size_t len, uint8_t *out, size_t cap)
{
	size_t need, dptr = 0, lower = len & ~(size_t)3;
	uint8_t *o = out;

	if (len > TS_REC_MAX_LEN)
		return -EMSGSIZE;
	need = ts_rec_encoded_size(payload, len);
	if (need > cap)
		return -ENOSPC;
	for (size_t i = 0; i < lower; i += 4) {
		if (!magic_at(payload + i))
			continue;
		o = put_head(o, dptr == 0 ? TS_REC_FIRST : TS_REC_MIDDLE, i - dptr);
		memcpy(o, payload + dptr, i - dptr);
		o += i - dptr;
		dptr = i + 4;
	}
	o = put_head(o, dptr ? TS_REC_LAST : TS_REC_WHOLE, len - dptr);
	memcpy(o, payload + dptr, len - dptr);
	o += len - dptr;
	while ((size_t)(o - out) & 3)
		*o++ = 0;
	return (ssize_t)(o - out);
}

ssize_t ts_rec_decode(const uint8_t *frame, size_t avail, uint8_t *out, size_t cap,
		      size_t *used)
{
	size_t pos = 0, olen = 0;
	bool first = true;

	for (;;) {
		if (avail - pos < 8)
			return TS_E_TRUNCATED;
		if (!magic_at(frame + pos))
			return TS_E_FORMAT;
		uint32_t lrec = get32(frame + pos + 4);
		unsigned cflag = lrec >> 29;
		size_t len = lrec & TS_REC_MAX_LEN;
		size_t padded = (len + 3) & ~(size_t)3;

		if (first ? (cflag == TS_REC_MIDDLE || cflag == TS_REC_LAST)
			  : (cflag == TS_REC_WHOLE || cflag == TS_REC_FIRST))
			return TS_E_FORMAT;
		if (avail - pos - 8 < padded)
			return TS_E_TRUNCATED;
		if (cflag == TS_REC_MIDDLE || cflag == TS_REC_LAST) {
			/* put back the magic the writer split the payload at */
			if (cap - olen < 4)
				return -ENOSPC;
			put32(out + olen, TS_REC_MAGIC);
			olen += 4;
		}
		if (cap - olen < len)
			return -ENOSPC;
		/* out may alias frame: out + olen <= frame + pos + 8 always. */
		memmove(out + olen, frame + pos + 8, len);
		olen += len;
		pos += 8 + padded;
		first = false;
		if (cflag == TS_REC_WHOLE || cflag == TS_REC_LAST)
			break;
	}
	*used = pos;
	return (ssize_t)olen;
}

int ts_rec_writer_open(struct ts_rec_writer *w, const char *rec_path, const char *idx_path)
{
	memset(w, 0, sizeof(*w));
	w->rec = fopen(rec_path, "wb");
	if (!w->rec)
		return -errno;
	w->idx = fopen(idx_path, "w");
	if (!w->idx) {
		int err = -errno;
		fclose(w->rec);
		w->rec = NULL;
		return err;
	}
	return 0;
}

int ts_rec_writer_add(struct ts_rec_writer *w, uint64_t key, const uint8_t *payload, size_t len)
{
	size_t need = ts_rec_encoded_size(payload, len);
	ssize_t n;

	if (len > TS_REC_MAX_LEN)
		return -EMSGSIZE;
	if (need > w->cap) {
		uint8_t *nb = realloc(w->buf, need);
		if (!nb)
			return -ENOMEM;
		w->buf = nb;
		w->cap = need;
	}
	n = ts_rec_encode(payload, len, w->buf, w->cap);
	if (n < 0)
		return (int)n;
	if (fprintf(w->idx, "%" PRIu64 "\t%" PRIu64 "\n", key, w->offset) < 0)
		return -EIO;
	if (fwrite(w->buf, 1, (size_t)n, w->rec) != (size_t)n)
		return errno ? -errno : -EIO;
	w->offset += (uint64_t)n;
	w->count++;
	return 0;
}

static int close_one(FILE **f)
{
	int err = 0;

	if (!*f)
		return 0;
	if (fflush(*f) || ferror(*f))
		err = errno ? -errno : -EIO;
	if (fclose(*f) && !err)
		err = -errno;
	*f = NULL;
	return err;
}

int ts_rec_writer_close(struct ts_rec_writer *w)
{
	int e1 = close_one(&w->rec);
	int e2 = close_one(&w->idx);

	free(w->buf);
	w->buf = NULL;
	w->cap = 0;
	return e1 ? e1 : e2;
}

void ts_rec_index_free(struct ts_rec_index *ix)
{
	free(ix->key);
	free(ix->offset);
	free(ix->length);
	memset(ix, 0, sizeof(*ix));
}

static int grow(struct ts_rec_index *ix, size_t *cap)
{
	size_t nc = *cap ? *cap * 2 : 1024;
	uint64_t *k = realloc(ix->key, nc * sizeof(*k));
	if (!k)
		return -ENOMEM;
	ix->key = k;
	uint64_t *o = realloc(ix->offset, nc * sizeof(*o));
	if (!o)
		return -ENOMEM;
	ix->offset = o;
	*cap = nc;
	return 0;
}

int ts_rec_index_load(struct ts_rec_index *ix, const char *idx_path, uint64_t rec_size,
		      char *err, size_t errlen)
{
	char line[256];
	size_t cap = 0, lineno = 0;
	int rc = 0;
	FILE *f;

	memset(ix, 0, sizeof(*ix));
	f = fopen(idx_path, "r");
	if (!f) {
		rc = -errno;
		if (err)
			snprintf(err, errlen, "%s: %s", idx_path, ts_strerror(rc));
		return rc;
	}
	while (fgets(line, sizeof(line), f)) {
		unsigned long long k, off;
		char *end;

		lineno++;
		if (line[0] == '\n')
			continue;
		errno = 0;
		k = strtoull(line, &end, 10);
		if (end == line || *end != '\t' || errno)
			goto bad_line;
		char *s = end + 1;
		off = strtoull(s, &end, 10);
		if (end == s || (*end != '\n' && *end != '\0') || errno)
			goto bad_line;
		if (off >= rec_size || (ix->count && off <= ix->offset[ix->count - 1])) {
			rc = TS_E_FORMAT;
			if (err)
				snprintf(err, errlen,
					 "%s:%zu: offset %llu is %s; rebuild the index from the .rec",
					 idx_path, lineno, off,
					 off >= rec_size ? "past the end of the .rec"
							 : "not after the previous one");
			goto out;
		}
		if (ix->count == cap && (rc = grow(ix, &cap)))
			goto out;
		ix->key[ix->count] = k;
		ix->offset[ix->count] = off;
		ix->count++;
		continue;
bad_line:
		rc = TS_E_PARSE;
		if (err)
			snprintf(err, errlen, "%s:%zu: expected \"key<TAB>offset\"", idx_path,
				 lineno);
		goto out;
	}
	if (ferror(f)) {
		rc = -EIO;
		if (err)
			snprintf(err, errlen, "%s: read error", idx_path);
		goto out;
	}
	ix->length = malloc((ix->count ? ix->count : 1) * sizeof(*ix->length));
	if (!ix->length) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < ix->count; i++)
		ix->length[i] = (i + 1 < ix->count ? ix->offset[i + 1] : rec_size) - ix->offset[i];
out:
	fclose(f);
	if (rc)
		ts_rec_index_free(ix);
	return rc;
}
