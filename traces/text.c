/*
 * text.c — the trace's text form. Every item of the binary file is one
 * line; strings are double-quoted with C escapes, numbers are decimal.
 */
#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "traces/text.h"

static void put_str(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", out);
		else if (c == '\t')
			fputs("\\t", out);
		else if (c < 0x20 || c == 0x7f)
			fprintf(out, "\\x%02x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

/* Version 3's model options in the header line, when its bit is set. */
static const struct {
	const char *key;
	uint32_t bit;
	size_t off;
} model_keys[] = {
    {"seed", TS_TRACE_MODEL_SEED, offsetof(struct ts_trace_hdr, seed)},
    {"floor_ns", TS_TRACE_MODEL_FLOOR, offsetof(struct ts_trace_hdr, floor_ns)},
    {"dirty_limit", TS_TRACE_MODEL_DIRTY_LIMIT, offsetof(struct ts_trace_hdr, dirty_limit)},
    {"ra_max", TS_TRACE_MODEL_RA_MAX, offsetof(struct ts_trace_hdr, ra_max)},
    {"mem_bps", TS_TRACE_MODEL_MEM_BPS, offsetof(struct ts_trace_hdr, mem_bps)},
};

/* Version 5's EBS limits (TS_TRACE_MODEL_EBS): doubles, written with 17
 * digits so that they read back to the same bits. */
static const struct {
	const char *key;
	size_t off;
} ebs_keys[] = {
    {"ebs_iops", offsetof(struct ts_trace_hdr, ebs_iops)},
    {"ebs_max_iops", offsetof(struct ts_trace_hdr, ebs_max_iops)},
    {"ebs_bps", offsetof(struct ts_trace_hdr, ebs_bps)},
    {"ebs_max_bps", offsetof(struct ts_trace_hdr, ebs_max_bps)},
    {"ebs_burst_s", offsetof(struct ts_trace_hdr, ebs_burst_s)},
};

static double *ebs_field(struct ts_trace_hdr *h, size_t i)
{
	return (double *)((char *)h + ebs_keys[i].off);
}

static void put_rec(FILE *out, const struct ts_trace *t, size_t i)
{
	const struct ts_trace_rec *r = &t->recs[i];
	fprintf(out,
		"%" PRIu64 " %" PRIu64 " %s %" PRIu32 " %" PRIu64 " %" PRIu64 " %" PRId64
		" %" PRIu32 " %" PRIu64 " %" PRIu32 " %" PRIu16 "\n",
		r->submit_ns, r->complete_ns, ts_trace_op_name(r->op), r->file_id, r->offset,
		r->length, r->result, r->tid, r->size, r->aux, r->flags);
	if (t->cpu && t->cpu[i].pid) {
		const struct ts_trace_cpu *c = &t->cpu[i];
		bool unread = c->flags & TS_CPU_F_GAP; /* its clocks are the reader's estimate */
		fprintf(out,
			"cpu %" PRIu32 " pid=%" PRIu32 " ppid=%" PRIu32 " on_ns=%" PRIu64
			" runq_ns=%" PRIu64 " sys_ns=%" PRIu64 " late_ns=%" PRIu64,
			r->tid, c->pid, c->ppid, unread ? 0 : c->on_ns, unread ? 0 : c->runq_ns,
			c->sys_ns, c->late_ns);
		if (c->flags)
			fprintf(out, " flags=%" PRIu16, c->flags);
		fputc('\n', out);
	}
	if (t->issue && t->issue[i].set) {
		const struct ts_trace_issue *is = &t->issue[i];
		fprintf(out,
			"issue %" PRIu32 " issue_ns=%" PRIu64 " end_ns=%" PRIu64 " off_ns=%" PRIu64
			"%s\n",
			r->tid, is->issue_ns, is->end_ns, is->off_ns,
			is->watched ? " flags=1" : "");
	}
}

int ts_trace_dump(FILE *out, const struct ts_trace *t)
{
	const struct ts_trace_hdr *h = &t->hdr;
	size_t done = 0;

	fprintf(out, "# tiersim trace, text form. `tiersim trace undump` turns it back into the "
		     "binary trace.\n");
	fprintf(out, "# IO lines: submit_ns complete_ns op file_id offset length result tid size "
		     "aux flags\n");
	fprintf(out,
		"header version=%u start_wall_ns=%" PRIu64 " start_mono_ns=%" PRIu64
		" capacity=%" PRIu64 " mem=%" PRIu64 " tier=",
		h->version >= TS_TRACE_VERSION_MIN && h->version <= TS_TRACE_VERSION
		    ? h->version
		    : TS_TRACE_VERSION,
		h->start_wall_ns, h->start_mono_ns, h->capacity, h->mem);
	put_str(out, h->tier);
	fputs(" profile=", out);
	put_str(out, h->profile);
	fputs(" mount_opts=", out);
	put_str(out, h->mount_opts);
	fputs(" host=", out);
	put_str(out, h->host);
	/* the bits of the header's version: an older header's loop hop,
	 * read from its mount_opts, stays there, and the image bit its hop
	 * implies is not written */
	uint32_t model = h->model & TS_TRACE_MODEL_OF(h->version);
	if (h->version >= 3 && model) {
		fprintf(out, " model=%" PRIu32, model);
		for (size_t i = 0; i < TS_ARRAY_SIZE(model_keys); i++)
			if (model & model_keys[i].bit)
				fprintf(out, " %s=%" PRIu64, model_keys[i].key,
					*(const uint64_t *)((const char *)h + model_keys[i].off));
		for (size_t i = 0; model & TS_TRACE_MODEL_EBS && i < TS_ARRAY_SIZE(ebs_keys); i++)
			fprintf(out, " %s=%.17g", ebs_keys[i].key,
				*ebs_field((struct ts_trace_hdr *)h, i));
		if (model & TS_TRACE_MODEL_LOOP_HOP)
			fprintf(out, " loop_hop_ns=%" PRIu64, h->loop_hop_ns);
		if (model & TS_TRACE_MODEL_LOOP_PARTS)
			fprintf(out, " loop_size_ns=%" PRIu64 " loop_window_ns=%" PRIu64,
				h->loop_size_ns, h->loop_window_ns);
		if (model & TS_TRACE_MODEL_FS)
			fprintf(out,
				" fs_blocks=%" PRIu64 " fs_block=%llu fs_bpg=%" PRIu32
				" fs_ipg=%" PRIu32 " fs_inode=%u fs_rsv_gdt=%u fs_flex=%llu fs_desc=%u",
				h->fs_blocks, 1ULL << h->fs_block_log, h->fs_bpg, h->fs_ipg,
				(unsigned)h->fs_inode_size, (unsigned)h->fs_rsv_gdt,
				1ULL << h->fs_flex_log, (unsigned)h->fs_desc_size);
	}
	fputc('\n', out);
	for (size_t i = 0; i < t->nitems; i++) {
		const struct ts_trace_item *it = &t->items[i];
		for (; done < it->at_rec && done < t->nrecs; done++)
			put_rec(out, t, done);
		switch (it->op) {
		case TS_ITEM_PATH:
			fprintf(out, "path %" PRIu64 " ", it->val);
			put_str(out, ts_trace_path(t, (uint32_t)it->val));
			const struct ts_trace_node *nd = ts_trace_node_of(t, (uint32_t)it->val);
			if (nd)
				fprintf(out,
					" ino=%" PRIu64 " blocks=%" PRIu64 " backing_ino=%" PRIu64
					" inodes=%" PRIu32 " flags=%u",
					nd->ino, nd->blocks, nd->backing_ino, nd->inodes,
					(unsigned)nd->flags);
			fputc('\n', out);
			break;
		case TS_ITEM_DROPS:
			fprintf(out, "drops %" PRIu64 " t=%" PRIu64 "\n", it->val, it->t_ns);
			break;
		case TS_ITEM_END:
			fprintf(out, "end drops=%" PRIu64 " records=%" PRIu64 " t=%" PRIu64 "\n",
				t->end.offset, t->end.length, t->end.submit_ns);
			break;
		case TS_ITEM_PACK:
			fprintf(out, "pack %" PRIu64 "\n", it->val);
			break;
		}
	}
	for (; done < t->nrecs; done++)
		put_rec(out, t, done);
	if (t->truncated)
		fprintf(out, "# cut short: no trailer%s\n",
			t->trailing_bytes ? ", an incomplete last item was left out" : "");
	return ferror(out) ? -EIO : 0;
}

/* ---- parser ---- */

#define MAXTOK 24

struct tok {
	char key[24]; /* "" when the token has no key= */
	char *val;    /* decoded, NUL-terminated (points into the line buffer) */
};

/* Splits @line in place into tokens; decodes quoted strings. Returns the
 * count, or -1 with @why set. */
static int tokenize(char *line, struct tok *tok, const char **why)
{
	int n = 0;
	char *p = line;

	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p || *p == '\n')
			return n;
		if (n == MAXTOK) {
			*why = "too many fields";
			return -1;
		}
		struct tok *t = &tok[n++];
		t->key[0] = 0;
		char *q = p;
		while (isalnum((unsigned char)*q) || *q == '_')
			q++;
		if (*q == '=' && q > p) {
			if ((size_t)(q - p) >= sizeof(t->key)) {
				*why = "key too long";
				return -1;
			}
			memcpy(t->key, p, (size_t)(q - p));
			t->key[q - p] = 0;
			p = q + 1;
		}
		if (*p != '"') {
			t->val = p;
			while (*p && *p != ' ' && *p != '\t' && *p != '\n')
				p++;
			if (*p)
				*p++ = 0;
			continue;
		}
		/* quoted: decode in place (the result is never longer) */
		char *o = ++p;
		t->val = o;
		for (;;) {
			char c = *p++;
			if (!c || c == '\n') {
				*why = "unterminated string";
				return -1;
			}
			if (c == '"')
				break;
			if (c != '\\') {
				*o++ = c;
				continue;
			}
			c = *p++;
			if (c == 'n')
				*o++ = '\n';
			else if (c == 't')
				*o++ = '\t';
			else if (c == '"' || c == '\\')
				*o++ = c;
			else if (c == 'x' && isxdigit((unsigned char)p[0]) &&
				 isxdigit((unsigned char)p[1])) {
				char hex[3] = {p[0], p[1], 0};
				unsigned v = (unsigned)strtoul(hex, NULL, 16);
				if (!v) {
					*why = "\\x00 inside a string";
					return -1;
				}
				*o++ = (char)v;
				p += 2;
			} else {
				*why = "bad escape in string";
				return -1;
			}
		}
		if (*p && *p != ' ' && *p != '\t' && *p != '\n') {
			*why = "text right after a closing quote";
			return -1;
		}
		*o = 0;
	}
}

