// SPDX-License-Identifier: BSD-3-Clause
/*
 * File names and paths: the root, nesting, a file id that includes the
 * creation time (a reused inode is another file), renames seen by cached
 * paths, partial paths completed later, overlong chains.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "file_names.h"

static struct file_id id(uint64_t ino, int64_t sec)
{
	struct file_id f = { .part = 8388609, .ino = ino, .sec = sec, .nsec = 5 };

	return f;
}

static const char *path(struct file_names *fn, uint64_t ino, int64_t sec)
{
	struct file_id f = id(ino, sec);
	size_t len;
	const char *p = file_names__path(fn, file_names__get(fn, &f), &len);

	if (p)
		assert_int_equal(strlen(p), len);
	return p;
}

static void set(struct file_names *fn, uint64_t ino, uint64_t parent, const char *name)
{
	struct file_id a = id(ino, 1), b = id(parent, 1);

	assert_int_equal(file_names__set_name(fn, &a, &b, name), 0);
}

static void test_paths(void **state)
{
	struct file_names *fn = file_names__new();
	struct file_id f = id(3, 2);

	assert_non_null(fn);
	set(fn, 2, 2, "/");
	set(fn, 10, 2, "var");
	set(fn, 11, 10, "lib");
	set(fn, 12, 11, "db.sqlite");
	assert_string_equal(path(fn, 2, 1), "/");
	assert_string_equal(path(fn, 10, 1), "/var");
	assert_string_equal(path(fn, 12, 1), "/var/lib/db.sqlite");
	/* same inode, another creation time: another file, never named */
	assert_null(path(fn, 12, 2));
	assert_non_null(file_names__get(fn, &f));
	assert_int_equal(file_node__size(file_names__get(fn, &f)), 0);
	file_node__set_size(file_names__get(fn, &f), 99);
	assert_int_equal(file_node__size(file_names__get(fn, &f)), 99);

	/* a rename up the chain reaches the cached path below it */
	set(fn, 11, 10, "cache");
	assert_string_equal(path(fn, 12, 1), "/var/cache/db.sqlite");
	/* moved to another directory */
	set(fn, 12, 2, "db.sqlite");
	assert_string_equal(path(fn, 12, 1), "/db.sqlite");
	/* the same name again changes nothing */
	set(fn, 12, 2, "db.sqlite");
	assert_string_equal(path(fn, 12, 1), "/db.sqlite");

	/* a parent not named yet: the known part, then the whole */
	set(fn, 20, 21, "x.log");
	assert_string_equal(path(fn, 20, 1), "x.log");
	set(fn, 21, 10, "log");
	assert_string_equal(path(fn, 20, 1), "/var/log/x.log");
	file_names__free(fn);
	file_names__free(NULL);
}

/* A chain longer than FILE_PATH_MAX is cut at the top: partial. */
static void test_long_chain(void **state)
{
	struct file_names *fn = file_names__new();
	char name[200];
	const char *p;
	uint64_t i;

	memset(name, 'n', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	set(fn, 1, 1, "/");
	for (i = 2; i < 100; i++)
		set(fn, i, i - 1, name);
	p = path(fn, 99, 1);
	assert_non_null(p);
	assert_true(strlen(p) <= FILE_PATH_MAX);
	assert_true(p[0] != '/');
	file_names__free(fn);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_paths),
		cmocka_unit_test(test_long_chain),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
