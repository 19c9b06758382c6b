/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-3-Clause) */
/*
 * System-call (VFS) tracing programs, part of iotrace.bpf.c: they share its
 * sequence counter, buffers and file map, so they live in the same object.
 *
 * Only syscall tracepoints are used (fentry and kprobes are refused on the
 * nodes this must run on). One enter and one exit program serve every
 * traced call: user space attaches them to each syscalls:sys_enter_<call>
 * and sys_exit_<call> that exists, and tells them through sys_call_of[]
 * which call a syscall number is (numbers differ per architecture). The
 * enter program resolves the file from the task's fd table, keeps the
 * call's arguments per thread, and only for files on a traced device;
 * the exit program sends one record with arguments and result.
 *
 * io_uring requests never pass a syscall tracepoint of their own: they
 * are followed in uring.bpf.h.
 */
#ifndef IOTRACE_VFS_BPF_H
#define IOTRACE_VFS_BPF_H

/* Syscall numbers below this can be traced (x86-64 and arm64 use < 460). */
#define IOTRACE_MAX_SYSCALL_NR 512
#define IOTRACE_MAX_FS_DEVS 64
#define IOTRACE_MAX_FILTER 16
/* cgroup levels --cgroup looks up from the root: systemd and Slurm nest 4 to 6 */
#define IOTRACE_CGROUP_DEPTH 32
/* unlinkat(2) flag: rmdir */
#define IOTRACE_AT_REMOVEDIR 0x200

/* --vfs given: trace calls, not only file creation */
const volatile __u8 vfs_enabled = 0;
/* enum iotrace_vfs_call of each syscall number, 0 = not traced */
const volatile __u8 sys_call_of[IOTRACE_MAX_SYSCALL_NR] = {};
/*
 * File systems whose calls are traced (i_sb->s_dev; src/fs_devs.h): the
 * traced devices, every partition of a traced whole disk, and the file
 * systems on them that number themselves apart (btrfs). Not read-only:
 * the collector appends those mounted while it runs, each entry before
 * the count that makes it seen.
 */
__u32 targ_fs_devs[IOTRACE_MAX_FS_DEVS] = {};
__u32 targ_nfs_devs = 0;
/* --pids, --comm, --cgroup: a call is traced if it matches each given list */
const volatile __u32 filt_pids[IOTRACE_MAX_FILTER] = {};
const volatile __u32 filt_npids = 0;
const volatile char filt_comms[IOTRACE_MAX_FILTER][IOTRACE_COMM_LEN] = {};
const volatile __u32 filt_ncomms = 0;
const volatile __u64 filt_cgroups[IOTRACE_MAX_FILTER] = {};
const volatile __u32 filt_ncgroups = 0;
/*
 * bpf_get_current_ancestor_cgroup_id() is allowed in tracing programs
 * (not on every kernel since 5.12): set by user space, which probes it;
 * else the cgroup's parents are read one by one
 */
const volatile bool cgroup_ancestor_helper = false;

/*
 * Last call id handed out; ids start at 1. Next to next_sid (IOTRACE_IDS),
 * which the same call takes right after it.
 */
__u64 next_call_id IOTRACE_IDS = 0;

/* A call in progress: its arguments, until its exit. */
struct vfs_state {
	__u64 call_id;
	__u64 start;
	__s64 offset;
	__s64 offset2;
	__u64 size;
	struct iotrace_file_id file;
	struct iotrace_file_id file2;
	__s32 fd;
	__s32 fd2;
	__u32 flags;
	__u32 dev;
	__u32 pid;
	__u32 tid;
	__u16 call;
	__u8 opcode;
	__u8 pad[5];
	/* who made the call: an io_uring request completes elsewhere */
	__u64 cgroup;
	char comm[IOTRACE_COMM_LEN];
};

