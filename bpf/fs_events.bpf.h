/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-3-Clause) */
/*
 * OCTF Delete, MoveFrom and MoveTo events from unlink(2) and rename(2),
 * part of iotrace.bpf.c (after vfs.bpf.h, whose helpers it uses, and
 * path_walk.bpf.h).
 *
 * These calls name their file by a path, and the inode behind it is gone
 * (unlink) or renamed (rename) by the time the call returns. With no
 * kprobe on vfs_unlink() allowed, the path is resolved here, at the
 * syscall's entry, through the dentry cache (path_walk.bpf.h). A
 * component not in the cache (a file never looked up since the cache was
 * dropped), a symlink on the way it cannot follow, a path of
 * IOTRACE_PATH_LEN - 1 bytes or more (read cut short, it could name
 * another file) or one of more steps than IOTRACE_MAX_COMPONENTS makes
 * the event unresolved: it is counted, not sent. The syscall just ahead
 * looks the same path up, so a file the caller is about to remove is
 * nearly always cached. A renamed file is still there at the exit, under
 * its new name, first among its directory's children: a rename's old
 * name is not looked for (resolve_moved()).
 *
 * Needs bpf_loop (v5.17) and bpf_rdonly_cast() (v6.2); user space loads
 * these programs only where the kernel has both.
 */
#ifndef IOTRACE_FS_EVENTS_BPF_H
#define IOTRACE_FS_EVENTS_BPF_H

#define IOTRACE_RENAME_EXCHANGE 2
/* file_system_type.fs_flags: on block devices (include/linux/fs.h) */
#define IOTRACE_FS_REQUIRES_DEV 1

/*
 * A name a rename left to the file system (handle_ext4_dirty()): the
 * directory, the length and the first 8 bytes (head_word()) that the
 * dentry of the file it names has until the rename moves it. The
 * directory is matched by its inode number: a cache drop before the
 * call's lookup frees the dentry the walk found, and the call makes
 * another.
 */
struct name_at {
	struct dentry *dir;
	__u64 dir_ino;
	__u64 head;
	__u32 len;
};

/*
 * An unlink or rename in progress, by thread id; one io_uring makes, by
 * request address (uring.bpf.h), from its hand-off to io-wq, where the
 * file system's own tracepoints meet it (ns_key()).
 */
struct ns_op {
	struct vfs_state st;
	struct dentry *dentry;
	/*
	 * the file of a traced device at the new name: deleted by a rename
	 * that succeeds, or moved to the old name by an exchange (dentry2)
	 */
	struct iotrace_file_id replaced;
	struct dentry *dentry2;
	bool has_replaced, exchange;
	/* an unlink of one of several hard links: the file lives on, no Delete */
	bool link_only;
	/* its path was not resolved inside a traced file system: counted if the call succeeds */
	bool unresolved;
	/* a rename of a directory the trace has named (dentry): named again at the exit */
	bool dir_moved;
	/*
	 * the file an unlink removes, or the one a rename replaces, found at
	 * its eviction, with no dentry left (btrfs_events.bpf.h): named
	 * from the call's path (name_by_path()) in the call (evict_named),
	 * or at the exit
	 */
	bool evicted, replaced_evicted, evict_named;
	/*
	 * a rename's new name in ext4 was not walked to its directory (not
	 * cached): the file ext4 dirties with no link left is the one replaced
	 */
	bool new_short;
	/* counted in ns_deferred */
	bool gated;
	/* a rename's old and new names where the walk left them (dir NULL where not) */
	struct name_at old_at, new_at;
	/*
	 * a rename's paths, looked up again at its exit where still
	 * unresolved; io_uring's are in kernel memory (kpaths): the
	 * request's while it runs, then a rename's copies (uring.bpf.h)
	 */
	const char *uold, *unew;
	bool kpaths;
	__s32 odfd, ndfd;
	/* at a rename's exit, the directories of dentry and dentry2 and their inodes */
	struct dentry *dir, *dir2;
	struct inode *dir_inode, *dir_inode2;
};

/*
 * Calls in progress: a syscall's, one per thread, and io_uring's, which
 * a batch may hand to io-wq by the thousand (as uring_ns_reqs is sized):
 * 6 MiB. An io_uring call's the LRU drops is counted at its end
 * (uring_ns_done()).
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64);
	__type(value, struct ns_op);
} ns_ops SEC(".maps");

/* task_struct.flags (include/linux/sched.h): an io_uring worker thread */
#define IOTRACE_PF_IO_WORKER 0x10

/*
 * The key in ns_ops of the call the current task is in: its thread id, or
 * in an io-wq worker the address of the request it runs (a kernel
 * address, never a thread id), the io_uring call's own key.
 */
static __always_inline __u64 ns_key(void)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct io_worker *worker;
	struct io_wq_work *work;

	/*
	 * a kernel without io_uring (CONFIG_IO_URING off) has none of these:
	 * the reads below, which it could not relocate, are then never made
	 * (the verifier drops them), and the file systems' programs still load
	 */
	if (!bpf_core_field_exists(struct task_struct, worker_private) ||
	    !bpf_core_field_exists(struct io_worker, cur_work) ||
	    !bpf_core_field_exists(struct io_kiocb, work) ||
	    !(task->flags & IOTRACE_PF_IO_WORKER))
		return task->pid;
	worker = task->worker_private;
	work = BPF_CORE_READ(worker, cur_work);
	if (!work)
		return task->pid;
	return (__u64)work - bpf_core_field_offset(struct io_kiocb, work);
}

