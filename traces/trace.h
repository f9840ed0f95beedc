/*
 * trace.h — tiersim's IO trace: the binary format, the recording writer and
 * the reader. traces/FORMAT.md documents the bytes on disk.
 *
 * A trace is a header followed by a stream of 64-byte items. Most items are
 * IO records (struct ts_trace_rec); a few carry the string table (a path
 * item is followed by the path's bytes, padded to 8), the running drop count
 * and the trailer. Because every item is self-describing, a trace cut short
 * by a crash is readable up to its last complete item, and the text form
 * (`tiersim trace dump`) is one line per item, so it round-trips exactly.
 *
 * Recording: ts_trace_writer_put() is called on the FUSE request threads.
 * Each producing thread owns a bounded single-producer ring; one writer
 * thread drains every ring into the file. A full ring never blocks: the
 * record is dropped and counted, and the count reaches the file (a drop
 * item while recording, the trailer at close) so every reader reports it.
 */
#ifndef TS_TRACE_H
#define TS_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/ts.h"

#define TS_TRACE_MAGIC "TSTRACE" /* 8 bytes with the NUL */
#define TS_TRACE_VERSION 12	  /* what the writer writes */
#define TS_TRACE_VERSION_MIN 1 /* the oldest the reader reads (no CPU samples) */
#define TS_TRACE_HDR_SIZE 1024
#define TS_TRACE_REC_SIZE 64
#define TS_TRACE_PATH_MAX 4096 /* bytes, PATH_MAX */

/* Ops. Values are part of the file format: append only. */
enum ts_trace_op {
	TS_OP_NONE = 0,
	TS_OP_READ = 1,
	TS_OP_WRITE = 2,
	TS_OP_OPEN = 3,
	TS_OP_CLOSE = 4,
	TS_OP_FSYNC = 5,
	TS_OP_FDATASYNC = 6,
	TS_OP_GETATTR = 7,
	TS_OP_READDIR = 8,
	TS_OP_CREATE = 9,
	TS_OP_UNLINK = 10,
	TS_OP_RENAME = 11,   /* file_id = old path, aux = new path id */
	TS_OP_TRUNCATE = 12, /* offset = new size */
	TS_OP_FALLOCATE = 13,
	TS_OP_MMAP_READ = 14, /* a page-fault read of a mapped file, where visible */
	TS_OP_MKDIR = 15,
	TS_OP_RMDIR = 16,
	TS_OP_OPENDIR = 17,
	TS_OP_RELEASEDIR = 18,
	TS_OP_FLUSH = 19,
	TS_OP_ACCESS = 20,
	TS_OP_STATFS = 21,
	TS_OP_READLINK = 22,
	TS_OP_SYMLINK = 23,
	TS_OP_LINK = 24,
	TS_OP_MKNOD = 25,
	TS_OP_CHMOD = 26,
	TS_OP_CHOWN = 27,
	TS_OP_UTIMENS = 28,
	TS_OP_IO_LAST,
	/* Stream items that are not IO (never passed to put()). */
	TS_ITEM_PATH = 0x100,  /* file_id = id, length = bytes following; version 11:
				* its node (struct ts_trace_node) */
	TS_ITEM_DROPS = 0x101, /* offset = drops so far (cumulative) */
	TS_ITEM_END = 0x102,   /* trailer: offset = drops, length = records */
	TS_ITEM_CPU = 0x103,   /* version 2: the CPU sample of the record before it */
	TS_ITEM_ISSUE = 0x104, /* version 9: block mode's request clock of the record before it */
	TS_ITEM_PACK = 0x105,  /* version 10: sys_ns/late_ns of the TS_REC_F_PACKED records before it */
};

/* Record flags. */
#define TS_REC_F_DIRECT 0x1 /* the application's O_DIRECT: the page-cache model is bypassed */
#define TS_REC_F_SYNC 0x2   /* O_SYNC / O_DSYNC write */
#define TS_REC_F_NOTIER 0x4 /* not submitted to the tier model (replay keeps its latency) */
#define TS_REC_F_NOFILE 0x8 /* submitted to the tier model without a file (file 0) */
#define TS_REC_F_KERNEL_RA 0x10 /* a read the kernel's page cache sent, read ahead already */
/* Version 10: the record's CPU clock was left unread (TS_CPU_F_GAP) and it
 * has no cpu item: its sys_ns and late_ns are in the pack item after it
 * (TS_ITEM_PACK), its process and parent are its thread's, and the reader
 * makes it a sample like any other (traces/FORMAT.md, "Packed samples"). */
