// SPDX-License-Identifier: BSD-3-Clause
/* tags.notFollowed: the tag's words, and what the notes make of them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "not_followed.h"

static void test_tag_words(void **state)
{
	char buf[128];

	not_followed__tag(0, buf, sizeof(buf));
	assert_string_equal(buf, "");
	not_followed__tag(NF_DELETE | NF_MOVE, buf, sizeof(buf));
	assert_string_equal(buf, "delete,move");
	not_followed__tag(NF_URING_VFS | NF_URING_FILES, buf, sizeof(buf));
	assert_string_equal(buf, "io_uring-files,io_uring-vfs");
	not_followed__tag(NF_FILE_EVENTS | NF_VFS, buf, sizeof(buf));
	assert_string_equal(buf, "create,delete,move,io_uring-files,io_uring-vfs,"
				 "file-systems-over-limit");
	/* cut, not overrun */
	not_followed__tag(NF_FILE_EVENTS, buf, 10);
	assert_string_equal(buf, "create,de");
}

#define FS_OVER_LIMIT_TEXT \
	"the file events and --vfs records of the traced devices' partitions and file systems " \
	"past the tracer's limit"

/* not_followed__describe(tag, mask) into a buffer of size bytes says want */
static void describes(const char *tag, unsigned int mask, size_t size, const char *want)
{
	char buf[256];

	assert_true(size <= sizeof(buf));
	not_followed__describe(tag, mask, buf, size);
	assert_string_equal(buf, want);
}

static void test_describe(void **state)
{
	const unsigned int all = NF_FILE_EVENTS | NF_VFS;

	describes("delete,move", NF_FILE_EVENTS, 256, "Delete and Move events");
	describes("create,delete,move", NF_FILE_EVENTS, 256, "Create, Delete and Move events");
	/* in the table's order, blanks and empty words left out */
	describes(" io_uring-vfs, ,move ,io_uring-files", all, 256,
		  "Move events; io_uring's opens, unlinks and renames (their Create, Delete and "
		  "Move events); io_uring requests' --vfs records");
	/* a view says only what it lacks */
	describes("io_uring-files,io_uring-vfs", NF_VFS, 256, "io_uring requests' --vfs records");
	describes("io_uring-vfs", NF_FILE_EVENTS, 256, "");
	/* file systems past the list: their file events and their calls both */
	describes("file-systems-over-limit", NF_FILE_EVENTS, 256, FS_OVER_LIMIT_TEXT);
	describes("file-systems-over-limit,io_uring-files", NF_VFS, 256, FS_OVER_LIMIT_TEXT);
	describes("", all, 256, "");
}

/* A newer tracer's words are passed on as they are, to every view. */
static void test_unknown_words(void **state)
{
	describes("delete,fanotify,move,xattr", NF_VFS, 256, "fanotify; xattr");
	describes("delete,fanotify", NF_FILE_EVENTS, 256, "Delete events; fanotify");
	/* cut, not overrun */
	describes("delete,move,io_uring-files", NF_FILE_EVENTS, 20, "Delete and Move eve");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tag_words),
		cmocka_unit_test(test_describe),
		cmocka_unit_test(test_unknown_words),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
