// SPDX-License-Identifier: BSD-3-Clause
/*
 * A trace's iotrace.cgroups: lines written as the collector writes them
 * read back to the same paths (tabs, newlines and backslashes in names
 * too), damaged and cut lines stop the reading with what came before
 * kept, and a cgroup's subtree is whole path components.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cgroup_names.h"

static char dir[] = "/tmp/iotrace-cgnames-XXXXXX";
static char file[PATH_MAX];

static int setup(void **state)
{
	if (!mkdtemp(dir))
		return -1;
	snprintf(file, sizeof(file), "%s/%s", dir, CGROUP_NAMES_FILE);
	return 0;
}

static int teardown(void **state)
{
	unlink(file);
	return rmdir(dir);
}

static void write_file(const char *text)
{
	FILE *f = fopen(file, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void test_round_trip(void **state)
{
	static const char *const paths[] = { "/", "/system.slice/slurmstepd.scope/job_42/step_0",
					     "/odd\tname\nwith\\all", "/\xc3\xa9t\xc3\xa9" };
	struct cgroup_names cn = { 0 };
	char line[256], text[1024] = CGROUP_NAMES_HEAD;
	size_t i, bad = 0;

	for (i = 0; i < 4; i++) {
		assert_true(cgroup_names__line(line, sizeof(line), 1000 + i, paths[i]) > 0);
		/* one line each, whatever the name holds */
		assert_non_null(strchr(line, '\n'));
		assert_null(strchr(strchr(line, '\n') + 1, '\n'));
		strcat(text, line);
	}
	assert_string_equal(text + strlen(CGROUP_NAMES_HEAD),
			    "1000\t/\n1001\t/system.slice/slurmstepd.scope/job_42/step_0\n"
			    "1002\t/odd\\011name\\012with\\134all\n1003\t/\xc3\xa9t\xc3\xa9\n");
	write_file(text);
	assert_int_equal(cgroup_names__load(&cn, dir, &bad), 0);
	assert_true(cn.present);
	for (i = 0; i < 4; i++)
		assert_string_equal(cgroup_names__path(&cn, 1000 + i), paths[i]);
	assert_null(cgroup_names__path(&cn, 999));
	cgroup_names__free(&cn);

	/* a line that does not fit is none, not a cut one */
	assert_int_equal(cgroup_names__line(line, 12, 1001, paths[1]), 0);
	assert_int_equal(cgroup_names__line(line, 8, 1002, "/a\tb"), 0);
}

static void test_damaged(void **state)
{
	struct cgroup_names cn = { 0 };
	size_t bad = 0;

	/* no file: an older trace, or Open-CAS's */
	unlink(file);
	assert_int_equal(cgroup_names__load(&cn, dir, &bad), 0);
	assert_false(cn.present);
	assert_int_equal(cn.count, 0);

	write_file("# comment\n5\t/a\nx5\t/b\n6\t/c\n");
	assert_int_equal(cgroup_names__load(&cn, dir, &bad), -EINVAL);
	assert_int_equal(bad, 3);
	assert_string_equal(cgroup_names__path(&cn, 5), "/a");
	assert_null(cgroup_names__path(&cn, 6));
	cgroup_names__free(&cn);

	/* a path that is not one, a bad escape, no tab */
	write_file("7\tb\n");
	assert_int_equal(cgroup_names__load(&cn, dir, &bad), -EINVAL);
	cgroup_names__free(&cn);
	write_file("7\t/b\\09\n");
	assert_int_equal(cgroup_names__load(&cn, dir, &bad), -EINVAL);
	cgroup_names__free(&cn);
	write_file("7 /b\n");
	assert_int_equal(cgroup_names__load(&cn, dir, &bad), -EINVAL);
	cgroup_names__free(&cn);

	/* the last line cut: "/job_4" may be the start of "/job_42" */
	write_file("8\t/job_1\n9\t/job_4");
	assert_int_equal(cgroup_names__load(&cn, dir, &bad), -EINVAL);
	assert_int_equal(bad, 2);
	assert_string_equal(cgroup_names__path(&cn, 8), "/job_1");
	assert_null(cgroup_names__path(&cn, 9));
	cgroup_names__free(&cn);
}

