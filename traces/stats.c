/*
 * stats.c — `tiersim trace stats`: one pass over a trace in submit order.
 *
 * Definitions (also in traces/README.md):
 * - sequential: a read or write that starts where the previous read or write
 *   of the same file ended (the first access of a file: when at offset 0);
 * - think time: for each thread, the gap from the completion of its previous
 *   op to the submit of the next; an op submitted before the previous one
 *   completed (async IO) counts as an overlap, not as think time;
 * - inter-arrival: gaps between consecutive submits, all threads together;
 * - timeline: reads and writes by completion time, in fixed slots;
 * - a thread's CPU and run-queue time: its schedstat clocks' growth from
 *   the least to the most read in its cpu records (clocks left unread
 *   skipped), so 0 for a thread with fewer than two read clocks.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/units.h"
#include "traces/stats.h"

uint64_t ts_trace_floor_ns(const struct ts_trace *t)
{
	return t->hdr.model & TS_TRACE_MODEL_FLOOR ? t->hdr.floor_ns : 0;
}

bool ts_trace_gap_split(const struct ts_trace *t, size_t a, size_t b, uint64_t gap, uint64_t rt_ns,
			uint64_t *work, uint64_t *wait)
{
	*work = *wait = 0;
	if (!t->cpu || !t->cpu[a].pid || !t->cpu[b].pid)
		return false;
	const struct ts_trace_cpu *x = &t->cpu[a], *y = &t->cpu[b];
	uint64_t ca = x->on_ns + x->runq_ns, cb = y->on_ns + y->runq_ns;
	*work = cb > ca ? TS_MIN(cb - ca, gap) : 0;
	uint64_t off = gap - *work;
	*wait = off > 2 * rt_ns ? off - rt_ns : 0;
	return true;
}

static bool is_data(unsigned op)
{
	return op == TS_OP_READ || op == TS_OP_WRITE || op == TS_OP_MMAP_READ;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

static int cmp_file_bytes(const void *a, const void *b)
{
	const struct ts_trace_stats_file *x = a, *y = b;
	uint64_t bx = x->rbytes + x->wbytes, by = y->rbytes + y->wbytes;
	if (bx != by)
		return bx > by ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static struct ts_trace_stats_thread *find_thread(struct ts_trace_stats *s, uint32_t tid)
{
	size_t lo = 0, hi = s->nthreads;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (s->threads[mid].tid < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return &s->threads[lo];
}

/*
 * Why one long function: the summary is one pass over the records in
 * submit order in which every figure (latency per op, interarrival and
 * think times, per thread and per file counts, the size histogram) is
 * updated from the same record in the same step, then the timeline's slots
 * from the span that pass found; the function also owns the allocation of
 * every table, freed together on any failure. Split per figure, it would
 * walk a trace of millions of records once per figure, or pass the
 * half-built summary through every helper.
 */
int ts_trace_stats_compute(const struct ts_trace *t, uint64_t interval_ns,
			   struct ts_trace_stats **out)
{
	struct ts_trace_stats *s = calloc(1, sizeof(*s));
	size_t *idx = NULL;
	uint64_t *last_end = NULL, *last_done = NULL;
	uint32_t *tids = NULL;
	int ret = -ENOMEM;

