/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-3-Clause) */
/*
 * OCTF Delete, MoveFrom and MoveTo events from unlink(2) and rename(2),
 * part of iotrace.bpf.c (after vfs.bpf.h, whose helpers it uses).
 *
 * These calls name their file by a path, and the inode behind it is gone
 * (unlink) or renamed (rename) by the time the call returns. With no
 * kprobe on vfs_unlink() allowed, the path is resolved here, at the
 * syscall's entry, the way the kernel's own lookup would: from the root,
 * the working directory or the dirfd, one component at a time through
 * the dentry cache (a directory's cached children), crossing mount
 * points through the mount's children. A component not in the cache (a
 * file never looked up since the cache was dropped), a symlink on the
 * way it cannot follow, a path of IOTRACE_PATH_LEN - 1 bytes or more
 * (read cut short, it could name another file) or one of more steps than
 * IOTRACE_MAX_COMPONENTS makes the event unresolved: it is counted, not
 * sent. The syscall just ahead looks the
 * same path up, so a file the caller is about to remove is nearly always
 * cached. A renamed file is still there at the exit, under its new name,
 * first among its directory's children: a rename's old name is not
 * looked for (resolve_moved()).
 *
 * Needs bpf_loop (v5.17) and bpf_rdonly_cast() (v6.2); user space loads
 * these programs only where the kernel has both.
 */
#ifndef IOTRACE_FS_EVENTS_BPF_H
#define IOTRACE_FS_EVENTS_BPF_H

#define IOTRACE_MAX_SIBLINGS 4096
#define IOTRACE_MAX_CHILD_MOUNTS 4096
#define IOTRACE_MAX_STACKED 4
#define IOTRACE_PATH_LEN 256
#define IOTRACE_AT_FDCWD -100
#define IOTRACE_RENAME_EXCHANGE 2
#define IOTRACE_AT_REMOVEDIR 0x200
/* file_system_type.fs_flags: on block devices (include/linux/fs.h) */
#define IOTRACE_FS_REQUIRES_DEV 1
/* a walk's defer (beside IOTRACE_NAMES_*): stop at the last name's directory, on any file system */
#define IOTRACE_WALK_PARENT 0x80
/*
 * the same but through an overlayfs, for a rename's old name: its file is
 * looked up at the exit (resolve_moved()), where the old name is known
 * only on the file's own file system
 */
#define IOTRACE_WALK_EXIT 0x40
/* symbolic links followed in one path at most, as the kernel's MAXSYMLINKS */
#define IOTRACE_MAX_LINKS 40
/* every component of a path that fits ("a/a/..."), and a step per link */
#define IOTRACE_MAX_COMPONENTS (IOTRACE_PATH_LEN / 2 + IOTRACE_MAX_LINKS)

struct path_walk {
	char path[IOTRACE_PATH_LEN];
	char comp[IOTRACE_PATH_LEN];
	/* a child's name to compare; while a link is followed, the rest of the path */
	char cname[IOTRACE_PATH_LEN];
	struct dentry *d;
	struct mount *m;
	/* the task's root, where an absolute link starts again */
	struct dentry *root_d;
	struct mount *root_m;
	__u32 links;
	struct mount *next_m;
	struct dentry *found;
	struct hlist_node *sib;
	struct list_head *mnode;
	struct list_head *mhead;
	/* FNV-1a of comp's clen bytes */
	__u64 chash;
	__u32 pos;
	__u32 clen;
	/* child_cb() met the component's hashed dentry (positive or negative) */
	__u32 matched;
	__u32 fail;
	/* the walk reached the path's end (not the loop's) */
	__u32 done;
	/* what is left to the file system's tracepoints where they name it: IOTRACE_NAMES_* */
	__u32 defer;
	/* the walk stopped there: d is the directory, comp the name left */
	__u32 deferred;
	/*
	 * a mount with more children than cross_mounts() looks through was
	 * met: the walk may have missed one, and be on the file system below
	 */
	__u32 mounts_cut;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct path_walk);
} walk_buf SEC(".maps");

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

