/*
 * blkparse.c — blkparse default-format text to a trace (see blkparse.h).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "traces/blkparse.h"
#include "traces/iolog.h"

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

/* The import's state, and where it is for its messages. */
struct bp {
	struct ts_trace *t;
	struct pend *pend; /* D events waiting for their C, oldest first */
	size_t npend, pend_cap;
	uint64_t last_ns;
	struct ts_trace_where w;
};

/* One D or C event line, parsed. */
struct event {
	const char *act, *rwbs;
	uint64_t ns, pid;
	uint64_t sector, nsect; /* UINT64_MAX, 0: no sectors (a flush) */
	uint32_t dev;		/* file id of /dev/MAJ,MIN */
};

/* Fields 2 to the bracket of a D or C line ("dev cpu seq time pid action
 * rwbs [sector + nsect] [(elapsed)] [command]"). */
static int parse_event(struct bp *b, char **tok, int n, struct event *ev)
{
	uint64_t v;
	char path[64];
	ev->act = tok[5];
	ev->rwbs = tok[6];
	if (ts_trace_parse_u64(tok[1], UINT32_MAX, &v))
		return ts_trace_bad(&b->w, "field 2 (cpu): not a number: \"%s\"", tok[1]);
	if (ts_trace_parse_u64(tok[2], UINT64_MAX, &v))
		return ts_trace_bad(&b->w, "field 3 (sequence): not a number: \"%s\"", tok[2]);
	if (parse_time(tok[3], &ev->ns))
		return ts_trace_bad(
		    &b->w, "field 4 (time): expected SECONDS.NANOSECONDS (9 digits), got \"%s\"",
		    tok[3]);
	if (ts_trace_parse_u64(tok[4], UINT32_MAX, &ev->pid))
		return ts_trace_bad(&b->w, "field 5 (pid): not a number: \"%s\"", tok[4]);
	for (const char *p = ev->rwbs; *p; p++)
		if (!strchr("RWDFNSAMEBC", *p))
			return ts_trace_bad(&b->w, "field 7 (rwbs): unexpected flag '%c' in \"%s\"",
					    *p, ev->rwbs);
	/* SECTOR + NSECT, SECTOR alone (C of a flush), or nothing */
	ev->sector = UINT64_MAX;
	ev->nsect = 0;
	int i = 7;
	if (i < n && isdigit((unsigned char)tok[i][0])) {
		if (ts_trace_parse_u64(tok[i], UINT64_MAX / 512, &ev->sector))
			return ts_trace_bad(&b->w, "field 8 (sector): not a number: \"%s\"",
					    tok[i]);
		i++;
		if (i < n && !strcmp(tok[i], "+")) {
			if (i + 1 >= n || ts_trace_parse_u64(tok[i + 1], UINT32_MAX, &ev->nsect))
				return ts_trace_bad(&b->w,
						    "field 10 (sectors): not a number: \"%s\"",
						    i + 1 < n ? tok[i + 1] : "");
			i += 2;
		}
	}
	if (i < n && tok[i][0] == '(') /* -t elapsed */
		i++;
	if (i < n && tok[i][0] == '(' && !strcmp(ev->act, "C"))
		i++;
	if (i >= n || tok[i][0] != '[')
		return ts_trace_bad(&b->w, "field %d: expected \"[%s]\"", i + 1,
				    ev->act[0] == 'C' ? "ERROR" : "COMMAND");
	if (ev->ns < b->last_ns && !strcmp(ev->act, "D"))
		ev->ns = b->last_ns; /* per-CPU buffers may interleave slightly */
	b->last_ns = TS_MAX(b->last_ns, ev->ns);
	snprintf(path, sizeof(path), "/dev/%s", tok[0]);
	int ret = ts_trace_intern(b->t, path, &ev->dev);
	return ret ? ts_trace_bad(&b->w, "%s", ts_strerror(ret)) : 0;
}