	*out = NULL;
	if (!s)
		return -ENOMEM;
	for (unsigned i = 0; i < TS_OP_IO_LAST; i++)
		ts_hist_init(&s->op[i].lat);
	ts_hist_init(&s->interarrival);
	ts_hist_init(&s->think);
	ts_hist_init(&s->issue_lead);
	ts_hist_init(&s->issue_model);
	ts_hist_init(&s->issue_off);
	ts_hist_init(&s->watch_lead);
	ts_hist_init(&s->watch_model);
	s->nrecs = t->nrecs;
	size_t nf = (size_t)t->npaths + 1; /* the last slot: ids the table lacks */
	idx = ts_trace_order(t);
	s->files = calloc(nf, sizeof(*s->files));
	last_end = malloc(nf * sizeof(*last_end));
	tids = malloc((t->nrecs ? t->nrecs : 1) * sizeof(*tids));
	if (!idx || !s->files || !last_end || !tids)
		goto fail;
	for (size_t f = 0; f < nf; f++) {
		s->files[f].id = (uint32_t)f;
		last_end[f] = UINT64_MAX; /* no access yet */
	}
	/* threads: the sorted unique tids */
	for (size_t i = 0; i < t->nrecs; i++)
		tids[i] = t->recs[i].tid;
	qsort(tids, t->nrecs, sizeof(*tids), cmp_u32);
	size_t nt = 0;
	for (size_t i = 0; i < t->nrecs; i++)
		if (!nt || tids[i] != tids[nt - 1])
			tids[nt++] = tids[i];
	s->threads = calloc(nt ? nt : 1, sizeof(*s->threads));
	last_done = malloc((nt ? nt : 1) * sizeof(*last_done));
	if (!s->threads || !last_done)
		goto fail;
	for (size_t i = 0; i < nt; i++) {
		s->threads[i].tid = tids[i];
		last_done[i] = UINT64_MAX;
	}
	s->nthreads = nt;

	s->first_ns = t->nrecs ? t->recs[idx[0]].submit_ns : 0;
	for (size_t k = 0; k < t->nrecs; k++) {
		const struct ts_trace_rec *r = &t->recs[idx[k]];
		uint64_t done = TS_MAX(r->complete_ns, r->submit_ns);
		s->last_ns = TS_MAX(s->last_ns, done);
		s->op[r->op].ops++;
		ts_hist_add(&s->op[r->op].lat, done - r->submit_ns);
		if (r->result < 0)
			s->op[r->op].errors++;
		if (k)
			ts_hist_add(&s->interarrival, r->submit_ns - t->recs[idx[k - 1]].submit_ns);

		const struct ts_trace_issue *is = ts_trace_issue_of(t, idx[k]);
		if (is) {
			s->issued++;
			ts_hist_add(&s->issue_lead, r->submit_ns - is->issue_ns);
			ts_hist_add(&s->issue_model, is->end_ns - is->issue_ns);
			ts_hist_add(&s->issue_off, is->off_ns);
		} else if (t->issue && t->issue[idx[k]].set) { /* watched */
			s->watched++;
			ts_hist_add(&s->watch_lead, r->submit_ns - t->issue[idx[k]].issue_ns);
			ts_hist_add(&s->watch_model, t->issue[idx[k]].end_ns - t->issue[idx[k]].issue_ns);
		}

		struct ts_trace_stats_thread *th = find_thread(s, r->tid);
		size_t ti = (size_t)(th - s->threads);
		th->ops++;
		th->opens += r->op == TS_OP_OPEN;
		const struct ts_trace_cpu *c = t->cpu ? &t->cpu[idx[k]] : NULL;
		if (c && c->pid && !(c->flags & TS_CPU_F_GAP)) { /* each clock only grows */
			bool first = !th->cpu_seen;
			th->cpu_seen = true;
			th->on0 = first ? c->on_ns : TS_MIN(th->on0, c->on_ns);
			th->rq0 = first ? c->runq_ns : TS_MIN(th->rq0, c->runq_ns);
			th->on1 = TS_MAX(th->on1, c->on_ns);
			th->rq1 = TS_MAX(th->rq1, c->runq_ns);
			th->cpu_ns = th->on1 - th->on0;
			th->runq_ns = th->rq1 - th->rq0;
		}
		th->io_ns += done - r->submit_ns;
		if (last_done[ti] != UINT64_MAX) {
			if (r->submit_ns >= last_done[ti]) {
				th->think_ns += r->submit_ns - last_done[ti];
				ts_hist_add(&s->think, r->submit_ns - last_done[ti]);
			} else {
				th->overlap++;
			}
		}
		last_done[ti] = last_done[ti] == UINT64_MAX ? done : TS_MAX(last_done[ti], done);

		size_t f = r->file_id < t->npaths ? r->file_id : nf - 1;
		s->files[f].ops++;
		if (!is_data(r->op))
			continue;
		uint64_t bytes = r->result > 0 ? (uint64_t)r->result : 0;
		s->op[r->op].bytes += bytes;
		th->bytes += bytes;
		if (r->op == TS_OP_WRITE)
			s->files[f].wbytes += bytes;
		else
			s->files[f].rbytes += bytes;
		s->files[f].max_end = TS_MAX(s->files[f].max_end, r->offset + r->length);
		unsigned b = r->length ? 63u - (unsigned)__builtin_clzll(r->length) : 0;
		s->size_hist[TS_MIN(b, TS_STATS_SIZE_BUCKETS - 1)]++;
		bool seq = last_end[f] == UINT64_MAX ? r->offset == 0 : r->offset == last_end[f];
		if (seq) {
			s->seq_ops++;
			s->seq_bytes += bytes;
		} else {
			s->rand_ops++;
			s->rand_bytes += bytes;
		}
		last_end[f] = r->offset + r->length;
	}