/*
 * Threads in a rename that handle_ns_enter() found on a file system the
 * trace holds no name of (rename_elsewhere()): its exit leaves the rename
 * epoch alone. handle_ns_exit() is attached before handle_ns_enter(), and
 * every rename's exit takes its thread's entry out, so none is left over
 * for another call.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, __u8);
} renames_elsewhere SEC(".maps");

/* An ns_op being built or read: too large for the programs' stack with the rest */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ns_op);
} ns_scratch SEC(".maps");

static __always_inline struct ns_op *scratch_op(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&ns_scratch, &zero);
}

/* unlink/rename paths on traced file systems not resolved through the dentry cache */
__u64 ns_unresolved = 0;

/*
 * Calls io_uring made whose file events are not sent (uring.bpf.h):
 * unlinks and renames that succeeded and whose file was not found (by
 * the walk at their hand-off, the file system's tracepoints, or a
 * rename's lookup at its completion), those that post no completion if
 * they succeed (counted either way), and opens with O_CREAT straight into
 * a fixed file slot, whose file no fd names. The summary counts them
 * apart from ns_unresolved.
 */
__u64 uring_unfollowed = 0;

/* A call not followed: io_uring's (uring) or a syscall's. */
static __always_inline void count_unfollowed(bool uring)
{
	__sync_fetch_and_add(uring ? &uring_unfollowed : &ns_unresolved, 1);
}

/*
 * Renames in progress with a name left to ext4's program (note_name_at()):
 * while there are none, that program, which runs each time any ext4 inode
 * is dirtied, returns at once.
 */
__u64 ns_deferred = 0;

/* Keeps op as the thread's call in progress. */
static __always_inline void store_op(__u64 key, struct ns_op *op)
{
	if (!op->gated && (op->old_at.dir || op->new_at.dir || op->new_short)) {
		op->gated = true;
		__sync_fetch_and_add(&ns_deferred, 1);
	}
	bpf_map_update_elem(&ns_ops, &key, op, BPF_ANY);
}

/* The thread's call in progress, op (a copy), is over. */
static __always_inline void drop_op(__u64 key, const struct ns_op *op)
{
	if (op->gated)
		__sync_fetch_and_sub(&ns_deferred, 1);
	bpf_map_delete_elem(&ns_ops, &key);
}

/* The call in progress under key, ended: a copy (the scratch op), out of ns_ops; NULL if none. */
static __always_inline struct ns_op *take_op(__u64 key)
{
	struct ns_op *p = bpf_map_lookup_elem(&ns_ops, &key), *op = scratch_op();

	if (!p || !op)
		return NULL;
	*op = *p;
	drop_op(key, op);
	return op;
}

static __always_inline bool is_ns_call(__u32 call)
{
	return call >= IOTRACE_VFS_UNLINK && call <= IOTRACE_VFS_RENAMEAT2;
}

/*
 * The dentry of the file on a traced device that an unlink or a rename of
 * d (a regular file) removes or renames: d itself, or through an overlayfs
 * its upper file. A file only in a lower layer stays there (hidden, or
 * copied up first): no file on disk goes. NULL if there is none.
 */
static __always_inline struct dentry *ns_target(struct dentry *d)
{
	struct inode *inode = d ? BPF_CORE_READ(d, d_inode) : NULL;
	struct super_block *sb;

	if (!inode || (BPF_CORE_READ(inode, i_mode) & IOTRACE_S_IFMT) != IOTRACE_S_IFREG)
		return NULL;
	sb = BPF_CORE_READ(inode, i_sb);
	if (fs_dev_traced(BPF_CORE_READ(sb, s_dev)))
		return d;
	if (!iotrace_is_ovl(sb, false) || !(d = iotrace_ovl_upper(inode, false)))
		return NULL;
	inode = BPF_CORE_READ(d, d_inode);
	return inode && fs_dev_traced(BPF_CORE_READ(inode, i_sb, s_dev)) ? d : NULL;
}

/*
 * A rename onto an existing name removes the file there, unless it has
 * other links: its Delete is sent with the rename's events. An exchange
 * moves it to the old name instead: its Moves are sent too. dropped: the
 * file system already took the name's link from the count.
 */
static __always_inline void note_replaced(struct ns_op *op, struct dentry *t,
					  struct inode *moved, bool dropped)
{
	struct file_seen *f;
	struct inode *inode;

	t = ns_target(t);
	inode = t ? BPF_CORE_READ(t, d_inode) : NULL;
	if (!inode || inode == moved ||
	    (!op->exchange && BPF_CORE_READ(inode, i_nlink) > (dropped ? 0 : 1)))
		return;
	f = file_entry(inode, &op->replaced);
	if (!f)
		return;
	/* its name, for the event that says which file went */
	name_file(f, &op->replaced, inode, t, false);
	op->dentry2 = t;
	op->has_replaced = true;
}

