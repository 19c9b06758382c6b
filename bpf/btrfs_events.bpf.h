/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-3-Clause) */
/*
 * btrfs's eviction tracepoint, for the file an unlink removes or a rename
 * replaces that the walk of the dentry cache did not find. Part of
 * iotrace.bpf.c (after fs_events.bpf.h).
 *
 * btrfs has no tracepoint that names those files: the walk alone looks
 * for them, among the 4096 newest cached entries of their directory. One
 * it did not find (an old entry of a large directory, a cold cache) is
 * met as its inode is evicted: its last name gone and nothing holding it
 * open, btrfs evicts it inside the call, as the VFS drops the dentry, on
 * the calling thread. An inode is evicted with no link left only then:
 * one merely evicted from the cache keeps its links. Its dentry is gone by
 * then, so it is named from the call's path unless the trace named it
 * since the rename epoch last moved (name_by_path()): here, where the
 * call still holds the path's directory; at the exit another task's
 * cache drop may have taken it (the exit tries again, and counts the call
 * unresolved if that fails). A file still open elsewhere is evicted at
 * its last close, outside the call: such an unlink stays counted as
 * unresolved, and such a replaced file is taken for none, as before.
 * Attached with the syscall programs, where the kernel has it.
 */
#ifndef IOTRACE_BTRFS_EVENTS_BPF_H
#define IOTRACE_BTRFS_EVENTS_BPF_H

SEC("tp_btf/btrfs_inode_evict")
int BPF_PROG(handle_btrfs_evict, struct inode *inode)
{
	struct file_seen *f;
	struct ns_op *p;

	if (BPF_CORE_READ(inode, i_nlink) ||
	    (BPF_CORE_READ(inode, i_mode) & IOTRACE_S_IFMT) != IOTRACE_S_IFREG ||
	    !fs_dev_traced(BPF_CORE_READ(inode, i_sb, s_dev)))
		return 0;
	p = pending_op(false);
	if (p) {
		f = file_entry(inode, &p->st.file);
		if (f) {
			p->st.dev = p->st.file.dev;
			p->unresolved = false;
			p->evicted = true;
			p->evict_named = name_by_path(f, p->odfd, p->uold, p->kpaths,
						      &p->st.file);
		}
		return 0;
	}
	p = pending_op(true);
	/* an exchange removes no file */
	if (!p || p->exchange || p->has_replaced)
		return 0;
	f = file_entry(inode, &p->replaced);
	if (f) {
		p->has_replaced = true;
		p->replaced_evicted = true;
		p->evict_named = name_by_path(f, p->ndfd, p->unew, p->kpaths, &p->replaced);
	}
	return 0;
}

#endif /* IOTRACE_BTRFS_EVENTS_BPF_H */
