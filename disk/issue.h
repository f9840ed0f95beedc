/*
 * issue.h — block mode's request clock: each loop-device request charged
 * from the moment the block layer issued it, and completed (as the kernel
 * sees it, block_rq_complete) at issue + the tier model's service time.
 *
 * tierfs sees a request when FUSE hands it over, some 70 us after the
 * loop device's block_rq_issue (the loop worker's wake-up and FUSE's
 * queue), and the kernel completes it some 90 us after tierfs's reply
 * (FUSE's copy, the loop worker's completion and the softirq): hops a
 * cloud VM's disk does not have, whose size moves with the host's load.
 * A BPF program (issue_bpf.bpf.c) keeps, for the loop device tierfs
 * serves, each request's issue time by sector and, once tierfs has
 * replied, its reply-to-completion hop. tierfs then submits a request to
 * the model at its issue time and replies at
 *
 *     max(receipt, model's completion - reply hop - tierfs's lateness)
 *
 * (ts_tier_rule_issue_reply, traces/tier_rule.h, which a virtual replay of
 * the trace applies too), the two taken off being running means of the last
 * TS_ISSUE_WINDOW requests of the same size class (the hop) and of all
 * (lateness: the reply behind its scheduled time): measured per request.
 * Means, not medians: both hops lean right (a softirq or a wake-up now and
 * then waits for a CPU), and what a run's time sums is each request's
 * mean; with medians the kernel's completions came 11-17 us after the
 * model's on average (median 1-3 us), on bench/window_gap.sh's scan.
 * Where a request's issue is not found, or its class has fewer than
 * TS_ISSUE_MIN samples yet, it is charged from its receipt less the
 * mount's measured hop, as without the clock.
 */
#ifndef TS_ISSUE_H
#define TS_ISSUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

/* size classes of the hop: up to 4 KiB, 8 KiB, ... 1 MiB and over */
#define TS_ISSUE_CLASSES 9
/* samples a mean is taken over (assumed; low 32, high 1,024: a busy
 * reader's last 0.1-1 s at 1 ms a request, so the host's load moves it
 * within that, and one stall of a few ms moves it by a few us) */
#define TS_ISSUE_WINDOW 128
/* samples a class needs before its mean is used (assumed; low 1, high
 * TS_ISSUE_WINDOW: fewer lets one slow first reply set a class's hop,
 * more charges more of a short run from receipt, the old path) */
#define TS_ISSUE_MIN 8

/* Running means: the reply hop per size class and tierfs's lateness. */
struct ts_issue_est {
	uint64_t s[TS_ISSUE_CLASSES + 1][TS_ISSUE_WINDOW]; /* [TS_ISSUE_CLASSES]: lateness */
	uint64_t n[TS_ISSUE_CLASSES + 1];		    /* samples so far */
	uint64_t sum[TS_ISSUE_CLASSES + 1];		    /* of the window's */
};

/* The size class of a request of @bytes. */
unsigned ts_issue_class(uint64_t bytes);
/* One completed request's reply-to-completion hop. */
void ts_issue_est_hop(struct ts_issue_est *e, uint64_t bytes, uint64_t hop_ns);
/* One reply's lateness behind its scheduled time. */
void ts_issue_est_late(struct ts_issue_est *e, uint64_t late_ns);
/* What to take off a request of @bytes (hop + lateness): false until
 * both means have TS_ISSUE_MIN samples. */
bool ts_issue_est_get(const struct ts_issue_est *e, uint64_t bytes, uint64_t *off_ns);


/* ---- the BPF tracker (a build with BPF; else ts_issue_open says so) ---- */

struct ts_issue;

/* Loads and attaches the program for the loop device whose backing file
 * lies under @mountpoint (found at the first request; tierfs's own
 * calibration device under .tierfs is not it). -errno and one line in
 * @err where BPF or the tracepoints are not there. */
int ts_issue_open(struct ts_issue **out, const char *mountpoint, char *err, size_t n)
	__attribute__((warn_unused_result));
void ts_issue_close(struct ts_issue *is);

/* The issue time of the device's request at byte @off of @len, which
 * came at @arrive_ns; 0 where it is not known. */
uint64_t ts_issue_lookup(struct ts_issue *is, uint64_t off, uint64_t len, uint64_t arrive_ns);
/* What to take off that request (ts_issue_est_get on the current
 * means, after taking in the hops completed since the last call). */
bool ts_issue_off(struct ts_issue *is, uint64_t len, uint64_t *off_ns);
/* tierfs replies now (@reply_ns) to the request at @off issued at
 * @issue_ns, which the model completes at @end_ns counted from the issue
 * (0: not compared), its reply scheduled from the issue (@used) for
 * @due_ns (0: not modeled), its syscall ended at @sys_ns. */
void ts_issue_replied(struct ts_issue *is, uint64_t off, uint64_t issue_ns, uint64_t end_ns,
		      bool used, uint64_t due_ns, uint64_t sys_ns, uint64_t reply_ns);
/* A miss (a device request whose issue was not found), for the counts. */
void ts_issue_missed(struct ts_issue *is);
/* Counts and current means, for tierfs's stats. */
json_t *ts_issue_stats_json(struct ts_issue *is);

#endif
