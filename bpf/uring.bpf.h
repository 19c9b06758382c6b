/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-3-Clause) */
/*
 * io_uring requests, part of iotrace.bpf.c (after vfs.bpf.h, whose
 * records and helpers they use, and fs_events.bpf.h, whose unlink and
 * rename logic they share). They never pass a syscall tracepoint of their
 * own. With --vfs a request is followed from io_uring_submit_req, in the
 * submitting task, to io_uring_complete; for the file events, an unlink
 * or a rename from its hand-off to io-wq (io_uring_queue_async_work), or
 * where it is linked after another (io_uring_link), to io_uring_complete,
 * or io_uring_cqe_overflow if the ring's completion queue is full; an
 * open that creates a file at its completion.
 */
#ifndef IOTRACE_URING_BPF_H
#define IOTRACE_URING_BPF_H

/*
 * --vfs, on a kernel whose submission tracepoint takes the request
 * (v6.1): requests are recorded from it to their completion. An older
 * kernel records none, and counts none missing.
 */
const volatile __u8 uring_vfs_enabled = 0;

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
 * A request prepared from its SQE: io_submit_sqe() fires the submission
 * tracepoint after io_init_req(), so a read/write request's io_rw (which
 * overlays req->cmd) already holds the SQE's offset and length. The file
 * is not assigned yet; it is checked at completion.
 */
static __always_inline int uring_submit(struct io_kiocb *req)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u64 key = (__u64)req;
	struct vfs_state st = {};
	struct io_rw *rw = (void *)&req->cmd;
	__u8 op;

	if (!uring_vfs_enabled)
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

SEC("tp_btf/io_uring_submit_req")
int BPF_PROG(handle_uring_submit, struct io_kiocb *req)
{
	return uring_submit(req);
}

/*
 * v6.1 and v6.2: the same tracepoint, fired at the same place, under its
 * old name; v5.19's passed the request as a void pointer and is not used
 */
SEC("tp_btf/io_uring_submit_sqe")
int BPF_PROG(handle_uring_submit_sqe, struct io_kiocb *req, bool force_nonblock)
{
	return uring_submit(req);
}

enum uring_state {
	/* at its hand-off, its paths walked as a syscall's at its entry */
	URING_HANDED = 1,
	/* where it was linked: left to the file system's tracepoints and its completion */
	URING_LINKED = 2,
	/* a rename on a file system the trace holds no name of: nothing to send */
	URING_ELSEWHERE = 3,
	/* the bits of the above */
	URING_STATE = 3,
	/* its ns_op is in ns_ops: none at the completion means the LRU dropped it */
	URING_KEPT = 4,
};

/*
 * A request's mark: where it was started (enum uring_state), and its
 * user_data, which tells a mark a request left (its completion was an
 * overflow that could not name it, uring_overflow()) from its own.
 */
struct uring_mark {
	__u64 user_data;
	__u8 state;
};

/*
 * Requests that may create, remove or rename a file, by address, from
 * their hand-off to io-wq (handle_uring_queue()) to their completion: the
 * kernel never runs them inline (io_openat_force_async(), and the prep of
 * unlinkat and renameat, set REQ_F_FORCE_ASYNC), so every one passes
 * io_uring_queue_async_work, which the fast path of reads and writes
 * does not; but for one linked after another request (IOSQE_IO_LINK),
 * which the io-wq worker that ran that one may run next, handed to no
 * one: it is marked where it is linked (handle_uring_link()). Sized for
 * a batch of thousands in flight (an rm -r through io_uring); a mark the
 * LRU drops all the same leaves a completion with none, counted
 * (uring_file_events()).
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64);
	__type(value, struct uring_mark);
} uring_ns_reqs SEC(".maps");

/*
 * The marked requests behind the completion a ring (ctx) posts with
 * user_data: a completion that finds the ring's completion queue full is
 * kept aside (an overflow), and the tracepoint it passes
 * (io_uring_cqe_overflow) names only the ring and the CQE, not the
 * request; io_uring_complete never fires for it.
 */
