/*
 * iolog.c — fio iolog v2/v3 import and v3 export (see iolog.h for the
 * syntax and fio's quirks that we follow).
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "traces/iolog.h"
#include "traces/stats.h"

#define FIO_NAME_MAX 256  /* fio reads names with %256s */
#define FIO_LINE_MAX 4096 /* and lines with fgets(str, 4096, ...) */

static const char v2_magic[] = "fio version 2 iolog";
static const char v3_magic[] = "fio version 3 iolog";

enum act { A_ADD, A_OPEN, A_CLOSE, A_READ, A_WRITE, A_SYNC, A_DATASYNC, A_TRIM, A_WAIT, A_BAD };

static enum act action(const char *s)
{
	static const char *const names[] = {"add",  "open",	"close", "read", "write",
					    "sync", "datasync", "trim",	 "wait"};
	for (unsigned i = 0; i < TS_ARRAY_SIZE(names); i++)
		if (!strcmp(s, names[i]))
			return (enum act)i;
	return A_BAD;
}

#define BAD(...)                                                                                   \
	do {                                                                                       \
		snprintf(err, errlen, __VA_ARGS__);                                                \
		ret = TS_E_PARSE;                                                                  \
		goto fail;                                                                         \
	} while (0)

/*
 * Why one long function: it is fio's iolog reader (iolog.c in fio) written
 * as a refusing one — each line is checked field by field in the order fio
 * reads it (version line, time for v3, file, action, offset and length, the
 * add/open/close life of a file), with one message per fault naming the
 * line and field. The checks share the line's tokens, the version and the
 * open-file state; the BAD() exit keeps every failure on one cleanup path.
 */
