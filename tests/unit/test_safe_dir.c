// SPDX-License-Identifier: BSD-3-Clause
/*
 * safe_dir: which paths another user could change. Modes and symlinks
 * here; a directory or link of another user needs root to make, and is
 * in tests/cli/manage.sh, which runs as root.
 */
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

#include "safe_dir.h"

static char base[PATH_MAX], canon[PATH_MAX], why[PATH_MAX + 64];

static const char *at(const char *rel)
{
	static char path[4][PATH_MAX];
	static int next;
	char *p = path[next++ % 4];

	snprintf(p, PATH_MAX, "%s/%s", base, rel);
	return p;
}

static void dir(const char *rel, mode_t mode)
{
	assert_int_equal(mkdir(at(rel), 0700), 0);
	/* chmod: the umask would take the group's and others' bits off */
	assert_int_equal(chmod(at(rel), mode), 0);
}

static int setup(void **state)
{
	char tmpl[] = "/tmp/iotrace-safe-dir-XXXXXX";

	(void)state;
	assert_non_null(mkdtemp(tmpl));
	/* base's own realpath: /tmp may be a link */
	assert_non_null(realpath(tmpl, base));
	dir("own", 0700);
	dir("open", 0777);
	dir("open/sub", 0700);
	dir("group", 0770);
	dir("sticky", 01777);
	dir("sticky/sub", 0755);
	assert_int_equal(symlink(at("own"), at("to-own")), 0);
	assert_int_equal(symlink(at("open/sub"), at("to-open")), 0);
	assert_int_equal(symlink("own", at("relative")), 0);
	return 0;
}

static int teardown(void **state)
{
	char cmd[PATH_MAX + 16];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	return system(cmd);
}

static void assert_safe(const char *path, const char *want_canon)
{
	why[0] = '\0';
	assert_int_equal(safe_dir__resolve(path, canon, sizeof(canon), why, sizeof(why)), 0);
	assert_string_equal(canon, want_canon);
	assert_string_equal(why, "");
}

static void assert_unsafe(const char *path, const char *want_why)
{
	why[0] = '\0';
	assert_int_equal(safe_dir__resolve(path, canon, sizeof(canon), why, sizeof(why)), 1);
	assert_string_equal(why, want_why);
}

static void own_directories(void **state)
{
	char path[PATH_MAX];

	(void)state;
	assert_safe(at("own"), at("own"));
	assert_safe("/", "/");
	/* a sticky directory above is fine: others add names there, never move ours */
	assert_safe(at("sticky/sub"), at("sticky/sub"));
	snprintf(path, sizeof(path), "%s//own/", base);
	assert_safe(path, at("own"));
	snprintf(path, sizeof(path), "%s/own/../own", base);
	assert_safe(path, at("own"));
}

static void writable_by_others(void **state)
{
	char want[PATH_MAX + 64];

	(void)state;
	snprintf(want, sizeof(want), "'%s' is writable by other users (mode 0777)", at("open"));
	assert_unsafe(at("open"), want);
	/* below it: open could have sub renamed away and a link put in its place */
	assert_unsafe(at("open/sub"), want);
	snprintf(want, sizeof(want), "'%s' is writable by other users (mode 0770)", at("group"));
	assert_unsafe(at("group"), want);
	/* sticky, but the repository itself: others could put their names beside ours */
	snprintf(want, sizeof(want), "'%s' is writable by other users (mode 1777)", at("sticky"));
	assert_unsafe(at("sticky"), want);
}

static void symlinks(void **state)
{
	char want[PATH_MAX + 64];

	(void)state;
	/* one's own link, to a safe place: the place is what the caller uses */
	assert_safe(at("to-own"), at("own"));
	assert_safe(at("relative"), at("own"));
	/* to an unsafe place: judged where it leads */
	snprintf(want, sizeof(want), "'%s' is writable by other users (mode 0777)", at("open"));
	assert_unsafe(at("to-open"), want);
}

static void not_directories(void **state)
{
	char want[PATH_MAX + 64];
	FILE *f;

	(void)state;
	f = fopen(at("own/file"), "w");
	assert_non_null(f);
	fclose(f);
	snprintf(want, sizeof(want), "'%s' is not a directory", at("own/file"));
	assert_unsafe(at("own/file"), want);
	assert_int_equal(safe_dir__resolve(at("own/none"), canon, sizeof(canon), why, sizeof(why)),
			 -ENOENT);
	assert_int_equal(safe_dir__resolve("relative/path", canon, sizeof(canon), why, sizeof(why)),
			 -EINVAL);
	/* canon too small for the answer */
	assert_int_equal(safe_dir__resolve(at("own"), canon, 4, why, sizeof(why)), -ENAMETOOLONG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(own_directories),
		cmocka_unit_test(writable_by_others),
		cmocka_unit_test(symlinks),
		cmocka_unit_test(not_directories),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
