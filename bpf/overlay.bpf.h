/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-3-Clause) */
/*
 * The real file behind an overlayfs file (containers' root file systems).
 *
 * A system call on a container's file names an overlayfs inode, whose
 * superblock is an anonymous device of overlayfs; its data lives in a
 * file of the upper layer once the file has been written (copied up),
 * else in a lower layer, both on real file systems. Block I/O meets only
 * that real file, through its pages or its direct-I/O state. So a call is
 * traced, attributed and named as a call on the real file: the two join
 * on one FileId, and the path is the real file's on its file system
 * (/var/lib/containers/.../diff/etc/app.conf), as for its block I/O.
 *
 * struct ovl_inode (fs/overlayfs/ovl_entry.h) holds the upper dentry and,
 * since v6.5 ("ovl: move ovl_entry into ovl_inode"), the lower stack,
 * whose last entry holds the data (ovl_lowerdata()); before that it held
 * the lower inode itself. Either way the real inode is named through its
 * dentry alias, as its block I/O is.
 */
#ifndef IOTRACE_OVERLAY_BPF_H
#define IOTRACE_OVERLAY_BPF_H

#define IOTRACE_OVL_MAGIC 0x794c7630

struct ovl_path___iotrace {
	struct dentry *dentry;
} __attribute__((preserve_access_index));

struct ovl_entry___iotrace {
	unsigned int __numlower;
	struct ovl_path___iotrace __lowerstack[0];
} __attribute__((preserve_access_index));

struct ovl_inode___iotrace {
	struct inode vfs_inode;
	struct dentry *__upperdentry;
	struct ovl_entry___iotrace *oe;
	struct inode *lower;
} __attribute__((preserve_access_index));

static __always_inline bool iotrace_is_ovl(struct super_block *sb, const bool cast)
{
	return IOTRACE_READ(cast, sb, s_magic) == IOTRACE_OVL_MAGIC;
}

static __always_inline struct ovl_inode___iotrace *iotrace_ovl_inode(struct inode *inode)
{
	if (!bpf_core_field_exists(struct ovl_inode___iotrace, vfs_inode) ||
	    !bpf_core_field_exists(struct ovl_inode___iotrace, __upperdentry))
		return NULL;
	return (void *)((char *)inode - bpf_core_field_offset(struct ovl_inode___iotrace, vfs_inode));
}

/* The upper-layer dentry of overlayfs inode `inode`; NULL before a copy-up. */
static __always_inline struct dentry *iotrace_ovl_upper(struct inode *inode, const bool cast)
{
	struct ovl_inode___iotrace *oi = iotrace_ovl_inode(inode);

	return oi ? IOTRACE_READ(cast, oi, __upperdentry) : NULL;
}

/*
 * The real inode of overlayfs inode `inode`, or NULL: its upper file's,
 * else that of the lower layer that holds its data.
 */
static __always_inline struct inode *iotrace_ovl_real(struct inode *inode, const bool cast)
{
	struct ovl_inode___iotrace *oi = iotrace_ovl_inode(inode);
	struct dentry *d = iotrace_ovl_upper(inode, cast);
	struct ovl_entry___iotrace *oe;
	unsigned int n;
	char *slot;

	if (d)
		return IOTRACE_READ(cast, d, d_inode);
	if (!oi)
		return NULL;
	if (bpf_core_field_exists(struct ovl_inode___iotrace, oe)) {
		oe = IOTRACE_READ(cast, oi, oe);
		n = oe ? IOTRACE_READ(cast, oe, __numlower) : 0;
		/* OVL_MAX_STACK */
		if (!n || n > 500)
			return NULL;
		/* read as a number: the verifier refuses a variable offset from a cast pointer */
		slot = (char *)oe + bpf_core_field_offset(struct ovl_entry___iotrace, __lowerstack) +
		       (n - 1) * bpf_core_type_size(struct ovl_path___iotrace) +
		       bpf_core_field_offset(struct ovl_path___iotrace, dentry);
		d = (struct dentry *)iotrace_word_at(slot, cast);
		return d ? IOTRACE_READ(cast, d, d_inode) : NULL;
	}
	if (bpf_core_field_exists(struct ovl_inode___iotrace, lower))
		return IOTRACE_READ(cast, oi, lower);
	return NULL;
}

#endif /* IOTRACE_OVERLAY_BPF_H */
