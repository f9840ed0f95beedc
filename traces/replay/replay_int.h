/*
 * replay_int.h — what the files of the replay library share and nothing
 * else sees: each trace thread's op list, the cursor each thread replays with,
 * the rules that say when its next op issues (rules.c), the wake file as
 * records (augment.c), the CPU model (cpu.c) and the result tallies
 * (report.c). virtual.c and real.c drive them with the two clocks;
 * recorded.c runs them on the recording's own times.
 */
#ifndef TS_REPLAY_INT_H
#define TS_REPLAY_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "traces/replay/replay.h"
#include "traces/stats.h"

/* ---- the trace's threads, each its ops in order (rules.c) ---- */

/* A thread of the trace as the replay runs it: its records in order. */
struct rthread {
	uint32_t tid;
	const size_t *idx; /* record indices, in submit order */
	size_t n;
	uint64_t rec_end;   /* the thread's last recorded completion */
	uint32_t pid, ppid; /* its process and that one's parent; 0 = unknown */
	bool kernel;	    /* a kernel thread's: the stream rule (rules.c) */
	/* per op, in order: the record whose completion released it when it
	 * was issued while an earlier op of the thread was in flight (the
	 * in-flight rule, rules.c); SIZE_MAX: none */
	const size_t *rel;
	/* per op with a rel: where the replay's own completions release it
	 * (rules.c, inflight_rel): rel_m[i] > 0: at the rel_m[i]-th replayed
	 * completion among the thread's ops rel_lo[i]..i-1 in flight when op
	 * i-1 was sent; 0: at rel's */
	const uint32_t *rel_m;
	const size_t *rel_lo;
	/* its pauses (the wake file's, traces/wakes.h), in time order: the
	 * in-kernel rule (rules.c) */
	const struct ts_sleep *pause;
	size_t npause;
};

struct rthreads {
	size_t *order; /* all records, grouped by thread, each in submit order */
	struct rthread *p;
	size_t n;
	uint64_t t0;	/* the first recorded submit */
	size_t *by_end; /* thread indices by rec_end */
	uint64_t *ends; /* rec_end of by_end[i], ascending */
	size_t *anchor; /* per record of tid 0: the record it follows (below) */
	size_t *dep;	/* per record of a kernel thread: the completion it
			 * follows, SIZE_MAX = its predecessor's issue */
	size_t *sprev;	/* per record of a kernel thread: its predecessor in
			 * its stream (SIZE_MAX: none) */
	size_t *rel;	/* rthread.rel of every thread, in the order of @order */
	/* rthread.rel_m and rel_lo of every thread, likewise */
	uint32_t *rel_m;
	size_t *rel_lo;
	/* The wake rule (a wake file): per record, the thread whose wake
	 * it is (SIZE_MAX: none), when, and how long it had slept. */
	const struct wake_edge *edge;
	/* The CPU model (a wake file with the host's CPUs): the CPUs the
	 * application had; 0: off. */
	double cpu_cap;
	struct ts_sleep *pauses; /* the wake file's pauses by thread, then time */
};

struct wake_edge {
	size_t waker; /* thread index, SIZE_MAX = none */
	size_t rec;   /* or a request whose completion woke it (block mode's
		       * page-cache waits), SIZE_MAX = none */
	uint64_t t_ns, slept_ns; /* t_ns: the waker's point (a wake's time) */
	bool start; /* the thread's start: its parent forked it */
	bool handoff; /* a hand-off (traces/wakes.h): the record is at the
		       * read, t_ns at the write, nothing slept */
};

TS_WUR int replay_rthreads_build(const struct ts_trace *t, struct rthreads *ps);
/* A kernel thread's (its parent is kthreadd, pid 2 on Linux): in block mode
 * the loop device's worker, whose requests follow the stream rule. */
static inline bool replay_kernel_thread(uint32_t pid, uint32_t ppid)
{
	return pid && ppid == 2;
}
/* The stream rule's dependencies of one stream, @idx: its @n records in
 * submit order. Sets @dep[r] (the completion record r follows) and
 * @prev[r] (its predecessor) for the stream's records after the first;
 * others are left as they are. 0 or -ENOMEM. */
