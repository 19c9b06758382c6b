/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-3-Clause) */
/*
 * Kernel differences the BPF programs meet between 5.5 and 6.18, in one
 * place. Each entry names the commit that changed the kernel and the
 * release it landed in. Everything here is resolved by libbpf at load time
 * (CO-RE); a branch for another kernel is dead code the verifier removes.
 *
 * Fields that exist only on some supported kernels are reached through
 * local "___flavour" structs, never through the vmlinux.h definition, so
 * the programs also build against an older vmlinux.h (IOTRACE_VMLINUX_H).
 *
 * The helpers that take block-layer objects (bio, request, gendisk) are
 * called only from tp_btf programs, whose arguments are BTF pointers:
 * they load fields directly (ptr->field, relocated by CO-RE, checked by
 * the verifier) instead of through bpf_probe_read_kernel(), a helper call
 * each; on the fio random-read bench those calls were 8% of all CPU time
 * with tracing on. A pointer the verifier sees as a number needs
 * BPF_CORE_READ: one read from a `void *` field (bi_private), or made
 * from a number (a folio's head page), and everything reached through
 * it; so do the page and inode helpers, which the classic syscall
 * tracepoints (vfs.bpf.h) share. Where the kernel allows, the queue
 * program reads those by cast loads instead (IOTRACE_READ below).
 *
 * Not a field difference, so not handled here: the global sequence id is
 * taken with an atomic fetch-and-add, which BPF has only since commit
 * 5ca419f2864a ("bpf: Add BPF_FETCH field / create atomic_fetch_add
 * instruction"), v5.12. Older kernels reject the programs at load.
 */
#ifndef IOTRACE_CORE_FIXES_BPF_H
#define IOTRACE_CORE_FIXES_BPF_H

#include <vmlinux.h>
#include <bpf/bpf_core_read.h>

#include "iotrace_event.h"

/*
 * Tracepoint prototypes. Commits e8a676d61c07 ("block: simplify and extend
 * the block_bio_merge tracepoint class"), eb6f7f7cd3af ("block: remove the
 * request_queue argument to the block_split tracepoint") and a54895fa057c
 * ("block: remove the request_queue to argument request based
 * tracepoints"), all v5.11, dropped the leading request_queue argument of
 * block_bio_queue, block_split and block_rq_issue. A tp_btf program must
 * match the arity, so each has a second *_old program; user space keeps
 * one of each pair by probing the argument count of btf_trace_<name> in
 * the kernel BTF (as libbpf-tools' has_block_rq_issue_single_arg does).
 * block_bio_complete (q, bio) and block_rq_complete (rq, error, nr_bytes)
 * are unchanged over the supported range.
 */

/*
 * dev_t of a whole disk. MKDEV(major, first_minor) is what disk_devt()
 * returns on every supported kernel; before v5.11 disk_devt() read
 * part0.__dev.devt, which __device_add_disk() assigns from the same pair,
 * also for extended (major 259) devts. The kernel's dev_t encoding is the
 * IOTRACE_MKDEV one.
 */
static __always_inline __u32 iotrace_disk_devt(struct gendisk *disk)
{
	return IOTRACE_MKDEV(disk->major, disk->first_minor);
}

/*
 * commit 309dca309fc3 ("block: store a block_device pointer in struct
 * bio"), v5.12, replaced bio->bi_disk + bio->bi_partno with bio->bi_bdev.
 */
struct bio___bdev {
	struct block_device *bi_bdev;
} __attribute__((preserve_access_index));

struct bio___disk {
	struct gendisk *bi_disk;
} __attribute__((preserve_access_index));

/*
 * Whole-disk and partition dev_t of the device a bio was submitted to.
 *
 * v5.12+: bi_bdev stays the partition's block_device after
 * blk_partition_remap() (which only sets BIO_REMAPPED), so the partition is
 * the bdev whose bd_dev differs from its disk's. Comparing dev_ts avoids
 * bd_partno, which commit 1116b9fa15c0 ("bdev: infrastructure for flags"),
 * v6.10, folded into bd_flags.
 *
 * Before v5.12: blk_partition_remap() sets bi_partno = 0, and it runs in
 * generic_make_request_checks() before block_bio_queue fires, so the
 * partition is already gone at every block tracepoint; part is 0 there.
 */
