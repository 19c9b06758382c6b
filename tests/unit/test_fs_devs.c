// SPDX-License-Identifier: BSD-3-Clause
/*
 * The file-system devices --vfs filters on: the traced devices, their
 * partitions, and file systems with numbers of their own (btrfs) mounted
 * from them, against a fake sysfs and mount table.
 */
#define _GNU_SOURCE	/* statx() */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cmocka.h>

#include "devices.h"
#include "fs_devs.h"
#include "iotrace_event.h"

#include "fake_sysfs.h"

static char mountinfo[PATH_MAX];
/* the same table before the btrfs on loop5 and loop4 was mounted */
static char mountinfo_before[PATH_MAX];
/* a root file system on a partition, its source /dev/root */
static char mountinfo_root[PATH_MAX];

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0600);
	FILE *f = fd < 0 ? NULL : fdopen(fd, "w");

	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

static int setup(void **state)
{
	if (sysfs_create())
		return -1;
	sysfs_block("nvme0n1", "pci0/nvme/nvme0n1", "259:0", 0);
	sysfs_block("nvme0n1p1", "pci0/nvme/nvme0n1/nvme0n1p1", "259:1", 1);
	sysfs_block("nvme0n1p2", "pci0/nvme/nvme0n1/nvme0n1p2", "259:2", 2);
	sysfs_block("loop3", "virtual/block/loop3", "7:3", 0);
	sysfs_block("loop4", "virtual/block/loop4", "7:4", 0);
	sysfs_block("loop5", "virtual/block/loop5", "7:5", 0);
	sysfs_block("loop6", "virtual/block/loop6", "7:6", 0);
	sysfs_block("loop7", "virtual/block/loop7", "7:7", 0);
	sysfs_block("vdb", "virtual/block/vdb", "254:16", 0);
	/* two btrfs: one on loop3, one on loop5 and loop4 */
	sysfs_link("fs/btrfs/0f1e-a/devices/loop3", "../../../../devices/virtual/block/loop3");
	sysfs_link("fs/btrfs/77c2-b/devices/loop4", "../../../../devices/virtual/block/loop4");
	sysfs_link("fs/btrfs/77c2-b/devices/loop5", "../../../../devices/virtual/block/loop5");
	sysfs_put("fs/btrfs/features/metadata_uuid", "0\n");
	/* mounted ext4 and xfs by device name: p1's (in the table too), loop7's (not) */
	sysfs_put("fs/ext4/features/metadata_csum_seed", "supported\n");
	sysfs_put("fs/ext4/nvme0n1p1/errors_count", "0\n");
	sysfs_put("fs/xfs/loop7/stats/stats", "\n");

	snprintf(mountinfo, sizeof(mountinfo), "%s/mountinfo", sysfs_root);
	snprintf(mountinfo_before, sizeof(mountinfo_before), "%s/mountinfo.before", sysfs_root);
	snprintf(mountinfo_root, sizeof(mountinfo_root), "%s/mountinfo.root", sysfs_root);
	if (write_file(mountinfo_root, "22 1 259:2 / / rw - ext4 /dev/root rw\n"))
		return -1;
	return write_file(mountinfo,
			  "22 1 254:0 / / rw - ext4 /dev/vda rw\n"
			  "30 22 259:1 / /data rw,noatime shared:5 - ext4 /dev/nvme0n1p1 rw\n"
			  /* a btrfs shows its own number; its subvolumes are mounts of the same */
			  "31 22 0:39 / /b rw - btrfs /dev/loop3 rw,subvolid=5,subvol=/\n"
			  "32 22 0:39 /sv /b2 rw master:3 - btrfs /dev/loop3 rw,subvolid=256,subvol=/sv\n"
			  /* mountinfo names one device of a multi-device btrfs */
			  "33 22 0:50 / /c rw - btrfs /dev/loop5 rw\n"
			  "34 22 0:60 / /t rw - tmpfs tmpfs rw\n"
			  "35 22 0:70 / /o rw - btrfs /dev/loop6 rw\n"
			  "36 22 0:71 / /u rw - btrfs /dev/nosuch rw\n"
			  /* a source that names no device: the number does */
			  "37 22 254:16 / /r rw - ext4 /dev/root rw\n"
			  "garbage\n") ||
	       write_file(mountinfo_before,
			  "22 1 254:0 / / rw - ext4 /dev/vda rw\n"
			  "31 22 0:39 / /b rw - btrfs /dev/loop3 rw,subvolid=5,subvol=/\n");
}