static int parse_i64(const char *s, int64_t *out)
{
	uint64_t v;
	bool neg = *s == '-';
	if (ts_trace_parse_u64(s + neg, neg ? (uint64_t)INT64_MAX + 1 : INT64_MAX, &v))
		return -1;
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return 0;
}

static const char *const rec_fields[] = {
    "submit_ns", "complete_ns", "op",	"file_id", "offset", "length",
    "result",	 "tid",		"size", "aux",	   "flags",
};

static int set_str(char *dst, size_t n, const char *v)
{
	if (strlen(v) >= n)
		return -1;
	strcpy(dst, v);
	return 0;
}

/* One of version 3's model options: 0, 1 for a bad value, -1 for a key
 * that is not one. */
static int model_field(struct ts_trace_hdr *h, const char *k, const char *v)
{
	for (size_t i = 0; i < TS_ARRAY_SIZE(ebs_keys); i++)
		if (!strcmp(k, ebs_keys[i].key)) {
			char *end;
			errno = 0;
			double x = strtod(v, &end);
			if (errno || end == v || *end || !(x >= 0 && x <= DBL_MAX))
				return 1;
			*ebs_field(h, i) = x;
			return 0;
		}
	if (!strcmp(k, "loop_hop_ns"))
		return ts_trace_parse_u64(v, UINT64_MAX, &h->loop_hop_ns) ? 1 : 0;
	if (!strcmp(k, "loop_size_ns"))
		return ts_trace_parse_u64(v, UINT64_MAX, &h->loop_size_ns) ? 1 : 0;
	if (!strcmp(k, "loop_window_ns"))
		return ts_trace_parse_u64(v, UINT64_MAX, &h->loop_window_ns) ? 1 : 0;
	/* version 12's geometry: the block and flex group sizes as powers of
	 * two, the rest as the fields hold them */
	uint64_t x;
	if (!strcmp(k, "fs_blocks"))
		return ts_trace_parse_u64(v, UINT64_MAX, &h->fs_blocks) ? 1 : 0;
	if (!strcmp(k, "fs_block") || !strcmp(k, "fs_flex")) {
		if (ts_trace_parse_u64(v, 1ULL << 31, &x) || !x || (x & (x - 1)))
			return 1;
		*(k[3] == 'b' ? &h->fs_block_log : &h->fs_flex_log) = (uint8_t)__builtin_ctzll(x);
		return 0;
	}
	if (!strcmp(k, "fs_bpg") || !strcmp(k, "fs_ipg")) {
		if (ts_trace_parse_u64(v, UINT32_MAX, &x))
			return 1;
		*(k[3] == 'b' ? &h->fs_bpg : &h->fs_ipg) = (uint32_t)x;
		return 0;
	}
	if (!strcmp(k, "fs_inode") || !strcmp(k, "fs_rsv_gdt")) {
		if (ts_trace_parse_u64(v, UINT16_MAX, &x))
			return 1;
		*(k[3] == 'i' ? &h->fs_inode_size : &h->fs_rsv_gdt) = (uint16_t)x;
		return 0;
	}
	if (!strcmp(k, "fs_desc")) {
		if (ts_trace_parse_u64(v, UINT8_MAX, &x))
			return 1;
		h->fs_desc_size = (uint8_t)x;
		return 0;
	}
	for (size_t i = 0; i < TS_ARRAY_SIZE(model_keys); i++)
		if (!strcmp(k, model_keys[i].key))
			return ts_trace_parse_u64(v, UINT64_MAX,
						  (uint64_t *)((char *)h + model_keys[i].off))
				   ? 1
				   : 0;
	return -1;
}