struct uring_cqe_key {
	__u64 ctx;
	__u64 user_data;
};

/* the marked requests in flight with a key: n, and the address of one (0: n > 1) */
struct uring_cqe_reqs {
	__u64 req;
	__u64 n;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, struct uring_cqe_key);
	__type(value, struct uring_cqe_reqs);
} uring_by_cqe SEC(".maps");

/*
 * io_init_req() copies IOSQE_CQE_SKIP_SUCCESS into req->flags, at the
 * same bit (REQ_F_CQE_SKIP_BIT = IOSQE_CQE_SKIP_SUCCESS_BIT, a uapi bit):
 * such a request that succeeds posts no completion, and io_uring_complete
 * never fires for it.
 */
#define IOTRACE_REQ_F_CQE_SKIP (1ULL << 6)

/*
 * Requests without a completion (IOTRACE_REQ_F_CQE_SKIP) counted where
 * they were linked, so that a hand-off later does not count them again.
 * One the io-wq worker ran instead stays until the LRU drops it: a later
 * such request at its address would not be counted.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1024);
	__type(key, __u64);
	__type(value, __u8);
} uring_skip_counted SEC(".maps");

/*
 * A rename's paths, copied where it is handed off or linked: its own are
 * freed as it ends, before its completion, where what was not resolved
 * yet is looked up as at a syscall's exit (ns_exit()). As many as
 * uring_ns_reqs (9 MiB): a batch of renames of names not cached (the
 * walk finds nothing) on btrfs needs each one's (10,000 at once: 5,761
 * counted with 1,024 entries).
 */
struct uring_paths {
	char old[IOTRACE_PATH_LEN];
	char new[IOTRACE_PATH_LEN];
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64);
	__type(value, struct uring_paths);
} uring_paths SEC(".maps");

/* A struct uring_paths being built: too large for the stack */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct uring_paths);
} uring_paths_scratch SEC(".maps");

/* Keeps copies of rename request key's paths (ren) until its completion. */
static __always_inline void uring_copy_paths(__u64 key, struct io_rename *ren)
{
	__u32 zero = 0;
	struct uring_paths *p = bpf_map_lookup_elem(&uring_paths_scratch, &zero);

	if (!p)
		return;
	if (bpf_probe_read_kernel_str(p->old, sizeof(p->old), BPF_CORE_READ(ren, oldpath, name)) > 0 &&
	    bpf_probe_read_kernel_str(p->new, sizeof(p->new), BPF_CORE_READ(ren, newpath, name)) > 0)
		bpf_map_update_elem(&uring_paths, &key, p, BPF_ANY);
	else
		/* none: not another request's, at the same address, that had no completion */
		bpf_map_delete_elem(&uring_paths, &key);
}

/*
 * The unlink or rename request key (its command: un or ren) io_uring
 * hands to io-wq or links, started as a system call's is at its entry
 * (ns_enter()) on its paths, in kernel memory, which live until it ends.
 * At the hand-off the task is the submitter, or its SQPOLL thread, which
 * shares its root, working directory and files, and nothing ahead of it
 * in a link chain is left to run. Where it is linked (not walk), its
 * paths may not lead to its files yet (a chain that creates, then
 * renames): it is started unresolved, left to the file system's
 * tracepoints, and a rename to its completion too. Those meet it in the
 * worker (ns_key()); btrfs's eviction walks its path there. False for a
 * rename on a file system the trace holds no name of.
 */