#define TS_REC_F_PACKED 0x20
#define TS_TRACE_PACK_MAX 6 /* records a pack item holds */

/*
 * One IO record, 64 bytes, little-endian, exactly as stored. Times are ns
 * since the header's start_mono_ns: pass ts_now_ns() readings to put() and
 * the writer makes them relative.
 */
struct ts_trace_rec {
	uint64_t submit_ns;   /* request received */
	uint64_t complete_ns; /* reply sent (after the tier model's delay) */
	uint64_t offset;      /* bytes; truncate: new size */
	uint64_t length;      /* bytes asked for */
	int64_t result;	      /* bytes done, 0, or -errno */
	uint64_t size;	      /* file size the tier model was given, 0 = unknown */
	uint32_t file_id;     /* ts_trace_writer_file_id(); 0 = none */
	uint32_t aux;	      /* rename/link: new path's id; fallocate: mode */
	uint32_t tid;	      /* id of the requesting thread (0: the kernel itself) */
	uint16_t op;	      /* enum ts_trace_op */
	uint16_t flags;	      /* TS_REC_F_* */
};
_Static_assert(sizeof(struct ts_trace_rec) == TS_TRACE_REC_SIZE, "record layout");

/*
 * The requesting thread's CPU clock when its request arrived (version 2;
 * traces/FORMAT.md): /proc/TID/schedstat's time on a CPU and time runnable
 * but waiting for one, both cumulative, and the thread's process and that
 * process's parent. A thread blocked in a request does not run, so the
 * difference between two samples of one thread is what it did on (or
 * queued for) a CPU between its requests; the rest of the gap it waited.
 */
struct ts_trace_cpu {
	uint64_t on_ns;	  /* time on a CPU so far */
	uint64_t runq_ns; /* time runnable, waiting for a CPU, so far */
	uint64_t sys_ns;  /* the request's own syscall in tierfs, ns from arrival
			   * (what it took beside the model's delay) */
	uint64_t late_ns; /* the reply's lateness behind the later of the model's
			   * time and the syscall's end (tierfs waking late) */
	uint32_t pid;	  /* the thread's process (tgid); 0 = no sample */
	uint32_t ppid;	  /* that process's parent */
	uint16_t flags;	  /* TS_CPU_F_* (version 4) */
};
/*
 * CPU sample flags (version 4; traces/FORMAT.md, "Samples left unread").
 * A thread's CPU time cannot move while it is blocked in a request, so
 * between its previous reply and its next request it used at most the gap
 * between them: tierfs leaves the clock unread when that gap is within a
 * limit, as long as the gaps so left since the thread's last read clock
 * stay within a budget.
 * GAP: not read. The file holds on_ns = runq_ns = 0; the reader fills in
 * an estimate (ts_trace_cpu_fill) and the writers write 0 back.
 * RUN: read, with a gap within the limit (the budget was spent, or it
 * is one of the short gaps tierfs reads to measure them). Every gap since
 * the previous read clock was within the limit, so the two clocks
 * give the thread's CPU share of its short gaps.
 */
#define TS_CPU_F_GAP 0x1
#define TS_CPU_F_RUN 0x2

/*
 * Block mode's request clock for one device request (version 9;
 * traces/FORMAT.md "Request clock", disk/issue.h): tierfs charged it from
 * the moment the loop device issued it (block:block_rq_issue) rather than
 * from its receipt, and replied at max(receipt, model_end - off). Times
 * absolute in the writer's put, ns since the header's start_mono_ns in a
 * read trace. Only a read or write the clock found and scheduled carries
 * one.
 */
