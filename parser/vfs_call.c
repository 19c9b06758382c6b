// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <stddef.h>

#include "trace.pb-c.h"
#include "vfs_call.h"

#define C(x) OCTF__PROTO__TRACE__VFS_CALL__Vfs##x

const char *const vfs_op_name[VOP_COUNT] = {
	"open", "close", "read", "write", "seek", "sync", "mmap", "other",
};

/* by VfsCall number */
static const char *const call_names[] = {
	[C(Unknown)] = "unknown",
	[C(Read)] = "read",
	[C(Write)] = "write",
	[C(Pread64)] = "pread64",
	[C(Pwrite64)] = "pwrite64",
	[C(Readv)] = "readv",
	[C(Writev)] = "writev",
	[C(Preadv)] = "preadv",
	[C(Pwritev)] = "pwritev",
	[C(Preadv2)] = "preadv2",
	[C(Pwritev2)] = "pwritev2",
	[C(Open)] = "open",
	[C(Openat)] = "openat",
	[C(Openat2)] = "openat2",
	[C(Creat)] = "creat",
	[C(Close)] = "close",
	[C(Fsync)] = "fsync",
	[C(Fdatasync)] = "fdatasync",
	[C(Lseek)] = "lseek",
	[C(Ftruncate)] = "ftruncate",
	[C(Fallocate)] = "fallocate",
	[C(Mmap)] = "mmap",
	[C(Msync)] = "msync",
	[C(SyncFileRange)] = "sync_file_range",
	[C(CopyFileRange)] = "copy_file_range",
	[C(Sendfile)] = "sendfile",
	[C(Splice)] = "splice",
	[C(UringRead)] = "io_uring:read",
	[C(UringWrite)] = "io_uring:write",
	[C(UringFsync)] = "io_uring:fsync",
	[C(UringOther)] = "io_uring:other",
	[C(Unlink)] = "unlink",
	[C(Unlinkat)] = "unlinkat",
	[C(Rename)] = "rename",
	[C(Renameat)] = "renameat",
	[C(Renameat2)] = "renameat2",
};

/*
 * IORING_OP_* in the kernel's uapi order (include/uapi/linux/io_uring.h,
 * through 6.18), lowercase, as "io_uring:" names.
 */
static const char *const uring_names[] = {
	"io_uring:nop", "io_uring:readv", "io_uring:writev", "io_uring:fsync",
	"io_uring:read_fixed", "io_uring:write_fixed", "io_uring:poll_add",
	"io_uring:poll_remove", "io_uring:sync_file_range", "io_uring:sendmsg",
	"io_uring:recvmsg", "io_uring:timeout", "io_uring:timeout_remove", "io_uring:accept",
	"io_uring:async_cancel", "io_uring:link_timeout", "io_uring:connect",
	"io_uring:fallocate", "io_uring:openat", "io_uring:close", "io_uring:files_update",
	"io_uring:statx", "io_uring:read", "io_uring:write", "io_uring:fadvise",
	"io_uring:madvise", "io_uring:send", "io_uring:recv", "io_uring:openat2",
	"io_uring:epoll_ctl", "io_uring:splice", "io_uring:provide_buffers",
	"io_uring:remove_buffers", "io_uring:tee", "io_uring:shutdown", "io_uring:renameat",
	"io_uring:unlinkat", "io_uring:mkdirat", "io_uring:symlinkat", "io_uring:linkat",
	"io_uring:msg_ring", "io_uring:fsetxattr", "io_uring:setxattr", "io_uring:fgetxattr",
	"io_uring:getxattr", "io_uring:socket", "io_uring:uring_cmd", "io_uring:send_zc",
	"io_uring:sendmsg_zc", "io_uring:read_multishot", "io_uring:waitid",
	"io_uring:futex_wait", "io_uring:futex_wake", "io_uring:futex_waitv",
	"io_uring:fixed_fd_install", "io_uring:ftruncate", "io_uring:bind", "io_uring:listen",
	"io_uring:recv_zc", "io_uring:epoll_wait", "io_uring:readv_fixed",
	"io_uring:writev_fixed", "io_uring:pipe",
};