/* An unlink or rename in progress, by thread id. */
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
	/* a rename's paths, looked up again at its exit where still unresolved */
	const char *uold, *unew;
	__s32 odfd, ndfd;
	/* at a rename's exit, the directories of dentry and dentry2 and their inodes */
	struct dentry *dir, *dir2;
	struct inode *dir_inode, *dir_inode2;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct ns_op);
} ns_ops SEC(".maps");

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
 * What the file systems' tracepoints, where attached, name (user space
 * sets each module's): every file an unlink removes (ext4_unlink_enter;
 * xfs's, in xfs_events.bpf.h), every file a rename replaces but in an
 * exchange (ext4_mark_inode_dirty, xfs's), every file a rename moves
 * (ext4_mark_inode_dirty). There the walk stops at the file's directory:
 * in a directory of thousands of cached entries, looking for an old
 * name, or a new one, among them cost a traced call up to 4096 entries'
 * reads, the tracepoints nothing.
 */
const volatile __u8 ext4_names = 0;
const volatile __u8 xfs_names = 0;

/*
 * Renames in progress with a name left to ext4's program (note_name_at()):
 * while there are none, that program, which runs each time any ext4 inode
 * is dirtied, returns at once.
 */
__u64 ns_deferred = 0;

/* Keeps op as the thread's call in progress. */
static __always_inline void store_op(__u32 tid, struct ns_op *op)
{
	if (!op->gated && (op->old_at.dir || op->new_at.dir || op->new_short)) {
		op->gated = true;
		__sync_fetch_and_add(&ns_deferred, 1);
	}
	bpf_map_update_elem(&ns_ops, &tid, op, BPF_ANY);
}

/* The thread's call in progress, op (a copy), is over. */
static __always_inline void drop_op(__u32 tid, const struct ns_op *op)
{
	if (op->gated)
		__sync_fetch_and_sub(&ns_deferred, 1);
	bpf_map_delete_elem(&ns_ops, &tid);
}

static __always_inline struct path_walk *walk_state(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&walk_buf, &zero);
}

static __always_inline struct mount *real_mount(struct vfsmount *mnt)
{
	return (void *)((char *)mnt - bpf_core_field_offset(struct mount, mnt));
}

/* Whether the file system of directory d names what (IOTRACE_NAMES_*) in it. */
static __always_inline bool fs_names(struct dentry *d, __u32 what)
{
	__u64 fs;

	if (!(ext4_names & what) && !(xfs_names & what))
		return false;
	fs = iotrace_fs_type(BPF_CORE_READ(d, d_sb));
	if ((ext4_names & what) && (fs == IOTRACE_FS_NAME('e', 'x', 't', '4', 0) ||
				    fs == IOTRACE_FS_NAME('e', 'x', 't', '3', 0)))
		return true;
	return (xfs_names & what) && fs == IOTRACE_FS_NAME('x', 'f', 's', 0, 0);
}

/*
 * Index into a walk buffer. The barrier stops the compiler from dropping
 * the mask where it can prove the index in range: the verifier cannot.
 */
static __always_inline __u32 idx(__u32 i)
{
	barrier_var(i);
	return i & (IOTRACE_PATH_LEN - 1);
}

static __always_inline void clear_buf(char *buf)
{
	__u64 *w = (void *)buf;
	int k;

#pragma unroll
	for (k = 0; k < IOTRACE_PATH_LEN / 8; k++)
		w[k] = 0;
}

static __always_inline bool same_buf(const char *a, const char *b)
{
	const __u64 *x = (const void *)a, *y = (const void *)b;
	int k;

#pragma unroll
	for (k = 0; k < IOTRACE_PATH_LEN / 8; k++)
		if (x[k] != y[k])
			return false;
	return true;
}

/* One '/' of the path skipped; 1 = at the next component (or the end). */
static long skip_cb(__u32 i, void *ctx)
{
	struct path_walk *w = walk_state();
	__u32 p;

	if (!w || (p = w->pos) >= IOTRACE_PATH_LEN || w->path[idx(p)] != '/')
		return 1;
	w->pos = p + 1;
	return 0;
}

/* One character of the component copied; 1 = component ended. */
static long copy_cb(__u32 i, void *ctx)
{
	struct path_walk *w = walk_state();
	__u32 p;
	char c;

	if (!w || (p = w->pos) >= IOTRACE_PATH_LEN)
		return 1;
	c = w->path[idx(p)];
	if (!c || c == '/')
		return 1;
	w->comp[idx(w->clen)] = c;
	w->clen++;
	w->chash = (w->chash ^ (__u8)c) * 0x100000001b3ull;
	w->pos = p + 1;
	return 0;
}

/* The first 8 bytes of a name of len bytes, zero-padded, as one word. */
static __always_inline __u64 head_word(__u64 word, __u32 len)
{
	return len >= 8 ? word : word & ((1ull << (len * 8)) - 1);
}