struct ts_trace_issue {
	uint64_t issue_ns; /* the loop device issued it (<= the record's submit_ns) */
	uint64_t end_ns;   /* the tier model's completion counted from the issue
			    * (before the floor: ts_tier_done.end_ns) */
	uint64_t off_ns;   /* taken off it for the reply: the reply hop's and
			    * tierfs's lateness's running means; 0 where watched */
	bool set;	   /* in a read trace: the record has one */
	/* Version 10 (TS_ISSUE_F_WATCHED in the item's flags): a mount with
	 * loop_issue=watch found the issue but charged the request from its
	 * receipt; end_ns is the model's time as if from the issue, for
	 * comparison only. ts_trace_issue_of() does not return it, so no
	 * replay or count takes it for a request clock. */
	bool watched;
};
#define TS_ISSUE_F_WATCHED 0x1

/*
 * What the emulated disk holds at a path (version 11; traces/FORMAT.md,
 * "Inode numbers"): tierfs numbers the whole tree it serves as mkfs.ext4 -d
 * (tiersim disk make) numbers the image it copies it into (fs/timing.c),
 * and writes each path's number with its path item, so that a replay
 * charges the inode-table blocks of the real tree and not of the paths
 * its trace happens to name (traces/replay/virtual.c). tierfs writes a
 * node for every folder above a path too (path items no record names).
 */
struct ts_trace_node {
	uint64_t ino;	      /* inode number on the emulated file system (> 0) */
	uint64_t blocks;      /* a folder's blocks there (tier/fsmeta.h); 0: a file */
	uint64_t backing_ino; /* the backing file's own st_ino, for people; 0 = unknown */
	uint32_t inodes;      /* inodes in use then (the last one + 1), 0 = unknown */
	uint16_t flags;	      /* TS_NODE_F_*; 0 = no node (before version 11, or unknown) */
};
#define TS_NODE_F_SET 0x1 /* the node is known */
#define TS_NODE_F_DIR 0x2 /* a folder */

/* The header as the writer takes it and the reader returns it. Strings are
 * NUL-terminated and silently limited to their field sizes. */
struct ts_trace_hdr {
	uint64_t start_wall_ns; /* filled by the writer when 0 */
	uint64_t start_mono_ns; /* filled by the writer when 0 */
	uint64_t capacity;	/* emulated disk size in bytes, 0 = unknown */
	uint64_t mem;		/* emulated page-cache size in bytes, 0 = none */
	uint32_t version;	/* reader: the file's version */
	uint32_t rec_size;	/* reader: the file's record size */
	char tier[64];		/* recording tier, "" = plain directory */
	char profile[192];	/* profile file the tier came from */
	char mount_opts[448];	/* tierfs -o options as given */
	char host[128];		/* filled by the writer when "" */
	/* The tier model's options as the recording ran them (struct
	 * ts_tier_cfg's fields), for a replay to drive the model as tierfs
	 * did: each is set when its TS_TRACE_MODEL_* bit is in @model.
	 * Version 3 stores them; for an older trace the reader takes them
	 * from mount_opts, where tierfs wrote them (traces/FORMAT.md). */
	uint32_t model;
	uint64_t seed;
	uint64_t floor_ns;    /* the FUSE round trip tierfs measured */
	uint64_t dirty_limit; /* bytes */
	uint64_t ra_max;      /* bytes */
	uint64_t mem_bps;     /* bytes/s */
	/* Version 5: the instance's EBS limits (struct ts_tier_ebs), all 0
	 * for none; set with TS_TRACE_MODEL_EBS. */
	double ebs_iops, ebs_max_iops; /* IOPS */
	double ebs_bps, ebs_max_bps;   /* bytes/s */
	double ebs_burst_s;	       /* s at the maximum from a full bucket */
	/* Version 6: block mode's loop-device hop (fs/calib.c), taken off
	 * the modeled latency with floor_ns, which stays FUSE's round trip;
	 * set with TS_TRACE_MODEL_LOOP_HOP, which says the recording is a
	 * loop device's (block mode with its hop taken off, 0 included).
	 * For an older trace the reader takes it from mount_opts
	 * ("loop_hop=Nns(label)"), where tierfs wrote it. */
	uint64_t loop_hop_ns;
	/* Version 7: the hop's size part (what a 128 KiB request cost the
	 * loop device's path beyond a 4 KiB one, taken off each read and
	 * write in proportion to its bytes past 4 KiB) and window part (what
	 * a readahead window cost it beyond a 128 KiB direct read, taken off
	 * each read), as the mount measured them (disk/loop.h); set with
	 * TS_TRACE_MODEL_LOOP_PARTS, only beside the hop. For an older trace
	 * the reader takes the size part from mount_opts
	 * ("loop_hop_128k=Nns(measured)"), the window part none. */
	uint64_t loop_size_ns, loop_window_ns;
	/* Version 8 adds no field, only TS_TRACE_MODEL_IMAGE: the mount
	 * served a disk image (tierfs's image option, block mode), so the
	 * image file's own path lookup and extent leaves were not charged
	 * (fs/timing.c). Before version 8 the reader sets it where the loop
	 * hop's bit is (a hop was taken off only in block mode). */
	/* Version 10 adds TS_TRACE_MODEL_CARRY, without a field: tierfs
	 * carried round trips (carry=). Before, the reader sets it from
	 * "carry=true" in mount_opts, where tierfs wrote it. */
	/* Version 12: the geometry of the disk image's ext4, read from its
	 * superblock (block mode: tiersim disk mount --trace, tiersim
	 * record --fs ext4); set with TS_TRACE_MODEL_FS, all 0 without it.
	 * A replay lays the file system out with it (tier/fsmeta.h,
	 * ts_fsmeta_set_geom) instead of mke2fs's defaults for a size. */
	uint64_t fs_blocks;	/* s_blocks_count */
	uint32_t fs_bpg;	/* s_blocks_per_group */
	uint32_t fs_ipg;	/* s_inodes_per_group */
	uint16_t fs_rsv_gdt;	/* s_reserved_gdt_blocks */
	uint16_t fs_inode_size; /* s_inode_size, bytes */
	uint8_t fs_block_log;	/* log2 of the block size in bytes (10-16) */
	uint8_t fs_flex_log;	/* s_log_groups_per_flex (0: no flex_bg) */
	uint8_t fs_desc_size;	/* a group descriptor's bytes: 32, or 64 (64bit) */
};
/* Which of the header's model options it sets; CAPACITY and MEM say that
 * capacity and mem are the model's (0 included), not only informative. */
