/*
 * wake_bpf_rec.h — what the BPF wake capture's kernel half
 * (wake_bpf.bpf.c) sends its user half (wake_bpf.c) through its ring: one
 * record per line of the wake file to be, and per thread's fork, exec and
 * exit. Shared by both halves, so it uses the kernel's fixed-size types.
 */
#ifndef TS_WAKE_BPF_REC_H
#define TS_WAKE_BPF_REC_H

#include <linux/types.h>

/* the threads of one recorded tree the kernel keeps state for */
#define TS_WAKE_BPF_THREADS 65536

enum ts_wake_bpf_type {
	TS_WAKE_BPF_WAKE = 1, /* a: wakee, b: waker (a thread of the tree) */
	TS_WAKE_BPF_SLEEP,    /* a: the sleeper, b: waker (outside; 0 = an interrupt) */
	TS_WAKE_BPF_FORK,     /* a: parent, b: child, c: child's process, comm: its comm */
	TS_WAKE_BPF_EXEC,     /* a: the thread, comm: its new comm */
	TS_WAKE_BPF_EXIT,     /* a: the exiting thread */
	TS_WAKE_BPF_PAUSE,    /* a: the sleeper (interruptible), an interrupt woke it */
};

struct ts_wake_bpf_rec {
	__u64 t_ns;	/* CLOCK_MONOTONIC */
	__u64 since_ns; /* wake, sleep: when the thread went to sleep */
	__u32 type;	/* enum ts_wake_bpf_type */
	__u32 a, b, c;
	char comm[16];
};

#endif
