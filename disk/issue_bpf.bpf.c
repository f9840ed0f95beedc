// SPDX-License-Identifier: GPL-2.0
/*
 * issue_bpf.bpf.c — the kernel half of block mode's request clock
 * (issue.h): on block_rq_issue, the loop device's request's issue time
 * into its slot; on block_rq_complete, the hop from tierfs's reply
 * (reply_ns, which tierfs wrote into the slot as it replied) to the
 * completion, into the ring, and where tierfs scheduled the reply from the
 * issue, how far the completion fell from the model's (model_ns). Only
 * the loop device user space names (dev)
 * is seen; 0 names none. Plain tracepoints at the offsets of
 * issue_rec.h, which user space checks against the running kernel's
 * format files before the load. GPL: it calls GPL-only helpers; user
 * space is not bound by it.
 */
#include <linux/types.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "disk/issue_rec.h"

char LICENSE[] SEC("license") = "GPL";

__u32 dev = 0; /* the loop device (the kernel's dev_t: major << 20 | minor) */
struct ts_issue_slot slot[TS_ISSUE_SLOTS] = {};
__u64 hops[TS_ISSUE_HOPS] = {};
__s64 resid[TS_ISSUE_HOPS] = {}; /* completion - the model's completion, 0 = none */
__u64 nhops = 0; /* hops written so far; the ring holds the last TS_ISSUE_HOPS */

struct rq {
	__u32 dev;
	__u64 sector;
	__u32 nr;
};

/* The request of the record @ctx and its slot; NULL where it is not the
 * loop device's (or has no sectors: a flush). */
static __always_inline struct ts_issue_slot *rq_slot(void *ctx, struct rq *r)
{
	if (bpf_probe_read_kernel(&r->dev, sizeof(r->dev), (char *)ctx + TS_ISSUE_TP_DEV) ||
	    bpf_probe_read_kernel(&r->sector, sizeof(r->sector), (char *)ctx + TS_ISSUE_TP_SECTOR) ||
	    bpf_probe_read_kernel(&r->nr, sizeof(r->nr), (char *)ctx + TS_ISSUE_TP_NR))
		return NULL;
	return r->dev && r->dev == dev && r->nr ? &slot[TS_ISSUE_SLOT(r->sector)] : NULL;
}

SEC("tracepoint/block/block_rq_issue")
int on_issue(void *ctx)
{
	struct rq r;
	struct ts_issue_slot *s = rq_slot(ctx, &r);
	if (!s)
		return 0;
	s->reply_ns = 0;
	s->model_ns = 0;
	s->issue_ns = bpf_ktime_get_ns();
	s->sectors = r.nr;
	s->sector = r.sector;
	return 0;
}

SEC("tracepoint/block/block_rq_complete")
int on_complete(void *ctx)
{
	struct rq r;
	struct ts_issue_slot *s = rq_slot(ctx, &r);
	if (!s)
		return 0;
	__u64 reply = s->reply_ns, now = bpf_ktime_get_ns();
	if (s->sector != r.sector || !reply || now < reply)
		return 0;
	__u64 model = s->model_ns;
	s->reply_ns = 0; /* one hop a request */
	__u64 i = __sync_fetch_and_add(&nhops, 1) & (TS_ISSUE_HOPS - 1);
	/* a signed distance, never 0 where there is one */
	resid[i] = model ? ((__s64)(now - model) ?: 1) : 0;
	hops[i] = TS_ISSUE_HOP(now - reply, s->sectors);
	return 0;
}
