/* fsmeta.c — a real file system's metadata reads (see fsmeta.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>
#include <unistd.h>

#include "tier/fsmeta.h"

/* The layout's figures, each with its evidence, are tier/tiers.lua's
 * filesystem "ext4" (read by tier/profile.c). */

enum { K_NODE = 1, K_ITAB, K_DIR, K_EXT, K_ALLOC, K_JOURNAL, K_DXB };

#define DSEEN 4096 /* folders remembered as read (ImageNet has 1,000 classes) */

struct slot {
	uint64_t key; /* 0 = empty */
	uint64_t ino, blocks;
	bool htree;
	uint64_t added; /* a folder: bytes of the names made in it since it was seen */
};

struct ts_fsmeta {
	struct ts_fsmeta_params p;
	pthread_mutex_t mu;
	bool serial; /* one thread calls: no locking */
	struct slot *s;
	size_t cap, n; /* cap a power of two */
	uint64_t inodes;
	/* the journal's running transaction: the blocks it changed (a set,
	 * cap a power of two, 0 = empty), since when, and the inodes made
	 * in it; where the journal writes next (blocks, wrapping) */
	uint64_t *jset;
	size_t jcap, jn;
	uint64_t jsince, jmade, jpos;
	uint64_t per_blk; /* inodes per inode-table block */
	/* where mke2fs put the inode tables (ts_fsmeta_set_capacity,
	 * ts_fsmeta_set_geom; sized false: not known, one table from block
	 * 0); flex: groups a flex group packs (flex_bg, 1 without it) */
	bool sized;
	uint64_t first_data, bpg, groups, ipg, itb, gdt, rsv, flex;
	uint64_t nblocks; /* the file system's blocks (s_blocks_count) */
	/* the highest inode whose table block a lookup read (0: none yet) */
	uint64_t hi_ino;
	/* the root's inode read (at mount: inode_read) */
	bool mounted;
	/* the mount read the root's window before the inodes in use were
	 * known (mount_cap): the last inode of its last block */
	bool mount_open;
	uint64_t mount_ino;
	/* log2(per_blk) when it is a power of two (ext4's 16), else -1: an
	 * inode's block is a shift, not a 64-bit division (tens of cycles,
	 * three per file opened in a virtual run) */
	int blk_shift;
	/* log2(ipg) when it is a power of two (mke2fs's 8192), else -1 */
	int ipg_shift;
	/* table_of of each of the first tab_n groups, made by layout (NULL,
	 * 0: not made, computed each time): two lookups a file opened in a
	 * virtual run (ts_fsmeta_prefetch, inode_read) read it, not the flex
	 * group's arithmetic. Read and made under the lock. */
	uint64_t *tab;
	uint64_t tab_n;
	/* Inode-table blocks ((ino - 1) / per_blk) below ITAB_BITS already
	 * read: a bit each, grown as higher blocks are read. A file's open
	 * tests its block's bit, not a hash probe in a table of every
	 * directory and block (a few KiB for 1.3M inodes). Blocks from
	 * ITAB_BITS up are keys of the table. */
	uint8_t *itab;
	uint64_t itab_bytes;
	/* Keys of folders already read, direct-mapped by the key's low bits
	 * (0 = none): a folder's blocks are read once, and a lookup in one
	 * already read (every file's open but the folder's first) is told so
	 * by one compare instead of a probe of the table above. Only keys the
	 * table holds go in; the table never drops a folder's. */
	uint64_t dseen[DSEEN];
};

#define ITAB_BITS (1ULL << 24)

static void lock(struct ts_fsmeta *m)
{
	if (!m->serial)
		pthread_mutex_lock(&m->mu);
}

static void unlock(struct ts_fsmeta *m)
{
	if (!m->serial)
		pthread_mutex_unlock(&m->mu);
}

static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static uint64_t key_of(unsigned kind, uint64_t id)
{
	uint64_t k = (mix(id) >> 4) | ((uint64_t)kind << 60);
	return k ? k : 1;
}

/* The slot of @key, or the empty one it would go in. */
static struct slot *find(struct ts_fsmeta *m, uint64_t key)
{
	size_t i = key & (m->cap - 1);
	while (m->s[i].key && m->s[i].key != key)
		i = (i + 1) & (m->cap - 1);
	return &m->s[i];
}

/* Inserts @key unless present; NULL when out of memory (the read is then
 * charged again later: timing only). */
static struct slot *add(struct ts_fsmeta *m, uint64_t key, bool *fresh)
{
	*fresh = false;
	if (2 * (m->n + 1) > m->cap) {
		size_t cap = m->cap * 2;
		struct slot *ns = calloc(cap, sizeof(*ns)), *old = m->s;
		size_t oc = m->cap;
		if (!ns)
			return NULL;
		m->s = ns;
		m->cap = cap;
		for (size_t i = 0; i < oc; i++)
			if (old[i].key)
				*find(m, old[i].key) = old[i];
		free(old);
	}
	struct slot *s = find(m, key);
	*fresh = !s->key;
	if (*fresh) {
		s->key = key;
		m->n++;
	}
	return s;
}

/* True the first time @kind/@id is seen. */
static bool first(struct ts_fsmeta *m, unsigned kind, uint64_t id)
{
	bool fresh = false;
	return add(m, key_of(kind, id), &fresh) && fresh;
}

int ts_fsmeta_new(const struct ts_fsmeta_params *p, struct ts_fsmeta **out)
{
	struct ts_fsmeta *m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->p = *p;
	m->per_blk = p->inode_size ? p->block / p->inode_size : 0;
	m->blk_shift = m->per_blk && !(m->per_blk & (m->per_blk - 1)) ? __builtin_ctzll(m->per_blk)
								      : -1;
	m->cap = 256;
	m->s = calloc(m->cap, sizeof(*m->s));
	if (!m->s || pthread_mutex_init(&m->mu, NULL)) {
		free(m->s);
		free(m);
		return -ENOMEM;
	}
	*out = m;
	return 0;
}

void ts_fsmeta_free(struct ts_fsmeta *m)
{
	if (!m)
		return;
	pthread_mutex_destroy(&m->mu);
	free(m->s);
	free(m->jset);
	free(m->itab);
	free(m->tab);
	free(m);
}

void ts_fsmeta_serial(struct ts_fsmeta *m)
{
	m->serial = true;
}

void ts_fsmeta_set_inodes(struct ts_fsmeta *m, uint64_t used)
{
	/* not under the lock: tierfs sets it from the thread that numbers
	 * its tree while a lookup may hold the lock (fs/timing.c) */
	__atomic_store_n(&m->inodes, used, __ATOMIC_RELEASE);
}

/* Appends a read (of requests of @split bytes each, 0: one request),
 * merging into the last one when @out is full. */
static void put_split(struct ts_fsmeta_io *out, unsigned *n, unsigned max, uint64_t off,
		      uint64_t len, uint64_t split)
{
	if (!max)
		return;
	if (*n == max) {
		out[max - 1].len += len;
		return;
	}
	out[(*n)++] = (struct ts_fsmeta_io){ off, len, split };
}

static void put(struct ts_fsmeta_io *out, unsigned *n, unsigned max, uint64_t off, uint64_t len)
{
	put_split(out, n, max, off, len, 0);
}

/* True the first time inode-table block @b is read (false, the read
 * charged again later, when out of memory: timing only). */
static bool itab_first(struct ts_fsmeta *m, uint64_t b)
{
	if (b >= ITAB_BITS)
		return first(m, K_ITAB, b);
	uint64_t byte = b / 8;
	if (byte >= m->itab_bytes) {
		uint64_t nb = TS_MAX(2 * m->itab_bytes, TS_MAX(byte + 1, 64));
		uint8_t *p = realloc(m->itab, nb);
		if (!p)
			return false;
		memset(p + m->itab_bytes, 0, nb - m->itab_bytes);
		m->itab = p;
		m->itab_bytes = nb;
	}
	uint8_t bit = (uint8_t)(1U << (b % 8));
	if (m->itab[byte] & bit)
		return false;
	m->itab[byte] |= bit;
	return true;
}

static void group_of(const struct ts_fsmeta *m, uint64_t ino, uint64_t *t, uint64_t *num,
		     uint64_t *idx);

