// SPDX-License-Identifier: BSD-3-Clause
#define _GNU_SOURCE /* nftw() */
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cgroup_names.h"
#include "cgroup_tree.h"
#include "u64map.h"

/* nftw() has no argument for its callbacks: what the walk in progress looks for, or fills */
static struct {
	uint64_t id;
	char *dir;
	size_t size;
	struct u64map *ids;
	int err;
} walk;

static int is_wanted(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)ftw;
	if (type != FTW_D || (uint64_t)st->st_ino != walk.id)
		return 0;
	if (walk.dir && snprintf(walk.dir, walk.size, "%s", path) >= (int)walk.size)
		walk.dir[0] = '\0';
	return 1;
}

bool cgroup_tree__find(const char *root, uint64_t id, char *dir, size_t size)
{
	walk.id = id;
	walk.dir = dir;
	walk.size = size;
	return nftw(root, is_wanted, 16, FTW_PHYS | FTW_MOUNT) == 1 && (!dir || dir[0]);
}

bool cgroup_tree__under(const char *path, const char *root)
{
	char real[PATH_MAX], real_root[PATH_MAX];

	return realpath(path, real) && realpath(root, real_root) &&
	       cgroup_names__within(real, real_root, strlen(real_root));
}

bool cgroup_tree__dir(const char *dir, const char *root, uint64_t *id)
{
	struct stat st;

	if (stat(dir, &st) || !S_ISDIR(st.st_mode) || (root && !cgroup_tree__under(dir, root)))
		return false;
	if (id)
		*id = (uint64_t)st.st_ino;
	return true;
}

static int add_dir(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)path;
	(void)ftw;
	if (type != FTW_D)
		return 0;
	walk.err = u64map__put(walk.ids, (uint64_t)st->st_ino, 1);
	return walk.err ? 1 : 0;
}

int cgroup_tree__subtree(const char *dir, struct u64map *ids)
{
	walk.ids = ids;
	walk.err = 0;
	nftw(dir, add_dir, 16, FTW_PHYS | FTW_MOUNT);
	return walk.err;
}
