/*
 * wakes.h — who woke whom: the scheduler's view of a recorded application,
 * kept beside its trace (TRACE.wakes) so that replay knows which of a
 * thread's waits were on another thread of the application, which one, and
 * when.
 *
 * `tiersim record` captures it from the kernel's scheduler tracepoints
 * (tracefs: sched_switch, sched_waking, sched_process_fork,
 * sched_process_exit, sched_process_exec), limited to the recorded command and its
 * descendants; ts_wakes_parser turns the tracepoint lines into:
 *
 *   - the threads of that process tree (tid, pid, parent, when each
 *     started and ended), and
 *   - each wake of one of them by another of them, outside interrupt
 *     context: the wakee went off the CPU at since_ns, asleep, and was
 *     woken at t_ns by waker — it waited on that thread for
 *     t_ns - since_ns, and
 *   - each uninterruptible sleep (state D: the kernel waiting for IO on
 *     the thread's behalf) of one of them that something outside the tree
 *     ended: a thread outside it (tierfs replying to a FUSE request, or completing
 *     a loop device's request, which ends a page-cache wait in block mode;
 *     a kworker) or an interrupt (a timer, a device). These are not
 *     dependencies on the application but on the device: in block mode
 *     they tie the device's requests to the application's threads that
 *     waited for them (replay/augment.c). Other wakes from outside the
 *     tree (a timer's interrupt) are the thread pacing itself and are not
 *     kept.
 *
 * The file (traces/FORMAT.md, "Wake file"): a line "tiersim-wakes 1",
 * then "span BEGIN END", "cpus N OTHERS", "T tid pid ppid start end oncpu
 * runq comm" per thread, "W t since wakee waker" per wake, "S t since tid
 * waker" per IO sleep ended from outside (waker 0: an interrupt) and "P t
 * since tid" per interruptible sleep an interrupt ended (a pause), "H t
 * wrote reader writer" per hand-off and "A t tid fd ino offset len
 * advice" per advice (below), times in CLOCK_MONOTONIC
 * nanoseconds (the trace's clock). '#' starts a comment.
 *
 * A hand-off is a tie no sleep shows: a thread read bytes from a pipe
 * that another thread of the tree had written, without sleeping for them
 * (they were there when it read). The BPF capture follows the kernel's
 * pipe reads and writes of the tree's threads, counting each pipe's bytes
 * written and read, and ties each read to the write that put its last
 * byte in the pipe: the reader's read returned at t, the writer's write
 * at wrote (<= t). A thread's own traffic (reader = writer) is no tie.
 * The tracefs capture records none.
 *
 * An advice is a successful posix_fadvise (fadvise64) of a thread of the
 * tree: "A t tid fd ino offset len advice" (traces/FORMAT.md): the call
 * returned at t, on the file whose inode number (the kernel's i_ino of
 * the fd's file: in FUSE mode the backing file's st_ino, tierfs mounts
 * with use_ino; in block mode the image's ext4 inode) is ino, with the
 * call's range and advice (POSIX_FADV_*, Linux's numbers: 0 NORMAL,
 * 1 RANDOM, 2 SEQUENTIAL, 3 WILLNEED, 4 DONTNEED, 5 NOREUSE). The replay
 * applies the readahead ones to the page-cache model (traces/README.md).
 * Only the BPF capture records them.
 */
#ifndef TS_WAKES_H
#define TS_WAKES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/ts.h"

struct ts_wakes_thread {
	uint32_t tid, pid, ppid; /* ppid: the thread that forked it (0: the root) */
	uint64_t start_ns;	 /* forked, or the capture's begin for the root */
	uint64_t end_ns;	 /* exited, or the capture's end */
	uint64_t oncpu_ns;	 /* its time on a CPU, start to end */
	uint64_t runq_ns;	 /* its time runnable but waiting for a CPU */
	char comm[16];
};