#define TS_TRACE_MODEL_CAPACITY 0x01
#define TS_TRACE_MODEL_MEM 0x02
#define TS_TRACE_MODEL_SEED 0x04
#define TS_TRACE_MODEL_FLOOR 0x08
#define TS_TRACE_MODEL_DIRTY_LIMIT 0x10
#define TS_TRACE_MODEL_RA_MAX 0x20
#define TS_TRACE_MODEL_MEM_BPS 0x40
#define TS_TRACE_MODEL_EBS 0x80	     /* version 5 on: the ebs_* fields */
#define TS_TRACE_MODEL_LOOP_HOP 0x100 /* version 6 on: loop_hop_ns */
#define TS_TRACE_MODEL_LOOP_PARTS 0x200 /* version 7 on: loop_size_ns, loop_window_ns */
#define TS_TRACE_MODEL_IMAGE 0x400 /* version 8 on: the mount served a disk image (no field) */
#define TS_TRACE_MODEL_ALL 0x7ff /* the tier model's options (tierfs sets them all) */
#define TS_TRACE_MODEL_CARRY 0x800 /* version 10 on: tierfs carried round trips (no field) */
#define TS_TRACE_MODEL_FS 0x1000 /* version 12 on: the disk image's geometry (the fs_* fields) */
/* The bits a header of @version may set. */
#define TS_TRACE_MODEL_OF(version)                                                                 \
	((version) >= 12  ? 0x1fffu                                                                 \
	 : (version) >= 10 ? 0xfffu                                                                 \
	 : (version) >= 8 ? TS_TRACE_MODEL_ALL                                                      \
	 : (version) >= 7 ? 0x3ffu                                                                  \
	 : (version) >= 6 ? 0x1ffu                                                                  \
	 : (version) >= 5 ? 0xffu                                                                   \
			  : 0x7fu)

/* The model options of a version 1 or 2 header, read from its mount_opts
 * ("k=v,..." as tierfs wrote them): capacity and mem fill the header's
 * where it has none. A value that does not parse is -EINVAL with "KEY=VALUE:
 * why" in @why. The readers call it; a header of version 3 to 5 gets only
 * its loop hop and its size part from there, one of version 6 its size
 * part (loop_hop_ns, loop_size_ns and their bits, which the writers drop
 * again for those versions); a header of version 7 nothing. A header
 * before version 8 with the hop's bit gets TS_TRACE_MODEL_IMAGE (which
 * the writers drop again too); one of version 8 is left as it is. A
 * header before version 10 whose mount_opts turn carry= on gets
 * TS_TRACE_MODEL_CARRY (dropped again by the writers too). */