/*
 * The dentry of a rename's new name (op->ndfd, op->unew), if cached;
 * *cut says whether the walk stopped short inside a traced file system
 * (a new name is no failure to resolve: that is not counted).
 */
static __always_inline struct dentry *new_name(const struct ns_op *op, bool *cut)
{
	return resolve_at(op->ndfd, op->unew, op->kpaths,
			  op->exchange ? IOTRACE_NAMES_RENAMED : IOTRACE_NAMES_REPLACED, cut);
}

/*
 * Where the walk just left its last name to the file system, into at, for
 * ext4's program (the only one that matches names: named_at()); false if
 * it did not, or the name is on another file system. A name kept raises
 * the gate of that program, which runs on every ext4 inode dirtied.
 */
static __always_inline bool note_name_at(struct name_at *at)
{
	struct path_walk *w = walk_state();
	struct dentry *dir;

	if (!w || !w->deferred || !fs_names(w->d, IOTRACE_NAMES_RENAMED))
		return false;
	/* a local: CO-RE reads start from a kernel type */
	dir = w->d;
	at->dir = dir;
	at->dir_ino = BPF_CORE_READ(dir, d_inode, i_ino);
	at->len = w->clen;
	at->head = *(__u64 *)w->comp;
	return true;
}

/*
 * Before the rename op, of the file moved (NULL if not known yet): the
 * file at its new name if the walk finds it, else where the walk left
 * that name to the file system.
 */
static __always_inline void note_new_name(struct ns_op *op, struct inode *moved)
{
	struct path_walk *w;
	bool cut = false;

	note_replaced(op, new_name(op, &cut), moved, false);
	if (note_name_at(&op->new_at) || !cut || op->exchange)
		return;
	/* an exchange's other file is looked for at the exit, where it still is */
	w = walk_state();
	op->new_short = w && fs_names(w->d, IOTRACE_NAMES_RENAMED);
}

/*
 * The file lives on under another of its names (an unlink of one of its
 * hard links): its chain, sent at the call's entry under the name going
 * away, is sent again at its next I/O or call, under the name its inode
 * then gives first.
 */
static __always_inline void name_again(const struct iotrace_file_id *id)
{
	struct file_seen *f = seen_file(id);

	if (f)
		f->sent_epoch = 0;
}

/*
 * The events of the successful unlink op, resolved: its file's Delete,
 * or, where the file lives on under another link, its name sent again.
 */
static __always_inline void unlink_events(struct ns_op *op)
{
	if (!op->link_only)
		emit_fs_event(&op->st.file, IOTRACE_FS_DELETE);
	else
		name_again(&op->st.file);
}

/*
 * After a successful rename the dentry itself carries the new name and
 * parent (d_move, d_exchange), so its chain is sent again between
 * MoveFrom and MoveTo: a reader knows the new path by the time it reads
 * MoveTo.
 */
static __always_inline void emit_move(struct iotrace_file_id *id, struct dentry *dentry,
				      struct dentry *dir, struct inode *dir_inode)
{
	struct file_seen *f;

	emit_fs_event(id, IOTRACE_FS_MOVE_FROM);
	f = seen_file(id);
	if (f) {
		/* a local: CO-RE reads start from a kernel type */
		struct dentry *d = dentry;

		f->name_sig = name_sig(iotrace_inode_alias(BPF_CORE_READ(d, d_inode), false),
				       false);
		send_chain_from(d, dir, dir_inode, f, id);
	}
	emit_fs_event(id, IOTRACE_FS_MOVE_TO);
}

/*
 * A rename of a directory on a traced device: true. Files below it are
 * named again after any rename at their next I/O or call; one with none
 * would keep the directory's old name to the end, with --final-names
 * too. So a directory the trace has named (its entry was sent) has its
 * chain sent again at the call's exit (op->dir_moved).
 */
static __always_inline bool note_dir_move(struct ns_op *op, struct dentry *d)
{
	struct inode *inode = BPF_CORE_READ(d, d_inode);
	struct file_seen *f;

	if (!inode || (BPF_CORE_READ(inode, i_mode) & IOTRACE_S_IFMT) != IOTRACE_S_IFDIR ||
	    !fs_dev_traced(BPF_CORE_READ(inode, i_sb, s_dev)))
		return false;
	f = file_entry(inode, &op->st.file);
	op->dir_moved = f && f->sent_epoch;
	op->dentry = d;
	return true;
}

/* The call op is, from now: who makes it, when, which (its VFS record's part). */
static __always_inline void start_call(struct ns_op *op, __u32 call)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();

	op->st.call = call;
	op->st.fd = -1;
	op->st.fd2 = -1;
	op->st.offset = -1;
	op->st.offset2 = -1;
	op->st.cgroup = bpf_get_current_cgroup_id();
	bpf_get_current_comm(op->st.comm, sizeof(op->st.comm));
	op->st.pid = pid_tgid >> 32;
	op->st.tid = (__u32)pid_tgid;
	op->st.call_id = __sync_fetch_and_add(&next_call_id, 1) + 1;
	op->st.start = bpf_ktime_get_ns();
}

