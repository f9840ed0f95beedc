/*
 * test_tier_rule.c — the request tierfs makes of the tier model per op
 * (traces/tier_rule.h), which replay makes too: every trace op against
 * the table below, the range of metadata requests, and what an op drops
 * from the model's cache.
 */
#include <linux/falloc.h>
#include <string.h>

#include "tests/tcheck.h"
#include "tests/tier/fstree.h"
#include "traces/tier_rule.h"
#include "traces/trace.h"

#define FREE TS_TIER_OP_NR

static const enum ts_tier_op want[TS_OP_IO_LAST] = {
	[TS_OP_NONE] = TS_TIER_META,
	[TS_OP_READ] = TS_TIER_READ,
	[TS_OP_WRITE] = TS_TIER_WRITE,
	[TS_OP_OPEN] = TS_TIER_META,
	[TS_OP_CLOSE] = FREE,
	[TS_OP_FSYNC] = TS_TIER_FSYNC,
	[TS_OP_FDATASYNC] = TS_TIER_FDATASYNC,
	[TS_OP_GETATTR] = FREE,
	[TS_OP_READDIR] = TS_TIER_META,
	[TS_OP_CREATE] = TS_TIER_META,
	[TS_OP_UNLINK] = TS_TIER_META,
	[TS_OP_RENAME] = TS_TIER_META,
	[TS_OP_TRUNCATE] = TS_TIER_META,
	[TS_OP_FALLOCATE] = TS_TIER_META,
	[TS_OP_MMAP_READ] = TS_TIER_READ,
	[TS_OP_MKDIR] = TS_TIER_META,
	[TS_OP_RMDIR] = TS_TIER_META,
	[TS_OP_OPENDIR] = TS_TIER_META,
	[TS_OP_RELEASEDIR] = FREE,
	[TS_OP_FLUSH] = FREE,
	[TS_OP_ACCESS] = FREE,
	[TS_OP_STATFS] = FREE,
	[TS_OP_READLINK] = FREE,
	[TS_OP_SYMLINK] = TS_TIER_META,
	[TS_OP_LINK] = TS_TIER_META,
	[TS_OP_MKNOD] = TS_TIER_META,
	[TS_OP_CHMOD] = TS_TIER_META,
	[TS_OP_CHOWN] = TS_TIER_META,
	[TS_OP_UTIMENS] = TS_TIER_META,
};

/* A name made reads its folder's lookup and blocks, never asks for the
 * new name; an unlink is a lookup of the name it removes. */
static void test_make(void)
{
	char err[512];
	struct ts_tier_set *set = NULL;
	struct ts_fsmeta *m = NULL;
	struct ts_fsmeta_io io[TS_FSMETA_MAX_IO];
	unsigned calls = 0;
	CHECK(ts_tier_set_load_default(&set, err, sizeof(err)) == 0);
	const struct ts_fsmeta_params *p = ts_tier_set_fs(set, TS_FSMETA_NAME);
	CHECK(p && ts_fsmeta_new(p, &m) == 0);
	if (!m) {
		ts_tier_set_free(set);
		return;
	}
	/* the root's block, /a's 3 blocks: /a's inode is in the root's
	 * window of the table (and the next one's first block, tier/
	 * fsmeta.h), which the mount read with the root's inode (a mount's
	 * block trace: the root's table block and the 32 after it) */
	CHECK_EQ_U64(ts_tier_rule_fs_path(m, TS_RULE_FS_MAKE, "/a/new", ts_test_stat_tree, &calls, io,
					  TS_FSMETA_MAX_IO), 2);
	CHECK_EQ_U64(io[0].len, 4096);
	CHECK_EQ_U64(io[1].len, 3 * 4096);
	CHECK_EQ_U64(calls, 2); /* / and /a, not the new name */
	/* another name in the same folder: nothing */
	CHECK_EQ_U64(ts_tier_rule_fs_path(m, TS_RULE_FS_MAKE, "/a/new2", ts_test_stat_tree, &calls, io,
					  TS_FSMETA_MAX_IO), 0);
	/* the unlink of /a/x: its inode, in the window already read */
	CHECK_EQ_U64(ts_tier_rule_fs_path(m, TS_RULE_FS_LOOKUP, "/a/x", ts_test_stat_tree, &calls, io,
					  TS_FSMETA_MAX_IO), 0);
	CHECK_EQ_U64(calls, 3);
	/* a name made at the root: the root's blocks, read once */
	CHECK_EQ_U64(ts_tier_rule_fs_path(m, TS_RULE_FS_MAKE, "/top", ts_test_stat_tree, &calls, io,
					  TS_FSMETA_MAX_IO), 0);
	CHECK_EQ_U64(ts_tier_rule_fs_path(m, TS_RULE_FS_MAKE, "rel", ts_test_stat_tree, &calls, io,
					  TS_FSMETA_MAX_IO), 0);
	ts_fsmeta_free(m);
	ts_tier_set_free(set);
}

