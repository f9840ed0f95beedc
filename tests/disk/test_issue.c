/*
 * test_issue.c — block mode's request clock (disk/issue.h), exactly, on
 * made-up times: a request's size class, the running means of the reply
 * hop (per class) and of tierfs's lateness, and when tierfs replies to a
 * request the loop device issued before tierfs received it.
 * (The BPF program and tierfs using it, with a loop device:
 * tests/disk/issue.sh.)
 */
#include <stdint.h>
#include <string.h>

#include "disk/issue.h"
#include "tests/tcheck.h"
#include "traces/tier_rule.h"

int main(void)
{
	/* classes: up to 4 KiB, 8 KiB, ... 1 MiB and past it */
	CHECK_EQ_U64(ts_issue_class(512), 0);
	CHECK_EQ_U64(ts_issue_class(4096), 0);
	CHECK_EQ_U64(ts_issue_class(4097), 1);
	CHECK_EQ_U64(ts_issue_class(128 * 1024), 5);
	CHECK_EQ_U64(ts_issue_class(1024 * 1024), 8);
	CHECK_EQ_U64(ts_issue_class(4 * 1024 * 1024), 8);

	struct ts_issue_est e;
	uint64_t off = 0;
	memset(&e, 0, sizeof(e));
	/* nothing measured: nothing to take off, the caller falls back */
	CHECK(!ts_issue_est_get(&e, 131072, &off));
	/* 7 hops of 128 KiB requests and 8 latenesses: one short */
	for (unsigned i = 0; i < TS_ISSUE_MIN - 1; i++)
		ts_issue_est_hop(&e, 131072, 90000 + i * 1000); /* 90..96 us */
	for (unsigned i = 0; i < TS_ISSUE_MIN; i++)
		ts_issue_est_late(&e, 30000 + i * 2000); /* 30..44 us */
	CHECK(!ts_issue_est_get(&e, 131072, &off));
	ts_issue_est_hop(&e, 131072, 157000); /* a slow one, the 8th */
	CHECK(ts_issue_est_get(&e, 131072, &off));
	/* hops 90..96 and 157: mean 101 us (the slow one counts: a run's
	 * time is the sum); lateness 30..44: mean 37 */
	CHECK_EQ_U64(off, 101000 + 37000);
	/* a 4 KiB request's class has no samples of its own: no estimate */
	CHECK(!ts_issue_est_get(&e, 4096, &off));
	ts_issue_est_hop(&e, 4096, 20000);
	CHECK(!ts_issue_est_get(&e, 4096, &off));
	/* the window keeps the last TS_ISSUE_WINDOW: as many hops of 50 us
	 * push every earlier one out */
	for (unsigned i = 0; i < TS_ISSUE_WINDOW; i++)
		ts_issue_est_hop(&e, 131072, 50000);
	CHECK(ts_issue_est_get(&e, 131072, &off));
	CHECK_EQ_U64(off, 50000 + 37000);
	/* one more of 50 + 128 us: the mean 1 us up */
	ts_issue_est_hop(&e, 131072, 50000 + TS_ISSUE_WINDOW * 1000);
	CHECK(ts_issue_est_get(&e, 131072, &off));
	CHECK_EQ_U64(off, 51000 + 37000);
	/* the lateness's mean moves as its samples do: 8 more of 21 us
	 * make 16 of mean 29 */
	for (unsigned i = 0; i < 8; i++)
		ts_issue_est_late(&e, 21000);
	CHECK(ts_issue_est_get(&e, 131072, &off));
	CHECK_EQ_U64(off, 51000 + 29000);

	/*
	 * The reply. The loop device issued a 128 KiB read at 1,000 us;
	 * tierfs received it 70 us later (1,070); the model, submitted at the
	 * issue, completes it 300 us after it (1,300). With 90 us of reply
	 * hop and 36 of lateness measured, tierfs replies at 1,174, so that
	 * the kernel completes the read at 1,300: issue + the tier's time.
	 * Charged from tierfs's receipt less the mount's hop, as before, it
	 * would complete at receipt + 300 + whatever the hop measured at the
	 * mount missed: never at the issue's 1,300.
	 */
	CHECK_EQ_U64(ts_tier_rule_issue_reply(1070000, 1300000, 126000), 1174000);
	/* a modeled time already past when the request came: at once */
	CHECK_EQ_U64(ts_tier_rule_issue_reply(1070000, 1150000, 126000), 1070000);
	CHECK_EQ_U64(ts_tier_rule_issue_reply(1070000, 1050000, 0), 1070000);
	/* exactly at the receipt */
	CHECK_EQ_U64(ts_tier_rule_issue_reply(1070000, 1196000, 126000), 1070000);
	CHECK_EQ_U64(ts_tier_rule_issue_reply(1070000, 1196001, 126000), 1070001);
	/* no wrap near the clock's end */
	CHECK_EQ_U64(ts_tier_rule_issue_reply(UINT64_MAX - 10, UINT64_MAX, 100), UINT64_MAX - 10);
	CHECK_EQ_U64(ts_tier_rule_issue_reply(5, 50, UINT64_MAX), 5);
	return tc_exit();
}
