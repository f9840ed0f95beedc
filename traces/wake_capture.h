/*
 * wake_capture.h — who woke whom while `tiersim record` runs a command:
 * the kernel's scheduler tracepoints, limited to the command's process
 * tree, turned into a wake file (traces/wakes.h) beside the trace.
 *
 * Through BPF where it can (wake_bpf.h: the state kept in the kernel,
 * only the file's lines sent up), else through a tracefs instance of its
 * own, every event of the tree read and decoded here; the same lines
 * either way ($TIERSIM_WAKE_CAPTURE=tracefs: through tracefs). The
 * tracefs capture needs tracefs (mounted in a scratch directory for the
 * capture's length when it is not at /sys/kernel/tracing) and the right
 * to write there (root). Where neither way works, ts_wake_capture_open
 * says why in @why and the recording goes on without it: the replay then
 * falls back to the CPU samples' wait rule. The pipe hand-offs (H lines)
 * and the fadvise64 advices (A lines) are the BPF capture's alone: they
 * read the file behind a system call's fd in the kernel, which the
 * tracefs events this capture reads do not carry (raw_syscalls' sys_exit
 * gives the call's number and return, not its arguments or its file), so
 * a tracefs capture records neither, a plain limit.
 */
#ifndef TS_WAKE_CAPTURE_H
#define TS_WAKE_CAPTURE_H

#include <stdint.h>
#include <sys/types.h>

#include "core/ts.h"

struct ts_wake_capture;

/* Prepares an instance, events off; where tracefs is not mounted at
 * /sys/kernel/tracing, it is mounted in the directory @scratch for the
 * capture's length. 0, or -errno with the reason in @why. */
TS_WUR int ts_wake_capture_open(struct ts_wake_capture **out, const char *scratch, char *why,
				size_t whylen);
/* Why the capture is not through BPF (wake_bpf.h) though it was asked to
 * be (one line, for a notice), or NULL. */
const char *ts_wake_capture_note(const struct ts_wake_capture *c);
/* Before ts_wake_capture_start: no pipe hand-offs in the wake file (no H
 * lines; the BPF capture's system call program left unattached). */
void ts_wake_capture_no_handoffs(struct ts_wake_capture *c);
/* Starts capturing the tree under @pid (not yet running its command). */
TS_WUR int ts_wake_capture_start(struct ts_wake_capture *c, pid_t pid, char *why,
				  size_t whylen);
/* Stops, and writes the wake file to @path (0, or -errno with @why);
 * @path NULL: discards. Where the kernel lost events (tracefs's per-CPU
 * buffers, default 8 MiB, or BPF's one ring, default 2 MiB; either
 * $TIERSIM_WAKES_BUFFER_KB; filled faster than they were read) no file is written: -ENOBUFS. Frees @c and removes its instance
 * either way. */
TS_WUR int ts_wake_capture_close(struct ts_wake_capture *c, const char *path, char *why,
				  size_t whylen);

#endif