int ts_iolog_import(FILE *in, const char *name, struct ts_trace *t, struct ts_iolog_info *info,
		    char *err, size_t errlen)
{
	char *line = NULL, dummy[256], path[FIO_NAME_MAX + 2];
	size_t cap = 0;
	ssize_t len;
	unsigned long lineno = 0;
	uint64_t now_ns = 0;
	struct ts_iolog_info inf = {0};
	int ret = 0;
	uint32_t last_id = 0;
	char last_path[FIO_NAME_MAX + 2] = "";

	if (!err) {
		err = dummy;
		errlen = sizeof(dummy);
	}
	ts_trace_init(t);
	strcpy(t->hdr.mount_opts, "imported from a fio iolog");
	while ((len = getline(&line, &cap, in)) > 0) {
		lineno++;
		if ((size_t)len != strlen(line))
			BAD("%s:%lu: NUL byte in the line", name, lineno);
		if (len >= FIO_LINE_MAX)
			BAD("%s:%lu: line longer than %d bytes (fio reads lines with a %d-byte "
			    "buffer)",
			    name, lineno, FIO_LINE_MAX - 1, FIO_LINE_MAX);
		if (lineno == 1) {
			if (!strncmp(line, v2_magic, strlen(v2_magic)))
				inf.version = 2;
			else if (!strncmp(line, v3_magic, strlen(v3_magic)))
				inf.version = 3;
			else
				BAD("%s:1: not a fio iolog v2 or v3 (the first line must start "
				    "with "
				    "\"%s\" or \"%s\"; fio no longer reads version 1)",
				    name, v2_magic, v3_magic);
			continue;
		}
		char *tok[6], *save = NULL;
		int n = 0;
		for (char *p = strtok_r(line, " \t\r\n\v\f", &save); p && n < 6;
		     p = strtok_r(NULL, " \t\r\n\v\f", &save))
			tok[n++] = p;
		if (n == 0)
			continue; /* blank line */
		inf.lines++;
		int base = inf.version == 3; /* index of the file name */
		uint64_t ts_us = 0;
		if (inf.version == 3 && ts_trace_parse_u64(tok[0], UINT64_MAX / 1000, &ts_us))
			BAD("%s:%lu: field 1 (time): expected microseconds, got \"%s\"", name,
			    lineno, tok[0]);
		int nf = n - base; /* fields from the name on; extra ones fio ignores */
		if (nf < 2)
			BAD("%s:%lu: expected %s\"FILE ACTION [OFFSET LENGTH]\"", name, lineno,
			    inf.version == 3 ? "\"USEC \" then " : "");
		const char *fname = tok[base], *act = tok[base + 1];
		enum act a = action(act);
		if (strlen(fname) > FIO_NAME_MAX)
			BAD("%s:%lu: field %d (file): name longer than %d bytes (fio reads at most "
			    "%d)",
			    name, lineno, base + 1, FIO_NAME_MAX, FIO_NAME_MAX);
		if (a == A_BAD)
			BAD("%s:%lu: field %d (action): unknown action \"%s\" (add, open, close, "
			    "read, write, sync, datasync, trim%s)",
			    name, lineno, base + 2, act, inf.version == 2 ? ", wait" : "");
		bool io = a >= A_READ;
		if (io && nf < 4)
			BAD("%s:%lu: action %s needs OFFSET and LENGTH (fields %d and %d)", name,
			    lineno, act, base + 3, base + 4);
		uint64_t off = 0, length = 0;
		if (!io && nf != 2)
			BAD("%s:%lu: action %s takes no OFFSET and LENGTH (fio would skip this "
			    "line)",
			    name, lineno, act);
		if (io) {
			if (ts_trace_parse_u64(tok[base + 2], UINT64_MAX, &off))
				BAD("%s:%lu: field %d (offset): not a number: \"%s\"", name, lineno,
				    base + 3, tok[base + 2]);
			if (ts_trace_parse_u64(tok[base + 3], UINT32_MAX, &length))
				BAD("%s:%lu: field %d (length): not a number below 4 GiB: \"%s\"",
				    name, lineno, base + 4, tok[base + 3]);
		}
		if (inf.version == 3)
			now_ns = ts_us * 1000;
		if (a == A_WAIT) {
			if (inf.version == 3) {
				inf.ignored_waits++;
				continue;
			}
			/* v2: until OFFSET ms after the start (fio's code, not its docs) */
			if (off > UINT64_MAX / TS_NS_PER_MS)
				BAD("%s:%lu: field 3 (delay): too large", name, lineno);
			now_ns = TS_MAX(now_ns, off * TS_NS_PER_MS);
			continue;
		}
		/* names: mount-relative paths */
		if (fname[0] == '/')
			snprintf(path, sizeof(path), "%s", fname);
		else
			snprintf(path, sizeof(path), "/%s", fname);
		uint32_t id;
		if (last_id && !strcmp(path, last_path)) {
			id = last_id;
		} else {
			if ((ret = ts_trace_intern(t, path, &id)))
				BAD("%s:%lu: %s", name, lineno, ts_strerror(ret));
			last_id = id;
			strcpy(last_path, path);
		}
		if (a == A_ADD)
			continue;
		static const uint16_t ops[] = {
		    [A_OPEN] = TS_OP_OPEN,	[A_CLOSE] = TS_OP_CLOSE,
		    [A_READ] = TS_OP_READ,	[A_WRITE] = TS_OP_WRITE,
		    [A_SYNC] = TS_OP_FSYNC,	[A_DATASYNC] = TS_OP_FDATASYNC,
		    [A_TRIM] = TS_OP_FALLOCATE,
		};
		struct ts_trace_rec r = {
		    .submit_ns = now_ns,
		    .complete_ns = now_ns,
		    .op = ops[a],
		    .file_id = id,
		    .offset = off,
		    .length = length,
		    .tid = 1,
		};
		if (a == A_READ || a == A_WRITE)
			r.result = (int64_t)length;
		if (a == A_TRIM)
			r.aux = TS_IOLOG_PUNCH;
		if ((ret = ts_trace_add_rec(t, &r)))
			BAD("%s:%lu: %s", name, lineno, ts_strerror(ret));
		inf.ops++;
	}
	if (ferror(in))
		BAD("%s: read error", name);
	if (!inf.version)
		BAD("%s: empty file (not a fio iolog)", name);
	if ((ret = ts_trace_add_end(t, 0, t->nrecs, now_ns)))
		BAD("%s: %s", name, ts_strerror(ret));
	free(line);
	if (info)
		*info = inf;
	return 0;
fail:
	free(line);
	ts_trace_free(t);
	return ret;
}

/* The name fio sees for trace path @p. */
static const char *fio_name(char *buf, size_t n, const char *prefix, const char *p)
{
	if (!prefix || !*prefix)
		return p + (p[0] == '/');
	size_t l = strlen(prefix);
	while (l > 1 && prefix[l - 1] == '/')
		l--;
	snprintf(buf, n, "%.*s%s%s", (int)l, prefix, p[0] == '/' || prefix[l - 1] == '/' ? "" : "/",
		 l == 1 && prefix[0] == '/' && p[0] == '/' ? p + 1 : p);
	return buf;
}