/*
 * The call in progress of each thread (call 0: none), in the thread's
 * own storage: a thread that dies inside a call (exit_group from another
 * thread) takes its entry with it. An LRU hash by thread id did the same
 * at about 350 ns a call more: its update, delete and free-list locking
 * were 14% of a traced pread64 (perf, pread_loop with --vfs).
 */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct vfs_state);
} vfs_calls SEC(".maps");

/* Room for one VFS record: too big for the BPF stack with the state. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct iotrace_vfs_event);
} vfs_buf SEC(".maps");

/* FMODE_CREATED (include/linux/fs.h), set by an open that made the file */
#define IOTRACE_FMODE_CREATED (1u << 20)

/* S_IFREG files of a traced file system only */
__noinline int fs_dev_traced(__u32 dev)
{
	__u32 i, n = *(volatile __u32 *)&targ_nfs_devs;

	for (i = 0; i < IOTRACE_MAX_FS_DEVS; i++) {
		if (i >= n)
			break;
		if (targ_fs_devs[i] == dev)
			return 1;
	}
	return 0;
}

static __always_inline bool comm_is(const char *comm, __u32 i)
{
	__u32 k;

	for (k = 0; k < IOTRACE_COMM_LEN; k++) {
		if (comm[k] != filt_comms[i & (IOTRACE_MAX_FILTER - 1)][k])
			return false;
		if (!comm[k])
			return true;
	}
	return true;
}

static __always_inline bool in_filt_cgroups(__u64 cgroup)
{
	bool hit = false;
	__u32 i;

	for (i = 0; i < IOTRACE_MAX_FILTER && i < filt_ncgroups; i++)
		hit |= filt_cgroups[i] == cgroup;
	return hit;
}

/* A cgroup's parent, NULL for the root (cgroup_gone.bpf.h's too). */
static __always_inline struct cgroup *cgroup_parent(struct cgroup *cg)
{
	/* self, a cgroup's own css, is its first member: its parent's is the parent */
	return (struct cgroup *)BPF_CORE_READ(cg, self.parent);
}

/*
 * Whether the current task's cgroup or one above it is a --cgroup one: a
 * batch job's processes live in cgroups below the job's (Slurm's
 * job_N/step_M/...). By the helper, levels count from the root whatever
 * the tracer's cgroup namespace (past the task's own it gives 0); without
 * it, up the parents: three probe reads a level against one helper call.
 */
static __always_inline bool in_cgroup_tree(void)
{
	struct cgroup *cg;
	__u64 cgroup;
	int level;

	if (cgroup_ancestor_helper) {
		for (level = 0; level < IOTRACE_CGROUP_DEPTH; level++) {
			cgroup = bpf_get_current_ancestor_cgroup_id(level);
			if (!cgroup)
				return false;
			if (in_filt_cgroups(cgroup))
				return true;
		}
		return false;
	}
	cg = BPF_CORE_READ((struct task_struct *)bpf_get_current_task(), cgroups, dfl_cgrp);
	for (level = 0; level < IOTRACE_CGROUP_DEPTH && cg; level++) {
		if (in_filt_cgroups(BPF_CORE_READ(cg, kn, id)))
			return true;
		cg = cgroup_parent(cg);
	}
	return false;
}

/*
 * The --pids/--comm/--cgroup filters, evaluated in the kernel, for the
 * current task; pid: its tgid. Without any, nothing is looked up: this
 * runs for every traced syscall on the node, most of them on files that
 * are not traced.
 */
__noinline int task_selected(__u32 pid)
{
	char comm[IOTRACE_COMM_LEN] = {};
	bool hit;
	__u32 i;

	if (!filt_npids && !filt_ncgroups && !filt_ncomms)
		return 1;

	if (filt_npids) {
		/* the user's numbers, those of the tracer's pid namespace */
		pid = tgid_seen(pid);
		hit = false;
		for (i = 0; i < IOTRACE_MAX_FILTER && i < filt_npids; i++)
			hit |= pid && filt_pids[i] == pid;
		if (!hit)
			return 0;
	}
	if (filt_ncgroups && !in_cgroup_tree())
		return 0;
	if (filt_ncomms) {
		bpf_get_current_comm(comm, sizeof(comm));
		for (i = 0; i < IOTRACE_MAX_FILTER && i < filt_ncomms; i++)
			if (comm_is(comm, i))
				return 1;
		return 0;
	}
	return 1;
}

