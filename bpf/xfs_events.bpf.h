/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-3-Clause) */
/*
 * xfs's own unlink and rename tracepoints, for the file events of
 * fs_events.bpf.h whose paths the walk of the dentry cache did not
 * resolve, and a rename's replaced file it did not find. Part of
 * iotrace.bpf.c (after fs_events.bpf.h).
 *
 * xfs:xfs_remove and xfs:xfs_rename give the directories and the names,
 * not the dentries. The VFS looked the names up just before and holds
 * their dentries, so each is the one hashed child of its name in its
 * directory's cached children: among the newest if the lookup read it
 * from disk (a cold cache), else where it was. So only the newest few are
 * looked at: a second search of thousands, each time the walk's fails
 * in a large directory, doubled the cost of a traced unlink there; a
 * rename's file not among them is found at the exit (resolve_moved()). An
 * unlink that removes a file's last name then meets xfs:xfs_iunlink,
 * which gives the inode, and so its one name left; one that removes
 * another name meets the xfs:xfs_dir2_*_removename of its directory's
 * format, which give the inode number: enough to name the file again
 * (link_gone()).
 * Attached with the syscall programs, where the kernel has them.
 */
#ifndef IOTRACE_XFS_EVENTS_BPF_H
#define IOTRACE_XFS_EVENTS_BPF_H

/* a directory's newest cached children where a name just looked up is sought */
#define IOTRACE_FRESH_SIBLINGS 64

static __always_inline struct inode *xfs_vfs_inode(struct xfs_inode *ip)
{
	return (void *)((char *)ip + bpf_core_field_offset(struct xfs_inode, i_vnode));
}

/* The cached child called name of the xfs directory dp, or NULL. */
static __always_inline struct dentry *xfs_child(struct xfs_inode *dp,
						const struct xfs_name *name)
{
	struct path_walk *w = walk_state();
	struct dentry *parent = iotrace_inode_alias(xfs_vfs_inode(dp), false);
	const unsigned char *s = BPF_CORE_READ(name, name);
	int len = BPF_CORE_READ(name, len);

	if (!w || !parent || len <= 0 || len >= IOTRACE_PATH_LEN)
		return NULL;
	clear_buf(w->comp);
	if (bpf_probe_read_kernel(w->comp, len & (IOTRACE_PATH_LEN - 1), s))
		return NULL;
	w->clen = len;
	return cached_child(w, parent, IOTRACE_FRESH_SIBLINGS);
}

SEC("tp_btf/xfs_remove")
int BPF_PROG(handle_xfs_remove, struct xfs_inode *dp, const struct xfs_name *name)
{
	struct ns_op *p = pending_op(false);

	if (p)
		start_late(p, xfs_child(dp, name));
	return 0;
}

/*
 * The file an unlink (still unresolved) takes the last name of, or a
 * rename replaces (not found yet; not in an exchange, whose file keeps a
 * name). A rename's whiteout (overlayfs) is a new file of no name yet.
 */
SEC("tp_btf/xfs_iunlink")
int BPF_PROG(handle_xfs_iunlink, struct xfs_inode *ip)
{
	struct dentry *d = iotrace_inode_alias(xfs_vfs_inode(ip), false);
	struct ns_op *p = pending_op(false);

	if (p) {
		start_late(p, d);
		return 0;
	}
	p = pending_op(true);
	if (p && !p->exchange)
		late_replaced(p, d, true);
	return 0;
}

/*
 * The inode whose name an unlink (still unresolved) removes: its number
 * and device, in the file id, which is unset until the call is resolved.
 */
static __always_inline void xfs_removed(struct xfs_da_args *args)
{
	struct ns_op *p = pending_op(false);

	if (!p)
		return;
	p->st.file.ino = BPF_CORE_READ(args, inumber);
	p->st.file.dev = BPF_CORE_READ(args, dp, i_mount, m_super, s_dev);
}

/* one for each format of directory: short form, block, leaf, node */
#define IOTRACE_XFS_REMOVENAME(fmt)						\
	SEC("tp_btf/xfs_dir2_" #fmt "_removename")				\
	int BPF_PROG(handle_xfs_##fmt##_removename, struct xfs_da_args *args)	\
	{									\
		xfs_removed(args);						\
		return 0;							\
	}

IOTRACE_XFS_REMOVENAME(sf)
IOTRACE_XFS_REMOVENAME(block)
IOTRACE_XFS_REMOVENAME(leaf)
IOTRACE_XFS_REMOVENAME(node)

SEC("tp_btf/xfs_rename")
int BPF_PROG(handle_xfs_rename, struct xfs_inode *src_dp, struct xfs_inode *target_dp,
	     struct xfs_name *src_name, struct xfs_name *target_name)
{
	struct ns_op *p = pending_op(true);
	struct dentry *d;

	if (p && p->unresolved) {
		d = xfs_child(src_dp, src_name);
		/* not found: p stays, unresolved, for the exit */
		if (d)
			p = start_late(p, d);
	}
	if (p)
		late_replaced(p, xfs_child(target_dp, target_name), false);
	return 0;
}

#endif /* IOTRACE_XFS_EVENTS_BPF_H */
