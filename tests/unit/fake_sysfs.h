/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A fake sysfs tree in a temp dir, for tests of code that reads /sys
 * through a root parameter. Mirrors the real one: class/block/<name> and
 * block/<disk> link into devices/, where a partition's directory sits
 * inside its disk's.
 */
#ifndef IOTRACE_TEST_FAKE_SYSFS_H
#define IOTRACE_TEST_FAKE_SYSFS_H

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static char sysfs_root[PATH_MAX];

static void sysfs_mkdir_for(const char *path)
{
	char cmd[PATH_MAX * 2];

	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", path);
	assert_int_equal(system(cmd), 0);
}

/* Writes rel (under the root), making its directories. */
static void sysfs_put(const char *rel, const char *content)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", sysfs_root, rel);
	sysfs_mkdir_for(path);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(content, f);
	fclose(f);
}

/* Makes rel (under the root) a symlink to target, making its directories. */
static void sysfs_link(const char *rel, const char *target)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", sysfs_root, rel);
	sysfs_mkdir_for(path);
	assert_int_equal(symlink(target, path), 0);
}

/*
 * A block device: devices/<dir>/dev holding majmin ("7:3"), the
 * class/block/<name> and dev/block/<majmin> links to it and, for a disk
 * (no partition number), block/<name> too.
 */
static void sysfs_block(const char *name, const char *dir, const char *majmin, int partition)
{
	char rel[PATH_MAX], target[PATH_MAX];

	snprintf(rel, sizeof(rel), "devices/%s/dev", dir);
	snprintf(target, sizeof(target), "%s\n", majmin);
	sysfs_put(rel, target);
	/* a medium, as a device to trace needs; a test sets its own size after */
	snprintf(rel, sizeof(rel), "devices/%s/size", dir);
	sysfs_put(rel, "2048\n");
	if (partition) {
		snprintf(rel, sizeof(rel), "devices/%s/partition", dir);
		snprintf(target, sizeof(target), "%d\n", partition);
		sysfs_put(rel, target);
	}
	snprintf(rel, sizeof(rel), "class/block/%s", name);
	snprintf(target, sizeof(target), "../../devices/%s", dir);
	sysfs_link(rel, target);
	snprintf(rel, sizeof(rel), "dev/block/%s", majmin);
	sysfs_link(rel, target);
	if (!partition) {
		snprintf(rel, sizeof(rel), "block/%s", name);
		snprintf(target, sizeof(target), "../devices/%s", dir);
		sysfs_link(rel, target);
	}
}

static int sysfs_create(void)
{
	strcpy(sysfs_root, "/tmp/iotrace-sysfs-XXXXXX");
	return mkdtemp(sysfs_root) ? 0 : -1;
}

static int sysfs_remove(void)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", sysfs_root);
	return system(cmd);
}

#endif
