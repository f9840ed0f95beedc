// SPDX-License-Identifier: GPL-2.0
/*
 * wake_bpf.bpf.c — the kernel half of the BPF wake capture (wake_bpf.h):
 * the scheduler tracepoints of a recorded command's process tree, kept
 * as per-thread state in a map, with only what becomes a line of the wake
 * file sent to user space.
 *
 * tracefs records every scheduler event of the tree (four per FUSE read
 * of an IO-only loader) and user space decodes them all to keep the few
 * that become a W, S or P line; here the same bookkeeping as the parser's
 * (traces/wakes.c, ts_wakes_parser_event) runs at the tracepoint, so an
 * event of the host's costs one load and most send nothing. The program
 * must agree
 * with that parser: the same state per thread, the same rules, the same
 * lines (tests/traces/wake_bpf.sh records one workload both ways).
 *
 * Raw tracepoints, and no CO-RE: where a field sits in the running
 * kernel, user space reads once from the kernel's BTF (wake_bpf.c) and
 * sets below before the load. A tp_btf program or a CO-RE relocation has
 * libbpf parse the whole of the kernel's BTF (12 ms of CPU here, the
 * largest part of what the capture cost a short recording) and the
 * kernel search it again per program. What a recording pays before its
 * command runs is mostly the verifier's walk of these programs: the work
 * done for a thread of the tree sits in global functions (verified once
 * each, for any arguments), the programs themselves stay short. GPL: it
 * calls GPL-only helpers; user space is not bound by it.
 */
#include <linux/types.h>
#include <linux/bpf.h>
#include <stdbool.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "traces/wake_bpf_rec.h"

char LICENSE[] SEC("license") = "GPL";

/* byte offsets in the running kernel (wake_bpf.c, from its BTF) */
const volatile __u32 task_pid = 0;	  /* task_struct.pid */
const volatile __u32 task_tgid = 0;	  /* task_struct.tgid */
const volatile __u32 task_exit_state = 0; /* task_struct.exit_state */
const volatile __u32 task_cfs_rq = 0;	  /* task_struct.se.cfs_rq */
const volatile __u32 cfs_rq_rq = 0;	  /* cfs_rq.rq */
const volatile __u32 rq_cpu = 0;	  /* rq.cpu */
/* this CPU's preempt count, from this CPU's run queue: both are per-CPU
 * variables, this distance apart in every CPU's copy */
const volatile __s64 rq_preempt_count = 0;
/* the hand-offs' (below): task_struct.files, files_struct.fdt,
 * fdtable.fd and .max_fds, file.f_inode and .private_data, inode.i_mode */
const volatile __u32 task_files = 0;
const volatile __u32 files_fdt = 0;
const volatile __u32 fdt_fd = 0;
const volatile __u32 fdt_max = 0;
const volatile __u32 file_inode = 0;
const volatile __u32 file_private = 0;
const volatile __u32 inode_mode = 0;
const volatile __u32 handoffs = 0; /* the offsets are known: capture them */
/* the advices' (below): inode.i_ino; advices 0: not known, none captured */
const volatile __u32 inode_ino = 0;
const volatile __u32 advices = 0;

/* per thread of the tree: the parser's struct tstate, and its totals
 * (struct ts_wake_bpf_state, wake_bpf_rec.h) */
#define tstate ts_wake_bpf_state

/*
 * The tree's threads are known by their task (the kernel's struct
 * task_struct, its address), not by their id: the scheduler's
 * tracepoints pass the tasks, and a thread's id is one more read from
 * each (a helper call, and a cache line of a task of the host's that is
 * often cold), made by every run of the switch and wake programs,
 * nearly all of them for the host's other threads. A task's address is
 * the task's alone while it lives; a thread of the tree leaves the
 * programs' state at its last switch-out (dead), before its address can
 * be another task's.
 *
 * The root is known to user space by its id alone: until a program meets
 * it (its first event: woken, switched to or from), root_tid names it and
 * the programs read ids, as before; then it is added as on_fork adds a
 * child, and root_tid is 0.
 */
__u64 root_tid = 0; /* a word, for the programs' compare-and-swap */

/* where a task's address goes in the filter and the slots below: the
 * address's bits mixed, as tasks sit a slab object apart */