/* "header version=1 key=value ...": the first line. */
static int header_line(const struct ts_trace_where *w, struct ts_trace_hdr *h,
		       const struct tok *tok, int n)
{
	bool seen_version = false;
	for (int i = 1; i < n; i++) {
		const char *k = tok[i].key, *v = tok[i].val;
		uint64_t x;
		int fail = 0;
		if (!strcmp(k, "version")) {
			if (ts_trace_parse_u64(v, UINT32_MAX, &x))
				fail = 1;
			else if (x < TS_TRACE_VERSION_MIN || x > TS_TRACE_VERSION) {
				ts_trace_bad(w, "trace version %s; this tiersim reads versions %u to %u",
					     v, TS_TRACE_VERSION_MIN, TS_TRACE_VERSION);
				return TS_E_VERSION;
			}
			h->version = (uint32_t)x;
			seen_version = true;
		} else if (!strcmp(k, "start_wall_ns"))
			fail = ts_trace_parse_u64(v, UINT64_MAX, &h->start_wall_ns);
		else if (!strcmp(k, "start_mono_ns"))
			fail = ts_trace_parse_u64(v, UINT64_MAX, &h->start_mono_ns);
		else if (!strcmp(k, "capacity"))
			fail = ts_trace_parse_u64(v, UINT64_MAX, &h->capacity);
		else if (!strcmp(k, "mem"))
			fail = ts_trace_parse_u64(v, UINT64_MAX, &h->mem);
		else if (!strcmp(k, "tier"))
			fail = set_str(h->tier, sizeof(h->tier), v);
		else if (!strcmp(k, "profile"))
			fail = set_str(h->profile, sizeof(h->profile), v);
		else if (!strcmp(k, "mount_opts"))
			fail = set_str(h->mount_opts, sizeof(h->mount_opts), v);
		else if (!strcmp(k, "host"))
			fail = set_str(h->host, sizeof(h->host), v);
		else if (!strcmp(k, "model")) {
			if (!(fail = ts_trace_parse_u64(v, TS_TRACE_MODEL_OF(TS_TRACE_VERSION), &x)))
				h->model = (uint32_t)x;
		} else if ((fail = model_field(h, k, v)) < 0)
			return ts_trace_bad(w, "header field %d: unknown key \"%s\"", i, k);
		if (fail)
			return ts_trace_bad(w, "header field %s: bad value \"%s\"", k, v);
	}
	if (!seen_version)
		return ts_trace_bad(w, "header has no version=");
	if (h->version < 3 && h->model)
		return ts_trace_bad(w, "header: model options are version 3's; a version %u "
				       "header has them in mount_opts", h->version);
	if (h->model & ~TS_TRACE_MODEL_OF(h->version))
		return ts_trace_bad(w, "header: model=%" PRIu32 " sets bits a version %u header "
				       "does not have (0x80, the EBS limits, is version 5's; 0x100, "
				       "the loop hop, version 6's; 0x200, its size and window parts, "
				       "version 7's; 0x400, the disk image, version 8's; 0x800, carry, "
				       "version 10's; 0x1000, the image's geometry, version 12's)",
				    h->model, h->version);
	for (size_t i = 0; i < TS_ARRAY_SIZE(model_keys); i++)
		if (!(h->model & model_keys[i].bit) &&
		    *(const uint64_t *)((const char *)h + model_keys[i].off))
			return ts_trace_bad(w, "header field %s without its bit in model=",
					    model_keys[i].key);
	for (size_t i = 0; i < TS_ARRAY_SIZE(ebs_keys); i++)
		/* signbit too: -0 == 0, but its bits are not zero, and the
		 * binary reader refuses any non-zero bits without 0x80 */
		if (!(h->model & TS_TRACE_MODEL_EBS) &&
		    (*ebs_field(h, i) != 0 || signbit(*ebs_field(h, i))))
			return ts_trace_bad(w, "header field %s without its bit (0x80) in model=",
					    ebs_keys[i].key);
	if (!(h->model & TS_TRACE_MODEL_LOOP_HOP) && h->loop_hop_ns)
		return ts_trace_bad(w, "header field loop_hop_ns without its bit (0x100) in model=");
	if (!(h->model & TS_TRACE_MODEL_LOOP_PARTS) && (h->loop_size_ns || h->loop_window_ns))
		return ts_trace_bad(w, "header field %s without its bit (0x200) in model=",
				    h->loop_size_ns ? "loop_size_ns" : "loop_window_ns");
	if (h->model & TS_TRACE_MODEL_LOOP_PARTS && !(h->model & TS_TRACE_MODEL_LOOP_HOP))
		return ts_trace_bad(w, "header: model= sets the loop hop's parts (0x200) "
				       "without the hop (0x100)");
	char why[256];
	if (ts_trace_hdr_fs_check(h, why, sizeof(why)))
		return ts_trace_bad(w, "header: %s", why);
	if (ts_trace_hdr_legacy(h, why, sizeof(why)))
		return ts_trace_bad(w, "header mount_opts: %s", why);
	return 0;
}

