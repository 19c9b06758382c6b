// SPDX-License-Identifier: BSD-3-Clause
/* Device resolution against a fake sysfs tree built in a temp dir. */
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

#include "devices.h"
#include "iotrace_event.h"

#include "fake_sysfs.h"

static int setup(void **state)
{
	if (sysfs_create())
		return -1;
	sysfs_block("nvme0n1", "pci0/nvme/nvme0n1", "259:0", 0);
	sysfs_put("devices/pci0/nvme/nvme0n1/size", "732585168\n");
	sysfs_put("devices/pci0/nvme/nvme0n1/device/model", "INTEL SSDPED1K375GA      \n");
	sysfs_block("nvme0n1p1", "pci0/nvme/nvme0n1/nvme0n1p1", "259:1", 1);
	sysfs_put("devices/pci0/nvme/nvme0n1/nvme0n1p1/size", "2048\n");
	sysfs_block("loop3", "virtual/block/loop3", "7:3", 0);
	sysfs_put("devices/virtual/block/loop3/size", "1048576\n");
	return 0;
}

static int teardown(void **state)
{
	return sysfs_remove();
}

static void test_disk(void **state)
{
	struct device_info d;

	assert_int_equal(devices__resolve(sysfs_root, "nvme0n1", &d), 0);
	assert_string_equal(d.name, "nvme0n1");
	assert_int_equal(d.dev, IOTRACE_MKDEV(259, 0));
	assert_false(d.is_partition);
	assert_int_equal(d.disk_dev, d.dev);
	assert_int_equal(d.size, 732585168);
	/* sysfs pads the model with spaces */
	assert_string_equal(d.model, "INTEL SSDPED1K375GA");
}

static void test_partition(void **state)
{
	struct device_info d;

	assert_int_equal(devices__resolve(sysfs_root, "nvme0n1p1", &d), 0);
	assert_true(d.is_partition);
	assert_int_equal(d.dev, IOTRACE_MKDEV(259, 1));
	assert_string_equal(d.disk_name, "nvme0n1");
	assert_int_equal(d.disk_dev, IOTRACE_MKDEV(259, 0));
	assert_int_equal(d.size, 2048);
	assert_string_equal(d.model, "INTEL SSDPED1K375GA");
}

static void test_dev_prefix_and_no_model(void **state)
{
	struct device_info d;

	/* /dev/loop3 does not exist on the test host under that root: the name part is used */
	assert_int_equal(devices__resolve(sysfs_root, "/dev/loop3", &d), 0);
	assert_string_equal(d.name, "loop3");
	assert_int_equal(d.dev, IOTRACE_MKDEV(7, 3));
	assert_string_equal(d.model, "");
}

static void test_unknown(void **state)
{
	struct device_info d;

	assert_int_equal(devices__resolve(sysfs_root, "sdz", &d), -ENODEV);
	assert_int_equal(devices__resolve(sysfs_root, "../../etc", &d), -ENODEV);
	assert_int_equal(devices__resolve(sysfs_root, "", &d), -EINVAL);
	/* a path to something that is there but no block device */
	assert_int_equal(devices__resolve(sysfs_root, "/dev/null", &d), -ENOTBLK);
	assert_int_equal(devices__resolve(sysfs_root, "/", &d), -ENOTBLK);
}

