/*
 * test_fsmeta.c — the file system's metadata reads (tier/fsmeta.h): what
 * a lookup, a listing, a large file's read and a path walk read, that
 * nothing is read twice, that neighbours share blocks, and what the reads
 * cost on a tier of fixed latency, in model time.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/tcheck.h"
#include "tests/tmpfile.h"
#include "tests/tier/fstree.h"
#include "tier/fsmeta.h"

/* ext4's layout, from the built-in profiles (tier/tiers.lua) */
static const struct ts_fsmeta_params *ext4;

static void test_lookup(void)
{
	struct ts_fsmeta *m;
	struct ts_fsmeta_io io[TS_FSMETA_MAX_IO];
	CHECK(ts_fsmeta_new(ext4, &m) == 0);
	struct ts_fsmeta_node dir = { 100, 13, 1 }, f1 = { 101, 14, 0 }, f2 = { 102, 15, 0 },
			      far = { 103, 14 + 1024, 0 }, next = { 104, 14 + 512, 0 };
	/* the folder's block only: the inode's table window (32 blocks and
	 * the next window's first, __ext4_get_inode_loc's `b <= end`) is
	 * the root's, read at mount (block-mode traces: a mount reads the
	 * root's table block and the 32 after it, before any lookup) */
	CHECK_EQ_U64(ts_fsmeta_lookup(m, &dir, &f1, io, TS_FSMETA_MAX_IO), 1);
	CHECK_EQ_U64(io[0].len, 4096);
	CHECK(!io[0].ahead);
	/* a neighbour: all in memory */
	CHECK_EQ_U64(ts_fsmeta_lookup(m, &dir, &f2, io, TS_FSMETA_MAX_IO), 0);
	/* 1,024 inodes on: window 2 and window 3's first block */
	CHECK_EQ_U64(ts_fsmeta_lookup(m, &dir, &far, io, TS_FSMETA_MAX_IO), 1);
	CHECK_EQ_U64(io[0].len, 33 * 4096);
	/* 512 inodes on (table block 32, read with window 0): window 1 but
	 * its first block and window 2's, both read */
	CHECK_EQ_U64(ts_fsmeta_lookup(m, &dir, &next, io, TS_FSMETA_MAX_IO), 0);
	struct ts_fsmeta_node next2 = { 105, 14 + 512 + 16, 0 };
	CHECK_EQ_U64(ts_fsmeta_lookup(m, &dir, &next2, io, TS_FSMETA_MAX_IO), 1);
	CHECK_EQ_U64(io[0].len, 31 * 4096);
	ts_fsmeta_free(m);

	/* with the inodes in use known, readahead stops at the last one:
	 * the root's window at mount covers inodes 1..100 (blocks 0-6), so
	 * no lookup among them reads the table */
	CHECK(ts_fsmeta_new(ext4, &m) == 0);
	ts_fsmeta_set_inodes(m, 100);
	CHECK_EQ_U64(ts_fsmeta_lookup(m, &dir, &f1, io, TS_FSMETA_MAX_IO), 1);
	CHECK_EQ_U64(io[0].len, 4096);
	struct ts_fsmeta_node last = { 106, 99, 0 };
	CHECK_EQ_U64(ts_fsmeta_lookup(m, &dir, &last, io, TS_FSMETA_MAX_IO), 0);
	ts_fsmeta_free(m);
}

/* ext4 keeps inode ino at index ino - 1 of its table (__ext4_get_inode_loc):
 * inode 512 is the last of window 0 (inodes 1-512), read with the 32
 * blocks of window 0 and the first of window 1 (inodes 513-528), so 513
 * then reads nothing. With 599 the last in use, window 1's read stops at
 * block 37 (599 / 16): inode 529 (block 33) reads blocks 33-37. The rule
 * read inode 512 with window 1 before (6 blocks), and 513 then nothing;
 * then window 0 of 32 blocks, and 513 window 1 (6 blocks). */
static void test_window_edge(void)
{
	struct ts_fsmeta *m;
	struct ts_fsmeta_io io[TS_FSMETA_MAX_IO];
	CHECK(ts_fsmeta_new(ext4, &m) == 0);
	ts_fsmeta_set_inodes(m, 600);
	struct ts_fsmeta_node dir = { 100, 12, 1 }, f512 = { 101, 512, 0 }, f513 = { 102, 513, 0 },
			      f1 = { 103, 13, 0 }, f529 = { 104, 529, 0 };
	/* inode 512: window 0 and window 1's first block, the root's,
	 * read at mount: the folder's block only */
	CHECK_EQ_U64(ts_fsmeta_lookup(m, &dir, &f512, io, TS_FSMETA_MAX_IO), 1);
	CHECK_EQ_U64(io[0].len, 4096);
	/* inode 13: window 0, read */
	CHECK_EQ_U64(ts_fsmeta_lookup(m, &dir, &f1, io, TS_FSMETA_MAX_IO), 0);
	CHECK_EQ_U64(ts_fsmeta_lookup(m, &dir, &f513, io, TS_FSMETA_MAX_IO), 0);
	CHECK_EQ_U64(ts_fsmeta_lookup(m, &dir, &f529, io, TS_FSMETA_MAX_IO), 1);
	CHECK_EQ_U64(io[0].len, 5 * 4096);
	ts_fsmeta_free(m);
}

/* The absolute block number of an inode-table read at @off (region()
 * K_ITAB = 2, tier/fsmeta.c). */
static uint64_t abs_blk(uint64_t off, uint64_t block)
{
	return (off - (2ULL << 52)) / block;
}

/* Where mke2fs puts group g's inode table (dumpe2fs of images mkfs.ext4
 * made, e2fsprogs 1.47, this host's /etc/mke2fs.conf): the own block of
 * the first inode of the group, read with every inode in use; in group
 * 0, whose first blocks the mount read with the root's inode, the own
 * block of the first inode 33 blocks on. */
static void test_layout_mkfs(void)
{
	static const struct {
		uint64_t mib, block, ipg, group, table;
	} c[] = {
		{ 100, 1024, 1968, 0, 285 },	   { 100, 1024, 1968, 2, 1269 },
		{ 256, 1024, 2048, 0, 292 },	   { 256, 1024, 2048, 15, 8452 },
		{ 256, 1024, 2048, 16, 131105 },  { 256, 1024, 2048, 31, 138785 },
		{ 300, 1024, 2024, 31, 138695 },  { 300, 1024, 2024, 32, 262157 },
		{ 511, 1024, 2040, 33, 262687 },  { 512, 4096, 8192, 0, 73 },
		{ 1024, 4096, 8192, 0, 145 },	   { 1024, 4096, 8192, 1, 657 },
		{ 1000, 4096, 8000, 2, 1142 },	   { 1500, 4096, 8000, 0, 213 },
		{ 3072, 4096, 8192, 15, 8097 },   { 3072, 4096, 8192, 16, 524304 },
		{ 5120, 4096, 8192, 17, 524832 }, { 5120, 4096, 8192, 32, 1048592 },
		{ 20480, 4096, 8192, 0, 1060 },   { 65536, 4096, 8192, 31, 532000 },
		{ 512000, 4096, 8192, 0, 1120 },  { 512000, 4096, 8192, 33, 1049120 },
		{ 2097152, 4096, 8192, 0, 1313 },
	};
	struct ts_fsmeta_io io[TS_FSMETA_MAX_IO];
	for (size_t i = 0; i < TS_ARRAY_SIZE(c); i++) {
		struct ts_fsmeta *m;
		CHECK(ts_fsmeta_new(ext4, &m) == 0);
		ts_fsmeta_set_capacity(m, c[i].mib << 20);
		CHECK_EQ_U64(ts_fsmeta_block(m), c[i].block);
		uint64_t on = c[i].group ? 0 : 33;
		struct ts_fsmeta_node f = { 7, c[i].group * c[i].ipg + 1 + on * (c[i].block / 256),
					    0 };
		unsigned n = ts_fsmeta_inode(m, &f, io, TS_FSMETA_MAX_IO);
		CHECK(n >= 1);
		CHECK(!io[n - 1].ahead);
		CHECK_EQ_U64(abs_blk(io[n - 1].off, c[i].block), c[i].table + on);
		ts_fsmeta_free(m);
	}
}

/* The inode table's readahead on the disk's block numbers, as block-mode
 * traces show it (tiersim disk make of a tree of 4,058 inodes: d/ 2,000
 * files, e/ 5, k00-k39 50 each; a stat each on a fresh mount; tier/fsmeta.h):
 * the readahead runs around the inode's own block, which goes alone. */