/* Block mode's size and window parts (ts_tier_rule_loop_off): a size part
 * of 45 us measured at 128 KiB (124 KiB past 4 KiB) is none at 4 KiB or
 * less, 45 us at 128 KiB, 45 x 62 / 124 = 22.5 us at 66 KiB, twice at
 * 252 KiB (carried past 128 KiB), rounded down at 4 KiB + 1 byte (45,000
 * / 126,976 ns); a read adds its window part, a write does not; no other
 * op gets either. */
static void test_loop_off(void)
{
	CHECK_EQ_U64(ts_tier_rule_loop_off(45000, 0, TS_TIER_READ, 0), 0);
	CHECK_EQ_U64(ts_tier_rule_loop_off(45000, 0, TS_TIER_READ, 4096), 0);
	CHECK_EQ_U64(ts_tier_rule_loop_off(45000, 0, TS_TIER_READ, 128 * 1024), 45000);
	CHECK_EQ_U64(ts_tier_rule_loop_off(45000, 0, TS_TIER_WRITE, 66 * 1024), 22500);
	CHECK_EQ_U64(ts_tier_rule_loop_off(45000, 0, TS_TIER_READ, 252 * 1024), 90000);
	CHECK_EQ_U64(ts_tier_rule_loop_off(45000, 0, TS_TIER_READ, 4097), 0);
	CHECK_EQ_U64(ts_tier_rule_loop_off(126976 * 3 + 5, 0, TS_TIER_READ, 4096 + 126976 / 2),
		     126976 * 3 / 2 + 2);
	CHECK_EQ_U64(ts_tier_rule_loop_off(0, 0, TS_TIER_READ, 1 << 20), 0);
	CHECK_EQ_U64(ts_tier_rule_loop_off(45000, 7000, TS_TIER_READ, 128 * 1024), 52000);
	CHECK_EQ_U64(ts_tier_rule_loop_off(45000, 7000, TS_TIER_READ, 4096), 7000);
	CHECK_EQ_U64(ts_tier_rule_loop_off(45000, 7000, TS_TIER_WRITE, 128 * 1024), 45000);
	CHECK_EQ_U64(ts_tier_rule_loop_off(45000, 7000, TS_TIER_META, 128 * 1024), 0);
	CHECK_EQ_U64(ts_tier_rule_loop_off(45000, 7000, TS_TIER_FSYNC, 0), 0);
}

/* The reply with them taken off (ts_tier_rule_loop_reply), as tierfs and a
 * virtual replay give it: a 128 KiB read that came at 1 ms with 45 us of
 * size part and 7 us of window part. Due 100 us after it came: 48 us
 * after; due 30 us after: at its arrival, never before (the whole part
 * would put it 22 us early), and due exactly as late as the parts: at its
 * arrival too; a due earlier than the arrival stays (nothing to take off
 * it); none at all (a 4 KiB write, a metadata op, no parts): due as it
 * is, before the arrival included. Near the clock's end the arrival plus
 * the parts would wrap: still the arrival. */
static void test_loop_reply(void)
{
	const uint64_t in = 1000000, big = 128 * 1024;
	CHECK_EQ_U64(ts_tier_rule_loop_reply(45000, 7000, TS_TIER_READ, big, in, in + 100000),
		     in + 48000);
	CHECK_EQ_U64(ts_tier_rule_loop_reply(45000, 7000, TS_TIER_READ, big, in, in + 30000), in);
	CHECK_EQ_U64(ts_tier_rule_loop_reply(45000, 7000, TS_TIER_READ, big, in, in + 52000), in);
	CHECK_EQ_U64(ts_tier_rule_loop_reply(45000, 7000, TS_TIER_READ, big, in, in + 52001),
		     in + 1);
	CHECK_EQ_U64(ts_tier_rule_loop_reply(45000, 7000, TS_TIER_READ, big, in, in - 5), in - 5);
	CHECK_EQ_U64(ts_tier_rule_loop_reply(45000, 7000, TS_TIER_WRITE, big, in, in + 100000),
		     in + 55000);
	CHECK_EQ_U64(ts_tier_rule_loop_reply(45000, 0, TS_TIER_WRITE, 4096, in, in - 5), in - 5);
	CHECK_EQ_U64(ts_tier_rule_loop_reply(45000, 7000, TS_TIER_META, big, in, in + 10), in + 10);
	CHECK_EQ_U64(ts_tier_rule_loop_reply(0, 0, TS_TIER_READ, big, in, in + 10), in + 10);
	CHECK_EQ_U64(ts_tier_rule_loop_reply(45000, 7000, TS_TIER_READ, big, UINT64_MAX - 10,
					     UINT64_MAX - 1),
		     UINT64_MAX - 10);
}