static __always_inline __u32 task_hash(__u64 task)
{
	return (__u32)((task * 0x9E3779B97F4A7C15ULL) >> 40);
}

/*
 * The tree's living threads' states: in the programs' own data, slot
 * (task_hash mod TS_WAKE_BPF_SLOTS), where the slot is free when the
 * thread is added; the few threads whose slot another holds go to a hash
 * map (tasks). A slot is one cache line, one load away, where a hash
 * look-up hashes the key and walks a bucket. A thread's slot or entry is
 * freed at its last switch-out, its totals sent to user space (GONE).
 */
struct tstate slot[TS_WAKE_BPF_SLOTS] __attribute__((aligned(64))) = {};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC); /* a tree has a few threads, not thousands */
	__uint(max_entries, TS_WAKE_BPF_THREADS);
	__type(key, __u64); /* the task */
	__type(value, struct tstate);
} tasks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096); /* set by user space before load */
} recs SEC(".maps");

/*
 * A filter in front of the slots and the map: bit (task_hash mod 32768)
 * is set for each thread added and never cleared while the capture runs.
 * A clear bit says the task is not the tree's with one load from this
 * program's own data and no helper call, so the scheduler events of the
 * host's other threads (most of a busy host's) cost no look-up; a set
 * bit is confirmed by the slot or the map (another task may share it).
 * 4 KiB: a few cache lines that the events keep warm.
 */
#define TREE_BITS (1U << 15)
__u64 tree[TREE_BITS / 64] = {};

/* the word of @task's bit; the mask (hidden from the compiler, which
 * would fold it into the shift) shows the verifier the index bounded */
static __always_inline __u64 *tree_word(__u64 task)
{
	__u32 i = task_hash(task) / 64;
	asm volatile("" : "+r"(i));
	return &tree[i & (TREE_BITS / 64 - 1)];
}

static __always_inline __u64 tree_bit(__u64 task)
{
	return 1ULL << (task_hash(task) % 64);
}

static __always_inline bool maybe_tree(__u64 task)
{
	return *tree_word(task) & tree_bit(task);
}

/* @task's slot; the mask, hidden as tree_word's, bounds the index */
static __always_inline struct tstate *slot_of(__u64 task)
{
	__u32 i = task_hash(task);
	asm volatile("" : "+r"(i));
	return &slot[i & (TS_WAKE_BPF_SLOTS - 1)];
}

/* the state of a thread that passed the filter, if it is the tree's */
static __always_inline struct tstate *tree_state(__u64 task)
{
	struct tstate *s = slot_of(task);
	if (s->task == task)
		return s;
	return bpf_map_lookup_elem(&tasks, &task);
}

/* the thread's state if it is the tree's: its slot, or the map */
static __always_inline struct tstate *of_tree(__u64 task)
{
	if (!maybe_tree(task))
		return NULL;
	struct tstate *s = slot_of(task);
	if (s->task == task)
		return s;
	return bpf_map_lookup_elem(&tasks, &task);
}

/* records not sent (the ring full) and threads not kept (the map full):
 * either makes the file wrong, so none is written */
__u64 lost = 0;
/* wakes whose context could not be told (the run queue found was not
 * this CPU's): none is written either */
__u64 blind = 0;

static __always_inline __u32 read_u32(const void *p, __u32 off)
{
	__u32 v = 0;
	bpf_probe_read_kernel(&v, sizeof(v), (const char *)p + off);
	return v;
}

static __always_inline const void *read_ptr(const void *p, __u32 off)
{
	const void *v = NULL;
	bpf_probe_read_kernel(&v, sizeof(v), (const char *)p + off);
	return v;
}

/*
 * In an interrupt (hard, soft or NMI): on behalf of no thread, as tracefs's
 * common_flags say, from the same preempt count (include/linux/preempt.h).
 * That count is a per-CPU variable on x86-64, and a kernel without
 * KALLSYMS_ALL lets no program name one; but the current task's run queue
 * is this CPU's copy of another (runqueues), and the two keep their
 * distance in every copy. Where the run queue found is not this CPU's,
 * -1: not known.
 */
