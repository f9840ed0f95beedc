/*
 * fsmeta.h — what a real file system reads from the disk for a file-level
 * metadata op: the rule FUSE mode (tierfs), the replay of a file-level
 * trace and the virtual loader share, so that the three charge what block
 * mode (ext4 on the emulated disk, disk/) shows the kernel does.
 *
 * A file-level op names a path; ext4 turns it into reads of 4 KiB blocks
 * the page cache then keeps, shared by neighbouring files:
 *   - a name looked up in a directory reads the directory's blocks. A
 *     linear directory is scanned block by block with up to 8 blocks read
 *     ahead (fs/ext4/namei.c, NAMEI_RA_BLOCKS): the rule reads all of
 *     them at its first lookup, 8 at a time, each block a request of its
 *     own (mkfs.ext4 -d puts each folder block after the data of the
 *     files the block before names, so no two are adjacent), the 8 sent
 *     at once. mkfs.ext4 -d (e2fsprogs 1.47, what tiersim disk make
 *     runs) makes every folder linear, however large: a replay and the
 *     virtual loader, whose layout is mkfs.ext4 -d's, charge folders as
 *     linear; so does tierfs, from the names the backing folder lists
 *     (ts_fsmeta_dir_blocks: the emulated disk holds the tree as
 *     tiersim disk make copies it in, not as the host's file system
 *     holds it, where a folder of 2,000 names is an htree of 12 blocks
 *     and mkfs.ext4 -d makes 8 linear ones). The kernel indexes a folder
 *     (htree) when a name added to it no longer fits its one block
 *     (ext4_add_entry, make_indexed_dir), as for a folder filled on a
 *     mounted disk; the rule charges one so given (htree set) thus. A
 *     lookup in an htree folder
 *     reads its root block (block 0, the hash index), the index block
 *     under it when the folder has more leaves than the root holds
 *     (dx_probe's second level), and the one leaf block the name's hash
 *     falls in, each once, one block a request (ext4_read_dirblock); a
 *     readdir reads all its blocks. Block-mode traces (bench/big_dirs.sh,
 *     ssd-cloud, cold; every file of the folder opened, in its storage
 *     order and shuffled):
 *       mkfs.ext4 -d, 20,000 files (fitted): no index, 158 blocks and
 *         the folder's extent-tree leaf in 159 places, 159 requests of a
 *         block in storage order, 168 shuffled; the rule 162 (its size
 *         estimate, ts_fsmeta_dir_blocks, pads each name by 3 bytes);
 *       mkfs.ext4 -d, 1,300 and 40,000 files (checked): no index, 9 and
 *         315 blocks and the leaf, 10 requests in either order and 316
 *         in storage order; the rule 10 and 323;
 *       copied onto the mounted image, 1,300, 20,000 and 100,000 files
 *         (checked): htree, 16, 226 and 1,128 blocks (the last with a
 *         second level: 4 index blocks under the root, as the rule's
 *         ts_fsmeta_dx_index), 16,
 *         226 and 1,128 requests in either order (1,129 in storage
 *         order); the rule the folder's blocks, one request each (given
 *         its size, htree).
 *     Misses: a shuffled scan of a linear folder reads a few blocks twice
 *     (168 for 159) and costs the kernel CPU per name passed (the opens
 *     took 17 and 19 times as long shuffled as in storage order, two
 *     runs on a loaded host; not charged); in storage order the kernel reads a block a lookup as the
 *     scan reaches it, one at a time, where the rule reads them all at
 *     the first lookup, 8 at a time; a linear folder's extent-tree leaf
 *     (past 4 extents) is not charged;
 *   - the inode it names is read with its inode-table block, which holds
 *     block / inode_size inodes (16 with 256-byte inodes), and ext4 reads
 *     inode_readahead_blks (32) aligned blocks of the table at once and
 *     the next one (fs/ext4/inode.c, __ext4_get_inode_loc: `while (b <=
 *     end)`), no further than the last inode in use, skipping blocks in
 *     memory: 33 blocks for the first inode of a fresh window, 32 for
 *     the next window's (block-mode trace, 1 GiB image made by tiersim
 *     disk make: the root's inode read table blocks 145-177 at mount);
 *   - the mount reads the root's inode (ext4_fill_super's ext4_iget) with
 *     its window before any job's request (block-mode traces of a read-
 *     only mount, after the superblock and blocks 0-1: the root's table
 *     block t and t+1..t+32 as one 128 KiB readahead, at 1, 2 and 3 GiB):
 *     the rule counts those blocks read at the first inode read, charged
 *     to no one, in the layout known then, capped at the last inode in
 *     use as the kernel caps it from the image's own count (a count set
 *     only after that read, ts_fsmeta_set_inodes, caps it then: the
 *     blocks past it count as unread again);
 *   - a name that is not there reads its folder's blocks (ext4_find_entry
 *     scans a linear folder whole, an htree folder's leaf of the name's
 *     hash) and no inode (block-mode trace: a stat of e/nosuch read the
 *     root's block, e's inode-table blocks and e's one block, as a stat
 *     of e/g0 did);
 *   - a readdir reads the directory's blocks (the same ones);
 *   - a file's extents live in its inode up to 4 of them (128 MiB each);
 *     a larger file reads one extent-tree leaf per 340 extents at its
 *     first read there.
 * Each read is one request on the metadata "file" TS_FSMETA_FILE, at an
 * offset unique to the block, of the block's bytes; nothing is read twice
 * (the kernel keeps metadata blocks while it has any memory: assumed, they
 * are 1/16 KiB per file). Names made or changed (create, unlink,
 * rename...) cost their folder's and inode's reads here and no write of
 * their own: the blocks they change join the journal's running
 * transaction, which is written at its commit (below).
 *
 * Which inodes are neighbours is the caller's, and each numbers paths as
 * mkfs.ext4 -d (tiersim disk make) numbers the tree it copies: the root
 * root_inode, then depth first from first_inode + 1, with the inodes in
 * use (ts_fsmeta_set_inodes) ending at the last: tierfs numbers the whole
 * backing tree from mount, in a thread of its own, a lookup before the
 * walk reaches it numbering its own path's folders from their counts
 * (fs/timing.c; its own inode numbers are the host
 * file system's, scattered among every other file there), a replay with
 * the numbers its trace's paths carry (version 11: tierfs's own, above)
 * or, in a trace without them, the paths of its trace in sorted order,
 * the virtual loader the storage order.
 */
