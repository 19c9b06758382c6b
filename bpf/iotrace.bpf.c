// SPDX-License-Identifier: (GPL-2.0-only OR BSD-3-Clause)
/*
 * Block-layer tracing programs of iotrace.
 *
 * Every record is a struct iotrace_event (iotrace_event.h) written to the
 * ring buffer of the CPU the event happened on. Only I/O on the
 * devices user space put in targ_devs gets past the filter, and the filter
 * runs before anything is written.
 *
 * An I/O is followed by the address of its bio: block_bio_queue starts it,
 * block_split starts a child carved off its front, block_rq_issue says
 * which request carried it to the driver, and its completion ends it.
 * Requests without a bio (the flush machinery's flush requests) are
 * reported as I/Os of their own at issue and completion.
 *
 * Where a bio completes depends on the device. On request-based (blk-mq)
 * devices blk_update_request() clears BIO_TRACE_COMPLETION ("completion
 * has already been traced" by block_rq_complete) before bio_endio(), so
 * block_bio_complete never fires for them; their bios are completed here
 * by walking the request at block_rq_complete. block_bio_complete covers
 * bio-based devices (dm, md, nvme multipath heads, brd, zram) and bios
 * ended before they reached a request. The flag makes the two exclusive.
 */
#include <vmlinux.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>

#include "iotrace_event.h"
#include "core_fixes.bpf.h"

/*
 * Most bios walked in one request: ISSUE counts at most this many, and a
 * completion ends at most this many (the rest would never complete in the
 * trace). A request holds at most max_sectors_kb / 4 bios of 4 KiB or
 * more: 320 with the default 1280 KiB, 512 at 2 MiB.
 */
#ifndef IOTRACE_MAX_RQ_BIOS
#define IOTRACE_MAX_RQ_BIOS 512
#endif

/*
 * Set by user space between open and load: the traced devices, whole
 * disks or partitions, in IOTRACE_MKDEV encoding. An empty list traces
 * nothing.
 */
const volatile __u32 targ_devs[IOTRACE_MAX_DEVICES] = {};
const volatile __u32 targ_ndevs = 0;
/*
 * Each one's disk's diskseq when user space described it (0 = unknown,
 * before v5.15): an I/O on another medium under the same number (a loop
 * device attached to another file) is not the device the trace
 * describes, and is left out.
 */
const volatile __u64 targ_seq[IOTRACE_MAX_DEVICES] = {};

/*
 * Set by user space (--dispatch): report the dispatch of each request to
 * the driver. Off, block_rq_issue only reports requests without a bio,
 * which are I/Os of their own. A dispatch is a third record per I/O: it
 * cost about 220 ns of program time per I/O (bpf_stats, fio random reads
 * on a loop device at 100k IOPS) and a third of the collector's work.
 */
const volatile __u8 trace_dispatch = 0;

/* log2 of the page size, set by user space (12 on x86-64) */
const volatile __u32 page_shift = 12;

/*
 * Bumped by every successful rename(2)/renameat(2)/renameat2(2) on the
 * node but those of regular files the file events resolved
 * (fs_events.bpf.h's handle_ns_exit(), which sends their new chains) and
 * those on file systems with no traced device (rename_elsewhere()): a
 * rename may change the path of any file below the renamed entry, so
 * every name chain is sent again (once) at the next I/O of its file.
 * Renames through io_uring are judged alike at their completion
 * (uring.bpf.h's uring_ns_done()).
 */
__u64 rename_epoch = 0;

/*
 * Last sequence id handed out. User space numbers its device descriptions
 * 1..N and sets this to N before attaching, so kernel events get N+1,
 * N+2, ... Writing it between open and load also works on kernels whose
 * global data is not mmapable (before v5.7).
 *
 * The ids live in a section, and so a map and a cache line, of their own
 * (IOTRACE_IDS, with vfs.bpf.h's call ids): every record takes a sid with
 * an atomic add, which moves the line to the CPU that takes it, and the
 * flags every program reads (stopping) used to share that line in .bss
 * and missed the cache in nearly every run: 12% of the queue program's
 * samples and 15% of the completion program's (perf, fio random reads at
 * full rate on 2 CPUs).
 */
#define IOTRACE_IDS SEC(".data.ids")
__u64 next_sid IOTRACE_IDS = 0;