	/* timeline */
	uint64_t span = s->last_ns > s->first_ns ? s->last_ns - s->first_ns : 1;
	if (!interval_ns) {
		interval_ns = span / 20;
		/* round to 1, 2 or 5 x 10^k ns so slot edges read well */
		uint64_t p = 1;
		while (p * 10 <= interval_ns)
			p *= 10;
		interval_ns = interval_ns >= 5 * p ? 5 * p : interval_ns >= 2 * p ? 2 * p : p;
	}
	s->interval_ns = interval_ns;
	s->nslots = t->nrecs ? (size_t)(span / interval_ns) + 1 : 0;
	if (s->nslots > 1000000) {
		ret = -E2BIG;
		goto fail;
	}
	s->slot = calloc(s->nslots ? s->nslots : 1, sizeof(*s->slot));
	if (!s->slot)
		goto fail;
	for (size_t i = 0; i < t->nrecs; i++) {
		const struct ts_trace_rec *r = &t->recs[i];
		if (!is_data(r->op))
			continue;
		uint64_t done = TS_MAX(r->complete_ns, r->submit_ns);
		size_t k = (size_t)((done - s->first_ns) / interval_ns);
		s->slot[k].ops++;
		s->slot[k].bytes += r->result > 0 ? (uint64_t)r->result : 0;
	}

	/* files: drop the empty ones, biggest first */
	size_t n = 0;
	for (size_t f = 0; f < nf; f++)
		if (s->files[f].ops)
			s->files[n++] = s->files[f];
	s->nfiles = n;
	qsort(s->files, n, sizeof(*s->files), cmp_file_bytes);
	ret = 0;
	*out = s;
	s = NULL;
fail:
	free(idx);
	free(last_end);
	free(last_done);
	free(tids);
	ts_trace_stats_free(s);
	return ret;
}

void ts_trace_stats_free(struct ts_trace_stats *s)
{
	if (!s)
		return;
	free(s->files);
	free(s->threads);
	free(s->slot);
	free(s);
}

static const char *file_name(const struct ts_trace *t, uint32_t id)
{
	if (!id)
		return "(no path)";
	return id < t->npaths ? ts_trace_path(t, id) : "(unknown id)";
}

static double pct(uint64_t a, uint64_t b)
{
	return b ? 100.0 * (double)a / (double)b : 0.0;
}

static void print_hist_line(FILE *f, const char *what, const struct ts_hist *h)
{
	char b[5][32];
	if (!h->count) {
		fprintf(f, "  %-13s -\n", what);
		return;
	}
	fprintf(f, "  %-13s n=%-9" PRIu64 " mean %-10s p50 %-10s p90 %-10s p99 %-10s max %s\n",
		what, h->count, ts_fmt_duration(b[0], 32, (uint64_t)ts_hist_mean(h)),
		ts_fmt_duration(b[1], 32, ts_hist_percentile(h, 50)),
		ts_fmt_duration(b[2], 32, ts_hist_percentile(h, 90)),
		ts_fmt_duration(b[3], 32, ts_hist_percentile(h, 99)),
		ts_fmt_duration(b[4], 32, h->max));
}