/*
 * Starts op, the call on d (resolved), if it removes or renames a file of
 * a traced device; its inode, or NULL for none. A call started at its
 * entry (start_call()) keeps that start.
 */
static __always_inline struct inode *start_op(struct ns_op *op, struct dentry *d, __u32 call)
{
	struct file_seen *f;
	struct inode *inode;

	d = ns_target(d);
	if (!d)
		return NULL;
	inode = BPF_CORE_READ(d, d_inode);
	f = file_entry(inode, &op->st.file);
	if (!f)
		return NULL;
	/* a record's device is its file's (a btrfs subvolume's) */
	op->st.dev = op->st.file.dev;
	/* named now, while the path still leads to it */
	name_file(f, &op->st.file, inode, d, false);
	op->dentry = d;
	if (!op->st.call_id)
		start_call(op, call);
	if (call <= IOTRACE_VFS_UNLINKAT)
		op->link_only = BPF_CORE_READ(inode, i_nlink) > 1;
	return inode;
}

/*
 * Starts op, the call on d (resolved): the inode of the regular file it
 * removes or renames, or NULL. For a rename of a directory of a traced
 * device, op->dir_moved then says whether to keep op (note_dir_move()).
 */
static __always_inline struct inode *start_on(struct ns_op *op, struct dentry *d, __u32 call)
{
	if (call > IOTRACE_VFS_UNLINKAT && note_dir_move(op, d)) {
		op->st.call = call;
		return NULL;
	}
	return start_op(op, d, call);
}

/*
 * A rename on sb changes no path the trace holds: none of its devices is
 * traced, and it is not stacked on another file system (overlayfs renames
 * in its upper layer). Its devices are asked as well as the file systems
 * user space has learned, which lag a mount: a file system on a partition
 * made since the start may have had files named by their block I/O
 * already. btrfs keeps no device in s_bdev, but a list of its own; any
 * other file system on block devices that keeps none there is judged by
 * the learned list alone, so it never counts as elsewhere.
 */
static __always_inline bool rename_elsewhere(struct super_block *sb)
{
	struct block_device *bdev;

	if (!sb || fs_dev_traced(BPF_CORE_READ(sb, s_dev)) || BPF_CORE_READ(sb, s_stack_depth))
		return false;
	bdev = BPF_CORE_READ(sb, s_bdev);
	if (bdev)
		return !bdev_traced_global((__u64)bdev);
	if (BPF_CORE_READ(sb, s_magic) == IOTRACE_BTRFS_MAGIC)
		return !iotrace_btrfs_traced(sb);
	return !(BPF_CORE_READ(sb, s_type, fs_flags) & IOTRACE_FS_REQUIRES_DEV);
}

/*
 * Starts op, the unlink or rename call made by the current task (its
 * paths, in op->odfd, uold, ndfd and unew, in kernel memory if kernel,
 * and op->exchange set), kept under key if there is more to do. False for
 * a rename on a file system the trace holds no name of (rename_elsewhere()).
 */
static __always_inline bool ns_enter(struct ns_op *op, __u64 key, __u32 call, bool kernel)
{
	struct dentry *d;
	__u32 defer;
	struct inode *inode;

	op->kpaths = kernel;
	/*
	 * a syscall's renamed file is looked for at its exit, cheaply (first
	 * among the children of its new directory); io_uring's now, under
	 * the name it has: its completion may come long after the rename (a
	 * ring that completes in its task's work), when its new name may
	 * name another file
	 */
	if (call <= IOTRACE_VFS_UNLINKAT)
		defer = IOTRACE_NAMES_UNLINKED;
	else
		defer = kernel ? IOTRACE_NAMES_RENAMED : IOTRACE_WALK_EXIT;
	d = resolve_at(op->odfd, op->uold, kernel, defer, &op->unresolved);
	if (call > IOTRACE_VFS_UNLINKAT && rename_elsewhere(walked_sb(d)))
		return false;
	inode = d ? start_on(op, d, call) : NULL;
	if (d && !inode && !op->dir_moved && !BPF_CORE_READ(d, d_inode)) {
		/*
		 * killed since the walk met it (another task's cache drop),
		 * so no file was found: as if it was not cached
		 */
		op->unresolved = fs_dev_traced(BPF_CORE_READ(d, d_sb, s_dev));
		d = NULL;
	}
	if (!d) {
		/*
		 * left to the file system's tracepoints, if any; a call that
		 * fails (no such file) missed no event
		 */
		if (!op->unresolved)
			return true;
		start_call(op, call);
		if (call > IOTRACE_VFS_UNLINKAT) {
			/*
			 * left to ext4 (old_at), or looked for at the exit: the
			 * file at the new name is looked for now, or left to the
			 * file system too
			 */
			note_name_at(&op->old_at);
			note_new_name(op, NULL);
		}
		store_op(key, op);
		return true;
	}
	if (!inode) {
		if (op->dir_moved)
			store_op(key, op);
		return true;
	}
	if (call > IOTRACE_VFS_UNLINKAT)
		note_new_name(op, inode);
	store_op(key, op);
	return true;
}