static __always_inline bool uring_ns_start(__u64 key, __u8 opcode, void *cmd, bool walk)
{
	struct io_unlink *un = cmd;
	struct io_rename *ren = cmd;
	struct ns_op *op = scratch_op();
	__u32 call = IOTRACE_VFS_UNLINKAT;

	if (!op)
		return true;
	__builtin_memset(op, 0, sizeof(*op));
	if (opcode == IOTRACE_IORING_OP_UNLINKAT) {
		op->odfd = BPF_CORE_READ(un, dfd);
		op->uold = BPF_CORE_READ(un, filename, name);
	} else {
		call = IOTRACE_VFS_RENAMEAT2;
		op->exchange = BPF_CORE_READ(ren, flags) & IOTRACE_RENAME_EXCHANGE;
		op->odfd = BPF_CORE_READ(ren, old_dfd);
		op->uold = BPF_CORE_READ(ren, oldpath, name);
		op->ndfd = BPF_CORE_READ(ren, new_dfd);
		op->unew = BPF_CORE_READ(ren, newpath, name);
		uring_copy_paths(key, ren);
	}
	if (walk)
		return ns_enter(op, key, call, true);
	start_call(op, call);
	op->unresolved = true;
	op->kpaths = true;
	/*
	 * the file a rename replaces is gone by its completion: on ext4, the
	 * one dirtied with no link left (handle_ext4_dirty()), as for a new
	 * name the walk did not reach; an exchange's other file is looked for
	 * at the completion
	 */
	op->new_short = call != IOTRACE_VFS_UNLINKAT && !op->exchange;
	store_op(key, op);
	return true;
}

/* Whether request req, op, may create, remove or rename a file. */
static __always_inline bool uring_names(struct io_kiocb *req, __u8 op)
{
	if (uring_opens(op))
		return BPF_CORE_READ((struct io_open *)&req->cmd, how.flags) & IOTRACE_O_CREAT;
	if (op == IOTRACE_IORING_OP_UNLINKAT)
		/* an rmdir removes no file */
		return !(BPF_CORE_READ((struct io_unlink *)&req->cmd, flags) & IOTRACE_AT_REMOVEDIR);
	return op == IOTRACE_IORING_OP_RENAMEAT;
}

/*
 * Request key, which has no completion if it succeeds: counted once,
 * where it is linked (linked), or at its hand-off if it was not.
 */
static __always_inline void uring_skipped(__u64 key, bool linked)
{
	__u8 one = 1;

	if (linked)
		bpf_map_update_elem(&uring_skip_counted, &key, &one, BPF_ANY);
	else if (!bpf_map_delete_elem(&uring_skip_counted, &key))
		return;
	__sync_fetch_and_add(&uring_unfollowed, 1);
}

/*
 * An overflow finds the completion of request req (key), which it posts
 * with user_data, in uring_by_cqe.
 */
static __always_inline void uring_cqe_expect(struct io_kiocb *req, __u64 key, __u64 user_data)
{
	struct uring_cqe_key k = { (__u64)BPF_CORE_READ(req, ctx), user_data };
	struct uring_cqe_reqs *w = bpf_map_lookup_elem(&uring_by_cqe, &k), one = { key, 1 };

	if (!w) {
		bpf_map_update_elem(&uring_by_cqe, &k, &one, BPF_ANY);
		return;
	}
	/* a user_data the ring has in flight already: whose CQE overflows is unknown */
	w->req = 0;
	__sync_fetch_and_add(&w->n, 1);
}

/*
 * The completion ring posts with user_data for a marked request (at its
 * completion or its overflow) is no longer awaited: its entry in
 * uring_by_cqe goes with the last request it stood for.
 */
static __always_inline void uring_cqe_done(__u64 ring, __u64 user_data)
{
	struct uring_cqe_key k = { ring, user_data };
	struct uring_cqe_reqs *w = bpf_map_lookup_elem(&uring_by_cqe, &k);

	if (!w)
		return;
	if (w->n <= 1) {
		bpf_map_delete_elem(&uring_by_cqe, &k);
	} else {
		w->req = 0;
		__sync_fetch_and_sub(&w->n, 1);
	}
}