static void test_subtree(void **state)
{
	struct cgroup_names cn = { 0 };
	struct u64map ids = { 0 };
	uint64_t v;

	assert_int_equal(cgroup_names__add(&cn, 1, "/"), 0);
	assert_int_equal(cgroup_names__add(&cn, 2, "/a/b"), 0);
	assert_int_equal(cgroup_names__add(&cn, 3, "/a/bc"), 0);
	assert_int_equal(cgroup_names__add(&cn, 4, "/a/b/c"), 0);
	/* a path given again replaces the first */
	assert_int_equal(cgroup_names__add(&cn, 4, "/a/b/d"), 0);
	assert_string_equal(cgroup_names__path(&cn, 4), "/a/b/d");

	/* whole components: a mount root, "/" itself */
	assert_true(cgroup_names__within("/sys/fs/cgroup/a", "/sys/fs/cgroup", 14));
	assert_true(cgroup_names__within("/sys/fs/cgroup", "/sys/fs/cgroup", 14));
	assert_false(cgroup_names__within("/sys/fs/cgroupx/a", "/sys/fs/cgroup", 14));
	assert_false(cgroup_names__within("/sys/fs", "/sys/fs/cgroup", 14));
	assert_true(cgroup_names__within("/x", "/", 1));
	assert_false(cgroup_names__within("x", "/", 1));

	assert_int_equal(cgroup_names__subtree(&cn, "/a/b/", &ids), 2);
	assert_true(u64map__get(&ids, 2, &v) && u64map__get(&ids, 4, &v));
	assert_false(u64map__get(&ids, 3, &v));
	u64map__free(&ids);
	assert_int_equal(cgroup_names__subtree(&cn, "/", &ids), 4);
	u64map__free(&ids);
	assert_int_equal(cgroup_names__subtree(&cn, "/a", &ids), 3);
	u64map__free(&ids);
	assert_int_equal(cgroup_names__subtree(&cn, "/a/b/c", &ids), 0);
	u64map__free(&ids);
	cgroup_names__free(&cn);
}

/* --cgroup-depth: each cgroup counts for its named ancestor at that level, or for itself. */
static void test_rollup(void **state)
{
	struct cgroup_names cn = { 0 };
	struct u64map up = { 0 };
	uint64_t v;

	assert_int_equal(cgroup_names__add(&cn, 1, "/"), 0);
	assert_int_equal(cgroup_names__add(&cn, 10, "/slurm"), 0);
	assert_int_equal(cgroup_names__add(&cn, 11, "/slurm/job_1"), 0);
	assert_int_equal(cgroup_names__add(&cn, 12, "/slurm/job_1/step_0"), 0);
	assert_int_equal(cgroup_names__add(&cn, 13, "/slurm/job_1/step_0/task_0"), 0);
	assert_int_equal(cgroup_names__add(&cn, 14, "/slurm/job_10/step_0"), 0);
	assert_int_equal(cgroup_names__add(&cn, 20, "/user.slice"), 0);

	assert_int_equal(cgroup_names__rollup(&cn, 2, &up), 0);
	assert_true(u64map__get(&up, 12, &v) && v == 11);
	assert_true(u64map__get(&up, 13, &v) && v == 11);
	/* at the level or above it: itself (no entry) */
	assert_false(u64map__get(&up, 11, &v));
	assert_false(u64map__get(&up, 10, &v));
	assert_false(u64map__get(&up, 1, &v));
	assert_false(u64map__get(&up, 20, &v));
	/* job_10 is not job_1's, and is not named: its step stays itself */
	assert_false(u64map__get(&up, 14, &v));
	u64map__free(&up);

	assert_int_equal(cgroup_names__rollup(&cn, 1, &up), 0);
	assert_true(u64map__get(&up, 13, &v) && v == 10);
	assert_true(u64map__get(&up, 14, &v) && v == 10);
	assert_false(u64map__get(&up, 20, &v));
	u64map__free(&up);
	cgroup_names__free(&cn);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_damaged),
		cmocka_unit_test(test_subtree),
		cmocka_unit_test(test_rollup),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