SEC("tracepoint")
int handle_ns_enter(struct trace_event_raw_sys_enter *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)id, call;
	struct ns_op *op = scratch_op();
	unsigned long a[5];
	__u8 one = 1;

	call = call_of(ctx->id);
	if (!is_ns_call(call) || !op)
		return 0;
	/* the tracer's own: regular files (its summary), which move no other path */
	if (is_self(id >> 32)) {
		if (call > IOTRACE_VFS_UNLINKAT)
			bpf_map_update_elem(&renames_elsewhere, &tid, &one, BPF_ANY);
		return 0;
	}
	__builtin_memset(op, 0, sizeof(*op));
	bpf_probe_read_kernel(a, sizeof(a), ctx->args);
	/* an rmdir removes no file */
	if (call == IOTRACE_VFS_UNLINKAT && (a[2] & IOTRACE_AT_REMOVEDIR))
		return 0;
	/* kept for a file system's own rename tracepoint too */
	op->exchange = call == IOTRACE_VFS_RENAMEAT2 && (a[4] & IOTRACE_RENAME_EXCHANGE);
	op->odfd = IOTRACE_AT_FDCWD;
	op->uold = (const char *)a[0];
	if (call == IOTRACE_VFS_UNLINKAT || call >= IOTRACE_VFS_RENAMEAT) {
		op->odfd = (__s32)a[0];
		op->uold = (const char *)a[1];
	}
	op->ndfd = IOTRACE_AT_FDCWD;
	op->unew = (const char *)a[1];
	if (call >= IOTRACE_VFS_RENAMEAT) {
		op->ndfd = (__s32)a[2];
		op->unew = (const char *)a[3];
	}
	if (!ns_enter(op, tid, call, false))
		bpf_map_update_elem(&renames_elsewhere, &tid, &one, BPF_ANY);
	return 0;
}

/*
 * A file system's own tracepoint names what an unlink or a rename removes
 * or renames, inside the call (ns_ops has it by ns_key(): the file
 * system's own unlinks, such as an overlayfs whiteout's, have none). The
 * ns_op in progress of the current thread for the call (rename or not)
 * if its path was not resolved (not cached, in a directory of more
 * cached entries than the walk looks at, too long), or, for a rename, if
 * the file at its new name was not found; NULL if there is nothing to add.
 */
static __always_inline struct ns_op *pending_op(bool rename)
{
	__u64 key = ns_key();
	struct ns_op *p = bpf_map_lookup_elem(&ns_ops, &key);

	if (!p || (p->st.call > IOTRACE_VFS_UNLINKAT) != rename)
		return NULL;
	if (p->unresolved)
		return p;
	return rename && p->dentry && !p->has_replaced && !p->dir_moved ? p : NULL;
}

/*
 * The unlink or rename p (unresolved), started from d, the dentry its
 * file system was given: its entry in ns_ops, or NULL if there is
 * nothing more to do: d was not found (the call stays unresolved,
 * counted), is not a regular file of a traced device (nothing was
 * missed: not counted), or is a directory (named again at the exit if
 * the trace has named it).
 */
static __always_inline struct ns_op *start_late(const struct ns_op *p, struct dentry *d)
{
	__u64 key = ns_key();
	struct ns_op *op = scratch_op();

	if (!op || !d)
		return NULL;
	/* the call as started at its entry, nothing found yet */
	*op = *p;
	op->unresolved = false;
	if (start_on(op, d, op->st.call)) {
		store_op(key, op);
		return bpf_map_lookup_elem(&ns_ops, &key);
	}
	if (op->dir_moved)
		store_op(key, op);
	else if (!ns_target(d))
		/* a directory not named, or no regular file: nothing was missed */
		drop_op(key, op);
	return NULL;
}

/*
 * The rename p (its entry in ns_ops, the thread's own), given by its file
 * system t, the dentry at its new name (NULL for none): the file there
 * that it removes, or exchanges. dropped: as note_replaced()'s.
 */
static __always_inline void late_replaced(struct ns_op *p, struct dentry *t, bool dropped)
{
	/* a local: CO-RE reads start from a kernel type */
	struct dentry *d = p->dentry;

	/* the file it moves may be named at the exit only (resolve_moved()) */
	if (t)
		note_replaced(p, t, d ? BPF_CORE_READ(d, d_inode) : NULL, dropped);
}

/*
 * ext4 names the file an unlink removes (not a rename's). Attached with
 * the syscall programs, where the kernel has it.
 */
SEC("tp_btf/ext4_unlink_enter")
int BPF_PROG(handle_ext4_unlink, struct inode *dir, struct dentry *dentry)
{
	struct ns_op *p = pending_op(false);

	if (p)
		start_late(p, dentry);
	return 0;
}

/* Whether d, a dentry the rename has not moved yet, has the name at. */
static __always_inline bool named_at(struct dentry *d, const struct name_at *at)
{
	__u32 len;

	if (!d || !at->dir || BPF_CORE_READ(d, d_parent, d_inode, i_ino) != at->dir_ino)
		return false;
	len = BPF_CORE_READ(d, d_name.len);
	return len == at->len &&
	       head_word(iotrace_word_at(BPF_CORE_READ(d, d_name.name), false), len) == at->head;
}

