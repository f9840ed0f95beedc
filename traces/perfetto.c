/*
 * perfetto.c — the Chrome trace event JSON timeline (perfetto.h). Times are
 * microseconds with ns decimals, from the trace's first request.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "perfetto.h"
#include "stats.h"

struct pair {
	uint32_t tid;
	size_t rank, idx;
};

static int cmp_pair(const void *a, const void *b)
{
	const struct pair *x = a, *y = b;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->rank < y->rank ? -1 : x->rank > y->rank;
}

struct out {
	FILE *f;
	uint64_t t0, n;
	int err;
};

/* One event; @o owns it (decref'd here). */
static void put(struct out *o, json_t *ev)
{
	if (!ev) {
		o->err = o->err ? o->err : -ENOMEM;
		return;
	}
	if (!o->err && (fputs(o->n++ ? ",\n" : "\n", o->f) == EOF ||
			json_dumpf(ev, o->f, JSON_COMPACT | JSON_REAL_PRECISION(15))))
		o->err = -EIO;
	json_decref(ev);
}

static double us(const struct out *o, uint64_t ns)
{
	return (double)(ns - TS_MIN(ns, o->t0)) / 1e3;
}

static void slice(struct out *o, const char *name, const char *cat, uint64_t from, uint64_t to,
		  uint32_t pid, uint32_t tid, json_t *args)
{
	json_t *ev = json_pack("{ss ss ss sf sf sI sI}", "name", name, "cat", cat, "ph", "X", "ts",
			       us(o, from), "dur", (double)(to - from) / 1e3, "pid",
			       (json_int_t)pid, "tid", (json_int_t)tid);
	if (ev && args)
		json_object_set_new(ev, "args", args);
	else
		json_decref(args);
	put(o, ev);
}

static void meta(struct out *o, const char *what, uint32_t pid, uint32_t tid, const char *name)
{
	put(o, json_pack("{ss ss sI sI s{ss}}", "name", what, "ph", "M", "pid", (json_int_t)pid,
			 "tid", (json_int_t)tid, "args", "name", name));
}

int ts_trace_export_perfetto(FILE *f, const struct ts_trace *t, uint64_t *events, char *err,
			     size_t errlen)
{
	size_t *ord = ts_trace_order(t);
	struct pair *pr = malloc((t->nrecs ? t->nrecs : 1) * sizeof(*pr));
	struct out o = {.f = f};
	uint64_t rt = ts_trace_floor_ns(t);
	char name[TS_TRACE_PATH_MAX + 32];

	if (!ord || !pr) {
		free(ord);
		free(pr);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < t->nrecs; i++)
		pr[i] = (struct pair){.tid = t->recs[ord[i]].tid, .rank = i, .idx = ord[i]};
	o.t0 = t->nrecs ? t->recs[ord[0]].submit_ns : 0;
	qsort(pr, t->nrecs, sizeof(*pr), cmp_pair);
	if (fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", f) == EOF)
		o.err = -EIO;
	for (size_t i = 0; i < t->nrecs && !o.err;) {
		/* one thread: pr[i, j) */
		size_t j = i;
		uint32_t tid = pr[i].tid, pid = tid, ppid = 0;
		for (; j < t->nrecs && pr[j].tid == tid; j++)
			if (t->cpu && t->cpu[pr[j].idx].pid && pid == tid) {
				pid = t->cpu[pr[j].idx].pid;
				ppid = t->cpu[pr[j].idx].ppid;
			}
		if (tid == 0) {
			meta(&o, "process_name", 0, 0, "kernel (thread id 0: release, writeback)");
		} else {
			if (ppid)
				snprintf(name, sizeof(name),
					 "process %" PRIu32 " (parent %" PRIu32 ")", pid, ppid);
			else
				snprintf(name, sizeof(name), "process %" PRIu32, pid);
			meta(&o, "process_name", pid, tid, name);
		}
		snprintf(name, sizeof(name), "thread %" PRIu32, tid);
		meta(&o, "thread_name", pid, tid, name);
		uint64_t done = 0;
		for (size_t k = i; k < j; k++) {
			const struct ts_trace_rec *r = &t->recs[pr[k].idx];
			uint64_t end = TS_MAX(r->complete_ns, r->submit_ns);
			if (k > i && r->submit_ns >= done) {
				uint64_t gap = r->submit_ns - done, work, wait;
				if (!ts_trace_gap_split(t, pr[k - 1].idx, pr[k].idx, gap, rt, &work,
							&wait)) {
					if (gap)
						slice(&o, "think", "gap", done, r->submit_ns, pid,
						      tid, NULL);
				} else {
					if (work)
						slice(&o, "work", "gap", done, done + work, pid,
						      tid, NULL);
					if (wait)
						slice(&o, "waiting", "gap", r->submit_ns - wait,
						      r->submit_ns, pid, tid, NULL);
				}
			}
			snprintf(name, sizeof(name), "%s %s", ts_trace_op_name(r->op),
				 ts_trace_path(t, r->file_id));
			slice(&o, name, "io", r->submit_ns, end, pid, tid,
			      json_pack("{sI sI sI}", "offset", (json_int_t)r->offset, "length",
					(json_int_t)r->length, "result", (json_int_t)r->result));
			done = TS_MAX(done, end);
		}
		i = j;
	}
	if (!o.err && fputs("\n]}\n", f) == EOF)
		o.err = -EIO;
	free(ord);
	free(pr);
	if (o.err)
		snprintf(err, errlen, "%s", o.err == -ENOMEM ? "out of memory" : "write error");
	if (events)
		*events = o.n;
	return o.err;
}