static void test_window_absolute(void)
{
	static const struct {
		uint64_t mib, ino;
		uint64_t want[6]; /* first block, blocks: ahead, ahead, own */
	} c[] = {
		/* 1 GiB (table at 145): e (2013) read 256-269, 271-288, 270 */
		{ 1024, 2013, { 256, 14, 271, 18, 270, 1 } },
		/* k39 (4007): capped at 145 + 4058 / 16 = 398 */
		{ 1024, 4007, { 384, 11, 396, 3, 395, 1 } },
		/* 3 GiB (table at 417): e read 512-541, 543-544, 542 */
		{ 3072, 2013, { 512, 30, 543, 2, 542, 1 } },
		/* 256 MiB (1 KiB blocks, table at 292, 2,048 inodes a group):
		 * e read 768-794, 796-800, 795 */
		{ 256, 2013, { 768, 27, 796, 5, 795, 1 } },
	};
	struct ts_fsmeta_io io[TS_FSMETA_MAX_IO];
	for (size_t i = 0; i < TS_ARRAY_SIZE(c); i++) {
		struct ts_fsmeta *m;
		CHECK(ts_fsmeta_new(ext4, &m) == 0);
		ts_fsmeta_set_capacity(m, c[i].mib << 20);
		ts_fsmeta_set_inodes(m, 4059); /* the last in use 4058 */
		uint64_t bs = ts_fsmeta_block(m);
		struct ts_fsmeta_node f = { 7, c[i].ino, 0 };
		CHECK_EQ_U64(ts_fsmeta_inode(m, &f, io, TS_FSMETA_MAX_IO), 3);
		for (unsigned k = 0; k < 3; k++) {
			CHECK_EQ_U64(abs_blk(io[k].off, bs), c[i].want[2 * k]);
			CHECK_EQ_U64(io[k].len, c[i].want[2 * k + 1] * bs);
			CHECK(io[k].ahead == (k < 2));
		}
		ts_fsmeta_free(m);
	}
	/* 1 GiB, k05 (2274) then k05/h49 (2324): 256-286 and 288 around
	 * 287; then 289 alone (288 read) and 291-320 around 290 */
	struct ts_fsmeta *m;
	CHECK(ts_fsmeta_new(ext4, &m) == 0);
	ts_fsmeta_set_capacity(m, 1ULL << 30);
	ts_fsmeta_set_inodes(m, 4059); /* the last in use 4058 */
	struct ts_fsmeta_node k05 = { 8, 2274, 0 }, h49 = { 9, 2324, 0 };
	CHECK_EQ_U64(ts_fsmeta_inode(m, &k05, io, TS_FSMETA_MAX_IO), 3);
	CHECK_EQ_U64(abs_blk(io[0].off, 4096), 256);
	CHECK_EQ_U64(io[0].len, 31 * 4096);
	CHECK_EQ_U64(abs_blk(io[1].off, 4096), 288);
	CHECK_EQ_U64(abs_blk(io[2].off, 4096), 287);
	CHECK_EQ_U64(ts_fsmeta_inode(m, &h49, io, TS_FSMETA_MAX_IO), 3);
	CHECK_EQ_U64(abs_blk(io[0].off, 4096), 289);
	CHECK_EQ_U64(io[0].len, 4096);
	CHECK_EQ_U64(abs_blk(io[1].off, 4096), 291);
	CHECK_EQ_U64(io[1].len, 30 * 4096);
	CHECK_EQ_U64(abs_blk(io[2].off, 4096), 290);
	ts_fsmeta_free(m);
}

/* The disk's size changed after lookups (tierfs's control file): the
 * tables are laid out again at the new size, and a block of the new
 * layout is in memory when every inode it holds was read before. */
static void test_relayout(void)
{
	struct ts_fsmeta_io io[TS_FSMETA_MAX_IO];
	struct ts_fsmeta *m;
	/* 1 GiB (table at 145) -> 3 GiB (at 417): e (inode 2013) read blocks
	 * 256-288, inodes 1777-2304, which at 3 GiB are blocks 528-560 */
	CHECK(ts_fsmeta_new(ext4, &m) == 0);
	ts_fsmeta_set_capacity(m, 1ULL << 30);
	ts_fsmeta_set_inodes(m, 4059); /* the last in use 4058 */
	struct ts_fsmeta_node e = { 7, 2013, 0 }, lo = { 8, 1777, 0 }, below = { 9, 1776, 0 };
	CHECK_EQ_U64(ts_fsmeta_inode(m, &e, io, TS_FSMETA_MAX_IO), 3);
	ts_fsmeta_set_capacity(m, 3ULL << 30);
	CHECK_EQ_U64(ts_fsmeta_block(m), 4096);
	CHECK_EQ_U64(ts_fsmeta_inode(m, &e, io, TS_FSMETA_MAX_IO), 0);
	CHECK_EQ_U64(ts_fsmeta_inode(m, &lo, io, TS_FSMETA_MAX_IO), 0);
	/* inode 1776, block 527: its window from 512, 528 on read */
	CHECK_EQ_U64(ts_fsmeta_inode(m, &below, io, TS_FSMETA_MAX_IO), 2);
	CHECK_EQ_U64(abs_blk(io[0].off, 4096), 512);
	CHECK_EQ_U64(io[0].len, 15 * 4096);
	CHECK(io[0].ahead);
	CHECK_EQ_U64(abs_blk(io[1].off, 4096), 527);
	CHECK_EQ_U64(io[1].len, 4096);
	CHECK(!io[1].ahead);
	ts_fsmeta_free(m);

	/* 256 MiB (1 KiB blocks, table at 292) -> 1 GiB (4 KiB, at 145): e
	 * read blocks 768-800, inodes 1905-2036; at 1 GiB blocks 264-271
	 * hold 1905-2032 (read), 272 holds 2033-2048 (4 of them read: not) */
	CHECK(ts_fsmeta_new(ext4, &m) == 0);
	ts_fsmeta_set_capacity(m, 256ULL << 20);
	ts_fsmeta_set_inodes(m, 4059);
	CHECK_EQ_U64(ts_fsmeta_inode(m, &e, io, TS_FSMETA_MAX_IO), 3);
	CHECK_EQ_U64(abs_blk(io[2].off, 1024), 795);
	ts_fsmeta_set_capacity(m, 1ULL << 30);
	CHECK_EQ_U64(ts_fsmeta_block(m), 4096);
	CHECK_EQ_U64(ts_fsmeta_inode(m, &e, io, TS_FSMETA_MAX_IO), 0);
	struct ts_fsmeta_node past = { 10, 2040, 0 };
	CHECK_EQ_U64(ts_fsmeta_inode(m, &past, io, TS_FSMETA_MAX_IO), 3);
	CHECK_EQ_U64(abs_blk(io[0].off, 4096), 256);
	CHECK_EQ_U64(io[0].len, 8 * 4096);
	CHECK_EQ_U64(abs_blk(io[1].off, 4096), 273);
	CHECK_EQ_U64(io[1].len, 16 * 4096);
	CHECK_EQ_U64(abs_blk(io[2].off, 4096), 272);
	CHECK_EQ_U64(io[2].len, 4096);
	ts_fsmeta_free(m);

	/* nothing read yet: the new size's layout alone, as if made at it */
	struct ts_fsmeta *a, *b;
	CHECK(ts_fsmeta_new(ext4, &a) == 0);
	CHECK(ts_fsmeta_new(ext4, &b) == 0);
	ts_fsmeta_set_capacity(a, 1ULL << 30);
	ts_fsmeta_set_capacity(a, 3ULL << 30);
	ts_fsmeta_set_capacity(b, 3ULL << 30);
	ts_fsmeta_set_inodes(a, 4059);
	ts_fsmeta_set_inodes(b, 4059);
	struct ts_fsmeta_io ib[TS_FSMETA_MAX_IO];
	unsigned na = ts_fsmeta_inode(a, &e, io, TS_FSMETA_MAX_IO);
	CHECK_EQ_U64(ts_fsmeta_inode(b, &e, ib, TS_FSMETA_MAX_IO), na);
	for (unsigned k = 0; k < na; k++) {
		CHECK_EQ_U64(io[k].off, ib[k].off);
		CHECK_EQ_U64(io[k].len, ib[k].len);
	}
	ts_fsmeta_free(a);
	ts_fsmeta_free(b);
}

/* The mount's window (the root's table block t and t+1..t+32) capped at
 * the last inode in use whether the count came before the first lookup or
 * after it: the kernel caps it at mount from the image's own count, so a
 * block past the cap is read at its first lookup in either order. 1 GiB
 * (table at 145): 99 the last in use (table block 151), inode 120 in block
 * 152, inode 112 in 151; and the flat rule (no capacity: table from 0),
 * and a capacity changed between the mount and the count. */