/* Inode @ino's block of the table: its block on the disk (below). */
static inline uint64_t blk_of(const struct ts_fsmeta *m, uint64_t ino)
{
	uint64_t t, num, i;
	group_of(m, ino, &t, &num, &i);
	return t + (m->blk_shift >= 0 ? i >> m->blk_shift : i / m->per_blk);
}

/* Whether inode-table block @b has been read. */
static bool itab_read(const struct ts_fsmeta *m, uint64_t b)
{
	if (b >= ITAB_BITS) {
		size_t i = key_of(K_ITAB, b) & (m->cap - 1);
		while (m->s[i].key && m->s[i].key != key_of(K_ITAB, b))
			i = (i + 1) & (m->cap - 1);
		return m->s[i].key != 0;
	}
	return b / 8 < m->itab_bytes && (m->itab[b / 8] & (1U << (b % 8)));
}

/* Region of the metadata file each kind of block lies in (offsets only
 * have to be unique and block-aligned). */
static uint64_t region(unsigned kind, uint64_t blk, unsigned block)
{
	return ((uint64_t)kind << 52) + (blk & ((1ULL << 40) - 1)) * block;
}

/* ---- Where mke2fs puts the inode tables --------------------------------- */

/* Whether group @g holds a backup of the superblock (sparse_super: groups
 * 0, 1 and the powers of 3, 5 and 7). */
static bool has_super(uint64_t g)
{
	if (g <= 1)
		return true;
	for (uint64_t b = 3; b <= 7; b += 2) {
		uint64_t x = b;
		while (x < g)
			x *= b;
		if (x == g)
			return true;
	}
	return false;
}

/* mke2fs's layout of a disk of @bytes (e2fsprogs 1.47, /etc/mke2fs.conf's
 * defaults and its size types: "small" below 512 MiB, 1 KiB blocks and an
 * inode per 4 KiB; "big" from 4 TiB, an inode per 32 KiB; "huge" from 16
 * TiB, per 64 KiB; else 4 KiB blocks, an inode per 16 KiB; inode_size 256
 * in every type; lib/ext2fs/initialize.c: groups of 8 x block blocks,
 * inodes per group filling whole table blocks and a multiple of 8, a last
 * group smaller than its overhead + 50 blocks dropped, the reserved
 * descriptor blocks for growth to 1,024 times the size, at most block / 4).
 * Checked against mkfs.ext4 at 100 MiB-2 TiB (tier/fsmeta.h). */
void ts_fsmeta_geom_of(uint64_t bytes, unsigned inode_size, struct ts_fsmeta_geom *g)
{
	unsigned bs = bytes < (512ULL << 20) ? 1024 : 4096;
	uint64_t ratio = bytes < (512ULL << 20)	 ? 4096
			 : bytes < (4ULL << 40)	 ? 16384
			 : bytes < (16ULL << 40) ? 32768
						 : 65536;
	uint64_t isz = inode_size ? inode_size : 256;
	uint64_t blocks = bytes / bs, inodes = blocks * bs / ratio;
	uint64_t first_data = bs == 1024, bpg = 8ULL * bs, ipg, rsv;
	for (;;) {
		uint64_t groups = (blocks - first_data + bpg - 1) / bpg;
		if (!groups)
			groups = 1;
		ipg = (inodes + groups - 1) / groups;
		if (ipg > 8ULL * bs)
			ipg = 8ULL * bs;
		uint64_t itb = (ipg * isz + bs - 1) / bs;
		ipg = (itb * bs / isz) & ~7ULL;
		ipg = ipg ? ipg : 8;
		itb = (ipg * isz + bs - 1) / bs;
		uint64_t gdpb = bs / 64; /* 64-byte descriptors (64bit) */
		uint64_t gdt = (groups + gdpb - 1) / gdpb;
		uint64_t maxb = blocks < 0xffffffffULL / 1024 ? blocks * 1024 : 0xffffffffULL;
		uint64_t rsv_groups = (maxb - first_data + bpg - 1) / bpg;
		rsv = (rsv_groups + gdpb - 1) / gdpb;
		rsv = rsv > gdt ? rsv - gdt : 0;
		rsv = TS_MIN(rsv, (uint64_t)bs / 4);
		uint64_t over = 3 + itb + rsv, rem = (blocks - first_data) % bpg;
		if (has_super(groups - 1))
			over += 1 + gdt + rsv;
		if (groups == 1 || !rem || rem >= over + 50)
			break;
		blocks -= rem;
	}
	*g = (struct ts_fsmeta_geom){ .blocks = blocks, .block = bs, .bpg = (uint32_t)bpg,
				      .ipg = (uint32_t)ipg, .inode_size = (unsigned)isz,
				      .rsv_gdt = (unsigned)rsv, .desc_size = 64, .flex = 16 };
}

/* The layout of geometry @g (ts_fsmeta_geom_of's for a size, or an
 * image's own: ts_fsmeta_geom_read). */
static uint64_t table_of(const struct ts_fsmeta *m, uint64_t g);

/* The groups whose inode tables' first blocks layout keeps (an 8 TiB file
 * system of 4 KiB blocks; 512 KiB). */
#define TAB_MAX (1u << 16)

static void layout(struct ts_fsmeta *m, const struct ts_fsmeta_geom *g)
{
	uint64_t bs = g->block, isz = g->inode_size;
	m->p.block = g->block;
	m->p.inode_size = g->inode_size;
	m->per_blk = bs / isz;
	m->blk_shift = !(m->per_blk & (m->per_blk - 1)) ? __builtin_ctzll(m->per_blk) : -1;
	m->first_data = bs == 1024;
	m->bpg = g->bpg;
	m->groups = (g->blocks - m->first_data + m->bpg - 1) / m->bpg;
	if (!m->groups)
		m->groups = 1;
	m->ipg = g->ipg;
	m->itb = (m->ipg * isz + bs - 1) / bs;
	uint64_t gdpb = bs / (g->desc_size ? g->desc_size : 64);
	m->gdt = (m->groups + gdpb - 1) / gdpb;
	m->rsv = g->rsv_gdt;
	m->flex = g->flex ? g->flex : 1;
	m->nblocks = g->blocks;
	m->sized = true;
	m->ipg_shift = m->ipg && !(m->ipg & (m->ipg - 1)) ? __builtin_ctzll(m->ipg) : -1;
	free(m->tab);
	m->tab_n = m->groups <= TAB_MAX ? m->groups : 0;
	m->tab = m->tab_n ? malloc(m->tab_n * sizeof(*m->tab)) : NULL;
	if (!m->tab) /* out of memory or a larger disk: computed each time */
		m->tab_n = 0;
	for (uint64_t k = 0; k < m->tab_n; k++)
		m->tab[k] = table_of(m, k);
}

/* The first block of group @g's inode table: flex_bg packs the bitmaps
 * and then the tables of 16 groups at the first of them (group 0's after
 * its superblock, descriptors and reserved descriptors), one table after
 * the other, a table that would cover another group's superblock backup
 * moved past it (only 1 KiB blocks come so far). */
static uint64_t table_of(const struct ts_fsmeta *m, uint64_t g)
{
	uint64_t fx = m->flex, f = g / fx, n = TS_MIN(m->groups - fx * f, fx);
	uint64_t pos = m->first_data + fx * f * m->bpg + 2 * n;
	if (!f)
		pos += 1 + m->gdt + m->rsv;
	if (m->bpg > fx * m->itb + 32) /* the flex group's tables inside its first group */
		return pos + (g % fx) * m->itb;
	for (uint64_t k = fx * f;; k++) {
		for (bool moved = true; moved;) {
			moved = false;
			uint64_t h0 = pos > m->first_data ? (pos - m->first_data) / m->bpg : 0;
			for (uint64_t h = h0; h <= (pos + m->itb - m->first_data) / m->bpg; h++) {
				uint64_t s = m->first_data + h * m->bpg, e = s + 1 + m->gdt + m->rsv;
				if (h && has_super(h) && s < pos + m->itb && pos < e) {
					pos = e;
					moved = true;
				}
			}
		}
		if (k == g)
			return pos;
		pos += m->itb;
	}
}

/* ---- Where mkfs.ext4 -d puts a file's data ----------------------------- */

/* The journal's blocks as mke2fs 1.47 sizes them for a file system of
 * @blocks blocks (lib/ext2fs/mkjournal.c, ext2fs_default_journal_size). */