/*
 * The open file fd of the current task, or NULL. The fd array and its
 * slot are read as numbers: a cast load of them would be a pointer to
 * the verifier, which refuses the variable index (cast: IOTRACE_READ).
 */
static __always_inline struct file *fd_file(__s64 fd, const bool cast)
{
	struct task_struct *task = (void *)bpf_get_current_task();
	struct files_struct *files = IOTRACE_READ(cast, task, files);
	struct fdtable *fdt = files ? IOTRACE_READ(cast, files, fdt) : NULL;
	unsigned long fds;

	if (fd < 0 || !fdt || fd >= IOTRACE_READ(cast, fdt, max_fds))
		return NULL;
	fds = iotrace_word_at((char *)fdt + bpf_core_field_offset(struct fdtable, fd), cast);
	if (!fds)
		return NULL;
	return (struct file *)iotrace_word_at((char *)fds + fd * sizeof(struct file *), cast);
}

/*
 * The FileId of a regular file on a traced file system, its name chain
 * sent if not yet in this rename epoch. Returns the FileId's device (on
 * btrfs the subvolume's, see iotrace_file_dev()), 0 if the file is not
 * traced.
 */
static __always_inline __u32 traced_file_body(struct file *file,
					      struct iotrace_file_id *id,
					      const bool cast)
{
	struct inode *inode = IOTRACE_READ(cast, file, f_inode);
	struct dentry *d = NULL;
	struct super_block *sb;
	struct file_seen *f;

	if (!inode ||
	    (IOTRACE_READ(cast, inode, i_mode) & IOTRACE_S_IFMT) != IOTRACE_S_IFREG)
		return 0;
	sb = IOTRACE_READ(cast, inode, i_sb);
	if (fs_dev_traced(IOTRACE_READ(cast, sb, s_dev))) {
		d = IOTRACE_READ(cast, file, f_path.dentry);
	} else {
		/* only calls on untraced file systems pay for this test */
		if (!iotrace_is_ovl(sb, cast))
			return 0;
		/* the real file is named by its alias, as its block I/O names it */
		inode = iotrace_ovl_real(inode, cast);
		if (!inode)
			return 0;
		sb = IOTRACE_READ(cast, inode, i_sb);
		if (!fs_dev_traced(IOTRACE_READ(cast, sb, s_dev)))
			return 0;
	}
	f = file_entry_of(inode, id, cast);
	if (!f)
		return 0;
	name_file(f, id, inode, d, cast);
	return id->dev;
}

/*
 * Global functions, so that the verifier checks traced_file_body() once
 * instead of at each path that reaches one of its call sites: inlined in
 * on_sys_enter(), whose argument switch forks into some twenty paths and
 * calls it up to twice on each, it was most of the 3 s that loading the
 * programs took on a 2-vCPU VM. The file is passed as a number (a pointer
 * argument would be taken for memory of its size); each reads it as the
 * program that calls it would.
 */
__noinline __u32 traced_file_cast(__u64 file, struct iotrace_file_id *id)
{
	if (!id)	/* the verifier's due for a pointer argument */
		return 0;
	return traced_file_body((struct file *)file, id, true);
}

__noinline __u32 traced_file_read(__u64 file, struct iotrace_file_id *id)
{
	if (!id)	/* the verifier's due for a pointer argument */
		return 0;
	return traced_file_body((struct file *)file, id, false);
}

static __always_inline __u32 traced_file(struct file *file,
					 struct iotrace_file_id *id,
					 const bool cast)
{
	return cast ? traced_file_cast((__u64)file, id) : traced_file_read((__u64)file, id);
}

/* Sum of the first iovecs' lengths: the bytes a readv/writev asks for. */
#define IOTRACE_MAX_IOV 16