static __always_inline void iotrace_bio_devs(struct bio *bio, __u32 *dev,
					     __u32 *part)
{
	struct bio___bdev *nb = (void *)bio;
	struct bio___disk *ob = (void *)bio;
	struct block_device *bdev;
	__u32 bd_dev;

	if (bpf_core_field_exists(nb->bi_bdev)) {
		bdev = nb->bi_bdev;
		*dev = iotrace_disk_devt(bdev->bd_disk);
		bd_dev = bdev->bd_dev;
		*part = bd_dev != *dev ? bd_dev : 0;
	} else {
		*dev = iotrace_disk_devt(ob->bi_disk);
		*part = 0;
	}
}

/* The disk of bdev and its partition (0 for the whole disk), read by probes. */
static __always_inline void iotrace_bdev_devs_probed(struct block_device *bdev, __u32 *dev,
						     __u32 *part)
{
	struct gendisk *disk = BPF_CORE_READ(bdev, bd_disk);
	__u32 bd_dev = BPF_CORE_READ(bdev, bd_dev);

	*dev = IOTRACE_MKDEV(BPF_CORE_READ(disk, major), BPF_CORE_READ(disk, first_minor));
	*part = bd_dev != *dev ? bd_dev : 0;
}

/*
 * iotrace_bio_devs() for a bio the verifier sees as a number, or reached
 * in a loop: with BTF pointers it keeps every iteration's state apart
 * and the walk of a request's bios at completion no longer verifies
 * ("BPF program is too large").
 */
static __always_inline void iotrace_bio_devs_probed(struct bio *bio, __u32 *dev,
						    __u32 *part)
{
	struct bio___bdev *nb = (void *)bio;
	struct bio___disk *ob = (void *)bio;
	struct gendisk *disk;

	if (bpf_core_field_exists(nb->bi_bdev)) {
		iotrace_bdev_devs_probed(BPF_CORE_READ(nb, bi_bdev), dev, part);
		return;
	}
	disk = BPF_CORE_READ(ob, bi_disk);
	*dev = IOTRACE_MKDEV(BPF_CORE_READ(disk, major), BPF_CORE_READ(disk, first_minor));
	*part = 0;
}

/*
 * commit d152c682f03c ("block: add an explicit ->disk backpointer to the
 * request_queue"), v5.15, added request_queue->disk; commit f3fa33acca9f
 * ("block: remove the ->rq_disk field in struct request"), v5.17, removed
 * request->rq_disk. Both exist in v5.15..v5.16; q->disk is preferred.
 */
struct request_queue___disk {
	struct gendisk *disk;
} __attribute__((preserve_access_index));

struct request___rq_disk {
	struct request_queue___disk *q;
	struct gendisk *rq_disk;
} __attribute__((preserve_access_index));

static __always_inline struct gendisk *iotrace_rq_disk(struct request *rq)
{
	struct request___rq_disk *r = (void *)rq;
	struct request_queue___disk *q = r->q;

	if (bpf_core_field_exists(q->disk))
		return q->disk;
	return r->rq_disk;
}

/*
 * gendisk->diskseq, v5.15: a number the kernel gives each medium a disk
 * holds (a loop device's backing file, a drive in its bay). 0 before.
 */
struct gendisk___seq {
	__u64 diskseq;
} __attribute__((preserve_access_index));

static __always_inline __u64 iotrace_disk_seq(struct gendisk *disk)
{
	struct gendisk___seq *g = (void *)disk;

	if (bpf_core_field_exists(g->diskseq))
		return g->diskseq;
	return 0;
}

/* The disk a bio was submitted to: see iotrace_bio_devs(). */
static __always_inline struct gendisk *iotrace_bio_disk(struct bio *bio)
{
	struct bio___bdev *nb = (void *)bio;
	struct bio___disk *ob = (void *)bio;

	if (bpf_core_field_exists(nb->bi_bdev))
		return nb->bi_bdev->bd_disk;
	return ob->bi_disk;
}

