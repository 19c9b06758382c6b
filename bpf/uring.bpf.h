/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-3-Clause) */
/*
 * io_uring requests, part of iotrace.bpf.c (after vfs.bpf.h, whose
 * records and helpers they use, and fs_events.bpf.h, whose unlinks). They never pass a syscall tracepoint of
 * their own. With --vfs a request is followed from io_uring_submit_req,
 * in the submitting task, to io_uring_complete; for the file events, one
 * that may create, remove or rename a file from its hand-off to io-wq
 * (io_uring_queue_async_work) to io_uring_complete.
 */
#ifndef IOTRACE_URING_BPF_H
#define IOTRACE_URING_BPF_H

/* io_uring requests in flight, by request address */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64);
	__type(value, struct vfs_state);
} uring_reqs SEC(".maps");

/* IORING_OP_* (include/uapi/linux/io_uring.h), stable uapi numbers */
#define IOTRACE_IORING_OP_READV 1
#define IOTRACE_IORING_OP_WRITEV 2
#define IOTRACE_IORING_OP_FSYNC 3
#define IOTRACE_IORING_OP_READ_FIXED 4
#define IOTRACE_IORING_OP_WRITE_FIXED 5
#define IOTRACE_IORING_OP_OPENAT 18
#define IOTRACE_IORING_OP_READ 22
#define IOTRACE_IORING_OP_WRITE 23
#define IOTRACE_IORING_OP_OPENAT2 28
#define IOTRACE_IORING_OP_RENAMEAT 35
#define IOTRACE_IORING_OP_UNLINKAT 36
#define IOTRACE_O_CREAT 0100

static __always_inline bool uring_opens(__u8 op)
{
	return op == IOTRACE_IORING_OP_OPENAT || op == IOTRACE_IORING_OP_OPENAT2;
}

/*
 * A request prepared from its SQE: io_submit_sqe() fires this after
 * io_init_req(), so a read/write request's io_rw (which overlays
 * req->cmd) already holds the SQE's offset and length. The file is not
 * assigned yet; it is checked at completion.
 */
SEC("tp_btf/io_uring_submit_req")
int BPF_PROG(handle_uring_submit, struct io_kiocb *req)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u64 key = (__u64)req;
	struct vfs_state st = {};
	struct io_rw *rw = (void *)&req->cmd;
	__u8 op;

	if (!vfs_enabled)
		return 0;
	if (!task_selected(task->tgid))
		return 0;
	op = BPF_CORE_READ(req, opcode);
	st.opcode = op;
	st.fd = BPF_CORE_READ(req, cqe.fd);
	st.fd2 = -1;
	st.offset = -1;
	st.offset2 = -1;
	switch (op) {
	case IOTRACE_IORING_OP_READV:
	case IOTRACE_IORING_OP_READ_FIXED:
	case IOTRACE_IORING_OP_READ:
		st.call = IOTRACE_VFS_URING_READ;
		break;
	case IOTRACE_IORING_OP_WRITEV:
	case IOTRACE_IORING_OP_WRITE_FIXED:
	case IOTRACE_IORING_OP_WRITE:
		st.call = IOTRACE_VFS_URING_WRITE;
		break;
	case IOTRACE_IORING_OP_FSYNC:
		st.call = IOTRACE_VFS_URING_FSYNC;
		break;
	default:
		st.call = IOTRACE_VFS_URING_OTHER;
		/* an open's flags, as a syscall's record has them; its fd is the result's */
		if (uring_opens(op))
			st.flags = BPF_CORE_READ((struct io_open *)&req->cmd, how.flags);
		break;
	}
	if (st.call == IOTRACE_VFS_URING_READ || st.call == IOTRACE_VFS_URING_WRITE) {
		st.offset = BPF_CORE_READ(rw, kiocb.ki_pos);
		st.size = BPF_CORE_READ(rw, len);
		/* readv/writev: len counts iovecs, not bytes */
		if (op == IOTRACE_IORING_OP_READV || op == IOTRACE_IORING_OP_WRITEV)
			st.size = iov_bytes((void *)BPF_CORE_READ(rw, addr), st.size);
	}
	task_ids(task, &st.pid, &st.tid, st.comm, &st.cgroup);
	st.call_id = __sync_fetch_and_add(&next_call_id, 1) + 1;
	st.start = bpf_ktime_get_ns();
	if (bpf_map_update_elem(&uring_reqs, &key, &st, BPF_ANY))
		count_lost(1);
	return 0;
}

