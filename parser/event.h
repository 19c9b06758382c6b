/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A trace event in compact, fixed-size form: what the join reads.
 *
 * The hot event types (io, ioCompletion, filesystemMeta, ioSplit,
 * ioDispatch) are plain fields. The rare ones that carry strings
 * (deviceDescription, filesystemFileName) and filesystemFileEvent keep
 * the protobuf-c message they were unpacked into (pb), owned by whoever
 * produced the event. vfs has its fields in a struct of its own (vfs),
 * owned the same way: its two FileIds and comm would make every event in
 * the reader's window 60% larger, and protobuf-c took half of the time
 * of reading a --vfs trace.
 *
 * Units are those of trace.proto: LBAs and lengths in 512-byte sectors,
 * timestamps in ns.
 */
#ifndef IOTRACE_PARSER_EVENT_H
#define IOTRACE_PARSER_EVENT_H

#include <stdbool.h>
#include <stdint.h>

#include "trace.pb-c.h"

enum event_type {
	EV_NONE,	/* a header without an event: skipped by the join */
	EV_IO,
	EV_COMPLETION,
	EV_FS_META,
	EV_SPLIT,
	EV_DISPATCH,
	EV_DEVICE,	/* pb->devicedescription */
	EV_FILE_NAME,	/* pb->filesystemfilename */
	EV_FILE_EVENT,	/* pb->filesystemfileevent */
	EV_VFS,		/* vfs */
	EV_TYPES
};

#define EV_BIT(t) (1u << (t))
#define EV_ALL ((1u << EV_TYPES) - 1)

/* io.flags bits */
enum {
	IOF_FLUSH = 1 << 0,
	IOF_FUA = 1 << 1,
	IOF_SYNC = 1 << 2,
	IOF_META = 1 << 3,
	IOF_READAHEAD = 1 << 4,
	IOF_REQUEST_ONLY = 1 << 5,
	IOF_WRITE_ZEROES = 1 << 6,
	IOF_DIRECT = 1 << 7,
};

/* Open-CAS io classes that stand for a flag (all of them: src/encode.c) */
enum {
	IOCLASS_METADATA = 1,
	IOCLASS_DIRECT = 22,
};

/* io.comm, NUL-terminated: the kernel's TASK_COMM_LEN; a longer one is cut */
#define EVENT_COMM_MAX 16

/* OCTF's FileId: inode numbers are reused, so the creation time is part of it */
struct file_id {
	uint64_t part;		/* partition, dev_t */
	uint64_t ino;
	int64_t sec;
	int32_t nsec;
};

struct event {
	uint64_t sid;
	uint64_t ts;
	enum event_type type;
	uint32_t stream;	/* where the reader found it: stream index, */
	uint64_t pos;		/* and record number in that stream */
	union {
		struct {
			uint64_t id, lba, dev, part, cgroup;
			uint64_t vfs_call;	/* EventVfs.id, 0 = none */
			uint32_t len, io_class, write_hint, pid, tid;
			int32_t op;	/* Octf__Proto__Trace__IoType */
			uint32_t flags;	/* IOF_* */
			char comm[EVENT_COMM_MAX];
		} io;
		struct {
			uint64_t ref, lba, dev;
			uint32_t len;
			int32_t status;
			bool error;
		} cpl;
		struct {
			uint64_t ref;
			struct file_id fid;
			uint64_t offset, size;
		} meta;
		struct {
			uint64_t id, parent, dev, lba, parent_lba;
			uint32_t len;
		} split;
		struct {
			uint64_t id, dev, lba, rq;
			uint32_t len, bios;
		} disp;
		struct event_vfs *vfs;	/* EV_VFS: allocated, freed by decode__release() */
		/* EV_DEVICE, EV_FILE_NAME, EV_FILE_EVENT: the unpacked message (strings) */
		Octf__Proto__Trace__Event *pb;
	};
};

/*
 * Two cache lines, and a reader's window of READER_WINDOW events in one
 * 2 MiB huge page: at 136 bytes it ran 128 KiB past it, 32 more page
 * faults per reader, each one a trip to the hypervisor in a VM.
 */
_Static_assert(sizeof(struct event) == 128, "struct event: two cache lines");

/* An EventVfs, as trace.proto has it */
struct event_vfs {
	uint64_t id, size, duration, dev, cgroup;
	int64_t offset, offset2, result;
	int32_t call, fd, fd2;
	uint32_t pid, tid, flags, uring_op;
	bool created;
	bool has_fid, has_fid2;		/* fileId, fileId2 present */
	struct file_id fid, fid2;
	char comm[EVENT_COMM_MAX];	/* up to its first NUL, cut to fit */
};

/* FileId of a protobuf-c message (NULL gives all zeros, as proto3 reads it). */
void event__file_id(const Octf__Proto__Trace__FileId *f, struct file_id *out);

#endif