/*
 * bio->bi_write_hint: added as unsigned short in v4.13, removed by commit
 * c75e707fe1aa ("block: remove the per-bio/request write hint"), v5.18,
 * and restored as enum rw_hint (1 byte) by commit 449813515d3e ("block,
 * fs: Restore the per-bio/request data lifetime fields"), v6.9. An enum
 * and an integer are not CO-RE compatible, hence one flavour per type;
 * BPF_CORE_READ_BITFIELD loads the target's size, whatever it is.
 */
struct bio___hint_enum {
	enum rw_hint bi_write_hint;
} __attribute__((preserve_access_index));

struct bio___hint_u16 {
	unsigned short bi_write_hint;
} __attribute__((preserve_access_index));

static __always_inline __u8 iotrace_bio_write_hint(struct bio *bio)
{
	struct bio___hint_enum *he = (void *)bio;
	struct bio___hint_u16 *hu = (void *)bio;

	if (bpf_core_field_exists(he->bi_write_hint))
		return BPF_CORE_READ_BITFIELD(he, bi_write_hint);
	if (bpf_core_field_exists(hu->bi_write_hint))
		return BPF_CORE_READ_BITFIELD(hu, bi_write_hint);
	return 0;
}

/*
 * REQ_OP_* values. commit ff07a02e9e8e ("treewide: Rename enum req_opf
 * into enum req_op"), v6.0, renamed the enum; its values have lived in the
 * low REQ_OP_BITS (8) bits of bi_opf / cmd_flags since v4.10. Both names
 * are declared here with flavoured enumerators so neither clashes with
 * vmlinux.h; the values given are only what v6.18 uses, libbpf replaces
 * them with the running kernel's.
 */
enum req_op___new {
	REQ_OP_READ___new = 0,
	REQ_OP_WRITE___new = 1,
	REQ_OP_FLUSH___new = 2,
	REQ_OP_DISCARD___new = 3,
	REQ_OP_SECURE_ERASE___new = 5,
	REQ_OP_WRITE_ZEROES___new = 9,
	REQ_OP_DRV_IN___new = 34,
	REQ_OP_DRV_OUT___new = 35,
};

enum req_opf___old {
	REQ_OP_READ___old = 0,
	REQ_OP_WRITE___old = 1,
	REQ_OP_FLUSH___old = 2,
	REQ_OP_DISCARD___old = 3,
	REQ_OP_SECURE_ERASE___old = 5,
	REQ_OP_WRITE_ZEROES___old = 9,
	REQ_OP_SCSI_IN___old = 32,
	REQ_OP_SCSI_OUT___old = 33,
	REQ_OP_DRV_IN___old = 34,
	REQ_OP_DRV_OUT___old = 35,
};

#define IOTRACE_REQ_OP_MASK ((1u << 8) - 1)