/*
 * Calls io_uring made, successful, whose file events are not sent, on
 * any file system: renames (the path walk is the syscall entry's, which
 * they never pass), unlinks whose file no tracepoint of the file system
 * named (uring_unlink_done()), and opens with O_CREAT straight into a
 * fixed file slot, whose file no fd names. The summary counts them.
 */
__u64 uring_unfollowed = 0;

/*
 * Requests that may create, remove or rename a file, by address, from
 * their hand-off to io-wq (handle_uring_queue()) to their completion: the
 * kernel never runs them inline (io_openat_force_async(), and the prep of
 * unlinkat and renameat, set REQ_F_FORCE_ASYNC), so every one passes
 * io_uring_queue_async_work, which the fast path of reads and writes
 * does not.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);
	__type(value, __u8);
} uring_ns_reqs SEC(".maps");

/*
 * Entries in uring_ns_reqs: while there are none, a completion reads this
 * and returns. One the LRU drops (4096 such requests in flight) leaves it
 * high for good: every completion then pays a failed delete.
 */
__u64 uring_ns_pending = 0;

/*
 * An unlink io_uring hands to io-wq (key: the request, un its command),
 * kept in ns_ops as a system call's is at its entry, but unresolved: its
 * path is not walked. The file system's tracepoints, which meet it in
 * the worker (ns_key()), name its file as they do a syscall's the walk
 * did not resolve: ext4's and xfs's, and btrfs's eviction, which walks
 * the request's path (in kernel memory, freed by the unlink as it ends,
 * after the eviction) in the worker, which shares the submitter's root,
 * working directory and files.
 */
static __always_inline void uring_unlink_start(__u64 key, struct io_unlink *un)
{
	struct ns_op *op = scratch_op();

	if (!op)
		return;
	__builtin_memset(op, 0, sizeof(*op));
	start_call(op, IOTRACE_VFS_UNLINKAT);
	op->unresolved = true;
	op->odfd = BPF_CORE_READ(un, dfd);
	op->uold = BPF_CORE_READ(un, filename, name);
	op->kpaths = true;
	store_op(key, op);
}

SEC("tp_btf/io_uring_queue_async_work")
int BPF_PROG(handle_uring_queue, struct io_kiocb *req, int rw)
{
	struct io_open *open = (void *)&req->cmd;
	struct io_unlink *un = (void *)&req->cmd;
	__u64 key = (__u64)req;
	__u8 op = req->opcode;

	if (uring_opens(op)) {
		if (!(BPF_CORE_READ(open, how.flags) & IOTRACE_O_CREAT))
			return 0;
	} else if (op != IOTRACE_IORING_OP_RENAMEAT && op != IOTRACE_IORING_OP_UNLINKAT) {
		return 0;
	}
	/* a request handed off again (a retry) is counted once */
	if (bpf_map_update_elem(&uring_ns_reqs, &key, &op, BPF_NOEXIST))
		return 0;
	__sync_fetch_and_add(&uring_ns_pending, 1);
	/* an rmdir removes no file */
	if (op == IOTRACE_IORING_OP_UNLINKAT && !(BPF_CORE_READ(un, flags) & IOTRACE_AT_REMOVEDIR))
		uring_unlink_start(key, un);
	return 0;
}

/*
 * The end of the unlink io_uring made as request key (res: its result):
 * its Delete, or its file named again if it has other links, where the
 * file system named the file; nothing where it found no regular file of
 * a traced device there (it dropped the entry: nothing was missed);
 * otherwise counted in uring_unfollowed.
 */