static uint64_t journal_blocks(uint64_t blocks)
{
	return blocks < 2048		? 0
	       : blocks < 32768		? 1024
	       : blocks < 256 * 1024	? 4096
	       : blocks < 512 * 1024	? 8192
	       : blocks < 4096 * 1024	? 16384
	       : blocks < 8192 * 1024	? 32768
	       : blocks < 16384 * 1024	? 65536
	       : blocks < 32768 * 1024 ? 131072
					: 262144;
}

/* The end of the blocks mke2fs gave flex group @f's bitmaps and inode
 * tables (table_of's layout), which start at the flex group's first
 * block (group 0's after its superblock and descriptors). */
static uint64_t flex_end(const struct ts_fsmeta *m, uint64_t f)
{
	uint64_t last = TS_MIN(m->groups, (f + 1) * m->flex) - 1;
	return table_of(m, last) + m->itb;
}

/* Group @g's blocks mke2fs left free (its size less its superblock
 * backup and the flex group's tables in it). */
static uint64_t group_free(const struct ts_fsmeta *m, uint64_t g)
{
	uint64_t s = m->first_data + g * m->bpg, e = TS_MIN(s + m->bpg, m->nblocks);
	uint64_t used = has_super(g) ? 1 + m->gdt + m->rsv : 0;
	if (g % m->flex == 0)
		used = TS_MIN(flex_end(m, g / m->flex), e) - s;
	return e - s > used ? e - s - used : 0;
}

/* The journal's first block: the first block of the group mke2fs picks
 * near the middle of the disk (mkjournal.c, get_midpoint_journal_block:
 * the middle block's group, on a disk of more groups than a flex group
 * its flex group's first group with free blocks, and of it and its
 * neighbours the one with the most free blocks). */
static uint64_t journal_start(const struct ts_fsmeta *m)
{
	uint64_t g = ((m->nblocks - m->first_data) / 2) / m->bpg, start, end;
	if (m->flex > 1 && g > m->flex) {
		g &= ~(m->flex - 1);
		while (g < m->groups && !group_free(m, g))
			g++;
		if (g == m->groups)
			g = 0;
		start = g;
	} else {
		start = g ? g - 1 : g;
	}
	end = g + 1 < m->groups ? g + 1 : g;
	g = start;
	for (uint64_t i = start + 1; i <= end; i++)
		if (group_free(m, i) > group_free(m, g))
			g = i;
	/* its first free block (the journal is then taken as one run:
	 * assumed, as it is on every default layout checked) */
	uint64_t s = m->first_data + g * m->bpg;
	if (g % m->flex == 0)
		return flex_end(m, g / m->flex);
	return has_super(g) ? s + 1 + m->gdt + m->rsv : s;
}

/* Block @b, or the first block after the metadata region @b lies in
 * (a superblock backup with its descriptors and reserved descriptors,
 * a flex group's bitmaps and inode tables, the journal, taken as one run
 * from its first block); *@next: the
 * first block of the next region after the result. */
static uint64_t data_at(const struct ts_fsmeta *m, uint64_t b, uint64_t *next)
{
	uint64_t j0 = journal_start(m), j1 = j0 + journal_blocks(m->nblocks);
	for (bool moved = true; moved;) {
		moved = false;
		uint64_t g = b >= m->first_data ? (b - m->first_data) / m->bpg : 0;
		uint64_t s = m->first_data + g * m->bpg, e = s;
		if (has_super(g))
			e = s + 1 + m->gdt + m->rsv;
		if (g % m->flex == 0)
			e = TS_MAX(e, flex_end(m, g / m->flex));
		if (b < e) {
			b = e;
			moved = true;
		} else if (j1 > j0 && b >= j0 && b < j1) {
			b = j1;
			moved = true;
		}
	}
	uint64_t g = b >= m->first_data ? (b - m->first_data) / m->bpg : 0, n = b;
	do
		n = m->first_data + ++g * m->bpg;
	while (g < m->groups && !has_super(g) && g % m->flex);
	if (j1 > j0 && j0 > b && j0 < n)
		n = j0;
	*next = n;
	return b;
}

uint64_t ts_fsmeta_data_first(const struct ts_fsmeta *m)
{
	if (!m->sized)
		return 0;
	/* after the tables: the root's block, lost+found's 16 KiB (mke2fs
	 * expands it to 16 KiB) and the resize inode's double-indirect
	 * block (with reserved descriptors); checked on a 2 GiB image of
	 * tiersim disk make: the root at 8,481, the tree's first folder at
	 * 8,487 */
	uint64_t lf = (16384 + m->p.block - 1) / m->p.block;
	uint64_t next, b = data_at(m, flex_end(m, 0), &next);
	return b + 1 + lf + (m->rsv ? 1 : 0);
}

unsigned ts_fsmeta_alloc(const struct ts_fsmeta *m, uint64_t *cursor, uint64_t blocks,
			 struct ts_fsmeta_run *out, unsigned max)
{
	unsigned n = 0;
	uint64_t l = 0, b = *cursor;
	if (!m->sized)
		return 0;
	while (l < blocks) {
		uint64_t next;
		b = data_at(m, b, &next);
		if (b >= m->nblocks) /* the disk is full: the rest is not placed */
			break;
		uint64_t take = TS_MIN(blocks - l, TS_MIN(next, m->nblocks) - b);
		if (n && n <= max && out[n - 1].pblk + out[n - 1].len == b)
			out[n - 1].len += take;
		else if (n++ < max)
			out[n - 1] = (struct ts_fsmeta_run){ l, b, take };
		l += take;
		b += take;
	}
	*cursor = b;
	return n;
}

/* The space a name takes in a linear folder block: ext4_dir_entry_2's 8
 * bytes and the name, rounded up to 4. */
static uint64_t dirent_len(size_t name)
{
	return 8 + ((name + 3) & ~(size_t)3);
}

struct walk {
	const struct ts_fsmeta *m;
	uint64_t cursor; /* the next block ext2fs_new_block2 finds free */
	size_t root;	 /* the tree's own path's bytes in path */
	struct ts_fsmeta_file *f;
	size_t n, cap;
	char path[4096];
};

