// SPDX-License-Identifier: BSD-3-Clause
/* The trace repository: root selection, layout, listing, safe removal, lock. */
#include <errno.h>
#include <fcntl.h>
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

#include "trace_store.h"

/* why the store refused a path another user could change (safe_dir.h) */
static char why[PATH_MAX + 64];

static char base[PATH_MAX], repo[PATH_MAX], outside[PATH_MAX];

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void touch(const char *path)
{
	put(path, "x");
}

static void write_summary(const char *rel, const char *state)
{
	char path[PATH_MAX], text[PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/%s/octf.summary", repo, rel);
	snprintf(text, sizeof(text),
		 "{\"tracePath\": \"%s\", \"state\": \"%s\", \"droppedEvents\": \"0\"}\n", rel,
		 state);
	put(path, text);
}

/* a trace that ended: its summary says COMPLETE */
static void make_trace(const char *rel)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", repo, rel);
	assert_int_equal(mkdir(path, 0700), 0);
	write_summary(rel, "COMPLETE");
	snprintf(path, sizeof(path), "%s/%s/octf.trace.0", repo, rel);
	touch(path);
}

static bool trace_file_there(const char *rel, const char *file)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s/%s", repo, rel, file);
	return !access(path, F_OK);
}

static int setup(void **state)
{
	char path[PATH_MAX];

	strcpy(base, "/tmp/iotrace-store-XXXXXX");
	if (!mkdtemp(base))
		return -1;
	snprintf(repo, sizeof(repo), "%s/repo", base);
	snprintf(outside, sizeof(outside), "%s/outside", base);
	mkdir(repo, 0700);
	mkdir(outside, 0700);
	snprintf(path, sizeof(path), "%s/kernel", repo);
	mkdir(path, 0700);
	setenv("IOTRACE_TRACE_DIR", repo, 1);
	snprintf(path, sizeof(path), "%s/iotrace.conf", base);
	setenv("IOTRACE_CONFIG", path, 1);
	snprintf(path, sizeof(path), "%s/lock", base);
	setenv("IOTRACE_LOCK_FILE", path, 1);
	return 0;
}

static int teardown(void **state)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	return system(cmd);
}

static void test_root_selection(void **state)
{
	char root[PATH_MAX];

	assert_int_equal(store__root(root, sizeof(root)), 0);
	assert_string_equal(root, repo);

	unsetenv("IOTRACE_TRACE_DIR");
	assert_int_equal(store__root(root, sizeof(root)), 0);
	assert_string_equal(root, STORE_DEFAULT_ROOT);
	assert_int_equal(store__set_root(outside, why, sizeof(why)), 0);
	assert_int_equal(store__root(root, sizeof(root)), 0);
	assert_string_equal(root, outside);
	assert_int_equal(store__set_root("relative", why, sizeof(why)), -EINVAL);
	setenv("IOTRACE_TRACE_DIR", repo, 1);
}

/* what the config file could not give back, or that is no directory, is not saved */
static void test_set_root_checks(void **state)
{
	char root[PATH_MAX], path[PATH_MAX], file[PATH_MAX], spaced[PATH_MAX];
	char *long_path = malloc(5002);

	unsetenv("IOTRACE_TRACE_DIR");
	assert_int_equal(store__set_root(outside, why, sizeof(why)), 0);
	snprintf(file, sizeof(file), "%s/afile", base);
	touch(file);
	assert_int_equal(store__set_root(file, why, sizeof(why)), -ENOTDIR);
	snprintf(path, sizeof(path), "%s/none", base);
	assert_int_equal(store__set_root(path, why, sizeof(why)), -ENOENT);
	snprintf(path, sizeof(path), "%s\ny", outside);
	assert_int_equal(store__set_root(path, why, sizeof(why)), -EILSEQ);
	snprintf(path, sizeof(path), "%s\t", outside);
	assert_int_equal(store__set_root(path, why, sizeof(why)), -EILSEQ);
	snprintf(path, sizeof(path), "%s/a b ", base);
	assert_int_equal(mkdir(path, 0700), 0);
	assert_int_equal(store__set_root(path, why, sizeof(why)), -EILSEQ);
	assert_non_null(long_path);
	long_path[0] = '/';
	memset(long_path + 1, 'a', 5000);
	long_path[5001] = 0;
	assert_int_equal(store__set_root(long_path, why, sizeof(why)), -ENAMETOOLONG);
	free(long_path);
	assert_int_equal(store__set_root("/", why, sizeof(why)), -EPERM);
	assert_int_equal(store__set_root("//", why, sizeof(why)), -EPERM);
	assert_int_equal(store__set_root("/tmp/..", why, sizeof(why)), -EPERM);
	assert_int_equal(store__set_root("", why, sizeof(why)), -EINVAL);
	assert_int_equal(store__root(root, sizeof(root)), 0);
	assert_string_equal(root, outside);

	/* blanks inside and a '#' come back as they were */
	snprintf(spaced, sizeof(spaced), "%s/ a  b #c", base);
	assert_int_equal(mkdir(spaced, 0700), 0);
	assert_int_equal(store__set_root(spaced, why, sizeof(why)), 0);
	assert_int_equal(store__root(root, sizeof(root)), 0);
	assert_string_equal(root, spaced);
	setenv("IOTRACE_TRACE_DIR", repo, 1);
}