static int check_name(const char *p, char *err, size_t errlen)
{
	size_t l = strlen(p);
	if (!l || l > FIO_NAME_MAX) {
		snprintf(err, errlen, "path \"%s\" cannot be written to a fio iolog (%s)", p,
			 l ? "longer than 256 bytes" : "empty");
		return TS_E_PARSE;
	}
	for (const char *s = p; *s; s++) {
		if (isspace((unsigned char)*s)) {
			snprintf(
			    err, errlen,
			    "path \"%s\" cannot be written to a fio iolog (fio reads names up to "
			    "the first white space)",
			    p);
			return TS_E_PARSE;
		}
	}
	return 0;
}

int ts_iolog_export(FILE *out, const struct ts_trace *t, const char *prefix, uint64_t *nops,
		    char *err, size_t errlen)
{
	char dummy[256], nb[2 * FIO_NAME_MAX];
	size_t *idx = ts_trace_order(t);
	uint8_t *state = calloc((size_t)t->npaths + 1, 1); /* 1 = added, 2 = opened */
	uint64_t n = 0, last_us = 0;
	int ret = 0;

	if (!err) {
		err = dummy;
		errlen = sizeof(dummy);
	}
	if (!idx || !state) {
		snprintf(err, errlen, "out of memory");
		ret = -ENOMEM;
		goto out;
	}
	/* which files hold IO, and can fio name them? */
	for (size_t i = 0; i < t->nrecs; i++) {
		const struct ts_trace_rec *r = &t->recs[i];
		uint32_t f = r->file_id < t->npaths ? r->file_id : 0;
		if (!f || state[f])
			continue;
		if (r->op != TS_OP_READ && r->op != TS_OP_WRITE && r->op != TS_OP_MMAP_READ &&
		    r->op != TS_OP_FSYNC && r->op != TS_OP_FDATASYNC &&
		    !(r->op == TS_OP_FALLOCATE && r->aux == TS_IOLOG_PUNCH))
			continue;
		if (r->length > UINT32_MAX) {
			snprintf(err, errlen,
				 "a %s of %" PRIu64 " bytes on %s: fio iologs hold "
				 "lengths below 4 GiB",
				 ts_trace_op_name(r->op), r->length, ts_trace_path(t, f));
			ret = TS_E_PARSE;
			goto out;
		}
		const char *p = fio_name(nb, sizeof(nb), prefix, ts_trace_path(t, f));
		if ((ret = check_name(p, err, errlen)))
			goto out;
		state[f] = 1;
	}
	fprintf(out, "%s\n", v3_magic);
	for (uint32_t f = 1; f < t->npaths; f++)
		if (state[f])
			fprintf(out, "0 %s add\n",
				fio_name(nb, sizeof(nb), prefix, ts_trace_path(t, f)));
	for (size_t k = 0; k < t->nrecs; k++) {
		const struct ts_trace_rec *r = &t->recs[idx[k]];
		uint32_t f = r->file_id < t->npaths ? r->file_id : 0;
		const char *act;
		if (!f || !state[f])
			continue;
		switch (r->op) {
		case TS_OP_READ:
		case TS_OP_MMAP_READ:
			act = "read";
			break;
		case TS_OP_WRITE:
			act = "write";
			break;
		case TS_OP_FSYNC:
			act = "sync";
			break;
		case TS_OP_FDATASYNC:
			act = "datasync";
			break;
		case TS_OP_FALLOCATE:
			if (r->aux != TS_IOLOG_PUNCH)
				continue;
			act = "trim";
			break;
		default:
			continue;
		}
		const char *p = fio_name(nb, sizeof(nb), prefix, ts_trace_path(t, f));
		last_us = r->submit_ns / 1000;
		if (state[f] == 1) {
			fprintf(out, "%" PRIu64 " %s open\n", last_us, p);
			state[f] = 2;
		}
		fprintf(out, "%" PRIu64 " %s %s %" PRIu64 " %" PRIu64 "\n", last_us, p, act,
			r->offset, r->length);
		n++;
	}
	for (uint32_t f = 1; f < t->npaths; f++)
		if (state[f] == 2)
			fprintf(out, "%" PRIu64 " %s close\n", last_us,
				fio_name(nb, sizeof(nb), prefix, ts_trace_path(t, f)));
	if (ferror(out)) {
		snprintf(err, errlen, "write error");
		ret = -EIO;
	}
	if (nops)
		*nops = n;
out:
	free(idx);
	free(state);
	return ret;
}