/*
 * ext4 dirties the inode a rename moves, then the one it replaces (or
 * exchanges), before the VFS moves their dentries: each still has the
 * name the walk left to it (old_at, new_at). Other inodes it dirties (the
 * directories, an overlayfs whiteout) have other names or none. A name
 * is matched by directory, length and first 8 bytes: a wrong match would
 * need the rename to dirty another inode of the same directory whose
 * name begins as the old name and is as long, before the one it moves.
 * Where the walk did not reach the new name's directory (new_short), the
 * file replaced is the regular file dirtied with no link left: nothing
 * else in a rename drops a link, and an inode with none is evicted at its
 * last put, not left for a reclaim to dirty in another call. This runs
 * each time any ext4 inode is dirtied: while no rename left a name
 * (ns_deferred), it reads one global.
 */
SEC("tp_btf/ext4_mark_inode_dirty")
int BPF_PROG(handle_ext4_dirty, struct inode *inode, unsigned long ip)
{
	struct ns_op *p;
	struct dentry *d;
	__u64 key;

	if (!ns_deferred)
		return 0;
	/* a syscall's rename, or io_uring's in its io-wq worker */
	key = ns_key();
	p = bpf_map_lookup_elem(&ns_ops, &key);
	if (!p || p->st.call <= IOTRACE_VFS_UNLINKAT)
		return 0;
	d = iotrace_inode_alias(inode, false);
	if (p->unresolved && named_at(d, &p->old_at)) {
		start_late(p, d);
		return 0;
	}
	/* the file it moves, if not matched, is looked for at the exit */
	/* note_replaced() takes only a regular file with no link left */
	if (d != p->dentry && !p->has_replaced && !p->dir_moved &&
	    (p->new_short || named_at(d, &p->new_at)))
		late_replaced(p, d, true);
	return 0;
}

/*
 * The unlink op, not resolved but for the inode number whose name xfs
 * removed (op->st.file's ino and dev, xfs_events.bpf.h), took one of its
 * links, not its last (xfs_iunlink would have named it): the file lives
 * on. Named again if the trace knows it, with the call's VFS record under
 * its FileId. True if nothing was missed.
 */
static __always_inline bool link_gone(struct ns_op *op, bool uring)
{
	/* io_uring's call has its record from its request (uring.bpf.h) */
	bool record = !uring && vfs_enabled && task_selected(op->st.pid);
	struct file_seen *f;

	if (!op->st.file.ino)
		return false;
	f = seen_file(&op->st.file);
	if (!f)
		/* nothing to name again; only the record's FileId is not known */
		return !record;
	f->sent_epoch = 0;
	if (record) {
		op->st.file.ctime_sec = f->ctime_sec;
		op->st.file.ctime_nsec = f->ctime_nsec;
		op->st.dev = op->st.file.dev;
		emit_vfs(&op->st, 0, 0);
	}
	return true;
}

/*
 * The name file fid had before the call: the last component of the
 * call's path, in w->comp, in directory dir, whose chain goes first.
 * False if dir has no entry (killed by a cache drop since the walk).
 */
static __always_inline bool send_old_name(struct path_walk *w, struct dentry *dir,
					  struct iotrace_file_id *fid)
{
	struct iotrace_file_id pid;
	struct iotrace_name_event *n;
	struct file_seen *pf;
	__u32 zero = 0;

	pf = file_entry(BPF_CORE_READ(dir, d_inode), &pid);
	if (!pf)
		return false;
	if (pf->sent_epoch != rename_epoch + 1)
		send_chain(dir, pf, &pid);
	n = bpf_map_lookup_elem(&name_buf, &zero);
	if (n)
		send_name(n, fid, &pid, w->comp);
	return n;
}

/*
 * The file fid gets its name from a path the call took it by or gave it
 * (dfd, upath): the path's directory, cached by the call, and last
 * component; for a rename's MoveFrom, or an evicted file's Delete. 1 if
 * sent; 0 if the walk did not reach the directory (another task's cache
 * drop, a path the walk does not follow). A global function, verified
 * once per program: inlined at each of its three callers, the walk made
 * the exit program the verifier's slowest. Use name_by_path().
 */
__noinline int name_by_path_global(__s32 dfd, __u64 path, __u32 kernel,
				   struct iotrace_file_id *fid)
{
	bool ignored = false;
	struct path_walk *w;

	if (!fid)	/* the verifier's due for a pointer argument */
		return 0;
	resolve_at(dfd, (const char *)path, kernel, IOTRACE_WALK_PARENT, &ignored);
	w = walk_state();
	return w && w->deferred && send_old_name(w, w->d, fid);
}