static void test_mount_cap(void)
{
	struct ts_fsmeta_io io[TS_FSMETA_MAX_IO];
	struct ts_fsmeta_node dir = { 100, 13, 1 }, f = { 101, 14, 0 }, in = { 102, 112, 0 },
			      past = { 103, 120, 0 };
	for (int sized = 0; sized < 2; sized++)
		for (int after = 0; after < 2; after++) {
			struct ts_fsmeta *m;
			CHECK(ts_fsmeta_new(ext4, &m) == 0);
			if (sized)
				ts_fsmeta_set_capacity(m, 1ULL << 30);
			if (!after)
				ts_fsmeta_set_inodes(m, 100);
			/* the first lookup: the folder's block alone (inode 14
			 * in the root's window) */
			CHECK_EQ_U64(ts_fsmeta_lookup(m, &dir, &f, io, TS_FSMETA_MAX_IO), 1);
			CHECK_EQ_U64(io[0].len, 4096);
			if (after)
				ts_fsmeta_set_inodes(m, 100);
			CHECK_EQ_U64(ts_fsmeta_inode(m, &in, io, TS_FSMETA_MAX_IO), 0);
			/* block 152 (7 flat) past the cap: its own block only,
			 * the window up to the cap read at mount */
			CHECK_EQ_U64(ts_fsmeta_inode(m, &past, io, TS_FSMETA_MAX_IO), 1);
			CHECK_EQ_U64(abs_blk(io[0].off, 4096), sized ? 152 : 7);
			CHECK_EQ_U64(io[0].len, 4096);
			CHECK(!io[0].ahead);
			CHECK_EQ_U64(ts_fsmeta_inode(m, &past, io, TS_FSMETA_MAX_IO), 0);
			ts_fsmeta_free(m);
		}
	/* read at 1 GiB, laid out again at 3 GiB (table at 417) before the
	 * count: the window's inodes 1..528 are blocks 417-449 there, capped
	 * at 423 once the count comes */
	struct ts_fsmeta *m;
	CHECK(ts_fsmeta_new(ext4, &m) == 0);
	ts_fsmeta_set_capacity(m, 1ULL << 30);
	CHECK_EQ_U64(ts_fsmeta_lookup(m, &dir, &f, io, TS_FSMETA_MAX_IO), 1);
	ts_fsmeta_set_capacity(m, 3ULL << 30);
	ts_fsmeta_set_inodes(m, 100);
	CHECK_EQ_U64(ts_fsmeta_inode(m, &in, io, TS_FSMETA_MAX_IO), 0);
	CHECK_EQ_U64(ts_fsmeta_inode(m, &past, io, TS_FSMETA_MAX_IO), 1);
	CHECK_EQ_U64(abs_blk(io[0].off, 4096), 424);
	ts_fsmeta_free(m);
}

/* More folders than fsmeta.c remembers directly (DSEEN), in turns: each
 * is read once, its first time, whichever folders share its memo slot. */
static void test_many_folders(void)
{
	struct ts_fsmeta *m;
	struct ts_fsmeta_io io[TS_FSMETA_MAX_IO];
	CHECK(ts_fsmeta_new(ext4, &m) == 0);
	uint64_t reads[2] = { 0, 0 };
	for (int turn = 0; turn < 3; turn++)
		for (uint64_t d = 0; d < 20000; d++) {
			struct ts_fsmeta_node dir = { 1000 + d, 20 + d, 1 };
			reads[turn > 0] += ts_fsmeta_list(m, &dir, io, TS_FSMETA_MAX_IO);
		}
	CHECK_EQ_U64(reads[0], 20000);
	CHECK_EQ_U64(reads[1], 0);
	ts_fsmeta_free(m);
}

/* A lookup in a linear folder looked up in before is its file's inode
 * alone: two models, one asked every lookup in full, the other only a
 * folder's first, give the same reads, in turns over more folders than
 * DSEEN, inodes far apart and near. */
static void test_inode_alone(void)
{
	struct ts_fsmeta *a, *b;
	struct ts_fsmeta_io ia[TS_FSMETA_MAX_IO], ib[TS_FSMETA_MAX_IO];
	CHECK(ts_fsmeta_new(ext4, &a) == 0);
	CHECK(ts_fsmeta_new(ext4, &b) == 0);
	enum { DIRS = 5000, FILES = 3 };
	static bool seen[DIRS];
	uint64_t reads = 0, x = 12345;
	for (int k = 0; k < 4 * DIRS * FILES; k++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		uint64_t d = (x >> 33) % DIRS, f = (x >> 20) % FILES;
		struct ts_fsmeta_node dir = { 7000 + d, 20 + d, 1 + d % 3 };
		struct ts_fsmeta_node file = { 100000 + d * FILES + f, 9001 + d * 700 + f, 0 };
		unsigned na = ts_fsmeta_lookup(a, &dir, &file, ia, TS_FSMETA_MAX_IO);
		unsigned nb = seen[d] ? ts_fsmeta_inode(b, &file, ib, TS_FSMETA_MAX_IO)
				      : ts_fsmeta_lookup(b, &dir, &file, ib, TS_FSMETA_MAX_IO);
		seen[d] = true;
		CHECK_EQ_U64(nb, na);
		for (unsigned i = 0; i < na && i < nb; i++) {
			CHECK_EQ_U64(ib[i].off, ia[i].off);
			CHECK_EQ_U64(ib[i].len, ia[i].len);
			CHECK_EQ_U64(ib[i].split, ia[i].split);
		}
		reads += na;
	}
	/* each folder's blocks and each folder's inode window, once (its
	 * files' inodes share one; the folders' lie 700 apart) */
	CHECK_EQ_U64(reads, 2 * DIRS);
	ts_fsmeta_free(a);
	ts_fsmeta_free(b);
}

static void test_list_and_extent(void)
{
	struct ts_fsmeta *m;
	struct ts_fsmeta_io io[TS_FSMETA_MAX_IO];
	CHECK(ts_fsmeta_new(ext4, &m) == 0);
	/* 20 blocks: 8 + 8 + 4, read ahead as ext4's lookup does */
	struct ts_fsmeta_node big = { 7, 30, 20 };
	CHECK_EQ_U64(ts_fsmeta_list(m, &big, io, TS_FSMETA_MAX_IO), 3);
	CHECK_EQ_U64(io[0].len, 8 * 4096);
	CHECK_EQ_U64(io[2].len, 4 * 4096);
	CHECK_EQ_U64(ts_fsmeta_list(m, &big, io, TS_FSMETA_MAX_IO), 0);
	/* a full @out merges the rest into its last read */
	struct ts_fsmeta_node huge = { 8, 31, 100 };
	CHECK_EQ_U64(ts_fsmeta_list(m, &huge, io, 2), 2);
	CHECK_EQ_U64(io[0].len + io[1].len, 100 * 4096);

	/* a file of 4 extents or fewer holds them in its inode */
	CHECK_EQ_U64(ts_fsmeta_extent(m, 9, 512ULL << 20, 0, io, TS_FSMETA_MAX_IO), 0);
	/* a larger one reads a leaf once per 340 extents */
	CHECK_EQ_U64(ts_fsmeta_extent(m, 9, 1ULL << 40, 0, io, TS_FSMETA_MAX_IO), 1);
	CHECK_EQ_U64(io[0].len, 4096);
	CHECK_EQ_U64(ts_fsmeta_extent(m, 9, 1ULL << 40, 1ULL << 30, io, TS_FSMETA_MAX_IO), 0);
	CHECK_EQ_U64(ts_fsmeta_extent(m, 9, 1ULL << 40, 340ULL << 27, io, TS_FSMETA_MAX_IO), 1);
	ts_fsmeta_free(m);

	/* a linear folder: "." and "..", then 8 bytes + the name padded to 4 */
	CHECK_EQ_U64(ts_fsmeta_dir_blocks(ext4, 0, 0), 1);
	CHECK_EQ_U64(ts_fsmeta_dir_blocks(ext4, 100, 2000), 1);
	CHECK_EQ_U64(ts_fsmeta_dir_blocks(ext4, 1300, 1300 * 20), 10);
}

/* An htree folder (the kernel's index, tier/fsmeta.h), of the shape the
 * kernel gave 20,000 files copied into a new folder on a mounted image
 * (bench/big_dirs.sh: 226 blocks, a root of 225 leaves): a lookup reads
 * the root and the leaf of the name's hash, a block a request, each
 * once; every name looked up reads the root and each leaf once, 226
 * requests (block mode: 226 in storage order and shuffled); the rule for
 * a linear folder of as many blocks reads them all at the first lookup,
 * a request per block, 8 at a time. */
