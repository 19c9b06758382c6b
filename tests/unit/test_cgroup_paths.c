// SPDX-License-Identifier: BSD-3-Clause
/*
 * The collector's cgroup paths where there is nothing to look up: no
 * cgroup2 mount (a v1-only node's /sys/fs/cgroup is a tmpfs, whose inode
 * numbers are no cgroup's), a struct never set up, closed twice. A real
 * cgroup tree is tests/integration/cgroup_tree.sh's.
 */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "cgroup_names.h"
#include "cgroup_paths.h"

static char dir[] = "/tmp/iotrace-cgpaths-XXXXXX";
static char sub[PATH_MAX], file[PATH_MAX];

static int setup(void **state)
{
	if (!mkdtemp(dir))
		return -1;
	snprintf(sub, sizeof(sub), "%s/job_1", dir);
	snprintf(file, sizeof(file), "%s/%s", dir, CGROUP_NAMES_FILE);
	return mkdir(sub, 0700);
}

static int teardown(void **state)
{
	unlink(file);
	rmdir(sub);
	return rmdir(dir);
}

static void test_not_cgroup2(void **state)
{
	struct cgroup_paths cp;
	struct stat st;

	assert_int_equal(stat(sub, &st), 0);
	/* a directory of this file system is no cgroup, though its inode numbers look like ids */
	assert_int_equal(cgroup_paths__init(&cp, dir, dir), 0);
	assert_int_equal(cp.root_fd, -1);
	cgroup_paths__note(&cp, (uint64_t)st.st_ino);
	cgroup_paths__note(&cp, 1);
	assert_int_equal(cgroup_paths__close(&cp), 0);
	assert_int_equal(access(file, F_OK), -1);

	assert_int_equal(cgroup_paths__init(&cp, dir, NULL), 0);
	assert_int_equal(cp.root_fd, -1);
	cgroup_paths__note(&cp, 1);
	assert_int_equal(cgroup_paths__close(&cp), 0);
	assert_int_equal(access(file, F_OK), -1);
}

static void test_zeroed(void **state)
{
	struct cgroup_paths cp;

	/* fd 0 open, whatever the test runner left there */
	if (fcntl(0, F_GETFD) < 0)
		assert_int_equal(open("/dev/null", O_RDONLY), 0);
	/* the collector's, before it opens its trace: its 0s are no fds */
	memset(&cp, 0, sizeof(cp));
	cgroup_paths__note(&cp, 5);
	assert_int_equal(cgroup_paths__close(&cp), 0);
	assert_int_equal(cgroup_paths__close(&cp), 0);
	assert_true(fcntl(0, F_GETFD) >= 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_not_cgroup2),
		cmocka_unit_test(test_zeroed),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
