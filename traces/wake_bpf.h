/*
 * wake_bpf.h — wake capture through BPF (wake_capture.h's first choice):
 * programs on the scheduler tracepoints keep each thread's state of the
 * recorded tree in the kernel and send user space only the wake file's
 * W and S lines and the threads' forks, execs and exits (wake_bpf.bpf.c);
 * they feed the same parser as the tracefs capture (ts_wakes_parser).
 *
 * Built when libbpf, clang and bpftool are there (meson option `bpf`);
 * it runs where the kernel has BTF and the caller may load BPF (CAP_BPF
 * and CAP_PERFMON, or root). Where not, ts_wake_bpf_open says why and the
 * capture uses tracefs.
 */
#ifndef TS_WAKE_BPF_H
#define TS_WAKE_BPF_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/ts.h"
#include "traces/wakes.h"

struct ts_wake_bpf;

/* Loads the programs, not attached; the ring holds @ring_kb KiB (rounded
 * up to a power of two). 0, or -errno with the reason in @why. */
TS_WUR int ts_wake_bpf_open(struct ts_wake_bpf **out, size_t ring_kb, char *why, size_t whylen);
/* Before ts_wake_bpf_start: no hand-offs (no H lines): the program on
 * every system call of the host (wake_bpf.bpf.c) stays unattached. */
void ts_wake_bpf_no_handoffs(struct ts_wake_bpf *b);
/* Starts capturing the tree under @pid into @p (which it feeds from a
 * thread of its own until ts_wake_bpf_stop). */
TS_WUR int ts_wake_bpf_start(struct ts_wake_bpf *b, pid_t pid, struct ts_wakes_parser *p,
			      char *why, size_t whylen);
/* Stops, feeds @p the rest and each thread's time on a CPU and in the
 * run queue up to @end_ns; *@lost: records the kernel could not keep.
 * 0, or -errno with @why. */
TS_WUR int ts_wake_bpf_stop(struct ts_wake_bpf *b, uint64_t end_ns, uint64_t *lost, char *why,
			     size_t whylen);
void ts_wake_bpf_free(struct ts_wake_bpf *b);

#endif
