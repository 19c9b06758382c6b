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
 * node: a rename may change the path of any file below the renamed
 * entry, so every name chain is sent again (once) at the next I/O of its
 * file. Renames through io_uring pass no syscall tracepoint and are not
 * seen.
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

static __always_inline void mark_untraced(__u64 id)
{
	__u8 one = 1;

	bpf_map_update_elem(&untraced, &id, &one, BPF_ANY);
}

static __always_inline bool is_untraced(__u64 id)
{
	__u8 s = stopping;

	if (s == IOTRACE_STOP_CLOSED)
		return true;
	return (s || medium_changed) && bpf_map_lookup_elem(&untraced, &id);
}

/* True for the completion of an I/O left out (stop, medium); forgets it. */
static __always_inline bool untraced_done(__u64 id)
{
	__u8 s = stopping;

	if (s == IOTRACE_STOP_CLOSED)
		return true;
	return (s || medium_changed) && !bpf_map_delete_elem(&untraced, &id);
}

/*
 * One BPF ring buffer per CPU, so that each CPU's records go to its own
 * trace file, as upstream's per-CPU queues. User space creates them, of
 * the size of --buffer, and puts them here by CPU number; the size below
 * is only the template's. A record is copied into the ring with one
 * helper call; through a perf event array, perf's own bookkeeping made
 * the three programs of an I/O take 1.65 us instead of 1.09 (bpf_stats,
 * fio random reads at 100k IOPS).
 */
struct ring {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 16);
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);	/* set to the number of possible CPUs */
	__type(key, __u32);
	__array(values, struct ring);
} rings SEC(".maps");

/* Each CPU's batch in the making, by CPU number; see iotrace_event.h. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);	/* set to the number of possible CPUs */
	__type(key, __u32);
	__type(value, struct iotrace_stage);
} stages SEC(".maps");

static __always_inline struct iotrace_stage *this_stage(void)
{
	__u32 cpu = bpf_get_smp_processor_id();

	return bpf_map_lookup_elem(&stages, &cpu);
}

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct iotrace_counters);
} counters SEC(".maps");

/*
 * Files (and their directories) met so far. The value fixes the file's
 * creation date for the whole trace (the live ctime moves with every
 * write) and says in which rename epoch its name was last sent. An
 * evicted entry only costs a new FileId and a resend of the chain.
 */
#ifndef IOTRACE_MAX_FILES
#define IOTRACE_MAX_FILES 65536
#endif

struct file_key {
	__u64 ino;
	__u32 dev;
	__u32 pad;
};

struct file_seen {
	/* ctime at first sight: the FileId's creation date */
	__s64 ctime_sec;
	__u32 ctime_nsec;
	/* i_generation at first sight: a reused inode number differs */
	__u32 generation;
	/* rename_epoch + 1 when its name was sent; 0 = not yet */
	__u64 sent_epoch;
	/* name_sig() of its first dentry alias when its name was sent */
	__u64 name_sig;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, IOTRACE_MAX_FILES);
	__type(key, struct file_key);
	__type(value, struct file_seen);
} files SEC(".maps");

/* Room for one name record: too big for the BPF stack. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct iotrace_name_event);
} name_buf SEC(".maps");

/* Directory levels sent above a file at most (the root included). */
#ifndef IOTRACE_MAX_NAME_DEPTH
#define IOTRACE_MAX_NAME_DEPTH 16
#endif

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

/*
 * dev_traced() as a global function, for the completion walk: the
 * verifier checks it once, on its own, instead of once per bio of the
 * walk, which exceeds its limit on pending branches ("the sequence of
 * 8193 jumps is too complex") with 32 devices. Elsewhere it is inlined:
 * calling it took 15 ns of the queue program's 414 and 18 of the
 * completion program's 292 (bpf_stats medians, fio random reads at full
 * rate, 6 alternated rounds).
 */
__noinline int dev_traced_global(__u32 dev, __u32 part)
{
	return dev_traced(dev, part);
}