struct ts_wake {
	uint64_t t_ns;	   /* when the waker woke it */
	uint64_t since_ns; /* when the wakee went to sleep */
	uint32_t wakee, waker;
};

/* An uninterruptible sleep (state D) of a thread of the tree that
 * something outside it ended. */
struct ts_sleep {
	uint64_t t_ns;	   /* when it was woken */
	uint64_t since_ns; /* when it went to sleep */
	uint32_t tid;
	uint32_t waker; /* a thread outside the tree; 0 = an interrupt */
};

/* A hand-off through a pipe (above): @reader's read returned at t_ns with
 * bytes whose last one @writer's write put in the pipe at wrote_ns. */
struct ts_handoff {
	uint64_t t_ns, wrote_ns;
	uint32_t reader, writer;
};

/* An advice (above). */
struct ts_advice {
	uint64_t t_ns;
	uint64_t ino;	    /* the file's inode number (i_ino), > 0 */
	uint64_t off, len;  /* the call's range (len 0: to the end) */
	uint32_t tid;
	uint32_t fd;
	uint32_t advice;    /* POSIX_FADV_* (Linux's numbers), <= 5 */
};

struct ts_wakes {
	uint64_t begin_ns, end_ns; /* what the capture covers */
	/* the CPUs the command could run on, and the CPU time everything
	 * else on the host took meanwhile (0: not known) */
	uint32_t cpus;
	uint64_t others_ns;
	struct ts_wakes_thread *threads;
	size_t nthreads, thread_cap;
	/* the threads by tid: open addressing, each slot a thread's index + 1
	 * (0: empty), tid_cap a power of two at least twice the threads;
	 * kept by the file's reader and the parser for the first tid_indexed
	 * threads (a tid listed twice: its first) */
	uint32_t *tid_slots;
	size_t tid_cap, tid_indexed;
	struct ts_wake *wakes; /* in time order */
	size_t nwakes, wake_cap;
	struct ts_sleep *sleeps; /* in time order */
	size_t nsleeps, sleep_cap;
	/* interruptible sleeps an interrupt ended (waker 0), in time order */
	struct ts_sleep *pauses;
	size_t npauses, pause_cap;
	/* hand-offs (above), in the time order of their reads */
	struct ts_handoff *handoffs;
	size_t nhandoffs, handoff_cap;
	/* advices (above), in time order */
	struct ts_advice *advices;
	size_t nadvices, advice_cap;
};

void ts_wakes_free(struct ts_wakes *s);
/* The thread @tid, or NULL; the first listed where a tid is listed twice.
 * Through the tid index where it covers every thread (a file read or a
 * parser's result), else a scan (threads filled in by hand). */
const struct ts_wakes_thread *ts_wakes_thread_of(const struct ts_wakes *s, uint32_t tid);
/* The tree's root: the first listed thread that no listed thread forked
 * (its ppid 0 or not listed); 0 when none. */
uint32_t ts_wakes_root(const struct ts_wakes *s);

/* Drops each wake between two threads of one process that ended a sleep
 * shorter than @below_ns (a lock's hand-off rather than data: the wakee
 * waited a moment for something the waker let go of); how many. */
size_t ts_wakes_drop_short(struct ts_wakes *s, uint64_t below_ns);

/* Reads a wake file; an error names the file and line in @err. */
TS_WUR int ts_wakes_read(const char *path, struct ts_wakes *s, char *err, size_t errlen);
TS_WUR int ts_wakes_read_mem(const char *buf, size_t len, const char *name, struct ts_wakes *s,
			     char *err, size_t errlen);
/* Writes @s to @f; -errno when the stream failed. */
TS_WUR int ts_wakes_write(FILE *f, const struct ts_wakes *s);

/* Turns scheduler tracepoint events ("mono" clock) into a ts_wakes for the
 * tree under @root. */
