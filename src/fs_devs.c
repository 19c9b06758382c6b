// SPDX-License-Identifier: BSD-3-Clause
#define _GNU_SOURCE	/* statx() */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "fs_devs.h"
#include "iotrace_event.h"
#include "mount_escape.h"

/* the kernel's limit on partitions per disk (include/linux/blkdev.h) */
#define DISK_MAX_PARTS 256

struct dev_set {
	uint32_t *out;
	size_t max, n;
};

bool fs_devs__has(const uint32_t *devs, size_t n, uint32_t dev)
{
	while (n--)
		if (devs[n] == dev)
			return true;
	return false;
}

static bool has(const struct dev_set *s, uint32_t dev)
{
	return fs_devs__has(s->out, s->n, dev);
}

static int add(struct dev_set *s, uint32_t dev)
{
	if (has(s, dev))
		return 0;
	if (s->n >= s->max)
		return -E2BIG;
	s->out[s->n++] = dev;
	return 0;
}

/* Whether a block device (by name, as devices__resolve takes it) is traced. */
static bool traced(const char *sysfs_root, const char *name, const struct device_info *devs,
		   size_t ndevs, struct device_info *d)
{
	size_t i;

	if (devices__resolve(sysfs_root, name, d))
		return false;
	for (i = 0; i < ndevs; i++)
		if (devs[i].dev == d->dev || (!devs[i].is_partition && d->disk_dev == devs[i].dev))
			return true;
	return false;
}

/* The name of the block device numbered ma:mi: dev/block/MAJ:MIN links to its directory. */
static bool block_name(const char *sysfs_root, unsigned int ma, unsigned int mi, char *name,
		       size_t size)
{
	char path[PATH_MAX], target[PATH_MAX];
	const char *base;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/dev/block/%u:%u", sysfs_root, ma, mi);
	n = readlink(path, target, sizeof(target) - 1);
	if (n <= 0)
		return false;
	target[n] = '\0';
	base = strrchr(target, '/');
	return (size_t)snprintf(name, size, "%s", base ? base + 1 : target) < size;
}

/* Whether the block device numbered ma:mi is traced, found by its name. */
static bool traced_number(const char *sysfs_root, unsigned int ma, unsigned int mi,
			  const struct device_info *devs, size_t ndevs)
{
	char name[NAME_MAX + 1];
	struct device_info d;

	return block_name(sysfs_root, ma, mi, name, sizeof(name)) &&
	       traced(sysfs_root, name, devs, ndevs, &d);
}

bool fs_devs__partition(const char *sysfs_root, uint32_t dev, char *name, size_t size)
{
	unsigned int ma = IOTRACE_MAJOR(dev), mi = IOTRACE_MINOR(dev);
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/dev/block/%u:%u/partition", sysfs_root, ma, mi);
	return !access(path, F_OK) && block_name(sysfs_root, ma, mi, name, size);
}

/*
 * Whether an entry of dir names a traced block device (dir lists devices
 * by name). A partition's name begins with its disk's, so an entry that
 * begins with no traced name is passed over without a look at sysfs.
 */
static bool lists_traced(const char *sysfs_root, const char *dir, const struct device_info *devs,
			 size_t ndevs)
{
	struct device_info d;
	struct dirent *e;
	bool yes = false;
	DIR *dp = opendir(dir);
	size_t i;

	while (dp && !yes && (e = readdir(dp))) {
		for (i = 0; i < ndevs; i++)
			if (!strncmp(e->d_name, devs[i].name, strlen(devs[i].name)))
				break;
		yes = i < ndevs && traced(sysfs_root, e->d_name, devs, ndevs, &d);
	}
	if (dp)
		closedir(dp);
	return yes;
}

/*
 * Whether another device of the btrfs that has the device member is
 * traced: sysfs lists them all in fs/btrfs/<fsid>/devices/<name>.
 */
static bool btrfs_traced(const char *sysfs_root, const char *member,
			 const struct device_info *devs, size_t ndevs)
{
	char dir[PATH_MAX], path[PATH_MAX + 256];
	struct dirent *fs;
	bool yes = false;
	DIR *fsdir;

	snprintf(dir, sizeof(dir), "%s/fs/btrfs", sysfs_root);
	fsdir = opendir(dir);
	if (!fsdir)
		return false;
	while (!yes && (fs = readdir(fsdir))) {
		if (fs->d_name[0] == '.')
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/%s/devices/%s", dir, fs->d_name,
				     member) >= sizeof(path) || access(path, F_OK))
			continue;
		*strrchr(path, '/') = 0;
		yes = lists_traced(sysfs_root, path, devs, ndevs);
	}
	closedir(fsdir);
	return yes;
}

/*
 * The mounts in mountinfo of file systems on the traced devices: with a
 * set s, adds the number of each not in it yet (0 or -E2BIG); without,
 * returns 1 at the first. Field 3 of a line is MAJ:MIN, and after the
 * " - " separator come the type and the source (the device mounted, a
 * /dev path).
 */
