/*
 * blkparse.c — blkparse default-format text to a trace (see blkparse.h).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "blkparse.h"
#include "iolog.h"

#define MAXTOK 16
#define PENDING_MAX 65536 /* D events waiting for their C; the oldest give up */

struct pend {
	size_t rec;	 /* index into t->recs */
	uint32_t dev;	 /* file id of the device */
	uint64_t sector; /* UINT64_MAX for a flush */
	uint64_t nsect;
};

/* "MAJ,MIN" */
static bool is_dev(const char *s)
{
	const char *c = strchr(s, ',');
	if (!c || c == s || !c[1])
		return false;
	for (const char *p = s; *p; p++)
		if (p != c && !isdigit((unsigned char)*p))
			return false;
	return true;
}

/* "SEC.NNNNNNNNN" → ns */
static int parse_time(const char *s, uint64_t *ns)
{
	const char *dot = strchr(s, '.');
	uint64_t sec, frac;
	char buf[32];

	if (!dot || dot - s >= (long)sizeof(buf) || strlen(dot + 1) != 9)
		return -1;
	memcpy(buf, s, (size_t)(dot - s));
	buf[dot - s] = 0;
	if (ts_trace_parse_u64(buf, UINT64_MAX / TS_NS_PER_S - 1, &sec) ||
	    ts_trace_parse_u64(dot + 1, 999999999, &frac))
		return -1;
	*ns = sec * TS_NS_PER_S + frac;
	return 0;
}

#define BAD(...)                                                                                   \
	do {                                                                                       \
		snprintf(err, errlen, __VA_ARGS__);                                                \
		ret = TS_E_PARSE;                                                                  \
		goto fail;                                                                         \
	} while (0)