struct ts_wakes_parser;
TS_WUR int ts_wakes_parser_new(uint32_t root, uint64_t begin_ns, struct ts_wakes_parser **out);
/* Names each new thread's process with @tgid (e.g. from /proc). */
void ts_wakes_parser_tgid(struct ts_wakes_parser *p, uint32_t (*tgid)(uint32_t tid));
/* One scheduler event, however it was read (a trace_pipe line, or the
 * binary per-CPU buffers of wake_capture.c). Events go in in time order. */
enum ts_wakes_ev_type {
	TS_WAKES_SWITCH = 1, /* a: prev tid, b: next tid, runnable: prev stays runnable */
	TS_WAKES_WAKING,     /* a: the woken tid */
	TS_WAKES_FORK,	     /* a: parent tid, b: child tid, str: child's comm */
	TS_WAKES_EXEC,	     /* str: the file name */
	TS_WAKES_EXIT,	     /* a: the exiting tid */
};
struct ts_wakes_event {
	uint64_t t_ns;	 /* CLOCK_MONOTONIC */
	uint32_t cur;	 /* the thread the event happened in */
	uint32_t a, b;	 /* per type */
	unsigned type;	 /* enum ts_wakes_ev_type */
	bool irq;	 /* in an interrupt (hard, soft or NMI): on behalf of no thread */
	bool runnable;	 /* switch: the previous thread was preempted, not asleep */
	bool uninterruptible; /* switch: it sleeps in state D (waiting for IO) */
	const char *str; /* fork, exec: not NUL-terminated */
	size_t len;
	uint32_t tgid;	 /* fork: the child's process (0: ask the tgid function) */
};
/* One event: 1 used, 0 not a scheduler event of the tree (ignored),
 * -ENOMEM. */
TS_WUR int ts_wakes_parser_event(struct ts_wakes_parser *p, const struct ts_wakes_event *ev);
/* What a capture that keeps the threads' state itself (wake_bpf.h) has
 * decided: a wake of a thread of the tree by another (0 when @w's wakee
 * or waker is not one of them), an IO sleep ended from outside (0 when
 * its thread is not one), a pause (below), and a thread's totals to its end (0 when
 * not one): 1 used, or -ENOMEM. */
TS_WUR int ts_wakes_parser_wake(struct ts_wakes_parser *p, const struct ts_wake *w);
TS_WUR int ts_wakes_parser_sleep(struct ts_wakes_parser *p, const struct ts_sleep *z);
/* ... and an interruptible sleep an interrupt ended (a pause; 0 when its
 * thread is not one). */
TS_WUR int ts_wakes_parser_pause(struct ts_wakes_parser *p, const struct ts_sleep *z);
/* A pipe read or write of a thread (@tid) of the tree, as it returned at
 * @t_ns: the pipe (any key the same for the same pipe) and the pipe's
 * bytes written (a write) or read (a read) up to its end. Tied into
 * hand-offs when the parser finishes. 1 used, 0 not a thread of the tree,
 * -ENOMEM. */
TS_WUR int ts_wakes_parser_pipe(struct ts_wakes_parser *p, bool write, uint64_t t_ns,
				uint32_t tid, uint64_t pipe, uint64_t end);
/* A successful fadvise64 of a thread (@a->tid) of the tree: 1 used, 0
 * not a thread of the tree, -ENOMEM. */
TS_WUR int ts_wakes_parser_advice(struct ts_wakes_parser *p, const struct ts_advice *a);
int ts_wakes_parser_times(struct ts_wakes_parser *p, uint32_t tid, uint64_t oncpu_ns,
			  uint64_t runq_ns);
/* One trace_pipe line, as an event: the same returns. */
TS_WUR int ts_wakes_parser_line(struct ts_wakes_parser *p, const char *line);
/* Ends the capture at @end_ns and moves its result into @s. */
TS_WUR int ts_wakes_parser_finish(struct ts_wakes_parser *p, uint64_t end_ns, struct ts_wakes *s);
void ts_wakes_parser_free(struct ts_wakes_parser *p);

#endif