void ts_trace_stats_print(FILE *f, const struct ts_trace_stats *s, const struct ts_trace *t,
			  size_t top)
{
	char b1[32], b2[32], warn[256];
	uint64_t span = s->last_ns - s->first_ns;
	double secs = span ? (double)span / 1e9 : 0;

	fprintf(f, "trace: tier %s, capacity %s, mem %s, host %s\n",
		t->hdr.tier[0] ? t->hdr.tier : "(plain directory)",
		t->hdr.capacity ? ts_fmt_size(b1, sizeof(b1), t->hdr.capacity) : "-",
		t->hdr.mem ? ts_fmt_size(b2, sizeof(b2), t->hdr.mem) : "-",
		t->hdr.host[0] ? t->hdr.host : "-");
	/* block mode, as the header says (a format 7 or older trace's hop
	 * stands for the image) */
	if (t->hdr.model & (TS_TRACE_MODEL_IMAGE | TS_TRACE_MODEL_LOOP_HOP)) {
		char hb[32];
		bool hop = t->hdr.model & TS_TRACE_MODEL_LOOP_HOP;
		fprintf(f, "mount: %s, %s%s\n",
			t->hdr.model & TS_TRACE_MODEL_IMAGE
			    ? "a disk image's device (block mode: the image file's own lookups "
			      "and extent leaves not charged)"
			    : "a directory",
			hop ? "loop hop taken off " : "no loop hop taken off",
			hop ? ts_fmt_duration(hb, sizeof(hb), t->hdr.loop_hop_ns) : "");
	}
	if (ts_trace_warning(t, warn, sizeof(warn)))
		fprintf(f, "warning: %s\n", warn);
	fprintf(f, "records: %" PRIu64 " over %s; %zu files, %zu threads\n", s->nrecs,
		ts_fmt_duration(b1, sizeof(b1), span), s->nfiles, s->nthreads);

	fprintf(f, "\nops:\n  %-10s %10s %8s %12s %10s %10s %10s\n", "op", "count", "errors",
		"bytes", "lat p50", "lat p99", "lat max");
	for (unsigned op = 1; op < TS_OP_IO_LAST; op++) {
		if (!s->op[op].ops)
			continue;
		char b3[32], b4[32], b5[32];
		fprintf(f, "  %-10s %10" PRIu64 " %8" PRIu64 " %12s %10s %10s %10s\n",
			ts_trace_op_name(op), s->op[op].ops, s->op[op].errors,
			is_data(op) ? ts_fmt_size(b3, 32, s->op[op].bytes) : "-",
			ts_fmt_duration(b1, 32, ts_hist_percentile(&s->op[op].lat, 50)),
			ts_fmt_duration(b4, 32, ts_hist_percentile(&s->op[op].lat, 99)),
			ts_fmt_duration(b5, 32, s->op[op].lat.max));
	}

	uint64_t nio = s->seq_ops + s->rand_ops;
	fprintf(f, "\nIO sizes (reads and writes):\n");
	for (unsigned i = 0; i < TS_STATS_SIZE_BUCKETS; i++) {
		if (!s->size_hist[i])
			continue;
		char lo[32];
		ts_fmt_size(lo, sizeof(lo), i ? 1ULL << i : 0);
		fprintf(f, "  >= %-10s %10" PRIu64 "  %5.1f%%\n", lo, s->size_hist[i],
			pct(s->size_hist[i], nio));
	}
	fprintf(f, "\naccess: sequential %.1f%% of ops (%.1f%% of bytes), random %.1f%% of ops\n",
		pct(s->seq_ops, nio), pct(s->seq_bytes, s->seq_bytes + s->rand_bytes),
		pct(s->rand_ops, nio));

	fprintf(f, "\ntimes:\n");
	print_hist_line(f, "inter-arrival", &s->interarrival);
	print_hist_line(f, "think", &s->think);
	if (s->issued) {
		fprintf(f,
			"\nrequest clock (block mode: %" PRIu64 " of %" PRIu64
			" reads and writes charged from the loop device's issue):\n",
			s->issued, s->op[TS_OP_READ].ops + s->op[TS_OP_WRITE].ops);
		print_hist_line(f, "issue->recv", &s->issue_lead);
		print_hist_line(f, "model", &s->issue_model);
		print_hist_line(f, "taken off", &s->issue_off);
	}
	if (s->watched) {
		fprintf(f,
			"\nrequest clock watched (block mode, loop_issue=watch: %" PRIu64
			" reads and writes charged from tierfs's receipt, their issue found):\n",
			s->watched);
		print_hist_line(f, "issue->recv", &s->watch_lead);
		print_hist_line(f, "model", &s->watch_model);
	}

	fprintf(f, "\nfiles (by bytes, top %zu of %zu):\n  %10s %12s %12s  %s\n", top, s->nfiles,
		"ops", "read", "written", "path");
	for (size_t i = 0; i < s->nfiles && i < top; i++) {
		const struct ts_trace_stats_file *x = &s->files[i];
		fprintf(f, "  %10" PRIu64 " %12s %12s  %s\n", x->ops,
			ts_fmt_size(b1, 32, x->rbytes), ts_fmt_size(b2, 32, x->wbytes),
			file_name(t, x->id));
	}
	fprintf(f, "\nthreads (top %zu of %zu):\n  %10s %10s %12s %12s %12s %8s\n", top,
		s->nthreads, "tid", "ops", "bytes", "io time", "think time", "overlap");
	for (size_t i = 0; i < s->nthreads && i < top; i++) {
		const struct ts_trace_stats_thread *x = &s->threads[i];
		char b3[32];
		fprintf(f, "  %10" PRIu32 " %10" PRIu64 " %12s %12s %12s %8" PRIu64 "\n", x->tid,
			x->ops, ts_fmt_size(b1, 32, x->bytes), ts_fmt_duration(b2, 32, x->io_ns),
			ts_fmt_duration(b3, 32, x->think_ns), x->overlap);
	}

	fprintf(f, "\nachieved (reads and writes by completion, %s slots):\n  %12s %10s %10s\n",
		ts_fmt_duration(b1, 32, s->interval_ns), "from", "IOPS", "MB/s");
	for (size_t i = 0; i < s->nslots; i++) {
		double w = (double)s->interval_ns / 1e9;
		fprintf(f, "  %12s %10.0f %10.2f\n",
			ts_fmt_duration(b1, 32, (uint64_t)i * s->interval_ns),
			(double)s->slot[i].ops / w, (double)s->slot[i].bytes / w / 1e6);
	}
	if (secs > 0) {
		uint64_t bytes = 0;
		for (unsigned op = 1; op < TS_OP_IO_LAST; op++)
			bytes += is_data(op) ? s->op[op].bytes : 0;
		fprintf(f, "  %12s %10.0f %10.2f\n", "overall", (double)nio / secs,
			(double)bytes / secs / 1e6);
	}
}