/*
 * One cached child of the directory: is it the component? Read by cast
 * loads (core_fixes.bpf.h): in a directory of thousands, this runs
 * thousands of times a call: about 12 ns an entry, where two probe reads
 * made it 60, 250 us a call that looked through 4096.
 */
static long child_cb(__u32 i, void *ctx)
{
	struct path_walk *w = walk_state();
	struct dentry *child;
	unsigned long node;
	__u32 len;

	/* d_children/d_sib since v6.8 (da549bdd15c2); older kernels resolve nothing */
	if (!bpf_core_field_exists(struct dentry, d_sib))
		return 1;
	if (!w || !(node = (unsigned long)w->sib))
		return 1;
	node -= bpf_core_field_offset(struct dentry, d_sib);
	child = IOTRACE_CAST(node, struct dentry);
	w->sib = child->d_sib.next;
	len = child->d_name.len;
	if (len != w->clen)
		return 0;
	/* the first 8 bytes decide for most: the whole name only for the rest */
	if (head_word(iotrace_word_at(child->d_name.name, true), len) != *(__u64 *)w->comp)
		return 0;
	if (len > 8) {
		/* zero-padded both: 32 word compares, no data-dependent loop */
		clear_buf(w->cname);
		if (bpf_probe_read_kernel_str(w->cname, sizeof(w->cname), child->d_name.name) < 0)
			return 0;
		if (!same_buf(w->cname, w->comp))
			return 0;
	}
	/*
	 * A lookup finds the one hashed dentry of a name, not an unhashed one
	 * (a removed file still open); a negative one says there is no such
	 * file.
	 */
	if (!child->d_hash.pprev)
		return 0;
	if (child->d_inode)
		w->found = (struct dentry *)node;
	w->matched = 1;
	return 1;
}

/*
 * The cached child of d named w->comp (w->clen bytes, zero-padded) among
 * its newest max children, or NULL.
 */
static __always_inline struct dentry *cached_child(struct path_walk *w, struct dentry *d,
						  __u32 max)
{
	w->found = NULL;
	w->matched = 0;
	w->sib = NULL;
	if (bpf_core_field_exists(struct dentry, d_children))
		w->sib = BPF_CORE_READ(d, d_children.first);
	bpf_loop(max, child_cb, NULL, 0);
	return w->found;
}

/* entries a walk looks through before it asks names_found */
#define IOTRACE_NEAR_SIBLINGS 16

struct name_key {
	__u64 parent;
	__u64 hash;
	__u32 len;
	__u32 pad;
};

/*
 * Components walks found past the newest IOTRACE_NEAR_SIBLINGS entries
 * of their directory, by directory and name: the kernel finds a name
 * through a hash table BPF cannot reach, a walk by looking through the
 * directory's cached entries, newest first, and /tmp of a busy host has
 * thousands (12 ns each).
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, struct name_key);
	__type(value, __u64);
} names_found SEC(".maps");

/*
 * Whether c, a dentry names_found kept for w's component in d, still is
 * its positive dentry there: a rename or removal moves, unhashes or
 * empties it, and one freed and reused, read by probes, would have to
 * be another dentry of that name in d.
 */
static __always_inline bool still_found(struct path_walk *w, struct dentry *d, struct dentry *c)
{
	__u32 len = BPF_CORE_READ(c, d_name.len);
	const unsigned char *name = BPF_CORE_READ(c, d_name.name);

	if (BPF_CORE_READ(c, d_parent) != d || len != w->clen || !BPF_CORE_READ(c, d_hash.pprev) ||
	    !BPF_CORE_READ(c, d_inode))
		return false;
	if (head_word(iotrace_word_at(name, false), len) != *(__u64 *)w->comp)
		return false;
	if (len <= 8)
		return true;
	clear_buf(w->cname);
	return bpf_probe_read_kernel_str(w->cname, sizeof(w->cname), name) >= 0 &&
	       same_buf(w->cname, w->comp);
}

/*
 * cached_child() for a walk's component, w->comp in d: the newest
 * entries first, then names_found, then the rest. The name kept is
 * taken where the kernel's lookup would take it, also past the newest
 * IOTRACE_MAX_SIBLINGS, as long as it is there.
 */
