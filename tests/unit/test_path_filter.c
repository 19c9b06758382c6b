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
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cmocka.h>

#include "path_filter.h"

#define DEV IOTRACE_MKDEV(7, 3)

static char mountinfo[PATH_MAX];
/* the traced file systems: the one on loop3 (254:0 is not traced) */
static const uint32_t fs_devs[] = { DEV };

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

	assert_int_equal(path_filter__new(&pf, "/data/run42/*,/data/*.log", mountinfo, fs_devs, 1,
					  bad, sizeof(bad)), 0);
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

static void chain_link(struct path_filter *pf, struct iotrace_file_id file,
		       struct iotrace_file_id parent, const char *name)
{
	struct iotrace_name_event n = {};

	n.file = file;
	n.parent = parent;
	snprintf(n.name, sizeof(n.name), "%s", name);
	assert_int_equal(path_filter__add_name(pf, &n), 0);
}

/* The chain ids[0..n) named names[0..n): ids[0] the root, each the parent of the next */
static void chain_links(struct path_filter *pf, const struct iotrace_file_id *ids,
			const char *const *names, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		chain_link(pf, ids[i], ids[i ? i - 1 : 0], names[i]);
}

static struct path_filter *filter(const char *glob, const char *info, const uint32_t *devs)
{
	struct path_filter *pf;
	char bad[64];

	assert_int_equal(path_filter__new(&pf, glob, info, devs, 1, bad, sizeof(bad)), 0);
	return pf;
}

/*
 * A btrfs (MAJ:MIN 0:39) with its subvolume @home mounted on a directory
 * the test makes, and its top level on /top, which is not there. btrfs
 * gives a subvolume's files a device of its own: what stat finds at the
 * mount point, here the test directory's. A file below both mounts
 * matches under either path; a snapshot's file with the same inode
 * number is a file of its own.
 */
