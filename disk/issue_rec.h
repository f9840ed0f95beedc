/*
 * issue_rec.h — what block mode's request clock (issue.h) shares between
 * its kernel half (issue_bpf.bpf.c, on the block layer's tracepoints) and
 * tierfs: a table of the loop device's requests in flight, keyed by
 * sector, and a ring of each completed request's hop from tierfs's
 * scheduled reply to the block layer's completion. Both live in the
 * program's data, which user space maps: no system call per request.
 * Shared by both halves, so it uses the kernel's fixed-size types.
 */
#ifndef TS_ISSUE_REC_H
#define TS_ISSUE_REC_H

#include <linux/types.h>

/* request slots: a hash of the sector (a loop device has at most its
 * queue depth, 128, in flight; 4,096 slots, a power of two) */
#define TS_ISSUE_SLOT_BITS 12
#define TS_ISSUE_SLOTS (1u << TS_ISSUE_SLOT_BITS)
/* the slot of a request at @sector (Fibonacci hashing: neighbouring
 * sectors, such as a superblock's 2 and block 0's, in different slots) */
#define TS_ISSUE_SLOT(sector) ((__u32)(((__u64)(sector) * 0x9E3779B97F4A7C15ULL) >> (64 - TS_ISSUE_SLOT_BITS)))
/* completed requests' hops kept for tierfs to drain (a power of two);
 * beside each, the completion's distance from the model's (ns, signed; 0
 * where the reply was not scheduled from the issue) */
#define TS_ISSUE_HOPS 1024

/* One request of the loop device, as block_rq_issue saw it. */
struct ts_issue_slot {
	__u64 sector;	/* its first sector; the slot's owner */
	__u64 issue_ns; /* block_rq_issue, CLOCK_MONOTONIC */
	__u64 reply_ns; /* tierfs's reply (written by tierfs), 0 = not yet */
	__u64 model_ns; /* the model's completion, from the issue (written by tierfs
			 * with reply_ns where the reply was scheduled from it), 0 = none */
	__u32 sectors;	/* its length */
	__u32 pad;
};

/* the layout of the two tracepoints' records this program reads
 * (/sys/kernel/tracing/events/block/block_rq_{issue,complete}/format;
 * user space checks them before the load) */
#define TS_ISSUE_TP_DEV 8     /* dev_t dev, 4 bytes */
#define TS_ISSUE_TP_SECTOR 16 /* sector_t sector, 8 bytes */
#define TS_ISSUE_TP_NR 24     /* unsigned int nr_sector, 4 bytes */

/* a hop in the ring: the ns in the low 32 bits (at most 4 s), the
 * request's sectors above */
#define TS_ISSUE_HOP(ns, sectors) (((__u64)(sectors) << 32) | ((ns) > 0xffffffffULL ? 0xffffffffULL : (ns)))

#endif