static int byte_order(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

/* A name added to a folder whose last block has @used bytes taken: a new
 * block at the cursor when it does not fit (ext2fs_link, then
 * ext2fs_expand_dir: the block after the last one allocated). */
static void dir_add(struct walk *w, uint64_t *used, size_t name)
{
	uint64_t room = w->m->p.block - 12; /* metadata_csum's tail (assumed on) */
	uint64_t need = dirent_len(name);
	if (*used + need > room) {
		struct ts_fsmeta_run r;
		ts_fsmeta_alloc(w->m, &w->cursor, 1, &r, 1);
		*used = 0;
	}
	*used += need;
}

/* The folder @w->path (of @len bytes) copied in as mkfs.ext4 -d copies
 * it (misc/create_inode.c, __populate_fs): its names in byte order, each
 * linked into it, then a file's data written whole or a folder made (one
 * block) and copied in the same way. */
static int walk_dir(struct walk *w, size_t len, uint64_t used, int depth)
{
	struct dirent **e;
	int k = scandir(len ? w->path : "/", &e, NULL, byte_order), ret = 0;
	if (k < 0)
		return -errno;
	for (int i = 0; i < k; i++) {
		const char *name = e[i]->d_name;
		size_t nl = strlen(name);
		struct stat st;
		if (ret || !strcmp(name, ".") || !strcmp(name, "..") ||
		    (ret = len + 1 + nl >= sizeof(w->path) ? -ENAMETOOLONG : 0))
			continue;
		w->path[len] = '/';
		memcpy(w->path + len + 1, name, nl + 1);
		if (lstat(w->path, &st)) {
			ret = -errno;
			continue;
		}
		if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
			continue; /* links and devices: no data blocks charged */
		dir_add(w, &used, nl);
		if (S_ISDIR(st.st_mode)) {
			struct ts_fsmeta_run r;
			ts_fsmeta_alloc(w->m, &w->cursor, 1, &r, 1);
			ret = depth < 64 ? walk_dir(w, len + 1 + nl, 24, depth + 1) : -ELOOP;
			w->path[len + 1 + nl] = '\0';
			continue;
		}
		if (w->n == w->cap) {
			size_t nc = w->cap ? 2 * w->cap : 64;
			void *p = realloc(w->f, nc * sizeof(*w->f));
			if (!p) {
				ret = -ENOMEM;
				continue;
			}
			w->f = p;
			w->cap = nc;
		}
		struct ts_fsmeta_file *f = &w->f[w->n];
		memset(f, 0, sizeof(*f));
		f->size = (uint64_t)st.st_size;
		uint64_t blocks = (f->size + w->m->p.block - 1) / w->m->p.block;
		f->nruns = ts_fsmeta_alloc(w->m, &w->cursor, blocks, f->run, TS_FSMETA_RUNS);
		/* the path from the tree's root, as a trace names it */
		if (!(f->path = strdup(w->path + w->root))) {
			ret = -ENOMEM;
			continue;
		}
		w->n++;
	}
	for (int i = 0; i < k; i++)
		free(e[i]);
	free(e);
	return ret;
}

static int file_cmp(const void *a, const void *b)
{
	return strcmp(((const struct ts_fsmeta_file *)a)->path,
		      ((const struct ts_fsmeta_file *)b)->path);
}

int ts_fsmeta_tree_new(const struct ts_fsmeta *m, const char *dir, struct ts_fsmeta_tree **out,
		       char *err, size_t errlen)
{
	struct walk *w = calloc(1, sizeof(*w));
	struct ts_fsmeta_tree *t = calloc(1, sizeof(*t));
	size_t len = strlen(dir);
	int ret = 0;
	*out = NULL;
	while (len > 1 && dir[len - 1] == '/')
		len--;
	if (!w || !t) {
		ret = -ENOMEM;
	} else if (!m->sized) {
		ret = -EINVAL;
		snprintf(err, errlen, "file tree %s: no file system laid out to place its files in",
			 dir);
	} else if (len >= sizeof(w->path) - 1) {
		ret = -ENAMETOOLONG;
	} else {
		memcpy(w->path, dir, len);
		w->path[len] = '\0';
		w->root = len;
		w->m = m;
		w->cursor = ts_fsmeta_data_first(m);
		/* the root holds ".", ".." and lost+found when the tree comes */
		ret = walk_dir(w, len, 24 + dirent_len(10), 0);
	}
	if (ret && ret != -EINVAL)
		snprintf(err, errlen, "file tree %s: %s", dir, strerror(-ret));
	if (!ret) {
		qsort(w->f, w->n, sizeof(*w->f), file_cmp);
		t->f = w->f;
		t->n = w->n;
		t->block = m->p.block;
		*out = t;
	} else {
		for (size_t i = 0; w && i < w->n; i++)
			free(w->f[i].path);
		free(w ? w->f : NULL);
		free(t);
	}
	free(w);
	return ret;
}

void ts_fsmeta_tree_free(struct ts_fsmeta_tree *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n; i++)
		free(t->f[i].path);
	free(t->f);
	free(t);
}

const struct ts_fsmeta_file *ts_fsmeta_tree_find(const struct ts_fsmeta_tree *t, const char *path)
{
	struct ts_fsmeta_file key = { .path = (char *)path };
	return t && path ? bsearch(&key, t->f, t->n, sizeof(key), file_cmp) : NULL;
}

uint64_t ts_fsmeta_file_break(const struct ts_fsmeta_file *f, uint64_t block, uint64_t off,
			      uint64_t end)
{
	unsigned n = TS_MIN(f->nruns, TS_FSMETA_RUNS);
	for (unsigned i = 1; i < n; i++) {
		uint64_t at = f->run[i].lblk * block;
		if (at > off && at < end)
			return at;
		if (at >= end)
			break;
	}
	return end;
}

/* Drops every inode-table block read (the bits and the table's K_ITAB
 * keys); false when out of memory (nothing dropped). */
static bool itab_clear(struct ts_fsmeta *m)
{
	struct slot *ns = calloc(m->cap, sizeof(*ns)), *old = m->s;
	if (!ns)
		return false;
	m->s = ns;
	m->n = 0;
	for (size_t i = 0; i < m->cap; i++)
		if (old[i].key && old[i].key >> 60 != K_ITAB) {
			*find(m, old[i].key) = old[i];
			m->n++;
		}
	free(old);
	if (m->itab)
		memset(m->itab, 0, m->itab_bytes);
	return true;
}

static void mount_cap(struct ts_fsmeta *m);

/* A disk of @bytes laid out again (a capacity changed at run time, fs/
 * control.c) after lookups read inode-table blocks of the old layout: the
 * same tree on a disk of the new size, as mke2fs lays it out, with the
 * kernel still holding the inodes it read (it drops no metadata for a
 * device's size). A block of the new layout counts as read when every
 * inode in it (up to the last in use) was in a block read in the old one;
 * one it shares with inodes not read is read again at its next lookup
 * (the windows around the lookups to come are the new layout's; those of
 * the lookups before are not replayed). Under the lock. */
static void relayout(struct ts_fsmeta *m, const struct ts_fsmeta_geom *g)
{
	mount_cap(m); /* the old layout's blocks, as the kernel read them */
	uint64_t used = __atomic_load_n(&m->inodes, __ATOMIC_ACQUIRE);
	uint64_t ra = m->p.inode_ra_blocks ? m->p.inode_ra_blocks : 1;
	/* the inodes a read block may hold: up to the last in use, or past
	 * the highest read by a readahead window when that is not known */
	uint64_t lim = used ? TS_MAX(used - 1, m->hi_ino) : m->hi_ino + (ra + 1) * m->per_blk;
	uint8_t *in = lim ? calloc(lim / 8 + 1, 1) : NULL;
	if (!in) { /* out of memory: the old blocks stay read (timing only) */
		layout(m, g);
		return;
	}
	for (uint64_t i = 1; i <= lim; i++)
		if (itab_read(m, blk_of(m, i)))
			in[i / 8] |= (uint8_t)(1U << (i % 8));
	if (!itab_clear(m)) {
		free(in);
		layout(m, g);
		return;
	}
	layout(m, g);
	uint64_t cur = UINT64_MAX;
	bool all = false;
	for (uint64_t i = 1; i <= lim + 1; i++) {
		uint64_t b = i <= lim ? blk_of(m, i) : UINT64_MAX;
		if (b != cur) {
			if (cur != UINT64_MAX && all)
				(void)itab_first(m, cur);
			cur = b;
			all = true;
		}
		if (i <= lim && !(in[i / 8] & (1U << (i % 8))))
			all = false;
	}
	free(in);
}

void ts_fsmeta_set_geom(struct ts_fsmeta *m, const struct ts_fsmeta_geom *g)
{
	lock(m);
	if (m->hi_ino)
		relayout(m, g);
	else
		layout(m, g);
	unlock(m);
}