static __always_inline struct dentry *walk_child(struct path_walk *w, struct dentry *d)
{
	struct name_key key = { .parent = (__u64)d, .hash = w->chash, .len = w->clen };
	struct dentry *c;
	__u64 *v, found;

	cached_child(w, d, IOTRACE_NEAR_SIBLINGS);
	if (w->matched || !w->sib)
		return w->found;
	v = bpf_map_lookup_elem(&names_found, &key);
	c = v ? (struct dentry *)*v : NULL;
	if (c && still_found(w, d, c)) {
		w->found = c;
		return c;
	}
	bpf_loop(IOTRACE_MAX_SIBLINGS - IOTRACE_NEAR_SIBLINGS, child_cb, NULL, 0);
	if (w->found) {
		found = (__u64)w->found;
		bpf_map_update_elem(&names_found, &key, &found, BPF_ANY);
	}
	return w->found;
}

/* One child mount of the current mount: is it mounted on w->d? */
static long mount_cb(__u32 i, void *ctx)
{
	struct path_walk *w = walk_state();
	struct list_head *node;
	struct mount *child;

	if (!w || !(node = w->mnode) || node == w->mhead)
		return 1;
	child = (void *)((char *)node - bpf_core_field_offset(struct mount, mnt_child));
	w->mnode = BPF_CORE_READ(node, next);
	if (BPF_CORE_READ(child, mnt_mountpoint) != w->d)
		return 0;
	/* side by side on one dentry (kernels before 4.13): the last is on top */
	w->next_m = child;
	return 0;
}

/* One character of the rest of the path (from w->pos) into w->cname; 1 = done. */
static long rest_cb(__u32 i, void *ctx)
{
	struct path_walk *w = walk_state();
	char c;

	if (!w || i >= IOTRACE_PATH_LEN - 1)
		return 1;
	c = w->path[idx(w->pos + i)];
	w->cname[idx(i)] = c;
	return !c;
}

/* One character of w->cname appended at w->clen of w->path; 1 = done. */
static long append_cb(__u32 i, void *ctx)
{
	struct path_walk *w = walk_state();
	__u32 at;
	char c;

	if (!w || i >= IOTRACE_PATH_LEN - 1)
		return 1;
	at = w->clen + i;
	c = w->cname[idx(i)];
	if (at >= IOTRACE_PATH_LEN - 1) {
		/* too long for the buffer: the walk gives up */
		w->fail = 1;
		return 1;
	}
	w->path[idx(at)] = c;
	return !c;
}

/*
 * w->found is a symbolic link with more of the path after it: the path
 * becomes its target and the rest (a link on the root file system to a
 * traced mount, /data -> /mnt/nvme0, the usual way into one), from the
 * root or from the link's directory, w->d. Only a link whose target the
 * inode holds (i_link: ext4's fast links, tmpfs's short ones; xfs stopped
 * setting it in v5.14) can be read here; false if it cannot be followed.
 */
static __always_inline bool follow_link(struct path_walk *w)
{
	struct dentry *link = w->found;
	const char *target = BPF_CORE_READ(link, d_inode, i_link);
	long n;

	if (!target || w->links++ >= IOTRACE_MAX_LINKS)
		return false;
	clear_buf(w->cname);
	bpf_loop(IOTRACE_PATH_LEN, rest_cb, NULL, 0);
	n = bpf_probe_read_kernel_str(w->path, sizeof(w->path), target);
	if (n <= 1)
		return false;
	w->clen = (__u32)n - 1;
	bpf_loop(IOTRACE_PATH_LEN, append_cb, NULL, 0);
	if (w->fail)
		return false;
	w->pos = 0;
	if (w->path[0] == '/') {
		w->d = w->root_d;
		w->m = w->root_m;
	}
	return true;
}

/*
 * DCACHE_MOUNTED, set on a dentry while something is mounted on it in
 * any namespace: 0x10000 from 2.6.38 until the flags became enum
 * dentry_flags, which renumbered them (1 << 15 on 6.18).
 */
static __always_inline __u32 dcache_mounted(void)
{
	if (bpf_core_enum_value_exists(enum dentry_flags, DCACHE_MOUNTED))
		return bpf_core_enum_value(enum dentry_flags, DCACHE_MOUNTED);
	return 0x10000;
}

struct mount_key {
	__u64 parent;
	__u64 mountpoint;
};