int main(void)
{
	for (unsigned op = 0; op < TS_OP_IO_LAST; op++) {
		const struct ts_tier_req in = {
			.op = TS_TIER_OP_NR, .file = 7, .off = 4096, .len = 8192,
			.size = 1 << 20, .direct = true, .path = "/a",
		};
		struct ts_tier_req q = in;
		bool charged = ts_tier_rule_req(op, &q);

		if (ts_tier_rule_op(op) != want[op])
			fprintf(stderr, "op %s: tier op %d, want %d\n", ts_trace_op_name(op),
				(int)ts_tier_rule_op(op), (int)want[op]);
		CHECK(ts_tier_rule_op(op) == want[op]);
		/* lookups, listings and names made or changed are the
		 * file-system rule's (fsmeta): no request of their own */
		enum ts_tier_rule_fs fs = ts_tier_rule_fs(op);
		bool walk = ts_tier_rule_fs_walks(fs);
		CHECK(walk == (op == TS_OP_OPEN || op == TS_OP_OPENDIR || op == TS_OP_GETATTR ||
			       op == TS_OP_ACCESS || op == TS_OP_READLINK || op == TS_OP_READDIR ||
			       op == TS_OP_CREATE || op == TS_OP_MKDIR || op == TS_OP_MKNOD ||
			       op == TS_OP_SYMLINK || op == TS_OP_UNLINK || op == TS_OP_RMDIR ||
			       op == TS_OP_RENAME || op == TS_OP_LINK));
		CHECK((fs == TS_RULE_FS_MAKE) == (op == TS_OP_CREATE || op == TS_OP_MKDIR ||
						  op == TS_OP_MKNOD || op == TS_OP_SYMLINK));
		CHECK((fs == TS_RULE_FS_READ) == (op == TS_OP_READ || op == TS_OP_MMAP_READ));
		CHECK(charged == (want[op] != FREE && !walk));
		if (!charged) {
			CHECK(memcmp(&q, &in, sizeof(q)) == 0); /* untouched */
			continue;
		}
		CHECK(q.op == want[op]);
		CHECK_EQ_U64(q.off, want[op] == TS_TIER_META ? 0 : 4096);
		CHECK_EQ_U64(q.len, want[op] == TS_TIER_META ? 0 : 8192);
		CHECK_EQ_U64(q.file, 7);
		CHECK_EQ_U64(q.size, 1 << 20);
		CHECK(q.direct);
		CHECK(q.path == in.path);
	}
	/* an op past the known ones is metadata, as tierfs charged any op it
	 * did not list */
	CHECK(ts_tier_rule_op(TS_OP_IO_LAST + 5) == TS_TIER_META);

	uint64_t off, len;
	off = 100, len = 200;
	CHECK(ts_tier_rule_forget(TS_OP_UNLINK, 0, &off, &len));
	CHECK_EQ_U64(off, 0);
	CHECK_EQ_U64(len, 0); /* the whole file */
	off = 12345, len = 200;
	CHECK(ts_tier_rule_forget(TS_OP_TRUNCATE, 0, &off, &len));
	CHECK_EQ_U64(off, 12345); /* from the new size */
	CHECK_EQ_U64(len, 0);	  /* to the end */
	off = 4096, len = 8192;
	CHECK(ts_tier_rule_forget(TS_OP_FALLOCATE, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
				  &off, &len));
	CHECK_EQ_U64(off, 4096);
	CHECK_EQ_U64(len, 8192);
	CHECK(!ts_tier_rule_forget(TS_OP_FALLOCATE, FALLOC_FL_KEEP_SIZE, &off, &len));
	CHECK(!ts_tier_rule_forget(TS_OP_FALLOCATE, 0, &off, &len));
	for (unsigned op = 0; op < TS_OP_IO_LAST; op++)
		if (op != TS_OP_UNLINK && op != TS_OP_TRUNCATE && op != TS_OP_FALLOCATE)
			CHECK(!ts_tier_rule_forget(op, FALLOC_FL_PUNCH_HOLE, &off, &len));
	test_make();
	test_loop_off();
	test_loop_reply();
	return tc_exit();
}