void ts_fsmeta_set_capacity(struct ts_fsmeta *m, uint64_t bytes)
{
	struct ts_fsmeta_geom g;
	if (!bytes)
		return;
	ts_fsmeta_geom_of(bytes, m->p.inode_size, &g);
	ts_fsmeta_set_geom(m, &g);
}

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint16_t le16(const unsigned char *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

/* The ext4 superblock's fields (fs/ext4/ext4.h, struct ext4_super_block):
 * byte offsets in it, and the feature bits the layout depends on. */
enum {
	SB_BLOCKS_LO = 0x04, SB_FIRST_DATA = 0x14, SB_LOG_BLOCK = 0x18, SB_BPG = 0x20,
	SB_IPG = 0x28, SB_MAGIC = 0x38, SB_INODE_SIZE = 0x58, SB_COMPAT = 0x5c,
	SB_INCOMPAT = 0x60, SB_RO_COMPAT = 0x64, SB_RSV_GDT = 0xce, SB_DESC_SIZE = 0xfe,
	SB_BLOCKS_HI = 0x150, SB_LOG_FLEX = 0x174,
	COMPAT_RESIZE_INODE = 0x10, COMPAT_SPARSE_SUPER2 = 0x200, INCOMPAT_64BIT = 0x80,
	INCOMPAT_FLEX_BG = 0x200, RO_COMPAT_SPARSE_SUPER = 0x1, RO_COMPAT_BIGALLOC = 0x200,
};

int ts_fsmeta_geom_read(const char *image, struct ts_fsmeta_geom *g, char *err, size_t errlen)
{
	unsigned char sb[1024];
	int fd = open(image, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		snprintf(err, errlen, "%s: cannot open: %s", image, strerror(e));
		return -e;
	}
	ssize_t got = pread(fd, sb, sizeof(sb), 1024);
	close(fd);
	if (got != (ssize_t)sizeof(sb) || le16(sb + SB_MAGIC) != 0xef53) {
		snprintf(err, errlen, "%s: no ext4 superblock at byte 1024 (an xfs image, or "
			 "not a file system)", image);
		return -EINVAL;
	}
	uint32_t log = le32(sb + SB_LOG_BLOCK), compat = le32(sb + SB_COMPAT);
	uint32_t incompat = le32(sb + SB_INCOMPAT), ro = le32(sb + SB_RO_COMPAT);
	if (log > 6) {
		snprintf(err, errlen, "%s: ext4 block size 2^%u KiB", image, log);
		return -EINVAL;
	}
	struct ts_fsmeta_geom x = {
		.blocks = le32(sb + SB_BLOCKS_LO) |
			  (incompat & INCOMPAT_64BIT ? (uint64_t)le32(sb + SB_BLOCKS_HI) << 32 : 0),
		.block = 1024U << log,
		.bpg = le32(sb + SB_BPG),
		.ipg = le32(sb + SB_IPG),
		.inode_size = le16(sb + SB_INODE_SIZE) ? le16(sb + SB_INODE_SIZE) : 128,
		.rsv_gdt = compat & COMPAT_RESIZE_INODE ? le16(sb + SB_RSV_GDT) : 0,
		.desc_size = incompat & INCOMPAT_64BIT ? le16(sb + SB_DESC_SIZE) : 32,
		.flex = incompat & INCOMPAT_FLEX_BG ? 1U << TS_MIN(sb[SB_LOG_FLEX], 31) : 1,
	};
	/* the layout rule's own assumptions: backups in groups 0, 1 and the
	 * powers of 3, 5 and 7 (sparse_super), a block a cluster, the first
	 * data block mke2fs's */
	const char *why = !(ro & RO_COMPAT_SPARSE_SUPER) || compat & COMPAT_SPARSE_SUPER2
				  ? "its backup superblocks are not sparse_super's"
			  : ro & RO_COMPAT_BIGALLOC ? "bigalloc"
			  : le32(sb + SB_FIRST_DATA) != (x.block == 1024) ? "its first data block"
			  : !x.blocks || !x.bpg || x.bpg % 8 || x.bpg > 8 * x.block || !x.ipg ||
				    x.ipg % 8 || x.ipg > 8 * x.block
			      ? "its group sizes"
			  : x.inode_size < 128 || x.inode_size > x.block ||
				    (x.inode_size & (x.inode_size - 1))
			      ? "its inode size"
			  : (x.desc_size != 32 && x.desc_size != 64) ? "its descriptor size"
			  : x.rsv_gdt > x.block / 4		     ? "its reserved descriptor blocks"
								     : NULL;
	if (why) {
		snprintf(err, errlen, "%s: an ext4 layout this rule does not lay out (%s)", image,
			 why);
		return -EINVAL;
	}
	*g = x;
	return 0;
}

uint64_t ts_fsmeta_block(const struct ts_fsmeta *m)
{
	return m->p.block;
}

/* Inode @ino's table: its first block into *@t, the inodes of its group
 * in use into *@num (as the kernel counts them: the group's up to its
 * last in use, all when not known) */
static void group_of(const struct ts_fsmeta *m, uint64_t ino, uint64_t *t, uint64_t *num,
		     uint64_t *idx)
{
	uint64_t used = __atomic_load_n(&m->inodes, __ATOMIC_ACQUIRE), i = ino ? ino - 1 : 0;
	if (!m->sized) { /* one table from block 0 */
		*t = 0;
		*idx = i;
		*num = used ? used : UINT64_MAX / 2;
		return;
	}
	uint64_t g = m->ipg_shift >= 0 ? i >> m->ipg_shift : i / m->ipg;
	*t = g < m->tab_n ? m->tab[g] : table_of(m, g);
	*idx = i - g * m->ipg;
	/* @used is one past the last inode in use (ts_fsmeta_set_inodes' callers) */
	uint64_t last = used ? used - 1 : 0;
	*num = !last || last >= (g + 1) * m->ipg ? m->ipg : last > g * m->ipg ? last - g * m->ipg : 0;
}

/* The rule when the disk's size is not known (ts_fsmeta_set_capacity not
 * called): one table from block 0, windows aligned on its start, no
 * further than block (last inode in use - 1) / inodes_per_block, the
 * blocks read as one request. */
static void inode_read_flat(struct ts_fsmeta *m, uint64_t ino, struct ts_fsmeta_io *out,
			    unsigned *n, unsigned max)
{
	uint64_t per_blk = m->per_blk, ra = m->p.inode_ra_blocks ? m->p.inode_ra_blocks : 1;
	uint64_t blk = blk_of(m, ino);
	if (itab_read(m, blk))
		return;
	m->hi_ino = TS_MAX(m->hi_ino, ino);
	uint64_t b = blk / ra * ra, end = b + ra, used = __atomic_load_n(&m->inodes, __ATOMIC_ACQUIRE);
	if (used && (used - 1) / per_blk < end)
		end = (used - 1) / per_blk;
	uint64_t first_blk = UINT64_MAX, k = 0;
	for (uint64_t x = b; x <= end; x++)
		if (itab_first(m, x)) {
			first_blk = TS_MIN(first_blk, x);
			k++;
		}
	if (blk > end && itab_first(m, blk)) {
		first_blk = TS_MIN(first_blk, blk);
		k++;
	}
	if (k)
		put(out, n, max, region(K_ITAB, first_blk, m->p.block), k * m->p.block);
}

/* The mount's window capped at the last inode in use, once that is known
 * (tierfs learns it from its count of the tree, which a lookup may come
 * before): the kernel caps it at mount, from the image's own count of the
 * inodes in use (the group descriptor's unused inodes, __ext4_get_inode_loc:
 * `num -= ext4_itable_unused_count`), so the blocks of the root's window
 * past the cap (t + last / inodes_per_block; the flat rule's (used - 1) /
 * inodes_per_block) were never read: they are marked unread again. Under
 * the lock. */
static void mount_cap(struct ts_fsmeta *m)
{
	uint64_t used = __atomic_load_n(&m->inodes, __ATOMIC_ACQUIRE);
	if (!m->mount_open || !used)
		return;
	m->mount_open = false;
	uint64_t t, num, idx, cap;
	group_of(m, m->p.root_inode, &t, &num, &idx);
	if (m->sized)
		cap = t + num / m->per_blk;
	else
		cap = (used - 1) / m->per_blk;
	/* the window's last inode, in the root's group */
	uint64_t last =
	    TS_MAX(m->sized ? TS_MIN(m->mount_ino, m->ipg) : m->mount_ino, m->p.root_inode);
	uint64_t hi = blk_of(m, last);
	for (uint64_t x = cap + 1; x <= hi && x < ITAB_BITS; x++)
		if (x / 8 < m->itab_bytes)
			m->itab[x / 8] &= (uint8_t)~(1U << (x % 8));
}

/* Inode @ino's table block, as __ext4_get_inode_loc reads it: ext4 keeps
 * inode ino at index (ino - 1) % inodes_per_group of its group's table
 * (16 inodes a 4 KiB block). When the block is not in memory the kernel
 * reads ahead the table from b, the block's inode_ra_blocks-aligned
 * start on the disk (its absolute block number; no lower than the
 * table's first block), to end = b + inode_ra_blocks, no further than
 * the table's first block + num / inodes_per_block (num: the group's
 * inodes up to its last in use), `while (b <= end)`: end itself too, so
 * an uncapped window is 33 blocks. The readahead skips blocks already in
 * memory and the inode's own block (locked for its own read), so each
 * run of blocks not yet read is one request (the plug merges them), the
 * inode's block one more, sent last and the one the lookup waits for:
 * up to 3 requests (block-mode traces, tier/fsmeta.h: a 1 GiB image's
 * table starts at block 145, so the inode in block 270 read 256-269,
 * 270 and 271-288). */
static void inode_read(struct ts_fsmeta *m, uint64_t ino, struct ts_fsmeta_io *out, unsigned *n,
		       unsigned max)
{
	uint64_t per_blk = m->per_blk, ra = m->p.inode_ra_blocks ? m->p.inode_ra_blocks : 1;
	if (!m->mounted) {
		/* ext4's mount reads the root's inode (ext4_iget in
		 * ext4_fill_super), with its window of the table, before any
		 * job's request: those blocks count as read, charged to no
		 * one. Done at the first inode read, so in the layout of the
		 * capacity set before it (ts_fsmeta_set_capacity); capped at
		 * the last inode in use when that is known, else once it is
		 * (mount_cap). */
		unsigned none = 0;
		m->mounted = true;
		if (m->p.root_inode) {
			m->mount_open = !__atomic_load_n(&m->inodes, __ATOMIC_ACQUIRE);
			inode_read(m, m->p.root_inode, NULL, &none, 0);
			uint64_t rb = blk_of(m, m->p.root_inode), t = m->sized ? blk_of(m, 1) : 0;
			uint64_t b = TS_MAX(rb / ra * ra, t);
			m->mount_ino = (b + ra - t + 1) * m->per_blk;
		}
	}
	if (m->mount_open)
		mount_cap(m);
	if (!m->sized) {
		inode_read_flat(m, ino, out, n, max);
		return;
	}
	uint64_t t, num, idx;
	group_of(m, ino, &t, &num, &idx);
	uint64_t blk = t + (m->blk_shift >= 0 ? idx >> m->blk_shift : idx / per_blk);
	if (itab_read(m, blk))
		return;
	m->hi_ino = TS_MAX(m->hi_ino, ino);
	uint64_t b = TS_MAX(blk / ra * ra, t), end = b + ra;
	/* ext4 reads ahead no further than the group's last inode in use */
	if (end > t + num / per_blk)
		end = t + num / per_blk;
	uint64_t run = 0, from = 0;
	for (uint64_t x = b; x <= end; x++) {
		bool rd = x != blk && itab_first(m, x);
		if (rd && !run)
			from = x;
		run += rd;
		if (run && (!rd || x == end)) {
			put_split(out, n, max, region(K_ITAB, from, m->p.block), run * m->p.block, 0);
			if (*n)
				out[*n - 1].ahead = true;
			run = 0;
		}
	}
	if (itab_first(m, blk))
		put(out, n, max, region(K_ITAB, blk, m->p.block), m->p.block);
	else if (*n && out[*n - 1].ahead) /* out of memory: wait for the last */
		out[*n - 1].ahead = false;
}

static uint64_t dir_block(const struct ts_fsmeta *m, uint64_t key, uint64_t b);

static void dir_read(struct ts_fsmeta *m, const struct ts_fsmeta_node *d, struct ts_fsmeta_io *out,
		     unsigned *n, unsigned max)
{
	uint64_t key = key_of(K_DIR, d->key);
	uint64_t *seen = &m->dseen[key & (DSEEN - 1)];
	if (*seen == key)
		return;
	bool fresh = false;
	if (!add(m, key, &fresh))
		return; /* out of memory: charged again later (timing only) */
	*seen = key;
	if (!fresh)
		return;
	uint64_t blocks = d->blocks ? d->blocks : 1, base = mix(d->key) & ((1ULL << 30) - 1);
	for (uint64_t b = 0; b < blocks; b += m->p.dir_ra_blocks) {
		uint64_t k = TS_MIN((uint64_t)m->p.dir_ra_blocks, blocks - b);
		/* a block a request: mkfs.ext4 -d puts each folder block
		 * after the data of the files the one before names (measured,
		 * tier/fsmeta.h), and ext4_bread_batch sends them all before
		 * it waits */
		put_split(out, n, max, region(K_DIR, (base << 10) + b, m->p.block), k * m->p.block,
			  m->p.block);
	}
}

/* An htree folder's shape (ext4 disk layout, fs/ext4/namei.c): block 0
 * the root, holding (block - 40) / 8 index entries (32 bytes of "." ".."
 * and dx_root_info, an 8-byte dx_tail with metadata_csum, which
 * mke2fs.conf's ext4 has); past that many leaves, a second level of index
 * blocks of (block - 16) / 8 entries each (8 bytes of fake dirent and
 * header, the tail), blocks 1..@nidx here; the leaves after them. How many
 * index blocks follows how ext4_dx_add_entry grows them, not how few
 * would do: a leaf split that finds the root full moves the root's
 * entries into one new index block (the root keeps one entry to it); a
 * leaf split under a full index block splits it in halves (icount / 2);
 * the name hash spreads new leaves evenly over the index blocks, so they
 * fill and split together, and their number doubles each time the leaves
 * pass what they hold (debugfs htree on a folder the kernel filled,
 * 100,000 names: 4 index blocks for 1,123 leaves, where 3 would hold
 * them; 230,000 names: ts_fsmeta_dx_index's comment). Past the root's
 * entries (a third level, largedir) not modeled: the blocks the root can
 * point to, each full. */
uint64_t ts_fsmeta_dx_index(const struct ts_fsmeta_params *p, uint64_t blocks)
{
	uint64_t root = (p->block - 40) / 8, node = (p->block - 16) / 8;
	uint64_t rest = blocks > 1 ? blocks - 1 : 1;
	if (blocks <= 1 + root)
		return 0;
	uint64_t nidx = 1;
	while (nidx * node < rest - nidx && nidx * 2 <= root)
		nidx *= 2;
	if (nidx * node < rest - nidx) /* the root full of full index blocks */
		nidx = TS_MIN(root, (rest + node) / (node + 1));
	return nidx;
}

struct dx_shape {
	uint64_t nidx, leaves;
};

static struct dx_shape dx_shape(const struct ts_fsmeta *m, uint64_t blocks)
{
	uint64_t rest = blocks > 1 ? blocks - 1 : 1, nidx = ts_fsmeta_dx_index(&m->p, blocks);
	return (struct dx_shape){ nidx, rest - nidx };
}

/* Block @b of htree folder @d, the first time it is asked for. */
static void dx_read(struct ts_fsmeta *m, const struct ts_fsmeta_node *d, uint64_t b,
		    struct ts_fsmeta_io *out, unsigned *n, unsigned max)
{
	if (first(m, K_DXB, mix(d->key) + b))
		put(out, n, max, dir_block(m, d->key, b), m->p.block);
}

/* The block of the leaf of an htree folder of @s that name @key's hash
 * falls in: the hash picks one of the leaves evenly (ext4 splits a full
 * leaf at its hashes' median, so leaves hold even ranges of the hash). */
static uint64_t dx_leaf(struct dx_shape s, uint64_t key)
{
	return 1 + s.nidx + mix(key) % s.leaves;
}

/* @child looked up in @d: the folder's blocks the kernel reads for it. */
static void dir_lookup(struct ts_fsmeta *m, const struct ts_fsmeta_node *d,
		       const struct ts_fsmeta_node *child, struct ts_fsmeta_io *out, unsigned *n,
		       unsigned max)
{
	if (!d->htree || d->blocks <= 1) {
		dir_read(m, d, out, n, max);
		return;
	}
	struct dx_shape s = dx_shape(m, d->blocks);
	uint64_t leaf = dx_leaf(s, child->key);
	dx_read(m, d, 0, out, n, max);
	if (s.nidx) /* the index block above the leaf */
		dx_read(m, d, 1 + (leaf - 1 - s.nidx) * s.nidx / s.leaves, out, n, max);
	dx_read(m, d, leaf, out, n, max);
}

/* A readdir of @d: its blocks not read yet (an htree folder's one a
 * request, ext4_dx_readdir reading them leaf by leaf). */
static void dir_list(struct ts_fsmeta *m, const struct ts_fsmeta_node *d, struct ts_fsmeta_io *out,
		     unsigned *n, unsigned max)
{
	if (!d->htree || d->blocks <= 1) {
		dir_read(m, d, out, n, max);
		return;
	}
	for (uint64_t b = 0; b < d->blocks; b++)
		dx_read(m, d, b, out, n, max);
}

unsigned ts_fsmeta_lookup(struct ts_fsmeta *m, const struct ts_fsmeta_node *parent,
			  const struct ts_fsmeta_node *child, struct ts_fsmeta_io *out,
			  unsigned max)
{
	unsigned n = 0;
	lock(m);
	dir_lookup(m, parent, child, out, &n, max);
	inode_read(m, child->ino, out, &n, max);
	unlock(m);
	return n;
}

unsigned ts_fsmeta_inode(struct ts_fsmeta *m, const struct ts_fsmeta_node *child,
			 struct ts_fsmeta_io *out, unsigned max)
{
	unsigned n = 0;
	lock(m);
	inode_read(m, child->ino, out, &n, max);
	unlock(m);
	return n;
}

void ts_fsmeta_prefetch(struct ts_fsmeta *m, const struct ts_fsmeta_node *parent,
			const struct ts_fsmeta_node *child)
{
	lock(m);
	if (parent)
		__builtin_prefetch(&m->dseen[key_of(K_DIR, parent->key) & (DSEEN - 1)]);
	uint64_t b = blk_of(m, child->ino);
	if (b >= ITAB_BITS)
		__builtin_prefetch(&m->s[key_of(K_ITAB, b) & (m->cap - 1)]);
	else if (b / 8 < m->itab_bytes)
		__builtin_prefetch(&m->itab[b / 8]);
	unlock(m);
}

unsigned ts_fsmeta_list(struct ts_fsmeta *m, const struct ts_fsmeta_node *dir,
			struct ts_fsmeta_io *out, unsigned max)
{
	unsigned n = 0;
	lock(m);
	dir_list(m, dir, out, &n, max);
	unlock(m);
	return n;
}

unsigned ts_fsmeta_extent(struct ts_fsmeta *m, uint64_t key, uint64_t size, uint64_t off,
			  struct ts_fsmeta_io *out, unsigned max)
{
	if (size <= m->p.extent_bytes * m->p.inline_extents)
		return 0;
	unsigned n = 0;
	uint64_t leaf = off / (m->p.extent_bytes * m->p.leaf_extents);
	lock(m);
	if (first(m, K_EXT, mix(key) ^ leaf))
		put(out, &n, max, region(K_EXT, (mix(key) >> 24 << 8) + leaf, m->p.block),
		    m->p.block);
	unlock(m);
	return n;
}

/* The key of path prefix @path[0..len) (FNV-1a). */
static uint64_t path_key(const char *path, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)path[i]) * 0x100000001b3ULL;
	return h;
}