/* untraced_done() for the completion walk, verified once as dev_traced_global() */
__noinline int untraced_done_global(__u64 id)
{
	return untraced_done(id);
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

/*
 * All CPUs' losses together, which the collector looks at after each
 * read of the rings (mapped, no system call) to learn in which gap
 * between reads events were lost. Shared, but only losing touches it.
 */
__u64 lost_total = 0;

static __always_inline void count_lost(__u64 n)
{
	struct iotrace_counters *c;
	__u32 zero = 0;

	c = bpf_map_lookup_elem(&counters, &zero);
	/* atomic: a program in an interrupt may nest on this CPU's slot */
	if (c)
		__sync_fetch_and_add(&c->lost, n);
	__sync_fetch_and_add(&lost_total, n);
}

/*
 * One ring record of n records. It wakes the collector only once its
 * ring is a quarter full; below that the collector reads the rings on its
 * own timer. A wakeup per record would cost the traced workload several
 * microseconds per I/O. Rings differ in size (ring_plan.h), so the
 * quarter is of this one's. The fill is looked at on each output: with
 * batches that is once per dozens of records.
 */
static __always_inline void ring_out(void *data, __u64 size, __u64 n)
{
	__u32 cpu = bpf_get_smp_processor_id();
	__u64 flags = BPF_RB_NO_WAKEUP;
	void *ring;

	ring = bpf_map_lookup_elem(&rings, &cpu);
	if (ring) {
		if (bpf_ringbuf_query(ring, BPF_RB_AVAIL_DATA) + size >=
		    bpf_ringbuf_query(ring, BPF_RB_RING_SIZE) / 4)
			flags = BPF_RB_FORCE_WAKEUP;
		if (!bpf_ringbuf_output(ring, data, size, flags))
			return;
	}
	count_lost(n);
}

/* Outputs the staged records; the caller holds the stage (busy). */
static __always_inline void stage_flush(struct iotrace_stage *st)
{
	__u32 len = st->len, n = st->nrec;

	st->len = 0;
	st->nrec = 0;
	st->flushes++;
	if (!len || len > IOTRACE_STAGE_BYTES)
		return;
	ring_out(st->buf, len, n);
}

/*
 * Lets go of the stage. A plain store does: programs run with migration
 * disabled, so only programs on this CPU ever see the stage, in program
 * order; the barrier keeps the compiler from moving the stage's writes
 * past it.
 */
static __always_inline void stage_release(struct iotrace_stage *st)
{
	asm volatile("" ::: "memory");
	st->busy = 0;
}

/*
 * Outputs the staged records, unless a program that this one interrupted
 * is using the stage: false then.
 */
static __always_inline bool stage_try_flush(struct iotrace_stage *st)
{
	if (__sync_lock_test_and_set(&st->busy, 1))
		return false;
	stage_flush(st);
	stage_release(st);
	return true;
}

/* Outputs a record as a ring record of its own, with the sids it takes. */
static __always_inline void output_alone(struct iotrace_event *e, __u64 size, __u64 nsids)
{
	e->sid = __sync_fetch_and_add(&next_sid, nsids) + 1;
	ring_out(e, size, 1);
}

/*
 * Stages a filled, stamped record, after outputting the batch if it has
 * no room. The sid is taken last, once the stage is this program's: a
 * program nested in an interrupt on this CPU meanwhile outputs its record
 * alone, ahead of the staged ones, and a record that waits in the stage
 * is that much out of place in its stream, which the parser's window
 * absorbs. A record that cannot be output still consumes its sid: a gap
 * in sids is a lost record, also counted in counters.lost.
 */
static __always_inline void output_sized(struct iotrace_event *e,
					 __u64 size, __u64 nsids)
{
	struct iotrace_stage *st = this_stage();
	__u32 len;

	if (!st || __sync_lock_test_and_set(&st->busy, 1)) {
		output_alone(e, size, nsids);
		return;
	}
	len = st->len;
	if (len > IOTRACE_STAGE_BYTES - size) {
		stage_flush(st);
		len = 0;
	}
	e->sid = __sync_fetch_and_add(&next_sid, nsids) + 1;
	__builtin_memcpy(&st->buf[len / 8], e, size);
	st->len = len + size;
	st->nrec++;
	stage_release(st);
}

/*
 * Outputs a record at once, after what the stage holds: names, which
 * must be in the ring before the mark that they were sent is set.
 */
static __always_inline void output_now(struct iotrace_event *e, __u64 size)
{
	struct iotrace_stage *st;

	if (stopping == IOTRACE_STOP_CLOSED)
		return;
	st = this_stage();

	if (st)
		stage_try_flush(st);
	output_alone(e, size, 1);
}

static __always_inline void output(struct iotrace_event *e)
{
	output_sized(e, sizeof(*e), 1);
}

/*
 * A record of the block layer's own doing: no task, only the time. Not
 * calling bpf_get_current_pid_tgid() took the completion program from
 * 259 to 246 ns a run (bpf_stats medians of 6 alternated rounds, fio
 * random reads at full rate).
 */
static __always_inline void emit(struct iotrace_event *e)
{
	e->ts = bpf_ktime_get_ns();
	output(e);
}

/* S_IFMT and friends (include/uapi/linux/stat.h), not in vmlinux.h */
#define IOTRACE_S_IFMT 00170000
#define IOTRACE_S_IFREG 0100000
#define IOTRACE_S_IFLNK 0120000
#define IOTRACE_S_IFDIR 0040000
#define IOTRACE_S_IFBLK 0060000

#include "btrfs.bpf.h"
#include "overlay.bpf.h"

/*
 * The FileId of inode and its entry in files, inserted at first sight.
 * Returns NULL only if the map refused the insert. cast: see
 * IOTRACE_READ (core_fixes.bpf.h).
 */
static __always_inline struct file_seen *file_entry_of(struct inode *inode,
						       struct iotrace_file_id *id,
						       const bool cast)
{
	struct file_key key = {};
	struct file_seen *f, nf = {};
	struct super_block *sb;
	__u32 gen;

	key.ino = IOTRACE_READ(cast, inode, i_ino);
	sb = IOTRACE_READ(cast, inode, i_sb);
	key.dev = iotrace_file_dev(inode, sb, cast);
	gen = IOTRACE_READ(cast, inode, i_generation);
	id->ino = key.ino;
	id->dev = key.dev;
	f = bpf_map_lookup_elem(&files, &key);
	if (!f || f->generation != gen) {
		iotrace_inode_ctime(inode, &nf.ctime_sec, &nf.ctime_nsec);
		nf.generation = gen;
		/* a racing CPU may insert first: keep its date */
		bpf_map_update_elem(&files, &key, &nf, f ? BPF_ANY : BPF_NOEXIST);
		f = bpf_map_lookup_elem(&files, &key);
		if (!f)
			return NULL;
	}
	id->ctime_sec = f->ctime_sec;
	id->ctime_nsec = f->ctime_nsec;
	return f;
}

static __always_inline struct file_seen *file_entry(struct inode *inode,
						    struct iotrace_file_id *id)
{
	return file_entry_of(inode, id, false);
}

/*
 * Sends the name chain of the file whose dentry is d, from the file up to
 * the first directory already sent in this rename epoch, or up to the
 * root of its file system (sent as "/" with itself as parent). Each
 * record takes one sid, before the record that needed it.
 */
static __always_inline void send_chain(struct dentry *d,
				       struct file_seen *f,
				       struct iotrace_file_id *fid)
{
	struct iotrace_file_id child = *fid, pid;
	struct dentry *parent;
	struct iotrace_name_event *n;
	struct file_seen *pf;
	struct inode *pinode;
	__u64 epoch = rename_epoch + 1;
	__u64 pid_tgid;
	__u32 zero = 0, i;
	const unsigned char *name;

	n = bpf_map_lookup_elem(&name_buf, &zero);
	if (!n)
		return;
	pid_tgid = bpf_get_current_pid_tgid();
	for (i = 0; i < IOTRACE_MAX_NAME_DEPTH && d; i++) {
		parent = BPF_CORE_READ(d, d_parent);
		pinode = parent ? BPF_CORE_READ(parent, d_inode) : NULL;
		if (!pinode)
			break;
		pf = file_entry(pinode, &pid);
		__builtin_memset(&n->hdr, 0, sizeof(n->hdr));
		n->hdr.type = IOTRACE_EV_FILE_NAME;
		n->hdr.pid = pid_tgid >> 32;
		n->hdr.tid = (__u32)pid_tgid;
		n->hdr.ts = bpf_ktime_get_ns();
		n->file = child;
		n->parent = pid;
		name = BPF_CORE_READ(d, d_name.name);
		if (bpf_probe_read_kernel_str(n->name, sizeof(n->name), name) < 0)
			n->name[0] = 0;
		output_now(&n->hdr, sizeof(*n));
		f->sent_epoch = epoch;
		if (parent == d || !pf || pf->sent_epoch == epoch)
			break;
		d = parent;
		f = pf;
		child = pid;
	}
}

/*
 * What a file's name is: its dentry's parent and name (hash and length).
 * A rename changes it, also one that no rename(2) made, which the rename
 * epoch misses: overlayfs moving a copied-up file from its work directory
 * into place, nfsd, io_uring's IORING_OP_RENAMEAT. 0: no dentry.
 */
static __always_inline __u64 name_sig(struct dentry *d, const bool cast)
{
	if (!d)
		return 0;
	/* the parent read as a number: the verifier forbids math on pointers */
	return iotrace_word_at((char *)d + bpf_core_field_offset(struct dentry, d_parent), cast) ^
	       IOTRACE_READ(cast, d, d_name.hash_len);
}

/*
 * Sends file f's name chain unless this rename epoch sent it and its
 * first dentry alias is still where it was then. The chain goes through
 * d, or where d is NULL through that alias: a file found from a page has
 * no other dentry, and one with hard links is named by one of them. The
 * alias is also what is compared when a call names the file through
 * another link, so two links used in turn do not send names each time.
 * An inode without alias (unlinked and closed, or evicted dentry) sends
 * nothing.
 */
static __always_inline void name_file(struct file_seen *f,
				      struct iotrace_file_id *fid,
				      struct inode *inode, struct dentry *d,
				      const bool cast)
{
	struct dentry *alias = iotrace_inode_alias(inode, cast);
	__u64 sig = name_sig(alias, cast);

	if (f->sent_epoch == rename_epoch + 1 && (!sig || sig == f->name_sig))
		return;
	f->name_sig = sig;
	send_chain(d ? d : alias, f, fid);
}

/* The I/O is on regular file inode, from byte pos of it on. */
static __always_inline void set_file(struct iotrace_queue_event *q, struct inode *inode,
				     __u64 pos, const bool cast)
{
	q->file_kind = IOTRACE_FILE_REG;
	q->file_offset = pos >> 9;
	q->file_size = IOTRACE_READ(cast, inode, i_size) >> 9;
}

/*
 * The same for an inode met through its pages or its bio: its FileId, and
 * its names through a dentry alias when this rename epoch has not sent
 * them. False if the files map has no room.
 */
static __always_inline bool file_at(struct iotrace_queue_event *q, struct inode *inode,
				    __u64 pos, const bool cast)
{
	/* the one map lookup per I/O; names are rare */
	struct file_seen *f = file_entry_of(inode, &q->file, cast);

	if (!f)
		return false;
	set_file(q, inode, pos, cast);
	name_file(f, &q->file, inode, NULL, cast);
	return true;
}

/*
 * Direct I/O of iomap file systems (ext4, xfs; fs/iomap/direct-io.c): the
 * bio's bi_private is the call's struct iomap_dio, whose kiocb names the
 * file and the position the call started at; dio->size already counts
 * this bio when it is submitted (iomap_dio_bio_iter() adds it first), so
 * the bio starts at ki_pos + size - bi_size. The end_io function tells
 * such bios apart; a kernel without it (weak ksym: 0) sees none. This
 * works for every submitter (pwrite, libaio, io_uring) without tracing
 * system calls.
 */
extern const void iomap_dio_bio_end_io __ksym __weak;

/* The iomap direct I/O a bio belongs to, or NULL. */
static __always_inline struct iomap_dio *bio_iomap_dio(struct bio *bio)
{
	if (!&iomap_dio_bio_end_io || (void *)bio->bi_end_io != &iomap_dio_bio_end_io)
		return NULL;
	return bio->bi_private;
}

static __always_inline bool file_of_dio(struct bio *bio,
					struct iomap_dio *dio,
					struct iotrace_queue_event *q,
					const bool cast)
{
	struct kiocb *iocb;
	struct file *file;
	struct inode *inode;
	struct file_seen *f;
	__s64 pos;

	if (!dio)
		return false;
	iocb = IOTRACE_READ(cast, dio, iocb);
	file = IOTRACE_READ(cast, iocb, ki_filp);
	inode = IOTRACE_READ(cast, file, f_inode);
	if (!inode ||
	    (IOTRACE_READ(cast, inode, i_mode) & IOTRACE_S_IFMT) != IOTRACE_S_IFREG)
		return false;
	f = file_entry_of(inode, &q->file, cast);
	if (!f)
		return false;
	q->io.flags |= IOTRACE_F_DIRECT;
	pos = IOTRACE_READ(cast, iocb, ki_pos) + IOTRACE_READ(cast, dio, size) -
	      bio->bi_iter.bi_size;
	set_file(q, inode, pos > 0 ? (__u64)pos : 0, cast);
	name_file(f, &q->file, inode, NULL, cast);
	return true;
}

/*
 * A btrfs bio whose first page named no file: a direct I/O (a user
 * buffer) or a compressed extent (btrfs's own pages, which looked like
 * metadata). The bio itself names the file and offset (btrfs.bpf.h).
 */
static __always_inline bool file_of_btrfs(struct bio *bio,
					  struct iotrace_queue_event *q,
					  const bool cast)
{
	struct inode *inode;
	__u64 pos = 0;

	inode = iotrace_btrfs_inode(bio, &pos, cast);
	if (!inode ||
	    (IOTRACE_READ(cast, inode, i_mode) & IOTRACE_S_IFMT) != IOTRACE_S_IFREG ||
	    iotrace_btrfs_btree_inode(inode, cast) || !file_at(q, inode, pos, cast))
		return false;
	q->io.flags &= ~IOTRACE_F_FSMETA;
	return true;
}

/*
 * What the bio's first page says about the I/O, into q: the file it
 * belongs to, or DIRECT (anonymous memory: a user buffer of a direct
 * I/O), or FSMETA (the block device's own cache, a directory, or a
 * kernel page outside any page cache: slab, journal or xfs buffers).
 * Page-cache pages belong to their mapping's host inode; the host's own
 * i_mapping must point back to the mapping, which also rejects pages
 * whose mapping word means something else (slab pages overlay it).
 */
static __always_inline void file_of_page(struct bio *bio,
					 struct iotrace_queue_event *q,
					 const bool cast)
{
	struct bio_vec *bv = bio->bi_io_vec;
	struct address_space *mapping;
	struct page *page, *head;
	struct inode *inode;
	__u64 pos, psize;
	__u32 idx, mode;

	/* a clone (dm) shares its parent's vector from bi_idx on */
	idx = bio->bi_iter.bi_idx;
	bv += idx;
	/*
	 * bv has a variable offset now, which the verifier allows only for
	 * probe-reads or a cast; the page read so is a number to it, as
	 * everything reached from the page must be anyway: the folio offset
	 * below is pointer arithmetic, and the mapping word is tested for
	 * flag bits
	 */
	page = (struct page *)iotrace_word_at(
		(char *)bv + bpf_core_field_offset(struct bio_vec, bv_page), cast);
	if (!page)
		return;
	head = iotrace_page_head(page, cast);
	mapping = (struct address_space *)iotrace_word_at(
		(char *)head + bpf_core_field_offset(struct page, mapping), cast);
	if (!mapping) {
		q->io.flags |= IOTRACE_F_FSMETA;
		return;
	}
	/*
	 * PAGE_MAPPING_ANON (1), PAGE_MAPPING_MOVABLE (2), KSM (3). A slab
	 * page's word there is not a mapping and may have bit 0 set: xfs
	 * reads its small metadata buffers (AG headers) into kmalloc memory.
	 * Those bios carry REQ_META; a user buffer's never do.
	 */
	if ((unsigned long)mapping & 3) {
		if (q->io.flags & IOTRACE_F_META)
			q->io.flags |= IOTRACE_F_FSMETA;
		else if ((unsigned long)mapping & 1)
			q->io.flags |= IOTRACE_F_DIRECT;
		return;
	}
	inode = IOTRACE_READ(cast, mapping, host);
	if (!inode || (__u64)IOTRACE_READ(cast, inode, i_mapping) != (__u64)mapping) {
		q->io.flags |= IOTRACE_F_FSMETA;
		return;
	}
	mode = IOTRACE_READ(cast, inode, i_mode) & IOTRACE_S_IFMT;
	if (mode == IOTRACE_S_IFBLK) {
		q->file_kind = IOTRACE_FILE_BDEV;
		q->io.flags |= IOTRACE_F_FSMETA;
		return;
	}
	if (mode == IOTRACE_S_IFDIR) {
		q->file_kind = IOTRACE_FILE_DIR;
		q->io.flags |= IOTRACE_F_FSMETA;
		return;
	}
	if (mode != IOTRACE_S_IFREG) {
		q->file_kind = IOTRACE_FILE_OTHER;
		return;
	}
	if (iotrace_btrfs_btree_inode(inode, cast)) {
		q->io.flags |= IOTRACE_F_FSMETA;
		return;
	}

	psize = bpf_core_type_size(struct page);
	pos = iotrace_page_index(head, cast);
	if (psize)
		pos += ((__u64)page - (__u64)head) / psize;
	pos = (pos << page_shift) + IOTRACE_READ(cast, bv, bv_offset) + bio->bi_iter.bi_bvec_done;
	file_at(q, inode, pos, cast);
}

/* The file of the bio's data, or what its first page is (file_of_page()), into q. */
static __always_inline void file_of_bio(struct bio *bio,
					struct iomap_dio *dio,
					struct iotrace_queue_event *q,
					const bool cast)
{
	if (!bio->bi_io_vec || !q->io.nr_sector)
		return;
	/*
	 * A clone (dm, md, a btrfs mirror copy: bio_alloc_clone()) has no
	 * vectors of its own (bi_vcnt 0) and reads its parent's; only reads
	 * and writes have pages to read.
	 */
	if (!bio->bi_vcnt && q->io.op != IOTRACE_OP_READ && q->io.op != IOTRACE_OP_WRITE)
		return;
	if (file_of_dio(bio, dio, q, cast))
		return;
	file_of_page(bio, q, cast);
	if (q->file_kind == IOTRACE_FILE_NONE)
		file_of_btrfs(bio, q, cast);
}

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

#include "vfs.bpf.h"
#include "fs_events.bpf.h"

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

/*
 * output() as a global function, for the completion walk below: the
 * verifier checks output()'s branches once instead of in each of the
 * walk's 511 passes, which took 0.6 s of a 1.2 s start on a 2-vCPU VM.
 */
__noinline int output_global(struct iotrace_event *e)
{
	if (!e)	/* the verifier's due for a pointer argument */
		return 0;
	output(e);
	return 0;
}

static __always_inline void complete_bio(struct iotrace_event *e, struct bio *bio,
					 __u64 sector, __u32 size, const bool walk)
{
	e->id = (__u64)bio;
	e->sector = sector;
	e->nr_sector = size >> 9;
	if (walk)
		output_global(e);
	else
		output(e);
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
	struct bio *bio, *next;
	__u32 opf, dev, size, i;
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
		complete_bio(&e, bio, bio->bi_iter.bi_sector, size, false);
	nr_bytes -= size;
	if (!nr_bytes)
		return 0;
	/* the others by probe-reads: see iotrace_bio_devs_probed() */
	bio = BPF_CORE_READ(bio, bi_next);
	for (i = 1; i < IOTRACE_MAX_RQ_BIOS && bio; i++) {
		size = BPF_CORE_READ(bio, bi_iter.bi_size);
		if (size > nr_bytes)
			break;
		next = BPF_CORE_READ(bio, bi_next);
		iotrace_bio_devs_probed(bio, &e.dev, &e.part);
		if ((whole || dev_traced_global(e.dev, e.part)) && !untraced_done_global((__u64)bio))
			complete_bio(&e, bio, BPF_CORE_READ(bio, bi_iter.bi_sector), size, true);
		nr_bytes -= size;
		if (!nr_bytes)
			break;
		bio = next;
	}
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
	if (ctx->ret == 0)
		__sync_fetch_and_add(&rename_epoch, 1);
	return 0;
}

/* user space loads these only where the tracepoints exist */
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