enum {
	URING_FSYNC = 3,
	URING_SYNC_FILE_RANGE = 8,
	URING_OPENAT = 18,
	URING_CLOSE = 19,
	URING_OPENAT2 = 28,
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

bool vfs_call__is_uring(int32_t call)
{
	return call >= C(UringRead) && call <= C(UringOther);
}

const char *vfs_call__name(int32_t call, uint32_t uring_op)
{
	/* opcode 0 (nop) is what a trace without opcodes says: the call's name is better */
	if (vfs_call__is_uring(call) && uring_op && uring_op < N(uring_names))
		return uring_names[uring_op];
	if (call >= 0 && (size_t)call < N(call_names))
		return call_names[call];
	return NULL;
}

enum vfs_op vfs_call__op(int32_t call, uint32_t uring_op)
{
	switch (call) {
	case C(Open):
	case C(Openat):
	case C(Openat2):
	case C(Creat):
		return VOP_OPEN;
	case C(Close):
		return VOP_CLOSE;
	case C(Read):
	case C(Pread64):
	case C(Readv):
	case C(Preadv):
	case C(Preadv2):
	case C(UringRead):
	case C(CopyFileRange):
	case C(Sendfile):
	case C(Splice):
		return VOP_READ;
	case C(Write):
	case C(Pwrite64):
	case C(Writev):
	case C(Pwritev):
	case C(Pwritev2):
	case C(UringWrite):
		return VOP_WRITE;
	case C(Lseek):
		return VOP_SEEK;
	case C(Fsync):
	case C(Fdatasync):
	case C(Msync):
	case C(SyncFileRange):
	case C(UringFsync):
		return VOP_SYNC;
	case C(Mmap):
		return VOP_MMAP;
	case C(UringOther):
		switch (uring_op) {
		case URING_OPENAT:
		case URING_OPENAT2:
			return VOP_OPEN;
		case URING_CLOSE:
			return VOP_CLOSE;
		case URING_FSYNC:
		case URING_SYNC_FILE_RANGE:
			return VOP_SYNC;
		default:
			return VOP_OTHER;
		}
	default:
		return VOP_OTHER;
	}
}

bool vfs_call__has_output(int32_t call)
{
	return call == C(CopyFileRange) || call == C(Sendfile) || call == C(Splice);
}

bool vfs_call__opens(int32_t call, uint32_t uring_op)
{
	return vfs_call__op(call, uring_op) == VOP_OPEN;
}

#define E(x) [x] = #x

/* asm-generic/errno-base.h and errno.h; aliases (EWOULDBLOCK, EDEADLOCK) left out */
static const char *const errno_names[] = {
	E(EPERM), E(ENOENT), E(ESRCH), E(EINTR), E(EIO), E(ENXIO), E(E2BIG), E(ENOEXEC),
	E(EBADF), E(ECHILD), E(EAGAIN), E(ENOMEM), E(EACCES), E(EFAULT), E(ENOTBLK),
	E(EBUSY), E(EEXIST), E(EXDEV), E(ENODEV), E(ENOTDIR), E(EISDIR), E(EINVAL),
	E(ENFILE), E(EMFILE), E(ENOTTY), E(ETXTBSY), E(EFBIG), E(ENOSPC), E(ESPIPE),
	E(EROFS), E(EMLINK), E(EPIPE), E(EDOM), E(ERANGE), E(EDEADLK), E(ENAMETOOLONG),
	E(ENOLCK), E(ENOSYS), E(ENOTEMPTY), E(ELOOP), E(ENOMSG), E(EIDRM), E(ECHRNG),
	E(EL2NSYNC), E(EL3HLT), E(EL3RST), E(ELNRNG), E(EUNATCH), E(ENOCSI), E(EL2HLT),
	E(EBADE), E(EBADR), E(EXFULL), E(ENOANO), E(EBADRQC), E(EBADSLT), E(EBFONT),
	E(ENOSTR), E(ENODATA), E(ETIME), E(ENOSR), E(ENONET), E(ENOPKG), E(EREMOTE),
	E(ENOLINK), E(EADV), E(ESRMNT), E(ECOMM), E(EPROTO), E(EMULTIHOP), E(EDOTDOT),
	E(EBADMSG), E(EOVERFLOW), E(ENOTUNIQ), E(EBADFD), E(EREMCHG), E(ELIBACC),
	E(ELIBBAD), E(ELIBSCN), E(ELIBMAX), E(ELIBEXEC), E(EILSEQ), E(ERESTART),
	E(ESTRPIPE), E(EUSERS), E(ENOTSOCK), E(EDESTADDRREQ), E(EMSGSIZE), E(EPROTOTYPE),
	E(ENOPROTOOPT), E(EPROTONOSUPPORT), E(ESOCKTNOSUPPORT), E(EOPNOTSUPP),
	E(EPFNOSUPPORT), E(EAFNOSUPPORT), E(EADDRINUSE), E(EADDRNOTAVAIL), E(ENETDOWN),
	E(ENETUNREACH), E(ENETRESET), E(ECONNABORTED), E(ECONNRESET), E(ENOBUFS),
	E(EISCONN), E(ENOTCONN), E(ESHUTDOWN), E(ETOOMANYREFS), E(ETIMEDOUT),
	E(ECONNREFUSED), E(EHOSTDOWN), E(EHOSTUNREACH), E(EALREADY), E(EINPROGRESS),
	E(ESTALE), E(EUCLEAN), E(ENOTNAM), E(ENAVAIL), E(EISNAM), E(EREMOTEIO), E(EDQUOT),
	E(ENOMEDIUM), E(EMEDIUMTYPE), E(ECANCELED), E(ENOKEY), E(EKEYEXPIRED),
	E(EKEYREVOKED), E(EKEYREJECTED), E(EOWNERDEAD), E(ENOTRECOVERABLE), E(ERFKILL),
	E(EHWPOISON),
};

/*
 * include/linux/errno.h: never meant for user space, but a sys_exit
 * tracepoint runs before signal delivery turns a restart into EINTR or
 * a restarted call.
 */
#define K(n, x) [(n) - KERNEL_ERRNO_FIRST] = #x
#define KERNEL_ERRNO_FIRST 512
static const char *const kernel_errno_names[] = {
	K(512, ERESTARTSYS), K(513, ERESTARTNOINTR), K(514, ERESTARTNOHAND),
	K(515, ENOIOCTLCMD), K(516, ERESTART_RESTARTBLOCK), K(517, EPROBE_DEFER),
	K(518, EOPENSTALE), K(519, ENOPARAM), K(521, EBADHANDLE), K(522, ENOTSYNC),
	K(523, EBADCOOKIE), K(524, ENOTSUPP), K(525, ETOOSMALL), K(526, ESERVERFAULT),
	K(527, EBADTYPE), K(528, EJUKEBOX), K(529, EIOCBQUEUED), K(530, ERECALLCONFLICT),
	K(531, ENOGRACE),
};

const char *errno_name(int64_t err)
{
	if (err > 0 && (uint64_t)err < N(errno_names))
		return errno_names[err];
	if (err >= KERNEL_ERRNO_FIRST && (uint64_t)(err - KERNEL_ERRNO_FIRST) < N(kernel_errno_names))
		return kernel_errno_names[err - KERNEL_ERRNO_FIRST];
	return NULL;
}