/*
 * The mounts walks have crossed into, by parent mount and mount point:
 * the kernel finds one through a hash table BPF cannot reach, a walk by
 * looking through the parent's children, which a host of containers has
 * by the hundred (40 to 50 ns each).
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1024);
	__type(key, struct mount_key);
	__type(value, __u64);
} mounts_crossed SEC(".maps");

/*
 * The mount on d in m a walk crossed into before, if it is still there.
 * An unmounted one is its own parent (the kernel's unhash_mnt()); memory
 * freed and reused, read by probes, would have to hold both pointers.
 */
static __always_inline struct mount *crossed_before(struct mount *m, struct dentry *d)
{
	struct mount_key key = { (__u64)m, (__u64)d };
	__u64 *v = bpf_map_lookup_elem(&mounts_crossed, &key);
	struct mount *c = v ? (struct mount *)*v : NULL;

	if (!c || BPF_CORE_READ(c, mnt_parent) != m || BPF_CORE_READ(c, mnt_mountpoint) != d)
		return NULL;
	return c;
}

/*
 * Into what is mounted on w->d in w->m, if anything. A mount on a mount
 * point goes on the root of the mount already there (stacked tmpfs on
 * /dev/shm, a container's mounts): so again from that root, as the
 * kernel's lookup does. The mount's children are looked through only
 * where the dentry is a mount point, and not again for one crossed
 * before (mounts_crossed).
 */
static __always_inline void cross_mounts(struct path_walk *w)
{
	struct mount_key key;
	struct dentry *d;
	struct mount *m, *next;
	int k;

	for (k = 0; k < IOTRACE_MAX_STACKED; k++) {
		/* locals: CO-RE reads start from a kernel type */
		d = w->d;
		if (!(BPF_CORE_READ(d, d_flags) & dcache_mounted()))
			return;
		m = w->m;
		next = crossed_before(m, d);
		if (!next) {
			w->next_m = NULL;
			w->mhead = (void *)((char *)m + bpf_core_field_offset(struct mount, mnt_mounts));
			w->mnode = BPF_CORE_READ(m, mnt_mounts.next);
			bpf_loop(IOTRACE_MAX_CHILD_MOUNTS, mount_cb, NULL, 0);
			if (w->mnode && w->mnode != w->mhead)
				w->mounts_cut = 1;
			next = w->next_m;
			if (!next)
				return;
			key.parent = (__u64)m;
			key.mountpoint = (__u64)d;
			bpf_map_update_elem(&mounts_crossed, &key, &next, BPF_ANY);
		}
		w->m = next;
		w->d = BPF_CORE_READ(next, mnt.mnt_root);
	}
}

/* Takes the next component of w->path; resolves it. 1 = stop. */
static long component_cb(__u32 i, void *ctx)
{
	struct path_walk *w = walk_state();
	struct dentry *root, *d;
	struct mount *m, *parent;
	__u32 len;

	if (!w)
		return 1;
	bpf_loop(IOTRACE_PATH_LEN, skip_cb, NULL, 0);
	clear_buf(w->comp);
	w->clen = 0;
	w->chash = 0xcbf29ce484222325ull;
	bpf_loop(IOTRACE_PATH_LEN, copy_cb, NULL, 0);
	len = w->clen;
	if (!len) {
		w->done = 1;	/* w->d is the file */
		return 1;
	}
	if (len == 1 && w->comp[0] == '.')
		return 0;
	/* locals: CO-RE reads must start from a kernel type, not w's fields */
	d = w->d;
	m = w->m;
	if (len == 2 && w->comp[0] == '.' && w->comp[1] == '.') {
		int k;

		/* out of the root of each mount it is in, down a stack too */
		for (k = 0; k < IOTRACE_MAX_STACKED; k++) {
			root = BPF_CORE_READ(m, mnt.mnt_root);
			parent = BPF_CORE_READ(m, mnt_parent);
			if (d != root || parent == m)
				break;
			d = BPF_CORE_READ(m, mnt_mountpoint);
			m = parent;
		}
		w->m = m;
		w->d = BPF_CORE_READ(d, d_parent);
		return 0;
	}
	/* not looked for: the file system's tracepoint names it (the walk fails here) */
	if (w->defer && !w->path[idx(w->pos)] &&
	    ((w->defer & IOTRACE_WALK_PARENT) ||
	     ((w->defer & IOTRACE_WALK_EXIT) && !iotrace_is_ovl(BPF_CORE_READ(d, d_sb), false)) ||
	     fs_names(d, w->defer))) {
		w->deferred = 1;
		w->fail = 1;
		return 1;
	}
	d = walk_child(w, d);
	if (!d) {
		w->fail = 1;
		return 1;
	}
	/* a link followed, as the kernel's lookup does, unless it is the file itself */
	if ((BPF_CORE_READ(d, d_inode, i_mode) & IOTRACE_S_IFMT) == IOTRACE_S_IFLNK &&
	    w->path[idx(w->pos)] == '/') {
		if (!follow_link(w)) {
			w->fail = 1;
			return 1;
		}
		return 0;
	}
	w->d = w->found;
	w->found = NULL;
	cross_mounts(w);
	return 0;
}