#define SOFTIRQ_OFFSET 0x100 /* serving a softirq, not just BH disabled */
#define HARDIRQ_MASK 0xf0000
#define NMI_MASK 0xf00000
/* each CPU's run queue once found (per-CPU variables stay where they
 * are): later wakes on that CPU read its preempt count alone */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} cpu_rq SEC(".maps");

static __always_inline int in_irq_ctx(void)
{
	__u32 zero = 0;
	__u64 *cached = bpf_map_lookup_elem(&cpu_rq, &zero);
	const void *rq = cached ? (const void *)*cached : NULL;
	if (!rq) {
		const void *task = (const void *)bpf_get_current_task();
		const void *cfs_rq = read_ptr(task, task_cfs_rq);
		rq = cfs_rq ? read_ptr(cfs_rq, cfs_rq_rq) : NULL;
		if (!rq || read_u32(rq, rq_cpu) != bpf_get_smp_processor_id())
			return -1;
		if (cached)
			*cached = (__u64)rq;
	}
	__u32 pc = 0;
	bpf_probe_read_kernel(&pc, sizeof(pc), (const char *)rq + rq_preempt_count);
	return (pc & (NMI_MASK | HARDIRQ_MASK | SOFTIRQ_OFFSET)) != 0;
}

/* sends one record: @what, its type (TS_WAKE_BPF_*), with WITH_COMM for
 * the current thread's comm; @ab, a and b (b in the high half). A global
 * function: verified once, not at each place it is called. */
#define WITH_COMM 0x100
__attribute__((noinline)) int send(__u32 what, __u64 t, __u64 since, __u64 ab, __u32 c)
{
	struct ts_wake_bpf_rec *r = bpf_ringbuf_reserve(&recs, sizeof(*r), 0);
	if (!r) {
		__sync_fetch_and_add(&lost, 1);
		return 0;
	}
	r->type = what & 0xff;
	r->t_ns = t;
	r->since_ns = since;
	r->a = (__u32)ab;
	r->b = (__u32)(ab >> 32);
	r->c = c;
	if (what & WITH_COMM)
		bpf_get_current_comm(r->comm, sizeof(r->comm));
	else
		__builtin_memset(r->comm, 0, sizeof(r->comm));
	/* no wake-up per record: user space drains the ring on its own clock */
	bpf_ringbuf_submit(r, BPF_RB_NO_WAKEUP);
	return 0;
}

/* Adds thread @tid (@task) to the tree, runnable since @rq_since (0: not
 * runnable); 0, or -1 when it could not be kept (counted lost). */
__attribute__((noinline)) int add_thread(__u64 task, __u32 tid, __u64 rq_since)
{
	struct tstate *c = slot_of(task);
	if (!c->task && __sync_val_compare_and_swap(&c->task, 0, task) == 0) {
		/* the slot is its own; read by no program before the task's
		 * first event, which comes after this */
		c->since = c->on_since = c->oncpu_ns = c->runq_ns = 0;
		c->d = c->exiting = 0;
		c->rq_since = rq_since;
		c->tid = tid;
	} else {
		struct tstate st = {.rq_since = rq_since, .task = task, .tid = tid};
		if (bpf_map_update_elem(&tasks, &task, &st, BPF_NOEXIST)) {
			__sync_fetch_and_add(&lost, 1);
			return -1;
		}
	}
	__sync_fetch_and_or(tree_word(task), tree_bit(task));
	return 0;
}

/* The root met (root_tid, above): @task, the current task where
 * @current, else one whose id is read. */
__attribute__((noinline)) int root_check(__u64 task, __u32 current)
{
	__u64 root = root_tid;
	if (!root)
		return 0;
	__u32 tid = current ? (__u32)bpf_get_current_pid_tgid()
			    : read_u32((const void *)task, task_pid);
	if (tid != root || __sync_val_compare_and_swap(&root_tid, root, 0) != root)
		return 0;
	return add_thread(task, tid, 0);
}

/* Thread @task's last switch-out (at @t): its totals to user space, and
 * its slot or entry freed. */