TS_WUR int ts_trace_hdr_legacy(struct ts_trace_hdr *h, char *why, size_t n);

/* Version 12's geometry: with TS_TRACE_MODEL_FS in h->model, fields a
 * mkfs.ext4 could have written (blocks > 0, a block of 1-64 KiB, groups
 * of a multiple of 8 blocks and inodes, at most 8 x block of each, an
 * inode a power of two from 128 bytes to a block, descriptors of 32 or
 * 64 bytes, at most 2^31 groups a flex group); without it, all zero.
 * 0, or -EINVAL with one line naming the field in @why. */
TS_WUR int ts_trace_hdr_fs_check(const struct ts_trace_hdr *h, char *why, size_t n);

/* Writes the disk image's geometry into the header of the trace file at
 * @path (@h's fs_* fields and TS_TRACE_MODEL_FS; the rest of the file
 * as it is): block mode's recorder calls it once the mount's tierfs has
 * opened the trace (the writer writes the header once, at open). The
 * file must be a version 12 trace. 0 or -errno / TS_E_* with one line in
 * @err. */
TS_WUR int ts_trace_set_fs(const char *path, const struct ts_trace_hdr *h, char *err,
			   size_t errlen);

const char *ts_trace_op_name(unsigned op);
/* Op from its name ("read", "fdatasync"); TS_OP_NONE when unknown. */
unsigned ts_trace_op_from_name(const char *name);

/* A strict unsigned decimal (no sign, no space, no overflow) up to @max:
 * 0 or -1. Shared by the text form and the importers. */
TS_WUR int ts_trace_parse_u64(const char *s, uint64_t max, uint64_t *out);

/* Where a line of a text input is, for its one-line messages. */
struct ts_trace_where {
	const char *name;
	unsigned long lineno;
	char *err;
	size_t errlen;
};
/* "NAME:LINE: why" into w->err; returns TS_E_PARSE. */
int ts_trace_bad(const struct ts_trace_where *w, const char *fmt, ...) TS_PRINTF(2, 3);

/* ---- writer ---- */

struct ts_trace_writer;

#define TS_TRACE_SPILL_DEFAULT (UINT64_C(64) << 20)
#define TS_TRACE_SPILL_NONE UINT64_MAX

struct ts_trace_writer_cfg {
	uint32_t ring_records; /* per-thread ring size, power of 2; 0 = 16384 */
	uint32_t flush_us;     /* writer thread's period; 0 = 50000 (a producer
				* whose ring is half full wakes it sooner) */
	/* Memory a full ring may add in segments of its own size before it
	 * drops (the spill, traces/trace.c), over all rings; 0 =
	 * TS_TRACE_SPILL_DEFAULT, TS_TRACE_SPILL_NONE = none: a full ring
	 * drops. */
	uint64_t spill_bytes;
	/* Called by the writer thread, its wake lock held, each time it is
	 * about to sleep (it found nothing that woke it): tests stretch the
	 * moment between that check and the sleep. NULL: none. */
	void (*before_sleep)(void *arg);
	void *before_sleep_arg;
};

/* Creates @path (truncating it), writes the header, starts the writer
 * thread. @cfg may be NULL. */
TS_WUR int ts_trace_writer_open(const char *path, const struct ts_trace_hdr *hdr,
				struct ts_trace_writer **out);
TS_WUR int ts_trace_writer_open_cfg(const char *path, const struct ts_trace_hdr *hdr,
				    const struct ts_trace_writer_cfg *cfg,
				    struct ts_trace_writer **out);
/* Id of @path (interning it on first use). Thread-safe; ids start at 1.
 * Returns 0 only when out of memory (the record then carries no path). */
uint32_t ts_trace_writer_file_id(struct ts_trace_writer *w, const char *path);
/* Same, giving @path its node (version 11; may be NULL) when it is new; a
 * path interned before keeps the node it had. */
uint32_t ts_trace_writer_file_node(struct ts_trace_writer *w, const char *path,
				   const struct ts_trace_node *node);