/*
 * Set by user space when the tracer stops (collector.c, finish_inflight()).
 * IOTRACE_STOP_DRAIN: no new I/O, call or file event enters the trace,
 * while the I/Os already in it still get their dispatch and completion
 * records. An I/O the block layer takes after that is put in `untraced`,
 * so that its completion is left out too, instead of ending the trace as
 * a completion of nothing. IOTRACE_STOP_CLOSED, once those I/Os are done:
 * nothing is output, so that the programs, which user space detaches in
 * no particular order, add nothing half-seen (a split of an I/O whose
 * queue program is gone).
 *
 * IOTRACE_STOP_START while user space attaches the programs, one after
 * the other (collector.c): the block programs output nothing, so that
 * the trace does not begin with the completions, splits and dispatches
 * of the I/Os queued before its queue program was attached (a few
 * hundred in the milliseconds the attaching takes, at full rate). Its
 * first completions are then only those of the I/Os in flight when it
 * opens. Calls and file events are left out too, as any `stopping`
 * leaves them (emit_vfs(), emit_fs_event()); name records go out, which
 * output_now() drops only when CLOSED, since their files are marked
 * named as they are sent.
 */
__u8 stopping = IOTRACE_STOP_NONE;

/*
 * Set once an I/O was left out for another medium (other_medium()): from
 * then on, as while stopping, dispatches and completions look in
 * `untraced` for the I/Os left out.
 */
__u8 medium_changed = 0;

/*
 * Sized for the I/Os the traced devices have in flight at once; an entry
 * pushed out only lets that I/O's completion through.
 */
#ifndef IOTRACE_MAX_UNTRACED
#define IOTRACE_MAX_UNTRACED 8192
#endif

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, IOTRACE_MAX_UNTRACED);
	__type(key, __u64);
	__type(value, __u8);
} untraced SEC(".maps");

/*
 * Not while CLOSED or START, which leave every completion out without a
 * look: a mark made then would still be there at the stop, and leave out
 * the completion of a traced I/O that got the address since (split
 * children come from a pool and get the same few again and again).
 */
static __always_inline void mark_untraced(__u64 id)
{
	__u8 one = 1;

	if (stopping >= IOTRACE_STOP_CLOSED)
		return;
	bpf_map_update_elem(&untraced, &id, &one, BPF_ANY);
}

static __always_inline bool is_untraced(__u64 id)
{
	__u8 s = stopping;

	if (s >= IOTRACE_STOP_CLOSED)
		return true;
	return (s || medium_changed) && bpf_map_lookup_elem(&untraced, &id);
}

/* True for the completion of an I/O left out (start, stop, medium); forgets it. */
static __always_inline bool untraced_done(__u64 id)
{
	__u8 s = stopping;

	if (s >= IOTRACE_STOP_CLOSED)
		return true;
	return (s || medium_changed) && !bpf_map_delete_elem(&untraced, &id);
}

/* Which traced device an I/O is on: its index + 1, 0 = none. */
static __always_inline __u32 dev_traced(__u32 dev, __u32 part)
{
	__u32 i;

	for (i = 0; i < IOTRACE_MAX_DEVICES; i++) {
		if (i >= targ_ndevs)
			break;
		if (targ_devs[i] == dev || (part && targ_devs[i] == part))
			return i + 1;
	}
	return 0;
}

/*
 * Whether disk, where traced device slot (dev_traced()) has an I/O, holds
 * another medium than the one user space described. Asked where an I/O
 * enters the trace; its dispatch and completion follow that answer
 * through `untraced`, since a medium changes only once its I/O is done.
 */
static __always_inline bool other_medium(__u32 slot, struct gendisk *disk)
{
	__u64 want;

	if (slot - 1 >= IOTRACE_MAX_DEVICES)
		return false;
	want = targ_seq[slot - 1];
	if (!want || iotrace_disk_seq(disk) == want)
		return false;
	if (!medium_changed)
		medium_changed = 1;
	return true;
}