/* The node of path prefix @path[0..len), asking @stat the first time. */
static int node_of(struct ts_fsmeta *m, const char *path, size_t len, ts_fsmeta_stat_fn stat,
		   void *ctx, struct ts_fsmeta_node *out, bool *fresh)
{
	uint64_t h = path_key(path, len);
	struct slot *s = add(m, key_of(K_NODE, h), fresh);
	if (s && !*fresh) {
		*out = (struct ts_fsmeta_node){ h, s->ino, s->blocks, s->htree };
		return 0;
	}
	*out = (struct ts_fsmeta_node){ 0 }; /* what @stat leaves out: a linear folder */
	int rc = stat(ctx, len ? path : "/", len ? len : 1, out);
	if (rc) {
		if (s) { /* not there: forget it, it may be made later */
			s->key = 0;
			m->n--;
			/* keep the probe chains whole: reinsert what follows */
			size_t i = (size_t)(s - m->s);
			for (size_t j = (i + 1) & (m->cap - 1); m->s[j].key; j = (j + 1) & (m->cap - 1)) {
				struct slot e = m->s[j];
				m->s[j].key = 0;
				*find(m, e.key) = e;
			}
		}
		return rc;
	}
	out->key = h;
	if (s) {
		s->ino = out->ino;
		s->blocks = out->blocks;
		s->htree = out->htree;
	}
	return 0;
}