/*
 * Marks request req, which io_uring hands to io-wq or links after
 * another (linked), if it may create, remove or rename a file, for an
 * overflow of its completion to find (uring_cqe_expect(): once, though
 * its hand-off finds its own mark where it was linked), and with ns starts
 * an unlink or a rename (uring_ns_start()), at either, over what a
 * request before it at its address may have left. Without ns (the unlink
 * and rename programs do not load here) it is only marked. One that has
 * no completion if it succeeds is counted instead.
 */
static __always_inline void uring_mark(struct io_kiocb *req, bool linked, bool ns)
{
	__u8 op = BPF_CORE_READ(req, opcode);
	__u64 key = (__u64)req;
	struct uring_mark mark = {
		.user_data = BPF_CORE_READ(req, cqe.user_data),
		.state = linked ? URING_LINKED : URING_HANDED,
	}, *m;
	struct ns_op *stale;

	if (!uring_names(req, op))
		return;
	if (BPF_CORE_READ(req, flags) & IOTRACE_REQ_F_CQE_SKIP) {
		uring_skipped(key, linked);
		return;
	}
	m = bpf_map_lookup_elem(&uring_ns_reqs, &key);
	if (!m || linked || (m->state & URING_STATE) != URING_LINKED ||
	    m->user_data != mark.user_data)
		uring_cqe_expect(req, key, mark.user_data);
	/* an open is judged at its completion (uring_file_events()) */
	if (ns && !uring_opens(op)) {
		stale = bpf_map_lookup_elem(&ns_ops, &key);
		if (stale)
			drop_op(key, stale);
		if (!uring_ns_start(key, op, &req->cmd, !linked))
			mark.state = URING_ELSEWHERE;
		else if (bpf_map_lookup_elem(&ns_ops, &key))
			mark.state |= URING_KEPT;
	}
	bpf_map_update_elem(&uring_ns_reqs, &key, &mark, BPF_ANY);
}

/*
 * The end of the unlink or rename io_uring made as request key (res: its
 * result): its events as a syscall's at its exit (ns_exit()), a rename's
 * looked up on the copies of its paths; an unlink's path is freed, and
 * what its file system did not name is counted, as is a call whose
 * ns_op the LRU dropped (kept: it had one). A rename that succeeds
 * moves the rename epoch on unless only regular files moved, as
 * handle_ns_exit() says. 1 if the call's file is known: then scratch_op()
 * holds it, for the request's --vfs record. A global function: verified
 * on its own, not in every state of the completion program, whose record
 * and opens multiply them.
 */
__noinline int uring_ns_done(__u64 key, __s32 res, __u32 rename, __u32 kept)
{
	struct uring_paths *p = rename ? bpf_map_lookup_elem(&uring_paths, &key) : NULL;
	struct ns_op *op = take_op(key);
	bool paths_kept = false;

	if (op) {
		/* NULL: a walk fails at once, never reads freed memory */
		op->uold = p ? p->old : NULL;
		op->unew = p ? p->new : NULL;
		/*
		 * read back as numbers, as a syscall's are: a walk reads them
		 * with probe reads, and takes no map pointer (resolve_global())
		 */
		op->uold = *(const char *volatile *)&op->uold;
		op->unew = *(const char *volatile *)&op->unew;
		paths_kept = ns_exit(op, res, true);
	} else if (kept && res == 0) {
		count_unfollowed(true);
	}
	if (p)
		bpf_map_delete_elem(&uring_paths, &key);
	if (rename && res == 0 && !paths_kept)
		__sync_fetch_and_add(&rename_epoch, 1);
	/* a directory's rename is no file's call (st.dev not set) */
	return op && op->st.dev;
}

/*
 * The file events of request r, op (an open, an unlink or a rename),
 * which returned res in a completion ring posts with user_data. An open
 * runs where its fd is the task's (an io-wq worker and an SQPOLL thread
 * share the submitter's table, and a deferred completion runs in the
 * submitter), so it is judged as a syscall's (on_open_exit()), with st
 * its --vfs record if there is one. An unlink's or a rename's events are
 * sent as a syscall's are at its exit (uring_ns_done()), and its record
 * gets its file; without ns, or without a mark (the LRU dropped it, or it
 * was handed off before the trace began), one that succeeded is counted.
 */
