/*
 * wake_bpf_rec.h — what the BPF wake capture's kernel half
 * (wake_bpf.bpf.c) sends its user half (wake_bpf.c) through its ring: one
 * record per line of the wake file to be, and per thread's fork, exec and
 * exit. Shared by both halves, so it uses the kernel's fixed-size types.
 */
#ifndef TS_WAKE_BPF_REC_H
#define TS_WAKE_BPF_REC_H

#include <linux/types.h>

/* the living threads of one recorded tree the kernel keeps state for in
 * its hash map (those whose slot another holds); a tree with more at once
 * is not captured (its records are counted lost). The map's buckets are
 * made at its creation, 16 bytes each per entry. */
#define TS_WAKE_BPF_THREADS 8192
/* the slots of thread states in the programs' data: a hash of the task
 * mod this (a power of two; 1,024 x 64 bytes, 64 KiB, which the capture
 * copies into the kernel at each start) */
#define TS_WAKE_BPF_SLOTS 1024

/* A thread of the tree, as the programs keep it (wake_bpf.bpf.c): the
 * parser's per-thread state and the thread's totals. */
struct ts_wake_bpf_state {
	__u64 since;	/* off the CPU asleep since, 0 = running or runnable */
	__u64 on_since; /* on a CPU since, 0 = not */
	__u64 rq_since; /* runnable, waiting for a CPU, since; 0 = not */
	__u64 oncpu_ns, runq_ns;
	__u64 task; /* the kernel's task (its address); in a slot, 0 = free */
	__u32 tid;  /* the thread */
	__u32 d;    /* that sleep is uninterruptible (state D) */
	__u32 exiting; /* past sched_process_exit: its exit_state may be set */
	__u32 pad;     /* unused: a slot is one cache line */
};

enum ts_wake_bpf_type {
	TS_WAKE_BPF_WAKE = 1, /* a: wakee, b: waker (a thread of the tree) */
	TS_WAKE_BPF_SLEEP,    /* a: the sleeper, b: waker (outside; 0 = an interrupt) */
	TS_WAKE_BPF_FORK,     /* a: parent, b: child, c: child's process, comm: its comm */
	TS_WAKE_BPF_EXEC,     /* a: the thread, comm: its new comm */
	TS_WAKE_BPF_EXIT,     /* a: the exiting thread */
	TS_WAKE_BPF_PAUSE,    /* a: the sleeper (interruptible), an interrupt woke it */
	TS_WAKE_BPF_GONE,     /* a: the thread, dead at its last switch-out; times */
	TS_WAKE_BPF_PIPE_W,   /* a: the writer, b/c: the pipe (low/high half),
			       * since_ns: the pipe's bytes written to its end */
	TS_WAKE_BPF_PIPE_R,   /* a: the reader, b/c, since_ns: the same, read */
	TS_WAKE_BPF_ADVICE,   /* a: the thread, b: fd, c: advice, since_ns: the
			       * file's inode number, times: offset, len */
};

struct ts_wake_bpf_rec {
	__u64 t_ns;	/* CLOCK_MONOTONIC */
	__u64 since_ns; /* wake, sleep: when the thread went to sleep */
	__u32 type;	/* enum ts_wake_bpf_type */
	__u32 a, b, c;
	union {
		char comm[16];	 /* fork, exec */
		__u64 times[2]; /* gone: its time on a CPU, in the run queue;
				 * advice: its offset and len */
	};
};

#endif