__attribute__((noinline)) int gone(__u64 task, __u64 t)
{
	struct tstate *sl = slot_of(task), *s = sl;
	bool in_slot = sl->task == task;
	if (!in_slot)
		s = bpf_map_lookup_elem(&tasks, &task);
	if (!s)
		return 0;
	struct ts_wake_bpf_rec *r = bpf_ringbuf_reserve(&recs, sizeof(*r), 0);
	if (r) {
		r->type = TS_WAKE_BPF_GONE;
		r->t_ns = t;
		r->since_ns = 0;
		r->a = s->tid;
		r->b = r->c = 0;
		r->times[0] = s->oncpu_ns;
		r->times[1] = s->runq_ns;
		bpf_ringbuf_submit(r, BPF_RB_NO_WAKEUP);
	} else {
		__sync_fetch_and_add(&lost, 1);
	}
	if (in_slot)
		sl->task = 0;
	else
		bpf_map_delete_elem(&tasks, &task);
	return 0;
}

/* task states (include/linux/sched.h) and tracefs's report of prev_state
 * (__trace_sched_switch_state, __task_state_index): preempted is
 * runnable; otherwise the highest of the reported bits, TASK_IDLE reported
 * apart (neither runnable nor D), an rtlock wait or a frozen task as D */
#define TASK_UNINTERRUPTIBLE 0x0002
#define TASK_REPORT 0x007f
#define TASK_DEAD 0x0080
#define TASK_NOLOAD 0x0400
#define TASK_IDLE (TASK_UNINTERRUPTIBLE | TASK_NOLOAD)
#define TASK_RTLOCK_WAIT 0x1000
#define TASK_FROZEN 0x8000

/* @task, of the tree, switched out at @t (sched_switch's prev): the
 * parser's bookkeeping (traces/wakes.c), and its end where it is dead. A
 * global function, as the two below: verified once for any arguments,
 * where the same code inline would be verified on every path to it. */
__attribute__((noinline)) int switch_out(__u64 task, __u64 t, __u32 preempt, __u32 prev_state)
{
	struct tstate *s = of_tree(task);
	if (!s)
		return 0;
	int runnable = 1, d = 0;
	if (!preempt) {
		/* exit_state is set in exit_notify, which comes after
		 * sched_process_exit (on_exit marks the thread): before that
		 * it is 0, and a switch-out reads nothing of the task */
		unsigned int ex = s->exiting ? read_u32((const void *)task, task_exit_state) : 0;
		unsigned int st = (prev_state | ex) & TASK_REPORT;
		if ((prev_state & TASK_IDLE) == TASK_IDLE)
			st = TASK_REPORT + 1; /* "I" */
		if (prev_state & (TASK_RTLOCK_WAIT | TASK_FROZEN))
			st = TASK_UNINTERRUPTIBLE;
		runnable = st == 0;
		/* the highest bit set is the one reported */
		d = st && (st & ~(unsigned int)(TASK_UNINTERRUPTIBLE | 1)) == 0 &&
		    (st & TASK_UNINTERRUPTIBLE);
	}
	if (s->on_since && t >= s->on_since)
		s->oncpu_ns += t - s->on_since;
	s->on_since = 0;
	s->since = runnable ? 0 : t;
	s->d = d;
	s->rq_since = runnable ? t : 0;
	/* dead: it runs no more, and its task may soon be another's */
	if (!preempt && (prev_state & TASK_DEAD))
		gone(task, t);
	return 0;
}

/* @task, of the tree, switched to at @t (sched_switch's next) */
__attribute__((noinline)) int switch_in(__u64 task, __u64 t)
{
	struct tstate *nx = of_tree(task);
	if (!nx)
		return 0;
	if (nx->rq_since && t >= nx->rq_since)
		nx->runq_ns += t - nx->rq_since;
	nx->rq_since = 0;
	nx->on_since = t;
	nx->since = 0;
	return 0;
}

SEC("raw_tp/sched_switch")
int BPF_PROG(on_switch, bool preempt, const void *prev, const void *next, unsigned int prev_state)
{
	/* the tracepoint runs in prev, still the current task */
	__u64 pt = (__u64)prev, nt = (__u64)next;
	if (root_tid) {
		root_check(pt, 1);
		root_check(nt, 0);
	}
	bool out = maybe_tree(pt), in = maybe_tree(nt);
	if (!out && !in)
		return 0;
	/* one clock read for both */
	__u64 t = bpf_ktime_get_ns();
	if (out)
		switch_out(pt, t, preempt, prev_state);
	if (in)
		switch_in(nt, t);
	return 0;
}