static __always_inline void uring_file_events(struct io_kiocb *r, __u8 op, __u64 ring,
					      __u64 user_data, __s32 res, struct vfs_state *st,
					      bool ns)
{
	struct io_open *open = (void *)&r->cmd;
	__u64 key = (__u64)r;
	struct uring_mark *m;
	__u8 state = 0;
	struct ns_op *o;

	m = bpf_map_lookup_elem(&uring_ns_reqs, &key);
	if (m) {
		state = m->state;
		bpf_map_delete_elem(&uring_ns_reqs, &key);
		uring_cqe_done(ring, user_data);
	}
	if (uring_opens(op)) {
		bool creat = BPF_CORE_READ(open, how.flags) & IOTRACE_O_CREAT;

		if (!BPF_CORE_READ(open, file_slot)) {
			if (creat || st)
				on_open_exit(st, res);
		} else if (res >= 0 && creat) {
			__sync_fetch_and_add(&uring_unfollowed, 1);
		}
		return;
	}
	if (ns && state) {
		/* the --vfs record's file: the one unlinked or renamed */
		if ((state & URING_STATE) != URING_ELSEWHERE &&
		    uring_ns_done(key, res, op == IOTRACE_IORING_OP_RENAMEAT, state & URING_KEPT) &&
		    st && (o = scratch_op())) {
			st->file = o->st.file;
			st->dev = o->st.dev;
		}
	} else if (res == 0 && uring_names(r, op)) {
		__sync_fetch_and_add(&uring_unfollowed, 1);
		/* it may have moved any path */
		if (op == IOTRACE_IORING_OP_RENAMEAT)
			__sync_fetch_and_add(&rename_epoch, 1);
	}
}

/*
 * With --vfs, io_uring requests of traced tasks whose records are
 * missing: those on traced files whose submission's state was not kept
 * (more in flight than uring_reqs holds) or came before the trace began
 * (uring_complete()), and those whose completion was kept aside as the
 * ring's CQ was full, unless a marked request's (uring_overflow(), with
 * no file to judge by: an auxiliary CQE, as a multishot request's, counts
 * too).
 */
__u64 uring_vfs_missing = 0;

/*
 * A completion of request req (NULL for an auxiliary CQE: multishot,
 * msg_ring), res, posted by ring with user_data, with ns or without
 * (uring_mark()); or one kept aside as an overflow. The opcode is read
 * with a cast load with ns (core_fixes.bpf.h), a probe read without.
 */
static __always_inline void uring_complete(void *req, __u64 ring, __u64 user_data, __s32 res,
					   bool ns)
{
	struct io_kiocb *r = req;
	__u64 key = (__u64)req;
	struct vfs_state st, *p = NULL;
	struct file *file;
	__u8 op;

	if (!r)
		return;
	if (uring_vfs_enabled) {
		p = bpf_map_lookup_elem(&uring_reqs, &key);
		if (p) {
			st = *p;
			bpf_map_delete_elem(&uring_reqs, &key);
		}
	}
	op = IOTRACE_READ(ns, r, opcode);
	if (uring_opens(op) || op == IOTRACE_IORING_OP_UNLINKAT ||
	    op == IOTRACE_IORING_OP_RENAMEAT)
		uring_file_events(r, op, ring, user_data, res, p ? &st : NULL, ns);
	if (!uring_vfs_enabled || uring_opens(op))
		return;
	if (!p) {
		st.dev = 0;
		if (!task_selected(bpf_get_current_pid_tgid() >> 32))
			return;
	}
	/* an unlink's or a rename's file is the one uring_file_events() found */
	file = BPF_CORE_READ(r, file);
	if (file)
		st.dev = traced_file(file, &st.file, false);
	if (st.dev && p)
		emit_vfs(&st, res, 0);
	else if (st.dev)
		__sync_fetch_and_add(&uring_vfs_missing, 1);
}