static __always_inline void set_op_flags(struct iotrace_event *e, __u32 opf)
{
	__u32 op = opf & IOTRACE_REQ_OP_MASK;
	__u16 flags = 0;

	if (op == IOTRACE_REQ_OP(READ))
		e->op = IOTRACE_OP_READ;
	else if (op == IOTRACE_REQ_OP(WRITE))
		e->op = IOTRACE_OP_WRITE;
	else if (op == IOTRACE_REQ_OP(DISCARD) ||
		 op == IOTRACE_REQ_OP(SECURE_ERASE))
		e->op = IOTRACE_OP_DISCARD;
	else if (op == IOTRACE_REQ_OP(WRITE_ZEROES))
		e->op = IOTRACE_OP_WRITE_ZEROES;
	else if (op == IOTRACE_REQ_OP(FLUSH))
		e->op = IOTRACE_OP_FLUSH;
	else
		e->op = IOTRACE_OP_OTHER;

	if (opf & IOTRACE_REQ_FLAG(PREFLUSH))
		flags |= IOTRACE_F_PREFLUSH;
	if (opf & IOTRACE_REQ_FLAG(FUA))
		flags |= IOTRACE_F_FUA;
	if (opf & IOTRACE_REQ_FLAG(SYNC))
		flags |= IOTRACE_F_SYNC;
	if (opf & IOTRACE_REQ_FLAG(META))
		flags |= IOTRACE_F_META;
	if (opf & IOTRACE_REQ_FLAG(RAHEAD))
		flags |= IOTRACE_F_RAHEAD;
	e->flags = flags;
}

static __always_inline void set_bio_range(struct iotrace_event *e,
					  struct bio *bio)
{
	e->sector = bio->bi_iter.bi_sector;
	e->nr_sector = bio->bi_iter.bi_size >> 9;
}

static __always_inline void stamp(struct iotrace_event *e)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();

	e->pid = pid_tgid >> 32;
	e->tid = (__u32)pid_tgid;
	e->ts = bpf_ktime_get_ns();
}

#include "ring_out.bpf.h"
#include "file_of.bpf.h"

/*
 * The current task's ids, name and cgroup v2 id by direct loads, which
 * is what bpf_get_current_pid_tgid(), bpf_get_current_comm() and
 * bpf_get_current_cgroup_id() read; the latter two helper calls took
 * about 70 ns of the queue program's 590 (bpf_stats, fio random reads at
 * 100k IOPS); the first 19 to 46 ns of 380 to 396 at full rate (two
 * runs of 6 alternated rounds).
 */
static __always_inline void task_ids(struct task_struct *t, __u32 *pid, __u32 *tid,
				     char *comm, __u64 *cgroup)
{
	const __u64 *c = (const __u64 *)t->comm;

	*pid = t->tgid;
	*tid = t->pid;
	__builtin_memcpy(comm, &c[0], 8);
	__builtin_memcpy(comm + 8, &c[1], 8);
	*cgroup = t->cgroups->dfl_cgrp->kn->id;
}

#include "pid_ns.bpf.h"
#include "vfs.bpf.h"
#include "btrfs_devs.bpf.h"
#include "path_walk.bpf.h"
#include "fs_events.bpf.h"
#include "xfs_events.bpf.h"
#include "btrfs_events.bpf.h"
#include "uring.bpf.h"
#include "cgroup_gone.bpf.h"

static __always_inline int on_bio_queue(struct bio *bio, const bool cast)
{
	struct iotrace_queue_event q = {};
	struct task_struct *task;
	struct iomap_dio *dio;
	__u32 slot;

	iotrace_bio_devs(bio, &q.io.dev, &q.io.part);
	slot = dev_traced(q.io.dev, q.io.part);
	if (!slot)
		return 0;
	if (stopping || other_medium(slot, iotrace_bio_disk(bio))) {
		mark_untraced((__u64)bio);
		return 0;
	}

	q.io.type = IOTRACE_EV_QUEUE;
	q.io.id = (__u64)bio;
	set_bio_range(&q.io, bio);
	set_op_flags(&q.io, bio->bi_opf);
	q.io.write_hint = iotrace_bio_write_hint(bio);
	task = bpf_get_current_task_btf();
	task_ids(task, &q.io.pid, &q.io.tid, q.comm, &q.cgroup);
	dio = bio_iomap_dio(bio);
	file_of_bio(bio, dio, &q, cast);
	if (vfs_enabled) {
		struct vfs_state *st = bpf_task_storage_get(&vfs_calls, task, NULL, 0);

		if (st && st->call)
			q.vfs_call = st->call_id;
		else if (q.io.flags & IOTRACE_F_DIRECT)
			q.vfs_call = uring_call_of_dio(dio ? dio : iotrace_btrfs_dio(bio, cast));
	}
	q.io.ts = bpf_ktime_get_ns();
	/* a regular file's I/O takes a second sid, for its filesystemMeta */
	output_sized(&q.io, sizeof(q),
		     q.file_kind == IOTRACE_FILE_REG ? 2 : 1);
	return 0;
}

