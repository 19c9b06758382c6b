/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The event ABI between the eBPF programs (bpf/) and the collector (src/).
 *
 * This is the only definition of the records that cross the per-CPU
 * buffers. Both sides include it; CMake lists it as a dependency of the
 * BPF object and of the collector, so editing it rebuilds both.
 *
 * Records are fixed-size and hold fixed-width types only. Kernel specifics
 * (REQ_* bit positions, dev_t layout of a given kernel) are translated in
 * the BPF programs into the stable encodings defined here.
 */
#ifndef IOTRACE_EVENT_H
#define IOTRACE_EVENT_H

#ifdef __bpf__
/* vmlinux.h provides __u8 .. __u64 */
#else
#include <linux/types.h>
#endif

/* Most devices one trace may name; the filter is an array in BPF rodata. */
#define IOTRACE_MAX_DEVICES 32

/* What happened; selects how the collector encodes the record. */
enum iotrace_event_type {
	/* a bio entered the block layer (block_bio_queue) */
	IOTRACE_EV_QUEUE = 1,
	/* a bio was split (block_split): id = new child, ref = parent bio */
	IOTRACE_EV_SPLIT = 2,
	/*
	 * a bio completed: block_bio_complete on bio-based devices,
	 * block_rq_complete (one record per bio the request ends) on blk-mq
	 * devices, where block_bio_complete does not fire
	 */
	IOTRACE_EV_COMPLETE = 3,
	/*
	 * a request was dispatched to the driver (block_rq_issue):
	 * id = first bio of the request, ref = request address
	 */
	IOTRACE_EV_ISSUE = 4,
	/*
	 * a request that carries no bio (e.g. the flush machinery's own
	 * flush request) was dispatched; it never passes block_bio_queue,
	 * so it is reported as an I/O of its own: id = request address.
	 * A struct iotrace_queue_event, with the dispatching task and no file
	 */
	IOTRACE_EV_RQ_QUEUE = 5,
	/* such a bio-less request completed (block_rq_complete) */
	IOTRACE_EV_RQ_COMPLETE = 6,
	/*
	 * one component of a file's name chain: struct iotrace_name_event.
	 * Sent before the first QUEUE that refers to the file, once per
	 * (file, rename epoch); see bpf/iotrace.bpf.c
	 */
	IOTRACE_EV_FILE_NAME = 7,
	/*
	 * a system call (or io_uring request) on a file of a traced device
	 * ended: struct iotrace_vfs_event, sent at its end (--vfs only)
	 */
	IOTRACE_EV_VFS = 8,
	/* a file was created, deleted or moved: struct iotrace_fs_event */
	IOTRACE_EV_FS = 9,
};

/* The programs' state while the tracer starts or stops (`stopping`, iotrace.bpf.c). */
enum iotrace_stop {
	IOTRACE_STOP_NONE = 0,
	IOTRACE_STOP_DRAIN = 1,		/* no new I/O; the trace's own complete */
	IOTRACE_STOP_CLOSED = 2,	/* nothing is output */
	IOTRACE_STOP_START = 3,		/* being attached: no record yet but names */
};

/* Operation, independent of the kernel's REQ_OP_* numbering. */
enum iotrace_op {
	IOTRACE_OP_OTHER = 0,
	IOTRACE_OP_READ = 1,
	IOTRACE_OP_WRITE = 2,
	IOTRACE_OP_DISCARD = 3,	/* also secure erase */
	IOTRACE_OP_FLUSH = 4,	/* REQ_OP_FLUSH (bio-less flush requests) */
	IOTRACE_OP_WRITE_ZEROES = 5,
};

/* Request flags, independent of the kernel's __REQ_* bit positions. */
#define IOTRACE_F_PREFLUSH (1u << 0)	/* REQ_PREFLUSH: flush cache first */
#define IOTRACE_F_FUA (1u << 1)		/* REQ_FUA: forced unit access */
#define IOTRACE_F_SYNC (1u << 2)	/* REQ_SYNC */
#define IOTRACE_F_META (1u << 3)	/* REQ_META: file system metadata */
#define IOTRACE_F_RAHEAD (1u << 4)	/* REQ_RAHEAD: readahead */
/*
 * QUEUE only, from the bio's first page: the page belongs to no file
 * (anonymous memory: a direct I/O from or into a user buffer)
 */
#define IOTRACE_F_DIRECT (1u << 5)
/*
 * QUEUE only, from the bio's first page: file system metadata (a page of
 * the block device's own cache, of a directory, or a kernel page of no
 * page cache such as a slab or journal buffer)
 */