/* "path ID \"PATH\"" (version 11: then "ino=N blocks=N backing_ino=N
 * inodes=N flags=N", all or none), "drops N t=NS" and "end drops=N
 * records=N t=NS". */
static int meta_line(const struct ts_trace_where *w, struct ts_trace *t, const char *kw,
		     const struct tok *tok, int n, bool *ended)
{
	if (t->npacked && ts_trace_add_pack(t))
		return ts_trace_bad(w, "a packed IO line (flag %u) before it lacks its cpu line",
				    TS_REC_F_PACKED);
	if (!strcmp(kw, "path")) {
		uint64_t id;
		static const char *const nkeys[] = {"ino", "blocks", "backing_ino", "inodes",
						    "flags"};
		if (n != 3 && n != 3 + (int)TS_ARRAY_SIZE(nkeys))
			return ts_trace_bad(w,
					    "path line is 'path ID \"PATH\"' with 'ino=N blocks=N "
					    "backing_ino=N inodes=N flags=N' after it or none");
		if (ts_trace_parse_u64(tok[1].val, UINT32_MAX, &id) || id != t->npaths)
			return ts_trace_bad(w, "field 1 (id): expected %u, got \"%s\"", t->npaths,
					    tok[1].val);
		if (n == 3) {
			int ret = ts_trace_add_path(t, tok[2].val, NULL);
			return ret ? ts_trace_bad(w, "field 2 (path): %s", ts_strerror(ret)) : 0;
		}
		uint64_t x[TS_ARRAY_SIZE(nkeys)];
		static const uint64_t max[] = {UINT64_MAX, INT64_MAX, UINT64_MAX, UINT32_MAX,
					       UINT16_MAX};
		for (size_t i = 0; i < TS_ARRAY_SIZE(nkeys); i++) {
			if (strcmp(tok[3 + i].key, nkeys[i]))
				return ts_trace_bad(w, "field %zu: expected %s=", 3 + i, nkeys[i]);
			if (ts_trace_parse_u64(tok[3 + i].val, max[i], &x[i]))
				return ts_trace_bad(w, "field %s: not a number: \"%s\"", nkeys[i],
						    tok[3 + i].val);
		}
		const struct ts_trace_node nd = {.ino = x[0],
						 .blocks = x[1],
						 .backing_ino = x[2],
						 .inodes = (uint32_t)x[3],
						 .flags = (uint16_t)x[4]};
		int ret = ts_trace_add_path_node(t, tok[2].val, &nd, NULL);
		if (ret == -EINVAL)
			return ts_trace_bad(w,
					    "a path's node is version 11's, with flags=1 (a file, "
					    "blocks=0) or 3 (a folder) and ino > 0");
		return ret ? ts_trace_bad(w, "field 2 (path): %s", ts_strerror(ret)) : 0;
	}
	if (!strcmp(kw, "drops")) {
		uint64_t d, ts;
		if (n != 3 || strcmp(tok[2].key, "t"))
			return ts_trace_bad(w, "drops line is \"drops N t=NS\"");
		if (ts_trace_parse_u64(tok[1].val, UINT64_MAX, &d))
			return ts_trace_bad(w, "field 1 (count): not a number: \"%s\"", tok[1].val);
		if (ts_trace_parse_u64(tok[2].val, UINT64_MAX, &ts))
			return ts_trace_bad(w, "field t: not a number: \"%s\"", tok[2].val);
		return ts_trace_add_drops(t, d, ts);
	}
	uint64_t v[3];
	static const char *const keys[] = {"drops", "records", "t"};
	if (n != 4)
		return ts_trace_bad(w, "end line is \"end drops=N records=N t=NS\"");
	for (int i = 0; i < 3; i++) {
		if (strcmp(tok[i + 1].key, keys[i]))
			return ts_trace_bad(w, "field %d: expected %s=", i + 1, keys[i]);
		if (ts_trace_parse_u64(tok[i + 1].val, UINT64_MAX, &v[i]))
			return ts_trace_bad(w, "field %s: not a number: \"%s\"", keys[i],
					    tok[i + 1].val);
	}
	*ended = true;
	return ts_trace_add_end(t, v[0], v[1], v[2]);
}