/*
 * bio is the new child holding the first new_sector - sector sectors; the
 * parent keeps the rest and is resubmitted. Every caller of
 * trace_block_split() (bio_submit_split_bioset() in v6.18, blk_queue_split()
 * in v5.x, md) runs bio_chain(split, parent) first, which sets
 * split->bi_private = parent. The child is never queued itself but
 * inherits BIO_TRACE_COMPLETION in bio_split() and completes on its own;
 * the resubmitted parent keeps the flag and so does not pass
 * block_bio_queue again.
 *
 * The tracepoint passes new_sector as unsigned int, which truncates LBAs
 * past 2 TiB; the parent's bi_sector is the same value, untruncated.
 */
static __always_inline int on_split(struct bio *bio,
				    unsigned int new_sector)
{
	struct iotrace_event e = {};
	struct bio *parent;

	iotrace_bio_devs(bio, &e.dev, &e.part);
	if (!dev_traced(e.dev, e.part))
		return 0;

	parent = bio->bi_private;
	/* the parent is in the trace: so is the child, stop or not */
	if (is_untraced((__u64)parent)) {
		mark_untraced((__u64)bio);
		return 0;
	}
	e.type = IOTRACE_EV_SPLIT;
	e.id = (__u64)bio;
	e.ref = (__u64)parent;
	set_bio_range(&e, bio);
	e.aux64 = new_sector;
	if (parent)
		e.aux64 = BPF_CORE_READ(parent, bi_iter.bi_sector);
	set_op_flags(&e, bio->bi_opf);
	e.write_hint = iotrace_bio_write_hint(bio);
	emit(&e);
	return 0;
}

/*
 * A bio-less request as an I/O: who dispatched it (the flusher, or the
 * task whose fsync needed the flush), for the views by process.
 */
static __always_inline void emit_request(const struct iotrace_event *e)
{
	struct iotrace_queue_event q = {};

	q.io = *e;
	task_ids(bpf_get_current_task_btf(), &q.io.pid, &q.io.tid, q.comm, &q.cgroup);
	q.io.ts = bpf_ktime_get_ns();
	output_sized(&q.io, sizeof(q), 1);
}

static __always_inline int on_rq_issue(struct request *rq)
{
	struct iotrace_event e = {};
	struct gendisk *disk;
	struct bio *bio, *b;
	__u32 opf, bio_dev, n, slot;

	/* the common case first, before anything else is read */
	bio = rq->bio;
	if (bio && !trace_dispatch)
		return 0;
	/* not I/O of the traced devices' users; see core_fixes.bpf.h */
	opf = rq->cmd_flags;
	if (iotrace_op_is_passthrough(opf & IOTRACE_REQ_OP_MASK))
		return 0;

	/*
	 * The first bio decides the partition: it is the one user space saw
	 * queued, so an ISSUE passes the filter exactly when that QUEUE did.
	 * rq->part is no substitute, it is set only with I/O accounting on.
	 * A bio-less request carries no partition and passes only when its
	 * whole disk is traced.
	 */
	disk = iotrace_rq_disk(rq);
	e.dev = iotrace_disk_devt(disk);
	if (bio) {
		iotrace_bio_devs(bio, &bio_dev, &e.part);
		if (bio_dev != e.dev)
			e.part = 0;
	}
	slot = dev_traced(e.dev, e.part);
	if (!slot)
		return 0;

	e.sector = rq->__sector;
	e.nr_sector = rq->__data_len >> 9;
	set_op_flags(&e, opf);

	if (!bio) {
		/* no sector set (a cache flush): 0, as blk_rq_trace_sector() says */
		if (e.sector == (__u64)-1)
			e.sector = 0;
		if (stopping || other_medium(slot, disk)) {
			mark_untraced((__u64)rq);
			return 0;
		}
		e.type = IOTRACE_EV_RQ_QUEUE;
		e.id = (__u64)rq;
		emit_request(&e);
		return 0;
	}

	if (is_untraced((__u64)bio))
		return 0;
	e.type = IOTRACE_EV_ISSUE;
	e.id = (__u64)bio;
	e.ref = (__u64)rq;
	b = bio;
	for (n = 0; n < IOTRACE_MAX_RQ_BIOS && b; n++)
		b = b->bi_next;
	e.aux = n;
	emit(&e);
	return 0;
}

