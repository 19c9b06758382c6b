/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-3-Clause) */
/*
 * The file of a btrfs data bio.
 *
 * btrfs does not send its direct I/O through iomap's end_io (its own
 * submit_io re-wraps each bio), and it reads compressed extents into
 * pages of its own; neither kind of page names a file. But btrfs builds
 * every bio it submits inside a struct btrfs_bio (fs/btrfs/bio.h), which
 * holds the inode and the file offset the bio starts at; the bios it
 * splits at stripe boundaries are btrfs_bios too, each with its own
 * offset. Such a bio reaches the device with bi_end_io set to
 * btrfs_simple_end_io (one copy: single and DUP reads, single writes) or
 * btrfs_orig_write_end_io (the last copy of a mirrored write); the other
 * copies are plain clones and keep only what their pages say.
 *
 * Those end_io functions are static: a kernel without them, or without
 * btrfs, resolves the weak symbols to 0 and never matches.
 */
#ifndef IOTRACE_BTRFS_BPF_H
#define IOTRACE_BTRFS_BPF_H

extern const void btrfs_simple_end_io __ksym __weak;
extern const void btrfs_orig_write_end_io __ksym __weak;
extern const void btrfs_dio_end_io __ksym __weak;

struct btrfs_bio___iotrace {
	struct btrfs_inode *inode;
	__u64 file_offset;
	void *end_io;
	void *private;
	struct bio bio;
} __attribute__((preserve_access_index));

struct btrfs_root___iotrace {
	dev_t anon_dev;
} __attribute__((preserve_access_index));

struct btrfs_inode___iotrace {
	struct btrfs_root___iotrace *root;
	struct inode vfs_inode;
} __attribute__((preserve_access_index));

/* The btrfs_bio that holds bio, or NULL if bio is not one btrfs submits. */
static __always_inline struct btrfs_bio___iotrace *iotrace_btrfs_bio(struct bio *bio)
{
	void *end_io = (void *)bio->bi_end_io;

	if (!bpf_core_field_exists(struct btrfs_bio___iotrace, inode) ||
	    !bpf_core_field_exists(struct btrfs_bio___iotrace, file_offset) ||
	    !bpf_core_field_exists(struct btrfs_inode___iotrace, vfs_inode))
		return NULL;
	if (!(&btrfs_simple_end_io && end_io == &btrfs_simple_end_io) &&
	    !(&btrfs_orig_write_end_io && end_io == &btrfs_orig_write_end_io))
		return NULL;
	return (void *)((char *)bio - bpf_core_field_offset(struct btrfs_bio___iotrace, bio));
}

/*
 * The inode of btrfs data bio `bio` (NULL for none: metadata bios name
 * the btree inode, which is not a regular file, and the caller checks
 * the mode) and, in *pos, the file offset in bytes it starts at.
 */
static __always_inline struct inode *iotrace_btrfs_inode(struct bio *bio, __u64 *pos,
							 const bool cast)
{
	struct btrfs_bio___iotrace *bbio = iotrace_btrfs_bio(bio);
	struct btrfs_inode___iotrace *bi;

	if (!bbio)
		return NULL;
	bi = (void *)IOTRACE_READ(cast, bbio, inode);
	if (!bi)
		return NULL;
	*pos = IOTRACE_READ(cast, bbio, file_offset);
	return (struct inode *)((char *)bi +
				bpf_core_field_offset(struct btrfs_inode___iotrace, vfs_inode));
}

/*
 * The iomap direct I/O a btrfs data bio is part of, or NULL. btrfs hands
 * iomap's bio on as a btrfs_bio whose end_io is btrfs_dio_end_io and
 * whose private is the struct iomap_dio; a piece split off it at a stripe
 * boundary has no end_io and the original as private.
 */
static __always_inline struct iomap_dio *iotrace_btrfs_dio(struct bio *bio, const bool cast)
{
	struct btrfs_bio___iotrace *bbio;
	void *end_io;

	if (!&btrfs_dio_end_io ||
	    !bpf_core_field_exists(struct btrfs_bio___iotrace, end_io) ||
	    !bpf_core_field_exists(struct btrfs_bio___iotrace, private))
		return NULL;
	bbio = iotrace_btrfs_bio(bio);
	if (!bbio)
		return NULL;
	end_io = IOTRACE_READ(cast, bbio, end_io);
	if (!end_io) {
		bbio = IOTRACE_READ(cast, bbio, private);
		if (!bbio)
			return NULL;
		end_io = IOTRACE_READ(cast, bbio, end_io);
	}
	if (end_io != &btrfs_dio_end_io)
		return NULL;
	return IOTRACE_READ(cast, bbio, private);
}

/*
 * btrfs keeps its metadata (the trees) in the page cache of an internal
 * inode, number 1 (BTRFS_BTREE_INODE_OBJECTID), which has S_IFREG and
 * the largest possible size; a file's inode numbers start at 256.
 */
#define IOTRACE_BTRFS_MAGIC 0x9123683e
#define IOTRACE_BTRFS_BTREE_INO 1

static __always_inline bool iotrace_btrfs_btree_inode(struct inode *inode, const bool cast)
{
	struct super_block *sb;

	if (IOTRACE_READ(cast, inode, i_ino) != IOTRACE_BTRFS_BTREE_INO)
		return false;
	sb = IOTRACE_READ(cast, inode, i_sb);
	return IOTRACE_READ(cast, sb, s_magic) == IOTRACE_BTRFS_MAGIC;
}

/*
 * The device number a file of superblock sb is known by. btrfs gives each
 * subvolume (and snapshot) an anonymous device of its own, and stat's
 * st_dev shows it: inode numbers restart in each, and a snapshot keeps
 * its source's inode numbers, generations and times, so the superblock's
 * number would give two files one FileId. Other file systems: s_dev.
 */
static __always_inline __u32 iotrace_file_dev(struct inode *inode, struct super_block *sb,
					      const bool cast)
{
	__u32 dev = IOTRACE_READ(cast, sb, s_dev);
	struct btrfs_inode___iotrace *bi;
	struct btrfs_root___iotrace *root;
	__u32 anon;

	if (!bpf_core_field_exists(struct btrfs_inode___iotrace, root) ||
	    !bpf_core_field_exists(struct btrfs_root___iotrace, anon_dev) ||
	    IOTRACE_READ(cast, sb, s_magic) != IOTRACE_BTRFS_MAGIC)
		return dev;
	bi = (void *)((char *)inode - bpf_core_field_offset(struct btrfs_inode___iotrace, vfs_inode));
	root = (void *)IOTRACE_READ(cast, bi, root);
	anon = root ? IOTRACE_READ(cast, root, anon_dev) : 0;
	return anon ? anon : dev;
}

#endif