static void test_htree(void)
{
	struct ts_fsmeta *m;
	struct ts_fsmeta_io io[TS_FSMETA_MAX_IO];
	CHECK(ts_fsmeta_new(ext4, &m) == 0);
	struct ts_fsmeta_node dir = { 500, 12, 226, true };
	struct ts_fsmeta_node f = { 1, 13, 0, false };
	/* the root, the leaf (the inode's window: the root's, read at mount) */
	CHECK_EQ_U64(ts_fsmeta_lookup(m, &dir, &f, io, TS_FSMETA_MAX_IO), 2);
	CHECK_EQ_U64(io[0].len, 4096);
	CHECK_EQ_U64(io[1].len, 4096);
	CHECK_EQ_U64(io[0].split + io[1].split, 0);
	CHECK(io[0].off != io[1].off);
	uint64_t reqs = 2, bytes = 2 * 4096;
	for (uint64_t i = 2; i <= 20000; i++) {
		f = (struct ts_fsmeta_node){ i, 12 + i, 0, false };
		unsigned n = ts_fsmeta_lookup(m, &dir, &f, io, TS_FSMETA_MAX_IO);
		for (unsigned k = 0; k < n; k++)
			if (io[k].len == 4096) { /* a folder block (a window is 32) */
				reqs++;
				bytes += io[k].len;
			}
	}
	CHECK_EQ_U64(reqs, 226);
	CHECK_EQ_U64(bytes, 226 * 4096);
	/* its listing: nothing left to read */
	CHECK_EQ_U64(ts_fsmeta_list(m, &dir, io, TS_FSMETA_MAX_IO), 0);
	ts_fsmeta_free(m);

	/* past 507 leaves, a second level: root, index block, leaf */
	CHECK(ts_fsmeta_new(ext4, &m) == 0);
	struct ts_fsmeta_node huge = { 501, 12, 1200, true };
	f = (struct ts_fsmeta_node){ 7, 13, 0, false };
	CHECK_EQ_U64(ts_fsmeta_lookup(m, &huge, &f, io, TS_FSMETA_MAX_IO), 3);
	/* a listing of an htree folder reads every block not read yet, a
	 * request each (the last merged when @out is full) */
	CHECK_EQ_U64(ts_fsmeta_list(m, &huge, io, TS_FSMETA_MAX_IO), TS_FSMETA_MAX_IO);
	CHECK_EQ_U64(io[0].len, 4096);
	uint64_t all = 0;
	for (unsigned k = 0; k < TS_FSMETA_MAX_IO; k++)
		all += io[k].len;
	CHECK_EQ_U64(all, (1200 - 3) * 4096);
	/* a folder of one block is read as one, index or not */
	struct ts_fsmeta_node one = { 502, 14, 1, true };
	CHECK_EQ_U64(ts_fsmeta_lookup(m, &one, &f, io, TS_FSMETA_MAX_IO), 1);
	CHECK_EQ_U64(io[0].len, 4096);
	ts_fsmeta_free(m);
}

/* An htree folder's index blocks under its root, as ext4_dx_add_entry
 * grows them (tier/fsmeta.c): none while the root (507 entries) holds
 * the leaves; one when it first fills; then doubling as they fill
 * together. Checked with debugfs htree on folders the kernel filled on a
 * mounted image (names nNNNNNNN.jpg; bench/big_dirs.sh's 100,000 had
 * longer names): 100,000 names, 723 blocks, 2 index blocks; 165,000,
 * 1,126 blocks, 4; 230,000, 1,692 blocks, 4; 330,000, 2,281 blocks, 8;
 * big_dirs.sh's 100,000, 1,128 blocks, 4. The fewest that hold the
 * leaves (the rule before) gives 3 for 1,126 and 1,128, and 5 for 2,281. */
static void test_dx_index(void)
{
	CHECK_EQ_U64(ts_fsmeta_dx_index(ext4, 1), 0);
	CHECK_EQ_U64(ts_fsmeta_dx_index(ext4, 226), 0);
	CHECK_EQ_U64(ts_fsmeta_dx_index(ext4, 508), 0); /* root + 507 leaves */
	CHECK_EQ_U64(ts_fsmeta_dx_index(ext4, 510), 1); /* the root moved down */
	CHECK_EQ_U64(ts_fsmeta_dx_index(ext4, 723), 2);
	CHECK_EQ_U64(ts_fsmeta_dx_index(ext4, 1126), 4);
	CHECK_EQ_U64(ts_fsmeta_dx_index(ext4, 1128), 4);
	CHECK_EQ_U64(ts_fsmeta_dx_index(ext4, 1692), 4);
	CHECK_EQ_U64(ts_fsmeta_dx_index(ext4, 2281), 8);

	/* 1,128 blocks: looking up every name reads the root, the 4 index
	 * blocks and the 1,123 leaves, each once; the first lookup 3 */
	struct ts_fsmeta *m;
	struct ts_fsmeta_io io[TS_FSMETA_MAX_IO];
	CHECK(ts_fsmeta_new(ext4, &m) == 0);
	struct ts_fsmeta_node dir = { 600, 12, 1128, true };
	uint64_t blocks = 0;
	for (uint64_t i = 1; i <= 200000; i++) {
		struct ts_fsmeta_node f = { i, 12 + i, 0, false };
		unsigned n = ts_fsmeta_lookup(m, &dir, &f, io, TS_FSMETA_MAX_IO);
		unsigned b = 0;
		for (unsigned k = 0; k < n; k++)
			b += io[k].len == 4096;
		if (i == 1)
			CHECK_EQ_U64(b, 3);
		blocks += b;
	}
	CHECK_EQ_U64(blocks, 1128);
	ts_fsmeta_free(m);
}

/* A linear folder, as mkfs.ext4 -d makes them: its blocks lie between
 * its files' data, so each is a request of its own (block mode: 159
 * requests for a folder of 159 blocks), read 8 at a time. */
static void test_linear_split(void)
{
	struct ts_fsmeta *m;
	struct ts_fsmeta_io io[TS_FSMETA_MAX_IO];
	CHECK(ts_fsmeta_new(ext4, &m) == 0);
	struct ts_fsmeta_node dir = { 600, 12, 159 }, f = { 1, 13, 0 };
	/* 19 reads of 8 blocks and one of 7, a request a block (the inode's
	 * window: the root's, read at mount) */
	CHECK_EQ_U64(ts_fsmeta_lookup(m, &dir, &f, io, TS_FSMETA_MAX_IO), TS_FSMETA_MAX_IO);
	CHECK_EQ_U64(io[0].len, 8 * 4096);
	CHECK_EQ_U64(io[0].split, 4096);
	uint64_t all = 0;
	for (unsigned k = 0; k < TS_FSMETA_MAX_IO; k++)
		all += io[k].len;
	CHECK_EQ_U64(all, 159 * 4096); /* merged into the last */
	ts_fsmeta_free(m);
}

static void test_path(void)
{
	struct ts_fsmeta *m;
	struct ts_fsmeta_io io[TS_FSMETA_MAX_IO];
	unsigned calls = 0;
	CHECK(ts_fsmeta_new(ext4, &m) == 0);
	/* the root's block, /a's 3 blocks: /a's inode shares the root's
	 * window of the table (inodes 2..21), which the mount read with the
	 * root's inode (block-mode trace of a mount: the root's table block
	 * and the 32 after it, before any lookup), so no inode-table read */
	CHECK_EQ_U64(ts_fsmeta_path(m, "/a/x", false, ts_test_stat_tree, &calls, io, TS_FSMETA_MAX_IO), 2);
	CHECK_EQ_U64(io[0].len, 4096);
	CHECK_EQ_U64(io[1].len, 3 * 4096);
	CHECK(io[0].off >> 52 == 3 && io[1].off >> 52 == 3); /* K_DIR blocks only */
	CHECK_EQ_U64(calls, 3); /* /, /a, /a/x */
	/* again: nothing read, nothing asked */
	CHECK_EQ_U64(ts_fsmeta_path(m, "/a/x/", false, ts_test_stat_tree, &calls, io, TS_FSMETA_MAX_IO), 0);
	CHECK_EQ_U64(calls, 3);
	/* a missing name reads nothing more here (its folder, scanned for
	 * it, is read already) and is asked again later */
	CHECK_EQ_U64(ts_fsmeta_path(m, "/a/nope", false, ts_test_stat_tree, &calls, io, TS_FSMETA_MAX_IO), 0);
	CHECK_EQ_U64(ts_fsmeta_path(m, "/a/nope", false, ts_test_stat_tree, &calls, io, TS_FSMETA_MAX_IO), 0);
	CHECK_EQ_U64(calls, 5);
	/* a file of another window: that window */
	CHECK_EQ_U64(ts_fsmeta_path(m, "/a/far", false, ts_test_stat_tree, &calls, io, TS_FSMETA_MAX_IO), 1);
	/* a listing of a folder already read: nothing */
	CHECK_EQ_U64(ts_fsmeta_path(m, "/a", true, ts_test_stat_tree, &calls, io, TS_FSMETA_MAX_IO), 0);
	ts_fsmeta_free(m);

	/* a missing name first: ext4_lookup scans its folder for it (the
	 * root's block, /a's 3 blocks; /a's window read at mount) and
	 * reads no inode; the name found then reads nothing more */
	CHECK(ts_fsmeta_new(ext4, &m) == 0);
	CHECK_EQ_U64(ts_fsmeta_path(m, "/a/nope", false, ts_test_stat_tree, &calls, io, TS_FSMETA_MAX_IO), 2);
	CHECK_EQ_U64(io[1].len, 3 * 4096);
	CHECK_EQ_U64(ts_fsmeta_path(m, "/a/x", false, ts_test_stat_tree, &calls, io, TS_FSMETA_MAX_IO), 0);
	/* a missing folder: the root scanned (read already), nothing under */
	CHECK_EQ_U64(ts_fsmeta_path(m, "/nope/x", false, ts_test_stat_tree, &calls, io, TS_FSMETA_MAX_IO), 0);
	ts_fsmeta_free(m);
}


