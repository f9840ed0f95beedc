// SPDX-License-Identifier: GPL-2.0
/*
 * wake_bpf.bpf.c — the kernel half of the BPF wake capture (wake_bpf.h):
 * the scheduler tracepoints of a recorded command's process tree, kept
 * as per-thread state in a map, with only what becomes a line of the wake
 * file sent to user space.
 *
 * tracefs records every scheduler event of the tree (four per FUSE read
 * of an IO-only loader) and user space decodes them all to keep the few
 * that become a W or S line; here the same bookkeeping as the parser's
 * (traces/wakes.c, ts_wakes_parser_event) runs at the tracepoint, so an
 * event costs a map lookup and most send nothing. The program must agree
 * with that parser: the same state per thread, the same rules, the same
 * lines (tests/traces/wake_bpf.sh records one workload both ways).
 *
 * Kernel types are declared here with the few fields read, relocated
 * against the running kernel's BTF at load (CO-RE): the build needs no
 * vmlinux.h. GPL: it calls GPL-only helpers; user space is not bound by it.
 */
#include <linux/types.h>
#include <linux/bpf.h>
#include <stdbool.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "traces/wake_bpf_rec.h"

struct task_struct {
	int pid;
	int tgid;
	int exit_state;
	void *stack;
	char comm[16];
} __attribute__((preserve_access_index));

char LICENSE[] SEC("license") = "GPL";

/* per thread of the tree: the parser's struct tstate, and its totals */
struct tstate {
	__u64 since;	/* off the CPU asleep since, 0 = running or runnable */
	__u64 on_since; /* on a CPU since, 0 = not */
	__u64 rq_since; /* runnable, waiting for a CPU, since; 0 = not */
	__u64 oncpu_ns, runq_ns;
	__u32 d; /* that sleep is uninterruptible (state D) */
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC); /* a tree has a few threads, not 64k */
	__uint(max_entries, TS_WAKE_BPF_THREADS);
	__type(key, __u32);
	__type(value, struct tstate);
} tasks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096); /* set by user space before load */
} recs SEC(".maps");

/* records not sent (the ring full) and threads not kept (the map full):
 * either makes the file wrong, so none is written */
__u64 lost = 0;

/*
 * In an interrupt (hard, soft or NMI): on behalf of no thread, as tracefs's
 * common_flags say (from the preempt count). That count is a per-CPU
 * variable on x86-64, which a kernel without KALLSYMS_ALL does not let a
 * program name; so the programs keep their own per-CPU depth, from the
 * tracepoints around each interrupt handler that can wake a thread: the
 * APIC timer's (hrtimers), a device's, every softirq's (ksoftirqd's too, as
 * the preempt count says), irq_work's and the IPIs'. An interrupt these
 * do not surround still runs off the interrupted task's stack when it
 * interrupted the kernel (the CPU's irq stack, or an NMI's): that counts
 * too. (One from user space runs on the task's stack: only the depth
 * tells.)
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} irq_depth SEC(".maps");

static __always_inline int irq_in(void)
{
	__u32 k = 0, *d = bpf_map_lookup_elem(&irq_depth, &k);
	if (d)
		(*d)++;
	return 0;
}

static __always_inline int irq_out(void)
{
	__u32 k = 0, *d = bpf_map_lookup_elem(&irq_depth, &k);
	if (d && *d) /* an exit whose entry came before the attach: none */
		(*d)--;
	return 0;
}

