// SPDX-License-Identifier: BSD-3-Clause
/*
 * What the views say about a VFS call: every VfsCall's name, io_uring
 * requests by opcode, the kind each call counts as, errno names (the
 * kernel's restart codes included).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "trace.pb-c.h"
#include "vfs_call.h"

#define VFS(x) OCTF__PROTO__TRACE__VFS_CALL__Vfs##x

static void test_names(void **state)
{
	int c;

	assert_string_equal(vfs_call__name(VFS(Read), 0), "read");
	assert_string_equal(vfs_call__name(VFS(Pread64), 0), "pread64");
	assert_string_equal(vfs_call__name(VFS(Openat2), 0), "openat2");
	assert_string_equal(vfs_call__name(VFS(SyncFileRange), 0), "sync_file_range");
	assert_string_equal(vfs_call__name(VFS(CopyFileRange), 0), "copy_file_range");
	assert_string_equal(vfs_call__name(VFS(Splice), 0), "splice");
	assert_string_equal(vfs_call__name(VFS(Unknown), 0), "unknown");
	/* every call of the schema has a name */
	for (c = 0; c <= VFS(Renameat2); c++)
		assert_non_null(vfs_call__name(c, 0));
	assert_string_equal(vfs_call__name(VFS(Unlinkat), 0), "unlinkat");
	assert_string_equal(vfs_call__name(VFS(Renameat2), 0), "renameat2");
	/* newer than us: the caller prints the number */
	assert_null(vfs_call__name(VFS(Renameat2) + 1, 0));
	assert_null(vfs_call__name(-1, 0));

	/* io_uring: the opcode's name; 0 (a trace without opcodes) keeps the call's */
	assert_string_equal(vfs_call__name(VFS(UringRead), 0), "io_uring:read");
	assert_string_equal(vfs_call__name(VFS(UringRead), 4), "io_uring:read_fixed");
	assert_string_equal(vfs_call__name(VFS(UringWrite), 23), "io_uring:write");
	assert_string_equal(vfs_call__name(VFS(UringOther), 18), "io_uring:openat");
	assert_string_equal(vfs_call__name(VFS(UringOther), 62), "io_uring:pipe");
	assert_string_equal(vfs_call__name(VFS(UringOther), 63), "io_uring:other");
	/* an opcode means nothing on a syscall */
	assert_string_equal(vfs_call__name(VFS(Read), 4), "read");
}

static void test_kinds(void **state)
{
	assert_int_equal(vfs_call__op(VFS(Open), 0), VOP_OPEN);
	assert_int_equal(vfs_call__op(VFS(Creat), 0), VOP_OPEN);
	assert_int_equal(vfs_call__op(VFS(Close), 0), VOP_CLOSE);
	assert_int_equal(vfs_call__op(VFS(Preadv2), 0), VOP_READ);
	assert_int_equal(vfs_call__op(VFS(Sendfile), 0), VOP_READ);
	assert_int_equal(vfs_call__op(VFS(Pwritev2), 0), VOP_WRITE);
	assert_int_equal(vfs_call__op(VFS(Lseek), 0), VOP_SEEK);
	assert_int_equal(vfs_call__op(VFS(Fdatasync), 0), VOP_SYNC);
	assert_int_equal(vfs_call__op(VFS(Msync), 0), VOP_SYNC);
	assert_int_equal(vfs_call__op(VFS(Mmap), 0), VOP_MMAP);
	assert_int_equal(vfs_call__op(VFS(Fallocate), 0), VOP_OTHER);
	assert_int_equal(vfs_call__op(VFS(Ftruncate), 0), VOP_OTHER);
	assert_int_equal(vfs_call__op(VFS(UringRead), 4), VOP_READ);
	assert_int_equal(vfs_call__op(VFS(UringWrite), 0), VOP_WRITE);
	assert_int_equal(vfs_call__op(VFS(UringFsync), 0), VOP_SYNC);
	assert_int_equal(vfs_call__op(VFS(UringOther), 18), VOP_OPEN);
	assert_int_equal(vfs_call__op(VFS(UringOther), 28), VOP_OPEN);
	assert_int_equal(vfs_call__op(VFS(UringOther), 19), VOP_CLOSE);
	assert_int_equal(vfs_call__op(VFS(UringOther), 8), VOP_SYNC);
	assert_int_equal(vfs_call__op(VFS(UringOther), 21), VOP_OTHER);
	assert_int_equal(vfs_call__op(VFS(Unknown), 0), VOP_OTHER);
	assert_int_equal(vfs_call__op(1000, 0), VOP_OTHER);

	assert_true(vfs_call__has_output(VFS(CopyFileRange)));
	assert_true(vfs_call__has_output(VFS(Sendfile)));
	assert_true(vfs_call__has_output(VFS(Splice)));
	assert_false(vfs_call__has_output(VFS(Pread64)));
	assert_true(vfs_call__opens(VFS(Openat), 0));
	assert_true(vfs_call__opens(VFS(UringOther), 18));
	assert_true(vfs_call__opens(VFS(UringOther), 28));
	assert_false(vfs_call__opens(VFS(UringOther), 19));
	assert_false(vfs_call__opens(VFS(UringRead), 18));
	assert_true(vfs_call__is_uring(VFS(UringFsync)));
	assert_false(vfs_call__is_uring(VFS(Splice)));
	assert_string_equal(vfs_op_name[VOP_SEEK], "seek");
}

static void test_errno_names(void **state)
{
	assert_string_equal(errno_name(ENOENT), "ENOENT");
	assert_string_equal(errno_name(EAGAIN), "EAGAIN");
	assert_string_equal(errno_name(ENOSPC), "ENOSPC");
	assert_string_equal(errno_name(EDQUOT), "EDQUOT");
	assert_string_equal(errno_name(EHWPOISON), "EHWPOISON");
	assert_string_equal(errno_name(512), "ERESTARTSYS");
	assert_string_equal(errno_name(516), "ERESTART_RESTARTBLOCK");
	assert_string_equal(errno_name(524), "ENOTSUPP");
	assert_string_equal(errno_name(529), "EIOCBQUEUED");
	assert_null(errno_name(0));
	assert_null(errno_name(-2));
	assert_null(errno_name(41));	/* a hole in the table */
	assert_null(errno_name(520));
	assert_null(errno_name(4095));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_kinds),
		cmocka_unit_test(test_errno_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
