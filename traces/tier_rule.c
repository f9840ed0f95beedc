/*
 * tier_rule.c — the one rule for what a file-system op asks of the tier
 * model (tier_rule.h), shared by tierfs and replay.
 */
#include <linux/falloc.h>
#include <string.h>

#include "traces/tier_rule.h"
#include "traces/trace.h"

enum ts_tier_op ts_tier_rule_op(unsigned op)
{
	switch (op) {
	case TS_OP_READ:
	case TS_OP_MMAP_READ:
		return TS_TIER_READ;
	case TS_OP_WRITE:
		return TS_TIER_WRITE;
	case TS_OP_FSYNC:
		return TS_TIER_FSYNC;
	case TS_OP_FDATASYNC:
		return TS_TIER_FDATASYNC;
	/* Served from the inode cache or local: not modeled. */
	case TS_OP_GETATTR:
	case TS_OP_ACCESS:
	case TS_OP_STATFS:
	case TS_OP_READLINK:
	case TS_OP_FLUSH:
	case TS_OP_CLOSE:
	case TS_OP_RELEASEDIR:
		return TS_TIER_OP_NR;
	default:
		return TS_TIER_META;
	}
}

enum ts_tier_rule_fs ts_tier_rule_fs(unsigned op)
{
	switch (op) {
	case TS_OP_OPEN:
	case TS_OP_OPENDIR:
	case TS_OP_GETATTR:
	case TS_OP_ACCESS:
	case TS_OP_READLINK:
		return TS_RULE_FS_LOOKUP;
	case TS_OP_READDIR:
		return TS_RULE_FS_LIST;
	case TS_OP_UNLINK:
	case TS_OP_RMDIR:
	case TS_OP_RENAME:
	case TS_OP_LINK:
		return TS_RULE_FS_LOOKUP;
	case TS_OP_CREATE:
	case TS_OP_MKDIR:
	case TS_OP_MKNOD:
	case TS_OP_SYMLINK:
		return TS_RULE_FS_MAKE;
	case TS_OP_READ:
	case TS_OP_MMAP_READ:
		return TS_RULE_FS_READ;
	default:
		return TS_RULE_FS_NONE;
	}
}

bool ts_tier_rule_fs_walks(enum ts_tier_rule_fs kind)
{
	return kind == TS_RULE_FS_LOOKUP || kind == TS_RULE_FS_LIST || kind == TS_RULE_FS_MAKE;
}

unsigned ts_tier_rule_fs_path(struct ts_fsmeta *m, enum ts_tier_rule_fs kind, const char *path,
			      ts_fsmeta_stat_fn stat, void *ctx, struct ts_fsmeta_io *out,
			      unsigned max)
{
	if (kind != TS_RULE_FS_MAKE)
		return ts_fsmeta_path(m, path, kind == TS_RULE_FS_LIST, stat, ctx, out, max);
	/* the folder the name is made in: its lookup and its blocks (ext4
	 * scans them for the name and adds it); the new inode's table block
	 * is written without a read while its other inodes are free, as the
	 * trace of 2,000 creates into fresh folders shows (no read) */
	char parent[4096];
	size_t len = strlen(path);
	while (len > 1 && path[len - 1] == '/')
		len--;
	while (len > 0 && path[len - 1] != '/')
		len--;
	if (!len || len >= sizeof(parent))
		return 0; /* a relative name: no folder to charge */
	memcpy(parent, path, len);
	parent[len] = 0;
	return ts_fsmeta_path(m, parent, true, stat, ctx, out, max);
}

bool ts_tier_rule_fs_change(unsigned op, enum ts_fsmeta_change *what)
{
	switch (op) {
	case TS_OP_CREATE:
	case TS_OP_MKDIR:
	case TS_OP_MKNOD:
	case TS_OP_SYMLINK:
		*what = TS_FSMETA_MAKE;
		return true;
	case TS_OP_UNLINK:
	case TS_OP_RMDIR:
		*what = TS_FSMETA_REMOVE;
		return true;
	case TS_OP_RENAME:
		*what = TS_FSMETA_CHANGE;
		return true;
	case TS_OP_LINK:
		*what = TS_FSMETA_LINK;
		return true;
	default:
		return false;
	}
}

uint64_t ts_tier_rule_journal(struct ts_fsmeta *m, struct ts_tier *t, unsigned op, uint64_t now,
			      uint64_t floor_ns, struct ts_tier_done *done)
{
	struct ts_fsmeta_io io[TS_FSMETA_MAX_IO];
	uint64_t at = now;
	bool sync = op == TS_OP_FSYNC || op == TS_OP_FDATASYNC;
	unsigned n = ts_fsmeta_commit(m, now, sync, &at, io, TS_FSMETA_MAX_IO);
	if (!n)
		return now;
	uint64_t end = ts_fsmeta_charge_commit(t, at, floor_ns, io, n, done);
	return sync ? TS_MAX(now, end) : now;
}

bool ts_tier_rule_req(unsigned op, struct ts_tier_req *q)
{
	enum ts_tier_op t = ts_tier_rule_op(op);
	enum ts_tier_rule_fs fs = ts_tier_rule_fs(op);

	if (t == TS_TIER_OP_NR || ts_tier_rule_fs_walks(fs))
		return false;
	q->op = t;
	if (t == TS_TIER_META)
		q->off = q->len = 0;
	return true;
}

bool ts_tier_rule_forget(unsigned op, uint32_t mode, uint64_t *off, uint64_t *len)
{
	switch (op) {
	case TS_OP_UNLINK:
		*off = *len = 0;
		return true;
	case TS_OP_TRUNCATE:
		*len = 0;
		return true;
	case TS_OP_FALLOCATE:
		return (mode & FALLOC_FL_PUNCH_HOLE) != 0;
	default:
		return false;
	}
}

uint64_t ts_tier_rule_loop_off(uint64_t size_ns, uint64_t window_ns, enum ts_tier_op op,
			       uint64_t len)
{
	const uint64_t small = TS_TIER_RULE_LOOP_SMALL, span = TS_TIER_RULE_LOOP_BIG - small;
	uint64_t x = 0;

	if (op != TS_TIER_READ && op != TS_TIER_WRITE)
		return 0;
	/* size_ns x (len - 4 KiB) / span, rounded down, without the product */
	if (len > small)
		x = size_ns / span * (len - small) + size_ns % span * (len - small) / span;
	return op == TS_TIER_READ ? x + window_ns : x;
}

uint64_t ts_tier_rule_loop_reply(uint64_t size_ns, uint64_t window_ns, enum ts_tier_op op,
				 uint64_t len, uint64_t arrive, uint64_t due)
{
	uint64_t x = ts_tier_rule_loop_off(size_ns, window_ns, op, len);
	/* due - x where that is after the request came (without arrive + x,
	 * which could wrap) */
	return due > arrive && due - arrive > x ? due - x : TS_MIN(due, arrive);
}

uint64_t ts_tier_rule_issue_reply(uint64_t arrive, uint64_t end, uint64_t off)
{
	/* end - off where that is after the request came (without arrive +
	 * off, which could wrap) */
	return end > arrive && end - arrive > off ? end - off : arrive;
}

uint64_t ts_tier_rule_carry(uint64_t *owed, uint64_t floor_ns, uint64_t due, uint64_t end)
{
	if (due > end) {
		uint64_t take = TS_MIN(*owed, due - end);
		*owed -= take;
		return due - take;
	}
	*owed = TS_MIN(*owed + floor_ns, TS_TIER_RULE_CARRY_MAX * floor_ns);
	return due;
}