/* @task, of the tree, woken (sched_waking) */
__attribute__((noinline)) int woken(__u64 task)
{
	struct tstate *s = of_tree(task);
	if (!s)
		return 0;
	__u64 t = bpf_ktime_get_ns();
	__u64 cur = bpf_get_current_task();
	__u64 since = s->since;
	s->since = 0;
	if (since && !s->on_since)
		s->rq_since = t; /* woken: runnable until it runs */
	if (!since || since > t || cur == task)
		return 0;
	__u64 tid = s->tid;
	int irq = in_irq_ctx();
	if (irq < 0) {
		__sync_fetch_and_add(&blind, 1);
		return 0;
	}
	if (irq || !of_tree(cur)) {
		/* from outside the tree: kept when it ended IO, or when an
		 * interrupt ended it (the thread's own pace: a pause). Most
		 * wakes of an IO loader are neither (a FUSE reply ends an
		 * interruptible sleep): no line, and the waker's id is not
		 * read. */
		if (s->d) {
			__u64 waker = irq ? 0 : (__u32)bpf_get_current_pid_tgid();
			send(TS_WAKE_BPF_SLEEP, t, since, tid | waker << 32, 0);
		} else if (irq) {
			send(TS_WAKE_BPF_PAUSE, t, since, tid, 0);
		}
		return 0;
	}
	__u64 waker = (__u32)bpf_get_current_pid_tgid();
	return send(TS_WAKE_BPF_WAKE, t, since, tid | waker << 32, 0);
}

SEC("raw_tp/sched_waking")
int BPF_PROG(on_waking, const void *p)
{
	__u64 pt = (__u64)p;
	if (root_tid)
		root_check(pt, 0);
	if (!maybe_tree(pt))
		return 0;
	return woken(pt);
}

SEC("raw_tp/sched_process_fork")
int BPF_PROG(on_fork, const void *parent, const void *child)
{
	/* in the parent; the child's comm is still the parent's */
	__u64 cur = bpf_get_current_task(), ct = (__u64)child;
	if (root_tid)
		root_check(cur, 1);
	if (!of_tree(cur) || of_tree(ct)) /* the child: already one of the tree's */
		return 0;
	__u64 t = bpf_ktime_get_ns();
	__u32 ctid = read_u32(child, task_pid);
	/* a forked thread is runnable from its fork until it first runs;
	 * added before it first runs (wake_up_new_task comes after this
	 * tracepoint): none of its events can miss it */
	if (add_thread(ct, ctid, t))
		return 0;
	__u64 ptid = (__u32)bpf_get_current_pid_tgid();
	return send(TS_WAKE_BPF_FORK | WITH_COMM, t, 0, ptid | (__u64)ctid << 32,
		    read_u32(child, task_tgid));
}

SEC("raw_tp/sched_process_exec")
int BPF_PROG(on_exec, const void *p)
{
	/* in the thread; its comm is the new file name's last component */
	__u64 cur = bpf_get_current_task();
	if (root_tid)
		root_check(cur, 1);
	struct tstate *s = of_tree(cur);
	if (!s)
		return 0;
	return send(TS_WAKE_BPF_EXEC | WITH_COMM, bpf_ktime_get_ns(), 0, s->tid, 0);
}

SEC("raw_tp/sched_process_exit")
int BPF_PROG(on_exit, const void *p)
{
	/* in the exiting thread */
	__u64 cur = bpf_get_current_task();
	if (root_tid)
		root_check(cur, 1);
	struct tstate *s = of_tree(cur);
	if (!s)
		return 0;
	s->since = 0;
	s->exiting = 1; /* its exit_state may be set from now on (switch_out) */
	return send(TS_WAKE_BPF_EXIT, bpf_ktime_get_ns(), 0, s->tid, 0);
}

