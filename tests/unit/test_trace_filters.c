// SPDX-License-Identifier: BSD-3-Clause
/* --pids, --comm, --cgroup lists: parsing, limits, cgroup paths to ids. */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "trace_filters.h"

static char root[PATH_MAX];

static int setup(void **state)
{
	char path[PATH_MAX];

	strcpy(root, "/tmp/iotrace-filters-XXXXXX");
	if (!mkdtemp(root))
		return -1;
	snprintf(path, sizeof(path), "%s/system.slice", root);
	if (mkdir(path, 0700))
		return -1;
	snprintf(path, sizeof(path), "%s/system.slice/job42.scope", root);
	return mkdir(path, 0700);
}

static int teardown(void **state)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/system.slice/job42.scope", root);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/system.slice", root);
	rmdir(path);
	return rmdir(root);
}

static void test_pids(void **state)
{
	struct trace_filters f = {};
	char bad[64];

	assert_int_equal(trace_filters__parse_pids(&f, "1,42,4194304", bad, sizeof(bad)), 0);
	assert_int_equal(f.npids, 3);
	assert_int_equal(f.pids[0], 1);
	assert_int_equal(f.pids[1], 42);
	assert_int_equal(f.pids[2], 4194304);

	memset(&f, 0, sizeof(f));
	assert_int_equal(trace_filters__parse_pids(&f, "7,x9", bad, sizeof(bad)), -EINVAL);
	assert_string_equal(bad, "x9");
	assert_int_equal(trace_filters__parse_pids(&f, "7,", bad, sizeof(bad)), -EINVAL);
	assert_string_equal(bad, "");
	assert_int_equal(trace_filters__parse_pids(&f, "-3", bad, sizeof(bad)), -EINVAL);
	assert_int_equal(trace_filters__parse_pids(&f, "0", bad, sizeof(bad)), -ERANGE);
	assert_int_equal(trace_filters__parse_pids(&f, "4194305", bad, sizeof(bad)), -ERANGE);
	assert_int_equal(trace_filters__parse_pids(&f, "99999999999999999999999", bad, sizeof(bad)),
			 -ERANGE);
}

static void test_pids_limit(void **state)
{
	struct trace_filters f = {};
	char bad[64];

	assert_int_equal(trace_filters__parse_pids(&f, "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16",
						   bad, sizeof(bad)), 0);
	assert_int_equal(f.npids, TRACE_FILTER_MAX);
	assert_int_equal(trace_filters__parse_pids(&f, "17", bad, sizeof(bad)), -E2BIG);
}

static void test_comms(void **state)
{
	struct trace_filters f = {};
	char bad[64];

	assert_int_equal(trace_filters__parse_comms(&f, "fio,db_bench", bad, sizeof(bad)), 0);
	assert_int_equal(f.ncomms, 2);
	/* NUL-padded: the kernel compares all 16 bytes' prefix up to the NUL */
	assert_memory_equal(f.comms[1], "db_bench\0\0\0\0\0\0\0\0", IOTRACE_COMM_LEN);
	/* 15 bytes fit (the kernel keeps 15), 16 do not */
	assert_int_equal(trace_filters__parse_comms(&f, "abcdefghijklmno", bad, sizeof(bad)), 0);
	assert_int_equal(trace_filters__parse_comms(&f, "abcdefghijklmnop", bad, sizeof(bad)),
			 -ENAMETOOLONG);
	assert_string_equal(bad, "abcdefghijklmnop");
}

static void test_cgroups(void **state)
{
	struct trace_filters f = {};
	char bad[PATH_MAX], path[PATH_MAX], rel_abs[PATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "%s/system.slice/job42.scope", root);
	assert_int_equal(stat(path, &st), 0);

	/* relative to the root, absolute under it, /-rooted in the hierarchy, an id */
	snprintf(rel_abs, sizeof(rel_abs), "system.slice/job42.scope,%s,/system.slice/job42.scope,%llu",
		 path, (unsigned long long)st.st_ino);
	assert_int_equal(trace_filters__parse_cgroups(&f, rel_abs, root, bad, sizeof(bad)), 0);
	assert_int_equal(f.ncgroups, 4);
	assert_int_equal(f.cgroups[0], st.st_ino);
	assert_int_equal(f.cgroups[1], st.st_ino);
	assert_int_equal(f.cgroups[2], st.st_ino);
	assert_int_equal(f.cgroups[3], st.st_ino);

	assert_int_equal(trace_filters__parse_cgroups(&f, "system.slice/nope", root, bad, sizeof(bad)),
			 -ENOENT);
	assert_string_equal(bad, "system.slice/nope");
	/* a directory, but out of the cgroup tree */
	assert_int_equal(trace_filters__parse_cgroups(&f, "system.slice/../..", root, bad, sizeof(bad)),
			 -ENOENT);
	/* an id no cgroup has: the root's own directories are few */
	assert_int_equal(trace_filters__parse_cgroups(&f, "18446744073709551615", root, bad,
						      sizeof(bad)),
			 -ENOENT);
	assert_int_equal(trace_filters__parse_cgroups(&f, "0", root, bad, sizeof(bad)), -ENOENT);
}

/* The cgroup2 mount point from a mount table, escapes and all. */
static void test_cgroup2_root(void **state)
{
	char mounts[PATH_MAX], found[PATH_MAX];
	FILE *f;

	(void)state;
	snprintf(mounts, sizeof(mounts), "%s/mounts", root);
	f = fopen(mounts, "w");
	assert_non_null(f);
	fprintf(f, "proc /proc proc rw 0 0\n"
		   "cgroup /sys/fs/cgroup/cpu cgroup rw,cpu 0 0\n"
		   "cgroup2 /run/my\\040cgroups\\134v2 cgroup2 rw,nsdelegate 0 0\n"
		   "cgroup2 /second cgroup2 rw 0 0\n");
	assert_int_equal(fclose(f), 0);
	assert_ptr_equal(trace_filters__cgroup2_root(mounts, found, sizeof(found)), found);
	assert_string_equal(found, "/run/my cgroups\\v2");

	/*
	 * a container's own cgroup namespace listed first, the host's tree
	 * after it: the tree's root (inode 1, as the root of a tmpfs such
	 * as /dev/shm has it too) is taken
	 */
	f = fopen(mounts, "w");
	assert_non_null(f);
	fprintf(f, "cgroup2 %s cgroup2 rw 0 0\n"
		   "cgroup2 /dev/shm cgroup2 rw 0 0\n"
		   "cgroup2 /third cgroup2 rw 0 0\n", root);
	assert_int_equal(fclose(f), 0);
	assert_string_equal(trace_filters__cgroup2_root(mounts, found, sizeof(found)), "/dev/shm");

	/* no cgroup2 mount, or no table: the usual place */
	f = fopen(mounts, "w");
	assert_non_null(f);
	fprintf(f, "cgroup /sys/fs/cgroup/cpu cgroup rw,cpu 0 0\n");
	assert_int_equal(fclose(f), 0);
	assert_string_equal(trace_filters__cgroup2_root(mounts, found, sizeof(found)),
			    "/sys/fs/cgroup");
	assert_int_equal(unlink(mounts), 0);
	strcpy(found, "x");
	assert_string_equal(trace_filters__cgroup2_root(mounts, found, sizeof(found)),
			    "/sys/fs/cgroup");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pids),
		cmocka_unit_test(test_pids_limit),
		cmocka_unit_test(test_comms),
		cmocka_unit_test(test_cgroups),
		cmocka_unit_test(test_cgroup2_root),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