static int teardown(void **state)
{
	return sysfs_remove();
}

/* devs[0..4) from a --devices list, which must parse: their count */
static size_t parse(const char *names, struct device_info *devs)
{
	struct devices_error e;
	size_t n;

	assert_int_equal(devices__parse_list(sysfs_root, names, devs, 4, &n, &e), 0);
	return n;
}

static size_t collect(const char *names, uint32_t *out, size_t max, int want)
{
	struct device_info devs[4];
	size_t n = parse(names, devs), count = 99;

	assert_int_equal(fs_devs__collect(sysfs_root, mountinfo, devs, n, out, max, &count), want);
	return count;
}

static void test_disk_and_partitions(void **state)
{
	uint32_t out[8];

	/* the ext4 on a partition already counts as the partition: not twice */
	assert_int_equal(collect("nvme0n1", out, 8, 0), 3);
	assert_int_equal(out[0], IOTRACE_MKDEV(259, 0));
	assert_int_equal(out[1], IOTRACE_MKDEV(259, 1));
	assert_int_equal(out[2], IOTRACE_MKDEV(259, 2));
	/* a partition alone: itself */
	assert_int_equal(collect("nvme0n1p2", out, 8, 0), 1);
	assert_int_equal(out[0], IOTRACE_MKDEV(259, 2));
}

static void test_btrfs(void **state)
{
	uint32_t out[8];

	/* the source device: its file system's number, once for two mounts */
	assert_int_equal(collect("loop3", out, 8, 0), 2);
	assert_int_equal(out[0], IOTRACE_MKDEV(7, 3));
	assert_int_equal(out[1], IOTRACE_MKDEV(0, 39));
	/* a device mountinfo does not name, found through sysfs */
	assert_int_equal(collect("loop4", out, 8, 0), 2);
	assert_int_equal(out[1], IOTRACE_MKDEV(0, 50));
	assert_int_equal(collect("loop5,loop3", out, 8, 0), 4);
	assert_int_equal(out[2], IOTRACE_MKDEV(0, 39));
	assert_int_equal(out[3], IOTRACE_MKDEV(0, 50));
	/* a btrfs on an untraced device, tmpfs: not */
	assert_int_equal(collect("loop6", out, 8, 0), 2);
	assert_int_equal(out[1], IOTRACE_MKDEV(0, 70));
	assert_int_equal(collect("nvme0n1p1", out, 8, 0), 1);
}

static void test_limits(void **state)
{
	struct device_info d;
	uint32_t out[4];
	size_t count;

	/* what fits is kept */
	assert_int_equal(collect("nvme0n1", out, 2, -E2BIG), 2);
	assert_int_equal(collect("loop3", out, 1, -E2BIG), 1);
	/* no mount table: the devices alone */
	assert_int_equal(devices__resolve(sysfs_root, "loop3", &d), 0);
	assert_int_equal(fs_devs__collect(sysfs_root, "/nonexistent/mountinfo", &d, 1, out, 4,
					  &count), 0);
	assert_int_equal(count, 1);
}