#ifndef TS_TIER_FSMETA_H
#define TS_TIER_FSMETA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/ts.h"
#include "tier/tier.h"

/* The file id the model sees metadata reads under. */
#define TS_FSMETA_FILE (UINT64_MAX - 1)

/* The layout (struct ts_fsmeta_params) and the profiles' file systems
 * (ts_tier_set_fs) are tier_base.h's. */

/* A file or directory as the rule needs it: @key unique per node (any
 * stable id), @ino its inode number or rank (neighbours share blocks),
 * @blocks a directory's blocks (0 for a file), @htree a directory
 * hash-indexed (ext4's dir_index, EXT4_INDEX_FL; below). */
struct ts_fsmeta_node {
	uint64_t key, ino, blocks;
	bool htree;
};

/* One metadata read to charge: TS_FSMETA_FILE at @off, @len bytes; with
 * @split, @len / @split requests of @split bytes each, sent at once and
 * waited for together (a linear folder's blocks read ahead, each at its
 * own place on the disk: below). @ahead: readahead, sent at once with the
 * read after it and not waited for (the inode table's around an inode's
 * own block: ts_fsmeta_charge). */
struct ts_fsmeta_io {
	uint64_t off, len, split;
	bool ahead;
};
#define TS_FSMETA_MAX_IO 16

struct ts_fsmeta;

TS_WUR int ts_fsmeta_new(const struct ts_fsmeta_params *p, struct ts_fsmeta **out);
void ts_fsmeta_free(struct ts_fsmeta *m);
/* From now on one thread makes every call (a virtual run): no locking. */
void ts_fsmeta_serial(struct ts_fsmeta *m);
/* Inodes in use, when known (0 = not): inode-table readahead stops there,
 * as ext4's stops at the group's last used inode; the mount's window too,
 * when it was read before the count was set (at the next inode read). */
void ts_fsmeta_set_inodes(struct ts_fsmeta *m, uint64_t used);