static void test_partitions(void **state)
{
	char names[4][DEVICE_NAME_MAX];
	uint32_t parts[4];
	size_t n;

	/* sysfs block/ links like class/block/ */
	assert_int_equal(devices__partitions(sysfs_root, "nvme0n1", parts, names, 4, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(parts[0], IOTRACE_MKDEV(259, 1));
	assert_string_equal(names[0], "nvme0n1p1");
	assert_int_equal(devices__partitions(sysfs_root, "loop3", parts, NULL, 4, &n), 0);
	assert_int_equal(n, 0);
	assert_int_equal(devices__partitions(sysfs_root, "nvme0n1", parts, NULL, 0, &n), -E2BIG);
	assert_int_equal(devices__partitions(sysfs_root, "nosuch", parts, NULL, 4, &n), -ENOENT);
}

static void test_list(void **state)
{
	struct device_info d[4];
	struct devices_error e;
	size_t n;

	assert_int_equal(devices__parse_list(sysfs_root, "nvme0n1,/dev/loop3", d, 4, &n, &e), 0);
	assert_int_equal(n, 2);
	assert_string_equal(d[0].name, "nvme0n1");
	assert_string_equal(d[1].name, "loop3");
}

static void test_list_errors(void **state)
{
	struct device_info d[2];
	struct devices_error e;
	size_t n;

	assert_int_equal(devices__parse_list(sysfs_root, "loop3,/dev/loop3", d, 2, &n, &e), -EEXIST);
	assert_string_equal(e.name, "/dev/loop3");
	assert_string_equal(e.other, "loop3");
	/* a partition of a disk already named overlaps it */
	assert_int_equal(devices__parse_list(sysfs_root, "nvme0n1,nvme0n1p1", d, 2, &n, &e), -EEXIST);
	assert_int_equal(devices__parse_list(sysfs_root, "loop3,nosuch", d, 2, &n, &e), -ENODEV);
	assert_string_equal(e.name, "nosuch");
	assert_int_equal(devices__parse_list(sysfs_root, "loop3,", d, 2, &n, &e), -EINVAL);
	/* a detached loop device: nothing to trace */
	sysfs_block("loop9", "virtual/block/loop9", "7:9", 0);
	sysfs_put("devices/virtual/block/loop9/size", "0\n");
	assert_int_equal(devices__parse_list(sysfs_root, "loop3,loop9", d, 2, &n, &e), -ENOMEDIUM);
	assert_string_equal(e.name, "loop9");
	assert_int_equal(devices__parse_list(sysfs_root, ",loop3", d, 2, &n, &e), -EINVAL);
	/* the count is checked before the extra name is even resolved */
	assert_int_equal(devices__parse_list(sysfs_root, "loop3,nvme0n1,whatever", d, 2, &n, &e), -E2BIG);
	assert_int_equal(n, 0);
}

/* Its own devices: the others' files stay as setup() made them. */
static void test_check(void **state)
{
	struct device_info loop, part;
	char link[PATH_MAX];

	sysfs_block("loop5", "virtual/block/loop5", "7:5", 0);
	sysfs_put("devices/virtual/block/loop5/size", "2048\n");
	sysfs_put("devices/virtual/block/loop5/diskseq", "40\n");
	sysfs_block("sdb", "pci0/sd/sdb", "8:16", 0);
	sysfs_put("devices/pci0/sd/sdb/size", "8192\n");
	sysfs_put("devices/pci0/sd/sdb/diskseq", "7\n");
	sysfs_block("sdb1", "pci0/sd/sdb/sdb1", "8:17", 1);
	sysfs_put("devices/pci0/sd/sdb/sdb1/size", "4096\n");

	assert_int_equal(devices__resolve(sysfs_root, "loop5", &loop), 0);
	assert_int_equal(loop.diskseq, 40);
	/* a partition has its disk's */
	assert_int_equal(devices__resolve(sysfs_root, "sdb1", &part), 0);
	assert_int_equal(part.diskseq, 7);
	assert_int_equal(devices__check(sysfs_root, &loop), DEVICE_SAME);
	assert_int_equal(devices__check(sysfs_root, &part), DEVICE_SAME);

	/* losetup -d: size 0 and a new diskseq */
	sysfs_put("devices/virtual/block/loop5/size", "0\n");
	sysfs_put("devices/virtual/block/loop5/diskseq", "41\n");
	assert_int_equal(devices__check(sysfs_root, &loop), DEVICE_EMPTY);
	/* attached to another file: a size again, and another diskseq */
	sysfs_put("devices/virtual/block/loop5/size", "2048\n");
	sysfs_put("devices/virtual/block/loop5/diskseq", "42\n");
	assert_int_equal(devices__check(sysfs_root, &loop), DEVICE_NEW_MEDIUM);
	/* a resize is the same medium */
	sysfs_put("devices/virtual/block/loop5/diskseq", "40\n");
	sysfs_put("devices/virtual/block/loop5/size", "4096\n");
	assert_int_equal(devices__check(sysfs_root, &loop), DEVICE_SAME);
	/* emptied without a new diskseq (a zram device reset): seen too */
	sysfs_put("devices/virtual/block/loop5/size", "0\n");
	assert_int_equal(devices__check(sysfs_root, &loop), DEVICE_EMPTY);
	/* without diskseq (before v5.15) an emptied device is still seen */
	loop.diskseq = 0;
	assert_int_equal(devices__check(sysfs_root, &loop), DEVICE_EMPTY);

	/* re-partitioned: the same number, another start on the disk */
	sysfs_put("devices/pci0/sd/sdb/sdb1/start", "2048\n");
	assert_int_equal(devices__resolve(sysfs_root, "sdb1", &part), 0);
	assert_int_equal(part.start, 2048);
	assert_int_equal(devices__check(sysfs_root, &part), DEVICE_SAME);
	/* grown in place: the same data */
	sysfs_put("devices/pci0/sd/sdb/sdb1/size", "6144\n");
	assert_int_equal(devices__check(sysfs_root, &part), DEVICE_SAME);
	sysfs_put("devices/pci0/sd/sdb/sdb1/start", "300000\n");
	assert_int_equal(devices__check(sysfs_root, &part), DEVICE_MOVED);
	sysfs_put("devices/pci0/sd/sdb/sdb1/start", "2048\n");

	/* the partition's disk got a new medium */
	sysfs_put("devices/pci0/sd/sdb/diskseq", "8\n");
	assert_int_equal(devices__check(sysfs_root, &part), DEVICE_NEW_MEDIUM);
	/* the partition deleted */
	sysfs_put("devices/pci0/sd/sdb/diskseq", "7\n");
	snprintf(link, sizeof(link), "%s/class/block/sdb1", sysfs_root);
	assert_int_equal(unlink(link), 0);
	assert_int_equal(devices__check(sysfs_root, &part), DEVICE_REMOVED);
	/* another device under the name: another number */
	sysfs_block("sdb1", "pci0/sd/sdb/sdb1x", "8:18", 1);
	assert_int_equal(devices__check(sysfs_root, &part), DEVICE_REMOVED);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_disk),
		cmocka_unit_test(test_partition),
		cmocka_unit_test(test_dev_prefix_and_no_model),
		cmocka_unit_test(test_unknown),
		cmocka_unit_test(test_partitions),
		cmocka_unit_test(test_list),
		cmocka_unit_test(test_list_errors),
		cmocka_unit_test(test_check),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