/* A mount since the list was made: appended, the list before kept as is. */
static void test_update(void **state)
{
	struct device_info devs[4];
	uint32_t out[4];
	size_t n = parse("loop4,loop3", devs), count;

	assert_int_equal(fs_devs__collect(sysfs_root, mountinfo_before, devs, n, out, 4, &count), 0);
	assert_int_equal(count, 3);
	assert_int_equal(out[2], IOTRACE_MKDEV(0, 39));
	assert_int_equal(fs_devs__update(sysfs_root, mountinfo, devs, n, out, 4, &count), 0);
	assert_int_equal(count, 4);
	assert_int_equal(out[0], IOTRACE_MKDEV(7, 4));
	assert_int_equal(out[1], IOTRACE_MKDEV(7, 3));
	assert_int_equal(out[2], IOTRACE_MKDEV(0, 39));
	assert_int_equal(out[3], IOTRACE_MKDEV(0, 50));
	/* nothing new */
	assert_int_equal(fs_devs__update(sysfs_root, mountinfo, devs, n, out, 4, &count), 0);
	assert_int_equal(count, 4);
	/* no room: what fits stays, the count says so */
	assert_int_equal(fs_devs__collect(sysfs_root, mountinfo_before, devs, n, out, 4, &count), 0);
	assert_int_equal(fs_devs__update(sysfs_root, mountinfo, devs, n, out, 3, &count), -E2BIG);
	assert_int_equal(count, 3);
}

static bool mounted(const char *names, const char *table)
{
	struct device_info devs[4];
	size_t n = parse(names, devs);

	return fs_devs__mounted(sysfs_root, table, devs, n);
}

/*
 * A line longer than any fixed buffer: a mount point of blanks, each
 * escaped as \040, ahead of the type and source.
 */
static void test_long_line(void **state)
{
	char path[PATH_MAX];
	FILE *f;
	int i;

	snprintf(path, sizeof(path), "%s/mountinfo.long", sysfs_root);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("22 1 254:0 / / rw - ext4 /dev/vda rw\n40 22 7:7 / /m", f);
	for (i = 0; i < 4000; i++)
		fputs("\\040", f);
	fputs(" rw - xfs /dev/loop7 rw\n", f);
	assert_int_equal(fclose(f), 0);
	assert_true(mounted("loop7", path));
	assert_false(mounted("loop6", path));
}

/* Whether the syscall programs are needed: a traced device's file system is mounted. */
static void test_mounted(void **state)
{
	/* the ext4 on the disk's first partition */
	assert_true(mounted("nvme0n1", mountinfo));
	assert_true(mounted("nvme0n1p1", mountinfo));
	assert_false(mounted("nvme0n1p2", mountinfo));
	/* btrfs by its source, and by a member mountinfo does not name */
	assert_true(mounted("loop3", mountinfo));
	assert_true(mounted("loop4", mountinfo));
	assert_false(mounted("loop4", mountinfo_before));
	assert_true(mounted("vdb", mountinfo));
	assert_false(mounted("loop7", mountinfo));
	assert_false(mounted("loop7,nvme0n1p2", mountinfo));
	assert_true(mounted("loop7,loop3", mountinfo));
	assert_false(mounted("loop3", "/nonexistent/mountinfo"));
	/* /dev/root names no device: the number does, a partition's too */
	assert_true(mounted("nvme0n1p2", mountinfo_root));
	assert_true(mounted("nvme0n1", mountinfo_root));
	assert_false(mounted("nvme0n1p1", mountinfo_root));
	assert_false(mounted("vdb", mountinfo_root));
}

static bool in_sysfs(const char *names)
{
	struct device_info devs[4];
	size_t n = parse(names, devs);

	return fs_devs__in_sysfs(sysfs_root, devs, n);
}

/*
 * The number of the mount a path is on, by its mount id: a btrfs's
 * mountinfo number, not the subvolume's its files show to stat.
 */