/* A flat folder /d (inode 12, one block when first seen) of files
 * /d/[fr]NNNNN, inode 13 + NNNNN. */
static int flat_stat(void *ctx, const char *path, size_t len, struct ts_fsmeta_node *out)
{
	(void)ctx;
	if (len == 1 && path[0] == '/')
		*out = (struct ts_fsmeta_node){ 0, 2, 1 };
	else if (len == 2 && !strncmp(path, "/d", 2))
		*out = (struct ts_fsmeta_node){ 0, 12, 1 };
	else if (len == 9 && !strncmp(path, "/d/", 3) && (path[3] == 'f' || path[3] == 'r'))
		*out = (struct ts_fsmeta_node){ 0, 13 + (uint64_t)atoi(path + 4), 0 };
	else
		return -ENOENT;
	return 0;
}

/* Blocks a commit writes (its descriptors and the commit block included)
 * at @now (an fsync), and its requests into *@reqs. */
static uint64_t commit_blocks(struct ts_fsmeta *m, uint64_t now, unsigned *reqs)
{
	struct ts_fsmeta_io io[TS_FSMETA_MAX_IO];
	uint64_t at = 0, bytes = 0;
	*reqs = ts_fsmeta_commit(m, now, true, &at, io, TS_FSMETA_MAX_IO);
	if (*reqs)
		CHECK_EQ_U64(at, now);
	for (unsigned i = 0; i < *reqs; i++)
		bytes += io[i].len;
	if (*reqs)
		CHECK_EQ_U64(io[*reqs - 1].len, 4096); /* the commit block last */
	return bytes / 4096;
}

/* The journal: the blocks names made and changed dirty, once each per
 * transaction, written at the commit. The block-mode trace of
 * journal_request's evidence (tier/tiers.lua: 2,000 creates in one folder,
 * then 1,000 renames and 1,000 unlinks of every other file, each phase
 * synced) committed 144, 143 and 143 blocks (descriptor included) and a
 * commit block each; the rule gives 139, 135 and 139 (-3.5%, -5.6%,
 * -2.8%: the folder's hashed index blocks, 12 where the rule counts 8,
 * are not in it). */
static void test_journal(void)
{
	struct ts_fsmeta *m;
	char path[32];
	unsigned reqs;
	CHECK(ts_fsmeta_new(ext4, &m) == 0);
	struct ts_fsmeta_io io[TS_FSMETA_MAX_IO];
	uint64_t at = 0;
	/* nothing changed: no commit, even at an fsync */
	CHECK_EQ_U64(ts_fsmeta_commit(m, 0, true, &at, io, TS_FSMETA_MAX_IO), 0);
	/* 2,000 creates: 126 inode-table blocks (inodes 13..2012, the
	 * folder's 12 among them), 8 folder blocks (16 bytes a name), the 4
	 * allocation blocks, a descriptor, the commit block */
	for (int i = 0; i < 2000; i++) {
		snprintf(path, sizeof(path), "/d/f%05d", i);
		ts_fsmeta_dirty(m, 1000000 + (uint64_t)i, TS_FSMETA_MAKE, path, NULL, flat_stat, NULL);
	}
	/* not due before the commit interval, due at it (from the first
	 * change), in the background */
	CHECK_EQ_U64(ts_fsmeta_commit(m, 1000000 + 4 * TS_NS_PER_S, false, &at, io,
				      TS_FSMETA_MAX_IO), 0);
	CHECK_EQ_U64(ts_fsmeta_commit(m, 1000000 + 9 * TS_NS_PER_S, false, &at, io,
				      TS_FSMETA_MAX_IO), 3);
	CHECK_EQ_U64(at, 1000000 + 5 * TS_NS_PER_S);
	/* 126 + 8 + 4 + 1 = 139 blocks: 512 KiB + 44 KiB, then 4 KiB */
	CHECK_EQ_U64(io[0].len, 512 * 1024);
	CHECK_EQ_U64(io[1].len, 11 * 4096);
	CHECK_EQ_U64(io[2].len, 4096);
	CHECK(io[1].off == io[0].off + io[0].len && io[2].off == io[1].off + io[1].len);
	/* emptied: nothing more to commit */
	CHECK_EQ_U64(commit_blocks(m, 20 * TS_NS_PER_S, &reqs), 0);
	/* 1,000 renames of every other file: 126 inode-table blocks, the
	 * folder's 8 blocks (one by the name's hash), no allocation blocks */
	for (int i = 0; i < 2000; i += 2) {
		snprintf(path, sizeof(path), "/d/f%05d", i);
		ts_fsmeta_dirty(m, 30 * TS_NS_PER_S, TS_FSMETA_CHANGE, path, NULL, flat_stat, NULL);
	}
	CHECK_EQ_U64(commit_blocks(m, 31 * TS_NS_PER_S, &reqs), 126 + 8 + 1 + 1);
	/* 1,000 unlinks of the others: the same and the allocation blocks */
	for (int i = 1; i < 2000; i += 2) {
		snprintf(path, sizeof(path), "/d/f%05d", i);
		ts_fsmeta_dirty(m, 40 * TS_NS_PER_S, TS_FSMETA_REMOVE, path, NULL, flat_stat, NULL);
	}
	CHECK_EQ_U64(commit_blocks(m, 41 * TS_NS_PER_S, &reqs), 126 + 8 + 4 + 1 + 1);
	CHECK_EQ_U64(reqs, 3);
	/* a missing name or a relative one changes nothing */
	ts_fsmeta_dirty(m, 50 * TS_NS_PER_S, TS_FSMETA_REMOVE, "/nope/x", NULL, flat_stat, NULL);
	ts_fsmeta_dirty(m, 50 * TS_NS_PER_S, TS_FSMETA_MAKE, "x", NULL, flat_stat, NULL);
	CHECK_EQ_U64(commit_blocks(m, 51 * TS_NS_PER_S, &reqs), 0);
	ts_fsmeta_free(m);
}

/* Two folders: /a (inode 12) with files /a/fNNNNN (inode 13 + NNNNN,
 * below 80) and the folder /a/sub (inode 200, one block), /b (inode 100),
 * empty; each folder one block when first seen. And /c (inode 300, 8
 * blocks) with files /c/fNNNNN (inode 321 + NNNNN, below 8). */
static int two_stat(void *ctx, const char *path, size_t len, struct ts_fsmeta_node *out)
{
	(void)ctx;
	if (len == 1 && path[0] == '/')
		*out = (struct ts_fsmeta_node){ 0, 2, 1 };
	else if (len == 2 && !strncmp(path, "/a", 2))
		*out = (struct ts_fsmeta_node){ 0, 12, 1 };
	else if (len == 2 && !strncmp(path, "/b", 2))
		*out = (struct ts_fsmeta_node){ 0, 100, 1 };
	else if (len == 6 && !strncmp(path, "/a/sub", 6))
		*out = (struct ts_fsmeta_node){ 0, 200, 1 };
	else if (len == 9 && !strncmp(path, "/a/f", 4) && atoi(path + 4) < 80)
		*out = (struct ts_fsmeta_node){ 0, 13 + (uint64_t)atoi(path + 4), 0 };
	else if (len == 2 && !strncmp(path, "/c", 2))
		*out = (struct ts_fsmeta_node){ 0, 300, 8 };
	else if (len == 9 && !strncmp(path, "/c/f", 4) && atoi(path + 4) < 8)
		*out = (struct ts_fsmeta_node){ 0, 321 + (uint64_t)atoi(path + 4), 0 };
	else
		return -ENOENT;
	return 0;
}

