// SPDX-License-Identifier: BSD-3-Clause
/* --paths: full paths from name chains and the mount table, globs, renames. */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "path_filter.h"

#define DEV IOTRACE_MKDEV(7, 3)

static char mountinfo[PATH_MAX];

static int setup(void **state)
{
	FILE *f;
	int fd;

	strcpy(mountinfo, "/tmp/iotrace-mountinfo-XXXXXX");
	fd = mkstemp(mountinfo);
	if (fd < 0)
		return -1;
	f = fdopen(fd, "w");
	/* a bind mount of a subdirectory first: only the whole file system counts */
	fputs("20 1 7:3 /sub /bind rw - ext4 /dev/loop3 rw\n"
	      "21 1 7:3 / /data rw,noatime - ext4 /dev/loop3 rw\n"
	      "22 1 254:0 / / rw - ext4 /dev/vda rw\n", f);
	return fclose(f);
}

static int teardown(void **state)
{
	return unlink(mountinfo);
}

static struct iotrace_file_id fid(__u64 ino)
{
	struct iotrace_file_id id = { .ino = ino, .dev = DEV };

	return id;
}

static void link_name(struct path_filter *pf, __u64 ino, __u64 parent, const char *name)
{
	struct iotrace_name_event n = {};

	n.file = fid(ino);
	n.parent = fid(parent);
	snprintf(n.name, sizeof(n.name), "%s", name);
	assert_int_equal(path_filter__add_name(pf, &n), 0);
}

static void test_paths_and_globs(void **state)
{
	struct path_filter *pf;
	struct iotrace_file_id id;
	char bad[64], path[PATH_MAX];

	assert_int_equal(path_filter__new(&pf, "/data/run42/*,/data/*.log", mountinfo, bad,
					  sizeof(bad)), 0);
	link_name(pf, 2, 2, "/");
	link_name(pf, 10, 2, "run42");
	link_name(pf, 11, 10, "deep");
	link_name(pf, 12, 11, "f.dat");
	link_name(pf, 13, 2, "x.log");
	link_name(pf, 14, 2, "other");

	id = fid(12);
	assert_true(path_filter__path(pf, &id, path, sizeof(path)));
	assert_string_equal(path, "/data/run42/deep/f.dat");
	assert_true(path_filter__match(pf, &id));	/* '*' crosses '/' */
	id = fid(13);
	assert_true(path_filter__match(pf, &id));
	id = fid(14);
	assert_false(path_filter__match(pf, &id));
	/* a chain with a gap, a device with no mount: unknown, no match */
	id = fid(99);
	assert_false(path_filter__match(pf, &id));
	id.dev = IOTRACE_MKDEV(8, 0);
	id.ino = 12;
	assert_false(path_filter__path(pf, &id, path, sizeof(path)));

	/*
	 * a file whose chain lacks a link (sent from another CPU, read
	 * later) does not match yet, and does once the link is learned:
	 * an incomplete chain leaves no verdict behind
	 */
	id = fid(16);
	link_name(pf, 16, 15, "g.dat");
	assert_false(path_filter__match(pf, &id));
	link_name(pf, 15, 10, "later");
	assert_true(path_filter__match(pf, &id));

	/* rename: 'other' moves under run42, the cached verdict is dropped */
	id = fid(14);
	link_name(pf, 14, 10, "other");
	assert_true(path_filter__match(pf, &id));
	path_filter__free(pf);
}

static void test_bad_patterns(void **state)
{
	struct path_filter *pf;
	char bad[64];

	assert_int_equal(path_filter__new(&pf, "/ok,relative/*", mountinfo, bad, sizeof(bad)),
			 -EINVAL);
	assert_string_equal(bad, "relative/*");
	assert_null(pf);
	assert_int_equal(path_filter__new(&pf, "/a,", mountinfo, bad, sizeof(bad)), -EINVAL);
	assert_int_equal(path_filter__new(&pf, "/a", "/nonexistent/mountinfo", bad, sizeof(bad)),
			 -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_paths_and_globs),
		cmocka_unit_test(test_bad_patterns),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