static __always_inline void uring_overflow_unclaimed(void)
{
	if (uring_vfs_enabled && task_selected(bpf_get_current_pid_tgid() >> 32))
		__sync_fetch_and_add(&uring_vfs_missing, 1);
}

/*
 * A completion ring kept aside (the CQ was full) with user_data and res:
 * a marked request's (uring_by_cqe), handled as at its completion,
 * which never comes. One of several marked requests with its user_data
 * is counted, as their CQEs cannot be told apart. A CQE that only shares
 * a marked request's user_data (another request's, or an auxiliary one)
 * is told from its own by its result, which the request holds.
 */
static __always_inline void uring_overflow(__u64 ring, __u64 user_data, __s32 res, bool ns)
{
	struct uring_cqe_key k = { ring, user_data };
	struct uring_cqe_reqs *w = bpf_map_lookup_elem(&uring_by_cqe, &k);
	struct io_kiocb *r;

	if (!w) {
		uring_overflow_unclaimed();
		return;
	}
	r = (struct io_kiocb *)w->req;
	if (r && IOTRACE_READ(ns, r, cqe.res) != res) {
		uring_overflow_unclaimed();
		return;
	}
	uring_cqe_done(ring, user_data);
	if (r) {
		uring_complete(r, ring, user_data, res, ns);
	} else {
		__sync_fetch_and_add(&uring_unfollowed, 1);
		uring_overflow_unclaimed();
	}
}

/*
 * The programs on the hand-off, the link, the completion and its
 * overflow, loaded for the file events, with --vfs or without (without,
 * attached with the syscall programs, vfs_attach.c). The completion's
 * tp_btf program needs the prototype of v6.13 (ctx, req, cqe); before,
 * from v5.19, the tracepoint passed the CQE's fields one by one, which
 * the classic tracepoint's record (_tp) holds under the same names on
 * every such kernel. With ns where the unlink and rename programs load
 * (bpf_loop, bpf_rdonly_cast()), else the _nowalk ones, which hold no
 * call of the walk: a kernel before v6.8 verifies every global function
 * a program holds, reached or not.
 */
#define IOTRACE_URING_PROGS(suffix, ns)						\
	SEC("tp_btf/io_uring_queue_async_work")					\
	int BPF_PROG(handle_uring_queue##suffix, struct io_kiocb *req, int rw)	\
	{									\
		uring_mark(req, false, ns);					\
		return 0;							\
	}									\
	SEC("tp_btf/io_uring_link")						\
	int BPF_PROG(handle_uring_link##suffix, struct io_kiocb *req,		\
		     struct io_kiocb *target)					\
	{									\
		uring_mark(req, true, ns);					\
		return 0;							\
	}									\
	SEC("tp_btf/io_uring_complete")						\
	int BPF_PROG(handle_uring_complete##suffix, struct io_ring_ctx *rctx,	\
		     void *req, struct io_uring_cqe *cqe)			\
	{									\
		uring_complete(req, (__u64)rctx, cqe->user_data, cqe->res, ns);	\
		return 0;							\
	}									\
	SEC("tracepoint/io_uring/io_uring_complete")				\
	int handle_uring_complete_tp##suffix(					\
		struct trace_event_raw_io_uring_complete *tp)			\
	{									\
		uring_complete(tp->req, (__u64)tp->ctx, tp->user_data, tp->res,	\
			       ns);						\
		return 0;							\
	}									\
	SEC("tp_btf/io_uring_cqe_overflow")					\
	int BPF_PROG(handle_uring_overflow##suffix, void *ring, __u64 user_data,	\
		     __s32 res, __u32 cflags, void *ocqe)			\
	{									\
		uring_overflow((__u64)ring, user_data, res, ns);		\
		return 0;							\
	}

IOTRACE_URING_PROGS(, true)
IOTRACE_URING_PROGS(_nowalk, false)

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