static __always_inline __u64 iov_bytes(const struct iovec *iov, __u64 cnt)
{
	struct iovec v;
	__u64 sum = 0;
	__u32 i;

	for (i = 0; i < IOTRACE_MAX_IOV && i < cnt; i++) {
		if (bpf_probe_read_user(&v, sizeof(v), &iov[i]))
			break;
		sum += v.iov_len;
	}
	return sum;
}

static __always_inline __s64 user_off(__u64 uptr)
{
	__s64 off = -1;

	if (uptr)
		bpf_probe_read_user(&off, sizeof(off), (void *)uptr);
	return off;
}

static long vma_file_cb(struct task_struct *task, struct vm_area_struct *vma,
			void *data)
{
	*(struct file **)data = BPF_CORE_READ(vma, vm_file);
	return 0;
}

/* Arguments of call, from the syscall's args[], into st. */
static __always_inline void read_args(struct vfs_state *st, __u32 call,
				      const unsigned long *a)
{
	st->fd = (__s32)a[0];
	st->fd2 = -1;
	st->offset = -1;
	st->offset2 = -1;
	switch (call) {
	case IOTRACE_VFS_READ:
	case IOTRACE_VFS_WRITE:
		st->size = a[2];
		break;
	case IOTRACE_VFS_PREAD64:
	case IOTRACE_VFS_PWRITE64:
		st->size = a[2];
		st->offset = (__s64)a[3];
		break;
	case IOTRACE_VFS_READV:
	case IOTRACE_VFS_WRITEV:
		st->size = iov_bytes((void *)a[1], a[2]);
		break;
	case IOTRACE_VFS_PREADV:
	case IOTRACE_VFS_PWRITEV:
	case IOTRACE_VFS_PREADV2:
	case IOTRACE_VFS_PWRITEV2:
		st->size = iov_bytes((void *)a[1], a[2]);
		/* 64-bit: pos_l is the offset; preadv2's -1 = file position */
		st->offset = (__s64)a[3];
		if (call >= IOTRACE_VFS_PREADV2)
			st->flags = a[5];
		break;
	case IOTRACE_VFS_OPEN:
		st->fd = -1;
		st->flags = a[1];
		break;
	case IOTRACE_VFS_OPENAT:
		st->fd = -1;
		st->flags = a[2];
		break;
	case IOTRACE_VFS_OPENAT2: {
		__u64 how_flags = 0;

		st->fd = -1;
		bpf_probe_read_user(&how_flags, sizeof(how_flags), (void *)a[2]);
		st->flags = how_flags;
		break;
	}
	case IOTRACE_VFS_CREAT:
		st->fd = -1;
		/* O_CREAT | O_WRONLY | O_TRUNC */
		st->flags = 01101;
		break;
	case IOTRACE_VFS_LSEEK:
		st->offset = (__s64)a[1];
		st->flags = a[2];
		break;
	case IOTRACE_VFS_FTRUNCATE:
		st->size = a[1];
		break;
	case IOTRACE_VFS_FALLOCATE:
		st->flags = a[1];
		st->offset = (__s64)a[2];
		st->size = a[3];
		break;
	case IOTRACE_VFS_MMAP:
		st->size = a[1];
		st->flags = a[3];
		st->fd = (__s32)a[4];
		st->offset = (__s64)a[5];
		break;
	case IOTRACE_VFS_MSYNC:
		st->fd = -1;
		st->size = a[1];
		st->flags = a[2];
		break;
	case IOTRACE_VFS_SYNC_FILE_RANGE:
		st->offset = (__s64)a[1];
		st->size = a[2];
		st->flags = a[3];
		break;
	/* (fd_in, *off_in, fd_out, *off_out, len, flags), both */
	case IOTRACE_VFS_COPY_FILE_RANGE:
	case IOTRACE_VFS_SPLICE:
		st->offset = user_off(a[1]);
		st->fd2 = (__s32)a[2];
		st->offset2 = user_off(a[3]);
		st->size = a[4];
		st->flags = a[5];
		break;
	case IOTRACE_VFS_SENDFILE:
		/* sendfile(out_fd, in_fd, *offset, count): the input is fd */
		st->fd2 = (__s32)a[0];
		st->fd = (__s32)a[1];
		st->offset = user_off(a[2]);
		st->size = a[3];
		break;
	default:
		break;
	}
}