static void test_mounts_by_stat(void **state)
{
	char dir[PATH_MAX], home[PATH_MAX], info[PATH_MAX], glob[PATH_MAX + 16], path[PATH_MAX];
	const uint32_t btrfs[] = { IOTRACE_MKDEV(0, 39) };
	struct iotrace_file_id top = { .dev = IOTRACE_MKDEV(0, 39), .ino = 256 };
	struct iotrace_file_id sv, user, file, snap, copy;
	struct path_filter *pf;
	struct stat st;
	FILE *f;

	strcpy(dir, "/tmp/iotrace-pf-XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(home, sizeof(home), "%s/home", dir);
	assert_int_equal(mkdir(home, 0700), 0);
	assert_int_equal(stat(home, &st), 0);
	snprintf(info, sizeof(info), "%s/mountinfo", dir);
	f = fopen(info, "w");
	assert_non_null(f);
	fprintf(f, "40 1 0:39 /@home %s rw - btrfs /dev/loop3 rw\n"
		   "41 1 0:39 / /top rw - btrfs /dev/loop3 rw\n"
		   /* not a traced file system: never looked at */
		   "42 1 0:77 / %s rw - tmpfs tmpfs rw\n", home, dir);
	assert_int_equal(fclose(f), 0);

	sv = (struct iotrace_file_id){ .dev = IOTRACE_MKDEV(major(st.st_dev), minor(st.st_dev)),
				       .ino = st.st_ino };
	user = (struct iotrace_file_id){ .dev = sv.dev, .ino = st.st_ino + 1 };
	file = (struct iotrace_file_id){ .dev = sv.dev, .ino = st.st_ino + 2 };
	snap = (struct iotrace_file_id){ .dev = IOTRACE_MKDEV(0, 41), .ino = st.st_ino };
	copy = (struct iotrace_file_id){ .dev = snap.dev, .ino = file.ino };

	snprintf(glob, sizeof(glob), "%s/home/*", dir);
	pf = filter(glob, info, btrfs);
	chain_link(pf, top, top, "/");
	chain_link(pf, sv, top, "@home");
	chain_link(pf, user, sv, "user");
	chain_link(pf, file, user, "f.dat");
	chain_link(pf, snap, top, "@snap");
	chain_link(pf, copy, snap, "f.dat");
	/* the nearest mount's path */
	assert_true(path_filter__path(pf, &file, path, sizeof(path)));
	snprintf(glob, sizeof(glob), "%s/home/user/f.dat", dir);
	assert_string_equal(path, glob);
	assert_true(path_filter__match(pf, &file));
	assert_true(path_filter__path(pf, &copy, path, sizeof(path)));
	assert_string_equal(path, "/top/@snap/f.dat");
	assert_false(path_filter__match(pf, &copy));
	path_filter__free(pf);

	/* the same file under the top level's mount */
	pf = filter("/top/@home/user/*", info, btrfs);
	chain_link(pf, top, top, "/");
	chain_link(pf, sv, top, "@home");
	chain_link(pf, user, sv, "user");
	chain_link(pf, file, user, "f.dat");
	assert_true(path_filter__match(pf, &file));
	path_filter__free(pf);

	/* tmpfs is not traced: its mount does not show the directory */
	pf = filter("/top/*", info, (const uint32_t[]){ IOTRACE_MKDEV(0, 77) });
	chain_link(pf, top, top, "/");
	chain_link(pf, sv, top, "@home");
	chain_link(pf, file, sv, "g.dat");
	assert_false(path_filter__path(pf, &file, path, sizeof(path)));
	path_filter__free(pf);

	assert_int_equal(unlink(info), 0);
	assert_int_equal(rmdir(home), 0);
	assert_int_equal(rmdir(dir), 0);
}

/*
 * dir (PATH_MAX): a new temporary directory holding the directory name,
 * which dir/mountinfo (info, PATH_MAX + 16) lists as the mount point of
 * 7:0, written as escaped (mountinfo's form of name); name's FileId.
 */
static struct iotrace_file_id fake_mount(char *dir, char *info, const char *name,
					 const char *escaped)
{
	char mnt[PATH_MAX + 64];
	struct stat st;
	FILE *f;

	strcpy(dir, "/tmp/iotrace-pf-XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(mnt, sizeof(mnt), "%s/%s", dir, name);
	assert_int_equal(mkdir(mnt, 0700), 0);
	assert_int_equal(stat(mnt, &st), 0);
	snprintf(info, PATH_MAX + 16, "%s/mountinfo", dir);
	f = fopen(info, "w");
	assert_non_null(f);
	fprintf(f, "40 1 7:0 / %s/%s rw - ext4 /dev/loop0 rw\n", dir, escaped);
	assert_int_equal(fclose(f), 0);
	return (struct iotrace_file_id){ .dev = IOTRACE_MKDEV(major(st.st_dev), minor(st.st_dev)),
					 .ino = st.st_ino };
}

/* What fake_mount() made, once its mount point is empty again. */
static void fake_unmount(const char *dir, const char *info, const char *name)
{
	char mnt[PATH_MAX + 64];

	snprintf(mnt, sizeof(mnt), "%s/%s", dir, name);
	assert_int_equal(unlink(info), 0);
	assert_int_equal(rmdir(mnt), 0);
	assert_int_equal(rmdir(dir), 0);
}

/*
 * mountinfo writes a blank in a mount point as \040, a backslash as
 * \134: the filter matches the path itself (a glob writes a backslash as
 * \\, as fnmatch(3) reads it).
 */
static void test_mount_point_with_blanks(void **state)
{
	char dir[PATH_MAX], info[PATH_MAX + 16], glob[PATH_MAX + 16];
	const uint32_t ext4[] = { IOTRACE_MKDEV(7, 0) };
	struct iotrace_file_id root, file;
	struct path_filter *pf;

	(void)state;
	root = fake_mount(dir, info, "my data\\x", "my\\040data\\134x");
	file = (struct iotrace_file_id){ .dev = root.dev, .ino = root.ino + 1 };
	snprintf(glob, sizeof(glob), "%s/my data\\\\x/*", dir);
	pf = filter(glob, info, ext4);
	chain_link(pf, root, root, "/");
	chain_link(pf, file, root, "f.dat");
	assert_true(path_filter__match(pf, &file));
	path_filter__free(pf);
	fake_unmount(dir, info, "my data\\x");
}

/*
 * A pattern through a symbolic link (DIR/link -> real/vol) matches the
 * files of its target, whose chains give the real path; so do patterns
 * naming directories not made yet below it, or with a wildcard right
 * after it. Where nothing resolves, the pattern is kept as it is.
 */
static void test_glob_through_symlink(void **state)
{
	char dir[PATH_MAX], path[PATH_MAX + 32], info[PATH_MAX + 16], glob[PATH_MAX + 64];
	char want[PATH_MAX + 64];
	const uint32_t ext4[] = { IOTRACE_MKDEV(7, 0) };
	struct iotrace_file_id root, vol, job, file;
	const char *given, *real;
	struct path_filter *pf;

	(void)state;
	/* DIR/real is the traced file system's mount point */
	root = fake_mount(dir, info, "real", "real");
	snprintf(path, sizeof(path), "%s/real/vol", dir);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/link", dir);
	assert_int_equal(symlink("real/vol", path), 0);
	vol = (struct iotrace_file_id){ .dev = root.dev, .ino = root.ino + 1 };
	file = (struct iotrace_file_id){ .dev = root.dev, .ino = root.ino + 2 };
	job = (struct iotrace_file_id){ .dev = root.dev, .ino = root.ino + 3 };

	/* DIR/link/job7/<star>: job7 is not made yet, the rest resolves */
	snprintf(glob, sizeof(glob), "%s/link/job7/*,%s/lin*/job7/*,%s/link/jo?7/*,%s/real/vol/*",
		 dir, dir, dir, dir);
	pf = filter(glob, info, ext4);
	assert_non_null(path_filter__real_glob(pf, 0, &given));
	real = path_filter__real_glob(pf, 0, &given);
	snprintf(want, sizeof(want), "%s/link/job7/*", dir);
	assert_string_equal(given, want);
	snprintf(want, sizeof(want), "%s/real/vol/job7/*", dir);
	assert_string_equal(real, want);
	/* a wildcard in the link's own name: nothing to resolve */
	assert_string_equal(path_filter__real_glob(pf, 1, &given), "");
	snprintf(want, sizeof(want), "%s/real/vol/jo?7/*", dir);
	assert_string_equal(path_filter__real_glob(pf, 2, &given), want);
	/* a pattern with real directories is matched as it is */
	assert_string_equal(path_filter__real_glob(pf, 3, &given), "");
	assert_null(path_filter__real_glob(pf, 4, &given));
	path_filter__free(pf);

	/* only the link's pattern: the file at DIR/real/vol/job7/f.dat matches */
	snprintf(glob, sizeof(glob), "%s/link/job7/*", dir);
	pf = filter(glob, info, ext4);
	chain_links(pf, (struct iotrace_file_id[]){ root, vol, job, file },
		    (const char *[]){ "/", "vol", "job7", "f.dat" }, 4);
	assert_true(path_filter__match(pf, &file));
	path_filter__free(pf);

	/* the same pattern, DIR/link gone: nothing resolves, nothing matches */
	assert_int_equal(unlink(path), 0);
	pf = filter(glob, info, ext4);
	assert_string_equal(path_filter__real_glob(pf, 0, &given), "");
	chain_links(pf, (struct iotrace_file_id[]){ root, vol, job, file },
		    (const char *[]){ "/", "vol", "job7", "f.dat" }, 4);
	assert_false(path_filter__match(pf, &file));
	path_filter__free(pf);

	snprintf(path, sizeof(path), "%s/real/vol", dir);
	assert_int_equal(rmdir(path), 0);
	fake_unmount(dir, info, "real");
}

static void write_mountinfo(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fputs(text, f) < 0, 0);
	assert_int_equal(fclose(f), 0);
}

/*
 * A file system first seen through a bind mount of its directory sub
 * (a directory the test makes, so stat finds it), then mounted whole on
 * /late, which is not there (named by MAJ:MIN): once the filter has read
 * the table again, a file judged before matches under the new mount.
 */
static void test_mounts_added(void **state)
{
	char dir[] = "/tmp/iotrace-pf-XXXXXX", sub[PATH_MAX], info[PATH_MAX], text[2 * PATH_MAX];
	struct iotrace_file_id top, subdir, file;
	struct path_filter *pf;
	uint32_t devs[1];
	struct stat st;

	assert_non_null(mkdtemp(dir));
	snprintf(sub, sizeof(sub), "%s/sub", dir);
	assert_int_equal(mkdir(sub, 0700), 0);
	assert_int_equal(stat(sub, &st), 0);
	devs[0] = IOTRACE_MKDEV(major(st.st_dev), minor(st.st_dev));
	top = (struct iotrace_file_id){ .dev = devs[0], .ino = 2 };
	subdir = (struct iotrace_file_id){ .dev = devs[0], .ino = st.st_ino };
	file = (struct iotrace_file_id){ .dev = devs[0], .ino = st.st_ino + 1 };
	snprintf(info, sizeof(info), "%s/mountinfo", dir);
	snprintf(text, sizeof(text), "20 1 %u:%u /sub %s rw - ext4 /dev/loop3 rw\n",
		 major(st.st_dev), minor(st.st_dev), sub);
	write_mountinfo(info, text);

	pf = filter("/late/*", info, devs);
	chain_link(pf, top, top, "/");
	chain_link(pf, subdir, top, "sub");
	chain_link(pf, file, subdir, "f.dat");
	assert_false(path_filter__match(pf, &file));
	/* nothing new: the verdict stands */
	assert_int_equal(path_filter__add_mounts(pf, info, devs, 1), 0);
	assert_false(path_filter__match(pf, &file));
	snprintf(text + strlen(text), sizeof(text) - strlen(text),
		 "50 1 %u:%u / /late rw - ext4 /dev/loop3 rw\n"
		 "51 1 0:90 / /other rw - tmpfs tmpfs rw\n",
		 major(st.st_dev), minor(st.st_dev));
	write_mountinfo(info, text);
	assert_int_equal(path_filter__add_mounts(pf, info, devs, 1), 0);
	assert_true(path_filter__match(pf, &file));
	assert_int_equal(path_filter__add_mounts(pf, "/nonexistent/mountinfo", devs, 1), -ENOENT);
	path_filter__free(pf);

	assert_int_equal(unlink(info), 0);
	assert_int_equal(rmdir(sub), 0);
	assert_int_equal(rmdir(dir), 0);
}

static void test_bad_patterns(void **state)
{
	struct path_filter *pf;
	char bad[64];

	assert_int_equal(path_filter__new(&pf, "/ok,relative/*", mountinfo, fs_devs, 1, bad,
					  sizeof(bad)), -EINVAL);
	assert_string_equal(bad, "relative/*");
	assert_null(pf);
	assert_int_equal(path_filter__new(&pf, "/a,", mountinfo, fs_devs, 1, bad, sizeof(bad)),
			 -EINVAL);
	assert_int_equal(path_filter__new(&pf, "/a", "/nonexistent/mountinfo", fs_devs, 1, bad,
					  sizeof(bad)),
			 -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_paths_and_globs),
		cmocka_unit_test(test_mounts_by_stat),
		cmocka_unit_test(test_mount_point_with_blanks),
		cmocka_unit_test(test_glob_through_symlink),
		cmocka_unit_test(test_mounts_added),
		cmocka_unit_test(test_bad_patterns),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