unsigned ts_fsmeta_path(struct ts_fsmeta *m, const char *path, bool list, ts_fsmeta_stat_fn stat,
			void *ctx, struct ts_fsmeta_io *out, unsigned max)
{
	struct ts_fsmeta_node parent, node;
	unsigned n = 0;
	bool fresh;
	size_t len = strlen(path);
	while (len > 1 && path[len - 1] == '/')
		len--;

	lock(m);
	/* the root's inode is read at mount */
	if (node_of(m, path, 0, stat, ctx, &parent, &fresh))
		goto out;
	node = parent;
	for (size_t i = 0; i < len;) {
		while (i < len && path[i] == '/')
			i++;
		if (i == len)
			break;
		size_t j = i;
		while (j < len && path[j] != '/')
			j++;
		int rc = node_of(m, path, j, stat, ctx, &node, &fresh);
		if (rc == -ENOENT) {
			/* not there: ext4_lookup scans the folder for the name
			 * all the same (ext4_find_entry), and reads no inode */
			node = (struct ts_fsmeta_node){ .key = path_key(path, j) };
			dir_lookup(m, &parent, &node, out, &n, max);
		}
		if (rc)
			goto out;
		if (fresh) {
			dir_lookup(m, &parent, &node, out, &n, max);
			inode_read(m, node.ino, out, &n, max);
		}
		parent = node;
		i = j;
	}
	if (list)
		dir_list(m, &node, out, &n, max);
out:
	unlock(m);
	return n;
}

uint64_t ts_fsmeta_dir_blocks(const struct ts_fsmeta_params *p, uint64_t entries,
			      uint64_t name_bytes)
{
	/* "." and "..": 12 bytes each; every name padded to 4 bytes */
	uint64_t bytes = 24 + entries * (p->dirent_base + 3) + name_bytes;
	return (bytes + p->block - 1) / p->block;
}

/* One request of the metadata reads: submitted at @at, its completion. */
static uint64_t charge_one(struct ts_tier *t, uint64_t at, uint64_t off, uint64_t len,
			   struct ts_tier_done *done)
{
	/* direct: the rule is the metadata's cache, the model's page cache
	 * is the data's */
	struct ts_tier_req q = { .op = TS_TIER_READ, .file = TS_FSMETA_FILE, .off = off,
				 .len = len, .direct = true };
	struct ts_tier_done d;
	uint64_t end = ts_tier_submit(t, at, &q, &d);
	if (done) {
		done->hit_bytes += d.hit_bytes;
		done->dev_bytes += d.dev_bytes;
		done->dev_ios += d.dev_ios;
		done->dev_reqs += d.dev_reqs;
		done->bound = d.bound;
		if (d.err && !done->err)
			done->err = d.err;
	}
	return end;
}

uint64_t ts_fsmeta_charge(struct ts_tier *t, uint64_t now, uint64_t floor_ns,
			  const struct ts_fsmeta_io *io, unsigned n, struct ts_tier_done *done)
{
	uint64_t at = now;
	bool with = false; /* sent with the readahead before it */
	for (unsigned i = 0; i < n; i++) {
		/* the model takes the caller's floor off each request; the
		 * op pays it once, so every later read starts that much later */
		uint64_t start = i && !with ? at + floor_ns : at;
		uint64_t each = io[i].split ? io[i].split : io[i].len, last = start;
		for (uint64_t o = 0; o < io[i].len; o += each) {
			uint64_t end = charge_one(t, start, io[i].off + o,
						  TS_MIN(each, io[i].len - o), done);
			last = TS_MAX(last, end);
		}
		/* readahead: sent at once with the read after it, which the
		 * op waits for alone */
		with = io[i].ahead;
		at = with ? start : last;
	}
	return at;
}

/* ---- The journal --------------------------------------------------------- */

/* Adds block @blk (a region() offset) to the running transaction from
 * @now; a block already in it is not counted again. Out of memory, the
 * block is left out (its commit is then that much smaller: timing only). */
static void jdirty(struct ts_fsmeta *m, uint64_t now, uint64_t blk)
{
	uint64_t key = blk + 1;
	if (2 * (m->jn + 1) > m->jcap) {
		size_t cap = m->jcap ? m->jcap * 2 : 256;
		uint64_t *ns = calloc(cap, sizeof(*ns)), *old = m->jset;
		if (!ns)
			return;
		for (size_t i = 0; i < m->jcap; i++)
			if (old[i]) {
				size_t j = mix(old[i]) & (cap - 1);
				while (ns[j])
					j = (j + 1) & (cap - 1);
				ns[j] = old[i];
			}
		free(old);
		m->jset = ns;
		m->jcap = cap;
	}
	size_t i = mix(key) & (m->jcap - 1);
	while (m->jset[i] && m->jset[i] != key)
		i = (i + 1) & (m->jcap - 1);
	if (m->jset[i])
		return;
	m->jset[i] = key;
	if (!m->jn++)
		m->jsince = now;
}