/* A rename into another folder changes that folder too, as ext4_rename
 * does: the name added at its end and its times (its inode block); a
 * folder moved also rewrites its ".." in its own first block. */
static void test_journal_rename(void)
{
	struct ts_fsmeta *m;
	char from[32], to[32];
	unsigned reqs;
	CHECK(ts_fsmeta_new(ext4, &m) == 0);
	/* 32 files /a -> /b: their inodes 13..44 (table blocks 0, 1, 2, /a's
	 * 12 in block 0), /a's block, /b's last block, /b's inode block (6),
	 * a descriptor and the commit block */
	for (int i = 0; i < 32; i++) {
		snprintf(from, sizeof(from), "/a/f%05d", i);
		snprintf(to, sizeof(to), "/b/g%05d", i);
		ts_fsmeta_dirty(m, TS_NS_PER_S, TS_FSMETA_CHANGE, from, to, two_stat, NULL);
	}
	CHECK_EQ_U64(commit_blocks(m, 2 * TS_NS_PER_S, &reqs), 3 + 1 + 2 + 1 + 1);
	/* within /a, as before: no second folder */
	for (int i = 32; i < 64; i++) {
		snprintf(from, sizeof(from), "/a/f%05d", i);
		snprintf(to, sizeof(to), "/a/h%05d", i);
		ts_fsmeta_dirty(m, 3 * TS_NS_PER_S, TS_FSMETA_CHANGE, from, to, two_stat, NULL);
	}
	/* inodes 45..76: table blocks 2, 3, 4; /a's block and inode block */
	CHECK_EQ_U64(commit_blocks(m, 4 * TS_NS_PER_S, &reqs), 3 + 1 + 1 + 1 + 1);
	/* the folder /a/sub moved to /b: its inode block (12), /a's block and
	 * inode block, /b's last block and inode block, its own first block */
	ts_fsmeta_dirty(m, 5 * TS_NS_PER_S, TS_FSMETA_CHANGE, "/a/sub", "/b/sub", two_stat, NULL);
	CHECK_EQ_U64(commit_blocks(m, 6 * TS_NS_PER_S, &reqs), 6 + 1 + 1);
	/* a new name in a folder that does not exist: the old folder only */
	ts_fsmeta_dirty(m, 7 * TS_NS_PER_S, TS_FSMETA_CHANGE, "/a/f00070", "/nope/x", two_stat, NULL);
	CHECK_EQ_U64(commit_blocks(m, 8 * TS_NS_PER_S, &reqs), 3 + 1 + 1);
	ts_fsmeta_free(m);
}

/* A link adds a name to its new folder and counts one more link in the
 * file's inode, as ext4_link does: the old folder is not changed. */
static void test_journal_link(void)
{
	struct ts_fsmeta *m;
	char from[32], to[32];
	unsigned reqs;
	CHECK(ts_fsmeta_new(ext4, &m) == 0);
	/* /a/f00040 linked into /b: its inode 53 (table block 3), /b's last
	 * block and inode block (6), a descriptor and the commit block; not
	 * /a's block or inode block (0) */
	ts_fsmeta_dirty(m, TS_NS_PER_S, TS_FSMETA_LINK, "/a/f00040", "/b/l00040", two_stat, NULL);
	CHECK_EQ_U64(commit_blocks(m, 2 * TS_NS_PER_S, &reqs), 1 + 2 + 1 + 1);
	CHECK_EQ_U64(reqs, 2); /* the descriptor and blocks, then the commit block */
	/* 8 links within /c (8 blocks): the names all go at its end, its
	 * last block, not the blocks holding the old names; inodes 321..328
	 * (table block 20), /c's inode block (18) */
	for (int i = 0; i < 8; i++) {
		snprintf(from, sizeof(from), "/c/f%05d", i);
		snprintf(to, sizeof(to), "/c/l%05d", i);
		ts_fsmeta_dirty(m, 3 * TS_NS_PER_S, TS_FSMETA_LINK, from, to, two_stat, NULL);
	}
	CHECK_EQ_U64(commit_blocks(m, 4 * TS_NS_PER_S, &reqs), 1 + 1 + 1 + 1 + 1);
	/* into a folder that does not exist: the file's inode block only */
	ts_fsmeta_dirty(m, 5 * TS_NS_PER_S, TS_FSMETA_LINK, "/a/f00041", "/nope/x", two_stat, NULL);
	CHECK_EQ_U64(commit_blocks(m, 6 * TS_NS_PER_S, &reqs), 1 + 1 + 1);
	/* a file that does not exist: nothing */
	ts_fsmeta_dirty(m, 7 * TS_NS_PER_S, TS_FSMETA_LINK, "/a/f00099", "/b/x", two_stat, NULL);
	CHECK_EQ_U64(commit_blocks(m, 8 * TS_NS_PER_S, &reqs), 0);
	ts_fsmeta_free(m);
}

/* An htree folder /h (inode 12, 226 blocks) of names /h/nNNNNN (inode
 * 5000 + NNNNN). */
static int htree_stat(void *ctx, const char *path, size_t len, struct ts_fsmeta_node *out)
{
	(void)ctx;
	if (len == 1 && path[0] == '/')
		*out = (struct ts_fsmeta_node){ 0, 2, 1, false };
	else if (len == 2 && !strncmp(path, "/h", 2))
		*out = (struct ts_fsmeta_node){ 0, 12, 226, true };
	else if (len == 9 && !strncmp(path, "/h/n", 4))
		*out = (struct ts_fsmeta_node){ 0, 5000 + (uint64_t)atoi(path + 4), 0, false };
	else
		return -ENOENT;
	return 0;
}

/* A name made in an htree folder goes into the leaf of its hash, the one
 * its removal changes again (ext4's dx_add_entry), not the folder's last
 * block: a make and a remove of one name in one transaction dirty the
 * new inode's and the folder's inode block (inodes 12 and 13: one), the
 * leaf, the 4 allocation blocks, and the removed inode's block (5001):
 * 7, a descriptor and the commit block. */
static void test_journal_htree(void)
{
	struct ts_fsmeta *m;
	unsigned reqs;
	CHECK(ts_fsmeta_new(ext4, &m) == 0);
	ts_fsmeta_dirty(m, TS_NS_PER_S, TS_FSMETA_MAKE, "/h/n00001", NULL, htree_stat, NULL);
	ts_fsmeta_dirty(m, TS_NS_PER_S, TS_FSMETA_REMOVE, "/h/n00001", NULL, htree_stat, NULL);
	CHECK_EQ_U64(commit_blocks(m, 2 * TS_NS_PER_S, &reqs), 7 + 1 + 1);
	ts_fsmeta_free(m);
}