/* D: a record, issued, that waits for its C. */
static int on_issue(struct bp *b, const struct event *ev)
{
	bool flush = ev->nsect == 0;
	struct ts_trace_rec r = {
	    .submit_ns = ev->ns,
	    .complete_ns = ev->ns,
	    .file_id = ev->dev,
	    .tid = (uint32_t)ev->pid,
	};
	if (strchr(ev->rwbs, 'D')) {
		r.op = TS_OP_FALLOCATE;
		r.aux = TS_IOLOG_PUNCH;
	} else if (strchr(ev->rwbs, 'R')) {
		r.op = TS_OP_READ;
	} else if (strchr(ev->rwbs, 'W') && !flush) {
		r.op = TS_OP_WRITE;
	} else if (strchr(ev->rwbs, 'F')) {
		r.op = TS_OP_FSYNC;
	} else {
		return 0; /* 'N': no data, no flush */
	}
	if (strchr(ev->rwbs, 'S'))
		r.flags |= TS_REC_F_SYNC;
	if (!flush) {
		r.offset = ev->sector * 512;
		r.length = ev->nsect * 512;
		r.result = r.op == TS_OP_FALLOCATE ? 0 : (int64_t)r.length;
	}
	int ret = ts_trace_add_rec(b->t, &r);
	if (ret)
		return ts_trace_bad(&b->w, "%s", ts_strerror(ret));
	if (b->npend == PENDING_MAX) { /* never completed: keep as issued */
		memmove(b->pend, b->pend + 1, (b->npend - 1) * sizeof(*b->pend));
		b->npend--;
	}
	if (b->npend == b->pend_cap) {
		size_t nc = b->pend_cap ? b->pend_cap * 2 : 64;
		void *p = realloc(b->pend, nc * sizeof(*b->pend));
		if (!p)
			return ts_trace_bad(&b->w, "out of memory");
		b->pend = p;
		b->pend_cap = nc;
	}
	b->pend[b->npend++] = (struct pend){.rec = b->t->nrecs - 1,
					    .dev = ev->dev,
					    .sector = flush ? UINT64_MAX : ev->sector,
					    .nsect = ev->nsect};
	return 0;
}

/* C: completes the oldest pending D of the same sectors; the error is the
 * last bracket. */
static int on_complete(struct bp *b, const struct event *ev, char **tok, int n)
{
	bool flush = ev->nsect == 0;
	const char *eb = tok[n - 1];
	size_t el = strlen(eb);
	char *end = NULL;
	int64_t e = el >= 3 && eb[0] == '[' && eb[el - 1] == ']' ? strtoll(eb + 1, &end, 10) : 0;
	if (end != eb + el - 1)
		return ts_trace_bad(&b->w, "field %d (error): expected \"[N]\", got \"%s\"", n, eb);
	for (size_t k = 0; k < b->npend; k++) {
		struct pend *p = &b->pend[k];
		if (p->dev != ev->dev || (flush ? p->sector != UINT64_MAX
						: p->sector != ev->sector || p->nsect != ev->nsect))
			continue;
		struct ts_trace_rec *r = &b->t->recs[p->rec];
		r->complete_ns = TS_MAX(ev->ns, r->submit_ns);
		if (e)
			r->result = e < 0 ? e : -e;
		memmove(p, p + 1, (b->npend - k - 1) * sizeof(*b->pend));
		b->npend--;
		break;
	}
	return 0;
}

/* One line; *@any when it is an event line. */
static int import_line(struct bp *b, char *line, bool *any)
{
	char *tok[MAXTOK], *save = NULL;
	int n = 0;
	for (char *p = strtok_r(line, " \t\r\n", &save); p && n < MAXTOK;
	     p = strtok_r(NULL, " \t\r\n", &save))
		tok[n++] = p;
	if (n == 0 || !is_dev(tok[0]))
		return 0; /* the summary, blank lines */
	*any = true;
	if (n < 7)
		return ts_trace_bad(
		    &b->w,
		    "an event line has at least 7 fields (dev cpu seq time pid action "
		    "rwbs), this one %d",
		    n);
	if (strcmp(tok[5], "D") && strcmp(tok[5], "C"))
		return 0;
	struct event ev;
	int ret = parse_event(b, tok, n, &ev);
	if (!ret)
		ret = ev.act[0] == 'D' ? on_issue(b, &ev) : on_complete(b, &ev, tok, n);
	return ret;
}

int ts_blkparse_import(FILE *in, const char *name, struct ts_trace *t, char *err, size_t errlen)
{
	char *line = NULL, dummy[256];
	size_t cap = 0;
	ssize_t len;
	bool any = false;
	int ret = 0;
	struct bp b = {.t = t, .w = {name, 0, err ? err : dummy, err ? errlen : sizeof(dummy)}};

	ts_trace_init(t);
	strcpy(t->hdr.mount_opts, "imported from blkparse output");
	while (!ret && (len = getline(&line, &cap, in)) > 0) {
		b.w.lineno++;
		ret = (size_t)len != strlen(line) ? ts_trace_bad(&b.w, "NUL byte in the line")
						  : import_line(&b, line, &any);
	}
	if (!ret && ferror(in)) {
		snprintf(b.w.err, b.w.errlen, "%s: read error", name);
		ret = TS_E_PARSE;
	} else if (!ret && !any) {
		snprintf(
		    b.w.err, b.w.errlen,
		    "%s: no blkparse event lines (expected lines such as \"  8,0    1    1     "
		    "0.000000000  123  D   R 2048 + 8 [fio]\")",
		    name);
		ret = TS_E_PARSE;
	} else if (!ret && (ret = ts_trace_add_end(t, 0, t->nrecs, b.last_ns))) {
		snprintf(b.w.err, b.w.errlen, "%s: %s", name, ts_strerror(ret));
		ret = TS_E_PARSE;
	}
	free(b.pend);
	free(line);
	if (ret)
		ts_trace_free(t);
	return ret;
}