static int traced_mounts(struct dev_set *s, const char *sysfs_root, const char *mountinfo,
			 const struct device_info *devs, size_t ndevs)
{
	char *line = NULL, type[64], source[PATH_MAX];
	struct device_info d;
	unsigned int ma, mi;
	const char *tail;
	size_t cap = 0;
	int ret = 0;
	FILE *f = fopen(mountinfo, "r");

	if (!f)
		return 0;
	/* whole lines, however long: an overlay's options can take tens of KiB */
	while (!ret && getline(&line, &cap, f) > 0) {
		uint32_t dev;
		bool yes;
		size_t i;

		tail = strstr(line, " - ");
		if (sscanf(line, "%*u %*u %u:%u", &ma, &mi) != 2 || !tail ||
		    sscanf(tail + 3, "%63s %4095s", type, source) != 2)
			continue;
		mount_unescape(source);
		dev = IOTRACE_MKDEV(ma, mi);
		if (s && has(s, dev))
			continue;
		for (yes = false, i = 0; i < ndevs && !yes; i++)
			yes = devs[i].dev == dev;
		if (!yes && !strncmp(source, "/dev/", 5)) {
			yes = traced(sysfs_root, source, devs, ndevs, &d);
			if (!yes && !strcmp(type, "btrfs") && d.name[0])
				yes = btrfs_traced(sysfs_root, d.name, devs, ndevs);
			/* a source that names no device (/dev/root): the number may, a partition's too */
			if (!yes && !d.dev)
				yes = traced_number(sysfs_root, ma, mi, devs, ndevs);
		}
		if (yes)
			ret = s ? add(s, dev) : 1;
	}
	free(line);
	fclose(f);
	return ret;
}

bool fs_devs__mounted(const char *sysfs_root, const char *mountinfo,
		      const struct device_info *devs, size_t ndevs)
{
	return traced_mounts(NULL, sysfs_root, mountinfo, devs, ndevs) == 1;
}

bool fs_devs__in_sysfs(const char *sysfs_root, const struct device_info *devs, size_t ndevs)
{
	/* the file systems whose fs/<type>/<device> lives as long as a mount */
	static const char *const by_device[] = { "ext4", "xfs", "f2fs", "erofs" };
	char dir[PATH_MAX];
	bool yes = false;
	size_t i;

	for (i = 0; i < sizeof(by_device) / sizeof(by_device[0]) && !yes; i++) {
		snprintf(dir, sizeof(dir), "%s/fs/%s", sysfs_root, by_device[i]);
		yes = lists_traced(sysfs_root, dir, devs, ndevs);
	}
	return yes;
}

int fs_devs__collect(const char *sysfs_root, const char *mountinfo,
		     const struct device_info *devs, size_t ndevs, uint32_t *out, size_t max,
		     size_t *count)
{
	*count = 0;
	return fs_devs__update(sysfs_root, mountinfo, devs, ndevs, out, max, count);
}

int fs_devs__update(const char *sysfs_root, const char *mountinfo,
		    const struct device_info *devs, size_t ndevs, uint32_t *out, size_t max,
		    size_t *count)
{
	struct dev_set s = { .out = out, .max = max, .n = *count };
	uint32_t parts[DISK_MAX_PARTS];
	size_t i, k, nparts;
	int err = 0;

	for (i = 0; i < ndevs; i++) {
		err = add(&s, devs[i].dev);
		if (err)
			goto out;
		if (devs[i].is_partition)
			continue;
		err = devices__partitions(sysfs_root, devs[i].name, parts, NULL,
					  sizeof(parts) / sizeof(parts[0]), &nparts);
		if (err == -E2BIG)
			goto out;
		for (k = 0; !err && k < nparts; k++)
			err = add(&s, parts[k]);
		if (err == -E2BIG)
			goto out;
	}
	err = traced_mounts(&s, sysfs_root, mountinfo, devs, ndevs);
out:
	*count = s.n;
	return err;
}

int fs_devs__of_path(const char *mountinfo, const char *path, uint32_t *dev)
{
	unsigned long long id;
	unsigned int ma, mi;
	struct statx stx;
	char *line = NULL;
	size_t cap = 0;
	FILE *f;

	if (statx(AT_FDCWD, path, 0, STATX_MNT_ID, &stx))
		return -errno;
	*dev = IOTRACE_MKDEV(stx.stx_dev_major, stx.stx_dev_minor);
	f = (stx.stx_mask & STATX_MNT_ID) ? fopen(mountinfo, "r") : NULL;
	while (f && getline(&line, &cap, f) > 0) {
		if (sscanf(line, "%llu %*u %u:%u", &id, &ma, &mi) == 3 && id == stx.stx_mnt_id) {
			*dev = IOTRACE_MKDEV(ma, mi);
			break;
		}
	}
	free(line);
	if (f)
		fclose(f);
	return 0;
}

int fs_devs__watch(const char *mountinfo)
{
	int fd = open(mountinfo, O_RDONLY | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}