int ts_blkparse_import(FILE *in, const char *name, struct ts_trace *t, char *err, size_t errlen)
{
	char *line = NULL, dummy[256], path[64];
	size_t cap = 0, npend = 0, pend_cap = 0;
	struct pend *pend = NULL;
	ssize_t len;
	unsigned long lineno = 0;
	uint64_t last_ns = 0;
	bool any = false;
	int ret = 0;

	if (!err) {
		err = dummy;
		errlen = sizeof(dummy);
	}
	ts_trace_init(t);
	strcpy(t->hdr.mount_opts, "imported from blkparse output");
	while ((len = getline(&line, &cap, in)) > 0) {
		char *tok[MAXTOK], *save = NULL;
		int n = 0;
		lineno++;
		if ((size_t)len != strlen(line))
			BAD("%s:%lu: NUL byte in the line", name, lineno);
		for (char *p = strtok_r(line, " \t\r\n", &save); p && n < MAXTOK;
		     p = strtok_r(NULL, " \t\r\n", &save))
			tok[n++] = p;
		if (n == 0 || !is_dev(tok[0]))
			continue; /* the summary, blank lines */
		any = true;
		if (n < 7)
			BAD("%s:%lu: an event line has at least 7 fields (dev cpu seq time pid "
			    "action "
			    "rwbs), this one %d",
			    name, lineno, n);
		const char *act = tok[5], *rwbs = tok[6];
		if (strcmp(act, "D") && strcmp(act, "C"))
			continue;
		uint64_t ns, pid, v;
		if (ts_trace_parse_u64(tok[1], UINT32_MAX, &v))
			BAD("%s:%lu: field 2 (cpu): not a number: \"%s\"", name, lineno, tok[1]);
		if (ts_trace_parse_u64(tok[2], UINT64_MAX, &v))
			BAD("%s:%lu: field 3 (sequence): not a number: \"%s\"", name, lineno,
			    tok[2]);
		if (parse_time(tok[3], &ns))
			BAD("%s:%lu: field 4 (time): expected SECONDS.NANOSECONDS (9 digits), got "
			    "\"%s\"",
			    name, lineno, tok[3]);
		if (ts_trace_parse_u64(tok[4], UINT32_MAX, &pid))
			BAD("%s:%lu: field 5 (pid): not a number: \"%s\"", name, lineno, tok[4]);
		for (const char *p = rwbs; *p; p++)
			if (!strchr("RWDFNSAMEBC", *p))
				BAD("%s:%lu: field 7 (rwbs): unexpected flag '%c' in \"%s\"", name,
				    lineno, *p, rwbs);
		/* SECTOR + NSECT, SECTOR alone (C of a flush), or nothing */
		uint64_t sector = UINT64_MAX, nsect = 0;
		int i = 7;
		if (i < n && isdigit((unsigned char)tok[i][0])) {
			if (ts_trace_parse_u64(tok[i], UINT64_MAX / 512, &sector))
				BAD("%s:%lu: field 8 (sector): not a number: \"%s\"", name, lineno,
				    tok[i]);
			i++;
			if (i < n && !strcmp(tok[i], "+")) {
				if (i + 1 >= n ||
				    ts_trace_parse_u64(tok[i + 1], UINT32_MAX, &nsect))
					BAD("%s:%lu: field 10 (sectors): not a number: \"%s\"",
					    name, lineno, i + 1 < n ? tok[i + 1] : "");
				i += 2;
			}
		}
		if (i < n && tok[i][0] == '(') /* -t elapsed */
			i++;
		if (i < n && tok[i][0] == '(' && !strcmp(act, "C"))
			i++;
		if (i >= n || tok[i][0] != '[')
			BAD("%s:%lu: field %d: expected \"[%s]\"", name, lineno, i + 1,
			    act[0] == 'C' ? "ERROR" : "COMMAND");
		if (ns < last_ns && !strcmp(act, "D"))
			ns = last_ns; /* per-CPU buffers may interleave slightly */
		last_ns = TS_MAX(last_ns, ns);
		snprintf(path, sizeof(path), "/dev/%s", tok[0]);
		uint32_t dev;
		if ((ret = ts_trace_intern(t, path, &dev)))
			BAD("%s:%lu: %s", name, lineno, ts_strerror(ret));
		bool flush = nsect == 0;

		if (act[0] == 'D') {
			struct ts_trace_rec r = {
			    .submit_ns = ns,
			    .complete_ns = ns,
			    .file_id = dev,
			    .tid = (uint32_t)pid,
			};
			if (strchr(rwbs, 'D')) {
				r.op = TS_OP_FALLOCATE;
				r.aux = TS_IOLOG_PUNCH;
			} else if (strchr(rwbs, 'R')) {
				r.op = TS_OP_READ;
			} else if (strchr(rwbs, 'W') && !flush) {
				r.op = TS_OP_WRITE;
			} else if (strchr(rwbs, 'F')) {
				r.op = TS_OP_FSYNC;
			} else {
				continue; /* 'N': no data, no flush */
			}
			if (strchr(rwbs, 'S'))
				r.flags |= TS_REC_F_SYNC;
			if (!flush) {
				r.offset = sector * 512;
				r.length = nsect * 512;
				r.result = r.op == TS_OP_FALLOCATE ? 0 : (int64_t)r.length;
			}
			if ((ret = ts_trace_add_rec(t, &r)))
				BAD("%s:%lu: %s", name, lineno, ts_strerror(ret));
			if (npend == PENDING_MAX) { /* never completed: keep as issued */
				memmove(pend, pend + 1, (npend - 1) * sizeof(*pend));
				npend--;
			}
			if (npend == pend_cap) {
				size_t nc = pend_cap ? pend_cap * 2 : 64;
				void *p = realloc(pend, nc * sizeof(*pend));
				if (!p) {
					ret = -ENOMEM;
					BAD("%s:%lu: out of memory", name, lineno);
				}
				pend = p;
				pend_cap = nc;
			}
			pend[npend++] = (struct pend){.rec = t->nrecs - 1,
						      .dev = dev,
						      .sector = flush ? UINT64_MAX : sector,
						      .nsect = nsect};
			continue;
		}
		/* C: the error is the last bracket */
		int64_t e = 0;
		const char *eb = tok[n - 1];
		size_t el = strlen(eb);
		if (el < 3 || eb[0] != '[' || eb[el - 1] != ']')
			BAD("%s:%lu: field %d (error): expected \"[N]\", got \"%s\"", name, lineno,
			    n, eb);
		char *end;
		e = strtoll(eb + 1, &end, 10);
		if (end != eb + el - 1)
			BAD("%s:%lu: field %d (error): expected \"[N]\", got \"%s\"", name, lineno,
			    n, eb);
		for (size_t k = 0; k < npend; k++) {
			struct pend *p = &pend[k];
			if (p->dev != dev || (flush ? p->sector != UINT64_MAX
						    : p->sector != sector || p->nsect != nsect))
				continue;
			struct ts_trace_rec *r = &t->recs[p->rec];
			r->complete_ns = TS_MAX(ns, r->submit_ns);
			if (e)
				r->result = e < 0 ? e : -e;
			memmove(p, p + 1, (npend - k - 1) * sizeof(*pend));
			npend--;
			break;
		}
	}
	if (ferror(in))
		BAD("%s: read error", name);
	if (!any)
		BAD("%s: no blkparse event lines (expected lines such as \"  8,0    1    1     "
		    "0.000000000  123  D   R 2048 + 8 [fio]\")",
		    name);
	if ((ret = ts_trace_add_end(t, 0, t->nrecs, last_ns)))
		BAD("%s: %s", name, ts_strerror(ret));
	free(pend);
	free(line);
	return 0;
fail:
	free(pend);
	free(line);
	ts_trace_free(t);
	return ret;
}