/*
 * Whether the trace names file f (fid) by the path the call took it by or
 * gave it (dfd, upath): a name sent in this rename epoch is taken as
 * right, as name_file() takes it; an older one may be stale (a rename of
 * f or of a directory above it counted unresolved left the old path in
 * the trace), so f is named again (name_by_path_global()). A rename of f
 * itself since then either sent its new chain (emit_move()) or moved the
 * epoch on (handle_ns_exit()). f is not marked as named: the old name
 * sent is not its name once the call is over. False if the naming
 * failed: the event would show a stale path, or none.
 */
static __always_inline bool name_by_path(const struct file_seen *f, __s32 dfd,
					 const char *upath, bool kernel,
					 struct iotrace_file_id *fid)
{
	return f->sent_epoch == rename_epoch + 1 ||
	       name_by_path_global(dfd, (__u64)upath, kernel, fid);
}

/*
 * A file a rename just moved, d, found at its new path, where d_move() or
 * d_exchange() put its dentry first among its directory's children, so
 * the walk finds it at once: its entry in files and its id in fid, its
 * dentry in *dentry; NULL if it is not a regular file of a traced device
 * (*dentry NULL too) or has no entry. A file not named since the last
 * rename gets its old name (dfd, upath: its old path) first, for its
 * MoveFrom (name_by_path()); not through an overlayfs, whose directory is
 * not the file's. NULL too, *dentry set, if that failed: the MoveFrom
 * would have a stale path or none, so the call is unresolved.
 */
static __always_inline struct file_seen *moved_file(struct dentry *d, __s32 dfd,
						    const char *upath, bool kernel,
						    struct iotrace_file_id *fid,
						    struct dentry **dentry)
{
	struct dentry *t = ns_target(d);
	struct file_seen *f;

	*dentry = t;
	f = t ? file_entry(BPF_CORE_READ(t, d_inode), fid) : NULL;
	if (f && t == d && !name_by_path(f, dfd, upath, kernel, fid))
		return NULL;
	return f;
}

/*
 * The rename op, successful, whose file was found neither before the call
 * (an old entry of a large directory, a cold cache) nor in it: looked up
 * at its new name (moved_file()). 1: op is resolved, its events to send
 * (a directory's: op->dir_moved); 0: nothing was missed; -1: unresolved.
 */
static __always_inline int resolve_moved(struct ns_op *op)
{
	bool ignored = false;
	struct dentry *d;

	d = resolve_at(op->ndfd, op->unew, op->kpaths, 0, &ignored);
	if (!d)
		return -1;
	if (note_dir_move(op, d)) {
		op->unresolved = false;
		return op->dir_moved;
	}
	/*
	 * a name without an inode where a rename just put a file: a cache
	 * drop killing the dentry as the walk met it
	 */
	if (!BPF_CORE_READ(d, d_inode))
		return -1;
	if (!moved_file(d, op->odfd, op->uold, op->kpaths, &op->st.file, &op->dentry))
		return op->dentry ? -1 : 0;
	op->st.dev = op->st.file.dev;
	op->unresolved = false;
	return 1;
}

/*
 * The other file of the exchange op (successful), found neither before
 * the call nor in it: looked up at the old path, which it took, where
 * d_exchange() put its dentry first (moved_file()). False if it was not
 * found (unresolved).
 */
static __always_inline bool exchanged_file(struct ns_op *op)
{
	bool ignored = false;
	struct dentry *d = resolve_at(op->odfd, op->uold, op->kpaths, 0, &ignored);

	if (moved_file(d, op->ndfd, op->unew, op->kpaths, &op->replaced, &op->dentry2))
		op->has_replaced = true;
	/* no inode: as in resolve_moved() */
	else if (!d || !BPF_CORE_READ(d, d_inode) || op->dentry2)
		return false;
	return true;
}

/*
 * The dentry of the file ino that a rename moved to (dfd, upath): d, found
 * before the exit, if it is still that file's name, else looked up there
 * again (its dentry first among its directory's children); NULL if it is
 * not cached there. The call let go of d before its exit, so another
 * task's cache drop can have killed d, and its directory with it, and a
 * chain sent through d would then name nothing: the file's MoveTo would
 * show its old path.
 */
static __always_inline struct dentry *moved_dentry(struct dentry *d, __u64 ino, __s32 dfd,
						   const char *upath, bool kernel, bool dir)
{
	bool ignored = false;
	struct inode *inode = d ? BPF_CORE_READ(d, d_inode) : NULL;

	/* a kill unhashes a dentry first, and a reused one is another file's */
	if (inode && BPF_CORE_READ(d, d_hash.pprev) && BPF_CORE_READ(inode, i_ino) == ino)
		return d;
	d = resolve_at(dfd, upath, kernel, 0, &ignored);
	/* through an overlayfs, a file's is the upper one's (ns_target()) */
	if (!dir)
		d = ns_target(d);
	return d && BPF_CORE_READ(d, d_inode, i_ino) == ino ? d : NULL;
}

/*
 * moved_dentry() into *dentry, with its directory and that directory's
 * inode, taken now for the chain (send_chain_from()); false if it is not
 * cached there, or was killed just now, its directory with it.
 */