/* The disk is @bytes large: its inode tables lie where mke2fs puts them
 * for that size (flex_bg, 16 groups' tables packed together), its block
 * size is mke2fs's for it (1 KiB below 512 MiB: the "small" type of
 * /etc/mke2fs.conf; checked against mkfs.ext4 at 100 MiB-2 TiB), and
 * the inode table's readahead windows are aligned on the disk's block
 * numbers, as the kernel aligns them. Not called (or 0): one table from
 * block 0, the windows aligned on its start. Called again (a capacity
 * changed at run time: tierfs's control file), the tables are laid out
 * again for the new size, and a block of the new layout is in memory
 * when every inode in it was in a block read before (the kernel keeps
 * the inodes it read; tier/fsmeta.c, relayout). */
void ts_fsmeta_set_capacity(struct ts_fsmeta *m, uint64_t bytes);
/* A file system's geometry, as its ext4 superblock gives it: what
 * ts_fsmeta_set_capacity derives from a size (mke2fs's defaults), or
 * what an image holds (ts_fsmeta_geom_read: made with other options, or
 * by another mke2fs), for ts_fsmeta_set_geom. The trace format carries
 * it (traces/FORMAT.md, version 12). */
struct ts_fsmeta_geom {
	uint64_t blocks;     /* s_blocks_count */
	uint32_t block;	     /* bytes (1024 << s_log_block_size) */
	uint32_t bpg, ipg;   /* blocks and inodes per group */
	uint32_t inode_size; /* bytes */
	uint32_t rsv_gdt;    /* reserved descriptor blocks (resize_inode) */
	uint32_t desc_size;  /* a group descriptor's bytes: 32, 64 with 64bit */
	uint32_t flex;	     /* groups per flex group (flex_bg), 1 without */
};
/* mke2fs's geometry for a disk of @bytes (its defaults: the rule of
 * ts_fsmeta_set_capacity), with inodes of @inode_size bytes (0: 256). */
void ts_fsmeta_geom_of(uint64_t bytes, unsigned inode_size, struct ts_fsmeta_geom *g);
/* The geometry of the ext4 file system in @image (its superblock at byte
 * 1024). 0, or -errno with one line in @err: no ext4 there (an xfs
 * image), or a layout the rule does not follow (no sparse_super, bigalloc). */
TS_WUR int ts_fsmeta_geom_read(const char *image, struct ts_fsmeta_geom *g, char *err,
			       size_t errlen);
/* The inode tables laid out for @g, as ts_fsmeta_set_capacity does for a
 * size (and again, as there, after lookups). */
void ts_fsmeta_set_geom(struct ts_fsmeta *m, const struct ts_fsmeta_geom *g);
/* The block size the rule reads with (the layout's, or @p's). */
uint64_t ts_fsmeta_block(const struct ts_fsmeta *m);

/*
 * Where a file's data lies: the data-layout rule. tiersim disk make
 * --from DIR runs mkfs.ext4 -d, which copies DIR into the empty file
 * system in one pass (e2fsprogs 1.47, misc/create_inode.c): depth first,
 * each folder's names in byte order, a file's data written whole as its
 * name is reached, a folder's first block as it is made; each block is
 * the first free one from where the last went (ext2fs_new_block2 from
 * the goal of the flex group's start, every block before it taken), so
 * the tree lies in one stream from just after the first flex group's
 * inode tables (ts_fsmeta_data_first: after the root's block, lost+found's
 * 16 KiB and the resize inode's block), skipping what mke2fs took before:
 *   - the superblock backups, each with the group descriptors and the
 *     reserved descriptor blocks (sparse_super: groups 1 and the powers
 *     of 3, 5 and 7, at their first block), 1 + gdt + rsv_gdt blocks;
 *   - each later flex group's bitmaps and inode tables, at its start;
 *   - the journal (mke2fs's size for the disk, ext2fs_default_journal_size,
 *     at the first block of the group mke2fs picks near the middle).
 * A file that runs into one of them goes on after it: ext4 maps it in two
 * extents with a gap between, and the kernel sends a readahead window
 * over the gap as two requests (mpage_readahead ends a bio where the disk
 * blocks stop following each other). Block-mode traces (2 GiB image of
 * bench/fs_fidelity.sh, sixteen 32,768-block groups, 255 reserved
 * descriptor blocks): the folder job's one file at group 1's backup (its
 * blocks 32,752-32,767 and 33,025-33,028), the check job's at group 3's
 * (98,279-98,303, 98,561-98,574) and data.mdb at group 5's (to 163,839,
 * on from 164,097), each read in two requests where the window crossed.
 * Modeled: the order, the regions skipped, a folder's growth (a name that
 * no longer fits its last block, of block - 12 bytes with metadata_csum's
 * tail, takes the next free block then; ".", ".." take 24 bytes, the
 * root's lost+found 20 more). Assumed: every inode in the first flex
 * group (the goal stays there: true below 16 x inodes per group files),
 * files dense (no holes), no inline data, symbolic links and devices
 * holding no data blocks; the extent length cap (32,768 blocks) splits a
 * file where the disk blocks still follow, which costs no request and is
 * not kept. Checked only on images tiersim disk make made with mke2fs's
 * defaults (4 KiB blocks).
 */