static __always_inline bool is_open(__u32 call)
{
	return call >= IOTRACE_VFS_OPEN && call <= IOTRACE_VFS_CREAT;
}

/*
 * The syscalls:sys_{enter,exit}_* records start with an int
 * __syscall_nr where raw_syscalls' (whose struct vmlinux.h has) hold a
 * long id: only the low 32 bits are the number.
 */
static __always_inline __u32 call_of(long id)
{
	__u32 nr = (__u32)id;

	if (nr >= IOTRACE_MAX_SYSCALL_NR)
		return 0;
	/* the mask keeps the verifier sure of the bound */
	return sys_call_of[nr & (IOTRACE_MAX_SYSCALL_NR - 1)];
}

static __always_inline int on_sys_enter(struct trace_event_raw_sys_enter *ctx, const bool cast)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct vfs_state st = {}, *p;
	unsigned long a[6];
	struct file *file;
	__u32 call;

	call = call_of(ctx->id);
	if (!call || !vfs_enabled)
		return 0;
	if (is_self(task->tgid) || !task_selected(task->tgid))
		return 0;
	/*
	 * Copied, not loaded: one program serves calls of 1 to 6 arguments,
	 * and the kernel refuses to attach a program that reads past the
	 * record of the tracepoint (sys_enter_close's has one argument).
	 */
	bpf_probe_read_kernel(a, sizeof(a), ctx->args);
	st.call = call;
	read_args(&st, call, a);
	if (call == IOTRACE_VFS_MSYNC) {
		file = NULL;
		bpf_find_vma(task, a[0], vma_file_cb, &file, 0);
		if (file)
			st.dev = traced_file(file, &st.file, cast);
		if (!st.dev)
			return 0;
	} else if (!is_open(call)) {
		file = fd_file(st.fd, cast);
		if (file)
			st.dev = traced_file(file, &st.file, cast);
		if (st.fd2 >= 0) {
			struct file *out = fd_file(st.fd2, cast);
			__u32 dev2 = out ? traced_file(out, &st.file2, cast) : 0;

			if (!st.dev)
				st.dev = dev2;
		}
		if (!st.dev)
			return 0;
		/*
		 * calls at the file position (read_args() gives them -1, and
		 * preadv2/pwritev2 take -1 so): say where that was. Another
		 * negative offset, pread64's too, is the caller's, and why the
		 * call failed (EINVAL): kept.
		 */
		if (st.offset == -1 && file && call != IOTRACE_VFS_PREAD64 &&
		    call != IOTRACE_VFS_PWRITE64 &&
		    (call <= IOTRACE_VFS_WRITEV || call >= IOTRACE_VFS_PREADV2) &&
		    call <= IOTRACE_VFS_PWRITEV2)
			st.offset = IOTRACE_READ(cast, file, f_pos);
	}
	/* opens are decided at exit, once the fd names a file */
	task_ids(task, &st.pid, &st.tid, st.comm, &st.cgroup);
	st.call_id = __sync_fetch_and_add(&next_call_id, 1) + 1;
	st.start = bpf_ktime_get_ns();
	p = bpf_task_storage_get(&vfs_calls, task, NULL, BPF_LOCAL_STORAGE_GET_F_CREATE);
	/*
	 * No room (or the storage busy under a nested program): the call's
	 * record is lost. An open's is not counted: whether it would have
	 * been sent is known only at its exit.
	 */
	if (!p) {
		if (!is_open(call))
			count_lost(1);
		return 0;
	}
	*p = st;
	return 0;
}

