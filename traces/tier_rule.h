/*
 * tier_rule.h — the request tierfs makes of the tier model for one
 * file-system op, and what it drops from the model's page cache after one.
 *
 * tierfs (fs/timing.c, fs/passthrough.c) and trace replay in virtual time
 * (traces/replay/) both ask this rule, so that a replay drives the model
 * exactly as the recording mount did. Ops are the trace's (TS_OP_*): tierfs
 * names its own ops so when it records them (fs/trace_hook.c).
 */
#ifndef TS_TRACES_TIER_RULE_H
#define TS_TRACES_TIER_RULE_H

#include <stdbool.h>
#include <stdint.h>

#include "tier/fsmeta.h"
#include "tier/tier.h"

/*
 * The model's op for file-system op @op (TS_OP_*): reads (a page fault of
 * a mapped file too), writes, fsync and fdatasync as such; getattr, access,
 * readlink, statfs, flush, close and releasedir are not charged
 * (TS_TIER_OP_NR): on a real server they are answered from the inode cache
 * or are local; everything else that reaches the disk (open, create,
 * readdir, mkdir, unlink, rename, truncate, fallocate...) is TS_TIER_META.
 */
enum ts_tier_op ts_tier_rule_op(unsigned op);

/*
 * Completes @q for file-system op @op: the caller has set the file, offset,
 * length, file size, direct flag and path it knows; this sets q->op and
 * clears the range of a metadata request (its cost does not depend on one).
 * False, and @q untouched, when the op is not charged.
 */
bool ts_tier_rule_req(unsigned op, struct ts_tier_req *q);

/*
 * What the file system reads for op @op besides the request above
 * (tier/fsmeta.h): a lookup of its path (open, opendir, getattr, access,
 * readlink: the directory blocks and inode-table blocks of every component
 * not read before; unlink, rmdir, rename, link: the inode they change), a
 * listing (readdir: the lookup and the directory's blocks), a name made in
 * its folder (create, mkdir, mknod, symlink: the folder's lookup and its
 * blocks, not the new inode's), the extent leaf of a data read, or
 * nothing. Lookups, listings and makes replace the one metadata request
 * ts_tier_rule_req() would make: for them it returns false.
 *
 * The ops that change names wait on no write: ext4 changes the blocks in
 * memory and its journal (jbd2) writes them at the next commit (every 5
 * s, or at an fsync, which waits for it), as a block-mode trace of 2,000
 * creates, 1,000 renames and 1,000 unlinks shows: no request during the
 * ops, then 576, 572 and 572 KiB of journal and a 4 KiB commit block at
 * each phase's sync (tier/tiers.lua, filesystem "ext4"). Those blocks are
 * ts_tier_rule_fs_change()'s; the caller charges the commit
 * (ts_tier_rule_journal()).
 */
enum ts_tier_rule_fs {
	TS_RULE_FS_NONE,
	TS_RULE_FS_LOOKUP,
	TS_RULE_FS_LIST,
	TS_RULE_FS_READ,
	TS_RULE_FS_MAKE
};
enum ts_tier_rule_fs ts_tier_rule_fs(unsigned op);
/* Whether @kind reads the file system's metadata for the op's path
 * (lookup, listing, make): ts_tier_rule_fs_path() says what. */
bool ts_tier_rule_fs_walks(enum ts_tier_rule_fs kind);
/* The metadata reads of an op of @kind on @path (ts_fsmeta_path(), on the
 * folder for a make), at most @max into @out. */
unsigned ts_tier_rule_fs_path(struct ts_fsmeta *m, enum ts_tier_rule_fs kind, const char *path,
			      ts_fsmeta_stat_fn stat, void *ctx, struct ts_fsmeta_io *out,
			      unsigned max);

/* The journal's view of @op (tier/fsmeta.h): false when it changes no
 * name, else its kind in *@what. */
bool ts_tier_rule_fs_change(unsigned op, enum ts_fsmeta_change *what);

/*
 * The journal's commit as tierfs and a replay charge it, at an op of
 * @op at @now: when the commit interval has passed since the running
 * transaction's first change, its writes go out then, in the background
 * (no op waits for them); an fsync or fdatasync commits at once and
 * waits. Returns when @op may go on: @now, or for an fsync the end of the
 * commit it made. @floor_ns as for ts_fsmeta_charge.
 */