static __always_inline void uring_unlink_done(__u64 key, __s32 res)
{
	struct ns_op *op = take_op(key);
	struct file_seen *f;

	if (!op || res != 0)
		return;
	if (op->evicted && !op->evict_named) {
		f = seen_file(&op->st.file);
		/* a Delete with a stale path, or none, is not sent (as ns_exit()): its path is gone */
		if (f && f->sent_epoch != rename_epoch + 1)
			op->unresolved = true;
	}
	if (op->unresolved)
		__sync_fetch_and_add(&uring_unfollowed, 1);
	else
		unlink_events(op);
}

/*
 * The file events of request r, op, which returned res. An open runs
 * where its fd is the task's (an io-wq worker and an SQPOLL thread share
 * the submitter's table, and a deferred completion runs in the submitter),
 * so it is judged as a syscall's (on_open_exit()), with st its --vfs
 * record if there is one. A rename moves the rename epoch on: a directory
 * renamed has every chain below it sent again, as a syscall rename does
 * that the walk does not resolve.
 */
static __always_inline void uring_file_events(struct io_kiocb *r, __u8 op, __s32 res,
					      struct vfs_state *st)
{
	struct io_open *open = (void *)&r->cmd;

	if (uring_opens(op)) {
		if (!BPF_CORE_READ(open, file_slot))
			on_open_exit(st, res);
		else if (res >= 0 && (BPF_CORE_READ(open, how.flags) & IOTRACE_O_CREAT))
			__sync_fetch_and_add(&uring_unfollowed, 1);
	} else if (op == IOTRACE_IORING_OP_UNLINKAT) {
		/* an rmdir has no entry */
		uring_unlink_done((__u64)r, res);
	} else if (op == IOTRACE_IORING_OP_RENAMEAT && res == 0) {
		__sync_fetch_and_add(&rename_epoch, 1);
		__sync_fetch_and_add(&uring_unfollowed, 1);
	}
}

/*
 * Loaded for the file events, with --vfs or without (without, attached
 * with the syscall programs, vfs_attach.c). An auxiliary CQE (multishot,
 * msg_ring) has no request.
 */
SEC("tp_btf/io_uring_complete")
int BPF_PROG(handle_uring_complete, struct io_ring_ctx *rctx, void *req,
	     struct io_uring_cqe *cqe)
{
	struct io_kiocb *r = req;
	__u64 key = (__u64)req;
	struct vfs_state st, *p = NULL;
	bool marked = false;
	struct file *file;
	__s32 res;
	__u8 op;

	if (!r)
		return 0;
	if (vfs_enabled) {
		p = bpf_map_lookup_elem(&uring_reqs, &key);
		if (p) {
			st = *p;
			bpf_map_delete_elem(&uring_reqs, &key);
		}
	}
	if (uring_ns_pending && !bpf_map_delete_elem(&uring_ns_reqs, &key)) {
		__sync_fetch_and_sub(&uring_ns_pending, 1);
		marked = true;
	}
	if (!p && !marked)
		return 0;
	res = cqe->res;
	op = BPF_CORE_READ(r, opcode);
	/* an open not marked (no O_CREAT): its --vfs record */
	if (marked || uring_opens(op))
		uring_file_events(r, op, res, p ? &st : NULL);
	if (!p || uring_opens(op))
		return 0;
	file = BPF_CORE_READ(r, file);
	if (file)
		st.dev = traced_file(file, &st.file, false);
	if (st.dev)
		emit_vfs(&st, res, 0);
	return 0;
}

/*
 * The io_uring request an iomap direct I/O (bio_iomap_dio()) belongs to:
 * its kiocb is the one inside the request's io_rw, which overlays
 * req->cmd (kiocb first). Only a request seen at submission is in
 * uring_reqs, so a kiocb on a syscall's stack finds nothing. Returns its
 * call id or 0.
 */
static __always_inline __u64 uring_call_of_dio(struct iomap_dio *dio)
{
	struct vfs_state *st;
	__u64 key;

	if (!dio)
		return 0;
	key = (__u64)BPF_CORE_READ(dio, iocb) - bpf_core_field_offset(struct io_kiocb, cmd);
	st = bpf_map_lookup_elem(&uring_reqs, &key);
	return st ? st->call_id : 0;
}

#endif /* IOTRACE_URING_BPF_H */
