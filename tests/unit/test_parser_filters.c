// SPDX-License-Identifier: BSD-3-Clause
/*
 * The parser's --cgroup, --device and --min/--max-latency values: what
 * each takes and refuses; a cgroup path resolved with those below it,
 * in a trace's names or under the cgroup2 mount a mounts file names (a
 * temporary directory here).
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

#include "cgroup_names.h"
#include "cli.h"
#include "parser_filters.h"

static char root[] = "/tmp/iotrace-pfilters-XXXXXX";
static char mounts[PATH_MAX], job[PATH_MAX], slice[PATH_MAX], step[PATH_MAX + 8];

static int setup(void **state)
{
	FILE *f;

	if (!mkdtemp(root))
		return -1;
	snprintf(slice, sizeof(slice), "%s/system.slice", root);
	snprintf(job, sizeof(job), "%s/job_42", slice);
	snprintf(step, sizeof(step), "%s/step_0", job);
	snprintf(mounts, sizeof(mounts), "%s/mounts", root);
	if (mkdir(slice, 0700) || mkdir(job, 0700) || mkdir(step, 0700))
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
	rmdir(step);
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

/* ids's keys, sorted, as "a,b,c" */
static const char *keys(const struct u64map *ids)
{
	static char out[256];
	uint64_t k[16], v, t;
	size_t pos = 0, n = 0, i, j, at = 0;

	while (n < 16 && u64map__next(ids, &pos, &k[n], &v))
		n++;
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			if (k[j] < k[i]) {
				t = k[i];
				k[i] = k[j];
				k[j] = t;
			}
	out[0] = '\0';
	for (i = 0; i < n; i++)
		at += (size_t)snprintf(out + at, sizeof(out) - at, "%s%llu", i ? "," : "",
				       (unsigned long long)k[i]);
	return out;
}

/* the ids val takes with names, as keys() gives them; "" with exit status *rc */
static const char *ids_of(const char *val, const struct cgroup_names *names, int *rc)
{
	static char out[256];
	struct u64map ids = { 0 };

	*rc = parser_filters__cgroup_ids(val, names, mounts, &ids);
	snprintf(out, sizeof(out), "%s", keys(&ids));
	u64map__free(&ids);
	return out;
}

static void test_cgroup_value(void **state)
{
	assert_int_equal(parser_filters__cgroup("123456789"), EXIT_OK);
	assert_int_equal(parser_filters__cgroup("system.slice/job_42"), EXIT_OK);
	assert_int_equal(parser_filters__cgroup("/system.slice"), EXIT_OK);
	assert_int_equal(parser_filters__cgroup(""), EXIT_USAGE);
	/* cgroup ids start at 1 and have 64 bits; a name may start with a digit */
	assert_int_equal(parser_filters__cgroup("0"), EXIT_USAGE);
	assert_int_equal(parser_filters__cgroup("18446744073709551616"), EXIT_USAGE);
	assert_int_equal(parser_filters__cgroup("42x"), EXIT_OK);
	/* one cgroup, not the tracer's list */
	assert_int_equal(parser_filters__cgroup("12,13"), EXIT_USAGE);
	assert_int_equal(parser_filters__cgroup("system.slice,system.slice/job_42"), EXIT_USAGE);
}

/* A trace without iotrace.cgroups: paths are this node's cgroups, with those below. */
static void test_cgroup_node(void **state)
{
	struct cgroup_names none = { 0 };
	char want[128], absolute[PATH_MAX + 16];
	int rc;

	snprintf(want, sizeof(want), "%llu,%llu", (unsigned long long)inode_of(job),
		 (unsigned long long)inode_of(step));
	if (inode_of(step) < inode_of(job))
		snprintf(want, sizeof(want), "%llu,%llu", (unsigned long long)inode_of(step),
			 (unsigned long long)inode_of(job));
	assert_string_equal(ids_of("system.slice/job_42", &none, &rc), want);
	assert_int_equal(rc, EXIT_OK);
	/* under the mount point, as the tracer's --cgroup takes it, and as /proc/PID/cgroup gives it */
	assert_string_equal(ids_of(job, &none, &rc), want);
	assert_string_equal(ids_of("/system.slice/job_42/", &none, &rc), want);
	ids_of("/system.slice", &none, &rc);
	assert_int_equal(rc, EXIT_OK);
	assert_true(strlen(ids_of("/system.slice", &none, &rc)) > strlen(want));
	/* a number is taken as given: the trace may come from another node */
	assert_string_equal(ids_of("123456789", &none, &rc), "123456789");
	assert_int_equal(rc, EXIT_OK);

	assert_string_equal(ids_of("system.slice/job_43", &none, &rc), "");
	assert_int_equal(rc, EXIT_USAGE);
	/* out of the cgroup tree: no cgroup */
	snprintf(absolute, sizeof(absolute), "%s/../", root);
	ids_of("..", &none, &rc);
	assert_int_equal(rc, EXIT_USAGE);
	ids_of(absolute, &none, &rc);
	assert_int_equal(rc, EXIT_USAGE);
}

/* A trace with iotrace.cgroups: judged by its names alone, never this node's ids. */
static void test_cgroup_trace(void **state)
{
	struct cgroup_names names = { .present = true };
	char absolute[PATH_MAX + 32];
	int rc;

	assert_int_equal(cgroup_names__add(&names, 100, "/system.slice"), 0);
	assert_int_equal(cgroup_names__add(&names, 101, "/system.slice/job_42/step_0"), 0);
	assert_int_equal(cgroup_names__add(&names, 102, "/system.slice/job_420"), 0);
	assert_int_equal(cgroup_names__add(&names, 103, "/other"), 0);

	/* the job's own cgroup held no task: its step's */
	assert_string_equal(ids_of("system.slice/job_42", &names, &rc), "101");
	assert_int_equal(rc, EXIT_OK);
	assert_string_equal(ids_of("/system.slice/", &names, &rc), "100,101,102");
	snprintf(absolute, sizeof(absolute), "%s/system.slice/job_42", root);
	assert_string_equal(ids_of(absolute, &names, &rc), "101");
	assert_string_equal(ids_of("/", &names, &rc), "100,101,102,103");
	/* an id the trace names takes those below it; one it does not, itself */
	assert_string_equal(ids_of("100", &names, &rc), "100,101,102");
	assert_string_equal(ids_of("55", &names, &rc), "55");
	assert_int_equal(rc, EXIT_OK);
	/* on this node, but not in the trace */
	assert_string_equal(ids_of("system.slice/job_42/other", &names, &rc), "");
	assert_int_equal(rc, EXIT_USAGE);
	cgroup_names__free(&names);
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
		cmocka_unit_test(test_cgroup_value),
		cmocka_unit_test(test_cgroup_node),
		cmocka_unit_test(test_cgroup_trace),
		cmocka_unit_test(test_device),
		cmocka_unit_test(test_latency),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
