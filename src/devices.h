/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Block devices named on the command line, resolved through sysfs.
 * sysfs_root is "/sys" in production and a fake tree in tests.
 */
#ifndef IOTRACE_DEVICES_H
#define IOTRACE_DEVICES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DEVICE_NAME_MAX 64

struct device_info {
	char name[DEVICE_NAME_MAX];	/* kernel name without /dev/: "nvme0n1p1" */
	uint32_t dev;			/* IOTRACE_MKDEV encoding */
	bool is_partition;
	char disk_name[DEVICE_NAME_MAX];	/* whole disk; == name for a disk */
	uint32_t disk_dev;
	uint64_t size;			/* 512-byte sectors */
	uint64_t start;			/* a partition's first sector on its disk; 0 for a disk */
	char model[128];		/* from the disk's device/model; may be empty */
	/*
	 * the disk's diskseq (v5.15+), which a new medium changes: a loop
	 * device detached or attached again, a drive swapped; 0 = unknown
	 */
	uint64_t diskseq;
};

/*
 * Resolves one name: "nvme0n1", "/dev/nvme0n1", or any /dev path that is a
 * symlink to one (/dev/disk/by-id/..., /dev/mapper/...). Returns 0,
 * -ENODEV if there is no such block device, -ENOTBLK for a path to
 * something else (/dev/null, a directory), -EINVAL for an empty name.
 */
int devices__resolve(const char *sysfs_root, const char *name, struct device_info *out);

/* What became of a device since devices__resolve() described it. */
enum device_change {
	DEVICE_SAME,
	DEVICE_REMOVED,		/* its number is no longer its name's */
	DEVICE_EMPTY,		/* no medium: a loop device detached, a drive ejected */
	DEVICE_NEW_MEDIUM,	/* another diskseq: attached again, or replaced */
	/* a partition that starts elsewhere on its disk: re-partitioned */
	DEVICE_MOVED,
};

/*
 * Looks at d in sysfs again. Without diskseq (before v5.15) only removal,
 * a size dropped to 0 and a partition moved are seen. A size that changes
 * otherwise (a loop device's capacity, a partition grown in place) is the
 * same medium.
 */
enum device_change devices__check(const char *sysfs_root, const struct device_info *d);

/* Where devices__parse_list stopped, for the error message. */
struct devices_error {
	int err;
	char name[256];		/* the offending element */
	char other[DEVICE_NAME_MAX];	/* for -EEXIST: what it collides with */
};

/*
 * Parses a comma-separated device list into out[0..max). Returns 0, or
 * -EINVAL (empty element), -ENODEV (unknown device), -ENOTBLK (a path to
 * something that is no block device), -ENOMEDIUM (size 0:
 * a detached loop device, an empty drive), -EEXIST (a device
 * given twice, also as /dev/x and x, or a partition of a disk already
 * named, or the reverse), -E2BIG (more than max). Fills *e on error.
 */
int devices__parse_list(const char *sysfs_root, const char *list, struct device_info *out,
			size_t max, size_t *count, struct devices_error *e);

/*
 * The partitions of a whole disk (by kernel name, e.g. "nvme0n1"), as
 * IOTRACE_MKDEV device numbers into out[0..max) and, if names is not
 * NULL, their kernel names into names[0..max). Returns 0, -E2BIG if
 * there are more than max (the first max are filled), or -errno if the
 * disk's sysfs directory cannot be read.
 */
int devices__partitions(const char *sysfs_root, const char *disk, uint32_t *out,
			char (*names)[DEVICE_NAME_MAX], size_t max, size_t *count);

#endif