struct ts_fsmeta_run {
	uint64_t lblk, pblk, len; /* the file's blocks [lblk, lblk + len) at disk block pblk on */
};
#define TS_FSMETA_RUNS 8
/* A file of a tree as the rule places it: @path from the tree's root
 * ("/a/b"), @nruns its runs (more than TS_FSMETA_RUNS: the first ones
 * kept). */
struct ts_fsmeta_file {
	char *path;
	uint64_t size;
	unsigned nruns;
	struct ts_fsmeta_run run[TS_FSMETA_RUNS];
};
struct ts_fsmeta_tree {
	struct ts_fsmeta_file *f; /* sorted by path (strcmp) */
	size_t n;
	uint64_t block; /* the block size they were placed with */
};
/* The first block the copy takes (0 when @m has no layout: neither
 * ts_fsmeta_set_capacity nor ts_fsmeta_set_geom called). */
uint64_t ts_fsmeta_data_first(const struct ts_fsmeta *m);
/* @blocks blocks taken from *@cursor on, as the allocator above takes
 * them: their runs into @out (at most @max; the count of all returned),
 * *@cursor moved past them. A run stops where a metadata region starts. */
unsigned ts_fsmeta_alloc(const struct ts_fsmeta *m, uint64_t *cursor, uint64_t blocks,
			 struct ts_fsmeta_run *out, unsigned max);
/* Every file of folder @dir placed as tiersim disk make --from @dir
 * places it in the layout of @m. 0, or -errno with one line in @err. */
TS_WUR int ts_fsmeta_tree_new(const struct ts_fsmeta *m, const char *dir,
			      struct ts_fsmeta_tree **out, char *err, size_t errlen);
void ts_fsmeta_tree_free(struct ts_fsmeta_tree *t);
/* @path's file in @t, or NULL. */
const struct ts_fsmeta_file *ts_fsmeta_tree_find(const struct ts_fsmeta_tree *t, const char *path);
/* The first byte offset in (@off, @end) where @f's disk blocks stop
 * following each other (blocks of @block bytes), else @end: a request
 * the kernel sends over [off, end) ends there. */
uint64_t ts_fsmeta_file_break(const struct ts_fsmeta_file *f, uint64_t block, uint64_t off,
			      uint64_t end);

/* @child looked up in @parent: the reads it costs now (0 when everything
 * is already in memory), at most @max into @out (a directory of more
 * batches has its last ones merged). */
unsigned ts_fsmeta_lookup(struct ts_fsmeta *m, const struct ts_fsmeta_node *parent,
			  const struct ts_fsmeta_node *child, struct ts_fsmeta_io *out,
			  unsigned max);
/* The part of ts_fsmeta_lookup(@m, @parent, @child) that is @child's
 * inode alone: the whole of it once a linear folder @parent (htree false)
 * has had a lookup in @m (its blocks are read once and stay; an htree
 * folder's lookup reads the leaf its child's name hashes to). */
unsigned ts_fsmeta_inode(struct ts_fsmeta *m, const struct ts_fsmeta_node *child,
			 struct ts_fsmeta_io *out, unsigned max);
/* ts_fsmeta_lookup(@m, @parent, @child) will come soon: starts loading
 * the records it reads (__builtin_prefetch). Changes nothing. @parent
 * NULL: ts_fsmeta_inode(@m, @child) will. */
void ts_fsmeta_prefetch(struct ts_fsmeta *m, const struct ts_fsmeta_node *parent,
			const struct ts_fsmeta_node *child);