static void test_of_path(void **state)
{
	char path[PATH_MAX], text[128];
	struct statx stx;
	struct stat st;
	uint32_t dev;

	assert_int_equal(statx(AT_FDCWD, sysfs_root, 0, STATX_MNT_ID, &stx), 0);
	assert_true(stx.stx_mask & STATX_MNT_ID);
	assert_int_equal(stat(sysfs_root, &st), 0);
	snprintf(path, sizeof(path), "%s/mountinfo.ids", sysfs_root);
	snprintf(text, sizeof(text), "%llu 1 250:7 / /x rw - btrfs /dev/loop3 rw\n",
		 (unsigned long long)stx.stx_mnt_id);
	assert_int_equal(write_file(path, text), 0);
	assert_int_equal(fs_devs__of_path(path, sysfs_root, &dev), 0);
	assert_int_equal(dev, IOTRACE_MKDEV(250, 7));

	/* a table without that mount: what stat says */
	snprintf(text, sizeof(text), "%llu 1 250:7 / /x rw - btrfs /dev/loop3 rw\n",
		 (unsigned long long)stx.stx_mnt_id + 1);
	assert_int_equal(write_file(path, text), 0);
	assert_int_equal(fs_devs__of_path(path, sysfs_root, &dev), 0);
	assert_int_equal(dev, IOTRACE_MKDEV(major(st.st_dev), minor(st.st_dev)));
	assert_int_equal(fs_devs__of_path("/nonexistent/mountinfo", sysfs_root, &dev), 0);
	assert_int_equal(dev, IOTRACE_MKDEV(major(st.st_dev), minor(st.st_dev)));

	snprintf(path, sizeof(path), "%s/no-such-dir", sysfs_root);
	assert_int_equal(fs_devs__of_path(mountinfo, path, &dev), -ENOENT);
}

/* A mount the table does not show (another namespace's), as sysfs lists it. */
static void test_in_sysfs(void **state)
{
	/* ext4 on the first partition, by disk and by partition */
	assert_true(in_sysfs("nvme0n1"));
	assert_true(in_sysfs("nvme0n1p1"));
	assert_false(in_sysfs("nvme0n1p2"));
	/* xfs on loop7, which the mount table lacks */
	assert_true(in_sysfs("loop7"));
	assert_false(mounted("loop7", mountinfo));
	/* not a btrfs (loop3-5): its number, which the programs need, is not there */
	assert_false(in_sysfs("loop3"));
	assert_false(in_sysfs("vdb,loop5"));
	assert_true(in_sysfs("loop5,loop7"));
}

/*
 * The watch opens the table; a file that is no mount table never says it
 * changed (only proc's mount tables poll POLLPRI; a real mount needs root:
 * tests/integration/late_mount.sh).
 */
/* How a new entry of the list is named to people: a partition by its name. */
static void test_partition(void **state)
{
	char name[16] = "";

	assert_true(fs_devs__partition(sysfs_root, IOTRACE_MKDEV(259, 2), name, sizeof(name)));
	assert_string_equal(name, "nvme0n1p2");
	/* a disk, a btrfs's own number, a name that does not fit */
	assert_false(fs_devs__partition(sysfs_root, IOTRACE_MKDEV(259, 0), name, sizeof(name)));
	assert_false(fs_devs__partition(sysfs_root, IOTRACE_MKDEV(0, 39), name, sizeof(name)));
	assert_false(fs_devs__partition(sysfs_root, IOTRACE_MKDEV(259, 1), name, 9));
}

static void test_watch(void **state)
{
	int fd = fs_devs__watch(mountinfo);
	struct pollfd p = { .fd = fd, .events = POLLPRI };

	assert_true(fd >= 0);
	assert_false(poll(&p, 1, 0) > 0 && (p.revents & (POLLPRI | POLLERR)));
	close(fd);
	assert_int_equal(fs_devs__watch("/nonexistent/mountinfo"), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_disk_and_partitions),
		cmocka_unit_test(test_btrfs),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_update),
		cmocka_unit_test(test_mounted),
		cmocka_unit_test(test_long_line),
		cmocka_unit_test(test_in_sysfs),
		cmocka_unit_test(test_of_path),
		cmocka_unit_test(test_partition),
		cmocka_unit_test(test_watch),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