/* An IO record: the eleven fields of rec_fields[]. */
static int rec_line(const struct ts_trace_where *w, struct ts_trace *t, const struct tok *tok,
		    int n)
{
	if (n != (int)TS_ARRAY_SIZE(rec_fields))
		return ts_trace_bad(w, "an IO line has %zu fields (%s ... %s), this one %d",
				    TS_ARRAY_SIZE(rec_fields), rec_fields[0], rec_fields[10], n);
	struct ts_trace_rec r = {0};
	uint64_t v[11];
	for (int i = 0; i < n; i++) {
		int fail = 0;
		if (tok[i].key[0])
			fail = 1;
		else if (i == 2)
			fail = !(r.op = (uint16_t)ts_trace_op_from_name(tok[i].val));
		else if (i == 6)
			fail = parse_i64(tok[i].val, &r.result);
		else
			fail = ts_trace_parse_u64(tok[i].val,
						  i == 3 || i == 7 || i == 9 ? UINT32_MAX
						  : i == 10		     ? UINT16_MAX
									     : UINT64_MAX,
						  &v[i]);
		if (fail)
			return ts_trace_bad(w, "field %d (%s): bad value \"%s\"", i + 1,
					    rec_fields[i], tok[i].val);
	}
	r.submit_ns = v[0];
	r.complete_ns = v[1];
	r.file_id = (uint32_t)v[3];
	r.offset = v[4];
	r.length = v[5];
	r.tid = (uint32_t)v[7];
	r.size = v[8];
	r.aux = (uint32_t)v[9];
	r.flags = (uint16_t)v[10];
	if ((r.flags & TS_REC_F_PACKED) && t->hdr.version < 10)
		return ts_trace_bad(w, "field 11 (flags): flag %u (packed) is version 10's",
				    TS_REC_F_PACKED);
	/* a full pack closes before the next packed record */
	if ((r.flags & TS_REC_F_PACKED) && t->npacked == TS_TRACE_PACK_MAX && ts_trace_add_pack(t))
		return ts_trace_bad(w, "a packed IO line (flag %u) before it lacks its cpu line",
				    TS_REC_F_PACKED);
	return ts_trace_add_rec(t, &r);
}