/* A readdir of @dir: its blocks not read yet. */
unsigned ts_fsmeta_list(struct ts_fsmeta *m, const struct ts_fsmeta_node *dir,
			struct ts_fsmeta_io *out, unsigned max);
/* A data read at @off of file @key of @size bytes: its extent-tree leaf
 * when the file has more extents than its inode holds. */
unsigned ts_fsmeta_extent(struct ts_fsmeta *m, uint64_t key, uint64_t size, uint64_t off,
			  struct ts_fsmeta_io *out, unsigned max);

/*
 * A whole path ("/a/b/c"): every component not seen before is looked up in
 * its parent, @stat telling what it is (0, or -errno to stop there:
 * -ENOENT, the parent is scanned for the name, its blocks read as for a
 * lookup, and no inode; any other error, nothing more). With @list,
 * the last component's blocks are read too (readdir).
 */
typedef int (*ts_fsmeta_stat_fn)(void *ctx, const char *path, size_t len,
				 struct ts_fsmeta_node *out);
unsigned ts_fsmeta_path(struct ts_fsmeta *m, const char *path, bool list, ts_fsmeta_stat_fn stat,
			void *ctx, struct ts_fsmeta_io *out, unsigned max);

/* Index blocks under the root of an htree directory of @blocks blocks
 * (0: the root indexes the leaves itself), as ext4_dx_add_entry grows
 * them: one when the root first fills, then doubling as they fill
 * together (tier/fsmeta.c). */
uint64_t ts_fsmeta_dx_index(const struct ts_fsmeta_params *p, uint64_t blocks);

/* Blocks of a linear directory of @entries names of @name_bytes in all. */
uint64_t ts_fsmeta_dir_blocks(const struct ts_fsmeta_params *p, uint64_t entries,
			      uint64_t name_bytes);

/*
 * The journal (jbd2). An op that makes or changes a name changes blocks
 * in memory; the journal writes each once per transaction at its commit,
 * every journal_commit_ns or at an fsync (which waits for it). The blocks
 * (assumed; test_fsmeta checks them against a block-mode trace: 2,000
 * creates in one folder, then 1,000 renames and 1,000 unlinks of every
 * other file, committed 144, 143 and 143 blocks with their descriptors,
 * the rule 139, 135 and 139):
 *   - a make (create, mkdir, mknod, symlink): the new inode's table block
 *     (inodes made one after the other from the folder's), the folder's
 *     block the name is added to (its last, moved on by the names made in
 *     it: dirent_base + the name rounded up to 4 bytes each);
 *   - a remove (unlink, rmdir) or change (rename): the inode's
 *     table block and one of the folder's blocks (which one holds the name
 *     is not known here: the path's hash picks one); a rename into
 *     another folder also that folder's last block (the name added) and
 *     its inode block, and a folder moved its first block (".."): a
 *     block-mode trace of 1,000 renames from one folder into an empty
 *     one, then 1,000 within a third, synced after each, journalled 76
 *     and 68 blocks; the rule 73 and 69 (70 and 69 without the second
 *     folder);
 *   - a link: the file's inode block (its link count) and the new
 *     folder's last block (the name added, as a make's), also when it is
 *     the old folder, which is not otherwise changed (ext4_link; no trace
 *     of links measured);
 *   - each: the (new) folder's own inode block (its times); a make or remove
 *     also the allocation blocks (superblock, group descriptors, inode
 *     and block bitmaps: 4).
 * A commit writes a descriptor block per 255 blocks (jbd2's 16-byte tags)
 * and the blocks, one after the other in the journal, in requests of
 * journal_request at most; then a flush, the commit block, a flush.
 *
 * Writing the blocks in place (jbd2's checkpoint) is not charged. Block
 * mode shows ext4 writes every journalled block once more, at its own
 * place, merged by position (block-mode traces, 1 GiB ext4 image on
 * ssd-cloud, kernel 6.18: 2,000 creates in one folder journalled 142
 * blocks with their descriptor, commit block and the journal's
 * superblock, then wrote the same 142 in place in 6 requests: the
 * superblock and group descriptor, both bitmaps, 126 inode-table blocks,
 * the folder's inode block and its 11 blocks; 1,000 renames and 1,000
 * unlinks in that folder next journalled 144 and wrote the same 144 in
 * place in 5 requests; the renames above, 74 after 76). They go either
 *   - in the background, 25-35 s after the commit with no sync (the
 *     flusher writes the device's dirty buffers once the oldest is
 *     dirty_expire_centisecs old, 30 s by default, on its 5 s tick): the
 *     creates' 142 blocks 35 s after their commit in the same 6 requests,
 *     the renames' and unlinks' 144 blocks 25 s after theirs; or
 *   - at a whole-mount sync (sync(2), syncfs(2)) before then, which
 *     commits the running transaction, writes them and flushes (1.4 s
 *     after the creates: 6 journal writes of 146 blocks, 142 blocks in
 *     place in 7 requests, 11 flushes); a sync after the background
 *     write only updates the superblocks (3 one-block writes, 10
 *     flushes).
 * A user's sync is not charged because nothing that drives the model sees
 * it: FUSE does not pass it on (fuse_sync_fs sends FUSE_SYNCFS only where
 * the connection asked for it, which virtiofs alone does, and libfuse 3.14
 * has no syncfs op at all), so tierfs gets no request (a FUSE-mode trace
 * of the same 2,000 creates holds only the sync command's own two getattrs
 * at `sync -f`, no write or fsync), its trace holds no record for
 * a replay to charge, and no scenario step syncs (a scenario's jobs are
 * its loaders, preprocess{}, which fdatasyncs its LMDB, and DLIO). What
 * would be needed: tiersim record seeing the command's sync(2) and
 * syncfs(2) (a syscall tracepoint beside the wake capture's, on the
 * recorded tree), a trace record of it, and a replay charging there the
 * running transaction's commit, the blocks committed and not yet written
 * back, in place, and a flush. The background writes are the larger
 * miss, and need no sync seen: charging them when due, as the commit is
 * (traces/tier_rule.h), needs where ext4 puts each block (for the
 * merging into 5-7 requests: inode tables and folders are contiguous,
 * the rule's blocks are not) and when the device's buffers were first
 * dirtied (the flusher's clock is per device, not per block); not built.
 * In block mode both are the real file system's and are charged as the
 * device's writes.
 */