#define IRQ_PAIR(tp)                                                                             \
	SEC("tp_btf/" #tp "_entry") int tp##_in(void *ctx) { return irq_in(); }                  \
	SEC("tp_btf/" #tp "_exit") int tp##_out(void *ctx) { return irq_out(); }
IRQ_PAIR(local_timer)
IRQ_PAIR(irq_handler)
IRQ_PAIR(softirq)
IRQ_PAIR(irq_work)
IRQ_PAIR(call_function)
IRQ_PAIR(call_function_single)
IRQ_PAIR(reschedule)
IRQ_PAIR(x86_platform_ipi)

#define STACK_MAX (64 * 1024) /* above any THREAD_SIZE (16 KiB, 32 with KASAN) */
static __always_inline int in_irq_ctx(void)
{
	__u32 k = 0, *d = bpf_map_lookup_elem(&irq_depth, &k);
	if (d && *d)
		return 1;
	struct task_struct *task = bpf_get_current_task_btf();
	__u64 base = (__u64)task->stack, sp;
	asm volatile("%0 = r10" : "=r"(sp));
	return sp - base >= STACK_MAX;
}

static __always_inline int send(__u32 type, __u64 t, __u64 since, __u32 a, __u32 b, __u32 c,
				const char *comm)
{
	struct ts_wake_bpf_rec *r = bpf_ringbuf_reserve(&recs, sizeof(*r), 0);
	if (!r) {
		__sync_fetch_and_add(&lost, 1);
		return 0;
	}
	r->type = type;
	r->t_ns = t;
	r->since_ns = since;
	r->a = a;
	r->b = b;
	r->c = c;
	if (comm)
		bpf_probe_read_kernel(r->comm, sizeof(r->comm), comm);
	else
		__builtin_memset(r->comm, 0, sizeof(r->comm));
	/* no wake-up per record: user space drains the ring on its own clock */
	bpf_ringbuf_submit(r, BPF_RB_NO_WAKEUP);
	return 0;
}

/* task states (include/linux/sched.h) and tracefs's report of prev_state
 * (__trace_sched_switch_state, __task_state_index): preempted is
 * runnable; otherwise the highest of the reported bits, TASK_IDLE reported
 * apart (neither runnable nor D), an rtlock wait or a frozen task as D */
#define TASK_UNINTERRUPTIBLE 0x0002
#define TASK_REPORT 0x007f
#define TASK_NOLOAD 0x0400
#define TASK_IDLE (TASK_UNINTERRUPTIBLE | TASK_NOLOAD)
#define TASK_RTLOCK_WAIT 0x1000
#define TASK_FROZEN 0x8000

SEC("tp_btf/sched_switch")
int BPF_PROG(on_switch, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	__u32 ptid = prev->pid, ntid = next->pid;
	struct tstate *s = bpf_map_lookup_elem(&tasks, &ptid);
	struct tstate *nx = bpf_map_lookup_elem(&tasks, &ntid);
	__u64 t = 0; /* read only when one of the two is of the tree */
	if (s) {
		t = bpf_ktime_get_ns();
		int runnable = 1, d = 0;
		if (!preempt) {
			unsigned int st = (prev_state | (unsigned int)prev->exit_state) & TASK_REPORT;
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
	}
	if (nx) {
		if (!t)
			t = bpf_ktime_get_ns();
		if (nx->rq_since && t >= nx->rq_since)
			nx->runq_ns += t - nx->rq_since;
		nx->rq_since = 0;
		nx->on_since = t;
		nx->since = 0;
	}
	return 0;
}

SEC("tp_btf/sched_waking")
int BPF_PROG(on_waking, struct task_struct *p)
{
	__u32 tid = p->pid;
	struct tstate *s = bpf_map_lookup_elem(&tasks, &tid);
	if (!s)
		return 0;
	__u64 t = bpf_ktime_get_ns();
	__u32 cur = (__u32)bpf_get_current_pid_tgid();
	__u64 since = s->since;
	s->since = 0;
	if (since && !s->on_since)
		s->rq_since = t; /* woken: runnable until it runs */
	if (!since || since > t || cur == tid)
		return 0;
	int irq = in_irq_ctx();
	if (irq || !bpf_map_lookup_elem(&tasks, &cur)) {
		/* from outside the tree: kept when it ended IO */
		if (s->d)
			send(TS_WAKE_BPF_SLEEP, t, since, tid, irq ? 0 : cur, 0, NULL);
		return 0;
	}
	return send(TS_WAKE_BPF_WAKE, t, since, tid, cur, 0, NULL);
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(on_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptid = parent->pid, ctid = child->pid;
	if (!bpf_map_lookup_elem(&tasks, &ptid))
		return 0;
	__u64 t = bpf_ktime_get_ns();
	/* a forked thread is runnable from its fork until it first runs */
	struct tstate st = {.rq_since = t};
	long e = bpf_map_update_elem(&tasks, &ctid, &st, BPF_NOEXIST);
	if (e == -17 /* EEXIST: already one of the tree's */)
		return 0;
	if (e) {
		__sync_fetch_and_add(&lost, 1);
		return 0;
	}
	return send(TS_WAKE_BPF_FORK, t, 0, ptid, ctid, (__u32)child->tgid, child->comm);
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(on_exec, struct task_struct *p)
{
	__u32 tid = p->pid;
	if (!bpf_map_lookup_elem(&tasks, &tid))
		return 0;
	/* the comm is the new file name's last component by now */
	return send(TS_WAKE_BPF_EXEC, bpf_ktime_get_ns(), 0, tid, 0, 0, p->comm);
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(on_exit, struct task_struct *p)
{
	__u32 tid = p->pid;
	struct tstate *s = bpf_map_lookup_elem(&tasks, &tid);
	if (!s)
		return 0;
	s->since = 0;
	return send(TS_WAKE_BPF_EXIT, bpf_ktime_get_ns(), 0, tid, 0, 0, NULL);
}