#define IOTRACE_F_FSMETA (1u << 6)

/*
 * Kernel dev_t encoding, as in the kernel's MKDEV(): major in the top
 * 12 bits, minor in the low 20. Open-CAS traces use the same encoding
 * for device ids (e.g. 259:2 = 271581186), so ids stay comparable.
 */
#define IOTRACE_MINORBITS 20
#define IOTRACE_MKDEV(ma, mi) (((__u32)(ma) << IOTRACE_MINORBITS) | (__u32)(mi))
#define IOTRACE_MAJOR(dev) ((__u32)(dev) >> IOTRACE_MINORBITS)
#define IOTRACE_MINOR(dev) ((__u32)(dev) & ((1u << IOTRACE_MINORBITS) - 1))

struct iotrace_event {
	/*
	 * Global sequence id, unique and increasing across CPUs; the parser
	 * merges the per-CPU streams in this order. User space numbers its
	 * own device descriptions first and sets the BPF counter past them.
	 */
	__u64 sid;
	/* time of the event, ns, CLOCK_MONOTONIC (bpf_ktime_get_ns) */
	__u64 ts;
	/*
	 * Kernel address of the bio (of the request for RQ_* events): unique
	 * among I/Os in flight, reused only after the completion.
	 */
	__u64 id;
	/* SPLIT: parent bio address; ISSUE: request address; else 0 */
	__u64 ref;
	/* first sector, 512-byte units, whole-disk LBA (after partition remap) */
	__u64 sector;
	/* length, 512-byte sectors */
	__u32 nr_sector;
	/* whole-disk device, IOTRACE_MKDEV encoding */
	__u32 dev;
	/* partition the I/O was sent to, IOTRACE_MKDEV encoding; 0 = whole disk */
	__u32 part;
	/*
	 * process (thread group) id and thread id of the task that queued
	 * the I/O (QUEUE, RQ_QUEUE) or made the call (VFS, names); 0 in the
	 * block layer's own records (SPLIT, ISSUE, completions), which OCTF
	 * gives no task
	 */
	__u32 pid;
	__u32 tid;
	/* ISSUE: number of bios in the request (counted up to 512); else 0 */
	__u32 aux;
	/* SPLIT: first sector of the parent's remainder, 512-byte units */
	__u64 aux64;
	/* IOTRACE_F_* */
	__u16 flags;
	/* COMPLETE/RQ_COMPLETE: blk_status_t, 0 = success */
	__s16 error;
	/* enum iotrace_event_type */
	__u8 type;
	/* enum iotrace_op */
	__u8 op;
	/* enum rw_hint of the bio (0 = not set) */
	__u8 write_hint;
	__u8 pad;
};

/*
 * Identity of a file, as OCTF's FileId: partition, inode number and a
 * creation date. The kernel keeps no portable creation time, so the date
 * is the inode's ctime when the tracer first met the inode (it is kept in
 * the kernel's name cache so that it does not change when the file is
 * written, which moves the live ctime).
 */
struct iotrace_file_id {
	/* inode number (i_ino) */
	__u64 ino;
	/* ctime at first sight: seconds and nanoseconds since the epoch */
	__s64 ctime_sec;
	__u32 ctime_nsec;
	/*
	 * file system's device, IOTRACE_MKDEV encoding: i_sb->s_dev, on btrfs
	 * the subvolume's (stat's st_dev)
	 */
	__u32 dev;
};

/* Kind of the inode a QUEUE's first page belongs to (file.ino != 0). */
enum iotrace_file_kind {
	IOTRACE_FILE_NONE = 0,
	IOTRACE_FILE_REG = 1,	/* regular file: a filesystemMeta is emitted */
	IOTRACE_FILE_DIR = 2,
	IOTRACE_FILE_BDEV = 3,	/* the block device's own page cache */
	IOTRACE_FILE_OTHER = 4,	/* symlink, special file */
};

#define IOTRACE_COMM_LEN 16
/* d_name longer than this is truncated; NAME_MAX is 255 */
#define IOTRACE_NAME_LEN 256

/*
 * A QUEUE record: struct iotrace_event followed by who submitted the bio
 * and which file its first page belongs to (an RQ_QUEUE record: who
 * dispatched the request; no file). The BPF program reserves two
 * sids for a QUEUE of a regular file (io.sid = sid, its filesystemMeta
 * sid + 1), one otherwise.
 */
