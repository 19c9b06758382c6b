// SPDX-License-Identifier: BSD-3-Clause
/*
 * The parser's --cgroup, --device and --min/--max-latency values: what
 * each takes and refuses, a cgroup directory resolved under the cgroup2
 * mount a mounts file names (a temporary directory here).
 */
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

#include "cli.h"
#include "parser_filters.h"

static char root[] = "/tmp/iotrace-pfilters-XXXXXX";
static char mounts[PATH_MAX], job[PATH_MAX], slice[PATH_MAX];

static int setup(void **state)
{
	FILE *f;

	if (!mkdtemp(root))
		return -1;
	snprintf(slice, sizeof(slice), "%s/system.slice", root);
	snprintf(job, sizeof(job), "%s/job_42", slice);
	snprintf(mounts, sizeof(mounts), "%s/mounts", root);
	if (mkdir(slice, 0700) || mkdir(job, 0700))
		return -1;
	f = fopen(mounts, "w");
	if (!f)
		return -1;
	fprintf(f, "proc /proc proc rw 0 0\ncgroup2 %s cgroup2 rw 0 0\n", root);
	return fclose(f);
}

static int teardown(void **state)
{
	unlink(mounts);
	rmdir(job);
	rmdir(slice);
	return rmdir(root);
}

static uint64_t inode_of(const char *path)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	return (uint64_t)st.st_ino;
}

static void test_cgroup(void **state)
{
	char absolute[PATH_MAX + 16];
	uint64_t id = 7;

	/* a number is taken as given: the trace may come from another node */
	assert_int_equal(parser_filters__cgroup("123456789", mounts, &id), EXIT_OK);
	assert_int_equal(id, 123456789);
	assert_int_equal(parser_filters__cgroup("system.slice/job_42", mounts, &id), EXIT_OK);
	assert_int_equal(id, inode_of(job));
	assert_int_equal(parser_filters__cgroup(job, mounts, &id), EXIT_OK);
	assert_int_equal(id, inode_of(job));
	/* under the mount point, as the tracer's --cgroup takes it */
	assert_int_equal(parser_filters__cgroup("/system.slice", mounts, &id), EXIT_OK);
	assert_int_equal(id, inode_of(slice));

	id = 7;
	assert_int_equal(parser_filters__cgroup("system.slice/job_43", mounts, &id), EXIT_USAGE);
	assert_int_equal(parser_filters__cgroup("", mounts, &id), EXIT_USAGE);
	assert_int_equal(parser_filters__cgroup("0", mounts, &id), EXIT_USAGE);
	assert_int_equal(parser_filters__cgroup("-5", mounts, &id), EXIT_USAGE);
	/* one cgroup, not the tracer's list */
	assert_int_equal(parser_filters__cgroup("12,13", mounts, &id), EXIT_USAGE);
	assert_int_equal(parser_filters__cgroup("system.slice,system.slice/job_42", mounts, &id),
			 EXIT_USAGE);
	/* out of the cgroup tree: no cgroup */
	snprintf(absolute, sizeof(absolute), "%s/../", root);
	assert_int_equal(parser_filters__cgroup("..", mounts, &id), EXIT_USAGE);
	assert_int_equal(parser_filters__cgroup(absolute, mounts, &id), EXIT_USAGE);
	assert_int_equal(id, 7);
}

static void test_device(void **state)
{
	const char *name = NULL;

	assert_int_equal(parser_filters__device("nvme0n1", &name), EXIT_OK);
	assert_string_equal(name, "nvme0n1");
	assert_int_equal(parser_filters__device("/dev/sdb", &name), EXIT_OK);
	assert_string_equal(name, "sdb");
	assert_int_equal(parser_filters__device("", &name), EXIT_USAGE);
	assert_int_equal(parser_filters__device("/dev/", &name), EXIT_USAGE);
	assert_int_equal(parser_filters__device("/dev/mapper/vg-lv", &name), EXIT_USAGE);
	assert_int_equal(parser_filters__device("sda,sdb", &name), EXIT_USAGE);
	assert_string_equal(name, "sdb");
}

static void test_latency(void **state)
{
	uint64_t ns = 7;

	assert_int_equal(parser_filters__latency("--min-latency", "10ms", &ns), EXIT_OK);
	assert_int_equal(ns, 10000000);
	assert_int_equal(parser_filters__latency("--max-latency", "1.5s", &ns), EXIT_OK);
	assert_int_equal(ns, 1500000000);
	assert_int_equal(parser_filters__latency("--min-latency", "10", &ns), EXIT_USAGE);
	assert_int_equal(parser_filters__latency("--min-latency", "fast", &ns), EXIT_USAGE);
	assert_int_equal(ns, 1500000000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cgroup),
		cmocka_unit_test(test_device),
		cmocka_unit_test(test_latency),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