SEC("tp_btf/block_bio_queue")
int BPF_PROG(handle_bio_queue, struct bio *bio)
{
	return on_bio_queue(bio, false);
}

/* where the kernel has bpf_rdonly_cast() (v6.2; see core_fixes.bpf.h) */
SEC("tp_btf/block_bio_queue")
int BPF_PROG(handle_bio_queue_cast, struct bio *bio)
{
	return on_bio_queue(bio, true);
}

/* before v5.11 (see core_fixes.bpf.h); user space picks one of the three */
SEC("tp_btf/block_bio_queue")
int BPF_PROG(handle_bio_queue_old, struct request_queue *q, struct bio *bio)
{
	return on_bio_queue(bio, false);
}

SEC("tp_btf/block_split")
int BPF_PROG(handle_split, struct bio *bio, unsigned int new_sector)
{
	return on_split(bio, new_sector);
}

SEC("tp_btf/block_split")
int BPF_PROG(handle_split_old, struct request_queue *q, struct bio *bio,
	     unsigned int new_sector)
{
	return on_split(bio, new_sector);
}

SEC("tp_btf/block_rq_issue")
int BPF_PROG(handle_rq_issue, struct request *rq)
{
	return on_rq_issue(rq);
}

SEC("tp_btf/block_rq_issue")
int BPF_PROG(handle_rq_issue_old, struct request_queue *q, struct request *rq)
{
	return on_rq_issue(rq);
}

/*
 * bio_endio() fires this once for a bio that passed block_bio_queue or was
 * split off one (BIO_TRACE_COMPLETION), when the bio and all its chained
 * children are done. The device is read again here, so a bio that a
 * stacking driver redirected with bio_set_dev() (md linear/raid0) is
 * reported on the device it ended on. Its range is the bio's iterator as
 * the driver left it: whole on zram, which walks a copy; a driver that
 * advances it as it goes leaves its end with length 0.
 */
SEC("tp_btf/block_bio_complete")
int BPF_PROG(handle_bio_complete, struct request_queue *q, struct bio *bio)
{
	struct iotrace_event e = {};

	iotrace_bio_devs(bio, &e.dev, &e.part);
	if (!dev_traced(e.dev, e.part) || untraced_done((__u64)bio))
		return 0;

	e.type = IOTRACE_EV_COMPLETE;
	e.id = (__u64)bio;
	set_bio_range(&e, bio);
	set_op_flags(&e, bio->bi_opf);
	e.error = bio->bi_status;
	emit(&e);
	return 0;
}

static __always_inline void complete_bio(struct iotrace_event *e, struct bio *bio,
					 __u64 sector, __u32 size)
{
	e->id = (__u64)bio;
	e->sector = sector;
	e->nr_sector = size >> 9;
	output(e);
}

/*
 * A bio after a request's first in the completion walk below, at address
 * bio, with *left bytes of the request still to complete; the next bio
 * to look at, 0 for none. A global function: the verifier checks it once,
 * not in each of the walk's 511 passes (which took 0.29 s of a 1.4 s
 * start; dev_traced() alone, inlined in each pass, exceeded the verifier's
 * limit on pending branches with 32 devices). A call costs about 15 ns
 * (bpf_stats), which only a request of several bios pays. Probe reads:
 * see iotrace_bio_devs_probed().
 */
__noinline __u64 complete_next(struct iotrace_event *e, __u64 bio_addr, __u32 *left, int whole)
{
	struct bio *bio = (struct bio *)bio_addr;
	__u32 size;
	__u64 next;

	if (!e || !left)	/* the verifier's due for pointer arguments */
		return 0;
	size = BPF_CORE_READ(bio, bi_iter.bi_size);
	if (size > *left)
		return 0;
	next = (__u64)BPF_CORE_READ(bio, bi_next);
	iotrace_bio_devs_probed(bio, &e->dev, &e->part);
	if ((whole || dev_traced(e->dev, e->part)) && !untraced_done(bio_addr))
		complete_bio(e, bio, BPF_CORE_READ(bio, bi_iter.bi_sector), size);
	*left -= size;
	return *left ? next : 0;
}