/* qsort_r order of record indices by completion (context: the trace). */
int replay_cmp_done(const void *a, const void *b, void *ctx);
TS_WUR int replay_stream_deps(const struct ts_trace *t, const size_t *idx, size_t n, size_t *dep,
			      size_t *prev);
void replay_rthreads_free(struct rthreads *ps);
/* Each thread's pauses in @s (rthread.pause), for the in-kernel rule. 0 or
 * -ENOMEM. */
TS_WUR int replay_rthreads_pauses(struct rthreads *ps, const struct ts_wakes *s);
/* The span's part after the command's other threads ended (and its own
 * last request), the command's exit (rules.c); 0: none. @ends per thread,
 * @done per record, on one clock. */
uint64_t replay_trail_ns(const struct rthreads *ps, const struct ts_trace *t,
			 const struct ts_wakes *w, const uint64_t *ends, const uint64_t *done);

/* Where one thread stands in its replay. */
struct cursor {
	const struct rthread *p;
	size_t i;		 /* next op */
	uint64_t win_lo, win_hi; /* recorded window before op i (the join rule) */
	uint64_t next_issue;	 /* replay time of op i */
	uint64_t done_max;	 /* latest replayed completion so far */
	uint64_t rec_done_max;	 /* latest recorded completion so far */
	uint64_t think_ns;	 /* think time kept so far */
	uint64_t last_think;	 /* its last addition (the join rule may replace it) */
	uint64_t origin, t0;	 /* replay time of the recorded time t0 */
	uint64_t waited_ns;	 /* recorded waiting taken as elastic (wait_part) */
	uint64_t rec_woke;	 /* recorded end of its last pacing wait (or its start) */
	uint64_t closed_issue;	 /* next_issue by the closed loop, before any wake */
	uint64_t own_issue;	 /* next_issue by its own work alone: the closed
				  * loop less a wake's recorded sleep (--ops) */
	/* replayed completion per record, which the driver fills in before
	 * it advances the cursor past it (the in-flight rule, rules.c); NULL:
	 * the rule is off */
	const uint64_t *completed;
	bool mem_served;	 /* the op last issued never left memory
				  * (kernel_fs: virtual.c; the wake-up rule) */
	bool in_kernel;		 /* the op last issued the kernel's file system
				  * serves without sleeping: a metadata op or a
				  * read from its page cache (kernel_fs: virtual.c;
				  * the in-kernel rule, rules.c) */
	bool dev_read;		 /* the op last issued was a read the device
				  * served (kernel_fs: the loop rule, rules.c) */
	uint64_t dev_reqs;	 /* kernel_fs: the device's read requests the
				  * read last issued sent, readahead included
				  * (the IO path's CPU, rules.c) */
	uint64_t carry_owed;	 /* cfg.carry: the round trips the thread owes
				  * (traces/tier_rule.h; virtual.c) */
	uint64_t fuse_owed;	 /* kernel_fs: FUSE's CPU its gaps could not
				  * hold yet (the in-kernel rule, rules.c) */
	/* the CPU model: before op i, cpu_demand ns on a CPU, then cpu_rest
	 * (its own sleeps, and the wait the wake rule bounds) */
	bool cpu_pending, on_cpu;
	uint64_t cpu_demand, cpu_rest;
	double cpu_left; /* on_cpu: demand not yet served */
	/* what replay_schedule last waited for when it returned false: the
	 * record whose issue or completion it needs, or the thread whose end
	 * it needs (SIZE_MAX: neither) */
	size_t wait_rec, wait_thread;
};

/* Thread @p's cursor at its first op, which issues at @base plus its
 * recorded distance from @t0 (scaled by @speed). */
void replay_cursor_start(struct cursor *c, const struct rthread *p, const struct ts_trace *t,
			 uint64_t t0, uint64_t base, double speed);
/* Op i was issued at @s and completed at @done (replay times): move on and
 * compute when op i+1 issues. Returns false when the thread is done. */
bool replay_cursor_advance(struct cursor *c, const struct ts_trace *t, uint64_t s, uint64_t done,
			   const struct ts_replay_cfg *cfg, double speed);
/* When may c's next op issue? Sets c->next_issue; false = not known yet
 * (the thread it waits for has not got there), with c->wait_rec or
 * c->wait_thread saying what it waits for; a false answer changes the
 * cursor the same way each time, so it need not be asked again until that
 * record or thread moves. @ended: replayed end per
 * thread (0 = running); @issued and @completed: replayed times per record
 * (0 = not yet); @completed NULL: replaying the recording's own times. */