/* Id of @path if interned already, else 0 (interns nothing). */
uint32_t ts_trace_writer_file_find(struct ts_trace_writer *w, const char *path);
/* Queues one record (times absolute, from ts_now_ns()). Thread-safe,
 * never waits for the writer: the calling thread's ring; when it is full,
 * a new segment of it (an allocation), or a drop past the spill's bound. */
void ts_trace_writer_put(struct ts_trace_writer *w, const struct ts_trace_rec *rec);
/* Same, with the requesting thread's CPU sample (@cpu->pid != 0) stored
 * right after the record; both or neither are queued. */
void ts_trace_writer_put_cpu(struct ts_trace_writer *w, const struct ts_trace_rec *rec,
			     const struct ts_trace_cpu *cpu);
/* Same, with the record's request clock (@issue, may be NULL; times
 * absolute, from ts_now_ns()) after the sample (@cpu may be NULL or carry
 * no pid): all or none are queued. An issue before the trace's start
 * cannot be stored and is left out (a loop device attaches after its
 * tierfs starts, so none does). */
void ts_trace_writer_put_issue(struct ts_trace_writer *w, const struct ts_trace_rec *rec,
			       const struct ts_trace_cpu *cpu, const struct ts_trace_issue *issue);
/* Records dropped so far. */
uint64_t ts_trace_writer_dropped(const struct ts_trace_writer *w);
/* Times a producer found its ring full and went on in a new segment (the
 * spill) so far. */
uint64_t ts_trace_writer_spills(const struct ts_trace_writer *w);
/* Drains every ring, writes the trailer, closes the file and frees @w. No
 * put() or file_id() may run concurrently or later (tierfs closes after its
 * FUSE loop has ended and joined its workers).
 * @dropped (may be NULL) gets the total drop count. Returns 0 or -errno of
 * the first write error (which stops recording but never blocks put()). */
TS_WUR int ts_trace_writer_close(struct ts_trace_writer *w, uint64_t *dropped);

/* ---- reader ---- */

/* A whole trace in memory, items in file order. hdr.version is the file's
 * (1 to TS_TRACE_VERSION); ts_trace_write() writes that version back. */
struct ts_trace {
	struct ts_trace_hdr hdr;
	char **paths;		   /* paths[id], paths[0] = NULL; NULL for unseen ids */
	uint32_t npaths;	   /* ids 0..npaths-1 */
	/* nodes[id]: what the emulated disk holds there (version 11; flags 0:
	 * none); NULL when no path item has one */
	struct ts_trace_node *nodes;
	struct ts_trace_rec *recs; /* IO records only */
	size_t nrecs;
	/* cpu[i]: the CPU sample of recs[i] (pid 0: none); NULL when the trace
	 * has no samples at all (version 1, importers) */
	struct ts_trace_cpu *cpu;
	size_t ncpu; /* records with a sample */
	/* issue[i]: block mode's request clock of recs[i] (version 9; !set:
	 * none); NULL when no record has one */
	struct ts_trace_issue *issue;
	size_t nissue;	 /* records with one, watched ones not counted */
	size_t nwatched; /* records with a watched one (version 10) */
	size_t npacked;	 /* TS_REC_F_PACKED records not yet followed by their pack */
	size_t packed_at[TS_TRACE_PACK_MAX]; /* their indices */
	uint64_t dropped;	 /* trailer's count, or the last drop item's */
	bool truncated;		 /* no trailer: the recording was cut short */
	uint64_t trailing_bytes; /* bytes of an incomplete last item */
	/* The stream items other than records, in file order, each with the
	 * number of records before it: enough to re-encode the file exactly. */
	struct ts_trace_item {
		uint64_t at_rec; /* records that precede it */
		uint64_t val;	 /* path: id; drops: count */
		uint64_t t_ns;	 /* drops: when counted */
		uint16_t op;	 /* TS_ITEM_PATH, TS_ITEM_DROPS, TS_ITEM_END or
				  * TS_ITEM_PACK (val: records it holds) */
	} * items;
	size_t nitems;
	struct ts_trace_rec end;	    /* the trailer as stored, when !truncated */
	size_t rec_cap, item_cap, path_cap, node_cap; /* allocated lengths */
};