SEC("tracepoint")
int handle_sys_enter(struct trace_event_raw_sys_enter *ctx)
{
	return on_sys_enter(ctx, false);
}

/* where the kernel has bpf_rdonly_cast() (v6.2; see core_fixes.bpf.h) */
SEC("tracepoint")
int handle_sys_enter_cast(struct trace_event_raw_sys_enter *ctx)
{
	return on_sys_enter(ctx, true);
}

static __always_inline void emit_vfs(struct vfs_state *st,
				     __s64 result, __u8 created)
{
	struct iotrace_vfs_event *v;
	__u32 zero = 0;

	if (stopping)
		return;
	v = bpf_map_lookup_elem(&vfs_buf, &zero);
	if (!v)
		return;
	__builtin_memset(&v->hdr, 0, sizeof(v->hdr));
	v->hdr.type = IOTRACE_EV_VFS;
	v->hdr.pid = st->pid;
	v->hdr.tid = st->tid;
	v->hdr.dev = st->dev;
	v->hdr.ts = bpf_ktime_get_ns();
	v->call_id = st->call_id;
	v->start = st->start;
	v->offset = st->offset;
	v->offset2 = st->offset2;
	v->size = st->size;
	v->result = result;
	v->cgroup = st->cgroup;
	v->file = st->file;
	v->file2 = st->file2;
	v->fd = st->fd;
	v->fd2 = st->fd2;
	v->flags = st->flags;
	v->call = st->call;
	v->created = created;
	v->opcode = st->opcode;
	__builtin_memcpy(v->comm, st->comm, sizeof(v->comm));
	output_sized(&v->hdr, sizeof(*v), 1);
}

static __always_inline void emit_fs_event(struct iotrace_file_id *id,
					  __u32 kind)
{
	struct iotrace_fs_event e = {};

	if (stopping)
		return;
	e.hdr.type = IOTRACE_EV_FS;
	e.hdr.dev = id->dev;
	e.file = *id;
	e.kind = kind;
	stamp(&e.hdr);
	output_sized(&e.hdr, sizeof(e), 1);
}

/*
 * A successful open on a traced file system: its file is now known, and
 * if the open created it (O_CREAT made a new inode), that is an OCTF
 * Create event. Without --vfs (st NULL) only the Create is sent.
 */
static __always_inline void on_open_exit(struct vfs_state *st, long ret)
{
	struct iotrace_file_id id = {};
	struct file *file;
	__u8 created;
	__u32 dev;

	if (ret < 0)
		return;
	file = fd_file(ret, false);
	if (!file)
		return;
	dev = traced_file(file, &id, false);
	if (!dev)
		return;
	created = !!(BPF_CORE_READ(file, f_mode) & IOTRACE_FMODE_CREATED);
	if (created)
		emit_fs_event(&id, IOTRACE_FS_CREATE);
	if (!st)
		return;
	st->dev = dev;
	st->fd = ret;
	st->file = id;
	emit_vfs(st, ret, created);
}

/*
 * The state is the thread's own: nothing else writes it between the
 * call's enter and exit, so it is used in place. A failed open is not
 * recorded: before the fd exists, nothing says on which device the file
 * would have been.
 */
SEC("tracepoint")
int handle_sys_exit(struct trace_event_raw_sys_exit *ctx)
{
	struct vfs_state *st = NULL;
	__u32 call;

	call = call_of(ctx->id);
	if (!call || is_self(bpf_get_current_pid_tgid() >> 32))
		return 0;
	if (vfs_enabled) {
		st = bpf_task_storage_get(&vfs_calls, bpf_get_current_task_btf(), NULL, 0);
		if (st && st->call != call) {
			st->call = 0;
			st = NULL;
		}
	}
	if (is_open(call))
		on_open_exit(st, ctx->ret);
	else if (st)
		emit_vfs(st, ctx->ret, 0);
	if (st)
		st->call = 0;
	return 0;
}

#endif /* IOTRACE_VFS_BPF_H */