/*
 * The dentry the current task's path (dfd, upath) names, or NULL; NULL
 * too where the file system of its directory names defer (fs_names()).
 * The dentry is only used while it is pinned by the cache and read with
 * probe reads and guarded loads: a race with another CPU's rename yields
 * a wrong name or nothing, never a fault.
 */
static __always_inline struct dentry *resolve(__s32 dfd, const char *upath, __u32 defer,
					      bool *unresolved)
{
	struct task_struct *task = (void *)bpf_get_current_task();
	struct path_walk *w = walk_state();
	struct vfsmount *mnt;
	struct file *file;
	long n;

	if (!w)
		return NULL;
	n = bpf_probe_read_user_str(w->path, sizeof(w->path), upath);
	if (n <= 0)
		return NULL;
	mnt = BPF_CORE_READ(task, fs, root.mnt);
	w->root_d = BPF_CORE_READ(task, fs, root.dentry);
	if (!mnt || !w->root_d)
		return NULL;
	w->root_m = real_mount(mnt);
	w->links = 0;
	if (w->path[0] == '/') {
		w->d = w->root_d;
	} else if (dfd == IOTRACE_AT_FDCWD) {
		mnt = BPF_CORE_READ(task, fs, pwd.mnt);
		w->d = BPF_CORE_READ(task, fs, pwd.dentry);
	} else {
		file = fd_file(dfd, false);
		if (!file)
			return NULL;
		mnt = BPF_CORE_READ(file, f_path.mnt);
		w->d = BPF_CORE_READ(file, f_path.dentry);
	}
	if (!mnt || !w->d)
		return NULL;
	w->m = real_mount(mnt);
	w->pos = 0;
	w->fail = 0;
	w->done = 0;
	w->defer = defer;
	w->deferred = 0;
	w->mounts_cut = 0;
	bpf_loop(IOTRACE_MAX_COMPONENTS, component_cb, NULL, 0);
	/* the last name of a path cut short is not the path's: not one to match */
	if (n >= IOTRACE_PATH_LEN)
		w->deferred = 0;
	/* a path cut short is walked still: where it ends says whether to count it */
	if (w->fail || !w->done || n >= IOTRACE_PATH_LEN || w->path[0] == 0) {
		struct dentry *at = w->d;

		/*
		 * counted only where the lookup failed inside a traced file
		 * system: mount points stay cached, so a path into one fails
		 * there, not before
		 */
		*unresolved = at && fs_dev_traced(BPF_CORE_READ(at, d_sb, s_dev));
		return NULL;
	}
	return w->d;
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
	return resolve(op->ndfd, op->unew,
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
 * The file system of a path resolve() walked: that of d, what it found,
 * or where it left the last name to the file system or to the exit (the
 * name's directory: a call on a name is made there). NULL where the walk
 * failed before (an uncached link on the way may lead anywhere), or may
 * have missed a mount on the way.
 */
static __always_inline struct super_block *walked_sb(struct dentry *d)
{
	struct path_walk *w = walk_state();

	if (!w || w->mounts_cut)
		return NULL;
	if (d)
		return BPF_CORE_READ(d, d_sb);
	if (!w->deferred)
		return NULL;
	d = w->d;
	return BPF_CORE_READ(d, d_sb);
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

	if (!sb)
		return false;
	bdev = BPF_CORE_READ(sb, s_bdev);
	if (fs_dev_traced(BPF_CORE_READ(sb, s_dev)) || BPF_CORE_READ(sb, s_stack_depth))
		return false;
	if (bdev)
		return !bdev_traced_global((__u64)bdev);
	if (BPF_CORE_READ(sb, s_magic) == IOTRACE_BTRFS_MAGIC)
		return !iotrace_btrfs_traced(sb);
	return !(BPF_CORE_READ(sb, s_type, fs_flags) & IOTRACE_FS_REQUIRES_DEV);
}

SEC("tracepoint")
int handle_ns_enter(struct trace_event_raw_sys_enter *ctx)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid(), call;
	struct ns_op *op = scratch_op();
	struct dentry *d;
	struct inode *inode;
	unsigned long a[5];
	__s32 dfd = IOTRACE_AT_FDCWD;
	const char *upath;

	call = call_of(ctx->id);
	if (!is_ns_call(call) || !op)
		return 0;
	__builtin_memset(op, 0, sizeof(*op));
	bpf_probe_read_kernel(a, sizeof(a), ctx->args);
	/* an rmdir removes no file */
	if (call == IOTRACE_VFS_UNLINKAT && (a[2] & IOTRACE_AT_REMOVEDIR))
		return 0;
	/* kept for a file system's own rename tracepoint too */
	op->exchange = call == IOTRACE_VFS_RENAMEAT2 && (a[4] & IOTRACE_RENAME_EXCHANGE);
	upath = (const char *)a[0];
	if (call == IOTRACE_VFS_UNLINKAT || call >= IOTRACE_VFS_RENAMEAT) {
		dfd = (__s32)a[0];
		upath = (const char *)a[1];
	}
	op->odfd = dfd;
	op->uold = upath;
	op->ndfd = IOTRACE_AT_FDCWD;
	op->unew = (const char *)a[1];
	if (call >= IOTRACE_VFS_RENAMEAT) {
		op->ndfd = (__s32)a[2];
		op->unew = (const char *)a[3];
	}
	d = resolve(dfd, upath,
		    call <= IOTRACE_VFS_UNLINKAT ? IOTRACE_NAMES_UNLINKED : IOTRACE_WALK_EXIT,
		    &op->unresolved);
	if (call > IOTRACE_VFS_UNLINKAT && rename_elsewhere(walked_sb(d))) {
		__u8 one = 1;

		bpf_map_update_elem(&renames_elsewhere, &tid, &one, BPF_ANY);
		return 0;
	}
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
			return 0;
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
		store_op(tid, op);
		return 0;
	}
	if (!inode) {
		if (op->dir_moved)
			store_op(tid, op);
		return 0;
	}
	if (call > IOTRACE_VFS_UNLINKAT)
		note_new_name(op, inode);
	store_op(tid, op);
	return 0;
}

/*
 * A file system's own tracepoint names what an unlink or a rename removes
 * or renames, inside the call (ns_ops has it by thread: an unlink of
 * io_uring's, or the file system's own, has none). The ns_op in progress
 * of the current thread for the call (rename or not) if its path was not
 * resolved (not cached, in a directory of more cached entries than the
 * walk looks at, too long), or, for a rename, if the file at its new name
 * was not found; NULL if there is nothing to add.
 */
static __always_inline struct ns_op *pending_op(bool rename)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct ns_op *p = bpf_map_lookup_elem(&ns_ops, &tid);

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
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct ns_op *op = scratch_op();

	if (!op || !d)
		return NULL;
	/* the call as started at its entry, nothing found yet */
	*op = *p;
	op->unresolved = false;
	if (start_on(op, d, op->st.call)) {
		store_op(tid, op);
		return bpf_map_lookup_elem(&ns_ops, &tid);
	}
	if (op->dir_moved)
		store_op(tid, op);
	else if (!ns_target(d))
		/* a directory not named, or no regular file: nothing was missed */
		drop_op(tid, op);
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
	__u32 tid;

	if (!ns_deferred)
		return 0;
	tid = (__u32)bpf_get_current_pid_tgid();
	p = bpf_map_lookup_elem(&ns_ops, &tid);
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
static __always_inline bool link_gone(struct ns_op *op)
{
	bool record = vfs_enabled && task_selected(op->st.pid);
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
__noinline int name_by_path_global(__s32 dfd, __u64 upath, struct iotrace_file_id *fid)
{
	bool ignored = false;
	struct path_walk *w;

	if (!fid)	/* the verifier's due for a pointer argument */
		return 0;
	resolve(dfd, (const char *)upath, IOTRACE_WALK_PARENT, &ignored);
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
					 const char *upath, struct iotrace_file_id *fid)
{
	return f->sent_epoch == rename_epoch + 1 ||
	       name_by_path_global(dfd, (__u64)upath, fid);
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
						    const char *upath,
						    struct iotrace_file_id *fid,
						    struct dentry **dentry)
{
	struct dentry *t = ns_target(d);
	struct file_seen *f;

	*dentry = t;
	f = t ? file_entry(BPF_CORE_READ(t, d_inode), fid) : NULL;
	if (f && t == d && !name_by_path(f, dfd, upath, fid))
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

	d = resolve(op->ndfd, op->unew, 0, &ignored);
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
	if (!moved_file(d, op->odfd, op->uold, &op->st.file, &op->dentry))
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
	struct dentry *d = resolve(op->odfd, op->uold, 0, &ignored);

	if (moved_file(d, op->ndfd, op->unew, &op->replaced, &op->dentry2))
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
						   const char *upath, bool dir)
{
	bool ignored = false;
	struct inode *inode = d ? BPF_CORE_READ(d, d_inode) : NULL;

	/* a kill unhashes a dentry first, and a reused one is another file's */
	if (inode && BPF_CORE_READ(d, d_hash.pprev) && BPF_CORE_READ(inode, i_ino) == ino)
		return d;
	d = resolve(dfd, upath, 0, &ignored);
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
				       const char *upath, bool is_dir)
{
	struct dentry *d = moved_dentry(*dentry, ino, dfd, upath, is_dir);

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
			op->unew, op->dir_moved))
		return false;
	return !op->has_replaced || !op->exchange ||
	       take_moved(&op->dentry2, &op->dir2, &op->dir_inode2, op->replaced.ino, op->odfd,
			  op->uold, false);
}

