/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The device numbers of the file systems on the traced devices: what the
 * kernel calls super_block.s_dev and the system-call side (--vfs, file
 * events) filters on. Most file systems take their block device's, so
 * that is the traced devices and each partition of a traced disk. btrfs
 * numbers itself apart (an anonymous device, mountinfo's MAJ:MIN) and
 * may span several disks: a btrfs mounted when tracing starts counts if
 * any of its devices is traced. So does any other file system mounted
 * from a traced device under a number of its own.
 */
#ifndef IOTRACE_FS_DEVS_H
#define IOTRACE_FS_DEVS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "devices.h"

/* Whether dev is among devs[0..n), a list of these numbers. */
bool fs_devs__has(const uint32_t *devs, size_t n, uint32_t dev);

/*
 * Fills out[0..max) with the IOTRACE_MKDEV numbers for devs[0..ndevs),
 * each once: first the devices and partitions, then the mounted file
 * systems' own. sysfs_root ("/sys") and mountinfo ("/proc/self/mountinfo")
 * are parameters for tests. A mount table that cannot be read adds no
 * file system (the devices still count). Returns 0 or -E2BIG (more than
 * max; *count says how many fit).
 */
int fs_devs__collect(const char *sysfs_root, const char *mountinfo,
		     const struct device_info *devs, size_t ndevs, uint32_t *out, size_t max,
		     size_t *count);

/*
 * The same for a list out[0..*count) collected before: appends the file
 * systems not in it yet (mounted since, or on a partition made since),
 * in place, so a reader that goes by the count sees a whole list. Stops
 * at max with -E2BIG, *count saying how far it got.
 */
int fs_devs__update(const char *sysfs_root, const char *mountinfo,
		    const struct device_info *devs, size_t ndevs, uint32_t *out, size_t max,
		    size_t *count);

/*
 * Whether dev (IOTRACE_MKDEV) is a partition; if so, its name ("sda1") in
 * name[0..size). A file system's own number (btrfs) is not.
 */
bool fs_devs__partition(const char *sysfs_root, uint32_t dev, char *name, size_t size);

/*
 * Whether mountinfo lists a file system on one of devs[0..ndevs) (or on a
 * partition of one): one mounted from it (by its source, or by its number
 * where the source names no device, as /dev/root), or a btrfs with a
 * member among them. False if the table cannot be read.
 */
bool fs_devs__mounted(const char *sysfs_root, const char *mountinfo,
		      const struct device_info *devs, size_t ndevs);

/*
 * Whether a file system on one of devs[0..ndevs) (or on a partition of
 * one) is mounted in any mount namespace, as sysfs tells by device name:
 * fs/{ext4,xfs,f2fs,erofs}/<device>. For a mount the mount table does not
 * show (another namespace's). These file systems take their device's
 * number, which the syscall programs filter on; a btrfs takes one of its
 * own that only a mount table gives, so it is not looked for.
 */
bool fs_devs__in_sysfs(const char *sysfs_root, const struct device_info *devs, size_t ndevs);

/*
 * The file system number (mountinfo's MAJ:MIN, as fs_devs lists them) of
 * the mount that holds path, found by statx's mount id; where that fails
 * (a kernel before 5.8, a mount table that does not list it), the
 * number stat gives. A btrfs's files have a subvolume's number, not the
 * file system's. 0 or -errno (path cannot be looked at).
 */
int fs_devs__of_path(const char *mountinfo, const char *path, uint32_t *dev);

/*
 * A watch on the mount table: mountinfo opened, which polls POLLPRI after
 * each mount or unmount (proc(5)) since the open or the last poll.
 * Returns the fd or -errno.
 */
int fs_devs__watch(const char *mountinfo);

#endif