enum ts_fsmeta_change { TS_FSMETA_MAKE, TS_FSMETA_REMOVE, TS_FSMETA_CHANGE, TS_FSMETA_LINK };
/* @what was done on @path (absolute) at @now: its blocks join the running
 * transaction (@stat as for ts_fsmeta_path; nothing when a component is
 * missing). @to: a rename's or link's new name (else NULL); a rename
 * into another folder adds that folder's last block and inode block, and
 * a folder moved its own first block (".."); a link dirties its new
 * folder's (in any folder: none when unknown), never the old one's. */
void ts_fsmeta_dirty(struct ts_fsmeta *m, uint64_t now, enum ts_fsmeta_change what,
		     const char *path, const char *to, ts_fsmeta_stat_fn stat, void *ctx);
/* The running transaction's commit when due: at once with @sync (an
 * fsync), else once journal_commit_ns have passed since its first change
 * (by @now). Writes its requests into @out (at most @max, the last the
 * commit block) and when it starts into *@at, and empties the
 * transaction. 0 when none is due. */
unsigned ts_fsmeta_commit(struct ts_fsmeta *m, uint64_t now, bool sync, uint64_t *at,
			  struct ts_fsmeta_io *out, unsigned max);
/* Charges a commit's @n writes from @at, as jbd2 with barriers sends them:
 * all but the last at once, a flush, the commit block, a flush. Returns
 * when the last flush completes. @floor_ns as for ts_fsmeta_charge. */
uint64_t ts_fsmeta_charge_commit(struct ts_tier *t, uint64_t at, uint64_t floor_ns,
				 const struct ts_fsmeta_io *io, unsigned n, struct ts_tier_done *done);

/* Submits @n reads one after the other (each waits for the one before, as
 * a path walk does; a split one's requests all at once) from @now; returns
 * when the last completes (@now when n = 0). @floor_ns: the per-request
 * overhead the caller pays once for the whole op (the model takes it off
 * every request). */
uint64_t ts_fsmeta_charge(struct ts_tier *t, uint64_t now, uint64_t floor_ns,
			  const struct ts_fsmeta_io *io, unsigned n, struct ts_tier_done *done);

#endif