static void test_create_layout(void **state)
{
	char dir[PATH_MAX], rel[PATH_MAX], dir2[PATH_MAX], rel2[PATH_MAX];
	struct stat st;
	int y, mo, d, h, mi, s;

	assert_int_equal(store__create_trace(dir, sizeof(dir), rel, sizeof(rel), why, sizeof(why)), 0);
	assert_int_equal(sscanf(rel, "kernel/%4d-%2d-%2d_%2d:%2d:%2d", &y, &mo, &d, &h, &mi, &s), 6);
	assert_int_equal(strlen(rel), strlen("kernel/2026-11-21_06:00:00"));
	assert_int_equal(stat(dir, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(st.st_mode & 0777, 0700);
	/* a second trace in the same second gets a suffix instead of sharing the directory */
	assert_int_equal(store__create_trace(dir2, sizeof(dir2), rel2, sizeof(rel2), why, sizeof(why)), 0);
	assert_string_not_equal(dir, dir2);
}

static void test_resolve(void **state)
{
	char out[PATH_MAX], path[PATH_MAX];

	make_trace("kernel/t1");
	assert_int_equal(store__resolve("kernel/t1", out, sizeof(out)), 0);
	snprintf(path, sizeof(path), "%s/kernel/t1", repo);
	assert_string_equal(out, path);
	assert_int_equal(store__resolve(path, out, sizeof(out)), 0);
	assert_int_equal(store__resolve("kernel/none", out, sizeof(out)), -ENOENT);
	assert_int_equal(store__resolve("kernel/t1/octf.summary", out, sizeof(out)), -ENOTDIR);
	assert_int_equal(store__resolve(outside, out, sizeof(out)), -EMEDIUMTYPE);
}

/* How many traces store__list(prefix) finds; the first must be first, unless NULL. */
static size_t listed(const char *prefix, const char *first)
{
	struct store_entry *v;
	size_t n;

	assert_int_equal(store__list(prefix, &v, &n), 0);
	if (first) {
		assert_true(n > 0);
		assert_string_equal(v[0].rel, first);
	}
	free(v);
	return n;
}

static void test_list_prefix(void **state)
{
	struct store_entry *v;
	size_t n;

	make_trace("kernel/2026-01-02_00:00:00");
	make_trace("kernel/2026-01-01_00:00:00");
	make_trace("kernel/2025-12-31_00:00:00");
	assert_int_equal(store__list(NULL, &v, &n), 0);
	assert_int_equal(n, 3);
	assert_string_equal(v[0].rel, "kernel/2025-12-31_00:00:00");
	assert_string_equal(v[2].rel, "kernel/2026-01-02_00:00:00");
	free(v);
	/* Open-CAS's rule: a trailing '*' matches a start, else the whole path */
	assert_int_equal(listed("kernel/2026*", NULL), 2);
	assert_int_equal(listed("kernel/2026", NULL), 0);
	assert_int_equal(listed("kernel/2026-01-01_00:00:00", "kernel/2026-01-01_00:00:00"), 1);
	assert_int_equal(listed("*", NULL), 3);
}

/* a path spelled as -P and -G take it names the same trace for -L and -R */
static void test_prefix_spellings(void **state)
{
	static const char *const same[] = {
		"kernel/t1/", "./kernel/t1", "kernel//t1", "kernel/./t1/.", "./kernel//t1//",
	};
	size_t i, removed;

	make_trace("kernel/t1");
	make_trace("kernel/t2");
	for (i = 0; i < sizeof(same) / sizeof(same[0]); i++)
		assert_int_equal(listed(same[i], "kernel/t1"), 1);
	assert_int_equal(listed(".//kernel/t*", NULL), 2);
	/* a '*' the user did not put last is no wildcard */
	assert_int_equal(listed("kernel/t*/", NULL), 0);
	assert_int_equal(store__remove("kernel/t*/.", false, NULL, &removed, why, sizeof(why)), 0);
	assert_int_equal(removed, 0);
	/* the refusals stand */
	assert_int_equal(store__remove(".", true, NULL, &removed, why, sizeof(why)), -EPERM);
	assert_int_equal(store__remove("./", true, NULL, &removed, why, sizeof(why)), -EPERM);
	assert_int_equal(store__remove("//kernel/t1", true, NULL, &removed, why, sizeof(why)), -EPERM);
	assert_int_equal(store__remove("./kernel/../../x", true, NULL, &removed, why, sizeof(why)), -EPERM);
	assert_int_equal(store__remove("./kernel//t1/", false, NULL, &removed, why, sizeof(why)), 0);
	assert_int_equal(removed, 1);
	assert_false(trace_file_there("kernel/t1", ""));
	assert_true(trace_file_there("kernel/t2", "octf.summary"));
}

static void test_matches(void **state)
{
	assert_true(store__matches("kernel/a", NULL));
	assert_true(store__matches("kernel/a", ""));
	assert_true(store__matches("kernel/a", "*"));
	assert_true(store__matches("kernel/a", "kernel/*"));
	assert_true(store__matches("kernel/a", "kernel/a*"));
	assert_true(store__matches("kernel/a", "kernel/a"));
	assert_false(store__matches("kernel/ab", "kernel/a"));
	assert_false(store__matches("kernel/a", "kernel/ab*"));
	/* only a trailing '*' is special */
	assert_false(store__matches("kernel/a", "k*/a"));
}

/* store_remove_hooks of test_remove: what was told, and whether each trace was still there */
struct told {
	int before, gone;
	bool there_before, gone_after;
};

static void told_before(const struct store_entry *e, void *ctx)
{
	struct told *t = ctx;

	t->before++;
	t->there_before = !access(e->dir, F_OK);
}

static void told_gone(const struct store_entry *e, void *ctx)
{
	struct told *t = ctx;

	t->gone++;
	t->gone_after = access(e->dir, F_OK) != 0;
}

static void test_remove(void **state)
{
	size_t removed;
	struct store_entry *v;
	size_t n;

	make_trace("kernel/2026-01-01_00:00:00");
	make_trace("kernel/2026-01-01_00:00:001");
	make_trace("kernel/2026-02-01_00:00:00");
	/* a path names one trace, not those it starts */
	assert_int_equal(store__remove("kernel/2026-01-01_00:00:00", false, NULL, &removed, why, sizeof(why)), 0);
	assert_int_equal(removed, 1);
	assert_int_equal(store__remove("kernel/2026-01", false, NULL, &removed, why, sizeof(why)), 0);
	assert_int_equal(removed, 0);
	{
		struct told t = {};
		struct store_remove_hooks hooks = { .before = told_before, .gone = told_gone, .ctx = &t };

		assert_int_equal(store__remove("kernel/2026-01*", false, &hooks, &removed, why, sizeof(why)), 0);
		assert_int_equal(t.before, 1);
		assert_int_equal(t.gone, 1);
		assert_true(t.there_before);
		assert_true(t.gone_after);
	}
	assert_int_equal(removed, 1);
	assert_int_equal(store__list(NULL, &v, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(v[0].rel, "kernel/2026-02-01_00:00:00");
	free(v);
}

/* store_remove_hooks.kept of test_remove_leaves_whole */
static void told_kept(const struct store_entry *e, int err, const char *what, void *ctx)
{
	char *name = ctx;

	assert_int_equal(err, -ENOTEMPTY);
	assert_non_null(what);
	strcpy(name, what);
}

/* a trace that holds more than files is left as it was, not half deleted */
static void test_remove_leaves_whole(void **state)
{
	char path[PATH_MAX], name[NAME_MAX + 1] = "";
	struct store_remove_hooks hooks = { .kept = told_kept, .ctx = name };
	size_t removed;

	make_trace("kernel/a");
	snprintf(path, sizeof(path), "%s/kernel/a/analysis", repo);
	assert_int_equal(mkdir(path, 0700), 0);
	make_trace("kernel/b");
	snprintf(path, sizeof(path), "%s/kernel/b/notes", repo);
	assert_int_equal(symlink("/etc/hostname", path), 0);
	make_trace("kernel/c");

	assert_int_equal(store__remove("kernel/a", true, &hooks, &removed, why, sizeof(why)), -ENOTEMPTY);
	assert_int_equal(removed, 0);
	assert_string_equal(name, "analysis");
	assert_true(trace_file_there("kernel/a", "octf.summary"));
	assert_true(trace_file_there("kernel/a", "octf.trace.0"));

	assert_int_equal(store__remove("kernel/*", true, &hooks, &removed, why, sizeof(why)), -ENOTEMPTY);
	assert_int_equal(removed, 1);
	assert_true(trace_file_there("kernel/a", "octf.summary"));
	assert_true(trace_file_there("kernel/b", "octf.summary"));
	assert_true(trace_file_there("kernel/b", "octf.trace.0"));
	assert_true(trace_file_there("kernel/b", "notes"));
	assert_false(trace_file_there("kernel/c", ""));
}

/*
 * A trace whose summary says RUNNING goes only with force, whatever the
 * lock says: its tracer may hold another lock file (Open-CAS removes only
 * COMPLETE and ERROR traces without it). So does one whose summary says
 * anything else, or cannot be read.
 */
static void test_remove_keeps_running(void **state)
{
	size_t removed;

	make_trace("kernel/died");
	write_summary("kernel/died", "RUNNING");
	make_trace("kernel/done");
	write_summary("kernel/done", "COMPLETE");
	make_trace("kernel/failed");
	write_summary("kernel/failed", "ERROR");

	assert_int_equal(store__remove("kernel/*", false, NULL, &removed, why, sizeof(why)), -EINPROGRESS);
	assert_int_equal(removed, 2);
	assert_true(trace_file_there("kernel/died", "octf.trace.0"));
	assert_int_equal(store__remove("kernel/died", true, NULL, &removed, why, sizeof(why)), 0);
	assert_int_equal(removed, 1);
	assert_false(trace_file_there("kernel/died", ""));

	/* neither COMPLETE nor ERROR, or no summary to say: not known to have ended */
	make_trace("kernel/odd");
	write_summary("kernel/odd", "UNDEFINED");
	assert_int_equal(store__remove("kernel/odd", false, NULL, &removed, why, sizeof(why)), -EINPROGRESS);
	assert_true(trace_file_there("kernel/odd", "octf.trace.0"));
	make_trace("kernel/garbled");
	write_summary("kernel/garbled", "COMPLETE\", \"droppedEvents\": \"-1");
	assert_int_equal(store__remove("kernel/garbled", false, NULL, &removed, why, sizeof(why)), -ENOMSG);
	assert_int_equal(removed, 0);
	assert_true(store__left_unfinished(-ENOMSG));
	assert_true(trace_file_there("kernel/garbled", "octf.trace.0"));
	assert_int_equal(store__remove("kernel/*", true, NULL, &removed, why, sizeof(why)), 0);
	assert_int_equal(removed, 2);
}

static void test_remove_refuses_escape(void **state)
{
	char link[PATH_MAX], victim[PATH_MAX], path[PATH_MAX];
	size_t removed;

	/* a trace-looking directory outside the repository, reachable by a symlink */
	snprintf(victim, sizeof(victim), "%s/octf.summary", outside);
	touch(victim);
	snprintf(link, sizeof(link), "%s/kernel/evil", repo);
	assert_int_equal(symlink(outside, link), 0);

	assert_int_equal(store__remove("../outside", true, NULL, &removed, why, sizeof(why)), -EPERM);
	assert_int_equal(store__remove("kernel/../../outside", true, NULL, &removed, why, sizeof(why)), -EPERM);
	assert_int_equal(store__remove(outside, true, NULL, &removed, why, sizeof(why)), -EPERM);
	assert_int_equal(store__remove("kernel/evil", true, NULL, &removed, why, sizeof(why)), -EPERM);
	assert_int_equal(store__remove("kernel/evil/", true, NULL, &removed, why, sizeof(why)), -EPERM);
	assert_int_equal(store__remove("", true, NULL, &removed, why, sizeof(why)), -EPERM);
	assert_int_equal(access(victim, F_OK), 0);

	/* prefixes that match the symlinked entry without naming it whole */
	assert_int_equal(store__remove("kernel/*", true, NULL, &removed, why, sizeof(why)), 0);
	assert_int_equal(store__remove("kernel/e*", true, NULL, &removed, why, sizeof(why)), 0);
	assert_int_equal(store__remove("*", true, NULL, &removed, why, sizeof(why)), 0);
	assert_int_equal(removed, 0);
	assert_int_equal(access(victim, F_OK), 0);
	struct store_entry *v;
	size_t n;
	assert_int_equal(store__list(NULL, &v, &n), 0);
	assert_int_equal(n, 0);
	free(v);

	/* the repository's own kernel/ being a symlink is refused too */
	snprintf(path, sizeof(path), "%s/kernel", repo);
	unlink(link);
	assert_int_equal(rmdir(path), 0);
	assert_int_equal(symlink(outside, path), 0);
	assert_int_equal(store__remove("kernel/", true, NULL, &removed, why, sizeof(why)), -EPERM);
	assert_int_equal(access(victim, F_OK), 0);
}

static void test_lock(void **state)
{
	struct store_lock *a = NULL, *b = NULL;
	char dir[PATH_MAX];
	int holder;

	make_trace("kernel/live");
	snprintf(dir, sizeof(dir), "%s/kernel/live", repo);
	assert_false(store__trace_is_live(dir));
	assert_int_equal(store__lock(&a, &holder), 0);
	assert_int_equal(store__lock_set_trace(a, dir), 0);
	assert_true(store__trace_is_live(dir));

	assert_int_equal(store__lock(&b, &holder), -EBUSY);
	assert_int_equal(holder, getpid());
	assert_null(b);

	size_t removed;
	assert_int_equal(store__remove("kernel/live", false, NULL, &removed, why, sizeof(why)), -EBUSY);
	assert_int_equal(removed, 0);

	store__unlock(a);
	assert_false(store__trace_is_live(dir));
	assert_int_equal(store__lock(&b, &holder), 0);
	store__unlock(b);
	assert_int_equal(store__remove("kernel/live", false, NULL, &removed, why, sizeof(why)), 0);
	assert_int_equal(removed, 1);
}

/*
 * A lock path anyone can write to (/run/lock is 1777): a symbolic or hard
 * link there is not followed, and the file it leads to keeps its bytes.
 * Root removes the name and takes the lock (a user must not stop every
 * tracer by making it first); another user is refused.
 */
static void expect_planted(const char *lock, const char *victim)
{
	struct store_lock *l = NULL;
	struct stat st;
	int holder;

	assert_int_equal(store__lock(&l, &holder), geteuid() ? -EPERM : 0);
	if (!geteuid()) {
		assert_non_null(l);
		assert_int_equal(lstat(lock, &st), 0);
		assert_true(S_ISREG(st.st_mode) && st.st_nlink == 1);
		store__unlock(l);
	} else {
		assert_null(l);
	}
	assert_int_equal(stat(victim, &st), 0);
	assert_int_equal(st.st_size, 9);
}

static void test_lock_links(void **state)
{
	char victim[PATH_MAX + 16], lock[PATH_MAX + 16];
	struct store_lock *l = NULL;
	int holder, fd;

	snprintf(victim, sizeof(victim), "%s/victim", base);
	snprintf(lock, sizeof(lock), "%s/lock", base);
	fd = open(victim, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "precious\n", 9), 9);
	close(fd);

	unlink(lock);
	assert_int_equal(symlink(victim, lock), 0);
	expect_planted(lock, victim);
	unlink(lock);
	assert_int_equal(link(victim, lock), 0);
	expect_planted(lock, victim);

	/* a plain file of its own is the lock, as ever */
	unlink(lock);
	assert_int_equal(store__lock(&l, &holder), 0);
	store__unlock(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_root_selection, setup, teardown),
		cmocka_unit_test_setup_teardown(test_set_root_checks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_create_layout, setup, teardown),
		cmocka_unit_test_setup_teardown(test_resolve, setup, teardown),
		cmocka_unit_test_setup_teardown(test_list_prefix, setup, teardown),
		cmocka_unit_test_setup_teardown(test_prefix_spellings, setup, teardown),
		cmocka_unit_test(test_matches),
		cmocka_unit_test_setup_teardown(test_remove, setup, teardown),
		cmocka_unit_test_setup_teardown(test_remove_leaves_whole, setup, teardown),
		cmocka_unit_test_setup_teardown(test_remove_keeps_running, setup, teardown),
		cmocka_unit_test_setup_teardown(test_remove_refuses_escape, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lock, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lock_links, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