/* The table block of inode @ino and folder @d's block @b, as region()
 * offsets (the ones their reads use, block by block). */
static uint64_t itab_block(const struct ts_fsmeta *m, uint64_t ino)
{
	return region(K_ITAB, blk_of(m, ino), m->p.block);
}

static uint64_t dir_block(const struct ts_fsmeta *m, uint64_t key, uint64_t b)
{
	return region(K_DIR, ((mix(key) & ((1ULL << 30) - 1)) << 10) + b, m->p.block);
}

/* Splits @path at its last component: its length without trailing
 * slashes into *@len, the folder's (1 for the root) into *@plen and the
 * name's into *@name; false for a relative name or the root. */
static bool split_path(const char *path, size_t *len_out, size_t *plen, size_t *name)
{
	size_t len = strlen(path), p;
	while (len > 1 && path[len - 1] == '/')
		len--;
	*len_out = len;
	for (p = len; p > 0 && path[p - 1] != '/';)
		p--;
	if (!p || p == len)
		return false;
	*name = len - p;
	while (p > 1 && path[p - 1] == '/')
		p--;
	*plen = p;
	return true;
}

/* A name of @name bytes (path key @key) added to folder @dir: a linear
 * folder's last block (as first seen, moved on by the names made in it
 * since) is dirtied, an htree folder's leaf of the name's hash. */
static void name_added(struct ts_fsmeta *m, uint64_t now, const struct ts_fsmeta_node *dir,
		       size_t name, uint64_t key)
{
	if (dir->htree && dir->blocks > 1) {
		jdirty(m, now, dir_block(m, dir->key, dx_leaf(dx_shape(m, dir->blocks), key)));
		return;
	}
	struct slot *s = find(m, key_of(K_NODE, dir->key));
	uint64_t added = s->key ? s->added : 0;
	jdirty(m, now,
	       dir_block(m, dir->key, (dir->blocks ? dir->blocks : 1) + added / m->p.block - 1));
	if (s->key)
		s->added += m->p.dirent_base + (name + 3) / 4 * 4;
}

void ts_fsmeta_dirty(struct ts_fsmeta *m, uint64_t now, enum ts_fsmeta_change what,
		     const char *path, const char *to, ts_fsmeta_stat_fn stat, void *ctx)
{
	size_t len, plen, name, tall, tlen, tname;
	if (!split_path(path, &len, &plen, &name))
		return; /* a relative name or the root: no folder to change */

	struct ts_fsmeta_node dir, node, tdir;
	bool fresh;
	lock(m);
	if (what == TS_FSMETA_LINK) {
		/* ext4_link: the file's link count and times (its inode
		 * block), the new name at the new folder's end and that
		 * folder's times (ext4_add_entry); the old folder is not
		 * changed */
		if (node_of(m, path, len, stat, ctx, &node, &fresh))
			goto out;
		jdirty(m, now, itab_block(m, node.ino));
		if (to && split_path(to, &tall, &tlen, &tname) &&
		    !node_of(m, to, tlen == 1 ? 0 : tlen, stat, ctx, &tdir, &fresh)) {
			name_added(m, now, &tdir, tname, path_key(to, tall));
			jdirty(m, now, itab_block(m, tdir.ino));
		}
		goto out;
	}
	if (node_of(m, path, plen == 1 ? 0 : plen, stat, ctx, &dir, &fresh))
		goto out;
	if (what == TS_FSMETA_MAKE) {
		/* inodes made one after the other from the folder's: the
		 * transaction's n-th new one follows it by n */
		jdirty(m, now, itab_block(m, dir.ino + ++m->jmade));
		/* the name goes at the folder's end, its last block */
		name_added(m, now, &dir, name, path_key(path, len));
	} else {
		if (node_of(m, path, len, stat, ctx, &node, &fresh))
			goto out;
		jdirty(m, now, itab_block(m, node.ino));
		/* which of a linear folder's blocks holds the name is not
		 * known here: the name's hash picks one; an htree folder's
		 * is its hash's leaf, the one its lookup read */
		struct slot *s = find(m, key_of(K_NODE, dir.key));
		uint64_t blocks =
		    (dir.blocks ? dir.blocks : 1) + (s->key ? s->added : 0) / m->p.block;
		jdirty(m, now,
		       dir_block(m, dir.key,
				 dir.htree && dir.blocks > 1
				     ? dx_leaf(dx_shape(m, dir.blocks), node.key)
				     : mix(node.key) % blocks));
		/* a rename into another folder adds the name at that
		 * folder's end and changes its times (ext4_rename,
		 * ext4_add_entry); a folder moved also rewrites its "..",
		 * in its first block */
		if (what == TS_FSMETA_CHANGE && to && split_path(to, &tall, &tlen, &tname) &&
		    (tlen != plen || memcmp(to, path, plen)) &&
		    !node_of(m, to, tlen == 1 ? 0 : tlen, stat, ctx, &tdir, &fresh)) {
			name_added(m, now, &tdir, tname, path_key(to, tall));
			jdirty(m, now, itab_block(m, tdir.ino));
			if (node.blocks)
				jdirty(m, now, dir_block(m, node.key, 0));
		}
	}
	jdirty(m, now, itab_block(m, dir.ino)); /* the folder's times */
	if (what != TS_FSMETA_CHANGE) /* superblock, group descriptors, bitmaps */
		for (uint64_t k = 0; k < 4; k++)
			jdirty(m, now, region(K_ALLOC, k, m->p.block));
out:
	unlock(m);
}

unsigned ts_fsmeta_commit(struct ts_fsmeta *m, uint64_t now, bool sync, uint64_t *at,
			  struct ts_fsmeta_io *out, unsigned max)
{
	unsigned n = 0;
	lock(m);
	if (!m->jn || max < 2 || (!sync && now < m->jsince + m->p.journal_commit_ns))
		goto out;
	*at = sync ? now : m->jsince + m->p.journal_commit_ns;
	/* a descriptor block per 255 blocks (jbd2's 16-byte tags), the
	 * blocks after it, then the commit block */
	uint64_t blocks = m->jn + (m->jn + 254) / 255, per = m->p.journal_request / m->p.block;
	for (uint64_t b = 0; b < blocks; b += per) {
		uint64_t k = TS_MIN(per, blocks - b);
		put(out, &n, max - 1, region(K_JOURNAL, m->jpos + b, m->p.block), k * m->p.block);
	}
	put(out, &n, max, region(K_JOURNAL, m->jpos + blocks, m->p.block), m->p.block);
	m->jpos = (m->jpos + blocks + 1) & ((1ULL << 30) - 1);
	memset(m->jset, 0, m->jcap * sizeof(*m->jset));
	m->jn = 0;
	m->jmade = 0;
out:
	unlock(m);
	return n;
}

uint64_t ts_fsmeta_charge_commit(struct ts_tier *t, uint64_t at, uint64_t floor_ns,
				 const struct ts_fsmeta_io *io, unsigned n, struct ts_tier_done *done)
{
	if (!n)
		return at;
	struct ts_tier_done d;
	uint64_t end = at;
	/* direct, as the metadata's reads: the model's page cache is the
	 * data's */
	struct ts_tier_req w = { .op = TS_TIER_WRITE, .file = TS_FSMETA_FILE, .direct = true };
	struct ts_tier_req f = { .op = TS_TIER_FSYNC, .file = TS_FSMETA_FILE };
	for (unsigned i = 0; i < n; i++) {
		if (i == n - 1) /* the commit block, after a flush */
			at = ts_tier_submit(t, end + floor_ns, &f, NULL) + floor_ns;
		w.off = io[i].off;
		w.len = io[i].len;
		uint64_t e = ts_tier_submit(t, at, &w, &d);
		if (done) {
			done->dev_bytes += d.dev_bytes;
			done->dev_ios += d.dev_ios;
			done->dev_reqs += d.dev_reqs;
		}
		end = TS_MAX(end, e);
	}
	return ts_tier_submit(t, end + floor_ns, &f, NULL); /* and a flush after it */
}