static json_t *hist_json(const struct ts_hist *h)
{
	return json_pack("{sI sf sI sI sI sI sI}", "count", (json_int_t)h->count, "mean_ns",
			 ts_hist_mean(h), "min_ns", (json_int_t)(h->count ? h->min : 0), "p50_ns",
			 (json_int_t)ts_hist_percentile(h, 50), "p90_ns",
			 (json_int_t)ts_hist_percentile(h, 90), "p99_ns",
			 (json_int_t)ts_hist_percentile(h, 99), "max_ns", (json_int_t)h->max);
}

json_t *ts_trace_stats_json(const struct ts_trace_stats *s, const struct ts_trace *t)
{
	json_t *o = json_object(), *ops = json_object(), *sizes = json_array(),
	       *files = json_array(), *threads = json_array(), *tl = json_array();
	if (!o || !ops || !sizes || !files || !threads || !tl)
		goto oom;
	json_object_set_new(o, "tier", json_string(t->hdr.tier));
	json_object_set_new(o, "capacity", json_integer((json_int_t)t->hdr.capacity));
	json_object_set_new(o, "mem", json_integer((json_int_t)t->hdr.mem));
	json_object_set_new(o, "host", json_string(t->hdr.host));
	json_object_set_new(o, "image", json_boolean(t->hdr.model & TS_TRACE_MODEL_IMAGE));
	if (t->hdr.model & TS_TRACE_MODEL_LOOP_HOP)
		json_object_set_new(o, "loop_hop_ns", json_integer((json_int_t)t->hdr.loop_hop_ns));
	json_object_set_new(o, "records", json_integer((json_int_t)s->nrecs));
	json_object_set_new(o, "dropped", json_integer((json_int_t)t->dropped));
	json_object_set_new(o, "truncated", json_boolean(t->truncated));
	json_object_set_new(o, "span_ns", json_integer((json_int_t)(s->last_ns - s->first_ns)));
	for (unsigned op = 1; op < TS_OP_IO_LAST; op++) {
		if (!s->op[op].ops)
			continue;
		json_object_set_new(ops, ts_trace_op_name(op),
				    json_pack("{sI sI sI so}", "count", (json_int_t)s->op[op].ops,
					      "bytes", (json_int_t)s->op[op].bytes, "errors",
					      (json_int_t)s->op[op].errors, "latency",
					      hist_json(&s->op[op].lat)));
	}
	json_object_set_new(o, "ops", ops);
	for (unsigned i = 0; i < TS_STATS_SIZE_BUCKETS; i++)
		if (s->size_hist[i])
			json_array_append_new(sizes,
					      json_pack("{sI sI}", "min_bytes",
							(json_int_t)(i ? 1ULL << i : 0), "count",
							(json_int_t)s->size_hist[i]));
	json_object_set_new(o, "io_sizes", sizes);
	json_object_set_new(o, "sequential",
			    json_pack("{sI sI sI sI}", "seq_ops", (json_int_t)s->seq_ops,
				      "rand_ops", (json_int_t)s->rand_ops, "seq_bytes",
				      (json_int_t)s->seq_bytes, "rand_bytes",
				      (json_int_t)s->rand_bytes));
	json_object_set_new(o, "interarrival", hist_json(&s->interarrival));
	json_object_set_new(o, "think", hist_json(&s->think));
	if (s->issued)
		json_object_set_new(o, "request_clock",
				    json_pack("{sI so so so}", "requests", (json_int_t)s->issued,
					      "issue_to_receipt", hist_json(&s->issue_lead),
					      "model_from_issue", hist_json(&s->issue_model),
					      "taken_off", hist_json(&s->issue_off)));
	if (s->watched)
		json_object_set_new(o, "request_clock_watched",
				    json_pack("{sI so so}", "requests", (json_int_t)s->watched,
					      "issue_to_receipt", hist_json(&s->watch_lead),
					      "model_from_issue", hist_json(&s->watch_model)));
	for (size_t i = 0; i < s->nfiles; i++) {
		const struct ts_trace_stats_file *x = &s->files[i];
		json_array_append_new(files, json_pack("{ss sI sI sI}", "path", file_name(t, x->id),
						       "ops", (json_int_t)x->ops, "read_bytes",
						       (json_int_t)x->rbytes, "write_bytes",
						       (json_int_t)x->wbytes));
	}
	json_object_set_new(o, "files", files);
	for (size_t i = 0; i < s->nthreads; i++) {
		const struct ts_trace_stats_thread *x = &s->threads[i];
		json_array_append_new(
		    threads, json_pack("{sI sI sI sI sI sI sI sI sI}", "tid", (json_int_t)x->tid,
				       "ops", (json_int_t)x->ops, "bytes", (json_int_t)x->bytes,
				       "io_ns", (json_int_t)x->io_ns, "think_ns",
				       (json_int_t)x->think_ns, "overlap", (json_int_t)x->overlap,
				       "opens", (json_int_t)x->opens, "cpu_ns",
				       (json_int_t)x->cpu_ns, "runq_ns", (json_int_t)x->runq_ns));
	}
	json_object_set_new(o, "threads", threads);
	for (size_t i = 0; i < s->nslots; i++)
		json_array_append_new(tl, json_pack("{sI sI sI}", "from_ns",
						    (json_int_t)(i * s->interval_ns), "ops",
						    (json_int_t)s->slot[i].ops, "bytes",
						    (json_int_t)s->slot[i].bytes));
	json_object_set_new(
	    o, "timeline",
	    json_pack("{sI so}", "interval_ns", (json_int_t)s->interval_ns, "slots", tl));
	return o;
oom:
	json_decref(o);
	json_decref(ops);
	json_decref(sizes);
	json_decref(files);
	json_decref(threads);
	json_decref(tl);
	return NULL;
}