struct iotrace_queue_event {
	struct iotrace_event io;
	/* cgroup v2 id of the submitting task (bpf_get_current_cgroup_id) */
	__u64 cgroup;
	/* task name of the submitting thread, NUL-padded */
	char comm[IOTRACE_COMM_LEN];
	/* file of the bio's first page; ino 0 = none */
	struct iotrace_file_id file;
	/* file offset of the bio's first byte, 512-byte sectors */
	__u64 file_offset;
	/* file size (i_size) at submission, 512-byte sectors, rounded down */
	__u64 file_size;
	/*
	 * the system call in progress in the submitting task when the bio
	 * was queued (iotrace_vfs_event.call_id), 0 = none or --vfs off
	 */
	__u64 vfs_call;
	/* enum iotrace_file_kind */
	__u8 file_kind;
	__u8 pad[7];
};

/*
 * A FILE_NAME record: struct iotrace_event (sid, ts, type, pid, tid set;
 * the rest 0) followed by one link of a name chain. The root of a file
 * system is sent too, with name "/" and parent == itself.
 */
struct iotrace_name_event {
	struct iotrace_event hdr;
	struct iotrace_file_id file;
	struct iotrace_file_id parent;
	/* NUL-terminated, truncated to IOTRACE_NAME_LEN - 1 bytes */
	char name[IOTRACE_NAME_LEN];
};

/*
 * What a file system's own tracepoints name inside an unlink or rename
 * (bpf/fs_events.bpf.h): every file an unlink removes, every file a
 * rename replaces (not in an exchange), every file a rename moves (both
 * in an exchange). User space says, per file system, which its programs
 * that loaded name.
 */
#define IOTRACE_NAMES_UNLINKED 1
#define IOTRACE_NAMES_REPLACED 2
#define IOTRACE_NAMES_RENAMED 4

/*
 * Calls traced with --vfs. The numbering is ours (syscall numbers differ
 * per architecture) and is the VfsCall enum of proto/trace.proto.
 */
enum iotrace_vfs_call {
	IOTRACE_VFS_NONE = 0,
	IOTRACE_VFS_READ = 1,
	IOTRACE_VFS_WRITE = 2,
	IOTRACE_VFS_PREAD64 = 3,
	IOTRACE_VFS_PWRITE64 = 4,
	IOTRACE_VFS_READV = 5,
	IOTRACE_VFS_WRITEV = 6,
	IOTRACE_VFS_PREADV = 7,
	IOTRACE_VFS_PWRITEV = 8,
	IOTRACE_VFS_PREADV2 = 9,
	IOTRACE_VFS_PWRITEV2 = 10,
	IOTRACE_VFS_OPEN = 11,
	IOTRACE_VFS_OPENAT = 12,
	IOTRACE_VFS_OPENAT2 = 13,
	IOTRACE_VFS_CREAT = 14,
	IOTRACE_VFS_CLOSE = 15,
	IOTRACE_VFS_FSYNC = 16,
	IOTRACE_VFS_FDATASYNC = 17,
	IOTRACE_VFS_LSEEK = 18,
	IOTRACE_VFS_FTRUNCATE = 19,
	IOTRACE_VFS_FALLOCATE = 20,
	IOTRACE_VFS_MMAP = 21,
	IOTRACE_VFS_MSYNC = 22,
	IOTRACE_VFS_SYNC_FILE_RANGE = 23,
	IOTRACE_VFS_COPY_FILE_RANGE = 24,
	IOTRACE_VFS_SENDFILE = 25,
	IOTRACE_VFS_SPLICE = 26,
	/* io_uring requests: the opcode is in iotrace_vfs_event.flags */
	IOTRACE_VFS_URING_READ = 27,
	IOTRACE_VFS_URING_WRITE = 28,
	IOTRACE_VFS_URING_FSYNC = 29,
	IOTRACE_VFS_URING_OTHER = 30,
	/* path calls: the file is the one the path named */
	IOTRACE_VFS_UNLINK = 31,
	IOTRACE_VFS_UNLINKAT = 32,
	IOTRACE_VFS_RENAME = 33,
	IOTRACE_VFS_RENAMEAT = 34,
	IOTRACE_VFS_RENAMEAT2 = 35,
	IOTRACE_VFS_NR_CALLS = 36,
};

/*
 * A VFS record: struct iotrace_event (sid, ts = end of the call, pid, tid,
 * type; dev = the file's device, as in its FileId) followed by the
 * call. Sent once, when the call returns, so that a record holds both its
 * arguments and its result.
 */