/* "cpu TID pid=N ppid=N on_ns=N runq_ns=N [sys_ns=N [late_ns=N [flags=N]]]":
 * the CPU sample of the IO line just before it (version 2; flags: 4). */
static int cpu_line(const struct ts_trace_where *w, struct ts_trace *t, const struct tok *tok,
		    int n)
{
	static const char *const keys[] = {"pid",    "ppid",    "on_ns", "runq_ns",
					   "sys_ns", "late_ns", "flags"};
	uint64_t tid, v[7] = {0};
	if (n < 6 || n > 9)
		return ts_trace_bad(w, "cpu line is \"cpu TID pid=N ppid=N on_ns=N runq_ns=N "
				       "[sys_ns=N [late_ns=N [flags=N]]]\"");
	if (tok[1].key[0] || ts_trace_parse_u64(tok[1].val, UINT32_MAX, &tid))
		return ts_trace_bad(w, "field 1 (tid): bad value \"%s\"", tok[1].val);
	for (int i = 0; i < n - 2; i++) {
		if (strcmp(tok[i + 2].key, keys[i]))
			return ts_trace_bad(w, "field %d: expected %s=", i + 2, keys[i]);
		if (ts_trace_parse_u64(tok[i + 2].val,
				       i < 2 ? UINT32_MAX : i == 6 ? UINT16_MAX : UINT64_MAX, &v[i]))
			return ts_trace_bad(w, "field %s: not a number: \"%s\"", keys[i],
					    tok[i + 2].val);
	}
	if (t->hdr.version < 2)
		return ts_trace_bad(w, "cpu line in a version %u trace", t->hdr.version);
	if (!v[0] || !t->nrecs || t->recs[t->nrecs - 1].tid != tid)
		return ts_trace_bad(w, "cpu line must follow an IO line of thread %s and name a "
				       "pid other than 0",
				    tok[1].val);
	struct ts_trace_cpu c = {.pid = (uint32_t)v[0],
				 .ppid = (uint32_t)v[1],
				 .on_ns = v[2],
				 .runq_ns = v[3],
				 .sys_ns = v[4],
				 .late_ns = v[5],
				 .flags = (uint16_t)v[6]};
	if (c.flags && (t->hdr.version < 4 || (c.flags != TS_CPU_F_GAP && c.flags != TS_CPU_F_RUN) ||
			(c.flags == TS_CPU_F_GAP && (c.on_ns || c.runq_ns))))
		return ts_trace_bad(w, "field flags: %s (version 4: 1, with on_ns=0 runq_ns=0, or "
				       "2)",
				    t->hdr.version < 4 ? "a version 4 field" : "bad value");
	if ((t->recs[t->nrecs - 1].flags & TS_REC_F_PACKED) &&
	    (c.flags != TS_CPU_F_GAP || c.sys_ns > UINT32_MAX || c.late_ns > UINT32_MAX))
		return ts_trace_bad(w, "a packed IO line's cpu line has flags=1, and sys_ns and "
				       "late_ns within 32 bits");
	int ret = ts_trace_add_cpu(t, &c);
	if (ret == -EINVAL)
		return ts_trace_bad(w, "cpu line must follow its IO line directly (one sample "
				       "per record, before its issue line)");
	return ret;
}

