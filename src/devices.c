// SPDX-License-Identifier: BSD-3-Clause
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "devices.h"
#include "iotrace_event.h"

/* Reads a one-line sysfs attribute, trailing whitespace removed. */
static int read_attr(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return -errno;
	n = fread(buf, 1, size - 1, f);
	fclose(f);
	buf[n] = 0;
	while (n && isspace((unsigned char)buf[n - 1]))
		buf[--n] = 0;
	return 0;
}

static int read_dev(const char *sysfs_root, const char *name, uint32_t *dev)
{
	char path[PATH_MAX], buf[32];
	unsigned int ma, mi;
	int err;

	snprintf(path, sizeof(path), "%s/class/block/%s/dev", sysfs_root, name);
	err = read_attr(path, buf, sizeof(buf));
	if (err)
		return err;
	if (sscanf(buf, "%u:%u", &ma, &mi) != 2)
		return -EINVAL;
	*dev = IOTRACE_MKDEV(ma, mi);
	return 0;
}

/*
 * A /dev path may be a symlink (by-id, mapper); the kernel name is the
 * basename of its target.
 */
static int kernel_name(const char *name, char *out, size_t size)
{
	char real[PATH_MAX];
	const char *base = name;
	struct stat st;

	/* a path to something else (/dev/null, a directory) is no unknown device */
	if (strchr(name, '/') && !stat(name, &st) && !S_ISBLK(st.st_mode))
		return -ENOTBLK;
	if (!strncmp(name, "/dev/", 5)) {
		if (realpath(name, real))
			base = strrchr(real, '/') + 1;
		else
			base = name + 5;
	}
	if (!*base || strchr(base, '/') || !strcmp(base, ".") || !strcmp(base, ".."))
		return -ENODEV;
	if (strlen(base) >= size)
		return -ENODEV;
	strcpy(out, base);
	return 0;
}

static uint64_t read_u64_attr(const char *sysfs_root, const char *name, const char *attr)
{
	char path[PATH_MAX], buf[32];

	snprintf(path, sizeof(path), "%s/class/block/%s/%s", sysfs_root, name, attr);
	return read_attr(path, buf, sizeof(buf)) ? 0 : strtoull(buf, NULL, 10);
}

int devices__resolve(const char *sysfs_root, const char *name, struct device_info *out)
{
	char path[PATH_MAX], real[PATH_MAX];
	int err;

	memset(out, 0, sizeof(*out));
	if (!name || !*name)
		return -EINVAL;
	err = kernel_name(name, out->name, sizeof(out->name));
	if (err)
		return err;
	if (read_dev(sysfs_root, out->name, &out->dev))
		return -ENODEV;

	snprintf(path, sizeof(path), "%s/class/block/%s/partition", sysfs_root, out->name);
	out->is_partition = access(path, F_OK) == 0;
	if (out->is_partition) {
		/* class/block/sda1 -> .../block/sda/sda1: the parent is the disk */
		snprintf(path, sizeof(path), "%s/class/block/%s", sysfs_root, out->name);
		if (!realpath(path, real))
			return -ENODEV;
		snprintf(out->disk_name, sizeof(out->disk_name), "%s", basename(dirname(real)));
		if (read_dev(sysfs_root, out->disk_name, &out->disk_dev))
			return -ENODEV;
	} else {
		strcpy(out->disk_name, out->name);
		out->disk_dev = out->dev;
	}

	out->size = read_u64_attr(sysfs_root, out->name, "size");
	out->start = out->is_partition ? read_u64_attr(sysfs_root, out->name, "start") : 0;
	out->diskseq = read_u64_attr(sysfs_root, out->disk_name, "diskseq");
	snprintf(path, sizeof(path), "%s/class/block/%s/device/model", sysfs_root, out->disk_name);
	if (read_attr(path, out->model, sizeof(out->model)))
		out->model[0] = 0;
	return 0;
}

enum device_change devices__check(const char *sysfs_root, const struct device_info *d)
{
	uint32_t dev;
	uint64_t seq, size;

	if (read_dev(sysfs_root, d->name, &dev) || dev != d->dev)
		return DEVICE_REMOVED;
	size = read_u64_attr(sysfs_root, d->name, "size");
	if (d->size && !size)
		return DEVICE_EMPTY;
	/* a medium taken out or put in changes diskseq */
	seq = d->diskseq ? read_u64_attr(sysfs_root, d->disk_name, "diskseq") : 0;
	if (seq != d->diskseq)
		return DEVICE_NEW_MEDIUM;
	/* what does not: new partitions, under the same number */
	if (d->is_partition && read_u64_attr(sysfs_root, d->name, "start") != d->start)
		return DEVICE_MOVED;
	return DEVICE_SAME;
}

static void set_error(struct devices_error *e, int err, const char *name, size_t len,
		      const char *other)
{
	if (!e)
		return;
	e->err = err;
	snprintf(e->name, sizeof(e->name), "%.*s", (int)len, name);
	snprintf(e->other, sizeof(e->other), "%s", other ? other : "");
}

/* Two devices overlap if they are the same, or one is a partition of the other. */
static bool overlaps(const struct device_info *a, const struct device_info *b)
{
	if (a->dev == b->dev)
		return true;
	if (a->is_partition != b->is_partition)
		return a->disk_dev == b->disk_dev;
	return false;
}

int devices__parse_list(const char *sysfs_root, const char *list, struct device_info *out,
			size_t max, size_t *count, struct devices_error *e)
{
	const char *p = list, *q;
	char name[256];
	size_t n = 0, len, i;
	int err;

	*count = 0;
	/* too many is told by the list alone, before a device is looked at */
	for (q = list, i = 0; q && i < max; i++) {
		q = strchr(q, ',');
		if (q)
			q++;
	}
	if (q) {
		set_error(e, -E2BIG, q, strcspn(q, ","), NULL);
		return -E2BIG;
	}
	for (;;) {
		len = strcspn(p, ",");
		if (len == 0 || len >= sizeof(name)) {
			set_error(e, -EINVAL, p, len, NULL);
			return -EINVAL;
		}
		memcpy(name, p, len);
		name[len] = 0;
		err = devices__resolve(sysfs_root, name, &out[n]);
		/* nothing to trace, and a medium put in later would be another device */
		if (!err && !out[n].size)
			err = -ENOMEDIUM;
		if (err) {
			set_error(e, err, p, len, NULL);
			return err;
		}
		for (i = 0; i < n; i++) {
			if (overlaps(&out[i], &out[n])) {
				set_error(e, -EEXIST, p, len, out[i].name);
				return -EEXIST;
			}
		}
		n++;
		if (!p[len])
			break;
		p += len + 1;
	}
	*count = n;
	return 0;
}

int devices__partitions(const char *sysfs_root, const char *disk, uint32_t *out,
			char (*names)[DEVICE_NAME_MAX], size_t max, size_t *count)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d;
	int err = 0;

	*count = 0;
	snprintf(path, sizeof(path), "%s/block/%s", sysfs_root, disk);
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		struct stat st;

		/* a partition is a subdirectory with a "partition" attribute */
		if (snprintf(path, sizeof(path), "%s/block/%s/%s/partition", sysfs_root, disk,
			     de->d_name) >= (int)sizeof(path) ||
		    stat(path, &st))
			continue;
		if (*count >= max) {
			err = -E2BIG;
			break;
		}
		if (strlen(de->d_name) >= DEVICE_NAME_MAX ||
		    read_dev(sysfs_root, de->d_name, &out[*count]))
			continue;
		if (names)
			strcpy(names[*count], de->d_name);
		(*count)++;
	}
	closedir(d);
	return err;
}