/*
 * blk_update_request() and blk_complete_request() (batched completion)
 * fire this before touching rq->bio, with nr_bytes about to be completed.
 * They end the bios from rq->bio on while nr_bytes covers them whole; a
 * bio covered in part is only advanced and completes in a later call. The
 * walk below mirrors that loop, including its first pass for a
 * zero-length bio (an empty flush) when nr_bytes is 0.
 *
 * A request of the flush state machine (RQF_FLUSH_SEQ) with data passes
 * here twice: when its data is written, without ending its bio, and when
 * the sequence is done, after blk_flush_restore_request() has put the bio
 * back and cleared the flag. Only the second ends the bio.
 *
 * A request without a bio is reported as RQ_COMPLETE. Passthrough requests
 * are left out here as at issue.
 *
 * All bios ended here share one timestamp, and the op and flags of the
 * request (merging requires the same op); only what differs per bio is
 * read in the loop, which keeps the verifier's work per bio small.
 */
SEC("tp_btf/block_rq_complete")
int BPF_PROG(handle_rq_complete, struct request *rq, blk_status_t error,
	     unsigned int nr_bytes)
{
	struct iotrace_event e = {};
	struct bio *bio;
	__u32 opf, dev, size, i;
	__u64 next;
	bool whole;

	opf = rq->cmd_flags;
	if (iotrace_op_is_passthrough(opf & IOTRACE_REQ_OP_MASK))
		return 0;
	dev = iotrace_disk_devt(iotrace_rq_disk(rq));
	bio = rq->bio;
	set_op_flags(&e, opf);
	e.error = error;
	if (!bio) {
		if (!dev_traced(dev, 0) || untraced_done((__u64)rq))
			return 0;
		/* sector stays 0: a finished flush request has __sector -1 */
		e.type = IOTRACE_EV_RQ_COMPLETE;
		e.id = (__u64)rq;
		e.dev = dev;
		e.nr_sector = nr_bytes >> 9;
		emit(&e);
		return 0;
	}
	if (rq->rq_flags & iotrace_rqf_flush_seq())
		return 0;

	/* bios of one request may straddle adjacent partitions */
	whole = dev_traced(dev, 0);
	e.type = IOTRACE_EV_COMPLETE;
	e.ts = bpf_ktime_get_ns();
	/* the first bio, mostly the only one, by direct loads */
	size = bio->bi_iter.bi_size;
	if (size > nr_bytes)
		return 0;
	iotrace_bio_devs(bio, &e.dev, &e.part);
	if ((whole || dev_traced(e.dev, e.part)) && !untraced_done((__u64)bio))
		complete_bio(&e, bio, bio->bi_iter.bi_sector, size);
	nr_bytes -= size;
	if (!nr_bytes)
		return 0;
	next = (__u64)BPF_CORE_READ(bio, bi_next);
	for (i = 1; i < IOTRACE_MAX_RQ_BIOS && next; i++)
		next = complete_next(&e, next, &nr_bytes, whole);
	return 0;
}

/* syscalls:sys_exit_* record (tracefs format): the result at offset 16 */
struct syscall_exit {
	__u64 common;
	__s32 nr;
	__s64 ret;
};

static __always_inline int on_rename_exit(struct syscall_exit *ctx)
{
	/* the tracer's own renames move its summary into place, no other path */
	if (ctx->ret == 0 && !is_self(bpf_get_current_pid_tgid() >> 32))
		__sync_fetch_and_add(&rename_epoch, 1);
	return 0;
}

/* user space loads these only where the tracepoints exist, and handle_ns_exit() does not */
SEC("tracepoint/syscalls/sys_exit_rename")
int handle_exit_rename(struct syscall_exit *ctx)
{
	return on_rename_exit(ctx);
}

SEC("tracepoint/syscalls/sys_exit_renameat")
int handle_exit_renameat(struct syscall_exit *ctx)
{
	return on_rename_exit(ctx);
}

SEC("tracepoint/syscalls/sys_exit_renameat2")
int handle_exit_renameat2(struct syscall_exit *ctx)
{
	return on_rename_exit(ctx);
}

/*
 * Outputs this CPU's stage. Never attached: user space runs it on a CPU
 * whose stage it sees waiting (BPF_PROG_TEST_RUN, BPF_F_TEST_RUN_ON_CPU),
 * so that the records of a quiet CPU do not wait for more. Run in an
 * interrupt, it may find the stage busy, and leaves it to the next look.
 */
SEC("raw_tp")
int flush_stage(void *ctx)
{
	struct iotrace_stage *st = this_stage();

	return st && !stage_try_flush(st);
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