static void test_charge(void)
{
	char path[64], err[512];
	struct ts_tier_set *set = NULL;
	CHECK(tc_write_tmp(path, sizeof(path), "tier_fsmeta_charge",
			   "tier \"fixed\" { desc = \"test\", source = \"test\",\n"
			   "  latency = { read = { fixed = \"100us\" }, meta = { fixed = \"1ms\" } } }\n") ==
	      0);
	if (ts_tier_set_load(path, &set, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		tc_failures++;
		unlink(path);
		return;
	}
	unlink(path);
	struct ts_tier_cfg cfg = { .profile = ts_tier_set_find(set, "fixed"), .floor_ns = 10000 };
	struct ts_tier *t;
	CHECK(ts_tier_new(&cfg, &t, err, sizeof(err)) == 0);
	struct ts_fsmeta_io io[2] = { { 0, 4096 }, { 1 << 20, 131072 } };
	struct ts_tier_done d = { 0 };
	/* one after the other at the read latency, the floor taken off once */
	CHECK_EQ_U64(ts_fsmeta_charge(t, 1000000, 10000, io, 2, &d), 1000000 + 200000 - 10000);
	CHECK_EQ_U64(d.dev_bytes, 4096 + 131072);
	CHECK_EQ_U64(ts_fsmeta_charge(t, 5000000, 10000, io, 0, NULL), 5000000);
	/* a split read's requests at once: a linear folder's 20 blocks, 8 + 8
	 * + 4 at a time, three latencies and 20 requests */
	struct ts_fsmeta_io dir[3] = { { 1 << 30, 8 * 4096, 4096 },
				       { (1 << 30) + 8 * 4096, 8 * 4096, 4096 },
				       { (1 << 30) + 16 * 4096, 4 * 4096, 4096 } };
	d = (struct ts_tier_done){ 0 };
	CHECK_EQ_U64(ts_fsmeta_charge(t, 9000000, 10000, dir, 3, &d), 9000000 + 300000 - 10000);
	CHECK_EQ_U64(d.dev_reqs, 20);
	CHECK_EQ_U64(d.dev_bytes, 20 * 4096);
	ts_tier_free(t);
	ts_tier_set_free(set);
}

/* @text in a file of its own (tests/tmpfile.h); the path, "" when it
 * could not be made (the test counted failed). */
static const char *write_tmp(const char *text)
{
	static char path[64];
	if (tc_write_tmp(path, sizeof(path), "tier_fsmeta_decl", text)) {
		tc_failures++;
		path[0] = 0;
	}
	return path;
}

/* The layout is data: tiers.lua's declaration, every field labelled; a
 * user's file replaces it by name; a bad one is refused in one line that
 * names the file, the line and the field. */
static void test_declared(struct ts_tier_set *set)
{
	const struct ts_fsmeta_params *p = ts_tier_set_fs(set, TS_FSMETA_NAME);
	CHECK(p != NULL);
	if (!p)
		return;
	CHECK_EQ_U64(p->block, 4096);
	CHECK_EQ_U64(p->inode_size, 256);
	CHECK_EQ_U64(p->inode_ra_blocks, 32);
	CHECK_EQ_U64(p->dir_ra_blocks, 8);
	CHECK_EQ_U64(p->dirent_base, 8);
	CHECK_EQ_U64(p->extent_bytes, 128ULL << 20);
	CHECK_EQ_U64(p->inline_extents, 4);
	CHECK_EQ_U64(p->leaf_extents, 340);
	CHECK_EQ_U64(p->root_inode, 2);
	CHECK_EQ_U64(p->first_inode, 11);
	CHECK_EQ_U64(p->journal_commit_ns, 5 * TS_NS_PER_S);
	CHECK_EQ_U64(p->journal_request, 512 * 1024);
	CHECK(ts_tier_set_fs(set, "xfs") == NULL);
	char err[512] = "";
	const struct ts_fsmeta_params *q;
	CHECK(ts_tier_set_fs_lookup(set, "xfs", &q, err, sizeof(err)) == TS_E_UNKNOWN);
	CHECK(strstr(err, "'xfs'") != NULL && strstr(err, "tiers.lua") != NULL);

	/* the labels: --evidence prints one row per field */
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	CHECK(mem && ts_tier_print_evidence(mem, set) == 0);
	if (mem)
		fclose(mem);
	/* the field column is as wide as its longest entry */
	const char *fi = buf ? strstr(buf, "first_inode ") : NULL;
	CHECK(buf && strstr(buf, "fs ext4") && strstr(buf, "inode_readahead_blocks measured") && fi &&
	      !strncmp(fi + strlen("first_inode") + strspn(fi + strlen("first_inode"), " "), "spec ", 5));
	free(buf);

	const char *body = "  block = 1024, inode_size = 128, inode_readahead_blocks = 4,\n"
			   "  dir_readahead_blocks = 2, dirent_base = 8, extent_max = \"1MiB\",\n"
			   "  inline_extents = 4, leaf_extents = 10, root_inode = 2, first_inode = 11,\n"
			   "  journal_commit_s = 5, journal_request = \"64KiB\",\n";
	const char *ev = "  evidence = { block = { \"assumed\", \"t\", range = { 0.5, 2 } },\n"
			 "    inode_size = { \"spec\", \"t\" }, inode_readahead_blocks = { \"spec\", \"t\" },\n"
			 "    dir_readahead_blocks = { \"spec\", \"t\" }, dirent_base = { \"spec\", \"t\" },\n"
			 "    extent_max = { \"spec\", \"t\" }, inline_extents = { \"spec\", \"t\" },\n"
			 "    leaf_extents = { \"spec\", \"t\" }, root_inode = { \"spec\", \"t\" },\n"
			 "    first_inode = { \"spec\", \"t\" }, journal_commit_s = { \"spec\", \"t\" },\n"
			 "    journal_request = { \"measured\", \"t\" } } }\n";
	char text[2048];
	snprintf(text, sizeof(text), "filesystem \"ext4\" {\n%s%s", body, ev);
	const char *path = write_tmp(text);
	if (ts_tier_set_add_file(set, path, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		tc_failures++;
	}
	const struct ts_fsmeta_params *r = ts_tier_set_fs(set, TS_FSMETA_NAME);
	CHECK(r && r != p && r->block == 1024 && r->leaf_extents == 10 &&
	      r->journal_commit_ns == 5 * TS_NS_PER_S && r->journal_request == 64 * 1024);
	CHECK_EQ_U64(p->block, 4096); /* the replaced one stays valid */
	unlink(path);

	static const struct {
		const char *from, *to, *want;
	} bad[] = {
		{ "block = 1024", "block = 1000", "field 'block': expected a power of two" },
		{ "inode_size = 128", "inode_size = 2048", "inode_size" },
		{ "leaf_extents = 10,", "", "field 'leaf_extents': missing" },
		{ "first_inode = { \"spec\", \"t\" }, ", "", "missing first_inode" },
		{ "extent_max = \"1MiB\"", "extent_max = \"1000\"", "extent_max" },
		{ "dirent_base = 8", "dirent_base = 8.5", "whole number" },
		{ "range = { 0.5, 2 }", "", "range" },
		{ "root_inode = 2,", "root_inode = 2, wrong = 1,", "wrong" },
		{ "journal_commit_s = 5", "journal_commit_s = 0", "journal_commit_s" },
		{ "journal_request = \"64KiB\"", "journal_request = \"6000\"", "journal_request" },
		{ "journal_request = { \"measured\", \"t\" }", "", "missing journal_request" },
	};
	for (size_t i = 0; i < TS_ARRAY_SIZE(bad); i++) {
		char full[2048];
		snprintf(full, sizeof(full), "filesystem \"ext4\" {\n%s%s", body, ev);
		char *at = strstr(full, bad[i].from);
		CHECK(at != NULL);
		if (!at)
			continue;
		char out[2048];
		snprintf(out, sizeof(out), "%.*s%s%s", (int)(at - full), full, bad[i].to,
			 at + strlen(bad[i].from));
		path = write_tmp(out);
		struct ts_tier_set *s = NULL;
		err[0] = 0;
		CHECK(ts_tier_set_load(path, &s, err, sizeof(err)) == TS_E_PROFILE);
		CHECK(s == NULL);
		if (!strstr(err, bad[i].want) || !strstr(err, path)) {
			fprintf(stderr, "bad %zu: '%s' not in: %s\n", i, bad[i].want, err);
			tc_failures++;
		}
		unlink(path);
		ts_tier_set_free(s);
	}
}

/* An image's own geometry (ts_fsmeta_geom_read, ts_fsmeta_set_geom;
 * trace format 12): mke2fs's defaults for a size are what
 * ts_fsmeta_set_capacity lays out, and a superblock's fields are read as
 * ext4 writes them. */
static void put32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static void test_geom(void)
{
	struct ts_fsmeta_geom g;
	/* tiersim disk make --size 2GiB (mkfs.ext4, e2fsprogs 1.47: dumpe2fs
	 * -h says 524288 blocks, 32768 and 8192 a group, 255 reserved GDT
	 * blocks, 256-byte inodes, 64-byte descriptors, flex_bg 16) */
	ts_fsmeta_geom_of(2ULL << 30, 0, &g);
	CHECK(g.blocks == 524288 && g.block == 4096 && g.bpg == 32768 && g.ipg == 8192 &&
	      g.rsv_gdt == 255 && g.inode_size == 256 && g.desc_size == 64 && g.flex == 16);
	/* the same layout by either call */
	struct ts_fsmeta_io a[TS_FSMETA_MAX_IO], b[TS_FSMETA_MAX_IO];
	static const uint64_t sizes[] = { 256ULL << 20, 1ULL << 30, 5ULL << 30, 500ULL << 30 };
	for (size_t i = 0; i < TS_ARRAY_SIZE(sizes); i++) {
		struct ts_fsmeta *x = NULL, *y = NULL;
		CHECK(ts_fsmeta_new(ext4, &x) == 0);
		CHECK(ts_fsmeta_new(ext4, &y) == 0);
		if (!x || !y)
			return;
		ts_fsmeta_set_capacity(x, sizes[i]);
		ts_fsmeta_geom_of(sizes[i], 0, &g);
		ts_fsmeta_set_geom(y, &g);
		for (uint64_t ino = 13; ino < 40000; ino += 9973) {
			struct ts_fsmeta_node f = { ino, ino, 0 };
			unsigned n = ts_fsmeta_inode(x, &f, a, TS_FSMETA_MAX_IO);
			CHECK_EQ_U64(ts_fsmeta_inode(y, &f, b, TS_FSMETA_MAX_IO), n);
			for (unsigned k = 0; k < n; k++)
				CHECK(a[k].off == b[k].off && a[k].len == b[k].len);
		}
		ts_fsmeta_free(x);
		ts_fsmeta_free(y);
	}
	/* another geometry, another place: 1 GiB without flex_bg (mkfs.ext4
	 * -O ^flex_bg: group 0's table after its bitmaps, block 131, where
	 * flex_bg packs 8 groups' bitmaps before it: 145) */
	ts_fsmeta_geom_of(1ULL << 30, 0, &g);
	g.flex = 1;
	struct ts_fsmeta *m;
	CHECK(ts_fsmeta_new(ext4, &m) == 0);
	ts_fsmeta_set_geom(m, &g);
	struct ts_fsmeta_node f = { 7, 1 + 33 * 16, 0 };
	unsigned n = ts_fsmeta_inode(m, &f, a, TS_FSMETA_MAX_IO);
	CHECK(n >= 1 && abs_blk(a[n - 1].off, 4096) == 131 + 33);
	ts_fsmeta_free(m);

	/* a superblock as ext4 writes it: 64bit, flex_bg 2^4, resize_inode,
	 * sparse_super; 2 GiB of 4 KiB blocks */
	char path[] = "/tmp/ts_test_geom_XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	static unsigned char img[4096];
	unsigned char *sb = img + 1024;
	put32(sb + 0x04, 524288);
	put32(sb + 0x18, 2); /* 1024 << 2 */
	put32(sb + 0x20, 32768);
	put32(sb + 0x28, 8192);
	sb[0x38] = 0x53, sb[0x39] = 0xef;
	sb[0x58] = 0, sb[0x59] = 1; /* 256 */
	put32(sb + 0x5c, 0x10);	   /* resize_inode */
	put32(sb + 0x60, 0x280);   /* 64bit, flex_bg */
	put32(sb + 0x64, 0x1);	   /* sparse_super */
	sb[0xce] = 255;
	sb[0xfe] = 64;
	sb[0x174] = 4;
	CHECK(pwrite(fd, img, sizeof(img), 0) == (ssize_t)sizeof(img));
	char err[256];
	struct ts_fsmeta_geom r;
	CHECK(ts_fsmeta_geom_read(path, &r, err, sizeof(err)) == 0);
	ts_fsmeta_geom_of(2ULL << 30, 0, &g);
	CHECK(r.blocks == g.blocks && r.block == g.block && r.bpg == g.bpg && r.ipg == g.ipg &&
	      r.inode_size == g.inode_size && r.rsv_gdt == g.rsv_gdt &&
	      r.desc_size == g.desc_size && r.flex == g.flex);
	put32(sb + 0x64, 0x201); /* bigalloc */
	CHECK(pwrite(fd, img, sizeof(img), 0) == (ssize_t)sizeof(img));
	CHECK(ts_fsmeta_geom_read(path, &r, err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "bigalloc") != NULL);
	sb[0x38] = 0; /* no ext4 there */
	CHECK(pwrite(fd, img, sizeof(img), 0) == (ssize_t)sizeof(img));
	CHECK(ts_fsmeta_geom_read(path, &r, err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "no ext4 superblock") != NULL);
	close(fd);
	unlink(path);
}

/* The data-layout rule on a small handmade geometry: 8 groups of 1,024
 * blocks of 4 KiB, flex groups of 4, 3 reserved descriptor blocks, 16
 * inode-table blocks a group. Group 0: superblock 0, descriptors 1,
 * reserved 2-4, the flex group's bitmaps 5-12 and tables 13-76; the copy
 * starts after the root's block, lost+found's 4 and the resize inode's
 * (83). Group 1's backup at 1,024-1,028; group 3's at 3,072-3,076 and the
 * journal (1,024 blocks for 8,192: mke2fs picks group 3 of 3-5, the most
 * free of the three) after it, to 4,100; flex group 1's bitmaps and
 * tables at 4,096-4,167. A file that runs into a region goes on after it:
 * two runs, and a request over the gap ends there. */
static void test_data_layout(void)
{
	struct ts_fsmeta *m;
	CHECK(!ts_fsmeta_new(ext4, &m));
	if (!m)
		return;
	CHECK_EQ_U64(ts_fsmeta_data_first(m), 0); /* no layout yet */
	struct ts_fsmeta_geom g = { .blocks = 8192, .block = 4096, .bpg = 1024, .ipg = 256,
				    .inode_size = 256, .rsv_gdt = 3, .desc_size = 64, .flex = 4 };
	ts_fsmeta_set_geom(m, &g);
	uint64_t cur = ts_fsmeta_data_first(m);
	CHECK_EQ_U64(cur, 83);
	struct ts_fsmeta_run r[TS_FSMETA_RUNS];
	CHECK_EQ_U64(ts_fsmeta_alloc(m, &cur, 900, r, TS_FSMETA_RUNS), 1);
	CHECK_EQ_U64(r[0].lblk, 0);
	CHECK_EQ_U64(r[0].pblk, 83);
	CHECK_EQ_U64(r[0].len, 900);
	/* across group 1's backup: 41 blocks before it, 59 after */
	CHECK_EQ_U64(ts_fsmeta_alloc(m, &cur, 100, r, TS_FSMETA_RUNS), 2);
	CHECK_EQ_U64(r[0].pblk, 983);
	CHECK_EQ_U64(r[0].len, 41);
	CHECK_EQ_U64(r[1].lblk, 41);
	CHECK_EQ_U64(r[1].pblk, 1029);
	CHECK_EQ_U64(r[1].len, 59);
	CHECK_EQ_U64(cur, 1088);
	struct ts_fsmeta_file f = { .path = "/f", .size = 100 * 4096, .nruns = 2 };
	memcpy(f.run, r, 2 * sizeof(r[0]));
	CHECK_EQ_U64(ts_fsmeta_file_break(&f, 4096, 0, 100 * 4096), 41 * 4096);
	CHECK_EQ_U64(ts_fsmeta_file_break(&f, 4096, 0, 128 * 1024), 128 * 1024);
	CHECK_EQ_U64(ts_fsmeta_file_break(&f, 4096, 41 * 4096, 59 * 4096), 59 * 4096);
	CHECK_EQ_U64(ts_fsmeta_file_break(&f, 4096, 0, 41 * 4096), 41 * 4096);
	/* group 2 has no backup; group 3's, the journal after it and flex
	 * group 1's tables lie between 3,072 and 4,168 */
	CHECK_EQ_U64(ts_fsmeta_alloc(m, &cur, 2000, r, TS_FSMETA_RUNS), 2);
	CHECK_EQ_U64(r[0].pblk, 1088);
	CHECK_EQ_U64(r[0].len, 1984);
	CHECK_EQ_U64(r[1].lblk, 1984);
	CHECK_EQ_U64(r[1].pblk, 4168);
	CHECK_EQ_U64(r[1].len, 16);
	/* more runs than @max: all counted, the first kept */
	cur = 1000;
	CHECK_EQ_U64(ts_fsmeta_alloc(m, &cur, 4500, r, 1), 4);
	CHECK_EQ_U64(r[0].pblk, 1000);
	CHECK_EQ_U64(r[0].len, 24);
	/* the disk's end: what does not fit is not placed */
	cur = 8000;
	CHECK_EQ_U64(ts_fsmeta_alloc(m, &cur, 1000, r, TS_FSMETA_RUNS), 1);
	CHECK_EQ_U64(r[0].len, 192); /* group 7's backup (7,168) lies behind */
	CHECK_EQ_U64(cur, 8192);
	ts_fsmeta_free(m);
}

int main(void)
{
	char err[512];
	struct ts_tier_set *set = NULL;
	if (ts_tier_set_load_default(&set, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	ext4 = ts_tier_set_fs(set, TS_FSMETA_NAME);
	CHECK(ext4 != NULL);
	if (!ext4)
		return tc_exit();
	test_lookup();
	test_data_layout();
	test_window_edge();
	test_layout_mkfs();
	test_geom();
	test_window_absolute();
	test_relayout();
	test_mount_cap();
	test_many_folders();
	test_inode_alone();
	test_list_and_extent();
	test_htree();
	test_dx_index();
	test_linear_split();
	test_path();
	test_journal();
	test_journal_rename();
	test_journal_link();
	test_journal_htree();
	test_charge();
	test_declared(set);
	ts_tier_set_free(set);
	return tc_exit();
}
