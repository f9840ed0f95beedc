/*
 * perfetto.c — the Chrome trace event JSON timeline (perfetto.h), written
 * by the one Chrome trace writer (core/chrome.h). Times are from the
 * trace's first request.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/chrome.h"
#include "traces/perfetto.h"
#include "traces/stats.h"

/* A slice of the trace's time, from its first request. */
static void slice(struct ts_chrome *o, uint64_t t0, const char *name, const char *cat,
		  uint64_t from, uint64_t to, uint32_t pid, uint32_t tid,
		  const struct ts_chrome_arg *a, unsigned na)
{
	ts_chrome_slice(o, name, cat, pid, tid, from - TS_MIN(from, t0), to - from, a, na);
}

int ts_trace_export_perfetto(FILE *f, const struct ts_trace *t, uint64_t *events, char *err,
			     size_t errlen)
{
	size_t *pr = ts_trace_thread_order(t);
	struct ts_chrome o;
	uint64_t t0 = t->nrecs ? UINT64_MAX : 0, rt = ts_trace_floor_ns(t);
	char name[TS_TRACE_PATH_MAX + 32];

	if (!pr) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < t->nrecs; i++)
		t0 = TS_MIN(t0, t->recs[i].submit_ns);
	ts_chrome_begin(&o, f);
	for (size_t i = 0; i < t->nrecs;) {
		/* one thread: pr[i, j) */
		size_t j = i;
		uint32_t tid = t->recs[pr[i]].tid, pid = tid, ppid = 0;
		for (; j < t->nrecs && t->recs[pr[j]].tid == tid; j++)
			if (t->cpu && t->cpu[pr[j]].pid && pid == tid) {
				pid = t->cpu[pr[j]].pid;
				ppid = t->cpu[pr[j]].ppid;
			}
		if (tid == 0) {
			ts_chrome_meta_name(&o, "process_name", 0, 0,
					    "kernel (thread id 0: release, writeback)");
		} else {
			if (ppid)
				snprintf(name, sizeof(name),
					 "process %" PRIu32 " (parent %" PRIu32 ")", pid, ppid);
			else
				snprintf(name, sizeof(name), "process %" PRIu32, pid);
			ts_chrome_meta_name(&o, "process_name", pid, tid, name);
		}
		snprintf(name, sizeof(name), "thread %" PRIu32, tid);
		ts_chrome_meta_name(&o, "thread_name", pid, tid, name);
		uint64_t done = 0;
		for (size_t k = i; k < j; k++) {
			const struct ts_trace_rec *r = &t->recs[pr[k]];
			uint64_t end = TS_MAX(r->complete_ns, r->submit_ns);
			if (k > i && r->submit_ns >= done) {
				uint64_t gap = r->submit_ns - done, work, wait;
				if (!ts_trace_gap_split(t, pr[k - 1], pr[k], gap, rt, &work,
							&wait)) {
					if (gap)
						slice(&o, t0, "think", "gap", done, r->submit_ns,
						      pid, tid, NULL, 0);
				} else {
					if (work)
						slice(&o, t0, "work", "gap", done, done + work,
						      pid, tid, NULL, 0);
					if (wait)
						slice(&o, t0, "waiting", "gap", r->submit_ns - wait,
						      r->submit_ns, pid, tid, NULL, 0);
				}
			}
			snprintf(name, sizeof(name), "%s %s", ts_trace_op_name(r->op),
				 ts_trace_path(t, r->file_id));
			const struct ts_chrome_arg args[] = { { "offset", (int64_t)r->offset },
							      { "length", (int64_t)r->length },
							      { "result", r->result } };
			slice(&o, t0, name, "io", r->submit_ns, end, pid, tid, args,
			      TS_ARRAY_SIZE(args));
			done = TS_MAX(done, end);
		}
		i = j;
	}
	int rc = ts_chrome_end(&o, NULL);
	free(pr);
	if (rc)
		snprintf(err, errlen, "write error");
	if (events)
		*events = o.events;
	return rc;
}
