/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-3-Clause) */
/*
 * A path resolved the way the kernel's own lookup would, for the unlink
 * and rename programs (fs_events.bpf.h): from the root, the working
 * directory or the dirfd, one component at a time through the dentry
 * cache (a directory's cached children), crossing mount points through
 * the mount's children and following the symbolic links whose target
 * the inode holds. With no kprobe allowed, the kernel's hash tables are
 * out of reach: a walk looks through lists, newest first, and remembers
 * what it found deep in them (names_found, mounts_crossed).
 *
 * Part of iotrace.bpf.c, after vfs.bpf.h (fd_file(), fs_dev_traced()).
 * Needs bpf_loop (v5.17) and bpf_rdonly_cast() (v6.2).
 */
#ifndef IOTRACE_PATH_WALK_BPF_H
#define IOTRACE_PATH_WALK_BPF_H

#define IOTRACE_MAX_SIBLINGS 4096
#define IOTRACE_MAX_CHILD_MOUNTS 4096
#define IOTRACE_MAX_STACKED 4
#define IOTRACE_PATH_LEN 256
#define IOTRACE_AT_FDCWD -100
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
 * The dentry the current task's path (dfd, path) names, or NULL; NULL
 * too where the file system of its directory names defer (fs_names()).
 * kernel: path is in kernel memory (an io_uring request's), not the
 * task's. The dentry is only used while it is pinned by the cache and
 * read with probe reads and guarded loads: a race with another CPU's
 * rename yields a wrong name or nothing, never a fault. Called through
 * resolve_at().
 */
__noinline __u64 resolve_global(__s32 dfd, __u64 upath, __u32 kernel, __u32 defer,
				bool *unresolved)
{
	struct task_struct *task = (void *)bpf_get_current_task();
	const char *path = (const char *)upath;
	struct path_walk *w = walk_state();
	struct vfsmount *mnt;
	struct file *file;
	long n;

	if (!w || !unresolved)	/* the verifier's due for a pointer argument */
		return 0;
	/* what a caller reads of the walk (walked_sb(), names left) is never a walk before */
	w->deferred = 0;
	w->mounts_cut = 0;
	n = kernel ? bpf_probe_read_kernel_str(w->path, sizeof(w->path), path) :
		     bpf_probe_read_user_str(w->path, sizeof(w->path), path);
	if (n <= 0)
		return 0;
	mnt = BPF_CORE_READ(task, fs, root.mnt);
	w->root_d = BPF_CORE_READ(task, fs, root.dentry);
	if (!mnt || !w->root_d)
		return 0;
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
			return 0;
		mnt = BPF_CORE_READ(file, f_path.mnt);
		w->d = BPF_CORE_READ(file, f_path.dentry);
	}
	if (!mnt || !w->d)
		return 0;
	w->m = real_mount(mnt);
	w->pos = 0;
	w->fail = 0;
	w->done = 0;
	w->defer = defer;
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
		return 0;
	}
	return (__u64)w->d;
}

/*
 * resolve_global()'s dentry: a global function, verified once per
 * program, not at each of the walks a program makes (up to four in the
 * exit of a rename).
 */
static __always_inline struct dentry *resolve_at(__s32 dfd, const char *path, bool kernel,
						 __u32 defer, bool *unresolved)
{
	return (struct dentry *)resolve_global(dfd, (__u64)path, kernel, defer, unresolved);
}

/*
 * The file system of a path resolve_at() walked: that of d, what it found,
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

#endif /* IOTRACE_PATH_WALK_BPF_H */