/*
 * Hand-offs (traces/wakes.h): the pipe reads and writes of the tree's
 * threads, at the system call's return (raw_syscalls' sys_exit: this
 * kernel has neither kprobes, CONFIG_KPROBES unset, nor fexit programs
 * under its lockdown). At the return of read, write, readv or writev by a
 * thread of the tree, where bytes moved and the fd is a pipe's (its inode
 * a FIFO: an anonymous pipe or a named one), the pipe (its file's
 * private_data, the kernel's struct pipe_inode_info) has its bytes
 * written or read counted in pipes and the call is sent with the count at
 * its end: a byte read is the byte written at the same count (a pipe is
 * FIFO), and user space ties each read to the write that put its last
 * byte in (wakes.c). Only the tree's threads are counted: a pipe that a
 * thread outside it writes too is counted short (user space drops a tie
 * whose write came after its read).
 *
 * The call's number and its fd are read at the return from the registers
 * the entry saved (struct pt_regs: orig_ax, di), which the kernel keeps
 * for the return (the exit's own work reads the number from there): one
 * program, not one at the entry keeping the fd for one at the return.
 * Every system call of the host runs it and returns on the tree's filter
 * (one load, maybe_tree) for all but the tree's threads; the entry's
 * tracepoint has no program, so it costs a call no more than the slower
 * path that any system call tracepoint puts every task on. Where the
 * offsets are unknown (handoffs 0) or the capture is asked for none
 * (tiersim record --no-handoffs), user space leaves it unattached, and
 * the system calls cost nothing.
 */
struct pipe_bytes {
	__u64 written, read;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64); /* the pipe (struct pipe_inode_info) */
	__type(value, struct pipe_bytes);
} pipes SEC(".maps");

/* pipe calls whose pipe found no room in pipes: their hand-offs are
 * missing */
__u64 pipes_lost = 0;

#define NR_READ 0 /* x86-64's system call numbers */
#define NR_WRITE 1
#define NR_READV 19
#define NR_WRITEV 20
#define S_IFMT 0170000
#define S_IFIFO 0010000
/* the calls followed, as a set of bits by number */
#define IO_CALLS (1U << NR_READ | 1U << NR_WRITE | 1U << NR_READV | 1U << NR_WRITEV)
/* x86-64's struct pt_regs, in words: the first argument (di) and the
 * call's number (orig_ax) */
#define REGS_DI 14
#define REGS_ORIG_AX 15

/* @fd of the current task's: its struct file, or NULL */
static __always_inline const void *file_of(__u64 task, __u32 fd)
{
	const void *files = read_ptr((const void *)task, task_files);
	const void *fdt = files ? read_ptr(files, files_fdt) : NULL;
	if (!fdt || fd >= read_u32(fdt, fdt_max))
		return NULL;
	const void *fds = read_ptr(fdt, fdt_fd);
	return fds ? read_ptr((const char *)fds + (__u64)fd * 8, 0) : NULL;
}

/* @fd of the current task's: its pipe, or 0 */
static __always_inline __u64 pipe_of(__u64 task, __u32 fd)
{
	const void *file = file_of(task, fd);
	const void *inode = file ? read_ptr(file, file_inode) : NULL;
	__u16 mode = 0;
	if (inode)
		bpf_probe_read_kernel(&mode, sizeof(mode), (const char *)inode + inode_mode);
	if ((mode & S_IFMT) != S_IFIFO)
		return 0;
	return (__u64)read_ptr(file, file_private);
}

/*
 * Advices (traces/wakes.h, the A line): a successful fadvise64 (x86-64's
 * 221: fd, offset, len, advice in di, si, dx, r10) of a thread of the
 * tree, sent with the inode number of the fd's file (i_ino: in FUSE mode
 * the number tierfs reports, the backing file's st_ino, as it mounts with
 * use_ino; in block mode the image's ext4 inode), which is what lets the
 * replay find the trace's file. The same system call program as the
 * hand-offs' (it sees every call of the tree's threads at its return), so
 * `tiersim record --no-handoffs`, which leaves it unattached, records no
 * advice either. Linux's posix_fadvise changes the open file's readahead
 * (mm/fadvise.c): the replay applies it (traces/README.md).
 */
#define NR_FADVISE64 221
#define REGS_R10 7
#define REGS_DX 12
#define REGS_SI 13