#define IOTRACE_REQ_OP(name)                                                  \
	(bpf_core_enum_value_exists(enum req_op___new, REQ_OP_##name##___new) \
		 ? bpf_core_enum_value(enum req_op___new,                     \
				       REQ_OP_##name##___new)                 \
		 : bpf_core_enum_value(enum req_opf___old,                    \
				       REQ_OP_##name##___old))

/*
 * Passthrough requests (SG_IO, NVMe passthrough, SCSI internal commands
 * such as TEST UNIT READY) carry REQ_OP_DRV_IN/OUT; SCSI used
 * REQ_OP_SCSI_IN/OUT until "block: remove REQ_OP_SCSI_{IN,OUT}", v5.14.
 * Their bios, if any, never pass block_bio_queue.
 */
static __always_inline bool iotrace_op_is_passthrough(__u32 op)
{
	if (op == IOTRACE_REQ_OP(DRV_IN) || op == IOTRACE_REQ_OP(DRV_OUT))
		return true;
	if (bpf_core_enum_value_exists(enum req_opf___old,
				       REQ_OP_SCSI_IN___old))
		return op == bpf_core_enum_value(enum req_opf___old,
						 REQ_OP_SCSI_IN___old) ||
		       op == bpf_core_enum_value(enum req_opf___old,
						 REQ_OP_SCSI_OUT___old);
	return false;
}

/*
 * __REQ_* bit positions moved many times (e.g. __REQ_NOUNMAP, __REQ_POLLED
 * and __REQ_ALLOC_CACHE insertions shifted the bits after them), so each
 * is read from enum req_flag_bits, which has existed under that name with
 * these enumerators since v4.10.
 */
#define IOTRACE_REQ_FLAG(name) \
	(1u << bpf_core_enum_value(enum req_flag_bits, __REQ_##name))

/*
 * RQF_FLUSH_SEQ marks a request the flush state machine owns. It was
 * (1 << 4) from v4.10 until commit 5f89154e8e9e ("block: Use enum to
 * define RQF_x bit indexes"), v6.12, made it 1 << __RQF_FLUSH_SEQ of
 * enum rqf_flags.
 */
enum rqf_flags___x {
	__RQF_FLUSH_SEQ___x = 1,
};

static __always_inline __u32 iotrace_rqf_flush_seq(void)
{
	if (bpf_core_enum_value_exists(enum rqf_flags___x, __RQF_FLUSH_SEQ___x))
		return 1u << bpf_core_enum_value(enum rqf_flags___x,
						 __RQF_FLUSH_SEQ___x);
	return 1u << 4;
}

/*
 * Loads without helper calls from any kernel address. bpf_rdonly_cast()
 * (commit a35b9af4ec2c "bpf: Add a kfunc for generic type cast", v6.2)
 * turns an address into a read-only BTF pointer; the verifier turns the
 * call into a register move, and the JIT inlines each load through it,
 * guarded like a probe read (a load that faults reads 0). Each
 * bpf_probe_read_kernel() is a helper call instead. With the calls, the
 * queue program took 480 ns a run for fio's random reads on a raw loop
 * device and 1000 for direct reads of a file on ext4; with the loads, 365
 * and 540 (bpf_stats, 100k and 50k IOPS).
 *
 * Where the kernel lacks it, libbpf leaves the call unresolved, which
 * older verifiers refuse even in dead code; so only programs of their own
 * use it (the *_cast variants), and user space loads them where the
 * kernel's BTF has the kfunc. The helpers below take `cast`, a constant
 * in each program, so each variant has one of the two paths only.
 */
extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym __weak;

#define IOTRACE_CAST(ptr, type) \
	((type *)bpf_rdonly_cast((const void *)(ptr), bpf_core_type_id_kernel(type)))

/* ptr->field: a cast load if cast, else a probe read */
#define IOTRACE_READ(cast, ptr, field) \
	((cast) ? IOTRACE_CAST(ptr, typeof(*(ptr)))->field : BPF_CORE_READ(ptr, field))

/*
 * The word at addr as a number. A cast load is typed by the field it
 * reads: a pointer field (or the first member of a union, like struct
 * page's lru over compound_head) loads as a pointer, on which the
 * verifier forbids the bit tests the caller needs. So the word is read
 * as the first word of a struct page put at addr: page->flags, a number
 * (or a struct of one) at offset 0 on every kernel.
 */
static __always_inline unsigned long iotrace_word_at(const void *addr, const bool cast)
{
	unsigned long word = 0;

	if (cast)
		return *(const unsigned long *)IOTRACE_CAST(addr, struct page);
	bpf_probe_read_kernel(&word, sizeof(word), addr);
	return word;
}

/*
 * The file index of a page-cache page. commit "mm: rename page->index to
 * page->__folio_index" (Matthew Wilcox, v6.16) renamed the field; the
 * value and its place (the head page of the folio) are unchanged. Read
 * it from the head page: tail pages of a large folio (ext4 and xfs use
 * them for regular files) have neither mapping nor index of their own.
 */
struct page___folio_index {
	unsigned long __folio_index;
} __attribute__((preserve_access_index));

struct page___index {
	unsigned long index;
} __attribute__((preserve_access_index));

static __always_inline __u64 iotrace_page_index(struct page *head, const bool cast)
{
	struct page___folio_index *n = (void *)head;
	struct page___index *o = (void *)head;

	if (bpf_core_field_exists(n->__folio_index))
		return IOTRACE_READ(cast, n, __folio_index);
	return IOTRACE_READ(cast, o, index);
}

/*
 * The head page of a compound page (large folio): page->compound_head
 * holds head + 1 for a tail page since commit 1d798ca3f164 ("mm: make
 * compound_head() robust"), v4.6, and is still there in v6.18.
 */
static __always_inline struct page *iotrace_page_head(struct page *page, const bool cast)
{
	unsigned long head = iotrace_word_at(
		(char *)page + bpf_core_field_offset(struct page, compound_head), cast);

	return head & 1 ? (struct page *)(head - 1) : page;
}

/*
 * Inode ctime. Commit 13bc24457850 ("fs: rename i_ctime field to
 * __i_ctime"), v6.6, renamed the timespec64; commit 3aa63a569c64 ("fs:
 * switch timespec64 fields in inode to discrete integers"), v6.11, split
 * it into i_ctime_sec and i_ctime_nsec. Since "fs: add infrastructure for
 * multigrain timestamps", v6.13, bit 31 of i_ctime_nsec is the
 * I_CTIME_QUERIED flag, not time: masked (harmless before, as nanoseconds
 * stay below 2^30).
 */
struct inode___ctime_sec {
	time64_t i_ctime_sec;
	u32 i_ctime_nsec;
} __attribute__((preserve_access_index));

struct inode___i_ctime_new {
	struct timespec64 __i_ctime;
} __attribute__((preserve_access_index));

struct inode___i_ctime_old {
	struct timespec64 i_ctime;
} __attribute__((preserve_access_index));

static __always_inline void iotrace_inode_ctime(struct inode *inode,
						__s64 *sec, __u32 *nsec)
{
	struct inode___ctime_sec *a = (void *)inode;
	struct inode___i_ctime_new *b = (void *)inode;
	struct inode___i_ctime_old *c = (void *)inode;

	if (bpf_core_field_exists(a->i_ctime_sec)) {
		*sec = BPF_CORE_READ(a, i_ctime_sec);
		*nsec = BPF_CORE_READ(a, i_ctime_nsec) & ~(1u << 31);
	} else if (bpf_core_field_exists(b->__i_ctime)) {
		*sec = BPF_CORE_READ(b, __i_ctime.tv_sec);
		*nsec = BPF_CORE_READ(b, __i_ctime.tv_nsec);
	} else {
		*sec = BPF_CORE_READ(c, i_ctime.tv_sec);
		*nsec = BPF_CORE_READ(c, i_ctime.tv_nsec);
	}
}

/*
 * A file's birth time, where its file system keeps one: ext4's i_crtime,
 * xfs's i_crtime, btrfs's i_otime, each in the file system's inode that
 * embeds struct inode (found by name: ext2 and ext3 mounted by their own
 * driver have no such struct around their inodes). ext4 reads i_crtime
 * from disk only if the inode has room for it (i_extra_isize covers
 * i_crtime_extra: 24 bytes past the 128 of the old inode), and leaves it
 * stale otherwise; xfs v4 has none (0). btrfs split its timespec64
 * i_otime into i_otime_sec and i_otime_nsec in "btrfs: open code
 * timespec64 in struct btrfs_inode", v6.7. Returns false where there is
 * no birth time to read.
 */
struct ext4_inode_info___btime {
	__u16 i_extra_isize;
	struct timespec64 i_crtime;
	struct inode vfs_inode;
} __attribute__((preserve_access_index));

struct xfs_inode___btime {
	struct timespec64 i_crtime;
	struct inode i_vnode;
} __attribute__((preserve_access_index));

struct btrfs_inode___otime_sec {
	__u64 i_otime_sec;
	__u32 i_otime_nsec;
	struct inode vfs_inode;
} __attribute__((preserve_access_index));

struct btrfs_inode___otime_ts {
	struct timespec64 i_otime;
	struct inode vfs_inode;
} __attribute__((preserve_access_index));

#define IOTRACE_EXT4_CRTIME_EXTRA_ISIZE 24

/* a file system type's name of up to 5 bytes as the u64 its bytes make, NUL-padded */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define IOTRACE_FS_NAME(a, b, c, d, e) \
	((__u64)(a) | (__u64)(b) << 8 | (__u64)(c) << 16 | (__u64)(d) << 24 | (__u64)(e) << 32)
#else
#define IOTRACE_FS_NAME(a, b, c, d, e) \
	((__u64)(a) << 56 | (__u64)(b) << 48 | (__u64)(c) << 40 | (__u64)(d) << 32 | \
	 (__u64)(e) << 24)
#endif

/*
 * The name of sb's file system type as IOTRACE_FS_NAME() makes it (a
 * longer one is cut to 7 bytes: no match), 0 if unread. By name, not
 * magic: ext2's magic is ext4's, and ext2 may be its own driver.
 */
static __always_inline __u64 iotrace_fs_type(struct super_block *sb)
{
	__u64 fs = 0;

	if (bpf_probe_read_kernel_str(&fs, sizeof(fs), BPF_CORE_READ(sb, s_type, name)) < 0)
		return 0;
	return fs;
}

static __always_inline bool iotrace_inode_btime(struct inode *inode, struct super_block *sb,
						__s64 *sec, __u32 *nsec)
{
	__u64 fs = iotrace_fs_type(sb);

	*sec = 0;
	*nsec = 0;
	if (fs == IOTRACE_FS_NAME('e', 'x', 't', '4', 0) &&
	    bpf_core_type_exists(struct ext4_inode_info___btime)) {
		struct ext4_inode_info___btime *ei = (void *)((char *)inode -
			bpf_core_field_offset(struct ext4_inode_info___btime, vfs_inode));

		if (BPF_CORE_READ(ei, i_extra_isize) < IOTRACE_EXT4_CRTIME_EXTRA_ISIZE)
			return false;
		*sec = BPF_CORE_READ(ei, i_crtime.tv_sec);
		*nsec = BPF_CORE_READ(ei, i_crtime.tv_nsec);
	} else if (fs == IOTRACE_FS_NAME('x', 'f', 's', 0, 0) &&
		   bpf_core_type_exists(struct xfs_inode___btime)) {
		struct xfs_inode___btime *xi = (void *)((char *)inode -
			bpf_core_field_offset(struct xfs_inode___btime, i_vnode));

		*sec = BPF_CORE_READ(xi, i_crtime.tv_sec);
		*nsec = BPF_CORE_READ(xi, i_crtime.tv_nsec);
	} else if (fs == IOTRACE_FS_NAME('b', 't', 'r', 'f', 's')) {
		struct btrfs_inode___otime_sec *a;
		struct btrfs_inode___otime_ts *b;

		if (bpf_core_field_exists(struct btrfs_inode___otime_sec, i_otime_sec)) {
			a = (void *)((char *)inode -
				     bpf_core_field_offset(struct btrfs_inode___otime_sec, vfs_inode));
			*sec = (__s64)BPF_CORE_READ(a, i_otime_sec);
			*nsec = BPF_CORE_READ(a, i_otime_nsec);
		} else if (bpf_core_field_exists(struct btrfs_inode___otime_ts, i_otime)) {
			b = (void *)((char *)inode -
				     bpf_core_field_offset(struct btrfs_inode___otime_ts, vfs_inode));
			*sec = BPF_CORE_READ(b, i_otime.tv_sec);
			*nsec = BPF_CORE_READ(b, i_otime.tv_nsec);
		}
	}
	return (*sec || *nsec) && *nsec < 1000000000u;
}

/*
 * The dentry alias of an inode: inode->i_dentry is a list of dentries
 * linked through dentry->d_u.d_alias since commit 946e51f2bf37 ("move
 * d_rcu from overlapping d_child to overlapping d_alias"), v3.19, and
 * still in v6.18. In v6.18 d_name shares a union with __d_name; the name
 * d_name reads the same on every supported kernel.
 */
static __always_inline struct dentry *iotrace_inode_alias(struct inode *inode,
							 const bool cast)
{
	struct hlist_node *first = IOTRACE_READ(cast, inode, i_dentry.first);

	if (!first)
		return NULL;
	return (struct dentry *)((char *)first -
				 bpf_core_field_offset(struct dentry, d_u.d_alias));
}

#endif /* IOTRACE_CORE_FIXES_BPF_H */