/* "pack N": the pack item after the N packed IO lines before it, whose
 * cpu lines hold what it carries (version 10). The text may be edited:
 * a pack line closes the packed IO lines before it whatever N says, and
 * none is needed (packs close before a seventh packed line, a path,
 * drops or end line, and at the end), so that moving or dropping IO lines
 * keeps a valid trace; unedited text gives the file's bytes back. */
static int pack_line(const struct ts_trace_where *w, struct ts_trace *t, const struct tok *tok,
		     int n)
{
	uint64_t k;
	if (n != 2 || tok[1].key[0] || ts_trace_parse_u64(tok[1].val, TS_TRACE_PACK_MAX, &k))
		return ts_trace_bad(w, "pack line is \"pack N\" (N from 1 to %u)",
				    TS_TRACE_PACK_MAX);
	if (t->hdr.version < 10)
		return ts_trace_bad(w, "pack line in a version %u trace (version 10's)",
				    t->hdr.version);
	if (t->npacked && ts_trace_add_pack(t))
		return ts_trace_bad(w, "pack %s: a packed IO line (flag %u) before it lacks its "
				       "cpu line",
				    tok[1].val, TS_REC_F_PACKED);
	return 0;
}

/* "issue TID issue_ns=N end_ns=N off_ns=N [flags=1]": block mode's
 * request clock of the IO line just before it, after its cpu line
 * (version 9; flags=1, watched, version 10). */
