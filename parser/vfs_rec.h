/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A VFS call record (an EventVfs: one system call or io_uring request on
 * a file of a traced device), as the join hands it out with JOIN_VFS:
 * at once, in trace (sid) order among VFS records. The event is written
 * when the call returned: ts is its end, it began duration ns earlier.
 *
 * proto3 cannot tell 0 from absent; what a trace without a field gives:
 * pid, tid, cgroup 0, comm "", no file (the event has no fileId).
 */
#ifndef IOTRACE_VFS_REC_H
#define IOTRACE_VFS_REC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event.h"

struct device;
struct file_node;

enum { VFS_IN = 1, VFS_OUT = 2 };

struct vfs_rec {
	uint64_t sid;
	uint64_t ts;		/* end of the call, ns as recorded */
	uint64_t time;		/* ts relative to the trace's first event (0 if before it) */
	int64_t start;		/* ts - duration, relative: < 0 if the call began before the first event */
	uint64_t id;		/* EventIo.vfsCallId of the block I/O it queued */
	int32_t call;		/* Octf__Proto__Trace__VfsCall */
	uint32_t uring_op;	/* IORING_OP_* of an io_uring request */
	uint32_t pid, tid;
	uint64_t cgroup;
	char comm[EVENT_COMM_MAX];
	int32_t fd, fd2;
	int64_t offset, offset2;	/* bytes; -1 = at the file position */
	uint64_t size;		/* bytes asked for */
	int64_t result;		/* bytes, new fd or offset, or -errno */
	uint64_t duration;	/* ns */
	uint32_t flags;		/* open flags, lseek whence, fallocate mode, ... */
	bool created;

	bool has_file, has_file2;	/* the event has fileId, fileId2 */
	/*
	 * VFS_IN, VFS_OUT: the side of a copy whose file a --file filter did
	 * not match (the call matched through its other file); the per-file
	 * and per-process totals leave it out
	 */
	unsigned int unmatched;
	uint64_t part;			/* the file system's device (dev_t) */
	const struct device *dev;	/* the device part is or belongs to; NULL: unknown */
	/* NULL: the event names no file (fileId, fileId2); only with JOIN_FILES */
	struct file_node *file, *file2;
	const char *path, *path2;	/* with JOIN_PATHS; NULL = unknown */
	size_t path_len, path2_len;
};

/*
 * Fills what the event itself says (not dev, files, paths, time, start).
 * ev->type must be EV_VFS.
 */
void vfs_rec__fill(struct vfs_rec *r, const struct event *ev);

#endif