bool replay_schedule(const struct rthreads *ps, const struct ts_trace *t, struct cursor *c,
		     const uint64_t *ended, const uint64_t *issued, const uint64_t *completed,
		     const struct ts_replay_cfg *cfg, double speed);

/* ---- the wake file as records (augment.c) ---- */

/* Marks the GETATTR records of @t that are getattrs, not lookups
 * (REC_F_ATTR). 0 or -ENOMEM. */
TS_WUR int replay_mark_getattrs(struct ts_trace *t);

/* A record of the wake rule: no IO, a moment in its thread's op list. */
#define REC_F_WAKE 0x8000
/* Block mode: a request of the loop device's worker moved to the thread
 * of the command that slept in it (tie_sleeps() in augment.c): the wake-up
 * rule (rules.c) applies to the gap after it. */
#define REC_F_MOVED 0x4000
/* Under kernel_fs: a GETATTR the kernel sent for a name it held (an
 * fstat, a stat after the attributes were invalidated), a getattr, not a
 * lookup (setup.c, replay_mark_getattrs); the in-kernel rule charges it
 * fuse_cpu_getattr_ns. */
#define REC_F_ATTR 0x2000

struct augmented {
	struct ts_trace t; /* the trace's own, with the wake records after them */
	struct wake_edge *edge;
	uint32_t *waker_tid; /* per record, until the threads resolve it */
	double cpu_cap;
	size_t outside; /* the trace's requests outside the command's span */
	/* block mode with the command's IO sleeps tied to requests: the
	 * stream rule's dependencies over each kernel thread's whole stream,
	 * taken before its demand requests moved to the threads that waited
	 * for them (NULL: none moved) */
	size_t *dep, *sprev;
	size_t nstream;	    /* the records they cover: a->t's first */
	size_t moved, tied; /* requests moved; sleeps that wait on a request */
};

/* @t with a record per wake in @s and one per thread's start and end
 * (REC_F_WAKE records, without IO). 0 or -ENOMEM. */
TS_WUR int replay_augment(const struct ts_trace *t, const struct ts_wakes *s,
			  struct augmented *a);
/* The edges' wakers as thread indices, once the threads of a->t are built;
 * the streams' dependencies. 0 or -ENOMEM. */
TS_WUR int replay_augment_resolve(struct augmented *a, struct rthreads *ps);
void replay_augmented_free(struct augmented *a);

/* ---- the CPU model (cpu.c) ---- */

/* The CPUs serving the threads' work between requests; cpu.c says how. */
struct cpu_server {
	double cap;		/* CPUs */
	struct cursor **job;	/* threads on a CPU or waiting for one */
	size_t n, size;
	uint64_t t;		/* when the shares were last taken */
};

/* When the next job on a CPU is done; UINT64_MAX when none runs. */
uint64_t replay_cpu_next(const struct cpu_server *cs);
/* Serves every job up to @t. */
void replay_cpu_advance(struct cpu_server *cs, uint64_t t);
/* Thread @c wants c->cpu_demand ns of CPU from @t. 0 or -ENOMEM. */
TS_WUR int replay_cpu_add(struct cpu_server *cs, struct cursor *c, uint64_t t);
/* A thread whose work is done, taken off the CPUs; NULL when none is. */
struct cursor *replay_cpu_take(struct cpu_server *cs);
/* Splits the gap before c's next op into CPU work (c->cpu_pending, served
 * by the CPUs) and the rest, when the CPU model is on. */
void replay_cpu_gap(const struct rthreads *ps, const struct ts_trace *t, struct cursor *c,
		    const struct ts_replay_cfg *cfg, double speed);

/* ---- results (report.c) ---- */

/* TS_REPLAY_READ, _WRITE or _OTHER for a trace op. */
int replay_lat_class(unsigned op);
/* The bytes a record read or wrote (0 for other ops and failures). */
uint64_t replay_rec_bytes(const struct ts_trace_rec *r);
void replay_result_init(struct ts_replay_result *res, const char *what);
void replay_result_add(struct ts_replay_result *res, unsigned op, uint64_t lat, uint64_t bytes);

#endif