static __always_inline bool take_moved(struct dentry **dentry, struct dentry **dir,
				       struct inode **dir_inode, __u64 ino, __s32 dfd,
				       const char *upath, bool kernel, bool is_dir)
{
	struct dentry *d = moved_dentry(*dentry, ino, dfd, upath, kernel, is_dir);

	if (!d)
		return false;
	*dentry = d;
	*dir = BPF_CORE_READ(d, d_parent);
	*dir_inode = BPF_CORE_READ(d, d_parent, d_inode);
	return *dir_inode;
}

/*
 * The rename op (successful, resolved): whether the dentries its chains go
 * through still name what it moved where it put it (take_moved()): its
 * file, or the directory the trace has named, and the other file of an
 * exchange.
 */
static __always_inline bool moves_named(struct ns_op *op)
{
	if (!take_moved(&op->dentry, &op->dir, &op->dir_inode, op->st.file.ino, op->ndfd,
			op->unew, op->kpaths, op->dir_moved))
		return false;
	return !op->has_replaced || !op->exchange ||
	       take_moved(&op->dentry2, &op->dir2, &op->dir_inode2, op->replaced.ino, op->odfd,
			  op->uold, op->kpaths, false);
}

/*
 * The events of the unlink or rename op at its exit (ret: its result).
 * True if it was a rename of regular files only, on traced devices, whose
 * new name chains were sent here: no other file's path changed. uring:
 * io_uring's call, at its completion: counted apart, and its record is its
 * request's; its paths, if kept, are copies (uring.bpf.h).
 */
static __always_inline bool ns_exit(struct ns_op *op, long ret, bool uring)
{
	if (op->unresolved && ret == 0 && op->st.call > IOTRACE_VFS_UNLINKAT) {
		int r = resolve_moved(op);

		if (!r)
			return false;
		if (r < 0) {
			count_unfollowed(uring);
			return false;
		}
	}
	/* still unresolved: an unlink (a directory moved is resolved) */
	if (op->unresolved) {
		if (ret == 0 && !link_gone(op, uring))
			count_unfollowed(uring);
		return false;
	}
	if (ret == 0 && op->exchange && !op->has_replaced && !op->dir_moved &&
	    !exchanged_file(op)) {
		count_unfollowed(uring);
		return false;
	}
	if (ret == 0 && op->st.call > IOTRACE_VFS_UNLINKAT && !moves_named(op)) {
		count_unfollowed(uring);
		return false;
	}
	if (op->dir_moved) {
		struct file_seen *f = ret == 0 ? seen_file(&op->st.file) : NULL;

		if (f)
			send_chain_from(op->dentry, op->dir, op->dir_inode, f, &op->st.file);
		return false;
	}
	if (ret == 0 && (op->evicted || op->replaced_evicted)) {
		/* an unlink's file, or a rename's replaced one: never both */
		bool r = op->replaced_evicted;
		struct iotrace_file_id *fid = r ? &op->replaced : &op->st.file;
		struct file_seen *f = seen_file(fid);

		/* a Delete with a stale path, or none, is not sent: counted */
		if (f && !op->evict_named &&
		    !name_by_path(f, r ? op->ndfd : op->odfd, r ? op->unew : op->uold, op->kpaths,
				  fid)) {
			count_unfollowed(uring);
			return false;
		}
	}
	if (ret == 0) {
		if (op->st.call <= IOTRACE_VFS_UNLINKAT) {
			unlink_events(op);
		} else {
			if (op->has_replaced && !op->exchange)
				emit_fs_event(&op->replaced, IOTRACE_FS_DELETE);
			emit_move(&op->st.file, op->dentry, op->dir, op->dir_inode);
			if (op->has_replaced && op->exchange)
				emit_move(&op->replaced, op->dentry2, op->dir2, op->dir_inode2);
		}
	}
	if (!uring && vfs_enabled && task_selected(op->st.pid))
		emit_vfs(&op->st, ret, 0);
	/* an exchange's other entry, not found as a file, may be a directory */
	return !op->exchange || op->has_replaced;
}

/*
 * Also moves the rename epoch on (iotrace.bpf.c) after a successful
 * rename, unless ns_exit() says only regular files moved, or the entry
 * found it on a file system with no traced device (renames_elsewhere): a
 * rename of a directory, or of what the tracer did not see, may have
 * changed the path of any file below it. Moved after the events are sent, it leaves
 * a renamed directory's chain, just sent, to be sent again at the next
 * I/O below it.
 */
SEC("tracepoint")
int handle_ns_exit(struct trace_event_raw_sys_exit *ctx)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid(), call = call_of(ctx->id);
	/* read once: clang may keep &ctx->ret, and the verifier refuses a load through an offset ctx */
	long ret = ctx->ret;
	bool paths_kept = false;
	struct ns_op *op;

	op = take_op(tid);
	if (op) {
		paths_kept = op->st.call == call && ns_exit(op, ret, false);
	} else if (call > IOTRACE_VFS_UNLINKAT) {
		paths_kept = !bpf_map_delete_elem(&renames_elsewhere, &tid);
	}
	if (ret == 0 && call > IOTRACE_VFS_UNLINKAT && !paths_kept)
		__sync_fetch_and_add(&rename_epoch, 1);
	return 0;
}

#endif /* IOTRACE_FS_EVENTS_BPF_H */