__attribute__((noinline)) int advice_done(__u64 task, __u64 regs)
{
	__u64 fd = ~0ULL, off = 0, len = 0, adv = ~0ULL, ino = 0;
	bpf_probe_read_kernel(&fd, sizeof(fd), (const char *)regs + REGS_DI * 8);
	bpf_probe_read_kernel(&off, sizeof(off), (const char *)regs + REGS_SI * 8);
	bpf_probe_read_kernel(&len, sizeof(len), (const char *)regs + REGS_DX * 8);
	bpf_probe_read_kernel(&adv, sizeof(adv), (const char *)regs + REGS_R10 * 8);
	if (fd >= 0x7fffffff || adv > 5)
		return 0;
	struct tstate *s = tree_state(task);
	if (!s)
		return 0;
	const void *file = file_of(task, (__u32)fd);
	const void *inode = file ? read_ptr(file, file_inode) : NULL;
	if (inode)
		bpf_probe_read_kernel(&ino, sizeof(ino), (const char *)inode + inode_ino);
	if (!ino)
		return 0;
	struct ts_wake_bpf_rec *r = bpf_ringbuf_reserve(&recs, sizeof(*r), 0);
	if (!r) {
		__sync_fetch_and_add(&lost, 1);
		return 0;
	}
	r->type = TS_WAKE_BPF_ADVICE;
	r->t_ns = bpf_ktime_get_ns();
	r->since_ns = ino;
	r->a = s->tid;
	r->b = (__u32)fd;
	r->c = (__u32)adv;
	r->times[0] = off;
	r->times[1] = len;
	bpf_ringbuf_submit(r, BPF_RB_NO_WAKEUP);
	return 0;
}

/* A call of the tree's thread @task returned @ret; @regs, its registers
 * (an address, as @task: a global function's pointer arguments are the
 * verifier's to type, and these are the kernel's) */
__attribute__((noinline)) int pipe_done(__u64 task, __u64 regs, __s64 ret)
{
	if (ret < 0)
		return 0;
	__u64 nr = ~0ULL, fd = ~0ULL;
	bpf_probe_read_kernel(&nr, sizeof(nr), (const char *)regs + REGS_ORIG_AX * 8);
	if (nr == NR_FADVISE64)
		return advices ? advice_done(task, regs) : 0;
	/* nothing moved (an end of file): nothing to count */
	if (!ret || !handoffs)
		return 0;
	if (nr > NR_WRITEV || !(IO_CALLS & (1U << nr)))
		return 0;
	bpf_probe_read_kernel(&fd, sizeof(fd), (const char *)regs + REGS_DI * 8);
	if (fd >= 0x7fffffff)
		return 0;
	/* again: a global function takes no pointer to the programs' data */
	struct tstate *s = tree_state(task);
	if (!s)
		return 0;
	bool write = nr == NR_WRITE || nr == NR_WRITEV;
	__u64 pipe = pipe_of(task, (__u32)fd);
	if (!pipe)
		return 0;
	struct pipe_bytes *b = bpf_map_lookup_elem(&pipes, &pipe);
	if (!b) {
		struct pipe_bytes z = {};
		bpf_map_update_elem(&pipes, &pipe, &z, BPF_NOEXIST);
		b = bpf_map_lookup_elem(&pipes, &pipe);
		if (!b) {
			__sync_fetch_and_add(&pipes_lost, 1);
			return 0;
		}
	}
	__u64 end;
	if (write)
		end = __sync_fetch_and_add(&b->written, (__u64)ret) + (__u64)ret;
	else
		end = __sync_fetch_and_add(&b->read, (__u64)ret) + (__u64)ret;
	return send(write ? TS_WAKE_BPF_PIPE_W : TS_WAKE_BPF_PIPE_R, bpf_ktime_get_ns(), end,
		    s->tid | (__u64)(__u32)pipe << 32, (__u32)(pipe >> 32));
}

SEC("raw_tp/sys_exit")
int BPF_PROG(on_sys_exit, const void *regs, long ret)
{
	/* the tree's filter first (one load), then, for the tree's threads
	 * alone, the call's number from the registers (pipe_done) */
	__u64 cur = bpf_get_current_task();
	if (!maybe_tree(cur))
		return 0;
	return pipe_done(cur, (__u64)regs, ret);
}