static int issue_line(const struct ts_trace_where *w, struct ts_trace *t, const struct tok *tok,
		      int n)
{
	static const char *const keys[] = {"issue_ns", "end_ns", "off_ns", "flags"};
	uint64_t tid, v[4] = {0};
	if (n != 5 && n != 6)
		return ts_trace_bad(w, "issue line is \"issue TID issue_ns=N end_ns=N off_ns=N "
				       "[flags=1]\"");
	if (tok[1].key[0] || ts_trace_parse_u64(tok[1].val, UINT32_MAX, &tid))
		return ts_trace_bad(w, "field 1 (tid): bad value \"%s\"", tok[1].val);
	for (int i = 0; i < n - 2; i++) {
		if (strcmp(tok[i + 2].key, keys[i]))
			return ts_trace_bad(w, "field %d: expected %s=", i + 2, keys[i]);
		if (ts_trace_parse_u64(tok[i + 2].val, i == 3 ? TS_ISSUE_F_WATCHED : UINT64_MAX,
				       &v[i]))
			return ts_trace_bad(w, "field %s: not a number: \"%s\"", keys[i],
					    tok[i + 2].val);
	}
	if (t->hdr.version < 9)
		return ts_trace_bad(w, "issue line in a version %u trace (version 9's)",
				    t->hdr.version);
	if (!t->nrecs || t->recs[t->nrecs - 1].tid != tid)
		return ts_trace_bad(w, "issue line must follow an IO line of thread %s",
				    tok[1].val);
	struct ts_trace_issue is = {
	    .issue_ns = v[0], .end_ns = v[1], .off_ns = v[2], .watched = v[3] != 0};
	int ret = ts_trace_add_issue(t, &is);
	if (ret == -EINVAL)
		return ts_trace_bad(w, "issue line must follow its IO line (a read or write the "
				       "model charged) and its cpu line, one per record, with "
				       "issue_ns <= the record's submit_ns and <= end_ns (a "
				       "watched one, flags=1, version 10's, with off_ns=0)");
	return ret;
}

/* One line past its leading blanks (not a comment, not empty). */
static int undump_line(const struct ts_trace_where *w, struct ts_trace *t, char *p, bool *have_hdr,
		       bool *ended)
{
	struct tok tok[MAXTOK];
	const char *why = NULL;
	int n = tokenize(p, tok, &why);
	if (n < 0)
		return ts_trace_bad(w, "%s", why);
	if (*ended)
		return ts_trace_bad(w, "text after the end line");
	const char *kw = tok[0].key[0] ? "" : tok[0].val;
	if (!*have_hdr) {
		if (strcmp(kw, "header"))
			return ts_trace_bad(
			    w, "expected the header line first (\"header version=1 ...\")");
		*have_hdr = true;
		return header_line(w, &t->hdr, tok, n);
	}
	if (!strcmp(kw, "path") || !strcmp(kw, "drops") || !strcmp(kw, "end"))
		return meta_line(w, t, kw, tok, n, ended);
	if (!strcmp(kw, "cpu"))
		return cpu_line(w, t, tok, n);
	if (!strcmp(kw, "issue"))
		return issue_line(w, t, tok, n);
	if (!strcmp(kw, "pack"))
		return pack_line(w, t, tok, n);
	return rec_line(w, t, tok, n);
}

int ts_trace_undump(FILE *in, const char *name, struct ts_trace *t, char *err, size_t errlen)
{
	char *line = NULL, dummy[256];
	size_t cap = 0;
	ssize_t len;
	bool have_hdr = false, ended = false;
	int ret = 0;
	struct ts_trace_where w = {name, 0, err ? err : dummy, err ? errlen : sizeof(dummy)};

	ts_trace_init(t);
	while (!ret && (len = getline(&line, &cap, in)) > 0) {
		w.lineno++;
		if ((size_t)len != strlen(line)) {
			ret = ts_trace_bad(&w, "NUL byte in the line");
			break;
		}
		char *p = line;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '#' || *p == '\n' || !*p)
			continue;
		ret = undump_line(&w, t, p, &have_hdr, &ended);
		/* Storing a record (out of memory) fails without a message. */
		if (ret && ret != TS_E_PARSE && ret != TS_E_VERSION)
			snprintf(w.err, w.errlen, "%s:%lu: %s", name, w.lineno, ts_strerror(ret));
	}
	if (!ret && t->npacked && ts_trace_add_pack(t)) {
		snprintf(w.err, w.errlen, "%s: a packed IO line (flag %u) lacks its cpu line", name,
			 TS_REC_F_PACKED);
		ret = TS_E_PARSE;
	}
	if (!ret && (ferror(in) || !have_hdr)) {
		snprintf(w.err, w.errlen, "%s: %s", name,
			 ferror(in) ? "read error" : "no header line (is this a trace dump?)");
		ret = TS_E_PARSE;
	}
	free(line);
	if (ret)
		ts_trace_free(t);
	return ret;
}
