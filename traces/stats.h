/*
 * stats.h — what a trace says about its workload (`tiersim trace stats`):
 * ops by type, bytes, IO sizes, sequential vs random share, per-file and
 * per-thread breakdowns, inter-arrival, think time, latency, and the
 * achieved IOPS and MB/s over time.
 */
#ifndef TS_TRACE_STATS_H
#define TS_TRACE_STATS_H

#include <stdbool.h>
#include <stdio.h>

#include <jansson.h>

#include "core/hist.h"
#include "traces/order.h"
#include "traces/trace.h"

#define TS_STATS_SIZE_BUCKETS 28 /* IO sizes: [2^i, 2^(i+1)) bytes, last open-ended */

struct ts_trace_stats_file {
	uint32_t id;
	uint64_t ops, rbytes, wbytes, max_end; /* max_end: largest offset+length seen */
};

struct ts_trace_stats_thread {
	uint32_t tid;
	uint64_t ops, bytes;
	uint64_t io_ns;	   /* sum of complete - submit */
	uint64_t think_ns; /* sum of gaps between one op's completion and the next's submit */
	uint64_t overlap;  /* ops submitted before the thread's previous op completed */
	/* its CPU clocks' growth from its first read clock to its last (cpu
	 * records, not those left unread: TS_CPU_F_GAP); 0 without them */
	uint64_t cpu_ns, runq_ns;
	uint64_t opens;
	uint64_t on0, on1, rq0, rq1; /* the least and most read (internal) */
	bool cpu_seen;		     /* a clock was read (internal: (0, 0) is a reading) */
};

struct ts_trace_stats {
	uint64_t nrecs;
	uint64_t first_ns, last_ns; /* first submit, last completion */
	struct {
		uint64_t ops, bytes, errors;
		struct ts_hist lat; /* complete - submit, ns */
	} op[TS_OP_IO_LAST];
	uint64_t size_hist[TS_STATS_SIZE_BUCKETS]; /* reads and writes by length */
	uint64_t seq_ops, rand_ops, seq_bytes, rand_bytes;
	struct ts_hist interarrival;	   /* between consecutive submits, all threads */
	/* block mode's request clock (version 9, struct ts_trace_issue): the
	 * requests that carry one, the loop device's issue to tierfs's
	 * receipt, the model's time from the issue, and what tierfs took
	 * off the reply */
	uint64_t issued;
	struct ts_hist issue_lead, issue_model, issue_off;
	/* watched (version 10, loop_issue=watch): charged from the receipt,
	 * the model's time as if from the issue beside it */
	uint64_t watched;
	struct ts_hist watch_lead, watch_model;
	struct ts_hist think;		   /* per thread, completion to next submit */
	struct ts_trace_stats_file *files; /* by bytes moved, descending */
	size_t nfiles;
	struct ts_trace_stats_thread *threads; /* by tid */
	size_t nthreads;
	uint64_t interval_ns; /* timeline bucket width */
	size_t nslots;
	struct {
		uint64_t ops, bytes; /* reads and writes completed in the slot */
	} * slot;
};


/* The recording's FUSE round trip: the floor tierfs wrote into the
 * header's mount options, 0 when it wrote none. */
uint64_t ts_trace_floor_ns(const struct ts_trace *t);

/* The wait rule's split (traces/README.md) of the @gap ns between records
 * @a and @b of one thread, from their CPU samples: *@work on (or queued
 * for) a CPU, *@wait off it beyond one round trip @rt_ns, 0 when no more
 * than two round trips were (delivery jitter). False when either record
 * has no sample. */
bool ts_trace_gap_split(const struct ts_trace *t, size_t a, size_t b, uint64_t gap,
			uint64_t rt_ns, uint64_t *work, uint64_t *wait);

/* @interval_ns 0 = about 20 slots over the trace's span. */
TS_WUR int ts_trace_stats_compute(const struct ts_trace *t, uint64_t interval_ns,
				  struct ts_trace_stats **out);
void ts_trace_stats_free(struct ts_trace_stats *s);
/* Text report; @top limits the per-file and per-thread tables. */
void ts_trace_stats_print(FILE *f, const struct ts_trace_stats *s, const struct ts_trace *t,
			  size_t top);
/* New reference, or NULL on ENOMEM. */
json_t *ts_trace_stats_json(const struct ts_trace_stats *s, const struct ts_trace *t);

#endif
