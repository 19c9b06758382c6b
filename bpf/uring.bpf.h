/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-3-Clause) */
/*
 * io_uring requests, part of iotrace.bpf.c (after vfs.bpf.h, whose
 * records and helpers they use). They never pass a syscall tracepoint of
 * their own: a request is followed from io_uring_submit_req, in the
 * submitting task, to io_uring_complete.
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
#define IOTRACE_IORING_OP_READ 22
#define IOTRACE_IORING_OP_WRITE 23

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

SEC("tp_btf/io_uring_complete")
int BPF_PROG(handle_uring_complete, struct io_ring_ctx *rctx, void *req,
	     struct io_uring_cqe *cqe)
{
	struct io_kiocb *r = req;
	__u64 key = (__u64)req;
	struct vfs_state st, *p;
	struct file *file;

	p = bpf_map_lookup_elem(&uring_reqs, &key);
	if (!p)
		return 0;
	st = *p;
	bpf_map_delete_elem(&uring_reqs, &key);
	file = BPF_CORE_READ(r, file);
	if (file)
		st.dev = traced_file(file, &st.file, false);
	if (st.dev)
		emit_vfs(&st, BPF_CORE_READ(cqe, res), 0);
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