/*
 * Reads @path. Unknown versions → TS_E_VERSION, not a trace → TS_E_FORMAT,
 * a malformed item → TS_E_CORRUPT; @err (may be NULL) gets one line naming
 * the file, the byte offset and what is wrong. A trace without trailer reads
 * fully and sets truncated; that is not an error.
 */
TS_WUR int ts_trace_read(const char *path, struct ts_trace *t, char *err, size_t errlen);
/* Same from memory (@name is used in messages). */
TS_WUR int ts_trace_read_mem(const void *buf, size_t len, const char *name, struct ts_trace *t,
			     char *err, size_t errlen);
void ts_trace_free(struct ts_trace *t);

/* Writes @t to @path exactly as read (header, items, records in order):
 * reading a file and writing it back gives the same bytes. */
TS_WUR int ts_trace_write(const struct ts_trace *t, const char *path);

/* Builders for importers and the text form. Start with ts_trace_init(). */
void ts_trace_init(struct ts_trace *t);
/* Appends a path with the next id (returned in @id). */
TS_WUR int ts_trace_add_path(struct ts_trace *t, const char *path, uint32_t *id);
/* Same with its node (version 11 only; @node->flags TS_NODE_F_SET, ino >
 * 0, no other flag): -EINVAL otherwise. */
TS_WUR int ts_trace_add_path_node(struct ts_trace *t, const char *path,
				  const struct ts_trace_node *node, uint32_t *id);
/* The node of path @id, or NULL where the trace has none for it. */
static inline const struct ts_trace_node *ts_trace_node_of(const struct ts_trace *t, uint32_t id)
{
	return t->nodes && id < t->npaths && t->nodes[id].flags ? &t->nodes[id] : NULL;
}
/* Id of @path, adding it when new (linear in paths: for importers that
 * keep few files; they cache the last one). */
TS_WUR int ts_trace_intern(struct ts_trace *t, const char *path, uint32_t *id);
TS_WUR int ts_trace_add_rec(struct ts_trace *t, const struct ts_trace_rec *r);
TS_WUR int ts_trace_add_drops(struct ts_trace *t, uint64_t drops, uint64_t t_ns);
/* Attaches a CPU sample to the last record added (version 2 only; no item
 * may come between them, and the record may not have one yet). */
TS_WUR int ts_trace_add_cpu(struct ts_trace *t, const struct ts_trace_cpu *cpu);
/* Attaches block mode's request clock to the last record added (version 9
 * only; a read or write the model charged, after its CPU sample if it has
 * one, one per record, issue_ns <= submit_ns <= ... and issue_ns <=
 * end_ns). -EINVAL otherwise. */
TS_WUR int ts_trace_add_issue(struct ts_trace *t, const struct ts_trace_issue *is);
/* Record @i's request clock (version 9), or NULL where it has none or
 * only a watched one (version 10: not a clock the request was charged by). */
static inline const struct ts_trace_issue *ts_trace_issue_of(const struct ts_trace *t, size_t i)
{
	return t->issue && t->issue[i].set && !t->issue[i].watched ? &t->issue[i] : NULL;
}
/* Closes the pack of the TS_REC_F_PACKED records added since the last one
 * (version 10): each must have its CPU sample (flag TS_CPU_F_GAP, sys_ns
 * and late_ns within 32 bits), at most TS_TRACE_PACK_MAX of them.
 * -EINVAL otherwise. */
TS_WUR int ts_trace_add_pack(struct ts_trace *t);
/* Fills in the clocks of the samples left unread (TS_CPU_F_GAP) from the
 * read ones around them, per thread in submit order; traces/FORMAT.md
 * states the estimate. ts_trace_read() calls it. 0 or -ENOMEM. */
TS_WUR int ts_trace_cpu_fill(struct ts_trace *t);
/* Sets the trailer: @drops, @records, closed at @t_ns. */
TS_WUR int ts_trace_add_end(struct ts_trace *t, uint64_t drops, uint64_t records, uint64_t t_ns);

/* Path of @id or "" (never NULL). */
const char *ts_trace_path(const struct ts_trace *t, uint32_t id);

/* One line for the user about drops/truncation, or NULL when the trace is
 * whole and lossless. */
const char *ts_trace_warning(const struct ts_trace *t, char *buf, size_t n);

#endif