/*
 * The events of the unlink or rename op at its exit (ret: its result).
 * True if it was a rename of regular files only, on traced devices, whose
 * new name chains were sent here: no other file's path changed.
 */
static __always_inline bool ns_exit(struct ns_op *op, long ret)
{
	if (op->unresolved && ret == 0 && op->st.call > IOTRACE_VFS_UNLINKAT) {
		int r = resolve_moved(op);

		if (!r)
			return false;
		if (r < 0) {
			__sync_fetch_and_add(&ns_unresolved, 1);
			return false;
		}
	}
	/* still unresolved: an unlink (a directory moved is resolved) */
	if (op->unresolved) {
		if (ret == 0 && !link_gone(op))
			__sync_fetch_and_add(&ns_unresolved, 1);
		return false;
	}
	if (ret == 0 && op->exchange && !op->has_replaced && !op->dir_moved &&
	    !exchanged_file(op)) {
		__sync_fetch_and_add(&ns_unresolved, 1);
		return false;
	}
	if (ret == 0 && op->st.call > IOTRACE_VFS_UNLINKAT && !moves_named(op)) {
		__sync_fetch_and_add(&ns_unresolved, 1);
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
		    !name_by_path(f, r ? op->ndfd : op->odfd, r ? op->unew : op->uold, fid)) {
			__sync_fetch_and_add(&ns_unresolved, 1);
			return false;
		}
	}
	if (ret == 0) {
		if (op->st.call <= IOTRACE_VFS_UNLINKAT) {
			if (!op->link_only)
				emit_fs_event(&op->st.file, IOTRACE_FS_DELETE);
			else
				name_again(&op->st.file);
		} else {
			if (op->has_replaced && !op->exchange)
				emit_fs_event(&op->replaced, IOTRACE_FS_DELETE);
			emit_move(&op->st.file, op->dentry, op->dir, op->dir_inode);
			if (op->has_replaced && op->exchange)
				emit_move(&op->replaced, op->dentry2, op->dir2, op->dir_inode2);
		}
	}
	if (vfs_enabled && task_selected(op->st.pid))
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
	struct ns_op *op = scratch_op(), *p;
	/* read once: clang may keep &ctx->ret, and the verifier refuses a load through an offset ctx */
	long ret = ctx->ret;
	bool paths_kept = false;

	p = bpf_map_lookup_elem(&ns_ops, &tid);
	if (p && op) {
		*op = *p;
		drop_op(tid, op);
		paths_kept = op->st.call == call && ns_exit(op, ret);
	} else if (call > IOTRACE_VFS_UNLINKAT) {
		paths_kept = !bpf_map_delete_elem(&renames_elsewhere, &tid);
	}
	if (ret == 0 && call > IOTRACE_VFS_UNLINKAT && !paths_kept)
		__sync_fetch_and_add(&rename_epoch, 1);
	return 0;
}

#endif /* IOTRACE_FS_EVENTS_BPF_H */
