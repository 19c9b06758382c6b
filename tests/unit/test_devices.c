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
	assert_int_equal(devices__parse_list(sysfs_root, ",loop3", d, 2, &n, &e), -EINVAL);
	/* the count is checked before the extra name is even resolved */
	assert_int_equal(devices__parse_list(sysfs_root, "loop3,nvme0n1,whatever", d, 2, &n, &e), -E2BIG);
	assert_int_equal(n, 0);
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
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