uint64_t ts_tier_rule_journal(struct ts_fsmeta *m, struct ts_tier *t, unsigned op, uint64_t now,
			      uint64_t floor_ns, struct ts_tier_done *done);

/*
 * What a successful @op drops from the model's cache of its file, as
 * ts_tier_forget()'s range into *@off and *@len (0: to the end): an unlink
 * of a file's last name the whole file, a truncate (@off = the new size)
 * what lies past it, a fallocate with FALLOC_FL_PUNCH_HOLE in @mode the
 * hole. False when nothing is dropped.
 */
bool ts_tier_rule_forget(unsigned op, uint32_t mode, uint64_t *off, uint64_t *len);

/*
 * What block mode takes off request @op's latency besides the FUSE round
 * trip and the loop hop (fs/timing.c, and a replay of its trace): the
 * loop device's size part, @size_ns for a TS_TIER_RULE_LOOP_BIG request,
 * x (@len - 4 KiB) / (TS_TIER_RULE_LOOP_BIG - 4 KiB), rounded down, none
 * at 4 KiB or less, for a read or a write; and for a read its window
 * part, @window_ns (disk/loop.h measures both). Linear in the bytes
 * (FUSE's copy), measured at the two sizes, carried past
 * TS_TIER_RULE_LOOP_BIG (assumed: the copy's cost per byte holds); the
 * window part the same for any read (assumed: measured on 128 KiB
 * windows). 0 for any other op.
 */
#define TS_TIER_RULE_LOOP_SMALL 4096
#define TS_TIER_RULE_LOOP_BIG (128 * 1024)
uint64_t ts_tier_rule_loop_off(uint64_t size_ns, uint64_t window_ns, enum ts_tier_op op,
			       uint64_t len);
/*
 * Block mode's reply to request @op of @len bytes that came at @arrive and
 * that the model completes at @due: ts_tier_rule_loop_off()'s parts taken
 * off @due, never to before the request came (@arrive, or @due where that
 * is earlier still); @due as it is where there are none. tierfs
 * (fs/timing.c) replies so, and a virtual replay of its trace with them.
 */
uint64_t ts_tier_rule_loop_reply(uint64_t size_ns, uint64_t window_ns, enum ts_tier_op op,
				 uint64_t len, uint64_t arrive, uint64_t due);
/*
 * Block mode's request clock (disk/issue.h): the reply to a request that
 * came at @arrive, charged from the loop device's issue, which the model
 * completes at @end (ts_tier_done.end_ns, counted from the issue), @off
 * before it (the means of the reply's hop to the kernel's completion and
 * tierfs's lateness) so that the kernel completes it then, and never
 * before the request came. tierfs (fs/timing.c) replies so, and a virtual
 * replay of a trace that recorded the clock (format 9, struct
 * ts_trace_issue) with the recorded @off.
 */
uint64_t ts_tier_rule_issue_reply(uint64_t arrive, uint64_t end, uint64_t off);

/*
 * carry= (tierfs's option, fs/control.c): a thread's request whose reply
 * did not wait on the model (the model's time @due, 0 for a request not
 * given to it, came no later than the end of tierfs's syscall, @end) cost
 * the thread a FUSE round trip, @floor_ns, that no modeled latency
 * absorbed: the thread owes it (*@owed, at most TS_TIER_RULE_CARRY_MAX
 * round trips). A request that waits (@due after @end) has its reply
 * moved earlier by what the thread owes, never to before @end, and owes
 * that much less. Returns the time the reply waits for: @due less what
 * was taken (tierfs replies at the later of it and @end, as late as it
 * wakes). tierfs's trace says
 * it ran so with the header's TS_TRACE_MODEL_CARRY bit (before format
 * version 10, "carry=true" in its mount_opts, which the reader turns into
 * the bit: traces/header.c), and a virtual replay of the trace
 * (traces/replay/virtual.c) carries the same way, per thread of the trace.
 */
#define TS_TIER_RULE_CARRY_MAX 8
uint64_t ts_tier_rule_carry(uint64_t *owed, uint64_t floor_ns, uint64_t due, uint64_t end);

#endif
