/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the views say about a VFS call (an EventVfs): its name as users
 * know it, the kind of operation it is for the per-file and per-process
 * reports, and the name of the errno it failed with.
 */
#ifndef IOTRACE_VFS_CALL_H
#define IOTRACE_VFS_CALL_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Kinds of calls, as per-file reports (Darshan's POSIX module) count
 * them. copy_file_range, sendfile and splice read their input file and
 * write their output file: they are a read of the one and a write of
 * the other.
 */
enum vfs_op {
	VOP_OPEN,	/* open, openat, openat2, creat; io_uring openat */
	VOP_CLOSE,
	VOP_READ,	/* read, pread64, readv, preadv, preadv2; io_uring reads */
	VOP_WRITE,
	VOP_SEEK,	/* lseek */
	VOP_SYNC,	/* fsync, fdatasync, sync_file_range, msync; io_uring fsync */
	VOP_MMAP,
	VOP_OTHER,	/* ftruncate, fallocate, other io_uring requests, unknown calls */
	VOP_COUNT
};

extern const char *const vfs_op_name[VOP_COUNT];

/*
 * The call's name: the syscall's ("pread64", "openat"), or for io_uring
 * requests "io_uring:" and the request's opcode ("io_uring:read_fixed");
 * NULL for a call newer than this parser (print its number).
 */
const char *vfs_call__name(int32_t call, uint32_t uring_op);

/* The kind of the call; for copy_file_range, sendfile and splice VOP_READ. */
enum vfs_op vfs_call__op(int32_t call, uint32_t uring_op);

/* Whether the call has an output file (fd2, offset2, fileId2). */
bool vfs_call__has_output(int32_t call);
/* Whether the call, or io_uring request, opens a file (EventVfs.created means something). */
bool vfs_call__opens(int32_t call, uint32_t uring_op);
/* Whether it is an io_uring request (EventVfs.uringOpcode means something). */
bool vfs_call__is_uring(int32_t call);

/* "ENOENT" for 2, also the kernel's own ones a tracepoint may see; NULL if unknown. */
const char *errno_name(int64_t err);

#endif