struct iotrace_vfs_event {
	struct iotrace_event hdr;
	/*
	 * unique in the trace; a block I/O queued while the call ran carries
	 * it (iotrace_queue_event.vfs_call)
	 */
	__u64 call_id;
	/* ns, same clock as hdr.ts */
	__u64 start;
	/* bytes; -1 = at the file position (read, write, readv, writev) */
	__s64 offset;
	/* bytes asked for (count, sum of iov_len, len); 0 if none */
	__u64 size;
	/* the return value: bytes, new fd or offset, or -errno */
	__s64 result;
	/* the other file of copy_file_range, sendfile, splice: the output */
	__s64 offset2;
	__u64 cgroup;
	struct iotrace_file_id file;
	struct iotrace_file_id file2;
	__s32 fd;
	__s32 fd2;
	/* open flags, lseek whence, fallocate mode, ..., io_uring opcode */
	__u32 flags;
	/* enum iotrace_vfs_call */
	__u16 call;
	/* the open created the file (O_CREAT that made a new inode) */
	__u8 created;
	/* io_uring requests: IORING_OP_* */
	__u8 opcode;
	char comm[IOTRACE_COMM_LEN];
};

/* OCTF FsEventType numbering */
enum iotrace_fs_event_kind {
	IOTRACE_FS_CREATE = 1,
	IOTRACE_FS_DELETE = 2,
	IOTRACE_FS_MOVE_TO = 3,
	IOTRACE_FS_MOVE_FROM = 4,
};

/* An FS record: struct iotrace_event (sid, ts, pid, tid, type) + what. */
struct iotrace_fs_event {
	struct iotrace_event hdr;
	struct iotrace_file_id file;
	/* enum iotrace_fs_event_kind */
	__u32 kind;
	__u32 pad;
};

/*
 * Records reach the ring buffers in batches. Each CPU stages its records
 * in its struct iotrace_stage and outputs them as one ring record when the
 * next would not fit. A ring record is thus one or more records back to
 * back, each of the size its type gives (iotrace_record_size(), all
 * multiples of 8). One output per record cost the queue program about 150
 * of its 390 ns (bpf_stats, fio random reads at 100k IOPS).
 *
 * User space maps the stages (an mmapable array, one per CPU): a stage
 * that holds records and was not output since user space last looked,
 * it has output by the program flush_stage run on that CPU; at the end it
 * reads what is left.
 */
#define IOTRACE_STAGE_BYTES 4096

struct iotrace_stage {
	/* bytes staged */
	__u32 len;
	/* records staged */
	__u32 nrec;
	/*
	 * a program on this CPU is using the stage: one nested on it (in an
	 * interrupt) outputs its record alone. Taken with an atomic exchange,
	 * which also holds where a program could be preempted.
	 */
	__u64 busy;
	/* outputs of the stage so far */
	__u64 flushes;
	/* the header fills a cache line; __u64: copies go 8 bytes at a time */
	__u64 pad[5];
	__u64 buf[IOTRACE_STAGE_BYTES / 8];
};

/* Bytes a record of this type takes in a ring record; 0 for an unknown type. */
static inline __u32 iotrace_record_size(__u32 type)
{
	switch (type) {
	case IOTRACE_EV_QUEUE:
	case IOTRACE_EV_RQ_QUEUE:
		return sizeof(struct iotrace_queue_event);
	case IOTRACE_EV_SPLIT:
	case IOTRACE_EV_COMPLETE:
	case IOTRACE_EV_ISSUE:
	case IOTRACE_EV_RQ_COMPLETE:
		return sizeof(struct iotrace_event);
	case IOTRACE_EV_FILE_NAME:
		return sizeof(struct iotrace_name_event);
	case IOTRACE_EV_VFS:
		return sizeof(struct iotrace_vfs_event);
	case IOTRACE_EV_FS:
		return sizeof(struct iotrace_fs_event);
	default:
		return 0;
	}
}

/*
 * The path of a cgroup v2 directory just removed, kept in the
 * cgroups_gone map by its id (cgroup_gone.bpf.h): a job's cgroups may go
 * before the collector reads the records that name them, and then only
 * the kernel knows who they were. The path is the hierarchy's (as
 * /proc/1/cgroup gives it); a longer one is not kept.
 */
#define IOTRACE_CGROUP_PATH_LEN 256

struct iotrace_cgroup_gone {
	/* the cgroup above it, 0 = the root */
	__u64 parent;
	char path[IOTRACE_CGROUP_PATH_LEN];
};

/*
 * Per-CPU counters the programs keep; user space sums and reports them.
 * Only failures are counted: a count of every record would cost each one
 * a map lookup and a locked add, and the trace files count them anyway.
 */
struct iotrace_counters {
	/* events the CPU's ring buffer had no room for */
	__u64 lost;
};

#endif /* IOTRACE_EVENT_H */
